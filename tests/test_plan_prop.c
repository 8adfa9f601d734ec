/* test_plan_prop.c - the planner against its independent checker on 10,000
   random kernels (tests/plan_gen.h): loops, ifs, xN tiles, mixed sizes,
   vector / cube / mix kernels, pipe buffers, pressure from light to past
   capacity.

   For every kernel, in both modes (default and tight):
   - a successful plan passes pto_plan_check and plans every local tile;
   - a failed plan is an overflow error, and only when the tiles truly need
     (nearly) all of the space: the most bytes live at one point plus the
     pipe room is at least 97% of the capacity;
   - a planted bug (one tile moved onto another named by the same op, so
     surely live with it) is caught by the checker. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"
#include "tests/plan_gen.h"

#define NKERNELS 10000

typedef struct prop_stats {
    int ok, failed, planted, separate, tight, groups;
    double worst_fail_ratio;   /* smallest (live_max + reserved) / capacity among failures */
} prop_stats;

static int first_error_has(pto_ctx *ctx, const char *what)
{
    int i;
    for (i = 0; i < pto_diag_count(ctx); i++)
        if (pto_diag_get(ctx, i)->severity == PTO_SEV_ERROR) return strstr(pto_diag_get(ctx, i)->msg, what) != NULL;
    return 0;
}

/* Some diagnostic reports an overlap of tiles a and b. */
static int overlap_reported(pto_ctx *ctx, const char *a, const char *b)
{
    char want1[128], want2[128];
    int i;
    sprintf(want1, "tiles '%.40s' and '%.40s' overlap", a, b);
    sprintf(want2, "tiles '%.40s' and '%.40s' overlap", b, a);
    for (i = 0; i < pto_diag_count(ctx); i++)
        if (strstr(pto_diag_get(ctx, i)->msg, want1) || strstr(pto_diag_get(ctx, i)->msg, want2)) return 1;
    return 0;
}

/* Two distinct tiles of one memory named by one op statement are live at
   that statement under any lifetime rule: moving one onto the other must be
   reported. Returns 1 when such a pair was planted (and checks the catch). */
static int plant_bug(pto_ctx *ctx, pto_module *m, uint64_t seed)
{
    int32_t n = m->n_stmts, i, s;
    for (i = 0; i < n; i++) {
        const pto_stmt *st;
        int x, y;
        s = (int32_t)((i + seed) % (uint64_t)n);
        st = &m->stmts[s];
        if (st->kind != PTO_ST_OP) continue;
        for (x = 0; x < st->nargs; x++)
            for (y = 0; y < st->nargs; y++) {
                const pto_operand *ox = &m->operands[st->arg0 + x], *oy = &m->operands[st->arg0 + y];
                pto_tile *a, *b;
                int k;
                int64_t delta;
                if (ox->kind != PTO_O_TILE || oy->kind != PTO_O_TILE || ox->ref == oy->ref) continue;
                a = &m->tiles[ox->ref];
                b = &m->tiles[oy->ref];
                if (a->space != b->space || a->core != b->core) continue;
                delta = a->offset[(seed / 3) % (uint64_t)a->nbuf] - b->offset[0];
                for (k = 0; k < b->nbuf; k++) b->offset[k] += delta;
                pto_diag_clear(ctx);
                CHECK_MSG(pto_plan_check(ctx, m) == PTO_ERR_USER &&
                              overlap_reported(ctx, pto_str(ctx, a->name), pto_str(ctx, b->name)),
                          "seed %llu: planted overlap of %s and %s not reported: %s", (unsigned long long)seed,
                          pto_str(ctx, a->name), pto_str(ctx, b->name), pto_diag_count(ctx) ? pto_diag_get(ctx, 0)->msg : "-");
                return 1;
            }
    }
    return 0;
}

static void one(pto_ctx *ctx, uint64_t seed, int tight, prop_stats *ps)
{
    pto_module *m = gen_module(ctx, seed);
    pto_plan_result r;
    pto_plan_desc d;
    pto_status st;
    int32_t i;
    memset(&r, 0, sizeof r);
    memset(&d, 0, sizeof d);
    d.tight = tight;
    d.result = &r;
    pto_diag_clear(ctx);
    st = pto_plan(ctx, m, &d);
    if (st == PTO_OK) {
        int all = 1;
        ps->ok++;
        for (i = 0; i < m->n_tiles; i++) all &= m->tiles[i].planned;
        CHECK_MSG(all, "seed %llu: a tile is not planned", (unsigned long long)seed);
        CHECK_MSG(pto_plan_check(ctx, m) == PTO_OK, "seed %llu tight %d: checker: %s", (unsigned long long)seed,
                  tight, pto_diag_count(ctx) ? pto_diag_get(ctx, 0)->msg : "?");
        for (i = 0; i < r.n; i++) {
            ps->groups++;
            if (r.stats[i].level == PTO_PLAN_SEPARATE) ps->separate++; else ps->tight++;
            CHECK(r.stats[i].peak >= r.stats[i].live_max);
            CHECK(r.stats[i].peak + r.stats[i].reserved <= r.stats[i].capacity);
        }
        if (!tight && m->n_tiles > 1 && plant_bug(ctx, m, seed)) ps->planted++;
    } else {
        ps->failed++;
        CHECK_MSG(st == PTO_ERR_USER && first_error_has(ctx, "overflows: needs"), "seed %llu: %s",
                  (unsigned long long)seed, pto_diag_count(ctx) ? pto_diag_get(ctx, 0)->msg : "?");
        for (i = 0; i < r.n; i++) {
            const pto_plan_stat *s = &r.stats[i];
            double ratio = (double)(s->live_max + s->reserved) / (double)s->capacity;
            if (s->peak) continue;   /* this memory was planned */
            if (ratio < ps->worst_fail_ratio) ps->worst_fail_ratio = ratio;
            CHECK_MSG(ratio >= 0.97, "seed %llu: failed with only %.3f of %s live", (unsigned long long)seed, ratio,
                      pto_space_name((pto_space)s->space));
        }
    }
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(m);
}

int main(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    prop_stats ps[2];
    uint64_t seed;
    int tight;
    memset(ps, 0, sizeof ps);
    ps[0].worst_fail_ratio = ps[1].worst_fail_ratio = 1e9;
    for (tight = 0; tight < 2; tight++)
        for (seed = 1; seed <= NKERNELS; seed++) one(ctx, seed, tight, &ps[tight]);
    for (tight = 0; tight < 2; tight++)
        printf("%s: %d kernels planned, %d overflowed (lowest live/capacity among them %.3f); "
               "memories at level separate %d, tight %d; planted bugs caught %d\n",
               tight ? "tight" : "default", ps[tight].ok, ps[tight].failed, ps[tight].worst_fail_ratio,
               ps[tight].separate, ps[tight].tight, ps[tight].planted);
    CHECK(ps[0].ok + ps[0].failed == NKERNELS);
    CHECK(ps[0].ok > NKERNELS / 2 && ps[0].failed > NKERNELS / 50);  /* the corpus covers both outcomes */
    CHECK(ps[0].separate > 0 && ps[0].tight > 0);                    /* and both levels */
    CHECK(ps[0].planted > NKERNELS / 20);
    CHECK(ps[1].ok == ps[0].ok);  /* tight mode fits exactly what default mode fits */
    pto_ctx_destroy(ctx);
    return TEST_END();
}
