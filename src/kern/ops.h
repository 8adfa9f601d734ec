/* ops.h - the instructions of one core: checks, race detection, values,
   cycles, and the in-core flags and barriers.

   Cost table (cycles at 1.85 GHz; hardware.md section 9, which gathers the
   figures from the pto-isa / PTOAS / simpler sources; "est." marks figures
   the table does not give, taken from the closest measured op):
     tload GM->vec (MTE2)    (B + 31334) / 143.36   fitted 247 GiB/s x B/(30.6 KiB + B)
     tload GM->mat (MTE2)    B / 78.35              135 GiB/s
     tstore vec->GM (MTE3)   B / 109.12             188 GiB/s flat table
     tstore acc->GM, tmov acc->* (FIX)  B / 40.63   70 GiB/s
     tmov/textract ->left    B / 255.96             441 GiB/s;  ->right B / 127.69 (220 GiB/s)
     vector op               slope x repeats + fixed (+16 when the last repeat is partial),
                             one repeat = 256 bytes of the destination (row reductions: of the source;
                             tcvt: of its wider side, as pto-isa's TCVT counts repeats):
       tadd tsub 2.11/24 (tsub est.), tmul 2.3/25, tdiv 4.03/31, tmax tmin 2.0/23 (tmin est.),
       t*s scalar forms 1/26, texp 2.0/31, tlog 2.0/33, tsqrt trsqrt trecip 4.03/31 (est.),
       tabs tneg trelu 2.0/23 (est.), texpands 1/26 (est.), trow* reductions 7/46 (max/min est.),
       trowexpand* as the binary op (est.), tcvt and vec tmov 2.0/24 (est.),
       tcolexpand* as the binary op (est.);
       tcolsum tcolmax tcolmin (est.) as pto-isa's sequential TCOL* run them
                             (isBinary = false for TCOLSUM): a copy of the first row
                             (vec tmov cost) plus, per further valid row, one tadd / tmax /
                             tmin over one row (d's valid cols), each after a V barrier,
                             so each pays its fixed cost: tmov(B) + (rows - 1) x op(B);
       ttrans (est.)         two passes at the vec tmov figure, as pto-isa's a2a3 TTRANS makes them
                             (a scatter transpose into its tmp tile, a V barrier, a UB-to-UB copy
                             into dst): 2 x tmov(B), B the bytes of the source's valid region
     tmatmul (M)             M*N*K / (4096 f16/bf16, 1024 f32, 8192 i8) + 6
     set_flag, wait_flag, barriers: 0 (a wait only moves its pipe's clock)
     cross-core flag, ring slot, rank signal: +1000 cycles latency
     notify, wait, tfree (S): 1
   Kernel launch (~11k) and block dispatch (~2k) are not in the makespan. */

#define PTO_K__OPS(X) \
    X(TLOAD, "tload", 0, 0) X(TSTORE, "tstore", 0, 0) X(TSTORE_ADD, "tstore_add", 0, 0) \
    X(TADD, "tadd", 2.11, 24) X(TSUB, "tsub", 2.11, 24) X(TMUL, "tmul", 2.3, 25) X(TDIV, "tdiv", 4.03, 31) \
    X(TMAX, "tmax", 2.0, 23) X(TMIN, "tmin", 2.0, 23) \
    X(TADDS, "tadds", 1, 26) X(TSUBS, "tsubs", 1, 26) X(TMULS, "tmuls", 1, 26) X(TDIVS, "tdivs", 1, 26) \
    X(TMAXS, "tmaxs", 1, 26) X(TMINS, "tmins", 1, 26) \
    X(TEXP, "texp", 2.0, 31) X(TLOG, "tlog", 2.0, 33) X(TSQRT, "tsqrt", 4.03, 31) X(TRSQRT, "trsqrt", 4.03, 31) \
    X(TRECIP, "trecip", 4.03, 31) X(TABS, "tabs", 2.0, 23) X(TNEG, "tneg", 2.0, 23) X(TRELU, "trelu", 2.0, 23) \
    X(TEXPANDS, "texpands", 1, 26) \
    X(TROWSUM, "trowsum", 7, 46) X(TROWMAX, "trowmax", 7, 46) X(TROWMIN, "trowmin", 7, 46) \
    X(TROWEXPANDADD, "trowexpandadd", 2.11, 24) X(TROWEXPANDSUB, "trowexpandsub", 2.11, 24) \
    X(TROWEXPANDMUL, "trowexpandmul", 2.3, 25) X(TROWEXPANDDIV, "trowexpanddiv", 4.03, 31) \
    X(TCOLSUM, "tcolsum", 2.11, 24) X(TCOLMAX, "tcolmax", 2.0, 23) X(TCOLMIN, "tcolmin", 2.0, 23) \
    X(TCOLEXPANDADD, "tcolexpandadd", 2.11, 24) X(TCOLEXPANDSUB, "tcolexpandsub", 2.11, 24) \
    X(TCOLEXPANDMUL, "tcolexpandmul", 2.3, 25) X(TCOLEXPANDDIV, "tcolexpanddiv", 4.03, 31) \
    X(TCVT, "tcvt", 2.0, 24) X(TMOV, "tmov", 2.0, 24) X(TTRANS, "ttrans", 2.0, 24) X(TEXTRACT, "textract", 0, 0) \
    X(TMATMUL, "tmatmul", 0, 0) X(TMATMUL_ACC, "tmatmul_acc", 0, 0) \
    X(SET_FLAG, "set_flag", 0, 0) X(WAIT_FLAG, "wait_flag", 0, 0) X(PIPE_BARRIER, "pipe_barrier", 0, 0) \
    X(TDECL, "tdecl", 0, 0)

enum {
#define PTO_K__OP_ENUM(e, name, slope, fixed) PTO_K__##e,
    PTO_K__OPS(PTO_K__OP_ENUM)
#undef PTO_K__OP_ENUM
    PTO_K__NOPS
};

PTO_K_FN const char *pto_k__op_name(int op)
{
    static const char *const names[] = {
#define PTO_K__OP_NAME(e, name, slope, fixed) name,
        PTO_K__OPS(PTO_K__OP_NAME)
#undef PTO_K__OP_NAME
    };
    return op >= 0 && op < PTO_K__NOPS ? names[op] : "?";
}

PTO_K_FN int64_t pto_k__vec_cost(int op, int64_t bytes)
{
    static const double slope[] = {
#define PTO_K__OP_SLOPE(e, name, s, f) s,
        PTO_K__OPS(PTO_K__OP_SLOPE)
#undef PTO_K__OP_SLOPE
    };
    static const double fixed[] = {
#define PTO_K__OP_FIXED(e, name, s, f) f,
        PTO_K__OPS(PTO_K__OP_FIXED)
#undef PTO_K__OP_FIXED
    };
    int64_t rep = (bytes + 255) / 256;
    double cyc = slope[op] * (double)rep + fixed[op] + (bytes % 256 ? 16.0 : 0.0);
    return (int64_t)ceil(cyc);
}

/* A column reduction over `rows` rows of `row_bytes` each (the cost table's
   note): the first row copied, then one op per further row. */
PTO_K_FN int64_t pto_k__colred_cost(int op, int64_t rows, int64_t row_bytes)
{
    return pto_k__vec_cost(PTO_K__TMOV, row_bytes) + (rows > 1 ? (rows - 1) * pto_k__vec_cost(op, row_bytes) : 0);
}

PTO_K_FN int64_t pto_k__bw_cost(double bytes, double per_cycle) { return (int64_t)ceil(bytes / per_cycle); }

/* ---- operand checks ---------------------------------------------------------- */

PTO_K_FN int64_t pto_k__tbytes(pto_k_tile t) { return (int64_t)t.rows * t.cols * pto_k__dsize(t.dtype); }

/* Bytes [0, n) of the tile that its valid rows span. */
PTO_K_FN int64_t pto_k__vspan(pto_k_tile t, int64_t vr)
{
    if (vr <= 0 || t.valid_c <= 0) return 0;
    return vr * t.cols * pto_k__dsize(t.dtype);
}

/* An instruction the simulator does not run for an error in its operands:
   the run's cycles leave its work out, so the harness prints no efficiency
   figure (review28 L9: "efficiency 1.000" for a kernel whose V work was all
   skipped). A tdecl runs no work: its tile's instructions count. */
PTO_K_FN void pto_k__init_write(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, int64_t nr, int64_t nc);

/* Whether tile t lies where its bytes can be tracked: a space, a shape, a
   32-byte aligned address and all of it inside the space (tile_check's
   placement rules, with no report). */
PTO_K_FN int pto_k__placeable(const pto_k_core *c, pto_k_tile t)
{
    return t.space > 0 && t.space < PTO_K_NSPACE && t.dtype >= PTO_K_F32 && t.dtype <= PTO_K_I8 && t.rows > 0 && t.cols > 0 && t.offset >= 0 &&
           t.offset % PTO_K__GRAN == 0 && t.offset + pto_k__tbytes(t) <= pto_k__capacity(c->dev->desc.arch, t.space);
}

PTO_K_FN int pto_k__skip(pto_k_core *c, const pto_k__ins *ins)
{
    if (ins->op == PTO_K__TDECL) return 0;
    c->dev->rep.skipped++;
    /* its error is reported: the destination counts as written, so no uninitialised read of it
       follows from the skip (a source tile moved past the end of UB made every tstore of the
       result report one too: one root cause, as for a tload past its tensor, review28 L1) */
    if (pto_k__placeable(c, ins->d)) pto_k__init_write(c, ins, ins->d, ins->d.rows, ins->d.cols);
    return 0;
}

/* Whether a bad placement of tile t (kind: PTO_K_E_ALIGN or CAPACITY) is
   reported yet: once per space, address and size in a launch, not once per
   instruction on it in each iteration and block (review28 L9: a hand-edited
   x4 tile past the end of UB gave 640 reports, 20 distinct). The repeats
   are one finding, not counted as reports: report.skipped counts the
   instructions it stopped. */
PTO_K_FN int pto_k__first_place(pto_k_core *c, pto_k_tile t, int kind)
{
    if (pto_k__first_report(c->dev, (const void *)(size_t)t.offset, (const void *)(size_t)pto_k__tbytes(t),
                            5000 + kind * PTO_K_NSPACE + t.space))
        return 1;
    c->dev->rep.suppressed--;   /* first_report counted the repeat */
    return 0;
}

/* Checks a tile operand: space allowed (mask of spaces), shape, valid
   region, alignment and capacity. Reports and returns 0 when it is bad. */
