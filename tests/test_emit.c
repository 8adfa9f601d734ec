/* test_emit.c - the emitter on modules built with the C API, planned and
   synchronised by hand (so these tests pin the emitter alone, whatever the
   planner and the sync pass decide):
   - golden sources of three small kernels (vector SPMD with a dynamic dim, a
     cube matmul with a K loop and if/else, a mix kernel with sections,
     renamed names and irregular slots) in tests/golden/; with
     PTO_UPDATE_GOLDEN=1 they are rewritten, otherwise a diff fails;
   - determinism: two builds in two contexts give byte-identical text;
   - exact lines for src strings, slots, names, notes, literals;
   - errors: an unplanned tile, a multi-slot tile outside a loop;
   - the full pipeline from .pto text: every flag and barrier is preceded by
     the sync pass's comment;
   - streaming (pto_buf.sink): pto_buf's staging across its boundaries, and
     every example (and a kernel whose text is many staging areas long)
     emitted through sinks of several staging sizes gives the text that one
     whole buffer gets, for both targets. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

#include <stdlib.h>

/* pto_sync with its self-check on: an unordered dependency left by the
   inserter is PTO_ERR_INTERNAL here, not only a race in a simulator run. */
static const pto_sync_desc checked = {0, NULL, 1};

/* a compound literal, not a function returning a pto_loc: tcc 0.9.27 (x86-64) stores such a
   12-byte result as 16 bytes, over a local of the caller (tests/tcc_ptoc_test.sh) */
#define L(m, line) ((pto_loc){(m)->file, (line), 3})

static int32_t I(pto_module *m, int64_t v) { pto_loc l = {0, 0, 0}; return pto_expr_int(m, v, l); }
static int32_t V(pto_module *m, int32_t var) { pto_loc l = {0, 0, 0}; return pto_expr_var(m, var, l); }
static int32_t B(pto_module *m, pto_expr_kind k, int32_t a, int32_t b) { pto_loc l = {0, 0, 0}; return pto_expr_bin(m, k, a, b, l); }
static int32_t BI(pto_module *m, pto_expr_kind k) { pto_loc l = {0, 0, 0}; return pto_expr_builtin(m, k, l); }

/* pto_add_let returns the statement; the tests want the var. */
static int32_t LET(pto_module *m, int32_t blk, const char *name, int32_t value, int line)
{
    int32_t s = pto_add_let(m, blk, name, value, L(m, line));
    return m->stmts[s].ref;
}

static void plan(pto_module *m, int32_t t, int64_t o0, int64_t o1, int64_t o2)
{
    m->tiles[t].planned = 1;
    m->tiles[t].offset[0] = o0;
    m->tiles[t].offset[1] = o1;
    m->tiles[t].offset[2] = o2;
}

static int32_t op(pto_module *m, int32_t blk, pto_op o, int line)
{
    return pto_add_op(m, blk, o, L(m, line));
}

/* A flag statement as the sync pass makes them: origin and note set. */
static void flag(pto_module *m, int32_t blk, pto_op o, pto_pipe a, pto_pipe b, int32_t id, int line, const char *note)
{
    int32_t s = op(m, blk, o, line);
    pto_arg_pipe(m, s, a, L(m, line));
    if (o != PTO_OP_PIPE_BARRIER) {
        pto_arg_pipe(m, s, b, L(m, line));
        pto_arg_int(m, s, id, L(m, line));
    }
    m->stmts[s].origin = PTO_BY_SYNC;
    m->stmts[s].note = pto_intern(m->ctx, note, strlen(note));
}

/* kernel gvadd(in x: f32[N, 256], out z: f32[N, 256], scalar alpha: f32)
     vector blocks(N / 16): two iterations of 8 rows per block, x2 tiles,
     valid rows min(8, N - r). */
/* A module built by hand is verified like a user's (pto_emit requires the
   stamp); a test of emit's own checks pokes the arrays after this. */
static pto_module *verified(pto_ctx *ctx, pto_module *m)
{
    if (pto_verify(ctx, m) != PTO_OK) {
        printf("verify: ");
        pto_diag_print(ctx, stdout);
        CHECK(0);
    }
    return m;
}

