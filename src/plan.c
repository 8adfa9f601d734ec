/* plan.c - the memory planner: an address for every local tile.

   Needs: a verified module (tile spaces, shapes and nbuf in range; xN tiles
   declared inside a loop), stamped (pto_module.verified; refused with an
   error otherwise). It writes addresses only, so the stamp stays.
   Guarantees on PTO_OK: every tile whose space is not GM has planned = 1 and
   offset[0..nbuf-1] set; slot k of an xN tile is at offset[0] + k * stride,
   stride = the slot's bytes rounded up to the space's granule, so slots are
   contiguous and in slot order (the sync inserter and the emitter compute a
   slot's address from that). Every slot lies inside its space below the
   room reserved for cube/vector pipe buffers, every planner-chosen offset is
   a multiple of the granule (>= 32 bytes), pinned tiles sit exactly at their
   pin, and no two tiles that can be live at the same time share a byte.
   Tiles that a failed group could not place keep planned = 0.

   Memory is per kernel, per core and per space: a mix kernel's cube and
   vector sections have separate memories, and the two vector cores each have
   their own UB (they run the same vector code, so one plan serves both).

   Lifetimes. Statements are numbered in a pre-order walk of the kernel body
   (a FOR or IF gets its number before its body; the else branch follows the
   then branch). A tile's interval is [first use, last use] over the op
   statements that name it (its declaration alone does not make it live),
   widened so that:
   - a use inside a loop that does not also contain the declaration covers
     that whole loop (the value must survive every iteration);
   - an xN tile covers the whole loop that declares it: slot k may still be
     in flight while iterations k+1..k+N-1 run, so the simplest correct rule
     is N distinct buffers live for the whole loop;
   - a tile declared in a loop body and used only there lives within one
     iteration (a fresh buffer each iteration, pto-text.md).
   Both branches of an IF lie inside [first, last] when the tile is used on
   both sides or after it, so neither branch can clobber it.

   Granules (the unit of planner-chosen offsets and slot strides): 32 bytes
   for vec, mat, bias and scaling (the hardware's alignment rule). left and
   right use 512 bytes and acc 1024 bytes: a cube operand tile is a whole
   number of 512-byte fractals and an accumulator one of 1 KiB fractals
   (hardware.md section 2), so a fractal-aligned offset keeps every fractal
   whole at no cost in space. We do not copy PTOAS's 4 KiB units: they lose
   up to 3.5 KiB per tile in a 64 KiB space for no correctness gain.
   Pins only need the 32-byte hardware alignment.

   Placement. Pinned tiles go first, at their pins. The others are placed one
   at a time at the lowest (first-fit) or the tightest (best-fit) gap that
   clears every already placed tile they may conflict with; several orders
   are tried (largest first, by start, longest lifetime first, largest
   size x lifetime first), each with both fits, and the lowest peak wins
   (the first on a tie, so the output is deterministic).
   Two levels:
   - separate: bytes are shared only by tiles whose accesses all run on one
     pipe. Reusing a dead tile's bytes for a tile written by another pipe
     adds a write-after-read dependency that serialises the two pipes (the
     upstream planner's "pipe conflict" rule), so this level is preferred.
   - tight: any two tiles whose lifetimes are disjoint may share bytes.
   The tight level is used only when no order fits at the separate level,
   or when the caller asks for it. When no order fits at either level but
   the live bytes would (fragmentation), a group of at most
   PTO__EXACT_TILES tiles gets a complete search (pto__exact_search). bench/plan_pipes_bench.c shows the effect
   in the cycle model: kernels where a tight plan makes a load wait for a
   store or for the vector pipe run 1.3-1.5x longer.

   Cube/vector pipe consumer buffers (m->cvpipes) are reserved at the top of
   the consumer's space (vec for C2V, mat for V2C, both for BOTH):
   local_slot_num slots of what that core pops (pto_plan_pipe_slot_bytes:
   half the cube tile on an AIV of a split pipe) each, rounded to the
   granule, stacked downwards in pipe order; pto_plan_pipe_base gives a
   pipe's base. */

#define PTO__NFITS 2

typedef struct pto__live {
    int32_t npts;
    int32_t *at;       /* [npts] the statement at a point */
    int32_t *lo, *hi;  /* [n_tiles] the interval; hi < 0: no point at all */
    uint16_t *rd, *wr; /* [n_tiles] pipes that read / write the tile */
} pto__live;

typedef struct pto__item {
    int32_t tile;
    int64_t size, stride, pin; /* size = nbuf * stride; pin = fixed offset or -1 */
    int32_t lo, hi;
    uint16_t rd, wr;
} pto__item;

typedef struct pto__group {
    int32_t kernel;
    int core, space;
    int64_t cap, reserved, avail, granule;
    pto__item *it;
    int32_t n;
    int64_t live_max;  /* most aligned bytes live at one point (a lower bound) */
    int32_t live_pt;
} pto__group;

static const char *const pto__order_names[PTO_NORDER] = {
    "largest-first", "by-start", "longest-first", "by-area"
};

PTODEF int64_t pto_plan_granule(pto_space s)
{
    if (s == PTO_LEFT || s == PTO_RIGHT) return 512;
    if (s == PTO_ACC) return 1024;
    return 32;
}

static int64_t pto__align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

/* ---- program points ------------------------------------------------------ */

static int32_t pto__block_head(const pto_module *m, int32_t b) { return b >= 0 ? m->blocks[b].head : -1; }

static void pto__live_free(pto_ctx *ctx, pto__live *lv)
{
    pto_free(ctx, lv->at);
    pto_free(ctx, lv->lo);
    pto_free(ctx, lv->hi);
    pto_free(ctx, lv->rd);
    pto_free(ctx, lv->wr);
    memset(lv, 0, sizeof *lv);
}

/* The walk's state. Loops are numbered in the order they open (li); a tile
   used in a loop that does not contain its declaration is live to the end
   of the outermost such loop, which is known only when it closes: the tile
   remembers that loop (pend) and takes its end after the walk. In program
   order the outermost loops of a tile's uses are the same or later
   siblings (each holds the uses, none the declaration), so the last one
   has the largest end. */
typedef struct pto__lwalk {
    int32_t *lpt, *lend;    /* [loops] first and last point */
    int32_t nl, capl;
    int32_t *fors;          /* the open loops, outermost first */
    int32_t nf, capf;
    int32_t *frames;        /* the open compound statements: stmt, then 1 while in its body */
    int32_t nfr, capfr;
    int32_t *dpt, *dloop, *pend;   /* [tiles] declaration point, its innermost loop, pending loop */
    int oom;
} pto__lwalk;

static void pto__lw_push(pto_ctx *ctx, pto__lwalk *w, int32_t **arr, int32_t *n, int32_t *cap, int32_t v)
{
    int32_t i = *n < *cap ? (*n)++ : pto__grow(ctx, (void **)arr, n, cap, sizeof(int32_t));
    if (i < 0) { w->oom = 1; return; }
    (*arr)[i] = v;
}

/* The uses of op statement s at point p. Points only grow during the walk,
   so p is the latest use so far of every tile it names. */
static void pto__live_op(const pto_module *m, pto__live *lv, const pto__lwalk *w, int32_t s, int32_t p)
{
    const pto_stmt *st = &m->stmts[s];
    const pto_opinfo *oi = pto_opinfo_get((pto_op)st->op);
    const pto_operand *o = &m->operands[st->arg0];
    /* pto_stmt_pipe: the table's pipe but for the four ops whose pipe
       depends on their operands (a tfillpad of a mat tile is MTE2's) */
    int pp = st->op == PTO_OP_TSTORE || st->op == PTO_OP_TPUSH || st->op == PTO_OP_TMOV || st->op == PTO_OP_TFILLPAD
                 ? (int)pto_stmt_pipe(m, s)
                 : (int)oi->pipe;
    uint16_t pipe = (uint16_t)(1u << pp);
    /* a tile declared inside the innermost open loop (the usual case), or
       with no loop open, is in no open loop that lacks its declaration: no
       loop walk for it (a tile never declared, dp = -1, is below any start) */
    int32_t inner = w->nf > 0 ? w->lpt[w->fors[w->nf - 1]] : INT32_MIN;
    int i, na = oi->nargs;
    for (i = 0; i < st->nargs; i++, o++) {
        uint32_t mask = i < na ? oi->arg[i] : PTO_A_READ;
        int32_t t = o->ref, dp, j, outer = -1;
        if (o->kind != PTO_O_TILE || t < 0 || t >= m->n_tiles) continue;
        /* the outermost open loop that does not contain the declaration
           (every open loop contains p, after the declaration) */
        dp = w->dpt[t];
        if (dp < inner)
            for (j = w->nf - 1; j >= 0 && !(dp >= 0 && w->lpt[w->fors[j]] <= dp); j--) outer = w->fors[j];
        if (outer >= 0) {
            if (w->lpt[outer] < lv->lo[t]) lv->lo[t] = w->lpt[outer];
            w->pend[t] = outer;
        }
        if (p < lv->lo[t]) lv->lo[t] = p;
        lv->hi[t] = p;
        if (mask & PTO_A_WRITE) lv->wr[t] |= pipe;
        if ((mask & PTO_A_READ) || !(mask & PTO_A_WRITE)) lv->rd[t] |= pipe;
    }
}

/* A new loop opening at point p (its end is p until its body closes). */
static void pto__lw_loop(pto_ctx *ctx, pto__lwalk *w, int32_t p)
{
    if (w->nl == w->capl) {
        int32_t ncap = w->capl ? w->capl * 2 : 64;
        int32_t *a = (int32_t *)pto_realloc(ctx, w->lpt, (size_t)ncap * sizeof(int32_t)), *e;
        if (a) w->lpt = a;
        e = a ? (int32_t *)pto_realloc(ctx, w->lend, (size_t)ncap * sizeof(int32_t)) : NULL;
        if (!e) { w->oom = 1; return; }
        w->lend = e;
        w->capl = ncap;
    }
    w->lpt[w->nl] = w->lend[w->nl] = p;
    w->nl++;
}

/* Numbers one kernel's statements from point n in pre-order (a FOR or IF
   before its body, an else branch after the then branch) and takes their
   uses; returns the next point. At most `budget` statements: a cycle in
   malformed links stops there rather than looping. */
