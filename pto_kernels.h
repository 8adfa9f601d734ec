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

#ifndef PTO_KERNELS_H_INCLUDED
#define PTO_KERNELS_H_INCLUDED

/* ---- Begin file: src/numerics.h ---- */
/* numerics.h - the storage rules shared by the reference interpreter (pto.h)
   and the simulated device (pto_kernels.h), so that both agree bit for bit.

   f16 and bf16 are stored as 16-bit patterns and computed in f32; every write
   rounds the f32 result to nearest, ties to even. Overflow rounds to infinity,
   NaN stays NaN (quiet), subnormals are kept. Elements are read and written
   through pto_elem_get / pto_elem_set so that the dtype rule lives in one
   place. Dtype codes follow pto_dtype: 1 f32, 2 f16, 3 bf16, 4 i32, 5 i8.

   This file is included in both generated headers; the guard lets one
   translation unit include both. */

#ifndef PTO_NUMERICS_H
#define PTO_NUMERICS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__) || defined(__TINYC__)
#define PTO_NUMFN static __attribute__((unused))
#else
#define PTO_NUMFN static
#endif

PTO_NUMFN uint32_t pto_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

PTO_NUMFN float pto_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

PTO_NUMFN float pto_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) return pto_f32_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        /* subnormal or zero: man * 2^-24, exact in f32 */
        float v = (float)man * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return pto_f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

PTO_NUMFN uint16_t pto_f32_to_f16(float f)
{
    uint32_t u = pto_f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t exp = (u >> 23) & 0xffu;
    uint32_t man = u & 0x7fffffu;
    int32_t e;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
    e = (int32_t)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        /* subnormal f16: shift the full mantissa (with its hidden bit) right */
        uint32_t full, shift, half, rest, q;
        if (e < -10) return (uint16_t)sign; /* below half the smallest subnormal */
        full = man | 0x800000u;
        shift = (uint32_t)(14 - e);
        q = full >> shift;
        rest = full & ((1u << shift) - 1u);
        half = 1u << (shift - 1u);
        if (rest > half || (rest == half && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    {
        uint32_t q = ((uint32_t)e << 10) | (man >> 13);
        uint32_t rest = man & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (q & 1u))) q++; /* may carry into inf: right */
        return (uint16_t)(sign | q);
    }
}

PTO_NUMFN float pto_bf16_to_f32(uint16_t h) { return pto_f32_from_bits((uint32_t)h << 16); }

PTO_NUMFN uint16_t pto_f32_to_bf16(float f)
{
    uint32_t u = pto_f32_bits(f);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu))
        return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* The NaN every arithmetic result that is NaN becomes (quiet, positive, no
   payload). C leaves the sign and payload of a NaN result to the compiler
   and the CPU: which operand of a commuted a + b is kept, x86's negative
   default NaN against ARM's positive one. Canonical NaNs keep the
   interpreter and the simulator bit for bit whatever compiled them.
   Selections and copies (tmax, tmin, tabs, tneg, moves) keep NaN bits. */
PTO_NUMFN float pto_nan_canon(float v) { return v != v ? pto_f32_from_bits(0x7fc00000u) : v; }

/* -x as a sign-bit flip: tcc compiles unary minus as x * -1, which leaves
   a NaN's sign alone; tneg must flip it (and the sign of 0) everywhere. */
PTO_NUMFN float pto_fneg(float v) { return pto_f32_from_bits(pto_f32_bits(v) ^ 0x80000000u); }

/* Round an f32 value as storing it in dtype would. */
PTO_NUMFN float pto_round_to(int dtype, float v)
{
    switch (dtype) {
    case 2: return pto_f16_to_f32(pto_f32_to_f16(v));
    case 3: return pto_bf16_to_f32(pto_f32_to_bf16(v));
    default: return v;
    }
}

/* The values integer dtype 5 (i8) or 4 (i32) holds, as doubles: the one
   range that scalar conversion, the verifier's and the harness's warnings
   and the -D checks share. */
PTO_NUMFN double pto_int_lo(int dtype) { return dtype == 5 ? -128.0 : -2147483648.0; }
PTO_NUMFN double pto_int_hi(int dtype) { return dtype == 5 ? 127.0 : 2147483647.0; }

/* A scalar operand as the vector unit takes it. pto-isa's TADDS .. TMINS
   and TEXPANDS take the scalar as the tile's element type (`typename
   TileData::DType scalar`), so the device converts it to the destination
   tile's dtype before any arithmetic: f16 and bf16 round to nearest even
   (through f32), i32 and i8 truncate toward zero as C++ converts a float
   to an integer (saturated here, NaN as 0, where the device's conversion
   is undefined). So tmuls on an f16 tile by 0.1 multiplies by
   0.0999755859375, and tadds on an i32 tile of 2.5 adds 2. */
PTO_NUMFN float pto_scalar_as(int dtype, double s)
{
    switch (dtype) {
    case 2:
    case 3: return pto_round_to(dtype, (float)s);
    case 4:
    case 5: {
        double lo = pto_int_lo(dtype), hi = pto_int_hi(dtype);
        if (s != s) return 0.0f;
        s = s < lo ? lo : s > hi ? hi : s;
        return (float)(s < 0 ? ceil(s) : floor(s));
    }
    default: return (float)s;
    }
}

PTO_NUMFN float pto_elem_get(const void *base, int dtype, int64_t i)
{
    switch (dtype) {
    case 1: return ((const float *)base)[i];
    case 2: return pto_f16_to_f32(((const uint16_t *)base)[i]);
    case 3: return pto_bf16_to_f32(((const uint16_t *)base)[i]);
    case 4: return (float)((const int32_t *)base)[i];
    case 5: return (float)((const int8_t *)base)[i];
    default: return 0.0f;
    }
}

/* Integer dtypes: round to nearest even, saturate. */
PTO_NUMFN int32_t pto_sat_i32(float v)
{
    float r;
    if (v != v) return 0;
    if (v >= 2147483647.0f) return 2147483647;
    if (v <= -2147483648.0f) return (-2147483647 - 1);
    r = nearbyintf(v);
    return (int32_t)r;
}

PTO_NUMFN void pto_elem_set(void *base, int dtype, int64_t i, float v)
{
    switch (dtype) {
    case 1: ((float *)base)[i] = v; break;
    case 2: ((uint16_t *)base)[i] = pto_f32_to_f16(v); break;
    case 3: ((uint16_t *)base)[i] = pto_f32_to_bf16(v); break;
    case 4: ((int32_t *)base)[i] = pto_sat_i32(v); break;
    case 5: {
        int32_t x = pto_sat_i32(v);
        ((int8_t *)base)[i] = (int8_t)(x > 127 ? 127 : x < -128 ? -128 : x);
        break;
    }
    default: break;
    }
}

/* tcvt's store: f16 -> i8 is one of the narrowing conversions pto-isa's
   a2a3 TCVT runs with saturation OFF by default (kIsNarrowingCvt, "PyTorch
   semantics"), where the hardware keeps the low 8 bits of the rounded
   integer (300.0 -> 44, 200.0 -> -56) and, whatever the mode, +-inf give
   127 / -128 and NaN 0 (asc-devkit SetSaturationFlag). Every other pair
   tcvt takes saturates, as its default (SaturationMode ON) does: f32 ->
   i32 of 3e9 is INT32_MAX. sdt is the source dtype. */
PTO_NUMFN void pto_cvt_set(void *base, int ddt, int sdt, int64_t i, float v)
{
    if (ddt == 5 && sdt == 2 && v == v && v - v == 0.0f) {
        /* finite f16: |v| <= 65504, the rounded value fits int32 */
        int32_t r = (int32_t)nearbyintf(v);
        uint32_t u = (uint32_t)r & 0xffu;
        ((int8_t *)base)[i] = (int8_t)(u < 0x80u ? (int)u : (int)u - 256);
    } else {
        pto_elem_set(base, ddt, i, v);
    }
}

/* ---- element arithmetic -------------------------------------------------
   One definition for both sides, so the interpreter and the simulator cannot
   drift apart. Binary ops in op-table order (add sub mul div max min), unary
   ops likewise (exp log sqrt rsqrt recip abs neg relu). Arithmetic NaN
   results are the canonical quiet NaN; max/min return the first NaN operand
   and, for equal values (+0 and -0 too), the first operand; abs and neg only
   touch the sign bit; relu maps -0 and NaN to +0. */

enum { PTO_EL_ADD, PTO_EL_SUB, PTO_EL_MUL, PTO_EL_DIV, PTO_EL_MAX, PTO_EL_MIN };
enum { PTO_EL_EXP, PTO_EL_LOG, PTO_EL_SQRT, PTO_EL_RSQRT, PTO_EL_RECIP, PTO_EL_ABS, PTO_EL_NEG, PTO_EL_RELU };

PTO_NUMFN float pto_el_bin(int op, float a, float b)
{
    float r;
    switch (op) {
    case PTO_EL_ADD: r = a + b; return pto_nan_canon(r);
    case PTO_EL_SUB: r = a - b; return pto_nan_canon(r);
    case PTO_EL_MUL: r = a * b; return pto_nan_canon(r);
    case PTO_EL_DIV: r = a / b; return pto_nan_canon(r);
    case PTO_EL_MAX: return a != a ? a : b != b ? b : a >= b ? a : b;
    default: return a != a ? a : b != b ? b : a <= b ? a : b;
    }
}

/* A division op's quotient for a destination of dtype ddt, as pto-isa
   computes it (TDivS.hpp of a2a3 and a5): tdivs (scalar: 1) on f32, i32
   and i8 tiles multiplies by the f32 reciprocal of the scalar (+inf for
   0), so 10 / 3 is 10 * 0.33333334f, one ulp off 10 / 3 now and then; on
   f16 (a2a3: vdiv in f16) and bf16 it divides. tdiv and the broadcast
   divisions divide. An integer destination takes the quotient truncated
   toward zero (the device converts with ROUND_Z: 7 / 2 is 3, -7 / 2 is
   -3), saturated on the store as every conversion is (NaN stores 0). */
PTO_NUMFN float pto_el_div(int ddt, float a, float b, int scalar)
{
    float q;
    if (scalar && ddt != 2 && ddt != 3) {
        float r = b != 0.0f ? 1.0f / b : INFINITY;
        q = a * r;
    } else {
        q = a / b;
    }
    q = pto_nan_canon(q);
    return (ddt == 4 || ddt == 5) && q == q ? truncf(q) : q;
}

/* A binary op's element into a tile of dtype ddt (op: PTO_EL_ADD ..): a
   division as the device divides (pto_el_div), the rest by pto_el_bin. The
   interpreter and the simulator both call it, so they divide alike. */
PTO_NUMFN float pto_el_bin_into(int op, int ddt, float a, float b)
{
    return op == PTO_EL_DIV ? pto_el_div(ddt, a, b, 0) : pto_el_bin(op, a, b);
}

PTO_NUMFN float pto_el_un(int op, float x)
{
    float r;
    switch (op) {
    case PTO_EL_EXP: return pto_nan_canon(expf(x));
    case PTO_EL_LOG: return pto_nan_canon(logf(x));
    case PTO_EL_SQRT: return pto_nan_canon(sqrtf(x));
    case PTO_EL_RSQRT: r = sqrtf(x); r = 1.0f / r; return pto_nan_canon(r);
    case PTO_EL_RECIP: r = 1.0f / x; return pto_nan_canon(r);
    case PTO_EL_ABS: return fabsf(x);
    case PTO_EL_NEG: return pto_fneg(x);
    default: return x > 0.0f ? x : 0.0f;
    }
}

/* ---- integer tiles --------------------------------------------------------
   On an i32 / i8 tile the vector unit's add, sub, mul, max, min (and their
   scalar forms), abs, neg, relu and the fill are integer operations
   (pto-isa's int32_t TADD ...), not f32 ones: 16777217 + 0 must not round to
   16777216. They are computed exactly in int64 and stored WRAPPED to the
   dtype (two's complement: the low 32 / 8 bits), as the device does: its
   integer saturation mode (Ascend C SaturationMode::INT, CTRL bit 53) is off
   by default, and "an overflowing integer result keeps its low bits"
   (asc-devkit SetSaturationFlag). So INT32_MAX + 1 is INT32_MIN, 100 * 3 on
   i8 is 44, and abs / neg of INT32_MIN (-128 on i8) are INT32_MIN (-128).
   Wrapping the exact result equals wrapping every step (arithmetic mod 2^n),
   so the row / column reductions (pto_el_red_i: the sum in int64) and the
   row / column broadcasts' add, sub, mul (the binary ops) wrap the same way.
   tdiv and its broadcast forms still compute in f32, and conversions (tcvt,
   a tload from another dtype) still saturate (pto_elem_set): the device's
   float -> int conversion saturation (SaturationMode::CAST) is on by
   default. pto_el_int_op says which ops take this path:
   bop a binary op (PTO_EL_ADD ..), or -1 - uop for a unary one (PTO_EL_EXP ..),
   or -100 for the fill. */
PTO_NUMFN int pto_el_int_op(int dtype, int op)
{
    if (dtype != 4 && dtype != 5) return 0;
    if (op == -100) return 1;
    if (op >= 0) return op != PTO_EL_DIV;
    op = -1 - op;
    return op == PTO_EL_ABS || op == PTO_EL_NEG || op == PTO_EL_RELU;
}

PTO_NUMFN int64_t pto_elem_geti(const void *base, int dtype, int64_t i)
{
    return dtype == 4 ? (int64_t)((const int32_t *)base)[i] : (int64_t)((const int8_t *)base)[i];
}

/* v modulo 2^32 / 2^8 as a two's complement i32 / i8. Only unsigned
   arithmetic and in-range conversions: C leaves the conversion of an
   out-of-range value to a signed type to the implementation (and signed
   overflow undefined), so neither is relied on. */
PTO_NUMFN int32_t pto_wrap_i32(int64_t v)
{
    uint32_t u = (uint32_t)((uint64_t)v & 0xffffffffu);
    return u < 0x80000000u ? (int32_t)u : (int32_t)(u - 0x80000000u) - 2147483647 - 1;
}

PTO_NUMFN int8_t pto_wrap_i8(int64_t v)
{
    unsigned u = (unsigned)((uint64_t)v & 0xffu);
    return (int8_t)(u < 0x80u ? (int)u : (int)u - 256);
}

PTO_NUMFN void pto_elem_seti(void *base, int dtype, int64_t i, int64_t v)
{
    if (dtype == 4) ((int32_t *)base)[i] = pto_wrap_i32(v);
    else ((int8_t *)base)[i] = pto_wrap_i8(v);
}

/* The scalar of an integer tile's op: pto_scalar_as's truncation, as an
   integer (a float would round 16777217). */
PTO_NUMFN int64_t pto_scalar_asi(int dtype, double s)
{
    double lo = pto_int_lo(dtype), hi = pto_int_hi(dtype);
    if (s != s) return 0;
    s = s < lo ? lo : s > hi ? hi : s;
    return (int64_t)(s < 0 ? ceil(s) : floor(s));
}

/* Operands are i32 or i8 values (or a reduction's running sum of fewer than
   2^31 of them), so neither the product nor a sum leaves int64: exact, no
   signed overflow; the store wraps (pto_elem_seti). */
PTO_NUMFN int64_t pto_el_bin_i(int op, int64_t a, int64_t b)
{
    switch (op) {
    case PTO_EL_ADD: return a + b;
    case PTO_EL_SUB: return a - b;
    case PTO_EL_MUL: return a * b;
    case PTO_EL_MAX: return a >= b ? a : b;
    default: return a <= b ? a : b;
    }
}

PTO_NUMFN int64_t pto_el_un_i(int op, int64_t x)
{
    switch (op) {
    case PTO_EL_ABS: return x < 0 ? -x : x;   /* -INT32_MIN is 2^31 here; stored, INT32_MIN */
    case PTO_EL_NEG: return -x;
    default: return x > 0 ? x : 0;
    }
}

/* A row or column reduction of an integer tile: n elements of base from
   index i0, step apart, combined in order by op (PTO_EL_ADD: the sum, exact
   in int64 since n < 2^32 i32 values cannot leave it, wrapped when stored;
   PTO_EL_MAX, PTO_EL_MIN: exact). No elements give 0 for the sum and, for
   max / min, the dtype's least / greatest value (what -inf / +inf store as
   on the f32 path). */
PTO_NUMFN int64_t pto_el_red_i(int op, const void *base, int dtype, int64_t i0, int64_t step, int64_t n)
{
    int64_t k, acc;
    if (n == 0)
        return op == PTO_EL_ADD ? 0 : op == PTO_EL_MAX ? (dtype == 4 ? -2147483647 - 1 : -128)
                                                       : (dtype == 4 ? 2147483647 : 127);
    acc = pto_elem_geti(base, dtype, i0);
    for (k = 1; k < n; k++) acc = pto_el_bin_i(op, acc, pto_elem_geti(base, dtype, i0 + k * step));
    return acc;
}

/* Which of TMATMUL's m, k, n (0, 1, 2: the left tile's valid rows and
   cols, the right tile's valid cols) is outside 1..4095, the range pto-isa
   asserts on the device (CheckDynamicMad); -1 when all are in it. The
   interpreter and the simulator refuse the same launches. */
PTO_NUMFN int pto_mm_bad_extent(int64_t m, int64_t k, int64_t n)
{
    return m < 1 || m > 4095 ? 0 : k < 1 || k > 4095 ? 1 : n < 1 || n > 4095 ? 2 : -1;
}

/* c[i][j] of an i8 x i8 -> i32 tmatmul: c0 (0, or the accumulator for
   tmatmul_acc) plus a[i][k] * b[k][j] over k < K, ascending, a and b row
   major with row strides sa and sb. The cube multiplies and accumulates
   integers exactly (f32 would round past 2^24: 127 * 127 * 1041 is
   already there), so this is int64 (|each product| <= 2^14, K <= 4095),
   and the store wraps to i32 like every integer result. */
PTO_NUMFN int64_t pto_el_mm_i8(const void *a, int64_t sa, const void *b, int64_t sb, int64_t i, int64_t j, int64_t K,
                               int64_t c0)
{
    const int8_t *pa = (const int8_t *)a + i * sa, *pb = (const int8_t *)b + j;
    int64_t k, acc = c0;
    for (k = 0; k < K; k++) acc += (int64_t)pa[k] * (int64_t)pb[k * sb];
    return acc;
}

#endif /* PTO_NUMERICS_H */
/* ---- End file: src/numerics.h ---- */

/* ---- Begin file: src/kern/api.h ---- */
/* api.h - the device API of pto_kernels.h: what an emitted kernel calls and
   what a host program uses to run it on the simulated NPU.

   This is the contract between the emitter and the simulator. Everything is
   a static function of this header (pto_kernels.h is all static code), and
   every name carries the prefix pto_k_ / PTO_K_ so that one translation unit
   can include both pto.h (with PTO_IMPLEMENTATION) and pto_kernels.h. The
   header never includes pto.h; the numeric codes below are kept identical to
   pto.h's enums (pto_space, pto_dtype, pto_pipe, pto_kernel_kind, pto_core,
   pto_cmp, pto_cvdir) so the emitter can print either.

   ---- A kernel ------------------------------------------------------------
   An emitted kernel is one C function

       static void NAME(pto_k_core *c, const int64_t *args);

   called once per simulated core. args follows hardware.md section 7:
   tensor descriptors first (each an int64 holding a pto_k_gm pointer, read
   with pto_k_arg_gm), then scalars as raw 64-bit values (a float scalar is
   the bit pattern of a double: pto_k_arg_f; an integer: pto_k_arg_i). Block
   index and count, subblock, rank and core kind come from the core context
   (pto_k_block_idx(c) ...), never from args.
   A vector kernel runs one AIV per block, a cube kernel one AIC per block, a
   mix kernel one cluster per block: the function is called three times per
   block, on the AIC (pto_k_core_kind(c) == PTO_K_CORE_CUBE) and on both AIVs
   (subblock 0 and 1); the kernel branches on pto_k_core_kind to run its
   cube { } or vector { } section.

   ---- Instructions ---------------------------------------------------------
   Every instruction takes the core and `src`, a static string naming the
   kernel source line (e.g. "softmax.pto:9"): reports quote it.
   Tiles are passed by value (pto_k_t builds one) and addressed by their
   planned byte offset into their space. The pipe of each instruction follows
   hardware.md section 3:
     tload GM->vec/mat MTE2; tstore vec->GM MTE3, acc->GM FIX; vector ops,
     tcvt, tmov vec->vec V; tmov/textract mat->left/right MTE1; tmov acc->vec
     or acc->mat FIX; tmatmul M; set/wait/barrier as named; ring tpush FIX
     from acc, MTE3 from vec; tpop MTE2; tfree, notify, wait S.
   Values follow the reference interpreter bit for bit (f32 math, f16/bf16
   rounded to nearest even on write, see numerics.h): vector ops compute over
   the destination's valid region; tload fills the valid region from GM and
   zeroes the rest of the tile; tstore writes only the valid region; row
   reductions go left to right over the source's valid columns; matmul adds
   a*b over k ascending in f32 without FMA on the full shapes; a NaN that
   arithmetic produces is the canonical 0x7fc00000 (pto_nan_canon), moves
   copy bits when the dtypes are equal.

   ---- Uninitialised reads ------------------------------------------------
   The interpreter gives a tile fresh zeroed storage each time its
   declaration runs; here a planned address holds what its previous tenant
   left. So a read of local bytes that nothing wrote is an error
   (PTO_K_E_UNINIT) naming the instruction, the tile and the byte range,
   never a silent difference: e.g. tmov filling only a left tile's valid
   region before tmatmul reads the whole tile, or a vector op whose larger
   destination region reads past what its source's producer wrote. Written
   state is kept per byte (a mask in each 32-byte granule of shadow memory).
   Without help it covers the launch: every local byte starts unwritten. An
   emitted kernel calls pto_k_tdecl(c, src, tile) where a TILE statement
   runs (each slot of an xN tile when its iteration starts): the tile's
   bytes become unwritten again, so a read of the previous tenant's bytes
   through the new tile is caught too. tdecl takes no pipe and no cycles;
   an instruction issued before it but run later (its pipe was blocked in a
   wait) still belongs to the old tenant and is neither checked nor counted.

   ---- Host -----------------------------------------------------------------
       pto_k_device_desc dd;  memset(&dd, 0, sizeof dd);  dd.arch = PTO_K_A2A3;
       pto_k_device *dev = pto_k_device_create(&dd);
       pto_k_gm *x = pto_k_gm_create(dev, "x", PTO_K_F32, 64, 64);  (zeroed)
       int64_t args[2] = { pto_k_gm_arg(x), pto_k_f_arg(0.5) };
       pto_k_launch_desc ld;  memset(&ld, 0, sizeof ld);
       ld.fn = kern; ld.name = "kern"; ld.kind = PTO_K_KIND_VECTOR; ld.block_num = 4; ld.args = args;
       const pto_k_report *r = pto_k_launch(dev, &ld);
       pto_k_report_print(r, stdout);   r->nerrors == 0 when clean; r->ncores == 0
                                        when the launch was refused (nothing ran, r->errors say why)
       pto_k_device_destroy(dev);
   Ranks: set dd.nranks; create window tensors with pto_k_gm_create_window
   (one copy per rank, pto_k_gm_peer(g, rank) for each) and either pass
   args with ld.nargs set (a window tensor's handle then means each rank's
   own copy) or per-rank argument lists in ld.rank_args[rank]. */

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>

#if defined(__GNUC__) || defined(__clang__) || defined(__TINYC__)
#define PTO_K_FN static __attribute__((unused))
#else
#define PTO_K_FN static
#endif

/* ---- codes (numerically identical to pto.h) ------------------------------ */

enum { PTO_K_A2A3 = 0, PTO_K_A5 = 1 };                                  /* pto_arch */
enum { PTO_K_DT_NONE = 0, PTO_K_F32 = 1, PTO_K_F16 = 2, PTO_K_BF16 = 3,  /* pto_dtype */
       PTO_K_I32 = 4, PTO_K_I8 = 5 };
enum { PTO_K_GM = 0, PTO_K_VEC = 1, PTO_K_MAT = 2, PTO_K_LEFT = 3,       /* pto_space */
       PTO_K_RIGHT = 4, PTO_K_ACC = 5, PTO_K_BIAS = 6, PTO_K_SCALING = 7, PTO_K_NSPACE = 8 };
enum { PTO_K_PIPE_S = 0, PTO_K_PIPE_V = 1, PTO_K_PIPE_M = 2,            /* pto_pipe */
       PTO_K_PIPE_MTE1 = 3, PTO_K_PIPE_MTE2 = 4, PTO_K_PIPE_MTE3 = 5,
       PTO_K_PIPE_FIX = 6, PTO_K_PIPE_ALL = 7, PTO_K_NPIPE = 8 };
/* The same pipes by their short names, as emitted kernels spell them
   (pto_k_set_flag(core, src, PTO_K_MTE2, PTO_K_V, 0)): a kernel has
   thousands of these arguments. */
enum { PTO_K_S = PTO_K_PIPE_S, PTO_K_V = PTO_K_PIPE_V, PTO_K_M = PTO_K_PIPE_M, PTO_K_MTE1 = PTO_K_PIPE_MTE1,
       PTO_K_MTE2 = PTO_K_PIPE_MTE2, PTO_K_MTE3 = PTO_K_PIPE_MTE3, PTO_K_FIX = PTO_K_PIPE_FIX,
       PTO_K_ALL = PTO_K_PIPE_ALL };
enum { PTO_K_KIND_VECTOR = 0, PTO_K_KIND_CUBE = 1, PTO_K_KIND_MIX = 2 }; /* pto_kernel_kind */
enum { PTO_K_CORE_VECTOR = 0, PTO_K_CORE_CUBE = 1 };                    /* pto_core */
enum { PTO_K_EQ = 0, PTO_K_NE = 1, PTO_K_LT = 2, PTO_K_LE = 3,          /* pto_cmp */
       PTO_K_GT = 4, PTO_K_GE = 5 };
enum { PTO_K_C2V = 1, PTO_K_V2C = 2, PTO_K_BOTH = 3 };                  /* pto_cvdir */
enum { PTO_K_NOTIFY_SET = 0, PTO_K_NOTIFY_ADD = 1 };
/* How a vector consumer splits a cube tile between the two AIVs. */
enum { PTO_K_SPLIT_NONE = 0, PTO_K_SPLIT_UP_DOWN = 1, PTO_K_SPLIT_LEFT_RIGHT = 2 };

#define PTO_K_NFLAG 8          /* set/wait ids per ordered pipe pair */
#define PTO_K_NCROSS 16        /* cross-core flag ids per cluster */
#define PTO_K_NRING 8          /* ring (cube/vector pipe) ids per kernel */

/* Error classes of a report (pto_k_error.kind). */
enum {
    PTO_K_E_RACE = 1,       /* two accesses not ordered by flags/barriers */
    PTO_K_E_DOUBLE_SET,     /* set_flag of an id that is still set */
    PTO_K_E_DEADLOCK,       /* a wait that can never be satisfied (or may not be, on hardware) */
    PTO_K_E_LEFT_SET,       /* an id still set when the kernel ends */
    PTO_K_E_CAPACITY,       /* a tile past its space's capacity */
    PTO_K_E_ALIGN,          /* a local address (or vec row) not 32-byte aligned */
    PTO_K_E_BOUNDS,         /* a GM window outside its tensor, bad shape */
    PTO_K_E_RING,           /* ring protocol misuse (init mismatch, tfree, unfreed slot) */
    PTO_K_E_USAGE,          /* anything else the API was called wrongly with */
    PTO_K_E_UNINIT,         /* a read of local bytes nothing wrote (see "Uninitialised reads") */
    PTO_K_E_BUDGET,         /* more instructions than the launch's max_instr: stopped */
    PTO_K_E_OVERFLOW        /* a .pto integer expression left int64 (pto_k_iadd ...): stopped */
};

/* ---- tiles and GM tensors ------------------------------------------------ */

typedef struct pto_k_tile {
    int space, dtype;
    int32_t rows, cols;
    int64_t valid_r, valid_c;
    int64_t offset;            /* byte offset in the core's memory `space` */
} pto_k_tile;

typedef struct pto_k_gm {
    void *data;                /* row-major, dtype elements (f16/bf16 as bits) */
    int dtype;
    int64_t rows, cols;
    const char *name;
    int rank;                  /* the rank that owns this copy */
    struct pto_k_gm **peers;   /* window tensors: the copy of every rank; else NULL */
    int npeers;
    int id;                    /* index in the device's tensor list */
    unsigned char *written;    /* per element: 1 once a kernel stored to it (tstore, atomic
                                  tstore_add, a remote put); NULL until the first store */
    int undefined;             /* set by the host for an intermediate it allocates: on a device
                                  its elements hold garbage until a kernel stores to them, so a
                                  read of one no store reached is an uninitialised read */
} pto_k_gm;

typedef struct pto_k_core pto_k_core;
typedef struct pto_k_device pto_k_device;
typedef void (*pto_k_kernel_fn)(pto_k_core *c, const int64_t *args);

/* ---- the device API (kernel side) ---------------------------------------- */

PTO_K_FN pto_k_tile pto_k_t(int space, int dtype, int32_t rows, int32_t cols, int64_t valid_r,
                            int64_t valid_c, int64_t offset);
PTO_K_FN pto_k_gm *pto_k_arg_gm(const int64_t *args, int i);
PTO_K_FN double pto_k_arg_f(const int64_t *args, int i);
PTO_K_FN double pto_k_arg_h(const int64_t *args, int i, int dtype);   /* f16 / bf16: rounded to dtype */
PTO_K_FN int64_t pto_k_arg_i(const int64_t *args, int i);
PTO_K_FN int64_t pto_k_gm_rows(const pto_k_gm *g);
PTO_K_FN int64_t pto_k_gm_cols(const pto_k_gm *g);

PTO_K_FN int64_t pto_k_block_idx(const pto_k_core *c);
PTO_K_FN int64_t pto_k_block_num(const pto_k_core *c);
PTO_K_FN int64_t pto_k_subblock(const pto_k_core *c);
PTO_K_FN int64_t pto_k_rank(const pto_k_core *c);
PTO_K_FN int64_t pto_k_nranks(const pto_k_core *c);
PTO_K_FN int pto_k_core_kind(const pto_k_core *c);
PTO_K_FN int pto_k_arch(const pto_k_core *c);

/* Loop arithmetic without int64 overflow, where an emitted kernel's plain
   `i += step` or `(i - start) / step % n` could pass INT64_MAX (the
   emitter writes the plain forms where it can prove they cannot):
   pto_k_next(i, step, end), for i < end and step > 0, is i + step when
   that is below end, else end (the loop ends; the interpreter stops there
   too); pto_k_iter_mod(i, start, step, n), for start <= i, step > 0 and
   n > 0, is the iteration number ((i - start) / step) % n, exact for any
   int64 values (the unsigned difference i - start is). */
PTO_K_FN int64_t pto_k_next(int64_t i, int64_t step, int64_t end);
PTO_K_FN int64_t pto_k_iter_mod(int64_t i, int64_t start, int64_t step, int64_t n);

/* The + - * and unary - of a .pto integer expression that the emitter could
   not prove stays in int64 (a dynamic dim or a scalar times a large
   factor, say; every other one is plain C): the exact a + b, a - b, a * b,
   -a; one whose value leaves int64 is reported at src ("integer overflow
   in expression", as the reference interpreter refuses it) and stops the
   launch there, as the instruction budget does: C's signed overflow is
   undefined behaviour, and a wrapped index can land back inside a tensor. */
PTO_K_FN int64_t pto_k_iadd(pto_k_core *c, const char *src, int64_t a, int64_t b);
PTO_K_FN int64_t pto_k_isub(pto_k_core *c, const char *src, int64_t a, int64_t b);
PTO_K_FN int64_t pto_k_imul(pto_k_core *c, const char *src, int64_t a, int64_t b);
PTO_K_FN int64_t pto_k_ineg(pto_k_core *c, const char *src, int64_t a);

/* Memory movement. The GM window is the tile's valid region at (row, col). */
PTO_K_FN void pto_k_tload(pto_k_core *c, const char *src, pto_k_tile d, pto_k_gm *g, int64_t row, int64_t col);
PTO_K_FN void pto_k_tstore(pto_k_core *c, const char *src, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a);
/* Atomic add store: GM window += tile (MTE3 from vec, FIX from acc). */
PTO_K_FN void pto_k_tstore_add(pto_k_core *c, const char *src, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a);

