/* test_roundtrip.c - print(parse(print(x))) == print(x).

   1. Every .pto under examples/ and tests/ (except tests/bad/) that parses
      (every example must) prints, re-parses and prints the same text.
   2. Every input kept in tests/fuzz/regress/ (inputs that once crashed or
      broke the round trip) runs through the fuzz target's steps again.
   3. Hand-written pieces pin the exact canonical text of tricky expressions
      and floats, computed by hand.
   4. pto_print_commented (ptoc fmt) on every file of 1. and 2.: it keeps
      every full-line comment, changes nothing else (the text parses to what
      pto_print prints) and is idempotent; a hand-written file pins where
      the comments go. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

#include <math.h>

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Parses text and prints it; NULL when it does not parse. Caller frees. */
static char *fmt(pto_ctx *ctx, const char *name, const char *text, size_t len)
{
    pto_module *m = pto_parse(ctx, name, text, len);
    pto_buf b;
    char *out;
    if (!m) return NULL;
    (void)pto_verify(ctx, m); /* as the fuzz target does: it must not crash, whatever it says */
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_print(m, &b);
    out = (char *)malloc(b.len + 1);
    memcpy(out, b.data ? b.data : "", b.len);
    out[b.len] = 0;
    pto_buf_free(&b);
    pto_module_destroy(m);
    return out;
}

static int n_files;

/* pto_print_commented of text (NULL when it does not parse); *n its length
   (a comment may hold any byte, NUL too). Caller frees. */
static char *fmt_commented(pto_ctx *ctx, const char *text, size_t len, size_t *n)
{
    pto_module *m = pto_parse(ctx, "c.pto", text, len);
    pto_buf b;
    char *out;
    if (!m) return NULL;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_print_commented(m, text, len, &b);
    out = (char *)malloc(b.len + 1);
    memcpy(out, b.data ? b.data : "", b.len);
    out[b.len] = 0;
    *n = b.len;
    pto_buf_free(&b);
    pto_module_destroy(m);
    return out;
}

/* Lines with a comment (at most one each: a '#' starts a comment anywhere). */
static int count_comment_lines(const char *s, size_t n)
{
    size_t i = 0;
    int count = 0, seen = 0;
    for (i = 0; i < n; i++) {
        if (s[i] == '#' && !seen) count++, seen = 1;
        if (s[i] == '\n') seen = 0;
    }
    return count;
}

/* 4.: text parses and pto_print gives `plain`. */
static void check_commented(const char *path, const char *text, size_t len, const char *plain)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    size_t n1 = 0, n2 = 0;
    char *c1 = fmt_commented(ctx, text, len, &n1), *c2 = NULL, *p;
    CHECK_MSG(c1 != NULL, "%s: pto_print_commented failed", path);
    if (c1) {
        CHECK_MSG(count_comment_lines(c1, n1) == count_comment_lines(text, len), "%s: %d comment lines, not %d", path,
                  count_comment_lines(c1, n1), count_comment_lines(text, len));
        p = fmt(ctx, "c1", c1, n1);
        CHECK_MSG(p && strcmp(p, plain) == 0, "%s: the commented text is another module:\n%s", path, c1);
        free(p);
        c2 = fmt_commented(ctx, c1, n1, &n2);
        CHECK_MSG(c2 && n2 == n1 && memcmp(c1, c2, n1) == 0, "%s: fmt is not idempotent:\n%s---\n%s", path, c1,
                  c2 ? c2 : "(no parse)");
    }
    free(c1);
    free(c2);
    pto_ctx_destroy(ctx);
}

/* must_parse: examples must parse; other files are round-tripped only when
   they parse (tests/ may hold files that are meant to fail later stages). */
static void roundtrip_file(const char *path, int must_parse)
{
    size_t len = 0;
    char *text = t_slurp(path, &len), *p1, *p2;
    pto_ctx *ctx = pto_ctx_create(NULL);
    CHECK_MSG(text != NULL, "cannot read %s", path);
    p1 = text ? fmt(ctx, path, text, len) : NULL;
    if (must_parse) CHECK_MSG(p1 != NULL, "%s does not parse", path);
    if (p1) {
        n_files++;
        p2 = fmt(ctx, "printed", p1, strlen(p1));
        CHECK_MSG(p2 != NULL, "%s: printed text does not parse:\n%s", path, p1);
        if (p2) CHECK_MSG(strcmp(p1, p2) == 0, "%s: round trip differs:\n%s---\n%s", path, p1, p2);
        free(p2);
        check_commented(path, text, len, p1);
    }
    if (!p1 && !must_parse && pto_diag_count(ctx) == 0) CHECK_MSG(0, "%s failed without a diagnostic", path);
    free(p1);
    free(text);
    pto_ctx_destroy(ctx);
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* Every file under dir (recursively); .pto only unless all. */
static void walk(const char *dir, int must_parse, int all)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        char path[1024];
        struct stat st;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (strcmp(path, "tests/bad") == 0) continue;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) walk(path, must_parse, all);
        else if (all || ends_with(path, ".pto")) roundtrip_file(path, must_parse);
    }
    closedir(d);
}

