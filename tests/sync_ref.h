/* sync_ref.h - the sync inserter as it was before the performance work
   (commit ad0339a, src/sync.c, renamed ref_ / ref__), kept only as the
   reference that test_sync_same.c compares the current pto_sync with: same
   statements, same notes, same ids, same warnings, on every kernel. Its
   analysis is cubic in the kernel length, so only small kernels go
   through it. Include after pto.h (it uses pto.h's private helpers). */

#ifndef PTO_TEST_SYNC_REF_H
#define PTO_TEST_SYNC_REF_H

#define REF__SY_ALLBITS 0x7f        /* the queues S..FIX; ALL is not a queue */
#define REF__SY_PRESENT 0x80
#define REF__SY_VBASE (1 << 20)     /* virtual ids of insertion rounds */
#define REF__SY_REAL 512            /* 8 src x 8 dst x 8 ids */
#define REF__SY_GRAN 32             /* conflicts are decided per 32-byte granule */
#define REF__SY_MAXROT 8

enum { REF__SY_RD = 1, REF__SY_WR = 2 };
enum { REF__SY_FWD, REF__SY_LOOP, REF__SY_BAR, REF__SY_DEAD };
enum { REF__SY_PRIME, REF__SY_WAIT, REF__SY_SET, REF__SY_DRAIN, REF__SY_BARRIER };
enum { REF__SY_FIND, REF__SY_CHECK };

typedef struct ref__sy_rec {
    int32_t stmt, opnd, slot;
    uint8_t pipe, rw, space;
    int64_t lo, hi;             /* local: byte range, end rounded to the granule */
} ref__sy_rec;

typedef struct ref__sy_grp {
    uint8_t kind, src, dst;
    int32_t nids;               /* rotation M (1 = a single id) */
    int32_t loop;               /* LOOP: the FOR statement */
    int32_t base;               /* hardware id base; -1 = none yet / fallback */
    int32_t arec, bstmt, bopnd; /* the dependency that made it */
    int32_t note;               /* interned dependency text */
} ref__sy_grp;

typedef struct ref__sy_ent {
    int32_t stmt;               /* -1 once removed */
    int32_t grp;
    int32_t ebase, emod;        /* INT exprs: id base (+k), rotation */
    int32_t k;                  /* prime/drain: which id of the rotation */
    uint8_t role;
} ref__sy_ent;

typedef struct ref__sy_st {
    int reached;
    uint8_t *rec;               /* per record: PRESENT | pipes it happens before */
    uint8_t *flag;              /* per id slot: 0 unset, 1 set, 2 set on some paths */
    uint8_t *cap;               /* per id slot: bitset of records its set captured */
} ref__sy_st;

typedef struct ref__sy {
    pto_ctx *ctx;
    pto_module *m;
    int32_t kernel;
    int ids_per_pair;
    pto_sync_stats stats;
    ref__sy_rec *recs;
    int32_t n_recs, cap_recs;
    int32_t *rec_of;            /* per operand: first record, or -1 */
    int32_t *tile_loop;         /* per tile: the FOR that rotates its slots, or -1 */
    int32_t *period, *phase, *pos, *ours;  /* per statement, rebuilt per analysis */
    uint8_t *off;               /* per statement: skipped by the analysis (sweep) */
    ref__sy_grp *grps;
    int32_t n_grps, cap_grps;
    ref__sy_ent *ents;
    int32_t n_ents, cap_ents;
    int32_t *seen;              /* dependencies placed so far: (record, operand) */
    int32_t n_seen, cap_seen;
    int32_t nslots, nkeys;
    int32_t *slotmap, *slotkey; /* key -> slot (-1 = unused), slot -> key */
    size_t capw;
    uint8_t *presa, *presb;     /* scratch for joins */
    int mode, stop;
    pto_status status;
    /* the dependency found by a FIND analysis */
    int found, h_fwd;
    int32_t h_rec, h_bstmt, h_bopnd, h_brec, h_apos;
} ref__sy;

/* ---- small helpers ------------------------------------------------------- */

static int ref__sy_inorder(int p) { return p != PTO_PIPE_V && p != PTO_PIPE_M; }
static int ref__sy_issync(int op)
{
    return op == PTO_OP_SET_FLAG || op == PTO_OP_WAIT_FLAG || op == PTO_OP_PIPE_BARRIER;
}
static int64_t ref__sy_gcd(int64_t a, int64_t b) { while (b) { int64_t t = a % b; a = b; b = t; } return a; }
static int64_t ref__sy_lcm(int64_t a, int64_t b) { return a / ref__sy_gcd(a, b) * b; }

static pto_loc ref__sy_noloc(void)
{
    pto_loc l;
    l.file = l.line = l.col = 0;
    return l;
}

static void ref__sy_fail(ref__sy *sy, pto_status st)
{
    if (sy->status == PTO_OK) sy->status = st;
    sy->stop = 1;
}

static void *ref__sy_zalloc(ref__sy *sy, size_t n)
{
    void *p = pto_alloc(sy->ctx, n);
    if (!p) {
        pto_error(sy->ctx, ref__sy_noloc(), "out of memory in the sync inserter");
        ref__sy_fail(sy, PTO_ERR_INTERNAL);
        return NULL;
    }
    memset(p, 0, n);
    return p;
}

/* The parent statement (FOR/IF/SECTION) of a statement, or -1. */
static int32_t ref__sy_up(const pto_module *m, int32_t s)
{
    int32_t b = m->stmts[s].block;
    return b < 0 ? -1 : m->blocks[b].owner;
}

static int ref__sy_depth(const pto_module *m, int32_t s)
{
    int d = 0;
    while ((s = ref__sy_up(m, s)) >= 0) d++;
    return d;
}

/* The ancestors-or-selves of a and b that share a block. */
static void ref__sy_lca(const pto_module *m, int32_t a, int32_t b, int32_t *pa, int32_t *pb)
{
    int da = ref__sy_depth(m, a), db = ref__sy_depth(m, b);
    for (; da > db; da--) a = ref__sy_up(m, a);
    for (; db > da; db--) b = ref__sy_up(m, b);
    while (m->stmts[a].block != m->stmts[b].block) {
        a = ref__sy_up(m, a);
        b = ref__sy_up(m, b);
    }
    *pa = a;
    *pb = b;
}

/* The ancestor-or-self of s that sits in block blk. */
static int32_t ref__sy_in_block(const pto_module *m, int32_t s, int32_t blk)
{
    while (s >= 0 && m->stmts[s].block != blk) s = ref__sy_up(m, s);
    return s;
}

static int ref__sy_expr_eq(const pto_module *m, int32_t a, int32_t b)
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
    if (x->kind == PTO_E_NEG) return ref__sy_expr_eq(m, x->a, y->a);
    return ref__sy_expr_eq(m, x->a, y->a) && ref__sy_expr_eq(m, x->b, y->b);
}

static int ref__sy_is_int(const pto_module *m, int32_t e, int64_t v)
{
    return e >= 0 && m->exprs[e].kind == PTO_E_INT && m->exprs[e].value == v;
}

/* e is ((i - start) / step) or (i - start) for a unit step, where i is the
   variable of a loop with that start and step: sets *loop. */
