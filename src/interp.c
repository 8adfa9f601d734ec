/* interp.c - the reference interpreter: the oracle every generated kernel is
   compared with, bit for bit. It needs a module whose ids are well formed (as
   the builders make them); it re-checks at run time everything that could
   make it read or write outside a host array or a tile, so an unverified or
   wrong kernel gives a diagnostic, never a crash.

   The reference semantics (the simulator implements exactly the same):

   Launch. The kernel's blocks(EXPR) is evaluated once, with the dims and
   scalars bound, block = 0, blocks = 1, subblock = 0, rank = 0 (no blocks
   clause = 1 block; a count of 0 or less is an error, as ptoc run says it:
   "would launch no block"). Then every block b in
   [0, blocks) runs, in order, with block = b, blocks = the count, subblock = 0.
   A `ranks` kernel runs all of its blocks once per rank, rank-major, with
   rank = r and nranks = launch->nranks (0 means 1); other kernels see rank 0
   and nranks 1. Statements run in program order. A mix kernel's block is a
   cluster: the cube { } section runs once (subblock 0) and the vector { }
   section twice, as AIV 0 and AIV 1 (subblock 0 and 1), each core with its
   own tiles; they exchange tiles only through pipes (bounded FIFOs, see
   pto__exec_cvpipe), run as resumable steps in either order until all
   finish, and a round where none can go on is a deadlock error. set_flag,
   wait_flag and pipe_barrier do nothing here.

   Bindings. Dynamic dims and scalar params take their values from
   launch->bindings by name (bindings naming nothing are ignored). Every
   dynamic dim must be bound, to an integer in [0, 2^31): a tensor's shape
   needs it. A scalar must be bound only if it is used; used in an integer
   expression its value must be an integer.

   Integer expressions are int64 with C semantics (division truncates, %
   takes the sign of the dividend). Division or modulo by zero, and any
   result that overflows int64, is a runtime error at the expression.

   Loops. start, end and step are evaluated once at loop entry; the body runs
   for i = start, start + step, ... while i < end (start >= end: zero times).
   step must be > 0. if compares two expressions.

   Budget. A launch may run at most launch->max_instr ops (0 means
   PTO_MAX_INSTR_DEFAULT) over all its blocks, cores and ranks; set_flag,
   wait_flag and pipe_barrier do not count (the simulator counts the same
   way, so both stop a runaway at the same point). The next op is an error
   at the innermost loop running (or at the op outside any loop).

   Pipes. Every slot pushed into a cube/vector pipe must be popped by each
   consumer before the block ends; slots left are an error naming the pipe
   and the counts (pto__in_rings_drained).

   Tiles. Each execution of a TILE statement gives the tile fresh storage, all
   zero (a tile read before any write reads zeros; at the start of every
   block every tile is zero). A kernel whose result depends on those zeros
   is wrong on the device, where a planned address holds its previous
   tenant's bytes: the simulator (pto_kernels.h) reports every read of local
   bytes nothing wrote since the launch or the tile's declaration
   (pto_k_tdecl) as an "uninitialised read" error instead of computing a
   different value silently. An xN tile is one buffer here: its slots never
   change values. The valid region valid(vr, vc) is evaluated at the
   declaration and must lie in [0, rows] x [0, cols].

   GM windows. `X[r, c]` names the vr x vc window (the tile operand's valid
   region) whose top-left element is (r, c); `X@p[r, c]` is rank p's copy
   (0 <= p < nranks). A non-empty window that is not inside the tensor is an
   error naming the tensor, the window and the shapes; an empty window (vr or
   vc is 0) touches nothing and is never an error.
   - tload t, X[r, c]: t's valid region gets the window; every other element
     of t becomes 0.  tstore X[r, c], t: writes the valid region only.
   - tload, tstore, tmov and textract copy bits when the dtypes are equal
     (so i32 above 2^24 survives); otherwise the value goes through f32
     (tstore of an f32 acc to an f16 / bf16 tensor: the fixpipe's cast).

   Element values. Every element is read as f32 (pto_elem_get) and written
   with pto_elem_set: f16/bf16 round to nearest even, f32 -> i32/i8 rounds to
   nearest even and saturates (NaN -> 0). An arithmetic result that is NaN
   (+ - * /, texp tlog tsqrt trsqrt trecip, trowsum, tcolsum, matmul) is the
   canonical NaN 0x7fc00000 (pto_nan_canon: C does not fix a NaN result's
   sign or payload); tmax/tmin and the row and column max/min select an
   operand and tabs/tneg touch only the sign, so they keep NaN bits. Arithmetic is f32 with no fused
   multiply-add: each product is its own statement, so contraction within an
   expression (clang's default) cannot apply; build with -ffp-contract=off
   where the compiler contracts across statements (gcc in GNU mode).
   On i32/i8 tiles tadd tsub tmul tmax tmin, their scalar forms, tabs tneg
   trelu, texpands, the row / column reductions (the sums in int64) and the
   row / column broadcasts but the div ones are exact integer operations
   (numerics.h: in int64, stored wrapped to the dtype, two's complement,
   as the device's integer overflow wraps); tdiv and trowexpanddiv /
   tcolexpanddiv go through f32 (exact below 2^24).

   Vector ops compute over the DESTINATION's valid region; elements outside it
   keep their values. Sources are read at the same (r, c) and must have the
   destination's shape.
   - tadd tsub tmul tdiv: a + b, a - b, a * b, a / b.  The *s forms use the
     scalar as b, converted to the destination's dtype first, as pto-isa's
     TADDS .. TMINS take it (pto_scalar_as: f32 rounds, f16/bf16 round to
     nearest even, i32/i8 truncate toward zero); texpands fills with the same.
   - tmax(a, b) = a if a is NaN, else b if b is NaN, else (a >= b ? a : b);
     tmin the same with <=. So a NaN operand propagates (the first NaN wins)
     and equal values (+0 and -0 too) give a.
   - texp tlog tsqrt: expf logf sqrtf. trsqrt = 1.0f / sqrtf(x).
     trecip = 1.0f / x. tabs = fabsf. tneg = -x as a sign-bit flip
     (pto_fneg: it flips the sign of 0 and NaN whatever the compiler).
     trelu = x > 0 ? x : +0.0f, so trelu(-0.0) = +0.0 and trelu(NaN) = +0.0.
   - texpands d, s: every valid element of d = s as the *s forms convert it.
   - trowsum/trowmax/trowmin d, a: d is [R, 1]; for each valid row r of d,
     reduce a[r, 0 .. a.valid_c) left to right in f32: the sum starts at 0.0f
     and adds; max/min start at the first element and apply tmax/tmin (an
     empty row gives -inf for max, +inf for min). Like every vector op it
     writes only d's valid region: nothing when d has valid(R, 0). On an
     i32 / i8 tile the same in int64, exactly, stored wrapped (an empty
     row's max / min: the dtype's least / greatest value).
   - trowexpand{add,sub,mul,div} d, a, v: d[r, c] = a[r, c] op v[r, 0].
   - tcolsum/tcolmax/tcolmin d, a: d is [1, C]; for each valid column c of
     d (when d's valid rows are not 0), reduce a[0 .. a.valid_r, c] top to
     bottom in f32, the order of pto-isa's sequential TCOLSUM / TCOLMAX /
     TCOLMIN (the first row, then each next row combined into it): the sum
     is ((a[0][c] + a[1][c]) + a[2][c]) + ... and a NaN sum is the
     canonical NaN; max/min apply tmax/tmin down the rows. No valid rows
     give 0.0f for the sum, -inf for max, +inf for min. i32 / i8 tiles:
     exact in int64, stored wrapped, as trowsum.
   - tcolexpand{add,sub,mul,div} d, a, v: d[r, c] = a[r, c] op v[0, c]
     (v is [1, C]; the verifier wants v's valid cols to cover d's).
   - tcvt d, a: read as f32, write with d's rounding (pto_cvt_set: f16 ->
     i8 keeps the low 8 bits of the rounded value, as the device's default
     non-saturating narrowing does; other pairs saturate).
   - tmov d, a: copies d's valid region from the same positions of a (any
     spaces; acc -> vec rounds f32 to d's dtype).
   - textract d, a, r, c: d[i][j] = a[r + i][c + j] over the full shape of d;
     the window must lie inside a.
   - tmatmul c, a, b (shapes a [R, C], b [C, N'], c [R, N']): pto-isa's
     TMATMUL domain, M = a's valid rows, K = a's valid cols, N = b's valid
     cols (each in 1..4095, which the device asserts: else an error, as in
     the simulator): for each c[i][j] with i < M, j < N, acc = 0.0f (tmatmul_acc: c's
     current value), then for k < K ascending: p = a[i][k] * b[k][j]; acc =
     acc + p; in f32; then c[i][j] = acc, rounded to c's dtype (i8 x i8 -> i32:
     the same in int64, exactly, stored wrapped, as the cube's integer
     MACs; numerics.h pto_el_mm_i8). The rest of
     c keeps its values (the device's cube works in whole fractals there:
     store only c's M x N).

   Errors are pto_error diagnostics at the statement (or, inside an
   expression, at the expression), followed by a note naming the block (and
   rank) that failed; pto_interp then returns PTO_ERR_USER and stops. Host
   arrays outside the written windows are never touched.

   Speed: expressions read an env array indexed by var id; every tile of the
   kernel lives in one arena allocated once; matmul converts its operands to
   f32 scratch once per op. Nothing is allocated per element or per block. */

enum { PTO__UNBOUND, PTO__BOUND, PTO__NOTINT };

#define PTO__MAX_TILE_BYTES ((int64_t)1 << 28)
#define PTO__MAX_DEPTH 200

typedef struct pto__itile {
    unsigned char *data;   /* rows * cols elements of the tile's dtype; NULL: not this kernel's */
    int64_t vr, vc;        /* valid region of the latest declaration */
} pto__itile;

typedef struct pto__interp {
    pto_ctx *ctx;
    const pto_module *m;
    const pto_launch *L;
    const pto_kernel *k;
    int64_t *env;          /* per var: its integer value */
    uint8_t *state;        /* per var: PTO__UNBOUND / PTO__BOUND / PTO__NOTINT */
    double *sval;          /* per var: a scalar param's value */
    pto__itile *tiles;     /* per tile id */
    unsigned char *arena;  /* the kernel's tiles */
    size_t arena_size;
    float *scratch;        /* matmul operands in f32 */
    int64_t (*shape)[2];   /* per kernel param: its extents */
    int64_t block, blocks, rank, nranks;
    int oom;
    /* mix kernels: the three cores of a cluster, resumable by replay */
    int64_t subblock;
    int core;              /* pto_core of the section running */
    pto__itile *ctiles[3]; /* per core (cube, aiv0, aiv1): its own tile storage */
    struct pto__iring *rings; /* per cvpipe id */
    int64_t step, done;    /* ops and tile decls passed / already run by earlier visits */
    int32_t cvblocked;     /* the pipe op that could not go on, or -1 */
    int fail_core;         /* the cluster core (0 cube, 1 AIV 0, 2 AIV 1) an error stopped, or -1 */
    /* ranks kernels run as resumable steps (pto__in_ranks): */
    int stepping;          /* set: wait and allreduce may block */
    int blocked;           /* the op just run could not go on (the step stays on it) */
    int ar;                /* allreduce: 0 none, 1 arrived (waits for every rank), 2 done */
    /* the instruction budget (pto_launch.max_instr), shared by every rank */
    int64_t *ninstr, max_instr;
    int32_t loop;          /* the innermost FOR running, or -1 */
    int32_t *ar_of;        /* per param of the kernel: its allreduce, or -1 (pto__in_ar_of; NULL until asked) */
} pto__interp;

/* One cube/vector pipe: its slots and per-direction counters (k 0 = c2v,
   1 = v2c; index me = the subblock on the vector side, 0 on the cube). */
typedef struct pto__iring {
    unsigned char *slots;  /* 2 * slot_num slots: direction k uses [k * slot_num, ...) */
    int64_t pushed[2][2], popped[2][2], freed[2][2];
} pto__iring;

static int pto__fail(pto__interp *I, pto_loc loc, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pto_error(I->ctx, loc, "%s", msg);
    return 0;
}

static const char *pto__in_vname(const pto__interp *I, int32_t v)
{
    return pto_str(I->ctx, I->m->vars[v].name);
}

/* ---- integer expressions ---- */

static int pto__eval(pto__interp *I, int32_t e, int64_t *out, int depth);

