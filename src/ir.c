/* ir.c - the op table, name tables, capacities, the IR builders and the
   statement-relinking helpers that passes use to insert code.

   Builders never fail silently: on out-of-memory they record a diagnostic and
   return -1, and every caller propagates that. Statement lists are doubly
   linked so that the sync inserter and the lowering pass can put a statement
   before or after any other in O(1). */

/* For the builders the parser calls once per statement, which the compiler
   might not inline into it (a call there costs about what the builder does). */
#if defined(__GNUC__) || defined(__clang__)
#define PTO__IR_INLINE inline __attribute__((always_inline))
#else
#define PTO__IR_INLINE inline
#endif

/* The builders' pushes (ir.c, host.c): a module whose array could not grow
   misses a node, so it is marked incomplete and pto_verify refuses it. */
static int32_t pto__pushed(pto_module *m, int32_t i)
{
    m->verified = 0;   /* a changed module needs pto_verify again (ir.h) */
    if (i < 0) m->broken++;
    return i;
}

/* A fingerprint of the fields a C program may set by hand (ir.h,
   pto_module.vprint): a polynomial hash (h + word) * K of the tiles',
   kernels', params' and pipes' shapes, slots, regions, pins and block
   counts, one word at a time (every pass computes it at its entry: an add
   and a multiply per word). K is odd, so each step is a bijection of h and
   of the word: a change of any one word always changes the fingerprint;
   two changes cancel only when one is the other times a power of K (an
   unlikely pair of hand edits). Offsets the planner writes are not in it. */
static uint64_t pto__fp(uint64_t h, uint64_t v)
{
    return (h + v) * 0x9E3779B97F4A7C15ull;
}

/* Two 32-bit fields as one word (unsigned: a field may be -1). */
static uint64_t pto__fp2(uint64_t h, int32_t a, int32_t b)
{
    return pto__fp(h, (uint64_t)(uint32_t)a << 32 | (uint32_t)b);
}

static uint64_t pto__fingerprint(const pto_module *m)
{
    uint64_t h = 14695981039346656037ull;
    int32_t i;
    h = pto__fp2(h, m->n_tiles, m->n_params);
    for (i = 0; i < m->n_tiles; i++) {
        const pto_tile *t = &m->tiles[i];
        h = pto__fp2(h, t->space << 16 | t->dtype << 8 | t->core, t->nbuf);
        h = pto__fp2(h, t->rows, t->cols);
        h = pto__fp2(h, t->valid_r, t->valid_c);
        h = pto__fp2(h, t->decl, 0);
        h = pto__fp(h, (uint64_t)t->pin);
    }
    for (i = 0; i < m->n_kernels; i++)
        h = pto__fp2(h, m->kernels[i].blocks, m->kernels[i].kind << 8 | m->kernels[i].ranks);
    for (i = 0; i < m->n_params; i++) {
        const pto_param *p = &m->params[i];
        h = pto__fp2(h, p->kind << 24 | p->dir << 16 | p->dtype << 8 | p->window, 0);
        h = pto__fp(h, (uint64_t)p->dim[0]);
        h = pto__fp(h, (uint64_t)p->dim[1]);
        h = pto__fp2(h, p->dim_var[0], p->dim_var[1]);
    }
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *c = &m->cvpipes[i];
        h = pto__fp2(h, c->slot_num, c->local_slot_num);
        h = pto__fp2(h, c->rows, c->cols);
        h = pto__fp2(h, c->dir << 16 | c->split << 8 | c->dtype, 0);
    }
    return h;
}

/* Stamps m verified (verify, and lower and sync on success). */
static void pto__stamp(pto_module *m)
{
    m->verified = 1;
    m->vprint = pto__fingerprint(m);
}

PTODEF void pto_module_stamp(pto_module *m)
{
    if (m) pto__stamp(m);
}

/* The entry check of each pass after verify (ir.h, pto_module.verified):
   PTO_OK, or one error naming the pass. */
static pto_status pto__need_verified(pto_ctx *ctx, const pto_module *m, const char *pass)
{
    pto_loc none = {0, 0, 0};
    if (!m) return pto_error(ctx, none, "%s: the module is NULL", pass);
    none.file = m->file;
    if (m->verified && pto__fingerprint(m) == m->vprint) return PTO_OK;
    if (m->verified)
        return pto_error(ctx, none, "%s: the module changed after it was verified: a tile's shape, slots, valid "
                         "region or pin, a kernel's blocks, a param's dims or a pipe's slots were written directly "
                         "(use pto_set_tile_nbuf and the other setters, or call pto_verify / pto_compile again)", pass);
    return pto_error(ctx, none, "%s: the module is not verified (call pto_verify or pto_compile first; "
                     "again after any builder call)", pass);
}

/* The emitters' entry check after pto__need_verified (ir.h,
   pto_module.unsynced): PTO_OK, or one error naming the emitter. */
static pto_status pto__need_synced(pto_ctx *ctx, const pto_module *m, const char *pass)
{
    pto_loc none = {0, 0, 0};
    if (!m->unsynced) return PTO_OK;
    none.file = m->file;
    return pto_error(ctx, none, "%s: the module is planned but not synchronised: pto_sync never ran after pto_plan "
                     "(pto_compile with stop_after = PTO_STAGE_PLAN?), so its kernel would have no set_flag / "
                     "wait_flag; run pto_sync, or, when the module's own flags are all its sync, pto_sync_hand "
                     "(pto_compile's no_sync)", pass);
}

static const pto_opinfo pto__optab[] = {
#define PTO__OP_ROW(e, name, pipe, cls, n, a0, a1, a2, a3) {name, pipe, cls, n, {a0, a1, a2, a3}},
    PTO_OPS(PTO__OP_ROW)
#undef PTO__OP_ROW
    {"<none>", PTO_PIPE_S, PTO_OC_SYNC, 0, {0, 0, 0, 0}}
};

/* Never NULL (ir.h): an op out of range gets PTO_NOP's row, as the name
   queries give "?", so the ~130 callers that index an op statement's row
   need no test; a caller that must tell compares with PTO_NOP's row. */
PTODEF const pto_opinfo *pto_opinfo_get(pto_op op)
{
    if ((int)op < 0 || op > PTO_NOP) op = PTO_NOP;
    return &pto__optab[op];
}

static int pto__streq(const char *a, const char *s, size_t len)
{
    return strncmp(a, s, len) == 0 && a[len] == 0;
}

PTODEF pto_op pto_op_lookup(const char *name, size_t len)
{
    int i;
    for (i = 0; i < PTO_NOP; i++)
        if (pto__streq(pto__optab[i].name, name, len)) return (pto_op)i;
    return PTO_NOP;
}

static const char *const pto__dtype_names[PTO_NDTYPE] = {"<none>", "f32", "f16", "bf16", "i32", "i8"};
static const int pto__dtype_sizes[PTO_NDTYPE] = {0, 4, 2, 2, 4, 1};
static const char *const pto__space_names[PTO_NSPACE] = {"gm", "vec", "mat", "left", "right", "acc", "bias", "scaling"};
static const char *const pto__pipe_names[PTO_NPIPE] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};
static const char *const pto__arch_names[PTO_NARCH] = {"a2a3", "a5"};
static const char *const pto__cmp_names[6] = {"==", "!=", "<", "<=", ">", ">="};

