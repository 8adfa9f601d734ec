/* sync.c - the sync inserter: orders every dependency inside a core.

   Needs: a verified module whose local tiles are planned (planned = 1 and
   offset[k] for every slot k). Guarantees, for every core program (a
   vector or cube kernel body, or one section of a mix kernel):
   - every cross-pipe RAW / WAR / WAW dependency is ordered by a chain of
     set_flag / wait_flag pairs (hardware.md section 4);
   - dependent instructions on the same V or M pipe are separated by a
     pipe_barrier; the in-order queues (MTE1/2/3, FIX, S) get nothing;
   - no event id is set twice, waited while unset, or left set at the end;
   - at most ids_per_pair (8) ids per ordered pipe pair; M -> FIX uses only
     ids 0..2 (that pair deadlocked with ids 3..7 on one device, s4);
   - deterministic: the same module gives the same statements.
   Inserted statements are ordinary op statements (origin PTO_BY_SYNC) whose
   note names the dependency that justified them.

   1. Access records. Each tile or GM operand of an op that reads or writes
      is an access; an xN tile gives one record per slot (slot k of the
      tile's loop iteration n is n mod N). Two accesses conflict when one
      writes and their byte ranges in one space overlap (ends rounded up to
      the 32-byte granule), whatever tiles they name: tiles that share bytes
      after reuse conflict too. GM windows of one tensor conflict unless
      their row or column ranges are provably disjoint (a linear difference
      of loop-invariant terms that is a constant).

   2. The analysis is an abstract interpretation of one core's program. Its
      state holds, per access record (the latest instance of that operand
      and slot), the set of pipes it is known to happen before, and per
      event id whether it is set and which records its set captured. A
      set_flag on p captures every record of pipe p and every record known
      to happen before p; the wait gives them pipe q. This is the
      happens-before closure over pipes, so a chain of existing flags
      (load -> compute -> store) covers the dependency it implies. Paths
      merge by intersection (a dependency is covered after an if only when
      both branches cover it); a loop is iterated to a fixpoint once per
      phase (iteration index mod the lcm of its tiles' N), so rotating slots
      and rotating ids are tracked exactly, and it may exit after any
      number of iterations, zero included. A covered later instance of an
      access covers the earlier ones on its pipe (a set covers everything
      before it on its pipe), which is why one record per operand and slot
      is enough.

   3. Insertion repeats: analyse; take the first uncovered dependency (at
      that statement, a same-iteration one before a loop-carried one, then
      the latest writer/reader); place a pair; analyse again. A dependency
      from A to B inside the same iteration of every common loop gets
      set_flag right after A's ancestor and wait_flag right before B's
      ancestor in their lowest common block, so both run equally often. A
      loop-carried one (B before A in their common loop L) gets the loop
      idiom: prime before L, wait before B's ancestor, set after A's,
      drain after L (balanced for any trip count, zero included). When the
      conflicting slots recur only every D iterations, the pair rotates
      M = min(D, N) ids with id = base + ((i - start) / step) % M, built
      from the loop's own start and step, so any start and step is right.
      Same-pipe V or M dependencies get a pipe_barrier instead.

   4. Event ids. During insertion every group has private virtual ids;
      afterwards each ordered pipe pair colours its groups' lifetimes
      (set..wait, or prime..drain of a loop) greedily in program order with
      the lowest free ids. When ids run out a group's rotation degrades
      N -> 2 -> 1, and then the group becomes a PIPE_ALL barrier (which
      orders at least as much); each is reported as a warning naming the
      tiles and pipes.

   5. Check. The analysis runs once more with the hardware ids: any
      unordered dependency or flag misuse now is an internal error.

   6. Cost. Steps 3 and 4 run the analysis once per group, so each run must
      cost what changed, not the kernel, for long kernels to compile in
      linear time; none of this changes a decision (tests/test_sync_same.c
      compares the output with the previous, whole-kernel version):
      - the state is sparse (records present, ids set) and records that a
        later access supersedes leave it at top-level boundaries, so it is
        the size of what is in flight; tensors that can never be part of a
        dependency (only read, or only on one in-order pipe) get no records;
      - the state before every top-level statement is kept (a checkpoint);
        a new group is analysed from the checkpoint before its first
        statement, and a sweep trial stops as soon as its state meets the
        old checkpoint after its group (the rest is as before: ordered);
      - a dependency found on the first visit of its loops and ordered right
        around its target (pto__sy_shortcut) updates the state in place
        and the analysis carries on, as another run would. */

#define PTO__SY_ALLBITS 0x7f        /* the queues S..FIX; ALL is not a queue */
#define PTO__SY_PRESENT 0x80
#define PTO__SY_VBASE (1 << 20)     /* virtual ids of insertion rounds */
#define PTO__SY_REAL 512            /* 8 src x 8 dst x 8 ids */
#define PTO__SY_GRAN 32             /* conflicts are decided per 32-byte granule */
#define PTO__SY_MAXROT 8

enum { PTO__SY_RD = 1, PTO__SY_WR = 2 };
enum { PTO__SY_FWD, PTO__SY_LOOP, PTO__SY_BAR, PTO__SY_DEAD };
enum { PTO__SY_PRIME, PTO__SY_WAIT, PTO__SY_SET, PTO__SY_DRAIN, PTO__SY_BARRIER };
enum { PTO__SY_FIND, PTO__SY_CHECK };

typedef struct pto__sy_rec {
    int32_t stmt, opnd, slot;
    uint8_t pipe, rw, space;
    int64_t lo, hi;             /* local: byte range, end rounded to the granule */
} pto__sy_rec;

typedef struct pto__sy_grp {
    uint8_t kind, src, dst;
    int32_t nids;               /* rotation M (1 = a single id) */
    int32_t loop;               /* LOOP: the FOR statement */
    int32_t base;               /* hardware id base; -1 = none yet / fallback */
    int32_t arec, bstmt, bopnd; /* the dependency that made it */
    int32_t note;               /* interned dependency text */
} pto__sy_grp;

typedef struct pto__sy_ent {
    int32_t stmt;               /* -1 once removed */
    int32_t grp;
    int32_t ebase, emod;        /* INT exprs: id base (+k), rotation */
    int32_t k;                  /* prime/drain: which id of the rotation */
    uint8_t role;
} pto__sy_ent;

typedef struct pto__sy_st {
    int reached;
    int32_t n, nf, ncap;        /* live records, set ids, used captured-id slots */
    int32_t *rid;               /* [n] records present, sorted */
    uint8_t *bits;              /* [n] the pipes each happens before */
    int32_t *fkey, *fc0, *fcn;  /* [nf] set ids, sorted by key; captured: caps[fc0 .. fc0 + fcn) */
    uint8_t *fval;              /* [nf] 1 set, 2 set on some paths */
    int32_t *caps;              /* sorted record ids per set id */
    int32_t cap_rid, cap_bits, cap_fkey, cap_fc0, cap_fcn, cap_fval, cap_caps;
} pto__sy_st;

typedef struct pto__sy_cl {    /* a live record, packed for pto__sy_collect */
    int64_t lo, hi;
    int32_t pos, rid;
    uint8_t space, drop;
} pto__sy_cl;

typedef struct pto__sy {
    pto_ctx *ctx;
    pto_module *m;
    int32_t kernel;
    int ids_per_pair;
    pto_sync_stats stats;
    pto__sy_rec *recs;
    int32_t n_recs, cap_recs;
    int32_t *rec_of;            /* per operand: first record, or -1 */
    int32_t *tile_loop;         /* per tile: the FOR that rotates its slots, or -1 */
    uint8_t *inert;             /* per param: its accesses can never be a dependency */
    int32_t *period, *phase, *pos, *ours;  /* per statement */
    uint8_t *off;               /* per statement: skipped by the analysis (sweep) */
    int32_t n_off;
    pto__sy_grp *grps;
    int32_t n_grps, cap_grps;
    pto__sy_ent *ents;
    int32_t n_ents, cap_ents;
    int64_t *seen;              /* hash set of dependencies placed: (record, operand) */
    int32_t n_seen, cap_seen;
    int32_t nkeys;
    int32_t *progs, nprogs, cap_progs;     /* core programs: their blocks */
    pto__sy_st **ck;            /* per statement: the checkpoint before it, or NULL */
    int32_t cap_ck;
    pto__sy_st **freel, *scratch;
    int32_t nfree, capfree;
    int trial, past, converged; /* a sweep trial: past its group; met a checkpoint */
    int first;                  /* first visit of every loop around (pass 1, phase 0) */
    pto__sy_st *snap;           /* the innermost block's state after snap_stmt */
    int32_t snap_stmt;
    int32_t trial_last;         /* the trial group's last top-level statement */
    int32_t *tr_stmt, ntr, cap_tr, cap_tr2;
    pto__sy_cl *cl;
    int32_t cap_cl;
    pto__sy_st **tr_st;         /* a trial's states, kept if its group goes */
    int mode, stop;
    pto_status status;
    /* the dependency found by a FIND analysis */
    int found, h_fwd;
    int32_t h_rec, h_bstmt, h_bopnd, h_brec, h_apos;
} pto__sy;

/* ---- small helpers ------------------------------------------------------- */

static int pto__sy_inorder(int p) { return p != PTO_PIPE_V && p != PTO_PIPE_M; }
static int pto__sy_lowbit(unsigned v)
{
    int i = 0;
    while (v && !(v & 1u)) { v >>= 1; i++; }
    return i;
}
static int pto__sy_issync(int op)
{
    return op == PTO_OP_SET_FLAG || op == PTO_OP_WAIT_FLAG || op == PTO_OP_PIPE_BARRIER;
}
static int64_t pto__sy_gcd(int64_t a, int64_t b) { while (b) { int64_t t = a % b; a = b; b = t; } return a; }
static int64_t pto__sy_lcm(int64_t a, int64_t b) { return a / pto__sy_gcd(a, b) * b; }

static pto_loc pto__sy_noloc(void)
{
    pto_loc l;
    l.file = l.line = l.col = 0;
    return l;
}

static void pto__sy_fail(pto__sy *sy, pto_status st)
{
    if (sy->status == PTO_OK) sy->status = st;
    sy->stop = 1;
}

static void *pto__sy_zalloc(pto__sy *sy, size_t n)
{
    void *p = pto_alloc(sy->ctx, n);
    if (!p) {
        pto_error(sy->ctx, pto__sy_noloc(), "out of memory in the sync inserter");
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return NULL;
    }
    memset(p, 0, n);
    return p;
}

/* The parent statement (FOR/IF/SECTION) of a statement, or -1. */
static int32_t pto__sy_up(const pto_module *m, int32_t s)
{
    int32_t b = m->stmts[s].block;
    return b < 0 ? -1 : m->blocks[b].owner;
}

static int pto__sy_depth(const pto_module *m, int32_t s)
{
    int d = 0;
    while ((s = pto__sy_up(m, s)) >= 0) d++;
    return d;
}

/* The ancestors-or-selves of a and b that share a block. */
static void pto__sy_lca(const pto_module *m, int32_t a, int32_t b, int32_t *pa, int32_t *pb)
{
    int da = pto__sy_depth(m, a), db = pto__sy_depth(m, b);
    for (; da > db; da--) a = pto__sy_up(m, a);
    for (; db > da; db--) b = pto__sy_up(m, b);
    while (m->stmts[a].block != m->stmts[b].block) {
        a = pto__sy_up(m, a);
        b = pto__sy_up(m, b);
    }
    *pa = a;
    *pb = b;
}

/* The ancestor-or-self of s that sits in block blk. */
static int32_t pto__sy_in_block(const pto_module *m, int32_t s, int32_t blk)
{
    while (s >= 0 && m->stmts[s].block != blk) s = pto__sy_up(m, s);
    return s;
}

static int pto__sy_expr_eq(const pto_module *m, int32_t a, int32_t b)
{
    const pto_expr *x, *y;
    if (a == b) return 1;
    if (a < 0 || b < 0) return 0;
    x = &m->exprs[a];
    y = &m->exprs[b];
    if (x->kind != y->kind) return 0;
    if (x->kind == PTO_E_INT) return x->value == y->value;
    if (x->kind == PTO_E_VAR) return x->a == y->a;
    if (x->kind >= PTO_E_BLOCK && x->kind <= PTO_E_NRANKS) return 1;
    if (x->kind == PTO_E_NEG) return pto__sy_expr_eq(m, x->a, y->a);
    return pto__sy_expr_eq(m, x->a, y->a) && pto__sy_expr_eq(m, x->b, y->b);
}

static int pto__sy_is_int(const pto_module *m, int32_t e, int64_t v)
{
    return e >= 0 && m->exprs[e].kind == PTO_E_INT && m->exprs[e].value == v;
}

/* e is ((i - start) / step) or (i - start) for a unit step, where i is the
   variable of a loop with that start and step: sets *loop. */
static int pto__sy_iter_of(const pto_module *m, int32_t e, int32_t *loop)
{
    const pto_expr *x = &m->exprs[e];
    int32_t step = -1, L, v;
    if (x->kind == PTO_E_DIV) {
        step = x->b;
        x = &m->exprs[x->a];
    }
    /* i - start, or a bare i when the loop starts at 0 (hand-written ids) */
    if (x->kind == PTO_E_VAR) v = x->a;
    else if (x->kind == PTO_E_SUB && m->exprs[x->a].kind == PTO_E_VAR) v = m->exprs[x->a].a;
    else return 0;
    if (v < 0 || v >= m->n_vars || m->vars[v].kind != PTO_V_LOOP) return 0;
    L = m->vars[v].def;
    if (L < 0 || m->stmts[L].kind != PTO_ST_FOR) return 0;
    if (x->kind == PTO_E_VAR ? !pto__sy_is_int(m, m->stmts[L].e[0], 0) : !pto__sy_expr_eq(m, x->b, m->stmts[L].e[0]))
        return 0;
    if (m->stmts[L].e[2] < 0 ? !(step < 0 || pto__sy_is_int(m, step, 1))
                             : !(pto__sy_expr_eq(m, step, m->stmts[L].e[2])
                                 || (step < 0 && pto__sy_is_int(m, m->stmts[L].e[2], 1))))
        return 0;
    *loop = L;
    return 1;
}

