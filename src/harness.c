/* harness.c - the host harness of emitted programs (ptoc emit's host.c).

   Compiled only in a translation unit that includes pto_kernels.h first and
   then pto.h with PTO_IMPLEMENTATION and PTO_HOST_HARNESS defined: that is
   the host.c pto_emit writes. It needs the .pto text of the kernels (host.c
   embeds it) and gives host.c a small vocabulary:

     pto_h_begin   reads -D NAME=VALUE, --seed S, --inputs grid|full, --ranks N,
                  --max-instr N, --trace F.json (--source alone: prints the
                  .pto text);
                  re-parses and verifies the .pto text; creates the simulated device
     pto_h_ranks   the kernel set up next is a ranks kernel: it runs on a
                  second device of N ranks (--ranks, default 2); each of its
                  tensors is a window tensor there (one copy per rank, each
                  with its own inputs), and a tensor the kernel uses as a
                  signal (notify, wait, allreduce) starts at zero
     pto_h_dim / pto_h_fscalar   a dynamic dim / scalar param from -D
     pto_h_narrow  a host scalar a call passes to an f16 / bf16 param of
                  another dtype: a value that changes on the way is a warning
     pto_h_iscalar an integer scalar param from -D: an integer its dtype
                  holds, else a user error (exit 1); a scalar whose value an
                  op on an integer tile changes (-D alpha=0.5 for tadds on
                  i32: truncated to 0) draws a warning at the launch
     pto_h_tensor  a device tensor plus a host copy for the interpreter;
                  inputs get seeded random values (the same in both)
     pto_h_launch  runs the kernel on the simulator, then the reference
                  interpreter on the host copies, and compares every tensor
                  (inputs too: a kernel must not write them; every rank's copy)
                  bit for bit, NaN equal to NaN (a tensor that differs: how
                  many elements, the largest errors, the first few
                  positions); warns about out tensors the simulated kernel
                  left partly unwritten (every rank's copy); prints result,
                  cycles, bound, efficiency, flags and barriers (counted in
                  kernel.c as it is on disk, hand edits included), planned
                  bytes and simulator reports (after a deadlock a note by the
                  mismatch and the cycles say that they follow from it);
                  a launch the simulator refused (more cores than it runs
                  at once) ran nothing: the refusal is the result (exit 1),
                  and nothing is compared (nor, after a refused call, at
                  the host's end); a / or % by a launch value of 0, which
                  the reference stops at and the emitted C takes as 0, is
                  the result, at its line:col, and the simulator's reports
                  are marked as possibly following from it (a block count
                  that divides by 0: that error, and nothing runs)
     pto_h_end     exit status: 0 all match and the simulator reported
                  nothing, 1 mismatch / report / bad input, 2 internal

   A kernel that mismatches or draws a simulator report does not stop the
   later kernels of the program (a file of many kernels reports on each);
   bad input (a missing -D, a failed allocation) does.

   Because the interpreter and the kernels are compiled by the same compiler
   in the same program, they share libm and the float rules, so a correct
   kernel matches bit for bit. */

#ifdef PTO_HOST_HARNESS
#ifndef PTO_KERNELS_H_INCLUDED
#error "the host harness needs pto_kernels.h included before pto.h"
#endif

#define PTO_H_IN 0
#define PTO_H_OUT 1
#define PTO_H_INOUT 2
#define PTO_H_TEMP 3    /* an intermediate of a host section: zero, not random */
#define PTO_H_MAX 64
#define PTO_H_RMAX 64              /* most ranks */

typedef struct pto_h_run {
    const char *file;              /* the .pto file name */
    uint64_t seed, rng;
    int full;                      /* --inputs full: full-mantissa floats, integers over the dtype (pto_h_fill) */
    const char *trace;
    const char *def_name[PTO_H_MAX]; /* -D NAME=VALUE */
    size_t def_len[PTO_H_MAX];
    double def_val[PTO_H_MAX];
    unsigned char def_used[PTO_H_MAX];  /* a dim or scalar took it (pto_h_end reports the others) */
    int ndefs;
    pto_ctx *ctx;
    pto_module *m;
    pto_k_device *dev;
    pto_k_device *rdev;            /* nranks ranks, for ranks kernels (made on first use) */
    int nranks;                    /* --ranks N */
    int ranks_given;               /* --ranks was on the command line (a warning when no kernel takes it) */
    int64_t max_instr;             /* --max-instr N: each launch's instruction budget (0 = default) */
    int refused;                   /* a launch the simulator refused (pto_h_refused) */
    char disturbed[64];            /* the first call of a host that deadlocked or raced ("": none) */
    int disturbed_deadlock;        /* 1: it deadlocked, 0: it raced */
    char *ksrc;                    /* kernel.c, for counting flags and barriers */
    /* the kernel being set up */
    pto_binding bind[PTO_H_MAX];
    int nbind;
    void *host[PTO_H_MAX];
    void *rhost[PTO_H_RMAX][PTO_H_MAX]; /* a ranks kernel: rank r's host copy ([0] is host) */
    int kranks;                    /* the kernel being set up is a ranks kernel: its rank count */
    int32_t kernel;                /* and its id */
    pto_k_gm *gm[PTO_H_MAX];
    int dir[PTO_H_MAX];
    int ntensors;
    /* totals */
    int status, nkernels;
    int overflow;                  /* a pto_h_ck left int64 since the last launch (its blocks(...)) */
    int failed;                    /* some kernel mismatched or drew a report */
    int64_t cycles;
} pto_h_run;

PTO_K_FN void pto_h_fail(pto_h_run *run, int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    if (run->status < status) run->status = status;
}

PTO_K_FN uint64_t pto_h_next(pto_h_run *run)
{
    uint64_t z = (run->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

PTO_K_FN char *pto_h_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    size_t n = 0, cap = 0, got;
    if (!f) return NULL;
    for (;;) {
        if (n + 4097 > cap) {
            char *p = (char *)realloc(data, cap = cap ? cap * 2 : 65536);
            if (!p) { free(data); fclose(f); return NULL; }
            data = p;
        }
        got = fread(data + n, 1, cap - n - 1, f);
        if (!got) break;
        n += got;
    }
    fclose(f);
    data[n] = 0;
    return data;
}

/* A whole -D value as a number: "64x", "abc" or "" are mistakes, not 64 or 0. */
PTO_K_FN int pto_h_number(const char *text, double *out)
{
    char *end;
    *out = strtod(text, &end);
    return end != text && *end == 0;
}

/* Whether number text (pto_h_number's) is past double's range: strtod read
   finite digits as inf (1e400) or nonzero ones as 0 (1e-400). */
PTO_K_FN int pto_h_out_of_range(const char *text, double v)
{
    const char *p = text;
    int hex;
    if (v != v || (v != 0.0 && v - v == 0.0)) return 0;
    while (*p == ' ' || *p == '\t' || *p == '+' || *p == '-') p++;
    hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex) p += 2;
    if (v != 0.0) return (*p >= '0' && *p <= '9') || *p == '.' || hex;   /* digits, not "inf" / "infinity" */
    for (; *p && *p != (hex ? 'p' : 'e') && *p != (hex ? 'P' : 'E'); p++)
        if ((*p >= '1' && *p <= '9') || (hex && ((*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))) return 1;
    return 0;
}

/* A whole unsigned integer option value in lo..hi, decimal or 0x hex:
   "5x", "-1", "" and a value past uint64 (which strtoull would clamp
   without a word) are mistakes. */
PTO_K_FN int pto_h_uint(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v = 0, base = 10, d;
    const char *p = text;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && p[2]) base = 16, p += 2;
    if (!*p) return 0;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9') d = (uint64_t)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f') d = (uint64_t)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F') d = (uint64_t)(*p - 'A' + 10);
        else return 0;
        if (v > (UINT64_MAX - d) / base) return 0;
        v = v * base + d;
    }
    *out = v;
    return v >= lo && v <= hi;
}

PTO_K_FN int pto_h_args(pto_h_run *run, int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL, *eq;
        if (strcmp(a, "-D") == 0 && i + 1 < argc) v = argv[++i];
        else if (strncmp(a, "-D", 2) == 0 && a[2]) v = a + 2;
        else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
            if (!pto_h_uint(argv[++i], 0, UINT64_MAX, &run->seed)) {
                pto_h_fail(run, 1, "--seed %s: want a non-negative integer in 0..18446744073709551615", argv[i]);
                return 1;
            }
            continue;
        }
        else if (strcmp(a, "--trace") == 0 && i + 1 < argc) { run->trace = argv[++i]; continue; }
        else if (strcmp(a, "--inputs") == 0 && i + 1 < argc) {
            a = argv[++i];
            if (strcmp(a, "grid") != 0 && strcmp(a, "full") != 0) {
                pto_h_fail(run, 1, "--inputs %s: want grid (the default) or full", a);
                return 1;
            }
            run->full = a[0] == 'f';
            continue;
        }
        else if (strcmp(a, "--ranks") == 0 && i + 1 < argc) {
            uint64_t n;
            if (!pto_h_uint(argv[++i], 1, PTO_H_RMAX, &n)) {
                pto_h_fail(run, 1, "--ranks %s: want a rank count in 1..%d", argv[i], PTO_H_RMAX);
                return 1;
            }
            run->nranks = (int)n;
            run->ranks_given = 1;
            continue;
        }
        else if (strcmp(a, "--max-instr") == 0 && i + 1 < argc) {
            uint64_t n;
            if (!pto_h_uint(argv[++i], 1, INT64_MAX, &n)) {
                pto_h_fail(run, 1, "--max-instr %s: want a positive instruction count in 1..9223372036854775807",
                           argv[i]);
                return 1;
            }
            run->max_instr = (int64_t)n;
            continue;
        }
        else {
            pto_h_fail(run, 1, "unknown argument '%s' (use -D NAME=VALUE, --seed S, --inputs grid|full, --ranks N, --max-instr N, "
                       "--trace FILE)",
                       a);
            return 1;
        }
        eq = strchr(v, '=');
        if (!eq || eq == v || run->ndefs == PTO_H_MAX) { pto_h_fail(run, 1, "bad -D '%s' (want NAME=VALUE)", v); return 1; }
        {   /* a name given again takes the later value, as the command line's options do */
            int j, n = run->ndefs;
            for (j = 0; j < run->ndefs; j++)
                if (run->def_len[j] == (size_t)(eq - v) && strncmp(run->def_name[j], v, run->def_len[j]) == 0) n = j;
            run->def_name[n] = v;
            run->def_len[n] = (size_t)(eq - v);
            if (!pto_h_number(eq + 1, &run->def_val[n])) {
                pto_h_fail(run, 1, "bad -D '%s': the value is not a number", v);
                return 1;
            }
            if (pto_h_out_of_range(eq + 1, run->def_val[n]))   /* as the parser says of such a literal */
                fprintf(stderr, "warning: -D %s: the value rounds to %s (%s double's range; write %s if that is meant)\n", v,
                        run->def_val[n] == 0.0 ? "0" : run->def_val[n] < 0 ? "-inf" : "inf",
                        run->def_val[n] == 0.0 ? "below" : "past",
                        run->def_val[n] == 0.0 ? "0" : run->def_val[n] < 0 ? "-inf" : "inf");
            if (n == run->ndefs) run->ndefs++;
        }
    }
    return 0;
}