static int32_t pto__live_kernel(pto_ctx *ctx, const pto_module *m, pto__live *lv, pto__lwalk *w, int32_t k,
                                int32_t n, int32_t budget)
{
    int32_t s = pto__block_head(m, m->kernels[k].body);
    w->nf = w->nfr = 0;
    while (s >= 0 && budget-- > 0 && !w->oom) {
        const pto_stmt *st = &m->stmts[s];
        int32_t p = n++;
        lv->at[p] = s;
        if (st->kind == PTO_ST_OP) pto__live_op(m, lv, w, s, p);
        else if (st->kind == PTO_ST_TILE && st->ref >= 0 && st->ref < m->n_tiles && m->tiles[st->ref].decl == s) {
            w->dpt[st->ref] = p;
            w->dloop[st->ref] = w->nf > 0 ? w->fors[w->nf - 1] : -1;
        } else if (st->kind == PTO_ST_FOR) {
            pto__lw_loop(ctx, w, p);
        }
        if (pto__block_head(m, st->body) >= 0 || pto__block_head(m, st->orelse) >= 0) {
            int body = pto__block_head(m, st->body) >= 0;
            pto__lw_push(ctx, w, &w->frames, &w->nfr, &w->capfr, s);
            pto__lw_push(ctx, w, &w->frames, &w->nfr, &w->capfr, body);
            if (st->kind == PTO_ST_FOR) pto__lw_push(ctx, w, &w->fors, &w->nf, &w->capf, w->nl - 1);
            s = pto__block_head(m, body ? st->body : st->orelse);
            continue;
        }
        /* s's subtree is done: the statement after it, closing the compound
           statements whose last statement it was */
        for (;;) {
            int32_t f;
            if (m->stmts[s].next >= 0) { s = m->stmts[s].next; break; }
            if (w->nfr < 2) { s = -1; break; }
            f = w->frames[w->nfr - 2];
            if (w->frames[w->nfr - 1] && pto__block_head(m, m->stmts[f].orelse) >= 0) {
                w->frames[w->nfr - 1] = 0;   /* the then branch is done: the else branch */
                s = pto__block_head(m, m->stmts[f].orelse);
                break;
            }
            w->nfr -= 2;
            if (m->stmts[f].kind == PTO_ST_FOR && w->nf > 0) w->lend[w->fors[--w->nf]] = n - 1;
            s = f;
        }
    }
    return n;
}

/* Intervals of every tile: a tile's interval is [first use, last use]
   over the op statements that name it, widened as the file's top says. */
static pto_status pto__live_build(pto_ctx *ctx, const pto_module *m, pto__live *lv)
{
    size_t ns = (size_t)m->n_stmts + 1, nt = (size_t)m->n_tiles + 1;
    int32_t t, k, n = 0;
    pto__lwalk w;
    memset(lv, 0, sizeof *lv);
    memset(&w, 0, sizeof w);
    lv->at = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    lv->lo = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    lv->hi = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    lv->rd = (uint16_t *)pto_alloc(ctx, nt * sizeof(uint16_t));
    lv->wr = (uint16_t *)pto_alloc(ctx, nt * sizeof(uint16_t));
    w.dpt = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    w.dloop = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    w.pend = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    if (lv->at && lv->lo && lv->hi && lv->rd && lv->wr && w.dpt && w.dloop && w.pend) {
        for (t = 0; t < m->n_tiles; t++) {
            lv->lo[t] = INT32_MAX;
            lv->hi[t] = -1;
            lv->rd[t] = lv->wr[t] = 0;
            w.dpt[t] = w.dloop[t] = w.pend[t] = -1;
        }
        for (k = 0; k < m->n_kernels && !w.oom; k++) n = pto__live_kernel(ctx, m, lv, &w, k, n, m->n_stmts - n);
    } else {
        w.oom = 1;
    }
    lv->npts = n;
    if (!w.oom) {
        for (t = 0; t < m->n_tiles; t++) {
            int32_t l = w.dloop[t];
            if (w.pend[t] >= 0 && w.lend[w.pend[t]] > lv->hi[t]) lv->hi[t] = w.lend[w.pend[t]];
            if (lv->hi[t] < 0) lv->lo[t] = lv->hi[t] = w.dpt[t];  /* never used: live at its declaration */
            if (m->tiles[t].nbuf > 1 && l >= 0) {
                if (w.lpt[l] < lv->lo[t] || lv->lo[t] < 0) lv->lo[t] = w.lpt[l];
                if (w.lend[l] > lv->hi[t]) lv->hi[t] = w.lend[l];
            }
        }
    }
    pto_free(ctx, w.lpt);
    pto_free(ctx, w.lend);
    pto_free(ctx, w.fors);
    pto_free(ctx, w.frames);
    pto_free(ctx, w.dpt);
    pto_free(ctx, w.dloop);
    pto_free(ctx, w.pend);
    if (w.oom) {
        pto__live_free(ctx, lv);
        pto__oom(ctx);
        return PTO_ERR_INTERNAL;
    }
    return PTO_OK;
}

/* ---- groups -------------------------------------------------------------- */

static int pto__local(const pto_tile *t) { return t->space > PTO_GM && t->space < PTO_NSPACE; }

static int64_t pto__tile_stride(const pto_tile *t)
{
    return pto__align_up(pto_tile_bytes(t), pto_plan_granule((pto_space)t->space));
}

static int pto__pipe_consumes(const pto_cvpipe *p, pto_space s)
{
    if (s == PTO_VEC) return (p->dir & PTO_C2V) != 0;
    if (s == PTO_MAT) return (p->dir & PTO_V2C) != 0;
    return 0;
}

/* A local slot holds what this core pops, not the cube-side tile: a split
   pipe gives each AIV half of the tile, and pto-isa's TPOP steps the local
   slots by the popped tile's bytes. The cube always pops the whole tile
   (a split v2c pipe's two halves land in one slot). */
PTODEF int64_t pto_plan_pipe_slot_bytes(const pto_cvpipe *p, pto_space s)
{
    if (!pto__pipe_consumes(p, s)) return 0;
    return s == PTO_VEC && p->split != PTO_SPLIT_NONE ? (int64_t)p->slot_size / 2 : (int64_t)p->slot_size;
}

static int64_t pto__pipe_room(const pto_cvpipe *p, pto_space s)
{
    return pto__align_up((int64_t)p->local_slot_num * pto_plan_pipe_slot_bytes(p, s), pto_plan_granule(s));
}

/* pto-isa's a2a3 TROWEXPANDADD..DIV with a column operand (our [R, 1]
   tiles) broadcast it through the UB bytes [TMP_UB_OFFSET, 196608)
   (include/pto/common/constants.hpp; TRowExpandBinOp.hpp: vbrcb into
   TMP_UB_OFFSET), which no tile declares. In a module lowered for the isa
   target, a kernel with such an op keeps them free: they count as reserved
   (no tile reaches them) and its vec pipe slots stack down from
   TMP_UB_OFFSET instead of the top of UB (a popped tile there was an isa
   error that no local_slots(N) could avoid). Returns those bytes, or 0. */
#define PTO__ISA_TMP_UB_OFFSET 188416
#define PTO__ISA_A5_UB_MARGIN 8192   /* a5: PTOAS plans 248 KiB of the 256 KiB UB (hardware.md s2) */
static int64_t pto__isa_hole(const pto_module *m, int32_t k, pto_space s)
{
    int32_t i;
    /* a5 on the isa target: the top 8 KiB stay free, as PTOAS leaves them (review17: no public a5
       constant says what uses them; a kernel.cpp planned into them could meet whatever does) */
    if (m->target == (int32_t)PTO_TARGET_ISA && m->arch == PTO_ARCH_A5 && s == PTO_VEC) return PTO__ISA_A5_UB_MARGIN;
    if (m->target != (int32_t)PTO_TARGET_ISA || m->arch != PTO_ARCH_A2A3 || s != PTO_VEC) return 0;
    for (i = 0; i < m->n_stmts; i++) {
        const pto_stmt *st = &m->stmts[i];
        if (st->kind == PTO_ST_OP && st->block >= 0 && st->block < m->n_blocks && m->blocks[st->block].kernel == k &&
            pto_opinfo_get((pto_op)st->op)->cls == PTO_OC_ROWEXP)
            return pto_space_capacity(m->arch, s) - PTO__ISA_TMP_UB_OFFSET;
    }
    return 0;
}

PTODEF int64_t pto_plan_pipe_base(const pto_module *m, int32_t cvpipe, pto_space s)
{
    int64_t top;
    int32_t i, k;
    if (cvpipe < 0 || cvpipe >= m->n_cvpipes || !pto__pipe_consumes(&m->cvpipes[cvpipe], s)) return -1;
    k = m->cvpipes[cvpipe].kernel;
    top = pto_space_capacity(m->arch, s) - pto__isa_hole(m, k, s);
    for (i = 0; i <= cvpipe; i++)
        if (m->cvpipes[i].kernel == k && pto__pipe_consumes(&m->cvpipes[i], s))
            top -= pto__pipe_room(&m->cvpipes[i], s);
    return top;
}

static int64_t pto__reserved(const pto_module *m, int32_t kernel, pto_space s)
{
    int64_t r = pto__isa_hole(m, kernel, s);
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++)
        if (m->cvpipes[i].kernel == kernel && pto__pipe_consumes(&m->cvpipes[i], s))
            r += pto__pipe_room(&m->cvpipes[i], s);
    return r;
}

/* Appends "pipe 'q' reserves 6 local slots x 16384 B on each vector core"
   for the pipes of kernel that s consumes (b may be NULL); returns the one
   with the largest reservation, which an error caused by the reservation
   points at, or -1. */
static int32_t pto__pipe_desc(const pto_module *m, int32_t kernel, pto_space s, pto_buf *b)
{
    int32_t i, big = -1;
    int64_t most = 0;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *p = &m->cvpipes[i];
        if (p->kernel != kernel || !pto__pipe_consumes(p, s)) continue;
        if (b)
            pto_buf_printf(b, "%spipe '%s' reserves %d local slots x %lld B", big >= 0 ? ", " : "",
                           pto_str(m->ctx, p->name), (int)p->local_slot_num, (long long)pto_plan_pipe_slot_bytes(p, s));
        if (big < 0 || pto__pipe_room(p, s) > most) big = i, most = pto__pipe_room(p, s);
    }
    if (b && big >= 0) pto_buf_puts(b, s == PTO_VEC ? " on each vector core" : " on the cube core");
    if (b && pto__isa_hole(m, kernel, s))
        pto_buf_printf(b, "%s%lld B above them are %s on the isa target", big >= 0 ? "; " : "",
                       (long long)pto__isa_hole(m, kernel, s),
                       m->arch == PTO_ARCH_A5 ? "a5's UB margin (PTOAS plans 248 KiB)" : "pto-isa's row-broadcast scratch");
    return big;
}

/* What the reserved bytes of a space are for, in an error or a report. */
static const char *pto__reserved_for(const pto_module *m, int32_t kernel, pto_space s)
{
    if (!pto__isa_hole(m, kernel, s)) return "cube/vector pipe buffers";
    if (m->arch == PTO_ARCH_A5)
        return pto__reserved(m, kernel, s) > pto__isa_hole(m, kernel, s)
                   ? "cube/vector pipe buffers and a5's top 8 KiB of UB, which PTOAS leaves free, on the isa target"
                   : "a5's top 8 KiB of UB, which PTOAS leaves free, on the isa target";
    return pto__reserved(m, kernel, s) > pto__isa_hole(m, kernel, s)
               ? "cube/vector pipe buffers and pto-isa's row-broadcast scratch [188416, 196608) on the isa target"
               : "pto-isa's row-broadcast scratch [188416, 196608) on the isa target";
}

