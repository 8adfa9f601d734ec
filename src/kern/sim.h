/* sim.h - the model behind the device API: memories, pipes, the race
   detector, flags, the cycle model and the scheduler.

   Three concerns are kept apart (simulator-notes.md):

   Values. Each core executes its instructions in program order, except that
   an instruction whose pipe is blocked in a wait_flag is queued behind that
   wait and runs when the matching set_flag releases the pipe (the scalar
   unit keeps dispatching to the other pipes, as on hardware). A wait on S
   is the exception: S is the scalar unit, which stalls in it, so its set
   must have been issued before it (else a deadlock), and nothing after it
   dispatches before the set fired. So a race-free kernel computes what the
   hardware computes.

   Order. Every pipe of every core has a global index gp = core * 8 + pipe
   and a vector clock vc[pipe][gp']: how far pipe gp' is known to have
   completed. An instruction ticks clk[pipe] and is stamped with it.
   set_flag publishes the source pipe's clock (its own component = every
   instruction it has issued), wait_flag joins it into the waiting pipe;
   cross-core flags, ring slots and GM signals carry clocks the same way
   (the waiting core's scalar unit stalls, so they join into every pipe).
   Same-pipe order: the MTE, FIX and S queues complete in order; V and M may
   overlap consecutive instructions, so there vc[p][own] only moves at a
   pipe_barrier (or a join) - that is the barrier epoch. Shadow memory per
   32-byte granule of every local space and every GM tensor keeps the last
   write and, per pipe, the latest read (or atomic add) since; an access not
   ordered after a conflicting one is a race, reported once per pair of
   source lines with both instructions, pipes, cores and the byte range. In
   local memory any two accesses of a granule conflict (a DMA moves whole
   blocks), so the records keep the union of their bytes; in GM a read and
   a write of different bytes do not, so there each byte keeps its own
   latest read per pipe and its own latest writer (pto_k__add_read,
   pto_k__gm_write); a granule's reads are grouped by pipe, newest first, so
   a check skips every read of a pipe it is ordered after at once
   (pto_k__read).

   Initialised bytes. The same shadow granules of the local spaces keep a
   mask of the bytes written since the launch or the latest pto_k_tdecl of
   a tile covering them, and that tdecl's issue number; ops.h checks every
   read against it (the rules are there).

   Time. Each pipe has a clock (free_at). The scalar unit dispatches one
   instruction per cycle; an instruction starts at max(its pipe's free time,
   its dispatch time) and lasts its cost (the table in ops.h, from
   hardware.md section 9). A wait starts the waiting pipe no earlier than
   the set fired (plus 1000 cycles across cores); pipe_barrier(ALL) aligns
   every pipe. Busy cycles per pipe feed the report. Time never depends on
   the order the cores happened to run in: every wait joins the event the
   hardware waits for (mix.h says which), at its simulated time.

   Scheduler. Each core runs on its own thread, but only the holder of the
   baton runs. The baton passes at blocking points (cross-core wait, ring
   push/pop, signal wait, signals sent, core end) to a runnable core chosen
   by a seeded xorshift generator, so a seed reproduces a run and different
   seeds explore different interleavings. A wait for a particular event (a
   flag, a ring slot) can run once the event exists; a wait on a signal
   cell only once no write still to come can land before the time it would
   return (pto_k__mark_runnable). No runnable core while some are
   blocked is a deadlock: each blocked wait is reported and its core is put
   in `dead` mode, where every instruction returns at once (kernels have no
   data-dependent control flow, so they still run to their end).

   Budget. A launch runs at most its max_instr tile instructions over all
   cores (pto_k__tick): past that it reports once and every core leaves its
   kernel function, so a runaway loop ends with a report, not a hang.

   Nothing here is global: all state hangs off the pto_k_device. */

#define PTO_K__GRAN 32
#define PTO_K__XLAT 1000 /* cross-core / cross-rank signal latency, cycles (hardware.md 9) */

/* One recorded access of the shadow memory. */
typedef struct pto_k__acc {
    const char *src;
    const char *op;
    int32_t gp;            /* core * 8 + pipe */
    uint32_t clk;          /* stamp on its pipe */
    int atomic;            /* an atomic add (commutes with other atomics); in a GM granule's read
                              list, PTO_K__OLDW: an earlier writer of the bytes still set (below) */
    uint32_t bytes;        /* kept in a granule: the bytes of it the access touched (bit i = byte i) */
} pto_k__acc;

/* A granule's reads are grouped by (gp, atomic): its list links each
   group's newest entry (next); a group's older entries hang off that one
   (older), newest first, so their clocks only fall (one pipe's stamps
   grow). A check skips a whole group when its newest is ordered, and an
   update walks only its own group: 48 cores reading the 4-byte columns of
   shared 32-byte rows left 384 entries in every granule, each walked by
   every access (bench/repro/gm_shadow_cols: 33x slower than per-block). */
typedef struct pto_k__read {
    pto_k__acc a;
    int32_t next;          /* newest entry of a group: the next group's newest, -1 = none;
                              free entries: the next free one */
    int32_t older;         /* the group's next older entry, -1 = none */
} pto_k__read;

typedef struct pto_k__gran {
    pto_k__acc w;          /* w.src == NULL: not written in this launch */
    int32_t reads;         /* list in the device's read pool, -1 = none */
    uint32_t init;         /* local spaces: bit i = byte i of the granule holds a written value */
    uint32_t decl;         /* issue number of the latest pto_k_tdecl covering it (0 = none) */
    const char *dsrc;      /* and its source location (reports name the tile by it) */
} pto_k__gran;

typedef struct pto_k__shadow {
    pto_k__gran *g;
    int64_t n;
} pto_k__shadow;

/* An instruction as dispatched: everything it needs, by value, so that it can
   wait in a blocked pipe's queue. */
typedef struct pto_k__ins {
    int op, pipe;
    const char *src;
    pto_k_tile d, a, b;
    pto_k_gm *g;
    int64_t r, col;
    double s;
    int p0, p1, id;
    int64_t disp;          /* dispatch time */
    uint32_t seq;          /* issue number on its core (program order; 0 = not issued) */
    const char *name;      /* for reports when op's name is not the instruction's (tpush, tpop) */
} pto_k__ins;

typedef struct pto_k__queue {
    pto_k__ins *v;
    int n, cap;
} pto_k__queue;

/* A published clock and time (a set flag, a ring slot, a signal cell). */
typedef struct pto_k__sync {
    uint32_t *vc;
    int64_t time;
    const char *src;
} pto_k__sync;

typedef struct pto_k__ring1 {  /* one direction of a ring */
    int used;
    int64_t pushed[2], popped[2], freed[2];  /* per AIV (index 0 for the AIC) */
    int64_t released[2];       /* slots handed back to the producer: at the pop's load end on a2a3
                                  (pto-isa's TPOP frees the slot; TFREE is empty), at the tfree on a5 */
    int producers, consumers;  /* bit masks of AIV subblocks taking part (C2V consumers / V2C producers) */
    pto_k__sync *slot;         /* per GM slot: the push's clock */
    pto_k__sync *freeslot;     /* per GM slot: the releases of the data it last held (every consumer's) */
    int *slot_dtype;
    int32_t *slot_rows, *slot_cols;
    const char *pop_src[2];
} pto_k__ring1;

typedef struct pto_k__ring {
    int inited;                /* bit 0 AIC, bit 1 AIV0, bit 2 AIV1 */
    int dir, split, flag_id;
    int32_t slot_size, slot_num, local_slot_num;
    const char *init_src;
    int init_core;
    pto_k_gm *buf;
    int64_t buf_offset;
    unsigned char *own;        /* slots kept by the simulator when buf is NULL */
    pto_k__ring1 d[2];         /* [0] C2V, [1] V2C */
} pto_k__ring;

