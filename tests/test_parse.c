/* test_parse.c - the IR the parser builds: kernel kinds and attributes,
   params and shared dynamic dims, tile fields, loops, operand kinds per op
   table mask, scopes, locations, several errors in one run, and hostile
   input (NUL bytes, huge numbers, deep nesting, long lines) that must be
   rejected without a crash; the text is read only within its length
   (parse and emit next to an unreadable page). */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

#include <stdlib.h>
#include <time.h>
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#define T_GUARD 1
#endif

static pto_ctx *ctx;

static pto_module *parse(const char *src)
{
    pto_diag_clear(ctx);
    return pto_parse(ctx, "t.pto", src, strlen(src));
}

static const char *S(const pto_module *m, int32_t id) { return pto_str(m->ctx, id); }

/* The first diagnostic of a failing parse, formatted. */
static const char *first_error(const char *src)
{
    static char buf[700];
    pto_module *m = parse(src);
    buf[0] = 0;
    if (m) { pto_module_destroy(m); return "(parsed)"; }
    if (pto_diag_count(ctx) > 0) pto_diag_format(ctx, pto_diag_get(ctx, 0), buf, sizeof buf);
    return buf;
}

/* The n-th statement of a block. */
static int32_t nth(const pto_module *m, int32_t block, int n)
{
    int32_t s = m->blocks[block].head;
    while (s >= 0 && n-- > 0) s = m->stmts[s].next;
    return s;
}

static void test_vadd(void)
{
    pto_module *m = parse(
        "kernel vadd(in x: f32[1024, 256], in y: f32[1024, 256], out z: f32[1024, 256]) vector blocks(8) {\n"
        "  for i = 0 to 8 {\n"
        "    tile a: vec f32[16, 256] x2\n"
        "    let r = block * 128 + i * 16\n"
        "    tload a, x[r, 0]\n"
        "    tstore z[r, 0], a\n"
        "  }\n"
        "}\n");
    const pto_kernel *k;
    const pto_stmt *f, *ld;
    const pto_tile *a;
    const pto_operand *o;
    int32_t body, s;
    CHECK(m != NULL);
    if (!m) return;
    CHECK(m->n_kernels == 1);
    k = &m->kernels[0];
    CHECK_STR(S(m, k->name), "vadd");
    CHECK(k->kind == PTO_KK_VECTOR && k->ranks == 0);
    CHECK(k->blocks >= 0 && m->exprs[k->blocks].kind == PTO_E_INT && m->exprs[k->blocks].value == 8);
    CHECK(k->nparams == 3);
    CHECK(m->params[k->param0 + 2].dir == PTO_OUT && m->params[k->param0].dir == PTO_IN);
    CHECK(m->params[k->param0].dim[0] == 1024 && m->params[k->param0].dim[1] == 256);
    CHECK(m->params[k->param0].dim_var[0] == -1 && m->params[k->param0].dtype == PTO_F32);
    s = nth(m, k->body, 0);
    f = &m->stmts[s];
    CHECK(f->kind == PTO_ST_FOR && f->e[2] == -1);
    CHECK(m->vars[f->ref].kind == PTO_V_LOOP && m->vars[f->ref].def == s);
    CHECK_STR(S(m, m->vars[f->ref].name), "i");
    CHECK(m->exprs[f->e[0]].value == 0 && m->exprs[f->e[1]].value == 8);
    CHECK(f->loc.line == 2 && f->loc.col == 3);
    CHECK(m->vars[f->ref].loc.line == 2 && m->vars[f->ref].loc.col == 7);
    body = f->body;
    CHECK(m->blocks[body].owner == s);
    a = &m->tiles[m->stmts[nth(m, body, 0)].ref];
    CHECK_STR(S(m, a->name), "a");
    CHECK(a->space == PTO_VEC && a->dtype == PTO_F32 && a->rows == 16 && a->cols == 256);
    CHECK(a->nbuf == 2 && a->pin == PTO_NO_ADDR && a->valid_r == -1 && a->valid_c == -1);
    CHECK(a->decl == nth(m, body, 0) && a->loc.line == 3 && a->loc.col == 10);
    CHECK(m->stmts[a->decl].loc.col == 5);
    /* let r = block * 128 + i * 16: ADD(MUL(BLOCK, 128), MUL(VAR i, 16)) */
    {
        const pto_stmt *l = &m->stmts[nth(m, body, 1)];
        const pto_expr *e = &m->exprs[l->e[0]];
        CHECK(l->kind == PTO_ST_LET && m->vars[l->ref].kind == PTO_V_LET);
        CHECK(e->kind == PTO_E_ADD && m->exprs[e->a].kind == PTO_E_MUL && m->exprs[e->b].kind == PTO_E_MUL);
        CHECK(m->exprs[m->exprs[e->a].a].kind == PTO_E_BLOCK);
        CHECK(m->exprs[m->exprs[e->b].a].kind == PTO_E_VAR && m->exprs[m->exprs[e->b].a].a == f->ref);
        CHECK(e->loc.line == 4 && e->loc.col == 25); /* the '+' */
    }
    ld = &m->stmts[nth(m, body, 2)];
    CHECK(ld->kind == PTO_ST_OP && ld->op == PTO_OP_TLOAD && ld->nargs == 2);
    CHECK(ld->loc.line == 5 && ld->loc.col == 5);
    o = pto_stmt_arg(m, nth(m, body, 2), 0);
    CHECK(o->kind == PTO_O_TILE && o->ref == m->stmts[nth(m, body, 0)].ref && o->loc.col == 11);
    o = pto_stmt_arg(m, nth(m, body, 2), 1);
    CHECK(o->kind == PTO_O_GM && o->ref == k->param0 && o->e[2] == -1 && o->loc.col == 14);
    CHECK(m->exprs[o->e[0]].kind == PTO_E_VAR && m->exprs[o->e[0]].a == m->stmts[nth(m, body, 1)].ref);
    o = pto_stmt_arg(m, nth(m, body, 3), 0);
    CHECK(o->kind == PTO_O_GM && o->ref == k->param0 + 2);
    pto_module_destroy(m);
}

