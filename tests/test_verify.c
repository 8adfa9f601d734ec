/* test_verify.c - the verifier on IR built with the C API: one case per
   rule (exact message and location of the first diagnostic), legal tricky
   cases that must verify cleanly, many errors in one run, malformed ids, and
   a 100k-statement kernel plus deep nesting (linear time, no recursion). */

#include "tests/check.h"
#define PTO_IMPLEMENTATION
#include "pto.h"

#include <dirent.h>
#include <stdlib.h>

typedef struct fx {
    pto_ctx *ctx;
    pto_module *m;
    int32_t k, body, file;
    char first[600];
    pto_status st;
} fx;

static int32_t g_file;

/* a compound literal, not a function returning a pto_loc: tcc 0.9.27 (x86-64) stores such a
   12-byte result as 16 bytes, over a local of the caller (tests/tcc_ptoc_test.sh) */
#define L(line, col) ((pto_loc){g_file, (line), (col)})

static void begin_arch(fx *f, pto_kernel_kind kind, pto_arch arch)
{
    memset(f, 0, sizeof *f);
    f->ctx = pto_ctx_create(NULL);
    f->file = g_file = pto_file_add(f->ctx, "t.pto");
    f->m = pto_module_create(f->ctx, arch);
    f->k = pto_add_kernel(f->m, "k", kind, L(1, 8));
    f->body = f->m->kernels[f->k].body;
}

static void begin(fx *f, pto_kernel_kind kind) { begin_arch(f, kind, PTO_ARCH_A2A3); }

/* Most kernels here are the least that shows one rule and write no tensor:
   the "writes no output" warning they draw (test_no_output checks it) is
   left out of the counts and the first diagnostic below. */
static int no_output_warning(const pto_diag *d)
{
    return d->severity == PTO_SEV_WARNING && strstr(d->msg, "writes no output: no tstore") != NULL;
}

/* The number of diagnostics but no-output warnings; the first of them in
   first ("" when none). */
static int diags(pto_ctx *ctx, char *first, size_t size)
{
    int i, n = 0;
    first[0] = 0;
    for (i = 0; i < pto_diag_count(ctx); i++) {
        if (no_output_warning(pto_diag_get(ctx, i))) continue;
        if (n++ == 0) pto_diag_format(ctx, pto_diag_get(ctx, i), first, size);
    }
    return n;
}

static pto_status run(fx *f)
{
    f->st = pto_verify(f->ctx, f->m);
    diags(f->ctx, f->first, sizeof f->first);
    return f->st;
}

static int has(fx *f, const char *want)
{
    char buf[600];
    int i;
    for (i = 0; i < pto_diag_count(f->ctx); i++) {
        pto_diag_format(f->ctx, pto_diag_get(f->ctx, i), buf, sizeof buf);
        if (strcmp(buf, want) == 0) return 1;
    }
    printf("  missing: %s\n", want);
    pto_diag_print(f->ctx, stdout);
    return 0;
}

static void end(fx *f)
{
    pto_module_destroy(f->m);
    pto_ctx_destroy(f->ctx);
}

/* Runs the verifier and checks that it fails with exactly `want` first. */
static void expect_first(fx *f, const char *want, int line)
{
    pto_status st = run(f);
    CHECK_MSG(st == PTO_ERR_USER, "line %d: status %d", line, (int)st);
    CHECK_MSG(strcmp(f->first, want) == 0, "line %d:\n  got  %s\n  want %s", line, f->first, want);
    end(f);
}
#define EXPECT(f, want) expect_first(f, want, __LINE__)

static void expect_ok(fx *f, int line)
{
    pto_status st = run(f);
    CHECK_MSG(st == PTO_OK && f->first[0] == 0, "line %d: status %d, first: %s", line, (int)st, f->first);
    end(f);
}
#define EXPECT_OK(f) expect_ok(f, __LINE__)

/* ---- builders ---- */

static int32_t body_of(fx *f, int32_t stmt) { return stmt < 0 ? -1 : f->m->stmts[stmt].body; }

static int32_t tile(fx *f, int32_t b, const char *n, pto_space sp, pto_dtype dt, int r, int c, int line)
{
    return pto_add_tile(f->m, b, n, sp, dt, r, c, L(line, 8));
}

static int32_t I(fx *f, int64_t v) { return pto_expr_int(f->m, v, L(0, 0)); }
static int32_t Iat(fx *f, int64_t v, int line, int col) { return pto_expr_int(f->m, v, L(line, col)); }

/* op with tile operands at columns 10, 20, 30 */
static int32_t op_t(fx *f, int32_t b, pto_op op, int line, int n, int32_t t0, int32_t t1, int32_t t2)
{
    int32_t s = pto_add_op(f->m, b, op, L(line, 3));
    int32_t ts[3];
    int i;
    ts[0] = t0; ts[1] = t1; ts[2] = t2;
    for (i = 0; i < n; i++) pto_arg_tile(f->m, s, ts[i], L(line, 10 * (i + 1)));
    return s;
}

/* tload t, P[r, c] (tile at col 9, window at col 12, row expr at col 14) */
static void load(fx *f, int32_t b, int32_t t, int32_t p, int32_t r, int32_t c, int line)
{
    int32_t s = pto_add_op(f->m, b, PTO_OP_TLOAD, L(line, 3));
    pto_arg_tile(f->m, s, t, L(line, 9));
    pto_arg_gm(f->m, s, p, r, c, -1, L(line, 12));
}

static void store(fx *f, int32_t b, int32_t p, int32_t r, int32_t c, int32_t t, int line)
{
    int32_t s = pto_add_op(f->m, b, PTO_OP_TSTORE, L(line, 3));
    pto_arg_gm(f->m, s, p, r, c, -1, L(line, 10));
    pto_arg_tile(f->m, s, t, L(line, 20));
}

static int32_t vin(fx *f, const char *n, pto_dtype dt, int64_t r, int64_t c)
{
    return pto_add_tensor_param(f->m, f->k, n, PTO_IN, dt, r, c, L(1, 10));
}
static int32_t vout(fx *f, const char *n, pto_dtype dt, int64_t r, int64_t c)
{
    return pto_add_tensor_param(f->m, f->k, n, PTO_OUT, dt, r, c, L(1, 30));
}

/* A written vec f32 [16, 64] tile named n, declared at `line`, loaded at line + 1. */
static int32_t loaded(fx *f, int32_t b, const char *n, int32_t x, int line)
{
    int32_t t = tile(f, b, n, PTO_VEC, PTO_F32, 16, 64, line);
    load(f, b, t, x, I(f, 0), I(f, 0), line + 1);
    return t;
}

/* ---- cases ---- */

static void test_good_vadd(void)
{
    fx f;
    int32_t x, y, z, loop, lb, a, b, c, r, blk;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 1024, 256);
    y = vin(&f, "y", PTO_F32, 1024, 256);
    z = vout(&f, "z", PTO_F32, 1024, 256);
    f.m->kernels[f.k].blocks = I(&f, 8);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 8), -1, L(2, 3));
    lb = f.m->stmts[loop].body;
    a = tile(&f, lb, "a", PTO_VEC, PTO_F32, 16, 256, 3);
    b = tile(&f, lb, "b", PTO_VEC, PTO_F32, 16, 256, 4);
    c = tile(&f, lb, "c", PTO_VEC, PTO_F32, 16, 256, 5);
    f.m->tiles[a].nbuf = f.m->tiles[b].nbuf = f.m->tiles[c].nbuf = 2;
    /* r = block * 128 + i * 16: rows 0..1023 exactly at the extremes */
    blk = pto_expr_builtin(f.m, PTO_E_BLOCK, L(6, 11));
    r = pto_expr_bin(f.m, PTO_E_ADD, pto_expr_bin(f.m, PTO_E_MUL, blk, I(&f, 128), L(6, 17)),
                     pto_expr_bin(f.m, PTO_E_MUL, pto_expr_var(f.m, f.m->stmts[loop].ref, L(6, 25)), I(&f, 16), L(6, 27)),
                     L(6, 23));
    r = pto_add_let(f.m, lb, "r", r, L(6, 3));
    r = f.m->stmts[r].ref;
    load(&f, lb, a, x, pto_expr_var(f.m, r, L(7, 14)), I(&f, 0), 7);
    load(&f, lb, b, y, pto_expr_var(f.m, r, L(8, 14)), I(&f, 0), 8);
    op_t(&f, lb, PTO_OP_TADD, 9, 3, c, a, b);
    store(&f, lb, z, pto_expr_var(f.m, r, L(10, 12)), I(&f, 0), c, 10);
    EXPECT_OK(&f);
}

/* The same with 9 blocks: block 8 reaches row 8 * 128 + 7 * 16 + 15 = 1151. */
static void test_window_affine_oob(void)
{
    fx f;
    int32_t x, loop, lb, a, r;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 1024, 256);
    f.m->kernels[f.k].blocks = I(&f, 9);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 8), -1, L(2, 3));
    lb = f.m->stmts[loop].body;
    a = tile(&f, lb, "a", PTO_VEC, PTO_F32, 16, 256, 3);
    r = pto_expr_bin(f.m, PTO_E_ADD,
                     pto_expr_bin(f.m, PTO_E_MUL, pto_expr_builtin(f.m, PTO_E_BLOCK, L(4, 14)), I(&f, 128), L(4, 20)),
                     pto_expr_bin(f.m, PTO_E_MUL, pto_expr_var(f.m, f.m->stmts[loop].ref, L(4, 28)), I(&f, 16), L(4, 30)),
                     L(4, 14));
    load(&f, lb, a, x, r, I(&f, 0), 4);
    EXPECT(&f, "t.pto:4:14: error: window of 'x' ends at row 1151, out of bounds ('x' has 1024 rows)");
}

/* A window guarded by an if inside the loop is not checked at the loop's
   extremes (the branch may skip them). */
static void test_window_guarded_ok(void)
{
    fx f;
    int32_t x, loop, lb, a, iv, ifs, ib, r;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 128, 64);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 8), -1, L(2, 3));
    lb = f.m->stmts[loop].body;
    iv = f.m->stmts[loop].ref;
    a = tile(&f, lb, "a", PTO_VEC, PTO_F32, 16, 64, 3);
    ifs = pto_add_if(f.m, lb, pto_expr_var(f.m, iv, L(4, 6)), PTO_LT, I(&f, 7), L(4, 3));
    ib = f.m->stmts[ifs].body;
    r = pto_expr_bin(f.m, PTO_E_MUL, pto_expr_bin(f.m, PTO_E_ADD, pto_expr_var(f.m, iv, L(5, 14)), I(&f, 1), L(5, 15)),
                     I(&f, 16), L(5, 18));
    load(&f, ib, a, x, r, I(&f, 0), 5);
    store(&f, lb, x, I(&f, 0), I(&f, 0), a, 6);
    f.m->params[x].dir = PTO_INOUT;
    EXPECT_OK(&f);
}

static void test_window_const_oob(void)
{
    fx f;
    int32_t x, a;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 64, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    load(&f, f.body, a, x, I(&f, 0), Iat(&f, 8, 3, 17), 3);
    EXPECT(&f, "t.pto:3:17: error: window of 'x' ends at col 71, out of bounds ('x' has 64 cols)");
}