/* hardware.md section 2 */
static const int64_t pto__capacity[PTO_NARCH][PTO_NSPACE] = {
    /* gm, vec, mat, left, right, acc, bias, scaling */
    {0, 196608, 524288, 65536, 65536, 131072, 1024, 2048},
    {0, 262144, 524288, 65536, 65536, 262144, 4096, 4096},
};

PTODEF const char *pto_dtype_name(pto_dtype dt) { return (dt >= 0 && dt < PTO_NDTYPE) ? pto__dtype_names[dt] : "?"; }
PTODEF int pto_dtype_size(pto_dtype dt) { return (dt >= 0 && dt < PTO_NDTYPE) ? pto__dtype_sizes[dt] : 0; }
PTODEF pto_dtype pto_dtype_lookup(const char *name, size_t len)
{
    int i;
    for (i = 1; i < PTO_NDTYPE; i++)
        if (pto__streq(pto__dtype_names[i], name, len)) return (pto_dtype)i;
    return PTO_DT_NONE;
}
PTODEF const char *pto_space_name(pto_space s) { return (s >= 0 && s < PTO_NSPACE) ? pto__space_names[s] : "?"; }
PTODEF pto_space pto_space_lookup(const char *name, size_t len)
{
    int i;
    for (i = 1; i < PTO_NSPACE; i++)
        if (pto__streq(pto__space_names[i], name, len)) return (pto_space)i;
    return PTO_NSPACE;
}
PTODEF const char *pto_pipe_name(pto_pipe p) { return (p >= 0 && p < PTO_NPIPE) ? pto__pipe_names[p] : "?"; }
PTODEF pto_pipe pto_pipe_lookup(const char *name, size_t len)
{
    int i;
    for (i = 0; i < PTO_NPIPE; i++)
        if (pto__streq(pto__pipe_names[i], name, len)) return (pto_pipe)i;
    return PTO_NPIPE;
}
PTODEF const char *pto_arch_name(pto_arch a) { return (a >= 0 && a < PTO_NARCH) ? pto__arch_names[a] : "?"; }
PTODEF const char *pto_cmp_name(pto_cmp c) { return (c >= 0 && c <= PTO_GE) ? pto__cmp_names[c] : "?"; }

/* Whether `a cmp b` holds (an if's condition, a wait's test): the verifier
   and the interpreter decide it the same way. */
static int pto__cmp_holds(int cmp, int64_t a, int64_t b)
{
    switch (cmp) {
    case PTO_EQ: return a == b;
    case PTO_NE: return a != b;
    case PTO_LT: return a < b;
    case PTO_LE: return a <= b;
    case PTO_GT: return a > b;
    default: return a >= b;
    }
}

PTODEF int64_t pto_space_capacity(pto_arch arch, pto_space s)
{
    if (arch < 0 || arch >= PTO_NARCH || s < 0 || s >= PTO_NSPACE) return 0;
    return pto__capacity[arch][s];
}

/* Byte offsets into a tensor are int64 everywhere (the interpreter, the
   emitted kernels and host code): a tensor of static dims d0 x d1 must stay
   under 2^61 bytes so that offset arithmetic has headroom. 0 when it does
   (or when a dim is not a positive static one: reported elsewhere). */
static int pto__tensor_too_big(int dtype, int64_t d0, int64_t d1)
{
    int64_t es = (dtype >= 0 && dtype < PTO_NDTYPE) ? pto_dtype_size((pto_dtype)dtype) : 0;
    return d0 > 0 && d1 > 0 && es > 0 && d0 > INT64_MAX / 4 / d1 / es;
}

/* Whether expressions a and b are the same text (lets and vars by
   identity): the structural equality sync (loop rotations) and lower (the
   isa target's padding reads) decide with. Ids out of range or a tree
   deeper than any the parser makes (PTO__MAX_EXPR_DEPTH there: 256) are
   "not the same", so a hostile builder-made module cannot exhaust the stack. */
static int pto__expr_same_at(const pto_module *m, int32_t a, int32_t b, int depth)
{
    const pto_expr *x, *y;
    if (a == b) return 1;
    if (a < 0 || b < 0 || a >= m->n_exprs || b >= m->n_exprs || depth > 4096) return 0;
    x = &m->exprs[a];
    y = &m->exprs[b];
    if (x->kind != y->kind) return 0;
    switch (x->kind) {
    case PTO_E_INT: return x->value == y->value;
    case PTO_E_VAR: return x->a == y->a;
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS: return 1;
    case PTO_E_NEG: return pto__expr_same_at(m, x->a, y->a, depth + 1);
    default: return pto__expr_same_at(m, x->a, y->a, depth + 1) && pto__expr_same_at(m, x->b, y->b, depth + 1);
    }
}

static int pto__expr_same(const pto_module *m, int32_t a, int32_t b) { return pto__expr_same_at(m, a, b, 0); }

PTODEF int64_t pto_tile_bytes(const pto_tile *t)
{
    return (int64_t)t->rows * t->cols * pto_dtype_size((pto_dtype)t->dtype);
}

PTODEF const pto_operand *pto_stmt_arg(const pto_module *m, int32_t stmt, int i)
{
    const pto_stmt *s;
    if (stmt < 0 || stmt >= m->n_stmts) return NULL;
    s = &m->stmts[stmt];
    if (i < 0 || i >= s->nargs) return NULL;
    return &m->operands[s->arg0 + i];
}

/* The tload that tfillpad statement s completes: the statement before s in
   its block, sync ops aside, when it is a tload of the same tile; -1
   otherwise. lower puts its fills there, and a dump keeps them there, so a
   fill in that place is read back as lower's (verify.c, lower.c). */
static int32_t pto__fillpad_load(const pto_module *m, int32_t s)
{
    const pto_operand *f = pto_stmt_arg(m, s, 0), *l;
    int32_t p;
    if (!f || f->kind != PTO_O_TILE) return -1;
    for (p = m->stmts[s].prev; p >= 0; p = m->stmts[p].prev) {
        const pto_stmt *st = &m->stmts[p];
        if (st->kind != PTO_ST_OP || st->op >= PTO_NOP) return -1;
        if (pto_opinfo_get((pto_op)st->op)->cls != PTO_OC_SYNC) break;
    }
    if (p < 0 || m->stmts[p].op != PTO_OP_TLOAD || !(l = pto_stmt_arg(m, p, 0))) return -1;
    return l->kind == PTO_O_TILE && l->ref == f->ref ? p : -1;
}

static int pto__arg_space(const pto_module *m, int32_t stmt, int i)
{
    const pto_operand *o = pto_stmt_arg(m, stmt, i);
    if (!o) return -1;
    if (o->kind == PTO_O_GM) return PTO_GM;
    if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles) return m->tiles[o->ref].space;
    return -1;
}