static int pto__eval_var(pto__interp *I, const pto_expr *x, int64_t *out)
{
    int32_t v = x->a;
    if (v < 0 || v >= I->m->n_vars) return pto__fail(I, x->loc, "malformed variable reference");
    if (I->state[v] == PTO__BOUND) {
        *out = I->env[v];
        return 1;
    }
    if (I->state[v] == PTO__NOTINT)
        return pto__fail(I, x->loc, "scalar '%s' = %g is used as an integer", pto__in_vname(I, v), I->sval[v]);
    if (I->m->vars[v].kind == PTO_V_SCALAR || I->m->vars[v].kind == PTO_V_DIM)
        return pto__fail(I, x->loc, "'%s' has no binding in the launch", pto__in_vname(I, v));
    return pto__fail(I, x->loc, "'%s' is used before it is defined", pto__in_vname(I, v));
}

static int pto__in_overflow(pto__interp *I, const pto_expr *x)
{
    return pto__fail(I, x->loc, "integer overflow in expression");
}

static int pto__arith(pto__interp *I, const pto_expr *x, int64_t a, int64_t b, int64_t *out)
{
    switch (x->kind) {
    case PTO_E_ADD:
        if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return pto__in_overflow(I, x);
        *out = a + b;
        return 1;
    case PTO_E_SUB:
        if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return pto__in_overflow(I, x);
        *out = a - b;
        return 1;
    case PTO_E_MUL:
        if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
                  : (b > 0 ? a < INT64_MIN / b : (a != 0 && b < INT64_MAX / a)))
            return pto__in_overflow(I, x);
        *out = a * b;
        return 1;
    case PTO_E_DIV:
        if (b == 0) return pto__fail(I, x->loc, "division by zero");
        if (a == INT64_MIN && b == -1) return pto__in_overflow(I, x);
        *out = a / b;
        return 1;
    case PTO_E_MOD:
        if (b == 0) return pto__fail(I, x->loc, "modulo by zero");
        *out = b == -1 ? 0 : a % b;
        return 1;
    case PTO_E_MIN: *out = a < b ? a : b; return 1;
    case PTO_E_MAX: *out = a > b ? a : b; return 1;
    default: return pto__fail(I, x->loc, "malformed expression");
    }
}

static int pto__eval(pto__interp *I, int32_t e, int64_t *out, int depth)
{
    const pto_expr *x;
    int64_t a, b;
    pto_loc none = {0, 0, 0};
    if (e < 0 || e >= I->m->n_exprs) return pto__fail(I, none, "malformed expression");
    x = &I->m->exprs[e];
    if (depth > PTO__MAX_DEPTH) return pto__fail(I, x->loc, "expression nested too deeply");
    switch (x->kind) {
    case PTO_E_INT: *out = x->value; return 1;
    case PTO_E_VAR: return pto__eval_var(I, x, out);
    case PTO_E_BLOCK: *out = I->block; return 1;
    case PTO_E_BLOCKS: *out = I->blocks; return 1;
    case PTO_E_SUBBLOCK: *out = I->subblock; return 1;
    case PTO_E_RANK: *out = I->rank; return 1;
    case PTO_E_NRANKS: *out = I->nranks; return 1;
    case PTO_E_NEG:
        if (!pto__eval(I, x->a, &a, depth + 1)) return 0;
        if (a == INT64_MIN) return pto__in_overflow(I, x);
        *out = -a;
        return 1;
    default:
        if (!pto__eval(I, x->a, &a, depth + 1) || !pto__eval(I, x->b, &b, depth + 1)) return 0;
        return pto__arith(I, x, a, b, out);
    }
}

/* ---- element arithmetic (the rules in the overview) ---- */

/* op is one of TADD .. TMIN (numerics.h holds the arithmetic). */
static float pto__binop(int op, float a, float b) { return pto_el_bin(op - PTO_OP_TADD, a, b); }
/* A binary or broadcast op's element: a division as the device divides
   into the destination's dtype (numerics.h), the rest by pto__binop. */
static float pto__div_or(int op, int ddt, float a, float b) { return pto_el_bin_into(op - PTO_OP_TADD, ddt, a, b); }

/* op is one of TEXP .. TRELU. */
static float pto__unop(int op, float x) { return pto_el_un(op - PTO_OP_TEXP, x); }

/* ---- operands ---- */

/* A tile operand of this kernel with its declaration. */
typedef struct pto__top {
    const pto_tile *t;
    pto__itile *it;
} pto__top;

static int pto__tile_arg(pto__interp *I, int32_t s, int i, pto__top *out)
{
    const pto_operand *o = pto_stmt_arg(I->m, s, i);
    const pto_stmt *st = &I->m->stmts[s];
    const char *op = pto_opinfo_get((pto_op)st->op)->name;
    if (!o || o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= I->m->n_tiles || !I->tiles[o->ref].data)
        return pto__fail(I, st->loc, "%s: operand %d must be a tile of this kernel", op, i + 1);
    out->t = &I->m->tiles[o->ref];
    out->it = &I->tiles[o->ref];
    return 1;
}

static const char *pto__in_tname(const pto__interp *I, const pto__top *t)
{
    return pto_str(I->ctx, t->t->name);
}

/* b must be [rows, cols] (cols < 0: any cols); d names the tile it must match. */
static int pto__same_shape(pto__interp *I, int32_t s, const pto__top *d, const pto__top *b, int32_t rows,
                           int32_t cols)
{
    if (b->t->rows == rows && (cols < 0 || b->t->cols == cols)) return 1;
    return pto__fail(I, I->m->stmts[s].loc, "%s: tile '%s' is [%d, %d], expected [%d, %d] to match '%s'",
                     pto_opinfo_get((pto_op)I->m->stmts[s].op)->name, pto__in_tname(I, b), (int)b->t->rows,
                     (int)b->t->cols, (int)rows, (int)(cols < 0 ? b->t->cols : cols), pto__in_tname(I, d));
}

/* Operand i of statement s, a scalar, as the destination's dtype takes it
   (pto_scalar_as: the device converts it to the tile's element type). */
static int pto__scalar_arg(pto__interp *I, int32_t s, int i, int dtype, float *out)
{
    const pto_operand *o = pto_stmt_arg(I->m, s, i);
    const pto_stmt *st = &I->m->stmts[s];
    int64_t v;
    if (o && o->kind == PTO_O_FLOAT) {
        *out = pto_scalar_as(dtype, o->f);
        return 1;
    }
    if (o && o->kind == PTO_O_INT) {
        if (!pto__eval(I, o->e[0], &v, 0)) return 0;
        *out = pto_scalar_as(dtype, (double)v);
        return 1;
    }
    if (o && o->kind == PTO_O_SCALAR && o->ref >= 0 && o->ref < I->m->n_vars) {
        if (I->state[o->ref] == PTO__UNBOUND)
            return pto__fail(I, o->loc, "'%s' has no binding in the launch", pto__in_vname(I, o->ref));
        *out = pto_scalar_as(dtype, I->sval[o->ref]);
        return 1;
    }
    return pto__fail(I, st->loc, "%s: operand %d must be a scalar", pto_opinfo_get((pto_op)st->op)->name, i + 1);
}

/* A resolved GM window: the host array of one rank and the top-left corner. */
typedef struct pto__win {
    unsigned char *base;
    int dtype;
    int64_t d1, r, c;
} pto__win;

static int pto__window(pto__interp *I, int32_t s, int i, int64_t nr, int64_t nc, pto__win *w)
{
    const pto_operand *o = pto_stmt_arg(I->m, s, i);
    const pto_stmt *st = &I->m->stmts[s];
    const char *op = pto_opinfo_get((pto_op)st->op)->name, *name;
    const pto_param *p;
    int64_t rank = I->rank, pi;
    char rk[32] = "";
    if (!o || o->kind != PTO_O_GM || o->ref < I->k->param0 || o->ref >= I->k->param0 + I->k->nparams ||
        I->m->params[o->ref].kind != PTO_P_TENSOR)
        return pto__fail(I, st->loc, "%s: operand %d must be a window of a tensor param", op, i + 1);
    p = &I->m->params[o->ref];
    pi = o->ref - I->k->param0;
    name = pto_str(I->ctx, p->name);
    if (!pto__eval(I, o->e[0], &w->r, 0) || !pto__eval(I, o->e[1], &w->c, 0)) return 0;
    if (o->e[2] >= 0) {
        if (!pto__eval(I, o->e[2], &rank, 0)) return 0;
        if (rank < 0 || rank >= I->nranks)
            return pto__fail(I, st->loc, "%s: rank %lld of %s@%lld is outside [0, %lld)", op, (long long)rank,
                             name, (long long)rank, (long long)I->nranks);
        snprintf(rk, sizeof rk, "@%lld", (long long)rank);
    }
    if (nr > 0 && nc > 0 &&
        (w->r < 0 || w->c < 0 || w->r > I->shape[pi][0] - nr || w->c > I->shape[pi][1] - nc))
        return pto__fail(I, st->loc, "%s: window %s%s[%lld, %lld] of shape [%lld, %lld] is outside tensor '%s' of shape [%lld, %lld]",
                         op, name, rk, (long long)w->r, (long long)w->c, (long long)nr, (long long)nc, name,
                         (long long)I->shape[pi][0], (long long)I->shape[pi][1]);
    w->base = (unsigned char *)I->L->tensors[rank * I->k->nparams + pi];
    w->dtype = p->dtype;
    w->d1 = I->shape[pi][1];
    return 1;
}

/* Copies an nr x nc block: element (i, j) of src (row stride ss, dtype sd)
   to (i, j) of dst (row stride ds, dtype dd). Equal dtypes copy bits. */
static void pto__copy(unsigned char *dst, int dd, int64_t ds, const unsigned char *src, int sd, int64_t ss,
                      int64_t nr, int64_t nc)
{
    int64_t i, j;
    size_t es = (size_t)pto_dtype_size((pto_dtype)dd);
    if (nr <= 0 || nc <= 0) return;
    for (i = 0; i < nr; i++) {
        if (dd == sd) {
            memcpy(dst + (size_t)(i * ds) * es, src + (size_t)(i * ss) * es, (size_t)nc * es);
            continue;
        }
        for (j = 0; j < nc; j++) pto_elem_set(dst, dd, i * ds + j, pto_elem_get(src, sd, i * ss + j));
    }
}

/* ---- op classes ---- */

static int pto__exec_load(pto__interp *I, int32_t s)
{
    pto__top t;
    pto__win w;
    if (!pto__tile_arg(I, s, 0, &t) || !pto__window(I, s, 1, t.it->vr, t.it->vc, &w)) return 0;
    if (t.it->vr < t.t->rows || t.it->vc < t.t->cols) memset(t.it->data, 0, (size_t)pto_tile_bytes(t.t));
    if (t.it->vr > 0 && t.it->vc > 0)
        pto__copy(t.it->data, t.t->dtype, t.t->cols, w.base + (size_t)(w.r * w.d1 + w.c) * (size_t)pto_dtype_size((pto_dtype)w.dtype),
                  w.dtype, w.d1, t.it->vr, t.it->vc);
    return 1;
}

static int pto__exec_store(pto__interp *I, int32_t s)
{
    pto__top t;
    pto__win w;
    if (!pto__tile_arg(I, s, 1, &t) || !pto__window(I, s, 0, t.it->vr, t.it->vc, &w)) return 0;
    if (t.it->vr > 0 && t.it->vc > 0)
        pto__copy(w.base + (size_t)(w.r * w.d1 + w.c) * (size_t)pto_dtype_size((pto_dtype)w.dtype), w.dtype, w.d1,
                  t.it->data, t.t->dtype, t.t->cols, t.it->vr, t.it->vc);
    return 1;
}

/* tadd .. tmin, tadds .. tmins, unary ops, texpands, tcvt, vec->vec tmov:
   d's valid region from a (and b or the scalar) at the same positions. */
