/* test_sim_mix.c - many cores on the simulated device: SPMD blocks, mix
   clusters (1 AIC + 2 AIV) with cross-core flags and the TPUSH / TPOP /
   TFREE slot ring, deadlock reports, ring misuse, races between blocks, and
   deterministic cycles for a seed. */

#include "tests/check.h"
#include "pto_kernels.h"

static pto_k_device *dev_new(uint64_t seed)
{
    pto_k_device_desc dd;
    memset(&dd, 0, sizeof dd);
    dd.seed = seed;
    return pto_k_device_create(&dd);
}

static const pto_k_report *run(pto_k_device *dev, pto_k_kernel_fn fn, int kind, int64_t blocks, const int64_t *args)
{
    pto_k_launch_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.fn = fn, ld.name = "k", ld.kind = kind, ld.block_num = blocks, ld.args = args;
    return pto_k_launch(dev, &ld);
}

static int clean(const pto_k_report *r)
{
    if (r->nerrors) pto_k_report_print(r, stdout);
    return r->nerrors == 0;
}

static int count(const pto_k_report *r, int kind)
{
    int i, n = 0;
    for (i = 0; i < r->nerrors; i++) n += r->errors[i].kind == kind;
    return n;
}

/* ---- SPMD vector blocks ------------------------------------------------------ */

#define VT(off) pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 64, 16, 64, off)

static void k_spmd(pto_k_core *c, const int64_t *args, int use_block)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    int64_t r = use_block ? pto_k_block_idx(c) * 16 : 0;
    pto_k_tload(c, "spmd.pto:3: tload t, x[block * 16, 0]", VT(0), x, pto_k_block_idx(c) * 16, 0);
    pto_k_set_flag(c, "spmd.pto:4", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "spmd.pto:5", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_tmuls(c, "spmd.pto:6: tmuls t, t, 2", VT(4096), VT(0), 2.0);
    pto_k_set_flag(c, "spmd.pto:7", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "spmd.pto:8", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "spmd.pto:9: tstore z[r, 0], t", z, r, 0, VT(4096));
}
static void k_spmd_ok(pto_k_core *c, const int64_t *a) { k_spmd(c, a, 1); }
static void k_spmd_bug(pto_k_core *c, const int64_t *a) { k_spmd(c, a, 0); }

static void test_spmd(void)
{
    pto_k_device *dev = dev_new(1);
    pto_k_gm *x = pto_k_gm_create(dev, "x", PTO_K_F32, 128, 64), *z = pto_k_gm_create(dev, "z", PTO_K_F32, 128, 64);
    const pto_k_report *r;
    int64_t args[2], mk;
    int i, j, bad = 0;
    for (i = 0; i < 128; i++)
        for (j = 0; j < 64; j++) pto_k_gm_set(x, i, j, (float)(i * 64 + j));
    args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(z);
    r = run(dev, k_spmd_ok, PTO_K_KIND_VECTOR, 8, args);
    CHECK(clean(r) && r->ncores == 8);
    for (i = 0; i < 128; i++)
        for (j = 0; j < 64; j++) bad += pto_k_gm_get(z, i, j) != (float)(i * 64 + j) * 2.0f;
    CHECK(bad == 0);
    CHECK(r->cores[7].block == 7 && r->cores[7].kind == PTO_K_CORE_VECTOR);
    mk = r->makespan;
    pto_k_device_destroy(dev);
    /* independent blocks: the same cycles whatever the seed */
    dev = dev_new(99);
    x = pto_k_gm_create(dev, "x", PTO_K_F32, 128, 64), z = pto_k_gm_create(dev, "z", PTO_K_F32, 128, 64);
    args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(z);
    r = run(dev, k_spmd_ok, PTO_K_KIND_VECTOR, 8, args);
    CHECK(clean(r) && r->makespan == mk);
    /* every block stores to z[0, 0]: blocks race on GM */
    r = run(dev, k_spmd_bug, PTO_K_KIND_VECTOR, 4, args);
    CHECK(count(r, PTO_K_E_RACE) == 1 && r->nerrors == 1);
    CHECK(pto_k_report_find(r, PTO_K_E_RACE,
                            "spmd.pto:9: tstore z[r, 0], t: error: race on gm z bytes [0, 4096): tstore (MTE3, block "));
    CHECK(pto_k_report_find(r, PTO_K_E_RACE, "no cross-core flag, ring slot or signal orders block "));
    pto_k_device_destroy(dev);
}

/* ---- a mix kernel: cube matmul -> ring (C2V, up/down) -> both AIVs ----------- */

enum { NT = 4, SLOT = 32 * 32 * 4, NSLOT = 2 };

