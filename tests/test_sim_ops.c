/* test_sim_ops.c - every instruction of pto_kernels.h on the simulated
   device, in correctly synchronised single-core kernels: values against
   golden results computed here element by element with the reference rules
   (f32 math, float temporaries, RNE on f16 writes), no errors reported,
   pipes and cycles as the cost table says. */

#include "tests/check.h"
#include "pto_kernels.h"

#define R 16
#define C 64
#define TB (R * C * 4) /* bytes of one [16, 64] f32 tile */

static pto_k_tile vt(int slot) { return pto_k_t(PTO_K_VEC, PTO_K_F32, R, C, R, C, (int64_t)slot * TB); }
static pto_k_tile colv(int slot) { return pto_k_t(PTO_K_VEC, PTO_K_F32, R, 1, R, 1, (int64_t)slot * TB); }
static pto_k_tile rowv(int slot) { return pto_k_t(PTO_K_VEC, PTO_K_F32, 1, C, 1, C, (int64_t)slot * TB); }

enum { NOUT = 38 };

/* Loads x, y; computes one result per op into out[k]; stores every result. */
static void k_vec_ops(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *y = pto_k_arg_gm(args, 1), *out = pto_k_arg_gm(args, 2);
    pto_k_gm *h = pto_k_arg_gm(args, 3);
    double s = pto_k_arg_f(args, 4);
    pto_k_tile A = vt(0), B = vt(1), H = pto_k_t(PTO_K_VEC, PTO_K_F16, R, C, R, C, 40 * TB);
    int k;
    pto_k_tload(c, "ops.pto:3: tload a, x[0, 0]", A, x, 0, 0);
    pto_k_tload(c, "ops.pto:4: tload b, y[0, 0]", B, y, 0, 0);
    pto_k_set_flag(c, "ops.pto:5: set_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "ops.pto:6: wait_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_tadd(c, "ops.pto:7: tadd", vt(2), A, B);
    pto_k_tsub(c, "ops.pto:8: tsub", vt(3), A, B);
    pto_k_tmul(c, "ops.pto:9: tmul", vt(4), A, B);
    pto_k_tdiv(c, "ops.pto:10: tdiv", vt(5), A, B);
    pto_k_tmax(c, "ops.pto:11: tmax", vt(6), A, B);
    pto_k_tmin(c, "ops.pto:12: tmin", vt(7), A, B);
    pto_k_tadds(c, "ops.pto:13: tadds", vt(8), A, s);
    pto_k_tsubs(c, "ops.pto:14: tsubs", vt(9), A, s);
    pto_k_tmuls(c, "ops.pto:15: tmuls", vt(10), A, s);
    pto_k_tdivs(c, "ops.pto:16: tdivs", vt(11), A, s);
    pto_k_tmaxs(c, "ops.pto:17: tmaxs", vt(12), A, s);
    pto_k_tmins(c, "ops.pto:18: tmins", vt(13), A, s);
    pto_k_texp(c, "ops.pto:19: texp", vt(14), A);
    pto_k_tlog(c, "ops.pto:20: tlog", vt(15), B);
    pto_k_tsqrt(c, "ops.pto:21: tsqrt", vt(16), B);
    pto_k_trsqrt(c, "ops.pto:22: trsqrt", vt(17), B);
    pto_k_trecip(c, "ops.pto:23: trecip", vt(18), A);
    pto_k_tabs(c, "ops.pto:24: tabs", vt(19), A);
    pto_k_tneg(c, "ops.pto:25: tneg", vt(20), A);
    pto_k_trelu(c, "ops.pto:26: trelu", vt(21), A);
    pto_k_texpands(c, "ops.pto:27: texpands", vt(22), s);
    pto_k_tmov(c, "ops.pto:28: tmov", vt(23), A);
    pto_k_tcvt(c, "ops.pto:29: tcvt h, a", H, A);
    pto_k_trowsum(c, "ops.pto:30: trowsum", colv(24), A);
    pto_k_trowmax(c, "ops.pto:31: trowmax", colv(25), A);
    pto_k_trowmin(c, "ops.pto:32: trowmin", colv(26), A);
    pto_k_pipe_barrier(c, "ops.pto:33: pipe_barrier V", PTO_K_PIPE_V);
    pto_k_trowexpandadd(c, "ops.pto:34: trowexpandadd", vt(27), A, colv(24));
    pto_k_trowexpandsub(c, "ops.pto:35: trowexpandsub", vt(28), A, colv(25));
    pto_k_trowexpandmul(c, "ops.pto:36: trowexpandmul", vt(29), A, colv(26));
    pto_k_trowexpanddiv(c, "ops.pto:37: trowexpanddiv", vt(30), B, colv(24));
    pto_k_tcolsum(c, "ops.pto:38: tcolsum", rowv(31), A);
    pto_k_tcolmax(c, "ops.pto:39: tcolmax", rowv(32), A);
    pto_k_tcolmin(c, "ops.pto:40: tcolmin", rowv(33), A);
    pto_k_pipe_barrier(c, "ops.pto:41: pipe_barrier V", PTO_K_PIPE_V);
    pto_k_tcolexpandadd(c, "ops.pto:42: tcolexpandadd", vt(34), A, rowv(31));
    pto_k_tcolexpandsub(c, "ops.pto:43: tcolexpandsub", vt(35), A, rowv(32));
    pto_k_tcolexpandmul(c, "ops.pto:44: tcolexpandmul", vt(36), A, rowv(33));
    pto_k_tcolexpanddiv(c, "ops.pto:45: tcolexpanddiv", vt(37), B, rowv(31));
    pto_k_set_flag(c, "ops.pto:46: set_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "ops.pto:47: wait_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    for (k = 2; k < NOUT; k++) {
        if (k >= 24 && k <= 26)
            pto_k_tstore(c, "ops.pto:48: tstore col", out, (int64_t)k * R, 0, colv(k));
        else if (k >= 31 && k <= 33)
            pto_k_tstore(c, "ops.pto:49: tstore row", out, (int64_t)k * R, 0, rowv(k));
        else
            pto_k_tstore(c, "ops.pto:50: tstore out", out, (int64_t)k * R, 0, vt(k));
    }
    pto_k_tstore(c, "ops.pto:51: tstore h", h, 0, 0, H);
}

static float xin(int i) { return (float)((i % 7) - 3) * 0.37f + 0.1f; }
static float yin(int i) { return 0.25f + (float)(i % 11) * 0.5f; }

static float gmax(float a, float b) { return a >= b ? a : b; }
static float gmin(float a, float b) { return a <= b ? a : b; }

/* The golden value of result k at (r, col). */
static float golden(int k, int r, int col, float s)
{
    int i = r * C + col, j;
    float a = xin(i), b = yin(i), t, acc;
    switch (k) {
    case 2: t = a + b; return t;
    case 3: t = a - b; return t;
    case 4: t = a * b; return t;
    case 5: t = a / b; return t;
    case 6: return gmax(a, b);
    case 7: return gmin(a, b);
    case 8: t = a + s; return t;
    case 9: t = a - s; return t;
    case 10: t = a * s; return t;
    case 11: t = 1.0f / s; t = a * t; return t;   /* tdivs: times the reciprocal, as pto-isa's TDIVS */
    case 12: return gmax(a, s);
    case 13: return gmin(a, s);
    case 14: return expf(a);
    case 15: return logf(b);
    case 16: return sqrtf(b);
    case 17: t = sqrtf(b); t = 1.0f / t; return t;
    case 18: t = 1.0f / a; return t;
    case 19: return fabsf(a);
    case 20: return -a;
    case 21: return a > 0.0f ? a : 0.0f;
    case 22: return s;
    case 23: return a;
    case 24: case 25: case 26:
        if (col != 0) return 0.0f;
        acc = k == 24 ? 0.0f : xin(r * C);
        for (j = k == 24 ? 0 : 1; j < C; j++) {
            float v = xin(r * C + j);
            acc = k == 24 ? acc + v : k == 25 ? gmax(acc, v) : gmin(acc, v);
        }
        return acc;
    case 27: t = a + golden(24, r, 0, s); return t;
    case 28: t = a - golden(25, r, 0, s); return t;
    case 29: t = a * golden(26, r, 0, s); return t;
    case 30: t = b / golden(24, r, 0, s); return t;
    case 31: case 32: case 33: /* down the column from row 0 */
        if (r != 0) return 0.0f;
        acc = xin(col);
        for (j = 1; j < R; j++) {
            float v = xin(j * C + col);
            acc = k == 31 ? acc + v : k == 32 ? gmax(acc, v) : gmin(acc, v);
        }
        return acc;
    case 34: t = a + golden(31, 0, col, s); return t;
    case 35: t = a - golden(32, 0, col, s); return t;
    case 36: t = a * golden(33, 0, col, s); return t;
    default: t = b / golden(31, 0, col, s); return t;
    }
}

static void test_vector_ops(void)
{
    pto_k_device_desc dd;
    pto_k_launch_desc ld;
    pto_k_device *dev;
    pto_k_gm *x, *y, *out, *h;
    const pto_k_report *rep;
    int64_t args[5];
    int i, k, r, col, bad = 0, badh = 0;
    float s = 0.75f;
    memset(&dd, 0, sizeof dd);
    dev = pto_k_device_create(&dd);
    x = pto_k_gm_create(dev, "x", PTO_K_F32, R, C);
    y = pto_k_gm_create(dev, "y", PTO_K_F32, R, C);
    out = pto_k_gm_create(dev, "out", PTO_K_F32, NOUT * R, C);
    h = pto_k_gm_create(dev, "h", PTO_K_F16, R, C);
    for (i = 0; i < R * C; i++) {
        pto_k_gm_set(x, i / C, i % C, xin(i));
        pto_k_gm_set(y, i / C, i % C, yin(i));
    }
    args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(y), args[2] = pto_k_gm_arg(out), args[3] = pto_k_gm_arg(h);
    args[4] = pto_k_f_arg(s);
    memset(&ld, 0, sizeof ld);
    ld.fn = k_vec_ops, ld.name = "vec_ops", ld.kind = PTO_K_KIND_VECTOR, ld.args = args;
    rep = pto_k_launch(dev, &ld);
    if (rep->nerrors) pto_k_report_print(rep, stdout);
    CHECK(rep->nerrors == 0);
    for (k = 2; k < NOUT; k++)
        for (r = 0; r < R; r++)
            for (col = 0; col < ((k >= 24 && k <= 26) ? 1 : C) && (r == 0 || k < 31 || k > 33); col++) {
                float got = pto_k_gm_get(out, (int64_t)k * R + r, col), want = golden(k, r, col, s);
                if (memcmp(&got, &want, 4) != 0 && bad++ < 5)
                    printf("op %d (%d, %d): got %.9g want %.9g\n", k, r, col, got, want);
            }
    CHECK(bad == 0);
    for (i = 0; i < R * C; i++) {
        uint16_t want = pto_f32_to_f16(xin(i)), got = ((uint16_t *)h->data)[i];
        badh += want != got;
    }
    CHECK(badh == 0);
    /* spot values computed by hand: x[1] = -2*0.37+0.1 = -0.64, y[1] = 0.75 */
    CHECK(pto_k_gm_get(out, 2 * R, 1) == -0.64f + 0.75f);
    CHECK(pto_k_gm_get(out, 21 * R, 1) == 0.0f);
    CHECK(pto_k_gm_get(out, 22 * R, 5) == 0.75f);
    /* cycles: the two loads serialise on MTE2; the stores on MTE3 */
    CHECK(rep->ncores == 1 && rep->cores[0].busy[PTO_K_PIPE_MTE2] == 2 * (int64_t)ceil((4096 + 31334.4) / 143.36));
    CHECK(rep->cores[0].busy[PTO_K_PIPE_V] > 0 && rep->cores[0].busy[PTO_K_PIPE_M] == 0);
    /* a tadd of 4096 bytes: 16 repeats x 2.11 + 24 = 57.76 -> 58 cycles */
    CHECK(pto_k__vec_cost(PTO_K__TADD, 4096) == 58);
    CHECK(pto_k__vec_cost(PTO_K__TROWSUM, 4096 + 8) == (int64_t)ceil(7.0 * 17 + 46 + 16));
    /* a column reduction of 16 rows of 256 bytes: a row copy (vec tmov: 2.0 + 24) and
       15 row adds (2.11 + 24 -> 27 each); a column broadcast costs its binary op */
    CHECK(pto_k__colred_cost(PTO_K__TCOLSUM, 16, 256) == 26 + 15 * 27);
    CHECK(pto_k__colred_cost(PTO_K__TCOLMAX, 16, 256 + 4) == (int64_t)ceil(2.0 * 2 + 24 + 16) +
                                                              15 * (int64_t)ceil(2.0 * 2 + 23 + 16));
    CHECK(pto_k__colred_cost(PTO_K__TCOLMIN, 1, 256) == 26 && pto_k__colred_cost(PTO_K__TCOLSUM, 0, 0) == 24);
    CHECK(pto_k__vec_cost(PTO_K__TCOLEXPANDMUL, 4096) == pto_k__vec_cost(PTO_K__TMUL, 4096));
    CHECK(pto_k__vec_cost(PTO_K__TCOLEXPANDDIV, 4096) == pto_k__vec_cost(PTO_K__TROWEXPANDDIV, 4096));
    CHECK(rep->makespan >= rep->bound && rep->bound > 0 && rep->efficiency > 0.0 && rep->efficiency <= 1.0);
    pto_k_device_destroy(dev);
}

/* Valid regions: tload fills the valid region and zeroes the rest; tstore
   writes only the valid region; vector ops touch only d's valid region. */
static void k_valid(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tile t = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 16, 5, 9, 0);
    pto_k_tile full = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 16, 8, 16, 0);
    pto_k_tile d = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 16, 8, 16, 1024);
    pto_k_texpands(c, "v.pto:1: texpands d, 9", d, 9.0);
    pto_k_tload(c, "v.pto:2: tload t, x[2, 3]", t, x, 2, 3);
    pto_k_set_flag(c, "v.pto:3", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 1);
    pto_k_wait_flag(c, "v.pto:4", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 1);
    pto_k_pipe_barrier(c, "v.pto:5", PTO_K_PIPE_V);
    pto_k_tadds(c, "v.pto:6: tadds d', full, 1", pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 16, 6, 10, 1024), full, 1.0);
    pto_k_set_flag(c, "v.pto:7", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 1);
    pto_k_wait_flag(c, "v.pto:8", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 1);
    pto_k_tstore(c, "v.pto:9: tstore z[0, 0], d", z, 0, 0, d);
    pto_k_tstore(c, "v.pto:10: tstore z[8, 0], t(valid 5x9)", z, 8, 0, t);
}