static int pto__exec_map(pto__interp *I, int32_t s, pto_opclass cls)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top d, a, b;
    float sc = 0.0f;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int op = st->op;
    int64_t r, c, cols;
    if (!pto__tile_arg(I, s, 0, &d)) return 0;
    if (cls != PTO_OC_FILL && (!pto__tile_arg(I, s, 1, &a) || !pto__same_shape(I, s, &d, &a, d.t->rows, d.t->cols)))
        return 0;
    if (cls == PTO_OC_BIN && (!pto__tile_arg(I, s, 2, &b) || !pto__same_shape(I, s, &d, &b, d.t->rows, d.t->cols)))
        return 0;
    if (cls == PTO_OC_BINS && !pto__scalar_arg(I, s, 2, d.t->dtype, &sc)) return 0;
    if (cls == PTO_OC_FILL && !pto__scalar_arg(I, s, 1, d.t->dtype, &sc)) return 0;
    if (cls == PTO_OC_BINS) op -= PTO_OP_TADDS - PTO_OP_TADD;
    cols = d.t->cols;
    if (pto_el_int_op(d.t->dtype, cls == PTO_OC_FILL ? -100 : cls == PTO_OC_UN ? -1 - (op - PTO_OP_TEXP)
                                   : cls == PTO_OC_BIN || cls == PTO_OC_BINS ? op - PTO_OP_TADD : -50)
        && (cls == PTO_OC_FILL || a.t->dtype == d.t->dtype) && (cls != PTO_OC_BIN || b.t->dtype == d.t->dtype)) {
        /* an integer tile: exact integer arithmetic (numerics.h) */
        int64_t si = 0;
        if (cls == PTO_OC_BINS || cls == PTO_OC_FILL) {
            const pto_operand *o = pto_stmt_arg(I->m, s, cls == PTO_OC_FILL ? 1 : 2);
            int64_t v;
            if (o->kind == PTO_O_FLOAT) si = pto_scalar_asi(d.t->dtype, o->f);
            else if (o->kind == PTO_O_INT) {
                if (!pto__eval(I, o->e[0], &v, 0)) return 0;
                si = pto_scalar_asi(d.t->dtype, (double)v);
            } else si = pto_scalar_asi(d.t->dtype, I->sval[o->ref]);   /* bound: pto__scalar_arg checked */
        }
        for (r = 0; r < d.it->vr; r++)
            for (c = 0; c < d.it->vc; c++) {
                int64_t i = r * cols + c, x = cls == PTO_OC_FILL ? si : pto_elem_geti(a.it->data, a.t->dtype, i), y;
                if (cls == PTO_OC_BIN) y = pto_el_bin_i(op - PTO_OP_TADD, x, pto_elem_geti(b.it->data, b.t->dtype, i));
                else if (cls == PTO_OC_BINS) y = pto_el_bin_i(op - PTO_OP_TADD, x, si);
                else if (cls == PTO_OC_UN) y = pto_el_un_i(op - PTO_OP_TEXP, x);
                else y = x;
                pto_elem_seti(d.it->data, d.t->dtype, i, y);
            }
        return 1;
    }
    for (r = 0; r < d.it->vr; r++) {
        for (c = 0; c < d.it->vc; c++) {
            int64_t i = r * cols + c;
            float x = cls == PTO_OC_FILL ? sc : pto_elem_get(a.it->data, a.t->dtype, i), y;
            switch (cls) {
            case PTO_OC_BIN: y = pto__div_or(op, d.t->dtype, x, pto_elem_get(b.it->data, b.t->dtype, i)); break;
            case PTO_OC_BINS: y = op == PTO_OP_TDIV ? pto_el_div(d.t->dtype, x, sc, 1) : pto__binop(op, x, sc); break;
            case PTO_OC_UN: y = pto__unop(op, x); break;
            default: y = x; break; /* fill, cvt, mov */
            }
            if (cls == PTO_OC_CVT) pto_cvt_set(d.it->data, d.t->dtype, a.t->dtype, i, y);
            else pto_elem_set(d.it->data, d.t->dtype, i, y);
        }
    }
    return 1;
}

/* tmov: d's valid region from the same positions of a; equal dtypes copy bits. */
static int pto__exec_mov(pto__interp *I, int32_t s)
{
    pto__top d, a;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a) ||
        !pto__same_shape(I, s, &d, &a, d.t->rows, d.t->cols))
        return 0;
    pto__copy(d.it->data, d.t->dtype, d.t->cols, a.it->data, a.t->dtype, a.t->cols, d.it->vr, d.it->vc);
    return 1;
}

/* ttrans d, a: d[c, r] = a[r, c] over a's valid region, element bits as
   they are (pto-isa's TTRANS moves elements, it converts nothing). */
static int pto__exec_trans(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top d, a;
    int64_t r, c;
    size_t es;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a)) return 0;
    if (d.t->rows != a.t->cols || d.t->cols != a.t->rows || d.t->dtype != a.t->dtype)
        return pto__fail(I, st->loc, "ttrans: '%s' is not '%s' transposed", pto__in_tname(I, &d), pto__in_tname(I, &a));
    /* the verifier checks what it knows statically; a launch-time region reaches here */
    if (d.it->vr != a.it->vc || d.it->vc != a.it->vr)
        return pto__fail(I, st->loc, "ttrans: '%s' has valid region [%lld, %lld] but '%s' has [%lld, %lld]: the transpose "
                         "of a source's valid region is its result's", pto__in_tname(I, &d), (long long)d.it->vr,
                         (long long)d.it->vc, pto__in_tname(I, &a), (long long)a.it->vr, (long long)a.it->vc);
    es = (size_t)pto_dtype_size((pto_dtype)a.t->dtype);
    for (r = 0; r < a.it->vr; r++)
        for (c = 0; c < a.it->vc; c++)
            memcpy((char *)d.it->data + (size_t)(c * d.t->cols + r) * es, (const char *)a.it->data + (size_t)(r * a.t->cols + c) * es, es);
    return 1;
}

static int pto__exec_rowred(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top d, a;
    int64_t r, c, n;
    int eop = st->op == PTO_OP_TROWSUM ? PTO_EL_ADD : st->op == PTO_OP_TROWMAX ? PTO_EL_MAX : PTO_EL_MIN;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a) ||
        !pto__same_shape(I, s, &a, &d, d.t->rows > a.t->rows ? d.t->rows : a.t->rows, 1))
        return 0;
    /* a d taller than a (`trowsum one, cs`, one: [8, 1] valid(1, 1)) reduces
       a's valid rows, which must be d's (pto-isa's TRowReduceCheck) */
    if (d.t->rows > a.t->rows && d.it->vr != a.it->vr)
        return pto__fail(I, st->loc, "%s: '%s' has %lld valid rows but '%s' has %lld; a row reduction into a taller "
                         "column must have its source's valid rows", pto_opinfo_get((pto_op)st->op)->name,
                         pto__in_tname(I, &d), (long long)d.it->vr, pto__in_tname(I, &a), (long long)a.it->vr);
    n = a.it->vc;
    if (pto_el_int_op(d.t->dtype, eop) && a.t->dtype == d.t->dtype) {
        /* an integer tile: exact (numerics.h) */
        for (r = 0; r < d.it->vr && d.it->vc > 0; r++)
            pto_elem_seti(d.it->data, d.t->dtype, r, pto_el_red_i(eop, a.it->data, a.t->dtype, r * a.t->cols, 1, n));
        return 1;
    }
    for (r = 0; r < d.it->vr && d.it->vc > 0; r++) {
        const void *row = a.it->data;
        int64_t base = r * a.t->cols;
        float acc;
        if (st->op == PTO_OP_TROWSUM) {
            acc = 0.0f;
            for (c = 0; c < n; c++) acc = acc + pto_elem_get(row, a.t->dtype, base + c);
            acc = pto_nan_canon(acc);
        } else if (n == 0) {
            acc = st->op == PTO_OP_TROWMAX ? -INFINITY : INFINITY;
        } else {
            acc = pto_elem_get(row, a.t->dtype, base);
            for (c = 1; c < n; c++)
                acc = pto__binop(st->op == PTO_OP_TROWMAX ? PTO_OP_TMAX : PTO_OP_TMIN, acc,
                                 pto_elem_get(row, a.t->dtype, base + c));
        }
        pto_elem_set(d.it->data, d.t->dtype, r, acc);
    }
    return 1;
}

/* trowexpand* (by_col 0: v is [R, 1], one value per row) and tcolexpand*
   (by_col 1: v is [1, C], one value per column): d = a op v broadcast
   over d's valid region; `first` is the op's ADD, so op - first picks
   add, sub, mul or div. */
static int pto__exec_expand(pto__interp *I, int32_t s, int first, int by_col)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top d, a, v;
    int op = PTO_OP_TADD + (st->op - first);
    int64_t r, c;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a) || !pto__tile_arg(I, s, 2, &v) ||
        !pto__same_shape(I, s, &d, &a, d.t->rows, d.t->cols) ||
        !pto__same_shape(I, s, &d, &v, by_col ? 1 : d.t->rows, by_col ? d.t->cols : 1))
        return 0;
    if (pto_el_int_op(d.t->dtype, op - PTO_OP_TADD) && a.t->dtype == d.t->dtype && v.t->dtype == d.t->dtype) {
        /* an integer tile: exact (numerics.h) */
        for (r = 0; r < d.it->vr; r++)
            for (c = 0; c < d.it->vc; c++) {
                int64_t i = r * d.t->cols + c, y = pto_elem_geti(v.it->data, v.t->dtype, by_col ? c : r);
                pto_elem_seti(d.it->data, d.t->dtype, i,
                              pto_el_bin_i(op - PTO_OP_TADD, pto_elem_geti(a.it->data, a.t->dtype, i), y));
            }
        return 1;
    }
    for (r = 0; r < d.it->vr; r++)
        for (c = 0; c < d.it->vc; c++) {
            int64_t i = r * d.t->cols + c;
            float y = pto_elem_get(v.it->data, v.t->dtype, by_col ? c : r);
            float x = pto_elem_get(a.it->data, a.t->dtype, i);
            pto_elem_set(d.it->data, d.t->dtype, i, pto__div_or(op, d.t->dtype, x, y));
        }
    return 1;
}

static int pto__exec_colred(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top d, a;
    int64_t r, c, n, cols;
    int eop = st->op == PTO_OP_TCOLSUM ? PTO_EL_ADD : st->op == PTO_OP_TCOLMAX ? PTO_EL_MAX : PTO_EL_MIN;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a) ||
        !pto__same_shape(I, s, &a, &d, 1, a.t->cols))
        return 0;
    /* pto-isa asserts equal valid columns (the verifier checks what it knows statically; a
       launch-time region reaches here: review28 H1) */
    if (d.it->vc != a.it->vc)
        return pto__fail(I, st->loc, "%s: '%s' has %lld valid cols but '%s' has %lld: a column reduction's result has "
                         "exactly its source's valid columns (pto-isa asserts it)", pto_opinfo_get((pto_op)st->op)->name,
                         pto__in_tname(I, &d), (long long)d.it->vc, pto__in_tname(I, &a), (long long)a.it->vc);
    n = a.it->vr;
    cols = a.t->cols;
    if (pto_el_int_op(d.t->dtype, eop) && a.t->dtype == d.t->dtype) {
        /* an integer tile: exact (numerics.h) */
        for (c = 0; c < d.it->vc && d.it->vr > 0; c++)
            pto_elem_seti(d.it->data, d.t->dtype, c, pto_el_red_i(eop, a.it->data, a.t->dtype, c, cols, n));
        return 1;
    }
    for (c = 0; c < d.it->vc && d.it->vr > 0; c++) {
        const void *src = a.it->data;
        float acc;
        if (n == 0) {
            acc = st->op == PTO_OP_TCOLSUM ? 0.0f : st->op == PTO_OP_TCOLMAX ? -INFINITY : INFINITY;
        } else {
            acc = pto_elem_get(src, a.t->dtype, c);
            for (r = 1; r < n; r++) {
                float x = pto_elem_get(src, a.t->dtype, r * cols + c);
                acc = st->op == PTO_OP_TCOLSUM ? acc + x
                                               : pto__binop(st->op == PTO_OP_TCOLMAX ? PTO_OP_TMAX : PTO_OP_TMIN, acc, x);
            }
            if (st->op == PTO_OP_TCOLSUM) acc = pto_nan_canon(acc);
        }
        pto_elem_set(d.it->data, d.t->dtype, c, acc);
    }
    return 1;
}

static int pto__exec_extract(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    const pto_operand *orow = pto_stmt_arg(I->m, s, 2), *ocol = pto_stmt_arg(I->m, s, 3);
    pto__top d, a;
    int64_t r, c;
    size_t es;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a)) return 0;
    if (!orow || !ocol || orow->kind != PTO_O_INT || ocol->kind != PTO_O_INT)
        return pto__fail(I, st->loc, "textract: operands 3 and 4 must be integers");
    if (!pto__eval(I, orow->e[0], &r, 0) || !pto__eval(I, ocol->e[0], &c, 0)) return 0;
    if (r < 0 || c < 0 || r > a.t->rows - d.t->rows || c > a.t->cols - d.t->cols)
        return pto__fail(I, st->loc, "textract: window [%lld, %lld] of shape [%d, %d] is outside tile '%s' of shape [%d, %d]",
                         (long long)r, (long long)c, (int)d.t->rows, (int)d.t->cols, pto__in_tname(I, &a),
                         (int)a.t->rows, (int)a.t->cols);
    es = (size_t)pto_dtype_size((pto_dtype)a.t->dtype);
    /* whole 16-row x 32-byte fractals of a (the verifier checks what it knows statically; a
       launch-time step reaches here) */
    if (r % 16 != 0 || (c * (int64_t)es) % 32 != 0)
        return pto__fail(I, st->loc, "textract: offset [%lld, %lld] into '%s' is not whole fractals: offsets into a mat tile "
                         "are multiples of 16 rows and %d cols for %s",
                         (long long)r, (long long)c, pto__in_tname(I, &a), (int)(32 / es),
                         pto_dtype_name((pto_dtype)a.t->dtype));
    pto__copy(d.it->data, d.t->dtype, d.t->cols, a.it->data + (size_t)(r * a.t->cols + c) * es, a.t->dtype,
              a.t->cols, d.t->rows, d.t->cols);
    return 1;
}

