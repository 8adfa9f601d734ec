/* test_sync.c - the sync inserter at IR level: the upstream bug classes,
   redundancy removal, event-id limits and fallbacks, messages, and an
   IR-level necessity test. Every synchronised kernel is executed by the
   independent checker in sync_check.h under several trip counts. */

#include "tests/check.h"
#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/sync_check.h"

/* pto_sync with its self-check on: an unordered dependency left by the
   inserter is PTO_ERR_INTERNAL here, not only a race in a simulator run. */
static const pto_sync_desc checked = {0, NULL, 1};

static const int64_t OFF0[1] = {0};

static pto_ctx *new_ctx(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_file_add(ctx, "t.pto");
    return ctx;
}

static int64_t off1(int64_t a, int64_t *buf) { buf[0] = a; return a; }

/* Runs the checker on kernel 0 with var `v` (or -1) bound to each value. */
static int check_runs(const pto_module *m, int32_t v, const int64_t *vals, int n, char *why, size_t whylen)
{
    int i, bad = 0;
    int64_t vars[256];
    sc c;
    for (i = 0; i < n; i++) {
        memset(vars, 0, sizeof vars);
        if (v >= 0) vars[v] = vals[i];
        if (sc_run(&c, m, 0, vars)) {
            if (!bad) snprintf(why, whylen, "value %lld: %s", (long long)vals[i], c.msg);
            bad++;
        }
    }
    return bad;
}

static const char *first_diag(pto_ctx *ctx, char *buf, size_t n)
{
    if (pto_diag_count(ctx) == 0) return "";
    pto_diag_format(ctx, pto_diag_get(ctx, 0), buf, n);
    return buf;
}

/* The kernels below are verified like a user's (pto_sync requires the
   stamp); verify's warnings (k_many writes no output) are not what these
   tests look at, so they are cleared. */
static pto_module *vfy(pto_ctx *ctx, pto_module *m)
{
    char buf[300];
    CHECK_MSG(pto_verify(ctx, m) == PTO_OK, "%s", first_diag(ctx, buf, sizeof buf));
    pto_diag_clear(ctx);
    return m;
}

/* ---- kernels ------------------------------------------------------------------ */

/* vadd, double-buffered, for i = start to end step step (end = scalar n). */
typedef struct kopt { int64_t start, step; int dyn_end; int64_t end; } kopt;

static pto_module *k_vadd(pto_ctx *ctx, const kopt *o, int32_t *nvar)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "vadd", PTO_KK_VECTOR, sc_loc(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 256, 64, sc_loc(1));
    int32_t y = pto_add_tensor_param(m, k, "y", PTO_IN, PTO_F32, 256, 64, sc_loc(1));
    int32_t z = pto_add_tensor_param(m, k, "z", PTO_OUT, PTO_F32, 256, 64, sc_loc(1));
    int32_t n = pto_add_scalar_param(m, k, "n", PTO_I32, sc_loc(1));
    int32_t body = m->kernels[k].body, f, fb, a, b, c, r;
    int64_t oa[2] = {0, 4096}, ob[2] = {8192, 12288}, oc[2] = {16384, 20480};
    *nvar = m->params[n].var;
    f = pto_add_for(m, body, "i", sc_int(m, o->start), o->dyn_end ? sc_var(m, *nvar) : sc_int(m, o->end),
                    o->step == 1 ? -1 : sc_int(m, o->step), sc_loc(4));
    fb = m->stmts[f].body;
    a = sc_tile(m, fb, "a", PTO_VEC, 16, 64, 2, oa, 5);
    b = sc_tile(m, fb, "b", PTO_VEC, 16, 64, 2, ob, 6);
    c = sc_tile(m, fb, "c", PTO_VEC, 16, 64, 2, oc, 7);
    r = sc_var(m, m->stmts[f].ref);
    sc_load(m, fb, a, x, r, sc_int(m, 0), 8);
    sc_load(m, fb, b, y, r, sc_int(m, 0), 9);
    sc_op3(m, fb, PTO_OP_TADD, c, a, b, 10);
    sc_store(m, fb, z, r, sc_int(m, 0), c, 11);
    return vfy(ctx, m);
}

/* for i = 1 to n step 2 { tile a, b x2; tload a; tmuls b, a; tstore b } */
static pto_module *k_step2(pto_ctx *ctx, int32_t *nvar, int32_t *loop)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "s2", PTO_KK_VECTOR, sc_loc(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 64, 64, sc_loc(1));
    int32_t z = pto_add_tensor_param(m, k, "z", PTO_OUT, PTO_F32, 64, 64, sc_loc(1));
    int32_t n = pto_add_scalar_param(m, k, "n", PTO_I32, sc_loc(1));
    int32_t f, fb, a, b, i;
    int64_t oa[2] = {0, 4096}, ob[2] = {8192, 12288};
    *nvar = m->params[n].var;
    f = pto_add_for(m, m->kernels[k].body, "i", sc_int(m, 1), sc_var(m, *nvar), sc_int(m, 2), sc_loc(3));
    *loop = f;
    fb = m->stmts[f].body;
    a = sc_tile(m, fb, "a", PTO_VEC, 16, 64, 2, oa, 4);
    b = sc_tile(m, fb, "b", PTO_VEC, 16, 64, 2, ob, 5);
    i = sc_var(m, m->stmts[f].ref);
    sc_load(m, fb, a, x, i, sc_int(m, 0), 6);
    sc_muls(m, fb, b, a, 2.0, 7);
    sc_store(m, fb, z, i, sc_int(m, 0), b, 8);
    return vfy(ctx, m);
}

/* if k == 0 { tload a; tmuls b, a } else { texpands b | tload a }; tstore b; tmuls c, a; tstore c */
static pto_module *k_branch(pto_ctx *ctx, int else_loads, int32_t *kvar)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "br", PTO_KK_VECTOR, sc_loc(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 16, 64, sc_loc(1));
    int32_t z = pto_add_tensor_param(m, k, "z", PTO_OUT, PTO_F32, 16, 64, sc_loc(1));
    int32_t w = pto_add_tensor_param(m, k, "w", PTO_OUT, PTO_F32, 16, 64, sc_loc(1));
    int32_t kp = pto_add_scalar_param(m, k, "k", PTO_I32, sc_loc(1));
    int32_t body = m->kernels[k].body, a, b, c, s, ob;
    int64_t o[1];
    *kvar = m->params[kp].var;
    a = sc_tile(m, body, "a", PTO_VEC, 16, 64, 1, OFF0, 2);
    off1(4096, o);
    b = sc_tile(m, body, "b", PTO_VEC, 16, 64, 1, o, 3);
    off1(8192, o);
    c = sc_tile(m, body, "c", PTO_VEC, 16, 64, 1, o, 4);
    s = pto_add_if(m, body, sc_var(m, *kvar), PTO_EQ, sc_int(m, 0), sc_loc(5));
    sc_load(m, m->stmts[s].body, a, x, sc_int(m, 0), sc_int(m, 0), 6);
    sc_muls(m, m->stmts[s].body, b, a, 2.0, 7);
    ob = pto_if_else(m, s);
    if (else_loads) {
        sc_load(m, ob, a, x, sc_int(m, 0), sc_int(m, 0), 9);
    } else {
        int32_t e = sc_op(m, ob, PTO_OP_TEXPANDS, 9);
        pto_arg_tile(m, e, b, sc_loc(9));
        pto_arg_float(m, e, 1.0, sc_loc(9));
    }
    sc_store(m, body, z, sc_int(m, 0), sc_int(m, 0), b, 11);
    sc_muls(m, body, c, a, 3.0, 12);
    sc_store(m, body, w, sc_int(m, 0), sc_int(m, 0), c, 13);
    return vfy(ctx, m);
}

/* ntiles loads into distinct tiles, then one V op per tile. */
static pto_module *k_many(pto_ctx *ctx, int ntiles)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "many", PTO_KK_VECTOR, sc_loc(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 128, 64, sc_loc(1));
    int32_t body = m->kernels[k].body, t[16], d[16], i;
    char name[24];
    int64_t o[1];
    for (i = 0; i < ntiles; i++) {
        snprintf(name, sizeof name, "t%d", i);
        t[i] = sc_tile(m, body, name, PTO_VEC, 8, 64, 1, (off1(i * 2048, o), o), 2);
        snprintf(name, sizeof name, "d%d", i);
        d[i] = sc_tile(m, body, name, PTO_VEC, 8, 64, 1, (off1(65536 + i * 2048, o), o), 3);
    }
    for (i = 0; i < ntiles; i++) sc_load(m, body, t[i], x, sc_int(m, 8 * i), sc_int(m, 0), 10 + i);
    for (i = 0; i < ntiles; i++) sc_muls(m, body, d[i], t[i], 2.0, 20 + i);
    return vfy(ctx, m);
}

/* tload t; texp t, t; tstore z, t */
static pto_module *k_chain(pto_ctx *ctx)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "chain", PTO_KK_VECTOR, sc_loc(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 16, 64, sc_loc(1));
    int32_t z = pto_add_tensor_param(m, k, "z", PTO_OUT, PTO_F32, 16, 64, sc_loc(1));
    int32_t body = m->kernels[k].body, t;
    t = sc_tile(m, body, "t", PTO_VEC, 16, 64, 1, OFF0, 2);
    sc_load(m, body, t, x, sc_int(m, 0), sc_int(m, 0), 3);
    sc_op2(m, body, PTO_OP_TEXP, t, t, 4);
    sc_store(m, body, z, sc_int(m, 0), sc_int(m, 0), t, 5);
    return vfy(ctx, m);
}