/* Vector ops (V). */
PTO_K_FN void pto_k_tadd(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tsub(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tdiv(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tmax(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tmin(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tadds(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tsubs(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tmuls(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tdivs(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tmaxs(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tmins(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_texp(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tlog(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tsqrt(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trsqrt(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trecip(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tabs(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tneg(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trelu(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_texpands(pto_k_core *c, const char *src, pto_k_tile d, double s);
PTO_K_FN void pto_k_trowsum(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trowmax(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trowmin(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trowexpandadd(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_trowexpandsub(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_trowexpandmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_trowexpanddiv(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
/* Column reductions: d is [1, C]; each valid column of d gets the sum / max /
   min of a's valid rows in that column, top to bottom. */
PTO_K_FN void pto_k_tcolsum(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tcolmax(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tcolmin(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
/* Column broadcasts: d[r, c] = a[r, c] op v[0, c], v is [1, C]. */
PTO_K_FN void pto_k_tcolexpandadd(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_tcolexpandsub(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_tcolexpandmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_tcolexpanddiv(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_tcvt(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
/* d[c, r] = a[r, c] over a's valid region (V); d is [C, R] of a's dtype, its valid region a's transposed. */
PTO_K_FN void pto_k_ttrans(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
/* vec->vec (V), mat->left/right (MTE1), acc->vec or acc->mat (FIX). */
PTO_K_FN void pto_k_tmov(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
/* d = the d-shaped window of mat tile a at element (row, col) (MTE1). */
PTO_K_FN void pto_k_textract(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, int64_t row, int64_t col);
PTO_K_FN void pto_k_tmatmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tmatmul_acc(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);

/* A tile's storage begins here (a TILE statement runs): its bytes count as
   unwritten until an instruction writes them. No pipe, no cycles. */
PTO_K_FN void pto_k_tdecl(pto_k_core *c, const char *src, pto_k_tile t);

/* Synchronisation inside one core (hardware.md section 4). */
PTO_K_FN void pto_k_set_flag(pto_k_core *c, const char *src, int src_pipe, int dst_pipe, int id);
PTO_K_FN void pto_k_wait_flag(pto_k_core *c, const char *src, int src_pipe, int dst_pipe, int id);
PTO_K_FN void pto_k_pipe_barrier(pto_k_core *c, const char *src, int pipe);

/* Cross-core flags inside a cluster (mix kernels). A set from the AIC raises
   id on both AIVs; a set from an AIV raises it on the AIC, whose wait needs
   both AIVs' sets. Counters are 4 bits (at most 15 pending sets). */
PTO_K_FN void pto_k_cross_set(pto_k_core *c, const char *src, int pipe, int id);
PTO_K_FN void pto_k_cross_wait(pto_k_core *c, const char *src, int pipe, int id);

/* Cube <-> vector rings (hardware.md section 5). Every core of the cluster
   that uses ring `ring` calls pto_k_ring_init first with the same
   parameters (compared after normalisation: slot_num 0 means 8 one-way / 4
   BOTH, local_slot_num 0 means 2). buf is the a2a3 GM pipe buffer tensor and
   buf_offset this block's byte offset in it (NULL: the simulator keeps the
   slots itself, as a5's core-to-core path does). Slot i of the ring is at
   buf_offset + (i % slot_num) * slot_size. For BOTH, direction C2V uses the
   first slot_num slots and V2C the next.
   tpush (producer) waits for a free slot, stores tile a, signals data-ready.
   tpop (consumer) waits for data, loads it into the local slot
   base.offset + (i % local_slot_num) * (base's bytes: half of slot_size on
   an AIV of a split pipe) and returns that tile.
   With SPLIT_UP_DOWN / LEFT_RIGHT the two AIVs each push or pop their half
   of the cube tile (base is the half-shaped tile). tfree releases the
   oldest popped slot. */
PTO_K_FN void pto_k_ring_init(pto_k_core *c, const char *src, int ring, int dir, int32_t slot_size,
                              int32_t slot_num, int32_t local_slot_num, int flag_id, int split,
                              pto_k_gm *buf, int64_t buf_offset);
PTO_K_FN void pto_k_tpush(pto_k_core *c, const char *src, int ring, pto_k_tile a);
PTO_K_FN pto_k_tile pto_k_tpop(pto_k_core *c, const char *src, int ring, pto_k_tile base);
PTO_K_FN void pto_k_tfree(pto_k_core *c, const char *src, int ring);

/* Ranks (hardware.md section 8). pto_k_gm_at: rank p's copy of window
   tensor g (for T@p[r, c]). Signals are i32 cells of a GM tensor. notify is
   an S instruction: it publishes only what pipe S has seen, so data must be
   fenced with pipe_barrier(ALL) first; it reaches the cell 1000 cycles
   after it ran. wait blocks the core until `cell CMP value` holds, at the
   simulated time the notifies make it hold (whatever order the simulator
   ran the ranks in); a wait whose condition a later, unordered notify would
   break (EQ on a counter) is reported as a deadlock that may happen. */
PTO_K_FN pto_k_gm *pto_k_gm_at(pto_k_core *c, const char *src, pto_k_gm *g, int64_t rank);
PTO_K_FN void pto_k_notify(pto_k_core *c, const char *src, pto_k_gm *sig, int64_t row, int64_t col,
                           int32_t value, int op);
PTO_K_FN void pto_k_wait(pto_k_core *c, const char *src, pto_k_gm *sig, int64_t row, int64_t col,
                         int cmp, int32_t value);

/* ---- host side ------------------------------------------------------------ */

typedef struct pto_k_device_desc {
    int arch;                  /* PTO_K_A2A3 (default) or PTO_K_A5 */
    uint64_t seed;             /* scheduler seed; a seed reproduces a run */
    int nranks;                /* 0 = 1 */
    const char *trace_path;    /* Chrome trace JSON of every launch, or NULL */
    int max_errors;            /* 0 = 100 */
} pto_k_device_desc;

typedef struct pto_k_launch_desc {
    pto_k_kernel_fn fn;
    const char *name;
    int kind;                  /* PTO_K_KIND_* */
    int64_t block_num;         /* 0 = 1 */
    const int64_t *args;       /* the same args for every rank ... */
    int nargs;                 /* ... how many: with nranks > 1, a window tensor in args
                                  means each rank's own copy of it */
    const int64_t *const *rank_args; /* ... or one list per rank, taken as is */
    int64_t max_instr;         /* the instruction budget: past this many instructions in the
                                  launch (every core and rank; set_flag, wait_flag,
                                  pipe_barrier and tdecl not counted) the run stops with
                                  an error; 0 = PTO_K_MAX_INSTR_DEFAULT */
} pto_k_launch_desc;

/* pto.h's PTO_MAX_INSTR_DEFAULT: a runaway loop stops in seconds, every kernel
   of the repository stays far below it */
#define PTO_K_MAX_INSTR_DEFAULT 100000
#define PTO_K_MAX_CORES 4096            /* cores of one launch: blocks x (3 for mix) x ranks */
/* The race detector keeps a vector clock per pipe of every core with an
   entry per pipe of every core: 256 bytes x cores^2 (4.3 GB at 4096 cores).
   A launch whose clocks would pass this is refused before anything is
   allocated (build with -DPTO_K_MAX_VC_BYTES=... to raise it: ptoc run
   passes PTO_CFLAGS); 1 GiB allows 2048 cores. */
#ifndef PTO_K_MAX_VC_BYTES
#define PTO_K_MAX_VC_BYTES (1024.0 * 1024.0 * 1024.0)
#endif

typedef struct pto_k_error {
    int kind;                  /* PTO_K_E_* */
    char *msg;                 /* "SRC: error: ..." (one line) */
} pto_k_error;

typedef struct pto_k_core_report {
    int kind, rank;            /* PTO_K_CORE_* */
    int64_t block, subblock;
    int64_t busy[PTO_K_NPIPE]; /* busy cycles per pipe (ALL unused) */
    int64_t end;               /* the core's last pipe end */
} pto_k_core_report;

/* What a wait waited for, besides a wait_flag's setting pipe (0..6) or
   PTO_K_PIPE_ALL (a PIPE_ALL barrier). */
enum { PTO_K_WAIT_SIGNAL = -1, PTO_K_WAIT_TPUSH = -2, PTO_K_WAIT_TPOP = -3, PTO_K_WAIT_CROSS = -4 };

typedef struct pto_k_wait_site {
    const char *src;           /* the waiting statement's "file:line" (the kernel's text) */
    int from;                  /* a wait_flag's setting pipe, PTO_K_PIPE_ALL, or PTO_K_WAIT_* */
    int64_t cycles;            /* summed over its waits */
} pto_k_wait_site;

/* A write of local bytes that replaced another instruction's write before
   anything read it (see pto_k_report.lost). */
typedef struct pto_k_overwrite {
    const char *src, *op;           /* the overwriting instruction; src NULL: none this launch */
    const char *lost_src, *lost_op; /* the write it replaced */
    int space;                      /* PTO_K_VEC .. */
    char core[48];                  /* "block 3 aiv0", as reports name cores */
    int64_t lo, hi;                 /* the first granule's bytes concerned */
} pto_k_overwrite;

typedef struct pto_k_report {
    int nerrors;
    pto_k_error *errors;
    int suppressed;            /* repeats of an already reported pair, errors past max */
    int ncores;                /* 0: the launch was refused and nothing ran (errors say why) */
    pto_k_core_report *cores;
    int64_t makespan;          /* last end over every core and pipe */
    int64_t bound;             /* busiest pipe's busy cycles */
    int64_t serial;            /* sum of every pipe's busy cycles (no overlap) */
    double efficiency;         /* bound / makespan */
    int64_t ninstr;
    /* Instructions not run for an error in their operands (a tile past its
       memory, misaligned, a GM window outside its tensor...): their work is
       missing from the cycles, so efficiency says nothing of the kernel. */
    int64_t skipped;
    /* Why efficiency is not 1: the busiest pipe (bound_pipe, on core
       bound_core: the first where it is that busy) is idle makespan - bound
       cycles; `waited` of them it sat in waits (wait_flag, PIPE_ALL, a signal
       wait, a tpush / tpop / cross-core flag the scalar unit waited for), the
       largest at sites[0 .. nsites) (one statement each);
       the rest it had no work queued. */
    int bound_core, bound_pipe;
    int64_t waited;
    int nsites;
    pto_k_wait_site sites[3];
    /* The launch's first overwrite of local bytes nothing had read: a dead
       store, or two live tiles sharing bytes. Not an error (kernels may
       write tiles they never read); the harness shows it only to explain a
       mismatch the simulator has no report for. */
    pto_k_overwrite lost;
} pto_k_report;

PTO_K_FN pto_k_device *pto_k_device_create(const pto_k_device_desc *desc);
PTO_K_FN void pto_k_device_destroy(pto_k_device *dev);
/* Zeroed tensors owned by the device (freed with it). */
PTO_K_FN pto_k_gm *pto_k_gm_create(pto_k_device *dev, const char *name, int dtype, int64_t rows, int64_t cols);
/* A window tensor: one copy per rank; returns rank 0's copy. */
PTO_K_FN pto_k_gm *pto_k_gm_create_window(pto_k_device *dev, const char *name, int dtype, int64_t rows,
                                          int64_t cols);
PTO_K_FN pto_k_gm *pto_k_gm_peer(pto_k_gm *g, int rank);
PTO_K_FN float pto_k_gm_get(const pto_k_gm *g, int64_t row, int64_t col);
PTO_K_FN void pto_k_gm_set(pto_k_gm *g, int64_t row, int64_t col, float v);
/* 1 if some kernel launched on the device stored to element (row, col) of
   this copy since it was created (pto_k_gm_set does not count): the host
   harness warns about outputs a kernel leaves partly unwritten. */
PTO_K_FN int pto_k_gm_written(const pto_k_gm *g, int64_t row, int64_t col);
PTO_K_FN int64_t pto_k_gm_arg(pto_k_gm *g);
PTO_K_FN int64_t pto_k_f_arg(double v);
/* Runs a kernel to completion; the report lives until the next launch. */
PTO_K_FN const pto_k_report *pto_k_launch(pto_k_device *dev, const pto_k_launch_desc *ld);
PTO_K_FN void pto_k_report_print(const pto_k_report *r, FILE *out);
/* First error message containing `needle` (NULL: the first), or NULL. */
PTO_K_FN const char *pto_k_report_find(const pto_k_report *r, int kind, const char *needle);
/* ---- End file: src/kern/api.h ---- */

/* ---- Begin file: src/kern/sim.h ---- */
/* sim.h - the model behind the device API: memories, pipes, the race
   detector, flags, the cycle model and the scheduler.

   Three concerns are kept apart (simulator-notes.md):

   Values. Each core executes its instructions in program order, except that
   an instruction whose pipe is blocked in a wait_flag is queued behind that
   wait and runs when the matching set_flag releases the pipe (the scalar
   unit keeps dispatching to the other pipes, as on hardware). A wait on S
   is the exception: S is the scalar unit, which stalls in it, so its set
   must have been issued before it (else a deadlock), and nothing after it
   dispatches before the set fired. So a race-free kernel computes what the
   hardware computes.

   Order. Every pipe of every core has a global index gp = core * 8 + pipe
   and a vector clock vc[pipe][gp']: how far pipe gp' is known to have
   completed. An instruction ticks clk[pipe] and is stamped with it.
   set_flag publishes the source pipe's clock (its own component = every
   instruction it has issued), wait_flag joins it into the waiting pipe;
   cross-core flags, ring slots and GM signals carry clocks the same way
   (the waiting core's scalar unit stalls, so they join into every pipe).
   Same-pipe order: the MTE, FIX and S queues complete in order; V and M may
   overlap consecutive instructions, so there vc[p][own] only moves at a
   pipe_barrier (or a join) - that is the barrier epoch. Shadow memory per
   32-byte granule of every local space and every GM tensor keeps the last
   write and, per pipe, the latest read (or atomic add) since; an access not
   ordered after a conflicting one is a race, reported once per pair of
   source lines with both instructions, pipes, cores and the byte range. In
   local memory any two accesses of a granule conflict (a DMA moves whole
   blocks), so the records keep the union of their bytes; in GM a read and
   a write of different bytes do not, so there each byte keeps its own
   latest read per pipe and its own latest writer (pto_k__add_read,
   pto_k__gm_write); a granule's reads are grouped by pipe, newest first, so
   a check skips every read of a pipe it is ordered after at once
   (pto_k__read).

   Initialised bytes. The same shadow granules of the local spaces keep a
   mask of the bytes written since the launch or the latest pto_k_tdecl of
   a tile covering them, and that tdecl's issue number; ops.h checks every
   read against it (the rules are there).

   Time. Each pipe has a clock (free_at). The scalar unit dispatches one
   instruction per cycle; an instruction starts at max(its pipe's free time,
   its dispatch time) and lasts its cost (the table in ops.h, from
   hardware.md section 9). A wait starts the waiting pipe no earlier than
   the set fired (plus 1000 cycles across cores); pipe_barrier(ALL) aligns
   every pipe. Busy cycles per pipe feed the report. Time never depends on
   the order the cores happened to run in: every wait joins the event the
   hardware waits for (mix.h says which), at its simulated time.

   Scheduler. Each core runs on its own thread, but only the holder of the
   baton runs. The baton passes at blocking points (cross-core wait, ring
   push/pop, signal wait, signals sent, core end) to a runnable core chosen
   by a seeded xorshift generator, so a seed reproduces a run and different
   seeds explore different interleavings. A wait for a particular event (a
   flag, a ring slot) can run once the event exists; a wait on a signal
   cell only once no write still to come can land before the time it would
   return (pto_k__mark_runnable). No runnable core while some are
   blocked is a deadlock: each blocked wait is reported and its core is put
   in `dead` mode, where every instruction returns at once (kernels have no
   data-dependent control flow, so they still run to their end).

   Budget. A launch runs at most its max_instr tile instructions over all
   cores (pto_k__tick): past that it reports once and every core leaves its
   kernel function, so a runaway loop ends with a report, not a hang.

   Nothing here is global: all state hangs off the pto_k_device. */

#define PTO_K__GRAN 32
#define PTO_K__XLAT 1000 /* cross-core / cross-rank signal latency, cycles (hardware.md 9) */

/* One recorded access of the shadow memory. */
typedef struct pto_k__acc {
    const char *src;
    const char *op;
    int32_t gp;            /* core * 8 + pipe */
    uint32_t clk;          /* stamp on its pipe */
    int atomic;            /* an atomic add (commutes with other atomics); in a GM granule's read
                              list, PTO_K__OLDW: an earlier writer of the bytes still set (below) */
    uint32_t bytes;        /* kept in a granule: the bytes of it the access touched (bit i = byte i) */
} pto_k__acc;

/* A granule's reads are grouped by (gp, atomic): its list links each
   group's newest entry (next); a group's older entries hang off that one
   (older), newest first, so their clocks only fall (one pipe's stamps
   grow). A check skips a whole group when its newest is ordered, and an
   update walks only its own group: 48 cores reading the 4-byte columns of
   shared 32-byte rows left 384 entries in every granule, each walked by
   every access (bench/repro/gm_shadow_cols: 33x slower than per-block). */
typedef struct pto_k__read {
    pto_k__acc a;
    int32_t next;          /* newest entry of a group: the next group's newest, -1 = none;
                              free entries: the next free one */
    int32_t older;         /* the group's next older entry, -1 = none */
} pto_k__read;

typedef struct pto_k__gran {
    pto_k__acc w;          /* w.src == NULL: not written in this launch */
    int32_t reads;         /* list in the device's read pool, -1 = none */
    uint32_t init;         /* local spaces: bit i = byte i of the granule holds a written value */
    uint32_t decl;         /* issue number of the latest pto_k_tdecl covering it (0 = none) */
    const char *dsrc;      /* and its source location (reports name the tile by it) */
} pto_k__gran;

typedef struct pto_k__shadow {
    pto_k__gran *g;
    int64_t n;
} pto_k__shadow;

/* An instruction as dispatched: everything it needs, by value, so that it can
   wait in a blocked pipe's queue. */
typedef struct pto_k__ins {
    int op, pipe;
    const char *src;
    pto_k_tile d, a, b;
    pto_k_gm *g;
    int64_t r, col;
    double s;
    int p0, p1, id;
    int64_t disp;          /* dispatch time */
    uint32_t seq;          /* issue number on its core (program order; 0 = not issued) */
    const char *name;      /* for reports when op's name is not the instruction's (tpush, tpop) */
} pto_k__ins;

typedef struct pto_k__queue {
    pto_k__ins *v;
    int n, cap;
} pto_k__queue;

/* A published clock and time (a set flag, a ring slot, a signal cell). */
typedef struct pto_k__sync {
    uint32_t *vc;
    int64_t time;
    const char *src;
} pto_k__sync;

typedef struct pto_k__ring1 {  /* one direction of a ring */
    int used;
    int64_t pushed[2], popped[2], freed[2];  /* per AIV (index 0 for the AIC) */
    int64_t released[2];       /* slots handed back to the producer: at the pop's load end on a2a3
                                  (pto-isa's TPOP frees the slot; TFREE is empty), at the tfree on a5 */
    int producers, consumers;  /* bit masks of AIV subblocks taking part (C2V consumers / V2C producers) */
    pto_k__sync *slot;         /* per GM slot: the push's clock */
    pto_k__sync *freeslot;     /* per GM slot: the releases of the data it last held (every consumer's) */
    int *slot_dtype;
    int32_t *slot_rows, *slot_cols;
    const char *pop_src[2];
} pto_k__ring1;

typedef struct pto_k__ring {
    int inited;                /* bit 0 AIC, bit 1 AIV0, bit 2 AIV1 */
    int dir, split, flag_id;
    int32_t slot_size, slot_num, local_slot_num;
    const char *init_src;
    int init_core;
    pto_k_gm *buf;
    int64_t buf_offset;
    unsigned char *own;        /* slots kept by the simulator when buf is NULL */
    pto_k__ring1 d[2];         /* [0] C2V, [1] V2C */
} pto_k__ring;

#define PTO_K__XDEPTH 16 /* pending sets a cross-core counter can hold (4 bits) + 1 */

typedef struct pto_k__cluster {
    int cnt[2][2][PTO_K_NCROSS];          /* [0 = to AIV, 1 = to AIC][subblock][id] */
    int head[2][2][PTO_K_NCROSS];         /* the oldest pending set in xq */
    pto_k__sync *xq[2][2][PTO_K_NCROSS];  /* PTO_K__XDEPTH pending sets, oldest at head (NULL until one) */
    pto_k__ring ring[PTO_K_NRING];
} pto_k__cluster;

/* One notify that reached a signal cell. */
typedef struct pto_k__swrite {
    int64_t vis;           /* when the cell shows it: the notify's end + PTO_K__XLAT */
    int core;              /* with seq: the order of writes visible in the same cycle */
    uint32_t seq;
    int add;               /* PTO_K_NOTIFY_ADD (else a set) */
    int32_t value;
    uint32_t *vc;          /* what the notifying core had ordered before it */
    const char *src;
    /* derived from the writes up to this one (valid below nval / ncum): */
    int32_t after;         /* the cell's value once this write landed */
    uint32_t *cum;         /* what a wait that saw this write is ordered after */
} pto_k__swrite;

/* A signal cell's history in simulated time. The cell's bytes in GM change
   in the order the cores happen to run; waits read this history instead, so
   what they see and when does not depend on that order. Writes mostly
   arrive in time order; one that lands before others already recorded
   invalidates the derived fields from its place on. */
typedef struct pto_k__signal {
    pto_k_gm *g;
    int64_t idx;
    int32_t init;          /* the cell when the launch first used it */
    pto_k__swrite *w;      /* sorted by (vis, core, seq) */
    int nw, capw;
    int nval, ncum;        /* w[i].after is valid for i < nval, w[i].cum for i < ncum */
    uint32_t ver;          /* counts the writes recorded (waits cache on it) */
} pto_k__signal;

/* A wait that returned: checked again at the end of the launch against the
   writes that came after it (pto_k__sig_end). */
typedef struct pto_k__sdone {
    int sig;               /* index into dev->sigs */
    int at;                /* the last write the wait saw (-1: none) */
    int core, cmp;
    int32_t value;
    uint32_t stamp;        /* the wait's clock on the waiting core's S pipe */
    int64_t time;          /* when it returned */
    const char *src;
} pto_k__sdone;

typedef struct pto_k__event {
    int core, pipe;            /* core: the trace process (pto_k__tproc index) */
    const char *name, *src;
    int64_t start, dur;
} pto_k__event;

/* A core of one launch in the trace: a host runs several kernels on one
   device, each launch's cores get processes of their own and its events
   follow the previous launch's end, so one file shows the whole run. */
typedef struct pto_k__tproc {
    char who[64], kernel[64];  /* the core ("block 0 aiv0") and its launch's kernel name */
    int launch;
} pto_k__tproc;

/* Where a pipe of a core sat waiting (a wait_flag, a signal wait, a
   PIPE_ALL barrier) and for how many cycles in all: the report explains
   the busiest pipe's idle time with it (pto_k_report.idle). */
#define PTO_K__NSITE 32
typedef struct pto_k__site {
    const char *src;           /* the waiting statement's "file:line" */
    int pipe, from;            /* pto_k_wait_site.from */
    int64_t cycles;
    int64_t pend;              /* of them, since its pipe's last instruction (pto_k__timed) */
} pto_k__site;

struct pto_k_core {
    pto_k_device *dev;
    int index, kind, rank;
    int64_t block, block_num, subblock;
    int cluster;
    unsigned char *mem[PTO_K_NSPACE];
    pto_k__shadow sh[PTO_K_NSPACE];
    uint32_t clk[PTO_K_NPIPE];
    uint32_t *vc[PTO_K_NPIPE];
    int flag_set[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    /* the latest wait_flag of each id: the waiting pipe's clock it ticked
       (0 = none yet) and its source line; the next set of the id must know
       that tick (ops.h, pto_k__x_set) */
    uint32_t flag_waited[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    const char *flag_wsrc[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    /* ... and the set's pipe's clock then (a race report tells a set issued
       before the access it should follow from a missing one) */
    uint32_t flag_wpclk[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    pto_k__sync flag[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    pto_k__queue q[PTO_K_NPIPE];
    int nblocked;
    int64_t disp;
    int64_t free_at[PTO_K_NPIPE], busy[PTO_K_NPIPE];
    pto_k__site site[PTO_K__NSITE];
    int nsite;
    int64_t site_other[PTO_K_NPIPE]; /* waits past PTO_K__NSITE sites */
    /* a pipe's waits since its last instruction (site.pend; the sites with
       some, and site_other's share): they count only once an instruction of
       the pipe follows (a drain at the end of a kernel delays nothing);
       pto_k__fill_sites takes back what is left */
    int npend[PTO_K_NPIPE];
    int pend_site[PTO_K_NPIPE][PTO_K__NSITE];
    int64_t other_pend[PTO_K_NPIPE];
    int64_t ninstr;
    uint32_t seq;              /* instructions issued so far (numbers pto_k__ins.seq) */
    /* scheduling */
    int state;                 /* PTO_K__NEW, RUN, DONE */
    int dead;
    /* a wait on S that stalls the scalar unit for good: its report waits for
       the kernel's end (pto_k__sstall_end), which tells whether the set it
       needs comes later in program order (the dead core still calls in) */
    pto_k__ins sst;            /* the stalled wait_flag(X, S) (seq 0: none) */
    pto_k__ins sroot;          /* the first blocked wait of its set's chain (seq 0: its set was not issued) */
    const char *sset;          /* that set's source line (queued on pipe sset_pipe) */
    int sset_pipe;
    const char *slater;        /* the set_flag issued after the stall that would release sroot (or sst) */
    int can_run;               /* set by pto_k__pick */
    int64_t wake;              /* a timed wait: when the scheduler released it (-1: not yet) */
    const void *parg;
    char waitmsg[400];
    pthread_t th;
    const int64_t *args;
    jmp_buf stop;              /* the instruction budget's way out of the kernel function */
};

enum { PTO_K__NEW, PTO_K__RUN, PTO_K__DONE };

struct pto_k_device {
    pto_k_device_desc desc;
    pto_k_gm **gms;
    int ngms, capgms;
    pto_k__shadow *gsh;        /* per gm id */
    /* the launch */
    const pto_k_launch_desc *ld;
    pto_k_core *cores;
    int ncores, ngp;
    pto_k__cluster *clusters;
    int nclusters;
    int64_t *rargs;            /* per-rank args: nranks x nargs */
    pto_k__signal *sigs;
    int nsigs, capsigs;
    pto_k__sdone *sdone;
    int nsdone, capsdone;
    pto_k__read *rp;
    int32_t nrp, caprp, rfree;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running, ndone;
    uint64_t rng;
    int64_t ninstr_all, max_instr; /* the instruction budget of the launch */
    int stopped;               /* it ran out: every core leaves its kernel function */
    /* results */
    pto_k_report rep;
    int caperr;
    const void **pairs;        /* reported (src, src, kind) triples */
    int npairs, cappairs;
    pto_k__event *ev;          /* trace events of every launch so far (see pto_k__write_trace) */
    int nev, capev;
    pto_k__tproc *tproc;       /* trace processes (cores) of every launch so far */
    int ntproc, captproc, ntlaunch;
    int64_t trace_t0;          /* where this launch starts on the trace's time axis */
    /* what pto_k_gm_at gives for a rank outside [0, nranks) once it has said so: an access
       to it is dropped (no data, no race record), so no follow-on report of a copy it was
       not meant for (review26b L4: it used to land on the core's own copy and race there) */
    pto_k_gm nowhere;
    int dropped;               /* accesses given nowhere so far */
    int oom;
};

/* ---- small helpers ------------------------------------------------------- */

PTO_K_FN void *pto_k__grow(pto_k_device *dev, void *p, int *cap, int need, size_t elem)
{
    int nc;
    void *q;
    if (need <= *cap) return p;
    nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    q = realloc(p, (size_t)nc * elem);
    if (!q) {
        dev->oom = 1;
        return p;
    }
    *cap = nc;
    return q;
}

PTO_K_FN int pto_k__dsize(int dt) { return dt == PTO_K_F32 || dt == PTO_K_I32 ? 4 : dt == PTO_K_I8 ? 1 : 2; }

PTO_K_FN const char *pto_k__pipe_name(int p)
{
    static const char *const n[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};
    return p >= 0 && p < PTO_K_NPIPE ? n[p] : "?";
}

PTO_K_FN const char *pto_k__space_name(int s)
{
    static const char *const n[] = {"gm", "vec", "mat", "left", "right", "acc", "bias", "scaling"};
    return s >= 0 && s < PTO_K_NSPACE ? n[s] : "?";
}

PTO_K_FN const char *pto_k__dtype_name(int d)
{
    static const char *const n[] = {"none", "f32", "f16", "bf16", "i32", "i8"};
    return d >= 0 && d <= PTO_K_I8 ? n[d] : "?";
}

PTO_K_FN int64_t pto_k__capacity(int arch, int space)
{
    static const int64_t a2a3[PTO_K_NSPACE] = {0, 196608, 524288, 65536, 65536, 131072, 1024, 2048};
    static const int64_t a5[PTO_K_NSPACE] = {0, 262144, 524288, 65536, 65536, 262144, 4096, 4096};
    if (space <= 0 || space >= PTO_K_NSPACE) return 0;
    return arch == PTO_K_A5 ? a5[space] : a2a3[space];
}

/* "block 3 aiv1" / "rank 1 block 0 aic" */
PTO_K_FN void pto_k__core_name(const pto_k_core *c, char *out, size_t n)
{
    char r[32] = "";
    if (c->dev->desc.nranks > 1) snprintf(r, sizeof r, "rank %d ", c->rank);
    if (c->kind == PTO_K_CORE_CUBE)
        snprintf(out, n, "%sblock %lld aic", r, (long long)c->block);
    else
        snprintf(out, n, "%sblock %lld aiv%lld", r, (long long)c->block, (long long)c->subblock);
}

PTO_K_FN uint64_t pto_k__rand(pto_k_device *dev)
{
    uint64_t x = dev->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    dev->rng = x;
    return x * 2685821657736338717ull;
}

/* ---- errors ---------------------------------------------------------------- */

PTO_K_FN void pto_k__verr(pto_k_device *dev, int kind, const char *fmt, va_list ap)
{
    char buf[1200];
    pto_k_error *e;
    size_t n;
    int cap = dev->caperr;
    int max = dev->desc.max_errors > 0 ? dev->desc.max_errors : 100;
    if (dev->rep.nerrors >= max) {
        dev->rep.suppressed++;
        return;
    }
    vsnprintf(buf, sizeof buf, fmt, ap);
    dev->rep.errors = (pto_k_error *)pto_k__grow(dev, dev->rep.errors, &cap, dev->rep.nerrors + 1, sizeof *e);
    dev->caperr = cap;
    if (dev->rep.nerrors + 1 > cap) return;
    e = &dev->rep.errors[dev->rep.nerrors];
    n = strlen(buf);
    e->msg = (char *)malloc(n + 1);
    if (!e->msg) {
        dev->oom = 1;
        return;
    }
    memcpy(e->msg, buf, n + 1);
    e->kind = kind;
    dev->rep.nerrors++;
}

PTO_K_FN void pto_k__err(pto_k_device *dev, int kind, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
PTO_K_FN void pto_k__err(pto_k_device *dev, int kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pto_k__verr(dev, kind, fmt, ap);
    va_end(ap);
}

/* Errors about one instruction start with its source line and core. */
PTO_K_FN void pto_k__ierr(pto_k_core *c, const pto_k__ins *ins, int kind, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
PTO_K_FN void pto_k__ierr(pto_k_core *c, const pto_k__ins *ins, int kind, const char *fmt, ...)
{
    char msg[900], who[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pto_k__core_name(c, who, sizeof who);
    pto_k__err(c->dev, kind, "%s: error: %s (%s)", ins->src ? ins->src : "?", msg, who);
}

/* Once per (a, b, kind): loops repeat a race every iteration. */
PTO_K_FN int pto_k__first_report(pto_k_device *dev, const void *a, const void *b, int kind)
{
    int i, cap = dev->cappairs;
    for (i = 0; i < dev->npairs; i += 3)
        if (dev->pairs[i] == a && dev->pairs[i + 1] == b && dev->pairs[i + 2] == (const void *)(size_t)kind) {
            dev->rep.suppressed++;
            return 0;
        }
    dev->pairs = (const void **)pto_k__grow(dev, (void *)dev->pairs, &cap, dev->npairs + 3, sizeof(void *));
    dev->cappairs = cap;
    if (dev->npairs + 3 <= cap) {
        dev->pairs[dev->npairs++] = a;
        dev->pairs[dev->npairs++] = b;
        dev->pairs[dev->npairs++] = (const void *)(size_t)kind;
    }
    return 1;
}

/* ---- vector clocks ---------------------------------------------------------- */

PTO_K_FN uint32_t *pto_k__vc_new(pto_k_device *dev)
{
    uint32_t *v = (uint32_t *)calloc((size_t)dev->ngp, sizeof(uint32_t));
    if (!v) dev->oom = 1;
    return v;
}

PTO_K_FN void pto_k__vc_join(pto_k_device *dev, uint32_t *dst, const uint32_t *src)
{
    int i;
    if (!dst || !src) return;
    for (i = 0; i < dev->ngp; i++)
        if (src[i] > dst[i]) dst[i] = src[i];
}

/* What pipe p of c has completed when everything it issued is done. */
PTO_K_FN void pto_k__publish(pto_k_core *c, int p, pto_k__sync *s, int64_t time, const char *src)
{
    pto_k_device *dev = c->dev;
    if (!s->vc) s->vc = pto_k__vc_new(dev);
    if (!s->vc) return;
    pto_k__vc_join(dev, s->vc, c->vc[p]);
    if (s->vc[c->index * 8 + p] < c->clk[p]) s->vc[c->index * 8 + p] = c->clk[p];
    if (time > s->time) s->time = time;
    s->src = src;
}

/* The scalar unit waited until t for what vc describes: every later
   instruction of c is after it, in order and in time. */
PTO_K_FN void pto_k__waited(pto_k_core *c, int pipe, int from, int64_t cycles, const char *src);

PTO_K_FN void pto_k__join_at(pto_k_core *c, const uint32_t *vc, int64_t t, const char *src, int from)
{
    int p;
    for (p = 0; p < PTO_K_PIPE_ALL; p++) {
        pto_k__vc_join(c->dev, c->vc[p], vc);
        if (c->free_at[p] < t) {   /* every pipe's next instruction waits with the scalar unit */
            pto_k__waited(c, p, from, t - (c->free_at[p] > c->disp ? c->free_at[p] : c->disp), src);
            c->free_at[p] = t;
        }
    }
    if (c->disp < t) c->disp = t;
}

/* ... for the event s, which reaches c `latency` cycles after it fired. */
PTO_K_FN void pto_k__join_all(pto_k_core *c, const pto_k__sync *s, int64_t latency, const char *src, int from)
{
    pto_k__join_at(c, s->vc, s->time + latency, src, from);
}

/* Is `prev` ordered before the current instruction on pipe p of c? */
PTO_K_FN int pto_k__ordered(const pto_k_core *c, int p, const pto_k__acc *prev)
{
    int gp = c->index * 8 + p;
    if (prev->gp == gp && p != PTO_K_PIPE_V && p != PTO_K_PIPE_M) return 1; /* in-order queue */
    return c->vc[p][prev->gp] >= prev->clk;
}

/* ---- shadow memory and the race detector ------------------------------------ */

enum { PTO_K__RD, PTO_K__WR, PTO_K__AT, PTO_K__OLDW }; /* read, write, atomic add; OLDW: pto_k__gm_write */

typedef struct pto_k__conflict {
    pto_k__acc prev;
    int prevkind;          /* what prev did: PTO_K__RD / WR / AT */
    int64_t lo, hi;
    int apart;             /* in every granule they share, the two touch different bytes */
} pto_k__conflict;

#define PTO_K__MAXCONF 8

typedef struct pto_k__check {
    pto_k_core *c;
    const pto_k__ins *ins;
    int pipe;
    pto_k__acc cur;
    pto_k__conflict conf[PTO_K__MAXCONF];
    int nconf;
} pto_k__check;

PTO_K_FN uint32_t pto_k__byte_mask(int64_t from, int64_t to) /* bits [from, to) of 32 */
{
    uint32_t w = to - from >= 32 ? 0xffffffffu : ((1u << (to - from)) - 1u);
    return w << from;
}

PTO_K_FN void pto_k__note(pto_k__check *k, const pto_k__acc *prev, int prevkind, int64_t lo, int64_t hi, uint32_t bytes)
{
    int i, apart = (prev->bytes & bytes) == 0;
    if (prev->gp == k->cur.gp && prev->clk == k->cur.clk) return; /* the same instruction */
    if (pto_k__ordered(k->c, k->pipe, prev)) return;
    for (i = 0; i < k->nconf; i++) {
        pto_k__conflict *f = &k->conf[i];
        if (f->prev.src == prev->src && f->prev.gp == prev->gp && f->prevkind == prevkind) {
            if (lo < f->lo) f->lo = lo;
            if (hi > f->hi) f->hi = hi;
            f->apart &= apart;
            return;
        }
    }
    if (k->nconf == PTO_K__MAXCONF) return;
    k->conf[k->nconf].prev = *prev;
    k->conf[k->nconf].prevkind = prevkind;
    k->conf[k->nconf].lo = lo;
    k->conf[k->nconf].hi = hi;
    k->conf[k->nconf].apart = apart;
    k->nconf++;
}

PTO_K_FN void pto_k__free_entry(pto_k_device *dev, int32_t i)
{
    dev->rp[i].next = dev->rfree;
    dev->rfree = i;
}

PTO_K_FN void pto_k__free_reads(pto_k_device *dev, pto_k__gran *g)
{
    int32_t h = g->reads, e, nx;
    while (h >= 0) {
        nx = dev->rp[h].next;
        for (e = h; e >= 0;) {
            int32_t older = dev->rp[e].older;
            pto_k__free_entry(dev, e);
            e = older;
        }
        h = nx;
    }
    g->reads = -1;
}

/* A pool entry holding a copy of a, linked to nothing; -1 when out of memory. */
PTO_K_FN int32_t pto_k__new_read(pto_k_device *dev, const pto_k__acc *a)
{
    int32_t i;
    if (dev->rfree >= 0) {
        i = dev->rfree;
        dev->rfree = dev->rp[i].next;
    } else {
        int cap = dev->caprp;
        dev->rp = (pto_k__read *)pto_k__grow(dev, dev->rp, &cap, dev->nrp + 1, sizeof *dev->rp);
        dev->caprp = cap;
        if (dev->nrp + 1 > cap) return -1;
        i = dev->nrp++;
    }
    dev->rp[i].a = *a;
    dev->rp[i].next = dev->rp[i].older = -1;
    return i;
}

/* The newest entry of g's group of (gp, atomic), or -1; *prevh: the group before it (-1: it is first). */
PTO_K_FN int32_t pto_k__group(const pto_k_device *dev, const pto_k__gran *g, int32_t gp, int atomic, int32_t *prevh)
{
    int32_t h;
    *prevh = -1;
    for (h = g->reads; h >= 0; *prevh = h, h = dev->rp[h].next)
        if (dev->rp[h].a.gp == gp && dev->rp[h].a.atomic == atomic) return h;
    return -1;
}

/* Makes entry i (linked to nothing) the newest of g's group whose newest is
   h (-1: a new group, first in g's list; prevh: the group before h). */
PTO_K_FN void pto_k__push_newest(pto_k_device *dev, pto_k__gran *g, int32_t prevh, int32_t h, int32_t i)
{
    if (h < 0) {
        dev->rp[i].next = g->reads;
        g->reads = i;
        return;
    }
    dev->rp[i].older = h;
    dev->rp[i].next = dev->rp[h].next;
    dev->rp[h].next = -1;
    if (prevh < 0) g->reads = i; else dev->rp[prevh].next = i;
}

/* Unlinks and frees entry e of the group whose newest is *h (pe: the entry
   before e in it, -1 when e is *h); *h becomes the group's new newest (-1:
   the group is gone). Returns the entry after e. */
PTO_K_FN int32_t pto_k__drop_read(pto_k_device *dev, pto_k__gran *g, int32_t prevh, int32_t *h, int32_t pe, int32_t e)
{
    int32_t older = dev->rp[e].older;
    if (pe >= 0) {
        dev->rp[pe].older = older;
    } else {   /* the newest goes: the next older takes its place in g's list */
        int32_t nx = dev->rp[e].next;
        if (older >= 0) dev->rp[older].next = nx; else older = nx;
        if (prevh < 0) g->reads = older; else dev->rp[prevh].next = older;
        *h = dev->rp[e].older;
        older = dev->rp[e].older;
    }
    pto_k__free_entry(dev, e);
    return older;
}

/* Records read (or atomic add) a in g. Local memory: one entry per pipe, the
   latest access superseding the earlier (anything ordered after it is
   ordered after them: the pipe's clock only grows) with the union of their
   bytes, which the block rule makes harmless there. GM (gm) keeps bytes
   exact, since a read and a write of different bytes of one block are no
   race there: per pipe, each byte belongs to the latest read of it, so an
   earlier read keeps only the bytes no later one touched (a union would make
   a store ordered after the earlier read of its bytes look unordered with a
   later read of the other bytes: allreduce's chunk stores on rows that are
   not 32-byte multiples were reported). */
PTO_K_FN void pto_k__add_read(pto_k_device *dev, pto_k__gran *g, const pto_k__acc *a, int gm)
{
    int32_t prevh, h = pto_k__group(dev, g, a->gp, a->atomic, &prevh), e, pe = -1, i;
    if (h >= 0 && !gm) {
        pto_k__acc *r = &dev->rp[h].a;
        uint32_t bytes = r->bytes | a->bytes;   /* the bytes both touched */
        *r = *a; /* a later access of the same pipe supersedes */
        r->bytes = bytes;
        return;
    }
    if (h >= 0 && dev->rp[h].a.clk == a->clk) {   /* another row of the same instruction (the newest) */
        dev->rp[h].a.bytes |= a->bytes;
        pe = h;
        e = dev->rp[h].older;
    } else {
        e = h;
    }
    while (e >= 0) {   /* the older reads lose the bytes read again */
        if ((dev->rp[e].a.bytes &= ~a->bytes) == 0) {
            e = pto_k__drop_read(dev, g, prevh, &h, pe, e);
        } else {
            pe = e;
            e = dev->rp[e].older;
        }
    }
    if (h >= 0 && dev->rp[h].a.clk == a->clk) return;
    if ((i = pto_k__new_read(dev, a)) >= 0) pto_k__push_newest(dev, g, prevh, h, i);
}

/* GM: write w takes its bytes from every earlier access recorded in g (each
   was checked against it just now); entries left with no byte go. Reads of
   other bytes stay (a later writer of those bytes must still be ordered
   after them), and so does the previous writer's share of the bytes w does
   not cover, as a PTO_K__OLDW entry (a later reader of those bytes must be
   ordered after it; keeping only the newest writer lost it). */
PTO_K_FN void pto_k__gm_write(pto_k_device *dev, pto_k__gran *g, const pto_k__acc *w)
{
    int32_t prevh = -1, h = g->reads, e, pe, i;
    pto_k__acc old = g->w;
    while (h >= 0) {
        int32_t hh = h;
        for (pe = -1, e = h; e >= 0;) {
            if ((dev->rp[e].a.bytes &= ~w->bytes) == 0) {
                e = pto_k__drop_read(dev, g, prevh, &hh, pe, e);
            } else {
                pe = e;
                e = dev->rp[e].older;
            }
        }
        if (hh >= 0) prevh = hh;
        h = hh >= 0 ? dev->rp[hh].next : prevh < 0 ? g->reads : dev->rp[prevh].next;
    }
    if (old.src && old.gp == w->gp && old.clk == w->clk) {   /* another row of the same instruction */
        g->w.bytes |= w->bytes;
        return;
    }
    g->w = *w;
    if (old.src && (old.bytes & ~w->bytes)) {
        old.bytes &= ~w->bytes;
        old.atomic = PTO_K__OLDW;   /* this gp's earlier displaced writes are older: it goes first */
        h = pto_k__group(dev, g, old.gp, PTO_K__OLDW, &prevh);
        if ((i = pto_k__new_read(dev, &old)) >= 0) pto_k__push_newest(dev, g, prevh, h, i);
    }
}

/* Local bytes [a, b) of granule g are written again by cur while the
   write still recorded there, by another instruction of this core (local
   shadows are per core), has had no reader: the first such overwrite of the
   launch is kept in the report (pto_k_report.lost). A kernel may legitimately
   write a tile it never reads, so this is no error; but two live tiles
   placed on the same bytes (a hand-edited offset) look exactly like this and
   are otherwise invisible (both writes on one in-order pipe: no race), so the
   harness names it when a result differs with no report to explain it. */
PTO_K_FN void pto_k__lost_write(pto_k__check *k, const pto_k__shadow *sh, const pto_k__gran *g,
                                const pto_k__acc *cur, int64_t a, int64_t b)
{
    pto_k_overwrite *o = &k->c->dev->rep.lost;
    if (o->src || !(g->w.bytes & cur->bytes) || (g->w.gp == cur->gp && g->w.clk == cur->clk)) return;
    if (!cur->src || strcmp(g->w.src, cur->src) == 0) return;   /* one statement again (a loop): not two tiles */
    o->src = cur->src;
    o->op = cur->op;
    o->lost_src = g->w.src;
    o->lost_op = g->w.op;
    pto_k__core_name(k->c, o->core, sizeof o->core);
    o->space = (int)(sh - k->c->sh);
    o->lo = a;
    o->hi = b;
}

/* Checks and records an access of bytes [lo, hi) of a shadow (gm: a GM
   tensor's, where bytes are kept exact: pto_k__add_read, pto_k__gm_write). */
PTO_K_FN void pto_k__access(pto_k__check *k, pto_k__shadow *sh, int64_t lo, int64_t hi, int kind, int gm)
{
    pto_k_device *dev = k->c->dev;
    int64_t g0 = lo / PTO_K__GRAN, g1 = (hi + PTO_K__GRAN - 1) / PTO_K__GRAN, gi;
    pto_k__acc cur = k->cur;
    cur.atomic = kind == PTO_K__AT;
    if (hi <= lo || !sh->g) return;
    if (g1 > sh->n) g1 = sh->n;
    for (gi = g0; gi < g1; gi++) {
        pto_k__gran *g = &sh->g[gi];
        int64_t a = gi * PTO_K__GRAN > lo ? gi * PTO_K__GRAN : lo;
        int64_t b = (gi + 1) * PTO_K__GRAN < hi ? (gi + 1) * PTO_K__GRAN : hi;
        int32_t i;
        cur.bytes = pto_k__byte_mask(a - gi * PTO_K__GRAN, b - gi * PTO_K__GRAN);
        if (g->w.src) pto_k__note(k, &g->w, PTO_K__WR, a, b, cur.bytes);
        for (i = g->reads; i >= 0; i = dev->rp[i].next) {   /* each group's newest */
            const pto_k__acc *r = &dev->rp[i].a;
            int32_t e;
            if (kind == PTO_K__RD && !r->atomic) continue;        /* read after read */
            if (kind == PTO_K__AT && r->atomic == 1) continue;    /* atomics commute */
            if (pto_k__ordered(k->c, k->pipe, r)) continue;       /* and so are its older ones */
            for (e = i; e >= 0; e = dev->rp[e].older)
                pto_k__note(k, &dev->rp[e].a, r->atomic == PTO_K__OLDW ? PTO_K__WR : r->atomic ? PTO_K__AT : PTO_K__RD,
                            a, b, cur.bytes);
        }
        if (kind == PTO_K__WR && gm) {
            pto_k__gm_write(dev, g, &cur);
        } else if (kind == PTO_K__WR) {
            if (g->reads < 0 && g->w.src) pto_k__lost_write(k, sh, g, &cur, a, b);
            pto_k__free_reads(dev, g);
            g->w = cur;
        } else {
            pto_k__add_read(dev, g, &cur, gm);
        }
    }
}

PTO_K_FN const char *pto_k__verb(int kind)
{
    return kind == PTO_K__RD ? "reads" : kind == PTO_K__WR ? "writes" : "atomically adds to";
}

/* A race between pipes pp (prev, an access stamped pclk at source line
   psrc) and q of core c that a flag pair meant to order: a set_flag(pp, q)
   was consumed by a wait on q issued after prev ran, yet the set was issued
   before prev (a hand edit moved it up), and it carries prev's source line,
   as the sync pass labels a set with the access it follows (a set of
   another access's pair, when prev's own pair is missing, stays "missing":
   moving it is not the fix meant). Every id is tried, not only the latest
   set: a WAR pair's set in a double-buffered loop is older than the other
   id's, which the next iteration has set again by the time the writer
   races (review28 M2). Returns that set's id (its sync: *s), or -1. */
PTO_K_FN int pto_k__early_set(const pto_k_core *c, int pp, int q, uint32_t pclk, const char *psrc,
                              const pto_k__sync **s)
{
    int id, best = -1;
    uint32_t own = 0;
    if (!psrc) return -1;
    for (id = 0; id < PTO_K_NFLAG; id++) {
        const pto_k__sync *f = &c->flag[pp][q][id];
        uint32_t at;
        if (!f->src || !f->vc || c->flag_set[pp][q][id] || !c->flag_waited[pp][q][id] ||
            c->flag_wpclk[pp][q][id] < pclk || strcmp(f->src, psrc) != 0)
            continue;
        at = f->vc[c->index * 8 + pp];
        if (at < pclk && (best < 0 || at > own)) {
            best = id;
            own = at;
        }
    }
    if (best >= 0) *s = &c->flag[pp][q][best];
    return best;
}

/* Whether a cross-core race between c and an earlier access of pc may be
   one a consumer's tfree was meant to order: on a2a3, pc has popped a slot
   of a ring of the cluster that c pushes into (the simulator used to
   release the slot at the tfree, as a5 does; the device releases it at
   the pop). Only picks the hint. */
PTO_K_FN int pto_k__tfree_hint(const pto_k_core *c, const pto_k_core *pc)
{
    const pto_k__cluster *cl;
    int ring, k;
    if (c->dev->desc.arch != PTO_K_A2A3 || !c->dev->clusters || c->cluster != pc->cluster || c->kind == pc->kind)
        return 0;
    cl = &c->dev->clusters[c->cluster];
    k = c->kind == PTO_K_CORE_CUBE ? 0 : 1;   /* the direction c pushes and pc pops */
    for (ring = 0; ring < PTO_K_NRING; ring++) {
        const pto_k__ring1 *r1 = &cl->ring[ring].d[k];
        if (r1->used && r1->popped[pc->kind == PTO_K_CORE_CUBE ? 0 : (int)pc->subblock] > 0) return 1;
    }
    return 0;
}

/* A notify's access of its signal cell (pto_k_notify names it so). */
PTO_K_FN int pto_k__is_notify(const char *op) { return op && strncmp(op, "notify ", 7) == 0; }

/* A race between core c's pipe p and an access prev of another core pc
   that no flag or signal orders before it: the latest notify of pc that p
   is ordered after (a wait saw it) but that is itself not ordered after
   prev, or NULL. Such a notify meant to publish prev and is not fenced
   after it (the lowering puts a pipe_barrier(ALL) before each notify):
   the race's hint names it. */
PTO_K_FN const pto_k__swrite *pto_k__unfenced_notify(const pto_k_core *c, int p, const pto_k_core *pc,
                                                     const pto_k__acc *prev)
{
    const pto_k__swrite *best = NULL;
    int i, j;
    for (i = 0; i < c->dev->nsigs; i++) {
        const pto_k__signal *s = &c->dev->sigs[i];
        for (j = 0; j < s->nw; j++) {
            const pto_k__swrite *w = &s->w[j];
            if (w->core != pc->index || !w->vc || w->vc[prev->gp] >= prev->clk) continue;
            if (c->vc[p][pc->index * 8 + PTO_K_PIPE_S] < w->seq) continue;   /* not seen here */
            if (!best || w->seq > best->seq) best = w;
        }
    }
    return best;
}

/* Reports the conflicts found for one access. `what` names the memory. */
PTO_K_FN void pto_k__report_conf(pto_k__check *k, int kind, const char *what, int gm)
{
    pto_k_core *c = k->c;
    pto_k_device *dev = c->dev;
    int i;
    for (i = 0; i < k->nconf; i++) {
        pto_k__conflict *f = &k->conf[i];
        pto_k_core *pc = &dev->cores[f->prev.gp / 8];
        int pp = f->prev.gp % 8, id;
        const pto_k__sync *es = NULL;
        const pto_k__swrite *nf;
        char me[64], them[64], hint[800];
        /* GM, different bytes of each shared block, one side a plain read:
           no race. The block rule is for writers (a whole-block move of one
           can undo the other's bytes); a read takes its own bytes whatever
           moves the rest of the block, and sync orders GM windows by their
           elements (a load of row 1 beside a store to row 0 of a 48-byte-row
           tensor, bench/repro/gm_block, was reported). Local memory keeps
           the block rule: a DMA into UB moves whole blocks. */
        if (gm && f->apart && (kind == PTO_K__RD || f->prevkind == PTO_K__RD)) continue;
        /* Two notifies of different cells of one block: a signal write is
           a 4-byte scalar store or atomic, not a block move (a row of
           per-peer cells is the usual layout). */
        if (gm && f->apart && pto_k__is_notify(k->cur.op) && pto_k__is_notify(f->prev.op)) continue;
        /* Once per pair of source lines, and once more when the earlier
           access ran on another core: its reason and fix differ (no
           cross-core flag or signal orders them), so a core's own instance
           must not hide it (review28 M3: three ranks' tstores into rank 0's
           window were folded into rank 0's in-core race and its in-core fix). */
        if (!pto_k__first_report(dev, k->cur.src, f->prev.src, (pc != c ? 100 : 0) + kind * 4 + f->prevkind))
            continue;
        pto_k__core_name(c, me, sizeof me);
        pto_k__core_name(pc, them, sizeof them);
        if (pto_k__is_notify(k->cur.op) && pto_k__is_notify(f->prev.op))
            snprintf(hint, sizeof hint, "two notifies of one signal cell that nothing orders: it ends with whichever "
                     "lands last (%s); only two notify adds commute: order the others by a notify -> wait chain "
                     "(the later one after a wait that saw the earlier land)",
                     kind == PTO_K__WR && f->prevkind == PTO_K__WR ? "one value lost" : "a lost count or a lost reset");
        else if (pto_k__is_notify(k->cur.op) || pto_k__is_notify(f->prev.op))
            snprintf(hint, sizeof hint, "nothing orders the %s against the notify of this signal cell, so %s depends "
                     "on which lands first: order them by a notify -> wait chain, as any GM bytes two cores touch",
                     pto_k__is_notify(k->cur.op) ? f->prev.op : k->cur.op,
                     kind == PTO_K__RD || f->prevkind == PTO_K__RD ? "the value read" : "the value the cell keeps");
        else if (pc != c && (nf = pto_k__unfenced_notify(c, k->pipe, pc, &f->prev)) != NULL)
            snprintf(hint, sizeof hint, "no cross-core flag, ring slot or signal orders %s before %s: its notify at "
                     "\"%s\", which a wait here saw, is not ordered after the %s (a notify runs on the scalar pipe "
                     "and can land before an earlier %s instruction ends: fence it with a pipe_barrier(ALL) before "
                     "the notify)", them, me, nf->src, f->prev.op, pto_k__pipe_name(pp));
        else if (pc != c)
            snprintf(hint, sizeof hint, "no cross-core flag, ring slot or signal orders %s before %s%s", them, me,
                     pto_k__tfree_hint(c, pc) ? " (on a2a3 pto-isa's TPOP frees its ring slot as soon as its load "
                     "ends and TFREE is empty, so what a core does between a tpop and its tfree is ordered before "
                     "no tpush of the other core: order the GM data with a tpush after the access and a tpop of "
                     "that pipe before the other one, or a signal, as docs/pto-format.md's mix section says)" : "");
        else if (pp == k->pipe)
            snprintf(hint, sizeof hint, "both run on pipe %s, which may overlap them: missing pipe_barrier(%s)",
                     pto_k__pipe_name(pp), pto_k__pipe_name(pp));
        else if ((id = pto_k__early_set(c, pp, k->pipe, f->prev.clk, f->prev.src, &es)) >= 0)
            snprintf(hint, sizeof hint, "the set_flag(%s, %s, %d) at \"%s\" is issued before the %s at \"%s\" it "
                     "should follow: move it after the %s",
                     pto_k__pipe_name(pp), pto_k__pipe_name(k->pipe), id, es->src, f->prev.op, f->prev.src,
                     f->prev.op);
        else
            snprintf(hint, sizeof hint, "missing set_flag(%s, %s, id) / wait_flag(%s, %s, id)",
                     pto_k__pipe_name(pp), pto_k__pipe_name(k->pipe), pto_k__pipe_name(pp),
                     pto_k__pipe_name(k->pipe));
        if (f->apart) {   /* different bytes of one granule: say why that is a race at all */
            size_t n = strlen(hint);
            snprintf(hint + n, sizeof hint - n,
                     " (the two touch different bytes of the same 32-byte block%s: memory moves whole 32-byte "
                     "blocks, so unordered writers of one block can undo each other%s)",
                     f->lo / PTO_K__GRAN == (f->hi - 1) / PTO_K__GRAN ? "" : "s",
                     pc != c ? "; align each core's part of the tensor to 32 bytes, or order them" : "");
        }
        pto_k__err(dev, PTO_K_E_RACE,
                   "%s: error: race on %s bytes [%lld, %lld): %s (%s, %s) %s them while \"%s\" %s (%s, %s) "
                   "%s them unordered; %s",
                   k->cur.src, what, (long long)f->lo, (long long)f->hi, k->cur.op, pto_k__pipe_name(k->pipe), me,
                   pto_k__verb(kind), f->prev.src, f->prev.op, pto_k__pipe_name(pp), them,
                   f->prevkind == PTO_K__RD ? "read" : f->prevkind == PTO_K__WR ? "wrote" : "atomically added to",
                   hint);
    }
    k->nconf = 0;
}

PTO_K_FN pto_k__shadow *pto_k__local_shadow(pto_k_core *c, int space)
{
    pto_k__shadow *sh = &c->sh[space];
    if (!sh->g) {
        int64_t n = pto_k__capacity(c->dev->desc.arch, space) / PTO_K__GRAN, i;
        sh->g = (pto_k__gran *)calloc((size_t)n, sizeof(pto_k__gran));
        if (!sh->g) {
            c->dev->oom = 1;
            return sh;
        }
        for (i = 0; i < n; i++) sh->g[i].reads = -1;
        sh->n = n;
    }
    return sh;
}

PTO_K_FN pto_k__shadow *pto_k__gm_shadow(pto_k_device *dev, pto_k_gm *g)
{
    pto_k__shadow *sh = &dev->gsh[g->id];
    if (!sh->g) {
        int64_t bytes = g->rows * g->cols * pto_k__dsize(g->dtype);
        int64_t n = (bytes + PTO_K__GRAN - 1) / PTO_K__GRAN, i;
        sh->g = (pto_k__gran *)calloc((size_t)(n ? n : 1), sizeof(pto_k__gran));
        if (!sh->g) {
            dev->oom = 1;
            return sh;
        }
        for (i = 0; i < n; i++) sh->g[i].reads = -1;
        sh->n = n;
    }
    return sh;
}

/* ---- time and trace ------------------------------------------------------- */

PTO_K_FN void pto_k__trace_ev(pto_k_core *c, int pipe, const char *name, const char *src, int64_t start,
                           int64_t dur)
{
    pto_k_device *dev = c->dev;
    int cap = dev->capev;
    if (!dev->desc.trace_path || dur <= 0) return;
    dev->ev = (pto_k__event *)pto_k__grow(dev, dev->ev, &cap, dev->nev + 1, sizeof *dev->ev);
    dev->capev = cap;
    if (dev->nev + 1 > cap) return;
    dev->ev[dev->nev].core = dev->ntproc + c->index;
    dev->ev[dev->nev].pipe = pipe;
    dev->ev[dev->nev].name = name;
    dev->ev[dev->nev].src = src;
    dev->ev[dev->nev].start = dev->trace_t0 + start;
    dev->ev[dev->nev].dur = dur;
    dev->nev++;
}

/* An instruction of `pipe` starts: the waits that held it count. */
PTO_K_FN void pto_k__waits_count(pto_k_core *c, int pipe)
{
    int i;
    for (i = 0; i < c->npend[pipe]; i++) c->site[c->pend_site[pipe][i]].pend = 0;
    c->npend[pipe] = 0;
    c->other_pend[pipe] = 0;
}

/* Runs `cost` cycles of work on a pipe; returns the end time. */
PTO_K_FN int64_t pto_k__timed(pto_k_core *c, int pipe, int64_t disp, int64_t cost, const char *name,
                              const char *src)
{
    int64_t start = c->free_at[pipe] > disp ? c->free_at[pipe] : disp;
    c->free_at[pipe] = start + cost;
    c->busy[pipe] += cost;
    if (c->npend[pipe] || c->other_pend[pipe]) pto_k__waits_count(c, pipe);   /* they held this instruction */
    pto_k__trace_ev(c, pipe, name, src, start, cost);
    return start + cost;
}

/* `pipe` waited `cycles` at statement src for `from` (pto_k__site):
   summed per (pipe, src, from). */
PTO_K_FN void pto_k__waited(pto_k_core *c, int pipe, int from, int64_t cycles, const char *src)
{
    int i;
    if (cycles <= 0 || pipe < 0 || pipe >= PTO_K_PIPE_ALL) return;
    for (i = 0; i < c->nsite; i++)
        if (c->site[i].src == src && c->site[i].pipe == pipe && c->site[i].from == from) break;
    if (i == c->nsite) {
        if (i == PTO_K__NSITE) {
            c->site_other[pipe] += cycles;
            c->other_pend[pipe] += cycles;
            return;
        }
        c->site[i].src = src;
        c->site[i].pipe = pipe;
        c->site[i].from = from;
        c->site[i].cycles = c->site[i].pend = 0;
        c->nsite++;
    }
    c->site[i].cycles += cycles;
    if (!c->site[i].pend) c->pend_site[pipe][c->npend[pipe]++] = i;   /* a site is one pipe's */
    c->site[i].pend += cycles;
}

/* A pipe that waits until `t` for pipe `setter`'s flag (-1: a signal):
   the stall shows in the trace and in the report's sites. */
PTO_K_FN void pto_k__stall(pto_k_core *c, int pipe, int setter, int64_t disp, int64_t t, const char *src)
{
    int64_t from = c->free_at[pipe] > disp ? c->free_at[pipe] : disp;
    if (t > from) {
        pto_k__trace_ev(c, pipe, "wait", src, from, t - from);
        pto_k__waited(c, pipe, setter, t - from, src);
    }
    c->free_at[pipe] = t > from ? t : from;
}

/* ---- the scheduler ---------------------------------------------------------- */

/* What a blocked core waits for. An event wait (a cross-core flag, a ring
   slot) waits for one particular event: `ready` says whether it happened.
   A timed wait (a signal) waits for a condition on a cell: `when` says at
   which simulated time the writes known so far first make it hold (-1:
   they do not), and the scheduler releases it only once no write still to
   come can land before that (pto_k__mark_runnable). */
typedef struct pto_k__waiter {
    int (*ready)(pto_k_core *c, const void *arg);
    int64_t (*when)(pto_k_core *c, void *arg);  /* may cache in arg */
    void (*describe)(pto_k_core *c, const void *arg, char *out, size_t n);
    void *arg;
    const char *src;
} pto_k__waiter;

/* The earliest time a write that c has not made yet can become visible on
   another core: it is issued at c->disp or later (after a released timed
   wait, at its time or later), lasts a cycle and travels PTO_K__XLAT. */
PTO_K_FN int64_t pto_k__next_write(const pto_k_core *c)
{
    int64_t t = c->parg && c->wake > c->disp ? c->wake : c->disp;
    return t + 1 + PTO_K__XLAT;
}

/* Sets c->can_run for every core and returns how many may run.

   Event waits are ready when their event exists: its time is fixed, so the
   order in which the cores ran cannot change what they join. A timed wait
   is different: a write that lands before the time `when` found may still
   come from a core that has not run far enough. Let F be the earliest time
   a write not yet made can land. Only three kinds of core can make one: a
   core that can run now (from pto_k__next_write of it), a timed wait after
   it returns (no earlier than `when` + 1 + PTO_K__XLAT: until one of them
   returns the history before its `when` is complete), and a core blocked on
   an event, which resumes no earlier than the core that makes the event (so
   it is covered by the other two). A timed wait whose `when` is below F is
   final: it is released with that time. The earliest timed wait is always
   below F when no other core can run, so the scheduler never stalls on a
   wait that something can satisfy. */
PTO_K_FN int pto_k__mark_runnable(pto_k_device *dev)
{
    int i, n = 0;
    int64_t first = -1, land = -1; /* the earliest timed wait; F (-1: no bound yet) */
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        const pto_k__waiter *w = (const pto_k__waiter *)c->parg;
        c->can_run = 0;
        if (c->state == PTO_K__DONE) continue;
        if (dev->stopped) { /* every core runs, to leave at once (pto_k__tick) */
            n += c->can_run = 1;
            continue;
        }
        if (!c->dead && w && w->when && c->wake < 0) {
            int64_t t = w->when(c, w->arg);
            if (t >= 0 && (first < 0 || t < first)) first = t;
            continue;
        }
        c->can_run = c->dead || !w || w->when || w->ready(c, w->arg);
        if (c->can_run && !c->dead && (land < 0 || pto_k__next_write(c) < land)) land = pto_k__next_write(c);
    }
    if (first >= 0 && (land < 0 || first + 1 + PTO_K__XLAT < land)) land = first + 1 + PTO_K__XLAT;
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        const pto_k__waiter *w = (const pto_k__waiter *)c->parg;
        if (dev->stopped) break;
        if (c->state != PTO_K__DONE && !c->dead && w && w->when && c->wake < 0) {
            int64_t t = w->when(c, w->arg);
            if (t >= 0 && t < land) c->wake = t;
            c->can_run = c->wake >= 0;
        }
        n += c->can_run;
    }
    return n;
}

PTO_K_FN void *pto_k__thread(void *arg);

PTO_K_FN void pto_k__sig_desc(pto_k_core *c, const void *arg, char *out, size_t n);   /* (mix.h) */

/* Chooses the next core to run (the caller holds dev->mu). A signal wait
   that never returns after an access to a rank outside the launch was
   dropped (pto_k_gm_at) stops its core without a report of its own: the
   notify it waits for is the one that went nowhere, or a nonexistent
   rank's (review26b L4: only the first report). */
PTO_K_FN void pto_k__pick(pto_k_device *dev)
{
    int i, n, k;
    n = pto_k__mark_runnable(dev);
    if (n == 0 && dev->ndone < dev->ncores) {
        /* every live core waits: a deadlock. Name each wait, then let the
           cores run to their end in dead mode. */
        for (i = 0; i < dev->ncores; i++) {
            pto_k_core *c = &dev->cores[i];
            const pto_k__waiter *w = (const pto_k__waiter *)c->parg;
            char what[400], who[64];
            if (c->state == PTO_K__DONE || !w) continue;
            w->describe(c, w->arg, what, sizeof what);
            pto_k__core_name(c, who, sizeof who);
            if (!dev->dropped || w->describe != pto_k__sig_desc)
                pto_k__err(dev, PTO_K_E_DEADLOCK, "%s: error: deadlock: %s (%s)", w->src ? w->src : "?", what, who);
            c->dead = 1;
            c->can_run = 1;
            n++;
        }
    }
    if (n == 0) {
        dev->running = -1;
        pthread_cond_broadcast(&dev->cv);
        return;
    }
    k = (int)(pto_k__rand(dev) % (uint64_t)n);
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        if (!c->can_run) continue;
        if (k-- > 0) continue;
        if (c->state == PTO_K__NEW) {
            pthread_attr_t at;
            int rc;
            c->state = PTO_K__RUN;
            pthread_attr_init(&at);
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            pthread_attr_setstacksize(&at, (size_t)4 << 20);
            rc = pthread_create(&c->th, &at, pto_k__thread, c);
            pthread_attr_destroy(&at);
            if (rc != 0) {
                pto_k__err(dev, PTO_K_E_USAGE, "error: cannot start a thread for core %d", i);
                c->state = PTO_K__DONE;
                dev->ndone++;
                pto_k__pick(dev);
                return;
            }
        }
        dev->running = i;
        pthread_cond_broadcast(&dev->cv);
        return;
    }
}

/* Passes the baton (possibly back to c) and waits until c holds it again. */
PTO_K_FN void pto_k__yield(pto_k_core *c)
{
    pto_k_device *dev = c->dev;
    pthread_mutex_lock(&dev->mu);
    pto_k__pick(dev);
    while (dev->running != c->index) pthread_cond_wait(&dev->cv, &dev->mu);
    pthread_mutex_unlock(&dev->mu);
}

/* Blocks c until w is ready (or c is declared dead in a deadlock). */
PTO_K_FN void pto_k__block(pto_k_core *c, const pto_k__waiter *w)
{
    if (c->dead) return;
    c->parg = w;
    c->wake = -1;
    pto_k__yield(c);
    c->parg = NULL;
    if (c->dev->stopped) longjmp(c->stop, 1);   /* released by the budget's stop, not its event */
}

/* The instruction budget. Every tile instruction (pto_k__issue, the ring
   ops) counts against the launch's limit, over all cores and ranks (only
   the baton holder runs, so the count needs no lock). Past it the launch
   stops cleanly: one report naming the kernel, the limit, the instruction
   and its core; then each core, when it next holds the baton, leaves its
   kernel function through c->stop (longjmp to pto_k__thread: the kernel
   functions hold no resources, everything lives in the device), blocked
   cores included (the scheduler lets every core run once stopped), and
   the launch's end checks are skipped (their findings would be noise). */
PTO_K_FN void pto_k__tick(pto_k_core *c, const char *src)
{
    pto_k_device *dev = c->dev;
    char who[64];
    if (dev->stopped) longjmp(c->stop, 1);
    if (++dev->ninstr_all <= dev->max_instr) return;
    pto_k__core_name(c, who, sizeof who);
    pto_k__err(dev, PTO_K_E_BUDGET,
               "%s: error: kernel %s ran more than %lld instruction%s (the instruction budget, over every core of the "
               "launch), stopped here (%s): a runaway loop? raise the limit with ptoc run --max-instr N",
               src ? src : "?", dev->ld->name ? dev->ld->name : "?", (long long)dev->max_instr,
               dev->max_instr == 1 ? "" : "s", who);
    dev->stopped = 1;
    longjmp(c->stop, 1);
}

PTO_K_FN void pto_k__core_end(pto_k_core *c);
PTO_K_FN void pto_k__sstall_end(pto_k_core *c, int complete);

PTO_K_FN void *pto_k__thread(void *arg)
{
    pto_k_core *c = (pto_k_core *)arg;
    pto_k_device *dev = c->dev;
    pthread_mutex_lock(&dev->mu);
    while (dev->running != c->index) pthread_cond_wait(&dev->cv, &dev->mu);
    pthread_mutex_unlock(&dev->mu);
    if (!dev->stopped) {
        if (setjmp(c->stop) == 0) dev->ld->fn(c, c->args);   /* 1: pto_k__tick stopped it */
    }
    pto_k__sstall_end(c, !dev->stopped);
    if (!dev->stopped) pto_k__core_end(c);
    pthread_mutex_lock(&dev->mu);
    c->state = PTO_K__DONE;
    dev->ndone++;
    pto_k__pick(dev);
    pthread_mutex_unlock(&dev->mu);
    return NULL;
}
/* ---- End file: src/kern/sim.h ---- */

/* ---- Begin file: src/kern/ops.h ---- */
/* ops.h - the instructions of one core: checks, race detection, values,
   cycles, and the in-core flags and barriers.

   Cost table (cycles at 1.85 GHz; hardware.md section 9, which gathers the
   figures from the pto-isa / PTOAS / simpler sources; "est." marks figures
   the table does not give, taken from the closest measured op):
     tload GM->vec (MTE2)    (B + 31334) / 143.36   fitted 247 GiB/s x B/(30.6 KiB + B)
     tload GM->mat (MTE2)    B / 78.35              135 GiB/s
     tstore vec->GM (MTE3)   B / 109.12             188 GiB/s flat table
     tstore acc->GM, tmov acc->* (FIX)  B / 40.63   70 GiB/s
     tmov/textract ->left    B / 255.96             441 GiB/s;  ->right B / 127.69 (220 GiB/s)
     vector op               slope x repeats + fixed (+16 when the last repeat is partial),
                             one repeat = 256 bytes of the destination (row reductions: of the source;
                             tcvt: of its wider side, as pto-isa's TCVT counts repeats):
       tadd tsub 2.11/24 (tsub est.), tmul 2.3/25, tdiv 4.03/31, tmax tmin 2.0/23 (tmin est.),
       t*s scalar forms 1/26, texp 2.0/31, tlog 2.0/33, tsqrt trsqrt trecip 4.03/31 (est.),
       tabs tneg trelu 2.0/23 (est.), texpands 1/26 (est.), trow* reductions 7/46 (max/min est.),
       trowexpand* as the binary op (est.), tcvt and vec tmov 2.0/24 (est.),
       tcolexpand* as the binary op (est.);
       tcolsum tcolmax tcolmin (est.) as pto-isa's sequential TCOL* run them
                             (isBinary = false for TCOLSUM): a copy of the first row
                             (vec tmov cost) plus, per further valid row, one tadd / tmax /
                             tmin over one row (d's valid cols), each after a V barrier,
                             so each pays its fixed cost: tmov(B) + (rows - 1) x op(B);
       ttrans (est.)         two passes at the vec tmov figure, as pto-isa's a2a3 TTRANS makes them
                             (a scatter transpose into its tmp tile, a V barrier, a UB-to-UB copy
                             into dst): 2 x tmov(B), B the bytes of the source's valid region
     tmatmul (M)             M*N*K / (4096 f16/bf16, 1024 f32, 8192 i8) + 6
     set_flag, wait_flag, barriers: 0 (a wait only moves its pipe's clock)
     cross-core flag, ring slot, rank signal: +1000 cycles latency
     notify, wait, tfree (S): 1
   Kernel launch (~11k) and block dispatch (~2k) are not in the makespan. */

#define PTO_K__OPS(X) \
    X(TLOAD, "tload", 0, 0) X(TSTORE, "tstore", 0, 0) X(TSTORE_ADD, "tstore_add", 0, 0) \
    X(TADD, "tadd", 2.11, 24) X(TSUB, "tsub", 2.11, 24) X(TMUL, "tmul", 2.3, 25) X(TDIV, "tdiv", 4.03, 31) \
    X(TMAX, "tmax", 2.0, 23) X(TMIN, "tmin", 2.0, 23) \
    X(TADDS, "tadds", 1, 26) X(TSUBS, "tsubs", 1, 26) X(TMULS, "tmuls", 1, 26) X(TDIVS, "tdivs", 1, 26) \
    X(TMAXS, "tmaxs", 1, 26) X(TMINS, "tmins", 1, 26) \
    X(TEXP, "texp", 2.0, 31) X(TLOG, "tlog", 2.0, 33) X(TSQRT, "tsqrt", 4.03, 31) X(TRSQRT, "trsqrt", 4.03, 31) \
    X(TRECIP, "trecip", 4.03, 31) X(TABS, "tabs", 2.0, 23) X(TNEG, "tneg", 2.0, 23) X(TRELU, "trelu", 2.0, 23) \
    X(TEXPANDS, "texpands", 1, 26) \
    X(TROWSUM, "trowsum", 7, 46) X(TROWMAX, "trowmax", 7, 46) X(TROWMIN, "trowmin", 7, 46) \
    X(TROWEXPANDADD, "trowexpandadd", 2.11, 24) X(TROWEXPANDSUB, "trowexpandsub", 2.11, 24) \
    X(TROWEXPANDMUL, "trowexpandmul", 2.3, 25) X(TROWEXPANDDIV, "trowexpanddiv", 4.03, 31) \
    X(TCOLSUM, "tcolsum", 2.11, 24) X(TCOLMAX, "tcolmax", 2.0, 23) X(TCOLMIN, "tcolmin", 2.0, 23) \
    X(TCOLEXPANDADD, "tcolexpandadd", 2.11, 24) X(TCOLEXPANDSUB, "tcolexpandsub", 2.11, 24) \
    X(TCOLEXPANDMUL, "tcolexpandmul", 2.3, 25) X(TCOLEXPANDDIV, "tcolexpanddiv", 4.03, 31) \
    X(TCVT, "tcvt", 2.0, 24) X(TMOV, "tmov", 2.0, 24) X(TTRANS, "ttrans", 2.0, 24) X(TEXTRACT, "textract", 0, 0) \
    X(TMATMUL, "tmatmul", 0, 0) X(TMATMUL_ACC, "tmatmul_acc", 0, 0) \
    X(SET_FLAG, "set_flag", 0, 0) X(WAIT_FLAG, "wait_flag", 0, 0) X(PIPE_BARRIER, "pipe_barrier", 0, 0) \
    X(TDECL, "tdecl", 0, 0)

enum {
#define PTO_K__OP_ENUM(e, name, slope, fixed) PTO_K__##e,
    PTO_K__OPS(PTO_K__OP_ENUM)
#undef PTO_K__OP_ENUM
    PTO_K__NOPS
};

PTO_K_FN const char *pto_k__op_name(int op)
{
    static const char *const names[] = {
#define PTO_K__OP_NAME(e, name, slope, fixed) name,
        PTO_K__OPS(PTO_K__OP_NAME)
#undef PTO_K__OP_NAME
    };
    return op >= 0 && op < PTO_K__NOPS ? names[op] : "?";
}

PTO_K_FN int64_t pto_k__vec_cost(int op, int64_t bytes)
{
    static const double slope[] = {
#define PTO_K__OP_SLOPE(e, name, s, f) s,
        PTO_K__OPS(PTO_K__OP_SLOPE)
#undef PTO_K__OP_SLOPE
    };
    static const double fixed[] = {
#define PTO_K__OP_FIXED(e, name, s, f) f,
        PTO_K__OPS(PTO_K__OP_FIXED)
#undef PTO_K__OP_FIXED
    };
    int64_t rep = (bytes + 255) / 256;
    double cyc = slope[op] * (double)rep + fixed[op] + (bytes % 256 ? 16.0 : 0.0);
    return (int64_t)ceil(cyc);
}

/* A column reduction over `rows` rows of `row_bytes` each (the cost table's
   note): the first row copied, then one op per further row. */
PTO_K_FN int64_t pto_k__colred_cost(int op, int64_t rows, int64_t row_bytes)
{
    return pto_k__vec_cost(PTO_K__TMOV, row_bytes) + (rows > 1 ? (rows - 1) * pto_k__vec_cost(op, row_bytes) : 0);
}

PTO_K_FN int64_t pto_k__bw_cost(double bytes, double per_cycle) { return (int64_t)ceil(bytes / per_cycle); }

/* ---- operand checks ---------------------------------------------------------- */

PTO_K_FN int64_t pto_k__tbytes(pto_k_tile t) { return (int64_t)t.rows * t.cols * pto_k__dsize(t.dtype); }

/* Bytes [0, n) of the tile that its valid rows span. */
PTO_K_FN int64_t pto_k__vspan(pto_k_tile t, int64_t vr)
{
    if (vr <= 0 || t.valid_c <= 0) return 0;
    return vr * t.cols * pto_k__dsize(t.dtype);
}

/* An instruction the simulator does not run for an error in its operands:
   the run's cycles leave its work out, so the harness prints no efficiency
   figure (review28 L9: "efficiency 1.000" for a kernel whose V work was all
   skipped). A tdecl runs no work: its tile's instructions count. */
PTO_K_FN void pto_k__init_write(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, int64_t nr, int64_t nc);

/* Whether tile t lies where its bytes can be tracked: a space, a shape, a
   32-byte aligned address and all of it inside the space (tile_check's
   placement rules, with no report). */
PTO_K_FN int pto_k__placeable(const pto_k_core *c, pto_k_tile t)
{
    return t.space > 0 && t.space < PTO_K_NSPACE && t.dtype >= PTO_K_F32 && t.dtype <= PTO_K_I8 && t.rows > 0 && t.cols > 0 && t.offset >= 0 &&
           t.offset % PTO_K__GRAN == 0 && t.offset + pto_k__tbytes(t) <= pto_k__capacity(c->dev->desc.arch, t.space);
}

PTO_K_FN int pto_k__skip(pto_k_core *c, const pto_k__ins *ins)
{
    if (ins->op == PTO_K__TDECL) return 0;
    c->dev->rep.skipped++;
    /* its error is reported: the destination counts as written, so no uninitialised read of it
       follows from the skip (a source tile moved past the end of UB made every tstore of the
       result report one too: one root cause, as for a tload past its tensor, review28 L1) */
    if (pto_k__placeable(c, ins->d)) pto_k__init_write(c, ins, ins->d, ins->d.rows, ins->d.cols);
    return 0;
}

/* Whether a bad placement of tile t (kind: PTO_K_E_ALIGN or CAPACITY) is
   reported yet: once per space, address and size in a launch, not once per
   instruction on it in each iteration and block (review28 L9: a hand-edited
   x4 tile past the end of UB gave 640 reports, 20 distinct). The repeats
   are one finding, not counted as reports: report.skipped counts the
   instructions it stopped. */
PTO_K_FN int pto_k__first_place(pto_k_core *c, pto_k_tile t, int kind)
{
    if (pto_k__first_report(c->dev, (const void *)(size_t)t.offset, (const void *)(size_t)pto_k__tbytes(t),
                            5000 + kind * PTO_K_NSPACE + t.space))
        return 1;
    c->dev->rep.suppressed--;   /* first_report counted the repeat */
    return 0;
}

/* Checks a tile operand: space allowed (mask of spaces), shape, valid
   region, alignment and capacity. Reports and returns 0 when it is bad. */
PTO_K_FN int pto_k__tile_check(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, unsigned mask, const char *role)
{
    const char *op = pto_k__op_name(ins->op);
    int64_t cap, bytes;
    if (t.space <= 0 || t.space >= PTO_K_NSPACE || !(mask & (1u << t.space))) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s tile in space %s is not allowed here", op, role,
                    pto_k__space_name(t.space));
        return 0;
    }
    if (c->kind == PTO_K_CORE_VECTOR && t.space != PTO_K_VEC) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s tile in space %s: an AIV core has only vec (UB)", op, role,
                    pto_k__space_name(t.space));
        return 0;
    }
    if (t.dtype < PTO_K_F32 || t.dtype > PTO_K_I8 || t.rows <= 0 || t.cols <= 0) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s tile has a bad dtype or shape [%d, %d]", op, role, (int)t.rows,
                    (int)t.cols);
        return 0;
    }
    if (t.valid_r < 0 || t.valid_r > t.rows || t.valid_c < 0 || t.valid_c > t.cols) {
        pto_k__ierr(c, ins, PTO_K_E_BOUNDS, "%s: valid region (%lld, %lld) of the %s tile is outside its shape [%d, %d]",
                    op, (long long)t.valid_r, (long long)t.valid_c, role, (int)t.rows, (int)t.cols);
        return 0;
    }
    if (t.offset % PTO_K__GRAN != 0) {
        if (pto_k__first_place(c, t, PTO_K_E_ALIGN))
            pto_k__ierr(c, ins, PTO_K_E_ALIGN, "%s: misaligned address: %s tile at %s byte %lld is not 32-byte aligned", op,
                        role, pto_k__space_name(t.space), (long long)t.offset);
        return 0;
    }
    if (t.space == PTO_K_VEC && t.cols > 1 && (t.cols * pto_k__dsize(t.dtype)) % PTO_K__GRAN != 0) {
        if (pto_k__first_place(c, t, PTO_K_E_ALIGN + 100))
            pto_k__ierr(c, ins, PTO_K_E_ALIGN, "%s: misaligned rows: vec %s tile [%d, %d] %s has rows of %d bytes, not a multiple of 32",
                        op, role, (int)t.rows, (int)t.cols, pto_k__dtype_name(t.dtype),
                        (int)(t.cols * pto_k__dsize(t.dtype)));
        return 0;
    }
    if (t.space >= PTO_K_MAT && t.space <= PTO_K_ACC) {
        /* cube tiles are whole fractals, as the verifier holds them (pto__vfractal; review20 L6: a hand
           edit to left [64, 40] f16 ran clean): 16 rows of 32 bytes in mat and left, the transpose in
           right, 16 x 16 in acc */
        int w = 32 / pto_k__dsize(t.dtype);
        int fr = t.space == PTO_K_RIGHT ? w : 16, fc = t.space == PTO_K_MAT || t.space == PTO_K_LEFT ? w : 16;
        if (t.rows % fr != 0 || t.cols % fc != 0) {
            if (pto_k__first_place(c, t, PTO_K_E_ALIGN + 200))
                pto_k__ierr(c, ins, PTO_K_E_ALIGN, "%s: the %s tile (%s %s[%d, %d]) is not whole fractals: %s tiles are "
                            "whole %d x %d fractals for %s, so rows must be a multiple of %d and cols of %d",
                            op, role, pto_k__space_name(t.space), pto_k__dtype_name(t.dtype), (int)t.rows, (int)t.cols,
                            pto_k__space_name(t.space), fr, fc, pto_k__dtype_name(t.dtype), fr, fc);
            return 0;
        }
    }
    cap = pto_k__capacity(c->dev->desc.arch, t.space);
    bytes = pto_k__tbytes(t);
    if (t.offset < 0 || t.offset + bytes > cap) {
        if (pto_k__first_place(c, t, PTO_K_E_CAPACITY))
            pto_k__ierr(c, ins, PTO_K_E_CAPACITY,
                        "%s: tile past capacity: %s tile [%d, %d] %s at byte %lld spans [%lld, %lld) but %s holds %lld bytes on %s",
                        op, role, (int)t.rows, (int)t.cols, pto_k__dtype_name(t.dtype), (long long)t.offset,
                        (long long)t.offset, (long long)(t.offset + bytes), pto_k__space_name(t.space), (long long)cap,
                        c->dev->desc.arch == PTO_K_A5 ? "a5" : "a2a3");
        return 0;
    }
    if (!c->mem[t.space]) {
        c->mem[t.space] = (unsigned char *)calloc((size_t)cap, 1);
        if (!c->mem[t.space]) {
            c->dev->oom = 1;
            return 0;
        }
    }
    return 1;
}

PTO_K_FN int pto_k__tile_ok(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, unsigned mask, const char *role)
{
    return pto_k__tile_check(c, ins, t, mask, role) || pto_k__skip(c, ins);
}

PTO_K_FN int pto_k__same_shape(pto_k_core *c, const pto_k__ins *ins, pto_k_tile x, int32_t rows, int32_t cols,
                               const char *role)
{
    if (x.rows == rows && x.cols == cols) return 1;
    pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s tile is [%d, %d], expected [%d, %d]", pto_k__op_name(ins->op), role,
                (int)x.rows, (int)x.cols, (int)rows, (int)cols);
    return pto_k__skip(c, ins);
}

PTO_K_FN void pto_k__gm_label(const pto_k_core *c, const pto_k_gm *g, char *out, size_t n)
{
    if (g->peers && g->rank != c->rank)
        snprintf(out, n, "%s@%d", g->name ? g->name : "?", g->rank);
    else
        snprintf(out, n, "%s", g->name ? g->name : "?");
}

/* A race report names the memory the same way from either side: in a
   multi-rank run a window is "name@owner" even on its owner's core (rank 1
   reading its own buf and rank 0 writing it both say buf@1). */
PTO_K_FN void pto_k__gm_label_abs(const pto_k_core *c, const pto_k_gm *g, char *out, size_t n)
{
    if (g->peers && c->dev->desc.nranks > 1)
        snprintf(out, n, "%s@%d", g->name ? g->name : "?", g->rank);
    else
        pto_k__gm_label(c, g, out, n);
}

/* g is a peer's copy at a rank outside the launch's (pto_k_gm_at said so):
   the access is dropped, with no report of its own. */
PTO_K_FN int pto_k__nowhere(const pto_k_core *c, const pto_k_gm *g)
{
    return g == &c->dev->nowhere;
}

PTO_K_FN int pto_k__window_ok(pto_k_core *c, const pto_k__ins *ins, const pto_k_gm *g, int64_t r, int64_t col,
                              int64_t vr, int64_t vc)
{
    char nm[80];
    if (pto_k__nowhere(c, g)) return 0;
    if (!g || !g->data) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: no GM tensor", pto_k__op_name(ins->op));
        return pto_k__skip(c, ins);
    }
    if (vr <= 0 || vc <= 0) return 1; /* an empty window touches nothing */
    if (r < 0 || col < 0 || r > g->rows - vr || col > g->cols - vc) {
        pto_k__gm_label(c, g, nm, sizeof nm);
        pto_k__ierr(c, ins, PTO_K_E_BOUNDS,
                    "%s: window %s[%lld, %lld] of shape [%lld, %lld] is outside tensor '%s' of shape [%lld, %lld]",
                    pto_k__op_name(ins->op), nm, (long long)r, (long long)col, (long long)vr, (long long)vc,
                    g->name ? g->name : "?", (long long)g->rows, (long long)g->cols);
        return pto_k__skip(c, ins);
    }
    return 1;
}

/* ---- race-checked accesses ------------------------------------------------------ */

PTO_K_FN void pto_k__begin(pto_k__check *k, pto_k_core *c, const pto_k__ins *ins, int pipe)
{
    k->c = c;
    k->ins = ins;
    k->pipe = pipe;
    k->nconf = 0;
    c->clk[pipe]++;
    c->ninstr++;
    k->cur.src = ins->src ? ins->src : "?";
    k->cur.op = pto_k__op_name(ins->op);
    k->cur.gp = c->index * 8 + pipe;
    k->cur.clk = c->clk[pipe];
    k->cur.atomic = 0;
}

PTO_K_FN void pto_k__tacc(pto_k__check *k, pto_k_tile t, int64_t lo, int64_t hi, int kind)
{
    char what[48];
    pto_k__access(k, pto_k__local_shadow(k->c, t.space), t.offset + lo, t.offset + hi, kind, 0);
    snprintf(what, sizeof what, "%s", pto_k__space_name(t.space));
    pto_k__report_conf(k, kind, what, 0);
}

/* A GM window, row by row; byte offsets are the tensor's. */
PTO_K_FN void pto_k__gacc(pto_k__check *k, pto_k_gm *g, int64_t r, int64_t col, int64_t vr, int64_t vc, int kind)
{
    int64_t i, es = pto_k__dsize(g->dtype);
    char what[96], nm[80];
    pto_k__shadow *sh = pto_k__gm_shadow(k->c->dev, g);
    for (i = 0; i < vr && vc > 0; i++) {
        int64_t lo = ((r + i) * g->cols + col) * es;
        pto_k__access(k, sh, lo, lo + vc * es, kind, 1);
    }
    pto_k__gm_label_abs(k->c, g, nm, sizeof nm);
    snprintf(what, sizeof what, "gm %s", nm);
    pto_k__report_conf(k, kind, what, 1);
}

PTO_K_FN unsigned char *pto_k__tptr(pto_k_core *c, pto_k_tile t) { return c->mem[t.space] + t.offset; }

/* ---- initialised bytes ---------------------------------------------------------
   The interpreter gives a tile fresh, zeroed storage each time its
   declaration runs; on the device a planned address holds whatever its
   previous tenant (or an earlier launch) left there. A kernel whose result
   depends on that difference reads bytes nothing wrote, so instead of
   differing silently the simulator reports the read (PTO_K_E_UNINIT), naming
   the instruction, the tile and the bytes. Each granule of a local space
   keeps a mask of its bytes written in this launch; pto_k_tdecl clears the
   mask of a tile's bytes and stamps the granules with its issue number, and
   an access issued before that stamp belongs to the previous tenant (it runs
   late because its pipe was blocked in a wait): it is neither checked nor
   recorded. Only the bytes an op really touches count: a vector op reads and
   writes d's valid region, a row reduction reads the source's valid columns,
   a column reduction the source's valid rows in d's valid columns, a column
   broadcast reads its [1, C] row in d's valid columns, tload writes the
   whole tile (it zeroes what is outside the valid region),
   textract / tmatmul / tpush read whole tiles. GM is the host's and
   initialised, except a host intermediate (pto_k_gm.undefined): a tload or
   an atomic tstore_add of its elements that no store has reached reads
   garbage on a device (pto_k__gm_init_read). */

typedef struct pto_k__uninit {
    int64_t n, lo, hi;     /* unwritten bytes read, and the span from the first to the last */
    const char *dsrc;      /* the declaration of the tile that holds the first one, or NULL */
} pto_k__uninit;

/* Bytes [lo, hi) of local space `space`: mark them written, or check that
   they are (accumulating unwritten ones in u). seq: the access's issue number. */
PTO_K_FN void pto_k__init_span(pto_k_core *c, uint32_t seq, int space, int64_t lo, int64_t hi, int write,
                               pto_k__uninit *u)
{
    pto_k__shadow *sh = pto_k__local_shadow(c, space);
    int64_t b = lo, i;
    while (sh->g && b < hi && b / PTO_K__GRAN < sh->n) {
        int64_t gi = b / PTO_K__GRAN, base = gi * PTO_K__GRAN;
        int64_t e = base + PTO_K__GRAN < hi ? base + PTO_K__GRAN : hi;
        pto_k__gran *g = &sh->g[gi];
        uint32_t m = pto_k__byte_mask(b - base, e - base), miss = m & ~g->init;
        if (seq < g->decl) {
            /* issued before the tile's declaration: its previous tenant */
        } else if (write) {
            g->init |= m;
        } else if (miss) {
            for (i = 0; i < PTO_K__GRAN; i++)
                if (miss & (1u << i)) {
                    if (u->n == 0 || base + i < u->lo) { u->lo = base + i; u->dsrc = g->dsrc; }
                    if (u->n == 0 || base + i + 1 > u->hi) u->hi = base + i + 1;
                    u->n++;
                }
        }
        b = e;
    }
}

/* A read of window [r, r + nr) x [c, c + nc) of a host intermediate:
   reported (once per source line) when some element of it no store has
   reached, with the count and the first one. The reference interpreter
   and this simulator both start an intermediate at zero, so the results
   agree and only this report tells. */
PTO_K_FN void pto_k__gm_init_read(pto_k_core *c, const pto_k__ins *ins, const pto_k_gm *g, int64_t r, int64_t col,
                                  int64_t nr, int64_t nc)
{
    int64_t i, j, n = 0, fr = 0, fc = 0;
    if (!g->undefined || nr <= 0 || nc <= 0) return;
    for (i = 0; i < nr; i++)
        for (j = 0; j < nc; j++)
            if (!g->written || !g->written[(r + i) * g->cols + col + j]) {
                if (!n) fr = r + i, fc = col + j;
                n++;
            }
    if (!n || !pto_k__first_report(c->dev, ins->src, "gm", 1000 + PTO_K_E_UNINIT)) return;
    pto_k__ierr(c, ins, PTO_K_E_UNINIT,
                "uninitialised read: %s (%s) reads %lld element(s) of host intermediate '%s' that no kernel stored "
                "to, the first at [%lld, %lld] (window [%lld, %lld] + [%lld, %lld]): the host allocates it, so on a "
                "device they hold garbage (the reference interpreter reads zeros there)",
                ins->name ? ins->name : pto_k__op_name(ins->op), pto_k__pipe_name(ins->pipe), (long long)n,
                g->name ? g->name : "?", (long long)fr, (long long)fc, (long long)r, (long long)col, (long long)nr,
                (long long)nc);
}

/* The hint for an uninitialised read of an acc tile whose unwritten bytes
   are exactly its last rows (the read covering them whole): what a
   tmatmul whose left tile has a row tail (valid(nr, K)) leaves, as it
   computes only those rows. A reader of the whole acc (tpush, a full
   tstore or tmov) then needs the row tail on the mat tile instead: tload
   zero-fills past it, so the left tile is whole and every row computed. */
PTO_K_FN const char *pto_k__rowtail_hint(pto_k_tile t, int64_t r0, int64_t nr, int64_t es, const pto_k__uninit *u)
{
    int64_t rowb = t.cols * es, first;
    if (t.space != PTO_K_ACC || rowb <= 0 || u->lo < t.offset || (u->lo - t.offset) % rowb != 0) return "";
    first = (u->lo - t.offset) / rowb;
    if (first <= r0 || first >= r0 + nr || u->hi != t.offset + (r0 + nr) * rowb || u->n != u->hi - u->lo) return "";
    return "; these are the acc's last rows, which a tmatmul whose left tile has valid rows (a row tail) leaves "
           "unwritten: to read the whole acc (as a tpush does), put the row tail, valid(...), on the mat tile you "
           "tload instead of the left tile (tload zero-fills the rows past it, so every row of the acc is computed)";
}

/* Elements [r0, r0 + nr) x [c0, c0 + nc) of tile t, row by row: written
   (write = 1), or read, reporting unwritten bytes once per source line and role. */
PTO_K_FN void pto_k__init_region(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, int64_t r0, int64_t c0,
                                 int64_t nr, int64_t nc, int write, const char *role)
{
    int64_t es = pto_k__dsize(t.dtype), i;
    pto_k__uninit u;
    u.n = u.lo = u.hi = 0;
    u.dsrc = NULL;
    if (nr <= 0 || nc <= 0) return;
    for (i = 0; i < nr; i++) {
        int64_t lo = t.offset + ((r0 + i) * t.cols + c0) * es;
        pto_k__init_span(c, ins->seq, t.space, lo, lo + nc * es, write, &u);
    }
    if (u.n == 0 || !pto_k__first_report(c->dev, ins->src, role, 1000 + PTO_K_E_UNINIT)) return;
    pto_k__ierr(c, ins, PTO_K_E_UNINIT,
                "uninitialised read: %s (%s) reads %lld unwritten byte(s) of its %s tile [%d, %d] %s at %s byte "
                "%lld%s%s%s, in %s bytes [%lld, %lld): nothing wrote them since the launch began or the tile's tdecl "
                "(the reference interpreter reads zeros there)%s",
                ins->name ? ins->name : pto_k__op_name(ins->op), pto_k__pipe_name(ins->pipe), (long long)u.n, role, (int)t.rows,
                (int)t.cols, pto_k__dtype_name(t.dtype), pto_k__space_name(t.space), (long long)t.offset,
                u.dsrc ? " (declared at " : "", u.dsrc ? u.dsrc : "", u.dsrc ? ")" : "",
                pto_k__space_name(t.space), (long long)u.lo, (long long)u.hi, pto_k__rowtail_hint(t, r0, nr, es, &u));
}

PTO_K_FN void pto_k__init_read(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, int64_t nr, int64_t nc,
                               const char *role)
{
    pto_k__init_region(c, ins, t, 0, 0, nr, nc, 0, role);
}

PTO_K_FN void pto_k__init_write(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, int64_t nr, int64_t nc)
{
    pto_k__init_region(c, ins, t, 0, 0, nr, nc, 1, "destination");
}

/* Copies an nr x nc block between row-major arrays (strides in elements);
   equal dtypes copy bits, as the interpreter does. */
PTO_K_FN void pto_k__copy(unsigned char *dst, int dd, int64_t ds, const unsigned char *src, int sd, int64_t ss,
                          int64_t nr, int64_t nc)
{
    int64_t i, j;
    size_t es = (size_t)pto_k__dsize(dd);
    for (i = 0; i < nr && nc > 0; i++) {
        if (dd == sd) {
            memcpy(dst + (size_t)(i * ds) * es, src + (size_t)(i * ss) * es, (size_t)nc * es);
            continue;
        }
        for (j = 0; j < nc; j++) pto_elem_set(dst, dd, i * ds + j, pto_elem_get(src, sd, i * ss + j));
    }
}

/* ---- element arithmetic (the interpreter's rules) ------------------------------ */

/* op: PTO_K__TADD .. PTO_K__TMIN (numerics.h holds the arithmetic) */
PTO_K_FN float pto_k__bin(int op, float a, float b) { return pto_el_bin(op - PTO_K__TADD, a, b); }
/* A binary or broadcast op's element (op in its TADD .. TDIV form): a division as
   the device divides into the destination's dtype (numerics.h). */
PTO_K_FN float pto_k__div_or(int op, int ddt, float a, float b)
{
    return pto_el_bin_into(op - PTO_K__TADD, ddt, a, b);
}

/* op: PTO_K__TEXP .. PTO_K__TRELU */
PTO_K_FN float pto_k__un(int op, float x) { return pto_el_un(op - PTO_K__TEXP, x); }

/* ---- instruction classes ------------------------------------------------------ */

#define PTO_K__M(s) (1u << (s))

PTO_K_FN void pto_k__x_load(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d;
    pto_k_gm *g = ins->g;
    pto_k__check k;
    int64_t bytes;
    if (!pto_k__tile_ok(c, ins, d, PTO_K__M(PTO_K_VEC) | PTO_K__M(PTO_K_MAT), "destination")) return;
    if (pto_k__nowhere(c, g)) {   /* a dropped load still fills the tile (zeros): no uninitialised read follows */
        pto_k__init_write(c, ins, d, d.rows, d.cols);
        memset(pto_k__tptr(c, d), 0, (size_t)pto_k__tbytes(d));
        return;
    }
    if (!pto_k__window_ok(c, ins, g, ins->r, ins->col, d.valid_r, d.valid_c)) {
        /* reported: the tile counts as filled (zeros), so no uninitialised read follows from it (review28 L1) */
        pto_k__init_write(c, ins, d, d.rows, d.cols);
        memset(pto_k__tptr(c, d), 0, (size_t)pto_k__tbytes(d));
        return;
    }
    pto_k__begin(&k, c, ins, PTO_K_PIPE_MTE2);
    if (d.valid_r > 0 && d.valid_c > 0) pto_k__gacc(&k, g, ins->r, ins->col, d.valid_r, d.valid_c, PTO_K__RD);
    pto_k__gm_init_read(c, ins, g, ins->r, ins->col, d.valid_r, d.valid_c);
    pto_k__tacc(&k, d, 0, pto_k__tbytes(d), PTO_K__WR);
    pto_k__init_write(c, ins, d, d.rows, d.cols);
    memset(pto_k__tptr(c, d), 0, (size_t)pto_k__tbytes(d));
    if (d.valid_r > 0 && d.valid_c > 0)
        pto_k__copy(pto_k__tptr(c, d), d.dtype, d.cols,
                    (unsigned char *)g->data + (size_t)((ins->r * g->cols + ins->col) * pto_k__dsize(g->dtype)),
                    g->dtype, g->cols, d.valid_r, d.valid_c);
    bytes = d.valid_r * d.valid_c * pto_k__dsize(g->dtype);
    pto_k__timed(c, PTO_K_PIPE_MTE2, ins->disp,
                 d.space == PTO_K_VEC ? pto_k__bw_cost((double)bytes + 31334.4, 143.36) : pto_k__bw_cost((double)bytes, 78.35),
                 "tload", ins->src);
}

/* Notes the elements of a GM window as stored to: one byte per element,
   allocated on the first store, so that the host harness can tell an output
   the kernel left partly unwritten (which the reference, leaving the same
   elements alone, cannot). A byte, not a bit: a row is one memset. */
PTO_K_FN void pto_k__mark_written(pto_k_core *c, pto_k_gm *g, int64_t r, int64_t col, int64_t vr, int64_t vc)
{
    int64_t i;
    if (!g->written) {
        g->written = (unsigned char *)calloc((size_t)(g->rows * g->cols > 0 ? g->rows * g->cols : 1), 1);
        if (!g->written) {
            c->dev->oom = 1;
            return;
        }
    }
    for (i = 0; i < vr; i++) memset(g->written + (r + i) * g->cols + col, 1, (size_t)vc);
}

PTO_K_FN void pto_k__x_store(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile a = ins->a;
    pto_k_gm *g = ins->g;
    pto_k__check k;
    int pipe = a.space == PTO_K_ACC ? PTO_K_PIPE_FIX : PTO_K_PIPE_MTE3;
    int add = ins->op == PTO_K__TSTORE_ADD;
    int64_t i, j, bytes;
    if (!pto_k__tile_ok(c, ins, a, PTO_K__M(PTO_K_VEC) | PTO_K__M(PTO_K_ACC), "source") ||
        !pto_k__window_ok(c, ins, g, ins->r, ins->col, a.valid_r, a.valid_c))
        return;
    pto_k__begin(&k, c, ins, pipe);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, a.valid_r), PTO_K__RD);
    pto_k__init_read(c, ins, a, a.valid_r, a.valid_c, "source");
    if (a.valid_r > 0 && a.valid_c > 0)
        pto_k__gacc(&k, g, ins->r, ins->col, a.valid_r, a.valid_c, add ? PTO_K__AT : PTO_K__WR);
    if (add) pto_k__gm_init_read(c, ins, g, ins->r, ins->col, a.valid_r, a.valid_c);   /* it adds to them */
    if (a.valid_r > 0 && a.valid_c > 0) pto_k__mark_written(c, g, ins->r, ins->col, a.valid_r, a.valid_c);
    if (a.valid_r > 0 && a.valid_c > 0) {
        unsigned char *base = (unsigned char *)g->data + (size_t)((ins->r * g->cols + ins->col) * pto_k__dsize(g->dtype));
        /* an f32 acc into an f16 / bf16 tensor is the fixpipe's cast (the
           verifier allows only that mismatch): pto_k__copy rounds to nearest
           even as tcvt does; the cost below stays the acc's bytes */
        if (!add)
            pto_k__copy(base, g->dtype, g->cols, pto_k__tptr(c, a), a.dtype, a.cols, a.valid_r, a.valid_c);
        else
            for (i = 0; i < a.valid_r; i++)
                for (j = 0; j < a.valid_c; j++) {
                    float x = pto_elem_get(base, g->dtype, i * g->cols + j);
                    float y = pto_elem_get(pto_k__tptr(c, a), a.dtype, i * a.cols + j);
                    float s = x + y;
                    pto_elem_set(base, g->dtype, i * g->cols + j, pto_nan_canon(s));
                }
    }
    bytes = a.valid_r * a.valid_c * pto_k__dsize(a.dtype);
    pto_k__timed(c, pipe, ins->disp, pto_k__bw_cost((double)bytes, pipe == PTO_K_PIPE_FIX ? 40.63 : 109.12),
                 pto_k__op_name(ins->op), ins->src);
}

/* Elementwise ops, fills, tcvt and vec->vec tmov over d's valid region. */
/* Bytes per element that a map op's repeats step over: the destination's,
   but a tcvt's repeat holds 256 bytes of its WIDER side (pto-isa's
   TCVT_IMPL: elementsPerRepeat = 256 / max(sizeof dst, sizeof src)), so a
   narrowing f32 -> f16 takes as many repeats as the f32 source fills. */
PTO_K_FN int64_t pto_k__map_width(const pto_k__ins *ins)
{
    int64_t w = pto_k__dsize(ins->d.dtype);
    if (ins->op == PTO_K__TCVT && pto_k__dsize(ins->a.dtype) > w) w = pto_k__dsize(ins->a.dtype);
    return w;
}

PTO_K_FN void pto_k__x_map(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a, b = ins->b;
    int op = ins->op;
    int fill = op == PTO_K__TEXPANDS, bin = op >= PTO_K__TADD && op <= PTO_K__TMIN;
    int bins = op >= PTO_K__TADDS && op <= PTO_K__TMINS;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    float sc = pto_scalar_as(d.dtype, ins->s);   /* as the device takes it: the tile's dtype */
    pto_k__check k;
    int64_t r, col;
    unsigned char *dp, *ap = NULL, *bp = NULL;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination")) return;
    if (!fill && (!pto_k__tile_ok(c, ins, a, vm, "source") || !pto_k__same_shape(c, ins, a, d.rows, d.cols, "source")))
        return;
    if (bin && (!pto_k__tile_ok(c, ins, b, vm, "second source") ||
                !pto_k__same_shape(c, ins, b, d.rows, d.cols, "second source")))
        return;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    if (!fill) pto_k__tacc(&k, a, 0, pto_k__vspan(a, d.valid_r), PTO_K__RD);
    if (bin) pto_k__tacc(&k, b, 0, pto_k__vspan(b, d.valid_r), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    if (!fill) pto_k__init_read(c, ins, a, d.valid_r, d.valid_c, "source");
    if (bin) pto_k__init_read(c, ins, b, d.valid_r, d.valid_c, "second source");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    dp = pto_k__tptr(c, d);
    if (!fill) ap = pto_k__tptr(c, a);
    if (bin) bp = pto_k__tptr(c, b);
    if (op == PTO_K__TMOV && d.dtype == a.dtype) /* copies bits (i32 above 2^24), as the interpreter does */
        pto_k__copy(dp, d.dtype, d.cols, ap, a.dtype, a.cols, d.valid_r, d.valid_c);
    else if (pto_el_int_op(d.dtype, fill ? -100 : bin ? op - PTO_K__TADD : bins ? op - PTO_K__TADDS
                                    : op >= PTO_K__TEXP && op <= PTO_K__TRELU ? -1 - (op - PTO_K__TEXP) : -50)
             && (fill || a.dtype == d.dtype) && (!bin || b.dtype == d.dtype)) {
        /* an integer tile: exact integer arithmetic, as the interpreter (numerics.h) */
        int64_t si = pto_scalar_asi(d.dtype, ins->s);
        for (r = 0; r < d.valid_r; r++)
            for (col = 0; col < d.valid_c; col++) {
                int64_t i = r * d.cols + col, x = fill ? si : pto_elem_geti(ap, a.dtype, i), y;
                if (bin) y = pto_el_bin_i(op - PTO_K__TADD, x, pto_elem_geti(bp, b.dtype, i));
                else if (bins) y = pto_el_bin_i(op - PTO_K__TADDS, x, si);
                else if (!fill) y = pto_el_un_i(op - PTO_K__TEXP, x);
                else y = x;
                pto_elem_seti(dp, d.dtype, i, y);
            }
    } else for (r = 0; r < d.valid_r; r++)
        for (col = 0; col < d.valid_c; col++) {
            int64_t i = r * d.cols + col;
            float x = fill ? sc : pto_elem_get(ap, a.dtype, i), y;
            if (bin) y = pto_k__div_or(op, d.dtype, x, pto_elem_get(bp, b.dtype, i));
            else if (op == PTO_K__TDIVS) y = pto_el_div(d.dtype, x, sc, 1);
            else if (bins) y = pto_k__bin(op - (PTO_K__TADDS - PTO_K__TADD), x, sc);
            else if (op >= PTO_K__TEXP && op <= PTO_K__TRELU) y = pto_k__un(op, x);
            else y = x;
            if (op == PTO_K__TCVT) pto_cvt_set(dp, d.dtype, a.dtype, i, y);
            else pto_elem_set(dp, d.dtype, i, y);
        }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__vec_cost(op, d.valid_r * d.valid_c * pto_k__map_width(ins)),
                 pto_k__op_name(op), ins->src);
}

PTO_K_FN void pto_k__x_rowred(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    pto_k__check k;
    int64_t r, col, n;
    int eop = ins->op == PTO_K__TROWSUM ? PTO_EL_ADD : ins->op == PTO_K__TROWMAX ? PTO_EL_MAX : PTO_EL_MIN;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__same_shape(c, ins, d, d.rows > a.rows ? d.rows : a.rows, 1, "destination"))
        return;
    if (d.rows > a.rows && d.valid_r != a.valid_r) {
        /* a d taller than a reduces a's valid rows, which must be d's (pto-isa's TRowReduceCheck) */
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: destination has %d valid rows, source %d; a row reduction into a "
                    "taller column must have its source's valid rows", pto_k__op_name(ins->op), (int)d.valid_r,
                    (int)a.valid_r);
        return;
    }
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, d.valid_c > 0 ? pto_k__vspan(a, d.valid_r) : 0, PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    n = a.valid_c;
    if (d.valid_c > 0) {
        pto_k__init_read(c, ins, a, d.valid_r, n, "source");
        pto_k__init_write(c, ins, d, d.valid_r, 1);
    }
    if (pto_el_int_op(d.dtype, eop) && a.dtype == d.dtype) {
        /* an integer tile: exact, as the interpreter (numerics.h) */
        for (r = 0; r < d.valid_r && d.valid_c > 0; r++)
            pto_elem_seti(pto_k__tptr(c, d), d.dtype, r, pto_el_red_i(eop, pto_k__tptr(c, a), a.dtype, r * a.cols, 1, n));
    } else for (r = 0; r < d.valid_r && d.valid_c > 0; r++) {
        const unsigned char *row = pto_k__tptr(c, a);
        int64_t base = r * a.cols;
        float acc;
        if (ins->op == PTO_K__TROWSUM) {
            acc = 0.0f;
            for (col = 0; col < n; col++) acc = acc + pto_elem_get(row, a.dtype, base + col);
            acc = pto_nan_canon(acc);
        } else if (n == 0) {
            acc = ins->op == PTO_K__TROWMAX ? -INFINITY : INFINITY;
        } else {
            acc = pto_elem_get(row, a.dtype, base);
            for (col = 1; col < n; col++)
                acc = pto_k__bin(ins->op == PTO_K__TROWMAX ? PTO_K__TMAX : PTO_K__TMIN, acc,
                                 pto_elem_get(row, a.dtype, base + col));
        }
        pto_elem_set(pto_k__tptr(c, d), d.dtype, r, acc);
    }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__vec_cost(ins->op, d.valid_r * n * pto_k__dsize(a.dtype)),
                 pto_k__op_name(ins->op), ins->src);
}

PTO_K_FN void pto_k__x_rowexp(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a, v = ins->b;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    int op = PTO_K__TADD + (ins->op - PTO_K__TROWEXPANDADD);
    pto_k__check k;
    int64_t r, col;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__tile_ok(c, ins, v, vm, "row vector") || !pto_k__same_shape(c, ins, a, d.rows, d.cols, "source") ||
        !pto_k__same_shape(c, ins, v, d.rows, 1, "row vector"))
        return;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, d.valid_r), PTO_K__RD);
    pto_k__tacc(&k, v, 0, d.valid_c > 0 ? (int64_t)d.valid_r * pto_k__dsize(v.dtype) : 0, PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    pto_k__init_read(c, ins, a, d.valid_r, d.valid_c, "source");
    if (d.valid_c > 0) pto_k__init_read(c, ins, v, d.valid_r, 1, "row vector");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    if (pto_el_int_op(d.dtype, op - PTO_K__TADD) && a.dtype == d.dtype && v.dtype == d.dtype) {
        /* an integer tile: exact, as the interpreter (numerics.h) */
        for (r = 0; r < d.valid_r; r++)
            for (col = 0; col < d.valid_c; col++) {
                int64_t i = r * d.cols + col, y = pto_elem_geti(pto_k__tptr(c, v), v.dtype, r);
                pto_elem_seti(pto_k__tptr(c, d), d.dtype, i,
                              pto_el_bin_i(op - PTO_K__TADD, pto_elem_geti(pto_k__tptr(c, a), a.dtype, i), y));
            }
    } else for (r = 0; r < d.valid_r; r++) {
        float y = pto_elem_get(pto_k__tptr(c, v), v.dtype, r);
        for (col = 0; col < d.valid_c; col++) {
            int64_t i = r * d.cols + col;
            pto_elem_set(pto_k__tptr(c, d), d.dtype, i, pto_k__div_or(op, d.dtype, pto_elem_get(pto_k__tptr(c, a), a.dtype, i), y));
        }
    }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__vec_cost(ins->op, d.valid_r * d.valid_c * pto_k__dsize(d.dtype)),
                 pto_k__op_name(ins->op), ins->src);
}

/* tcolsum / tcolmax / tcolmin d, a: d is [1, C]; each valid column c of d
   reduces a[0 .. a.valid_r, c] top to bottom (the interpreter's order). */
PTO_K_FN void pto_k__x_colred(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    pto_k__check k;
    int64_t r, col, n, run;
    int eop = ins->op == PTO_K__TCOLSUM ? PTO_EL_ADD : ins->op == PTO_K__TCOLMAX ? PTO_EL_MAX : PTO_EL_MIN;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__same_shape(c, ins, d, 1, a.cols, "destination"))
        return;
    if (d.valid_c != a.valid_c) {   /* pto-isa asserts it (review28 H1: a launch-time region) */
        pto_k__ierr(c, ins, PTO_K_E_BOUNDS, "%s: the destination has %lld valid cols but the source has %lld: a column "
                    "reduction's result has exactly its source's valid columns (pto-isa asserts it)",
                    pto_k__op_name(ins->op), (long long)d.valid_c, (long long)a.valid_c);
        pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);   /* no uninitialised read follows from it */
        return;
    }
    run = d.valid_r > 0 && d.valid_c > 0;
    n = run ? a.valid_r : 0;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, n * a.cols * pto_k__dsize(a.dtype), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    if (run) {
        pto_k__init_read(c, ins, a, n, d.valid_c, "source");
        pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    }
    if (pto_el_int_op(d.dtype, eop) && a.dtype == d.dtype) {
        /* an integer tile: exact, as the interpreter (numerics.h) */
        for (col = 0; col < d.valid_c && run; col++)
            pto_elem_seti(pto_k__tptr(c, d), d.dtype, col, pto_el_red_i(eop, pto_k__tptr(c, a), a.dtype, col, a.cols, n));
    } else for (col = 0; col < d.valid_c && run; col++) {
        const unsigned char *src = pto_k__tptr(c, a);
        float acc;
        if (n == 0) {
            acc = ins->op == PTO_K__TCOLSUM ? 0.0f : ins->op == PTO_K__TCOLMAX ? -INFINITY : INFINITY;
        } else {
            acc = pto_elem_get(src, a.dtype, col);
            for (r = 1; r < n; r++) {
                float x = pto_elem_get(src, a.dtype, r * a.cols + col);
                acc = ins->op == PTO_K__TCOLSUM ? acc + x
                                                : pto_k__bin(ins->op == PTO_K__TCOLMAX ? PTO_K__TMAX : PTO_K__TMIN, acc, x);
            }
            if (ins->op == PTO_K__TCOLSUM) acc = pto_nan_canon(acc);
        }
        pto_elem_set(pto_k__tptr(c, d), d.dtype, col, acc);
    }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__colred_cost(ins->op, n, d.valid_c * pto_k__dsize(a.dtype)),
                 pto_k__op_name(ins->op), ins->src);
}

/* ttrans d, a: d[c, r] = a[r, c] over a's valid region, the element bits
   as they are; d's valid region must be a's transposed (pto-isa reads
   only src's: the verifier checks what it knows, a launch-time region
   reaches here). */
PTO_K_FN void pto_k__x_trans(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    pto_k__check k;
    int64_t r, col, es = pto_k__dsize(a.dtype);
    const unsigned char *sp;
    unsigned char *dp;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__same_shape(c, ins, d, a.cols, a.rows, "destination"))
        return;
    if (d.dtype != a.dtype || d.valid_r != a.valid_c || d.valid_c != a.valid_r) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "ttrans: the destination (%s, valid [%lld, %lld]) is not the source (%s, valid "
                    "[%lld, %lld]) transposed", pto_k__dtype_name(d.dtype), (long long)d.valid_r,
                    (long long)d.valid_c, pto_k__dtype_name(a.dtype), (long long)a.valid_r, (long long)a.valid_c);
        pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);   /* no uninitialised read follows from it */
        return;
    }
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, a.valid_r), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    pto_k__init_read(c, ins, a, a.valid_r, a.valid_c, "source");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    sp = pto_k__tptr(c, a);
    dp = pto_k__tptr(c, d);
    for (r = 0; r < a.valid_r; r++)
        for (col = 0; col < a.valid_c; col++)
            memcpy(dp + (col * d.cols + r) * es, sp + (r * a.cols + col) * es, (size_t)es);
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, 2 * pto_k__vec_cost(PTO_K__TTRANS, a.valid_r * a.valid_c * es), "ttrans",
                 ins->src);
}

/* tcolexpand{add,sub,mul,div} d, a, v: d[r, c] = a[r, c] op v[0, c] over d's
   valid region; v is [1, C] (the broadcast row). */
PTO_K_FN void pto_k__x_colexp(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a, v = ins->b;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    int op = PTO_K__TADD + (ins->op - PTO_K__TCOLEXPANDADD);
    pto_k__check k;
    int64_t r, col;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__tile_ok(c, ins, v, vm, "broadcast row") || !pto_k__same_shape(c, ins, a, d.rows, d.cols, "source") ||
        !pto_k__same_shape(c, ins, v, 1, d.cols, "broadcast row"))
        return;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, d.valid_r), PTO_K__RD);
    pto_k__tacc(&k, v, 0, d.valid_r > 0 && d.valid_c > 0 ? d.valid_c * pto_k__dsize(v.dtype) : 0, PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    pto_k__init_read(c, ins, a, d.valid_r, d.valid_c, "source");
    if (d.valid_r > 0) pto_k__init_read(c, ins, v, 1, d.valid_c, "broadcast row");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    if (pto_el_int_op(d.dtype, op - PTO_K__TADD) && a.dtype == d.dtype && v.dtype == d.dtype) {
        /* an integer tile: exact, as the interpreter (numerics.h) */
        for (r = 0; r < d.valid_r; r++)
            for (col = 0; col < d.valid_c; col++) {
                int64_t i = r * d.cols + col, y = pto_elem_geti(pto_k__tptr(c, v), v.dtype, col);
                pto_elem_seti(pto_k__tptr(c, d), d.dtype, i,
                              pto_el_bin_i(op - PTO_K__TADD, pto_elem_geti(pto_k__tptr(c, a), a.dtype, i), y));
            }
    } else for (r = 0; r < d.valid_r; r++)
        for (col = 0; col < d.valid_c; col++) {
            int64_t i = r * d.cols + col;
            float y = pto_elem_get(pto_k__tptr(c, v), v.dtype, col);
            pto_elem_set(pto_k__tptr(c, d), d.dtype, i, pto_k__div_or(op, d.dtype, pto_elem_get(pto_k__tptr(c, a), a.dtype, i), y));
        }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__vec_cost(ins->op, d.valid_r * d.valid_c * pto_k__dsize(d.dtype)),
                 pto_k__op_name(ins->op), ins->src);
}

/* The pipe of tmov from its spaces (hardware.md section 3), or -1. */
PTO_K_FN int pto_k__mov_pipe(int ds, int as)
{
    if (ds == PTO_K_VEC && as == PTO_K_VEC) return PTO_K_PIPE_V;
    if ((ds == PTO_K_LEFT || ds == PTO_K_RIGHT) && as == PTO_K_MAT) return PTO_K_PIPE_MTE1;
    if ((ds == PTO_K_VEC || ds == PTO_K_MAT) && as == PTO_K_ACC) return PTO_K_PIPE_FIX;
    return -1;
}

PTO_K_FN int64_t pto_k__mte1_cost(int space, int64_t bytes)
{
    return pto_k__bw_cost((double)bytes, space == PTO_K_LEFT ? 255.96 : 127.69);
}

PTO_K_FN void pto_k__x_mov(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    int pipe = pto_k__mov_pipe(d.space, a.space);
    pto_k__check k;
    int64_t bytes, cost;
    if (pipe < 0) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "tmov: %s -> %s is not a move the hardware has", pto_k__space_name(a.space),
                    pto_k__space_name(d.space));
        return;
    }
    if (pipe == PTO_K_PIPE_V) {
        pto_k__x_map(c, ins);
        return;
    }
    if (!pto_k__tile_ok(c, ins, d, PTO_K__M(d.space), "destination") ||
        !pto_k__tile_ok(c, ins, a, PTO_K__M(a.space), "source") || !pto_k__same_shape(c, ins, a, d.rows, d.cols, "source"))
        return;
    pto_k__begin(&k, c, ins, pipe);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, d.valid_r), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    pto_k__init_read(c, ins, a, d.valid_r, d.valid_c, "source");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    pto_k__copy(pto_k__tptr(c, d), d.dtype, d.cols, pto_k__tptr(c, a), a.dtype, a.cols, d.valid_r, d.valid_c);
    bytes = d.valid_r * d.valid_c * pto_k__dsize(a.dtype);
    cost = pipe == PTO_K_PIPE_MTE1 ? pto_k__mte1_cost(d.space, bytes) : pto_k__bw_cost((double)bytes, 40.63);
    pto_k__timed(c, pipe, ins->disp, cost, "tmov", ins->src);
}

PTO_K_FN void pto_k__x_extract(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    int64_t r = ins->r, col = ins->col, es;
    pto_k__check k;
    if (!pto_k__tile_ok(c, ins, d, PTO_K__M(PTO_K_LEFT) | PTO_K__M(PTO_K_RIGHT), "destination") ||
        !pto_k__tile_ok(c, ins, a, PTO_K__M(PTO_K_MAT), "source"))
        return;
    if (r < 0 || col < 0 || r > a.rows - d.rows || col > a.cols - d.cols) {
        pto_k__ierr(c, ins, PTO_K_E_BOUNDS, "textract: window [%lld, %lld] of shape [%d, %d] is outside the source tile of shape [%d, %d]",
                    (long long)r, (long long)col, (int)d.rows, (int)d.cols, (int)a.rows, (int)a.cols);
        return;
    }
    es = pto_k__dsize(a.dtype);
    /* TEXTRACT copies whole 16-row x 32-byte fractals out of the mat tile's NZ layout: an offset
       inside a fractal (a launch-time step the verifier cannot see) picks other elements on the
       device than this row-major copy would */
    if (r % 16 != 0 || (col * es) % 32 != 0) {
        pto_k__ierr(c, ins, PTO_K_E_ALIGN, "textract: offset [%lld, %lld] is not whole fractals of the source tile: rows must be a multiple of 16 and cols of %d",
                    (long long)r, (long long)col, (int)(32 / es));
        return;
    }
    pto_k__begin(&k, c, ins, PTO_K_PIPE_MTE1);
    pto_k__tacc(&k, a, (r * a.cols + col) * es, ((r + d.rows - 1) * a.cols + col + d.cols) * es, PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__tbytes(d), PTO_K__WR);
    pto_k__init_region(c, ins, a, r, col, d.rows, d.cols, 0, "source");
    pto_k__init_write(c, ins, d, d.rows, d.cols);
    pto_k__copy(pto_k__tptr(c, d), d.dtype, d.cols, pto_k__tptr(c, a) + (size_t)((r * a.cols + col) * es), a.dtype,
                a.cols, d.rows, d.cols);
    pto_k__timed(c, PTO_K_PIPE_MTE1, ins->disp, pto_k__mte1_cost(d.space, pto_k__tbytes(d)), "textract", ins->src);
}

PTO_K_FN void pto_k__x_matmul(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a, b = ins->b;
    int acc = ins->op == PTO_K__TMATMUL_ACC, which;
    int64_t M, N, K, i, j, kk, rate;
    pto_k__check k;
    if (!pto_k__tile_ok(c, ins, d, PTO_K__M(PTO_K_ACC), "accumulator") ||
        !pto_k__tile_ok(c, ins, a, PTO_K__M(PTO_K_LEFT), "left") || !pto_k__tile_ok(c, ins, b, PTO_K__M(PTO_K_RIGHT), "right") ||
        !pto_k__same_shape(c, ins, a, d.rows, a.cols, "left") || !pto_k__same_shape(c, ins, b, a.cols, d.cols, "right"))
        return;
    /* pto-isa's TMATMUL: m, k, n are a's valid rows and cols and b's valid
       cols, and the device asserts each in 1..4095 (CheckDynamicMad): an
       empty valid region is refused here as there, not computed as a no-op;
       the rest of d keeps its bytes (and their written state) */
    if ((which = pto_mm_bad_extent(a.valid_r, a.valid_c, b.valid_c)) >= 0) {
        static const char *const what[3] = {"m (the left tile's valid rows)", "k (the left tile's valid columns)",
                                             "n (the right tile's valid columns)"};
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s is %lld; pto-isa's TMATMUL takes m, k and n in 1..4095 (the device asserts it)",
                    pto_k__op_name(ins->op), what[which],
                    (long long)(which == 0 ? a.valid_r : which == 1 ? a.valid_c : b.valid_c));
        return;
    }
    M = a.valid_r < d.rows ? a.valid_r : d.rows;
    K = a.valid_c < b.rows ? a.valid_c : b.rows;
    N = b.valid_c < d.cols ? b.valid_c : d.cols;
    if (M < 0) M = 0;
    if (K < 0) K = 0;
    if (N < 0) N = 0;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_M);
    pto_k__tacc(&k, a, 0, pto_k__tbytes(a), PTO_K__RD);
    pto_k__tacc(&k, b, 0, pto_k__tbytes(b), PTO_K__RD);
    if (acc) pto_k__tacc(&k, d, 0, pto_k__tbytes(d), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__tbytes(d), PTO_K__WR);
    pto_k__init_read(c, ins, a, M, K, "left");
    pto_k__init_read(c, ins, b, K, N, "right");
    if (acc) pto_k__init_read(c, ins, d, M, N, "accumulator");
    pto_k__init_write(c, ins, d, M, N);
    if (a.dtype == PTO_K_I8 && b.dtype == PTO_K_I8 && d.dtype == PTO_K_I32) {
        /* integers, exactly, as the interpreter (numerics.h) */
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++)
                pto_elem_seti(pto_k__tptr(c, d), d.dtype, i * d.cols + j,
                              pto_el_mm_i8(pto_k__tptr(c, a), a.cols, pto_k__tptr(c, b), b.cols, i, j, K,
                                           acc ? pto_elem_geti(pto_k__tptr(c, d), d.dtype, i * d.cols + j) : 0));
    } else for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            float s = acc ? pto_elem_get(pto_k__tptr(c, d), d.dtype, i * d.cols + j) : 0.0f;
            for (kk = 0; kk < K; kk++) {
                float p = pto_elem_get(pto_k__tptr(c, a), a.dtype, i * a.cols + kk) *
                          pto_elem_get(pto_k__tptr(c, b), b.dtype, kk * b.cols + j);
                s = s + p;
            }
            pto_elem_set(pto_k__tptr(c, d), d.dtype, i * d.cols + j, pto_nan_canon(s));
        }
    rate = a.dtype == PTO_K_F32 ? 1024 : a.dtype == PTO_K_I8 ? 8192 : 4096;
    /* the cube works in whole 16-row, 16-column fractals */
    pto_k__timed(c, PTO_K_PIPE_M, ins->disp, ((M + 15) / 16 * 16 * ((N + 15) / 16 * 16) * K + rate - 1) / rate + 6,
                 pto_k__op_name(ins->op), ins->src);
}

/* ---- flags and barriers inside a core ------------------------------------------ */

PTO_K_FN int pto_k__flag_args_ok(pto_k_core *c, const pto_k__ins *ins)
{
    if (ins->p0 < 0 || ins->p0 >= PTO_K_PIPE_ALL || ins->p1 < 0 || ins->p1 >= PTO_K_PIPE_ALL || ins->p0 == ins->p1 ||
        ins->id < 0 || ins->id >= PTO_K_NFLAG) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s(%s, %s, %d): needs two different pipes S..FIX and an id in 0..7",
                    pto_k__op_name(ins->op), pto_k__pipe_name(ins->p0), pto_k__pipe_name(ins->p1), ins->id);
        return 0;
    }
    if (ins->p0 == PTO_K_PIPE_M && ins->p1 == PTO_K_PIPE_FIX && ins->id > 2) {
        /* legal in the ISA, but a hang on a device (hardware.md section 4):
           stricter than the hardware, as for every flag misuse. Reported,
           then run as written: dropping the flag would add a race report
           that blames a missing set_flag the author wrote (review16) */
        pto_k__ierr(c, ins, PTO_K_E_DEADLOCK, "%s(M, FIX, %d): ids 3..7 of the M -> FIX pair deadlocked on a device "
                    "(hardware.md section 4): use an id in 0..2, as the sync pass does",
                    pto_k__op_name(ins->op), ins->id);
    }
    return 1;
}

PTO_K_FN void pto_k__x_set(pto_k_core *c, const pto_k__ins *ins)
{
    int p = ins->p0, q = ins->p1, id = ins->id;
    pto_k__sync *s = &c->flag[p][q][id];
    if (c->flag_set[p][q][id]) {
        pto_k__ierr(c, ins, PTO_K_E_DOUBLE_SET,
                    "double set: set_flag(%s, %s, %d) while id %d of %s -> %s is still set by \"%s\" (no wait_flag consumed it)",
                    pto_k__pipe_name(p), pto_k__pipe_name(q), id, id, pto_k__pipe_name(p), pto_k__pipe_name(q), s->src);
        return;
    }
    /* Still set in time, though not in program order: the set's pipe p may
       run ahead of the consumer q, so unless a chain of flags orders the
       latest wait of this id (on q) before this set, the set can fire while
       the previous one is pending. The event is binary: a device merges the
       two sets and the second wait hangs. Vector clocks, like the race
       detector: whatever the cycle model's timing. */
    if (c->flag_waited[p][q][id] && c->vc[p][c->index * 8 + q] < c->flag_waited[p][q][id] &&
        pto_k__first_report(c->dev, ins->src, c->flag_wsrc[p][q][id], PTO_K_E_DOUBLE_SET))
        pto_k__ierr(c, ins, PTO_K_E_DOUBLE_SET,
                    "unordered reuse: set_flag(%s, %s, %d) is not ordered after the wait_flag(%s, %s, %d) at \"%s\" "
                    "that consumes its previous set (%s may run ahead of %s): on a device both sets can be pending "
                    "at once and one signal is lost (a hang); rotate the ids or order that wait first",
                    pto_k__pipe_name(p), pto_k__pipe_name(q), id, pto_k__pipe_name(p), pto_k__pipe_name(q), id,
                    c->flag_wsrc[p][q][id] ? c->flag_wsrc[p][q][id] : "?", pto_k__pipe_name(p), pto_k__pipe_name(q));
    c->flag_set[p][q][id] = 1;
    if (s->vc) memset(s->vc, 0, sizeof(uint32_t) * (size_t)c->dev->ngp);
    s->time = 0;
    pto_k__publish(c, p, s, c->free_at[p] > ins->disp ? c->free_at[p] : ins->disp, ins->src);
}

PTO_K_FN void pto_k__x_wait(pto_k_core *c, const pto_k__ins *ins)
{
    int p = ins->p0, q = ins->p1, id = ins->id;
    pto_k__sync *s = &c->flag[p][q][id];
    c->flag_set[p][q][id] = 0;
    pto_k__vc_join(c->dev, c->vc[q], s->vc);
    /* a tick of q's clock of its own: q's later sets publish it, so the next
       set of this id can tell whether this wait is known to be past */
    c->flag_waited[p][q][id] = ++c->clk[q];
    c->flag_wsrc[p][q][id] = ins->src;
    c->flag_wpclk[p][q][id] = c->clk[p];
    pto_k__stall(c, q, p, ins->disp, s->time, ins->src);
    /* a wait on S stalls the scalar unit: nothing after it dispatches before
       the set fired (in order, only S is credited with it: the sync pass
       orders the other pipes with flags of their own) */
    if (q == PTO_K_PIPE_S && c->disp < c->free_at[q]) c->disp = c->free_at[q];
}

PTO_K_FN void pto_k__x_barrier(pto_k_core *c, const pto_k__ins *ins)
{
    int p = ins->p0;
    if (p == PTO_K_PIPE_ALL) {
        int i;
        int64_t t = c->disp;
        uint32_t *j = c->vc[PTO_K_PIPE_ALL]; /* scratch */
        memset(j, 0, sizeof(uint32_t) * (size_t)c->dev->ngp);
        for (i = 0; i < PTO_K_PIPE_ALL; i++) {
            pto_k__vc_join(c->dev, j, c->vc[i]);
            if (j[c->index * 8 + i] < c->clk[i]) j[c->index * 8 + i] = c->clk[i];
            if (c->free_at[i] > t) t = c->free_at[i];
        }
        for (i = 0; i < PTO_K_PIPE_ALL; i++) {
            memcpy(c->vc[i], j, sizeof(uint32_t) * (size_t)c->dev->ngp);
            /* a pipe that had its work queued before the barrier waits for the others */
            pto_k__waited(c, i, PTO_K_PIPE_ALL, t - (c->free_at[i] > ins->disp ? c->free_at[i] : ins->disp), ins->src);
            c->free_at[i] = t;
        }
        c->disp = t;
        return;
    }
    c->vc[p][c->index * 8 + p] = c->clk[p];
}

PTO_K_FN void pto_k__exec(pto_k_core *c, const pto_k__ins *ins)
{
    switch (ins->op) {
    case PTO_K__TLOAD: pto_k__x_load(c, ins); break;
    case PTO_K__TSTORE:
    case PTO_K__TSTORE_ADD: pto_k__x_store(c, ins); break;
    case PTO_K__TROWSUM:
    case PTO_K__TROWMAX:
    case PTO_K__TROWMIN: pto_k__x_rowred(c, ins); break;
    case PTO_K__TROWEXPANDADD:
    case PTO_K__TROWEXPANDSUB:
    case PTO_K__TROWEXPANDMUL:
    case PTO_K__TROWEXPANDDIV: pto_k__x_rowexp(c, ins); break;
    case PTO_K__TCOLSUM:
    case PTO_K__TCOLMAX:
    case PTO_K__TCOLMIN: pto_k__x_colred(c, ins); break;
    case PTO_K__TCOLEXPANDADD:
    case PTO_K__TCOLEXPANDSUB:
    case PTO_K__TCOLEXPANDMUL:
    case PTO_K__TCOLEXPANDDIV: pto_k__x_colexp(c, ins); break;
    case PTO_K__TMOV: pto_k__x_mov(c, ins); break;
    case PTO_K__TTRANS: pto_k__x_trans(c, ins); break;
    case PTO_K__TEXTRACT: pto_k__x_extract(c, ins); break;
    case PTO_K__TMATMUL:
    case PTO_K__TMATMUL_ACC: pto_k__x_matmul(c, ins); break;
    case PTO_K__SET_FLAG: pto_k__x_set(c, ins); break;
    case PTO_K__WAIT_FLAG: pto_k__x_wait(c, ins); break;
    case PTO_K__PIPE_BARRIER: pto_k__x_barrier(c, ins); break;
    default: pto_k__x_map(c, ins); break;
    }
}

/* Runs queued instructions of blocked pipes whose waits are now satisfied. */
PTO_K_FN void pto_k__pump(pto_k_core *c)
{
    int progress = 1, p;
    while (progress && c->nblocked) {
        progress = 0;
        for (p = 0; p < PTO_K_PIPE_ALL; p++) {
            pto_k__queue *q = &c->q[p];
            pto_k__ins ins;
            if (q->n == 0) continue;
            ins = q->v[0];
            if (ins.op == PTO_K__WAIT_FLAG && !c->flag_set[ins.p0][ins.p1][ins.id]) continue;
            memmove(q->v, q->v + 1, (size_t)(q->n - 1) * sizeof *q->v);
            q->n--;
            if (q->n == 0) c->nblocked--;
            pto_k__exec(c, &ins);
            progress = 1;
        }
    }
}

PTO_K_FN void pto_k__enqueue(pto_k_core *c, int p, const pto_k__ins *ins)
{
    pto_k__queue *q = &c->q[p];
    int cap = q->cap;
    q->v = (pto_k__ins *)pto_k__grow(c->dev, q->v, &cap, q->n + 1, sizeof *q->v);
    q->cap = cap;
    if (q->n + 1 > cap) return;
    if (q->n == 0) c->nblocked++;
    q->v[q->n++] = *ins;
}

/* The first wait a blocked pipe sits in, for reports. */
PTO_K_FN void pto_k__blocked_desc(pto_k_core *c, int p, char *out, size_t n)
{
    const pto_k__ins *w = &c->q[p].v[0];
    snprintf(out, n, "pipe %s is blocked in wait_flag(%s, %s, %d) at \"%s\"", pto_k__pipe_name(p),
             pto_k__pipe_name(w->p0), pto_k__pipe_name(w->p1), w->id, w->src);
}

/* The report of a scalar stall (pto_k__issue), at the kernel's end
   (complete: the kernel function returned; 0: the launch stopped it, so
   what follows the stall is unknown). The advice to move the wait comes
   only when the set that would release the chain is issued after it. */
PTO_K_FN void pto_k__sstall_end(pto_k_core *c, int complete)
{
    const pto_k__ins *w = &c->sst, *r = &c->sroot;
    const char *src = w->src ? w->src : "?", *rsrc = r->src ? r->src : "?";
    char who[64];
    if (!w->seq) return;
    pto_k__core_name(c, who, sizeof who);
    if (!r->seq)
        pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                   "%s: error: deadlock: wait_flag(%s, S, %d) stalls the scalar unit, which dispatches nothing after it "
                   "until set_flag(%s, S, %d) fires, and none was issued before it%s%s%s (%s)",
                   src, pto_k__pipe_name(w->p0), w->id, pto_k__pipe_name(w->p0), w->id,
                   c->slater ? ": move the wait_flag after its set_flag at \"" : complete ? " or follows it before the "
                   "kernel ends" : " (the launch stopped before the kernel's end)",
                   c->slater ? c->slater : "", c->slater ? "\"" : "", who);
    else if (c->slater || !complete)
        pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                   "%s: error: deadlock: wait_flag(%s, S, %d) stalls the scalar unit, which dispatches nothing after it "
                   "until set_flag(%s, S, %d) fires, and the one issued before it can never run: pipe %s is blocked in "
                   "wait_flag(%s, %s, %d) at \"%s\"%s%s%s (%s)",
                   src, pto_k__pipe_name(w->p0), w->id, pto_k__pipe_name(w->p0), w->id, pto_k__pipe_name(r->pipe),
                   pto_k__pipe_name(r->p0), pto_k__pipe_name(r->p1), r->id, rsrc,
                   c->slater ? ", whose set_flag comes after the stall, at \"" : " (the launch stopped before the "
                   "kernel's end)", c->slater ? c->slater : "", c->slater ? "\": move the wait_flag after that set_flag" : "",
                   who);
    else   /* the root cause: the first blocked wait, whose set never comes */
        pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                   "%s: error: deadlock: wait_flag(%s, %s, %d) can never be satisfied: no set_flag(%s, %s, %d) "
                   "follows it before the kernel ends; the scalar unit stalls behind it in wait_flag(%s, S, %d) at "
                   "\"%s\", whose set_flag at \"%s\" is queued on pipe %s (%s)",
                   rsrc, pto_k__pipe_name(r->p0), pto_k__pipe_name(r->p1), r->id, pto_k__pipe_name(r->p0),
                   pto_k__pipe_name(r->p1), r->id, pto_k__pipe_name(w->p0), w->id, src, c->sset ? c->sset : "?",
                   pto_k__pipe_name(c->sset_pipe), who);
    c->sst.seq = 0;
}

