/* verify.c - the verifier: every rule of the IR that a user can break.

   Needs: a module as the parser or the C API builds it (ids may be wrong when
   the C API is misused; the verifier checks them before following them).

   Guarantees on PTO_OK, for the planner, the sync inserter, the emitter and
   the interpreter (and sets pto_module.verified, the stamp those passes
   check; a failure clears it; ir.h):
     - every name resolves: tiles and let/loop vars are used only where they
       are in scope, in their own kernel; no name shadows another;
     - every op has the operand count, kinds, spaces, dtypes and shapes its
       row of the op table and its class demand (matmul [M,K]x[K,N]->[M,N],
       row reductions to [R,1], column reductions to [1,C] with the
       valid cols of their source, column broadcasts of a [1,C] row that
       covers the valid cols, ...), reads only tiles some earlier write (or
       a write later in an enclosing loop, for a tile declared outside that
       loop) can have filled, and never reads an `out` or writes an `in`
       tensor;
     - every tile fits its space (times its xN slots), keeps 32-byte rows (or
       32-byte columns for [R,1] vectors) in vec, is whole fractals in
       mat/left/right/acc, has a sane pin, a valid region inside its shape,
       and xN only inside a loop;
     - GM windows, textract windows, valid regions, loop steps, block counts
       and event ids that are known statically are in range (M -> FIX ids
       above 2, which hung a device, draw a warning); textract
       offsets known statically are whole fractals of the mat tile;
     - no two blocks of a kernel of a constant block count store into one
       element or one 32-byte block of a tensor of constant shape, where
       the windows fold to constants per block and loop trip (pto__vxblock_gm);
     - mix kernels are exactly a cube section and a vector section, each using
       only its own core's memories and pipes;
     - cube <-> vector pipes have counts in range (after normalisation), flag
       ids and a ring left; each tpush / tpop runs on the producer / consumer
       core of the pipe's direction with the pipe's dtype and this core's
       shape; a pipe pops into one tile per section; a tpush into a v2c
       pipe without a split is guarded from AIV 1 (subblock 1) by an
       enclosing if, while both AIVs push into a split v2c pipe and pop
       and free a c2v pipe (an op an if keeps from one AIV needs a twin
       that AIV reaches); and on every path a tpop is followed by its tfree
       before the next tpop or the end.

   How: one pass per kernel checks the statements in program order (phase 1),
   numbering them as it goes and noting which tiles some earlier statement
   writes. A read with no earlier write inside a loop that its tile is
   declared outside of may still be filled by a write later in that loop:
   only then, once per kernel, a first pass (phase 0) lists every tile write
   with its position. Correct kernels rarely need it (a tile read before any
   write in program order is an accumulator or a mistake), so the module is
   usually walked once. Both walk the statement lists iteratively (no
   recursion on nesting depth), so the cost is linear in the size of the
   module. Integer expressions are folded into
   affine forms (const + sum k * var) over loop vars with static bounds and
   `block` with a static block count; the extremes of such a form are exact,
   so a window indexed by `block * 128 + i * 16` is checked at both ends
   without false alarms. Anything not affine is simply not checked statically.

   Every error is reported (up to the context's limit) and checking goes on. */

#define PTO__VK 4              /* terms of an affine form */
#define PTO__VBLOCK (-2)       /* the `block` builtin as a term of a form */
#define PTO__VDEPTH 2000       /* deepest expression tree accepted */
#define PTO__IN_BLOCKS 1       /* expression context: a blocks(...) count */

/* const + sum k[i] * var[i]; ok = 0 when the expression is not affine (or
   not foldable at all). */
typedef struct pto__vform {
    int ok, n;
    int64_t c;
    int32_t var[PTO__VK];
    int64_t k[PTO__VK];
} pto__vform;

/* One tile write: its program-order position and the tile's next write. */
typedef struct pto__vwrite { int32_t pos, next; } pto__vwrite;

/* What a name is bound to while it is in scope. */
enum { PTO__N_NONE, PTO__N_PARAM, PTO__N_DIM, PTO__N_TILE, PTO__N_VAR };

/* Per-tile flags. */
#define PTO__T_SCOPE 1         /* declared and in scope now */
#define PTO__T_UNINIT 2        /* an uninitialised read was reported already */
#define PTO__T_VALID 4         /* tvalid holds its valid(...) forms; else its shape is its valid region */
#define PTO__T_WRITTEN 8       /* a statement already checked writes it (phase 1) */
#define PTO__T_DEADW 16        /* a write of it was dropped: code that never runs (phase 1) */

typedef struct pto__verifier {
    pto_ctx *ctx;
    pto_module *m;
    int phase;                 /* 0: number + collect writes; 1: check */
    int collected;             /* phase 0 ran for this kernel */
    int internal;              /* an internal failure (oom, malformed lists) */
    int malformed;             /* ... the statement lists are malformed */
    int32_t kernel;
    int core;                  /* core of the statements being checked, -1 none */
    int32_t space_err_stmt;    /* pto__vtile_space_error: the statement and space it last reported */
    int space_err_space;
    int64_t nblocks;           /* static block count, or -1 */
    int32_t counter;           /* program-order position */
    int ranks_err;             /* this kernel has an error that says it is not a ranks kernel */
    uint8_t *kerr;             /* per kernel: it had an error (pto__vunwritten leaves it alone) */
    uint8_t *pwritten;         /* per param: a GM window of it is written (phase 1) */
    /* per param, 2 each (phase 1, 1 + the statement, 0 none): the first allreduce that counts its
       barriers in the param's cell [0, 0], and the first notify / wait of that cell (pto__vsig_cell) */
    int32_t *psig;
    int32_t here_pos;          /* phase 1: the position of the statement being checked */
    int32_t here_stmt;         /* the op statement whose operands are checked */
    /* a row / column reduction's tile reads that nothing may have written yet: reported after its
       other checks, and not when one of them found the operands swapped (`trowsum a, m`: "'m' is
       read before anything writes it" only follows from the order) */
    int32_t nread, readt[4];
    const pto_operand *reado[4];
    int swapped;
    pto_loc here;              /* the statement being checked */
    int32_t ifdepth;
    /* PTO__T_WRITTEN is per path: the writes of an if's then-branch do not precede its else-branch
       (a tile declared in a loop is fresh each iteration, so nothing else brings them there). wlog
       lists the tiles whose bit went 0 -> 1 inside an if; ifmark holds PTO__VMARK entries per open
       if: where its writes start in wlog, where its else-branch's start (-1 before the else), which
       of its paths never runs (PTO__VDEAD_*: a constant condition) and the statement. A loop of
       literal zero trips opens one too (review27 L7: its writes never happen; nor do those of a
       branch whose condition is constant, so a read after them is still a read of nothing). */
    int32_t *wlog, n_wlog, cap_wlog;
    int32_t *ifmark, n_ifmark, cap_ifmark;
    int32_t dead0;             /* phase 0: paths open that never run (their writes are not listed) */
    int sections[2];           /* sections seen per core in this mix kernel */
    /* per statement (phase 0) */
    int32_t *endpos;           /* FOR: position of its last body stmt */
    /* per tile */
    uint8_t *tflags;
    int32_t *tdepth;           /* loop depth at the declaration */
    int32_t *wfirst, *wlast, *wcur;
    pto__vform *tvalid;        /* 2 per tile with a valid(...) clause: the valid rows and cols */
    /* tile writes, in program order, chained per tile */
    pto__vwrite *w;
    int32_t n_w, cap_w;
    /* per var */
    uint8_t *vlive, *vrange;   /* in scope; has a static range (loop vars) */
    int32_t *vifdepth;         /* loop vars: if depth at the loop */
    int64_t *vlo, *vhi;
    int64_t *vstart, *vstep;   /* loop vars: constant start and step (step 0: not constant, -1: zero-trip) */
    pto__vform *vform;         /* let vars: their value */
    /* per interned name */
    uint8_t *nkind;
    int32_t *nid, *kname;
    int32_t n_names;
    /* enclosing loops (FOR stmts), outermost first */
    int32_t *loops;
    int32_t nloops, cap_loops;
    /* the last unpinned tile whose shape checks (pto__vtile_shape) passed: a
       tile of the same space, dtype, shape and slots passes them too, as
       they read nothing else (kernels declare many alike) */
    int shape_ok;
    pto_tile shape;
    /* what the phase 1 walk saw of the kernel (pto__vwaits without its own walk): a wait op
       (waits); a statement list the walk may not follow as pto__vwaits does (waits_unsure: an
       if with no then-block, a body whose owner is another statement) */
    int waits, waits_unsure;
    /* the kernel's tstores the phase 1 walk met, in its order (pto__vsame_stores) */
    int32_t *stores, n_stores, cap_stores;
    int32_t wblock;            /* the block whose statement the phase 1 walk checks */
    /* the tile and let statements in scope, as (statement, block) pairs in walk order: leaving
       a block takes its own off the top (pto__vleave_block; a walk of its list was a tenth of the
       main walk) */
    int32_t *decls, n_decls, cap_decls;
    int mix;                   /* the kernel is a mix kernel */
} pto__verifier;

/* ---- small helpers ---------------------------------------------------- */

static const char *pto__vname(const pto__verifier *v, int32_t id) { return pto_str(v->ctx, id); }

static void *pto__vcalloc(pto__verifier *v, size_t n, size_t size)
{
    void *p = pto_alloc(v->ctx, n * size + 1);
    if (!p) { v->internal = 1; pto__oom(v->ctx); return NULL; }
    memset(p, 0, n * size + 1);
    return p;
}

/* An array whose elements are all written before they are read (no
   zeroing: these are the two arrays of 64-byte affine forms). */
static void *pto__vuninit(pto__verifier *v, size_t n, size_t size)
{
    void *p = pto_alloc(v->ctx, n * size + 1);
    if (!p) { v->internal = 1; pto__oom(v->ctx); }
    return p;
}


/* Where an expression starts: its leftmost token (a binary node's own loc
   is its operator), or the fallback when it has none. */
/* (A pointer, not a pto_loc by value: see pto__ps_tloc on tcc.) */
static const pto_loc *pto__vexpr_loc(const pto__verifier *v, int32_t e, const pto_loc *fallback)
{
    int depth = 0;
    while (e >= 0 && e < v->m->n_exprs && depth++ < PTO__VDEPTH) {
        const pto_expr *x = &v->m->exprs[e];
        if (x->kind < PTO_E_ADD || x->kind > PTO_E_MOD || x->a < 0 || x->a >= v->m->n_exprs)
            return x->loc.line > 0 ? &x->loc : fallback;
        e = x->a;
    }
    return fallback;
}

/* Checked 64-bit arithmetic: 0 on overflow. */
static int pto__vadd(int64_t a, int64_t b, int64_t *r)
{
    /* wrapped in unsigned arithmetic: the sum overflowed iff its sign
       differs from both operands' (no branches on the operands) */
    uint64_t u = (uint64_t)a + (uint64_t)b;
    if ((((uint64_t)a ^ u) & ((uint64_t)b ^ u)) >> 63) return 0;
    *r = a + b;
    return 1;
}

/* |a| <= INT32_MAX: the product of two such cannot overflow. */
static int pto__vsmall(int64_t a) { return (uint64_t)a + INT32_MAX <= 2 * (uint64_t)INT32_MAX; }

static int pto__vmul_wide(int64_t a, int64_t b, int64_t *r)
{
    if (a == 0 || b == 0) { *r = 0; return 1; }
    if (a == -1) { if (b == INT64_MIN) return 0; *r = -b; return 1; }
    if (b == -1) { if (a == INT64_MIN) return 0; *r = -a; return 1; }
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : b < INT64_MAX / a)) return 0;
    *r = a * b;
    return 1;
}

enum { PTO__VDEAD_NONE, PTO__VDEAD_THEN, PTO__VDEAD_ELSE, PTO__VDEAD_LOOP, PTO__VMARK = 4 };

/* Integer expression e's value when it names only literals and lets of
   them (+, -, *, min, max, negation; checked): 0 when it names anything
   else (block, subblock, a loop var, a dim) or overflows. */
static int pto__vconst(const pto_module *m, int32_t e, int64_t *out, int depth)
{
    const pto_expr *x;
    int64_t a, b;
    if (e < 0 || e >= m->n_exprs || depth > PTO__VDEPTH) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: *out = x->value; return 1;
    case PTO_E_VAR:
        if (x->a < 0 || x->a >= m->n_vars || m->vars[x->a].kind != PTO_V_LET) return 0;
        if (m->vars[x->a].def < 0 || m->vars[x->a].def >= m->n_stmts) return 0;
        return pto__vconst(m, m->stmts[m->vars[x->a].def].e[0], out, depth + 1);
    case PTO_E_NEG:
        if (!pto__vconst(m, x->a, &a, depth + 1) || a == INT64_MIN) return 0;
        *out = -a;
        return 1;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_MIN: case PTO_E_MAX:
        if (!pto__vconst(m, x->a, &a, depth + 1) || !pto__vconst(m, x->b, &b, depth + 1)) return 0;
        if (x->kind == PTO_E_MIN || x->kind == PTO_E_MAX) {
            *out = (x->kind == PTO_E_MIN) == (a < b) ? a : b;
            return 1;
        }
        if (x->kind == PTO_E_MUL) return pto__vmul_wide(a, b, out);
        if (x->kind == PTO_E_SUB) { if (b == INT64_MIN) return 0; b = -b; }
        return pto__vadd(a, b, out);
    default: return 0;
    }
}

/* The trip count of loop statement st when its bounds and step are
   literals or lets of them (pto__vconst), else -1. */
static int64_t pto__vconst_trips(const pto_module *m, const pto_stmt *st)
{
    int64_t a, b, c = 1, span;
    if (!pto__vconst(m, st->e[0], &a, 0) || !pto__vconst(m, st->e[1], &b, 0)) return -1;
    if (st->e[2] >= 0 && (!pto__vconst(m, st->e[2], &c, 0) || c <= 0)) return -1;
    if (b <= a) return 0;
    if (a == INT64_MIN || !pto__vadd(b, -a, &span)) return -1;
    return span / c + (span % c != 0);
}

/* Which path of compound statement s never runs (PTO__VDEAD_*): an if
   whose condition is constant, a loop of literal zero trips (its step a
   positive constant, its end no larger than its start). Both phases ask
   this, so the writes phase 0 lists are the ones phase 1 counts. */
static int pto__vdead(const pto_module *m, const pto_stmt *st)
{
    int64_t a, b;
    if (st->kind == PTO_ST_IF)
        return st->cmp <= PTO_GE && pto__vconst(m, st->e[0], &a, 0) && pto__vconst(m, st->e[1], &b, 0)
                   ? (pto__cmp_holds(st->cmp, a, b) ? PTO__VDEAD_ELSE : PTO__VDEAD_THEN)
                   : PTO__VDEAD_NONE;
    return st->kind == PTO_ST_FOR && pto__vconst_trips(m, st) == 0 ? PTO__VDEAD_LOOP : PTO__VDEAD_NONE;
}

/* For the compiler that would not inline a small function of the hot
   paths (the form arithmetic below runs for every index of every window). */
#if defined(__GNUC__) || defined(__clang__)
#define PTO__V_INLINE inline __attribute__((always_inline))
#else
#define PTO__V_INLINE inline
#endif

static PTO__V_INLINE int pto__vmul(int64_t a, int64_t b, int64_t *r)
{
    /* the common case: both fit in 32 bits, so the product cannot overflow
       (no division needed to check it) */
    if (pto__vsmall(a) && pto__vsmall(b)) { *r = a * b; return 1; }
    return pto__vmul_wide(a, b, r);
}

/* ---- affine forms ---------------------------------------------------- */

static void pto__fconst(pto__vform *f, int64_t c) { f->ok = 1; f->n = 0; f->c = c; }
static void pto__fnone(pto__vform *f) { f->ok = 0; f->n = 0; f->c = 0; }

static PTO__V_INLINE void pto__fterm(pto__vform *f, int32_t var, int64_t k)
{
    int i;
    if (!f->ok || k == 0) return;
    for (i = 0; i < f->n; i++) {
        if (f->var[i] != var) continue;
        if (!pto__vadd(f->k[i], k, &f->k[i])) { pto__fnone(f); return; }
        if (f->k[i] == 0) {
            f->n--;
            f->var[i] = f->var[f->n];
            f->k[i] = f->k[f->n];
        }
        return;
    }
    if (f->n == PTO__VK) { pto__fnone(f); return; }
    f->var[f->n] = var;
    f->k[f->n++] = k;
}

/* f += sign * g */
static PTO__V_INLINE void pto__fadd(pto__vform *f, const pto__vform *g, int64_t sign)
{
    int64_t c;
    int i;
    if (!f->ok || !g->ok) { pto__fnone(f); return; }
    if (!pto__vmul(g->c, sign, &c) || !pto__vadd(f->c, c, &f->c)) { pto__fnone(f); return; }
    for (i = 0; i < g->n; i++) {
        int64_t k;
        if (!pto__vmul(g->k[i], sign, &k)) { pto__fnone(f); return; }
        pto__fterm(f, g->var[i], k);
    }
}

static PTO__V_INLINE void pto__fscale(pto__vform *f, int64_t s)
{
    int i;
    if (!f->ok) return;
    if (!pto__vmul(f->c, s, &f->c)) { pto__fnone(f); return; }
    for (i = 0; i < f->n; i++)
        if (!pto__vmul(f->k[i], s, &f->k[i])) { pto__fnone(f); return; }
    if (s == 0) f->n = 0;
}

static int pto__fisconst(const pto__vform *f) { return f->ok && f->n == 0; }

/* The static range of a var at the current statement: a loop var with
   constant bounds whose loop body is not under an `if` here (a branch inside
   the loop may skip some iterations), or `block` with a static block count
   and no enclosing `if`. */
static PTO__V_INLINE int pto__vvar_range(const pto__verifier *v, int32_t var, int64_t *lo, int64_t *hi)
{
    if (var == PTO__VBLOCK) {
        if (v->nblocks <= 0 || v->ifdepth > 0) return 0;
        *lo = 0;
        *hi = v->nblocks - 1;
        return 1;
    }
    if (var < 0 || var >= v->m->n_vars || !v->vrange[var] || !v->vlive[var]) return 0;
    if (v->ifdepth > v->vifdepth[var]) return 0;
    *lo = v->vlo[var];
    *hi = v->vhi[var];
    return 1;
}

/* The extremes x[i] <= y[i] of each term k[i] * var[i] of an affine form;
   0 when a var has no static range or a product overflows. */
static int pto__fterms(const pto__verifier *v, const pto__vform *f, int64_t *x, int64_t *y)
{
    int i;
    for (i = 0; i < f->n; i++) {
        int64_t a, b;
        if (!pto__vvar_range(v, f->var[i], &a, &b)) return 0;
        if (pto__vsmall(f->k[i]) && pto__vsmall(a) && pto__vsmall(b)) {   /* pto__vmul's common case, in line */
            x[i] = f->k[i] * a;
            y[i] = f->k[i] * b;
        } else if (!pto__vmul(f->k[i], a, &x[i]) || !pto__vmul(f->k[i], b, &y[i])) {
            return 0;
        }
        if (x[i] > y[i]) { int64_t t = x[i]; x[i] = y[i]; y[i] = t; }
    }
    return 1;
}

/* c plus the terms' extremes, summed in term order; 0 on overflow. */
static int pto__fsum(int64_t c, int n, const int64_t *x, const int64_t *y, int64_t *lo, int64_t *hi)
{
    int i;
    *lo = *hi = c;
    for (i = 0; i < n; i++)
        if (!pto__vadd(*lo, x[i], lo) || !pto__vadd(*hi, y[i], hi)) return 0;
    return 1;
}

/* |a| < 2^28: a form of such values (products below 2^56, at most
   PTO__VK of them plus a constant) sums without overflow. */
static int pto__vtiny(int64_t a) { return (uint64_t)a + ((uint64_t)1 << 28) < ((uint64_t)1 << 29); }

/* pto__fterms + pto__fsum for the usual form, whose constant, coefficients
   and var bounds are all tiny: no step can overflow, so plain sums give
   the same extremes. 1: done; 0: a var has no static range (the checked
   path fails too, overflow or not); -1: some value is not tiny (take the
   checked path). */
static PTO__V_INLINE int pto__frange_tiny(const pto__verifier *v, const pto__vform *f, int64_t *lo, int64_t *hi)
{
    int64_t a, b, l = f->c, h = f->c;
    int i;
    if (!pto__vtiny(f->c)) return -1;
    for (i = 0; i < f->n; i++) {
        if (!pto__vvar_range(v, f->var[i], &a, &b)) return 0;
        if (!pto__vtiny(f->k[i]) || !pto__vtiny(a) || !pto__vtiny(b)) return -1;
        a *= f->k[i];
        b *= f->k[i];
        l += a < b ? a : b;
        h += a < b ? b : a;
    }
    *lo = l;
    *hi = h;
    return 1;
}

/* Exact extremes of an affine form (its vars are independent). */
static int pto__frange(const pto__verifier *v, const pto__vform *f, int64_t *lo, int64_t *hi)
{
    int64_t x[PTO__VK], y[PTO__VK];
    int q = f->ok ? pto__frange_tiny(v, f, lo, hi) : 0;
    if (q >= 0) return q;
    return pto__fterms(v, f, x, y) && pto__fsum(f->c, f->n, x, y, lo, hi);
}

/* ---- expressions ------------------------------------------------------ */

static void pto__vexpr(pto__verifier *v, int32_t e, int where, pto__vform *out, int depth);

static PTO__V_INLINE void pto__vexpr_var(pto__verifier *v, const pto_expr *x, pto__vform *out)
{
    const pto_module *m = v->m;
    const pto_var *var;
    pto__fnone(out);
    if (x->a < 0 || x->a >= m->n_vars) { pto_error(v->ctx, x->loc, "expression names no variable"); return; }
    var = &m->vars[x->a];
    if (var->kernel != v->kernel ||
        ((var->kind == PTO_V_LET || var->kind == PTO_V_LOOP) && !v->vlive[x->a])) {
        pto_error(v->ctx, x->loc, "'%s' is not defined here", pto__vname(v, var->name));
        return;
    }
    if (var->kind == PTO_V_LET) { *out = v->vform[x->a]; return; }
    if (var->kind == PTO_V_LOOP) { pto__fconst(out, 0); pto__fterm(out, x->a, 1); return; }
    if (var->kind == PTO_V_SCALAR && var->def >= 0 && var->def < m->n_params) {
        int dt = m->params[var->def].dtype;
        if (!(dt == PTO_I32 || dt == PTO_I8))
            pto_error(v->ctx, x->loc, "scalar '%s' is %s; integer expressions need an integer scalar",
                      pto__vname(v, var->name), pto_dtype_name((pto_dtype)dt));
    }
}

static void pto__vexpr_builtin(pto__verifier *v, const pto_expr *x, int where, pto__vform *out)
{
    static const char *const names[] = {"block", "blocks", "subblock", "rank", "nranks"};
    const char *name = names[x->kind - PTO_E_BLOCK];
    pto__fnone(out);
    if ((x->kind == PTO_E_RANK || x->kind == PTO_E_NRANKS) && !v->m->kernels[v->kernel].ranks) {
        pto_error(v->ctx, x->loc, "'%s' is only defined in a ranks kernel", name);
        v->ranks_err = 1;
        return;
    }
    if ((where & PTO__IN_BLOCKS) && x->kind != PTO_E_RANK && x->kind != PTO_E_NRANKS) {
        pto_error(v->ctx, x->loc, "'%s' cannot be used in blocks(...)", name);
        return;
    }
    if (x->kind == PTO_E_SUBBLOCK && v->core == PTO_CORE_CUBE)   /* a slip copied from a vector section */
        pto_warning(v->ctx, x->loc, "'subblock' is always 0 on the cube core (only the two vector cores of a "
                    "cluster have subblocks)");
    else if (x->kind == PTO_E_SUBBLOCK && v->m->kernels[v->kernel].kind == PTO_KK_VECTOR)   /* review26a L8 */
        pto_warning(v->ctx, x->loc, "'subblock' is always 0 in a vector kernel (each block runs on one vector "
                    "core; the two AIVs of a cluster are a mix kernel's vector section)");
    if (x->kind == PTO_E_BLOCK) { pto__fconst(out, 0); pto__fterm(out, PTO__VBLOCK, 1); }
    else if (x->kind == PTO_E_BLOCKS && v->nblocks > 0) pto__fconst(out, v->nblocks);
}

/* Constant operands whose + - * or negation leaves int64: the emitted C
   would be undefined there and the interpreter stops at it, so it is the
   verifier's error, at check time (review20 M2; it was folded to
   "unknown" and passed). */
static void pto__voverflow(pto__verifier *v, const pto_expr *x)
{
    pto_error(v->ctx, x->loc, "integer overflow in expression (its operands are constants: the result leaves int64)");
}

/* Folds div/mod/min/max of two constants (C semantics). */
static void pto__vfold(pto__verifier *v, const pto_expr *x, const pto__vform *a, const pto__vform *b,
                       pto__vform *out)
{
    int64_t p, q;
    pto__fnone(out);
    if ((x->kind == PTO_E_DIV || x->kind == PTO_E_MOD) && pto__fisconst(b) && b->c == 0) {
        pto_error(v->ctx, *pto__vexpr_loc(v, x->b, &x->loc), "%s by zero",
                  x->kind == PTO_E_DIV ? "division" : "modulo");
        return;
    }
    if (!pto__fisconst(a) || !pto__fisconst(b)) return;
    p = a->c;
    q = b->c;
    switch (x->kind) {
    case PTO_E_DIV:
        if (p == INT64_MIN && q == -1) pto__voverflow(v, x);
        else pto__fconst(out, p / q);
        break;
    case PTO_E_MOD: if (!(p == INT64_MIN && q == -1)) pto__fconst(out, p % q); break;
    case PTO_E_MIN: pto__fconst(out, p < q ? p : q); break;
    default: pto__fconst(out, p > q ? p : q); break;
    }
}

/* pto__vexpr where an integer literal is common (operands of a binary
   node, window coordinates): the literal is folded here, without the
   recursive call; what pto__vexpr would check first (a valid id, the
   depth) is checked the same way. */
static PTO__V_INLINE void pto__vexpr_sub(pto__verifier *v, int32_t e, int where, pto__vform *out, int depth)
{
    const pto_expr *x;
    if (e < 0 || e >= v->m->n_exprs || depth > PTO__VDEPTH) { pto__vexpr(v, e, where, out, depth); return; }
    x = &v->m->exprs[e];
    if (x->kind == PTO_E_INT) pto__fconst(out, x->value);
    else if (x->kind == PTO_E_VAR) pto__vexpr_var(v, x, out);   /* (a name too: window rows, loop vars) */
    else pto__vexpr(v, e, where, out, depth);
}

static void pto__vexpr_bin(pto__verifier *v, const pto_expr *x, int where, pto__vform *out, int depth)
{
    pto__vform a, b;
    int known;   /* both operands constants: a refused fold is an overflow */
    if (x->kind == PTO_E_DIV || x->kind == PTO_E_MOD || x->kind == PTO_E_MIN || x->kind == PTO_E_MAX) {
        pto__vexpr_sub(v, x->a, where, &a, depth + 1);
        pto__vexpr_sub(v, x->b, where, &b, depth + 1);
        pto__vfold(v, x, &a, &b, out);
        return;
    }
    /* the left operand is folded straight into out (no form copies) */
    pto__vexpr_sub(v, x->a, where, out, depth + 1);
    if (x->kind == PTO_E_NEG) {
        known = pto__fisconst(out);
        pto__fscale(out, -1);
        if (known && !out->ok) pto__voverflow(v, x);
        return;
    }
    pto__vexpr_sub(v, x->b, where, &b, depth + 1);
    known = pto__fisconst(out) && pto__fisconst(&b);
    switch (x->kind) {
    case PTO_E_ADD: pto__fadd(out, &b, 1); break;
    case PTO_E_SUB: pto__fadd(out, &b, -1); break;
    default:   /* PTO_E_MUL */
        if (pto__fisconst(out)) { int64_t c = out->c; *out = b; pto__fscale(out, c); }
        else if (pto__fisconst(&b)) pto__fscale(out, b.c);
        else pto__fnone(out);
        break;
    }
    if (known && !out->ok) pto__voverflow(v, x);   /* the checked arithmetic refused it */
}

/* Checks an integer expression (names in scope, builtins allowed here,
   integer scalars only, no static division by zero) and folds it. */
static void pto__vexpr(pto__verifier *v, int32_t e, int where, pto__vform *out, int depth)
{
    const pto_expr *x;
    pto__fnone(out);
    if (e < 0 || e >= v->m->n_exprs) { pto_error(v->ctx, v->here, "missing or malformed expression"); return; }
    x = &v->m->exprs[e];
    if (depth > PTO__VDEPTH) { pto_error(v->ctx, x->loc, "expression nested too deeply"); return; }
    switch (x->kind) {
    case PTO_E_INT: pto__fconst(out, x->value); break;
    case PTO_E_VAR: pto__vexpr_var(v, x, out); break;
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS:
        pto__vexpr_builtin(v, x, where, out);
        break;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD:
    case PTO_E_MIN: case PTO_E_MAX: case PTO_E_NEG:
        pto__vexpr_bin(v, x, where, out, depth);
        break;
    default: pto_error(v->ctx, x->loc, "malformed expression"); break;
    }
}

/* ---- names ------------------------------------------------------------ */

static const pto_loc *pto__vname_loc(const pto__verifier *v, int kind, int32_t id)
{
    switch (kind) {
    case PTO__N_PARAM: return &v->m->params[id].loc;
    case PTO__N_TILE: return &v->m->tiles[id].loc;
    default: return &v->m->vars[id].loc;
    }
}

static const char *pto__vbind_word(const pto__verifier *v, int kind, int32_t id)
{
    switch (kind) {
    case PTO__N_PARAM: return v->m->params[id].kind == PTO_P_SCALAR ? "scalar param" : "tensor";
    case PTO__N_TILE: return "tile";
    case PTO__N_DIM: return "dim";
    default: return v->m->vars[id].kind == PTO_V_LOOP ? "loop variable" : "let";
    }
}

/* Binds a name for its scope; shadowing any visible name is an error. */
static PTO__V_INLINE void pto__vbind(pto__verifier *v, int32_t name, int kind, int32_t id, pto_loc loc)
{
    if (name <= 0 || name >= v->n_names) return;
    if (v->nkind[name] != PTO__N_NONE) {
        const pto_loc *prev = pto__vname_loc(v, v->nkind[name], v->nid[name]);
        pto_error(v->ctx, loc, "'%s' shadows the %s declared at %d:%d (shadowing is not allowed)",
                  pto__vname(v, name), pto__vbind_word(v, v->nkind[name], v->nid[name]), (int)prev->line,
                  (int)prev->col);
        return;
    }
    v->nkind[name] = (uint8_t)kind;
    v->nid[name] = id;
}

static void pto__vunbind(pto__verifier *v, int32_t name, int kind, int32_t id)
{
    if (name > 0 && name < v->n_names && v->nkind[name] == kind && v->nid[name] == id)
        v->nkind[name] = PTO__N_NONE;
}

/* ---- tiles ------------------------------------------------------------ */

static int pto__vspace_core(int space) { return space == PTO_VEC ? PTO_CORE_VECTOR : PTO_CORE_CUBE; }

/* The tile's space must belong to the core that runs its statements. */
static void pto__vtile_core(pto__verifier *v, const pto_tile *t)
{
    const pto_kernel *k = &v->m->kernels[v->kernel];
    const char *sp, *kn;
    if (v->core < 0 || pto__vspace_core(t->space) == v->core) return;
    sp = pto_space_name((pto_space)t->space);
    kn = pto__vname(v, k->name);
    if (k->kind == PTO_KK_VECTOR)
        pto_error(v->ctx, t->loc, "vector kernel '%s' cannot use a%s '%s' tile (the vector core has only vec)", kn,
                  sp[0] == 'a' ? "n" : "", sp);
    else if (k->kind == PTO_KK_CUBE)
        pto_error(v->ctx, t->loc, "cube kernel '%s' cannot use a 'vec' tile (vec belongs to the vector core)", kn);
    else if (t->space == PTO_VEC)
        pto_error(v->ctx, t->loc, "'vec' tile '%s' in the cube section (vec belongs to the vector core)",
                  pto__vname(v, t->name));
    else
        pto_error(v->ctx, t->loc, "'%s' tile '%s' in the vector section (%s belongs to the cube core)", sp,
                  pto__vname(v, t->name), sp);
}

