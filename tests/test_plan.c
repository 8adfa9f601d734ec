/* test_plan.c - the memory planner and its checker on hand-built kernels.

   The upstream planner's edge cases (24 tiles of 8 KiB fill UB exactly; a
   tile at offset 0 next to a multi-buffer sibling; sequential tiles all at
   offset 0; two fragmentation holes reused; the overflow message), the
   lifetime rules over loops, xN tiles and ifs, the two placement levels,
   pins, cube/vector pipe buffers, mix kernels, granules, and planted bugs
   that the checker must report with exact messages. The checker runs on
   every kernel that plans. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

typedef struct kb {
    pto_ctx *ctx;
    pto_module *m;
    int32_t k, body, x;
} kb;

static int32_t g_file;

/* a compound literal, not a function returning a pto_loc: tcc 0.9.27 (x86-64) stores such a
   12-byte result as 16 bytes, over a local of the caller (tests/tcc_ptoc_test.sh) */
#define at(line) ((pto_loc){g_file, (line), 1})

static kb kernel(pto_ctx *ctx, pto_arch arch, pto_kernel_kind kind)
{
    kb b;
    b.ctx = ctx;
    b.m = pto_module_create(ctx, arch);
    b.k = pto_add_kernel(b.m, "k", kind, at(1));
    b.body = b.m->kernels[b.k].body;
    b.x = pto_add_tensor_param(b.m, b.k, "x", PTO_INOUT, PTO_F32, 4096, 4096, at(1));
    return b;
}

static int32_t tile(kb *b, int32_t block, const char *name, pto_space sp, int rows, int cols, int line)
{
    return pto_add_tile(b->m, block, name, sp, PTO_F32, rows, cols, at(line));
}

/* A vec f32[16, 128] tile: 8 KiB. */
static int32_t t8k(kb *b, int32_t block, const char *name, int line)
{
    return tile(b, block, name, PTO_VEC, 16, 128, line);
}

static void load(kb *b, int32_t block, int32_t t, int line)
{
    int32_t s = pto_add_op(b->m, block, PTO_OP_TLOAD, at(line)), z = pto_expr_int(b->m, 0, at(line));
    pto_arg_tile(b->m, s, t, at(line));
    pto_arg_gm(b->m, s, b->x, z, z, -1, at(line));
}

static void store(kb *b, int32_t block, int32_t t, int line)
{
    int32_t s = pto_add_op(b->m, block, PTO_OP_TSTORE, at(line)), z = pto_expr_int(b->m, 0, at(line));
    pto_arg_gm(b->m, s, b->x, z, z, -1, at(line));
    pto_arg_tile(b->m, s, t, at(line));
}

static void op3(kb *b, int32_t block, pto_op op, int32_t d, int32_t a, int32_t c, int line)
{
    int32_t s = pto_add_op(b->m, block, op, at(line));
    pto_arg_tile(b->m, s, d, at(line));
    pto_arg_tile(b->m, s, a, at(line));
    if (c >= 0) pto_arg_tile(b->m, s, c, at(line));
}

static void fill(kb *b, int32_t block, int32_t t, int line)
{
    int32_t s = pto_add_op(b->m, block, PTO_OP_TEXPANDS, at(line));
    pto_arg_tile(b->m, s, t, at(line));
    pto_arg_float(b->m, s, 1.0, at(line));
}

static int32_t loop(kb *b, int32_t block, int line)
{
    int32_t f = pto_add_for(b->m, block, "i", pto_expr_int(b->m, 0, at(line)), pto_expr_int(b->m, 8, at(line)), -1,
                            at(line));
    return b->m->stmts[f].body;
}

static const char *err0(pto_ctx *ctx) { return pto_diag_count(ctx) ? pto_diag_get(ctx, 0)->msg : "(no error)"; }
static int line0(pto_ctx *ctx) { return pto_diag_count(ctx) ? (int)pto_diag_get(ctx, 0)->loc.line : -1; }

/* Plans, runs the checker, and returns the plan's status. */
static pto_status plan(kb *b, int tight, pto_plan_result *r)
{
    pto_plan_desc d;
    pto_status st;
    memset(&d, 0, sizeof d);
    d.tight = tight;
    d.result = r;
    pto_diag_clear(b->ctx);
    /* These kernels oversubscribe spaces on purpose, which pto_verify
       refuses: the planner's own checks are under test, so the stamp it
       requires is written directly (ir.h: a direct writer answers for the
       module). */
    pto_module_stamp(b->m);
    st = pto_plan(b->ctx, b->m, &d);
    if (st == PTO_OK) CHECK_MSG(pto_plan_check(b->ctx, b->m) == PTO_OK, "checker: %s", err0(b->ctx));
    return st;
}

static pto_status recheck(kb *b)
{
    pto_diag_clear(b->ctx);
    return pto_plan_check(b->ctx, b->m);
}

/* ---- upstream edge cases --------------------------------------------------- */

