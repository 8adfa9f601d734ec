/* mix.h - what crosses cores: cross-core flags in a cluster, the cube <->
   vector slot rings (TPUSH / TPOP / TFREE, hardware.md section 5) and the
   rank signals (notify / wait, hardware.md section 8).

   Each of these is a blocking point of the scheduler: a wait that is not yet
   satisfied blocks the core (its scalar unit stalls) and passes the baton; a
   signal that may release another core yields, so that different seeds try
   different interleavings. A satisfied wait joins the publisher's vector
   clock into every pipe of the waiting core and starts no earlier than the
   publisher's time plus the cross-core latency. Which publisher is fixed
   by the program, never by the interleaving (joining whatever ran last
   would make cycles depend on the seed and hide races):

   Cross-core flags. Each set is kept as its own record in a queue per
   (direction, subblock, id); the k-th wait takes the k-th set of its
   source core (the AIC's wait: the k-th of each AIV).

   Ring model. A ring has per-direction counters: pushed, popped, released
   and freed per taking-part core. The producer may push slot n when n -
   released < slot num (released counts slots every consumer has handed
   back: on a2a3 at the end of the pop's load, as pto-isa's TPOP sends the
   free credit itself and TFREE is empty; on a5 at the tfree); a consumer pops slot i
   when every producer has pushed it. The consumer's local copy of slot i is
   at base + (i % local_slot_num) * (bytes of the popped tile: half the slot
   on an AIV of a split pipe), so popping while
   local_slot_num slots are popped and not yet freed would overwrite data in
   use: that is reported (a missing TFREE), as is a producer that waits
   forever on a full ring. Split modes: C2V UP_DOWN / LEFT_RIGHT give AIV s
   the s-th half of the cube tile; C2V NONE gives each AIV the whole tile;
   V2C UP_DOWN / LEFT_RIGHT make each AIV push its half; V2C NONE has only
   AIV 0 push.
   Ring time and order are per slot: push n joins the releases of push
   n - slot_num (every consumer's; nothing if n < slot_num), pop n joins
   push n (every producer's). Whichever core the seed ran first, these are
   the same events, so a race-free kernel's cycles do not depend on the
   seed; joining whatever tfree ran last would (and would hide races).

   Signals. A wait is a condition on a cell, not an event: which notify
   meets it depends on when each lands. Every notify is kept in the cell's
   history at the simulated time it lands (its end + the latency; ties by
   core, then program order), and a wait that starts polling at t0 returns
   at the first time >= t0 when the history meets its condition, ordered
   after the write that met it (and, for an atomic add, the writes that add
   read, back to the latest set). The scheduler releases the wait only when
   no write still to come can land before that time, so the history it
   reads is complete there. A wait whose condition a later write, which
   nothing orders after the wait, would break (EQ on a counter a fast peer
   moves on) returned here only because it polled in time; it is reported
   at the end of the launch as a wait that may never return. The cell's
   bytes in GM still change in the order the cores ran (what a tload of it
   would see). */

/* ---- cross-core flags -------------------------------------------------------- */

typedef struct pto_k__xwait {
    int id;
} pto_k__xwait;

PTO_K_FN pto_k__cluster *pto_k__cl(pto_k_core *c) { return &c->dev->clusters[c->cluster]; }

PTO_K_FN int pto_k__xready(pto_k_core *c, const void *arg)
{
    const pto_k__xwait *w = (const pto_k__xwait *)arg;
    pto_k__cluster *cl = pto_k__cl(c);
    if (c->kind == PTO_K_CORE_VECTOR) return cl->cnt[0][c->subblock][w->id] > 0;
    return cl->cnt[1][0][w->id] > 0 && cl->cnt[1][1][w->id] > 0;
}

PTO_K_FN void pto_k__xdesc(pto_k_core *c, const void *arg, char *out, size_t n)
{
    const pto_k__xwait *w = (const pto_k__xwait *)arg;
    pto_k__cluster *cl = pto_k__cl(c);
    if (c->kind == PTO_K_CORE_VECTOR)
        snprintf(out, n, "cross-core wait on flag %d can never be satisfied: the AIC never sets it", w->id);
    else
        snprintf(out, n, "cross-core wait on flag %d can never be satisfied: it needs a set from both AIVs (aiv0 has %d, aiv1 has %d pending)",
                 w->id, cl->cnt[1][0][w->id], cl->cnt[1][1][w->id]);
}

PTO_K_FN int pto_k__xargs_ok(pto_k_core *c, const pto_k__ins *ins, int pipe, int id)
{
    if (pipe < 0 || pipe >= PTO_K_PIPE_ALL || id < 0 || id >= PTO_K_NCROSS) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "%s: needs a pipe S..FIX and a flag id in 0..15", ins->src ? "cross flag" : "?");
        return 0;
    }
    if (c->dev->desc.arch == PTO_K_A2A3 && id >= 11 && id <= 14) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "cross-core flag id %d is reserved for all-core sync on a2a3 (ids 11..14)", id);
        return 0;
    }
    if (c->dev->ld->kind != PTO_K_KIND_MIX) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "cross-core flags need a mix kernel");
        return 0;
    }
    return pto_k__pipe_free(c, ins, pipe);
}

/* The pending set k places after the oldest (0 = the one a wait takes next). */
PTO_K_FN pto_k__sync *pto_k__xpending(pto_k_core *c, int dir, int sub, int id, int k)
{
    pto_k__cluster *cl = pto_k__cl(c);
    if (!cl->xq[dir][sub][id]) {
        cl->xq[dir][sub][id] = (pto_k__sync *)calloc(PTO_K__XDEPTH, sizeof(pto_k__sync));
        if (!cl->xq[dir][sub][id]) {
            c->dev->oom = 1;
            return NULL;
        }
    }
    return &cl->xq[dir][sub][id][(cl->head[dir][sub][id] + k) % PTO_K__XDEPTH];
}

/* Each set is its own record, and a wait joins the oldest pending one: the
   counter pairs the k-th wait with the k-th set of its source core, whatever
   order the cores ran in (merging every set into one record would let the
   k-th wait see the time and clock of a later set). */