PTO_K_FN int pto_k__tile_check(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, unsigned mask, const char *role)
{
    const char *op = pto_k__op_name(ins->op);
    int64_t cap, bytes;
    if (t.space <= 0 || t.space >= PTO_K_NSPACE || !(mask & (1u << t.space))) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s tile in space %s is not allowed here", op, role,
                    pto_k__space_name(t.space));
        return 0;
    }
    if (c->kind == PTO_K_CORE_VECTOR && t.space != PTO_K_VEC) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s tile in space %s: an AIV core has only vec (UB)", op, role,
                    pto_k__space_name(t.space));
        return 0;
    }
    if (t.dtype < PTO_K_F32 || t.dtype > PTO_K_I8 || t.rows <= 0 || t.cols <= 0) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s tile has a bad dtype or shape [%d, %d]", op, role, (int)t.rows,
                    (int)t.cols);
        return 0;
    }
    if (t.valid_r < 0 || t.valid_r > t.rows || t.valid_c < 0 || t.valid_c > t.cols) {
        pto_k__ierr(c, ins, PTO_K_E_BOUNDS, "%s: valid region (%lld, %lld) of the %s tile is outside its shape [%d, %d]",
                    op, (long long)t.valid_r, (long long)t.valid_c, role, (int)t.rows, (int)t.cols);
        return 0;
    }
    if (t.offset % PTO_K__GRAN != 0) {
        if (pto_k__first_place(c, t, PTO_K_E_ALIGN))
            pto_k__ierr(c, ins, PTO_K_E_ALIGN, "%s: misaligned address: %s tile at %s byte %lld is not 32-byte aligned", op,
                        role, pto_k__space_name(t.space), (long long)t.offset);
        return 0;
    }
    if (t.space == PTO_K_VEC && t.cols > 1 && (t.cols * pto_k__dsize(t.dtype)) % PTO_K__GRAN != 0) {
        if (pto_k__first_place(c, t, PTO_K_E_ALIGN + 100))
            pto_k__ierr(c, ins, PTO_K_E_ALIGN, "%s: misaligned rows: vec %s tile [%d, %d] %s has rows of %d bytes, not a multiple of 32",
                        op, role, (int)t.rows, (int)t.cols, pto_k__dtype_name(t.dtype),
                        (int)(t.cols * pto_k__dsize(t.dtype)));
        return 0;
    }
    if (t.space >= PTO_K_MAT && t.space <= PTO_K_ACC) {
        /* cube tiles are whole fractals, as the verifier holds them (pto__vfractal; review20 L6: a hand
           edit to left [64, 40] f16 ran clean): 16 rows of 32 bytes in mat and left, the transpose in
           right, 16 x 16 in acc */
        int w = 32 / pto_k__dsize(t.dtype);
        int fr = t.space == PTO_K_RIGHT ? w : 16, fc = t.space == PTO_K_MAT || t.space == PTO_K_LEFT ? w : 16;
        if (t.rows % fr != 0 || t.cols % fc != 0) {
            if (pto_k__first_place(c, t, PTO_K_E_ALIGN + 200))
                pto_k__ierr(c, ins, PTO_K_E_ALIGN, "%s: the %s tile (%s %s[%d, %d]) is not whole fractals: %s tiles are "
                            "whole %d x %d fractals for %s, so rows must be a multiple of %d and cols of %d",
                            op, role, pto_k__space_name(t.space), pto_k__dtype_name(t.dtype), (int)t.rows, (int)t.cols,
                            pto_k__space_name(t.space), fr, fc, pto_k__dtype_name(t.dtype), fr, fc);
            return 0;
        }
    }
    cap = pto_k__capacity(c->dev->desc.arch, t.space);
    bytes = pto_k__tbytes(t);
    if (t.offset < 0 || t.offset + bytes > cap) {
        if (pto_k__first_place(c, t, PTO_K_E_CAPACITY))
            pto_k__ierr(c, ins, PTO_K_E_CAPACITY,
                        "%s: tile past capacity: %s tile [%d, %d] %s at byte %lld spans [%lld, %lld) but %s holds %lld bytes on %s",
                        op, role, (int)t.rows, (int)t.cols, pto_k__dtype_name(t.dtype), (long long)t.offset,
                        (long long)t.offset, (long long)(t.offset + bytes), pto_k__space_name(t.space), (long long)cap,
                        c->dev->desc.arch == PTO_K_A5 ? "a5" : "a2a3");
        return 0;
    }
    if (!c->mem[t.space]) {
        c->mem[t.space] = (unsigned char *)calloc((size_t)cap, 1);
        if (!c->mem[t.space]) {
            c->dev->oom = 1;
            return 0;
        }
    }
    return 1;
}

PTO_K_FN int pto_k__tile_ok(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, unsigned mask, const char *role)
{
    return pto_k__tile_check(c, ins, t, mask, role) || pto_k__skip(c, ins);
}

PTO_K_FN int pto_k__same_shape(pto_k_core *c, const pto_k__ins *ins, pto_k_tile x, int32_t rows, int32_t cols,
                               const char *role)
{
    if (x.rows == rows && x.cols == cols) return 1;
    pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s tile is [%d, %d], expected [%d, %d]", pto_k__op_name(ins->op), role,
                (int)x.rows, (int)x.cols, (int)rows, (int)cols);
    return pto_k__skip(c, ins);
}

PTO_K_FN void pto_k__gm_label(const pto_k_core *c, const pto_k_gm *g, char *out, size_t n)
{
    if (g->peers && g->rank != c->rank)
        snprintf(out, n, "%s@%d", g->name ? g->name : "?", g->rank);
    else
        snprintf(out, n, "%s", g->name ? g->name : "?");
}

/* A race report names the memory the same way from either side: in a
   multi-rank run a window is "name@owner" even on its owner's core (rank 1
   reading its own buf and rank 0 writing it both say buf@1). */
PTO_K_FN void pto_k__gm_label_abs(const pto_k_core *c, const pto_k_gm *g, char *out, size_t n)
{
    if (g->peers && c->dev->desc.nranks > 1)
        snprintf(out, n, "%s@%d", g->name ? g->name : "?", g->rank);
    else
        pto_k__gm_label(c, g, out, n);
}

/* g is a peer's copy at a rank outside the launch's (pto_k_gm_at said so):
   the access is dropped, with no report of its own. */
PTO_K_FN int pto_k__nowhere(const pto_k_core *c, const pto_k_gm *g)
{
    return g == &c->dev->nowhere;
}

PTO_K_FN int pto_k__window_ok(pto_k_core *c, const pto_k__ins *ins, const pto_k_gm *g, int64_t r, int64_t col,
                              int64_t vr, int64_t vc)
{
    char nm[80];
    if (pto_k__nowhere(c, g)) return 0;
    if (!g || !g->data) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: no GM tensor", pto_k__op_name(ins->op));
        return pto_k__skip(c, ins);
    }
    if (vr <= 0 || vc <= 0) return 1; /* an empty window touches nothing */
    if (r < 0 || col < 0 || r > g->rows - vr || col > g->cols - vc) {
        pto_k__gm_label(c, g, nm, sizeof nm);
        pto_k__ierr(c, ins, PTO_K_E_BOUNDS,
                    "%s: window %s[%lld, %lld] of shape [%lld, %lld] is outside tensor '%s' of shape [%lld, %lld]",
                    pto_k__op_name(ins->op), nm, (long long)r, (long long)col, (long long)vr, (long long)vc,
                    g->name ? g->name : "?", (long long)g->rows, (long long)g->cols);
        return pto_k__skip(c, ins);
    }
    return 1;
}

/* ---- race-checked accesses ------------------------------------------------------ */

PTO_K_FN void pto_k__begin(pto_k__check *k, pto_k_core *c, const pto_k__ins *ins, int pipe)
{
    k->c = c;
    k->ins = ins;
    k->pipe = pipe;
    k->nconf = 0;
    c->clk[pipe]++;
    c->ninstr++;
    k->cur.src = ins->src ? ins->src : "?";
    k->cur.op = pto_k__op_name(ins->op);
    k->cur.gp = c->index * 8 + pipe;
    k->cur.clk = c->clk[pipe];
    k->cur.atomic = 0;
}

PTO_K_FN void pto_k__tacc(pto_k__check *k, pto_k_tile t, int64_t lo, int64_t hi, int kind)
{
    char what[48];
    pto_k__access(k, pto_k__local_shadow(k->c, t.space), t.offset + lo, t.offset + hi, kind, 0);
    snprintf(what, sizeof what, "%s", pto_k__space_name(t.space));
    pto_k__report_conf(k, kind, what, 0);
}

/* A GM window, row by row; byte offsets are the tensor's. */
PTO_K_FN void pto_k__gacc(pto_k__check *k, pto_k_gm *g, int64_t r, int64_t col, int64_t vr, int64_t vc, int kind)
{
    int64_t i, es = pto_k__dsize(g->dtype);
    char what[96], nm[80];
    pto_k__shadow *sh = pto_k__gm_shadow(k->c->dev, g);
    for (i = 0; i < vr && vc > 0; i++) {
        int64_t lo = ((r + i) * g->cols + col) * es;
        pto_k__access(k, sh, lo, lo + vc * es, kind, 1);
    }
    pto_k__gm_label_abs(k->c, g, nm, sizeof nm);
    snprintf(what, sizeof what, "gm %s", nm);
    pto_k__report_conf(k, kind, what, 1);
}

PTO_K_FN unsigned char *pto_k__tptr(pto_k_core *c, pto_k_tile t) { return c->mem[t.space] + t.offset; }

/* ---- initialised bytes ---------------------------------------------------------
   The interpreter gives a tile fresh, zeroed storage each time its
   declaration runs; on the device a planned address holds whatever its
   previous tenant (or an earlier launch) left there. A kernel whose result
   depends on that difference reads bytes nothing wrote, so instead of
   differing silently the simulator reports the read (PTO_K_E_UNINIT), naming
   the instruction, the tile and the bytes. Each granule of a local space
   keeps a mask of its bytes written in this launch; pto_k_tdecl clears the
   mask of a tile's bytes and stamps the granules with its issue number, and
   an access issued before that stamp belongs to the previous tenant (it runs
   late because its pipe was blocked in a wait): it is neither checked nor
   recorded. Only the bytes an op really touches count: a vector op reads and
   writes d's valid region, a row reduction reads the source's valid columns,
   a column reduction the source's valid rows in d's valid columns, a column
   broadcast reads its [1, C] row in d's valid columns, tload writes the
   whole tile (it zeroes what is outside the valid region),
   textract / tmatmul / tpush read whole tiles. GM is the host's and
   initialised, except a host intermediate (pto_k_gm.undefined): a tload or
   an atomic tstore_add of its elements that no store has reached reads
   garbage on a device (pto_k__gm_init_read). */

typedef struct pto_k__uninit {
    int64_t n, lo, hi;     /* unwritten bytes read, and the span from the first to the last */
    const char *dsrc;      /* the declaration of the tile that holds the first one, or NULL */
} pto_k__uninit;

/* Bytes [lo, hi) of local space `space`: mark them written, or check that
   they are (accumulating unwritten ones in u). seq: the access's issue number. */
PTO_K_FN void pto_k__init_span(pto_k_core *c, uint32_t seq, int space, int64_t lo, int64_t hi, int write,
                               pto_k__uninit *u)
{
    pto_k__shadow *sh = pto_k__local_shadow(c, space);
    int64_t b = lo, i;
    while (sh->g && b < hi && b / PTO_K__GRAN < sh->n) {
        int64_t gi = b / PTO_K__GRAN, base = gi * PTO_K__GRAN;
        int64_t e = base + PTO_K__GRAN < hi ? base + PTO_K__GRAN : hi;
        pto_k__gran *g = &sh->g[gi];
        uint32_t m = pto_k__byte_mask(b - base, e - base), miss = m & ~g->init;
        if (seq < g->decl) {
            /* issued before the tile's declaration: its previous tenant */
        } else if (write) {
            g->init |= m;
        } else if (miss) {
            for (i = 0; i < PTO_K__GRAN; i++)
                if (miss & (1u << i)) {
                    if (u->n == 0 || base + i < u->lo) { u->lo = base + i; u->dsrc = g->dsrc; }
                    if (u->n == 0 || base + i + 1 > u->hi) u->hi = base + i + 1;
                    u->n++;
                }
        }
        b = e;
    }
}

/* A read of window [r, r + nr) x [c, c + nc) of a host intermediate:
   reported (once per source line) when some element of it no store has
   reached, with the count and the first one. The reference interpreter
   and this simulator both start an intermediate at zero, so the results
   agree and only this report tells. */
