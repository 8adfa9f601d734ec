/* pto_kernels.h - the device-side header that kernels emitted by pto include.
   Generated from src/ by tools/amalgamate.c: do not edit by hand.

   Its default backend runs a kernel on the CPU as a simulated Ascend NPU that
   is stricter than the hardware. (Grown by the simulator issue.) */
