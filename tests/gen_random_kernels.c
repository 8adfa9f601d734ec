/* gen_random_kernels.c - random .pto kernels for the simulator property test.

   usage: gen_random_kernels SEED COUNT [FIRST] > FILE.pto

   Writes COUNT kernels k<FIRST>.. into one .pto file, so one `ptoc emit`
   and one compile cover them all (sync_sim_test.sh). The kernels exist to
   stress the sync inserter through the real pipeline (parse, verify, plan,
   sync, emit, the simulator against the interpreter), so they mix:
   - loops with any start (0..4) and step (1..3), ends constant (zero-trip
     included) or the scalar n given at launch, nested three deep;
   - ifs on the scalar k, a loop variable or the block index, with and
     without else;
   - xN tiles (N = 2..4) declared in loops, single tiles anywhere;
   - vector kernels (one tile shape [R, 32] f32 plus [R, 1] column tiles
     and [1, 32] row tiles: loads, stores, elementwise, scalar, unary, row
     and column reductions, row and column broadcasts, vec->vec tmov) and
     cube kernels ([32, 32] f32 mat, left,
     right, acc: loads, mat->left/right and acc->mat moves, matmul with
     and without accumulation, fixpipe stores);
   - capacity pressure: half the vector kernels hold a large tile for the
     whole kernel (cheap: valid(1, 8)) and leave 4..12 KiB for the rest;
     half the cube kernels hold large left and right tiles for the whole
     kernel and leave 8..16 KiB of each to 4 KiB tiles, so the planner
     must share bytes between tiles of different pipes (its tight level);
   - GM read-after-write: every kernel has an inout tensor z that it both
     stores to and loads from, at windows whose rows move with the loops so
     that they overlap across iterations;
   - one or two SPMD blocks (each block works in its own half of the rows).
   Rules the kernels keep so that any difference is the compiler's fault:
   a tile is read only where it was surely written before (a tile declared
   in a loop is fresh each iteration; after an if only what both branches
   wrote counts; after a loop only what was written before it), every GM
   window lies inside its tensor for n <= NMAX, and the tiles of one scope
   chain fit in their space. Deterministic in SEED; needs no pto.h. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMAX 7        /* largest n the test launches with */
#define HALF 256      /* rows of one block's half of a tensor */
#define MAXT 64
#define MAXL 8

enum { K_VEC, K_COL, K_MAT, K_LEFT, K_RIGHT, K_ACC, K_ROW };
enum { S_VEC, S_MAT, S_LEFT, S_RIGHT, S_ACC, NSPACE };

static const int kind_space[] = {S_VEC, S_VEC, S_MAT, S_LEFT, S_RIGHT, S_ACC, S_VEC};
static const char *const kind_space_name[] = {"vec", "vec", "mat", "left", "right", "acc", "vec"};

typedef struct tile {
    int id, kind, nbuf;
    long bytes;            /* all slots, 32-byte aligned */
} tile;

typedef struct gen {
    uint64_t s;
    FILE *out;
    int cube, rows, blocks, filler;
    tile t[MAXT];
    int nt;
    char wr[MAXT];         /* surely written at this point */
    long used[NSPACE], budget[NSPACE];
    int loopvar[MAXL];     /* ids of the enclosing loops' variables */
    long loopmax[MAXL];    /* the largest value each can take */
    long held[MAXL][NSPACE]; /* bytes of xN tiles of each loop: the planner keeps
                              them for the whole loop body (the slots rotate) */
    long peak[MAXL][NSPACE]; /* most bytes in use anywhere in each loop body so far */
    int nloops, depth, nstmts, ntiles_made, nvars_made;
} gen;

static uint32_t rnd(gen *g)
{
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g->s >> 33);
}
static int pick(gen *g, int n) { return (int)(rnd(g) % (uint32_t)n); }

static void indent(gen *g) { fprintf(g->out, "%*s", 2 * (g->depth + 1), ""); }

static int tile_rows(const gen *g, int kind)
{
    return kind == K_VEC || kind == K_COL ? g->rows : kind == K_ROW ? 1 : 32;
}

/* The vector kinds: mostly [R, 32], else a [R, 1] column or a [1, 32] row. */
static int vec_kind(gen *g) { return pick(g, 4) ? K_VEC : pick(g, 2) ? K_COL : K_ROW; }

/* A random tile of one of the kinds in `mask` (1 << kind); written = 1: only
   surely written ones. -1 when there is none. */
static int any_tile(gen *g, int mask, int written)
{
    int c[MAXT], n = 0, i;
    for (i = 0; i < g->nt; i++)
        if ((mask & (1 << g->t[i].kind)) && (!written || g->wr[i])) c[n++] = i;
    return n ? c[pick(g, n)] : -1;
}

