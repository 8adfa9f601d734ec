/* test_interp.c - the reference interpreter on kernels built with the C API.
   Expected values are written by hand or computed here with plain C float
   arithmetic (never with the interpreter's helpers): every op class, matmul
   against a triple loop, the spec's softmax, SPMD slices, loops, valid
   regions, ranks, and runtime errors with their exact messages. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

static pto_ctx *ctx;
static pto_module *m;
static int32_t K, F;
static pto_loc g_loc; /* the location the builders below give new nodes */

/* a compound literal, not a function returning a pto_loc: tcc 0.9.27 (x86-64) stores such a
   12-byte result as 16 bytes, over a local of the caller (tests/tcc_ptoc_test.sh) */
#define at(line, col) ((pto_loc){F, (line), (col)})

static void begin(const char *name, pto_kernel_kind kind)
{
    ctx = pto_ctx_create(NULL);
    F = pto_file_add(ctx, "t.pto");
    m = pto_module_create(ctx, PTO_ARCH_A2A3);
    K = pto_add_kernel(m, name, kind, at(1, 1));
    g_loc = at(2, 3);
}

static void end(void)
{
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static int32_t body(void) { return m->kernels[K].body; }
static int32_t num(int64_t v) { return pto_expr_int(m, v, g_loc); }
static int32_t var(const char *n) { return pto_expr_var(m, pto_find_var(m, K, n), g_loc); }
static int32_t bin(pto_expr_kind k, int32_t a, int32_t b) { return pto_expr_bin(m, k, a, b, g_loc); }
static int32_t blk(void) { return pto_expr_builtin(m, PTO_E_BLOCK, g_loc); }

static int32_t tensor(const char *n, pto_dir d, pto_dtype dt, int64_t r, int64_t c)
{
    return pto_add_tensor_param(m, K, n, d, dt, r, c, g_loc);
}

static int32_t tile(int32_t b, const char *n, pto_space sp, pto_dtype dt, int32_t r, int32_t c)
{
    return pto_add_tile(m, b, n, sp, dt, r, c, g_loc);
}

static int32_t op_t(int32_t b, pto_op op, int32_t t0, int32_t t1, int32_t t2)
{
    int32_t s = pto_add_op(m, b, op, g_loc);
    pto_arg_tile(m, s, t0, g_loc);
    if (t1 >= 0) pto_arg_tile(m, s, t1, g_loc);
    if (t2 >= 0) pto_arg_tile(m, s, t2, g_loc);
    return s;
}

static int32_t op_s(int32_t b, pto_op op, int32_t d, int32_t a, double sc)
{
    int32_t s = pto_add_op(m, b, op, g_loc);
    pto_arg_tile(m, s, d, g_loc);
    if (a >= 0) pto_arg_tile(m, s, a, g_loc);
    pto_arg_float(m, s, sc, g_loc);
    return s;
}

static int32_t load(int32_t b, int32_t t, int32_t p, int32_t r, int32_t c)
{
    int32_t s = pto_add_op(m, b, PTO_OP_TLOAD, g_loc);
    pto_arg_tile(m, s, t, g_loc);
    pto_arg_gm(m, s, p, r, c, -1, g_loc);
    return s;
}

static int32_t store(int32_t b, int32_t p, int32_t r, int32_t c, int32_t t)
{
    int32_t s = pto_add_op(m, b, PTO_OP_TSTORE, g_loc);
    pto_arg_gm(m, s, p, r, c, -1, g_loc);
    pto_arg_tile(m, s, t, g_loc);
    return s;
}

static pto_status run(void **tensors, const pto_binding *bind, int nbind)
{
    pto_launch l;
    memset(&l, 0, sizeof l);
    l.kernel = K;
    l.tensors = tensors;
    l.bindings = bind;
    l.nbindings = nbind;
    return pto_interp(ctx, m, &l);
}

static const char *diag(int i)
{
    static char buf[700];
    const pto_diag *d = pto_diag_get(ctx, i);
    if (!d) return "(no diagnostic)";
    pto_diag_format(ctx, d, buf, sizeof buf);
    return buf;
}

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* equal bit patterns, or both NaN */
static int same(float a, float b) { return (a != a && b != b) || bits(a) == bits(b); }

static int all_same(const float *got, const float *want, int n)
{
    int i, bad = 0;
    for (i = 0; i < n; i++)
        if (!same(got[i], want[i])) {
            if (bad++ < 4) printf("  [%d] got %.9g (%08x) want %.9g (%08x)\n", i, got[i], bits(got[i]), want[i], bits(want[i]));
        }
    return bad == 0;
}

/* ---- element ops -------------------------------------------------------- */

static const float IN_A[8] = {1.5f, -2.0f, 0.0f, NAN, 3.0f, -0.0f, 1e30f, 7.0f};
static const float IN_B[8] = {0.25f, 4.0f, -0.0f, 1.0f, NAN, 0.0f, 1e30f, -3.0f};

/* kernel: tload a, x; tload b, y; OP d, a, b; tstore z, d   (all f32[1, 8]) */
static void run_binary(pto_op op, const float *want)
{
    float z[8];
    void *t[3];
    int32_t x, y, zp, a, b, d;
    begin("bin", PTO_KK_VECTOR);
    x = tensor("x", PTO_IN, PTO_F32, 1, 8);
    y = tensor("y", PTO_IN, PTO_F32, 1, 8);
    zp = tensor("z", PTO_OUT, PTO_F32, 1, 8);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 1, 8);
    b = tile(body(), "b", PTO_VEC, PTO_F32, 1, 8);
    d = tile(body(), "d", PTO_VEC, PTO_F32, 1, 8);
    load(body(), a, x, num(0), num(0));
    load(body(), b, y, num(0), num(0));
    op_t(body(), op, d, a, b);
    store(body(), zp, num(0), num(0), d);
    t[0] = (void *)IN_A;
    t[1] = (void *)IN_B;
    t[2] = z;
    CHECK(run(t, NULL, 0) == PTO_OK);
    CHECK_MSG(all_same(z, want, 8), "%s", pto_opinfo_get(op)->name);
    end();
}

static void test_binary(void)
{
    static const float add[8] = {1.75f, 2.0f, 0.0f, NAN, NAN, 0.0f, 2e30f, 4.0f};
    static const float sub[8] = {1.25f, -6.0f, 0.0f, NAN, NAN, -0.0f, 0.0f, 10.0f};
    static const float mul[8] = {0.375f, -8.0f, -0.0f, NAN, NAN, -0.0f, INFINITY, -21.0f};
    float div[8] = {6.0f, -0.5f, NAN, NAN, NAN, NAN, 1.0f, 0};
    /* max/min: NaN propagates (the first NaN wins); equal values give a */
    static const float mx[8] = {1.5f, 4.0f, 0.0f, NAN, NAN, -0.0f, 1e30f, 7.0f};
    static const float mn[8] = {0.25f, -2.0f, 0.0f, NAN, NAN, -0.0f, 1e30f, -3.0f};
    volatile float seven = 7.0f, m3 = -3.0f;
    div[7] = seven / m3;
    run_binary(PTO_OP_TADD, add);
    run_binary(PTO_OP_TSUB, sub);
    run_binary(PTO_OP_TMUL, mul);
    run_binary(PTO_OP_TDIV, div);
    run_binary(PTO_OP_TMAX, mx);
    run_binary(PTO_OP_TMIN, mn);
}

/* kernel: tload a, x; OP d, a[, scalar]; tstore z, d   (f32[1, 8]) */
static void run_unary(pto_op op, int scalar, double sc, const float *in, const float *want)
{
    float z[8];
    void *t[2];
    int32_t x, zp, a, d;
    begin("un", PTO_KK_VECTOR);
    x = tensor("x", PTO_IN, PTO_F32, 1, 8);
    zp = tensor("z", PTO_OUT, PTO_F32, 1, 8);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 1, 8);
    d = tile(body(), "d", PTO_VEC, PTO_F32, 1, 8);
    load(body(), a, x, num(0), num(0));
    if (scalar) op_s(body(), op, d, a, sc);
    else op_t(body(), op, d, a, -1);
    store(body(), zp, num(0), num(0), d);
    t[0] = (void *)in;
    t[1] = z;
    CHECK(run(t, NULL, 0) == PTO_OK);
    CHECK_MSG(all_same(z, want, 8), "%s", pto_opinfo_get(op)->name);
    end();
}

static void test_scalar_ops(void)
{
    static const float in[8] = {1.0f, -2.0f, 0.5f, NAN, 3.0f, -0.0f, 100.0f, -7.5f};
    static const float adds[8] = {1.0f, -2.0f, 0.5f + 0x1p-24f, NAN, 3.0f, 0x1p-24f, 100.0f, -7.5f};
    static const float subs[8] = {-2.0f, -5.0f, -2.5f, NAN, 0.0f, -3.0f, 97.0f, -10.5f};
    static const float muls[8] = {0.5f, -1.0f, 0.25f, NAN, 1.5f, -0.0f, 50.0f, -3.75f};
    static const float divs[8] = {4.0f, -8.0f, 2.0f, NAN, 12.0f, -0.0f, 400.0f, -30.0f};
    static const float maxs[8] = {1.0f, 0.0f, 0.5f, NAN, 3.0f, -0.0f, 100.0f, 0.0f};
    static const float mins[8] = {-1.0f, -2.0f, -1.0f, NAN, -1.0f, -1.0f, -1.0f, -7.5f};
    /* the scalar is rounded to f32 first: 2^-24 + 2^-60 becomes 2^-24, and
       1 + 2^-24 is then a tie that rounds to 1 (in double it would not) */
    run_unary(PTO_OP_TADDS, 1, 0x1p-24 + 0x1p-60, in, adds);
    run_unary(PTO_OP_TSUBS, 1, 3.0, in, subs);
    run_unary(PTO_OP_TMULS, 1, 0.5, in, muls);
    run_unary(PTO_OP_TDIVS, 1, 0.25, in, divs);
    run_unary(PTO_OP_TMAXS, 1, 0.0, in, maxs);   /* tmaxs(-0, 0) = a = -0 */
    run_unary(PTO_OP_TMINS, 1, -1.0, in, mins);
}

/* The scalar of tadds .. tmins and texpands is converted to the destination
   tile's dtype first, as pto-isa's TMULS(dst, src, TileData::DType scalar)
   takes it: on an f16 tile 0.1 is half(0.1) = 0.0999755859375 (x * 0.1f
   rounded to f16 gives another f16 for some of the x below), on an i32 tile
   2.5 is 2 and -2.7 is -2. */
static void test_scalar_dtype(void)
{
    static uint16_t h[16], hy[16];
    static int32_t iv[8], iy[8], iz[8];
    void *t[5];
    int32_t xp, yp, ip, jp, kp, a, b, c;
    int i, bad = 0;
    begin("scalar_dtype", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F16, 1, 16);
    yp = tensor("y", PTO_OUT, PTO_F16, 1, 16);
    ip = tensor("i", PTO_IN, PTO_I32, 1, 8);
    jp = tensor("j", PTO_OUT, PTO_I32, 1, 8);
    kp = tensor("k", PTO_OUT, PTO_I32, 1, 8);
    a = tile(body(), "a", PTO_VEC, PTO_F16, 1, 16);
    b = tile(body(), "b", PTO_VEC, PTO_I32, 1, 8);
    c = tile(body(), "c", PTO_VEC, PTO_I32, 1, 8);
    load(body(), a, xp, num(0), num(0));
    op_s(body(), PTO_OP_TMULS, a, a, 0.1);
    store(body(), yp, num(0), num(0), a);
    load(body(), b, ip, num(0), num(0));
    op_s(body(), PTO_OP_TADDS, b, b, 2.5);
    store(body(), jp, num(0), num(0), b);
    op_s(body(), PTO_OP_TEXPANDS, c, -1, -2.7);
    store(body(), kp, num(0), num(0), c);
    for (i = 0; i < 16; i++) h[i] = pto_f32_to_f16((float)(i * 187 + 1));
    for (i = 0; i < 8; i++) iv[i] = i * 3 - 10;
    t[0] = h, t[1] = hy, t[2] = iv, t[3] = iy, t[4] = iz;
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (i = 0; i < 16; i++) {
        float x = pto_f16_to_f32(h[i]);
        float want = pto_f16_to_f32(pto_f32_to_f16(x * pto_f16_to_f32(pto_f32_to_f16(0.1f))));
        if (!same(pto_f16_to_f32(hy[i]), want) && bad++ < 4)
            printf("  y[%d] = %.9g, want %.9g\n", i, pto_f16_to_f32(hy[i]), want);
    }
    CHECK(bad == 0);
    /* and the unrounded scalar would have given another result somewhere */
    for (bad = 0, i = 0; i < 16; i++)
        bad += pto_f32_to_f16(pto_f16_to_f32(h[i]) * 0.1f) != hy[i];
    CHECK(bad > 0);
    for (i = 0; i < 8; i++) CHECK(iy[i] == iv[i] + 2 && iz[i] == -2);
    end();
}