static int pto__overlap_time(const pto__item *a, const pto__item *b)
{
    return a->lo <= b->hi && b->lo <= a->hi;
}

static int pto__popcount(unsigned v)
{
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

/* Writing t over bytes that d used adds a dependency between two pipes
   unless every access of d and every write of t run on the same pipe. */
static int pto__conflict_dir(const pto__item *d, const pto__item *t)
{
    unsigned acc = (unsigned)(d->rd | d->wr), w = t->wr;
    return acc && w && pto__popcount(acc | w) > 1;
}

static int pto__conflict(const pto__item *a, const pto__item *b)
{
    return pto__conflict_dir(a, b) || pto__conflict_dir(b, a);
}

/* ---- room at a statement, for the lowering ---------------------------------
   pto_lower sizes the staging tiles it makes (tput / tget, allreduce
   chunks) to the room the kernel's own tiles leave where they go: the
   capacity of the space, less its pipe buffers, less every tile of that
   space live at the statement (its interval as the planner will see it,
   nbuf x stride). Those tiles all conflict with a staging tile placed
   there, so no plan can give it more; the planner may still need a little
   more room for fragmentation, and then reports the overflow as usual. */

/* room[i]: the bytes of space sp free at statement stmts[i] (-1 when the
   walk did not reach it). PTO_OK, or an error when out of memory. */
static pto_status pto__plan_room(pto_ctx *ctx, const pto_module *m, pto_space sp, const int32_t *stmts, int32_t n,
                                 int64_t *room)
{
    pto__live lv;
    int64_t *live;
    int32_t *pt, p, t, i;
    if (pto__live_build(ctx, m, &lv) != PTO_OK) return PTO_ERR_INTERNAL;
    live = (int64_t *)pto_alloc(ctx, ((size_t)lv.npts + 1) * sizeof(int64_t));
    pt = (int32_t *)pto_alloc(ctx, ((size_t)m->n_stmts + 1) * sizeof(int32_t));
    if (!live || !pt) {
        pto_free(ctx, live);
        pto_free(ctx, pt);
        pto__live_free(ctx, &lv);
        return PTO_ERR_INTERNAL;
    }
    memset(live, 0, ((size_t)lv.npts + 1) * sizeof(int64_t));
    for (t = 0; t < m->n_tiles; t++) {   /* + at the first point, - past the last */
        const pto_tile *x = &m->tiles[t];
        if (x->space != sp || lv.lo[t] < 0 || lv.hi[t] < lv.lo[t] || lv.hi[t] >= lv.npts) continue;
        live[lv.lo[t]] += (int64_t)x->nbuf * pto__tile_stride(x);
        live[lv.hi[t] + 1] -= (int64_t)x->nbuf * pto__tile_stride(x);
    }
    for (p = 1; p < lv.npts; p++) live[p] += live[p - 1];
    for (i = 0; i < m->n_stmts; i++) pt[i] = -1;
    for (p = 0; p < lv.npts; p++) pt[lv.at[p]] = p;
    for (i = 0; i < n; i++) {
        int32_t s = stmts[i], k;
        room[i] = -1;
        if (s < 0 || s >= m->n_stmts || pt[s] < 0 || m->stmts[s].block < 0) continue;
        k = m->blocks[m->stmts[s].block].kernel;
        room[i] = pto_space_capacity(m->arch, sp) - pto__reserved(m, k, sp) - live[pt[s]];
    }
    pto_free(ctx, live);
    pto_free(ctx, pt);
    pto__live_free(ctx, &lv);
    return PTO_OK;
}

/* Sort scratch: n entries each. */
typedef struct pto__sortbuf {
    int32_t *tmp, *base;  /* radix scratch; the base order (pto__sort_base) */
    int64_t *val;         /* the key values of the sort at hand */
    uint64_t *key;        /* the same as radix keys */
} pto__sortbuf;

/* ---- sorting ---------------------------------------------------------------
   Every order the planner uses is a total order: keys compared in turn
   (larger or smaller first), then the item index (items are in tile id
   order, so that is the tile id). Such an order is built by stable LSD
   radix sorts of the item indices, least significant key first, starting
   from index order: linear in the items per key byte, and the same result
   as any sort under that total order. A key byte that is equal in every
   item costs nothing. */

/* Sorts the n item indices v[] stably by key[item], smaller first. tmp:
   n more entries. */
static void pto__rsort(int32_t *v, int32_t *tmp, int32_t n, const uint64_t *key)
{
    uint64_t any = 0, all = ~(uint64_t)0, diff;
    int32_t cnt[256], i, *src = v, *dst = tmp;
    int shift;
    for (i = 0; i < n; i++) { any |= key[i]; all &= key[i]; }
    diff = any ^ all;
    for (shift = 0; shift < 64; shift += 8) {
        int32_t sum = 0, *t;
        int d;
        if (!((diff >> shift) & 0xff)) continue;
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < n; i++) cnt[(key[src[i]] >> shift) & 0xff]++;
        for (d = 0; d < 256; d++) { int32_t c = cnt[d]; cnt[d] = sum; sum += c; }
        for (i = 0; i < n; i++) dst[cnt[(key[src[i]] >> shift) & 0xff]++] = src[i];
        t = src; src = dst; dst = t;
    }
    if (src != v) memcpy(v, src, (size_t)n * sizeof *v);
}

/* key[i] = how far item i's value val[i] is from the first in the order:
   val - min for smaller first, max - val for larger first (exact in
   unsigned arithmetic for any two int64 values). */
static void pto__rkey(uint64_t *key, const int64_t *val, int32_t n, int larger_first)
{
    int64_t lo = 0, hi = 0;
    int32_t i;
    for (i = 0; i < n; i++) {
        if (i == 0 || val[i] < lo) lo = val[i];
        if (i == 0 || val[i] > hi) hi = val[i];
    }
    for (i = 0; i < n; i++) key[i] = larger_first ? (uint64_t)hi - (uint64_t)val[i] : (uint64_t)val[i] - (uint64_t)lo;
}

/* Stable insertion sort of v by val (larger or smaller first) that gives up
   after `budget` moves; returns 1 when v is sorted. The orders the planner
   sorts are often sorted or nearly so already (intervals are made in
   program order), and then this is one pass. Giving up leaves v a
   permutation with the same relative order of equal values, so a stable
   sort of it afterwards gives the same result as one of the input. */
static int pto__isort(int32_t *v, int32_t n, const int64_t *val, int larger_first, int32_t budget)
{
    int32_t i, j;
    for (i = 1; i < n; i++) {
        int32_t x = v[i];
        int64_t vx = val[x];
        for (j = i; j > 0 && (larger_first ? val[v[j - 1]] < vx : val[v[j - 1]] > vx); j--) {
            if (budget-- <= 0) { v[j] = x; return 0; }
            v[j] = v[j - 1];
        }
        v[j] = x;
    }
    return 1;
}

/* v = the items in index order (fresh) or as given, then stably sorted by
   val (larger first or smaller first). `near`: v is likely sorted or
   nearly so (try the insertion sort first). */
static void pto__sort_by(int32_t *v, int32_t *tmp, int32_t n, int64_t *val, uint64_t *key, int larger_first, int fresh,
                         int near)
{
    int32_t i;
    if (fresh)
        for (i = 0; i < n; i++) v[i] = i;
    if (near && pto__isort(v, n, val, larger_first, n)) return;
    pto__rkey(key, val, n, larger_first);
    pto__rsort(v, tmp, n, key);
}

/* The items by interval start (key 0) or end (key 1), ties in item order. */
static void pto__sort_point(const pto__group *g, pto__sortbuf *sb, int32_t *v, int key)
{
    int32_t i;
    for (i = 0; i < g->n; i++) sb->val[i] = key ? g->it[i].hi : g->it[i].lo;
    pto__sort_by(v, sb->tmp, g->n, sb->val, sb->key, 0, 1, 1);
}

/* The most bytes live at one point, and that point. The maximum of a sum of
   intervals is reached at some interval's start: a sweep over the starts
   and the ends (both sorted) visits every start once; the earliest point
   wins a tie. bylo and byhi receive the orders (n entries each); sk and
   tmp are sort scratch. */
static void pto__group_live_max(pto__group *g, int32_t *bylo, int32_t *byhi, pto__sortbuf *sb)
{
    int32_t i, e = 0;
    int64_t sum = 0;
    g->live_max = 0;
    g->live_pt = -1;
    pto__sort_point(g, sb, bylo, 0);
    pto__sort_point(g, sb, byhi, 1);
    if (g->n) g->live_pt = g->it[bylo[0]].lo;
    for (i = 0; i < g->n;) {
        int32_t p = g->it[bylo[i]].lo;
        for (; i < g->n && g->it[bylo[i]].lo == p; i++) sum += g->it[bylo[i]].size;
        for (; e < g->n && g->it[byhi[e]].hi < p; e++) sum -= g->it[byhi[e]].size;
        if (sum > g->live_max) {
            g->live_max = sum;
            g->live_pt = p;
        }
    }
}

/* ---- placement ----------------------------------------------------------- */

/* The placement orders as keys: the order's own key, then size (larger
   first), then start (earlier first), then tile id. */
static int64_t pto__order_key(const pto__item *a, int order)
{
    switch (order) {
    case PTO_ORDER_LARGEST: return a->size;
    case PTO_ORDER_START: return -(int64_t)a->lo;
    case PTO_ORDER_LONGEST: return a->hi - a->lo;
    default: return a->size * (a->hi - a->lo + 1);
    }
}

/* The items by size (larger first), then start (earlier first), then
   index: the tail of every placement order's keys, sorted once per group.
   bylo (pto__group_live_max) is already by start, then index. */
static void pto__sort_base(const pto__group *g, pto__sortbuf *sb, const int32_t *bylo)
{
    int32_t i;
    memcpy(sb->base, bylo, (size_t)g->n * sizeof *bylo);
    for (i = 0; i < g->n; i++) sb->val[i] = g->it[i].size;
    pto__sort_by(sb->base, sb->tmp, g->n, sb->val, sb->key, 1, 0, 0);
}

/* What one placement attempt knows, built so that placing a tile costs the
   number of tiles it must avoid (times a log), not the number placed:
   - a segment tree over the items sorted by start, holding the latest end
     of the placed ones, finds the placed items live at the same time;
   - at the separate level, the bytes ever used by the placed items of each
     pipe class (the pipes that access a tile, and those that write it:
     pto__conflict depends on nothing else) as a sorted list of disjoint
     ranges, since a conflicting class must be avoided whatever its time.
   The gap search only depends on the union of the bytes to avoid, so the
   result is the same as scanning every placed item in offset order. */
typedef struct pto__cls {
    pto__item rep;      /* rd/wr of the class */
    int64_t *iv;        /* [start, end) pairs, sorted, disjoint, not touching */
    int32_t n, cap;
} pto__cls;