PTODEF pto_pipe pto_stmt_pipe(const pto_module *m, int32_t stmt)
{
    const pto_stmt *s;
    int src;
    if (stmt < 0 || stmt >= m->n_stmts) return PTO_NPIPE;
    s = &m->stmts[stmt];
    if (s->kind != PTO_ST_OP) return PTO_PIPE_S;
    /* only these four depend on their operands' spaces: the others are
       their table row (no operand lookups for them; every pass asks) */
    if (s->op != PTO_OP_TSTORE && s->op != PTO_OP_TPUSH && s->op != PTO_OP_TMOV && s->op != PTO_OP_TFILLPAD)
        return pto_opinfo_get((pto_op)s->op)->pipe;
    /* pto-isa's TFILLPAD: the vector unit pads a UB tile; an L1 tile is
       padded by create_cbuf_matrix, an MTE2 instruction (after the load,
       in the same in-order queue) */
    if (s->op == PTO_OP_TFILLPAD) return pto__arg_space(m, stmt, 0) == PTO_MAT ? PTO_PIPE_MTE2 : PTO_PIPE_V;
    src = pto__arg_space(m, stmt, 1);
    switch (s->op) {
    case PTO_OP_TSTORE:
        return src == PTO_ACC ? PTO_PIPE_FIX : PTO_PIPE_MTE3;
    case PTO_OP_TPUSH:   /* hardware.md section 3: FIX from L0C, MTE3 from UB */
        return src == PTO_ACC ? PTO_PIPE_FIX : PTO_PIPE_MTE3;
    default:             /* tmov */
        if (src == PTO_ACC) return PTO_PIPE_FIX;
        if (src == PTO_VEC && pto__arg_space(m, stmt, 0) == PTO_VEC) return PTO_PIPE_V;
        return PTO_PIPE_MTE1;
    }
}

PTODEF int32_t pto_stmt_loop(const pto_module *m, int32_t stmt)
{
    int32_t b = stmt >= 0 && stmt < m->n_stmts ? m->stmts[stmt].block : -1;
    while (b >= 0) {
        int32_t owner = m->blocks[b].owner;
        if (owner < 0) return -1;
        if (m->stmts[owner].kind == PTO_ST_FOR) return owner;
        b = m->stmts[owner].block;
    }
    return -1;
}

/* ---- module ---- */

PTODEF pto_module *pto_module_create(pto_ctx *ctx, pto_arch arch)
{
    pto_module *m = (pto_module *)pto_alloc(ctx, sizeof *m);
    if (!m) { pto__oom(ctx); return NULL; }
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->arch = arch;
    return m;
}

PTODEF void pto_module_destroy(pto_module *m)
{
    pto_ctx *ctx;
    if (!m) return;
    ctx = m->ctx;
    pto_free(ctx, m->kernels);
    pto_free(ctx, m->params);
    pto_free(ctx, m->vars);
    pto_free(ctx, m->tiles);
    pto_free(ctx, m->stmts);
    pto_free(ctx, m->blocks);
    pto_free(ctx, m->operands);
    pto_free(ctx, m->exprs);
    pto_free(ctx, m->cvpipes);
    pto_free(ctx, m->hosts);
    pto_free(ctx, m->hstmts);
    pto_free(ctx, m);
}

/* Sets an empty PTO__ARRAY's capacity to `want` elements. Best effort: a
   failed reservation is not an error (the array still grows on demand). */
