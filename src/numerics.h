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