/* The vector core's tile of pipe q is [*r, *c] (half the rows or columns
   under a split); 1 when its rows are not whole 32-byte granules, which the
   pipe's declaration reports (pto__vpipe_decl): no vec tile can then be
   both a legal tile and the pipe's, so its tiles' row and shape errors
   would only contradict each other. */
static int pto__vpipe_vrow_bad(const pto_cvpipe *q, int *r, int *c)
{
    int size = pto_dtype_size((pto_dtype)q->dtype);
    *r = q->split == PTO_SPLIT_UP_DOWN ? q->rows / 2 : q->rows;
    *c = q->split == PTO_SPLIT_LEFT_RIGHT ? q->cols / 2 : q->cols;
    if (size <= 0 || q->rows <= 0 || q->cols <= 0 || q->split > PTO_SPLIT_LEFT_RIGHT ||
        (q->split == PTO_SPLIT_UP_DOWN && q->rows % 2) || (q->split == PTO_SPLIT_LEFT_RIGHT && q->cols % 2))
        return 0;   /* malformed or an odd split: reported as such */
    return (int64_t)*c * size % 32 != 0;
}

/* Whether vec tile t has the shape of the vector side of a pipe of its
   kernel whose rows are not 32-byte granules (the pipe says so). */
static int pto__vtile_of_bad_pipe(const pto__verifier *v, const pto_tile *t)
{
    int32_t i;
    int r, c;
    for (i = 0; i < v->m->n_cvpipes; i++) {
        const pto_cvpipe *q = &v->m->cvpipes[i];
        if (q->kernel == t->kernel && q->dtype == t->dtype && pto__vpipe_vrow_bad(q, &r, &c) &&
            t->rows == r && t->cols == c)
            return 1;
    }
    return 0;
}

/* 32-byte rows in vec; a [R, 1] column vector is stored column-major. */
static void pto__vtile_align(pto__verifier *v, const pto_tile *t)
{
    int size = pto_dtype_size((pto_dtype)t->dtype);
    if (t->space != PTO_VEC || size <= 0) return;
    /* a tile larger than its space is that error alone (pto__vtile_fit): a shape
       hint for f32[2147483647, 2147483647] would propose a dim past 2^31 - 1 */
    if ((int64_t)t->rows * t->cols > pto_space_capacity(v->m->arch, (pto_space)t->space) / size) return;
    if (t->cols != 1 && (int64_t)t->cols * size % 32 != 0 && pto__vtile_of_bad_pipe(v, t)) return;
    if (t->cols == 1 && t->rows > 1) {
        /* a row reduction's destination, most often: say the shape that works (review20 M3) */
        int64_t up = ((int64_t)t->rows * size + 31) / 32 * 32 / size;
        if ((int64_t)t->rows * size % 32 != 0)
            pto_error(v->ctx, t->loc, "column tile '%s' is %lld bytes (%d x %s); a [R, 1] vec tile needs a multiple of "
                      "32 bytes (for %d rows, declare %s[%lld, 1] valid(%d, 1): a row reduction of a tile with %d valid "
                      "rows writes it)",
                      pto__vname(v, t->name), (long long)t->rows * size, (int)t->rows,
                      pto_dtype_name((pto_dtype)t->dtype), (int)t->rows, pto_dtype_name((pto_dtype)t->dtype),
                      (long long)up, (int)t->rows, (int)t->rows);
    } else if ((int64_t)t->cols * size % 32 != 0) {
        /* the usual intent is a ragged width: say how to write it */
        int64_t up = ((int64_t)t->cols * size + 31) / 32 * 32 / size;
        char rows[24] = "...";
        if (t->valid_r < 0) snprintf(rows, sizeof rows, "%d", (int)t->rows);
        char column[200] = "";
        if (t->rows == 1 && t->cols == 1)   /* [1, 1]: a row of one value, or a one-row reduction's column */
            snprintf(column, sizeof column, "; as a row reduction's [R, 1] result, %s[%lld, 1] valid(1, 1): a row "
                     "reduction of a tile with 1 valid row, as a [1, C] tcolsum result, writes it",
                     pto_dtype_name((pto_dtype)t->dtype), (long long)(32 / size));
        pto_error(v->ctx, t->loc,
                  "row of vec tile '%s' is %lld bytes (%d x %s); vec rows must be a multiple of 32 bytes (for a width "
                  "of %d, declare %s[%d, %lld] valid(%s, %d): loads and stores then move %d column%s%s)",
                  pto__vname(v, t->name), (long long)t->cols * size, (int)t->cols, pto_dtype_name((pto_dtype)t->dtype),
                  (int)t->cols, pto_dtype_name((pto_dtype)t->dtype), (int)t->rows, (long long)up, rows, (int)t->cols,
                  (int)t->cols, t->cols == 1 ? "" : "s", column);
    }
}

/* The fractal a cube tile is built of, as pto-isa lays it out (the isa
   target's types; tests/isa/pto_isa_stub.hpp asserts "whole fractals"):
   512 bytes as 16 rows of 32 bytes in mat (NZ) and left, its transpose
   (32 bytes of rows x 16 cols) in right, 16 x 16 (1 KiB of f32) in acc
   whatever the dtype. 0 for the other spaces (vec has its 32-byte rows)
   and a malformed dtype (already reported at the tile). */
static int pto__vfractal(int space, int dtype, int *fr, int *fc)
{
    int size = pto_dtype_size((pto_dtype)dtype), w = size > 0 ? 32 / size : 0;
    if (w == 0) return 0;
    switch (space) {
    case PTO_MAT: case PTO_LEFT: *fr = 16; *fc = w; return 1;
    case PTO_RIGHT: *fr = w; *fc = 16; return 1;
    case PTO_ACC: *fr = *fc = 16; return 1;
    default: return 0;
    }
}

/* Whether no cube tile of pipe q's side can have its shape (review22 L7):
   the cube pushes a c2v pipe's tiles from acc and pops a v2c pipe's into
   mat, whole fractals of that space (a both pipe: both); *fr x *fc the
   fractal (for both: one that fits either) and *sp the space, or -1 for
   both. dir: the direction to judge (PTO_C2V, PTO_V2C or both bits). */
static int pto__vpipe_cube_bad(const pto_cvpipe *q, int dir, int *fr, int *fc, int *sp)
{
    int ar, ac, mr, mc;
    if (q->rows <= 0 || q->cols <= 0 || !pto__vfractal(PTO_ACC, q->dtype, &ar, &ac) ||
        !pto__vfractal(PTO_MAT, q->dtype, &mr, &mc))
        return 0;   /* malformed: reported as such */
    if ((dir & PTO_C2V) && (dir & PTO_V2C)) {
        *sp = -1;
        *fr = ar > mr ? ar : mr;   /* 16 both; cols: 16 and 32 / size, one a multiple of the other */
        *fc = ac > mc ? ac : mc;
    } else if (dir & PTO_C2V) {
        *sp = PTO_ACC, *fr = ar, *fc = ac;
    } else {
        *sp = PTO_MAT, *fr = mr, *fc = mc;
    }
    return q->rows % *fr != 0 || q->cols % *fc != 0;
}

/* A cube tile's stored shape is whole fractals (its valid region need not
   be: the cube reads the valid rows and cols of whole fractals). */
static void pto__vtile_fractal(pto__verifier *v, const pto_tile *t)
{
    int fr, fc;
    const char *sp, *dt;
    if (!pto__vfractal(t->space, t->dtype, &fr, &fc) || (t->rows % fr == 0 && t->cols % fc == 0)) return;
    sp = pto_space_name((pto_space)t->space);
    dt = pto_dtype_name((pto_dtype)t->dtype);
    if (fr == fc)
        pto_error(v->ctx, t->loc, "%s tile '%s' is %s[%d, %d]: %s tiles are whole %d x %d fractals for %s, so rows and cols must be multiples of %d",
                  sp, pto__vname(v, t->name), dt, (int)t->rows, (int)t->cols, sp, fr, fc, dt, fr);
    else
        pto_error(v->ctx, t->loc, "%s tile '%s' is %s[%d, %d]: %s tiles are whole %d x %d fractals for %s, so rows must be a multiple of %d and cols of %d",
                  sp, pto__vname(v, t->name), dt, (int)t->rows, (int)t->cols, sp, fr, fc, dt, fr, fc);
}

static void pto__vtile_fit(pto__verifier *v, const pto_tile *t)
{
    int64_t cap = pto_space_capacity(v->m->arch, (pto_space)t->space);
    int64_t one, all, size = pto_dtype_size((pto_dtype)t->dtype);
    const char *tn, *sp, *an;
    /* rows and cols are positive int32s here: their product fits, but its
       bytes times the slots need not (f32[2147483647, 2147483647]); below
       2^56 elements it does (dtype size <= 8, nbuf <= 8), without the divisions */
    if ((int64_t)t->rows * t->cols >= (int64_t)1 << 56 &&
        (size <= 0 || (int64_t)t->rows * t->cols > INT64_MAX / size / t->nbuf)) {
        pto_error(v->ctx, t->loc, "tile '%s' is %s[%d, %d]%s, far more than the %lld bytes of '%s' on %s",
                  pto__vname(v, t->name), pto_dtype_name((pto_dtype)t->dtype), (int)t->rows, (int)t->cols,
                  t->nbuf > 1 ? " with slots" : "", (long long)cap, pto_space_name((pto_space)t->space),
                  pto_arch_name(v->m->arch));
        return;
    }
    one = pto_tile_bytes(t);
    all = one * t->nbuf;
    if (all <= cap && t->pin == PTO_NO_ADDR) return;   /* fits, not pinned: the names are not needed */
    tn = pto__vname(v, t->name);
    sp = pto_space_name((pto_space)t->space);
    an = pto_arch_name(v->m->arch);
    if (all > cap) {
        if (t->nbuf > 1)
            pto_error(v->ctx, t->loc, "tile '%s' needs %lld bytes (%d x %lld), more than the %lld bytes of '%s' on %s",
                      tn, (long long)all, (int)t->nbuf, (long long)one, (long long)cap, sp, an);
        else
            pto_error(v->ctx, t->loc, "tile '%s' needs %lld bytes, more than the %lld bytes of '%s' on %s",
                      tn, (long long)all, (long long)cap, sp, an);
        return;
    }
    if (t->pin == PTO_NO_ADDR) return;
    if (t->pin < 0)
        pto_error(v->ctx, t->loc, "pinned address %lld of tile '%s' is negative", (long long)t->pin, tn);
    else if (t->pin % 32 != 0)   /* addresses in hex, as `ptoc plan` and the printed .pto show them */
        pto_error(v->ctx, t->loc, "pinned address 0x%llx of tile '%s' is not 32-byte aligned", (long long)t->pin, tn);
    else if (t->pin > cap - all)
        pto_error(v->ctx, t->loc, "tile '%s' pinned at 0x%llx ends at 0x%llx, past the end of '%s' (0x%llx, %lld bytes on %s)",
                  tn, (long long)t->pin, (long long)(t->pin + all), sp, (long long)cap, (long long)cap, an);
}

/* The valid rows (d = 0) or cols (d = 1) of tile id as a form: its
   valid(...) clause, or its shape (built in *tmp: most tiles have no
   clause, so their two forms are never stored or touched). */
static const pto__vform *pto__vvalid(pto__verifier *v, int32_t id, int d, pto__vform *tmp)
{
    const pto_tile *t = &v->m->tiles[id];
    if (v->tflags[id] & PTO__T_VALID) return &v->tvalid[2 * id + d];
    pto__fconst(tmp, d ? t->cols : t->rows);
    return tmp;
}

static void pto__vtile_valid(pto__verifier *v, int32_t id, const pto_tile *t)
{
    int d;
    if (t->valid_r < 0 && t->valid_c < 0) return;
    v->tflags[id] |= PTO__T_VALID;
    for (d = 0; d < 2; d++) {
        int32_t e = d ? t->valid_c : t->valid_r;
        int32_t extent = d ? t->cols : t->rows;
        pto__vform *f = &v->tvalid[2 * id + d];
        int64_t lo, hi;
        const char *what = d ? "cols" : "rows";
        if (e < 0) { pto__fconst(f, extent); continue; }
        pto__vexpr(v, e, 0, f, 0);
        if (!pto__frange(v, f, &lo, &hi)) continue;
        if (lo < 0)
            pto_error(v->ctx, *pto__vexpr_loc(v, e, &t->loc), "valid %s of '%s' can be %lld, below 0",
                      what, pto__vname(v, t->name), (long long)lo);
        else if (hi > extent)
            pto_error(v->ctx, *pto__vexpr_loc(v, e, &t->loc), "valid %s of '%s' can be %lld, more than its %d %s",
                      what, pto__vname(v, t->name), (long long)hi, (int)extent, what);
        else
            continue;
        /* the later checks take the tile whole: a window "out of bounds" by the excess of a
           valid(20, ..) on 16 rows would only repeat this error at every load and store */
        pto__fconst(f, extent);
    }
}

static int pto__vsame_tile_shape(const pto_tile *a, const pto_tile *b)
{
    return a->space == b->space && a->dtype == b->dtype && a->rows == b->rows && a->cols == b->cols &&
           a->nbuf == b->nbuf && a->pin == PTO_NO_ADDR && b->pin == PTO_NO_ADDR;
}

/* Row alignment, whole fractals, fit in the space and a sane pin. */
static void pto__vtile_shape(pto__verifier *v, const pto_tile *t)
{
    int before;
    if (v->shape_ok && pto__vsame_tile_shape(t, &v->shape)) return;
    before = pto_error_count(v->ctx);
    pto__vtile_align(v, t);
    pto__vtile_fractal(v, t);
    if (t->nbuf >= 1 && t->nbuf <= PTO_MAX_NBUF) pto__vtile_fit(v, t);
    v->shape_ok = pto_error_count(v->ctx) == before && t->pin == PTO_NO_ADDR;
    if (v->shape_ok) v->shape = *t;
}

/* pto__vdeclared with the stack full: doubled. */
static int pto__vdecls_grow(pto__verifier *v)
{
    int32_t cap = v->cap_decls ? v->cap_decls * 2 : 64;
    int32_t *p = (int32_t *)pto_realloc(v->ctx, v->decls, (size_t)cap * sizeof(int32_t));
    if (!p) { v->internal = 1; pto__oom(v->ctx); return 0; }
    v->decls = p;
    v->cap_decls = cap;
    return 1;
}

/* A tile or let statement of the walk's block comes into scope. */
static PTO__V_INLINE void pto__vdeclared(pto__verifier *v, int32_t s)
{
    if (v->n_decls + 2 > v->cap_decls && !pto__vdecls_grow(v)) return;
    v->decls[v->n_decls] = s;
    v->decls[v->n_decls + 1] = v->wblock;
    v->n_decls += 2;
}

/* An xN tile in a loop of literal trips T < N uses slots 0 .. T-1 only
   (slot = iteration mod N): the others are planned bytes no access ever
   touches (review27 L5). A warning, as an unused param gets one. */
static void pto__vtile_unused_slots(pto__verifier *v, const pto_tile *t, const char *tn)
{
    const pto_stmt *f = &v->m->stmts[v->loops[v->nloops - 1]];
    int64_t T = pto__vconst_trips(v->m, f);
    if (T < 1 || T >= t->nbuf) return;
    char slots[64];
    if (t->nbuf - T == 1) snprintf(slots, sizeof slots, "slot %lld is", (long long)T);
    else snprintf(slots, sizeof slots, "slots %lld..%d are", (long long)T, t->nbuf - 1);
    pto_warning(v->ctx, t->loc, "tile '%s' is x%d in a loop of %lld trip%s: %s never used (x%lld holds as much and "
                "plans %lld fewer bytes)", tn, (int)t->nbuf, (long long)T, T == 1 ? "" : "s", slots, (long long)T,
                (long long)(t->nbuf - T) * (long long)pto_tile_bytes(t));
}

static void pto__vtile(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    const pto_tile *t;
    const char *tn;
    if (st->ref < 0 || st->ref >= v->m->n_tiles) { pto_error(v->ctx, st->loc, "tile statement names no tile"); return; }
    t = &v->m->tiles[st->ref];
    tn = pto__vname(v, t->name);
    pto__vbind(v, t->name, PTO__N_TILE, st->ref, t->loc);
    pto__vdeclared(v, s);
    v->tflags[st->ref] |= PTO__T_SCOPE;
    v->tdepth[st->ref] = v->nloops;
    v->tflags[st->ref] &= (uint8_t)~PTO__T_VALID;   /* its shape until pto__vtile_valid reads the clause */
    if (t->space >= PTO_NSPACE) {   /* through the C API: say the value, not '?' */
        pto_error(v->ctx, t->loc, "tile '%s' has space %d, which is no pto_space", tn, (int)t->space);
        return;
    }
    if (t->space == PTO_GM) {
        pto_error(v->ctx, t->loc, "tile '%s' cannot live in '%s'", tn, pto_space_name((pto_space)t->space));
        return;
    }
    if (t->dtype == PTO_DT_NONE) { pto_error(v->ctx, t->loc, "tile '%s' needs a dtype", tn); return; }
    if (t->dtype >= PTO_NDTYPE) {
        pto_error(v->ctx, t->loc, "tile '%s' has dtype %d, which is no pto_dtype", tn, (int)t->dtype);
        return;
    }
    if (t->rows <= 0 || t->cols <= 0) {
        pto_error(v->ctx, t->loc, "tile '%s' must have a positive shape, got [%d, %d]", tn, (int)t->rows, (int)t->cols);
        return;
    }
    if (t->nbuf < 1)
        pto_error(v->ctx, t->loc, "tile '%s' needs at least one buffer, got x%d", tn, (int)t->nbuf);
    else if (t->nbuf > PTO_MAX_NBUF)
        pto_error(v->ctx, t->loc, "tile '%s' has x%d but at most x%d slots are allowed", tn, (int)t->nbuf, PTO_MAX_NBUF);
    else if (t->nbuf > 1 && v->nloops == 0)
        pto_error(v->ctx, t->loc, "tile '%s' is x%d outside any loop (its slots rotate per iteration)", tn, (int)t->nbuf);
    else if (t->nbuf > 1)
        pto__vtile_unused_slots(v, t, tn);
    pto__vtile_core(v, t);
    pto__vtile_shape(v, t);
    pto__vtile_valid(v, st->ref, t);
}

/* ---- operands --------------------------------------------------------- */

static const char *pto__vkind_name(int kind)
{
    switch (kind) {
    case PTO_O_TILE: return "a tile";
    case PTO_O_GM: return "a GM window";
    case PTO_O_FLOAT: return "a float literal";
    case PTO_O_SCALAR: return "a scalar";
    case PTO_O_INT: return "an integer";
    case PTO_O_PIPE: return "a pipe";
    case PTO_O_CVPIPE: return "a cube/vector pipe";
    case PTO_O_CMP: return "a comparison";
    case PTO_O_NMODE: return "a notify mode";
    default: return "a malformed operand";
    }
}

/* "vec", "vec or mat", "mat, acc or vec": the spaces of a mask, in a fixed order. */
static void pto__vspaces(uint32_t mask, char *buf, size_t size)
{
    static const int order[] = {PTO_VEC, PTO_MAT, PTO_LEFT, PTO_RIGHT, PTO_ACC, PTO_BIAS, PTO_SCALING};
    int i, n = 0, total = 0;
    size_t len = 0;
    buf[0] = 0;
    for (i = 0; i < 7; i++) total += (mask & PTO_A_SPACE(order[i])) != 0;
    for (i = 0; i < 7; i++) {
        if (!(mask & PTO_A_SPACE(order[i]))) continue;
        n++;
        len += (size_t)snprintf(buf + len, size - len, "%s%s", n == 1 ? "" : n == total ? " or " : ", ",
                                pto_space_name((pto_space)order[i]));
        if (len >= size) return;
    }
}

/* Is this operand kind one the mask allows? An integer expression is
   accepted where a scalar goes (`tmuls d, a, i * 2`: its value, converted
   to the tile's dtype as a scalar param's); its own errors are reported
   here. */
/* The float scalar param that integer expression e names (not through a
   let: a let of one is its own error), or -1. */
static int32_t pto__vfloat_var(const pto__verifier *v, int32_t e, int depth)
{
    const pto_module *m = v->m;
    const pto_expr *x;
    int32_t r;
    if (e < 0 || e >= m->n_exprs || depth > PTO__VDEPTH) return -1;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_VAR: {
        const pto_var *var = x->a >= 0 && x->a < m->n_vars ? &m->vars[x->a] : NULL;
        int dt;
        if (!var || var->kind != PTO_V_SCALAR || var->kernel != v->kernel || var->def < 0 || var->def >= m->n_params)
            return -1;
        dt = m->params[var->def].dtype;
        return dt == PTO_I32 || dt == PTO_I8 ? -1 : x->a;
    }
    case PTO_E_NEG: return pto__vfloat_var(v, x->a, depth + 1);
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD: case PTO_E_MIN: case PTO_E_MAX:
        r = pto__vfloat_var(v, x->a, depth + 1);
        return r >= 0 ? r : pto__vfloat_var(v, x->b, depth + 1);
    default: return -1;
    }
}

/* A scalar operand that computes with a float scalar param (`tmuls t, t,
   -al`): the parser reads any expression there as an integer one, so the
   generic "integer expressions need an integer scalar" would blame an
   expression the user did not mean as one (review21 L5). Says what to
   write instead; 1 when it did. */
static int pto__vfloat_expr(pto__verifier *v, const pto_operand *o)
{
    const pto_module *m = v->m;
    int32_t fv = pto__vfloat_var(v, o->e[0], 0), s = v->here_stmt;
    const pto_stmt *st = s >= 0 && s < m->n_stmts ? &m->stmts[s] : NULL;
    const pto_expr *x = &m->exprs[o->e[0]];
    const char *vn, *opn, *d = "DST", *a = "SRC";
    char fix[256];
    pto_buf text;
    if (fv < 0 || !st || st->kind != PTO_ST_OP) return 0;
    vn = pto__vname(v, m->vars[fv].name);
    opn = pto_opinfo_get((pto_op)st->op)->name;
    if (st->nargs >= 1 && m->operands[st->arg0].kind == PTO_O_TILE && m->operands[st->arg0].ref >= 0 &&
        m->operands[st->arg0].ref < m->n_tiles)
        d = pto__vname(v, m->tiles[m->operands[st->arg0].ref].name);
    if (st->nargs >= 3 && m->operands[st->arg0 + 1].kind == PTO_O_TILE && m->operands[st->arg0 + 1].ref >= 0 &&
        m->operands[st->arg0 + 1].ref < m->n_tiles)
        a = pto__vname(v, m->tiles[m->operands[st->arg0 + 1].ref].name);
    if (x->kind == PTO_E_VAR)   /* `(al)`: the parentheses made an expression of it */
        snprintf(fix, sizeof fix, "write '%s' without the parentheses", vn);
    else if (x->kind == PTO_E_NEG && x->a >= 0 && m->exprs[x->a].kind == PTO_E_VAR &&
             (st->op == PTO_OP_TADDS || st->op == PTO_OP_TSUBS))
        snprintf(fix, sizeof fix, "write '%s %s, %s, %s'", st->op == PTO_OP_TADDS ? "tsubs" : "tadds", d, a, vn);
    else if (x->kind == PTO_E_NEG && x->a >= 0 && m->exprs[x->a].kind == PTO_E_VAR &&
             (st->op == PTO_OP_TMULS || st->op == PTO_OP_TDIVS))
        snprintf(fix, sizeof fix, "write '%s %s, %s, %s' and then 'tmuls %s, %s, -1.0', or pass the negated value",
                 opn, d, a, vn, d, d);
    else if (x->kind == PTO_E_NEG && x->a >= 0 && m->exprs[x->a].kind == PTO_E_VAR && st->op == PTO_OP_TEXPANDS)
        snprintf(fix, sizeof fix, "write 'texpands %s, %s' and then 'tmuls %s, %s, -1.0', or pass the negated value",
                 d, vn, d, d);
    else
        snprintf(fix, sizeof fix, "pass the value it needs as a scalar param of its own");
    memset(&text, 0, sizeof text);
    text.ctx = v->ctx;
    pto_print_expr(m, o->e[0], &text);
    pto_error(v->ctx, o->loc, "%s: '%s%s%s' is an integer expression (a scalar operand is a float literal, a scalar "
              "param or an integer expression), but '%s' is %s: %s", opn, x->kind == PTO_E_VAR ? "(" : "",
              text.data ? text.data : "?", x->kind == PTO_E_VAR ? ")" : "", vn,
              pto_dtype_name((pto_dtype)m->params[m->vars[fv].def].dtype), fix);
    pto_buf_free(&text);
    return 1;
}

static int pto__vkind_ok(pto__verifier *v, const pto_operand *o, uint32_t mask)
{
    switch (o->kind) {
    case PTO_O_TILE: return (mask & (PTO_A_TILES | PTO_A_SPACE(PTO_BIAS) | PTO_A_SPACE(PTO_SCALING))) != 0;
    case PTO_O_GM: return (mask & PTO_A_GM) != 0;
    case PTO_O_FLOAT: case PTO_O_SCALAR: return (mask & PTO_A_SCALAR) != 0;
    case PTO_O_INT:
        if (mask & PTO_A_INT) return 1;
        if (mask & PTO_A_SCALAR) {
            pto__vform f;
            if (!pto__vfloat_expr(v, o)) pto__vexpr(v, o->e[0], 0, &f, 0);
            return 1;
        }
        return 0;
    case PTO_O_PIPE: return (mask & PTO_A_PIPE) != 0;
    case PTO_O_CVPIPE: return (mask & PTO_A_CVPIPE) != 0;
    case PTO_O_CMP: return (mask & PTO_A_CMP) != 0 && o->ref >= 0 && o->ref <= PTO_GE;
    case PTO_O_NMODE: return (mask & PTO_A_NMODE) != 0 && (o->ref == PTO_NOTIFY_SET || o->ref == PTO_NOTIFY_ADD);
    default: return 0;
    }
}

/* The first program-order write of tile t that can have happened before
   the statement at position p runs: one earlier in program order, or one
   later (or at p) in the outermost loop around p that the tile is declared
   outside of, which reaches p's next iteration. A write at p itself never
   precedes p's first run. */
static int pto__vcollect_kernel(pto__verifier *v);

static int pto__vwritten(pto__verifier *v, int32_t t, int32_t p)
{
    int32_t c, loop;
    if (v->tflags[t] & PTO__T_WRITTEN) return 1;   /* by a statement before p */
    if (v->tdepth[t] >= v->nloops) return 0;       /* no loop to bring a later write round */
    if (!v->collected && !pto__vcollect_kernel(v)) return 1;
    c = v->wcur[t];
    if (v->wfirst[t] >= 0 && v->w[v->wfirst[t]].pos < p) return 1;
    while (c >= 0 && v->w[c].pos <= p) c = v->w[c].next;
    v->wcur[t] = c;
    if (c < 0 || v->tdepth[t] >= v->nloops) return 0;
    loop = v->loops[v->tdepth[t]];
    return v->w[c].pos <= v->endpos[loop];
}

static void pto__vread_tile(pto__verifier *v, int32_t s, int32_t t, const pto_operand *o)
{
    const pto_stmt *st = &v->m->stmts[s];
    const char *hint;
    if (v->tflags[t] & PTO__T_UNINIT) return;
    /* a tile of the other core's memory: its declaration has the error, and nothing here could
       write it (review17: tmatmul in a vector kernel added one per operand) */
    if (v->core >= 0 && v->m->tiles[t].space < PTO_NSPACE && pto__vspace_core(v->m->tiles[t].space) != v->core) return;
    if (pto__vwritten(v, t, v->here_pos)) return;
    v->tflags[t] |= PTO__T_UNINIT;
    /* a write earlier in program order that does not count: one in code that never runs, or in the
       other branch of an if */
    hint = v->tflags[t] & PTO__T_DEADW
               ? " (its writes before here never run: in a loop of zero trips, or a branch of a constant condition)"
           : (v->collected || pto__vcollect_kernel(v)) && v->wfirst[t] >= 0 && v->w[v->wfirst[t]].pos < v->here_pos
               ? (v->tdepth[t] > 0 ? " (the write in the other branch of an if does not reach here; a tile declared "
                                      "in a loop is fresh each iteration: declare it before the loop to carry it)"
                                    : " (the write in the other branch of an if does not reach here)")
               : "";
    if (st->op == PTO_OP_TMATMUL_ACC)
        pto_error(v->ctx, o->loc, "'%s' is accumulated into before anything writes it (start with tmatmul)%s",
                  pto__vname(v, v->m->tiles[t].name), hint);
    else
        pto_error(v->ctx, o->loc, "'%s' is read before anything writes it%s", pto__vname(v, v->m->tiles[t].name), hint);
}

/* A tile in a space the op cannot use (mask): name the spaces it can. */
static void pto__vtile_space_error(pto__verifier *v, int32_t s, const pto_operand *o, const pto_tile *t, uint32_t mask)
{
    char allowed[96];
    int w = (mask & PTO_A_WRITE) != 0, op = v->m->stmts[s].op;
    const char *how = "";
    /* a tile of the other core's memory: its declaration has the error (pto__vtile_core); every op
       that names it would only repeat it */
    if (v->core >= 0 && t->space < PTO_NSPACE && pto__vspace_core(t->space) != v->core) return;
    pto__vspaces(mask, allowed, sizeof allowed);
    if ((op == PTO_OP_TMATMUL || op == PTO_OP_TMATMUL_ACC) && v->m->stmts[s].nargs == 3) {
        /* `tmatmul c, b0, a0`: one error for the swap, at its first operand (not one per operand) */
        const pto_operand *o0 = &v->m->operands[v->m->stmts[s].arg0], *o1 = o0 + 1, *o2 = o0 + 2;
        const pto_tile *t1 = o1->kind == PTO_O_TILE && o1->ref >= 0 && o1->ref < v->m->n_tiles
                                 ? &v->m->tiles[o1->ref] : NULL;
        const pto_tile *t2 = o2->kind == PTO_O_TILE && o2->ref >= 0 && o2->ref < v->m->n_tiles
                                 ? &v->m->tiles[o2->ref] : NULL;
        if (t1 && t2 && t1->space == PTO_RIGHT && t2->space == PTO_LEFT) {
            if (o == o1)
                pto_error(v->ctx, o->loc, "%s reads a left tile, then a right one: '%s' is right and '%s' is left "
                          "(the operands look swapped: %s %s, %s, %s)", pto_opinfo_get((pto_op)op)->name,
                          pto__vname(v, t1->name), pto__vname(v, t2->name), pto_opinfo_get((pto_op)op)->name,
                          o0->kind == PTO_O_TILE && o0->ref >= 0 && o0->ref < v->m->n_tiles
                              ? pto__vname(v, v->m->tiles[o0->ref].name) : "c", pto__vname(v, t2->name),
                          pto__vname(v, t1->name));
            return;
        }
    }
    /* the cube's data path (GM -> mat -> left / right -> acc) is the
       usual thing missed: name the step */
    if (op == PTO_OP_TLOAD && (t->space == PTO_LEFT || t->space == PTO_RIGHT))
        how = "; load a mat tile, then tmov or textract it into this one";
    else if ((op == PTO_OP_TMATMUL || op == PTO_OP_TMATMUL_ACC) && !w && t->space == PTO_MAT)
        how = "; tmov or textract it into one first";
    /* one error per statement and space: `tadd m, m, m` on mat tiles said it three times (review17) */
    if (v->space_err_stmt == s && v->space_err_space == t->space) return;
    v->space_err_stmt = s;
    v->space_err_space = t->space;
    pto_error(v->ctx, o->loc, "%s cannot %s a tile in '%s' (it %s %s%s)", pto_opinfo_get((pto_op)op)->name,
              w ? "write" : "read", pto_space_name((pto_space)t->space), w ? "writes" : "reads", allowed, how);
}

