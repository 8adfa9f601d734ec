/* test_interp_replay.c - every .pto file of the repository (examples,
   tests, the fuzzer's kept inputs) run on the reference interpreter as
   written and as compiled (lowered, planned, synchronised), with small
   dims picked per file: no crash, no internal error, and the passes must
   not change any result. The checks are tests/fuzz/fuzz_interp.c's, which
   make fuzz runs under libFuzzer. */
#define PTO_FUZZ_MAIN
#include "fuzz/fuzz_interp.c"