/* The two's complement wrap of v to 32 bits, written with unsigned
   arithmetic only (not numerics.h's pto_wrap_i32). */
static int64_t wrap32(int64_t v)
{
    uint64_t u = (uint64_t)v & 0xffffffffu;
    return u >= 0x80000000u ? (int64_t)u - 4294967296LL : (int64_t)u;
}

static int64_t wrap8(int64_t v)
{
    uint64_t u = (uint64_t)v & 0xffu;
    return u >= 0x80u ? (int64_t)u - 256 : (int64_t)u;
}

/* i32 tiles add, multiply, compare and negate as integers (pto-isa's
   int32_t TADD ...): through f32, 16777217 + 2 was 16777220 and
   16777217 * 3 was 50331648 (f32 has 24 bits). An overflow wraps, as the
   device's (2147483640 * 3 is 2147483576, not INT32_MAX). */
static void test_int_exact(void)
{
    static int32_t x[8] = {16777217, -16777219, 2147483640, 123456789, -7, 0, 99999999, -2147483647};
    static int32_t y[8], z[8], w[8];
    void *t[4];
    int32_t xp, yp, zp, wp, a, b, c;
    int i;
    begin("int_exact", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_I32, 1, 8);
    yp = tensor("y", PTO_OUT, PTO_I32, 1, 8);
    zp = tensor("z", PTO_OUT, PTO_I32, 1, 8);
    wp = tensor("w", PTO_OUT, PTO_I32, 1, 8);
    a = tile(body(), "a", PTO_VEC, PTO_I32, 1, 8);
    b = tile(body(), "b", PTO_VEC, PTO_I32, 1, 8);
    c = tile(body(), "c", PTO_VEC, PTO_I32, 1, 8);
    load(body(), a, xp, num(0), num(0));
    op_s(body(), PTO_OP_TADDS, b, a, 2.0);
    store(body(), yp, num(0), num(0), b);
    op_s(body(), PTO_OP_TEXPANDS, c, -1, 3.0);
    op_t(body(), PTO_OP_TMUL, c, a, c);
    store(body(), zp, num(0), num(0), c);
    op_t(body(), PTO_OP_TSUB, b, b, a);
    op_t(body(), PTO_OP_TNEG, c, a, -1);
    op_t(body(), PTO_OP_TMAX, c, c, b);
    op_t(body(), PTO_OP_TADD, c, c, a);
    store(body(), wp, num(0), num(0), c);
    t[0] = x, t[1] = y, t[2] = z, t[3] = w;
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (i = 0; i < 8; i++) {
        int64_t want_y = (int64_t)x[i] + 2, want_z = (int64_t)x[i] * 3, nx = -(int64_t)x[i];
        int64_t want_w = (nx > 2 ? nx : 2) + x[i];
        want_y = wrap32(want_y);
        want_z = wrap32(want_z);
        CHECK_MSG(y[i] == want_y && z[i] == want_z && w[i] == want_w, "[%d] %d %d %d, want %lld %lld %lld", i,
                  (int)y[i], (int)z[i], (int)w[i], (long long)want_y, (long long)want_z, (long long)want_w);
    }
    end();
}

/* i32 row / column reductions and broadcasts are integer operations too
   (pto-isa's int32_t TROWSUM ...): through f32, 16777217 + 1 + 1 + 1 summed
   to 16777216 and the max of 16777221 was 16777220. Sums accumulate in
   int64 and are stored wrapped, as the device's int32 adds wrap. */
static void test_int_rowcol(void)
{
    static int32_t x[12] = {16777217, 1, 1, 1,
                            2147483640, 100, -5, 3,
                            -16777219, -33554435, 7, 16777221};
    static int32_t rv[3] = {3, -16777219, 1}, cv[4] = {16777217, -1, 2, 1000003};
    static const pto_op red[6] = {PTO_OP_TROWSUM, PTO_OP_TROWMAX, PTO_OP_TROWMIN,
                                  PTO_OP_TCOLSUM, PTO_OP_TCOLMAX, PTO_OP_TCOLMIN};
    static const pto_op exps[6] = {PTO_OP_TROWEXPANDADD, PTO_OP_TROWEXPANDSUB, PTO_OP_TROWEXPANDMUL,
                                   PTO_OP_TCOLEXPANDADD, PTO_OP_TCOLEXPANDSUB, PTO_OP_TCOLEXPANDMUL};
    int32_t out[6][4], z[12];
    void *t[7];
    int32_t xp, op[6], a, dr, dc, i, r, c;
    begin("int_red", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_I32, 3, 4);
    for (i = 0; i < 6; i++) {
        static const char *nm[6] = {"rs", "rmx", "rmn", "cs", "cmx", "cmn"};
        op[i] = i < 3 ? tensor(nm[i], PTO_OUT, PTO_I32, 3, 1) : tensor(nm[i], PTO_OUT, PTO_I32, 1, 4);
    }
    a = tile(body(), "a", PTO_VEC, PTO_I32, 3, 4);
    dr = tile(body(), "dr", PTO_VEC, PTO_I32, 3, 1);
    dc = tile(body(), "dc", PTO_VEC, PTO_I32, 1, 4);
    load(body(), a, xp, num(0), num(0));
    for (i = 0; i < 6; i++) {
        op_t(body(), red[i], i < 3 ? dr : dc, a, -1);
        store(body(), op[i], num(0), num(0), i < 3 ? dr : dc);
    }
    t[0] = x;
    for (i = 0; i < 6; i++) t[1 + i] = out[i];
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (i = 0; i < 6; i++) {
        int n = i < 3 ? 3 : 4;
        for (r = 0; r < n; r++) {
            int64_t acc = i < 3 ? x[r * 4] : x[r], want;
            for (c = 1; c < (i < 3 ? 4 : 3); c++) {
                int64_t e = i < 3 ? x[r * 4 + c] : x[c * 4 + r];
                acc = i % 3 == 0 ? acc + e : i % 3 == 1 ? (e > acc ? e : acc) : (e < acc ? e : acc);
            }
            want = wrap32(acc);
            CHECK_MSG(out[i][r] == want, "%s [%d] %d, want %lld", pto_opinfo_get(red[i])->name, (int)r,
                      (int)out[i][r], (long long)want);
        }
    }
    end();
    CHECK(out[0][0] == 16777220 && out[0][1] == -2147483558 && out[3][0] == 2147483638 && out[4][3] == 16777221);
    for (i = 0; i < 6; i++) {
        int32_t vp, zp, vt, d;
        int by_col = i >= 3;
        begin("int_exp", PTO_KK_VECTOR);
        xp = tensor("x", PTO_IN, PTO_I32, 3, 4);
        vp = by_col ? tensor("v", PTO_IN, PTO_I32, 1, 4) : tensor("v", PTO_IN, PTO_I32, 3, 1);
        zp = tensor("z", PTO_OUT, PTO_I32, 3, 4);
        a = tile(body(), "a", PTO_VEC, PTO_I32, 3, 4);
        vt = by_col ? tile(body(), "vt", PTO_VEC, PTO_I32, 1, 4) : tile(body(), "vt", PTO_VEC, PTO_I32, 3, 1);
        d = tile(body(), "d", PTO_VEC, PTO_I32, 3, 4);
        load(body(), a, xp, num(0), num(0));
        load(body(), vt, vp, num(0), num(0));
        op_t(body(), exps[i], d, a, vt);
        store(body(), zp, num(0), num(0), d);
        t[0] = x;
        t[1] = by_col ? cv : rv;
        t[2] = z;
        CHECK(run(t, NULL, 0) == PTO_OK);
        for (r = 0; r < 3; r++)
            for (c = 0; c < 4; c++) {
                int64_t e = x[r * 4 + c], v = by_col ? cv[c] : rv[r];
                int64_t want = wrap32(i % 3 == 0 ? e + v : i % 3 == 1 ? e - v : e * v);
                CHECK_MSG(z[r * 4 + c] == want, "%s [%d, %d] %d, want %lld", pto_opinfo_get(exps[i])->name, (int)r,
                          (int)c, (int)z[r * 4 + c], (long long)want);
            }
        end();
    }
}

/* Overflow at the edges of i32 and i8 wraps (two's complement), as the
   device's integer vector ops do (their saturation mode is off by
   default): add, sub, mul, the scalar forms, neg and abs of the least
   value, a row sum, and the row max / min of no elements (the dtype's
   least / greatest value). */
static void test_int_wrap(void)
{
    static const int64_t x32[8] = {2147483647, -2147483647 - 1, -2147483647 - 1, -1, 65536, 46341, 0, 1};
    static const int64_t y32[8] = {1, -1, -2147483647 - 1, -2147483647 - 1, 65536, 46341, -2147483647 - 1, 2147483647};
    static const pto_op bops[3] = {PTO_OP_TADD, PTO_OP_TSUB, PTO_OP_TMUL};
    int d;
    for (d = 0; d < 2; d++) {
        pto_dtype dt = d == 0 ? PTO_I32 : PTO_I8;
        int n = d == 0 ? 8 : 32, i, k;
        int64_t xv[32], yv[32], want[9][32];
        unsigned char xb[128], yb[128], out[9][128];
        void *t[11];
        int32_t xp, yp, op[9], a, b, c, r, e;
        for (i = 0; i < n; i++) {
            if (d == 0) xv[i] = x32[i], yv[i] = y32[i];
            else {
                static const int64_t x8[8] = {127, -128, -128, 100, -100, 64, 0, 1};
                static const int64_t y8[8] = {1, -1, -128, 3, 3, 64, -128, 127};
                xv[i] = x8[i % 8] - (i >= 8 && x8[i % 8] > -128 ? i / 8 : 0);
                yv[i] = y8[i % 8];
            }
            if (d == 0) { int32_t v = (int32_t)xv[i], w = (int32_t)yv[i]; memcpy(xb + 4 * i, &v, 4); memcpy(yb + 4 * i, &w, 4); }
            else { int8_t v = (int8_t)xv[i], w = (int8_t)yv[i]; memcpy(xb + i, &v, 1); memcpy(yb + i, &w, 1); }
        }
        begin("int_wrap", PTO_KK_VECTOR);
        xp = tensor("x", PTO_IN, dt, 1, n);
        yp = tensor("y", PTO_IN, dt, 1, n);
        for (k = 0; k < 9; k++) {
            static const char *nm[9] = {"add", "sub", "mul", "adds", "muls", "neg", "abs", "rsum", "rmax"};
            op[k] = tensor(nm[k], PTO_OUT, dt, 1, k < 7 ? n : 1);
        }
        a = tile(body(), "a", PTO_VEC, dt, 1, n);
        b = tile(body(), "b", PTO_VEC, dt, 1, n);
        c = tile(body(), "c", PTO_VEC, dt, 1, n);
        /* the interpreter does not verify: [1, 1] row vectors stand for the
           32-byte-column [R, 1] ones a checked kernel would use */
        r = tile(body(), "r", PTO_VEC, dt, 1, 1);
        e = tile(body(), "e", PTO_VEC, dt, 1, n);
        m->tiles[e].valid_r = num(1);
        m->tiles[e].valid_c = num(0);
        load(body(), a, xp, num(0), num(0));
        load(body(), b, yp, num(0), num(0));
        for (k = 0; k < 3; k++) {
            op_t(body(), bops[k], c, a, b);
            store(body(), op[k], num(0), num(0), c);
        }
        op_s(body(), PTO_OP_TADDS, c, a, 1.0);
        store(body(), op[3], num(0), num(0), c);
        op_s(body(), PTO_OP_TMULS, c, a, d == 0 ? 2.0 : 3.0);
        store(body(), op[4], num(0), num(0), c);
        op_t(body(), PTO_OP_TNEG, c, a, -1);
        store(body(), op[5], num(0), num(0), c);
        op_t(body(), PTO_OP_TABS, c, a, -1);
        store(body(), op[6], num(0), num(0), c);
        op_t(body(), PTO_OP_TROWSUM, r, a, -1);
        store(body(), op[7], num(0), num(0), r);
        op_t(body(), PTO_OP_TROWMAX, r, e, -1);
        store(body(), op[8], num(0), num(0), r);
        for (i = 0; i < n; i++) {
            want[0][i] = xv[i] + yv[i];
            want[1][i] = xv[i] - yv[i];
            want[2][i] = xv[i] * yv[i];
            want[3][i] = xv[i] + 1;
            want[4][i] = xv[i] * (d == 0 ? 2 : 3);
            want[5][i] = -xv[i];
            want[6][i] = xv[i] < 0 ? -xv[i] : xv[i];
        }
        t[0] = xb, t[1] = yb;
        for (k = 0; k < 9; k++) t[2 + k] = out[k];
        memset(out, 0x55, sizeof out);
        CHECK_MSG(run(t, NULL, 0) == PTO_OK, "%s", diag(0));
        want[7][0] = 0;
        for (i = 0; i < n; i++) want[7][0] += xv[i];
        want[8][0] = d == 0 ? -2147483647 - 1 : -128;
        for (k = 0; k < 9; k++)
            for (i = 0; i < (k < 7 ? n : 1); i++) {
                int64_t got = d == 0 ? (int64_t)((int32_t *)(void *)out[k])[i] : (int64_t)((int8_t *)(void *)out[k])[i];
                int64_t w = d == 0 ? wrap32(want[k][i]) : wrap8(want[k][i]);
                CHECK_MSG(got == w, "%s op %d [%d]: %lld, want %lld", pto_dtype_name(dt), k, i, (long long)got, (long long)w);
            }
        if (d == 0) {   /* by hand: INT32_MAX + 1, INT32_MIN * INT32_MIN, -INT32_MIN, |INT32_MIN| */
            const int32_t *o[9];
            for (k = 0; k < 9; k++) o[k] = (const int32_t *)(const void *)out[k];
            CHECK(o[0][0] == -2147483647 - 1 && o[1][1] == -2147483647 && o[2][2] == 0 && o[3][0] == -2147483647 - 1);
            CHECK(o[5][1] == -2147483647 - 1 && o[6][1] == -2147483647 - 1 && o[6][3] == 1 && o[4][0] == -2);
        } else {        /* 127 + 1, 100 * 3 = 300 = 256 + 44, |-128| */
            const int8_t *o[9];
            for (k = 0; k < 9; k++) o[k] = (const int8_t *)(const void *)out[k];
            CHECK(o[0][0] == -128 && o[2][3] == 44 && o[6][1] == -128 && o[5][1] == -128 && o[4][0] == 125);
        }
        end();
    }
}