typedef struct pto__scratch {
    pto_ctx *ctx;
    int32_t *idx, *bylo, *byhi, *leaf, *tree, *hits;
    int32_t *lim;       /* per item: how many items start at or before its end (a prefix of bylo) */
    int32_t *touched;   /* tree nodes set since the last reset (each once: values only rise from -1) */
    int32_t ntouched;
    int32_t *pins;      /* the pinned items, in index order */
    int32_t npins;
    pto__sortbuf sb;
    int32_t *rank;      /* per item: its position in the base order */
    int32_t *heap;      /* the items of the order at hand not yet in idx (pto__order_at) */
    int32_t nheap, navail;   /* ... how many; how many of idx are known */
    int64_t *off, *best, *obs;
    int32_t width, nobs, capobs, nhits;
    pto__cls *cls;
    int32_t ncls, capcls;
    int oom;
} pto__scratch;

/* Sets item's leaf (from -1: an item is placed once per attempt, and the
   tree is reset before each). A node holds the largest end below it and
   ends only grow, so the new value rises until a node already holds as
   much: every node above holds at least that too. */
static void pto__tree_set(pto__scratch *s, int32_t item, int32_t v)
{
    uint32_t n = (uint32_t)(s->width + s->leaf[item]);   /* (unsigned: the halving is a shift) */
    s->touched[s->ntouched++] = (int32_t)n;   /* ends are >= 0: the leaf leaves -1 */
    s->tree[n] = v;
    for (n >>= 1; n >= 1 && s->tree[n] < v; n >>= 1) {
        if (s->tree[n] < 0) s->touched[s->ntouched++] = (int32_t)n;
        s->tree[n] = v;
    }
}

/* Back to an empty tree (all -1) by undoing the nodes set since the last
   reset: an attempt stopped early has set few of them. */
static void pto__tree_reset(pto__scratch *s)
{
    int32_t k;
    for (k = 0; k < s->ntouched; k++) s->tree[s->touched[k]] = -1;
    s->ntouched = 0;
}

/* The leaves under `node` whose end is >= qlo, left to right (a node's
   value is the largest end below it, so a subtree below qlo is skipped
   whole). An explicit stack: at most one pending right sibling per level. */
static void pto__tree_collect(pto__scratch *s, int32_t node, int32_t qlo)
{
    int32_t stack[66], sp = 0;
    stack[sp++] = node;
    while (sp > 0) {
        int32_t n = stack[--sp];
        if (n >= s->width) { s->hits[s->nhits++] = s->bylo[n - s->width]; continue; }
        if (s->tree[2 * n + 1] >= qlo) stack[sp++] = 2 * n + 1;
        if (s->tree[2 * n] >= qlo) stack[sp++] = 2 * n;
    }
}

/* The placed items among the first `lim` by start whose end is >= qlo:
   [0, lim) is covered by whole subtrees, found bottom-up along its right
   edge (its left edge is the leftmost node of every level), each then
   searched by pto__tree_collect. They come right to left: the gap search
   sorts what they cover by address, and where two start at the same
   address their order changes nothing (pto__find_gap). */
static void pto__tree_find(pto__scratch *s, int32_t lim, int32_t qlo)
{
    uint32_t l = (uint32_t)s->width, r = l + (uint32_t)lim;
    if (lim == s->width) {   /* everything: the root */
        if (s->tree[1] >= qlo) pto__tree_collect(s, 1, qlo);
        return;
    }
    for (; l < r; l >>= 1, r >>= 1)   /* (then r stays below 2 l: the loop ends below the root) */
        if (r & 1) {
            r--;
            if (s->tree[r] >= qlo) pto__tree_collect(s, (int32_t)r, qlo);
        }
}

static void pto__obs_add(pto__scratch *s, int64_t lo, int64_t hi)
{
    if (s->nobs == s->capobs) {
        int32_t ncap = s->capobs ? s->capobs * 2 : 64;
        int64_t *p = (int64_t *)pto_realloc(s->ctx, s->obs, (size_t)ncap * 2 * sizeof(int64_t));
        if (!p) { s->oom = 1; return; }
        s->obs = p;
        s->capobs = ncap;
    }
    s->obs[2 * s->nobs] = lo;
    s->obs[2 * s->nobs + 1] = hi;
    s->nobs++;
}

static int pto__obs_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The class of item i (created on first sight). */
static pto__cls *pto__class_of(pto__scratch *s, const pto__item *it)
{
    int32_t c;
    for (c = 0; c < s->ncls; c++)
        if (s->cls[c].rep.rd == it->rd && s->cls[c].rep.wr == it->wr) return &s->cls[c];
    if (s->ncls == s->capcls) {
        int32_t ncap = s->capcls ? s->capcls * 2 : 8;
        pto__cls *p = (pto__cls *)pto_realloc(s->ctx, s->cls, (size_t)ncap * sizeof *p);
        if (!p) { s->oom = 1; return NULL; }
        s->cls = p;
        s->capcls = ncap;
    }
    memset(&s->cls[s->ncls], 0, sizeof s->cls[0]);
    s->cls[s->ncls].rep = *it;
    return &s->cls[s->ncls++];
}

/* Adds [lo, hi) to a class's byte ranges, merging what it overlaps. */
static void pto__cls_add(pto__scratch *s, pto__cls *c, int64_t lo, int64_t hi)
{
    int32_t a = 0, b = c->n, i, j;
    while (a < b) { int32_t mid = (a + b) / 2; if (c->iv[2 * mid + 1] < lo) a = mid + 1; else b = mid; }
    i = j = a;
    for (; j < c->n && c->iv[2 * j] <= hi; j++) {
        if (c->iv[2 * j] < lo) lo = c->iv[2 * j];
        if (c->iv[2 * j + 1] > hi) hi = c->iv[2 * j + 1];
    }
    if (j == i) {
        if (c->n == c->cap) {
            int32_t ncap = c->cap ? c->cap * 2 : 16;
            int64_t *p = (int64_t *)pto_realloc(s->ctx, c->iv, (size_t)ncap * 2 * sizeof(int64_t));
            if (!p) { s->oom = 1; return; }
            c->iv = p;
            c->cap = ncap;
        }
        memmove(c->iv + 2 * (i + 1), c->iv + 2 * i, (size_t)(c->n - i) * 2 * sizeof(int64_t));
        c->n++;
    } else {
        memmove(c->iv + 2 * (i + 1), c->iv + 2 * j, (size_t)(c->n - j) * 2 * sizeof(int64_t));
        c->n -= j - i - 1;
    }
    c->iv[2 * i] = lo;
    c->iv[2 * i + 1] = hi;
}

static void pto__mark_placed(const pto__group *g, pto__scratch *s, int32_t i, int separate)
{
    pto__tree_set(s, i, g->it[i].hi);
    if (separate) {
        pto__cls *c = pto__class_of(s, &g->it[i]);
        if (c) pto__cls_add(s, c, s->off[i], s->off[i] + g->it[i].size);
    }
}

/* The offset for item i: the lowest (first-fit) or tightest (best-fit) gap
   between the bytes it must avoid: the placed items live at the same time,
   and at the separate level every placed item of a conflicting pipe class. */
static int64_t pto__find_gap(const pto__group *g, pto__scratch *s, int32_t i, int bestfit, int separate)
{
    const pto__item *a = &g->it[i];
    int64_t cur = 0, best = -1, best_gap = 0;
    int32_t k, c;
    s->nhits = s->nobs = 0;
    pto__tree_find(s, s->lim[i], a->lo);
    for (k = 0; k < s->nhits; k++) pto__obs_add(s, s->off[s->hits[k]], s->off[s->hits[k]] + g->it[s->hits[k]].size);
    for (c = 0; separate && c < s->ncls; c++)
        if (pto__conflict(a, &s->cls[c].rep))
            for (k = 0; k < s->cls[c].n; k++) pto__obs_add(s, s->cls[c].iv[2 * k], s->cls[c].iv[2 * k + 1]);
    if (s->nobs > 1) qsort(s->obs, (size_t)s->nobs, 2 * sizeof(int64_t), pto__obs_cmp);
    for (k = 0; k < s->nobs; k++) {
        int64_t st = s->obs[2 * k], cand = pto__align_up(cur, g->granule);
        if (cand + a->size <= st) {
            if (!bestfit) return cand;
            if (best < 0 || st - cand < best_gap) { best = cand; best_gap = st - cand; }
        }
        if (s->obs[2 * k + 1] > cur) cur = s->obs[2 * k + 1];
    }
    return best >= 0 ? best : pto__align_up(cur, g->granule);
}

/* ---- placement orders, made lazily ------------------------------------------
   An attempt that cannot beat the best one so far stops as soon as its
   peak passes it (pto__place), often after a few items: so an order is
   made as it is read. Its first items come off a binary heap (O(n) to
   build, O(log n) per item); once a fair part of it has been read, the
   whole order is sorted at once (radix). Both give the one total order
   (own key larger first, then the base order), so idx is the same. */

/* Does item a come before item b in the order at hand (keys in sb.val)? */
static int pto__order_before(const pto__scratch *s, int32_t a, int32_t b)
{
    return s->sb.val[a] > s->sb.val[b] || (s->sb.val[a] == s->sb.val[b] && s->rank[a] < s->rank[b]);
}

static void pto__heap_down(pto__scratch *s, int32_t k)
{
    int32_t x = s->heap[k];
    for (;;) {
        int32_t c = 2 * k + 1;
        if (c >= s->nheap) break;
        if (c + 1 < s->nheap && pto__order_before(s, s->heap[c + 1], s->heap[c])) c++;
        if (!pto__order_before(s, s->heap[c], x)) break;
        s->heap[k] = s->heap[c];
        k = c;
    }
    s->heap[k] = x;
}

/* Starts placement order `order`: its own key (larger first), then the
   base order. Largest-first's own key is the size: the base itself. */
static void pto__order_start(const pto__group *g, pto__scratch *s, int order)
{
    int32_t i;
    if (order == PTO_ORDER_LARGEST) {
        memcpy(s->idx, s->sb.base, (size_t)g->n * sizeof *s->idx);
        s->navail = g->n;
        return;
    }
    for (i = 0; i < g->n; i++) {
        s->sb.val[i] = pto__order_key(&g->it[i], order);
        s->heap[i] = i;
    }
    s->nheap = g->n;
    s->navail = 0;
    for (i = g->n / 2 - 1; i >= 0; i--) pto__heap_down(s, i);
}

/* The k-th item of the order at hand (k <= navail: read in turn). */
static int32_t pto__order_at(const pto__group *g, pto__scratch *s, int32_t k)
{
    if (k < s->navail) return s->idx[k];
    if (s->navail >= 32 + g->n / 16) {   /* read far enough: sort the rest at once */
        memcpy(s->idx, s->sb.base, (size_t)g->n * sizeof *s->idx);
        pto__sort_by(s->idx, s->sb.tmp, g->n, s->sb.val, s->sb.key, 1, 0, 0);
        s->navail = g->n;
        return s->idx[k];
    }
    s->idx[s->navail++] = s->heap[0];
    s->heap[0] = s->heap[--s->nheap];
    pto__heap_down(s, 0);
    return s->idx[k];
}

