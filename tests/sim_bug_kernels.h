/* sim_bug_kernels.h - the single-core kernels of test_sim_bugs.c, each with
 * a planted bug and its fix (flag, fixed), shared with test_sim_ref.c, which
 * runs the fixed versions against the reference interpreter. Include after
 * pto_kernels.h; every function is PTO_K_FN (static, maybe unused). */

#ifndef PTO_TEST_SIM_BUG_KERNELS_H
#define PTO_TEST_SIM_BUG_KERNELS_H

#define T(off) pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 64, 8, 64, off) /* 2048 bytes */

/* ---- 1. a missing flag: V reads what MTE2 loads ---------------------------- */

PTO_K_FN void k_flag(pto_k_core *c, const int64_t *args, int fixed)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tload(c, "flag.pto:3: tload t, x[0, 0]", T(0), x, 0, 0);
    if (fixed) {
        pto_k_set_flag(c, "flag.pto:4: set_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
        pto_k_wait_flag(c, "flag.pto:5: wait_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    }
    pto_k_tadd(c, "flag.pto:6: tadd d, t, t", T(2048), T(0), T(0));
    pto_k_set_flag(c, "flag.pto:7: set_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "flag.pto:8: wait_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "flag.pto:9: tstore z[0, 0], d", z, 0, 0, T(2048));
}
PTO_K_FN void k_flag_bug(pto_k_core *c, const int64_t *a) { k_flag(c, a, 0); }
PTO_K_FN void k_flag_fix(pto_k_core *c, const int64_t *a) { k_flag(c, a, 1); }

/* ---- 2. a missing V barrier: tadd reads what texp writes ------------------- */

PTO_K_FN void k_bar(pto_k_core *c, const int64_t *args, int fixed)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tload(c, "bar.pto:3: tload t, x[0, 0]", T(0), x, 0, 0);
    pto_k_set_flag(c, "bar.pto:4", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "bar.pto:5", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_texp(c, "bar.pto:6: texp e, t", T(4096), T(0));
    if (fixed) pto_k_pipe_barrier(c, "bar.pto:7: pipe_barrier V", PTO_K_PIPE_V);
    pto_k_tadd(c, "bar.pto:8: tadd d, e, t", T(2048), T(4096), T(0));
    pto_k_set_flag(c, "bar.pto:9", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "bar.pto:10", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "bar.pto:11: tstore z[0, 0], d", z, 0, 0, T(2048));
}
PTO_K_FN void k_bar_bug(pto_k_core *c, const int64_t *a) { k_bar(c, a, 0); }
PTO_K_FN void k_bar_fix(pto_k_core *c, const int64_t *a) { k_bar(c, a, 1); }

/* ---- 3. a double set -------------------------------------------------------- */

PTO_K_FN void k_dset(pto_k_core *c, const int64_t *args, int fixed)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tload(c, "dset.pto:3: tload t, x[0, 0]", T(0), x, 0, 0);
    pto_k_set_flag(c, "dset.pto:4: set_flag MTE2, V, 2", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 2);
    if (fixed) pto_k_wait_flag(c, "dset.pto:5: wait_flag MTE2, V, 2", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 2);
    pto_k_tload(c, "dset.pto:6: tload u, x[8, 0]", T(2048), x, 8, 0);
    /* the fix waits and sets another id: MTE2 may run ahead of V's wait, so
       id 2 again would still be set twice on a device (5b) */
    pto_k_set_flag(c, "dset.pto:7: set_flag MTE2, V, 2", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, fixed ? 3 : 2);
    pto_k_wait_flag(c, "dset.pto:8: wait_flag MTE2, V, 2", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, fixed ? 3 : 2);
    pto_k_tadd(c, "dset.pto:9: tadd d, t, u", T(4096), T(0), T(2048));
    pto_k_set_flag(c, "dset.pto:10", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "dset.pto:11", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "dset.pto:12: tstore z[0, 0], d", z, 0, 0, T(4096));
}
PTO_K_FN void k_dset_bug(pto_k_core *c, const int64_t *a) { k_dset(c, a, 0); }
PTO_K_FN void k_dset_fix(pto_k_core *c, const int64_t *a) { k_dset(c, a, 1); }

/* ---- 4. a wait that is never satisfied; 5. an id left set ------------------- */

PTO_K_FN void k_never(pto_k_core *c, const int64_t *args, int fixed)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tload(c, "nv.pto:3: tload t, x[0, 0]", T(0), x, 0, 0);
    pto_k_set_flag(c, "nv.pto:4", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "nv.pto:5", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_tadd(c, "nv.pto:6: tadd d, t, t", T(2048), T(0), T(0));
    pto_k_set_flag(c, "nv.pto:7: set_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, fixed ? 1 : 0);
    pto_k_wait_flag(c, "nv.pto:8: wait_flag V, MTE3, 1", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 1);
    pto_k_tstore(c, "nv.pto:9: tstore z[0, 0], d", z, 0, 0, T(2048));
}
PTO_K_FN void k_never_bug(pto_k_core *c, const int64_t *a) { k_never(c, a, 0); }
PTO_K_FN void k_never_fix(pto_k_core *c, const int64_t *a) { k_never(c, a, 1); }

/* The loop idiom: the "free" flag is set before the loop, waited before
   reuse, set after the last read; the bug forgets the drain after the loop. */
PTO_K_FN void k_left(pto_k_core *c, const int64_t *args, int fixed)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    int i;
    pto_k_set_flag(c, "left.pto:2: set_flag MTE3, MTE2, 0", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, 0);
    for (i = 0; i < 4; i++) {
        pto_k_wait_flag(c, "left.pto:4: wait_flag MTE3, MTE2, 0", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, 0);
        pto_k_tload(c, "left.pto:5: tload t, x[i * 8, 0]", T(0), x, i * 8, 0);
        pto_k_set_flag(c, "left.pto:6", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE3, 0);
        pto_k_wait_flag(c, "left.pto:7", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE3, 0);
        pto_k_tstore(c, "left.pto:8: tstore z[i * 8, 0], t", z, i * 8, 0, T(0));
        pto_k_set_flag(c, "left.pto:9: set_flag MTE3, MTE2, 0", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, 0);
    }
    if (fixed) pto_k_wait_flag(c, "left.pto:11: wait_flag MTE3, MTE2, 0", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, 0);
}
PTO_K_FN void k_left_bug(pto_k_core *c, const int64_t *a) { k_left(c, a, 0); }
PTO_K_FN void k_left_fix(pto_k_core *c, const int64_t *a) { k_left(c, a, 1); }

/* ---- 5b. an id reused without order ------------------------------------------
   Two slots, four iterations: load, double in place, store. The bug signals
   "slot loaded" (MTE2 -> V) with id 0 in every iteration: MTE2's set of
   iteration i + 1 follows only its slot wait, which MTE3's set of iteration
   i - 1 satisfies, so nothing orders V's wait of iteration i before it: MTE2
   runs ahead and the binary event can be set twice (program order alone
   never sees it). The fix rotates the id with the slot, as the other pairs do. */

PTO_K_FN void k_idreuse(pto_k_core *c, const int64_t *args, int fixed)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    int i, s;
    for (s = 0; s < 2; s++)
        pto_k_set_flag(c, "reuse.pto:2: set_flag MTE3, MTE2, s", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, s);
    for (i = 0; i < 4; i++) {
        s = i % 2;
        pto_k_wait_flag(c, "reuse.pto:4: wait_flag MTE3, MTE2, s", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, s);
        pto_k_tload(c, "reuse.pto:5: tload t, x[i * 8, 0]", T(2048 * s), x, i * 8, 0);
        pto_k_set_flag(c, "reuse.pto:6: set_flag MTE2, V, id", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, fixed ? s : 0);
        pto_k_wait_flag(c, "reuse.pto:7: wait_flag MTE2, V, id", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, fixed ? s : 0);
        pto_k_tadd(c, "reuse.pto:8: tadd t, t, t", T(2048 * s), T(2048 * s), T(2048 * s));
        pto_k_set_flag(c, "reuse.pto:9: set_flag V, MTE3, s", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, s);
        pto_k_wait_flag(c, "reuse.pto:10: wait_flag V, MTE3, s", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, s);
        pto_k_tstore(c, "reuse.pto:11: tstore z[i * 8, 0], t", z, i * 8, 0, T(2048 * s));
        pto_k_set_flag(c, "reuse.pto:12: set_flag MTE3, MTE2, s", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, s);
    }
    for (s = 0; s < 2; s++)
        pto_k_wait_flag(c, "reuse.pto:14: wait_flag MTE3, MTE2, s", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, s);
}
PTO_K_FN void k_idreuse_bug(pto_k_core *c, const int64_t *a) { k_idreuse(c, a, 0); }
PTO_K_FN void k_idreuse_fix(pto_k_core *c, const int64_t *a) { k_idreuse(c, a, 1); }