/* n tiles of 8 KiB all live at once: declared on lines 2.., loaded, then stored. */
static kb all_live(pto_ctx *ctx, int n, int32_t *ts)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    char name[16];
    int i;
    for (i = 0; i < n; i++) {
        sprintf(name, "t%d", i);
        ts[i] = t8k(&b, b.body, name, 2 + i);
    }
    for (i = 0; i < n; i++) load(&b, b.body, ts[i], 2 + n + i);
    for (i = 0; i < n; i++) store(&b, b.body, ts[i], 2 + 2 * n + i);
    return b;
}

static void test_fill_ub_exactly(pto_ctx *ctx)
{
    int32_t ts[24];
    int seen[24], i;
    pto_plan_result r;
    kb b = all_live(ctx, 24, ts);
    memset(&r, 0, sizeof r);
    memset(seen, 0, sizeof seen);
    CHECK(plan(&b, 0, &r) == PTO_OK);
    for (i = 0; i < 24; i++) {
        const pto_tile *t = &b.m->tiles[ts[i]];
        CHECK(t->planned && t->offset[0] % 8192 == 0 && t->offset[0] / 8192 < 24);
        if (t->offset[0] % 8192 == 0 && t->offset[0] >= 0 && t->offset[0] / 8192 < 24) seen[t->offset[0] / 8192]++;
    }
    for (i = 0; i < 24; i++) CHECK(seen[i] == 1);
    CHECK(r.n == 1 && r.stats[0].peak == 196608 && r.stats[0].live_max == 196608);
    CHECK(r.n == 1 && r.stats[0].level == PTO_PLAN_SEPARATE);
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(b.m);
}

static void test_overflow_message(pto_ctx *ctx)
{
    int32_t ts[25];
    char want[2048];
    int i;
    kb b = all_live(ctx, 25, ts);
    /* every tile would fit alone: the user must shrink; the placement orders tried are not news */
    sprintf(want, "kernel 'k': vec overflows: needs 204800 bytes, capacity 196608; at line 51, 25 tiles are live "
                  "(204800 bytes), largest first: t0 8192 (line 2), t1 8192 (line 3), t2 8192 (line 4), "
                  "t3 8192 (line 5) and 21 more");
    CHECK(plan(&b, 0, NULL) == PTO_ERR_USER);
    CHECK(pto_error_count(ctx) == 1);
    CHECK_STR(err0(ctx), want);
    CHECK(line0(ctx) == 51);
    for (i = 0; i < 25; i++) CHECK(!b.m->tiles[ts[i]].planned);
    pto_module_destroy(b.m);
}

/* The overflow names the tiles to shrink: the largest live ones first
   (ties in declaration order), four of them and a count past five. */
static void test_overflow_largest_first(pto_ctx *ctx)
{
    static const int rows[7] = {16, 64, 32, 128, 16, 96, 48};   /* 8, 32, 16, 64, 8, 48, 24 KiB */
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    int32_t ts[7];
    char name[16];
    int i;
    for (i = 0; i < 7; i++) {
        sprintf(name, "s%d", i);
        ts[i] = tile(&b, b.body, name, PTO_VEC, rows[i], 128, 2 + i);
    }
    for (i = 0; i < 7; i++) load(&b, b.body, ts[i], 10 + i);
    for (i = 0; i < 7; i++) store(&b, b.body, ts[i], 20 + i);
    CHECK(plan(&b, 0, NULL) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "kernel 'k': vec overflows: needs 204800 bytes, capacity 196608; at line 16, 7 tiles are live "
                         "(204800 bytes), largest first: s3 65536 (line 5), s5 49152 (line 7), s1 32768 (line 3), "
                         "s6 24576 (line 8) and 3 more");
    pto_module_destroy(b.m);
}

/* Needed bytes above the lower bound are called fragmentation. */
static void test_overflow_fragmentation(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    /* p pinned in the middle splits UB into two 94 KiB halves; q needs 96 KiB */
    int32_t p = tile(&b, b.body, "p", PTO_VEC, 16, 128, 2), q = tile(&b, b.body, "q", PTO_VEC, 192, 128, 3);
    b.m->tiles[p].pin = 94 * 1024;
    load(&b, b.body, p, 4);
    load(&b, b.body, q, 5);
    store(&b, b.body, p, 6);
    store(&b, b.body, q, 7);
    CHECK(plan(&b, 0, NULL) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "kernel 'k': vec overflows: needs 202752 bytes, capacity 196608; at line 5, 2 tiles are live "
                         "(106496 bytes), largest first: q 98304 (line 3), p 8192 (line 2); the rest is fragmentation: "
                         "tried 4 placement orders (largest-first, by-start, longest-first, by-area), first-fit and "
                         "best-fit each, and a complete search: no placement of these lifetimes fits");
    pto_module_destroy(b.m);
}