/* Dispatches an instruction from the scalar unit to its pipe. */
PTO_K_FN void pto_k__issue(pto_k_core *c, pto_k__ins *ins)
{
    int p = ins->pipe;
    if (ins->op != PTO_K__SET_FLAG && ins->op != PTO_K__WAIT_FLAG && ins->op != PTO_K__PIPE_BARRIER)
        pto_k__tick(c, ins->src);
    if (c->dead) return;
    ins->disp = c->disp++;
    ins->seq = ++c->seq;
    if (ins->op == PTO_K__PIPE_BARRIER && p == PTO_K_PIPE_ALL && c->nblocked) {
        int i;
        char why[300];
        for (i = 0; i < PTO_K_PIPE_ALL && c->q[i].n == 0; i++) {
        }
        pto_k__blocked_desc(c, i, why, sizeof why);
        pto_k__ierr(c, ins, PTO_K_E_DEADLOCK,
                    "deadlock: pipe_barrier(ALL) can never complete: %s and no set_flag(%s, %s, %d) was issued before the barrier",
                    why, pto_k__pipe_name(c->q[i].v[0].p0), pto_k__pipe_name(c->q[i].v[0].p1), c->q[i].v[0].id);
        c->dead = 1;
        return;
    }
    if (ins->op == PTO_K__WAIT_FLAG && p == PTO_K_PIPE_S && !c->flag_set[ins->p0][ins->p1][ins->id]) {
        /* S is the scalar unit itself: a wait on it dispatches nothing more
           until the set fires, so a set later in program order never comes.
           One already issued sits in a blocked queue that only a later
           dispatch could release (pto_k__pump ran to a fixpoint): the chain
           of waits from there leads to the first blocked one, whose set was
           not issued (review22 L6). Reported at the kernel's end, when it is
           known whether that set comes later in program order. */
        int i, j, k;
        c->sst = *ins;
        c->sroot.seq = 0;
        c->sset = NULL;
        c->slater = NULL;
        for (i = 0; i < PTO_K_PIPE_ALL && !c->sset; i++)
            for (j = 1; j < c->q[i].n; j++) {
                const pto_k__ins *s = &c->q[i].v[j];
                if (s->op != PTO_K__SET_FLAG || s->p0 != ins->p0 || s->p1 != ins->p1 || s->id != ins->id) continue;
                c->sset = s->src ? s->src : "?";
                c->sset_pipe = i;
                c->sroot = c->q[i].v[0];
                break;
            }
        for (k = 0; c->sset && k < PTO_K_PIPE_ALL; k++) {   /* the blocked wait's own set queued behind another */
            int r;
            const pto_k__ins *w = &c->sroot;
            for (r = 0; r < PTO_K_PIPE_ALL; r++) {
                for (j = 1; j < c->q[r].n; j++) {
                    const pto_k__ins *s = &c->q[r].v[j];
                    if (s->op == PTO_K__SET_FLAG && s->p0 == w->p0 && s->p1 == w->p1 && s->id == w->id) break;
                }
                if (j < c->q[r].n) break;
            }
            if (r == PTO_K_PIPE_ALL) break;
            c->sroot = c->q[r].v[0];
        }
        c->dead = 1;
        return;
    }
    if (p >= 0 && p < PTO_K_PIPE_ALL && c->q[p].n > 0) {
        pto_k__enqueue(c, p, ins);
        return;
    }
    if (ins->op == PTO_K__WAIT_FLAG && !c->flag_set[ins->p0][ins->p1][ins->id]) {
        pto_k__enqueue(c, p, ins);
        return;
    }
    pto_k__exec(c, ins);
    if (c->nblocked) pto_k__pump(c);
}

