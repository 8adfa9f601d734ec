/* test_lower.c - the lowering pass and the interpreter's communication.
   - the lowered module verifies again, has no tput / tget / allreduce left,
     a pipe_barrier ALL right before every notify, only GE waits of its
     own, and its staging tiles (origin lower) get planned; one moved onto
     a live tile is caught by pto_plan_check;
   - the interpreter on the lowered module (plain notify / wait / remote
     loads, ranks interleaved) gives the bits of the interpreter on the
     original (allreduce as a primitive), over shapes with chunk tails and
     1..5 ranks, and both equal a sum computed here in rank order;
   - tput / tget copy windows between ranks; notify set / add;
   - a wait nothing satisfies is a deadlock with its exact message, and a
     rank that finishes before an allreduce leaves the others deadlocked. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

/* pto_sync with its self-check on: an unordered dependency left by the
   inserter is PTO_ERR_INTERNAL here, not only a race in a simulator run. */
static const pto_sync_desc checked = {0, NULL, 1};

static pto_module *build(pto_ctx *ctx, const char *text)
{
    pto_module *m = pto_parse(ctx, "t.pto", text, strlen(text));
    if (!m || pto_verify(ctx, m) != PTO_OK) {
        pto_diag_print(ctx, stdout);
        pto_module_destroy(m);
        return NULL;
    }
    return m;
}

static int count_op(const pto_module *m, pto_op op)
{
    int32_t s, n = 0;
    for (s = 0; s < m->n_stmts; s++)
        n += m->stmts[s].block >= 0 && m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == op;
    return n;
}

/* IR shape of a lowered allreduce + tput. */
static void test_shape(void)
{
    static const char *src =
        "kernel k(inout g: f32[40, 100] window, inout sig: i32[1, 8] window, in x: f32[40, 100],\n"
        "         inout y: f32[40, 100] window) vector ranks {\n"
        "  tile a: vec f32[40, 104] valid(40, 100)\n"
        "  tload a, x[0, 0]\n"
        "  tput y@(rank + 1) % nranks[0, 0], x[0, 0], 40, 100\n"
        "  allreduce g, sig\n"
        "  notify sig@0[0, 1], 1, set\n"
        "  tstore g[0, 0], a\n"
        "}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = build(ctx, src);
    int32_t s, t, fenced = 1, ge = 1, lt = 0, staged = 0, a = -1, stage = -1;
    CHECK(m != NULL);
    if (!m) { pto_ctx_destroy(ctx); return; }
    CHECK(pto_lower(ctx, m) == PTO_OK);
    CHECK(count_op(m, PTO_OP_TPUT) == 0 && count_op(m, PTO_OP_ALLREDUCE) == 0);
    CHECK(count_op(m, PTO_OP_NOTIFY) == 4); /* publish, post-reduce, reset, the user's */
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int32_t prev = st->prev;
        if (st->block < 0 || st->kind != PTO_ST_OP) continue;
        if (st->op == PTO_OP_NOTIFY) {
            /* the fence is right before it, or right before its loop */
            if (prev < 0 && m->blocks[st->block].owner >= 0) prev = m->stmts[m->blocks[st->block].owner].prev;
            fenced &= prev >= 0 && m->stmts[prev].kind == PTO_ST_OP && m->stmts[prev].op == PTO_OP_PIPE_BARRIER &&
                      pto_stmt_arg(m, prev, 0)->ref == PTO_PIPE_ALL &&
                      strstr(pto_str(ctx, m->stmts[prev].note), "inserted by lower") != NULL;
        }
        /* counting waits are GE; the one LT wait per allreduce waits for an earlier one's subtract */
        if (st->op == PTO_OP_WAIT && pto_stmt_arg(m, s, 1)->ref == PTO_LT) lt++;
        else if (st->op == PTO_OP_WAIT) ge &= pto_stmt_arg(m, s, 1)->ref == PTO_GE;
    }
    CHECK(fenced);
    CHECK(ge);
    CHECK(lt == 1);
    pto_diag_clear(ctx);
    CHECK(pto_verify(ctx, m) == PTO_OK); /* the lowered module is valid IR */
    pto_diag_print(ctx, stdout);
    CHECK(pto_plan(ctx, m, NULL) == PTO_OK && pto_plan_check(ctx, m) == PTO_OK);
    for (t = 0; t < m->n_tiles; t++) {
        if (m->tiles[t].origin == PTO_BY_LOWER) staged += m->tiles[t].planned;
        if (strcmp(pto_str(ctx, m->tiles[t].name), "a") == 0) a = t;
        if (strstr(pto_str(ctx, m->tiles[t].name), "_stage")) stage = t;
    }
    CHECK(staged == 3); /* the tput stage, allreduce acc and peer */
    CHECK(a >= 0 && stage >= 0 && m->tiles[stage].origin == PTO_BY_LOWER);
    if (a >= 0 && stage >= 0) {
        /* a is live across the tput: a staging tile on top of it is caught */
        m->tiles[stage].offset[0] = m->tiles[a].offset[0];
        CHECK(pto_plan_check(ctx, m) != PTO_OK);
        pto_diag_clear(ctx);
    }
    CHECK(pto_sync(ctx, m, &checked) != PTO_ERR_INTERNAL);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Builds src into *m and lowers it, prints it into *text and parses and
   verifies that text: the module it gives (NULL when it did not). */