/* Joins the embedded lines, parses and verifies them. */
PTO_K_FN int pto_h_load(pto_h_run *run, const char *const *lines)
{
    size_t n = 0, i;
    char *text;
    for (i = 0; lines[i]; i++) n += strlen(lines[i]);
    text = (char *)malloc(n + 1);
    if (!text) return 2;
    n = 0;
    for (i = 0; lines[i]; i++) {
        size_t l = strlen(lines[i]);
        memcpy(text + n, lines[i], l);
        n += l;
    }
    text[n] = 0;
    run->m = pto_parse(run->ctx, run->file, text, n);
    free(text);
    if (!run->m || pto_verify(run->ctx, run->m) != PTO_OK) {
        pto_diag_print(run->ctx, stderr);
        pto_h_fail(run, 2, "the embedded text of %s does not verify", run->file);
        return 2;
    }
    /* its warnings are the compile's, which ptoc emit / run printed: printed again with
       the reference's error when that fails, they came twice (review20 L1) */
    pto_diag_clear(run->ctx);
    return 0;
}

PTO_K_FN int pto_h_begin(pto_h_run *run, int argc, char **argv, const char *file, const char *const *lines,
                        const char *host_path)
{
    pto_k_device_desc dd;
    char path[4096];
    const char *slash = strrchr(host_path, '/');
    memset(run, 0, sizeof *run);
    if (argc == 2 && strcmp(argv[1], "--source") == 0) {   /* ptoc run --sweep DIR reads the text back */
        size_t i;
        for (i = 0; lines[i]; i++) fputs(lines[i], stdout);
        return 1;   /* status 0: pto_h_end exits 0 */
    }
    run->file = file;
    run->seed = 1;
    run->nranks = 2;
    if (pto_h_args(run, argc, argv)) return 1;
    run->rng = run->seed;
    run->ctx = pto_ctx_create(NULL);
    if (!run->ctx) { pto_h_fail(run, 2, "out of memory"); return 2; }
    if (pto_h_load(run, lines)) return run->status;
    memset(&dd, 0, sizeof dd);
    dd.arch = run->m->arch == PTO_ARCH_A5 ? PTO_K_A5 : PTO_K_A2A3;
    dd.seed = run->seed;
    dd.trace_path = run->trace;
    run->dev = pto_k_device_create(&dd);
    if (!run->dev) { pto_h_fail(run, 2, "cannot create the simulated device"); return 2; }
    snprintf(path, sizeof path, "%.*skernel.c", slash ? (int)(slash - host_path + 1) : 0, host_path);
    run->ksrc = pto_h_read(path);
    return 0;
}

/* The -D (or `# run:` definition) of `name`: its index, or ndefs. */
PTO_K_FN int pto_h_def_index(const pto_h_run *run, const char *name)
{
    int i;
    for (i = 0; i < run->ndefs; i++)
        if (run->def_len[i] == strlen(name) && strncmp(run->def_name[i], name, run->def_len[i]) == 0) break;
    return i;
}

PTO_K_FN double pto_h_def(pto_h_run *run, const char *name, const char *what)
{
    int i = pto_h_def_index(run, name);
    if (i < run->ndefs) {
        run->def_used[i] = 1;
        if (run->nbind < PTO_H_MAX) {
            run->bind[run->nbind].name = name;
            run->bind[run->nbind].value = run->def_val[i];
            run->nbind++;
        }
        return run->def_val[i];
    }
    /* a -D that names nothing and is close to this name is likely its typo */
    for (i = 0; i < run->ndefs; i++)
        if (!run->def_used[i] && pto_near(run->def_name[i], run->def_len[i], name) >= 0) break;
    if (i < run->ndefs)
        fprintf(stderr, "error: %s %s needs a value: -D %s=VALUE (-D %s names nothing: did you mean %s?)\n", what,
                name, name, run->def_name[i], name);
    else
        fprintf(stderr, "error: %s %s needs a value: -D %s=VALUE\n", what, name, name);
    if (run->status < 1) run->status = 1;
    return 0;
}

/* A -D value written as a decimal integer ("64", "+64", "-3"): 1 and its
   exact value, saturated at 2^62 (past what a dim takes); 0 for any other
   text (1.5, 1e3, 0x40), which is read as a double. Through a double,
   2^62 - 1 read as 2^62 and was refused as "too large" (review22 L3). */
PTO_K_FN int pto_h_integer(const char *t, int64_t *out)
{
    const int64_t lim = (int64_t)1 << 62;
    int64_t v = 0;
    int neg = 0;
    while (*t == ' ' || *t == '\t') t++;
    if (*t == '+' || *t == '-') neg = *t++ == '-';
    if (*t < '0' || *t > '9') return 0;
    for (; *t >= '0' && *t <= '9'; t++) v = v > (lim - (*t - '0')) / 10 ? lim : v * 10 + (*t - '0');
    if (*t) return 0;
    *out = neg ? -v : v;
    return 1;
}

PTO_K_FN int64_t pto_h_dim(pto_h_run *run, const char *name)
{
    double v = pto_h_def(run, name, "dynamic dim");
    int i = pto_h_def_index(run, name);
    int64_t w;
    if (run->status == 0 && i < run->ndefs && pto_h_integer(run->def_name[i] + run->def_len[i] + 1, &w)) {
        /* an integer as typed: exact, not through a double */
        if (w >= (int64_t)1 << 62) {
            pto_h_fail(run, 1, "dynamic dim %s = %s is too large (a dim is less than 2^62)", name,
                       run->def_name[i] + run->def_len[i] + 1);
            return 1;
        }
        if (w < 1) {
            pto_h_fail(run, 1, "-D %s: dynamic dim %s must be a positive integer", run->def_name[i], name);
            return 1;
        }
        return w;
    }
    /* (a double at or past 2^62 is refused before the cast, which would be undefined past 2^63) */
    if (run->status == 0 && v >= 4611686018427387904.0) {
        if (i < run->ndefs)
            pto_h_fail(run, 1, "dynamic dim %s = %s is too large (a dim is less than 2^62)", name,
                       run->def_name[i] + run->def_len[i] + 1);
        else
            pto_h_fail(run, 1, "dynamic dim %s = %.17g is too large (a dim is less than 2^62)", name, v);
        return 1;
    }
    if (run->status == 0 && (!(v >= 1) || v != (double)(int64_t)v)) {   /* (NaN included: no cast) */
        pto_h_fail(run, 1, "-D %s=%.17g: dynamic dim %s must be a positive integer", name, v, name);
        return 1;
    }
    return (int64_t)v;
}

PTO_K_FN double pto_h_scalar(pto_h_run *run, const char *name) { return pto_h_def(run, name, "scalar"); }

/* A float scalar param from -D: an f16 / bf16 one holds the value in its
   dtype (through f32, as the host passes it), and a -D that changes on the
   way is said with the value used (review23 L2). f32 ones are as given. */
/* The shortest text that reads back as v (%.17g at most). */
PTO_K_FN void pto_h_shortest(double v, char *txt, size_t size)
{
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(txt, size, "%.*g", p, v);
        if (strtod(txt, NULL) == v) break;
    }
}

PTO_K_FN double pto_h_fscalar(pto_h_run *run, const char *name, int dtype)
{
    double v = pto_h_def(run, name, "scalar"), used;
    int i, b;
    char txt[40];
    if (dtype != PTO_K_F16 && dtype != PTO_K_BF16) return v;
    used = (double)pto_scalar_as(dtype, v);
    for (b = 0; b < run->nbind; b++)
        if (strcmp(run->bind[b].name, name) == 0) run->bind[b].value = used;
    i = pto_h_def_index(run, name);
    if (i >= run->ndefs || used == v || (v != v && used != used)) return used;
    pto_h_shortest(used, txt, sizeof txt);
    fprintf(stderr, "warning: -D %s: scalar %s is %s and holds %s\n", run->def_name[i], name,
            dtype == PTO_K_F16 ? "f16" : "bf16", txt);
    return used;
}

/* A host scalar that a call passes to an f16 / bf16 scalar param of another
   dtype (an f32 eps to an f16 kernel), or an integer expression of the
   host's dims: the kernel holds it in its dtype, so a value that changes on
   the way is said as pto_h_fscalar says it of a kernel's own scalar, with
   the call (host.c passes the host scalar's name or the expression's text,
   the kernel's name, the param's and the call's line). The verifier says
   the same of a constant argument. Returns the value the kernel holds. */