static pto_module *build_gvadd(pto_ctx *ctx)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k, x, z, n, alpha, f, body, r, a, b, s;
    m->file = pto_file_add(ctx, "gvadd.pto");
    k = pto_add_kernel(m, "gvadd", PTO_KK_VECTOR, L(m, 1));
    x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, -1, 256, L(m, 1));
    n = pto_set_dynamic_dim(m, x, 0, "N");
    z = pto_add_tensor_param(m, k, "z", PTO_OUT, PTO_F32, -1, 256, L(m, 1));
    pto_set_dynamic_dim(m, z, 0, "N");
    pto_add_scalar_param(m, k, "alpha", PTO_F32, L(m, 1));
    alpha = pto_find_var(m, k, "alpha");
    m->kernels[k].blocks = B(m, PTO_E_DIV, V(m, n), I(m, 16));
    f = pto_add_for(m, m->kernels[k].body, "i", I(m, 0), I(m, 2), -1, L(m, 2));
    body = m->stmts[f].body;
    r = LET(m, body, "r", B(m, PTO_E_ADD, B(m, PTO_E_MUL, BI(m, PTO_E_BLOCK), I(m, 16)),
                            B(m, PTO_E_MUL, V(m, m->stmts[f].ref), I(m, 8))), 3);
    a = pto_add_tile(m, body, "a", PTO_VEC, PTO_F32, 8, 256, L(m, 4));
    m->tiles[a].nbuf = 2;
    m->tiles[a].valid_r = B(m, PTO_E_MIN, I(m, 8), B(m, PTO_E_SUB, V(m, n), V(m, r)));
    plan(m, a, 0, 8192, 0);
    b = pto_add_tile(m, body, "b", PTO_VEC, PTO_F32, 8, 256, L(m, 5));
    m->tiles[b].valid_r = m->tiles[a].valid_r;
    plan(m, b, 16384, 0, 0);
    s = op(m, body, PTO_OP_TLOAD, 6);
    pto_arg_tile(m, s, a, L(m, 6));
    pto_arg_gm(m, s, x, V(m, r), I(m, 0), -1, L(m, 6));
    flag(m, body, PTO_OP_SET_FLAG, PTO_PIPE_MTE2, PTO_PIPE_V, I(m, 0), 6, "RAW vec a: tload a (line 6) -> tmuls b (line 7)");
    flag(m, body, PTO_OP_WAIT_FLAG, PTO_PIPE_MTE2, PTO_PIPE_V, I(m, 0), 7, "RAW vec a: tload a (line 6) -> tmuls b (line 7)");
    s = op(m, body, PTO_OP_TMULS, 7);
    pto_arg_tile(m, s, b, L(m, 7));
    pto_arg_tile(m, s, a, L(m, 7));
    pto_arg_scalar(m, s, alpha, L(m, 7));
    flag(m, body, PTO_OP_PIPE_BARRIER, PTO_PIPE_V, PTO_PIPE_V, -1, 8, "RAW vec b: tmuls b (line 7) -> tadds b (line 8), both on V");
    s = op(m, body, PTO_OP_TADDS, 8);
    pto_arg_tile(m, s, b, L(m, 8));
    pto_arg_tile(m, s, b, L(m, 8));
    pto_arg_float(m, s, -0.1, L(m, 8));
    flag(m, body, PTO_OP_SET_FLAG, PTO_PIPE_V, PTO_PIPE_MTE3, I(m, 0), 8, "RAW vec b: tadds b (line 8) -> tstore z (line 9)");
    flag(m, body, PTO_OP_WAIT_FLAG, PTO_PIPE_V, PTO_PIPE_MTE3, I(m, 0), 9, "RAW vec b: tadds b (line 8) -> tstore z (line 9)");
    s = op(m, body, PTO_OP_TSTORE, 9);
    pto_arg_gm(m, s, z, V(m, r), I(m, 0), -1, L(m, 9));
    pto_arg_tile(m, s, b, L(m, 9));
    flag(m, body, PTO_OP_PIPE_BARRIER, PTO_PIPE_ALL, PTO_PIPE_ALL, -1, 9, "WAR a, b: the next iteration reuses them */ really");
    return verified(ctx, m);
}

/* kernel gmm(in a: f16[32, 64], in b: f16[64, 32], out c: f32[32, 32]) cube:
   K loop step 32 with x2 L1 tiles, textract / tmov to L0, if k == 0. */
