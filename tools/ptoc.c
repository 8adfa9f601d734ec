/* ptoc.c - the pto command-line compiler.

   ptoc check FILE       every pass and the emitter; print diagnostics, write nothing
   ptoc fmt FILE         print the canonical .pto text of FILE, full-line comments kept
   ptoc dump [--target sim|isa] STAGE FILE
                         print the IR after a stage (parse, verify, ...)
   ptoc plan [--tight] [--svg OUT.svg] FILE
                         plan memory; print the plan table and memory maps
   ptoc sync FILE        the IR after sync, each inserted sync with its dependency
   ptoc emit [--no-sync] [--tight] [--target sim|isa] FILE -o DIR
                         kernel.c and host.c of FILE in DIR (isa: kernel.cpp)
   ptoc run [--no-sync] [--tight] [--cc CC] [-D NAME=VALUE]... [--seed S] [--ranks N] [--max-instr N] [--trace F] FILE|DIR
                         emit (or take DIR as it is), compile, run on the
                         simulator, compare with the reference interpreter
   ptoc --help

   A command line it cannot use gets "ptoc: error: WHAT" (a missing value,
   an unknown option, a second FILE) before the usage, exit status 1.

   Exit status: 0 on success, 1 when the input is wrong (a user error),
   2 when pto itself failed (an internal error: out of memory, a bug). */

#define PTO_IMPLEMENTATION
#include "../pto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *usage =
    "usage: ptoc COMMAND [OPTIONS] FILE\n"
    "\n"
    "commands:\n"
    "  check [--tight] [--target sim|isa] FILE\n"
    "                      parse, verify, plan memory, place syncs and emit for the\n"
    "                      target (default sim): every error emit would report (tiles\n"
    "                      that do not fit too); writes nothing\n"
    "  fmt FILE            print FILE in canonical .pto form; full-line comments are kept\n"
    "                      (each before what follows it), comments after code dropped\n"
    "  dump [--target sim|isa] STAGE FILE\n"
    "                      print the IR after STAGE (parse | verify | lower | plan | sync);\n"
    "                      --target isa: as compiled for the isa target (its padding fills)\n"
    "  plan [--tight] [--svg OUT.svg] FILE\n"
    "                      plan memory: per kernel a table of tiles and a memory map\n"
    "                      per space; --tight ignores pipe conflicts; --svg draws the maps\n"
    "  sync FILE           plan and synchronise: every inserted set_flag / wait_flag /\n"
    "                      pipe_barrier with the dependency (tiles, bytes, kind) behind it\n"
    "  emit [--no-sync] [--tight] [--target sim|isa] FILE -o DIR\n"
    "                      write DIR/kernel.c and DIR/host.c (--target isa: DIR/kernel.cpp\n"
    "                      against the Ascend pto-isa C++ API, see docs/isa-target.md)\n"
    "  run [--no-sync] [--tight] [--cc CC] [-D NAME=VALUE]... [--seed S] [--ranks N] [--max-instr N]\n"
    "      [--trace F.json] FILE|DIR\n"
    "                      emit FILE (or take DIR as it is), compile with CC ($CC, cc),\n"
    "                      run on the simulator and compare with the reference interpreter;\n"
    "                      --no-sync skips the sync pass: the kernel keeps only the\n"
    "                      set_flag / wait_flag / pipe_barrier written in FILE; --tight\n"
    "                      plans as plan --tight does (bytes shared across pipes);\n"
    "                      --ranks N runs ranks kernels on N ranks (default 2); --max-instr N\n"
    "                      stops a launch past N instructions (default 100000); a FILE's\n"
    "                      first `# run: -D N=64 --ranks 4` line gives defaults for -D,\n"
    "                      --ranks, --seed and --max-instr that the command line overrides\n"
    "  --help              this text\n"
    "  --version           the version\n"
    "\n"
    "exit status: 0 success, 1 error in the input, 2 internal error\n";

static const char *const commands[] = {"check", "fmt", "dump", "plan", "sync", "emit", "run", NULL};

/* The usage lines of command cmd (its entry in `usage`, continuation lines
   included), or NULL when cmd is not a command. */