static void test_offset0_next_to_multibuffer(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    int32_t body = loop(&b, b.body, 2);
    int32_t a = tile(&b, body, "a", PTO_VEC, 16, 64, 3), c = tile(&b, body, "b", PTO_VEC, 16, 64, 4);
    b.m->tiles[a].nbuf = 2;
    load(&b, body, a, 5);
    op3(&b, body, PTO_OP_TADD, c, a, a, 6);
    store(&b, body, c, 7);
    CHECK(plan(&b, 0, NULL) == PTO_OK);
    CHECK(b.m->tiles[a].planned && b.m->tiles[a].offset[0] == 0 && b.m->tiles[a].offset[1] == 4096);
    CHECK(b.m->tiles[c].planned && b.m->tiles[c].offset[0] == 8192);
    /* planted: b onto a's slot 1 */
    b.m->tiles[c].offset[0] = 4096;
    CHECK(recheck(&b) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "tiles 'a' and 'b' overlap at vec bytes [0x1000, 0x2000) while both live (lines 2-7 and 6-7)");
    CHECK(line0(ctx) == 4);
    /* planted: the slots out of order */
    b.m->tiles[c].offset[0] = 8192;
    b.m->tiles[a].offset[1] = 0;
    b.m->tiles[a].offset[0] = 4096;
    CHECK(recheck(&b) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "slots of tile 'a' are not in slot order at one stride (slot 1 at 0x0)");
    pto_module_destroy(b.m);
}

/* t1, t2, t3 one after the other: decl, load, store. */
static kb sequential(pto_ctx *ctx, int vector_only, int32_t *ts)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    int i;
    for (i = 0; i < 3; i++) {
        char name[16];
        sprintf(name, "t%d", i + 1);
        ts[i] = t8k(&b, b.body, name, 2 + 3 * i);
        if (vector_only) {
            fill(&b, b.body, ts[i], 3 + 3 * i);
            op3(&b, b.body, PTO_OP_TADD, ts[i], ts[i], ts[i], 4 + 3 * i);
        } else {
            load(&b, b.body, ts[i], 3 + 3 * i);
            store(&b, b.body, ts[i], 4 + 3 * i);
        }
    }
    return b;
}

static void test_sequential_reuse(pto_ctx *ctx)
{
    int32_t ts[3];
    pto_plan_result r;
    kb b;
    memset(&r, 0, sizeof r);
    /* tight: everything at 0 */
    b = sequential(ctx, 0, ts);
    CHECK(plan(&b, 1, &r) == PTO_OK);
    CHECK(b.m->tiles[ts[0]].offset[0] == 0 && b.m->tiles[ts[1]].offset[0] == 0 && b.m->tiles[ts[2]].offset[0] == 0);
    CHECK(r.n == 1 && r.stats[0].level == PTO_PLAN_TIGHT && r.stats[0].peak == 8192);
    /* default: loads (MTE2) after stores (MTE3) would tie the pipes: kept apart while there is room */
    CHECK(plan(&b, 0, &r) == PTO_OK);
    CHECK(b.m->tiles[ts[0]].offset[0] == 0 && b.m->tiles[ts[1]].offset[0] == 8192 &&
          b.m->tiles[ts[2]].offset[0] == 16384);
    CHECK(r.n == 1 && r.stats[0].level == PTO_PLAN_SEPARATE && r.stats[0].peak == 24576);
    pto_module_destroy(b.m);
    /* default, but every access on V: reuse costs nothing, all at 0 */
    b = sequential(ctx, 1, ts);
    CHECK(plan(&b, 0, &r) == PTO_OK);
    CHECK(b.m->tiles[ts[0]].offset[0] == 0 && b.m->tiles[ts[1]].offset[0] == 0 && b.m->tiles[ts[2]].offset[0] == 0);
    CHECK(r.n == 1 && r.stats[0].level == PTO_PLAN_SEPARATE);
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(b.m);
}

/* Under pressure the default mode falls back to the tight level. */
static void test_level_fallback(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    pto_plan_result r;
    int32_t big = tile(&b, b.body, "big", PTO_VEC, 256, 128, 2), t1, t2; /* 128 KiB */
    memset(&r, 0, sizeof r);
    load(&b, b.body, big, 3);
    t1 = tile(&b, b.body, "t1", PTO_VEC, 96, 128, 4);                    /* 48 KiB each */
    load(&b, b.body, t1, 5);
    store(&b, b.body, t1, 6);
    t2 = tile(&b, b.body, "t2", PTO_VEC, 96, 128, 7);
    load(&b, b.body, t2, 8);
    store(&b, b.body, t2, 9);
    store(&b, b.body, big, 10);
    CHECK(plan(&b, 0, &r) == PTO_OK);
    CHECK(r.n == 1 && r.stats[0].level == PTO_PLAN_TIGHT && r.stats[0].peak == 180224);
    CHECK(b.m->tiles[t1].offset[0] == b.m->tiles[t2].offset[0]);
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(b.m);
}

/* A, C, E (and Z) live throughout; B and D die; F and G come later and can
   only go into the two holes B and D leave. 24 units of 8 KiB = UB. */
