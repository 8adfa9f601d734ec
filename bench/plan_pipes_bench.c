/* plan_pipes_bench.c - what keeping pipes apart in memory buys, in cycles
   (run by `make bench`, from the repo root, after build/ptoc is built).

   The planner's preferred level ("separate", plan.c) never lets a tile
   reuse bytes of a dead tile when the two are touched by different pipes;
   the "tight" level (pto_plan_desc.tight, `ptoc plan/run --tight`) reuses
   any bytes whose lifetimes are disjoint. Reuse across pipes turns a free
   region into a write-after-read dependency: the writer's pipe must wait
   for the other pipe's last read, so work that could overlap serialises.

   For each kernel below, where the two levels place tiles differently,
   this program runs the whole pipeline twice, parse -> verify -> plan
   (separate | tight) -> check -> sync -> emit into build/plan_pipes/NAME-LEVEL,
   and runs the emitted directory on the simulator with `ptoc run DIR`
   (compile with cc, run, compare with the reference interpreter). It
   prints, per level: planned peak bytes, the tiles that share bytes,
   flags and barriers in the kernel, simulated cycles, and tight/separate.

   Exits 1 if a run fails or does not match, if the two levels plan a
   kernel identically (the kernel would show nothing), or if a kernel
   marked "faster" is not strictly faster with the separate plan, or any
   kernel is slower with it. $PTOC overrides the ptoc used (./build/ptoc). */

#define PTO_IMPLEMENTATION
#include "pto.h"

#include <stdlib.h>
#include <sys/stat.h>

typedef struct kernel_case {
    const char *name, *what, *text;
    int faster;   /* 1: the separate plan must be strictly faster */
} kernel_case;

static const kernel_case cases[] = {
    {"chain", "load, two vector steps, store: tight puts c on a's bytes, so the next tload waits for the tstore",
     "kernel chain(in x: f32[1024, 256], out z: f32[1024, 256]) vector blocks(8) {\n"
     "  for i = 0 to 8 {\n"
     "    tile a: vec f32[16, 256]\n"
     "    tile b: vec f32[16, 256]\n"
     "    tile c: vec f32[16, 256]\n"
     "    let r = block * 128 + i * 16\n"
     "    tload a, x[r, 0]\n"
     "    tmuls b, a, 0.5\n"
     "    tadds c, b, 1.0\n"
     "    tstore z[r, 0], c\n"
     "  }\n"
     "}\n",
     1},
    {"axpy", "z = 2x + y: tight loads y into x's bytes once V has read them, so MTE2 waits for V",
     "kernel axpy(in x: f32[1024, 256], in y: f32[1024, 256], out z: f32[1024, 256]) vector blocks(8) {\n"
     "  for i = 0 to 8 {\n"
     "    tile a: vec f32[16, 256]\n"
     "    tile b: vec f32[16, 256]\n"
     "    tile c: vec f32[16, 256]\n"
     "    tile d: vec f32[16, 256]\n"
     "    let r = block * 128 + i * 16\n"
     "    tload a, x[r, 0]\n"
     "    tmuls b, a, 2.0\n"
     "    tload c, y[r, 0]\n"
     "    tadd d, b, c\n"
     "    tstore z[r, 0], d\n"
     "  }\n"
     "}\n",
     1},
    {"rmsrows", "control: tight puts o (V -> MTE3) on sq (V only); V is the bottleneck, so no loss is expected",
     "kernel rmsrows(in x: f32[1024, 256], out y: f32[1024, 256]) vector blocks(8) {\n"
     "  for i = 0 to 8 {\n"
     "    tile t: vec f32[16, 256]\n"
     "    tile sq: vec f32[16, 256]\n"
     "    tile s: vec f32[16, 1]\n"
     "    tile o: vec f32[16, 256]\n"
     "    let r = block * 128 + i * 16\n"
     "    tload t, x[r, 0]\n"
     "    tmul sq, t, t\n"
     "    trowsum s, sq\n"
     "    tmuls s, s, 0.00390625\n"
     "    tadds s, s, 0.000001\n"
     "    trsqrt s, s\n"
     "    trowexpandmul o, t, s\n"
     "    tstore y[r, 0], o\n"
     "  }\n"
     "}\n",
     0},
};

#define NCASES ((int)(sizeof cases / sizeof cases[0]))

typedef struct outcome {
    int ok;               /* compiled, ran, matched, no simulator report */
    long long cycles;
    int flags, barriers;
    int64_t peak;         /* planned bytes, all memories */
    char shared[256];     /* "c on a, ..." */
    int64_t offsets[64];  /* slot 0 offset of each tile, to compare plans */
} outcome;

/* Tiles of the planned module whose byte ranges overlap (so their
   lifetimes are disjoint): "later on earlier". */
static void shared_bytes(const pto_module *m, outcome *o)
{
    int32_t i, j;
    size_t n = 0;
    o->shared[0] = 0;
    for (i = 0; i < m->n_tiles; i++) {
        const pto_tile *a = &m->tiles[i];
        if (i < 64) o->offsets[i] = a->offset[0];
        for (j = i + 1; j < m->n_tiles; j++) {
            const pto_tile *b = &m->tiles[j];
            int64_t ea = a->offset[0] + a->nbuf * pto_tile_bytes(a), eb = b->offset[0] + b->nbuf * pto_tile_bytes(b);
            if (a->space != b->space || a->space == PTO_GM || a->offset[0] >= eb || b->offset[0] >= ea) continue;
            if (n + 32 < sizeof o->shared)
                n += (size_t)snprintf(o->shared + n, sizeof o->shared - n, "%s%s on %s", n ? ", " : "",
                                      pto_str(m->ctx, b->name), pto_str(m->ctx, a->name));
        }
    }
    if (!n) snprintf(o->shared, sizeof o->shared, "-");
}