static void decl(gen *g, int kind)
{
    tile *t;
    int nbuf = g->nloops && pick(g, 2) ? 2 + pick(g, 3) : 1, sp = kind_space[kind], l;
    long one = kind == K_VEC ? (long)g->rows * 32 * 4 : kind == K_COL ? (long)g->rows * 4 : kind == K_ROW ? 32 * 4
                                                                                                       : 32 * 32 * 4;
    one = (one + 31) / 32 * 32;
    if (g->nt == MAXT) return;
    /* an xN tile is live in the whole body of its loop, before its
       declaration too: it must fit beside the most used there so far */
    while (nbuf > 1 && g->peak[g->nloops - 1][sp] + one * nbuf > g->budget[sp]) nbuf--;
    if (g->used[sp] + one * nbuf > g->budget[sp]) return;
    t = &g->t[g->nt];
    t->id = g->ntiles_made++;
    t->kind = kind;
    t->nbuf = nbuf;
    t->bytes = nbuf > 1 ? 0 : one;
    g->used[sp] += one * nbuf;
    if (nbuf > 1) {
        g->held[g->nloops - 1][sp] += one * nbuf;
        for (l = 0; l < g->nloops; l++) g->peak[l][sp] += one * nbuf;
    }
    for (l = 0; l < g->nloops; l++)
        if (g->peak[l][sp] < g->used[sp]) g->peak[l][sp] = g->used[sp];
    g->wr[g->nt++] = 0;
    indent(g);
    fprintf(g->out, "tile t%d: %s f32[%d, %d]", t->id, kind_space_name[kind], tile_rows(g, kind),
            kind == K_COL ? 1 : 32);
    if (nbuf > 1) fprintf(g->out, " x%d", nbuf);
    fprintf(g->out, "\n");
}

static void decl_random(gen *g)
{
    static const int cube_kinds[] = {K_MAT, K_LEFT, K_RIGHT, K_ACC, K_LEFT, K_RIGHT};
    decl(g, g->cube ? cube_kinds[pick(g, 6)] : vec_kind(g));
}

/* Drops the tiles declared since `nt` (their scope ended). */
static void pop_tiles(gen *g, int nt)
{
    while (g->nt > nt) {
        g->nt--;
        g->used[kind_space[g->t[g->nt].kind]] -= g->t[g->nt].bytes;
    }
}

/* "T[row, col]" for a tile of `rows` rows: rows move with a loop variable
   when there is one (so windows overlap across iterations), stay inside
   the block's half of the tensor for every value the variables can take. */
static void window(gen *g, const char *tensor, int rows, int cols)
{
    int col = pick(g, 2) ? 0 : 64 - cols;
    fprintf(g->out, "%s[%s", tensor, g->blocks > 1 ? "bo + " : "");
    if (g->nloops && pick(g, 4)) {
        int l = pick(g, g->nloops);
        long mx = g->loopmax[l], cf = pick(g, 2) ? 16 : 8, off;
        while (cf > 1 && cf * mx + rows > HALF) cf /= 2;
        off = 8L * pick(g, 4);
        if (cf * mx + off + rows > HALF) off = 0;
        fprintf(g->out, "i%d * %ld + %ld", g->loopvar[l], cf, off);
    } else {
        fprintf(g->out, "%d", 8 * pick(g, 16));
    }
    fprintf(g->out, ", %d]", col);
}

static void set_written(gen *g, int i) { if (i >= 0) g->wr[i] = 1; }