/* A tile operand: in scope, in a space the op can use, written before read. */
static int pto__vtile_arg(pto__verifier *v, int32_t s, const pto_operand *o, uint32_t mask)
{
    const pto_tile *t;
    if (o->ref < 0 || o->ref >= v->m->n_tiles) { pto_error(v->ctx, o->loc, "operand names no tile"); return 0; }
    t = &v->m->tiles[o->ref];
    if (t->kernel != v->kernel || !(v->tflags[o->ref] & PTO__T_SCOPE)) {
        /* tfree's tile is the one its tpop filled, not written on the line */
        if (v->m->stmts[s].op == PTO_OP_TFREE)
            pto_error(v->ctx, o->loc, "tfree frees the slot popped into tile '%s', which is out of scope here: "
                      "tfree in the block of its tpop (in the same loop iteration)", pto__vname(v, t->name));
        else
            pto_error(v->ctx, o->loc, "tile '%s' is not declared here", pto__vname(v, t->name));
        return 0;
    }
    if (t->space >= PTO_NSPACE || !(mask & PTO_A_SPACE(t->space))) {
        pto__vtile_space_error(v, s, o, t, mask);
        return 0;
    }
    /* (a tile written before, or already reported, is all a read needs to know) */
    if ((mask & PTO_A_READ) && !(v->tflags[o->ref] & (PTO__T_WRITTEN | PTO__T_UNINIT))) {
        int op = v->m->stmts[s].op;   /* only a reduction's class check can find its operands swapped */
        if (v->here_stmt == s && v->nread < 4 &&
            ((op >= PTO_OP_TROWSUM && op <= PTO_OP_TROWMIN) || (op >= PTO_OP_TCOLSUM && op <= PTO_OP_TCOLMIN))) {
            v->readt[v->nread] = o->ref;
            v->reado[v->nread++] = o;
        } else {
            pto__vread_tile(v, s, o->ref, o);
        }
    }
    return 1;
}

/* A GM window: a tensor, direction respected, a rank only on a window
   tensor of a ranks kernel. Bounds are checked with the op (they need the
   tile's shape). */
static int pto__vgm_arg(pto__verifier *v, const pto_operand *o, uint32_t mask)
{
    const pto_kernel *k = &v->m->kernels[v->kernel];
    const pto_param *p;
    const char *pn;
    pto__vform f;
    int ok = 1, d;
    if (o->ref < k->param0 || o->ref >= k->param0 + k->nparams) {
        pto_error(v->ctx, o->loc, "GM window names no parameter of this kernel");
        return 0;
    }
    p = &v->m->params[o->ref];
    pn = pto__vname(v, p->name);
    if (p->kind != PTO_P_TENSOR) { pto_error(v->ctx, o->loc, "'%s' is a scalar, not a tensor", pn); return 0; }
    if ((mask & PTO_A_WRITE) && p->dir == PTO_IN) {
        pto_error(v->ctx, o->loc, "cannot write '%s': it is an 'in' tensor", pn);
        ok = 0;
    }
    if ((mask & PTO_A_READ) && p->dir == PTO_OUT) {
        pto_error(v->ctx, o->loc, "cannot read '%s': it is an 'out' tensor (declare it inout to read it)", pn);
        ok = 0;
    }
    if (mask & PTO_A_WHOLE) {
        if (o->e[0] >= 0 || o->e[1] >= 0 || o->e[2] >= 0) {
            pto_error(v->ctx, o->loc, "%s takes the whole tensor: write '%s', not a window of it",
                      pto_opinfo_get((pto_op)v->m->stmts[v->here_stmt].op)->name, pn);
            return 0;
        }
        return ok;
    }
    for (d = 0; d < 2; d++) {
        if (o->e[d] < 0) { pto_error(v->ctx, o->loc, "window of '%s' needs a row and a column", pn); return 0; }
    }
    if (o->e[2] >= 0) {
        int64_t lo, hi;
        if (!k->ranks) {
            pto_error(v->ctx, o->loc, "'%s@...' needs a ranks kernel; '%s' is not declared 'ranks'", pn,
                      pto__vname(v, k->name));
            v->ranks_err = 1;
            ok = 0;
        } else if (!p->window) {
            pto_error(v->ctx, o->loc, "'%s' is not a window tensor; declare it 'window' to address a peer's copy", pn);
            ok = 0;
        }
        pto__vexpr(v, o->e[2], 0, &f, 0);
        if (pto__frange(v, &f, &lo, &hi) && lo < 0)
            pto_error(v->ctx, *pto__vexpr_loc(v, o->e[2], &o->loc), "rank %lld of '%s' is negative", (long long)lo, pn);
    }
    return ok;
}

static int pto__vint_arg(pto__verifier *v, const pto_operand *o)
{
    pto__vform f;
    int before = pto_error_count(v->ctx);
    pto__vexpr(v, o->e[0], 0, &f, 0);
    return pto_error_count(v->ctx) == before;
}

static int pto__vpipe_arg(pto__verifier *v, const pto_operand *o)
{
    static const char *const core_names[] = {"vector", "cube"};
    int p = o->ref;
    int vector_ok = p == PTO_PIPE_S || p == PTO_PIPE_V || p == PTO_PIPE_MTE2 || p == PTO_PIPE_MTE3 || p == PTO_PIPE_ALL;
    int cube_ok = p != PTO_PIPE_V;
    if (p < 0 || p >= PTO_NPIPE) { pto_error(v->ctx, o->loc, "pipe %d is no pto_pipe", p); return 0; }
    if (v->core >= 0 && !(v->core == PTO_CORE_VECTOR ? vector_ok : cube_ok)) {
        pto_error(v->ctx, o->loc, "pipe '%s' does not exist on the %s core", pto_pipe_name((pto_pipe)p),
                  core_names[v->core]);
        return 0;
    }
    return 1;
}

/* A float literal is rounded to f32 where it is used, and an op on an f16
   or bf16 tile converts it to that dtype first (pto_scalar_as, as the
   interpreter and the simulator take it): a finite literal that becomes
   inf there (1e39; 70000.0 on f16) is almost surely a typo (1e400 reads as
   inf already), and so is a nonzero one that becomes 0 (1e-8 on f16, 1e-50:
   review20 L5). */
static void pto__vfloat_lit(pto__verifier *v, int32_t s, const pto_operand *o)
{
    const pto_stmt *st = &v->m->stmts[s];
    const pto_operand *d = &v->m->operands[st->arg0];
    int dt = PTO_F32, inf, zero;
    char fs[40];   /* text that reads back to it (%g alone made 3.4028235677973366e+38 FLT_MAX's 3.40282e+38) */
    if (st->nargs > 0 && d->kind == PTO_O_TILE && d->ref >= 0 && d->ref < v->m->n_tiles) dt = v->m->tiles[d->ref].dtype;
    if (dt != PTO_F16 && dt != PTO_BF16) dt = PTO_F32;   /* integer tiles: their own rule (truncation) */
    inf = o->f - o->f == 0.0 && isinf(pto_scalar_as(dt, o->f));
    zero = !inf && o->f != 0.0 && o->f - o->f == 0.0 && pto_scalar_as(dt, o->f) == 0.0;
    if (!inf && !zero) return;   /* the usual literal: no message, so no formatting (printf + strtod) */
    pto__pr_fmt_msg(o->f, fs, sizeof fs);
    if (inf)
        pto_warning(v->ctx, o->loc, "float %s rounds to %sinf in %s%s (write %sinf if that is meant)", fs,
                    o->f < 0 ? "-" : "", pto_dtype_name((pto_dtype)dt), dt == PTO_F32 ? "" : ", the tile's dtype",
                    o->f < 0 ? "-" : "");
    else
        pto_warning(v->ctx, o->loc, "float %s rounds to 0 in %s%s (write 0 if that is meant)", fs,
                    pto_dtype_name((pto_dtype)dt), dt == PTO_F32 ? "" : ", the tile's dtype");
}

/* tload / tstore with the tile and the GM window swapped: one error at the
   first operand that says so (the second stays quiet, and a swapped tload's
   tile counts as written: no "read before written" after it). */
static int pto__vswapped_io(pto__verifier *v, int32_t s, int i)
{
    const pto_stmt *st = &v->m->stmts[s];
    const pto_operand *a, *b;
    int load = st->op == PTO_OP_TLOAD;
    if ((st->op != PTO_OP_TLOAD && st->op != PTO_OP_TSTORE) || st->nargs != 2) return 0;
    a = &v->m->operands[st->arg0];
    b = &v->m->operands[st->arg0 + 1];
    if (a->kind != (load ? PTO_O_GM : PTO_O_TILE) || b->kind != (load ? PTO_O_TILE : PTO_O_GM)) return 0;
    if (i == 0) {
        pto_error(v->ctx, a->loc, "%s takes the %s first, then the %s: '%s %s' (the operands are swapped)",
                  load ? "tload" : "tstore", load ? "tile" : "GM window", load ? "GM window" : "tile",
                  load ? "tload" : "tstore", load ? "TILE, TENSOR[ROW, COL]" : "TENSOR[ROW, COL], TILE");
        if (load && b->ref >= 0 && b->ref < v->m->n_tiles) v->tflags[b->ref] |= PTO__T_WRITTEN;
    }
    return 1;
}

static int pto__varg(pto__verifier *v, int32_t s, int i, const pto_operand *o, uint32_t mask)
{
    const char *opname;   /* the op's name, looked up for a message only */
    char want[96];
    if (!pto__vkind_ok(v, o, mask)) {
        if (pto__vswapped_io(v, s, i)) return 0;
        int op = v->m->stmts[s].op, scalar = o->kind == PTO_O_FLOAT || o->kind == PTO_O_SCALAR || o->kind == PTO_O_INT;
        char other[48];
        other[0] = 0;
        /* the binary op and its scalar form, swapped: name the other one */
        if (i == 2 && scalar && op >= PTO_OP_TADD && op <= PTO_OP_TMIN)
            snprintf(other, sizeof other, " (%s takes a scalar)", pto_opinfo_get((pto_op)(op + PTO_OP_TADDS - PTO_OP_TADD))->name);
        else if (i == 2 && o->kind == PTO_O_TILE && op >= PTO_OP_TADDS && op <= PTO_OP_TMINS)
            snprintf(other, sizeof other, " (%s takes a tile)", pto_opinfo_get((pto_op)(op - PTO_OP_TADDS + PTO_OP_TADD))->name);
        pto__arg_expected(mask, want, sizeof want);
        opname = pto_opinfo_get((pto_op)op)->name;
        pto_error(v->ctx, o->loc, "operand %d of %s must be %s, got %s%s", i + 1, opname, want,
                  pto__vkind_name(o->kind), other);
        return 0;
    }
    switch (o->kind) {
    case PTO_O_TILE: return pto__vtile_arg(v, s, o, mask);
    case PTO_O_GM: return pto__vgm_arg(v, o, mask);
    case PTO_O_SCALAR:
        if (o->ref < 0 || o->ref >= v->m->n_vars || v->m->vars[o->ref].kind != PTO_V_SCALAR ||
            v->m->vars[o->ref].kernel != v->kernel) {
            opname = pto_opinfo_get((pto_op)v->m->stmts[s].op)->name;
            pto_error(v->ctx, o->loc, "operand %d of %s names no scalar parameter", i + 1, opname);
            return 0;
        }
        return 1;
    case PTO_O_FLOAT: pto__vfloat_lit(v, s, o); return 1;
    case PTO_O_INT: return (mask & PTO_A_INT) ? pto__vint_arg(v, o) : 1;
    case PTO_O_PIPE: return pto__vpipe_arg(v, o);
    case PTO_O_CVPIPE:
        if (o->ref < 0 || o->ref >= v->m->n_cvpipes || v->m->cvpipes[o->ref].kernel != v->kernel) {
            opname = pto_opinfo_get((pto_op)v->m->stmts[s].op)->name;
            pto_error(v->ctx, o->loc, "operand %d of %s names no cube/vector pipe", i + 1, opname);
            return 0;
        }
        return 1;
    default: return 1;
    }
}

/* ---- op classes -------------------------------------------------------- */

typedef struct pto__vop {
    int32_t s;
    const pto_operand *o[4];
    const pto_tile *t[4];      /* tile operands, NULL otherwise */
} pto__vop;

static const char *pto__vtn(const pto__verifier *v, const pto_tile *t) { return pto__vname(v, t->name); }

static int pto__vdtype_mismatch(pto__verifier *v, const pto__vop *op, int a, int b)
{
    const pto_tile *x = op->t[a], *y = op->t[b];
    pto_error(v->ctx, op->o[b]->loc, "dtype mismatch: '%s' is %s but '%s' is %s", pto__vtn(v, x),
              pto_dtype_name((pto_dtype)x->dtype), pto__vtn(v, y), pto_dtype_name((pto_dtype)y->dtype));
    return 0;
}

static int pto__vshape_mismatch(pto__verifier *v, const pto__vop *op, int a, int b)
{
    const pto_tile *x = op->t[a], *y = op->t[b];
    int o = v->m->stmts[op->s].op;
    char hint[96] = "";
    /* tadd .. tdiv with a row or column vector is usually meant as the
       broadcast (its vector is the last operand, so only add and mul may
       have it first) */
    if (o >= PTO_OP_TADD && o <= PTO_OP_TDIV && (b == 2 || o == PTO_OP_TADD || o == PTO_OP_TMUL)) {
        int per_row = y->cols == 1 && y->rows == x->rows && x->cols > 1;
        int per_col = y->rows == 1 && y->cols == x->cols && x->rows > 1;
        if (per_row || per_col)
            snprintf(hint, sizeof hint, " (one value per %s: that is %s)", per_row ? "row" : "column",
                     pto_opinfo_get((pto_op)(o - PTO_OP_TADD + (per_row ? PTO_OP_TROWEXPANDADD : PTO_OP_TCOLEXPANDADD)))->name);
    }
    pto_error(v->ctx, op->o[b]->loc, "shape mismatch: '%s' is [%d, %d] but '%s' is [%d, %d]%s", pto__vtn(v, x),
              (int)x->rows, (int)x->cols, pto__vtn(v, y), (int)y->rows, (int)y->cols, hint);
    return 0;
}

/* (The checks apart from their messages: the usual case is a compare.) */
static PTO__V_INLINE int pto__vsame_dtype(pto__verifier *v, const pto__vop *op, int a, int b)
{
    return op->t[a]->dtype == op->t[b]->dtype || pto__vdtype_mismatch(v, op, a, b);
}

static int pto__vsame_shape(pto__verifier *v, const pto__vop *op, int a, int b)
{
    return (op->t[a]->rows == op->t[b]->rows && op->t[a]->cols == op->t[b]->cols) || pto__vshape_mismatch(v, op, a, b);
}

/* The op of the other direction: trowsum <-> tcolsum, trowexpandmul <->
   tcolexpandmul, ...; PTO_NOP for the others. */
static pto_op pto__vtwin(int op)
{
    if (op >= PTO_OP_TROWSUM && op <= PTO_OP_TROWMIN) return (pto_op)(op - PTO_OP_TROWSUM + PTO_OP_TCOLSUM);
    if (op >= PTO_OP_TCOLSUM && op <= PTO_OP_TCOLMIN) return (pto_op)(op - PTO_OP_TCOLSUM + PTO_OP_TROWSUM);
    if (op >= PTO_OP_TROWEXPANDADD && op <= PTO_OP_TROWEXPANDDIV)
        return (pto_op)(op - PTO_OP_TROWEXPANDADD + PTO_OP_TCOLEXPANDADD);
    if (op >= PTO_OP_TCOLEXPANDADD && op <= PTO_OP_TCOLEXPANDDIV)
        return (pto_op)(op - PTO_OP_TCOLEXPANDADD + PTO_OP_TROWEXPANDADD);
    return PTO_NOP;
}

/* x is not the vector the op wants; when it is the other direction's
   vector ([1, C] for a row op, [R, 1] for a column op), the message names
   the op that takes it. */
static void pto__vvector_error(pto__verifier *v, const pto__vop *op, int d, int of, int percol)
{
    const pto_tile *x = op->t[d], *a = op->t[of];
    const char *tn = pto__vtn(v, x), *an = pto__vtn(v, a);
    int twin = percol ? x->rows == a->rows && x->cols == 1 : x->rows == 1 && x->cols == a->cols;
    char hint[192] = "";
    int o = v->m->stmts[op->s].op;
    int reduction = (o >= PTO_OP_TROWSUM && o <= PTO_OP_TROWMIN) || (o >= PTO_OP_TCOLSUM && o <= PTO_OP_TCOLMIN);
    if (!percol && x->cols == 1 && x->rows > a->rows && o >= PTO_OP_TROWEXPANDADD && o <= PTO_OP_TROWEXPANDDIV)
        /* `trowexpandadd r, r, one` with one: f32[8, 1] valid(1, 1), a full reduction's result
           (pto__vrowred_taller), and r: [1, C]: a [1, 1] column cannot be a vec tile */
        snprintf(hint, sizeof hint, " (to broadcast the column '%s', give '%s' its %d rows, with the valid rows "
                 "you need: [%d, %d] valid(1, %d) for one value)", tn, an, (int)x->rows, (int)x->rows, (int)a->cols,
                 (int)a->cols);
    else if (twin && pto__vtwin(o) != PTO_NOP)
        snprintf(hint, sizeof hint, " (one value per %s: that is %s)", percol ? "row" : "column",
                 pto_opinfo_get(pto__vtwin(o))->name);
    else if (reduction && d == 0 && of == 1 &&
             (percol ? a->rows == 1 && a->cols == x->cols : a->cols == 1 && a->rows == x->rows))
        /* `trowsum a, s`: the source is the vector the result should be */
    {
        snprintf(hint, sizeof hint, " (the operands look swapped: %s %s, %s)", pto_opinfo_get((pto_op)o)->name, an, tn);
        v->swapped = 1;
    }
    if (percol)
        pto_error(v->ctx, op->o[d]->loc, "'%s' must be [1, %d] (one value per column of '%s'), got [%d, %d]%s", tn,
                  (int)a->cols, an, (int)x->rows, (int)x->cols, hint);
    else
        pto_error(v->ctx, op->o[d]->loc, "'%s' must be [%d, 1] (one value per row of '%s'), got [%d, %d]%s", tn,
                  (int)a->rows, an, (int)x->rows, (int)x->cols, hint);
}

/* A row reduction's d taller than a (`trowsum one, cs`, one: f32[8, 1]
   valid(1, 1), cs: [1, C]: the [1, 1] column a vec tile cannot be): fine
   when d's valid rows are a's wherever the op runs, since only those rows
   are reduced and written. pto-isa's TROWSUM / TROWMAX / TROWMIN check the
   same (TRowReduceCheck: src valid rows == dst valid rows; the static rows
   may differ). Returns 1 when it holds, else reports why and returns 0. */
static int pto__vrowred_taller(pto__verifier *v, const pto__vop *op)
{
    const pto_tile *x = op->t[0], *a = op->t[1];
    const char *xn = pto__vtn(v, x), *an = pto__vtn(v, a);
    pto__vform fx, fa, diff;
    const pto__vform *px = pto__vvalid(v, op->o[0]->ref, 0, &fx), *pa = pto__vvalid(v, op->o[1]->ref, 0, &fa);
    int64_t lo, hi;
    diff = *px;
    pto__fadd(&diff, pa, -1);
    if (pto__frange(v, &diff, &lo, &hi) && lo == 0 && hi == 0) return 1;
    if (pto__fisconst(px) && pto__fisconst(pa))
        pto_error(v->ctx, op->o[0]->loc, "'%s' has %lld valid rows but '%s' has %lld; a row reduction into a column "
                  "with more rows than '%s' (%d > %d) must have its valid rows (declare '%s' valid(%lld, 1))", xn,
                  (long long)px->c, an, (long long)pa->c, an, (int)x->rows, (int)a->rows, xn, (long long)pa->c);
    else
        pto_error(v->ctx, op->o[0]->loc, "the valid rows of '%s' and '%s' may differ; a row reduction into a column "
                  "with more rows than '%s' (%d > %d) must have its valid rows, known statically", xn, an, an,
                  (int)x->rows, (int)a->rows);
    return 0;
}

/* d is [R, 1] where R is the row count of the tile `of` (a row
   reduction's d may have more rows: pto__vrowred_taller). */
static void pto__vcolumn(pto__verifier *v, const pto__vop *op, int d, int of)
{
    const pto_tile *x = op->t[d], *a = op->t[of];
    if (x->rows == a->rows && x->cols == 1) return;
    if (x->cols == 1 && x->rows > a->rows && d == 0 && of == 1 &&
        pto_opinfo_get((pto_op)v->m->stmts[op->s].op)->cls == PTO_OC_ROWRED) {
        pto__vrowred_taller(v, op);
        return;
    }
    pto__vvector_error(v, op, d, of, 0);
}

/* d is [1, C] where C is the column count of the tile `of`. */
static int pto__vrowvec(pto__verifier *v, const pto__vop *op, int d, int of)
{
    const pto_tile *x = op->t[d], *a = op->t[of];
    if (x->rows == 1 && x->cols == a->cols) return 1;
    pto__vvector_error(v, op, d, of, 1);
    return 0;
}

/* The valid columns of the column ops, where they are known statically
   (the difference of the two affine forms has a static range):
   - tcolsum / tcolmax / tcolmin d, a: d's valid cols equal a's: each valid
     column of a is reduced into the same column of d (pto-isa's TCOL*
     assert src.GetValidCol() == dst.GetValidCol());
   - tcolexpand* d, a, v: v's valid cols cover d's: every valid column c of
     d reads v[0, c]. */
static void pto__vcolvalid(pto__verifier *v, const pto__vop *op)
{
    int cls = pto_opinfo_get((pto_op)v->m->stmts[op->s].op)->cls;
    const char *name = pto_opinfo_get((pto_op)v->m->stmts[op->s].op)->name;
    int x = cls == PTO_OC_COLRED ? 0 : 2, y = cls == PTO_OC_COLRED ? 1 : 0;   /* x - y is checked */
    pto__vform fx, fy, diff;
    const pto__vform *px = pto__vvalid(v, op->o[x]->ref, 1, &fx), *py = pto__vvalid(v, op->o[y]->ref, 1, &fy);
    const char *xn = pto__vtn(v, op->t[x]), *yn = pto__vtn(v, op->t[y]);
    int64_t lo, hi;
    diff = *px;
    pto__fadd(&diff, py, -1);
    if (!pto__frange(v, &diff, &lo, &hi)) return;
    if (cls == PTO_OC_COLRED) {
        if (lo == 0 && hi == 0) return;
        if (pto__fisconst(px) && pto__fisconst(py))
            pto_error(v->ctx, op->o[x]->loc, "'%s' has %lld valid cols but '%s' has %lld; %s reduces each valid column "
                      "of '%s' into the same column of '%s', so they must be equal", xn, (long long)px->c, yn,
                      (long long)py->c, name, yn, xn);
        else
            pto_error(v->ctx, op->o[x]->loc, "the valid cols of '%s' and '%s' can differ ('%s' minus '%s' is %lld to "
                      "%lld); %s reduces each valid column of '%s' into the same column of '%s', so they must be "
                      "equal", xn, yn, xn, yn, (long long)lo, (long long)hi, name, yn, xn);
        return;
    }
    if (lo >= 0) return;
    if (pto__fisconst(px) && pto__fisconst(py))
        pto_error(v->ctx, op->o[x]->loc, "'%s' has %lld valid cols but '%s' has %lld; %s reads %s[0, c] for every "
                  "valid column c of '%s'", xn, (long long)px->c, yn, (long long)py->c, name, xn, yn);
    else
        pto_error(v->ctx, op->o[x]->loc, "the valid cols of '%s' can be %lld fewer than those of '%s'; %s reads "
                  "%s[0, c] for every valid column c of '%s'", xn, (long long)-lo, yn, name, xn, yn);
}

/* ttrans d, a: d is a's shape transposed, of a's dtype, and its valid
   region is a's transposed (pto-isa's TTRANS transposes src's valid region
   and reads no valid region of dst: a dst region that differs would be
   filled where the .pto says it is not, or not filled where it says it is). */
static void pto__vtrans(pto__verifier *v, const pto__vop *op)
{
    const pto_tile *d = op->t[0], *a = op->t[1];
    const char *dn = pto__vtn(v, d), *an = pto__vtn(v, a);
    int i;
    if (!pto__vsame_dtype(v, op, 0, 1)) return;
    if (op->o[0]->ref == op->o[1]->ref) {   /* pto-isa's a2a3 TTRANS has written dst while it still read src */
        pto_error(v->ctx, op->o[0]->loc, "ttrans: '%s' is both the result and the source; transpose into another tile", dn);
        return;
    }
    if (d->rows != a->cols || d->cols != a->rows) {
        pto_error(v->ctx, op->o[0]->loc, "ttrans: '%s' is [%lld, %lld], so its transpose is [%lld, %lld], but '%s' is "
                  "[%lld, %lld]", an, (long long)a->rows, (long long)a->cols, (long long)a->cols, (long long)a->rows, dn,
                  (long long)d->rows, (long long)d->cols);
        return;
    }
    for (i = 0; i < 2; i++) {
        pto__vform fd, fa, diff;
        const pto__vform *pd = pto__vvalid(v, op->o[0]->ref, i, &fd), *pa = pto__vvalid(v, op->o[1]->ref, 1 - i, &fa);
        int64_t lo, hi;
        diff = *pd;
        pto__fadd(&diff, pa, -1);
        if (!pto__frange(v, &diff, &lo, &hi) || (lo == 0 && hi == 0)) continue;
        if (pto__fisconst(pd) && pto__fisconst(pa))
            pto_error(v->ctx, op->o[0]->loc, "ttrans: '%s' has %lld valid %s but '%s' has %lld valid %s; the transpose "
                      "of '%s''s valid region is '%s''s, so they must be equal", dn, (long long)pd->c, i ? "cols" : "rows",
                      an, (long long)pa->c, i ? "rows" : "cols", an, dn);
        else
            pto_error(v->ctx, op->o[0]->loc, "ttrans: the valid %s of '%s' and the valid %s of '%s' can differ (by %lld "
                      "to %lld); the transpose of '%s''s valid region is '%s''s, so they must be equal", i ? "cols" : "rows",
                      dn, i ? "rows" : "cols", an, (long long)lo, (long long)hi, an, dn);
    }
}

static void pto__vfloat_only(pto__verifier *v, const pto__vop *op)
{
    int o = v->m->stmts[op->s].op;
    if (o != PTO_OP_TEXP && o != PTO_OP_TLOG && o != PTO_OP_TSQRT && o != PTO_OP_TRSQRT && o != PTO_OP_TRECIP) return;
    if (!pto__dtype_float(op->t[1]->dtype))
        pto_error(v->ctx, op->o[1]->loc, "%s needs a float tile, but '%s' is %s", pto_opinfo_get((pto_op)o)->name,
                  pto__vtn(v, op->t[1]), pto_dtype_name((pto_dtype)op->t[1]->dtype));
}

/* One dimension of a window [start, start + extent) against [0, limit)
   (limit < 0: unknown), exact at the extremes of affine forms; `what` is
   "row" or "col". Errors point at expression e (its leftmost token, else
   `at`), found only then. */
static void pto__vwindow_dim(pto__verifier *v, const pto__vform *start, const pto__vform *extent,
                             int64_t limit, const char *prefix, const char *what, const char *name, int32_t e,
                             pto_loc at)
{
    pto__vform end;
    int64_t lo, hi, c, x[PTO__VK], y[PTO__VK];
    int q = start->ok ? pto__frange_tiny(v, start, &lo, &hi) : 0;
    if (q == 0 || (q < 0 && (!pto__fterms(v, start, x, y) || !pto__fsum(start->c, start->n, x, y, &lo, &hi)))) return;
    if (lo < 0) {
        pto_error(v->ctx, *pto__vexpr_loc(v, e, &at), "%s of '%s' starts at %s %lld, out of bounds", prefix, name, what,
                  (long long)lo);
        return;
    }
    if (limit < 0) return;
    if (pto__fisconst(extent)) {
        /* start + a constant has start's terms: only the constant moves,
           so the terms' extremes are reused (what frange of the sum gives) */
        if (q > 0 && pto__vtiny(extent->c)) hi += extent->c;   /* (tiny: the same sum, in another order) */
        else if ((q > 0 && !pto__fterms(v, start, x, y)) || !pto__vadd(start->c, extent->c, &c) ||
                 !pto__fsum(c, start->n, x, y, &lo, &hi))
            return;
        if (hi <= limit) return;
    } else {
        end = *start;
        pto__fadd(&end, extent, 1);
        if (!pto__frange(v, &end, &lo, &hi) || hi <= limit) return;
    }
    pto_error(v->ctx, *pto__vexpr_loc(v, e, &at), "%s of '%s' ends at %s %lld, out of bounds ('%s' has %lld %s%s)", prefix, name,
              what, (long long)(hi - 1), name, (long long)limit, what, limit == 1 ? "" : "s");   /* "1 col" */
}

/* tload / tstore: same dtype as the tensor, except that a tstore from an f32
   acc tile may narrow to an f16 / bf16 tensor (the fixpipe's F322F16 /
   F322BF16 cast, as pto-isa's TSTORE picks for an Acc tile and a half /
   bfloat16_t GlobalTensor; an i32 acc has no such cast without quant
   parameters); the window (the tile's valid region) inside the tensor when
   that is known statically. */
static void pto__vgm_op(pto__verifier *v, const pto__vop *op, int g, int t)
{
    const pto_operand *o = op->o[g];
    const pto_param *p = &v->m->params[o->ref];
    const pto_tile *x = op->t[t];
    int32_t tid = op->o[t]->ref;
    const char *pn = pto__vname(v, p->name);
    pto__vform r, c, vr, vc;
    int narrow = !g && x->space == PTO_ACC && x->dtype == PTO_F32 && (p->dtype == PTO_F16 || p->dtype == PTO_BF16);
    if (p->dtype != x->dtype && !narrow) {
        const char *tn = pto__vtn(v, x);
        const char *pd = pto_dtype_name((pto_dtype)p->dtype), *td = pto_dtype_name((pto_dtype)x->dtype);
        char fix[64] = "";
        if (x->space == PTO_VEC)   /* the way there: tcvt (review20 L8) */
            snprintf(fix, sizeof fix, g ? " (load into a%s %s tile, then tcvt)" : " (tcvt into a%s %s tile, then store that)",
                     pd[0] == 'b' ? "" : "n", pd);
        pto_error(v->ctx, op->o[1]->loc, "dtype mismatch: '%s' is %s but '%s' is %s%s", g ? tn : pn, g ? td : pd,
                  g ? pn : tn, g ? pd : td, fix);
    }
    pto__vexpr_sub(v, o->e[0], 0, &r, 0);
    pto__vexpr_sub(v, o->e[1], 0, &c, 0);
    pto__vwindow_dim(v, &r, pto__vvalid(v, tid, 0, &vr), p->dim[0], "window", "row", pn, o->e[0], o->loc);
    pto__vwindow_dim(v, &c, pto__vvalid(v, tid, 1, &vc), p->dim[1], "window", "col", pn, o->e[1], o->loc);
}

/* tmov: mat -> left/right (MTE1), acc -> vec/mat (FIX, may narrow f32 to
   f16/bf16), vec -> vec (V). Same shape. */
static void pto__vmov(pto__verifier *v, const pto__vop *op)
{
    int d = op->t[0]->space, a = op->t[1]->space;
    int ok = (a == PTO_MAT && (d == PTO_LEFT || d == PTO_RIGHT)) || (a == PTO_ACC && (d == PTO_VEC || d == PTO_MAT)) ||
             (a == PTO_VEC && d == PTO_VEC);
    if (!ok) {
        pto_error(v->ctx, op->o[0]->loc, "tmov cannot move '%s' to '%s' (it moves mat to left/right, acc to vec/mat, vec to vec)",
                  pto_space_name((pto_space)a), pto_space_name((pto_space)d));
        return;
    }
    pto__vsame_shape(v, op, 0, 1);
    if (a == PTO_ACC && op->t[1]->dtype == PTO_F32 && (op->t[0]->dtype == PTO_F16 || op->t[0]->dtype == PTO_BF16))
        return;
    pto__vsame_dtype(v, op, 0, 1);
}

/* The values a var of an affine form takes: first, first + step, ...;
   more = 0 when it takes one value at most. 0: not known statically, as
   under an `if` inside its loop (a guard may skip the bad values, as for
   pto__vvar_range); -1: it takes none (a zero-trip loop). */
static int pto__vvar_steps(const pto__verifier *v, int32_t var, int64_t *first, int64_t *step, int *more)
{
    if (var == PTO__VBLOCK) {   /* 0, 1, .. blocks - 1 */
        if (v->ifdepth > 0) return 0;
        *first = 0;
        *step = 1;
        *more = v->nblocks != 1;
        return 1;
    }
    if (var < 0 || var >= v->m->n_vars || !v->vlive[var]) return 0;
    if (v->vstep[var] < 0) return -1;
    if (v->vstep[var] == 0 || v->ifdepth > v->vifdepth[var]) return 0;
    *first = v->vstart[var];
    *step = v->vstep[var];
    *more = !(v->vrange[var] && v->vlo[var] == v->vhi[var]);
    return 1;
}