/* Converts a whole tile to f32. */
static void pto__to_f32(float *dst, const pto__top *t)
{
    int64_t i, n = (int64_t)t->t->rows * t->t->cols;
    for (i = 0; i < n; i++) dst[i] = pto_elem_get(t->it->data, t->t->dtype, i);
}

static int pto__exec_matmul(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top c, a, b;
    int64_t M, K, N, SA, SB, SC, i, j, k;
    int which;
    float *fa, *fb, *row;
    if (!pto__tile_arg(I, s, 0, &c) || !pto__tile_arg(I, s, 1, &a) || !pto__tile_arg(I, s, 2, &b) ||
        !pto__same_shape(I, s, &c, &a, c.t->rows, -1) || !pto__same_shape(I, s, &a, &b, a.t->cols, c.t->cols))
        return 0;
    /* pto-isa's TMATMUL asserts m, k, n (below) in 1..4095 on the device:
       an empty valid region is an error, as in the simulator */
    if ((which = pto_mm_bad_extent(a.it->vr, a.it->vc, b.it->vc)) >= 0)
        return pto__fail(I, st->loc, "%s: %s (the valid %s of '%s') is %lld; pto-isa's TMATMUL takes m, k and n in "
                         "1..4095 (the device asserts it)", pto_opinfo_get((pto_op)st->op)->name,
                         which == 0 ? "m" : which == 1 ? "k" : "n", which == 0 ? "rows" : "columns",
                         pto__in_tname(I, which == 2 ? &b : &a),
                         (long long)(which == 0 ? a.it->vr : which == 1 ? a.it->vc : b.it->vc));
    /* strides are the stored shapes; the domain is the valid one (pto-isa:
       m, k, n from a's valid rows and cols and b's valid cols) */
    SA = a.t->cols, SB = b.t->cols, SC = c.t->cols;
    M = a.it->vr < c.t->rows ? a.it->vr : c.t->rows;
    K = a.it->vc < b.t->rows ? a.it->vc : b.t->rows;
    N = b.it->vc < c.t->cols ? b.it->vc : c.t->cols;
    if (a.t->dtype == PTO_I8 && b.t->dtype == PTO_I8 && c.t->dtype == PTO_I32) {
        /* the cube's integer products and sums are exact (numerics.h) */
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++)
                pto_elem_seti(c.it->data, c.t->dtype, i * SC + j,
                              pto_el_mm_i8(a.it->data, SA, b.it->data, SB, i, j, K,
                                           st->op == PTO_OP_TMATMUL_ACC ? pto_elem_geti(c.it->data, c.t->dtype, i * SC + j)
                                                                        : 0));
        return 1;
    }
    fa = I->scratch;
    fb = fa + (int64_t)a.t->rows * SA;
    row = fb + (int64_t)b.t->rows * SB;
    pto__to_f32(fa, &a);
    pto__to_f32(fb, &b);
    for (i = 0; i < M; i++) {
        /* i-k-j order: every c[i][j] still sums over k ascending */
        for (j = 0; j < N; j++)
            row[j] = st->op == PTO_OP_TMATMUL_ACC ? pto_elem_get(c.it->data, c.t->dtype, i * SC + j) : 0.0f;
        for (k = 0; k < K; k++) {
            float x = fa[i * SA + k];
            const float *bk = fb + k * SB;
            for (j = 0; j < N; j++) {
                float p = x * bk[j];
                row[j] = row[j] + p;
            }
        }
        for (j = 0; j < N; j++) pto_elem_set(c.it->data, c.t->dtype, i * SC + j, pto_nan_canon(row[j]));
    }
    return 1;
}

/* ---- cube <-> vector pipes ----
   A pipe carries [rows, cols] tiles of its dtype through slot_num slots per
   direction, as the device's rings do. tpush waits while every slot holds
   data not yet released by every consumer (popped on a2a3, freed on a5); tpop waits until every producer
   has pushed the next slot, then copies this core's part (the whole tile on
   the cube; with a split, AIV s gets or gives half s of the rows or
   columns; without one, both AIVs pop the whole tile and only AIV 0 pushes
   into a v2c pipe); tfree releases the oldest popped slot (its local copy; the
   GM slot went back to the producer at the pop on a2a3). Waiting is not
   done here: the op sets I->cvblocked and the section is resumed later. */

static int pto__in_block(pto__interp *I, int32_t s)
{
    I->cvblocked = s;
    return 0;
}

/* Slots consumer `me` of direction k has handed back to the producer: on
   a2a3 every popped one (pto-isa's TPOP frees the slot after its load and
   TFREE is empty), on a5 every freed one. */
static int64_t pto__in_rel1(const pto__interp *I, const pto__iring *r, int k, int me)
{
    return I->m->arch == PTO_ARCH_A5 ? r->freed[k][me] : r->popped[k][me];
}

/* ... by every consumer of direction k (both AIVs consume c2v). */
static int64_t pto__in_released(const pto__interp *I, const pto__iring *r, int k)
{
    int64_t a = pto__in_rel1(I, r, k, 0), b;
    if (k == 1) return a;
    b = pto__in_rel1(I, r, k, 1);
    return a < b ? a : b;
}

static int64_t pto__in_pushed(const pto__iring *r, const pto_cvpipe *q, int k)
{
    if (k == 0 || q->split == PTO_SPLIT_NONE) return r->pushed[k][0];
    return r->pushed[1][0] < r->pushed[1][1] ? r->pushed[1][0] : r->pushed[1][1];
}

/* Copies between tile t and its part of slot n of direction k. */
static void pto__in_slot_copy(pto__interp *I, const pto_cvpipe *q, pto__iring *r, int k, int64_t n, const pto__top *t,
                              int to_slot)
{
    int es = pto_dtype_size((pto_dtype)q->dtype);
    int64_t r0 = 0, c0 = 0, i;
    unsigned char *slot = r->slots + (size_t)((k * q->slot_num + n % q->slot_num) * (int64_t)q->slot_size);
    if (I->core == PTO_CORE_VECTOR && q->split == PTO_SPLIT_UP_DOWN) r0 = I->subblock * t->t->rows;
    if (I->core == PTO_CORE_VECTOR && q->split == PTO_SPLIT_LEFT_RIGHT) c0 = I->subblock * t->t->cols;
    for (i = 0; i < t->t->rows; i++) {
        unsigned char *g = slot + (size_t)(((r0 + i) * q->cols + c0) * es);
        unsigned char *l = t->it->data + (size_t)(i * t->t->cols * es);
        if (to_slot) memcpy(g, l, (size_t)t->t->cols * (size_t)es);
        else memcpy(l, g, (size_t)t->t->cols * (size_t)es);
    }
}

static int pto__exec_cvpipe(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    const pto_operand *o = pto_stmt_arg(I->m, s, st->op == PTO_OP_TPOP ? 1 : 0);
    const pto_cvpipe *q;
    pto__iring *r;
    pto__top t;
    int cube = I->core == PTO_CORE_CUBE, me = cube ? 0 : (int)I->subblock, k;
    int32_t R, C;
    if (!o || o->kind != PTO_O_CVPIPE || o->ref < 0 || o->ref >= I->m->n_cvpipes || !I->rings ||
        I->m->cvpipes[o->ref].kernel != I->L->kernel)
        return pto__fail(I, st->loc, "%s needs a pipe of this mix kernel", pto_opinfo_get((pto_op)st->op)->name);
    q = &I->m->cvpipes[o->ref];
    r = &I->rings[o->ref];
    k = (st->op == PTO_OP_TPUSH) == cube ? 0 : 1;
    if (!(q->dir & (1 << k)))
        return pto__fail(I, st->loc, "%s: pipe '%s' has no %s direction", pto_opinfo_get((pto_op)st->op)->name,
                         pto_str(I->ctx, q->name), k ? "v2c" : "c2v");
    if (st->op == PTO_OP_TFREE) {
        if (r->freed[k][me] >= r->popped[k][me])
            return pto__fail(I, st->loc, "tfree of pipe '%s' without a popped slot to free", pto_str(I->ctx, q->name));
        r->freed[k][me]++;
        return 1;
    }
    if (!pto__tile_arg(I, s, st->op == PTO_OP_TPOP ? 0 : 1, &t)) return 0;
    R = q->rows / (!cube && q->split == PTO_SPLIT_UP_DOWN ? 2 : 1);
    C = q->cols / (!cube && q->split == PTO_SPLIT_LEFT_RIGHT ? 2 : 1);
    if (t.t->dtype != q->dtype || t.t->rows != R || t.t->cols != C)
        return pto__fail(I, st->loc, "%s: tile '%s' does not match pipe '%s'", pto_opinfo_get((pto_op)st->op)->name,
                         pto__in_tname(I, &t), pto_str(I->ctx, q->name));
    if (st->op == PTO_OP_TPUSH) {
        if (k == 1 && q->split == PTO_SPLIT_NONE && me == 1)
            return pto__fail(I, st->loc, "tpush: only AIV 0 (subblock 0) pushes into v2c pipe '%s', which has no split",
                             pto_str(I->ctx, q->name));
        if (r->pushed[k][me] - pto__in_released(I, r, k) >= q->slot_num) return pto__in_block(I, s);
        pto__in_slot_copy(I, q, r, k, r->pushed[k][me], &t, 1);
        r->pushed[k][me]++;
        return 1;
    }
    if (r->popped[k][me] - r->freed[k][me] >= q->local_slot_num)
        return pto__fail(I, st->loc, "tpop of pipe '%s' overwrites a local slot still held (missing tfree)",
                         pto_str(I->ctx, q->name));
    if (pto__in_pushed(r, q, k) <= r->popped[k][me]) return pto__in_block(I, s);
    pto__in_slot_copy(I, q, r, k, r->popped[k][me], &t, 0);
    r->popped[k][me]++;
    return 1;
}

/* ---- communication (hardware.md section 8) ----
   Signals are i32 cells of a tensor; notify sets or adds (wrapping), wait
   holds its rank until `cell CMP value`. tput / tget copy a ROWS x COLS
   window between two GM windows (either may be a peer's). allreduce is one
   collective step here: it waits until every rank has reached an
   allreduce, then every element of X becomes the f32 sum over ranks in rank
   order 0, 1, .., n-1 (the order of the lowering's accumulation, so the two
   agree bit for bit), in every rank's copy; the signal is left alone (the
   lowering leaves it as it found it). */

/* The allreduce of the running kernel whose signal is param p (the first in
   statement order), or -1. The table, one entry per param of the kernel, is
   made at the first question, with one pass over the statements (it was a
   pass per executed [0, 0] notify / wait); 0 when it cannot be allocated. */
static int pto__in_ar_of(pto__interp *I, int32_t p, int32_t *ar)
{
    const pto_module *m = I->m;
    const int32_t kernel = I->L->kernel, p0 = I->k->param0, np = I->k->nparams;
    int32_t i;
    if (!I->ar_of) {
        I->ar_of = (int32_t *)pto_alloc(I->ctx, sizeof(int32_t) * (size_t)(np > 0 ? np : 1));
        if (!I->ar_of) return I->oom = 1, 0;   /* pto_alloc said so */
        for (i = 0; i < np; i++) I->ar_of[i] = -1;
        for (i = 0; i < m->n_stmts; i++) {
            const pto_stmt *st = &m->stmts[i];
            int32_t q;
            if (st->kind != PTO_ST_OP || st->op != PTO_OP_ALLREDUCE || st->nargs < 2 || st->block < 0 ||
                m->blocks[st->block].kernel != kernel)
                continue;
            q = m->operands[st->arg0 + 1].ref - p0;
            if (q >= 0 && q < np && I->ar_of[q] < 0) I->ar_of[q] = i;
        }
    }
    *ar = p >= p0 && p - p0 < np ? I->ar_of[p - p0] : -1;
    return 1;
}