static int vec_op(gen *g)
{
    static const char *const bin[] = {"tadd", "tsub", "tmul", "tmax", "tmin"};
    static const char *const bins[] = {"tadds", "tmuls", "tmaxs", "tmins"};
    static const char *const un[] = {"texp", "tabs", "tneg", "trelu", "tsqrt", "trecip"};
    int c = pick(g, 10), kmask = 1 << vec_kind(g);
    int d = any_tile(g, kmask, 0), a = any_tile(g, kmask, 1), b = any_tile(g, kmask, 1);
    int vd = any_tile(g, 1 << K_VEC, 0), va = any_tile(g, 1 << K_VEC, 1), cc = any_tile(g, 1 << K_COL, 1);
    int cd = any_tile(g, 1 << K_COL, 0), rd = any_tile(g, 1 << K_ROW, 0), rr = any_tile(g, 1 << K_ROW, 1);
    switch (c) {
    case 0: case 1:
        if (d < 0) return 0;
        indent(g);
        fprintf(g->out, "tload t%d, ", g->t[d].id);
        window(g, pick(g, 2) ? "z" : "x", tile_rows(g, g->t[d].kind), g->t[d].kind == K_COL ? 1 : 32);
        fprintf(g->out, "\n");
        set_written(g, d);
        return 1;
    case 2: case 3:
        if (a < 0) return 0;
        indent(g);
        fprintf(g->out, "tstore ");
        window(g, "z", tile_rows(g, g->t[a].kind), g->t[a].kind == K_COL ? 1 : 32);
        fprintf(g->out, ", t%d\n", g->t[a].id);
        return 1;
    case 4:
        if (d < 0 || a < 0) return 0;
        indent(g);
        fprintf(g->out, "%s t%d, t%d, t%d\n", bin[pick(g, 5)], g->t[d].id, g->t[a].id, g->t[b].id);
        set_written(g, d);
        return 1;
    case 5:
        if (d < 0 || a < 0) return 0;
        indent(g);
        fprintf(g->out, "%s t%d, t%d, %s\n", bins[pick(g, 4)], g->t[d].id, g->t[a].id, pick(g, 2) ? "0.5" : "-1.25");
        set_written(g, d);
        return 1;
    case 6:
        if (d < 0 || a < 0) return 0;
        indent(g);
        if (pick(g, 2)) fprintf(g->out, "tmov t%d, t%d\n", g->t[d].id, g->t[a].id);
        else fprintf(g->out, "%s t%d, t%d\n", un[pick(g, 6)], g->t[d].id, g->t[a].id);
        set_written(g, d);
        return 1;
    case 7:
        if (pick(g, 2)) {   /* a column reduction */
            static const char *const colred[] = {"tcolsum", "tcolmax", "tcolmin"};
            if (rd < 0 || va < 0) return 0;
            indent(g);
            fprintf(g->out, "%s t%d, t%d\n", colred[pick(g, 3)], g->t[rd].id, g->t[va].id);
            set_written(g, rd);
            return 1;
        }
        if (cd < 0 || va < 0) return 0;
        indent(g);
        fprintf(g->out, "%s t%d, t%d\n", pick(g, 2) ? "trowmax" : "trowsum", g->t[cd].id, g->t[va].id);
        set_written(g, cd);
        return 1;
    case 8:
        if (pick(g, 2)) {   /* a column broadcast */
            if (vd < 0 || va < 0 || rr < 0) return 0;
            indent(g);
            fprintf(g->out, "%s t%d, t%d, t%d\n", pick(g, 2) ? "tcolexpandadd" : "tcolexpandmul", g->t[vd].id,
                    g->t[va].id, g->t[rr].id);
            set_written(g, vd);
            return 1;
        }
        if (vd < 0 || va < 0 || cc < 0) return 0;
        indent(g);
        fprintf(g->out, "%s t%d, t%d, t%d\n", pick(g, 2) ? "trowexpandsub" : "trowexpandmul", g->t[vd].id,
                g->t[va].id, g->t[cc].id);
        set_written(g, vd);
        return 1;
    default:
        if (d < 0) return 0;
        indent(g);
        fprintf(g->out, "texpands t%d, %s\n", g->t[d].id, pick(g, 2) ? "1.5" : "-0.25");
        set_written(g, d);
        return 1;
    }
}

static int cube_op(gen *g)
{
    int mat = any_tile(g, 1 << K_MAT, 0), wmat = any_tile(g, 1 << K_MAT, 1);
    int lr = any_tile(g, (1 << K_LEFT) | (1 << K_RIGHT), 0);
    int l = any_tile(g, 1 << K_LEFT, 1), r = any_tile(g, 1 << K_RIGHT, 1);
    int acc = any_tile(g, 1 << K_ACC, 0), wacc = any_tile(g, 1 << K_ACC, 1);
    switch (pick(g, 6)) {
    case 0:
        if (mat < 0) return 0;
        indent(g);
        fprintf(g->out, "tload t%d, ", g->t[mat].id);
        window(g, pick(g, 2) ? "z" : "x", 32, 32);
        fprintf(g->out, "\n");
        set_written(g, mat);
        return 1;
    case 1:
        if (lr < 0 || wmat < 0) return 0;
        indent(g);
        fprintf(g->out, "tmov t%d, t%d\n", g->t[lr].id, g->t[wmat].id);
        set_written(g, lr);
        return 1;
    case 2:
        if (acc < 0 || l < 0 || r < 0) return 0;
        if (g->wr[acc] && pick(g, 2)) {
            indent(g);
            fprintf(g->out, "tmatmul_acc t%d, t%d, t%d\n", g->t[acc].id, g->t[l].id, g->t[r].id);
        } else {
            indent(g);
            fprintf(g->out, "tmatmul t%d, t%d, t%d\n", g->t[acc].id, g->t[l].id, g->t[r].id);
        }
        set_written(g, acc);
        return 1;
    case 3:
        if (mat < 0 || wacc < 0) return 0;
        indent(g);
        fprintf(g->out, "tmov t%d, t%d\n", g->t[mat].id, g->t[wacc].id);
        set_written(g, mat);
        return 1;
    default:
        if (wacc < 0) return 0;
        indent(g);
        fprintf(g->out, "tstore ");
        window(g, "z", 32, 32);
        fprintf(g->out, ", t%d\n", g->t[wacc].id);
        return 1;
    }
}

