/* ptoc.c - the pto command-line compiler.

   ptoc check FILE       every pass and the emitter; print diagnostics, write nothing
   ptoc fmt FILE         print the canonical .pto text of FILE, comments kept
   ptoc dump [--target sim|isa] STAGE FILE
                         print the IR after a stage (parse, verify, ...)
   ptoc plan [--tight] [--svg OUT.svg] FILE
                         plan memory; print the plan table and memory maps
   ptoc sync FILE        the IR after sync, each inserted sync with its dependency
   ptoc emit [--no-sync] [--tight] [--target sim|isa] FILE -o DIR
                         kernel.c and host.c of FILE in DIR (isa: kernel.cpp)
   ptoc run [--no-sync] [--tight] [--cc CC] [-D NAME=VALUE]... [--seed S] [--inputs grid|full] [--ranks N] [--max-instr N]
            [--trace F] FILE|DIR
                         emit (or take DIR as it is), compile, run on the
                         simulator, compare with the reference interpreter
   ptoc run --sweep [--sweep-runs N] [-D NAME=LO..HI[/STEP]]... [--ranks LO..HI] FILE|DIR
                         the same, compiled once and run at a few values of
                         each dynamic dim and integer scalar, picked to make
                         every loop run 0, 1, 2, 3 and more times than its
                         slots, every if go both ways (and a ranks kernel at
                         1, 2, 3, 4 and 5 ranks)
   ptoc --help

   A command line it cannot use gets "ptoc: error: WHAT" (a missing value,
   an unknown option, a second FILE) before the usage, exit status 1.

   Exit status: 0 on success, 1 when the input is wrong (a user error),
   2 when pto itself failed (an internal error: out of memory, a bug). */

#define PTO_IMPLEMENTATION
#include "../pto.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

/* The help text, in parts: C99 promises string literals of 4095
   characters only. usage_of finds a command's entry in any. */
#define USAGE_PARTS 4
static const char *const usage[USAGE_PARTS] = {
    "usage: ptoc COMMAND [OPTIONS] FILE\n"
    "\n"
    "commands:\n"
    "  check [--tight] [--target sim|isa] FILE\n"
    "                      parse, verify, plan memory, place syncs and emit for the\n"
    "                      target (default sim): every error emit would report (tiles\n"
    "                      that do not fit too); writes nothing\n"
    "  fmt FILE            print FILE in canonical .pto form, kernels and hosts in their\n"
    "                      order; every comment is kept (full-line ones before what\n"
    "                      follows them, ones after code after the item of their line)\n"
    "  dump [--target sim|isa] STAGE FILE\n"
    "                      print the IR after STAGE (parse | verify | lower | plan | sync);\n"
    "                      --target isa: as compiled for the isa target (its padding fills);\n"
    "                      FILE's `# run:` and `# sweep:` lines come first: the dump runs as\n"
    "                      FILE does\n"
    "  plan [--tight] [--svg OUT.svg] FILE\n"
    "                      plan memory: per kernel a table of tiles and a memory map\n"
    "                      per space; --tight ignores pipe conflicts; --svg draws the maps\n"
    "  sync FILE           plan and synchronise: every inserted set_flag / wait_flag /\n"
    "                      pipe_barrier with the dependency (tiles, bytes, kind) behind it\n"
    "  emit [--no-sync] [--tight] [--target sim|isa] FILE -o DIR\n"
    "                      write DIR/kernel.c and DIR/host.c (--target isa: DIR/kernel.cpp\n"
    "                      against the Ascend pto-isa C++ API, see docs/isa-target.md)\n",
    "  run [--no-sync] [--tight] [--cc CC] [-D NAME=VALUE]... [--seed S] [--inputs grid|full] [--ranks N]\n"
    "      [--max-instr N] [--trace F.json] FILE|DIR\n"
    "                      emit FILE (or take DIR as it is), compile with CC ($CC, cc),\n"
    "                      run on the simulator and compare with the reference interpreter;\n"
    "                      --inputs grid (the default) draws inputs that every sum keeps\n"
    "                      exact (floats: multiples of 1/512 in [-2, 2); i8 in [-20, 20],\n"
    "                      i32 in [-100, 100]), so a match cannot show a different order of\n"
    "                      adds, a conversion's rounding or an integer wrap; --inputs full\n"
    "                      draws floats with random mantissas (magnitudes 1/8 to 4) and\n"
    "                      integers over the whole dtype, where those show;\n"
    "                      --no-sync skips the sync pass: the kernel keeps only the\n"
    "                      set_flag / wait_flag / pipe_barrier written in FILE; --tight\n"
    "                      plans as plan --tight does (bytes shared across pipes);\n"
    "                      --ranks N runs ranks kernels on N ranks (default 2); --max-instr N\n"
    "                      stops a launch past N instructions (default 100000); a FILE's\n"
    "                      first `# run: -D N=64 --ranks 4` line gives defaults for -D,\n"
    "                      --ranks, --seed, --inputs and --max-instr that the command line\n"
    "                      overrides\n",
    "  run --sweep [--sweep-runs N] [-D NAME=LO..HI[/STEP]]... [--ranks LO..HI] [run's options] FILE|DIR\n"
    "                      compile FILE (or DIR as it is) once and run it at a few values of each dynamic\n"
    "                      dim and integer scalar (the others as -D gives them), one\n"
    "                      row per run (values, result, cycles). The values: each name\n"
    "                      is scanned over LO..HI (every STEP-th value with /STEP; default\n"
    "                      1..4096 for a dim, -4..4096 for a scalar) with the other names\n"
    "                      at their -D (else 64, 1: a note says so; a float scalar: 1.5)\n"
    "                      and the text evaluated at each value: the trip count of every\n"
    "                      for (0, 1, 2, 3, more than its tiles' or its ring's slots), the branch of\n"
    "                      every if, the side of every min / max, at the first and last\n"
    "                      iteration (the 2nd to 4th too, in the 3 outermost loops) and\n"
    "                      block, the block count of each blocks(...) (1,\n"
    "                      2, 3, 5 and more; whether blocks 0 and 1 both do GM work), the\n"
    "                      last block's valid(...) rows (full, partial, none), every\n"
    "                      valid(...) region (none, some, all of its rows and cols), how\n"
    "                      block 0's and block 1's load / store windows meet (overlap,\n"
    "                      touch, apart), and each window with its next iteration's in\n"
    "                      one block, and each notify / wait value (< 0, 0, 1, more).\n"
    "                      After the -D values' run, each run takes\n"
    "                      the value showing the most outcomes no run showed yet (ties:\n"
    "                      the most trailing zero bits, up to the -D value's, then the\n"
    "                      smallest), name by name, at most N runs (default 12). Then\n"
    "                      two names that steer loops or ifs nesting in or sharing a loop\n"
    "                      are run together (their small trip counts and branches\n"
    "                      combined, at most 8 runs more), and a note names each loop or\n"
    "                      if outcome no run showed. Values whose windows leave their\n"
    "                      tensor (under an if too: up to 8 iterations before a loop's\n"
    "                      last are judged), that launch no block, divide by zero or\n"
    "                      make a loop step <= 0 are not run; a run the harness\n"
    "                      refuses, or the reference interpreter refuses for a value the\n"
    "                      kernel has no meaning at (a window past its tensor, a rank\n"
    "                      out of range, a textract offset not whole fractals), is a row\n"
    "                      saying why, not a failure (unless it is the run at the -D\n"
    "                      values given for every name: that one fails as run does); a\n"
    "                      deadlock, a pipe's push / pop counts that do not meet, a race\n"
    "                      or a runaway loop fails wherever it is (but a race where the\n"
    "                      interpreter refused a window past its tensor is refused).\n"
    "                      A file with a ranks kernel is also run (every name at its\n"
    "                      -D) at 1, 2, 3, 4 and 5 ranks (those in --ranks LO..HI; its\n"
    "                      --ranks N is the base).\n"
    "                      A FILE's `# sweep: -D K=1..8 --ranks 2..8 --sweep-runs 20`\n"
    "                      line gives its domain (and the run count).\n"
    "                      Exit 0 when every run it made matched with no simulator report\n",   /* (split: C99 promises strings of 4095 characters only) */
    "  --help              this text\n"
    "  --version           the version\n"
    "\n"
    "exit status: 0 success, 1 error in the input, 2 internal error\n"};

static const char *const commands[] = {"check", "fmt", "dump", "plan", "sync", "emit", "run", NULL};

/* The usage lines of command cmd (its entry in `usage`, continuation lines
   included), or NULL when cmd is not a command. */
static size_t usage_len(const char *p, const char *cmd, size_t n);

static const char *usage_of(const char *cmd, size_t *len, int *part)
{
    size_t n = strlen(cmd);
    const char *p = NULL, *line;
    for (*part = 0; *part < USAGE_PARTS; ++*part) {   /* the lines that start "  CMD " */
        for (line = usage[*part]; line && !p; line = (line = strchr(line, '\n')) ? line + 1 : NULL)
            if (strncmp(line, "  ", 2) == 0 && strncmp(line + 2, cmd, n) == 0 && (line[2 + n] == ' ' || line[2 + n] == '\n'))
                p = line + 2;
        if (p) break;
    }
    if (!p) return NULL;
    *len = usage_len(p, cmd, n);
    return p;
}

/* The length of the entry at p: up to the next line that starts a command
   or an option at column 2 (a second entry of the same command, `run
   --sweep`, included), or the end of its part. */
static size_t usage_len(const char *p, const char *cmd, size_t n)
{
    const char *end;
    /* (strncmp stops at the text's end: the last entry of a part ends its string) */
    for (end = strchr(p, '\n'); end && (strncmp(end + 1, "   ", 3) == 0 ||
                                         (strncmp(end + 1, "  ", 2) == 0 && strncmp(end + 3, cmd, n) == 0 &&
                                          end[3 + n] == ' '));
         end = strchr(end + 1, '\n'))
        ;
    return end ? (size_t)(end + 1 - p) : strlen(p);
}

/* A command line ptoc cannot use: what is wrong with it, then the usage of
   that command (the whole text is one `ptoc --help` away). */