typedef struct mixcfg {
    int tfree;          /* the consumer frees slots */
    int per_block;      /* ring buffer offset uses the block index */
    int local;          /* local_slot_num passed by the AIVs (0 = default 2) */
    int nslot;          /* GM slots of the ring (0 = NSLOT) */
} mixcfg;

static void k_mix(pto_k_core *c, const int64_t *args, const mixcfg *m)
{
    pto_k_gm *a = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1), *pb = pto_k_arg_gm(args, 2);
    int nslot = m->nslot ? m->nslot : NSLOT;
    int64_t b = pto_k_block_idx(c), off = m->per_block ? b * nslot * SLOT : 0;
    int i;
    if (pto_k_core_kind(c) == PTO_K_CORE_CUBE) {
        pto_k_tile A1 = pto_k_t(PTO_K_MAT, PTO_K_F16, 32, 32, 32, 32, 0);
        pto_k_tile A0 = pto_k_t(PTO_K_LEFT, PTO_K_F16, 32, 32, 32, 32, 0);
        pto_k_tile B0 = pto_k_t(PTO_K_RIGHT, PTO_K_F16, 32, 32, 32, 32, 0);
        pto_k_tile ACC = pto_k_t(PTO_K_ACC, PTO_K_F32, 32, 32, 32, 32, 0);
        pto_k_ring_init(c, "mix.pto:2: pipe r: c2v f32[32, 32] slots(2) up_down", 0, PTO_K_C2V, SLOT, nslot, 2, 0,
                        PTO_K_SPLIT_UP_DOWN, pb, off);
        pto_k_set_flag(c, "mix.pto:4", PTO_K_PIPE_MTE1, PTO_K_PIPE_MTE2, 0);
        pto_k_set_flag(c, "mix.pto:5", PTO_K_PIPE_M, PTO_K_PIPE_MTE1, 0);
        pto_k_set_flag(c, "mix.pto:6", PTO_K_PIPE_FIX, PTO_K_PIPE_M, 0);
        for (i = 0; i < NT; i++) {
            pto_k_wait_flag(c, "mix.pto:8", PTO_K_PIPE_MTE1, PTO_K_PIPE_MTE2, 0);
            pto_k_tload(c, "mix.pto:9: tload a1, a[(block * 4 + i) * 32, 0]", A1, a, (b * NT + i) * 32, 0);
            pto_k_set_flag(c, "mix.pto:10", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
            pto_k_wait_flag(c, "mix.pto:11", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
            pto_k_wait_flag(c, "mix.pto:12", PTO_K_PIPE_M, PTO_K_PIPE_MTE1, 0);
            pto_k_tmov(c, "mix.pto:13: tmov a0, a1", A0, A1);
            pto_k_tmov(c, "mix.pto:14: tmov b0, a1", B0, A1);
            pto_k_set_flag(c, "mix.pto:15", PTO_K_PIPE_MTE1, PTO_K_PIPE_MTE2, 0);
            pto_k_set_flag(c, "mix.pto:16", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
            pto_k_wait_flag(c, "mix.pto:17", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
            pto_k_wait_flag(c, "mix.pto:18", PTO_K_PIPE_FIX, PTO_K_PIPE_M, 0);
            pto_k_tmatmul(c, "mix.pto:19: tmatmul acc, a0, b0", ACC, A0, B0);
            pto_k_set_flag(c, "mix.pto:20", PTO_K_PIPE_M, PTO_K_PIPE_MTE1, 0);
            pto_k_set_flag(c, "mix.pto:21", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
            pto_k_wait_flag(c, "mix.pto:22", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
            pto_k_tpush(c, "mix.pto:23: tpush r, acc", 0, ACC);
            pto_k_set_flag(c, "mix.pto:24", PTO_K_PIPE_FIX, PTO_K_PIPE_M, 0);
        }
        pto_k_wait_flag(c, "mix.pto:26", PTO_K_PIPE_MTE1, PTO_K_PIPE_MTE2, 0);
        pto_k_wait_flag(c, "mix.pto:27", PTO_K_PIPE_M, PTO_K_PIPE_MTE1, 0);
        pto_k_wait_flag(c, "mix.pto:28", PTO_K_PIPE_FIX, PTO_K_PIPE_M, 0);
    } else {
        pto_k_tile base = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 32, 16, 32, 0);
        int64_t sb = pto_k_subblock(c);
        int s;
        pto_k_ring_init(c, "mix.pto:31: pipe r (vector side)", 0, PTO_K_C2V, SLOT, nslot, m->local, 0,
                        PTO_K_SPLIT_UP_DOWN, pb, off);
        for (s = 0; s < 2; s++) {
            pto_k_set_flag(c, "mix.pto:33", PTO_K_PIPE_V, PTO_K_PIPE_MTE2, s);
            pto_k_set_flag(c, "mix.pto:34", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, s);
        }
        for (i = 0; i < NT; i++) {
            pto_k_tile t, o;
            s = i % 2;
            o = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 32, 16, 32, 16384 + (int64_t)s * 2048);
            pto_k_wait_flag(c, "mix.pto:37", PTO_K_PIPE_V, PTO_K_PIPE_MTE2, s);
            t = pto_k_tpop(c, "mix.pto:38: tpop t, r", 0, base);
            pto_k_set_flag(c, "mix.pto:39", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, s);
            pto_k_wait_flag(c, "mix.pto:40", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, s);
            if (m->tfree) pto_k_tfree(c, "mix.pto:41: tfree r", 0);
            pto_k_wait_flag(c, "mix.pto:42", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, s);
            pto_k_texp(c, "mix.pto:43: texp o, t", o, t);
            pto_k_set_flag(c, "mix.pto:44", PTO_K_PIPE_V, PTO_K_PIPE_MTE2, s);
            pto_k_set_flag(c, "mix.pto:45", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, s);
            pto_k_wait_flag(c, "mix.pto:46", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, s);
            pto_k_tstore(c, "mix.pto:47: tstore z[...], o", z, (b * NT + i) * 32 + sb * 16, 0, o);
            pto_k_set_flag(c, "mix.pto:48", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, s);
        }
        for (s = 0; s < 2; s++) {
            pto_k_wait_flag(c, "mix.pto:50", PTO_K_PIPE_V, PTO_K_PIPE_MTE2, s);
            pto_k_wait_flag(c, "mix.pto:51", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, s);
        }
    }
}

static const mixcfg CFG_OK = {1, 1, 0, 0}, CFG_NOFREE = {0, 1, 0, 0}, CFG_SHARED = {1, 0, 0, 0},
                    CFG_LOCAL2 = {1, 1, 2, 0}, CFG_LOCAL1 = {1, 1, 1, 0}, CFG_WIDE = {1, 1, 0, NT};
static void k_mix_ok(pto_k_core *c, const int64_t *a) { k_mix(c, a, &CFG_OK); }
static void k_mix_nofree(pto_k_core *c, const int64_t *a) { k_mix(c, a, &CFG_NOFREE); }
static void k_mix_shared(pto_k_core *c, const int64_t *a) { k_mix(c, a, &CFG_SHARED); }
static void k_mix_local2(pto_k_core *c, const int64_t *a) { k_mix(c, a, &CFG_LOCAL2); }
static void k_mix_local1(pto_k_core *c, const int64_t *a) { k_mix(c, a, &CFG_LOCAL1); }
static void k_mix_wide(pto_k_core *c, const int64_t *a) { k_mix(c, a, &CFG_WIDE); }
static const mixcfg CFG_16 = {1, 1, 0, 16};
static void k_mix_16(pto_k_core *c, const int64_t *a) { k_mix(c, a, &CFG_16); }

/* k_mix_nofree on a5, where TFREE (not the pop) releases the GM slot: the
   third pop would overwrite a local slot in use, and the cube waits forever
   for a free slot */
static void test_mix_a5_nofree(void)
{
    pto_k_device_desc dd;
    pto_k_device *dev;
    pto_k_gm *a, *z, *pb;
    const pto_k_report *r;
    int64_t args[3];
    memset(&dd, 0, sizeof dd);
    dd.seed = 7, dd.arch = PTO_K_A5;
    dev = pto_k_device_create(&dd);
    a = pto_k_gm_create(dev, "a", PTO_K_F16, NT * 32, 32);
    z = pto_k_gm_create(dev, "z", PTO_K_F32, NT * 32, 32);
    pb = pto_k_gm_create(dev, "pipebuf", PTO_K_F32, 1, NSLOT * SLOT / 4);
    args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(z), args[2] = pto_k_gm_arg(pb);
    r = run(dev, k_mix_nofree, PTO_K_KIND_MIX, 1, args);
    CHECK(count(r, PTO_K_E_RING) == 2 && count(r, PTO_K_E_DEADLOCK) == 3);
    CHECK_STR(pto_k_report_find(r, PTO_K_E_RING, "aiv0"),
              "mix.pto:38: tpop t, r: error: tpop of slot 2 on ring 0 overwrites local slot 0, still holding slot 0 "
              "popped at \"mix.pto:38: tpop t, r\" and never freed (missing TFREE) (block 0 aiv0)");
    CHECK_STR(pto_k_report_find(r, PTO_K_E_DEADLOCK, "aic"),
              "mix.pto:23: tpush r, acc: error: deadlock: tpush on ring 0 (C2V) waits for a free slot forever: all 2 "
              "slots hold data (pushed 2, freed 0); the consumer popped 2 but never freed them (missing TFREE?) "
              "(block 0 aic)");
    CHECK_STR(pto_k_report_find(r, PTO_K_E_DEADLOCK, "aiv1"),
              "mix.pto:38: tpop t, r: error: deadlock: tpop on ring 0 (C2V) waits for slot 2, which is never pushed "
              "(the producer pushed 2) (block 0 aiv1)");
    pto_k_device_destroy(dev);
}

static void test_mix(void)
{
    int nb = 2, i, j, k, t, bad = 0;
    pto_k_device *dev = dev_new(7);
    pto_k_gm *a = pto_k_gm_create(dev, "a", PTO_K_F16, nb * NT * 32, 32);
    pto_k_gm *z = pto_k_gm_create(dev, "z", PTO_K_F32, nb * NT * 32, 32);
    pto_k_gm *pb = pto_k_gm_create(dev, "pipebuf", PTO_K_F32, nb, NSLOT * SLOT / 4);
    const pto_k_report *r;
    int64_t args[3], mk;
    for (i = 0; i < nb * NT * 32; i++)
        for (j = 0; j < 32; j++) pto_k_gm_set(a, i, j, (float)((i * 7 + j * 3) % 17) * 0.0625f - 0.5f);
    args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(z), args[2] = pto_k_gm_arg(pb);
    r = run(dev, k_mix_ok, PTO_K_KIND_MIX, nb, args);
    CHECK(clean(r) && r->ncores == 3 * nb);
    CHECK(r->cores[0].kind == PTO_K_CORE_CUBE && r->cores[2].kind == PTO_K_CORE_VECTOR && r->cores[2].subblock == 1);
    for (t = 0; t < nb * NT; t++)
        for (i = 0; i < 32; i++)
            for (j = 0; j < 32; j++) {
                float acc = 0.0f, want;
                for (k = 0; k < 32; k++) {
                    float p = pto_k_gm_get(a, t * 32 + i, k) * pto_k_gm_get(a, t * 32 + k, j);
                    acc = acc + p;
                }
                want = expf(acc);
                bad += memcmp(&want, (float *)z->data + (t * 32 + i) * 32 + j, 4) != 0;
            }
    CHECK(bad == 0);
    mk = r->makespan;
    printf("mix kernel, 2 clusters: makespan %lld, bound %lld, efficiency %.1f%%\n", (long long)r->makespan,
           (long long)r->bound, 100.0 * r->efficiency);
    r = run(dev, k_mix_ok, PTO_K_KIND_MIX, nb, args);
    CHECK(clean(r) && r->makespan == mk); /* the same seed, the same cycles */

    /* local_slot_num left out on one side and written as its default (2) on
       the other mean the same ring; 1 is a different one */
    r = run(dev, k_mix_local2, PTO_K_KIND_MIX, nb, args);
    CHECK(clean(r));
    r = run(dev, k_mix_local1, PTO_K_KIND_MIX, nb, args);
    CHECK(count(r, PTO_K_E_RING) >= 1);
    /* one per cluster, whichever core came second; and as every pop now lands
       in one local slot, the two rotating V -> MTE2 ids no longer order the
       next pop after the texp that reads the slot: a race */
    CHECK(count(r, PTO_K_E_RING) == 2 && count(r, PTO_K_E_RACE) == 1 && r->nerrors == 3);
    CHECK(pto_k_report_find(r, PTO_K_E_RACE, "mix.pto:38: tpop t, r: error: race on vec bytes [0, 2048): tpop (MTE2, "));
    CHECK(pto_k_report_find(r, PTO_K_E_RING, "error: ring 0 initialised here as (dir C2V, slot_size 4096, slot_num 2, "));
    CHECK(pto_k_report_find(r, PTO_K_E_RING, "local_slot_num 1, flag_id 0, split 1, buffer pipebuf+0)"));

    /* no TFREE: the third pop would overwrite a local slot in use; on a2a3
       each pop releases its GM slot (pto-isa's TPOP frees it), so the cube
       does not wait forever (on a5 it does: test_mix_a5_nofree) */
    r = run(dev, k_mix_nofree, PTO_K_KIND_MIX, 1, args);
    CHECK(count(r, PTO_K_E_RING) == 6 && count(r, PTO_K_E_DEADLOCK) == 0 && r->nerrors == 6);
    CHECK_STR(pto_k_report_find(r, PTO_K_E_RING, "slot 2 on ring 0 overwrites local slot 0, still holding slot 0 popped at \"mix.pto:38: tpop t, r\" and never freed (missing TFREE) (block 0 aiv0)"),
              "mix.pto:38: tpop t, r: error: tpop of slot 2 on ring 0 overwrites local slot 0, still holding slot 0 "
              "popped at \"mix.pto:38: tpop t, r\" and never freed (missing TFREE) (block 0 aiv0)");
    CHECK(pto_k_report_find(r, PTO_K_E_RING, "ring 0: 4 popped slot(s) never freed when the kernel ends"));
    test_mix_a5_nofree();

    /* 16 slots: the 16th push ahead of the pops would overflow the data-ready
       flag's 4-bit counter; ring_init refuses it on every core, as the verifier
       refuses slots(16) (review20 H2: a hand edit ran clean) */
    r = run(dev, k_mix_16, PTO_K_KIND_MIX, 1, args);
    CHECK(count(r, PTO_K_E_RING) >= 1);
    CHECK(pto_k_report_find(r, PTO_K_E_RING, "ring_init 0: slot_num 16 is more than 15: each push sets a cross-core "
                                             "flag that the pops wait for, and its counter has 4 bits"));

    /* every block uses the same slots of the GM pipe buffer (no block * per_block) */
    r = run(dev, k_mix_shared, PTO_K_KIND_MIX, nb, args);
    CHECK(count(r, PTO_K_E_RACE) >= 1);
    CHECK(pto_k_report_find(r, PTO_K_E_RACE, "race on gm pipebuf (ring 0) bytes ["));
    pto_k_device_destroy(dev);
}

/* A race-free mix kernel's cycles are a function of the program, not of the
   seed (which only picks the interleaving of cores): every seed gives the
   same makespan, and the identical blocks end at the same time, core for
   core. With 2 slots each push past the second waits for its own slot's
   tfree; with NT slots no push waits at all, so a push must not join a
   tfree the interleaving happened to run earlier (the consumer's latest). */
static void test_mix_seeds(pto_k_kernel_fn fn, const char *what)
{
    enum { NB = 3 };
    int64_t mk = -1, end[NB * 3], args[3];
    int seed, i, b, bad = 0;
    for (seed = 1; seed <= 8; seed++) {
        pto_k_device *dev = dev_new((uint64_t)seed);
        pto_k_gm *a = pto_k_gm_create(dev, "a", PTO_K_F16, NB * NT * 32, 32);
        pto_k_gm *z = pto_k_gm_create(dev, "z", PTO_K_F32, NB * NT * 32, 32);
        pto_k_gm *pb = pto_k_gm_create(dev, "pipebuf", PTO_K_F32, NB, NT * SLOT / 4);
        const pto_k_report *r;
        args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(z), args[2] = pto_k_gm_arg(pb);
        r = run(dev, fn, PTO_K_KIND_MIX, NB, args);
        CHECK(clean(r) && r->ncores == 3 * NB);
        if (mk < 0) {
            mk = r->makespan;
            for (i = 0; i < 3 * NB; i++) end[i] = r->cores[i].end;
        }
        if (r->makespan != mk) printf("%s: seed %d: makespan %lld, seed 1: %lld\n", what, seed,
                                      (long long)r->makespan, (long long)mk);
        bad += r->makespan != mk;
        for (i = 0; i < 3 * NB && r->ncores == 3 * NB; i++) {
            bad += r->cores[i].end != end[i];
            /* block b's core i % 3 is the same core as block 0's */
            b = (int)r->cores[i].block;
            bad += r->cores[i].end != r->cores[i % 3].end || b != i / 3;
        }
        pto_k_device_destroy(dev);
    }
    CHECK(bad == 0);
}

/* ---- cross-core flags ----------------------------------------------------------- */

static void k_cross(pto_k_core *c, const int64_t *args, int mode)
{
    pto_k_gm *a = pto_k_arg_gm(args, 0), *w = pto_k_arg_gm(args, 1), *z = pto_k_arg_gm(args, 2);
    if (pto_k_core_kind(c) == PTO_K_CORE_CUBE) {
        pto_k_tile M1 = pto_k_t(PTO_K_MAT, PTO_K_F32, 16, 16, 16, 16, 0);
        pto_k_tile L = pto_k_t(PTO_K_LEFT, PTO_K_F32, 16, 16, 16, 16, 0);
        pto_k_tile Rt = pto_k_t(PTO_K_RIGHT, PTO_K_F32, 16, 16, 16, 16, 0);
        pto_k_tile ACC = pto_k_t(PTO_K_ACC, PTO_K_F32, 16, 16, 16, 16, 0);
        pto_k_tload(c, "x.pto:2: tload m, a[0, 0]", M1, a, 0, 0);
        pto_k_set_flag(c, "x.pto:3", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
        pto_k_wait_flag(c, "x.pto:4", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
        pto_k_tmov(c, "x.pto:5", L, M1);
        pto_k_tmov(c, "x.pto:6", Rt, M1);
        pto_k_set_flag(c, "x.pto:7", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
        pto_k_wait_flag(c, "x.pto:8", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
        pto_k_tmatmul(c, "x.pto:9: tmatmul acc, l, r", ACC, L, Rt);
        pto_k_set_flag(c, "x.pto:10", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
        pto_k_wait_flag(c, "x.pto:11", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
        pto_k_tstore(c, "x.pto:12: tstore w[0, 0], acc", w, 0, 0, ACC);
        if (mode != 1) pto_k_cross_set(c, "x.pto:13: cross_set FIX, 5", PTO_K_PIPE_FIX, 5);
    } else {
        pto_k_tile T = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 16, 8, 16, 0);
        int64_t sb = pto_k_subblock(c);
        if (mode != 1) pto_k_cross_wait(c, "x.pto:16: cross_wait MTE2, 5", PTO_K_PIPE_MTE2, mode == 2 ? 6 : 5);
        pto_k_tload(c, "x.pto:17: tload t, w[subblock * 8, 0]", T, w, sb * 8, 0);
        pto_k_set_flag(c, "x.pto:18", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE3, 0);
        pto_k_wait_flag(c, "x.pto:19", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE3, 0);
        pto_k_tstore(c, "x.pto:20: tstore z[subblock * 8, 0], t", z, sb * 8, 0, T);
    }
}
static void k_cross_ok(pto_k_core *c, const int64_t *a) { k_cross(c, a, 0); }
static void k_cross_bug(pto_k_core *c, const int64_t *a) { k_cross(c, a, 1); }
static void k_cross_hang(pto_k_core *c, const int64_t *a) { k_cross(c, a, 2); }

static void test_cross(void)
{
    pto_k_device *dev = dev_new(3);
    pto_k_gm *a = pto_k_gm_create(dev, "a", PTO_K_F32, 16, 16), *w = pto_k_gm_create(dev, "w", PTO_K_F32, 16, 16);
    pto_k_gm *z = pto_k_gm_create(dev, "z", PTO_K_F32, 16, 16);
    const pto_k_report *r;
    int64_t args[3];
    int i, j, k, bad = 0, seed, caught = 0;
    for (i = 0; i < 16; i++)
        for (j = 0; j < 16; j++) pto_k_gm_set(a, i, j, (float)(i + 2 * j) * 0.125f);
    args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(w), args[2] = pto_k_gm_arg(z);
    r = run(dev, k_cross_ok, PTO_K_KIND_MIX, 1, args);
    CHECK(clean(r));
    for (i = 0; i < 16; i++)
        for (j = 0; j < 16; j++) {
            float acc = 0.0f;
            for (k = 0; k < 16; k++) {
                float p = pto_k_gm_get(a, i, k) * pto_k_gm_get(a, k, j);
                acc = acc + p;
            }
            bad += pto_k_gm_get(z, i, j) != acc;
        }
    CHECK(bad == 0);
    /* the AIVs wait ~1000 cycles of cross-core latency after the store */
    CHECK(r->cores[1].end > r->cores[0].end + 1000);
    pto_k_device_destroy(dev);
    /* without the cross-core flag the AIVs' loads race with the fixpipe
       store, whichever order a seed runs them in */
    for (seed = 1; seed <= 10; seed++) {
        dev = dev_new((uint64_t)seed);
        a = pto_k_gm_create(dev, "a", PTO_K_F32, 16, 16), w = pto_k_gm_create(dev, "w", PTO_K_F32, 16, 16);
        z = pto_k_gm_create(dev, "z", PTO_K_F32, 16, 16);
        args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(w), args[2] = pto_k_gm_arg(z);
        r = run(dev, k_cross_bug, PTO_K_KIND_MIX, 1, args);
        caught += count(r, PTO_K_E_RACE) >= 1 && pto_k_report_find(r, PTO_K_E_RACE, "race on gm w bytes [") != NULL;
        if (seed == 1) {
            r = run(dev, k_cross_hang, PTO_K_KIND_MIX, 1, args);
            CHECK(count(r, PTO_K_E_DEADLOCK) == 2 && r->nerrors == 2);
            CHECK_STR(pto_k_report_find(r, PTO_K_E_DEADLOCK, "aiv0"),
                      "x.pto:16: cross_wait MTE2, 5: error: deadlock: cross-core wait on flag 6 can never be satisfied: "
                      "the AIC never sets it (block 0 aiv0)");
        }
        pto_k_device_destroy(dev);
    }
    CHECK(caught == 10);
}

/* The AIC sets flag 5 at once, then computes and stores w and sets it again;
   each AIV waits for the first set, reads a (racy: w), waits for the
   second and reads w. The k-th wait takes the k-th set: the first returns 1000
   cycles after cycle 0 and orders nothing of the store, whichever core a
   seed ran first (one record for both sets let the first wait see the
   second's time and clock when the AIC had run ahead: a late AIV, and the
   race hidden). */
static void k_cross2(pto_k_core *c, const int64_t *args, int racy)
{
    pto_k_gm *a = pto_k_arg_gm(args, 0), *w = pto_k_arg_gm(args, 1);
    if (pto_k_core_kind(c) == PTO_K_CORE_CUBE) {
        pto_k_tile M1 = pto_k_t(PTO_K_MAT, PTO_K_F32, 16, 16, 16, 16, 0);
        pto_k_tile L = pto_k_t(PTO_K_LEFT, PTO_K_F32, 16, 16, 16, 16, 0);
        pto_k_tile Rt = pto_k_t(PTO_K_RIGHT, PTO_K_F32, 16, 16, 16, 16, 0);
        pto_k_tile ACC = pto_k_t(PTO_K_ACC, PTO_K_F32, 16, 16, 16, 16, 0);
        pto_k_cross_set(c, "x2.pto:2: cross_set MTE2, 5", PTO_K_PIPE_MTE2, 5);
        pto_k_tload(c, "x2.pto:3: tload m, a[0, 0]", M1, a, 0, 0);
        pto_k_set_flag(c, "x2.pto:4", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
        pto_k_wait_flag(c, "x2.pto:5", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
        pto_k_tmov(c, "x2.pto:6", L, M1);
        pto_k_tmov(c, "x2.pto:7", Rt, M1);
        pto_k_set_flag(c, "x2.pto:8", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
        pto_k_wait_flag(c, "x2.pto:9", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
        pto_k_tmatmul(c, "x2.pto:10: tmatmul acc, l, r", ACC, L, Rt);
        pto_k_set_flag(c, "x2.pto:11", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
        pto_k_wait_flag(c, "x2.pto:12", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
        pto_k_tstore(c, "x2.pto:13: tstore w[0, 0], acc", w, 0, 0, ACC);
        pto_k_cross_set(c, "x2.pto:14: cross_set FIX, 5", PTO_K_PIPE_FIX, 5);
    } else {
        pto_k_tile T = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 16, 8, 16, 0);
        int64_t sb = pto_k_subblock(c);
        pto_k_cross_wait(c, "x2.pto:16: cross_wait MTE2, 5", PTO_K_PIPE_MTE2, 5);
        /* busy MTE2 from the first set on: the end shows when that was */
        pto_k_tload(c, "x2.pto:17: tload u, w[subblock * 8, 0]", pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 16, 8, 16, 512),
                    racy ? w : a, sb * 8, 0);
        pto_k_cross_wait(c, "x2.pto:18: cross_wait MTE2, 5", PTO_K_PIPE_MTE2, 5);
        pto_k_tload(c, "x2.pto:19: tload t, w[subblock * 8, 0]", T, w, sb * 8, 0);
    }
}
static void k_cross2_ok(pto_k_core *c, const int64_t *a) { k_cross2(c, a, 0); }
static void k_cross2_racy(pto_k_core *c, const int64_t *a) { k_cross2(c, a, 1); }

static void test_cross_order(void)
{
    int seed, k, same = 0, caught = 0;
    int64_t end[3] = {0, 0, 0};
    for (seed = 1; seed <= 30; seed++)
        for (k = 0; k < 2; k++) {
            pto_k_device *dev = dev_new((uint64_t)seed);
            pto_k_gm *a = pto_k_gm_create(dev, "a", PTO_K_F32, 16, 16), *w = pto_k_gm_create(dev, "w", PTO_K_F32, 16, 16);
            const pto_k_report *r;
            int64_t args[2];
            args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(w);
            r = run(dev, k == 0 ? k_cross2_ok : k_cross2_racy, PTO_K_KIND_MIX, 1, args);
            if (k == 0 && clean(r) && r->ncores == 3) {
                if (seed == 1) {
                    pto_k_report_print(r, stdout);
                    end[0] = r->cores[0].end, end[1] = r->cores[1].end, end[2] = r->cores[2].end;
                }
                same += r->cores[0].end == end[0] && r->cores[1].end == end[1] && r->cores[2].end == end[2];
            }
            if (k == 1) caught += count(r, PTO_K_E_RACE) >= 1 && count(r, PTO_K_E_RACE) == r->nerrors &&
                                  pto_k_report_find(r, PTO_K_E_RACE, "x2.pto:17") &&
                                  pto_k_report_find(r, PTO_K_E_RACE, "x2.pto:13");
            pto_k_device_destroy(dev);
        }
    printf("cross-core flag set twice: same core ends in %d of 30 seeds, race before the second set caught in %d\n",
           same, caught);
    /* AIV: first set at cycle 0 arrives at 1000, tload u 1000-1223 (512 B:
       223); the second set (FIX, after the store: cycle 65) arrives at 1065,
       tload t waits for MTE2: 1223-1446 */
    CHECK(same == 30 && end[0] == 65 && end[1] == 1446 && end[2] == 1446);
    CHECK(caught == 30);
}


/* ---- the instruction budget: a runaway mix kernel stops --------------------- */

/* The cube pushes forever, both AIVs pop forever: two clusters whose cores
   keep blocking on the ring; the budget must stop all six (blocked ones
   included) with one report, and the device must run the next launch. */
static void k_runaway(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *a = pto_k_arg_gm(args, 0), *pb = pto_k_arg_gm(args, 2);
    int64_t b = pto_k_block_idx(c), off = b * NSLOT * SLOT, i;
    if (pto_k_core_kind(c) == PTO_K_CORE_CUBE) {
        pto_k_tile A1 = pto_k_t(PTO_K_MAT, PTO_K_F16, 32, 32, 32, 32, 0);
        pto_k_tile A0 = pto_k_t(PTO_K_LEFT, PTO_K_F16, 32, 32, 32, 32, 0);
        pto_k_tile B0 = pto_k_t(PTO_K_RIGHT, PTO_K_F16, 32, 32, 32, 32, 0);
        pto_k_tile ACC = pto_k_t(PTO_K_ACC, PTO_K_F32, 32, 32, 32, 32, 0);
        pto_k_ring_init(c, "run.pto:2: pipe r", 0, PTO_K_C2V, SLOT, NSLOT, 2, 0, PTO_K_SPLIT_UP_DOWN, pb, off);
        pto_k_tload(c, "run.pto:4: tload", A1, a, 0, 0);
        pto_k_set_flag(c, "run.pto:5", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
        pto_k_wait_flag(c, "run.pto:5", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
        pto_k_tmov(c, "run.pto:6: tmov", A0, A1);
        pto_k_tmov(c, "run.pto:7: tmov", B0, A1);
        pto_k_set_flag(c, "run.pto:8", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
        pto_k_wait_flag(c, "run.pto:8", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
        pto_k_tmatmul(c, "run.pto:9: tmatmul", ACC, A0, B0);
        pto_k_set_flag(c, "run.pto:10", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
        pto_k_wait_flag(c, "run.pto:10", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
        for (i = 0; i < (int64_t)1 << 50; i++) pto_k_tpush(c, "run.pto:12: tpush r, acc", 0, ACC);
    } else {
        pto_k_tile base = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 32, 16, 32, 0);
        pto_k_ring_init(c, "run.pto:15: pipe r", 0, PTO_K_C2V, SLOT, NSLOT, 0, 0, PTO_K_SPLIT_UP_DOWN, pb, off);
        for (i = 0; i < (int64_t)1 << 50; i++) {
            pto_k_tpop(c, "run.pto:17: tpop t, r", 0, base);
            pto_k_tfree(c, "run.pto:18: tfree r", 0);
        }
    }
}

static void test_budget(void)
{
    int nb = 2, i, j;
    pto_k_device *dev = dev_new(3);
    pto_k_gm *a = pto_k_gm_create(dev, "a", PTO_K_F16, nb * NT * 32, 32);
    pto_k_gm *z = pto_k_gm_create(dev, "z", PTO_K_F32, nb * NT * 32, 32);
    pto_k_gm *pb = pto_k_gm_create(dev, "pipebuf", PTO_K_F32, nb, NSLOT * SLOT / 4);
    pto_k_launch_desc ld;
    const pto_k_report *r;
    int64_t args[3];
    for (i = 0; i < nb * NT * 32; i++)
        for (j = 0; j < 32; j++) pto_k_gm_set(a, i, j, 0.25f);
    args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(z), args[2] = pto_k_gm_arg(pb);
    memset(&ld, 0, sizeof ld);
    ld.fn = k_runaway, ld.name = "runaway", ld.kind = PTO_K_KIND_MIX, ld.block_num = nb, ld.args = args;
    ld.max_instr = 3000;
    r = pto_k_launch(dev, &ld);
    CHECK(r->nerrors == 1 && count(r, PTO_K_E_BUDGET) == 1);
    CHECK(pto_k_report_find(r, PTO_K_E_BUDGET, "error: kernel runaway ran more than 3000 instructions (the instruction "
                                               "budget, over every core of the launch), stopped here ("));
    if (r->nerrors != 1) pto_k_report_print(r, stdout);
    /* the device runs the next launch as usual */
    r = run(dev, k_mix_ok, PTO_K_KIND_MIX, nb, args);
    CHECK(clean(r));
    pto_k_device_destroy(dev);
}

int main(void)
{
    test_spmd();
    test_mix();
    test_mix_seeds(k_mix_ok, "mix, 2 slots");
    test_mix_seeds(k_mix_wide, "mix, 4 slots");
    test_cross();
    test_cross_order();
    test_budget();
    return TEST_END();
}