/* When the op drawn had no operands ready: the step that makes the most
   progress towards ready operands (a load; in cube kernels a move to left
   or right, a matmul), so that kernels do not stay empty. */
static void load_any(gen *g)
{
    int d = any_tile(g, g->cube ? 1 << K_MAT : (1 << K_VEC) | (1 << K_COL) | (1 << K_ROW), 0);
    if (g->cube && any_tile(g, 1 << K_MAT, 1) >= 0) {
        int wmat = any_tile(g, 1 << K_MAT, 1), l = any_tile(g, 1 << K_LEFT, 1), r = any_tile(g, 1 << K_RIGHT, 1);
        int lr = l < 0 ? any_tile(g, 1 << K_LEFT, 0) : r < 0 ? any_tile(g, 1 << K_RIGHT, 0) : -1;
        int acc = any_tile(g, 1 << K_ACC, 0);
        if (lr >= 0) {
            indent(g);
            fprintf(g->out, "tmov t%d, t%d\n", g->t[lr].id, g->t[wmat].id);
            set_written(g, lr);
            return;
        }
        if (l >= 0 && r >= 0 && acc >= 0) {
            indent(g);
            fprintf(g->out, "tmatmul t%d, t%d, t%d\n", g->t[acc].id, g->t[l].id, g->t[r].id);
            set_written(g, acc);
            return;
        }
    }
    if (d < 0) return;
    indent(g);
    fprintf(g->out, "tload t%d, ", g->t[d].id);
    window(g, pick(g, 2) ? "z" : "x", tile_rows(g, g->t[d].kind), g->t[d].kind == K_COL ? 1 : 32);
    fprintf(g->out, "\n");
    set_written(g, d);
}

static void block(gen *g);

static void loop(gen *g)
{
    int start = pick(g, 5), step = 1 + pick(g, 3), trips = pick(g, 5), v = g->nvars_made++, nt = g->nt, s;
    char saved[MAXT];
    memcpy(saved, g->wr, sizeof saved);
    indent(g);
    fprintf(g->out, "for i%d = %d to ", v, start);
    if (pick(g, 2)) {
        fprintf(g->out, "n");
        g->loopmax[g->nloops] = start > NMAX - 1 ? start : NMAX - 1;
    } else {
        fprintf(g->out, "%d", start + step * trips);
        g->loopmax[g->nloops] = trips ? start + step * (trips - 1) : start;
    }
    if (step > 1 || pick(g, 2)) fprintf(g->out, " step %d", step);
    fprintf(g->out, " {\n");
    memcpy(g->peak[g->nloops], g->used, sizeof g->used);
    g->loopvar[g->nloops++] = v;
    g->depth++;
    block(g);
    g->depth--;
    g->nloops--;
    pop_tiles(g, nt);
    for (s = 0; s < NSPACE; s++) {
        g->used[s] -= g->held[g->nloops][s];
        g->held[g->nloops][s] = 0;
    }
    memcpy(g->wr, saved, sizeof saved); /* zero trips: only what was written before */
    indent(g);
    fprintf(g->out, "}\n");
}

static void cond(gen *g)
{
    static const char *const cmp[] = {"==", "!=", "<", ">", ">="};
    int nt = g->nt, i, c = pick(g, 3);
    char before[MAXT], then_wr[MAXT];
    memcpy(before, g->wr, sizeof before);
    indent(g);
    if (c == 0 && g->nloops) fprintf(g->out, "if i%d", g->loopvar[g->nloops - 1]);
    else if (c == 1 && g->blocks > 1) fprintf(g->out, "if block");
    else fprintf(g->out, "if k");
    fprintf(g->out, " %s %d {\n", cmp[pick(g, 5)], pick(g, c == 1 && g->blocks > 1 ? 2 : 4));
    g->depth++;
    block(g);
    pop_tiles(g, nt);
    memcpy(then_wr, g->wr, sizeof then_wr);
    memcpy(g->wr, before, sizeof before);
    g->depth--;
    if (pick(g, 2)) {
        indent(g);
        fprintf(g->out, "} else {\n");
        g->depth++;
        block(g);
        pop_tiles(g, nt);
        g->depth--;
        for (i = 0; i < MAXT; i++) g->wr[i] = g->wr[i] && then_wr[i];
    } else {
        memcpy(g->wr, before, sizeof before);
    }
    indent(g);
    fprintf(g->out, "}\n");
}