static void test_dims_and_scalars(void)
{
    pto_module *m = parse(
        "kernel s(in x: f32[N, 128],\n"
        "         out y: f32[N, M] window,\n"
        "         scalar alpha: f32) vector blocks(N / 16) ranks {\n"
        "  tile t: vec f32[16, 128] valid(N - 3, 100) at 0x2000\n"
        "  tmuls t, t, alpha\n"
        "  tadds t, t, 2\n"
        "  texpands t, -1.5\n"
        "  tstore y@rank[0, 0], t\n"
        "}\n");
    const pto_param *x, *y, *al;
    const pto_tile *t;
    const pto_operand *o;
    int32_t body;
    CHECK(m != NULL);
    if (!m) return;
    x = &m->params[0];
    y = &m->params[1];
    al = &m->params[2];
    CHECK(x->dim[0] == -1 && x->dim_var[0] >= 0 && x->dim_var[0] == y->dim_var[0]);
    CHECK(m->vars[x->dim_var[0]].kind == PTO_V_DIM && m->vars[x->dim_var[0]].def == 0);
    CHECK(y->dim_var[1] >= 0 && y->dim_var[1] != y->dim_var[0] && x->dim[1] == 128 && x->dim_var[1] == -1);
    CHECK(y->window == 1 && x->window == 0 && y->loc.line == 2 && y->loc.col == 14);
    CHECK(al->kind == PTO_P_SCALAR && al->dtype == PTO_F32 && m->vars[al->var].kind == PTO_V_SCALAR);
    CHECK(m->kernels[0].ranks == 1);
    CHECK(m->exprs[m->kernels[0].blocks].kind == PTO_E_DIV);
    CHECK(m->exprs[m->exprs[m->kernels[0].blocks].a].a == x->dim_var[0]);
    body = m->kernels[0].body;
    t = &m->tiles[0];
    CHECK(t->pin == 0x2000 && t->valid_r >= 0 && m->exprs[t->valid_r].kind == PTO_E_SUB);
    CHECK(m->exprs[t->valid_c].value == 100);
    o = pto_stmt_arg(m, nth(m, body, 1), 2);
    CHECK(o->kind == PTO_O_SCALAR && o->ref == al->var);
    o = pto_stmt_arg(m, nth(m, body, 2), 2);
    CHECK(o->kind == PTO_O_FLOAT && o->f == 2.0);          /* an int in a scalar position */
    o = pto_stmt_arg(m, nth(m, body, 3), 1);
    CHECK(o->kind == PTO_O_FLOAT && o->f == -1.5);
    o = pto_stmt_arg(m, nth(m, body, 4), 0);
    CHECK(o->kind == PTO_O_GM && o->ref == 1 && o->e[2] >= 0 && m->exprs[o->e[2]].kind == PTO_E_RANK);
    pto_module_destroy(m);
}

static void test_cube_if_sync_mix(void)
{
    pto_module *m = parse(
        "arch a5\n"
        "kernel mm(in a: f16[128, 64]) cube {\n"
        "  tile a1: mat f16[128, 64]\n"
        "  tile a0: left f16[128, 64]\n"
        "  for k = 0 to 256 step 64 {\n"
        "    if k == 0 {\n"
        "      textract a0, a1, k / 2, 0\n"
        "    } else {\n"
        "      set_flag MTE2, MTE1, k % 8\n"
        "      pipe_barrier ALL\n"
        "    }\n"
        "  }\n"
        "}\n"
        "kernel mx(in a: f16[16, 16]) mix {\n"
        "  cube {\n"
        "    tile m: mat f16[16, 16]\n"
        "  }\n"
        "  vector {\n"
        "    tile m: vec f16[16, 16]\n"
        "  }\n"
        "}\n");
    int32_t f, i, s, sec;
    const pto_operand *o;
    CHECK(m != NULL);
    if (!m) return;
    CHECK(m->arch == PTO_ARCH_A5);
    CHECK(m->kernels[0].kind == PTO_KK_CUBE && m->kernels[1].kind == PTO_KK_MIX);
    CHECK(m->tiles[0].core == PTO_CORE_CUBE && m->tiles[1].space == PTO_LEFT);
    f = nth(m, m->kernels[0].body, 2);
    CHECK(m->stmts[f].kind == PTO_ST_FOR && m->exprs[m->stmts[f].e[2]].value == 64);
    i = nth(m, m->stmts[f].body, 0);
    CHECK(m->stmts[i].kind == PTO_ST_IF && m->stmts[i].cmp == PTO_EQ && m->stmts[i].orelse >= 0);
    s = nth(m, m->stmts[i].body, 0);
    CHECK(m->stmts[s].op == PTO_OP_TEXTRACT && m->stmts[s].nargs == 4);
    CHECK(pto_stmt_arg(m, s, 2)->kind == PTO_O_INT && pto_stmt_arg(m, s, 3)->kind == PTO_O_INT);
    CHECK(m->exprs[pto_stmt_arg(m, s, 3)->e[0]].value == 0);
    s = nth(m, m->stmts[i].orelse, 0);
    CHECK(m->stmts[s].op == PTO_OP_SET_FLAG && m->stmts[s].nargs == 3);
    o = pto_stmt_arg(m, s, 0);
    CHECK(o->kind == PTO_O_PIPE && o->ref == PTO_PIPE_MTE2);
    o = pto_stmt_arg(m, s, 1);
    CHECK(o->kind == PTO_O_PIPE && o->ref == PTO_PIPE_MTE1);
    o = pto_stmt_arg(m, s, 2);
    CHECK(o->kind == PTO_O_INT && m->exprs[o->e[0]].kind == PTO_E_MOD);
    s = nth(m, m->stmts[i].orelse, 1);
    CHECK(m->stmts[s].op == PTO_OP_PIPE_BARRIER && pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_ALL);
    sec = nth(m, m->kernels[1].body, 0);
    CHECK(m->stmts[sec].kind == PTO_ST_SECTION && m->stmts[sec].ref == PTO_CORE_CUBE);
    CHECK(m->tiles[m->stmts[nth(m, m->stmts[sec].body, 0)].ref].core == PTO_CORE_CUBE);
    sec = nth(m, m->kernels[1].body, 1);
    CHECK(m->stmts[sec].kind == PTO_ST_SECTION && m->stmts[sec].ref == PTO_CORE_VECTOR);
    CHECK(m->tiles[m->stmts[nth(m, m->stmts[sec].body, 0)].ref].core == PTO_CORE_VECTOR);
    pto_module_destroy(m);
}

/* Extra operands past the op's arity are kept, classified by their form. */
static void test_free_operands(void)
{
    pto_module *m = parse(
        "kernel k(in x: f32[16, 16]) vector {\n"
        "  tile a: vec f32[16, 16]\n"
        "  texp a, a, 1.5, 3, V, x[0, 1]\n"
        "  tadd a\n"
        "}\n");
    int32_t s;
    CHECK(m != NULL);
    if (!m) return;
    s = nth(m, m->kernels[0].body, 1);
    CHECK(m->stmts[s].nargs == 6);
    CHECK(pto_stmt_arg(m, s, 2)->kind == PTO_O_FLOAT && pto_stmt_arg(m, s, 3)->kind == PTO_O_INT);
    CHECK(pto_stmt_arg(m, s, 4)->kind == PTO_O_PIPE && pto_stmt_arg(m, s, 5)->kind == PTO_O_GM);
    CHECK(m->stmts[nth(m, m->kernels[0].body, 2)].nargs == 1);
    pto_module_destroy(m);
}