static const char *usage_of(const char *cmd, size_t *len)
{
    size_t n = strlen(cmd);
    const char *p = usage, *end;
    while ((p = strstr(p, "\n  ")) != NULL) {
        p += 3;
        if (strncmp(p, cmd, n) == 0 && (p[n] == ' ' || p[n] == '\n')) break;
    }
    if (!p) return NULL;
    /* up to the next line that starts a command or an option at column 2 */
    for (end = strchr(p, '\n'); end && end[1] == ' ' && end[2] == ' ' && end[3] == ' '; end = strchr(end + 1, '\n'))
        ;
    *len = end ? (size_t)(end + 1 - p) : strlen(p);
    return p;
}

/* A command line ptoc cannot use: what is wrong with it, then the usage of
   that command (the whole text is one `ptoc --help` away). */
static int usage_error(const char *cmd, const char *what, const char *arg)
{
    size_t n = 0;
    const char *u = cmd ? usage_of(cmd, &n) : NULL;
    const char *const *c;
    pto__ps_near near;
    fprintf(stderr, "ptoc: error: %s%s%s%s\n", what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    if (u) {
        fprintf(stderr, "usage: ptoc %.*s", (int)n, u);
    } else {
        if (cmd) {   /* the parser's "did you mean" search and rule */
            pto__ps_near_start(&near, cmd, strlen(cmd));
            for (c = commands; *c; c++) pto__ps_near_try(&near, *c, strlen(*c));
            if (near.best) fprintf(stderr, "did you mean '%.*s'?\n", (int)near.best_len, near.best);
        }
        fprintf(stderr, "usage: ptoc COMMAND [OPTIONS] FILE, COMMAND one of: check fmt dump plan sync emit run\n");
    }
    fprintf(stderr, "(ptoc --help describes every command and option)\n");
    return 1;
}

/* What is wrong when command `cmd` got the wrong number of arguments. */
static const char *wrong_args(const char *cmd)
{
    const char *const *c;
    if (strcmp(cmd, "dump") == 0) return "a STAGE and a FILE must follow";
    for (c = commands; *c; c++)
        if (strcmp(cmd, *c) == 0) return "one FILE must follow";
    return "unknown command";
}

/* Whether argv[i] is an option that wants a value and has none (it is last). */
static int missing_value(int argc, char **argv, int i, const char *const *opts)
{
    for (; *opts; opts++)
        if (strcmp(argv[i], *opts) == 0) return i + 1 >= argc;
    return 0;
}

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

/* Parses the file at path; its text stays in *text when text is not NULL
   (the caller frees it). */
static pto_module *load_text(pto_ctx *ctx, const char *path, int *status, char **text, size_t *len)
{
    size_t n = 0;
    char *data = read_all(path, &n);
    pto_module *m;
    if (text) *text = NULL;
    if (!data) {
        fprintf(stderr, "ptoc: error: cannot read '%s'\n", path);
        *status = 1;
        return NULL;
    }
    m = pto_parse(ctx, path, data, n);
    if (text) { *text = data; *len = n; } else free(data);
    *status = m ? 0 : 1;
    return m;
}

static pto_module *load(pto_ctx *ctx, const char *path, int *status) { return load_text(ctx, path, status, NULL, NULL); }

/* Writes a printer's text for m to stdout; PTO_ERR_INTERNAL when the text
   could not be built (out of memory). */
static pto_status write_text(pto_ctx *ctx, const pto_module *m, void (*printer)(const pto_module *, pto_buf *))
{
    pto_buf out;
    pto_status st = PTO_OK;
    memset(&out, 0, sizeof out);
    out.ctx = ctx;
    printer(m, &out);
    if (out.oom) st = PTO_ERR_INTERNAL;
    else fputs(out.data ? out.data : "", stdout);
    pto_buf_free(&out);
    return st;
}


/* fmt formats whatever parses: the text as written (before lowering adds
   staging tiles), full-line comments kept, `# run:` too. A formatter that
   refused a file with a semantic error would be no help while fixing it;
   verify still runs, after the text is out, so its errors reach stderr and
   the exit status is 1 (`ptoc fmt f > g && mv g f` then leaves f alone). */
static int cmd_fmt(pto_ctx *ctx, const char *path)
{
    int status;
    char *text = NULL;
    size_t len = 0;
    pto_module *m = load_text(ctx, path, &status, &text, &len);
    pto_status st = PTO_OK;
    if (m) {
        pto_buf out;
        memset(&out, 0, sizeof out);
        out.ctx = ctx;
        pto_print_commented(m, text, len, &out);
        if (out.oom) st = PTO_ERR_INTERNAL;
        else fputs(out.data ? out.data : "", stdout);
        pto_buf_free(&out);
        fflush(stdout);
        if (st == PTO_OK) st = pto_verify(ctx, m);
    }
    pto_diag_print(ctx, stderr);
    free(text);
    pto_module_destroy(m);
    return m ? exit_code(st) : status;
}

/* The pipeline stages `ptoc dump` can stop after, in order. */
static const char *const dump_stages[] = {"parse", "verify", "lower", "plan", "sync"};

/* Runs the passes up to `stage` and prints the IR with what they computed
   (pto_dump: planned offsets per slot, the note of every inserted statement). */
static int cmd_dump(pto_ctx *ctx, const char *stage, const char *path, int isa)
{
    int status, last = -1, i;
    pto_module *m;
    pto_status st = PTO_OK;
    for (i = 0; i < (int)(sizeof dump_stages / sizeof dump_stages[0]); i++)
        if (strcmp(stage, dump_stages[i]) == 0) last = i;
    if (last < 0) {
        fprintf(stderr, "ptoc: error: unknown stage '%s' (stages: parse, verify, lower, plan, sync)\n", stage);
        return 1;
    }
    m = load(ctx, path, &status);
    if (m && last >= 1) {
        pto_compile_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.stop_after = last == 1 ? PTO_STAGE_VERIFY : last == 2 ? PTO_STAGE_LOWER : last == 3 ? PTO_STAGE_PLAN
                                                                                   : PTO_STAGE_SYNC;
        cd.sync.check = 1;
        cd.target = isa ? PTO_TARGET_ISA : PTO_TARGET_SIM;
        st = pto_compile(ctx, m, &cd);
    }
    pto_diag_print(ctx, stderr);
    if (m && st == PTO_OK) st = write_text(ctx, m, pto_dump);
    pto_module_destroy(m);
    return m ? exit_code(st) : status;
}

/* ptoc plan: parse, verify, plan, check the plan independently, report. */
static int cmd_plan(pto_ctx *ctx, int argc, char **argv)
{
    const char *svg = NULL, *path = NULL;
    pto_plan_desc d;
    pto_compile_desc cd;
    pto_plan_result r;
    pto_module *m;
    pto_status st = PTO_OK;
    int i, status;
    memset(&d, 0, sizeof d);
    memset(&r, 0, sizeof r);
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--tight") == 0) d.tight = 1;
        else if (strcmp(argv[i], "--svg") == 0 && i + 1 < argc) svg = argv[++i];
        else if (strcmp(argv[i], "--svg") == 0) return usage_error("plan", "--svg needs a file to write", NULL);
        else if (argv[i][0] == '-' && argv[i][1]) return usage_error("plan", "plan: unknown option", argv[i]);
        else if (path) return usage_error("plan", "plan takes one FILE; a second one is", argv[i]);
        else path = argv[i];
    }
    if (!path) return usage_error("plan", "plan needs a FILE", NULL);
    m = load(ctx, path, &status);
    if (!m) { pto_diag_print(ctx, stderr); return status; }
    d.result = &r;
    memset(&cd, 0, sizeof cd);
    cd.stop_after = PTO_STAGE_PLAN;
    cd.check_plan = 1;   /* a plan the independent checker rejects is pto's bug (exit 2) */
    cd.plan = d;
    st = pto_compile(ctx, m, &cd);
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

/* ptoc sync: parse, verify, plan, sync; the IR with every inserted sync and
   the dependency that justified it (pto_sync_dump). */
static int cmd_sync(pto_ctx *ctx, const char *path)
{
    int status;
    pto_module *m = load(ctx, path, &status);
    pto_status st = PTO_OK;
    pto_compile_desc cd;
    if (!m) { pto_diag_print(ctx, stderr); return status; }
    memset(&cd, 0, sizeof cd);
    cd.sync.check = 1;   /* an unordered dependency after sync is pto's bug (exit 2) */
    st = pto_compile(ctx, m, &cd);
    pto_diag_print(ctx, stderr);
    if (st == PTO_OK) st = write_text(ctx, m, pto_sync_dump);
    pto_module_destroy(m);
    return exit_code(st);
}

/* ---- emit and run ----------------------------------------------------------- */

/* Options of emit and run (bits). */
#define EMIT_NO_SYNC 1  /* leave the sync pass out */
#define EMIT_TIGHT   2  /* plan tightly (pto_plan_desc.tight) */
#define EMIT_ISA     4  /* emit --target isa: C++ for the pto-isa API, no host */

/* The pipeline of `emit`: parse, the passes (pto_compile), emit. */
static pto_status compile_file(pto_ctx *ctx, const char *path, int opts, pto_buf *ksrc, pto_buf *hsrc)
{
    size_t len = 0;
    char *text = read_all(path, &len);
    pto_module *m;
    pto_emit_desc ed;
    pto_compile_desc cd;
    pto_status st;
    if (!text) {
        fprintf(stderr, "ptoc: error: cannot read '%s'\n", path);
        return PTO_ERR_USER;
    }
    m = pto_parse(ctx, path, text, len);
    memset(&cd, 0, sizeof cd);
    cd.plan.tight = (opts & EMIT_TIGHT) != 0;
    cd.no_sync = (opts & EMIT_NO_SYNC) != 0;
    cd.target = (opts & EMIT_ISA) ? PTO_TARGET_ISA : PTO_TARGET_SIM;   /* isa: lower adds the padding fills */
    cd.sync.check = 1;   /* the sync self-check costs little next to compiling the C */
    st = pto_compile(ctx, m, &cd);
    if (st == PTO_OK) {
        memset(&ed, 0, sizeof ed);
        ed.filename = path;
        ed.source = text;
        ed.source_len = len;
        st = (opts & EMIT_ISA) ? pto_emit_isa(ctx, m, &ed, ksrc) : pto_emit(ctx, m, &ed, ksrc, hsrc);
    }
    pto_diag_print(ctx, stderr);
    pto_module_destroy(m);
    free(text);
    return st;
}

/* A file the emitter streams into (pto_buf.sink): it is opened on its
   first bytes, so a compile that fails before emitting leaves DIR as it
   was, and kernel.c is closed before host.c opens (pto_emit finishes one
   before it starts the other), so a kernel.c that cannot be written means
   no host.c, as when the files were written after emission. Write errors
   are kept for emit_to to report once the diagnostics are out. */
typedef struct out_file {
    char path[4200];
    const char *dir;
    FILE *f;
    int state;               /* OUT_* */
    int opened;              /* fopen made (or emptied) the file */
    int made_dir;            /* the open created DIR (removed again if emission fails) */
    int err;                 /* errno of the failure, for the message */
    struct out_file *prev;   /* the file written before this one */
} out_file;

enum { OUT_NEW, OUT_OPEN, OUT_DONE, OUT_FAILED, OUT_SKIPPED };

static void out_init(out_file *o, const char *dir, const char *name, out_file *prev)
{
    memset(o, 0, sizeof *o);
    snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
    o->dir = dir;
    o->prev = prev;
}

static void out_finish(out_file *o);

static void out_open(out_file *o)
{
    if (o->prev) out_finish(o->prev);
    if (o->prev && o->prev->state != OUT_DONE) {
        o->state = OUT_SKIPPED;
        return;
    }
    if (!o->prev) o->made_dir = mkdir(o->dir, 0777) == 0;
    errno = 0;
    o->f = fopen(o->path, "wb");
    o->err = errno;
    o->opened = o->f != NULL;
    o->state = o->f ? OUT_OPEN : OUT_FAILED;
}

static void out_write(const char *data, size_t len, void *user)
{
    out_file *o = (out_file *)user;
    if (o->state == OUT_NEW) out_open(o);
    if (o->state == OUT_OPEN && fwrite(data, 1, len, o->f) != len) o->state = OUT_FAILED, o->err = errno;
}

/* Opens the file if no byte came (an empty file is still written), closes it. */
static void out_finish(out_file *o)
{
    if (o->state == OUT_NEW) out_open(o);
    if (o->f && fclose(o->f) != 0) o->state = OUT_FAILED, o->err = errno;
    o->f = NULL;
    if (o->state == OUT_OPEN) o->state = OUT_DONE;
}

/* A failed emission: what was streamed goes again, so nothing half written stays. */
static void out_discard(out_file *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->opened) remove(o->path);
    if (o->made_dir) rmdir(o->dir);
    o->state = OUT_SKIPPED;
}