/* Places every item with one order and fit; returns the peak (highest byte
   used), or stops with a peak past `limit` as soon as one is (an attempt
   that cannot fit need not be finished). s->off receives the offsets. */
static int64_t pto__place(const pto__group *g, pto__scratch *s, int bestfit, int separate, int64_t limit)
{
    int32_t k, c;
    int64_t peak = 0;
    pto__tree_reset(s);
    for (c = 0; c < s->ncls; c++) s->cls[c].n = 0;
    /* an item's offset is read only once it is placed (the tree and the
       classes hold placed items only; best[] copies a finished attempt) */
    for (c = 0; c < s->npins; c++) {
        k = s->pins[c];
        s->off[k] = g->it[k].pin;
        pto__mark_placed(g, s, k, separate);
        if (s->off[k] + g->it[k].size > peak) peak = s->off[k] + g->it[k].size;
    }
    for (k = 0; k < g->n && peak <= limit && !s->oom; k++) {
        int32_t i = pto__order_at(g, s, k);
        if (g->it[i].pin >= 0) continue;
        s->off[i] = pto__find_gap(g, s, i, bestfit, separate);
        pto__mark_placed(g, s, i, separate);
        if (s->off[i] + g->it[i].size > peak) peak = s->off[i] + g->it[i].size;
    }
    return peak;
}

/* ---- diagnostics ---------------------------------------------------------- */

static const char *pto__plan_tname(const pto_module *m, int32_t t) { return pto_str(m->ctx, m->tiles[t].name); }
static const char *pto__kname(const pto_module *m, int32_t k) { return pto_str(m->ctx, m->kernels[k].name); }

/* "a 65536 (line 3)", "b 2x32768 (line 4)": a tile, its bytes, where it is
   declared; a tile the lowering made says for what ("tput's staging tile
   __put2_stage 2x30976 (line 4)": its name alone is no name the user wrote). */
static void pto__item_desc(const pto_module *m, const pto__item *it, pto_buf *b)
{
    int nbuf = m->tiles[it->tile].nbuf;
    const char *name = pto__plan_tname(m, it->tile);
    if (m->tiles[it->tile].origin == PTO_BY_LOWER && name[0] == '_' && name[1] == '_')
        pto_buf_puts(b, strncmp(name, "__put", 5) == 0   ? "tput's staging tile "
                        : strncmp(name, "__get", 5) == 0 ? "tget's staging tile "
                        : strncmp(name, "__ar", 4) == 0  ? "allreduce's tile "
                                                         : "");
    if (nbuf > 1) pto_buf_printf(b, "%s %dx%lld", pto__plan_tname(m, it->tile), nbuf, (long long)it->stride);
    else pto_buf_printf(b, "%s %lld", pto__plan_tname(m, it->tile), (long long)it->size);
    pto_buf_printf(b, " (line %d)", (int)m->tiles[it->tile].loc.line);
}

#define PTO__OVERFLOW_SHOWN 5   /* live tiles an overflow message names (4 and "N more" past 5) */

/* The live item at point pt that comes next after item `prev` (-1: the
   first) in the order largest first, then declaration order; -1 if none.
   Repeated selection rather than a sort: only a few are named, and an
   error path should not allocate. */
static int32_t pto__next_largest(const pto__group *g, int32_t pt, int32_t prev)
{
    int32_t i, best = -1;
    for (i = 0; i < g->n; i++) {
        const pto__item *it = &g->it[i];
        if (!(it->lo <= pt && pt <= it->hi)) continue;
        if (prev >= 0 && !(it->size < g->it[prev].size || (it->size == g->it[prev].size && i > prev))) continue;
        if (best < 0 || it->size > g->it[best].size) best = i;
    }
    return best;
}

/* (A pointer, not a pto_loc by value: see pto__ps_tloc on tcc.) */
static const pto_loc *pto__pt_loc(const pto_module *m, const pto__live *lv, int32_t p)
{
    static const pto_loc none = {0, 0, 0};
    return p >= 0 && p < lv->npts ? &m->stmts[lv->at[p]].loc : &none;
}

static pto_status pto__plan_overflow(pto_ctx *ctx, const pto_module *m, const pto__live *lv,
                                const pto__group *g, int64_t peak, const pto_plan_desc *d, int exact)
{
    pto_buf b;
    pto_loc live = *pto__pt_loc(m, lv, g->live_pt), loc = live;
    int32_t i, nlive = 0, k, q = -1, shown;
    pto_status st;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    /* the pipe buffers take at least as much as the tiles: the fix is in the
       pipe declaration (fewer local slots), so the error names it there */
    if (g->reserved && g->reserved >= peak) q = pto__pipe_desc(m, g->kernel, (pto_space)g->space, NULL);
    if (q >= 0) loc = m->cvpipes[q].loc;
    for (i = 0; i < g->n; i++) nlive += g->it[i].lo <= g->live_pt && g->live_pt <= g->it[i].hi;
    pto_buf_printf(&b, "kernel '%s': %s overflows: needs %lld bytes, capacity %lld", pto__kname(m, g->kernel),
                   pto_space_name((pto_space)g->space), (long long)(peak + g->reserved), (long long)g->cap);
    if (g->reserved)
        pto_buf_printf(&b, " (%lld reserved for %s", (long long)g->reserved,
                       pto__reserved_for(m, g->kernel, (pto_space)g->space));
    if (q >= 0) {
        pto_buf_puts(&b, ": ");
        pto__pipe_desc(m, g->kernel, (pto_space)g->space, &b);
    }
    if (g->reserved) pto_buf_puts(&b, ")");
    /* what to shrink: the biggest tiles live where the need peaks */
    pto_buf_printf(&b, "; at line %d, %d tile%s live (%lld bytes), largest first:", (int)live.line, (int)nlive,
                   nlive == 1 ? " is" : "s are", (long long)g->live_max);
    shown = nlive <= PTO__OVERFLOW_SHOWN ? nlive : PTO__OVERFLOW_SHOWN - 1;
    for (k = 0, i = -1; k < shown && (i = pto__next_largest(g, g->live_pt, i)) >= 0; k++) {
        pto_buf_puts(&b, k ? ", " : " ");
        pto__item_desc(m, &g->it[i], &b);
    }
    if (nlive > k) pto_buf_printf(&b, " and %d more", (int)(nlive - k));
    if (g->live_max + g->reserved <= g->cap) {   /* they would fit: the placement is what failed */
        pto_buf_printf(&b, "; the rest is fragmentation: tried %d placement orders (", d->norders);
        for (i = 0; i < d->norders; i++)
            pto_buf_printf(&b, "%s%s", i ? ", " : "", pto__order_names[d->orders[i]]);
        pto_buf_puts(&b, "), first-fit and best-fit each");
        if (exact) pto_buf_puts(&b, ", and a complete search: no placement of these lifetimes fits");
    }
    st = b.oom ? PTO_ERR_INTERNAL : pto_error(ctx, loc, "%s", b.data);
    pto_buf_free(&b);
    return st;
}

/* Pins: aligned, inside the space, and never overlapping another live pin. */
static pto_status pto__check_pins(pto_ctx *ctx, const pto_module *m, const pto__group *g)
{
    pto_status st = PTO_OK;
    int32_t i, j;
    for (i = 0; i < g->n; i++) {
        const pto__item *a = &g->it[i];
        const pto_tile *t = &m->tiles[a->tile];
        if (a->pin < 0) continue;
        if (a->pin % 32)
            st = pto_error(ctx, t->loc, "tile '%s' pinned at 0x%llx is not 32-byte aligned",
                           pto__plan_tname(m, a->tile), (long long)a->pin);
        else if (a->pin + a->size > g->avail)
            st = pto_error(ctx, t->loc, "tile '%s' pinned at 0x%llx ends at 0x%llx, past the %s capacity 0x%llx%s%s%s",
                           pto__plan_tname(m, a->tile), (long long)a->pin, (long long)(a->pin + a->size),
                           pto_space_name((pto_space)g->space), (long long)g->avail,
                           g->reserved ? " (the rest is reserved for " : "",
                           g->reserved ? pto__reserved_for(m, g->kernel, (pto_space)g->space) : "",
                           g->reserved ? ")" : "");
        for (j = 0; j < i; j++) {
            const pto__item *b = &g->it[j];
            int64_t lo, hi;
            if (b->pin < 0 || !pto__overlap_time(a, b)) continue;
            lo = a->pin > b->pin ? a->pin : b->pin;
            hi = a->pin + a->size < b->pin + b->size ? a->pin + a->size : b->pin + b->size;
            if (lo < hi)
                st = pto_error(ctx, t->loc, "pinned tiles '%s' and '%s' overlap at %s bytes [0x%llx, 0x%llx) while both live",
                               pto__plan_tname(m, b->tile), pto__plan_tname(m, a->tile), pto_space_name((pto_space)g->space),
                               (long long)lo, (long long)hi);
        }
    }
    return st;
}

/* ---- one group ------------------------------------------------------------ */

/* Tries every level, order and fit; keeps the lowest peak of the first
   level that fits. Returns 1 when a placement fits (best[] holds it).
   Attempts stop once past `limit`; *min_peak is exact only when limit
   is never reached (the caller asks again without a limit when nothing
   fits, to report the real need). */
static int pto__search(const pto__group *g, const pto_plan_desc *d, pto__scratch *s, pto_plan_stat *stat,
                       int64_t limit, int64_t *min_peak)
{
    int level, o, fit;
    *min_peak = -1;
    for (level = d->tight ? PTO_PLAN_TIGHT : PTO_PLAN_SEPARATE; level <= PTO_PLAN_TIGHT; level++) {
        int64_t best_peak = -1;
        for (o = 0; o < d->norders; o++) {
            pto__order_start(g, s, d->orders[o]);
            for (fit = 0; fit < PTO__NFITS && !s->oom; fit++) {
                /* an attempt that reaches the best peak so far cannot win
                   (a tie keeps the first): stop it there */
                int64_t lim = best_peak >= 0 && best_peak - 1 < limit ? best_peak - 1 : limit;
                int64_t peak = pto__place(g, s, fit, level == PTO_PLAN_SEPARATE, lim);
                if (*min_peak < 0 || peak < *min_peak) *min_peak = peak;
                if (peak > g->avail || (best_peak >= 0 && peak >= best_peak)) continue;
                best_peak = peak;
                memcpy(s->best, s->off, (size_t)g->n * sizeof(int64_t));
                stat->level = (uint8_t)level;
                stat->order = (uint8_t)d->orders[o];
                stat->fit = (uint8_t)fit;
                stat->peak = peak;
                /* live_max is a lower bound of every peak: no later attempt
                   can beat this one, and a tie keeps it */
                if (peak <= g->live_max) return 1;
            }
        }
        if (best_peak >= 0) return 1;
    }
    return 0;
}