static void test_window_negative(void)
{
    fx f;
    int32_t x, a;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 64, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    load(&f, f.body, a, x, pto_expr_bin(f.m, PTO_E_NEG, Iat(&f, 16, 3, 15), -1, L(3, 14)), I(&f, 0), 3);
    EXPECT(&f, "t.pto:3:14: error: window of 'x' starts at row -16, out of bounds");
}

/* The window is the valid region: valid(8, 64) of a [16, 64] tile at row 56 fits 64 rows. */
static void test_window_valid_ok(void)
{
    fx f;
    int32_t x, a;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 64, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    f.m->tiles[a].valid_r = I(&f, 8);
    load(&f, f.body, a, x, I(&f, 56), I(&f, 0), 3);
    EXPECT_OK(&f);
}

static void test_arity(void)
{
    fx f;
    int32_t x, a, b;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    b = tile(&f, f.body, "b", PTO_VEC, PTO_F32, 16, 64, 4);
    op_t(&f, f.body, PTO_OP_TADD, 5, 2, b, a, -1);
    EXPECT(&f, "t.pto:5:3: error: tadd expects 3 operands, got 2 (the form: tadd d, a, b)");
}

static void test_kind(void)
{
    fx f;
    int32_t x, a, b, s;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    b = tile(&f, f.body, "b", PTO_VEC, PTO_F32, 16, 64, 4);
    s = op_t(&f, f.body, PTO_OP_TADD, 5, 2, b, a, -1);
    pto_arg_gm(f.m, s, x, I(&f, 0), I(&f, 0), -1, L(5, 30));
    EXPECT(&f, "t.pto:5:30: error: operand 3 of tadd must be a tile, got a GM window");
}

static void test_space(void)
{
    fx f;
    int32_t x, a, b, c, sec;
    begin(&f, PTO_KK_MIX);
    sec = body_of(&f, pto_add_section(f.m, f.body, PTO_CORE_CUBE, L(2, 3)));
    x = vin(&f, "x", PTO_F16, 16, 64);
    a = tile(&f, sec, "a", PTO_MAT, PTO_F16, 16, 64, 3);
    b = tile(&f, sec, "b", PTO_MAT, PTO_F16, 16, 64, 4);
    c = tile(&f, sec, "c", PTO_MAT, PTO_F16, 16, 64, 5);
    load(&f, sec, a, x, I(&f, 0), I(&f, 0), 6);
    load(&f, sec, b, x, I(&f, 0), I(&f, 0), 7);
    op_t(&f, sec, PTO_OP_TADD, 8, 3, c, a, b);
    EXPECT(&f, "t.pto:8:10: error: tadd cannot write a tile in 'mat' (it writes vec)");
}

static void test_space_list(void)
{
    fx f;
    int32_t x, a, l, sec;
    begin(&f, PTO_KK_MIX);
    sec = body_of(&f, pto_add_section(f.m, f.body, PTO_CORE_CUBE, L(2, 3)));
    x = vin(&f, "x", PTO_F16, 16, 64);
    a = tile(&f, sec, "a", PTO_MAT, PTO_F16, 16, 64, 3);
    l = tile(&f, sec, "l", PTO_LEFT, PTO_F16, 16, 64, 4);
    load(&f, sec, a, x, I(&f, 0), I(&f, 0), 5);
    op_t(&f, sec, PTO_OP_TMOV, 6, 2, a, l, -1);
    EXPECT(&f, "t.pto:6:20: error: tmov cannot read a tile in 'left' (it reads vec, mat or acc)");
}

static void test_dtype(void)
{
    fx f;
    int32_t x, h, a, b, c;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    h = vin(&f, "h", PTO_F16, 16, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F16, 16, 64, 2);
    load(&f, f.body, a, h, I(&f, 0), I(&f, 0), 3);
    b = loaded(&f, f.body, "b", x, 4);
    c = tile(&f, f.body, "c", PTO_VEC, PTO_F32, 16, 64, 6);
    op_t(&f, f.body, PTO_OP_TADD, 7, 3, c, a, b);
    EXPECT(&f, "t.pto:7:20: error: dtype mismatch: 'c' is f32 but 'a' is f16");
}

static void test_load_dtype(void)
{
    fx f;
    int32_t x, a;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F16, 16, 64, 2);
    load(&f, f.body, a, x, I(&f, 0), I(&f, 0), 3);
    EXPECT(&f, "t.pto:3:12: error: dtype mismatch: 'a' is f16 but 'x' is f32 (load into an f32 tile, then tcvt)");
}

static void test_shape(void)
{
    fx f;
    int32_t x, a, b, c;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    b = loaded(&f, f.body, "b", x, 4);
    c = tile(&f, f.body, "c", PTO_VEC, PTO_F32, 16, 128, 6);
    op_t(&f, f.body, PTO_OP_TMUL, 7, 3, c, a, b);
    EXPECT(&f, "t.pto:7:20: error: shape mismatch: 'c' is [16, 128] but 'a' is [16, 64]");
}

static void test_rowred(void)
{
    fx f;
    int32_t x, a, m;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    m = tile(&f, f.body, "m", PTO_VEC, PTO_F32, 8, 1, 4);
    op_t(&f, f.body, PTO_OP_TROWMAX, 5, 2, m, a, -1);
    EXPECT(&f, "t.pto:5:10: error: 'm' must be [16, 1] (one value per row of 'a'), got [8, 1]");
}

static void test_rowexp(void)
{
    fx f;
    int32_t x, a, m, d;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    m = tile(&f, f.body, "m", PTO_VEC, PTO_F32, 16, 8, 4);
    op_t(&f, f.body, PTO_OP_TROWMAX, 5, 2, m, a, -1);
    d = tile(&f, f.body, "d", PTO_VEC, PTO_F32, 16, 64, 6);
    op_t(&f, f.body, PTO_OP_TROWEXPANDSUB, 7, 3, d, a, m);
    run(&f);
    CHECK(f.st == PTO_ERR_USER && pto_error_count(f.ctx) == 2);
    CHECK(has(&f, "t.pto:5:10: error: 'm' must be [16, 1] (one value per row of 'a'), got [16, 8]"));
    CHECK(has(&f, "t.pto:7:30: error: 'm' must be [16, 1] (one value per row of 'a'), got [16, 8]"));
    end(&f);
}

/* tcolsum / tcolmax / tcolmin: d is [1, C] of a's columns, a's dtype, and
   a's valid cols (exactly, when both are known statically). */
static void test_colred(void)
{
    fx f;
    int32_t x, a, s, h, w, p, q, loop, lb, n, t;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    s = tile(&f, f.body, "s", PTO_VEC, PTO_F32, 2, 64, 4);
    op_t(&f, f.body, PTO_OP_TCOLSUM, 5, 2, s, a, -1);
    EXPECT(&f, "t.pto:5:10: error: 's' must be [1, 64] (one value per column of 'a'), got [2, 64]");

    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    w = tile(&f, f.body, "w", PTO_VEC, PTO_F32, 1, 32, 4);
    op_t(&f, f.body, PTO_OP_TCOLMIN, 5, 2, w, a, -1);
    EXPECT(&f, "t.pto:5:10: error: 'w' must be [1, 64] (one value per column of 'a'), got [1, 32]");

    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    h = tile(&f, f.body, "h", PTO_VEC, PTO_F16, 1, 64, 4);
    op_t(&f, f.body, PTO_OP_TCOLMAX, 5, 2, h, a, -1);
    EXPECT(&f, "t.pto:5:20: error: dtype mismatch: 'h' is f16 but 'a' is f32");

    /* valid cols: 48 against the 64 of a; a [1, 64] with valid(1, 64) is fine */
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    p = tile(&f, f.body, "p", PTO_VEC, PTO_F32, 1, 64, 4);
    f.m->tiles[p].valid_r = I(&f, 1);
    f.m->tiles[p].valid_c = I(&f, 48);
    q = tile(&f, f.body, "q", PTO_VEC, PTO_F32, 1, 64, 5);
    f.m->tiles[q].valid_r = I(&f, 1);
    f.m->tiles[q].valid_c = I(&f, 64);
    op_t(&f, f.body, PTO_OP_TCOLSUM, 6, 2, q, a, -1);
    op_t(&f, f.body, PTO_OP_TCOLSUM, 7, 2, p, a, -1);
    EXPECT(&f, "t.pto:7:10: error: 'p' has 48 valid cols but 'a' has 64; tcolsum reduces each valid column of 'a' "
               "into the same column of 'p', so they must be equal");

    /* valid cols that are loop forms: n and n agree; n and 64 can differ */
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    loop = pto_add_for(f.m, f.body, "n", I(&f, 8), I(&f, 65), I(&f, 8), L(2, 3));
    lb = f.m->stmts[loop].body;
    n = pto_find_var(f.m, f.k, "n");
    a = tile(&f, lb, "a", PTO_VEC, PTO_F32, 16, 64, 3);
    f.m->tiles[a].valid_c = pto_expr_var(f.m, n, L(3, 30));
    load(&f, lb, a, x, I(&f, 0), I(&f, 0), 4);
    s = tile(&f, lb, "s", PTO_VEC, PTO_F32, 1, 64, 5);
    f.m->tiles[s].valid_c = pto_expr_var(f.m, n, L(5, 30));
    t = tile(&f, lb, "t", PTO_VEC, PTO_F32, 1, 64, 6);
    op_t(&f, lb, PTO_OP_TCOLSUM, 7, 2, s, a, -1);
    op_t(&f, lb, PTO_OP_TCOLMAX, 8, 2, t, a, -1);
    EXPECT(&f, "t.pto:8:10: error: the valid cols of 't' and 'a' can differ ('t' minus 'a' is 0 to 56); tcolmax "
               "reduces each valid column of 'a' into the same column of 't', so they must be equal");

    /* legal: f16 and i32 too, a partial valid region of rows */
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_I32, 16, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_I32, 16, 64, 2);
    f.m->tiles[a].valid_r = I(&f, 5);
    load(&f, f.body, a, x, I(&f, 0), I(&f, 0), 3);
    s = tile(&f, f.body, "s", PTO_VEC, PTO_I32, 1, 64, 4);
    op_t(&f, f.body, PTO_OP_TCOLSUM, 5, 2, s, a, -1);
    h = tile(&f, f.body, "h", PTO_VEC, PTO_F16, 16, 16, 6);
    w = tile(&f, f.body, "w", PTO_VEC, PTO_F16, 1, 16, 7);
    load(&f, f.body, h, vin(&f, "y", PTO_F16, 16, 16), I(&f, 0), I(&f, 0), 8);
    op_t(&f, f.body, PTO_OP_TCOLMIN, 9, 2, w, h, -1);
    EXPECT_OK(&f);
}

/* tcolexpand*: d and a the same shape and dtype, v [1, C] of that dtype
   whose valid cols cover d's. */