PTO_K_FN double pto_h_narrow(pto_h_run *run, double v, int dtype, const char *what, const char *kname,
                             const char *pname, int line)
{
    double used = (double)pto_scalar_as(dtype, v);
    int i = pto_h_def_index(run, what);
    const char *dn = dtype == PTO_K_F16 ? "f16" : "bf16";
    char txt[40], val[40];
    if (used == v || (v != v && used != used)) return used;
    pto_h_shortest(used, txt, sizeof txt);
    pto_h_shortest(v, val, sizeof val);
    if (i < run->ndefs)   /* one name given by -D */
        fprintf(stderr, "warning: -D %s: call %s (%s:%d) passes it to scalar %s, which is %s and holds %s\n",
                run->def_name[i], kname, run->file, line, pname, dn, txt);
    else
        fprintf(stderr, "warning: call %s (%s:%d) passes %s = %s to scalar %s, which is %s and holds %s\n", kname,
                run->file, line, what, val, pname, dn, txt);
    return used;
}

/* An integer scalar param (dtype PTO_K_I32 or PTO_K_I8) from -D: the value
   must be an integer the dtype holds. The kernel takes an int64_t, so 2.5
   would reach it as 2 while the reference computed with 2.5 (and a value past
   int64 has no conversion at all): said here, as the user's mistake. */
PTO_K_FN int64_t pto_h_iscalar(pto_h_run *run, const char *name, int dtype)
{
    double v = pto_h_def(run, name, "scalar"), lo = pto_int_lo(dtype), hi = pto_int_hi(dtype);
    if (!(v >= lo && v <= hi && v == floor(v))) {
        int i = pto_h_def_index(run, name);
        if (i < run->ndefs && run->status == 0)
            pto_h_fail(run, 1, "-D %s: scalar %s is %s and takes an integer in %.0f..%.0f", run->def_name[i],
                       name, dtype == PTO_K_I8 ? "i8" : "i32", lo, hi);
        return 0;
    }
    return (int64_t)v;
}

/* The module's kernel called `name` (n_kernels when there is none). */
PTO_K_FN int32_t pto_h_kernel_index(const pto_h_run *run, const char *name)
{
    int32_t k;
    for (k = 0; k < run->m->n_kernels; k++)
        if (strcmp(pto_str(run->ctx, run->m->kernels[k].name), name) == 0) break;
    return k;
}

/* The next kernel is a ranks kernel: its tensors go to the device of
   run->nranks ranks, one window copy per rank. */
PTO_K_FN void pto_h_ranks(pto_h_run *run, const char *name)
{
    pto_k_device_desc dd;
    if (run->status) return;
    run->kernel = pto_h_kernel_index(run, name);
    if (run->kernel == run->m->n_kernels) { pto_h_fail(run, 2, "no kernel %s in the embedded text", name); return; }
    run->kranks = run->nranks;
    if (run->rdev) return;
    memset(&dd, 0, sizeof dd);
    dd.arch = run->m->arch == PTO_ARCH_A5 ? PTO_K_A5 : PTO_K_A2A3;
    dd.seed = run->seed;
    dd.nranks = run->nranks;
    dd.trace_path = run->trace;
    run->rdev = pto_k_device_create(&dd);
    if (!run->rdev) pto_h_fail(run, 2, "cannot create the simulated device");
}

/* Is param (an index in the current ranks kernel) a signal: the tensor of
   a notify / wait, or allreduce's second operand? Signals start at zero. */
PTO_K_FN int pto_h_signal(const pto_h_run *run, int param)
{
    const pto_module *m = run->m;
    int32_t ref = m->kernels[run->kernel].param0 + param, s;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int i = st->op == PTO_OP_ALLREDUCE ? 1 : 0;
        if (st->kind != PTO_ST_OP || st->block < 0 || m->blocks[st->block].kernel != run->kernel) continue;
        if (st->op != PTO_OP_NOTIFY && st->op != PTO_OP_WAIT && st->op != PTO_OP_ALLREDUCE) continue;
        if (pto_stmt_arg(m, s, i)->ref == ref) return 1;
    }
    return 0;
}

/* Seeded random values for an input (the same sequence for device and
   reference). The default grid: multiples of 1/512 in [-2, 2) for floats,
   i8 in [-20, 20], i32 in [-100, 100]: every sum of a few thousand of them
   is exact in any order and every one is exact in f16 / bf16, so expected
   outputs do not hang on rounding. --inputs full: floats of a random sign,
   a random exponent (magnitudes in [1/8, 4)) and all 23 mantissa bits
   random (rounded to nearest even for f16 / bf16), integers over the
   dtype's whole range: sums round and depend on their order, conversions
   round, integer adds and products wrap (review28 M5: a match under the
   grid cannot show a kernel that adds in another order). */
PTO_K_FN void pto_h_fill(pto_h_run *run, void *host, int dtype, int64_t n)
{
    int64_t i;
    for (i = 0; i < n; i++) {
        uint64_t r = pto_h_next(run);
        float v;
        if (run->full) {
            if (dtype == PTO_K_I32 || dtype == PTO_K_I8) {
                pto_elem_seti(host, dtype, i, dtype == PTO_K_I32 ? (int64_t)(r >> 32) - 2147483648LL : (int64_t)(r >> 56) - 128);
                continue;
            }
            v = ldexpf(1.0f + (float)((r >> 8) & 0x7fffff) / 8388608.0f, (int)((r >> 32) % 5) - 3);
            pto_elem_set(host, dtype, i, (r & 1) ? -v : v);
            continue;
        }
        v = dtype == PTO_K_I32 ? (float)((int)(r % 201) - 100)
                : dtype == PTO_K_I8 ? (float)((int)(r % 41) - 20)
                : (float)((int)(r % 2048) - 1024) / 512.0f;
        pto_elem_set(host, dtype, i, v);
    }
}

PTO_K_FN pto_k_gm *pto_h_tensor(pto_h_run *run, int param, const char *name, int dtype, int64_t rows, int64_t cols,
                               int dir)
{
    pto_k_gm *g;
    size_t bytes;
    int r, nr = run->kranks ? run->kranks : 1, fill;
    if (run->status) return NULL;
    if (param >= PTO_H_MAX) { pto_h_fail(run, 1, "tensor %s: too many tensors for the harness", name); return NULL; }
    if (rows < 1 || cols < 1) { pto_h_fail(run, 1, "tensor %s has an empty shape", name); return NULL; }
    /* a shape from -D can be larger than this machine can hold: the user's to fix (exit 1), said
       with the size, before rows * cols * size can overflow */
    if (rows > (int64_t)(SIZE_MAX / 2) / cols / 8) {
        pto_h_fail(run, 1, "tensor %s [%lld, %lld] is too large for the simulator", name, (long long)rows,
                   (long long)cols);
        return NULL;
    }
    bytes = (size_t)(rows * cols * pto_dtype_size((pto_dtype)dtype));
    g = run->kranks ? pto_k_gm_create_window(run->rdev, name, dtype, rows, cols)
                    : pto_k_gm_create(run->dev, name, dtype, rows, cols);
    fill = dir != PTO_H_OUT && dir != PTO_H_TEMP && !(run->kranks && pto_h_signal(run, param));
    for (r = 0; r < nr; r++) {
        pto_k_gm *gr = run->kranks && g ? pto_k_gm_peer(g, r) : g;
        run->rhost[r][param] = calloc(bytes ? bytes : 1, 1);
        if (!gr || !run->rhost[r][param]) {
            pto_h_fail(run, 1, "cannot allocate tensor %s [%lld, %lld]: %.3g bytes (a smaller -D?)", name,
                       (long long)rows, (long long)cols, (double)bytes);
            return NULL;
        }
        gr->undefined = dir == PTO_H_TEMP;   /* a device gives it no value: reads before stores are reported */
        if (!fill) continue;
        pto_h_fill(run, run->rhost[r][param], dtype, rows * cols);
        memcpy(gr->data, run->rhost[r][param], bytes);
    }
    run->host[param] = run->rhost[0][param];
    run->gm[param] = g;
    run->dir[param] = dir;
    if (param + 1 > run->ntensors) run->ntensors = param + 1;
    return g;
}

PTO_K_FN int pto_h_ready(const pto_h_run *run) { return run->status == 0; }

/* The hidden GM pipe buffer of an a2a3 mix kernel (hardware.md section 6):
   blocks x per_block bytes, one share per block (kernel.c adds block *
   per_block). blocks is the launch's count, computed here exactly as the
   launch computes it, so a count known only at launch sizes it too. */
PTO_K_FN pto_k_gm *pto_h_pipe_buffer(pto_h_run *run, int64_t blocks, int64_t per_block)
{
    pto_k_gm *g;
    if (run->status || blocks < 1) return NULL;   /* pto_h_launch reports the count */
    g = pto_k_gm_create(run->dev, "gm_pipe_buffer", PTO_K_I8, blocks, per_block);
    if (!g) pto_h_fail(run, 2, "cannot allocate the GM pipe buffer");
    return g;
}

/* Calls of set_flag / wait_flag (flags) and pipe_barrier (barriers) in
   kernel_NAME of kernel.c, outside comments and strings. */
PTO_K_FN void pto_h_count_syncs(const char *s, const char *name, int *flags, int *barriers)
{
    size_t nl = strlen(name);
    int cur = 0, bol = 1;
    *flags = *barriers = 0;
    while (s && *s) {
        if (bol && strncmp(s, "static void kernel_", 19) == 0)
            cur = strncmp(s + 19, name, nl) == 0 && s[19 + nl] == '(';
        bol = *s == '\n';
        if (s[0] == '/' && s[1] == '*') {
            const char *e = strstr(s + 2, "*/");
            s = e ? e + 2 : s + strlen(s);
        } else if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n') s++;
        } else if (*s == '"' || *s == '\'') {
            char q = *s++;
            while (*s && *s != q) s += (*s == '\\' && s[1]) ? 2 : 1;
            if (*s) s++;
        } else if (cur && (strncmp(s, "pto_k_set_flag(", 15) == 0 || strncmp(s, "pto_k_wait_flag(", 16) == 0)) {
            (*flags)++;
            s += 15;
        } else if (cur && strncmp(s, "pto_k_pipe_barrier(", 19) == 0) {
            (*barriers)++;
            s += 19;
        } else {
            s++;
        }
    }
}