static int64_t pto__vmod(int64_t x, int64_t m) { return (x % m + m) % m; }

/* Whether affine form f can be a value that is not a multiple of m, and
   one such value in *bad (exact = 0 when some var's first value is not
   known). With every var at its first value f is f0; a var that takes
   more values moves f by k * step each time; so f is always a multiple of
   m iff f0 is and every such move is. A term whose var is not known
   statically is fine only when k is a multiple of m: otherwise nothing is
   said (no false alarm). */
static int pto__vmisaligned(const pto__verifier *v, const pto__vform *f, int64_t m, int64_t *bad, int *exact)
{
    int64_t val = f->c, res = pto__vmod(f->c, m), move = 0;
    int i;
    *exact = 1;
    if (!f->ok) return 0;
    for (i = 0; i < f->n; i++) {
        int64_t first, step, kf, ks;
        int more, known = pto__vvar_steps(v, f->var[i], &first, &step, &more);
        if (known < 0) return 0;   /* in a zero-trip loop: never a value at all */
        if (!known && f->k[i] % m != 0) return 0;
        if (!known) { *exact = 0; continue; }
        if (!pto__vmul(f->k[i], first, &kf) || !pto__vadd(val, kf, &val)) return 0;
        res = pto__vmod(res + pto__vmod(kf, m), m);
        if (!more || move != 0) continue;
        if (!pto__vmul(f->k[i], step, &ks)) return 0;
        if (ks % m != 0) move = ks;
    }
    if (res == 0 && move == 0) return 0;
    *bad = val;
    if (res == 0 && !pto__vadd(val, move, bad)) *exact = 0;
    return 1;
}

/* A textract offset into mat tile a (d = 0: row, 1: col) is whole
   fractals of a: TEXTRACT copies whole fractals out of the NZ layout. */
static void pto__vextract_align(pto__verifier *v, const pto_tile *a, const pto__vform *f, int d, const pto_operand *o)
{
    int fr, fc, exact;
    int64_t m, bad;
    const char *what = d ? "col" : "row", *dt, *an;
    pto_loc at;
    if (!pto__vfractal(a->space, a->dtype, &fr, &fc)) return;
    m = d ? fc : fr;
    if (!pto__vmisaligned(v, f, m, &bad, &exact)) return;
    dt = pto_dtype_name((pto_dtype)a->dtype);
    an = pto__vtn(v, a);
    at = *pto__vexpr_loc(v, o->e[0], &o->loc);
    if (pto__fisconst(f))
        pto_error(v->ctx, at, "textract %s offset %lld into '%s' is not a multiple of %d: offsets into a mat tile are whole %d x %d fractals for %s",
                  what, (long long)bad, an, (int)m, fr, fc, dt);
    else if (exact)
        pto_error(v->ctx, at, "textract %s offset into '%s' can be %lld, not a multiple of %d: offsets into a mat tile are whole %d x %d fractals for %s",
                  what, an, (long long)bad, (int)m, fr, fc, dt);
    else
        pto_error(v->ctx, at, "textract %s offset into '%s' is not always a multiple of %d: offsets into a mat tile are whole %d x %d fractals for %s",
                  what, an, (int)m, fr, fc, dt);
}

/* textract d, a, r, c: the [d.rows, d.cols] window of a at (r, c) lies in
   a and starts on a fractal of a. */
static void pto__vextract(pto__verifier *v, const pto__vop *op)
{
    const pto_tile *d = op->t[0], *a = op->t[1];
    pto__vform r, c, er, ec;
    pto__vsame_dtype(v, op, 0, 1);
    pto__vexpr(v, op->o[2]->e[0], 0, &r, 0);
    pto__vexpr(v, op->o[3]->e[0], 0, &c, 0);
    pto__fconst(&er, d->rows);
    pto__fconst(&ec, d->cols);
    pto__vwindow_dim(v, &r, &er, a->rows, "textract window", "row", pto__vtn(v, a),
                     op->o[2]->e[0], op->o[2]->loc);
    pto__vwindow_dim(v, &c, &ec, a->cols, "textract window", "col", pto__vtn(v, a),
                     op->o[3]->e[0], op->o[3]->loc);
    pto__vextract_align(v, a, &r, 0, op->o[2]);
    pto__vextract_align(v, a, &c, 1, op->o[3]);
}

/* c = a x b: [M, K] x [K, N] -> [M, N]; f16/bf16 -> f32, f32 -> f32, i8 -> i32. */
static void pto__vmatmul(pto__verifier *v, const pto__vop *op)
{
    const pto_tile *c = op->t[0], *a = op->t[1], *b = op->t[2];
    const char *name = pto_opinfo_get((pto_op)v->m->stmts[op->s].op)->name;
    int want;
    if (pto__vsame_dtype(v, op, 1, 2)) {
        if (a->dtype == PTO_I8) want = PTO_I32;
        else if (pto__dtype_float(a->dtype)) want = PTO_F32;
        else {
            pto_error(v->ctx, op->o[1]->loc, "%s cannot multiply %s tiles (it takes f16, bf16, f32 or i8)", name,
                      pto_dtype_name((pto_dtype)a->dtype));
            want = -1;
        }
        if (want >= 0 && c->dtype != want)
            pto_error(v->ctx, op->o[0]->loc, "'%s' must be %s to accumulate %s products, got %s", pto__vtn(v, c),
                      pto_dtype_name((pto_dtype)want), pto_dtype_name((pto_dtype)a->dtype),
                      pto_dtype_name((pto_dtype)c->dtype));
    }
    if (a->cols != b->rows) {
        pto_error(v->ctx, op->o[2]->loc, "matmul inner dims differ: '%s' is [%d, %d] but '%s' is [%d, %d]",
                  pto__vtn(v, a), (int)a->rows, (int)a->cols, pto__vtn(v, b), (int)b->rows, (int)b->cols);
        return;
    }
    if (c->rows != a->rows || c->cols != b->cols)
        pto_error(v->ctx, op->o[0]->loc, "'%s' must be [%d, %d] for [%d, %d] x [%d, %d], got [%d, %d]", pto__vtn(v, c),
                  (int)a->rows, (int)b->cols, (int)a->rows, (int)a->cols, (int)b->rows, (int)b->cols, (int)c->rows,
                  (int)c->cols);
}

/* set_flag / wait_flag: two different real pipes, an event id in 0..7. */
static void pto__vsync(pto__verifier *v, const pto__vop *op)
{
    const pto_stmt *st = &v->m->stmts[op->s];
    const char *name = pto_opinfo_get((pto_op)st->op)->name;
    pto__vform f;
    int64_t lo, hi;
    if (st->op == PTO_OP_PIPE_BARRIER) return;
    if (op->o[0]->ref == PTO_PIPE_ALL || op->o[1]->ref == PTO_PIPE_ALL) {
        pto_error(v->ctx, op->o[op->o[0]->ref == PTO_PIPE_ALL ? 0 : 1]->loc,
                  "%s cannot name pipe 'ALL' (use pipe_barrier ALL)", name);
    } else if (op->o[0]->ref == op->o[1]->ref) {
        pto_error(v->ctx, op->o[1]->loc, "%s needs two different pipes, got '%s' twice", name,
                  pto_pipe_name((pto_pipe)op->o[0]->ref));
    }
    pto__vexpr(v, op->o[2]->e[0], 0, &f, 0);
    if (pto__frange(v, &f, &lo, &hi) && (lo < 0 || hi > 7))
        pto_error(v->ctx, *pto__vexpr_loc(v, op->o[2]->e[0], &op->o[2]->loc), "event id %lld is out of range 0..7",
                  (long long)(lo < 0 ? lo : hi));
    else if (op->o[0]->ref == PTO_PIPE_M && op->o[1]->ref == PTO_PIPE_FIX && pto__frange(v, &f, &lo, &hi) && hi > 2)
        /* a warning: the ISA allows it, the simulator refuses it (a hang on a device) */
        pto_warning(v->ctx, *pto__vexpr_loc(v, op->o[2]->e[0], &op->o[2]->loc),
                    "%s M, FIX with event id %lld: ids 3..7 of the M -> FIX pair deadlocked on a device (hardware.md "
                    "section 4); use 0..2 (the simulator reports the others)", name, (long long)hi);
}

/* ---- cube <-> vector pipes -------------------------------------------------- */

static const char *pto__vdir_word(int d) { return d == PTO_C2V ? "c2v" : d == PTO_V2C ? "v2c" : "both"; }

/* Where pto__vrange evaluates an integer expression: the block (-1: not
   known, and then neither is `blocks`), the subblock, and what a loop var
   is worth: 0 nothing known, 1 its first value, 2 every value its loop's
   bounds allow (a superset); and how many more nodes it may visit (NULL:
   no limit; a let named twice is visited twice). */
typedef struct pto__venv {
    int64_t blk;
    int sb;
    int loops;
    long *budget;
    /* loop vars of known value, whatever loops says: lv[i] is worth lx[i]
       (i < nl; an lv of -1 names none) */
    int nl;
    const int32_t *lv;
    const int64_t *lx;
} pto__venv;

/* The values [*lo, *hi] integer expression e can take under env, when it
   names nothing but constants, block, blocks (a constant count), subblock,
   lets and (per env->loops) loop vars; 0 when it cannot bound them. An
   expression of single values is one value, computed exactly (checked
   arithmetic: an overflow bounds nothing). */
static int pto__vrange(const pto__verifier *v, int32_t e, const pto__venv *env, int64_t *lo, int64_t *hi, int depth)
{
    const pto_module *m = v->m;
    const pto_expr *x;
    int64_t a0, a1, b0, b1, p[4];
    int i;
    if (e < 0 || e >= m->n_exprs || depth > PTO__VDEPTH || (env->budget && --*env->budget < 0)) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: *lo = *hi = x->value; return 1;
    case PTO_E_SUBBLOCK: *lo = *hi = env->sb; return 1;
    case PTO_E_BLOCK:
    case PTO_E_BLOCKS:
        if (env->blk < 0 || (x->kind == PTO_E_BLOCKS && v->nblocks <= 0)) return 0;
        *lo = *hi = x->kind == PTO_E_BLOCK ? env->blk : v->nblocks;
        return 1;
    case PTO_E_VAR: {
        const pto_var *var = x->a >= 0 && x->a < m->n_vars ? &m->vars[x->a] : NULL;
        const pto_stmt *d;
        if (!var || var->def < 0 || var->def >= m->n_stmts) return 0;
        d = &m->stmts[var->def];
        if (var->kind == PTO_V_LET) return pto__vrange(v, d->e[0], env, lo, hi, depth + 1);
        if (var->kind == PTO_V_LOOP)
            for (i = 0; i < env->nl; i++)
                if (env->lv[i] == x->a) { *lo = *hi = env->lx[i]; return 1; }
        if (var->kind != PTO_V_LOOP || !env->loops) return 0;
        if (env->loops == 1) return pto__vrange(v, d->e[0], env, lo, hi, depth + 1) && *lo == *hi;
        b0 = b1 = 1;
        if (!pto__vrange(v, d->e[0], env, &a0, &a1, depth + 1) || !pto__vrange(v, d->e[1], env, lo, hi, depth + 1) ||
            (d->e[2] >= 0 && !pto__vrange(v, d->e[2], env, &b0, &b1, depth + 1)) || b0 != b1 || b0 == 0)
            return 0;
        /* up from the start to below the end, or down to above it */
        if (b0 > 0) *lo = a0, *hi = *hi > a1 && *hi != INT64_MIN ? *hi - 1 : a1;
        else *hi = a1, *lo = *lo < a0 && *lo != INT64_MAX ? *lo + 1 : a0;
        return 1;
    }
    case PTO_E_NEG:
        if (!pto__vrange(v, x->a, env, &a0, &a1, depth + 1) || a0 == INT64_MIN) return 0;
        *lo = -a1, *hi = -a0;
        return 1;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD: case PTO_E_MIN: case PTO_E_MAX:
        if (!pto__vrange(v, x->a, env, &a0, &a1, depth + 1) || !pto__vrange(v, x->b, env, &b0, &b1, depth + 1)) return 0;
        switch (x->kind) {
        case PTO_E_ADD: return pto__vadd(a0, b0, lo) && pto__vadd(a1, b1, hi);
        case PTO_E_SUB: return b0 != INT64_MIN && b1 != INT64_MIN && pto__vadd(a0, -b1, lo) && pto__vadd(a1, -b0, hi);
        case PTO_E_MUL:
            if (!pto__vmul(a0, b0, &p[0]) || !pto__vmul(a0, b1, &p[1]) || !pto__vmul(a1, b0, &p[2]) ||
                !pto__vmul(a1, b1, &p[3]))
                return 0;
            *lo = *hi = p[0];
            for (i = 1; i < 4; i++) {
                if (p[i] < *lo) *lo = p[i];
                if (p[i] > *hi) *hi = p[i];
            }
            return 1;
        case PTO_E_MIN: *lo = a0 < b0 ? a0 : b0, *hi = a1 < b1 ? a1 : b1; return 1;
        case PTO_E_MAX: *lo = a0 > b0 ? a0 : b0, *hi = a1 > b1 ? a1 : b1; return 1;
        default:
            /* by one known divisor: C's division truncates, monotonic in
               the dividend; a remainder lies within the divisor */
            if (b0 != b1 || b0 == 0 || (a0 == INT64_MIN && b0 == -1)) return 0;
            if (x->kind == PTO_E_DIV) {
                *lo = (b0 > 0 ? a0 : a1) / b0, *hi = (b0 > 0 ? a1 : a0) / b0;
            } else if (a0 == a1) {
                *lo = *hi = a0 % b0;
            } else if (b0 == INT64_MIN) {
                return 0;
            } else {
                *hi = (b0 > 0 ? b0 : -b0) - 1;
                *lo = a0 >= 0 ? 0 : -*hi;
                if (a1 <= 0) *hi = 0;
            }
            return 1;
        }
    default: return 0;
    }
}

/* The value of integer expression e on AIV sb (subblock = sb) when it
   depends on nothing but subblock and constants (through lets too);
   0 when it depends on anything else or does not fold. */
static int pto__vat_aiv(const pto__verifier *v, int32_t e, int sb, int64_t *out, int depth)
{
    pto__venv env;
    int64_t hi;
    env.blk = -1, env.sb = sb, env.loops = 0, env.budget = NULL, env.nl = 0, env.lv = NULL, env.lx = NULL;
    return pto__vrange(v, e, &env, out, &hi, depth);
}

/* Whether AIV sb never runs the statements of `block`: an enclosing `if` of
   the section takes the branch that holds them only when subblock is not
   sb, judged by evaluating its condition at subblock = sb (a condition that
   depends on anything else is no guard: it lets both AIVs in alike). */
static int pto__vaiv_skips(const pto__verifier *v, int32_t block, int sb)
{
    const pto_module *m = v->m;
    int32_t steps = 0;
    while (block >= 0 && block < m->n_blocks && steps++ <= m->n_blocks) {
        int32_t owner = m->blocks[block].owner;
        const pto_stmt *ow;
        int64_t a, b;
        if (owner < 0 || owner >= m->n_stmts) return 0;
        ow = &m->stmts[owner];
        if (ow->kind == PTO_ST_SECTION) return 0;
        if (ow->kind == PTO_ST_IF && pto__vat_aiv(v, ow->e[0], sb, &a, 0) && pto__vat_aiv(v, ow->e[1], sb, &b, 0) &&
            pto__cmp_holds(ow->cmp, a, b) != (block == ow->body))
            return 1;
        block = ow->block;
    }
    return 0;
}

/* Whether AIV sb can run an `op` (tpush / tpop / tfree) on pipe qi in
   block b or below: an if whose condition folds at subblock = sb is entered
   on its taken branch only. */
static int pto__vaiv_reaches(const pto__verifier *v, int32_t b, int32_t qi, int op, int sb, int depth)
{
    const pto_module *m = v->m;
    int32_t s;
    if (b < 0 || b >= m->n_blocks || depth > m->n_blocks) return 0;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        int64_t x, y;
        if (st->kind == PTO_ST_OP && st->op == op && st->nargs >= 1) {
            const pto_operand *o = &m->operands[st->arg0 + (op == PTO_OP_TPOP && st->nargs == 2 ? 1 : 0)];
            if (o->kind == PTO_O_CVPIPE && o->ref == qi) return 1;
        } else if (st->kind == PTO_ST_IF && pto__vat_aiv(v, st->e[0], sb, &x, 0) && pto__vat_aiv(v, st->e[1], sb, &y, 0)) {
            if (pto__vaiv_reaches(v, pto__cmp_holds(st->cmp, x, y) ? st->body : st->orelse, qi, op, sb, depth + 1))
                return 1;
        } else if (st->kind == PTO_ST_IF || st->kind == PTO_ST_FOR) {
            if (pto__vaiv_reaches(v, st->body, qi, op, sb, depth + 1) ||
                (st->kind == PTO_ST_IF && pto__vaiv_reaches(v, st->orelse, qi, op, sb, depth + 1)))
                return 1;
        }
    }
    return 0;
}

/* The AIV (0 or 1) that never runs statement st's op on pipe qi: an
   enclosing if keeps st from it, and no other such op of the vector section
   (another branch of an if on subblock) is open to it; -1 when both run it. */
static int pto__vaiv_missing(const pto__verifier *v, const pto_stmt *st, int32_t qi)
{
    const pto_module *m = v->m;
    int32_t sec = st->block, steps = 0;
    int sb;
    while (sec >= 0 && sec < m->n_blocks && steps++ <= m->n_blocks) {
        int32_t owner = m->blocks[sec].owner;
        if (owner < 0 || owner >= m->n_stmts) return -1;
        if (m->stmts[owner].kind == PTO_ST_SECTION) break;
        sec = m->stmts[owner].block;
    }
    for (sb = 0; sb < 2; sb++)
        if (pto__vaiv_skips(v, st->block, sb) && !pto__vaiv_reaches(v, sec, qi, st->op, sb, 0)) return sb;
    return -1;
}

/* tpush / tpop: the section's core is the producer (tpush) or consumer
   (tpop) of the pipe's direction, and the tile has the pipe's dtype and the
   shape this core sees: the whole tile on the cube, the half its split
   gives each AIV on the vector core. */
static void pto__vcvpipe_op(pto__verifier *v, const pto__vop *op)
{
    const pto_stmt *st = &v->m->stmts[op->s];
    int pi = st->op == PTO_OP_TPOP ? 1 : 0, ti = 1 - pi;
    const pto_cvpipe *q = &v->m->cvpipes[op->o[pi]->ref];
    const pto_tile *t = op->t[ti];
    const char *name = pto_opinfo_get((pto_op)st->op)->name, *qn = pto__vname(v, q->name);
    int cube = v->core == PTO_CORE_CUBE, need, r = q->rows, c = q->cols, vr, vc, csp;
    if (v->core < 0 || !t) return;   /* outside a section: reported already */
    need = (st->op != PTO_OP_TPUSH) == cube ? PTO_V2C : PTO_C2V;
    if (!(q->dir & need)) {
        pto_error(v->ctx, st->loc, "%s on %s pipe '%s' in the %s section: the %s core is its %s", name,
                  pto__vdir_word(q->dir), qn, cube ? "cube" : "vector", cube ? "vector" : "cube",
                  st->op == PTO_OP_TPUSH ? "producer" : "consumer");
        return;
    }
    /* both AIVs consume a c2v pipe (each its half, or the whole tile), and
       the cube reuses a slot only when both have freed it */
    if (st->op != PTO_OP_TPUSH && !cube) {
        int skipped = pto__vaiv_missing(v, st, op->o[pi]->ref);
        if (skipped >= 0)
            pto_error(v->ctx, st->loc, "%s of %spipe '%s' never runs on AIV %d (subblock %d): both AIVs pop and "
                      "free every slot of a c2v pipe (%s), and the cube's tpush reuses a slot only when both have "
                      "freed it, so it would wait forever; pop and free on both AIVs", name,
                      q->split != PTO_SPLIT_NONE ? "split " : "", qn, skipped, skipped,
                      q->split != PTO_SPLIT_NONE ? "each its half" : "each the whole tile");
    }
    if (st->op == PTO_OP_TFREE) return;
    if (!cube && q->split == PTO_SPLIT_UP_DOWN) r /= 2;
    if (!cube && q->split == PTO_SPLIT_LEFT_RIGHT) c /= 2;
    if (!cube && ((q->split == PTO_SPLIT_UP_DOWN && q->rows % 2) || (q->split == PTO_SPLIT_LEFT_RIGHT && q->cols % 2))) {
    }   /* an odd split has no half: the pipe says so (was: "must be [31, 64]" for [63, 64]) */
    else if (!cube && pto__vpipe_vrow_bad(q, &vr, &vc)) {}   /* no vec tile fits: the pipe says so */
    else if (cube && pto__vpipe_cube_bad(q, need, &vr, &vc, &csp)) {}   /* no acc / mat tile fits: the pipe says so */
    else if (t->dtype != q->dtype)
        pto_error(v->ctx, op->o[ti]->loc, "%s: tile '%s' is %s but pipe '%s' carries %s", name, pto__vtn(v, t),
                  pto_dtype_name((pto_dtype)t->dtype), qn, pto_dtype_name((pto_dtype)q->dtype));
    else if (t->rows != r || t->cols != c) {
        /* a vector core's half tile on an unsplit pipe: name the split that gives it */
        const char *hint = "";
        if (!cube && q->split == PTO_SPLIT_NONE && t->rows * 2 == r && t->cols == c)
            hint = " (without a split each vector core sees the whole tile; split(up_down) gives each half the rows)";
        else if (!cube && q->split == PTO_SPLIT_NONE && t->rows == r && t->cols * 2 == c)
            hint = " (without a split each vector core sees the whole tile; split(left_right) gives each half the "
                   "columns)";
        pto_error(v->ctx, op->o[ti]->loc, "%s: tile '%s' must be [%d, %d] for pipe '%s' of [%d, %d]%s, got [%d, %d]%s",
                  name, pto__vtn(v, t), r, c, qn, (int)q->rows, (int)q->cols,
                  cube || q->split == PTO_SPLIT_NONE ? "" : q->split == PTO_SPLIT_UP_DOWN ? " split up_down" : " split left_right",
                  (int)t->rows, (int)t->cols, hint);
    }
    /* without a split the slot holds one whole tile: AIV 0 fills it, and a
       push from AIV 1 as well would have no ring direction to go to */
    if (st->op == PTO_OP_TPUSH && !cube && q->split == PTO_SPLIT_NONE && !pto__vaiv_skips(v, st->block, 1))
        pto_error(v->ctx, st->loc, "tpush into pipe '%s' (v2c, no split) can run on AIV 1 (subblock 1), but only "
                  "AIV 0 pushes into an unsplit v2c pipe: guard it with 'if subblock == 0 { ... }', or split the "
                  "pipe (each AIV then pushes half the tile)", qn);
    /* with a split each AIV fills its half of every slot: the slot is whole,
       and the cube's tpop goes on, only when both have pushed */
    if (st->op == PTO_OP_TPUSH && !cube && q->split != PTO_SPLIT_NONE) {
        int skipped = pto__vaiv_missing(v, st, op->o[pi]->ref);
        if (skipped >= 0)
            pto_error(v->ctx, st->loc, "tpush into split pipe '%s' never runs on AIV %d (subblock %d): each AIV "
                      "pushes its half of every slot, so the cube's tpop would wait for the other half forever; push "
                      "on both AIVs, or drop the split (then AIV 0 alone pushes the whole tile)", qn, skipped, skipped);
    }
    if (st->op == PTO_OP_TPOP && (t->nbuf > 1 || t->pin != PTO_NO_ADDR))
        pto_error(v->ctx, op->o[0]->loc, "tpop: tile '%s' lives in pipe '%s''s local slots: it cannot be %s", pto__vtn(v, t),
                  qn, t->nbuf > 1 ? "multi-buffered (the slots rotate by themselves)" : "pinned with 'at'");
}

/* ---- communication (hardware.md section 8) ---- */

/* A constant integer operand, or 0 with *known = 0. */
static int64_t pto__vconst_int(pto__verifier *v, const pto_operand *o, int *known)
{
    pto__vform f;
    pto__vexpr(v, o->e[0], 0, &f, 0);
    *known = pto__fisconst(&f);
    return *known ? f.c : 0;
}

/* The [rows, cols] window at GM operand g inside its tensor (when static). */
static void pto__vcomm_window(pto__verifier *v, const pto_operand *o, int64_t rows, int64_t cols)
{
    const pto_param *p = &v->m->params[o->ref];
    const char *pn = pto__vname(v, p->name);
    pto__vform r, c, er, ec;
    pto__vexpr(v, o->e[0], 0, &r, 0);
    pto__vexpr(v, o->e[1], 0, &c, 0);
    pto__fconst(&er, rows);
    pto__fconst(&ec, cols);
    pto__vwindow_dim(v, &r, &er, p->dim[0], "window", "row", pn, o->e[0], o->loc);
    pto__vwindow_dim(v, &c, &ec, p->dim[1], "window", "col", pn, o->e[1], o->loc);
}

/* A signal operand: an i32 tensor; one cell, or (allreduce) the whole tensor. */
static int pto__vsignal(pto__verifier *v, const char *opname, const pto_operand *o)
{
    const pto_param *p = &v->m->params[o->ref];
    if (p->dtype != PTO_I32) {
        pto_error(v->ctx, o->loc, "%s: signal '%s' must be an i32 tensor, got %s", opname, pto__vname(v, p->name),
                  pto_dtype_name((pto_dtype)p->dtype));
        return 0;
    }
    if (o->e[0] >= 0) pto__vcomm_window(v, o, 1, 1);
    return 1;
}

/* *d = a - b when that is a constant (a and b name the same terms in the
   same order, or none): 1, else 0 (unknown: no claim). */
static int pto__vform_delta(const pto__vform *a, const pto__vform *b, int64_t *d)
{
    int i;
    if (!a->ok || !b->ok || a->n != b->n) return 0;
    for (i = 0; i < a->n && i < PTO__VK; i++)
        if (a->var[i] != b->var[i] || a->k[i] != b->k[i]) return 0;
    if ((b->c < 0 && a->c > INT64_MAX + b->c) || (b->c > 0 && a->c < INT64_MIN + b->c)) return 0;
    *d = a->c - b->c;
    return 1;
}

/* GM operand o's row / col (i 0 / 1) or peer rank (2) as a form; quiet (the
   window's own checks said what is wrong with it). */
static void pto__vquiet_form(pto__verifier *v, const pto_operand *o, int i, pto__vform *f)
{
    pto__dmark mk = pto__diag_mark(v->ctx);
    pto__vexpr(v, o->e[i], 0, f, 0);
    pto__diag_truncate(v->ctx, &mk);
}

/* The two windows of a tput / tget on the same copy of one tensor that
   overlap on every rank (review26b L6: `tget x[0, 0], x@rank[4, 0], 8, 64`
   passed check and failed only in the interpreter, with this message): the
   same tensor, the same copy (neither or `@rank` names a peer, or the two
   peer expressions differ by 0) and row / col offsets a constant apart by
   less than the extents. Windows that only some values make overlap are
   left to the run. */
static void pto__vxfer_overlap(pto__verifier *v, const pto__vop *op, const char *name, const int64_t ext[2])
{
    const pto_operand *d = op->o[0], *a = op->o[1];
    pto__vform fd, fa;
    int64_t delta[2];
    int i, own_d, own_a;
    if (d->ref != a->ref) return;
    own_d = d->e[2] < 0 || v->m->exprs[d->e[2]].kind == PTO_E_RANK;
    own_a = a->e[2] < 0 || v->m->exprs[a->e[2]].kind == PTO_E_RANK;
    if (!own_d || !own_a) {
        int64_t dr;
        if (own_d || own_a) return;
        pto__vquiet_form(v, d, 2, &fd);
        pto__vquiet_form(v, a, 2, &fa);
        if (!pto__vform_delta(&fd, &fa, &dr) || dr != 0) return;
    }
    for (i = 0; i < 2; i++) {
        pto__vquiet_form(v, d, i, &fd);
        pto__vquiet_form(v, a, i, &fa);
        if (!pto__vform_delta(&fd, &fa, &delta[i]) || delta[i] <= -ext[i] || delta[i] >= ext[i]) return;
    }
    pto_error(v->ctx, v->m->stmts[op->s].loc,
              "%s: the source and destination windows overlap: both are of the same copy of '%s', and the %lld x %lld "
              "windows are %lld row%s and %lld col%s apart (copy through a tile, or use windows apart)",
              name, pto__vname(v, v->m->params[d->ref].name), (long long)ext[0], (long long)ext[1],
              (long long)(delta[0] < 0 ? -delta[0] : delta[0]), delta[0] == 1 || delta[0] == -1 ? "" : "s",
              (long long)(delta[1] < 0 ? -delta[1] : delta[1]), delta[1] == 1 || delta[1] == -1 ? "" : "s");
}

/* tput X@p[r, c], Y[r, c], ROWS, COLS (tget: the remote side is Y): same
   dtype, ROWS and COLS constant and positive, both windows inside, not
   overlapping on one copy. */
static void pto__vxfer(pto__verifier *v, const pto__vop *op, const char *name)
{
    const pto_param *d = &v->m->params[op->o[0]->ref], *a = &v->m->params[op->o[1]->ref];
    int64_t ext[2];
    int i, known;
    if (d->dtype != a->dtype)
        pto_error(v->ctx, op->o[1]->loc, "%s: dtype mismatch: '%s' is %s but '%s' is %s", name, pto__vname(v, d->name),
                  pto_dtype_name((pto_dtype)d->dtype), pto__vname(v, a->name), pto_dtype_name((pto_dtype)a->dtype));
    for (i = 0; i < 2; i++) {
        ext[i] = pto__vconst_int(v, op->o[2 + i], &known);
        if (!known || ext[i] < 1 || ext[i] > 65536) {
            pto_error(v->ctx, op->o[2 + i]->loc, "%s: the %s count must be a constant in 1..65536", name,
                      i ? "column" : "row");
            return;
        }
    }
    pto__vcomm_window(v, op->o[0], ext[0], ext[1]);
    pto__vcomm_window(v, op->o[1], ext[0], ext[1]);
    pto__vxfer_overlap(v, op, name, ext);
}

/* Signal cell [0, 0] of a tensor that an allreduce of the kernel uses as its
   SIG is allreduce's barrier counter (lower.c): it counts nranks per barrier,
   waits GE on the counts and subtracts them at the end. A user's notify on
   that cell (a peer's copy too) makes a later barrier pass before every rank
   has counted, or an earlier one see its subtract as a peer's count; a wait on
   it reads counts that are not the user's. The upstream allreduce review
   (a stale count left in the cell makes the next call's wait pass at once) is
   this bug; the simulator sees it only as a race or a deadlock at the
   allreduce line. Refused here when the cell is [0, 0] by constants, in either
   order of the two statements (a cell known only at run time passes: no false
   alarm). kind 0: the allreduce's signal operand; 1: a notify / wait's. */
static void pto__vsig_cell(pto__verifier *v, const pto_operand *o, int kind)
{
    int32_t *mine, other;
    const pto_stmt *st = &v->m->stmts[v->here_stmt];
    int known;
    if (!v->psig || o->ref < 0 || o->ref >= v->m->n_params || st->origin != PTO_BY_USER) return;
    if (kind == 1) {
        if (o->e[0] < 0 || o->e[1] < 0) return;
        if (pto__vconst_int(v, o, &known) != 0 || !known) return;
        {
            pto__vform f;
            pto__vexpr(v, o->e[1], 0, &f, 0);
            if (!pto__fisconst(&f) || f.c != 0) return;
        }
    }
    mine = &v->psig[2 * o->ref + kind];
    other = v->psig[2 * o->ref + !kind];
    if (*mine == 0) *mine = 1 + v->here_stmt;
    if (other == 0 || other < 0) return;
    {
        const pto_stmt *ar = &v->m->stmts[kind ? other - 1 : v->here_stmt];
        const pto_stmt *nw = &v->m->stmts[kind ? v->here_stmt : other - 1];
        const char *pn = pto__vname(v, v->m->params[o->ref].name);
        v->psig[2 * o->ref + !kind] = -1;   /* once per tensor */
        pto_error(v->ctx, kind ? o->loc : v->m->operands[nw->arg0].loc,
                  "%s on cell [0, 0] of '%s', where the allreduce at line %d counts its barriers: it breaks their "
                  "counts (a barrier can pass before every rank has counted); use another cell, e.g. %s[0, 1]",
                  pto_opinfo_get((pto_op)nw->op)->name, pn, (int)ar->loc.line, pn);
    }
}

