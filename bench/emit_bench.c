/* emit_bench.c - compile throughput of the whole pipeline (parse -> verify
   -> plan -> sync -> emit) on generated vector kernels of about 1k, 10k and
   100k instructions, with the time of each pass and the growth exponent
   (log-log slope of total time from 1k to 100k instructions; 1.0 = linear).

   The generated kernel is a sequence of loops, each with its own
   double-buffered tiles, a load, a chain of vector ops and a store: the shape
   of real kernels, large enough that a pass with quadratic behaviour shows. */

#define PTO_IMPLEMENTATION
#include "pto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OPS_PER_LOOP 8   /* tload, 6 vector ops, tstore */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A kernel with `loops` loops of OPS_PER_LOOP instructions each. */
static void gen(pto_buf *b, int loops)
{
    int l;
    pto_buf_puts(b, "kernel gen(in x: f32[1024, 256], out z: f32[1024, 256], scalar alpha: f32) vector blocks(8) {\n");
    for (l = 0; l < loops; l++) {
        pto_buf_printf(b, "  for i%d = 0 to 4 {\n", l);
        pto_buf_printf(b, "    tile a%d: vec f32[16, 256] x2\n    tile b%d: vec f32[16, 256] x2\n", l, l);
        pto_buf_printf(b, "    let r%d = block * 128 + i%d * 16 + %d %% 64\n", l, l, l);
        pto_buf_printf(b, "    tload a%d, x[r%d, 0]\n", l, l);
        pto_buf_printf(b, "    tadds b%d, a%d, 1.5\n    tmuls b%d, b%d, alpha\n    texp b%d, b%d\n", l, l, l, l, l, l);
        pto_buf_printf(b, "    tmul b%d, b%d, a%d\n    tabs b%d, b%d\n    tmaxs b%d, b%d, 0.25\n", l, l, l, l, l, l, l);
        pto_buf_printf(b, "    tstore z[r%d, 0], b%d\n  }\n", l, l);
    }
    pto_buf_puts(b, "}\n");
}

typedef struct result {
    double t[5];   /* parse verify plan sync emit */
    double total;
    long ninstr;
    size_t out_bytes;
    int skipped_sync;
} result;

/* One pipeline run; with_sync = 0 leaves the sync pass out (the emitter
   does not need flags to emit, so the rest of the pipeline can be timed at
   sizes where sync is too slow to wait for). */
static int run(int loops, int with_sync, result *r)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_buf src, k, h;
    pto_module *m;
    pto_emit_desc ed;
    pto_status st = PTO_OK;
    double t0, t1;
    memset(&src, 0, sizeof src);
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    src.ctx = k.ctx = h.ctx = ctx;
    gen(&src, loops);
    memset(r, 0, sizeof *r);
    r->ninstr = (long)loops * OPS_PER_LOOP;
    r->skipped_sync = !with_sync;
    t0 = now();
    m = pto_parse(ctx, "gen.pto", src.data, src.len);
    t1 = now(); r->t[0] = t1 - t0; t0 = t1;
    if (m) st = pto_verify(ctx, m);
    t1 = now(); r->t[1] = t1 - t0; t0 = t1;
    if (m && st == PTO_OK) st = pto_plan(ctx, m, NULL);
    t1 = now(); r->t[2] = t1 - t0; t0 = t1;
    if (m && st == PTO_OK && with_sync) st = pto_sync(ctx, m, NULL);
    t1 = now(); r->t[3] = t1 - t0; t0 = t1;
    memset(&ed, 0, sizeof ed);
    ed.source = src.data;
    ed.source_len = src.len;
    if (m && st == PTO_OK) st = pto_emit(ctx, m, &ed, &k, &h);
    t1 = now(); r->t[4] = t1 - t0;
    r->total = r->t[0] + r->t[1] + r->t[2] + r->t[3] + r->t[4];
    r->out_bytes = k.len + h.len;
    if (!m || st != PTO_OK) {
        pto_diag_print(ctx, stderr);
        fprintf(stderr, "emit_bench: the pipeline failed on %d loops\n", loops);
    }
    pto_module_destroy(m);
    pto_buf_free(&src);
    pto_buf_free(&k);
    pto_buf_free(&h);
    pto_ctx_destroy(ctx);
    return m && st == PTO_OK;
}