/* review18 M6: in a scalar position an integer literal that an operator
   follows starts an integer expression (`2 * i` as `i * 2`, `2 + 1` as
   `(2 + 1)`); a literal alone stays a float operand; `.5` stays an error;
   an unknown name in such an expression is one error, not two. */
static void test_literal_first_scalar(void)
{
    pto_module *m = parse(
        "kernel k(in x: f32[16, 8], out y: f32[16, 8]) vector {\n"
        "  tile t: vec f32[16, 8]\n"
        "  for i = 0 to 2 {\n"
        "    tadds t, t, 2 * i\n"
        "    tadds t, t, 2 + 1\n"
        "    tadds t, t, -2 * i\n"
        "    tmuls t, t, 1.5\n"
        "    tadds t, t, -2e-3\n"
        "    tadds t, t, -2\n"
        "    tadds t, t, 3\n"
        "  }\n"
        "}\n");
    int32_t f, s;
    const pto_operand *o;
    const pto_expr *e;
    CHECK(m != NULL);
    if (!m) return;
    f = nth(m, m->kernels[0].body, 1);
    s = nth(m, m->stmts[f].body, 0);
    o = pto_stmt_arg(m, s, 2);
    CHECK(o->kind == PTO_O_INT);
    e = &m->exprs[o->e[0]];
    CHECK(e->kind == PTO_E_MUL && m->exprs[e->a].kind == PTO_E_INT && m->exprs[e->a].value == 2 &&
          m->exprs[e->b].kind == PTO_E_VAR);
    o = pto_stmt_arg(m, nth(m, m->stmts[f].body, 1), 2);
    CHECK(o->kind == PTO_O_INT && m->exprs[o->e[0]].kind == PTO_E_ADD);
    o = pto_stmt_arg(m, nth(m, m->stmts[f].body, 2), 2);
    CHECK(o->kind == PTO_O_INT && m->exprs[o->e[0]].kind == PTO_E_MUL &&
          m->exprs[m->exprs[o->e[0]].a].value == -2);
    o = pto_stmt_arg(m, nth(m, m->stmts[f].body, 3), 2);
    CHECK(o->kind == PTO_O_FLOAT && o->f == 1.5);
    o = pto_stmt_arg(m, nth(m, m->stmts[f].body, 4), 2);
    CHECK(o->kind == PTO_O_FLOAT && o->f == -2e-3);
    o = pto_stmt_arg(m, nth(m, m->stmts[f].body, 5), 2);
    CHECK(o->kind == PTO_O_FLOAT && o->f == -2.0);
    o = pto_stmt_arg(m, nth(m, m->stmts[f].body, 6), 2);
    CHECK(o->kind == PTO_O_FLOAT && o->f == 3.0);
    pto_module_destroy(m);
    CHECK_STR(first_error("kernel k(in x: f32[16, 8]) vector {\n  tile t: vec f32[16, 8]\n  tadds t, t, .5\n}\n"),
              "t.pto:3:15: error: unexpected character '.'");
    CHECK_STR(first_error("kernel k(in x: f32[16, 8]) vector {\n  tile t: vec f32[16, 8]\n  tmuls t, t, 2 * 1.5\n}\n"),
              "t.pto:3:19: error: expected an integer expression, got float '1.5'");
    m = parse("kernel k(out y: i32[16, 8]) vector {\n  tile t: vec i32[16, 8]\n  texpands t, zz + 1\n"
              "  tstore y[0, 0], t\n}\n");
    CHECK(m == NULL && pto_diag_count(ctx) == 1);
    CHECK_STR(first_error("kernel k(out y: i32[16, 8]) vector {\n  tile t: vec i32[16, 8]\n  texpands t, zz + 1\n}\n"),
              "t.pto:3:15: error: unknown name 'zz'");
    pto_module_destroy(m);
}

/* review18 L7: a UTF-8 byte-order mark at the start is skipped (columns
   count from after it); a dim written as an expression is one error, and
   its name is not declared by it (a later `scalar B` is no "already
   declared", a use of B says nothing more). */
static void test_bom_and_dim_expr(void)
{
    pto_module *m = parse("\xEF\xBB\xBFkernel k(in x: f32[16, 16]) vector {\n}\n");
    CHECK(m != NULL);
    pto_module_destroy(m);
    CHECK_STR(first_error("\xEF\xBB\xBFkernal k(in x: f32[16, 16]) vector {\n}\n"),
              "t.pto:1:1: error: expected 'kernel', 'host' or 'arch', got 'kernal' (did you mean 'kernel'?)");
    m = parse("kernel k(out y: f32[B * 16, 16], scalar B: i32) vector blocks(B) {\n"
              "  tile t: vec f32[16, 16]\n  tstore y[B, 0], t\n}\n"
              "kernel k2(in x: f32[C * 16, 16]) vector {\n  let a = C + 1\n}\n");
    CHECK(m == NULL);
    CHECK_MSG(pto_diag_count(ctx) == 2, "%d diagnostics", pto_diag_count(ctx));
    CHECK_STR(first_error("kernel k(out y: f32[B * 16, 16], scalar B: i32) vector {\n}\n"),
              "t.pto:1:23: error: a tensor dimension is an integer or a name, not an expression (give the extent a "
              "name of its own, e.g. 'BM', and compute with it in the body)");
}

/* Tiles named like the words of other operand kinds (a pipe, a comparison,
   a notify mode): the op table's position decides, as before the parser's
   fast path for tile operands. */