/* allreduce X, SIG: X an f32 window tensor with static dims; SIG an i32
   window tensor (its cell [0, 0] counts the barriers). */
static void pto__vallreduce(pto__verifier *v, const pto__vop *op)
{
    const pto_param *x = &v->m->params[op->o[0]->ref], *g = &v->m->params[op->o[1]->ref];
    int i;
    for (i = 0; i < 2; i++) {
        const pto_param *p = i ? g : x;
        if (!p->window)
            pto_error(v->ctx, op->o[i]->loc, "allreduce: '%s' is not a window tensor (declare it 'window': peers read it)",
                      pto__vname(v, p->name));
    }
    if (x->dtype != PTO_F32)
        pto_error(v->ctx, op->o[0]->loc, "allreduce: '%s' must be f32 (the sum is f32), got %s", pto__vname(v, x->name),
                  pto_dtype_name((pto_dtype)x->dtype));
    if (x->dim_var[0] >= 0 || x->dim_var[1] >= 0)
        pto_error(v->ctx, op->o[0]->loc, "allreduce: '%s' needs static dims (its chunks are planned tiles)",
                  pto__vname(v, x->name));
    if (op->o[0]->ref == op->o[1]->ref)
        pto_error(v->ctx, op->o[1]->loc, "allreduce: the signal must be another tensor than the data");
    /* the recipe (lower.c) is per rank: every block would count itself into the one signal cell
       and sum and store the whole tensor (wrong sums, races and waits that pass early) */
    if (v->nblocks > 1)
        pto_error(v->ctx, v->m->stmts[op->s].loc,
                  "allreduce needs one block per rank: kernel '%s' launches %lld blocks, and every block would run "
                  "the whole allreduce on the one signal (drop its blocks(...))",
                  pto__vname(v, v->m->kernels[v->kernel].name), (long long)v->nblocks);
    else if (v->nblocks != 1)
        pto_error(v->ctx, v->m->stmts[op->s].loc,
                  "allreduce needs one block per rank: kernel '%s' launches blocks(...) known only at launch, and "
                  "every block would run the whole allreduce on the one signal (drop its blocks(...))",
                  pto__vname(v, v->m->kernels[v->kernel].name));
    if (pto__vsignal(v, "allreduce", op->o[1])) pto__vsig_cell(v, op->o[1], 0);
}

/* `wait s@p[...]`: a wait polls this rank's own copy of a signal; the
   error quotes the '@...' written (review26b L5) and says how a peer's
   progress reaches this rank instead. */
static void pto__vwait_at(pto__verifier *v, const pto_operand *o)
{
    const pto_module *m = v->m;
    pto_buf text;
    int atom = o->e[2] >= 0 && o->e[2] < m->n_exprs && m->exprs[o->e[2]].kind < PTO_E_ADD;
    memset(&text, 0, sizeof text);
    text.ctx = v->ctx;
    pto_print_expr(m, o->e[2], &text);
    pto_error(v->ctx, o->loc, "wait polls the own copy of a signal: drop the '@%s%s%s' (to wait for a peer, have "
              "the peer notify this rank's copy: notify s@RANK[...] there, wait s[...] here)", atom ? "" : "(",
              text.data ? text.data : "?", atom ? "" : ")");
    pto_buf_free(&text);
}

/* notify / wait / tput / tget / allreduce: a ranks kernel; the staging
   tiles of tput / tget / allreduce are vec tiles, so the vector core. */
static void pto__vcomm(pto__verifier *v, const pto__vop *op)
{
    const pto_stmt *st = &v->m->stmts[op->s];
    const pto_kernel *k = &v->m->kernels[v->kernel];
    const char *name = pto_opinfo_get((pto_op)st->op)->name;
    int cls = pto_opinfo_get((pto_op)st->op)->cls;
    if (!k->ranks) {
        pto_error(v->ctx, st->loc, "%s needs a ranks kernel; '%s' is not declared 'ranks'", name, pto__vname(v, k->name));
        v->ranks_err = 1;
        return;
    }
    if ((cls == PTO_OC_XFER || cls == PTO_OC_ALLREDUCE) && v->core != PTO_CORE_VECTOR) {
        pto_error(v->ctx, st->loc, "%s runs on the vector core (it stages data in vec tiles)", name);
        return;
    }
    if (cls == PTO_OC_NOTIFY) {
        int known;
        int64_t val = pto__vconst_int(v, op->o[1], &known);
        if (pto__vsignal(v, name, op->o[0])) {
            if (known && (val < -2147483647 - 1 || val > 2147483647))
                pto_error(v->ctx, op->o[1]->loc, "notify: value %lld does not fit an i32 signal", (long long)val);
            pto__vsig_cell(v, op->o[0], 1);
        }
    } else if (cls == PTO_OC_WAIT) {
        int known;
        int64_t val = pto__vconst_int(v, op->o[2], &known);
        if (op->o[0]->e[2] >= 0)
            pto__vwait_at(v, op->o[0]);
        else if (pto__vsignal(v, name, op->o[0])) {
            if (known && (val < -2147483647 - 1 || val > 2147483647))
                pto_error(v->ctx, op->o[2]->loc, "wait: value %lld does not fit an i32 signal", (long long)val);
            pto__vsig_cell(v, op->o[0], 1);
        }
    } else if (cls == PTO_OC_XFER) {
        pto__vxfer(v, op, name);
    } else {
        pto__vallreduce(v, op);
    }
}

/* The scalar of tadds .. tmins or texpands on an i32 / i8 tile: the device
   takes it in the tile's dtype (pto-isa's `TileData::DType scalar`), so a
   fractional value is truncated toward zero and one out of the dtype's
   range has no defined conversion (pto_scalar_as saturates it, NaN to 0).
   A literal or constant that changes on the way is warned about here, with
   the value that will be used; a scalar param's value is known only at
   run time (the host harness says it then). */
static void pto__vint_scalar(pto__verifier *v, const pto__vop *op, int si)
{
    const pto_operand *o = op->o[si];
    const pto_tile *d = op->t[0];
    const char *name = pto_opinfo_get((pto_op)v->m->stmts[op->s].op)->name, *dt;
    double x, used;
    char xs[40];
    if (!d || (d->dtype != PTO_I32 && d->dtype != PTO_I8) || !o) return;
    if (o->kind == PTO_O_FLOAT) {
        x = o->f;
        snprintf(xs, sizeof xs, "%g", x);
        if (strtod(xs, NULL) != x) snprintf(xs, sizeof xs, "%.17g", x);
    } else if (o->kind == PTO_O_INT) {
        /* the expression's own diagnostics were said when its kind was
           checked (pto__vkind_ok): not twice (review18: `texpands t, rank * 10`
           in a kernel without ranks) */
        pto__dmark mk = pto__diag_mark(v->ctx);
        int known;
        int64_t c = pto__vconst_int(v, o, &known);
        pto__diag_truncate(v->ctx, &mk);
        if (!known) return;
        x = (double)c;
        snprintf(xs, sizeof xs, "%lld", (long long)c);
    } else return;
    used = (double)pto_scalar_asi(d->dtype, x);
    dt = pto_dtype_name((pto_dtype)d->dtype);
    if (used == 0 && v->m->stmts[op->s].op == PTO_OP_TDIVS) {
        /* review26a L5: the one integer scalar that divides no element; (tadds 1.5 warned, tdivs 0 did not) */
        pto_warning(v->ctx, o->loc, "tdivs on the %s tile '%s' by %s%s: the device multiplies by 1 / 0 = +inf, so "
                    "every element but 0 saturates to the %s range's end (positive ones to %.0f, negative ones to "
                    "%.0f; 0 * inf is NaN, which gives 0)", dt, pto__vtn(v, d), xs, x == 0 ? "" : " (taken as 0)", dt,
                    (double)pto_int_hi(d->dtype), (double)pto_int_lo(d->dtype));
        return;
    }
    if (used == x) return;
    if (x != x)
        pto_warning(v->ctx, o->loc, "%s on the %s tile '%s': the scalar nan has no %s value; the simulator and the "
                    "reference use 0", name, dt, pto__vtn(v, d), dt);
    else if (x < pto_int_lo(d->dtype) || x > pto_int_hi(d->dtype))
        pto_warning(v->ctx, o->loc, "%s on the %s tile '%s': the scalar %s does not fit %s (the device's conversion "
                    "is undefined); the simulator and the reference use %.0f", name, dt, pto__vtn(v, d), xs, dt, used);
    else
        pto_warning(v->ctx, o->loc, "%s on the %s tile '%s': the scalar %s is taken as %.0f (the device converts it "
                    "to the tile's dtype, truncating toward zero)", name, dt, pto__vtn(v, d), xs, used);
}

/* The class rules, once every operand has the right kind and space. */
static void pto__vclass(pto__verifier *v, const pto__vop *op)
{
    const pto_opinfo *info = pto_opinfo_get((pto_op)v->m->stmts[op->s].op);
    int ok;
    switch (info->cls) {
    case PTO_OC_LOAD: pto__vgm_op(v, op, 1, 0); break;
    case PTO_OC_STORE: pto__vgm_op(v, op, 0, 1); break;
    case PTO_OC_BIN:
        if (pto__vsame_dtype(v, op, 0, 1)) pto__vsame_dtype(v, op, 0, 2);
        if (pto__vsame_shape(v, op, 0, 1)) pto__vsame_shape(v, op, 0, 2);
        break;
    case PTO_OC_BINS: case PTO_OC_UN:
        pto__vsame_dtype(v, op, 0, 1);
        pto__vsame_shape(v, op, 0, 1);
        if (info->cls == PTO_OC_UN) pto__vfloat_only(v, op);
        else pto__vint_scalar(v, op, 2);
        break;
    case PTO_OC_FILL: pto__vint_scalar(v, op, 1); break;
    case PTO_OC_ROWRED:
        pto__vsame_dtype(v, op, 0, 1);
        pto__vcolumn(v, op, 0, 1);
        break;
    case PTO_OC_ROWEXP:
        if (pto__vsame_dtype(v, op, 0, 1)) pto__vsame_dtype(v, op, 0, 2);
        pto__vsame_shape(v, op, 0, 1);
        pto__vcolumn(v, op, 2, 1);
        break;
    case PTO_OC_COLRED:
        ok = pto__vsame_dtype(v, op, 0, 1);
        if (pto__vrowvec(v, op, 0, 1) && ok) pto__vcolvalid(v, op);
        break;
    case PTO_OC_COLEXP:
        ok = pto__vsame_dtype(v, op, 0, 1) && pto__vsame_dtype(v, op, 0, 2);
        if (!pto__vsame_shape(v, op, 0, 1)) ok = 0;
        if (pto__vrowvec(v, op, 2, 1) && ok) pto__vcolvalid(v, op);
        break;
    case PTO_OC_CVT: pto__vsame_shape(v, op, 0, 1); break;
    case PTO_OC_TRANS: pto__vtrans(v, op); break;
    case PTO_OC_MOV: pto__vmov(v, op); break;
    case PTO_OC_EXTRACT: pto__vextract(v, op); break;
    case PTO_OC_MATMUL: pto__vmatmul(v, op); break;
    case PTO_OC_SYNC: pto__vsync(v, op); break;
    case PTO_OC_CVPIPE: pto__vcvpipe_op(v, op); break;
    case PTO_OC_NOTIFY: case PTO_OC_WAIT: case PTO_OC_XFER: case PTO_OC_ALLREDUCE: pto__vcomm(v, op); break;
    case PTO_OC_FILLPAD:   /* the padding fill of the isa target (lower.c) */
        if (v->m->stmts[op->s].origin == PTO_BY_USER && pto__fillpad_load(v->m, op->s) < 0)
            pto_error(v->ctx, v->m->stmts[op->s].loc, "tfillpad is not written in a kernel: tload already zeroes a "
                      "tile outside its valid region (pto_lower adds tfillpad for the isa target, where TLOAD does "
                      "not; a dump keeps it right after the tload of its tile, the one place it is read back)");
        break;
    default: break;
    }
}

/* After checking an op statement whose operand list is well formed: the
   tiles it writes (its operands wr[0..nw-1]), as phase 0 lists them
   (whether or not the checks passed), are written for what follows; the
   tensors it writes, for pto__vunwritten. */
static void pto__vnote_writes(pto__verifier *v, const pto_operand *ops, const int *wr, int nw)
{
    const pto_module *m = v->m;
    int k;
    for (k = 0; k < nw; k++) {
        const pto_operand *o = &ops[wr[k]];
        if (o->ref < 0) continue;
        if (o->kind == PTO_O_TILE && o->ref < m->n_tiles) {
            if (!(v->tflags[o->ref] & PTO__T_WRITTEN) && v->n_ifmark > 0) {
                int32_t w = pto__grow(v->ctx, (void **)&v->wlog, &v->n_wlog, &v->cap_wlog, sizeof(int32_t));
                if (w < 0) { v->internal = 1; return; }
                v->wlog[w] = o->ref;
            }
            v->tflags[o->ref] |= PTO__T_WRITTEN;
        } else if (o->kind == PTO_O_GM && o->ref < m->n_params && wr[k] < 4) v->pwritten[o->ref] = 1;
    }
}

/* A tile operand that passes pto__vtile_arg with nothing to report (the
   usual one: no call, no message to prepare). The module's arrays come as
   arguments: read once per statement, not again after every call. */
static int pto__vtile_fine(const pto_operand *o, uint32_t mask, const pto_tile *tiles, int32_t ntiles,
                           const uint8_t *tflags, int32_t kernel)
{
    const pto_tile *t;
    if (o->kind != PTO_O_TILE || !(mask & PTO_A_TILES) || o->ref < 0 || o->ref >= ntiles) return 0;
    t = &tiles[o->ref];
    return t->kernel == kernel && (tflags[o->ref] & PTO__T_SCOPE) && t->space < PTO_NSPACE &&
           (mask & PTO_A_SPACE(t->space)) && (!(mask & PTO_A_READ) || (tflags[o->ref] & (PTO__T_WRITTEN | PTO__T_UNINIT)));
}

/* The text form of an op from its operand masks, as docs/pto-format.md
   writes it ("tmuls d, a, SCALAR"): an arity error shows it (review20 L8). */
static void pto__vop_form(const pto_opinfo *info, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "%s", info->name);
    int i, reads = 0;
    for (i = 0; i < info->nargs && i < 4 && k < n; i++) {
        uint32_t a = info->arg[i];
        const char *w = (a & PTO_A_GM) ? ((a & PTO_A_WHOLE) ? "g" : "g[r, c]")
                        : (a & PTO_A_TILES) ? ((a & PTO_A_WRITE) ? "d" : reads++ ? "b" : "a")
                        : (a & PTO_A_SCALAR) ? "SCALAR" : (a & PTO_A_INT) ? "INT"
                        : (a & (PTO_A_PIPE | PTO_A_CVPIPE)) ? "PIPE" : (a & PTO_A_CMP) ? "CMP"
                        : (a & PTO_A_NMODE) ? "MODE" : "X";
        if (a & PTO_A_IMPLICIT) continue;
        k += (size_t)snprintf(buf + k, n - k, "%s%s", k == strlen(info->name) ? " " : ", ", w);
    }
}

static void pto__vop_stmt(pto__verifier *v, int32_t s)
{
    const pto_module *m = v->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_opinfo *info;
    const pto_operand *ops;
    const uint8_t *tflags = v->tflags;
    pto__vop op;
    int i, ok = 1, wr[4], nw = 0;
    if (st->op >= PTO_NOP) { pto_error(v->ctx, st->loc, "unknown op %d", (int)st->op); return; }
    info = pto_opinfo_get((pto_op)st->op);
    if (info->cls == PTO_OC_WAIT) v->waits = 1;   /* (for pto__vwaits) */
    if (st->op == PTO_OP_TSTORE && st->nargs >= 1 && st->arg0 >= 0 && st->arg0 < m->n_operands) {
        int32_t w = pto__grow(v->ctx, (void **)&v->stores, &v->n_stores, &v->cap_stores, sizeof(int32_t));
        if (w < 0) { v->internal = 1; return; }
        v->stores[w] = s;
        if (st->block != v->wblock) v->waits_unsure = 1;   /* (pto__vsame_stores climbs from it) */
    }
    if (st->nargs != info->nargs) {
        /* the text never writes an implicit operand (tfree's tile: the parser adds it), so a
           builder that copies the text's form misses it; say which one and how to add it */
        if (st->nargs < info->nargs && st->nargs < 4 && (info->arg[st->nargs] & PTO_A_IMPLICIT))
            pto_error(v->ctx, st->loc,
                      "%s expects %d operands, got %d: operand %d is implicit in the text (the parser adds it), "
                      "a builder passes it: for tfree, pto_arg_tile with the tile the latest tpop of the pipe "
                      "filled",
                      info->name, info->nargs, (int)st->nargs, (int)st->nargs + 1);
        else {
            char form[96];
            pto__vop_form(info, form, sizeof form);
            pto_error(v->ctx, st->loc, "%s expects %d operands, got %d (the form: %s)", info->name, info->nargs,
                      (int)st->nargs, form);
        }
        return;
    }
    if (st->arg0 < 0 || st->arg0 + st->nargs > m->n_operands) {
        pto_error(v->ctx, st->loc, "%s has malformed operands", info->name);
        return;
    }
    op.s = s;
    v->here_stmt = s;
    v->nread = 0;
    v->swapped = 0;
    ops = &m->operands[st->arg0];
    for (i = 0; i < info->nargs; i++) {
        const pto_operand *o = &ops[i];
        uint32_t mask = info->arg[i];
        op.o[i] = o;
        op.t[i] = NULL;
        /* a tile where a tile goes, the usual operand, is of a kind the op takes (pto__vkind_ok) */
        if (pto__vtile_fine(o, mask, m->tiles, m->n_tiles, tflags, v->kernel) ||
            (o->kind == PTO_O_TILE && (mask & PTO_A_TILES) ? pto__vtile_arg(v, s, o, mask) : pto__varg(v, s, i, o, mask))) {
            if (o->kind == PTO_O_TILE) op.t[i] = &m->tiles[o->ref];
        } else {
            ok = 0;
        }
        if (mask & PTO_A_WRITE) wr[nw++] = i;
    }
    if (ok) pto__vclass(v, &op);
    for (i = 0; i < v->nread && !v->swapped; i++) pto__vread_tile(v, s, v->readt[i], v->reado[i]);
    v->nread = 0;
    pto__vnote_writes(v, ops, wr, nw);
}

/* ---- statements -------------------------------------------------------- */

static void pto__vlet(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    int32_t var = st->ref;
    pto__vform f;
    pto__vexpr(v, st->e[0], 0, &f, 0);
    if (var < 0 || var >= v->m->n_vars) { pto_error(v->ctx, st->loc, "let names no variable"); return; }
    v->vform[var] = f;
    v->vlive[var] = 1;
    pto__vbind(v, v->m->vars[var].name, PTO__N_VAR, var, v->m->vars[var].loc);
    pto__vdeclared(v, s);
}

/* Bounds and step of a loop; the var gets a static range when all three
   are constants and the loop runs at least once. Entering the body. */
static void pto__vfor(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    int32_t var = st->ref;
    pto__vform a, b, c;
    int64_t lo, hi, span;
    pto__vexpr(v, st->e[0], 0, &a, 0);
    pto__vexpr(v, st->e[1], 0, &b, 0);
    if (st->e[2] >= 0) pto__vexpr(v, st->e[2], 0, &c, 0);
    else pto__fconst(&c, 1);
    if (st->e[2] >= 0 && pto__frange(v, &c, &lo, &hi) && lo <= 0)
        pto_error(v->ctx, *pto__vexpr_loc(v, st->e[2], &st->loc), "loop step must be positive, got %lld", (long long)lo);
    if (var < 0 || var >= v->m->n_vars) { pto_error(v->ctx, st->loc, "loop names no variable"); return; }
    pto__vbind(v, v->m->vars[var].name, PTO__N_VAR, var, v->m->vars[var].loc);
    v->vlive[var] = 1;
    v->vrange[var] = 0;
    v->vifdepth[var] = v->ifdepth;
    pto__fnone(&v->vform[var]);   /* (vform is not zeroed: a let var a malformed loop names is read through it) */
    v->vstep[var] = 0;
    if (pto__fisconst(&a) && pto__fisconst(&b) && pto__fisconst(&c) && c.c > 0 && a.c >= b.c)
        v->vstep[var] = -1;   /* a zero-trip loop: its var takes no value, its body never runs */
    else if (pto__fisconst(&a) && pto__fisconst(&c) && c.c > 0) {   /* its values, even with an unknown end */
        v->vstart[var] = a.c;
        v->vstep[var] = c.c;
    }
    if (pto__fisconst(&a) && pto__fisconst(&b) && pto__fisconst(&c) && c.c > 0 && a.c < b.c && a.c > INT64_MIN &&
        pto__vadd(b.c - 1, -a.c, &span)) {   /* (-a.c: not from INT64_MIN) */
        v->vrange[var] = 1;
        v->vlo[var] = a.c;
        v->vhi[var] = a.c + span / c.c * c.c;
    }
}

static void pto__vsection(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    const pto_kernel *k = &v->m->kernels[v->kernel];
    int core = st->ref == PTO_CORE_CUBE ? PTO_CORE_CUBE : PTO_CORE_VECTOR;
    const char *cn = core == PTO_CORE_CUBE ? "cube" : "vector";
    if (k->kind != PTO_KK_MIX)
        pto_error(v->ctx, st->loc, "'%s' section in a non-mix kernel '%s'", cn, pto__vname(v, k->name));
    else if (st->block != k->body)
        pto_error(v->ctx, st->loc, "'%s' section must be at the top level of mix kernel '%s'", cn,
                  pto__vname(v, k->name));
    else if (v->sections[core]++)
        pto_error(v->ctx, st->loc, "second '%s' section in mix kernel '%s'", cn, pto__vname(v, k->name));
    v->core = core;
}

static int pto__vcompound(const pto_stmt *st)
{
    return st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF || st->kind == PTO_ST_SECTION;
}

/* Phase 0 for a statement: number it and list its tile writes. */
static void pto__vcollect(pto__verifier *v, int32_t s)
{
    const pto_module *m = v->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_opinfo *info;
    int32_t pos = v->counter++;
    int i;
    if (st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF) {
        int dead = pto__vdead(m, st);
        v->dead0 += dead == PTO__VDEAD_LOOP || dead == PTO__VDEAD_THEN;
        return;
    }
    if (st->kind != PTO_ST_OP || st->op >= PTO_NOP || v->dead0 > 0) return;
    info = pto_opinfo_get((pto_op)st->op);
    if (st->nargs != info->nargs || st->arg0 < 0 || st->arg0 + st->nargs > m->n_operands) return;
    for (i = 0; i < st->nargs; i++) {
        const pto_operand *o = &m->operands[st->arg0 + i];
        int32_t t = o->ref, w;
        if (!(info->arg[i] & PTO_A_WRITE) || o->kind != PTO_O_TILE || t < 0 || t >= m->n_tiles) continue;
        /* room is usually there: pto__valloc reserves one write per operand */
        w = v->n_w < v->cap_w ? v->n_w++ : pto__grow(v->ctx, (void **)&v->w, &v->n_w, &v->cap_w, sizeof(pto__vwrite));
        if (w < 0) { v->internal = 1; return; }
        v->w[w].pos = pos;
        v->w[w].next = -1;
        if (v->wlast[t] >= 0) v->w[v->wlast[t]].next = w; else v->wfirst[t] = v->wcur[t] = w;
        v->wlast[t] = w;
    }
}

/* What pto__vwaits would find at compound statement s of the walk (its
   wait ops are noted by pto__vop_stmt): a body or else block past the
   module's blocks (it counts those as waiting); a statement list the walk
   does not follow as it does (then it runs after all). */
static void pto__vnote_waits(pto__verifier *v, const pto_stmt *st, int32_t s)
{
    const pto_module *m = v->m;
    if (st->body >= m->n_blocks || (st->kind == PTO_ST_IF && st->orelse >= m->n_blocks)) v->waits = 1;
    if ((st->body >= 0 && st->body < m->n_blocks && m->blocks[st->body].owner != s) ||
        (st->kind == PTO_ST_IF && st->orelse >= 0 &&
         (st->body < 0 || (st->orelse < m->n_blocks && m->blocks[st->orelse].owner != s))))
        v->waits_unsure = 1;
}

/* Phase 1 for a statement (and entering its body). */
static void pto__vcheck(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    int dead = PTO__VDEAD_NONE;
    v->here = st->loc;
    v->here_pos = v->counter++;
    if (v->mix && st->block == v->m->kernels[v->kernel].body && st->kind != PTO_ST_SECTION)
        pto_error(v->ctx, st->loc, "statement outside the cube and vector sections of mix kernel '%s'",
                  pto__vname(v, v->m->kernels[v->kernel].name));
    if (pto__vcompound(st)) pto__vnote_waits(v, st, s);
    switch (st->kind) {
    case PTO_ST_OP: pto__vop_stmt(v, s); break;
    case PTO_ST_TILE: pto__vtile(v, s); break;
    case PTO_ST_LET: pto__vlet(v, s); break;
    case PTO_ST_FOR: pto__vfor(v, s); break;
    case PTO_ST_IF: {
        pto__vform f;
        pto__vexpr(v, st->e[0], 0, &f, 0);
        pto__vexpr(v, st->e[1], 0, &f, 0);
        if (st->cmp > PTO_GE) pto_error(v->ctx, st->loc, "comparison %d is no pto_cmp", (int)st->cmp);
        break;
    }
    case PTO_ST_SECTION: pto__vsection(v, s); break;
    default: pto_error(v->ctx, st->loc, "malformed statement"); break;
    }
    if (st->kind == PTO_ST_FOR) {
        int32_t *p = v->loops;
        if (v->nloops == v->cap_loops) {
            int32_t cap = v->cap_loops ? v->cap_loops * 2 : 16;
            p = (int32_t *)pto_realloc(v->ctx, v->loops, (size_t)cap * sizeof(int32_t));
            if (!p) { v->internal = 1; pto__oom(v->ctx); return; }
            v->loops = p;
            v->cap_loops = cap;
        }
        v->loops[v->nloops++] = s;
    }
    if (st->kind == PTO_ST_IF || st->kind == PTO_ST_FOR) dead = pto__vdead(v->m, st);
    if (st->kind == PTO_ST_IF || dead == PTO__VDEAD_LOOP) {
        int32_t a = -1, k;
        for (k = 0; k < PTO__VMARK; k++)
            if ((a = pto__grow(v->ctx, (void **)&v->ifmark, &v->n_ifmark, &v->cap_ifmark, sizeof(int32_t))) < 0) {
                v->internal = 1;
                return;
            }
        a -= PTO__VMARK - 1;
        v->ifmark[a] = v->n_wlog;
        v->ifmark[a + 1] = -1;
        v->ifmark[a + 2] = dead;
        v->ifmark[a + 3] = s;
        if (st->kind == PTO_ST_IF) v->ifdepth++;
    }
}

/* From an if's then-branch to its else-branch: the then-branch's writes are undone (kept in wlog
   for the union after the if). */
static void pto__vif_else(pto__verifier *v, const pto_stmt *ow)
{
    int32_t i;
    if (v->phase == 0) {   /* a constant condition: one of the two paths never runs */
        int dead = pto__vdead(v->m, ow);
        v->dead0 += (dead == PTO__VDEAD_ELSE) - (dead == PTO__VDEAD_THEN);
        return;
    }
    if (v->n_ifmark < PTO__VMARK) return;
    v->ifmark[v->n_ifmark - PTO__VMARK + 1] = v->n_wlog;
    for (i = v->ifmark[v->n_ifmark - PTO__VMARK]; i < v->n_wlog; i++) v->tflags[v->wlog[i]] &= (uint8_t)~PTO__T_WRITTEN;
}

/* The writes wlog[from .. to) never happen: their tiles are as before them (each entry is a bit
   that went 0 -> 1 there), and the entries leave wlog (an enclosing if would restore them). */
static void pto__vdrop_writes(pto__verifier *v, int32_t from, int32_t to)
{
    int32_t i;
    for (i = from; i < to; i++) {
        if (v->tflags[v->wlog[i]] & PTO__T_WRITTEN) v->tflags[v->wlog[i]] |= PTO__T_DEADW;
        v->tflags[v->wlog[i]] &= (uint8_t)~PTO__T_WRITTEN;
    }
    if (to < v->n_wlog)   /* (wlog is NULL until a write is logged: no memmove of nothing from it) */
        memmove(v->wlog + from, v->wlog + to, (size_t)(v->n_wlog - to) * sizeof(int32_t));
    v->n_wlog -= to - from;
}

/* Leaving an if: what either branch wrote may have been written (the entries stay in wlog: to
   an enclosing if they are writes of its branch). */
static void pto__vif_leave(pto__verifier *v)
{
    int32_t i, start, els, dead;
    if (v->n_ifmark < PTO__VMARK) return;
    v->n_ifmark -= PTO__VMARK;
    start = v->ifmark[v->n_ifmark];
    els = v->ifmark[v->n_ifmark + 1];
    dead = v->ifmark[v->n_ifmark + 2];
    if (dead == PTO__VDEAD_LOOP || (dead == PTO__VDEAD_THEN && els < 0)) pto__vdrop_writes(v, start, v->n_wlog);
    else if (dead == PTO__VDEAD_THEN) {
        for (i = start; i < els; i++)   /* (cleared at the else already; what the else wrote stays) */
            if (!(v->tflags[v->wlog[i]] & PTO__T_WRITTEN)) v->tflags[v->wlog[i]] |= PTO__T_DEADW;
        if (els < v->n_wlog) memmove(v->wlog + start, v->wlog + els, (size_t)(v->n_wlog - els) * sizeof(int32_t));
        v->n_wlog -= els - start;
    } else {
        if (dead == PTO__VDEAD_ELSE && els >= 0) pto__vdrop_writes(v, els, v->n_wlog);
        for (i = start; els >= 0 && i < els; i++) v->tflags[v->wlog[i]] |= PTO__T_WRITTEN;
    }
    if (v->n_ifmark == 0) v->n_wlog = 0;
}

/* The walk goes through the else-branch of if st (pto__vwalk: from the end of its then-branch). */
static int pto__velse_walked(const pto_module *m, const pto_stmt *st)
{
    return st->body >= 0 && st->body < m->n_blocks && st->orelse >= 0 && st->orelse < m->n_blocks;
}

/* Leaving the body of a compound statement. */
static void pto__vleave_stmt(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    if (v->phase == 0) {
        int dead = st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF ? pto__vdead(v->m, st) : PTO__VDEAD_NONE;
        /* the path that never runs is still open here: a zero-trip loop's body, a then-branch the
           walk did not leave for an else-branch, an else-branch */
        if (dead == PTO__VDEAD_LOOP || (dead == PTO__VDEAD_THEN && !pto__velse_walked(v->m, st)) ||
            (dead == PTO__VDEAD_ELSE && pto__velse_walked(v->m, st)))
            v->dead0--;
        if (st->kind == PTO_ST_FOR) v->endpos[s] = v->counter - 1;
        return;
    }
    if (st->kind == PTO_ST_FOR) {
        if (v->nloops > 0) v->nloops--;
        if (v->n_ifmark >= PTO__VMARK && v->ifmark[v->n_ifmark - 1] == s) pto__vif_leave(v);   /* zero trips */
        if (st->ref >= 0 && st->ref < v->m->n_vars) {
            v->vlive[st->ref] = 0;
            pto__vunbind(v, v->m->vars[st->ref].name, PTO__N_VAR, st->ref);
        }
    } else if (st->kind == PTO_ST_IF) {
        v->ifdepth--;
        pto__vif_leave(v);
    } else if (st->kind == PTO_ST_SECTION) {
        v->core = -1;
    }
}

/* Leaving a block: its tiles and lets go out of scope (the last declared
   first: the bindings end the same in any order, as each is cleared only
   while it is the one in place). */
static void pto__vleave_block(pto__verifier *v, int32_t b)
{
    if (v->phase == 0) return;
    while (v->n_decls > 0 && v->decls[v->n_decls - 1] == b) {
        const pto_stmt *st = &v->m->stmts[v->decls[v->n_decls - 2]];
        v->n_decls -= 2;
        if (st->kind == PTO_ST_TILE) {   /* (both kinds were checked to name one when declared) */
            v->tflags[st->ref] &= (uint8_t)~PTO__T_SCOPE;
            pto__vunbind(v, v->m->tiles[st->ref].name, PTO__N_TILE, st->ref);
        } else {
            v->vlive[st->ref] = 0;
            pto__vunbind(v, v->m->vars[st->ref].name, PTO__N_VAR, st->ref);
        }
    }
}