static pto_module *lower_and_reread(pto_ctx *ctx, const char *src, pto_module **m, pto_buf *text)
{
    memset(text, 0, sizeof *text);
    *m = build(ctx, src);
    CHECK(*m != NULL && pto_lower(ctx, *m) == PTO_OK);
    if (!*m) return NULL;
    pto_print(*m, text);
    return build(ctx, text->data);
}

/* Lowering the printed lowered module again adds no fence: lower's own
   signal loops (fence; for p { notify }) count as fenced, a user notify
   after other work still gets one. */
static void test_relower(void)
{
    static const char *src =
        "kernel k(inout g: f32[40, 100] window, inout sig: i32[1, 8] window) vector ranks {\n"
        "  allreduce g, sig\n"
        "  for p = 0 to nranks {\n"
        "    notify sig@p[0, 1], 1, add\n"
        "  }\n"
        "}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = NULL, *m2 = NULL;
    pto_buf text;
    int n1 = -1, n2 = -2;
    m2 = lower_and_reread(ctx, src, &m, &text);
    if (m) n1 = count_op(m, PTO_OP_PIPE_BARRIER);
    CHECK(m2 != NULL && pto_lower(ctx, m2) == PTO_OK);
    if (m2) n2 = count_op(m2, PTO_OP_PIPE_BARRIER);
    CHECK(n1 == 4); /* publish, post-reduce, reset and the user's loop */
    CHECK(n2 == n1);
    pto_diag_print(ctx, stdout);
    pto_buf_free(&text);
    pto_module_destroy(m);
    pto_module_destroy(m2);
    pto_ctx_destroy(ctx);
}

/* The lowering's names never meet the user's: a user tile __ar1_acc next
   to the allreduce at statement 1 (review20 L2): the printed lowered module
   parses back. */
static void test_fresh_names(void)
{
    static const char *src =
        "kernel k(inout g: f32[32, 64] window, inout sig: i32[1, 8] window, out z: f32[32, 64]) vector ranks {\n"
        "  tile __ar1_acc: vec f32[32, 64]\n"
        "  allreduce g, sig\n"
        "  tload __ar1_acc, g[0, 0]\n"
        "  tstore z[0, 0], __ar1_acc\n"
        "}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = NULL, *m2;
    pto_buf text;
    m2 = lower_and_reread(ctx, src, &m, &text);
    CHECK(m2 != NULL);
    CHECK(text.data && strstr(text.data, "__ar1x_acc") != NULL);
    pto_buf_free(&text);
    pto_module_destroy(m);
    pto_module_destroy(m2);
    pto_ctx_destroy(ctx);
}

/* ---- interpreter: original against lowered ---------------------------------- */

typedef struct arun {
    int nr, np;
    void *t[8 * 4];
} arun;

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    return z ^ (z >> 27);
}

/* params: g f32[R, C] window, sig i32[1, 8] window, x f32[R, C] */
static void arun_init(arun *a, int nr, int R, int C, uint64_t seed)
{
    int r, i;
    a->nr = nr;
    a->np = 3;
    for (r = 0; r < nr; r++) {
        float *g = (float *)calloc((size_t)(R * C), 4), *x = (float *)calloc((size_t)(R * C), 4);
        for (i = 0; i < R * C; i++) {
            g[i] = (float)((int)(rng(&seed) % 2001) - 1000) / 7.0f;
            x[i] = (float)((int)(rng(&seed) % 2001) - 1000) / 3.0f;
        }
        a->t[r * 3 + 0] = g;
        a->t[r * 3 + 1] = calloc(8, 4);
        a->t[r * 3 + 2] = x;
    }
}

