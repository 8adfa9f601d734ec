/* test_host.c - host sections through the C API and pto_interp_host.

   - A host built with the builders (a dim, a float scalar, an intermediate,
     two calls) verifies, prints as the exact canonical text written here
     by hand, and runs on the interpreter: y = (x * 2) * s, each element
     computed independently in the test (exact in f32: powers of two).
   - The interpreter allocates an intermediate given as NULL, and reports a
     missing binding and a division by zero in an argument at their places.
   - The emitted host.c has host_h and no per-kernel host_sc. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

#define L(line) pto_loc_make(0, line, 1)

/* a compound literal, not a function returning a pto_loc: tcc 0.9.27 (x86-64) stores such a
   12-byte result as 16 bytes, over a local of the caller (tests/tcc_ptoc_test.sh) */
#define pto_loc_make(file, line, col) ((pto_loc){(file), (line), (col)})

/* kernel sc(in x: f32[N, 64], out y: f32[N, 64], scalar alpha: f32) vector blocks(N / 16) */
static void build_sc(pto_module *m)
{
    int32_t k = pto_add_kernel(m, "sc", PTO_KK_VECTOR, L(1));
    int32_t x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 0, 64, L(1));
    int32_t y = pto_add_tensor_param(m, k, "y", PTO_OUT, PTO_F32, 0, 64, L(1));
    int32_t n = pto_set_dynamic_dim(m, x, 0, "N");
    int32_t a = pto_add_scalar_param(m, k, "alpha", PTO_F32, L(1));
    int32_t body = m->kernels[k].body, r, t, s;
    pto_set_dynamic_dim(m, y, 0, "N");
    m->kernels[k].blocks = pto_expr_bin(m, PTO_E_DIV, pto_expr_var(m, n, L(1)), pto_expr_int(m, 16, L(1)), L(1));
    r = pto_add_let(m, body, "r", pto_expr_bin(m, PTO_E_MUL, pto_expr_builtin(m, PTO_E_BLOCK, L(2)),
                                               pto_expr_int(m, 16, L(2)), L(2)), L(2));
    t = pto_add_tile(m, body, "t", PTO_VEC, PTO_F32, 16, 64, L(3));   /* the tile id */
    r = m->stmts[r].ref;
    s = pto_add_op(m, body, PTO_OP_TLOAD, L(4));
    pto_arg_tile(m, s, t, L(4));
    pto_arg_gm(m, s, x, pto_expr_var(m, r, L(4)), pto_expr_int(m, 0, L(4)), -1, L(4));
    s = pto_add_op(m, body, PTO_OP_TMULS, L(5));
    pto_arg_tile(m, s, t, L(5));
    pto_arg_tile(m, s, t, L(5));
    pto_arg_scalar(m, s, m->params[a].var, L(5));
    s = pto_add_op(m, body, PTO_OP_TSTORE, L(6));
    pto_arg_gm(m, s, y, pto_expr_var(m, r, L(6)), pto_expr_int(m, 0, L(6)), -1, L(6));
    pto_arg_tile(m, s, t, L(6));
}

/* host h(in x: f32[M, 64], out y: f32[M, 64], scalar s: f32) {
     tensor t: f32[M, 64]; call sc(x, t, 2.0); call sc(t, y, s) } */
static int32_t build_host(pto_module *m)
{
    int32_t h = pto_add_host(m, "h", L(10));
    int32_t x = pto_add_host_tensor_param(m, h, "x", PTO_IN, PTO_F32, 0, 64, L(10));
    int32_t y = pto_add_host_tensor_param(m, h, "y", PTO_OUT, PTO_F32, 0, 64, L(10));
    int32_t s = pto_add_host_scalar_param(m, h, "s", PTO_F32, L(10));
    int32_t t, c;
    pto_set_host_dim(m, h, x, 0, "M");
    pto_set_host_dim(m, h, y, 0, "M");
    t = pto_add_host_tensor(m, h, "t", PTO_F32, 0, 64, L(11));
    pto_set_host_dim(m, h, t, 0, "M");
    c = pto_add_host_call(m, h, 0, L(12));
    pto_call_arg_tensor(m, c, x, L(12));
    pto_call_arg_tensor(m, c, t, L(12));
    pto_call_arg_float(m, c, 2.0, L(12));
    c = pto_add_host_call(m, h, 0, L(13));
    pto_call_arg_tensor(m, c, t, L(13));
    pto_call_arg_tensor(m, c, y, L(13));
    pto_call_arg_scalar(m, c, m->params[s].var, L(13));
    return h;
}

static const char *host_text =
    "host h(in x: f32[M, 64], out y: f32[M, 64], scalar s: f32) {\n"
    "  tensor t: f32[M, 64]\n"
    "  call sc(x, t, 2.0)\n"
    "  call sc(t, y, s)\n"
    "}\n";