static void test_tiles_named_like_words(void)
{
    pto_module *m = parse(
        "kernel k(inout s: i32[1, 8] window) vector ranks {\n"
        "  tile V: vec f32[16, 16]\n"
        "  tile MTE2: vec f32[16, 16]\n"
        "  tile ge: vec f32[16, 16]\n"
        "  tile add: vec f32[16, 16]\n"
        "  tadd V, MTE2, ge\n"
        "  set_flag V, MTE2, 0\n"
        "  wait s[0, 0], ge, 1\n"
        "  notify s[0, 0], 1, add\n"
        "  texp add, add, V\n"
        "}\n");
    int32_t body, s;
    CHECK(m != NULL);
    if (!m) return;
    body = m->kernels[0].body;
    s = nth(m, body, 4);
    CHECK(pto_stmt_arg(m, s, 0)->kind == PTO_O_TILE && pto_stmt_arg(m, s, 0)->ref == 0);
    CHECK(pto_stmt_arg(m, s, 1)->kind == PTO_O_TILE && pto_stmt_arg(m, s, 1)->ref == 1);
    CHECK(pto_stmt_arg(m, s, 2)->kind == PTO_O_TILE && pto_stmt_arg(m, s, 2)->ref == 2);
    s = nth(m, body, 5);
    CHECK(pto_stmt_arg(m, s, 0)->kind == PTO_O_PIPE && pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_V);
    CHECK(pto_stmt_arg(m, s, 1)->kind == PTO_O_PIPE && pto_stmt_arg(m, s, 1)->ref == PTO_PIPE_MTE2);
    s = nth(m, body, 6);
    CHECK(pto_stmt_arg(m, s, 1)->kind == PTO_O_CMP && pto_stmt_arg(m, s, 1)->ref == PTO_GE);
    s = nth(m, body, 7);
    CHECK(pto_stmt_arg(m, s, 2)->kind == PTO_O_NMODE);
    s = nth(m, body, 8);   /* past the table's arity the form decides: a tile */
    CHECK(m->stmts[s].nargs == 3 && pto_stmt_arg(m, s, 2)->kind == PTO_O_TILE && pto_stmt_arg(m, s, 2)->ref == 0);
    pto_module_destroy(m);
    /* a tile where only an integer goes is an integer expression's error */
    CHECK_STR(first_error("kernel k() vector {\n  tile V: vec f32[16, 16]\n  set_flag V, MTE2, V\n}\n"),
              "t.pto:3:21: error: 'V' is a tile, not an integer");
}

/* Columns after indentation (the lexer skips a line's leading spaces four
   at a time): 1 to 9 spaces, spaces and tabs mixed, a last line of spaces
   only, each bad word reported at its exact column. */
static void test_indent_columns(void)
{
    static const char *const lines[] = {" a1", "    a2", "     a3", "        a4", "         a5", "    \t  a6",
                                        "\t    a7", "  \f    a8", "            a9"};
    static const int cols[] = {2, 5, 6, 9, 10, 8, 6, 8, 13};
    char src[512], want[64];
    size_t i, len = 0, n = sizeof lines / sizeof lines[0];
    len += (size_t)sprintf(src + len, "kernel k() vector {\n");
    for (i = 0; i < n; i++) len += (size_t)sprintf(src + len, "%s\n", lines[i]);
    len += (size_t)sprintf(src + len, "        ");   /* no '}': the file ends in spaces */
    pto_diag_clear(ctx);
    CHECK(pto_parse(ctx, "t.pto", src, len) == NULL);
    CHECK(pto_diag_count(ctx) == (int)n + 1);
    for (i = 0; i < n && (int)i < pto_diag_count(ctx); i++) {
        const pto_diag *d = pto_diag_get(ctx, (int)i);
        sprintf(want, "unknown op 'a%d'", (int)i + 1);
        CHECK_MSG(d->loc.line == (int32_t)i + 2 && d->loc.col == cols[i] && strcmp(d->msg, want) == 0,
                  "line %d: got %d:%d %s", (int)i + 2, (int)d->loc.line, (int)d->loc.col, d->msg);
    }
    if (pto_diag_count(ctx) > (int)n) CHECK(strstr(pto_diag_get(ctx, (int)n)->msg, "missing '}'") != NULL);
}

static void test_scopes(void)
{
    /* a name may be reused once its scope closed, and in another kernel */
    pto_module *m = parse(
        "kernel a(in x: f32[N, 16]) vector {\n"
        "  for i = 0 to 2 {\n"
        "    tile t: vec f32[16, 16]\n"
        "  }\n"
        "  for i = 0 to 2 {\n"
        "    tile t: vec f32[16, 16]\n"
        "  }\n"
        "}\n"
        "kernel b(in x: f32[N, 16]) vector {\n"
        "  let i = 0\n"
        "}\n");
    CHECK(m != NULL);
    if (m) CHECK(m->n_tiles == 2 && m->params[1].dim_var[0] != m->params[0].dim_var[0]);
    pto_module_destroy(m);
    CHECK_STR(first_error("kernel k() vector {\n  for i = 0 to 2 {\n    let i = 1\n  }\n}\n"),
              "t.pto:3:9: error: loop variable 'i' is already declared at 2:7");
    CHECK_STR(first_error("kernel k() vector {\n  let i = 0\n  for j = 0 to 2 {\n    tile i: vec f32[1, 1]\n  }\n}\n"),
              "t.pto:4:10: error: 'i' shadows the let declared at 2:7 (shadowing is not allowed)");
    CHECK_STR(first_error("kernel k() vector {\n  let a = a\n}\n"), "t.pto:2:11: error: unknown name 'a'");
    CHECK_STR(first_error("kernel k(in N: f32[N, 1]) vector {\n}\n"),
              "t.pto:1:20: error: tensor 'N' is already declared at 1:13");
    CHECK_STR(first_error("kernel k() vector {\n  tile t: vec f32[1, 1]\n  texpands t, q\n}\n"),
              "t.pto:3:15: error: unknown name 'q'");
    CHECK_STR(first_error("kernel k() vector {\n  tile t: vec f32[1, 1] x2 x3\n}\n"),
              "t.pto:2:28: error: 'xN' is given twice: a tile takes each suffix at most once");
    /* seed 004 (local_slot_num): a repeated count is named, not "expected ... got" */
    CHECK_STR(first_error("kernel k() vector {\n  tile t: vec f32[1, 8] valid(1, 8) at 0 valid(1, 4)\n}\n"),
              "t.pto:2:42: error: 'valid(...)' is given twice: a tile takes each suffix at most once");
    CHECK_STR(first_error("kernel k() mix {\n  pipe q: c2v f32[16, 16] slots(4) local_slots(2) slots(2)\n}\n"),
              "t.pto:2:51: error: 'slots(N)' is given twice: a pipe takes each of slots, local_slots and split at most once");
    CHECK_STR(first_error("kernel k() mix {\n  pipe q: c2v f32[16, 16] local_slots(1) local_slots(2)\n}\n"),
              "t.pto:2:42: error: 'local_slots(N)' is given twice: a pipe takes each of slots, local_slots and split at most once");
    CHECK_STR(first_error("kernel k() vector {\n  tile t: vec f32[1, 8] xx\n}\n"),
              "t.pto:2:25: error: expected 'valid(...)', 'xN', 'at ADDRESS' or end of line after the tile, got 'xx'");
    CHECK_STR(first_error("kernel k() vector {\n  tile t: vec f32[4294967296, 1]\n}\n"),
              "t.pto:2:19: error: tile dimension '4294967296' is too large (at most 2147483647)");
    CHECK_STR(first_error("kernel k() mix {\n  cube {\n    vector {\n    }\n  }\n}\n"),
              "t.pto:3:5: error: a 'vector' section is only allowed at the top level of a mix kernel");
    CHECK_STR(first_error("kernel k() vector blocks(2) blocks(3) {\n}\n"),
              "t.pto:1:29: error: 'blocks' is given twice");
    CHECK_STR(first_error("kernel k() vector {\n  let a = 1\n} x\n"),
              "t.pto:3:3: error: expected end of line after '}', got 'x'");
}