static pto_module *build_gmm(pto_ctx *ctx)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k, pa, pb, pc, acc, f, body, kv, a1, b1, a0, b0, s, ifs;
    m->file = pto_file_add(ctx, "gmm.pto");
    k = pto_add_kernel(m, "gmm", PTO_KK_CUBE, L(m, 1));
    pa = pto_add_tensor_param(m, k, "a", PTO_IN, PTO_F16, 32, 64, L(m, 1));
    pb = pto_add_tensor_param(m, k, "b", PTO_IN, PTO_F16, 64, 32, L(m, 1));
    pc = pto_add_tensor_param(m, k, "c", PTO_OUT, PTO_F32, 32, 32, L(m, 1));
    acc = pto_add_tile(m, m->kernels[k].body, "acc", PTO_ACC, PTO_F32, 32, 32, L(m, 2));
    plan(m, acc, 0, 0, 0);
    f = pto_add_for(m, m->kernels[k].body, "k", I(m, 0), I(m, 64), I(m, 32), L(m, 3));
    body = m->stmts[f].body;
    kv = m->stmts[f].ref;
    a1 = pto_add_tile(m, body, "a1", PTO_MAT, PTO_F16, 32, 32, L(m, 4));
    m->tiles[a1].nbuf = 2;
    plan(m, a1, 0, 2048, 0);
    b1 = pto_add_tile(m, body, "b1", PTO_MAT, PTO_F16, 32, 32, L(m, 5));
    m->tiles[b1].nbuf = 2;
    plan(m, b1, 4096, 6144, 0);
    a0 = pto_add_tile(m, body, "a0", PTO_LEFT, PTO_F16, 32, 32, L(m, 6));
    plan(m, a0, 0, 0, 0);
    b0 = pto_add_tile(m, body, "b0", PTO_RIGHT, PTO_F16, 32, 32, L(m, 7));
    plan(m, b0, 0, 0, 0);
    s = op(m, body, PTO_OP_TLOAD, 8);
    pto_arg_tile(m, s, a1, L(m, 8));
    pto_arg_gm(m, s, pa, I(m, 0), V(m, kv), -1, L(m, 8));
    s = op(m, body, PTO_OP_TLOAD, 9);
    pto_arg_tile(m, s, b1, L(m, 9));
    pto_arg_gm(m, s, pb, V(m, kv), I(m, 0), -1, L(m, 9));
    flag(m, body, PTO_OP_SET_FLAG, PTO_PIPE_MTE2, PTO_PIPE_MTE1, I(m, 0), 9, "RAW mat a1, b1 -> textract, tmov");
    flag(m, body, PTO_OP_WAIT_FLAG, PTO_PIPE_MTE2, PTO_PIPE_MTE1, I(m, 0), 10, "RAW mat a1, b1 -> textract, tmov");
    s = op(m, body, PTO_OP_TEXTRACT, 10);
    pto_arg_tile(m, s, a0, L(m, 10));
    pto_arg_tile(m, s, a1, L(m, 10));
    pto_arg_int(m, s, I(m, 0), L(m, 10));
    pto_arg_int(m, s, I(m, 0), L(m, 10));
    s = op(m, body, PTO_OP_TMOV, 11);
    pto_arg_tile(m, s, b0, L(m, 11));
    pto_arg_tile(m, s, b1, L(m, 11));
    flag(m, body, PTO_OP_SET_FLAG, PTO_PIPE_MTE1, PTO_PIPE_M, I(m, 0), 11, "RAW left a0, right b0 -> tmatmul");
    flag(m, body, PTO_OP_WAIT_FLAG, PTO_PIPE_MTE1, PTO_PIPE_M, I(m, 0), 12, "RAW left a0, right b0 -> tmatmul");
    ifs = pto_add_if(m, body, V(m, kv), PTO_EQ, I(m, 0), L(m, 12));
    s = op(m, m->stmts[ifs].body, PTO_OP_TMATMUL, 13);
    pto_arg_tile(m, s, acc, L(m, 13));
    pto_arg_tile(m, s, a0, L(m, 13));
    pto_arg_tile(m, s, b0, L(m, 13));
    s = op(m, pto_if_else(m, ifs), PTO_OP_TMATMUL_ACC, 15);
    pto_arg_tile(m, s, acc, L(m, 15));
    pto_arg_tile(m, s, a0, L(m, 15));
    pto_arg_tile(m, s, b0, L(m, 15));
    flag(m, body, PTO_OP_PIPE_BARRIER, PTO_PIPE_ALL, PTO_PIPE_ALL, -1, 16, "WAR a0, b0, a1, b1 across iterations");
    flag(m, m->kernels[k].body, PTO_OP_SET_FLAG, PTO_PIPE_M, PTO_PIPE_FIX, I(m, 0), 16, "RAW acc: tmatmul_acc -> tstore c");
    flag(m, m->kernels[k].body, PTO_OP_WAIT_FLAG, PTO_PIPE_M, PTO_PIPE_FIX, I(m, 0), 18, "RAW acc: tmatmul_acc -> tstore c");
    s = op(m, m->kernels[k].body, PTO_OP_TSTORE, 18);
    pto_arg_gm(m, s, pc, I(m, 0), I(m, 0), -1, L(m, 18));
    pto_arg_tile(m, s, acc, L(m, 18));
    return verified(ctx, m);
}

/* A mix kernel whose names collide with C and with the emitter's own, an
   x3 tile with irregular slots, loops from 1 step 2, negative literals,
   min/max and every float spelling. Built to be emitted, not run (nor
   verified). */