/* The event-id forms the analysis understands: INT, or
   INT + ((i - start) / step) % INT (what this pass writes), or the shorter
   ones people write: ((i - start) / step) % INT, and i / step or i in
   place of the iteration index when the loop starts at 0 (with step 1 for
   a bare i). */
static int pto__sy_idform(const pto_module *m, int32_t e, int64_t *base, int64_t *mod, int32_t *loop)
{
    const pto_expr *x, *md;
    *base = 0;
    *mod = 1;
    *loop = -1;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    if (x->kind == PTO_E_INT) { *base = x->value; return 1; }
    if (x->kind == PTO_E_MOD) md = x;
    else if (x->kind == PTO_E_ADD && m->exprs[x->a].kind == PTO_E_INT) md = &m->exprs[x->b];
    else return 0;
    if (md->kind != PTO_E_MOD || m->exprs[md->b].kind != PTO_E_INT) return 0;
    *base = md == x ? 0 : m->exprs[x->a].value;
    *mod = m->exprs[md->b].value;
    if (*mod < 1 || *mod > PTO__SY_MAXROT) return 0;
    return pto__sy_iter_of(m, md->a, loop);
}

/* ---- GM windows ------------------------------------------------------------
   A linear form c + sum coef * leaf over loop-invariant leaves (dims, scalars,
   top-level lets, builtins). Anything else is unknown and makes two windows
   "may overlap". Loop variables are never leaves: two instances of one
   access in different iterations see different values. */

typedef struct pto__sy_lin {
    int64_t c;
    int n;
    int32_t leaf[8];            /* var id, or -1 - builtin kind */
    int64_t coef[8];
} pto__sy_lin;

static int pto__sy_lin_add(pto__sy_lin *l, int32_t leaf, int64_t coef)
{
    int i;
    for (i = 0; i < l->n; i++)
        if (l->leaf[i] == leaf) { l->coef[i] += coef; return 1; }
    if (l->n == 8) return 0;
    l->leaf[l->n] = leaf;
    l->coef[l->n++] = coef;
    return 1;
}

static int pto__sy_linear(const pto_module *m, int32_t e, int64_t k, pto__sy_lin *l)
{
    const pto_expr *x;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: l->c += k * x->value; return 1;
    case PTO_E_ADD: return pto__sy_linear(m, x->a, k, l) && pto__sy_linear(m, x->b, k, l);
    case PTO_E_SUB: return pto__sy_linear(m, x->a, k, l) && pto__sy_linear(m, x->b, -k, l);
    case PTO_E_NEG: return pto__sy_linear(m, x->a, -k, l);
    case PTO_E_MUL:
        if (m->exprs[x->a].kind == PTO_E_INT) return pto__sy_linear(m, x->b, k * m->exprs[x->a].value, l);
        if (m->exprs[x->b].kind == PTO_E_INT) return pto__sy_linear(m, x->a, k * m->exprs[x->b].value, l);
        return 0;
    case PTO_E_VAR: {
        const pto_var *v;
        if (x->a < 0 || x->a >= m->n_vars) return 0;
        v = &m->vars[x->a];
        if (v->kind == PTO_V_LOOP) return 0;
        if (v->kind == PTO_V_LET && (v->def < 0 || pto_stmt_loop(m, v->def) >= 0)) return 0;
        return pto__sy_lin_add(l, x->a, k);
    }
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS:
        return pto__sy_lin_add(l, -1 - (int32_t)x->kind, k);
    default:
        return 0;
    }
}

/* a - b as a constant, if it is one. */
static int pto__sy_const_diff(const pto_module *m, int32_t a, int32_t b, int64_t *d)
{
    pto__sy_lin l;
    int i;
    memset(&l, 0, sizeof l);
    if (a < 0 && b < 0) { *d = 0; return 1; }
    if (a < 0 || b < 0) return 0;
    if (!pto__sy_linear(m, a, 1, &l) || !pto__sy_linear(m, b, -1, &l)) return 0;
    for (i = 0; i < l.n; i++)
        if (l.coef[i] != 0) return 0;
    *d = l.c;
    return 1;
}

/* The tile that gives a GM window its shape: the op's first tile operand. */
static const pto_tile *pto__sy_window_tile(const pto_module *m, int32_t stmt)
{
    int i;
    for (i = 0; i < m->stmts[stmt].nargs; i++) {
        const pto_operand *o = pto_stmt_arg(m, stmt, i);
        if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles) return &m->tiles[o->ref];
    }
    return NULL;
}

static int pto__sy_gm_overlap(const pto_module *m, const pto__sy_rec *a, const pto__sy_rec *b)
{
    const pto_operand *oa = &m->operands[a->opnd], *ob = &m->operands[b->opnd];
    const pto_tile *ta = pto__sy_window_tile(m, a->stmt), *tb = pto__sy_window_tile(m, b->stmt);
    int64_t d;
    if (oa->ref != ob->ref) return 0;
    if (!ta || !tb) return 1;
    if (pto__sy_const_diff(m, oa->e[2], ob->e[2], &d) && d != 0) return 0;
    if (pto__sy_const_diff(m, oa->e[0], ob->e[0], &d) && (d >= tb->rows || -d >= ta->rows)) return 0;
    if (pto__sy_const_diff(m, oa->e[1], ob->e[1], &d) && (d >= tb->cols || -d >= ta->cols)) return 0;
    return 1;
}

static int pto__sy_overlap(const pto__sy *sy, const pto__sy_rec *a, const pto__sy_rec *b)
{
    if (a->space != b->space) return 0;
    if (a->space == PTO_GM) return pto__sy_gm_overlap(sy->m, a, b);
    return a->lo < b->hi && b->lo < a->hi;
}

static int pto__sy_conflict(const pto__sy *sy, int32_t ra, int32_t rb)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    if (!((a->rw | b->rw) & PTO__SY_WR)) return 0;
    return pto__sy_overlap(sy, a, b);
}

/* ---- records ---------------------------------------------------------------- */

static pto_status pto__sy_add_records(pto__sy *sy, int32_t s)
{
    pto_module *m = sy->m;
    const pto_opinfo *oi = pto_opinfo_get((pto_op)m->stmts[s].op);
    uint8_t pipe = (uint8_t)pto_stmt_pipe(m, s);
    int i;
    for (i = 0; i < m->stmts[s].nargs && i < 4; i++) {
        int32_t o = m->stmts[s].arg0 + i, k, n = 1;
        const pto_operand *op = &m->operands[o];
        const pto_tile *t = NULL;
        uint8_t rw = (uint8_t)(((oi->arg[i] & PTO_A_READ) ? PTO__SY_RD : 0) | ((oi->arg[i] & PTO_A_WRITE) ? PTO__SY_WR : 0));
        if (!rw || (op->kind != PTO_O_TILE && op->kind != PTO_O_GM)) continue;
        if (op->kind == PTO_O_GM && op->ref >= 0 && op->ref < m->n_params && sy->inert[op->ref]) continue;
        if (op->kind == PTO_O_TILE) {
            if (op->ref < 0 || op->ref >= m->n_tiles) continue;
            t = &m->tiles[op->ref];
            if (!t->planned)
                return pto_error(sy->ctx, op->loc, "sync: tile '%s' is not planned (run the planner first)",
                                 pto_str(sy->ctx, t->name));
            n = t->nbuf < 1 ? 1 : t->nbuf > PTO_MAX_NBUF ? PTO_MAX_NBUF : t->nbuf;
        }
        sy->rec_of[o] = sy->n_recs;
        for (k = 0; k < n; k++) {
            int32_t r = PTO__PUSH(sy, recs);
            pto__sy_rec *rc;
            if (r < 0) return PTO_ERR_INTERNAL;
            rc = &sy->recs[r];
            rc->stmt = s;
            rc->opnd = o;
            rc->slot = k;
            rc->pipe = pipe;
            rc->rw = rw;
            rc->space = t ? t->space : (uint8_t)PTO_GM;
            rc->lo = t ? t->offset[k] : 0;
            rc->hi = t ? (t->offset[k] + pto_tile_bytes(t) + PTO__SY_GRAN - 1) / PTO__SY_GRAN * PTO__SY_GRAN : 0;
        }
    }
    return PTO_OK;
}

static int pto__sy_kernel_op(const pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    return m->stmts[s].kind == PTO_ST_OP && m->stmts[s].block >= 0 && !pto__sy_issync(m->stmts[s].op)
           && m->blocks[m->stmts[s].block].kernel == sy->kernel;
}

/* A tensor that this kernel only reads, or only accesses from one in-order
   pipe, can never be part of a dependency: its accesses get no records (a
   long kernel stores to its outputs thousands of times, all on MTE3). */
static int pto__sy_find_inert(pto__sy *sy)
{
    pto_module *m = sy->m;
    uint16_t *pipes = (uint16_t *)pto__sy_zalloc(sy, sizeof(uint16_t) * (size_t)(m->n_params + 1));
    int32_t s, i;
    sy->inert = (uint8_t *)pto__sy_zalloc(sy, (size_t)m->n_params + 1);
    if (!pipes || !sy->inert) { pto_free(sy->ctx, pipes); return 0; }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_opinfo *oi;
        if (!pto__sy_kernel_op(sy, s)) continue;
        oi = pto_opinfo_get((pto_op)m->stmts[s].op);
        for (i = 0; i < m->stmts[s].nargs && i < 4; i++) {
            const pto_operand *op = &m->operands[m->stmts[s].arg0 + i];
            if (op->kind != PTO_O_GM || op->ref < 0 || op->ref >= m->n_params) continue;
            pipes[op->ref] |= (uint16_t)(1u << pto_stmt_pipe(m, s));
            if (oi->arg[i] & PTO_A_WRITE) pipes[op->ref] |= 0x8000;
        }
    }
    for (i = 0; i < m->n_params; i++) {
        unsigned p = pipes[i] & 0x7fffu;
        sy->inert[i] = !(pipes[i] & 0x8000) || ((p & (p - 1)) == 0 && pto__sy_inorder(pto__sy_lowbit(p)));
    }
    pto_free(sy->ctx, pipes);
    return 1;
}

static pto_status pto__sy_build_records(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t s, t;
    sy->rec_of = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_operands + 1));
    sy->tile_loop = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_tiles + 1));
    if (!sy->rec_of || !sy->tile_loop || !pto__sy_find_inert(sy)) return PTO_ERR_INTERNAL;
    for (s = 0; s < m->n_operands; s++) sy->rec_of[s] = -1;
    for (t = 0; t < m->n_tiles; t++)
        sy->tile_loop[t] = (m->tiles[t].nbuf > 1 && m->tiles[t].decl >= 0) ? pto_stmt_loop(m, m->tiles[t].decl) : -1;
    for (s = 0; s < m->n_stmts; s++) {
        pto_status st;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0 || pto__sy_issync(m->stmts[s].op)) continue;
        if (m->blocks[m->stmts[s].block].kernel != sy->kernel) continue;
        st = pto__sy_add_records(sy, s);
        if (st != PTO_OK) return st;
    }
    return PTO_OK;
}

/* The record an operand touches now (its tile's slot in the current phase). */
static int32_t pto__sy_rec_now(const pto__sy *sy, int32_t o)
{
    const pto_operand *op = &sy->m->operands[o];
    int32_t r = sy->rec_of[o];
    if (r < 0) return -1;
    if (op->kind == PTO_O_TILE) {
        const pto_tile *t = &sy->m->tiles[op->ref];
        int32_t L = sy->tile_loop[op->ref];
        if (t->nbuf > 1 && L >= 0) r += sy->phase[L] % t->nbuf;
    }
    return r;
}

/* ---- analysis state ---------------------------------------------------------
   Sparse: only the records present (sorted by id, with the pipes each is
   known to happen before) and the event ids that are set (sorted by key,
   each with the sorted ids of the records its set captured). Most records
   of a long kernel are superseded (see pto__sy_covers), so a state stays
   the size of what is in flight, not of the kernel. */

static int pto__sy_grow(pto__sy *sy, void **p, size_t esz, int32_t *cap, int32_t need)
{
    void *q;
    int32_t ncap;
    if (need <= *cap) return 1;
    ncap = *cap * 2 > need ? *cap * 2 : need + 8;
    q = pto_realloc(sy->ctx, *p, (size_t)ncap * esz);
    if (!q) {
        pto_error(sy->ctx, pto__sy_noloc(), "out of memory in the sync inserter");
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return 0;
    }
    *p = q;
    *cap = ncap;
    return 1;
}

