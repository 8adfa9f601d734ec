/* api.h - the passes and their entry points.

   The pipeline is fixed and visible:

       parse -> verify -> lower -> plan -> sync -> emit

   Each pass is a plain function over a pto_module. The comment at the top of
   each pass's source states what it needs and what it guarantees. print turns
   a module back into .pto text at any point (pto_dump adds what the later
   passes computed); interp runs a verified module on host arrays. */

/* ---- text output --------------------------------------------------------- */

/* A growable byte buffer; every printer writes into one. Zero-initialise it
   (and set ctx to allocate through the context's allocator; NULL: the
   default one, PTO_MALLOC / PTO_REALLOC / PTO_FREE; keep the ctx it first
   grew with); free it with pto_buf_free. data is NUL-terminated once
   anything was appended.

   Streaming (optional): with `sink` set, the buffer is a bounded staging
   area instead of the whole text, so a large output (pto_emit's) never sits
   in memory. An append that would not fit sends the pending bytes to the
   sink, in order, and len starts again from 0; an append longer than the
   staging area goes to the sink as it is. data[0, len) is then only the
   pending tail, and flushed + len is everything appended. pto_buf_flush
   sends the pending tail; pto_emit and pto_emit_isa send it when they
   succeed (when they fail, part of the text may have reached the sink). The
   sink cannot fail: a writer that can (a full disk) records the error for
   its caller to report after emission. Nothing else changes: oom, the
   printers, pto_buf_free (which does not flush).

   pto_emit and pto_emit_isa set a NULL ctx to theirs. The printers below
   do nothing given a NULL module or buffer. */
typedef struct pto_buf {
    pto_ctx *ctx;
    char *data;
    size_t len, cap;
    int oom;               /* set when an append failed; the text is truncated */
    /* the sink (NULL: the buffer holds everything) and its argument */
    void (*sink)(const char *data, size_t len, void *user);
    void *sink_user;
    size_t stage;          /* bytes of the staging area (0: PTO_BUF_STAGE); it grows past
                              that only when the emitter makes room for more at once */
    size_t flushed;        /* bytes sent to the sink so far */
} pto_buf;

#define PTO_BUF_STAGE ((size_t)64 << 10)

PTODEF void pto_buf_puts(pto_buf *b, const char *s);
PTODEF void pto_buf_putn(pto_buf *b, const char *s, size_t n);
PTODEF void pto_buf_printf(pto_buf *b, const char *fmt, ...);
/* Sends the pending bytes to the sink; nothing without one. */
PTODEF void pto_buf_flush(pto_buf *b);
PTODEF void pto_buf_free(pto_buf *b);

/* ---- parse / print ------------------------------------------------------- */

/* Parses .pto text. Returns NULL (with diagnostics) on a syntax error; name
   resolution that the grammar needs happens here, every other rule is the
   verifier's. `filename` is used for locations. */
PTODEF pto_module *pto_parse(pto_ctx *ctx, const char *filename, const char *text, size_t len);
/* How near word (len characters) is to cand by the rule of the parser's
   "did you mean": the edits between them (case free, a swap of two
   neighbours is one) when at most 1 for a word up to 5 characters, 2 up to
   8, 3 beyond, and fewer than len; else -1. */
PTODEF int pto_near(const char *word, size_t len, const char *cand);

/* Canonical .pto text of a module. print(parse(print(x))) == print(x). */
PTODEF void pto_print(const pto_module *m, pto_buf *out);
/* pto_print keeping the `#` comments of `text`, the text m was parsed
   from (unchanged since): a full-line one is printed, indented, before the
   statement, pipe, parameter, kernel or host that follows it, the rest at
   the end; one after code after the item of its line (after a `}`: on a
   line of its own). Kernels and hosts keep their written order. What ptoc
   fmt prints. */
PTODEF void pto_print_commented(const pto_module *m, const char *text, size_t len, pto_buf *out);
PTODEF void pto_print_expr(const pto_module *m, int32_t expr, pto_buf *out);