static void test_unary_ops(void)
{
    static const float in[8] = {4.0f, 1.0f, 0.25f, -0.0f, NAN, -2.0f, 0.0f, INFINITY};
    float e[8], l[8], s[8], rs[8];
    static const float rc[8] = {0.25f, 1.0f, 4.0f, -INFINITY, NAN, -0.5f, INFINITY, 0.0f};
    static const float ab[8] = {4.0f, 1.0f, 0.25f, 0.0f, NAN, 2.0f, 0.0f, INFINITY};
    static const float ng[8] = {-4.0f, -1.0f, -0.25f, 0.0f, NAN, 2.0f, -0.0f, -INFINITY};
    static const float re[8] = {4.0f, 1.0f, 0.25f, 0.0f, 0.0f, 0.0f, 0.0f, INFINITY};
    int i;
    for (i = 0; i < 8; i++) {
        e[i] = expf(in[i]);
        l[i] = logf(in[i]);
        s[i] = sqrtf(in[i]);
        rs[i] = 1.0f / sqrtf(in[i]);
    }
    CHECK(rs[0] == 0.5f && l[1] == 0.0f && s[2] == 0.5f);
    run_unary(PTO_OP_TEXP, 0, 0, in, e);
    run_unary(PTO_OP_TLOG, 0, 0, in, l);
    run_unary(PTO_OP_TSQRT, 0, 0, in, s);
    run_unary(PTO_OP_TRSQRT, 0, 0, in, rs);
    run_unary(PTO_OP_TRECIP, 0, 0, in, rc);
    run_unary(PTO_OP_TABS, 0, 0, in, ab);
    run_unary(PTO_OP_TNEG, 0, 0, in, ng);
    run_unary(PTO_OP_TRELU, 0, 0, in, re);  /* -0 -> +0, NaN -> +0 */
}

/* Row reductions over a [2, 8] tile whose valid region is 2 x 5 (the padding
   loaded as 0 must not take part); row expansions. */
static void test_rows(void)
{
    static const float x[16] = {1e8f, 1.0f, -1e8f, 1.0f, 0.5f, 9, 9, 9,
                                -3.0f, -1.0f, -2.0f, -8.0f, -0.5f, 9, 9, 9};
    float out[3][2], want[3][2];
    void *t[4];
    int32_t xp, op[3], a, d, i;
    static const pto_op ops[3] = {PTO_OP_TROWSUM, PTO_OP_TROWMAX, PTO_OP_TROWMIN};
    begin("rows", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 2, 8);
    for (i = 0; i < 3; i++) {
        const char *nm[3] = {"s", "mx", "mn"};
        op[i] = tensor(nm[i], PTO_OUT, PTO_F32, 2, 1);
    }
    a = tile(body(), "a", PTO_VEC, PTO_F32, 2, 8);
    m->tiles[a].valid_r = num(2);
    m->tiles[a].valid_c = num(5);
    d = tile(body(), "d", PTO_VEC, PTO_F32, 2, 1);
    load(body(), a, xp, num(0), num(0));
    for (i = 0; i < 3; i++) {
        op_t(body(), ops[i], d, a, -1);
        store(body(), op[i], num(0), num(0), d);
    }
    t[0] = (void *)x;
    t[1] = out[0];
    t[2] = out[1];
    t[3] = out[2];
    CHECK(run(t, NULL, 0) == PTO_OK);
    /* left to right in f32: 1e8 + 1 = 1e8, - 1e8 = 0, + 1 = 1, + 0.5 */
    want[0][0] = 1.5f;
    want[0][1] = -14.5f;
    want[1][0] = 1e8f;
    want[1][1] = -0.5f;
    want[2][0] = -1e8f;
    want[2][1] = -8.0f;
    CHECK(all_same(out[0], want[0], 6));
    end();
}

static void test_rowexpand(void)
{
    static const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const float v[2] = {2.0f, -4.0f};
    static const pto_op ops[4] = {PTO_OP_TROWEXPANDADD, PTO_OP_TROWEXPANDSUB, PTO_OP_TROWEXPANDMUL,
                                  PTO_OP_TROWEXPANDDIV};
    static const float want[4][8] = {
        {3, 4, 5, 6, 1, 2, 3, 4},
        {-1, 0, 1, 2, 9, 10, 11, 12},
        {2, 4, 6, 8, -20, -24, -28, -32},
        {0.5f, 1, 1.5f, 2, -1.25f, -1.5f, -1.75f, -2}};
    int i;
    for (i = 0; i < 4; i++) {
        float z[8];
        void *t[3];
        int32_t xp, vp, zp, a, vt, d;
        begin("rowexp", PTO_KK_VECTOR);
        xp = tensor("x", PTO_IN, PTO_F32, 2, 4);
        vp = tensor("v", PTO_IN, PTO_F32, 2, 1);
        zp = tensor("z", PTO_OUT, PTO_F32, 2, 4);
        a = tile(body(), "a", PTO_VEC, PTO_F32, 2, 4);
        vt = tile(body(), "vt", PTO_VEC, PTO_F32, 2, 1);
        d = tile(body(), "d", PTO_VEC, PTO_F32, 2, 4);
        load(body(), a, xp, num(0), num(0));
        load(body(), vt, vp, num(0), num(0));
        op_t(body(), ops[i], d, a, vt);
        store(body(), zp, num(0), num(0), d);
        t[0] = (void *)x;
        t[1] = (void *)v;
        t[2] = z;
        CHECK(run(t, NULL, 0) == PTO_OK);
        CHECK_MSG(all_same(z, want[i], 8), "%s", pto_opinfo_get(ops[i])->name);
        end();
    }
}

/* Column reductions over a [4, 8] tile whose valid region is 3 x 5 (row 3
   and columns 5..7 hold 7s that must not take part), into d [1, 8] with
   valid(1, 5): top to bottom in f32, starting from row 0. Then no valid
   rows at all. */
static void test_cols(void)
{
    float x[32], out[3][8], want[3][8];
    void *t[4];
    int32_t xp, op[3], a, d, i, j;
    static const pto_op ops[3] = {PTO_OP_TCOLSUM, PTO_OP_TCOLMAX, PTO_OP_TCOLMIN};
    const float rows[3][5] = {{1e8f, -0.0f, 2.0f, 3.0f, 0.5f},
                              {1.0f, -0.0f, 0.0f, -2.0f, 0.25f},
                              {-1e8f, -0.0f, 0.0f /* a NaN, below */, 5.0f, -1.0f}};
    for (i = 0; i < 32; i++) x[i] = 7.0f;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 5; j++) x[i * 8 + j] = rows[i][j];
    x[2 * 8 + 2] = pto_f32_from_bits(0x7fc00001u);  /* a NaN whose payload max/min keep */
    begin("cols", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 4, 8);
    for (i = 0; i < 3; i++) {
        const char *nm[3] = {"s", "mx", "mn"};
        op[i] = tensor(nm[i], PTO_OUT, PTO_F32, 1, 8);
    }
    a = tile(body(), "a", PTO_VEC, PTO_F32, 4, 8);
    m->tiles[a].valid_r = num(3);
    m->tiles[a].valid_c = num(5);
    d = tile(body(), "d", PTO_VEC, PTO_F32, 1, 8);
    m->tiles[d].valid_r = num(1);
    m->tiles[d].valid_c = num(5);
    load(body(), a, xp, num(0), num(0));
    for (i = 0; i < 3; i++) {
        op_t(body(), ops[i], d, a, -1);
        store(body(), op[i], num(0), num(0), d);
    }
    for (i = 0; i < 3; i++)
        for (j = 0; j < 8; j++) out[i][j] = want[i][j] = -99.0f;  /* columns 5..7: not stored */
    t[0] = x;
    t[1] = out[0];
    t[2] = out[1];
    t[3] = out[2];
    CHECK(run(t, NULL, 0) == PTO_OK);
    /* column 0: (1e8 + 1) is 1e8 in f32, then - 1e8 = 0 (bottom to top would give 1) */
    want[0][0] = 0.0f, want[1][0] = 1e8f, want[2][0] = -1e8f;
    /* column 1: three -0.0: the sum starts from row 0, so it stays -0.0 */
    want[0][1] = -0.0f, want[1][1] = -0.0f, want[2][1] = -0.0f;
    /* column 2: a NaN in row 2: the sum is the canonical NaN; max / min keep
       the NaN operand's bits (the first NaN wins) */
    want[0][2] = pto_f32_from_bits(0x7fc00000u);
    want[1][2] = want[2][2] = pto_f32_from_bits(0x7fc00001u);
    want[0][3] = 6.0f, want[1][3] = 5.0f, want[2][3] = -2.0f;
    want[0][4] = -0.25f, want[1][4] = 0.5f, want[2][4] = -1.0f;
    for (i = 0; i < 3; i++) {
        CHECK_MSG(all_same(out[i], want[i], 8), "%s", pto_opinfo_get(ops[i])->name);
        CHECK_MSG(bits(out[i][2]) == bits(want[i][2]), "%s: NaN bits %08x", pto_opinfo_get(ops[i])->name,
                  bits(out[i][2]));
    }
    CHECK(bits(out[0][1]) == 0x80000000u);
    end();

    /* a source with no valid rows: 0, -inf, +inf in d's valid columns */
    for (i = 0; i < 3; i++) {
        void *t2[2];
        float o[8];
        begin("cols0", PTO_KK_VECTOR);
        xp = tensor("x", PTO_IN, PTO_F32, 4, 8);
        op[0] = tensor("z", PTO_OUT, PTO_F32, 1, 8);
        a = tile(body(), "a", PTO_VEC, PTO_F32, 4, 8);
        m->tiles[a].valid_r = num(0);
        d = tile(body(), "d", PTO_VEC, PTO_F32, 1, 8);
        load(body(), a, xp, num(0), num(0));
        op_t(body(), ops[i], d, a, -1);
        store(body(), op[0], num(0), num(0), d);
        t2[0] = x;
        t2[1] = o;
        CHECK(run(t2, NULL, 0) == PTO_OK);
        for (j = 0; j < 8; j++) CHECK(same(o[j], i == 0 ? 0.0f : i == 1 ? -INFINITY : INFINITY));
        CHECK(bits(o[0]) == (i == 0 ? 0u : i == 1 ? 0xff800000u : 0x7f800000u));
        end();
    }
}