static int write_file(const char *dir, const char *name, const pto_buf *b)
{
    char path[512];
    FILE *f;
    int ok;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    ok = f && fwrite(b->data, 1, b->len, f) == b->len;
    if (f && fclose(f) != 0) ok = 0;
    return ok;
}

/* parse -> pto_compile (verify, plan, check, sync) -> emit into dir. */
static int compile(const kernel_case *kc, int tight, const char *dir, outcome *o)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m;
    pto_compile_desc cd;
    pto_plan_result pr;
    pto_emit_desc ed;
    pto_buf k, h;
    pto_status st;
    int32_t i;
    char file[64];
    if (!ctx) return 0;
    memset(&cd, 0, sizeof cd);
    memset(&pr, 0, sizeof pr);
    memset(&ed, 0, sizeof ed);
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    k.ctx = h.ctx = ctx;
    snprintf(file, sizeof file, "%s.pto", kc->name);
    m = pto_parse(ctx, file, kc->text, strlen(kc->text));
    cd.plan.tight = tight;
    cd.plan.result = &pr;
    cd.check_plan = 1;
    st = pto_compile(ctx, m, &cd);
    ed.filename = file;
    ed.source = kc->text;
    ed.source_len = strlen(kc->text);
    if (st == PTO_OK) st = pto_emit(ctx, m, &ed, &k, &h);
    if (st == PTO_OK) {
        o->peak = 0;
        for (i = 0; i < pr.n; i++) o->peak += pr.stats[i].peak;
        shared_bytes(m, o);
        mkdir("build/plan_pipes", 0777);
        mkdir(dir, 0777);
        if (!write_file(dir, "kernel.c", &k) || !write_file(dir, "host.c", &h)) st = PTO_ERR_INTERNAL;
    }
    pto_diag_print(ctx, stderr);
    pto_plan_result_free(ctx, &pr);
    pto_buf_free(&k);
    pto_buf_free(&h);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
    return st == PTO_OK;
}

/* `ptoc run DIR`: the emitted code on the simulator; reads its report. */
static void run(const char *ptoc, const char *dir, outcome *o)
{
    char cmd[1024], line[512];
    FILE *p;
    int matched = 0, clean = 0;
    snprintf(cmd, sizeof cmd, "%s run %s 2>&1", ptoc, dir);
    p = popen(cmd, "r");
    if (!p) return;
    while (fgets(line, sizeof line, p)) {
        matched |= strncmp(line, "  result      match", 19) == 0;
        clean |= strncmp(line, "  simulator   no reports", 24) == 0;
        if (sscanf(line, "  cycles %lld", &o->cycles) == 1) continue;
        if (sscanf(line, "  syncs %d flags, %d barriers", &o->flags, &o->barriers) == 2) continue;
        if (strncmp(line, "  result", 8) != 0 && strncmp(line, "  ", 2) != 0 && strncmp(line, "kernel ", 7) != 0)
            fputs(line, stderr);  /* compiler or harness errors */
    }
    o->ok = pclose(p) == 0 && matched && clean;
}

int main(void)
{
    const char *ptoc = getenv("PTOC");
    static const char *const level[2] = {"separate", "tight"};
    int c, t, status = 0;
    if (!ptoc || !*ptoc) ptoc = "./build/ptoc";
    printf("plan level vs cycles: separate keeps tiles of different pipes on different bytes;\n"
           "tight reuses any dead bytes (adds write-after-read waits between pipes)\n\n");
    printf("%-8s %-9s %7s %6s %8s %8s  %-s\n", "kernel", "level", "peak B", "flags", "barriers", "cycles",
           "tiles sharing bytes");
    for (c = 0; c < NCASES; c++) {
        outcome o[2];
        double ratio;
        memset(o, 0, sizeof o);
        for (t = 0; t < 2; t++) {
            char dir[256];
            snprintf(dir, sizeof dir, "build/plan_pipes/%s-%s", cases[c].name, level[t]);
            if (compile(&cases[c], t, dir, &o[t])) run(ptoc, dir, &o[t]);
            printf("%-8s %-9s %7lld %6d %8d %8lld  %s%s\n", cases[c].name, level[t], (long long)o[t].peak,
                   o[t].flags, o[t].barriers, o[t].cycles, o[t].shared, o[t].ok ? "" : "  FAILED (see above)");
            if (!o[t].ok) status = 1;
        }
        ratio = o[0].cycles ? (double)o[1].cycles / (double)o[0].cycles : 0;
        printf("%-8s tight/separate cycles %.3f; %s\n", "", ratio, cases[c].what);
        if (memcmp(o[0].offsets, o[1].offsets, sizeof o[0].offsets) == 0) {
            printf("  FAIL: the two levels plan %s identically\n", cases[c].name);
            status = 1;
        }
        if (o[0].ok && o[1].ok && (o[0].cycles > o[1].cycles || (cases[c].faster && o[0].cycles >= o[1].cycles))) {
            printf("  FAIL: the separate plan of %s is not %s\n", cases[c].name,
                   cases[c].faster ? "faster" : "at least as fast");
            status = 1;
        }
    }
    return status;
}