/* ---- a last, complete search for small groups -----------------------------
   When no order and fit places a group whose tiles would fit (the bytes
   live at every point are within the space: only the placement failed),
   a group of at most PTO__EXACT_TILES tiles gets a complete search
   (review23 L5: 2 in 900 random kernels were refused so). Tiles are placed
   one at a time, each at the lowest offset clear of the placed tiles it
   lives with, and every tile not yet placed is tried as the next one
   (tiles alike in size and lifetime once). That finds a placement whenever
   one exists: take one, by offset; placing its tiles in that order, each
   lands at or below its offset there, which leaves the later ones their
   room. Bounded by PTO__EXACT_BUDGET tiles placed in all. */

#define PTO__EXACT_TILES 16
#define PTO__EXACT_BUDGET 4000000L

typedef struct pto__exact {
    const pto__group *g;
    int64_t *off;          /* per item; pinned items hold their pin */
    unsigned char *placed;
    long budget;
    int32_t left;          /* items still to place */
} pto__exact;

/* The lowest granule-aligned offset where item i fits clear of the placed
   items it lives with, or -1 when it does not fit below g->avail. */
static int64_t pto__exact_gap(const pto__exact *x, int32_t i)
{
    const pto__group *g = x->g;
    int64_t cand = 0;
    int moved = 1;
    int32_t j;
    while (moved) {   /* at most one pass per placed item: each move passes one */
        moved = 0;
        for (j = 0; j < g->n; j++) {
            if (!x->placed[j] || j == i || !pto__overlap_time(&g->it[i], &g->it[j])) continue;
            if (cand < x->off[j] + g->it[j].size && x->off[j] < cand + g->it[i].size) {
                cand = pto__align_up(x->off[j] + g->it[j].size, g->granule);
                moved = 1;
            }
        }
        if (cand + g->it[i].size > g->avail) return -1;
    }
    return cand;
}

static int pto__exact_alike(const pto__item *a, const pto__item *b)
{
    return a->size == b->size && a->lo == b->lo && a->hi == b->hi;
}

static int pto__exact_place(pto__exact *x)
{
    const pto__group *g = x->g;
    int32_t i, j;
    if (x->left == 0) return 1;
    for (i = 0; i < g->n; i++) {
        int64_t o;
        int dup = 0;
        if (x->placed[i]) continue;
        for (j = 0; j < i && !dup; j++) dup = !x->placed[j] && pto__exact_alike(&g->it[i], &g->it[j]);
        if (dup) continue;   /* an alike tile was tried in this place already */
        if (--x->budget < 0) return 0;
        if ((o = pto__exact_gap(x, i)) < 0) continue;
        x->off[i] = o;
        x->placed[i] = 1;
        x->left--;
        if (pto__exact_place(x)) return 1;
        x->placed[i] = 0;
        x->left++;
    }
    return 0;
}

/* 1 and s->best, stat filled when the search places the group (at the
   tight level); 0 when it cannot (*ran: whether it ran to the end, so the
   error can say no placement exists). */
static int pto__exact_search(const pto__group *g, pto__scratch *s, pto_plan_stat *stat, int *ran)
{
    pto__exact x;
    int32_t i, nfree = 0;
    int ok;
    *ran = 0;
    for (i = 0; i < g->n; i++) nfree += g->it[i].pin < 0;
    if (nfree > PTO__EXACT_TILES || g->live_max > g->avail) return 0;
    memset(&x, 0, sizeof x);
    x.g = g;
    x.off = s->off;
    x.placed = (unsigned char *)pto_alloc(s->ctx, (size_t)g->n + 1);
    if (!x.placed) { s->oom = 1; return 0; }
    x.budget = PTO__EXACT_BUDGET;
    x.left = nfree;
    for (i = 0; i < g->n; i++) {
        x.placed[i] = g->it[i].pin >= 0;
        if (x.placed[i]) x.off[i] = g->it[i].pin;
    }
    ok = pto__exact_place(&x);
    *ran = ok || x.budget >= 0;
    pto_free(s->ctx, x.placed);
    if (!ok) return 0;
    memcpy(s->best, s->off, (size_t)g->n * sizeof(int64_t));
    stat->level = (uint8_t)PTO_PLAN_TIGHT;
    stat->order = 0;
    stat->fit = 2;
    stat->peak = 0;
    for (i = 0; i < g->n; i++)
        if (s->best[i] + g->it[i].size > stat->peak) stat->peak = s->best[i] + g->it[i].size;
    return 1;
}

static void pto__scratch_free(pto__scratch *s)
{
    int32_t c;
    pto_free(s->ctx, s->idx);
    pto_free(s->ctx, s->sb.tmp);
    pto_free(s->ctx, s->sb.base);
    pto_free(s->ctx, s->rank);
    pto_free(s->ctx, s->heap);
    pto_free(s->ctx, s->sb.val);
    pto_free(s->ctx, s->sb.key);
    pto_free(s->ctx, s->bylo);
    pto_free(s->ctx, s->byhi);
    pto_free(s->ctx, s->leaf);
    pto_free(s->ctx, s->tree);
    pto_free(s->ctx, s->hits);
    pto_free(s->ctx, s->lim);
    pto_free(s->ctx, s->touched);
    pto_free(s->ctx, s->pins);
    pto_free(s->ctx, s->off);
    pto_free(s->ctx, s->best);
    pto_free(s->ctx, s->obs);
    for (c = 0; c < s->ncls; c++) pto_free(s->ctx, s->cls[c].iv);
    pto_free(s->ctx, s->cls);
}

static int pto__scratch_init(pto_ctx *ctx, const pto__group *g, pto__scratch *s)
{
    size_t n = (size_t)g->n + 1;
    int32_t k;
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    for (s->width = 1; s->width < g->n; s->width *= 2) {}
    s->idx = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->sb.tmp = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->sb.base = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->rank = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->heap = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->sb.val = (int64_t *)pto_alloc(ctx, n * sizeof(int64_t));
    s->sb.key = (uint64_t *)pto_alloc(ctx, n * sizeof(uint64_t));
    s->bylo = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->byhi = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->leaf = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->hits = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->lim = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->pins = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->touched = (int32_t *)pto_alloc(ctx, 2 * (size_t)s->width * sizeof(int32_t));
    s->tree = (int32_t *)pto_alloc(ctx, 2 * (size_t)s->width * sizeof(int32_t));
    s->off = (int64_t *)pto_alloc(ctx, n * sizeof(int64_t));
    s->best = (int64_t *)pto_alloc(ctx, n * sizeof(int64_t));
    if (!s->idx || !s->sb.tmp || !s->sb.base || !s->rank || !s->heap || !s->sb.val || !s->sb.key || !s->bylo || !s->byhi || !s->leaf || !s->hits || !s->lim || !s->pins || !s->touched || !s->tree || !s->off || !s->best) return 0;
    for (k = 1; k < 2 * s->width; k++) s->tree[k] = -1;   /* empty; pto__tree_reset keeps it so */
    for (k = 0; k < g->n; k++)
        if (g->it[k].pin >= 0) s->pins[s->npins++] = k;
    return 1;
}

/* s->lim for every item, by one merge of the items by end (byhi) with the
   items by start (bylo): the same counts as a binary search over bylo per
   placement, computed once for all the attempts. */
static void pto__prefix_limits(const pto__group *g, pto__scratch *s)
{
    int32_t e, j = 0;
    for (e = 0; e < g->n; e++) {
        int32_t i = s->byhi[e];
        while (j < g->n && g->it[s->bylo[j]].lo <= g->it[i].hi) j++;
        s->lim[i] = j;
    }
}

static pto_status pto__plan_group(pto_ctx *ctx, pto_module *m, const pto__live *lv, pto__group *g,
                                  const pto_plan_desc *d, pto_plan_stat *stat)
{
    pto__scratch s;
    int64_t min_peak;
    pto_status st;
    int32_t i;
    int ran = 0;
    stat->kernel = g->kernel;
    stat->core = (uint8_t)g->core;
    stat->space = (uint8_t)g->space;
    stat->capacity = g->cap;
    stat->reserved = g->reserved;
    stat->ntiles = g->n;
    if (!pto__scratch_init(ctx, g, &s)) {
        pto__scratch_free(&s);
        pto__oom(ctx);
        return PTO_ERR_INTERNAL;
    }
    pto__group_live_max(g, s.bylo, s.byhi, &s.sb);
    pto__sort_base(g, &s.sb, s.bylo);
    for (i = 0; i < g->n; i++) s.rank[s.sb.base[i]] = i;
    stat->live_max = g->live_max;
    stat->live_stmt = g->live_pt >= 0 ? lv->at[g->live_pt] : -1;
    for (i = 0; i < g->n; i++) s.leaf[s.bylo[i]] = i;
    pto__prefix_limits(g, &s);
    st = pto__check_pins(ctx, m, g);
    if (st != PTO_OK) {
        pto__scratch_free(&s);
        return st;
    }
    if (!pto__search(g, d, &s, stat, g->avail, &min_peak) && !(!s.oom && pto__exact_search(g, &s, stat, &ran))) {
        if (!s.oom) pto__search(g, d, &s, stat, INT64_MAX, &min_peak);
        st = s.oom ? PTO_ERR_INTERNAL : pto__plan_overflow(ctx, m, lv, g, min_peak, d, ran);
    } else if (!s.oom) {
        for (i = 0; i < g->n; i++) {
            pto_tile *t = &m->tiles[g->it[i].tile];
            int k;
            for (k = 0; k < t->nbuf; k++) t->offset[k] = s.best[i] + k * g->it[i].stride;
            t->planned = 1;
        }
    }
    if (s.oom) { pto__oom(ctx); st = PTO_ERR_INTERNAL; }
    pto__scratch_free(&s);
    return st;
}

/* ---- driver ---------------------------------------------------------------- */

typedef struct pto__tkey {
    int64_t key;
    int32_t tile;
} pto__tkey;

/* Sorts keys by group key; ties keep their order (tile order: the keys are
   made in tile order): the groups in key order, each in tile order. */
static int pto__sort_keys(pto_ctx *ctx, pto__tkey *keys, int32_t n)
{
    size_t z = (size_t)n + 1;
    int32_t *v = (int32_t *)pto_alloc(ctx, z * sizeof(int32_t)), *tmp = (int32_t *)pto_alloc(ctx, z * sizeof(int32_t)), i;
    int64_t *val = (int64_t *)pto_alloc(ctx, z * sizeof(int64_t));
    uint64_t *key = (uint64_t *)pto_alloc(ctx, z * sizeof(uint64_t));
    pto__tkey *out = (pto__tkey *)pto_alloc(ctx, z * sizeof *out);
    int ok = v && tmp && val && key && out;
    if (ok) {
        for (i = 0; i < n; i++) val[i] = keys[i].key;
        pto__sort_by(v, tmp, n, val, key, 0, 1, 1);
        for (i = 0; i < n; i++) out[i] = keys[v[i]];
        memcpy(keys, out, (size_t)n * sizeof *out);
    } else {
        pto__oom(ctx);
    }
    pto_free(ctx, v);
    pto_free(ctx, tmp);
    pto_free(ctx, val);
    pto_free(ctx, key);
    pto_free(ctx, out);
    return ok;
}