PTO_K_FN void pto_k__gm_init_read(pto_k_core *c, const pto_k__ins *ins, const pto_k_gm *g, int64_t r, int64_t col,
                                  int64_t nr, int64_t nc)
{
    int64_t i, j, n = 0, fr = 0, fc = 0;
    if (!g->undefined || nr <= 0 || nc <= 0) return;
    for (i = 0; i < nr; i++)
        for (j = 0; j < nc; j++)
            if (!g->written || !g->written[(r + i) * g->cols + col + j]) {
                if (!n) fr = r + i, fc = col + j;
                n++;
            }
    if (!n || !pto_k__first_report(c->dev, ins->src, "gm", 1000 + PTO_K_E_UNINIT)) return;
    pto_k__ierr(c, ins, PTO_K_E_UNINIT,
                "uninitialised read: %s (%s) reads %lld element(s) of host intermediate '%s' that no kernel stored "
                "to, the first at [%lld, %lld] (window [%lld, %lld] + [%lld, %lld]): the host allocates it, so on a "
                "device they hold garbage (the reference interpreter reads zeros there)",
                ins->name ? ins->name : pto_k__op_name(ins->op), pto_k__pipe_name(ins->pipe), (long long)n,
                g->name ? g->name : "?", (long long)fr, (long long)fc, (long long)r, (long long)col, (long long)nr,
                (long long)nc);
}

/* The hint for an uninitialised read of an acc tile whose unwritten bytes
   are exactly its last rows (the read covering them whole): what a
   tmatmul whose left tile has a row tail (valid(nr, K)) leaves, as it
   computes only those rows. A reader of the whole acc (tpush, a full
   tstore or tmov) then needs the row tail on the mat tile instead: tload
   zero-fills past it, so the left tile is whole and every row computed. */
PTO_K_FN const char *pto_k__rowtail_hint(pto_k_tile t, int64_t r0, int64_t nr, int64_t es, const pto_k__uninit *u)
{
    int64_t rowb = t.cols * es, first;
    if (t.space != PTO_K_ACC || rowb <= 0 || u->lo < t.offset || (u->lo - t.offset) % rowb != 0) return "";
    first = (u->lo - t.offset) / rowb;
    if (first <= r0 || first >= r0 + nr || u->hi != t.offset + (r0 + nr) * rowb || u->n != u->hi - u->lo) return "";
    return "; these are the acc's last rows, which a tmatmul whose left tile has valid rows (a row tail) leaves "
           "unwritten: to read the whole acc (as a tpush does), put the row tail, valid(...), on the mat tile you "
           "tload instead of the left tile (tload zero-fills the rows past it, so every row of the acc is computed)";
}

/* Elements [r0, r0 + nr) x [c0, c0 + nc) of tile t, row by row: written
   (write = 1), or read, reporting unwritten bytes once per source line and role. */
PTO_K_FN void pto_k__init_region(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, int64_t r0, int64_t c0,
                                 int64_t nr, int64_t nc, int write, const char *role)
{
    int64_t es = pto_k__dsize(t.dtype), i;
    pto_k__uninit u;
    u.n = u.lo = u.hi = 0;
    u.dsrc = NULL;
    if (nr <= 0 || nc <= 0) return;
    for (i = 0; i < nr; i++) {
        int64_t lo = t.offset + ((r0 + i) * t.cols + c0) * es;
        pto_k__init_span(c, ins->seq, t.space, lo, lo + nc * es, write, &u);
    }
    if (u.n == 0 || !pto_k__first_report(c->dev, ins->src, role, 1000 + PTO_K_E_UNINIT)) return;
    pto_k__ierr(c, ins, PTO_K_E_UNINIT,
                "uninitialised read: %s (%s) reads %lld unwritten byte(s) of its %s tile [%d, %d] %s at %s byte "
                "%lld%s%s%s, in %s bytes [%lld, %lld): nothing wrote them since the launch began or the tile's tdecl "
                "(the reference interpreter reads zeros there)%s",
                ins->name ? ins->name : pto_k__op_name(ins->op), pto_k__pipe_name(ins->pipe), (long long)u.n, role, (int)t.rows,
                (int)t.cols, pto_k__dtype_name(t.dtype), pto_k__space_name(t.space), (long long)t.offset,
                u.dsrc ? " (declared at " : "", u.dsrc ? u.dsrc : "", u.dsrc ? ")" : "",
                pto_k__space_name(t.space), (long long)u.lo, (long long)u.hi, pto_k__rowtail_hint(t, r0, nr, es, &u));
}

PTO_K_FN void pto_k__init_read(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, int64_t nr, int64_t nc,
                               const char *role)
{
    pto_k__init_region(c, ins, t, 0, 0, nr, nc, 0, role);
}

PTO_K_FN void pto_k__init_write(pto_k_core *c, const pto_k__ins *ins, pto_k_tile t, int64_t nr, int64_t nc)
{
    pto_k__init_region(c, ins, t, 0, 0, nr, nc, 1, "destination");
}

/* Copies an nr x nc block between row-major arrays (strides in elements);
   equal dtypes copy bits, as the interpreter does. */
PTO_K_FN void pto_k__copy(unsigned char *dst, int dd, int64_t ds, const unsigned char *src, int sd, int64_t ss,
                          int64_t nr, int64_t nc)
{
    int64_t i, j;
    size_t es = (size_t)pto_k__dsize(dd);
    for (i = 0; i < nr && nc > 0; i++) {
        if (dd == sd) {
            memcpy(dst + (size_t)(i * ds) * es, src + (size_t)(i * ss) * es, (size_t)nc * es);
            continue;
        }
        for (j = 0; j < nc; j++) pto_elem_set(dst, dd, i * ds + j, pto_elem_get(src, sd, i * ss + j));
    }
}

/* ---- element arithmetic (the interpreter's rules) ------------------------------ */

/* op: PTO_K__TADD .. PTO_K__TMIN (numerics.h holds the arithmetic) */
PTO_K_FN float pto_k__bin(int op, float a, float b) { return pto_el_bin(op - PTO_K__TADD, a, b); }
/* A binary or broadcast op's element (op in its TADD .. TDIV form): a division as
   the device divides into the destination's dtype (numerics.h). */
PTO_K_FN float pto_k__div_or(int op, int ddt, float a, float b)
{
    return pto_el_bin_into(op - PTO_K__TADD, ddt, a, b);
}

/* op: PTO_K__TEXP .. PTO_K__TRELU */
PTO_K_FN float pto_k__un(int op, float x) { return pto_el_un(op - PTO_K__TEXP, x); }

/* ---- instruction classes ------------------------------------------------------ */

#define PTO_K__M(s) (1u << (s))

PTO_K_FN void pto_k__x_load(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d;
    pto_k_gm *g = ins->g;
    pto_k__check k;
    int64_t bytes;
    if (!pto_k__tile_ok(c, ins, d, PTO_K__M(PTO_K_VEC) | PTO_K__M(PTO_K_MAT), "destination")) return;
    if (pto_k__nowhere(c, g)) {   /* a dropped load still fills the tile (zeros): no uninitialised read follows */
        pto_k__init_write(c, ins, d, d.rows, d.cols);
        memset(pto_k__tptr(c, d), 0, (size_t)pto_k__tbytes(d));
        return;
    }
    if (!pto_k__window_ok(c, ins, g, ins->r, ins->col, d.valid_r, d.valid_c)) {
        /* reported: the tile counts as filled (zeros), so no uninitialised read follows from it (review28 L1) */
        pto_k__init_write(c, ins, d, d.rows, d.cols);
        memset(pto_k__tptr(c, d), 0, (size_t)pto_k__tbytes(d));
        return;
    }
    pto_k__begin(&k, c, ins, PTO_K_PIPE_MTE2);
    if (d.valid_r > 0 && d.valid_c > 0) pto_k__gacc(&k, g, ins->r, ins->col, d.valid_r, d.valid_c, PTO_K__RD);
    pto_k__gm_init_read(c, ins, g, ins->r, ins->col, d.valid_r, d.valid_c);
    pto_k__tacc(&k, d, 0, pto_k__tbytes(d), PTO_K__WR);
    pto_k__init_write(c, ins, d, d.rows, d.cols);
    memset(pto_k__tptr(c, d), 0, (size_t)pto_k__tbytes(d));
    if (d.valid_r > 0 && d.valid_c > 0)
        pto_k__copy(pto_k__tptr(c, d), d.dtype, d.cols,
                    (unsigned char *)g->data + (size_t)((ins->r * g->cols + ins->col) * pto_k__dsize(g->dtype)),
                    g->dtype, g->cols, d.valid_r, d.valid_c);
    bytes = d.valid_r * d.valid_c * pto_k__dsize(g->dtype);
    pto_k__timed(c, PTO_K_PIPE_MTE2, ins->disp,
                 d.space == PTO_K_VEC ? pto_k__bw_cost((double)bytes + 31334.4, 143.36) : pto_k__bw_cost((double)bytes, 78.35),
                 "tload", ins->src);
}

/* Notes the elements of a GM window as stored to: one byte per element,
   allocated on the first store, so that the host harness can tell an output
   the kernel left partly unwritten (which the reference, leaving the same
   elements alone, cannot). A byte, not a bit: a row is one memset. */
PTO_K_FN void pto_k__mark_written(pto_k_core *c, pto_k_gm *g, int64_t r, int64_t col, int64_t vr, int64_t vc)
{
    int64_t i;
    if (!g->written) {
        g->written = (unsigned char *)calloc((size_t)(g->rows * g->cols > 0 ? g->rows * g->cols : 1), 1);
        if (!g->written) {
            c->dev->oom = 1;
            return;
        }
    }
    for (i = 0; i < vr; i++) memset(g->written + (r + i) * g->cols + col, 1, (size_t)vc);
}

PTO_K_FN void pto_k__x_store(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile a = ins->a;
    pto_k_gm *g = ins->g;
    pto_k__check k;
    int pipe = a.space == PTO_K_ACC ? PTO_K_PIPE_FIX : PTO_K_PIPE_MTE3;
    int add = ins->op == PTO_K__TSTORE_ADD;
    int64_t i, j, bytes;
    if (!pto_k__tile_ok(c, ins, a, PTO_K__M(PTO_K_VEC) | PTO_K__M(PTO_K_ACC), "source") ||
        !pto_k__window_ok(c, ins, g, ins->r, ins->col, a.valid_r, a.valid_c))
        return;
    pto_k__begin(&k, c, ins, pipe);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, a.valid_r), PTO_K__RD);
    pto_k__init_read(c, ins, a, a.valid_r, a.valid_c, "source");
    if (a.valid_r > 0 && a.valid_c > 0)
        pto_k__gacc(&k, g, ins->r, ins->col, a.valid_r, a.valid_c, add ? PTO_K__AT : PTO_K__WR);
    if (add) pto_k__gm_init_read(c, ins, g, ins->r, ins->col, a.valid_r, a.valid_c);   /* it adds to them */
    if (a.valid_r > 0 && a.valid_c > 0) pto_k__mark_written(c, g, ins->r, ins->col, a.valid_r, a.valid_c);
    if (a.valid_r > 0 && a.valid_c > 0) {
        unsigned char *base = (unsigned char *)g->data + (size_t)((ins->r * g->cols + ins->col) * pto_k__dsize(g->dtype));
        /* an f32 acc into an f16 / bf16 tensor is the fixpipe's cast (the
           verifier allows only that mismatch): pto_k__copy rounds to nearest
           even as tcvt does; the cost below stays the acc's bytes */
        if (!add)
            pto_k__copy(base, g->dtype, g->cols, pto_k__tptr(c, a), a.dtype, a.cols, a.valid_r, a.valid_c);
        else
            for (i = 0; i < a.valid_r; i++)
                for (j = 0; j < a.valid_c; j++) {
                    float x = pto_elem_get(base, g->dtype, i * g->cols + j);
                    float y = pto_elem_get(pto_k__tptr(c, a), a.dtype, i * a.cols + j);
                    float s = x + y;
                    pto_elem_set(base, g->dtype, i * g->cols + j, pto_nan_canon(s));
                }
    }
    bytes = a.valid_r * a.valid_c * pto_k__dsize(a.dtype);
    pto_k__timed(c, pipe, ins->disp, pto_k__bw_cost((double)bytes, pipe == PTO_K_PIPE_FIX ? 40.63 : 109.12),
                 pto_k__op_name(ins->op), ins->src);
}

