/* test_sim_bugs.c - single-core failure classes of the strict simulator.
   Each planted bug must be caught with a precise report (both instructions,
   pipes, bytes, source lines); the same kernel with the bug fixed must run
   clean and compute the hand-derived result. Also: the double-buffered
   loop overlaps its pipes, cycles are deterministic, the trace is written. */

#include "tests/check.h"
#include "pto_kernels.h"

static pto_k_device *dev_new(int arch, const char *trace)
{
    pto_k_device_desc dd;
    memset(&dd, 0, sizeof dd);
    dd.arch = arch;
    dd.trace_path = trace;
    return pto_k_device_create(&dd);
}

static const pto_k_report *run(pto_k_device *dev, pto_k_kernel_fn fn, const int64_t *args)
{
    pto_k_launch_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.fn = fn, ld.name = "k", ld.kind = PTO_K_KIND_VECTOR, ld.args = args;
    return pto_k_launch(dev, &ld);
}

static int only(const pto_k_report *r, int kind)
{
    int i, n = 0;
    for (i = 0; i < r->nerrors; i++) n += r->errors[i].kind == kind;
    if (n != r->nerrors || n == 0) pto_k_report_print(r, stdout);
    return n == r->nerrors && n > 0;
}

static int clean(const pto_k_report *r)
{
    if (r->nerrors) pto_k_report_print(r, stdout);
    return r->nerrors == 0;
}

#include "tests/sim_bug_kernels.h"

static void setup(pto_k_device *dev, int64_t *args)
{
    pto_k_gm *x = pto_k_gm_create(dev, "x", PTO_K_F32, 64, 64), *z = pto_k_gm_create(dev, "z", PTO_K_F32, 64, 64);
    int r, col;
    for (r = 0; r < 64; r++)
        for (col = 0; col < 64; col++) pto_k_gm_set(x, r, col, (float)(r * 64 + col) * 0.001f);
    args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(z);
}

static int z_is(pto_k_device *dev, int rows, float (*f)(float))
{
    pto_k_gm *x = dev->gms[0], *z = dev->gms[1];
    int r, col, bad = 0;
    for (r = 0; r < rows; r++)
        for (col = 0; col < 64; col++) {
            float want = f(pto_k_gm_get(x, r, col)), got = pto_k_gm_get(z, r, col);
            bad += memcmp(&want, &got, 4) != 0;
        }
    return bad == 0;
}
static float f_twice(float v) { float t = v + v; return t; }
static float f_exp_plus(float v) { float t = expf(v) + v; return t; }
static float f_id(float v) { return v; }
static float f_plus1(float v) { float t = v + 1.0f; return t; }
static float f_zero(float v) { (void)v; return 0.0f; }