#define PTO_H_SHOW 5        /* differing elements listed per output */

/* How far apart one differing pair is: the absolute error, NaN or an
   infinity against a number counting as infinitely far (so that it tops the
   maximum rather than vanishing from it); and the relative error, -1 where
   the reference is 0 (there only the absolute error means something). */
PTO_K_FN void pto_h_error(double got, double want, double *abs_err, double *rel_err)
{
    double d = fabs(got - want);
    if (d != d) d = HUGE_VAL;
    *abs_err = d;
    *rel_err = want != 0 ? d / fabs(want) : -1;
}

/* Element i as a double: an i32 / i8 element exactly (through f32, two i32
   values past 2^24 that differ could print alike). */
PTO_K_FN double pto_h_value(const void *base, int dtype, int64_t i)
{
    return dtype == 4 || dtype == 5 ? (double)pto_elem_geti(base, dtype, i) : (double)pto_elem_get(base, dtype, i);
}

/* Compares one copy of a tensor with the reference, bit for bit (NaN equal
   to NaN). When they differ, says how many elements differ, the largest
   errors (to tell rounding noise from a wrong kernel) and the first few
   positions with both values (the shape of the damage: a row, a column, a
   block). Returns 1 if any element differs. */
PTO_K_FN int pto_h_compare_copy(const pto_k_gm *g, const void *host, const char *name)
{
    int size = pto_dtype_size((pto_dtype)g->dtype);
    int64_t i, n = g->rows * g->cols, ndiff = 0, first[PTO_H_SHOW];
    double max_abs = 0, max_rel = -1, a, r;
    char rel[48] = "";
    for (i = 0; i < n; i++) {
        double x, y;
        if (memcmp((const char *)g->data + i * size, (const char *)host + i * size, (size_t)size) == 0) continue;
        x = pto_h_value(g->data, g->dtype, i);
        y = pto_h_value(host, g->dtype, i);
        if (x != x && y != y) continue;
        if (ndiff < PTO_H_SHOW) first[ndiff] = i;
        ndiff++;
        pto_h_error(x, y, &a, &r);
        if (a > max_abs) max_abs = a;
        if (r > max_rel) max_rel = r;
    }
    if (!ndiff) return 0;
    if (max_rel >= 0) snprintf(rel, sizeof rel, ", max rel error %.3g", max_rel);
    printf("  result      mismatch: %s differs in %lld of %lld element%s (max abs error %.3g%s)\n", name,
           (long long)ndiff, (long long)n, n == 1 ? "" : "s", max_abs, rel);
    for (i = 0; i < ndiff && i < PTO_H_SHOW; i++)   /* (an i32's 10 digits in full: --inputs full draws them) */
        printf(g->dtype == 4 || g->dtype == 5 ? "    %s[%lld, %lld] = %.10g on the simulator, %.10g in the reference\n"
                                              : "    %s[%lld, %lld] = %.9g on the simulator, %.9g in the reference\n",
               name, (long long)(first[i] / g->cols), (long long)(first[i] % g->cols),
               pto_h_value(g->data, g->dtype, first[i]), pto_h_value(host, g->dtype, first[i]));
    if (ndiff > PTO_H_SHOW) printf("    ... and %lld more\n", (long long)(ndiff - PTO_H_SHOW));
    return 1;
}

/* Copy r of tensor p (a ranks kernel's tensor has one per rank) and its
   name in the run's report: x, or x@r for a ranks kernel. */
PTO_K_FN pto_k_gm *pto_h_copy(const pto_h_run *run, int p, int r, const char *name, char *label, size_t n)
{
    if (run->kranks) snprintf(label, n, "%.60s@%d", name, r);
    else snprintf(label, n, "%.70s", name);
    return run->kranks ? pto_k_gm_peer(run->gm[p], r) : run->gm[p];
}

/* Compares tensor p; a ranks kernel's tensor on every rank (named x@r).
   Returns 1 if any copy differs. */
PTO_K_FN int pto_h_compare(pto_h_run *run, int p, const char *name)
{
    int r, nr = run->kranks ? run->kranks : 1, bad = 0;
    for (r = 0; r < nr; r++) {
        char label[80];
        pto_k_gm *g = pto_h_copy(run, p, r, name, label, sizeof label);
        bad |= pto_h_compare_copy(g, run->rhost[r][p], label);
    }
    return bad;
}

/* Warns when the kernels left elements of one copy of an out tensor
   unwritten. The reference leaves the same elements alone (both keep the
   zeros they started with), so the comparison matches and cannot tell: a
   launch of blocks(M / 32) with M = 100 leaves rows 96..99 of the output
   to nobody. Described compactly: the rows (or columns) when whole ones are
   missing and they are consecutive, else a count and the first position.
   A warning, not a failure: a kernel may mean it (the README says how to
   read it). Returns 1 if it warned. */
PTO_K_FN int pto_h_unwritten_copy(const pto_k_gm *g, const char *name)
{
    int64_t R = g->rows, C = g->cols, i, j, n = 0, first = -1;
    int64_t fr0 = -1, fr1 = -1, nfr = 0, fc0 = -1, fc1 = -1, nfc = 0;
    char where[96];
    for (i = 0; i < R; i++) {
        int64_t nr = 0;
        for (j = 0; j < C; j++)
            if (!pto_k_gm_written(g, i, j)) {
                if (first < 0) first = i * C + j;
                nr++;
            }
        n += nr;
        if (nr == C) {      /* a whole row */
            if (fr0 < 0) fr0 = i;
            fr1 = i;
            nfr++;
        }
    }
    if (!n) return 0;
    for (j = 0; j < C && nfr * C != n; j++) {   /* whole columns, when not whole rows */
        for (i = 0; i < R && !pto_k_gm_written(g, i, j); i++) {}
        if (i == R) {
            if (fc0 < 0) fc0 = j;
            fc1 = j;
            nfc++;
        }
    }
    if (nfr * C == n && fr1 - fr0 + 1 == nfr && fr0 == fr1)
        snprintf(where, sizeof where, "row %lld", (long long)fr0);
    else if (nfr * C == n && fr1 - fr0 + 1 == nfr)
        snprintf(where, sizeof where, "rows %lld..%lld", (long long)fr0, (long long)fr1);
    else if (nfc * R == n && fc1 - fc0 + 1 == nfc && fc0 == fc1)
        snprintf(where, sizeof where, "column %lld", (long long)fc0);
    else if (nfc * R == n && fc1 - fc0 + 1 == nfc)
        snprintf(where, sizeof where, "columns %lld..%lld", (long long)fc0, (long long)fc1);
    else
        snprintf(where, sizeof where, "first at [%lld, %lld]", (long long)(first / C), (long long)(first % C));
    printf("  warning     %s: %lld of %lld element%s never written (%s)\n", name, (long long)n, (long long)(R * C),
           R * C == 1 ? "" : "s", where);
    return 1;
}

/* The unwritten-elements warning for tensor p when it is an out tensor
   (an inout one keeps what the kernel leaves alone by design); a ranks
   kernel's on every rank (named x@r). */
PTO_K_FN void pto_h_unwritten(pto_h_run *run, int p, const char *name)
{
    int r, nr = run->kranks ? run->kranks : 1;
    if (run->dir[p] != PTO_H_OUT) return;
    for (r = 0; r < nr; r++) {
        char label[80];
        pto_h_unwritten_copy(pto_h_copy(run, p, r, name, label, sizeof label), label);
    }
}

/* The busiest pipe's name; in a launch of both core kinds (a mix kernel)
   with the kind of the core it is on ("MTE2, aiv": review27 L6, a matmul
   epilogue's bound read as the cube's loads when it was each AIV's). */
PTO_K_FN const char *pto_h_bound_pipe(const pto_k_report *r, char *buf, size_t size)
{
    int c, p, kinds = 0;
    for (c = 0; c < r->ncores; c++) kinds |= 1 << (r->cores[c].kind == PTO_K_CORE_CUBE);
    for (c = 0; c < r->ncores; c++)
        for (p = 0; p < PTO_K_NPIPE; p++)
            if (r->bound > 0 && r->cores[c].busy[p] == r->bound) {
                if (kinds != 3) return pto_k__pipe_name(p);
                snprintf(buf, size, "%s, %s", pto_k__pipe_name(p), r->cores[c].kind == PTO_K_CORE_CUBE ? "aic" : "aiv");
                return buf;
            }
    return "-";
}

PTO_K_FN void pto_h_reset(pto_h_run *run)
{
    int p, r;
    for (p = 0; p < run->ntensors; p++) {
        for (r = 0; r < PTO_H_RMAX; r++) {
            free(run->rhost[r][p]);
            run->rhost[r][p] = NULL;
        }
        run->host[p] = NULL;
        run->gm[p] = NULL;
    }
    run->kranks = 0;
    run->ntensors = 0;
    run->nbind = 0;
    run->refused = 0;
    run->disturbed[0] = '\0';
}

/* Length of a report without its "(block N ...)" suffix ("(rank R block N
   ...)" on a ranks launch): the same error in every block or rank is one
   finding, printed once with a count. */
PTO_K_FN size_t pto_h_msg_core_len(const char *msg)
{
    const char *p = strstr(msg, " (");
    const char *last = NULL;
    for (; p; p = strstr(p + 1, " ("))
        if (strncmp(p + 2, "block ", 6) == 0 || strncmp(p + 2, "rank ", 5) == 0) last = p;
    return last && strchr(last, ')') && strchr(last, ')')[1] == 0 ? (size_t)(last - msg) : strlen(msg);
}

/* Whether report i repeats an earlier one but for its core (printed once, with a count). */
PTO_K_FN int pto_h_repeat(const pto_k_report *r, int i)
{
    size_t li = pto_h_msg_core_len(r->errors[i].msg);
    int j;
    for (j = 0; j < i; j++)
        if (pto_h_msg_core_len(r->errors[j].msg) == li && strncmp(r->errors[j].msg, r->errors[i].msg, li) == 0) return 1;
    return 0;
}