PTO_K_FN void pto_k_cross_set(pto_k_core *c, const char *src, int pipe, int id)
{
    pto_k__ins ins = pto_k__mk(PTO_K__SET_FLAG, pipe, src);
    pto_k__cluster *cl;
    pto_k__sync *e;
    int s;
    int64_t t;
    if (c->dead || !pto_k__xargs_ok(c, &ins, pipe, id)) return;
    cl = pto_k__cl(c);
    t = c->free_at[pipe] > c->disp ? c->free_at[pipe] : c->disp;
    c->disp++;
    for (s = 0; s < 2; s++) {
        int dir = c->kind == PTO_K_CORE_CUBE ? 0 : 1;
        int sub = c->kind == PTO_K_CORE_CUBE ? s : (int)c->subblock;
        if (c->kind != PTO_K_CORE_CUBE && s == 1) break;
        if (++cl->cnt[dir][sub][id] > 15) {
            pto_k__ierr(c, &ins, PTO_K_E_USAGE, "cross-core flag %d overflows its 4-bit counter (16 sets not waited for)", id);
            cl->cnt[dir][sub][id] = 15;
        }
        e = pto_k__xpending(c, dir, sub, id, cl->cnt[dir][sub][id] - 1);
        if (!e) continue;
        if (e->vc) memset(e->vc, 0, sizeof(uint32_t) * (size_t)c->dev->ngp);
        e->time = 0;
        pto_k__publish(c, pipe, e, t, src);
    }
    pto_k__yield(c);
}

/* Takes the oldest pending set of (dir, sub, id) and joins it. */
PTO_K_FN void pto_k__xtake(pto_k_core *c, int dir, int sub, int id, const char *src)
{
    pto_k__cluster *cl = pto_k__cl(c);
    pto_k__sync *e = pto_k__xpending(c, dir, sub, id, 0);
    cl->cnt[dir][sub][id]--;
    cl->head[dir][sub][id] = (cl->head[dir][sub][id] + 1) % PTO_K__XDEPTH;
    if (e) pto_k__join_all(c, e, PTO_K__XLAT, src, PTO_K_WAIT_CROSS);
}

PTO_K_FN void pto_k_cross_wait(pto_k_core *c, const char *src, int pipe, int id)
{
    pto_k__ins ins = pto_k__mk(PTO_K__WAIT_FLAG, pipe, src);
    pto_k__xwait xw;
    pto_k__waiter w;
    if (c->dead || !pto_k__xargs_ok(c, &ins, pipe, id)) return;
    xw.id = id;
    memset(&w, 0, sizeof w);
    w.ready = pto_k__xready;
    w.describe = pto_k__xdesc;
    w.arg = &xw;
    w.src = src;
    pto_k__block(c, &w);
    if (c->dead) return;
    if (c->kind == PTO_K_CORE_VECTOR) {
        pto_k__xtake(c, 0, (int)c->subblock, id, src);
    } else {
        pto_k__xtake(c, 1, 0, id, src);
        pto_k__xtake(c, 1, 1, id, src);
    }
}

/* ---- rings -------------------------------------------------------------------- */

PTO_K_FN const char *pto_k__dir_name(int d) { return d == 1 ? "C2V" : d == 2 ? "V2C" : d == 3 ? "BOTH" : "?"; }

PTO_K_FN int pto_k__role_bit(const pto_k_core *c) { return c->kind == PTO_K_CORE_CUBE ? 1 : 2 << c->subblock; }

PTO_K_FN pto_k__ring *pto_k__ring_get(pto_k_core *c, const pto_k__ins *ins, int ring)
{
    pto_k__ring *rg;
    if (ring < 0 || ring >= PTO_K_NRING || c->dev->ld->kind != PTO_K_KIND_MIX) {
        pto_k__ierr(c, ins, PTO_K_E_RING, "ring %d: rings need a mix kernel and an id in 0..7", ring);
        return NULL;
    }
    rg = &pto_k__cl(c)->ring[ring];
    if (!(rg->inited & pto_k__role_bit(c))) {
        pto_k__ierr(c, ins, PTO_K_E_RING, "ring %d is used before this core called ring_init", ring);
        return NULL;
    }
    return rg;
}

PTO_K_FN void pto_k_ring_init(pto_k_core *c, const char *src, int ring, int dir, int32_t slot_size, int32_t slot_num,
                              int32_t local_slot_num, int flag_id, int split, pto_k_gm *buf, int64_t buf_offset)
{
    pto_k__ins ins = pto_k__mk(PTO_K__SET_FLAG, PTO_K_PIPE_S, src);
    pto_k__ring *rg;
    int maxl, nflag, k;
    char mine[200], theirs[200], who[64];
    if (c->dead) return;
    if (ring < 0 || ring >= PTO_K_NRING || c->dev->ld->kind != PTO_K_KIND_MIX || dir < 1 || dir > 3 ||
        split < 0 || split > 2 || slot_size <= 0 || slot_size % PTO_K__GRAN) {
        pto_k__ierr(c, &ins, PTO_K_E_RING,
                    "ring_init %d: needs a mix kernel, a ring id in 0..7, a direction C2V/V2C/BOTH, a split mode and a slot size that is a positive multiple of 32",
                    ring);
        return;
    }
    /* normalise: leaving a count out means its default */
    if (slot_num == 0) slot_num = dir == PTO_K_BOTH ? 4 : 8;
    if (local_slot_num == 0) local_slot_num = 2;
    maxl = dir == PTO_K_BOTH ? 4 : 8;
    /* each push sets the ring's data-ready flag, which the pops wait for, and a
       cross-core counter has 4 bits: with more than 15 slots the producer can be 16
       sets ahead (the verifier's rule for slots(N); a hand edit meets it here) */
    if (slot_num > PTO_K__XDEPTH - 1) {
        pto_k__ierr(c, &ins, PTO_K_E_RING,
                    "ring_init %d: slot_num %d is more than %d: each push sets a cross-core flag that the pops wait "
                    "for, and its counter has 4 bits, so at most %d pushes may be ahead of the pops",
                    ring, (int)slot_num, PTO_K__XDEPTH - 1, PTO_K__XDEPTH - 1);
        return;
    }
    if (slot_num < 0 || local_slot_num <= 0 || local_slot_num > slot_num || local_slot_num > maxl) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "ring_init %d: local_slot_num %d must be > 0, <= slot_num %d and <= %d for %s",
                    ring, (int)local_slot_num, (int)slot_num, maxl, pto_k__dir_name(dir));
        return;
    }
    nflag = dir == PTO_K_BOTH ? 4 : 2;
    if (flag_id < 0 || flag_id + nflag > PTO_K_NCROSS ||
        (c->dev->desc.arch == PTO_K_A2A3 && flag_id <= 14 && flag_id + nflag - 1 >= 11)) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "ring_init %d: flag ids %d..%d must lie in 0..15%s", ring, flag_id,
                    flag_id + nflag - 1, c->dev->desc.arch == PTO_K_A2A3 ? " outside the reserved 11..14" : "");
        return;
    }
    if (buf && (buf_offset < 0 || buf_offset % PTO_K__GRAN ||
                buf_offset + (int64_t)(dir == PTO_K_BOTH ? 2 : 1) * slot_num * slot_size >
                    buf->rows * buf->cols * pto_k__dsize(buf->dtype))) {
        pto_k__ierr(c, &ins, PTO_K_E_BOUNDS, "ring_init %d: %d slot%s of %d bytes at byte %lld do not fit GM buffer '%s'",
                    ring, (int)((dir == PTO_K_BOTH ? 2 : 1) * slot_num), dir != PTO_K_BOTH && slot_num == 1 ? "" : "s",
                    (int)slot_size, (long long)buf_offset,
                    buf->name ? buf->name : "?");
        return;
    }
    rg = &pto_k__cl(c)->ring[ring];
    snprintf(mine, sizeof mine, "dir %s, slot_size %d, slot_num %d, local_slot_num %d, flag_id %d, split %d, buffer %s+%lld",
             pto_k__dir_name(dir), (int)slot_size, (int)slot_num, (int)local_slot_num, flag_id, split,
             buf ? (buf->name ? buf->name : "?") : "none", (long long)buf_offset);
    if (rg->inited) {
        snprintf(theirs, sizeof theirs, "dir %s, slot_size %d, slot_num %d, local_slot_num %d, flag_id %d, split %d, buffer %s+%lld",
                 pto_k__dir_name(rg->dir), (int)rg->slot_size, (int)rg->slot_num, (int)rg->local_slot_num,
                 rg->flag_id, rg->split, rg->buf ? (rg->buf->name ? rg->buf->name : "?") : "none",
                 (long long)rg->buf_offset);
        if (strcmp(mine, theirs) != 0) {
            pto_k__core_name(&c->dev->cores[rg->init_core], who, sizeof who);
            pto_k__ierr(c, &ins, PTO_K_E_RING, "ring %d initialised here as (%s) but %s at \"%s\" initialised it as (%s)",
                        ring, mine, who, rg->init_src, theirs);
        }
        rg->inited |= pto_k__role_bit(c);
        return;
    }
    rg->dir = dir;
    rg->split = split;
    rg->flag_id = flag_id;
    rg->slot_size = slot_size;
    rg->slot_num = slot_num;
    rg->local_slot_num = local_slot_num;
    rg->init_src = src;
    rg->init_core = c->index;
    rg->buf = buf;
    rg->buf_offset = buf_offset;
    if (!buf) {
        rg->own = (unsigned char *)calloc((size_t)(2 * slot_num), (size_t)slot_size);
        if (!rg->own) c->dev->oom = 1;
    }
    for (k = 0; k < 2; k++) {
        pto_k__ring1 *r1 = &rg->d[k];
        r1->used = (dir & (1 << k)) != 0;
        r1->slot = (pto_k__sync *)calloc((size_t)slot_num, sizeof *r1->slot);
        r1->freeslot = (pto_k__sync *)calloc((size_t)slot_num, sizeof *r1->freeslot);
        r1->slot_dtype = (int *)calloc((size_t)slot_num, sizeof(int));
        r1->slot_rows = (int32_t *)calloc((size_t)slot_num, sizeof(int32_t));
        r1->slot_cols = (int32_t *)calloc((size_t)slot_num, sizeof(int32_t));
        if (!r1->slot || !r1->freeslot || !r1->slot_dtype || !r1->slot_rows || !r1->slot_cols) c->dev->oom = 1;
    }
    rg->inited |= pto_k__role_bit(c);
}