static void test_single_core_bugs(void)
{
    pto_k_device *dev = dev_new(PTO_K_A2A3, NULL);
    const pto_k_report *r;
    int64_t args[2];
    setup(dev, args);

    r = run(dev, k_flag_bug, args);
    CHECK(only(r, PTO_K_E_RACE) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "flag.pto:6: tadd d, t, t: error: race on vec bytes [0, 2048): tadd (V, block 0 aiv0) reads them while "
              "\"flag.pto:3: tload t, x[0, 0]\" tload (MTE2, block 0 aiv0) wrote them unordered; missing "
              "set_flag(MTE2, V, id) / wait_flag(MTE2, V, id)");
    r = run(dev, k_flag_fix, args);
    CHECK(clean(r) && z_is(dev, 8, f_twice));

    r = run(dev, k_bar_bug, args);
    CHECK(only(r, PTO_K_E_RACE) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "bar.pto:8: tadd d, e, t: error: race on vec bytes [4096, 6144): tadd (V, block 0 aiv0) reads them while "
              "\"bar.pto:6: texp e, t\" texp (V, block 0 aiv0) wrote them unordered; both run on pipe V, which may "
              "overlap them: missing pipe_barrier(V)");
    r = run(dev, k_bar_fix, args);
    CHECK(clean(r) && z_is(dev, 8, f_exp_plus));

    r = run(dev, k_dset_bug, args);
    /* the second set is lost, so the tadd is not ordered after the second load either */
    CHECK(r->nerrors == 2 && r->errors[0].kind == PTO_K_E_DOUBLE_SET && r->errors[1].kind == PTO_K_E_RACE);
    CHECK(pto_k_report_find(r, PTO_K_E_RACE, "dset.pto:9: tadd d, t, u: error: race on vec bytes [2048, 4096)"));
    CHECK_STR(r->errors[0].msg,
              "dset.pto:7: set_flag MTE2, V, 2: error: double set: set_flag(MTE2, V, 2) while id 2 of MTE2 -> V is "
              "still set by \"dset.pto:4: set_flag MTE2, V, 2\" (no wait_flag consumed it) (block 0 aiv0)");
    r = run(dev, k_dset_fix, args);
    CHECK(clean(r));

    r = run(dev, k_never_bug, args);
    CHECK(r->nerrors == 2 && pto_k_report_find(r, PTO_K_E_DEADLOCK, NULL) && pto_k_report_find(r, PTO_K_E_LEFT_SET, NULL));
    CHECK_STR(pto_k_report_find(r, PTO_K_E_DEADLOCK, NULL),
              "nv.pto:8: wait_flag V, MTE3, 1: error: deadlock: wait_flag(V, MTE3, 1) can never be satisfied: no "
              "set_flag(V, MTE3, 1) follows it before the kernel ends; 1 later instruction(s) on pipe MTE3 never ran "
              "(block 0 aiv0)");
    CHECK_STR(pto_k_report_find(r, PTO_K_E_LEFT_SET, NULL),
              "nv.pto:7: set_flag V, MTE3, 0: error: unbalanced flag: set_flag(V, MTE3, 0) is still set when the "
              "kernel ends: no wait_flag(V, MTE3, 0) consumes it (block 0 aiv0)");
    memset(dev->gms[1]->data, 0, 64 * 64 * 4);
    r = run(dev, k_never_fix, args);
    CHECK(clean(r) && z_is(dev, 8, f_twice));

    r = run(dev, k_left_bug, args);
    CHECK(only(r, PTO_K_E_LEFT_SET) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "left.pto:9: set_flag MTE3, MTE2, 0: error: unbalanced flag: set_flag(MTE3, MTE2, 0) is still set when "
              "the kernel ends: no wait_flag(MTE3, MTE2, 0) consumes it (block 0 aiv0)");
    r = run(dev, k_left_fix, args);
    CHECK(clean(r) && z_is(dev, 32, f_id));

    /* an id set again before the wait of its previous set is ordered
       before it: reported once per pair of lines, however the cycles fall */
    memset(dev->gms[1]->data, 0, 64 * 64 * 4);
    r = run(dev, k_idreuse_bug, args);
    CHECK(only(r, PTO_K_E_DOUBLE_SET) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "reuse.pto:6: set_flag MTE2, V, id: error: unordered reuse: set_flag(MTE2, V, 0) is not ordered after "
              "the wait_flag(MTE2, V, 0) at \"reuse.pto:7: wait_flag MTE2, V, id\" that consumes its previous set (MTE2 "
              "may run ahead of V): on a device both sets can be pending at once and one signal is lost (a hang); "
              "rotate the ids or order that wait first (block 0 aiv0)");
    r = run(dev, k_idreuse_fix, args);
    CHECK(clean(r) && z_is(dev, 32, f_twice));

    memset(dev->gms[1]->data, 0, 64 * 64 * 4);
    r = run(dev, k_cap_bug, args);
    /* one report per bad tile, not per instruction on it; both instructions are counted as not run,
       so the harness prints no efficiency figure (review28 L9) */
    CHECK(only(r, PTO_K_E_CAPACITY) && r->nerrors == 1 && r->suppressed == 0 && r->skipped == 2);
    CHECK_STR(r->errors[0].msg,
              "cap.pto:3: tload t, x[0, 0]: error: tload: tile past capacity: destination tile [16, 64] f32 at byte "
              "192544 spans [192544, 196640) but vec holds 196608 bytes on a2a3 (block 0 aiv0)");
    CHECK(z_is(dev, 16, f_zero)); /* nothing was stored */
    r = run(dev, k_cap_fix, args);
    CHECK(clean(r) && z_is(dev, 16, f_id));
    r = run(dev, k_cap_a5, args);
    CHECK(only(r, PTO_K_E_CAPACITY)); /* 256 KiB is a5's UB, not a2a3's */
    /* a tmuls whose source is past UB does not run; its destination counts as written, so the tstore
       of it reports no uninitialised read (was a second report from the same cause) */
    r = run(dev, k_capsrc, args);
    CHECK_MSG(only(r, PTO_K_E_CAPACITY) && r->nerrors == 1 && r->skipped == 2, "%d reports, %lld skipped",
              (int)r->nerrors, (long long)r->skipped);

    r = run(dev, k_align_bug, args);
    CHECK(only(r, PTO_K_E_ALIGN) && r->nerrors == 1 && r->skipped == 2);
    CHECK_STR(r->errors[0].msg,
              "cap.pto:3: tload t, x[0, 0]: error: tload: misaligned address: destination tile at vec byte 1040 is not "
              "32-byte aligned (block 0 aiv0)");
    r = run(dev, k_align_fix, args);
    CHECK(clean(r) && z_is(dev, 16, f_id) && r->skipped == 0);
    r = run(dev, k_rowalign, args);
    CHECK(only(r, PTO_K_E_ALIGN));
    CHECK_STR(r->errors[0].msg, "ra.pto:1: tload t, x[0, 0]: error: tload: misaligned rows: vec destination tile "
                                "[4, 24] f16 has rows of 48 bytes, not a multiple of 32 (block 0 aiv0)");
    r = run(dev, k_bounds, args);
    CHECK(only(r, PTO_K_E_BOUNDS));
    CHECK_STR(r->errors[0].msg, "gm.pto:1: tload t, x[60, 0]: error: tload: window x[60, 0] of shape [8, 64] is "
                                "outside tensor 'x' of shape [64, 64] (block 0 aiv0)");

    r = run(dev, k_defer, args);
    CHECK(clean(r) && z_is(dev, 8, f_plus1));
    r = run(dev, k_allhang, args);
    CHECK(only(r, PTO_K_E_DEADLOCK) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "ah.pto:3: pipe_barrier ALL: error: deadlock: pipe_barrier(ALL) can never complete: pipe MTE3 is blocked "
              "in wait_flag(V, MTE3, 3) at \"ah.pto:1: wait_flag V, MTE3, 3\" and no set_flag(V, MTE3, 3) was issued "
              "before the barrier (block 0 aiv0)");

    r = run(dev, k_shang_bug, args);
    CHECK(only(r, PTO_K_E_DEADLOCK) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "sh.pto:4: wait_flag V, S, 1: error: deadlock: wait_flag(V, S, 1) stalls the scalar unit, which "
              "dispatches nothing after it until set_flag(V, S, 1) fires, and none was issued before it: move the "
              "wait_flag after its set_flag at \"sh.pto:6: set_flag V, S, 1\" (block 0 aiv0)");
    r = run(dev, k_shang_fix, args);
    CHECK(clean(r));
    r = run(dev, k_shang_queued, args);
    CHECK(only(r, PTO_K_E_DEADLOCK) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "sq.pto:5: wait_flag V, S, 2: error: deadlock: wait_flag(V, S, 2) stalls the scalar unit, which "
              "dispatches nothing after it until set_flag(V, S, 2) fires, and the one issued before it can never "
              "run: pipe V is blocked in wait_flag(MTE2, V, 2) at \"sq.pto:2: wait_flag MTE2, V, 2\", whose set_flag "
              "comes after the stall, at \"sq.pto:6: set_flag MTE2, V, 2\": move the wait_flag after that set_flag "
              "(block 0 aiv0)");
    /* review22 L6: its later set dropped, the report names the wait no set matches (as a vector
       kernel's does at its end), not the S wait that follows its set */
    r = run(dev, k_shang_dropped, args);
    CHECK(only(r, PTO_K_E_DEADLOCK) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "sd.pto:2: wait_flag MTE2, V, 2: error: deadlock: wait_flag(MTE2, V, 2) can never be satisfied: no "
              "set_flag(MTE2, V, 2) follows it before the kernel ends; the scalar unit stalls behind it in "
              "wait_flag(V, S, 2) at \"sd.pto:5: wait_flag V, S, 2\", whose set_flag at \"sd.pto:4: set_flag V, S, "
              "2\" is queued on pipe V (block 0 aiv0)");
    r = run(dev, k_shang_noset, args);
    CHECK(only(r, PTO_K_E_DEADLOCK) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "sn.pto:2: wait_flag V, S, 3: error: deadlock: wait_flag(V, S, 3) stalls the scalar unit, which "
              "dispatches nothing after it until set_flag(V, S, 3) fires, and none was issued before it or follows "
              "it before the kernel ends (block 0 aiv0)");
    {   /* texpands [8, 64] f32: 8 repeats x 1 + 26 = 34; tload 2048 B: (2048 + 31334.4) / 143.36 -> 233 */
        int64_t serial, beside;
        r = run(dev, k_sstall_wait, args);
        CHECK(clean(r));
        serial = r->makespan;
        r = run(dev, k_sstall_late, args);
        CHECK(clean(r));
        beside = r->makespan;
        CHECK(serial >= 34 + 233 && beside < 34 + 233);
    }

    r = run(dev, k_gmdep_bug, args);
    CHECK(only(r, PTO_K_E_RACE) && r->nerrors == 1);
    CHECK_STR(r->errors[0].msg,
              "gd.pto:7: tload u, z[0, 0]: error: race on gm z bytes [0, 2048): tload (MTE2, block 0 aiv0) reads them "
              "while \"gd.pto:4: tstore z[0, 0], t\" tstore (MTE3, block 0 aiv0) wrote them unordered; missing "
              "set_flag(MTE3, MTE2, id) / wait_flag(MTE3, MTE2, id)");
    r = run(dev, k_gmdep_fix, args);
    CHECK(clean(r));

    r = run(dev, k_loop_race, args);
    /* RAW tload -> tadd, WAR tadd -> next tload, WAW tadd -> next tadd: each once */
    CHECK(r->nerrors == 3 && r->suppressed == 3 * 7 + 6);
    CHECK(pto_k_report_find(r, PTO_K_E_RACE, "tload (MTE2, block 0 aiv0) writes them while \"lr.pto:3: tadd d, t, t\""));
    pto_k_device_destroy(dev);
}