static void holes(pto_ctx *ctx, int pinned)
{
    static const char *const names[8] = {"A", "B", "C", "D", "E", "Z", "F", "G"};
    static const int units[8] = {2, 4, 2, 4, 2, 10, 4, 4};
    static const int64_t pins[8] = {0, -1, 6, -1, 12, 14, -1, -1};
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    int32_t t[8];
    int i, line = 2;
    pto_plan_result r;
    int64_t f, g, hb, hd;
    memset(&r, 0, sizeof r);
    for (i = 0; i < 8; i++) {
        t[i] = tile(&b, b.body, names[i], PTO_VEC, 16 * units[i], 128, line++);
        if (pinned && pins[i] >= 0) b.m->tiles[t[i]].pin = pins[i] * 8192;
    }
    for (i = 0; i < 6; i++) load(&b, b.body, t[i], line++);
    store(&b, b.body, t[1], line++);
    store(&b, b.body, t[3], line++);
    for (i = 6; i < 8; i++) load(&b, b.body, t[i], line++);
    for (i = 6; i < 8; i++) store(&b, b.body, t[i], line++);
    for (i = 0; i < 6; i++) if (i != 1 && i != 3) store(&b, b.body, t[i], line++);
    CHECK(plan(&b, 1, &r) == PTO_OK);
    CHECK(r.n == 1 && r.stats[0].peak == 196608);
    f = b.m->tiles[t[6]].offset[0];
    g = b.m->tiles[t[7]].offset[0];
    hb = b.m->tiles[t[1]].offset[0];
    hd = b.m->tiles[t[3]].offset[0];
    CHECK((f == hb && g == hd) || (f == hd && g == hb));
    if (pinned) CHECK(hb != hd && (hb == 2 * 8192 || hb == 8 * 8192) && (hd == 2 * 8192 || hd == 8 * 8192));
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(b.m);
}

static void test_two_holes(pto_ctx *ctx)
{
    holes(ctx, 1);
    holes(ctx, 0);
}

/* ---- lifetimes ----------------------------------------------------------- */

static int overlap(const pto_module *m, int32_t a, int32_t b)
{
    const pto_tile *x = &m->tiles[a], *y = &m->tiles[b];
    int64_t bx = pto_tile_bytes(x), by = pto_tile_bytes(y);
    int i, j;
    for (i = 0; i < x->nbuf; i++)
        for (j = 0; j < y->nbuf; j++)
            if (x->offset[i] < y->offset[j] + by && y->offset[j] < x->offset[i] + bx) return 1;
    return 0;
}

static void test_loop_carried(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    int32_t x = t8k(&b, b.body, "x", 2), body, w, y;
    load(&b, b.body, x, 3);
    body = loop(&b, b.body, 4);
    w = t8k(&b, body, "w", 5);
    op3(&b, body, PTO_OP_TADD, w, x, x, 6);   /* x's last use, but every iteration reads it */
    store(&b, body, w, 7);
    y = t8k(&b, body, "y", 8);
    load(&b, body, y, 9);
    store(&b, body, y, 10);
    CHECK(plan(&b, 1, NULL) == PTO_OK);
    CHECK(!overlap(b.m, x, y));
    CHECK(b.m->tiles[y].offset[0] == b.m->tiles[w].offset[0]);  /* one iteration's tiles do reuse */
    b.m->tiles[y].offset[0] = b.m->tiles[x].offset[0];
    CHECK(recheck(&b) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "tiles 'x' and 'y' overlap at vec bytes [0x0, 0x2000) while both live (lines 3-10 and 9-10)");
    pto_module_destroy(b.m);
}

static void test_multibuffer_whole_loop(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    int32_t outer = loop(&b, b.body, 2);
    int32_t body = loop(&b, outer, 3), a, c, d;
    a = t8k(&b, body, "a", 4);
    b.m->tiles[a].nbuf = 3;
    c = t8k(&b, body, "c", 5);
    load(&b, body, a, 6);
    op3(&b, body, PTO_OP_TADD, c, a, a, 7);  /* a's last use in the body */
    store(&b, body, c, 8);
    d = t8k(&b, body, "d", 9);
    load(&b, body, d, 10);
    store(&b, body, d, 11);
    CHECK(plan(&b, 1, NULL) == PTO_OK);
    CHECK(!overlap(b.m, a, d) && !overlap(b.m, a, c));
    CHECK(b.m->tiles[a].offset[1] == b.m->tiles[a].offset[0] + 8192 &&
          b.m->tiles[a].offset[2] == b.m->tiles[a].offset[0] + 16384);
    CHECK(b.m->tiles[c].offset[0] == b.m->tiles[d].offset[0]);
    pto_module_destroy(b.m);
}

