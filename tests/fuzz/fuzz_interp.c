/* fuzz_interp.c - libFuzzer target for the reference interpreter and for
   what the passes do to a kernel's meaning.

   Every input that parses and verifies is run, kernel by kernel, on the
   reference interpreter twice: as written (module A), and as ptoc leaves it
   for the emitter (module B: pto_compile lowered tput / tget / allreduce,
   planned, synchronised). Dims and scalar params get small values picked
   from the input's hash (0 and odd sizes included), tensors the same
   seeded data in both runs, ranks kernels two or three ranks (one when
   they talk to peers themselves: fi_talks), and a small
   instruction budget keeps runaway loops short. Then:
   - neither run may crash, trip a sanitizer or return PTO_ERR_INTERNAL;
   - when A runs, B must run too and leave every tensor byte-identical: the
     lowering and the inserted syncs must not change what a kernel computes
     (the interpreter treats flags as no-ops and runs ranks in turn).
   A refusal of the input (PTO_ERR_USER) in A is fine: a window out of its
   tensor at these dims, a division by zero, the budget.

   Built with -DPTO_FUZZ_MAIN it replays files or directories (with no
   arguments: every .pto of examples/ and tests/, and tests/fuzz/regress/:
   test_interp_replay in make test). */

#define PTO_IMPLEMENTATION
#include "../../pto.h"

#include <stdlib.h>
#include <string.h>

#define FI_MAX_BYTES (1 << 20)   /* per tensor; larger launches are skipped */
#define FI_MAX_INSTR 4000

/* What the replays saw (replay.h prints them): kernels compared, and those
   the interpreter refused as written (dims that take a window out of its
   tensor, the budget, ...) or that were too large to run. */
static long fi_compared, fi_refused, fi_skipped;

static uint64_t fi_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

static uint64_t fi_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ size;
    size_t i;
    for (i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3ULL;
    return fi_mix(h);
}

static void fi_abort(pto_ctx *ctx, const char *what, const uint8_t *data, size_t size)
{
    fprintf(stderr, "fuzz_interp: %s on:\n%.*s\n", what, (int)size, (const char *)data);
    if (ctx) pto_diag_print(ctx, stderr);
    abort();
}

/* The value of dim or scalar var v: one of a few telling sizes, by hash. */
static double fi_value(uint64_t seed, int32_t v, int is_dim)
{
    static const int64_t dims[] = {0, 1, 2, 3, 7, 16, 31, 32, 48, 64, 100, 128, 256};
    static const double scalars[] = {0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 16.0, -0.25, 7.0, 64.0};
    uint64_t h = fi_mix(seed ^ ((uint64_t)(uint32_t)v * 0x9e3779b97f4a7c15ULL));
    if (is_dim) return (double)dims[h % (sizeof dims / sizeof dims[0])];
    return scalars[h % (sizeof scalars / sizeof scalars[0])];
}

typedef struct fi_launch {
    pto_binding *b;
    int nb;
    void **t;          /* [nranks * nparams] */
    size_t *bytes;
    int nranks, nparams;
} fi_launch;

static void fi_free(fi_launch *L)
{
    int i;
    for (i = 0; L->t && i < L->nranks * L->nparams; i++) free(L->t[i]);
    free(L->t);
    free(L->bytes);
    free(L->b);
    memset(L, 0, sizeof *L);
}

/* Does kernel k talk to its peers itself (tput, tget, notify, wait)? Its
   ranks may then race (two ranks writing one peer window unordered), and
   the interpreter's turn-taking, which is exact only for a race-free
   program, may resolve the race one way as written and another way once
   the lowering has made more steps: such kernels are compared on one rank.
   allreduce alone orders every rank (its barriers), so several ranks. */
static int fi_talks(const pto_module *m, int32_t k)
{
    int32_t s;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind != PTO_ST_OP || st->block < 0 || m->blocks[st->block].kernel != k) continue;
        if (st->op == PTO_OP_TPUT || st->op == PTO_OP_TGET || st->op == PTO_OP_NOTIFY || st->op == PTO_OP_WAIT)
            return 1;
    }
    return 0;
}

/* Bindings and tensors for kernel k of m (A's ids: B is parsed from the
   same text, so its kernels, params and vars have the same ids). 0 when
   a tensor would be too large. */
