/* plan_gen.h - random kernels for the planner's property test and bench.

   A seeded xorshift PRNG (never rand()) drives a generator of structured
   kernels: nested loops, ifs with and without else, tiles declared at every
   level (xN ones inside loops), mixed sizes, and a size scale chosen per
   kernel so that the pressure ranges from light to well past capacity.
   Vector kernels use vec tiles on MTE2 (tload), V (tadd ...) and MTE3
   (tstore); cube kernels use mat / left / right / acc tiles on MTE2, MTE1,
   M and FIX. Mix kernels have both sections and sometimes a cube/vector
   pipe whose consumer buffer the planner must keep free. */

#ifndef PTO_TEST_PLAN_GEN_H
#define PTO_TEST_PLAN_GEN_H

typedef struct gen_rng {
    uint64_t s;
} gen_rng;

static uint32_t gen_next(gen_rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 16);
}

static int gen_below(gen_rng *r, int n) { return n > 0 ? (int)(gen_next(r) % (uint32_t)n) : 0; }

#define GEN_MAX_SCOPE 256

typedef struct gen_state {
    gen_rng rng;
    pto_module *m;
    int32_t kernel, gm;
    int line;
    int ntiles, max_tiles;
    int64_t unit;          /* typical tile bytes for this kernel */
    int32_t scope[GEN_MAX_SCOPE];
    int nscope;
} gen_state;

/* a compound literal, not a function returning a pto_loc: tcc 0.9.27 (x86-64) stores such a
   12-byte result as 16 bytes, over a local of the caller (tests/tcc_ptoc_test.sh) */
#define gen_loc(g) ((pto_loc){0, ++(g)->line, 1})

/* A tile of about `unit` bytes in space sp: rows x cols with cols * 4 a
   multiple of 32 (f32), or cube-fractal sized for the cube spaces. */
static int32_t gen_tile(gen_state *g, int32_t block, pto_space sp, int in_loop)
{
    char name[16];
    int64_t bytes = g->unit / 4 + (int64_t)gen_below(&g->rng, 8) * g->unit / 4;
    int32_t cols = 64, rows, t;
    if (gen_below(&g->rng, 4) == 0) bytes /= 4;
    bytes = bytes * pto_space_capacity(g->m->arch, sp) / 196608;  /* the same pressure in every space */
    if (sp == PTO_VEC || sp == PTO_MAT) {
        cols = 8 * (1 + gen_below(&g->rng, 8));
        rows = (int32_t)(bytes / (cols * 4));
    } else {
        cols = 128;                                   /* 512-byte granules of f32 [1, 128] */
        rows = (int32_t)(bytes / 512);
    }
    if (rows < 1) rows = 1;
    sprintf(name, "t%d", g->ntiles++);
    t = pto_add_tile(g->m, block, name, sp, PTO_F32, rows, cols, gen_loc(g));
    if (in_loop && gen_below(&g->rng, 3) == 0) g->m->tiles[t].nbuf = 2 + gen_below(&g->rng, 2);
    if (g->nscope < GEN_MAX_SCOPE) g->scope[g->nscope++] = t;
    return t;
}

/* A tile in scope of space sp, or -1. */
static int32_t gen_pick(gen_state *g, pto_space sp)
{
    int tries;
    for (tries = 0; tries < 8 && g->nscope; tries++) {
        /* mostly recent tiles, so lifetimes range from short to whole-kernel */
        int recent = g->nscope < 6 ? g->nscope : 6;
        int32_t t = gen_below(&g->rng, 4) ? g->scope[g->nscope - 1 - gen_below(&g->rng, recent)]
                                          : g->scope[gen_below(&g->rng, g->nscope)];
        if (g->m->tiles[t].space == sp) return t;
    }
    return -1;
}

static void gen_op2(gen_state *g, int32_t block, pto_op op, int32_t d, int32_t a)
{
    int32_t s = pto_add_op(g->m, block, op, gen_loc(g));
    pto_arg_tile(g->m, s, d, g->m->stmts[s].loc);
    pto_arg_tile(g->m, s, a, g->m->stmts[s].loc);
}