/* A data pipe that a cross-core instruction needs must not be blocked in a
   local wait (the simulator does not model that overlap). */
PTO_K_FN int pto_k__pipe_free(pto_k_core *c, const pto_k__ins *ins, int p)
{
    char why[300];
    if (c->q[p].n == 0) return 1;
    pto_k__blocked_desc(c, p, why, sizeof why);
    pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s is issued while %s (not modelled: satisfy the wait first)",
                ins->src ? "this instruction" : "?", why);
    return 0;
}

/* ---- the API: one function per instruction ------------------------------------- */

PTO_K_FN pto_k_tile pto_k_t(int space, int dtype, int32_t rows, int32_t cols, int64_t valid_r, int64_t valid_c,
                            int64_t offset)
{
    pto_k_tile t;
    t.space = space;
    t.dtype = dtype;
    t.rows = rows;
    t.cols = cols;
    t.valid_r = valid_r;
    t.valid_c = valid_c;
    t.offset = offset;
    return t;
}

PTO_K_FN pto_k__ins pto_k__mk(int op, int pipe, const char *src)
{
    pto_k__ins i;
    memset(&i, 0, sizeof i);
    i.op = op;
    i.pipe = pipe;
    i.src = src ? src : "?";
    return i;
}

PTO_K_FN void pto_k__tt(pto_k_core *c, const char *src, int op, int pipe, pto_k_tile d, pto_k_tile a, pto_k_tile b,
                        double s)
{
    pto_k__ins i = pto_k__mk(op, pipe, src);
    i.d = d;
    i.a = a;
    i.b = b;
    i.s = s;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_tload(pto_k_core *c, const char *src, pto_k_tile d, pto_k_gm *g, int64_t row, int64_t col)
{
    pto_k__ins i = pto_k__mk(PTO_K__TLOAD, PTO_K_PIPE_MTE2, src);
    i.d = d;
    i.g = g;
    i.r = row;
    i.col = col;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k__store(pto_k_core *c, const char *src, int op, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a)
{
    pto_k__ins i = pto_k__mk(op, a.space == PTO_K_ACC ? PTO_K_PIPE_FIX : PTO_K_PIPE_MTE3, src);
    i.a = a;
    i.g = g;
    i.r = row;
    i.col = col;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_tstore(pto_k_core *c, const char *src, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a)
{
    pto_k__store(c, src, PTO_K__TSTORE, g, row, col, a);
}

PTO_K_FN void pto_k_tstore_add(pto_k_core *c, const char *src, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a)
{
    pto_k__store(c, src, PTO_K__TSTORE_ADD, g, row, col, a);
}

#define PTO_K__BIN_API(name, OP) \
    PTO_K_FN void pto_k_##name(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b) \
    { pto_k__tt(c, src, PTO_K__##OP, PTO_K_PIPE_V, d, a, b, 0.0); }
#define PTO_K__BINS_API(name, OP) \
    PTO_K_FN void pto_k_##name(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s) \
    { pto_k__tt(c, src, PTO_K__##OP, PTO_K_PIPE_V, d, a, a, s); }
#define PTO_K__UN_API(name, OP) \
    PTO_K_FN void pto_k_##name(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a) \
    { pto_k__tt(c, src, PTO_K__##OP, PTO_K_PIPE_V, d, a, a, 0.0); }

PTO_K__BIN_API(tadd, TADD)
PTO_K__BIN_API(tsub, TSUB)
PTO_K__BIN_API(tmul, TMUL)
PTO_K__BIN_API(tdiv, TDIV)
PTO_K__BIN_API(tmax, TMAX)
PTO_K__BIN_API(tmin, TMIN)
PTO_K__BINS_API(tadds, TADDS)
PTO_K__BINS_API(tsubs, TSUBS)
PTO_K__BINS_API(tmuls, TMULS)
PTO_K__BINS_API(tdivs, TDIVS)
PTO_K__BINS_API(tmaxs, TMAXS)
PTO_K__BINS_API(tmins, TMINS)
PTO_K__UN_API(texp, TEXP)
PTO_K__UN_API(tlog, TLOG)
PTO_K__UN_API(tsqrt, TSQRT)
PTO_K__UN_API(trsqrt, TRSQRT)
PTO_K__UN_API(trecip, TRECIP)
PTO_K__UN_API(tabs, TABS)
PTO_K__UN_API(tneg, TNEG)
PTO_K__UN_API(trelu, TRELU)
PTO_K__UN_API(trowsum, TROWSUM)
PTO_K__UN_API(trowmax, TROWMAX)
PTO_K__UN_API(trowmin, TROWMIN)
PTO_K__BIN_API(trowexpandadd, TROWEXPANDADD)
PTO_K__BIN_API(trowexpandsub, TROWEXPANDSUB)
PTO_K__BIN_API(trowexpandmul, TROWEXPANDMUL)
PTO_K__BIN_API(trowexpanddiv, TROWEXPANDDIV)
PTO_K__UN_API(tcolsum, TCOLSUM)
PTO_K__UN_API(tcolmax, TCOLMAX)
PTO_K__UN_API(tcolmin, TCOLMIN)
PTO_K__BIN_API(tcolexpandadd, TCOLEXPANDADD)
PTO_K__BIN_API(tcolexpandsub, TCOLEXPANDSUB)
PTO_K__BIN_API(tcolexpandmul, TCOLEXPANDMUL)
PTO_K__BIN_API(tcolexpanddiv, TCOLEXPANDDIV)
PTO_K__UN_API(tcvt, TCVT)
PTO_K__UN_API(ttrans, TTRANS)

PTO_K_FN void pto_k_texpands(pto_k_core *c, const char *src, pto_k_tile d, double s)
{
    pto_k__tt(c, src, PTO_K__TEXPANDS, PTO_K_PIPE_V, d, d, d, s);
}

PTO_K_FN void pto_k_tmov(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a)
{
    int p = pto_k__mov_pipe(d.space, a.space);
    pto_k__tt(c, src, PTO_K__TMOV, p < 0 ? PTO_K_PIPE_V : p, d, a, a, 0.0);
}

PTO_K_FN void pto_k_textract(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, int64_t row, int64_t col)
{
    pto_k__ins i = pto_k__mk(PTO_K__TEXTRACT, PTO_K_PIPE_MTE1, src);
    i.d = d;
    i.a = a;
    i.r = row;
    i.col = col;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_tmatmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b)
{
    pto_k__tt(c, src, PTO_K__TMATMUL, PTO_K_PIPE_M, d, a, b, 0.0);
}

PTO_K_FN void pto_k_tmatmul_acc(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b)
{
    pto_k__tt(c, src, PTO_K__TMATMUL_ACC, PTO_K_PIPE_M, d, a, b, 0.0);
}

PTO_K_FN void pto_k__flagop(pto_k_core *c, const char *src, int op, int sp, int dp, int id)
{
    pto_k__ins i = pto_k__mk(op, op == PTO_K__SET_FLAG ? sp : dp, src);
    i.p0 = sp;
    i.p1 = dp;
    i.id = id;
    if (c->dead) {
        /* after a scalar stall: a set that would have released it, had the stall come after it */
        const pto_k__ins *w = c->sroot.seq ? &c->sroot : &c->sst;
        if (c->sst.seq && !c->slater && op == PTO_K__SET_FLAG && sp == w->p0 && dp == w->p1 && id == w->id)
            c->slater = src ? src : "?";
        return;
    }
    if (!pto_k__flag_args_ok(c, &i)) return;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_set_flag(pto_k_core *c, const char *src, int src_pipe, int dst_pipe, int id)
{
    pto_k__flagop(c, src, PTO_K__SET_FLAG, src_pipe, dst_pipe, id);
}

PTO_K_FN void pto_k_wait_flag(pto_k_core *c, const char *src, int src_pipe, int dst_pipe, int id)
{
    pto_k__flagop(c, src, PTO_K__WAIT_FLAG, src_pipe, dst_pipe, id);
}

PTO_K_FN void pto_k_pipe_barrier(pto_k_core *c, const char *src, int pipe)
{
    pto_k__ins i = pto_k__mk(PTO_K__PIPE_BARRIER, pipe, src);
    i.p0 = pipe;
    if (c->dead) return;
    if (pipe < 0 || pipe > PTO_K_PIPE_ALL) {
        pto_k__ierr(c, &i, PTO_K_E_USAGE, "pipe_barrier: no pipe %d", pipe);
        return;
    }
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_tdecl(pto_k_core *c, const char *src, pto_k_tile t)
{
    pto_k__ins i = pto_k__mk(PTO_K__TDECL, PTO_K_PIPE_S, src);
    pto_k__shadow *sh;
    int64_t b, e, gi;
    unsigned all = PTO_K__M(PTO_K_VEC) | PTO_K__M(PTO_K_MAT) | PTO_K__M(PTO_K_LEFT) | PTO_K__M(PTO_K_RIGHT) |
                   PTO_K__M(PTO_K_ACC) | PTO_K__M(PTO_K_BIAS) | PTO_K__M(PTO_K_SCALING);
    if (c->dead || !pto_k__tile_ok(c, &i, t, all, "declared")) return;
    i.seq = ++c->seq;
    sh = pto_k__local_shadow(c, t.space);
    for (b = t.offset, e = t.offset + pto_k__tbytes(t); sh->g && b < e && b / PTO_K__GRAN < sh->n;) {
        int64_t base = (gi = b / PTO_K__GRAN) * PTO_K__GRAN, to = base + PTO_K__GRAN < e ? base + PTO_K__GRAN : e;
        sh->g[gi].init &= ~pto_k__byte_mask(b - base, to - base);
        sh->g[gi].decl = i.seq;
        sh->g[gi].dsrc = src;
        b = to;
    }
}

/* ---- builtins ---------------------------------------------------------------- */

PTO_K_FN pto_k_gm *pto_k_arg_gm(const int64_t *args, int i) { return (pto_k_gm *)(intptr_t)args[i]; }
PTO_K_FN double pto_k_arg_f(const int64_t *args, int i)
{
    double d;
    memcpy(&d, &args[i], sizeof d);
    return d;
}
/* A scalar param of dtype f16 / bf16: the runtime passes a float (an f32
   in the slot on the device) and the kernel holds it in its own dtype, as
   the reference does (review23 L2: 0.1 stayed 0.1 instead of f16's
   0.0999755859375). */
PTO_K_FN double pto_k_arg_h(const int64_t *args, int i, int dtype)
{
    return (double)pto_scalar_as(dtype, pto_k_arg_f(args, i));
}
PTO_K_FN int64_t pto_k_arg_i(const int64_t *args, int i) { return args[i]; }
PTO_K_FN int64_t pto_k_gm_rows(const pto_k_gm *g) { return g ? g->rows : 0; }
PTO_K_FN int64_t pto_k_gm_cols(const pto_k_gm *g) { return g ? g->cols : 0; }
PTO_K_FN int64_t pto_k_block_idx(const pto_k_core *c) { return c->block; }
PTO_K_FN int64_t pto_k_block_num(const pto_k_core *c) { return c->block_num; }
PTO_K_FN int64_t pto_k_subblock(const pto_k_core *c) { return c->subblock; }
PTO_K_FN int64_t pto_k_rank(const pto_k_core *c) { return c->rank; }
PTO_K_FN int64_t pto_k_nranks(const pto_k_core *c) { return c->dev->desc.nranks > 0 ? c->dev->desc.nranks : 1; }
PTO_K_FN int pto_k_core_kind(const pto_k_core *c) { return c->kind; }
PTO_K_FN int pto_k_arch(const pto_k_core *c) { return c->dev->desc.arch; }
PTO_K_FN int64_t pto_k_next(int64_t i, int64_t step, int64_t end)
{
    return (uint64_t)end - (uint64_t)i > (uint64_t)step ? i + step : end;
}
PTO_K_FN int64_t pto_k_iter_mod(int64_t i, int64_t start, int64_t step, int64_t n)
{
    if (step <= 0 || n <= 0) return 0;   /* (never in an emitted loop's body) */
    return (int64_t)(((uint64_t)i - (uint64_t)start) / (uint64_t)step % (uint64_t)n);
}

/* The compilers' overflow builtins where they exist (gcc 5+, clang: one
   flag test), else the portable tests; -DPTO_K__OVF_BUILTIN=0 forces the
   portable ones (tcc has no builtins; the tests build both). */
#ifndef PTO_K__OVF_BUILTIN
#if defined(__has_builtin) && !defined(__TINYC__)
#if __has_builtin(__builtin_mul_overflow)
#define PTO_K__OVF_BUILTIN 1
#endif
#elif defined(__GNUC__) && __GNUC__ >= 5 && !defined(__TINYC__)
#define PTO_K__OVF_BUILTIN 1
#endif
#endif
#ifndef PTO_K__OVF_BUILTIN
#define PTO_K__OVF_BUILTIN 0
#endif

/* a + b (op '+'), a - b ('-') or a * b ('*') into *r: 0, or 1 when the
   exact value leaves int64 (*r is then not the value). */
PTO_K_FN int pto_k__ovf(int op, int64_t a, int64_t b, int64_t *r)
{
#if PTO_K__OVF_BUILTIN
    if (op == '+') return __builtin_add_overflow(a, b, r);
    if (op == '-') return __builtin_sub_overflow(a, b, r);
    return __builtin_mul_overflow(a, b, r);
#else
    uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a, ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    int neg = (a < 0) != (b < 0);
    *r = 0;
    if (op == '+') {
        if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 1;
        *r = a + b;
        return 0;
    }
    if (op == '-') {
        if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return 1;
        *r = a - b;
        return 0;
    }
    if (!ua || !ub) return 0;
    if (ua > ((uint64_t)INT64_MAX + (uint64_t)neg) / ub) return 1;   /* |a * b| past 2^63 - 1 (2^63 when negative) */
    *r = !neg ? (int64_t)(ua * ub) : ua * ub == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)(ua * ub);
    return 0;
#endif
}

/* The report of pto_k_iadd ...: once, then every core leaves its kernel
   function (pto_k__tick's way out) and the launch's end checks are
   skipped: what follows a wrong index would be noise. */
PTO_K_FN void pto_k__overflow(pto_k_core *c, const char *src, const char *what)
{
    pto_k_device *dev = c->dev;
    char who[64];
    if (!dev->stopped) {
        pto_k__core_name(c, who, sizeof who);
        pto_k__err(dev, PTO_K_E_OVERFLOW, "%s: error: integer overflow in expression: %s leaves int64 (%s); the "
                   "launch stopped here", src ? src : "?", what, who);
        dev->stopped = 1;
    }
    longjmp(c->stop, 1);
}

PTO_K_FN int64_t pto_k__ick(pto_k_core *c, const char *src, int op, int64_t a, int64_t b)
{
    char what[80];
    int64_t r;
    if (!pto_k__ovf(op, a, b, &r)) return r;
    snprintf(what, sizeof what, b < 0 ? "%lld %c (%lld)" : "%lld %c %lld", (long long)a, op, (long long)b);
    pto_k__overflow(c, src, what);
    return 0;
}
PTO_K_FN int64_t pto_k_iadd(pto_k_core *c, const char *src, int64_t a, int64_t b) { return pto_k__ick(c, src, '+', a, b); }
PTO_K_FN int64_t pto_k_isub(pto_k_core *c, const char *src, int64_t a, int64_t b) { return pto_k__ick(c, src, '-', a, b); }
PTO_K_FN int64_t pto_k_imul(pto_k_core *c, const char *src, int64_t a, int64_t b) { return pto_k__ick(c, src, '*', a, b); }
PTO_K_FN int64_t pto_k_ineg(pto_k_core *c, const char *src, int64_t a)
{
    if (a == INT64_MIN) pto_k__overflow(c, src, "-(-9223372036854775808)");
    return -a;
}
/* ---- End file: src/kern/ops.h ---- */

/* ---- Begin file: src/kern/mix.h ---- */
/* mix.h - what crosses cores: cross-core flags in a cluster, the cube <->
   vector slot rings (TPUSH / TPOP / TFREE, hardware.md section 5) and the
   rank signals (notify / wait, hardware.md section 8).

   Each of these is a blocking point of the scheduler: a wait that is not yet
   satisfied blocks the core (its scalar unit stalls) and passes the baton; a
   signal that may release another core yields, so that different seeds try
   different interleavings. A satisfied wait joins the publisher's vector
   clock into every pipe of the waiting core and starts no earlier than the
   publisher's time plus the cross-core latency. Which publisher is fixed
   by the program, never by the interleaving (joining whatever ran last
   would make cycles depend on the seed and hide races):

   Cross-core flags. Each set is kept as its own record in a queue per
   (direction, subblock, id); the k-th wait takes the k-th set of its
   source core (the AIC's wait: the k-th of each AIV).

   Ring model. A ring has per-direction counters: pushed, popped, released
   and freed per taking-part core. The producer may push slot n when n -
   released < slot num (released counts slots every consumer has handed
   back: on a2a3 at the end of the pop's load, as pto-isa's TPOP sends the
   free credit itself and TFREE is empty; on a5 at the tfree); a consumer pops slot i
   when every producer has pushed it. The consumer's local copy of slot i is
   at base + (i % local_slot_num) * (bytes of the popped tile: half the slot
   on an AIV of a split pipe), so popping while
   local_slot_num slots are popped and not yet freed would overwrite data in
   use: that is reported (a missing TFREE), as is a producer that waits
   forever on a full ring. Split modes: C2V UP_DOWN / LEFT_RIGHT give AIV s
   the s-th half of the cube tile; C2V NONE gives each AIV the whole tile;
   V2C UP_DOWN / LEFT_RIGHT make each AIV push its half; V2C NONE has only
   AIV 0 push.
   Ring time and order are per slot: push n joins the releases of push
   n - slot_num (every consumer's; nothing if n < slot_num), pop n joins
   push n (every producer's). Whichever core the seed ran first, these are
   the same events, so a race-free kernel's cycles do not depend on the
   seed; joining whatever tfree ran last would (and would hide races).

   Signals. A wait is a condition on a cell, not an event: which notify
   meets it depends on when each lands. Every notify is kept in the cell's
   history at the simulated time it lands (its end + the latency; ties by
   core, then program order), and a wait that starts polling at t0 returns
   at the first time >= t0 when the history meets its condition, ordered
   after the write that met it (and, for an atomic add, the writes that add
   read, back to the latest set). The scheduler releases the wait only when
   no write still to come can land before that time, so the history it
   reads is complete there. A wait whose condition a later write, which
   nothing orders after the wait, would break (EQ on a counter a fast peer
   moves on) returned here only because it polled in time; it is reported
   at the end of the launch as a wait that may never return. The cell's
   bytes in GM still change in the order the cores ran (what a tload of it
   would see). */

/* ---- cross-core flags -------------------------------------------------------- */

typedef struct pto_k__xwait {
    int id;
} pto_k__xwait;

PTO_K_FN pto_k__cluster *pto_k__cl(pto_k_core *c) { return &c->dev->clusters[c->cluster]; }

PTO_K_FN int pto_k__xready(pto_k_core *c, const void *arg)
{
    const pto_k__xwait *w = (const pto_k__xwait *)arg;
    pto_k__cluster *cl = pto_k__cl(c);
    if (c->kind == PTO_K_CORE_VECTOR) return cl->cnt[0][c->subblock][w->id] > 0;
    return cl->cnt[1][0][w->id] > 0 && cl->cnt[1][1][w->id] > 0;
}

PTO_K_FN void pto_k__xdesc(pto_k_core *c, const void *arg, char *out, size_t n)
{
    const pto_k__xwait *w = (const pto_k__xwait *)arg;
    pto_k__cluster *cl = pto_k__cl(c);
    if (c->kind == PTO_K_CORE_VECTOR)
        snprintf(out, n, "cross-core wait on flag %d can never be satisfied: the AIC never sets it", w->id);
    else
        snprintf(out, n, "cross-core wait on flag %d can never be satisfied: it needs a set from both AIVs (aiv0 has %d, aiv1 has %d pending)",
                 w->id, cl->cnt[1][0][w->id], cl->cnt[1][1][w->id]);
}

PTO_K_FN int pto_k__xargs_ok(pto_k_core *c, const pto_k__ins *ins, int pipe, int id)
{
    if (pipe < 0 || pipe >= PTO_K_PIPE_ALL || id < 0 || id >= PTO_K_NCROSS) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: needs a pipe S..FIX and a flag id in 0..15", ins->src ? "cross flag" : "?");
        return 0;
    }
    if (c->dev->desc.arch == PTO_K_A2A3 && id >= 11 && id <= 14) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "cross-core flag id %d is reserved for all-core sync on a2a3 (ids 11..14)", id);
        return 0;
    }
    if (c->dev->ld->kind != PTO_K_KIND_MIX) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "cross-core flags need a mix kernel");
        return 0;
    }
    return pto_k__pipe_free(c, ins, pipe);
}

/* The pending set k places after the oldest (0 = the one a wait takes next). */
PTO_K_FN pto_k__sync *pto_k__xpending(pto_k_core *c, int dir, int sub, int id, int k)
{
    pto_k__cluster *cl = pto_k__cl(c);
    if (!cl->xq[dir][sub][id]) {
        cl->xq[dir][sub][id] = (pto_k__sync *)calloc(PTO_K__XDEPTH, sizeof(pto_k__sync));
        if (!cl->xq[dir][sub][id]) {
            c->dev->oom = 1;
            return NULL;
        }
    }
    return &cl->xq[dir][sub][id][(cl->head[dir][sub][id] + k) % PTO_K__XDEPTH];
}

/* Each set is its own record, and a wait joins the oldest pending one: the
   counter pairs the k-th wait with the k-th set of its source core, whatever
   order the cores ran in (merging every set into one record would let the
   k-th wait see the time and clock of a later set). */
PTO_K_FN void pto_k_cross_set(pto_k_core *c, const char *src, int pipe, int id)
{
    pto_k__ins ins = pto_k__mk(PTO_K__SET_FLAG, pipe, src);
    pto_k__cluster *cl;
    pto_k__sync *e;
    int s;
    int64_t t;
    if (c->dead || !pto_k__xargs_ok(c, &ins, pipe, id)) return;
    cl = pto_k__cl(c);
    t = c->free_at[pipe] > c->disp ? c->free_at[pipe] : c->disp;
    c->disp++;
    for (s = 0; s < 2; s++) {
        int dir = c->kind == PTO_K_CORE_CUBE ? 0 : 1;
        int sub = c->kind == PTO_K_CORE_CUBE ? s : (int)c->subblock;
        if (c->kind != PTO_K_CORE_CUBE && s == 1) break;
        if (++cl->cnt[dir][sub][id] > 15) {
            pto_k__ierr(c, &ins, PTO_K_E_USAGE, "cross-core flag %d overflows its 4-bit counter (16 sets not waited for)", id);
            cl->cnt[dir][sub][id] = 15;
        }
        e = pto_k__xpending(c, dir, sub, id, cl->cnt[dir][sub][id] - 1);
        if (!e) continue;
        if (e->vc) memset(e->vc, 0, sizeof(uint32_t) * (size_t)c->dev->ngp);
        e->time = 0;
        pto_k__publish(c, pipe, e, t, src);
    }
    pto_k__yield(c);
}

/* Takes the oldest pending set of (dir, sub, id) and joins it. */
PTO_K_FN void pto_k__xtake(pto_k_core *c, int dir, int sub, int id, const char *src)
{
    pto_k__cluster *cl = pto_k__cl(c);
    pto_k__sync *e = pto_k__xpending(c, dir, sub, id, 0);
    cl->cnt[dir][sub][id]--;
    cl->head[dir][sub][id] = (cl->head[dir][sub][id] + 1) % PTO_K__XDEPTH;
    if (e) pto_k__join_all(c, e, PTO_K__XLAT, src, PTO_K_WAIT_CROSS);
}

PTO_K_FN void pto_k_cross_wait(pto_k_core *c, const char *src, int pipe, int id)
{
    pto_k__ins ins = pto_k__mk(PTO_K__WAIT_FLAG, pipe, src);
    pto_k__xwait xw;
    pto_k__waiter w;
    if (c->dead || !pto_k__xargs_ok(c, &ins, pipe, id)) return;
    xw.id = id;
    memset(&w, 0, sizeof w);
    w.ready = pto_k__xready;
    w.describe = pto_k__xdesc;
    w.arg = &xw;
    w.src = src;
    pto_k__block(c, &w);
    if (c->dead) return;
    if (c->kind == PTO_K_CORE_VECTOR) {
        pto_k__xtake(c, 0, (int)c->subblock, id, src);
    } else {
        pto_k__xtake(c, 1, 0, id, src);
        pto_k__xtake(c, 1, 1, id, src);
    }
}

/* ---- rings -------------------------------------------------------------------- */

PTO_K_FN const char *pto_k__dir_name(int d) { return d == 1 ? "C2V" : d == 2 ? "V2C" : d == 3 ? "BOTH" : "?"; }

PTO_K_FN int pto_k__role_bit(const pto_k_core *c) { return c->kind == PTO_K_CORE_CUBE ? 1 : 2 << c->subblock; }

PTO_K_FN pto_k__ring *pto_k__ring_get(pto_k_core *c, const pto_k__ins *ins, int ring)
{
    pto_k__ring *rg;
    if (ring < 0 || ring >= PTO_K_NRING || c->dev->ld->kind != PTO_K_KIND_MIX) {
        pto_k__ierr(c, ins, PTO_K_E_RING, "ring %d: rings need a mix kernel and an id in 0..7", ring);
        return NULL;
    }
    rg = &pto_k__cl(c)->ring[ring];
    if (!(rg->inited & pto_k__role_bit(c))) {
        pto_k__ierr(c, ins, PTO_K_E_RING, "ring %d is used before this core called ring_init", ring);
        return NULL;
    }
    return rg;
}

PTO_K_FN void pto_k_ring_init(pto_k_core *c, const char *src, int ring, int dir, int32_t slot_size, int32_t slot_num,
                              int32_t local_slot_num, int flag_id, int split, pto_k_gm *buf, int64_t buf_offset)
{
    pto_k__ins ins = pto_k__mk(PTO_K__SET_FLAG, PTO_K_PIPE_S, src);
    pto_k__ring *rg;
    int maxl, nflag, k;
    char mine[200], theirs[200], who[64];
    if (c->dead) return;
    if (ring < 0 || ring >= PTO_K_NRING || c->dev->ld->kind != PTO_K_KIND_MIX || dir < 1 || dir > 3 ||
        split < 0 || split > 2 || slot_size <= 0 || slot_size % PTO_K__GRAN) {
        pto_k__ierr(c, &ins, PTO_K_E_RING,
                    "ring_init %d: needs a mix kernel, a ring id in 0..7, a direction C2V/V2C/BOTH, a split mode and a slot size that is a positive multiple of 32",
                    ring);
        return;
    }
    /* normalise: leaving a count out means its default */
    if (slot_num == 0) slot_num = dir == PTO_K_BOTH ? 4 : 8;
    if (local_slot_num == 0) local_slot_num = 2;
    maxl = dir == PTO_K_BOTH ? 4 : 8;
    /* each push sets the ring's data-ready flag, which the pops wait for, and a
       cross-core counter has 4 bits: with more than 15 slots the producer can be 16
       sets ahead (the verifier's rule for slots(N); a hand edit meets it here) */
    if (slot_num > PTO_K__XDEPTH - 1) {
        pto_k__ierr(c, &ins, PTO_K_E_RING,
                    "ring_init %d: slot_num %d is more than %d: each push sets a cross-core flag that the pops wait "
                    "for, and its counter has 4 bits, so at most %d pushes may be ahead of the pops",
                    ring, (int)slot_num, PTO_K__XDEPTH - 1, PTO_K__XDEPTH - 1);
        return;
    }
    if (slot_num < 0 || local_slot_num <= 0 || local_slot_num > slot_num || local_slot_num > maxl) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "ring_init %d: local_slot_num %d must be > 0, <= slot_num %d and <= %d for %s",
                    ring, (int)local_slot_num, (int)slot_num, maxl, pto_k__dir_name(dir));
        return;
    }
    nflag = dir == PTO_K_BOTH ? 4 : 2;
    if (flag_id < 0 || flag_id + nflag > PTO_K_NCROSS ||
        (c->dev->desc.arch == PTO_K_A2A3 && flag_id <= 14 && flag_id + nflag - 1 >= 11)) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "ring_init %d: flag ids %d..%d must lie in 0..15%s", ring, flag_id,
                    flag_id + nflag - 1, c->dev->desc.arch == PTO_K_A2A3 ? " outside the reserved 11..14" : "");
        return;
    }
    if (buf && (buf_offset < 0 || buf_offset % PTO_K__GRAN ||
                buf_offset + (int64_t)(dir == PTO_K_BOTH ? 2 : 1) * slot_num * slot_size >
                    buf->rows * buf->cols * pto_k__dsize(buf->dtype))) {
        pto_k__ierr(c, &ins, PTO_K_E_BOUNDS, "ring_init %d: %d slot%s of %d bytes at byte %lld do not fit GM buffer '%s'",
                    ring, (int)((dir == PTO_K_BOTH ? 2 : 1) * slot_num), dir != PTO_K_BOTH && slot_num == 1 ? "" : "s",
                    (int)slot_size, (long long)buf_offset,
                    buf->name ? buf->name : "?");
        return;
    }
    rg = &pto_k__cl(c)->ring[ring];
    snprintf(mine, sizeof mine, "dir %s, slot_size %d, slot_num %d, local_slot_num %d, flag_id %d, split %d, buffer %s+%lld",
             pto_k__dir_name(dir), (int)slot_size, (int)slot_num, (int)local_slot_num, flag_id, split,
             buf ? (buf->name ? buf->name : "?") : "none", (long long)buf_offset);
    if (rg->inited) {
        snprintf(theirs, sizeof theirs, "dir %s, slot_size %d, slot_num %d, local_slot_num %d, flag_id %d, split %d, buffer %s+%lld",
                 pto_k__dir_name(rg->dir), (int)rg->slot_size, (int)rg->slot_num, (int)rg->local_slot_num,
                 rg->flag_id, rg->split, rg->buf ? (rg->buf->name ? rg->buf->name : "?") : "none",
                 (long long)rg->buf_offset);
        if (strcmp(mine, theirs) != 0) {
            pto_k__core_name(&c->dev->cores[rg->init_core], who, sizeof who);
            pto_k__ierr(c, &ins, PTO_K_E_RING, "ring %d initialised here as (%s) but %s at \"%s\" initialised it as (%s)",
                        ring, mine, who, rg->init_src, theirs);
        }
        rg->inited |= pto_k__role_bit(c);
        return;
    }
    rg->dir = dir;
    rg->split = split;
    rg->flag_id = flag_id;
    rg->slot_size = slot_size;
    rg->slot_num = slot_num;
    rg->local_slot_num = local_slot_num;
    rg->init_src = src;
    rg->init_core = c->index;
    rg->buf = buf;
    rg->buf_offset = buf_offset;
    if (!buf) {
        rg->own = (unsigned char *)calloc((size_t)(2 * slot_num), (size_t)slot_size);
        if (!rg->own) c->dev->oom = 1;
    }
    for (k = 0; k < 2; k++) {
        pto_k__ring1 *r1 = &rg->d[k];
        r1->used = (dir & (1 << k)) != 0;
        r1->slot = (pto_k__sync *)calloc((size_t)slot_num, sizeof *r1->slot);
        r1->freeslot = (pto_k__sync *)calloc((size_t)slot_num, sizeof *r1->freeslot);
        r1->slot_dtype = (int *)calloc((size_t)slot_num, sizeof(int));
        r1->slot_rows = (int32_t *)calloc((size_t)slot_num, sizeof(int32_t));
        r1->slot_cols = (int32_t *)calloc((size_t)slot_num, sizeof(int32_t));
        if (!r1->slot || !r1->freeslot || !r1->slot_dtype || !r1->slot_rows || !r1->slot_cols) c->dev->oom = 1;
    }
    rg->inited |= pto_k__role_bit(c);
}

/* Slots every consumer has released to the producer / every producer has pushed. */
PTO_K_FN int64_t pto_k__released(const pto_k__ring *rg, int k)
{
    const pto_k__ring1 *r1 = &rg->d[k];
    if (k == 1) return r1->released[0];
    return r1->released[0] < r1->released[1] ? r1->released[0] : r1->released[1]; /* both AIVs consume C2V */
}

PTO_K_FN int64_t pto_k__pushed(const pto_k__ring *rg, int k)
{
    const pto_k__ring1 *r1 = &rg->d[k];
    if (k == 0 || rg->split == PTO_K_SPLIT_NONE) return r1->pushed[0];
    return r1->pushed[0] < r1->pushed[1] ? r1->pushed[0] : r1->pushed[1];
}

typedef struct pto_k__rwait {
    pto_k__ring *rg;
    int ring, k, me;
} pto_k__rwait;

PTO_K_FN int pto_k__push_ready(pto_k_core *c, const void *arg)
{
    const pto_k__rwait *w = (const pto_k__rwait *)arg;
    (void)c;
    return w->rg->d[w->k].pushed[w->me] - pto_k__released(w->rg, w->k) < w->rg->slot_num;
}

PTO_K_FN void pto_k__push_desc(pto_k_core *c, const void *arg, char *out, size_t n)
{
    const pto_k__rwait *w = (const pto_k__rwait *)arg;
    const pto_k__ring1 *r1 = &w->rg->d[w->k];
    int a2a3 = c->dev->desc.arch == PTO_K_A2A3;
    snprintf(out, n,
             "tpush on ring %d (%s) waits for a free slot forever: %s %d slot%s hold%s data (pushed %lld, %s %lld); "
             "the consumer popped %lld %s",
             w->ring, w->k == 0 ? "C2V" : "V2C", w->rg->slot_num == 1 ? "its" : "all", (int)w->rg->slot_num,
             w->rg->slot_num == 1 ? "" : "s", w->rg->slot_num == 1 ? "s" : "", (long long)r1->pushed[w->me],
             a2a3 ? "released" : "freed", (long long)pto_k__released(w->rg, w->k),
             (long long)(w->k == 0 && r1->popped[1] < r1->popped[0] ? r1->popped[1] : r1->popped[0]),
             a2a3 ? "and pops no more (on a2a3 each tpop releases its slot)" : "but never freed them (missing TFREE?)");
}

PTO_K_FN int pto_k__pop_ready(pto_k_core *c, const void *arg)
{
    const pto_k__rwait *w = (const pto_k__rwait *)arg;
    (void)c;
    return pto_k__pushed(w->rg, w->k) > w->rg->d[w->k].popped[w->me];
}

PTO_K_FN void pto_k__pop_desc(pto_k_core *c, const void *arg, char *out, size_t n)
{
    const pto_k__rwait *w = (const pto_k__rwait *)arg;
    const pto_k__ring1 *r1 = &w->rg->d[w->k];
    (void)c;
    if (w->k == 1 && w->rg->split != PTO_K_SPLIT_NONE && r1->pushed[0] != r1->pushed[1]) {
        /* a split V2C slot is whole when both vector cores pushed their half */
        int lag = r1->pushed[0] < r1->pushed[1] ? 0 : 1;
        snprintf(out, n, "tpop on ring %d (V2C, split) waits for slot %lld, whose half from AIV %d is never pushed "
                 "(AIV 0 pushed %lld, AIV 1 %lld: each pushes its half of every slot)", w->ring,
                 (long long)r1->popped[w->me], lag, (long long)r1->pushed[0], (long long)r1->pushed[1]);
        return;
    }
    snprintf(out, n, "tpop on ring %d (%s) waits for slot %lld, which is never pushed (the producer pushed %lld)", w->ring,
             w->k == 0 ? "C2V" : "V2C", (long long)r1->popped[w->me], (long long)pto_k__pushed(w->rg, w->k));
}

/* Byte offset of the slot for count n of direction k. */
PTO_K_FN int64_t pto_k__slot_at(const pto_k__ring *rg, int k, int64_t n)
{
    int64_t base = (rg->dir == PTO_K_BOTH && k == 1) ? rg->slot_num : 0;
    return (base + n % rg->slot_num) * rg->slot_size;
}

PTO_K_FN unsigned char *pto_k__slot_mem(pto_k__ring *rg, int64_t off)
{
    return rg->buf ? (unsigned char *)rg->buf->data + rg->buf_offset + off : rg->own + off;
}

/* This core's part of a slot tile of shape [R, C] (full): row/col origin. */
PTO_K_FN void pto_k__part(const pto_k__ring *rg, const pto_k_core *c, int32_t prows, int32_t pcols, int32_t *R,
                          int32_t *C, int64_t *r0, int64_t *c0)
{
    *R = prows, *C = pcols, *r0 = 0, *c0 = 0;
    if (c->kind == PTO_K_CORE_CUBE || rg->split == PTO_K_SPLIT_NONE) return;
    if (rg->split == PTO_K_SPLIT_UP_DOWN) {
        *R = prows * 2;
        *r0 = c->subblock * prows;
    } else {
        *C = pcols * 2;
        *c0 = c->subblock * pcols;
    }
}

PTO_K_FN void pto_k__slot_acc(pto_k__check *k, pto_k__ring *rg, int ring, int64_t off, int es, int32_t C, int64_t r0,
                              int64_t c0, int32_t nr, int32_t nc, int kind)
{
    int64_t i;
    char what[96];
    pto_k__shadow *sh;
    if (!rg->buf) return;
    sh = pto_k__gm_shadow(k->c->dev, rg->buf);
    for (i = 0; i < nr; i++) {
        int64_t lo = rg->buf_offset + off + ((r0 + i) * C + c0) * es;
        pto_k__access(k, sh, lo, lo + (int64_t)nc * es, kind, 1);
    }
    snprintf(what, sizeof what, "gm %s (ring %d)", rg->buf->name ? rg->buf->name : "?", ring);
    pto_k__report_conf(k, kind, what, 1);
}

PTO_K_FN void pto_k_tpush(pto_k_core *c, const char *src, int ring, pto_k_tile a)
{
    int pipe = a.space == PTO_K_ACC ? PTO_K_PIPE_FIX : PTO_K_PIPE_MTE3;
    pto_k__ins ins = pto_k__mk(PTO_K__TSTORE, pipe, src);
    pto_k__ring *rg;
    pto_k__ring1 *r1;
    pto_k__sync *fs;   /* the slot's release: the tfrees of its previous data */
    pto_k__rwait rw;
    pto_k__waiter w;
    pto_k__check k;
    int kd, me, es;
    int32_t R, C;
    int64_t r0, c0, off, n;
    unsigned mask = c->kind == PTO_K_CORE_CUBE ? PTO_K__M(PTO_K_ACC) : PTO_K__M(PTO_K_VEC);
    pto_k__tick(c, src);
    if (c->dead || !(rg = pto_k__ring_get(c, &ins, ring))) return;
    kd = c->kind == PTO_K_CORE_CUBE ? 0 : 1;
    me = c->kind == PTO_K_CORE_CUBE ? 0 : (int)c->subblock;
    r1 = &rg->d[kd];
    if (!r1->used) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpush: ring %d (%s) has no %s direction for this core", ring,
                    pto_k__dir_name(rg->dir), kd == 0 ? "C2V" : "V2C");
        return;
    }
    if (kd == 1 && rg->split == PTO_K_SPLIT_NONE && me == 1) {   /* the slot holds AIV 0's whole tile */
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpush: AIV 1 (subblock 1) pushes into ring %d (\"%s\"), a V2C ring "
                    "with no split: only AIV 0 may push into it; guard the push with `if subblock == 0` (in C: "
                    "pto_k_subblock(core) == 0) or split the pipe", ring, rg->init_src ? rg->init_src : "?");
        return;
    }
    if (!pto_k__tile_ok(c, &ins, a, mask, "source") || !pto_k__pipe_free(c, &ins, pipe)) return;
    pto_k__part(rg, c, a.rows, a.cols, &R, &C, &r0, &c0);
    es = pto_k__dsize(a.dtype);
    if ((int64_t)R * C * es > rg->slot_size) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpush: a [%d, %d] %s tile needs %lld bytes but ring %d slots hold %d", (int)R,
                    (int)C, pto_k__dtype_name(a.dtype), (long long)R * C * es, ring, (int)rg->slot_size);
        return;
    }
    rw.rg = rg, rw.ring = ring, rw.k = kd, rw.me = me;
    memset(&w, 0, sizeof w);
    w.ready = pto_k__push_ready;
    w.describe = pto_k__push_desc;
    w.arg = &rw;
    w.src = src;
    pto_k__block(c, &w);
    if (c->dead) return;
    n = r1->pushed[me];
    /* Wait for this slot's own release: the pops (a2a3) or tfrees (a5) of
       slot n - slot_num. A later release that the interleaving happened to run already is no part
       of this push's condition (it would make time and order depend on the
       seed, and hide races the hardware does not order). */
    fs = &r1->freeslot[n % rg->slot_num];
    if (fs->vc) pto_k__join_all(c, fs, PTO_K__XLAT, src, PTO_K_WAIT_TPUSH);
    ins.disp = c->disp++;
    ins.seq = ++c->seq;
    off = pto_k__slot_at(rg, kd, n);
    pto_k__begin(&k, c, &ins, pipe);
    k.cur.op = ins.name = "tpush";
    pto_k__tacc(&k, a, 0, pto_k__tbytes(a), PTO_K__RD);
    pto_k__init_read(c, &ins, a, a.rows, a.cols, "source");
    pto_k__slot_acc(&k, rg, ring, off, es, C, r0, c0, a.rows, a.cols, PTO_K__WR);
    pto_k__copy(pto_k__slot_mem(rg, off) + (size_t)((r0 * C + c0) * es), a.dtype, C, pto_k__tptr(c, a), a.dtype, a.cols,
                a.rows, a.cols);
    r1->slot_dtype[n % rg->slot_num] = a.dtype;
    r1->slot_rows[n % rg->slot_num] = R;
    r1->slot_cols[n % rg->slot_num] = C;
    pto_k__timed(c, pipe, ins.disp, pto_k__bw_cost((double)pto_k__tbytes(a), pipe == PTO_K_PIPE_FIX ? 40.63 : 109.12),
                 "tpush", src);
    pto_k__publish(c, pipe, &r1->slot[n % rg->slot_num], c->free_at[pipe], src);
    r1->pushed[me]++;
    pto_k__yield(c);
}