static int ref__sy_iter_of(const pto_module *m, int32_t e, int32_t *loop)
{
    const pto_expr *x = &m->exprs[e];
    int32_t step = -1, L, v;
    if (x->kind == PTO_E_DIV) {
        step = x->b;
        x = &m->exprs[x->a];
    }
    if (x->kind != PTO_E_SUB || m->exprs[x->a].kind != PTO_E_VAR) return 0;
    v = m->exprs[x->a].a;
    if (v < 0 || v >= m->n_vars || m->vars[v].kind != PTO_V_LOOP) return 0;
    L = m->vars[v].def;
    if (L < 0 || m->stmts[L].kind != PTO_ST_FOR) return 0;
    if (!ref__sy_expr_eq(m, x->b, m->stmts[L].e[0])) return 0;
    if (m->stmts[L].e[2] < 0 ? !(step < 0 || ref__sy_is_int(m, step, 1))
                             : !(ref__sy_expr_eq(m, step, m->stmts[L].e[2])
                                 || (step < 0 && ref__sy_is_int(m, m->stmts[L].e[2], 1))))
        return 0;
    *loop = L;
    return 1;
}

/* The event-id forms the analysis understands: INT, or
   INT + ((i - start) / step) % INT (what this pass writes). */
static int ref__sy_idform(const pto_module *m, int32_t e, int64_t *base, int64_t *mod, int32_t *loop)
{
    const pto_expr *x, *md;
    *base = 0;
    *mod = 1;
    *loop = -1;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    if (x->kind == PTO_E_INT) { *base = x->value; return 1; }
    if (x->kind != PTO_E_ADD || m->exprs[x->a].kind != PTO_E_INT) return 0;
    md = &m->exprs[x->b];
    if (md->kind != PTO_E_MOD || m->exprs[md->b].kind != PTO_E_INT) return 0;
    *base = m->exprs[x->a].value;
    *mod = m->exprs[md->b].value;
    if (*mod < 1 || *mod > REF__SY_MAXROT) return 0;
    return ref__sy_iter_of(m, md->a, loop);
}

/* ---- GM windows ------------------------------------------------------------
   A linear form c + sum coef * leaf over loop-invariant leaves (dims, scalars,
   top-level lets, builtins). Anything else is unknown and makes two windows
   "may overlap". Loop variables are never leaves: two instances of one
   access in different iterations see different values. */

typedef struct ref__sy_lin {
    int64_t c;
    int n;
    int32_t leaf[8];            /* var id, or -1 - builtin kind */
    int64_t coef[8];
} ref__sy_lin;

static int ref__sy_lin_add(ref__sy_lin *l, int32_t leaf, int64_t coef)
{
    int i;
    for (i = 0; i < l->n; i++)
        if (l->leaf[i] == leaf) { l->coef[i] += coef; return 1; }
    if (l->n == 8) return 0;
    l->leaf[l->n] = leaf;
    l->coef[l->n++] = coef;
    return 1;
}

static int ref__sy_linear(const pto_module *m, int32_t e, int64_t k, ref__sy_lin *l)
{
    const pto_expr *x;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: l->c += k * x->value; return 1;
    case PTO_E_ADD: return ref__sy_linear(m, x->a, k, l) && ref__sy_linear(m, x->b, k, l);
    case PTO_E_SUB: return ref__sy_linear(m, x->a, k, l) && ref__sy_linear(m, x->b, -k, l);
    case PTO_E_NEG: return ref__sy_linear(m, x->a, -k, l);
    case PTO_E_MUL:
        if (m->exprs[x->a].kind == PTO_E_INT) return ref__sy_linear(m, x->b, k * m->exprs[x->a].value, l);
        if (m->exprs[x->b].kind == PTO_E_INT) return ref__sy_linear(m, x->a, k * m->exprs[x->b].value, l);
        return 0;
    case PTO_E_VAR: {
        const pto_var *v;
        if (x->a < 0 || x->a >= m->n_vars) return 0;
        v = &m->vars[x->a];
        if (v->kind == PTO_V_LOOP) return 0;
        if (v->kind == PTO_V_LET && (v->def < 0 || pto_stmt_loop(m, v->def) >= 0)) return 0;
        return ref__sy_lin_add(l, x->a, k);
    }
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS:
        return ref__sy_lin_add(l, -1 - (int32_t)x->kind, k);
    default:
        return 0;
    }
}

/* a - b as a constant, if it is one. */
static int ref__sy_const_diff(const pto_module *m, int32_t a, int32_t b, int64_t *d)
{
    ref__sy_lin l;
    int i;
    memset(&l, 0, sizeof l);
    if (a < 0 && b < 0) { *d = 0; return 1; }
    if (a < 0 || b < 0) return 0;
    if (!ref__sy_linear(m, a, 1, &l) || !ref__sy_linear(m, b, -1, &l)) return 0;
    for (i = 0; i < l.n; i++)
        if (l.coef[i] != 0) return 0;
    *d = l.c;
    return 1;
}

/* The tile that gives a GM window its shape: the op's first tile operand. */
static const pto_tile *ref__sy_window_tile(const pto_module *m, int32_t stmt)
{
    int i;
    for (i = 0; i < m->stmts[stmt].nargs; i++) {
        const pto_operand *o = pto_stmt_arg(m, stmt, i);
        if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles) return &m->tiles[o->ref];
    }
    return NULL;
}

static int ref__sy_gm_overlap(const pto_module *m, const ref__sy_rec *a, const ref__sy_rec *b)
{
    const pto_operand *oa = &m->operands[a->opnd], *ob = &m->operands[b->opnd];
    const pto_tile *ta = ref__sy_window_tile(m, a->stmt), *tb = ref__sy_window_tile(m, b->stmt);
    int64_t d;
    if (oa->ref != ob->ref) return 0;
    if (!ta || !tb) return 1;
    if (ref__sy_const_diff(m, oa->e[2], ob->e[2], &d) && d != 0) return 0;
    if (ref__sy_const_diff(m, oa->e[0], ob->e[0], &d) && (d >= tb->rows || -d >= ta->rows)) return 0;
    if (ref__sy_const_diff(m, oa->e[1], ob->e[1], &d) && (d >= tb->cols || -d >= ta->cols)) return 0;
    return 1;
}

static int ref__sy_overlap(const ref__sy *sy, const ref__sy_rec *a, const ref__sy_rec *b)
{
    if (a->space != b->space) return 0;
    if (a->space == PTO_GM) return ref__sy_gm_overlap(sy->m, a, b);
    return a->lo < b->hi && b->lo < a->hi;
}

static int ref__sy_conflict(const ref__sy *sy, int32_t ra, int32_t rb)
{
    const ref__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    if (!((a->rw | b->rw) & REF__SY_WR)) return 0;
    return ref__sy_overlap(sy, a, b);
}

/* ---- records ---------------------------------------------------------------- */

static pto_status ref__sy_add_records(ref__sy *sy, int32_t s)
{
    pto_module *m = sy->m;
    const pto_opinfo *oi = pto_opinfo_get((pto_op)m->stmts[s].op);
    uint8_t pipe = (uint8_t)pto_stmt_pipe(m, s);
    int i;
    for (i = 0; i < m->stmts[s].nargs && i < 4; i++) {
        int32_t o = m->stmts[s].arg0 + i, k, n = 1;
        const pto_operand *op = &m->operands[o];
        const pto_tile *t = NULL;
        uint8_t rw = (uint8_t)(((oi->arg[i] & PTO_A_READ) ? REF__SY_RD : 0) | ((oi->arg[i] & PTO_A_WRITE) ? REF__SY_WR : 0));
        if (!rw || (op->kind != PTO_O_TILE && op->kind != PTO_O_GM)) continue;
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
            ref__sy_rec *rc;
            if (r < 0) return PTO_ERR_INTERNAL;
            rc = &sy->recs[r];
            rc->stmt = s;
            rc->opnd = o;
            rc->slot = k;
            rc->pipe = pipe;
            rc->rw = rw;
            rc->space = t ? t->space : (uint8_t)PTO_GM;
            rc->lo = t ? t->offset[k] : 0;
            rc->hi = t ? (t->offset[k] + pto_tile_bytes(t) + REF__SY_GRAN - 1) / REF__SY_GRAN * REF__SY_GRAN : 0;
        }
    }
    return PTO_OK;
}