static int64_t pto__group_key(const pto_tile *t) { return ((int64_t)t->kernel << 8) | (t->core << 4) | t->space; }

/* A tile the planner cannot size: reported, and left unplanned. */
static pto_status pto__check_tile(pto_ctx *ctx, const pto_module *m, int32_t t)
{
    const pto_tile *tl = &m->tiles[t];
    if (tl->nbuf < 1 || tl->nbuf > PTO_MAX_NBUF)
        return pto_error(ctx, tl->loc, "tile '%s' has %d slots; 1 to %d are allowed", pto__plan_tname(m, t), (int)tl->nbuf,
                         PTO_MAX_NBUF);
    if (tl->rows <= 0 || tl->cols <= 0 || pto_dtype_size((pto_dtype)tl->dtype) == 0)
        return pto_error(ctx, tl->loc, "tile '%s' has no size", pto__plan_tname(m, t));
    if (tl->kernel < 0 || tl->kernel >= m->n_kernels)
        return pto_error(ctx, tl->loc, "tile '%s' belongs to no kernel", pto__plan_tname(m, t));
    return PTO_OK;
}

static int pto__result_push(pto_ctx *ctx, pto_plan_result *r, const pto_plan_stat *s)
{
    if (r->n == r->cap) {
        int32_t ncap = r->cap ? r->cap * 2 : 16;
        pto_plan_stat *p = (pto_plan_stat *)pto_realloc(ctx, r->stats, (size_t)ncap * sizeof *p);
        if (!p) { pto__oom(ctx); return 0; }
        r->stats = p;
        r->cap = ncap;
    }
    r->stats[r->n++] = *s;
    return 1;
}

static void pto__group_init(const pto_module *m, const pto__live *lv, pto__group *g, const pto__tkey *keys,
                            int32_t n)
{
    const pto_tile *t0 = &m->tiles[keys[0].tile];
    int32_t i;
    g->kernel = t0->kernel;
    g->core = t0->core;
    g->space = t0->space;
    g->cap = pto_space_capacity(m->arch, (pto_space)g->space);
    g->reserved = pto__reserved(m, g->kernel, (pto_space)g->space);
    g->avail = g->cap - g->reserved;
    g->granule = pto_plan_granule((pto_space)g->space);
    g->n = n;
    for (i = 0; i < n; i++) {
        int32_t t = keys[i].tile;
        pto__item *it = &g->it[i];
        it->tile = t;
        it->stride = pto__tile_stride(&m->tiles[t]);
        it->size = it->stride * m->tiles[t].nbuf;
        it->pin = m->tiles[t].pin >= 0 ? m->tiles[t].pin : -1;
        it->lo = lv->lo[t] >= 0 ? lv->lo[t] : 0;
        it->hi = lv->hi[t] >= 0 ? lv->hi[t] : 0;
        it->rd = lv->rd[t];
        it->wr = lv->wr[t];
    }
}

static pto_status pto__plan_groups(pto_ctx *ctx, pto_module *m, const pto__live *lv, const pto__tkey *keys,
                                   int32_t nk, const pto_plan_desc *d)
{
    pto_status st = PTO_OK;
    pto__group g;
    int32_t i = 0, j;
    g.it = (pto__item *)pto_alloc(ctx, ((size_t)nk + 1) * sizeof(pto__item));
    if (!g.it) { pto__oom(ctx); return PTO_ERR_INTERNAL; }
    while (i < nk) {
        pto_plan_stat stat;
        pto_status gs;
        for (j = i; j < nk && keys[j].key == keys[i].key; j++) {}
        memset(&stat, 0, sizeof stat);
        pto__group_init(m, lv, &g, keys + i, j - i);
        gs = pto__plan_group(ctx, m, lv, &g, d, &stat);
        if (gs != PTO_OK && st != PTO_ERR_INTERNAL) st = gs;
        if (d->result && !pto__result_push(ctx, d->result, &stat)) st = PTO_ERR_INTERNAL;
        if (st == PTO_ERR_INTERNAL) break;
        i = j;
    }
    pto_free(ctx, g.it);
    return st;
}

static const pto_plan_order pto__default_orders[PTO_NORDER] = {
    PTO_ORDER_LARGEST, PTO_ORDER_START, PTO_ORDER_LONGEST, PTO_ORDER_AREA
};

/* The local slots of pipe q (with the pipes before it) pass the top of
   space s; the error points at the pipe's declaration. */
static pto_status pto__pipe_nofit(pto_ctx *ctx, const pto_module *m, int32_t q, pto_space s)
{
    pto_buf b;
    pto_status st;
    const pto_cvpipe *p = &m->cvpipes[q];
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_buf_printf(&b, "kernel '%s': the local slots of pipe '%s' do not fit %s: needs %lld bytes, capacity %lld (",
                   pto__kname(m, p->kernel), pto_str(ctx, p->name), pto_space_name(s),
                   (long long)pto__reserved(m, p->kernel, s), (long long)pto_space_capacity(m->arch, s));
    pto__pipe_desc(m, p->kernel, s, &b);
    pto_buf_puts(&b, ")");
    st = b.oom ? PTO_ERR_INTERNAL : pto_error(ctx, p->loc, "%s", b.data);
    pto_buf_free(&b);
    return st;
}

/* A tile that a tpop fills lives in its pipe's reserved consumer slots:
   offset[0] is the pipe's base and its pops rotate through local_slot_num
   slots from there (the emitter and the simulator compute the slot), so
   the tile is placed here and kept out of the groups. The verifier makes
   it the only destination of that pipe in its section. Returns 1 when t is
   such a tile. */
static int pto__pipe_dest(pto_ctx *ctx, pto_module *m, int32_t t, pto_status *st)
{
    int32_t s;
    if (m->n_cvpipes == 0) return 0;   /* no pipe: no scan (long kernels) */
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *x = &m->stmts[s];
        const pto_operand *o;
        int64_t base;
        if (x->kind != PTO_ST_OP || x->op != PTO_OP_TPOP || x->nargs != 2 || x->block < 0) continue;
        o = &m->operands[x->arg0];
        if (o->kind != PTO_O_TILE || o->ref != t || m->operands[x->arg0 + 1].kind != PTO_O_CVPIPE) continue;
        base = pto_plan_pipe_base(m, m->operands[x->arg0 + 1].ref, (pto_space)m->tiles[t].space);
        if (base < 0) {
            *st = pto__pipe_nofit(ctx, m, m->operands[x->arg0 + 1].ref, (pto_space)m->tiles[t].space);
            return 1;
        }
        memset(m->tiles[t].offset, 0, sizeof m->tiles[t].offset);
        m->tiles[t].offset[0] = base;
        m->tiles[t].planned = 1;
        return 1;
    }
    return 0;
}

PTODEF pto_status pto_plan(pto_ctx *ctx, pto_module *m, const pto_plan_desc *desc)
{
    pto_plan_desc d;
    pto__live lv;
    pto__tkey *keys;
    pto_status st = PTO_OK;
    int32_t t, nk = 0, i;
    if (pto__need_verified(ctx, m, "pto_plan") != PTO_OK) return PTO_ERR_USER;
    m->unsynced = 1;   /* new offsets: pto_sync must run (again) before emit (ir.h) */
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    for (i = 0; i < d.norders; i++)
        if (d.orders[i] < 0 || d.orders[i] >= PTO_NORDER) d.norders = 0;
    if (d.norders <= 0 || !d.orders) { d.orders = pto__default_orders; d.norders = PTO_NORDER; }
    if (d.result) d.result->n = 0;
    if (pto__live_build(ctx, m, &lv) != PTO_OK) return PTO_ERR_INTERNAL;
    keys = (pto__tkey *)pto_alloc(ctx, ((size_t)m->n_tiles + 1) * sizeof *keys);
    if (!keys) { pto__live_free(ctx, &lv); pto__oom(ctx); return PTO_ERR_INTERNAL; }
    for (t = 0; t < m->n_tiles; t++) {
        if (!pto__local(&m->tiles[t])) continue;
        m->tiles[t].planned = 0;
        if (pto__pipe_dest(ctx, m, t, &st)) continue;
        if (pto__check_tile(ctx, m, t) != PTO_OK) { st = PTO_ERR_USER; continue; }
        keys[nk].key = pto__group_key(&m->tiles[t]);
        keys[nk++].tile = t;
    }
    if (!pto__sort_keys(ctx, keys, nk)) { pto_free(ctx, keys); pto__live_free(ctx, &lv); return PTO_ERR_INTERNAL; }
    {
        pto_status gs = pto__plan_groups(ctx, m, &lv, keys, nk, &d);
        if (gs != PTO_OK) st = gs;
    }
    pto_free(ctx, keys);
    pto__live_free(ctx, &lv);
    return st;
}

PTODEF void pto_plan_result_free(pto_ctx *ctx, pto_plan_result *r)
{
    if (!r) return;
    pto_free(ctx, r->stats);
    memset(r, 0, sizeof *r);
}

/* ---- the report ------------------------------------------------------------ */

#define PTO__MAP_COLS 64
#define PTO__MAP_ROWS 60

static char pto__letter(int32_t i)
{
    if (i < 26) return (char)('a' + i);
    if (i < 52) return (char)('A' + i - 26);
    if (i < 62) return (char)('0' + i - 52);
    return '*';
}

static void pto__lines(const pto_module *m, const pto__live *lv, int32_t lo, int32_t hi, int *l0, int *l1)
{
    int32_t p;
    *l0 = *l1 = 0;
    for (p = lo; p >= 0 && p <= hi && p < lv->npts; p++) {
        int line = (int)m->stmts[lv->at[p]].loc.line;
        if (*l0 == 0 || line < *l0) *l0 = line;
        if (line > *l1) *l1 = line;
    }
}

/* Whether statement s has a point (the report's statements only: a scan). */
static int pto__numbered(const pto__live *lv, int32_t s)
{
    int32_t p;
    for (p = 0; p < lv->npts; p++)
        if (lv->at[p] == s) return 1;
    return 0;
}

static const pto_plan_stat *pto__find_stat(const pto_plan_result *r, int32_t k, int core, int space)
{
    int32_t i;
    for (i = 0; r && i < r->n; i++)
        if (r->stats[i].kernel == k && r->stats[i].core == core && r->stats[i].space == space) return &r->stats[i];
    return NULL;
}

/* The tiles of one memory, in id order; returns how many. */
static int32_t pto__collect(const pto_module *m, int32_t k, int core, int space, int32_t *out)
{
    int32_t t, n = 0;
    for (t = 0; t < m->n_tiles; t++) {
        const pto_tile *tl = &m->tiles[t];
        if (tl->kernel == k && tl->core == core && tl->space == space && tl->planned) out[n++] = t;
    }
    return n;
}

