/* sync_check.h - an independent checker for synchronised IR, and small IR
   builders, for the sync tests.

   sc_run executes one kernel of a module concretely (loop bounds and ifs
   evaluated with the variable values given), instruction by instruction,
   with its own model of the pipes (hardware.md section 4, the vector-clock
   scheme of simulator-notes.md), sharing no code with the sync inserter:
   - done[q][p]: how many instructions of pipe p are known complete before
     the next instruction of pipe q. In-order pipes (all but V and M) order
     their own instructions; pipe_barrier(P) orders P's; PIPE_ALL orders all.
   - set_flag(p, q, id) snapshots done[p] plus every p instruction so far;
     wait_flag joins the snapshot into done[q].
   - shadow memory per 32-byte granule of each local space and per element
     of each GM tensor: the last write and, per pipe, the last read since.
   It reports the first race (unordered conflicting accesses), a set of an
   id already set, a wait on an id not set, and ids left set at the end. */

#ifndef PTO_TEST_SYNC_CHECK_H
#define PTO_TEST_SYNC_CHECK_H

#include <stdlib.h>

#define SC_NP 7

typedef struct sc_cell { int wp, wc; int rc[SC_NP]; } sc_cell;

typedef struct sc {
    const pto_module *m;
    int64_t *var;          /* by var id */
    int64_t *iter;         /* by FOR stmt: normalised iteration index */
    int cnt[SC_NP];
    int done[SC_NP][SC_NP];
    int flag[8][8][8];
    int fclk[8][8][8][SC_NP];
    sc_cell *local[PTO_NSPACE];
    int64_t lim[PTO_NSPACE];   /* shadowed bytes per space */
    sc_cell **gm;          /* by param */
    int errors;
    char msg[512];
    long instrs, syncs;
} sc;

static int64_t sc_eval(sc *c, int32_t e)
{
    const pto_expr *x = &c->m->exprs[e];
    int64_t a, b;
    switch (x->kind) {
    case PTO_E_INT: return x->value;
    case PTO_E_VAR: return c->var[x->a];
    case PTO_E_NEG: return -sc_eval(c, x->a);
    case PTO_E_BLOCK: case PTO_E_SUBBLOCK: case PTO_E_RANK: return 0;
    case PTO_E_BLOCKS: case PTO_E_NRANKS: return 1;
    default: break;
    }
    a = sc_eval(c, x->a);
    b = sc_eval(c, x->b);
    switch (x->kind) {
    case PTO_E_ADD: return a + b;
    case PTO_E_SUB: return a - b;
    case PTO_E_MUL: return a * b;
    case PTO_E_DIV: return b ? a / b : 0;
    case PTO_E_MOD: return b ? a % b : 0;
    case PTO_E_MIN: return a < b ? a : b;
    case PTO_E_MAX: return a > b ? a : b;
    default: return 0;
    }
}

/* A tensor dim: static, or the value bound to its dynamic dim var. */
static int64_t sc_dim(const sc *c, const pto_param *p, int d)
{
    return p->dim[d] >= 0 ? p->dim[d] : (p->dim_var[d] >= 0 ? c->var[p->dim_var[d]] : 0);
}

static void sc_err(sc *c, int32_t s, const char *what)
{
    if (c->errors++ == 0)
        snprintf(c->msg, sizeof c->msg, "line %d: %s", (int)c->m->stmts[s].loc.line, what);
}

static int sc_inorder(int p) { return p != PTO_PIPE_V && p != PTO_PIPE_M; }

/* Is an access of pipe p numbered n ordered before the current instruction of q? */
static int sc_ordered(sc *c, int p, int n, int q)
{
    if (p == q && sc_inorder(q)) return 1;
    return c->done[q][p] >= n;
}

static void sc_touch(sc *c, int32_t s, sc_cell *cell, int q, int rd, int wr, int n)
{
    int p;
    if (cell->wc && !sc_ordered(c, cell->wp, cell->wc, q)) {
        char b[200];
        snprintf(b, sizeof b, "race: %s on %s after an unordered write by %s", wr ? "write" : "read",
                 pto_pipe_name((pto_pipe)q), pto_pipe_name((pto_pipe)cell->wp));
        sc_err(c, s, b);
    }
    if (wr)
        for (p = 0; p < SC_NP; p++)
            if (cell->rc[p] && !sc_ordered(c, p, cell->rc[p], q)) {
                char b[200];
                snprintf(b, sizeof b, "race: write on %s after an unordered read by %s", pto_pipe_name((pto_pipe)q),
                         pto_pipe_name((pto_pipe)p));
                sc_err(c, s, b);
            }
    (void)rd;
    (void)n;
}

