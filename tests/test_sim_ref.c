/* test_sim_ref.c - the simulator against the reference interpreter, bit for
   bit (issue 3: "the fixed kernels run clean and match the reference").

   Every op of the op table, and the fixed single-core kernels of
   test_sim_bugs.c, is written twice: as .pto text (parsed, verified, run by
   pto_interp) and as a hand-written kernel calling the device API (run on
   the simulated NPU). Both get the same seeded random inputs - f32, f16,
   bf16, i32 and i8, with rounding ties, signed zeros, NaN and infinities,
   i32 values above 2^24 - and every host array must come out with the same
   bytes (memcmp), with a clean simulator report. Valid regions smaller than
   the tile are exercised on destinations and sources, row reductions run
   over valid columns (and over none), column reductions over valid rows
   (and over none), GM outside a stored window must keep its bytes.

   Then the uninitialised-read reports: a planted read of never-written
   bytes (the interpreter's fresh zeros) is caught with an exact message,
   also after memory reuse when the kernel declares the new tile with
   pto_k_tdecl, and an access still queued from the previous tenant is not
   blamed. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "pto_kernels.h"
#include "tests/check.h"
#include "tests/sim_bug_kernels.h"

/* ---- seeded inputs ----------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint32_t rnd(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 16);
}

/* An f32 value of a random flavour: ordinary, an exact f16 or bf16 tie, a
   half-integer (ties for f32 -> int), +-0, NaN, +-inf. */
static float rnd_f32(rng *r)
{
    uint32_t k = rnd(r) % 100, sign = (rnd(r) & 1u) << 31;
    int e = (int)(rnd(r) % 21) - 10;
    if (k < 60) return pto_f32_from_bits(sign | ((uint32_t)(127 + e) << 23) | (rnd(r) & 0x7fffffu));
    if (k < 72) /* f16 value + half an f16 ulp: bits 12..0 = 0x1000 */
        return pto_f32_from_bits(sign | ((uint32_t)(127 + e) << 23) | ((rnd(r) & 0x3ffu) << 13) | 0x1000u);
    if (k < 82) /* bf16 value + half a bf16 ulp */
        return pto_f32_from_bits(sign | ((uint32_t)(127 + e) << 23) | ((rnd(r) & 0x7fu) << 16) | 0x8000u);
    if (k < 90) return (float)((int)(rnd(r) % 41) - 20) + 0.5f;
    if (k < 95) return pto_f32_from_bits(sign);
    if (k < 97) return pto_f32_from_bits(0x7fc00000u | sign);
    return pto_f32_from_bits(0x7f800000u | sign);
}

/* A 16-bit float pattern (f16 or bf16): mostly finite, some subnormal, zero,
   inf and NaN. */
static uint16_t rnd_h(rng *r, int bf)
{
    uint32_t k = rnd(r) % 100, sign = (rnd(r) & 1u) << 15;
    uint32_t emax = bf ? 0xffu : 0x1fu, mbits = bf ? 7u : 10u, e;
    if (k < 80) {
        e = bf ? 127u - 12u + rnd(r) % 25u : 3u + rnd(r) % 26u;
        return (uint16_t)(sign | (e << mbits) | (rnd(r) & ((1u << mbits) - 1u)));
    }
    if (k < 88) return (uint16_t)(sign | (rnd(r) & ((1u << mbits) - 1u))); /* subnormal or zero */
    if (k < 94) return (uint16_t)sign;
    if (k < 97) return (uint16_t)(sign | (emax << mbits) | (1u << (mbits - 1u)));
    return (uint16_t)(sign | (emax << mbits));
}

/* Half a unit in the last place of h (same sign rule), as a pattern of the
   same type: h + tie_of(h) is exactly halfway between two neighbours. */
static uint16_t tie_of(uint16_t h, int bf, rng *r)
{
    uint32_t mbits = bf ? 7u : 10u, emask = bf ? 0xffu : 0x1fu, e = (h >> mbits) & emask;
    uint16_t sign = (uint16_t)((rnd(r) & 1u) << 15);
    if (e <= mbits + 1u || e == emask) return rnd_h(r, bf);
    return (uint16_t)(sign | ((e - mbits - 1u) << mbits));
}

static void fill(void *p, int dt, int64_t n, rng *r, const void *tie_src)
{
    int64_t i;
    for (i = 0; i < n; i++) switch (dt) {
        case PTO_F32: ((float *)p)[i] = rnd_f32(r); break;
        case PTO_F16:
        case PTO_BF16:
            ((uint16_t *)p)[i] = tie_src && i % 2 == 0 ? tie_of(((const uint16_t *)tie_src)[i], dt == PTO_BF16, r)
                                                        : rnd_h(r, dt == PTO_BF16);
            break;
        case PTO_I32:
            ((int32_t *)p)[i] = rnd(r) % 4 == 0 ? (int32_t)(16777217 + rnd(r) % 1000) * (rnd(r) & 1 ? 1 : -1)
                                                : (int32_t)(rnd(r) % 2001) - 1000;
            break;
        default: ((int8_t *)p)[i] = (int8_t)(rnd(r) & 0xff); break;
        }
}

/* ---- the differential harness -------------------------------------------------- */

#define MAXP 6

/* One .pto kernel (the first of the text) run by both sides. Tensor params
   become host arrays (interp) and GM tensors (simulator) with the same
   bytes; scalar params are all bound to `scalar`. The simulator's args are
   the tensors, then the scalars, then `extra` (a pointer to the case). */
typedef struct dcase {
    const char *label;
    const char *text;
    pto_k_kernel_fn fn;
    int kind;                  /* PTO_K_KIND_* */
    int arch;
    double scalar;
    const void *extra;
    uint64_t seed;
    int tie_y;                 /* tensor 1 gets tie partners of tensor 0 (16-bit floats) */
    void (*prep)(void *const *host);        /* sets chosen inputs after the random fill */
    void (*check)(void *const *host);       /* checks the interpreter's outputs */
} dcase;

static int show_diags(pto_ctx *ctx, const char *label)
{
    if (pto_error_count(ctx) == 0) return 1;
    printf("%s:\n", label);
    pto_diag_print(ctx, stdout);
    return 0;
}

/* Reports the first differing element of a tensor. */
static void show_diff(const char *label, const char *name, int dt, const void *want, const void *got, int64_t n)
{
    int64_t i, es = pto_dtype_size((pto_dtype)dt);
    for (i = 0; i < n; i++)
        if (memcmp((const char *)want + i * es, (const char *)got + i * es, (size_t)es) != 0) {
            uint32_t wb = 0, gb = 0;
            memcpy(&wb, (const char *)want + i * es, (size_t)es);
            memcpy(&gb, (const char *)got + i * es, (size_t)es);
            printf("%s: tensor %s element %lld: interp %.9g (bits %08x), sim %.9g (bits %08x)\n", label, name,
                   (long long)i, pto_elem_get(want, dt, i), (unsigned)wb, pto_elem_get(got, dt, i), (unsigned)gb);
            return;
        }
}

/* Runs the case; returns 1 when both sides agree bit for bit and the
   simulator is clean. */
static int differ(const dcase *dc)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, dc->label, dc->text, strlen(dc->text));
    pto_k_device_desc dd;
    pto_k_launch_desc ld;
    pto_k_device *dev;
    const pto_k_report *rep;
    void *host[MAXP] = {0};
    pto_k_gm *gm[MAXP] = {0};
    int64_t args[MAXP + 1], nel[MAXP];
    pto_binding bind[MAXP];
    pto_launch L;
    rng r;
    int i, na = 0, nb = 0, ok = 1, np;
    const pto_kernel *k;
    if (!m || pto_verify(ctx, m) != PTO_OK) {
        show_diags(ctx, dc->label);
        pto_module_destroy(m);
        pto_ctx_destroy(ctx);
        return 0;
    }
    k = &m->kernels[0];
    np = k->nparams;
    memset(&dd, 0, sizeof dd);
    dd.arch = dc->arch;
    dev = pto_k_device_create(&dd);
    r.s = dc->seed * 0x9e3779b97f4a7c15ull + 12345u;
    for (i = 0; i < np && i < MAXP; i++) {
        const pto_param *p = &m->params[k->param0 + i];
        const char *name = pto_str(ctx, p->name);
        if (p->kind == PTO_P_SCALAR) {
            bind[nb].name = name;
            bind[nb++].value = dc->scalar;
            continue;
        }
        nel[i] = p->dim[0] * p->dim[1];
        host[i] = malloc((size_t)(nel[i] * pto_dtype_size((pto_dtype)p->dtype)));
        gm[i] = pto_k_gm_create(dev, name, p->dtype, p->dim[0], p->dim[1]);
        fill(host[i], p->dtype, nel[i], &r, i == 1 && dc->tie_y ? host[0] : NULL);
        args[na++] = pto_k_gm_arg(gm[i]);
    }
    if (dc->prep) dc->prep(host);
    for (i = 0; i < np && i < MAXP; i++)
        if (host[i]) memcpy(gm[i]->data, host[i], (size_t)(nel[i] * pto_dtype_size((pto_dtype)gm[i]->dtype)));
    for (i = 0; i < nb; i++) args[na++] = pto_k_f_arg(dc->scalar);
    args[na] = (int64_t)(intptr_t)dc->extra;
    memset(&L, 0, sizeof L);
    L.kernel = 0;
    L.tensors = host;
    L.bindings = bind;
    L.nbindings = nb;
    if (pto_interp(ctx, m, &L) != PTO_OK) ok = show_diags(ctx, dc->label) && 0;
    if (ok && dc->check) dc->check(host);
    memset(&ld, 0, sizeof ld);
    ld.fn = dc->fn, ld.name = dc->label, ld.kind = dc->kind, ld.args = args;
    rep = pto_k_launch(dev, &ld);
    if (rep->nerrors) {
        printf("%s: the simulator reports:\n", dc->label);
        pto_k_report_print(rep, stdout);
        ok = 0;
    }
    for (i = 0; i < np && i < MAXP; i++) {
        size_t bytes;
        if (!host[i]) continue;
        bytes = (size_t)(nel[i] * pto_dtype_size((pto_dtype)gm[i]->dtype));
        if (memcmp(host[i], gm[i]->data, bytes) != 0) {
            show_diff(dc->label, gm[i]->name, gm[i]->dtype, host[i], gm[i]->data, nel[i]);
            ok = 0;
        }
        free(host[i]);
    }
    pto_k_device_destroy(dev);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
    return ok;
}