static void pto__reserve(pto_ctx *ctx, void **arr, int32_t n, int32_t *cap, size_t elem, size_t want)
{
    void *p;
    if (n != 0 || *arr || want <= 16 || want > (size_t)INT32_MAX / 2) return;
    p = pto__alloc_quiet(ctx, want * elem);
    if (!p) return;
    *arr = p;
    *cap = (int32_t)want;
}
#define PTO__RESERVE(m, arr, want) \
    pto__reserve((m)->ctx, (void **)&(m)->arr, (m)->n_##arr, &(m)->cap_##arr, sizeof(*(m)->arr), (want))

/* Sizes a fresh module's node arrays for a source of `len` bytes, so that a
   large file's arrays do not grow by doubling (each doubling copies the
   array and touches fresh pages). The ratios are a little above those of
   typical kernel text (about 32 bytes per statement, 23 per operand, 21 per
   expression, 137 per tile); pages of an unused tail are never touched. */
static void pto__module_reserve(pto_module *m, size_t len)
{
    PTO__RESERVE(m, stmts, len / 28);
    PTO__RESERVE(m, operands, len / 20);
    PTO__RESERVE(m, exprs, len / 18);
    PTO__RESERVE(m, tiles, len / 112);
    PTO__RESERVE(m, vars, len / 128);
    PTO__RESERVE(m, blocks, len / 256);
}

static int32_t pto__name(pto_module *m, const char *s) { return pto_intern(m->ctx, s, strlen(s)); }

/* A refused builder call: the error, and the module marked incomplete. */
static pto_status pto__api_error(pto_module *m, pto_loc loc, const char *fmt, ...)
{
    va_list ap;
    m->broken++;
    m->verified = 0;
    va_start(ap, fmt);
    pto__vdiag(m->ctx, PTO_SEV_ERROR, loc, fmt, ap);
    va_end(ap);
    return PTO_ERR_USER;
}

/* Checks of the C API's arguments: an id out of range, a NULL name, a
   statement of the wrong kind are a caller's mistake, reported as an error
   naming the builder, at the location given, and the builder returns -1
   without touching the module. An id of -1 (the result of a builder that
   failed before, which reported) is refused without a second error. */
static int pto__api_id(pto_module *m, const char *fn, const char *what, int32_t id, int32_t n, pto_loc loc)
{
    if (id >= 0 && id < n) return 1;
    if (id != -1 || pto_error_count(m->ctx) == 0)
        pto__api_error(m, loc, "%s: %s id %ld is out of range (the module has %ld)", fn, what, (long)id, (long)n);
    else
        m->broken++;
    m->verified = 0;
    return 0;
}

static int pto__api_name(pto_module *m, const char *fn, const char *name, pto_loc loc)
{
    if (name) return 1;
    pto__api_error(m, loc, "%s: the name is NULL", fn);
    return 0;
}

static int pto__api_block(pto_module *m, const char *fn, int32_t block, pto_loc loc)
{
    if (!pto__api_id(m, fn, "block", block, m->n_blocks, loc)) return 0;
    return pto__api_id(m, fn, "kernel of the block", m->blocks[block].kernel, m->n_kernels, loc);
}

PTODEF int32_t pto_add_block(pto_module *m, int32_t kernel, int32_t owner)
{
    pto_loc none = {0, 0, 0};
    int32_t b;
    if (!pto__api_id(m, "pto_add_block", "kernel", kernel, m->n_kernels, none)) return -1;
    if (owner != -1 && !pto__api_id(m, "pto_add_block", "owner statement", owner, m->n_stmts, none)) return -1;
    b = PTO__MPUSH_FAST(m, blocks);
    if (b < 0) return -1;
    m->blocks[b].head = m->blocks[b].tail = -1;
    m->blocks[b].owner = owner;
    m->blocks[b].kernel = kernel;
    return b;
}

PTODEF int32_t pto_add_kernel(pto_module *m, const char *name, pto_kernel_kind kind, pto_loc loc)
{
    int32_t k;
    if (!pto__api_name(m, "pto_add_kernel", name, loc)) return -1;
    k = PTO__MPUSH(m, kernels);
    if (k < 0) return -1;
    m->kernels[k].name = pto__name(m, name);
    m->kernels[k].kind = (uint8_t)kind;
    m->kernels[k].blocks = -1;
    m->kernels[k].param0 = m->n_params;
    m->kernels[k].loc = loc;
    m->kernels[k].body = pto_add_block(m, k, -1);
    return m->kernels[k].body < 0 ? -1 : k;
}

/* Params of a kernel are contiguous: only the newest kernel takes new ones. */
static int32_t pto__add_param(pto_module *m, const char *fn, int32_t kernel, const char *name, pto_loc loc)
{
    int32_t p;
    pto_kernel *k;
    if (!pto__api_id(m, fn, "kernel", kernel, m->n_kernels, loc) || !pto__api_name(m, fn, name, loc)) return -1;
    k = &m->kernels[kernel];
    if (kernel != m->n_kernels - 1 || k->param0 + k->nparams != m->n_params) {
        pto__api_error(m, loc, "%s: params of kernel '%s' must be added while it is the newest kernel and before "
                  "any other kernel's or host's params", fn, pto_str(m->ctx, k->name));
        return -1;
    }
    p = PTO__MPUSH(m, params);
    if (p < 0) return -1;
    m->kernels[kernel].nparams++;
    m->params[p].name = pto__name(m, name);
    m->params[p].dim_var[0] = m->params[p].dim_var[1] = -1;
    m->params[p].var = -1;
    m->params[p].loc = loc;
    return p;
}

PTODEF int32_t pto_add_tensor_param(pto_module *m, int32_t kernel, const char *name, pto_dir dir,
                                    pto_dtype dt, int64_t d0, int64_t d1, pto_loc loc)
{
    int32_t p = pto__add_param(m, "pto_add_tensor_param", kernel, name, loc);
    if (p < 0) return -1;
    m->params[p].kind = PTO_P_TENSOR;
    m->params[p].dir = (uint8_t)dir;
    m->params[p].dtype = (uint8_t)dt;
    m->params[p].dim[0] = d0;
    m->params[p].dim[1] = d1;
    return p;
}

PTODEF int32_t pto_find_var(const pto_module *m, int32_t kernel, const char *name)
{
    int32_t i;
    if (!name) return -1;
    for (i = m->n_vars - 1; i >= 0; i--)
        if (m->vars[i].kernel == kernel && strcmp(pto_str(m->ctx, m->vars[i].name), name) == 0) return i;
    return -1;
}

PTODEF int32_t pto_find_param(const pto_module *m, int32_t kernel, const char *name)
{
    const pto_kernel *k;
    int32_t i;
    if (!name || kernel < 0 || kernel >= m->n_kernels) return -1;
    k = &m->kernels[kernel];
    for (i = k->param0; i < k->param0 + k->nparams; i++)
        if (strcmp(pto_str(m->ctx, m->params[i].name), name) == 0) return i;
    return -1;
}

PTODEF int32_t pto_set_tile_nbuf(pto_module *m, int32_t tile, int32_t nbuf)
{
    pto_loc none = {0, 0, 0};
    if (!pto__api_id(m, "pto_set_tile_nbuf", "tile", tile, m->n_tiles, none)) return -1;
    if (nbuf < 1 || nbuf > PTO_MAX_NBUF)
        return pto__api_error(m, m->tiles[tile].loc, "pto_set_tile_nbuf: %ld slots for tile '%s' (1..%d)", (long)nbuf,
                              pto_str(m->ctx, m->tiles[tile].name), PTO_MAX_NBUF), -1;
    m->tiles[tile].nbuf = nbuf;
    m->verified = 0;
    return tile;
}

PTODEF int32_t pto_set_tile_valid(pto_module *m, int32_t tile, int32_t valid_rows, int32_t valid_cols)
{
    pto_loc none = {0, 0, 0};
    const char *fn = "pto_set_tile_valid";
    if (!pto__api_id(m, fn, "tile", tile, m->n_tiles, none)) return -1;
    if ((valid_rows != -1 && !pto__api_id(m, fn, "expr", valid_rows, m->n_exprs, m->tiles[tile].loc)) ||
        (valid_cols != -1 && !pto__api_id(m, fn, "expr", valid_cols, m->n_exprs, m->tiles[tile].loc)))
        return -1;
    m->tiles[tile].valid_r = valid_rows;
    m->tiles[tile].valid_c = valid_cols;
    m->verified = 0;
    return tile;
}

PTODEF int32_t pto_set_tile_pin(pto_module *m, int32_t tile, int64_t addr)
{
    pto_loc none = {0, 0, 0};
    if (!pto__api_id(m, "pto_set_tile_pin", "tile", tile, m->n_tiles, none)) return -1;
    if (addr < 0 && addr != PTO_NO_ADDR)
        return pto__api_error(m, m->tiles[tile].loc, "pto_set_tile_pin: address %lld for tile '%s' (>= 0, or PTO_NO_ADDR)",
                              (long long)addr, pto_str(m->ctx, m->tiles[tile].name)), -1;
    m->tiles[tile].pin = addr;
    m->verified = 0;
    return tile;
}

PTODEF int32_t pto_set_kernel_blocks(pto_module *m, int32_t kernel, int32_t blocks)
{
    pto_loc none = {0, 0, 0};
    const char *fn = "pto_set_kernel_blocks";
    if (!pto__api_id(m, fn, "kernel", kernel, m->n_kernels, none)) return -1;
    if (blocks != -1 && !pto__api_id(m, fn, "expr", blocks, m->n_exprs, m->kernels[kernel].loc)) return -1;
    m->kernels[kernel].blocks = blocks;
    m->verified = 0;
    return kernel;
}

PTODEF int32_t pto_set_dynamic_dim(pto_module *m, int32_t param, int d, const char *name)
{
    pto_param *p;
    pto_loc none = {0, 0, 0};
    int32_t kernel = m->n_kernels - 1, v = -1, i;
    const char *fn = "pto_set_dynamic_dim";
    if (!pto__api_id(m, fn, "param", param, m->n_params, none)) return -1;
    p = &m->params[param];
    if (!pto__api_name(m, fn, name, p->loc)) return -1;
    if (d != 0 && d != 1) return pto__api_error(m, p->loc, "%s: dim %d of '%s' (a tensor has dims 0 and 1)", fn, d,
                                           pto_str(m->ctx, p->name)), -1;
    if (p->kind != PTO_P_TENSOR || kernel < 0 || param < m->kernels[kernel].param0 ||
        param >= m->kernels[kernel].param0 + m->kernels[kernel].nparams)
        return pto__api_error(m, p->loc, "%s: '%s' is not a tensor param of the newest kernel", fn,
                         pto_str(m->ctx, p->name)), -1;
    for (i = 0; i < m->n_vars; i++)
        if (m->vars[i].kernel == kernel && m->vars[i].kind == PTO_V_DIM &&
            strcmp(pto_str(m->ctx, m->vars[i].name), name) == 0) v = i;
    if (v < 0) v = pto_add_var(m, kernel, name, PTO_V_DIM, param, p->loc);
    if (v < 0) return -1;
    p = &m->params[param];
    p->dim[d] = -1;
    p->dim_var[d] = v;
    m->verified = 0;
    return v;
}

PTODEF int32_t pto_add_scalar_param(pto_module *m, int32_t kernel, const char *name, pto_dtype dt,
                                    pto_loc loc)
{
    int32_t p = pto__add_param(m, "pto_add_scalar_param", kernel, name, loc), v;
    if (p < 0) return -1;
    m->params[p].kind = PTO_P_SCALAR;
    m->params[p].dir = PTO_IN;
    m->params[p].dtype = (uint8_t)dt;
    m->params[p].dim[0] = m->params[p].dim[1] = 1;
    v = pto_add_var(m, kernel, name, PTO_V_SCALAR, p, loc);
    if (v < 0) return -1;
    m->params[p].var = v;
    return p;
}

/* The builders below with the name already interned (the parser has its
   id from the lexer; re-interning the text would hash it again). */
static PTO__IR_INLINE int32_t pto__add_var_id(pto_module *m, int32_t kernel, int32_t name, pto_var_kind kind,
                                              int32_t def, pto_loc loc)
{
    int32_t v = PTO__MPUSH_FAST(m, vars);
    if (v < 0) return -1;
    m->vars[v].name = name;
    m->vars[v].kind = (uint8_t)kind;
    m->vars[v].kernel = kernel;
    m->vars[v].def = def;
    m->vars[v].loc = loc;
    return v;
}

PTODEF int32_t pto_add_var(pto_module *m, int32_t kernel, const char *name, pto_var_kind kind,
                           int32_t def, pto_loc loc)
{
    if (!pto__api_name(m, "pto_add_var", name, loc)) return -1;
    if ((int)kind < PTO_V_LET || (int)kind > PTO_V_SCALAR) {
        pto__api_error(m, loc, "pto_add_var: kind %d is no pto_var_kind (PTO_V_LET .. PTO_V_SCALAR)", (int)kind);
        return -1;
    }
    return pto__add_var_id(m, kernel, pto__name(m, name), kind, def, loc);
}

/* ---- expressions ---- */

static inline int32_t pto__expr(pto_module *m, pto_expr_kind k, int32_t a, int32_t b, int64_t v, pto_loc loc)
{
    int32_t e = PTO__MPUSH_FAST(m, exprs);
    if (e < 0) return -1;
    m->exprs[e].kind = (uint8_t)k;
    m->exprs[e].a = a;
    m->exprs[e].b = b;
    m->exprs[e].value = v;
    m->exprs[e].loc = loc;
    return e;
}

PTODEF int32_t pto_expr_int(pto_module *m, int64_t v, pto_loc loc) { return pto__expr(m, PTO_E_INT, -1, -1, v, loc); }
PTODEF int32_t pto_expr_var(pto_module *m, int32_t var, pto_loc loc) { return pto__expr(m, PTO_E_VAR, var, -1, 0, loc); }
PTODEF int32_t pto_expr_builtin(pto_module *m, pto_expr_kind k, pto_loc loc) { return pto__expr(m, k, -1, -1, 0, loc); }
/* A binary node's operands must exist already: an id >= n_exprs (the new
   node's own, say) would make a cycle, which every recursive walk of the
   tree would follow without end (review29 H1). So operands are always
   older than the node that reads them, which pto_verify checks again for
   modules written directly. A -1 operand (a builder that failed and
   reported) is refused without a second error. */
PTODEF int32_t pto_expr_bin(pto_module *m, pto_expr_kind k, int32_t a, int32_t b, pto_loc loc)
{
    if (k < PTO_E_ADD || k > PTO_E_NEG) {
        pto__api_error(m, loc, "pto_expr_bin: kind %d is not a binary expression kind (PTO_E_ADD .. PTO_E_MAX, "
                       "or PTO_E_NEG)", (int)k);
        return -1;
    }
    if (!pto__api_id(m, "pto_expr_bin", "operand expression", a, m->n_exprs, loc)) return -1;
    if (k == PTO_E_NEG) b = -1;
    else if (!pto__api_id(m, "pto_expr_bin", "operand expression", b, m->n_exprs, loc)) return -1;
    return pto__expr(m, k, a, b, 0, loc);
}

/* ---- statements ---- */

/* pto_new_stmt and pto_append, inline for the builders (the parser makes
   a statement per line). */
static inline int32_t pto__new_stmt(pto_module *m, pto_stmt_kind kind, pto_loc loc)
{
    int32_t s = PTO__MPUSH_FAST(m, stmts);
    pto_stmt *st;
    if (s < 0) return -1;
    st = &m->stmts[s];
    st->kind = (uint8_t)kind;
    st->next = st->prev = st->block = -1;
    st->ref = -1;
    st->e[0] = st->e[1] = st->e[2] = -1;
    st->body = st->orelse = -1;
    st->arg0 = m->n_operands;
    st->loc = loc;
    return s;
}

PTODEF int32_t pto_new_stmt(pto_module *m, pto_stmt_kind kind, pto_loc loc) { return pto__new_stmt(m, kind, loc); }

/* The core of a new statement follows its block: a section sets it, a kernel
   of kind cube makes it the cube core. */
static uint8_t pto__block_core(const pto_module *m, int32_t block)
{
    int32_t owner = m->blocks[block].owner;
    if (owner >= 0) return m->stmts[owner].core;
    return m->kernels[m->blocks[block].kernel].kind == PTO_KK_CUBE ? PTO_CORE_CUBE : PTO_CORE_VECTOR;
}

static inline void pto__append(pto_module *m, int32_t block, int32_t s)
{
    pto_block *b = &m->blocks[block];
    pto_stmt *st = &m->stmts[s];
    st->block = block;
    st->prev = b->tail;
    st->next = -1;
    if (b->tail >= 0) m->stmts[b->tail].next = s; else b->head = s;
    b->tail = s;
}

/* The relinking calls change the module: they clear the verified stamp
   (ir.h); lower and sync, which relink, stamp it again when they succeed.
   They check their arguments like the builders (review29 H2): ids in
   range, the statement to place detached (one already linked would sit in
   two places of the lists: a cycle that every walk follows forever, or the
   statements after it lost), the anchor of an insert linked. A refusal is
   an error naming the call, at the statement's location, and marks the
   module broken; the lists are left as they were. */
static int pto__relink_stmt(pto_module *m, const char *fn, const char *what, int32_t s, pto_loc *loc)
{
    pto_loc none = {0, 0, 0};
    none.file = m->file;
    *loc = none;
    m->verified = 0;
    if (!pto__api_id(m, fn, what, s, m->n_stmts, none)) return 0;
    *loc = m->stmts[s].loc;
    return 1;
}

/* s: the statement to place, detached; returns its location in *loc */
static int pto__relink_detached(pto_module *m, const char *fn, int32_t s, pto_loc *loc)
{
    int32_t b;
    if (!pto__relink_stmt(m, fn, "statement", s, loc)) return 0;
    b = m->stmts[s].block;
    if (b < 0) return 1;
    pto__api_error(m, *loc, "%s: statement %ld is already linked (in block %ld): pto_unlink it first", fn, (long)s,
                   (long)b);
    return 0;
}

/* at: the anchor of an insert, linked into a valid block */
static int pto__relink_anchor(pto_module *m, const char *fn, int32_t at, pto_loc loc)
{
    pto_loc l;
    int32_t b;
    if (!pto__relink_stmt(m, fn, "anchor statement", at, &l)) return 0;
    b = m->stmts[at].block;
    if (b >= 0 && b < m->n_blocks) return 1;
    pto__api_error(m, loc, "%s: anchor statement %ld is not linked into a block (block %ld)", fn, (long)at, (long)b);
    return 0;
}

/* The checks above in line, for the passes' calls (sync inserts a flag
   per dependency): only a refusal goes through them to find its message. */
static PTO__IR_INLINE int pto__relink_fine(const pto_module *m, int32_t s, int32_t at, int32_t block /* -1: at */)
{
    return (uint32_t)s < (uint32_t)m->n_stmts && m->stmts[s].block < 0 &&
           (block >= 0 ? (uint32_t)block < (uint32_t)m->n_blocks
                       : (uint32_t)at < (uint32_t)m->n_stmts && (uint32_t)m->stmts[at].block < (uint32_t)m->n_blocks);
}

/* Reports why a placement was refused: into `block` (append, prepend) or
   next to anchor `at` (the inserts). */
static void pto__relink_refuse(pto_module *m, const char *fn, int32_t s, int anchored, int32_t at, int32_t block)
{
    pto_loc loc;
    if (!pto__relink_detached(m, fn, s, &loc)) return;
    if (!anchored) pto__api_id(m, fn, "block", block, m->n_blocks, loc);
    else pto__relink_anchor(m, fn, at, loc);
}

PTODEF void pto_append(pto_module *m, int32_t block, int32_t s)
{
    m->verified = 0;
    if (block < 0 || !pto__relink_fine(m, s, -1, block)) { pto__relink_refuse(m, "pto_append", s, 0, -1, block); return; }
    pto__append(m, block, s);
}

PTODEF void pto_prepend(pto_module *m, int32_t block, int32_t s)
{
    pto_block *b;
    pto_stmt *st;
    m->verified = 0;
    if (block < 0 || !pto__relink_fine(m, s, -1, block)) { pto__relink_refuse(m, "pto_prepend", s, 0, -1, block); return; }
    b = &m->blocks[block];
    st = &m->stmts[s];
    st->block = block;
    st->next = b->head;
    st->prev = -1;
    if (b->head >= 0) m->stmts[b->head].prev = s; else b->tail = s;
    b->head = s;
}

PTODEF void pto_insert_before(pto_module *m, int32_t at, int32_t s)
{
    pto_stmt *a, *st;
    m->verified = 0;
    if (!pto__relink_fine(m, s, at, -1)) { pto__relink_refuse(m, "pto_insert_before", s, 1, at, -1); return; }
    a = &m->stmts[at];
    st = &m->stmts[s];
    st->block = a->block;
    st->next = at;
    st->prev = a->prev;
    if (a->prev >= 0) m->stmts[a->prev].next = s; else m->blocks[a->block].head = s;
    a->prev = s;
}

PTODEF void pto_insert_after(pto_module *m, int32_t at, int32_t s)
{
    pto_stmt *a, *st;
    m->verified = 0;
    if (!pto__relink_fine(m, s, at, -1)) { pto__relink_refuse(m, "pto_insert_after", s, 1, at, -1); return; }
    a = &m->stmts[at];
    st = &m->stmts[s];
    st->block = a->block;
    st->prev = at;
    st->next = a->next;
    if (a->next >= 0) m->stmts[a->next].prev = s; else m->blocks[a->block].tail = s;
    a->next = s;
}

/* A detached statement stays as it is (no error: passes unlink what they
   may have unlinked already). */
PTODEF void pto_unlink(pto_module *m, int32_t s)
{
    pto_stmt *st;
    pto_loc loc;
    if (!pto__relink_stmt(m, "pto_unlink", "statement", s, &loc)) return;
    st = &m->stmts[s];
    if (st->block < 0) return;
    if (st->block >= m->n_blocks) {
        pto__api_error(m, loc, "pto_unlink: statement %ld is in block %ld, which is out of range (the module has %ld)",
                       (long)s, (long)st->block, (long)m->n_blocks);
        return;
    }
    if (st->prev >= 0) m->stmts[st->prev].next = st->next; else m->blocks[st->block].head = st->next;
    if (st->next >= 0) m->stmts[st->next].prev = st->prev; else m->blocks[st->block].tail = st->prev;
    st->block = st->next = st->prev = -1;
}

/* A new statement at the end of `block`. With room in the array (a parsed
   module's is reserved from the source size) it is written in place, each
   field once, instead of zeroed, filled (pto__new_stmt) and linked
   (pto__append): the parser adds one per line. */
static PTO__IR_INLINE int32_t pto__add_stmt(pto_module *m, int32_t block, pto_stmt_kind kind, pto_loc loc)
{
    pto_block *b = &m->blocks[block];
    pto_stmt *st;
    int32_t s, tail = b->tail;
    if (m->n_stmts >= m->cap_stmts) {
        s = pto__new_stmt(m, kind, loc);
        if (s < 0) return -1;
        m->stmts[s].core = pto__block_core(m, block);
        pto__append(m, block, s);
        return s;
    }
    s = m->n_stmts++;
    m->verified = 0;
    st = &m->stmts[s];
    memset(st, 0, offsetof(pto_stmt, next));   /* the small fields and the padding after them */
    st->kind = (uint8_t)kind;
    st->core = pto__block_core(m, block);
    st->next = -1;
    st->prev = tail;
    st->block = block;
    st->ref = -1;
    st->e[0] = st->e[1] = st->e[2] = -1;
    st->body = st->orelse = -1;
    st->arg0 = m->n_operands;
    st->nargs = 0;
    st->note = 0;
    st->loc = loc;
    if (tail >= 0) m->stmts[tail].next = s; else b->head = s;
    b->tail = s;
    return s;
}

static PTO__IR_INLINE int32_t pto__add_tile_id(pto_module *m, int32_t block, int32_t name, pto_space space,
                                               pto_dtype dt, int32_t rows, int32_t cols, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_TILE, loc), t;
    pto_tile *tl;
    if (s < 0) return -1;
    t = PTO__MPUSH_FAST(m, tiles);
    if (t < 0) return -1;
    tl = &m->tiles[t];
    tl->name = name;
    tl->kernel = m->blocks[block].kernel;
    tl->space = (uint8_t)space;
    tl->dtype = (uint8_t)dt;
    tl->core = m->stmts[s].core;
    tl->rows = rows;
    tl->cols = cols;
    tl->valid_r = tl->valid_c = -1;
    tl->nbuf = 1;
    tl->decl = s;
    tl->pin = PTO_NO_ADDR;
    tl->loc = loc;
    m->stmts[s].ref = t;
    return t;
}