static pto_status ref__sy_build_records(ref__sy *sy)
{
    pto_module *m = sy->m;
    int32_t s, t;
    sy->rec_of = (int32_t *)ref__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_operands + 1));
    sy->tile_loop = (int32_t *)ref__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_tiles + 1));
    if (!sy->rec_of || !sy->tile_loop) return PTO_ERR_INTERNAL;
    for (s = 0; s < m->n_operands; s++) sy->rec_of[s] = -1;
    for (t = 0; t < m->n_tiles; t++)
        sy->tile_loop[t] = (m->tiles[t].nbuf > 1 && m->tiles[t].decl >= 0) ? pto_stmt_loop(m, m->tiles[t].decl) : -1;
    for (s = 0; s < m->n_stmts; s++) {
        pto_status st;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0 || ref__sy_issync(m->stmts[s].op)) continue;
        if (m->blocks[m->stmts[s].block].kernel != sy->kernel) continue;
        st = ref__sy_add_records(sy, s);
        if (st != PTO_OK) return st;
    }
    return PTO_OK;
}

/* The record an operand touches now (its tile's slot in the current phase). */
static int32_t ref__sy_rec_now(const ref__sy *sy, int32_t o)
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

/* ---- analysis state --------------------------------------------------------- */

static size_t ref__sy_st_bytes(const ref__sy *sy)
{
    return (size_t)sy->n_recs + (size_t)sy->nslots + (size_t)sy->nslots * sy->capw;
}

/* A state buffer; zeroed only when asked (most are copied over at once,
   and an unreached state is never read). */
static int ref__sy_st_init(ref__sy *sy, ref__sy_st *st, int zero)
{
    uint8_t *p = (uint8_t *)pto_alloc(sy->ctx, ref__sy_st_bytes(sy));
    if (!p) {
        pto_error(sy->ctx, ref__sy_noloc(), "out of memory in the sync inserter");
        ref__sy_fail(sy, PTO_ERR_INTERNAL);
    } else if (zero) {
        memset(p, 0, ref__sy_st_bytes(sy));
    }
    st->reached = 0;
    st->rec = p;
    st->flag = p ? p + sy->n_recs : NULL;
    st->cap = p ? st->flag + sy->nslots : NULL;
    return p != NULL;
}

static void ref__sy_st_free(ref__sy *sy, ref__sy_st *st)
{
    pto_free(sy->ctx, st->rec);
    st->rec = st->flag = st->cap = NULL;
}

static void ref__sy_st_copy(const ref__sy *sy, ref__sy_st *dst, const ref__sy_st *src)
{
    dst->reached = src->reached;
    memcpy(dst->rec, src->rec, ref__sy_st_bytes(sy));
}

static void ref__sy_pres(const ref__sy *sy, const ref__sy_st *st, uint8_t *bits)
{
    int32_t r;
    memset(bits, 0, sy->capw);
    for (r = 0; r < sy->n_recs; r++)
        if (st->rec[r] & REF__SY_PRESENT) bits[r >> 3] |= (uint8_t)(1u << (r & 7));
}

/* dst = dst joined with src (paths merging); returns whether dst changed. A
   record absent on one path was not accessed there, so the other path's
   knowledge stands; a captured bit holds when it holds on every path where
   the record exists. */
static int ref__sy_join(ref__sy *sy, ref__sy_st *dst, const ref__sy_st *src)
{
    int changed = 0;
    int32_t r, f;
    size_t i;
    if (!src->reached) return 0;
    if (!dst->reached) { ref__sy_st_copy(sy, dst, src); return 1; }
    ref__sy_pres(sy, dst, sy->presa);
    ref__sy_pres(sy, src, sy->presb);
    for (f = 0; f < sy->nslots; f++) {
        uint8_t nf = dst->flag[f] == src->flag[f] ? dst->flag[f] : 2;
        if (nf != dst->flag[f]) { dst->flag[f] = nf; changed = 1; }
        if (nf != 1) continue;
        for (i = 0; i < sy->capw; i++) {
            uint8_t *cd = &dst->cap[(size_t)f * sy->capw + i];
            uint8_t cs = src->cap[(size_t)f * sy->capw + i];
            uint8_t nc = (uint8_t)((*cd | (uint8_t)~sy->presa[i]) & (cs | (uint8_t)~sy->presb[i])
                                   & (sy->presa[i] | sy->presb[i]));
            if (nc != *cd) { *cd = nc; changed = 1; }
        }
    }
    for (r = 0; r < sy->n_recs; r++) {
        uint8_t s = src->rec[r], d = dst->rec[r], nd;
        if (!(s & REF__SY_PRESENT)) continue;
        nd = (d & REF__SY_PRESENT) ? (uint8_t)(REF__SY_PRESENT | (d & s & REF__SY_ALLBITS)) : s;
        if (nd != d) { dst->rec[r] = nd; changed = 1; }
    }
    return changed;
}

/* ---- messages ------------------------------------------------------------------ */

static const char *ref__sy_base(const char *path)
{
    const char *s = path, *p;
    for (p = path; *p; p++)
        if (*p == '/' || *p == '\\') s = p + 1;
    return s;
}

/* "tload a (vadd.pto:8)": the op, its first operand, where it is. */
static void ref__sy_label(const ref__sy *sy, int32_t s, pto_buf *b)
{
    const pto_module *m = sy->m;
    const pto_operand *o = pto_stmt_arg(m, s, 0);
    pto_buf_puts(b, pto_opinfo_get((pto_op)m->stmts[s].op)->name);
    if (o && o->kind == PTO_O_TILE && o->ref >= 0) pto_buf_printf(b, " %s", pto_str(sy->ctx, m->tiles[o->ref].name));
    if (o && o->kind == PTO_O_GM && o->ref >= 0) pto_buf_printf(b, " %s", pto_str(sy->ctx, m->params[o->ref].name));
    pto_buf_printf(b, " (%s:%d)", ref__sy_base(pto_file_name(sy->ctx, m->stmts[s].loc.file)), (int)m->stmts[s].loc.line);
}

static const char *ref__sy_kind(uint8_t arw, uint8_t brw)
{
    if (arw & REF__SY_WR) return (brw & REF__SY_RD) ? "RAW" : "WAW";
    return "WAR";
}