static void test_if_branches(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    int32_t t = t8k(&b, b.body, "t", 2), w = t8k(&b, b.body, "w", 3), f, u, v, then, els;
    load(&b, b.body, t, 4);
    f = pto_add_if(b.m, b.body, pto_expr_builtin(b.m, PTO_E_BLOCK, at(5)), PTO_EQ, pto_expr_int(b.m, 0, at(5)), at(5));
    then = b.m->stmts[f].body;
    els = pto_if_else(b.m, f);
    u = t8k(&b, then, "u", 6);
    load(&b, then, u, 7);
    store(&b, then, u, 8);
    load(&b, then, w, 9);                     /* w: written in then, read after the if */
    v = t8k(&b, els, "v", 10);
    load(&b, els, v, 11);
    store(&b, els, v, 12);
    store(&b, b.body, t, 13);
    store(&b, b.body, w, 14);
    CHECK(plan(&b, 1, NULL) == PTO_OK);
    CHECK(!overlap(b.m, t, u) && !overlap(b.m, t, v) && !overlap(b.m, w, v));
    b.m->tiles[u].offset[0] = b.m->tiles[v].offset[0] = 0x10000;  /* never live together: the checker agrees */
    CHECK(recheck(&b) == PTO_OK);
    b.m->tiles[v].offset[0] = b.m->tiles[w].offset[0];   /* w is live across the else branch */
    CHECK(recheck(&b) == PTO_ERR_USER);
    CHECK(strstr(err0(ctx), "tiles 'w' and 'v' overlap") != NULL);
    pto_module_destroy(b.m);
}

/* ---- pins ----------------------------------------------------------------- */

static kb pinned_pair(pto_ctx *ctx, int64_t pin_p, int64_t pin_q, int together)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    int32_t p = t8k(&b, b.body, "p", 2), q = t8k(&b, b.body, "q", 3);
    b.m->tiles[p].pin = pin_p;
    b.m->tiles[q].pin = pin_q;
    load(&b, b.body, p, 4);
    if (!together) store(&b, b.body, p, 5);
    load(&b, b.body, q, 6);
    if (together) store(&b, b.body, p, 7);
    store(&b, b.body, q, 8);
    return b;
}

static void test_pins(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_VECTOR);
    int32_t p = t8k(&b, b.body, "p", 2), o[3];
    int i;
    b.m->tiles[p].pin = 0x1000;
    for (i = 0; i < 3; i++) o[i] = t8k(&b, b.body, i == 0 ? "o0" : i == 1 ? "o1" : "o2", 3 + i);
    load(&b, b.body, p, 6);
    for (i = 0; i < 3; i++) load(&b, b.body, o[i], 7 + i);
    store(&b, b.body, p, 10);
    for (i = 0; i < 3; i++) store(&b, b.body, o[i], 11 + i);
    CHECK(plan(&b, 0, NULL) == PTO_OK);
    CHECK(b.m->tiles[p].offset[0] == 0x1000);
    CHECK(b.m->tiles[o[0]].offset[0] == 0x3000 && b.m->tiles[o[1]].offset[0] == 0x5000 &&
          b.m->tiles[o[2]].offset[0] == 0x7000);
    pto_module_destroy(b.m);

    b = pinned_pair(ctx, 0x1000, 0x2000, 1);
    CHECK(plan(&b, 0, NULL) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "pinned tiles 'p' and 'q' overlap at vec bytes [0x2000, 0x3000) while both live");
    CHECK(line0(ctx) == 3);
    pto_module_destroy(b.m);

    b = pinned_pair(ctx, 0x1000, 0x2000, 0);  /* never live together: fine */
    CHECK(plan(&b, 0, NULL) == PTO_OK);
    pto_module_destroy(b.m);

    b = pinned_pair(ctx, 0x1004, 0x4000, 1);
    CHECK(plan(&b, 0, NULL) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "tile 'p' pinned at 0x1004 is not 32-byte aligned");
    CHECK(line0(ctx) == 2);
    pto_module_destroy(b.m);

    b = pinned_pair(ctx, 0x0, 0x2f000, 1);
    CHECK(plan(&b, 0, NULL) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "tile 'q' pinned at 0x2f000 ends at 0x31000, past the vec capacity 0x30000");
    pto_module_destroy(b.m);
}

/* ---- pipes, mix kernels, granules ------------------------------------------ */

static void add_pipe(pto_module *m, int32_t k, pto_cvdir dir, int32_t slot_size, int32_t local)
{
    pto_cvpipe *p;
    m->cvpipes = (pto_cvpipe *)pto_realloc(m->ctx, m->cvpipes, (size_t)(m->n_cvpipes + 1) * sizeof *p);
    p = &m->cvpipes[m->n_cvpipes++];
    m->cap_cvpipes = m->n_cvpipes;
    memset(p, 0, sizeof *p);
    p->kernel = k;
    p->dir = (uint8_t)dir;
    p->slot_size = slot_size;
    p->slot_num = 8;
    p->local_slot_num = local;
}