/* Room for n records, nf ids and ncap captured ids. */
static int pto__sy_reserve(pto__sy *sy, pto__sy_st *st, int32_t n, int32_t nf, int32_t ncap)
{
    return pto__sy_grow(sy, (void **)&st->rid, sizeof(int32_t), &st->cap_rid, n)
           && pto__sy_grow(sy, (void **)&st->bits, 1, &st->cap_bits, n)
           && pto__sy_grow(sy, (void **)&st->fkey, sizeof(int32_t), &st->cap_fkey, nf)
           && pto__sy_grow(sy, (void **)&st->fc0, sizeof(int32_t), &st->cap_fc0, nf)
           && pto__sy_grow(sy, (void **)&st->fcn, sizeof(int32_t), &st->cap_fcn, nf)
           && pto__sy_grow(sy, (void **)&st->fval, 1, &st->cap_fval, nf)
           && pto__sy_grow(sy, (void **)&st->caps, sizeof(int32_t), &st->cap_caps, ncap);
}

static void pto__sy_st_free(pto__sy *sy, pto__sy_st *st)
{
    pto_free(sy->ctx, st->rid);
    pto_free(sy->ctx, st->bits);
    pto_free(sy->ctx, st->fkey);
    pto_free(sy->ctx, st->fc0);
    pto_free(sy->ctx, st->fcn);
    pto_free(sy->ctx, st->fval);
    pto_free(sy->ctx, st->caps);
    memset(st, 0, sizeof *st);
}

/* States come from a free list: loops and ifs need a few at every visit. */
static pto__sy_st *pto__sy_st_get(pto__sy *sy)
{
    pto__sy_st *st;
    if (sy->nfree > 0) st = sy->freel[--sy->nfree];
    else {
        st = (pto__sy_st *)pto__sy_zalloc(sy, sizeof *st);
        if (!st) return NULL;
    }
    st->reached = 0;
    st->n = st->nf = st->ncap = 0;
    return st;
}

static void pto__sy_st_put(pto__sy *sy, pto__sy_st *st)
{
    if (!st) return;
    if (!pto__sy_grow(sy, (void **)&sy->freel, sizeof(pto__sy_st *), &sy->capfree, sy->nfree + 1)) {
        pto__sy_st_free(sy, st);
        pto_free(sy->ctx, st);
        return;
    }
    sy->freel[sy->nfree++] = st;
}

static void pto__sy_st_copy(pto__sy *sy, pto__sy_st *dst, const pto__sy_st *src)
{
    if (dst == src || !pto__sy_reserve(sy, dst, src->n, src->nf, src->ncap)) return;
    dst->reached = src->reached;
    dst->n = src->n;
    dst->nf = src->nf;
    dst->ncap = src->ncap;
    if (src->n) {
        memcpy(dst->rid, src->rid, (size_t)src->n * sizeof(int32_t));
        memcpy(dst->bits, src->bits, (size_t)src->n);
    }
    if (src->nf) {
        memcpy(dst->fkey, src->fkey, (size_t)src->nf * sizeof(int32_t));
        memcpy(dst->fc0, src->fc0, (size_t)src->nf * sizeof(int32_t));
        memcpy(dst->fcn, src->fcn, (size_t)src->nf * sizeof(int32_t));
        memcpy(dst->fval, src->fval, (size_t)src->nf);
    }
    if (src->ncap) memcpy(dst->caps, src->caps, (size_t)src->ncap * sizeof(int32_t));
}

static pto__sy_st *pto__sy_st_dup(pto__sy *sy, const pto__sy_st *src)
{
    pto__sy_st *st = pto__sy_st_get(sy);
    if (st) pto__sy_st_copy(sy, st, src);
    return st;
}

static void pto__sy_swap(pto__sy_st *a, pto__sy_st *b)
{
    pto__sy_st t = *a;
    *a = *b;
    *b = t;
}

/* Index of id v in the sorted a[0..n), or -1 - where it would go. */
static int32_t pto__sy_bsearch(const int32_t *a, int32_t n, int32_t v)
{
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        if (a[mid] < v) lo = mid + 1;
        else if (a[mid] > v) hi = mid;
        else return mid;
    }
    return -1 - lo;
}

static int pto__sy_st_equal(const pto__sy_st *a, const pto__sy_st *b)
{
    int32_t f;
    if (a->reached != b->reached || a->n != b->n || a->nf != b->nf) return 0;
    if (a->n && (memcmp(a->rid, b->rid, (size_t)a->n * sizeof(int32_t)) || memcmp(a->bits, b->bits, (size_t)a->n)))
        return 0;
    for (f = 0; f < a->nf; f++) {
        if (a->fkey[f] != b->fkey[f] || a->fval[f] != b->fval[f] || a->fcn[f] != b->fcn[f]) return 0;
        if (a->fcn[f] && memcmp(a->caps + a->fc0[f], b->caps + b->fc0[f], (size_t)a->fcn[f] * sizeof(int32_t))) return 0;
    }
    return 1;
}

/* Record r is no longer captured by any pending set (a new instance, or gone). */
static void pto__sy_uncapture(pto__sy_st *st, int32_t r)
{
    int32_t f, i;
    for (f = 0; f < st->nf; f++) {
        int32_t *c = st->caps + st->fc0[f];
        if (!st->fcn[f] || (i = pto__sy_bsearch(c, st->fcn[f], r)) < 0) continue;
        memmove(c + i, c + i + 1, (size_t)(st->fcn[f] - i - 1) * sizeof(int32_t));
        st->fcn[f]--;
    }
}

/* A new instance of record r: present, happening before nothing yet. */
static void pto__sy_touch(pto__sy *sy, pto__sy_st *st, int32_t r)
{
    int32_t k = pto__sy_bsearch(st->rid, st->n, r);
    if (k < 0) {
        k = -1 - k;
        if (!pto__sy_reserve(sy, st, st->n + 1, 0, 0)) return;
        memmove(st->rid + k + 1, st->rid + k, (size_t)(st->n - k) * sizeof(int32_t));
        memmove(st->bits + k + 1, st->bits + k, (size_t)(st->n - k));
        st->n++;
        st->rid[k] = r;
    }
    st->bits[k] = 0;
    pto__sy_uncapture(st, r);
}

/* Drops the captured-id garbage left by waits and joins. */
static void pto__sy_compact(pto__sy *sy, pto__sy_st *st)
{
    pto__sy_st *t = sy->scratch;
    int32_t f, used = 0;
    for (f = 0; f < st->nf; f++) used += st->fcn[f];
    if (st->ncap <= 2 * used + 64 || !pto__sy_reserve(sy, t, 0, 0, used)) return;
    t->ncap = 0;
    for (f = 0; f < st->nf; f++) {
        if (st->fcn[f]) memcpy(t->caps + t->ncap, st->caps + st->fc0[f], (size_t)st->fcn[f] * sizeof(int32_t));
        st->fc0[f] = t->ncap;
        t->ncap += st->fcn[f];
    }
    {
        int32_t *c = st->caps, cc = st->cap_caps;
        st->caps = t->caps;
        st->cap_caps = t->cap_caps;
        st->ncap = t->ncap;
        t->caps = c;
        t->cap_caps = cc;
    }
}

/* Inserts id key (absent) with value v at its place; returns its index. */
static int32_t pto__sy_flag_add(pto__sy *sy, pto__sy_st *st, int32_t key, uint8_t v)
{
    int32_t f = -1 - pto__sy_bsearch(st->fkey, st->nf, key), tail;
    if (!pto__sy_reserve(sy, st, 0, st->nf + 1, 0)) return -1;
    tail = st->nf - f;
    memmove(st->fkey + f + 1, st->fkey + f, (size_t)tail * sizeof(int32_t));
    memmove(st->fc0 + f + 1, st->fc0 + f, (size_t)tail * sizeof(int32_t));
    memmove(st->fcn + f + 1, st->fcn + f, (size_t)tail * sizeof(int32_t));
    memmove(st->fval + f + 1, st->fval + f, (size_t)tail);
    st->nf++;
    st->fkey[f] = key;
    st->fval[f] = v;
    st->fc0[f] = st->ncap;
    st->fcn[f] = 0;
    return f;
}

static void pto__sy_flag_del(pto__sy_st *st, int32_t f)
{
    int32_t tail = st->nf - f - 1;
    memmove(st->fkey + f, st->fkey + f + 1, (size_t)tail * sizeof(int32_t));
    memmove(st->fc0 + f, st->fc0 + f + 1, (size_t)tail * sizeof(int32_t));
    memmove(st->fcn + f, st->fcn + f + 1, (size_t)tail * sizeof(int32_t));
    memmove(st->fval + f, st->fval + f + 1, (size_t)tail);
    st->nf--;
}

static int pto__sy_present(const pto__sy_st *st, int32_t r) { return pto__sy_bsearch(st->rid, st->n, r) >= 0; }

/* The captured ids of a join where both paths have id f set: a record
   present on both paths stays captured when captured on both; one present
   on one path only keeps that path's answer. */
static void pto__sy_join_caps(pto__sy *sy, pto__sy_st *t, const pto__sy_st *d, int32_t fd, const pto__sy_st *s,
                              int32_t fs)
{
    const int32_t *a = d->caps + d->fc0[fd], *b = s->caps + s->fc0[fs];
    int32_t na = d->fcn[fd], nb = s->fcn[fs], i = 0, j = 0, f = t->nf - 1;
    if (!pto__sy_reserve(sy, t, 0, 0, t->ncap + na + nb)) return;
    while (i < na || j < nb) {
        int32_t r;
        int keep;
        if (j >= nb || (i < na && a[i] < b[j])) { r = a[i++]; keep = !pto__sy_present(s, r); }
        else if (i >= na || b[j] < a[i]) { r = b[j++]; keep = !pto__sy_present(d, r); }
        else { r = a[i++]; j++; keep = 1; }
        if (keep) t->caps[t->ncap + t->fcn[f]++] = r;
    }
    t->ncap += t->fcn[f];
}

/* The ids of a join: equal values stay, anything else is "set on some
   paths" (2), whose captures nothing reads (a set or wait on it is misuse). */
static int pto__sy_join_flags(pto__sy *sy, pto__sy_st *t, const pto__sy_st *d, const pto__sy_st *s)
{
    int32_t i = 0, j = 0;
    int changed = 0;
    while (i < d->nf || j < s->nf) {
        int32_t key, f;
        uint8_t v;
        int both = 0;
        if (j >= s->nf || (i < d->nf && d->fkey[i] < s->fkey[j])) { key = d->fkey[i]; v = 2; changed |= d->fval[i] != 2; i++; }
        else if (i >= d->nf || s->fkey[j] < d->fkey[i]) { key = s->fkey[j]; v = 2; changed = 1; j++; }
        else {
            key = d->fkey[i];
            v = d->fval[i] == s->fval[j] ? d->fval[i] : 2;
            changed |= v != d->fval[i];
            both = v == 1;
            i++;
            j++;
        }
        if ((f = pto__sy_flag_add(sy, t, key, v)) < 0) return changed;
        if (both) {
            pto__sy_join_caps(sy, t, d, i - 1, s, j - 1);
            if (t->fcn[f] != d->fcn[i - 1]
                || (t->fcn[f] && memcmp(t->caps + t->fc0[f], d->caps + d->fc0[i - 1], (size_t)t->fcn[f] * sizeof(int32_t))))
                changed = 1;
        }
    }
    return changed;
}

/* dst = dst joined with src (paths merging); returns whether dst changed. A
   record absent on one path was not accessed there, so the other path's
   knowledge stands; on both, it happens before what it does on both. */
static int pto__sy_join(pto__sy *sy, pto__sy_st *dst, const pto__sy_st *src)
{
    pto__sy_st *t = sy->scratch;
    int32_t i = 0, j = 0;
    int changed;
    if (!src->reached) return 0;
    if (!dst->reached) { pto__sy_st_copy(sy, dst, src); return 1; }
    t->n = t->nf = t->ncap = 0;
    t->reached = 1;
    changed = pto__sy_join_flags(sy, t, dst, src);
    if (!pto__sy_reserve(sy, t, dst->n + src->n, 0, 0)) return 0;
    while (i < dst->n || j < src->n) {
        if (j >= src->n || (i < dst->n && dst->rid[i] < src->rid[j])) {
            t->rid[t->n] = dst->rid[i];
            t->bits[t->n++] = dst->bits[i++];
        } else if (i >= dst->n || src->rid[j] < dst->rid[i]) {
            t->rid[t->n] = src->rid[j];
            t->bits[t->n++] = src->bits[j++];
            changed = 1;
        } else {
            uint8_t b = (uint8_t)(dst->bits[i] & src->bits[j]);
            changed |= b != dst->bits[i];
            t->rid[t->n] = dst->rid[i];
            t->bits[t->n++] = b;
            i++;
            j++;
        }
    }
    pto__sy_swap(dst, t);
    return changed;
}

/* ---- messages ------------------------------------------------------------------ */

static const char *pto__sy_base(const char *path)
{
    const char *s = path, *p;
    for (p = path; *p; p++)
        if (*p == '/' || *p == '\\') s = p + 1;
    return s;
}

/* "tload a (vadd.pto:8)": the op, its first operand, where it is. */
static void pto__sy_label(const pto__sy *sy, int32_t s, pto_buf *b)
{
    const pto_module *m = sy->m;
    const pto_operand *o = pto_stmt_arg(m, s, 0);
    pto_buf_puts(b, pto_opinfo_get((pto_op)m->stmts[s].op)->name);
    if (o && o->kind == PTO_O_TILE && o->ref >= 0) pto_buf_printf(b, " %s", pto_str(sy->ctx, m->tiles[o->ref].name));
    if (o && o->kind == PTO_O_GM && o->ref >= 0) pto_buf_printf(b, " %s", pto_str(sy->ctx, m->params[o->ref].name));
    pto_buf_printf(b, " (%s:%d)", pto__sy_base(pto_file_name(sy->ctx, m->stmts[s].loc.file)), (int)m->stmts[s].loc.line);
}