static int pto__vbody(const pto_module *m, const pto_stmt *st)
{
    return pto__vcompound(st) && st->body >= 0 && st->body < m->n_blocks;
}

/* Walks a kernel body in program order without recursion: down into
   bodies, on to the next statement, up to the owner at a block's end (and
   over to an if's else block). */
static void pto__vwalk(pto__verifier *v, int32_t body)
{
    const pto_module *m = v->m;
    int32_t cur = body, s = m->blocks[body].head;
    int64_t guard = 0, limit = 2 * (int64_t)m->n_stmts + 16;
    pto_loc none = {0, 0, 0};
    for (;;) {
        while (s < 0) {
            int32_t owner = m->blocks[cur].owner;
            const pto_stmt *ow;
            pto__vleave_block(v, cur);
            if (cur == body || owner < 0 || owner >= m->n_stmts) return;
            ow = &m->stmts[owner];
            if (ow->kind == PTO_ST_IF && cur == ow->body && ow->orelse >= 0 && ow->orelse < m->n_blocks) {
                pto__vif_else(v, ow);
                cur = ow->orelse;
                s = m->blocks[cur].head;
                continue;
            }
            pto__vleave_stmt(v, owner);
            cur = ow->block;
            s = ow->next;
            if (cur < 0 || cur >= m->n_blocks) { s = -1; cur = body; }
        }
        if (s >= m->n_stmts || ++guard > limit) {
            pto_error(v->ctx, none, "internal error: malformed statement lists");
            v->internal = v->malformed = 1;
            return;
        }
        if (v->phase == 0) pto__vcollect(v, s);
        else {
            v->wblock = cur;
            pto__vcheck(v, s);
        }
        if (v->internal) return;
        if (pto__vbody(m, &m->stmts[s])) {
            /* the way back up is through this block field (pto__vnote_waits) */
            if (m->stmts[s].block != cur) v->waits_unsure = 1;
            cur = m->stmts[s].body;
            s = m->blocks[cur].head;
        } else {
            if (pto__vcompound(&m->stmts[s])) pto__vleave_stmt(v, s);
            s = m->stmts[s].next;
        }
    }
}

/* ---- kernels ----------------------------------------------------------- */

static void pto__vparams(pto__verifier *v, const pto_kernel *k, int bind)
{
    int32_t i;
    int d;
    for (i = k->param0; i < k->param0 + k->nparams; i++) {
        const pto_param *p = &v->m->params[i];
        const char *pn = pto__vname(v, p->name);
        if (!bind) {
            pto__vunbind(v, p->name, PTO__N_PARAM, i);
            for (d = 0; d < 2; d++)
                if (p->dim_var[d] >= 0 && p->dim_var[d] < v->m->n_vars)
                    pto__vunbind(v, v->m->vars[p->dim_var[d]].name, PTO__N_DIM, p->dim_var[d]);
            continue;
        }
        pto__vbind(v, p->name, PTO__N_PARAM, i, p->loc);
        pto__param_enums(v->ctx, p, pn);
        if (p->kind == PTO_P_SCALAR) {
            if (p->window) pto_error(v->ctx, p->loc, "scalar '%s' cannot be a window (only tensors can)", pn);
            continue;
        }
        for (d = 0; d < 2; d++) {
            int32_t dv = p->dim_var[d];
            if (dv >= 0 && dv < v->m->n_vars) {
                int32_t nm = v->m->vars[dv].name;
                if (!(nm > 0 && nm < v->n_names && v->nkind[nm] == PTO__N_DIM && v->nid[nm] == dv))
                    pto__vbind(v, nm, PTO__N_DIM, dv, p->loc);
            } else if (p->dim[d] <= 0) {
                pto_error(v->ctx, p->loc, "dim %d of '%s' must be positive, got %lld", d, pn, (long long)p->dim[d]);
            }
        }
        if (p->dim_var[0] < 0 && p->dim_var[1] < 0 && pto__tensor_too_big(p->dtype, p->dim[0], p->dim[1]))
            pto_error(v->ctx, p->loc, "tensor '%s' is %s[%lld, %lld]: more than 2^61 bytes, too large for 64-bit offsets", pn,
                      pto_dtype_name((pto_dtype)p->dtype), (long long)p->dim[0], (long long)p->dim[1]);
    }
}

/* A ring's slots at most: each push sets the cross-core data-ready flag
   and each pop waits for it (each release sets slot-free, each push past the
   first slots(N) waits for it), and a flag's counter has 4 bits (a2a3 FFTS
   flags; the simulator's cross-core flags count to 15 and report a 16th
   pending set): with at most N pushes ahead of the pops, N <= 15 keeps
   both counts within it. */
#define PTO__VMAX_PIPE_SLOTS 15
/* A ring's bytes at most (slots x slot bytes): the reference interpreter
   holds each ring in memory and refuses a larger one (interp.c's
   PTO__MAX_TILE_BYTES). */
#define PTO__VMAX_RING_BYTES ((int64_t)1 << 28)

/* A pipe declaration: counts in range (compared after normalisation, so an
   omitted count is its default), a slot of whole 32-byte granules, a
   split that halves evenly, a ring id and cross-core flags left. */
static void pto__vpipe_decl(pto__verifier *v, const pto_cvpipe *q)
{
    const char *qn = pto__vname(v, q->name);
    int maxl = q->dir == PTO_BOTH ? 4 : 8, need = q->dir == PTO_BOTH ? 4 : 2, vr, vc;
    int64_t bytes = (int64_t)q->rows * q->cols * pto_dtype_size((pto_dtype)q->dtype);
    const pto_kernel *k = &v->m->kernels[v->kernel];
    int ne = v->ctx->n_errors;
    /* each wrong field its own error (review29 L3: the C API can get them
       all wrong at once) */
    if (k->kind != PTO_KK_MIX)
        pto_error(v->ctx, q->loc, "pipe '%s': pipes join the cube and vector sections of a mix kernel, and kernel "
                  "'%s' is %s (declare it mix)", qn, pto__vname(v, k->name),
                  k->kind == PTO_KK_VECTOR ? "vector" : k->kind == PTO_KK_CUBE ? "cube" : "of no kind");
    if (q->dir < PTO_C2V || q->dir > PTO_BOTH)
        pto_error(v->ctx, q->loc, "pipe '%s': direction %d is not c2v, v2c or both", qn, (int)q->dir);
    if (q->dtype == PTO_DT_NONE || q->dtype >= PTO_NDTYPE)
        pto_error(v->ctx, q->loc, "pipe '%s': dtype %d is not a dtype", qn, (int)q->dtype);
    if (q->rows <= 0 || q->cols <= 0)
        pto_error(v->ctx, q->loc, "pipe '%s': its tile shape [%ld, %ld] must be positive", qn, (long)q->rows,
                  (long)q->cols);
    if (q->split > PTO_SPLIT_LEFT_RIGHT)
        pto_error(v->ctx, q->loc, "pipe '%s': split %d is not none, up_down or left_right", qn, (int)q->split);
    if (v->ctx->n_errors != ne) return;
    if (bytes % 32)
        pto_error(v->ctx, q->loc, "pipe '%s': a slot of [%d, %d] %s is %lld bytes, not a multiple of 32", qn,
                  (int)q->rows, (int)q->cols, pto_dtype_name((pto_dtype)q->dtype), (long long)bytes);
    if ((q->split == PTO_SPLIT_UP_DOWN && q->rows % 2) || (q->split == PTO_SPLIT_LEFT_RIGHT && q->cols % 2))
        pto_error(v->ctx, q->loc, "pipe '%s': split(%s) needs an even number of %s, got %d", qn,
                  q->split == PTO_SPLIT_UP_DOWN ? "up_down" : "left_right",
                  q->split == PTO_SPLIT_UP_DOWN ? "rows" : "columns",
                  (int)(q->split == PTO_SPLIT_UP_DOWN ? q->rows : q->cols));
    if (pto__vpipe_vrow_bad(q, &vr, &vc)) {
        int size = pto_dtype_size((pto_dtype)q->dtype), lr = q->split == PTO_SPLIT_LEFT_RIGHT;
        const char *dn = pto_dtype_name((pto_dtype)q->dtype);
        pto_error(v->ctx, q->loc,
                  "pipe '%s': %s [%d, %d] %s, whose rows are %lld bytes, but vec rows must be a multiple of 32 bytes: "
                  "%s (here %d)",
                  qn, lr ? "split(left_right) gives each AIV" : "the vector core's tile is", vr, vc, dn,
                  (long long)vc * size,
                  lr ? "a left_right pipe needs columns a multiple of 16 for f32 / i32, 32 for f16 / bf16, 64 for i8"
                     : size == 4 ? "its columns must be a multiple of 8 for f32 / i32"
                     : size == 2 ? "its columns must be a multiple of 16 for f16 / bf16"
                                 : "its columns must be a multiple of 32 for i8",
                  (int)q->cols);
    }
    {   /* the cube's tiles are whole fractals: a slot no acc (c2v) / mat (v2c) tile fills */
        int fr, fc, sp;
        if (pto__vpipe_cube_bad(q, q->dir, &fr, &fc, &sp)) {
            const char *dn = pto_dtype_name((pto_dtype)q->dtype);
            char what[160];
            if (sp == PTO_ACC)
                snprintf(what, sizeof what, "the cube pushes acc tiles, which are whole %d x %d fractals", fr, fc);
            else if (sp == PTO_MAT)
                snprintf(what, sizeof what, "the cube pops into mat tiles, which are whole %d x %d fractals for %s", fr,
                         fc, dn);
            else
                snprintf(what, sizeof what, "the cube pushes acc tiles (whole 16 x 16 fractals) and pops into mat "
                         "tiles (whole 16 x %d fractals for %s)", 32 / pto_dtype_size((pto_dtype)q->dtype), dn);
            pto_error(v->ctx, q->loc, "pipe '%s' (%s): %s: [%d, %d] is %s (use [%lld, %lld])", qn,
                      pto__vdir_word(q->dir), what, (int)q->rows, (int)q->cols,
                      sp == PTO_ACC ? "no acc shape" : sp == PTO_MAT ? "no mat shape" : "not whole fractals of both",
                      ((long long)q->rows + fr - 1) / fr * fr, ((long long)q->cols + fc - 1) / fc * fc);
        }
    }
    if (q->slot_num <= 0)
        pto_error(v->ctx, q->loc, "pipe '%s': slots(%d) must be > 0", qn, (int)q->slot_num);
    else if (q->slot_num > PTO__VMAX_PIPE_SLOTS)
        pto_error(v->ctx, q->loc,
                  "pipe '%s': slots(%d) is more than %d: each push sets a cross-core flag that the pops wait for, "
                  "and its counter has 4 bits, so at most %d pushes may be ahead of the pops",
                  qn, (int)q->slot_num, PTO__VMAX_PIPE_SLOTS, PTO__VMAX_PIPE_SLOTS);
    else if (bytes * q->slot_num > PTO__VMAX_RING_BYTES)
        pto_error(v->ctx, q->loc, "pipe '%s': slots(%d) of %lld bytes each are %lld bytes, more than the %lld (256 MiB) a ring may hold",
                  qn, (int)q->slot_num, (long long)bytes, (long long)(bytes * q->slot_num),
                  (long long)PTO__VMAX_RING_BYTES);
    else if (q->slot_num >= 5 && q->slot_num % 2)
        pto_error(v->ctx, q->loc,
                  "pipe '%s': slots(%d) is odd and more than 3: pto-isa's TPipe returns free slots to the producer "
                  "in batches of slots / 2 = %d pops, and a push waits for them only every %d pushes, so with an odd "
                  "count push %d (and %d, ...) can overwrite a slot the consumer has not popped yet, corrupting data "
                  "on a device; use an even count (e.g. slots(%d)) or at most 3",
                  qn, (int)q->slot_num, (int)q->slot_num / 2, (int)q->slot_num / 2, (int)q->slot_num,
                  (int)q->slot_num + 2, (int)q->slot_num - 1);
    else if (q->local_slot_num <= 0 || q->local_slot_num > q->slot_num || q->local_slot_num > maxl)
        pto_error(v->ctx, q->loc, "pipe '%s': local_slots(%d)%s must be > 0, <= slots(%d) and <= %d for a %s pipe%s", qn,
                  (int)q->local_slot_num, q->local_slot_num == 2 ? " (2 is the default when none is written)" : "",
                  (int)q->slot_num, maxl, pto__vdir_word(q->dir),
                  /* review27 L8: `slots(1)` alone drew "local_slots(2) must be ..." with no local_slots written */
                  q->local_slot_num > q->slot_num && q->slot_num == 1 ? ": write local_slots(1)" : "");
    if (q->ring >= PTO_MAX_CVPIPES)
        pto_error(v->ctx, q->loc, "pipe '%s': mix kernel '%s' has more than %d pipes", qn,
                  pto__vname(v, v->m->kernels[v->kernel].name), PTO_MAX_CVPIPES);
    else if (q->flag_id < 0) {
        /* ids go to the pipes in order, each its own consecutive run after the earlier ones' (review27 L8:
           "hold all that are free" was said with ids 10 and 15 free, but no 2 consecutive ones) */
        int32_t i, next = 0;
        for (i = 0; i < v->m->n_cvpipes; i++)
            if (v->m->cvpipes[i].kernel == q->kernel && v->m->cvpipes[i].flag_id >= 0)
                next = v->m->cvpipes[i].flag_id + (v->m->cvpipes[i].dir == PTO_BOTH ? 4 : 2);
        pto_error(v->ctx, q->loc,
                  "pipe '%s' needs %d consecutive cross-core flag ids after the earlier pipes' of '%s' (ids 0..%d), "
                  "and no %d consecutive ids are left (16 per cluster, one-way pipes take 2, both pipes 4%s)",
                  qn, need, pto__vname(v, v->m->kernels[v->kernel].name), (int)next - 1, need,
                  v->m->arch == PTO_ARCH_A2A3 ? ", 11..14 are reserved on a2a3" : "");
    }
}

/* Every tpop of a pipe in one section pops into one tile (the pipe's local
   slots), and no tile is the destination of two pipes. */
static void pto__vpop_tiles(pto__verifier *v, int32_t qi)
{
    const pto_module *m = v->m;
    int32_t s, first[2] = {-1, -1};
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *o;
        int32_t t, c = st->core ? 1 : 0;
        if (st->kind != PTO_ST_OP || st->op != PTO_OP_TPOP || st->nargs != 2 || st->block < 0 ||
            m->blocks[st->block].kernel != v->kernel)
            continue;
        o = &m->operands[st->arg0];
        if (m->operands[st->arg0 + 1].kind != PTO_O_CVPIPE || o->kind != PTO_O_TILE) continue;
        if (m->operands[st->arg0 + 1].ref != qi) {
            if (o->ref == first[0] || o->ref == first[1])
                pto_error(v->ctx, o->loc, "tpop: tile '%s' is already the destination of pipe '%s' (one pipe per tile)",
                          pto__vname(v, m->tiles[o->ref].name), pto__vname(v, m->cvpipes[qi].name));
            continue;
        }
        t = o->ref;
        if (first[c] < 0) { first[c] = t; continue; }
        if (first[c] != t) {
            pto_error(v->ctx, o->loc,
                      "tpop: pipe '%s' already pops into '%s' in this section; every tpop of a pipe in a section uses one tile",
                      pto__vname(v, m->cvpipes[qi].name), pto__vname(v, m->tiles[first[c]].name));
        }
    }
}

/* Pop / free balance: a per-pipe set of possible states (bit 0: no slot
   held, bit 1: a popped slot held), flowed through the section. tpop needs
   "no slot held" on every path, tfree "a slot held" on every path, and the
   section must end holding none: always TPOP then TFREE. */
typedef struct pto__vpf {
    uint8_t st[PTO_MAX_CVPIPES];
    int32_t last_pop[PTO_MAX_CVPIPES];
} pto__vpf;

static void pto__vpf_block(pto__verifier *v, int32_t block, pto__vpf *f, int report);

static void pto__vpf_stmt(pto__verifier *v, int32_t s, pto__vpf *f, int report)
{
    const pto_module *m = v->m;
    const pto_stmt *st = &m->stmts[s];
    if (st->kind == PTO_ST_IF) {
        pto__vpf a = *f, b = *f;
        int i;
        pto__vpf_block(v, st->body, &a, report);
        if (st->orelse >= 0) pto__vpf_block(v, st->orelse, &b, report);
        for (i = 0; i < PTO_MAX_CVPIPES; i++) {
            f->st[i] = (uint8_t)(a.st[i] | b.st[i]);
            f->last_pop[i] = a.last_pop[i] > b.last_pop[i] ? a.last_pop[i] : b.last_pop[i];
        }
    } else if (st->kind == PTO_ST_FOR) {
        pto__vpf x = *f, y;
        int i, same, guard;
        for (guard = 0; guard < 4; guard++) {   /* 2 bits per pipe: a fixpoint within 3 rounds */
            y = x;
            pto__vpf_block(v, st->body, &y, 0);
            same = 1;
            for (i = 0; i < PTO_MAX_CVPIPES; i++) {
                uint8_t n = (uint8_t)(f->st[i] | y.st[i]);
                if (n != x.st[i]) same = 0;
                x.st[i] = n;
                if (y.last_pop[i] > x.last_pop[i]) x.last_pop[i] = y.last_pop[i];
            }
            if (same) break;
        }
        y = x;
        pto__vpf_block(v, st->body, &y, report);
        for (i = 0; i < PTO_MAX_CVPIPES; i++) {
            f->st[i] = (uint8_t)(x.st[i] | y.st[i]);
            f->last_pop[i] = y.last_pop[i] > x.last_pop[i] ? y.last_pop[i] : x.last_pop[i];
        }
    } else if (st->kind == PTO_ST_OP && (st->op == PTO_OP_TPOP || st->op == PTO_OP_TFREE) && st->nargs >= 1) {
        const pto_operand *o = &m->operands[st->arg0 + (st->op == PTO_OP_TPOP ? 1 : 0)];
        int r;
        const char *qn;
        if (st->op == PTO_OP_TPOP && st->nargs != 2) return;
        if (o->kind != PTO_O_CVPIPE || o->ref < 0 || o->ref >= m->n_cvpipes) return;
        r = m->cvpipes[o->ref].ring;
        if (r < 0 || r >= PTO_MAX_CVPIPES) return;
        qn = pto__vname(v, m->cvpipes[o->ref].name);
        if (st->op == PTO_OP_TPOP) {
            if (report && (f->st[r] & 2)) {
                const pto_stmt *lp = &m->stmts[f->last_pop[r] >= 0 ? f->last_pop[r] : s];
                pto_error(v->ctx, st->loc, "tpop of pipe '%s' while the slot popped at %d:%d may still be held (tfree %s first)",
                          qn, (int)lp->loc.line, (int)lp->loc.col, qn);
            }
            f->st[r] = 2;
            f->last_pop[r] = s;
        } else {
            if (report && (f->st[r] & 1))
                pto_error(v->ctx, st->loc, "tfree of pipe '%s' without a tpop of it before on every path", qn);
            f->st[r] = 1;
        }
    }
}

static void pto__vpf_block(pto__verifier *v, int32_t block, pto__vpf *f, int report)
{
    int32_t s;
    if (block < 0 || block >= v->m->n_blocks) return;
    for (s = v->m->blocks[block].head; s >= 0; s = v->m->stmts[s].next) pto__vpf_stmt(v, s, f, report);
}

/* How many times one run of block b executes `op` on pipe qi: -1 when that
   is not known before the run (a loop whose trip count is not a literal, or
   an if whose branches differ). */
static int64_t pto__vpipe_count(const pto_module *m, int32_t b, int32_t qi, int op)
{
    int64_t n = 0, c;
    int32_t s;
    if (b < 0 || b >= m->n_blocks) return 0;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        c = 0;
        if (st->kind == PTO_ST_OP && st->op == op && st->nargs == 2) {
            const pto_operand *o = &m->operands[st->arg0 + (op == PTO_OP_TPOP ? 1 : 0)];
            c = o->kind == PTO_O_CVPIPE && o->ref == qi;
        } else if (st->kind == PTO_ST_IF) {
            int64_t e = st->orelse >= 0 ? pto__vpipe_count(m, st->orelse, qi, op) : 0;
            c = pto__vpipe_count(m, st->body, qi, op);
            if (c != e) c = -1;
        } else if (st->kind == PTO_ST_FOR) {
            const pto_expr *x0 = st->e[0] >= 0 ? &m->exprs[st->e[0]] : NULL, *x1 = st->e[1] >= 0 ? &m->exprs[st->e[1]] : NULL;
            const pto_expr *x2 = st->e[2] >= 0 ? &m->exprs[st->e[2]] : NULL;
            c = pto__vpipe_count(m, st->body, qi, op);
            if (c > 0) {
                int64_t step = x2 ? (x2->kind == PTO_E_INT ? x2->value : -1) : 1, trips, span = 0;
                if (!x0 || !x1 || x0->kind != PTO_E_INT || x1->kind != PTO_E_INT || step <= 0) return -1;
                /* end - start without overflow (pto__vfor's rule): a span past int64 is not counted */
                if (x1->value > x0->value && (x0->value == INT64_MIN || !pto__vadd(x1->value, -x0->value, &span))) return -1;
                trips = x1->value <= x0->value ? 0 : (span - 1) / step + 1;
                if (trips > ((int64_t)1 << 40) / c) return -1;
                c *= trips;
            }
        }
        if (c < 0) return -1;
        n += c;
        if (n > ((int64_t)1 << 40)) return -1;
    }
    return n;
}

/* Every tile pushed into a pipe is popped on the other side: when both
   counts are known before the run, they must agree (otherwise the run ends
   with slots nobody pops, or a tpop waits forever). */
static void pto__vpipe_balance(pto__verifier *v, const pto_kernel *k)
{
    const pto_module *m = v->m;
    int32_t sec[2] = {-1, -1}, s, i;
    for (s = m->blocks[k->body].head; s >= 0; s = m->stmts[s].next)
        if (m->stmts[s].kind == PTO_ST_SECTION && (m->stmts[s].ref == PTO_CORE_CUBE || m->stmts[s].ref == PTO_CORE_VECTOR))
            sec[m->stmts[s].ref == PTO_CORE_CUBE] = m->stmts[s].body;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *q = &m->cvpipes[i];
        int c2v = q->dir == PTO_C2V;
        int64_t push, pop;
        if (q->kernel != v->kernel || (q->dir != PTO_C2V && q->dir != PTO_V2C)) continue;   /* both: two rings */
        push = pto__vpipe_count(m, sec[c2v ? 1 : 0], i, PTO_OP_TPUSH);
        pop = pto__vpipe_count(m, sec[c2v ? 0 : 1], i, PTO_OP_TPOP);
        if (push < 0 || pop < 0 || push == pop) continue;
        pto_error(v->ctx, q->loc,
                  "pipe '%s': the %s section pushes %lld tile%s per run and the %s section pops %lld: every tpush "
                  "needs its tpop on the other side",
                  pto__vname(v, q->name), c2v ? "cube" : "vector", (long long)push, push == 1 ? "" : "s",
                  c2v ? "vector" : "cube", (long long)pop);
    }
}

/* A pipe that no tpush / tpop / tfree names is a warning, as an unused
   host param is (review26b L3): it still holds its cross-core flag ids,
   its rings in the GM pipe buffer and its local slots in UB / L1, which
   the other pipes and tiles of the kernel may need. Said only of a kernel
   without errors (a bad pipe declaration is reason enough). */
static void pto__vpipe_unused(pto__verifier *v)
{
    const pto_module *m = v->m;
    uint32_t used = 0;
    int32_t s, i;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int a;
        if (st->kind != PTO_ST_OP || (st->op != PTO_OP_TPUSH && st->op != PTO_OP_TPOP && st->op != PTO_OP_TFREE) ||
            st->block < 0 || st->block >= m->n_blocks || m->blocks[st->block].kernel != v->kernel)
            continue;
        for (a = 0; a < st->nargs && a < 4; a++) {   /* (tpush q, t / tpop t, q / tfree q) */
            const pto_operand *o = &m->operands[st->arg0 + a];
            if (o->kind == PTO_O_CVPIPE && o->ref >= 0 && o->ref < m->n_cvpipes && m->cvpipes[o->ref].ring >= 0 &&
                m->cvpipes[o->ref].ring < 32)
                used |= 1u << m->cvpipes[o->ref].ring;
        }
    }
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *q = &m->cvpipes[i];
        int64_t ub = (int64_t)q->local_slot_num * pto_plan_pipe_slot_bytes(q, PTO_VEC);
        int64_t l1 = (int64_t)q->local_slot_num * pto_plan_pipe_slot_bytes(q, PTO_MAT);
        char room[200], gm[80];
        if (q->kernel != v->kernel || q->ring < 0 || q->ring >= 32 || (used >> q->ring & 1)) continue;
        if (ub && l1)
            snprintf(room, sizeof room, "%lld B of each vector core's UB and %lld B of the cube's L1", (long long)ub,
                     (long long)l1);
        else
            snprintf(room, sizeof room, "%lld B of %s", (long long)(ub ? ub : l1),
                     ub ? "each vector core's UB" : "the cube's L1");
        if (m->arch == PTO_ARCH_A2A3)   /* (a2a3's rings live in the GM pipe buffer; a5 has none) */
            snprintf(gm, sizeof gm, ", %lld B per block of the GM pipe buffer", (long long)pto_cvpipe_gm_bytes(q));
        else
            gm[0] = 0;
        pto_warning(v->ctx, q->loc,
                    "pipe '%s' of kernel '%s' is never pushed or popped, but it still takes %d cross-core flag ids "
                    "(of %d)%s and %d local slot%s, %s: delete it",
                    pto__vname(v, q->name), pto__vname(v, v->m->kernels[v->kernel].name), q->dir == PTO_BOTH ? 4 : 2,
                    m->arch == PTO_ARCH_A2A3 ? 12 : 16, gm, (int)q->local_slot_num, q->local_slot_num == 1 ? "" : "s", room);
    }
}

static void pto__vpipes(pto__verifier *v, const pto_kernel *k)
{
    const pto_module *m = v->m;
    int32_t i, s;
    for (i = 0; i < m->n_cvpipes; i++)
        if (m->cvpipes[i].kernel == v->kernel) {
            pto__vpipe_decl(v, &m->cvpipes[i]);
            pto__vpop_tiles(v, i);
        }
    if (k->kind != PTO_KK_MIX) return;
    pto__vpipe_balance(v, k);
    for (s = m->blocks[k->body].head; s >= 0; s = m->stmts[s].next) {
        pto__vpf f;
        if (m->stmts[s].kind != PTO_ST_SECTION) continue;
        for (i = 0; i < PTO_MAX_CVPIPES; i++) f.st[i] = 1, f.last_pop[i] = -1;
        pto__vpf_block(v, m->stmts[s].body, &f, 1);
        for (i = 0; i < m->n_cvpipes; i++) {
            const pto_cvpipe *q = &m->cvpipes[i];
            if (q->kernel != v->kernel || q->ring < 0 || q->ring >= PTO_MAX_CVPIPES || !(f.st[q->ring] & 2)) continue;
            pto_error(v->ctx, m->stmts[f.last_pop[q->ring]].loc,
                      "tpop of pipe '%s' is not followed by a tfree on every path to the end of the %s section",
                      pto__vname(v, q->name), m->stmts[s].ref == PTO_CORE_CUBE ? "cube" : "vector");
        }
    }
}

/* Phase 0 for the current kernel, from the middle of phase 1 (the first
   read that needs it): every tile write with its position, and each loop's
   last position. 0 after an internal failure. */
static int pto__vcollect_kernel(pto__verifier *v)
{
    const pto_module *m = v->m;
    int32_t counter = v->counter, i;
    v->collected = 1;
    if (!v->endpos) {   /* the first kernel that needs it: the arrays, once */
        size_t ns = (size_t)m->n_stmts, nt = (size_t)m->n_tiles;
        v->endpos = (int32_t *)pto__vuninit(v, ns, sizeof(int32_t));
        v->wfirst = (int32_t *)pto__vuninit(v, nt, sizeof(int32_t));
        v->wlast = (int32_t *)pto__vuninit(v, nt, sizeof(int32_t));
        v->wcur = (int32_t *)pto__vuninit(v, nt, sizeof(int32_t));
        /* a tile write is an operand: one pto__grow for them all */
        if (m->n_operands > 0) v->w = (pto__vwrite *)pto__vuninit(v, (size_t)m->n_operands, sizeof(pto__vwrite));
        if (v->internal) return 0;
        v->cap_w = m->n_operands;
        for (i = 0; i < m->n_tiles; i++) v->wfirst[i] = v->wlast[i] = v->wcur[i] = -1;
    }
    v->phase = 0;
    v->counter = 0;
    v->dead0 = 0;
    pto__vwalk(v, m->kernels[v->kernel].body);
    v->phase = 1;
    v->counter = counter;
    return !v->internal;
}

/* Whether integer expression e can take different values in different
   blocks (kind PTO_E_BLOCK) or on the two AIVs (PTO_E_SUBBLOCK): it names
   `block` (`subblock`), directly or through a let or a loop var whose
   bounds do. Anything it cannot follow (a malformed id, a spent budget)
   counts as depending: the caller's warning must never be wrong. */
static int pto__vby(const pto_module *m, int32_t e, int kind, int *budget)
{
    const pto_expr *x;
    if (e < 0 || e >= m->n_exprs || --*budget < 0) return 1;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS:
        return x->kind == kind;
    case PTO_E_VAR: {
        const pto_var *var = x->a >= 0 && x->a < m->n_vars ? &m->vars[x->a] : NULL;
        const pto_stmt *d;
        if (!var) return 1;
        if (var->kind != PTO_V_LET && var->kind != PTO_V_LOOP) return 0;   /* a dim or a scalar param */
        if (var->def < 0 || var->def >= m->n_stmts) return 1;
        d = &m->stmts[var->def];
        if (var->kind == PTO_V_LET) return pto__vby(m, d->e[0], kind, budget);
        return pto__vby(m, d->e[0], kind, budget) || pto__vby(m, d->e[1], kind, budget) ||
               (d->e[2] >= 0 && pto__vby(m, d->e[2], kind, budget));
    }
    case PTO_E_NEG: return pto__vby(m, x->a, kind, budget);
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD: case PTO_E_MIN: case PTO_E_MAX:
        return pto__vby(m, x->a, kind, budget) || pto__vby(m, x->b, kind, budget);
    default: return 1;
    }
}

/* Whether block b (and below) waits on a signal: blocks that wait may be
   ordered by signals, so one window written by each in turn can be right. */
static int pto__vwaits(const pto_module *m, int32_t b, int depth)
{
    int32_t s;
    if (b < 0) return 0;   /* no block (an if without else) */
    if (b >= m->n_blocks || depth > m->n_blocks) return 1;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind == PTO_ST_OP && pto_opinfo_get((pto_op)st->op)->cls == PTO_OC_WAIT) return 1;
        if ((st->kind == PTO_ST_SECTION || st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF) &&
            pto__vwaits(m, st->body, depth + 1))
            return 1;
        if (st->kind == PTO_ST_IF && pto__vwaits(m, st->orelse, depth + 1)) return 1;
    }
    return 0;
}

/* Whether the tile tstore st writes has a valid region that names 'block'
   (a block may then store nothing, or other columns: the cross-block
   comparison judges it when it folds). */
static int pto__vxvalid_by_block(const pto_module *m, const pto_stmt *st, int *budget)
{
    const pto_operand *src;
    const pto_tile *t;
    if (st->nargs < 2 || st->arg0 + 1 >= m->n_operands) return 1;
    src = &m->operands[st->arg0 + 1];
    if (src->kind != PTO_O_TILE || src->ref < 0 || src->ref >= m->n_tiles) return 1;
    t = &m->tiles[src->ref];
    return (t->valid_r >= 0 && pto__vby(m, t->valid_r, PTO_E_BLOCK, budget)) ||
           (t->valid_c >= 0 && pto__vby(m, t->valid_c, PTO_E_BLOCK, budget));
}