/* ---- verify -------------------------------------------------------------- */

/* Checks every rule of the IR a user can break, with a diagnostic at the
   offending FILE:LINE:COL. PTO_OK means the later passes may rely on it,
   and stamps the module (pto_module.verified): pto_lower, pto_plan,
   pto_sync, pto_emit and pto_emit_isa refuse a module without the stamp,
   which every builder call clears (call pto_verify again after changing a
   module; pto_compile does it first). A NULL module, or one whose builders
   refused a call or ran out of memory (pto_module.broken), is
   PTO_ERR_USER. */
PTODEF pto_status pto_verify(pto_ctx *ctx, pto_module *m);

/* ---- interp -------------------------------------------------------------- */

/* A value for a dynamic dim or a scalar param, by name. A float scalar
   param holds it in its dtype (f16 / bf16: rounded to nearest even through
   f32, as the runtime passes it: 0.1 is 0.0999755859375 in f16). */
typedef struct pto_binding {
    const char *name;
    double value;
} pto_binding;

/* Host arrays are row-major, element type as declared (f16/bf16 as their
   16-bit patterns). tensors[r * nparams + p] is param p of rank r; entries
   of scalar params are ignored. */
typedef struct pto_launch {
    int32_t kernel;
    void **tensors;
    const pto_binding *bindings;
    int nbindings;
    int nranks;            /* ranks kernels only; 0 = 1 */
    int64_t max_instr;     /* the instruction budget: more ops than this in the whole
                              launch (every block, core and rank) is an error naming
                              the innermost loop running; 0 = PTO_MAX_INSTR_DEFAULT */
} pto_launch;

/* A runaway kernel (a loop to 10^12) must stop with an error, not run until
   killed. The default is ~280x the largest launch of the repository's
   kernels (352 ops: the examples, tests/ok, tests/user, tests/sync_sim, the
   benches) and stops a runaway on the simulator in ~15 s (16 x 256 f32
   tiles; the time per instruction grows with the tile). */
#define PTO_MAX_INSTR_DEFAULT 100000

/* Runs every block (and rank) of the kernel with the reference semantics:
   program order, no pipes, no addresses. It needs no verify stamp (it
   re-checks at run time what could take it out of bounds). A blocks(EXPR)
   of 0 or less with the launch's bindings is an error ("would launch no
   block"), as ptoc run says it. */
PTODEF pto_status pto_interp(pto_ctx *ctx, const pto_module *m, const pto_launch *launch);

/* ---- lower ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* What a module is compiled for: the emitter that will write it. */
typedef enum pto_target {
    PTO_TARGET_SIM = 0,  /* pto_emit: C against pto_kernels.h (the simulator) */
    PTO_TARGET_ISA       /* pto_emit_isa: C++ against the pto-isa API, for devices */
} pto_target;

/* Runs after pto_verify, before pto_plan (lower.c states what it
   guarantees): tput / tget become a planned-like-any staging tile + tload +
   tstore, allreduce the notify / wait / remote-load recipe of hardware.md
   section 8, and every notify gets its pipe_barrier ALL fence. New
   statements and tiles have origin PTO_BY_LOWER. pto_lower lowers for
   PTO_TARGET_SIM; pto_lower_for(..., PTO_TARGET_ISA) also puts a tfillpad
   after every tload whose tile's padding (outside its valid region) some op
   may read: pto-isa's TLOAD does not zero it, as the simulator's does, and
   pto_emit_isa refuses a module without those fills. Lowering a synced
   module for another target than before drops the flags and barriers the
   sync pass inserted (written ones stay), so pto_compile for one target and
   then the other emits what a fresh compile for the second does. */
PTODEF pto_status pto_lower(pto_ctx *ctx, pto_module *m);
PTODEF pto_status pto_lower_for(pto_ctx *ctx, pto_module *m, pto_target target);



