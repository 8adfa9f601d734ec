/* test_sync_same.c - the fast sync inserter gives exactly what the previous
   one gave (tests/sync_ref.h): the same dump (every statement, note and
   event id), the same warnings and errors, the same statistics except the
   round count. Over the random kernels of test_sync_random (heavy address
   reuse, ifs, loops with any start and step), the planner's random kernels
   planned at both levels, staged kernels of the bench's shape (tiles reused
   from loop to loop: checkpoints, superseded records, trials that converge),
   and with 1 to 3 event ids per pipe pair (rotations cut, PIPE_ALL
   fallbacks). A planted difference (one kernel synchronised with fewer ids)
   must be caught by the comparison. */

#define main sync_random_main
#include "tests/test_sync_random.c"
#undef main
#include "tests/plan_gen.h"
#include "tests/sync_ref.h"

/* The dump, every diagnostic and the statistics, as one string. */
static void digest(pto_ctx *ctx, pto_module *m, pto_status st, const pto_sync_stats *s, pto_buf *out)
{
    int32_t i;
    char buf[600];
    pto_buf_printf(out, "status %d pairs %d rot %d bar %d deg %d fb %d\n", (int)st, s->flag_pairs, s->rotating,
                   s->barriers, s->degraded, s->fallbacks);
    for (i = 0; i < pto_diag_count(ctx); i++) {
        pto_diag_format(ctx, pto_diag_get(ctx, i), buf, sizeof buf);
        pto_buf_printf(out, "%s\n", buf);
    }
    if (st == PTO_OK) pto_sync_dump(m, out);
}

/* Synchronises a and b (two copies of one kernel) with each inserter;
   returns whether the digests agree. ids_b lets a test plant a difference. */
static int same(pto_ctx *ca, pto_module *a, pto_ctx *cb, pto_module *b, int ids, int ids_b)
{
    pto_sync_stats sa, sb;
    pto_sync_desc da, db;
    pto_status ra, rb;
    pto_buf x, y;
    int eq;
    memset(&da, 0, sizeof da);
    memset(&db, 0, sizeof db);
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    da.stats = &sa;
    db.stats = &sb;
    da.ids_per_pair = ids;
    db.ids_per_pair = ids_b;
    ra = ref_sync(ca, a, &da);
    rb = pto_sync(cb, b, &db);
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    x.ctx = ca;
    y.ctx = cb;
    digest(ca, a, ra, &sa, &x);
    digest(cb, b, rb, &sb, &y);
    eq = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
    pto_buf_free(&x);
    pto_buf_free(&y);
    return eq;
}

static int random_kernels(int n, int ids, int *bad_seed)
{
    int i, bad = 0;
    for (i = 0; i < n; i++) {
        pto_ctx *ca = pto_ctx_create(NULL), *cb = pto_ctx_create(NULL);
        int32_t nv, kv;
        pto_module *a, *b;
        pto_file_add(ca, "r.pto");
        pto_file_add(cb, "r.pto");
        a = g_kernel(ca, (uint64_t)i, &nv, &kv);
        b = g_kernel(cb, (uint64_t)i, &nv, &kv);
        if (!same(ca, a, cb, b, ids, ids)) {
            if (!bad) *bad_seed = i;
            bad++;
        }
        pto_module_destroy(a);
        pto_module_destroy(b);
        pto_ctx_destroy(ca);
        pto_ctx_destroy(cb);
    }
    return bad;
}

/* The planner's kernels, planned (tight or separate), small enough for the
   reference's cubic analysis. */
static int planned_kernels(int n, int tight, int *compared)
{
    int i, bad = 0;
    for (i = 0; i < n; i++) {
        pto_ctx *ca = pto_ctx_create(NULL), *cb = pto_ctx_create(NULL);
        pto_module *a = gen_module(ca, (uint64_t)i), *b = gen_module(cb, (uint64_t)i);
        pto_plan_desc d;
        memset(&d, 0, sizeof d);
        d.tight = tight;
        if (a->n_stmts <= 120 && pto_plan(ca, a, &d) == PTO_OK && pto_plan(cb, b, &d) == PTO_OK) {
            (*compared)++;
            bad += !same(ca, a, cb, b, 0, 0);
        }
        pto_module_destroy(a);
        pto_module_destroy(b);
        pto_ctx_destroy(ca);
        pto_ctx_destroy(cb);
    }
    return bad;
}