/* Column broadcasts: d[r, c] = a[r, c] op v[0, c]; over d's valid region
   only (d valid(2, 3): column 3 of z keeps its bytes). */
static void test_colexpand(void)
{
    static const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const float v[4] = {2.0f, -4.0f, 0.5f, 8.0f};
    static const pto_op ops[4] = {PTO_OP_TCOLEXPANDADD, PTO_OP_TCOLEXPANDSUB, PTO_OP_TCOLEXPANDMUL,
                                  PTO_OP_TCOLEXPANDDIV};
    static const float want[4][8] = {
        {3, -2, 3.5f, 99, 7, 2, 7.5f, 99},
        {-1, 6, 2.5f, 99, 3, 10, 6.5f, 99},
        {2, -8, 1.5f, 99, 10, -24, 3.5f, 99},
        {0.5f, -0.5f, 6, 99, 2.5f, -1.5f, 14, 99}};
    int i, j;
    for (i = 0; i < 4; i++) {
        float z[8];
        void *t[3];
        int32_t xp, vp, zp, a, vt, d;
        begin("colexp", PTO_KK_VECTOR);
        xp = tensor("x", PTO_IN, PTO_F32, 2, 4);
        vp = tensor("v", PTO_IN, PTO_F32, 1, 4);
        zp = tensor("z", PTO_OUT, PTO_F32, 2, 4);
        a = tile(body(), "a", PTO_VEC, PTO_F32, 2, 4);
        vt = tile(body(), "vt", PTO_VEC, PTO_F32, 1, 4);
        d = tile(body(), "d", PTO_VEC, PTO_F32, 2, 4);
        m->tiles[d].valid_r = num(2);
        m->tiles[d].valid_c = num(3);
        load(body(), a, xp, num(0), num(0));
        load(body(), vt, vp, num(0), num(0));
        op_t(body(), ops[i], d, a, vt);
        store(body(), zp, num(0), num(0), d);
        for (j = 0; j < 8; j++) z[j] = 99.0f;
        t[0] = (void *)x;
        t[1] = (void *)v;
        t[2] = z;
        CHECK(run(t, NULL, 0) == PTO_OK);
        CHECK_MSG(all_same(z, want[i], 8), "%s", pto_opinfo_get(ops[i])->name);
        end();
    }
}

/* tcvt f32 -> f16 / bf16 / i32 and f16 -> f32; tmov vec -> vec keeps bits. */
static void test_cvt(void)
{
    static const float x[4] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65520.0f, -2.5f};
    static const float x2[4] = {2.5f, -3.5f, 1e10f, NAN};
    uint16_t h[4], bh[4];
    int32_t iv[4];
    float back[4];
    void *t[6];
    int32_t xp, x2p, hp, bp, ip, fp, a, a2, th, tb, ti, tf;
    begin("cvt", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 1, 4);
    x2p = tensor("x2", PTO_IN, PTO_F32, 1, 4);
    hp = tensor("h", PTO_OUT, PTO_F16, 1, 4);
    bp = tensor("b", PTO_OUT, PTO_BF16, 1, 4);
    ip = tensor("i", PTO_OUT, PTO_I32, 1, 4);
    fp = tensor("f", PTO_OUT, PTO_F32, 1, 4);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 1, 4);
    a2 = tile(body(), "a2", PTO_VEC, PTO_F32, 1, 4);
    th = tile(body(), "th", PTO_VEC, PTO_F16, 1, 4);
    tb = tile(body(), "tb", PTO_VEC, PTO_BF16, 1, 4);
    ti = tile(body(), "ti", PTO_VEC, PTO_I32, 1, 4);
    tf = tile(body(), "tf", PTO_VEC, PTO_F32, 1, 4);
    load(body(), a, xp, num(0), num(0));
    load(body(), a2, x2p, num(0), num(0));
    op_t(body(), PTO_OP_TCVT, th, a, -1);
    op_t(body(), PTO_OP_TCVT, tb, a, -1);
    op_t(body(), PTO_OP_TCVT, ti, a2, -1);
    op_t(body(), PTO_OP_TCVT, tf, th, -1);
    store(body(), hp, num(0), num(0), th);
    store(body(), bp, num(0), num(0), tb);
    store(body(), ip, num(0), num(0), ti);
    store(body(), fp, num(0), num(0), tf);
    t[0] = (void *)x;
    t[1] = (void *)x2;
    t[2] = h;
    t[3] = bh;
    t[4] = iv;
    t[5] = back;
    CHECK(run(t, NULL, 0) == PTO_OK);
    CHECK(h[0] == 0x3c00 && h[1] == 0x3c02 && h[2] == 0x7c00 && h[3] == 0xc100);
    CHECK(bh[0] == 0x3f80 && bh[1] == 0x3f80 && bh[2] == 0x4780 && bh[3] == 0xc020);
    CHECK(iv[0] == 2 && iv[1] == -4 && iv[2] == 2147483647 && iv[3] == 0);
    CHECK(back[0] == 1.0f && back[1] == 1.0f + 0x1p-9f && back[2] == INFINITY && back[3] == -2.5f);
    end();
}

/* ttrans: d[c, r] = a[r, c] over a's valid region, f32 and i8 bits moved as
   they are (-0.0 and a NaN payload kept), nothing written past it (y's
   padding rows stay 0). */
static void test_trans(void)
{
    float x[2 * 8], y[8 * 2];
    int8_t bx[4 * 32], by[32 * 4];
    void *t[4];
    int32_t xp, yp, bxp, byp, a, d, ba, bd, i, r, c, bad = 0;
    uint32_t nan = 0x7fc01234u;
    begin("trans", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 2, 8);
    yp = tensor("y", PTO_OUT, PTO_F32, 8, 2);
    bxp = tensor("bx", PTO_IN, PTO_I8, 4, 32);
    byp = tensor("by", PTO_OUT, PTO_I8, 32, 4);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 2, 8);
    pto_set_tile_valid(m, a, num(2), num(6));
    d = tile(body(), "d", PTO_VEC, PTO_F32, 8, 2);
    pto_set_tile_valid(m, d, num(6), num(2));
    ba = tile(body(), "ba", PTO_VEC, PTO_I8, 4, 32);
    bd = tile(body(), "bd", PTO_VEC, PTO_I8, 32, 4);
    load(body(), a, xp, num(0), num(0));
    op_t(body(), PTO_OP_TTRANS, d, a, -1);
    store(body(), yp, num(0), num(0), d);
    load(body(), ba, bxp, num(0), num(0));
    op_t(body(), PTO_OP_TTRANS, bd, ba, -1);
    store(body(), byp, num(0), num(0), bd);
    for (i = 0; i < 16; i++) x[i] = (float)(i + 1);
    x[1] = -0.0f;
    memcpy(&x[9], &nan, 4);
    for (i = 0; i < 128; i++) bx[i] = (int8_t)(i * 7 - 100);
    memset(y, 0, sizeof y);
    memset(by, 0, sizeof by);
    t[0] = x;
    t[1] = y;
    t[2] = bx;
    t[3] = by;
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (r = 0; r < 8; r++)
        for (c = 0; c < 2; c++)
            bad += r < 6 ? memcmp(&y[r * 2 + c], &x[c * 8 + r], 4) != 0 : y[r * 2 + c] != 0.0f;
    for (r = 0; r < 32; r++)
        for (c = 0; c < 4; c++) bad += by[r * 4 + c] != bx[c * 32 + r];
    CHECK_MSG(bad == 0, "%d elements of the transposes wrong", (int)bad);
    CHECK(signbit(y[2]) && y[2] == 0.0f);
    end();
}

/* texpands fills the valid region only; a binary op into a tile with a
   smaller valid region leaves the rest unchanged (zero here); tmov copies. */
/* tcvt f16 -> i8 keeps the low 8 bits of the rounded value (pto-isa's a2a3
   TCVT runs that narrowing with saturation off by default), inf gives
   127 / -128 and NaN 0; f32 -> i32 (test_cvt) saturates. */
static void test_cvt_f16_i8(void)
{
    static const float xs[16] = {300.0f, 200.0f, -129.0f, 127.5f, -128.5f, INFINITY, -INFINITY, NAN,
                                 2.5f,   -2.5f,  65504.0f, 256.0f, -1.0f,  100.0f,   383.0f,    384.0f};
    static const int8_t want[16] = {44, -56, 127, -128, -128, 127, -128, 0, 2, -2, -32, 0, -1, 100, 127, -128};
    uint16_t h[16];
    int8_t q[16];
    void *t[2];
    int32_t hp, qp, th, tq, i;
    for (i = 0; i < 16; i++) h[i] = pto_f32_to_f16(xs[i]);
    begin("cvt8", PTO_KK_VECTOR);
    hp = tensor("h", PTO_IN, PTO_F16, 1, 16);
    qp = tensor("q", PTO_OUT, PTO_I8, 1, 16);
    th = tile(body(), "th", PTO_VEC, PTO_F16, 1, 16);
    tq = tile(body(), "tq", PTO_VEC, PTO_I8, 1, 16);
    load(body(), th, hp, num(0), num(0));
    op_t(body(), PTO_OP_TCVT, tq, th, -1);
    store(body(), qp, num(0), num(0), tq);
    t[0] = h, t[1] = q;
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (i = 0; i < 16; i++) CHECK_MSG(q[i] == want[i], "tcvt f16 %g -> i8: %d, want %d", (double)xs[i], q[i], want[i]);
    end();
}

static void test_fill_valid(void)
{
    uint16_t z[2 * 16];
    float w[2 * 16];
    static float x[2 * 16];
    void *t[3];
    int32_t xp, zp, wp, f, a, d, e, i;
    for (i = 0; i < 32; i++) x[i] = (float)(i + 1);
    begin("fill", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 2, 16);
    zp = tensor("z", PTO_OUT, PTO_F16, 2, 16);
    wp = tensor("w", PTO_OUT, PTO_F32, 2, 16);
    f = tile(body(), "f", PTO_VEC, PTO_F16, 2, 16);
    m->tiles[f].valid_r = num(1);
    m->tiles[f].valid_c = num(3);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 2, 16);
    d = tile(body(), "d", PTO_VEC, PTO_F32, 2, 16);
    m->tiles[d].valid_r = num(2);
    m->tiles[d].valid_c = bin(PTO_E_ADD, num(2), num(3));
    e = tile(body(), "e", PTO_VEC, PTO_F32, 2, 16);
    op_s(body(), PTO_OP_TEXPANDS, f, -1, 0.1);
    store(body(), zp, num(0), num(0), f);
    load(body(), a, xp, num(0), num(0));
    op_t(body(), PTO_OP_TADD, d, a, a);
    op_t(body(), PTO_OP_TMOV, e, d, -1);
    store(body(), wp, num(0), num(0), e);
    for (i = 0; i < 32; i++) z[i] = 0xabcd;
    t[0] = x;
    t[1] = z;
    t[2] = w;
    CHECK(run(t, NULL, 0) == PTO_OK);
    CHECK(z[0] == 0x2e66 && z[1] == 0x2e66 && z[2] == 0x2e66);
    for (i = 3; i < 32; i++)
        if (z[i] != 0xabcd) break;
    CHECK_MSG(i == 32, "tstore wrote outside the valid region at %d", i);
    for (i = 0; i < 32; i++) {
        float want = (i % 16) < 5 ? 2.0f * (float)(i + 1) : 0.0f;
        if (w[i] != want) break;
    }
    CHECK_MSG(i == 32, "element %d outside the valid region changed", i);
    end();
}

/* ---- matmul ---------------------------------------------------------------- */

static float h2f(uint16_t h)
{
    int e = (h >> 10) & 31, mnt = h & 1023;
    double v = e == 0 ? ldexp(mnt, -24) : ldexp(mnt + 1024, e - 25);
    return (float)((h & 0x8000) ? -v : v);
}

/* a f16[32, 48] x b f16[48, 16]: L1 tiles, textract of K slices of 16 into
   L0, tmatmul then tmatmul_acc; stored as f32, as f16 and via tmov acc -> vec f16. */