static const char *dtn(int dt) { return pto_dtype_name((pto_dtype)dt); }

/* ---- elementwise ops: binary, scalar, unary, fill, tcvt, vec tmov ---------------- */

typedef struct vcfg {
    int op;                    /* pto_op */
    int dd, da;                /* dtypes of d and of the sources */
    int R, C;
    int vr, vc, vra, vca, vrb, vcb;
} vcfg;

static pto_k_tile vtile(int dt, int R, int C, int64_t vr, int64_t vc, int64_t off)
{
    return pto_k_t(PTO_K_VEC, dt, R, C, vr, vc, off);
}

/* The device kernel: tload a, b; one op into d; tstore d. */
static void k_map(pto_k_core *c, const int64_t *args)
{
    const vcfg *k = (const vcfg *)(intptr_t)args[4];
    pto_k_gm *x = pto_k_arg_gm(args, 0), *y = pto_k_arg_gm(args, 1), *z = pto_k_arg_gm(args, 2);
    double s = pto_k_arg_f(args, 3);
    pto_k_tile A = vtile(k->da, k->R, k->C, k->vra, k->vca, 0);
    pto_k_tile B = vtile(k->da, k->R, k->C, k->vrb, k->vcb, 16384);
    pto_k_tile D = vtile(k->dd, k->R, k->C, k->vr, k->vc, 32768);
    pto_k_tload(c, "map:5: tload a, x[0, 0]", A, x, 0, 0);
    pto_k_tload(c, "map:6: tload b, y[0, 0]", B, y, 0, 0);
    pto_k_set_flag(c, "map", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "map", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    switch (k->op) {
    case PTO_OP_TADD: pto_k_tadd(c, "map:7", D, A, B); break;
    case PTO_OP_TSUB: pto_k_tsub(c, "map:7", D, A, B); break;
    case PTO_OP_TMUL: pto_k_tmul(c, "map:7", D, A, B); break;
    case PTO_OP_TDIV: pto_k_tdiv(c, "map:7", D, A, B); break;
    case PTO_OP_TMAX: pto_k_tmax(c, "map:7", D, A, B); break;
    case PTO_OP_TMIN: pto_k_tmin(c, "map:7", D, A, B); break;
    case PTO_OP_TADDS: pto_k_tadds(c, "map:7", D, A, s); break;
    case PTO_OP_TSUBS: pto_k_tsubs(c, "map:7", D, A, s); break;
    case PTO_OP_TMULS: pto_k_tmuls(c, "map:7", D, A, s); break;
    case PTO_OP_TDIVS: pto_k_tdivs(c, "map:7", D, A, s); break;
    case PTO_OP_TMAXS: pto_k_tmaxs(c, "map:7", D, A, s); break;
    case PTO_OP_TMINS: pto_k_tmins(c, "map:7", D, A, s); break;
    case PTO_OP_TEXP: pto_k_texp(c, "map:7", D, A); break;
    case PTO_OP_TLOG: pto_k_tlog(c, "map:7", D, A); break;
    case PTO_OP_TSQRT: pto_k_tsqrt(c, "map:7", D, A); break;
    case PTO_OP_TRSQRT: pto_k_trsqrt(c, "map:7", D, A); break;
    case PTO_OP_TRECIP: pto_k_trecip(c, "map:7", D, A); break;
    case PTO_OP_TABS: pto_k_tabs(c, "map:7", D, A); break;
    case PTO_OP_TNEG: pto_k_tneg(c, "map:7", D, A); break;
    case PTO_OP_TRELU: pto_k_trelu(c, "map:7", D, A); break;
    case PTO_OP_TEXPANDS: pto_k_texpands(c, "map:7", D, s); break;
    case PTO_OP_TCVT: pto_k_tcvt(c, "map:7", D, A); break;
    default: pto_k_tmov(c, "map:7", D, A); break;
    }
    pto_k_set_flag(c, "map", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "map", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "map:8: tstore z[0, 0], d", z, 0, 0, D);
}

static int run_map(const vcfg *k, double scalar, uint64_t seed)
{
    const pto_opinfo *info = pto_opinfo_get((pto_op)k->op);
    char text[1200], opline[80], label[120];
    dcase dc;
    switch (info->cls) {
    case PTO_OC_BIN: snprintf(opline, sizeof opline, "%s d, a, b", info->name); break;
    case PTO_OC_BINS: snprintf(opline, sizeof opline, "%s d, a, s", info->name); break;
    case PTO_OC_FILL: snprintf(opline, sizeof opline, "%s d, s", info->name); break;
    default: snprintf(opline, sizeof opline, "%s d, a", info->name); break;
    }
    snprintf(text, sizeof text,
             "kernel k(in x: %s[%d, %d], in y: %s[%d, %d], inout z: %s[%d, %d], scalar s: f32) vector {\n"
             "  tile a: vec %s[%d, %d] valid(%d, %d)\n"
             "  tile b: vec %s[%d, %d] valid(%d, %d)\n"
             "  tile d: vec %s[%d, %d] valid(%d, %d)\n"
             "  tload a, x[0, 0]\n  tload b, y[0, 0]\n  %s\n  tstore z[0, 0], d\n}\n",
             dtn(k->da), k->R, k->C, dtn(k->da), k->R, k->C, dtn(k->dd), k->R, k->C, dtn(k->da), k->R, k->C, k->vra,
             k->vca, dtn(k->da), k->R, k->C, k->vrb, k->vcb, dtn(k->dd), k->R, k->C, k->vr, k->vc, opline);
    snprintf(label, sizeof label, "%s %s<-%s d(%d,%d) a(%d,%d) b(%d,%d) seed %llu", info->name, dtn(k->dd),
             dtn(k->da), k->vr, k->vc, k->vra, k->vca, k->vrb, k->vcb, (unsigned long long)seed);
    memset(&dc, 0, sizeof dc);
    dc.label = label, dc.text = text, dc.fn = k_map, dc.kind = PTO_K_KIND_VECTOR;
    dc.scalar = scalar, dc.extra = k, dc.seed = seed;
    dc.tie_y = info->cls == PTO_OC_BIN;
    return differ(&dc);
}

/* The valid-region shapes every op is run with (R = 8, C = 32). */
static const int regions[][6] = {
    {8, 32, 8, 32, 8, 32},  /* everything full */
    {5, 19, 8, 32, 8, 32},  /* d smaller: only d's region is computed and stored */
    {8, 32, 3, 17, 6, 32},  /* sources smaller: their loads zero the rest */
    {0, 32, 8, 32, 8, 32},  /* empty destination */
    {7, 0, 8, 32, 8, 32},
};

static void test_map_ops(void)
{
    static const int fdt[] = {PTO_F32, PTO_F16, PTO_BF16};
    static const double scalars[] = {0.1, -2.5, 0.0};
    static const int cvt[][2] = {{PTO_F16, PTO_F32}, {PTO_BF16, PTO_F32}, {PTO_F32, PTO_F16}, {PTO_F32, PTO_BF16},
                                 {PTO_I32, PTO_F32}, {PTO_F32, PTO_I32}, {PTO_I8, PTO_F32}, {PTO_BF16, PTO_F16},
                                 {PTO_F16, PTO_BF16}, {PTO_F16, PTO_I32}, {PTO_I32, PTO_I8}, {PTO_F32, PTO_I8},
                                 {PTO_I8, PTO_F16}};
    int op, d, g, i, n = 0, good = 0;
    vcfg k;
    for (op = PTO_OP_TADD; op <= PTO_OP_TEXPANDS; op++) {
        const pto_opinfo *info = pto_opinfo_get((pto_op)op);
        int ndt = info->cls == PTO_OC_UN ? 3 : 5;
        for (d = 0; d < ndt; d++)
            for (g = 0; g < (int)(sizeof regions / sizeof regions[0]); g++) {
                int dt = d < 3 ? fdt[d] : d == 3 ? PTO_I32 : PTO_I8;
                memset(&k, 0, sizeof k);
                k.op = op, k.dd = k.da = dt, k.R = 8, k.C = 32;
                k.vr = regions[g][0], k.vc = regions[g][1], k.vra = regions[g][2], k.vca = regions[g][3];
                k.vrb = regions[g][4], k.vcb = regions[g][5];
                n++;
                good += run_map(&k, scalars[(op + d + g) % 3], (uint64_t)(op * 100 + d * 10 + g));
            }
    }
    for (i = 0; i < (int)(sizeof cvt / sizeof cvt[0]); i++)
        for (g = 0; g < 3; g++) {
            memset(&k, 0, sizeof k);
            k.op = PTO_OP_TCVT, k.dd = cvt[i][0], k.da = cvt[i][1], k.R = 8, k.C = 32;
            k.vr = regions[g][0], k.vc = regions[g][1], k.vra = regions[g][2], k.vca = regions[g][3];
            k.vrb = regions[g][4], k.vcb = regions[g][5];
            n++;
            good += run_map(&k, 0.0, (uint64_t)(7000 + i * 10 + g));
        }
    for (d = 0; d < 5; d++)
        for (g = 0; g < 3; g++) {
            memset(&k, 0, sizeof k);
            k.op = PTO_OP_TMOV, k.dd = k.da = d < 3 ? fdt[d] : d == 3 ? PTO_I32 : PTO_I8, k.R = 8, k.C = 32;
            k.vr = regions[g][0], k.vc = regions[g][1], k.vra = regions[g][2], k.vca = regions[g][3];
            k.vrb = regions[g][4], k.vcb = regions[g][5];
            n++;
            good += run_map(&k, 0.0, (uint64_t)(8000 + d * 10 + g));
        }
    printf("elementwise, fill, tcvt, tmov: %d of %d cases agree bit for bit\n", good, n);
    CHECK(n == (13 * 5 + 8 * 3) * 5 + 13 * 3 + 5 * 3);
    CHECK(good == n);
}

/* ---- row reductions and row broadcasts -------------------------------------------- */

typedef struct rcfg {
    int op, dt, R, C;
    int vr, vc;                /* d's valid region (d is [R, 1] for reductions) */
    int vra, vca;              /* the source's */
} rcfg;

static void k_rowred(pto_k_core *c, const int64_t *args)
{
    const rcfg *k = (const rcfg *)(intptr_t)args[2];
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tile A = vtile(k->dt, k->R, k->C, k->vra, k->vca, 0);
    pto_k_tile D = vtile(k->dt, k->R, 1, k->vr, k->vc, 8192);
    pto_k_tload(c, "red:4: tload a, x[0, 0]", A, x, 0, 0);
    pto_k_set_flag(c, "red", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "red", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    if (k->op == PTO_OP_TROWSUM) pto_k_trowsum(c, "red:5", D, A);
    else if (k->op == PTO_OP_TROWMAX) pto_k_trowmax(c, "red:5", D, A);
    else pto_k_trowmin(c, "red:5", D, A);
    pto_k_set_flag(c, "red", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "red", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "red:6: tstore z[0, 0], d", z, 0, 0, D);
}

static int run_rowred(const rcfg *k, uint64_t seed)
{
    char text[800], label[120];
    dcase dc;
    const char *name = pto_opinfo_get((pto_op)k->op)->name, *t = dtn(k->dt);
    snprintf(text, sizeof text,
             "kernel k(in x: %s[%d, %d], inout z: %s[%d, 1]) vector {\n"
             "  tile a: vec %s[%d, %d] valid(%d, %d)\n  tile d: vec %s[%d, 1] valid(%d, %d)\n"
             "  tload a, x[0, 0]\n  %s d, a\n  tstore z[0, 0], d\n}\n",
             t, k->R, k->C, t, k->R, t, k->R, k->C, k->vra, k->vca, t, k->R, k->vr, k->vc, name);
    snprintf(label, sizeof label, "%s %s d(%d,%d) a(%d,%d)", name, t, k->vr, k->vc, k->vra, k->vca);
    memset(&dc, 0, sizeof dc);
    dc.label = label, dc.text = text, dc.fn = k_rowred, dc.kind = PTO_K_KIND_VECTOR, dc.extra = k, dc.seed = seed;
    return differ(&dc);
}

static void k_rowexp(pto_k_core *c, const int64_t *args)
{
    const rcfg *k = (const rcfg *)(intptr_t)args[3];
    pto_k_gm *x = pto_k_arg_gm(args, 0), *v = pto_k_arg_gm(args, 1), *z = pto_k_arg_gm(args, 2);
    pto_k_tile A = vtile(k->dt, k->R, k->C, k->vra, k->vca, 0);
    pto_k_tile V = vtile(k->dt, k->R, 1, k->R, 1, 8192);
    pto_k_tile D = vtile(k->dt, k->R, k->C, k->vr, k->vc, 16384);
    pto_k_tload(c, "exp:5: tload a, x[0, 0]", A, x, 0, 0);
    pto_k_tload(c, "exp:6: tload v, w[0, 0]", V, v, 0, 0);
    pto_k_set_flag(c, "exp", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "exp", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    switch (k->op) {
    case PTO_OP_TROWEXPANDADD: pto_k_trowexpandadd(c, "exp:7", D, A, V); break;
    case PTO_OP_TROWEXPANDSUB: pto_k_trowexpandsub(c, "exp:7", D, A, V); break;
    case PTO_OP_TROWEXPANDMUL: pto_k_trowexpandmul(c, "exp:7", D, A, V); break;
    default: pto_k_trowexpanddiv(c, "exp:7", D, A, V); break;
    }
    pto_k_set_flag(c, "exp", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "exp", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "exp:8: tstore z[0, 0], d", z, 0, 0, D);
}

static int run_rowexp(const rcfg *k, uint64_t seed)
{
    char text[900], label[120];
    dcase dc;
    const char *name = pto_opinfo_get((pto_op)k->op)->name, *t = dtn(k->dt);
    snprintf(text, sizeof text,
             "kernel k(in x: %s[%d, %d], in w: %s[%d, 1], inout z: %s[%d, %d]) vector {\n"
             "  tile a: vec %s[%d, %d] valid(%d, %d)\n  tile v: vec %s[%d, 1]\n"
             "  tile d: vec %s[%d, %d] valid(%d, %d)\n"
             "  tload a, x[0, 0]\n  tload v, w[0, 0]\n  %s d, a, v\n  tstore z[0, 0], d\n}\n",
             t, k->R, k->C, t, k->R, t, k->R, k->C, t, k->R, k->C, k->vra, k->vca, t, k->R, t, k->R, k->C, k->vr,
             k->vc, name);
    snprintf(label, sizeof label, "%s %s d(%d,%d) a(%d,%d)", name, t, k->vr, k->vc, k->vra, k->vca);
    memset(&dc, 0, sizeof dc);
    dc.label = label, dc.text = text, dc.fn = k_rowexp, dc.kind = PTO_K_KIND_VECTOR, dc.extra = k, dc.seed = seed;
    return differ(&dc);
}

static void test_row_ops(void)
{
    /* R = 16 so that a [16, 1] f16 column is 32 bytes */
    static const int red[][4] = {{16, 1, 16, 32}, {16, 1, 16, 13}, {9, 1, 16, 32}, {16, 1, 11, 5}, {16, 1, 16, 0},
                                 {16, 1, 16, 1}};
    static const int rex[][4] = {{16, 32, 16, 32}, {11, 19, 16, 32}, {16, 32, 7, 9}, {0, 32, 16, 32}};
    static const int dts[] = {PTO_F32, PTO_F16, PTO_BF16, PTO_I32};
    int op, d, g, n = 0, good = 0;
    rcfg k;
    for (op = PTO_OP_TROWSUM; op <= PTO_OP_TROWMIN; op++)
        for (d = 0; d < 4; d++)
            for (g = 0; g < 6; g++) {
                k.op = op, k.dt = dts[d], k.R = 16, k.C = 32;
                k.vr = red[g][0], k.vc = red[g][1], k.vra = red[g][2], k.vca = red[g][3];
                n++;
                good += run_rowred(&k, (uint64_t)(op * 97 + d * 7 + g));
            }
    for (op = PTO_OP_TROWEXPANDADD; op <= PTO_OP_TROWEXPANDDIV; op++)
        for (d = 0; d < 4; d++)
            for (g = 0; g < 4; g++) {
                k.op = op, k.dt = dts[d], k.R = 16, k.C = 32;
                k.vr = rex[g][0], k.vc = rex[g][1], k.vra = rex[g][2], k.vca = rex[g][3];
                n++;
                good += run_rowexp(&k, (uint64_t)(op * 89 + d * 5 + g));
            }
    printf("row reductions and broadcasts: %d of %d cases agree bit for bit\n", good, n);
    CHECK(n == 3 * 4 * 6 + 4 * 4 * 4);
    CHECK(good == n);
}

/* ---- column reductions and column broadcasts ------------------------------------------
   The same configs as the row ops, transposed: d is [1, C] for the reductions,
   v is [1, C] for the broadcasts. */

static void k_colred(pto_k_core *c, const int64_t *args)
{
    const rcfg *k = (const rcfg *)(intptr_t)args[2];
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tile A = vtile(k->dt, k->R, k->C, k->vra, k->vca, 0);
    pto_k_tile D = vtile(k->dt, 1, k->C, k->vr, k->vc, 8192);
    pto_k_tload(c, "cred:4: tload a, x[0, 0]", A, x, 0, 0);
    pto_k_set_flag(c, "cred", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "cred", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    if (k->op == PTO_OP_TCOLSUM) pto_k_tcolsum(c, "cred:5", D, A);
    else if (k->op == PTO_OP_TCOLMAX) pto_k_tcolmax(c, "cred:5", D, A);
    else pto_k_tcolmin(c, "cred:5", D, A);
    pto_k_set_flag(c, "cred", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "cred", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "cred:6: tstore z[0, 0], d", z, 0, 0, D);
}

static int run_colred(const rcfg *k, uint64_t seed)
{
    char text[800], label[120];
    dcase dc;
    const char *name = pto_opinfo_get((pto_op)k->op)->name, *t = dtn(k->dt);
    snprintf(text, sizeof text,
             "kernel k(in x: %s[%d, %d], inout z: %s[1, %d]) vector {\n"
             "  tile a: vec %s[%d, %d] valid(%d, %d)\n  tile d: vec %s[1, %d] valid(%d, %d)\n"
             "  tload a, x[0, 0]\n  %s d, a\n  tstore z[0, 0], d\n}\n",
             t, k->R, k->C, t, k->C, t, k->R, k->C, k->vra, k->vca, t, k->C, k->vr, k->vc, name);
    snprintf(label, sizeof label, "%s %s d(%d,%d) a(%d,%d)", name, t, k->vr, k->vc, k->vra, k->vca);
    memset(&dc, 0, sizeof dc);
    dc.label = label, dc.text = text, dc.fn = k_colred, dc.kind = PTO_K_KIND_VECTOR, dc.extra = k, dc.seed = seed;
    return differ(&dc);
}

static void k_colexp(pto_k_core *c, const int64_t *args)
{
    const rcfg *k = (const rcfg *)(intptr_t)args[3];
    pto_k_gm *x = pto_k_arg_gm(args, 0), *v = pto_k_arg_gm(args, 1), *z = pto_k_arg_gm(args, 2);
    pto_k_tile A = vtile(k->dt, k->R, k->C, k->vra, k->vca, 0);
    pto_k_tile V = vtile(k->dt, 1, k->C, 1, k->C, 8192);
    pto_k_tile D = vtile(k->dt, k->R, k->C, k->vr, k->vc, 16384);
    pto_k_tload(c, "cexp:5: tload a, x[0, 0]", A, x, 0, 0);
    pto_k_tload(c, "cexp:6: tload v, w[0, 0]", V, v, 0, 0);
    pto_k_set_flag(c, "cexp", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "cexp", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    switch (k->op) {
    case PTO_OP_TCOLEXPANDADD: pto_k_tcolexpandadd(c, "cexp:7", D, A, V); break;
    case PTO_OP_TCOLEXPANDSUB: pto_k_tcolexpandsub(c, "cexp:7", D, A, V); break;
    case PTO_OP_TCOLEXPANDMUL: pto_k_tcolexpandmul(c, "cexp:7", D, A, V); break;
    default: pto_k_tcolexpanddiv(c, "cexp:7", D, A, V); break;
    }
    pto_k_set_flag(c, "cexp", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "cexp", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "cexp:8: tstore z[0, 0], d", z, 0, 0, D);
}

static int run_colexp(const rcfg *k, uint64_t seed)
{
    char text[900], label[120];
    dcase dc;
    const char *name = pto_opinfo_get((pto_op)k->op)->name, *t = dtn(k->dt);
    snprintf(text, sizeof text,
             "kernel k(in x: %s[%d, %d], in w: %s[1, %d], inout z: %s[%d, %d]) vector {\n"
             "  tile a: vec %s[%d, %d] valid(%d, %d)\n  tile v: vec %s[1, %d]\n"
             "  tile d: vec %s[%d, %d] valid(%d, %d)\n"
             "  tload a, x[0, 0]\n  tload v, w[0, 0]\n  %s d, a, v\n  tstore z[0, 0], d\n}\n",
             t, k->R, k->C, t, k->C, t, k->R, k->C, t, k->R, k->C, k->vra, k->vca, t, k->C, t, k->R, k->C, k->vr,
             k->vc, name);
    snprintf(label, sizeof label, "%s %s d(%d,%d) a(%d,%d)", name, t, k->vr, k->vc, k->vra, k->vca);
    memset(&dc, 0, sizeof dc);
    dc.label = label, dc.text = text, dc.fn = k_colexp, dc.kind = PTO_K_KIND_VECTOR, dc.extra = k, dc.seed = seed;
    return differ(&dc);
}

static void test_col_ops(void)
{
    /* C = 32 keeps a [1, C] row of every dtype whole 32-byte granules (i8 aside);
       the reductions' valid cols equal their source's (the verifier's rule) */
    static const int red[][4] = {{1, 32, 16, 32}, {1, 13, 16, 13}, {1, 32, 9, 32}, {1, 5, 11, 5}, {1, 32, 0, 32},
                                 {0, 32, 16, 32}, {1, 32, 1, 32}};
    static const int cex[][4] = {{16, 32, 16, 32}, {11, 19, 16, 32}, {16, 32, 7, 9}, {0, 32, 16, 32}, {1, 7, 1, 7}};
    static const int dts[] = {PTO_F32, PTO_F16, PTO_BF16, PTO_I32};
    int op, d, g, n = 0, good = 0;
    rcfg k;
    for (op = PTO_OP_TCOLSUM; op <= PTO_OP_TCOLMIN; op++)
        for (d = 0; d < 4; d++)
            for (g = 0; g < 7; g++) {
                k.op = op, k.dt = dts[d], k.R = 16, k.C = 32;
                k.vr = red[g][0], k.vc = red[g][1], k.vra = red[g][2], k.vca = red[g][3];
                n++;
                good += run_colred(&k, (uint64_t)(op * 83 + d * 11 + g));
            }
    for (op = PTO_OP_TCOLEXPANDADD; op <= PTO_OP_TCOLEXPANDDIV; op++)
        for (d = 0; d < 4; d++)
            for (g = 0; g < 5; g++) {
                k.op = op, k.dt = dts[d], k.R = 16, k.C = 32;
                k.vr = cex[g][0], k.vc = cex[g][1], k.vra = cex[g][2], k.vca = cex[g][3];
                n++;
                good += run_colexp(&k, (uint64_t)(op * 79 + d * 13 + g));
            }
    printf("column reductions and broadcasts: %d of %d cases agree bit for bit\n", good, n);
    CHECK(n == 3 * 4 * 7 + 4 * 4 * 5);
    CHECK(good == n);
}

/* ---- cube: tload to mat, textract / tmov to left and right, tmatmul(_acc),
        tmov acc -> mat, tstore from acc -------------------------------------------- */

typedef struct ccfg {
    int dt;                    /* the operands' dtype; acc is f32 (i32 for i8) */
    int M, K, N;
    int vma, vka;              /* valid region of the loaded [M, 2K] mat tile of a */
    int vm, vn;                /* valid region of the accumulator (the stored window) */
    int movacc;                /* f32 only: also tmov acc -> mat, extract, multiply again */
    int odt;                   /* o's dtype when it is not acc's: f16 / bf16, the fixpipe's cast on tstore */
    int ident;                 /* b is [I; 0], so acc is a's left half: chosen ties and overflows reach the cast */
} ccfg;

static void k_cube(pto_k_core *c, const int64_t *args)
{
    const ccfg *k = (const ccfg *)(intptr_t)args[3];
    pto_k_gm *a = pto_k_arg_gm(args, 0), *b = pto_k_arg_gm(args, 1), *o = pto_k_arg_gm(args, 2);
    int adt = k->dt == PTO_I8 ? PTO_I32 : PTO_F32;
    pto_k_tile A1 = pto_k_t(PTO_K_MAT, k->dt, k->M, 2 * k->K, k->vma, k->vka, 0);
    pto_k_tile B1 = pto_k_t(PTO_K_MAT, k->dt, 2 * k->K, k->N, 2 * k->K, k->N, 65536);
    pto_k_tile A0 = pto_k_t(PTO_K_LEFT, k->dt, k->M, k->K, k->M, k->K, 0);
    pto_k_tile A0b = pto_k_t(PTO_K_LEFT, k->dt, k->M, k->K, k->M, k->K, 32768);
    pto_k_tile B0 = pto_k_t(PTO_K_RIGHT, k->dt, k->K, k->N, k->K, k->N, 0);
    pto_k_tile B0b = pto_k_t(PTO_K_RIGHT, k->dt, k->K, k->N, k->K, k->N, 32768);
    pto_k_tile ACC = pto_k_t(PTO_K_ACC, adt, k->M, k->N, k->vm, k->vn, 0);
    pto_k_tile ACC2 = pto_k_t(PTO_K_ACC, adt, k->M, k->N, k->vm, k->vn, 65536);
    pto_k_tile M2 = pto_k_t(PTO_K_MAT, PTO_K_F32, k->M, k->N, k->M, k->N, 262144);
    pto_k_tile L2 = pto_k_t(PTO_K_LEFT, PTO_K_F32, k->M, k->N, k->M, k->N, 16384);
    pto_k_tile B1H = pto_k_t(PTO_K_MAT, k->dt, k->K, k->N, k->K, k->N, 131072);
    pto_k_tload(c, "mm:8: tload a1, a[0, 0]", A1, a, 0, 0);
    pto_k_tload(c, "mm:9: tload b1, b[0, 0]", B1, b, 0, 0);
    pto_k_tload(c, "mm:9: tload b1h, b[0, 0]", B1H, b, 0, 0);
    pto_k_set_flag(c, "mm", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
    pto_k_wait_flag(c, "mm", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
    pto_k_textract(c, "mm:10: textract a0, a1, 0, 0", A0, A1, 0, 0);
    pto_k_textract(c, "mm:11: textract a0b, a1, 0, K", A0b, A1, 0, k->K);
    pto_k_tmov(c, "mm:12: tmov b0, b1h", B0, B1H);
    pto_k_textract(c, "mm:13: textract b0b, b1, K, 0", B0b, B1, k->K, 0);
    pto_k_set_flag(c, "mm", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
    pto_k_wait_flag(c, "mm", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
    pto_k_tmatmul(c, "mm:14: tmatmul acc, a0, b0", ACC, A0, B0);
    pto_k_pipe_barrier(c, "mm", PTO_K_PIPE_M);
    pto_k_tmatmul_acc(c, "mm:15: tmatmul_acc acc, a0b, b0b", ACC, A0b, B0b);
    pto_k_set_flag(c, "mm", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
    pto_k_wait_flag(c, "mm", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
    if (k->movacc) {
        /* acc -> mat (full: valid region of the destination), back to left, times b0 */
        pto_k_tmov(c, "mm:16: tmov m2, acc", M2, ACC);
        pto_k_set_flag(c, "mm", PTO_K_PIPE_FIX, PTO_K_PIPE_MTE1, 0);
        pto_k_wait_flag(c, "mm", PTO_K_PIPE_FIX, PTO_K_PIPE_MTE1, 0);
        pto_k_textract(c, "mm:17: textract l2, m2, 0, 0", L2, M2, 0, 0);
        pto_k_set_flag(c, "mm", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 1);
        pto_k_wait_flag(c, "mm", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 1);
        pto_k_tmatmul(c, "mm:18: tmatmul acc2, l2, b0", ACC2, L2, B0);
        pto_k_set_flag(c, "mm", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 1);
        pto_k_wait_flag(c, "mm", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 1);
        pto_k_tstore(c, "mm:19: tstore o, acc2", o, 0, 0, ACC2);
    } else {
        pto_k_tstore(c, "mm:19: tstore o, acc", o, 0, 0, ACC);
    }
}

/* f32 a [16, 32], b [32, 16] = [I; 0]: acc = a's left half exactly (a row
   holding NaN or inf is NaN off its diagonal), so the f32 values reaching the
   fixpipe's cast keep rnd_f32's f16 / bf16 ties; the diagonal of rows 0..7
   gets overflows: 65520 (the f16 tie that rounds to inf), just below it,
   +-1e10, FLT_MAX (bf16 inf), and ties in the f16 subnormals. */
static void prep_ident(void *const *host)
{
    static const uint32_t big[8] = {0x477ff000u, 0x477fefffu, 0x501502f9u, 0xd01502f9u,
                                    0x7f7fffffu, 0xff7fffffu, 0x33000000u, 0x33c00000u};
    float *a = (float *)host[0], *b = (float *)host[1];
    int i, j;
    for (i = 0; i < 32; i++)
        for (j = 0; j < 16; j++) b[i * 16 + j] = i == j ? 1.0f : 0.0f;
    for (i = 0; i < 16; i++)
        for (j = 16; j < 32; j++) a[i * 32 + j] = 0.0f;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 16; j++) {
            float v = a[i * 32 + j];
            a[i * 32 + j] = i == j ? pto_f32_from_bits(big[i]) : v - v == 0.0f ? v : 1.0f; /* no NaN row */
        }
}

/* What the interpreter stored on the diagonal of rows 0..7 (prep_ident): the
   cast rounds to nearest even and overflows to inf. */
static void check_ident(void *const *host, const uint16_t *want)
{
    const uint16_t *o = (const uint16_t *)host[2];
    int i, bad = 0;
    for (i = 0; i < 8; i++)
        if (o[i * 16 + i] != want[i]) {
            printf("  o[%d, %d] = 0x%04x, want 0x%04x\n", i, i, o[i * 16 + i], want[i]);
            bad++;
        }
    CHECK(bad == 0);
}
static void check_ident_f16(void *const *host)
{
    static const uint16_t want[8] = {0x7c00, 0x7bff, 0x7c00, 0xfc00, 0x7c00, 0xfc00, 0x0000, 0x0002};
    check_ident(host, want);
}
static void check_ident_bf16(void *const *host)
{
    static const uint16_t want[8] = {0x4780, 0x4780, 0x5015, 0xd015, 0x7f80, 0xff80, 0x3300, 0x33c0};
    check_ident(host, want);
}

static int run_cube(const ccfg *k, uint64_t seed)
{
    char text[1600], label[120], extra[400] = "";
    const char *t = dtn(k->dt), *at = k->dt == PTO_I8 ? "i32" : "f32", *ot = k->odt ? dtn(k->odt) : at;
    dcase dc;
    if (k->movacc)
        snprintf(extra, sizeof extra,
                 "  tile m2: mat f32[%d, %d]\n  tile l2: left f32[%d, %d]\n  tile acc2: acc f32[%d, %d] valid(%d, %d)\n"
                 "  tmov m2, acc\n  textract l2, m2, 0, 0\n  tmatmul acc2, l2, b0\n  tstore o[0, 0], acc2\n",
                 k->M, k->N, k->M, k->N, k->M, k->N, k->vm, k->vn);
    snprintf(text, sizeof text,
             "kernel k(in a: %s[%d, %d], in b: %s[%d, %d], inout o: %s[%d, %d]) cube {\n"
             "  tile a1: mat %s[%d, %d] valid(%d, %d)\n  tile b1: mat %s[%d, %d]\n  tile b1h: mat %s[%d, %d]\n"
             "  tile a0: left %s[%d, %d]\n  tile a0b: left %s[%d, %d]\n"
             "  tile b0: right %s[%d, %d]\n  tile b0b: right %s[%d, %d]\n"
             "  tile acc: acc %s[%d, %d] valid(%d, %d)\n"
             "  tload a1, a[0, 0]\n  tload b1, b[0, 0]\n  tload b1h, b[0, 0]\n"
             "  textract a0, a1, 0, 0\n  textract a0b, a1, 0, %d\n  tmov b0, b1h\n  textract b0b, b1, %d, 0\n"
             "  tmatmul acc, a0, b0\n  tmatmul_acc acc, a0b, b0b\n%s%s}\n",
             t, k->M, 2 * k->K, t, 2 * k->K, k->N, ot, k->M, k->N, t, k->M, 2 * k->K, k->vma, k->vka, t, 2 * k->K,
             k->N, t, k->K, k->N, t, k->M, k->K, t, k->M, k->K, t, k->K, k->N, t, k->K, k->N, at, k->M, k->N, k->vm,
             k->vn, k->K, k->K, k->movacc ? "" : "  tstore o[0, 0], acc\n", extra);
    snprintf(label, sizeof label, "cube %s a1(%d,%d) acc(%d,%d)%s -> %s%s", t, k->vma, k->vka, k->vm, k->vn,
             k->movacc ? " movacc" : "", ot, k->ident ? " ident" : "");
    memset(&dc, 0, sizeof dc);
    dc.label = label, dc.text = text, dc.fn = k_cube, dc.kind = PTO_K_KIND_CUBE, dc.extra = k, dc.seed = seed;
    if (k->ident) dc.prep = prep_ident, dc.check = k->odt == PTO_F16 ? check_ident_f16 : check_ident_bf16;
    return differ(&dc);
}

/* Every cube tile is whole fractals (the verifier's rule): i8 takes N = 32,
   since its mat fractal is 16 x 32 and b's mat tile is [2K, N]. */
static void test_cube_ops(void)
{
    static const ccfg cases[] = {
        {PTO_F16, 16, 32, 16, 16, 64, 16, 16, 0, 0, 0},  {PTO_F16, 16, 32, 16, 13, 50, 9, 11, 0, 0, 0},
        {PTO_BF16, 16, 32, 16, 16, 64, 16, 16, 0, 0, 0}, {PTO_BF16, 16, 32, 16, 11, 64, 16, 5, 0, 0, 0},
        {PTO_F32, 16, 16, 16, 16, 32, 16, 16, 0, 0, 0},  {PTO_F32, 16, 16, 16, 16, 20, 7, 16, 1, 0, 0},
        {PTO_F32, 16, 16, 16, 16, 32, 16, 16, 1, 0, 0},  {PTO_I8, 16, 32, 32, 16, 64, 16, 32, 0, 0, 0},
        {PTO_I8, 16, 32, 32, 5, 33, 12, 16, 0, 0, 0},
        /* tstore acc f32 -> f16 / bf16 (the fixpipe's cast) */
        {PTO_F16, 16, 32, 16, 16, 64, 16, 16, 0, PTO_F16, 0},  {PTO_BF16, 16, 32, 16, 13, 50, 9, 11, 0, PTO_BF16, 0},
        {PTO_F16, 16, 32, 16, 16, 64, 16, 16, 0, PTO_BF16, 0}, {PTO_F32, 16, 16, 16, 16, 32, 16, 16, 1, PTO_F16, 0},
        {PTO_F32, 16, 16, 16, 16, 32, 16, 16, 0, PTO_F16, 1},  {PTO_F32, 16, 16, 16, 16, 32, 16, 16, 0, PTO_BF16, 1},
    };
    int i, s, n = 0, good = 0;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
        for (s = 0; s < 3; s++) {
            n++;
            good += run_cube(&cases[i], (uint64_t)(9000 + i * 10 + s));
        }
    printf("cube (tload mat, textract, tmov, tmatmul, tmatmul_acc, tstore acc): %d of %d cases agree\n", good, n);
    CHECK(good == n && n == 45);
}

/* ---- the fixed kernels of test_sim_bugs.c ------------------------------------------- */

#define BUGPARAMS "(in x: f32[64, 64], inout z: f32[64, 64]) vector {\n"

static void test_fixed_bug_kernels(void)
{
    static const struct {
        const char *label;
        const char *text;
        pto_k_kernel_fn fn;
        int arch;
    } cases[] = {
        {"flag", "kernel flag" BUGPARAMS "  tile t: vec f32[8, 64]\n  tile d: vec f32[8, 64]\n"
                 "  tload t, x[0, 0]\n  tadd d, t, t\n  tstore z[0, 0], d\n}\n", k_flag_fix, PTO_K_A2A3},
        {"bar", "kernel bar" BUGPARAMS "  tile t: vec f32[8, 64]\n  tile e: vec f32[8, 64]\n  tile d: vec f32[8, 64]\n"
                "  tload t, x[0, 0]\n  texp e, t\n  tadd d, e, t\n  tstore z[0, 0], d\n}\n", k_bar_fix, PTO_K_A2A3},
        {"dset", "kernel dset" BUGPARAMS "  tile t: vec f32[8, 64]\n  tile u: vec f32[8, 64]\n  tile d: vec f32[8, 64]\n"
                 "  tload t, x[0, 0]\n  tload u, x[8, 0]\n  tadd d, t, u\n  tstore z[0, 0], d\n}\n",
         k_dset_fix, PTO_K_A2A3},
        {"never", "kernel never" BUGPARAMS "  tile t: vec f32[8, 64]\n  tile d: vec f32[8, 64]\n"
                  "  tload t, x[0, 0]\n  tadd d, t, t\n  tstore z[0, 0], d\n}\n", k_never_fix, PTO_K_A2A3},
        {"left", "kernel left" BUGPARAMS "  tile t: vec f32[8, 64]\n  for i = 0 to 4 {\n"
                 "    tload t, x[i * 8, 0]\n    tstore z[i * 8, 0], t\n  }\n}\n", k_left_fix, PTO_K_A2A3},
        {"cap", "kernel cap" BUGPARAMS "  tile t: vec f32[16, 64]\n  tload t, x[0, 0]\n  tstore z[0, 0], t\n}\n",
         k_cap_fix, PTO_K_A2A3},
        {"cap_a5", "arch a5\nkernel cap" BUGPARAMS "  tile t: vec f32[16, 64]\n  tload t, x[0, 0]\n"
                   "  tstore z[0, 0], t\n}\n", k_cap_a5, PTO_K_A5},
        {"align", "kernel align" BUGPARAMS "  tile t: vec f32[16, 64]\n  tload t, x[0, 0]\n  tstore z[0, 0], t\n}\n",
         k_align_fix, PTO_K_A2A3},
        /* the simulator runs the tstore after the tadds (its pipe waits); the result is the same */
        {"defer", "kernel defer" BUGPARAMS "  tile t: vec f32[8, 64]\n  tile d: vec f32[8, 64]\n"
                  "  tload t, x[0, 0]\n  tadds d, t, 1.0\n  tstore z[0, 0], d\n}\n", k_defer, PTO_K_A2A3},
        {"gmdep", "kernel gmdep" BUGPARAMS "  tile t: vec f32[8, 64]\n  tile u: vec f32[8, 64]\n"
                  "  tload t, x[0, 0]\n  tstore z[0, 0], t\n  tload u, z[0, 0]\n}\n", k_gmdep_fix, PTO_K_A2A3},
    };
    int i, s, n = 0, good = 0;
    dcase dc;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
        for (s = 0; s < 4; s++) {
            memset(&dc, 0, sizeof dc);
            dc.label = cases[i].label, dc.text = cases[i].text, dc.fn = cases[i].fn;
            dc.kind = PTO_K_KIND_VECTOR, dc.arch = cases[i].arch, dc.seed = (uint64_t)(500 + i * 10 + s);
            n++;
            good += differ(&dc);
        }
    printf("fixed bug kernels: %d of %d runs agree with the interpreter\n", good, n);
    CHECK(good == n && n == 40);
}

/* ---- uninitialised reads ------------------------------------------------------------ */

static const pto_k_report *launch1(pto_k_device *dev, pto_k_kernel_fn fn, int kind, const int64_t *args)
{
    pto_k_launch_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.fn = fn, ld.name = "u", ld.kind = kind, ld.args = args;
    return pto_k_launch(dev, &ld);
}

/* tmov copies the valid region of a0 only; tmatmul reads all of a0. */
static void k_uninit_cube(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *a = pto_k_arg_gm(args, 0), *o = pto_k_arg_gm(args, 1);
    pto_k_tile A1 = pto_k_t(PTO_K_MAT, PTO_K_F16, 16, 16, 16, 16, 0);
    pto_k_tile A0 = pto_k_t(PTO_K_LEFT, PTO_K_F16, 16, 16, 16, (int64_t)args[2], 0);
    pto_k_tile B0 = pto_k_t(PTO_K_RIGHT, PTO_K_F16, 16, 16, (int64_t)args[3], 16, 0);
    pto_k_tile ACC = pto_k_t(PTO_K_ACC, PTO_K_F32, 16, 16, 16, 16, 0);
    pto_k_tload(c, "uc.pto:6: tload a1, a[0, 0]", A1, a, 0, 0);
    pto_k_set_flag(c, "uc.pto:7", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
    pto_k_wait_flag(c, "uc.pto:8", PTO_K_PIPE_MTE2, PTO_K_PIPE_MTE1, 0);
    pto_k_tmov(c, "uc.pto:9: tmov a0, a1", A0, A1);
    pto_k_tmov(c, "uc.pto:10: tmov b0, a1", B0, A1);
    pto_k_set_flag(c, "uc.pto:11", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
    pto_k_wait_flag(c, "uc.pto:12", PTO_K_PIPE_MTE1, PTO_K_PIPE_M, 0);
    pto_k_tmatmul(c, "uc.pto:13: tmatmul acc, a0, b0", ACC, A0, B0);
    pto_k_set_flag(c, "uc.pto:14", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
    pto_k_wait_flag(c, "uc.pto:15", PTO_K_PIPE_M, PTO_K_PIPE_FIX, 0);
    pto_k_tstore(c, "uc.pto:16: tstore o[0, 0], acc", o, 0, 0, ACC);
}

/* p lives at vec byte 0 first, then d (declared with tdecl) reuses its bytes.
   The tstore of p is still queued (MTE3 waits) when d is declared: it runs
   after the tdecl but belongs to p, so it is not blamed. e reads d over
   e's larger valid region: bytes d never wrote. With `decl` 0 the kernel
   does not declare d and the stale values of p go unnoticed. */
static void k_uninit_reuse(pto_k_core *c, const int64_t *args, int decl, int planted)
{
    pto_k_gm *z = pto_k_arg_gm(args, 1);
    pto_k_tile P = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 8, 8, 8, 0);
    pto_k_tile D = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 8, 4, 4, 0);
    pto_k_tile E = pto_k_t(PTO_K_VEC, PTO_K_F32, 8, 8, planted ? 8 : 4, planted ? 8 : 4, 1024);
    pto_k_tdecl(c, "ur.pto:2: tile p: vec f32[8, 8]", P);
    pto_k_texpands(c, "ur.pto:3: texpands p, 5.0", P, 5.0);
    pto_k_wait_flag(c, "ur.pto:4: wait_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "ur.pto:5: tstore z[0, 0], p", z, 0, 0, P);
    if (decl) pto_k_tdecl(c, "ur.pto:6: tile d: vec f32[8, 8] valid(4, 4)", D);
    pto_k_set_flag(c, "ur.pto:7: set_flag V, MTE3, 0", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_set_flag(c, "ur.pto:8", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, 1);
    pto_k_wait_flag(c, "ur.pto:9", PTO_K_PIPE_MTE3, PTO_K_PIPE_V, 1);
    pto_k_texpands(c, "ur.pto:10: texpands d, 1.0", D, 1.0);
    pto_k_pipe_barrier(c, "ur.pto:11", PTO_K_PIPE_V);
    pto_k_tadds(c, "ur.pto:12: tadds e, d, 1.0", E, D, 1.0);
    pto_k_set_flag(c, "ur.pto:13", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "ur.pto:14", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "ur.pto:15: tstore z[8, 0], e", z, 8, 0, E);
}
static void k_reuse_decl(pto_k_core *c, const int64_t *a) { k_uninit_reuse(c, a, 1, 1); }
static void k_reuse_nodecl(pto_k_core *c, const int64_t *a) { k_uninit_reuse(c, a, 0, 1); }
static void k_reuse_fixed(pto_k_core *c, const int64_t *a) { k_uninit_reuse(c, a, 1, 0); }

/* A row reduction whose destination has no valid column writes nothing; the
   row broadcast then reads d's never-written column. */
static void k_rowred_empty(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tile A = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 32, 16, 32, 0);
    pto_k_tile D = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 1, 16, 0, 4096);
    pto_k_tile E = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 32, 16, 32, 8192);
    pto_k_tload(c, "re.pto:6: tload a, x[0, 0]", A, x, 0, 0);
    pto_k_set_flag(c, "re.pto", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "re.pto", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_trowsum(c, "re.pto:7: trowsum d, a", D, A);
    pto_k_pipe_barrier(c, "re.pto", PTO_K_PIPE_V);
    pto_k_trowexpandadd(c, "re.pto:8: trowexpandadd e, a, d", E, A, D);
    pto_k_set_flag(c, "re.pto", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "re.pto", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "re.pto:9: tstore z[0, 0], e", z, 0, 0, E);
}

/* The same for a column reduction into a destination with no valid row,
   read by a column broadcast. */
static void k_colred_empty(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *z = pto_k_arg_gm(args, 1);
    pto_k_tile A = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 32, 16, 32, 0);
    pto_k_tile D = pto_k_t(PTO_K_VEC, PTO_K_F32, 1, 32, 0, 32, 4096);
    pto_k_tile E = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 32, 16, 32, 8192);
    pto_k_tload(c, "ce.pto:6: tload a, x[0, 0]", A, x, 0, 0);
    pto_k_set_flag(c, "ce.pto", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "ce.pto", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_tcolsum(c, "ce.pto:7: tcolsum d, a", D, A);
    pto_k_pipe_barrier(c, "ce.pto", PTO_K_PIPE_V);
    pto_k_tcolexpandadd(c, "ce.pto:8: tcolexpandadd e, a, d", E, A, D);
    pto_k_set_flag(c, "ce.pto", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "ce.pto", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_tstore(c, "ce.pto:9: tstore z[0, 0], e", z, 0, 0, E);
}

static int only_uninit(const pto_k_report *r, int n)
{
    int i, k = 0;
    for (i = 0; i < r->nerrors; i++) k += r->errors[i].kind == PTO_K_E_UNINIT;
    if (k != n || r->nerrors != n) pto_k_report_print(r, stdout);
    return k == n && r->nerrors == n;
}

static void test_uninit(void)
{
    pto_k_device_desc dd;
    pto_k_device *dev;
    pto_k_gm *a, *o, *x, *z;
    const pto_k_report *r;
    int64_t args[4];
    int i, j, k, bad = 0;
    memset(&dd, 0, sizeof dd);
    dev = pto_k_device_create(&dd);
    a = pto_k_gm_create(dev, "a", PTO_K_F16, 16, 16);
    o = pto_k_gm_create(dev, "o", PTO_K_F32, 16, 16);
    x = pto_k_gm_create(dev, "x", PTO_K_F32, 16, 32);
    z = pto_k_gm_create(dev, "z", PTO_K_F32, 16, 32);
    for (i = 0; i < 256; i++) pto_k_gm_set(a, i / 16, i % 16, (float)(i % 9) - 4.0f);
    for (i = 0; i < 512; i++) pto_k_gm_set(x, i / 32, i % 32, (float)i * 0.25f - 3.0f);

    /* K = the left tile's valid cols (pto-isa's TMATMUL): a left tile with
       valid(16, 12) filled by tmov is read over 12 columns only, and so is
       the right tile over 12 rows */
    args[0] = pto_k_gm_arg(a), args[1] = pto_k_gm_arg(o), args[2] = 12, args[3] = 16;
    r = launch1(dev, k_uninit_cube, PTO_K_KIND_CUBE, args);
    CHECK(r->nerrors == 0);
    for (i = 0; i < 16; i++)
        for (j = 0; j < 16; j++) {
            float s = 0.0f;
            for (k = 0; k < 12; k++) s = s + pto_k_gm_get(a, i, k) * pto_k_gm_get(a, k, j);
            bad |= pto_k_gm_get(o, i, j) != s;
        }
    CHECK(!bad);
    /* a right tile whose valid rows (12) are fewer than K (16): rows 12..15 unwritten */
    args[2] = 16, args[3] = 12;
    r = launch1(dev, k_uninit_cube, PTO_K_KIND_CUBE, args);
    CHECK(only_uninit(r, 1));
    if (r->nerrors > 0)
        CHECK_STR(r->errors[0].msg,
                  "uc.pto:13: tmatmul acc, a0, b0: error: uninitialised read: tmatmul (M) reads 128 unwritten byte(s) "
                  "of its right tile [16, 16] f16 at right byte 0, in right bytes [384, 512): nothing wrote them since "
                  "the launch began or the tile's tdecl (the reference interpreter reads zeros there) (block 0 aic)");

    args[0] = pto_k_gm_arg(x), args[1] = pto_k_gm_arg(z);
    r = launch1(dev, k_reuse_decl, PTO_K_KIND_VECTOR, args);
    CHECK(only_uninit(r, 1));
    CHECK_STR(r->errors[0].msg,
              "ur.pto:12: tadds e, d, 1.0: error: uninitialised read: tadds (V) reads 192 unwritten byte(s) of its "
              "source tile [8, 8] f32 at vec byte 0 (declared at ur.pto:6: tile d: vec f32[8, 8] valid(4, 4)), in vec "
              "bytes [16, 256): nothing wrote them since the launch "
              "began or the tile's tdecl (the reference interpreter reads zeros there) (block 0 aiv0)");
    CHECK(pto_k_gm_get(z, 0, 0) == 5.0f && pto_k_gm_get(z, 7, 7) == 5.0f); /* the late tstore saw p */
    /* without the declaration the stale 5.0 of p is read silently */
    r = launch1(dev, k_reuse_nodecl, PTO_K_KIND_VECTOR, args);
    CHECK(r->nerrors == 0 && pto_k_gm_get(z, 8 + 7, 7) == 6.0f);
    r = launch1(dev, k_reuse_fixed, PTO_K_KIND_VECTOR, args);
    CHECK(r->nerrors == 0 && pto_k_gm_get(z, 8, 0) == 2.0f && pto_k_gm_get(z, 8 + 3, 3) == 2.0f);

    r = launch1(dev, k_rowred_empty, PTO_K_KIND_VECTOR, args);
    CHECK(only_uninit(r, 1));
    CHECK(pto_k_report_find(r, PTO_K_E_UNINIT, "re.pto:8: trowexpandadd e, a, d: error: uninitialised read: "
                                                "trowexpandadd (V) reads 64 unwritten byte(s) of its row vector tile "
                                                "[16, 1] f32 at vec byte 4096, in vec bytes [4096, 4160)") != NULL);

    r = launch1(dev, k_colred_empty, PTO_K_KIND_VECTOR, args);
    CHECK(only_uninit(r, 1));
    CHECK(pto_k_report_find(r, PTO_K_E_UNINIT, "ce.pto:8: tcolexpandadd e, a, d: error: uninitialised read: "
                                                "tcolexpandadd (V) reads 128 unwritten byte(s) of its broadcast row "
                                                "tile [1, 32] f32 at vec byte 4096, in vec bytes [4096, 4224)") != NULL);
    (void)bad;
    pto_k_device_destroy(dev);
}

/* The interpreter side of the last kernel: trowsum into a destination with
   no valid column writes nothing, so d keeps its fresh zeros and e = a + 0. */
static void test_interp_rowred_empty(void)
{
    static const char *text =
        "kernel re(in x: f32[16, 32], inout z: f32[16, 32]) vector {\n"
        "  tile a: vec f32[16, 32]\n  tile d: vec f32[16, 1] valid(16, 0)\n  tile e: vec f32[16, 32]\n"
        "  tload a, x[0, 0]\n  trowsum d, a\n  trowexpandadd e, a, d\n  tstore z[0, 0], e\n}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "re.pto", text, strlen(text));
    float x[512], z[512];
    void *t[2];
    pto_launch L;
    int i, bad = 0;
    CHECK(m && pto_verify(ctx, m) == PTO_OK);
    for (i = 0; i < 512; i++) x[i] = (float)i * 0.25f - 3.0f, z[i] = -1.0f;
    x[12] = -0.0f;
    t[0] = x, t[1] = z;
    memset(&L, 0, sizeof L);
    L.tensors = t;
    CHECK(m && pto_interp(ctx, m, &L) == PTO_OK);
    for (i = 0; i < 512; i++) {
        float want = x[i] + 0.0f;
        bad += memcmp(&want, &z[i], 4) != 0;
    }
    CHECK(bad == 0);
    CHECK(pto_f32_bits(z[12]) == 0u); /* -0 + +0 = +0 */
    show_diags(ctx, "re.pto");
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* ... and of the column kernel: tcolsum into a destination with no valid
   row writes nothing, so e = a + 0. */
static void test_interp_colred_empty(void)
{
    static const char *text =
        "kernel ce(in x: f32[16, 32], inout z: f32[16, 32]) vector {\n"
        "  tile a: vec f32[16, 32]\n  tile d: vec f32[1, 32] valid(0, 32)\n  tile e: vec f32[16, 32]\n"
        "  tload a, x[0, 0]\n  tcolsum d, a\n  tcolexpandadd e, a, d\n  tstore z[0, 0], e\n}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "ce.pto", text, strlen(text));
    float x[512], z[512];
    void *t[2];
    pto_launch L;
    int i, bad = 0;
    CHECK(m && pto_verify(ctx, m) == PTO_OK);
    for (i = 0; i < 512; i++) x[i] = (float)i * 0.25f - 3.0f, z[i] = -1.0f;
    x[12] = -0.0f;
    t[0] = x, t[1] = z;
    memset(&L, 0, sizeof L);
    L.tensors = t;
    CHECK(m && pto_interp(ctx, m, &L) == PTO_OK);
    for (i = 0; i < 512; i++) {
        float want = x[i] + 0.0f;
        bad += memcmp(&want, &z[i], 4) != 0;
    }
    CHECK(bad == 0);
    CHECK(pto_f32_bits(z[12]) == 0u);
    show_diags(ctx, "ce.pto");
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* ---- NaN and bit-copy rules, with the bits written out ------------------------------ */

static void k_nan(pto_k_core *c, const int64_t *args)
{
    pto_k_gm *x = pto_k_arg_gm(args, 0), *y = pto_k_arg_gm(args, 1), *z = pto_k_arg_gm(args, 2);
    pto_k_gm *q = pto_k_arg_gm(args, 3), *w = pto_k_arg_gm(args, 4);
    pto_k_tile A = vtile(PTO_K_F32, 8, 8, 8, 8, 0), B = vtile(PTO_K_F32, 8, 8, 8, 8, 256);
    pto_k_tile Q = vtile(PTO_K_I32, 8, 8, 8, 8, 512), W = vtile(PTO_K_I32, 8, 8, 8, 8, 768);
    int k;
    pto_k_tload(c, "nan:1", A, x, 0, 0);
    pto_k_tload(c, "nan:2", B, y, 0, 0);
    pto_k_tload(c, "nan:3", Q, q, 0, 0);
    pto_k_set_flag(c, "nan", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_wait_flag(c, "nan", PTO_K_PIPE_MTE2, PTO_K_PIPE_V, 0);
    pto_k_tadd(c, "nan:4", vtile(PTO_K_F32, 8, 8, 8, 8, 1024), A, B);
    pto_k_tmax(c, "nan:5", vtile(PTO_K_F32, 8, 8, 8, 8, 1280), A, B);
    pto_k_tneg(c, "nan:6", vtile(PTO_K_F32, 8, 8, 8, 8, 1536), A);
    pto_k_tmul(c, "nan:7", vtile(PTO_K_F32, 8, 8, 8, 8, 1792), A, B);
    pto_k_texp(c, "nan:8", vtile(PTO_K_F32, 8, 8, 8, 8, 2048), A);
    pto_k_tmov(c, "nan:9", W, Q);
    pto_k_set_flag(c, "nan", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    pto_k_wait_flag(c, "nan", PTO_K_PIPE_V, PTO_K_PIPE_MTE3, 0);
    for (k = 0; k < 5; k++) pto_k_tstore(c, "nan:10", z, k * 8, 0, vtile(PTO_K_F32, 8, 8, 8, 8, 1024 + k * 256));
    pto_k_tstore(c, "nan:11", w, 0, 0, W);
}

static void nan_prep(void *const *host)
{
    uint32_t *x = (uint32_t *)host[0], *y = (uint32_t *)host[1];
    int32_t *q = (int32_t *)host[3];
    x[0] = 0xffc00123u, y[0] = 0x3f800000u; /* -NaN with a payload, 1 */
    x[1] = 0x7f800000u, y[1] = 0;           /* inf * 0: the CPU's default NaN */
    x[2] = 0x3f800000u, y[2] = 0xffc00001u; /* 1, -NaN */
    q[0] = 16777217, q[1] = -2147483647 - 1;
}

static void nan_check(void *const *host)
{
    const uint32_t *z = (const uint32_t *)host[2];
    const int32_t *w = (const int32_t *)host[4];
    CHECK(z[0] == 0x7fc00000u && z[2] == 0x7fc00000u);        /* tadd: canonical */
    CHECK(z[64] == 0xffc00123u && z[66] == 0xffc00001u);      /* tmax: the NaN operand itself */
    CHECK(z[128] == 0x7fc00123u);                             /* tneg flips only the sign */
    CHECK(z[192 + 1] == 0x7fc00000u);                         /* inf * 0 */
    CHECK(z[256] == 0x7fc00000u);                             /* texp(NaN) */
    CHECK(w[0] == 16777217 && w[1] == -2147483647 - 1);       /* tmov copies i32 bits */
}

static void test_nan_rules(void)
{
    dcase dc;
    memset(&dc, 0, sizeof dc);
    dc.label = "nan";
    dc.text = "kernel nan(in x: f32[8, 8], in y: f32[8, 8], inout z: f32[40, 8], in q: i32[8, 8], inout w: i32[8, 8]) "
              "vector {\n  tile a: vec f32[8, 8]\n  tile b: vec f32[8, 8]\n  tile q1: vec i32[8, 8]\n"
              "  tile w1: vec i32[8, 8]\n  tile d1: vec f32[8, 8]\n  tile d2: vec f32[8, 8]\n  tile d3: vec f32[8, 8]\n"
              "  tile d4: vec f32[8, 8]\n  tile d5: vec f32[8, 8]\n  tload a, x[0, 0]\n  tload b, y[0, 0]\n"
              "  tload q1, q[0, 0]\n  tadd d1, a, b\n  tmax d2, a, b\n  tneg d3, a\n  tmul d4, a, b\n  texp d5, a\n"
              "  tmov w1, q1\n  tstore z[0, 0], d1\n  tstore z[8, 0], d2\n  tstore z[16, 0], d3\n"
              "  tstore z[24, 0], d4\n  tstore z[32, 0], d5\n  tstore w[0, 0], w1\n}\n";
    dc.fn = k_nan, dc.kind = PTO_K_KIND_VECTOR, dc.seed = 77, dc.prep = nan_prep, dc.check = nan_check;
    CHECK(differ(&dc));
}

int main(void)
{
    test_nan_rules();
    test_map_ops();
    test_row_ops();
    test_col_ops();
    test_cube_ops();
    test_fixed_bug_kernels();
    test_uninit();
    test_interp_rowred_empty();
    test_interp_colred_empty();
    return TEST_END();
}