/* Elementwise ops, fills, tcvt and vec->vec tmov over d's valid region. */
/* Bytes per element that a map op's repeats step over: the destination's,
   but a tcvt's repeat holds 256 bytes of its WIDER side (pto-isa's
   TCVT_IMPL: elementsPerRepeat = 256 / max(sizeof dst, sizeof src)), so a
   narrowing f32 -> f16 takes as many repeats as the f32 source fills. */
PTO_K_FN int64_t pto_k__map_width(const pto_k__ins *ins)
{
    int64_t w = pto_k__dsize(ins->d.dtype);
    if (ins->op == PTO_K__TCVT && pto_k__dsize(ins->a.dtype) > w) w = pto_k__dsize(ins->a.dtype);
    return w;
}

PTO_K_FN void pto_k__x_map(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a, b = ins->b;
    int op = ins->op;
    int fill = op == PTO_K__TEXPANDS, bin = op >= PTO_K__TADD && op <= PTO_K__TMIN;
    int bins = op >= PTO_K__TADDS && op <= PTO_K__TMINS;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    float sc = pto_scalar_as(d.dtype, ins->s);   /* as the device takes it: the tile's dtype */
    pto_k__check k;
    int64_t r, col;
    unsigned char *dp, *ap = NULL, *bp = NULL;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination")) return;
    if (!fill && (!pto_k__tile_ok(c, ins, a, vm, "source") || !pto_k__same_shape(c, ins, a, d.rows, d.cols, "source")))
        return;
    if (bin && (!pto_k__tile_ok(c, ins, b, vm, "second source") ||
                !pto_k__same_shape(c, ins, b, d.rows, d.cols, "second source")))
        return;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    if (!fill) pto_k__tacc(&k, a, 0, pto_k__vspan(a, d.valid_r), PTO_K__RD);
    if (bin) pto_k__tacc(&k, b, 0, pto_k__vspan(b, d.valid_r), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    if (!fill) pto_k__init_read(c, ins, a, d.valid_r, d.valid_c, "source");
    if (bin) pto_k__init_read(c, ins, b, d.valid_r, d.valid_c, "second source");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    dp = pto_k__tptr(c, d);
    if (!fill) ap = pto_k__tptr(c, a);
    if (bin) bp = pto_k__tptr(c, b);
    if (op == PTO_K__TMOV && d.dtype == a.dtype) /* copies bits (i32 above 2^24), as the interpreter does */
        pto_k__copy(dp, d.dtype, d.cols, ap, a.dtype, a.cols, d.valid_r, d.valid_c);
    else if (pto_el_int_op(d.dtype, fill ? -100 : bin ? op - PTO_K__TADD : bins ? op - PTO_K__TADDS
                                    : op >= PTO_K__TEXP && op <= PTO_K__TRELU ? -1 - (op - PTO_K__TEXP) : -50)
             && (fill || a.dtype == d.dtype) && (!bin || b.dtype == d.dtype)) {
        /* an integer tile: exact integer arithmetic, as the interpreter (numerics.h) */
        int64_t si = pto_scalar_asi(d.dtype, ins->s);
        for (r = 0; r < d.valid_r; r++)
            for (col = 0; col < d.valid_c; col++) {
                int64_t i = r * d.cols + col, x = fill ? si : pto_elem_geti(ap, a.dtype, i), y;
                if (bin) y = pto_el_bin_i(op - PTO_K__TADD, x, pto_elem_geti(bp, b.dtype, i));
                else if (bins) y = pto_el_bin_i(op - PTO_K__TADDS, x, si);
                else if (!fill) y = pto_el_un_i(op - PTO_K__TEXP, x);
                else y = x;
                pto_elem_seti(dp, d.dtype, i, y);
            }
    } else for (r = 0; r < d.valid_r; r++)
        for (col = 0; col < d.valid_c; col++) {
            int64_t i = r * d.cols + col;
            float x = fill ? sc : pto_elem_get(ap, a.dtype, i), y;
            if (bin) y = pto_k__div_or(op, d.dtype, x, pto_elem_get(bp, b.dtype, i));
            else if (op == PTO_K__TDIVS) y = pto_el_div(d.dtype, x, sc, 1);
            else if (bins) y = pto_k__bin(op - (PTO_K__TADDS - PTO_K__TADD), x, sc);
            else if (op >= PTO_K__TEXP && op <= PTO_K__TRELU) y = pto_k__un(op, x);
            else y = x;
            if (op == PTO_K__TCVT) pto_cvt_set(dp, d.dtype, a.dtype, i, y);
            else pto_elem_set(dp, d.dtype, i, y);
        }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__vec_cost(op, d.valid_r * d.valid_c * pto_k__map_width(ins)),
                 pto_k__op_name(op), ins->src);
}

PTO_K_FN void pto_k__x_rowred(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    pto_k__check k;
    int64_t r, col, n;
    int eop = ins->op == PTO_K__TROWSUM ? PTO_EL_ADD : ins->op == PTO_K__TROWMAX ? PTO_EL_MAX : PTO_EL_MIN;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__same_shape(c, ins, d, d.rows > a.rows ? d.rows : a.rows, 1, "destination"))
        return;
    if (d.rows > a.rows && d.valid_r != a.valid_r) {
        /* a d taller than a reduces a's valid rows, which must be d's (pto-isa's TRowReduceCheck) */
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: destination has %d valid rows, source %d; a row reduction into a "
                    "taller column must have its source's valid rows", pto_k__op_name(ins->op), (int)d.valid_r,
                    (int)a.valid_r);
        return;
    }
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, d.valid_c > 0 ? pto_k__vspan(a, d.valid_r) : 0, PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    n = a.valid_c;
    if (d.valid_c > 0) {
        pto_k__init_read(c, ins, a, d.valid_r, n, "source");
        pto_k__init_write(c, ins, d, d.valid_r, 1);
    }
    if (pto_el_int_op(d.dtype, eop) && a.dtype == d.dtype) {
        /* an integer tile: exact, as the interpreter (numerics.h) */
        for (r = 0; r < d.valid_r && d.valid_c > 0; r++)
            pto_elem_seti(pto_k__tptr(c, d), d.dtype, r, pto_el_red_i(eop, pto_k__tptr(c, a), a.dtype, r * a.cols, 1, n));
    } else for (r = 0; r < d.valid_r && d.valid_c > 0; r++) {
        const unsigned char *row = pto_k__tptr(c, a);
        int64_t base = r * a.cols;
        float acc;
        if (ins->op == PTO_K__TROWSUM) {
            acc = 0.0f;
            for (col = 0; col < n; col++) acc = acc + pto_elem_get(row, a.dtype, base + col);
            acc = pto_nan_canon(acc);
        } else if (n == 0) {
            acc = ins->op == PTO_K__TROWMAX ? -INFINITY : INFINITY;
        } else {
            acc = pto_elem_get(row, a.dtype, base);
            for (col = 1; col < n; col++)
                acc = pto_k__bin(ins->op == PTO_K__TROWMAX ? PTO_K__TMAX : PTO_K__TMIN, acc,
                                 pto_elem_get(row, a.dtype, base + col));
        }
        pto_elem_set(pto_k__tptr(c, d), d.dtype, r, acc);
    }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__vec_cost(ins->op, d.valid_r * n * pto_k__dsize(a.dtype)),
                 pto_k__op_name(ins->op), ins->src);
}

PTO_K_FN void pto_k__x_rowexp(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a, v = ins->b;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    int op = PTO_K__TADD + (ins->op - PTO_K__TROWEXPANDADD);
    pto_k__check k;
    int64_t r, col;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__tile_ok(c, ins, v, vm, "row vector") || !pto_k__same_shape(c, ins, a, d.rows, d.cols, "source") ||
        !pto_k__same_shape(c, ins, v, d.rows, 1, "row vector"))
        return;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, d.valid_r), PTO_K__RD);
    pto_k__tacc(&k, v, 0, d.valid_c > 0 ? (int64_t)d.valid_r * pto_k__dsize(v.dtype) : 0, PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    pto_k__init_read(c, ins, a, d.valid_r, d.valid_c, "source");
    if (d.valid_c > 0) pto_k__init_read(c, ins, v, d.valid_r, 1, "row vector");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    if (pto_el_int_op(d.dtype, op - PTO_K__TADD) && a.dtype == d.dtype && v.dtype == d.dtype) {
        /* an integer tile: exact, as the interpreter (numerics.h) */
        for (r = 0; r < d.valid_r; r++)
            for (col = 0; col < d.valid_c; col++) {
                int64_t i = r * d.cols + col, y = pto_elem_geti(pto_k__tptr(c, v), v.dtype, r);
                pto_elem_seti(pto_k__tptr(c, d), d.dtype, i,
                              pto_el_bin_i(op - PTO_K__TADD, pto_elem_geti(pto_k__tptr(c, a), a.dtype, i), y));
            }
    } else for (r = 0; r < d.valid_r; r++) {
        float y = pto_elem_get(pto_k__tptr(c, v), v.dtype, r);
        for (col = 0; col < d.valid_c; col++) {
            int64_t i = r * d.cols + col;
            pto_elem_set(pto_k__tptr(c, d), d.dtype, i, pto_k__div_or(op, d.dtype, pto_elem_get(pto_k__tptr(c, a), a.dtype, i), y));
        }
    }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__vec_cost(ins->op, d.valid_r * d.valid_c * pto_k__dsize(d.dtype)),
                 pto_k__op_name(ins->op), ins->src);
}

/* tcolsum / tcolmax / tcolmin d, a: d is [1, C]; each valid column c of d
   reduces a[0 .. a.valid_r, c] top to bottom (the interpreter's order). */