/* Prints each distinct report once, in first-seen order, with how often it
   occurred; at most 12 distinct reports. */
PTO_K_FN void pto_h_print_distinct(const pto_k_report *r)
{
    int i, j, shown = 0, distinct = 0;
    for (i = 0; i < r->nerrors; i++) {
        const char *mi = r->errors[i].msg;
        size_t li = pto_h_msg_core_len(mi);
        int count = 1;
        if (pto_h_repeat(r, i)) continue;
        distinct++;
        for (j = i + 1; j < r->nerrors; j++)
            count += pto_h_msg_core_len(r->errors[j].msg) == li && strncmp(r->errors[j].msg, mi, li) == 0;
        if (shown == 12) continue;
        shown++;
        if (count == 1) printf("    %s\n", mi);
        else printf("    %.*s (%d times, first in %s\n", (int)li, mi, count, mi + li + 2);
    }
    if (distinct > shown) printf("    ... and %d more distinct reports\n", distinct - shown);
}

/* Did the launch deadlock? Then its cores stopped at the hang: what they
   left unwritten and the cycles up to it follow from the deadlock. */
/* The report holds an error of this kind. */
PTO_K_FN int pto_h_reported(const pto_k_report *r, int kind)
{
    int i;
    for (i = 0; i < r->nerrors; i++)
        if ((int)r->errors[i].kind == kind) return 1;
    return 0;
}

/* A mismatch with no report: the one thing the simulator saw that could
   explain it is an overwrite of bytes nothing had read (pto_k_report.lost),
   which two live tiles on the same bytes cause. */
PTO_K_FN void pto_h_lost_note(const pto_k_overwrite *o)
{
    printf("  note        no simulator report, but on %s %s (%s) overwrote %s bytes [%lld, %lld) that %s (%s) had "
           "written and nothing had read: if two live tiles share those bytes (an edited offset?), that is the "
           "difference\n",
           o->core, o->op ? o->op : "?", o->src, pto_k__space_name(o->space), (long long)o->lo, (long long)o->hi,
           o->lost_op ? o->lost_op : "?", o->lost_src ? o->lost_src : "?");
}

/* A deadlock stopped the cores: its report says "error: deadlock:". (An
   M -> FIX id above 2 is in the deadlock class, since it hung a device, but
   the simulator runs it as written: the run went to its end.) */
PTO_K_FN int pto_h_deadlocked(const pto_k_report *r)
{
    int i;
    for (i = 0; i < r->nerrors; i++)
        if (r->errors[i].kind == PTO_K_E_DEADLOCK && r->errors[i].msg && strstr(r->errors[i].msg, "error: deadlock:"))
            return 1;
    return 0;
}

/* Why efficiency is not 1: the busiest pipe's idle cycles, the waits that
   held it (the three largest by statement), and the time it had no work. */
PTO_K_FN void pto_h_idle(const pto_k_report *r)
{
    char label[16];
    int64_t idle = r->makespan - r->bound, shown = 0;
    int i;
    if (r->bound_pipe < 0 || r->bound_pipe >= PTO_K_PIPE_ALL || idle < 0) return;
    snprintf(label, sizeof label, "%s idle", pto_k__pipe_name(r->bound_pipe));
    printf("  %-12s%lld cycle%s", label, (long long)idle, idle == 1 ? "" : "s");
    for (i = 0; i < r->nsites; i++) {
        const pto_k_wait_site *w = &r->sites[i];
        printf("%s %lld in ", i ? "," : ":", (long long)w->cycles);
        if (w->from == PTO_K_PIPE_ALL) printf("pipe_barrier(ALL)");
        else if (w->from >= 0 && w->from < PTO_K_PIPE_ALL) printf("wait_flag(%s, %s)", pto_k__pipe_name(w->from), pto_k__pipe_name(r->bound_pipe));
        else if (w->from == PTO_K_WAIT_TPUSH) printf("tpush (a free slot)");
        else if (w->from == PTO_K_WAIT_TPOP) printf("tpop (a pushed slot)");
        else if (w->from == PTO_K_WAIT_CROSS) printf("a cross-core wait_flag");
        else printf("wait (a signal)");
        printf(" at %s", w->src ? w->src : "?");
        shown += w->cycles;
    }
    if (r->waited > shown) printf("%s %lld in other waits", r->nsites ? "," : ":", (long long)(r->waited - shown));
    if (idle > r->waited) printf("%s %lld with no work queued", r->waited ? "," : ":", (long long)(idle - r->waited));
    printf("\n");
}

PTO_K_FN void pto_h_report(pto_h_run *run, const char *name, const pto_k_report *r, const char *planned, int divzero)
{
    int flags, barriers;
    char bp[32];
    printf("  cycles      %lld%s\n", (long long)r->makespan, pto_h_deadlocked(r) ? " (up to the deadlock)" : "");
    if (r->bound > 0) {
        printf("  bound       %lld (%s)\n", (long long)r->bound, pto_h_bound_pipe(r, bp, sizeof bp));
        /* review28 L9: a kernel whose ops were skipped for errors printed "efficiency 1.000" */
        if (r->skipped > 0)
            printf("  efficiency  - (%lld instruction%s not run for the errors below: the cycles leave out their work)\n",
                   (long long)r->skipped, r->skipped == 1 ? "" : "s");
        else
            printf("  efficiency  %.3f\n", r->efficiency);
    } else {   /* no instruction took a cycle (review17: "bound 0 (-), efficiency 0.000") */
        printf("  bound       - (no instruction ran)\n");
    }
    if (!pto_h_deadlocked(r)) pto_h_idle(r);
    if (run->ksrc) {
        pto_h_count_syncs(run->ksrc, name, &flags, &barriers);
        printf("  syncs       %d flag%s, %d barrier%s\n", flags, flags == 1 ? "" : "s", barriers, barriers == 1 ? "" : "s");
    } else {
        printf("  syncs       ? (kernel.c not found next to host.c)\n");
    }
    printf("  planned     %s\n", planned);
    if (!r->nerrors) {
        printf("  simulator   no reports\n");
    } else {   /* the lines below group the reports that differ in their core only */
        int i, distinct = 0;
        for (i = 0; i < r->nerrors; i++) distinct += !pto_h_repeat(r, i);
        /* review26a L8: the total, then what the lines below show ("67 reports, 7 distinct (and 189
           repeats or further reports not kept)" left the reader to add them up). A race a loop
           repeats is kept once per pair of instructions; past max_errors (100) none is kept, only
           counted, so a new problem may hide there. */
        int total = r->nerrors + r->suppressed;
        printf("  simulator   %d report%s", total, total == 1 ? "" : "s");
        if (distinct < total) {
            printf(" in all, %d distinct (below; the others repeat %s on other cores or in later iterations", distinct,
                   distinct == 1 ? "it" : "them");
            if (r->nerrors >= 100) printf(", or come after the first 100, which alone were kept");
            printf(")");
        }
        /* the run's error is the division (the result line): these may be its knock-ons */
        if (divzero) printf("; they may follow from the division by zero above (the kernel took 0 for it)");
        printf("\n");
    }
    pto_h_print_distinct(r);
}

/* A finite float -D value x (of scalar vn) that an op's tile dtype takes
   as inf (1e39 in f32, 70000 in f16), or a nonzero one it takes as 0 (1e-50
   in f32, 1e-8 in f16: review20 L5): said at the launch as the verifier
   says it of literals (pto_h_int_scalars, below, asks for float tiles).
   1 when said. */
PTO_K_FN int pto_h_float_scalar(pto_h_run *run, const pto_stmt *st, const pto_tile *t, const char *vn, double x)
{
    int i;
    double used = pto_scalar_as(t->dtype, x);
    if (x - x != 0.0 || (!isinf(used) && (used != 0.0 || x == 0.0))) return 0;
    i = pto_h_def_index(run, vn);
    fprintf(stderr, "warning: -D %s: %s on the %s tile '%s' (%s:%d) takes the scalar as %s\n",
            i < run->ndefs ? run->def_name[i] : vn, pto_opinfo_get((pto_op)st->op)->name,
            pto_dtype_name((pto_dtype)t->dtype), pto_str(run->ctx, t->name), run->file, (int)st->loc.line,
            used == 0.0 ? "0" : x < 0 ? "-inf" : "inf");
    return 1;
}

/* A scalar param used by tadds .. tmins / texpands on an i32 / i8 tile: the
   device takes the value in the tile's dtype (truncated toward zero; one
   out of range has no defined conversion), and so do the simulator and the
   reference, so both agree on a value the user did not write: a -D that
   changes on the way (-D alpha=0.5 for an integer op) is said, once per
   param, with the op, the tile, its line and the value used. The verifier
   says the same of literals. */