static void test_colexp(void)
{
    fx f;
    int32_t x, a, v, d, w, loop, lb, n;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    v = tile(&f, f.body, "v", PTO_VEC, PTO_F32, 16, 1, 4);
    op_t(&f, f.body, PTO_OP_TROWMAX, 5, 2, v, a, -1);
    d = tile(&f, f.body, "d", PTO_VEC, PTO_F32, 16, 64, 6);
    op_t(&f, f.body, PTO_OP_TCOLEXPANDADD, 7, 3, d, a, v);
    EXPECT(&f, "t.pto:7:30: error: 'v' must be [1, 64] (one value per column of 'a'), got [16, 1] (one value per "
               "row: that is trowexpandadd)");

    /* ... and the other way round: a row op given a [1, C] row names the column op */
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    v = tile(&f, f.body, "v", PTO_VEC, PTO_F32, 1, 64, 4);
    op_t(&f, f.body, PTO_OP_TROWSUM, 5, 2, v, a, -1);
    d = tile(&f, f.body, "d", PTO_VEC, PTO_F32, 16, 64, 6);
    op_t(&f, f.body, PTO_OP_TROWEXPANDMUL, 7, 3, d, a, v);
    run(&f);
    CHECK(f.st == PTO_ERR_USER && pto_error_count(f.ctx) == 2);
    CHECK(has(&f, "t.pto:5:10: error: 'v' must be [16, 1] (one value per row of 'a'), got [1, 64] (one value per "
                  "column: that is tcolsum)"));
    CHECK(has(&f, "t.pto:7:30: error: 'v' must be [16, 1] (one value per row of 'a'), got [1, 64] (one value per "
                  "column: that is tcolexpandmul)"));
    end(&f);

    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    v = tile(&f, f.body, "v", PTO_VEC, PTO_F16, 1, 64, 4);
    load(&f, f.body, v, vin(&f, "g", PTO_F16, 1, 64), I(&f, 0), I(&f, 0), 5);
    d = tile(&f, f.body, "d", PTO_VEC, PTO_F32, 8, 64, 6);
    op_t(&f, f.body, PTO_OP_TCOLEXPANDMUL, 7, 3, d, a, v);
    run(&f);
    CHECK(f.st == PTO_ERR_USER && pto_error_count(f.ctx) == 2);
    CHECK(has(&f, "t.pto:7:30: error: dtype mismatch: 'd' is f32 but 'v' is f16"));
    CHECK(has(&f, "t.pto:7:20: error: shape mismatch: 'd' is [8, 64] but 'a' is [16, 64]"));
    end(&f);

    /* v's valid cols must cover d's: 48 < 64; with d valid(16, 40) it is fine */
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    v = tile(&f, f.body, "v", PTO_VEC, PTO_F32, 1, 64, 4);
    f.m->tiles[v].valid_c = I(&f, 48);
    load(&f, f.body, v, vin(&f, "g", PTO_F32, 1, 64), I(&f, 0), I(&f, 0), 5);
    d = tile(&f, f.body, "d", PTO_VEC, PTO_F32, 16, 64, 6);
    f.m->tiles[d].valid_c = I(&f, 40);
    op_t(&f, f.body, PTO_OP_TCOLEXPANDDIV, 7, 3, d, a, v);
    op_t(&f, f.body, PTO_OP_TCOLEXPANDSUB, 8, 3, a, a, v);
    EXPECT(&f, "t.pto:8:30: error: 'v' has 48 valid cols but 'a' has 64; tcolexpandsub reads v[0, c] for every "
               "valid column c of 'a'");

    /* loop forms: v valid(1, 72 - n) against d valid(16, n) */
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    loop = pto_add_for(f.m, f.body, "n", I(&f, 8), I(&f, 65), I(&f, 8), L(2, 3));
    lb = f.m->stmts[loop].body;
    n = pto_find_var(f.m, f.k, "n");
    a = loaded(&f, lb, "a", x, 3);
    w = tile(&f, lb, "w", PTO_VEC, PTO_F32, 1, 64, 5);
    f.m->tiles[w].valid_c = pto_expr_bin(f.m, PTO_E_SUB, I(&f, 72), pto_expr_var(f.m, n, L(5, 34)), L(5, 33));
    load(&f, lb, w, vin(&f, "g", PTO_F32, 1, 64), I(&f, 0), I(&f, 0), 6);
    d = tile(&f, lb, "d", PTO_VEC, PTO_F32, 16, 64, 7);
    f.m->tiles[d].valid_c = pto_expr_var(f.m, n, L(7, 30));
    op_t(&f, lb, PTO_OP_TCOLEXPANDADD, 8, 3, d, a, w);
    EXPECT(&f, "t.pto:8:30: error: the valid cols of 'w' can be 56 fewer than those of 'd'; tcolexpandadd reads "
               "w[0, c] for every valid column c of 'd'");
}

static void test_float_only(void)
{
    fx f;
    int32_t x, a, d;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_I32, 16, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_I32, 16, 64, 2);
    load(&f, f.body, a, x, I(&f, 0), I(&f, 0), 3);
    d = tile(&f, f.body, "d", PTO_VEC, PTO_I32, 16, 64, 4);
    op_t(&f, f.body, PTO_OP_TEXP, 5, 2, d, a, -1);
    EXPECT(&f, "t.pto:5:20: error: texp needs a float tile, but 'a' is i32");
}

/* A cube kernel: mat a/b loaded, moved to left/right, multiplied. */
static void mm_setup(fx *f, int ar, int ac, int br, int bc, pto_dtype adt, pto_dtype bdt, int32_t *l, int32_t *r)
{
    int32_t a, b, pa, pb;
    begin(f, PTO_KK_CUBE);
    pa = vin(f, "pa", adt, ar, ac);
    pb = vin(f, "pb", bdt, br, bc);
    a = tile(f, f->body, "a", PTO_MAT, adt, ar, ac, 2);
    b = tile(f, f->body, "b", PTO_MAT, bdt, br, bc, 3);
    *l = tile(f, f->body, "l", PTO_LEFT, adt, ar, ac, 4);
    *r = tile(f, f->body, "r", PTO_RIGHT, bdt, br, bc, 5);
    load(f, f->body, a, pa, I(f, 0), I(f, 0), 6);
    load(f, f->body, b, pb, I(f, 0), I(f, 0), 7);
    op_t(f, f->body, PTO_OP_TMOV, 8, 2, *l, a, -1);
    op_t(f, f->body, PTO_OP_TMOV, 9, 2, *r, b, -1);
}

static void test_matmul_good(void)
{
    fx f;
    int32_t l, r, c, o;
    mm_setup(&f, 32, 64, 64, 16, PTO_F16, PTO_F16, &l, &r);
    o = vout(&f, "o", PTO_F32, 32, 16);
    c = tile(&f, f.body, "c", PTO_ACC, PTO_F32, 32, 16, 10);
    op_t(&f, f.body, PTO_OP_TMATMUL, 11, 3, c, l, r);
    op_t(&f, f.body, PTO_OP_TMATMUL_ACC, 12, 3, c, l, r);
    store(&f, f.body, o, I(&f, 0), I(&f, 0), c, 13);
    EXPECT_OK(&f);
}

static void test_matmul_inner(void)
{
    fx f;
    int32_t l, r, c;
    mm_setup(&f, 32, 64, 32, 16, PTO_F16, PTO_F16, &l, &r);
    c = tile(&f, f.body, "c", PTO_ACC, PTO_F32, 32, 16, 10);
    op_t(&f, f.body, PTO_OP_TMATMUL, 11, 3, c, l, r);
    EXPECT(&f, "t.pto:11:30: error: matmul inner dims differ: 'l' is [32, 64] but 'r' is [32, 16]");
}

static void test_matmul_result(void)
{
    fx f;
    int32_t l, r, c;
    mm_setup(&f, 32, 64, 64, 16, PTO_F16, PTO_F16, &l, &r);
    c = tile(&f, f.body, "c", PTO_ACC, PTO_F32, 32, 32, 10);
    op_t(&f, f.body, PTO_OP_TMATMUL, 11, 3, c, l, r);
    EXPECT(&f, "t.pto:11:10: error: 'c' must be [32, 16] for [32, 64] x [64, 16], got [32, 32]");
}

/* tstore from an f32 acc tile may narrow to an f16 / bf16 tensor (the
   fixpipe's cast on the way out); every other dtype mismatch of a tstore
   stays an error: f32 acc -> i32, i32 acc -> f16 (pto-isa casts an i32 acc
   only with quant parameters), vec f32 -> f16 (MTE3 copies bytes). */