static int32_t pto__add_let_id(pto_module *m, int32_t block, int32_t name, int32_t value, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_LET, loc), v;
    if (s < 0) return -1;
    v = pto__add_var_id(m, m->blocks[block].kernel, name, PTO_V_LET, s, loc);
    if (v < 0) return -1;
    m->stmts[s].ref = v;
    m->stmts[s].e[0] = value;
    return s;
}

static int32_t pto__add_for_id(pto_module *m, int32_t block, int32_t var, int32_t start,
                               int32_t end, int32_t step, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_FOR, loc), v, body;
    if (s < 0) return -1;
    v = pto__add_var_id(m, m->blocks[block].kernel, var, PTO_V_LOOP, s, loc);
    body = pto_add_block(m, m->blocks[block].kernel, s);
    if (v < 0 || body < 0) return -1;
    m->stmts[s].ref = v;
    m->stmts[s].e[0] = start;
    m->stmts[s].e[1] = end;
    m->stmts[s].e[2] = step;
    m->stmts[s].body = body;
    return s;
}

PTODEF int32_t pto_add_tile(pto_module *m, int32_t block, const char *name, pto_space space,
                            pto_dtype dt, int32_t rows, int32_t cols, pto_loc loc)
{
    if (!pto__api_block(m, "pto_add_tile", block, loc) || !pto__api_name(m, "pto_add_tile", name, loc)) return -1;
    return pto__add_tile_id(m, block, pto__name(m, name), space, dt, rows, cols, loc);
}