PTO_K_FN void pto_k__x_colred(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    pto_k__check k;
    int64_t r, col, n, run;
    int eop = ins->op == PTO_K__TCOLSUM ? PTO_EL_ADD : ins->op == PTO_K__TCOLMAX ? PTO_EL_MAX : PTO_EL_MIN;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__same_shape(c, ins, d, 1, a.cols, "destination"))
        return;
    if (d.valid_c != a.valid_c) {   /* pto-isa asserts it (review28 H1: a launch-time region) */
        pto_k__ierr(c, ins, PTO_K_E_BOUNDS, "%s: the destination has %lld valid cols but the source has %lld: a column "
                    "reduction's result has exactly its source's valid columns (pto-isa asserts it)",
                    pto_k__op_name(ins->op), (long long)d.valid_c, (long long)a.valid_c);
        pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);   /* no uninitialised read follows from it */
        return;
    }
    run = d.valid_r > 0 && d.valid_c > 0;
    n = run ? a.valid_r : 0;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, n * a.cols * pto_k__dsize(a.dtype), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    if (run) {
        pto_k__init_read(c, ins, a, n, d.valid_c, "source");
        pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    }
    if (pto_el_int_op(d.dtype, eop) && a.dtype == d.dtype) {
        /* an integer tile: exact, as the interpreter (numerics.h) */
        for (col = 0; col < d.valid_c && run; col++)
            pto_elem_seti(pto_k__tptr(c, d), d.dtype, col, pto_el_red_i(eop, pto_k__tptr(c, a), a.dtype, col, a.cols, n));
    } else for (col = 0; col < d.valid_c && run; col++) {
        const unsigned char *src = pto_k__tptr(c, a);
        float acc;
        if (n == 0) {
            acc = ins->op == PTO_K__TCOLSUM ? 0.0f : ins->op == PTO_K__TCOLMAX ? -INFINITY : INFINITY;
        } else {
            acc = pto_elem_get(src, a.dtype, col);
            for (r = 1; r < n; r++) {
                float x = pto_elem_get(src, a.dtype, r * a.cols + col);
                acc = ins->op == PTO_K__TCOLSUM ? acc + x
                                                : pto_k__bin(ins->op == PTO_K__TCOLMAX ? PTO_K__TMAX : PTO_K__TMIN, acc, x);
            }
            if (ins->op == PTO_K__TCOLSUM) acc = pto_nan_canon(acc);
        }
        pto_elem_set(pto_k__tptr(c, d), d.dtype, col, acc);
    }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__colred_cost(ins->op, n, d.valid_c * pto_k__dsize(a.dtype)),
                 pto_k__op_name(ins->op), ins->src);
}

/* ttrans d, a: d[c, r] = a[r, c] over a's valid region, the element bits
   as they are; d's valid region must be a's transposed (pto-isa reads
   only src's: the verifier checks what it knows, a launch-time region
   reaches here). */
PTO_K_FN void pto_k__x_trans(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    pto_k__check k;
    int64_t r, col, es = pto_k__dsize(a.dtype);
    const unsigned char *sp;
    unsigned char *dp;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__same_shape(c, ins, d, a.cols, a.rows, "destination"))
        return;
    if (d.dtype != a.dtype || d.valid_r != a.valid_c || d.valid_c != a.valid_r) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "ttrans: the destination (%s, valid [%lld, %lld]) is not the source (%s, valid "
                    "[%lld, %lld]) transposed", pto_k__dtype_name(d.dtype), (long long)d.valid_r,
                    (long long)d.valid_c, pto_k__dtype_name(a.dtype), (long long)a.valid_r, (long long)a.valid_c);
        pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);   /* no uninitialised read follows from it */
        return;
    }
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, a.valid_r), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    pto_k__init_read(c, ins, a, a.valid_r, a.valid_c, "source");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    sp = pto_k__tptr(c, a);
    dp = pto_k__tptr(c, d);
    for (r = 0; r < a.valid_r; r++)
        for (col = 0; col < a.valid_c; col++)
            memcpy(dp + (col * d.cols + r) * es, sp + (r * a.cols + col) * es, (size_t)es);
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, 2 * pto_k__vec_cost(PTO_K__TTRANS, a.valid_r * a.valid_c * es), "ttrans",
                 ins->src);
}

/* tcolexpand{add,sub,mul,div} d, a, v: d[r, c] = a[r, c] op v[0, c] over d's
   valid region; v is [1, C] (the broadcast row). */
PTO_K_FN void pto_k__x_colexp(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a, v = ins->b;
    unsigned vm = PTO_K__M(PTO_K_VEC);
    int op = PTO_K__TADD + (ins->op - PTO_K__TCOLEXPANDADD);
    pto_k__check k;
    int64_t r, col;
    if (!pto_k__tile_ok(c, ins, d, vm, "destination") || !pto_k__tile_ok(c, ins, a, vm, "source") ||
        !pto_k__tile_ok(c, ins, v, vm, "broadcast row") || !pto_k__same_shape(c, ins, a, d.rows, d.cols, "source") ||
        !pto_k__same_shape(c, ins, v, 1, d.cols, "broadcast row"))
        return;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_V);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, d.valid_r), PTO_K__RD);
    pto_k__tacc(&k, v, 0, d.valid_r > 0 && d.valid_c > 0 ? d.valid_c * pto_k__dsize(v.dtype) : 0, PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    pto_k__init_read(c, ins, a, d.valid_r, d.valid_c, "source");
    if (d.valid_r > 0) pto_k__init_read(c, ins, v, 1, d.valid_c, "broadcast row");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    if (pto_el_int_op(d.dtype, op - PTO_K__TADD) && a.dtype == d.dtype && v.dtype == d.dtype) {
        /* an integer tile: exact, as the interpreter (numerics.h) */
        for (r = 0; r < d.valid_r; r++)
            for (col = 0; col < d.valid_c; col++) {
                int64_t i = r * d.cols + col, y = pto_elem_geti(pto_k__tptr(c, v), v.dtype, col);
                pto_elem_seti(pto_k__tptr(c, d), d.dtype, i,
                              pto_el_bin_i(op - PTO_K__TADD, pto_elem_geti(pto_k__tptr(c, a), a.dtype, i), y));
            }
    } else for (r = 0; r < d.valid_r; r++)
        for (col = 0; col < d.valid_c; col++) {
            int64_t i = r * d.cols + col;
            float y = pto_elem_get(pto_k__tptr(c, v), v.dtype, col);
            pto_elem_set(pto_k__tptr(c, d), d.dtype, i, pto_k__div_or(op, d.dtype, pto_elem_get(pto_k__tptr(c, a), a.dtype, i), y));
        }
    pto_k__timed(c, PTO_K_PIPE_V, ins->disp, pto_k__vec_cost(ins->op, d.valid_r * d.valid_c * pto_k__dsize(d.dtype)),
                 pto_k__op_name(ins->op), ins->src);
}

/* The pipe of tmov from its spaces (hardware.md section 3), or -1. */
PTO_K_FN int pto_k__mov_pipe(int ds, int as)
{
    if (ds == PTO_K_VEC && as == PTO_K_VEC) return PTO_K_PIPE_V;
    if ((ds == PTO_K_LEFT || ds == PTO_K_RIGHT) && as == PTO_K_MAT) return PTO_K_PIPE_MTE1;
    if ((ds == PTO_K_VEC || ds == PTO_K_MAT) && as == PTO_K_ACC) return PTO_K_PIPE_FIX;
    return -1;
}

PTO_K_FN int64_t pto_k__mte1_cost(int space, int64_t bytes)
{
    return pto_k__bw_cost((double)bytes, space == PTO_K_LEFT ? 255.96 : 127.69);
}

PTO_K_FN void pto_k__x_mov(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    int pipe = pto_k__mov_pipe(d.space, a.space);
    pto_k__check k;
    int64_t bytes, cost;
    if (pipe < 0) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "tmov: %s -> %s is not a move the hardware has", pto_k__space_name(a.space),
                    pto_k__space_name(d.space));
        return;
    }
    if (pipe == PTO_K_PIPE_V) {
        pto_k__x_map(c, ins);
        return;
    }
    if (!pto_k__tile_ok(c, ins, d, PTO_K__M(d.space), "destination") ||
        !pto_k__tile_ok(c, ins, a, PTO_K__M(a.space), "source") || !pto_k__same_shape(c, ins, a, d.rows, d.cols, "source"))
        return;
    pto_k__begin(&k, c, ins, pipe);
    pto_k__tacc(&k, a, 0, pto_k__vspan(a, d.valid_r), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__vspan(d, d.valid_r), PTO_K__WR);
    pto_k__init_read(c, ins, a, d.valid_r, d.valid_c, "source");
    pto_k__init_write(c, ins, d, d.valid_r, d.valid_c);
    pto_k__copy(pto_k__tptr(c, d), d.dtype, d.cols, pto_k__tptr(c, a), a.dtype, a.cols, d.valid_r, d.valid_c);
    bytes = d.valid_r * d.valid_c * pto_k__dsize(a.dtype);
    cost = pipe == PTO_K_PIPE_MTE1 ? pto_k__mte1_cost(d.space, bytes) : pto_k__bw_cost((double)bytes, 40.63);
    pto_k__timed(c, pipe, ins->disp, cost, "tmov", ins->src);
}

PTO_K_FN void pto_k__x_extract(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a;
    int64_t r = ins->r, col = ins->col, es;
    pto_k__check k;
    if (!pto_k__tile_ok(c, ins, d, PTO_K__M(PTO_K_LEFT) | PTO_K__M(PTO_K_RIGHT), "destination") ||
        !pto_k__tile_ok(c, ins, a, PTO_K__M(PTO_K_MAT), "source"))
        return;
    if (r < 0 || col < 0 || r > a.rows - d.rows || col > a.cols - d.cols) {
        pto_k__ierr(c, ins, PTO_K_E_BOUNDS, "textract: window [%lld, %lld] of shape [%d, %d] is outside the source tile of shape [%d, %d]",
                    (long long)r, (long long)col, (int)d.rows, (int)d.cols, (int)a.rows, (int)a.cols);
        return;
    }
    es = pto_k__dsize(a.dtype);
    /* TEXTRACT copies whole 16-row x 32-byte fractals out of the mat tile's NZ layout: an offset
       inside a fractal (a launch-time step the verifier cannot see) picks other elements on the
       device than this row-major copy would */
    if (r % 16 != 0 || (col * es) % 32 != 0) {
        pto_k__ierr(c, ins, PTO_K_E_ALIGN, "textract: offset [%lld, %lld] is not whole fractals of the source tile: rows must be a multiple of 16 and cols of %d",
                    (long long)r, (long long)col, (int)(32 / es));
        return;
    }
    pto_k__begin(&k, c, ins, PTO_K_PIPE_MTE1);
    pto_k__tacc(&k, a, (r * a.cols + col) * es, ((r + d.rows - 1) * a.cols + col + d.cols) * es, PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__tbytes(d), PTO_K__WR);
    pto_k__init_region(c, ins, a, r, col, d.rows, d.cols, 0, "source");
    pto_k__init_write(c, ins, d, d.rows, d.cols);
    pto_k__copy(pto_k__tptr(c, d), d.dtype, d.cols, pto_k__tptr(c, a) + (size_t)((r * a.cols + col) * es), a.dtype,
                a.cols, d.rows, d.cols);
    pto_k__timed(c, PTO_K_PIPE_MTE1, ins->disp, pto_k__mte1_cost(d.space, pto_k__tbytes(d)), "textract", ins->src);
}