static void test_store_acc_narrow(void)
{
    fx f;
    int32_t l, r, c, o, x, a;
    pto_dtype ok[2] = { PTO_F16, PTO_BF16 };
    int i;
    for (i = 0; i < 2; i++) {
        mm_setup(&f, 32, 64, 64, 16, PTO_F16, PTO_F16, &l, &r);
        o = vout(&f, "o", ok[i], 32, 16);
        c = tile(&f, f.body, "c", PTO_ACC, PTO_F32, 32, 16, 10);
        op_t(&f, f.body, PTO_OP_TMATMUL, 11, 3, c, l, r);
        store(&f, f.body, o, I(&f, 0), I(&f, 0), c, 12);
        EXPECT_OK(&f);
    }

    mm_setup(&f, 32, 64, 64, 16, PTO_F16, PTO_F16, &l, &r);
    o = vout(&f, "o", PTO_I32, 32, 16);
    c = tile(&f, f.body, "c", PTO_ACC, PTO_F32, 32, 16, 10);
    op_t(&f, f.body, PTO_OP_TMATMUL, 11, 3, c, l, r);
    store(&f, f.body, o, I(&f, 0), I(&f, 0), c, 12);
    EXPECT(&f, "t.pto:12:20: error: dtype mismatch: 'o' is i32 but 'c' is f32");

    mm_setup(&f, 32, 64, 64, 32, PTO_I8, PTO_I8, &l, &r);
    o = vout(&f, "o", PTO_F16, 32, 32);
    c = tile(&f, f.body, "c", PTO_ACC, PTO_I32, 32, 32, 10);
    op_t(&f, f.body, PTO_OP_TMATMUL, 11, 3, c, l, r);
    store(&f, f.body, o, I(&f, 0), I(&f, 0), c, 12);
    EXPECT(&f, "t.pto:12:20: error: dtype mismatch: 'o' is f16 but 'c' is i32");

    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    o = vout(&f, "o", PTO_F16, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    store(&f, f.body, o, I(&f, 0), I(&f, 0), a, 4);
    EXPECT(&f, "t.pto:4:20: error: dtype mismatch: 'o' is f16 but 'a' is f32 (tcvt into an f16 tile, then store that)");
}

static void test_matmul_accdtype(void)
{
    fx f;
    int32_t l, r, c;
    mm_setup(&f, 32, 64, 64, 16, PTO_F16, PTO_F16, &l, &r);
    c = tile(&f, f.body, "c", PTO_ACC, PTO_F16, 32, 16, 10);
    op_t(&f, f.body, PTO_OP_TMATMUL, 11, 3, c, l, r);
    EXPECT(&f, "t.pto:11:10: error: 'c' must be f32 to accumulate f16 products, got f16");
}

static void test_matmul_acc_uninit(void)
{
    fx f;
    int32_t l, r, c;
    mm_setup(&f, 32, 64, 64, 16, PTO_F16, PTO_F16, &l, &r);
    c = tile(&f, f.body, "c", PTO_ACC, PTO_F32, 32, 16, 10);
    op_t(&f, f.body, PTO_OP_TMATMUL_ACC, 11, 3, c, l, r);
    EXPECT(&f, "t.pto:11:10: error: 'c' is accumulated into before anything writes it (start with tmatmul)");
}

/* for k { tmatmul_acc c, ... } with c outside: the statement's own write
   cannot precede its first run. */
static void test_matmul_acc_self_loop(void)
{
    fx f;
    int32_t l, r, c, loop;
    mm_setup(&f, 32, 64, 64, 16, PTO_F16, PTO_F16, &l, &r);
    c = tile(&f, f.body, "c", PTO_ACC, PTO_F32, 32, 16, 10);
    loop = pto_add_for(f.m, f.body, "k", I(&f, 0), I(&f, 4), -1, L(11, 3));
    op_t(&f, f.m->stmts[loop].body, PTO_OP_TMATMUL_ACC, 12, 3, c, l, r);
    EXPECT(&f, "t.pto:12:10: error: 'c' is accumulated into before anything writes it (start with tmatmul)");
}

/* The spec's mm idiom: if k == 0 { tmatmul } else { tmatmul_acc } inside the loop. */
static void test_matmul_if_idiom_ok(void)
{
    fx f;
    int32_t l, r, c, loop, lb, ifs, kv;
    mm_setup(&f, 32, 64, 64, 16, PTO_F16, PTO_F16, &l, &r);
    c = tile(&f, f.body, "c", PTO_ACC, PTO_F32, 32, 16, 10);
    loop = pto_add_for(f.m, f.body, "k", I(&f, 0), I(&f, 4), -1, L(11, 3));
    lb = f.m->stmts[loop].body;
    kv = f.m->stmts[loop].ref;
    ifs = pto_add_if(f.m, lb, pto_expr_var(f.m, kv, L(12, 6)), PTO_EQ, I(&f, 0), L(12, 3));
    op_t(&f, f.m->stmts[ifs].body, PTO_OP_TMATMUL, 13, 3, c, l, r);
    op_t(&f, pto_if_else(f.m, ifs), PTO_OP_TMATMUL_ACC, 15, 3, c, l, r);
    EXPECT_OK(&f);
}

static void test_tmov_spaces(void)
{
    fx f;
    int32_t l, r, m2;
    mm_setup(&f, 32, 64, 64, 16, PTO_F16, PTO_F16, &l, &r);
    m2 = tile(&f, f.body, "m2", PTO_MAT, PTO_F16, 32, 64, 10);
    load(&f, f.body, m2, f.m->kernels[f.k].param0, I(&f, 0), I(&f, 0), 10);
    op_t(&f, f.body, PTO_OP_TMOV, 11, 2, m2, m2, -1);
    EXPECT(&f, "t.pto:11:10: error: tmov cannot move 'mat' to 'mat' (it moves mat to left/right, acc to vec/mat, vec to vec)");
}

static void test_extract(void)
{
    fx f;
    int32_t pa, a, l, s;
    begin(&f, PTO_KK_CUBE);
    pa = vin(&f, "pa", PTO_F16, 64, 64);
    a = tile(&f, f.body, "a", PTO_MAT, PTO_F16, 64, 64, 2);
    l = tile(&f, f.body, "l", PTO_LEFT, PTO_F16, 32, 32, 3);
    load(&f, f.body, a, pa, I(&f, 0), I(&f, 0), 4);
    s = op_t(&f, f.body, PTO_OP_TEXTRACT, 5, 2, l, a, -1);
    pto_arg_int(f.m, s, Iat(&f, 32, 5, 24), L(5, 24));
    pto_arg_int(f.m, s, Iat(&f, 48, 5, 28), L(5, 28));
    EXPECT(&f, "t.pto:5:28: error: textract window of 'a' ends at col 79, out of bounds ('a' has 64 cols)");
}

static void test_extract_float(void)
{
    fx f;
    int32_t pa, a, l, s;
    begin(&f, PTO_KK_CUBE);
    pa = vin(&f, "pa", PTO_F16, 64, 64);
    a = tile(&f, f.body, "a", PTO_MAT, PTO_F16, 64, 64, 2);
    l = tile(&f, f.body, "l", PTO_LEFT, PTO_F16, 32, 32, 3);
    load(&f, f.body, a, pa, I(&f, 0), I(&f, 0), 4);
    s = op_t(&f, f.body, PTO_OP_TEXTRACT, 5, 2, l, a, -1);
    pto_arg_float(f.m, s, 1.5, L(5, 24));
    pto_arg_int(f.m, s, I(&f, 0), L(5, 28));
    EXPECT(&f, "t.pto:5:24: error: operand 3 of textract must be an integer, got a float literal");
}

static void test_nbuf(void)
{
    fx f;
    int32_t t, loop;
    begin(&f, PTO_KK_VECTOR);
    t = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    f.m->tiles[t].nbuf = 2;
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 4), -1, L(3, 3));
    t = tile(&f, f.m->stmts[loop].body, "b", PTO_VEC, PTO_F32, 16, 64, 4);
    f.m->tiles[t].nbuf = 9;
    run(&f);
    CHECK(pto_error_count(f.ctx) == 2);
    CHECK(has(&f, "t.pto:2:8: error: tile 'a' is x2 outside any loop (its slots rotate per iteration)"));
    CHECK(has(&f, "t.pto:4:8: error: tile 'b' has x9 but at most x8 slots are allowed"));
    end(&f);
}

static void test_align(void)
{
    fx f;
    begin(&f, PTO_KK_VECTOR);
    tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 12, 2);
    tile(&f, f.body, "m", PTO_VEC, PTO_F16, 8, 1, 3);
    tile(&f, f.body, "ok", PTO_VEC, PTO_F32, 8, 1, 4);    /* 8 x 4 = 32 bytes */
    tile(&f, f.body, "ok2", PTO_VEC, PTO_F16, 1, 16, 5);  /* one row of 32 bytes */
    run(&f);
    CHECK(pto_error_count(f.ctx) == 2);
    CHECK(has(&f, "t.pto:2:8: error: row of vec tile 'a' is 48 bytes (12 x f32); vec rows must be a multiple of 32 bytes "
                  "(for a width of 12, declare f32[16, 16] valid(16, 12): loads and stores then move 12 columns)"));
    CHECK(has(&f, "t.pto:3:8: error: column tile 'm' is 16 bytes (8 x f16); a [R, 1] vec tile needs a multiple of 32 bytes "
                  "(for 8 rows, declare f16[16, 1] valid(8, 1): a row reduction of a tile with 8 valid rows writes it)"));
    end(&f);
}

static void test_capacity(void)
{
    fx f;
    int32_t loop, t;
    begin(&f, PTO_KK_VECTOR);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 4), -1, L(2, 3));
    t = tile(&f, f.m->stmts[loop].body, "a", PTO_VEC, PTO_F32, 128, 256, 3);
    f.m->tiles[t].nbuf = 2;
    EXPECT(&f, "t.pto:3:8: error: tile 'a' needs 262144 bytes (2 x 131072), more than the 196608 bytes of 'vec' on a2a3");
    /* fits on a5 (256 KiB) */
    begin_arch(&f, PTO_KK_VECTOR, PTO_ARCH_A5);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 4), -1, L(2, 3));
    t = tile(&f, f.m->stmts[loop].body, "a", PTO_VEC, PTO_F32, 128, 256, 3);
    f.m->tiles[t].nbuf = 2;
    EXPECT_OK(&f);
}

static void test_pin(void)
{
    fx f;
    int32_t a, b;
    begin(&f, PTO_KK_VECTOR);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    f.m->tiles[a].pin = 48;
    b = tile(&f, f.body, "b", PTO_VEC, PTO_F32, 16, 64, 3);
    f.m->tiles[b].pin = 196608 - 2048;
    run(&f);
    CHECK(pto_error_count(f.ctx) == 2);
    CHECK(has(&f, "t.pto:2:8: error: pinned address 0x30 of tile 'a' is not 32-byte aligned"));
    CHECK(has(&f, "t.pto:3:8: error: tile 'b' pinned at 0x2f800 ends at 0x30800, past the end of 'vec' (0x30000, 196608 bytes on a2a3)"));
    end(&f);
}

static void test_valid(void)
{
    fx f;
    int32_t a;
    begin(&f, PTO_KK_VECTOR);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    f.m->tiles[a].valid_r = Iat(&f, 17, 2, 30);
    f.m->tiles[a].valid_c = pto_expr_bin(f.m, PTO_E_NEG, Iat(&f, 1, 2, 35), -1, L(2, 34));
    run(&f);
    CHECK(pto_error_count(f.ctx) == 2);
    CHECK(has(&f, "t.pto:2:30: error: valid rows of 'a' can be 17, more than its 16 rows"));
    CHECK(has(&f, "t.pto:2:34: error: valid cols of 'a' can be -1, below 0"));
    end(&f);
}

static void test_uninit(void)
{
    fx f;
    int32_t a, b, c;
    begin(&f, PTO_KK_VECTOR);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    b = tile(&f, f.body, "b", PTO_VEC, PTO_F32, 16, 64, 3);
    c = tile(&f, f.body, "c", PTO_VEC, PTO_F32, 16, 64, 4);
    op_t(&f, f.body, PTO_OP_TEXPANDS, 5, 1, b, -1, -1);
    pto_arg_float(f.m, f.m->n_stmts - 1, 0.0, L(5, 14));
    op_t(&f, f.body, PTO_OP_TADD, 6, 3, c, a, b);
    op_t(&f, f.body, PTO_OP_TADD, 7, 3, c, a, b);   /* reported once per tile */
    run(&f);
    CHECK(pto_error_count(f.ctx) == 1);
    CHECK_STR(f.first, "t.pto:6:20: error: 'a' is read before anything writes it");
    end(&f);
}

/* tile p outside the loop: read at the top of the body, written at its end
   (a previous iteration's value): legal. */
static void test_loop_carried_ok(void)
{
    fx f;
    int32_t x, p, loop, lb, a, c, iv, ifs;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 128, 64);
    p = tile(&f, f.body, "p", PTO_VEC, PTO_F32, 16, 64, 2);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 8), -1, L(3, 3));
    lb = f.m->stmts[loop].body;
    iv = f.m->stmts[loop].ref;
    a = tile(&f, lb, "a", PTO_VEC, PTO_F32, 16, 64, 4);
    c = tile(&f, lb, "c", PTO_VEC, PTO_F32, 16, 64, 5);
    load(&f, lb, a, x, pto_expr_bin(f.m, PTO_E_MUL, pto_expr_var(f.m, iv, L(6, 14)), I(&f, 16), L(6, 15)), I(&f, 0), 6);
    ifs = pto_add_if(f.m, lb, pto_expr_var(f.m, iv, L(7, 6)), PTO_GT, I(&f, 0), L(7, 3));
    op_t(&f, f.m->stmts[ifs].body, PTO_OP_TADD, 8, 3, c, a, p);
    op_t(&f, lb, PTO_OP_TMOV, 9, 2, p, a, -1);
    EXPECT_OK(&f);
}

/* The same with p declared inside the loop: fresh each iteration, so the
   later write cannot reach the read. */
static void test_loop_fresh_bad(void)
{
    fx f;
    int32_t x, p, loop, lb, a, c;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 128, 64);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 8), -1, L(2, 3));
    lb = f.m->stmts[loop].body;
    p = tile(&f, lb, "p", PTO_VEC, PTO_F32, 16, 64, 3);
    a = loaded(&f, lb, "a", x, 4);
    c = tile(&f, lb, "c", PTO_VEC, PTO_F32, 16, 64, 6);
    op_t(&f, lb, PTO_OP_TADD, 7, 3, c, a, p);
    op_t(&f, lb, PTO_OP_TMOV, 8, 2, p, a, -1);
    EXPECT(&f, "t.pto:7:30: error: 'p' is read before anything writes it");
}