/* "RAW vec[0x0000,0x2000) tload a (vadd.pto:8) -> tadd c (vadd.pto:10)" */
static int32_t ref__sy_dep_note(ref__sy *sy, int32_t ra, int32_t rb, int carried)
{
    const ref__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    pto_buf buf;
    int32_t id;
    memset(&buf, 0, sizeof buf);
    buf.ctx = sy->ctx;
    pto_buf_printf(&buf, "%s ", ref__sy_kind(a->rw, b->rw));
    if (a->space == PTO_GM)
        pto_buf_printf(&buf, "gm %s ", pto_str(sy->ctx, sy->m->params[sy->m->operands[a->opnd].ref].name));
    else
        pto_buf_printf(&buf, "%s[0x%04llx,0x%04llx) ", pto_space_name((pto_space)a->space),
                       (unsigned long long)(a->lo > b->lo ? a->lo : b->lo),
                       (unsigned long long)(a->hi < b->hi ? a->hi : b->hi));
    ref__sy_label(sy, a->stmt, &buf);
    pto_buf_puts(&buf, carried ? " -> next " : " -> ");
    ref__sy_label(sy, b->stmt, &buf);
    id = buf.oom ? 0 : pto_intern(sy->ctx, buf.data, buf.len);
    pto_buf_free(&buf);
    return id;
}

static int32_t ref__sy_prefixed(ref__sy *sy, const char *prefix, int32_t note)
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

static void ref__sy_misuse(ref__sy *sy, int32_t s, const char *what)
{
    pto_module *m = sy->m;
    const pto_operand *id = pto_stmt_arg(m, s, 2);
    pto_error(sy->ctx, m->stmts[s].loc, "sync: %s (%s %s -> %s, id expression %d)", what,
              pto_opinfo_get((pto_op)m->stmts[s].op)->name,
              pto_pipe_name((pto_pipe)pto_stmt_arg(m, s, 0)->ref), pto_pipe_name((pto_pipe)pto_stmt_arg(m, s, 1)->ref),
              id ? (int)id->e[0] : -1);
    ref__sy_fail(sy, PTO_ERR_INTERNAL);
}

/* Event ids are keyed (src, dst, id) for hardware ids, and by the id alone
   for the virtual ids of insertion rounds; only the keys some statement
   uses get a slot in the state. */
static int64_t ref__sy_key(const ref__sy *sy, int p, int q, int64_t id)
{
    if (p < 0 || p >= PTO_PIPE_ALL || q < 0 || q >= PTO_PIPE_ALL) return -1;
    if (id >= REF__SY_VBASE) return id - REF__SY_VBASE + REF__SY_REAL < sy->nkeys ? id - REF__SY_VBASE + REF__SY_REAL : -1;
    if (id < 0 || id > 7) return -1;
    return (p * 8 + q) * 8 + id;
}

/* The id slot of a set/wait in the current phase, or -1. */
static int32_t ref__sy_slot(ref__sy *sy, int32_t s, int *p, int *q)
{
    const pto_module *m = sy->m;
    const pto_operand *a = pto_stmt_arg(m, s, 0), *b = pto_stmt_arg(m, s, 1), *c = pto_stmt_arg(m, s, 2);
    int64_t base, mod, id;
    int32_t L;
    if (!a || !b || !c || a->kind != PTO_O_PIPE || b->kind != PTO_O_PIPE || c->kind != PTO_O_INT) return -1;
    *p = a->ref;
    *q = b->ref;
    if (*p < 0 || *p >= PTO_PIPE_ALL || *q < 0 || *q >= PTO_PIPE_ALL || *p == *q) return -1;
    if (!ref__sy_idform(m, c->e[0], &base, &mod, &L)) return -1;
    id = base + (L >= 0 ? sy->phase[L] % mod : 0);
    id = ref__sy_key(sy, *p, *q, id);
    return id < 0 ? -1 : sy->slotmap[id];
}

static void ref__sy_syncop(ref__sy *sy, int32_t s, ref__sy_st *st)
{
    const pto_module *m = sy->m;
    int p = 0, q = 0;
    int32_t r, f;
    uint8_t *cap;
    if (m->stmts[s].op == PTO_OP_PIPE_BARRIER) {
        const pto_operand *a = pto_stmt_arg(m, s, 0);
        int P = a ? a->ref : -1;
        for (r = 0; r < sy->n_recs; r++) {
            if (!(st->rec[r] & REF__SY_PRESENT)) continue;
            if (P == PTO_PIPE_ALL) st->rec[r] |= REF__SY_ALLBITS;
            else if (sy->recs[r].pipe == P) st->rec[r] |= (uint8_t)(1u << P);
        }
        return;
    }
    f = ref__sy_slot(sy, s, &p, &q);
    if (f < 0) { ref__sy_misuse(sy, s, "cannot analyse this event id"); return; }
    cap = &st->cap[(size_t)f * sy->capw];
    if (m->stmts[s].op == PTO_OP_SET_FLAG) {
        if (st->flag[f] != 0) { ref__sy_misuse(sy, s, "event id set while it may still be set"); return; }
        st->flag[f] = 1;
        memset(cap, 0, sy->capw);
        for (r = 0; r < sy->n_recs; r++)
            if ((st->rec[r] & REF__SY_PRESENT) && ((st->rec[r] & (1u << p)) || sy->recs[r].pipe == p))
                cap[r >> 3] |= (uint8_t)(1u << (r & 7));
    } else {
        if (st->flag[f] != 1) { ref__sy_misuse(sy, s, "wait on an event id that may not be set"); return; }
        st->flag[f] = 0;
        for (r = 0; r < sy->n_recs; r++)
            if (cap[r >> 3] & (1u << (r & 7))) st->rec[r] |= (uint8_t)(1u << q);
        memset(cap, 0, sy->capw);
    }
}

/* Position of the statement that is the dependency's source, for choosing
   among several: same-iteration ones first, then the latest. */
static int ref__sy_is_forward(const ref__sy *sy, int32_t a, int32_t b)
{
    int32_t pa, pb;
    ref__sy_lca(sy->m, a, b, &pa, &pb);
    return sy->pos[pa] < sy->pos[pb];
}

/* How a dependency reads in a note: RAW before WAR before WAW. */
static int ref__sy_kind_rank(const ref__sy *sy, int32_t ra, int32_t rb)
{
    uint8_t a = sy->recs[ra].rw, b = sy->recs[rb].rw;
    if ((a & REF__SY_WR) && (b & REF__SY_RD)) return 2;
    return (a & REF__SY_WR) ? 0 : 1;
}

static void ref__sy_hazard(ref__sy *sy, int32_t ra, int32_t s, int32_t o, int32_t rb)
{
    int32_t a = sy->recs[ra].stmt;
    int fwd, rank;
    if (sy->mode == REF__SY_CHECK) {
        int32_t note = ref__sy_dep_note(sy, ra, rb, 0);
        pto_error(sy->ctx, sy->m->stmts[s].loc, "sync: internal: unordered dependency after sync: %s",
                  pto_str(sy->ctx, note));
        ref__sy_fail(sy, PTO_ERR_INTERNAL);
        return;
    }
    fwd = ref__sy_is_forward(sy, a, s);
    rank = ref__sy_kind_rank(sy, ra, rb);
    if (sy->found) {
        if (sy->h_fwd != fwd) { if (sy->h_fwd > fwd) return; }
        else if (sy->h_apos != sy->pos[a]) { if (sy->h_apos > sy->pos[a]) return; }
        else if (ref__sy_kind_rank(sy, sy->h_rec, sy->h_brec) >= rank) return;
    }
    sy->found = 1;
    sy->h_fwd = fwd;
    sy->h_apos = sy->pos[a];
    sy->h_rec = ra;
    sy->h_bstmt = s;
    sy->h_bopnd = o;
    sy->h_brec = rb;
}

