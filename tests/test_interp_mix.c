/* test_interp_mix.c - the reference interpreter on mix kernels: pipes are
   FIFOs between the cube section and the two AIVs (subblock 0 and 1), in
   either order and both directions, with split halves; a kernel whose
   cores can never all finish is a deadlock error at the waiting op. Golden
   values are computed here independently of the interpreter. */
#include "tests/check.h"
#define PTO_IMPLEMENTATION
#include "pto.h"

static pto_ctx *ctx;

static pto_module *parse(const char *src)
{
    pto_module *m = pto_parse(ctx, "t.pto", src, strlen(src));
    if (m && pto_verify(ctx, m) != PTO_OK) { pto_module_destroy(m); return NULL; }
    return m;
}

static pto_status run(pto_module *m, void **tensors)
{
    pto_launch L;
    memset(&L, 0, sizeof L);
    L.kernel = 0;
    L.tensors = tensors;
    return pto_interp(ctx, m, &L);
}

/* c2v, split up_down: the cube pushes x (through acc via an identity
   matmul), AIV s pops rows [32 s, 32 s + 32) and stores them times (s + 1). */
static const char *c2v_src =
    "kernel k(in x: f32[64, 64], in e: f32[64, 64], out y: f32[64, 64]) mix {\n"
    "  pipe q: c2v f32[64, 64] split(up_down)\n"
    "  vector {\n"                      /* the consumer is written first */
    "    tile t: vec f32[32, 64]\n"
    "    tile o: vec f32[32, 64]\n"
    "    tpop t, q\n"
    "    if subblock == 0 {\n"
    "      tmuls o, t, 1.0\n"
    "    } else {\n"
    "      tmuls o, t, 2.0\n"
    "    }\n"
    "    tfree q\n"
    "    tstore y[subblock * 32, 0], o\n"
    "  }\n"
    "  cube {\n"
    "    tile xm: mat f32[64, 64]\n"
    "    tile em: mat f32[64, 64]\n"
    "    tile xl: left f32[64, 64]\n"
    "    tile er: right f32[64, 64]\n"
    "    tile acc: acc f32[64, 64]\n"
    "    tload xm, x[0, 0]\n"
    "    tload em, e[0, 0]\n"
    "    tmov xl, xm\n"
    "    tmov er, em\n"
    "    tmatmul acc, xl, er\n"
    "    tpush q, acc\n"
    "  }\n"
    "}\n";

static void test_c2v(void)
{
    static float x[64 * 64], e[64 * 64], y[64 * 64];
    void *t[3];
    pto_module *m = parse(c2v_src);
    int i, bad = 0;
    CHECK(m != NULL);
    if (!m) return;
    for (i = 0; i < 64 * 64; i++) { x[i] = (float)(i % 97) - 40.0f; e[i] = i / 64 == i % 64 ? 1.0f : 0.0f; }
    t[0] = x, t[1] = e, t[2] = y;
    CHECK(run(m, t) == PTO_OK);
    for (i = 0; i < 64 * 64; i++) bad += y[i] != x[i] * (i / 64 < 32 ? 1.0f : 2.0f);
    CHECK(bad == 0);
    pto_module_destroy(m);
}

/* A consumer whose producer never pushes: a deadlock at the tpop, which
   names the producer, its count and that it ended. The pop
   sits under `if block == 0`, so how many there are is known only at run
   time and the verifier lets it through (counts known before the run that
   differ are its error: tests/bad/pipe_unbalanced.pto). */
static void test_deadlock(void)
{
    static float x[64 * 64], y[64 * 64];
    void *t[2];
    const char *src =
        "kernel k(in x: f32[64, 64], out y: f32[64, 64]) mix {\n"
        "  pipe q: c2v f32[64, 64] split(up_down)\n"
        "  cube {\n"
        "  }\n"
        "  vector {\n"
        "    tile t: vec f32[32, 64]\n"
        "    if block == 0 {\n"
        "      tpop t, q\n"
        "      tfree q\n"
        "      tstore y[subblock * 32, 0], t\n"
        "    }\n"
        "  }\n"
        "}\n";
    pto_module *m = parse(src);
    CHECK(m != NULL);
    if (!m) return;
    t[0] = x, t[1] = y;
    CHECK(run(m, t) == PTO_ERR_USER);
    {
        char buf[300] = "";
        if (pto_diag_count(ctx) > 0) pto_diag_format(ctx, pto_diag_get(ctx, 0), buf, sizeof buf);
        CHECK_STR(buf, "t.pto:8:7: error: deadlock: this tpop on AIV 0 (subblock 0) waits forever: it needs tile 1 of "
                       "pipe 'q' (c2v), which the cube core has pushed 0 of, and it has ended");
    }
    pto_module_destroy(m);
}

/* Slots pushed and never popped, counts known only at launch (the cube
   pops n - 1 of n): an error at the pipe naming both sides and the counts. */