static void out_sink(pto_buf *b, out_file *o)
{
    b->sink = out_write;
    b->sink_user = o;
}

/* Emits FILE into DIR (created if missing), streaming the text to the
   files as it is made. EMIT_NO_SYNC: without the sync pass (the flags and
   barriers written in FILE are all the kernel gets). */
static int emit_to(pto_ctx *ctx, const char *path, const char *dir, int opts)
{
    pto_buf k, h;
    out_file kf, hf;
    pto_status st;
    int rc, isa = (opts & EMIT_ISA) != 0;
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    k.ctx = h.ctx = ctx;
    out_init(&kf, dir, isa ? "kernel.cpp" : "kernel.c", NULL);
    out_init(&hf, dir, "host.c", &kf);
    out_sink(&k, &kf);
    out_sink(&h, &hf);
    st = compile_file(ctx, path, opts, &k, &h);
    rc = exit_code(st);
    if (st == PTO_OK) {
        out_finish(&kf);
        if (!isa) out_finish(&hf);
        if (kf.state != OUT_DONE || (!isa && hf.state != OUT_DONE)) {
            const out_file *o = kf.state != OUT_DONE ? &kf : &hf;
            /* the usual cause is a DIR whose parent does not exist: say so */
            fprintf(stderr, "ptoc: error: cannot write '%s'%s%s%s\n", o->path, o->err ? ": " : "",
                    o->err ? strerror(o->err) : "", o->err == ENOENT ? " (ptoc creates DIR, not its parents)" : "");
            rc = 1;
        }
    } else {
        out_discard(&hf);
        out_discard(&kf);
    }
    pto_buf_free(&k);
    pto_buf_free(&h);
    return rc;
}