static void api_and_interp(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    pto_buf b;
    float x[32 * 64], y[32 * 64];
    void *tensors[4];
    pto_binding bind[2];
    pto_host_launch hl;
    int i, good = 1;
    char msg[512];
    build_sc(m);
    hl.host = build_host(m);
    CHECK(pto_verify(ctx, m) == PTO_OK);
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_print(m, &b);
    CHECK(b.data && strstr(b.data, host_text) != NULL);
    CHECK(b.data && strcmp(b.data + b.len - strlen(host_text), host_text) == 0);
    pto_buf_free(&b);

    for (i = 0; i < 32 * 64; i++) x[i] = (float)(i % 97) * 0.125f - 3.0f, y[i] = 7.0f;
    tensors[0] = x;
    tensors[1] = y;
    tensors[2] = NULL;  /* the scalar s */
    tensors[3] = NULL;  /* t: allocated by the interpreter */
    bind[0].name = "M";
    bind[0].value = 32;
    bind[1].name = "s";
    bind[1].value = -0.25;
    hl.tensors = tensors;
    hl.bindings = bind;
    hl.nbindings = 2;
    CHECK(pto_interp_host(ctx, m, &hl) == PTO_OK);
    for (i = 0; i < 32 * 64; i++) good &= y[i] == (x[i] * 2.0f) * -0.25f;
    CHECK(good);

    hl.nbindings = 1;   /* s missing */
    CHECK(pto_interp_host(ctx, m, &hl) == PTO_ERR_USER);
    CHECK(pto_diag_count(ctx) == 1);
    if (pto_diag_count(ctx) >= 1) {
        pto_diag_format(ctx, pto_diag_get(ctx, 0), msg, sizeof msg);
        CHECK_STR(msg, "<input>:10:1: error: scalar 's' of host 'h' has no binding in the launch");
    }
    pto_diag_clear(ctx);
    hl.host = 5;
    CHECK(pto_interp_host(ctx, m, &hl) == PTO_ERR_USER);
    pto_diag_clear(ctx);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

static const char *divzero =
    "kernel acc(inout z: f32[N, 64], scalar n: i32) vector blocks(N / 16) {\n"
    "  let r = block * 16\n"
    "  tile t: vec f32[16, 64]\n"
    "  tload t, z[r, 0]\n"
    "  tadds t, t, n\n"
    "  tstore z[r, 0], t\n"
    "}\n"
    "host h(inout z: f32[M, 64]) {\n"
    "  call acc(z, 10 / (M - 32))\n"
    "}\n";

static void divide_by_zero_and_emit(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "d.pto", divzero, strlen(divzero));
    static float z[32 * 64];
    void *tensors[1];
    pto_binding bind;
    pto_host_launch hl;
    pto_emit_desc ed;
    pto_buf k, h;
    char msg[512];
    CHECK(m && pto_verify(ctx, m) == PTO_OK);
    if (!m) { pto_ctx_destroy(ctx); return; }
    tensors[0] = z;
    bind.name = "M";
    bind.value = 32;
    hl.host = 0;
    hl.tensors = tensors;
    hl.bindings = &bind;
    hl.nbindings = 1;
    CHECK(pto_interp_host(ctx, m, &hl) == PTO_ERR_USER);
    if (pto_diag_count(ctx) >= 1) {
        pto_diag_format(ctx, pto_diag_get(ctx, 0), msg, sizeof msg);
        CHECK_STR(msg, "d.pto:9:18: error: division by 0 in a host expression");
    }
    pto_diag_clear(ctx);
    bind.value = 16;   /* 10 / (16 - 32) = 0 in C: z += 0 */
    z[5] = 1.5f;
    CHECK(pto_interp_host(ctx, m, &hl) == PTO_OK && z[5] == 1.5f && z[6] == 0.0f);
    bind.value = 31;   /* 10 / -1 = -10 */
    CHECK(pto_interp_host(ctx, m, &hl) == PTO_OK && z[5] == -8.5f && z[16 * 64 - 1] == -10.0f &&
          z[16 * 64] == 0.0f);   /* blocks(31 / 16): one block, 16 rows */

    CHECK(pto_compile(ctx, m, NULL) == PTO_OK);
    memset(&ed, 0, sizeof ed);
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    k.ctx = h.ctx = ctx;
    CHECK(pto_emit(ctx, m, &ed, &k, &h) == PTO_OK);
    CHECK(h.data && strstr(h.data, "static void host_h(pto_h_run *run)") != NULL);
    CHECK(h.data && strstr(h.data, "host_acc") == NULL);
    CHECK(h.data && strstr(h.data, "pto_h_call(run, kernel_acc, \"acc\", PTO_K_KIND_VECTOR, M / 16, args,") != NULL);
    /* a divisor known only at launch goes through pto_emit_div: -D M=32 gives 0 there
       instead of a SIGFPE, and the interpreter reports the division by 0 */
    CHECK(h.data && strstr(h.data, "args[1] = pto_emit_div(10, M - 32);") != NULL);
    pto_buf_free(&k);
    pto_buf_free(&h);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

int main(void)
{
    api_and_interp();
    divide_by_zero_and_emit();
    return TEST_END();
}