static void ref__sy_access(ref__sy *sy, int32_t s, ref__sy_st *st)
{
    const pto_module *m = sy->m;
    int q = pto_stmt_pipe(m, s);
    int32_t i, o, r, r2, f;
    for (i = 0; i < m->stmts[s].nargs; i++) {
        o = m->stmts[s].arg0 + i;
        if ((r = ref__sy_rec_now(sy, o)) < 0) continue;
        for (r2 = 0; r2 < sy->n_recs; r2++) {
            if (!(st->rec[r2] & REF__SY_PRESENT) || !ref__sy_conflict(sy, r2, r)) continue;
            if ((st->rec[r2] & (1u << q)) || (sy->recs[r2].pipe == q && ref__sy_inorder(q))) continue;
            ref__sy_hazard(sy, r2, s, o, r);
            if (sy->stop) return;
        }
    }
    if (sy->found) { sy->stop = 1; return; }
    for (i = 0; i < m->stmts[s].nargs; i++) {
        o = m->stmts[s].arg0 + i;
        if ((r = ref__sy_rec_now(sy, o)) < 0) continue;
        st->rec[r] = REF__SY_PRESENT;
        /* a new instance: sets still pending captured the old one only */
        for (f = 0; f < sy->nslots; f++)
            if (st->flag[f]) st->cap[(size_t)f * sy->capw + (r >> 3)] &= (uint8_t)~(1u << (r & 7));
    }
}

static void ref__sy_block(ref__sy *sy, int32_t b, ref__sy_st *st);

static void ref__sy_loop(ref__sy *sy, int32_t L, ref__sy_st *st)
{
    int32_t P = sy->period[L], ph;
    ref__sy_st *heads, work;
    int changed = 1;
    heads = (ref__sy_st *)ref__sy_zalloc(sy, sizeof(ref__sy_st) * (size_t)P);
    if (!heads) return;
    for (ph = 0; ph < P; ph++)
        if (!ref__sy_st_init(sy, &heads[ph], 0)) break;
    if (ph == P && ref__sy_st_init(sy, &work, 0)) {
        ref__sy_st_copy(sy, &heads[0], st);
        while (changed && !sy->stop) {
            changed = 0;
            for (ph = 0; ph < P && !sy->stop; ph++) {
                if (!heads[ph].reached) continue;
                sy->phase[L] = ph;
                ref__sy_st_copy(sy, &work, &heads[ph]);
                ref__sy_block(sy, sy->m->stmts[L].body, &work);
                if (!sy->stop) changed |= ref__sy_join(sy, &heads[(ph + 1) % P], &work);
            }
        }
        /* the loop may exit at the head of any iteration */
        for (ph = 0; ph < P; ph++) ref__sy_join(sy, st, &heads[ph]);
        ref__sy_st_free(sy, &work);
    }
    for (ph = 0; ph < P; ph++) ref__sy_st_free(sy, &heads[ph]);
    pto_free(sy->ctx, heads);
    sy->phase[L] = 0;
}

static void ref__sy_if(ref__sy *sy, int32_t s, ref__sy_st *st)
{
    ref__sy_st other;
    if (!ref__sy_st_init(sy, &other, 0)) return;
    ref__sy_st_copy(sy, &other, st);
    ref__sy_block(sy, sy->m->stmts[s].body, st);
    if (!sy->stop && sy->m->stmts[s].orelse >= 0) ref__sy_block(sy, sy->m->stmts[s].orelse, &other);
    if (!sy->stop) ref__sy_join(sy, st, &other);
    ref__sy_st_free(sy, &other);
}

static void ref__sy_block(ref__sy *sy, int32_t b, ref__sy_st *st)
{
    const pto_module *m = sy->m;
    int32_t s;
    for (s = m->blocks[b].head; s >= 0 && !sy->stop; s = m->stmts[s].next) {
        switch (m->stmts[s].kind) {
        case PTO_ST_OP:
            if (sy->off && sy->off[s]) break;   /* a group on trial removal */
            if (ref__sy_issync(m->stmts[s].op)) ref__sy_syncop(sy, s, st);
            else ref__sy_access(sy, s, st);
            break;
        case PTO_ST_FOR: ref__sy_loop(sy, s, st); break;
        case PTO_ST_IF: ref__sy_if(sy, s, st); break;
        default: break;   /* tiles, lets; a SECTION is its own core program */
        }
    }
}

/* ---- analysis driver ------------------------------------------------------------ */

static void ref__sy_number(ref__sy *sy, int32_t b, int32_t *n)
{
    const pto_module *m = sy->m;
    int32_t s;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        sy->pos[s] = (*n)++;
        if (m->stmts[s].body >= 0) ref__sy_number(sy, m->stmts[s].body, n);
        if (m->stmts[s].orelse >= 0) ref__sy_number(sy, m->stmts[s].orelse, n);
    }
}

/* Per-statement tables: preorder positions, loop periods (lcm of the
   rotations of the loop's tiles and of the event ids rotating with it). */
static int ref__sy_tables(ref__sy *sy)
{
    pto_module *m = sy->m;
    size_t n = (size_t)m->n_stmts + 1;
    int32_t s, t, zero = 0;
    pto_free(sy->ctx, sy->pos);
    pto_free(sy->ctx, sy->period);
    pto_free(sy->ctx, sy->phase);
    sy->pos = (int32_t *)ref__sy_zalloc(sy, n * sizeof(int32_t));
    sy->period = (int32_t *)ref__sy_zalloc(sy, n * sizeof(int32_t));
    sy->phase = (int32_t *)ref__sy_zalloc(sy, n * sizeof(int32_t));
    if (!sy->pos || !sy->period || !sy->phase) return 0;
    ref__sy_number(sy, m->kernels[sy->kernel].body, &zero);
    for (s = 0; s < m->n_stmts; s++) sy->period[s] = 1;
    for (t = 0; t < m->n_tiles; t++)
        if (sy->tile_loop[t] >= 0)
            sy->period[sy->tile_loop[t]] = (int32_t)ref__sy_lcm(sy->period[sy->tile_loop[t]], m->tiles[t].nbuf);
    for (s = 0; s < m->n_stmts; s++) {
        const pto_operand *c;
        int64_t base, mod;
        int32_t L;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0) continue;
        if (m->stmts[s].op != PTO_OP_SET_FLAG && m->stmts[s].op != PTO_OP_WAIT_FLAG) continue;
        c = pto_stmt_arg(m, s, 2);
        if (c && c->kind == PTO_O_INT && ref__sy_idform(m, c->e[0], &base, &mod, &L) && L >= 0)
            sy->period[L] = (int32_t)ref__sy_lcm(sy->period[L], mod);
    }
    return 1;
}

static void ref__sy_program(ref__sy *sy, int32_t b)
{
    ref__sy_st st;
    int32_t f;
    if (!ref__sy_st_init(sy, &st, 1)) return;
    st.reached = 1;
    ref__sy_block(sy, b, &st);
    for (f = 0; f < sy->nslots && !sy->stop; f++)
        if (st.flag[f]) {
            int32_t key = sy->slotkey[f];
            if (key < REF__SY_REAL)
                pto_error(sy->ctx, sy->m->kernels[sy->kernel].loc, "sync: event id %s -> %s %d may be left set at kernel end",
                          pto_pipe_name((pto_pipe)(key / 64)), pto_pipe_name((pto_pipe)(key / 8 % 8)), (int)(key % 8));
            else
                pto_error(sy->ctx, sy->m->kernels[sy->kernel].loc, "sync: internal: flag group %d left set at kernel end",
                          (int)((key - REF__SY_REAL) / REF__SY_MAXROT));
            ref__sy_fail(sy, PTO_ERR_INTERNAL);
        }
    ref__sy_st_free(sy, &st);
}