/* The arguments of check and emit: FILE, --tight, --target sim|isa, and for
   emit (dir != NULL) -o DIR and --no-sync. Returns -1 when they are fine,
   else the exit status of the usage error it printed. */
static int compile_args(const char *cmd, int argc, char **argv, const char **path, const char **dir, int *opts)
{
    static const char *const valued[] = {"-o", "--target", NULL};
    char what[64];
    int i;
    *path = NULL;
    *opts = 0;
    for (i = 2; i < argc; i++) {
        if (missing_value(argc, argv, i, dir ? valued : valued + 1)) {   /* -o: emit's only */
            snprintf(what, sizeof what, "%s: a value must follow", cmd);
            return usage_error(cmd, what, argv[i]);
        }
        if (dir && strcmp(argv[i], "-o") == 0) *dir = argv[++i];
        else if (dir && strcmp(argv[i], "--no-sync") == 0) *opts |= EMIT_NO_SYNC;
        else if (strcmp(argv[i], "--tight") == 0) *opts |= EMIT_TIGHT;
        else if (strcmp(argv[i], "--target") == 0 && strcmp(argv[i + 1], "isa") == 0) *opts |= EMIT_ISA, i++;
        else if (strcmp(argv[i], "--target") == 0 && strcmp(argv[i + 1], "sim") == 0) *opts &= ~EMIT_ISA, i++;
        else if (strcmp(argv[i], "--target") == 0) return usage_error(cmd, "--target is sim or isa, not", argv[i + 1]);
        else if (argv[i][0] == '-' && argv[i][1]) {
            snprintf(what, sizeof what, "%s: unknown option", cmd);
            return usage_error(cmd, what, argv[i]);
        } else if (*path) {
            snprintf(what, sizeof what, "%s takes one FILE; a second one is", cmd);
            return usage_error(cmd, what, argv[i]);
        } else {
            *path = argv[i];
        }
    }
    if (!*path) {
        snprintf(what, sizeof what, "%s needs a FILE", cmd);
        return usage_error(cmd, what, NULL);
    }
    return -1;
}