static int usage_error(const char *cmd, const char *what, const char *arg)
{
    size_t n = 0;
    int part = 0;
    const char *u = cmd ? usage_of(cmd, &n, &part) : NULL;
    const char *const *c;
    pto__ps_near near;
    fprintf(stderr, "ptoc: error: %s%s%s%s\n", what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    if (u) {
        fprintf(stderr, "usage: ptoc %.*s", (int)n, u);
        /* an entry that ends its part goes on when the next part starts with the same command
           (`run` and `run --sweep`: split for the 4095 characters) */
        while (!u[n] && ++part < USAGE_PARTS && strncmp(usage[part], "  ", 2) == 0 &&
               strncmp(usage[part] + 2, cmd, strlen(cmd)) == 0 && usage[part][2 + strlen(cmd)] == ' ') {
            u = usage[part] + 2;
            n = usage_len(u, cmd, strlen(cmd));
            fprintf(stderr, "  %.*s", (int)n, u);
        }
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
    struct stat sb;
    if (!f) return NULL;
    if (f != stdin && fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {   /* fopen takes a directory */
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
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
    if (ferror(f)) {
        int e = errno;
        free(data);
        if (f != stdin) fclose(f);
        errno = e;
        return NULL;
    }
    if (f != stdin) fclose(f);
    data[n] = 0;
    *len = n;
    return data;
}

/* path's text (a copy of given when the caller has read it already: a pipe
   or stdin gives its text once, review27 L2), NUL-terminated; NULL when it
   cannot be read (errno says why). The caller frees it. */
static char *text_of(const char *path, const char *given, size_t glen, size_t *len)
{
    char *t;
    if (!given) return read_all(path, len);
    if (!(t = (char *)malloc(glen + 1))) return NULL;
    memcpy(t, given, glen);
    t[glen] = 0;
    *len = glen;
    return t;
}

/* The status that a failed pass leaves: a user error unless the only
   diagnostics are internal. */
static int exit_code(pto_status st) { return st == PTO_ERR_INTERNAL ? 2 : st == PTO_OK ? 0 : 1; }

/* Why path could not be read; a directory (review26a M5: `ptoc check DIR`)
   points to `ptoc run DIR`, the one command that takes one. */
static void cannot_read(const char *path)
{
    int e = errno;
    fprintf(stderr, "ptoc: error: cannot read '%s': %s%s\n", path, strerror(e),
            e == EISDIR ? " (a directory that ptoc emit wrote runs with 'ptoc run DIR'; this command takes a .pto FILE)"
                        : "");
}

/* Emitted C given where a .pto file is read (review26a M5: `ptoc run
   DIR/kernel.c` was a parse error at '/'): said, pointing to its directory. */
static int emitted_c(const char *path)
{
    size_t n = strlen(path);
    if (!((n > 2 && strcmp(path + n - 2, ".c") == 0) || (n > 4 && strcmp(path + n - 4, ".cpp") == 0))) return 0;
    fprintf(stderr, "ptoc: error: '%s' is C, not a .pto file: run the directory ptoc emit wrote with 'ptoc run DIR'\n",
            path);
    return 1;
}

/* Parses the file at path; its text stays in *text when text is not NULL
   (the caller frees it). */
static pto_module *load_text(pto_ctx *ctx, const char *path, int *status, char **text, size_t *len)
{
    size_t n = 0;
    char *data = read_all(path, &n);
    pto_module *m;
    if (text) *text = NULL;
    if (!data) {
        cannot_read(path);
        *status = 1;
        return NULL;
    }
    if (emitted_c(path)) {
        free(data);
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
   staging tiles), comments kept, `# run:` too. A formatter that
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

static char *skip_bom(char *text);

/* The pipeline stages `ptoc dump` can stop after, in order. */
static const char *const dump_stages[] = {"parse", "verify", "lower", "plan", "sync"};

/* Runs the passes up to `stage` and prints the IR with what they computed
   (pto_dump: planned offsets per slot, the note of every inserted statement). */
static int cmd_dump(pto_ctx *ctx, const char *stage, const char *path, int isa)
{
    int status, last = -1, i;
    pto_module *m;
    pto_status st = PTO_OK;
    char *text = NULL;
    size_t len = 0;
    for (i = 0; i < (int)(sizeof dump_stages / sizeof dump_stages[0]); i++)
        if (strcmp(stage, dump_stages[i]) == 0) last = i;
    if (last < 0) {
        fprintf(stderr, "ptoc: error: unknown stage '%s' (stages: parse, verify, lower, plan, sync)\n", stage);
        return 1;
    }
    m = load_text(ctx, path, &status, &text, &len);
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
    if (m && st == PTO_OK) {
        /* the file's `# run:` and `# sweep:` lines first, as in the source: a dump run
           again (dump, edit, run) keeps the file's -D / --ranks defaults (review18 L5) */
        char *line, *end;
        for (line = text ? skip_bom(text) : NULL; line && *line; line = end ? end + 1 : NULL) {
            end = strchr(line, '\n');
            if (strncmp(line, "# run:", 6) == 0 || strncmp(line, "# sweep:", 8) == 0)
                printf("%.*s\n", (int)(end ? end - line : (long)strlen(line)), line);
        }
        st = write_text(ctx, m, pto_dump);
    }
    pto_module_destroy(m);
    free(text);
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
        /* the SVG's file first: one that cannot be written is the error, with no plan printed as if
           all went well (review27 L8) */
        FILE *f = svg ? fopen(svg, "w") : NULL;
        if (svg && !f) {
            fprintf(stderr, "ptoc: error: cannot write '%s': %s\n", svg, strerror(errno));
            st = PTO_ERR_USER;
        } else {
            pto_plan_report(m, &r, &out);
            fputs(out.data ? out.data : "", stdout);
        }
        if (f) {
            out.len = 0;
            pto_plan_svg(m, &out);
            if (fputs(out.data ? out.data : "", f) < 0 || fclose(f) != 0) {
                fprintf(stderr, "ptoc: error: cannot write '%s'\n", svg);
                st = PTO_ERR_USER;
            }
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
#define NOTE_UNCALLED 8 /* check: note each kernel no host calls (run notes it after running) */

/* The pipeline of `emit`: parse, the passes (pto_compile), emit. */
/* In a file with hosts, a run is the hosts' calls: a kernel none names
   is never run (review18 L11). check says so as run does, in a note. */
static void note_uncalled(pto_ctx *ctx, const pto_module *m)
{
    int32_t k;
    for (k = 0; m->n_hosts && k < m->n_kernels; k++)
        if (!pto_host_calls_of(m, k))
            fprintf(stderr, "note: kernel '%s' is called by no host: `ptoc run` will not run it (a file with hosts "
                    "runs its hosts' calls)\n", pto_str(ctx, m->kernels[k].name));
}

static pto_status compile_file(pto_ctx *ctx, const char *path, const char *given, size_t glen, int opts, pto_buf *ksrc,
                               pto_buf *hsrc)
{
    size_t len = 0;
    char *text = text_of(path, given, glen, &len);
    pto_module *m;
    pto_emit_desc ed;
    pto_compile_desc cd;
    pto_status st;
    if (!text) {
        cannot_read(path);
        return PTO_ERR_USER;
    }
    if (emitted_c(path)) {
        free(text);
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
    if (st == PTO_OK && (opts & NOTE_UNCALLED)) note_uncalled(ctx, m);
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
static int emit_to(pto_ctx *ctx, const char *path, const char *given, size_t glen, const char *dir, int opts)
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
    st = compile_file(ctx, path, given, glen, opts, &k, &h);
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
    st = compile_file(ctx, path, NULL, 0, opts | NOTE_UNCALLED, &k, &h);
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
    return emit_to(ctx, path, NULL, 0, dir, opts);
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

/* ---- run's object cache ------------------------------------------------------
   An emitted host.c includes pto.h with PTO_IMPLEMENTATION: the compiler and
   the reference interpreter, which are most of its compile time (about 2.9 s
   of 3.5 at -O0). ptoc run compiles that part once per pto.h, compiler and
   flags into an object in its cache, and builds host.c against it with
   PTO_IMPLEMENTATION_LINKED (about 0.8 s).

   The cache is $PTOC_CACHE, else $XDG_CACHE_HOME/ptoc, else $HOME/.cache/ptoc;
   PTOC_CACHE=off turns it off. An object's name is a hash of the bytes of the
   pto.h that host.c includes, the compiler's command and version and the flags. It is compiled
   under a temporary name and renamed into place, so runs in parallel share
   the cache safely. A hit refreshes the object's time; a miss removes the
   objects unused for 30 days. When anything fails (no cache directory, the
   object's compile, the link) the run builds host.c on its own, as before. */

#define CACHE_KEEP_SECS (30L * 24 * 3600)

/* mkdir -p for the cache's path; 1 when it is a directory. */
static int make_dirs(char *path)
{
    char *p;
    struct stat sb;
    for (p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    mkdir(path, 0755);
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int cache_dir(char *out, size_t size)
{
    const char *env = getenv("PTOC_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env && strcmp(env, "off") == 0) return 0;
    if (env && *env) snprintf(out, size, "%s", env);
    else if (xdg && *xdg == '/') snprintf(out, size, "%s/ptoc", xdg);
    else if (home && *home) snprintf(out, size, "%s/.cache/ptoc", home);
    else return 0;
    return make_dirs(out) && access(out, W_OK | X_OK) == 0;
}

/* FNV-1a over n bytes. */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = (const unsigned char *)data;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211u;
    return h;
}

/* The hash of a file's bytes folded into h; 0 when it cannot be read. */
static uint64_t hash_file(uint64_t h, const char *path)
{
    char chunk[65536];
    size_t n;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) h = hash_bytes(h, chunk, n);
    if (ferror(f)) h = 0;
    fclose(f);
    return h;
}

/* Removes the cache's objects (and leftover temporaries) unused for
   CACHE_KEEP_SECS. */
static void cache_prune(const char *cdir)
{
    DIR *d = opendir(cdir);
    struct dirent *e;
    time_t now = time(NULL);
    char path[4500];
    struct stat sb;
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "pto-", 4) != 0) continue;
        snprintf(path, sizeof path, "%s/%s", cdir, e->d_name);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && now - sb.st_mtime > CACHE_KEEP_SECS) unlink(path);
    }
    closedir(d);
}

/* What the compiler says of its version (cc --version; tcc -v), folded
   into h: an upgraded compiler of the same name gets objects of its own.
   h unchanged when it says nothing (the object still links: it is only
   compiled by the older one). */
static uint64_t hash_compiler(uint64_t h, const char *cc, int tcc, const char *work)
{
    char cmd[8192], path[4200];
    uint64_t v;
    snprintf(path, sizeof path, "%s/cc.version", work);
    cmd[0] = 0;
    shell_add(cmd, sizeof cmd, cc, NULL);
    shell_add(cmd, sizeof cmd, tcc ? " -v >" : " --version >", path);
    shell_add(cmd, sizeof cmd, " 2>&1", NULL);
    if (system(cmd) != 0) return h;
    v = hash_file(h, path);
    return v ? v : h;
}

/* The cached object of pto.h's implementation (in hdir) for compile command
   base (compiler cc and its flags) in obj: compiled now if missing, with
   work as scratch. 0 when there is none to use. */
static int cache_object(const char *cc, int tcc, const char *base, const char *hdir, const char *work, char *obj,
                        size_t size)
{
    char cdir[4096], path[4200], tmpobj[4700], cmd[16384];
    uint64_t h = hash_bytes(0xcbf29ce484222325u, "ptoc object cache 1", 19);
    FILE *f;
    h = hash_bytes(h, base, strlen(base) + 1);
    h = hash_compiler(h, cc, tcc, work);
    snprintf(path, sizeof path, "%s/pto.h", hdir);
    h = hash_file(h, path);
    if (h == 0 || !cache_dir(cdir, sizeof cdir)) return 0;
    snprintf(obj, size, "%s/pto-%016llx.o", cdir, (unsigned long long)h);
    if (file_exists("", obj)) {
        utime(obj, NULL);
        return 1;
    }
    snprintf(path, sizeof path, "%s/pto_impl.c", work);
    f = fopen(path, "w");
    if (!f) return 0;
    fputs("/* pto.h's implementation, for ptoc run's object cache */\n"
          "#define PTO_IMPLEMENTATION\n#include \"pto.h\"\n", f);
    if (fclose(f) != 0) return 0;
    snprintf(tmpobj, sizeof tmpobj, "%s.tmp%ld", obj, (long)getpid());
    cmd[0] = 0;
    shell_add(cmd, sizeof cmd, base, NULL);
    shell_add(cmd, sizeof cmd, " -I", hdir);
    shell_add(cmd, sizeof cmd, " -c -o ", tmpobj);
    shell_add(cmd, sizeof cmd, " ", path);
    /* its errors, if any, are the one-file build's too: that one shows them */
    snprintf(path, sizeof path, "%s/pto_impl.err", work);
    shell_add(cmd, sizeof cmd, " 2>", path);
    if (system(cmd) != 0 || rename(tmpobj, obj) != 0) {
        unlink(tmpobj);
        return 0;
    }
    cache_prune(cdir);
    return 1;
}

/* The command that builds host into bin with base (the compiler and its
   flags): against obj with PTO_IMPLEMENTATION_LINKED when obj is not NULL;
   stderr to err when err is not NULL. */
static void host_command(char *cmd, size_t size, const char *base, const char *inc, const char *bin, const char *host,
                         const char *obj, const char *err)
{
    snprintf(cmd, size, "%s%s", base, obj ? " -DPTO_IMPLEMENTATION_LINKED" : "");
    shell_add(cmd, size, " -I", inc);
    shell_add(cmd, size, " -o ", bin);
    shell_add(cmd, size, " ", host);
    if (obj) shell_add(cmd, size, " ", obj);
    shell_add(cmd, size, " -lm -lpthread", NULL);
    if (err) shell_add(cmd, size, " 2>", err);
}

/* Compiles DIR/host.c into BIN with $CC, against the cached object when
   there is one (work: a scratch directory); returns 0 on success. */
static int compile_dir(const char *cc, const char *inc, const char *dir, const char *bin, const char *work)
{
    char base[8192], cmd[16384], path[4200], obj[4600], err[4200];
    int linked = 0, rc;
    const char *name = strrchr(cc, '/');
    int tcc = strncmp(name ? name + 1 : cc, "tcc", 3) == 0;
    const char *flags = getenv("PTO_CFLAGS");
    base[0] = 0;
    shell_add(base, sizeof base, cc, NULL);
    shell_add(base, sizeof base, tcc ? "" : " -std=c99 -O0 -ffp-contract=off", NULL);
    if (flags) shell_add(base, sizeof base, " ", NULL), shell_add(base, sizeof base, flags, NULL);
    snprintf(path, sizeof path, "%s/host.c", dir);
    /* host.c includes a pto.h of its own directory before -I's */
    if (cache_object(cc, tcc, base, file_exists(dir, "pto.h") ? dir : inc, work, obj, sizeof obj)) {
        snprintf(err, sizeof err, "%s/cc.err", work);
        host_command(cmd, sizeof cmd, base, inc, bin, path, obj, err);
        if (system(cmd) == 0) {   /* its warnings (PTO_CFLAGS=-Wall on a hand edit) are the user's */
            size_t n = 0;
            char *w = read_all(err, &n);
            if (w && n) fputs(w, stderr);
            free(w);
            return 0;
        }
        linked = 1;   /* a hand edit's error or a bad object: the one-file build says which */
    }
    host_command(cmd, sizeof cmd, base, inc, bin, path, NULL, NULL);
    rc = system(cmd);
    if (rc == 0 && linked) unlink(obj);   /* host.c was fine: the object was not */
    return rc;
}

/* ---- run --sweep -------------------------------------------------------------
   A run judges the trip counts of its one set of -D values; the sync pass
   claims its flags are right for every trip count of every loop, zero
   included. The sweep puts that claim to the simulator: the kernel is
   emitted and compiled once, then run at a few values of each dynamic dim
   and integer scalar (a name; -D binds every kernel's and host's of that
   name), chosen from what the values steer.

   How the values are picked. Each name is scanned over LO..HI (a -D
   NAME=LO..HI[/STEP] or a `# sweep:` line; else a dim 1..SW_HI, an integer scalar
   -4..SW_HI, i8 up to 127) with every other name at its base value (its -D,
   else 64 for a dim and 1 for a scalar), and the kernels are walked at
   every value, evaluating what the text can (sw_walk): the trip count of
   each `for` (classed 0, 1, 2, 3, more than the slot count of the tiles
   declared in its body, or 4 up to that count; and whether it is more than
   the slots of a cube/vector ring it pushes or pops), the branch each `if`
   takes (and whether its loop's first and last iterations take different
   ones: `if i >= Z` with Z inside the trip count), which side each min /
   max picks (in a let, a valid(...) or a bound), and whether each tensor
   with a dynamic col dim has rows of whole 32-byte blocks (the
   simulator's unit of GM races), and if not, whether two or more cores may
   write it (sw_rows: the race needs two). The body of a loop is
   walked at its first and its last iteration and the kernel at its first
   and its last block, so a triangular loop, an `if i == n - 1` or a tail
   block's valid region are seen; an outcome is kept with that context (a
   behaviour: statement, outcome, first / last). The block count of each
   kernel with a blocks(...) is a behaviour too (1, 2, 3, 5 and more: the
   bugs of a pipe ring sharded per block, of a last block, of a buffer sized
   for one block show only past one; and whether blocks 0 and 1 both do GM
   work there, review23 M1), and in the last block (of two or more)
   whether each valid(...) tile has all its rows, some or none: the tail.
   Every valid(...) region is classed too (none, some, all of its rows and
   of its cols), how block 0's and block 1's window of each load / store
   meet (overlap, touch, apart: sw_meet; for a store, whether they write
   different bytes of one 32-byte block, review27 M1), how each window at
   its loop's first iteration meets its window at the 2nd in one block
   (same, overlap, touch, apart: sw_step_meet, review28 M4) and each notify /
   wait value, so a name used only there is varied (review23 M2). In
   a file with hosts, the host's names are swept (a -D of a callee's dim
   reaches nothing the host runs) and each call binds its kernel's dims and
   scalars from its arguments before the kernel is walked. A value whose load or
   store window leaves its tensor at a walked point, that launches no
   block, divides by zero or gives a loop a step <= 0 (on a path the walk
   knows is taken) is marked refused (key 0) and never run; in a loop with
   an if around a load or store, up to SW_NEAR iterations before the last
   are walked for refusals only (sw_near_last, review28 M6). The base run comes first;
   then, name by name in turn, the value showing the most behaviours that
   no run of that name (or the base run) has shown, ties going to the value
   with the most trailing zero bits (up to those of the base value: 16, 32,
   48 over 17, 33, 49 when the base is 64) and then to the smaller one. A
   value set that the harness refuses, or the reference interpreter refuses
   as outside the kernel's domain (a division by zero, a textract offset that
   is not whole fractals, a rank out of range: sw_domain_error) with no
   deadlock, race or ring imbalance from the simulator, is a row that says
   why, and neither a pass nor a failure; its behaviours are tried with one
   other value, then given up (the last lines say how many, and how many the
   run budget left unshown). A deadlock, a pipe's counts that do not meet or
   the instruction budget are failures (review22 H1). Names that steer one
   block count together (a 2-D grid) are then also run together: sw_joint.
   A file with a ranks kernel is last run at the other rank counts of 1, 2,
   3, 4 and 5 or more (in --ranks LO..HI), every name at its base value
   (sw_rank_counts; review22 M2). The 2nd to 4th iterations of the three
   outermost loops are walked too (review26 H1: an if under `if i % 2 == 1`
   was judged nowhere), names are combined two at a time (sw_combine, review26
   H2), and each loop or if outcome no run showed gets a note (sw_class_notes,
   review26 B-L2). */

#define SW_MAXN 16            /* names swept (the rest stay at their base) */
#define SW_HI 4096            /* the scan's top value */
#define SW_DIM_MAX 4611686018427387904LL   /* 2^62: the harness's largest dim */
#define SW_VISITS 20000       /* statements one walk visits at most */
#define SW_DEPTH 6            /* nested loops whose last iteration is walked too */
#define SW_INTERIOR 3         /* interior iterations walked besides the first and the last ... */
#define SW_DEPTH_INTERIOR 3   /* ... in the loops nested this deep */
#define SW_NEAR 8             /* iterations before the last whose refusals count (a loop with an if around a window) */

typedef struct sw_set {       /* a set of behaviours: keys, sorted when frozen */
    uint64_t *k;
    int32_t n, cap;
} sw_set;

typedef struct sweep {
    pto_ctx *ctx;
    const pto_module *m;
    int n;                              /* names */
    int32_t name[SW_MAXN];              /* interned */
    int64_t base[SW_MAXN], lo[SW_MAXN], hi[SW_MAXN], cur[SW_MAXN];
    int64_t step[SW_MAXN];              /* the scan's stride over LO..HI (NAME=LO..HI/STEP; 1) */
    int cap[SW_MAXN];                   /* trailing zero bits that still count as rounder */
    int dim[SW_MAXN];
    int steers[SW_MAXN];                /* behaviours that change with it */
    int64_t *val;                       /* per var: value during a walk */
    unsigned char *known;
    int64_t *tvr, *tvc;                 /* per tile: its valid rows and cols at its declaration (-1: unknown) */
    int32_t *if_walk;                   /* per statement (an if): the loop walk whose first iteration saw it */
    unsigned char *if_first;            /* ... and the branch it took there */
    int32_t walk, nwalks;               /* the innermost loop's walk (its first and last iteration), counter */
    int64_t block, blocks, nranks;
    int64_t runranks;                   /* > 0: the runs take --ranks runranks (a file with a ranks kernel) */
    int ctxbits;                        /* 1: in the last iteration of the innermost loop; 2: in the last block */
    int guess;                          /* > 0: inside an if or loop whose outcome is unknown (both ways walked) */
    int interior;                       /* > 0: in an interior iteration of a loop (no if first/last record) */
    int blocks_known;
    int given;                          /* every name's base value is the user's -D (or # run:) */
    long visits;
    long work;                          /* GM work the walk met (loads, stores of rows, pipes, signals) */
    int probe;                          /* walking block 1 only to compare it with block 0: no keys but kind 9 */
    int refusing;                       /* > 0: a walk of the iterations just before a loop's last, keying refusals only */
    long rvisits;                       /* statements those walks visited (their own budget: the other walks' is kept) */
    int iter;                           /* the innermost loop's iteration walked: 0 the first, 1 the 2nd, -1 another */
    int32_t *iwalk;                     /* per statement: the loop walk whose first iteration's window iwin holds */
    int64_t *iwin;                      /* per statement: that window's row, col, rows, cols */
    unsigned char *ifgm;                /* per statement (a for): its body has an if with a load or store in it */
    int32_t gen;                        /* the kernel walk that block 0's windows below belong to */
    int32_t *wgen;                      /* per statement: the gen its window was recorded in */
    int64_t *win;                       /* per statement: block 0's window row, col, rows, cols */
    sw_set *out;                        /* the walk's behaviours */
    int64_t *hist;                      /* the value sets of the runs made and accepted, SW_MAXN each */
    int32_t nhist, hcap;
    long long tvisits;                  /* statements visited by every walk: the combination search's budget */
    const char *rerun;                  /* the options of the compile (--no-sync, --tight, --cc), shell-quoted:
                                           the rerun lines carry them, the runs of the built program do not */
    int oom;
} sweep;

/* What a sweep holds at its end, its module and text: given back. */
static void sw_free(sweep *s, pto_module *m, char *text)
{
    pto_free(s->ctx, s->val);
    pto_free(s->ctx, s->known);
    pto_free(s->ctx, s->tvr);
    pto_free(s->ctx, s->tvc);
    pto_free(s->ctx, s->if_walk);
    pto_free(s->ctx, s->if_first);
    pto_free(s->ctx, s->wgen);
    pto_free(s->ctx, s->win);
    pto_free(s->ctx, s->iwalk);
    pto_free(s->ctx, s->iwin);
    pto_free(s->ctx, s->ifgm);
    pto_free(s->ctx, s->hist);
    pto_module_destroy(m);
    free(text);
}

/* Value j of name i's scan. */
static int64_t sw_at(const sweep *s, int i, int32_t j) { return s->lo[i] + (int64_t)j * s->step[i]; }

/* Room for one more key in an array of n (doubling; s->oom when none). */
static int sw_room(sweep *s, uint64_t **k, int32_t *cap, int32_t n)
{
    int32_t c;
    uint64_t *p;
    if (n < *cap) return 1;
    c = *cap ? *cap * 2 : 32;
    if (!(p = (uint64_t *)pto_realloc(s->ctx, *k, (size_t)c * sizeof *p))) { s->oom = 1; return 0; }
    *k = p;
    *cap = c;
    return 1;
}

static void sw_add(sweep *s, int kind, int32_t id, int cls)
{
    sw_set *o = s->out;
    /* kind 0 is the one "refused" key, whatever the context: it sorts first */
    uint64_t key = kind ? ((uint64_t)kind << 56) | ((uint64_t)(uint32_t)id << 8) | ((uint64_t)s->ctxbits << 4) | (uint64_t)cls : 0;
    int32_t i;
    if ((s->probe && kind != 9) || (s->refusing && kind != 0)) return;
    for (i = 0; i < o->n; i++)
        if (o->k[i] == key) return;
    if (!sw_room(s, &o->k, &o->cap, o->n)) return;
    o->k[o->n++] = key;
}

/* The value of expression e at the walk's point, C semantics on 64 bits
   (wrapping); 0 when it depends on something unknown or divides by 0. */
static int sw_eval(sweep *s, int32_t e, int64_t *out)
{
    const pto_expr *x;
    int64_t a = 0, b = 0;
    if (e < 0 || e >= s->m->n_exprs) return 0;
    x = &s->m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: *out = x->value; return 1;
    case PTO_E_VAR:
        if (x->a < 0 || x->a >= s->m->n_vars || !s->known[x->a]) return 0;
        *out = s->val[x->a];
        return 1;
    case PTO_E_BLOCK: *out = s->block; return 1;
    case PTO_E_BLOCKS: *out = s->blocks; return s->blocks_known;
    case PTO_E_SUBBLOCK: case PTO_E_RANK: *out = 0; return 1;
    case PTO_E_NRANKS: *out = s->nranks; return 1;
    case PTO_E_NEG:
        if (!sw_eval(s, x->a, &a)) return 0;
        *out = (int64_t)(0 - (uint64_t)a);
        return 1;
    default: break;
    }
    if (!sw_eval(s, x->a, &a) || !sw_eval(s, x->b, &b)) return 0;
    switch (x->kind) {
    case PTO_E_ADD: *out = (int64_t)((uint64_t)a + (uint64_t)b); return 1;
    case PTO_E_SUB: *out = (int64_t)((uint64_t)a - (uint64_t)b); return 1;
    case PTO_E_MUL: *out = (int64_t)((uint64_t)a * (uint64_t)b); return 1;
    case PTO_E_DIV:
    case PTO_E_MOD:
        if (b == 0 && !s->guess) sw_add(s, 0, 0, 0);   /* the interpreter refuses the run */
        if (b == 0 || (b == -1 && a == INT64_MIN)) return 0;
        *out = x->kind == PTO_E_DIV ? a / b : a % b;
        return 1;
    case PTO_E_MIN:
    case PTO_E_MAX:
        sw_add(s, 3, e, a < b ? 0 : a == b ? 1 : 2);
        *out = (x->kind == PTO_E_MIN) == (a < b) ? a : b;
        return 1;
    default: return 0;
    }
}

/* The most slots of a tile declared in a loop body: past that many trips a
   slot (and its rotating event id) comes round again. */
static int sw_period(const pto_module *m, int32_t body)
{
    int32_t st;
    int p = 1;
    for (st = m->blocks[body].head; st >= 0; st = m->stmts[st].next)
        if (m->stmts[st].kind == PTO_ST_TILE && m->tiles[m->stmts[st].ref].nbuf > p) p = m->tiles[m->stmts[st].ref].nbuf;
    return p;
}

/* The ring slots of the cube/vector pipes a loop body pushes or pops
   (in ifs too): past that many trips the ring comes round. */
static int sw_ring_period(const pto_module *m, int32_t body, int depth)
{
    int32_t st;
    int p = 1, q;
    if (body < 0 || depth > 8) return p;
    for (st = m->blocks[body].head; st >= 0; st = m->stmts[st].next) {
        const pto_stmt *x = &m->stmts[st];
        if (x->kind == PTO_ST_IF) {
            q = sw_ring_period(m, x->body, depth + 1);
            if (q > p) p = q;
            q = sw_ring_period(m, x->orelse, depth + 1);
            if (q > p) p = q;
        } else if (x->kind == PTO_ST_OP && pto_opinfo_get((pto_op)x->op)->cls == PTO_OC_CVPIPE) {
            const pto_operand *o = pto_stmt_arg(m, st, x->op == PTO_OP_TPOP ? 1 : 0);
            if (o && o->kind == PTO_O_CVPIPE && o->ref >= 0 && o->ref < m->n_cvpipes && m->cvpipes[o->ref].slot_num > p)
                p = m->cvpipes[o->ref].slot_num;
        }
    }
    return p;
}

static int sw_trip_class(uint64_t t, int period)
{
    if (t <= 3) return (int)t;
    return (int)t > period ? 4 : 5;
}

/* Whether two windows of one tensor (rows of `cols` elements of `size`
   bytes; a window: row, col, rows, cols) hold different bytes of one
   32-byte block: each window's rows are increasing runs of bytes, merged
   as the verifier's pto__vxmeet does. The simulator's unit of a GM race
   is that block, so two blocks' stores that share one race although no
   element is written twice (review27 M1: rows of 84 bytes in shares of 4
   rows, 336 bytes, split a block at every boundary between blocks). */
static int sw_share32(const int64_t *a, const int64_t *b, int64_t cols, int64_t size)
{
    int64_t ra = a[0], rb = b[0];
    long steps = 1L << 16;
    while (ra < a[0] + a[2] && rb < b[0] + b[2] && --steps > 0) {
        int64_t a0 = (ra * cols + a[1]) * size / 32, a1 = ((ra * cols + a[1] + a[3]) * size - 1) / 32;
        int64_t b0 = (rb * cols + b[1]) * size / 32, b1 = ((rb * cols + b[1] + b[3]) * size - 1) / 32;
        if (a1 < b0) ra++;
        else if (b1 < a0) rb++;
        else return 1;
    }
    return 0;
}

/* Block 0's window of load / store st (its first iteration), and block 1's
   against it: whether they overlap (0), touch (1: share an edge, the case
   where two blocks' rows meet in one 32-byte block of GM) or lie apart (2);
   for a store whose windows do not overlap, 3 when they hold different
   bytes of one 32-byte block of GM (sw_share32: the race of rows that are
   not whole blocks, which depends on a block's share, rows x row bytes, at
   its boundary, not on the row width alone). A name that only moves
   windows (a stride, an offset) steers nothing else, and these are the
   cases it changes (review23 M2). cols, size: the tensor's row in
   elements and its element's bytes (0: no byte test). */
static void sw_meet(sweep *s, int32_t st, int64_t r, int64_t c, int64_t nr, int64_t nc, int64_t cols, int64_t size)
{
    int64_t *w, gr, gc, b[4];   /* gr, gc: the gaps between the windows, per dimension (< 0: overlap) */
    int ctx, cls;
    if (!s->win || nr <= 0 || nc <= 0) return;
    w = s->win + 4 * (size_t)st;
    if (s->block == 0) {
        s->wgen[st] = s->gen;
        w[0] = r, w[1] = c, w[2] = nr, w[3] = nc;
        return;
    }
    if (s->block != 1 || s->wgen[st] != s->gen) return;
    gr = r >= w[0] ? r - (w[0] + w[2]) : w[0] - (r + nr);
    gc = c >= w[1] ? c - (w[1] + w[3]) : w[1] - (c + nc);
    cls = gr < 0 && gc < 0 ? 0 : (gr <= 0 && gc <= 0) ? 1 : 2;
    b[0] = r, b[1] = c, b[2] = nr, b[3] = nc;
    if (cls && size > 0 && sw_share32(w, b, cols, size)) cls = 3;
    ctx = s->ctxbits;   /* one outcome whichever walk saw block 1 (the last block's, or the probe) */
    s->ctxbits = 0;
    sw_add(s, 9, st, cls);
    s->ctxbits = ctx;
}

/* The window of load / store st at its innermost loop's first iteration
   against its window at the 2nd, within one block: the same (0: a stride
   of 0 rewrites them), overlapping (1), touching (2) or apart (3). A
   stride that only moves a block's windows from one iteration to the next
   (`y[i * S, 0]`: S = 0, below the tile's rows, at or above them) changes
   what the sync pass must order through GM within the block, where no
   block 0 / block 1 comparison sees it (review28 M4: S was said to steer
   no window and was never varied). */
static void sw_step_meet(sweep *s, int32_t st, int64_t r, int64_t c, int64_t nr, int64_t nc)
{
    int64_t *w, gr, gc;
    int ctx, cls;
    if (!s->iwin || !s->walk || s->iter < 0 || s->probe || nr <= 0 || nc <= 0) return;
    w = s->iwin + 4 * (size_t)st;
    if (s->iter == 0) {
        s->iwalk[st] = s->walk;
        w[0] = r, w[1] = c, w[2] = nr, w[3] = nc;
        return;
    }
    if (s->iwalk[st] != s->walk) return;
    gr = r >= w[0] ? r - (w[0] + w[2]) : w[0] - (r + nr);
    gc = c >= w[1] ? c - (w[1] + w[3]) : w[1] - (c + nc);
    cls = r == w[0] && c == w[1] && nr == w[2] && nc == w[3] ? 0 : gr < 0 && gc < 0 ? 1 : gr <= 0 && gc <= 0 ? 2 : 3;
    ctx = s->ctxbits;   /* one outcome whichever block showed it */
    s->ctxbits = 0;
    sw_add(s, 11, st, cls);
    s->ctxbits = ctx;
}

/* Whether op st does GM work at the walk's point: a load or store of a
   non-empty region (or one the walk cannot tell), any other GM access,
   a pipe op. A block count whose blocks do none is no block count worth a
   run (review23 M1: "5 blocks" was shown by a value where every block
   past the first had no rows). */
static void sw_work(sweep *s, int32_t st)
{
    const pto_module *m = s->m;
    const pto_stmt *x = &m->stmts[st];
    int cls = pto_opinfo_get((pto_op)x->op)->cls, i;
    if (cls == PTO_OC_LOAD || cls == PTO_OC_STORE) {
        const pto_operand *t = pto_stmt_arg(m, st, cls == PTO_OC_LOAD ? 0 : 1);
        if (t && t->kind == PTO_O_TILE && t->ref >= 0 && t->ref < m->n_tiles &&
            (s->tvr[t->ref] == 0 || s->tvc[t->ref] == 0))
            return;
        s->work++;
        return;
    }
    if (cls == PTO_OC_CVPIPE || cls == PTO_OC_NOTIFY || cls == PTO_OC_WAIT) { s->work++; return; }
    for (i = 0; i < x->nargs; i++) {
        const pto_operand *o = pto_stmt_arg(m, st, i);
        if (o && o->kind == PTO_O_GM) { s->work++; return; }
    }
}

/* A notify's or wait's value, classed: < 0, 0, 1, 2 and up to i32, past
   i32 (a counter and a flag cell behave apart at 0 and 1). */
static void sw_signal(sweep *s, int32_t st)
{
    const pto_module *m = s->m;
    const pto_stmt *x = &m->stmts[st];
    const pto_operand *o;
    int64_t v;
    if (x->op != PTO_OP_NOTIFY && x->op != PTO_OP_WAIT) return;
    o = pto_stmt_arg(m, st, x->op == PTO_OP_NOTIFY ? 1 : 2);
    if (!o || o->kind != PTO_O_INT || s->guess || !sw_eval(s, o->e[0], &v)) return;
    sw_add(s, 10, st, v < 0 ? 0 : v == 0 ? 1 : v == 1 ? 2 : v <= 2147483647 ? 3 : 4);
}

/* A load or store whose window the values put outside its tensor: the
   reference interpreter would refuse the run (as pto__window does), so the
   value is not tried (behaviour key 0 marks it). */
static void sw_window(sweep *s, int32_t st)
{
    const pto_module *m = s->m;
    const pto_stmt *x = &m->stmts[st];
    int cls = pto_opinfo_get((pto_op)x->op)->cls, gi, ti, d;
    const pto_operand *g, *t;
    const pto_param *p;
    int64_t r, c, ext[2];
    if (cls != PTO_OC_LOAD && cls != PTO_OC_STORE) return;
    gi = cls == PTO_OC_LOAD ? 1 : 0;
    ti = 1 - gi;
    g = pto_stmt_arg(m, st, gi);
    t = pto_stmt_arg(m, st, ti);
    if (!g || !t || g->kind != PTO_O_GM || t->kind != PTO_O_TILE || g->ref < 0 || g->ref >= m->n_params ||
        t->ref < 0 || t->ref >= m->n_tiles || s->tvr[t->ref] <= 0 || s->tvc[t->ref] <= 0)
        return;
    p = &m->params[g->ref];
    for (d = 0; d < 2; d++) {
        ext[d] = p->dim[d];
        if (ext[d] < 0 && (p->dim_var[d] < 0 || !s->known[p->dim_var[d]])) return;
        if (ext[d] < 0) ext[d] = s->val[p->dim_var[d]];
    }
    if (!sw_eval(s, g->e[0], &r) || !sw_eval(s, g->e[1], &c) || s->guess) return;
    if (r < 0 || c < 0 || r > ext[0] - s->tvr[t->ref] || c > ext[1] - s->tvc[t->ref]) {
        sw_add(s, 0, 0, 0);
        return;
    }
    sw_step_meet(s, st, r, c, s->tvr[t->ref], s->tvc[t->ref]);   /* inside its tensor: no sum below can overflow */
    if (!(s->ctxbits & 1)) {
        /* a store's bytes, when the tensor's bytes fit well inside int64 (sw_share32's products) */
        int64_t size = pto_dtype_size((pto_dtype)p->dtype);
        int bytes = cls == PTO_OC_STORE && ext[1] > 0 && ext[0] <= ((int64_t)1 << 58) / ext[1] / 8;
        sw_meet(s, st, r, c, s->tvr[t->ref], s->tvc[t->ref], ext[1], bytes ? size : 0);
    }
}

/* An if whose innermost loop takes it at its last iteration but not at
   its first, or the other way round (`if i >= Z` in `for i = 0 to T`, Z
   inside 1..T - 1): a run where some iterations skip the branch and others
   take it. That is the case a flag pair placed inside the if (or around it)
   must survive, and neither outcome alone shows it: it is a behaviour of
   its own (class 2). */
static void sw_if_mixed(sweep *s, int32_t st, int c)
{
    if (!s->walk || s->guess || s->interior) return;
    if (!(s->ctxbits & 1)) {
        s->if_walk[st] = s->walk;
        s->if_first[st] = (unsigned char)c;
    } else if (s->if_walk[st] == s->walk && s->if_first[st] != c) {
        sw_add(s, 2, st, 2);
    }
}

/* Whether block blk holds, at any depth, an if with a load or store in
   one of its branches (`under`: blk is such a branch). */
static int sw_if_gm(const pto_module *m, int32_t blk, int under, int depth)
{
    int32_t st;
    if (blk < 0 || blk >= m->n_blocks) return 0;
    if (depth > 64) return 1;   /* (deeper than any kernel: walk it) */
    for (st = m->blocks[blk].head; st >= 0; st = m->stmts[st].next) {
        const pto_stmt *x = &m->stmts[st];
        int cls;
        if (x->kind == PTO_ST_IF) {
            if (sw_if_gm(m, x->body, 1, depth + 1) || sw_if_gm(m, x->orelse, 1, depth + 1)) return 1;
        } else if (x->kind == PTO_ST_FOR || x->kind == PTO_ST_SECTION) {
            if (sw_if_gm(m, x->body, under, depth + 1)) return 1;
        } else if (x->kind == PTO_ST_OP && under) {
            cls = pto_opinfo_get((pto_op)x->op)->cls;
            if (cls == PTO_OC_LOAD || cls == PTO_OC_STORE) return 1;
        }
    }
    return 0;
}

static void sw_walk(sweep *s, int32_t blk, int depth);

/* The iterations just before loop st's last (up to SW_NEAR of them, those
   not walked as interior ones), when its body has an if around a load or
   store: only their refusals count (a window past its tensor, a division
   by zero). A window under `if t % 2 == 0` that the last iteration skips
   is reached by the one before it (review28 M6: the sweep ran values whose
   windows there left the tensor and failed a correct kernel on the bounds
   errors and the race that followed). Walking the skipped branch instead
   would refuse the guarded look-ahead `if t < T - 1 { tload x[t + 1] }` at
   every value. */
static void sw_near_last(sweep *s, int32_t st, int64_t a, int64_t step, uint64_t t, int outer, int depth)
{
    const pto_stmt *x = &s->m->stmts[st];
    uint64_t k, it;
    if (s->refusing || s->guess || !s->ifgm || !s->ifgm[st] || depth >= SW_DEPTH) return;
    s->refusing++;
    s->interior++;
    for (k = 1; k <= SW_NEAR && k + 1 < t && !s->oom; k++) {
        it = t - 1 - k;
        if (depth < SW_DEPTH_INTERIOR && it <= SW_INTERIOR) continue;   /* walked already */
        s->val[x->ref] = (int64_t)((uint64_t)a + it * (uint64_t)step);
        s->known[x->ref] = 1;
        s->ctxbits = outer | 1;
        s->iter = -1;
        sw_walk(s, x->body, depth + 1);
    }
    s->interior--;
    s->refusing--;
}

/* None (0), some (1) or all (2) of n. */
static int sw_part(int64_t v, int64_t n) { return v <= 0 ? 0 : v < n ? 1 : 2; }

static void sw_walk(sweep *s, int32_t blk, int depth)
{
    const pto_module *m = s->m;
    int32_t st;
    if (blk < 0 || blk >= m->n_blocks) return;
    for (st = m->blocks[blk].head; st >= 0 && !s->oom; st = m->stmts[st].next) {
        const pto_stmt *x = &m->stmts[st];
        int64_t a, b, step = 1, c;
        uint64_t it;
        int ka, kb;
        if (s->refusing ? ++s->rvisits > SW_VISITS : ++s->visits > SW_VISITS) return;
        if (!s->refusing) s->tvisits++;
        switch (x->kind) {
        case PTO_ST_LET:
            s->known[x->ref] = (unsigned char)sw_eval(s, x->e[0], &s->val[x->ref]);
            break;
        case PTO_ST_TILE: {
            const pto_tile *tl = &m->tiles[x->ref];
            s->tvr[x->ref] = tl->valid_r < 0 ? tl->rows : sw_eval(s, tl->valid_r, &a) ? a : -1;
            s->tvc[x->ref] = tl->valid_c < 0 ? tl->cols : sw_eval(s, tl->valid_c, &b) ? b : -1;
            if (!s->guess && ((tl->valid_r >= 0 && s->tvr[x->ref] != -1 && (s->tvr[x->ref] < 0 || s->tvr[x->ref] > tl->rows)) ||
                              (tl->valid_c >= 0 && s->tvc[x->ref] != -1 && (s->tvc[x->ref] < 0 || s->tvc[x->ref] > tl->cols))))
                sw_add(s, 0, 0, 0);   /* the interpreter refuses a valid region outside the shape */
            if ((s->ctxbits & 2) && tl->valid_r >= 0 && s->tvr[x->ref] >= 0 && !s->guess)   /* the tail block's rows */
                sw_add(s, 7, st, s->tvr[x->ref] == 0 ? 0 : s->tvr[x->ref] < tl->rows ? 1 : 2);
            /* a valid(...) anywhere: none, some or all of its rows and of its cols (review23 M2: a
               name used only there was never varied) */
            if ((tl->valid_r >= 0 || tl->valid_c >= 0) && s->tvr[x->ref] >= 0 && s->tvc[x->ref] >= 0 && !s->guess)
                sw_add(s, 8, st, sw_part(s->tvr[x->ref], tl->rows) * 3 + sw_part(s->tvc[x->ref], tl->cols));
            break;
        }
        case PTO_ST_OP:
            sw_window(s, st);
            if (!s->refusing) sw_work(s, st);
            sw_signal(s, st);
            break;
        case PTO_ST_FOR:
            ka = sw_eval(s, x->e[0], &a);
            kb = sw_eval(s, x->e[1], &b);
            if (ka && kb && (x->e[2] < 0 || sw_eval(s, x->e[2], &step)) && step > 0) {
                uint64_t d = b > a ? (uint64_t)b - (uint64_t)a : 0, t = d / (uint64_t)step + (d % (uint64_t)step != 0);
                int per = sw_period(m, x->body), ring = sw_ring_period(m, x->body, 0);
                sw_add(s, 1, st, sw_trip_class(t, per));
                if (ring > 1) sw_add(s, 5, st, t > (uint64_t)ring);   /* the pipe's ring comes round */
                int outer = s->ctxbits, outer_iter = s->iter;
                int32_t outer_walk = s->walk;
                s->walk = ++s->nwalks;   /* the ifs of this body compare its first and last iteration */
                if (t >= 1) {
                    s->val[x->ref] = a;
                    s->known[x->ref] = 1;
                    s->ctxbits = outer & ~1;
                    s->iter = 0;
                    sw_walk(s, x->body, depth + 1);
                }
                if (t >= 2 && depth < SW_DEPTH) {
                    s->val[x->ref] = (int64_t)((uint64_t)a + (t - 1) * (uint64_t)step);
                    s->known[x->ref] = 1;
                    s->ctxbits = outer | 1;
                    s->iter = t == 2 ? 1 : -1;
                    sw_walk(s, x->body, depth + 1);
                }
                /* the interior iterations too (review26 H1: an if or loop under `if i % 2 == 1`, with
                   the first and last iterations even, was judged nowhere and its names varied never):
                   the 2nd .. (SW_INTERIOR + 1)th, keyed as the first (after the last: an if's
                   first-and-last comparison is made) */
                for (it = 1; it <= SW_INTERIOR && it + 1 < t && depth < SW_DEPTH_INTERIOR; it++) {
                    s->val[x->ref] = (int64_t)((uint64_t)a + it * (uint64_t)step);
                    s->known[x->ref] = 1;
                    s->ctxbits = outer & ~1;
                    s->iter = it == 1 ? 1 : -1;
                    s->interior++;
                    sw_walk(s, x->body, depth + 1);
                    s->interior--;
                }
                sw_near_last(s, st, a, step, t, outer, depth);
                s->ctxbits = outer;
                s->iter = outer_iter;
                s->walk = outer_walk;
            } else {
                if (ka && kb && !s->guess && (x->e[2] < 0 || sw_eval(s, x->e[2], &step)) && step <= 0)
                    sw_add(s, 0, 0, 0);   /* the interpreter refuses a step that is not positive */
                s->known[x->ref] = 0;
                s->guess++;
                sw_walk(s, x->body, depth + 1);
                s->guess--;
            }
            break;
        case PTO_ST_IF:
            if (sw_eval(s, x->e[0], &a) && sw_eval(s, x->e[1], &b)) {
                switch (x->cmp) {
                case PTO_EQ: c = a == b; break;
                case PTO_NE: c = a != b; break;
                case PTO_LT: c = a < b; break;
                case PTO_LE: c = a <= b; break;
                case PTO_GT: c = a > b; break;
                default: c = a >= b; break;
                }
                sw_add(s, 2, st, (int)c);
                sw_if_mixed(s, st, (int)c);
                sw_walk(s, c ? x->body : x->orelse, depth);
            } else {
                s->guess++;
                sw_walk(s, x->body, depth);
                sw_walk(s, x->orelse, depth);
                s->guess--;
            }
            break;
        case PTO_ST_SECTION:
            sw_walk(s, x->body, depth);
            break;
        default: break;
        }
    }
}

/* Kernel kn's tensors with a dynamic col dim: whether their rows are whole
   32-byte blocks (the simulator's unit of GM races: windows on different
   rows can share a block), classed with the cores that may write them: 1
   whole blocks; 0 not, with two or more blocks or a mix kernel's two vector
   cores (the race needs two writers: a run with one block does not show
   it); 2 not, on one core; 3 not, with a block count the walk cannot tell. */
static void sw_rows(sweep *s, const pto_kernel *kn)
{
    int32_t v;
    int many = kn->kind == PTO_KK_MIX || (s->blocks_known && s->blocks >= 2);
    for (v = kn->param0; v < kn->param0 + kn->nparams && !s->oom; v++) {
        const pto_param *p = &s->m->params[v];
        if (p->kind != PTO_P_TENSOR || p->dim_var[1] < 0 || !s->known[p->dim_var[1]]) continue;
        if ((s->val[p->dim_var[1]] * pto_dtype_size((pto_dtype)p->dtype)) % 32 == 0) sw_add(s, 4, v, 1);
        else sw_add(s, 4, v, many ? 0 : s->blocks_known ? 2 : 3);
    }
}

/* Kernel k walked at its first block and, when it has two or more, at its
   last (its tail), with its block count classed: 1, 2, 3 or 5 and more
   (4 is no class of its own: a count that is not a power of two shows
   more, and a run is saved). */
static void sw_kernel(sweep *s, int32_t k)
{
    const pto_kernel *kn = &s->m->kernels[k];
    long work0, work1 = 0;
    s->block = 0;
    s->ctxbits = 0;
    s->guess = 0;
    s->blocks = 1;
    s->blocks_known = kn->blocks < 0 || sw_eval(s, kn->blocks, &s->blocks);
    if (s->blocks_known && s->blocks < 1) {   /* the harness refuses a launch of no block */
        sw_add(s, 0, 0, 0);
        return;
    }
    sw_rows(s, kn);
    s->gen++;
    s->visits = s->rvisits = 0;
    s->work = 0;
    sw_walk(s, kn->body, 0);
    work0 = s->work;
    if (s->blocks_known && s->blocks >= 2) {   /* the last block: its tail */
        s->block = s->blocks - 1;
        s->ctxbits = 2;
        s->visits = s->rvisits = 0;
        s->work = 0;
        sw_walk(s, kn->body, 0);
        work1 = s->work;
    }
    if (s->blocks_known && s->blocks >= 3) {   /* block 1: its work and windows against block 0's */
        s->block = 1;
        s->ctxbits = 0;
        s->visits = s->rvisits = 0;
        s->work = 0;
        s->probe = 1;
        sw_walk(s, kn->body, 0);
        s->probe = 0;
        work1 = s->work;
    }
    /* the block count, and whether blocks 0 and 1 both do GM work there: a count whose blocks
       are empty is an outcome apart, so the value that shows the count with work is run too
       (review23 M1: "5 and more" was shown by a value where every block but the first was
       empty) */
    s->ctxbits = 0;   /* (the key of the kernel, not of a walk) */
    if (s->blocks_known && kn->blocks >= 0 && s->blocks != 4)
        sw_add(s, 6, k, (s->blocks < 5 ? (int)s->blocks : 5) | (work0 && (s->blocks < 2 || work1) ? 0 : 8));
}

/* The behaviours of every kernel at the names' values in s->cur, into *out
   (sorted). */
static void sw_behaviours(sweep *s, sw_set *out)
{
    const pto_module *m = s->m;
    int32_t v, k;
    int i;
    out->n = 0;
    s->out = out;
    for (v = 0; v < m->n_vars; v++) {
        s->known[v] = 0;
        if (m->vars[v].kind != PTO_V_DIM && m->vars[v].kind != PTO_V_SCALAR) continue;
        for (i = 0; i < s->n; i++)
            if (m->vars[v].name == s->name[i]) s->val[v] = s->cur[i], s->known[v] = 1;
    }
    for (v = 0; v < m->n_tiles; v++) s->tvr[v] = s->tvc[v] = -1;
    s->ctxbits = 0;
    if (!m->n_hosts)
        for (k = 0; k < m->n_kernels && !s->oom; k++) sw_kernel(s, k);
    for (k = 0; k < m->n_hosts && !s->oom; k++) {
        /* a host's launches: the callee's dims and scalars come from the call's arguments (a -D
           of a callee's name reaches nothing the host runs) */
        const pto_host *h = &m->hosts[k];
        int32_t q, a;
        for (q = h->stmt0; q < h->stmt0 + h->nstmts && !s->oom; q++) {
            const pto_hstmt *hs = &m->hstmts[q];
            const pto_kernel *kn;
            if (hs->kind != PTO_HS_CALL || hs->ref < 0 || hs->ref >= m->n_kernels) continue;
            kn = &m->kernels[hs->ref];
            for (a = 0; a < hs->nargs && a < kn->nparams; a++) {
                const pto_operand *o = &m->operands[hs->arg0 + a];
                const pto_param *kp = &m->params[kn->param0 + a];
                int d;
                if (o->kind == PTO_O_GM && o->ref >= 0 && o->ref < m->n_params && kp->kind == PTO_P_TENSOR) {
                    const pto_param *hp = &m->params[o->ref];
                    for (d = 0; d < 2; d++) {
                        int32_t kv = kp->dim_var[d], hv = hp->dim_var[d];
                        if (kv < 0) continue;
                        s->known[kv] = hp->dim[d] >= 0 || (hv >= 0 && s->known[hv]);
                        s->val[kv] = hp->dim[d] >= 0 ? hp->dim[d] : hv >= 0 ? s->val[hv] : 0;
                    }
                } else if (kp->kind == PTO_P_SCALAR && kp->var >= 0) {
                    int64_t x = 0;
                    s->known[kp->var] = (unsigned char)((o->kind == PTO_O_INT && sw_eval(s, o->e[0], &x)) ||
                                                        (o->kind == PTO_O_SCALAR && o->ref >= 0 && s->known[o->ref] &&
                                                         (x = s->val[o->ref], 1)));
                    s->val[kp->var] = x;
                }
            }
            sw_kernel(s, hs->ref);
        }
    }
    for (i = 1; i < out->n; i++) {   /* insertion sort: small sets */
        uint64_t key = out->k[i];
        int j = i;
        while (j > 0 && out->k[j - 1] > key) out->k[j] = out->k[j - 1], j--;
        out->k[j] = key;
    }
}

static int sw_has(const sw_set *set, uint64_t key)
{
    int32_t lo = 0, hi = set->n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (set->k[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < set->n && set->k[lo] == key;
}

/* Adds key to a sorted set. */
static void sw_insert(sweep *s, sw_set *set, uint64_t key)
{
    int32_t i;
    if (sw_has(set, key)) return;
    if (!sw_room(s, &set->k, &set->cap, set->n)) return;
    for (i = set->n; i > 0 && set->k[i - 1] > key; i--) set->k[i] = set->k[i - 1];
    set->k[i] = key;
    set->n++;
}

static int sw_tz(int64_t v)
{
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int n = 0;
    if (!u) return 0;
    while (!(u & 1)) u >>= 1, n++;
    return n;
}

/* The -D values a sweep starts from: the command line's, then the `# run:`
   line's (copied: the line's text is freed). */
#define SW_MAXDEFS 64
typedef struct sw_defs {
    char def[SW_MAXDEFS][256];   /* "NAME=VALUE" */
    int n;
} sw_defs;

static void defs_add(sw_defs *d, const char *def)
{
    if (d->n < SW_MAXDEFS) snprintf(d->def[d->n++], sizeof d->def[0], "%s", def);
}

/* A whole integer at s (decimal, 0x hex, 0 octal, as strtoll reads it)
   that int64 holds: 0 for no digits or a value strtoll would clamp. *end is
   left after the digits, for the caller to check what follows. */
static int whole_ll(const char *s, char **end, long long *out)
{
    errno = 0;
    *out = strtoll(s, end, 0);
    return *end != s && errno != ERANGE;
}

/* --ranks N for the sweep's own reading of nranks: a value that is no
   rank count leaves it (the run's program says what is wrong with it).
   text may go on past the number with a quote (a `# run:` line's). */
static void sweep_ranks(const char *text, int64_t *nranks)
{
    char *end;
    long long n;
    if (whole_ll(text, &end, &n) && (*end == 0 || *end == '\'') && n >= 1 && n <= 64) *nranks = n;
}

/* --ranks LO..HI (of run --sweep or a `# sweep:` line): the rank counts a
   sweep may run, in the harness's 1..64. 1 when read. */
static int sweep_rank_range(const char *text, int64_t *lo, int64_t *hi)
{
    char *end;
    long long a, b;
    if (!whole_ll(text, &end, &a) || strncmp(end, "..", 2) != 0 || !whole_ll(end + 2, &end, &b) || *end) return 0;
    if (a < 1 || a > b || b > 64) return 0;
    *lo = a;
    *hi = b;
    return 1;
}

/* The index of NAME's definition in d, or -1. */
static int defs_find(const sw_defs *d, const char *name, size_t len)
{
    int i;
    for (i = 0; i < d->n; i++)
        if (strncmp(d->def[i], name, len) == 0 && d->def[i][len] == '=') return i;
    return -1;
}

/* One name's behaviours at every value of its range. */
typedef struct sw_scan {
    int32_t nv;
    int32_t *off;             /* nv + 1: value j's keys are keys[off[j] .. off[j + 1]) */
    uint64_t *keys;
    unsigned char *tried;     /* run (or refused) already */
    sw_set covered;           /* behaviours a run at one of its values (or the base run) showed, or given up */
    sw_set refused_once;      /* behaviours a refused value would have shown */
} sw_scan;

typedef struct sw_tally {
    int runs, pass, fail, refused;
} sw_tally;

/* Is [line, end) the harness's "  warning     y: 512 of 2560 elements never
   written (rows 32..39)"? */
static int sw_unwritten_line(const char *line, const char *end)
{
    static const char what[] = " never written (";
    const char *p;
    if (!end || strncmp(line, "  warning     ", 14) != 0) return 0;
    for (p = line + 14; p + sizeof what - 1 <= end; p++)
        if (strncmp(p, what, sizeof what - 1) == 0) return 1;
    return 0;
}

/* Is the reference interpreter's error (its text after "FILE:LINE:COL: ")
   one of a value the kernel has no meaning at: a window past its tensor or
   tile, a rank outside [0, nranks), a valid region outside its tile, a
   textract offset that is not whole fractals, a matmul dim out of pto-isa's
   range, a division by zero, an overflow, a step <= 0, no block, a negative
   extent or a binding out of range? Anything else it stops at is a bug of
   the kernel at that value: a deadlock, a cube/vector pipe's push / pop
   counts that do not meet, a tfree without a tpop, a wait that never
   returns, an allreduce's mismatch, the instruction budget (a runaway
   loop) (review22 H1: those were "refused" and the sweep exited 0). */
static int sw_domain_error(const char *what)
{
    static const char *const domain[] = {
        " is outside ",                 /* window / rank / valid region / textract window */
        " is not whole fractals",       /* textract offset */
        "pto-isa's TMATMUL takes",      /* m, k, n range */
        "division by zero", "modulo by zero", "integer overflow in expression",
        "loop step must be positive", "would launch no block", "negative extent", "has a negative dim",
        "does not fit an i32 signal", "is bound to ", "is used as an integer",
        "the reference cannot run this kernel",   /* its blocks run one after another: not judged */
        NULL};
    int i;
    if (strncmp(what, "deadlock", 8) == 0) return 0;
    for (i = 0; domain[i]; i++)
        if (strstr(what, domain[i])) return 1;
    return 0;
}

/* Is the harness's line (a simulator report: "    f.pto:15: error: ...")
   a bug whatever else went wrong at that value: a deadlock, a race, a ring's
   slots pushed and never popped? (An uninitialised read or a bounds report
   follows from the op the reference refused: the simulator went on past it.)
   2 for a race, which a window past its tensor can cause: blocks whose rows
   leave their share overlap (review28 M6). */
static int sw_bug_report(const char *line, const char *end)
{
    static const char *const bug[] = {"error: deadlock", "error: race", "never popped", "never pushed", NULL};
    size_t n = end ? (size_t)(end - line) : strlen(line);
    int i;
    const char *p;
    if (strncmp(line, "    ", 4) != 0) return 0;
    for (i = 0; bug[i]; i++) {
        size_t k = strlen(bug[i]);
        for (p = line; p + k <= line + n; p++)
            if (strncmp(p, bug[i], k) == 0) return i == 1 ? 2 : 1;
    }
    return 0;
}

/* One run of the compiled kernel at s->cur: a row. Returns 1 when the
   kernel ran it (match or failure), 0 when it refused the values. Refused
   means the harness turned the values down, or the reference interpreter
   did with an error of the kernel's domain (sw_domain_error: a window past
   its tensor, a textract offset that is not whole fractals; the IR has no
   meaning there) and the simulator reported no deadlock, race or ring
   imbalance (its uninitialised reads after such an op follow from it). A
   deadlock, a pipe count mismatch, a runaway loop are failures wherever
   they are (review22 H1), and so is a race, unless the reference refused
   a window past its tensor (review28 M6). With `strict` (the run at the values the user
   gave) nothing is refused: the user's own values are no domain
   restriction, and a failure there is the failure `ptoc run` gives
   (review20 H1). */
static int sw_run_one(sweep *s, const sw_defs *defs, const char *bin, const char *fixed, const char *tmp,
                      const char *file, sw_tally *t, int strict)
{
    char cmd[24000], args[20000], vals[1024], outp[4200], errp[4200], one[300], reason[400];
    char *out, *err, *line, *end;
    size_t n;
    int i, rc, nresult = 0, noref = 0, mismatch = 0, reports = 0, ran, unwritten = 0, bugs = 0, domain = 1, insim = 0;
    int races = 0, outside = 0, b;
    long long cycles = 0, total = -1;
    snprintf(outp, sizeof outp, "%s/out", tmp);
    snprintf(errp, sizeof errp, "%s/err", tmp);
    cmd[0] = args[0] = vals[0] = 0;
    shell_add(args, sizeof args, fixed, NULL);
    if (s->runranks > 0) {   /* the rank count is the sweep's: the fixed options' --ranks out, the run's in */
        char *r;
        while ((r = strstr(args, " '--ranks' '")) != NULL) {
            char *q = strchr(r + 12, '\'');
            if (!q) break;
            memmove(r, q + 1, strlen(q + 1) + 1);
        }
        snprintf(one, sizeof one, "%lld", (long long)s->runranks);
        shell_add(args, sizeof args, " --ranks ", one);
    }
    for (i = 0; i < s->n; i++) {
        snprintf(one, sizeof one, "%s=%lld", pto_str(s->ctx, s->name[i]), (long long)s->cur[i]);
        shell_add(args, sizeof args, " -D ", one);
        n = strlen(vals);
        snprintf(vals + n, sizeof vals - n, "%s%s", n ? " " : "", one);
    }
    if (s->runranks > 0) {
        n = strlen(vals);
        snprintf(vals + n, sizeof vals - n, "%s--ranks %lld", n ? " " : "", (long long)s->runranks);
    }
    for (i = 0; i < defs->n; i++) {   /* the other names: as given */
        const char *eq = strchr(defs->def[i], '=');
        int j, swept = 0;
        for (j = 0; j < s->n && eq; j++) {
            const char *nm = pto_str(s->ctx, s->name[j]);
            if (strlen(nm) == (size_t)(eq - defs->def[i]) && strncmp(nm, defs->def[i], strlen(nm)) == 0) swept = 1;
        }
        if (!swept) shell_add(args, sizeof args, " -D ", defs->def[i]);
    }
    shell_quote(cmd, sizeof cmd, bin);
    shell_add(cmd, sizeof cmd, args, NULL);
    shell_add(cmd, sizeof cmd, " >", outp);
    shell_add(cmd, sizeof cmd, " 2>", errp);
    fflush(stdout);
    rc = system(cmd);
    rc = rc == -1 ? 2 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 2;
    out = read_all(outp, &n);
    err = read_all(errp, &n);
    reason[0] = 0;
    for (line = out; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (strncmp(line, "    ", 4) != 0) insim = 0;   /* a simulator's reports: the indented lines after it */
        if (strncmp(line, "  result      ", 14) == 0) {
            nresult++;
            /* no reference, or a launch the simulator refused: nothing was judged */
            if (strncmp(line + 14, "no reference", 12) == 0 || strncmp(line + 14, "not run", 7) == 0 ||
                strncmp(line + 14, "not compared: an integer overflow", 33) == 0)   /* (the simulator stopped there too) */
                noref = 1;
            else if (strncmp(line + 14, "match", 5) != 0) mismatch = 1;
        } else if (strncmp(line, "  simulator   ", 14) == 0 && line[14] >= '0' && line[14] <= '9') {
            /* "256 reports in all, 7 distinct (below; ...)": the row counts the distinct ones, the lines shown */
            const char *d = strstr(line, " in all, ");
            reports += d && (!end || d < end) ? atoi(d + 9) : atoi(line + 14);
            insim = 1;
            continue;
        } else if (insim && (b = sw_bug_report(line, end)) != 0) {
            bugs++;
            races += b == 2;
            continue;
        } else if (sw_unwritten_line(line, end)) {
            unwritten++;
        } else if (strncmp(line, "  cycles      ", 14) == 0) {
            cycles += atoll(line + 14);
        } else if (strncmp(line, "total         ", 14) == 0) {
            total = atoll(line + 14);
        }
    }
    for (line = err; line && *line && !reason[0]; line = end ? end + 1 : NULL) {
        /* "error: WHAT" of the harness, or the interpreter's "DIR/f.pto:10:19: error: WHAT" (as "f.pto:10:19: WHAT") */
        const char *e = strstr(line, "error: "), *from = line, *sl;
        end = strchr(line, '\n');
        if (end) *end = 0;
        if (!e) continue;
        for (sl = line; sl < e; sl++)
            if (*sl == '/') from = sl + 1;
        if (e - from >= 2 && e[-2] == ':') {   /* the interpreter's, at a statement */
            snprintf(reason, sizeof reason, "%.*s%s", (int)(e - from - 1), from, e + 6);
            domain = sw_domain_error(e + 7);
            outside = strstr(e + 7, " is outside tensor ") != NULL;
        } else
            snprintf(reason, sizeof reason, "%s", e + 7);
        if (end) *end = '\n';
    }
    t->runs++;
    /* a race at values where the reference refused a window past its tensor follows from that
       window (blocks that leave their share of rows meet); a deadlock or a ring's imbalance does not */
    if (outside) bugs -= races;
    ran = strict || !(rc == 1 && !mismatch && (noref || nresult == 0) && domain && !bugs);
    printf("  %-24s ", vals[0] ? vals : "(no -D)");
    if (!ran) {
        t->refused++;
        printf("refused: %s\n", reason[0] ? reason : "the harness rejected the values");
    } else if (rc == 0) {
        t->pass++;
        printf("match        cycles %lld", total >= 0 ? total : cycles);
        /* a match says both sides agree; outputs the kernel left partly unwritten are what
           the plain run warns about (a rounded-down block count): the row shows them too */
        for (line = out; line && *line && unwritten; line = end ? end + 1 : NULL) {
            end = strchr(line, '\n');
            if (sw_unwritten_line(line, end)) printf("; warning: %.*s", (int)(end - line - 14), line + 14);
        }
        printf("\n");
    } else {
        int w;   /* the verdict's width: "cycles" lines up with the match rows' (column 13) */
        t->fail++;
        if (mismatch) w = printf("MISMATCH");
        else if (reports) w = printf("%d REPORT%s", reports, reports == 1 ? "" : "S");
        else if ((noref || nresult == 0) && strict) w = printf("FAILED (at the values given)");
        else if (noref || nresult == 0) w = printf("FAILED (the reference stopped)");
        else w = printf("FAILED (exit status %d)", rc);
        printf("%*scycles %lld\n", w < 12 ? 13 - w : 1, "", total >= 0 ? total : cycles);
        /* what the run said, so the failure can be read without a rerun */
        for (i = 0, line = out; line && *line && i < 40; line = end ? end + 1 : NULL, i++) {
            end = strchr(line, '\n');
            printf("      | %.*s\n", (int)(end ? end - line : (long)strlen(line)), line);
        }
        for (line = err; line && *line && i < 60; line = end ? end + 1 : NULL, i++) {
            end = strchr(line, '\n');
            printf("      | %.*s\n", (int)(end ? end - line : (long)strlen(line)), line);
        }
        printf("      rerun: ptoc run %s%s%s\n", file, s->rerun ? s->rerun : "", args);
    }
    free(out);
    free(err);
    remove(outp);
    remove(errp);
    if (ran) {   /* its values, for the combination phase (sw_combine) */
        if (s->nhist == s->hcap) {
            int32_t c = s->hcap ? s->hcap * 2 : 16;
            int64_t *h = (int64_t *)pto_realloc(s->ctx, s->hist, (size_t)c * SW_MAXN * sizeof *h);
            if (!h) s->oom = 1;
            else s->hist = h, s->hcap = c;
        }
        if (s->nhist < s->hcap) memcpy(s->hist + (size_t)s->nhist++ * SW_MAXN, s->cur, sizeof s->cur);
    }
    return ran;
}

/* Is item one of the ", "-separated items of list (NULL: empty)? */
static int sw_has_item(const char *list, const char *item)
{
    size_t n = strlen(item);
    const char *p = list;
    while (p && *p) {
        if (strncmp(p, item, n) == 0 && (p[n] == 0 || p[n] == ',')) return 1;
        p = strstr(p, ", ");
        if (p) p += 2;
    }
    return 0;
}

/* The lines of the statements and expressions whose outcome changes with
   name i, printed as the name's header line. An outcome is the set of
   classes a point shows at one value (a loop's trip class, an if's branch,
   ...), over every walk that reaches it (first and last iteration of the
   loops around it); it changes when two values that reach the point show
   different sets. A point that one value reaches and another does not is
   no outcome of its own: a loop of a literal trip count inside a loop of N
   trips, reached or not as N is 0 or not, is not steered by N (the outer
   loop is), nor is a loop of U trips inside it steered by N. */
static void sw_header(sweep *s, const sw_scan *sc, int i)
{
    const pto_module *m = s->m;
    sw_set u;
    int32_t j, q, p, nk[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, lines[16], nl = 0, kerns[4], nkern = 0, nshare = 0, n32 = 0;
    int count6 = 0;   /* some kernel's block count changes (else only which of its blocks get work) */
    memset(&u, 0, sizeof u);
    for (j = 0; j < sc->nv; j++)
        for (q = sc->off[j]; q < sc->off[j + 1] && sc->keys[sc->off[j]] != 0; q++)
            sw_insert(s, &u, sc->keys[q] & ~(uint64_t)0xff);
    for (q = 0; q < u.n; q++) {
        /* does the outcome of this point differ between two values that reach it? */
        uint32_t first = 0, all = 0;
        int varies = 0, kind = (int)(u.k[q] >> 56);
        int32_t id = (int32_t)(uint32_t)(u.k[q] >> 8), line;
        for (j = 0; j < sc->nv && !varies; j++) {
            uint32_t got = 0;   /* the classes shown at this value (bit per class); 0: not reached */
            if (sc->off[j] < sc->off[j + 1] && sc->keys[sc->off[j]] == 0) continue;   /* refused there */
            for (p = sc->off[j]; p < sc->off[j + 1]; p++)
                if ((sc->keys[p] & ~(uint64_t)0xff) == u.k[q]) got |= 1u << (sc->keys[p] & 0xf);
            if (!got) continue;
            all |= got;
            if (!first) first = got;
            else if (got != first) varies = 1;
        }
        if (!varies || kind == 0 || kind == 5) continue;   /* (5: a loop's ring class; the loop is counted) */
        /* a row class (sw_rows) that is never whole 32-byte blocks (class 1) at some values and is at
           others: the name steers the row width; else only the writers of the misaligned rows
           (review22 L4: a row count R was said to steer "the row width") */
        if (kind == 4 && !((all & 2u) && (all & ~2u))) nshare++;
        else if (kind == 9 && (all & 8u)) n32++;   /* a store whose blocks share a 32-byte block at some values */
        else nk[kind]++;
        if (kind == 6 && nkern < 4) kerns[nkern++] = id;
        if (kind == 6) {   /* class: the count (0..5) | 8 when block 0 or 1 has no GM work */
            uint32_t c, counts = 0;
            for (c = 0; c < 16; c++)
                if (all & 1u << c) counts |= 1u << (c & 7);
            if (counts & (counts - 1)) count6 = 1;
        }
        line = kind == 3 ? m->exprs[id].loc.line : kind == 4 ? m->params[id].loc.line
             : kind == 6 ? m->kernels[id].loc.line : m->stmts[id].loc.line;
        for (p = 0; p < nl && lines[p] != line; p++)
            ;
        if (p == nl && nl < 16) lines[nl++] = line;
    }
    s->steers[i] = nk[1] + nk[2] + nk[3] + nk[4] + nk[6] + nk[7] + nk[8] + nk[9] + nk[10] + nk[11] + nshare + n32;
    printf("  %s (from %lld, %lld..%lld", pto_str(s->ctx, s->name[i]), (long long)s->base[i], (long long)s->lo[i],
           (long long)s->hi[i]);
    if (s->step[i] > 1) printf("/%lld", (long long)s->step[i]);
    printf("): ");
    if (!s->steers[i]) {
        printf("steers no loop, if, min/max, row width, block count, valid region, window or signal value; stays %lld\n", (long long)s->base[i]);
    } else {
        const char *sep = "steers ";
        if (nk[6]) {   /* the block count first: what the rows below are about */
            pto_buf b;
            memset(&b, 0, sizeof b);
            b.ctx = s->ctx;
            for (p = 0; p < nkern; p++) {   /* each distinct text once: two kernels of blocks(N / 16) are one */
                pto_buf e;
                memset(&e, 0, sizeof e);
                e.ctx = s->ctx;
                pto_buf_puts(&e, "blocks(");
                pto_print_expr(m, m->kernels[kerns[p]].blocks, &e);
                pto_buf_puts(&e, ")");
                if (e.data && !e.oom && !sw_has_item(b.data, e.data)) {
                    if (b.len) pto_buf_puts(&b, ", ");
                    pto_buf_puts(&b, e.data);
                }
                pto_buf_free(&e);
            }
            /* review26a L4: a name that only moves the work between blocks (N with blocks(NB)) does
               not steer the count */
            printf(count6 ? "%sthe block count (%s)" : "%swhich blocks get work (of %s)", sep,
                   b.data && !b.oom ? b.data : "blocks(...)");
            sep = ", ";
            pto_buf_free(&b);
        }
        if (nk[7]) printf("%sa partial last block (%d tile%s)", sep, nk[7], nk[7] == 1 ? "" : "s"), sep = ", ";
        if (nk[1]) printf("%s%d loop%s", sep, nk[1], nk[1] == 1 ? "" : "s"), sep = ", ";
        if (nk[2]) printf("%s%d if%s", sep, nk[2], nk[2] == 1 ? "" : "s"), sep = ", ";
        if (nk[3]) printf("%s%d min/max", sep, nk[3]), sep = ", ";
        if (nk[4]) printf("%sthe row width of %d tensor%s", sep, nk[4], nk[4] == 1 ? "" : "s"), sep = ", ";
        if (nk[8]) printf("%sthe valid region of %d tile%s", sep, nk[8], nk[8] == 1 ? "" : "s"), sep = ", ";
        if (nk[9])
            printf("%swhether blocks 0 and 1 overlap, touch or lie apart in %d window%s", sep, nk[9], nk[9] == 1 ? "" : "s"),
                sep = ", ";
        if (n32)
            printf("%swhether blocks 0 and 1 store into one 32-byte block of GM in %d window%s", sep, n32, n32 == 1 ? "" : "s"),
                sep = ", ";
        if (nk[11])
            printf("%swhether a block's window and its next iteration's overlap, touch or lie apart in %d window%s", sep,
                   nk[11], nk[11] == 1 ? "" : "s"),
                sep = ", ";
        if (nk[10]) printf("%s%d signal value%s", sep, nk[10], nk[10] == 1 ? "" : "s"), sep = ", ";
        if (nshare)
            printf("%swhether 2 or more blocks share the misaligned rows of %d tensor%s", sep, nshare, nshare == 1 ? "" : "s");
        (void)sep;
        for (p = 1; p < nl; p++) {   /* in order */
            int32_t l = lines[p], r = p;
            while (r > 0 && lines[r - 1] > l) lines[r] = lines[r - 1], r--;
            lines[r] = l;
        }
        printf(" (line%s", nl == 1 ? "" : "s");
        for (p = 0; p < nl; p++) printf("%s %d", p ? "," : "", lines[p]);
        printf(")\n");
    }
    pto_free(s->ctx, u.k);
}

/* Whether LO..HI lies in the values swept name x can take: a dim's
   1..2^62 (the harness's), an integer scalar's dtype range. */
static int sw_fits(const pto_module *m, const pto_var *x, long long lo, long long hi)
{
    if (x->kind == PTO_V_DIM) return lo >= 1 && hi <= SW_DIM_MAX;
    return lo >= pto_int_lo(m->params[x->def].dtype) && hi <= pto_int_hi(m->params[x->def].dtype);
}

/* Names that steer one kernel's block count together (a 2-D grid,
   blocks((M / 32) * (N / 64))): one name at a time keeps the others at
   their base, so the small counts may be reached by no value of any one
   name (review18 L9). Each such name's candidates are its smallest value of
   each distinct block-count outcome in its scan (at most SW_JOINT_CAND);
   their combinations (at most SW_JOINT_MAX) are evaluated, and the one
   showing the most block-count classes and last-block tails no run has
   shown is run, the smallest values first on a tie, until none is left or
   the run budget is spent. Then a kernel steered by two names or more that
   no run launched at some class (1, 2, 3, 5 or more blocks) gets a note. */
#define SW_JOINT_CAND 5
#define SW_JOINT_MAX 256

static int sw_refused_at(const sw_scan *sc, int32_t j)
{
    return sc->off[j] < sc->off[j + 1] && sc->keys[sc->off[j]] == 0;
}

static void sw_joint(sweep *s, sw_scan *scan, sw_set *shown, const sw_defs *defs, const char *bin, const char *fixed,
                     const char *tmp, const char *file, sw_tally *t, int max_runs, pto_buf *notes)
{
    const pto_module *m = s->m;
    int32_t k, j, q, c, ncombo = 1, best;
    int i, nj = 0, jn[SW_MAXN], nc[SW_MAXN];
    int64_t cand[SW_MAXN][SW_JOINT_CAND];
    int *nsteer = (int *)pto_alloc(s->ctx, (size_t)(m->n_kernels + 1) * sizeof(int));
    unsigned char *tried = NULL;
    sw_set cur;
    memset(&cur, 0, sizeof cur);
    if (!nsteer) { s->oom = 1; return; }
    for (k = 0; k < m->n_kernels; k++) nsteer[k] = 0;
    for (i = 0; i < s->n; i++) {   /* the kernels whose block count name i changes */
        sw_scan *sc = &scan[i];
        for (k = 0; k < m->n_kernels; k++) {
            uint64_t first = 0;
            int varies = 0;
            for (j = 0; j < sc->nv && !varies; j++)
                for (q = sc->off[j]; q < sc->off[j + 1] && !varies; q++)
                    if ((sc->keys[q] >> 56) == 6 && (int32_t)(uint32_t)(sc->keys[q] >> 8) == k) {
                        if (!first) first = sc->keys[q];
                        else if (sc->keys[q] != first) varies = 1;
                    }
            nsteer[k] += varies;
        }
    }
    for (i = 0; i < s->n; i++) {   /* the names of those kernels' counts, and their candidates */
        sw_scan *sc = &scan[i];
        uint64_t sig[SW_JOINT_CAND];
        int steers = 0;
        for (j = 0; j < sc->nv && !steers; j++)
            for (q = sc->off[j]; q < sc->off[j + 1]; q++)
                if ((sc->keys[q] >> 56) == 6 && nsteer[(int32_t)(uint32_t)(sc->keys[q] >> 8)] >= 2) steers = 1;
        if (!steers) continue;
        nc[nj] = 0;
        for (j = 0; j < sc->nv && nc[nj] < SW_JOINT_CAND; j++) {
            uint64_t g = 1469598103934665603ULL;   /* the value's block counts, as one number */
            int p;
            if (sw_refused_at(sc, j)) continue;
            for (q = sc->off[j]; q < sc->off[j + 1]; q++)
                if ((sc->keys[q] >> 56) == 6) g = (g ^ sc->keys[q]) * 1099511628211ULL;
            for (p = 0; p < nc[nj] && sig[p] != g; p++)
                ;
            if (p < nc[nj]) continue;
            sig[nc[nj]] = g;
            cand[nj][nc[nj]++] = sw_at(s, i, j);
        }
        if (nc[nj] >= 2) jn[nj++] = i;
    }
    if (nj >= 2) {
        for (i = 0; i < nj; i++) ncombo *= nc[i];
        while (ncombo > SW_JOINT_MAX) {   /* fewer candidates of the name with the most */
            int w = 0;
            for (i = 1; i < nj; i++)
                if (nc[i] > nc[w]) w = i;
            ncombo = ncombo / nc[w] * (nc[w] - 1);
            nc[w]--;
        }
        tried = (unsigned char *)pto_alloc(s->ctx, (size_t)ncombo);
        if (!tried) s->oom = 1;
        else memset(tried, 0, (size_t)ncombo);
    }
    while (tried && t->runs < max_runs && !s->oom) {
        int32_t bestnew = 0;
        int64_t bestsum = 0;
        best = -1;
        for (c = 0; c < ncombo && !s->oom; c++) {
            int32_t nw = 0, r = c;
            int64_t sum = 0;
            if (tried[c]) continue;
            memcpy(s->cur, s->base, sizeof s->cur);
            for (i = 0; i < nj; i++) {
                s->cur[jn[i]] = cand[i][r % nc[i]];
                sum += s->cur[jn[i]] < 0 ? -s->cur[jn[i]] : s->cur[jn[i]];
                r /= nc[i];
            }
            sw_behaviours(s, &cur);
            if (cur.n && cur.k[0] == 0) { tried[c] = 1; continue; }   /* refused */
            for (q = 0; q < cur.n; q++) {
                int kind = (int)(cur.k[q] >> 56);
                nw += (kind == 6 || kind == 7) && !sw_has(shown, cur.k[q]);
            }
            if (nw > bestnew || (nw && nw == bestnew && sum < bestsum)) best = c, bestnew = nw, bestsum = sum;
        }
        if (best < 0) break;
        tried[best] = 1;
        memcpy(s->cur, s->base, sizeof s->cur);
        for (i = 0, c = best; i < nj; i++) s->cur[jn[i]] = cand[i][c % nc[i]], c /= nc[i];
        sw_behaviours(s, &cur);
        if (sw_run_one(s, defs, bin, fixed, tmp, file, t, 0))
            for (q = 0; q < cur.n; q++) {
                sw_insert(s, shown, cur.k[q]);
                for (i = 0; i < s->n; i++) sw_insert(s, &scan[i].covered, cur.k[q]);
            }
    }
    for (k = 0; k < m->n_kernels && !s->oom; k++) {   /* what no run showed */
        static const char *const cname[4] = {"1", "2", "3", "5 or more"};
        char missing[80];
        int p, nmiss = 0;
        pto_buf e;
        if (nsteer[k] < 2) continue;
        missing[0] = 0;
        for (p = 0; p < 4; p++) {
            uint64_t key = ((uint64_t)6 << 56) | ((uint64_t)(uint32_t)k << 8) | (uint64_t)(p < 3 ? p + 1 : 5);
            size_t n = strlen(missing);
            if (sw_has(shown, key) || sw_has(shown, key | 8)) continue;   /* (8: with empty blocks) */
            snprintf(missing + n, sizeof missing - n, "%s%s", nmiss ? ", " : "", cname[p]);
            nmiss++;
        }
        if (!nmiss) continue;
        memset(&e, 0, sizeof e);
        e.ctx = s->ctx;
        pto_print_expr(m, m->kernels[k].blocks, &e);
        pto_buf_printf(notes, "  note: kernel '%s' was not run at block count%s %s (blocks(%s) reads %d swept "
                       "names: -D them together for those)\n", pto_str(s->ctx, m->kernels[k].name),
                       nmiss == 1 ? "" : "s", missing, e.data && !e.oom ? e.data : "...", nsteer[k]);
        pto_buf_free(&e);
    }
    pto_free(s->ctx, cur.k);
    pto_free(s->ctx, tried);
    pto_free(s->ctx, nsteer);
}

/* A kernel that ran at two blocks or more only at values where block 0 or
   block 1 had no GM work (every block past the first empty, say) was never
   run the way its block count matters: a note says so (review23 M1). */
static void sw_idle_note(const sweep *s, const sw_set *shown, pto_buf *notes)
{
    const pto_module *m = s->m;
    int32_t k;
    for (k = 0; k < m->n_kernels; k++) {
        uint64_t key = ((uint64_t)6 << 56) | ((uint64_t)(uint32_t)k << 8);
        int p, idle = 0, busy = 0;
        for (p = 2; p <= 5; p++) {
            idle |= sw_has(shown, key | (uint64_t)p | 8);
            busy |= sw_has(shown, key | (uint64_t)p);
        }
        if (idle && !busy)
            pto_buf_printf(notes, "  note: kernel '%s' ran at 2, 3 or 5 and more blocks only where block 0 or block 1 had no GM "
                           "work: give -D values where both do\n", pto_str(s->ctx, m->kernels[k].name));
    }
}

/* ---- the combination phase (review26 H2) ----
   One name at a time keeps the others at their base: two short inner loops of
   one outer loop (a race that needs both short at once), or a loop inside an
   if that another name steers (reached only at that name's other value), were
   never run together. The loops and ifs whose bounds or conditions read swept
   names (through lets and the variables of enclosing loops) are paired when one
   nests in the other or both sit in one loop; a pair's outcome is the couple of
   its statements' coarse outcomes (a loop: 0, 1, 2 up to its slots, more; an
   if: taken or not), one combination. For each two names that steer a pair,
   one is scanned over its range with the other at each of its candidate values
   (its first value of each distinct set of combinations, SW_COMBO_CAND), and
   the other way round (at most SW_COMBO_VISITS statements walked in all); then
   the value sets showing the most combinations that no run showed are run, at
   most SW_COMBO_RUNS, outside --sweep-runs; the line before those rows says
   when the bound left combinations unrun. */
#define SW_PAIRS 64
#define SW_NPAIRS 16
#define SW_COMBO_STMTS 256
#define SW_COMBO_CAND 6
#define SW_COMBO_RUNS 8
#define SW_COMBO_MAX 512
#define SW_COMBO_VISITS 40000000LL

typedef struct sw_combo {
    int32_t n, p[SW_PAIRS], q[SW_PAIRS];     /* paired statements */
    int nn, nx[SW_NPAIRS], ny[SW_NPAIRS];     /* the pairs of names that steer them */
    uint32_t *vmask;                          /* per var: the swept names its value reads */
    uint32_t *smask;                          /* per stmt (a loop or an if): the names it reads */
    int32_t *encl, *parent;                   /* per stmt: its enclosing loop; its enclosing loop or if */
    unsigned char *cc;                        /* per stmt: its coarse outcomes in one value set (scratch) */
    int32_t ncombo, va[SW_COMBO_MAX], vb[SW_COMBO_MAX];   /* candidate value sets: name indexes ... */
    int64_t xa[SW_COMBO_MAX], xb[SW_COMBO_MAX];           /* ... and their values */
    int32_t toff[SW_COMBO_MAX + 1];           /* combo c's combinations: tup[toff[c] .. toff[c + 1]) */
    uint64_t *tup;
    int32_t ntup, tcap;
    sw_set poss;                              /* what the candidates show (kinds 1, 2, 5, no context) */
} sw_combo;

/* The swept names expression e reads. */
static uint32_t sw_emask(const sweep *s, const uint32_t *vmask, int32_t e, int depth)
{
    const pto_expr *x;
    if (e < 0 || e >= s->m->n_exprs || depth > 64) return 0;
    x = &s->m->exprs[e];
    if (x->kind == PTO_E_VAR) return x->a >= 0 && x->a < s->m->n_vars ? vmask[x->a] : 0;
    if (x->kind == PTO_E_NEG) return sw_emask(s, vmask, x->a, depth + 1);
    if (x->kind < PTO_E_ADD || x->kind > PTO_E_MAX) return 0;
    return sw_emask(s, vmask, x->a, depth + 1) | sw_emask(s, vmask, x->b, depth + 1);
}

/* Each statement's enclosing loop and enclosing loop or if. */
static void sw_nest(sweep *s, sw_combo *c, int32_t blk, int32_t encl, int32_t parent, int depth)
{
    int32_t st;
    if (blk < 0 || blk >= s->m->n_blocks || depth > 64) return;
    for (st = s->m->blocks[blk].head; st >= 0; st = s->m->stmts[st].next) {
        const pto_stmt *x = &s->m->stmts[st];
        c->encl[st] = encl;
        c->parent[st] = parent;
        if (x->kind == PTO_ST_FOR) sw_nest(s, c, x->body, st, st, depth + 1);
        else if (x->kind == PTO_ST_IF) {
            sw_nest(s, c, x->body, encl, st, depth + 1);
            sw_nest(s, c, x->orelse, encl, st, depth + 1);
        } else if (x->kind == PTO_ST_SECTION) sw_nest(s, c, x->body, encl, parent, depth + 1);
    }
}

/* Whether statement p encloses statement q. */
static int sw_encloses(const sw_combo *c, int32_t p, int32_t q)
{
    int n;
    for (n = 0; q >= 0 && n < 64; n++) {
        q = c->parent[q];
        if (q == p) return 1;
    }
    return 0;
}

static int sw_popcount(uint32_t v)
{
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

/* The statements to pair and the names to combine; 0 when there are none. */
static int sw_combo_setup(sweep *s, sw_combo *c)
{
    const pto_module *m = s->m;
    int32_t v, st, k, a, b, list[SW_COMBO_STMTS], nl = 0;
    int i, pass, x, y;
    c->vmask = (uint32_t *)pto_alloc(s->ctx, (size_t)(m->n_vars + 1) * sizeof *c->vmask);
    c->smask = (uint32_t *)pto_alloc(s->ctx, (size_t)(m->n_stmts + 1) * sizeof *c->smask);
    c->encl = (int32_t *)pto_alloc(s->ctx, (size_t)(m->n_stmts + 1) * sizeof *c->encl);
    c->parent = (int32_t *)pto_alloc(s->ctx, (size_t)(m->n_stmts + 1) * sizeof *c->parent);
    c->cc = (unsigned char *)pto_alloc(s->ctx, (size_t)(m->n_stmts + 1));
    if (!c->vmask || !c->smask || !c->encl || !c->parent || !c->cc) { s->oom = 1; return 0; }
    memset(c->cc, 0, (size_t)(m->n_stmts + 1));
    for (v = 0; v < m->n_vars; v++) {
        c->vmask[v] = 0;
        if (m->vars[v].kind == PTO_V_DIM || m->vars[v].kind == PTO_V_SCALAR)
            for (i = 0; i < s->n; i++)
                if (m->vars[v].name == s->name[i]) c->vmask[v] = 1u << i;
    }
    for (pass = 0; pass < 2; pass++)   /* (twice: a let may be read before its text in id order) */
        for (st = 0; st < m->n_stmts; st++) {
            const pto_stmt *x = &m->stmts[st];
            if (x->kind == PTO_ST_LET && x->ref >= 0 && x->ref < m->n_vars) c->vmask[x->ref] = sw_emask(s, c->vmask, x->e[0], 0);
            if (x->kind == PTO_ST_FOR && x->ref >= 0 && x->ref < m->n_vars)
                c->vmask[x->ref] = sw_emask(s, c->vmask, x->e[0], 0) | sw_emask(s, c->vmask, x->e[1], 0) |
                                   sw_emask(s, c->vmask, x->e[2], 0);
        }
    for (st = 0; st < m->n_stmts; st++) {
        const pto_stmt *x = &m->stmts[st];
        c->encl[st] = c->parent[st] = -1;
        c->smask[st] = x->kind == PTO_ST_FOR ? sw_emask(s, c->vmask, x->e[0], 0) | sw_emask(s, c->vmask, x->e[1], 0) |
                                                   sw_emask(s, c->vmask, x->e[2], 0)
                     : x->kind == PTO_ST_IF ? sw_emask(s, c->vmask, x->e[0], 0) | sw_emask(s, c->vmask, x->e[1], 0) : 0;
        if (c->smask[st] && nl < SW_COMBO_STMTS) list[nl++] = st;
    }
    for (k = 0; k < m->n_kernels; k++) sw_nest(s, c, m->kernels[k].body, -1, -1, 0);
    for (a = 0; a < nl; a++)
        for (b = a + 1; b < nl && c->n < SW_PAIRS; b++) {
            int32_t p = list[a], q = list[b];
            if (sw_popcount(c->smask[p] | c->smask[q]) < 2) continue;   /* one name: its own scan combines them */
            if (!sw_encloses(c, p, q) && !sw_encloses(c, q, p) && !(c->encl[p] >= 0 && c->encl[p] == c->encl[q])) continue;
            c->p[c->n] = p;
            c->q[c->n++] = q;
            for (x = 0; x < s->n; x++)
                for (y = 0; y < s->n; y++) {
                    int lo = x < y ? x : y, hi = x < y ? y : x, r;
                    if (x == y || !(c->smask[p] >> x & 1) || !(c->smask[q] >> y & 1)) continue;
                    for (r = 0; r < c->nn && !(c->nx[r] == lo && c->ny[r] == hi); r++)
                        ;
                    if (r == c->nn && c->nn < SW_NPAIRS) c->nx[c->nn] = lo, c->ny[c->nn++] = hi;
                }
        }
    return c->nn > 0;
}

/* A loop's trip class (sw_trip_class) coarsened: 0, 1, 2 up to its slots, more. */
static int sw_coarse(const pto_module *m, int32_t st, int cls)
{
    int per = sw_period(m, m->stmts[st].body);
    if (cls <= 1) return cls;
    if (cls == 4) return 3;
    if (cls == 5) return 2;
    return per >= cls ? 2 : 3;
}

/* The combinations keys[0 .. n) show, into out (when not NULL); returns a
   hash of the paired statements' outcomes (the candidates' signature). */
static uint64_t sw_tuples(sweep *s, sw_combo *c, const uint64_t *keys, int32_t n, sw_set *out)
{
    int32_t q, i;
    uint64_t h = 1469598103934665603ULL;
    int a, b;
    if (out) out->n = 0;
    for (q = 0; q < n; q++) {
        int kind = (int)(keys[q] >> 56), cls = (int)(keys[q] & 0xf);
        int32_t st = (int32_t)(uint32_t)(keys[q] >> 8);
        if ((kind != 1 && kind != 2) || st < 0 || st >= s->m->n_stmts || (kind == 2 && cls > 1)) continue;
        c->cc[st] |= (unsigned char)(1u << (kind == 1 ? sw_coarse(s->m, st, cls) : cls));
    }
    for (i = 0; i < c->n; i++) {
        h = (h ^ ((uint64_t)c->cc[c->p[i]] << 4 | c->cc[c->q[i]])) * 1099511628211ULL;
        if (out)
            for (a = 0; a < 4; a++)
                for (b = 0; b < 4; b++)
                    if ((c->cc[c->p[i]] >> a & 1) && (c->cc[c->q[i]] >> b & 1))
                        sw_insert(s, out, ((uint64_t)i << 8) | (uint64_t)(a << 4 | b));
    }
    for (q = 0; q < n; q++) {
        int32_t st = (int32_t)(uint32_t)(keys[q] >> 8);
        if (st >= 0 && st < s->m->n_stmts) c->cc[st] = 0;
    }
    return h;
}

/* Value set (name a = xa, name b = xb, the rest at their base) as a
   candidate when it shows a combination no candidate showed yet. */
static void sw_combo_try(sweep *s, sw_combo *c, int a, int64_t xa, int b, int64_t xb, sw_set *beh, sw_set *tup)
{
    int32_t q, nw = 0;
    memcpy(s->cur, s->base, sizeof s->cur);
    s->cur[a] = xa;
    s->cur[b] = xb;
    sw_behaviours(s, beh);
    if (beh->n && beh->k[0] == 0) return;   /* refused */
    sw_tuples(s, c, beh->k, beh->n, tup);
    for (q = 0; q < tup->n; q++) nw += !sw_has(&c->poss, tup->k[q] | ((uint64_t)15 << 60));
    if (!nw || c->ncombo == SW_COMBO_MAX) return;
    c->va[c->ncombo] = a, c->xa[c->ncombo] = xa, c->vb[c->ncombo] = b, c->xb[c->ncombo] = xb;
    c->toff[c->ncombo] = c->ntup;
    for (q = 0; q < tup->n && !s->oom; q++) {
        if (!sw_room(s, &c->tup, &c->tcap, c->ntup)) return;
        c->tup[c->ntup++] = tup->k[q];
        sw_insert(s, &c->poss, tup->k[q] | ((uint64_t)15 << 60));   /* (kind 15: a combination) */
    }
    for (q = 0; q < beh->n; q++) {
        int kind = (int)(beh->k[q] >> 56);
        if (kind == 1 || kind == 2 || kind == 5) sw_insert(s, &c->poss, beh->k[q] & ~(uint64_t)0xf0);
    }
    c->toff[++c->ncombo] = c->ntup;
}

/* Name b's candidates: its first value of each distinct outcome of the
   paired statements in its scan. */
static int sw_combo_cands(sweep *s, sw_combo *c, const sw_scan *sc, int b, int64_t *out)
{
    uint64_t sig[SW_COMBO_CAND];
    int n = 0, p;
    int32_t j;
    for (j = 0; j < sc->nv && n < SW_COMBO_CAND; j++) {
        uint64_t h;
        if (sw_refused_at(sc, j)) continue;
        h = sw_tuples(s, c, sc->keys + sc->off[j], sc->off[j + 1] - sc->off[j], NULL);
        for (p = 0; p < n && sig[p] != h; p++)
            ;
        if (p < n) continue;
        sig[n] = h;
        out[n++] = sw_at(s, b, j);
    }
    return n;
}

static int64_t sw_abs(int64_t v) { return v < 0 ? -v : v; }

static void sw_combine(sweep *s, sw_scan *scan, sw_set *shown, sw_combo *c, const sw_defs *defs, const char *bin,
                       const char *fixed, const char *tmp, const char *file, sw_tally *t)
{
    sw_set beh, tup, done;
    int r, dir, n, np = 0, plan[SW_COMBO_RUNS], cut = 0, stopped = 0, named[SW_NPAIRS];
    int64_t cand[SW_COMBO_CAND];
    int32_t j, q, h, best, bestnew, k;
    unsigned char *used;
    memset(&beh, 0, sizeof beh);
    memset(&tup, 0, sizeof tup);
    memset(&done, 0, sizeof done);
    for (r = 0; r < c->nn && !s->oom; r++) {
        named[r] = 0;
        for (dir = 0; dir < 2; dir++) {
            int a = dir ? c->ny[r] : c->nx[r], b = dir ? c->nx[r] : c->ny[r];
            n = sw_combo_cands(s, c, &scan[b], b, cand);
            for (k = 0; k < n; k++)
                for (j = 0; j < scan[a].nv && !s->oom; j++) {
                    if (s->tvisits > SW_COMBO_VISITS) { stopped = 1; break; }
                    sw_combo_try(s, c, a, sw_at(s, a, j), b, cand[k], &beh, &tup);
                }
        }
    }
    /* the combinations the runs made so far showed */
    for (h = 0; h < s->nhist && !s->oom; h++) {
        memcpy(s->cur, s->hist + (size_t)h * SW_MAXN, sizeof s->cur);
        sw_behaviours(s, &beh);
        sw_tuples(s, c, beh.k, beh.n, &tup);
        for (q = 0; q < tup.n; q++) sw_insert(s, &done, tup.k[q]);
    }
    used = (unsigned char *)pto_alloc(s->ctx, (size_t)c->ncombo + 1);
    if (!used) s->oom = 1;
    else memset(used, 0, (size_t)c->ncombo + 1);
    while (used && !s->oom) {   /* the plan: most new combinations first, then the smallest values */
        best = -1, bestnew = 0;
        for (k = 0; k < c->ncombo; k++) {
            int32_t nw = 0;
            if (used[k]) continue;
            for (q = c->toff[k]; q < c->toff[k + 1]; q++) nw += !sw_has(&done, c->tup[q]);
            if (nw > bestnew || (nw && nw == bestnew && sw_abs(c->xa[k]) + sw_abs(c->xb[k]) < sw_abs(c->xa[best]) + sw_abs(c->xb[best])))
                best = k, bestnew = nw;
        }
        if (best < 0) break;
        if (np == SW_COMBO_RUNS) { cut++; used[best] = 1; continue; }
        used[best] = 1;
        plan[np++] = best;
        for (q = c->toff[best]; q < c->toff[best + 1]; q++) sw_insert(s, &done, c->tup[q]);
    }
    if (np || stopped) {
        const char *sep = "";
        printf("  together (loops and ifs that nest or share a loop): ");
        for (r = 0; r < c->nn; r++)
            for (k = 0; k < np; k++)
                if (!named[r] && ((c->va[plan[k]] == c->nx[r] && c->vb[plan[k]] == c->ny[r]) ||
                                  (c->va[plan[k]] == c->ny[r] && c->vb[plan[k]] == c->nx[r]))) {
                    printf("%s%s and %s", sep, pto_str(s->ctx, s->name[c->nx[r]]), pto_str(s->ctx, s->name[c->ny[r]]));
                    named[r] = 1, sep = ", ";
                }
        printf("%s%d run%s", np ? ": " : "", np, np == 1 ? "" : "s");
        if (cut) printf("; the bound of %d runs left %d value set%s unrun", SW_COMBO_RUNS, cut, cut == 1 ? "" : "s");
        if (stopped) printf("; the search stopped at its budget");
        printf("\n");
    }
    for (k = 0; k < np && !s->oom; k++) {
        memcpy(s->cur, s->base, sizeof s->cur);
        s->cur[c->va[plan[k]]] = c->xa[plan[k]];
        s->cur[c->vb[plan[k]]] = c->xb[plan[k]];
        sw_behaviours(s, &beh);
        if (sw_run_one(s, defs, bin, fixed, tmp, file, t, 0))
            for (q = 0; q < beh.n; q++) {
                sw_insert(s, shown, beh.k[q]);
                for (r = 0; r < s->n; r++) sw_insert(s, &scan[r].covered, beh.k[q]);
            }
    }
    pto_free(s->ctx, used);
    pto_free(s->ctx, beh.k);
    pto_free(s->ctx, tup.k);
    pto_free(s->ctx, done.k);
}

static void sw_combo_free(sweep *s, sw_combo *c)
{
    pto_free(s->ctx, c->vmask);
    pto_free(s->ctx, c->smask);
    pto_free(s->ctx, c->encl);
    pto_free(s->ctx, c->parent);
    pto_free(s->ctx, c->cc);
    pto_free(s->ctx, c->tup);
    pto_free(s->ctx, c->poss.k);
}

/* The outcomes of loops and ifs that some value the sweep weighed shows but
   no run showed (review26 A-H2, B-L2): a note each, so that what went
   untested is said (a trip class that another name's window refuses, a loop
   never run past its slots, an if taken one way only). */
/* A behaviour as the notes below group it: no context; a loop's ring
   class (kind 5) as its trip class 8; 0: not one to note. */
static uint64_t sw_note_key(uint64_t k)
{
    int kind = (int)(k >> 56);
    k &= ~(uint64_t)0xf0;
    if (kind == 5) return (k & 0xf) ? (((uint64_t)1 << 56) | (k & ((uint64_t)0xffffffff << 8)) | 8) : 0;
    if (kind == 9) return (k & 0xf) == 3 ? k : 0;   /* two blocks' stores in one 32-byte block (review27 M1) */
    return kind == 1 || kind == 2 ? k : 0;
}

/* Why an outcome only refused values show went unrun, for its note: with
   one name, those values are refused; with more, the names whose refused
   values show it are refused with the others at their base values, which a
   value of both at once may not be (review27 L4: `for i = 0 to T1` 0 times
   is refused only while T2=3 reads row T1 - 1 - j; T1=0 T2=0 runs). */
static void sw_refused_why(sweep *s, sw_scan *scan, uint64_t head, uint32_t classes, char *out, size_t size)
{
    int i, n = 0, shows[SW_MAXN];
    int32_t j, q;
    size_t len;
    for (i = 0; i < s->n; i++) {
        shows[i] = 0;
        for (j = 0; j < scan[i].nv && !shows[i]; j++)
            if (sw_refused_at(&scan[i], j))
                for (q = scan[i].off[j]; q < scan[i].off[j + 1] && !shows[i]; q++) {
                    uint64_t k = sw_note_key(scan[i].keys[q]);
                    shows[i] = k && k >> 8 == head && (classes >> (k & 0xf) & 1);
                }
        n += shows[i];
    }
    if (s->n < 2 || !n || n == s->n) {
        snprintf(out, size, " (only values the sweep refuses to run do)");
        return;
    }
    snprintf(out, size, " (the sweep refuses the values of");
    for (i = 0; i < s->n; i++)
        if (shows[i] && (len = strlen(out)) < size) snprintf(out + len, size - len, " %s", pto_str(s->ctx, s->name[i]));
    len = strlen(out);
    if (len < size) snprintf(out + len, size - len, " that do with");
    for (i = 0, n = 0; i < s->n; i++) {
        if (shows[i] || (len = strlen(out)) >= size) continue;
        if (n++ == 4) { snprintf(out + len, size - len, " ..."); break; }
        snprintf(out + len, size - len, " %s=%lld", pto_str(s->ctx, s->name[i]), (long long)s->base[i]);
    }
    len = strlen(out);
    if (len < size) snprintf(out + len, size - len, ": -D them together to run it)");
}

/* A loop's trip class (sw_trip_class) in words, for the notes: classes 4
   and 5 split the trips past 3 at the tiles' slots per, so class 4 is
   "more than max(3, per)" and class 5 "4 to per" (review29 L5: "more
   than 2 times" for a loop that ran 3 times, "4 to 4 times"). */
static const char *sw_trip_words(int cls, int per, char *buf, size_t size)
{
    static const char *const tn[4] = {"0 times", "once", "2 times", "3 times"};
    if (cls < 4) return tn[cls];
    if (cls == 4 && per > 3) snprintf(buf, size, "more than %d times (its tiles' slots)", per);
    else if (cls == 4) snprintf(buf, size, "more than 3 times");
    else if (per == 4) snprintf(buf, size, "4 times (its tiles' slots)");
    else snprintf(buf, size, "4 to %d times (its tiles' slots)", per);
    return buf;
}

static void sw_class_notes(sweep *s, sw_scan *scan, const sw_set *shown, const sw_combo *c, pto_buf *notes)
{
    const pto_module *m = s->m;
    sw_set ok, ref, seen;
    int32_t i, j, q;
    int lines = 0, more = 0;
    memset(&ok, 0, sizeof ok);
    memset(&ref, 0, sizeof ref);
    memset(&seen, 0, sizeof seen);
    for (i = 0; i < s->n && !s->oom; i++)
        for (j = 0; j < scan[i].nv; j++)
            for (q = scan[i].off[j]; q < scan[i].off[j + 1]; q++) {
                uint64_t k = sw_note_key(scan[i].keys[q]);
                if (k) sw_insert(s, sw_refused_at(&scan[i], j) ? &ref : &ok, k);
            }
    for (q = 0; c && q < c->poss.n; q++)
        if ((c->poss.k[q] >> 60) != 15 && sw_note_key(c->poss.k[q])) sw_insert(s, &ok, sw_note_key(c->poss.k[q]));
    for (q = 0; q < ok.n; q++) sw_insert(s, &ref, ok.k[q]);   /* ref: all of them now */
    for (q = 0; q < shown->n; q++)
        if (sw_note_key(shown->k[q])) sw_insert(s, &seen, sw_note_key(shown->k[q]));
    for (q = 0; q < ref.n && !s->oom;) {
        uint64_t head = ref.k[q] >> 8;
        int kind = (int)(ref.k[q] >> 56), n = 0, budget = 0;
        uint32_t classes = 0;   /* the outcomes of the note */
        int32_t st = (int32_t)(uint32_t)(ref.k[q] >> 8);
        char what[200], why[200];
        what[0] = 0;
        for (; q < ref.n && ref.k[q] >> 8 == head; q++) {
            int cls = (int)(ref.k[q] & 0xf);
            size_t len = strlen(what);
            const char *frag = NULL;
            char buf[80];
            if (sw_has(&seen, ref.k[q])) continue;
            budget |= sw_has(&ok, ref.k[q]);
            classes |= 1u << cls;
            if (kind == 9) {
                frag = "different bytes of one 32-byte block of GM";
            } else if (kind == 1 && cls == 8) {
                snprintf(buf, sizeof buf, "more than %d times (its pipe ring's slots)", sw_ring_period(m, m->stmts[st].body, 0));
                frag = buf;
            } else if (kind == 1) {
                int per = sw_period(m, m->stmts[st].body);
                uint64_t ring = (head << 8) | 8;   /* its pipe ring's class, said below */
                if (cls == 4 && (per > 3 ? per : 3) == sw_ring_period(m, m->stmts[st].body, 0) && sw_has(&ref, ring) &&
                    !sw_has(&seen, ring))
                    continue;   /* the same trips as the ring's "more than N" below: said once */
                frag = sw_trip_words(cls, per, buf, sizeof buf);
            } else frag = cls == 0 ? "not taken" : cls == 1 ? "taken" : "taken one way at its loop's first iteration and the other at the last";
            snprintf(what + len, sizeof what - len, "%s%s", n ? ", " : "", frag);
            n++;
        }
        if (!n) continue;
        if (lines == 12) { more++; continue; }
        lines++;
        why[0] = 0;
        if (!budget) sw_refused_why(s, scan, head, classes, why, sizeof why);
        if (kind == 9)   /* the race a block's share that is not whole 32-byte blocks makes at its boundary */
            pto_buf_printf(notes, "  note: no run had blocks 0 and 1 store %s with the store at line %d%s\n", what,
                           m->stmts[st].loc.line, why);
        else
            pto_buf_printf(notes, "  note: no run %s at line %d %s%s\n", kind == 2 ? "saw the if" : "ran the loop",
                           m->stmts[st].loc.line, what, why);
    }
    if (more) pto_buf_printf(notes, "  note: and %d more loop%s or if%s so\n", more, more == 1 ? "" : "s", more == 1 ? "" : "s");
    pto_free(s->ctx, ok.k);
    pto_free(s->ctx, ref.k);
    pto_free(s->ctx, seen.k);
}

/* Whether param v is a host's. */
static int host_param(const pto_module *m, int32_t v)
{
    int32_t h;
    for (h = 0; h < m->n_hosts; h++)
        if (v >= m->hosts[h].param0 && v < m->hosts[h].param0 + m->hosts[h].nparams) return 1;
    return 0;
}

/* ptoc run --sweep: FILE is emitted and compiled into bin (or DIR as it
   is: path is then the .pto its program embeds); run it at the value sets
   the comment above describes. shown: FILE or DIR, for the report and its
   rerun lines. fixed: the other options of the harness (--seed, --ranks,
   --max-instr), shell-quoted. rerun: the options of the compile (--no-sync,
   --tight, --cc) that the rerun lines add to them (review29 M3). */
/* The rank counts a sweep of a file with a ranks kernel runs besides its
   base count: 1, 2, 3, 4 and the least count of 5 or more in LO..HI
   (review22 M2: a ring that reuses a slot races from 4 ranks, a pairwise
   exchange needs an even count; the sweep ran the `# run:` count only).
   Returns how many, in out[5]. */
static int sw_rank_counts(int64_t base, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t c;
    int n = 0;
    for (c = 1; c <= 5 && c <= hi; c++) {
        int64_t v = c == 5 ? (lo > 5 ? lo : 5) : c;
        if (v >= lo && v <= hi && v != base) out[n++] = v;
    }
    return n;
}

/* Appends item to a list of space-separated items (cut at its size). */
static void sw_listed(char *list, size_t size, const char *item)
{
    size_t n = strlen(list);
    if (n + strlen(item) + 2 < size) snprintf(list + n, size - n, "%s%s", n ? " " : "", item);
}

static int sweep_file(pto_ctx *ctx, const char *path, const char *src, size_t srclen, const char *shown,
                      const sw_defs *given, const sw_defs *ranges,
                      const char *bin, const char *fixed, const char *rerun, const char *tmp, int max_runs,
                      int64_t nranks, int64_t rlo, int64_t rhi, int ranks_set)
{
    sw_defs defs_all, *defs = &defs_all;
    sweep s;
    sw_scan scan[SW_MAXN];
    sw_set cur, seen;
    sw_tally t;
    pto_buf notes;
    sw_combo combo;
    int have_combo = 0;
    size_t len = 0;
    char *text = text_of(path, src, srclen, &len);
    pto_module *m = text ? pto_parse(ctx, shown, text, len) : NULL;
    int i, progress, given_up = 0, unreached = 0, rc, has_ranks = 0, nrc = 0;
    int32_t v, j, q;
    int64_t rcount[5], rasked = 0, asked[SW_MAXN];
    char invented[600];   /* "N=64 alpha=1.5": the values no -D gave */
    invented[0] = 0;
    memset(&s, 0, sizeof s);
    s.given = 1;
    s.rerun = rerun;
    memset(scan, 0, sizeof scan);
    memset(&cur, 0, sizeof cur);
    memset(&seen, 0, sizeof seen);
    memset(&notes, 0, sizeof notes);
    memset(&combo, 0, sizeof combo);
    notes.ctx = ctx;
    memset(&t, 0, sizeof t);
    if (!m || pto_verify(ctx, m) != PTO_OK) {   /* emit passed on the same text: not expected */
        pto_diag_print(ctx, stderr);
        pto_module_destroy(m);
        free(text);
        return 1;
    }
    /* a float scalar nobody gave a value gets 1.5, so that a sweep runs without any -D; in a
       file with hosts, only the hosts' (the calls bind their kernels' scalars) */
    memcpy(defs, given, sizeof *defs);
    for (v = 0; v < m->n_params; v++) {
        const char *nm = pto_str(ctx, m->params[v].name);
        char def[200];
        if (m->params[v].kind != PTO_P_SCALAR || m->params[v].dtype == PTO_I32 || m->params[v].dtype == PTO_I8 ||
            defs_find(defs, nm, strlen(nm)) >= 0 || (m->n_hosts && !host_param(m, v)))
            continue;
        snprintf(def, sizeof def, "%s=1.5", nm);
        defs_add(defs, def);
        sw_listed(invented, sizeof invented, def);
    }
    for (i = 0; i < ranges->n; i++) {   /* a range names a dim or an integer scalar */
        const char *eq = strchr(ranges->def[i], '=');
        for (v = 0; v < m->n_vars; v++) {
            const pto_var *x = &m->vars[v];
            const char *nm = pto_str(ctx, x->name);
            if (strlen(nm) == (size_t)(eq - ranges->def[i]) && strncmp(nm, ranges->def[i], strlen(nm)) == 0 &&
                (x->kind == PTO_V_DIM || (x->kind == PTO_V_SCALAR && x->def >= 0 && x->def < m->n_params &&
                                          (m->params[x->def].dtype == PTO_I32 || m->params[x->def].dtype == PTO_I8))))
                break;
        }
        if (v == m->n_vars) {
            fprintf(stderr, "ptoc: error: -D %s: %s has no dynamic dim or integer scalar named '%.*s' to sweep over a range\n",
                    ranges->def[i], shown, (int)(eq - ranges->def[i]), ranges->def[i]);
            pto_module_destroy(m);
            free(text);
            return 1;
        }
    }
    s.ctx = ctx;
    s.m = m;
    for (v = 0; v < m->n_kernels; v++) has_ranks |= m->kernels[v].ranks != 0;
    if (has_ranks) {   /* the rank count is swept too: the base count moved into LO..HI */
        if (nranks < rlo || nranks > rhi) {
            rasked = nranks;
            nranks = nranks < rlo ? rlo : rhi;
            s.given = 0;
        }
        s.runranks = nranks;
        nrc = sw_rank_counts(nranks, rlo, rhi, rcount);
    }
    s.nranks = nranks;
    s.val = (int64_t *)pto_alloc(ctx, (size_t)(m->n_vars + 1) * sizeof *s.val);
    s.known = (unsigned char *)pto_alloc(ctx, (size_t)(m->n_vars + 1));
    s.tvr = (int64_t *)pto_alloc(ctx, (size_t)(m->n_tiles + 1) * sizeof *s.tvr);
    s.tvc = (int64_t *)pto_alloc(ctx, (size_t)(m->n_tiles + 1) * sizeof *s.tvc);
    s.if_walk = (int32_t *)pto_alloc(ctx, (size_t)(m->n_stmts + 1) * sizeof *s.if_walk);
    s.if_first = (unsigned char *)pto_alloc(ctx, (size_t)(m->n_stmts + 1));
    s.wgen = (int32_t *)pto_alloc(ctx, (size_t)(m->n_stmts + 1) * sizeof *s.wgen);
    s.win = (int64_t *)pto_alloc(ctx, (size_t)(m->n_stmts + 1) * 4 * sizeof *s.win);
    s.iwalk = (int32_t *)pto_alloc(ctx, (size_t)(m->n_stmts + 1) * sizeof *s.iwalk);
    s.iwin = (int64_t *)pto_alloc(ctx, (size_t)(m->n_stmts + 1) * 4 * sizeof *s.iwin);
    s.ifgm = (unsigned char *)pto_alloc(ctx, (size_t)(m->n_stmts + 1));
    if (!s.val || !s.known || !s.tvr || !s.tvc || !s.if_walk || !s.if_first || !s.wgen || !s.win || !s.iwalk || !s.iwin ||
        !s.ifgm)
        s.oom = 1;
    for (v = 0; !s.oom && v < m->n_stmts; v++) {
        s.if_walk[v] = s.wgen[v] = s.iwalk[v] = 0;
        s.ifgm[v] = (unsigned char)(m->stmts[v].kind == PTO_ST_FOR && sw_if_gm(m, m->stmts[v].body, 0, 0));
    }
    /* the names: dynamic dims and integer scalars, of kernels and hosts */
    for (v = 0; v < m->n_vars && !s.oom; v++) {
        const pto_var *x = &m->vars[v];
        int isdim = x->kind == PTO_V_DIM, d, own = 0;
        const char *nm = pto_str(ctx, x->name);
        if (!isdim && !(x->kind == PTO_V_SCALAR && x->def >= 0 && x->def < m->n_params &&
                        (m->params[x->def].dtype == PTO_I32 || m->params[x->def].dtype == PTO_I8)))
            continue;
        if (m->n_hosts && x->kernel >= 0) continue;   /* a host runs the kernels: its calls bind their names */
        for (i = 0; i < s.n && s.name[i] != x->name; i++)
            ;
        if (i < s.n || s.n == SW_MAXN) continue;
        s.name[i] = x->name;
        s.dim[i] = isdim;
        s.lo[i] = isdim ? 1 : -4;
        s.step[i] = 1;
        s.hi[i] = !isdim && m->params[x->def].dtype == PTO_I8 ? 127 : SW_HI;
        s.base[i] = isdim ? 64 : 1;
        d = defs_find(defs, nm, strlen(nm));
        if (d < 0) s.given = 0, own = 1;
        if (d >= 0) {   /* NAME=VALUE: where the scan starts; not a silent 64 when it is no integer */
            char *endp;
            long long b;
            if (!whole_ll(strchr(defs->def[d], '=') + 1, &endp, &b) || *endp || !sw_fits(m, x, b, b)) {
                fprintf(stderr, "ptoc: error: -D %s: a swept name takes an integer in the range of %s\n", defs->def[d],
                        isdim ? "a dim (1..2^62)" : "the scalar's dtype");
                s.oom = 3;
                break;
            }
            s.base[i] = b;
            /* the default domain takes the user's own value in (the header said "from -7,
               -4..4096"), as far as the scan's bounded width allows */
            if (b < s.lo[i] && s.hi[i] - b <= 16383) s.lo[i] = b;
            if (b > s.hi[i] && b - s.lo[i] <= 16383) s.hi[i] = b;
        }
        s.cap[i] = d >= 0 ? sw_tz(s.base[i]) : 4;
        asked[i] = INT64_MIN;   /* (a value given outside LO..HI: said below) */
        d = defs_find(ranges, nm, strlen(nm));
        if (d >= 0) {   /* NAME=LO..HI: the values the kernel takes */
            char *endp;
            long long lo, hi = 0, step = 1;
            int ok = whole_ll(strchr(ranges->def[d], '=') + 1, &endp, &lo) && strncmp(endp, "..", 2) == 0;
            if (ok) ok = whole_ll(endp + 2, &endp, &hi);
            if (ok && *endp == '/') ok = whole_ll(endp + 1, &endp, &step) && step >= 1;   /* NAME=LO..HI/STEP */
            if (!ok || *endp || lo > hi || !sw_fits(m, x, lo, hi)) {
                fprintf(stderr, "ptoc: error: -D %s: want NAME=LO..HI or NAME=LO..HI/STEP, LO <= HI, in the range of "
                        "%s, STEP >= 1\n", ranges->def[d], isdim ? "a dim (1..2^62)" : "the scalar's dtype");
                s.oom = 3;
                break;
            }
            s.lo[i] = lo;
            s.step[i] = step;
            hi = lo + (hi - lo) / step * step;   /* the last value on the grid */
            s.hi[i] = (hi - lo) / step > 16383 ? lo + 16383 * step : hi;   /* the scan's width is bounded */
            if (s.base[i] < lo || s.base[i] > hi) s.given = 0;   /* moved into LO..HI: not the user's value */
            if (defs_find(defs, nm, strlen(nm)) >= 0 && (s.base[i] < lo || s.base[i] > hi)) asked[i] = s.base[i];
            if (s.base[i] < lo) s.base[i] = lo;
            if (s.base[i] > hi) s.base[i] = hi;
        }
        if (own) {
            char def[200];
            snprintf(def, sizeof def, "%s=%lld", nm, (long long)s.base[i]);
            sw_listed(invented, sizeof invented, def);
        }
        s.n++;
    }
    if (s.oom == 3) {
        sw_free(&s, m, text);
        return 1;
    }
    printf("sweep %s\n", shown);
    /* the values the sweep gave names nothing gave one (review27 L3: `ptoc run` refuses the file
       without them; the sweep ran at them without a word) */
    if (invented[0])
        printf("  note: %s: the sweep's own values (no -D or '# run:' line gives them; ptoc run needs them): a dim "
               "starts at 64 (an integer scalar at 1) or in its -D range, a float scalar is 1.5 in every run\n", invented);
    /* a value given (-D or `# run:`) outside the range given (review22 L4: it was dropped silently) */
    for (i = 0; i < s.n; i++)
        if (asked[i] != INT64_MIN)
            printf("  note: %s=%lld (the -D or '# run:' value) is outside %s=%lld..%lld: %s starts at %lld and no run "
                   "is made at %lld\n", pto_str(ctx, s.name[i]), (long long)asked[i], pto_str(ctx, s.name[i]),
                   (long long)s.lo[i], (long long)s.hi[i], pto_str(ctx, s.name[i]), (long long)s.base[i],
                   (long long)asked[i]);
    if (rasked)
        printf("  note: --ranks %lld (%s) is outside --ranks %lld..%lld: the sweep starts at %lld ranks and no run is "
               "made at %lld\n", (long long)rasked, ranks_set ? "the command line's or the '# run:' line's" : "the default",
               (long long)rlo, (long long)rhi, (long long)nranks, (long long)rasked);
    /* each name's behaviours over its range */
    for (i = 0; i < s.n && !s.oom; i++) {
        sw_scan *sc = &scan[i];
        int32_t nk = 0, capk = 256;
        sc->nv = (int32_t)((s.hi[i] - s.lo[i]) / s.step[i] + 1);
        sc->off = (int32_t *)pto_alloc(ctx, (size_t)(sc->nv + 1) * sizeof *sc->off);
        sc->tried = (unsigned char *)pto_alloc(ctx, (size_t)sc->nv);
        sc->keys = (uint64_t *)pto_alloc(ctx, (size_t)capk * sizeof *sc->keys);
        if (!sc->off || !sc->tried || !sc->keys) { s.oom = 1; break; }
        memset(sc->tried, 0, (size_t)sc->nv);
        for (j = 0; j < sc->nv && !s.oom; j++) {
            memcpy(s.cur, s.base, sizeof s.cur);
            s.cur[i] = sw_at(&s, i, j);
            sw_behaviours(&s, &cur);
            sc->off[j] = nk;
            if (nk + cur.n > capk) {
                uint64_t *k;
                while (nk + cur.n > capk) capk *= 2;
                k = (uint64_t *)pto_realloc(ctx, sc->keys, (size_t)capk * sizeof *k);
                if (!k) { s.oom = 1; break; }
                sc->keys = k;
            }
            if (cur.n) memcpy(sc->keys + nk, cur.k, (size_t)cur.n * sizeof *cur.k);   /* cur.k is NULL when empty */
            nk += cur.n;
        }
        sc->off[sc->nv] = nk;
        if (!s.oom) sw_header(&s, sc, i);
        if (s.base[i] >= s.lo[i] && s.base[i] <= s.hi[i] && (s.base[i] - s.lo[i]) % s.step[i] == 0)
            sc->tried[(s.base[i] - s.lo[i]) / s.step[i]] = 1;
    }
    if (has_ranks) {
        printf("  --ranks (from %lld, %lld..%lld): a ranks kernel: ", (long long)nranks, (long long)rlo, (long long)rhi);
        if (!nrc) printf("no other rank count to run\n");
        for (i = 0; i < nrc; i++)
            printf("%s%lld%s", i == 0 ? "also run at " : i == nrc - 1 ? " and " : ", ", (long long)rcount[i],
                   i == nrc - 1 ? (nrc == 1 && rcount[i] == 1 ? " rank\n" : " ranks\n") : "");
    }
    if (!s.n && !has_ranks) printf("  no dynamic dim or integer scalar: one run\n");
    /* the base run, then the value showing the most new behaviours, name by name */
    if (!s.oom) {
        memcpy(s.cur, s.base, sizeof s.cur);
        if (sw_run_one(&s, defs, bin, fixed, tmp, shown, &t, s.given)) {
            sw_behaviours(&s, &cur);
            for (q = 0; q < cur.n; q++) sw_insert(&s, &seen, cur.k[q]);
            for (i = 0; i < s.n; i++)
                for (q = 0; q < cur.n; q++) sw_insert(&s, &scan[i].covered, cur.k[q]);
        }
    }
    do {
        progress = 0;
        for (i = 0; i < s.n && t.runs < max_runs && !s.oom; i++) {
            sw_scan *sc = &scan[i];
            int32_t best = -1, bestnew = 0;
            int bestr = 0;
            for (j = 0; j < sc->nv; j++) {
                int32_t nw = 0;
                int64_t val = sw_at(&s, i, j);
                int r = sw_tz(val) < s.cap[i] ? sw_tz(val) : s.cap[i];
                if (sc->tried[j] || (sc->off[j] < sc->off[j + 1] && sc->keys[sc->off[j]] == 0)) continue;
                for (q = sc->off[j]; q < sc->off[j + 1]; q++) nw += !sw_has(&sc->covered, sc->keys[q]);
                if (!nw) continue;
                /* most new behaviours, then roundest, then smallest (|v|: a scalar may be negative) */
                if (best < 0 || nw > bestnew || (nw == bestnew && (r > bestr || (r == bestr &&
                    (val < 0 ? -val : val) < (sw_at(&s, i, best) < 0 ? -(sw_at(&s, i, best)) : sw_at(&s, i, best))))))
                    best = j, bestnew = nw, bestr = r;
            }
            if (best < 0) continue;
            progress = 1;
            sc->tried[best] = 1;
            memcpy(s.cur, s.base, sizeof s.cur);
            s.cur[i] = sw_at(&s, i, best);
            if (sw_run_one(&s, defs, bin, fixed, tmp, shown, &t, 0)) {
                for (q = sc->off[best]; q < sc->off[best + 1]; q++) {
                    sw_insert(&s, &sc->covered, sc->keys[q]);
                    sw_insert(&s, &seen, sc->keys[q]);
                }
            } else {
                /* a behaviour only refused values show gets one more value, then is given up */
                for (q = sc->off[best]; q < sc->off[best + 1]; q++) {
                    uint64_t key = sc->keys[q];
                    if (sw_has(&sc->covered, key)) continue;
                    if (sw_has(&sc->refused_once, key)) sw_insert(&s, &sc->covered, key), given_up++;
                    else sw_insert(&s, &sc->refused_once, key);
                }
            }
        }
    } while (progress && t.runs < max_runs && !s.oom);
    if (!s.oom && s.n >= 2) sw_joint(&s, scan, &seen, defs, bin, fixed, tmp, shown, &t, max_runs, &notes);
    if (!s.oom && s.n >= 2 && sw_combo_setup(&s, &combo)) {
        sw_combine(&s, scan, &seen, &combo, defs, bin, fixed, tmp, shown, &t);
        have_combo = 1;
    }
    if (!s.oom) sw_idle_note(&s, &seen, &notes);
    if (!s.oom) sw_class_notes(&s, scan, &seen, have_combo ? &combo : NULL, &notes);
    /* the other rank counts, every name at its base value: outside --sweep-runs (5 at most) */
    for (i = 0; i < nrc && !s.oom; i++) {
        memcpy(s.cur, s.base, sizeof s.cur);
        s.runranks = rcount[i];
        sw_run_one(&s, defs, bin, fixed, tmp, shown, &t, 0);
    }
    s.runranks = nranks;
    for (i = 0; i < s.n && !s.oom; i++) {   /* behaviours that no run showed: why */
        sw_scan *sc = &scan[i];
        sw_set u, later;
        memset(&u, 0, sizeof u);
        memset(&later, 0, sizeof later);
        for (j = 0; j < sc->nv; j++) {
            int untried = !sc->tried[j];
            if (sc->off[j] < sc->off[j + 1] && sc->keys[sc->off[j]] == 0) continue;   /* not a value to run */
            for (q = sc->off[j]; q < sc->off[j + 1]; q++)
                if (!sw_has(&sc->covered, sc->keys[q])) sw_insert(&s, untried ? &later : &u, sc->keys[q]);
        }
        unreached += later.n;   /* a value not run yet shows them: the run budget */
        for (q = 0; q < u.n; q++) given_up += !sw_has(&later, u.k[q]);   /* only refused values do */
        pto_free(ctx, u.k);
        pto_free(ctx, later.k);
    }
    if (s.oom) {
        fprintf(stderr, "ptoc: error: out of memory\n");
        rc = 2;
    } else {
        printf("sweep: %d run%s: %d match, %d failed, %d refused\n", t.runs, t.runs == 1 ? "" : "s", t.pass, t.fail,
               t.refused);
        if (given_up)
            printf("  note: %d behaviour%s shown only by values the kernel refused\n", given_up, given_up == 1 ? "" : "s");
        if (unreached)
            printf("  note: %d behaviour%s not shown within %d run%s (--sweep-runs N runs more)\n", unreached,
                   unreached == 1 ? "" : "s", max_runs, max_runs == 1 ? "" : "s");
        if (notes.data && !notes.oom) fputs(notes.data, stdout);
        if (!t.pass && !t.fail) printf("  no run was accepted: nothing was judged\n");
        rc = t.fail || !t.pass ? 1 : 0;
    }
    for (i = 0; i < SW_MAXN; i++) {
        pto_free(ctx, scan[i].off);
        pto_free(ctx, scan[i].keys);
        pto_free(ctx, scan[i].tried);
        pto_free(ctx, scan[i].covered.k);
        pto_free(ctx, scan[i].refused_once.k);
    }
    pto_free(ctx, cur.k);
    pto_free(ctx, seen.k);
    pto_buf_free(&notes);
    sw_combo_free(&s, &combo);
    sw_free(&s, m, text);
    return rc;
}

/* Is option NAME (e.g. "--ranks", or "-D" with a dim name) already on the command line? */
static int cli_has(int argc, char **argv, const char *opt, const char *dname, size_t dlen)
{
    int i;
    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!dname) {
            if (strcmp(a, opt) == 0 && !(i + 1 < argc && strstr(argv[i + 1], ".."))) return 1;   /* (--ranks LO..HI: --sweep's) */
            continue;
        }
        if (strcmp(a, "-D") == 0 && i + 1 < argc) v = argv[i + 1];
        else if (strncmp(a, "-D", 2) == 0) v = a + 2;
        if (v && strncmp(v, dname, dlen) == 0 && v[dlen] == '=' && !strstr(v, "..")) return 1;   /* (a range is --sweep's) */
    }
    return 0;
}

/* A UTF-8 byte-order mark at the start of a text (what Windows editors
   write) is skipped, as the parser skips it. */
/* A blank of a `# run:` / `# sweep:` line: a CRLF file's '\r' is one, as
   for the parser (review22 M1: the last value kept it and the harness said
   "the value is not a number" of a value that printed fine). */
static int line_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static char *skip_bom(char *text)
{
    return strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? text + 3 : text;
}

/* The `# run:` line of a .pto text (NULL: none) and its number in *lineno;
   cuts the text at its end. */
static char *run_line_pto(char *text, int *lineno, char **start, int *near)
{
    char *line, *end;
    *lineno = 0;
    for (line = skip_bom(text); line && *line; line = end ? end + 1 : NULL) {
        const char *p = line;
        end = strchr(line, '\n');
        if (end) *end = 0;
        ++*lineno;
        *start = line;
        if (strncmp(line, "# run:", 6) == 0) return line;
        /* "#run:", "  # run:", "#  run:": almost the line (review20 L7) */
        while (*p == ' ' || *p == '\t') p++;
        if (*p++ != '#') continue;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "run:", 4) == 0 && !*near) *near = *lineno;
    }
    return NULL;
}

/* The same line in an emitted host.c, where the .pto text is embedded one
   C string per line: `    "# run: -D N=64\n",`. A line with other escapes
   is not guessed at (NULL). */
static char *run_line_host(char *text, int *lineno, char **start)
{
    char *line, *end, *q;
    *lineno = 0;
    for (line = text; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end) *end = 0;
        ++*lineno;
        *start = line;
        while (*line == ' ') line++;
        if (strncmp(line, "\"\\357\\273\\277", 13) == 0) {   /* the text's byte-order mark, escaped */
            line += 12;
            *line = '"';
        }
        if (strncmp(line, "\"# run:", 7) != 0) continue;
        q = strstr(line, "\\n\",");
        if (!q) return NULL;
        if (q - line >= 4 && strncmp(q - 4, "\\015", 4) == 0) q -= 4;   /* a CRLF text's '\r' */
        *q = 0;
        return strchr(line + 1, '\\') ? NULL : line + 1;
    }
    return NULL;
}

/* A .pto file's own launch defaults: its first `# run: -D N=64 --ranks 4`
   line (for an emitted DIR, the line embedded in DIR/host.c). Each option
   there is added unless the command line gives it too, so
   `ptoc run examples/softmax.pto` works as the demo runs it, and so does
   `ptoc run DIR` on what `ptoc emit` made of it. Returns 1 after an error
   of the line (said with its file and line), else 0. */
static int file_defaults(const char *path, const char *given, size_t glen, int is_dir, int argc, char **argv, char *cmd,
                         size_t size, sw_defs *defs)
{
    size_t len = 0;
    char hpath[4200], *text, *line, *start = NULL, *tok[64];
    int n = 0, i, lineno = 0, rc = 0, near = 0;
    if (is_dir) snprintf(hpath, sizeof hpath, "%s/host.c", path);
    text = is_dir ? read_all(hpath, &len) : text_of(path, given, glen, &len);
    if (!text) return 0;
    line = is_dir ? run_line_host(text, &lineno, &start) : run_line_pto(text, &lineno, &start, &near);
    if (!line && near)
        fprintf(stderr, "ptoc: warning: %s:%d: not read as the '# run:' line: write it as '# run: ...' at the start "
                "of the line\n", path, near);
    if (line) {
        char *p = line + 6;
        while (n < 64) {
            while (line_space(*p)) p++;
            if (!*p) break;
            tok[n++] = p;
            while (*p && !line_space(*p)) p++;
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
            strcmp(opt, "--max-instr") == 0 || strcmp(opt, "--inputs") == 0) {
            if (i + 1 >= n) {
                fprintf(stderr, "ptoc: warning: %s: '# run:' option '%s' has no value\n", path, opt);
                break;
            }
            val = tok[++i];
        } else if (strncmp(opt, "-D", 2) == 0) {
            val = opt + 2;
            opt = "-D";
        } else {
            /* its values too (tokens up to the next option): one warning for '--frob 3' */
            int j = i;
            while (j + 1 < n && tok[j + 1][0] != '-') j++;
            fprintf(stderr, "ptoc: warning: %s: '# run:' option '", path);
            for (; i <= j; i++) fprintf(stderr, "%s%s", tok[i], i < j ? " " : "");
            i = j;
            fprintf(stderr, "' is ignored (the line takes -D NAME=VALUE, --seed S, --inputs grid|full, --ranks N and "
                    "--max-instr N)\n");
            continue;
        }
        eq = strchr(val, '=');
        if (strcmp(opt, "-D") == 0 && (!eq || eq == val)) {   /* `# run: -D N`: the harness would say only "bad -D" */
            fprintf(stderr, "%s:%d:%d: error: the '# run:' line's -D '%s' has no value (write -D NAME=VALUE)\n",
                    is_dir ? hpath : path, lineno, (int)(val - start) + 1, val);
            rc = 1;
            break;
        }
        given = strcmp(opt, "-D") == 0 ? eq && cli_has(argc, argv, "-D", val, (size_t)(eq - val))
                                       : cli_has(argc, argv, opt, NULL, 0);
        if (given) continue;
        if (defs && strcmp(opt, "-D") == 0) {   /* a sweep sets -D values itself */
            defs_add(defs, val);
            continue;
        }
        shell_add(cmd, size, " ", opt);
        shell_add(cmd, size, " ", val);
    }
    free(text);
    return rc;
}

/* A .pto file's `# sweep: -D K=1..64 --sweep-runs 20` line: the values a
   sweep may give each name (the kernel's domain: a K loop that must run at
   least once) and its run count. Read by run --sweep only; the command
   line's -D ranges and --sweep-runs override it. Returns 0, or 1 after
   saying what is wrong with the line. */
static int sweep_line(const char *path, const char *given, size_t glen, int argc, char **argv, sw_defs *ranges,
                      int *max_runs, int64_t *rlo, int64_t *rhi, int ranks_range_given)
{
    size_t len = 0;
    char *text = text_of(path, given, glen, &len), *line, *end, *tok[64], *p;
    int n = 0, i, rc = 0, lineno = 0;
    if (!text) return 0;
    for (line = skip_bom(text); line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end) *end = 0;
        lineno++;
        if (strncmp(line, "# sweep:", 8) == 0) break;
    }
    for (p = line && *line ? line + 8 : NULL; p && n < 64;) {   /* (*line == 0: the text ended, no such line) */
        while (line_space(*p)) p++;
        if (!*p) break;
        tok[n++] = p;
        while (*p && !line_space(*p)) p++;
        if (*p) *p++ = 0;
    }
    for (i = 0; i < n && !rc; i++) {
        const char *val = i + 1 < n ? tok[i + 1] : "", *eq;
        if (strcmp(tok[i], "--sweep-runs") == 0) {
            char *e;
            long r = strtol(val, &e, 10);
            if (!*val || *e || r < 1 || r > 1000) {
                fprintf(stderr, "%s:%d:1: error: the '# sweep:' line's --sweep-runs takes a count in 1..1000, not "
                        "'%s'\n", path, lineno, val);
                rc = 1;
            } else if (!cli_has(argc, argv, "--sweep-runs", NULL, 0)) {
                *max_runs = (int)r;
            }
            i++;
        } else if (strcmp(tok[i], "--ranks") == 0) {
            int64_t lo, hi;
            if (!sweep_rank_range(val, &lo, &hi)) {
                fprintf(stderr, "%s:%d:1: error: the '# sweep:' line's --ranks takes a range LO..HI of rank counts in "
                        "1..64, not '%s'\n", path, lineno, val);
                rc = 1;
            } else if (!ranks_range_given) {
                *rlo = lo;
                *rhi = hi;
            }
            i++;
        } else if (strcmp(tok[i], "-D") == 0) {
            char *e;
            long long lo, hi, step = 1;
            if (!(eq = strchr(val, '=')) || !strstr(eq, "..")) {
                fprintf(stderr, "%s:%d:1: error: the '# sweep:' line's -D takes a range NAME=LO..HI (the values to "
                        "sweep; a single value goes on the '# run:' line), not '%s'\n", path, lineno, val);
                rc = 1;
            } else if (!whole_ll(eq + 1, &e, &lo) || strncmp(e, "..", 2) != 0 || !whole_ll(e + 2, &e, &hi) ||
                       (*e == '/' && (!whole_ll(e + 1, &e, &step) || step < 1)) || *e || lo > hi) {
                /* said at the line (review27 L8: "ptoc: error: -D N=5..2: ..." named no file) */
                fprintf(stderr, "%s:%d:1: error: the '# sweep:' line's -D %s: want NAME=LO..HI or NAME=LO..HI/STEP, "
                        "LO <= HI, STEP >= 1\n", path, lineno, val);
                rc = 1;
            } else if (defs_find(ranges, val, (size_t)(eq - val)) < 0) {
                defs_add(ranges, val);
            }
            i++;
        } else if (tok[i][0] == '-') {
            /* an unknown option (and its values) is ignored with a warning, as on the '# run:' line (review26a L2) */
            int j = i;
            while (j + 1 < n && tok[j + 1][0] != '-') j++;
            fprintf(stderr, "ptoc: warning: %s: '# sweep:' option '", path);
            for (; i <= j; i++) fprintf(stderr, "%s%s", tok[i], i < j ? " " : "");
            i = j;
            fprintf(stderr, "' is ignored (the line takes -D NAME=LO..HI, --ranks LO..HI and --sweep-runs N)\n");
        } else {   /* review17: a comment that happens to start '# sweep:' is read as the directive */
            fprintf(stderr, "%s:%d:1: error: the '# sweep:' line takes -D NAME=LO..HI, --ranks LO..HI and --sweep-runs N, not '%s' (a "
                    "comment that starts '# sweep:' is read as that line: reword it)\n", path, lineno, tok[i]);
            rc = 1;
        }
    }
    free(text);
    return rc;
}

/* Whether the shell finds the command that cc (a command, maybe with
   options) starts with. */
static int cc_found(const char *cc)
{
    char cmd[600], word[256];
    size_t n = strcspn(cc, " \t");
    if (n == 0 || n >= sizeof word) return 1;   /* nothing to say better than the compile's failure */
    memcpy(word, cc, n);
    word[n] = 0;
    cmd[0] = 0;
    shell_add(cmd, sizeof cmd, "command -v ", NULL);
    shell_quote(cmd, sizeof cmd, word);
    shell_add(cmd, sizeof cmd, " >/dev/null 2>&1", NULL);
    return system(cmd) == 0;
}

/* Removes run's scratch directory and everything in it (flat: run makes
   no subdirectories). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4500];
    if (d) {
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            remove(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The .pto text an emitted DIR's program embeds (its reference), written
   by the program itself (`--source`) to tmp/source.pto, whose path goes
   in out. 0, or 1 when the program could not give it. */
static int dir_source(const char *bin, const char *dir, const char *tmp, char *out, size_t size)
{
    char cmd[9000];
    snprintf(out, size, "%s/source.pto", tmp);
    cmd[0] = 0;
    shell_add(cmd, sizeof cmd, "", bin);
    shell_add(cmd, sizeof cmd, " --source >", out);
    if (system(cmd) != 0) {
        fprintf(stderr, "ptoc: error: the program of %s did not print its .pto text (run --sweep DIR needs a host.c "
                "from this ptoc's emit)\n", dir);
        return 1;
    }
    return 0;
}

/* The options of a sweep's compile that its rerun lines must repeat (a
   run without them compiles another kernel: review29 M3): --no-sync and
   --tight (opts: 0 for a DIR, which is compiled already) and a --cc CC
   given on the command line (cc; NULL when $CC or cc compiles: the rerun's
   shell has the same $CC). */
static void sweep_rerun(int opts, const char *cc, char *out, size_t size)
{
    out[0] = 0;
    if (opts & EMIT_NO_SYNC) shell_add(out, size, " --no-sync", NULL);
    if (opts & EMIT_TIGHT) shell_add(out, size, " --tight", NULL);
    if (cc) shell_add(out, size, " --cc ", cc);
}

static int cmd_run(pto_ctx *ctx, int argc, char **argv)
{
    const char *target = NULL, *cc = getenv("CC");
    char inc[4096], tmp[4096], bin[4200], cmd[16384], src[4300], rerun[600];
    const char *tmpdir = getenv("TMPDIR");
    const char *dir;
    struct stat sb;
    int i, rc, opts = 0, sweep = 0, max_runs = 12, trace = 0, cc_given = 0;
    int64_t nranks = 2, rlo = 1, rhi = 64;
    int ranks_range = 0;
    sw_defs defs, ranges;
    char *text = NULL;   /* FILE's text, read once */
    size_t textlen = 0;
    cmd[0] = rerun[0] = 0;
    defs.n = ranges.n = 0;
    if (!cc || !*cc) cc = "cc";
    static const char *const valued[] = {"--cc", "-D", "--seed", "--inputs", "--trace", "--ranks", "--max-instr", "--sweep-runs",
                                         NULL};
    for (i = 2; i < argc; i++)   /* --sweep first: it decides where -D values go */
        if (strcmp(argv[i], "--sweep") == 0) sweep = 1;
    for (i = 2; i < argc; i++) {
        if (missing_value(argc, argv, i, valued)) return usage_error("run", "run: a value must follow", argv[i]);
        if (strcmp(argv[i], "--cc") == 0) cc = argv[++i], cc_given = 1;
        else if (strcmp(argv[i], "--no-sync") == 0) opts |= EMIT_NO_SYNC;
        else if (strcmp(argv[i], "--tight") == 0) opts |= EMIT_TIGHT;
        else if (strcmp(argv[i], "--sweep") == 0) continue;
        else if (strcmp(argv[i], "--sweep-runs") == 0) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 1000) return usage_error("run", "run: --sweep-runs takes a count in 1..1000, not", argv[i]);
            max_runs = (int)n;
        } else if (sweep && strcmp(argv[i], "--ranks") == 0 && strstr(argv[i + 1], "..")) {
            if (!sweep_rank_range(argv[++i], &rlo, &rhi))
                return usage_error("run", "run: --ranks LO..HI takes rank counts in 1..64, LO <= HI, not", argv[i]);
            ranks_range = 1;
        } else if (sweep && (strcmp(argv[i], "-D") == 0 || strncmp(argv[i], "-D", 2) == 0)) {
            const char *d = strcmp(argv[i], "-D") == 0 ? argv[++i] : argv[i] + 2;
            defs_add(strstr(d, "..") ? &ranges : &defs, d);   /* NAME=LO..HI: the values to sweep */
        }
        else if ((strcmp(argv[i], "-D") == 0 || strcmp(argv[i], "--seed") == 0 || strcmp(argv[i], "--trace") == 0 ||
                  strcmp(argv[i], "--ranks") == 0 || strcmp(argv[i], "--max-instr") == 0 ||
                  strcmp(argv[i], "--inputs") == 0) &&
                 i + 1 < argc) {
            trace |= strcmp(argv[i], "--trace") == 0;
            if (strcmp(argv[i], "--ranks") == 0) sweep_ranks(argv[i + 1], &nranks);
            shell_add(cmd, sizeof cmd, " ", argv[i]);
            shell_add(cmd, sizeof cmd, " ", argv[++i]);
        } else if (strncmp(argv[i], "-D", 2) == 0) shell_add(cmd, sizeof cmd, " ", argv[i]);
        else if (argv[i][0] == '-' && argv[i][1]) return usage_error("run", "run: unknown option", argv[i]);
        else if (target) return usage_error("run", "run takes one FILE or DIR; a second one is", argv[i]);
        else target = argv[i];
    }
    if (!target) return usage_error("run", "run needs a FILE or an emitted DIR", NULL);
    if (sweep && trace) return usage_error("run", "run: --sweep makes many runs; --trace writes one run's timeline", NULL);
    if (!sweep && cli_has(argc, argv, "--sweep-runs", NULL, 0)) return usage_error("run", "run: --sweep-runs goes with --sweep", NULL);
    if (!find_include(argv[0], inc, sizeof inc)) {
        fprintf(stderr, "ptoc: error: cannot find pto.h and pto_kernels.h (set PTO_INCLUDE)\n");
        return 1;
    }
    snprintf(tmp, sizeof tmp, "%s/ptoc-run-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "ptoc: error: cannot make a temporary directory in %s\n", tmpdir && *tmpdir ? tmpdir : "/tmp");
        return 2;
    }
    if (stat(target, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        dir = target;
        rc = file_exists(dir, "host.c") ? 0 : 1;
        if (rc && file_exists(dir, "kernel.cpp"))
            fprintf(stderr, "ptoc: error: '%s' holds the isa target's kernel.cpp, for a device, and no host.c: the "
                    "simulator runs what ptoc emit writes without --target isa\n", dir);
        else if (rc)
            fprintf(stderr, "ptoc: error: '%s' has no host.c (make it with ptoc emit)\n", dir);
        else rc = file_defaults(dir, NULL, 0, 1, argc, argv, cmd, sizeof cmd, sweep ? &defs : NULL);
        if (!rc && opts)   /* they steer the compile of a FILE; a DIR is compiled already */
            fprintf(stderr, "ptoc: warning: %s steer%s how ptoc compiles a .pto FILE; the DIR '%s' runs as it was "
                    "emitted (emit it again with %s)\n",
                    opts == (EMIT_NO_SYNC | EMIT_TIGHT) ? "--no-sync and --tight" : opts == EMIT_TIGHT ? "--tight" : "--no-sync",
                    opts == (EMIT_NO_SYNC | EMIT_TIGHT) ? "" : "s", dir, opts == (EMIT_NO_SYNC | EMIT_TIGHT) ? "them" : "it");
    } else {
        /* the text is read once: a pipe (`ptoc run -`, /dev/stdin) gives it once, and its `# run:`
           and `# sweep:` lines were lost when read again (review27 L2) */
        dir = tmp;
        if (!(text = read_all(target, &textlen))) {
            cannot_read(target);
            rc = 1;
        } else {
            rc = emit_to(ctx, target, text, textlen, dir, opts);
            if (file_defaults(target, text, textlen, 0, argc, argv, cmd, sizeof cmd, sweep ? &defs : NULL)) rc = 1;
        }
    }
    if (sweep && !cli_has(argc, argv, "--ranks", NULL, 0)) {   /* the # run: line's, for nranks in the sweep */
        const char *r = strstr(cmd, "'--ranks' '");
        if (r) sweep_ranks(r + 11, &nranks);
    }
    snprintf(bin, sizeof bin, "%s/run", tmp);
    if (rc == 0 && compile_dir(cc, inc, dir, bin, tmp) != 0) {
        if (!cc_found(cc))
            fprintf(stderr, "ptoc: error: cannot run the C compiler '%s' (give one with --cc or $CC)\n", cc);
        else if (dir == tmp)   /* the emitted files are in run's scratch directory, removed below */
            fprintf(stderr, "ptoc: error: %s failed to compile the C that ptoc emitted from %s\n", cc, target);
        else
            fprintf(stderr, "ptoc: error: %s failed to compile %s/host.c\n", cc, dir);
        rc = 1;
    }
    /* the text the sweep reads: FILE, or the .pto an emitted DIR's program
       embeds (its reference), as the program itself prints it */
    snprintf(src, sizeof src, "%s", target);
    if (rc == 0 && sweep && dir == target) rc = dir_source(bin, dir, tmp, src, sizeof src);
    if (sweep && rc == 0 && sweep_line(src, dir == target ? NULL : text, textlen, argc, argv, &ranges, &max_runs, &rlo, &rhi, ranks_range))
        rc = 1;
    if (rc == 0 && sweep) {
        sweep_rerun(dir == target ? 0 : opts, cc_given ? cc : NULL, rerun, sizeof rerun);
        rc = sweep_file(ctx, src, dir == target ? NULL : text, textlen, target, &defs, &ranges, bin, cmd, rerun, tmp, max_runs,
                        nranks, rlo, rhi, strstr(cmd, "'--ranks' '") != NULL);
    } else if (rc == 0) {
        char full[16384 + 4300];
        full[0] = 0;
        shell_quote(full, sizeof full, bin);
        snprintf(full + strlen(full), sizeof full - strlen(full), "%s", cmd);
        fflush(stdout);
        rc = system(full);
        rc = rc == -1 ? 2 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 2;
        if (rc > 2) rc = 2;
    }
    remove_dir(tmp);
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    pto_ctx *ctx;
    int rc;
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        int part;
        for (part = 0; part < USAGE_PARTS; part++) fputs(usage[part], argc < 2 ? stderr : stdout);
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