static void test_pipe_room(pto_ctx *ctx, int n)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_MIX);
    int32_t cube = pto_add_section(b.m, b.body, PTO_CORE_CUBE, at(2));
    int32_t vec = pto_add_section(b.m, b.body, PTO_CORE_VECTOR, at(3));
    int32_t cb = b.m->stmts[cube].body, vb = b.m->stmts[vec].body, ts[24], mt;
    int i;
    pto_plan_result r;
    memset(&r, 0, sizeof r);
    add_pipe(b.m, b.k, PTO_C2V, 16384, 2);
    add_pipe(b.m, b.k, PTO_BOTH, 4096, 1);
    mt = tile(&b, cb, "m", PTO_MAT, 16, 128, 4);
    load(&b, cb, mt, 5);
    for (i = 0; i < n; i++) {
        char name[16];
        sprintf(name, "v%d", i);
        ts[i] = t8k(&b, vb, name, 10 + i);
    }
    for (i = 0; i < n; i++) load(&b, vb, ts[i], 40 + i);
    for (i = 0; i < n; i++) store(&b, vb, ts[i], 70 + i);
    CHECK(pto_plan_pipe_base(b.m, 0, PTO_VEC) == 196608 - 32768);
    CHECK(pto_plan_pipe_base(b.m, 1, PTO_VEC) == 196608 - 32768 - 4096);
    CHECK(pto_plan_pipe_base(b.m, 1, PTO_MAT) == 524288 - 4096);
    CHECK(pto_plan_pipe_base(b.m, 0, PTO_MAT) == -1);
    if (n <= 19) {
        CHECK(plan(&b, 0, &r) == PTO_OK);
        CHECK(b.m->tiles[mt].offset[0] == 0 && b.m->tiles[ts[0]].offset[0] == 0);  /* separate memories */
        CHECK(r.n == 2 && r.stats[0].space == PTO_VEC && r.stats[0].reserved == 36864 && r.stats[0].peak == 155648);
        CHECK(r.n == 2 && r.stats[1].space == PTO_MAT && r.stats[1].reserved == 4096 && r.stats[1].core == PTO_CORE_CUBE);
        /* planted: a tile in the pipe buffers */
        b.m->tiles[ts[0]].offset[0] = 196608 - 8192;
        CHECK(recheck(&b) == PTO_ERR_USER);
        CHECK_STR(err0(ctx), "tile 'v0' slot 0 [0x2e000, 0x30000) is outside vec (159744 usable bytes)");
    } else {
        CHECK(plan(&b, 0, &r) == PTO_ERR_USER);
        CHECK(strstr(err0(ctx), "vec overflows: needs 200704 bytes, capacity 196608 (36864 reserved for "
                                "cube/vector pipe buffers); at line 59, 20 tiles are live") != NULL);
    }
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(b.m);
}

/* tpop t, pipe q in block blk. */
static void pop(kb *b, int32_t blk, int32_t t, int32_t q, int line)
{
    int32_t s = pto_add_op(b->m, blk, PTO_OP_TPOP, at(line));
    pto_arg_tile(b->m, s, t, at(line));
    pto_arg_cvpipe(b->m, s, q, at(line));
}

/* A local slot is the tile the core pops (pto-isa's TPOP steps its local
   slots by it): half the cube tile on an AIV of a split pipe, the whole tile
   unsplit, and always the whole tile on the cube. */
static void test_pipe_split_room(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_MIX);
    int32_t ud = pto_add_cvpipe(b.m, b.k, "ud", PTO_C2V, PTO_F32, 64, 128, 0, 6, PTO_SPLIT_UP_DOWN, at(2));
    int32_t lr = pto_add_cvpipe(b.m, b.k, "lr", PTO_C2V, PTO_F32, 64, 128, 0, 0, PTO_SPLIT_LEFT_RIGHT, at(3));
    int32_t wh = pto_add_cvpipe(b.m, b.k, "wh", PTO_C2V, PTO_F32, 16, 128, 0, 0, PTO_SPLIT_NONE, at(4));
    int32_t up = pto_add_cvpipe(b.m, b.k, "up", PTO_V2C, PTO_F32, 16, 128, 0, 3, PTO_SPLIT_UP_DOWN, at(5));
    int32_t bo = pto_add_cvpipe(b.m, b.k, "bo", PTO_BOTH, PTO_F32, 16, 128, 0, 1, PTO_SPLIT_UP_DOWN, at(6));
    const pto_cvpipe *p = b.m->cvpipes;
    CHECK(pto_plan_pipe_slot_bytes(&p[ud], PTO_VEC) == 16384 && pto_plan_pipe_slot_bytes(&p[ud], PTO_MAT) == 0);
    CHECK(pto_plan_pipe_slot_bytes(&p[lr], PTO_VEC) == 16384);
    CHECK(pto_plan_pipe_slot_bytes(&p[wh], PTO_VEC) == 8192);
    CHECK(pto_plan_pipe_slot_bytes(&p[up], PTO_VEC) == 0 && pto_plan_pipe_slot_bytes(&p[up], PTO_MAT) == 8192);
    CHECK(pto_plan_pipe_slot_bytes(&p[bo], PTO_VEC) == 4096 && pto_plan_pipe_slot_bytes(&p[bo], PTO_MAT) == 8192);
    CHECK(pto_plan_pipe_base(b.m, ud, PTO_VEC) == 196608 - 6 * 16384);
    CHECK(pto_plan_pipe_base(b.m, lr, PTO_VEC) == 196608 - 6 * 16384 - 2 * 16384);
    CHECK(pto_plan_pipe_base(b.m, wh, PTO_VEC) == 196608 - 6 * 16384 - 2 * 16384 - 2 * 8192);
    CHECK(pto_plan_pipe_base(b.m, bo, PTO_VEC) == 196608 - 6 * 16384 - 2 * 16384 - 2 * 8192 - 4096);
    CHECK(pto_plan_pipe_base(b.m, up, PTO_MAT) == 524288 - 3 * 8192);
    CHECK(pto_plan_pipe_base(b.m, bo, PTO_MAT) == 524288 - 3 * 8192 - 8192);
    pto_module_destroy(b.m);
}