static void test_leftover(void)
{
    static float x[64 * 64], y[64 * 64];
    void *t[2];
    pto_binding b;
    pto_launch L;
    const char *src =
        "kernel k(in x: f32[64, 64], out y: f32[64, 64], scalar n: i32) mix {\n"
        "  pipe q: v2c f32[64, 64] split(up_down)\n"
        "  cube {\n"
        "    for i = 0 to n - 1 {\n"
        "      tile m: mat f32[64, 64]\n"
        "      tpop m, q\n"
        "      tfree q\n"
        "    }\n"
        "  }\n"
        "  vector {\n"
        "    tile t: vec f32[32, 64]\n"
        "    tload t, x[subblock * 32, 0]\n"
        "    for i = 0 to n {\n"
        "      tpush q, t\n"
        "    }\n"
        "    tstore y[subblock * 32, 0], t\n"
        "  }\n"
        "}\n";
    pto_module *m = parse(src);
    char buf[400] = "";
    CHECK(m != NULL);
    if (!m) return;
    t[0] = x, t[1] = y;
    b.name = "n", b.value = 4;
    memset(&L, 0, sizeof L);
    L.kernel = 0, L.tensors = t, L.bindings = &b, L.nbindings = 1;
    pto_diag_clear(ctx);
    CHECK(pto_interp(ctx, m, &L) == PTO_ERR_USER);
    if (pto_diag_count(ctx) > 0) pto_diag_format(ctx, pto_diag_get(ctx, 0), buf, sizeof buf);
    CHECK_STR(buf, "t.pto:2:8: error: pipe 'q' (v2c): the vector section pushed 4 tiles but the cube core popped 3: 1 "
                   "left in its FIFO when the block ends (every tpush needs its tpop)");
    /* the instruction budget stops the cores of a cluster inside a loop */
    pto_diag_clear(ctx);
    L.max_instr = 5;
    CHECK(pto_interp(ctx, m, &L) == PTO_ERR_USER);
    buf[0] = 0;
    if (pto_diag_count(ctx) > 0) pto_diag_format(ctx, pto_diag_get(ctx, 0), buf, sizeof buf);
    CHECK_MSG(strstr(buf, "error: kernel 'k' ran more than 5 instructions (the instruction budget, over every block); "
                          "this loop was running: a runaway loop?") != NULL, "%s", buf);
    pto_diag_clear(ctx);
    pto_module_destroy(m);
}

/* An error on one core of a cluster names that core in its note: here AIV 1,
   whose valid row count is negative (rows 32 - 40 of a 40-row tensor). */
static void test_error_names_core(void)
{
    static float x[40 * 64], y[40 * 64];
    void *t[3];
    const char *src =
        "kernel k(in x: f32[40, 64], out y: f32[40, 64], scalar n: i32) mix {\n"
        "  cube {\n"
        "  }\n"
        "  vector {\n"
        "    tile v: vec f32[32, 64] valid(min(32, n - 48 * subblock), 64)\n"
        "    tload v, x[0, 0]\n"
        "    tstore y[0, 0], v\n"
        "  }\n"
        "}\n";
    pto_module *m = parse(src);
    pto_binding bind = {"n", 40.0};
    int nd = pto_diag_count(ctx);   /* the context keeps earlier tests' diagnostics */
    CHECK(m != NULL);
    if (!m) return;
    t[0] = x, t[1] = y, t[2] = NULL;
    {
        pto_launch L;
        memset(&L, 0, sizeof L);
        L.kernel = 0;
        L.tensors = t;
        L.bindings = &bind;
        L.nbindings = 1;
        CHECK(pto_interp(ctx, m, &L) == PTO_ERR_USER);
    }
    {
        char buf[300] = "";
        if (pto_diag_count(ctx) > nd + 1) pto_diag_format(ctx, pto_diag_get(ctx, nd + 1), buf, sizeof buf);
        CHECK_STR(buf, "t.pto:1:8: note: in block 0 (AIV 1, subblock 1) of kernel 'k'");
    }
    pto_module_destroy(m);
}

/* The ring is bounded: with slots(2) the cube's third push waits until an
   AIV frees; a producer of 6 tiles still completes, in order. */