#define PTO_K__XDEPTH 16 /* pending sets a cross-core counter can hold (4 bits) + 1 */

typedef struct pto_k__cluster {
    int cnt[2][2][PTO_K_NCROSS];          /* [0 = to AIV, 1 = to AIC][subblock][id] */
    int head[2][2][PTO_K_NCROSS];         /* the oldest pending set in xq */
    pto_k__sync *xq[2][2][PTO_K_NCROSS];  /* PTO_K__XDEPTH pending sets, oldest at head (NULL until one) */
    pto_k__ring ring[PTO_K_NRING];
} pto_k__cluster;

/* One notify that reached a signal cell. */
typedef struct pto_k__swrite {
    int64_t vis;           /* when the cell shows it: the notify's end + PTO_K__XLAT */
    int core;              /* with seq: the order of writes visible in the same cycle */
    uint32_t seq;
    int add;               /* PTO_K_NOTIFY_ADD (else a set) */
    int32_t value;
    uint32_t *vc;          /* what the notifying core had ordered before it */
    const char *src;
    /* derived from the writes up to this one (valid below nval / ncum): */
    int32_t after;         /* the cell's value once this write landed */
    uint32_t *cum;         /* what a wait that saw this write is ordered after */
} pto_k__swrite;

/* A signal cell's history in simulated time. The cell's bytes in GM change
   in the order the cores happen to run; waits read this history instead, so
   what they see and when does not depend on that order. Writes mostly
   arrive in time order; one that lands before others already recorded
   invalidates the derived fields from its place on. */
typedef struct pto_k__signal {
    pto_k_gm *g;
    int64_t idx;
    int32_t init;          /* the cell when the launch first used it */
    pto_k__swrite *w;      /* sorted by (vis, core, seq) */
    int nw, capw;
    int nval, ncum;        /* w[i].after is valid for i < nval, w[i].cum for i < ncum */
    uint32_t ver;          /* counts the writes recorded (waits cache on it) */
} pto_k__signal;

/* A wait that returned: checked again at the end of the launch against the
   writes that came after it (pto_k__sig_end). */
typedef struct pto_k__sdone {
    int sig;               /* index into dev->sigs */
    int at;                /* the last write the wait saw (-1: none) */
    int core, cmp;
    int32_t value;
    uint32_t stamp;        /* the wait's clock on the waiting core's S pipe */
    int64_t time;          /* when it returned */
    const char *src;
} pto_k__sdone;

typedef struct pto_k__event {
    int core, pipe;            /* core: the trace process (pto_k__tproc index) */
    const char *name, *src;
    int64_t start, dur;
} pto_k__event;

/* A core of one launch in the trace: a host runs several kernels on one
   device, each launch's cores get processes of their own and its events
   follow the previous launch's end, so one file shows the whole run. */
typedef struct pto_k__tproc {
    char who[64], kernel[64];  /* the core ("block 0 aiv0") and its launch's kernel name */
    int launch;
} pto_k__tproc;

/* Where a pipe of a core sat waiting (a wait_flag, a signal wait, a
   PIPE_ALL barrier) and for how many cycles in all: the report explains
   the busiest pipe's idle time with it (pto_k_report.idle). */
#define PTO_K__NSITE 32
typedef struct pto_k__site {
    const char *src;           /* the waiting statement's "file:line" */
    int pipe, from;            /* pto_k_wait_site.from */
    int64_t cycles;
    int64_t pend;              /* of them, since its pipe's last instruction (pto_k__timed) */
} pto_k__site;

