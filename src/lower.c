/* lower.c - the lowering pass: communication ops become ops that the
   planner, the sync inserter and the emitter already know.

   Needs: a module that pto_verify accepted (ranks kernels, window and
   signal tensors, constant tput / tget extents, allreduce on an f32 window
   tensor with static dims: the verifier's rules for these ops), stamped
   (pto_module.verified; refused with an error otherwise). Its builder
   calls clear the stamp; it sets it again on PTO_OK.

   Guarantees on PTO_OK (hardware.md section 8):
   - no tput, tget or allreduce is left. Every statement the pass makes has
     origin PTO_BY_LOWER and a note saying why it is there; its tiles have
     origin PTO_BY_LOWER and are ordinary unplanned vec tiles, so the
     planner places them like any tile (a staging tile the planner does not
     see is the upstream bug of seeds/002) and the emitter declares them.
   - tput D@p[r, c], S[r, c], ROWS, COLS (tget: S@p) becomes a staging tile
     + tload (MTE2) + tstore (MTE3), chunked so one slot holds at most
     PTO__LW_XFER_BYTES; more than one chunk gives a loop over the chunks
     with the staging tile x2, so the load of chunk k + 1 overlaps the store
     of chunk k. Tails use the tile's valid region. Where the kernel's own
     tiles leave less room than that (pto__plan_room: the planner's
     intervals at the statement), the slots shrink to fit it; allreduce's
     chunk tiles likewise.
   - allreduce X, SIG becomes the recipe of hardware.md s8, counting
     barriers in cell SIG[0, 0] of every rank with AtomicAdd only:
       wait SIG[0, 0] < n (an earlier allreduce's subtract has landed);
       fence; notify SIG@p[0, 0] += 1 for every rank p; wait SIG[0, 0] >= n
       for every chunk ch (UB-sized, in rank-order-independent loops):
         acc = X@0 chunk; for q = 1 .. n-1: t = X@q chunk; acc = acc + t
         post-reduce barrier: fence; notify every rank; wait >= (ch + 2) * n
         store acc into the own X chunk
       fence; notify SIG[0, 0] += -(chunks + 1) * n   (back to where it was)
     Waits use GE, never EQ (a fast peer can move the cell past the value
     before a slow rank polls it). The post-reduce barrier keeps a fast rank
     from overwriting its window while a slow peer still reads it (the
     wrong sums at 4 ranks of seeds/001). Subtracting the own total makes
     the signal reusable by the next allreduce of the same kernel: with
     AtomicAdd only, a fast peer's early add for the next call is kept.
     The sum runs over ranks in order 0, 1, .., n-1 in f32 on every rank:
     the interpreter's order, so the results agree bit for bit.
   - every notify is directly preceded by pipe_barrier ALL: a notify
     publishes only what every pipe has finished. The pass puts the fence
     there (note "fence: ... inserted by lower") unless the source already
     has one right before the notify, or before a loop of notifies only
     that the notify opens (pto__lw_fenced: lower's own signal loops, so
     lowering a dumped kernel again adds nothing).
   - for the isa target only (pto_lower_for(..., PTO_TARGET_ISA)): every
     tload into a tile whose padding (the part outside its valid region)
     some op may read is directly followed by `tfillpad t` (origin lower,
     with a note): pto-isa's TLOAD leaves the padding as it was, and the
     fill is an instruction on another pipe that the sync pass must order
     (see "the isa target's padding fills" below). The simulator target
     gets none: its tload zeroes the padding itself. A fill already right
     after its tload (a dump of an isa compile read back: the one place
     verify takes a written tfillpad) is kept for the isa target, with no
     second one, and dropped for the simulator target.
   Names the pass makes start with "__" and the op and statement id
   (__ar12_ch). A user may spell such a name too (`let __put4_stage = 1`):
   in the IR every reference is an index, so only the generated C could mix
   them up, and the emitter renames every user name that starts with "__"
   (user___put4_stage, pto__emit_cname). */

#define PTO__LW_XFER_BYTES 32768   /* one slot of a tput / tget staging tile, at most */
#define PTO__LW_AR_BYTES 16384     /* one allreduce chunk tile, at most */
#define PTO__LW_MIN_SLOT 512       /* smaller would not be worth the chunk loop's trips */

typedef struct pto__lw {
    pto_ctx *ctx;
    pto_module *m;
    int32_t at;            /* the statement being lowered; new code goes before it */
    int64_t room;          /* vec bytes free at it (pto__plan_room), -1 unknown */
    pto_loc loc;
    char pre[40];          /* name prefix, e.g. "__ar12" */
    char buf[80];
} pto__lw;

static const char *pto__lw_name(pto__lw *L, const char *suffix)
{
    snprintf(L->buf, sizeof L->buf, "%s_%s", L->pre, suffix);
    return L->buf;
}

static void pto__lw_note(pto__lw *L, int32_t s, const char *note)
{
    if (s >= 0) L->m->stmts[s].note = pto_intern(L->ctx, note, strlen(note));
}

/* ---- expressions ---- */

