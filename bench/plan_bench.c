/* plan_bench.c - how tight the planner packs (run by `make bench`).

   Over a corpus of random kernels (tests/plan_gen.h, the property test's
   generator) plans every kernel with pipe conflicts ignored (the tight
   level: packing quality is what is measured) and compares, per memory, the
   planned peak against the max-live lower bound (the most aligned bytes
   live at one program point; no placement can do better). Memories whose
   lower bound exceeds the space are left out (they cannot fit at all).
   Prints the median and p99 of peak / lower bound and the worst case;
   exits 1 unless median <= 1.00 and p99 <= 1.10. Also prints how often the
   default mode could keep pipes apart (the separate level). */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/plan_gen.h"

#include <stdlib.h>

#define CORPUS 20000

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Ratios of every memory of one kernel; returns how many were added. */
static int measure(pto_ctx *ctx, uint64_t seed, int tight, double *out, int *separate, int *near_full)
{
    pto_module *m = gen_module(ctx, seed);
    pto_plan_result r;
    pto_plan_desc d;
    int n = 0, i;
    memset(&r, 0, sizeof r);
    memset(&d, 0, sizeof d);
    d.tight = tight;
    d.result = &r;
    pto_diag_clear(ctx);
    pto_plan(ctx, m, &d);
    for (i = 0; i < r.n; i++) {
        const pto_plan_stat *s = &r.stats[i];
        if (s->live_max + s->reserved > s->capacity || s->live_max == 0) continue;
        if (!tight) { *separate += s->peak && s->level == PTO_PLAN_SEPARATE; continue; }
        /* a memory that failed inside the capacity counts at its best peak */
        out[n++] = s->peak ? (double)s->peak / (double)s->live_max : 2.0;
        *near_full += (double)(s->live_max + s->reserved) > 0.9 * (double)s->capacity;
    }
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(m);
    return n;
}

int main(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    double *ratios = (double *)malloc(sizeof(double) * CORPUS * 8);
    int n = 0, separate = 0, near_full = 0, exact = 0, i, fits_default = 0;
    uint64_t seed;
    double median, p99;
    if (!ctx || !ratios) return 2;
    for (seed = 1; seed <= CORPUS; seed++) {
        int before = n;
        n += measure(ctx, seed + 1000000, 1, ratios + n, &separate, &near_full);
        fits_default += n > before;
        measure(ctx, seed + 1000000, 0, NULL, &separate, &near_full);
    }
    qsort(ratios, (size_t)n, sizeof(double), cmp_double);
    for (i = 0; i < n; i++) exact += ratios[i] <= 1.0;
    median = ratios[n / 2];
    p99 = ratios[(int)((double)n * 0.99)];
    printf("plan_bench: %d kernels, %d memories that can fit (%d at >= 90%% of capacity)\n", CORPUS, n, near_full);
    printf("  planned peak / max-live lower bound: median %.3f, p99 %.3f, worst %.3f; %.1f%% exactly at the bound\n",
           median, p99, ratios[n - 1], 100.0 * exact / n);
    printf("  default mode kept pipes apart (level separate) in %d of %d memories\n", separate, n);
    printf("  target: median 1.00, p99 <= 1.10: %s\n", median <= 1.0 && p99 <= 1.10 ? "met" : "MISSED");
    (void)fits_default;
    free(ratios);
    pto_ctx_destroy(ctx);
    return median <= 1.0 && p99 <= 1.10 ? 0 : 1;
}