/* A kernel of a static block count > 1 whose tstore window is the same in
   every block (its row and col do not depend on `block`, nor does any
   enclosing for's bounds or if's condition): every block writes the same
   elements, almost always a `block` forgotten in the row: an error, as
   any two blocks writing a common element is (pto__vxblock_gm; the
   simulator reports the race: no flag orders cores). A kernel that waits
   on a signal is skipped (it may order them), and so is a store of a tile
   whose valid region names 'block'. With
   kind PTO_E_SUBBLOCK, the same for the vector section of a mix kernel,
   which both AIVs of a block run: a window that names `subblock` nowhere
   (nor do its loops' bounds or its ifs' conditions, so an `if subblock ==
   0` keeps it clean) is written by both. */
static void pto__vsame_store(pto__verifier *v, int32_t s, int kind)
{
    const pto_module *m = v->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o = &m->operands[st->arg0];
    const char *pn;
    int budget = 4096;
    if (o->kind != PTO_O_GM || o->e[0] < 0 || o->e[1] < 0 || o->ref < 0 || o->ref >= m->n_params) return;
    if (pto__vby(m, o->e[0], kind, &budget) || pto__vby(m, o->e[1], kind, &budget)) return;
    pn = pto__vname(v, m->params[o->ref].name);
    if (kind == PTO_E_BLOCK && pto__vxvalid_by_block(m, st, &budget)) return;
    if (kind == PTO_E_BLOCK)
        pto_error(v->ctx, o->loc, "tstore: this window of '%s' is the same in all %lld blocks of kernel '%s' "
                  "(neither its row nor its column depends on 'block'), so every block writes the same "
                  "elements and nothing orders two blocks: which value stays depends on which writes last; "
                  "is 'block' missing from the row (e.g. %s[block * ROWS, 0])?",
                  pn, (long long)v->nblocks, pto__vname(v, m->kernels[v->kernel].name), pn);
    else
        pto_warning(v->ctx, o->loc, "tstore: this window of '%s' is the same on both vector cores (AIV 0 and "
                    "AIV 1) of mix kernel '%s' (neither its row nor its column depends on 'subblock'), so "
                    "both write the same elements: is 'subblock' missing from the row (e.g. %s[ROW + "
                    "subblock * ROWS, 0]), or is the store meant for one AIV ('if subblock == 0 { ... }')?",
                    pn, pto__vname(v, m->kernels[v->kernel].name), pn);
}

/* Whether pto__vsame_window enters the body (and else block) of compound
   statement st. */
static int pto__vsame_enters(const pto_module *m, const pto_stmt *st, int kind)
{
    int budget = 4096;
    if (st->kind == PTO_ST_SECTION) return kind == PTO_E_BLOCK || st->ref == PTO_CORE_VECTOR;
    if (st->kind == PTO_ST_FOR)
        return !pto__vby(m, st->e[0], kind, &budget) && !pto__vby(m, st->e[1], kind, &budget) &&
               (st->e[2] < 0 || !pto__vby(m, st->e[2], kind, &budget));
    if (st->kind == PTO_ST_IF) return !pto__vby(m, st->e[0], kind, &budget) && !pto__vby(m, st->e[1], kind, &budget);
    return 0;
}

static void pto__vsame_window(pto__verifier *v, int32_t b, int kind, int depth)
{
    const pto_module *m = v->m;
    int32_t s;
    if (b < 0 || b >= m->n_blocks || depth > m->n_blocks) return;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind == PTO_ST_SECTION || st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF) {
            if (!pto__vsame_enters(m, st, kind)) continue;
            pto__vsame_window(v, st->body, kind, depth + 1);
            if (st->kind == PTO_ST_IF) pto__vsame_window(v, st->orelse, kind, depth + 1);
        } else if (st->kind == PTO_ST_OP && st->op == PTO_OP_TSTORE && st->nargs >= 1 && st->arg0 >= 0 &&
                   st->arg0 < m->n_operands) {
            pto__vsame_store(v, s, kind);
        }
    }
}

/* pto__vsame_window from the tstores the phase 1 walk listed (in its
   order, which is this walk's when the lists are sound: !waits_unsure),
   each checked when every statement around it is one the walk enters:
   the walk over every statement of a large kernel was most of its cost.
   The verdict of a store's block is kept for the next store in it. */
static void pto__vsame_stores(pto__verifier *v, int32_t body, int kind)
{
    const pto_module *m = v->m;
    int32_t i, last = -1;
    int enters = 0;
    for (i = 0; i < v->n_stores; i++) {
        int32_t s = v->stores[i], b = m->stmts[s].block;
        if (b != last) {
            last = b;
            for (enters = 1; b != body && enters; b = m->stmts[m->blocks[b].owner].block)
                enters = pto__vsame_enters(m, &m->stmts[m->blocks[b].owner], kind);
        }
        if (enters) pto__vsame_store(v, s, kind);
    }
}

/* ---- cube / vector races on GM: a mix kernel's two sections run at once ---- */

/* Whether statement s is, or holds, a cube/vector pipe op that orders
   across cores (tpush, tpop; tfree only on a5: on a2a3 pto-isa's TPOP
   frees the slot and TFREE is empty); unsure counts as yes. */
static int pto__vpipe_op_at(const pto_module *m, int32_t s, int depth)
{
    const pto_stmt *st;
    int32_t t;
    int k;
    if (s < 0 || s >= m->n_stmts || depth > m->n_blocks) return 1;
    st = &m->stmts[s];
    if (st->kind == PTO_ST_OP)
        return pto_opinfo_get((pto_op)st->op)->cls == PTO_OC_CVPIPE && (st->op != PTO_OP_TFREE || m->arch == PTO_ARCH_A5);
    if (st->kind != PTO_ST_FOR && st->kind != PTO_ST_IF) return 0;
    for (k = 0; k < 2; k++) {
        int32_t b = k ? st->orelse : st->body;
        if (b < 0) continue;
        if (b >= m->n_blocks) return 1;
        for (t = m->blocks[b].head; t >= 0; t = m->stmts[t].next)
            if (pto__vpipe_op_at(m, t, depth + 1)) return 1;
    }
    return 0;
}

/* Whether a pipe op of statement s's section can run after s (after = 1)
   or before it: a later (earlier) statement of s's block or of an
   enclosing one holds one, or an enclosing loop does (its next or previous
   trip). Only pipes order a mix kernel's cube and vector sections, so a
   cube access and a vector access are ordered only when a pipe op follows
   one and precedes the other. Unsure counts as yes. */
static int pto__vpipe_side(const pto_module *m, int32_t s, int after)
{
    int32_t steps = 0;
    while (s >= 0 && s < m->n_stmts && steps++ <= m->n_blocks) {
        const pto_stmt *st = &m->stmts[s];
        int32_t t, owner;
        for (t = after ? st->next : st->prev; t >= 0 && t < m->n_stmts; t = after ? m->stmts[t].next : m->stmts[t].prev)
            if (pto__vpipe_op_at(m, t, 0)) return 1;
        if (st->block < 0 || st->block >= m->n_blocks) return 1;
        owner = m->blocks[st->block].owner;
        if (owner < 0 || owner >= m->n_stmts) return 1;
        if (m->stmts[owner].kind == PTO_ST_SECTION) return 0;
        if (m->stmts[owner].kind == PTO_ST_FOR && pto__vpipe_op_at(m, owner, 0)) return 1;
        s = owner;
    }
    return 1;
}

/* Whether statement s surely runs under env (loops = 1: on the first trip
   of each enclosing loop): every enclosing if takes its branch and every
   enclosing loop makes a trip, on values pto__vrange knows exactly. */
static int pto__vsurely_runs(const pto__verifier *v, int32_t s, const pto__venv *env)
{
    const pto_module *m = v->m;
    int32_t steps = 0, b = s >= 0 && s < m->n_stmts ? m->stmts[s].block : -1;
    while (b >= 0 && b < m->n_blocks && steps++ <= m->n_blocks) {
        int32_t owner = m->blocks[b].owner;
        const pto_stmt *ow;
        int64_t x, y, step = 1, h;
        if (owner < 0 || owner >= m->n_stmts) return 0;
        ow = &m->stmts[owner];
        if (ow->kind == PTO_ST_SECTION) return 1;
        if (!pto__vrange(v, ow->e[0], env, &x, &h, 0) || x != h || !pto__vrange(v, ow->e[1], env, &y, &h, 0) || y != h)
            return 0;
        if (ow->kind == PTO_ST_IF && pto__cmp_holds(ow->cmp, x, y) != (b == ow->body)) return 0;
        if (ow->kind == PTO_ST_FOR &&
            ((ow->e[2] >= 0 && (!pto__vrange(v, ow->e[2], env, &step, &h, 0) || step != h || step == 0)) ||
             (step > 0 ? x >= y : x <= y)))
            return 0;
        if (ow->kind != PTO_ST_IF && ow->kind != PTO_ST_FOR) return 0;
        b = ow->block;
    }
    return 0;
}

/* The tensor elements tload / tstore s touches under env: rows box[0] to
   box[1], columns box[2] to box[3] (inclusive), its window plus the tile's
   valid shape (env->loops == 2: a superset, the full shape where the valid
   one is not bounded). 0 when it cannot say. */
static int pto__vgm_box(const pto__verifier *v, int32_t s, const pto__venv *env, int64_t box[4])
{
    const pto_module *m = v->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o = &m->operands[st->arg0 + (st->op == PTO_OP_TLOAD)];
    const pto_tile *t = &m->tiles[m->operands[st->arg0 + (st->op == PTO_OP_TSTORE)].ref];
    int k;
    for (k = 0; k < 2; k++) {
        int32_t ve = k ? t->valid_c : t->valid_r;
        int64_t n = k ? t->cols : t->rows, lo, hi;
        if (ve >= 0 && pto__vrange(v, ve, env, &lo, &hi, 0) && (env->loops == 2 || lo == hi)) n = hi < n ? hi : n;
        else if (ve >= 0 && env->loops != 2) return 0;
        if (!pto__vrange(v, o->e[k], env, &lo, &hi, 0) || !pto__vadd(hi, n - 1, &box[2 * k + 1])) return 0;
        box[2 * k] = lo;
    }
    return 1;
}

/* The tload / tstore statements with a GM window of one of kernel k's
   tensors and a tile in block b and below, into out[] while n < cap;
   their count. */
static int32_t pto__vgm_accesses(const pto__verifier *v, const pto_kernel *k, int32_t b, int32_t *out, int32_t n,
                                 int32_t cap, int depth)
{
    const pto_module *m = v->m;
    int32_t s;
    if (b < 0 || b >= m->n_blocks || depth > m->n_blocks) return n;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF) {
            n = pto__vgm_accesses(v, k, st->body, out, n, cap, depth + 1);
            n = pto__vgm_accesses(v, k, st->orelse, out, n, cap, depth + 1);
        } else if (st->kind == PTO_ST_OP && (st->op == PTO_OP_TLOAD || st->op == PTO_OP_TSTORE) && st->nargs == 2 &&
                   st->arg0 >= 0 && st->arg0 + 2 <= m->n_operands) {
            const pto_operand *o = &m->operands[st->arg0 + (st->op == PTO_OP_TLOAD)];
            const pto_operand *t = &m->operands[st->arg0 + (st->op == PTO_OP_TSTORE)];
            if (o->kind != PTO_O_GM || o->ref < k->param0 || o->ref >= k->param0 + k->nparams || o->e[0] < 0 ||
                o->e[1] < 0 || t->kind != PTO_O_TILE || t->ref < 0 || t->ref >= m->n_tiles)
                continue;
            if (n < cap) out[n] = s;
            n++;
        }
    }
    return n;
}

/* The two sections of a mix kernel run at the same time in each block
   (the cube core and both AIVs), ordered only by pipes. A GM tensor that
   one section stores and the other loads or stores, with no pipe op
   after the one and before the other, is a race wherever the windows
   meet: an error when that is sure (on the first trip of each loop, for
   some block and subblock both run and the windows share an element), a
   warning when the windows' bounds meet but that is not sure; windows
   apart in every block checked, or that cannot be bounded, are quiet. */
static void pto__vxcore_gm(pto__verifier *v, const pto_kernel *k)
{
    const pto_module *m = v->m;
    int32_t sec[2] = {-1, -1}, s, n[2], *acc[2], i, j;
    long budget = 1L << 16;
    int c;
    for (s = m->blocks[k->body].head; s >= 0; s = m->stmts[s].next)
        if (m->stmts[s].kind == PTO_ST_SECTION &&
            (m->stmts[s].ref == PTO_CORE_VECTOR || m->stmts[s].ref == PTO_CORE_CUBE))
            sec[m->stmts[s].ref] = m->stmts[s].body;
    if (sec[0] < 0 || sec[1] < 0) return;
    for (c = 0; c < 2; c++) n[c] = pto__vgm_accesses(v, k, sec[c], NULL, 0, 0, 0);
    if (!n[0] || !n[1]) return;
    /* each access's statement, then whether a pipe op of its section can
       run after it (bit 0) and before it (bit 1) */
    acc[0] = (int32_t *)pto__vuninit(v, 2 * ((size_t)n[0] + (size_t)n[1]), sizeof(int32_t));
    if (!acc[0]) return;
    acc[1] = acc[0] + n[0];
    for (c = 0; c < 2; c++) {
        pto__vgm_accesses(v, k, sec[c], acc[c], 0, n[c], 0);
        for (i = 0; i < n[c]; i++)
            acc[c][n[0] + n[1] + i] = pto__vpipe_side(m, acc[c][i], 1) | pto__vpipe_side(m, acc[c][i], 0) << 1;
    }
    for (i = 0; i < n[PTO_CORE_CUBE]; i++)
        for (j = 0; j < n[PTO_CORE_VECTOR] && budget > 0; j++) {
            const int32_t sc = acc[PTO_CORE_CUBE][i], sv = acc[PTO_CORE_VECTOR][j];
            const pto_stmt *a = &m->stmts[sc], *b = &m->stmts[sv];
            int32_t pc = m->operands[a->arg0 + (a->op == PTO_OP_TLOAD)].ref;
            int32_t pv = m->operands[b->arg0 + (b->op == PTO_OP_TLOAD)].ref;
            int32_t fc, fv;
            int sure = 0, maybe = 0, bi, sb, nb = v->nblocks > 0 ? (v->nblocks < 8 ? (int)v->nblocks : 9) : 1;
            const pto_stmt *w, *o;
            const char *pn;
            char msg[1024];
            if (pc != pv || (a->op == PTO_OP_TLOAD && b->op == PTO_OP_TLOAD)) continue;
            budget--;
            fc = acc[PTO_CORE_CUBE][n[0] + n[1] + i], fv = acc[PTO_CORE_VECTOR][n[0] + n[1] + j];
            if (((fc & 1) && (fv & 2)) || ((fv & 1) && (fc & 2))) continue;   /* a pipe may order them */
            /* blocks 0..7 and the last one, each AIV */
            for (bi = 0; bi < nb && !sure; bi++)
                for (sb = 0; sb < 2 && !sure; sb++) {
                    pto__venv ec, ev;
                    int64_t x[4], y[4];
                    long nodes = 1L << 14;
                    ec.budget = ev.budget = &nodes;
                    ec.blk = ev.blk = bi == 8 ? v->nblocks - 1 : bi;
                    ec.sb = 0, ev.sb = sb;
                    ec.loops = ev.loops = 1;
                    ec.nl = ev.nl = 0, ec.lv = ev.lv = NULL, ec.lx = ev.lx = NULL;
                    if (pto__vsurely_runs(v, sc, &ec) && pto__vsurely_runs(v, sv, &ev) && pto__vgm_box(v, sc, &ec, x) &&
                        pto__vgm_box(v, sv, &ev, y) && x[0] <= y[1] && y[0] <= x[1] && x[2] <= y[3] && y[2] <= x[3])
                        sure = 1;
                    ec.loops = ev.loops = 2;
                    if (pto__vgm_box(v, sc, &ec, x) && pto__vgm_box(v, sv, &ev, y) && x[0] <= y[1] && y[0] <= x[1] &&
                        x[2] <= y[3] && y[2] <= x[3])
                        maybe = 1;
                }
            if (!sure && !maybe) continue;
            pn = pto__vname(v, m->params[pc].name);
            w = a->op == PTO_OP_TSTORE ? a : b;
            o = w == a ? b : a;
            snprintf(msg, sizeof msg,
                     "the %s section stores '%s' (line %d) and the %s section %s it (line %d) with no pipe op between "
                     "them: the two sections of a mix kernel run at the same time, so %s; pass the tile through a "
                     "pipe (tpush in one section, tpop in the other) instead of through '%s'",
                     w == a ? "cube" : "vector", pn, (int)w->loc.line, w == a ? "vector" : "cube",
                     o->op == PTO_OP_TSTORE ? "stores" : "loads", (int)o->loc.line,
                     !sure ? "wherever their windows meet (they may, in some block or on some AIV) the result depends "
                             "on timing"
                     : o->op == PTO_OP_TSTORE ? "both write the elements their windows share, in no set order"
                                              : "the load may read the elements before or after the store writes them",
                     pn);
            if (sure) pto_error(v->ctx, w->loc, "%s", msg);
            else pto_warning(v->ctx, w->loc, "%s", msg);
        }
    pto_free(v->ctx, acc[0]);
}

/* ---- blocks that store into the same GM bytes or 32-byte blocks ---- */

#define PTO__VX_INST 2048      /* store instances (a tstore in one block on given loop values) kept, at most */
#define PTO__VX_CHAIN 8        /* loops and ifs around a store followed, at most */

/* One run of a tstore: the statement, its tensor, the block (and AIV),
   the elements (rows box[0]..box[1], columns box[2]..box[3]) and the first
   and last 32-byte block of the bytes from its first to its last element. */
typedef struct pto__vxinst {
    int32_t s, p;
    int32_t self;              /* its statement's window names 'block' nowhere (pto__vsame_window says so) */
    int64_t blk;
    int64_t box[4];
    int64_t g0, g1;
} pto__vxinst;

typedef struct pto__vxrun {
    pto__verifier *v;
    pto__venv env;
    int32_t s, self;
    int32_t chain[PTO__VX_CHAIN];    /* the loops and ifs around s, outermost first */
    int inbody[PTO__VX_CHAIN];       /* ifs: s is in the then-branch */
    int32_t lv[PTO__VX_CHAIN];       /* loop var of chain[i] (-1: an if) */
    int64_t lx[PTO__VX_CHAIN];
    int nchain;
    pto__vform win[2];               /* the window's row and column as affine forms (ok = 0: evaluated per run) */
    long trips;                      /* loop trips left to enumerate */
    pto__vxinst *inst;
    int32_t n;
} pto__vxrun;

/* The exact value of integer expression e under r's env; 0 when it has none. */
static int pto__vxval(pto__vxrun *r, int32_t e, int64_t *x)
{
    int64_t h;
    return pto__vrange(r->v, e, &r->env, x, &h, 0) && *x == h;
}

/* Integer expression e as const + sum k * var over `block` (PTO__VBLOCK)
   and loop vars, through lets: evaluating it per run is then a few
   multiplications instead of a walk of the tree (stores in a loop of many
   blocks run many times). 0 when e is not of that form. */
static int pto__vxaff(const pto__verifier *v, int32_t e, pto__vform *f, int depth)
{
    const pto_module *m = v->m;
    const pto_expr *x;
    pto__vform g;
    if (e < 0 || e >= m->n_exprs || depth > 64) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: pto__fconst(f, x->value); return 1;
    case PTO_E_BLOCK: pto__fconst(f, 0); pto__fterm(f, PTO__VBLOCK, 1); return f->ok;
    case PTO_E_BLOCKS: pto__fconst(f, v->nblocks); return v->nblocks > 0;
    case PTO_E_VAR: {
        const pto_var *var = x->a >= 0 && x->a < m->n_vars ? &m->vars[x->a] : NULL;
        if (!var || var->def < 0 || var->def >= m->n_stmts) return 0;
        if (var->kind == PTO_V_LET) return pto__vxaff(v, m->stmts[var->def].e[0], f, depth + 1);
        if (var->kind != PTO_V_LOOP) return 0;
        pto__fconst(f, 0);
        pto__fterm(f, x->a, 1);
        return f->ok;
    }
    case PTO_E_NEG:
        if (!pto__vxaff(v, x->a, f, depth + 1)) return 0;
        pto__fscale(f, -1);
        return f->ok;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL:
        if (!pto__vxaff(v, x->a, f, depth + 1) || !pto__vxaff(v, x->b, &g, depth + 1)) return 0;
        if (x->kind != PTO_E_MUL) pto__fadd(f, &g, x->kind == PTO_E_ADD ? 1 : -1);
        else if (pto__fisconst(f)) { int64_t c = f->c; *f = g; pto__fscale(f, c); }
        else if (pto__fisconst(&g)) pto__fscale(f, g.c);
        else return 0;
        return f->ok;
    default: return 0;
    }
}

/* The value of r->win[k] on r's block and loop values; 0 when it cannot say. */
static int pto__vxwin(const pto__vxrun *r, int k, int64_t *x)
{
    const pto__vform *f = &r->win[k];
    int64_t acc = f->c, t;
    int i, j;
    for (i = 0; i < f->n; i++) {
        int64_t val = r->env.blk;
        if (f->var[i] != PTO__VBLOCK) {
            for (j = 0; j < r->env.nl && r->lv[j] != f->var[i]; j++) {}
            if (j == r->env.nl) return 0;
            val = r->lx[j];
        }
        if (!pto__vmul(f->k[i], val, &t) || !pto__vadd(acc, t, &acc)) return 0;
    }
    *x = acc;
    return 1;
}

/* Enumerates chain[level..]: the runs of r->s on every value of its
   loops (literal bounds, known here) and every if that takes its branch;
   an if or a loop whose values are not known adds no run. */
static void pto__vxenum(pto__vxrun *r, int level)
{
    const pto_module *m = r->v->m;
    const pto_stmt *st;
    int64_t a, b, step = 1, i;
    r->env.nl = level;
    if (r->n >= PTO__VX_INST || *r->env.budget <= 0) return;
    if (level == r->nchain) {
        const pto_stmt *s = &m->stmts[r->s];
        const pto_operand *o = &m->operands[s->arg0];
        const pto_tile *t = &m->tiles[m->operands[s->arg0 + 1].ref];
        const pto_param *p = &m->params[o->ref];
        pto__vxinst *in = &r->inst[r->n];
        int64_t size = pto_dtype_size((pto_dtype)p->dtype), lo, hi;
        int k;
        for (k = 0; k < 2; k++) {
            int32_t ve = k ? t->valid_c : t->valid_r;
            int64_t n = k ? t->cols : t->rows;
            if (ve >= 0 && (!pto__vxval(r, ve, &lo) || lo <= 0)) return;
            if (ve >= 0 && lo < n) n = lo;
            if (!(r->win[k].ok ? pto__vxwin(r, k, &lo) : pto__vxval(r, o->e[k], &lo)) || lo < 0 || lo > p->dim[k] - n)
                return;
            in->box[2 * k] = lo, in->box[2 * k + 1] = lo + n - 1;
        }
        /* dims are checked to fit far below 2^62 bytes by the caller */
        lo = (in->box[0] * p->dim[1] + in->box[2]) * size;
        hi = (in->box[1] * p->dim[1] + in->box[3] + 1) * size - 1;
        in->s = r->s, in->p = o->ref, in->self = r->self, in->blk = r->env.blk;
        in->g0 = lo / 32, in->g1 = hi / 32;
        r->n++;
        return;
    }
    st = &m->stmts[r->chain[level]];
    if (!pto__vxval(r, st->e[0], &a) || !pto__vxval(r, st->e[1], &b)) return;
    if (st->kind == PTO_ST_IF) {
        if (pto__cmp_holds(st->cmp, a, b) == r->inbody[level]) pto__vxenum(r, level + 1);
        return;
    }
    if (st->e[2] >= 0 && (!pto__vxval(r, st->e[2], &step) || step == 0)) return;
    for (i = a; step > 0 ? i < b : i > b;) {
        if (--r->trips < 0) return;
        r->lx[level] = i;
        pto__vxenum(r, level + 1);
        r->env.nl = level;
        if (!pto__vadd(i, step, &i)) break;
    }
}

/* Whether two runs of tstores into one tensor of `cols` columns of
   `size`-byte elements share an element (2), a 32-byte block but no
   byte (1), or neither (0); *steps bounds the rows compared. */
static int pto__vxmeet(const pto__vxinst *a, const pto__vxinst *b, int64_t cols, int64_t size, long *steps)
{
    int rows = a->box[0] <= b->box[1] && b->box[0] <= a->box[1];
    int64_t ra, rb, row = cols * size;
    if (rows && a->box[2] <= b->box[3] && b->box[2] <= a->box[3]) return 2;
    if (row % 32 == 0)   /* whole blocks per row: only the same rows can share one */
        return rows && a->box[2] * size / 32 <= ((b->box[3] + 1) * size - 1) / 32 &&
               b->box[2] * size / 32 <= ((a->box[3] + 1) * size - 1) / 32;
    /* each window's rows cover increasing runs of blocks: merge them */
    for (ra = a->box[0], rb = b->box[0]; ra <= a->box[1] && rb <= b->box[1] && --*steps > 0;) {
        int64_t a0 = (ra * cols + a->box[2]) * size / 32, a1 = ((ra * cols + a->box[3] + 1) * size - 1) / 32;
        int64_t b0 = (rb * cols + b->box[2]) * size / 32, b1 = ((rb * cols + b->box[3] + 1) * size - 1) / 32;
        if (a1 < b0) ra++;
        else if (b1 < a0) rb++;
        else return 1;
    }
    return 0;
}

static int pto__vxcmp(const void *x, const void *y)
{
    const pto__vxinst *a = (const pto__vxinst *)x, *b = (const pto__vxinst *)y;
    if (a->p != b->p) return a->p < b->p ? -1 : 1;
    if (a->g0 != b->g0) return a->g0 < b->g0 ? -1 : 1;
    if (a->blk != b->blk) return a->blk < b->blk ? -1 : 1;
    if (a->s != b->s) return a->s < b->s ? -1 : 1;
    if (a->box[0] != b->box[0]) return a->box[0] < b->box[0] ? -1 : 1;
    return a->box[2] < b->box[2] ? -1 : a->box[2] > b->box[2];
}

static int pto__vxcmp64(const void *x, const void *y)
{
    const int64_t *a = (const int64_t *)x, *b = (const int64_t *)y;
    return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Whether the 32-byte blocks that two blocks' runs span (from the first
   block any of a block's runs into a tensor touches to the last) can meet:
   blocks that each keep to their own rows (the usual sharding) never do,
   and the runs need no sorting then. 1 when unsure. */
static int pto__vxhulls_meet(pto__verifier *v, const pto_kernel *k, const pto__vxrun *r)
{
    int64_t *h, n = v->nblocks * k->nparams, i, c;
    int32_t p, j;
    int meet = 0;
    if (k->nparams <= 0 || n > (1 << 16)) return 1;
    h = (int64_t *)pto__vuninit(v, (size_t)n * 2, sizeof(int64_t));   /* per tensor and block: first, last */
    if (!h) return 1;
    for (i = 0; i < n; i++) h[2 * i] = INT64_MAX, h[2 * i + 1] = INT64_MIN;
    for (j = 0; j < r->n; j++) {
        const pto__vxinst *a = &r->inst[j];
        int64_t *e = &h[2 * ((a->p - k->param0) * v->nblocks + a->blk)];
        if (a->g0 < e[0]) e[0] = a->g0;
        if (a->g1 > e[1]) e[1] = a->g1;
    }
    for (p = 0; p < k->nparams && !meet; p++) {
        int64_t *e = &h[2 * p * v->nblocks], last = INT64_MIN;
        for (i = c = 0; i < v->nblocks; i++)   /* the blocks with runs, to the front */
            if (e[2 * i] != INT64_MAX) e[2 * c] = e[2 * i], e[2 * c + 1] = e[2 * i + 1], c++;
        qsort(e, (size_t)c, 2 * sizeof(int64_t), pto__vxcmp64);
        for (i = 0; i < c && !meet; i++) {
            meet = e[2 * i] <= last;
            if (e[2 * i + 1] > last) last = e[2 * i + 1];
        }
    }
    pto_free(v->ctx, h);
    return meet;
}

/* Adds the runs of tstore s (in section body `body`, on nsb AIVs) in
   every block to r->inst. */
static void pto__vxstore(pto__vxrun *r, int32_t s, int32_t body, int nsb)
{
    pto__verifier *v = r->v;
    const pto_module *m = v->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o = &m->operands[st->arg0];
    const pto_param *p = &m->params[o->ref];
    int64_t bytes, blk;
    int32_t b = st->block, steps = 0, j;
    int budget = 4096, sb;
    if (o->e[2] >= 0 || p->dim[0] <= 0 || p->dim[1] <= 0 || !pto__vmul(p->dim[0], p->dim[1], &bytes) ||
        !pto__vmul(bytes, pto_dtype_size((pto_dtype)p->dtype), &bytes) || bytes > ((int64_t)1 << 56))
        return;
    /* the loops and ifs around it, up to the section (or body) */
    r->s = s;
    r->nchain = 0;
    r->self = !pto__vby(m, o->e[0], PTO_E_BLOCK, &budget) && !pto__vby(m, o->e[1], PTO_E_BLOCK, &budget) &&
              !pto__vxvalid_by_block(m, st, &budget);
    while (b != body && b >= 0 && b < m->n_blocks && steps++ <= m->n_blocks) {
        int32_t ow = m->blocks[b].owner;
        const pto_stmt *os;
        if (ow < 0 || ow >= m->n_stmts || r->nchain >= PTO__VX_CHAIN) break;
        os = &m->stmts[ow];
        if (os->kind != PTO_ST_FOR && os->kind != PTO_ST_IF) break;
        r->chain[r->nchain] = ow;
        r->inbody[r->nchain] = b == os->body;
        r->lv[r->nchain] = os->kind == PTO_ST_FOR ? os->ref : -1;
        r->nchain++;
        if (r->self && (pto__vby(m, os->e[0], PTO_E_BLOCK, &budget) || pto__vby(m, os->e[1], PTO_E_BLOCK, &budget) ||
                        (os->kind == PTO_ST_FOR && os->e[2] >= 0 && pto__vby(m, os->e[2], PTO_E_BLOCK, &budget))))
            r->self = 0;
        b = os->block;
    }
    if (b != body) return;
    for (j = 0; j < r->nchain / 2; j++) {   /* outermost first */
        int32_t c = r->chain[j], lv = r->lv[j];
        int ib = r->inbody[j];
        r->chain[j] = r->chain[r->nchain - 1 - j], r->chain[r->nchain - 1 - j] = c;
        r->lv[j] = r->lv[r->nchain - 1 - j], r->lv[r->nchain - 1 - j] = lv;
        r->inbody[j] = r->inbody[r->nchain - 1 - j], r->inbody[r->nchain - 1 - j] = ib;
    }
    for (j = 0; j < 2; j++)
        if (!pto__vxaff(v, o->e[j], &r->win[j], 0)) r->win[j].ok = 0;
    for (blk = 0; blk < v->nblocks && r->n < PTO__VX_INST && *r->env.budget > 0; blk++)
        for (sb = 0; sb < nsb; sb++) {
            r->env.blk = blk, r->env.sb = sb;
            pto__vxenum(r, 0);
        }
}

/* The tstores of block b (and below) whose window is of one of kernel k's
   tensors, each to pto__vxstore, until r->inst is full. */
static void pto__vxstores(pto__vxrun *r, const pto_kernel *k, int32_t b, int32_t body, int nsb, int depth)
{
    const pto_module *m = r->v->m;
    int32_t s;
    if (b < 0 || b >= m->n_blocks || depth > m->n_blocks) return;
    for (s = m->blocks[b].head; s >= 0 && r->n < PTO__VX_INST && *r->env.budget > 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF) {
            pto__vxstores(r, k, st->body, body, nsb, depth + 1);
            pto__vxstores(r, k, st->orelse, body, nsb, depth + 1);
        } else if (st->kind == PTO_ST_OP && st->op == PTO_OP_TSTORE && st->nargs == 2 && st->arg0 >= 0 &&
                   st->arg0 + 2 <= m->n_operands) {
            const pto_operand *o = &m->operands[st->arg0], *t = &m->operands[st->arg0 + 1];
            if (o->kind == PTO_O_GM && o->ref >= k->param0 && o->ref < k->param0 + k->nparams && o->e[0] >= 0 &&
                o->e[1] >= 0 && t->kind == PTO_O_TILE && t->ref >= 0 && t->ref < m->n_tiles)
                pto__vxstore(r, s, body, nsb);
        }
    }
}