static void gen_load(gen_state *g, int32_t block, int32_t t)
{
    int32_t s = pto_add_op(g->m, block, PTO_OP_TLOAD, gen_loc(g));
    int32_t z = pto_expr_int(g->m, 0, g->m->stmts[s].loc);
    pto_arg_tile(g->m, s, t, g->m->stmts[s].loc);
    pto_arg_gm(g->m, s, g->gm, z, z, -1, g->m->stmts[s].loc);
}

static void gen_store(gen_state *g, int32_t block, int32_t t)
{
    int32_t s = pto_add_op(g->m, block, PTO_OP_TSTORE, gen_loc(g));
    int32_t z = pto_expr_int(g->m, 0, g->m->stmts[s].loc);
    pto_arg_gm(g->m, s, g->gm, z, z, -1, g->m->stmts[s].loc);
    pto_arg_tile(g->m, s, t, g->m->stmts[s].loc);
}

static void gen_vec_op(gen_state *g, int32_t block)
{
    int32_t a = gen_pick(g, PTO_VEC), b = gen_pick(g, PTO_VEC), d = gen_pick(g, PTO_VEC), s;
    int k = gen_below(&g->rng, 4);
    if (a < 0) return;
    if (k == 0) gen_load(g, block, a);
    else if (k == 1) gen_store(g, block, a);
    else if (d >= 0 && b >= 0) {
        s = pto_add_op(g->m, block, k == 2 ? PTO_OP_TADD : PTO_OP_TMUL, gen_loc(g));
        pto_arg_tile(g->m, s, d, g->m->stmts[s].loc);
        pto_arg_tile(g->m, s, a, g->m->stmts[s].loc);
        pto_arg_tile(g->m, s, b, g->m->stmts[s].loc);
    }
}

static void gen_cube_op(gen_state *g, int32_t block)
{
    int32_t mat = gen_pick(g, PTO_MAT), l = gen_pick(g, PTO_LEFT), r = gen_pick(g, PTO_RIGHT);
    int32_t acc = gen_pick(g, PTO_ACC), s;
    switch (gen_below(&g->rng, 5)) {
    case 0: if (mat >= 0) gen_load(g, block, mat); break;
    case 1: if (l >= 0 && mat >= 0) gen_op2(g, block, PTO_OP_TMOV, l, mat); break;
    case 2: if (r >= 0 && mat >= 0) gen_op2(g, block, PTO_OP_TMOV, r, mat); break;
    case 3:
        if (acc < 0 || l < 0 || r < 0) break;
        s = pto_add_op(g->m, block, gen_below(&g->rng, 2) ? PTO_OP_TMATMUL : PTO_OP_TMATMUL_ACC, gen_loc(g));
        pto_arg_tile(g->m, s, acc, g->m->stmts[s].loc);
        pto_arg_tile(g->m, s, l, g->m->stmts[s].loc);
        pto_arg_tile(g->m, s, r, g->m->stmts[s].loc);
        break;
    default: if (acc >= 0) gen_store(g, block, acc); break;
    }
}

static void gen_block(gen_state *g, int32_t block, int depth, int in_loop, pto_core core);

static void gen_stmt(gen_state *g, int32_t block, int depth, int in_loop, pto_core core)
{
    static const pto_space cube_spaces[4] = {PTO_MAT, PTO_LEFT, PTO_RIGHT, PTO_ACC};
    int k = gen_below(&g->rng, 10);
    pto_loc loc;
    if (k < 3 && g->ntiles < g->max_tiles) {
        int32_t t = gen_tile(g, block, core == PTO_CORE_VECTOR ? PTO_VEC : cube_spaces[gen_below(&g->rng, 4)],
                             in_loop);
        if (core == PTO_CORE_VECTOR) gen_load(g, block, t);
        else if (g->m->tiles[t].space == PTO_MAT) gen_load(g, block, t);
    } else if (k == 3 && depth < 3) {
        int32_t f;
        loc = gen_loc(g);
        f = pto_add_for(g->m, block, "i", pto_expr_int(g->m, 0, loc), pto_expr_int(g->m, 4, loc), -1, loc);
        gen_block(g, g->m->stmts[f].body, depth + 1, 1, core);
    } else if (k == 4 && depth < 3) {
        int32_t f;
        loc = gen_loc(g);
        f = pto_add_if(g->m, block, pto_expr_builtin(g->m, PTO_E_BLOCK, loc), PTO_EQ, pto_expr_int(g->m, 0, loc), loc);
        gen_block(g, g->m->stmts[f].body, depth + 1, in_loop, core);
        if (gen_below(&g->rng, 2)) gen_block(g, pto_if_else(g->m, f), depth + 1, in_loop, core);
    } else if (core == PTO_CORE_VECTOR) {
        gen_vec_op(g, block);
    } else {
        gen_cube_op(g, block);
    }
}