static void sc_record(sc_cell *cell, int q, int rd, int wr, int n)
{
    if (wr) { memset(cell, 0, sizeof *cell); cell->wp = q; cell->wc = n; }
    if (rd && !wr) cell->rc[q] = n;
}

/* Calls fn on every cell an operand touches. */
static void sc_cells(sc *c, int32_t s, int i, void (*fn)(sc *, int32_t, sc_cell *, int, int, int, int), int q, int rd,
                     int wr, int n)
{
    const pto_module *m = c->m;
    const pto_operand *o = pto_stmt_arg(m, s, i);
    if (o->kind == PTO_O_TILE) {
        const pto_tile *t = &m->tiles[o->ref];
        int slot = 0;
        int64_t off, g, end;
        if (t->nbuf > 1) slot = (int)(c->iter[pto_stmt_loop(m, t->decl)] % t->nbuf);
        off = t->offset[slot];
        end = off + pto_tile_bytes(t);
        if (off < 0 || end > c->lim[t->space]) { sc_err(c, s, "tile outside its space"); return; }
        for (g = off / 32; g < (end + 31) / 32; g++) fn(c, s, &c->local[t->space][g], q, rd, wr, n);
    } else if (o->kind == PTO_O_GM) {
        const pto_param *p = &m->params[o->ref];
        const pto_tile *t = NULL;
        int j;
        int64_t r0 = sc_eval(c, o->e[0]), c0 = sc_eval(c, o->e[1]), r, cc;
        for (j = 0; j < m->stmts[s].nargs; j++)
            if (pto_stmt_arg(m, s, j)->kind == PTO_O_TILE) { t = &m->tiles[pto_stmt_arg(m, s, j)->ref]; break; }
        if (!t) return;
        for (r = r0; r < r0 + t->rows && r < sc_dim(c, p, 0); r++)
            for (cc = c0; cc < c0 + t->cols && cc < sc_dim(c, p, 1); cc++)
                if (r >= 0 && cc >= 0) fn(c, s, &c->gm[o->ref][r * sc_dim(c, p, 1) + cc], q, rd, wr, n);
    }
}

static void sc_touch_fn(sc *c, int32_t s, sc_cell *cell, int q, int rd, int wr, int n) { sc_touch(c, s, cell, q, rd, wr, n); }
static void sc_record_fn(sc *c, int32_t s, sc_cell *cell, int q, int rd, int wr, int n)
{
    (void)c;
    (void)s;
    sc_record(cell, q, rd, wr, n);
}

static void sc_access(sc *c, int32_t s)
{
    const pto_module *m = c->m;
    const pto_opinfo *oi = pto_opinfo_get((pto_op)m->stmts[s].op);
    int q = pto_stmt_pipe(m, s), i, n;
    n = ++c->cnt[q];
    c->instrs++;
    for (i = 0; i < m->stmts[s].nargs && i < 4; i++)
        sc_cells(c, s, i, sc_touch_fn, q, !!(oi->arg[i] & PTO_A_READ), !!(oi->arg[i] & PTO_A_WRITE), n);
    for (i = 0; i < m->stmts[s].nargs && i < 4; i++)
        sc_cells(c, s, i, sc_record_fn, q, !!(oi->arg[i] & PTO_A_READ), !!(oi->arg[i] & PTO_A_WRITE), n);
    if (sc_inorder(q)) c->done[q][q] = n;
}

static void sc_sync(sc *c, int32_t s)
{
    const pto_module *m = c->m;
    int op = m->stmts[s].op, p, q, id, k, x;
    c->syncs++;
    if (op == PTO_OP_PIPE_BARRIER) {
        p = pto_stmt_arg(m, s, 0)->ref;
        if (p == PTO_PIPE_ALL) {
            for (x = 0; x < SC_NP; x++)
                for (k = 0; k < SC_NP; k++) c->done[x][k] = c->cnt[k];
        } else {
            c->done[p][p] = c->cnt[p];
        }
        return;
    }
    p = pto_stmt_arg(m, s, 0)->ref;
    q = pto_stmt_arg(m, s, 1)->ref;
    id = (int)sc_eval(c, pto_stmt_arg(m, s, 2)->e[0]);
    if (p < 0 || p >= SC_NP || q < 0 || q >= SC_NP || id < 0 || id > 7) { sc_err(c, s, "bad flag operands"); return; }
    if (op == PTO_OP_SET_FLAG) {
        if (c->flag[p][q][id]) sc_err(c, s, "set_flag on an id already set");
        c->flag[p][q][id] = 1;
        for (k = 0; k < SC_NP; k++) c->fclk[p][q][id][k] = c->done[p][k];
        c->fclk[p][q][id][p] = c->cnt[p];
    } else {
        if (!c->flag[p][q][id]) sc_err(c, s, "wait_flag on an id not set");
        c->flag[p][q][id] = 0;
        for (k = 0; k < SC_NP; k++)
            if (c->fclk[p][q][id][k] > c->done[q][k]) c->done[q][k] = c->fclk[p][q][id][k];
    }
}