/* The printed form of `let v = EXPR` in a kernel with dims a, b, c. */
static void check_expr(const char *expr, const char *want)
{
    char src[512], line[512];
    pto_ctx *ctx = pto_ctx_create(NULL);
    char *out, *at, *nl;
    snprintf(src, sizeof src, "kernel k(in x: f32[a, b], in y: f32[c, 1]) vector {\n  let v = %s\n}\n", expr);
    out = fmt(ctx, "expr", src, strlen(src));
    CHECK_MSG(out != NULL, "'%s' does not parse", expr);
    if (!out) { pto_ctx_destroy(ctx); return; }
    at = strstr(out, "let v = ");
    nl = at ? strchr(at, '\n') : NULL;
    if (at && nl) {
        memcpy(line, at + 8, (size_t)(nl - at - 8));
        line[nl - at - 8] = 0;
        CHECK_STR(line, want);
    } else CHECK_MSG(0, "no let in\n%s", out);
    free(out);
    pto_ctx_destroy(ctx);
}

/* The scalar operand of the first `tmuls t, t, X` line of printed text
   into line; 0 when there is none. */
static int tmuls_scalar(const char *out, char *line, size_t size)
{
    const char *at = strstr(out, "tmuls t, t, "), *nl = at ? strchr(at, '\n') : NULL;
    size_t n;
    if (!at || !nl) return 0;
    n = (size_t)(nl - at - 12);
    if (n >= size) n = size - 1;
    memcpy(line, at + 12, n);
    line[n] = 0;
    return 1;
}

/* The printed form of the scalar operand of `tmuls t, t, LIT`, and that it
   reads back to the same bits. */
static void check_float(const char *lit, const char *want)
{
    char src[512], line[512];
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m;
    char *out;
    snprintf(src, sizeof src, "kernel k() vector {\n  tile t: vec f32[1, 8]\n  tmuls t, t, %s\n}\n", lit);
    out = fmt(ctx, "float", src, strlen(src));
    CHECK_MSG(out != NULL, "'%s' does not parse", lit);
    if (!out) { pto_ctx_destroy(ctx); return; }
    if (want && tmuls_scalar(out, line, sizeof line)) CHECK_STR(line, want);
    m = pto_parse(ctx, "float", src, strlen(src));
    if (m) {
        double v0 = m->operands[2].f, v1;
        pto_module *m2 = pto_parse(ctx, "float2", out, strlen(out));
        CHECK(m2 != NULL);
        if (m2) {
            v1 = m2->operands[2].f;
            CHECK_MSG(memcmp(&v0, &v1, sizeof v0) == 0 || (v0 != v0 && v1 != v1), "%s: %.17g vs %.17g", lit, v0, v1);
        }
        pto_module_destroy(m2);
    }
    pto_module_destroy(m);
    free(out);
    pto_ctx_destroy(ctx);
}

/* Doubles of every decimal exponent the plain form covers (and a few past
   it), round and not: each prints to a literal that reads back to the same
   bits (check_float), plain or with an exponent. */
static void check_plain_floats(void)
{
    static const double mant[] = {1.0, 1.5, 3.0517578125, 0.1, 2.0 / 3.0, 9.999999999999999, 123456.789, 7.0 / 9.0};
    char lit[64];
    int x, k;
    for (x = -9; x <= 19; x++)
        for (k = 0; k < (int)(sizeof mant / sizeof mant[0]); k++) {
            snprintf(lit, sizeof lit, "%.17g", (k & 1 ? -1 : 1) * mant[k] * pow(10.0, x));
            check_float(lit, NULL);
        }
}

/* The printed form of an integer expression in a scalar position (`tmuls t,
   t, EXPR` inside `for i`, with an i32 scalar n): bare unless it would read
   back as a float literal or as the scalar param itself (review15). */
static void check_scalar_int(const char *expr, const char *want)
{
    char src[512], line[512];
    pto_ctx *ctx = pto_ctx_create(NULL);
    char *out, *again;
    snprintf(src, sizeof src, "kernel k(scalar n: i32) vector {\n  tile t: vec f32[1, 8]\n  texpands t, 0.0\n"
             "  for i = 0 to 2 {\n    tmuls t, t, %s\n  }\n}\n", expr);
    out = fmt(ctx, "sint", src, strlen(src));
    CHECK_MSG(out != NULL, "'%s' does not parse", expr);
    if (!out) { pto_ctx_destroy(ctx); return; }
    if (tmuls_scalar(out, line, sizeof line)) CHECK_STR(line, want);
    again = fmt(ctx, "sint2", out, strlen(out));
    CHECK(again != NULL);
    if (again) CHECK_STR(again, out);
    free(again);
    free(out);
    pto_ctx_destroy(ctx);
}

