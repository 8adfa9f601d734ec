/* tensor.h for tests/isa_test.sh: the part of the runtime's tensor descriptor that
   kernels emitted with `ptoc emit --target isa` read (buffer.addr, start_offset, shapes). */
#ifndef PTO_ISA_STUB_TENSOR_H
#define PTO_ISA_STUB_TENSOR_H
#include <cstdint>
struct TensorData {
    struct { uint64_t addr; } buffer;
    uint64_t start_offset;
    uint64_t shapes[5];
};
#endif