static int32_t pto__lw_int(pto__lw *L, int64_t v) { return pto_expr_int(L->m, v, L->loc); }
static int32_t pto__lw_var(pto__lw *L, int32_t stmt) { return stmt < 0 ? -1 : pto_expr_var(L->m, L->m->stmts[stmt].ref, L->loc); }
static int32_t pto__lw_nranks(pto__lw *L) { return pto_expr_builtin(L->m, PTO_E_NRANKS, L->loc); }
static int32_t pto__lw_bin(pto__lw *L, pto_expr_kind k, int32_t a, int32_t b)
{
    return a < 0 || b < 0 ? -1 : pto_expr_bin(L->m, k, a, b, L->loc);
}

/* base + off, without the + when off is absent (-1). */
static int32_t pto__lw_plus(pto__lw *L, int32_t base, int32_t off) { return off < 0 ? base : pto__lw_bin(L, PTO_E_ADD, base, off); }

/* The value of a constant expression (lets followed); the verifier made
   sure the extents it is used for are constant. */
static int pto__lw_const(const pto_module *m, int32_t e, int64_t *v, int depth)
{
    const pto_expr *x;
    int64_t a = 0, b = 0;
    if (e < 0 || e >= m->n_exprs || depth > 200) return 0;
    x = &m->exprs[e];
    if (x->kind == PTO_E_INT) { *v = x->value; return 1; }
    if (x->kind == PTO_E_VAR) {
        const pto_var *var = x->a >= 0 && x->a < m->n_vars ? &m->vars[x->a] : NULL;
        return var && var->kind == PTO_V_LET && var->def >= 0 && pto__lw_const(m, m->stmts[var->def].e[0], v, depth + 1);
    }
    if (x->kind == PTO_E_NEG) {
        if (!pto__lw_const(m, x->a, &a, depth + 1)) return 0;
        *v = -a;
        return 1;
    }
    if (!pto__lw_const(m, x->a, &a, depth + 1) || !pto__lw_const(m, x->b, &b, depth + 1)) return 0;
    switch (x->kind) {
    case PTO_E_ADD: *v = a + b; return 1;
    case PTO_E_SUB: *v = a - b; return 1;
    case PTO_E_MUL: *v = a * b; return 1;
    case PTO_E_DIV: if (!b) return 0; *v = a / b; return 1;
    case PTO_E_MOD: if (!b) return 0; *v = a % b; return 1;
    case PTO_E_MIN: *v = a < b ? a : b; return 1;
    case PTO_E_MAX: *v = a > b ? a : b; return 1;
    default: return 0;
    }
}

/* ---- statements ----
   Builders append to a block; the pass builds the replacement at the end of
   the lowered statement's own block and then moves it in front of it. */

static int32_t pto__lw_op(pto__lw *L, int32_t block, pto_op op) { return pto_add_op(L->m, block, op, L->loc); }

static int32_t pto__lw_barrier_all(pto__lw *L, int32_t block, const char *note)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_PIPE_BARRIER);
    if (s >= 0 && pto_arg_pipe(L->m, s, PTO_PIPE_ALL, L->loc) < 0) return -1;
    pto__lw_note(L, s, note);
    return s;
}

static int32_t pto__lw_notify(pto__lw *L, int32_t block, int32_t param, int32_t rank, int32_t value, const char *note)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_NOTIFY), zero = pto__lw_int(L, 0);
    if (s < 0 || pto_arg_gm(L->m, s, param, zero, zero, rank, L->loc) < 0 || pto_arg_int(L->m, s, value, L->loc) < 0 ||
        pto_arg_nmode(L->m, s, PTO_NOTIFY_ADD, L->loc) < 0)
        return -1;
    pto__lw_note(L, s, note);
    return s;
}

static int32_t pto__lw_wait(pto__lw *L, int32_t block, int32_t param, pto_cmp cmp, int32_t value, const char *note)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_WAIT), zero = pto__lw_int(L, 0);
    if (s < 0 || pto_arg_gm(L->m, s, param, zero, zero, -1, L->loc) < 0 || pto_arg_cmp(L->m, s, cmp, L->loc) < 0 ||
        pto_arg_int(L->m, s, value, L->loc) < 0)
        return -1;
    pto__lw_note(L, s, note);
    return s;
}

/* tload t, P[r, c] (rank: -1 own) / tstore P[r, c], t */
static int32_t pto__lw_load(pto__lw *L, int32_t block, int32_t tile, int32_t param, int32_t r, int32_t c, int32_t rank)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_TLOAD);
    if (s < 0 || pto_arg_tile(L->m, s, tile, L->loc) < 0 || pto_arg_gm(L->m, s, param, r, c, rank, L->loc) < 0) return -1;
    return s;
}

static int32_t pto__lw_store(pto__lw *L, int32_t block, int32_t param, int32_t r, int32_t c, int32_t rank, int32_t tile)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_TSTORE);
    if (s < 0 || pto_arg_gm(L->m, s, param, r, c, rank, L->loc) < 0 || pto_arg_tile(L->m, s, tile, L->loc) < 0) return -1;
    return s;
}