static int pto__in_cell(pto__interp *I, int32_t s, int32_t *val, unsigned char **at)
{
    pto__win w;
    int32_t ar;
    if (!pto__window(I, s, 0, 1, 1, &w)) return 0;
    if (w.dtype != PTO_I32)
        return pto__fail(I, I->m->stmts[s].loc, "%s: a signal must be an i32 tensor",
                         pto_opinfo_get((pto_op)I->m->stmts[s].op)->name);
    /* the verifier refuses a notify / wait on an allreduce's counting cell by constant indices;
       one computed at run time is refused here, at its line (review17: the simulator saw only a
       race at the next allreduce) */
    if (w.r == 0 && w.c == 0 && I->m->stmts[s].origin == PTO_BY_USER) {
        if (!pto__in_ar_of(I, pto_stmt_arg(I->m, s, 0)->ref, &ar)) return 0;
    } else {
        ar = -1;
    }
    if (ar >= 0)
        return pto__fail(I, pto_stmt_arg(I->m, s, 0)->loc,
                         "%s on cell [0, 0] of '%s' (its indices computed at run time), where the allreduce at line %d "
                         "counts its barriers: it breaks their counts; use another cell, e.g. %s[0, 1]",
                         pto_opinfo_get((pto_op)I->m->stmts[s].op)->name,
                         pto_str(I->ctx, I->m->params[pto_stmt_arg(I->m, s, 0)->ref].name),
                         (int)I->m->stmts[ar].loc.line, pto_str(I->ctx, I->m->params[pto_stmt_arg(I->m, s, 0)->ref].name));
    *at = w.base + (size_t)(w.r * w.d1 + w.c) * 4u;
    memcpy(val, *at, 4);
    return 1;
}

static int pto__in_notify(pto__interp *I, int32_t s)
{
    const pto_operand *vo = pto_stmt_arg(I->m, s, 1), *mo = pto_stmt_arg(I->m, s, 2);
    unsigned char *at;
    int32_t cell;
    int64_t v;
    if (!pto__in_cell(I, s, &cell, &at) || !pto__eval(I, vo->e[0], &v, 0)) return 0;
    if (v < -2147483647 - 1 || v > 2147483647)
        return pto__fail(I, vo->loc, "notify: value %lld does not fit an i32 signal", (long long)v);
    cell = mo->ref == PTO_NOTIFY_ADD ? (int32_t)(uint32_t)((uint32_t)cell + (uint32_t)(int32_t)v) : (int32_t)v;
    memcpy(at, &cell, 4);
    return 1;
}

static int pto__in_wait(pto__interp *I, int32_t s)
{
    const pto_operand *co = pto_stmt_arg(I->m, s, 1), *vo = pto_stmt_arg(I->m, s, 2);
    unsigned char *at;
    int32_t cell;
    int64_t v;
    if (!pto__in_cell(I, s, &cell, &at) || !pto__eval(I, vo->e[0], &v, 0)) return 0;
    if (pto__cmp_holds(co->ref, cell, v)) return 1;
    if (!I->stepping) return pto__fail(I, I->m->stmts[s].loc, "wait never returns: nothing else runs (not a ranks kernel)");
    I->blocked = 1;
    return 1;
}

static int pto__in_xfer(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    int64_t nr, nc;
    pto__win d, a;
    size_t es;
    if (!pto__eval(I, pto_stmt_arg(I->m, s, 2)->e[0], &nr, 0) || !pto__eval(I, pto_stmt_arg(I->m, s, 3)->e[0], &nc, 0))
        return 0;
    if (nr < 0 || nc < 0) return pto__fail(I, st->loc, "%s: negative extent", pto_opinfo_get((pto_op)st->op)->name);
    if (!pto__window(I, s, 0, nr, nc, &d) || !pto__window(I, s, 1, nr, nc, &a)) return 0;
    if (d.dtype != a.dtype) return pto__fail(I, st->loc, "%s: the two tensors differ in dtype", pto_opinfo_get((pto_op)st->op)->name);
    if (d.base == a.base && d.r < a.r + nr && a.r < d.r + nr && d.c < a.c + nc && a.c < d.c + nc)
        return pto__fail(I, st->loc, "%s: the source and destination windows overlap", pto_opinfo_get((pto_op)st->op)->name);
    es = (size_t)pto_dtype_size((pto_dtype)d.dtype);
    pto__copy(d.base + (size_t)(d.r * d.d1 + d.c) * es, d.dtype, d.d1, a.base + (size_t)(a.r * a.d1 + a.c) * es, a.dtype,
              a.d1, nr, nc);
    return 1;
}

static int pto__in_allreduce(pto__interp *I, int32_t s)
{
    if (!I->stepping) return pto__fail(I, I->m->stmts[s].loc, "allreduce needs a ranks kernel");
    if (I->ar == 2) {
        I->ar = 0;
        return 1;
    }
    I->ar = 1;
    I->blocked = 1;
    return 1;
}

static int pto__exec_op(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    const pto_opinfo *info = pto_opinfo_get((pto_op)st->op);
    if (st->op >= PTO_NOP) return pto__fail(I, st->loc, "the interpreter does not know op %d", (int)st->op);
    if (st->nargs < info->nargs)
        return pto__fail(I, st->loc, "%s takes %d operands, got %d", info->name, info->nargs, (int)st->nargs);
    switch (info->cls) {
    case PTO_OC_LOAD: return pto__exec_load(I, s);
    case PTO_OC_STORE: return pto__exec_store(I, s);
    case PTO_OC_BIN:
    case PTO_OC_BINS:
    case PTO_OC_UN:
    case PTO_OC_FILL:
    case PTO_OC_CVT: return pto__exec_map(I, s, info->cls);
    case PTO_OC_MOV: return pto__exec_mov(I, s);
    case PTO_OC_ROWRED: return pto__exec_rowred(I, s);
    case PTO_OC_ROWEXP: return pto__exec_expand(I, s, PTO_OP_TROWEXPANDADD, 0);
    case PTO_OC_COLRED: return pto__exec_colred(I, s);
    case PTO_OC_COLEXP: return pto__exec_expand(I, s, PTO_OP_TCOLEXPANDADD, 1);
    case PTO_OC_EXTRACT: return pto__exec_extract(I, s);
    case PTO_OC_MATMUL: return pto__exec_matmul(I, s);
    case PTO_OC_SYNC: return 1;
    case PTO_OC_CVPIPE: return pto__exec_cvpipe(I, s);
    case PTO_OC_NOTIFY: return pto__in_notify(I, s);
    case PTO_OC_WAIT: return pto__in_wait(I, s);
    case PTO_OC_XFER: return pto__in_xfer(I, s);
    case PTO_OC_ALLREDUCE: return pto__in_allreduce(I, s);
    case PTO_OC_FILLPAD: return 1;   /* the isa target's padding fill: tload has zeroed the padding already */
    case PTO_OC_TRANS: return pto__exec_trans(I, s);
    }
    return pto__fail(I, st->loc, "the interpreter cannot run %s", info->name);
}

/* ---- statements ---- */

static int pto__run_list(pto__interp *I, int32_t block);

static int pto__run_tile(pto__interp *I, const pto_stmt *st)
{
    const pto_tile *t = &I->m->tiles[st->ref];
    pto__itile *it = &I->tiles[st->ref];
    int64_t vr = t->rows, vc = t->cols;
    if (!it->data) return pto__fail(I, st->loc, "tile '%s' does not belong to this kernel", pto_str(I->ctx, t->name));
    if (t->valid_r >= 0 && !pto__eval(I, t->valid_r, &vr, 0)) return 0;
    if (t->valid_c >= 0 && !pto__eval(I, t->valid_c, &vc, 0)) return 0;
    if (vr < 0 || vr > t->rows || vc < 0 || vc > t->cols)
        return pto__fail(I, st->loc, "valid region (%lld, %lld) of tile '%s' is outside its shape [%d, %d]",
                         (long long)vr, (long long)vc, pto_str(I->ctx, t->name), (int)t->rows, (int)t->cols);
    memset(it->data, 0, (size_t)pto_tile_bytes(t));
    it->vr = vr;
    it->vc = vc;
    return 1;
}

static int pto__run_for(pto__interp *I, const pto_stmt *st)
{
    int64_t lo, hi, step = 1, i;
    int32_t outer = I->loop;
    if (!pto__eval(I, st->e[0], &lo, 0) || !pto__eval(I, st->e[1], &hi, 0)) return 0;
    if (st->e[2] >= 0 && !pto__eval(I, st->e[2], &step, 0)) return 0;
    if (step <= 0) return pto__fail(I, st->loc, "loop step must be positive, got %lld", (long long)step);
    I->loop = (int32_t)(st - I->m->stmts);
    for (i = lo; i < hi;) {
        I->env[st->ref] = i;
        I->state[st->ref] = PTO__BOUND;
        if (!pto__run_list(I, st->body)) return 0;
        /* the next value must stay below hi, and computing it must not overflow */
        if ((uint64_t)hi - (uint64_t)i <= (uint64_t)step) break;
        i += step;
    }
    I->loop = outer;
    return 1;
}

/* The instruction budget: one more op (not a set_flag / wait_flag /
   pipe_barrier, which the simulator's count leaves out too, and not an op a
   resumed mix section replays). Past the limit the run stops with an error
   at the innermost loop running (a runaway loop is the usual cause). */
static int pto__in_counts(const pto_stmt *st)
{
    return st->kind == PTO_ST_OP && pto_opinfo_get((pto_op)st->op)->cls != PTO_OC_SYNC;
}

static int pto__in_count(pto__interp *I, const pto_stmt *st)
{
    const pto_stmt *at = I->loop >= 0 ? &I->m->stmts[I->loop] : st;
    if (!pto__in_counts(st)) return 1;
    if (++*I->ninstr <= I->max_instr) return 1;
    return pto__fail(I, at->loc,
                     "kernel '%s' ran more than %lld instruction%s (the instruction budget, over every block%s)%s: "
                     "a runaway loop? raise the limit with ptoc run --max-instr N",
                     pto_str(I->ctx, I->k->name), (long long)I->max_instr, I->max_instr == 1 ? "" : "s", I->k->ranks ? " and rank" : "",
                     I->loop >= 0 ? "; this loop was running" : "");
}

static int pto__run_if(pto__interp *I, const pto_stmt *st)
{
    int64_t a, b;
    if (!pto__eval(I, st->e[0], &a, 0) || !pto__eval(I, st->e[1], &b, 0)) return 0;
    if (pto__cmp_holds(st->cmp, a, b)) return pto__run_list(I, st->body);
    return st->orelse >= 0 ? pto__run_list(I, st->orelse) : 1;
}

static int pto__run_stmt(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    int64_t v;
    int ok;
    switch (st->kind) {
    case PTO_ST_OP:
    case PTO_ST_TILE:
        /* a resumed mix section replays its path up to where it stopped */
        if (I->step < I->done) { I->step++; return 1; }
        if (!pto__in_count(I, st)) return 0;
        ok = st->kind == PTO_ST_OP ? pto__exec_op(I, s) : pto__run_tile(I, st);
        if ((I->cvblocked == s || I->blocked) && pto__in_counts(st)) --*I->ninstr;   /* it runs again later */
        if (ok) I->step++;
        return ok;
    case PTO_ST_LET:
        if (!pto__eval(I, st->e[0], &v, 0)) return 0;
        I->env[st->ref] = v;
        I->state[st->ref] = PTO__BOUND;
        return 1;
    case PTO_ST_FOR: return pto__run_for(I, st);
    case PTO_ST_IF: return pto__run_if(I, st);
    case PTO_ST_SECTION: return st->body >= 0 ? pto__run_list(I, st->body) : 1;
    default: return pto__fail(I, st->loc, "malformed statement");
    }
}

static int pto__run_list(pto__interp *I, int32_t block)
{
    int32_t s;
    for (s = I->m->blocks[block].head; s >= 0; s = I->m->stmts[s].next)
        if (!pto__run_stmt(I, s)) return 0;
    return 1;
}

/* ---- launch ---- */

static const pto_binding *pto__find_binding(const pto__interp *I, int32_t v)
{
    const char *name = pto__in_vname(I, v);
    int i;
    for (i = 0; i < I->L->nbindings; i++)
        if (I->L->bindings[i].name && strcmp(I->L->bindings[i].name, name) == 0) return &I->L->bindings[i];
    return NULL;
}