/* Hands the consumer's oldest unreleased slot back to the producer: the
   next push into it joins the clock of `pipe` as it stands now. On a2a3
   pto-isa's TPOP does it on MTE2 right after its load (the free credit),
   so what the consumer does with the popped tile afterwards, up to and
   including its tfree, is ordered before no push. On a5 TFREE does it. */
PTO_K_FN void pto_k__release(pto_k_core *c, pto_k__ring1 *r1, int32_t slot_num, int me, int pipe, const char *src)
{
    pto_k__sync *fs = &r1->freeslot[r1->released[me] % slot_num];
    pto_k__publish(c, pipe, fs, c->free_at[pipe], src);
    r1->released[me]++;
}

PTO_K_FN pto_k_tile pto_k_tpop(pto_k_core *c, const char *src, int ring, pto_k_tile base)
{
    pto_k__ins ins = pto_k__mk(PTO_K__TLOAD, PTO_K_PIPE_MTE2, src);
    pto_k__ring *rg;
    pto_k__ring1 *r1;
    pto_k__rwait rw;
    pto_k__waiter w;
    pto_k__check k;
    pto_k_tile t = base;
    int kd, me, sdt, es;
    int32_t R, C;
    int64_t r0, c0, off, n;
    unsigned mask = c->kind == PTO_K_CORE_CUBE ? PTO_K__M(PTO_K_MAT) : PTO_K__M(PTO_K_VEC);
    pto_k__tick(c, src);
    if (c->dead || !(rg = pto_k__ring_get(c, &ins, ring))) return t;
    kd = c->kind == PTO_K_CORE_CUBE ? 1 : 0;
    me = c->kind == PTO_K_CORE_CUBE ? 0 : (int)c->subblock;
    r1 = &rg->d[kd];
    if (!r1->used) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpop: ring %d (%s) has no %s direction", ring, pto_k__dir_name(rg->dir),
                    kd == 0 ? "C2V" : "V2C");
        return t;
    }
    n = r1->popped[me];
    /* as pto-isa's TPOP: local slots step by the popped tile's bytes (half a
       ring slot on an AIV of a split pipe), which is what the planner reserves */
    t.offset = base.offset + (n % rg->local_slot_num) * pto_k__tbytes(base);
    if (!pto_k__tile_ok(c, &ins, t, mask, "destination") || !pto_k__pipe_free(c, &ins, PTO_K_PIPE_MTE2)) return t;
    if (r1->popped[me] - r1->freed[me] >= rg->local_slot_num) {
        pto_k__ierr(c, &ins, PTO_K_E_RING,
                    "tpop of slot %lld on ring %d overwrites local slot %lld, still holding slot %lld popped at \"%s\" and never freed (missing TFREE)",
                    (long long)n, ring, (long long)(n % rg->local_slot_num), (long long)(n - rg->local_slot_num),
                    r1->pop_src[me] ? r1->pop_src[me] : "?");
    }
    rw.rg = rg, rw.ring = ring, rw.k = kd, rw.me = me;
    memset(&w, 0, sizeof w);
    w.ready = pto_k__pop_ready;
    w.describe = pto_k__pop_desc;
    w.arg = &rw;
    w.src = src;
    pto_k__block(c, &w);
    if (c->dead) return t;
    pto_k__join_all(c, &r1->slot[n % rg->slot_num], PTO_K__XLAT, src, PTO_K_WAIT_TPOP);
    ins.disp = c->disp++;
    ins.seq = ++c->seq;
    off = pto_k__slot_at(rg, kd, n);
    sdt = r1->slot_dtype[n % rg->slot_num];
    es = pto_k__dsize(sdt);
    pto_k__part(rg, c, t.rows, t.cols, &R, &C, &r0, &c0);
    if (R != r1->slot_rows[n % rg->slot_num] || C != r1->slot_cols[n % rg->slot_num]) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpop: slot %lld of ring %d holds a [%d, %d] tile, this pop expects [%d, %d]",
                    (long long)n, ring, (int)r1->slot_rows[n % rg->slot_num], (int)r1->slot_cols[n % rg->slot_num],
                    (int)R, (int)C);
        r1->popped[me]++;
        return t;
    }
    pto_k__begin(&k, c, &ins, PTO_K_PIPE_MTE2);
    k.cur.op = ins.name = "tpop";
    pto_k__slot_acc(&k, rg, ring, off, es, C, r0, c0, t.rows, t.cols, PTO_K__RD);
    pto_k__tacc(&k, t, 0, pto_k__tbytes(t), PTO_K__WR);
    pto_k__init_write(c, &ins, t, t.rows, t.cols);
    pto_k__copy(pto_k__tptr(c, t), t.dtype, t.cols, pto_k__slot_mem(rg, off) + (size_t)((r0 * C + c0) * es), sdt, C,
                t.rows, t.cols);
    pto_k__timed(c, PTO_K_PIPE_MTE2, ins.disp,
                 pto_k__bw_cost((double)pto_k__tbytes(t) + (t.space == PTO_K_VEC ? 31334.4 : 0.0),
                                t.space == PTO_K_VEC ? 143.36 : 78.35),
                 "tpop", src);
    if (c->dev->desc.arch == PTO_K_A2A3) pto_k__release(c, r1, rg->slot_num, me, PTO_K_PIPE_MTE2, src);
    r1->popped[me]++;
    r1->pop_src[me] = src;
    if (c->dev->desc.arch == PTO_K_A2A3) pto_k__yield(c);   /* the release may let the producer on */
    return t;
}