/* One run reports every independent error, in order, and returns NULL. */
static void test_many_errors(void)
{
    pto_module *m = parse(
        "kernel k(in x: f32[16, 16]) vector {\n"
        "  tile a: vec f32[16, 16]\n"
        "  tadx a, a\n"
        "  tload a, q[0, 0]\n"
        "  if 1 < {\n"
        "    let b = zz\n"
        "  }\n"
        "  tadd a, a, i\n"
        "}\n");
    CHECK(m == NULL);
    CHECK(pto_diag_count(ctx) == 5);
    if (pto_diag_count(ctx) == 5) {
        CHECK(pto_diag_get(ctx, 0)->loc.line == 3);
        CHECK(pto_diag_get(ctx, 1)->loc.line == 4 && pto_diag_get(ctx, 1)->loc.col == 12);
        CHECK(pto_diag_get(ctx, 2)->loc.line == 5 && pto_diag_get(ctx, 2)->loc.col == 10);
        CHECK_STR(pto_diag_get(ctx, 3)->msg, "unknown name 'zz'");
        CHECK_STR(pto_diag_get(ctx, 4)->msg, "unknown name 'i'");
    }
}

/* A '}' with nothing open says so (it read as "expected 'kernel', got '}'"),
   naming the kernel or host above; a statement after a kernel closed early
   asks whether a '}' above closed it; either is the only error. */
static void test_unmatched_brace(void)
{
    static const char *const body =
        "kernel k(in x: f32[16, 64], out y: f32[16, 64]) vector {\n"
        "  tile a: vec f32[16, 64]\n"
        "  tload a, x[0, 0]\n";
    char src[600];
    snprintf(src, sizeof src, "%s  tstore y[0, 0], a\n}\n}\n", body);
    CHECK_STR(first_error(src),
              "t.pto:6:1: error: unmatched '}': no block is open here (kernel 'k' above is already closed by an earlier '}')");
    CHECK(pto_diag_count(ctx) == 1);
    CHECK_STR(first_error("\n  }\n"), "t.pto:2:3: error: unmatched '}': no block is open here");
    CHECK_STR(first_error("kernel k() vector {\n}\nhost h() {\n}\n}\n"),
              "t.pto:5:1: error: unmatched '}': no block is open here (host 'h' above is already closed by an earlier '}')");
    snprintf(src, sizeof src, "%s}\n  tstore y[0, 0], a\n}\n", body);
    CHECK_STR(first_error(src), "t.pto:5:3: error: expected 'kernel', 'host' or 'arch', got 'tstore': a statement "
                                "outside any kernel (did a '}' above close kernel 'k' early?)");
    CHECK(pto_diag_count(ctx) == 1);
    /* a word that is no statement keeps the near-miss hint */
    CHECK_STR(first_error("kernl k() vector {\n}\n"), "t.pto:1:1: error: expected 'kernel', 'host' or 'arch', got 'kernl' (did you mean 'kernel'?)");
}

/* A declaration with a bad attribute still declares its name (a tile's and a
   pipe's alike), so its uses report nothing more: one error, not one per use. */
static void test_declared_despite_bad_attribute(void)
{
    static const char *const decl[] = {"  tile t: vec f32[32, 64] y2\n", "  pipe q: c2v f32[64, 64] x2 split(up_down)\n",
                                       "  pipe q: c2v f32[64, 64] slots(2 split(up_down)\n"};
    static const char *const body[] = {
        "  pipe q: c2v f32[64, 64] split(up_down)\n", "  tile t: vec f32[32, 64]\n", "  tile t: vec f32[32, 64]\n"};
    char text[1024];
    int i;
    for (i = 0; i < 3; i++) {
        pto_module *m;
        snprintf(text, sizeof text,
                 "kernel k(in a: f32[64, 64], out c: f32[64, 64]) mix {\n%s"
                 "  cube {\n    tile acc: acc f32[64, 64]\n    tpush q, acc\n  }\n"
                 "  vector {\n%s    tpop t, q\n    tstore c[subblock * 32, 0], t\n    tfree q\n  }\n}\n",
                 i == 0 ? body[0] : decl[i], i == 0 ? decl[0] : body[i]);
        m = parse(text);
        CHECK(m == NULL);
        CHECK_MSG(pto_diag_count(ctx) == 1, "case %d: %d diagnostics, expected 1", i, pto_diag_count(ctx));
    }
}

/* An unknown dtype or memory space is one error: the tile or parameter is
   declared anyway (as f32 / vec), so its uses do not draw "unknown name". */
static void test_declared_despite_bad_type(void)
{
    static const char *const text[] = {
        "kernel k(in x: f32[16, 64], out y: f32[16, 64]) vector {\n  tile a: vec f23[16, 64]\n"
        "  tload a, x[0, 0]\n  tstore y[0, 0], a\n}\n",
        "kernel k(in x: f32[16, 64], out y: f32[16, 64]) vector {\n  tile a: ub f32[16, 64]\n"
        "  tload a, x[0, 0]\n  tstore y[0, 0], a\n}\n",
        "kernel k(in x: float[16, 64], out y: f32[16, 64], scalar s: flt) vector {\n  tile a: vec f32[16, 64]\n"
        "  tload a, x[0, 0]\n  tmuls a, a, s\n  tstore y[0, 0], a\n}\n"};
    static const char *const first[] = {"unknown dtype 'f23' (did you mean 'f32'?)",
                                        "unknown memory space 'ub' (pto calls it 'vec')", "unknown dtype 'float'"};
    int i;
    for (i = 0; i < 3; i++) {
        pto_module *m = parse(text[i]);
        CHECK(m == NULL);
        CHECK_MSG(pto_diag_count(ctx) == (i == 2 ? 2 : 1), "case %d: %d diagnostics", i, pto_diag_count(ctx));
        if (pto_diag_count(ctx) > 0) CHECK_MSG(strncmp(pto_diag_get(ctx, 0)->msg, first[i], strlen(first[i])) == 0,
                                               "case %d: %s", i, pto_diag_get(ctx, 0)->msg);
    }
}