static pto_module *build_gmix(pto_ctx *ctx)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k, pin, pout, base, sec, f, body, t, s, w, cube;
    m->file = pto_file_add(ctx, "dir/gmix.pto");
    k = pto_add_kernel(m, "gmix", PTO_KK_MIX, L(m, 1));
    pin = pto_add_tensor_param(m, k, "int", PTO_IN, PTO_F32, 64, 128, L(m, 1));
    pout = pto_add_tensor_param(m, k, "core", PTO_OUT, PTO_F32, 64, 128, L(m, 1));
    pto_add_tensor_param(m, k, "unused", PTO_IN, PTO_F32, 64, 128, L(m, 1));
    pto_add_scalar_param(m, k, "count", PTO_I32, L(m, 1));
    m->kernels[k].blocks = I(m, 2);
    /* let pto_base = max(block * 32, 0) - -1 + min(3, 4) * (2 - subblock) */
    base = LET(m, m->kernels[k].body, "pto_base",
                       B(m, PTO_E_ADD,
                         B(m, PTO_E_SUB, B(m, PTO_E_MAX, B(m, PTO_E_MUL, BI(m, PTO_E_BLOCK), I(m, 32)), I(m, 0)), I(m, -1)),
                         B(m, PTO_E_MUL, B(m, PTO_E_MIN, I(m, 3), I(m, 4)), B(m, PTO_E_SUB, I(m, 2), BI(m, PTO_E_SUBBLOCK)))),
               2);
    pto_add_let(m, m->kernels[k].body, "args", B(m, PTO_E_MOD, I(m, 7), B(m, PTO_E_SUB, I(m, 5), I(m, 2))), L(m, 3));
    sec = pto_add_section(m, m->kernels[k].body, PTO_CORE_VECTOR, L(m, 4));
    f = pto_add_for(m, m->stmts[sec].body, "i", I(m, 1), I(m, 7), I(m, 2), L(m, 5));
    body = m->stmts[f].body;
    t = pto_add_tile(m, body, "run", PTO_VEC, PTO_F32, 16, 128, L(m, 6));
    m->tiles[t].nbuf = 3;
    plan(m, t, 0, 16384, 40960);
    w = pto_add_tile(m, body, "spare", PTO_VEC, PTO_F32, 16, 128, L(m, 7));
    plan(m, w, 65536, 0, 0);
    s = op(m, body, PTO_OP_TLOAD, 8);
    pto_arg_tile(m, s, t, L(m, 8));
    pto_arg_gm(m, s, pin, B(m, PTO_E_ADD, V(m, base), B(m, PTO_E_MUL, B(m, PTO_E_SUB, V(m, m->stmts[f].ref), I(m, 1)), I(m, 4))),
               B(m, PTO_E_NEG, B(m, PTO_E_NEG, I(m, 0), -1), -1), -1, L(m, 8));
    s = op(m, body, PTO_OP_TMULS, 9);
    pto_arg_tile(m, s, t, L(m, 9));
    pto_arg_tile(m, s, t, L(m, 9));
    pto_arg_float(m, s, 1.0, L(m, 9));
    s = op(m, body, PTO_OP_TADDS, 10);
    pto_arg_tile(m, s, t, L(m, 10));
    pto_arg_tile(m, s, t, L(m, 10));
    pto_arg_float(m, s, 1e-7, L(m, 10));
    s = op(m, body, PTO_OP_TMAXS, 11);
    pto_arg_tile(m, s, t, L(m, 11));
    pto_arg_tile(m, s, t, L(m, 11));
    pto_arg_float(m, s, 0.1, L(m, 11));
    s = op(m, body, PTO_OP_PIPE_BARRIER, 12);     /* written by hand: origin user, no note */
    pto_arg_pipe(m, s, PTO_PIPE_ALL, L(m, 12));
    s = op(m, body, PTO_OP_TSTORE, 13);
    pto_arg_gm(m, s, pout, V(m, base), I(m, 0), -1, L(m, 13));
    pto_arg_tile(m, s, t, L(m, 13));
    cube = pto_add_section(m, m->kernels[k].body, PTO_CORE_CUBE, L(m, 15));
    flag(m, m->stmts[cube].body, PTO_OP_PIPE_BARRIER, PTO_PIPE_M, PTO_PIPE_M, -1, 16, "nothing to order\nat all");
    /* lets at kernel level of a mix kernel, outside its sections: verify
       refuses them, the emitter's naming is what this kernel is for, so
       the stamp pto_emit requires is written directly (ir.h: a direct
       writer answers for the module) */
    pto_module_stamp(m);
    return m;
}

typedef pto_module *(*builder)(pto_ctx *);

static int emit(builder fn, pto_buf *k, pto_buf *h, pto_ctx **ctxp)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = fn(ctx);
    pto_status st;
    memset(k, 0, sizeof *k);
    memset(h, 0, sizeof *h);
    k->ctx = h->ctx = ctx;
    st = pto_emit(ctx, m, NULL, k, h);
    if (st != PTO_OK) pto_diag_print(ctx, stdout);
    pto_module_destroy(m);
    *ctxp = ctx;
    return st == PTO_OK;
}

/* Compares text with tests/golden/NAME; PTO_UPDATE_GOLDEN=1 rewrites it. */
static void golden(const char *name, const char *text)
{
    char path[256];
    char *want;
    const char *upd = getenv("PTO_UPDATE_GOLDEN");
    snprintf(path, sizeof path, "tests/golden/%s", name);
    if (upd && strcmp(upd, "1") == 0) {
        FILE *f = fopen(path, "wb");
        CHECK_MSG(f != NULL, "cannot write %s", path);
        if (f) { fputs(text, f); fclose(f); }
        printf("updated %s\n", path);
        return;
    }
    want = t_slurp(path, NULL);
    CHECK_MSG(want != NULL, "missing %s (run PTO_UPDATE_GOLDEN=1 make test)", path);
    if (want && strcmp(want, text) != 0) {
        const char *a = want, *b = text;
        int line = 1;
        while (*a && *a == *b) { if (*a == '\n') line++; a++; b++; }
        CHECK_MSG(0, "%s differs from the emitted text at line %d (PTO_UPDATE_GOLDEN=1 make test accepts it)", path, line);
    } else if (want) {
        CHECK(1);
    }
    free(want);
}

static void test_goldens(void)
{
    static const builder fns[3] = {build_gvadd, build_gmm, build_gmix};
    static const char *const names[3] = {"gvadd", "gmm", "gmix"};
    int i;
    for (i = 0; i < 3; i++) {
        pto_buf k, h;
        pto_ctx *ctx;
        char name[64];
        CHECK_MSG(emit(fns[i], &k, &h, &ctx), "emit %s", names[i]);
        snprintf(name, sizeof name, "%s.kernel.c", names[i]);
        golden(name, k.data ? k.data : "");
        snprintf(name, sizeof name, "%s.host.c", names[i]);
        golden(name, h.data ? h.data : "");
        pto_buf_free(&k);
        pto_buf_free(&h);
        pto_ctx_destroy(ctx);
    }
}

/* Same input, byte-identical output: two contexts, and the context's string
   table made different in between (ids and allocation addresses change). */