static const char *pto__sy_kind(uint8_t arw, uint8_t brw)
{
    if (arw & PTO__SY_WR) return (brw & PTO__SY_RD) ? "RAW" : "WAW";
    return "WAR";
}

/* "RAW vec[0x0000,0x2000) tload a (vadd.pto:8) -> tadd c (vadd.pto:10)" */
static int32_t pto__sy_dep_note(pto__sy *sy, int32_t ra, int32_t rb, int carried)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    pto_buf buf;
    int32_t id;
    memset(&buf, 0, sizeof buf);
    buf.ctx = sy->ctx;
    pto_buf_printf(&buf, "%s ", pto__sy_kind(a->rw, b->rw));
    if (a->space == PTO_GM)
        pto_buf_printf(&buf, "gm %s ", pto_str(sy->ctx, sy->m->params[sy->m->operands[a->opnd].ref].name));
    else
        pto_buf_printf(&buf, "%s[0x%04llx,0x%04llx) ", pto_space_name((pto_space)a->space),
                       (unsigned long long)(a->lo > b->lo ? a->lo : b->lo),
                       (unsigned long long)(a->hi < b->hi ? a->hi : b->hi));
    pto__sy_label(sy, a->stmt, &buf);
    pto_buf_puts(&buf, carried ? " -> next " : " -> ");
    pto__sy_label(sy, b->stmt, &buf);
    id = buf.oom ? 0 : pto_intern(sy->ctx, buf.data, buf.len);
    pto_buf_free(&buf);
    return id;
}

static int32_t pto__sy_prefixed(pto__sy *sy, const char *prefix, int32_t note)
{
    pto_buf buf;
    int32_t id;
    if (!prefix) return note;
    memset(&buf, 0, sizeof buf);
    buf.ctx = sy->ctx;
    pto_buf_printf(&buf, "%s%s", prefix, pto_str(sy->ctx, note));
    id = buf.oom ? note : pto_intern(sy->ctx, buf.data, buf.len);
    pto_buf_free(&buf);
    return id;
}

/* ---- the transfer functions ------------------------------------------------- */

/* A set/wait the analysis cannot follow or that is misused on some path. A
   hand-written one is the user's error; one this pass wrote is an internal
   error. */
static void pto__sy_misuse(pto__sy *sy, int32_t s, const char *what)
{
    pto_module *m = sy->m;
    const pto_operand *a = pto_stmt_arg(m, s, 0), *b = pto_stmt_arg(m, s, 1), *id = pto_stmt_arg(m, s, 2);
    int user = m->stmts[s].origin == PTO_BY_USER;
    pto_buf e;
    memset(&e, 0, sizeof e);
    e.ctx = sy->ctx;
    if (id && id->kind == PTO_O_INT) pto_print_expr(m, id->e[0], &e);
    pto_error(sy->ctx, m->stmts[s].loc, "sync: %s (%s %s, %s, %s)%s", what, pto_opinfo_get((pto_op)m->stmts[s].op)->name,
              a && a->kind == PTO_O_PIPE ? pto_pipe_name((pto_pipe)a->ref) : "?",
              b && b->kind == PTO_O_PIPE ? pto_pipe_name((pto_pipe)b->ref) : "?", e.data ? e.data : "?",
              user && strncmp(what, "cannot", 6) == 0
                  ? ": an event id is an integer, or INT + ((i - start) / step) % N with i, start and step those of an "
                    "enclosing loop (i / step or i when it starts at 0), N <= 8"
                  : "");
    pto_buf_free(&e);
    pto__sy_fail(sy, user ? PTO_ERR_USER : PTO_ERR_INTERNAL);
}

/* Event ids are keyed (src, dst, id) for hardware ids, and by the id alone
   for the virtual ids of insertion rounds (valid only for groups that exist
   and only while inserting). */
static int64_t pto__sy_key(const pto__sy *sy, int p, int q, int64_t id)
{
    if (p < 0 || p >= PTO_PIPE_ALL || q < 0 || q >= PTO_PIPE_ALL) return -1;
    if (id >= PTO__SY_VBASE) return id - PTO__SY_VBASE + PTO__SY_REAL < sy->nkeys ? id - PTO__SY_VBASE + PTO__SY_REAL : -1;
    if (id < 0 || id > 7) return -1;
    return (p * 8 + q) * 8 + id;
}

/* The key of a set/wait in the current phase, or -1. */
static int32_t pto__sy_slot(pto__sy *sy, int32_t s, int *p, int *q)
{
    const pto_module *m = sy->m;
    const pto_operand *a = pto_stmt_arg(m, s, 0), *b = pto_stmt_arg(m, s, 1), *c = pto_stmt_arg(m, s, 2);
    int64_t base, mod, id;
    int32_t L;
    if (!a || !b || !c || a->kind != PTO_O_PIPE || b->kind != PTO_O_PIPE || c->kind != PTO_O_INT) return -1;
    *p = a->ref;
    *q = b->ref;
    if (*p < 0 || *p >= PTO_PIPE_ALL || *q < 0 || *q >= PTO_PIPE_ALL || *p == *q) return -1;
    if (!pto__sy_idform(m, c->e[0], &base, &mod, &L)) return -1;
    id = base + (L >= 0 ? sy->phase[L] % mod : 0);
    return (int32_t)pto__sy_key(sy, *p, *q, id);
}

static void pto__sy_barrier(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_operand *a = pto_stmt_arg(sy->m, s, 0);
    int P = a ? a->ref : -1;
    int32_t k;
    for (k = 0; k < st->n; k++) {
        if (P == PTO_PIPE_ALL) st->bits[k] |= PTO__SY_ALLBITS;
        else if (sy->recs[st->rid[k]].pipe == P) st->bits[k] |= (uint8_t)(1u << P);
    }
}

/* set_flag on p captures every record of pipe p and every record known to
   happen before p; the wait on q makes them happen before q. */
static void pto__sy_syncop(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    int p = 0, q = 0;
    int32_t key, f, k;
    if (sy->m->stmts[s].op == PTO_OP_PIPE_BARRIER) { pto__sy_barrier(sy, s, st); return; }
    key = pto__sy_slot(sy, s, &p, &q);
    if (key < 0) { pto__sy_misuse(sy, s, "cannot analyse this event id"); return; }
    f = pto__sy_bsearch(st->fkey, st->nf, key);
    if (sy->m->stmts[s].op == PTO_OP_SET_FLAG) {
        if (f >= 0) { pto__sy_misuse(sy, s, "event id set while it may still be set"); return; }
        if (!pto__sy_reserve(sy, st, 0, 0, st->ncap + st->n) || (f = pto__sy_flag_add(sy, st, key, 1)) < 0) return;
        for (k = 0; k < st->n; k++)
            if ((st->bits[k] & (1u << p)) || sy->recs[st->rid[k]].pipe == p) st->caps[st->ncap + st->fcn[f]++] = st->rid[k];
        st->ncap += st->fcn[f];
        return;
    }
    if (f < 0 || st->fval[f] != 1) { pto__sy_misuse(sy, s, "wait on an event id that may not be set"); return; }
    {
        const int32_t *c = st->caps + st->fc0[f];
        int32_t i = 0;
        for (k = 0; k < st->fcn[f]; k++) {   /* both sorted; captured records are present */
            while (i < st->n && st->rid[i] < c[k]) i++;
            if (i < st->n && st->rid[i] == c[k]) st->bits[i] |= (uint8_t)(1u << q);
        }
    }
    pto__sy_flag_del(st, f);
    pto__sy_compact(sy, st);
}

/* Position of the statement that is the dependency's source, for choosing
   among several: same-iteration ones first, then the latest. */
static int pto__sy_is_forward(const pto__sy *sy, int32_t a, int32_t b)
{
    int32_t pa, pb;
    pto__sy_lca(sy->m, a, b, &pa, &pb);
    return sy->pos[pa] < sy->pos[pb];
}

/* How a dependency reads in a note: RAW before WAR before WAW. */
static int pto__sy_kind_rank(const pto__sy *sy, int32_t ra, int32_t rb)
{
    uint8_t a = sy->recs[ra].rw, b = sy->recs[rb].rw;
    if ((a & PTO__SY_WR) && (b & PTO__SY_RD)) return 2;
    return (a & PTO__SY_WR) ? 0 : 1;
}

static void pto__sy_hazard(pto__sy *sy, int32_t ra, int32_t s, int32_t o, int32_t rb)
{
    int32_t a = sy->recs[ra].stmt;
    int fwd, rank;
    if (sy->mode == PTO__SY_CHECK) {
        int32_t note = pto__sy_dep_note(sy, ra, rb, 0);
        pto_error(sy->ctx, sy->m->stmts[s].loc, "sync: internal: unordered dependency after sync: %s",
                  pto_str(sy->ctx, note));
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return;
    }
    fwd = pto__sy_is_forward(sy, a, s);
    rank = pto__sy_kind_rank(sy, ra, rb);
    if (sy->found) {
        if (sy->h_fwd != fwd) { if (sy->h_fwd > fwd) return; }
        else if (sy->h_apos != sy->pos[a]) { if (sy->h_apos > sy->pos[a]) return; }
        else if (pto__sy_kind_rank(sy, sy->h_rec, sy->h_brec) >= rank) return;
    }
    sy->found = 1;
    sy->h_fwd = fwd;
    sy->h_apos = sy->pos[a];
    sy->h_rec = ra;
    sy->h_bstmt = s;
    sy->h_bopnd = o;
    sy->h_brec = rb;
}

/* ---- superseded records -----------------------------------------------------
   Between two top-level statements of a core program (one path: no join
   pending) a record b can leave the state when a later-placed record a
   (pos[a] > pos[b]) supersedes it:
   - a covers b's bytes, and a writes or both read: whatever conflicts with
     b conflicts with a;
   - the pipes for which a is not a dependency (those it happens before, and
     its own when that queue is in order) are a subset of b's, and so are the
     pipes whose sets capture it (those it happens before and its own), and
     every pending set that captured a captured b.
   Each transfer function keeps the last two properties (a set capturing a
   captures b, a wait or barrier that orders a orders b, and a new instance
   of a passed the hazard check against b or, for two reads, runs on a's
   pipe); so whenever b is an unordered dependency of a later access, a is
   one too, and the hazard choice (forward first, then the latest source)
   prefers a. Dropping b changes no decision, and keeps the state the size
   of what is in flight, not of the kernel. */

static uint8_t pto__sy_cov(const pto__sy *sy, int32_t r, uint8_t bits)
{
    int p = sy->recs[r].pipe;
    return (uint8_t)(bits | (pto__sy_inorder(p) ? 1u << p : 0u));
}

/* GM window of record b lies inside that of a (same tensor, same start,
   a shape at least as large). */
static int pto__sy_gm_covers(const pto_module *m, const pto__sy_rec *a, const pto__sy_rec *b)
{
    const pto_operand *oa = &m->operands[a->opnd], *ob = &m->operands[b->opnd];
    const pto_tile *ta = pto__sy_window_tile(m, a->stmt), *tb = pto__sy_window_tile(m, b->stmt);
    int64_t d;
    if (oa->ref != ob->ref || !ta || !tb || ta->rows < tb->rows || ta->cols < tb->cols) return 0;
    return pto__sy_const_diff(m, oa->e[0], ob->e[0], &d) && d == 0 && pto__sy_const_diff(m, oa->e[1], ob->e[1], &d)
           && d == 0 && pto__sy_const_diff(m, oa->e[2], ob->e[2], &d) && d == 0;
}

static int pto__sy_supersedes(const pto__sy *sy, const pto__sy_st *st, int32_t ka, int32_t kb)
{
    int32_t ra = st->rid[ka], rb = st->rid[kb], f;
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    uint8_t ca = (uint8_t)(st->bits[ka] | (1u << a->pipe)), cb = (uint8_t)(st->bits[kb] | (1u << b->pipe));
    uint8_t va = pto__sy_cov(sy, ra, st->bits[ka]), vb = pto__sy_cov(sy, rb, st->bits[kb]);
    if (a->space != b->space || sy->pos[a->stmt] <= sy->pos[b->stmt]) return 0;
    if (!(a->rw & PTO__SY_WR) && (b->rw & PTO__SY_WR)) return 0;
    if ((ca & ~cb) || (va & ~vb)) return 0;
    if (a->space != PTO_GM ? !(a->lo <= b->lo && b->hi <= a->hi) : !pto__sy_gm_covers(sy->m, a, b)) return 0;
    for (f = 0; f < st->nf; f++) {
        const int32_t *c = st->caps + st->fc0[f];
        if (st->fval[f] == 1 && pto__sy_bsearch(c, st->fcn[f], ra) >= 0 && pto__sy_bsearch(c, st->fcn[f], rb) < 0)
            return 0;
    }
    return 1;
}

/* Drops every superseded record (see above). Superseding is transitive and
   pos strictly increases along it, so marking first and dropping after
   drops the same records as dropping one at a time. The cheap tests (space,
   order, bytes) run on a packed copy first. */