static int sc_cmp(int cmp, int64_t a, int64_t b)
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

static void sc_block(sc *c, int32_t b)
{
    const pto_module *m = c->m;
    int32_t s;
    for (s = m->blocks[b].head; s >= 0 && c->errors == 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind == PTO_ST_OP) {
            if (st->op == PTO_OP_SET_FLAG || st->op == PTO_OP_WAIT_FLAG || st->op == PTO_OP_PIPE_BARRIER) sc_sync(c, s);
            else sc_access(c, s);
        } else if (st->kind == PTO_ST_LET) {
            c->var[st->ref] = sc_eval(c, st->e[0]);
        } else if (st->kind == PTO_ST_FOR) {
            int64_t i = sc_eval(c, st->e[0]), end = sc_eval(c, st->e[1]), step = st->e[2] >= 0 ? sc_eval(c, st->e[2]) : 1;
            int64_t n = 0;
            for (; step > 0 ? i < end : i > end; i += step, n++) {
                c->var[st->ref] = i;
                c->iter[s] = n;
                sc_block(c, st->body);
            }
        } else if (st->kind == PTO_ST_IF) {
            if (sc_cmp(st->cmp, sc_eval(c, st->e[0]), sc_eval(c, st->e[1]))) sc_block(c, st->body);
            else if (st->orelse >= 0) sc_block(c, st->orelse);
        } else if (st->kind == PTO_ST_SECTION) {
            sc_block(c, st->body);   /* tests run one section per kernel */
        }
    }
}

/* Runs kernel k with vars[] values (by var id, may be NULL). Returns the
   error count; c->msg holds the first. */
static int sc_run(sc *c, const pto_module *m, int32_t k, const int64_t *vars)
{
    int sp, p, q, i;
    memset(c, 0, sizeof *c);
    c->m = m;
    c->var = (int64_t *)calloc((size_t)m->n_vars + 1, sizeof(int64_t));
    c->iter = (int64_t *)calloc((size_t)m->n_stmts + 1, sizeof(int64_t));
    if (vars) memcpy(c->var, vars, sizeof(int64_t) * (size_t)m->n_vars);
    for (sp = 1; sp < PTO_NSPACE; sp++) c->lim[sp] = 0;
    for (i = 0; i < m->n_tiles; i++) {   /* shadow only the bytes the tiles can touch */
        const pto_tile *t = &m->tiles[i];
        int k;
        for (k = 0; k < t->nbuf && k < PTO_MAX_NBUF; k++)
            if (t->offset[k] + pto_tile_bytes(t) > c->lim[t->space]) c->lim[t->space] = t->offset[k] + pto_tile_bytes(t);
    }
    for (sp = 1; sp < PTO_NSPACE; sp++) {
        if (c->lim[sp] > pto_space_capacity(m->arch, (pto_space)sp)) c->lim[sp] = pto_space_capacity(m->arch, (pto_space)sp);
        c->local[sp] = (sc_cell *)calloc((size_t)(c->lim[sp] / 32 + 2), sizeof(sc_cell));
    }
    c->gm = (sc_cell **)calloc((size_t)m->n_params + 1, sizeof(sc_cell *));
    for (i = 0; i < m->n_params; i++)
        if (m->params[i].kind == PTO_P_TENSOR)
            c->gm[i] = (sc_cell *)calloc((size_t)(sc_dim(c, &m->params[i], 0) * sc_dim(c, &m->params[i], 1) + 1), sizeof(sc_cell));
    sc_block(c, m->kernels[k].body);
    for (p = 0; p < 8 && c->errors == 0; p++)
        for (q = 0; q < 8; q++)
            for (i = 0; i < 8; i++)
                if (c->flag[p][q][i]) {
                    char b[100];
                    snprintf(b, sizeof b, "id %s -> %s %d left set at kernel end", pto_pipe_name((pto_pipe)p),
                             pto_pipe_name((pto_pipe)q), i);
                    if (c->errors++ == 0) snprintf(c->msg, sizeof c->msg, "%s", b);
                }
    for (sp = 1; sp < PTO_NSPACE; sp++) free(c->local[sp]);
    for (i = 0; i < m->n_params; i++) free(c->gm[i]);
    free(c->gm);
    free(c->var);
    free(c->iter);
    return c->errors;
}