static void test_determinism(void)
{
    pto_buf k1, h1, k2, h2;
    pto_ctx *c1, *c2;
    CHECK(emit(build_gmix, &k1, &h1, &c1));
    pto_intern(c1, "noise", 5);
    CHECK(emit(build_gmix, &k2, &h2, &c2));
    CHECK(k1.len == k2.len && memcmp(k1.data, k2.data, k1.len) == 0);
    CHECK(h1.len == h2.len && memcmp(h1.data, h2.data, h1.len) == 0);
    pto_buf_free(&k1); pto_buf_free(&h1); pto_buf_free(&k2); pto_buf_free(&h2);
    pto_ctx_destroy(c1);
    pto_ctx_destroy(c2);
}

static int has(const pto_buf *b, const char *s) { return b->data && strstr(b->data, s) != NULL; }

/* The lines that must be there, written out by hand from the specs. */
static void test_lines(void)
{
    pto_buf k, h;
    pto_ctx *ctx;
    CHECK(emit(build_gvadd, &k, &h, &ctx));
    CHECK(has(&k, "static void kernel_gvadd(pto_k_core *core, const int64_t *args)\n"));
    CHECK(has(&k, "    pto_k_gm *x = pto_k_arg_gm(args, 0); /* in f32[N, 256] */\n"));
    CHECK(has(&k, "    const double alpha = pto_k_arg_f(args, 2); /* scalar f32 */\n"));
    CHECK(has(&k, "    const int64_t N = pto_k_gm_rows(x);\n"));
    CHECK(has(&k, "    for (int64_t i = 0; i < 2; i += 1) {\n"));
    CHECK(has(&k, "        const int64_t r = pto_k_block_idx(core) * 16 + i * 8;\n"));
    CHECK(has(&k, "        const pto_k_tile a = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 256, pto_emit_min(8, N - r), 256, (i % 2) * 8192);\n"));
    CHECK(has(&k, "        pto_k_tload(core, \"gvadd.pto:6\", a, x, r, 0);\n"));
    CHECK(has(&k, "        pto_k_tmuls(core, \"gvadd.pto:7\", b, a, alpha);\n"));
    CHECK(has(&k, "        pto_k_tadds(core, \"gvadd.pto:8\", b, b, -0.1);\n"));
    CHECK(has(&k, "        /* sync: RAW vec a: tload a (line 6) -> tmuls b (line 7) */\n"
                  "        pto_k_set_flag(core, \"gvadd.pto:6\", PTO_K_MTE2, PTO_K_V, 0);\n"));
    CHECK(has(&k, "        /* sync: WAR a, b: the next iteration reuses them * / really */\n"
                  "        pto_k_pipe_barrier(core, \"gvadd.pto:9\", PTO_K_ALL);\n"));
    CHECK(has(&h, "    const int64_t N = pto_h_dim(run, \"N\");\n"));
    CHECK(has(&h, "    pto_k_gm *z = pto_h_tensor(run, 1, \"z\", PTO_K_F32, N, 256, PTO_H_OUT);\n"));
    CHECK(has(&h, "    args[2] = pto_k_f_arg(alpha);\n"));
    CHECK(has(&h, "    pto_h_launch(run, kernel_gvadd, \"gvadd\", PTO_K_KIND_VECTOR, N / 16, args, \"vec 24576 B\");\n"));
    CHECK(has(&h, "#include \"kernel.c\"\n"));

    pto_buf_free(&k); pto_buf_free(&h);
    pto_ctx_destroy(ctx);

    CHECK(emit(build_gmix, &k, &h, &ctx));
    /* renamed: int, core, args, run, pto_base; the emitter's names stay */
    CHECK(has(&k, "    pto_k_gm *user_int = pto_k_arg_gm(args, 0); /* in f32[64, 128] */\n"));
    CHECK(has(&k, "    pto_k_gm *user_core = pto_k_arg_gm(args, 1); /* out f32[64, 128] */\n"));
    CHECK(has(&k, "    pto_k_gm *unused = pto_k_arg_gm(args, 2); /* in f32[64, 128] */\n    (void)unused;\n"));
    CHECK(has(&k, "    const int64_t count = pto_k_arg_i(args, 3); /* scalar i32 */\n    (void)count;\n"));
    CHECK(has(&k, "    const int64_t user_pto_base = pto_emit_max(pto_k_block_idx(core) * 32, 0) - -1 + "
                  "pto_emit_min(3, 4) * (2 - pto_k_subblock(core));\n"));
    CHECK(has(&k, "    const int64_t user_args = 7 % 3;\n    (void)user_args;\n"));
    CHECK(has(&k, "    if (pto_k_core_kind(core) == PTO_K_CORE_VECTOR) { /* vector { } section */\n"));
    CHECK(has(&k, "    if (pto_k_core_kind(core) == PTO_K_CORE_CUBE) { /* cube { } section */\n"));
    CHECK(has(&k, "        for (int64_t i = 1; i < 7; i += 2) {\n"));
    CHECK(has(&k, "            static const int64_t pto_slots_0[3] = {0, 16384, 40960};\n"
                  "            const pto_k_tile user_run = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 128, 16, 128, "
                  "pto_slots_0[(((i - 1) / 2) % 3)]);\n"));
    /* a tile never used gets no tdecl: the planner gives it no lifetime, so
       its bytes may be another live tile's */
    CHECK(has(&k, "            const pto_k_tile spare = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 128, 16, 128, 65536);\n"
                  "            (void)spare;\n"));
    CHECK(!has(&k, "pto_k_tdecl(core, \"gmix.pto:7\", spare);"));
    CHECK(has(&k, "\"gmix.pto:8\", user_run, user_int, "
                  "user_pto_base + (i - 1) * 4, 0);\n"));
    CHECK(has(&k, "\"gmix.pto:9\", user_run, user_run, 1.0);\n"));
    CHECK(has(&k, "\"gmix.pto:10\", user_run, user_run, 1e-07);\n"));
    CHECK(has(&k, "\"gmix.pto:11\", user_run, user_run, 0.1);\n"));
    CHECK(has(&k, "            /* user: written in the source */\n"
                  "            pto_k_pipe_barrier(core, \"gmix.pto:12\", PTO_K_ALL);\n"));
    CHECK(has(&k, "        /* sync: nothing to order at all */\n"));
    CHECK(has(&k, "   planned: vec 73728 B */\n"));
    CHECK(has(&h, "    const int64_t count = pto_h_iscalar(run, \"count\", PTO_K_I32);\n"));
    CHECK(has(&h, "    args[3] = count;\n"));
    CHECK(has(&h, "PTO_K_KIND_MIX, 2, args,"));
    pto_buf_free(&k); pto_buf_free(&h);
    pto_ctx_destroy(ctx);
}