/* Slots every consumer has released to the producer / every producer has pushed. */
PTO_K_FN int64_t pto_k__released(const pto_k__ring *rg, int k)
{
    const pto_k__ring1 *r1 = &rg->d[k];
    if (k == 1) return r1->released[0];
    return r1->released[0] < r1->released[1] ? r1->released[0] : r1->released[1]; /* both AIVs consume C2V */
}

PTO_K_FN int64_t pto_k__pushed(const pto_k__ring *rg, int k)
{
    const pto_k__ring1 *r1 = &rg->d[k];
    if (k == 0 || rg->split == PTO_K_SPLIT_NONE) return r1->pushed[0];
    return r1->pushed[0] < r1->pushed[1] ? r1->pushed[0] : r1->pushed[1];
}

typedef struct pto_k__rwait {
    pto_k__ring *rg;
    int ring, k, me;
} pto_k__rwait;

PTO_K_FN int pto_k__push_ready(pto_k_core *c, const void *arg)
{
    const pto_k__rwait *w = (const pto_k__rwait *)arg;
    (void)c;
    return w->rg->d[w->k].pushed[w->me] - pto_k__released(w->rg, w->k) < w->rg->slot_num;
}

PTO_K_FN void pto_k__push_desc(pto_k_core *c, const void *arg, char *out, size_t n)
{
    const pto_k__rwait *w = (const pto_k__rwait *)arg;
    const pto_k__ring1 *r1 = &w->rg->d[w->k];
    int a2a3 = c->dev->desc.arch == PTO_K_A2A3;
    snprintf(out, n,
             "tpush on ring %d (%s) waits for a free slot forever: %s %d slot%s hold%s data (pushed %lld, %s %lld); "
             "the consumer popped %lld %s",
             w->ring, w->k == 0 ? "C2V" : "V2C", w->rg->slot_num == 1 ? "its" : "all", (int)w->rg->slot_num,
             w->rg->slot_num == 1 ? "" : "s", w->rg->slot_num == 1 ? "s" : "", (long long)r1->pushed[w->me],
             a2a3 ? "released" : "freed", (long long)pto_k__released(w->rg, w->k),
             (long long)(w->k == 0 && r1->popped[1] < r1->popped[0] ? r1->popped[1] : r1->popped[0]),
             a2a3 ? "and pops no more (on a2a3 each tpop releases its slot)" : "but never freed them (missing TFREE?)");
}

PTO_K_FN int pto_k__pop_ready(pto_k_core *c, const void *arg)
{
    const pto_k__rwait *w = (const pto_k__rwait *)arg;
    (void)c;
    return pto_k__pushed(w->rg, w->k) > w->rg->d[w->k].popped[w->me];
}

PTO_K_FN void pto_k__pop_desc(pto_k_core *c, const void *arg, char *out, size_t n)
{
    const pto_k__rwait *w = (const pto_k__rwait *)arg;
    const pto_k__ring1 *r1 = &w->rg->d[w->k];
    (void)c;
    if (w->k == 1 && w->rg->split != PTO_K_SPLIT_NONE && r1->pushed[0] != r1->pushed[1]) {
        /* a split V2C slot is whole when both vector cores pushed their half */
        int lag = r1->pushed[0] < r1->pushed[1] ? 0 : 1;
        snprintf(out, n, "tpop on ring %d (V2C, split) waits for slot %lld, whose half from AIV %d is never pushed "
                 "(AIV 0 pushed %lld, AIV 1 %lld: each pushes its half of every slot)", w->ring,
                 (long long)r1->popped[w->me], lag, (long long)r1->pushed[0], (long long)r1->pushed[1]);
        return;
    }
    snprintf(out, n, "tpop on ring %d (%s) waits for slot %lld, which is never pushed (the producer pushed %lld)", w->ring,
             w->k == 0 ? "C2V" : "V2C", (long long)r1->popped[w->me], (long long)pto_k__pushed(w->rg, w->k));
}