static int fi_prepare(const pto_ctx *ctx, const pto_module *m, int32_t k, uint64_t seed, fi_launch *L)
{
    const pto_kernel *K = &m->kernels[k];
    int32_t p, v;
    int r, d;
    memset(L, 0, sizeof *L);
    L->nranks = K->ranks && !fi_talks(m, k) ? 2 + (int)(seed % 2) : 1;
    L->nparams = K->nparams;
    L->b = (pto_binding *)calloc((size_t)m->n_vars + 1, sizeof *L->b);
    L->t = (void **)calloc((size_t)L->nranks * (size_t)(K->nparams + 1), sizeof *L->t);
    L->bytes = (size_t *)calloc((size_t)(K->nparams + 1), sizeof *L->bytes);
    if (!L->b || !L->t || !L->bytes) return 0;
    for (v = 0; v < m->n_vars; v++) {
        const pto_var *x = &m->vars[v];
        if (x->kernel != k || (x->kind != PTO_V_DIM && x->kind != PTO_V_SCALAR)) continue;
        L->b[L->nb].name = pto_str(ctx, x->name);
        L->b[L->nb].value = fi_value(seed, v, x->kind == PTO_V_DIM);
        L->nb++;
    }
    for (p = 0; p < K->nparams; p++) {
        const pto_param *P = &m->params[K->param0 + p];
        double n = 1;
        if (P->kind != PTO_P_TENSOR) continue;
        for (d = 0; d < 2; d++) n *= P->dim[d] >= 0 ? (double)P->dim[d] : fi_value(seed, P->dim_var[d], 1);
        n *= pto_dtype_size((pto_dtype)P->dtype);
        if (n > FI_MAX_BYTES) return 0;
        L->bytes[p] = (size_t)n;
        for (r = 0; r < L->nranks; r++) {
            uint8_t *t = (uint8_t *)malloc(L->bytes[p] + 1);
            size_t i;
            uint64_t h = fi_mix(seed + (uint64_t)p * 131 + (uint64_t)r);
            if (!t) return 0;
            /* small finite values of every dtype: bytes 0x00..0x3f; an i32
               window tensor may be a signal, which starts at 0 (as ptoc
               run's harness does) */
            for (i = 0; i < L->bytes[p]; i++) {
                h = fi_mix(h + i);
                t[i] = P->window && P->dtype == PTO_I32 ? 0 : (uint8_t)(h & 0x3f);
            }
            L->t[r * K->nparams + p] = t;
        }
    }
    return 1;
}

static void fi_copy(const fi_launch *src, fi_launch *dst)
{
    int i;
    *dst = *src;   /* the bindings and sizes are shared (fi_free frees them with src) */
    dst->t = (void **)calloc((size_t)src->nranks * (size_t)(src->nparams + 1), sizeof *dst->t);
    if (!dst->t) return;
    for (i = 0; i < src->nranks * src->nparams; i++) {
        size_t n = src->bytes[i % (src->nparams ? src->nparams : 1)];
        if (!src->t[i]) continue;
        dst->t[i] = malloc(n + 1);
        if (dst->t[i]) memcpy(dst->t[i], src->t[i], n);
    }
}

static pto_status fi_run(pto_ctx *ctx, const pto_module *m, int32_t k, const fi_launch *L)
{
    pto_launch l;
    memset(&l, 0, sizeof l);
    l.kernel = k;
    l.tensors = L->t;
    l.bindings = L->b;
    l.nbindings = L->nb;
    l.nranks = m->kernels[k].ranks ? L->nranks : 0;
    l.max_instr = FI_MAX_INSTR;
    return pto_interp(ctx, m, &l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pto_ctx *ca = pto_ctx_create(NULL), *cb = pto_ctx_create(NULL);
    pto_module *a = NULL, *b = NULL;
    pto_compile_desc cd;
    uint64_t seed = fi_hash(data, size);
    int32_t k;
    if (!ca || !cb) goto done;
    a = pto_parse(ca, "fuzz.pto", (const char *)data, size);
    if (!a || pto_verify(ca, a) != PTO_OK) goto done;
    b = pto_parse(cb, "fuzz.pto", (const char *)data, size);
    memset(&cd, 0, sizeof cd);
    if (!b) fi_abort(cb, "the second parse failed", data, size);
    if (pto_compile(cb, b, &cd) != PTO_OK) b = (pto_module_destroy(b), (pto_module *)NULL);
    for (k = 0; k < a->n_kernels; k++) {
        fi_launch la, lb;
        pto_status sa, sb;
        int p, r;
        if (!fi_prepare(ca, a, k, seed + (uint64_t)k, &la)) { fi_free(&la); fi_skipped++; continue; }
        fi_copy(&la, &lb);
        sa = fi_run(ca, a, k, &la);
        if (sa == PTO_ERR_INTERNAL) fi_abort(ca, "pto_interp: internal error (as written)", data, size);
        if (sa != PTO_OK) fi_refused++;
        else if (b && lb.t) fi_compared++;
        if (b && lb.t) {
            sb = fi_run(cb, b, k, &lb);
            if (sb == PTO_ERR_INTERNAL) fi_abort(cb, "pto_interp: internal error (compiled)", data, size);
            if (sa == PTO_OK && sb != PTO_OK) fi_abort(cb, "the compiled module fails where the source runs", data, size);
            for (p = 0; sa == PTO_OK && p < la.nparams; p++)
                for (r = 0; r < la.nranks; r++) {
                    const void *x = la.t[r * la.nparams + p], *y = lb.t[r * la.nparams + p];
                    if (x && y && memcmp(x, y, la.bytes[p]) != 0) {
                        fprintf(stderr, "fuzz_interp: kernel %s, param %d, rank %d differs after compile\n",
                                pto_str(ca, a->kernels[k].name), p, r);
                        fi_abort(NULL, "the passes changed a result", data, size);
                    }
                }
        }
        lb.b = NULL;
        lb.bytes = NULL;
        for (p = 0; lb.t && p < lb.nranks * lb.nparams; p++) free(lb.t[p]);
        free(lb.t);
        fi_free(&la);
    }
done:
    pto_module_destroy(a);
    pto_module_destroy(b);
    pto_ctx_destroy(ca);
    pto_ctx_destroy(cb);
    return 0;
}

#ifdef PTO_FUZZ_MAIN
#define FUZZ_WHAT "run as written and as compiled: no crash, no internal error, same results"
#define FUZZ_STATS() printf("kernels: %ld compared, %ld refused as written (the dims picked), %ld too large\n", \
                            fi_compared, fi_refused, fi_skipped)
#include "replay.h"
#endif