/* A write after the loop does not reach a read inside it. */
static void test_loop_after_bad(void)
{
    fx f;
    int32_t x, p, loop, lb, a, c;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 128, 64);
    p = tile(&f, f.body, "p", PTO_VEC, PTO_F32, 16, 64, 2);
    c = tile(&f, f.body, "c", PTO_VEC, PTO_F32, 16, 64, 3);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 8), -1, L(4, 3));
    lb = f.m->stmts[loop].body;
    a = loaded(&f, lb, "a", x, 5);
    op_t(&f, lb, PTO_OP_TADD, 7, 3, c, a, p);
    op_t(&f, f.body, PTO_OP_TMOV, 9, 2, p, c, -1);
    EXPECT(&f, "t.pto:7:30: error: 'p' is read before anything writes it");
}

static void test_dirs(void)
{
    fx f;
    int32_t x, z, a;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    z = vout(&f, "z", PTO_F32, 16, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    load(&f, f.body, a, z, I(&f, 0), I(&f, 0), 3);
    store(&f, f.body, x, I(&f, 0), I(&f, 0), a, 4);
    run(&f);
    CHECK(pto_error_count(f.ctx) == 2);
    CHECK(has(&f, "t.pto:3:12: error: cannot read 'z': it is an 'out' tensor (declare it inout to read it)"));
    CHECK(has(&f, "t.pto:4:10: error: cannot write 'x': it is an 'in' tensor"));
    end(&f);
}

static void test_remote(void)
{
    fx f;
    int32_t x, a, s;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    s = pto_add_op(f.m, f.body, PTO_OP_TLOAD, L(3, 3));
    pto_arg_tile(f.m, s, a, L(3, 9));
    pto_arg_gm(f.m, s, x, I(&f, 0), I(&f, 0), I(&f, 1), L(3, 12));
    EXPECT(&f, "t.pto:3:12: error: 'x@...' needs a ranks kernel; 'k' is not declared 'ranks'");
    /* in a ranks kernel, x must be a window tensor */
    begin(&f, PTO_KK_VECTOR);
    f.m->kernels[f.k].ranks = 1;
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    s = pto_add_op(f.m, f.body, PTO_OP_TLOAD, L(3, 3));
    pto_arg_tile(f.m, s, a, L(3, 9));
    pto_arg_gm(f.m, s, x, I(&f, 0), I(&f, 0), pto_expr_builtin(f.m, PTO_E_RANK, L(3, 14)), L(3, 12));
    EXPECT(&f, "t.pto:3:12: error: 'x' is not a window tensor; declare it 'window' to address a peer's copy");
}

static void test_rank_builtin(void)
{
    fx f;
    int32_t x, a;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    load(&f, f.body, a, x, pto_expr_builtin(f.m, PTO_E_NRANKS, L(3, 14)), I(&f, 0), 3);
    EXPECT(&f, "t.pto:3:14: error: 'nranks' is only defined in a ranks kernel");
}

static void test_float_scalar_expr(void)
{
    fx f;
    int32_t x, sp, a;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    sp = pto_add_scalar_param(f.m, f.k, "alpha", PTO_F32, L(1, 40));
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    load(&f, f.body, a, x, pto_expr_var(f.m, f.m->params[sp].var, L(3, 14)), I(&f, 0), 3);
    EXPECT(&f, "t.pto:3:14: error: scalar 'alpha' is f32; integer expressions need an integer scalar");
}

static void test_window_scalar(void)
{
    fx f;
    int32_t sp;
    begin(&f, PTO_KK_VECTOR);
    sp = pto_add_scalar_param(f.m, f.k, "s", PTO_I32, L(1, 12));
    f.m->params[sp].window = 1;
    EXPECT(&f, "t.pto:1:12: error: scalar 's' cannot be a window (only tensors can)");
}

static void test_step_blocks(void)
{
    fx f;
    begin(&f, PTO_KK_VECTOR);
    f.m->kernels[f.k].blocks = pto_expr_bin(f.m, PTO_E_SUB, Iat(&f, 2, 1, 20), Iat(&f, 2, 1, 24), L(1, 20));
    pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 8), Iat(&f, 0, 2, 22), L(2, 3));
    run(&f);
    CHECK(pto_error_count(f.ctx) == 2);
    CHECK(has(&f, "t.pto:1:20: error: blocks(...) must be positive, got 0"));
    CHECK(has(&f, "t.pto:2:22: error: loop step must be positive, got 0"));
    end(&f);
}

static void test_div_zero(void)
{
    fx f;
    begin(&f, PTO_KK_VECTOR);
    pto_add_let(f.m, f.body, "r", pto_expr_bin(f.m, PTO_E_MOD, I(&f, 4), Iat(&f, 0, 2, 15), L(2, 13)), L(2, 3));
    EXPECT(&f, "t.pto:2:15: error: modulo by zero");
}

static void test_mix(void)
{
    fx f;
    int32_t cs, vs;
    begin(&f, PTO_KK_MIX);
    tile(&f, f.body, "t", PTO_VEC, PTO_F32, 16, 64, 2);
    cs = body_of(&f, pto_add_section(f.m, f.body, PTO_CORE_CUBE, L(3, 3)));
    tile(&f, cs, "v", PTO_VEC, PTO_F32, 16, 64, 4);
    vs = body_of(&f, pto_add_section(f.m, f.body, PTO_CORE_VECTOR, L(5, 3)));
    tile(&f, vs, "m", PTO_MAT, PTO_F16, 16, 64, 6);
    pto_add_section(f.m, f.body, PTO_CORE_VECTOR, L(7, 3));
    run(&f);
    CHECK(pto_error_count(f.ctx) == 4);
    CHECK(has(&f, "t.pto:2:8: error: statement outside the cube and vector sections of mix kernel 'k'"));
    CHECK(has(&f, "t.pto:4:8: error: 'vec' tile 'v' in the cube section (vec belongs to the vector core)"));
    CHECK(has(&f, "t.pto:6:8: error: 'mat' tile 'm' in the vector section (mat belongs to the cube core)"));
    CHECK(has(&f, "t.pto:7:3: error: second 'vector' section in mix kernel 'k'"));
    end(&f);
}

static void test_kernel_spaces(void)
{
    fx f;
    begin(&f, PTO_KK_VECTOR);
    tile(&f, f.body, "m", PTO_MAT, PTO_F16, 16, 64, 2);
    EXPECT(&f, "t.pto:2:8: error: vector kernel 'k' cannot use a 'mat' tile (the vector core has only vec)");
    begin(&f, PTO_KK_CUBE);
    tile(&f, f.body, "v", PTO_VEC, PTO_F32, 16, 64, 2);
    EXPECT(&f, "t.pto:2:8: error: cube kernel 'k' cannot use a 'vec' tile (vec belongs to the vector core)");
    begin(&f, PTO_KK_VECTOR);
    pto_add_section(f.m, f.body, PTO_CORE_CUBE, L(2, 3));
    EXPECT(&f, "t.pto:2:3: error: 'cube' section in a non-mix kernel 'k'");
}

static int32_t sync_op(fx *f, pto_op op, pto_pipe a, pto_pipe b, int32_t id, int line)
{
    int32_t s = pto_add_op(f->m, f->body, op, L(line, 3));
    pto_arg_pipe(f->m, s, a, L(line, 12));
    pto_arg_pipe(f->m, s, b, L(line, 16));
    pto_arg_int(f->m, s, Iat(f, id, line, 20), L(line, 20));
    return s;
}

static void test_sync(void)
{
    fx f;
    int32_t s;
    begin(&f, PTO_KK_VECTOR);
    sync_op(&f, PTO_OP_SET_FLAG, PTO_PIPE_V, PTO_PIPE_MTE3, 9, 2);
    sync_op(&f, PTO_OP_WAIT_FLAG, PTO_PIPE_V, PTO_PIPE_V, 0, 3);
    sync_op(&f, PTO_OP_SET_FLAG, PTO_PIPE_ALL, PTO_PIPE_V, 0, 4);
    sync_op(&f, PTO_OP_SET_FLAG, PTO_PIPE_M, PTO_PIPE_V, 0, 5);
    s = pto_add_op(f.m, f.body, PTO_OP_PIPE_BARRIER, L(6, 3));
    pto_arg_pipe(f.m, s, PTO_PIPE_ALL, L(6, 16));
    run(&f);
    CHECK(pto_error_count(f.ctx) == 4);
    CHECK(has(&f, "t.pto:2:20: error: event id 9 is out of range 0..7"));
    CHECK(has(&f, "t.pto:3:16: error: wait_flag needs two different pipes, got 'V' twice"));
    CHECK(has(&f, "t.pto:4:12: error: set_flag cannot name pipe 'ALL' (use pipe_barrier ALL)"));
    CHECK(has(&f, "t.pto:5:12: error: pipe 'M' does not exist on the vector core"));
    end(&f);
}

/* Misuse of the C API: names out of scope, unknown ids. No crash, all reported. */
static void test_scope_and_ids(void)
{
    fx f;
    int32_t x, loop, a, b, s;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 4), -1, L(2, 3));
    a = loaded(&f, f.m->stmts[loop].body, "a", x, 3);
    b = tile(&f, f.body, "b", PTO_VEC, PTO_F32, 16, 64, 5);
    op_t(&f, f.body, PTO_OP_TMOV, 6, 2, b, a, -1);
    pto_add_let(f.m, f.body, "r", pto_expr_var(f.m, f.m->stmts[loop].ref, L(7, 11)), L(7, 3));
    s = op_t(&f, f.body, PTO_OP_TMOV, 8, 2, b, a, -1);
    f.m->operands[f.m->stmts[s].arg0 + 1].ref = 9999;   /* past the builders, which refuse it (test_api) */
    s = pto_add_op(f.m, f.body, (pto_op)200, L(9, 3));
    pto_add_let(f.m, f.body, "q", 123456, L(10, 3));
    run(&f);
    CHECK(f.st == PTO_ERR_USER);
    CHECK(has(&f, "t.pto:6:20: error: tile 'a' is not declared here"));
    CHECK(has(&f, "t.pto:7:11: error: 'i' is not defined here"));
    CHECK(has(&f, "t.pto:8:20: error: operand names no tile"));
    CHECK(has(&f, "t.pto:9:3: error: unknown op 200"));
    CHECK(has(&f, "t.pto:10:3: error: missing or malformed expression"));
    end(&f);
}

static void test_shadow(void)
{
    fx f;
    int32_t loop;
    begin(&f, PTO_KK_VECTOR);
    vin(&f, "x", PTO_F32, 16, 64);
    tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    loop = pto_add_for(f.m, f.body, "i", I(&f, 0), I(&f, 4), -1, L(3, 3));
    tile(&f, f.m->stmts[loop].body, "a", PTO_VEC, PTO_F32, 16, 64, 4);
    tile(&f, f.m->stmts[loop].body, "x", PTO_VEC, PTO_F32, 16, 64, 5);
    /* a sibling scope may reuse a name */
    loop = pto_add_for(f.m, f.body, "j", I(&f, 0), I(&f, 4), -1, L(6, 3));
    tile(&f, f.m->stmts[loop].body, "t", PTO_VEC, PTO_F32, 16, 64, 7);
    loop = pto_add_for(f.m, f.body, "j", I(&f, 0), I(&f, 4), -1, L(8, 3));
    tile(&f, f.m->stmts[loop].body, "t", PTO_VEC, PTO_F32, 16, 64, 9);
    pto_add_kernel(f.m, "k", PTO_KK_VECTOR, L(11, 8));
    run(&f);
    CHECK(pto_error_count(f.ctx) == 3);
    CHECK(has(&f, "t.pto:4:8: error: 'a' shadows the tile declared at 2:8 (shadowing is not allowed)"));
    CHECK(has(&f, "t.pto:5:8: error: 'x' shadows the tensor declared at 1:10 (shadowing is not allowed)"));
    CHECK(has(&f, "t.pto:11:8: error: kernel 'k' is already defined at 1:8"));
    end(&f);
}