/* ---- double buffering: load / compute / store overlap ------------------------- */

enum { DB_N = 8, DB_R = 16, DB_C = 256 };
#define DBT(k, slot) pto_k_t(PTO_K_VEC, PTO_K_F32, DB_R, DB_C, DB_R, DB_C, ((int64_t)(k) * 2 + (slot)) * DB_R * DB_C * 4)

static void k_dbuf(pto_k_core *c, const int64_t *args, int nslot)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *y = pto_k_arg_gm(args, 1), *z = pto_k_arg_gm(args, 2);
    int i, s;
    for (s = 0; s < nslot; s++) {
        pto_k_set_flag(c, "db.pto:2: set_flag V, MTE2 (inputs free)", PTO_K_PIPE_V, PTO_K_PIPE_MTE2, s);
        pto_k_set_flag(c, "db.pto:3: set_flag MTE3, V (output free)", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, s);
    }
    for (i = 0; i < DB_N; i++) {
        s = i % nslot;
        pto_k_wait_flag(c, "db.pto:5: wait_flag V, MTE2", PTO_K_PIPE_V, PTO_K_PIPE_MTE2, s);
        pto_k_tload(c, "db.pto:6: tload a, x[i * 16, 0]", DBT(0, s), x, (int64_t)i * DB_R, 0);
        pto_k_tload(c, "db.pto:7: tload b, y[i * 16, 0]", DBT(1, s), y, (int64_t)i * DB_R, 0);
        pto_k_set_flag(c, "db.pto:8: set_flag MTE2, V", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, s);
        pto_k_wait_flag(c, "db.pto:9: wait_flag MTE2, V", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, s);
        pto_k_wait_flag(c, "db.pto:10: wait_flag MTE3, V", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, s);
        pto_k_tadd(c, "db.pto:11: tadd o, a, b", DBT(2, s), DBT(0, s), DBT(1, s));
        pto_k_set_flag(c, "db.pto:12: set_flag V, MTE2", PTO_K_PIPE_V, PTO_K_PIPE_MTE2, s);
        pto_k_set_flag(c, "db.pto:13: set_flag V, MTE3", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, s);
        pto_k_wait_flag(c, "db.pto:14: wait_flag V, MTE3", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, s);
        pto_k_tstore(c, "db.pto:15: tstore z[i * 16, 0], o", z, (int64_t)i * DB_R, 0, DBT(2, s));
        pto_k_set_flag(c, "db.pto:16: set_flag MTE3, V", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, s);
    }
    for (s = 0; s < nslot; s++) {
        pto_k_wait_flag(c, "db.pto:18: wait_flag V, MTE2", PTO_K_PIPE_V, PTO_K_PIPE_MTE2, s);
        pto_k_wait_flag(c, "db.pto:19: wait_flag MTE3, V", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, s);
    }
}
static void k_dbuf2(pto_k_core *c, const int64_t *a) { k_dbuf(c, a, 2); }
static void k_dbuf1(pto_k_core *c, const int64_t *a) { k_dbuf(c, a, 1); }