/* Byte offset of the slot for count n of direction k. */
PTO_K_FN int64_t pto_k__slot_at(const pto_k__ring *rg, int k, int64_t n)
{
    int64_t base = (rg->dir == PTO_K_BOTH && k == 1) ? rg->slot_num : 0;
    return (base + n % rg->slot_num) * rg->slot_size;
}

PTO_K_FN unsigned char *pto_k__slot_mem(pto_k__ring *rg, int64_t off)
{
    return rg->buf ? (unsigned char *)rg->buf->data + rg->buf_offset + off : rg->own + off;
}

/* This core's part of a slot tile of shape [R, C] (full): row/col origin. */
PTO_K_FN void pto_k__part(const pto_k__ring *rg, const pto_k_core *c, int32_t prows, int32_t pcols, int32_t *R,
                          int32_t *C, int64_t *r0, int64_t *c0)
{
    *R = prows, *C = pcols, *r0 = 0, *c0 = 0;
    if (c->kind == PTO_K_CORE_CUBE || rg->split == PTO_K_SPLIT_NONE) return;
    if (rg->split == PTO_K_SPLIT_UP_DOWN) {
        *R = prows * 2;
        *r0 = c->subblock * prows;
    } else {
        *C = pcols * 2;
        *c0 = c->subblock * pcols;
    }
}

PTO_K_FN void pto_k__slot_acc(pto_k__check *k, pto_k__ring *rg, int ring, int64_t off, int es, int32_t C, int64_t r0,
                              int64_t c0, int32_t nr, int32_t nc, int kind)
{
    int64_t i;
    char what[96];
    pto_k__shadow *sh;
    if (!rg->buf) return;
    sh = pto_k__gm_shadow(k->c->dev, rg->buf);
    for (i = 0; i < nr; i++) {
        int64_t lo = rg->buf_offset + off + ((r0 + i) * C + c0) * es;
        pto_k__access(k, sh, lo, lo + (int64_t)nc * es, kind, 1);
    }
    snprintf(what, sizeof what, "gm %s (ring %d)", rg->buf->name ? rg->buf->name : "?", ring);
    pto_k__report_conf(k, kind, what, 1);
}

PTO_K_FN void pto_k_tpush(pto_k_core *c, const char *src, int ring, pto_k_tile a)
{
    int pipe = a.space == PTO_K_ACC ? PTO_K_PIPE_FIX : PTO_K_PIPE_MTE3;
    pto_k__ins ins = pto_k__mk(PTO_K__TSTORE, pipe, src);
    pto_k__ring *rg;
    pto_k__ring1 *r1;
    pto_k__sync *fs;   /* the slot's release: the tfrees of its previous data */
    pto_k__rwait rw;
    pto_k__waiter w;
    pto_k__check k;
    int kd, me, es;
    int32_t R, C;
    int64_t r0, c0, off, n;
    unsigned mask = c->kind == PTO_K_CORE_CUBE ? PTO_K__M(PTO_K_ACC) : PTO_K__M(PTO_K_VEC);
    pto_k__tick(c, src);
    if (c->dead || !(rg = pto_k__ring_get(c, &ins, ring))) return;
    kd = c->kind == PTO_K_CORE_CUBE ? 0 : 1;
    me = c->kind == PTO_K_CORE_CUBE ? 0 : (int)c->subblock;
    r1 = &rg->d[kd];
    if (!r1->used) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpush: ring %d (%s) has no %s direction for this core", ring,
                    pto_k__dir_name(rg->dir), kd == 0 ? "C2V" : "V2C");
        return;
    }
    if (kd == 1 && rg->split == PTO_K_SPLIT_NONE && me == 1) {   /* the slot holds AIV 0's whole tile */
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpush: AIV 1 (subblock 1) pushes into ring %d (\"%s\"), a V2C ring "
                    "with no split: only AIV 0 may push into it; guard the push with `if subblock == 0` (in C: "
                    "pto_k_subblock(core) == 0) or split the pipe", ring, rg->init_src ? rg->init_src : "?");
        return;
    }
    if (!pto_k__tile_ok(c, &ins, a, mask, "source") || !pto_k__pipe_free(c, &ins, pipe)) return;
    pto_k__part(rg, c, a.rows, a.cols, &R, &C, &r0, &c0);
    es = pto_k__dsize(a.dtype);
    if ((int64_t)R * C * es > rg->slot_size) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpush: a [%d, %d] %s tile needs %lld bytes but ring %d slots hold %d", (int)R,
                    (int)C, pto_k__dtype_name(a.dtype), (long long)R * C * es, ring, (int)rg->slot_size);
        return;
    }
    rw.rg = rg, rw.ring = ring, rw.k = kd, rw.me = me;
    memset(&w, 0, sizeof w);
    w.ready = pto_k__push_ready;
    w.describe = pto_k__push_desc;
    w.arg = &rw;
    w.src = src;
    pto_k__block(c, &w);
    if (c->dead) return;
    n = r1->pushed[me];
    /* Wait for this slot's own release: the pops (a2a3) or tfrees (a5) of
       slot n - slot_num. A later release that the interleaving happened to run already is no part
       of this push's condition (it would make time and order depend on the
       seed, and hide races the hardware does not order). */
    fs = &r1->freeslot[n % rg->slot_num];
    if (fs->vc) pto_k__join_all(c, fs, PTO_K__XLAT, src, PTO_K_WAIT_TPUSH);
    ins.disp = c->disp++;
    ins.seq = ++c->seq;
    off = pto_k__slot_at(rg, kd, n);
    pto_k__begin(&k, c, &ins, pipe);
    k.cur.op = ins.name = "tpush";
    pto_k__tacc(&k, a, 0, pto_k__tbytes(a), PTO_K__RD);
    pto_k__init_read(c, &ins, a, a.rows, a.cols, "source");
    pto_k__slot_acc(&k, rg, ring, off, es, C, r0, c0, a.rows, a.cols, PTO_K__WR);
    pto_k__copy(pto_k__slot_mem(rg, off) + (size_t)((r0 * C + c0) * es), a.dtype, C, pto_k__tptr(c, a), a.dtype, a.cols,
                a.rows, a.cols);
    r1->slot_dtype[n % rg->slot_num] = a.dtype;
    r1->slot_rows[n % rg->slot_num] = R;
    r1->slot_cols[n % rg->slot_num] = C;
    pto_k__timed(c, pipe, ins.disp, pto_k__bw_cost((double)pto_k__tbytes(a), pipe == PTO_K_PIPE_FIX ? 40.63 : 109.12),
                 "tpush", src);
    pto_k__publish(c, pipe, &r1->slot[n % rg->slot_num], c->free_at[pipe], src);
    r1->pushed[me]++;
    pto_k__yield(c);
}