static void test_bounded(void)
{
    static float x[64 * 64], e[64 * 64], y[6 * 64 * 64];
    void *t[3];
    const char *src =
        "kernel k(in x: f32[64, 64], in e: f32[64, 64], out y: f32[384, 64]) mix {\n"
        "  pipe q: c2v f32[64, 64] slots(2) local_slots(1)\n"
        "  cube {\n"
        "    tile xm: mat f32[64, 64]\n"
        "    tile em: mat f32[64, 64]\n"
        "    tile xl: left f32[64, 64]\n"
        "    tile er: right f32[64, 64]\n"
        "    tload em, e[0, 0]\n"
        "    tmov er, em\n"
        "    tload xm, x[0, 0]\n"
        "    tmov xl, xm\n"
        "    for i = 0 to 6 {\n"
        "      tile acc: acc f32[64, 64]\n"
        "      tmatmul acc, xl, er\n"
        "      tpush q, acc\n"
        "    }\n"
        "  }\n"
        "  vector {\n"
        "    for i = 0 to 6 {\n"
        "      tile t: vec f32[64, 64]\n"
        "      tile o: vec f32[64, 64]\n"
        "      tpop t, q\n"
        "      tadds o, t, 1.0\n"
        "      tfree q\n"
        "      if subblock == 0 {\n"
        "        tstore y[i * 64, 0], o\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n";
    pto_module *m = parse(src);
    int i, bad = 0;
    CHECK(m != NULL);
    if (!m) return;
    for (i = 0; i < 64 * 64; i++) { x[i] = (float)(i % 13); e[i] = i / 64 == i % 64 ? 1.0f : 0.0f; }
    t[0] = x, t[1] = e, t[2] = y;
    CHECK(run(m, t) == PTO_OK);
    for (i = 0; i < 6 * 64 * 64; i++) bad += y[i] != x[i % (64 * 64)] + 1.0f;
    CHECK(bad == 0);
    pto_module_destroy(m);
}

/* Flag ids: two per one-way pipe, four per both pipe, in declaration
   order, skipping a2a3's reserved 11..14; -1 once none is left. Counts
   are stored normalised. */
static void test_flags(void)
{
    pto_loc l = {0, 1, 1};
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "k", PTO_KK_MIX, l), i, q[8];
    for (i = 0; i < 6; i++) q[i] = pto_add_cvpipe(m, k, i ? "q" : "p", PTO_C2V, PTO_F32, 8, 8, 0, 0, PTO_SPLIT_NONE, l);
    CHECK(m->cvpipes[q[0]].flag_id == 0 && m->cvpipes[q[1]].flag_id == 2 && m->cvpipes[q[4]].flag_id == 8);
    CHECK(m->cvpipes[q[5]].flag_id == -1);   /* 10..11 hits 11, 15..16 is past 15 */
    CHECK(m->cvpipes[q[0]].slot_num == 8 && m->cvpipes[q[0]].local_slot_num == 2 && m->cvpipes[q[0]].slot_size == 256);
    CHECK(m->cvpipes[q[5]].ring == 5);
    pto_module_destroy(m);
    m = pto_module_create(ctx, PTO_ARCH_A2A3);
    k = pto_add_kernel(m, "k", PTO_KK_MIX, l);
    q[0] = pto_add_cvpipe(m, k, "a", PTO_BOTH, PTO_F32, 8, 8, 0, 0, PTO_SPLIT_NONE, l);
    q[1] = pto_add_cvpipe(m, k, "b", PTO_BOTH, PTO_F32, 8, 8, 0, 0, PTO_SPLIT_NONE, l);
    q[2] = pto_add_cvpipe(m, k, "c", PTO_BOTH, PTO_F32, 8, 8, 0, 0, PTO_SPLIT_NONE, l);
    CHECK(m->cvpipes[q[0]].flag_id == 0 && m->cvpipes[q[1]].flag_id == 4 && m->cvpipes[q[2]].flag_id == -1);
    CHECK(m->cvpipes[q[0]].slot_num == 4);
    CHECK(pto_cvpipe_gm_bytes(&m->cvpipes[q[0]]) == 2 * 4 * 256 && pto_cvpipe_gm_offset(m, q[1]) == 2048);
    pto_module_destroy(m);
    m = pto_module_create(ctx, PTO_ARCH_A5);   /* no reserved ids: eight one-way pipes */
    k = pto_add_kernel(m, "k", PTO_KK_MIX, l);
    for (i = 0; i < 8; i++) q[i] = pto_add_cvpipe(m, k, "q", PTO_V2C, PTO_F32, 8, 8, 4, 1, PTO_SPLIT_NONE, l);
    CHECK(m->cvpipes[q[7]].flag_id == 14 && m->cvpipes[q[5]].flag_id == 10);
    CHECK(m->cvpipes[q[0]].slot_num == 4 && m->cvpipes[q[0]].local_slot_num == 1);
    pto_module_destroy(m);
}

int main(void)
{
    ctx = pto_ctx_create(NULL);
    test_flags();
    pto_ctx_destroy(ctx);
    ctx = pto_ctx_create(NULL);
    test_c2v();
    pto_ctx_destroy(ctx);
    ctx = pto_ctx_create(NULL);
    test_deadlock();
    test_leftover();
    test_error_names_core();
    pto_ctx_destroy(ctx);
    ctx = pto_ctx_create(NULL);
    test_bounded();
    pto_ctx_destroy(ctx);
    return TEST_END();
}