PTO_K_FN void pto_k_tfree(pto_k_core *c, const char *src, int ring)
{
    pto_k__ins ins = pto_k__mk(PTO_K__SET_FLAG, PTO_K_PIPE_S, src);
    pto_k__ring *rg;
    pto_k__ring1 *r1;
    pto_k__sync *fs;   /* the slot this core frees */
    int kd, me;
    int64_t t;
    pto_k__tick(c, src);
    if (c->dead || !(rg = pto_k__ring_get(c, &ins, ring))) return;
    kd = c->kind == PTO_K_CORE_CUBE ? 1 : 0;
    me = c->kind == PTO_K_CORE_CUBE ? 0 : (int)c->subblock;
    r1 = &rg->d[kd];
    if (!r1->used || r1->freed[me] >= r1->popped[me]) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tfree on ring %d without a popped slot to free", ring);
        return;
    }
    ins.disp = c->disp++;
    t = pto_k__timed(c, PTO_K_PIPE_S, ins.disp, 1, "tfree", src);
    r1->freed[me]++;   /* the local copy may be refilled by the next pop */
    if (c->dev->desc.arch == PTO_K_A2A3) return;   /* the pop released the GM slot: nothing crosses cores */
    if (c->free_at[PTO_K_PIPE_MTE2] > t) t = c->free_at[PTO_K_PIPE_MTE2];
    /* a5: the freed slot (this core's oldest popped one) was read by the
       pop on MTE2: publish that it is done, on that slot only */
    fs = &r1->freeslot[r1->released[me] % rg->slot_num];
    pto_k__publish(c, PTO_K_PIPE_MTE2, fs, t, src);
    pto_k__publish(c, PTO_K_PIPE_S, fs, t, src);
    r1->released[me]++;
    pto_k__yield(c);
}