static void test_errors(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = build_gvadd(ctx);
    pto_buf k;
    char msg[256];
    memset(&k, 0, sizeof k);
    k.ctx = ctx;
    m->tiles[1].planned = 0;
    CHECK(pto_emit(ctx, m, NULL, &k, NULL) == PTO_ERR_USER);
    CHECK(pto_diag_count(ctx) == 1);
    if (pto_diag_count(ctx) == 1) {
        pto_diag_format(ctx, pto_diag_get(ctx, 0), msg, sizeof msg);
        CHECK_STR(msg, "gvadd.pto:5:3: error: emit: tile 'b' has no planned offset (run the planner first)");
    }
    pto_module_destroy(m);
    pto_diag_clear(ctx);
    m = build_gmm(ctx);
    m->tiles[0].nbuf = 2;    /* acc is declared outside the loop */
    CHECK(pto_emit(ctx, m, NULL, &k, NULL) == PTO_ERR_USER);   /* written after the stamp: refused as changed */
    CHECK(pto_diag_count(ctx) == 1 && strstr(pto_diag_get(ctx, 0)->msg, "changed after it was verified") != NULL);
    pto_diag_clear(ctx);
    pto_module_stamp(m);     /* vouched for: emit's own check speaks */
    k.len = 0;
    CHECK(pto_emit(ctx, m, NULL, &k, NULL) == PTO_ERR_USER);
    if (pto_diag_count(ctx) == 1) {
        pto_diag_format(ctx, pto_diag_get(ctx, 0), msg, sizeof msg);
        CHECK_STR(msg, "gmm.pto:2:3: error: emit: tile 'acc' has 2 slots but is not declared in a loop");
    }
    pto_module_destroy(m);
    /* note ids out of the string pool (a module built through the C API):
       the flags are emitted without their text, nothing is read past it */
    m = build_gvadd(ctx);
    {
        int32_t s, bad = 0;
        for (s = 0; s < m->n_stmts; s++)
            if (m->stmts[s].note) m->stmts[s].note = bad++ % 2 ? -7 : 1 << 28;
        CHECK(bad > 0);
    }
    k.len = 0;
    CHECK(pto_emit(ctx, m, NULL, &k, NULL) == PTO_OK);
    pto_module_destroy(m);
    pto_buf_free(&k);
    pto_ctx_destroy(ctx);
}

/* The whole pipeline from text: every flag and barrier line is covered by
   a comment naming the sync pass: its own line above it (or above the run
   of calls that share its note), or a trailing reference to the call that
   has that comment. Each note is printed in full once. */
static void test_pipeline(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    char *text = t_slurp("examples/vadd.pto", NULL);
    pto_module *m = text ? pto_parse(ctx, "examples/vadd.pto", text, strlen(text)) : NULL;
    pto_buf k, h;
    pto_emit_desc ed;
    int nsync = 0, commented = 0, refs = 0, run = 0;
    const char *p;
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    memset(&ed, 0, sizeof ed);
    k.ctx = h.ctx = ctx;
    CHECK(m != NULL);
    if (m) {
        ed.filename = "examples/vadd.pto";
        ed.source = text;
        ed.source_len = strlen(text);
        CHECK(pto_verify(ctx, m) == PTO_OK);
        CHECK(pto_plan(ctx, m, NULL) == PTO_OK);
        CHECK(pto_sync(ctx, m, &checked) == PTO_OK);
        CHECK(pto_emit(ctx, m, &ed, &k, &h) == PTO_OK);
        for (p = k.data; p && *p;) {
            const char *eol = strchr(p, '\n'), *q = p;
            size_t n = eol ? (size_t)(eol - p) : strlen(p);
            char line[512];
            if (n >= sizeof line) n = sizeof line - 1;
            memcpy(line, p, n);
            line[n] = 0;
            while (*q == ' ') q++;
            if (strncmp(q, "/* sync: ", 9) == 0) {
                run = 1;
            } else if (!strncmp(q, "pto_k_set_flag(", 15) || !strncmp(q, "pto_k_wait_flag(", 16) ||
                       !strncmp(q, "pto_k_pipe_barrier(", 19)) {
                int ref = strstr(line, "); /* sync: see the ") != NULL;
                nsync++;
                refs += ref;
                commented += ref || run;
                if (ref) run = 0;
            } else {
                run = 0;
            }
            p = eol ? eol + 1 : NULL;
        }
        CHECK(nsync > 0);
        CHECK(commented == nsync);
        CHECK(refs > 0);    /* vadd's loop-carried pairs: the set refers to its wait */
        CHECK(has(&k, "pto_k_tadd(core, \"vadd.pto:11\", c, a, b);"));
        /* the rotating flag id `0 + (i - 0) % 2` is printed simplified */
        CHECK(has(&k, ", PTO_K_V, PTO_K_MTE2, i % 2);"));
        CHECK(!has(&k, "0 + (i - 0)"));
        CHECK(has(&h, "    \"    tadd c, a, b\\n\",\n"));
    }
    pto_module_destroy(m);
    pto_buf_free(&k);
    pto_buf_free(&h);
    free(text);
    pto_ctx_destroy(ctx);
}