PTO_K_FN void pto_h_int_scalars(pto_h_run *run, int32_t k)
{
    const pto_module *m = run->m;
    int32_t s, warned[PTO_H_MAX];
    int nwarned = 0, b, i;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *d, *o;
        const pto_tile *t;
        const char *vn, *dt;
        double x, used;
        int cls, dup = 0;
        if (st->kind != PTO_ST_OP || st->op >= PTO_NOP || st->block < 0 || m->blocks[st->block].kernel != k) continue;
        cls = pto_opinfo_get((pto_op)st->op)->cls;
        if (cls != PTO_OC_BINS && cls != PTO_OC_FILL) continue;
        d = pto_stmt_arg(m, s, 0);
        o = pto_stmt_arg(m, s, cls == PTO_OC_FILL ? 1 : 2);
        if (!d || !o || d->kind != PTO_O_TILE || d->ref < 0 || d->ref >= m->n_tiles || o->kind != PTO_O_SCALAR ||
            o->ref < 0 || o->ref >= m->n_vars)
            continue;
        t = &m->tiles[d->ref];
        for (i = 0; i < nwarned; i++) dup |= warned[i] == o->ref;
        vn = pto_str(run->ctx, m->vars[o->ref].name);
        for (b = 0; b < run->nbind && strcmp(run->bind[b].name, vn) != 0; b++) {}
        if (dup || b == run->nbind) continue;
        x = run->bind[b].value;
        if (t->dtype != PTO_I32 && t->dtype != PTO_I8) {
            if (pto_h_float_scalar(run, st, t, vn, x) && nwarned < PTO_H_MAX) warned[nwarned++] = o->ref;
            continue;
        }
        used = (double)pto_scalar_asi(t->dtype, x);
        if (used == x) continue;
        if (nwarned < PTO_H_MAX) warned[nwarned++] = o->ref;
        dt = pto_dtype_name((pto_dtype)t->dtype);
        i = pto_h_def_index(run, vn);
        fprintf(stderr, "warning: -D %s: %s on the %s tile '%s' (%s:%d) %s %.0f%s\n",
                i < run->ndefs ? run->def_name[i] : vn, pto_opinfo_get((pto_op)st->op)->name, dt,
                pto_str(run->ctx, t->name), run->file, (int)st->loc.line,
                x != x ? "has no value for nan; the simulator and the reference use"
                : x < pto_int_lo(t->dtype) || x > pto_int_hi(t->dtype)
                    ? "cannot take it (out of range: the device's conversion is undefined); the simulator and the "
                      "reference use"
                    : "takes the scalar as",
                used, x == x && used != x && used == (x < 0 ? ceil(x) : floor(x))
                    ? " (the device converts it to the tile's dtype, truncating toward zero)" : "");
    }
}

/* The first error the reference interpreter recorded, when it is a division or
   remainder by 0 (`-D S=0` for `x / S`), else NULL. The docs make that the run's
   error, at the expression (docs/pto-format.md, "let, for, if"); the emitted C
   takes such a quotient as 0 so as not to trap (emit.c, pto_emit_div), so all
   the simulator can show of it is what follows from that 0 (review17 finding 14). */
PTO_K_FN const pto_diag *pto_h_div_zero(const pto_h_run *run)
{
    static const char *const what[] = {"division by zero", "modulo by zero", "division by 0 ", "remainder by 0 "};
    int i, n = pto_diag_count(run->ctx);
    size_t w;
    for (i = 0; i < n; i++) {
        const pto_diag *d = pto_diag_get(run->ctx, i);
        if (!d || d->severity != PTO_SEV_ERROR || !d->msg) continue;
        for (w = 0; w < sizeof what / sizeof what[0]; w++)
            if (strncmp(d->msg, what[w], strlen(what[w])) == 0) return d;
        return NULL;
    }
    return NULL;
}

/* The reference's first error when it is an integer overflow, else NULL. */
PTO_K_FN const pto_diag *pto_h_overflow(const pto_h_run *run)
{
    int i, n = pto_diag_count(run->ctx);
    for (i = 0; i < n; i++) {
        const pto_diag *d = pto_diag_get(run->ctx, i);
        if (!d || d->severity != PTO_SEV_ERROR || !d->msg) continue;
        return strncmp(d->msg, "integer overflow", 16) == 0 ? d : NULL;
    }
    return NULL;
}

/* The operand of host call st that binds kernel k's param p: the call's
   arguments are in the ABI order, tensors first, then scalars (ir.h). */
PTO_K_FN const pto_operand *pto_h_call_arg(const pto_module *m, const pto_hstmt *st, const pto_kernel *k, int32_t p)
{
    int32_t q, at = 0, scalar = m->params[p].kind == PTO_P_SCALAR;
    for (q = k->param0; q < k->param0 + k->nparams; q++)
        if ((m->params[q].kind == PTO_P_SCALAR) < scalar || ((m->params[q].kind == PTO_P_SCALAR) == scalar && q < p)) at++;
    return at < st->nargs ? &m->operands[st->arg0 + at] : NULL;
}

/* The call statement of kernel k the reference stopped at (its note "in the
   call of 'K' by host 'H'" is at the call), else the one call of k in the
   module when there is only one; NULL when not known. */
PTO_K_FN const pto_hstmt *pto_h_failed_call(const pto_h_run *run, int32_t k)
{
    const pto_module *m = run->m;
    const pto_hstmt *one = NULL;
    int i, n = pto_diag_count(run->ctx), calls = 0;
    int32_t s;
    for (s = 0; s < m->n_hstmts; s++)
        if (m->hstmts[s].kind == PTO_HS_CALL && m->hstmts[s].ref == k) one = &m->hstmts[s], calls++;
    for (i = 0; i < n; i++) {
        const pto_diag *d = pto_diag_get(run->ctx, i);
        if (!d || d->severity != PTO_SEV_NOTE || !d->msg || strncmp(d->msg, "in the call of '", 16) != 0) continue;
        for (s = 0; s < m->n_hstmts; s++)
            if (m->hstmts[s].kind == PTO_HS_CALL && m->hstmts[s].ref == k && m->hstmts[s].loc.line == d->loc.line &&
                m->hstmts[s].loc.col == d->loc.col)
                return &m->hstmts[s];
    }
    return calls == 1 ? one : NULL;
}

/* The argument text of a host call's operand o, into b. */
PTO_K_FN void pto_h_arg_text(const pto_module *m, const pto_operand *o, pto_buf *b)
{
    if (o->kind == PTO_O_INT) pto_print_expr(m, o->e[0], b);
    else if (o->kind == PTO_O_SCALAR && o->ref >= 0 && o->ref < m->n_vars) pto_buf_puts(b, pto_str(m->ctx, m->vars[o->ref].name));
    else if (o->kind == PTO_O_GM && o->ref >= 0 && o->ref < m->n_params) pto_buf_puts(b, pto_str(m->ctx, m->params[o->ref].name));
    else pto_buf_printf(b, "%g", o->f);
}

/* Which arguments of call st the names that blocks(...) expression e reads
   come from ("nb: argument 4, R / 128"), into b; the last such argument's
   operand in *at. */
PTO_K_FN void pto_h_blocks_args(const pto_module *m, const pto_hstmt *st, const pto_kernel *k, int32_t e, pto_buf *b,
                                const pto_operand **at, int depth)
{
    const pto_expr *x;
    int32_t p, v;
    if (e < 0 || e >= m->n_exprs || depth > 64) return;
    x = &m->exprs[e];
    if (x->kind != PTO_E_VAR) {
        if (x->kind == PTO_E_NEG || (x->kind >= PTO_E_ADD && x->kind <= PTO_E_MAX)) pto_h_blocks_args(m, st, k, x->a, b, at, depth + 1);
        if (x->kind >= PTO_E_ADD && x->kind <= PTO_E_MAX) pto_h_blocks_args(m, st, k, x->b, b, at, depth + 1);
        return;
    }
    v = x->a;
    if (v < 0 || v >= m->n_vars) return;
    for (p = k->param0; p < k->param0 + k->nparams; p++) {
        const pto_param *kp = &m->params[p];
        const pto_operand *o;
        int d;
        if (!(kp->kind == PTO_P_SCALAR ? kp->var == v : (kp->dim_var[0] == v || kp->dim_var[1] == v))) continue;
        if (!(o = pto_h_call_arg(m, st, k, p))) return;
        if (b->len) pto_buf_puts(b, "; ");
        pto_buf_printf(b, "%s: argument %d, ", pto_str(m->ctx, m->vars[v].name), (int)(o - &m->operands[st->arg0]) + 1);
        if (kp->kind == PTO_P_TENSOR) {
            d = kp->dim_var[0] == v ? 0 : 1;
            pto_buf_printf(b, "the %s of ", d ? "cols" : "rows");
        }
        pto_h_arg_text(m, o, b);
        *at = o;
        return;
    }
}

/* A launch of no block is the user's input: say which expression gave it. A
   count that divides by a launch value of 0 is that division's error, found by
   the reference interpreter (`status`: its result, or PTO_OK when it did not
   run) at the expression; its diagnostics are then the report. A host's call
   (`call` set) is said at the call, naming the arguments the count reads
   (review27 L1: it pointed at the kernel and blamed "these -D values"). */
PTO_K_FN void pto_h_no_block(pto_h_run *run, const char *name, int64_t blocks, pto_status status, int call)
{
    int32_t k = pto_h_kernel_index(run, name);
    const pto_diag *dzd = status != PTO_OK ? pto_h_div_zero(run) : NULL;
    const pto_hstmt *st = call && k < run->m->n_kernels ? pto_h_failed_call(run, k) : NULL;
    const char *given = call ? "this call's arguments" : "these -D values";
    pto_buf b;
    memset(&b, 0, sizeof b);
    b.ctx = run->ctx;
    if (k < run->m->n_kernels && run->m->kernels[k].blocks >= 0) pto_print_expr(run->m, run->m->kernels[k].blocks, &b);
    if (dzd) {
        /* in a host, the division may be the argument's (`64 / (R - 64)`), not the count's */
        int inarg = call && dzd->msg && strstr(dzd->msg, "host expression") != NULL;
        fflush(stdout);
        pto_diag_print(run->ctx, stderr);
        if (inarg)
            fprintf(stderr, "note: kernel %s is not run: an argument of its call divides by zero (the error above)\n", name);
        else
            fprintf(stderr, "note: kernel %s is not run: its blocks(%s) divides by zero with %s\n", name,
                    b.data ? b.data : "...", given);
        fflush(stderr);
        pto_diag_clear(run->ctx);
        pto_buf_free(&b);
        if (run->status < 1) run->status = 1;
        return;
    }
    if (b.data && st) {
        const pto_kernel *kn = &run->m->kernels[k];
        const pto_loc *l = &run->m->exprs[kn->blocks].loc;
        const pto_operand *at = NULL;
        pto_buf a;
        memset(&a, 0, sizeof a);
        a.ctx = run->ctx;
        pto_h_blocks_args(run->m, st, kn, kn->blocks, &a, &at, 0);
        fflush(stdout);
        fprintf(stderr, "%s:%d:%d: error: call %s would launch no block: blocks(%s) is %lld with %s%s%s%s\n", run->file,
                (int)(at ? at->loc.line : st->loc.line), (int)(at ? at->loc.col : st->loc.col), name, b.data,
                (long long)blocks, given, a.data ? " (" : "", a.data ? a.data : "", a.data ? ")" : "");
        fprintf(stderr, "%s:%d:%d: note: kernel %s's blocks(%s)\n", run->file, (int)l->line, (int)l->col, name, b.data);
        fflush(stderr);
        pto_buf_free(&a);
        pto_diag_clear(run->ctx);
        if (run->status < 1) run->status = 1;
        pto_buf_free(&b);
        return;
    }
    pto_diag_clear(run->ctx);
    /* at its blocks(...), FILE:LINE:COL: error: like every other error of
       its source (review18 L1: was "error: FILE:LINE: ...") */
    if (b.data) {
        const pto_loc *l = &run->m->exprs[run->m->kernels[k].blocks].loc;
        fprintf(stderr, "%s:%d:%d: error: kernel %s would launch no block: blocks(%s) is %lld with %s\n", run->file,
                (int)l->line, (int)l->col, name, b.data, (long long)blocks, given);
        if (run->status < 1) run->status = 1;
    } else
        pto_h_fail(run, 1, "kernel %s would launch no block", name);
    pto_buf_free(&b);
}