/* ---- plan ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* Placement levels, preferred first (see plan.c). */
typedef enum pto_plan_level {
    PTO_PLAN_SEPARATE, /* bytes shared only by tiles of one pipe: no cross-pipe write-after-read */
    PTO_PLAN_TIGHT     /* bytes shared whenever lifetimes are disjoint */
} pto_plan_level;

/* Orders in which the planner places tiles; it tries each with first-fit
   and best-fit and keeps the lowest peak. */
typedef enum pto_plan_order {
    PTO_ORDER_LARGEST,  /* largest footprint first */
    PTO_ORDER_START,    /* earliest first use first */
    PTO_ORDER_LONGEST,  /* longest lifetime first */
    PTO_ORDER_AREA,     /* largest footprint x lifetime first */
    PTO_NORDER
} pto_plan_order;

/* What the planner did in one memory (kernel, core, space). */
typedef struct pto_plan_stat {
    int32_t kernel;
    uint8_t core, space;     /* pto_core, pto_space */
    uint8_t level;           /* pto_plan_level used */
    uint8_t order, fit;      /* winning pto_plan_order; fit 0 = first-fit, 1 = best-fit, 2 = a complete
                                search placed it (no order did; small groups only) */
    int64_t capacity;        /* bytes of the space */
    int64_t reserved;        /* at the top, for cube/vector pipe consumer buffers */
    int64_t peak;            /* highest byte used by a tile (0 when planning failed) */
    int64_t live_max;        /* most aligned bytes live at one point: a lower bound on peak */
    int32_t live_stmt;       /* a statement where live_max is reached, or -1 */
    int32_t ntiles;
} pto_plan_stat;

/* Per-memory figures; zero-initialise, free with pto_plan_result_free. */
typedef struct pto_plan_result {
    pto_plan_stat *stats;
    int32_t n, cap;
} pto_plan_result;

/* Zero-initialised fields take their defaults. */
typedef struct pto_plan_desc {
    int tight;                     /* 1: pack tightly, ignore pipe conflicts (skip the separate level) */
    const pto_plan_order *orders;  /* orders to try, in this order; NULL = all four */
    int norders;
    pto_plan_result *result;       /* optional: receives one pto_plan_stat per memory */
} pto_plan_desc;

/* Gives every local tile its offsets (plan.c states the guarantees).
   On overflow the error names the space, the line of the peak, the bytes
   needed against the capacity and the live tiles with their sizes. */
PTODEF pto_status pto_plan(pto_ctx *ctx, pto_module *m, const pto_plan_desc *desc);
PTODEF void pto_plan_result_free(pto_ctx *ctx, pto_plan_result *r);
/* Unit of planner-chosen offsets and slot strides: 32 bytes; left/right 512
   (one fractal), acc 1024 (one accumulator fractal). */
PTODEF int64_t pto_plan_granule(pto_space s);
/* Base offset of a cube/vector pipe's consumer buffer in space s (vec for
   C2V, mat for V2C), or -1 when s does not consume that pipe. The buffers
   are stacked down from the top of the space in pipe order. */
PTODEF int64_t pto_plan_pipe_base(const pto_module *m, int32_t cvpipe, pto_space s);
/* Bytes of one of a pipe's local slots in space s (0 when s does not
   consume the pipe): the tile this core pops, so half the cube-side tile on
   an AIV of a split pipe, the whole tile otherwise. */
PTODEF int64_t pto_plan_pipe_slot_bytes(const pto_cvpipe *p, pto_space s);
/* The plan of a planned module as text: per kernel a table (tile, space,
   offset, size, slots, lifetime as source lines), then per space the level
   used and a memory map (address across, program order down). r may be NULL. */
PTODEF void pto_plan_report(const pto_module *m, const pto_plan_result *r, pto_buf *out);
/* The same memory maps as an SVG picture (x: program order, y: address). */
PTODEF void pto_plan_svg(const pto_module *m, pto_buf *out);



/* ---- plan check (independent of the planner) ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* Checks a planned module without the planner's code: every local tile is
   planned, 32-byte aligned, inside its space (below the cube/vector pipe
   buffers), its slots in order without overlap, and no two tiles that can be
   live together share a byte. Reports every violation; PTO_OK when none. */