/* A vec tile [rows, cols] with valid(vr, vc) (-1: full) and nbuf slots. */
static int32_t pto__lw_tile(pto__lw *L, int32_t block, const char *suffix, pto_dtype dt, int64_t rows, int64_t cols,
                            int32_t vr, int32_t vc, int nbuf)
{
    int32_t t = pto_add_tile(L->m, block, pto__lw_name(L, suffix), PTO_VEC, dt, (int32_t)rows, (int32_t)cols, L->loc);
    if (t < 0) return -1;
    L->m->tiles[t].valid_r = vr;
    L->m->tiles[t].valid_c = vc;
    L->m->tiles[t].nbuf = nbuf;
    return t;
}

static int32_t pto__lw_for(pto__lw *L, int32_t block, const char *suffix, int32_t start, int32_t end)
{
    if (start < 0 || end < 0) return -1;
    return pto_add_for(L->m, block, pto__lw_name(L, suffix), start, end, -1, L->loc);
}

/* ---- chunks ----
   A chunk grid over a ROWS x COLS window: tiles [tr, tc] (tc a multiple of
   32 bytes of the dtype), nr x nc chunks visited by one loop var ch as
   row (ch / nc) * tr, col (ch % nc) * tc. */

typedef struct pto__lw_grid {
    int64_t rows, cols, tr, tc, nr, nc;
} pto__lw_grid;

static void pto__lw_grid_make(pto__lw_grid *g, int64_t rows, int64_t cols, int esize, int64_t budget)
{
    int64_t per32 = 32 / esize, cp = (cols + per32 - 1) / per32 * per32;
    g->rows = rows, g->cols = cols;
    g->tc = cp * esize <= budget ? cp : budget / esize / per32 * per32;
    g->tr = budget / (g->tc * esize);
    if (g->tr < 1) g->tr = 1;
    if (g->tr > rows) g->tr = rows;
    g->nr = (rows + g->tr - 1) / g->tr;
    g->nc = (cols + g->tc - 1) / g->tc;
}

/* One slot's bytes when `slots` slots of a staging tile must fit in the
   room the kernel's tiles leave (dflt, the largest, when there is room
   or the room is unknown; also when the room is too small to chunk into:
   the planner then reports the overflow, naming the staging tile). */
static int64_t pto__lw_slot_budget(int64_t room, int slots, int64_t dflt)
{
    int64_t b = room < 0 ? dflt : room / slots / 32 * 32;
    return b >= PTO__LW_MIN_SLOT && b < dflt ? b : dflt;
}

/* Inside the chunk loop (ch: its FOR stmt): lets for the chunk's row and
   col offsets (*r, *c: their exprs, -1 for an offset that is always 0) and
   the valid extents of the chunk's tile (-1: the full tile). */
static int pto__lw_grid_pos(pto__lw *L, const pto__lw_grid *g, int32_t body, int32_t ch, int32_t *r, int32_t *c,
                            int32_t *vr, int32_t *vc)
{
    int32_t chv = pto__lw_var(L, ch), s;
    *r = *c = *vr = *vc = -1;
    if (g->nr > 1) {
        int32_t row = g->nc > 1 ? pto__lw_bin(L, PTO_E_DIV, chv, pto__lw_int(L, g->nc)) : chv;
        s = pto_add_let(L->m, body, pto__lw_name(L, "r"), pto__lw_bin(L, PTO_E_MUL, row, pto__lw_int(L, g->tr)), L->loc);
        if ((*r = pto__lw_var(L, s)) < 0) return 0;
    }
    if (g->nc > 1) {
        int32_t col = g->nr > 1 ? pto__lw_bin(L, PTO_E_MOD, pto__lw_var(L, ch), pto__lw_int(L, g->nc)) : pto__lw_var(L, ch);
        s = pto_add_let(L->m, body, pto__lw_name(L, "c"), pto__lw_bin(L, PTO_E_MUL, col, pto__lw_int(L, g->tc)), L->loc);
        if ((*c = pto__lw_var(L, s)) < 0) return 0;
    }
    if (g->rows % g->tr)
        *vr = pto__lw_bin(L, PTO_E_MIN, pto__lw_int(L, g->tr),
                          *r < 0 ? pto__lw_int(L, g->rows) : pto__lw_bin(L, PTO_E_SUB, pto__lw_int(L, g->rows), *r));
    if (g->cols % g->tc)
        *vc = pto__lw_bin(L, PTO_E_MIN, pto__lw_int(L, g->tc),
                          *c < 0 ? pto__lw_int(L, g->cols) : pto__lw_bin(L, PTO_E_SUB, pto__lw_int(L, g->cols), *c));
    if (*vr < 0 && *vc >= 0) *vr = pto__lw_int(L, g->tr);
    if (*vc < 0 && *vr >= 0) *vc = pto__lw_int(L, g->tc);
    return 1;
}

/* ---- tput / tget ---- */