static void test_scalar_operand(void)
{
    fx f;
    int32_t x, a, d, s, sp;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    sp = pto_add_scalar_param(f.m, f.k, "alpha", PTO_F32, L(1, 40));
    a = loaded(&f, f.body, "a", x, 2);
    d = tile(&f, f.body, "d", PTO_VEC, PTO_F32, 16, 64, 4);
    s = op_t(&f, f.body, PTO_OP_TMULS, 5, 2, d, a, -1);
    pto_arg_scalar(f.m, s, f.m->params[sp].var, L(5, 30));
    s = op_t(&f, f.body, PTO_OP_TADDS, 6, 2, d, a, -1);
    pto_arg_int(f.m, s, I(&f, 2), L(6, 30));  /* an integer literal is a scalar */
    EXPECT_OK(&f);
}

/* Seven independent errors, all reported in one run, in program order. */
static void test_many_errors(void)
{
    fx f;
    int32_t x, a, b, m;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    b = tile(&f, f.body, "b", PTO_VEC, PTO_F16, 16, 64, 4);
    tile(&f, f.body, "c", PTO_VEC, PTO_F32, 16, 12, 5);
    m = tile(&f, f.body, "m", PTO_VEC, PTO_F32, 4, 1, 6);
    op_t(&f, f.body, PTO_OP_TADD, 7, 3, a, a, b);
    op_t(&f, f.body, PTO_OP_TROWSUM, 8, 2, m, a, -1);
    op_t(&f, f.body, PTO_OP_TADD, 9, 2, a, a, -1);
    load(&f, f.body, a, x, I(&f, 0), Iat(&f, 1, 10, 17), 10);
    run(&f);
    CHECK_MSG(pto_error_count(f.ctx) == 7, "%d errors", pto_error_count(f.ctx));
    CHECK(has(&f, "t.pto:5:8: error: row of vec tile 'c' is 48 bytes (12 x f32); vec rows must be a multiple of 32 bytes "
                  "(for a width of 12, declare f32[16, 16] valid(16, 12): loads and stores then move 12 columns)"));
    CHECK(has(&f, "t.pto:6:8: error: column tile 'm' is 16 bytes (4 x f32); a [R, 1] vec tile needs a multiple of 32 bytes "
                  "(for 4 rows, declare f32[8, 1] valid(4, 1): a row reduction of a tile with 4 valid rows writes it)"));
    CHECK(has(&f, "t.pto:7:30: error: 'b' is read before anything writes it"));
    CHECK(has(&f, "t.pto:7:30: error: dtype mismatch: 'a' is f32 but 'b' is f16"));
    CHECK(has(&f, "t.pto:8:10: error: 'm' must be [16, 1] (one value per row of 'a'), got [4, 1]"));
    CHECK(has(&f, "t.pto:9:3: error: tadd expects 3 operands, got 2 (the form: tadd d, a, b)"));
    CHECK(has(&f, "t.pto:10:17: error: window of 'x' ends at col 64, out of bounds ('x' has 64 cols)"));
    end(&f);
}

/* 100k op statements in one kernel, and 20k nested loops: both verify. */
static void test_stress(void)
{
    fx f;
    int32_t x, z, a, b, c, i, blk;
    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    z = vout(&f, "z", PTO_F32, 16, 64);
    a = loaded(&f, f.body, "a", x, 2);
    b = loaded(&f, f.body, "b", x, 4);
    c = tile(&f, f.body, "c", PTO_VEC, PTO_F32, 16, 64, 6);
    for (i = 0; i < 100000; i++) op_t(&f, f.body, (i & 1) ? PTO_OP_TADD : PTO_OP_TMUL, 7 + i, 3, c, a, (i & 2) ? b : c);
    store(&f, f.body, z, I(&f, 0), I(&f, 0), c, 100007);
    run(&f);
    CHECK_MSG(f.st == PTO_ERR_USER && pto_error_count(f.ctx) == 1, "status %d, %s", (int)f.st, f.first);
    CHECK_STR(f.first, "t.pto:7:30: error: 'c' is read before anything writes it");
    end(&f);

    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    a = tile(&f, f.body, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    load(&f, f.body, a, x, I(&f, 0), I(&f, 0), 3);
    b = tile(&f, f.body, "b", PTO_VEC, PTO_F32, 16, 64, 4);
    for (i = 0; i < 100000; i++) op_t(&f, f.body, PTO_OP_TADD, 5 + i, 3, b, a, a);
    run(&f);
    CHECK_MSG(f.st == PTO_OK, "100k: status %d, %s", (int)f.st, f.first);
    end(&f);

    begin(&f, PTO_KK_VECTOR);
    x = vin(&f, "x", PTO_F32, 16, 64);
    blk = f.body;
    a = tile(&f, blk, "a", PTO_VEC, PTO_F32, 16, 64, 2);
    for (i = 0; i < 20000; i++) {
        char name[16];
        snprintf(name, sizeof name, "i%d", (int)i);
        blk = body_of(&f, pto_add_for(f.m, blk, name, I(&f, 0), I(&f, 2), -1, L(3 + i, 3)));
    }
    load(&f, blk, a, x, I(&f, 0), I(&f, 0), 30000);
    op_t(&f, blk, PTO_OP_TADD, 30001, 3, a, a, a);
    run(&f);
    CHECK_MSG(f.st == PTO_OK, "deep: status %d, %s", (int)f.st, f.first);
    end(&f);
}

/* Parses and verifies text; the first diagnostic in first ("" when none). */
static int verify_text(const char *text, char *first, size_t size)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "t.pto", text, strlen(text));
    int n;
    if (m) (void)pto_verify(ctx, m);
    n = diags(ctx, first, size);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
    return n;
}

/* Cube tiles are whole fractals of their space and dtype (what the isa
   target's Tile<...> asserts); a valid region may end inside one. */
static void test_fractal_shapes(void)
{
    static const struct { const char *decl, *want; } cases[] = {
        {"left f16[20, 32]", "t.pto:2:8: error: left tile 't' is f16[20, 32]: left tiles are whole 16 x 16 fractals for f16, so rows and cols must be multiples of 16"},
        {"mat bf16[16, 8]", "t.pto:2:8: error: mat tile 't' is bf16[16, 8]: mat tiles are whole 16 x 16 fractals for bf16, so rows and cols must be multiples of 16"},
        {"left f32[16, 4]", "t.pto:2:8: error: left tile 't' is f32[16, 4]: left tiles are whole 16 x 8 fractals for f32, so rows must be a multiple of 16 and cols of 8"},
        {"right f32[16, 8]", "t.pto:2:8: error: right tile 't' is f32[16, 8]: right tiles are whole 8 x 16 fractals for f32, so rows must be a multiple of 8 and cols of 16"},
        {"left i8[16, 16]", "t.pto:2:8: error: left tile 't' is i8[16, 16]: left tiles are whole 16 x 32 fractals for i8, so rows must be a multiple of 16 and cols of 32"},
        {"right i8[16, 16]", "t.pto:2:8: error: right tile 't' is i8[16, 16]: right tiles are whole 32 x 16 fractals for i8, so rows must be a multiple of 32 and cols of 16"},
        {"acc f32[16, 8]", "t.pto:2:8: error: acc tile 't' is f32[16, 8]: acc tiles are whole 16 x 16 fractals for f32, so rows and cols must be multiples of 16"},
        {"acc i32[8, 16]", "t.pto:2:8: error: acc tile 't' is i32[8, 16]: acc tiles are whole 16 x 16 fractals for i32, so rows and cols must be multiples of 16"},
        {"mat f32[16, 8]", ""}, {"left f32[16, 8]", ""}, {"right f32[8, 16]", ""}, {"acc f32[16, 16]", ""},
        {"mat i8[16, 32]", ""}, {"right i8[32, 16]", ""}, {"left f16[32, 48] valid(3, 5)", ""},
        {"acc f32[16, 16] valid(1, 1)", ""},
    };
    char text[300], first[600];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "kernel k(in a: f16[16, 16]) cube {\n  tile t: %s\n}\n", cases[i].decl);
        verify_text(text, first, sizeof first);
        CHECK_MSG(strcmp(first, cases[i].want) == 0, "%s:\n  got  %s\n  want %s", cases[i].decl, first, cases[i].want);
    }
}

/* textract offsets are whole fractals of the mat tile, for every value an
   affine offset takes: a loop var is start, start + step, ..; block is 0,
   1, ..; a var whose values are not known statically is fine only with a
   coefficient that is a multiple (no false alarm). */
static void test_extract_fractal(void)
{
    static const struct { const char *head, *dt, *off, *want; } cases[] = {
        {"for k = 0 to 4 {", "f16", "0, 8", "t.pto:6:23: error: textract col offset 8 into 'm' is not a multiple of 16: offsets into a mat tile are whole 16 x 16 fractals for f16"},
        {"for k = 0 to 4 {", "f32", "8, 0", "t.pto:6:20: error: textract row offset 8 into 'm' is not a multiple of 16: offsets into a mat tile are whole 16 x 8 fractals for f32"},
        {"for k = 0 to 4 {", "f32", "16, 8", ""},
        {"for k = 0 to 48 step 16 {", "f16", "k, k", ""},
        {"for k = 0 to 32 step 8 {", "f16", "0, k", "t.pto:6:23: error: textract col offset into 'm' can be 8, not a multiple of 16: offsets into a mat tile are whole 16 x 16 fractals for f16"},
        {"for k = 0 to 24 step 8 {", "f16", "0, 2 * k", ""},
        {"for k = 8 to 48 step 16 {", "f16", "k + 8, 0", ""},
        {"for k = 8 to 48 step 16 {", "f16", "k, 0", "t.pto:6:20: error: textract row offset into 'm' can be 8, not a multiple of 16: offsets into a mat tile are whole 16 x 16 fractals for f16"},
        {"for k = 0 to 1 {", "f16", "0, 8 * k", ""},
        /* a guard inside the loop may skip the odd values: not checked */
        {"for k = 0 to 48 step 8 {\n    if k % 16 == 0 {", "f16", "0, k\n    }", ""},
        {"for k = 0 to 3 {\n    if k == 0 {", "f16", "block * 8, 0\n    }", ""},
        {"for k = 0 to 3 {\n    if k == 0 {", "f16", "block * 16 + 8, 0\n    }", "t.pto:7:20: error: textract row offset into 'm' is not always a multiple of 16: offsets into a mat tile are whole 16 x 16 fractals for f16"},
        {"for k = 0 to 2 {", "f16", "0, 16 + 8 * k", "t.pto:6:23: error: textract col offset into 'm' can be 24, not a multiple of 16: offsets into a mat tile are whole 16 x 16 fractals for f16"},
        {"for k = 0 to 3 {", "f16", "block * 16, 0", ""},
        {"for k = 0 to 3 {", "f16", "block * 8, 0", "t.pto:6:20: error: textract row offset into 'm' can be 8, not a multiple of 16: offsets into a mat tile are whole 16 x 16 fractals for f16"},
        {"for k = n to 3 {", "f16", "16 * k, 0", ""},
        {"for k = n to 3 {", "f16", "k, 0", ""},
        {"for k = n to 3 {", "f16", "16 * k + 8, 0", "t.pto:6:20: error: textract row offset into 'm' is not always a multiple of 16: offsets into a mat tile are whole 16 x 16 fractals for f16"},
        {"for k = 0 to 3 {\n    let c = 16 * k + 8", "f16", "0, c - 8", ""},
        {"for k = 0 to 3 {", "i8", "16, 32", ""},
        {"for k = 0 to 3 {", "i8", "0, 16", "t.pto:6:23: error: textract col offset 16 into 'm' is not a multiple of 32: offsets into a mat tile are whole 16 x 32 fractals for i8"},
    };
    char text[600], first[600];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text,
                 "kernel k(in a: %s[64, 64], scalar n: i32) cube blocks(2) {\n  tile m: mat %s[64, 64]\n"
                 "  tload m, a[0, 0]\n  %s\n    tile l: left %s[16, 32]\n    textract l, m, %s\n  }\n}\n",
                 cases[i].dt, cases[i].dt, cases[i].head, cases[i].dt, cases[i].off);
        verify_text(text, first, sizeof first);
        CHECK_MSG(strcmp(first, cases[i].want) == 0, "%s / %s:\n  got  %s\n  want %s", cases[i].head, cases[i].off,
                  first, cases[i].want);
    }
}