/* Hands the consumer's oldest unreleased slot back to the producer: the
   next push into it joins the clock of `pipe` as it stands now. On a2a3
   pto-isa's TPOP does it on MTE2 right after its load (the free credit),
   so what the consumer does with the popped tile afterwards, up to and
   including its tfree, is ordered before no push. On a5 TFREE does it. */
PTO_K_FN void pto_k__release(pto_k_core *c, pto_k__ring1 *r1, int32_t slot_num, int me, int pipe, const char *src)
{
    pto_k__sync *fs = &r1->freeslot[r1->released[me] % slot_num];
    pto_k__publish(c, pipe, fs, c->free_at[pipe], src);
    r1->released[me]++;
}

PTO_K_FN pto_k_tile pto_k_tpop(pto_k_core *c, const char *src, int ring, pto_k_tile base)
{
    pto_k__ins ins = pto_k__mk(PTO_K__TLOAD, PTO_K_PIPE_MTE2, src);
    pto_k__ring *rg;
    pto_k__ring1 *r1;
    pto_k__rwait rw;
    pto_k__waiter w;
    pto_k__check k;
    pto_k_tile t = base;
    int kd, me, sdt, es;
    int32_t R, C;
    int64_t r0, c0, off, n;
    unsigned mask = c->kind == PTO_K_CORE_CUBE ? PTO_K__M(PTO_K_MAT) : PTO_K__M(PTO_K_VEC);
    pto_k__tick(c, src);
    if (c->dead || !(rg = pto_k__ring_get(c, &ins, ring))) return t;
    kd = c->kind == PTO_K_CORE_CUBE ? 1 : 0;
    me = c->kind == PTO_K_CORE_CUBE ? 0 : (int)c->subblock;
    r1 = &rg->d[kd];
    if (!r1->used) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpop: ring %d (%s) has no %s direction", ring, pto_k__dir_name(rg->dir),
                    kd == 0 ? "C2V" : "V2C");
        return t;
    }
    n = r1->popped[me];
    /* as pto-isa's TPOP: local slots step by the popped tile's bytes (half a
       ring slot on an AIV of a split pipe), which is what the planner reserves */
    t.offset = base.offset + (n % rg->local_slot_num) * pto_k__tbytes(base);
    if (!pto_k__tile_ok(c, &ins, t, mask, "destination") || !pto_k__pipe_free(c, &ins, PTO_K_PIPE_MTE2)) return t;
    if (r1->popped[me] - r1->freed[me] >= rg->local_slot_num) {
        pto_k__ierr(c, &ins, PTO_K_E_RING,
                    "tpop of slot %lld on ring %d overwrites local slot %lld, still holding slot %lld popped at \"%s\" and never freed (missing TFREE)",
                    (long long)n, ring, (long long)(n % rg->local_slot_num), (long long)(n - rg->local_slot_num),
                    r1->pop_src[me] ? r1->pop_src[me] : "?");
    }
    rw.rg = rg, rw.ring = ring, rw.k = kd, rw.me = me;
    memset(&w, 0, sizeof w);
    w.ready = pto_k__pop_ready;
    w.describe = pto_k__pop_desc;
    w.arg = &rw;
    w.src = src;
    pto_k__block(c, &w);
    if (c->dead) return t;
    pto_k__join_all(c, &r1->slot[n % rg->slot_num], PTO_K__XLAT, src, PTO_K_WAIT_TPOP);
    ins.disp = c->disp++;
    ins.seq = ++c->seq;
    off = pto_k__slot_at(rg, kd, n);
    sdt = r1->slot_dtype[n % rg->slot_num];
    es = pto_k__dsize(sdt);
    pto_k__part(rg, c, t.rows, t.cols, &R, &C, &r0, &c0);
    if (R != r1->slot_rows[n % rg->slot_num] || C != r1->slot_cols[n % rg->slot_num]) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tpop: slot %lld of ring %d holds a [%d, %d] tile, this pop expects [%d, %d]",
                    (long long)n, ring, (int)r1->slot_rows[n % rg->slot_num], (int)r1->slot_cols[n % rg->slot_num],
                    (int)R, (int)C);
        r1->popped[me]++;
        return t;
    }
    pto_k__begin(&k, c, &ins, PTO_K_PIPE_MTE2);
    k.cur.op = ins.name = "tpop";
    pto_k__slot_acc(&k, rg, ring, off, es, C, r0, c0, t.rows, t.cols, PTO_K__RD);
    pto_k__tacc(&k, t, 0, pto_k__tbytes(t), PTO_K__WR);
    pto_k__init_write(c, &ins, t, t.rows, t.cols);
    pto_k__copy(pto_k__tptr(c, t), t.dtype, t.cols, pto_k__slot_mem(rg, off) + (size_t)((r0 * C + c0) * es), sdt, C,
                t.rows, t.cols);
    pto_k__timed(c, PTO_K_PIPE_MTE2, ins.disp,
                 pto_k__bw_cost((double)pto_k__tbytes(t) + (t.space == PTO_K_VEC ? 31334.4 : 0.0),
                                t.space == PTO_K_VEC ? 143.36 : 78.35),
                 "tpop", src);
    if (c->dev->desc.arch == PTO_K_A2A3) pto_k__release(c, r1, rg->slot_num, me, PTO_K_PIPE_MTE2, src);
    r1->popped[me]++;
    r1->pop_src[me] = src;
    if (c->dev->desc.arch == PTO_K_A2A3) pto_k__yield(c);   /* the release may let the producer on */
    return t;
}

PTO_K_FN void pto_k_tfree(pto_k_core *c, const char *src, int ring)
{
    pto_k__ins ins = pto_k__mk(PTO_K__SET_FLAG, PTO_K_PIPE_S, src);
    pto_k__ring *rg;
    pto_k__ring1 *r1;
    pto_k__sync *fs;   /* the slot this core frees */
    int kd, me;
    int64_t t;
    pto_k__tick(c, src);
    if (c->dead || !(rg = pto_k__ring_get(c, &ins, ring))) return;
    kd = c->kind == PTO_K_CORE_CUBE ? 1 : 0;
    me = c->kind == PTO_K_CORE_CUBE ? 0 : (int)c->subblock;
    r1 = &rg->d[kd];
    if (!r1->used || r1->freed[me] >= r1->popped[me]) {
        pto_k__ierr(c, &ins, PTO_K_E_RING, "tfree on ring %d without a popped slot to free", ring);
        return;
    }
    ins.disp = c->disp++;
    t = pto_k__timed(c, PTO_K_PIPE_S, ins.disp, 1, "tfree", src);
    r1->freed[me]++;   /* the local copy may be refilled by the next pop */
    if (c->dev->desc.arch == PTO_K_A2A3) return;   /* the pop released the GM slot: nothing crosses cores */
    if (c->free_at[PTO_K_PIPE_MTE2] > t) t = c->free_at[PTO_K_PIPE_MTE2];
    /* a5: the freed slot (this core's oldest popped one) was read by the
       pop on MTE2: publish that it is done, on that slot only */
    fs = &r1->freeslot[r1->released[me] % rg->slot_num];
    pto_k__publish(c, PTO_K_PIPE_MTE2, fs, t, src);
    pto_k__publish(c, PTO_K_PIPE_S, fs, t, src);
    r1->released[me]++;
    pto_k__yield(c);
}