static int pto__lw_xfer(pto__lw *L, int32_t block)
{
    pto_module *m = L->m;
    const pto_operand d = *pto_stmt_arg(m, L->at, 0), a = *pto_stmt_arg(m, L->at, 1);
    pto_dtype dt = (pto_dtype)m->params[a.ref].dtype;
    pto__lw_grid g;
    int64_t rows, cols;
    int32_t body = block, ch = -1, r, c, vr, vc, t, s;
    if (!pto__lw_const(m, pto_stmt_arg(m, L->at, 2)->e[0], &rows, 0) ||
        !pto__lw_const(m, pto_stmt_arg(m, L->at, 3)->e[0], &cols, 0) || rows < 1 || cols < 1)
        return pto_error(L->ctx, L->loc, "lower: the extents of %s are not constant (verify first)",
                         pto_opinfo_get((pto_op)m->stmts[L->at].op)->name) == PTO_OK;
    /* one x1 tile when the window fits a slot and the room; else chunks
       through an x2 tile whose slots fit the room */
    pto__lw_grid_make(&g, rows, cols, pto_dtype_size(dt), PTO__LW_XFER_BYTES);
    if (g.nr * g.nc > 1 || (L->room >= 0 && g.tr * g.tc * pto_dtype_size(dt) > L->room))
        pto__lw_grid_make(&g, rows, cols, pto_dtype_size(dt), pto__lw_slot_budget(L->room, 2, PTO__LW_XFER_BYTES));
    if (g.nr * g.nc > 1) {
        ch = pto__lw_for(L, block, "ch", pto__lw_int(L, 0), pto__lw_int(L, g.nr * g.nc));
        if (ch < 0) return 0;
        pto__lw_note(L, ch, "tput/tget: one UB-sized chunk per iteration");
        body = m->stmts[ch].body;
        if (!pto__lw_grid_pos(L, &g, body, ch, &r, &c, &vr, &vc)) return 0;
    } else {
        r = c = -1;
        vr = g.tc != cols ? pto__lw_int(L, rows) : -1;
        vc = g.tc != cols ? pto__lw_int(L, cols) : -1;
    }
    t = pto__lw_tile(L, body, "stage", dt, g.tr, g.tc, vr, vc, ch >= 0 ? 2 : 1);
    if (t < 0) return 0;
    pto__lw_note(L, m->tiles[t].decl, "staging tile: GM -> UB -> GM (planned like any tile)");
    s = pto__lw_load(L, body, t, a.ref, pto__lw_plus(L, a.e[0], r), pto__lw_plus(L, a.e[1], c), a.e[2]);
    pto__lw_note(L, s, "stage in (MTE2)");
    s = s < 0 ? -1 : pto__lw_store(L, body, d.ref, pto__lw_plus(L, d.e[0], r), pto__lw_plus(L, d.e[1], c), d.e[2], t);
    pto__lw_note(L, s, "stage out (MTE3)");
    return s >= 0;
}

/* ---- allreduce ---- */

/* fence; notify SIG@p[0, 0] += 1 for every rank p; wait SIG[0, 0] >= count. */
static int pto__lw_ar_barrier(pto__lw *L, int32_t block, int32_t sig, int32_t count, const char *what,
                              const char *suffix)
{
    char note[200];
    int32_t lp, s;
    snprintf(note, sizeof note, "fence: %s: the notify below publishes only what every pipe has finished "
             "(hardware.md s8); inserted by lower", what);
    if (pto__lw_barrier_all(L, block, note) < 0) return 0;
    lp = pto__lw_for(L, block, suffix, pto__lw_int(L, 0), pto__lw_nranks(L));
    if (lp < 0) return 0;
    snprintf(note, sizeof note, "%s: count this rank in every rank's cell (AtomicAdd only: the cell is reused)", what);
    pto__lw_note(L, lp, note);
    if (pto__lw_notify(L, L->m->stmts[lp].body, sig, pto__lw_var(L, lp), pto__lw_int(L, 1), note) < 0) return 0;
    snprintf(note, sizeof note, "%s: until every rank has counted (GE, never EQ: a fast peer may already have "
             "counted further)", what);
    s = pto__lw_wait(L, block, sig, PTO_GE, count, note);
    return s >= 0;
}

/* acc = X@0 chunk; acc += X@q chunk for q = 1 .. nranks - 1, in rank order. */
static int pto__lw_ar_sum(pto__lw *L, int32_t body, const pto__lw_grid *g, int32_t x, int32_t r, int32_t c, int32_t vr,
                          int32_t vc, int32_t *acc)
{
    pto_module *m = L->m;
    int32_t zero = pto__lw_int(L, 0), row = r < 0 ? zero : r, col = c < 0 ? zero : c, q, t, s;
    *acc = pto__lw_tile(L, body, "acc", PTO_F32, g->tr, g->tc, vr, vc, 1);
    if (*acc < 0) return 0;
    s = pto__lw_load(L, body, *acc, x, row, col, pto__lw_int(L, 0));
    pto__lw_note(L, s, "allreduce: start from rank 0's chunk (every rank sums in rank order: the same bits)");
    q = pto__lw_for(L, body, "src", pto__lw_int(L, 1), pto__lw_nranks(L));
    if (s < 0 || q < 0) return 0;
    t = pto__lw_tile(L, m->stmts[q].body, "peer", PTO_F32, g->tr, g->tc, vr, vc, 2);
    if (t < 0) return 0;
    s = pto__lw_load(L, m->stmts[q].body, t, x, row, col, pto__lw_var(L, q));
    pto__lw_note(L, s, "allreduce: remote-load rank q's chunk");
    s = s < 0 ? -1 : pto__lw_op(L, m->stmts[q].body, PTO_OP_TADD);
    if (s < 0 || pto_arg_tile(m, s, *acc, L->loc) < 0 || pto_arg_tile(m, s, *acc, L->loc) < 0 ||
        pto_arg_tile(m, s, t, L->loc) < 0)
        return 0;
    return 1;
}

