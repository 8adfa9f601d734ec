/* test_pipeline_replay.c - every .pto file of the repository (examples,
   tests, the fuzzer's kept inputs) through the whole pipeline for both
   targets: compile (with the plan checker and the sync self-check), emit
   twice (byte-identical), isa emission. Refusals are fine; a crash, a
   sanitizer report (make test-sanitize) or PTO_ERR_INTERNAL is not. The
   checks are tests/fuzz/fuzz_pipeline.c's, which make fuzz runs under
   libFuzzer. */
#define PTO_FUZZ_MAIN
#include "fuzz/fuzz_pipeline.c"