/* Gives a slot to every event-id key that a set or wait of the kernel uses. */
static int ref__sy_slots(ref__sy *sy)
{
    const pto_module *m = sy->m;
    int32_t s, L;
    int64_t base, mod, i, key;
    pto_free(sy->ctx, sy->slotmap);
    pto_free(sy->ctx, sy->slotkey);
    sy->slotmap = (int32_t *)ref__sy_zalloc(sy, sizeof(int32_t) * (size_t)sy->nkeys);
    sy->slotkey = (int32_t *)ref__sy_zalloc(sy, sizeof(int32_t) * (size_t)sy->nkeys);
    if (!sy->slotmap || !sy->slotkey) return 0;
    for (i = 0; i < sy->nkeys; i++) sy->slotmap[i] = -1;
    sy->nslots = 0;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_operand *a, *b, *c;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0) continue;
        if (m->stmts[s].op != PTO_OP_SET_FLAG && m->stmts[s].op != PTO_OP_WAIT_FLAG) continue;
        if (m->blocks[m->stmts[s].block].kernel != sy->kernel) continue;
        a = pto_stmt_arg(m, s, 0);
        b = pto_stmt_arg(m, s, 1);
        c = pto_stmt_arg(m, s, 2);
        if (!a || !b || !c || c->kind != PTO_O_INT || !ref__sy_idform(m, c->e[0], &base, &mod, &L)) continue;
        for (i = base; i < base + mod; i++) {
            key = ref__sy_key(sy, a->ref, b->ref, i);
            if (key < 0 || sy->slotmap[key] >= 0) continue;
            sy->slotkey[sy->nslots] = (int32_t)key;
            sy->slotmap[key] = sy->nslots++;
        }
    }
    return 1;
}

/* Runs the analysis over every core program of the kernel. FIND stops at
   the first uncovered dependency; CHECK reports it as an internal error. */
static void ref__sy_analyse(ref__sy *sy, int mode)
{
    pto_module *m = sy->m;
    int32_t body = m->kernels[sy->kernel].body, s;
    sy->mode = mode;
    sy->found = 0;
    sy->stats.rounds++;
    sy->nkeys = REF__SY_REAL + (mode == REF__SY_FIND ? REF__SY_MAXROT * sy->n_grps : 0);
    sy->capw = ((size_t)sy->n_recs + 7) / 8 + 1;
    pto_free(sy->ctx, sy->presa);
    pto_free(sy->ctx, sy->presb);
    sy->presa = (uint8_t *)ref__sy_zalloc(sy, sy->capw);
    sy->presb = (uint8_t *)ref__sy_zalloc(sy, sy->capw);
    if (!sy->presa || !sy->presb || !ref__sy_tables(sy) || !ref__sy_slots(sy)) return;
    ref__sy_program(sy, body);
    for (s = m->blocks[body].head; s >= 0 && !sy->stop; s = m->stmts[s].next)
        if (m->stmts[s].kind == PTO_ST_SECTION) ref__sy_program(sy, m->stmts[s].body);
}

/* ---- insertion ------------------------------------------------------------------- */

static int32_t ref__sy_idexpr(ref__sy *sy, int32_t L, int64_t base, int32_t nids, int32_t *ebase, int32_t *emod)
{
    pto_module *m = sy->m;
    pto_loc loc = L >= 0 ? m->stmts[L].loc : ref__sy_noloc();
    int32_t v, e, step;
    *ebase = pto_expr_int(m, base, loc);
    *emod = -1;
    if (L < 0 || nids <= 1 || *ebase < 0) return *ebase;
    v = pto_expr_var(m, m->stmts[L].ref, loc);
    e = pto_expr_bin(m, PTO_E_SUB, v, m->stmts[L].e[0], loc);
    step = m->stmts[L].e[2];
    if (step >= 0 && !ref__sy_is_int(m, step, 1)) e = pto_expr_bin(m, PTO_E_DIV, e, step, loc);
    *emod = pto_expr_int(m, nids, loc);
    e = pto_expr_bin(m, PTO_E_MOD, e, *emod, loc);
    return pto_expr_bin(m, PTO_E_ADD, *ebase, e, loc);
}

/* A new sync statement placed before (after = 0) or after `at`. */
static int32_t ref__sy_emit(ref__sy *sy, int32_t g, uint8_t role, int32_t at, int after, int32_t k)
{
    pto_module *m = sy->m;
    ref__sy_grp *gr = &sy->grps[g];
    int barrier = role == REF__SY_BARRIER;
    int rot = (role == REF__SY_WAIT || role == REF__SY_SET) && gr->kind == REF__SY_LOOP;
    int32_t ebase = -1, emod = -1, expr = -1, s, en;
    pto_op op = barrier ? PTO_OP_PIPE_BARRIER : (role == REF__SY_SET || role == REF__SY_PRIME) ? PTO_OP_SET_FLAG : PTO_OP_WAIT_FLAG;
    static const char *const prefix[] = {"prime: ", NULL, NULL, "drain: ", NULL};
    if (!barrier) {
        int64_t vb = (int64_t)REF__SY_VBASE + (int64_t)REF__SY_MAXROT * g + (k > 0 ? k : 0);
        expr = ref__sy_idexpr(sy, rot ? gr->loop : -1, vb, rot ? gr->nids : 1, &ebase, &emod);
        if (expr < 0) return -1;
    }
    s = pto_new_stmt(m, PTO_ST_OP, m->stmts[at].loc);
    if (s < 0) return -1;
    m->stmts[s].op = (uint16_t)op;
    m->stmts[s].origin = PTO_BY_SYNC;
    m->stmts[s].core = m->stmts[at].core;
    m->stmts[s].note = ref__sy_prefixed(sy, prefix[role], gr->note);
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
static int32_t ref__sy_rotation(ref__sy *sy, int32_t L, int32_t ra, int32_t rb)
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
    per = ref__sy_lcm(rota ? na : 1, rotb ? nb : 1);
    for (d = 1; d < nmax; d++)
        for (ph = 0; ph < per; ph++)
            for (i = 0; i < na; i++)
                for (j = 0; j < nb; j++) {
                    if (rota && i != ph % na) continue;
                    if (rotb && j != (ph + d) % nb) continue;
                    if (ref__sy_conflict(sy, r0a + i, r0b + j)) return d;
                }
    return nmax;
}

static int32_t ref__sy_new_group(ref__sy *sy, uint8_t kind, int src, int dst, int32_t L, int32_t nids, int carried)
{
    int32_t g = PTO__PUSH(sy, grps);
    ref__sy_grp *gr;
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
    gr->note = ref__sy_dep_note(sy, sy->h_rec, sy->h_brec, carried);
    return g;
}