/* ---- 6. past UB capacity; 7. misaligned --------------------------------------- */

PTO_K_FN void k_cap(pto_k_core *c, const int64_t *args, int64_t off)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tile t = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 64, 16, 64, off); /* 4096 bytes */
    pto_k_tload(c, "cap.pto:3: tload t, x[0, 0]", t, x, 0, 0);
    pto_k_set_flag(c, "cap.pto:4", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "cap.pto:5", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "cap.pto:6: tstore z[0, 0], t", z, 0, 0, t);
}
PTO_K_FN void k_cap_bug(pto_k_core *c, const int64_t *a) { k_cap(c, a, 196608 - 4096 + 32); }
PTO_K_FN void k_cap_fix(pto_k_core *c, const int64_t *a) { k_cap(c, a, 196608 - 4096); }
PTO_K_FN void k_cap_a5(pto_k_core *c, const int64_t *a) { k_cap(c, a, 262144 - 4096); }
PTO_K_FN void k_align_bug(pto_k_core *c, const int64_t *a) { k_cap(c, a, 1040); }
PTO_K_FN void k_align_fix(pto_k_core *c, const int64_t *a) { k_cap(c, a, 1056); }

/* the source of a tmuls past UB: the tmuls does not run, and its destination d counts as
   written, so the tstore of d draws no uninitialised read (one root cause) */