/* Blocks run at once and nothing but a signal orders them: two blocks'
   tstores into one tensor that share an element leave whichever value the
   later write brings, and two that share a 32-byte block of GM (memory
   moves whole blocks) can undo each other's bytes; the simulator reports
   both as races. In a kernel of a constant block count whose tensors have
   constant shapes, every run of every tstore whose window, valid shape,
   loop bounds and if conditions fold to values in that block (literals,
   block, blocks, subblock, lets, loop vars; up to PTO__VX_INST runs) is
   compared with the other blocks' runs: a pair that meets is an error, one
   per tensor (the worst: shared elements first, then the lowest blocks).
   What cannot be folded adds no run, so it stays quiet; a window the same
   in every block is pto__vsame_window's error. The two AIVs of one block
   are left out (a pipe through the cube core may order them). */
static void pto__vxblock_gm(pto__verifier *v, const pto_kernel *k)
{
    const pto_module *m = v->m;
    int32_t secs[2], nsec = 0, si, s, i, j, *best, nbest = 0, gstart;
    int64_t top1, top2, topblk;
    long budget = 1L << 20, steps = 1L << 16;
    pto__vxrun r;
    if (v->nblocks < 2) return;
    /* the sections (or the body) whose stores run in each block: a mix kernel's cube section runs on
       subblock 0, its vector section on subblocks 0 and 1 */
    if (k->kind == PTO_KK_MIX) {
        for (s = m->blocks[k->body].head; s >= 0; s = m->stmts[s].next)
            if (m->stmts[s].kind == PTO_ST_SECTION && nsec < 2) secs[nsec++] = s;
    } else {
        secs[nsec++] = -1;
    }
    memset(&r, 0, sizeof r);
    r.v = v;
    r.inst = (pto__vxinst *)pto__vuninit(v, PTO__VX_INST, sizeof(pto__vxinst));
    if (!r.inst) return;
    r.env.budget = &budget;
    r.env.lv = r.lv, r.env.lx = r.lx;
    r.trips = 1L << 16;
    for (si = 0; si < nsec; si++) {
        int32_t body = secs[si] < 0 ? k->body : m->stmts[secs[si]].body;
        pto__vxstores(&r, k, body, body, secs[si] >= 0 && m->stmts[secs[si]].ref == PTO_CORE_VECTOR ? 2 : 1, 0);
    }
    if (r.n < 2 || !pto__vxhulls_meet(v, k, &r)) { pto_free(v->ctx, r.inst); return; }
    qsort(r.inst, (size_t)r.n, sizeof r.inst[0], pto__vxcmp);
    /* per tensor the worst pair: 3 entries (kind, i, j) */
    best = (int32_t *)pto__vcalloc(v, (size_t)r.n * 3, sizeof(int32_t));
    if (!best) { pto_free(v->ctx, r.inst); return; }
    /* in order of first 32-byte block, each run against the earlier ones whose last block reaches its
       first, when one of another block does (the latest last block of any block and of any other
       block than that one say so without a scan) */
    for (i = 0, gstart = 0; i < r.n; i++) {
        const pto__vxinst *a = &r.inst[i];
        const pto_param *p = &m->params[a->p];
        int64_t size = pto_dtype_size((pto_dtype)p->dtype);
        if (i == 0 || r.inst[i - 1].p != a->p) top1 = top2 = INT64_MIN, topblk = -1, gstart = i;
        if ((a->blk != topblk ? top1 : top2) >= a->g0)
            for (j = i - 1; j >= gstart && --steps > 0; j--) {
                const pto__vxinst *b = &r.inst[j];
                int kind;
                if (b->g1 < a->g0 || a->blk == b->blk || (a->s == b->s && a->self)) continue;
                kind = pto__vxmeet(a, b, p->dim[1], size, &steps);
                if (!kind) continue;
                if (nbest == 0 || r.inst[best[3 * (nbest - 1) + 1]].p != a->p) {
                    best[3 * nbest] = kind, best[3 * nbest + 1] = j, best[3 * nbest + 2] = i;
                    nbest++;
                } else {
                    int32_t *q = &best[3 * (nbest - 1)];
                    const pto__vxinst *x = &r.inst[q[1]], *y = &r.inst[q[2]];
                    int64_t lo = a->blk < b->blk ? a->blk : b->blk, hi = a->blk ^ b->blk ^ lo;
                    int64_t qlo = x->blk < y->blk ? x->blk : y->blk, qhi = x->blk ^ y->blk ^ qlo;
                    if (kind > q[0] || (kind == q[0] && (lo < qlo || (lo == qlo && hi < qhi))))
                        q[0] = kind, q[1] = j, q[2] = i;
                }
            }
        if (a->blk == topblk) { if (a->g1 > top1) top1 = a->g1; }
        else if (a->g1 > top1) top2 = top1, top1 = a->g1, topblk = a->blk;
        else if (a->g1 > top2) top2 = a->g1;
    }
    for (i = 0; i < nbest; i++) {
        const pto__vxinst *a = &r.inst[best[3 * i + 1]], *b = &r.inst[best[3 * i + 2]], *t;
        const pto_param *p = &m->params[a->p];
        const pto_stmt *sa, *sb;
        const char *pn = pto__vname(v, p->name), *kn = pto__vname(v, k->name);
        int64_t size = pto_dtype_size((pto_dtype)p->dtype), row = p->dim[1] * size;
        char where[96], fix[256];
        if (a->blk > b->blk) t = a, a = b, b = t;
        sa = &m->stmts[a->s], sb = &m->stmts[b->s];
        if (a->s == b->s) snprintf(where, sizeof where, "line %d in both", (int)sb->loc.line);
        else
            snprintf(where, sizeof where, "block %lld at line %d, block %lld at line %d", (long long)a->blk,
                     (int)sa->loc.line, (long long)b->blk, (int)sb->loc.line);
        if (best[3 * i] == 2) {
            pto_error(v->ctx, m->operands[sb->arg0].loc,
                      "tstore: blocks %lld and %lld of kernel '%s' both write rows %lld..%lld, columns %lld..%lld of "
                      "'%s' (%s): nothing orders two blocks, so which value stays depends on which writes last; give "
                      "each block a window of its own",
                      (long long)a->blk, (long long)b->blk, kn,
                      (long long)(a->box[0] > b->box[0] ? a->box[0] : b->box[0]),
                      (long long)(a->box[1] < b->box[1] ? a->box[1] : b->box[1]),
                      (long long)(a->box[2] > b->box[2] ? a->box[2] : b->box[2]),
                      (long long)(a->box[3] < b->box[3] ? a->box[3] : b->box[3]), pn, where);
            continue;
        }
        if (row % 32 == 0)
            snprintf(fix, sizeof fix, "make each block's column share a multiple of %d %s (32 bytes), or split '%s' by rows",
                     (int)(32 / size), pto_dtype_name((pto_dtype)p->dtype), pn);
        else {
            int64_t g = row, h = 32, kr;
            while (h) { int64_t q = g % h; g = h, h = q; }
            kr = 32 / g;
            snprintf(fix, sizeof fix, "its rows are not whole 32-byte blocks, so split '%s' by rows, %lld at a time "
                     "(%lld bytes), or pad its rows to a multiple of %d %s and make each block's column share one too",
                     pn, (long long)kr, (long long)(kr * row), (int)(32 / size), pto_dtype_name((pto_dtype)p->dtype));
        }
        pto_error(v->ctx, m->operands[sb->arg0].loc,
                  "tstore: blocks %lld and %lld of kernel '%s' write different bytes of the same 32-byte blocks of "
                  "'%s' (its rows are %lld bytes; block %lld writes rows %lld..%lld, columns %lld..%lld, block %lld "
                  "rows %lld..%lld, columns %lld..%lld; %s): memory moves whole 32-byte blocks, so one block's write "
                  "can undo the other's; %s",
                  (long long)a->blk, (long long)b->blk, kn, pn, (long long)row, (long long)a->blk,
                  (long long)a->box[0], (long long)a->box[1], (long long)a->box[2], (long long)a->box[3],
                  (long long)b->blk, (long long)b->box[0], (long long)b->box[1], (long long)b->box[2],
                  (long long)b->box[3], where, fix);
    }
    pto_free(v->ctx, best);
    pto_free(v->ctx, r.inst);
}

static void pto__vkernel(pto__verifier *v, int32_t ki)
{
    const pto_kernel *k = &v->m->kernels[ki];
    const char *kn = pto__vname(v, k->name);
    int32_t ne0;
    v->kernel = ki;
    v->mix = k->kind == PTO_KK_MIX;
    v->nblocks = 1;
    v->ifdepth = 0;
    v->n_wlog = v->n_ifmark = 0;
    v->nloops = 0;
    v->sections[0] = v->sections[1] = 0;
    v->core = k->kind == PTO_KK_CUBE ? PTO_CORE_CUBE : k->kind == PTO_KK_VECTOR ? PTO_CORE_VECTOR : -1;
    if (k->kind > PTO_KK_MIX) pto_error(v->ctx, k->loc, "kernel '%s' has kind %d, which is no pto_kernel_kind", kn, (int)k->kind);
    if (k->kind == PTO_KK_MIX && k->ranks)
        pto_error(v->ctx, k->loc,
                  "kernel '%s' is a mix kernel with 'ranks': a mix kernel cannot run on several ranks yet "
                  "(its cube and vector sections are not run per rank); put the communication in a vector "
                  "ranks kernel of its own", kn);
    if (k->name > 0 && k->name < v->n_names) {
        if (v->kname[k->name])
            pto_error(v->ctx, k->loc, "kernel '%s' is already defined at %d:%d", kn,
                      (int)v->m->kernels[v->kname[k->name] - 1].loc.line,
                      (int)v->m->kernels[v->kname[k->name] - 1].loc.col);
        else
            v->kname[k->name] = ki + 1;
    }
    if (k->param0 < 0 || k->nparams < 0 || k->param0 + k->nparams > v->m->n_params ||
        k->body < 0 || k->body >= v->m->n_blocks) {
        pto_error(v->ctx, k->loc, "kernel '%s' is malformed", kn);
        return;
    }
    ne0 = v->ctx->n_errors;
    v->ranks_err = 0;
    pto__vparams(v, k, 1);
    if (k->blocks >= 0) {
        pto__vform f;
        v->here = k->loc;
        pto__vexpr(v, k->blocks, PTO__IN_BLOCKS, &f, 0);
        v->nblocks = pto__fisconst(&f) ? f.c : -1;
        if (pto__fisconst(&f) && f.c <= 0) {
            pto_error(v->ctx, *pto__vexpr_loc(v, k->blocks, &k->loc), "blocks(...) must be positive, got %lld",
                      (long long)f.c);
            v->nblocks = -1;
        }
    }
    v->collected = 0;
    v->phase = 1;
    v->counter = 0;
    v->waits = v->waits_unsure = 0;
    v->n_stores = v->n_decls = 0;
    {
        pto__dmark mk = pto__diag_mark(v->ctx);
        pto__vwalk(v, k->body);
        if (v->malformed) {
            /* phase 0 would have found it before checking anything: that
               error alone, as then */
            pto_loc none = {0, 0, 0};
            pto__diag_truncate(v->ctx, &mk);
            pto_error(v->ctx, none, "internal error: malformed statement lists");
        }
    }
    if (!v->internal) pto__vpipes(v, k);
    if (!v->internal && k->kind == PTO_KK_MIX && v->m->n_cvpipes > 0 && v->ctx->n_errors == ne0) pto__vpipe_unused(v);
    /* the GM checks between cores: a kernel that waits on a signal may order them, and is left out */
    if (!v->internal && !v->malformed && (v->nblocks > 1 || k->kind == PTO_KK_MIX) &&
        !(v->waits_unsure ? pto__vwaits(v->m, k->body, 0) : v->waits)) {
        if (v->nblocks > 1 && v->waits_unsure) pto__vsame_window(v, k->body, PTO_E_BLOCK, 0);
        else if (v->nblocks > 1) pto__vsame_stores(v, k->body, PTO_E_BLOCK);
        if (k->kind == PTO_KK_MIX && v->waits_unsure) pto__vsame_window(v, k->body, PTO_E_SUBBLOCK, 0);
        else if (k->kind == PTO_KK_MIX) pto__vsame_stores(v, k->body, PTO_E_SUBBLOCK);
        if (k->kind == PTO_KK_MIX && v->ctx->n_errors == ne0) pto__vxcore_gm(v, k);
        if (v->nblocks > 1 && v->ctx->n_errors == ne0) pto__vxblock_gm(v, k);
    }
    if (!k->ranks && !v->ranks_err) {
        /* peers address a window: a forgotten 'ranks'? (it still compiles; a kernel that
           uses a peer's copy, rank or a comm op is already an error that says so: only then
           is the warning left out, as other errors do not touch it) */
        int32_t i;
        for (i = k->param0; i < k->param0 + k->nparams; i++)
            if (v->m->params[i].kind == PTO_P_TENSOR && v->m->params[i].window)
                pto_warning(v->ctx, v->m->params[i].loc, "'%s' is window but kernel '%s' is not a ranks kernel "
                            "(no peer can address it)", pto__vname(v, v->m->params[i].name), kn);
    }
    pto__vparams(v, k, 0);
}

static void pto__vfree(pto__verifier *v)
{
    void *ps[] = {v->endpos, v->pwritten, v->psig, v->tflags, v->tdepth, v->wfirst, v->wlast, v->wcur, v->tvalid, v->w,
                  v->vlive, v->vrange, v->vifdepth, v->vlo, v->vhi, v->vstart, v->vstep, v->vform, v->nkind, v->nid,
                  v->kname, v->loops, v->wlog, v->ifmark, v->stores, v->decls, v->kerr};
    size_t i;
    for (i = 0; i < sizeof ps / sizeof ps[0]; i++) pto_free(v->ctx, ps[i]);
}

static int pto__valloc(pto__verifier *v)
{
    const pto_module *m = v->m;
    size_t nt = (size_t)m->n_tiles, nv = (size_t)m->n_vars, nn;
    v->n_names = v->ctx->n_strs;
    nn = (size_t)v->n_names;
    /* (phase 0's arrays: pto__vcollect_kernel, when first needed) */
    v->pwritten = (uint8_t *)pto__vcalloc(v, (size_t)m->n_params, 1);
    v->psig = (int32_t *)pto__vcalloc(v, 2 * (size_t)m->n_params, sizeof(int32_t));
    v->tflags = (uint8_t *)pto__vcalloc(v, nt, 1);
    v->tdepth = (int32_t *)pto__vcalloc(v, nt, sizeof(int32_t));
    /* a tile's forms are set when its declaration comes into scope
       (pto__vtile_valid, only for tiles with a valid(...) clause: see
       pto__vvalid), before any operand can name it */
    v->tvalid = (pto__vform *)pto__vuninit(v, 2 * nt, sizeof(pto__vform));
    v->vlive = (uint8_t *)pto__vcalloc(v, nv, 1);
    v->vrange = (uint8_t *)pto__vcalloc(v, nv, 1);
    v->vifdepth = (int32_t *)pto__vcalloc(v, nv, sizeof(int32_t));
    v->vlo = (int64_t *)pto__vcalloc(v, nv, sizeof(int64_t));
    v->vhi = (int64_t *)pto__vcalloc(v, nv, sizeof(int64_t));
    v->vstart = (int64_t *)pto__vcalloc(v, nv, sizeof(int64_t));
    v->vstep = (int64_t *)pto__vcalloc(v, nv, sizeof(int64_t));
    /* a let's form is set before the let is live (pto__vlet) */
    v->vform = (pto__vform *)pto__vuninit(v, nv, sizeof(pto__vform));
    v->nkind = (uint8_t *)pto__vcalloc(v, nn, 1);
    v->nid = (int32_t *)pto__vcalloc(v, nn, sizeof(int32_t));
    v->kname = (int32_t *)pto__vcalloc(v, nn, sizeof(int32_t));
    v->kerr = (uint8_t *)pto__vcalloc(v, (size_t)m->n_kernels, 1);
    return !v->internal;
}

/* An `out` tensor that no statement of its kernel writes keeps whatever the
   launch left in it, and `ptoc run` still says "match" (both sides keep the
   same bytes): nearly always a forgotten or misdirected tstore. A warning
   at the parameter, once the kernels verified clean. A kernel that writes
   no tensor at all (no out, no inout, on any path: nothing it computes
   leaves the core) draws one warning at the kernel instead. Kernels with
   errors are left out (their writes may be what the error is about); the
   others are judged even when some kernel has an error (review28 L2). */
static void pto__vunwritten(pto__verifier *v)
{
    const pto_module *m = v->m;
    /* phase 1 noted them as it walked the kernels: a statement on no list
       (one the C API unlinked) writes nothing, as in the text the module
       prints (review29 L3) */
    uint8_t *w = m->n_params > 0 ? v->pwritten : NULL;   /* kernels without params: nothing to write */
    int32_t k, p;
    for (k = 0; k < m->n_kernels; k++) {
        const pto_kernel *kk = &m->kernels[k];
        int any = 0;
        if (v->kerr && v->kerr[k]) continue;
        for (p = kk->param0; w && p < kk->param0 + kk->nparams; p++) any |= w[p];
        if (!any) {
            /* nothing reaches GM at all: one warning at the kernel (the
               out tensors' own would only repeat it) */
            pto_warning(v->ctx, kk->loc, "kernel '%s' writes no output: no tstore, tput, tget, notify or allreduce "
                        "writes any of its tensors, so running it changes nothing", pto__vname(v, kk->name));
            continue;
        }
        for (p = kk->param0; p < kk->param0 + kk->nparams; p++)
            if (m->params[p].kind == PTO_P_TENSOR && m->params[p].dir == PTO_OUT && !w[p])
                pto_warning(v->ctx, m->params[p].loc, "'%s' is an 'out' tensor of kernel '%s' but nothing writes it",
                            pto__vname(v, m->params[p].name), pto__vname(v, kk->name));
    }
}

/* host sections are checked by host.c */
static pto_status pto__hs_verify(pto_ctx *ctx, const pto_module *m);

/* ---- names ----
   The parser only makes names of the text's form; the C API takes any
   string, and the emitter writes names into C (and pto_print into text):
   "bad name!" made C that did not compile, and a kernel name that closes
   a C comment put the caller's own C in kernel.c (review20 M1). So every
   name is checked to be one the text could hold: [A-Za-z_][A-Za-z0-9_]*,
   and, for a name in an expression's scope, not a word the expressions
   read (block, blocks, subblock, rank, nranks, min, max, inf, nan: the
   parser's list, pto__reserved_kw). */
/* The reserved words by first byte: a bit per length (they are 3 to 8
   bytes). A name whose bit is clear is none of them without a comparison
   (a strcmp per word and name was a tenth of the verifier on a large
   module). */
typedef struct pto__vreserved { uint16_t len_bits[128]; } pto__vreserved;

static void pto__vreserved_init(pto__vreserved *r)
{
    size_t i;
    memset(r, 0, sizeof *r);
    for (i = 0; i < PTO__NRESERVED; i++) {
        const char *w = pto__ps_kw_text[pto__reserved_kw[i]];
        r->len_bits[(unsigned char)w[0] & 127] |= (uint16_t)(1u << strlen(w));
    }
}

static PTO__V_INLINE int pto__vname_ok(const char *s, int expr_scope, const pto__vreserved *r)
{
    size_t i, n;
    unsigned char c0;
    if (!s || !*s || (s[0] >= '0' && s[0] <= '9')) return 0;
    for (n = 0; s[n]; n++)   /* (the parser's table: letters, digits and _) */
        if (!(pto__ps_cc[(unsigned char)s[n]] & (PTO__CC_ALPHA | PTO__CC_DIGIT))) return 0;
    c0 = (unsigned char)s[0];   /* (a letter or _: below 128) */
    if (!expr_scope || n > 15 || !((r->len_bits[c0 & 127] >> n) & 1)) return 1;
    for (i = 0; i < PTO__NRESERVED; i++) {
        const char *w = pto__ps_kw_text[pto__reserved_kw[i]];
        if (w[0] == s[0] && strcmp(s, w) == 0) return 0;
    }
    return 1;
}

/* expr_scope: a name an expression could read (not a kernel's or a host's,
   which the text allows to be any word: `kernel nan(...)` parses). */
static void pto__vname_bad(pto_ctx *ctx, const char *s, const pto_loc *loc, const char *what, int expr_scope)
{
    char words[120];
    size_t i, n = 0;
    words[0] = 0;   /* (set here, not zeroed per name: the check runs for every name) */
    for (i = 0; expr_scope && i < PTO__NRESERVED && n < sizeof words; i++)
        n += (size_t)snprintf(words + n, sizeof words - n, "%s%s", i == 0 ? "; not " : i + 1 < PTO__NRESERVED ? ", " : " or ",
                              pto__ps_kw_text[pto__reserved_kw[i]]);
    pto_error(ctx, *loc, "%s name '%s' is not a name the .pto text could hold (letters, digits and _, not starting "
              "with a digit%s)", what, s ? s : "", words);
}

/* (in line: every tile's and var's name, the error out of line) */
static PTO__V_INLINE void pto__vname_check(pto_ctx *ctx, const pto_module *m, int32_t name, const pto_loc *loc,
                                           const char *what, int expr_scope, const pto__vreserved *reserved)
{
    const char *s = pto_str(m->ctx, name);
    if (!pto__vname_ok(s, expr_scope, reserved)) pto__vname_bad(ctx, s, loc, what, expr_scope);
}

static void pto__vnames(pto_ctx *ctx, const pto_module *m)
{
    pto__vreserved rw, *r = &rw;
    int32_t i;
    pto__vreserved_init(r);
    for (i = 0; i < m->n_kernels; i++) pto__vname_check(ctx, m, m->kernels[i].name, &m->kernels[i].loc, "kernel", 0, r);
    for (i = 0; i < m->n_params; i++) pto__vname_check(ctx, m, m->params[i].name, &m->params[i].loc, "param", 1, r);
    for (i = 0; i < m->n_tiles; i++) pto__vname_check(ctx, m, m->tiles[i].name, &m->tiles[i].loc, "tile", 1, r);
    for (i = 0; i < m->n_vars; i++) pto__vname_check(ctx, m, m->vars[i].name, &m->vars[i].loc, "variable", 1, r);
    for (i = 0; i < m->n_cvpipes; i++) pto__vname_check(ctx, m, m->cvpipes[i].name, &m->cvpipes[i].loc, "pipe", 1, r);
    for (i = 0; i < m->n_hosts; i++) pto__vname_check(ctx, m, m->hosts[i].name, &m->hosts[i].loc, "host", 0, r);
}

/* ---- the shape of the module's lists and trees ----
   Checked before anything walks them (review29 H1, H2): the builders and
   the relinking calls keep both well formed, but a module written directly
   may not be, and a walk of a malformed one would not end. */

/* No expression tree holds a cycle, and none expands to more than
   PTO__VEXPAND nodes through operands that several nodes share (only a C
   API caller shares them: the parser makes trees), so every recursive walk
   of an expression (this pass, the printer, the emitters, the interpreter)
   ends, in time bounded by that. The builders make a node's operands before
   it (pto_expr_bin refuses an id not made yet), but a pass may point an
   operand at a newer node (sync's rotation when event ids run out), so this
   is a depth-first walk with its own stack, not a check of the ids' order.
   n[e]: 0 not seen, PTO__VE_OPEN on the walk's stack, else e's expanded
   size. Returns the errors reported, or -1 when out of memory. */
#define PTO__VEXPAND ((uint32_t)1 << 20)
#define PTO__VE_OPEN UINT32_MAX

/* The operands of node x that are node ids (out of range ones are
   reported where a statement reads them). */
static int pto__vexpr_ops(const pto_module *m, const pto_expr *x, int32_t ops[2])
{
    int k = 0;
    if (x->kind < PTO_E_ADD || x->kind > PTO_E_NEG) return 0;
    if (x->a >= 0 && x->a < m->n_exprs) ops[k++] = x->a;
    if (x->kind != PTO_E_NEG && x->b >= 0 && x->b < m->n_exprs) ops[k++] = x->b;
    return k;
}

static int pto__vexpr_walk(pto_ctx *ctx, const pto_module *m, int32_t root, uint32_t *n, int32_t *stack)
{
    int32_t sp = 0;
    n[root] = PTO__VE_OPEN;
    stack[sp++] = root;
    while (sp > 0) {
        int32_t t = stack[sp - 1], ops[2];
        const pto_expr *x = &m->exprs[t];
        int k, nops = pto__vexpr_ops(m, x, ops), pushed = 0;
        uint64_t size = 1;
        for (k = 0; k < nops && !pushed; k++) {
            if (n[ops[k]] == PTO__VE_OPEN) {
                pto_error(ctx, x->loc, "malformed expression: node %ld reads node %ld, which leads back to it "
                          "(a cycle; the builders make a node's operands before the node)", (long)t, (long)ops[k]);
                return 1;
            }
            if (n[ops[k]] == 0) {
                n[ops[k]] = PTO__VE_OPEN;
                stack[sp++] = ops[k];
                pushed = 1;
            }
        }
        if (pushed) continue;
        for (k = 0; k < nops; k++) size += n[ops[k]];
        if (size > PTO__VEXPAND) {
            int fresh = 1;   /* the node where it first passes the bound, not every node above it */
            for (k = 0; k < nops; k++) fresh &= n[ops[k]] <= PTO__VEXPAND;
            if (fresh) {
                pto_error(ctx, x->loc, "expression too large: it expands to more than %lu nodes through operands "
                          "that several nodes share", (unsigned long)PTO__VEXPAND);
                return 1;
            }
            size = PTO__VEXPAND + 1;
        }
        n[t] = (uint32_t)size;
        sp--;
    }
    return 0;
}

static int pto__vexprs(pto_ctx *ctx, const pto_module *m)
{
    uint32_t *n;
    int32_t *stack = NULL, e;
    int bad = 0;
    if (m->n_exprs <= 0) return 0;
    n = (uint32_t *)pto_alloc(ctx, (size_t)m->n_exprs * sizeof *n);
    if (!n) return -1;
    for (e = 0; e < m->n_exprs && !bad; e++) {
        const pto_expr *x = &m->exprs[e];
        uint64_t size;
        if (x->kind < PTO_E_ADD || x->kind > PTO_E_NEG) { n[e] = 1; continue; }
        /* the usual case in line: operands older, so their sizes known */
        if (x->a >= 0 && x->a < e && (x->kind == PTO_E_NEG || (x->b >= 0 && x->b < e)) &&
            (size = 1 + (uint64_t)n[x->a] + (x->kind == PTO_E_NEG ? 0 : n[x->b])) <= PTO__VEXPAND) {
            n[e] = (uint32_t)size;
            continue;
        }
        if (!stack && !(stack = (int32_t *)pto_alloc(ctx, (size_t)m->n_exprs * sizeof *stack))) { bad = -1; break; }
        memset(n + e, 0, (size_t)(m->n_exprs - e) * sizeof *n);   /* the walk's "not seen" */
        for (; e < m->n_exprs && !bad; e++)
            if (n[e] == 0) bad = pto__vexpr_walk(ctx, m, e, n, stack);
        break;
    }
    pto_free(ctx, n);
    pto_free(ctx, stack);
    return bad;
}

/* One block's list: from its head along next to its tail, each statement
   in range, naming this block and the one before it (so a cycle or a
   statement on two lists shows), no longer than the module. Returns the
   statements on it, or -1 after an error. */
static int64_t pto__vlist(pto_ctx *ctx, const pto_module *m, int32_t b)
{
    pto_loc none = {0, 0, 0};
    int32_t s, prev = -1;
    int64_t n = 0;
    none.file = m->file;
    for (s = m->blocks[b].head; s >= 0; prev = s, s = m->stmts[s].next) {
        const pto_stmt *st;
        if (s >= m->n_stmts) {
            pto_error(ctx, prev >= 0 ? m->stmts[prev].loc : none, "malformed statement lists: block %ld's list "
                      "reaches statement id %ld, which is out of range (the module has %ld)", (long)b, (long)s,
                      (long)m->n_stmts);
            return -1;
        }
        st = &m->stmts[s];
        if (st->block != b || st->prev != prev || ++n > m->n_stmts) {
            pto_error(ctx, st->loc, "malformed statement lists: statement %ld is on block %ld's list, but %s", (long)s,
                      (long)b, st->block != b ? "names another block (a statement in two lists?)"
                                              : "its previous link does not match (a cycle, or a list spliced twice)");
            return -1;
        }
    }
    if (prev != m->blocks[b].tail) {
        pto_error(ctx, prev >= 0 ? m->stmts[prev].loc : none, "malformed statement lists: block %ld's list ends at "
                  "statement %ld but its tail is %ld", (long)b, (long)prev, (long)m->blocks[b].tail);
        return -1;
    }
    return n;
}

/* Every block's list well formed, and every statement that names a block
   on that block's list (not lost from it: appending a list's head to its
   own end would drop the rest). Returns the errors reported. */
static int pto__vlists(pto_ctx *ctx, const pto_module *m)
{
    int64_t on = 0, named = 0, n;
    int32_t b, s;
    for (b = 0; b < m->n_blocks; b++) {
        if ((n = pto__vlist(ctx, m, b)) < 0) return 1;
        on += n;
    }
    for (s = 0; s < m->n_stmts; s++) {
        int32_t sb = m->stmts[s].block;
        if (sb >= m->n_blocks) {
            pto_error(ctx, m->stmts[s].loc, "malformed statement lists: statement %ld names block %ld, which is out "
                      "of range (the module has %ld)", (long)s, (long)sb, (long)m->n_blocks);
            return 1;
        }
        named += sb >= 0;
    }
    if (named == on) return 0;
    /* (every statement on a list names it: the missing one names a block
       whose list lacks it) */
    for (s = 0; s < m->n_stmts; s++) {
        int32_t sb = m->stmts[s].block, t;
        if (sb < 0) continue;
        for (t = m->blocks[sb].head; t >= 0 && t != s; t = m->stmts[t].next) {}
        if (t != s) {
            pto_error(ctx, m->stmts[s].loc, "malformed statement lists: statement %ld names block %ld but is not on "
                      "its list (lost by a relinking?)", (long)s, (long)sb);
            return 1;
        }
    }
    return 1;
}

PTODEF pto_status pto_verify(pto_ctx *ctx, pto_module *m)
{
    pto__verifier v;
    int before = pto_error_count(ctx);
    int32_t k;
    memset(&v, 0, sizeof v);
    v.ctx = ctx;
    v.m = m;
    v.space_err_stmt = -1;
    if (!m) {
        pto_loc none = {0, 0, 0};
        return pto_error(ctx, none, "pto_verify: the module is NULL");
    }
    m->verified = 0;
    if (m->broken) {
        pto_loc none = {m->file, 0, 0};
        pto_error(ctx, none, "the module is incomplete: %ld builder call(s) were refused or ran out of memory "
                  "(the errors they recorded say which)", (long)m->broken);
        return PTO_ERR_USER;
    }
    if (m->arch >= PTO_NARCH) {
        pto_loc none = {m->file, 0, 0};
        pto_error(ctx, none, "unknown arch %d", (int)m->arch);
        return PTO_ERR_USER;
    }
    if (m->n_kernels == 0) {   /* pto-text.md: a file holds one or more kernels */
        pto_loc top = {m->file, 1, 1};   /* a line, so the message names the file */
        pto_error(ctx, top, "no kernel: a module (a .pto file) holds one or more kernels");
        return PTO_ERR_USER;
    }
    pto__vnames(ctx, m);
    if (pto_error_count(ctx) != before) return PTO_ERR_USER;   /* the rest would quote them */
    {   /* the walks below assume both (and stop only at their guards) */
        int bad = pto__vexprs(ctx, m);
        if (bad < 0) return PTO_ERR_INTERNAL;
        if (bad || pto__vlists(ctx, m)) return PTO_ERR_USER;
    }
    if (pto__valloc(&v))
        for (k = 0; k < m->n_kernels && !v.internal; k++) {
            int ne = pto_error_count(ctx);
            pto__vkernel(&v, k);
            if (v.kerr && pto_error_count(ctx) != ne) v.kerr[k] = 1;
        }
    if (!v.internal && v.kerr) pto__vunwritten(&v);
    pto__vfree(&v);
    if (v.internal) return PTO_ERR_INTERNAL;
    if (pto__hs_verify(ctx, m) == PTO_ERR_INTERNAL) return PTO_ERR_INTERNAL;
    if (pto_error_count(ctx) != before) return PTO_ERR_USER;
    pto__stamp(m);   /* the stamp the later passes require (ir.h) */
    return PTO_OK;
}