static void test_matmul(void)
{
    enum { M = 32, KK = 48, N = 16 };
    static uint16_t a[M * KK], b[KK * N], c16[M * N], v16[M * N];
    static float c[M * N], ref[M * N];
    uint32_t seed = 7;
    void *t[5];
    int32_t ap, bp, cp, c16p, v16p, acc, am, bm, loop, lb, l, r, ifs, s, v;
    int i, j, k, bad16 = 0;
    for (i = 0; i < M * KK + KK * N; i++) {
        uint16_t h;
        seed = seed * 1103515245u + 12345u;
        h = (uint16_t)(((seed >> 16) & 0x8000) | ((((seed >> 20) % 11) + 10) << 10) | ((seed >> 8) & 0x3ff));
        if (i < M * KK) a[i] = h; else b[i - M * KK] = h;
    }
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            float sum = 0.0f;
            for (k = 0; k < KK; k++) {
                float p = h2f(a[i * KK + k]) * h2f(b[k * N + j]);
                sum = sum + p;
            }
            ref[i * N + j] = sum;
        }
    begin("mm", PTO_KK_CUBE);
    ap = tensor("a", PTO_IN, PTO_F16, M, KK);
    bp = tensor("b", PTO_IN, PTO_F16, KK, N);
    cp = tensor("c", PTO_OUT, PTO_F32, M, N);
    c16p = tensor("c16", PTO_OUT, PTO_F16, M, N);
    v16p = tensor("v16", PTO_OUT, PTO_F16, M, N);
    acc = tile(body(), "acc", PTO_ACC, PTO_F32, M, N);
    am = tile(body(), "am", PTO_MAT, PTO_F16, M, KK);
    bm = tile(body(), "bm", PTO_MAT, PTO_F16, KK, N);
    load(body(), am, ap, num(0), num(0));
    load(body(), bm, bp, num(0), num(0));
    loop = pto_add_for(m, body(), "k", num(0), num(KK), num(16), g_loc);
    lb = m->stmts[loop].body;
    l = tile(lb, "l", PTO_LEFT, PTO_F16, M, 16);
    r = tile(lb, "r", PTO_RIGHT, PTO_F16, 16, N);
    s = pto_add_op(m, lb, PTO_OP_TEXTRACT, g_loc);
    pto_arg_tile(m, s, l, g_loc);
    pto_arg_tile(m, s, am, g_loc);
    pto_arg_int(m, s, num(0), g_loc);
    pto_arg_int(m, s, var("k"), g_loc);
    s = pto_add_op(m, lb, PTO_OP_TEXTRACT, g_loc);
    pto_arg_tile(m, s, r, g_loc);
    pto_arg_tile(m, s, bm, g_loc);
    pto_arg_int(m, s, var("k"), g_loc);
    pto_arg_int(m, s, num(0), g_loc);
    ifs = pto_add_if(m, lb, var("k"), PTO_EQ, num(0), g_loc);
    op_t(m->stmts[ifs].body, PTO_OP_TMATMUL, acc, l, r);
    op_t(pto_if_else(m, ifs), PTO_OP_TMATMUL_ACC, acc, l, r);
    store(body(), cp, num(0), num(0), acc);
    store(body(), c16p, num(0), num(0), acc);
    v = tile(body(), "v", PTO_VEC, PTO_F16, M, N);
    op_t(body(), PTO_OP_TMOV, v, acc, -1);
    store(body(), v16p, num(0), num(0), v);
    t[0] = a;
    t[1] = b;
    t[2] = c;
    t[3] = c16;
    t[4] = v16;
    CHECK(run(t, NULL, 0) == PTO_OK);
    CHECK(all_same(c, ref, M * N));
    for (i = 0; i < M * N; i++)
        if (c16[i] != pto_f32_to_f16(ref[i]) || v16[i] != c16[i]) bad16++;
    CHECK(bad16 == 0);
    end();
}

/* f32 x f32 -> f32: products are not exact, so an FMA or a wider
   accumulator would show. */
/* i8 x i8 -> i32 is exact, as the cube's integer MACs: with 127 * 127
   products over K = 1056 the running sum passes 2^24, where f32 would round
   (checked below: the f32 sum differs), and tmatmul_acc adds on exactly. */
static void test_matmul_i8(void)
{
    enum { M = 16, KK = 1056, N = 16 };
    static int8_t a[M * KK], b[KK * N];
    static int32_t c[M * N], c2[M * N];
    void *t[4];
    int32_t ap, bp, cp, c2p, am, bm, al, br, acc;
    int i, j, k, bad = 0;
    float f = 0.0f;
    int64_t exact = 0;
    for (i = 0; i < M * KK; i++) a[i] = (int8_t)(i % 7 == 3 ? 126 : 127);
    for (i = 0; i < KK * N; i++) b[i] = (int8_t)(i % 5 == 0 ? 125 : 127);
    for (k = 0; k < KK; k++) {
        float p = (float)a[k] * (float)b[k * N];
        f = f + p;
        exact += (int64_t)a[k] * b[k * N];
    }
    CHECK_MSG((double)f != (double)exact, "the f32 sum %.1f equals the exact one: the case shows nothing", (double)f);
    begin("mm8", PTO_KK_CUBE);
    ap = tensor("a", PTO_IN, PTO_I8, M, KK);
    bp = tensor("b", PTO_IN, PTO_I8, KK, N);
    cp = tensor("c", PTO_OUT, PTO_I32, M, N);
    c2p = tensor("c2", PTO_OUT, PTO_I32, M, N);
    am = tile(body(), "am", PTO_MAT, PTO_I8, M, KK);
    bm = tile(body(), "bm", PTO_MAT, PTO_I8, KK, N);
    al = tile(body(), "al", PTO_LEFT, PTO_I8, M, KK);
    br = tile(body(), "br", PTO_RIGHT, PTO_I8, KK, N);
    acc = tile(body(), "acc", PTO_ACC, PTO_I32, M, N);
    load(body(), am, ap, num(0), num(0));
    load(body(), bm, bp, num(0), num(0));
    op_t(body(), PTO_OP_TMOV, al, am, -1);
    op_t(body(), PTO_OP_TMOV, br, bm, -1);
    op_t(body(), PTO_OP_TMATMUL, acc, al, br);
    store(body(), cp, num(0), num(0), acc);
    op_t(body(), PTO_OP_TMATMUL_ACC, acc, al, br);
    store(body(), c2p, num(0), num(0), acc);
    t[0] = a, t[1] = b, t[2] = c, t[3] = c2;
    CHECK_MSG(run(t, NULL, 0) == PTO_OK, "%s", diag(0));
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            int64_t want = 0;
            for (k = 0; k < KK; k++) want += (int64_t)a[i * KK + k] * b[k * N + j];
            if (c[i * N + j] != want || c2[i * N + j] != 2 * want) {
                if (bad++ < 3) printf("  c[%d][%d] = %d, c2 %d, want %lld\n", i, j, (int)c[i * N + j], (int)c2[i * N + j],
                                      (long long)want);
            }
        }
    CHECK(bad == 0);
    CHECK(c[0] == exact);
    end();
}

static void test_matmul_f32(void)
{
    enum { M = 8, KK = 24, N = 8 };
    static float a[M * KK], b[KK * N], c[M * N], ref[M * N];
    uint32_t seed = 3;
    void *t[3];
    int32_t ap, bp, cp, am, bm, l, r, acc;
    int i, j, k;
    for (i = 0; i < M * KK + KK * N; i++) {
        float v;
        seed = seed * 1664525u + 1013904223u;
        v = (float)((int)(seed >> 9) - (1 << 22)) / 3000.0f;
        if (i < M * KK) a[i] = v; else b[i - M * KK] = v;
    }
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            float sum = 0.0f;
            for (k = 0; k < KK; k++) {
                float p = a[i * KK + k] * b[k * N + j];
                sum = sum + p;
            }
            ref[i * N + j] = sum;
        }
    begin("mm32", PTO_KK_CUBE);
    ap = tensor("a", PTO_IN, PTO_F32, M, KK);
    bp = tensor("b", PTO_IN, PTO_F32, KK, N);
    cp = tensor("c", PTO_OUT, PTO_F32, M, N);
    am = tile(body(), "am", PTO_MAT, PTO_F32, M, KK);
    bm = tile(body(), "bm", PTO_MAT, PTO_F32, KK, N);
    l = tile(body(), "l", PTO_LEFT, PTO_F32, M, KK);
    r = tile(body(), "r", PTO_RIGHT, PTO_F32, KK, N);
    acc = tile(body(), "acc", PTO_ACC, PTO_F32, M, N);
    load(body(), am, ap, num(0), num(0));
    load(body(), bm, bp, num(0), num(0));
    op_t(body(), PTO_OP_TMOV, l, am, -1);
    op_t(body(), PTO_OP_TMOV, r, bm, -1);
    op_t(body(), PTO_OP_TMATMUL, acc, l, r);
    store(body(), cp, num(0), num(0), acc);
    t[0] = a;
    t[1] = b;
    t[2] = c;
    CHECK(run(t, NULL, 0) == PTO_OK);
    CHECK(all_same(c, ref, M * N));
    end();
}

/* tstore from an f32 acc to an f16 / bf16 tensor: the fixpipe's cast, round
   to nearest even (ties to even), overflow to inf, NaN stays NaN. acc = a x I,
   so acc holds a exactly; rows 0..7 of a's diagonal test f16, rows 8..15 bf16. */
static void test_store_cast(void)
{
    enum { N = 16 };
    static const uint32_t in[N] = {
        0x3f801000u, /* 1 + 2^-11: f16 tie -> 1.0 (even) */
        0x3f803000u, /* 1 + 3 * 2^-11: f16 tie -> 1 + 2^-9 (even) */
        0x477ff000u, /* 65520: f16 tie between 65504 and 2^16 -> inf */
        0x477fefffu, /* just below: 65504 */
        0xd01502f9u, /* -1e10: -inf */
        0x33000000u, /* 2^-25: tie between 0 and the smallest subnormal -> 0 */
        0x33c00000u, /* 3 * 2^-25: tie -> 2^-23 (even) */
        0x7fc00000u, /* NaN */
        0x3f808000u, /* 1 + 2^-8: bf16 tie -> 1.0 */
        0x3f818000u, /* 1 + 3 * 2^-8: bf16 tie -> 1 + 2^-6 */
        0x7f7fffffu, /* FLT_MAX: bf16 inf */
        0xff7fffffu, /* -FLT_MAX: bf16 -inf */
        0x501502f9u, /* 1e10: down to 0x5015 */
        0x3f808001u, /* just above the tie: up */
        0x80000000u, /* -0 + 0 products = +0 */
        0x7fc00000u, /* NaN */
    };
    static const uint16_t want16[8] = {0x3c00, 0x3c02, 0x7c00, 0x7bff, 0xfc00, 0x0000, 0x0002, 0x7e00};
    static const uint16_t wantb[8] = {0x3f80, 0x3f82, 0x7f80, 0xff80, 0x5015, 0x3f81, 0x0000, 0x7fc0};
    static float a[N * N], b[N * N], c32[N * N];
    static uint16_t c16[N * N], cb[N * N];
    void *t[5];
    int32_t ap, bp, cp, c16p, cbp, am, bm, l, r, acc;
    int i;
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    for (i = 0; i < N; i++) {
        memcpy(&a[i * N + i], &in[i], 4);
        b[i * N + i] = 1.0f;
    }
    begin("storecast", PTO_KK_CUBE);
    ap = tensor("a", PTO_IN, PTO_F32, N, N);
    bp = tensor("b", PTO_IN, PTO_F32, N, N);
    cp = tensor("c", PTO_OUT, PTO_F32, N, N);
    c16p = tensor("c16", PTO_OUT, PTO_F16, N, N);
    cbp = tensor("cb", PTO_OUT, PTO_BF16, N, N);
    am = tile(body(), "am", PTO_MAT, PTO_F32, N, N);
    bm = tile(body(), "bm", PTO_MAT, PTO_F32, N, N);
    l = tile(body(), "l", PTO_LEFT, PTO_F32, N, N);
    r = tile(body(), "r", PTO_RIGHT, PTO_F32, N, N);
    acc = tile(body(), "acc", PTO_ACC, PTO_F32, N, N);
    load(body(), am, ap, num(0), num(0));
    load(body(), bm, bp, num(0), num(0));
    op_t(body(), PTO_OP_TMOV, l, am, -1);
    op_t(body(), PTO_OP_TMOV, r, bm, -1);
    op_t(body(), PTO_OP_TMATMUL, acc, l, r);
    store(body(), cp, num(0), num(0), acc);
    store(body(), c16p, num(0), num(0), acc);
    store(body(), cbp, num(0), num(0), acc);
    t[0] = a;
    t[1] = b;
    t[2] = c32;
    t[3] = c16;
    t[4] = cb;
    CHECK(run(t, NULL, 0) == PTO_OK);
    CHECK(pto_verify(ctx, m) == PTO_OK); /* the verifier takes the narrowing stores */
    for (i = 0; i < 8; i++) {
        CHECK(c16[i * N + i] == want16[i]);
        CHECK(cb[(i + 8) * N + i + 8] == wantb[i]);
    }
    CHECK(c16[1] == 0 && cb[1] == 0); /* +0 off the diagonal */
    end();
}