/* Two independent V ops, then one that depends on both. */
static pto_module *k_vv(pto_ctx *ctx, int32_t *join)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "vv", PTO_KK_VECTOR, sc_loc(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 32, 64, sc_loc(1));
    int32_t z = pto_add_tensor_param(m, k, "z", PTO_OUT, PTO_F32, 16, 64, sc_loc(1));
    int32_t body = m->kernels[k].body, a, b, c, d, e;
    int64_t o[1];
    a = sc_tile(m, body, "a", PTO_VEC, 16, 64, 1, (off1(0, o), o), 2);
    b = sc_tile(m, body, "b", PTO_VEC, 16, 64, 1, (off1(4096, o), o), 2);
    c = sc_tile(m, body, "c", PTO_VEC, 16, 64, 1, (off1(8192, o), o), 2);
    d = sc_tile(m, body, "d", PTO_VEC, 16, 64, 1, (off1(12288, o), o), 2);
    e = sc_tile(m, body, "e", PTO_VEC, 16, 64, 1, (off1(16384, o), o), 2);
    sc_load(m, body, a, x, sc_int(m, 0), sc_int(m, 0), 3);
    sc_load(m, body, b, x, sc_int(m, 16), sc_int(m, 0), 4);
    sc_muls(m, body, c, a, 2.0, 5);
    sc_muls(m, body, d, b, 3.0, 6);
    *join = sc_op3(m, body, PTO_OP_TADD, e, c, d, 7);
    sc_store(m, body, z, sc_int(m, 0), sc_int(m, 0), e, 8);
    return vfy(ctx, m);
}

/* Row softmax: a chain of dependent V ops. */
static pto_module *k_softmax(pto_ctx *ctx)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "softmax", PTO_KK_VECTOR, sc_loc(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 16, 128, sc_loc(1));
    int32_t y = pto_add_tensor_param(m, k, "y", PTO_OUT, PTO_F32, 16, 128, sc_loc(1));
    int32_t body = m->kernels[k].body, t, mx, s;
    int64_t o[1];
    t = sc_tile(m, body, "t", PTO_VEC, 16, 128, 1, OFF0, 2);
    mx = sc_tile(m, body, "m", PTO_VEC, 16, 1, 1, (off1(8192, o), o), 3);
    s = sc_tile(m, body, "s", PTO_VEC, 16, 1, 1, (off1(8256, o), o), 4);
    sc_load(m, body, t, x, sc_int(m, 0), sc_int(m, 0), 6);
    sc_op2(m, body, PTO_OP_TROWMAX, mx, t, 7);
    sc_op3(m, body, PTO_OP_TROWEXPANDSUB, t, t, mx, 8);
    sc_op2(m, body, PTO_OP_TEXP, t, t, 9);
    sc_op2(m, body, PTO_OP_TROWSUM, s, t, 10);
    sc_op3(m, body, PTO_OP_TROWEXPANDDIV, t, t, s, 11);
    sc_store(m, body, y, sc_int(m, 0), sc_int(m, 0), t, 12);
    return vfy(ctx, m);
}

/* Cube: nacc accumulators matmul'd then stored (M -> FIX pairs). */
static pto_module *k_cube(pto_ctx *ctx, int nacc)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "mm", PTO_KK_CUBE, sc_loc(1));
    int32_t a = pto_add_tensor_param(m, k, "a", PTO_IN, PTO_F16, 16, 16, sc_loc(1));
    int32_t b = pto_add_tensor_param(m, k, "b", PTO_IN, PTO_F16, 16, 16, sc_loc(1));
    int32_t c = pto_add_tensor_param(m, k, "c", PTO_OUT, PTO_F32, 128, 16, sc_loc(1));
    int32_t body = m->kernels[k].body, a1, b1, a0, b0, acc[8], i, s;
    char name[24];
    int64_t o[1];
    a1 = sc_tile(m, body, "a1", PTO_MAT, 16, 16, 1, OFF0, 2);
    m->tiles[a1].dtype = PTO_F16;
    b1 = sc_tile(m, body, "b1", PTO_MAT, 16, 16, 1, (off1(512, o), o), 2);
    m->tiles[b1].dtype = PTO_F16;
    a0 = sc_tile(m, body, "a0", PTO_LEFT, 16, 16, 1, OFF0, 2);
    b0 = sc_tile(m, body, "b0", PTO_RIGHT, 16, 16, 1, OFF0, 2);
    for (i = 0; i < nacc; i++) {
        snprintf(name, sizeof name, "acc%d", i);
        acc[i] = sc_tile(m, body, name, PTO_ACC, 16, 16, 1, (off1(i * 1024, o), o), 3);
    }
    sc_load(m, body, a1, a, sc_int(m, 0), sc_int(m, 0), 4);
    sc_load(m, body, b1, b, sc_int(m, 0), sc_int(m, 0), 5);
    sc_op2(m, body, PTO_OP_TMOV, a0, a1, 6);
    sc_op2(m, body, PTO_OP_TMOV, b0, b1, 7);
    for (i = 0; i < nacc; i++) sc_op3(m, body, PTO_OP_TMATMUL, acc[i], a0, b0, 10 + i);
    for (i = 0; i < nacc; i++) {
        s = sc_store(m, body, c, sc_int(m, 16 * i), sc_int(m, 0), acc[i], 20 + i);
        (void)s;
    }
    return vfy(ctx, m);
}

/* GM read-after-write: tstore z[r0, 0], t; tload u, z[r1, 0] (r = s + d). */
static pto_module *k_gm(pto_ctx *ctx, int64_t d0, int64_t d1, int32_t *svar)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "gm", PTO_KK_VECTOR, sc_loc(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 16, 64, sc_loc(1));
    int32_t z = pto_add_tensor_param(m, k, "z", PTO_INOUT, PTO_F32, 64, 64, sc_loc(1));
    int32_t sp = pto_add_scalar_param(m, k, "s", PTO_I32, sc_loc(1));
    int32_t body = m->kernels[k].body, t, u, r, l;
    int64_t o[1];
    *svar = m->params[sp].var;
    t = sc_tile(m, body, "t", PTO_VEC, 16, 64, 1, OFF0, 2);
    u = sc_tile(m, body, "u", PTO_VEC, 16, 64, 1, (off1(4096, o), o), 3);
    l = pto_add_let(m, body, "r", sc_var(m, *svar), sc_loc(4));
    r = sc_var(m, m->stmts[l].ref);
    sc_load(m, body, t, x, sc_int(m, 0), sc_int(m, 0), 5);
    sc_store(m, body, z, pto_expr_bin(m, PTO_E_ADD, r, sc_int(m, d0), sc_loc(6)), sc_int(m, 0), t, 6);
    sc_load(m, body, u, z, pto_expr_bin(m, PTO_E_ADD, r, sc_int(m, d1), sc_loc(7)), sc_int(m, 0), 7);
    return vfy(ctx, m);
}

/* Nested loops with a tile reused across the outer loop and an x3 tile in the inner one. */
static pto_module *k_nested(pto_ctx *ctx, int32_t *nvar)
{
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k = pto_add_kernel(m, "nest", PTO_KK_VECTOR, sc_loc(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 256, 64, sc_loc(1));
    int32_t z = pto_add_tensor_param(m, k, "z", PTO_OUT, PTO_F32, 256, 64, sc_loc(1));
    int32_t n = pto_add_scalar_param(m, k, "n", PTO_I32, sc_loc(1));
    int32_t body = m->kernels[k].body, acc, f1, f2, b1, b2, a, i, j, row;
    int64_t oa[3] = {4096, 8192, 12288};
    *nvar = m->params[n].var;
    acc = sc_tile(m, body, "acc", PTO_VEC, 16, 64, 1, OFF0, 2);
    f1 = pto_add_for(m, body, "i", sc_int(m, 0), sc_var(m, *nvar), -1, sc_loc(3));
    b1 = m->stmts[f1].body;
    i = sc_var(m, m->stmts[f1].ref);
    {
        int32_t e = sc_op(m, b1, PTO_OP_TEXPANDS, 4);
        pto_arg_tile(m, e, acc, sc_loc(4));
        pto_arg_float(m, e, 0.0, sc_loc(4));
    }
    f2 = pto_add_for(m, b1, "j", sc_int(m, 2), sc_var(m, *nvar), sc_int(m, 3), sc_loc(5));
    b2 = m->stmts[f2].body;
    j = sc_var(m, m->stmts[f2].ref);
    a = sc_tile(m, b2, "a", PTO_VEC, 16, 64, 3, oa, 6);
    row = pto_expr_bin(m, PTO_E_ADD, pto_expr_bin(m, PTO_E_MUL, i, sc_int(m, 16), sc_loc(7)), j, sc_loc(7));
    sc_load(m, b2, a, x, row, sc_int(m, 0), 7);
    sc_op3(m, b2, PTO_OP_TADD, acc, acc, a, 8);
    sc_store(m, b1, z, pto_expr_bin(m, PTO_E_MUL, i, sc_int(m, 16), sc_loc(9)), sc_int(m, 0), acc, 9);
    return vfy(ctx, m);
}

/* ---- tests ------------------------------------------------------------------------ */

static int32_t find_sync(const pto_module *m, int32_t blk, pto_op op, int p, int q)
{
    int32_t s;
    for (s = m->blocks[blk].head; s >= 0; s = m->stmts[s].next)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == op && pto_stmt_arg(m, s, 0)->ref == p
            && (op == PTO_OP_PIPE_BARRIER || pto_stmt_arg(m, s, 1)->ref == q))
            return s;
    return -1;
}