PTODEF pto_status pto_plan_check(pto_ctx *ctx, const pto_module *m);



/* ---- sync ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* Optional counters filled by pto_sync (all kernels of the module). */
typedef struct pto_sync_stats {
    int flag_pairs;        /* set/wait groups inserted (a rotating group counts once) */
    int rotating;          /* of which rotate N > 1 ids with the loop */
    int barriers;          /* pipe_barrier(V/M) inserted */
    int degraded;          /* groups whose rotation was cut (N -> 2 -> 1) for lack of ids */
    int fallbacks;         /* groups replaced by a PIPE_ALL barrier for lack of ids */
    int delayed;           /* groups whose set_flag moved later, to where an id was free */
    int shared;            /* groups that share an earlier pair of their pipes (its set moved after theirs) */
    int rounds;            /* analysis rounds (one per dependency found, plus checks) */
    int ordered;           /* order pairs: a reused event id's previous wait ordered before its new set */
} pto_sync_stats;

/* Zero-initialised fields take their defaults. */
typedef struct pto_sync_desc {
    int ids_per_pair;      /* event ids per ordered pipe pair; 0 = 8 (hardware.md s4) */
    pto_sync_stats *stats; /* optional: filled on return */
    int check;             /* self-check: analyse the result once more with the hardware
                              ids; an unordered dependency or a flag misuse then is
                              PTO_ERR_INTERNAL (pto's bug). Costs about half again the
                              pass; ptoc and the test suite turn it on. */
} pto_sync_desc;

/* Inserts set_flag / wait_flag / pipe_barrier statements (origin PTO_BY_SYNC,
   note = the dependency that justified each) so that every cross-pipe
   dependency inside a core is ordered, same-pipe V/M dependencies are
   separated by a barrier, and no event id is left set at kernel end. Needs a
   verified module whose local tiles are planned. desc may be NULL.
   Deterministic: the same module gives the same statements. pto_plan marks
   a module unsynchronised (pto_module.unsynced) and a successful pto_sync
   (or pto_sync_hand) clears the mark: pto_emit and pto_emit_isa refuse a
   module planned but never synchronised. */
PTODEF pto_status pto_sync(pto_ctx *ctx, pto_module *m, const pto_sync_desc *desc);

/* Hand-written syncs only: inserts nothing, and marks the module
   synchronised, its own set_flag / wait_flag / pipe_barrier statements
   being all its sync (what pto_compile_desc.no_sync and ptoc --no-sync
   do). Needs a verified module, as pto_sync. */
PTODEF pto_status pto_sync_hand(pto_ctx *ctx, pto_module *m);

/* Readable dump of the module after sync: the control structure, every op,
   and every sync statement with the dependency that justified it. */
PTODEF void pto_sync_dump(const pto_module *m, pto_buf *out);



/* ---- emit ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* What pto_emit needs besides the module. Zero-initialised fields take
   their defaults. */
typedef struct pto_emit_desc {
    const char *filename;  /* source name for comments and src strings (its base
                              name is used); NULL: the file of the first kernel */
    const char *source;    /* the .pto text, embedded in the host source for the
                              reference run; NULL: pto_print of the module */
    size_t source_len;
} pto_emit_desc;

/* Emits a planned, synchronised module as C (emit.c states the shape):
   kernel_src gets the kernels (includes "pto_kernels.h"), host_src the host
   program (includes pto_kernels.h, pto.h with PTO_HOST_HARNESS, and
   "kernel.c"). Either buffer may be NULL. Deterministic: the same module
   gives byte-identical text. A tile without a planned offset is an error,
   and so is a module that pto_plan placed and pto_sync never ran on after
   (pto_compile with stop_after = PTO_STAGE_PLAN): its kernel would have no
   flags. Hand-written syncs only: pto_compile_desc.no_sync, or
   pto_sync_hand. */
PTODEF pto_status pto_emit(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src,
                           pto_buf *host_src);