/* Best of a few runs: the small sizes are noisy. */
static int best(int loops, int with_sync, int reps, result *r)
{
    result cur;
    int i;
    for (i = 0; i < reps; i++) {
        if (!run(loops, with_sync, &cur)) return 0;
        if (i == 0 || cur.total < r->total) *r = cur;
    }
    return 1;
}

static const char *const pass_name[5] = {"parse", "verify", "plan", "sync", "emit"};

static void row(const result *r)
{
    int j;
    printf("%-8ld %10.2f %12.0f", r->ninstr, r->total * 1e3, (double)r->ninstr / r->total);
    for (j = 0; j < 5; j++) {
        if (j == 3 && r->skipped_sync) printf(" %9s", "-");
        else printf(" %9.2f", r->t[j] * 1e3);
    }
    printf(" %12lu\n", (unsigned long)r->out_bytes);
    fflush(stdout);
}

static void header(void)
{
    printf("%-8s %10s %12s %9s %9s %9s %9s %9s %12s\n", "instr", "total ms", "instr/s", pass_name[0], pass_name[1],
           pass_name[2], pass_name[3], pass_name[4], "C bytes");
}

static double slope(const result *a, const result *b, int pass)
{
    double ta = pass < 0 ? a->total : a->t[pass] + 1e-9, tb = pass < 0 ? b->total : b->t[pass] + 1e-9;
    return log(tb / ta) / log((double)b->ninstr / (double)a->ninstr);
}

/* The full pipeline at 1k, 10k and 100k instructions, sizes where the sync
   pass would take longer than SYNC_BUDGET seconds (extrapolated from two
   small probes) are run without it and marked. Then the figures. */
#define SYNC_BUDGET 20.0

int main(void)
{
    static const int loops[3] = {125, 1250, 12500};
    static const int reps[3] = {9, 3, 1};
    result probe[2], r[3];
    double sync_exp;
    int i, j, full = 1;
    printf("probes (full pipeline, ms per pass):\n");
    header();
    if (!best(5, 1, 3, &probe[0]) || !best(10, 1, 3, &probe[1])) return 1;
    row(&probe[0]);
    row(&probe[1]);
    sync_exp = slope(&probe[0], &probe[1], 3);
    printf("sync exponent on the probes: %.2f\n\n", sync_exp);
    header();
    for (i = 0; i < 3; i++) {
        double predicted = probe[1].t[3] * pow((double)loops[i] / 10.0, sync_exp > 1 ? sync_exp : 1);
        int with_sync = predicted < SYNC_BUDGET;
        if (!with_sync) {
            full = 0;
            printf("(sync left out at %d instructions: predicted %.0f s)\n", loops[i] * OPS_PER_LOOP, predicted);
        }
        if (!best(loops[i], with_sync, reps[i], &r[i])) return 1;
        row(&r[i]);
    }
    printf("\n%s\n", full ? "parse -> verify -> plan -> sync -> emit"
                          : "parse -> verify -> plan -> [sync where it fits the budget] -> emit");
    printf("growth exponent (1k -> 100k): %.3f (target <= 1.15)%s\n", slope(&r[0], &r[2], -1),
           r[0].skipped_sync == r[2].skipped_sync ? "" : " (mixed: sync only at the small size)");
    printf("throughput at 100k: %.0f instructions/s (target >= 1000000)%s\n", (double)r[2].ninstr / r[2].total,
           r[2].skipped_sync ? " without sync" : "");
    for (j = 0; j < 5; j++) {
        if (j == 3 && r[2].skipped_sync) {
            printf("  %-6s  too slow to run at 100k: exponent %.2f on the probes; the bottleneck\n", pass_name[j],
                   sync_exp);
            continue;
        }
        printf("  %-6s %9.2f ms at 100k, %5.1f%% of the time, exponent %.2f\n", pass_name[j], r[2].t[j] * 1e3,
               100.0 * r[2].t[j] / r[2].total, slope(&r[0], &r[2], j));
    }
    return 0;
}