static void test_valid_regions(void)
{
    pto_k_device_desc dd;
    pto_k_launch_desc ld;
    pto_k_device *dev;
    pto_k_gm *x, *z;
    const pto_k_report *rep;
    int64_t args[2];
    int r, col, bad = 0;
    memset(&dd, 0, sizeof dd);
    dev = pto_k_device_create(&dd);
    x = pto_k_gm_create(dev, "x", PTO_K_F32, 16, 16);
    z = pto_k_gm_create(dev, "z", PTO_K_F32, 16, 16);
    for (r = 0; r < 16; r++)
        for (col = 0; col < 16; col++) {
            pto_k_gm_set(x, r, col, (float)(r * 100 + col));
            pto_k_gm_set(z, r, col, -1.0f);
        }
    args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(z);
    memset(&ld, 0, sizeof ld);
    ld.fn = k_valid, ld.kind = PTO_K_KIND_VECTOR, ld.args = args;
    rep = pto_k_launch(dev, &ld);
    if (rep->nerrors) pto_k_report_print(rep, stdout);
    CHECK(rep->nerrors == 0);
    for (r = 0; r < 8; r++)
        for (col = 0; col < 16; col++) {
            float in = r < 5 && col < 9 ? (float)((r + 2) * 100 + col + 3) : 0.0f;
            float want = r < 6 && col < 10 ? in + 1.0f : 9.0f;
            bad += pto_k_gm_get(z, r, col) != want;
            want = r < 5 && col < 9 ? in : -1.0f;
            bad += pto_k_gm_get(z, 8 + r, col) != want;
        }
    CHECK(bad == 0);
    pto_k_device_destroy(dev);
}