/* Dims and scalars from the bindings; every dynamic dim must be bound. */
static int pto__bind(pto__interp *I, int32_t kernel)
{
    int32_t v;
    for (v = 0; v < I->m->n_vars; v++) {
        const pto_var *var = &I->m->vars[v];
        const pto_binding *b;
        if (var->kernel != kernel || (var->kind != PTO_V_DIM && var->kind != PTO_V_SCALAR)) continue;
        b = pto__find_binding(I, v);
        if (!b) {
            if (var->kind == PTO_V_DIM)
                return pto__fail(I, var->loc, "dynamic dim '%s' has no binding in the launch", pto__in_vname(I, v));
            continue;
        }
        I->sval[v] = b->value;
        if (var->kind == PTO_V_SCALAR && var->def >= 0 && var->def < I->m->n_params &&
            (I->m->params[var->def].dtype == PTO_F16 || I->m->params[var->def].dtype == PTO_BF16))
            /* the kernel holds an f16 / bf16 scalar in its dtype, passed as f32 (review23 L2) */
            I->sval[v] = (double)pto_scalar_as(I->m->params[var->def].dtype, b->value);
        if (var->kind == PTO_V_SCALAR && var->def >= 0 && var->def < I->m->n_params) {
            /* an integer scalar holds an integer of its dtype: the device gets one (2.5 would be 2) */
            int dt = I->m->params[var->def].dtype;
            double lo = pto_int_lo(dt), hi = pto_int_hi(dt);
            if ((dt == PTO_I32 || dt == PTO_I8) && !(b->value >= lo && b->value <= hi && b->value == floor(b->value)))
                return pto__fail(I, var->loc, "scalar '%s' is %s and is bound to %g, not an integer in %.0f..%.0f",
                                 pto__in_vname(I, v), pto_dtype_name((pto_dtype)dt), b->value, lo, hi);
        }
        if (var->kind == PTO_V_DIM && !(b->value >= 0 && b->value < 2147483648.0 && b->value == floor(b->value)))
            return pto__fail(I, var->loc, "dynamic dim '%s' is bound to %g, not an integer in [0, 2^31)",
                             pto__in_vname(I, v), b->value);
        if (b->value == floor(b->value) && fabs(b->value) < 9007199254740992.0) {
            I->env[v] = (int64_t)b->value;
            I->state[v] = PTO__BOUND;
        } else {
            I->state[v] = PTO__NOTINT;
        }
    }
    return 1;
}

/* Tensor shapes and host arrays: every tensor of every rank needs one. */
static int pto__tensors(pto__interp *I)
{
    int32_t i, r;
    for (i = 0; i < I->k->nparams; i++) {
        const pto_param *p = &I->m->params[I->k->param0 + i];
        int d;
        if (p->kind != PTO_P_TENSOR) continue;
        for (d = 0; d < 2; d++)
            I->shape[i][d] = p->dim_var[d] >= 0 ? I->env[p->dim_var[d]] : p->dim[d];
        if (I->shape[i][0] < 0 || I->shape[i][1] < 0)
            return pto__fail(I, p->loc, "tensor '%s' has a negative dim", pto_str(I->ctx, p->name));
        for (r = 0; r < I->nranks; r++)
            if (!I->L->tensors || !I->L->tensors[r * I->k->nparams + i])
                return pto__fail(I, p->loc, "tensor '%s' of rank %d has no host array in the launch",
                                 pto_str(I->ctx, p->name), (int)r);
    }
    return 1;
}

static void *pto__zalloc(pto__interp *I, size_t n)
{
    void *p = pto_alloc(I->ctx, n ? n : 1);
    if (!p) {
        I->oom = 1;
        pto__oom(I->ctx);
        return NULL;
    }
    memset(p, 0, n ? n : 1);
    return p;
}

/* The slots of every pipe of a mix kernel. */
static int pto__alloc_rings(pto__interp *I, int32_t kernel)
{
    int32_t i;
    I->rings = (pto__iring *)pto__zalloc(I, sizeof(pto__iring) * (size_t)(I->m->n_cvpipes ? I->m->n_cvpipes : 1));
    if (!I->rings) return 0;
    for (i = 0; i < I->m->n_cvpipes; i++) {
        const pto_cvpipe *q = &I->m->cvpipes[i];
        if (q->kernel != kernel) continue;
        if (q->slot_num <= 0 || q->slot_size <= 0 || (int64_t)q->slot_num * q->slot_size > PTO__MAX_TILE_BYTES ||
            (int64_t)q->rows * q->cols * pto_dtype_size((pto_dtype)q->dtype) != q->slot_size)
            return pto__fail(I, q->loc, "pipe '%s' cannot be interpreted", pto_str(I->ctx, q->name));
        I->rings[i].slots = (unsigned char *)pto__zalloc(I, (size_t)(2 * q->slot_num) * (size_t)q->slot_size);
        if (!I->rings[i].slots) return 0;
    }
    return 1;
}

/* One arena for every tile of the kernel, and f32 scratch for matmul. */
static int pto__alloc_tiles(pto__interp *I, int32_t kernel)
{
    int32_t t;
    int c, ncores;
    size_t off = 0;
    int64_t maxel = 1;
    for (t = 0; t < I->m->n_tiles; t++) {
        const pto_tile *tl = &I->m->tiles[t];
        int64_t bytes = pto_tile_bytes(tl);
        if (tl->kernel != kernel) continue;
        if (tl->rows <= 0 || tl->cols <= 0 || bytes <= 0 || bytes > PTO__MAX_TILE_BYTES)
            return pto__fail(I, tl->loc, "tile '%s' of shape [%d, %d] cannot be interpreted",
                             pto_str(I->ctx, tl->name), (int)tl->rows, (int)tl->cols);
        off += ((size_t)bytes + 31u) & ~(size_t)31u;
        if ((int64_t)tl->rows * tl->cols > maxel) maxel = (int64_t)tl->rows * tl->cols;
    }
    /* a mix kernel's three cores each get their own copy of every tile */
    ncores = I->k->kind == PTO_KK_MIX ? 3 : 1;
    I->arena_size = off * (size_t)ncores;
    I->arena = (unsigned char *)pto__zalloc(I, I->arena_size);
    I->scratch = (float *)pto__zalloc(I, (size_t)(3 * maxel) * sizeof(float));
    if (!I->arena || !I->scratch) return 0;
    for (c = 0; c < ncores; c++) {
        size_t base = off * (size_t)c, o = 0;
        pto__itile *ts = c == 0 ? I->tiles : (pto__itile *)pto__zalloc(I, sizeof(pto__itile) * (size_t)I->m->n_tiles);
        if (!ts) return 0;
        I->ctiles[c] = ts;
        for (t = 0; t < I->m->n_tiles; t++) {
            const pto_tile *tl = &I->m->tiles[t];
            if (tl->kernel != kernel) continue;
            ts[t].data = I->arena + base + o;
            ts[t].vr = tl->rows;
            ts[t].vc = tl->cols;
            o += ((size_t)pto_tile_bytes(tl) + 31u) & ~(size_t)31u;
        }
    }
    return ncores == 1 || pto__alloc_rings(I, kernel);
}

static int pto__setup(pto__interp *I)
{
    const pto_module *m = I->m;
    int32_t kernel = I->L->kernel;
    I->k = &m->kernels[kernel];
    I->nranks = I->k->ranks && I->L->nranks > 0 ? I->L->nranks : 1;
    I->env = (int64_t *)pto__zalloc(I, sizeof(int64_t) * (size_t)m->n_vars);
    I->state = (uint8_t *)pto__zalloc(I, (size_t)m->n_vars);
    I->sval = (double *)pto__zalloc(I, sizeof(double) * (size_t)m->n_vars);
    I->tiles = (pto__itile *)pto__zalloc(I, sizeof(pto__itile) * (size_t)m->n_tiles);
    I->shape = (int64_t(*)[2])pto__zalloc(I, sizeof(int64_t[2]) * (size_t)I->k->nparams);
    if (!I->env || !I->state || !I->sval || !I->tiles || !I->shape) return 0;
    if (I->L->nbindings > 0 && !I->L->bindings) return pto__fail(I, I->k->loc, "the launch has no bindings array");
    if (!pto__bind(I, kernel) || !pto__tensors(I)) return 0;
    return pto__alloc_tiles(I, kernel);
}

/* Forget the previous block: every tile zero, lets and loop vars unbound. */
static void pto__reset_block(pto__interp *I)
{
    int32_t v;
    memset(I->arena, 0, I->arena_size);
    for (v = 0; I->rings && v < I->m->n_cvpipes; v++) {
        unsigned char *slots = I->rings[v].slots;
        memset(&I->rings[v], 0, sizeof I->rings[v]);
        I->rings[v].slots = slots;
    }
    for (v = 0; v < I->m->n_vars; v++)
        if (I->m->vars[v].kind == PTO_V_LET || I->m->vars[v].kind == PTO_V_LOOP) I->state[v] = PTO__UNBOUND;
}

static const char *const pto__in_who[3] = {"the cube core", "AIV 0 (subblock 0)", "AIV 1 (subblock 1)"};

/* Every slot a section pushed must be popped by the block's end: the
   device's ring would hold them into the next launch, and the simulator
   reports them ("pushed but never popped"); saying nothing here would let
   ptoc run print "result match" beside that report. With counts known only
   at launch the verifier cannot see this (tests/bad/pipe_unbalanced.pto is
   the static case). A pop of an empty FIFO never returns: the deadlock
   error of pto__run_mix. */
static int pto__in_rings_drained(pto__interp *I)
{
    const char *const *who = pto__in_who;
    int32_t i;
    int k, c, ok = 1;
    for (i = 0; I->rings && i < I->m->n_cvpipes; i++) {
        const pto_cvpipe *q = &I->m->cvpipes[i];
        const pto__iring *r = &I->rings[i];
        if (q->kernel != I->L->kernel) continue;
        for (k = 0; k < 2; k++) {
            int64_t pushed;
            if (!(q->dir & (1 << k))) continue;
            pushed = pto__in_pushed(r, q, k);
            for (c = 0; c < (k == 0 ? 2 : 1); c++) {
                int64_t popped = r->popped[k][c];
                if (popped >= pushed) continue;
                ok = pto__fail(I, q->loc, "pipe '%s' (%s): %s pushed %lld tile%s but %s popped %lld: %lld left in its FIFO "
                               "when the block ends (every tpush needs its tpop)",
                               pto_str(I->ctx, q->name), k ? "v2c" : "c2v",
                               k ? (q->split == PTO_SPLIT_NONE ? who[1] : "the vector section") : who[0],
                               (long long)pushed, pushed == 1 ? "" : "s", k ? who[0] : who[1 + c], (long long)popped,
                               (long long)(pushed - popped));
            }
        }
    }
    return ok;
}

/* Where core c stands when a round made no progress: "it has ended", or
   "it is itself stuck in the OP at line N". */
static void pto__in_where(pto__interp *I, int c, const int32_t *wait_at, const int *fin, char *out, size_t n)
{
    const pto_stmt *st;
    if (fin[c] || wait_at[c] < 0) {
        snprintf(out, n, "it has ended");
        return;
    }
    st = &I->m->stmts[wait_at[c]];
    snprintf(out, n, "it is itself stuck in the %s at line %d", pto_opinfo_get((pto_op)st->op)->name, (int)st->loc.line);
}

/* Why the pipe op at wait_at[c] can never go on: the other side of its
   pipe, its counts and where that side stands (the cycle a deadlock is
   made of, which the plain "waits forever" left the user to find). */
static void pto__in_pipe_deadlock(pto__interp *I, int c, const int32_t *wait_at, const int *fin)
{
    const pto_stmt *st = &I->m->stmts[wait_at[c]];
    const pto_operand *o = pto_stmt_arg(I->m, wait_at[c], st->op == PTO_OP_TPOP ? 1 : 0);
    const pto_cvpipe *q = &I->m->cvpipes[o->ref];
    const pto__iring *r = &I->rings[o->ref];
    int me = c ? c - 1 : 0, cube = c == 0, k = (st->op == PTO_OP_TPUSH) == cube ? 0 : 1, other;
    const char *qn = pto_str(I->ctx, q->name), *op = pto_opinfo_get((pto_op)st->op)->name;
    char where[160];
    if (st->op == PTO_OP_TPOP) {
        /* the producer that is behind: the cube for c2v; AIV 0, or with a
           split the AIV that pushed fewer halves, for v2c */
        other = k == 0 ? 0 : q->split != PTO_SPLIT_NONE && r->pushed[1][1] < r->pushed[1][0] ? 2 : 1;
        pto__in_where(I, other, wait_at, fin, where, sizeof where);
        pto__fail(I, st->loc,
                  "deadlock: this tpop on %s waits forever: it needs tile %lld of pipe '%s' (%s), which %s has "
                  "pushed %lld of, and %s",
                  pto__in_who[c], (long long)r->popped[k][me] + 1, qn, k ? "v2c" : "c2v", pto__in_who[other],
                  (long long)r->pushed[k][other ? other - 1 : 0], where);
        return;
    }
    if (st->op != PTO_OP_TPUSH) {
        pto__fail(I, st->loc, "deadlock: this %s on %s waits forever", op, pto__in_who[c]);
        return;
    }
    /* a full pipe: the consumer that released fewest slots holds them */
    other = k == 1 ? 0 : pto__in_rel1(I, r, 0, 1) < pto__in_rel1(I, r, 0, 0) ? 2 : 1;
    pto__in_where(I, other, wait_at, fin, where, sizeof where);
    pto__fail(I, st->loc,
              "deadlock: this tpush on %s waits forever: pipe '%s' (%s) is full (%d slot%s, every one pushed and "
              "not yet %s by %s, which %s %lld of %lld), and %s",
              pto__in_who[c], qn, k ? "v2c" : "c2v", (int)q->slot_num, q->slot_num == 1 ? "" : "s",
              I->m->arch == PTO_ARCH_A5 ? "freed" : "popped", pto__in_who[other],
              I->m->arch == PTO_ARCH_A5 ? "freed" : "popped",
              (long long)pto__in_rel1(I, r, k, other ? other - 1 : 0), (long long)r->pushed[k][me], where);
}