/* A module built through the C API with shapes the parser never makes
   (negative literal under a minus, valid rows only) prints stably. */
static void check_api_module(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    pto_loc loc = {0, 1, 1};
    int32_t k = pto_add_kernel(m, "api", PTO_KK_VECTOR, loc), t, e;
    pto_buf b;
    char *again;
    t = pto_add_tile(m, m->kernels[k].body, "t", PTO_VEC, PTO_F16, 8, 32, loc);
    m->tiles[t].valid_r = pto_expr_int(m, 4, loc);
    m->tiles[t].pin = 256;
    e = pto_expr_bin(m, PTO_E_NEG, pto_expr_int(m, -5, loc), -1, loc);
    e = pto_expr_bin(m, PTO_E_SUB, pto_expr_int(m, 1, loc), e, loc);
    pto_add_let(m, m->kernels[k].body, "v", e, loc);
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_print(m, &b);
    CHECK_STR(b.data, "kernel api() vector {\n  tile t: vec f16[8, 32] valid(4, 32) at 0x100\n  let v = 1 - -(-5)\n}\n");
    again = fmt(ctx, "api", b.data, b.len);
    CHECK(again != NULL);
    if (again) CHECK_STR(again, b.data);
    free(again);
    pto_buf_free(&b);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* pto_dump adds planned offsets and pass notes as comments. */
static void check_dump(void)
{
    const char *src = "kernel k() vector {\n  tile t: vec f32[16, 16] x2\n  texpands t, 0.5\n}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "dump", src, strlen(src));
    pto_buf b;
    CHECK(m != NULL);
    if (!m) { pto_ctx_destroy(ctx); return; }
    m->tiles[0].planned = 1;
    m->tiles[0].offset[0] = 0;
    m->tiles[0].offset[1] = 0x400;
    m->stmts[1].origin = PTO_BY_SYNC;
    m->stmts[1].note = pto_intern(ctx, "why", 3);
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_dump(m, &b);
    CHECK_STR(b.data, "kernel k() vector {\n  tile t: vec f32[16, 16] x2  # offsets 0x0 0x400\n"
                      "  texpands t, 0.5  # by sync: why\n}\n");
    pto_buf_free(&b);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* Where ptoc fmt puts comments: each full-line comment before what follows
   it (statement, pipe, kernel, host, host statement), indented as that;
   those above an `arch` line stay first; the last ones at the end; a
   comment after code stays after its item (after `arch`: on its own line). */
static void check_comment_places(void)
{
    static const char *const in =
        "# run: -D N=32\n"
        "arch a5   # after code: on a line of its own (the arch line holds no item)\n"
        "\n"
        "   # about k\n"
        "kernel k(in x: f32[N, 64], out y: f32[N, 64]) mix blocks(N / 32) {\n"
        "# the pipe\n"
        "  pipe q: c2v f32[32, 64]\n"
        "  cube {\n"
        "    tile m: mat f32[32, 64]\n"
        "    tile l: left f32[32, 64]\n"
        "    tile r: right f32[64, 64]\n"
        "    tile a: acc f32[32, 64]\n"
        "    tload m, x[block * 32, 0]\n"
        "    tmov l, m\n"
        "    tmov r, m\n"
        "    tmatmul a, l, r\n"
        "    tpush q, a\n"
        "  }\n"
        "  vector {\n"
        "    tile t: vec f32[32, 64]   # after code: kept there\n"
        "    if subblock == 0 {\n"
        "          # inside the if\t \n"
        "      tpop t, q\n"
        "    } else {\n"
        "      # inside the else\n"
        "      tpop t, q\n"
        "      # at the end of a block: goes with what follows\n"
        "    }\n"
        "    tstore y[block * 32, 0], t\n"
        "    tfree q\n"
        "  }\n"
        "}\n"
        "# the host\n"
        "host h(in x: f32[64, 64], out y: f32[64, 64]) {\n"
        "  # one call\n"
        "  call k(x, y)\n"
        "}\n"
        "# the end\n";
    static const char *const want =
        "# run: -D N=32\n"
        "# after code: on a line of its own (the arch line holds no item)\n"
        "# about k\n"
        "arch a5\n"
        "\n"
        "kernel k(in x: f32[N, 64], out y: f32[N, 64]) mix blocks(N / 32) {\n"
        "  # the pipe\n"
        "  pipe q: c2v f32[32, 64] slots(8) local_slots(2)\n"
        "  cube {\n"
        "    tile m: mat f32[32, 64]\n"
        "    tile l: left f32[32, 64]\n"
        "    tile r: right f32[64, 64]\n"
        "    tile a: acc f32[32, 64]\n"
        "    tload m, x[block * 32, 0]\n"
        "    tmov l, m\n"
        "    tmov r, m\n"
        "    tmatmul a, l, r\n"
        "    tpush q, a\n"
        "  }\n"
        "  vector {\n"
        "    tile t: vec f32[32, 64]  # after code: kept there\n"
        "    if subblock == 0 {\n"
        "      # inside the if\n"
        "      tpop t, q\n"
        "    } else {\n"
        "      # inside the else\n"
        "      tpop t, q\n"
        "    }\n"
        "    # at the end of a block: goes with what follows\n"
        "    tstore y[block * 32, 0], t\n"
        "    tfree q\n"
        "  }\n"
        "}\n"
        "\n"
        "# the host\n"
        "host h(in x: f32[64, 64], out y: f32[64, 64]) {\n"
        "  # one call\n"
        "  call k(x, y)\n"
        "}\n"
        "# the end\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    size_t n = 0;
    char *out = fmt_commented(ctx, in, strlen(in), &n);
    CHECK_MSG(out != NULL, "%s", "the commented file does not parse");
    if (out) CHECK_STR(out, want);
    free(out);
    pto_ctx_destroy(ctx);
}

int main(void)
{
    walk("examples", 1, 0);
    CHECK_MSG(n_files >= 3, "only %d examples", n_files);
    walk("tests", 0, 0);
    walk("tests/fuzz/regress", 0, 1);
    printf("round-tripped %d files\n", n_files);

    check_expr("(1 + 2) * 3", "(1 + 2) * 3");
    check_expr("1 + 2 * 3", "1 + 2 * 3");
    check_expr("((1 - 2)) - 3", "1 - 2 - 3");
    check_expr("1 - (2 - 3)", "1 - (2 - 3)");
    check_expr("a + (b + c)", "a + (b + c)");
    check_expr("a / (b * c) % 7", "a / (b * c) % 7");
    check_expr("-(a + b)", "-(a + b)");
    check_expr("- -a", "-(-a)");
    check_expr("-(5)", "-5");
    check_expr("-(0)", "-(0)");
    check_expr("-0", "0");
    check_expr("a * -3", "a * -3");
    check_expr("a - -9223372036854775808", "a - -9223372036854775808");
    check_expr("0x10 + 0XfF", "16 + 255");
    check_expr("min(a, max(b, 2)) % (c - 1)", "min(a, max(b, 2)) % (c - 1)");
    check_expr("block*blocks+subblock - rank/nranks", "block * blocks + subblock - rank / nranks");
    check_expr("-a * b", "-a * b");
    check_expr("-(a * b)", "-(a * b)");

    check_scalar_int("i", "i");
    check_scalar_int("(i)", "i");
    check_scalar_int("i * 2 + n", "i * 2 + n");
    check_scalar_int("n * 2", "n * 2");
    check_scalar_int("(n)", "(n)");      /* an integer expression of n, not the scalar operand n: kept */
    check_scalar_int("(2 * i)", "(2 * i)");
    check_scalar_int("(-5 + i)", "(-5 + i)");
    check_scalar_int("-i", "-i");
    check_scalar_int("(i + 1) * block", "(i + 1) * block");
    check_float("0.1", "0.1");
    check_float("1", "1.0");
    check_float("-2", "-2.0");
    check_float("0x10", "16.0");
    check_float("1e300", "1e+300");
    check_float("-2e-3", "-0.002");
    check_float("1.5e-7", "1.5e-07");
    check_float("-0.0", "-0.0");
    check_float("123456789", "123456789.0");
    check_float("0.30000000000000004", "0.30000000000000004");
    check_float("3.14159265358979323846", "3.141592653589793");
    check_float("1e400", "inf");
    check_float("-inf", "-inf");
    check_float("nan", "nan");
    check_float("4.9406564584124654e-324", "5e-324");
    check_float("1.7976931348623157e308", "1.7976931348623157e+308");
    /* plain decimal when the exponent is in [-5, 15] (review26a L3: 100.0 printed as 1e+02) */
    check_float("100.0", "100.0");
    check_float("1e2", "100.0");
    check_float("-1.5e5", "-150000.0");
    check_float("1234.5e1", "12345.0");
    check_float("1e15", "1000000000000000.0");
    check_float("1e16", "1e+16");
    check_float("1e-5", "0.00001");
    check_float("-1.25e-5", "-0.0000125");
    check_float("1e-6", "1e-06");
    check_float("65504", "65504.0");
    check_float("3.4028234663852886e38", "3.4028234663852886e+38");
    check_float("9007199254740993", "9007199254740992.0");
    check_plain_floats();

    check_api_module();
    check_comment_places();
    check_dump();
    return TEST_END();
}
