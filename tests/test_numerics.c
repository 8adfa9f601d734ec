/* test_numerics.c - the storage rules of src/numerics.h: f16/bf16 round to
   nearest even (hand values for ties, overflow, subnormals, NaN, -0), then
   against an independent oracle (double arithmetic with nearbyint) over many
   f32 bit patterns; f16/bf16 -> f32 over every pattern; integer saturation. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

static float fb(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t bf(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* The oracle: nearest value with `prec` significand bits, min normal
   exponent emin, ties to even (nearbyint in the default rounding mode), as
   a bit pattern with `mbits` mantissa bits and exponent bias `bias`.
   Returns the magnitude pattern; inf_pat when it rounds past the largest. */
static uint32_t ref_round(double ax, int mbits, int emin, int bias, uint32_t inf_pat)
{
    int ex, e;
    double q;
    uint32_t pat;
    if (ax == 0) return 0;
    frexp(ax, &ex);
    e = ex - 1;                        /* ax in [2^e, 2^(e+1)) */
    if (e < emin) e = emin;            /* subnormal: the unit is 2^(emin - mbits) */
    q = nearbyint(ldexp(ax, mbits - e)); /* exact scaling, then RNE */
    if (ex - 1 < emin) pat = (uint32_t)q; /* subnormal (q == 2^mbits carries into the min normal) */
    else pat = ((uint32_t)(e + bias) << mbits) + (uint32_t)q - (1u << mbits);
    return pat >= inf_pat ? inf_pat : pat;
}

static uint16_t ref_f16(float x)
{
    uint16_t s = (bf(x) >> 31) ? 0x8000 : 0;
    return (uint16_t)(s | ref_round(fabs((double)x), 10, -14, 15, 0x7c00));
}

static uint16_t ref_bf16(float x)
{
    uint16_t s = (bf(x) >> 31) ? 0x8000 : 0;
    return (uint16_t)(s | ref_round(fabs((double)x), 7, -126, 127, 0x7f80));
}