/* At the end of a core: popped slots it never freed. */
PTO_K_FN void pto_k__ring_end(pto_k_core *c)
{
    int ring;
    pto_k__cluster *cl;
    if (!c->dev->clusters || c->dev->ld->kind != PTO_K_KIND_MIX) return;
    cl = pto_k__cl(c);
    for (ring = 0; ring < PTO_K_NRING; ring++) {
        pto_k__ring *rg = &cl->ring[ring];
        int kd = c->kind == PTO_K_CORE_CUBE ? 1 : 0, me = c->kind == PTO_K_CORE_CUBE ? 0 : (int)c->subblock;
        pto_k__ring1 *r1 = &rg->d[kd];
        char who[64];
        if (!(rg->inited & pto_k__role_bit(c)) || !r1->used || r1->popped[me] <= r1->freed[me]) continue;
        pto_k__core_name(c, who, sizeof who);
        pto_k__err(c->dev, PTO_K_E_RING,
                   "%s: error: ring %d: %lld popped slot(s) never freed when the kernel ends (missing TFREE after this tpop) (%s)",
                   r1->pop_src[me] ? r1->pop_src[me] : "?", ring, (long long)(r1->popped[me] - r1->freed[me]), who);
    }
}

/* ---- ranks: windows and signals ----------------------------------------------- */

PTO_K_FN pto_k_gm *pto_k_gm_at(pto_k_core *c, const char *src, pto_k_gm *g, int64_t rank)
{
    pto_k__ins ins = pto_k__mk(PTO_K__TLOAD, PTO_K_PIPE_S, src);
    if (!g) return g;
    if (!g->peers) {
        pto_k__ierr(c, &ins, PTO_K_E_USAGE, "'%s' is not a window tensor: no rank can address it", g->name ? g->name : "?");
        return g;
    }
    if (rank < 0 || rank >= g->npeers) {
        pto_k__ierr(c, &ins, PTO_K_E_BOUNDS, "rank %lld of %s@%lld is outside [0, %d)", (long long)rank,
                    g->name ? g->name : "?", (long long)rank, g->npeers);
        c->dev->dropped++;
        return &c->dev->nowhere;   /* the access is dropped (pto_k__nowhere) */
    }
    return g->peers[rank];
}

PTO_K_FN pto_k__signal *pto_k__sig(pto_k_device *dev, pto_k_gm *g, int64_t idx)
{
    int i, cap = dev->capsigs;
    for (i = 0; i < dev->nsigs; i++)
        if (dev->sigs[i].g == g && dev->sigs[i].idx == idx) return &dev->sigs[i];
    dev->sigs = (pto_k__signal *)pto_k__grow(dev, dev->sigs, &cap, dev->nsigs + 1, sizeof *dev->sigs);
    dev->capsigs = cap;
    if (dev->nsigs + 1 > cap) return NULL;
    memset(&dev->sigs[dev->nsigs], 0, sizeof *dev->sigs);
    dev->sigs[dev->nsigs].g = g;
    dev->sigs[dev->nsigs].idx = idx;
    dev->sigs[dev->nsigs].init = ((const int32_t *)g->data)[idx];
    return &dev->sigs[dev->nsigs++];
}

PTO_K_FN int pto_k__sig_ok(pto_k_core *c, const pto_k__ins *ins, pto_k_gm *g, int64_t r, int64_t col)
{
    if (pto_k__nowhere(c, g)) return 0;
    if (!g || g->dtype != PTO_K_I32) {
        pto_k__ierr(c, ins, PTO_K_E_USAGE, "signals are i32 cells; '%s' is not an i32 tensor", g && g->name ? g->name : "?");
        return 0;
    }
    return pto_k__window_ok(c, ins, g, r, col, 1, 1) && pto_k__pipe_free(c, ins, PTO_K_PIPE_S);
}

PTO_K_FN int pto_k__swrite_before(const pto_k__swrite *a, const pto_k__swrite *b)
{
    if (a->vis != b->vis) return a->vis < b->vis;
    if (a->core != b->core) return a->core < b->core;
    return a->seq < b->seq;
}

/* Adds a write to the cell's history at its place in time. */
PTO_K_FN void pto_k__sig_record(pto_k_core *c, pto_k__signal *s, const pto_k__swrite *nw)
{
    int cap = s->capw, j;
    s->w = (pto_k__swrite *)pto_k__grow(c->dev, s->w, &cap, s->nw + 1, sizeof *s->w);
    s->capw = cap;
    if (s->nw + 1 > cap) {
        free(nw->vc);
        return;
    }
    for (j = s->nw; j > 0 && pto_k__swrite_before(nw, &s->w[j - 1]); j--) s->w[j] = s->w[j - 1];
    s->w[j] = *nw;
    s->w[j].cum = NULL;
    s->nw++;
    if (s->nval > j) s->nval = j;
    if (s->ncum > j) s->ncum = j;
    s->ver++;
}

PTO_K_FN int32_t pto_k__swrite_apply(int32_t v, const pto_k__swrite *w)
{
    return w->add ? (int32_t)((uint32_t)v + (uint32_t)w->value) : w->value;
}

/* The cell's value after write i (i = -1: before any). */
PTO_K_FN int32_t pto_k__sig_value(pto_k__signal *s, int i)
{
    for (; s->nval <= i; s->nval++) {
        int k = s->nval;
        s->w[k].after = pto_k__swrite_apply(k > 0 ? s->w[k - 1].after : s->init, &s->w[k]);
    }
    return i < 0 ? s->init : s->w[i].after;
}

/* What a wait that saw write i is ordered after: the write and, when it is
   an atomic add (which read the value before it), what that value was
   ordered after, back to the latest set. NULL when out of memory. */
PTO_K_FN const uint32_t *pto_k__sig_cum(pto_k_device *dev, pto_k__signal *s, int i)
{
    for (; s->ncum <= i; s->ncum++) {
        pto_k__swrite *x = &s->w[s->ncum];
        if (!x->cum) x->cum = pto_k__vc_new(dev);
        if (!x->cum) return NULL;
        memset(x->cum, 0, sizeof(uint32_t) * (size_t)dev->ngp);
        pto_k__vc_join(dev, x->cum, x->vc);
        if (x->add && s->ncum > 0) pto_k__vc_join(dev, x->cum, s->w[s->ncum - 1].cum);
    }
    return s->w[i].cum;
}

