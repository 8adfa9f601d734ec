/* test_plan_pin.c - pins what the planner decides on 10,000 random kernels
   (tests/plan_gen.h, the generator test_plan_prop uses), default and tight.

   test_plan_prop proves every plan is valid; this test proves plans did not
   CHANGE: a speed-up of the planner must place every tile where it did. One
   64-bit FNV-1a fingerprint covers, per kernel and mode, the status, every
   tile's planned flag and slot offsets, every pto_plan_stat field and the
   text of every diagnostic (an overflow message names tiles and orders).
   The expected value is in tests/golden/plan_pin.txt with the number of
   failed plans; PTO_UPDATE_GOLDEN=1 rewrites it when a change of placements
   is intended (say why in the commit). */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"
#include "tests/plan_gen.h"

#define NKERNELS 10000
#define PIN_PATH "tests/golden/plan_pin.txt"

typedef struct pin {
    uint64_t h;
    int failed;
} pin;

static void pin_bytes(pin *p, const void *data, size_t n)
{
    const unsigned char *s = (const unsigned char *)data;
    size_t i;
    for (i = 0; i < n; i++) {
        p->h ^= s[i];
        p->h *= 1099511628211ull;
    }
}

/* Integers enter as 8 little-endian bytes, so the value is the same on every host. */
static void pin_int(pin *p, int64_t v)
{
    unsigned char b[8];
    int i;
    for (i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)v >> (8 * i));
    pin_bytes(p, b, 8);
}

static void pin_stat(pin *p, const pto_plan_stat *s)
{
    pin_int(p, s->kernel); pin_int(p, s->core); pin_int(p, s->space); pin_int(p, s->level);
    pin_int(p, s->order); pin_int(p, s->fit); pin_int(p, s->capacity); pin_int(p, s->reserved);
    pin_int(p, s->peak); pin_int(p, s->live_max); pin_int(p, s->live_stmt); pin_int(p, s->ntiles);
}

static void pin_plan(pin *p, pto_ctx *ctx, uint64_t seed, int tight)
{
    pto_module *m = gen_module(ctx, seed);
    pto_plan_result r;
    pto_plan_desc d;
    pto_status st;
    int32_t i;
    int k;
    if (!m) { CHECK_MSG(0, "seed %llu: the generator failed", (unsigned long long)seed); return; }
    memset(&r, 0, sizeof r);
    memset(&d, 0, sizeof d);
    d.tight = tight;
    d.result = &r;
    pto_diag_clear(ctx);
    st = pto_plan(ctx, m, &d);
    pin_int(p, st);
    if (st != PTO_OK) p->failed++;
    for (i = 0; i < m->n_tiles; i++) {
        pin_int(p, m->tiles[i].planned);
        for (k = 0; k < m->tiles[i].nbuf && k < PTO_MAX_NBUF; k++) pin_int(p, m->tiles[i].offset[k]);
    }
    for (i = 0; i < r.n; i++) pin_stat(p, &r.stats[i]);
    for (k = 0; k < pto_diag_count(ctx); k++) {
        char buf[4096];
        pto_diag_format(ctx, pto_diag_get(ctx, k), buf, sizeof buf);
        pin_bytes(p, buf, strlen(buf));
    }
    pto_plan_result_free(ctx, &r);
    pto_module_destroy(m);
}

int main(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pin p;
    char got[128];
    uint64_t seed;
    p.h = 1469598103934665603ull;
    p.failed = 0;
    for (seed = 1; seed <= NKERNELS; seed++) {
        pin_plan(&p, ctx, seed, 0);
        pin_plan(&p, ctx, seed, 1);
    }
    snprintf(got, sizeof got, "%016llx failed %d\n", (unsigned long long)p.h, p.failed);
    printf("plan pin over %d kernels x 2 modes: %s", NKERNELS, got);
    t_pin(PIN_PATH, got, "placements changed");
    pto_ctx_destroy(ctx);
    return TEST_END();
}