static void arun_free(arun *a)
{
    int i;
    for (i = 0; i < a->nr * a->np; i++) free(a->t[i]);
}

static pto_status arun_go(pto_ctx *ctx, const pto_module *m, arun *a)
{
    pto_launch L;
    memset(&L, 0, sizeof L);
    L.kernel = 0;
    L.tensors = a->t;
    L.nranks = a->nr;
    return pto_interp(ctx, m, &L);
}

static void test_differential(void)
{
    static const int shapes[][2] = {{16, 64}, {40, 100}, {33, 1000}, {3, 5000}, {1, 8}};
    int si, nr, bad = 0, runs = 0, golden_bad = 0;
    for (si = 0; si < 5; si++) {
        for (nr = 1; nr <= 5; nr++) {
            char src[600];
            int R = shapes[si][0], C = shapes[si][1], r, i;
            pto_ctx *ctx = pto_ctx_create(NULL);
            pto_module *m0, *m1;
            arun a, b;
            snprintf(src, sizeof src,
                     "kernel k(inout g: f32[%d, %d] window, inout sig: i32[1, 8] window, in x: f32[%d, %d] window) vector ranks {\n"
                     "  allreduce g, sig\n"
                     "  tget g[0, 0], x@(rank + 1) %% nranks[0, 0], %d, %d\n"
                     "  allreduce g, sig\n"
                     "}\n", R, C, R, C, R, C);
            m0 = build(ctx, src);
            m1 = build(ctx, src);
            if (!m0 || !m1 || pto_lower(ctx, m1) != PTO_OK) {
                CHECK_MSG(0, "shape %d ranks %d: no module", si, nr);
                pto_module_destroy(m0);
                pto_module_destroy(m1);
                pto_ctx_destroy(ctx);
                continue;
            }
            arun_init(&a, nr, R, C, (uint64_t)(si * 10 + nr));
            arun_init(&b, nr, R, C, (uint64_t)(si * 10 + nr));
            CHECK(arun_go(ctx, m0, &a) == PTO_OK);
            CHECK(arun_go(ctx, m1, &b) == PTO_OK);
            pto_diag_print(ctx, stdout);
            for (r = 0; r < nr; r++) {
                bad += memcmp(a.t[r * 3], b.t[r * 3], (size_t)(R * C) * 4) != 0;
                bad += memcmp(a.t[r * 3 + 1], b.t[r * 3 + 1], 32) != 0; /* the signal is back at zero */
                bad += ((int32_t *)b.t[r * 3 + 1])[0] != 0;
            }
            /* golden: the next rank's x summed in rank order, in f32 */
            for (i = 0; i < R * C; i++) {
                float want = 0.0f;
                for (r = 0; r < nr; r++) {
                    float v = ((float *)b.t[((r + 1) % nr) * 3 + 2])[i];
                    want = r == 0 ? v : want + v;
                }
                for (r = 0; r < nr; r++) golden_bad += ((float *)b.t[r * 3])[i] != want;
            }
            runs++;
            arun_free(&a);
            arun_free(&b);
            pto_module_destroy(m0);
            pto_module_destroy(m1);
            pto_ctx_destroy(ctx);
        }
    }
    CHECK(runs == 25);
    CHECK(bad == 0);
    CHECK(golden_bad == 0);
}

/* ---- interpreter: signals and deadlocks ------------------------------------ */

static const char *first_diag(pto_ctx *ctx, char *buf, size_t n)
{
    buf[0] = 0;
    if (pto_diag_count(ctx) > 0) pto_diag_format(ctx, pto_diag_get(ctx, 0), buf, n);
    return buf;
}