static int pto__lw_allreduce(pto__lw *L, int32_t block)
{
    pto_module *m = L->m;
    int32_t x = pto_stmt_arg(m, L->at, 0)->ref, sig = pto_stmt_arg(m, L->at, 1)->ref, ch, body, r, c, vr, vc, acc, s;
    pto__lw_grid g;
    int64_t nch;
    /* chunk tiles acc + peer x2: three slots in the room */
    pto__lw_grid_make(&g, m->params[x].dim[0], m->params[x].dim[1], 4, pto__lw_slot_budget(L->room, 3, PTO__LW_AR_BYTES));
    nch = g.nr * g.nc;
    /* the subtract that ended an earlier allreduce on SIG lands ~1000 cycles after it runs, also in
       the own cell: until it has, the cell still holds that call's counts and the publish wait below
       would pass before the peers arrive. Peers can add at most nranks - 1 before this rank publishes
       (each then waits for it), so the own cell is below nranks exactly when no subtract is pending. */
    if (pto__lw_wait(L, block, sig, PTO_LT, pto__lw_nranks(L),
                     "allreduce: until the subtract of an earlier allreduce on this signal has landed (a notify "
                     "reaches its cell later, the own one too)") < 0)
        return 0;
    /* every rank's X is final before any rank reads it */
    if (!pto__lw_ar_barrier(L, block, sig, pto__lw_nranks(L), "allreduce: publish", "pub")) return 0;
    ch = pto__lw_for(L, block, "ch", pto__lw_int(L, 0), pto__lw_int(L, nch));
    if (ch < 0) return 0;
    pto__lw_note(L, ch, "allreduce: one UB-sized chunk per iteration, with a barrier per chunk");
    body = m->stmts[ch].body;
    if (!pto__lw_grid_pos(L, &g, body, ch, &r, &c, &vr, &vc) || !pto__lw_ar_sum(L, body, &g, x, r, c, vr, vc, &acc))
        return 0;
    /* post-reduce barrier: nobody overwrites chunk ch before every rank read it */
    if (!pto__lw_ar_barrier(L, body, sig,
                            pto__lw_bin(L, PTO_E_MUL, pto__lw_bin(L, PTO_E_ADD, pto__lw_var(L, ch), pto__lw_int(L, 2)),
                                        pto__lw_nranks(L)),
                            "post-reduce barrier", "post"))
        return 0;
    s = pto__lw_store(L, body, x, r < 0 ? pto__lw_int(L, 0) : r, c < 0 ? pto__lw_int(L, 0) : c, -1, acc);
    pto__lw_note(L, s, "allreduce: the sum into the own window (every rank has read this chunk)");
    if (s < 0 || pto__lw_barrier_all(L, block, "fence: the notify below publishes only what every pipe has finished "
                                               "(hardware.md s8); inserted by lower") < 0)
        return 0;
    s = pto__lw_notify(L, block, sig, -1,
                       pto__lw_bin(L, PTO_E_SUB, pto__lw_int(L, 0),
                                   pto__lw_bin(L, PTO_E_MUL, pto__lw_int(L, nch + 1), pto__lw_nranks(L))),
                       "allreduce: subtract this call's (chunks + 1) * nranks counts: the cell is back where it "
                       "started, so the next allreduce can reuse it");
    return s >= 0;
}

/* ---- driver ---- */

/* Moves the statements appended to `block` after `tail` in front of L->at. */
static void pto__lw_move(pto__lw *L, int32_t block, int32_t tail)
{
    pto_module *m = L->m;
    int32_t s = tail >= 0 ? m->stmts[tail].next : m->blocks[block].head;
    while (s >= 0 && s != L->at) {
        int32_t next = m->stmts[s].next;
        pto_unlink(m, s);
        pto_insert_before(m, L->at, s);
        s = next;
    }
}

static int pto__lw_is_notify(const pto_module *m, int32_t s)
{
    return m->stmts[s].kind == PTO_ST_OP && pto_opinfo_get((pto_op)m->stmts[s].op)->cls == PTO_OC_NOTIFY;
}