PTO_K_FN void k_capsrc(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tile t = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 64, 16, 64, 196608 - 4096 + 32);
    pto_k_tile d = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 64, 16, 64, 0);
    pto_k_tload(c, "cs.pto:3: tload t, x[0, 0]", t, x, 0, 0);
    pto_k_set_flag(c, "cs.pto:4", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "cs.pto:5", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_tmuls(c, "cs.pto:6: tmuls d, t, 2.0", d, t, 2.0);
    pto_k_set_flag(c, "cs.pto:7", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "cs.pto:8", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "cs.pto:9: tstore z[0, 0], d", z, 0, 0, d);
}

PTO_K_FN void k_rowalign(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0);
    pto_k_tload(c, "ra.pto:1: tload t, x[0, 0]", pto_k_t(PTO_K_VEC, PTO_K_F16, 4, 24, 4, 24, 0), x, 0, 0);
}

PTO_K_FN void k_bounds(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0);
    pto_k_tload(c, "gm.pto:1: tload t, x[60, 0]", pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 64, 8, 64, 0), x, 60, 0);
}

/* ---- deferred execution: a pipe waits while others run ------------------------ */

/* MTE3 waits (in program order) before V computes and sets: the store must
   see the computed values, and nothing races. */
PTO_K_FN void k_defer(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tload(c, "df.pto:1: tload t, x[0, 0]", T(0), x, 0, 0);
    pto_k_set_flag(c, "df.pto:2", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "df.pto:3", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "df.pto:4: wait_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "df.pto:5: tstore z[0, 0], d", z, 0, 0, T(2048));
    pto_k_tadds(c, "df.pto:6: tadds d, t, 1", T(2048), T(0), 1.0);
    pto_k_set_flag(c, "df.pto:7: set_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
}

/* pipe_barrier(ALL) while MTE3 waits for a set that comes later: a hang. */
PTO_K_FN void k_allhang(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *z = pto_k_arg_gm(args, 1);
    pto_k_wait_flag(c, "ah.pto:1: wait_flag V, MTE3, 3", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 3);
    pto_k_tstore(c, "ah.pto:2: tstore z[0, 0], d", z, 0, 0, T(2048));
    pto_k_pipe_barrier(c, "ah.pto:3: pipe_barrier ALL", PTO_K_PIPE_ALL);
    pto_k_set_flag(c, "ah.pto:4: set_flag V, MTE3, 3", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 3);
}

/* A wait on S stalls the scalar unit itself, so its set must be issued
   before it: here the set comes later in program order (a hang on
   hardware: nothing after the wait is dispatched). */
PTO_K_FN void k_shang(pto_k_core *c, const int64_t *args, int fixed)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0);
    pto_k_tload(c, "sh.pto:1: tload t, x[0, 0]", T(0), x, 0, 0);
    pto_k_set_flag(c, "sh.pto:2: set_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "sh.pto:3: wait_flag MTE2, V, 0", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    if (!fixed) pto_k_wait_flag(c, "sh.pto:4: wait_flag V, S, 1", PTO_K_PIPE_V, PTO_K_PIPE_S, 1);
    pto_k_tadds(c, "sh.pto:5: tadds d, t, 1", T(2048), T(0), 1.0);
    pto_k_set_flag(c, "sh.pto:6: set_flag V, S, 1", PTO_K_PIPE_V, PTO_K_PIPE_S, 1);
    if (fixed) pto_k_wait_flag(c, "sh.pto:7: wait_flag V, S, 1", PTO_K_PIPE_V, PTO_K_PIPE_S, 1);
}
PTO_K_FN void k_shang_bug(pto_k_core *c, const int64_t *a) { k_shang(c, a, 0); }
PTO_K_FN void k_shang_fix(pto_k_core *c, const int64_t *a) { k_shang(c, a, 1); }

/* ... and a set issued before the S wait that waits in V's blocked queue
   behind a wait whose own set comes after: a hang as well. */
PTO_K_FN void k_shang_queued(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0);
    pto_k_tload(c, "sq.pto:1: tload t, x[0, 0]", T(0), x, 0, 0);
    pto_k_wait_flag(c, "sq.pto:2: wait_flag MTE2, V, 2", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 2);
    pto_k_tadds(c, "sq.pto:3: tadds d, t, 1", T(2048), T(0), 1.0);
    pto_k_set_flag(c, "sq.pto:4: set_flag V, S, 2", PTO_K_PIPE_V, PTO_K_PIPE_S, 2);
    pto_k_wait_flag(c, "sq.pto:5: wait_flag V, S, 2", PTO_K_PIPE_V, PTO_K_PIPE_S, 2);
    pto_k_set_flag(c, "sq.pto:6: set_flag MTE2, V, 2", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 2);
}

