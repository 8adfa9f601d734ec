/* plancheck.c - the plan checker: an independent second opinion on plan.c.

   Needs: a module that went through pto_plan (or that someone placed by
   hand: pins, tests with planted bugs).
   Guarantees: PTO_OK only when every local tile (space != GM) is planned,
   every slot is 32-byte aligned and lies inside its space below the room of
   the kernel's cube/vector pipe consumer buffers, the slots of an xN tile
   are in slot order at one fixed stride without overlapping each other, and
   no two tiles of one memory (kernel, core, space) that can be live at the
   same time share a byte. Every violation is reported, naming the tiles and
   the byte range.

   It shares no code with the planner on purpose: a bug in one is unlikely to
   be repeated in the other. It numbers statements with an explicit stack
   (plan.c walks sibling links), finds subtree ends by a reverse sweep, and
   finds a use's loops by climbing block owners. The lifetime rules are the
   documented ones (plan.c): [first use, last use]; a use inside a loop that
   does not contain the declaration covers that loop; an xN tile covers the
   whole loop that declares it; an unused tile lives at its declaration.
   It checks footprints with the real slot bytes (rows x cols x element
   size), not the planner's rounded strides. */

typedef struct pto__pc {
    const pto_module *m;
    int32_t npts;
    int32_t *num;       /* [n_stmts] pre-order number, -1 when unreachable */
    int32_t *last;      /* [n_stmts] largest number in the subtree */
    int32_t *stmt_of;   /* [npts] */
    int32_t *from, *to; /* [n_tiles] live range */
} pto__pc;

static int32_t pto__pc_parent(const pto_module *m, int32_t s)
{
    int32_t b = m->stmts[s].block;
    return b >= 0 ? m->blocks[b].owner : -1;
}

static void pto__pc_walk(pto__pc *c, int32_t *stack)
{
    const pto_module *m = c->m;
    int32_t k, p, sp;
    for (k = 0; k < m->n_kernels; k++) {
        sp = 0;
        if (m->kernels[k].body >= 0 && m->blocks[m->kernels[k].body].head >= 0)
            stack[sp++] = m->blocks[m->kernels[k].body].head;
        while (sp > 0) {
            int32_t s = stack[--sp];
            const pto_stmt *st = &m->stmts[s];
            if (c->num[s] >= 0) continue;
            c->num[s] = c->npts;
            c->stmt_of[c->npts++] = s;
            /* pushed in reverse: body first, then else, then the sibling */
            if (st->next >= 0 && sp < m->n_stmts) stack[sp++] = st->next;
            if (st->orelse >= 0 && m->blocks[st->orelse].head >= 0 && sp < m->n_stmts)
                stack[sp++] = m->blocks[st->orelse].head;
            if (st->body >= 0 && m->blocks[st->body].head >= 0 && sp < m->n_stmts)
                stack[sp++] = m->blocks[st->body].head;
        }
    }
    for (p = c->npts - 1; p >= 0; p--) {
        int32_t s = c->stmt_of[p], up = pto__pc_parent(m, s);
        if (c->last[s] < p) c->last[s] = p;
        if (up >= 0 && c->num[up] >= 0 && c->last[up] < c->last[s]) c->last[up] = c->last[s];
    }
}

static int pto__pc_encloses(const pto_module *m, int32_t anc, int32_t s)
{
    for (s = s >= 0 ? pto__pc_parent(m, s) : -1; s >= 0; s = pto__pc_parent(m, s))
        if (s == anc) return 1;
    return 0;
}

static void pto__pc_cover(pto__pc *c, int32_t t, int32_t lo, int32_t hi)
{
    if (c->from[t] < 0 || lo < c->from[t]) c->from[t] = lo;
    if (hi > c->to[t]) c->to[t] = hi;
}

static void pto__pc_use(pto__pc *c, int32_t t, int32_t u)
{
    const pto_module *m = c->m;
    int32_t a, outer = -1;
    for (a = pto__pc_parent(m, u); a >= 0; a = pto__pc_parent(m, a))
        if (m->stmts[a].kind == PTO_ST_FOR && !pto__pc_encloses(m, a, m->tiles[t].decl)) outer = a;
    pto__pc_cover(c, t, c->num[u], c->num[u]);
    if (outer >= 0) pto__pc_cover(c, t, c->num[outer], c->last[outer]);
}