/* ---- emit (isa target) ------------------------------------------------
   (declarations of this stage go below this banner) */

/* Emits a planned, synchronised module as C++ against the Ascend pto-isa
   tile API for real devices (emit_isa.c states the shape, docs/isa-target.md
   the mapping): kernel_src gets one extern "C" entry per kernel taking the
   runtime's int64_t *args. desc as for pto_emit (its source is not used).
   Deterministic. What the target cannot express yet (ranks kernels, peer
   windows, no vec room for a reduction's scratch tile, a column op on a
   dtype pto-isa's a2a3 TCOL* do not take, a [R, 1] column whose padding
   an op reads) is an error with its location, and so is a module that was
   not lowered for PTO_TARGET_ISA where a tile's padding is read (its
   TFILLPADs would be missing). A NULL kernel_src runs the checks and
   writes nothing. */
PTODEF pto_status pto_emit_isa(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src);



/* ---- dump ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* The text of pto_print plus, as trailing `#` comments, what later passes
   computed: planned tile offsets (per slot) and, for statements a pass
   created, the pass and its note. Not meant to be parsed back. */
PTODEF void pto_dump(const pto_module *m, pto_buf *out);




/* ---- compile (the pass sequence) ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* Where pto_compile stops; zero runs every pass. */
typedef enum pto_stage {
    PTO_STAGE_ALL = 0,     /* verify, lower, plan, sync: ready for pto_emit */
    PTO_STAGE_VERIFY,      /* verify only */
    PTO_STAGE_LOWER,       /* verify and lower */
    PTO_STAGE_PLAN,        /* verify, lower and plan */
    PTO_STAGE_SYNC         /* every pass (the same as PTO_STAGE_ALL) */
} pto_stage;

/* Zero-initialised fields take their defaults (sokol style). */
typedef struct pto_compile_desc {
    pto_stage stop_after;  /* the last pass to run; 0 = all of them */
    int no_sync;           /* leave the sync pass out: hand-written syncs only (ptoc --no-sync);
                              the module is marked synchronised (pto_sync_hand) */
    int check_plan;        /* run pto_plan_check after plan; a violation is PTO_ERR_INTERNAL */
    pto_plan_desc plan;    /* options of pto_plan (tight, orders, result) */
    pto_sync_desc sync;    /* options of pto_sync (ids per pipe pair, stats) */
    pto_target target;     /* the emitter the module is for (pto_lower_for); 0 = PTO_TARGET_SIM
                              (last: positional initialisers of the fields above keep working) */
} pto_compile_desc;

/* Runs the passes on a parsed or built module in their fixed order,
   verify -> lower -> plan -> sync, stopping at the first that fails (its diagnostics
   are recorded) or after desc->stop_after. desc may be NULL. m may be NULL
   (a failed parse): PTO_ERR_USER. After the full sequence the module is
   ready for pto_emit. */
PTODEF pto_status pto_compile(pto_ctx *ctx, pto_module *m, const pto_compile_desc *desc);


/* ---- host sections ------------------------------------------------------------
   (declarations of this stage go below this banner; the IR is in ir.h) */

/* A run of host section `host`. tensors[i] is host tensor i (param0 + i):
   the host's params (entries of scalar params are ignored), then its
   `tensor` intermediates, row-major as for pto_launch; a NULL intermediate
   is allocated (zero) and freed by the interpreter. bindings give the host's
   dims and scalars by name. */
typedef struct pto_host_launch {
    int32_t host;
    void **tensors;
    const pto_binding *bindings;
    int nbindings;
    int64_t max_instr;     /* every call's pto_launch.max_instr (0 = the default) */
} pto_host_launch;

/* Runs the host's calls in program order with the reference semantics
   (pto_interp per call, each kernel's dims bound from the tensors passed
   and its scalars from the arguments). Needs a verified module. */
PTODEF pto_status pto_interp_host(pto_ctx *ctx, const pto_module *m, const pto_host_launch *launch);