static void test_double_buffer(void)
{
    const char *trace = "build/test_sim_dbuf.trace.json";
    pto_k_device *dev = dev_new(PTO_K_A2A3, trace);
    pto_k_gm *x = pto_k_gm_create(dev, "x", PTO_K_F32, DB_N * DB_R, DB_C);
    pto_k_gm *y = pto_k_gm_create(dev, "y", PTO_K_F32, DB_N * DB_R, DB_C);
    pto_k_gm *z = pto_k_gm_create(dev, "z", PTO_K_F32, DB_N * DB_R, DB_C);
    const pto_k_report *r;
    int64_t args[3], mk2, ser2, bound2, mk1;
    int i, j, bad = 0;
    FILE *f;
    char buf[4096];
    size_t n;
    for (i = 0; i < DB_N * DB_R; i++)
        for (j = 0; j < DB_C; j++) {
            pto_k_gm_set(x, i, j, (float)(i + j) * 0.5f);
            pto_k_gm_set(y, i, j, (float)(i - j) * 0.25f);
        }
    args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(y), args[2] = pto_k_gm_arg(z);
    r = run(dev, k_dbuf2, args);
    CHECK(clean(r));
    for (i = 0; i < DB_N * DB_R; i++)
        for (j = 0; j < DB_C; j++) {
            float want = (float)(i + j) * 0.5f + (float)(i - j) * 0.25f;
            bad += pto_k_gm_get(z, i, j) != want;
        }
    CHECK(bad == 0);
    mk2 = r->makespan, ser2 = r->serial, bound2 = r->bound;
    printf("double buffer: makespan %lld, bound %lld (MTE2), serial sum %lld, efficiency %.1f%%\n", (long long)mk2,
           (long long)bound2, (long long)ser2, 100.0 * r->efficiency);
    CHECK(r->bound == r->cores[0].busy[PTO_K_PIPE_MTE2]);
    CHECK(mk2 * 100 <= bound2 * 110);  /* within 10% of the busiest pipe */
    CHECK(mk2 * 100 <= ser2 * 80);     /* well below the serial sum */
    /* determinism: the same launch gives the same cycles */
    r = run(dev, k_dbuf2, args);
    CHECK(r->makespan == mk2 && r->serial == ser2);
    /* one slot: the pipes mostly wait for each other */
    r = run(dev, k_dbuf1, args);
    CHECK(clean(r));
    mk1 = r->makespan;
    printf("single buffer: makespan %lld, serial sum %lld\n", (long long)mk1, (long long)r->serial);
    CHECK(mk1 > mk2 && r->serial == ser2);
    pto_k_device_destroy(dev);
    f = fopen(trace, "r");
    CHECK(f != NULL);
    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        CHECK(strncmp(buf, "{\"displayTimeUnit\"", 18) == 0 && strstr(buf, "\"traceEvents\":[") &&
              strstr(buf, "\"name\":\"tload\",\"cat\":\"MTE2\",\"ph\":\"X\""));
    }
}

int main(void)
{
    test_single_core_bugs();
    test_double_buffer();
    return TEST_END();
}