/* f16 decode from the definition. */
static double ref_h2d(uint16_t h)
{
    int e = (h >> 10) & 31, mnt = h & 1023;
    double v = e == 0 ? ldexp(mnt, -24) : ldexp(mnt + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

static int is_nan16(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }
static int is_nanbf(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0; }

static void test_f16_hand(void)
{
    CHECK(pto_f32_to_f16(1.0f) == 0x3c00);
    CHECK(pto_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);          /* tie -> even 1.0 */
    CHECK(pto_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);      /* tie -> even 1 + 2^-9 */
    CHECK(pto_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f) == 0x3c01); /* above the tie */
    CHECK(pto_f32_to_f16(-1.0f - 3 * 0x1p-11f) == 0xbc02);
    CHECK(pto_f32_to_f16(65504.0f) == 0x7bff);
    CHECK(pto_f32_to_f16(65519.0f) == 0x7bff);
    CHECK(pto_f32_to_f16(65520.0f) == 0x7c00);                 /* tie past the max -> inf */
    CHECK(pto_f32_to_f16(-65520.0f) == 0xfc00);
    CHECK(pto_f32_to_f16(1e10f) == 0x7c00);
    CHECK(pto_f32_to_f16(INFINITY) == 0x7c00);
    CHECK(pto_f32_to_f16(-INFINITY) == 0xfc00);
    CHECK(pto_f32_to_f16(0x1p-24f) == 0x0001);                 /* smallest subnormal */
    CHECK(pto_f32_to_f16(0x1p-25f) == 0x0000);                 /* tie -> even 0 */
    CHECK(pto_f32_to_f16(0x1p-25f + 0x1p-35f) == 0x0001);
    CHECK(pto_f32_to_f16(3 * 0x1p-25f) == 0x0002);             /* tie -> even 2^-23 */
    CHECK(pto_f32_to_f16(0x1p-26f) == 0x0000);
    CHECK(pto_f32_to_f16(-0x1p-25f) == 0x8000);                /* rounds to -0 */
    CHECK(pto_f32_to_f16(0x1p-14f) == 0x0400);                 /* smallest normal */
    CHECK(pto_f32_to_f16(0x1p-14f - 0x1p-25f) == 0x0400);      /* tie 1023|1024 -> 1024 carries */
    CHECK(pto_f32_to_f16(1023 * 0x1p-24f) == 0x03ff);
    CHECK(pto_f32_to_f16(fb(0x00000001)) == 0x0000);           /* f32 subnormal */
    CHECK(pto_f32_to_f16(0.0f) == 0x0000);
    CHECK(pto_f32_to_f16(-0.0f) == 0x8000);
    CHECK(is_nan16(pto_f32_to_f16(NAN)));
    CHECK(is_nan16(pto_f32_to_f16(fb(0x7f800001))));           /* payload only in low bits */
    CHECK(is_nan16(pto_f32_to_f16(fb(0xff800001))));
    CHECK(pto_f32_to_f16(fb(0xff800001)) & 0x8000);
    CHECK(pto_f32_to_f16(0.1f) == 0x2e66);
    /* decode */
    CHECK(pto_f16_to_f32(0x0001) == 0x1p-24f);
    CHECK(pto_f16_to_f32(0x03ff) == 1023 * 0x1p-24f);
    CHECK(pto_f16_to_f32(0x7bff) == 65504.0f);
    CHECK(pto_f16_to_f32(0xfc00) == -INFINITY);
    CHECK(bf(pto_f16_to_f32(0x8000)) == 0x80000000u);
    CHECK(pto_f16_to_f32(0x3555) == 0.333251953125f);
    CHECK(pto_f16_to_f32(0x7e00) != pto_f16_to_f32(0x7e00));   /* NaN */
}

static void test_bf16_hand(void)
{
    CHECK(pto_f32_to_bf16(1.0f) == 0x3f80);
    CHECK(pto_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);          /* tie -> even */
    CHECK(pto_f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);      /* tie -> even */
    CHECK(pto_f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81);
    CHECK(pto_f32_to_bf16(fb(0x7f7f7fff)) == 0x7f7f);          /* just below the tie at the max */
    CHECK(pto_f32_to_bf16(fb(0x7f7f8000)) == 0x7f80);          /* tie at the max -> inf */
    CHECK(pto_f32_to_bf16(fb(0x7f7fffff)) == 0x7f80);          /* FLT_MAX -> inf */
    CHECK(pto_f32_to_bf16(fb(0xff7fffff)) == 0xff80);
    CHECK(pto_f32_to_bf16(INFINITY) == 0x7f80);
    CHECK(pto_f32_to_bf16(-0.0f) == 0x8000);
    CHECK(pto_f32_to_bf16(fb(0x00008000)) == 0x0000);          /* subnormal tie -> even */
    CHECK(pto_f32_to_bf16(fb(0x00018000)) == 0x0002);
    CHECK(is_nanbf(pto_f32_to_bf16(fb(0x7f800001))));          /* must not become inf */
    CHECK(is_nanbf(pto_f32_to_bf16(fb(0xffffffff))));
    CHECK(pto_f32_to_bf16(fb(0xffffffff)) & 0x8000);
    CHECK(pto_bf16_to_f32(0x3f81) == 1.0f + 0x1p-7f);
    CHECK(pto_bf16_to_f32(0x0001) == fb(0x00010000));
}

/* Bit patterns chosen to cover every exponent densely, ties included. */
static uint32_t next_rand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

static void test_oracle(void)
{
    uint32_t seed = 12345, i, bad16 = 0, badbf = 0, badrt = 0, badget = 0;
    uint32_t h;
    for (i = 0; i < 400000; i++) {
        uint32_t u = next_rand(&seed);
        float x;
        if (i & 1) u = (u & 0x80000000u) | (((u >> 8) % 60 + 97) << 23) | (u & 0x7fffffu); /* f16 range */
        if (i % 3 == 0) u &= ~0x0fffu;                            /* more exact ties */
        if (i % 5 == 0) u = (u & ~0x1fffu) | 0x1000u;             /* f16 ties exactly */
        if (i % 7 == 0) u = (u & ~0xffffu) | 0x8000u;             /* bf16 ties exactly */
        x = fb(u);
        if (x != x) continue;
        if (pto_f32_to_f16(x) != ref_f16(x)) {
            if (bad16++ < 5) printf("f16 %08x: got %04x want %04x\n", u, pto_f32_to_f16(x), ref_f16(x));
        }
        if (pto_f32_to_bf16(x) != ref_bf16(x)) {
            if (badbf++ < 5) printf("bf16 %08x: got %04x want %04x\n", u, pto_f32_to_bf16(x), ref_bf16(x));
        }
    }
    CHECK(bad16 == 0);
    CHECK(badbf == 0);
    /* every f16 pattern: decode matches the definition; non-NaN round-trips */
    for (h = 0; h < 65536; h++) {
        float f = pto_f16_to_f32((uint16_t)h);
        if (is_nan16((uint16_t)h)) {
            if (f == f || !is_nan16(pto_f32_to_f16(f))) badrt++;
            continue;
        }
        if ((h & 0x7c00) != 0x7c00 && (double)f != ref_h2d((uint16_t)h)) badget++;
        if (pto_f32_to_f16(f) != h) badrt++;
        if (pto_f32_to_bf16(pto_bf16_to_f32((uint16_t)h)) != h && !is_nanbf((uint16_t)h)) badrt++;
    }
    CHECK(badget == 0);
    CHECK(badrt == 0);
}

static void test_elem(void)
{
    int32_t i32[8];
    int8_t i8[8];
    uint16_t h[2];
    float f[1];
    pto_elem_set(i32, PTO_I32, 0, 2.5f);
    pto_elem_set(i32, PTO_I32, 1, 3.5f);
    pto_elem_set(i32, PTO_I32, 2, -2.5f);
    pto_elem_set(i32, PTO_I32, 3, 1e10f);
    pto_elem_set(i32, PTO_I32, 4, -1e10f);
    pto_elem_set(i32, PTO_I32, 5, NAN);
    pto_elem_set(i32, PTO_I32, 6, 2147483520.0f);   /* largest f32 below 2^31 */
    pto_elem_set(i32, PTO_I32, 7, -0.5f);
    CHECK(i32[0] == 2 && i32[1] == 4 && i32[2] == -2);
    CHECK(i32[3] == 2147483647 && i32[4] == -2147483647 - 1 && i32[5] == 0);
    CHECK(i32[6] == 2147483520 && i32[7] == 0);
    pto_elem_set(i8, PTO_I8, 0, 300.0f);
    pto_elem_set(i8, PTO_I8, 1, -300.0f);
    pto_elem_set(i8, PTO_I8, 2, 127.5f);
    pto_elem_set(i8, PTO_I8, 3, -128.5f);
    pto_elem_set(i8, PTO_I8, 4, 6.5f);
    CHECK(i8[0] == 127 && i8[1] == -128 && i8[2] == 127 && i8[3] == -128 && i8[4] == 6);
    CHECK(pto_elem_get(i8, PTO_I8, 1) == -128.0f);
    CHECK(pto_elem_get(i32, PTO_I32, 0) == 2.0f);
    pto_elem_set(h, PTO_F16, 0, 1.0f + 3 * 0x1p-11f);
    pto_elem_set(h, PTO_BF16, 1, 1.0f + 3 * 0x1p-8f);
    CHECK(h[0] == 0x3c02 && h[1] == 0x3f82);
    CHECK(pto_elem_get(h, PTO_F16, 0) == 1.0f + 0x1p-9f);
    CHECK(pto_elem_get(h, PTO_BF16, 1) == 1.0f + 0x1p-6f);
    pto_elem_set(f, PTO_F32, 0, 0.1f);
    CHECK(pto_elem_get(f, PTO_F32, 0) == 0.1f);
    CHECK(pto_round_to(PTO_F16, 65520.0f) == INFINITY);
    CHECK(pto_round_to(PTO_BF16, 1.0f + 0x1p-8f) == 1.0f);
    CHECK(pto_round_to(PTO_F32, 0.1f) == 0.1f);
}

/* Divisions as pto-isa's a2a3 / a5 TDivS.hpp compute them (review18 M1):
   tdivs on f32 / i32 / i8 multiplies by the f32 reciprocal, an integer
   destination truncates toward zero; f16 tdivs and tdiv divide. */
static void test_div(void)
{
    volatile float third = 1.0f / 3.0f, ten = 10.0f;
    int32_t q[6];
    CHECK(pto_el_div(PTO_I32, 7.0f, 2.0f, 1) == 3.0f);          /* 3.5 -> 3 (round to nearest even gave 4) */
    CHECK(pto_el_div(PTO_I32, -7.0f, 2.0f, 1) == -3.0f);
    CHECK(pto_el_div(PTO_I32, 5.0f, 2.0f, 0) == 2.0f);          /* tdiv on i32: truncates too */
    CHECK(pto_el_div(PTO_I8, -5.0f, 2.0f, 0) == -2.0f);
    CHECK(pto_el_div(PTO_F32, 10.0f, 3.0f, 1) == ten * third);  /* the reciprocal's product ... */
    CHECK(pto_el_div(PTO_F32, 10.0f, 3.0f, 0) == ten / 3.0f);   /* ... and the quotient */
    CHECK(ten * third != ten / 3.0f);                           /* differ here (3.33333349 / 3.33333325) */
    CHECK(pto_el_div(PTO_F16, 10.0f, 3.0f, 1) == ten / 3.0f);   /* f16: vdiv on a2a3 */
    CHECK(pto_el_div(PTO_F32, 1.0f, 0.0f, 1) == INFINITY);
    CHECK(pto_el_div(PTO_F32, -1.0f, -0.0f, 1) == -INFINITY);   /* 1 / -0 is taken as +inf, as the device does */
    pto_elem_set(q, PTO_I32, 0, pto_el_div(PTO_I32, 1.0f, 0.0f, 1));
    pto_elem_set(q, PTO_I32, 1, pto_el_div(PTO_I32, 0.0f, 0.0f, 1));
    pto_elem_set(q, PTO_I32, 2, pto_el_div(PTO_I32, -3e9f, 0.5f, 1));
    CHECK(q[0] == 2147483647 && q[1] == 0 && q[2] == -2147483647 - 1);   /* saturated; NaN stores 0 */
}

int main(void)
{
    test_div();
    test_f16_hand();
    test_bf16_hand();
    test_oracle();
    test_elem();
    return TEST_END();
}