/* The reference interpreter failed: its diagnostics, then the result line.
   A division by zero is the run's error, said as such (the simulated kernel
   ran on with 0: its reports may follow from it); 1 then. So is an
   integer overflow (the simulator stopped at it: 0). */
PTO_K_FN int pto_h_interp_failed(pto_h_run *run)
{
    const pto_diag *dz = pto_h_div_zero(run), *ov = dz ? NULL : pto_h_overflow(run);
    int line = dz ? (int)dz->loc.line : ov ? (int)ov->loc.line : 0, col = dz ? (int)dz->loc.col : ov ? (int)ov->loc.col : 0;
    const char *what = dz && (strncmp(dz->msg, "modulo", 6) == 0 || strncmp(dz->msg, "remainder", 9) == 0)
                           ? "remainder" : "division";
    fflush(stdout);
    pto_diag_print(run->ctx, stderr);
    fflush(stderr);
    pto_diag_clear(run->ctx);
    if (!dz) {
        if (ov)   /* the simulator stops there too (pto_k_imul ...): its report is the same finding */
            printf("  result      not compared: an integer overflow at %s:%d:%d (the error above) stops the reference\n",
                   run->file, line, col);
        else
            printf("  result      no reference: the interpreter failed\n");
        return 0;
    }
    printf("  result      not compared: a %s by zero at %s:%d:%d (the error above) stops the reference\n", what,
           run->file, line, col);
    return 1;
}

/* pto_h_call's launch of no block: the host that calls kernel `name`, when
   only one does (it is then the one running), on the reference interpreter
   up to that call, for a division by zero in the count. */
PTO_K_FN pto_status pto_h_host_blocks(pto_h_run *run, const char *name)
{
    pto_host_launch L;
    int32_t k = pto_h_kernel_index(run, name), h, i, found = -1;
    if (k >= run->m->n_kernels) return PTO_OK;
    for (h = 0; h < run->m->n_hosts; h++)
        for (i = 0; i < run->m->hosts[h].nstmts; i++) {
            const pto_hstmt *st = &run->m->hstmts[run->m->hosts[h].stmt0 + i];
            if (st->kind == PTO_HS_CALL && st->ref == k && found != h) {
                if (found >= 0) return PTO_OK;   /* two hosts call it: which one runs is not known here */
                found = h;
            }
        }
    if (found < 0 || run->m->kernels[k].blocks < 0) return PTO_OK;
    memset(&L, 0, sizeof L);
    L.host = found;
    L.tensors = run->host;
    L.bindings = run->bind;
    L.nbindings = run->nbind;
    L.max_instr = run->max_instr;
    return pto_interp_host(run->ctx, run->m, &L);
}

/* A launch the simulator refused (too many cores for one launch, out of
   memory: rep->ncores is 0) ran nothing, so its outputs hold what they held
   before: comparing them would report differences the kernel never made.
   The refusal is the result (the run fails); its errors go to stderr as
   the harness's own do. 1 when refused. */
PTO_K_FN int pto_h_refused(pto_h_run *run, const pto_k_report *rep)
{
    int i;
    if (rep->ncores > 0) return 0;
    fflush(stdout);
    for (i = 0; i < rep->nerrors; i++) fprintf(stderr, "%s\n", rep->errors[i].msg);
    if (!rep->nerrors) fprintf(stderr, "error: the simulator refused the launch\n");
    fflush(stderr);
    printf("  result      not run: the simulator refused the launch (the error above); nothing is compared\n");
    run->failed = 1;
    run->refused = 1;
    return 1;
}

/* The simulator gives every block its own core, so all blocks run at once;
   the device has 24 clusters (a2a3, 910B1/B2: 24 AIC, 48 AIV; a5: 36 / 72,
   hardware.md section 1) and runs more blocks than cores in waves. Said
   when it applies, so that cycles is not read as the device's time. */
PTO_K_FN void pto_h_waves(const pto_h_run *run, int kind, int64_t blocks)
{
    int a5 = run->m && run->m->arch == PTO_ARCH_A5;
    int64_t cores = kind == PTO_K_KIND_VECTOR ? (a5 ? 72 : 48) : (a5 ? 36 : 24);
    const char *what = kind == PTO_K_KIND_VECTOR ? "vector cores" : kind == PTO_K_KIND_CUBE ? "cube cores" : "clusters";
    if (blocks <= cores) return;
    printf("  note        %lld blocks on %lld %s (%s): the device runs %lld waves; cycles counts the blocks at once\n",
           (long long)blocks, (long long)cores, what, a5 ? "a5" : "a2a3, 910B", (long long)((blocks + cores - 1) / cores));
}

/* a + b (op 0), a - b (1) or a * b (2) of a kernel's blocks(...) that
   may leave int64 (emit.c, pto__emit_blocks): exact, or 1 and the run's
   overflow mark, which the launch reports (C's signed overflow is
   undefined behaviour, and a wrapped count reads as a huge launch). */
PTO_K_FN int64_t pto_h_ck(pto_h_run *run, int op, int64_t a, int64_t b)
{
    int64_t r;
    if (!pto_k__ovf(op == 0 ? '+' : op == 1 ? '-' : '*', a, b, &r)) return r;
    run->overflow = 1;
    return 1;
}

/* A launch whose blocks(...) left int64 (pto_h_ck marked the run): refused
   at the expression, as the reference interpreter would ("integer
   overflow"), instead of launching the wrapped count. */
static int pto_h_blocks_overflow(pto_h_run *run, const char *name)
{
    int32_t k = pto_h_kernel_index(run, name);
    pto_buf b;
    if (!run->overflow) return 0;
    run->overflow = 0;
    memset(&b, 0, sizeof b);
    b.ctx = run->ctx;
    if (k < run->m->n_kernels && run->m->kernels[k].blocks >= 0) {
        const pto_loc *l = &run->m->exprs[run->m->kernels[k].blocks].loc;
        pto_print_expr(run->m, run->m->kernels[k].blocks, &b);
        fflush(stdout);
        fprintf(stderr, "%s:%d:%d: error: kernel %s is not run: blocks(%s) overflows int64 (integer overflow in "
                "expression) with these -D values\n", run->file, (int)l->line, (int)l->col, name,
                b.data ? b.data : "...");
        fflush(stderr);
        if (run->status < 1) run->status = 1;
    } else
        pto_h_fail(run, 1, "kernel %s is not run: its blocks(...) overflows int64", name);
    pto_buf_free(&b);
    return 1;
}

PTO_K_FN void pto_h_launch(pto_h_run *run, pto_k_kernel_fn fn, const char *name, int kind, int64_t blocks,
                          const int64_t *args, const char *planned)
{
    pto_k_launch_desc ld;
    const pto_k_report *rep;
    pto_launch L;
    int32_t k;
    int p, r, bad = 0, nout = 0, divzero = 0;
    void **tensors = NULL;
    if (run->status || pto_h_blocks_overflow(run, name)) { pto_h_reset(run); return; }
    memset(&ld, 0, sizeof ld);
    ld.fn = fn;
    ld.name = name;
    ld.kind = kind;
    ld.block_num = blocks;
    ld.args = args;
    ld.max_instr = run->max_instr;
    k = pto_h_kernel_index(run, name);
    memset(&L, 0, sizeof L);
    L.kernel = k;
    L.tensors = run->host;
    L.bindings = run->bind;
    L.nbindings = run->nbind;
    L.max_instr = run->max_instr;
    if (run->kranks && k < run->m->n_kernels) {
        /* every arg once; the simulator gives each rank its window copies */
        int np = run->m->kernels[k].nparams;
        ld.nargs = np;
        tensors = (void **)calloc((size_t)(run->kranks * (np > 0 ? np : 1)), sizeof *tensors);
        if (!tensors) { pto_h_fail(run, 2, "out of memory"); pto_h_reset(run); return; }
        for (r = 0; r < run->kranks; r++)
            for (p = 0; p < np && p < PTO_H_MAX; p++) tensors[r * np + p] = run->rhost[r][p];
        L.tensors = tensors;
        L.nranks = run->kranks;
    }
    if (blocks < 1) {   /* the reference evaluates the count too: a division by zero in it is the error */
        pto_h_no_block(run, name, blocks, k < run->m->n_kernels ? pto_interp(run->ctx, run->m, &L) : PTO_OK, 0);
        free(tensors);
        pto_h_reset(run);
        return;
    }
    if (k < run->m->n_kernels) pto_h_int_scalars(run, k);
    rep = pto_k_launch(run->kranks ? run->rdev : run->dev, &ld);
    if (run->kranks)
        printf("kernel %s (%lld block%s x %d rank%s)\n", name, (long long)blocks, blocks == 1 ? "" : "s", run->kranks,
               run->kranks == 1 ? "" : "s");
    else
        printf("kernel %s (%lld block%s)\n", name, (long long)blocks, blocks == 1 ? "" : "s");
    if (pto_h_refused(run, rep)) {
        free(tensors);
        pto_h_reset(run);
        return;
    }
    if (k == run->m->n_kernels || pto_interp(run->ctx, run->m, &L) != PTO_OK) {
        divzero = pto_h_interp_failed(run);
        bad = 1;
    } else {
        for (p = 0; p < run->ntensors; p++) {   /* every tensor: each wrong one is reported */
            if (!run->gm[p]) continue;
            nout += run->dir[p] != PTO_H_IN;
            bad |= pto_h_compare(run, p, run->gm[p]->name);
        }
        if (!bad) printf("  result      match (%d output%s)\n", nout, nout == 1 ? "" : "s");
        for (p = 0; p < run->ntensors; p++)
            if (run->gm[p]) pto_h_unwritten(run, p, run->gm[p]->name);
        if (bad && pto_h_deadlocked(rep))   /* the cause is at the end of the report: say so up here */
            printf("  note        the simulator reports a deadlock (below): the cores stopped there, so the "
                   "differences follow from it\n");
        else if (bad && pto_h_reported(rep, PTO_K_E_RACE))
            printf("  note        the simulator reports a race (below): which access came first is left to "
                   "timing, so the differences may follow from it\n");
        else if (bad && !rep->nerrors && rep->lost.src)
            pto_h_lost_note(&rep->lost);
    }
    pto_h_report(run, name, rep, planned, divzero);
    pto_h_waves(run, kind, blocks);
    if (bad || rep->nerrors) run->failed = 1;
    run->cycles += rep->makespan;
    run->nkernels++;
    free(tensors);
    pto_h_reset(run);
}