/* A broken parameter does not lose the ones after it: an expression in a
   shape, a ',' missing between two params, a shape over two lines; each is
   one error, and the later params' uses report nothing more. */
static void test_params_after_a_broken_one(void)
{
    static const char *const head[] = {
        "kernel k(in a: bf16[B * 64, 96], in w: f32[16, 16], out c: f32[16, 16]) vector {\n",
        "kernel k(in a: f32[16, 16] in w: f32[16, 16], out c: f32[16, 16]) vector {\n",
        "kernel k(in a: f32[16,\n   16], in w: f32[16, 16], out c: f32[16, 16]) vector {\n"};
    static const char *const msg[] = {
        "a tensor dimension is an integer or a name, not an expression (give the extent a name of its own, "
        "e.g. 'BM', and compute with it in the body)",
        "expected ',' or ')' after a parameter, got 'in'", NULL};
    char text[1024];
    int i;
    for (i = 0; i < 3; i++) {
        pto_module *m;
        snprintf(text, sizeof text, "%s  tile t: vec f32[16, 16]\n  tload t, w[0, 0]\n  tstore c[0, 0], t\n}\n",
                 head[i]);
        m = parse(text);
        if (!msg[i]) {
            CHECK_MSG(m != NULL && pto_diag_count(ctx) == 0, "case %d: a shape over two lines", i);
            if (m) pto_module_destroy(m);
            continue;
        }
        CHECK(m == NULL);
        CHECK_MSG(pto_diag_count(ctx) == 1, "case %d: %d diagnostics, expected 1", i, pto_diag_count(ctx));
        if (pto_diag_count(ctx) > 0) CHECK_STR(pto_diag_get(ctx, 0)->msg, msg[i]);
    }
}

/* Hostile input: rejected with a diagnostic, never a crash. */
static void test_hostile(void)
{
    static const char nul[] = "kernel k() vector {\n  let a = 1\0\n}\n";
    size_t n = 200000, i, j;
    char *big = (char *)malloc(n + 64);
    pto_module *m;
    pto_diag_clear(ctx);
    m = pto_parse(ctx, "t.pto", nul, sizeof nul - 1);
    CHECK(m == NULL && pto_diag_count(ctx) > 0);
    if (pto_diag_count(ctx) > 0) CHECK_STR(pto_diag_get(ctx, 0)->msg, "unexpected character '\\x00'");
    m = parse("");
    CHECK(m != NULL && m->n_kernels == 0);
    pto_module_destroy(m);
    pto_module_destroy(parse("# only a comment"));
    CHECK(strstr(first_error("kernel k() vector {\n  let a = 1e99999999999999999999\n}\n"), "float") != NULL);
    /* 100k open parentheses: capped, no stack overflow */
    strcpy(big, "kernel k() vector {\n  let a = ");
    for (i = strlen(big); i < n; i++) big[i] = '(';
    big[n] = 0;
    CHECK(strstr(first_error(big), "too deeply nested") != NULL);
    /* a 100k-term sum: the tree height is capped too; the user wrote no
       nesting, so it is said as a long chain (review18 L2) */
    strcpy(big, "kernel k() vector {\n  let a = 1");
    for (i = strlen(big); i + 2 < n; i += 2) memcpy(big + i, "+1", 2);
    big[i] = 0;
    CHECK(strstr(first_error(big), "expression is too long (a chain of 256 operators makes it more than 256 levels deep") != NULL);
    /* ... as is a product chain; 1+(1+(1+ ... nests (and a chain of 2-high terms is still a chain) */
    strcpy(big, "kernel k() vector {\n  let a = 1");
    for (i = strlen(big); i + 2 < 5000; i += 2) memcpy(big + i, "*1", 2);
    big[i] = 0;
    CHECK(strstr(first_error(big), "too long (a chain of 256 operators") != NULL);
    strcpy(big, "kernel k() vector {\n  let a = 1");
    for (i = strlen(big); i + 4 < 5000; i += 4) memcpy(big + i, "+1*1", 4);
    big[i] = 0;
    CHECK(strstr(first_error(big), "too long (a chain of 255 operators") != NULL);
    strcpy(big, "kernel k() vector {\n  let a = 1");
    for (i = strlen(big), j = 0; j < 300; i += 3, j++) memcpy(big + i, "+(1", 3);
    for (j = 0; j < 300; j++) big[i++] = ')';
    big[i] = 0;
    CHECK(strstr(first_error(big), "too deeply nested (more than 256 levels)") != NULL);
    /* deep blocks */
    strcpy(big, "kernel k() vector {\n");
    for (i = strlen(big); i + 12 < n; i += 12) memcpy(big + i, "if 1 == 1 {\n", 12);
    big[i] = 0;
    CHECK(strstr(first_error(big), "nested too deeply") != NULL);
    /* binary junk */
    for (i = 0; i < n; i++) big[i] = (char)((i * 7919u) >> 3);
    m = pto_parse(ctx, "junk", big, n);
    CHECK(m == NULL);
    free(big);
}

/* An else-if chain is flat to the user (review21 L6: 65 arms were "nested
   too deeply", one error per arm): it counts as one nesting level, up to
   512 arms; arm 513 is one error, the rest of the chain skipped; blocks
   and arms nest at most 1024 levels in all (the IR nests each arm's if in
   the else block before it). pto_print writes the chain back as written. */
static void elif_chain(pto_buf *b, int indent, int arms)
{
    int i;
    for (i = 0; i < arms; i++) {
        pto_buf_printf(b, i ? "%*s} else if block == %d {\n" : "%*sif block == %d {\n", indent, "", i);
        pto_buf_printf(b, "%*s  tadds t, t, %d.5\n", indent, "", i);
    }
    pto_buf_printf(b, "%*s} else {\n%*s  tadds t, t, 1.0\n%*s}\n", indent, "", indent, "", indent, "");
}

static const char elif_head[] = "kernel k(in x: f32[16, 64], out y: f32[16, 64]) vector {\n"
                                "  tile t: vec f32[16, 64]\n"
                                "  tload t, x[0, 0]\n";
static const char elif_tail[] = "  tstore y[0, 0], t\n}\n";

