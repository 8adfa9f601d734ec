/* fuzz_parse.c - libFuzzer target for the parser and printer.

   For any input: parse must not crash; when it succeeds, verify must not
   crash, and the printed text must parse again and print identically
   (print(parse(print(x))) == print(x)); the text with its comments kept
   (pto_print_commented, ptoc fmt) must parse to that module too. A broken
   round trip aborts, so the fuzzer keeps the input.

   Built with -DPTO_FUZZ_MAIN (no libFuzzer) it replays the files or
   directories given on the command line, for regression runs. */

#define PTO_IMPLEMENTATION
#include "../../pto.h"

#include <stdlib.h>
#include <string.h>

static char *print_module(pto_ctx *ctx, const pto_module *m, size_t *len)
{
    pto_buf b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_print(m, &b);
    if (b.oom) { pto_buf_free(&b); return NULL; }
    *len = b.len;
    return b.data ? b.data : (char *)calloc(1, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m, *m2;
    char *p1, *p2;
    size_t n1 = 0, n2 = 0;
    if (!ctx) return 0;
    m = pto_parse(ctx, "fuzz.pto", (const char *)data, size);
    if (!m) { pto_ctx_destroy(ctx); return 0; }
    (void)pto_verify(ctx, m);
    p1 = print_module(ctx, m, &n1);
    if (!p1) abort();
    m2 = pto_parse(ctx, "printed.pto", p1, n1);
    if (!m2) {
        fprintf(stderr, "printed text does not parse:\n%s\n", p1);
        pto_diag_print(ctx, stderr);
        abort();
    }
    p2 = print_module(ctx, m2, &n2);
    if (!p2 || n1 != n2 || memcmp(p1, p2, n1) != 0) {
        fprintf(stderr, "round trip differs:\n%s\n---\n%s\n", p1, p2 ? p2 : "(null)");
        abort();
    }
    {   /* the comments kept: the same module */
        pto_buf c;
        pto_module *m3;
        char *p3;
        size_t n3 = 0;
        memset(&c, 0, sizeof c);
        c.ctx = ctx;
        pto_print_commented(m, (const char *)data, size, &c);
        if (c.oom) abort();
        m3 = pto_parse(ctx, "commented.pto", c.data ? c.data : "", c.len);
        p3 = m3 ? print_module(ctx, m3, &n3) : NULL;
        if (!p3 || n3 != n1 || memcmp(p1, p3, n1) != 0) {
            fprintf(stderr, "the commented text differs:\n%s\n", c.data ? c.data : "");
            abort();
        }
        pto_free(ctx, p3);
        pto_module_destroy(m3);
        pto_buf_free(&c);
    }
    pto_free(ctx, p1);
    pto_free(ctx, p2);
    pto_module_destroy(m);
    pto_module_destroy(m2);
    pto_ctx_destroy(ctx);
    return 0;
}

#ifdef PTO_FUZZ_MAIN
#define FUZZ_WHAT "parsed, verified and printed: round trips hold"
#include "replay.h"
#endif
