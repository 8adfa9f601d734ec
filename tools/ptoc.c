/* ptoc.c - the pto command-line compiler.

   ptoc check FILE       parse and verify; print diagnostics
   ptoc fmt FILE         print the canonical .pto text of FILE
   ptoc dump STAGE FILE  print the IR after a stage (parse, verify, ...)
   ptoc plan [--tight] [--svg OUT.svg] FILE
                         plan memory; print the plan table and memory maps
   ptoc --help

   Exit status: 0 on success, 1 when the input is wrong (a user error),
   2 when pto itself failed (an internal error: out of memory, a bug). */

#define PTO_IMPLEMENTATION
#include "../pto.h"

#include <stdlib.h>
#include <string.h>

static const char *usage =
    "usage: ptoc COMMAND [OPTIONS] FILE\n"
    "\n"
    "commands:\n"
    "  check FILE          parse and verify FILE; print every error\n"
    "  fmt FILE            print FILE in canonical .pto form\n"
    "  dump STAGE FILE     print the IR after STAGE (parse | verify)\n"
    "  plan [--tight] [--svg OUT.svg] FILE\n"
    "                      plan memory: per kernel a table of tiles and a memory map\n"
    "                      per space; --tight ignores pipe conflicts; --svg draws the maps\n"
    "  --help              this text\n"
    "  --version           the version\n"
    "\n"
    "exit status: 0 success, 1 error in the input, 2 internal error\n";

static char *read_all(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char *data = NULL;
    size_t cap = 0, n = 0;
    if (!f) return NULL;
    for (;;) {
        size_t got;
        if (n + 4096 + 1 > cap) {
            char *p;
            cap = cap ? cap * 2 : 65536;
            p = (char *)realloc(data, cap);
            if (!p) { free(data); if (f != stdin) fclose(f); return NULL; }
            data = p;
        }
        got = fread(data + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    if (f != stdin) fclose(f);
    data[n] = 0;
    *len = n;
    return data;
}

/* The status that a failed pass leaves: a user error unless the only
   diagnostics are internal. */
static int exit_code(pto_status st) { return st == PTO_ERR_INTERNAL ? 2 : st == PTO_OK ? 0 : 1; }

static pto_module *load(pto_ctx *ctx, const char *path, int *status)
{
    size_t len = 0;
    char *text = read_all(path, &len);
    pto_module *m;
    if (!text) {
        fprintf(stderr, "ptoc: error: cannot read '%s'\n", path);
        *status = 1;
        return NULL;
    }
    m = pto_parse(ctx, path, text, len);
    free(text);
    *status = m ? 0 : 1;
    return m;
}

static int cmd_check(pto_ctx *ctx, const char *path, int print)
{
    int status;
    pto_module *m = load(ctx, path, &status);
    pto_status st = PTO_OK;
    if (m) st = pto_verify(ctx, m);
    pto_diag_print(ctx, stderr);
    if (m && st == PTO_OK && print) {
        pto_buf out;
        memset(&out, 0, sizeof out);
        out.ctx = ctx;
        pto_print(m, &out);
        if (out.oom) st = PTO_ERR_INTERNAL;
        else fputs(out.data ? out.data : "", stdout);
        pto_buf_free(&out);
    }
    pto_module_destroy(m);
    return m ? exit_code(st) : status;
}

/* ptoc dump STAGE FILE: the IR after STAGE, with what the passes computed. */
static int cmd_dump(pto_ctx *ctx, const char *stage, const char *path)
{
    int status;
    pto_module *m;
    pto_status st = PTO_OK;
    if (strcmp(stage, "parse") != 0 && strcmp(stage, "verify") != 0) {
        fprintf(stderr, "ptoc: error: unknown stage '%s' (stages: parse, verify)\n", stage);
        return 1;
    }
    m = load(ctx, path, &status);
    if (m && strcmp(stage, "verify") == 0) st = pto_verify(ctx, m);
    pto_diag_print(ctx, stderr);
    if (m && st == PTO_OK) {
        pto_buf out;
        memset(&out, 0, sizeof out);
        out.ctx = ctx;
        pto_dump(m, &out);
        if (out.oom) st = PTO_ERR_INTERNAL;
        else fputs(out.data ? out.data : "", stdout);
        pto_buf_free(&out);
    }
    pto_module_destroy(m);
    return m ? exit_code(st) : status;
}

/* ptoc plan: parse, verify, plan, check the plan independently, report. */
static int cmd_plan(pto_ctx *ctx, int argc, char **argv)
{
    const char *svg = NULL, *path = NULL;
    pto_plan_desc d;
    pto_plan_result r;
    pto_module *m;
    pto_status st = PTO_OK;
    int i, status;
    memset(&d, 0, sizeof d);
    memset(&r, 0, sizeof r);
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--tight") == 0) d.tight = 1;
        else if (strcmp(argv[i], "--svg") == 0 && i + 1 < argc) svg = argv[++i];
        else path = argv[i];
    }
    if (!path) { fputs(usage, stderr); return 1; }
    m = load(ctx, path, &status);
    if (!m) { pto_diag_print(ctx, stderr); return status; }
    d.result = &r;
    st = pto_verify(ctx, m);
    if (st == PTO_OK) st = pto_plan(ctx, m, &d);
    if (st == PTO_OK && pto_plan_check(ctx, m) != PTO_OK) st = PTO_ERR_INTERNAL; /* the planner is wrong */
    pto_diag_print(ctx, stderr);
    if (st == PTO_OK) {
        pto_buf out;
        memset(&out, 0, sizeof out);
        out.ctx = ctx;
        pto_plan_report(m, &r, &out);
        fputs(out.data ? out.data : "", stdout);
        if (svg) {
            FILE *f = fopen(svg, "w");
            out.len = 0;
            pto_plan_svg(m, &out);
            if (!f || fputs(out.data ? out.data : "", f) < 0) {
                fprintf(stderr, "ptoc: error: cannot write '%s'\n", svg);
                st = PTO_ERR_USER;
            }
            if (f) fclose(f);
        }
        if (out.oom) st = PTO_ERR_INTERNAL;
        pto_buf_free(&out);
    }
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(m);
    return exit_code(st);
}

int main(int argc, char **argv)
{
    pto_ctx *ctx;
    int rc;
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 1 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ptoc %s\n", PTO_VERSION_STRING);
        return 0;
    }
    ctx = pto_ctx_create(NULL);
    if (!ctx) {
        fprintf(stderr, "ptoc: error: out of memory\n");
        return 2;
    }
    if (strcmp(argv[1], "check") == 0 && argc == 3) {
        rc = cmd_check(ctx, argv[2], 0);
    } else if (strcmp(argv[1], "fmt") == 0 && argc == 3) {
        rc = cmd_check(ctx, argv[2], 1);
    } else if (strcmp(argv[1], "dump") == 0 && argc == 4) {
        rc = cmd_dump(ctx, argv[2], argv[3]);
    } else if (strcmp(argv[1], "plan") == 0 && argc >= 3) {
        rc = cmd_plan(ctx, argc, argv);
    } else {
        fprintf(stderr, "ptoc: error: unknown command or wrong arguments: '%s'\n%s", argv[1], usage);
        rc = 1;
    }
    pto_ctx_destroy(ctx);
    return rc;
}