/* Statements at line INT32_MAX (from the C API): the test for "the line
   after the one quoted last" added one to INT32_MAX (signed overflow,
   caught by -fsanitize=undefined); the lines are quoted as they are. */
static void test_line_max(void)
{
    const char *text =
        "kernel k(in a: f32[16, 64], out y: f32[16, 64]) vector {\n"
        "  tile t: vec f32[16, 64]\n"
        "  tload t, a[0, 0]\n"
        "  tadds t, t, 1.0\n"
        "  tstore y[0, 0], t\n"
        "}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "t.pto", text, strlen(text));
    pto_buf k, h;
    int32_t s;
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    k.ctx = h.ctx = ctx;
    CHECK(m != NULL);
    if (m && pto_compile(ctx, m, NULL) == PTO_OK) {
        for (s = 0; s < m->n_stmts; s++) m->stmts[s].loc.line = s % 2 ? INT32_MAX : 7;
        CHECK(pto_emit(ctx, m, NULL, &k, &h) == PTO_OK);
        CHECK(k.data && strstr(k.data, "\"t.pto:2147483647\"") && strstr(k.data, "\"t.pto:7\""));
    } else {
        CHECK(0);
    }
    pto_buf_free(&k);
    pto_buf_free(&h);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* ---- streaming ---- */

/* A sink that appends what it gets to a buffer without one (user), and
   counts its calls; an empty call would be a pointless one. */
typedef struct collect {
    pto_buf all;
    int calls, empty;
} collect;

static void collect_sink(const char *data, size_t len, void *user)
{
    collect *c = (collect *)user;
    pto_buf_putn(&c->all, data, len);
    c->calls++;
    c->empty += len == 0;
}

static void collect_init(collect *c, pto_ctx *ctx, pto_buf *b, size_t stage)
{
    memset(c, 0, sizeof *c);
    c->all.ctx = ctx;
    memset(b, 0, sizeof *b);
    b->ctx = ctx;
    b->sink = collect_sink;
    b->sink_user = c;
    b->stage = stage;
}

/* The same text through a plain buffer and a staged one: small appends, one
   that fills the staging area exactly, ones longer than it, printf's long
   path; the staging area never grows, each byte arrives once, in order. */
static void test_buf_sink(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_buf plain, b;
    collect c;
    char big[700];
    int i;
    memset(&plain, 0, sizeof plain);
    plain.ctx = ctx;
    collect_init(&c, ctx, &b, 16);
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    for (i = 0; i < 2; i++) {
        pto_buf *o = i ? &b : &plain;
        int j;
        for (j = 0; j < 100; j++) pto_buf_printf(o, "%d,", j);
        pto_buf_puts(o, "0123456789abcde");   /* (15 bytes and the NUL: a full staging area) */
        pto_buf_putn(o, "", 0);
        pto_buf_puts(o, "<long>");
        pto_buf_putn(o, big, 40);
        pto_buf_printf(o, "[%s]", big);      /* longer than printf's 256-byte buffer */
        pto_buf_puts(o, "end");
    }
    CHECK(b.cap == 16);
    CHECK(c.empty == 0 && c.calls > 20);
    CHECK(b.len > 0 && b.len < 16 && b.data[b.len] == 0);   /* "end": the pending tail, NUL-terminated */
    CHECK(b.flushed + b.len == plain.len);
    pto_buf_flush(&b);
    CHECK(b.len == 0 && b.data[0] == 0 && b.flushed == plain.len);
    CHECK(c.all.len == plain.len && memcmp(c.all.data, plain.data, plain.len) == 0);
    i = c.calls;
    pto_buf_flush(&b);   /* nothing pending: no call */
    CHECK(c.calls == i && !b.oom);
    /* no sink: flushing changes nothing, with text or without any */
    pto_buf_flush(&plain);
    CHECK(plain.len == c.all.len && plain.flushed == 0 && memcmp(c.all.data, plain.data, plain.len) == 0);
    pto_buf_free(&plain);
    pto_buf_flush(&plain);
    CHECK(plain.data == NULL && plain.len == 0);
    /* a sink and nothing appended: nothing sent, nothing allocated */
    pto_buf_free(&b);
    pto_buf_free(&c.all);
    collect_init(&c, ctx, &b, 0);
    pto_buf_flush(&b);
    CHECK(c.calls == 0 && b.data == NULL);
    pto_buf_puts(&b, "x");
    CHECK(b.cap == PTO_BUF_STAGE && c.calls == 0);
    pto_buf_free(&b);
    pto_buf_free(&c.all);
    pto_ctx_destroy(ctx);
}

/* A vector kernel of `loops` double-buffered loops (about 8 instructions
   each) after a comment line of 3000 bytes (the host source splits it). */
static char *stream_kernel(int loops)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_buf b;
    char *text;
    int l;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_buf_puts(&b, "# ");
    for (l = 0; l < 300; l++) pto_buf_puts(&b, "long line");
    pto_buf_puts(&b, " \"*/ \\ \t end\n");
    pto_buf_puts(&b, "kernel big(in x: f32[1024, 128], out z: f32[1024, 128], scalar alpha: f32) vector blocks(8) {\n");
    for (l = 0; l < loops; l++) {
        pto_buf_printf(&b, "  for i%d = 0 to 4 {\n    let r%d = block * 128 + i%d * 16\n", l, l, l);
        pto_buf_printf(&b, "    tile a%d: vec f32[16, 128] x2\n    tile b%d: vec f32[16, 128] x2\n", l, l);
        pto_buf_printf(&b, "    tload a%d, x[r%d, 0]\n    tadds b%d, a%d, 1.5\n    tmuls b%d, b%d, alpha\n", l, l, l, l, l, l);
        pto_buf_printf(&b, "    texp b%d, b%d\n    tmul b%d, b%d, a%d\n    tstore z[r%d, 0], b%d\n  }\n", l, l, l, l, l, l, l);
    }
    pto_buf_puts(&b, "}\n");
    text = (char *)malloc(b.len + 1);
    if (text) memcpy(text, b.data, b.len + 1);
    pto_buf_free(&b);
    pto_ctx_destroy(ctx);
    return text;
}

