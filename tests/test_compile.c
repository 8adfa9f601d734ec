/* test_compile.c - pto_compile, the pass sequence in one call.

   Each option is checked against what the passes themselves leave in the
   module: stop_after (no plan after verify, no sync statements after plan),
   no_sync, plan.tight (the same peak as pto_plan with tight), check_plan,
   sync stats passed through, a failing verify stopping the sequence, a NULL
   module (a failed parse), and the full sequence giving the same module as
   the passes called by hand (the same printed dump). */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

/* pto_sync with its self-check on: an unordered dependency left by the
   inserter is PTO_ERR_INTERNAL here, not only a race in a simulator run. */
static const pto_sync_desc checked = {0, NULL, 1};

static const char *src =
    "kernel k(in x: f32[64, 256], in y: f32[64, 256], out z: f32[64, 256]) vector blocks(2) {\n"
    "  for i = 0 to 2 {\n"
    "    tile a: vec f32[16, 256] x2\n"
    "    tile b: vec f32[16, 256] x2\n"
    "    let r = block * 32 + i * 16\n"
    "    tload a, x[r, 0]\n"
    "    tload b, y[r, 0]\n"
    "    tadd a, a, b\n"
    "    tstore z[r, 0], a\n"
    "  }\n"
    "}\n";

static pto_module *load(pto_ctx *ctx, const char *text)
{
    return pto_parse(ctx, "c.pto", text, strlen(text));
}

static int n_by(const pto_module *m, int origin)
{
    int32_t s;
    int n = 0;
    for (s = 0; s < m->n_stmts; s++) n += m->stmts[s].block >= 0 && m->stmts[s].origin == origin;
    return n;
}

static int all_planned(const pto_module *m)
{
    int32_t t;
    for (t = 0; t < m->n_tiles; t++)
        if (!m->tiles[t].planned) return 0;
    return m->n_tiles > 0;
}

static char *dump(pto_ctx *ctx, const pto_module *m)
{
    pto_buf b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_dump(m, &b);
    return b.data; /* allocated through ctx: pto_free */
}

static void stages(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_compile_desc cd;
    pto_module *m = load(ctx, src);
    memset(&cd, 0, sizeof cd);
    cd.stop_after = PTO_STAGE_VERIFY;
    CHECK(pto_compile(ctx, m, &cd) == PTO_OK);
    CHECK(!all_planned(m) && m->tiles[0].planned == 0);
    CHECK(n_by(m, PTO_BY_SYNC) == 0);
    pto_module_destroy(m);

    m = load(ctx, src);
    cd.stop_after = PTO_STAGE_PLAN;
    CHECK(pto_compile(ctx, m, &cd) == PTO_OK);
    CHECK(all_planned(m));
    CHECK(n_by(m, PTO_BY_SYNC) == 0);
    pto_module_destroy(m);

    m = load(ctx, src);
    cd.stop_after = PTO_STAGE_ALL;
    cd.no_sync = 1;
    CHECK(pto_compile(ctx, m, &cd) == PTO_OK);
    CHECK(all_planned(m));
    CHECK(n_by(m, PTO_BY_SYNC) == 0);
    pto_module_destroy(m);

    m = load(ctx, src);
    CHECK(pto_compile(ctx, m, NULL) == PTO_OK);
    CHECK(n_by(m, PTO_BY_SYNC) > 0);
    pto_module_destroy(m);
    CHECK(pto_diag_count(ctx) == 0);
    pto_ctx_destroy(ctx);
}

/* The full sequence leaves the module exactly as the passes called by hand. */
static void same_as_by_hand(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *a = load(ctx, src), *b = load(ctx, src);
    pto_compile_desc cd;
    pto_sync_stats ss;
    pto_plan_desc pd;
    char *da, *db;
    memset(&cd, 0, sizeof cd);
    memset(&ss, 0, sizeof ss);
    memset(&pd, 0, sizeof pd);
    cd.plan.tight = 1;
    cd.sync.stats = &ss;
    cd.check_plan = 1;
    pd.tight = 1;
    CHECK(pto_compile(ctx, a, &cd) == PTO_OK);
    CHECK(pto_verify(ctx, b) == PTO_OK && pto_plan(ctx, b, &pd) == PTO_OK && pto_sync(ctx, b, &checked) == PTO_OK);
    CHECK(ss.flag_pairs > 0);   /* the stats pointer reached the sync pass */
    da = dump(ctx, a);
    db = dump(ctx, b);
    CHECK_STR(da, db);
    pto_free(ctx, da);
    pto_free(ctx, db);
    pto_module_destroy(a);
    pto_module_destroy(b);
    pto_ctx_destroy(ctx);
}

static void failures(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    const char *bad = "kernel k(in x: f32[64, 64], out y: f32[64, 64]) vector {\n"
                      "  tile a: vec f32[16, 64]\n"
                      "  tload a, y[0, 0]\n"
                      "}\n";
    pto_module *m = load(ctx, bad);
    char msg[512];
    CHECK(m != NULL);
    CHECK(pto_compile(ctx, m, NULL) == PTO_ERR_USER);
    CHECK(m && !m->tiles[0].planned);   /* plan did not run after the failed verify */
    CHECK(pto_diag_count(ctx) == 1);
    if (pto_diag_count(ctx) == 1) {
        pto_diag_format(ctx, pto_diag_get(ctx, 0), msg, sizeof msg);
        CHECK_STR(msg, "c.pto:3:12: error: cannot read 'y': it is an 'out' tensor (declare it inout to read it)");
    }
    pto_module_destroy(m);
    CHECK(pto_compile(ctx, NULL, NULL) == PTO_ERR_USER);
    pto_ctx_destroy(ctx);
}

int main(void)
{
    stages();
    same_as_by_hand();
    failures();
    return TEST_END();
}