/* The cores of one cluster: the cube section on the AIC, the vector
   section on AIV 0 and AIV 1 (subblock 0, 1). Each runs until it finishes
   or a pipe op must wait; a waiting core is resumed on a later round by
   replaying its path (control flow depends only on integers, and the ops
   and tile declarations it already ran are skipped). A round in which no
   core gets further is a deadlock. */
static int pto__run_mix(pto__interp *I)
{
    int32_t sec[2] = {-1, -1}, s, wait_at[3] = {-1, -1, -1};
    int64_t done[3] = {0, 0, 0};
    int fin[3] = {0, 0, 0}, c, progress;
    I->fail_core = -1;
    for (s = I->m->blocks[I->k->body].head; s >= 0; s = I->m->stmts[s].next)
        if (I->m->stmts[s].kind == PTO_ST_SECTION && I->m->stmts[s].body >= 0)
            sec[I->m->stmts[s].ref == PTO_CORE_CUBE ? 0 : 1] = I->m->stmts[s].body;
    for (;;) {
        progress = 0;
        for (c = 0; c < 3; c++) {
            int32_t body = sec[c ? 1 : 0];
            if (fin[c]) continue;
            if (body < 0) { fin[c] = progress = 1; continue; }
            I->tiles = I->ctiles[c];
            I->core = c ? PTO_CORE_VECTOR : PTO_CORE_CUBE;
            I->subblock = c ? c - 1 : 0;
            I->step = 0;
            I->done = done[c];
            I->cvblocked = -1;
            if (pto__run_list(I, body)) {
                fin[c] = progress = 1;
                continue;
            }
            if (I->cvblocked < 0) {
                I->fail_core = c;
                return 0;
            }
            if (I->step > done[c]) progress = 1;
            done[c] = I->step;
            wait_at[c] = I->cvblocked;
        }
        if (fin[0] && fin[1] && fin[2]) break;
        if (!progress) {
            for (c = 0; c < 3; c++)
                if (!fin[c]) pto__in_pipe_deadlock(I, c, wait_at, fin);
            return 0;
        }
    }
    I->tiles = I->ctiles[0];
    I->subblock = 0;
    I->step = I->done = 0;
    return pto__in_rings_drained(I);
}

/* A launch whose blocks(EXPR) is 0 or negative runs nothing: refused, in
   ptoc run's words (harness.c, pto_h_no_block: there "with these -D
   values"), at the expression (review21 L2: was PTO_OK with nothing run). */
static int pto__no_block(pto__interp *I, int64_t nblocks)
{
    const pto_module *m = I->m;
    int32_t e = I->k->blocks;
    pto_buf b;
    int r;
    memset(&b, 0, sizeof b);
    b.ctx = I->ctx;
    if (e >= 0 && e < m->n_exprs) pto_print_expr(m, e, &b);
    r = pto__fail(I, e >= 0 && e < m->n_exprs ? m->exprs[e].loc : I->k->loc,
                  "kernel %s would launch no block: blocks(%s) is %lld with the launch's bindings",
                  pto_str(I->ctx, I->k->name), b.data ? b.data : "...", (long long)nblocks);
    pto_buf_free(&b);
    return r;
}

static int pto__run_kernel(pto__interp *I)
{
    const char *kname = pto_str(I->ctx, I->k->name);
    int64_t r, b, nblocks = 1;
    I->blocks = 1;
    if (I->k->blocks >= 0 && !pto__eval(I, I->k->blocks, &nblocks, 0)) return 0;
    if (nblocks < 1) return pto__no_block(I, nblocks);
    I->blocks = nblocks;
    for (r = 0; r < I->nranks; r++) {
        for (b = 0; b < nblocks; b++) {
            I->rank = r;
            I->block = b;
            pto__reset_block(I);
            if (I->k->kind == PTO_KK_MIX ? pto__run_mix(I) : pto__run_list(I, I->k->body)) continue;
            if (I->k->ranks)
                pto_note(I->ctx, I->k->loc, "in block %lld of rank %lld of kernel '%s'", (long long)b,
                         (long long)r, kname);
            else if (I->k->kind == PTO_KK_MIX && I->fail_core >= 0)   /* which core of the cluster */
                pto_note(I->ctx, I->k->loc, "in block %lld (%s) of kernel '%s'", (long long)b,
                         I->fail_core == 0 ? "the cube core" : I->fail_core == 1 ? "AIV 0, subblock 0"
                                                                                 : "AIV 1, subblock 1", kname);
            else
                pto_note(I->ctx, I->k->loc, "in block %lld of kernel '%s'", (long long)b, kname);
            return 0;
        }
    }
    return 1;
}

static void pto__in_free(pto__interp *I)
{
    pto_free(I->ctx, I->env);
    pto_free(I->ctx, I->state);
    pto_free(I->ctx, I->sval);
    pto_free(I->ctx, I->ctiles[0] ? I->ctiles[0] : I->tiles);   /* a mix kernel: the cube's */
    pto_free(I->ctx, I->ctiles[1]);
    pto_free(I->ctx, I->ctiles[2]);
    if (I->rings) {
        int32_t i;
        for (i = 0; i < I->m->n_cvpipes; i++) pto_free(I->ctx, I->rings[i].slots);
        pto_free(I->ctx, I->rings);
    }
    pto_free(I->ctx, I->shape);
    pto_free(I->ctx, I->ar_of);
    pto_free(I->ctx, I->arena);
    pto_free(I->ctx, I->scratch);
}

/* ---- ranks: every rank a resumable program ----
   Ranks interleave (a wait needs a peer's notify), so each rank keeps its
   own interpreter state and an explicit stack of frames instead of the C
   stack; the scheduler resumes rank 0, 1, .. in turn, each until it
   finishes or blocks (a wait that does not hold, an allreduce that not
   every rank has reached). Within a rank, blocks still run in order. When
   every rank still running waits at an allreduce, the sum is taken and
   they go on; when a whole round moves nothing, that is a deadlock: an
   error at the first blocked statement. A race-free kernel gives the same
   result in every interleaving, so this one order is as good as any. */

typedef struct pto__in_frame {
    int32_t next;          /* next statement of this list, -1 at its end */
    int32_t loop;          /* the FOR statement whose body this is, or -1 */
    int64_t i, hi, step;
} pto__in_frame;

typedef struct pto__in_rank {
    pto__interp I;
    pto__in_frame *fr;
    int32_t nfr, capfr;
    int64_t block;
    int started, done;
    int32_t at;            /* the statement it is blocked at, or -1 */
    int64_t steps;         /* statements completed (progress) */
} pto__in_rank;

static int pto__in_push(pto__in_rank *R, int32_t block, int32_t loop, int64_t i, int64_t hi, int64_t step)
{
    pto__in_frame *f;
    if (R->nfr == R->capfr) {
        int32_t cap = R->capfr ? R->capfr * 2 : 16;
        pto__in_frame *n = (pto__in_frame *)pto_realloc(R->I.ctx, R->fr, sizeof *n * (size_t)cap);
        if (!n) {
            R->I.oom = 1;
            pto__oom(R->I.ctx);
            return 0;
        }
        R->fr = n;
        R->capfr = cap;
    }
    f = &R->fr[R->nfr++];
    f->next = block >= 0 ? R->I.m->blocks[block].head : -1;
    f->loop = loop;
    f->i = i, f->hi = hi, f->step = step;
    return 1;
}

/* The end of a list: the next iteration of its loop, or pop it. */
static void pto__in_list_end(pto__in_rank *R)
{
    pto__in_frame *f = &R->fr[R->nfr - 1];
    const pto_stmt *lp;
    if (f->loop < 0 || (uint64_t)f->hi - (uint64_t)f->i <= (uint64_t)f->step) {
        R->nfr--;
        return;
    }
    lp = &R->I.m->stmts[f->loop];
    f->i += f->step;
    R->I.env[lp->ref] = f->i;
    R->I.state[lp->ref] = PTO__BOUND;
    f->next = R->I.m->blocks[lp->body].head;
}

/* FOR / IF / SECTION open a frame; everything else runs (and may block). */
static int pto__in_step(pto__in_rank *R, int32_t s)
{
    pto__interp *I = &R->I;
    const pto_stmt *st = &I->m->stmts[s];
    int64_t lo, hi, step = 1, a, b;
    switch (st->kind) {
    case PTO_ST_FOR:
        if (!pto__eval(I, st->e[0], &lo, 0) || !pto__eval(I, st->e[1], &hi, 0)) return 0;
        if (st->e[2] >= 0 && !pto__eval(I, st->e[2], &step, 0)) return 0;
        if (step <= 0) return pto__fail(I, st->loc, "loop step must be positive, got %lld", (long long)step);
        R->fr[R->nfr - 1].next = st->next;
        if (lo >= hi) return 1;
        I->env[st->ref] = lo;
        I->state[st->ref] = PTO__BOUND;
        return pto__in_push(R, st->body, s, lo, hi, step);
    case PTO_ST_IF:
        if (!pto__eval(I, st->e[0], &a, 0) || !pto__eval(I, st->e[1], &b, 0)) return 0;
        R->fr[R->nfr - 1].next = st->next;
        if (pto__cmp_holds(st->cmp, a, b)) return pto__in_push(R, st->body, -1, 0, 0, 0);
        return st->orelse >= 0 ? pto__in_push(R, st->orelse, -1, 0, 0, 0) : 1;
    case PTO_ST_SECTION:
        R->fr[R->nfr - 1].next = st->next;
        return st->body >= 0 ? pto__in_push(R, st->body, -1, 0, 0, 0) : 1;
    default:
        I->blocked = 0;
        for (I->loop = -1, a = R->nfr - 1; a >= 0 && I->loop < 0; a--) I->loop = R->fr[a].loop;
        if (!pto__run_stmt(I, s)) return 0;
        if (!I->blocked) R->fr[R->nfr - 1].next = st->next;
        return 1;
    }
}

/* Runs rank R until it finishes or blocks; 0 on an error. */
static int pto__in_resume(pto__in_rank *R)
{
    pto__interp *I = &R->I;
    for (;;) {
        int32_t s;
        if (R->nfr == 0) {
            if (R->started) R->block++;
            R->started = 1;
            if (R->block >= I->blocks) {
                R->done = 1;
                return 1;
            }
            I->block = R->block;
            pto__reset_block(I);
            if (!pto__in_push(R, I->k->body, -1, 0, 0, 0)) return 0;
            continue;
        }
        s = R->fr[R->nfr - 1].next;
        if (s < 0) {
            pto__in_list_end(R);
            continue;
        }
        if (!pto__in_step(R, s)) {
            pto_note(I->ctx, I->k->loc, "in block %lld of rank %lld of kernel '%s'", (long long)I->block,
                     (long long)I->rank, pto_str(I->ctx, I->k->name));
            return 0;
        }
        if (I->blocked) {
            R->at = s;
            return 1;
        }
        R->at = -1;
        R->steps++;
    }
}

