/* The include line of an emitted kernel.cpp, redirected to the stub (tests/isa_test.sh). */
#include "../pto_isa_stub.hpp"