static void discard(const char *data, size_t len, void *user)
{
    (void)data;
    (void)len;
    (void)user;
}

/* check runs every pass that can find an error in the input, the emitter
   of the chosen target included, and writes nothing: a kernel whose tiles do
   not fit, or that the pto-isa target cannot express, is as wrong as one
   with a typo. */
static int cmd_check(pto_ctx *ctx, int argc, char **argv)
{
    const char *path;
    int opts, rc = compile_args("check", argc, argv, &path, NULL, &opts);
    pto_buf k, h;
    pto_status st;
    if (rc >= 0) return rc;
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    k.ctx = h.ctx = ctx;
    k.sink = h.sink = discard;   /* the text is not kept: only the staging areas are allocated */
    st = compile_file(ctx, path, opts, &k, &h);
    pto_buf_free(&k);
    pto_buf_free(&h);
    return exit_code(st);
}

static int cmd_emit(pto_ctx *ctx, int argc, char **argv)
{
    const char *path, *dir = NULL;
    int opts, rc = compile_args("emit", argc, argv, &path, &dir, &opts);
    if (rc >= 0) return rc;
    if (!dir) return usage_error("emit", "emit needs -o DIR: the directory for kernel.c and host.c", NULL);
    return emit_to(ctx, path, dir, opts);
}