static void pto__sy_collect(pto__sy *sy, pto__sy_st *st)
{
    int32_t n = st->n, ka, kb, w = 0;
    pto__sy_cl *c;
    if (n < 2 || !pto__sy_grow(sy, (void **)&sy->cl, sizeof(pto__sy_cl), &sy->cap_cl, n)) return;
    c = sy->cl;
    for (ka = 0; ka < n; ka++) {
        const pto__sy_rec *r = &sy->recs[st->rid[ka]];
        c[ka].lo = r->lo;
        c[ka].hi = r->hi;
        c[ka].pos = sy->pos[r->stmt];
        c[ka].space = r->space;
        c[ka].rid = st->rid[ka];
        c[ka].drop = 0;
    }
    for (kb = 0; kb < n; kb++)
        for (ka = 0; ka < n; ka++) {
            if (c[ka].space != c[kb].space || c[ka].pos <= c[kb].pos) continue;
            if (c[ka].space != PTO_GM && !(c[ka].lo <= c[kb].lo && c[kb].hi <= c[ka].hi)) continue;
            if (pto__sy_supersedes(sy, st, ka, kb)) { c[kb].drop = 1; break; }
        }
    for (kb = 0; kb < n; kb++) {
        if (c[kb].drop) continue;
        st->rid[w] = st->rid[kb];
        st->bits[w++] = st->bits[kb];
    }
    if (w == n) return;
    st->n = w;
    for (kb = 0; kb < n; kb++)
        if (c[kb].drop) pto__sy_uncapture(st, c[kb].rid);
}

static pto_status pto__sy_place(pto__sy *sy);
static int pto__sy_seen(pto__sy *sy);
static void pto__sy_counted(pto__sy *sy);

/* Insertion's shortcut. A dependency found at s during the first visit of
   every loop around s (pass 1, phase 0), inside a loop or an if, that is
   ordered right around s - a barrier just before s, or a flag pair whose
   set follows pa, the statement before s (only sync statements between),
   and whose wait precedes s - changes nothing the analysis saw up to pa.
   Its whole effect on the state at s is: the records the set captures
   after pa (the block's snapshot) happen before q; for a barrier, the
   records of its pipe happen before it. So the pair is placed and the
   analysis goes on at s, with the state another analysis from the last
   checkpoint would reach there: the same result without that analysis. */
static int pto__sy_shortcut(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    int32_t a = sy->recs[sy->h_rec].stmt, pa, pb, k, i;
    int p = sy->recs[sy->h_rec].pipe, q = pto_stmt_pipe(m, s);
    const pto__sy_grp *gr;
    if (sy->mode != PTO__SY_FIND || sy->trial || !sy->first || !sy->h_fwd || !sy->snap) return 0;
    pto__sy_lca(m, a, s, &pa, &pb);
    if (pb != s || (p != q && pa != sy->snap_stmt) || pto__sy_seen(sy)) return 0;
    if (pto__sy_place(sy) != PTO_OK) { pto__sy_fail(sy, PTO_ERR_INTERNAL); return 0; }
    pto__sy_counted(sy);
    gr = &sy->grps[sy->n_grps - 1];
    if (gr->kind == PTO__SY_BAR) {
        for (k = 0; k < st->n; k++)
            if (sy->recs[st->rid[k]].pipe == gr->dst) st->bits[k] |= (uint8_t)(1u << gr->dst);
    } else {
        const pto__sy_st *sn = sy->snap;
        for (k = 0; k < sn->n; k++) {
            if (!((sn->bits[k] & (1u << p)) || sy->recs[sn->rid[k]].pipe == p)) continue;
            if ((i = pto__sy_bsearch(st->rid, st->n, sn->rid[k])) >= 0) st->bits[i] |= (uint8_t)(1u << q);
        }
    }
    sy->found = 0;
    return 1;
}

/* The hazard check of statement s: every present record that conflicts
   with one of its accesses and is not ordered before its pipe. */
static int32_t pto__sy_scan(pto__sy *sy, int32_t s, const pto__sy_st *st, int32_t *rs)
{
    const pto_module *m = sy->m;
    int q = pto_stmt_pipe(m, s);
    int32_t i, o, r, k, nr = 0;
    for (i = 0; i < m->stmts[s].nargs; i++) {
        o = m->stmts[s].arg0 + i;
        if ((r = pto__sy_rec_now(sy, o)) < 0) continue;
        for (k = 0; k < st->n; k++) {
            int32_t r2 = st->rid[k];
            if (!pto__sy_conflict(sy, r2, r)) continue;
            if ((st->bits[k] & (1u << q)) || (sy->recs[r2].pipe == q && pto__sy_inorder(q))) continue;
            pto__sy_hazard(sy, r2, s, o, r);
            if (sy->stop) return nr;
        }
        if (nr < 8) rs[nr++] = r;
    }
    return nr;
}

static void pto__sy_access(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    int32_t i, rs[8], nr;
    for (;;) {
        nr = pto__sy_scan(sy, s, st, rs);
        if (sy->stop) return;
        if (!sy->found) break;
        if (!pto__sy_shortcut(sy, s, st)) { sy->stop = 1; return; }
    }
    for (i = 0; i < nr; i++) pto__sy_touch(sy, st, rs[i]);
}

static void pto__sy_block(pto__sy *sy, int32_t b, pto__sy_st *st);

static void pto__sy_loop(pto__sy *sy, int32_t L, pto__sy_st *st)
{
    int32_t P = sy->period[L], ph;
    pto__sy_st **heads, *work;
    int changed = 1, first = sy->first, pass = 0;
    heads = (pto__sy_st **)pto__sy_zalloc(sy, sizeof(pto__sy_st *) * (size_t)P);
    if (!heads) return;
    for (ph = 0; ph < P; ph++)
        if (!(heads[ph] = pto__sy_st_get(sy))) break;
    work = ph == P ? pto__sy_st_get(sy) : NULL;
    if (work) {
        pto__sy_st_copy(sy, heads[0], st);
        while (changed && !sy->stop) {
            changed = 0;
            pass++;
            for (ph = 0; ph < P && !sy->stop; ph++) {
                if (!heads[ph]->reached) continue;
                sy->phase[L] = ph;
                sy->first = first && pass == 1 && ph == 0;
                pto__sy_st_copy(sy, work, heads[ph]);
                pto__sy_block(sy, sy->m->stmts[L].body, work);
                if (!sy->stop) changed |= pto__sy_join(sy, heads[(ph + 1) % P], work);
            }
        }
        sy->first = first;
        /* the loop may exit at the head of any iteration */
        for (ph = 0; ph < P && !sy->stop; ph++) pto__sy_join(sy, st, heads[ph]);
    }
    sy->first = first;
    pto__sy_st_put(sy, work);
    for (ph = 0; ph < P; ph++) pto__sy_st_put(sy, heads[ph]);
    pto_free(sy->ctx, heads);
    sy->phase[L] = 0;
}

static void pto__sy_if(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    pto__sy_st *other = pto__sy_st_dup(sy, st);
    if (!other) return;
    pto__sy_block(sy, sy->m->stmts[s].body, st);
    if (!sy->stop && sy->m->stmts[s].orelse >= 0) pto__sy_block(sy, sy->m->stmts[s].orelse, other);
    if (!sy->stop) pto__sy_join(sy, st, other);
    pto__sy_st_put(sy, other);
}

static void pto__sy_stmt(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    switch (m->stmts[s].kind) {
    case PTO_ST_OP:
        if (sy->off && s < sy->n_off && sy->off[s]) break;   /* a group on trial removal */
        if (pto__sy_issync(m->stmts[s].op)) pto__sy_syncop(sy, s, st);
        else pto__sy_access(sy, s, st);
        break;
    case PTO_ST_FOR: pto__sy_loop(sy, s, st); break;
    case PTO_ST_IF: pto__sy_if(sy, s, st); break;
    default: break;   /* tiles, lets; a SECTION is its own core program */
    }
}

/* A block inside a loop or if. On a first visit during insertion it keeps
   the records and their pipes after its latest statement that can change
   them, for pto__sy_shortcut. */
static void pto__sy_block(pto__sy *sy, int32_t b, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    pto__sy_st *saved = sy->snap, *snap = NULL;
    int32_t s, saved_stmt = sy->snap_stmt;
    if (sy->mode == PTO__SY_FIND && !sy->trial && sy->first) snap = pto__sy_st_get(sy);
    sy->snap = snap;
    sy->snap_stmt = -1;
    for (s = m->blocks[b].head; s >= 0 && !sy->stop; s = m->stmts[s].next) {
        int kind = m->stmts[s].kind;
        pto__sy_stmt(sy, s, st);
        if (!snap || sy->stop || (kind != PTO_ST_OP && kind != PTO_ST_FOR && kind != PTO_ST_IF)) continue;
        if (kind == PTO_ST_OP && pto__sy_issync(m->stmts[s].op)) continue;
        if (!pto__sy_reserve(sy, snap, st->n, 0, 0)) break;
        snap->n = st->n;
        if (st->n) {
            memcpy(snap->rid, st->rid, (size_t)st->n * sizeof(int32_t));
            memcpy(snap->bits, st->bits, (size_t)st->n);
        }
        sy->snap_stmt = s;
    }
    pto__sy_st_put(sy, snap);
    sy->snap = saved;
    sy->snap_stmt = saved_stmt;
}

/* ---- analysis driver ------------------------------------------------------------
   A core program is the kernel body (sections excluded) or one section's
   body; each is analysed from an empty state. The state before each of its
   top-level statements that is not a sync statement is kept (a
   checkpoint): a change that starts inside or after such a statement only
   needs the analysis from there on, which is what makes insertion and the
   sweep local. A checkpoint is valid while nothing before its statement
   changed; insertion only ever changes statements at or after the place
   the last analysis stopped, and restarts from the checkpoint before the
   first change (see pto__sy_restart). */

static void pto__sy_number(pto__sy *sy, int32_t b, int32_t *n)
{
    const pto_module *m = sy->m;
    int32_t s;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        sy->pos[s] = (*n)++;
        if (m->stmts[s].body >= 0) pto__sy_number(sy, m->stmts[s].body, n);
        if (m->stmts[s].orelse >= 0) pto__sy_number(sy, m->stmts[s].orelse, n);
    }
}

/* Per-statement tables: preorder positions, loop periods (lcm of the
   rotations of the loop's tiles and of the event ids rotating with it). */
static int pto__sy_tables(pto__sy *sy)
{
    pto_module *m = sy->m;
    size_t n = (size_t)m->n_stmts + 1;
    int32_t s, t, zero = 0;
    pto_free(sy->ctx, sy->pos);
    pto_free(sy->ctx, sy->period);
    pto_free(sy->ctx, sy->phase);
    sy->pos = (int32_t *)pto__sy_zalloc(sy, n * sizeof(int32_t));
    sy->period = (int32_t *)pto__sy_zalloc(sy, n * sizeof(int32_t));
    sy->phase = (int32_t *)pto__sy_zalloc(sy, n * sizeof(int32_t));
    if (!sy->pos || !sy->period || !sy->phase) return 0;
    pto__sy_number(sy, m->kernels[sy->kernel].body, &zero);
    for (s = 0; s < m->n_stmts; s++) sy->period[s] = 1;
    for (t = 0; t < m->n_tiles; t++)
        if (sy->tile_loop[t] >= 0)
            sy->period[sy->tile_loop[t]] = (int32_t)pto__sy_lcm(sy->period[sy->tile_loop[t]], m->tiles[t].nbuf);
    for (s = 0; s < m->n_stmts; s++) {
        const pto_operand *c;
        int64_t base, mod;
        int32_t L;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0) continue;
        if (m->stmts[s].op != PTO_OP_SET_FLAG && m->stmts[s].op != PTO_OP_WAIT_FLAG) continue;
        c = pto_stmt_arg(m, s, 2);
        if (c && c->kind == PTO_O_INT && pto__sy_idform(m, c->e[0], &base, &mod, &L) && L >= 0)
            sy->period[L] = (int32_t)pto__sy_lcm(sy->period[L], mod);
    }
    return 1;
}

/* The core programs of the kernel: its body, then each section's body. */
static int pto__sy_programs(pto__sy *sy)
{
    const pto_module *m = sy->m;
    int32_t body = m->kernels[sy->kernel].body, s;
    sy->nprogs = 0;
    if (!pto__sy_grow(sy, (void **)&sy->progs, sizeof(int32_t), &sy->cap_progs, 1)) return 0;
    sy->progs[sy->nprogs++] = body;
    for (s = m->blocks[body].head; s >= 0; s = m->stmts[s].next) {
        if (m->stmts[s].kind != PTO_ST_SECTION) continue;
        if (!pto__sy_grow(sy, (void **)&sy->progs, sizeof(int32_t), &sy->cap_progs, sy->nprogs + 1)) return 0;
        sy->progs[sy->nprogs++] = m->stmts[s].body;
    }
    return 1;
}

/* The program (index) and top-level statement that contain statement s. */
static int32_t pto__sy_top(const pto__sy *sy, int32_t s, int32_t *prog)
{
    const pto_module *m = sy->m;
    for (;;) {
        int32_t b = m->stmts[s].block, i;
        for (i = 0; i < sy->nprogs; i++)
            if (sy->progs[i] == b) { *prog = i; return s; }
        s = pto__sy_up(m, s);
        if (s < 0) { *prog = -1; return -1; }
    }
}

static int pto__sy_ckable(const pto__sy *sy, int32_t s)
{
    return !(sy->m->stmts[s].kind == PTO_ST_OP && pto__sy_issync(sy->m->stmts[s].op));
}

static int pto__sy_ck_room(pto__sy *sy)
{
    int32_t old = sy->cap_ck, i;
    if (!pto__sy_grow(sy, (void **)&sy->ck, sizeof(pto__sy_st *), &sy->cap_ck, sy->m->n_stmts + 1)) return 0;
    for (i = old; i < sy->cap_ck; i++) sy->ck[i] = NULL;
    return 1;
}