/* Whether statement s follows a pipe_barrier ALL with nothing but
   notifies since: the barrier is right before s, or s opens the body of a
   loop whose every statement is a notify and the loop itself is fenced
   so. The second is the shape lower gives its own signal loops (fence;
   for p { notify SIG@p }): without it, lowering a dumped allreduce again
   would fence every notify of those loops a second time. */
static int pto__lw_fenced(const pto_module *m, int32_t s)
{
    int32_t prev = m->stmts[s].prev, owner = m->blocks[m->stmts[s].block].owner, t;
    if (prev >= 0)
        return m->stmts[prev].kind == PTO_ST_OP && m->stmts[prev].op == PTO_OP_PIPE_BARRIER &&
               pto_stmt_arg(m, prev, 0)->ref == PTO_PIPE_ALL;
    if (owner < 0 || m->stmts[owner].kind != PTO_ST_FOR) return 0;
    for (t = m->blocks[m->stmts[s].block].head; t >= 0; t = m->stmts[t].next)
        if (!pto__lw_is_notify(m, t)) return 0;
    return pto__lw_fenced(m, owner);
}

/* A user notify without pipe_barrier ALL right before it (see
   pto__lw_fenced) gets one. */
static int pto__lw_fence_notify(pto__lw *L, int32_t block)
{
    if (pto__lw_fenced(L->m, L->at)) return 1;
    return pto__lw_barrier_all(L, block, "fence: notify publishes only what every pipe has finished (hardware.md s8); "
                                         "inserted by lower") >= 0;
}

/* Whether a name of m starts with prefix and then '_' (a name lower would make). */
static int pto__lw_prefix_used(const pto_module *m, const char *prefix)
{
    size_t n = strlen(prefix);
    int32_t i;
    for (i = 0; i < m->n_tiles; i++) {
        const char *t = pto_str(m->ctx, m->tiles[i].name);
        if (strncmp(t, prefix, n) == 0 && t[n] == '_') return 1;
    }
    for (i = 0; i < m->n_vars; i++) {
        const char *v = pto_str(m->ctx, m->vars[i].name);
        if (strncmp(v, prefix, n) == 0 && v[n] == '_') return 1;
    }
    return 0;
}

/* The lowering's names (__ar12_acc, __ar12_ch, ...) must not be the user's:
   a user tile __ar12_acc made a dump of the lowered module that did not
   parse back (review20 L2). Adds an x until no name has the prefix. */
static void pto__lw_fresh_prefix(pto__lw *L)
{
    size_t n = strlen(L->pre);
    while (pto__lw_prefix_used(L->m, L->pre) && n + 1 < sizeof L->pre) {
        L->pre[n++] = 'x';
        L->pre[n] = 0;
    }
}

/* Lowers statement s (in a kernel body); 0 on failure. */
static int pto__lw_stmt(pto_ctx *ctx, pto_module *m, int32_t s, int64_t room)
{
    pto__lw L;
    int32_t block = m->stmts[s].block, tail = m->blocks[block].tail, op = m->stmts[s].op;
    int cls = pto_opinfo_get((pto_op)op)->cls, ok;
    memset(&L, 0, sizeof L);
    L.ctx = ctx, L.m = m, L.at = s, L.loc = m->stmts[s].loc, L.room = room;
    snprintf(L.pre, sizeof L.pre, "__%s%d", cls == PTO_OC_ALLREDUCE ? "ar" : op == PTO_OP_TPUT ? "put" : "get", (int)s);
    pto__lw_fresh_prefix(&L);
    if (cls == PTO_OC_NOTIFY) ok = pto__lw_fence_notify(&L, block);
    else if (cls == PTO_OC_XFER) ok = pto__lw_xfer(&L, block);
    else ok = pto__lw_allreduce(&L, block);
    pto__lw_move(&L, block, tail);
    if (ok && cls != PTO_OC_NOTIFY) pto_unlink(m, s);
    return ok;
}

/* ---- the isa target's padding fills ----
   tload zeroes a tile outside its valid region (the contract, the
   interpreter, the simulator); pto-isa's TLOAD moves the valid region
   only (its pad value reaches at most the rest of a row's last 32-byte
   block), and zeroing the rest is TFILLPAD's job, an instruction of its
   own on its own pipe (V for a vec tile, MTE2 for a mat tile). So for the
   isa target every tload whose padding some op may read is followed by a
   tfillpad of its tile: the sync pass then orders it after the load and
   before every reader like any op, which the emitter alone could not do. */

/* Whether the extent ed of a tile dimension of size nd (ed -1: all of it)
   is known to lie within the extent et of t's dimension of size nt. */
static int pto__lw_within(const pto_module *m, int32_t ed, int64_t nd, int32_t et, int64_t nt)
{
    int64_t a = nd, b = nt;
    if (nd > nt) return 0;
    if (et < 0 || (pto__lw_const(m, et, &b, 0) && b >= nt)) return 1;   /* t's whole dimension */
    if (pto__expr_same(m, ed, et)) return 1;
    return (ed < 0 || pto__lw_const(m, ed, &a, 0)) && pto__lw_const(m, et, &b, 0) && a <= b;
}