static void test_vadd(void)
{
    pto_ctx *ctx = new_ctx();
    kopt o = {0, 1, 1, 0};
    int32_t nv, f, s;
    pto_module *m = k_vadd(ctx, &o, &nv);
    pto_sync_stats st;
    pto_sync_desc d;
    int64_t ns[] = {0, 1, 2, 3, 5, 8};
    char why[600], buf[300];
    memset(&d, 0, sizeof d);
    d.stats = &st;
    d.check = 1;
    CHECK_MSG(pto_sync(ctx, m, &d) == PTO_OK, "%s", first_diag(ctx, buf, sizeof buf));
    CHECK(pto_diag_count(ctx) == 0);
    CHECK_MSG(check_runs(m, nv, ns, 6, why, sizeof why) == 0, "%s", why);
    /* the forward pairs rotate too: MTE2 runs ahead of V (an id reused every
       iteration could be set again before V's wait consumed it) */
    CHECK(st.flag_pairs == 4 && st.rotating == 4 && st.barriers == 0 && st.fallbacks == 0);
    CHECK(sc_count_pair(m, PTO_PIPE_MTE2, PTO_PIPE_MTE3) == 0);
    f = m->blocks[m->kernels[0].body].head;
    while (m->stmts[f].kind != PTO_ST_FOR) f = m->stmts[f].next;
    s = find_sync(m, m->stmts[f].body, PTO_OP_WAIT_FLAG, PTO_PIPE_MTE2, PTO_PIPE_V);
    CHECK(s >= 0);
    if (s >= 0) {
        CHECK_STR(pto_str(ctx, m->stmts[s].note), "RAW vec[0x2000,0x3000) tload b (t.pto:9) -> tadd c (t.pto:10)");
        int32_t t = s;
        while (m->stmts[t].op != PTO_OP_TADD && m->stmts[t].op != PTO_OP_TSTORE) t = m->stmts[t].next;
        CHECK(m->stmts[t].op == PTO_OP_TADD);
    }
    /* the rotating WAR back edge V -> MTE2 is primed twice before the loop and drained twice after */
    CHECK(find_sync(m, m->kernels[0].body, PTO_OP_SET_FLAG, PTO_PIPE_V, PTO_PIPE_MTE2) >= 0);
    s = find_sync(m, m->stmts[f].body, PTO_OP_WAIT_FLAG, PTO_PIPE_V, PTO_PIPE_MTE2);
    CHECK(s >= 0 && m->stmts[m->stmts[s].next].op == PTO_OP_TLOAD);
    if (s >= 0) CHECK_STR(pto_str(ctx, m->stmts[s].note), "WAR vec[0x0000,0x1000) tadd c (t.pto:10) -> next tload a (t.pto:8)");
    CHECK(sc_count(m, m->kernels[0].body, PTO_OP_SET_FLAG) == 8 && sc_count(m, m->kernels[0].body, PTO_OP_WAIT_FLAG) == 8);
    /* idempotent: a second run finds everything ordered */
    {
        int32_t before = m->n_stmts;
        CHECK(pto_sync(ctx, m, &d) == PTO_OK);
        CHECK(m->n_stmts == before && st.flag_pairs == 0);
        CHECK_MSG(check_runs(m, nv, ns, 6, why, sizeof why) == 0, "%s", why);
    }
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Upstream bug: start 1, step 2 over an x2 tile must alternate ids. */
static void test_step2(void)
{
    pto_ctx *ctx = new_ctx();
    int32_t nv, L, s, iv;
    int rot = 0;
    pto_module *m = k_step2(ctx, &nv, &L);
    int64_t ns[] = {1, 2, 3, 4, 6, 9, 12, 17};
    char why[600], buf[300];
    sc c;
    CHECK_MSG(pto_sync(ctx, m, &checked) == PTO_OK, "%s", first_diag(ctx, buf, sizeof buf));
    CHECK_MSG(check_runs(m, nv, ns, 8, why, sizeof why) == 0, "%s", why);
    iv = m->stmts[L].ref;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.var = (int64_t *)calloc((size_t)m->n_vars, sizeof(int64_t));
    for (s = m->blocks[m->stmts[L].body].head; s >= 0; s = m->stmts[s].next) {
        int32_t e;
        if (m->stmts[s].kind != PTO_ST_OP || (m->stmts[s].op != PTO_OP_WAIT_FLAG && m->stmts[s].op != PTO_OP_SET_FLAG))
            continue;
        e = pto_stmt_arg(m, s, 2)->e[0];
        if (m->exprs[e].kind == PTO_E_INT) continue;
        rot++;
        c.var[iv] = 1;
        CHECK(sc_eval(&c, e) == 0);
        c.var[iv] = 3;
        CHECK(sc_eval(&c, e) == 1);
        c.var[iv] = 5;
        CHECK(sc_eval(&c, e) == 0);
        c.var[iv] = 7;
        CHECK(sc_eval(&c, e) == 1);
    }
    free(c.var);
    CHECK(rot == 8);   /* wait and set of V -> MTE2, MTE3 -> V and the forward MTE2 -> V, V -> MTE3 */
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Slots that share bytes (a degenerate plan) recur every iteration: the
   back edge must not rotate. */
static void test_shared_slots(void)
{
    pto_ctx *ctx = new_ctx();
    int32_t nv, L, s;
    pto_module *m = k_step2(ctx, &nv, &L);
    int64_t ns[] = {1, 3, 5, 9};
    char why[600];
    int rot = 0;
    m->tiles[0].offset[1] = m->tiles[0].offset[0];
    CHECK(pto_sync(ctx, m, &checked) == PTO_OK);
    for (s = m->blocks[m->stmts[L].body].head; s >= 0; s = m->stmts[s].next)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == PTO_OP_WAIT_FLAG && pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_V
            && pto_stmt_arg(m, s, 1)->ref == PTO_PIPE_MTE2)
            rot += m->exprs[pto_stmt_arg(m, s, 2)->e[0]].kind != PTO_E_INT;
    CHECK(rot == 0);
    CHECK_MSG(check_runs(m, nv, ns, 4, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Any start and step: the checker runs every trip count. */
static void test_starts(void)
{
    int64_t starts[] = {0, 1, 3, -2}, steps[] = {1, 2, 3};
    int i, j;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 3; j++) {
            pto_ctx *ctx = new_ctx();
            kopt o;
            int32_t nv;
            pto_module *m;
            int64_t ns[6];
            char why[600];
            int q;
            o.start = starts[i] < 0 ? 0 : starts[i];
            o.step = steps[j];
            o.dyn_end = 1;
            o.end = 0;
            m = k_vadd(ctx, &o, &nv);
            for (q = 0; q < 6; q++) ns[q] = o.start + q * o.step - (q == 5 ? 1 : 0);
            CHECK(pto_sync(ctx, m, &checked) == PTO_OK);
            CHECK_MSG(check_runs(m, nv, ns, 6, why, sizeof why) == 0, "start %lld step %lld: %s", (long long)o.start,
                      (long long)o.step, why);
            pto_module_destroy(m);
            pto_ctx_destroy(ctx);
        }
}

/* Zero-trip loops: prime and drain stay balanced. */
static void test_zero_trip(void)
{
    pto_ctx *ctx = new_ctx();
    kopt o = {4, 1, 1, 0};
    int32_t nv;
    pto_module *m = k_vadd(ctx, &o, &nv);
    int64_t ns[] = {0, 4, 3, -7, 5};
    char why[600];
    sc c;
    int64_t vars[64];
    CHECK(pto_sync(ctx, m, &checked) == PTO_OK);
    CHECK_MSG(check_runs(m, nv, ns, 5, why, sizeof why) == 0, "%s", why);
    memset(vars, 0, sizeof vars);
    vars[nv] = 4;   /* start 4, end 4: zero iterations, only prime and drain run */
    CHECK(sc_run(&c, m, 0, vars) == 0 && c.instrs == 0 && c.syncs == 8);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static void test_branch(void)
{
    int el;
    for (el = 0; el < 2; el++) {
        pto_ctx *ctx = new_ctx();
        int32_t kv, s, body;
        pto_module *m = k_branch(ctx, el, &kv);
        int64_t ks[] = {0, 1};
        char why[600], buf[300];
        CHECK_MSG(pto_sync(ctx, m, &checked) == PTO_OK, "%s", first_diag(ctx, buf, sizeof buf));
        CHECK_MSG(check_runs(m, kv, ks, 2, why, sizeof why) == 0, "%s", why);
        body = m->kernels[0].body;
        for (s = m->blocks[body].head; m->stmts[s].kind != PTO_ST_IF; s = m->stmts[s].next) {}
        /* the load -> use inside the then-branch is ordered there */
        CHECK(find_sync(m, m->stmts[s].body, PTO_OP_SET_FLAG, PTO_PIPE_MTE2, PTO_PIPE_V) >= 0);
        /* after the if, the tmuls of `a` needs a new pair only when the else-branch loads `a` unordered */
        CHECK(sc_count_pair(m, PTO_PIPE_MTE2, PTO_PIPE_V) == (el ? 2 : 1));
        CHECK(sc_count_pair(m, PTO_PIPE_V, PTO_PIPE_MTE3) == 2);
        pto_module_destroy(m);
        pto_ctx_destroy(ctx);
    }
}

static void test_eight_ids(void)
{
    pto_ctx *ctx = new_ctx();
    pto_module *m = k_many(ctx, 8);
    pto_sync_stats st;
    pto_sync_desc d;
    char why[600];
    int32_t s;
    int seen = 0, ok = 1;
    memset(&d, 0, sizeof d);
    d.stats = &st;
    d.check = 1;
    CHECK(pto_sync(ctx, m, &d) == PTO_OK);
    CHECK(pto_diag_count(ctx) == 0 && st.flag_pairs == 8 && st.fallbacks == 0);
    for (s = m->blocks[m->kernels[0].body].head; s >= 0; s = m->stmts[s].next)
        if (m->stmts[s].op == PTO_OP_SET_FLAG && m->stmts[s].kind == PTO_ST_OP) {
            const pto_expr *e = &m->exprs[pto_stmt_arg(m, s, 2)->e[0]];
            ok &= e->kind == PTO_E_INT && e->value == seen;
            seen++;
        }
    CHECK(seen == 8 && ok);
    CHECK_MSG(check_runs(m, -1, NULL, 1, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static void test_nine_ids(void)
{
    pto_ctx *ctx = new_ctx();
    pto_module *m = k_many(ctx, 9);
    pto_sync_stats st;
    pto_sync_desc d;
    char why[600], buf[400];
    memset(&d, 0, sizeof d);
    d.stats = &st;
    d.check = 1;
    CHECK(pto_sync(ctx, m, &d) == PTO_OK);
    /* the ninth pair's set moves down to where the first pair's wait freed
       id 0 (its consumer's wait stays); that set would fire on MTE2 before
       V's wait consumed id 0 (nothing orders that wait first: an id reused
       in program order only), so an order pair V -> MTE2 goes from V's wait
       to the set: no PIPE_ALL, no warning */
    CHECK_MSG(st.flag_pairs == 10 && st.fallbacks == 0 && st.delayed == 1 && st.ordered == 1 && st.shared == 0,
              "pairs %d fallbacks %d delayed %d ordered %d shared %d", st.flag_pairs, st.fallbacks, st.delayed, st.ordered,
              st.shared);
    CHECK_MSG(pto_diag_count(ctx) == 0, "%s", first_diag(ctx, buf, sizeof buf));
    CHECK(sc_count_pair(m, PTO_PIPE_MTE2, PTO_PIPE_V) == 9 && sc_count_pair(m, PTO_PIPE_V, PTO_PIPE_MTE2) == 1);
    {
        int32_t s, n = 0;
        for (s = m->blocks[m->kernels[0].body].head; s >= 0; s = m->stmts[s].next)
            n += m->stmts[s].kind == PTO_ST_OP && m->stmts[s].note
                 && strstr(pto_str(ctx, m->stmts[s].note), "order: id 0 of MTE2 -> V is set again at t.pto:") != NULL;
        CHECK(n == 2);   /* the order pair's set and wait, each saying why */
    }
    CHECK(find_sync(m, m->kernels[0].body, PTO_OP_PIPE_BARRIER, PTO_PIPE_ALL, 0) < 0);
    CHECK_MSG(check_runs(m, -1, NULL, 1, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    /* fewer ids per pair (a knob for tests): 4 ids, five sets delayed */
    pto_diag_clear(ctx);
    m = k_many(ctx, 9);
    d.ids_per_pair = 4;
    CHECK(pto_sync(ctx, m, &d) == PTO_OK && st.fallbacks == 0 && st.delayed == 5 && pto_diag_count(ctx) == 0);
    CHECK_MSG(check_runs(m, -1, NULL, 1, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Rotating carried pairs out of ids share an earlier rotating pair of the
   same loop and pipes (its set moves after their sources) before any
   rotation degrades or falls back to PIPE_ALL: five x2 inputs summed, with
   4 ids per pair, keep two ids and their double buffering. */
static void test_share_rotating(void)
{
    static const char text[] =
        "kernel five(in a: f32[64, 64], in b: f32[64, 64], in c: f32[64, 64], in d: f32[64, 64],\n"
        "            in e: f32[64, 64], out z: f32[64, 64], scalar n: i32) vector {\n"
        "  for i = 0 to n {\n"
        "    tile ta: vec f32[8, 64] x2\n    tile tb: vec f32[8, 64] x2\n    tile tc: vec f32[8, 64] x2\n"
        "    tile td: vec f32[8, 64] x2\n    tile te: vec f32[8, 64] x2\n    tile acc: vec f32[8, 64] x2\n"
        "    tload ta, a[0, 0]\n    tload tb, b[0, 0]\n    tload tc, c[0, 0]\n    tload td, d[0, 0]\n"
        "    tload te, e[0, 0]\n"
        "    tadd acc, ta, tb\n    tadd acc, acc, tc\n    tadd acc, acc, td\n    tadd acc, acc, te\n"
        "    tstore z[0, 0], acc\n"
        "  }\n"
        "}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "five.pto", text, sizeof text - 1);
    pto_sync_stats st;
    pto_sync_desc d;
    int64_t ns[] = {0, 1, 2, 3, 7};
    int32_t p, nv = -1;
    char why[600], buf[600];
    CHECK(m && pto_verify(ctx, m) == PTO_OK && pto_plan(ctx, m, NULL) == PTO_OK);
    if (!m) { pto_ctx_destroy(ctx); return; }
    memset(&d, 0, sizeof d);
    d.stats = &st;
    d.check = 1;
    d.ids_per_pair = 4;
    CHECK(pto_sync(ctx, m, &d) == PTO_OK);
    /* the forward MTE2 -> V pairs rotate too (an id each iteration would be set
       again before V's wait): they share the same way */
    CHECK_MSG(st.shared == 4 && st.degraded == 0 && st.fallbacks == 0 && st.rotating == 6, "shared %d degraded %d "
              "fallbacks %d rotating %d", st.shared, st.degraded, st.fallbacks, st.rotating);
    CHECK(find_sync(m, m->kernels[0].body, PTO_OP_PIPE_BARRIER, PTO_PIPE_ALL, 0) < 0);
    CHECK_STR(first_diag(ctx, buf, sizeof buf),
              "five.pto:13:5: note: sync: out of event ids for V -> MTE2: 2 flag pairs (for td, te) share the "
              "flag pair of WAR vec[0x2000,0x2800) tadd acc (five.pto:16) -> next tload tc (five.pto:12) (its "
              "set_flag moves after their sources; the pair keeps its 2-id rotation, which hides the later wait in "
              "every iteration but the first and the last)");
    CHECK(pto_diag_count(ctx) == 2);
    if (pto_diag_count(ctx) == 2) {
        pto_diag_format(ctx, pto_diag_get(ctx, 1), buf, sizeof buf);
        /* rotating pairs shared: a note, not a warning (review28 L6: sharing them costs a constant at the
           loop's start and end, measured, not a wait per iteration) */
        CHECK_STR(buf, "five.pto:17:5: note: sync: out of event ids for MTE2 -> V: 2 flag pairs (for td, te) share the "
                       "flag pair of RAW vec[0x2000,0x2800) tload tc (five.pto:12) -> tadd acc (five.pto:16) (its set_flag "
                       "moves after their sources; the pair keeps its 2-id rotation, which hides the later wait in every "
                       "iteration but the first and the last)");
    }
    for (p = 0; p < m->n_params; p++)
        if (strcmp(pto_str(ctx, m->params[p].name), "n") == 0) nv = m->params[p].var;
    CHECK_MSG(check_runs(m, nv, ns, 5, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* A rotation that cannot get its ids degrades N -> 2 -> 1 before any PIPE_ALL. */
static void test_degrade(void)
{
    pto_ctx *ctx = new_ctx();
    kopt o = {0, 1, 1, 0};
    int32_t nv;
    pto_module *m = k_vadd(ctx, &o, &nv);
    pto_sync_stats st;
    pto_sync_desc d;
    int64_t ns[] = {0, 1, 2, 3, 7};
    char why[600], buf[400];
    memset(&d, 0, sizeof d);
    d.stats = &st;
    d.check = 1;
    d.ids_per_pair = 1;
    CHECK(pto_sync(ctx, m, &d) == PTO_OK);
    CHECK(st.degraded == 4 && st.fallbacks == 0);   /* the two carried and the two forward pairs */
    CHECK_STR(first_diag(ctx, buf, sizeof buf),
              "t.pto:8:1: warning: sync: out of event ids for V -> MTE2: 1 id instead of 2 rotating for tile a: "
              "WAR vec[0x0000,0x1000) tadd c (t.pto:10) -> next tload a (t.pto:8) (the loop waits here as if a had 1 slot)");
    CHECK_MSG(check_runs(m, nv, ns, 5, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static void test_chain(void)
{
    pto_ctx *ctx = new_ctx();
    pto_module *m = k_chain(ctx);
    pto_sync_stats st;
    pto_sync_desc d;
    char why[600];
    memset(&d, 0, sizeof d);
    d.stats = &st;
    d.check = 1;
    CHECK(pto_sync(ctx, m, &d) == PTO_OK);
    CHECK(st.flag_pairs == 2 && st.barriers == 0);
    CHECK(sc_count_pair(m, PTO_PIPE_MTE2, PTO_PIPE_MTE3) == 0);
    CHECK(sc_count_pair(m, PTO_PIPE_MTE2, PTO_PIPE_V) == 1 && sc_count_pair(m, PTO_PIPE_V, PTO_PIPE_MTE3) == 1);
    CHECK_MSG(check_runs(m, -1, NULL, 1, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static void test_vv(void)
{
    pto_ctx *ctx = new_ctx();
    int32_t join, s;
    pto_module *m = k_vv(ctx, &join);
    pto_sync_stats st;
    pto_sync_desc d;
    char why[600];
    memset(&d, 0, sizeof d);
    d.stats = &st;
    d.check = 1;
    CHECK(pto_sync(ctx, m, &d) == PTO_OK);
    CHECK(st.barriers == 1);
    s = m->stmts[join].prev;
    CHECK(s >= 0 && m->stmts[s].op == PTO_OP_PIPE_BARRIER && pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_V);
    CHECK(sc_count(m, m->kernels[0].body, PTO_OP_PIPE_BARRIER) == 1);
    CHECK_MSG(check_runs(m, -1, NULL, 1, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    /* softmax: 4 dependent V steps after the first need 4 barriers */
    m = k_softmax(ctx);
    CHECK(pto_sync(ctx, m, &d) == PTO_OK);
    CHECK(st.barriers == 4 && st.flag_pairs == 2);
    CHECK_MSG(check_runs(m, -1, NULL, 1, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* M -> FIX may use ids 0..2 only (hardware.md s4). */
static void test_mfix(void)
{
    pto_ctx *ctx = new_ctx();
    pto_module *m = k_cube(ctx, 4);
    pto_sync_stats st;
    pto_sync_desc d;
    char why[600], buf[300];
    int32_t s;
    int maxid = -1;
    memset(&d, 0, sizeof d);
    d.stats = &st;
    d.check = 1;
    CHECK_MSG(pto_sync(ctx, m, &d) == PTO_OK, "%s", first_diag(ctx, buf, sizeof buf));
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].block >= 0 && m->stmts[s].op == PTO_OP_SET_FLAG
            && pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_M && pto_stmt_arg(m, s, 1)->ref == PTO_PIPE_FIX) {
            int v = (int)m->exprs[pto_stmt_arg(m, s, 2)->e[0]].value;
            if (v > maxid) maxid = v;
        }
    CHECK(maxid == 2);
    /* four M -> FIX pairs, three ids: the fourth's set is delayed past the
       first's wait, which nothing orders before it (FIX's wait, M's set):
       an order pair FIX -> M does */
    CHECK_MSG(st.fallbacks == 0 && st.delayed == 1 && st.ordered == 1 && sc_count_pair(m, PTO_PIPE_M, PTO_PIPE_FIX) == 4
              && sc_count_pair(m, PTO_PIPE_FIX, PTO_PIPE_M) == 1, "fallbacks %d delayed %d ordered %d", st.fallbacks,
              st.delayed, st.ordered);
    CHECK_MSG(check_runs(m, -1, NULL, 1, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static void test_gm(void)
{
    struct { int64_t d0, d1; int pairs; } cases[] = {{0, 0, 1}, {0, 16, 0}, {16, 0, 0}, {0, 8, 1}, {8, 0, 1}, {0, -15, 1}};
    int i;
    for (i = 0; i < 6; i++) {
        pto_ctx *ctx = new_ctx();
        int32_t sv;
        pto_module *m = k_gm(ctx, cases[i].d0 + 16, cases[i].d1 + 16, &sv);
        int64_t ss[] = {0, 8, 16};
        char why[600];
        CHECK(pto_sync(ctx, m, &checked) == PTO_OK);
        CHECK_MSG(sc_count_pair(m, PTO_PIPE_MTE3, PTO_PIPE_MTE2) == cases[i].pairs, "case %d", i);
        CHECK_MSG(check_runs(m, sv, ss, 3, why, sizeof why) == 0, "%s", why);
        pto_module_destroy(m);
        pto_ctx_destroy(ctx);
    }
}

static void test_nested(void)
{
    pto_ctx *ctx = new_ctx();
    int32_t nv;
    pto_module *m = k_nested(ctx, &nv);
    int64_t ns[] = {0, 1, 2, 3, 5, 6, 9, 12};
    char why[600], buf[300];
    CHECK_MSG(pto_sync(ctx, m, &checked) == PTO_OK, "%s", first_diag(ctx, buf, sizeof buf));
    CHECK_MSG(check_runs(m, nv, ns, 8, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Literal trip counts no larger than the loop's period (pto__sy_unrolled):
   a K loop of 2 steps over x2 tiles reuses no slot, so it gets no carried
   (primed, rotating) pair; 3 steps do reuse one and get it; and a single
   tile of the same 2-step loop still gets its carried WAR (distance 1). The
   checker runs each kernel (literal bounds: one run). */
static int count_primes(pto_ctx *ctx, const pto_module *m)
{
    int32_t s, n = 0;
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == PTO_OP_SET_FLAG && m->stmts[s].note
            && strncmp(pto_str(ctx, m->stmts[s].note), "prime: ", 7) == 0)
            n++;
    return n;
}

static void unrolled_case(const char *name, const char *body, int want_primes)
{
    char text[1024], why[600], buf[300];
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m;
    int n;
    snprintf(text, sizeof text,
             "kernel k(in x: f32[64, 64], out y: f32[64, 64]) vector {\n"
             "%s"
             "}\n", body);
    m = pto_parse(ctx, name, text, strlen(text));
    CHECK_MSG(m && pto_verify(ctx, m) == PTO_OK && pto_plan(ctx, m, NULL) == PTO_OK, "%s: %s", name,
              first_diag(ctx, buf, sizeof buf));
    if (!m) { pto_ctx_destroy(ctx); return; }
    CHECK_MSG(pto_sync(ctx, m, &checked) == PTO_OK, "%s: %s", name, first_diag(ctx, buf, sizeof buf));
    n = count_primes(ctx, m);
    CHECK_MSG(n == want_primes, "%s: %d primes, want %d", name, n, want_primes);
    CHECK_MSG(check_runs(m, -1, OFF0, 1, why, sizeof why) == 0, "%s: %s", name, why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static void test_unrolled(void)
{
    static const char two[] =
        "  for k = 0 to 64 step 32 {\n"
        "    tile t: vec f32[8, 32] x2\n"
        "    tile u: vec f32[8, 32] x2\n"
        "    tload t, x[0, k]\n"
        "    texp u, t\n"
        "    tstore y[0, k], u\n"
        "  }\n";
    static const char three[] =
        "  for k = 0 to 48 step 16 {\n"
        "    tile t: vec f32[8, 16] x2\n"
        "    tile u: vec f32[8, 16] x2\n"
        "    tload t, x[0, k]\n"
        "    texp u, t\n"
        "    tstore y[0, k], u\n"
        "  }\n";
    static const char single[] =
        "  for k = 0 to 64 step 32 {\n"
        "    tile t: vec f32[8, 32]\n"
        "    tile u: vec f32[8, 32] x2\n"
        "    tload t, x[0, k]\n"
        "    texp u, t\n"
        "    tstore y[0, k], u\n"
        "  }\n";
    unrolled_case("two.pto", two, 0);
    unrolled_case("three.pto", three, 4);   /* V -> MTE2 and MTE3 -> V, two ids each */
    unrolled_case("single.pto", single, 1); /* t's WAR V -> MTE2 every iteration: one id */
}

/* An inner loop's carried pair is primed before, and drained after, the
   loops around it whose bodies touch its bytes only through it
   (pto__sy_anchor): its pipeline no longer empties at every outer
   iteration. Not when the outer body touches them. The checker runs each
   for several trip counts. */
static int32_t prime_block(pto_ctx *ctx, const pto_module *m)
{
    int32_t s;
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == PTO_OP_SET_FLAG && m->stmts[s].note
            && m->stmts[s].block >= 0 && strncmp(pto_str(ctx, m->stmts[s].note), "prime: ", 7) == 0)
            return m->stmts[s].block;
    return -2;
}

static void hoist_case(const char *name, const char *text, int want_top)
{
    char why[600], buf[300];
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, name, text, strlen(text));
    int64_t ns[] = {0, 1, 2, 3, 5};
    int32_t p, nv = -1, b;
    CHECK_MSG(m && pto_verify(ctx, m) == PTO_OK && pto_plan(ctx, m, NULL) == PTO_OK, "%s: %s", name,
              first_diag(ctx, buf, sizeof buf));
    if (!m) { pto_ctx_destroy(ctx); return; }
    CHECK_MSG(pto_sync(ctx, m, &checked) == PTO_OK, "%s: %s", name, first_diag(ctx, buf, sizeof buf));
    b = prime_block(ctx, m);
    CHECK_MSG((b == m->kernels[0].body) == want_top, "%s: the first prime is %sin the kernel body", name,
              b == m->kernels[0].body ? "" : "not ");
    for (p = 0; p < m->n_params; p++)
        if (strcmp(pto_str(ctx, m->params[p].name), "n") == 0) nv = m->params[p].var;
    CHECK_MSG(check_runs(m, nv, ns, 5, why, sizeof why) == 0, "%s: %s", name, why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static void test_hoist(void)
{
    static const char nest[] =
        "kernel k(in x: f32[256, 64], out y: f32[256, 64], scalar n: i32) vector {\n"
        "  for i = 0 to n {\n"
        "    for j = 0 to n {\n"
        "      tile t: vec f32[16, 64] x2\n"
        "      tload t, x[i * 16 + j, 0]\n"
        "      texp t, t\n"
        "      tstore y[i * 16 + j, 0], t\n"
        "    }\n"
        "  }\n"
        "}\n";
    /* u, in the outer body, is placed over t's slot 0 (at): the outer
       body touches t's bytes, so t's pair stays around the inner loop */
    static const char shared[] =
        "kernel k(in x: f32[256, 64], out y: f32[256, 64], scalar n: i32) vector {\n"
        "  for i = 0 to n {\n"
        "    for j = 0 to n {\n"
        "      tile t: vec f32[16, 64] x2 at 0x0\n"
        "      tload t, x[i * 16 + j, 0]\n"
        "      texp t, t\n"
        "      tstore y[i * 16 + j, 0], t\n"
        "    }\n"
        "    tile u: vec f32[16, 64] at 0x0\n"
        "    tload u, x[i, 0]\n"
        "    tstore y[i, 0], u\n"
        "  }\n"
        "}\n";
    hoist_case("nest.pto", nest, 1);
    hoist_case("shared.pto", shared, 0);
}

/* Whether a wait_flag V -> MTE2 whose note names `tile` (the first loop's
   drain) comes after the second loop of the kernel body. */
/* A sync statement (op; V -> MTE2 when vm) whose note names `tile`, in
   the kernel body after `loops` of its loops. */
static int flag_after_loops(pto_ctx *ctx, const pto_module *m, int op, int vm, int loops, const char *tile)
{
    int32_t s, n = 0;
    for (s = m->blocks[m->kernels[0].body].head; s >= 0; s = m->stmts[s].next) {
        if (m->stmts[s].kind == PTO_ST_FOR) n++;
        else if (n == loops && m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == op
                 && (!vm || (pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_V && pto_stmt_arg(m, s, 1)->ref == PTO_PIPE_MTE2))
                 && m->stmts[s].note && strstr(pto_str(ctx, m->stmts[s].note), tile))
            return 1;
    }
    return 0;
}

static int drain_after_second_loop(pto_ctx *ctx, const pto_module *m, const char *tile)
{
    return flag_after_loops(ctx, m, PTO_OP_WAIT_FLAG, 1, 2, tile);
}

static int prime_before_first_loop(pto_ctx *ctx, const pto_module *m, const char *tile)
{
    return flag_after_loops(ctx, m, PTO_OP_SET_FLAG, 0, 0, tile);
}

static void flow_case(const char *name, const char *text, int (*where)(pto_ctx *, const pto_module *, const char *),
                      const char *what, const char *tile, int want, int want_degraded, int want_fallbacks);

static void sink_case(const char *name, const char *text, const char *tile, int want_after, int want_degraded,
                      int want_fallbacks)
{
    flow_case(name, text, drain_after_second_loop, "the first loop's V -> MTE2 drain is after the second loop", tile,
              want_after, want_degraded, want_fallbacks);
}

static void flow_case(const char *name, const char *text, int (*where)(pto_ctx *, const pto_module *, const char *),
                      const char *what, const char *tile, int want, int want_degraded, int want_fallbacks)
{
    char why[600], buf[300];
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, name, text, strlen(text));
    int64_t ns[] = {0, 1, 2, 3, 5};
    int32_t p, nv = -1;
    pto_sync_stats st;
    pto_sync_desc d = checked;
    d.stats = &st;
    CHECK_MSG(m && pto_verify(ctx, m) == PTO_OK && pto_plan(ctx, m, NULL) == PTO_OK, "%s: %s", name,
              first_diag(ctx, buf, sizeof buf));
    if (!m) { pto_ctx_destroy(ctx); return; }
    CHECK_MSG(pto_sync(ctx, m, &d) == PTO_OK, "%s: %s", name, first_diag(ctx, buf, sizeof buf));
    CHECK_MSG(where(ctx, m, tile) == want, "%s: not so: %s", name, what);
    CHECK_MSG(st.degraded == want_degraded && st.fallbacks == want_fallbacks && st.shared == 0, "%s: degraded %d fallbacks %d shared %d",
              name, st.degraded, st.fallbacks, st.shared);
    for (p = 0; p < m->n_params; p++)
        if (strcmp(pto_str(ctx, m->params[p].name), "n") == 0) nv = m->params[p].var;
    CHECK_MSG(check_runs(m, nv, ns, 5, why, sizeof why) == 0, "%s: %s", name, why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Three loops, x6 on both tiles, all on their own bytes (24 ids of one pipe
   pair would be needed at once without moving flags back). */
static void three_loops(char *six)
{
    char *w = six;
    int l, t;
    w += sprintf(w, "kernel k(in x: f32[1024, 128], out y: f32[1024, 128], scalar n: i32) vector {\n");
    for (l = 0; l < 3; l++) {
        w += sprintf(w, "  for i = 0 to n {\n");
        for (t = 0; t < 2; t++)
            w += sprintf(w, "    tile %c%d: vec f32[8, 128] x6 at 0x%x\n", "ab"[t], l, (unsigned)((l * 2 + t) * 6 * 4096));
        w += sprintf(w, "    tload a%d, x[i * 8, 0]\n    texp b%d, a%d\n    tstore y[i * 8 + %d, 0], b%d\n  }\n", l, l, l,
                     l * 128, l);
    }
    sprintf(w, "}\n");
}

/* `apart` with its second tile moved from 0x8000 onto the first's first slot. */
static void over_first_slot(char *over, size_t cap, const char *apart)
{
    const char *at = strstr(apart, "at 0x8000");
    size_t n = (size_t)(at - apart);
    memcpy(over, apart, n);
    snprintf(over + n, cap - n, "at 0x1000%s", at + 9);
}

/* A carried pair's drain (a wait_flag on the consumer pipe, which runs in
   order) moves down past the next loop when that loop's consumer-pipe
   accesses touch nothing the producer pipe touched in the first loop: the
   second loop's loads then start under the first loop's last compute
   (pto__sy_sink). Not when the next loop reuses the bytes (b over a's
   slot), and back after its loop (pto__sy_unsink) when ids run short:
   three loops of x6 rotations on disjoint bytes keep their rotations. */
static void test_sink(void)
{
    static const char apart[] =
        "kernel k(in x: f32[256, 64], out y: f32[256, 64], scalar n: i32) vector {\n"
        "  tile s: vec f32[16, 1]\n"
        "  texpands s, 0.0\n"
        "  for i = 0 to n {\n"
        "    tile a: vec f32[16, 64] x2 at 0x0\n"
        "    tile cs: vec f32[16, 1] x2\n"
        "    tload a, x[i * 16, 0]\n"
        "    trowsum cs, a\n"
        "    tadd s, s, cs\n"
        "  }\n"
        "  for j = 0 to n {\n"
        "    tile b: vec f32[16, 64] x2 at 0x8000\n"
        "    tload b, x[j * 16, 0]\n"
        "    trowexpandsub b, b, s\n"
        "    tstore y[j * 16, 0], b\n"
        "  }\n"
        "}\n";
    char over[1200], six[2400];
    /* the same kernel with b over a's first slot */
    over_first_slot(over, sizeof over, apart);
    sink_case("apart.pto", apart, "next tload a ", 1, 0, 0);
    sink_case("over.pto", over, "next tload a ", 0, 0, 0);
    /* three loops, x6 on both tiles, all on their own bytes */
    three_loops(six);
    /* the forward pairs rotate 6 ids too now (MTE2 may run a whole
       iteration ahead of V): each loop's reuse of the previous loop's ids
       takes one order pair per pipe pair, after the latest of the previous
       waits (pto__sy_viol_latest), so the reverse ids suffice: no fallback
       (two groups fell back when each reuse had a pair of its own) */
    sink_case("six.pto", six, "next tload a0 ", 0, 0, 0);
}

/* A carried pair's prime (a set_flag on the producer pipe, here MTE3 ->
   MTE2: tstore, then the next tload of the slot) moves up past the loop
   before its own when that loop's
   producer-pipe accesses touch nothing the consumer pipe touches in its
   loop: the second loop's first loads then need not wait for the first
   loop's last compute (pto__sy_rise). Not when the second loop's tile
   reuses the first loop's bytes, and back before its loop
   (pto__sy_unrise) when ids run short: three loops of x6 rotations on
   disjoint bytes keep their rotations. check_runs proves each for trip
   counts 0, 1, 2, 3 and 5 (the second loop's set captured less). */
static void test_rise(void)
{
    static const char apart[] =
        "kernel k(in x: f32[256, 64], out y: f32[256, 64], out z: f32[256, 64], scalar n: i32) vector {\n"
        "  for i = 0 to n {\n"
        "    tile a: vec f32[16, 64] x2 at 0x0\n"
        "    tload a, x[i * 16, 0]\n"
        "    texp a, a\n"
        "    tstore y[i * 16, 0], a\n"
        "  }\n"
        "  for j = 0 to n {\n"
        "    tile b: vec f32[16, 64] x2 at 0x8000\n"
        "    tload b, x[j * 16, 0]\n"
        "    tabs b, b\n"
        "    tstore z[j * 16, 0], b\n"
        "  }\n"
        "}\n";
    char over[1200], six[2400], *w;
    const char *what = "a prime of the second loop is before the first loop";
    over_first_slot(over, sizeof over, apart);
    flow_case("apart.pto", apart, prime_before_first_loop, what, "next tload b ", 1, 0, 0);
    flow_case("over.pto", over, prime_before_first_loop, what, "next tload b ", 0, 0, 0);
    three_loops(six);
    flow_case("six.pto", six, prime_before_first_loop, what, "next tload a1 ", 0, 0, 0);   /* as in test_sink */
    /* the same kernel with x2 tiles: there are ids, so they rise */
    for (w = six; (w = strstr(w, " x6 ")) != NULL;) w[2] = '2';
    flow_case("two.pto", six, prime_before_first_loop, what, "next tload a1 ", 1, 0, 0);
}

/* A rotation whose primes and drains pto__sy_anchor moved out to the
   outer loop may only degrade to a divisor of itself: a run's first waits
   pair with the previous run's last sets of the same id, so an x3 tile on
   2 ids (the kernel's own flags hold two of V -> MTE2's) left the WAW of
   slot 0 across runs unordered (review11's find; the self-check said so,
   and with it off the simulator saw a race). It goes to 1 id instead. */
static void test_degrade_outer(void)
{
    static const char text[] =
        "kernel k(in x: f32[512, 64], inout z: f32[512, 64], scalar n: i32) vector {\n"
        "  for i0 = 0 to n {\n"
        "    for i4 = 0 to n {\n"
        "      tile t6: vec f32[8, 32] x2\n"
        "      tile t8: vec f32[8, 1] x3\n"
        "      tload t6, x[i4 * 8, 0]\n"
        "      tload t8, z[i4 * 8 + 8, 63]\n"
        "      tmins t8, t8, 0.5\n"
        "      texpands t6, 1.5\n"
        "    }\n"
        "  }\n"
        "  set_flag V, MTE2, 4\n"
        "  set_flag V, MTE2, 5\n"
        "  wait_flag V, MTE2, 4\n"
        "  wait_flag V, MTE2, 5\n"
        "}\n";
    char why[600], buf[300];
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "deg.pto", text, strlen(text));
    int64_t ns[] = {0, 1, 2, 3, 4, 5, 7};
    pto_sync_stats st;
    pto_sync_desc d = checked;
    d.stats = &st;
    CHECK_MSG(m && pto_verify(ctx, m) == PTO_OK && pto_plan(ctx, m, NULL) == PTO_OK, "%s", first_diag(ctx, buf, sizeof buf));
    if (!m) { pto_ctx_destroy(ctx); return; }
    CHECK_MSG(pto_sync(ctx, m, &d) == PTO_OK, "%s", first_diag(ctx, buf, sizeof buf));
    CHECK_MSG(st.degraded == 1 && st.fallbacks == 0, "degraded %d fallbacks %d", st.degraded, st.fallbacks);
    CHECK_MSG(check_runs(m, m->params[2].var, ns, 7, why, sizeof why) == 0, "%s", why);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static void test_unplanned(void)
{
    pto_ctx *ctx = new_ctx();
    pto_module *m = k_chain(ctx);
    char buf[300];
    m->tiles[0].planned = 0;
    CHECK(pto_sync(ctx, m, &checked) == PTO_ERR_USER);
    CHECK_STR(first_diag(ctx, buf, sizeof buf), "t.pto:3:1: error: sync: tile 't' is not planned (run the planner first)");
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Malformed ids from the C API (names out of the string pool, statements
   without a file) reach the notes: they read as "" / no file, never past
   the pool (the sanitizer build of this test is what proves it). */
static void test_malformed_ids(void)
{
    static const int32_t bad[3] = {-1, 1 << 20, 0};
    int i;
    for (i = 0; i < 3; i++) {
        pto_ctx *ctx = new_ctx();
        pto_module *m = k_chain(ctx);
        int32_t s;
        if (bad[i]) {
            m->tiles[0].name = bad[i];
            m->params[0].name = bad[i];
            m->params[1].name = bad[i];
        } else {
            for (s = 0; s < m->n_stmts; s++) m->stmts[s].loc.file = -1;
        }
        CHECK_MSG(pto_sync(ctx, m, &checked) == PTO_OK, "case %d", i);
        CHECK(m->n_stmts > 4);
        pto_module_destroy(m);
        pto_ctx_destroy(ctx);
    }
}

/* The dump lists every sync with its dependency, each note once: a set_flag
   and the wait_flag right after it share it (review26a L8). */
static void test_dump(void)
{
    pto_ctx *ctx = new_ctx();
    pto_module *m = k_chain(ctx);
    pto_buf b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    CHECK(pto_sync(ctx, m, &checked) == PTO_OK);
    pto_sync_dump(m, &b);
    CHECK_STR(b.data,
              "kernel chain  # sync: 2 set_flag, 2 wait_flag, 0 pipe_barrier (0 PIPE_ALL fallbacks)\n"
              "  tile t: vec f32[16, 64] x1 at 0x0000\n"
              "  tload t, x[0, 0]\n"
              "  # RAW vec[0x0000,0x1000) tload t (t.pto:3) -> texp t (t.pto:4)\n"
              "  set_flag MTE2, V, 0\n"
              "  wait_flag MTE2, V, 0\n"
              "  texp t, t\n"
              "  # RAW vec[0x0000,0x1000) texp t (t.pto:4) -> tstore z (t.pto:5)\n"
              "  set_flag V, MTE3, 0\n"
              "  wait_flag V, MTE3, 0\n"
              "  tstore z[0, 0], t\n");
    pto_buf_free(&b);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* A rotating id of a loop from 0 prints as `r / 16 % 2`, as the emitted C
   does, not as the tree `0 + (r - 0) / 16 % 2` (review20 L10); a loop from
   8 keeps its start: `(r - 8) / 16 % 2`. */
static void test_dump_rotation(void)
{
    static const char *const text[2] = {
        "kernel k(in x: f32[64, 64], out y: f32[64, 64]) vector {\n"
        "  for r = 0 to 64 step 16 {\n"
        "    tile t: vec f32[16, 64] x2\n"
        "    tload t, x[r, 0]\n"
        "    texp t, t\n"
        "    tstore y[r, 0], t\n"
        "  }\n"
        "}\n",
        "kernel k(in x: f32[64, 64], out y: f32[64, 64]) vector {\n"
        "  for r = 8 to 56 step 16 {\n"
        "    tile t: vec f32[16, 64] x2\n"
        "    tload t, x[r, 0]\n"
        "    texp t, t\n"
        "    tstore y[r, 0], t\n"
        "  }\n"
        "}\n"};
    static const char *const want[2] = {"  wait_flag MTE2, V, r / 16 % 2\n", "  wait_flag MTE2, V, (r - 8) / 16 % 2\n"};
    int i;
    for (i = 0; i < 2; i++) {
        pto_ctx *ctx = new_ctx();
        pto_module *m = pto_parse(ctx, "rot.pto", text[i], strlen(text[i]));
        pto_buf b;
        memset(&b, 0, sizeof b);
        b.ctx = ctx;
        CHECK(m && pto_verify(ctx, m) == PTO_OK && pto_plan(ctx, m, NULL) == PTO_OK);
        if (!m) { pto_ctx_destroy(ctx); continue; }
        CHECK(pto_sync(ctx, m, &checked) == PTO_OK);
        pto_sync_dump(m, &b);
        CHECK_MSG(b.data && strstr(b.data, want[i]) != NULL, "case %d: no '%s' in\n%s", i, want[i], b.data ? b.data : "");
        CHECK_MSG(b.data && !strstr(b.data, "0 + ") && !strstr(b.data, "- 0)"), "case %d: identities left in\n%s", i,
                  b.data ? b.data : "");
        /* the loop-carried WAR's set_flag after the tstore refers back to its wait_flag's note
           (review26a L8: the note was printed twice), and the note is printed once */
        CHECK_MSG(b.data && strstr(b.data, "    tstore y[r, 0], t\n    set_flag MTE3, MTE2, ") &&
                  strstr(b.data, "  # see the wait_flag at rot.pto:4\n"), "case %d: no reference back in\n%s", i,
                  b.data ? b.data : "");
        CHECK_MSG(b.data && strstr(b.data, "    # WAR vec") && !strstr(strstr(b.data, "    # WAR vec") + 1, "    # WAR vec"),
                  "case %d: the WAR note twice in the loop\n%s", i, b.data ? b.data : "");
        {   /* ptoc dump sync the same way: the note on the first line, the rest refer to it */
            pto_buf d;
            memset(&d, 0, sizeof d);
            d.ctx = ctx;
            pto_dump(m, &d);
            CHECK_MSG(d.data && strstr(d.data, "  # by sync: see the wait_flag at rot.pto:4\n") &&
                      strstr(d.data, "MTE3, MTE2, 0  # by sync: prime: WAR") && strstr(d.data, "  # by sync: as the line above\n"),
                      "case %d: dump\n%s", i, d.data ? d.data : "");
            pto_buf_free(&d);
        }
        pto_buf_free(&b);
        pto_module_destroy(m);
        pto_ctx_destroy(ctx);
    }
}

/* ---- necessity at IR level ------------------------------------------------------
   For each kernel, remove one inserted group at a time (a flag pair with its
   primes and drains, or one barrier): the checker must then report a race
   or flag misuse for some trip count. */

typedef pto_module *(*builder)(pto_ctx *, int32_t *);

static pto_module *b_vadd(pto_ctx *c, int32_t *v) { kopt o = {0, 1, 1, 0}; return k_vadd(c, &o, v); }
static pto_module *b_step2(pto_ctx *c, int32_t *v) { int32_t L; return k_step2(c, v, &L); }
static pto_module *b_branch(pto_ctx *c, int32_t *v) { return k_branch(c, 1, v); }
static pto_module *b_softmax(pto_ctx *c, int32_t *v) { *v = -1; return k_softmax(c); }
static pto_module *b_nested(pto_ctx *c, int32_t *v) { return k_nested(c, v); }
static pto_module *b_cube(pto_ctx *c, int32_t *v) { *v = -1; return k_cube(c, 3); }
static pto_module *b_gm(pto_ctx *c, int32_t *v) { return k_gm(c, 16, 20, v); }

/* The group key of a sync statement: barriers alone; flags by pipes and note. */
static int same_group(const pto_module *m, int32_t a, int32_t b)
{
    const char *na, *nb;
    if (m->stmts[a].op == PTO_OP_PIPE_BARRIER || m->stmts[b].op == PTO_OP_PIPE_BARRIER) return a == b;
    if (pto_stmt_arg(m, a, 0)->ref != pto_stmt_arg(m, b, 0)->ref || pto_stmt_arg(m, a, 1)->ref != pto_stmt_arg(m, b, 1)->ref)
        return 0;
    na = pto_str(m->ctx, m->stmts[a].note);
    nb = pto_str(m->ctx, m->stmts[b].note);
    if (strncmp(na, "prime: ", 7) == 0 || strncmp(na, "drain: ", 7) == 0) na += 7;
    if (strncmp(nb, "prime: ", 7) == 0 || strncmp(nb, "drain: ", 7) == 0) nb += 7;
    return strcmp(na, nb) == 0;
}

static int necessity(builder bld, const int64_t *vals, int nvals, int *groups)
{
    int g, unneeded = 0;
    *groups = 0;
    for (g = 0;; g++) {
        pto_ctx *ctx = new_ctx();
        int32_t v, s, leader = -1;
        int gi = 0;
        pto_module *m = bld(ctx, &v);
        char why[600];
        int64_t one = 0;
        pto_sync(ctx, m, &checked);
        for (s = 0; s < m->n_stmts && leader < 0; s++) {
            int32_t t, first = 1;
            if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].origin != PTO_BY_SYNC || m->stmts[s].block < 0) continue;
            for (t = 0; t < s; t++)
                if (m->stmts[t].kind == PTO_ST_OP && m->stmts[t].origin == PTO_BY_SYNC && m->stmts[t].block >= 0
                    && same_group(m, t, s))
                    first = 0;
            if (first && gi++ == g) leader = s;
        }
        if (leader < 0) { pto_module_destroy(m); pto_ctx_destroy(ctx); break; }
        for (s = m->n_stmts - 1; s >= 0; s--)
            if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].origin == PTO_BY_SYNC && m->stmts[s].block >= 0
                && same_group(m, leader, s))
                pto_unlink(m, s);
        if (check_runs(m, v, v >= 0 ? vals : &one, v >= 0 ? nvals : 1, why, sizeof why) == 0) {
            printf("unneeded group %d: %s\n", g, pto_str(ctx, m->stmts[leader].note));
            unneeded++;
        }
        (*groups)++;
        pto_module_destroy(m);
        pto_ctx_destroy(ctx);
    }
    return unneeded;
}

static void test_necessity(void)
{
    int64_t ns[] = {0, 1, 2, 3, 4, 7, 9, 13};
    int64_t ks[] = {0, 1};
    int64_t ss[] = {0};
    int groups, total = 0;
    CHECK(necessity(b_vadd, ns, 8, &groups) == 0 && groups == 4);
    total += groups;
    CHECK(necessity(b_step2, ns, 8, &groups) == 0 && groups == 4);
    total += groups;
    CHECK(necessity(b_branch, ks, 2, &groups) == 0 && groups == 4);
    total += groups;
    CHECK(necessity(b_softmax, ss, 1, &groups) == 0 && groups == 6);
    total += groups;
    CHECK(necessity(b_nested, ns, 8, &groups) == 0 && groups >= 4);
    total += groups;
    CHECK(necessity(b_cube, ss, 1, &groups) == 0 && groups >= 5);
    total += groups;
    CHECK(necessity(b_gm, ss, 1, &groups) == 0 && groups == 2);
    total += groups;
    printf("necessity: %d groups removed one at a time, each caught\n", total);
}

/* The bench's shape (bench/emit_bench.c): loops of loads, vector chains
   and stores, each with its own tiles. A softmax-like stage's MTE3 -> MTE2
   ids come round again four such stages later; no MTE2 -> MTE3 pair lies
   between, but the loops between chain MTE2 -> V -> MTE3, which the
   colouring counts (pto__sy_chain_sure): with check off the CHECK analysis
   does not run (one analysis round fewer than with check on), and the
   result is the same. Loops between of unknown trip count may not run:
   there the chain shows nothing (the CHECK analysis runs, and orders
   some reuses), and the result is the same both ways. */
static void chain_text(char *t, size_t cap, int nloops, const char *trips)
{
    int l, n = snprintf(t, cap, "kernel k(in x: f32[1024, 128], in y: f32[1024, 128], out z: f32[1024, 128], "
                                "scalar alpha: f32, scalar n: i32) vector {\n");
    for (l = 0; l < nloops && n > 0 && (size_t)n < cap; l++) {
        n += snprintf(t + n, cap - (size_t)n, "  for i%d = 0 to %s {\n    let r%d = i%d * 16 + %d * 16\n", l,
                      l % 3 == 2 ? "4" : trips, l, l, l % 4);
        if (n <= 0 || (size_t)n >= cap) break;
        if (l % 3 == 0)
            n += snprintf(t + n, cap - (size_t)n,
                          "    tile a%d: vec f32[16, 128] x2\n    tile b%d: vec f32[16, 128] x2\n    tload a%d, x[r%d, 0]\n"
                          "    tadds b%d, a%d, 1.5\n    tmuls b%d, b%d, alpha\n    tmul b%d, b%d, a%d\n"
                          "    tstore z[r%d, 0], b%d\n  }\n", l, l, l, l, l, l, l, l, l, l, l, l, l);
        else if (l % 3 == 1)
            n += snprintf(t + n, cap - (size_t)n,
                          "    tile a%d: vec f32[16, 128] x2\n    tile b%d: vec f32[16, 128] x2\n    tile c%d: vec f32[16, 128] x2\n"
                          "    tload a%d, x[r%d, 0]\n    tload b%d, y[r%d, 0]\n    tadd c%d, a%d, b%d\n"
                          "    tstore z[r%d, 0], c%d\n  }\n", l, l, l, l, l, l, l, l, l, l, l, l);
        else
            n += snprintf(t + n, cap - (size_t)n,
                          "    tile t%d: vec f32[16, 128] x2\n    tile m%d: vec f32[16, 1]\n    tile s%d: vec f32[16, 1]\n"
                          "    tload t%d, x[r%d, 0]\n    trowmax m%d, t%d\n    trowexpandsub t%d, t%d, m%d\n    texp t%d, t%d\n"
                          "    trowsum s%d, t%d\n    trowexpanddiv t%d, t%d, s%d\n    tstore z[r%d, 0], t%d\n  }\n",
                          l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l);
    }
    if (n > 0 && (size_t)n < cap) snprintf(t + n, cap - (size_t)n, "}\n");
}

/* Synchronises text with check on or off: the dump (malloc'd; NULL on
   failure) and the stats. */
static char *chain_sync(const char *text, int check, pto_sync_stats *stats)
{
    char buf[300], *r = NULL;
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "chain.pto", text, strlen(text));
    pto_sync_desc d;
    pto_buf out;
    memset(&d, 0, sizeof d);
    memset(&out, 0, sizeof out);
    d.check = check;
    d.stats = stats;
    out.ctx = ctx;
    if (m && pto_verify(ctx, m) == PTO_OK && pto_plan(ctx, m, NULL) == PTO_OK && pto_sync(ctx, m, &d) == PTO_OK) {
        pto_dump(m, &out);
        if (!out.oom && out.data && (r = (char *)malloc(strlen(out.data) + 1)) != NULL) strcpy(r, out.data);
        if (!check) {
            char why[600];
            CHECK_MSG(check_runs(m, -1, OFF0, 1, why, sizeof why) == 0, "chain kernel: %s", why);
        }
    } else {
        CHECK_MSG(0, "chain kernel: %s", first_diag(ctx, buf, sizeof buf));
    }
    pto_buf_free(&out);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
    return r;
}

static void test_chain_proof(void)
{
    static const char *const trips[2] = {"4", "n"};
    char text[8192];
    int k;
    for (k = 0; k < 2; k++) {
        pto_sync_stats off, on;
        char *a, *b;
        memset(&off, 0, sizeof off);
        memset(&on, 0, sizeof on);
        chain_text(text, sizeof text, 18, trips[k]);
        a = chain_sync(text, 0, &off);
        b = chain_sync(text, 1, &on);
        CHECK_MSG(a && b && strcmp(a, b) == 0, "trips %s: the same statements with check off and on", trips[k]);
        if (k == 0) {
            CHECK_MSG(on.ordered == 0, "literal trips: no order pair (%d)", on.ordered);
            CHECK_MSG(off.rounds == on.rounds - 1, "literal trips: the CHECK analysis skipped with check off (rounds %d, %d)",
                      off.rounds, on.rounds);
        } else
            CHECK_MSG(off.rounds == on.rounds, "trips n: the CHECK analysis runs with check off (rounds %d, %d)", off.rounds,
                      on.rounds);
        free(a);
        free(b);
    }
}

/* The checker itself catches planted bugs. */
static void test_checker_catches(void)
{
    pto_ctx *ctx = new_ctx();
    pto_module *m = k_chain(ctx);
    sc c;
    int32_t s;
    pto_sync(ctx, m, &checked);
    /* drop the wait of MTE2 -> V: the set is never waited and texp races the load */
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == PTO_OP_WAIT_FLAG && pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_MTE2)
            pto_unlink(m, s);
    CHECK(sc_run(&c, m, 0, NULL) > 0);
    CHECK_STR(c.msg, "line 4: race: write on V after an unordered write by MTE2");
    pto_module_destroy(m);
    m = k_chain(ctx);
    pto_sync(ctx, m, &checked);
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == PTO_OP_SET_FLAG && pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_V)
            pto_unlink(m, s);
    CHECK(sc_run(&c, m, 0, NULL) > 0);
    CHECK_STR(c.msg, "line 5: wait_flag on an id not set");
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* The examples: parsed, verified, planned, synchronised with no warning
   (no fallback, no degraded rotation), then checked with every dynamic
   dim bound to 64 (scalar loop bounds to a few values). */
static void test_examples(void)
{
    static const char *const files[] = {"examples/vadd.pto", "examples/softmax.pto", "examples/mm.pto",
                                        "examples/rmsnorm.pto", "examples/swiglu.pto", "examples/tail.pto"};
    int f;
    for (f = 0; f < 6; f++) {
        pto_ctx *ctx = pto_ctx_create(NULL);
        FILE *in = fopen(files[f], "rb");
        static char text[1 << 16];
        size_t len = in ? fread(text, 1, sizeof text - 1, in) : 0;
        pto_module *m;
        char buf[400], why[600];
        int32_t k, v;
        if (in) fclose(in);
        text[len] = 0;
        m = pto_parse(ctx, files[f], text, len);
        CHECK_MSG(m && pto_verify(ctx, m) == PTO_OK && pto_plan(ctx, m, NULL) == PTO_OK, "%s: %s", files[f],
                  first_diag(ctx, buf, sizeof buf));
        if (!m || pto_error_count(ctx)) { pto_module_destroy(m); pto_ctx_destroy(ctx); continue; }
        pto_diag_clear(ctx);
        CHECK_MSG(pto_sync(ctx, m, &checked) == PTO_OK && pto_diag_count(ctx) == 0, "%s: %s", files[f],
                  first_diag(ctx, buf, sizeof buf));
        for (k = 0; k < m->n_kernels; k++) {
            int64_t vars[512];
            sc c;
            memset(vars, 0, sizeof vars);
            for (v = 0; v < m->n_vars && v < 512; v++)
                if (m->vars[v].kind == PTO_V_DIM) vars[v] = 64;
            CHECK_MSG(sc_run(&c, m, k, vars) == 0 && c.syncs > 0, "%s: %s", files[f], c.msg);
            (void)why;
        }
        pto_module_destroy(m);
        pto_ctx_destroy(ctx);
    }
}

int main(void)
{
    test_vadd();
    test_step2();
    test_starts();
    test_shared_slots();
    test_zero_trip();
    test_branch();
    test_eight_ids();
    test_nine_ids();
    test_share_rotating();
    test_degrade();
    test_chain();
    test_vv();
    test_mfix();
    test_gm();
    test_nested();
    test_unrolled();
    test_hoist();
    test_sink();
    test_rise();
    test_degrade_outer();
    test_unplanned();
    test_malformed_ids();
    test_dump();
    test_dump_rotation();
    test_checker_catches();
    test_chain_proof();
    test_necessity();
    test_examples();
    return TEST_END();
}