/* Keeps st as the checkpoint before s, or, on a trial, remembers it (the
   trial's states replace the checkpoints only if the group goes); a trial
   past its group that meets the checkpoint state has converged: the rest
   of the program behaves as before, when it had no unordered dependency. */
static int pto__sy_checkpoint(pto__sy *sy, int32_t s, const pto__sy_st *st)
{
    pto__sy_st *c;
    if (!pto__sy_ckable(sy, s) || !pto__sy_ck_room(sy)) return 0;
    if (sy->trial) {
        if (sy->past && sy->ck[s] && pto__sy_st_equal(st, sy->ck[s])) return 1;
        if (!pto__sy_grow(sy, (void **)&sy->tr_stmt, sizeof(int32_t), &sy->cap_tr, sy->ntr + 1)
            || !pto__sy_grow(sy, (void **)&sy->tr_st, sizeof(pto__sy_st *), &sy->cap_tr2, sy->ntr + 1))
            return 0;
        if (!(c = pto__sy_st_dup(sy, st))) return 0;
        sy->tr_stmt[sy->ntr] = s;
        sy->tr_st[sy->ntr++] = c;
        return 0;
    }
    if (!sy->ck[s] && !(sy->ck[s] = pto__sy_st_get(sy))) return 0;
    pto__sy_st_copy(sy, sy->ck[s], st);
    return 0;
}

/* Analyses program `prog` from its top-level statement `from` (-1: from the
   start, with an empty state). */
static void pto__sy_run(pto__sy *sy, int32_t prog, int32_t from)
{
    const pto_module *m = sy->m;
    pto__sy_st *st = pto__sy_st_get(sy);
    int32_t s, f;
    if (!st) return;
    if (from >= 0 && from < sy->cap_ck && sy->ck[from]) pto__sy_st_copy(sy, st, sy->ck[from]);
    else {
        from = m->blocks[sy->progs[prog]].head;
        st->reached = 1;
    }
    sy->first = 1;
    sy->snap = NULL;
    for (s = from; s >= 0 && !sy->stop; s = m->stmts[s].next) {
        if (pto__sy_ckable(sy, s)) pto__sy_collect(sy, st);
        if (sy->mode == PTO__SY_FIND && pto__sy_checkpoint(sy, s, st)) { sy->converged = 1; break; }
        pto__sy_stmt(sy, s, st);
        if (s == sy->trial_last) sy->past = 1;
    }
    for (f = 0; f < st->nf && !sy->stop && !sy->converged; f++) {
        int32_t key = st->fkey[f];
        if (key < PTO__SY_REAL)
            pto_error(sy->ctx, m->kernels[sy->kernel].loc, "sync: event id %s -> %s %d may be left set at kernel end",
                      pto_pipe_name((pto_pipe)(key / 64)), pto_pipe_name((pto_pipe)(key / 8 % 8)), (int)(key % 8));
        else
            pto_error(sy->ctx, m->kernels[sy->kernel].loc, "sync: internal: flag group %d left set at kernel end",
                      (int)((key - PTO__SY_REAL) / PTO__SY_MAXROT));
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
    }
    pto__sy_st_put(sy, st);
}

/* Runs the analysis from program `prog`, statement `from`, over the rest
   of the kernel. FIND stops at the first uncovered dependency; CHECK
   reports it as an internal error. */
static void pto__sy_analyse_from(pto__sy *sy, int mode, int32_t prog, int32_t from)
{
    int32_t k;
    sy->mode = mode;
    sy->found = 0;
    sy->converged = 0;
    sy->stats.rounds++;
    sy->nkeys = PTO__SY_REAL + (mode == PTO__SY_FIND ? PTO__SY_MAXROT * sy->n_grps : 0);
    for (k = prog; k < sy->nprogs && !sy->stop && !sy->converged; k++) pto__sy_run(sy, k, k == prog ? from : -1);
}

static void pto__sy_analyse(pto__sy *sy, int mode)
{
    if (pto__sy_tables(sy) && pto__sy_programs(sy)) pto__sy_analyse_from(sy, mode, 0, -1);
}

/* ---- insertion ------------------------------------------------------------------- */

static int32_t pto__sy_idexpr(pto__sy *sy, int32_t L, int64_t base, int32_t nids, int32_t *ebase, int32_t *emod)
{
    pto_module *m = sy->m;
    pto_loc loc = L >= 0 ? m->stmts[L].loc : pto__sy_noloc();
    int32_t v, e, step;
    *ebase = pto_expr_int(m, base, loc);
    *emod = -1;
    if (L < 0 || nids <= 1 || *ebase < 0) return *ebase;
    v = pto_expr_var(m, m->stmts[L].ref, loc);
    e = pto_expr_bin(m, PTO_E_SUB, v, m->stmts[L].e[0], loc);
    step = m->stmts[L].e[2];
    if (step >= 0 && !pto__sy_is_int(m, step, 1)) e = pto_expr_bin(m, PTO_E_DIV, e, step, loc);
    *emod = pto_expr_int(m, nids, loc);
    e = pto_expr_bin(m, PTO_E_MOD, e, *emod, loc);
    return pto_expr_bin(m, PTO_E_ADD, *ebase, e, loc);
}

/* A new sync statement placed before (after = 0) or after `at`. */
static int32_t pto__sy_emit(pto__sy *sy, int32_t g, uint8_t role, int32_t at, int after, int32_t k)
{
    pto_module *m = sy->m;
    pto__sy_grp *gr = &sy->grps[g];
    int barrier = role == PTO__SY_BARRIER;
    int rot = (role == PTO__SY_WAIT || role == PTO__SY_SET) && gr->kind == PTO__SY_LOOP;
    int32_t ebase = -1, emod = -1, expr = -1, s, en;
    pto_op op = barrier ? PTO_OP_PIPE_BARRIER : (role == PTO__SY_SET || role == PTO__SY_PRIME) ? PTO_OP_SET_FLAG : PTO_OP_WAIT_FLAG;
    static const char *const prefix[] = {"prime: ", NULL, NULL, "drain: ", NULL};
    if (!barrier) {
        int64_t vb = (int64_t)PTO__SY_VBASE + (int64_t)PTO__SY_MAXROT * g + (k > 0 ? k : 0);
        expr = pto__sy_idexpr(sy, rot ? gr->loop : -1, vb, rot ? gr->nids : 1, &ebase, &emod);
        if (expr < 0) return -1;
    }
    s = pto_new_stmt(m, PTO_ST_OP, m->stmts[at].loc);
    if (s < 0) return -1;
    m->stmts[s].op = (uint16_t)op;
    m->stmts[s].origin = PTO_BY_SYNC;
    m->stmts[s].core = m->stmts[at].core;
    m->stmts[s].note = pto__sy_prefixed(sy, prefix[role], gr->note);
    if (barrier) {
        if (pto_arg_pipe(m, s, (pto_pipe)gr->dst, m->stmts[at].loc) < 0) return -1;
    } else if (pto_arg_pipe(m, s, (pto_pipe)gr->src, m->stmts[at].loc) < 0
               || pto_arg_pipe(m, s, (pto_pipe)gr->dst, m->stmts[at].loc) < 0
               || pto_arg_int(m, s, expr, m->stmts[at].loc) < 0) {
        return -1;
    }
    if (after) pto_insert_after(m, at, s);
    else pto_insert_before(m, at, s);
    en = PTO__PUSH(sy, ents);
    if (en < 0) return -1;
    sy->ents[en].stmt = s;
    sy->ents[en].grp = g;
    sy->ents[en].ebase = ebase;
    sy->ents[en].emod = emod;
    sy->ents[en].k = k;
    sy->ents[en].role = role;
    return s;
}

/* The rotation for a dependency carried by loop L: the number of iterations
   D until the conflicting bytes recur (slots of L's xN tiles rotate with the
   phase; other tiles may be in any slot), capped by the tiles' N. */
static int32_t pto__sy_rotation(pto__sy *sy, int32_t L, int32_t ra, int32_t rb)
{
    const pto_module *m = sy->m;
    int32_t oa = sy->recs[ra].opnd, ob = sy->recs[rb].opnd;
    int32_t r0a = sy->rec_of[oa], r0b = sy->rec_of[ob], na = 1, nb = 1, ta = -1, tb = -1, d, ph, i, j, nmax = 1;
    int rota = 0, rotb = 0;
    int64_t per;
    if (m->operands[oa].kind == PTO_O_TILE) { ta = m->operands[oa].ref; na = m->tiles[ta].nbuf; rota = sy->tile_loop[ta] == L && na > 1; }
    if (m->operands[ob].kind == PTO_O_TILE) { tb = m->operands[ob].ref; nb = m->tiles[tb].nbuf; rotb = sy->tile_loop[tb] == L && nb > 1; }
    if (rota && na > nmax) nmax = na;
    if (rotb && nb > nmax) nmax = nb;
    if (nmax == 1) return 1;
    per = pto__sy_lcm(rota ? na : 1, rotb ? nb : 1);
    for (d = 1; d < nmax; d++)
        for (ph = 0; ph < per; ph++)
            for (i = 0; i < na; i++)
                for (j = 0; j < nb; j++) {
                    if (rota && i != ph % na) continue;
                    if (rotb && j != (ph + d) % nb) continue;
                    if (pto__sy_conflict(sy, r0a + i, r0b + j)) return d;
                }
    return nmax;
}

static int32_t pto__sy_new_group(pto__sy *sy, uint8_t kind, int src, int dst, int32_t L, int32_t nids, int carried)
{
    int32_t g = PTO__PUSH(sy, grps);
    pto__sy_grp *gr;
    if (g < 0) return -1;
    gr = &sy->grps[g];
    gr->kind = kind;
    gr->src = (uint8_t)src;
    gr->dst = (uint8_t)dst;
    gr->loop = L;
    gr->nids = nids;
    gr->base = -1;
    gr->arec = sy->h_rec;
    gr->bstmt = sy->h_bstmt;
    gr->bopnd = sy->h_bopnd;
    gr->note = pto__sy_dep_note(sy, sy->h_rec, sy->h_brec, carried);
    return g;
}

/* Orders the dependency the last FIND analysis reported. */
static pto_status pto__sy_place(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t a = sy->recs[sy->h_rec].stmt, b = sy->h_bstmt, pa, pb, L = -1, as, bs, g, k, M = 1;
    int p = sy->recs[sy->h_rec].pipe, q = pto_stmt_pipe(m, b), ok = 1;
    pto__sy_lca(m, a, b, &pa, &pb);
    if (!sy->h_fwd) {
        L = pto_stmt_loop(m, pa);
        if (L < 0) {
            pto_error(sy->ctx, m->stmts[b].loc, "sync: internal: a backward dependency outside any loop");
            return PTO_ERR_INTERNAL;
        }
        pa = pto__sy_in_block(m, a, m->stmts[L].body);
        pb = pto__sy_in_block(m, b, m->stmts[L].body);
    }
    if (p == q) {
        g = pto__sy_new_group(sy, PTO__SY_BAR, p, q, -1, 0, !sy->h_fwd);
        if (g < 0 || pto__sy_emit(sy, g, PTO__SY_BARRIER, pb, 0, -1) < 0) return PTO_ERR_INTERNAL;
        sy->stats.barriers++;
        return PTO_OK;
    }
    if (!sy->h_fwd) M = pto__sy_rotation(sy, L, sy->h_rec, sy->h_brec);
    g = pto__sy_new_group(sy, sy->h_fwd ? PTO__SY_FWD : PTO__SY_LOOP, p, q, L, M, !sy->h_fwd);
    if (g < 0) return PTO_ERR_INTERNAL;
    as = pto__sy_emit(sy, g, PTO__SY_SET, pa, 1, -1);
    bs = pto__sy_emit(sy, g, PTO__SY_WAIT, pb, 0, -1);
    ok = as >= 0 && bs >= 0;
    for (k = 0; ok && L >= 0 && k < M; k++)
        ok = pto__sy_emit(sy, g, PTO__SY_PRIME, L, 0, k) >= 0 && pto__sy_emit(sy, g, PTO__SY_DRAIN, L, 1, M - 1 - k) >= 0;
    return ok ? PTO_OK : PTO_ERR_INTERNAL;
}

/* ---- event ids ------------------------------------------------------------------- */

static int32_t pto__sy_limit(const pto__sy *sy, int src, int dst)
{
    int32_t lim = sy->ids_per_pair;
    /* hardware.md s4: M -> FIX deadlocked with ids 3..7 on one device */
    if (src == PTO_PIPE_M && dst == PTO_PIPE_FIX && lim > 3) lim = 3;
    return lim;
}

static void pto__sy_unlink_ent(pto__sy *sy, int32_t e)
{
    if (sy->ents[e].stmt < 0) return;
    pto_unlink(sy->m, sy->ents[e].stmt);
    sy->ents[e].stmt = -1;
}

static const char *pto__sy_opname(const pto__sy *sy, int32_t o)
{
    const pto_operand *op = &sy->m->operands[o];
    if (op->kind == PTO_O_TILE) return pto_str(sy->ctx, sy->m->tiles[op->ref].name);
    if (op->kind == PTO_O_GM) return pto_str(sy->ctx, sy->m->params[op->ref].name);
    return "?";
}

/* "tile t8" or "tiles a and b" (tiles that share bytes after reuse). */
static void pto__sy_tiles(const pto__sy *sy, const pto__sy_grp *gr, char *buf, size_t n)
{
    const char *a = pto__sy_opname(sy, sy->recs[gr->arec].opnd), *b = pto__sy_opname(sy, gr->bopnd);
    const char *what = sy->m->operands[gr->bopnd].kind == PTO_O_GM ? "tensor" : "tile";
    if (strcmp(a, b) == 0) snprintf(buf, n, "%s %s", what, a);
    else snprintf(buf, n, "%ss %s and %s", what, a, b);
}