/* Whether statement s may read tile t (its operand i) outside t's valid
   region (docs/pto-format.md, "tile": vector ops and tmov read their
   sources over the DESTINATION's valid region, a row reduction the valid
   columns of its source on the valid rows of its result, a column op its
   source's own valid region; textract and tpush read whole tiles). */
static int pto__lw_reads_pad(const pto_module *m, int32_t s, int i, const pto_tile *t)
{
    const pto_stmt *st = &m->stmts[s];
    int cls = pto_opinfo_get((pto_op)st->op)->cls;
    const pto_operand *o0 = pto_stmt_arg(m, s, 0);
    const pto_tile *d;
    if (cls == PTO_OC_STORE || cls == PTO_OC_COLRED || cls == PTO_OC_TRANS || cls == PTO_OC_SYNC) return 0;
    if (cls != PTO_OC_BIN && cls != PTO_OC_BINS && cls != PTO_OC_UN && cls != PTO_OC_CVT && cls != PTO_OC_MOV &&
        cls != PTO_OC_ROWRED && cls != PTO_OC_ROWEXP && cls != PTO_OC_COLEXP)
        return 1;
    if (!o0 || o0->kind != PTO_O_TILE || o0->ref < 0 || o0->ref >= m->n_tiles) return 1;
    d = &m->tiles[o0->ref];
    if (d == t) return 0;   /* in place: t's own valid region */
    if (cls == PTO_OC_ROWRED || (cls == PTO_OC_ROWEXP && i == 2))   /* rows of d, t's own columns (or column 0) */
        return !pto__lw_within(m, d->valid_r, d->rows, t->valid_r, t->rows);
    if (cls == PTO_OC_COLEXP && i == 2)   /* the [1, C] row: columns of d */
        return !pto__lw_within(m, d->valid_c, d->cols, t->valid_c, t->cols);
    return !pto__lw_within(m, d->valid_r, d->rows, t->valid_r, t->rows) ||
           !pto__lw_within(m, d->valid_c, d->cols, t->valid_c, t->cols);
}

/* Per tile of the module, 1 when it has a padding (a valid region that may
   be smaller than its shape) that some op may read: one pass over the
   statements. NULL when out of memory; the caller frees it. */
static uint8_t *pto__lw_pad_reads(pto_ctx *ctx, const pto_module *m)
{
    uint8_t *pad = (uint8_t *)pto_alloc(ctx, (size_t)m->n_tiles + 1);   /* 2: a padding, 1: read too */
    int32_t s, ti;
    if (!pad) return NULL;
    for (ti = 0; ti < m->n_tiles; ti++) {
        const pto_tile *t = &m->tiles[ti];
        pad[ti] = pto__lw_within(m, -1, t->rows, t->valid_r, t->rows) &&
                  pto__lw_within(m, -1, t->cols, t->valid_c, t->cols) ? 0 : 2;
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int i;
        if (st->kind != PTO_ST_OP || st->block < 0 || st->op >= PTO_NOP) continue;
        for (i = 0; i < st->nargs && i < 4; i++) {
            const pto_operand *o = &m->operands[st->arg0 + i];
            if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles && pad[o->ref] == 2 &&
                (pto_opinfo_get((pto_op)st->op)->arg[i] & PTO_A_READ) && pto__lw_reads_pad(m, s, i, &m->tiles[o->ref]))
                pad[o->ref] = 1;
        }
    }
    for (ti = 0; ti < m->n_tiles; ti++) pad[ti] = pad[ti] == 1;
    return pad;
}

/* Whether tload s is followed by the tfillpad that completes it (sync ops
   between): a dump of an isa compile read back. */
static int pto__lw_has_fill(const pto_module *m, int32_t s)
{
    int32_t f;
    for (f = m->stmts[s].next; f >= 0; f = m->stmts[f].next) {
        const pto_stmt *st = &m->stmts[f];
        if (st->kind != PTO_ST_OP || st->op >= PTO_NOP) return 0;
        if (st->op == PTO_OP_TFILLPAD) return pto__fillpad_load(m, f) == s;
        if (pto_opinfo_get((pto_op)st->op)->cls != PTO_OC_SYNC) return 0;
    }
    return 0;
}

/* The tfillpads a dump of an isa compile brought back, for the simulator
   target: its tload zeroes the padding itself, and the C emitter has no
   fill (the sync ops the dump placed around it stay, ordering nothing). */
static void pto__lw_drop_fillpads(pto_module *m)
{
    int32_t s;
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].block >= 0 && m->stmts[s].op == PTO_OP_TFILLPAD) pto_unlink(m, s);
}