static void test_elif_chain(void)
{
    pto_buf b, p;
    pto_module *m;
    int i;
    memset(&b, 0, sizeof b);
    memset(&p, 0, sizeof p);
    b.ctx = p.ctx = ctx;
    /* 512 arms: no diagnostic, verifies, prints back as written */
    pto_buf_puts(&b, elif_head);
    elif_chain(&b, 2, 512);
    pto_buf_puts(&b, elif_tail);
    m = parse(b.data);
    CHECK(m != NULL && pto_diag_count(ctx) == 0);
    if (m) {
        CHECK(pto_verify(ctx, m) == PTO_OK);
        pto_print(m, &p);
        CHECK(p.data && strcmp(p.data, b.data) == 0);
        pto_module_destroy(m);
    }
    /* a chain counts as one level: 60 blocks deep (with the kernel's), a
       chain of 100 arms whose arms hold 3 more levels */
    pto_buf_free(&b);
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_buf_puts(&b, elif_head);
    for (i = 0; i < 60; i++) pto_buf_printf(&b, "%*sif 1 == 1 {\n", 2 + 2 * i, "");
    for (i = 0; i < 100; i++) {
        pto_buf_printf(&b, i ? "%*s} else if block == %d {\n" : "%*sif block == %d {\n", 122, "", i);
        pto_buf_printf(&b, "%*sif 2 == 2 {\n%*sif 3 == 3 {\n%*stadds t, t, 1.0\n%*s}\n%*s}\n", 124, "", 126, "", 128, "",
                       126, "", 124, "");
    }
    pto_buf_printf(&b, "%*s}\n", 122, "");
    for (i = 59; i >= 0; i--) pto_buf_printf(&b, "%*s}\n", 2 + 2 * i, "");
    pto_buf_puts(&b, elif_tail);
    m = parse(b.data);
    CHECK(m != NULL && pto_diag_count(ctx) == 0);
    pto_module_destroy(m);
    /* 513 arms: one error at the 513th 'if', none for the arms after it;
       what follows the chain is parsed */
    pto_buf_free(&b);
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_buf_puts(&b, elif_head);
    elif_chain(&b, 2, 600);
    pto_buf_puts(&b, "  tadds t, t, nope\n");
    pto_buf_puts(&b, elif_tail);
    m = parse(b.data);
    CHECK(m == NULL && pto_diag_count(ctx) == 2);
    if (pto_diag_count(ctx) > 0) {
        char msg[700];
        pto_diag_format(ctx, pto_diag_get(ctx, 0), msg, sizeof msg);
        CHECK_STR(msg, "t.pto:1028:10: error: an else-if chain of more than 512 arms nests too deeply (each 'else if' "
                       "is an if in the else block of the arm before it): split it, e.g. by ranges of the value tested");
    }
    if (pto_diag_count(ctx) > 1) CHECK(strstr(pto_diag_get(ctx, 1)->msg, "nope") != NULL);
    /* blocks and arms: at most 1024 levels; one error */
    pto_buf_free(&b);
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_buf_puts(&b, elif_head);
    elif_chain(&b, 2, 511);
    b.len -= strlen("  } else {\n    tadds t, t, 1.0\n  }\n");
    pto_buf_puts(&b, "  } else if block == 511 {\n    if 1 == 1 {\n");
    elif_chain(&b, 6, 512);
    pto_buf_puts(&b, "    }\n  }\n");
    pto_buf_puts(&b, elif_tail);
    m = parse(b.data);
    CHECK(m == NULL && pto_diag_count(ctx) == 1);
    if (pto_diag_count(ctx) > 0) {
        char msg[700];
        pto_diag_format(ctx, pto_diag_get(ctx, 0), msg, sizeof msg);
        CHECK_STR(msg, "t.pto:2048:14: error: this else-if arm nests too deeply: blocks and else-if arms nest at most "
                       "1024 levels in all (each 'else if' is an if in the else block of the arm before it)");
    }
    pto_buf_free(&b);
    pto_buf_free(&p);
}

/* The lexer's name cache (names of up to 16 bytes, keyed by their bytes):
   names that agree in their first 8 or 16 bytes, or differ only in length,
   are still different names; 3,000 of them (more than the cache holds)
   resolve each to its own tile; ids are the intern table's; a name that
   ends the text (no 16 bytes left to read after its start) is still read,
   from a buffer of exactly the text's length. */
static void test_name_cache(void)
{
    static const char *const pre[] = {"", "a", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmno",
                                      "abcdefghijklmnop", "abcdefghijklmnopq", "tadd", "x"};
    size_t np = sizeof pre / sizeof pre[0], n = 3000, i, len = 0, cap = n * 120 + 256;
    char *src = (char *)malloc(cap), name[64], *end;
    pto_module *m;
    int bad = 0;
    len += (size_t)sprintf(src + len, "kernel k() vector {\n");
    for (i = 0; i < n; i++) {
        sprintf(name, "%s_%lu", pre[i % np], (unsigned long)(i / np));
        len += (size_t)sprintf(src + len, "  tile %s: vec f32[16, 16]\n  tadd %s, %s, %s\n", name, name, name, name);
    }
    len += (size_t)sprintf(src + len, "}\n");
    m = parse(src);
    CHECK(m != NULL && pto_diag_count(ctx) == 0);
    if (m) {
        CHECK(m->n_tiles == (int32_t)n);
        for (i = 0; i < n && (int32_t)i < m->n_tiles; i++) {
            const pto_stmt *op = &m->stmts[2 * i + 1];
            sprintf(name, "%s_%lu", pre[i % np], (unsigned long)(i / np));
            if (strcmp(S(m, m->tiles[i].name), name) != 0 || m->tiles[i].name != pto_intern(ctx, name, strlen(name)))
                bad++;
            if (op->kind != PTO_ST_OP || op->nargs != 3 || m->operands[op->arg0].ref != (int32_t)i ||
                m->operands[op->arg0 + 2].ref != (int32_t)i)
                bad++;
        }
        CHECK_MSG(bad == 0, "%d names resolved wrongly", bad);
        /* first seen, first interned: later tiles' names have larger ids */
        CHECK(m->tiles[0].name < m->tiles[1].name && m->tiles[n - 2].name < m->tiles[n - 1].name);
    }
    pto_module_destroy(m);
    /* names that end the text: the last bytes of an exact-size buffer */
    strcpy(src, "kernel k() vector {\n  tile abcdefghij: vec f32[16, 16]\n  tabs abcdefghij, abcdefghij");
    len = strlen(src);
    end = (char *)malloc(len);
    memcpy(end, src, len);
    pto_diag_clear(ctx);
    m = pto_parse(ctx, "t.pto", end, len);
    CHECK(m == NULL && pto_diag_count(ctx) == 1);
    if (pto_diag_count(ctx) > 0) CHECK(strstr(pto_diag_get(ctx, 0)->msg, "missing '}'") != NULL);
    strcpy(src, "kernel k() vector {\n  tile abcdefghij: vec f32[16, 16]\n  tabs abcdefghij, abcdefghik");
    memcpy(end, src, len);
    pto_diag_clear(ctx);
    m = pto_parse(ctx, "t.pto", end, len);
    CHECK(m == NULL && pto_diag_count(ctx) == 2);
    if (pto_diag_count(ctx) > 0) CHECK_STR(pto_diag_get(ctx, 0)->msg, "unknown name 'abcdefghik' (did you mean 'abcdefghij'?)");
    free(end);
    free(src);
}