/* Equal dtypes copy bits: i32 values above 2^24 survive tload/tmov/tstore. */
static void test_i32_copy(void)
{
    static const int32_t x[4] = {16777217, 2147483647, -2147483647 - 1, -16777219};
    int32_t z[4];
    void *t[2];
    int32_t xp, zp, a, d;
    begin("i32", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_I32, 1, 4);
    zp = tensor("z", PTO_OUT, PTO_I32, 1, 4);
    a = tile(body(), "a", PTO_VEC, PTO_I32, 1, 4);
    d = tile(body(), "d", PTO_VEC, PTO_I32, 1, 4);
    load(body(), a, xp, num(0), num(0));
    op_t(body(), PTO_OP_TMOV, d, a, -1);
    store(body(), zp, num(0), num(0), d);
    t[0] = (void *)x;
    t[1] = z;
    CHECK(run(t, NULL, 0) == PTO_OK);
    CHECK(memcmp(x, z, sizeof z) == 0);
    end();
}

/* ---- the spec's softmax, N bound at launch, blocks(N / 16) ----------------- */

static int32_t build_softmax(void)
{
    int32_t xp, yp, t, mx, s, st;
    begin("softmax", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, -1, 128);
    yp = tensor("y", PTO_OUT, PTO_F32, -1, 128);
    pto_set_dynamic_dim(m, xp, 0, "N");
    pto_set_dynamic_dim(m, yp, 0, "N");
    m->kernels[K].blocks = bin(PTO_E_DIV, var("N"), num(16));
    t = tile(body(), "t", PTO_VEC, PTO_F32, 16, 128);
    mx = tile(body(), "m", PTO_VEC, PTO_F32, 16, 1);
    s = tile(body(), "s", PTO_VEC, PTO_F32, 16, 1);
    pto_add_let(m, body(), "r", bin(PTO_E_MUL, blk(), num(16)), g_loc);
    load(body(), t, xp, var("r"), num(0));
    op_t(body(), PTO_OP_TROWMAX, mx, t, -1);
    op_t(body(), PTO_OP_TROWEXPANDSUB, t, t, mx);
    op_t(body(), PTO_OP_TEXP, t, t, -1);
    op_t(body(), PTO_OP_TROWSUM, s, t, -1);
    op_t(body(), PTO_OP_TROWEXPANDDIV, t, t, s);
    st = store(body(), yp, var("r"), num(0), t);
    return st;
}

static void test_softmax(void)
{
    enum { N = 64, C = 128 };
    static float x[N * C], y[N * C], ref[N * C];
    pto_binding bnd[2];
    void *t[2];
    int i, j, badsum = 0;
    uint32_t seed = 99;
    for (i = 0; i < N * C; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((int)(seed >> 8) % 2000 - 1000) / 97.0f;
        y[i] = -1.0f;
    }
    for (i = 0; i < N; i++) {
        const float *row = x + i * C;
        float mx = row[0], sum = 0.0f, e[C];
        for (j = 1; j < C; j++) mx = row[j] > mx ? row[j] : mx;
        for (j = 0; j < C; j++) e[j] = expf(row[j] - mx);
        for (j = 0; j < C; j++) sum = sum + e[j];
        for (j = 0; j < C; j++) ref[i * C + j] = e[j] / sum;
    }
    build_softmax();
    bnd[0].name = "unused";
    bnd[0].value = 3;
    bnd[1].name = "N";
    bnd[1].value = N;
    t[0] = x;
    t[1] = y;
    CHECK(run(t, bnd, 2) == PTO_OK);
    for (i = 0; i < N; i++) {
        double s = 0;
        for (j = 0; j < C; j++) s += y[i * C + j];
        if (fabs(s - 1.0) > 1e-6) badsum++;
    }
    CHECK(badsum == 0);
    CHECK(all_same(y, ref, N * C));
    /* N = 0 (or 8): blocks(N / 16) is 0, a launch of no block: refused in
       ptoc run's words (review21 L2: was PTO_OK with nothing run) */
    bnd[1].value = 8;
    CHECK(run(t, bnd, 2) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:2:3: error: kernel softmax would launch no block: blocks(N / 16) is 0 with the launch's "
                       "bindings");
    end();
    /* ... and on every rank of a ranks kernel */
    build_softmax();
    m->kernels[K].ranks = 1;
    bnd[1].value = 0;
    {
        void *tr[4];
        pto_launch l;
        tr[0] = tr[2] = x;
        tr[1] = tr[3] = y;
        memset(&l, 0, sizeof l);
        l.kernel = K;
        l.tensors = tr;
        l.bindings = bnd;
        l.nbindings = 2;
        l.nranks = 2;
        CHECK(pto_interp(ctx, m, &l) == PTO_ERR_USER);
        CHECK_STR(diag(0), "t.pto:2:3: error: kernel softmax would launch no block: blocks(N / 16) is 0 with the "
                           "launch's bindings");
        CHECK(pto_diag_count(ctx) == 1);
    }
    end();
}

/* ---- SPMD, loops, valid regions ------------------------------------------- */

/* blocks(8): block b loads rows [4b, 4b + 4), adds b (through a let and a
   texpands of the block index is not possible, so: tadds 1 then a loop of b
   tadds 1) and stores its slice; the whole output is checked. */
static void test_spmd(void)
{
    enum { R = 32, C = 8 };
    static float x[R * C], z[R * C];
    void *t[2];
    int32_t xp, zp, a, loop, lb;
    int i, bad = 0;
    for (i = 0; i < R * C; i++) {
        x[i] = (float)i;
        z[i] = -99.0f;
    }
    begin("spmd", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, R, C);
    zp = tensor("z", PTO_OUT, PTO_F32, R, C);
    m->kernels[K].blocks = num(8);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 4, C);
    pto_add_let(m, body(), "r", bin(PTO_E_MUL, blk(), bin(PTO_E_DIV, num(R), pto_expr_builtin(m, PTO_E_BLOCKS, g_loc))), g_loc);
    load(body(), a, xp, var("r"), num(0));
    loop = pto_add_for(m, body(), "i", num(0), blk(), -1, g_loc);
    lb = m->stmts[loop].body;
    op_s(lb, PTO_OP_TADDS, a, a, 1.0);
    store(body(), zp, var("r"), num(0), a);
    t[0] = x;
    t[1] = z;
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (i = 0; i < R * C; i++)
        if (z[i] != (float)i + (float)(i / (4 * C))) bad++;
    CHECK_MSG(bad == 0, "%d elements of the SPMD output are wrong", bad);
    end();
}

/* for i = s to e step k { tstore z[i, 0], ones } marks the rows visited. */
static int loop_rows(int64_t s, int64_t e, int64_t step, char *rows)
{
    static float z[16 * 4];
    static const float one[4] = {1, 1, 1, 1};
    void *t[2];
    int32_t xp, zp, a, loop;
    int i, st;
    for (i = 0; i < 64; i++) z[i] = 0.0f;
    begin("loops", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 1, 4);
    zp = tensor("z", PTO_OUT, PTO_F32, 16, 4);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 1, 4);
    load(body(), a, xp, num(0), num(0));
    loop = pto_add_for(m, body(), "i", num(s), num(e), num(step), g_loc);
    store(m->stmts[loop].body, zp, var("i"), num(0), a);
    t[0] = (void *)one;
    t[1] = z;
    st = run(t, NULL, 0);
    for (i = 0; i < 16; i++) rows[i] = z[i * 4] == 1.0f ? 'x' : '.';
    rows[16] = 0;
    end();
    return st;
}

static void test_loops(void)
{
    char rows[17];
    CHECK(loop_rows(0, 10, 3, rows) == PTO_OK);
    CHECK_STR(rows, "x..x..x..x......");
    CHECK(loop_rows(5, 5, 1, rows) == PTO_OK);
    CHECK_STR(rows, "................");
    CHECK(loop_rows(9, 3, 1, rows) == PTO_OK);
    CHECK_STR(rows, "................");
    CHECK(loop_rows(14, 16, 1, rows) == PTO_OK);
    CHECK_STR(rows, "..............xx");
    CHECK(loop_rows(2, 16, 100, rows) == PTO_OK);
    CHECK_STR(rows, "..x.............");
}

/* Integer expressions with C semantics: each value selects the row stored. */
static void test_int_exprs(void)
{
    static float z[16 * 4];
    static const float one[4] = {1, 1, 1, 1};
    char rows[17];
    void *t[2];
    int32_t xp, zp, a, ifs;
    int i;
    begin("ints", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 1, 4);
    zp = tensor("z", PTO_OUT, PTO_F32, 16, 4);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 1, 4);
    load(body(), a, xp, num(0), num(0));
    store(body(), zp, bin(PTO_E_ADD, bin(PTO_E_DIV, num(-7), num(2)), num(5)), num(0), a);  /* -3 + 5 = 2 */
    store(body(), zp, bin(PTO_E_ADD, bin(PTO_E_MOD, num(-7), num(2)), num(5)), num(0), a);  /* -1 + 5 = 4 */
    store(body(), zp, bin(PTO_E_MIN, num(9), num(7)), num(0), a);                           /* 7 */
    store(body(), zp, bin(PTO_E_MAX, num(9), num(7)), num(0), a);                           /* 9 */
    store(body(), zp, bin(PTO_E_SUB, num(3), bin(PTO_E_NEG, num(8), -1)), num(0), a);       /* 11 */
    store(body(), zp, bin(PTO_E_MOD, num(0x7fffffffffffffffLL), num(16)), num(0), a);       /* 15 */
    store(body(), zp, bin(PTO_E_ADD, pto_expr_builtin(m, PTO_E_SUBBLOCK, g_loc), num(1)), num(0), a); /* 1 */
    ifs = pto_add_if(m, body(), num(3), PTO_GE, num(4), g_loc);
    store(m->stmts[ifs].body, zp, num(0), num(0), a);
    store(pto_if_else(m, ifs), zp, num(13), num(0), a);
    for (i = 0; i < 64; i++) z[i] = 0.0f;
    t[0] = (void *)one;
    t[1] = z;
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (i = 0; i < 16; i++) rows[i] = z[i * 4] == 1.0f ? 'x' : '.';
    rows[16] = 0;
    CHECK_STR(rows, ".xx.x..x.x.x.x.x");
    end();
}

/* An f16 / bf16 scalar param holds its value in its dtype (review23 L2: it
   stayed a double): texpands of an f32 tile with b = 0.1 gives bf16's
   0.10009765625, with a = 0.1 f16's 0.0999755859375; an f32 one stays 0.1f. */
static void test_half_scalars(void)
{
    static float y[3 * 8];
    static const pto_dtype dts[3] = {PTO_BF16, PTO_F16, PTO_F32};
    static const char *const names[3] = {"b", "a", "c"};
    const float want[3] = {0.10009765625f, 0.0999755859375f, 0.1f};
    pto_binding bnd[3] = {{"b", 0.1}, {"a", 0.1}, {"c", 0.1}};
    void *t[1];
    int32_t yp, u, s, i, j;
    begin("half_scalars", PTO_KK_VECTOR);
    yp = tensor("y", PTO_OUT, PTO_F32, 3, 8);
    for (i = 0; i < 3; i++) {
        int32_t v = pto_add_scalar_param(m, K, names[i], dts[i], g_loc);
        (void)v;
    }
    for (i = 0; i < 3; i++) {
        char tn[4] = {'u', (char)('0' + i), 0, 0};
        u = tile(body(), tn, PTO_VEC, PTO_F32, 1, 8);
        s = pto_add_op(m, body(), PTO_OP_TEXPANDS, g_loc);
        pto_arg_tile(m, s, u, g_loc);
        pto_arg_scalar(m, s, pto_find_var(m, K, names[i]), g_loc);
        store(body(), yp, num(i), num(0), u);
    }
    CHECK(pto_verify(ctx, m) == PTO_OK);
    t[0] = y;
    CHECK(run(t, bnd, 3) == PTO_OK);
    for (i = 0; i < 3; i++)
        for (j = 0; j < 8; j++) CHECK_MSG(same(y[i * 8 + j], want[i]), "%s: got %.12g", names[i], (double)y[i * 8 + j]);
    end();
}