/* At the end of a core: popped slots it never freed. */
PTO_K_FN void pto_k__ring_end(pto_k_core *c)
{
    int ring;
    pto_k__cluster *cl;
    if (!c->dev->clusters || c->dev->ld->kind != PTO_K_KIND_MIX) return;
    cl = pto_k__cl(c);
    for (ring = 0; ring < PTO_K_NRING; ring++) {
        pto_k__ring *rg = &cl->ring[ring];
        int kd = c->kind == PTO_K_CORE_CUBE ? 1 : 0, me = c->kind == PTO_K_CORE_CUBE ? 0 : (int)c->subblock;
        pto_k__ring1 *r1 = &rg->d[kd];
        char who[64];
        if (!(rg->inited & pto_k__role_bit(c)) || !r1->used || r1->popped[me] <= r1->freed[me]) continue;
        pto_k__core_name(c, who, sizeof who);
        pto_k__err(c->dev, PTO_K_E_RING,
                   "%s: error: ring %d: %lld popped slot(s) never freed when the kernel ends (missing TFREE after this tpop) (%s)",
                   r1->pop_src[me] ? r1->pop_src[me] : "?", ring, (long long)(r1->popped[me] - r1->freed[me]), who);
    }
}

/* ---- ranks: windows and signals ----------------------------------------------- */

PTO_K_FN pto_k_gm *pto_k_gm_at(pto_k_core *c, const char *src, pto_k_gm *g, int64_t rank)
{
    pto_k__ins ins = pto_k__mk(PTO_K__TLOAD, PTO_K_PIPE_S, src);
    if (!g) return g;
    if (!g->peers) {
        pto_k__ierr(c, &ins, PTO_K_E_USAGE, "'%s' is not a window tensor: no rank can address it", g->name ? g->name : "?");
        return g;
    }
    if (rank < 0 || rank >= g->npeers) {
        pto_k__ierr(c, &ins, PTO_K_E_BOUNDS, "rank %lld of %s@%lld is outside [0, %d)", (long long)rank,
                    g->name ? g->name : "?", (long long)rank, g->npeers);
        c->dev->dropped++;
        return &c->dev->nowhere;   /* the access is dropped (pto_k__nowhere) */
    }
    return g->peers[rank];
}

PTO_K_FN pto_k__signal *pto_k__sig(pto_k_device *dev, pto_k_gm *g, int64_t idx)
{
    int i, cap = dev->capsigs;
    for (i = 0; i < dev->nsigs; i++)
        if (dev->sigs[i].g == g && dev->sigs[i].idx == idx) return &dev->sigs[i];
    dev->sigs = (pto_k__signal *)pto_k__grow(dev, dev->sigs, &cap, dev->nsigs + 1, sizeof *dev->sigs);
    dev->capsigs = cap;
    if (dev->nsigs + 1 > cap) return NULL;
    memset(&dev->sigs[dev->nsigs], 0, sizeof *dev->sigs);
    dev->sigs[dev->nsigs].g = g;
    dev->sigs[dev->nsigs].idx = idx;
    dev->sigs[dev->nsigs].init = ((const int32_t *)g->data)[idx];
    return &dev->sigs[dev->nsigs++];
}

PTO_K_FN int pto_k__sig_ok(pto_k_core *c, const pto_k__ins *ins, pto_k_gm *g, int64_t r, int64_t col)
{
    if (pto_k__nowhere(c, g)) return 0;
    if (!g || g->dtype != PTO_K_I32) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "signals are i32 cells; '%s' is not an i32 tensor", g && g->name ? g->name : "?");
        return 0;
    }
    return pto_k__window_ok(c, ins, g, r, col, 1, 1) && pto_k__pipe_free(c, ins, PTO_K_PIPE_S);
}

PTO_K_FN int pto_k__swrite_before(const pto_k__swrite *a, const pto_k__swrite *b)
{
    if (a->vis != b->vis) return a->vis < b->vis;
    if (a->core != b->core) return a->core < b->core;
    return a->seq < b->seq;
}

/* Adds a write to the cell's history at its place in time. */
PTO_K_FN void pto_k__sig_record(pto_k_core *c, pto_k__signal *s, const pto_k__swrite *nw)
{
    int cap = s->capw, j;
    s->w = (pto_k__swrite *)pto_k__grow(c->dev, s->w, &cap, s->nw + 1, sizeof *s->w);
    s->capw = cap;
    if (s->nw + 1 > cap) {
        free(nw->vc);
        return;
    }
    for (j = s->nw; j > 0 && pto_k__swrite_before(nw, &s->w[j - 1]); j--) s->w[j] = s->w[j - 1];
    s->w[j] = *nw;
    s->w[j].cum = NULL;
    s->nw++;
    if (s->nval > j) s->nval = j;
    if (s->ncum > j) s->ncum = j;
    s->ver++;
}

PTO_K_FN int32_t pto_k__swrite_apply(int32_t v, const pto_k__swrite *w)
{
    return w->add ? (int32_t)((uint32_t)v + (uint32_t)w->value) : w->value;
}

/* The cell's value after write i (i = -1: before any). */
PTO_K_FN int32_t pto_k__sig_value(pto_k__signal *s, int i)
{
    for (; s->nval <= i; s->nval++) {
        int k = s->nval;
        s->w[k].after = pto_k__swrite_apply(k > 0 ? s->w[k - 1].after : s->init, &s->w[k]);
    }
    return i < 0 ? s->init : s->w[i].after;
}

/* What a wait that saw write i is ordered after: the write and, when it is
   an atomic add (which read the value before it), what that value was
   ordered after, back to the latest set. NULL when out of memory. */
PTO_K_FN const uint32_t *pto_k__sig_cum(pto_k_device *dev, pto_k__signal *s, int i)
{
    for (; s->ncum <= i; s->ncum++) {
        pto_k__swrite *x = &s->w[s->ncum];
        if (!x->cum) x->cum = pto_k__vc_new(dev);
        if (!x->cum) return NULL;
        memset(x->cum, 0, sizeof(uint32_t) * (size_t)dev->ngp);
        pto_k__vc_join(dev, x->cum, x->vc);
        if (x->add && s->ncum > 0) pto_k__vc_join(dev, x->cum, s->w[s->ncum - 1].cum);
    }
    return s->w[i].cum;
}

PTO_K_FN void pto_k_notify(pto_k_core *c, const char *src, pto_k_gm *sig, int64_t row, int64_t col, int32_t value, int op)
{
    pto_k__ins ins = pto_k__mk(PTO_K__SET_FLAG, PTO_K_PIPE_S, src);
    const char *name = op == PTO_K_NOTIFY_ADD ? "notify add" : "notify set";
    pto_k__signal *s;
    pto_k__swrite nw;
    pto_k__check k;
    int32_t *cell;
    int64_t t;
    if (c->dead || !pto_k__sig_ok(c, &ins, sig, row, col)) return;
    if (!pto_k__sig(c->dev, sig, row * sig->cols + col)) return;
    pto_k__yield(c); /* any peer may move first */
    ins.disp = c->disp++;
    pto_k__begin(&k, c, &ins, PTO_K_PIPE_S);   /* ticks the scalar clock: the stamp nw.vc carries */
    k.cur.op = name;
    t = pto_k__timed(c, PTO_K_PIPE_S, ins.disp, 1, name, src);
    s = pto_k__sig(c->dev, sig, row * sig->cols + col); /* the yield may have moved dev->sigs */
    memset(&nw, 0, sizeof nw);
    nw.vis = t + PTO_K__XLAT;
    nw.core = c->index;
    nw.seq = c->clk[PTO_K_PIPE_S];
    nw.add = op == PTO_K_NOTIFY_ADD;
    nw.value = value;
    nw.src = src;
    nw.vc = pto_k__vc_new(c->dev);
    if (nw.vc) {
        pto_k__vc_join(c->dev, nw.vc, c->vc[PTO_K_PIPE_S]);
        nw.vc[c->index * 8 + PTO_K_PIPE_S] = c->clk[PTO_K_PIPE_S];
    }
    if (s) pto_k__sig_record(c, s, &nw);
    else free(nw.vc);
    /* The cell is GM bytes like any other: a set is a write, an add an atomic
       add (adds commute, so counting peers need no order among them), both
       on the scalar pipe. A set against an unordered add or set, or either
       against an unordered tload / tstore of the cell, leaves the result to
       whichever lands last: a race, ordered only by a notify -> wait chain
       (a wait joins the clocks of the writes it saw). */
    pto_k__gacc(&k, sig, row, col, 1, 1, op == PTO_K_NOTIFY_ADD ? PTO_K__AT : PTO_K__WR);
    pto_k__mark_written(c, sig, row, col, 1, 1);   /* an out signal is written by notify */
    cell = (int32_t *)sig->data + row * sig->cols + col;
    if (op == PTO_K_NOTIFY_ADD)
        *cell = (int32_t)((uint32_t)*cell + (uint32_t)value);
    else
        *cell = value;
    pto_k__yield(c);
}

typedef struct pto_k__swait {
    pto_k_gm *g;
    int64_t r, col;
    int sig;               /* index into dev->sigs */
    int cmp;
    int32_t value;
    int64_t t0;            /* when the waiting core starts polling */
    uint32_t ver;          /* the history `when` was computed for (+1; 0: none) */
    int64_t when;
    int at;
} pto_k__swait;