PTODEF int32_t pto_add_let(pto_module *m, int32_t block, const char *name, int32_t value, pto_loc loc)
{
    if (!pto__api_block(m, "pto_add_let", block, loc) || !pto__api_name(m, "pto_add_let", name, loc)) return -1;
    return pto__add_let_id(m, block, pto__name(m, name), value, loc);
}

PTODEF int32_t pto_add_for(pto_module *m, int32_t block, const char *var, int32_t start,
                           int32_t end, int32_t step, pto_loc loc)
{
    if (!pto__api_block(m, "pto_add_for", block, loc) || !pto__api_name(m, "pto_add_for", var, loc)) return -1;
    return pto__add_for_id(m, block, pto__name(m, var), start, end, step, loc);
}

PTODEF int32_t pto_add_if(pto_module *m, int32_t block, int32_t lhs, pto_cmp cmp, int32_t rhs,
                          pto_loc loc)
{
    int32_t s, body;
    if (!pto__api_block(m, "pto_add_if", block, loc)) return -1;
    s = pto__add_stmt(m, block, PTO_ST_IF, loc);
    if (s < 0) return -1;
    body = pto_add_block(m, m->blocks[block].kernel, s);
    if (body < 0) return -1;
    m->stmts[s].e[0] = lhs;
    m->stmts[s].e[1] = rhs;
    m->stmts[s].cmp = (uint8_t)cmp;
    m->stmts[s].body = body;
    return s;
}