struct pto_k_core {
    pto_k_device *dev;
    int index, kind, rank;
    int64_t block, block_num, subblock;
    int cluster;
    unsigned char *mem[PTO_K_NSPACE];
    pto_k__shadow sh[PTO_K_NSPACE];
    uint32_t clk[PTO_K_NPIPE];
    uint32_t *vc[PTO_K_NPIPE];
    int flag_set[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    /* the latest wait_flag of each id: the waiting pipe's clock it ticked
       (0 = none yet) and its source line; the next set of the id must know
       that tick (ops.h, pto_k__x_set) */
    uint32_t flag_waited[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    const char *flag_wsrc[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    /* ... and the set's pipe's clock then (a race report tells a set issued
       before the access it should follow from a missing one) */
    uint32_t flag_wpclk[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    pto_k__sync flag[PTO_K_NPIPE][PTO_K_NPIPE][PTO_K_NFLAG];
    pto_k__queue q[PTO_K_NPIPE];
    int nblocked;
    int64_t disp;
    int64_t free_at[PTO_K_NPIPE], busy[PTO_K_NPIPE];
    pto_k__site site[PTO_K__NSITE];
    int nsite;
    int64_t site_other[PTO_K_NPIPE]; /* waits past PTO_K__NSITE sites */
    /* a pipe's waits since its last instruction (site.pend; the sites with
       some, and site_other's share): they count only once an instruction of
       the pipe follows (a drain at the end of a kernel delays nothing);
       pto_k__fill_sites takes back what is left */
    int npend[PTO_K_NPIPE];
    int pend_site[PTO_K_NPIPE][PTO_K__NSITE];
    int64_t other_pend[PTO_K_NPIPE];
    int64_t ninstr;
    uint32_t seq;              /* instructions issued so far (numbers pto_k__ins.seq) */
    /* scheduling */
    int state;                 /* PTO_K__NEW, RUN, DONE */
    int dead;
    /* a wait on S that stalls the scalar unit for good: its report waits for
       the kernel's end (pto_k__sstall_end), which tells whether the set it
       needs comes later in program order (the dead core still calls in) */
    pto_k__ins sst;            /* the stalled wait_flag(X, S) (seq 0: none) */
    pto_k__ins sroot;          /* the first blocked wait of its set's chain (seq 0: its set was not issued) */
    const char *sset;          /* that set's source line (queued on pipe sset_pipe) */
    int sset_pipe;
    const char *slater;        /* the set_flag issued after the stall that would release sroot (or sst) */
    int can_run;               /* set by pto_k__pick */
    int64_t wake;              /* a timed wait: when the scheduler released it (-1: not yet) */
    const void *parg;
    char waitmsg[400];
    pthread_t th;
    const int64_t *args;
    jmp_buf stop;              /* the instruction budget's way out of the kernel function */
};

enum { PTO_K__NEW, PTO_K__RUN, PTO_K__DONE };

struct pto_k_device {
    pto_k_device_desc desc;
    pto_k_gm **gms;
    int ngms, capgms;
    pto_k__shadow *gsh;        /* per gm id */
    /* the launch */
    const pto_k_launch_desc *ld;
    pto_k_core *cores;
    int ncores, ngp;
    pto_k__cluster *clusters;
    int nclusters;
    int64_t *rargs;            /* per-rank args: nranks x nargs */
    pto_k__signal *sigs;
    int nsigs, capsigs;
    pto_k__sdone *sdone;
    int nsdone, capsdone;
    pto_k__read *rp;
    int32_t nrp, caprp, rfree;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running, ndone;
    uint64_t rng;
    int64_t ninstr_all, max_instr; /* the instruction budget of the launch */
    int stopped;               /* it ran out: every core leaves its kernel function */
    /* results */
    pto_k_report rep;
    int caperr;
    const void **pairs;        /* reported (src, src, kind) triples */
    int npairs, cappairs;
    pto_k__event *ev;          /* trace events of every launch so far (see pto_k__write_trace) */
    int nev, capev;
    pto_k__tproc *tproc;       /* trace processes (cores) of every launch so far */
    int ntproc, captproc, ntlaunch;
    int64_t trace_t0;          /* where this launch starts on the trace's time axis */
    /* what pto_k_gm_at gives for a rank outside [0, nranks) once it has said so: an access
       to it is dropped (no data, no race record), so no follow-on report of a copy it was
       not meant for (review26b L4: it used to land on the core's own copy and race there) */
    pto_k_gm nowhere;
    int dropped;               /* accesses given nowhere so far */
    int oom;
};

/* ---- small helpers ------------------------------------------------------- */

PTO_K_FN void *pto_k__grow(pto_k_device *dev, void *p, int *cap, int need, size_t elem)
{
    int nc;
    void *q;
    if (need <= *cap) return p;
    nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    q = realloc(p, (size_t)nc * elem);
    if (!q) {
        dev->oom = 1;
        return p;
    }
    *cap = nc;
    return q;
}

PTO_K_FN int pto_k__dsize(int dt) { return dt == PTO_K_F32 || dt == PTO_K_I32 ? 4 : dt == PTO_K_I8 ? 1 : 2; }

PTO_K_FN const char *pto_k__pipe_name(int p)
{
    static const char *const n[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};
    return p >= 0 && p < PTO_K_NPIPE ? n[p] : "?";
}

PTO_K_FN const char *pto_k__space_name(int s)
{
    static const char *const n[] = {"gm", "vec", "mat", "left", "right", "acc", "bias", "scaling"};
    return s >= 0 && s < PTO_K_NSPACE ? n[s] : "?";
}

PTO_K_FN const char *pto_k__dtype_name(int d)
{
    static const char *const n[] = {"none", "f32", "f16", "bf16", "i32", "i8"};
    return d >= 0 && d <= PTO_K_I8 ? n[d] : "?";
}

PTO_K_FN int64_t pto_k__capacity(int arch, int space)
{
    static const int64_t a2a3[PTO_K_NSPACE] = {0, 196608, 524288, 65536, 65536, 131072, 1024, 2048};
    static const int64_t a5[PTO_K_NSPACE] = {0, 262144, 524288, 65536, 65536, 262144, 4096, 4096};
    if (space <= 0 || space >= PTO_K_NSPACE) return 0;
    return arch == PTO_K_A5 ? a5[space] : a2a3[space];
}

/* "block 3 aiv1" / "rank 1 block 0 aic" */
PTO_K_FN void pto_k__core_name(const pto_k_core *c, char *out, size_t n)
{
    char r[32] = "";
    if (c->dev->desc.nranks > 1) snprintf(r, sizeof r, "rank %d ", c->rank);
    if (c->kind == PTO_K_CORE_CUBE)
        snprintf(out, n, "%sblock %lld aic", r, (long long)c->block);
    else
        snprintf(out, n, "%sblock %lld aiv%lld", r, (long long)c->block, (long long)c->subblock);
}

PTO_K_FN uint64_t pto_k__rand(pto_k_device *dev)
{
    uint64_t x = dev->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    dev->rng = x;
    return x * 2685821657736338717ull;
}

/* ---- errors ---------------------------------------------------------------- */

PTO_K_FN void pto_k__verr(pto_k_device *dev, int kind, const char *fmt, va_list ap)
{
    char buf[1200];
    pto_k_error *e;
    size_t n;
    int cap = dev->caperr;
    int max = dev->desc.max_errors > 0 ? dev->desc.max_errors : 100;
    if (dev->rep.nerrors >= max) {
        dev->rep.suppressed++;
        return;
    }
    vsnprintf(buf, sizeof buf, fmt, ap);
    dev->rep.errors = (pto_k_error *)pto_k__grow(dev, dev->rep.errors, &cap, dev->rep.nerrors + 1, sizeof *e);
    dev->caperr = cap;
    if (dev->rep.nerrors + 1 > cap) return;
    e = &dev->rep.errors[dev->rep.nerrors];
    n = strlen(buf);
    e->msg = (char *)malloc(n + 1);
    if (!e->msg) {
        dev->oom = 1;
        return;
    }
    memcpy(e->msg, buf, n + 1);
    e->kind = kind;
    dev->rep.nerrors++;
}

PTO_K_FN void pto_k__err(pto_k_device *dev, int kind, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
PTO_K_FN void pto_k__err(pto_k_device *dev, int kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pto_k__verr(dev, kind, fmt, ap);
    va_end(ap);
}

/* Errors about one instruction start with its source line and core. */
PTO_K_FN void pto_k__ierr(pto_k_core *c, const pto_k__ins *ins, int kind, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
PTO_K_FN void pto_k__ierr(pto_k_core *c, const pto_k__ins *ins, int kind, const char *fmt, ...)
{
    char msg[900], who[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pto_k__core_name(c, who, sizeof who);
    pto_k__err(c->dev, kind, "%s: error: %s (%s)", ins->src ? ins->src : "?", msg, who);
}

/* Once per (a, b, kind): loops repeat a race every iteration. */
PTO_K_FN int pto_k__first_report(pto_k_device *dev, const void *a, const void *b, int kind)
{
    int i, cap = dev->cappairs;
    for (i = 0; i < dev->npairs; i += 3)
        if (dev->pairs[i] == a && dev->pairs[i + 1] == b && dev->pairs[i + 2] == (const void *)(size_t)kind) {
            dev->rep.suppressed++;
            return 0;
        }
    dev->pairs = (const void **)pto_k__grow(dev, (void *)dev->pairs, &cap, dev->npairs + 3, sizeof(void *));
    dev->cappairs = cap;
    if (dev->npairs + 3 <= cap) {
        dev->pairs[dev->npairs++] = a;
        dev->pairs[dev->npairs++] = b;
        dev->pairs[dev->npairs++] = (const void *)(size_t)kind;
    }
    return 1;
}

/* ---- vector clocks ---------------------------------------------------------- */

PTO_K_FN uint32_t *pto_k__vc_new(pto_k_device *dev)
{
    uint32_t *v = (uint32_t *)calloc((size_t)dev->ngp, sizeof(uint32_t));
    if (!v) dev->oom = 1;
    return v;
}

PTO_K_FN void pto_k__vc_join(pto_k_device *dev, uint32_t *dst, const uint32_t *src)
{
    int i;
    if (!dst || !src) return;
    for (i = 0; i < dev->ngp; i++)
        if (src[i] > dst[i]) dst[i] = src[i];
}

/* What pipe p of c has completed when everything it issued is done. */
PTO_K_FN void pto_k__publish(pto_k_core *c, int p, pto_k__sync *s, int64_t time, const char *src)
{
    pto_k_device *dev = c->dev;
    if (!s->vc) s->vc = pto_k__vc_new(dev);
    if (!s->vc) return;
    pto_k__vc_join(dev, s->vc, c->vc[p]);
    if (s->vc[c->index * 8 + p] < c->clk[p]) s->vc[c->index * 8 + p] = c->clk[p];
    if (time > s->time) s->time = time;
    s->src = src;
}

/* The scalar unit waited until t for what vc describes: every later
   instruction of c is after it, in order and in time. */
PTO_K_FN void pto_k__waited(pto_k_core *c, int pipe, int from, int64_t cycles, const char *src);

PTO_K_FN void pto_k__join_at(pto_k_core *c, const uint32_t *vc, int64_t t, const char *src, int from)
{
    int p;
    for (p = 0; p < PTO_K_PIPE_ALL; p++) {
        pto_k__vc_join(c->dev, c->vc[p], vc);
        if (c->free_at[p] < t) {   /* every pipe's next instruction waits with the scalar unit */
            pto_k__waited(c, p, from, t - (c->free_at[p] > c->disp ? c->free_at[p] : c->disp), src);
            c->free_at[p] = t;
        }
    }
    if (c->disp < t) c->disp = t;
}

/* ... for the event s, which reaches c `latency` cycles after it fired. */
PTO_K_FN void pto_k__join_all(pto_k_core *c, const pto_k__sync *s, int64_t latency, const char *src, int from)
{
    pto_k__join_at(c, s->vc, s->time + latency, src, from);
}

/* Is `prev` ordered before the current instruction on pipe p of c? */
PTO_K_FN int pto_k__ordered(const pto_k_core *c, int p, const pto_k__acc *prev)
{
    int gp = c->index * 8 + p;
    if (prev->gp == gp && p != PTO_K_PIPE_V && p != PTO_K_PIPE_M) return 1; /* in-order queue */
    return c->vc[p][prev->gp] >= prev->clk;
}

/* ---- shadow memory and the race detector ------------------------------------ */

enum { PTO_K__RD, PTO_K__WR, PTO_K__AT, PTO_K__OLDW }; /* read, write, atomic add; OLDW: pto_k__gm_write */

typedef struct pto_k__conflict {
    pto_k__acc prev;
    int prevkind;          /* what prev did: PTO_K__RD / WR / AT */
    int64_t lo, hi;
    int apart;             /* in every granule they share, the two touch different bytes */
} pto_k__conflict;

#define PTO_K__MAXCONF 8

typedef struct pto_k__check {
    pto_k_core *c;
    const pto_k__ins *ins;
    int pipe;
    pto_k__acc cur;
    pto_k__conflict conf[PTO_K__MAXCONF];
    int nconf;
} pto_k__check;

PTO_K_FN uint32_t pto_k__byte_mask(int64_t from, int64_t to) /* bits [from, to) of 32 */
{
    uint32_t w = to - from >= 32 ? 0xffffffffu : ((1u << (to - from)) - 1u);
    return w << from;
}

PTO_K_FN void pto_k__note(pto_k__check *k, const pto_k__acc *prev, int prevkind, int64_t lo, int64_t hi, uint32_t bytes)
{
    int i, apart = (prev->bytes & bytes) == 0;
    if (prev->gp == k->cur.gp && prev->clk == k->cur.clk) return; /* the same instruction */
    if (pto_k__ordered(k->c, k->pipe, prev)) return;
    for (i = 0; i < k->nconf; i++) {
        pto_k__conflict *f = &k->conf[i];
        if (f->prev.src == prev->src && f->prev.gp == prev->gp && f->prevkind == prevkind) {
            if (lo < f->lo) f->lo = lo;
            if (hi > f->hi) f->hi = hi;
            f->apart &= apart;
            return;
        }
    }
    if (k->nconf == PTO_K__MAXCONF) return;
    k->conf[k->nconf].prev = *prev;
    k->conf[k->nconf].prevkind = prevkind;
    k->conf[k->nconf].lo = lo;
    k->conf[k->nconf].hi = hi;
    k->conf[k->nconf].apart = apart;
    k->nconf++;
}

PTO_K_FN void pto_k__free_entry(pto_k_device *dev, int32_t i)
{
    dev->rp[i].next = dev->rfree;
    dev->rfree = i;
}

PTO_K_FN void pto_k__free_reads(pto_k_device *dev, pto_k__gran *g)
{
    int32_t h = g->reads, e, nx;
    while (h >= 0) {
        nx = dev->rp[h].next;
        for (e = h; e >= 0;) {
            int32_t older = dev->rp[e].older;
            pto_k__free_entry(dev, e);
            e = older;
        }
        h = nx;
    }
    g->reads = -1;
}

/* A pool entry holding a copy of a, linked to nothing; -1 when out of memory. */
PTO_K_FN int32_t pto_k__new_read(pto_k_device *dev, const pto_k__acc *a)
{
    int32_t i;
    if (dev->rfree >= 0) {
        i = dev->rfree;
        dev->rfree = dev->rp[i].next;
    } else {
        int cap = dev->caprp;
        dev->rp = (pto_k__read *)pto_k__grow(dev, dev->rp, &cap, dev->nrp + 1, sizeof *dev->rp);
        dev->caprp = cap;
        if (dev->nrp + 1 > cap) return -1;
        i = dev->nrp++;
    }
    dev->rp[i].a = *a;
    dev->rp[i].next = dev->rp[i].older = -1;
    return i;
}

/* The newest entry of g's group of (gp, atomic), or -1; *prevh: the group before it (-1: it is first). */
PTO_K_FN int32_t pto_k__group(const pto_k_device *dev, const pto_k__gran *g, int32_t gp, int atomic, int32_t *prevh)
{
    int32_t h;
    *prevh = -1;
    for (h = g->reads; h >= 0; *prevh = h, h = dev->rp[h].next)
        if (dev->rp[h].a.gp == gp && dev->rp[h].a.atomic == atomic) return h;
    return -1;
}

/* Makes entry i (linked to nothing) the newest of g's group whose newest is
   h (-1: a new group, first in g's list; prevh: the group before h). */
PTO_K_FN void pto_k__push_newest(pto_k_device *dev, pto_k__gran *g, int32_t prevh, int32_t h, int32_t i)
{
    if (h < 0) {
        dev->rp[i].next = g->reads;
        g->reads = i;
        return;
    }
    dev->rp[i].older = h;
    dev->rp[i].next = dev->rp[h].next;
    dev->rp[h].next = -1;
    if (prevh < 0) g->reads = i; else dev->rp[prevh].next = i;
}

/* Unlinks and frees entry e of the group whose newest is *h (pe: the entry
   before e in it, -1 when e is *h); *h becomes the group's new newest (-1:
   the group is gone). Returns the entry after e. */
PTO_K_FN int32_t pto_k__drop_read(pto_k_device *dev, pto_k__gran *g, int32_t prevh, int32_t *h, int32_t pe, int32_t e)
{
    int32_t older = dev->rp[e].older;
    if (pe >= 0) {
        dev->rp[pe].older = older;
    } else {   /* the newest goes: the next older takes its place in g's list */
        int32_t nx = dev->rp[e].next;
        if (older >= 0) dev->rp[older].next = nx; else older = nx;
        if (prevh < 0) g->reads = older; else dev->rp[prevh].next = older;
        *h = dev->rp[e].older;
        older = dev->rp[e].older;
    }
    pto_k__free_entry(dev, e);
    return older;
}

/* Records read (or atomic add) a in g. Local memory: one entry per pipe, the
   latest access superseding the earlier (anything ordered after it is
   ordered after them: the pipe's clock only grows) with the union of their
   bytes, which the block rule makes harmless there. GM (gm) keeps bytes
   exact, since a read and a write of different bytes of one block are no
   race there: per pipe, each byte belongs to the latest read of it, so an
   earlier read keeps only the bytes no later one touched (a union would make
   a store ordered after the earlier read of its bytes look unordered with a
   later read of the other bytes: allreduce's chunk stores on rows that are
   not 32-byte multiples were reported). */
PTO_K_FN void pto_k__add_read(pto_k_device *dev, pto_k__gran *g, const pto_k__acc *a, int gm)
{
    int32_t prevh, h = pto_k__group(dev, g, a->gp, a->atomic, &prevh), e, pe = -1, i;
    if (h >= 0 && !gm) {
        pto_k__acc *r = &dev->rp[h].a;
        uint32_t bytes = r->bytes | a->bytes;   /* the bytes both touched */
        *r = *a; /* a later access of the same pipe supersedes */
        r->bytes = bytes;
        return;
    }
    if (h >= 0 && dev->rp[h].a.clk == a->clk) {   /* another row of the same instruction (the newest) */
        dev->rp[h].a.bytes |= a->bytes;
        pe = h;
        e = dev->rp[h].older;
    } else {
        e = h;
    }
    while (e >= 0) {   /* the older reads lose the bytes read again */
        if ((dev->rp[e].a.bytes &= ~a->bytes) == 0) {
            e = pto_k__drop_read(dev, g, prevh, &h, pe, e);
        } else {
            pe = e;
            e = dev->rp[e].older;
        }
    }
    if (h >= 0 && dev->rp[h].a.clk == a->clk) return;
    if ((i = pto_k__new_read(dev, a)) >= 0) pto_k__push_newest(dev, g, prevh, h, i);
}

/* GM: write w takes its bytes from every earlier access recorded in g (each
   was checked against it just now); entries left with no byte go. Reads of
   other bytes stay (a later writer of those bytes must still be ordered
   after them), and so does the previous writer's share of the bytes w does
   not cover, as a PTO_K__OLDW entry (a later reader of those bytes must be
   ordered after it; keeping only the newest writer lost it). */
PTO_K_FN void pto_k__gm_write(pto_k_device *dev, pto_k__gran *g, const pto_k__acc *w)
{
    int32_t prevh = -1, h = g->reads, e, pe, i;
    pto_k__acc old = g->w;
    while (h >= 0) {
        int32_t hh = h;
        for (pe = -1, e = h; e >= 0;) {
            if ((dev->rp[e].a.bytes &= ~w->bytes) == 0) {
                e = pto_k__drop_read(dev, g, prevh, &hh, pe, e);
            } else {
                pe = e;
                e = dev->rp[e].older;
            }
        }
        if (hh >= 0) prevh = hh;
        h = hh >= 0 ? dev->rp[hh].next : prevh < 0 ? g->reads : dev->rp[prevh].next;
    }
    if (old.src && old.gp == w->gp && old.clk == w->clk) {   /* another row of the same instruction */
        g->w.bytes |= w->bytes;
        return;
    }
    g->w = *w;
    if (old.src && (old.bytes & ~w->bytes)) {
        old.bytes &= ~w->bytes;
        old.atomic = PTO_K__OLDW;   /* this gp's earlier displaced writes are older: it goes first */
        h = pto_k__group(dev, g, old.gp, PTO_K__OLDW, &prevh);
        if ((i = pto_k__new_read(dev, &old)) >= 0) pto_k__push_newest(dev, g, prevh, h, i);
    }
}

/* Local bytes [a, b) of granule g are written again by cur while the
   write still recorded there, by another instruction of this core (local
   shadows are per core), has had no reader: the first such overwrite of the
   launch is kept in the report (pto_k_report.lost). A kernel may legitimately
   write a tile it never reads, so this is no error; but two live tiles
   placed on the same bytes (a hand-edited offset) look exactly like this and
   are otherwise invisible (both writes on one in-order pipe: no race), so the
   harness names it when a result differs with no report to explain it. */
PTO_K_FN void pto_k__lost_write(pto_k__check *k, const pto_k__shadow *sh, const pto_k__gran *g,
                                const pto_k__acc *cur, int64_t a, int64_t b)
{
    pto_k_overwrite *o = &k->c->dev->rep.lost;
    if (o->src || !(g->w.bytes & cur->bytes) || (g->w.gp == cur->gp && g->w.clk == cur->clk)) return;
    if (!cur->src || strcmp(g->w.src, cur->src) == 0) return;   /* one statement again (a loop): not two tiles */
    o->src = cur->src;
    o->op = cur->op;
    o->lost_src = g->w.src;
    o->lost_op = g->w.op;
    pto_k__core_name(k->c, o->core, sizeof o->core);
    o->space = (int)(sh - k->c->sh);
    o->lo = a;
    o->hi = b;
}

/* Checks and records an access of bytes [lo, hi) of a shadow (gm: a GM
   tensor's, where bytes are kept exact: pto_k__add_read, pto_k__gm_write). */
PTO_K_FN void pto_k__access(pto_k__check *k, pto_k__shadow *sh, int64_t lo, int64_t hi, int kind, int gm)
{
    pto_k_device *dev = k->c->dev;
    int64_t g0 = lo / PTO_K__GRAN, g1 = (hi + PTO_K__GRAN - 1) / PTO_K__GRAN, gi;
    pto_k__acc cur = k->cur;
    cur.atomic = kind == PTO_K__AT;
    if (hi <= lo || !sh->g) return;
    if (g1 > sh->n) g1 = sh->n;
    for (gi = g0; gi < g1; gi++) {
        pto_k__gran *g = &sh->g[gi];
        int64_t a = gi * PTO_K__GRAN > lo ? gi * PTO_K__GRAN : lo;
        int64_t b = (gi + 1) * PTO_K__GRAN < hi ? (gi + 1) * PTO_K__GRAN : hi;
        int32_t i;
        cur.bytes = pto_k__byte_mask(a - gi * PTO_K__GRAN, b - gi * PTO_K__GRAN);
        if (g->w.src) pto_k__note(k, &g->w, PTO_K__WR, a, b, cur.bytes);
        for (i = g->reads; i >= 0; i = dev->rp[i].next) {   /* each group's newest */
            const pto_k__acc *r = &dev->rp[i].a;
            int32_t e;
            if (kind == PTO_K__RD && !r->atomic) continue;        /* read after read */
            if (kind == PTO_K__AT && r->atomic == 1) continue;    /* atomics commute */
            if (pto_k__ordered(k->c, k->pipe, r)) continue;       /* and so are its older ones */
            for (e = i; e >= 0; e = dev->rp[e].older)
                pto_k__note(k, &dev->rp[e].a, r->atomic == PTO_K__OLDW ? PTO_K__WR : r->atomic ? PTO_K__AT : PTO_K__RD,
                            a, b, cur.bytes);
        }
        if (kind == PTO_K__WR && gm) {
            pto_k__gm_write(dev, g, &cur);
        } else if (kind == PTO_K__WR) {
            if (g->reads < 0 && g->w.src) pto_k__lost_write(k, sh, g, &cur, a, b);
            pto_k__free_reads(dev, g);
            g->w = cur;
        } else {
            pto_k__add_read(dev, g, &cur, gm);
        }
    }
}

PTO_K_FN const char *pto_k__verb(int kind)
{
    return kind == PTO_K__RD ? "reads" : kind == PTO_K__WR ? "writes" : "atomically adds to";
}

/* A race between pipes pp (prev, an access stamped pclk at source line
   psrc) and q of core c that a flag pair meant to order: a set_flag(pp, q)
   was consumed by a wait on q issued after prev ran, yet the set was issued
   before prev (a hand edit moved it up), and it carries prev's source line,
   as the sync pass labels a set with the access it follows (a set of
   another access's pair, when prev's own pair is missing, stays "missing":
   moving it is not the fix meant). Every id is tried, not only the latest
   set: a WAR pair's set in a double-buffered loop is older than the other
   id's, which the next iteration has set again by the time the writer
   races (review28 M2). Returns that set's id (its sync: *s), or -1. */
PTO_K_FN int pto_k__early_set(const pto_k_core *c, int pp, int q, uint32_t pclk, const char *psrc,
                              const pto_k__sync **s)
{
    int id, best = -1;
    uint32_t own = 0;
    if (!psrc) return -1;
    for (id = 0; id < PTO_K_NFLAG; id++) {
        const pto_k__sync *f = &c->flag[pp][q][id];
        uint32_t at;
        if (!f->src || !f->vc || c->flag_set[pp][q][id] || !c->flag_waited[pp][q][id] ||
            c->flag_wpclk[pp][q][id] < pclk || strcmp(f->src, psrc) != 0)
            continue;
        at = f->vc[c->index * 8 + pp];
        if (at < pclk && (best < 0 || at > own)) {
            best = id;
            own = at;
        }
    }
    if (best >= 0) *s = &c->flag[pp][q][best];
    return best;
}

/* Whether a cross-core race between c and an earlier access of pc may be
   one a consumer's tfree was meant to order: on a2a3, pc has popped a slot
   of a ring of the cluster that c pushes into (the simulator used to
   release the slot at the tfree, as a5 does; the device releases it at
   the pop). Only picks the hint. */
PTO_K_FN int pto_k__tfree_hint(const pto_k_core *c, const pto_k_core *pc)
{
    const pto_k__cluster *cl;
    int ring, k;
    if (c->dev->desc.arch != PTO_K_A2A3 || !c->dev->clusters || c->cluster != pc->cluster || c->kind == pc->kind)
        return 0;
    cl = &c->dev->clusters[c->cluster];
    k = c->kind == PTO_K_CORE_CUBE ? 0 : 1;   /* the direction c pushes and pc pops */
    for (ring = 0; ring < PTO_K_NRING; ring++) {
        const pto_k__ring1 *r1 = &cl->ring[ring].d[k];
        if (r1->used && r1->popped[pc->kind == PTO_K_CORE_CUBE ? 0 : (int)pc->subblock] > 0) return 1;
    }
    return 0;
}

/* A notify's access of its signal cell (pto_k_notify names it so). */
PTO_K_FN int pto_k__is_notify(const char *op) { return op && strncmp(op, "notify ", 7) == 0; }

/* A race between core c's pipe p and an access prev of another core pc
   that no flag or signal orders before it: the latest notify of pc that p
   is ordered after (a wait saw it) but that is itself not ordered after
   prev, or NULL. Such a notify meant to publish prev and is not fenced
   after it (the lowering puts a pipe_barrier(ALL) before each notify):
   the race's hint names it. */
PTO_K_FN const pto_k__swrite *pto_k__unfenced_notify(const pto_k_core *c, int p, const pto_k_core *pc,
                                                     const pto_k__acc *prev)
{
    const pto_k__swrite *best = NULL;
    int i, j;
    for (i = 0; i < c->dev->nsigs; i++) {
        const pto_k__signal *s = &c->dev->sigs[i];
        for (j = 0; j < s->nw; j++) {
            const pto_k__swrite *w = &s->w[j];
            if (w->core != pc->index || !w->vc || w->vc[prev->gp] >= prev->clk) continue;
            if (c->vc[p][pc->index * 8 + PTO_K_PIPE_S] < w->seq) continue;   /* not seen here */
            if (!best || w->seq > best->seq) best = w;
        }
    }
    return best;
}

/* Reports the conflicts found for one access. `what` names the memory. */
PTO_K_FN void pto_k__report_conf(pto_k__check *k, int kind, const char *what, int gm)
{
    pto_k_core *c = k->c;
    pto_k_device *dev = c->dev;
    int i;
    for (i = 0; i < k->nconf; i++) {
        pto_k__conflict *f = &k->conf[i];
        pto_k_core *pc = &dev->cores[f->prev.gp / 8];
        int pp = f->prev.gp % 8, id;
        const pto_k__sync *es = NULL;
        const pto_k__swrite *nf;
        char me[64], them[64], hint[800];
        /* GM, different bytes of each shared block, one side a plain read:
           no race. The block rule is for writers (a whole-block move of one
           can undo the other's bytes); a read takes its own bytes whatever
           moves the rest of the block, and sync orders GM windows by their
           elements (a load of row 1 beside a store to row 0 of a 48-byte-row
           tensor, bench/repro/gm_block, was reported). Local memory keeps
           the block rule: a DMA into UB moves whole blocks. */
        if (gm && f->apart && (kind == PTO_K__RD || f->prevkind == PTO_K__RD)) continue;
        /* Two notifies of different cells of one block: a signal write is
           a 4-byte scalar store or atomic, not a block move (a row of
           per-peer cells is the usual layout). */
        if (gm && f->apart && pto_k__is_notify(k->cur.op) && pto_k__is_notify(f->prev.op)) continue;
        /* Once per pair of source lines, and once more when the earlier
           access ran on another core: its reason and fix differ (no
           cross-core flag or signal orders them), so a core's own instance
           must not hide it (review28 M3: three ranks' tstores into rank 0's
           window were folded into rank 0's in-core race and its in-core fix). */
        if (!pto_k__first_report(dev, k->cur.src, f->prev.src, (pc != c ? 100 : 0) + kind * 4 + f->prevkind))
            continue;
        pto_k__core_name(c, me, sizeof me);
        pto_k__core_name(pc, them, sizeof them);
        if (pto_k__is_notify(k->cur.op) && pto_k__is_notify(f->prev.op))
            snprintf(hint, sizeof hint, "two notifies of one signal cell that nothing orders: it ends with whichever "
                     "lands last (%s); only two notify adds commute: order the others by a notify -> wait chain "
                     "(the later one after a wait that saw the earlier land)",
                     kind == PTO_K__WR && f->prevkind == PTO_K__WR ? "one value lost" : "a lost count or a lost reset");
        else if (pto_k__is_notify(k->cur.op) || pto_k__is_notify(f->prev.op))
            snprintf(hint, sizeof hint, "nothing orders the %s against the notify of this signal cell, so %s depends "
                     "on which lands first: order them by a notify -> wait chain, as any GM bytes two cores touch",
                     pto_k__is_notify(k->cur.op) ? f->prev.op : k->cur.op,
                     kind == PTO_K__RD || f->prevkind == PTO_K__RD ? "the value read" : "the value the cell keeps");
        else if (pc != c && (nf = pto_k__unfenced_notify(c, k->pipe, pc, &f->prev)) != NULL)
            snprintf(hint, sizeof hint, "no cross-core flag, ring slot or signal orders %s before %s: its notify at "
                     "\"%s\", which a wait here saw, is not ordered after the %s (a notify runs on the scalar pipe "
                     "and can land before an earlier %s instruction ends: fence it with a pipe_barrier(ALL) before "
                     "the notify)", them, me, nf->src, f->prev.op, pto_k__pipe_name(pp));
        else if (pc != c)
            snprintf(hint, sizeof hint, "no cross-core flag, ring slot or signal orders %s before %s%s", them, me,
                     pto_k__tfree_hint(c, pc) ? " (on a2a3 pto-isa's TPOP frees its ring slot as soon as its load "
                     "ends and TFREE is empty, so what a core does between a tpop and its tfree is ordered before "
                     "no tpush of the other core: order the GM data with a tpush after the access and a tpop of "
                     "that pipe before the other one, or a signal, as docs/pto-format.md's mix section says)" : "");
        else if (pp == k->pipe)
            snprintf(hint, sizeof hint, "both run on pipe %s, which may overlap them: missing pipe_barrier(%s)",
                     pto_k__pipe_name(pp), pto_k__pipe_name(pp));
        else if ((id = pto_k__early_set(c, pp, k->pipe, f->prev.clk, f->prev.src, &es)) >= 0)
            snprintf(hint, sizeof hint, "the set_flag(%s, %s, %d) at \"%s\" is issued before the %s at \"%s\" it "
                     "should follow: move it after the %s",
                     pto_k__pipe_name(pp), pto_k__pipe_name(k->pipe), id, es->src, f->prev.op, f->prev.src,
                     f->prev.op);
        else
            snprintf(hint, sizeof hint, "missing set_flag(%s, %s, id) / wait_flag(%s, %s, id)",
                     pto_k__pipe_name(pp), pto_k__pipe_name(k->pipe), pto_k__pipe_name(pp),
                     pto_k__pipe_name(k->pipe));
        if (f->apart) {   /* different bytes of one granule: say why that is a race at all */
            size_t n = strlen(hint);
            snprintf(hint + n, sizeof hint - n,
                     " (the two touch different bytes of the same 32-byte block%s: memory moves whole 32-byte "
                     "blocks, so unordered writers of one block can undo each other%s)",
                     f->lo / PTO_K__GRAN == (f->hi - 1) / PTO_K__GRAN ? "" : "s",
                     pc != c ? "; align each core's part of the tensor to 32 bytes, or order them" : "");
        }
        pto_k__err(dev, PTO_K_E_RACE,
                   "%s: error: race on %s bytes [%lld, %lld): %s (%s, %s) %s them while \"%s\" %s (%s, %s) "
                   "%s them unordered; %s",
                   k->cur.src, what, (long long)f->lo, (long long)f->hi, k->cur.op, pto_k__pipe_name(k->pipe), me,
                   pto_k__verb(kind), f->prev.src, f->prev.op, pto_k__pipe_name(pp), them,
                   f->prevkind == PTO_K__RD ? "read" : f->prevkind == PTO_K__WR ? "wrote" : "atomically added to",
                   hint);
    }
    k->nconf = 0;
}

PTO_K_FN pto_k__shadow *pto_k__local_shadow(pto_k_core *c, int space)
{
    pto_k__shadow *sh = &c->sh[space];
    if (!sh->g) {
        int64_t n = pto_k__capacity(c->dev->desc.arch, space) / PTO_K__GRAN, i;
        sh->g = (pto_k__gran *)calloc((size_t)n, sizeof(pto_k__gran));
        if (!sh->g) {
            c->dev->oom = 1;
            return sh;
        }
        for (i = 0; i < n; i++) sh->g[i].reads = -1;
        sh->n = n;
    }
    return sh;
}

PTO_K_FN pto_k__shadow *pto_k__gm_shadow(pto_k_device *dev, pto_k_gm *g)
{
    pto_k__shadow *sh = &dev->gsh[g->id];
    if (!sh->g) {
        int64_t bytes = g->rows * g->cols * pto_k__dsize(g->dtype);
        int64_t n = (bytes + PTO_K__GRAN - 1) / PTO_K__GRAN, i;
        sh->g = (pto_k__gran *)calloc((size_t)(n ? n : 1), sizeof(pto_k__gran));
        if (!sh->g) {
            dev->oom = 1;
            return sh;
        }
        for (i = 0; i < n; i++) sh->g[i].reads = -1;
        sh->n = n;
    }
    return sh;
}

/* ---- time and trace ------------------------------------------------------- */

PTO_K_FN void pto_k__trace_ev(pto_k_core *c, int pipe, const char *name, const char *src, int64_t start,
                           int64_t dur)
{
    pto_k_device *dev = c->dev;
    int cap = dev->capev;
    if (!dev->desc.trace_path || dur <= 0) return;
    dev->ev = (pto_k__event *)pto_k__grow(dev, dev->ev, &cap, dev->nev + 1, sizeof *dev->ev);
    dev->capev = cap;
    if (dev->nev + 1 > cap) return;
    dev->ev[dev->nev].core = dev->ntproc + c->index;
    dev->ev[dev->nev].pipe = pipe;
    dev->ev[dev->nev].name = name;
    dev->ev[dev->nev].src = src;
    dev->ev[dev->nev].start = dev->trace_t0 + start;
    dev->ev[dev->nev].dur = dur;
    dev->nev++;
}

/* An instruction of `pipe` starts: the waits that held it count. */
PTO_K_FN void pto_k__waits_count(pto_k_core *c, int pipe)
{
    int i;
    for (i = 0; i < c->npend[pipe]; i++) c->site[c->pend_site[pipe][i]].pend = 0;
    c->npend[pipe] = 0;
    c->other_pend[pipe] = 0;
}

/* Runs `cost` cycles of work on a pipe; returns the end time. */
PTO_K_FN int64_t pto_k__timed(pto_k_core *c, int pipe, int64_t disp, int64_t cost, const char *name,
                              const char *src)
{
    int64_t start = c->free_at[pipe] > disp ? c->free_at[pipe] : disp;
    c->free_at[pipe] = start + cost;
    c->busy[pipe] += cost;
    if (c->npend[pipe] || c->other_pend[pipe]) pto_k__waits_count(c, pipe);   /* they held this instruction */
    pto_k__trace_ev(c, pipe, name, src, start, cost);
    return start + cost;
}

/* `pipe` waited `cycles` at statement src for `from` (pto_k__site):
   summed per (pipe, src, from). */
PTO_K_FN void pto_k__waited(pto_k_core *c, int pipe, int from, int64_t cycles, const char *src)
{
    int i;
    if (cycles <= 0 || pipe < 0 || pipe >= PTO_K_PIPE_ALL) return;
    for (i = 0; i < c->nsite; i++)
        if (c->site[i].src == src && c->site[i].pipe == pipe && c->site[i].from == from) break;
    if (i == c->nsite) {
        if (i == PTO_K__NSITE) {
            c->site_other[pipe] += cycles;
            c->other_pend[pipe] += cycles;
            return;
        }
        c->site[i].src = src;
        c->site[i].pipe = pipe;
        c->site[i].from = from;
        c->site[i].cycles = c->site[i].pend = 0;
        c->nsite++;
    }
    c->site[i].cycles += cycles;
    if (!c->site[i].pend) c->pend_site[pipe][c->npend[pipe]++] = i;   /* a site is one pipe's */
    c->site[i].pend += cycles;
}

/* A pipe that waits until `t` for pipe `setter`'s flag (-1: a signal):
   the stall shows in the trace and in the report's sites. */
PTO_K_FN void pto_k__stall(pto_k_core *c, int pipe, int setter, int64_t disp, int64_t t, const char *src)
{
    int64_t from = c->free_at[pipe] > disp ? c->free_at[pipe] : disp;
    if (t > from) {
        pto_k__trace_ev(c, pipe, "wait", src, from, t - from);
        pto_k__waited(c, pipe, setter, t - from, src);
    }
    c->free_at[pipe] = t > from ? t : from;
}

/* ---- the scheduler ---------------------------------------------------------- */

/* What a blocked core waits for. An event wait (a cross-core flag, a ring
   slot) waits for one particular event: `ready` says whether it happened.
   A timed wait (a signal) waits for a condition on a cell: `when` says at
   which simulated time the writes known so far first make it hold (-1:
   they do not), and the scheduler releases it only once no write still to
   come can land before that (pto_k__mark_runnable). */
typedef struct pto_k__waiter {
    int (*ready)(pto_k_core *c, const void *arg);
    int64_t (*when)(pto_k_core *c, void *arg);  /* may cache in arg */
    void (*describe)(pto_k_core *c, const void *arg, char *out, size_t n);
    void *arg;
    const char *src;
} pto_k__waiter;

/* The earliest time a write that c has not made yet can become visible on
   another core: it is issued at c->disp or later (after a released timed
   wait, at its time or later), lasts a cycle and travels PTO_K__XLAT. */
PTO_K_FN int64_t pto_k__next_write(const pto_k_core *c)
{
    int64_t t = c->parg && c->wake > c->disp ? c->wake : c->disp;
    return t + 1 + PTO_K__XLAT;
}

/* Sets c->can_run for every core and returns how many may run.

   Event waits are ready when their event exists: its time is fixed, so the
   order in which the cores ran cannot change what they join. A timed wait
   is different: a write that lands before the time `when` found may still
   come from a core that has not run far enough. Let F be the earliest time
   a write not yet made can land. Only three kinds of core can make one: a
   core that can run now (from pto_k__next_write of it), a timed wait after
   it returns (no earlier than `when` + 1 + PTO_K__XLAT: until one of them
   returns the history before its `when` is complete), and a core blocked on
   an event, which resumes no earlier than the core that makes the event (so
   it is covered by the other two). A timed wait whose `when` is below F is
   final: it is released with that time. The earliest timed wait is always
   below F when no other core can run, so the scheduler never stalls on a
   wait that something can satisfy. */
PTO_K_FN int pto_k__mark_runnable(pto_k_device *dev)
{
    int i, n = 0;
    int64_t first = -1, land = -1; /* the earliest timed wait; F (-1: no bound yet) */
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        const pto_k__waiter *w = (const pto_k__waiter *)c->parg;
        c->can_run = 0;
        if (c->state == PTO_K__DONE) continue;
        if (dev->stopped) { /* every core runs, to leave at once (pto_k__tick) */
            n += c->can_run = 1;
            continue;
        }
        if (!c->dead && w && w->when && c->wake < 0) {
            int64_t t = w->when(c, w->arg);
            if (t >= 0 && (first < 0 || t < first)) first = t;
            continue;
        }
        c->can_run = c->dead || !w || w->when || w->ready(c, w->arg);
        if (c->can_run && !c->dead && (land < 0 || pto_k__next_write(c) < land)) land = pto_k__next_write(c);
    }
    if (first >= 0 && (land < 0 || first + 1 + PTO_K__XLAT < land)) land = first + 1 + PTO_K__XLAT;
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        const pto_k__waiter *w = (const pto_k__waiter *)c->parg;
        if (dev->stopped) break;
        if (c->state != PTO_K__DONE && !c->dead && w && w->when && c->wake < 0) {
            int64_t t = w->when(c, w->arg);
            if (t >= 0 && t < land) c->wake = t;
            c->can_run = c->wake >= 0;
        }
        n += c->can_run;
    }
    return n;
}

PTO_K_FN void *pto_k__thread(void *arg);

PTO_K_FN void pto_k__sig_desc(pto_k_core *c, const void *arg, char *out, size_t n);   /* (mix.h) */

/* Chooses the next core to run (the caller holds dev->mu). A signal wait
   that never returns after an access to a rank outside the launch was
   dropped (pto_k_gm_at) stops its core without a report of its own: the
   notify it waits for is the one that went nowhere, or a nonexistent
   rank's (review26b L4: only the first report). */
PTO_K_FN void pto_k__pick(pto_k_device *dev)
{
    int i, n, k;
    n = pto_k__mark_runnable(dev);
    if (n == 0 && dev->ndone < dev->ncores) {
        /* every live core waits: a deadlock. Name each wait, then let the
           cores run to their end in dead mode. */
        for (i = 0; i < dev->ncores; i++) {
            pto_k_core *c = &dev->cores[i];
            const pto_k__waiter *w = (const pto_k__waiter *)c->parg;
            char what[400], who[64];
            if (c->state == PTO_K__DONE || !w) continue;
            w->describe(c, w->arg, what, sizeof what);
            pto_k__core_name(c, who, sizeof who);
            if (!dev->dropped || w->describe != pto_k__sig_desc)
                pto_k__err(dev, PTO_K_E_DEADLOCK, "%s: error: deadlock: %s (%s)", w->src ? w->src : "?", what, who);
            c->dead = 1;
            c->can_run = 1;
            n++;
        }
    }
    if (n == 0) {
        dev->running = -1;
        pthread_cond_broadcast(&dev->cv);
        return;
    }
    k = (int)(pto_k__rand(dev) % (uint64_t)n);
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        if (!c->can_run) continue;
        if (k-- > 0) continue;
        if (c->state == PTO_K__NEW) {
            pthread_attr_t at;
            int rc;
            c->state = PTO_K__RUN;
            pthread_attr_init(&at);
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            pthread_attr_setstacksize(&at, (size_t)4 << 20);
            rc = pthread_create(&c->th, &at, pto_k__thread, c);
            pthread_attr_destroy(&at);
            if (rc != 0) {
                pto_k__err(dev, PTO_K_E_USAGE, "error: cannot start a thread for core %d", i);
                c->state = PTO_K__DONE;
                dev->ndone++;
                pto_k__pick(dev);
                return;
            }
        }
        dev->running = i;
        pthread_cond_broadcast(&dev->cv);
        return;
    }
}

/* Passes the baton (possibly back to c) and waits until c holds it again. */
PTO_K_FN void pto_k__yield(pto_k_core *c)
{
    pto_k_device *dev = c->dev;
    pthread_mutex_lock(&dev->mu);
    pto_k__pick(dev);
    while (dev->running != c->index) pthread_cond_wait(&dev->cv, &dev->mu);
    pthread_mutex_unlock(&dev->mu);
}

/* Blocks c until w is ready (or c is declared dead in a deadlock). */
PTO_K_FN void pto_k__block(pto_k_core *c, const pto_k__waiter *w)
{
    if (c->dead) return;
    c->parg = w;
    c->wake = -1;
    pto_k__yield(c);
    c->parg = NULL;
    if (c->dev->stopped) longjmp(c->stop, 1);   /* released by the budget's stop, not its event */
}

/* The instruction budget. Every tile instruction (pto_k__issue, the ring
   ops) counts against the launch's limit, over all cores and ranks (only
   the baton holder runs, so the count needs no lock). Past it the launch
   stops cleanly: one report naming the kernel, the limit, the instruction
   and its core; then each core, when it next holds the baton, leaves its
   kernel function through c->stop (longjmp to pto_k__thread: the kernel
   functions hold no resources, everything lives in the device), blocked
   cores included (the scheduler lets every core run once stopped), and
   the launch's end checks are skipped (their findings would be noise). */
PTO_K_FN void pto_k__tick(pto_k_core *c, const char *src)
{
    pto_k_device *dev = c->dev;
    char who[64];
    if (dev->stopped) longjmp(c->stop, 1);
    if (++dev->ninstr_all <= dev->max_instr) return;
    pto_k__core_name(c, who, sizeof who);
    pto_k__err(dev, PTO_K_E_BUDGET,
               "%s: error: kernel %s ran more than %lld instruction%s (the instruction budget, over every core of the "
               "launch), stopped here (%s): a runaway loop? raise the limit with ptoc run --max-instr N",
               src ? src : "?", dev->ld->name ? dev->ld->name : "?", (long long)dev->max_instr,
               dev->max_instr == 1 ? "" : "s", who);
    dev->stopped = 1;
    longjmp(c->stop, 1);
}

PTO_K_FN void pto_k__core_end(pto_k_core *c);
PTO_K_FN void pto_k__sstall_end(pto_k_core *c, int complete);

PTO_K_FN void *pto_k__thread(void *arg)
{
    pto_k_core *c = (pto_k_core *)arg;
    pto_k_device *dev = c->dev;
    pthread_mutex_lock(&dev->mu);
    while (dev->running != c->index) pthread_cond_wait(&dev->cv, &dev->mu);
    pthread_mutex_unlock(&dev->mu);
    if (!dev->stopped) {
        if (setjmp(c->stop) == 0) dev->ld->fn(c, c->args);   /* 1: pto_k__tick stopped it */
    }
    pto_k__sstall_end(c, !dev->stopped);
    if (!dev->stopped) pto_k__core_end(c);
    pthread_mutex_lock(&dev->mu);
    c->state = PTO_K__DONE;
    dev->ndone++;
    pto_k__pick(dev);
    pthread_mutex_unlock(&dev->mu);
    return NULL;
}