static void pto__pc_ranges(pto__pc *c)
{
    const pto_module *m = c->m;
    int32_t p, t;
    for (p = 0; p < c->npts; p++) {
        const pto_stmt *st = &m->stmts[c->stmt_of[p]];
        int32_t i;
        if (st->kind != PTO_ST_OP) continue;
        for (i = st->arg0; i < st->arg0 + st->nargs; i++)
            if (m->operands[i].kind == PTO_O_TILE && m->operands[i].ref >= 0 && m->operands[i].ref < m->n_tiles)
                pto__pc_use(c, m->operands[i].ref, c->stmt_of[p]);
    }
    for (t = 0; t < m->n_tiles; t++) {
        int32_t d = m->tiles[t].decl, a;
        if (d < 0 || d >= m->n_stmts || c->num[d] < 0) continue;
        if (c->from[t] < 0) pto__pc_cover(c, t, c->num[d], c->num[d]);
        if (m->tiles[t].nbuf < 2) continue;
        for (a = pto__pc_parent(m, d); a >= 0 && m->stmts[a].kind != PTO_ST_FOR; a = pto__pc_parent(m, a)) {}
        if (a >= 0) pto__pc_cover(c, t, c->num[a], c->last[a]);
    }
}

/* Bytes at the top of (kernel, space) held by cube/vector pipe consumer
   buffers: C2V pipes land in vec, V2C in mat, each 32-byte rounded. A slot
   holds what the core pops: half the cube tile on an AIV of a split pipe. */
static int64_t pto__pc_pipe_room(const pto_module *m, int32_t k, int space)
{
    int64_t r = 0;
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *p = &m->cvpipes[i];
        int here = (space == PTO_VEC && (p->dir & 1)) || (space == PTO_MAT && (p->dir & 2));
        int64_t slot = space == PTO_VEC && p->split != PTO_SPLIT_NONE ? p->slot_size / 2 : p->slot_size;
        if (p->kernel == k && here) r += ((int64_t)p->local_slot_num * slot + 31) / 32 * 32;
    }
    return r;
}

static int64_t pto__pc_bytes(const pto_tile *t)
{
    return (int64_t)t->rows * t->cols * pto_dtype_size((pto_dtype)t->dtype);
}

static void pto__pc_lines(const pto__pc *c, int32_t t, int *a, int *b)
{
    int32_t p;
    *a = *b = 0;
    for (p = c->from[t]; p >= 0 && p <= c->to[t]; p++) {
        int line = (int)c->m->stmts[c->stmt_of[p]].loc.line;
        if (!*a || line < *a) *a = line;
        if (line > *b) *b = line;
    }
}

/* The pipe whose tpop fills tile t, or -1. */
static int32_t pto__pc_popped_from(const pto_module *m, int32_t t)
{
    int32_t s;
    if (m->n_cvpipes == 0) return -1;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *x = &m->stmts[s];
        if (x->kind == PTO_ST_OP && x->op == PTO_OP_TPOP && x->nargs == 2 && x->block >= 0 &&
            m->operands[x->arg0].kind == PTO_O_TILE && m->operands[x->arg0].ref == t &&
            m->operands[x->arg0 + 1].kind == PTO_O_CVPIPE)
            return m->operands[x->arg0 + 1].ref;
    }
    return -1;
}

/* One tile alone: planned, aligned, inside, slots in order. A tile that a
   tpop fills sits at its pipe's reserved base instead (the slots above the
   usable bytes, which no other tile reaches). */
static pto_status pto__pc_tile(pto_ctx *ctx, const pto_module *m, int32_t t)
{
    const pto_tile *tl = &m->tiles[t];
    const char *name = pto_str(ctx, tl->name), *sp = pto_space_name((pto_space)tl->space);
    int64_t bytes = pto__pc_bytes(tl), room = pto__pc_pipe_room(m, tl->kernel, tl->space);
    int64_t limit = pto_space_capacity(m->arch, (pto_space)tl->space) - room;
    pto_status st = PTO_OK;
    int32_t q = pto__pc_popped_from(m, t);
    int k;
    if (!tl->planned) return pto_error(ctx, tl->loc, "tile '%s' (%s) is not planned", name, sp);
    if (q >= 0) {
        int64_t base = pto_plan_pipe_base(m, q, (pto_space)tl->space);
        if (base < 0 || tl->offset[0] != base || tl->nbuf != 1)
            return pto_error(ctx, tl->loc, "tile '%s' is popped from pipe '%s' but is not at its base 0x%llx", name,
                             pto_str(ctx, m->cvpipes[q].name), (long long)base);
        return PTO_OK;
    }
    if (tl->nbuf < 1 || tl->nbuf > PTO_MAX_NBUF)
        return pto_error(ctx, tl->loc, "tile '%s' has %d slots", name, (int)tl->nbuf);
    for (k = 0; k < tl->nbuf; k++) {
        int64_t o = tl->offset[k];
        if (o % 32 != 0)
            st = pto_error(ctx, tl->loc, "tile '%s' slot %d at 0x%llx is not 32-byte aligned", name, k, (long long)o);
        if (o < 0 || o + bytes > limit)
            st = pto_error(ctx, tl->loc, "tile '%s' slot %d [0x%llx, 0x%llx) is outside %s (%lld usable bytes)", name,
                           k, (long long)o, (long long)(o + bytes), sp, (long long)limit);
        if (k >= 1 && (tl->offset[k] - tl->offset[k - 1] < bytes ||
                       tl->offset[k] - tl->offset[k - 1] != tl->offset[1] - tl->offset[0]))
            st = pto_error(ctx, tl->loc, "slots of tile '%s' are not in slot order at one stride (slot %d at 0x%llx)",
                           name, k, (long long)o);
    }
    return st;
}