PTODEF int32_t pto_if_else(pto_module *m, int32_t ifstmt)
{
    int32_t b;
    pto_loc none = {0, 0, 0};
    if (!pto__api_id(m, "pto_if_else", "statement", ifstmt, m->n_stmts, none)) return -1;
    if (m->stmts[ifstmt].kind != PTO_ST_IF || m->stmts[ifstmt].block < 0)
        return pto__api_error(m, m->stmts[ifstmt].loc, "pto_if_else: statement %ld is not an if placed in a block",
                         (long)ifstmt), -1;
    if (m->stmts[ifstmt].orelse >= 0) return m->stmts[ifstmt].orelse;
    b = pto_add_block(m, m->blocks[m->stmts[ifstmt].block].kernel, ifstmt);
    if (b >= 0) m->stmts[ifstmt].orelse = b;
    return b;
}

PTODEF int32_t pto_add_section(pto_module *m, int32_t block, pto_core core, pto_loc loc)
{
    int32_t s, body;
    if (!pto__api_block(m, "pto_add_section", block, loc)) return -1;
    s = pto__add_stmt(m, block, PTO_ST_SECTION, loc);
    if (s < 0) return -1;
    m->stmts[s].core = (uint8_t)core;
    m->stmts[s].ref = (int32_t)core;
    body = pto_add_block(m, m->blocks[block].kernel, s);
    if (body < 0) return -1;
    m->stmts[s].body = body;
    return s;
}

/* pto_add_op for the parser, whose block ids are its own (valid): without
   the API check. */
static int32_t pto__add_op_id(pto_module *m, int32_t block, pto_op op, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_OP, loc);
    if (s < 0) return -1;
    m->stmts[s].op = (uint16_t)op;
    return s;
}

PTODEF int32_t pto_add_op(pto_module *m, int32_t block, pto_op op, pto_loc loc)
{
    int32_t s;
    if (!pto__api_block(m, "pto_add_op", block, loc)) return -1;
    s = pto__add_stmt(m, block, PTO_ST_OP, loc);
    if (s < 0) return -1;
    m->stmts[s].op = (uint16_t)op;
    return s;
}

/* Operands of one statement are contiguous, so they must be added right
   after the statement, before any other statement's operands. */
/* A new zeroed operand at the end of the operand array (no expressions
   yet); the statement or host call that owns it counts it in nargs. */
static inline int32_t pto__operand_new(pto_module *m, pto_operand_kind kind, int32_t ref, pto_loc loc)
{
    int32_t o = PTO__MPUSH_FAST(m, operands);
    if (o < 0) return -1;
    m->operands[o].kind = (uint8_t)kind;
    m->operands[o].ref = ref;
    m->operands[o].e[0] = m->operands[o].e[1] = m->operands[o].e[2] = -1;
    m->operands[o].loc = loc;
    return o;
}

static inline int32_t pto__arg(pto_module *m, int32_t stmt, pto_operand_kind kind, int32_t ref, pto_loc loc)
{
    int32_t o;
    pto_stmt *s;
    if (!pto__api_id(m, "pto_arg_*", "statement", stmt, m->n_stmts, loc)) return -1;
    s = &m->stmts[stmt];
    if (s->kind != PTO_ST_OP)
        return pto__api_error(m, loc, "pto_arg_*: statement %ld is not an op statement (pto_add_op makes one)",
                         (long)stmt), -1;
    if (s->arg0 + s->nargs != m->n_operands)
        return pto__api_error(m, loc, "pto_arg_*: an operand of statement %ld (%s, line %ld) added after another "
                         "statement's operands: add a statement's operands right after pto_add_op, before "
                         "the next statement's", (long)stmt, pto_opinfo_get((pto_op)s->op)->name,
                         (long)s->loc.line), -1;
    o = pto__operand_new(m, kind, ref, loc);
    if (o >= 0) m->stmts[stmt].nargs++;
    return o;
}

/* A param's enum fields, as the C API may have set them: a value outside
   its enum is named by its number (for kernels and hosts alike). */
static void pto__param_enums(pto_ctx *ctx, const pto_param *p, const char *pn)
{
    if (p->dtype == PTO_DT_NONE) pto_error(ctx, p->loc, "'%s' needs a dtype", pn);
    else if (p->dtype >= PTO_NDTYPE) pto_error(ctx, p->loc, "'%s' has dtype %d, which is no pto_dtype", pn, (int)p->dtype);
    if (p->kind == PTO_P_TENSOR && p->dir > PTO_INOUT)
        pto_error(ctx, p->loc, "tensor '%s' has direction %d, which is no pto_dir (PTO_IN, PTO_OUT, PTO_INOUT)", pn,
                  (int)p->dir);
}

/* "a tile or a scalar": what an operand mask allows, for messages (the parser
   and the verifier say it the same way). */
static void pto__arg_expected(uint32_t mask, char *buf, size_t size)
{
    const char *parts[8];
    int n = 0, i;
    size_t len = 0;
    if (mask & PTO_A_TILES) parts[n++] = "a tile";
    if (mask & PTO_A_GM) parts[n++] = "a GM window";
    if (mask & PTO_A_SCALAR) parts[n++] = "a scalar";
    if (mask & PTO_A_INT) parts[n++] = "an integer";
    if (mask & PTO_A_PIPE) parts[n++] = "a pipe";
    if (mask & PTO_A_CVPIPE) parts[n++] = "a cube/vector pipe";
    if (mask & PTO_A_CMP) parts[n++] = "a comparison (eq ne lt le gt ge)";
    if (mask & PTO_A_NMODE) parts[n++] = "a notify mode (set add)";
    buf[0] = 0;
    for (i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " or " : "", parts[i]);
}

/* pto__arg without its checks, for the parser: its statement is always the
   op statement it added last (pto__add_op_id), whose operands are the
   last ones, so the checks hold by construction; each costs more than the
   operand itself. The values are set by the caller as pto_arg_* does. */