static void block(gen *g)
{
    int n = 2 + pick(g, 6), i;
    if (g->depth == 0 || pick(g, 2)) decl_random(g);
    for (i = 0; i < n && g->nstmts < 40; i++, g->nstmts++) {
        int c = pick(g, 10);
        if (c == 0 && g->depth < 3) loop(g);
        else if (c == 1 && g->depth < 3) cond(g);
        else if (c == 2 || (c == 3 && g->filler)) decl_random(g);
        else if (!(g->cube ? cube_op(g) : vec_op(g))) load_any(g);
    }
}

static void kernel(gen *g, int index)
{
    static const long cap[NSPACE] = {196608, 524288, 65536, 65536, 131072};
    int s, filler;
    memset(g->t, 0, sizeof g->t);
    memset(g->wr, 0, sizeof g->wr);
    memset(g->used, 0, sizeof g->used);
    memset(g->held, 0, sizeof g->held);
    g->nt = g->nloops = g->depth = g->nstmts = g->ntiles_made = g->nvars_made = 0;
    g->cube = pick(g, 4) == 0;
    g->rows = pick(g, 2) ? 8 : 16;
    g->blocks = 1 + pick(g, 2);
    filler = g->filler = pick(g, 2);
    for (s = 0; s < NSPACE; s++) g->budget[s] = cap[s];
    fprintf(g->out, "\nkernel k%d(in x: f32[512, 64], inout z: f32[512, 64], scalar n: i32, scalar k: i32) %s", index,
            g->cube ? "cube" : "vector");
    if (g->blocks > 1) fprintf(g->out, " blocks(2)");
    fprintf(g->out, " {\n");
    if (filler && !g->cube) {
        /* a large tile alive for the whole kernel: the others get 4..12 KiB */
        static const int left[] = {4, 6, 8, 12};
        int rows = 192 - left[pick(g, 4)];
        g->budget[S_VEC] = cap[S_VEC] - (long)rows * 1024;
        fprintf(g->out, "  tile fill: vec f32[%d, 256] valid(1, 8)\n  texpands fill, 1.0\n", rows);
    } else if (filler) {
        /* left and right fillers, written at the start and again at the end
           so that they live throughout: the others get 8..16 KiB */
        int rows = 512 - 32 * (2 + pick(g, 3));
        g->budget[S_LEFT] = g->budget[S_RIGHT] = cap[S_LEFT] - (long)rows * 128;
        fprintf(g->out, "  tile fm: mat f32[%d, 32]\n  tile fl: left f32[%d, 32]\n  tile fr: right f32[%d, 32]\n"
                        "  tload fm, x[0, 0]\n  tmov fl, fm\n  tmov fr, fm\n", rows, rows, rows);
    }
    if (g->blocks > 1) fprintf(g->out, "  let bo = block * %d\n", HALF);
    if (g->cube) {
        decl(g, K_MAT);
        decl(g, K_LEFT);
        decl(g, K_RIGHT);
        decl(g, K_ACC);
    }
    block(g);
    if (filler && !g->cube) fprintf(g->out, "  tadds fill, fill, 1.0\n");
    else if (filler) fprintf(g->out, "  tmov fl, fm\n  tmov fr, fm\n");
    fprintf(g->out, "}\n");
}

int main(int argc, char **argv)
{
    gen g;
    int i, count, first;
    if (argc < 3) {
        fprintf(stderr, "usage: gen_random_kernels SEED COUNT [FIRST] > FILE.pto\n");
        return 1;
    }
    memset(&g, 0, sizeof g);
    g.s = strtoull(argv[1], NULL, 0) * 2654435761u + 12345;
    count = atoi(argv[2]);
    first = argc > 3 ? atoi(argv[3]) : 0;
    g.out = stdout;
    printf("# %d random kernels, seed %s (tests/gen_random_kernels.c); run with -D n=0..%d -D k=K\n", count, argv[1],
           NMAX);
    for (i = 0; i < count; i++) kernel(&g, first + i);
    return 0;
}