static void pto__sy_degrade(pto__sy *sy, int32_t g, int32_t M)
{
    pto__sy_grp *gr = &sy->grps[g];
    int32_t e;
    char tiles[160];
    pto__sy_tiles(sy, gr, tiles, sizeof tiles);
    pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                "sync: out of event ids for %s -> %s: %d ids rotate instead of %d for %s: %s",
                pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), (int)M, (int)gr->nids, tiles,
                pto_str(sy->ctx, gr->note));
    for (e = 0; e < sy->n_ents; e++) {
        if (sy->ents[e].grp != g || sy->ents[e].stmt < 0) continue;
        if (sy->ents[e].emod >= 0) sy->m->exprs[sy->ents[e].emod].value = M;
        if (sy->ents[e].k >= M) pto__sy_unlink_ent(sy, e);
    }
    gr->nids = M;
    sy->stats.degraded++;
}

/* No ids left at all: a PIPE_ALL barrier where the wait was (and after the
   loop for a carried dependency) orders everything the pair ordered. */
static pto_status pto__sy_fallback(pto__sy *sy, int32_t g)
{
    pto__sy_grp *gr = &sy->grps[g];
    int32_t e, n = sy->n_ents;
    char tiles[160];
    pto__sy_tiles(sy, gr, tiles, sizeof tiles);
    pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                "sync: out of event ids for %s -> %s: PIPE_ALL barrier instead of a flag pair for %s: %s",
                pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), tiles, pto_str(sy->ctx, gr->note));
    gr->note = pto__sy_prefixed(sy, "PIPE_ALL (out of event ids): ", gr->note);
    gr->dst = PTO_PIPE_ALL;
    for (e = 0; e < n; e++) {
        int32_t s = sy->ents[e].stmt;
        if (sy->ents[e].grp != g || s < 0) continue;
        if (sy->ents[e].role == PTO__SY_WAIT && pto__sy_emit(sy, g, PTO__SY_BARRIER, s, 0, -1) < 0) return PTO_ERR_INTERNAL;
        if (sy->ents[e].role == PTO__SY_DRAIN && sy->ents[e].k == 0
            && pto__sy_emit(sy, g, PTO__SY_BARRIER, gr->loop, 1, -1) < 0)
            return PTO_ERR_INTERNAL;
    }
    for (e = 0; e < n; e++)   /* the pair's own statements, not the new barriers */
        if (sy->ents[e].grp == g) pto__sy_unlink_ent(sy, e);
    sy->stats.fallbacks++;
    return PTO_OK;
}

/* Ids already used by sync statements this run did not make are reserved
   for the whole kernel. */
static void pto__sy_reserved(pto__sy *sy, uint8_t used[8][8])
{
    const pto_module *m = sy->m;
    int32_t s, e;
    memset(used, 0, 64);
    for (e = 0; e < sy->n_ents; e++)
        if (sy->ents[e].stmt >= 0) sy->ours[sy->ents[e].stmt] = 1;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_operand *a, *b, *c;
        int64_t base, mod, i;
        int32_t L;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0 || sy->ours[s]) continue;
        if (m->blocks[m->stmts[s].block].kernel != sy->kernel) continue;
        if (m->stmts[s].op != PTO_OP_SET_FLAG && m->stmts[s].op != PTO_OP_WAIT_FLAG) continue;
        a = pto_stmt_arg(m, s, 0);
        b = pto_stmt_arg(m, s, 1);
        c = pto_stmt_arg(m, s, 2);
        if (!a || !b || !c || a->ref < 0 || a->ref > 7 || b->ref < 0 || b->ref > 7) continue;
        if (!pto__sy_idform(m, c->e[0], &base, &mod, &L)) continue;
        for (i = base; i < base + mod; i++)
            if (i >= 0 && i < 8) used[a->ref][b->ref] |= (uint8_t)(1u << i);
    }
}

static int32_t pto__sy_first_free(const int32_t *busy, uint8_t used, int32_t lo, int32_t M, int32_t lim)
{
    int32_t b, i;
    for (b = 0; b + M <= lim; b++) {
        for (i = b; i < b + M; i++)
            if ((used & (1u << i)) || busy[i] >= lo) break;
        if (i == b + M) return b;
    }
    return -1;
}

static int pto__sy_ent_cmp(const void *a, const void *b)
{
    const int32_t *x = (const int32_t *)a, *y = (const int32_t *)b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Colours the lifetimes of the flag groups of one kernel with hardware ids,
   pair by pair, greedily in program order (optimal for intervals). */
static pto_status pto__sy_assign(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t *lo, *hi, *order, *pairs, g, e, i, j, n = 0;
    uint8_t used[8][8];
    int32_t busy[8][8][8];
    pto_status st = PTO_OK;
    if (!pto__sy_tables(sy)) return PTO_ERR_INTERNAL;
    pto_free(sy->ctx, sy->ours);
    sy->ours = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)m->n_stmts + 1));
    lo = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_grps + 1));
    hi = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_grps + 1));
    order = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_grps + 1));
    pairs = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * 2 * ((size_t)sy->n_grps + 1));
    if (!sy->ours || !lo || !hi || !order || !pairs) st = PTO_ERR_INTERNAL;
    for (g = 0; st == PTO_OK && g < sy->n_grps; g++) {
        lo[g] = 0x7fffffff;
        hi[g] = -1;
    }
    for (e = 0; st == PTO_OK && e < sy->n_ents; e++) {
        int32_t s = sy->ents[e].stmt;
        g = sy->ents[e].grp;
        if (s < 0) continue;
        if (sy->pos[s] < lo[g]) lo[g] = sy->pos[s];
        if (sy->pos[s] > hi[g]) hi[g] = sy->pos[s];
    }
    for (g = 0; st == PTO_OK && g < sy->n_grps; g++) {
        if (sy->grps[g].kind == PTO__SY_BAR || sy->grps[g].kind == PTO__SY_DEAD) continue;
        pairs[2 * n] = lo[g];
        pairs[2 * n + 1] = g;
        n++;
    }
    /* program order of the first statement; creation order on a tie */
    if (st == PTO_OK) qsort(pairs, (size_t)n, 2 * sizeof(int32_t), pto__sy_ent_cmp);
    for (i = 0; st == PTO_OK && i < n; i++) order[i] = pairs[2 * i + 1];
    if (st == PTO_OK) pto__sy_reserved(sy, used);
    for (i = 0; i < 8; i++)
        for (j = 0; j < 64; j++) busy[i][j / 8][j % 8] = -1;
    for (i = 0; st == PTO_OK && i < n; i++) {
        pto__sy_grp *gr = &sy->grps[order[i]];
        int32_t lim = pto__sy_limit(sy, gr->src, gr->dst), M = gr->nids, base;
        int32_t *bz = busy[gr->src][gr->dst];
        base = pto__sy_first_free(bz, used[gr->src][gr->dst], lo[order[i]], M, lim);
        while (base < 0 && M > 1) {
            M = M > 2 ? 2 : 1;
            base = pto__sy_first_free(bz, used[gr->src][gr->dst], lo[order[i]], M, lim);
        }
        if (base < 0) { st = pto__sy_fallback(sy, order[i]); continue; }
        if (M < gr->nids) pto__sy_degrade(sy, order[i], M);
        gr->base = base;
        for (j = base; j < base + M; j++) bz[j] = hi[order[i]];
    }
    for (e = 0; st == PTO_OK && e < sy->n_ents; e++) {
        pto__sy_ent *en = &sy->ents[e];
        if (en->stmt >= 0 && en->ebase >= 0 && sy->grps[en->grp].base >= 0)
            m->exprs[en->ebase].value = sy->grps[en->grp].base + (en->k > 0 ? en->k : 0);
    }
    pto_free(sy->ctx, lo);
    pto_free(sy->ctx, hi);
    pto_free(sy->ctx, order);
    pto_free(sy->ctx, pairs);
    return st;
}

/* ---- driver ----------------------------------------------------------------------- */

/* Dependencies placed so far, (record, operand) pairs in a hash set: one
   found twice means a placement did not order it. */