PTO_K_FN void pto_k_notify(pto_k_core *c, const char *src, pto_k_gm *sig, int64_t row, int64_t col, int32_t value, int op)
{
    pto_k__ins ins = pto_k__mk(PTO_K__SET_FLAG, PTO_K_PIPE_S, src);
    const char *name = op == PTO_K_NOTIFY_ADD ? "notify add" : "notify set";
    pto_k__signal *s;
    pto_k__swrite nw;
    pto_k__check k;
    int32_t *cell;
    int64_t t;
    if (c->dead || !pto_k__sig_ok(c, &ins, sig, row, col)) return;
    if (!pto_k__sig(c->dev, sig, row * sig->cols + col)) return;
    pto_k__yield(c); /* any peer may move first */
    ins.disp = c->disp++;
    pto_k__begin(&k, c, &ins, PTO_K_PIPE_S);   /* ticks the scalar clock: the stamp nw.vc carries */
    k.cur.op = name;
    t = pto_k__timed(c, PTO_K_PIPE_S, ins.disp, 1, name, src);
    s = pto_k__sig(c->dev, sig, row * sig->cols + col); /* the yield may have moved dev->sigs */
    memset(&nw, 0, sizeof nw);
    nw.vis = t + PTO_K__XLAT;
    nw.core = c->index;
    nw.seq = c->clk[PTO_K_PIPE_S];
    nw.add = op == PTO_K_NOTIFY_ADD;
    nw.value = value;
    nw.src = src;
    nw.vc = pto_k__vc_new(c->dev);
    if (nw.vc) {
        pto_k__vc_join(c->dev, nw.vc, c->vc[PTO_K_PIPE_S]);
        nw.vc[c->index * 8 + PTO_K_PIPE_S] = c->clk[PTO_K_PIPE_S];
    }
    if (s) pto_k__sig_record(c, s, &nw);
    else free(nw.vc);
    /* The cell is GM bytes like any other: a set is a write, an add an atomic
       add (adds commute, so counting peers need no order among them), both
       on the scalar pipe. A set against an unordered add or set, or either
       against an unordered tload / tstore of the cell, leaves the result to
       whichever lands last: a race, ordered only by a notify -> wait chain
       (a wait joins the clocks of the writes it saw). */
    pto_k__gacc(&k, sig, row, col, 1, 1, op == PTO_K_NOTIFY_ADD ? PTO_K__AT : PTO_K__WR);
    pto_k__mark_written(c, sig, row, col, 1, 1);   /* an out signal is written by notify */
    cell = (int32_t *)sig->data + row * sig->cols + col;
    if (op == PTO_K_NOTIFY_ADD)
        *cell = (int32_t)((uint32_t)*cell + (uint32_t)value);
    else
        *cell = value;
    pto_k__yield(c);
}

typedef struct pto_k__swait {
    pto_k_gm *g;
    int64_t r, col;
    int sig;               /* index into dev->sigs */
    int cmp;
    int32_t value;
    int64_t t0;            /* when the waiting core starts polling */
    uint32_t ver;          /* the history `when` was computed for (+1; 0: none) */
    int64_t when;
    int at;
} pto_k__swait;