/* The tail idiom: N = 40 rows, blocks((N + 15) / 16), valid(min(16, N - r), 128).
   Loads pad with zeros, stores write only the valid rows, nothing past N. */
static void test_tail(void)
{
    enum { N = 40, C = 8 };
    static float x[N * C], z[N * C], pad[4 * 16 * C];
    pto_binding bnd;
    void *t[3];
    int32_t xp, zp, pp, a, d;
    int i, bad = 0;
    for (i = 0; i < N * C; i++) {
        x[i] = (float)(i + 1);
        z[i] = -1.0f;
    }
    for (i = 0; i < 4 * 16 * C; i++) pad[i] = -1.0f;
    begin("tail", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, -1, C);
    zp = tensor("z", PTO_OUT, PTO_F32, -1, C);
    pp = tensor("p", PTO_OUT, PTO_F32, 64, C);
    pto_set_dynamic_dim(m, xp, 0, "N");
    pto_set_dynamic_dim(m, zp, 0, "N");
    /* one block too many: block 3 has an empty window at row 48, which is no error */
    m->kernels[K].blocks = bin(PTO_E_ADD, bin(PTO_E_DIV, bin(PTO_E_ADD, var("N"), num(15)), num(16)), num(1));
    pto_add_let(m, body(), "r", bin(PTO_E_MUL, blk(), num(16)), g_loc);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 16, C);
    m->tiles[a].valid_r = bin(PTO_E_MAX, num(0), bin(PTO_E_MIN, num(16), bin(PTO_E_SUB, var("N"), var("r"))));
    d = tile(body(), "d", PTO_VEC, PTO_F32, 16, C);
    load(body(), a, xp, var("r"), num(0));
    op_s(body(), PTO_OP_TMULS, a, a, 2.0);
    store(body(), zp, var("r"), num(0), a);
    op_t(body(), PTO_OP_TMOV, d, a, -1);  /* d is full: copies the zero padding too */
    store(body(), pp, var("r"), num(0), d);
    bnd.name = "N";
    bnd.value = N;
    t[0] = x;
    t[1] = z;
    t[2] = pad;
    CHECK(run(t, &bnd, 1) == PTO_OK);
    for (i = 0; i < N * C; i++)
        if (z[i] != 2.0f * (float)(i + 1)) bad++;
    CHECK(bad == 0);
    for (i = 0; i < 4 * 16 * C; i++)
        if (pad[i] != (i < N * C ? 2.0f * (float)(i + 1) : 0.0f)) bad++;
    CHECK_MSG(bad == 0, "padding of the partial tile is not zero");
    end();
}

/* A window at an offset with a 3 x 5 valid region: the rest of the tile is 0
   after tload; tstore writes only 3 x 5. */
static void test_valid_window(void)
{
    static float x[6 * 8], z[6 * 8], w[4 * 8];
    void *t[3];
    int32_t xp, zp, wp, a, full;
    int i, j, bad = 0;
    for (i = 0; i < 48; i++) {
        x[i] = (float)(100 + i);
        z[i] = -1.0f;
    }
    for (i = 0; i < 32; i++) w[i] = -1.0f;
    begin("win", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 6, 8);
    zp = tensor("z", PTO_OUT, PTO_F32, 6, 8);
    wp = tensor("w", PTO_OUT, PTO_F32, 4, 8);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 4, 8);
    m->tiles[a].valid_r = num(3);
    m->tiles[a].valid_c = num(5);
    full = tile(body(), "full", PTO_VEC, PTO_F32, 4, 8);
    load(body(), full, xp, num(0), num(0));  /* garbage in the tile first... */
    op_t(body(), PTO_OP_TMOV, a, full, -1);
    load(body(), a, xp, num(1), num(2));     /* ...that tload must clear */
    store(body(), zp, num(2), num(3), a);
    op_t(body(), PTO_OP_TMOV, full, a, -1);
    store(body(), wp, num(0), num(0), full);
    t[0] = x;
    t[1] = z;
    t[2] = w;
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (i = 0; i < 6; i++)
        for (j = 0; j < 8; j++) {
            int in = i >= 2 && i < 5 && j >= 3 && j < 8;
            float want = in ? x[(i - 1) * 8 + (j - 1)] : -1.0f;
            if (z[i * 8 + j] != want) bad++;
        }
    CHECK(bad == 0);
    for (i = 0; i < 4; i++)
        for (j = 0; j < 8; j++) {
            float want = i < 3 && j < 5 ? x[(i + 1) * 8 + j + 2] : 0.0f;
            if (w[i * 8 + j] != want) bad++;
        }
    CHECK(bad == 0);
    end();
}

/* Tiles declared in a loop are fresh (zero) every iteration. */
static void test_fresh_tile(void)
{
    static float z[4 * 4];
    static const float one[4] = {1, 1, 1, 1};
    void *t[2];
    int32_t xp, zp, loop, lb, acc, a;
    int i, bad = 0;
    begin("fresh", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 1, 4);
    zp = tensor("z", PTO_OUT, PTO_F32, 4, 4);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 1, 4);
    load(body(), a, xp, num(0), num(0));
    loop = pto_add_for(m, body(), "i", num(0), num(4), -1, g_loc);
    lb = m->stmts[loop].body;
    acc = tile(lb, "acc", PTO_VEC, PTO_F32, 1, 4);
    op_t(lb, PTO_OP_TADD, acc, acc, a);  /* 0 + 1 every iteration, never 2 */
    store(lb, zp, var("i"), num(0), acc);
    t[0] = (void *)one;
    t[1] = z;
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (i = 0; i < 16; i++)
        if (z[i] != 1.0f) bad++;
    CHECK(bad == 0);
    end();
}

/* A ranks kernel: y = x of the next rank, through x@((rank + 1) % nranks). */
static void test_ranks(void)
{
    static float x[3][4], y[3][4];
    void *t[6];
    pto_launch l;
    int32_t xp, yp, a, s;
    int r, i, bad = 0;
    begin("ring", PTO_KK_VECTOR);
    m->kernels[K].ranks = 1;
    xp = tensor("x", PTO_IN, PTO_F32, 1, 4);
    m->params[xp].window = 1;
    yp = tensor("y", PTO_OUT, PTO_F32, 1, 4);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 1, 4);
    s = pto_add_op(m, body(), PTO_OP_TLOAD, g_loc);
    pto_arg_tile(m, s, a, g_loc);
    pto_arg_gm(m, s, xp, num(0), num(0),
               bin(PTO_E_MOD, bin(PTO_E_ADD, pto_expr_builtin(m, PTO_E_RANK, g_loc), num(1)),
                   pto_expr_builtin(m, PTO_E_NRANKS, g_loc)), g_loc);
    store(body(), yp, num(0), num(0), a);
    for (r = 0; r < 3; r++) {
        for (i = 0; i < 4; i++) x[r][i] = (float)(10 * r + i);
        t[r * 2] = x[r];
        t[r * 2 + 1] = y[r];
    }
    memset(&l, 0, sizeof l);
    l.kernel = K;
    l.tensors = t;
    l.nranks = 3;
    CHECK(pto_interp(ctx, m, &l) == PTO_OK);
    for (r = 0; r < 3; r++)
        for (i = 0; i < 4; i++)
            if (y[r][i] != x[(r + 1) % 3][i]) bad++;
    CHECK(bad == 0);
    /* the launch's own fields (review21 L2): a negative rank count, a name bound twice, no module */
    {
        static const pto_binding twice[2] = {{"N", 64}, {"N", 32}};
        pto_diag_clear(ctx);
        l.nranks = -3;
        CHECK(pto_interp(ctx, m, &l) == PTO_ERR_USER);
        CHECK(strstr(diag(0), "pto_interp: nranks is -3: give 0 (one rank) or a positive count") != NULL);
        pto_diag_clear(ctx);
        l.nranks = 3;
        l.bindings = twice;
        l.nbindings = 2;
        CHECK(pto_interp(ctx, m, &l) == PTO_ERR_USER);
        CHECK(strstr(diag(0), "pto_interp: 'N' is bound twice in the launch (bindings 0 and 1: 64, then 32)") != NULL);
        pto_diag_clear(ctx);
        CHECK(pto_interp(ctx, NULL, &l) == PTO_ERR_USER);
        CHECK(strstr(diag(0), "pto_interp: the module is NULL") != NULL);
        pto_diag_clear(ctx);
    }
    end();
}

/* A mix kernel: the cube section's result is read by the vector section
   through GM, in program order. */
static void test_mix(void)
{
    static float a[16 * 16], b[16 * 16], c[16 * 16], z[16 * 16];
    static uint16_t ah[16 * 16], bh[16 * 16];
    void *t[4];
    int32_t ap, bp, cp, zp, cube, vec, am, bm, l, r, acc, v;
    int i, bad = 0;
    for (i = 0; i < 256; i++) {
        a[i] = (float)(i % 7) - 3.0f;
        b[i] = (float)(i % 5) * 0.5f;
        ah[i] = pto_f32_to_f16(a[i]);
        bh[i] = pto_f32_to_f16(b[i]);
    }
    begin("mix", PTO_KK_MIX);
    ap = tensor("a", PTO_IN, PTO_F16, 16, 16);
    bp = tensor("b", PTO_IN, PTO_F16, 16, 16);
    cp = tensor("c", PTO_INOUT, PTO_F32, 16, 16);
    zp = tensor("z", PTO_OUT, PTO_F32, 16, 16);
    cube = pto_add_section(m, body(), PTO_CORE_CUBE, g_loc);
    cube = m->stmts[cube].body;
    vec = pto_add_section(m, body(), PTO_CORE_VECTOR, g_loc);
    vec = m->stmts[vec].body;
    am = tile(cube, "am", PTO_MAT, PTO_F16, 16, 16);
    bm = tile(cube, "bm", PTO_MAT, PTO_F16, 16, 16);
    l = tile(cube, "l", PTO_LEFT, PTO_F16, 16, 16);
    r = tile(cube, "r", PTO_RIGHT, PTO_F16, 16, 16);
    acc = tile(cube, "acc", PTO_ACC, PTO_F32, 16, 16);
    load(cube, am, ap, num(0), num(0));
    load(cube, bm, bp, num(0), num(0));
    op_t(cube, PTO_OP_TMOV, l, am, -1);
    op_t(cube, PTO_OP_TMOV, r, bm, -1);
    op_t(cube, PTO_OP_TMATMUL, acc, l, r);
    store(cube, cp, num(0), num(0), acc);
    v = tile(vec, "v", PTO_VEC, PTO_F32, 16, 16);
    load(vec, v, cp, num(0), num(0));
    op_t(vec, PTO_OP_TRELU, v, v, -1);
    store(vec, zp, num(0), num(0), v);
    t[0] = ah;
    t[1] = bh;
    t[2] = c;
    t[3] = z;
    CHECK(run(t, NULL, 0) == PTO_OK);
    for (i = 0; i < 256; i++) {
        int row = i / 16, col = i % 16, k;
        float s = 0.0f;
        for (k = 0; k < 16; k++) {
            float p = a[row * 16 + k] * b[k * 16 + col];
            s = s + p;
        }
        if (z[i] != (s > 0 ? s : 0.0f)) bad++;
    }
    CHECK(bad == 0);
    end();
}

/* ---- runtime errors ------------------------------------------------------ */

static void test_err_oob(void)
{
    enum { N = 40, C = 128 };
    static float x[N * C], y[N * C];
    pto_binding bnd;
    void *t[2];
    int32_t xp, yp, tl;
    int i, bad = 0;
    begin("oob", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, -1, C);
    yp = tensor("y", PTO_OUT, PTO_F32, -1, C);
    pto_set_dynamic_dim(m, xp, 0, "N");
    pto_set_dynamic_dim(m, yp, 0, "N");
    m->kernels[K].blocks = num(3);
    tl = tile(body(), "t", PTO_VEC, PTO_F32, 16, C);
    pto_add_let(m, body(), "r", bin(PTO_E_MUL, blk(), num(16)), g_loc);
    g_loc = at(7, 3);
    load(body(), tl, xp, var("r"), num(0));
    g_loc = at(8, 3);
    store(body(), yp, var("r"), num(0), tl);
    for (i = 0; i < N * C; i++) {
        x[i] = (float)i;
        y[i] = -1.0f;
    }
    bnd.name = "N";
    bnd.value = N;
    t[0] = x;
    t[1] = y;
    CHECK(run(t, &bnd, 1) == PTO_ERR_USER);
    CHECK(pto_error_count(ctx) == 1 && pto_diag_count(ctx) == 2);
    CHECK_STR(diag(0), "t.pto:7:3: error: tload: window x[32, 0] of shape [16, 128] is outside tensor 'x' of shape [40, 128]");
    CHECK_STR(diag(1), "t.pto:1:1: note: in block 2 of kernel 'oob'");
    for (i = 0; i < N * C; i++)
        if (y[i] != (i < 32 * C ? (float)i : -1.0f)) bad++;
    CHECK_MSG(bad == 0, "blocks 0 and 1 ran, block 2 wrote nothing");
    end();
}