PTO_K_FN void pto_k__x_matmul(pto_k_core *c, const pto_k__ins *ins)
{
    pto_k_tile d = ins->d, a = ins->a, b = ins->b;
    int acc = ins->op == PTO_K__TMATMUL_ACC, which;
    int64_t M, N, K, i, j, kk, rate;
    pto_k__check k;
    if (!pto_k__tile_ok(c, ins, d, PTO_K__M(PTO_K_ACC), "accumulator") ||
        !pto_k__tile_ok(c, ins, a, PTO_K__M(PTO_K_LEFT), "left") || !pto_k__tile_ok(c, ins, b, PTO_K__M(PTO_K_RIGHT), "right") ||
        !pto_k__same_shape(c, ins, a, d.rows, a.cols, "left") || !pto_k__same_shape(c, ins, b, a.cols, d.cols, "right"))
        return;
    /* pto-isa's TMATMUL: m, k, n are a's valid rows and cols and b's valid
       cols, and the device asserts each in 1..4095 (CheckDynamicMad): an
       empty valid region is refused here as there, not computed as a no-op;
       the rest of d keeps its bytes (and their written state) */
    if ((which = pto_mm_bad_extent(a.valid_r, a.valid_c, b.valid_c)) >= 0) {
        static const char *const what[3] = {"m (the left tile's valid rows)", "k (the left tile's valid columns)",
                                             "n (the right tile's valid columns)"};
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: %s is %lld; pto-isa's TMATMUL takes m, k and n in 1..4095 (the device asserts it)",
                    pto_k__op_name(ins->op), what[which],
                    (long long)(which == 0 ? a.valid_r : which == 1 ? a.valid_c : b.valid_c));
        return;
    }
    M = a.valid_r < d.rows ? a.valid_r : d.rows;
    K = a.valid_c < b.rows ? a.valid_c : b.rows;
    N = b.valid_c < d.cols ? b.valid_c : d.cols;
    if (M < 0) M = 0;
    if (K < 0) K = 0;
    if (N < 0) N = 0;
    pto_k__begin(&k, c, ins, PTO_K_PIPE_M);
    pto_k__tacc(&k, a, 0, pto_k__tbytes(a), PTO_K__RD);
    pto_k__tacc(&k, b, 0, pto_k__tbytes(b), PTO_K__RD);
    if (acc) pto_k__tacc(&k, d, 0, pto_k__tbytes(d), PTO_K__RD);
    pto_k__tacc(&k, d, 0, pto_k__tbytes(d), PTO_K__WR);
    pto_k__init_read(c, ins, a, M, K, "left");
    pto_k__init_read(c, ins, b, K, N, "right");
    if (acc) pto_k__init_read(c, ins, d, M, N, "accumulator");
    pto_k__init_write(c, ins, d, M, N);
    if (a.dtype == PTO_K_I8 && b.dtype == PTO_K_I8 && d.dtype == PTO_K_I32) {
        /* integers, exactly, as the interpreter (numerics.h) */
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++)
                pto_elem_seti(pto_k__tptr(c, d), d.dtype, i * d.cols + j,
                              pto_el_mm_i8(pto_k__tptr(c, a), a.cols, pto_k__tptr(c, b), b.cols, i, j, K,
                                           acc ? pto_elem_geti(pto_k__tptr(c, d), d.dtype, i * d.cols + j) : 0));
    } else for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            float s = acc ? pto_elem_get(pto_k__tptr(c, d), d.dtype, i * d.cols + j) : 0.0f;
            for (kk = 0; kk < K; kk++) {
                float p = pto_elem_get(pto_k__tptr(c, a), a.dtype, i * a.cols + kk) *
                          pto_elem_get(pto_k__tptr(c, b), b.dtype, kk * b.cols + j);
                s = s + p;
            }
            pto_elem_set(pto_k__tptr(c, d), d.dtype, i * d.cols + j, pto_nan_canon(s));
        }
    rate = a.dtype == PTO_K_F32 ? 1024 : a.dtype == PTO_K_I8 ? 8192 : 4096;
    /* the cube works in whole 16-row, 16-column fractals */
    pto_k__timed(c, PTO_K_PIPE_M, ins->disp, ((M + 15) / 16 * 16 * ((N + 15) / 16 * 16) * K + rate - 1) / rate + 6,
                 pto_k__op_name(ins->op), ins->src);
}

/* ---- flags and barriers inside a core ------------------------------------------ */

PTO_K_FN int pto_k__flag_args_ok(pto_k_core *c, const pto_k__ins *ins)
{
    if (ins->p0 < 0 || ins->p0 >= PTO_K_PIPE_ALL || ins->p1 < 0 || ins->p1 >= PTO_K_PIPE_ALL || ins->p0 == ins->p1 ||
        ins->id < 0 || ins->id >= PTO_K_NFLAG) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s(%s, %s, %d): needs two different pipes S..FIX and an id in 0..7",
                    pto_k__op_name(ins->op), pto_k__pipe_name(ins->p0), pto_k__pipe_name(ins->p1), ins->id);
        return 0;
    }
    if (ins->p0 == PTO_K_PIPE_M && ins->p1 == PTO_K_PIPE_FIX && ins->id > 2) {
        /* legal in the ISA, but a hang on a device (hardware.md section 4):
           stricter than the hardware, as for every flag misuse. Reported,
           then run as written: dropping the flag would add a race report
           that blames a missing set_flag the author wrote (review16) */
        pto_k__ierr(c, ins, PTO_K_E_DEADLOCK, "%s(M, FIX, %d): ids 3..7 of the M -> FIX pair deadlocked on a device "
                    "(hardware.md section 4): use an id in 0..2, as the sync pass does",
                    pto_k__op_name(ins->op), ins->id);
    }
    return 1;
}

PTO_K_FN void pto_k__x_set(pto_k_core *c, const pto_k__ins *ins)
{
    int p = ins->p0, q = ins->p1, id = ins->id;
    pto_k__sync *s = &c->flag[p][q][id];
    if (c->flag_set[p][q][id]) {
        pto_k__ierr(c, ins, PTO_K_E_DOUBLE_SET,
                    "double set: set_flag(%s, %s, %d) while id %d of %s -> %s is still set by \"%s\" (no wait_flag consumed it)",
                    pto_k__pipe_name(p), pto_k__pipe_name(q), id, id, pto_k__pipe_name(p), pto_k__pipe_name(q), s->src);
        return;
    }
    /* Still set in time, though not in program order: the set's pipe p may
       run ahead of the consumer q, so unless a chain of flags orders the
       latest wait of this id (on q) before this set, the set can fire while
       the previous one is pending. The event is binary: a device merges the
       two sets and the second wait hangs. Vector clocks, like the race
       detector: whatever the cycle model's timing. */
    if (c->flag_waited[p][q][id] && c->vc[p][c->index * 8 + q] < c->flag_waited[p][q][id] &&
        pto_k__first_report(c->dev, ins->src, c->flag_wsrc[p][q][id], PTO_K_E_DOUBLE_SET))
        pto_k__ierr(c, ins, PTO_K_E_DOUBLE_SET,
                    "unordered reuse: set_flag(%s, %s, %d) is not ordered after the wait_flag(%s, %s, %d) at \"%s\" "
                    "that consumes its previous set (%s may run ahead of %s): on a device both sets can be pending "
                    "at once and one signal is lost (a hang); rotate the ids or order that wait first",
                    pto_k__pipe_name(p), pto_k__pipe_name(q), id, pto_k__pipe_name(p), pto_k__pipe_name(q), id,
                    c->flag_wsrc[p][q][id] ? c->flag_wsrc[p][q][id] : "?", pto_k__pipe_name(p), pto_k__pipe_name(q));
    c->flag_set[p][q][id] = 1;
    if (s->vc) memset(s->vc, 0, sizeof(uint32_t) * (size_t)c->dev->ngp);
    s->time = 0;
    pto_k__publish(c, p, s, c->free_at[p] > ins->disp ? c->free_at[p] : ins->disp, ins->src);
}

PTO_K_FN void pto_k__x_wait(pto_k_core *c, const pto_k__ins *ins)
{
    int p = ins->p0, q = ins->p1, id = ins->id;
    pto_k__sync *s = &c->flag[p][q][id];
    c->flag_set[p][q][id] = 0;
    pto_k__vc_join(c->dev, c->vc[q], s->vc);
    /* a tick of q's clock of its own: q's later sets publish it, so the next
       set of this id can tell whether this wait is known to be past */
    c->flag_waited[p][q][id] = ++c->clk[q];
    c->flag_wsrc[p][q][id] = ins->src;
    c->flag_wpclk[p][q][id] = c->clk[p];
    pto_k__stall(c, q, p, ins->disp, s->time, ins->src);
    /* a wait on S stalls the scalar unit: nothing after it dispatches before
       the set fired (in order, only S is credited with it: the sync pass
       orders the other pipes with flags of their own) */
    if (q == PTO_K_PIPE_S && c->disp < c->free_at[q]) c->disp = c->free_at[q];
}

PTO_K_FN void pto_k__x_barrier(pto_k_core *c, const pto_k__ins *ins)
{
    int p = ins->p0;
    if (p == PTO_K_PIPE_ALL) {
        int i;
        int64_t t = c->disp;
        uint32_t *j = c->vc[PTO_K_PIPE_ALL]; /* scratch */
        memset(j, 0, sizeof(uint32_t) * (size_t)c->dev->ngp);
        for (i = 0; i < PTO_K_PIPE_ALL; i++) {
            pto_k__vc_join(c->dev, j, c->vc[i]);
            if (j[c->index * 8 + i] < c->clk[i]) j[c->index * 8 + i] = c->clk[i];
            if (c->free_at[i] > t) t = c->free_at[i];
        }
        for (i = 0; i < PTO_K_PIPE_ALL; i++) {
            memcpy(c->vc[i], j, sizeof(uint32_t) * (size_t)c->dev->ngp);
            /* a pipe that had its work queued before the barrier waits for the others */
            pto_k__waited(c, i, PTO_K_PIPE_ALL, t - (c->free_at[i] > ins->disp ? c->free_at[i] : ins->disp), ins->src);
            c->free_at[i] = t;
        }
        c->disp = t;
        return;
    }
    c->vc[p][c->index * 8 + p] = c->clk[p];
}

PTO_K_FN void pto_k__exec(pto_k_core *c, const pto_k__ins *ins)
{
    switch (ins->op) {
    case PTO_K__TLOAD: pto_k__x_load(c, ins); break;
    case PTO_K__TSTORE:
    case PTO_K__TSTORE_ADD: pto_k__x_store(c, ins); break;
    case PTO_K__TROWSUM:
    case PTO_K__TROWMAX:
    case PTO_K__TROWMIN: pto_k__x_rowred(c, ins); break;
    case PTO_K__TROWEXPANDADD:
    case PTO_K__TROWEXPANDSUB:
    case PTO_K__TROWEXPANDMUL:
    case PTO_K__TROWEXPANDDIV: pto_k__x_rowexp(c, ins); break;
    case PTO_K__TCOLSUM:
    case PTO_K__TCOLMAX:
    case PTO_K__TCOLMIN: pto_k__x_colred(c, ins); break;
    case PTO_K__TCOLEXPANDADD:
    case PTO_K__TCOLEXPANDSUB:
    case PTO_K__TCOLEXPANDMUL:
    case PTO_K__TCOLEXPANDDIV: pto_k__x_colexp(c, ins); break;
    case PTO_K__TMOV: pto_k__x_mov(c, ins); break;
    case PTO_K__TTRANS: pto_k__x_trans(c, ins); break;
    case PTO_K__TEXTRACT: pto_k__x_extract(c, ins); break;
    case PTO_K__TMATMUL:
    case PTO_K__TMATMUL_ACC: pto_k__x_matmul(c, ins); break;
    case PTO_K__SET_FLAG: pto_k__x_set(c, ins); break;
    case PTO_K__WAIT_FLAG: pto_k__x_wait(c, ins); break;
    case PTO_K__PIPE_BARRIER: pto_k__x_barrier(c, ins); break;
    default: pto_k__x_map(c, ins); break;
    }
}

/* Runs queued instructions of blocked pipes whose waits are now satisfied. */
PTO_K_FN void pto_k__pump(pto_k_core *c)
{
    int progress = 1, p;
    while (progress && c->nblocked) {
        progress = 0;
        for (p = 0; p < PTO_K_PIPE_ALL; p++) {
            pto_k__queue *q = &c->q[p];
            pto_k__ins ins;
            if (q->n == 0) continue;
            ins = q->v[0];
            if (ins.op == PTO_K__WAIT_FLAG && !c->flag_set[ins.p0][ins.p1][ins.id]) continue;
            memmove(q->v, q->v + 1, (size_t)(q->n - 1) * sizeof *q->v);
            q->n--;
            if (q->n == 0) c->nblocked--;
            pto_k__exec(c, &ins);
            progress = 1;
        }
    }
}