/* Orders the dependency the last FIND analysis reported. */
static pto_status ref__sy_place(ref__sy *sy)
{
    pto_module *m = sy->m;
    int32_t a = sy->recs[sy->h_rec].stmt, b = sy->h_bstmt, pa, pb, L = -1, as, bs, g, k, M = 1;
    int p = sy->recs[sy->h_rec].pipe, q = pto_stmt_pipe(m, b), ok = 1;
    ref__sy_lca(m, a, b, &pa, &pb);
    if (!sy->h_fwd) {
        L = pto_stmt_loop(m, pa);
        if (L < 0) {
            pto_error(sy->ctx, m->stmts[b].loc, "sync: internal: a backward dependency outside any loop");
            return PTO_ERR_INTERNAL;
        }
        pa = ref__sy_in_block(m, a, m->stmts[L].body);
        pb = ref__sy_in_block(m, b, m->stmts[L].body);
    }
    if (p == q) {
        g = ref__sy_new_group(sy, REF__SY_BAR, p, q, -1, 0, !sy->h_fwd);
        if (g < 0 || ref__sy_emit(sy, g, REF__SY_BARRIER, pb, 0, -1) < 0) return PTO_ERR_INTERNAL;
        sy->stats.barriers++;
        return PTO_OK;
    }
    if (!sy->h_fwd) M = ref__sy_rotation(sy, L, sy->h_rec, sy->h_brec);
    g = ref__sy_new_group(sy, sy->h_fwd ? REF__SY_FWD : REF__SY_LOOP, p, q, L, M, !sy->h_fwd);
    if (g < 0) return PTO_ERR_INTERNAL;
    as = ref__sy_emit(sy, g, REF__SY_SET, pa, 1, -1);
    bs = ref__sy_emit(sy, g, REF__SY_WAIT, pb, 0, -1);
    ok = as >= 0 && bs >= 0;
    for (k = 0; ok && L >= 0 && k < M; k++)
        ok = ref__sy_emit(sy, g, REF__SY_PRIME, L, 0, k) >= 0 && ref__sy_emit(sy, g, REF__SY_DRAIN, L, 1, M - 1 - k) >= 0;
    return ok ? PTO_OK : PTO_ERR_INTERNAL;
}

/* ---- event ids ------------------------------------------------------------------- */

static int32_t ref__sy_limit(const ref__sy *sy, int src, int dst)
{
    int32_t lim = sy->ids_per_pair;
    /* hardware.md s4: M -> FIX deadlocked with ids 3..7 on one device */
    if (src == PTO_PIPE_M && dst == PTO_PIPE_FIX && lim > 3) lim = 3;
    return lim;
}

static void ref__sy_unlink_ent(ref__sy *sy, int32_t e)
{
    if (sy->ents[e].stmt < 0) return;
    pto_unlink(sy->m, sy->ents[e].stmt);
    sy->ents[e].stmt = -1;
}

static const char *ref__sy_opname(const ref__sy *sy, int32_t o)
{
    const pto_operand *op = &sy->m->operands[o];
    if (op->kind == PTO_O_TILE) return pto_str(sy->ctx, sy->m->tiles[op->ref].name);
    if (op->kind == PTO_O_GM) return pto_str(sy->ctx, sy->m->params[op->ref].name);
    return "?";
}

/* "tile t8" or "tiles a and b" (tiles that share bytes after reuse). */
static void ref__sy_tiles(const ref__sy *sy, const ref__sy_grp *gr, char *buf, size_t n)
{
    const char *a = ref__sy_opname(sy, sy->recs[gr->arec].opnd), *b = ref__sy_opname(sy, gr->bopnd);
    const char *what = sy->m->operands[gr->bopnd].kind == PTO_O_GM ? "tensor" : "tile";
    if (strcmp(a, b) == 0) snprintf(buf, n, "%s %s", what, a);
    else snprintf(buf, n, "%ss %s and %s", what, a, b);
}

static void ref__sy_degrade(ref__sy *sy, int32_t g, int32_t M)
{
    ref__sy_grp *gr = &sy->grps[g];
    int32_t e;
    char tiles[160];
    ref__sy_tiles(sy, gr, tiles, sizeof tiles);
    pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                "sync: out of event ids for %s -> %s: %d ids rotate instead of %d for %s: %s",
                pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), (int)M, (int)gr->nids, tiles,
                pto_str(sy->ctx, gr->note));
    for (e = 0; e < sy->n_ents; e++) {
        if (sy->ents[e].grp != g || sy->ents[e].stmt < 0) continue;
        if (sy->ents[e].emod >= 0) sy->m->exprs[sy->ents[e].emod].value = M;
        if (sy->ents[e].k >= M) ref__sy_unlink_ent(sy, e);
    }
    gr->nids = M;
    sy->stats.degraded++;
}

/* No ids left at all: a PIPE_ALL barrier where the wait was (and after the
   loop for a carried dependency) orders everything the pair ordered. */
static pto_status ref__sy_fallback(ref__sy *sy, int32_t g)
{
    ref__sy_grp *gr = &sy->grps[g];
    int32_t e, n = sy->n_ents;
    char tiles[160];
    ref__sy_tiles(sy, gr, tiles, sizeof tiles);
    pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                "sync: out of event ids for %s -> %s: PIPE_ALL barrier instead of a flag pair for %s: %s",
                pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), tiles, pto_str(sy->ctx, gr->note));
    gr->note = ref__sy_prefixed(sy, "PIPE_ALL (out of event ids): ", gr->note);
    gr->dst = PTO_PIPE_ALL;
    for (e = 0; e < n; e++) {
        int32_t s = sy->ents[e].stmt;
        if (sy->ents[e].grp != g || s < 0) continue;
        if (sy->ents[e].role == REF__SY_WAIT && ref__sy_emit(sy, g, REF__SY_BARRIER, s, 0, -1) < 0) return PTO_ERR_INTERNAL;
        if (sy->ents[e].role == REF__SY_DRAIN && sy->ents[e].k == 0
            && ref__sy_emit(sy, g, REF__SY_BARRIER, gr->loop, 1, -1) < 0)
            return PTO_ERR_INTERNAL;
    }
    for (e = 0; e < n; e++)   /* the pair's own statements, not the new barriers */
        if (sy->ents[e].grp == g) ref__sy_unlink_ent(sy, e);
    sy->stats.fallbacks++;
    return PTO_OK;
}

/* Ids already used by sync statements this run did not make are reserved
   for the whole kernel. */
static void ref__sy_reserved(ref__sy *sy, uint8_t used[8][8])
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
        if (!ref__sy_idform(m, c->e[0], &base, &mod, &L)) continue;
        for (i = base; i < base + mod; i++)
            if (i >= 0 && i < 8) used[a->ref][b->ref] |= (uint8_t)(1u << i);
    }
}

static int32_t ref__sy_first_free(const int32_t *busy, uint8_t used, int32_t lo, int32_t M, int32_t lim)
{
    int32_t b, i;
    for (b = 0; b + M <= lim; b++) {
        for (i = b; i < b + M; i++)
            if ((used & (1u << i)) || busy[i] >= lo) break;
        if (i == b + M) return b;
    }
    return -1;
}

/* Colours the lifetimes of the flag groups of one kernel with hardware ids,
   pair by pair, greedily in program order (optimal for intervals). */