static void pto__report_table(const pto_module *m, const pto__live *lv, const int32_t *ts, int32_t n, pto_buf *b)
{
    int32_t i;
    for (i = 0; i < n; i++) {
        const pto_tile *t = &m->tiles[ts[i]];
        int l0, l1;
        pto__lines(m, lv, lv->lo[ts[i]], lv->hi[ts[i]], &l0, &l1);
        pto_buf_printf(b, "  %c = %-12s %-6s 0x%06llx %8lld  x%d  lines %d-%d%s\n", pto__letter(i),
                       pto__plan_tname(m, ts[i]), pto_space_name((pto_space)t->space), (long long)t->offset[0],
                       (long long)(pto__tile_stride(t) * t->nbuf), (int)t->nbuf, l0, l1,
                       t->pin >= 0 ? "  pinned" : "");
    }
}

static void pto__report_summary(const pto_module *m, const pto__live *lv, const pto_plan_stat *s,
                                pto_space sp, pto_buf *b)
{
    static const char *const level_names[2] = {
        "separate (no byte shared across pipes)", "tight (bytes reused across pipes: adds waits between pipes)"
    };
    int64_t cap = pto_space_capacity(m->arch, sp);
    if (!s) {
        pto_buf_printf(b, "  %s: capacity %lld bytes\n", pto_space_name(sp), (long long)cap);
        return;
    }
    pto_buf_printf(b, "  %s: peak %lld of %lld bytes (%.1f%%), lower bound %lld", pto_space_name(sp),
                   (long long)s->peak, (long long)cap, cap ? 100.0 * (double)s->peak / (double)cap : 0.0,
                   (long long)s->live_max);
    if (s->live_stmt >= 0 && pto__numbered(lv, s->live_stmt))
        pto_buf_printf(b, " (live at line %d)", (int)m->stmts[s->live_stmt].loc.line);
    if (s->reserved)
        pto_buf_printf(b, ", %lld reserved for %s", (long long)s->reserved,
                       pto__isa_hole(m, s->kernel, sp) ? pto__reserved_for(m, s->kernel, sp) : "pipe buffers");
    pto_buf_printf(b, "\n    level %s, order %s, %s\n", level_names[s->level ? 1 : 0],
                   s->fit == 2 ? "none (a complete search)" : pto__order_names[s->order < PTO_NORDER ? s->order : 0],
                   s->fit == 2 ? "the first placement that fits" : s->fit ? "best-fit" : "first-fit");
}

static int64_t pto__cover(int64_t a0, int64_t a1, int64_t o0, int64_t o1)
{
    int64_t lo = a0 > o0 ? a0 : o0, hi = a1 < o1 ? a1 : o1;
    return hi > lo ? hi - lo : 0;
}

/* One map row: the tiles live at point p, address across. A column shows
   the tile covering most of its bytes; a tile too small to win a column
   still shows at the column of its first byte. */
static void pto__map_row(const pto_module *m, const pto__live *lv, const int32_t *ts, int32_t n, int32_t p,
                         int64_t cap, int64_t reserved, pto_buf *b)
{
    char row[PTO__MAP_COLS + 1];
    int64_t best[PTO__MAP_COLS];
    int c;
    int32_t i;
    for (c = 0; c < PTO__MAP_COLS; c++) {
        row[c] = cap * c / PTO__MAP_COLS >= cap - reserved ? '#' : '.';
        best[c] = 0;
    }
    for (i = 0; i < n; i++) {
        const pto_tile *t = &m->tiles[ts[i]];
        int64_t o0 = t->offset[0], o1 = o0 + pto__tile_stride(t) * t->nbuf;
        int shown = 0;
        if (!(lv->lo[ts[i]] <= p && p <= lv->hi[ts[i]])) continue;
        for (c = 0; c < PTO__MAP_COLS; c++) {
            int64_t cov = pto__cover(cap * c / PTO__MAP_COLS, cap * (c + 1) / PTO__MAP_COLS, o0, o1);
            if (cov > best[c]) { best[c] = cov; row[c] = pto__letter(i); shown = 1; }
        }
        c = (int)(o0 * PTO__MAP_COLS / cap);
        if (!shown && c >= 0 && c < PTO__MAP_COLS) row[c] = pto__letter(i);
    }
    row[PTO__MAP_COLS] = 0;
    pto_buf_printf(b, "    line %4d |%s|\n", (int)m->stmts[lv->at[p]].loc.line, row);
}

static void pto__report_map(const pto_module *m, const pto__live *lv, const int32_t *ts, int32_t n, pto_space sp,
                            int64_t reserved, pto_buf *b)
{
    int64_t cap = pto_space_capacity(m->arch, sp);
    int32_t p, i, rows = 0, p0 = INT32_MAX, p1 = -1;
    for (i = 0; i < n; i++) {
        if (lv->lo[ts[i]] >= 0 && lv->lo[ts[i]] < p0) p0 = lv->lo[ts[i]];
        if (lv->hi[ts[i]] > p1) p1 = lv->hi[ts[i]];
    }
    pto_buf_printf(b, "    %9s 0x0%*s0x%llx (one column = %lld bytes)\n", "", PTO__MAP_COLS - 6, "",
                   (long long)cap, (long long)(cap / PTO__MAP_COLS));
    /* a row wherever some tile becomes live */
    for (p = p0; p <= p1 && rows < PTO__MAP_ROWS; p++) {
        int starts = 0;
        for (i = 0; i < n; i++) starts |= lv->lo[ts[i]] == p;
        if (!starts) continue;
        pto__map_row(m, lv, ts, n, p, cap, reserved, b);
        rows++;
    }
    if (p <= p1) pto_buf_puts(b, "    ... (more rows)\n");
}

PTODEF void pto_plan_report(const pto_module *m, const pto_plan_result *r, pto_buf *out)
{
    pto__live lv;
    int32_t *ts, k;
    int core, sp;
    if (!m || !out) return;
    if (pto__live_build(m->ctx, m, &lv) != PTO_OK) { out->oom = 1; return; }
    ts = (int32_t *)pto_alloc(m->ctx, ((size_t)m->n_tiles + 1) * sizeof(int32_t));
    if (!ts) { pto__live_free(m->ctx, &lv); out->oom = 1; return; }
    for (k = 0; k < m->n_kernels; k++) {
        pto_buf_printf(out, "kernel %s (%s, %s)\n", pto__kname(m, k),
                       m->kernels[k].kind == PTO_KK_MIX ? "mix" : m->kernels[k].kind == PTO_KK_CUBE ? "cube" : "vector",
                       pto_arch_name(m->arch));
        /* "map = tile": the map's letter stands for the tile (review20 L11: "c d" read as two names) */
        pto_buf_printf(out, "map = %-12s %-6s %-8s %8s  %-3s %s\n", "tile", "space", "offset", "bytes", "slots",
                       "lifetime");
        for (core = 0; core < 2; core++)
            for (sp = PTO_VEC; sp < PTO_NSPACE; sp++) {
                int32_t n = pto__collect(m, k, core, sp, ts);
                if (n) pto__report_table(m, &lv, ts, n, out);
            }
        for (core = 0; core < 2; core++)
            for (sp = PTO_VEC; sp < PTO_NSPACE; sp++) {
                int32_t n = pto__collect(m, k, core, sp, ts);
                const pto_plan_stat *s = pto__find_stat(r, k, core, sp);
                if (!n) continue;
                pto__report_summary(m, &lv, s, (pto_space)sp, out);
                pto__report_map(m, &lv, ts, n, (pto_space)sp, s ? s->reserved : pto__reserved(m, k, (pto_space)sp), out);
            }
    }
    pto_free(m->ctx, ts);
    pto__live_free(m->ctx, &lv);
}

/* ---- the SVG picture ----------------------------------------------------- */

static void pto__svg_panel(const pto_module *m, const pto__live *lv, const int32_t *ts, int32_t n, int32_t k,
                           pto_space sp, double y0, pto_buf *b)
{
    const double W = 760, H = 260, X = 60;
    int64_t cap = pto_space_capacity(m->arch, sp);
    int32_t i, p0 = INT32_MAX, p1 = 0;
    for (i = 0; i < n; i++) {
        if (lv->lo[ts[i]] < p0) p0 = lv->lo[ts[i]];
        if (lv->hi[ts[i]] > p1) p1 = lv->hi[ts[i]];
    }
    pto_buf_printf(b, "<text x='%g' y='%g'>kernel %s: %s, %lld bytes (x: program order, y: address)</text>\n", X,
                   y0 - 6, pto__kname(m, k), pto_space_name(sp), (long long)cap);
    pto_buf_printf(b, "<rect x='%g' y='%g' width='%g' height='%g' fill='none' stroke='black'/>\n", X, y0, W, H);
    for (i = 0; i < n; i++) {
        const pto_tile *t = &m->tiles[ts[i]];
        double span = (double)(p1 - p0 + 1);
        double x = X + W * (lv->lo[ts[i]] - p0) / span, w = W * (lv->hi[ts[i]] - lv->lo[ts[i]] + 1) / span;
        double y = y0 + H * (double)t->offset[0] / (double)cap;
        double h = H * (double)(pto__tile_stride(t) * t->nbuf) / (double)cap;
        pto_buf_printf(b, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='hsl(%d,60%%,70%%)' "
                          "stroke='black'><title>%s 0x%llx +%lld</title></rect>\n",
                       x, y, w, h, (int)(i * 47 % 360), pto__plan_tname(m, ts[i]), (long long)t->offset[0],
                       (long long)(pto__tile_stride(t) * t->nbuf));
        pto_buf_printf(b, "<text x='%.1f' y='%.1f' font-size='10'>%s</text>\n", x + 2, y + 10, pto__plan_tname(m, ts[i]));
    }
}

PTODEF void pto_plan_svg(const pto_module *m, pto_buf *out)
{
    pto__live lv;
    int32_t *ts, k, panels = 0;
    int core, sp;
    if (!m || !out) return;
    if (pto__live_build(m->ctx, m, &lv) != PTO_OK) { out->oom = 1; return; }
    ts = (int32_t *)pto_alloc(m->ctx, ((size_t)m->n_tiles + 1) * sizeof(int32_t));
    if (!ts) { pto__live_free(m->ctx, &lv); out->oom = 1; return; }
    for (k = 0; k < m->n_kernels; k++)
        for (core = 0; core < 2; core++)
            for (sp = PTO_VEC; sp < PTO_NSPACE; sp++) panels += pto__collect(m, k, core, sp, ts) > 0;
    pto_buf_printf(out, "<svg xmlns='http://www.w3.org/2000/svg' width='840' height='%d' font-family='monospace' "
                        "font-size='12'>\n", 20 + panels * 300);
    panels = 0;
    for (k = 0; k < m->n_kernels; k++)
        for (core = 0; core < 2; core++)
            for (sp = PTO_VEC; sp < PTO_NSPACE; sp++) {
                int32_t n = pto__collect(m, k, core, sp, ts);
                if (n) pto__svg_panel(m, &lv, ts, n, k, (pto_space)sp, 30.0 + 300.0 * panels++, out);
            }
    pto_buf_puts(out, "</svg>\n");
    pto_free(m->ctx, ts);
    pto__live_free(m->ctx, &lv);
}