static int pto__sy_seen(pto__sy *sy)
{
    int64_t key = ((int64_t)sy->h_rec << 32) | (int64_t)(uint32_t)sy->h_bopnd;
    uint64_t h;
    int32_t i;
    if (2 * (sy->n_seen + 1) > sy->cap_seen) {
        int32_t ncap = sy->cap_seen ? sy->cap_seen * 2 : 256, oldcap = sy->cap_seen;
        int64_t *old = sy->seen, *t = (int64_t *)pto__sy_zalloc(sy, (size_t)ncap * sizeof(int64_t));
        if (!t) return 0;
        for (i = 0; i < ncap; i++) t[i] = -1;
        sy->seen = t;
        sy->cap_seen = ncap;
        sy->n_seen = 0;
        for (i = 0; i < oldcap; i++) {
            int32_t j;
            if (old[i] < 0) continue;
            for (j = (int32_t)(((uint64_t)old[i] * 0x9E3779B97F4A7C15ull) >> 40) & (ncap - 1); t[j] >= 0; j = (j + 1) & (ncap - 1)) {}
            t[j] = old[i];
            sy->n_seen++;
        }
        pto_free(sy->ctx, old);
    }
    h = ((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 40;
    for (i = (int32_t)h & (sy->cap_seen - 1); sy->seen[i] >= 0; i = (i + 1) & (sy->cap_seen - 1))
        if (sy->seen[i] == key) return 1;
    sy->seen[i] = key;
    sy->n_seen++;
    return 0;
}

/* The checkpoint to analyse again from after the statements of ents
   [e0, e1) changed (were added, or are switched off): the latest
   checkpoint at or before the first top-level statement they are in
   (-1: the program's start). */
static void pto__sy_restart(pto__sy *sy, int32_t e0, int32_t e1, int32_t *prog, int32_t *from, int32_t *last)
{
    int32_t e, bp = -1, bf = -1, lp = -1;
    if (last) *last = -1;
    for (e = e0; e < e1; e++) {
        int32_t s = sy->ents[e].stmt, t, p = -1;
        if (s < 0 || (t = pto__sy_top(sy, s, &p)) < 0) continue;
        if (last && (*last < 0 || sy->pos[t] > lp)) { *last = t; lp = sy->pos[t]; }
        while (t >= 0 && !(t < sy->cap_ck && sy->ck[t] && pto__sy_ckable(sy, t))) t = sy->m->stmts[t].prev;
        if (bp < 0 || p < bp || (p == bp && bf >= 0 && (t < 0 || sy->pos[t] < sy->pos[bf]))) {
            bp = p;
            bf = t;
        }
    }
    *prog = bp < 0 ? 0 : bp;
    *from = bf;
}

static void pto__sy_trial_drop(pto__sy *sy)
{
    int32_t i;
    for (i = 0; i < sy->ntr; i++) pto__sy_st_put(sy, sy->tr_st[i]);
    sy->ntr = 0;
}

/* The trial's states become the checkpoints (its group is gone). */
static void pto__sy_trial_commit(pto__sy *sy)
{
    int32_t i;
    for (i = 0; i < sy->ntr; i++) {
        int32_t s = sy->tr_stmt[i];
        pto__sy_st_put(sy, sy->ck[s]);
        sy->ck[s] = sy->tr_st[i];
    }
    sy->ntr = 0;
}

/* Ents sorted by group (group, ent pairs), for the per-group passes. */
static int32_t *pto__sy_by_group(pto__sy *sy)
{
    int32_t *v = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * 2 * ((size_t)sy->n_ents + 1)), e;
    if (!v) return NULL;
    for (e = 0; e < sy->n_ents; e++) {
        v[2 * e] = sy->ents[e].grp;
        v[2 * e + 1] = e;
    }
    qsort(v, (size_t)sy->n_ents, 2 * sizeof(int32_t), pto__sy_ent_cmp);
    v[2 * sy->n_ents] = -1;
    return v;
}

/* A group placed early can be implied by groups placed after it (a barrier
   for a carried dependency also orders the first iteration). Each group in
   turn is switched off; if the analysis then finds nothing unordered, it
   goes. What remains is each needed given the others. The analysis of a
   trial starts at the checkpoint before the group and stops as soon as its
   state meets the checkpoint after the group (pto__sy_checkpoint). */
static pto_status pto__sy_sweep(pto__sy *sy)
{
    int32_t g, i = 0, j, *bg;
    if (!pto__sy_tables(sy) || !pto__sy_programs(sy) || !(bg = pto__sy_by_group(sy))) return PTO_ERR_INTERNAL;
    sy->n_off = sy->m->n_stmts;
    sy->off = (uint8_t *)pto__sy_zalloc(sy, (size_t)sy->n_off + 1);
    for (g = 0; sy->off && g < sy->n_grps && sy->status == PTO_OK; g++) {
        int32_t prog, from, first;
        while (i < sy->n_ents && bg[2 * i] < g) i++;
        for (j = i; j < sy->n_ents && bg[2 * j] == g; j++)
            if (sy->ents[bg[2 * j + 1]].stmt >= 0) sy->off[sy->ents[bg[2 * j + 1]].stmt] = 1;
        /* the group's ents, in a contiguous copy for pto__sy_restart */
        first = sy->n_ents;
        for (j = i; j < sy->n_ents && bg[2 * j] == g; j++) {
            int32_t n = PTO__PUSH(sy, ents);
            if (n < 0) break;
            sy->ents[n] = sy->ents[bg[2 * j + 1]];
        }
        pto__sy_restart(sy, first, sy->n_ents, &prog, &from, &sy->trial_last);
        sy->n_ents = first;
        sy->trial = 1;
        sy->past = 0;
        pto__sy_analyse_from(sy, PTO__SY_FIND, prog, from);
        sy->stop = sy->trial = 0;
        sy->trial_last = -1;
        for (j = i; j < sy->n_ents && bg[2 * j] == g; j++) {
            int32_t e = bg[2 * j + 1];
            if (sy->ents[e].stmt < 0) continue;
            sy->off[sy->ents[e].stmt] = 0;
            if (!sy->found) pto__sy_unlink_ent(sy, e);
        }
        if (sy->found) { pto__sy_trial_drop(sy); continue; }
        pto__sy_trial_commit(sy);
        if (sy->grps[g].kind == PTO__SY_BAR) sy->stats.barriers--;
        else {
            sy->stats.flag_pairs--;
            if (sy->grps[g].nids > 1) sy->stats.rotating--;
        }
        sy->grps[g].kind = PTO__SY_DEAD;
    }
    pto__sy_trial_drop(sy);
    pto_free(sy->ctx, bg);
    pto_free(sy->ctx, sy->off);
    sy->off = NULL;
    sy->n_off = 0;
    return sy->status;
}

/* Book-keeping for the group just placed. */
static void pto__sy_counted(pto__sy *sy)
{
    const pto__sy_grp *gr = &sy->grps[sy->n_grps - 1];
    if (gr->kind != PTO__SY_BAR) {
        sy->stats.flag_pairs++;
        if (gr->nids > 1) sy->stats.rotating++;
    }
    if (gr->kind == PTO__SY_LOOP) sy->period[gr->loop] = (int32_t)pto__sy_lcm(sy->period[gr->loop], gr->nids);
    sy->nkeys = PTO__SY_REAL + PTO__SY_MAXROT * sy->n_grps;
    sy->stats.rounds++;
}

/* Insertion: analyse; order the first uncovered dependency; analyse again
   from the checkpoint before the first statement that changed. */
static pto_status pto__sy_insert(pto__sy *sy)
{
    pto_status st;
    int32_t e0, prog, from;
    if (!pto__sy_tables(sy) || !pto__sy_programs(sy) || !pto__sy_ck_room(sy)) return PTO_ERR_INTERNAL;
    sy->trial_last = -1;
    pto__sy_analyse_from(sy, PTO__SY_FIND, 0, -1);
    for (;;) {
        if (sy->status != PTO_OK) return sy->status;
        if (!sy->found) return PTO_OK;
        sy->stop = 0;
        if (pto__sy_seen(sy)) {
            pto_error(sy->ctx, sy->m->stmts[sy->h_bstmt].loc, "sync: internal: could not order %s",
                      pto_str(sy->ctx, pto__sy_dep_note(sy, sy->h_rec, sy->h_brec, !sy->h_fwd)));
            return PTO_ERR_INTERNAL;
        }
        e0 = sy->n_ents;
        if ((st = pto__sy_place(sy)) != PTO_OK) return st;
        pto__sy_counted(sy);
        pto__sy_restart(sy, e0, sy->n_ents, &prog, &from, NULL);
        pto__sy_analyse_from(sy, PTO__SY_FIND, prog, from);
    }
}

static pto_status pto__sy_kernel(pto__sy *sy)
{
    pto_status st = pto__sy_build_records(sy);
    if (st != PTO_OK) return st;
    if (!(sy->scratch = pto__sy_st_get(sy))) return PTO_ERR_INTERNAL;
    if ((st = pto__sy_insert(sy)) != PTO_OK) return st;
    if ((st = pto__sy_sweep(sy)) != PTO_OK) return st;
    if ((st = pto__sy_assign(sy)) != PTO_OK) return st;
    pto__sy_analyse(sy, PTO__SY_CHECK);
    return sy->status;
}

static void pto__sy_reset(pto__sy *sy)
{
    pto_ctx *ctx = sy->ctx;
    int32_t i;
    for (i = 0; i < sy->cap_ck; i++) pto__sy_st_put(sy, sy->ck[i]);
    pto__sy_trial_drop(sy);
    pto__sy_st_put(sy, sy->scratch);
    for (i = 0; i < sy->nfree; i++) {
        pto__sy_st_free(sy, sy->freel[i]);
        pto_free(ctx, sy->freel[i]);
    }
    pto_free(ctx, sy->freel);
    pto_free(ctx, sy->ck);
    pto_free(ctx, sy->tr_stmt);
    pto_free(ctx, sy->cl);
    pto_free(ctx, sy->tr_st);
    pto_free(ctx, sy->progs);
    pto_free(ctx, sy->recs);
    pto_free(ctx, sy->rec_of);
    pto_free(ctx, sy->tile_loop);
    pto_free(ctx, sy->inert);
    pto_free(ctx, sy->period);
    pto_free(ctx, sy->phase);
    pto_free(ctx, sy->pos);
    pto_free(ctx, sy->ours);
    pto_free(ctx, sy->grps);
    pto_free(ctx, sy->ents);
    pto_free(ctx, sy->seen);
    {
        pto_ctx *c = sy->ctx;
        pto_module *m = sy->m;
        int32_t k = sy->kernel, ids = sy->ids_per_pair;
        pto_sync_stats stats = sy->stats;
        pto_status status = sy->status;
        memset(sy, 0, sizeof *sy);
        sy->ctx = c;
        sy->m = m;
        sy->kernel = k;
        sy->ids_per_pair = ids;
        sy->stats = stats;
        sy->status = status;
    }
}

PTODEF pto_status pto_sync(pto_ctx *ctx, pto_module *m, const pto_sync_desc *desc)
{
    pto__sy sy;
    pto_status st = PTO_OK;
    int32_t k;
    memset(&sy, 0, sizeof sy);
    sy.ctx = ctx;
    sy.m = m;
    sy.ids_per_pair = desc && desc->ids_per_pair > 0 ? (desc->ids_per_pair > 8 ? 8 : desc->ids_per_pair) : 8;
    for (k = 0; k < m->n_kernels && st == PTO_OK; k++) {
        sy.kernel = k;
        sy.status = PTO_OK;
        sy.stop = 0;
        st = pto__sy_kernel(&sy);
        pto__sy_reset(&sy);
    }
    if (desc && desc->stats) *desc->stats = sy.stats;
    return st;
}

/* ---- dump ------------------------------------------------------------------------------ */

static void pto__sy_expr(const pto_module *m, int32_t e, pto_buf *b)
{
    static const char *const ops[] = {"+", "-", "*", "/", "%"};
    const pto_expr *x;
    if (e < 0 || e >= m->n_exprs) { pto_buf_puts(b, "?"); return; }
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: pto_buf_printf(b, "%lld", (long long)x->value); return;
    case PTO_E_VAR: pto_buf_puts(b, pto_str(m->ctx, m->vars[x->a].name)); return;
    case PTO_E_BLOCK: pto_buf_puts(b, "block"); return;
    case PTO_E_BLOCKS: pto_buf_puts(b, "blocks"); return;
    case PTO_E_SUBBLOCK: pto_buf_puts(b, "subblock"); return;
    case PTO_E_RANK: pto_buf_puts(b, "rank"); return;
    case PTO_E_NRANKS: pto_buf_puts(b, "nranks"); return;
    case PTO_E_NEG: pto_buf_puts(b, "-("); pto__sy_expr(m, x->a, b); pto_buf_puts(b, ")"); return;
    case PTO_E_MIN: case PTO_E_MAX:
        pto_buf_puts(b, x->kind == PTO_E_MIN ? "min(" : "max(");
        pto__sy_expr(m, x->a, b);
        pto_buf_puts(b, ", ");
        pto__sy_expr(m, x->b, b);
        pto_buf_puts(b, ")");
        return;
    default:
        pto_buf_puts(b, "(");
        pto__sy_expr(m, x->a, b);
        pto_buf_printf(b, " %s ", ops[x->kind - PTO_E_ADD]);
        pto__sy_expr(m, x->b, b);
        pto_buf_puts(b, ")");
        return;
    }
}

static void pto__sy_dump_op(const pto_module *m, int32_t s, pto_buf *b)
{
    int i;
    pto_buf_puts(b, pto_opinfo_get((pto_op)m->stmts[s].op)->name);
    for (i = 0; i < m->stmts[s].nargs; i++) {
        const pto_operand *o = pto_stmt_arg(m, s, i);
        pto_buf_puts(b, i ? ", " : " ");
        switch (o->kind) {
        case PTO_O_TILE: pto_buf_puts(b, pto_str(m->ctx, m->tiles[o->ref].name)); break;
        case PTO_O_GM:
            pto_buf_printf(b, "%s[", pto_str(m->ctx, m->params[o->ref].name));
            pto__sy_expr(m, o->e[0], b);
            pto_buf_puts(b, ", ");
            pto__sy_expr(m, o->e[1], b);
            pto_buf_puts(b, "]");
            break;
        case PTO_O_FLOAT: pto_buf_printf(b, "%g", o->f); break;
        case PTO_O_SCALAR: pto_buf_puts(b, pto_str(m->ctx, m->vars[o->ref].name)); break;
        case PTO_O_INT: pto__sy_expr(m, o->e[0], b); break;
        case PTO_O_PIPE: pto_buf_puts(b, pto_pipe_name((pto_pipe)o->ref)); break;
        case PTO_O_CVPIPE: pto_buf_puts(b, pto_str(m->ctx, m->cvpipes[o->ref].name)); break;
        default: pto_buf_puts(b, "?"); break;
        }
    }
}

static void pto__sy_dump_block(const pto_module *m, int32_t blk, int depth, pto_buf *b)
{
    int32_t s;
    for (s = m->blocks[blk].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->note) pto_buf_printf(b, "%*s# %s\n", 2 * depth, "", pto_str(m->ctx, st->note));
        pto_buf_printf(b, "%*s", 2 * depth, "");
        switch (st->kind) {
        case PTO_ST_OP: pto__sy_dump_op(m, s, b); break;
        case PTO_ST_TILE: {
            const pto_tile *t = &m->tiles[st->ref];
            int k;
            pto_buf_printf(b, "tile %s: %s %s[%d, %d] x%d at", pto_str(m->ctx, t->name), pto_space_name((pto_space)t->space),
                           pto_dtype_name((pto_dtype)t->dtype), (int)t->rows, (int)t->cols, (int)t->nbuf);
            for (k = 0; k < t->nbuf && k < PTO_MAX_NBUF; k++)
                pto_buf_printf(b, k ? ",0x%04llx" : " 0x%04llx", (unsigned long long)t->offset[k]);
            if (!t->planned) pto_buf_puts(b, " (unplanned)");
            break;
        }
        case PTO_ST_LET:
            pto_buf_printf(b, "let %s = ", pto_str(m->ctx, m->vars[st->ref].name));
            pto__sy_expr(m, st->e[0], b);
            break;
        case PTO_ST_FOR:
            pto_buf_printf(b, "for %s = ", pto_str(m->ctx, m->vars[st->ref].name));
            pto__sy_expr(m, st->e[0], b);
            pto_buf_puts(b, " to ");
            pto__sy_expr(m, st->e[1], b);
            if (st->e[2] >= 0) { pto_buf_puts(b, " step "); pto__sy_expr(m, st->e[2], b); }
            break;
        case PTO_ST_IF:
            pto_buf_puts(b, "if ");
            pto__sy_expr(m, st->e[0], b);
            pto_buf_printf(b, " %s ", pto_cmp_name((pto_cmp)st->cmp));
            pto__sy_expr(m, st->e[1], b);
            break;
        case PTO_ST_SECTION: pto_buf_puts(b, st->ref == PTO_CORE_CUBE ? "cube" : "vector"); break;
        default: break;
        }
        pto_buf_puts(b, st->body >= 0 ? " {\n" : "\n");
        if (st->body >= 0) {
            pto__sy_dump_block(m, st->body, depth + 1, b);
            pto_buf_printf(b, "%*s}", 2 * depth, "");
            if (st->orelse >= 0) {
                pto_buf_puts(b, " else {\n");
                pto__sy_dump_block(m, st->orelse, depth + 1, b);
                pto_buf_printf(b, "%*s}", 2 * depth, "");
            }
            pto_buf_puts(b, "\n");
        }
    }
}

PTODEF void pto_sync_dump(const pto_module *m, pto_buf *out)
{
    int32_t k, s;
    for (k = 0; k < m->n_kernels; k++) {
        int nset = 0, nwait = 0, nbar = 0, nall = 0;
        for (s = 0; s < m->n_stmts; s++) {
            const pto_stmt *st = &m->stmts[s];
            if (st->kind != PTO_ST_OP || st->origin != PTO_BY_SYNC || st->block < 0) continue;
            if (m->blocks[st->block].kernel != k) continue;
            nset += st->op == PTO_OP_SET_FLAG;
            nwait += st->op == PTO_OP_WAIT_FLAG;
            if (st->op == PTO_OP_PIPE_BARRIER) {
                nbar++;
                nall += pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_ALL;
            }
        }
        pto_buf_printf(out, "kernel %s  # sync: %d set_flag, %d wait_flag, %d pipe_barrier (%d PIPE_ALL fallbacks)\n",
                       pto_str(m->ctx, m->kernels[k].name), nset, nwait, nbar, nall);
        pto__sy_dump_block(m, m->kernels[k].body, 1, out);
    }
}