static int file_exists(const char *dir, const char *name)
{
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s%s%s", dir, *dir ? "/" : "", name);
    return stat(path, &sb) == 0;
}

/* Where pto.h and pto_kernels.h are: $PTO_INCLUDE, else the ptoc binary's
   ../ (build/ptoc in the source tree), ../include (PREFIX/bin/ptoc after
   make install) or ../../ (a build made with B=build/NAME, like
   test-sanitize's build/san/ptoc), else the current directory. */
static int find_include(const char *argv0, char *out, size_t size)
{
    static const char *const up[] = {"..", "../include", "../.."};
    char self[2048], cand[2100];
    const char *env = getenv("PTO_INCLUDE");
    ssize_t n;
    char *slash;
    int i;
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return file_exists(out, "pto.h") && file_exists(out, "pto_kernels.h");
    }
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) self[n] = 0;
    else snprintf(self, sizeof self, "%s", argv0);
    slash = strrchr(self, '/');
    if (slash) {
        *slash = 0;
        for (i = 0; i < 3; i++) {
            snprintf(cand, sizeof cand, "%s/%s", self, up[i]);
            if (file_exists(cand, "pto.h") && file_exists(cand, "pto_kernels.h")) {
                snprintf(out, size, "%s", cand);
                return 1;
            }
        }
    }
    snprintf(out, size, ".");
    return file_exists("", "pto.h") && file_exists("", "pto_kernels.h");
}

/* Appends s to a shell command in single quotes. */
static void shell_quote(char *cmd, size_t size, const char *s)
{
    size_t n = strlen(cmd);
    if (n + 1 < size) cmd[n++] = '\'';
    for (; *s && n + 5 < size; s++) {
        if (*s == '\'') { memcpy(cmd + n, "'\\''", 4); n += 4; }
        else cmd[n++] = *s;
    }
    if (n + 1 < size) cmd[n++] = '\'';
    cmd[n] = 0;
}

static void shell_add(char *cmd, size_t size, const char *raw, const char *quoted)
{
    size_t n = strlen(cmd);
    snprintf(cmd + n, size - n, "%s", raw);
    if (quoted) shell_quote(cmd, size, quoted);
}

/* Compiles DIR/host.c into BIN with $CC; returns 0 on success. */
static int compile_dir(const char *cc, const char *inc, const char *dir, const char *bin)
{
    char cmd[16384], path[4096];
    const char *base = strrchr(cc, '/');
    int tcc = strncmp(base ? base + 1 : cc, "tcc", 3) == 0;
    const char *flags = getenv("PTO_CFLAGS");
    cmd[0] = 0;
    shell_add(cmd, sizeof cmd, cc, NULL);
    shell_add(cmd, sizeof cmd, tcc ? "" : " -std=c99 -O0 -ffp-contract=off", NULL);
    if (flags) shell_add(cmd, sizeof cmd, " ", NULL), shell_add(cmd, sizeof cmd, flags, NULL);
    shell_add(cmd, sizeof cmd, " -I", inc);
    shell_add(cmd, sizeof cmd, " -o ", bin);
    snprintf(path, sizeof path, "%s/host.c", dir);
    shell_add(cmd, sizeof cmd, " ", path);
    shell_add(cmd, sizeof cmd, " -lm -lpthread", NULL);
    return system(cmd);
}

/* Is option NAME (e.g. "--ranks", or "-D" with a dim name) already on the command line? */
static int cli_has(int argc, char **argv, const char *opt, const char *dname, size_t dlen)
{
    int i;
    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!dname) {
            if (strcmp(a, opt) == 0) return 1;
            continue;
        }
        if (strcmp(a, "-D") == 0 && i + 1 < argc) v = argv[i + 1];
        else if (strncmp(a, "-D", 2) == 0) v = a + 2;
        if (v && strncmp(v, dname, dlen) == 0 && v[dlen] == '=') return 1;
    }
    return 0;
}