static void test_signals(void)
{
    /* rank r adds r + 1 into rank 0's cell [0, 1], sets its own cell [0, 2]
       to 7; rank 0 waits for the sum, then copies it into y via tput */
    static const char *src =
        "kernel k(inout s: i32[1, 8] window, inout y: i32[1, 8] window) vector ranks {\n"
        "  notify s@0[0, 1], rank + 1, add\n"
        "  notify s[0, 2], 7, set\n"
        "  if rank == 0 {\n"
        "    wait s[0, 1], eq, nranks * (nranks + 1) / 2\n"
        "    tput y@(nranks - 1)[0, 0], s[0, 0], 1, 8\n"
        "  }\n"
        "}\n";
    static const char *dead =
        "kernel k(inout s: i32[1, 8] window) vector ranks {\n"
        "  notify s@0[0, 0], 1, add\n"
        "  wait s[0, 0], ge, nranks\n"
        "}\n";
    static const char *ardead =
        "kernel k(inout g: f32[8, 8] window, inout sig: i32[1, 8] window) vector ranks {\n"
        "  if rank != 1 {\n"
        "    allreduce g, sig\n"
        "  }\n"
        "}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = build(ctx, src);
    int32_t cells[3][2][8];
    void *t[6];
    pto_launch L;
    char msg[600];
    int r;
    memset(cells, 0, sizeof cells);
    for (r = 0; r < 3; r++) t[r * 2] = cells[r][0], t[r * 2 + 1] = cells[r][1];
    memset(&L, 0, sizeof L);
    L.tensors = t;
    L.nranks = 3;
    CHECK(m && pto_interp(ctx, m, &L) == PTO_OK);
    CHECK(cells[0][0][1] == 6 && cells[1][0][1] == 0);
    CHECK(cells[0][0][2] == 7 && cells[1][0][2] == 7 && cells[2][0][2] == 7);
    CHECK(cells[2][1][1] == 6 && cells[2][1][2] == 7 && cells[0][1][1] == 0);
    pto_module_destroy(m);

    /* every rank counts itself into rank 0's cell only: rank 0 goes on,
       ranks 1 and 2 wait forever */
    m = build(ctx, dead);
    memset(cells, 0, sizeof cells);
    pto_diag_clear(ctx);
    CHECK(m && pto_interp(ctx, m, &L) == PTO_ERR_USER);
    CHECK_STR(first_diag(ctx, msg, sizeof msg),
              "t.pto:3:3: error: deadlock: wait s[0, 0], ge, 3 on rank 1 never returns: the cell holds 0 and no rank "
              "can change it (every other rank has finished or waits too)");
    CHECK(cells[0][0][0] == 3);
    pto_module_destroy(m);

    m = build(ctx, ardead);
    pto_diag_clear(ctx);
    {
        float g[3][64];
        int32_t sg[3][8];
        memset(g, 0, sizeof g);
        memset(sg, 0, sizeof sg);
        for (r = 0; r < 3; r++) t[r * 2] = g[r], t[r * 2 + 1] = sg[r];
        CHECK(m && pto_interp(ctx, m, &L) == PTO_ERR_USER);
        CHECK_STR(first_diag(ctx, msg, sizeof msg),
                  "t.pto:3:5: error: deadlock: allreduce on rank 0 waits for every rank, but rank 1 has finished "
                  "without reaching it");
    }
    pto_module_destroy(m);

    /* a signal whose counting cell does not start at 0: the lowered
       allreduce would wait forever on a device (its first wait is "fewer
       than n ranks arrived"), so the reference refuses it too (found by
       tests/fuzz/fuzz_interp.c: the source ran, the lowered module hung) */
    m = build(ctx,
              "kernel k(inout g: f32[8, 8] window, inout sig: i32[1, 8] window) vector ranks {\n"
              "  allreduce g, sig\n"
              "}\n");
    pto_diag_clear(ctx);
    {
        float g[3][64];
        int32_t sg[3][8];
        memset(g, 0, sizeof g);
        memset(sg, 0, sizeof sg);
        sg[2][0] = 5;
        sg[0][1] = 9;   /* other cells are the user's */
        for (r = 0; r < 3; r++) t[r * 2] = g[r], t[r * 2 + 1] = sg[r];
        CHECK(m && pto_interp(ctx, m, &L) == PTO_ERR_USER);
        CHECK_STR(first_diag(ctx, msg, sizeof msg),
                  "t.pto:2:3: error: allreduce: cell [0, 0] of its signal 'sig' holds 5 on rank 2, not 0: it counts "
                  "the allreduce's barriers, so it must be 0 when the kernel starts (every allreduce leaves it at 0 "
                  "again; zero the signal tensor before the launch)");
        sg[2][0] = 0;
        pto_diag_clear(ctx);
        CHECK(pto_interp(ctx, m, &L) == PTO_OK);
    }
    pto_module_destroy(m);

    /* block 0 of every rank waits for block 1's notify: the reference runs a
       rank's blocks in order, so it never comes; the error says so (it
       said "no rank can change it", which later blocks could: review21 L8),
       then where the other ranks wait */
    m = build(ctx,
              "kernel k(inout s: i32[1, 8] window) vector ranks blocks(2) {\n"
              "  if block == 1 {\n"
              "    notify s[0, 1], 1, add\n"
              "  }\n"
              "  wait s[0, 1], ge, 1\n"
              "}\n");
    pto_diag_clear(ctx);
    {
        int32_t sg[3][8];
        memset(sg, 0, sizeof sg);
        for (r = 0; r < 3; r++) t[r] = sg[r];
        CHECK(m && pto_interp(ctx, m, &L) == PTO_ERR_USER);
        CHECK_STR(first_diag(ctx, msg, sizeof msg),
                  "t.pto:5:3: error: the reference cannot run this kernel: wait s[0, 1], ge, 1 on rank 0 (block 0 of 2) "
                  "never returns: the cell holds 0, and the ranks still running have not started block 1: the "
                  "reference interpreter runs a rank's blocks one after another, so a wait cannot count on a notify "
                  "of a later block (on the device the blocks run at once while they fit the cores, as on the "
                  "simulator)");
        msg[0] = 0;
        if (pto_diag_count(ctx) > 0) pto_diag_format(ctx, pto_diag_get(ctx, pto_diag_count(ctx) - 1), msg, sizeof msg);
        CHECK_STR(msg, "t.pto:5:3: note: rank 2 waits here");
    }
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* The isa target's padding fills (lower.c, "the isa target's padding
   fills"): a tfillpad right after each tload whose padding an op reads, on
   V for a vec tile and MTE2 for a mat tile, none for the simulator target,
   none where no op reads past the valid region; pto_emit_isa refuses a
   module lowered without them, pto_emit one lowered with them, and a
   kernel may not write tfillpad itself. */
static void test_fillpad(void)
{
    static const char *src =
        "kernel k(in x: f32[40, 64], out s: f32[16, 1], out y: f32[40, 64]) vector {\n"
        "  let nr = 40 - 32\n"
        "  tile t: vec f32[16, 64] valid(nr, 64)\n"
        "  tile rs: vec f32[16, 1]\n"
        "  tload t, x[32, 0]\n"
        "  trowsum rs, t\n"
        "  tstore s[0, 0], rs\n"
        "  tile u: vec f32[16, 64] valid(nr, 64)\n"
        "  tile w: vec f32[16, 64] valid(40 - 32, 64)\n"
        "  tload u, x[32, 0]\n"
        "  tadds w, u, 1.0\n"
        "  tstore y[32, 0], w\n"
        "}\n"
        "kernel c(in a: f16[64, 40], in b: f16[40, 64], out z: f32[64, 64]) cube {\n"
        "  tile a1: mat f16[64, 64] valid(64, 40)\n"
        "  tile b1: mat f16[64, 64] valid(40, 64)\n"
        "  tile a0: left f16[64, 64]\n"
        "  tile b0: right f16[64, 64]\n"
        "  tile acc: acc f32[64, 64]\n"
        "  tload a1, a[0, 0]\n"
        "  tload b1, b[0, 0]\n"
        "  tmov a0, a1\n"
        "  tmov b0, b1\n"
        "  tmatmul acc, a0, b0\n"
        "  tstore z[0, 0], acc\n"
        "}\n";
    static const char *user = "kernel k(in x: f32[16, 64]) vector {\n  tile t: vec f32[16, 64]\n  texpands t, 1.0\n"
                              "  tfillpad t\n}\n";
    /* an isa dump's fill, right after its tload (sync ops between): read back as lower's */
    static const char *dumped = "kernel k(in x: f32[16, 64], out s: f32[16, 1]) vector {\n"
                                "  tile t: vec f32[16, 64] valid(8, 64)\n  tile rs: vec f32[16, 1]\n"
                                "  tload t, x[0, 0]\n  set_flag MTE2, V, 0\n  wait_flag MTE2, V, 0\n"
                                "  tfillpad t\n  trowsum rs, t\n  tstore s[0, 0], rs\n}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = build(ctx, src);
    pto_compile_desc cd;
    pto_emit_desc ed;
    pto_buf kc;
    char msg[512];
    int32_t s, fills = 0, after_load = 1, pipes = 0;
    int k;
    CHECK(m && pto_lower(ctx, m) == PTO_OK && count_op(m, PTO_OP_TFILLPAD) == 0);
    pto_module_destroy(m);
    m = build(ctx, src);
    CHECK(m && pto_lower_for(ctx, m, PTO_TARGET_ISA) == PTO_OK);
    for (s = 0; m && s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_tile *t;
        int32_t p;
        if (st->block < 0 || st->kind != PTO_ST_OP || st->op != PTO_OP_TFILLPAD) continue;
        fills++;
        t = &m->tiles[pto_stmt_arg(m, s, 0)->ref];
        p = st->prev;
        after_load &= p >= 0 && m->stmts[p].op == PTO_OP_TLOAD && pto_stmt_arg(m, p, 0)->ref == pto_stmt_arg(m, s, 0)->ref &&
                      st->origin == PTO_BY_LOWER && st->note > 0;
        CHECK_MSG(strcmp(pto_str(ctx, t->name), "u") != 0, "u's padding is never read (tadds into w, rows nr = 8)");
        pipes |= 1 << pto_stmt_pipe(m, s);
        CHECK(pto_stmt_pipe(m, s) == (t->space == PTO_MAT ? PTO_PIPE_MTE2 : PTO_PIPE_V));
    }
    CHECK(fills == 3 && after_load);   /* t, a1, b1 */
    CHECK(pipes == (1 << PTO_PIPE_V | 1 << PTO_PIPE_MTE2));
    pto_module_destroy(m);

    /* compiled for the simulator, the isa emitter refuses it; for the isa
       target, the simulator emitter does */
    memset(&cd, 0, sizeof cd);
    memset(&ed, 0, sizeof ed);
    memset(&kc, 0, sizeof kc);
    cd.sync.check = 1;
    m = build(ctx, src);
    pto_diag_clear(ctx);
    CHECK(m && pto_compile(ctx, m, &cd) == PTO_OK);
    CHECK(m && pto_emit_isa(ctx, m, &ed, &kc) == PTO_ERR_USER);
    CHECK_STR(first_diag(ctx, msg, sizeof msg),
              "t.pto:5:3: error: emit (isa): tload into 't' is not followed by the fill of its padding, which an op "
              "reads: pto-isa's TLOAD moves the valid region only (compile the module for the isa target: "
              "pto_compile_desc.target = PTO_TARGET_ISA)");
    pto_module_destroy(m);
    pto_buf_free(&kc);
    cd.target = PTO_TARGET_ISA;
    m = build(ctx, src);
    pto_diag_clear(ctx);
    CHECK(m && pto_compile(ctx, m, &cd) == PTO_OK);
    CHECK(m && pto_emit_isa(ctx, m, &ed, &kc) == PTO_OK);
    CHECK(kc.data && strstr(kc.data, "pto::TFILLPAD_INPLACE(pto_pad_") && strstr(kc.data, "pto::TFILLPAD(a1, a1);"));
    pto_buf_free(&kc);
    CHECK(m && pto_emit(ctx, m, &ed, &kc, NULL) == PTO_ERR_USER);
    CHECK_STR(first_diag(ctx, msg, sizeof msg),
              "t.pto:5:3: error: emit: tfillpad is for the isa target (pto_compile_desc.target PTO_TARGET_ISA); "
              "lower the module for PTO_TARGET_SIM to emit it for the simulator");
    pto_buf_free(&kc);
    pto_module_destroy(m);

    /* a kernel does not write it */
    pto_diag_clear(ctx);
    m = pto_parse(ctx, "t.pto", user, strlen(user));
    CHECK(m && pto_verify(ctx, m) == PTO_ERR_USER);
    CHECK_STR(first_diag(ctx, msg, sizeof msg),
              "t.pto:4:3: error: tfillpad is not written in a kernel: tload already zeroes a tile outside its valid "
              "region (pto_lower adds tfillpad for the isa target, where TLOAD does not; a dump keeps it right "
              "after the tload of its tile, the one place it is read back)");
    pto_module_destroy(m);

    /* the dump's own fill: verifies; the sim target drops it, the isa target keeps it and adds none */
    for (k = 0; k < 2; k++) {
        int32_t f, nfill = 0;
        pto_diag_clear(ctx);
        m = pto_parse(ctx, "d.pto", dumped, strlen(dumped));
        CHECK(m && pto_verify(ctx, m) == PTO_OK);
        CHECK(m && pto_lower_for(ctx, m, k ? PTO_TARGET_ISA : PTO_TARGET_SIM) == PTO_OK);
        for (f = 0; m && f < m->n_stmts; f++)
            nfill += m->stmts[f].block >= 0 && m->stmts[f].kind == PTO_ST_OP && m->stmts[f].op == PTO_OP_TFILLPAD;
        CHECK(nfill == k);
        pto_module_destroy(m);
    }
    pto_ctx_destroy(ctx);
}

int main(void)
{
    test_shape();
    test_relower();
    test_fresh_names();
    test_differential();
    test_signals();
    test_fillpad();
    return TEST_END();
}