/* The user's kernel: c2v f32[64, 128] split(up_down) local_slots(6) and
   32 KiB of vec tiles beside it fit (6 x 16 KiB reserved, not 6 x 32 KiB). */
static void test_pipe_split_fits(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_MIX);
    int32_t q = pto_add_cvpipe(b.m, b.k, "q", PTO_C2V, PTO_F32, 64, 128, 0, 6, PTO_SPLIT_UP_DOWN, at(4));
    int32_t vec = pto_add_section(b.m, b.body, PTO_CORE_VECTOR, at(26));
    int32_t vb = b.m->stmts[vec].body, t, o;
    pto_plan_result r;
    memset(&r, 0, sizeof r);
    t = tile(&b, vb, "t", PTO_VEC, 32, 128, 31);
    o = tile(&b, vb, "o", PTO_VEC, 64, 128, 32);
    pop(&b, vb, t, q, 33);
    op3(&b, vb, PTO_OP_TADD, o, o, o, 34);
    store(&b, vb, o, 36);
    CHECK_MSG(plan(&b, 0, &r) == PTO_OK, "%s", err0(ctx));
    CHECK(b.m->tiles[t].offset[0] == 196608 - 6 * 16384);
    CHECK(r.n == 1 && r.stats[0].reserved == 6 * 16384);
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(b.m);
}

/* When the pipe buffers take most of the space the error points at the pipe
   and names its reservation; past the capacity on their own, too. */
static void test_pipe_overflow_names_pipe(pto_ctx *ctx, int local)
{
    kb b = kernel(ctx, PTO_ARCH_A2A3, PTO_KK_MIX);
    int32_t q = pto_add_cvpipe(b.m, b.k, "w", PTO_C2V, PTO_F32, 64, 128, 0, local, PTO_SPLIT_NONE, at(4));
    int32_t vec = pto_add_section(b.m, b.body, PTO_CORE_VECTOR, at(10));
    int32_t vb = b.m->stmts[vec].body, t, ts[5];
    int i;
    t = tile(&b, vb, "t", PTO_VEC, 64, 128, 11);
    pop(&b, vb, t, q, 12);
    for (i = 0; i < 5; i++) {
        char name[16];
        sprintf(name, "v%d", i);
        ts[i] = t8k(&b, vb, name, 13 + i);
    }
    for (i = 0; i < 5; i++) load(&b, vb, ts[i], 20 + i);
    for (i = 0; i < 5; i++) store(&b, vb, ts[i], 30 + i);
    CHECK(plan(&b, 0, NULL) == PTO_ERR_USER);
    CHECK(line0(ctx) == 4);
    if (local == 5)
        CHECK_STR(err0(ctx), "kernel 'k': vec overflows: needs 204800 bytes, capacity 196608 (163840 reserved for "
                             "cube/vector pipe buffers: pipe 'w' reserves 5 local slots x 32768 B on each vector core); "
                             "at line 24, 5 tiles are live (40960 bytes), largest first: v0 8192 (line 13), "
                             "v1 8192 (line 14), v2 8192 (line 15), v3 8192 (line 16), v4 8192 (line 17)");
    else
        CHECK_STR(err0(ctx), "kernel 'k': the local slots of pipe 'w' do not fit vec: needs 229376 bytes, capacity "
                             "196608 (pipe 'w' reserves 7 local slots x 32768 B on each vector core)");
    pto_module_destroy(b.m);
}