static inline int32_t pto__arg_last(pto_module *m, int32_t stmt, pto_operand_kind kind, int32_t ref, pto_loc loc)
{
    int32_t o = pto__operand_new(m, kind, ref, loc);
    if (o >= 0) m->stmts[stmt].nargs++;
    return o;
}

PTODEF int32_t pto_arg_tile(pto_module *m, int32_t stmt, int32_t tile, pto_loc loc)
{
    if (!pto__api_id(m, "pto_arg_tile", "tile", tile, m->n_tiles, loc)) return -1;
    return pto__arg(m, stmt, PTO_O_TILE, tile, loc);
}

PTODEF int32_t pto_arg_gm(pto_module *m, int32_t stmt, int32_t param, int32_t row, int32_t col,
                          int32_t rank, pto_loc loc)
{
    int32_t o;
    if (!pto__api_id(m, "pto_arg_gm", "param", param, m->n_params, loc)) return -1;
    o = pto__arg(m, stmt, PTO_O_GM, param, loc);
    if (o < 0) return -1;
    m->operands[o].e[0] = row;
    m->operands[o].e[1] = col;
    m->operands[o].e[2] = rank;
    return o;
}

PTODEF int32_t pto_arg_float(pto_module *m, int32_t stmt, double v, pto_loc loc)
{
    int32_t o = pto__arg(m, stmt, PTO_O_FLOAT, -1, loc);
    if (o >= 0) m->operands[o].f = v;
    return o;
}

PTODEF int32_t pto_arg_scalar(pto_module *m, int32_t stmt, int32_t var, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_SCALAR, var, loc);
}

PTODEF int32_t pto_arg_int(pto_module *m, int32_t stmt, int32_t expr, pto_loc loc)
{
    int32_t o = pto__arg(m, stmt, PTO_O_INT, -1, loc);
    if (o >= 0) m->operands[o].e[0] = expr;
    return o;
}

PTODEF int32_t pto_arg_pipe(pto_module *m, int32_t stmt, pto_pipe p, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_PIPE, (int32_t)p, loc);
}

/* ---- cube <-> vector pipes ----------------------------------------------- */

PTODEF int32_t pto_arg_cvpipe(pto_module *m, int32_t stmt, int32_t cvpipe, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_CVPIPE, cvpipe, loc);
}

/* The first id of `need` consecutive cross-core flags after the ids the
   kernel's earlier pipes hold, skipping a2a3's reserved 11..14; -1 if none. */
static int32_t pto__cv_flag(const pto_module *m, int32_t kernel, int need)
{
    int32_t i, next = 0;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *p = &m->cvpipes[i];
        if (p->kernel == kernel && p->flag_id >= 0) next = p->flag_id + (p->dir == PTO_BOTH ? 4 : 2);
    }
    if (m->arch == PTO_ARCH_A2A3 && next <= 14 && next + need - 1 >= 11) next = 15;
    return next + need <= 16 ? next : -1;
}

PTODEF int32_t pto_add_cvpipe(pto_module *m, int32_t kernel, const char *name, pto_cvdir dir, pto_dtype dt,
                              int32_t rows, int32_t cols, int32_t slot_num, int32_t local_slot_num,
                              pto_cvsplit split, pto_loc loc)
{
    int32_t i, ring = 0, id;
    pto_cvpipe *p;
    if (!pto__api_id(m, "pto_add_cvpipe", "kernel", kernel, m->n_kernels, loc) ||
        !pto__api_name(m, "pto_add_cvpipe", name, loc)) return -1;
    id = PTO__MPUSH(m, cvpipes);
    if (id < 0) return -1;
    for (i = 0; i < id; i++) ring += m->cvpipes[i].kernel == kernel;
    p = &m->cvpipes[id];
    p->name = pto__name(m, name);
    p->kernel = kernel;
    p->dir = (uint8_t)dir;
    p->dtype = (uint8_t)dt;
    p->rows = rows;
    p->cols = cols;
    p->split = (uint8_t)split;
    /* normalised here, once: an omitted count is exactly its default */
    p->slot_num = slot_num ? slot_num : dir == PTO_BOTH ? 4 : 8;
    p->local_slot_num = local_slot_num ? local_slot_num : 2;
    p->slot_size = (int32_t)((int64_t)rows * cols * pto_dtype_size(dt) > INT32_MAX ? INT32_MAX
                             : (int64_t)rows * cols * pto_dtype_size(dt));
    p->ring = ring;
    p->flag_id = -1;
    p->flag_id = pto__cv_flag(m, kernel, dir == PTO_BOTH ? 4 : 2);
    p->loc = loc;
    return id;
}

PTODEF int32_t pto_find_cvpipe(const pto_module *m, int32_t kernel, const char *name)
{
    int32_t i;
    if (!name) return -1;
    for (i = 0; i < m->n_cvpipes; i++)
        if (m->cvpipes[i].kernel == kernel && strcmp(pto_str(m->ctx, m->cvpipes[i].name), name) == 0) return i;
    return -1;
}

PTODEF int64_t pto_cvpipe_gm_bytes(const pto_cvpipe *p)
{
    return (int64_t)(p->dir == PTO_BOTH ? 2 : 1) * p->slot_num * p->slot_size;
}

PTODEF int64_t pto_cvpipe_gm_offset(const pto_module *m, int32_t cvpipe)
{
    int64_t off = 0;
    int32_t i;
    if (cvpipe < 0 || cvpipe >= m->n_cvpipes) return 0;
    for (i = 0; i < cvpipe; i++)
        if (m->cvpipes[i].kernel == m->cvpipes[cvpipe].kernel) off += pto_cvpipe_gm_bytes(&m->cvpipes[i]);
    return off;
}

PTODEF int64_t pto_kernel_pipe_bytes(const pto_module *m, int32_t kernel)
{
    int64_t n = 0;
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++)
        if (m->cvpipes[i].kernel == kernel) n += pto_cvpipe_gm_bytes(&m->cvpipes[i]);
    return n;
}

PTODEF int32_t pto_arg_cmp(pto_module *m, int32_t stmt, pto_cmp c, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_CMP, (int32_t)c, loc);
}

PTODEF int32_t pto_arg_nmode(pto_module *m, int32_t stmt, pto_notify_mode mode, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_NMODE, (int32_t)mode, loc);
}

static const char *const pto__cmp_words[6] = {"eq", "ne", "lt", "le", "gt", "ge"};
static const char *const pto__nmode_names[2] = {"set", "add"};

PTODEF const char *pto_cmp_word(pto_cmp c) { return (c >= 0 && c < 6) ? pto__cmp_words[c] : "?"; }
PTODEF int pto_cmp_word_lookup(const char *name, size_t len)
{
    int i;
    for (i = 0; i < 6; i++)
        if (pto__streq(pto__cmp_words[i], name, len)) return i;
    return -1;
}
PTODEF const char *pto_nmode_name(pto_notify_mode mode) { int i = (int)mode; return i >= 0 && i < 2 ? pto__nmode_names[i] : "?"; }
PTODEF int pto_nmode_lookup(const char *name, size_t len)
{
    int i;
    for (i = 0; i < 2; i++)
        if (pto__streq(pto__nmode_names[i], name, len)) return i;
    return -1;
}
