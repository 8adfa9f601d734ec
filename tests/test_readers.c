/* test_readers.c - parse.c's two readers build the same module.

   The parser reads the commonest lines (op operands, tile statements, plain
   expressions) straight from the text ("quick reads") and hands everything
   else, and every error, to the token parser. That is only right while the
   two agree, so this test parses every input twice, once as ptoc does and
   once with the quick reads off (pto_ctx.parse_tokens_only, a private switch
   for this test), and requires the same result: the same diagnostics (text
   and location), the same module array by array (every statement, operand,
   expression, tile, var, param, block and kernel, locations included: the
   arrays are zeroed as they grow, so memcmp sees no padding noise), the
   same verify diagnostics after.

   The inputs: every .pto under examples/, tests/ and bench/ (tests/bad/
   included), and for each of them 40 mutants (a byte deleted, inserted,
   replaced, or a line's piece doubled, at seeded places) made to reach the
   corners where a quick read must decline. A grammar change that touches a
   form one reader accepts and not the other fails here. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"
#include "tests/walk.h"

#include <stdlib.h>

#define MUTANTS 40

typedef struct parsed {
    pto_ctx *ctx;
    pto_module *m;
    pto_buf diags;   /* parse's and then verify's, formatted with locations */
} parsed;

static void diags_to(pto_ctx *ctx, pto_buf *out)
{
    char line[1024];
    int i, n = pto_diag_count(ctx);
    for (i = 0; i < n; i++) {
        pto_diag_format(ctx, pto_diag_get(ctx, i), line, sizeof line);
        pto_buf_puts(out, line);
        pto_buf_puts(out, "\n");
    }
    pto_diag_clear(ctx);
}

static void parse_one(parsed *r, const char *name, const char *text, size_t len, int tokens_only)
{
    pto_ctx_desc d;
    memset(&d, 0, sizeof d);
    memset(r, 0, sizeof *r);
    r->ctx = pto_ctx_create(&d);
    r->ctx->parse_tokens_only = tokens_only;
    r->m = pto_parse(r->ctx, name, text, len);
    diags_to(r->ctx, &r->diags);
    if (r->m) {
        pto_buf_puts(&r->diags, "-- verify\n");
        (void)pto_verify(r->ctx, r->m);
        diags_to(r->ctx, &r->diags);
    }
}

static void parsed_free(parsed *r)
{
    pto_buf_free(&r->diags);
    if (r->m) pto_module_destroy(r->m);
    pto_ctx_destroy(r->ctx);
}

/* The first array that differs, or NULL. */
static const char *module_diff(const pto_module *a, const pto_module *b)
{
#define PTO_T_SAME(arr) \
    if (a->n_##arr != b->n_##arr || (a->n_##arr && memcmp(a->arr, b->arr, (size_t)a->n_##arr * sizeof *a->arr))) \
        return #arr;
    PTO_T_SAME(kernels)
    PTO_T_SAME(params)
    PTO_T_SAME(vars)
    PTO_T_SAME(tiles)
    PTO_T_SAME(stmts)
    PTO_T_SAME(blocks)
    PTO_T_SAME(operands)
    PTO_T_SAME(exprs)
    PTO_T_SAME(cvpipes)
    PTO_T_SAME(hosts)
    PTO_T_SAME(hstmts)
#undef PTO_T_SAME
    if (a->broken != b->broken || a->arch != b->arch) return "module header";
    return NULL;
}

static int nfiles, nmutants;

/* Both readers on one text: 1 when they agree. */
static int same_both_ways(const char *name, const char *text, size_t len)
{
    parsed q, t;
    const char *why = NULL;
    parse_one(&q, name, text, len, 0);
    parse_one(&t, name, text, len, 1);
    if (!q.m != !t.m) why = "one reader built a module, the other did not";
    else if (q.diags.len != t.diags.len || (q.diags.len && memcmp(q.diags.data, t.diags.data, q.diags.len)))
        why = "diagnostics";
    else if (q.m) why = module_diff(q.m, t.m);
    if (why) {
        printf("  %s: the readers differ (%s)\n  quick reads:\n%.*s  token parser:\n%.*s", name, why,
               (int)q.diags.len, q.diags.data ? q.diags.data : "", (int)t.diags.len, t.diags.data ? t.diags.data : "");
    }
    parsed_free(&q);
    parsed_free(&t);
    return why == NULL;
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Mutant k of text into out (room for len + 64); its length. */
static size_t mutate(const char *text, size_t len, int k, char *out)
{
    static const char pool[] = " ,[]()x0123456789+-*/%\n:=<>abtv_.#\t{}";
    uint64_t s = 0x9e3779b97f4a7c15u ^ ((uint64_t)(k + 1) * 0x100000001b3u) ^ (uint64_t)len;
    size_t at, n;
    char c;
    rng_next(&s);
    at = len ? (size_t)(rng_next(&s) % len) : 0;
    c = pool[rng_next(&s) % (sizeof pool - 1)];
    switch (k % 4) {
    case 0:   /* delete */
        if (!len) return 0;
        memcpy(out, text, at);
        memcpy(out + at, text + at + 1, len - at - 1);
        return len - 1;
    case 1:   /* insert */
        memcpy(out, text, at);
        out[at] = c;
        memcpy(out + at + 1, text + at, len - at);
        return len + 1;
    case 2:   /* replace */
        memcpy(out, text, len);
        if (len) out[at] = c;
        return len;
    default:  /* double a piece of up to 12 bytes */
        n = 1 + (size_t)(rng_next(&s) % 12);
        if (at + n > len) n = len - at;
        memcpy(out, text, at + n);
        memcpy(out + at + n, text + at, len - at);
        return len + n;
    }
}

static void check_file(const char *path)
{
    size_t len, i;
    char *text = t_slurp(path, &len), *mut;
    char name[1100];
    int k;
    if (!text) {
        CHECK_MSG(0, "cannot read %s", path);
        return;
    }
    nfiles++;
    CHECK_MSG(same_both_ways(path, text, len), "%s: both readers agree", path);
    mut = (char *)malloc(len + 64);
    for (k = 0; mut && k < MUTANTS; k++) {
        size_t n = mutate(text, len, k, mut);
        snprintf(name, sizeof name, "%s~%d", path, k);
        nmutants++;
        if (!same_both_ways(name, mut, n)) {
            printf("  mutant %d of %s:\n", k, path);
            for (i = 0; i < n; i++) putchar(mut[i]);
            CHECK_MSG(0, "%s: both readers agree", name);
        }
    }
    free(mut);
    free(text);
}

int main(void)
{
    t_walk_pto("examples", check_file);
    t_walk_pto("tests", check_file);
    t_walk_pto("bench", check_file);
    CHECK_MSG(nfiles > 300, "found the repo's .pto files (%d)", nfiles);
    printf("  %d files, %d mutants, each parsed both ways\n", nfiles, nmutants);
    return TEST_END();
}