#if defined(__GNUC__) || defined(__clang__)
#define SC_UNUSED __attribute__((unused))
#else
#define SC_UNUSED
#endif

/* ---- builders --------------------------------------------------------------- */

/* a compound literal, not a function returning a pto_loc: tcc 0.9.27 (x86-64) stores such a
   12-byte result as 16 bytes, over a local of the caller (tests/tcc_ptoc_test.sh) */
#define sc_loc(line) ((pto_loc){0, (line), 1})

SC_UNUSED static int32_t sc_int(pto_module *m, int64_t v) { return pto_expr_int(m, v, sc_loc(0)); }
SC_UNUSED static int32_t sc_var(pto_module *m, int32_t var) { return pto_expr_var(m, var, sc_loc(0)); }

/* A planned tile; offsets given per slot. */
SC_UNUSED static int32_t sc_tile(pto_module *m, int32_t blk, const char *name, pto_space sp, int rows, int cols, int nbuf,
                       const int64_t *off, int line)
{
    int32_t t = pto_add_tile(m, blk, name, sp, sp == PTO_LEFT || sp == PTO_RIGHT ? PTO_F16 : PTO_F32, rows, cols,
                             sc_loc(line));
    int k;
    m->tiles[t].nbuf = nbuf;
    m->tiles[t].planned = 1;
    for (k = 0; k < nbuf; k++) m->tiles[t].offset[k] = off[k];
    return t;
}

SC_UNUSED static int32_t sc_op(pto_module *m, int32_t blk, pto_op op, int line) { return pto_add_op(m, blk, op, sc_loc(line)); }

SC_UNUSED static int32_t sc_load(pto_module *m, int32_t blk, int32_t t, int32_t param, int32_t r, int32_t c, int line)
{
    int32_t s = sc_op(m, blk, PTO_OP_TLOAD, line);
    pto_arg_tile(m, s, t, sc_loc(line));
    pto_arg_gm(m, s, param, r, c, -1, sc_loc(line));
    return s;
}

SC_UNUSED static int32_t sc_store(pto_module *m, int32_t blk, int32_t param, int32_t r, int32_t c, int32_t t, int line)
{
    int32_t s = sc_op(m, blk, PTO_OP_TSTORE, line);
    pto_arg_gm(m, s, param, r, c, -1, sc_loc(line));
    pto_arg_tile(m, s, t, sc_loc(line));
    return s;
}

SC_UNUSED static int32_t sc_op2(pto_module *m, int32_t blk, pto_op op, int32_t d, int32_t a, int line)
{
    int32_t s = sc_op(m, blk, op, line);
    pto_arg_tile(m, s, d, sc_loc(line));
    pto_arg_tile(m, s, a, sc_loc(line));
    return s;
}

SC_UNUSED static int32_t sc_op3(pto_module *m, int32_t blk, pto_op op, int32_t d, int32_t a, int32_t b, int line)
{
    int32_t s = sc_op2(m, blk, op, d, a, line);
    pto_arg_tile(m, s, b, sc_loc(line));
    return s;
}

SC_UNUSED static int32_t sc_muls(pto_module *m, int32_t blk, int32_t d, int32_t a, double v, int line)
{
    int32_t s = sc_op2(m, blk, PTO_OP_TMULS, d, a, line);
    pto_arg_float(m, s, v, sc_loc(line));
    return s;
}

/* Counts sync statements (origin sync) of one op in a block tree. */
SC_UNUSED static int sc_count(const pto_module *m, int32_t blk, pto_op op)
{
    int32_t s;
    int n = 0;
    for (s = m->blocks[blk].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind == PTO_ST_OP && st->op == op && st->origin == PTO_BY_SYNC) n++;
        if (st->body >= 0) n += sc_count(m, st->body, op);
        if (st->orelse >= 0) n += sc_count(m, st->orelse, op);
    }
    return n;
}

/* Counts set_flags of the pipe pair p -> q anywhere in the kernel. */
SC_UNUSED static int sc_count_pair(const pto_module *m, int p, int q)
{
    int32_t s;
    int n = 0;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind != PTO_ST_OP || st->block < 0 || st->op != PTO_OP_SET_FLAG) continue;
        if (pto_stmt_arg(m, s, 0)->ref == p && pto_stmt_arg(m, s, 1)->ref == q) n++;
    }
    return n;
}

#endif