static void test_granules(pto_ctx *ctx)
{
    kb b = kernel(ctx, PTO_ARCH_A5, PTO_KK_CUBE);
    int32_t l1 = tile(&b, b.body, "l1", PTO_LEFT, 16, 12, 2);   /* 768 bytes */
    int32_t l2 = tile(&b, b.body, "l2", PTO_LEFT, 16, 12, 3);
    int32_t r = tile(&b, b.body, "r", PTO_RIGHT, 16, 12, 4);
    int32_t a1 = tile(&b, b.body, "a1", PTO_ACC, 16, 20, 5);    /* 1280 bytes */
    int32_t a2 = tile(&b, b.body, "a2", PTO_ACC, 16, 20, 6);
    int32_t mt = tile(&b, b.body, "m", PTO_MAT, 16, 12, 7);
    load(&b, b.body, mt, 8);
    op3(&b, b.body, PTO_OP_TMOV, l1, mt, -1, 9);
    op3(&b, b.body, PTO_OP_TMOV, l2, mt, -1, 10);
    op3(&b, b.body, PTO_OP_TMOV, r, mt, -1, 11);
    op3(&b, b.body, PTO_OP_TMATMUL, a1, l1, r, 12);
    op3(&b, b.body, PTO_OP_TMATMUL, a2, l2, r, 13);
    store(&b, b.body, a1, 14);
    store(&b, b.body, a2, 15);
    CHECK(plan(&b, 0, NULL) == PTO_OK);
    CHECK(b.m->tiles[l1].offset[0] == 0 && b.m->tiles[l2].offset[0] == 1024);
    CHECK(b.m->tiles[a1].offset[0] == 0 && b.m->tiles[a2].offset[0] == 2048);
    CHECK(b.m->tiles[r].offset[0] == 0 && b.m->tiles[mt].offset[0] == 0);
    pto_module_destroy(b.m);
}

/* ---- the checker on its own --------------------------------------------------- */

static void test_checker_plants(pto_ctx *ctx)
{
    int32_t ts[3];
    kb b = sequential(ctx, 0, ts);
    CHECK(plan(&b, 0, NULL) == PTO_OK);
    b.m->tiles[ts[1]].planned = 0;
    CHECK(recheck(&b) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "tile 't2' (vec) is not planned");
    b.m->tiles[ts[1]].planned = 1;
    b.m->tiles[ts[2]].offset[0] = 0x10010;
    CHECK(recheck(&b) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "tile 't3' slot 0 at 0x10010 is not 32-byte aligned");
    b.m->tiles[ts[2]].offset[0] = 196608 - 4096;
    CHECK(recheck(&b) == PTO_ERR_USER);
    CHECK_STR(err0(ctx), "tile 't3' slot 0 [0x2f000, 0x31000) is outside vec (196608 usable bytes)");
    b.m->tiles[ts[2]].offset[0] = 0;  /* sequential tiles may share: fine */
    CHECK(recheck(&b) == PTO_OK);
    pto_module_destroy(b.m);
}

/* ---- report, determinism ------------------------------------------------------ */

static void test_report(pto_ctx *ctx)
{
    int32_t ts[3];
    pto_plan_result r;
    pto_buf out;
    kb b = sequential(ctx, 0, ts);
    memset(&r, 0, sizeof r);
    memset(&out, 0, sizeof out);
    out.ctx = ctx;
    CHECK(plan(&b, 1, &r) == PTO_OK);
    pto_plan_report(b.m, &r, &out);
    CHECK(strstr(out.data, "  b = t2           vec    0x000000     8192  x1  lines 6-7\n") != NULL);
    CHECK(strstr(out.data, "  vec: peak 8192 of 196608 bytes (4.2%), lower bound 8192 (live at line 3)\n") != NULL);
    CHECK(strstr(out.data, "level tight") != NULL);
    CHECK(strstr(out.data, "    line    6 |bbb.....") != NULL);
    out.len = 0;
    pto_plan_svg(b.m, &out);
    CHECK(strncmp(out.data, "<svg", 4) == 0 && strstr(out.data, "</svg>") != NULL);
    pto_buf_free(&out);
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(b.m);
}

static void test_deterministic(pto_ctx *ctx)
{
    int32_t ts[24];
    int64_t first[24];
    int i, same = 1;
    kb b = all_live(ctx, 20, ts);
    CHECK(plan(&b, 0, NULL) == PTO_OK);
    for (i = 0; i < 20; i++) first[i] = b.m->tiles[ts[i]].offset[0];
    CHECK(plan(&b, 0, NULL) == PTO_OK);
    for (i = 0; i < 20; i++) same &= first[i] == b.m->tiles[ts[i]].offset[0];
    CHECK(same);
    pto_module_destroy(b.m);
}

int main(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    g_file = pto_file_add(ctx, "t.pto");
    test_fill_ub_exactly(ctx);
    test_overflow_message(ctx);
    test_overflow_largest_first(ctx);
    test_overflow_fragmentation(ctx);
    test_offset0_next_to_multibuffer(ctx);
    test_sequential_reuse(ctx);
    test_level_fallback(ctx);
    test_two_holes(ctx);
    test_loop_carried(ctx);
    test_multibuffer_whole_loop(ctx);
    test_if_branches(ctx);
    test_pins(ctx);
    test_pipe_room(ctx, 19);
    test_pipe_room(ctx, 20);
    test_pipe_split_room(ctx);
    test_pipe_split_fits(ctx);
    test_pipe_overflow_names_pipe(ctx, 5);
    test_pipe_overflow_names_pipe(ctx, 7);
    test_granules(ctx);
    test_checker_plants(ctx);
    test_report(ctx);
    test_deterministic(ctx);
    pto_ctx_destroy(ctx);
    return TEST_END();
}