/* Column ops over valid regions: a [8, 16] tile loaded with valid(5, 9);
   tcolsum into d [1, 16] valid(1, 9) sums rows 0..4 of columns 0..8;
   tcolexpandsub e [8, 16] valid(6, 9) = a - d down 6 rows (row 5 of a is a
   zero tload wrote). Cycles: the cost table's column rules. */
static void k_cols(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1), *s = pto_k_arg_gm(args, 2);
    pto_k_tile a = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 16, 5, 9, 0);
    pto_k_tile d = pto_k_t(PTO_K_VEC, PTO_K_F32, 1, 16, 1, 9, 512);
    pto_k_tile e = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 16, 6, 9, 1024);
    pto_k_tload(c, "c.pto:1: tload a, x[0, 0]", a, x, 0, 0);
    pto_k_set_flag(c, "c.pto:2", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "c.pto:3", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_tcolsum(c, "c.pto:4: tcolsum d, a", d, a);
    pto_k_pipe_barrier(c, "c.pto:5", PTO_K_PIPE_V);
    pto_k_tcolexpandsub(c, "c.pto:6: tcolexpandsub e, a, d", e, a, d);
    pto_k_set_flag(c, "c.pto:7", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "c.pto:8", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "c.pto:9: tstore z[0, 0], e", z, 0, 0, e);
    pto_k_tstore(c, "c.pto:10: tstore s[0, 0], d", s, 0, 0, d);
}