/* Every rank still running is at an allreduce: check they agree, sum. */
static int pto__in_reduce(pto__in_rank *R, int64_t n)
{
    const pto__interp *I0 = &R[0].I;
    const pto_module *m = I0->m;
    const pto_operand *x0 = pto_stmt_arg(m, R[0].at, 0), *g0 = pto_stmt_arg(m, R[0].at, 1);
    int32_t pi = x0->ref - I0->k->param0;
    int64_t r, i, count = I0->shape[pi][0] * I0->shape[pi][1];
    for (r = 1; r < n; r++) {
        const pto_operand *x = pto_stmt_arg(m, R[r].at, 0), *g = pto_stmt_arg(m, R[r].at, 1);
        if (x->ref != x0->ref || g->ref != g0->ref)
            return pto__fail(&R[r].I, m->stmts[R[r].at].loc,
                             "allreduce on rank %lld meets a different allreduce on rank 0 (line %d)", (long long)r,
                             (int)m->stmts[R[0].at].loc.line);
    }
    /* the lowering counts its barriers in cell [0, 0] of the signal and
       leaves it as it found it, so it must start at 0 (the device would
       wait forever: the first wait is "fewer than n ranks arrived") */
    for (r = 0; r < n; r++) {
        const void *sig = I0->L->tensors[r * I0->k->nparams + (g0->ref - I0->k->param0)];
        double cell = sig ? (double)pto_elem_get(sig, m->params[g0->ref].dtype, 0) : 0.0;
        if (m->params[g0->ref].dtype == PTO_I32 && sig) cell = (double)*(const int32_t *)sig;
        if (cell != 0.0)
            return pto__fail(&R[r].I, m->stmts[R[r].at].loc,
                             "allreduce: cell [0, 0] of its signal '%s' holds %.0f on rank %lld, not 0: it counts the "
                             "allreduce's barriers, so it must be 0 when the kernel starts (every allreduce leaves it "
                             "at 0 again; zero the signal tensor before the launch)",
                             pto_str(m->ctx, m->params[g0->ref].name), cell, (long long)r);
    }
    for (i = 0; i < count; i++) {
        float acc = pto_elem_get(I0->L->tensors[pi], PTO_F32, i);
        for (r = 1; r < n; r++) acc = pto__binop(PTO_OP_TADD, acc, pto_elem_get(I0->L->tensors[r * I0->k->nparams + pi], PTO_F32, i));
        for (r = 0; r < n && n > 1; r++) pto_elem_set(I0->L->tensors[r * I0->k->nparams + pi], PTO_F32, i, acc);
    }
    for (r = 0; r < n; r++) R[r].I.ar = 2;
    return 1;
}

/* No rank moved: name what the first blocked rank waits for. */
static int pto__in_deadlock(pto__in_rank *R, int64_t n)
{
    int64_t r, first = -1, other = -1, later = 0, lo = 0, hi = 0, rest = 0, lr = 0;
    int same = 0;
    char pending[128] = "";
    const pto_module *m = R[0].I.m;
    for (r = 0; r < n; r++)
        if (!R[r].done && first < 0) first = r;
    /* the rank an allreduce waits for: one that finished, else one at a wait */
    for (r = 0; r < n && other < 0; r++)
        if (R[r].done) other = r;
    for (r = 0; r < n && other < 0; r++)
        if (R[r].at >= 0 && m->stmts[R[r].at].op != PTO_OP_ALLREDUCE) other = r;
    if (first < 0) return 1;
    /* blocks not started yet on the ranks still running (review21 L8): the
       reference's own limit, not the kernel's deadlock, when any is left */
    for (r = 0; r < n; r++)
        if (!R[r].done) {
            int64_t b = R[r].block + 1, e = R[r].I.blocks - 1;
            if (b > e) continue;
            if (!later++) lo = b, hi = e, same = 1, lr = r;
            else if (b != lo || e != hi) same = 0;
            rest += e - b + 1;
        }
    if (later) {
        char which[64];
        if (same && lo == hi) snprintf(which, sizeof which, "block %lld", (long long)lo);
        else if (same) snprintf(which, sizeof which, "blocks %lld..%lld", (long long)lo, (long long)hi);
        else snprintf(which, sizeof which, "%lld later blocks", (long long)rest);
        if (later == 1) snprintf(pending, sizeof pending, "rank %lld has not started %s", (long long)lr, which);
        else snprintf(pending, sizeof pending, "the ranks still running have not started %s", which);
    }
    if (m->stmts[R[first].at].op == PTO_OP_WAIT) {
        pto__interp *I = &R[first].I;
        const pto_operand *g = pto_stmt_arg(m, R[first].at, 0), *c = pto_stmt_arg(m, R[first].at, 1);
        unsigned char *at;
        int32_t cell = 0;
        int64_t v = 0, gr = 0, gc = 0;
        pto__in_cell(I, R[first].at, &cell, &at);
        pto__eval(I, pto_stmt_arg(m, R[first].at, 2)->e[0], &v, 0);
        pto__eval(I, g->e[0], &gr, 0);
        pto__eval(I, g->e[1], &gc, 0);
        if (later)   /* "no rank can change it" would be false: blocks that may hold the notify never started */
            pto__fail(I, m->stmts[R[first].at].loc,
                      "the reference cannot run this kernel: wait %s[%lld, %lld], %s, %lld on rank %lld (block %lld of "
                      "%lld) never returns: the cell holds %d, and %s: the reference interpreter runs "
                      "a rank's blocks one after another, so a wait cannot count on a notify of a later block (on the "
                      "device the blocks run at once while they fit the cores, as on the simulator)",
                      pto_str(I->ctx, m->params[g->ref].name), (long long)gr, (long long)gc,
                      pto_cmp_word((pto_cmp)c->ref), (long long)v, (long long)first, (long long)R[first].block,
                      (long long)R[first].I.blocks, (int)cell, pending);
        else
            pto__fail(I, m->stmts[R[first].at].loc,
                      "deadlock: wait %s[%lld, %lld], %s, %lld on rank %lld never returns: the cell holds %d and no "
                      "rank can change it (every other rank has finished or waits too)",
                      pto_str(I->ctx, m->params[g->ref].name), (long long)gr, (long long)gc,
                      pto_cmp_word((pto_cmp)c->ref), (long long)v, (long long)first, (int)cell);
    } else {
        char why[64] = "never reaches it";
        if (other >= 0 && R[other].done) snprintf(why, sizeof why, "has finished without reaching it");
        else if (other >= 0) snprintf(why, sizeof why, "waits at line %d", (int)m->stmts[R[other].at].loc.line);
        pto__fail(&R[first].I, m->stmts[R[first].at].loc, "deadlock: allreduce on rank %lld waits for every rank, but rank %lld %s",
                  (long long)first, (long long)(other >= 0 ? other : 0), why);
    }
    for (r = 0; r < n; r++)
        if (!R[r].done && r != first)
            pto_note(R[0].I.ctx, m->stmts[R[r].at].loc, "rank %lld waits here", (long long)r);
    /* an allreduce that waits while later blocks have not started: the
       same limit of the reference (a wait said it in its error) */
    if (later && m->stmts[R[first].at].op != PTO_OP_WAIT)
        pto_note(R[0].I.ctx, R[0].I.k->loc,
                 "the reference runs the blocks of a rank one after another (block %lld of rank %lld is running), "
                 "so a wait cannot count on a notify of a later block; on the device, blocks beyond the cores run "
                 "in waves too",
                 (long long)R[first].block, (long long)first);
    return 0;
}

/* One round-robin round; *moved says whether any rank got further. */
static int pto__in_round(pto__in_rank *R, int64_t n, int *moved, int *alive)
{
    int64_t r;
    *moved = 0;
    *alive = 0;
    for (r = 0; r < n; r++) {
        int64_t steps = R[r].steps;
        int ar = R[r].I.ar;
        if (R[r].done) continue;
        if (!pto__in_resume(&R[r])) return 0;
        if (R[r].steps != steps || R[r].I.ar != ar || R[r].done) *moved = 1;
        *alive += !R[r].done;
    }
    return 1;
}

static int pto__in_schedule(pto__in_rank *R, int64_t n)
{
    for (;;) {
        int moved, alive;
        int64_t r, at_ar = 0;
        if (!pto__in_round(R, n, &moved, &alive)) return 0;
        if (!alive) return 1;
        for (r = 0; r < n; r++) at_ar += !R[r].done && R[r].I.ar == 1;
        if (at_ar == n) {
            if (!pto__in_reduce(R, n)) return 0;
            continue;
        }
        if (!moved) return pto__in_deadlock(R, n);
    }
}

static pto_status pto__in_ranks(pto_ctx *ctx, const pto_module *m, const pto_launch *launch)
{
    int64_t n = launch->nranks > 0 ? launch->nranks : 1, r, nblocks = 1;
    pto__in_rank *R = (pto__in_rank *)pto_alloc(ctx, sizeof *R * (size_t)n);
    int ok = R != NULL, oom = 0;
    int64_t ninstr = 0;
    if (!R) return pto__oom(ctx), PTO_ERR_INTERNAL;
    memset(R, 0, sizeof *R * (size_t)n);
    for (r = 0; r < n && ok; r++) {
        pto__interp *I = &R[r].I;
        I->ctx = ctx, I->m = m, I->L = launch;
        I->ninstr = &ninstr;
        I->max_instr = launch->max_instr > 0 ? launch->max_instr : PTO_MAX_INSTR_DEFAULT;
        I->loop = -1;
        I->cvblocked = -1;
        I->stepping = 1;
        R[r].at = -1;
        ok = pto__setup(I);
        I->rank = r;
        I->blocks = 1;
        if (ok && I->k->blocks >= 0) ok = pto__eval(I, I->k->blocks, &nblocks, 0);
        if (ok && nblocks < 1) ok = pto__no_block(I, nblocks);
        I->blocks = nblocks;
    }
    if (ok) ok = pto__in_schedule(R, n);
    for (r = 0; r < n; r++) {
        oom |= R[r].I.oom;
        pto_free(ctx, R[r].fr);
        if (R[r].I.ctx) pto__in_free(&R[r].I);
    }
    pto_free(ctx, R);
    if (oom) return PTO_ERR_INTERNAL;
    return ok ? PTO_OK : PTO_ERR_USER;
}

/* The launch's own fields, before anything runs: a module and a kernel of
   it, a rank count of 0 (one) or more, no name bound to two values (which
   would win is nobody's guess; the same value twice is one binding: a host
   binds a dim from each tensor that has it). */
static pto_status pto__in_launch_ok(pto_ctx *ctx, const pto_module *m, const pto_launch *launch)
{
    pto_loc none = {0, 0, 0};
    int i, j;
    if (!m) return pto_error(ctx, none, "pto_interp: the module is NULL");
    if (!launch) return pto_error(ctx, none, "pto_interp: the launch is NULL");
    if (launch->kernel < 0 || launch->kernel >= m->n_kernels)
        return pto_error(ctx, none, "pto_interp: the launch names no kernel of the module (kernel %ld; it has %ld)",
                         (long)launch->kernel, (long)m->n_kernels);
    if (launch->nranks < 0)
        return pto_error(ctx, m->kernels[launch->kernel].loc, "pto_interp: nranks is %d: give 0 (one rank) or a "
                         "positive count", launch->nranks);
    if (launch->nbindings < 0)
        return pto_error(ctx, m->kernels[launch->kernel].loc, "pto_interp: nbindings is %d", launch->nbindings);
    for (i = 0; launch->bindings && i < launch->nbindings; i++)
        for (j = 0; j < i && launch->bindings[i].name; j++)
            if (launch->bindings[j].name && strcmp(launch->bindings[i].name, launch->bindings[j].name) == 0 &&
                launch->bindings[j].value != launch->bindings[i].value)
                return pto_error(ctx, m->kernels[launch->kernel].loc, "pto_interp: '%s' is bound twice in the "
                                 "launch (bindings %d and %d: %g, then %g)", launch->bindings[i].name, j, i,
                                 launch->bindings[j].value, launch->bindings[i].value);
    return PTO_OK;
}

PTODEF pto_status pto_interp(pto_ctx *ctx, const pto_module *m, const pto_launch *launch)
{
    pto__interp I;
    int64_t ninstr = 0;
    int ok;
    if (pto__in_launch_ok(ctx, m, launch) != PTO_OK) return PTO_ERR_USER;
    if (m->kernels[launch->kernel].ranks) return pto__in_ranks(ctx, m, launch);
    memset(&I, 0, sizeof I);
    I.ctx = ctx;
    I.m = m;
    I.L = launch;
    I.ninstr = &ninstr;
    I.max_instr = launch->max_instr > 0 ? launch->max_instr : PTO_MAX_INSTR_DEFAULT;
    I.loop = -1;
    I.cvblocked = -1;
    ok = pto__setup(&I) && pto__run_kernel(&I);
    pto__in_free(&I);
    if (I.oom) return PTO_ERR_INTERNAL;
    return ok ? PTO_OK : PTO_ERR_USER;
}