/* The `# run:` line of a .pto text (NULL: none); cuts the text at its end. */
static char *run_line_pto(char *text)
{
    char *line, *end;
    for (line = text; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end) *end = 0;
        if (strncmp(line, "# run:", 6) == 0) return line;
    }
    return NULL;
}

/* The same line in an emitted host.c, where the .pto text is embedded one
   C string per line: `    "# run: -D N=64\n",`. A line with other escapes
   is not guessed at (NULL). */
static char *run_line_host(char *text)
{
    char *line, *end, *q;
    for (line = text; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end) *end = 0;
        while (*line == ' ') line++;
        if (strncmp(line, "\"# run:", 7) != 0) continue;
        q = strstr(line, "\\n\",");
        if (!q) return NULL;
        *q = 0;
        return strchr(line + 1, '\\') ? NULL : line + 1;
    }
    return NULL;
}

/* A .pto file's own launch defaults: its first `# run: -D N=64 --ranks 4`
   line (for an emitted DIR, the line embedded in DIR/host.c). Each option
   there is added unless the command line gives it too, so
   `ptoc run examples/softmax.pto` works as the demo runs it, and so does
   `ptoc run DIR` on what `ptoc emit` made of it. */
static void file_defaults(const char *path, int is_dir, int argc, char **argv, char *cmd, size_t size)
{
    size_t len = 0;
    char hpath[4200], *text, *line, *tok[64];
    int n = 0, i;
    if (is_dir) snprintf(hpath, sizeof hpath, "%s/host.c", path);
    text = read_all(is_dir ? hpath : path, &len);
    if (!text) return;
    line = is_dir ? run_line_host(text) : run_line_pto(text);
    if (line) {
        char *p = line + 6;
        while (n < 64) {
            while (*p == ' ' || *p == '\t') p++;
            if (!*p) break;
            tok[n++] = p;
            while (*p && *p != ' ' && *p != '\t') p++;
            if (*p) *p++ = 0;
        }
    }
    /* -D NAME=V (or -DNAME=V, as on the command line), --seed S, --ranks N;
       anything else is said, not skipped in pairs: a flag without a value
       (--tight) or the glued -DN=64 shifted every option after it, so the
       defaults after it were silently lost */
    for (i = 0; i < n; i++) {
        const char *opt = tok[i], *val, *eq;
        int given;
        if (strcmp(opt, "-D") == 0 || strcmp(opt, "--seed") == 0 || strcmp(opt, "--ranks") == 0 ||
            strcmp(opt, "--max-instr") == 0) {
            if (i + 1 >= n) {
                fprintf(stderr, "ptoc: warning: %s: '# run:' option '%s' has no value\n", path, opt);
                break;
            }
            val = tok[++i];
        } else if (strncmp(opt, "-D", 2) == 0) {
            val = opt + 2;
            opt = "-D";
        } else {
            fprintf(stderr, "ptoc: warning: %s: '# run:' option '%s' is ignored (the line takes -D NAME=VALUE, "
                    "--seed S, --ranks N and --max-instr N)\n", path, opt);
            continue;
        }
        eq = strchr(val, '=');
        given = strcmp(opt, "-D") == 0 ? eq && cli_has(argc, argv, "-D", val, (size_t)(eq - val))
                                       : cli_has(argc, argv, opt, NULL, 0);
        if (given) continue;
        shell_add(cmd, size, " ", opt);
        shell_add(cmd, size, " ", val);
    }
    free(text);
}