static void test_cols(void)
{
    pto_k_device_desc dd;
    pto_k_launch_desc ld;
    pto_k_device *dev;
    pto_k_gm *x, *z, *s;
    const pto_k_report *rep;
    int64_t args[3];
    int r, col, bad = 0;
    memset(&dd, 0, sizeof dd);
    dev = pto_k_device_create(&dd);
    x = pto_k_gm_create(dev, "x", PTO_K_F32, 8, 16);
    z = pto_k_gm_create(dev, "z", PTO_K_F32, 8, 16);
    s = pto_k_gm_create(dev, "s", PTO_K_F32, 1, 16);
    for (r = 0; r < 8; r++)
        for (col = 0; col < 16; col++) {
            pto_k_gm_set(x, r, col, (float)(r * 100 + col));
            pto_k_gm_set(z, r, col, -1.0f);
        }
    for (col = 0; col < 16; col++) pto_k_gm_set(s, 0, col, -1.0f);
    args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(z), args[2] = pto_k_gm_arg(s);
    memset(&ld, 0, sizeof ld);
    ld.fn = k_cols, ld.kind = PTO_K_KIND_VECTOR, ld.args = args;
    rep = pto_k_launch(dev, &ld);
    if (rep->nerrors) pto_k_report_print(rep, stdout);
    CHECK(rep->nerrors == 0);
    /* column c of rows 0..4: 5c + (0 + 100 + 200 + 300 + 400) = 5c + 1000 */
    for (col = 0; col < 16; col++) bad += pto_k_gm_get(s, 0, col) != (col < 9 ? (float)(5 * col + 1000) : -1.0f);
    for (r = 0; r < 8; r++)
        for (col = 0; col < 16; col++) {
            float in = r < 5 ? (float)(r * 100 + col) : 0.0f, want = (float)(5 * col + 1000);
            want = in - want;
            bad += pto_k_gm_get(z, r, col) != (r < 6 && col < 9 ? want : -1.0f);
        }
    CHECK(bad == 0);
    CHECK(rep->cores[0].busy[PTO_K_PIPE_V] ==
          pto_k__colred_cost(PTO_K__TCOLSUM, 5, 9 * 4) + pto_k__vec_cost(PTO_K__TCOLEXPANDSUB, 6 * 9 * 4));
    CHECK(pto_k__colred_cost(PTO_K__TCOLSUM, 5, 9 * 4) == 42 + 4 * 43);
    pto_k_device_destroy(dev);
}