/* Emits text (both targets) once into whole buffers and once through sinks
   with each staging size: the same bytes, each staged buffer empty after a
   successful emission, its flushed count the length. */
static void stream_compare(const char *name, const char *text)
{
    static const size_t stages[] = {0, 1, 7, 100, 4096};
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, name, text, strlen(text));
    pto_emit_desc ed;
    pto_buf k, h, ki;
    size_t i;
    memset(&ed, 0, sizeof ed);
    ed.source = text;
    ed.source_len = strlen(text);
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    memset(&ki, 0, sizeof ki);
    k.ctx = h.ctx = ki.ctx = ctx;
    CHECK_MSG(m && pto_compile(ctx, m, NULL) == PTO_OK, "%s compiles", name);
    if (m && pto_emit(ctx, m, &ed, &k, &h) == PTO_OK) {
        int isa = pto_emit_isa(ctx, m, &ed, &ki) == PTO_OK;   /* (some examples are not isa's) */
        pto_diag_clear(ctx);
        for (i = 0; i < sizeof stages / sizeof stages[0]; i++) {
            pto_buf sk, sh, ski;
            collect ck, ch, cki;
            collect_init(&ck, ctx, &sk, stages[i]);
            collect_init(&ch, ctx, &sh, stages[i]);
            collect_init(&cki, ctx, &ski, stages[i]);
            CHECK_MSG(pto_emit(ctx, m, &ed, &sk, &sh) == PTO_OK, "%s: stage %d", name, (int)stages[i]);
            CHECK_MSG(ck.all.len == k.len && memcmp(ck.all.data, k.data, k.len) == 0, "%s: kernel, stage %d", name,
                      (int)stages[i]);
            CHECK_MSG(ch.all.len == h.len && memcmp(ch.all.data, h.data, h.len) == 0, "%s: host, stage %d", name,
                      (int)stages[i]);
            CHECK(sk.len == 0 && sh.len == 0 && sk.flushed == k.len && sh.flushed == h.len);
            CHECK(ck.empty == 0 && ch.empty == 0);
            CHECK(stages[i] || ck.calls >= 1 + (int)(k.len / PTO_BUF_STAGE));   /* (the large one: several) */
            if (isa) {
                CHECK(pto_emit_isa(ctx, m, &ed, &ski) == PTO_OK);
                CHECK_MSG(cki.all.len == ki.len && memcmp(cki.all.data, ki.data, ki.len) == 0, "%s: isa, stage %d",
                          name, (int)stages[i]);
                CHECK(ski.len == 0 && ski.flushed == ki.len);
            }
            pto_buf_free(&sk); pto_buf_free(&sh); pto_buf_free(&ski);
            pto_buf_free(&ck.all); pto_buf_free(&ch.all); pto_buf_free(&cki.all);
        }
    } else {
        CHECK_MSG(0, "%s emits", name);
    }
    pto_buf_free(&k);
    pto_buf_free(&h);
    pto_buf_free(&ki);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static void test_stream(void)
{
    static const char *const examples[] = {"allreduce", "host_mm_norm", "layernorm", "mixmm", "mixv2c", "mm",
                                           "ring", "rmsnorm", "softmax", "swiglu", "tail", "vadd"};
    char path[64], *text;
    size_t i;
    for (i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        snprintf(path, sizeof path, "examples/%s.pto", examples[i]);
        text = t_slurp(path, NULL);
        CHECK_MSG(text != NULL, "read %s", path);
        if (text) stream_compare(path, text);
        free(text);
    }
    text = stream_kernel(400);   /* ~230 KB of kernel source: several default staging areas */
    CHECK(text != NULL);
    if (text) stream_compare("big.pto", text);
    free(text);
}

int main(void)
{
    test_goldens();
    test_determinism();
    test_lines();
    test_errors();
    test_pipeline();
    test_line_max();
    test_buf_sink();
    test_stream();
    return TEST_END();
}