static pto_status ref__sy_assign(ref__sy *sy)
{
    pto_module *m = sy->m;
    int32_t *lo, *hi, *order, g, e, i, j, n = 0;
    uint8_t used[8][8];
    int32_t busy[8][8][8];
    pto_status st = PTO_OK;
    if (!ref__sy_tables(sy)) return PTO_ERR_INTERNAL;
    pto_free(sy->ctx, sy->ours);
    sy->ours = (int32_t *)ref__sy_zalloc(sy, sizeof(int32_t) * ((size_t)m->n_stmts + 1));
    lo = (int32_t *)ref__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_grps + 1));
    hi = (int32_t *)ref__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_grps + 1));
    order = (int32_t *)ref__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_grps + 1));
    if (!sy->ours || !lo || !hi || !order) st = PTO_ERR_INTERNAL;
    for (g = 0; st == PTO_OK && g < sy->n_grps; g++) {
        lo[g] = 0x7fffffff;
        hi[g] = -1;
        if (sy->grps[g].kind == REF__SY_BAR || sy->grps[g].kind == REF__SY_DEAD) continue;
        for (e = 0; e < sy->n_ents; e++) {
            if (sy->ents[e].grp != g || sy->ents[e].stmt < 0) continue;
            if (sy->pos[sy->ents[e].stmt] < lo[g]) lo[g] = sy->pos[sy->ents[e].stmt];
            if (sy->pos[sy->ents[e].stmt] > hi[g]) hi[g] = sy->pos[sy->ents[e].stmt];
        }
        for (i = n++; i > 0 && (lo[order[i - 1]] > lo[g]); i--) order[i] = order[i - 1];
        order[i] = g;
    }
    if (st == PTO_OK) ref__sy_reserved(sy, used);
    for (i = 0; i < 8; i++)
        for (j = 0; j < 64; j++) busy[i][j / 8][j % 8] = -1;
    for (i = 0; st == PTO_OK && i < n; i++) {
        ref__sy_grp *gr = &sy->grps[order[i]];
        int32_t lim = ref__sy_limit(sy, gr->src, gr->dst), M = gr->nids, base;
        int32_t *bz = busy[gr->src][gr->dst];
        base = ref__sy_first_free(bz, used[gr->src][gr->dst], lo[order[i]], M, lim);
        while (base < 0 && M > 1) {
            M = M > 2 ? 2 : 1;
            base = ref__sy_first_free(bz, used[gr->src][gr->dst], lo[order[i]], M, lim);
        }
        if (base < 0) { st = ref__sy_fallback(sy, order[i]); continue; }
        if (M < gr->nids) ref__sy_degrade(sy, order[i], M);
        gr->base = base;
        for (j = base; j < base + M; j++) bz[j] = hi[order[i]];
    }
    for (e = 0; st == PTO_OK && e < sy->n_ents; e++) {
        ref__sy_ent *en = &sy->ents[e];
        if (en->stmt >= 0 && en->ebase >= 0 && sy->grps[en->grp].base >= 0)
            m->exprs[en->ebase].value = sy->grps[en->grp].base + (en->k > 0 ? en->k : 0);
    }
    pto_free(sy->ctx, lo);
    pto_free(sy->ctx, hi);
    pto_free(sy->ctx, order);
    return st;
}

/* ---- driver ----------------------------------------------------------------------- */

static int ref__sy_seen(ref__sy *sy)
{
    int32_t i, n;
    for (i = 0; i + 1 < sy->n_seen; i += 2)
        if (sy->seen[i] == sy->h_rec && sy->seen[i + 1] == sy->h_bopnd) return 1;
    n = PTO__PUSH(sy, seen);
    if (n >= 0) sy->seen[n] = sy->h_rec;
    n = PTO__PUSH(sy, seen);
    if (n >= 0) sy->seen[n] = sy->h_bopnd;
    return 0;
}

/* A group placed early can be implied by groups placed after it (a barrier
   for a carried dependency also orders the first iteration). Each group in
   turn is switched off; if the analysis then finds nothing unordered, it
   goes. What remains is each needed given the others. */
static pto_status ref__sy_sweep(ref__sy *sy)
{
    int32_t g, e;
    sy->off = (uint8_t *)ref__sy_zalloc(sy, (size_t)sy->m->n_stmts + 1);
    if (!sy->off) return PTO_ERR_INTERNAL;
    for (g = 0; g < sy->n_grps && sy->status == PTO_OK; g++) {
        for (e = 0; e < sy->n_ents; e++)
            if (sy->ents[e].grp == g && sy->ents[e].stmt >= 0) sy->off[sy->ents[e].stmt] = 1;
        ref__sy_analyse(sy, REF__SY_FIND);
        sy->stop = 0;
        for (e = 0; e < sy->n_ents; e++) {
            if (sy->ents[e].grp != g || sy->ents[e].stmt < 0) continue;
            sy->off[sy->ents[e].stmt] = 0;
            if (!sy->found) ref__sy_unlink_ent(sy, e);
        }
        if (sy->found) continue;
        if (sy->grps[g].kind == REF__SY_BAR) sy->stats.barriers--;
        else {
            sy->stats.flag_pairs--;
            if (sy->grps[g].nids > 1) sy->stats.rotating--;
        }
        sy->grps[g].kind = REF__SY_DEAD;
    }
    pto_free(sy->ctx, sy->off);
    sy->off = NULL;
    return sy->status;
}

static pto_status ref__sy_kernel(ref__sy *sy)
{
    pto_status st = ref__sy_build_records(sy);
    if (st != PTO_OK) return st;
    for (;;) {
        ref__sy_analyse(sy, REF__SY_FIND);
        if (sy->status != PTO_OK) return sy->status;
        if (!sy->found) break;
        sy->stop = 0;
        if (ref__sy_seen(sy)) {
            pto_error(sy->ctx, sy->m->stmts[sy->h_bstmt].loc, "sync: internal: could not order %s",
                      pto_str(sy->ctx, ref__sy_dep_note(sy, sy->h_rec, sy->h_brec, !sy->h_fwd)));
            return PTO_ERR_INTERNAL;
        }
        if ((st = ref__sy_place(sy)) != PTO_OK) return st;
        if (sy->grps[sy->n_grps - 1].kind != REF__SY_BAR) {
            sy->stats.flag_pairs++;
            if (sy->grps[sy->n_grps - 1].nids > 1) sy->stats.rotating++;
        }
    }
    if ((st = ref__sy_sweep(sy)) != PTO_OK) return st;
    if ((st = ref__sy_assign(sy)) != PTO_OK) return st;
    ref__sy_analyse(sy, REF__SY_CHECK);
    return sy->status;
}

static void ref__sy_reset(ref__sy *sy)
{
    pto_ctx *ctx = sy->ctx;
    pto_free(ctx, sy->recs);
    pto_free(ctx, sy->rec_of);
    pto_free(ctx, sy->tile_loop);
    pto_free(ctx, sy->period);
    pto_free(ctx, sy->phase);
    pto_free(ctx, sy->pos);
    pto_free(ctx, sy->ours);
    pto_free(ctx, sy->grps);
    pto_free(ctx, sy->ents);
    pto_free(ctx, sy->seen);
    pto_free(ctx, sy->presa);
    pto_free(ctx, sy->presb);
    pto_free(ctx, sy->slotmap);
    pto_free(ctx, sy->slotkey);
    sy->slotmap = sy->slotkey = NULL;
    sy->recs = NULL;
    sy->rec_of = sy->tile_loop = sy->period = sy->phase = sy->pos = sy->ours = sy->seen = NULL;
    sy->grps = NULL;
    sy->ents = NULL;
    sy->presa = sy->presb = NULL;
    sy->n_recs = sy->cap_recs = sy->n_grps = sy->cap_grps = 0;
    sy->n_ents = sy->cap_ents = sy->n_seen = sy->cap_seen = 0;
}

static pto_status ref_sync(pto_ctx *ctx, pto_module *m, const pto_sync_desc *desc)
{
    ref__sy sy;
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
        st = ref__sy_kernel(&sy);
        ref__sy_reset(&sy);
    }
    if (desc && desc->stats) *desc->stats = sy.stats;
    return st;
}


#endif