static int cmd_run(pto_ctx *ctx, int argc, char **argv)
{
    const char *target = NULL, *cc = getenv("CC");
    char inc[4096], tmp[] = "/tmp/ptoc-run-XXXXXX", bin[4200], cmd[16384], kpath[4200], hpath[4200];
    const char *dir;
    struct stat sb;
    int i, rc, opts = 0;
    cmd[0] = 0;
    if (!cc || !*cc) cc = "cc";
    static const char *const valued[] = {"--cc", "-D", "--seed", "--trace", "--ranks", "--max-instr", NULL};
    for (i = 2; i < argc; i++) {
        if (missing_value(argc, argv, i, valued)) return usage_error("run", "run: a value must follow", argv[i]);
        if (strcmp(argv[i], "--cc") == 0) cc = argv[++i];
        else if (strcmp(argv[i], "--no-sync") == 0) opts |= EMIT_NO_SYNC;
        else if (strcmp(argv[i], "--tight") == 0) opts |= EMIT_TIGHT;
        else if ((strcmp(argv[i], "-D") == 0 || strcmp(argv[i], "--seed") == 0 || strcmp(argv[i], "--trace") == 0 ||
                  strcmp(argv[i], "--ranks") == 0 || strcmp(argv[i], "--max-instr") == 0) &&
                 i + 1 < argc) {
            shell_add(cmd, sizeof cmd, " ", argv[i]);
            shell_add(cmd, sizeof cmd, " ", argv[++i]);
        } else if (strncmp(argv[i], "-D", 2) == 0) shell_add(cmd, sizeof cmd, " ", argv[i]);
        else if (argv[i][0] == '-' && argv[i][1]) return usage_error("run", "run: unknown option", argv[i]);
        else if (target) return usage_error("run", "run takes one FILE or DIR; a second one is", argv[i]);
        else target = argv[i];
    }
    if (!target) return usage_error("run", "run needs a FILE or an emitted DIR", NULL);
    if (!find_include(argv[0], inc, sizeof inc)) {
        fprintf(stderr, "ptoc: error: cannot find pto.h and pto_kernels.h (set PTO_INCLUDE)\n");
        return 1;
    }
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "ptoc: error: cannot make a temporary directory\n");
        return 2;
    }
    if (stat(target, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        dir = target;
        rc = file_exists(dir, "host.c") ? 0 : 1;
        if (rc) fprintf(stderr, "ptoc: error: '%s' has no host.c (make it with ptoc emit)\n", dir);
        else file_defaults(dir, 1, argc, argv, cmd, sizeof cmd);
    } else {
        dir = tmp;
        rc = emit_to(ctx, target, dir, opts);
        file_defaults(target, 0, argc, argv, cmd, sizeof cmd);
    }
    snprintf(bin, sizeof bin, "%s/run", tmp);
    if (rc == 0 && compile_dir(cc, inc, dir, bin) != 0) {
        fprintf(stderr, "ptoc: error: %s failed to compile %s/host.c\n", cc, dir);
        rc = 1;
    }
    if (rc == 0) {
        char full[16384 + 4300];
        full[0] = 0;
        shell_quote(full, sizeof full, bin);
        snprintf(full + strlen(full), sizeof full - strlen(full), "%s", cmd);
        fflush(stdout);
        rc = system(full);
        rc = rc == -1 ? 2 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 2;
        if (rc > 2) rc = 2;
    }
    snprintf(kpath, sizeof kpath, "%s/kernel.c", tmp);
    snprintf(hpath, sizeof hpath, "%s/host.c", tmp);
    remove(bin);
    remove(kpath);
    remove(hpath);
    rmdir(tmp);
    return rc;
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
    if (strcmp(argv[1], "check") == 0 && argc >= 3) {
        rc = cmd_check(ctx, argc, argv);
    } else if (strcmp(argv[1], "fmt") == 0 && argc == 3) {
        rc = cmd_fmt(ctx, argv[2]);
    } else if (strcmp(argv[1], "dump") == 0 && argc == 4) {
        rc = cmd_dump(ctx, argv[2], argv[3], 0);
    } else if (strcmp(argv[1], "dump") == 0 && argc == 6 && strcmp(argv[2], "--target") == 0) {
        if (strcmp(argv[3], "isa") != 0 && strcmp(argv[3], "sim") != 0) rc = usage_error("dump", "--target is sim or isa, not", argv[3]);
        else rc = cmd_dump(ctx, argv[4], argv[5], strcmp(argv[3], "isa") == 0);
    } else if (strcmp(argv[1], "sync") == 0 && argc == 3) {
        rc = cmd_sync(ctx, argv[2]);
    } else if (strcmp(argv[1], "emit") == 0 && argc >= 3) {
        rc = cmd_emit(ctx, argc, argv);
    } else if (strcmp(argv[1], "run") == 0 && argc >= 3) {
        rc = cmd_run(ctx, argc, argv);
    } else if (strcmp(argv[1], "plan") == 0 && argc >= 3) {
        rc = cmd_plan(ctx, argc, argv);
    } else {
        rc = usage_error(argv[1], wrong_args(argv[1]), argv[1]);
    }
    pto_ctx_destroy(ctx);
    return rc;
}