PTO_K_FN const char *pto_k__cmp_name(int cmp)
{
    static const char *const n[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    return cmp >= 0 && cmp <= 5 ? n[cmp] : "?";
}

PTO_K_FN int pto_k__cmp_holds(int32_t v, int cmp, int32_t value)
{
    switch (cmp) {
    case PTO_K_EQ: return v == value;
    case PTO_K_NE: return v != value;
    case PTO_K_LT: return v < value;
    case PTO_K_LE: return v <= value;
    case PTO_K_GT: return v > value;
    default: return v >= value;
    }
}

/* When a wait that starts polling at t0 first sees `cell cmp value` in the
   writes known so far (-1: it does not), and the last write it has seen
   then (*at; -1: none). */
PTO_K_FN int64_t pto_k__sig_when(pto_k__signal *s, int64_t t0, int cmp, int32_t value, int *at)
{
    int lo = 0, hi = s->nw, i;
    while (lo < hi) { /* the first write that lands after t0 */
        int mid = lo + (hi - lo) / 2;
        if (s->w[mid].vis <= t0) lo = mid + 1;
        else hi = mid;
    }
    *at = lo - 1;
    if (pto_k__cmp_holds(pto_k__sig_value(s, lo - 1), cmp, value)) return t0;
    for (i = lo; i < s->nw; i++)
        if (pto_k__cmp_holds(pto_k__sig_value(s, i), cmp, value)) {
            *at = i;
            return s->w[i].vis;
        }
    return -1;
}

/* The scheduler asks at every pick: recomputed only when the cell changed. */
PTO_K_FN int64_t pto_k__sig_waiter_when(pto_k_core *c, void *arg)
{
    pto_k__swait *w = (pto_k__swait *)arg;
    pto_k__signal *s = &c->dev->sigs[w->sig];
    if (w->ver != s->ver + 1) {
        w->when = pto_k__sig_when(s, w->t0, w->cmp, w->value, &w->at);
        w->ver = s->ver + 1;
    }
    return w->when;
}

PTO_K_FN void pto_k__sig_desc(pto_k_core *c, const void *arg, char *out, size_t n)
{
    const pto_k__swait *w = (const pto_k__swait *)arg;
    char nm[80];
    pto_k__gm_label(c, w->g, nm, sizeof nm);
    snprintf(out, n, "wait(%s[%lld, %lld] %s %d) can never be satisfied: the cell holds %d and no running core changes it",
             nm, (long long)w->r, (long long)w->col, pto_k__cmp_name(w->cmp), (int)w->value,
             (int)((const int32_t *)w->g->data)[w->r * w->g->cols + w->col]);
}

PTO_K_FN void pto_k__sig_done(pto_k_core *c, const pto_k__swait *sw, int at, int64_t t, const char *src)
{
    pto_k_device *dev = c->dev;
    int cap = dev->capsdone;
    pto_k__sdone *d;
    dev->sdone = (pto_k__sdone *)pto_k__grow(dev, dev->sdone, &cap, dev->nsdone + 1, sizeof *dev->sdone);
    dev->capsdone = cap;
    if (dev->nsdone + 1 > cap) return;
    d = &dev->sdone[dev->nsdone++];
    d->sig = sw->sig, d->at = at, d->core = c->index, d->cmp = sw->cmp, d->value = sw->value;
    d->stamp = c->clk[PTO_K_PIPE_S], d->time = t, d->src = src;
}

/* A wait returns at the first simulated time at or after it starts polling
   when the cell's history meets the condition (the scheduler releases it
   only once no write still to come can land earlier), and is ordered after
   the writes it saw: neither depends on the order the cores ran in. */
PTO_K_FN void pto_k_wait(pto_k_core *c, const char *src, pto_k_gm *sig, int64_t row, int64_t col, int cmp, int32_t value)
{
    pto_k__ins ins = pto_k__mk(PTO_K__WAIT_FLAG, PTO_K_PIPE_S, src);
    pto_k__swait sw;
    pto_k__waiter w;
    pto_k__signal *s;
    int p;
    if (c->dead || !pto_k__sig_ok(c, &ins, sig, row, col)) return;
    if (cmp < 0 || cmp > 5) {
        pto_k__ierr(c, &ins, PTO_K_E_USAGE, "wait: no comparison %d", cmp);
        return;
    }
    s = pto_k__sig(c->dev, sig, row * sig->cols + col);
    if (!s) return;
    memset(&sw, 0, sizeof sw);
    sw.g = sig, sw.r = row, sw.col = col, sw.cmp = cmp, sw.value = value;
    sw.sig = (int)(s - c->dev->sigs);
    sw.t0 = c->free_at[PTO_K_PIPE_S] > c->disp ? c->free_at[PTO_K_PIPE_S] : c->disp;
    memset(&w, 0, sizeof w);
    w.when = pto_k__sig_waiter_when;
    w.describe = pto_k__sig_desc;
    w.arg = &sw;
    w.src = src;
    pto_k__block(c, &w);
    if (c->dead) return;
    s = &c->dev->sigs[sw.sig];
    /* = c->wake, and the same write: every write recorded since lands later */
    if (pto_k__sig_waiter_when(c, &sw) < 0) return;
    ins.disp = c->disp++;
    pto_k__stall(c, PTO_K_PIPE_S, PTO_K_WAIT_SIGNAL, sw.t0, sw.when, src);
    pto_k__join_at(c, sw.at >= 0 ? pto_k__sig_cum(c->dev, s, sw.at) : NULL, sw.when, src, PTO_K_WAIT_SIGNAL);
    /* the scalar unit stalled: everything c issues later is after the wait */
    c->clk[PTO_K_PIPE_S]++;
    for (p = 0; p < PTO_K_PIPE_ALL; p++)
        if (c->vc[p]) c->vc[p][c->index * 8 + PTO_K_PIPE_S] = c->clk[PTO_K_PIPE_S];
    pto_k__sig_done(c, &sw, sw.at, sw.when, src);
    pto_k__timed(c, PTO_K_PIPE_S, c->disp, 1, "wait", src);
}

/* Could a later write undo what wait d saw before it polls? The writes
   after the one it saw, one at a time, that nothing orders after the wait
   (on hardware they may land first): if one of them, applied to the value
   the wait saw, breaks the condition, a wait that polls a little later
   than here never returns. Typical: EQ on a counter that a fast peer moves
   on (wait for GE instead). Returns the index of such a write, or -1. Once
   a core has made a write ordered after the wait, its later writes are too
   (program order): the scan stops when every writer of the cell has. */
PTO_K_FN int pto_k__sig_undone(pto_k__signal *s, const pto_k__sdone *d, unsigned char *after,
                               int nwriters)
{
    int32_t v = pto_k__sig_value(s, d->at);
    int j, nafter = 0, hit = -1;
    for (j = d->at + 1; j < s->nw && nafter < nwriters && hit < 0; j++) {
        const pto_k__swrite *x = &s->w[j];
        if (after[x->core]) continue;
        if (x->vc && x->vc[d->core * 8 + PTO_K_PIPE_S] >= d->stamp) {
            after[x->core] = 1;
            nafter++;
        } else if (!pto_k__cmp_holds(pto_k__swrite_apply(v, x), d->cmp, d->value)) {
            hit = j;
        }
    }
    for (j = d->at + 1; j < s->nw; j++) after[s->w[j].core] = 0;
    return hit;
}

/* Waits in simulated time (the order they ran in is the seed's). */
PTO_K_FN int pto_k__sdone_cmp(const void *a, const void *b)
{
    const pto_k__sdone *x = (const pto_k__sdone *)a, *y = (const pto_k__sdone *)b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    if (x->core != y->core) return x->core < y->core ? -1 : 1;
    return x->stamp < y->stamp ? -1 : x->stamp > y->stamp;
}

/* At the end of a launch: every wait that a write could have undone (see
   pto_k__sig_undone), reported once per pair of source lines. */
PTO_K_FN void pto_k__sig_end(pto_k_device *dev)
{
    unsigned char *mark;
    int i, j, k;
    if (dev->nsdone == 0) return;
    qsort(dev->sdone, (size_t)dev->nsdone, sizeof *dev->sdone, pto_k__sdone_cmp);
    mark = (unsigned char *)calloc((size_t)dev->ncores, 1);
    if (!mark) {
        dev->oom = 1;
        return;
    }
    for (i = 0; i < dev->nsigs; i++) {
        pto_k__signal *s = &dev->sigs[i];
        int nwriters = 0;
        for (j = 0; j < s->nw; j++)
            if (!mark[s->w[j].core]) mark[s->w[j].core] = 1, nwriters++;
        for (j = 0; j < s->nw; j++) mark[s->w[j].core] = 0;
        for (k = 0; k < dev->nsdone; k++) {
            const pto_k__sdone *d = &dev->sdone[k];
            pto_k_core *c = &dev->cores[d->core];
            const pto_k__swrite *x;
            char nm[80], who[64], them[64];
            if (d->sig != i || (j = pto_k__sig_undone(s, d, mark, nwriters)) < 0) continue;
            x = &s->w[j];
            if (!pto_k__first_report(dev, d->src, x->src, 64)) continue;
            pto_k__gm_label(c, s->g, nm, sizeof nm);
            pto_k__core_name(c, who, sizeof who);
            pto_k__core_name(&dev->cores[x->core], them, sizeof them);
            pto_k__err(dev, PTO_K_E_DEADLOCK,
                       "%s: error: deadlock: wait(%s[%lld, %lld] %s %d) may never return: it saw the cell hold %d at "
                       "cycle %lld, but \"%s\" (%s), which nothing orders after this wait, makes it %d; landing a "
                       "little earlier (another timing), it leaves the wait polling forever; wait for a bound the cell "
                       "keeps (GE on a counter) (%s)",
                       d->src, nm, (long long)(s->idx / s->g->cols), (long long)(s->idx % s->g->cols),
                       pto_k__cmp_name(d->cmp), (int)d->value, (int)pto_k__sig_value(s, d->at), (long long)d->time,
                       x->src, them, (int)pto_k__swrite_apply(pto_k__sig_value(s, d->at), x), who);
        }
    }
    free(mark);
}