/* ---- host sections ----------------------------------------------------------
   host_NAME in host.c allocates the host's tensors with pto_h_tensor (index =
   host tensor, PTO_H_TEMP for intermediates), launches every call with
   pto_h_call (simulator only: reports per call, no comparison, the tensors
   stay) and ends with pto_h_host_end, which runs the host on the reference
   interpreter (pto_interp_host) and compares every tensor of the host. */

PTO_K_FN void pto_h_call(pto_h_run *run, pto_k_kernel_fn fn, const char *name, int kind, int64_t blocks,
                        const int64_t *args, const char *planned)
{
    pto_k_launch_desc ld;
    const pto_k_report *r;
    if (run->status || pto_h_blocks_overflow(run, name)) return;
    if (blocks < 1) { pto_h_no_block(run, name, blocks, pto_h_host_blocks(run, name), 1); return; }
    memset(&ld, 0, sizeof ld);
    ld.fn = fn;
    ld.name = name;
    ld.kind = kind;
    ld.block_num = blocks;
    ld.args = args;
    ld.max_instr = run->max_instr;
    r = pto_k_launch(run->dev, &ld);
    printf("call %s (%lld block%s)\n", name, (long long)blocks, blocks == 1 ? "" : "s");
    if (pto_h_refused(run, r)) return;
    pto_h_report(run, name, r, planned, 0);
    pto_h_waves(run, kind, blocks);
    if (!run->disturbed[0] && (pto_h_deadlocked(r) || pto_h_reported(r, PTO_K_E_RACE))) {
        snprintf(run->disturbed, sizeof run->disturbed, "%s", name);
        run->disturbed_deadlock = pto_h_deadlocked(r);
    }
    if (r->nerrors) run->failed = 1;
    run->cycles += r->makespan;
    run->nkernels++;
}

PTO_K_FN void pto_h_host_end(pto_h_run *run, const char *name)
{
    pto_host_launch L;
    int32_t h;
    int p, bad = 0, nout = 0;
    if (run->status) { pto_h_reset(run); return; }
    for (h = 0; h < run->m->n_hosts; h++)
        if (strcmp(pto_str(run->ctx, run->m->hosts[h].name), name) == 0) break;
    memset(&L, 0, sizeof L);
    L.host = h;
    L.tensors = run->host;
    L.bindings = run->bind;
    L.nbindings = run->nbind;
    L.max_instr = run->max_instr;
    printf("host %s\n", name);
    if (run->refused) {   /* a call did not run: its outputs were never written */
        printf("  result      not run: the simulator refused a call's launch (above); nothing is compared\n");
        run->failed = 1;
    } else if (h == run->m->n_hosts || pto_interp_host(run->ctx, run->m, &L) != PTO_OK) {
        if (pto_h_interp_failed(run))
            printf("  note        the calls above ran with 0 for it, so their reports may follow from it\n");
        bad = 1;
    } else {
        for (p = 0; p < run->ntensors; p++) {   /* every tensor: a wrong intermediate names the call at fault */
            if (!run->gm[p]) continue;
            nout += run->dir[p] == PTO_H_OUT || run->dir[p] == PTO_H_INOUT;
            bad |= pto_h_compare(run, p, run->gm[p]->name);
        }
        if (!bad) printf("  result      match (%d output%s)\n", nout, nout == 1 ? "" : "s");
        else if (run->disturbed[0] && run->disturbed_deadlock)
            printf("  note        call %s deadlocked (above): its cores stopped there, so the differences "
                   "follow from it\n", run->disturbed);
        else if (run->disturbed[0])
            printf("  note        call %s raced (above): which access came first is left to timing, so the "
                   "differences may follow from it\n", run->disturbed);
        for (p = 0; p < run->ntensors; p++)   /* the host's out tensors, over all its calls */
            if (run->gm[p]) pto_h_unwritten(run, p, run->gm[p]->name);
    }
    if (bad) run->failed = 1;
    pto_h_reset(run);
}

/* A -D nothing took is likely a typo: a warning, not an error, so that one
   set of -D options can serve several kernels (said only when the run got
   through, so that it is not noise after another error). */
PTO_K_FN void pto_h_unused_defs(const pto_h_run *run)
{
    int i, v, d, best;
    const char *near;
    if (run->status || !run->m) return;
    for (i = 0; i < run->ndefs; i++) {
        if (run->def_used[i]) continue;
        near = NULL;   /* the closest dim or scalar of a kernel or host */
        best = 99;
        for (v = 0; v < run->m->n_vars; v++) {
            const pto_var *x = &run->m->vars[v];
            const char *cand = pto_str(run->ctx, x->name);
            if (x->kind != PTO_V_DIM && x->kind != PTO_V_SCALAR) continue;
            if (strlen(cand) == run->def_len[i] && strncmp(cand, run->def_name[i], run->def_len[i]) == 0 &&
                x->kernel >= 0 && x->kernel < run->m->n_kernels) {
                /* the name is there, in a kernel that only a host calls: the call binds it */
                fprintf(stderr, "warning: -D %s: '%s' belongs to kernel '%s', which host code calls with values from "
                        "its own arguments: -D %s sets nothing (give the host's names)\n", run->def_name[i], cand,
                        pto_str(run->ctx, run->m->kernels[x->kernel].name), cand);
                break;
            }
            d = pto_near(run->def_name[i], run->def_len[i], cand);
            if (d >= 0 && d < best) best = d, near = cand;
        }
        if (v < run->m->n_vars) continue;
        for (v = 0; v < run->m->n_params; v++) {
            const char *cand = pto_str(run->ctx, run->m->params[v].name);
            if (run->m->params[v].kind != PTO_P_SCALAR) continue;
            d = pto_near(run->def_name[i], run->def_len[i], cand);
            if (d >= 0 && d < best) best = d, near = cand;
        }
        fprintf(stderr, "warning: -D %s: %s has no dynamic dim or scalar param named '%.*s'%s%s%s\n",
                run->def_name[i], run->file, (int)run->def_len[i], run->def_name[i], near ? " (did you mean '" : "",
                near ? near : "", near ? "'?)" : "");
    }
}

/* --ranks N where no kernel is a ranks kernel: each kernel ran once, which
   a user giving N ranks may not expect (said only after a clean run, as for
   an unused -D). */
PTO_K_FN void pto_h_unused_ranks(const pto_h_run *run)
{
    int32_t k;
    if (run->status || !run->m || !run->ranks_given) return;
    for (k = 0; k < run->m->n_kernels; k++)
        if (run->m->kernels[k].ranks) return;
    fprintf(stderr, "warning: --ranks %d: %s has no ranks kernel, so every kernel ran once (--ranks sets how many "
            "ranks a kernel declared 'ranks' runs on)\n", run->nranks, run->file);
}

/* In a file with hosts, the run is the hosts' calls: a kernel that no call
   names is never run, which a user seeing `match` may not expect (review18
   L11; a ranks kernel cannot be called at all). A note per such kernel on
   stderr, said only after a clean run as for an unused -D; the exit status
   stays the run's. The kernel is not run on its own: `ptoc run` of a file
   without the host (or a host that calls it) runs it. */
PTO_K_FN void pto_h_uncalled(const pto_h_run *run)
{
    int32_t k;
    if (run->status || !run->m || !run->m->n_hosts) return;
    for (k = 0; k < run->m->n_kernels; k++) {
        if (!pto_host_calls_of(run->m, k))
            fprintf(stderr, "note: kernel '%s' is called by no host: not run (a file with hosts runs its hosts' "
                    "calls)\n", pto_str(run->ctx, run->m->kernels[k].name));
    }
}

PTO_K_FN int pto_h_end(pto_h_run *run)
{
    int status;
    pto_h_unused_defs(run);
    pto_h_unused_ranks(run);
    pto_h_uncalled(run);
    status = run->status ? run->status : run->failed;
    if (run->nkernels > 1) printf("total         %lld cycles over %d kernels\n", (long long)run->cycles, run->nkernels);
    pto_h_reset(run);
    if (run->dev) pto_k_device_destroy(run->dev);
    if (run->rdev) pto_k_device_destroy(run->rdev);
    if (run->m) pto_module_destroy(run->m);
    if (run->ctx) pto_ctx_destroy(run->ctx);
    free(run->ksrc);
    memset(run, 0, sizeof *run);
    return status;
}

#endif /* PTO_HOST_HARNESS */