/* A kernel of `stages` loops of the bench's three kinds (emit_bench.c). */
static void staged(pto_buf *b, int stages, int nbuf)
{
    int l;
    pto_buf_puts(b, "kernel st(in x: f32[1024, 128], in y: f32[1024, 128], out z: f32[1024, 128], "
                    "scalar alpha: f32) vector blocks(8) {\n");
    for (l = 0; l < stages; l++) {
        pto_buf_printf(b, "  for i%d = 0 to 4 {\n    let r%d = block * 128 + i%d * 16\n", l, l, l);
        if (l % 3 == 0)
            pto_buf_printf(b, "    tile a%d: vec f32[16, 128] x%d\n    tile b%d: vec f32[16, 128] x%d\n"
                              "    tload a%d, x[r%d, 0]\n    tadds b%d, a%d, 1.5\n    texp b%d, b%d\n"
                              "    tmul b%d, b%d, a%d\n    tstore z[r%d, 0], b%d\n  }\n",
                           l, nbuf, l, nbuf, l, l, l, l, l, l, l, l, l, l, l);
        else if (l % 3 == 1)
            pto_buf_printf(b, "    tile a%d: vec f32[16, 128] x%d\n    tile b%d: vec f32[16, 128]\n"
                              "    tload a%d, x[r%d, 0]\n    tload b%d, y[r%d, 0]\n    tadd b%d, a%d, b%d\n"
                              "    tstore z[r%d, 0], b%d\n  }\n",
                           l, nbuf, l, l, l, l, l, l, l, l, l, l);
        else
            pto_buf_printf(b, "    tile t%d: vec f32[16, 128] x%d\n    tile m%d: vec f32[16, 1]\n"
                              "    tload t%d, x[r%d, 0]\n    trowmax m%d, t%d\n    trowexpandsub t%d, t%d, m%d\n"
                              "    tstore z[r%d, 0], t%d\n  }\n",
                           l, nbuf, l, l, l, l, l, l, l, l, l, l);
    }
    pto_buf_puts(b, "}\n");
}

static int staged_kernels(int *compared)
{
    int stages, nbuf, tight, bad = 0;
    for (stages = 1; stages <= 6; stages++)
        for (nbuf = 1; nbuf <= 3; nbuf++)
            for (tight = 0; tight < 2; tight++) {
                pto_ctx *ca = pto_ctx_create(NULL), *cb = pto_ctx_create(NULL);
                pto_buf src;
                pto_module *a, *b;
                pto_plan_desc d;
                memset(&src, 0, sizeof src);
                src.ctx = ca;
                staged(&src, stages, nbuf);
                memset(&d, 0, sizeof d);
                d.tight = tight;
                a = pto_parse(ca, "st.pto", src.data, src.len);
                b = pto_parse(cb, "st.pto", src.data, src.len);
                if (a && b && pto_verify(ca, a) == PTO_OK && pto_verify(cb, b) == PTO_OK && pto_plan(ca, a, &d) == PTO_OK
                    && pto_plan(cb, b, &d) == PTO_OK) {
                    (*compared)++;
                    bad += !same(ca, a, cb, b, 0, 0);
                }
                pto_buf_free(&src);
                pto_module_destroy(a);
                pto_module_destroy(b);
                pto_ctx_destroy(ca);
                pto_ctx_destroy(cb);
            }
    return bad;
}

int main(void)
{
    int bad, seed = -1, ids, compared = 0, nplanned;
    bad = random_kernels(1000, 0, &seed);
    CHECK_MSG(bad == 0, "%d of 1000 random kernels differ from the reference (first: seed %d)", bad, seed);
    for (ids = 1; ids <= 3; ids++) {
        bad = random_kernels(150, ids, &seed);
        CHECK_MSG(bad == 0, "%d of 150 random kernels with %d ids per pair differ (first: seed %d)", bad, ids, seed);
    }
    bad = planned_kernels(300, 0, &compared) + planned_kernels(300, 1, &compared);
    CHECK_MSG(bad == 0, "%d of %d planned kernels differ from the reference", bad, compared);
    CHECK(compared > 150);
    nplanned = compared;
    compared = 0;
    bad = staged_kernels(&compared);
    CHECK_MSG(bad == 0, "%d of %d staged kernels differ from the reference", bad, compared);
    CHECK(compared == 36);
    {
        /* the comparison sees a difference: one side with 1 id per pair */
        pto_ctx *ca = pto_ctx_create(NULL), *cb = pto_ctx_create(NULL);
        pto_buf src;
        pto_module *a, *b;
        memset(&src, 0, sizeof src);
        src.ctx = ca;
        staged(&src, 3, 3);
        a = pto_parse(ca, "st.pto", src.data, src.len);
        b = pto_parse(cb, "st.pto", src.data, src.len);
        CHECK(a && b && pto_verify(ca, a) == PTO_OK && pto_verify(cb, b) == PTO_OK);
        CHECK(pto_plan(ca, a, NULL) == PTO_OK && pto_plan(cb, b, NULL) == PTO_OK);
        CHECK(!same(ca, a, cb, b, 0, 1));
        pto_buf_free(&src);
        pto_module_destroy(a);
        pto_module_destroy(b);
        pto_ctx_destroy(ca);
        pto_ctx_destroy(cb);
    }
    printf("compared with the reference inserter: 1450 random kernels, %d planned, %d staged\n", nplanned, compared);
    return TEST_END();
}