/* Only AIV 0 pushes into a v2c pipe without a split: a tpush AIV 1 can
   reach is an error, unless an enclosing if (evaluated at subblock = 1,
   through lets) sends AIV 1 elsewhere; a split pipe takes both pushes. */
static void test_v2c_push_guard(void)
{
    static const char *const err = "error: tpush into pipe 'up' (v2c, no split) can run on AIV 1 (subblock 1), but "
                                   "only AIV 0 pushes into an unsplit v2c pipe: guard it with 'if subblock == 0 { ... }', "
                                   "or split the pipe (each AIV then pushes half the tile)";
    static const struct { const char *split, *body; int line, col; } cases[] = {
        {"", "tpush up, xv", 16, 5},
        {"", "if subblock == 0 {\n      tpush up, xv\n    }", 0, 0},
        {"", "if 0 == subblock {\n      tpush up, xv\n    }", 0, 0},
        {"", "if subblock < 1 {\n      tpush up, xv\n    }", 0, 0},
        {"", "if subblock != 1 {\n      tpush up, xv\n    }", 0, 0},
        {"", "let s = subblock * 32\n    if s == 0 {\n      tpush up, xv\n    }", 0, 0},
        {"", "if subblock == 1 {\n    } else {\n      tpush up, xv\n    }", 0, 0},
        {"", "if subblock == 0 {\n      for i = 0 to 2 {\n        tpush up, xv\n      }\n    }", 0, 0},
        {"", "if subblock == 1 {\n      tpush up, xv\n    }", 17, 7},                    /* AIV 1 only */
        {"", "if subblock == 0 {\n    } else {\n      tpush up, xv\n    }", 18, 7},
        {"", "if block == 0 {\n      tpush up, xv\n    }", 17, 7},                       /* no guard: both */
        {"", "if subblock * n == 0 {\n      tpush up, xv\n    }", 17, 7},               /* not decided statically */
        {" split(up_down)", "tpush up, xh", 0, 0},
    };
    char text[1400], first[600], want[600];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text,
                 "kernel k(in x: f32[64, 64], out y: f32[64, 64], scalar n: i32) mix {\n"
                 "  pipe up: v2c f32[64, 64]%s\n"
                 "  cube {\n    tile xm: mat f32[64, 64]\n    tile xl: left f32[64, 64]\n    tile xr: right f32[64, 64]\n"
                 "    tile acc: acc f32[64, 64]\n    tpop xm, up\n    tmov xl, xm\n    tmov xr, xm\n    tfree up\n"
                 "    tmatmul acc, xl, xr\n    tstore y[0, 0], acc\n  }\n"
                 "  vector {\n    tile xv: vec f32[64, 64]\n    tile xh: vec f32[32, 64]\n    tload xv, x[0, 0]\n"
                 "    tload xh, x[subblock * 32, 0]\n    %s\n  }\n}\n",
                 cases[i].split, cases[i].body);
        verify_text(text, first, sizeof first);
        if (cases[i].line) snprintf(want, sizeof want, "t.pto:%d:%d: %s", cases[i].line + 4, cases[i].col, err);
        else want[0] = 0;
        CHECK_MSG(strcmp(first, want) == 0, "%s:\n  got  %s\n  want %s", cases[i].body, first, want);
    }
}

/* A malformed module from the C API: a loop whose var is a let var. The
   verifier read the let's form (never written: the array is not zeroed)
   as the var's value; now the var is unknown, and nothing is said. */
static void test_loop_var_let_kind(void)
{
    const char *text =
        "kernel k(in a: f32[64, 64], out y: f32[64, 64]) vector {\n"
        "  for i = 0 to 64 step 16 {\n"
        "    tile t: vec f32[16, 64]\n"
        "    tload t, a[i, 0]\n"
        "    tstore y[i, 0], t\n"
        "  }\n"
        "}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "t.pto", text, strlen(text));
    int32_t v;
    CHECK(m != NULL);
    if (!m) { pto_ctx_destroy(ctx); return; }
    for (v = 0; v < m->n_vars; v++)
        if (m->vars[v].kind == PTO_V_LOOP) m->vars[v].kind = PTO_V_LET;
    CHECK(pto_verify(ctx, m) == PTO_OK);
    CHECK_MSG(pto_diag_count(ctx) == 0, "%d diagnostics", pto_diag_count(ctx));
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Every diagnostic of verifying text, one a line ("" when none). */
static void all_diags(const char *text, char *out, size_t size)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "t.pto", text, strlen(text));
    int i;
    size_t n = 0;
    out[0] = 0;
    if (m) (void)pto_verify(ctx, m);
    for (i = 0; i < pto_diag_count(ctx) && n + 1 < size; i++) {
        pto_diag_format(ctx, pto_diag_get(ctx, i), out + n, size - n);
        n += strlen(out + n);
        if (n + 1 < size) out[n++] = '\n', out[n] = 0;
    }
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* The same-window check and the wait scan take the statements the main walk
   met (verify.c, pto__vsame_stores / pto__vnote_waits) when the statement
   lists are sound, and walk the tree as before when a C program left them
   otherwise. Each fixture below is one the quick path would misjudge: the
   tree walk's verdict must stand. */
static pto_module *parse_ok(pto_ctx *ctx, const char *text)
{
    pto_module *m = pto_parse(ctx, "t.pto", text, strlen(text));
    CHECK_MSG(m != NULL, "parse failed");
    return m;
}

static int count_msg(pto_ctx *ctx, const char *part)
{
    int i, n = 0;
    for (i = 0; i < pto_diag_count(ctx); i++) n += strstr(pto_diag_get(ctx, i)->msg, part) != NULL;
    return n;
}

static void test_same_window_lists(void)
{
    static const char *const same = "is the same in all 4 blocks";
    /* a wait in an else branch orders the blocks: no error, also when the if has lost its
       then-block (the main walk then skips the else branch; the tree walk does not) */
    static const char *const waits =
        "kernel sw(in x: f32[256, 64], out z: f32[256, 64], inout s: i32[8, 8]) vector blocks(4) ranks {\n"
        "  tile a: vec f32[16, 64]\n"
        "  tload a, x[0, 0]\n"
        "  tstore z[0, 0], a\n"
        "  if block == 0 {\n"
        "    tload a, x[0, 0]\n"
        "  } else {\n"
        "    wait s[0, 0], ge, 1\n"
        "  }\n"
        "}\n";
    /* a store under an if on block: not the same window in every block, also when the
       store's block field names the kernel body (the quick path climbs from it) */
    static const char *const guarded =
        "kernel sb(in x: f32[256, 64], out z: f32[256, 64]) vector blocks(4) {\n"
        "  tile a: vec f32[16, 64]\n"
        "  tload a, x[block * 16, 0]\n"
        "  tstore z[block * 16, 0], a\n"
        "  if block == 0 {\n"
        "    tstore z[64, 0], a\n"
        "  }\n"
        "}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = parse_ok(ctx, waits);
    int32_t s;
    if (m) {
        CHECK(pto_verify(ctx, m) == PTO_OK && count_msg(ctx, same) == 0);
        for (s = 0; s < m->n_stmts; s++)
            if (m->stmts[s].kind == PTO_ST_IF) m->stmts[s].body = -1;
        (void)pto_verify(ctx, m);
        CHECK_MSG(count_msg(ctx, same) == 0, "%d same-window errors beside the wait", count_msg(ctx, same));
        pto_module_destroy(m);
    }
    pto_ctx_destroy(ctx);
    ctx = pto_ctx_create(NULL);
    m = parse_ok(ctx, guarded);
    if (m) {
        int32_t last = -1;
        CHECK(pto_verify(ctx, m) == PTO_OK && count_msg(ctx, same) == 0);
        for (s = 0; s < m->n_stmts; s++)
            if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == PTO_OP_TSTORE) last = s;
        CHECK(last >= 0 && m->stmts[last].block != m->kernels[0].body);
        if (last >= 0) m->stmts[last].block = m->kernels[0].body;
        (void)pto_verify(ctx, m);
        CHECK_MSG(count_msg(ctx, same) == 0, "%d same-window errors for the guarded store", count_msg(ctx, same));
        pto_module_destroy(m);
    }
    pto_ctx_destroy(ctx);
    /* and the quick path itself: the unguarded store of the same kernel is reported, once */
    ctx = pto_ctx_create(NULL);
    m = parse_ok(ctx, "kernel sb(in x: f32[256, 64], out z: f32[256, 64]) vector blocks(4) {\n"
                      "  tile a: vec f32[16, 64]\n"
                      "  tload a, x[block * 16, 0]\n"
                      "  for i = 0 to 2 {\n"
                      "    if i == 1 {\n"
                      "      tstore z[64, 0], a\n"
                      "    } else {\n"
                      "      tstore z[block * 16, 0], a\n"
                      "    }\n"
                      "  }\n"
                      "}\n");
    if (m) {
        CHECK(pto_verify(ctx, m) == PTO_ERR_USER);
        CHECK_MSG(count_msg(ctx, same) == 1, "%d same-window errors", count_msg(ctx, same));
        pto_module_destroy(m);
    }
    pto_ctx_destroy(ctx);
}

/* A kernel that writes no tensor at all (no tstore, tput, tget, notify or
   allreduce to an out or inout tensor, on any path) draws one warning at
   the kernel, in place of its out tensors' own; writing only an inout
   tensor, only in one section of a mix kernel, only by notify / tput /
   allreduce, or only under an if or in a loop counts as writing. */