static int pto__pc_same_memory(const pto_tile *a, const pto_tile *b)
{
    return a->kernel == b->kernel && a->core == b->core && a->space == b->space;
}

/* Two tiles: if both can be live at one point, no slot may share a byte. */
static pto_status pto__pc_pair(pto_ctx *ctx, const pto__pc *c, int32_t i, int32_t j)
{
    const pto_module *m = c->m;
    const pto_tile *a = &m->tiles[i], *b = &m->tiles[j];
    int64_t ba = pto__pc_bytes(a), bb = pto__pc_bytes(b);
    int ka, kb, la0, la1, lb0, lb1;
    if (c->from[i] < 0 || c->from[j] < 0 || c->to[i] < c->from[j] || c->to[j] < c->from[i]) return PTO_OK;
    for (ka = 0; ka < a->nbuf; ka++)
        for (kb = 0; kb < b->nbuf; kb++) {
            int64_t lo = a->offset[ka] > b->offset[kb] ? a->offset[ka] : b->offset[kb];
            int64_t hi = a->offset[ka] + ba < b->offset[kb] + bb ? a->offset[ka] + ba : b->offset[kb] + bb;
            if (lo >= hi) continue;
            pto__pc_lines(c, i, &la0, &la1);
            pto__pc_lines(c, j, &lb0, &lb1);
            return pto_error(ctx, b->loc,
                             "tiles '%s' and '%s' overlap at %s bytes [0x%llx, 0x%llx) while both live "
                             "(lines %d-%d and %d-%d)",
                             pto_str(ctx, a->name), pto_str(ctx, b->name), pto_space_name((pto_space)a->space),
                             (long long)lo, (long long)hi, la0, la1, lb0, lb1);
        }
    return PTO_OK;
}

static pto_status pto__pc_all(pto_ctx *ctx, pto__pc *c)
{
    const pto_module *m = c->m;
    pto_status st = PTO_OK;
    int32_t i, j;
    char *ok = (char *)pto_alloc(ctx, (size_t)m->n_tiles + 1);
    if (!ok) { pto__oom(ctx); return PTO_ERR_INTERNAL; }
    for (i = 0; i < m->n_tiles; i++) {
        const pto_tile *t = &m->tiles[i];
        ok[i] = 0;
        if (t->space == PTO_GM || t->space >= PTO_NSPACE) continue;
        if (pto__pc_tile(ctx, m, i) != PTO_OK) st = PTO_ERR_USER;
        ok[i] = t->planned && t->nbuf >= 1 && t->nbuf <= PTO_MAX_NBUF;
    }
    for (i = 0; i < m->n_tiles; i++)
        for (j = i + 1; ok[i] && j < m->n_tiles; j++)
            if (ok[j] && pto__pc_same_memory(&m->tiles[i], &m->tiles[j]) && pto__pc_pair(ctx, c, i, j) != PTO_OK)
                st = PTO_ERR_USER;
    pto_free(ctx, ok);
    return st;
}

PTODEF pto_status pto_plan_check(pto_ctx *ctx, const pto_module *m)
{
    pto__pc c;
    int32_t *stack, i;
    size_t ns = (size_t)m->n_stmts + 1, nt = (size_t)m->n_tiles + 1;
    pto_status st = PTO_ERR_INTERNAL;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.num = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    c.last = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    c.stmt_of = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    stack = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    c.from = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    c.to = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    if (c.num && c.last && c.stmt_of && stack && c.from && c.to) {
        for (i = 0; i < m->n_stmts; i++) c.num[i] = c.last[i] = -1;
        for (i = 0; i < m->n_tiles; i++) c.from[i] = c.to[i] = -1;
        pto__pc_walk(&c, stack);
        pto__pc_ranges(&c);
        st = pto__pc_all(ctx, &c);
    } else {
        pto__oom(ctx);
    }
    pto_free(ctx, c.num);
    pto_free(ctx, c.last);
    pto_free(ctx, c.stmt_of);
    pto_free(ctx, stack);
    pto_free(ctx, c.from);
    pto_free(ctx, c.to);
    return st;
}