/* ... and the same with that later set dropped (review22 L6: the report
   blamed the S wait, which follows its set, and advised moving it): the
   root cause is the wait on V no set_flag ever matches. */
PTO_K_FN void k_shang_dropped(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0);
    pto_k_tload(c, "sd.pto:1: tload t, x[0, 0]", T(0), x, 0, 0);
    pto_k_wait_flag(c, "sd.pto:2: wait_flag MTE2, V, 2", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 2);
    pto_k_tadds(c, "sd.pto:3: tadds d, t, 1", T(2048), T(0), 1.0);
    pto_k_set_flag(c, "sd.pto:4: set_flag V, S, 2", PTO_K_PIPE_V, PTO_K_PIPE_S, 2);
    pto_k_wait_flag(c, "sd.pto:5: wait_flag V, S, 2", PTO_K_PIPE_V, PTO_K_PIPE_S, 2);
    pto_k_tadds(c, "sd.pto:6: tadds d, t, 2", T(2048), T(0), 2.0);
}

/* A wait on S whose set is issued nowhere: no advice to move it. */
PTO_K_FN void k_shang_noset(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0);
    pto_k_tload(c, "sn.pto:1: tload t, x[0, 0]", T(0), x, 0, 0);
    pto_k_wait_flag(c, "sn.pto:2: wait_flag V, S, 3", PTO_K_PIPE_V, PTO_K_PIPE_S, 3);
    pto_k_set_flag(c, "sn.pto:3: set_flag V, S, 4", PTO_K_PIPE_V, PTO_K_PIPE_S, 4);
}