static void test_no_output(void)
{
    static const char *const warn = "warning: kernel '%s' writes no output: no tstore, tput, tget, notify or "
                                    "allreduce writes any of its tensors, so running it changes nothing\n";
    static const struct { const char *text, *at, *name; } cases[] = {
        {"kernel k(in x: f32[16, 64]) vector {\n  tile a: vec f32[16, 64]\n  tload a, x[0, 0]\n  tadds a, a, 1.0\n}\n",
         "t.pto:1:8: ", "k"},
        {"kernel k2(inout x: f32[16, 64], out y: f32[16, 64]) vector {\n  tile a: vec f32[16, 64]\n  tload a, x[0, 0]\n}\n",
         "t.pto:1:8: ", "k2"},
        {"kernel e() cube {\n}\n", "t.pto:1:8: ", "e"},
        {"kernel w(in x: f32[16, 64], out y: f32[16, 64]) vector {\n  tile a: vec f32[16, 64]\n  tload a, x[0, 0]\n"
         "  tstore y[0, 0], a\n}\n\nkernel quiet(in x: f32[16, 64]) vector {\n  tile a: vec f32[16, 64]\n"
         "  tload a, x[0, 0]\n}\n", "t.pto:7:8: ", "quiet"},
        /* writes: no warning */
        {"kernel io(inout x: f32[16, 64]) vector {\n  tile a: vec f32[16, 64]\n  tload a, x[0, 0]\n  tadds a, a, 1.0\n"
         "  for i = 0 to 0 {\n    if i == 3 {\n      tstore x[0, 0], a\n    }\n  }\n}\n", NULL, NULL},
        {"kernel n(inout s: i32[1, 8] window) vector ranks {\n  notify s@((rank + 1) % nranks)[0, 0], 1, add\n}\n", NULL, NULL},
        {"kernel p(in x: f32[16, 64] window, inout y: f32[16, 64] window) vector ranks {\n"
         "  tput y@((rank + 1) % nranks)[0, 0], x[0, 0], 16, 64\n}\n", NULL, NULL},
        {"kernel r(inout x: f32[16, 64] window, inout s: i32[1, 8] window) vector ranks {\n  allreduce x, s\n}\n", NULL, NULL},
        {"kernel mx(in a: f16[64, 64], out c: f32[64, 64]) mix {\n  pipe q: c2v f32[64, 64] split(up_down)\n"
         "  cube {\n    tile a1: mat f16[64, 64]\n    tile a0: left f16[64, 64]\n    tile b0: right f16[64, 64]\n"
         "    tile acc: acc f32[64, 64]\n    tload a1, a[0, 0]\n    tmov a0, a1\n    tmov b0, a1\n"
         "    tmatmul acc, a0, b0\n    tpush q, acc\n    tstore c[0, 0], acc\n  }\n  vector {\n"
         "    tile t: vec f32[32, 64]\n    tpop t, q\n    tfree q\n  }\n}\n", NULL, NULL},
    };
    char got[2000], want[600];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        all_diags(cases[i].text, got, sizeof got);
        want[0] = 0;
        if (cases[i].at) {
            snprintf(want, sizeof want, "%s", cases[i].at);
            snprintf(want + strlen(want), sizeof want - strlen(want), warn, cases[i].name);
        }
        CHECK_MSG(strcmp(got, want) == 0, "case %d:\n  got  %s\n  want %s", (int)i, got, want);
    }
}

/* review18 L7: an integer expression in a scalar position is checked once:
   `rank` outside a ranks kernel is one error each, not two. */
static void test_scalar_expr_once(void)
{
    char out[4000];
    all_diags("kernel rn(out y: i32[16, 8]) vector {\n  tile t: vec i32[16, 8]\n  texpands t, rank * 10 + nranks\n"
              "  tstore y[0, 0], t\n}\n", out, sizeof out);
    CHECK_STR(out, "t.pto:3:15: error: 'rank' is only defined in a ranks kernel\n"
                   "t.pto:3:27: error: 'nranks' is only defined in a ranks kernel\n");
}

/* review18 M5: a split(left_right) pipe whose half row is under 32 bytes
   is one error at the pipe, with the columns it needs; its tiles' row and
   shape errors (which contradicted each other) are not added. */
static void test_split_half_row(void)
{
    static const char *const tiles[] = {"f16[16, 8]", "f16[16, 16] valid(16, 8)"};
    char text[2000], out[4000];
    int i;
    for (i = 0; i < 2; i++) {
        snprintf(text, sizeof text,
                 "kernel sl(in a: f16[16, 16], out c: f32[16, 16]) mix {\n"
                 "  pipe q: v2c f16[16, 16] split(left_right)\n"
                 "  cube {\n"
                 "    tile m: mat f16[16, 16]\n"
                 "    tpop m, q\n"
                 "    tfree q\n"
                 "    tile l: left f16[16, 16]\n"
                 "    tile r: right f16[16, 16]\n"
                 "    tile acc: acc f32[16, 16]\n"
                 "    tmov l, m\n"
                 "    tmov r, m\n"
                 "    tmatmul acc, l, r\n"
                 "    tstore c[0, 0], acc\n"
                 "  }\n"
                 "  vector {\n"
                 "    tile t: vec %s\n"
                 "    tload t, a[0, subblock * 8]\n"
                 "    tpush q, t\n"
                 "  }\n"
                 "}\n", tiles[i]);
        all_diags(text, out, sizeof out);
        CHECK_STR(out, "t.pto:2:8: error: pipe 'q': split(left_right) gives each AIV [16, 8] f16, whose rows are 16 "
                       "bytes, but vec rows must be a multiple of 32 bytes: a left_right pipe needs columns a multiple "
                       "of 16 for f32 / i32, 32 for f16 / bf16, 64 for i8 (here 16)\n");
    }
}

/* A literal scalar of tadds .. tmins / texpands on an i32 / i8 tile that the
   conversion to the tile's dtype changes (truncated, out of range, nan) is
   a warning at the scalar naming the op, the tile, its dtype and the value
   used; exact values, float tiles and scalar params (known only at run
   time) are not. */
static void test_int_scalar(void)
{
    const char *text =
        "kernel k(in x: i32[16, 32], out y: i32[16, 32], in b: i8[32, 32], out c: i8[32, 32],\n"
        "         in f: f32[16, 32], out g: f32[16, 32], scalar s: f32) vector {\n"
        "  tile t: vec i32[16, 32]\n"
        "  tile u: vec i8[32, 32]\n"
        "  tile w: vec f32[16, 32]\n"
        "  tload t, x[0, 0]\n"
        "  tadds t, t, 1.5\n"
        "  tmuls t, t, -2.75\n"
        "  tadds t, t, 3.0\n"
        "  tmins t, t, -2147483648\n"
        "  tmaxs t, t, 1e10\n"
        "  tadds t, t, s\n"
        "  texpands u, 300\n"
        "  tadds u, u, nan\n"
        "  tdivs u, u, 0.1\n"
        "  tsubs u, u, -128\n"
        "  tload w, f[0, 0]\n"
        "  tadds w, w, 1.5\n"
        "  tstore y[0, 0], t\n"
        "  tstore c[0, 0], u\n"
        "  tstore g[0, 0], w\n"
        "}\n";
    const char *want =
        "t.pto:7:15: warning: tadds on the i32 tile 't': the scalar 1.5 is taken as 1 (the device converts it to the "
        "tile's dtype, truncating toward zero)\n"
        "t.pto:8:15: warning: tmuls on the i32 tile 't': the scalar -2.75 is taken as -2 (the device converts it to the "
        "tile's dtype, truncating toward zero)\n"
        "t.pto:11:15: warning: tmaxs on the i32 tile 't': the scalar 1e+10 does not fit i32 (the device's conversion is "
        "undefined); the simulator and the reference use 2147483647\n"
        "t.pto:13:15: warning: texpands on the i8 tile 'u': the scalar 300 does not fit i8 (the device's conversion is "
        "undefined); the simulator and the reference use 127\n"
        "t.pto:14:15: warning: tadds on the i8 tile 'u': the scalar nan has no i8 value; the simulator and the reference "
        "use 0\n"
        "t.pto:15:15: warning: tdivs on the i8 tile 'u' by 0.1 (taken as 0): the device multiplies by 1 / 0 = +inf, "
        "so every element but 0 saturates to the i8 range's end (positive ones to 127, negative ones to -128; 0 * inf "
        "is NaN, which gives 0)\n";
    char got[3000];
    all_diags(text, got, sizeof got);
    CHECK_MSG(strcmp(got, want) == 0, "\n  got  %s\n  want %s", got, want);
}

/* Every .pto file in tests/ok (tricky but legal) parses and verifies with no diagnostic. */
static void check_ok_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    char *text;
    long n;
    pto_ctx *ctx;
    pto_module *m;
    pto_status st = PTO_ERR_INTERNAL;
    CHECK_MSG(fp != NULL, "cannot open %s", path);
    if (!fp) return;
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    text = (char *)malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, fp) == (size_t)n) {
        text[n] = 0;
        ctx = pto_ctx_create(NULL);
        m = pto_parse(ctx, path, text, (size_t)n);
        if (m) st = pto_verify(ctx, m);
        CHECK_MSG(m && st == PTO_OK && pto_diag_count(ctx) == 0, "%s does not verify cleanly", path);
        if (pto_diag_count(ctx)) pto_diag_print(ctx, stdout);
        pto_module_destroy(m);
        pto_ctx_destroy(ctx);
    }
    free(text);
    fclose(fp);
}

static void test_ok_files(void)
{
    DIR *d = opendir("tests/ok");
    struct dirent *e;
    int n = 0;
    CHECK(d != NULL);
    while (d && (e = readdir(d)) != NULL) {
        char path[512];
        size_t l = strlen(e->d_name);
        if (l < 5 || l > 400 || strcmp(e->d_name + l - 4, ".pto") != 0) continue;
        snprintf(path, sizeof path, "tests/ok/%s", e->d_name);
        check_ok_file(path);
        n++;
    }
    if (d) closedir(d);
    CHECK_MSG(n >= 8, "only %d files in tests/ok", n);
}

int main(void)
{
    test_ok_files();
    test_no_output();
    test_same_window_lists();
    test_split_half_row();
    test_scalar_expr_once();
    test_int_scalar();
    test_loop_var_let_kind();
    test_v2c_push_guard();
    test_good_vadd();
    test_window_affine_oob();
    test_window_guarded_ok();
    test_window_const_oob();
    test_window_negative();
    test_window_valid_ok();
    test_arity();
    test_kind();
    test_space();
    test_space_list();
    test_dtype();
    test_load_dtype();
    test_shape();
    test_rowred();
    test_rowexp();
    test_colred();
    test_colexp();
    test_float_only();
    test_matmul_good();
    test_matmul_inner();
    test_matmul_result();
    test_matmul_accdtype();
    test_store_acc_narrow();
    test_matmul_acc_uninit();
    test_matmul_acc_self_loop();
    test_matmul_if_idiom_ok();
    test_tmov_spaces();
    test_extract();
    test_extract_float();
    test_extract_fractal();
    test_fractal_shapes();
    test_nbuf();
    test_align();
    test_capacity();
    test_pin();
    test_valid();
    test_uninit();
    test_loop_carried_ok();
    test_loop_fresh_bad();
    test_loop_after_bad();
    test_dirs();
    test_remote();
    test_rank_builtin();
    test_float_scalar_expr();
    test_window_scalar();
    test_step_blocks();
    test_div_zero();
    test_mix();
    test_kernel_spaces();
    test_sync();
    test_scope_and_ids();
    test_shadow();
    test_scalar_operand();
    test_many_errors();
    test_stress();
    return TEST_END();
}