static void gen_block(gen_state *g, int32_t block, int depth, int in_loop, pto_core core)
{
    int saved = g->nscope, n = 2 + gen_below(&g->rng, 14), i;
    for (i = 0; i < n; i++) gen_stmt(g, block, depth, in_loop, core);
    g->nscope = saved;
}

/* A random module with one kernel. Pressure: the unit size is chosen so the
   kernel's tiles need from a small fraction to about twice the space. */
static pto_module *gen_module(pto_ctx *ctx, uint64_t seed)
{
    gen_state g;
    pto_loc loc = {0, 1, 1};
    int kind;
    memset(&g, 0, sizeof g);
    g.rng.s = seed * 2654435761u + 88172645463325252ull;
    gen_next(&g.rng);
    g.m = pto_module_create(ctx, gen_below(&g.rng, 4) == 0 ? PTO_ARCH_A5 : PTO_ARCH_A2A3);
    kind = gen_below(&g.rng, 5);  /* 0-2 vector, 3 cube, 4 mix */
    g.kernel = pto_add_kernel(g.m, "k", kind < 3 ? PTO_KK_VECTOR : kind == 3 ? PTO_KK_CUBE : PTO_KK_MIX, loc);
    g.gm = pto_add_tensor_param(g.m, g.kernel, "x", PTO_INOUT, PTO_F32, 4096, 4096, loc);
    g.max_tiles = 6 + gen_below(&g.rng, 60);
    g.unit = (int64_t)(8192 << gen_below(&g.rng, 3)) * (1 + gen_below(&g.rng, 4)) / 2;
    if (kind == 4) {
        int32_t body = g.m->kernels[g.kernel].body;
        int32_t c = pto_add_section(g.m, body, PTO_CORE_CUBE, gen_loc(&g));
        int32_t v = pto_add_section(g.m, body, PTO_CORE_VECTOR, gen_loc(&g));
        gen_block(&g, g.m->stmts[c].body, 1, 0, PTO_CORE_CUBE);
        gen_block(&g, g.m->stmts[v].body, 1, 0, PTO_CORE_VECTOR);
        if (gen_below(&g.rng, 2)) {
            pto_cvpipe *p;
            g.m->cvpipes = (pto_cvpipe *)pto_realloc(ctx, g.m->cvpipes, sizeof(pto_cvpipe));
            p = &g.m->cvpipes[0];
            memset(p, 0, sizeof *p);
            g.m->n_cvpipes = g.m->cap_cvpipes = 1;
            p->kernel = g.kernel;
            p->dir = (uint8_t)(1 + gen_below(&g.rng, 3));
            p->slot_size = 4096 * (1 + gen_below(&g.rng, 4));
            p->slot_num = 8;
            p->local_slot_num = 1 + gen_below(&g.rng, 2);
        }
    } else {
        gen_block(&g, g.m->kernels[g.kernel].body, 0, 0, kind == 3 ? PTO_CORE_CUBE : PTO_CORE_VECTOR);
    }
    /* The planner's own defence is under test: these modules oversubscribe
       spaces and mismatch shapes on purpose, which pto_verify refuses, so
       the stamp pto_plan requires is written directly (ir.h: a direct
       writer answers for the module itself). */
    pto_module_stamp(g.m);
    return g.m;
}

#endif