PTO_K_FN const char *pto_k__cmp_name(int cmp)
{
    static const char *const n[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    return cmp >= 0 && cmp <= 5 ? n[cmp] : "?";
}

PTO_K_FN int pto_k__cmp_holds(int32_t v, int cmp, int32_t value)
{
    switch (cmp) {
    case PTO_K_EQ: return v == value;
    case PTO_K_NE: return v != value;
    case PTO_K_LT: return v < value;
    case PTO_K_LE: return v <= value;
    case PTO_K_GT: return v > value;
    default: return v >= value;
    }
}

/* When a wait that starts polling at t0 first sees `cell cmp value` in the
   writes known so far (-1: it does not), and the last write it has seen
   then (*at; -1: none). */
PTO_K_FN int64_t pto_k__sig_when(pto_k__signal *s, int64_t t0, int cmp, int32_t value, int *at)
{
    int lo = 0, hi = s->nw, i;
    while (lo < hi) { /* the first write that lands after t0 */
        int mid = lo + (hi - lo) / 2;
        if (s->w[mid].vis <= t0) lo = mid + 1;
        else hi = mid;
    }
    *at = lo - 1;
    if (pto_k__cmp_holds(pto_k__sig_value(s, lo - 1), cmp, value)) return t0;
    for (i = lo; i < s->nw; i++)
        if (pto_k__cmp_holds(pto_k__sig_value(s, i), cmp, value)) {
            *at = i;
            return s->w[i].vis;
        }
    return -1;
}

/* The scheduler asks at every pick: recomputed only when the cell changed. */
PTO_K_FN int64_t pto_k__sig_waiter_when(pto_k_core *c, void *arg)
{
    pto_k__swait *w = (pto_k__swait *)arg;
    pto_k__signal *s = &c->dev->sigs[w->sig];
    if (w->ver != s->ver + 1) {
        w->when = pto_k__sig_when(s, w->t0, w->cmp, w->value, &w->at);
        w->ver = s->ver + 1;
    }
    return w->when;
}

PTO_K_FN void pto_k__sig_desc(pto_k_core *c, const void *arg, char *out, size_t n)
{
    const pto_k__swait *w = (const pto_k__swait *)arg;
    char nm[80];
    pto_k__gm_label(c, w->g, nm, sizeof nm);
    snprintf(out, n, "wait(%s[%lld, %lld] %s %d) can never be satisfied: the cell holds %d and no running core changes it",
             nm, (long long)w->r, (long long)w->col, pto_k__cmp_name(w->cmp), (int)w->value,
             (int)((const int32_t *)w->g->data)[w->r * w->g->cols + w->col]);
}

PTO_K_FN void pto_k__sig_done(pto_k_core *c, const pto_k__swait *sw, int at, int64_t t, const char *src)
{
    pto_k_device *dev = c->dev;
    int cap = dev->capsdone;
    pto_k__sdone *d;
    dev->sdone = (pto_k__sdone *)pto_k__grow(dev, dev->sdone, &cap, dev->nsdone + 1, sizeof *dev->sdone);
    dev->capsdone = cap;
    if (dev->nsdone + 1 > cap) return;
    d = &dev->sdone[dev->nsdone++];
    d->sig = sw->sig, d->at = at, d->core = c->index, d->cmp = sw->cmp, d->value = sw->value;
    d->stamp = c->clk[PTO_K_PIPE_S], d->time = t, d->src = src;
}

/* A wait returns at the first simulated time at or after it starts polling
   when the cell's history meets the condition (the scheduler releases it
   only once no write still to come can land earlier), and is ordered after
   the writes it saw: neither depends on the order the cores ran in. */
PTO_K_FN void pto_k_wait(pto_k_core *c, const char *src, pto_k_gm *sig, int64_t row, int64_t col, int cmp, int32_t value)
{
    pto_k__ins ins = pto_k__mk(PTO_K__WAIT_FLAG, PTO_K_PIPE_S, src);
    pto_k__swait sw;
    pto_k__waiter w;
    pto_k__signal *s;
    int p;
    if (c->dead || !pto_k__sig_ok(c, &ins, sig, row, col)) return;
    if (cmp < 0 || cmp > 5) {
        pto_k__ierr(c, &ins, PTO_K_E_USAGE, "wait: no comparison %d", cmp);
        return;
    }
    s = pto_k__sig(c->dev, sig, row * sig->cols + col);
    if (!s) return;
    memset(&sw, 0, sizeof sw);
    sw.g = sig, sw.r = row, sw.col = col, sw.cmp = cmp, sw.value = value;
    sw.sig = (int)(s - c->dev->sigs);
    sw.t0 = c->free_at[PTO_K_PIPE_S] > c->disp ? c->free_at[PTO_K_PIPE_S] : c->disp;
    memset(&w, 0, sizeof w);
    w.when = pto_k__sig_waiter_when;
    w.describe = pto_k__sig_desc;
    w.arg = &sw;
    w.src = src;
    pto_k__block(c, &w);
    if (c->dead) return;
    s = &c->dev->sigs[sw.sig];
    /* = c->wake, and the same write: every write recorded since lands later */
    if (pto_k__sig_waiter_when(c, &sw) < 0) return;
    ins.disp = c->disp++;
    pto_k__stall(c, PTO_K_PIPE_S, PTO_K_WAIT_SIGNAL, sw.t0, sw.when, src);
    pto_k__join_at(c, sw.at >= 0 ? pto_k__sig_cum(c->dev, s, sw.at) : NULL, sw.when, src, PTO_K_WAIT_SIGNAL);
    /* the scalar unit stalled: everything c issues later is after the wait */
    c->clk[PTO_K_PIPE_S]++;
    for (p = 0; p < PTO_K_PIPE_ALL; p++)
        if (c->vc[p]) c->vc[p][c->index * 8 + PTO_K_PIPE_S] = c->clk[PTO_K_PIPE_S];
    pto_k__sig_done(c, &sw, sw.at, sw.when, src);
    pto_k__timed(c, PTO_K_PIPE_S, c->disp, 1, "wait", src);
}

/* Could a later write undo what wait d saw before it polls? The writes
   after the one it saw, one at a time, that nothing orders after the wait
   (on hardware they may land first): if one of them, applied to the value
   the wait saw, breaks the condition, a wait that polls a little later
   than here never returns. Typical: EQ on a counter that a fast peer moves
   on (wait for GE instead). Returns the index of such a write, or -1. Once
   a core has made a write ordered after the wait, its later writes are too
   (program order): the scan stops when every writer of the cell has. */
PTO_K_FN int pto_k__sig_undone(pto_k__signal *s, const pto_k__sdone *d, unsigned char *after,
                               int nwriters)
{
    int32_t v = pto_k__sig_value(s, d->at);
    int j, nafter = 0, hit = -1;
    for (j = d->at + 1; j < s->nw && nafter < nwriters && hit < 0; j++) {
        const pto_k__swrite *x = &s->w[j];
        if (after[x->core]) continue;
        if (x->vc && x->vc[d->core * 8 + PTO_K_PIPE_S] >= d->stamp) {
            after[x->core] = 1;
            nafter++;
        } else if (!pto_k__cmp_holds(pto_k__swrite_apply(v, x), d->cmp, d->value)) {
            hit = j;
        }
    }
    for (j = d->at + 1; j < s->nw; j++) after[s->w[j].core] = 0;
    return hit;
}

/* Waits in simulated time (the order they ran in is the seed's). */
PTO_K_FN int pto_k__sdone_cmp(const void *a, const void *b)
{
    const pto_k__sdone *x = (const pto_k__sdone *)a, *y = (const pto_k__sdone *)b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    if (x->core != y->core) return x->core < y->core ? -1 : 1;
    return x->stamp < y->stamp ? -1 : x->stamp > y->stamp;
}

/* At the end of a launch: every wait that a write could have undone (see
   pto_k__sig_undone), reported once per pair of source lines. */
PTO_K_FN void pto_k__sig_end(pto_k_device *dev)
{
    unsigned char *mark;
    int i, j, k;
    if (dev->nsdone == 0) return;
    qsort(dev->sdone, (size_t)dev->nsdone, sizeof *dev->sdone, pto_k__sdone_cmp);
    mark = (unsigned char *)calloc((size_t)dev->ncores, 1);
    if (!mark) {
        dev->oom = 1;
        return;
    }
    for (i = 0; i < dev->nsigs; i++) {
        pto_k__signal *s = &dev->sigs[i];
        int nwriters = 0;
        for (j = 0; j < s->nw; j++)
            if (!mark[s->w[j].core]) mark[s->w[j].core] = 1, nwriters++;
        for (j = 0; j < s->nw; j++) mark[s->w[j].core] = 0;
        for (k = 0; k < dev->nsdone; k++) {
            const pto_k__sdone *d = &dev->sdone[k];
            pto_k_core *c = &dev->cores[d->core];
            const pto_k__swrite *x;
            char nm[80], who[64], them[64];
            if (d->sig != i || (j = pto_k__sig_undone(s, d, mark, nwriters)) < 0) continue;
            x = &s->w[j];
            if (!pto_k__first_report(dev, d->src, x->src, 64)) continue;
            pto_k__gm_label(c, s->g, nm, sizeof nm);
            pto_k__core_name(c, who, sizeof who);
            pto_k__core_name(&dev->cores[x->core], them, sizeof them);
            pto_k__err(dev, PTO_K_E_DEADLOCK,
                       "%s: error: deadlock: wait(%s[%lld, %lld] %s %d) may never return: it saw the cell hold %d at "
                       "cycle %lld, but \"%s\" (%s), which nothing orders after this wait, makes it %d; landing a "
                       "little earlier (another timing), it leaves the wait polling forever; wait for a bound the cell "
                       "keeps (GE on a counter) (%s)",
                       d->src, nm, (long long)(s->idx / s->g->cols), (long long)(s->idx % s->g->cols),
                       pto_k__cmp_name(d->cmp), (int)d->value, (int)pto_k__sig_value(s, d->at), (long long)d->time,
                       x->src, them, (int)pto_k__swrite_apply(pto_k__sig_value(s, d->at), x), who);
        }
    }
    free(mark);
}
/* ---- End file: src/kern/mix.h ---- */

/* ---- Begin file: src/kern/host.h ---- */
/* host.h - the host side of the simulated device: devices, GM tensors,
   launches, reports and the Chrome trace.

   A launch builds one core context per simulated core (rank-major, then
   block, then AIC, AIV0, AIV1 for mix kernels), runs them under the seeded
   scheduler until every core has ended, then checks what only the whole
   launch can see (ring slots pushed and never popped) and fills the report.
   Everything a launch allocates is freed by the next launch or by
   pto_k_device_destroy; GM tensors live as long as the device. */

PTO_K_FN pto_k_device *pto_k_device_create(const pto_k_device_desc *desc)
{
    pto_k_device *dev = (pto_k_device *)calloc(1, sizeof *dev);
    if (!dev) return NULL;
    if (desc) dev->desc = *desc;
    if (dev->desc.nranks <= 0) dev->desc.nranks = 1;
    if (dev->desc.arch != PTO_K_A5) dev->desc.arch = PTO_K_A2A3;
    pthread_mutex_init(&dev->mu, NULL);
    pthread_cond_init(&dev->cv, NULL);
    dev->rfree = -1;
    return dev;
}

PTO_K_FN pto_k_gm *pto_k__gm_new(pto_k_device *dev, const char *name, int dtype, int64_t rows, int64_t cols)
{
    pto_k_gm *g;
    int cap = dev->capgms, capsh = dev->capgms;
    size_t bytes;
    if (dtype < PTO_K_F32 || dtype > PTO_K_I8 || rows < 0 || cols < 0 || rows > ((int64_t)1 << 31) ||
        cols > ((int64_t)1 << 31))
        return NULL;
    bytes = (size_t)(rows * cols * pto_k__dsize(dtype));
    dev->gms = (pto_k_gm **)pto_k__grow(dev, dev->gms, &cap, dev->ngms + 1, sizeof *dev->gms);
    dev->gsh = (pto_k__shadow *)pto_k__grow(dev, dev->gsh, &capsh, dev->ngms + 1, sizeof *dev->gsh);
    if (cap != capsh || dev->ngms + 1 > cap) return NULL;
    dev->capgms = cap;
    g = (pto_k_gm *)calloc(1, sizeof *g);
    if (!g) return NULL;
    g->data = calloc(bytes ? bytes : 1, 1);
    if (!g->data) {
        free(g);
        return NULL;
    }
    g->dtype = dtype;
    g->rows = rows;
    g->cols = cols;
    g->name = name;
    g->id = dev->ngms;
    memset(&dev->gsh[dev->ngms], 0, sizeof *dev->gsh);
    dev->gms[dev->ngms++] = g;
    return g;
}

PTO_K_FN pto_k_gm *pto_k_gm_create(pto_k_device *dev, const char *name, int dtype, int64_t rows, int64_t cols)
{
    return pto_k__gm_new(dev, name, dtype, rows, cols);
}

PTO_K_FN pto_k_gm *pto_k_gm_create_window(pto_k_device *dev, const char *name, int dtype, int64_t rows, int64_t cols)
{
    int n = dev->desc.nranks, r;
    pto_k_gm **peers = (pto_k_gm **)calloc((size_t)n, sizeof *peers);
    if (!peers) return NULL;
    for (r = 0; r < n; r++) {
        peers[r] = pto_k__gm_new(dev, name, dtype, rows, cols);
        if (!peers[r]) {
            if (r == 0) free(peers);
            return NULL;
        }
        peers[r]->rank = r;
        peers[r]->peers = peers;
        peers[r]->npeers = n;
    }
    return peers[0];
}

PTO_K_FN pto_k_gm *pto_k_gm_peer(pto_k_gm *g, int rank)
{
    if (!g || !g->peers || rank < 0 || rank >= g->npeers) return g;
    return g->peers[rank];
}

PTO_K_FN float pto_k_gm_get(const pto_k_gm *g, int64_t row, int64_t col)
{
    return pto_elem_get(g->data, g->dtype, row * g->cols + col);
}

PTO_K_FN void pto_k_gm_set(pto_k_gm *g, int64_t row, int64_t col, float v)
{
    pto_elem_set(g->data, g->dtype, row * g->cols + col, v);
}

PTO_K_FN int pto_k_gm_written(const pto_k_gm *g, int64_t row, int64_t col)
{
    return g->written && g->written[row * g->cols + col];
}

PTO_K_FN int64_t pto_k_gm_arg(pto_k_gm *g) { return (int64_t)(intptr_t)g; }

PTO_K_FN int64_t pto_k_f_arg(double v)
{
    int64_t x;
    memcpy(&x, &v, sizeof x);
    return x;
}

/* ---- launch state ---------------------------------------------------------------- */

PTO_K_FN void pto_k__free_launch(pto_k_device *dev)
{
    int i, p, q, id, k, r;
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        for (p = 0; p < PTO_K_NSPACE; p++) {
            free(c->mem[p]);
            free(c->sh[p].g);
        }
        for (p = 0; p < PTO_K_NPIPE; p++) {
            free(c->vc[p]);
            free(c->q[p].v);
            for (q = 0; q < PTO_K_NPIPE; q++)
                for (id = 0; id < PTO_K_NFLAG; id++) free(c->flag[p][q][id].vc);
        }
    }
    free(dev->cores);
    dev->cores = NULL;
    dev->ncores = 0;
    for (i = 0; i < dev->nclusters; i++) {
        pto_k__cluster *cl = &dev->clusters[i];
        for (p = 0; p < 2; p++)
            for (q = 0; q < 2; q++)
                for (id = 0; id < PTO_K_NCROSS; id++) {
                    if (!cl->xq[p][q][id]) continue;
                    for (k = 0; k < PTO_K__XDEPTH; k++) free(cl->xq[p][q][id][k].vc);
                    free(cl->xq[p][q][id]);
                }
        for (r = 0; r < PTO_K_NRING; r++) {
            pto_k__ring *rg = &cl->ring[r];
            free(rg->own);
            for (k = 0; k < 2; k++) {
                pto_k__ring1 *r1 = &rg->d[k];
                if (r1->slot)
                    for (p = 0; p < rg->slot_num; p++) free(r1->slot[p].vc);
                if (r1->freeslot)
                    for (p = 0; p < rg->slot_num; p++) free(r1->freeslot[p].vc);
                free(r1->slot);
                free(r1->freeslot);
                free(r1->slot_dtype);
                free(r1->slot_rows);
                free(r1->slot_cols);
            }
        }
    }
    free(dev->clusters);
    dev->clusters = NULL;
    dev->nclusters = 0;
    for (i = 0; i < dev->nsigs; i++) {
        for (k = 0; k < dev->sigs[i].nw; k++) {
            free(dev->sigs[i].w[k].vc);
            free(dev->sigs[i].w[k].cum);
        }
        free(dev->sigs[i].w);
    }
    dev->nsigs = 0;
    dev->nsdone = 0;
    for (i = 0; i < dev->ngms; i++) {
        free(dev->gsh[i].g);
        dev->gsh[i].g = NULL;
        dev->gsh[i].n = 0;
    }
    dev->nrp = 0;
    dev->rfree = -1;
    for (i = 0; i < dev->rep.nerrors; i++) free(dev->rep.errors[i].msg);
    dev->rep.nerrors = 0;
    free(dev->rep.cores);
    {
        pto_k_error *e = dev->rep.errors;
        memset(&dev->rep, 0, sizeof dev->rep);
        dev->rep.errors = e;
    }
    dev->npairs = 0;   /* trace events stay: the trace covers every launch */
}

PTO_K_FN void pto_k_device_destroy(pto_k_device *dev)
{
    int i;
    if (!dev) return;
    pto_k__free_launch(dev);
    free(dev->rep.errors);
    for (i = 0; i < dev->ngms; i++) {
        pto_k_gm *g = dev->gms[i];
        if (g->peers && g->rank == 0) free(g->peers);
        free(g->data);
        free(g->written);
        free(g);
    }
    free(dev->gms);
    free(dev->gsh);
    free(dev->sigs);
    free(dev->sdone);
    free(dev->rp);
    free(dev->pairs);
    free(dev->ev);
    free(dev->tproc);
    free(dev->rargs);
    pthread_mutex_destroy(&dev->mu);
    pthread_cond_destroy(&dev->cv);
    free(dev);
}

/* The set_flag that would release wait w, queued on another pipe of core c
   behind that pipe's own blocked head (NULL when none is: then nothing
   follows w at all). */
PTO_K_FN const pto_k__ins *pto_k__queued_set(const pto_k_core *c, const pto_k__ins *w, int *pipe)
{
    int r, j;
    for (r = 0; r < PTO_K_PIPE_ALL; r++)
        for (j = 1; j < c->q[r].n; j++) {
            const pto_k__ins *x = &c->q[r].v[j];
            if (x->op == PTO_K__SET_FLAG && x->p0 == w->p0 && x->p1 == w->p1 && x->id == w->id) {
                *pipe = r;
                return x;
            }
        }
    return NULL;
}

/* Checks at the end of one core: blocked pipes, ids left set, rings. */
PTO_K_FN void pto_k__core_end(pto_k_core *c)
{
    int p, q, id;
    char who[64];
    pto_k__core_name(c, who, sizeof who);
    if (!c->dead) {
        for (p = 0; p < PTO_K_PIPE_ALL; p++) {
            const pto_k__ins *w, *set;
            int r;
            if (c->q[p].n == 0) continue;
            w = &c->q[p].v[0];
            /* a knock-on: its set is queued behind another pipe's stuck wait */
            if ((set = pto_k__queued_set(c, w, &r)) != NULL) {
                pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                           "%s: error: deadlock: wait_flag(%s, %s, %d) is never satisfied: its set_flag at \"%s\" is "
                           "queued on pipe %s behind \"%s\", which never completes (reported on its own); %d later "
                           "instruction(s) on pipe %s never ran (%s)",
                           w->src, pto_k__pipe_name(w->p0), pto_k__pipe_name(w->p1), w->id, set->src ? set->src : "?",
                           pto_k__pipe_name(r), c->q[r].v[0].src ? c->q[r].v[0].src : "?", c->q[p].n - 1,
                           pto_k__pipe_name(p), who);
                continue;
            }
            pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                       "%s: error: deadlock: wait_flag(%s, %s, %d) can never be satisfied: no set_flag(%s, %s, %d) "
                       "follows it before the kernel ends; %d later instruction(s) on pipe %s never ran (%s)",
                       w->src, pto_k__pipe_name(w->p0), pto_k__pipe_name(w->p1), w->id, pto_k__pipe_name(w->p0),
                       pto_k__pipe_name(w->p1), w->id, c->q[p].n - 1, pto_k__pipe_name(p), who);
        }
        for (p = 0; p < PTO_K_PIPE_ALL; p++)
            for (q = 0; q < PTO_K_PIPE_ALL; q++)
                for (id = 0; id < PTO_K_NFLAG; id++)
                    if (c->flag_set[p][q][id])
                        pto_k__err(c->dev, PTO_K_E_LEFT_SET,
                                   "%s: error: unbalanced flag: set_flag(%s, %s, %d) is still set when the kernel ends: "
                                   "no wait_flag(%s, %s, %d) consumes it (%s)",
                                   c->flag[p][q][id].src, pto_k__pipe_name(p), pto_k__pipe_name(q), id,
                                   pto_k__pipe_name(p), pto_k__pipe_name(q), id, who);
        pto_k__ring_end(c);
    }
}

/* Whole-launch checks: ring slots pushed and never popped; waits that a
   later write could have made miss their condition. */
PTO_K_FN void pto_k__launch_end(pto_k_device *dev)
{
    int i, r, k, s;
    pto_k__sig_end(dev);
    for (i = 0; i < dev->nclusters; i++)
        for (r = 0; r < PTO_K_NRING; r++) {
            pto_k__ring *rg = &dev->clusters[i].ring[r];
            if (!rg->inited) continue;
            for (k = 0; k < 2; k++) {
                pto_k__ring1 *r1 = &rg->d[k];
                int64_t pushed = pto_k__pushed(rg, k);
                if (!r1->used) continue;
                for (s = 0; s < (k == 0 ? 2 : 1); s++)
                    if (r1->popped[s] < pushed && !dev->cores[rg->init_core].dead)
                        pto_k__err(dev, PTO_K_E_RING,
                                   "%s: error: ring %d (%s) of block %d: %lld slot(s) pushed but never popped by %s",
                                   rg->init_src, r, k == 0 ? "C2V" : "V2C",
                                   (int)dev->cores[rg->init_core].block, (long long)(pushed - r1->popped[s]),
                                   k == 1 ? "the aic" : s == 0 ? "aiv0" : "aiv1");
            }
        }
}

PTO_K_FN void pto_k__json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

PTO_K_FN void pto_k__write_trace_to(pto_k_device *dev, FILE *f, int nproc)
{
    int i, p;
    char who[160];
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"time unit\":\"cycles\",\"kernel\":");
    pto_k__json_str(f, dev->ld->name ? dev->ld->name : "kernel");
    if (dev->ntlaunch > 0) fprintf(f, ",\"launches\":%d", dev->ntlaunch + 1);
    fprintf(f, "},\"traceEvents\":[\n");
    for (i = 0; i < nproc; i++) {
        const pto_k__tproc *t = &dev->tproc[i];
        if (dev->ntlaunch > 0) snprintf(who, sizeof who, "%d %s: %s", t->launch + 1, t->kernel, t->who);
        else snprintf(who, sizeof who, "%s", t->who);
        fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":", i);
        pto_k__json_str(f, who);
        fprintf(f, "}},\n");
        fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}},\n", i, i);
        for (p = 0; p < PTO_K_PIPE_ALL; p++)
            fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}},\n", i, p,
                    pto_k__pipe_name(p));
    }
    for (i = 0; i < dev->nev; i++) {
        const pto_k__event *e = &dev->ev[i];
        fprintf(f, "{\"name\":");
        pto_k__json_str(f, e->name);
        fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%lld,\"args\":{\"src\":",
                pto_k__pipe_name(e->pipe), e->core, e->pipe, (long long)e->start, (long long)e->dur);
        pto_k__json_str(f, e->src);
        fprintf(f, "}},\n");
    }
    fprintf(f, "{\"name\":\"end\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%lld}\n]}\n",
            (long long)(dev->trace_t0 + dev->rep.makespan));
    fclose(f);
}

/* The launch's cores become trace processes after those of earlier launches. */
PTO_K_FN int pto_k__trace_procs(pto_k_device *dev)
{
    int i, cap = dev->captproc;
    dev->tproc = (pto_k__tproc *)pto_k__grow(dev, dev->tproc, &cap, dev->ntproc + dev->ncores, sizeof *dev->tproc);
    dev->captproc = cap;
    if (dev->ntproc + dev->ncores > cap) return 0;
    for (i = 0; i < dev->ncores; i++) {
        pto_k__tproc *t = &dev->tproc[dev->ntproc + i];
        pto_k__core_name(&dev->cores[i], t->who, sizeof t->who);
        snprintf(t->kernel, sizeof t->kernel, "%s", dev->ld->name ? dev->ld->name : "kernel");
        t->launch = dev->ntlaunch;
    }
    return 1;
}

/* Chrome trace / Perfetto JSON: one process per core, one thread per pipe,
   ts and dur in cycles (shown as microseconds by the viewers). Every launch
   on the device rewrites the file with all launches so far, one after the
   other ("2 rmsn: block 0 aiv0" when there are several). */
PTO_K_FN void pto_k__write_trace(pto_k_device *dev)
{
    FILE *f;
    int nproc;
    if (!dev->desc.trace_path || !pto_k__trace_procs(dev)) return;
    nproc = dev->ntproc + dev->ncores;
    f = fopen(dev->desc.trace_path, "w");
    if (!f) pto_k__err(dev, PTO_K_E_USAGE, "error: cannot write trace '%s'", dev->desc.trace_path);
    else pto_k__write_trace_to(dev, f, nproc);
    dev->ntproc = nproc;   /* the next launch follows this one */
    dev->trace_t0 += dev->rep.makespan;
    dev->ntlaunch++;
}

/* The busiest pipe's waits (pto_k_report.waited, .sites): the sites of one
   statement text and pipe are merged (its src may be several copies). */
PTO_K_FN void pto_k__fill_sites(pto_k_device *dev, pto_k_report *r)
{
    pto_k_wait_site all[PTO_K__NSITE];
    pto_k_core *c = NULL;
    int i, j, n = 0, p = -1;
    for (i = 0; i < dev->ncores && !c; i++)
        for (p = 0; p < PTO_K_PIPE_ALL; p++)
            if (r->bound > 0 && dev->cores[i].busy[p] == r->bound) { c = &dev->cores[i]; break; }
    r->bound_core = c ? c->index : -1;
    r->bound_pipe = c ? p : -1;
    if (!c) return;
    for (i = 0; i < c->npend[p]; i++) c->site[c->pend_site[p][i]].cycles -= c->site[c->pend_site[p][i]].pend;   /* nothing followed */
    c->site_other[p] -= c->other_pend[p];
    pto_k__waits_count(c, p);
    r->waited = c->site_other[p];
    for (i = 0; i < c->nsite; i++) {
        if (c->site[i].pipe != p) continue;
        r->waited += c->site[i].cycles;
        for (j = 0; j < n; j++)
            if (all[j].from == c->site[i].from && strcmp(all[j].src ? all[j].src : "", c->site[i].src ? c->site[i].src : "") == 0)
                break;
        if (j == n) {
            all[n].src = c->site[i].src;
            all[n].from = c->site[i].from;
            all[n++].cycles = 0;
        }
        all[j].cycles += c->site[i].cycles;
    }
    for (i = 0; i < n && r->nsites < 3; i++) {   /* the three largest, first seen on a tie */
        int best = -1;
        for (j = 0; j < n; j++)
            if (all[j].cycles > 0 && (best < 0 || all[j].cycles > all[best].cycles)) best = j;
        if (best < 0) break;
        r->sites[r->nsites++] = all[best];
        all[best].cycles = 0;
    }
}

PTO_K_FN void pto_k__fill_report(pto_k_device *dev)
{
    pto_k_report *r = &dev->rep;
    int i, p;
    r->ncores = dev->ncores;
    r->cores = (pto_k_core_report *)calloc((size_t)(dev->ncores ? dev->ncores : 1), sizeof *r->cores);
    if (!r->cores) {
        dev->oom = 1;
        r->ncores = 0;
        return;
    }
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        pto_k_core_report *cr = &r->cores[i];
        cr->kind = c->kind;
        cr->rank = c->rank;
        cr->block = c->block;
        cr->subblock = c->subblock;
        for (p = 0; p < PTO_K_PIPE_ALL; p++) {
            cr->busy[p] = c->busy[p];
            r->serial += c->busy[p];
            if (c->busy[p] > r->bound) r->bound = c->busy[p];
            if (c->free_at[p] > cr->end) cr->end = c->free_at[p];
        }
        if (cr->end > r->makespan) r->makespan = cr->end;
        r->ninstr += c->ninstr;
    }
    r->efficiency = r->makespan > 0 ? (double)r->bound / (double)r->makespan : 0.0;
    pto_k__fill_sites(dev, r);
}

/* With shared args and several ranks, each rank gets a copy of args in
   which a window tensor's handle names that rank's own copy. */
PTO_K_FN int pto_k__rank_args(pto_k_device *dev, const pto_k_launch_desc *ld, int nr)
{
    int r, i, g;
    free(dev->rargs);
    dev->rargs = NULL;
    if (nr <= 1 || ld->rank_args || !ld->args || ld->nargs <= 0) return 1;
    dev->rargs = (int64_t *)malloc((size_t)nr * (size_t)ld->nargs * sizeof(int64_t));
    if (!dev->rargs) return 0;
    for (r = 0; r < nr; r++)
        for (i = 0; i < ld->nargs; i++) {
            int64_t v = ld->args[i];
            for (g = 0; g < dev->ngms; g++)
                if (dev->gms[g]->peers && pto_k_gm_arg(dev->gms[g]) == v && r < dev->gms[g]->npeers) {
                    v = pto_k_gm_arg(dev->gms[g]->peers[r]);
                    break;
                }
            dev->rargs[(size_t)r * (size_t)ld->nargs + (size_t)i] = v;
        }
    return 1;
}

PTO_K_FN const pto_k_report *pto_k_launch(pto_k_device *dev, const pto_k_launch_desc *ld)
{
    int nr = dev->desc.nranks, per, i, p;
    int64_t nb = ld && ld->block_num > 0 ? ld->block_num : 1, n;
    uint64_t z;
    pto_k__free_launch(dev);
    dev->ld = ld;
    dev->ninstr_all = 0;
    dev->max_instr = ld && ld->max_instr > 0 ? ld->max_instr : PTO_K_MAX_INSTR_DEFAULT;
    dev->stopped = 0;
    if (!ld || !ld->fn || ld->kind < PTO_K_KIND_VECTOR || ld->kind > PTO_K_KIND_MIX) {
        pto_k__err(dev, PTO_K_E_USAGE, "error: launch needs a kernel function and a kind vector/cube/mix");
        return &dev->rep;
    }
    per = ld->kind == PTO_K_KIND_MIX ? 3 : 1;
    n = (int64_t)nr * nb * per;
    if (n > PTO_K_MAX_CORES) {   /* refused: said in the user's terms (blocks), with the way out */
        pto_k__err(dev, PTO_K_E_USAGE, "error: kernel %s would launch %lld blocks (%s%s): more than the %d cores the "
                   "simulator runs in one launch; give it fewer blocks", ld->name ? ld->name : "?", (long long)nb,
                   per == 3 ? "3 cores per block of a mix kernel" : "a core per block", nr > 1 ? ", on every rank" : "",
                   PTO_K_MAX_CORES);
        return &dev->rep;
    }
    if ((double)n * PTO_K_NPIPE * (double)n * 8.0 * 4.0 > PTO_K_MAX_VC_BYTES) {
        pto_k__err(dev, PTO_K_E_USAGE, "error: kernel %s would launch %lld blocks (%lld cores): the race detector's "
                   "vector clocks would take %.0f MiB (they grow with the square of the cores), more than the %.0f MiB "
                   "the simulator allows (PTO_K_MAX_VC_BYTES); give it fewer blocks",
                   ld->name ? ld->name : "?", (long long)nb, (long long)n,
                   (double)n * PTO_K_NPIPE * (double)n * 32.0 / 1048576.0, PTO_K_MAX_VC_BYTES / 1048576.0);
        return &dev->rep;
    }
    dev->ncores = (int)n;
    dev->ngp = dev->ncores * 8;
    dev->cores = (pto_k_core *)calloc((size_t)n, sizeof *dev->cores);
    dev->nclusters = (int)(nr * nb);
    dev->clusters = (pto_k__cluster *)calloc((size_t)dev->nclusters, sizeof *dev->clusters);
    if (!dev->cores || !dev->clusters) {
        dev->ncores = 0;
        pto_k__err(dev, PTO_K_E_USAGE, "error: out of memory");
        return &dev->rep;
    }
    if (!pto_k__rank_args(dev, ld, nr)) {
        pto_k__err(dev, PTO_K_E_USAGE, "error: out of memory");
        return &dev->rep;
    }
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        int role = i % per;
        c->dev = dev;
        c->index = i;
        c->rank = (int)(i / (per * nb));
        c->block = (i / per) % nb;
        c->block_num = nb;
        c->cluster = (int)(i / per);
        c->kind = ld->kind == PTO_K_KIND_CUBE || (per == 3 && role == 0) ? PTO_K_CORE_CUBE : PTO_K_CORE_VECTOR;
        c->subblock = per == 3 && role > 0 ? role - 1 : 0;
        c->args = ld->rank_args ? ld->rank_args[c->rank] : dev->rargs ? dev->rargs + (size_t)c->rank * (size_t)ld->nargs : ld->args;
        for (p = 0; p < PTO_K_NPIPE; p++) c->vc[p] = pto_k__vc_new(dev);
    }
    if (dev->oom) {
        pto_k__err(dev, PTO_K_E_USAGE, "error: out of memory");
        return &dev->rep;
    }
    /* splitmix64 of the seed: a seed always gives the same schedule */
    z = dev->desc.seed + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    dev->rng = (z ^ (z >> 31)) | 1u;
    pthread_mutex_lock(&dev->mu);
    dev->ndone = 0;
    dev->running = -1;
    pto_k__pick(dev);
    while (dev->ndone < dev->ncores) pthread_cond_wait(&dev->cv, &dev->mu);
    pthread_mutex_unlock(&dev->mu);
    if (!dev->stopped) pto_k__launch_end(dev);   /* a stopped launch: only its budget report */
    if (dev->oom) pto_k__err(dev, PTO_K_E_USAGE, "error: the simulator ran out of memory; results are incomplete");
    pto_k__fill_report(dev);
    pto_k__write_trace(dev);
    return &dev->rep;
}

PTO_K_FN void pto_k_report_print(const pto_k_report *r, FILE *out)
{
    int i, p, nc;
    static const char *const kinds[] = {"aiv", "aic"};
    for (i = 0; i < r->nerrors; i++) fprintf(out, "%s\n", r->errors[i].msg);
    if (r->suppressed) fprintf(out, "(%d repeated or further errors not shown)\n", r->suppressed);
    fprintf(out, "%d error(s); %d core(s), %lld instruction%s\n", r->nerrors, r->ncores, (long long)r->ninstr,
            r->ninstr == 1 ? "" : "s");
    fprintf(out, "cycles: makespan %lld, bound %lld (busiest pipe), efficiency %.1f%%, serial sum %lld\n",
            (long long)r->makespan, (long long)r->bound, 100.0 * r->efficiency, (long long)r->serial);
    if (r->skipped)
        fprintf(out, "(%lld instruction%s not run for the errors above: the cycles leave out their work)\n",
                (long long)r->skipped, r->skipped == 1 ? "" : "s");
    nc = r->ncores < 16 ? r->ncores : 16;
    for (i = 0; i < nc; i++) {
        const pto_k_core_report *c = &r->cores[i];
        fprintf(out, "  rank %d block %lld %s%s: end %lld, busy", c->rank, (long long)c->block, kinds[c->kind & 1],
                c->kind == PTO_K_CORE_VECTOR ? (c->subblock ? "1" : "0") : "", (long long)c->end);
        for (p = 0; p < PTO_K_PIPE_ALL; p++)
            if (c->busy[p]) fprintf(out, " %s %lld", pto_k__pipe_name(p), (long long)c->busy[p]);
        fprintf(out, "\n");
    }
    if (nc < r->ncores) fprintf(out, "  ... %d more cores\n", r->ncores - nc);
}

PTO_K_FN const char *pto_k_report_find(const pto_k_report *r, int kind, const char *needle)
{
    int i;
    for (i = 0; i < r->nerrors; i++)
        if ((kind == 0 || r->errors[i].kind == kind) && (!needle || strstr(r->errors[i].msg, needle)))
            return r->errors[i].msg;
    return NULL;
}
/* ---- End file: src/kern/host.h ---- */

#endif /* PTO_KERNELS_H_INCLUDED */
/*
MIT License

Copyright (c) 2026 the pto authors

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