PTO_K_FN void pto_k__enqueue(pto_k_core *c, int p, const pto_k__ins *ins)
{
    pto_k__queue *q = &c->q[p];
    int cap = q->cap;
    q->v = (pto_k__ins *)pto_k__grow(c->dev, q->v, &cap, q->n + 1, sizeof *q->v);
    q->cap = cap;
    if (q->n + 1 > cap) return;
    if (q->n == 0) c->nblocked++;
    q->v[q->n++] = *ins;
}

/* The first wait a blocked pipe sits in, for reports. */
PTO_K_FN void pto_k__blocked_desc(pto_k_core *c, int p, char *out, size_t n)
{
    const pto_k__ins *w = &c->q[p].v[0];
    snprintf(out, n, "pipe %s is blocked in wait_flag(%s, %s, %d) at \"%s\"", pto_k__pipe_name(p),
             pto_k__pipe_name(w->p0), pto_k__pipe_name(w->p1), w->id, w->src);
}

/* The report of a scalar stall (pto_k__issue), at the kernel's end
   (complete: the kernel function returned; 0: the launch stopped it, so
   what follows the stall is unknown). The advice to move the wait comes
   only when the set that would release the chain is issued after it. */
PTO_K_FN void pto_k__sstall_end(pto_k_core *c, int complete)
{
    const pto_k__ins *w = &c->sst, *r = &c->sroot;
    const char *src = w->src ? w->src : "?", *rsrc = r->src ? r->src : "?";
    char who[64];
    if (!w->seq) return;
    pto_k__core_name(c, who, sizeof who);
    if (!r->seq)
        pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                   "%s: error: deadlock: wait_flag(%s, S, %d) stalls the scalar unit, which dispatches nothing after it "
                   "until set_flag(%s, S, %d) fires, and none was issued before it%s%s%s (%s)",
                   src, pto_k__pipe_name(w->p0), w->id, pto_k__pipe_name(w->p0), w->id,
                   c->slater ? ": move the wait_flag after its set_flag at \"" : complete ? " or follows it before the "
                   "kernel ends" : " (the launch stopped before the kernel's end)",
                   c->slater ? c->slater : "", c->slater ? "\"" : "", who);
    else if (c->slater || !complete)
        pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                   "%s: error: deadlock: wait_flag(%s, S, %d) stalls the scalar unit, which dispatches nothing after it "
                   "until set_flag(%s, S, %d) fires, and the one issued before it can never run: pipe %s is blocked in "
                   "wait_flag(%s, %s, %d) at \"%s\"%s%s%s (%s)",
                   src, pto_k__pipe_name(w->p0), w->id, pto_k__pipe_name(w->p0), w->id, pto_k__pipe_name(r->pipe),
                   pto_k__pipe_name(r->p0), pto_k__pipe_name(r->p1), r->id, rsrc,
                   c->slater ? ", whose set_flag comes after the stall, at \"" : " (the launch stopped before the "
                   "kernel's end)", c->slater ? c->slater : "", c->slater ? "\": move the wait_flag after that set_flag" : "",
                   who);
    else   /* the root cause: the first blocked wait, whose set never comes */
        pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                   "%s: error: deadlock: wait_flag(%s, %s, %d) can never be satisfied: no set_flag(%s, %s, %d) "
                   "follows it before the kernel ends; the scalar unit stalls behind it in wait_flag(%s, S, %d) at "
                   "\"%s\", whose set_flag at \"%s\" is queued on pipe %s (%s)",
                   rsrc, pto_k__pipe_name(r->p0), pto_k__pipe_name(r->p1), r->id, pto_k__pipe_name(r->p0),
                   pto_k__pipe_name(r->p1), r->id, pto_k__pipe_name(w->p0), w->id, src, c->sset ? c->sset : "?",
                   pto_k__pipe_name(c->sset_pipe), who);
    c->sst.seq = 0;
}

/* Dispatches an instruction from the scalar unit to its pipe. */
PTO_K_FN void pto_k__issue(pto_k_core *c, pto_k__ins *ins)
{
    int p = ins->pipe;
    if (ins->op != PTO_K__SET_FLAG && ins->op != PTO_K__WAIT_FLAG && ins->op != PTO_K__PIPE_BARRIER)
        pto_k__tick(c, ins->src);
    if (c->dead) return;
    ins->disp = c->disp++;
    ins->seq = ++c->seq;
    if (ins->op == PTO_K__PIPE_BARRIER && p == PTO_K_PIPE_ALL && c->nblocked) {
        int i;
        char why[300];
        for (i = 0; i < PTO_K_PIPE_ALL && c->q[i].n == 0; i++) {
        }
        pto_k__blocked_desc(c, i, why, sizeof why);
        pto_k__ierr(c, ins, PTO_K_E_DEADLOCK,
                    "deadlock: pipe_barrier(ALL) can never complete: %s and no set_flag(%s, %s, %d) was issued before the barrier",
                    why, pto_k__pipe_name(c->q[i].v[0].p0), pto_k__pipe_name(c->q[i].v[0].p1), c->q[i].v[0].id);
        c->dead = 1;
        return;
    }
    if (ins->op == PTO_K__WAIT_FLAG && p == PTO_K_PIPE_S && !c->flag_set[ins->p0][ins->p1][ins->id]) {
        /* S is the scalar unit itself: a wait on it dispatches nothing more
           until the set fires, so a set later in program order never comes.
           One already issued sits in a blocked queue that only a later
           dispatch could release (pto_k__pump ran to a fixpoint): the chain
           of waits from there leads to the first blocked one, whose set was
           not issued (review22 L6). Reported at the kernel's end, when it is
           known whether that set comes later in program order. */
        int i, j, k;
        c->sst = *ins;
        c->sroot.seq = 0;
        c->sset = NULL;
        c->slater = NULL;
        for (i = 0; i < PTO_K_PIPE_ALL && !c->sset; i++)
            for (j = 1; j < c->q[i].n; j++) {
                const pto_k__ins *s = &c->q[i].v[j];
                if (s->op != PTO_K__SET_FLAG || s->p0 != ins->p0 || s->p1 != ins->p1 || s->id != ins->id) continue;
                c->sset = s->src ? s->src : "?";
                c->sset_pipe = i;
                c->sroot = c->q[i].v[0];
                break;
            }
        for (k = 0; c->sset && k < PTO_K_PIPE_ALL; k++) {   /* the blocked wait's own set queued behind another */
            int r;
            const pto_k__ins *w = &c->sroot;
            for (r = 0; r < PTO_K_PIPE_ALL; r++) {
                for (j = 1; j < c->q[r].n; j++) {
                    const pto_k__ins *s = &c->q[r].v[j];
                    if (s->op == PTO_K__SET_FLAG && s->p0 == w->p0 && s->p1 == w->p1 && s->id == w->id) break;
                }
                if (j < c->q[r].n) break;
            }
            if (r == PTO_K_PIPE_ALL) break;
            c->sroot = c->q[r].v[0];
        }
        c->dead = 1;
        return;
    }
    if (p >= 0 && p < PTO_K_PIPE_ALL && c->q[p].n > 0) {
        pto_k__enqueue(c, p, ins);
        return;
    }
    if (ins->op == PTO_K__WAIT_FLAG && !c->flag_set[ins->p0][ins->p1][ins->id]) {
        pto_k__enqueue(c, p, ins);
        return;
    }
    pto_k__exec(c, ins);
    if (c->nblocked) pto_k__pump(c);
}

/* A data pipe that a cross-core instruction needs must not be blocked in a
   local wait (the simulator does not model that overlap). */
PTO_K_FN int pto_k__pipe_free(pto_k_core *c, const pto_k__ins *ins, int p)
{
    char why[300];
    if (c->q[p].n == 0) return 1;
    pto_k__blocked_desc(c, p, why, sizeof why);
    pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s is issued while %s (not modelled: satisfy the wait first)",
                ins->src ? "this instruction" : "?", why);
    return 0;
}

/* ---- the API: one function per instruction ------------------------------------- */

PTO_K_FN pto_k_tile pto_k_t(int space, int dtype, int32_t rows, int32_t cols, int64_t valid_r, int64_t valid_c,
                            int64_t offset)
{
    pto_k_tile t;
    t.space = space;
    t.dtype = dtype;
    t.rows = rows;
    t.cols = cols;
    t.valid_r = valid_r;
    t.valid_c = valid_c;
    t.offset = offset;
    return t;
}

PTO_K_FN pto_k__ins pto_k__mk(int op, int pipe, const char *src)
{
    pto_k__ins i;
    memset(&i, 0, sizeof i);
    i.op = op;
    i.pipe = pipe;
    i.src = src ? src : "?";
    return i;
}