static void test_err_store_oob(void)
{
    static float x[4 * 8], y[4 * 8];
    void *t[2];
    int32_t xp, yp, tl, s;
    begin("soob", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 4, 8);
    yp = tensor("y", PTO_OUT, PTO_F32, 4, 8);
    tl = tile(body(), "t", PTO_VEC, PTO_F32, 4, 8);
    m->tiles[tl].valid_c = num(4);
    load(body(), tl, xp, num(0), num(0));
    g_loc = at(5, 9);
    s = store(body(), yp, num(0), num(5), tl);
    (void)s;
    t[0] = x;
    t[1] = y;
    CHECK(run(t, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:5:9: error: tstore: window y[0, 5] of shape [4, 4] is outside tensor 'y' of shape [4, 8]");
    end();
}

static void test_err_div0(void)
{
    static float y[8];
    void *t[1];
    int32_t yp, tl, dv;
    begin("div0", PTO_KK_VECTOR);
    yp = tensor("y", PTO_OUT, PTO_F32, 2, 4);
    m->kernels[K].blocks = num(2);
    tl = tile(body(), "t", PTO_VEC, PTO_F32, 1, 4);
    g_loc = at(4, 17);
    dv = bin(PTO_E_DIV, num(1), bin(PTO_E_SUB, blk(), num(1)));
    g_loc = at(4, 3);
    pto_add_let(m, body(), "q", dv, g_loc);
    store(body(), yp, bin(PTO_E_ADD, var("q"), num(1)), num(0), tl);
    t[0] = y;
    CHECK(run(t, NULL, 0) == PTO_ERR_USER);
    CHECK(pto_error_count(ctx) == 1);
    CHECK_STR(diag(0), "t.pto:4:17: error: division by zero");
    CHECK_STR(diag(1), "t.pto:1:1: note: in block 1 of kernel 'div0'");
    end();
    begin("mod0", PTO_KK_VECTOR);
    g_loc = at(3, 11);
    pto_add_let(m, body(), "q", bin(PTO_E_MOD, num(1), num(0)), g_loc);
    CHECK(run(NULL, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:3:11: error: modulo by zero");
    end();
    begin("ovf", PTO_KK_VECTOR);
    g_loc = at(3, 12);
    pto_add_let(m, body(), "q", bin(PTO_E_MUL, num(0x4000000000000000LL), num(2)), g_loc);
    CHECK(run(NULL, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:3:12: error: integer overflow in expression");
    end();
}

static void test_err_bindings(void)
{
    static float x[16 * 8];
    pto_binding bnd;
    void *t[1];
    int32_t xp, a, sp, s;
    /* a dynamic dim with no binding */
    begin("nobind", PTO_KK_VECTOR);
    g_loc = at(1, 20);
    xp = tensor("x", PTO_IN, PTO_F32, -1, 8);
    pto_set_dynamic_dim(m, xp, 0, "N");
    t[0] = x;
    CHECK(run(t, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:1:20: error: dynamic dim 'N' has no binding in the launch");
    end();
    /* a dim bound to a non-integer */
    begin("badbind", PTO_KK_VECTOR);
    g_loc = at(1, 20);
    xp = tensor("x", PTO_IN, PTO_F32, -1, 8);
    pto_set_dynamic_dim(m, xp, 0, "N");
    bnd.name = "N";
    bnd.value = 2.5;
    CHECK(run(t, &bnd, 1) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:1:20: error: dynamic dim 'N' is bound to 2.5, not an integer in [0, 2^31)");
    end();
    /* a scalar used but not bound: the error is at its use */
    begin("noscalar", PTO_KK_VECTOR);
    xp = tensor("x", PTO_INOUT, PTO_F32, 16, 8);
    sp = pto_add_scalar_param(m, K, "alpha", PTO_F32, g_loc);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 16, 8);
    load(body(), a, xp, num(0), num(0));
    s = pto_add_op(m, body(), PTO_OP_TMULS, g_loc);
    pto_arg_tile(m, s, a, g_loc);
    pto_arg_tile(m, s, a, g_loc);
    pto_arg_scalar(m, s, m->params[sp].var, at(6, 18));
    store(body(), xp, num(0), num(0), a);
    CHECK(run(t, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:6:18: error: 'alpha' has no binding in the launch");
    pto_diag_clear(ctx);
    /* bound, it works: x * 0.5 */
    x[3] = 6.0f;
    bnd.name = "alpha";
    bnd.value = 0.5;
    CHECK(run(t, &bnd, 1) == PTO_OK);
    CHECK(x[3] == 3.0f);
    end();
    /* an integer scalar bound to what its dtype cannot hold: the device would get another value */
    begin("badint", PTO_KK_VECTOR);
    xp = tensor("x", PTO_INOUT, PTO_F32, 16, 8);
    g_loc = at(2, 7);
    sp = pto_add_scalar_param(m, K, "k", PTO_I8, g_loc);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 16, 8);
    load(body(), a, xp, num(0), num(0));
    s = pto_add_op(m, body(), PTO_OP_TADDS, g_loc);
    pto_arg_tile(m, s, a, g_loc);
    pto_arg_tile(m, s, a, g_loc);
    pto_arg_scalar(m, s, m->params[sp].var, g_loc);
    store(body(), xp, num(0), num(0), a);
    t[0] = x;
    bnd.name = "k";
    bnd.value = 2.5;
    CHECK(run(t, &bnd, 1) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:2:7: error: scalar 'k' is i8 and is bound to 2.5, not an integer in -128..127");
    pto_diag_clear(ctx);
    bnd.value = 128;
    CHECK(run(t, &bnd, 1) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:2:7: error: scalar 'k' is i8 and is bound to 128, not an integer in -128..127");
    pto_diag_clear(ctx);
    x[3] = 6.0f;
    bnd.value = -128;
    CHECK(run(t, &bnd, 1) == PTO_OK);
    CHECK(x[3] == -122.0f);
    end();
    /* a tensor with no host array */
    begin("noarray", PTO_KK_VECTOR);
    tensor("x", PTO_IN, PTO_F32, 16, 8);
    g_loc = at(1, 30);
    tensor("y", PTO_OUT, PTO_F32, 16, 8);
    {
        void *t2[2];
        t2[0] = x;
        t2[1] = NULL;
        CHECK(run(t2, NULL, 0) == PTO_ERR_USER);
        CHECK_STR(diag(0), "t.pto:1:30: error: tensor 'y' of rank 0 has no host array in the launch");
    }
    end();
}

static void test_err_misc(void)
{
    static float x[16 * 16];
    void *t[1];
    int32_t xp, a, loop, mt, lt, s;
    t[0] = x;
    /* step 0 */
    begin("step0", PTO_KK_VECTOR);
    g_loc = at(3, 3);
    loop = pto_add_for(m, body(), "i", num(0), num(4), bin(PTO_E_SUB, num(1), num(1)), g_loc);
    (void)loop;
    CHECK(run(NULL, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:3:3: error: loop step must be positive, got 0");
    end();
    /* a valid region outside the shape */
    begin("valid", PTO_KK_VECTOR);
    g_loc = at(2, 3);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 16, 8);
    m->tiles[a].valid_r = num(20);
    CHECK(run(NULL, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:2:3: error: valid region (20, 8) of tile 'a' is outside its shape [16, 8]");
    end();
    /* textract outside its source */
    begin("extract", PTO_KK_CUBE);
    xp = tensor("x", PTO_IN, PTO_F16, 16, 16);
    mt = tile(body(), "m", PTO_MAT, PTO_F16, 16, 16);
    lt = tile(body(), "l", PTO_LEFT, PTO_F16, 16, 8);
    load(body(), mt, xp, num(0), num(0));
    g_loc = at(9, 5);
    s = pto_add_op(m, body(), PTO_OP_TEXTRACT, g_loc);
    pto_arg_tile(m, s, lt, g_loc);
    pto_arg_tile(m, s, mt, g_loc);
    pto_arg_int(m, s, num(0), g_loc);
    pto_arg_int(m, s, num(9), g_loc);
    CHECK(run(t, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:9:5: error: textract: window [0, 9] of shape [16, 8] is outside tile 'm' of shape [16, 16]");
    end();
    /* mismatched shapes (the verifier's rule, re-checked so nothing overruns) */
    begin("shape", PTO_KK_VECTOR);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 16, 8);
    mt = tile(body(), "b", PTO_VEC, PTO_F32, 8, 8);
    g_loc = at(4, 3);
    op_t(body(), PTO_OP_TADD, a, a, mt);
    CHECK(run(NULL, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:4:3: error: tadd: tile 'b' is [8, 8], expected [16, 8] to match 'a'");
    end();
    /* rank out of range */
    begin("rank", PTO_KK_VECTOR);
    xp = tensor("x", PTO_IN, PTO_F32, 16, 16);
    a = tile(body(), "a", PTO_VEC, PTO_F32, 16, 16);
    g_loc = at(6, 3);
    s = pto_add_op(m, body(), PTO_OP_TLOAD, g_loc);
    pto_arg_tile(m, s, a, g_loc);
    pto_arg_gm(m, s, xp, num(0), num(0), num(1), g_loc);
    CHECK(run(t, NULL, 0) == PTO_ERR_USER);
    CHECK_STR(diag(0), "t.pto:6:3: error: tload: rank 1 of x@1 is outside [0, 1)");
    end();
    /* tmatmul of an empty valid region: the device asserts m, k, n >= 1
       (pto-isa's CheckDynamicMad), so it is an error, not a no-op; m, k and
       n are each named, and 16 x 16 x 16 runs */
    for (s = 0; s < 4; s++) {
        int32_t acc, rt;
        pto_binding bd;
        static const char *const want[3] = {
            "t.pto:7:3: error: tmatmul: m (the valid rows of 'l') is 0; pto-isa's TMATMUL takes m, k and n in 1..4095 "
            "(the device asserts it)",
            "t.pto:7:3: error: tmatmul: k (the valid columns of 'l') is 0; pto-isa's TMATMUL takes m, k and n in 1..4095 "
            "(the device asserts it)",
            "t.pto:7:3: error: tmatmul: n (the valid columns of 'r') is 0; pto-isa's TMATMUL takes m, k and n in 1..4095 "
            "(the device asserts it)"};
        begin("mm0", PTO_KK_CUBE);
        g_loc = at(2, 3);
        pto_add_scalar_param(m, K, "kc", PTO_I32, g_loc);
        lt = tile(body(), "l", PTO_LEFT, PTO_F16, 16, 16);
        rt = tile(body(), "r", PTO_RIGHT, PTO_F16, 16, 16);
        acc = tile(body(), "acc", PTO_ACC, PTO_F32, 16, 16);
        if (s == 0) m->tiles[lt].valid_r = var("kc");
        if (s == 1) m->tiles[lt].valid_c = var("kc");
        if (s == 2) m->tiles[rt].valid_c = var("kc");
        g_loc = at(7, 3);
        op_t(body(), PTO_OP_TMATMUL, acc, lt, rt);
        bd.name = "kc";
        bd.value = 0;
        if (s < 3) {
            CHECK(run(NULL, &bd, 1) == PTO_ERR_USER);
            CHECK_STR(diag(0), want[s]);
        } else CHECK(run(NULL, &bd, 1) == PTO_OK);
        end();
    }
}

int main(void)
{
    test_binary();
    test_scalar_ops();
    test_scalar_dtype();
    test_int_exact();
    test_int_rowcol();
    test_int_wrap();
    test_unary_ops();
    test_rows();
    test_rowexpand();
    test_cols();
    test_colexpand();
    test_cvt();
    test_trans();
    test_cvt_f16_i8();
    test_fill_valid();
    test_matmul();
    test_matmul_f32();
    test_matmul_i8();
    test_store_cast();
    test_i32_copy();
    test_softmax();
    test_spmd();
    test_loops();
    test_int_exprs();
    test_tail();
    test_half_scalars();
    test_valid_window();
    test_fresh_tile();
    test_ranks();
    test_mix();
    test_err_oob();
    test_err_store_oob();
    test_err_div0();
    test_err_bindings();
    test_err_misc();
    return TEST_END();
}