/* pto_parse and pto_emit get the text as (pointer, length), with no NUL
   and no padding after it, while the lexer's name cache and the emitter's
   source scan read words of 8 and 16 bytes. Every prefix of a text with
   names of 1 to 17 bytes, CRLF, tabs, runs of spaces, a comment with
   non-ASCII bytes and '*' '/', is parsed from a buffer that ends where an
   unreadable page begins (and one that starts right after such a page),
   and compiled and emitted with that buffer as the embedded source: a read
   outside the text faults here, in the plain build too (a malloc'd buffer
   of the exact length only shows it under AddressSanitizer). */
static void test_text_at_page_edge(void)
{
#if T_GUARD
    static const char text[] =
        "kernel k(in a: f32[16, 16], out b: f32[16, 16]) vector {\r\n"
        "    tile abcdefghijklmnop: vec f32[16, 16]\n"
        "\ttile x: vec f32[16, 16]\n"
        "        tile abcdefghijklmnopq: vec f32[16, 16]  # caf\xc3\xa9 */ \xff\n"
        "     tload abcdefghijklmnop, a[0, 0]\r\n"
        "    tload x, a[0, 0]\n"
        "    tadd abcdefghijklmnopq, abcdefghijklmnop, x\n"
        "    tstore b[0, 0], abcdefghijklmnopq\n"
        "}\n"
        "    \n"
        "kernel k2(in a: f32[16, 16], out b: f32[16, 16]) vector {\n"
        "    tile abcdefghijklmno: vec f32[16, 16]\n"
        "    tload abcdefghijklmno, a[0, 0]\n"
        "    tstore b[0, 0], abcdefghijklmno\n"
        "}";
    size_t len = sizeof text - 1, pg = (size_t)sysconf(_SC_PAGESIZE), k;
    size_t maplen = 3 * pg;
    int fd = open("/dev/zero", O_RDWR), where, parsed = 0, emitted = 0, bad = 0;
    char *map = fd < 0 ? NULL : (char *)mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (fd >= 0) close(fd);
    CHECK(map != NULL && map != (char *)MAP_FAILED && len < pg);
    if (!map || map == (char *)MAP_FAILED || len >= pg) return;
    for (where = 0; where < 2; where++)
        for (k = 0; k <= len; k++) {
            /* where 0: the text ends at the guard page (map + 2 pg);
               where 1: it starts right after the guard page (map + pg) */
            char *buf = where ? map + pg : map + 2 * pg - k;
            pto_ctx *c = pto_ctx_create(NULL);
            pto_module *m;
            if (!c) { bad++; continue; }
            mprotect(map, maplen, PROT_READ | PROT_WRITE);
            memcpy(buf, text, k);
            mprotect(map + (where ? 0 : 2 * pg), pg, PROT_NONE);
            mprotect(map + pg, pg, PROT_READ);
            m = pto_parse(c, "t.pto", buf, k);
            if (m && pto_compile(c, m, NULL) == PTO_OK) {
                pto_emit_desc ed;
                pto_buf ks, hs;
                memset(&ed, 0, sizeof ed);
                memset(&ks, 0, sizeof ks);
                memset(&hs, 0, sizeof hs);
                ed.filename = "t.pto";
                ed.source = buf;
                ed.source_len = k;
                ks.ctx = hs.ctx = c;
                if (pto_emit(c, m, &ed, &ks, &hs) == PTO_OK) emitted++;
                else bad++;
                pto_buf_free(&ks);
                pto_buf_free(&hs);
            }
            parsed += m != NULL;
            pto_module_destroy(m);
            pto_ctx_destroy(c);
        }
    munmap(map, maplen);
    /* the whole text and the prefixes that end a kernel (and the empty one) compile */
    CHECK_MSG(bad == 0 && parsed >= 8 && emitted >= 8, "%d parsed, %d emitted, %d failed", parsed, emitted, bad);
#endif
}

/* Linear time: 200k statements in well under a second. */
static void test_speed(void)
{
    size_t n = 200000, i, len = 0, cap = n * 40 + 256;
    char *src = (char *)malloc(cap);
    pto_module *m;
    clock_t t0;
    double secs;
    len += (size_t)sprintf(src + len, "kernel big(in x: f32[64, 64], out y: f32[64, 64]) vector {\n");
    len += (size_t)sprintf(src + len, "  tile a: vec f32[16, 64]\n  tile b: vec f32[16, 64]\n");
    for (i = 0; i < n; i++)
        len += (size_t)sprintf(src + len, "  let r%lu = %lu * 16\n  tadd a, a, b\n", (unsigned long)i, (unsigned long)i % 4);
    len += (size_t)sprintf(src + len, "}\n");
    pto_diag_clear(ctx);
    t0 = clock();
    m = pto_parse(ctx, "big", src, len);
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(m != NULL);
    if (m) CHECK(m->n_stmts == (int32_t)(2 * n + 2));
    CHECK_MSG(secs < 2.0, "400k statements took %.2f s", secs);
    printf("parse: %.0f statements/s\n", (double)(2 * n) / (secs > 0 ? secs : 1e-9));
    pto_module_destroy(m);
    free(src);
}

int main(void)
{
    ctx = pto_ctx_create(NULL);
    test_vadd();
    test_dims_and_scalars();
    test_cube_if_sync_mix();
    test_free_operands();
    test_literal_first_scalar();
    test_bom_and_dim_expr();
    test_tiles_named_like_words();
    test_indent_columns();
    test_scopes();
    test_many_errors();
    test_unmatched_brace();
    test_declared_despite_bad_attribute();
    test_declared_despite_bad_type();
    test_params_after_a_broken_one();
    test_hostile();
    test_elif_chain();
    test_name_cache();
    test_text_at_page_edge();
    test_speed();
    pto_ctx_destroy(ctx);
    return TEST_END();
}