PTO_K_FN void pto_k__tt(pto_k_core *c, const char *src, int op, int pipe, pto_k_tile d, pto_k_tile a, pto_k_tile b,
                        double s)
{
    pto_k__ins i = pto_k__mk(op, pipe, src);
    i.d = d;
    i.a = a;
    i.b = b;
    i.s = s;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_tload(pto_k_core *c, const char *src, pto_k_tile d, pto_k_gm *g, int64_t row, int64_t col)
{
    pto_k__ins i = pto_k__mk(PTO_K__TLOAD, PTO_K_PIPE_MTE2, src);
    i.d = d;
    i.g = g;
    i.r = row;
    i.col = col;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k__store(pto_k_core *c, const char *src, int op, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a)
{
    pto_k__ins i = pto_k__mk(op, a.space == PTO_K_ACC ? PTO_K_PIPE_FIX : PTO_K_PIPE_MTE3, src);
    i.a = a;
    i.g = g;
    i.r = row;
    i.col = col;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_tstore(pto_k_core *c, const char *src, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a)
{
    pto_k__store(c, src, PTO_K__TSTORE, g, row, col, a);
}

PTO_K_FN void pto_k_tstore_add(pto_k_core *c, const char *src, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a)
{
    pto_k__store(c, src, PTO_K__TSTORE_ADD, g, row, col, a);
}

#define PTO_K__BIN_API(name, OP) \
    PTO_K_FN void pto_k_##name(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b) \
    { pto_k__tt(c, src, PTO_K__##OP, PTO_K_PIPE_V, d, a, b, 0.0); }
#define PTO_K__BINS_API(name, OP) \
    PTO_K_FN void pto_k_##name(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s) \
    { pto_k__tt(c, src, PTO_K__##OP, PTO_K_PIPE_V, d, a, a, s); }
#define PTO_K__UN_API(name, OP) \
    PTO_K_FN void pto_k_##name(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a) \
    { pto_k__tt(c, src, PTO_K__##OP, PTO_K_PIPE_V, d, a, a, 0.0); }

PTO_K__BIN_API(tadd, TADD)
PTO_K__BIN_API(tsub, TSUB)
PTO_K__BIN_API(tmul, TMUL)
PTO_K__BIN_API(tdiv, TDIV)
PTO_K__BIN_API(tmax, TMAX)
PTO_K__BIN_API(tmin, TMIN)
PTO_K__BINS_API(tadds, TADDS)
PTO_K__BINS_API(tsubs, TSUBS)
PTO_K__BINS_API(tmuls, TMULS)
PTO_K__BINS_API(tdivs, TDIVS)
PTO_K__BINS_API(tmaxs, TMAXS)
PTO_K__BINS_API(tmins, TMINS)
PTO_K__UN_API(texp, TEXP)
PTO_K__UN_API(tlog, TLOG)
PTO_K__UN_API(tsqrt, TSQRT)
PTO_K__UN_API(trsqrt, TRSQRT)
PTO_K__UN_API(trecip, TRECIP)
PTO_K__UN_API(tabs, TABS)
PTO_K__UN_API(tneg, TNEG)
PTO_K__UN_API(trelu, TRELU)
PTO_K__UN_API(trowsum, TROWSUM)
PTO_K__UN_API(trowmax, TROWMAX)
PTO_K__UN_API(trowmin, TROWMIN)
PTO_K__BIN_API(trowexpandadd, TROWEXPANDADD)
PTO_K__BIN_API(trowexpandsub, TROWEXPANDSUB)
PTO_K__BIN_API(trowexpandmul, TROWEXPANDMUL)
PTO_K__BIN_API(trowexpanddiv, TROWEXPANDDIV)
PTO_K__UN_API(tcolsum, TCOLSUM)
PTO_K__UN_API(tcolmax, TCOLMAX)
PTO_K__UN_API(tcolmin, TCOLMIN)
PTO_K__BIN_API(tcolexpandadd, TCOLEXPANDADD)
PTO_K__BIN_API(tcolexpandsub, TCOLEXPANDSUB)
PTO_K__BIN_API(tcolexpandmul, TCOLEXPANDMUL)
PTO_K__BIN_API(tcolexpanddiv, TCOLEXPANDDIV)
PTO_K__UN_API(tcvt, TCVT)
PTO_K__UN_API(ttrans, TTRANS)

PTO_K_FN void pto_k_texpands(pto_k_core *c, const char *src, pto_k_tile d, double s)
{
    pto_k__tt(c, src, PTO_K__TEXPANDS, PTO_K_PIPE_V, d, d, d, s);
}

PTO_K_FN void pto_k_tmov(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a)
{
    int p = pto_k__mov_pipe(d.space, a.space);
    pto_k__tt(c, src, PTO_K__TMOV, p < 0 ? PTO_K_PIPE_V : p, d, a, a, 0.0);
}

PTO_K_FN void pto_k_textract(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, int64_t row, int64_t col)
{
    pto_k__ins i = pto_k__mk(PTO_K__TEXTRACT, PTO_K_PIPE_MTE1, src);
    i.d = d;
    i.a = a;
    i.r = row;
    i.col = col;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_tmatmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b)
{
    pto_k__tt(c, src, PTO_K__TMATMUL, PTO_K_PIPE_M, d, a, b, 0.0);
}

PTO_K_FN void pto_k_tmatmul_acc(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b)
{
    pto_k__tt(c, src, PTO_K__TMATMUL_ACC, PTO_K_PIPE_M, d, a, b, 0.0);
}

PTO_K_FN void pto_k__flagop(pto_k_core *c, const char *src, int op, int sp, int dp, int id)
{
    pto_k__ins i = pto_k__mk(op, op == PTO_K__SET_FLAG ? sp : dp, src);
    i.p0 = sp;
    i.p1 = dp;
    i.id = id;
    if (c->dead) {
        /* after a scalar stall: a set that would have released it, had the stall come after it */
        const pto_k__ins *w = c->sroot.seq ? &c->sroot : &c->sst;
        if (c->sst.seq && !c->slater && op == PTO_K__SET_FLAG && sp == w->p0 && dp == w->p1 && id == w->id)
            c->slater = src ? src : "?";
        return;
    }
    if (!pto_k__flag_args_ok(c, &i)) return;
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_set_flag(pto_k_core *c, const char *src, int src_pipe, int dst_pipe, int id)
{
    pto_k__flagop(c, src, PTO_K__SET_FLAG, src_pipe, dst_pipe, id);
}

PTO_K_FN void pto_k_wait_flag(pto_k_core *c, const char *src, int src_pipe, int dst_pipe, int id)
{
    pto_k__flagop(c, src, PTO_K__WAIT_FLAG, src_pipe, dst_pipe, id);
}

PTO_K_FN void pto_k_pipe_barrier(pto_k_core *c, const char *src, int pipe)
{
    pto_k__ins i = pto_k__mk(PTO_K__PIPE_BARRIER, pipe, src);
    i.p0 = pipe;
    if (c->dead) return;
    if (pipe < 0 || pipe > PTO_K_PIPE_ALL) {
        pto_k__ierr(c, &i, PTO_K_E_USAGE, "pipe_barrier: no pipe %d", pipe);
        return;
    }
    pto_k__issue(c, &i);
}

PTO_K_FN void pto_k_tdecl(pto_k_core *c, const char *src, pto_k_tile t)
{
    pto_k__ins i = pto_k__mk(PTO_K__TDECL, PTO_K_PIPE_S, src);
    pto_k__shadow *sh;
    int64_t b, e, gi;
    unsigned all = PTO_K__M(PTO_K_VEC) | PTO_K__M(PTO_K_MAT) | PTO_K__M(PTO_K_LEFT) | PTO_K__M(PTO_K_RIGHT) |
                   PTO_K__M(PTO_K_ACC) | PTO_K__M(PTO_K_BIAS) | PTO_K__M(PTO_K_SCALING);
    if (c->dead || !pto_k__tile_ok(c, &i, t, all, "declared")) return;
    i.seq = ++c->seq;
    sh = pto_k__local_shadow(c, t.space);
    for (b = t.offset, e = t.offset + pto_k__tbytes(t); sh->g && b < e && b / PTO_K__GRAN < sh->n;) {
        int64_t base = (gi = b / PTO_K__GRAN) * PTO_K__GRAN, to = base + PTO_K__GRAN < e ? base + PTO_K__GRAN : e;
        sh->g[gi].init &= ~pto_k__byte_mask(b - base, to - base);
        sh->g[gi].decl = i.seq;
        sh->g[gi].dsrc = src;
        b = to;
    }
}

/* ---- builtins ---------------------------------------------------------------- */

PTO_K_FN pto_k_gm *pto_k_arg_gm(const int64_t *args, int i) { return (pto_k_gm *)(intptr_t)args[i]; }
PTO_K_FN double pto_k_arg_f(const int64_t *args, int i)
{
    double d;
    memcpy(&d, &args[i], sizeof d);
    return d;
}
/* A scalar param of dtype f16 / bf16: the runtime passes a float (an f32
   in the slot on the device) and the kernel holds it in its own dtype, as
   the reference does (review23 L2: 0.1 stayed 0.1 instead of f16's
   0.0999755859375). */
PTO_K_FN double pto_k_arg_h(const int64_t *args, int i, int dtype)
{
    return (double)pto_scalar_as(dtype, pto_k_arg_f(args, i));
}
PTO_K_FN int64_t pto_k_arg_i(const int64_t *args, int i) { return args[i]; }
PTO_K_FN int64_t pto_k_gm_rows(const pto_k_gm *g) { return g ? g->rows : 0; }
PTO_K_FN int64_t pto_k_gm_cols(const pto_k_gm *g) { return g ? g->cols : 0; }
PTO_K_FN int64_t pto_k_block_idx(const pto_k_core *c) { return c->block; }
PTO_K_FN int64_t pto_k_block_num(const pto_k_core *c) { return c->block_num; }
PTO_K_FN int64_t pto_k_subblock(const pto_k_core *c) { return c->subblock; }
PTO_K_FN int64_t pto_k_rank(const pto_k_core *c) { return c->rank; }
PTO_K_FN int64_t pto_k_nranks(const pto_k_core *c) { return c->dev->desc.nranks > 0 ? c->dev->desc.nranks : 1; }
PTO_K_FN int pto_k_core_kind(const pto_k_core *c) { return c->kind; }
PTO_K_FN int pto_k_arch(const pto_k_core *c) { return c->dev->desc.arch; }
PTO_K_FN int64_t pto_k_next(int64_t i, int64_t step, int64_t end)
{
    return (uint64_t)end - (uint64_t)i > (uint64_t)step ? i + step : end;
}
PTO_K_FN int64_t pto_k_iter_mod(int64_t i, int64_t start, int64_t step, int64_t n)
{
    if (step <= 0 || n <= 0) return 0;   /* (never in an emitted loop's body) */
    return (int64_t)(((uint64_t)i - (uint64_t)start) / (uint64_t)step % (uint64_t)n);
}

/* The compilers' overflow builtins where they exist (gcc 5+, clang: one
   flag test), else the portable tests; -DPTO_K__OVF_BUILTIN=0 forces the
   portable ones (tcc has no builtins; the tests build both). */
#ifndef PTO_K__OVF_BUILTIN
#if defined(__has_builtin) && !defined(__TINYC__)
#if __has_builtin(__builtin_mul_overflow)
#define PTO_K__OVF_BUILTIN 1
#endif
#elif defined(__GNUC__) && __GNUC__ >= 5 && !defined(__TINYC__)
#define PTO_K__OVF_BUILTIN 1
#endif
#endif
#ifndef PTO_K__OVF_BUILTIN
#define PTO_K__OVF_BUILTIN 0
#endif

/* a + b (op '+'), a - b ('-') or a * b ('*') into *r: 0, or 1 when the
   exact value leaves int64 (*r is then not the value). */
PTO_K_FN int pto_k__ovf(int op, int64_t a, int64_t b, int64_t *r)
{
#if PTO_K__OVF_BUILTIN
    if (op == '+') return __builtin_add_overflow(a, b, r);
    if (op == '-') return __builtin_sub_overflow(a, b, r);
    return __builtin_mul_overflow(a, b, r);
#else
    uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a, ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    int neg = (a < 0) != (b < 0);
    *r = 0;
    if (op == '+') {
        if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 1;
        *r = a + b;
        return 0;
    }
    if (op == '-') {
        if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return 1;
        *r = a - b;
        return 0;
    }
    if (!ua || !ub) return 0;
    if (ua > ((uint64_t)INT64_MAX + (uint64_t)neg) / ub) return 1;   /* |a * b| past 2^63 - 1 (2^63 when negative) */
    *r = !neg ? (int64_t)(ua * ub) : ua * ub == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)(ua * ub);
    return 0;
#endif
}

/* The report of pto_k_iadd ...: once, then every core leaves its kernel
   function (pto_k__tick's way out) and the launch's end checks are
   skipped: what follows a wrong index would be noise. */
PTO_K_FN void pto_k__overflow(pto_k_core *c, const char *src, const char *what)
{
    pto_k_device *dev = c->dev;
    char who[64];
    if (!dev->stopped) {
        pto_k__core_name(c, who, sizeof who);
        pto_k__err(dev, PTO_K_E_OVERFLOW, "%s: error: integer overflow in expression: %s leaves int64 (%s); the "
                   "launch stopped here", src ? src : "?", what, who);
        dev->stopped = 1;
    }
    longjmp(c->stop, 1);
}

PTO_K_FN int64_t pto_k__ick(pto_k_core *c, const char *src, int op, int64_t a, int64_t b)
{
    char what[80];
    int64_t r;
    if (!pto_k__ovf(op, a, b, &r)) return r;
    snprintf(what, sizeof what, b < 0 ? "%lld %c (%lld)" : "%lld %c %lld", (long long)a, op, (long long)b);
    pto_k__overflow(c, src, what);
    return 0;
}
PTO_K_FN int64_t pto_k_iadd(pto_k_core *c, const char *src, int64_t a, int64_t b) { return pto_k__ick(c, src, '+', a, b); }
PTO_K_FN int64_t pto_k_isub(pto_k_core *c, const char *src, int64_t a, int64_t b) { return pto_k__ick(c, src, '-', a, b); }
PTO_K_FN int64_t pto_k_imul(pto_k_core *c, const char *src, int64_t a, int64_t b) { return pto_k__ick(c, src, '*', a, b); }
PTO_K_FN int64_t pto_k_ineg(pto_k_core *c, const char *src, int64_t a)
{
    if (a == INT64_MIN) pto_k__overflow(c, src, "-(-9223372036854775808)");
    return -a;
}
