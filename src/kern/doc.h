/* pto_kernels.h - the device-side header that kernels emitted by pto include.
   Generated from src/ by tools/amalgamate.c: do not edit by hand.

   Its default backend runs a kernel on the CPU as a simulated Ascend NPU that
   is stricter than the hardware:
   - a device model per arch (a2a3, a5): clusters of 1 AIC + 2 AIV, every
     local memory at its exact capacity, GM tensors, 7 pipes per core;
   - every op of pto's op table, bit for bit with the reference interpreter,
     addressed by planned byte offsets (misaligned or out-of-capacity tiles
     are errors);
   - set_flag / wait_flag / pipe_barrier with real semantics: a wait blocks
     only its pipe; double sets, never-satisfied waits and ids left set are
     reported;
   - a happens-before race detector over every pipe of every core and rank,
     with shadow memory per 32-byte granule of every local space and GM tensor;
   - uninitialised-read reports: a read of local bytes that nothing wrote
     since the launch or the tile's declaration (pto_k_tdecl), where the
     reference interpreter would read its fresh zeros;
   - a cycle model per pipe (costs from hardware.md section 9), a report with
     makespan, busy cycles, bound and efficiency, where the busiest pipe's
     idle cycles went (the waits that held it, by statement), and a Chrome
     trace;
   - SPMD blocks, mix clusters with cross-core flags and TPUSH/TPOP/TFREE
     rings, ranks with windows, notify/wait and atomic add, under a seeded
     deterministic scheduler that reports deadlocks naming every blocked wait;
   - an instruction budget per launch (pto_k_launch_desc.max_instr): a runaway
     kernel stops with one report instead of running until killed.
   The API is described in the "api.h" part below. Every name is pto_k_* /
   PTO_K_*, so a program may include pto.h and pto_kernels.h together.
   Link with -lm (and -lpthread where libc does not include it). */