/* A tfillpad of its tile after every tload whose padding may be read. */
static void pto__lw_fillpads(pto_ctx *ctx, pto_module *m)
{
    int32_t s, n = m->n_stmts, ti;
    uint8_t *need = pto__lw_pad_reads(ctx, m);
    if (!need) {
        pto_loc none;
        memset(&none, 0, sizeof none);
        pto_error(ctx, none, "out of memory in the lower pass");
        return;
    }
    for (s = 0; s < n; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *o = st->kind == PTO_ST_OP && st->block >= 0 && st->op == PTO_OP_TLOAD ? pto_stmt_arg(m, s, 0) : NULL;
        int32_t f;
        char note[200];
        if (!o || o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= m->n_tiles || !need[o->ref]) continue;
        ti = o->ref;
        if (pto__lw_has_fill(m, s)) continue;   /* a dump read back keeps its fill */
        f = pto_add_op(m, m->stmts[s].block, PTO_OP_TFILLPAD, m->stmts[s].loc);
        if (f < 0 || pto_arg_tile(m, f, ti, m->stmts[s].loc) < 0) break;
        pto_unlink(m, f);
        pto_insert_after(m, s, f);
        m->stmts[f].origin = PTO_BY_LOWER;
        snprintf(note, sizeof note, "fill: zero '%s' outside its valid region, which an op reads; pto-isa's TLOAD "
                 "moves the valid region only (inserted by lower for the isa target)", pto_str(ctx, m->tiles[ti].name));
        m->stmts[f].note = pto_intern(ctx, note, strlen(note));
    }
    pto_free(ctx, need);
}

PTODEF pto_status pto_lower(pto_ctx *ctx, pto_module *m) { return pto_lower_for(ctx, m, PTO_TARGET_SIM); }

/* The statements to lower, in order (*n of them), and the vec room at each
   (room[i]; -1 for a notify, which makes no tile). PTO_OK, or an error when
   out of memory (reported); the caller frees both arrays. */
static pto_status pto__lw_todo(pto_ctx *ctx, const pto_module *m, int32_t **todo, int32_t *n, int64_t **room)
{
    int32_t s, cap = 0, i;
    *todo = NULL;
    *room = NULL;
    *n = 0;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int cls;
        if (st->kind != PTO_ST_OP || st->block < 0 || st->op >= PTO_NOP || st->origin != PTO_BY_USER) continue;
        cls = pto_opinfo_get((pto_op)st->op)->cls;
        if (cls != PTO_OC_NOTIFY && cls != PTO_OC_XFER && cls != PTO_OC_ALLREDUCE) continue;
        if ((i = pto__grow(ctx, (void **)todo, n, &cap, sizeof(int32_t))) < 0) return PTO_ERR_INTERNAL;
        (*todo)[i] = s;
    }
    if (!*n) return PTO_OK;
    if (!(*room = (int64_t *)pto_alloc(ctx, (size_t)*n * sizeof(int64_t))) ||
        pto__plan_room(ctx, m, PTO_VEC, *todo, *n, *room) != PTO_OK)
        return PTO_ERR_INTERNAL;
    for (i = 0; i < *n; i++)
        if (pto_opinfo_get((pto_op)m->stmts[(*todo)[i]].op)->cls == PTO_OC_NOTIFY) (*room)[i] = -1;
    return PTO_OK;
}

/* The flags and barriers a sync pass inserted for another target (review26b
   L1): lowering for a new target changes the statements they order (the isa
   target's fills come or go), and a second sync keeps every flag it finds,
   so they would stay beside the new ones (pto_compile for the sim target and
   then the isa target left a redundant MTE2 -> V pair around a fill). Only
   statements of origin PTO_BY_SYNC go: written flags stay. The module has
   them only after a sync, so m->target is then the target it was lowered
   for. */
static void pto__lw_drop_sync(pto_module *m, pto_target target)
{
    int32_t s;
    if (m->target == (int32_t)target) return;
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].block >= 0 && m->stmts[s].origin == PTO_BY_SYNC) pto_unlink(m, s);
}

PTODEF pto_status pto_lower_for(pto_ctx *ctx, pto_module *m, pto_target target)
{
    int32_t s0, t0, t, i, n, *todo;
    int64_t *room;
    int errors = pto_error_count(ctx);
    if (pto__need_verified(ctx, m, "pto_lower") != PTO_OK) return PTO_ERR_USER;
    pto__lw_drop_sync(m, target);
    m->target = (int32_t)target;   /* before the staging tiles are sized to the planner's room */
    s0 = m->n_stmts;
    t0 = m->n_tiles;
    if (pto__lw_todo(ctx, m, &todo, &n, &room) == PTO_OK)
        for (i = 0; i < n; i++)
            if (!pto__lw_stmt(ctx, m, todo[i], room[i])) break;
    pto_free(ctx, todo);
    pto_free(ctx, room);
    for (t = s0; t < m->n_stmts; t++) m->stmts[t].origin = PTO_BY_LOWER;
    for (t = t0; t < m->n_tiles; t++) m->tiles[t].origin = PTO_BY_LOWER;
    if (target == PTO_TARGET_ISA && pto_error_count(ctx) == errors) pto__lw_fillpads(ctx, m);
    if (target != PTO_TARGET_ISA) pto__lw_drop_fillpads(m);
    if (pto_error_count(ctx) != errors) return PTO_ERR_INTERNAL;
    /* the builders it called cleared the stamp; its output is valid (Guarantees) */
    pto__stamp(m);
    return PTO_OK;
}