/* Cube: mat -> left/right (tmov and textract), matmul, matmul_acc, fixpipe store. */
static void k_cube(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *a = pto_k_arg_gm(args, 0), *b = pto_k_arg_gm(args, 1), *o = pto_k_arg_gm(args, 2);
    pto_k_tile A1 = pto_k_t(PTO_K_MAT, PTO_K_F16, 32, 64, 32, 64, 0);
    pto_k_tile B1 = pto_k_t(PTO_K_MAT, PTO_K_F16, 64, 32, 64, 32, 8192);
    pto_k_tile A0 = pto_k_t(PTO_K_LEFT, PTO_K_F16, 32, 32, 32, 32, 0);
    pto_k_tile A0b = pto_k_t(PTO_K_LEFT, PTO_K_F16, 32, 32, 32, 32, 32768);
    pto_k_tile B0 = pto_k_t(PTO_K_RIGHT, PTO_K_F16, 32, 32, 32, 32, 0);
    pto_k_tile B0b = pto_k_t(PTO_K_RIGHT, PTO_K_F16, 32, 32, 32, 32, 32768);
    pto_k_tile ACC = pto_k_t(PTO_K_ACC, PTO_K_F32, 32, 32, 32, 32, 0);
    pto_k_tload(c, "mm.pto:1: tload a1", A1, a, 0, 0);
    pto_k_tload(c, "mm.pto:2: tload b1", B1, b, 0, 0);
    pto_k_set_flag(c, "mm.pto:3", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
    pto_k_wait_flag(c, "mm.pto:4", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
    pto_k_textract(c, "mm.pto:5: textract a0, a1, 0, 0", A0, A1, 0, 0);
    pto_k_textract(c, "mm.pto:6: textract b0, b1, 0, 0", B0, B1, 0, 0);
    pto_k_textract(c, "mm.pto:7: textract a0b, a1, 0, 32", A0b, A1, 0, 32);
    pto_k_textract(c, "mm.pto:8: textract b0b, b1, 32, 0", B0b, B1, 32, 0);
    pto_k_set_flag(c, "mm.pto:9", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
    pto_k_wait_flag(c, "mm.pto:10", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
    pto_k_tmatmul(c, "mm.pto:11: tmatmul acc, a0, b0", ACC, A0, B0);
    pto_k_pipe_barrier(c, "mm.pto:12: pipe_barrier M", PTO_K_PIPE_M);
    pto_k_tmatmul_acc(c, "mm.pto:13: tmatmul_acc acc, a0b, b0b", ACC, A0b, B0b);
    pto_k_set_flag(c, "mm.pto:14", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
    pto_k_wait_flag(c, "mm.pto:15", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
    pto_k_tstore(c, "mm.pto:16: tstore o, acc", o, 0, 0, ACC);
}

static void test_cube(void)
{
    pto_k_device_desc dd;
    pto_k_launch_desc ld;
    pto_k_device *dev;
    pto_k_gm *a, *b, *o;
    const pto_k_report *rep;
    int64_t args[3];
    int i, j, k, bad = 0;
    memset(&dd, 0, sizeof dd);
    dev = pto_k_device_create(&dd);
    a = pto_k_gm_create(dev, "a", PTO_K_F16, 32, 64);
    b = pto_k_gm_create(dev, "b", PTO_K_F16, 64, 32);
    o = pto_k_gm_create(dev, "o", PTO_K_F32, 32, 32);
    for (i = 0; i < 32; i++)
        for (k = 0; k < 64; k++) {
            pto_k_gm_set(a, i, k, (float)((i * 3 + k) % 13) * 0.1f - 0.5f);
            pto_k_gm_set(b, k, i, (float)((k * 5 + i) % 7) * 0.25f - 0.7f);
        }
    args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(b), args[2] = pto_k_gm_arg(o);
    memset(&ld, 0, sizeof ld);
    ld.fn = k_cube, ld.kind = PTO_K_KIND_CUBE, ld.args = args;
    rep = pto_k_launch(dev, &ld);
    if (rep->nerrors) pto_k_report_print(rep, stdout);
    CHECK(rep->nerrors == 0);
    for (i = 0; i < 32; i++)
        for (j = 0; j < 32; j++) {
            float acc = 0.0f, got;
            for (k = 0; k < 64; k++) {
                float p = pto_k_gm_get(a, i, k) * pto_k_gm_get(b, k, j);
                acc = acc + p;
            }
            got = pto_k_gm_get(o, i, j);
            bad += memcmp(&acc, &got, 4) != 0;
        }
    CHECK(bad == 0);
    /* 32x32x32 f16 = 32768 MAC = 8 fractal cycles + 6 head, twice */
    CHECK(rep->cores[0].busy[PTO_K_PIPE_M] == 2 * (8 + 6));
    CHECK(rep->cores[0].busy[PTO_K_PIPE_FIX] == (int64_t)ceil(4096 / 40.63));
    CHECK(rep->cores[0].busy[PTO_K_PIPE_MTE1] == 2 * (int64_t)ceil(2048 / 255.96) + 2 * (int64_t)ceil(2048 / 127.69));
    pto_k_device_destroy(dev);
}

/* tmov mat -> left / right, acc -> mat; bf16 and i8 stores. */
static void k_cube2(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *a = pto_k_arg_gm(args, 0), *o = pto_k_arg_gm(args, 1);
    pto_k_tile A1 = pto_k_t(PTO_K_MAT, PTO_K_F32, 16, 16, 16, 16, 0);
    pto_k_tile A0 = pto_k_t(PTO_K_LEFT, PTO_K_F32, 16, 16, 16, 16, 0);
    pto_k_tile B0 = pto_k_t(PTO_K_RIGHT, PTO_K_F32, 16, 16, 16, 16, 0);
    pto_k_tile ACC = pto_k_t(PTO_K_ACC, PTO_K_F32, 16, 16, 16, 16, 0);
    pto_k_tile M2 = pto_k_t(PTO_K_MAT, PTO_K_F32, 16, 16, 16, 16, 4096);
    pto_k_tload(c, "c2:1", A1, a, 0, 0);
    pto_k_set_flag(c, "c2:2", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
    pto_k_wait_flag(c, "c2:3", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
    pto_k_tmov(c, "c2:4: tmov a0, a1", A0, A1);
    pto_k_tmov(c, "c2:5: tmov b0, a1", B0, A1);
    pto_k_set_flag(c, "c2:6", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
    pto_k_wait_flag(c, "c2:7", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
    pto_k_tmatmul(c, "c2:8", ACC, A0, B0);
    pto_k_set_flag(c, "c2:9", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
    pto_k_wait_flag(c, "c2:10", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
    pto_k_tmov(c, "c2:11: tmov m2, acc", M2, ACC);
    pto_k_tstore(c, "c2:12: tstore o, acc", o, 0, 0, ACC);
}

static void test_cube2(void)
{
    pto_k_device_desc dd;
    pto_k_launch_desc ld;
    pto_k_device *dev;
    pto_k_gm *a, *o;
    const pto_k_report *rep;
    int64_t args[2];
    int i, j, k, bad = 0;
    memset(&dd, 0, sizeof dd);
    dd.arch = PTO_K_A5;
    dev = pto_k_device_create(&dd);
    a = pto_k_gm_create(dev, "a", PTO_K_F32, 16, 16);
    o = pto_k_gm_create(dev, "o", PTO_K_BF16, 16, 16);
    for (i = 0; i < 16; i++)
        for (j = 0; j < 16; j++) pto_k_gm_set(a, i, j, (float)(i - j) * 0.3f);
    args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(o);
    memset(&ld, 0, sizeof ld);
    ld.fn = k_cube2, ld.kind = PTO_K_KIND_CUBE, ld.args = args;
    rep = pto_k_launch(dev, &ld);
    if (rep->nerrors) pto_k_report_print(rep, stdout);
    CHECK(rep->nerrors == 0);
    for (i = 0; i < 16; i++)
        for (j = 0; j < 16; j++) {
            float acc = 0.0f;
            uint16_t want, got = ((uint16_t *)o->data)[i * 16 + j];
            for (k = 0; k < 16; k++) {
                float p = pto_k_gm_get(a, i, k) * pto_k_gm_get(a, k, j);
                acc = acc + p;
            }
            want = pto_f32_to_bf16(acc);
            bad += want != got;
        }
    CHECK(bad == 0);
    /* f32 matmul: 4096 MAC / 1024 + 6 */
    CHECK(rep->cores[0].busy[PTO_K_PIPE_M] == 4 + 6);
    pto_k_device_destroy(dev);
}

/* tcvt counts its repeats over its wider side (pto-isa's TCVT_IMPL: 256 /
   max(sizeof dst, sizeof src) elements per repeat): [16, 256] f32 -> f16 is
   16 KB of source, 64 repeats (2.0 x 64 + 24 = 152 cycles), as f16 -> f32 is;
   it was charged by the 8 KB f16 destination, 32 repeats (88). */
static void k_cvt(pto_k_core *c, const int64_t *args, int widen)
{
    pto_k_tile f = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 256, 16, 256, 0);
    pto_k_tile h = pto_k_t(PTO_K_VEC, PTO_K_F16, 16, 256, 16, 256, 16384);
    (void)args;
    if (widen) {
        pto_k_texpands(c, "cvt.pto:1: texpands h, 1", h, 1.0);
        pto_k_pipe_barrier(c, "cvt.pto:2: pipe_barrier V", PTO_K_PIPE_V);
        pto_k_tcvt(c, "cvt.pto:3: tcvt f, h", f, h);
    } else {
        pto_k_texpands(c, "cvt.pto:1: texpands f, 1", f, 1.0);
        pto_k_pipe_barrier(c, "cvt.pto:2: pipe_barrier V", PTO_K_PIPE_V);
        pto_k_tcvt(c, "cvt.pto:3: tcvt h, f", h, f);
    }
}
static void k_cvt_narrow(pto_k_core *c, const int64_t *a) { k_cvt(c, a, 0); }
static void k_cvt_widen(pto_k_core *c, const int64_t *a) { k_cvt(c, a, 1); }

static void test_tcvt_cost(void)
{
    pto_k_device_desc dd;
    pto_k_device *dev;
    pto_k_launch_desc ld;
    const pto_k_report *rep;
    int64_t args[1] = {0};
    memset(&dd, 0, sizeof dd);
    dev = pto_k_device_create(&dd);
    memset(&ld, 0, sizeof ld);
    ld.name = "cvt", ld.kind = PTO_K_KIND_VECTOR, ld.args = args;
    ld.fn = k_cvt_narrow;
    rep = pto_k_launch(dev, &ld);
    CHECK(rep->nerrors == 0);
    /* texpands over 16 KB of f32: 64 x 1 + 26 = 90; the tcvt: 152 */
    CHECK_MSG(rep->cores[0].busy[PTO_K_PIPE_V] == 90 + 152, "narrowing tcvt: V busy %lld", (long long)rep->cores[0].busy[PTO_K_PIPE_V]);
    ld.fn = k_cvt_widen;
    rep = pto_k_launch(dev, &ld);
    CHECK(rep->nerrors == 0);
    /* texpands over 8 KB of f16: 32 x 1 + 26 = 58; the tcvt: 152 */
    CHECK_MSG(rep->cores[0].busy[PTO_K_PIPE_V] == 58 + 152, "widening tcvt: V busy %lld", (long long)rep->cores[0].busy[PTO_K_PIPE_V]);
    pto_k_device_destroy(dev);
}

/* A launch past PTO_K_MAX_CORES, or whose vector clocks would pass
   PTO_K_MAX_VC_BYTES, is refused: nothing runs (ncores 0, the
   contract the harness reads), one error in the user's terms; the launch
   after it on the same device runs. */
static void test_refused_launch(void)
{
    pto_k_device_desc dd;
    pto_k_device *dev;
    pto_k_launch_desc ld;
    const pto_k_report *rep;
    int64_t args[1] = {0};
    memset(&dd, 0, sizeof dd);
    dev = pto_k_device_create(&dd);
    memset(&ld, 0, sizeof ld);
    ld.name = "cvt", ld.kind = PTO_K_KIND_MIX, ld.args = args, ld.fn = k_cvt_narrow;
    ld.block_num = PTO_K_MAX_CORES / 3 + 1;
    rep = pto_k_launch(dev, &ld);
    CHECK(rep->ncores == 0 && rep->nerrors == 1);
    CHECK_MSG(rep->nerrors == 1 && strcmp(rep->errors[0].msg,
                                          "error: kernel cvt would launch 1366 blocks (3 cores per block of a mix kernel): "
                                          "more than the 4096 cores the simulator runs in one launch; give it fewer "
                                          "blocks") == 0,
              "refusal: %s", rep->nerrors ? rep->errors[0].msg : "(none)");
    /* under the core cap but past the vector clocks' budget (review18 M4:
       4095 cores took 5.6 GB and minutes): refused before allocating */
    ld.block_num = 683;   /* 2049 cores: 1 GiB + 2 MiB of clocks */
    rep = pto_k_launch(dev, &ld);
    CHECK(rep->ncores == 0 && rep->nerrors == 1);
    CHECK_MSG(rep->nerrors == 1 && strcmp(rep->errors[0].msg,
                                          "error: kernel cvt would launch 683 blocks (2049 cores): the race detector's "
                                          "vector clocks would take 1025 MiB (they grow with the square of the cores), "
                                          "more than the 1024 MiB the simulator allows (PTO_K_MAX_VC_BYTES); give it "
                                          "fewer blocks") == 0,
              "refusal: %s", rep->nerrors ? rep->errors[0].msg : "(none)");
    ld.kind = PTO_K_KIND_VECTOR, ld.block_num = 1;
    rep = pto_k_launch(dev, &ld);
    CHECK(rep->ncores == 1 && rep->nerrors == 0);
    pto_k_device_destroy(dev);
}

/* pto_k_iadd ... (the emitter's checked + - * of an expression it could not
   bound, review28 L4): exact at the edges of int64, and one past them is one
   report at its line, after which the launch stops (nothing after it runs:
   no tload, no follow-on report). */
static void k_overflow(pto_k_core *c, const int64_t *args)
{
    const pto_k_tile a = pto_k_t(PTO_K_VEC, PTO_K_F32, R, C, R, C, 0);
    int64_t n = pto_k_arg_i(args, 1), r;
    r = pto_k_imul(c, "ovf.pto:3", n, 4611686018427387904);   /* n = 4: 2^64 */
    pto_k_tdecl(c, "ovf.pto:4", a);
    pto_k_tload(c, "ovf.pto:5", a, pto_k_arg_gm(args, 0), r, 0);
}

static void test_checked_int(void)
{
    static const struct { int op; int64_t a, b, r; int ovf; } cases[] = {
        {'+', INT64_MAX - 1, 1, INT64_MAX, 0}, {'+', INT64_MAX, 1, 0, 1}, {'+', INT64_MIN, -1, 0, 1},
        {'+', INT64_MIN, INT64_MAX, -1, 0},    {'-', INT64_MIN + 1, 1, INT64_MIN, 0}, {'-', INT64_MIN, 1, 0, 1},
        {'-', 0, INT64_MIN, 0, 1},             {'-', -1, INT64_MIN, INT64_MAX, 0},
        {'*', INT64_MIN, 1, INT64_MIN, 0},     {'*', INT64_MIN, -1, 0, 1}, {'*', -4611686018427387904, 2, INT64_MIN, 0},
        {'*', 4611686018427387904, 2, 0, 1},   {'*', 3037000499, 3037000499, 9223372030926249001, 0},
        {'*', 3037000500, 3037000500, 0, 1},   {'*', 0, INT64_MIN, 0, 0}, {'*', -3, 5, -15, 0},
    };
    pto_k_device_desc dd;
    pto_k_device *dev;
    pto_k_launch_desc ld;
    pto_k_gm *x;
    const pto_k_report *rep;
    int64_t args[2];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t r = 12345;
        int o = pto_k__ovf(cases[i].op, cases[i].a, cases[i].b, &r);
        CHECK_MSG(o == cases[i].ovf && (o || r == cases[i].r), "case %d: %lld %c %lld: overflow %d, %lld", (int)i,
                  (long long)cases[i].a, cases[i].op, (long long)cases[i].b, o, (long long)r);
    }
    memset(&dd, 0, sizeof dd);
    dev = pto_k_device_create(&dd);
    x = pto_k_gm_create(dev, "x", PTO_K_F32, 64, C);
    args[0] = pto_k_gm_arg(x), args[1] = 4;
    memset(&ld, 0, sizeof ld);
    ld.name = "ovf", ld.kind = PTO_K_KIND_VECTOR, ld.args = args, ld.fn = k_overflow, ld.block_num = 2;
    rep = pto_k_launch(dev, &ld);
    CHECK_MSG(rep->nerrors == 1 && rep->errors[0].kind == PTO_K_E_OVERFLOW &&
                  strncmp(rep->errors[0].msg, "ovf.pto:3: error: integer overflow in expression: 4 * 4611686018427387904 "
                                              "leaves int64 (block ", 80) == 0,
              "overflow: %d reports, %s", rep->nerrors, rep->nerrors ? rep->errors[0].msg : "(none)");
    args[1] = 1;   /* 2^62: in int64, then a window past x, the tload's own report (no stop) */
    rep = pto_k_launch(dev, &ld);
    CHECK(pto_k_report_find(rep, PTO_K_E_BOUNDS, "tload: window") != NULL && !pto_k_report_find(rep, PTO_K_E_OVERFLOW, ""));
    pto_k_device_destroy(dev);
}

/* A row reduction into a column taller than its source (`trowsum one, cs`,
   one: f32[8, 1] valid(1, 1), cs: [1, 64]: a full reduction's last step):
   it reduces the source's valid rows; other valid rows are a usage error
   (pto-isa's TRowReduceCheck), not a read past the source. */
static void k_tall_rowsum(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *out = pto_k_arg_gm(args, 1);
    pto_k_tile cs = rowv(0), one = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 1, 1, 1, TB);
    pto_k_tile two = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 1, 2, 1, 2 * TB);
    pto_k_tload(c, "tall.pto:3: tload cs, x[0, 0]", cs, x, 0, 0);
    pto_k_set_flag(c, "tall.pto:4: set_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "tall.pto:5: wait_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_trowsum(c, "tall.pto:6: trowsum one, cs", one, cs);
    if (args[2]) pto_k_trowsum(c, "tall.pto:7: trowsum two, cs", two, cs);
    pto_k_set_flag(c, "tall.pto:8: set_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "tall.pto:9: wait_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "tall.pto:10: tstore out[0, 0], one", out, 0, 0, one);
}

static void test_tall_rowsum(void)
{
    pto_k_device_desc dd;
    pto_k_launch_desc ld;
    pto_k_device *dev;
    pto_k_gm *x, *out;
    const pto_k_report *rep;
    int64_t args[3];
    int i, bad;
    float want = 0.0f;
    for (bad = 0; bad < 2; bad++) {
        memset(&dd, 0, sizeof dd);
        dev = pto_k_device_create(&dd);
        x = pto_k_gm_create(dev, "x", PTO_K_F32, 1, C);
        out = pto_k_gm_create(dev, "out", PTO_K_F32, 1, 1);
        for (i = 0, want = 0.0f; i < C; i++) {
            pto_k_gm_set(x, 0, i, xin(i));
            want = want + xin(i);
        }
        args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(out), args[2] = bad;
        memset(&ld, 0, sizeof ld);
        ld.fn = k_tall_rowsum, ld.name = "tall", ld.kind = PTO_K_KIND_VECTOR, ld.args = args;
        rep = pto_k_launch(dev, &ld);
        if (!bad) {
            if (rep->nerrors) pto_k_report_print(rep, stdout);
            CHECK(rep->nerrors == 0);
            CHECK(pto_k_gm_get(out, 0, 0) == want);
        } else {
            CHECK(rep->nerrors >= 1 && rep->errors && strstr(rep->errors[0].msg, "trowsum: destination has 2 valid rows, "
                                                             "source 1; a row reduction into a taller column") != NULL);
        }
        pto_k_device_destroy(dev);
    }
}

/* ttrans: d[c, r] = a[r, c] over a's valid region, on V, two tmov passes
   of the cost table (2 x (2.0 x 16 + 24) = 112 for 4 KB); a destination
   whose valid region is not the source's transposed is a usage error. */
static void k_trans(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *out = pto_k_arg_gm(args, 1);
    pto_k_tile a = vt(0), d = pto_k_t(PTO_K_VEC, PTO_K_F32, C, R, args[2] ? C - 1 : C, R, TB);
    pto_k_tload(c, "tr.pto:3: tload a, x[0, 0]", a, x, 0, 0);
    pto_k_set_flag(c, "tr.pto:4: set_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "tr.pto:5: wait_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_ttrans(c, "tr.pto:6: ttrans d, a", d, a);
    pto_k_set_flag(c, "tr.pto:7: set_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "tr.pto:8: wait_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "tr.pto:9: tstore out[0, 0], d", out, 0, 0, d);
}

static void test_trans(void)
{
    pto_k_device_desc dd;
    pto_k_launch_desc ld;
    pto_k_device *dev;
    pto_k_gm *x, *out;
    const pto_k_report *rep;
    int64_t args[3];
    int i, j, bad, wrong;
    for (bad = 0; bad < 2; bad++) {
        memset(&dd, 0, sizeof dd);
        dev = pto_k_device_create(&dd);
        x = pto_k_gm_create(dev, "x", PTO_K_F32, R, C);
        out = pto_k_gm_create(dev, "out", PTO_K_F32, C, R);
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++) pto_k_gm_set(x, i, j, xin(i * C + j));
        args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(out), args[2] = bad;
        memset(&ld, 0, sizeof ld);
        ld.fn = k_trans, ld.name = "tr", ld.kind = PTO_K_KIND_VECTOR, ld.args = args;
        rep = pto_k_launch(dev, &ld);
        if (!bad) {
            if (rep->nerrors) pto_k_report_print(rep, stdout);
            CHECK(rep->nerrors == 0);
            for (i = 0, wrong = 0; i < R; i++)
                for (j = 0; j < C; j++) wrong += pto_k_gm_get(out, j, i) != xin(i * C + j);
            CHECK_MSG(wrong == 0, "ttrans: %d elements wrong", wrong);
            CHECK_MSG(rep->cores[0].busy[PTO_K_PIPE_V] == 112, "ttrans: V busy %lld", (long long)rep->cores[0].busy[PTO_K_PIPE_V]);
        } else {
            CHECK_MSG(rep->nerrors >= 1 && rep->errors && strstr(rep->errors[0].msg, "ttrans: the destination (f32, valid [63, 16]) "
                                                                 "is not the source (f32, valid [16, 64]) transposed") != NULL,
                      "ttrans refusal: %s", rep->nerrors ? rep->errors[0].msg : "(none)");
        }
        pto_k_device_destroy(dev);
    }
}

int main(void)
{
    test_refused_launch();
    test_checked_int();
    test_tcvt_cost();
    test_vector_ops();
    test_tall_rowsum();
    test_trans();
    test_valid_regions();
    test_cols();
    test_cube();
    test_cube2();
    return TEST_END();
}