/* The stalled scalar unit dispatches the tload after the S wait only once
   the tadds before the set_flag(V, S) has ended (serial); without the wait
   the load runs beside it. */
PTO_K_FN void k_sstall(pto_k_core *c, const int64_t *args, int wait)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0);
    pto_k_texpands(c, "ss.pto:1: texpands d, 1", T(2048), 1.0);
    pto_k_set_flag(c, "ss.pto:2: set_flag V, S, 0", PTO_K_PIPE_V, PTO_K_PIPE_S, 0);
    if (wait) pto_k_wait_flag(c, "ss.pto:3: wait_flag V, S, 0", PTO_K_PIPE_V, PTO_K_PIPE_S, 0);
    pto_k_tload(c, "ss.pto:4: tload t, x[0, 0]", T(0), x, 0, 0);
    if (!wait) pto_k_wait_flag(c, "ss.pto:5: wait_flag V, S, 0", PTO_K_PIPE_V, PTO_K_PIPE_S, 0);
}
PTO_K_FN void k_sstall_wait(pto_k_core *c, const int64_t *a) { k_sstall(c, a, 1); }
PTO_K_FN void k_sstall_late(pto_k_core *c, const int64_t *a) { k_sstall(c, a, 0); }

/* GM dependency: tstore then tload of the same window. */
PTO_K_FN void k_gmdep(pto_k_core *c, const int64_t *args, int fixed)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tload(c, "gd.pto:1: tload t, x[0, 0]", T(0), x, 0, 0);
    pto_k_set_flag(c, "gd.pto:2", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "gd.pto:3", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "gd.pto:4: tstore z[0, 0], t", z, 0, 0, T(0));
    if (fixed) {
        pto_k_set_flag(c, "gd.pto:5", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, 0);
        pto_k_wait_flag(c, "gd.pto:6", PTO_K_PIPE_MTE3, PTO_K_PIPE_MTE2, 0);
    }
    pto_k_tload(c, "gd.pto:7: tload u, z[0, 0]", T(2048), z, 0, 0);
}
PTO_K_FN void k_gmdep_bug(pto_k_core *c, const int64_t *a) { k_gmdep(c, a, 0); }
PTO_K_FN void k_gmdep_fix(pto_k_core *c, const int64_t *a) { k_gmdep(c, a, 1); }

/* The same race every iteration is reported once. */
PTO_K_FN void k_loop_race(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0);
    int i;
    for (i = 0; i < 8; i++) {
        pto_k_tload(c, "lr.pto:2: tload t, x[0, 0]", T(0), x, 0, 0);
        pto_k_tadd(c, "lr.pto:3: tadd d, t, t", T(2048), T(0), T(0));
    }
}

#endif
