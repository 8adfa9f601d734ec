/* test_seed.c - review points of the upstream pull requests pto was written
   from (docs/design.md, "Upstream review points") that a .pto file cannot
   state, checked through the C API:
   - seed 004 (local_slot_num on pipe init): a pipe's counts survive every
     pass; the module verifies again after lower, plan and sync, for both
     targets (upstream, the lowered pipe op failed its own verifier once the
     count flowed through); an omitted count is exactly its default, so a
     pipe written with the defaults spelled out is the same module;
   - seed 000 (SPMD gm-pipe sharding): the hidden pipe buffer is blocks x
     per_block bytes and block b's rings start at b x per_block, on both
     targets, with a block count known only at launch too (the review asked
     for that variant), and per_block sums every pipe's rings. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

/* mode 0: counts omitted; 1: the defaults spelled out; 2: as 0 with every
   pipe split (the isa target refuses unsplit v2c and both pipes) */
static const char *mix_src(int mode)
{
    return mode == 2 ?
        "kernel k(in a: f16[M, 64], in b: f16[64, 64], out c: f32[M, 64]) mix blocks(M / 64) {\n"
        "  pipe q: c2v f32[64, 64] split(up_down)\n"
        "  pipe w: v2c f16[64, 64] slots(3) local_slots(3) split(up_down)\n"
        "  pipe z: both f16[16, 16] split(up_down)\n"
        "  cube {\n    tile m: mat f16[64, 64]\n    tile l: left f16[64, 64]\n    tile r: right f16[64, 64]\n"
        "    tile acc: acc f32[64, 64]\n    tload m, a[block * 64, 0]\n    tmov l, m\n    tload m, b[0, 0]\n"
        "    tmov r, m\n    tmatmul acc, l, r\n    tpush q, acc\n  }\n"
        "  vector {\n    tile t: vec f32[32, 64]\n    tpop t, q\n    tstore c[block * 64 + subblock * 32, 0], t\n"
        "    tfree q\n  }\n}\n"
        : mode ?
        "kernel k(in a: f16[M, 64], in b: f16[64, 64], out c: f32[M, 64]) mix blocks(M / 64) {\n"
        "  pipe q: c2v f32[64, 64] slots(8) local_slots(2) split(up_down)\n"
        "  pipe w: v2c f16[64, 64] slots(3) local_slots(3)\n"
        "  pipe z: both f16[16, 16] slots(4) local_slots(2)\n"
        "  cube {\n    tile m: mat f16[64, 64]\n    tile l: left f16[64, 64]\n    tile r: right f16[64, 64]\n"
        "    tile acc: acc f32[64, 64]\n    tload m, a[block * 64, 0]\n    tmov l, m\n    tload m, b[0, 0]\n"
        "    tmov r, m\n    tmatmul acc, l, r\n    tpush q, acc\n  }\n"
        "  vector {\n    tile t: vec f32[32, 64]\n    tpop t, q\n    tstore c[block * 64 + subblock * 32, 0], t\n"
        "    tfree q\n  }\n}\n"
        :
        "kernel k(in a: f16[M, 64], in b: f16[64, 64], out c: f32[M, 64]) mix blocks(M / 64) {\n"
        "  pipe q: c2v f32[64, 64] split(up_down)\n"
        "  pipe w: v2c f16[64, 64] slots(3) local_slots(3)\n"
        "  pipe z: both f16[16, 16]\n"
        "  cube {\n    tile m: mat f16[64, 64]\n    tile l: left f16[64, 64]\n    tile r: right f16[64, 64]\n"
        "    tile acc: acc f32[64, 64]\n    tload m, a[block * 64, 0]\n    tmov l, m\n    tload m, b[0, 0]\n"
        "    tmov r, m\n    tmatmul acc, l, r\n    tpush q, acc\n  }\n"
        "  vector {\n    tile t: vec f32[32, 64]\n    tpop t, q\n    tstore c[block * 64 + subblock * 32, 0], t\n"
        "    tfree q\n  }\n}\n";
}

static pto_module *parse(pto_ctx *ctx, const char *src)
{
    pto_module *m = pto_parse(ctx, "t.pto", src, strlen(src));
    CHECK(m != NULL && pto_diag_count(ctx) == 0);
    if (pto_diag_count(ctx)) pto_diag_print(ctx, stdout);
    return m;
}

static void print_to(const pto_module *m, pto_ctx *ctx, pto_buf *b)
{
    memset(b, 0, sizeof *b);
    b->ctx = ctx;
    pto_print(m, b);
}

/* seed 004: counts normalised at parse, unchanged through the passes, the
   compiled module verifies again */
static void test_local_slots(void)
{
    int target;
    for (target = 0; target < 2; target++) {
        pto_ctx *ctx = pto_ctx_create(NULL);
        pto_module *m = parse(ctx, mix_src(0)), *ms = parse(ctx, mix_src(1));
        pto_compile_desc d;
        pto_buf b1, b2;
        if (!m || !ms) { pto_module_destroy(m); pto_module_destroy(ms); pto_ctx_destroy(ctx); return; }
        /* omitted = the defaults spelled out: one module */
        print_to(m, ctx, &b1);
        print_to(ms, ctx, &b2);
        CHECK(b1.data && b2.data && strcmp(b1.data, b2.data) == 0);
        pto_buf_free(&b1);
        pto_buf_free(&b2);
        CHECK(m->n_cvpipes == 3);
        if (m->n_cvpipes == 3) {
            CHECK(m->cvpipes[0].slot_num == 8 && m->cvpipes[0].local_slot_num == 2);
            CHECK(m->cvpipes[1].slot_num == 3 && m->cvpipes[1].local_slot_num == 3);
            CHECK(m->cvpipes[2].slot_num == 4 && m->cvpipes[2].local_slot_num == 2);
        }
        memset(&d, 0, sizeof d);
        d.check_plan = 1;
        d.target = target ? PTO_TARGET_ISA : PTO_TARGET_SIM;
        CHECK(pto_compile(ctx, m, &d) == PTO_OK);
        if (m->n_cvpipes == 3)
            CHECK(m->cvpipes[0].local_slot_num == 2 && m->cvpipes[1].local_slot_num == 3 &&
                  m->cvpipes[1].slot_num == 3 && m->cvpipes[2].local_slot_num == 2);
        pto_diag_clear(ctx);
        CHECK_MSG(pto_verify(ctx, m) == PTO_OK, "the compiled module (target %d) verifies again", target);
        if (pto_diag_count(ctx)) pto_diag_print(ctx, stdout);
        pto_module_destroy(m);
        pto_module_destroy(ms);
        pto_ctx_destroy(ctx);
    }
}

/* seed 000: the buffer and the per-block base in the emitted code */
static void test_gm_pipe_shards(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = parse(ctx, mix_src(0));
    pto_buf k, h, ki;
    /* per block: q 8 x 16384, w 3 x 8192, z two rings of 4 x 512 */
    const int64_t per = 8 * 16384 + 3 * 8192 + 2 * 4 * 512;
    char want[160];
    if (!m) { pto_ctx_destroy(ctx); return; }
    CHECK(pto_compile(ctx, m, NULL) == PTO_OK);
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    memset(&ki, 0, sizeof ki);
    k.ctx = h.ctx = ki.ctx = ctx;
    CHECK(pto_emit(ctx, m, NULL, &k, &h) == PTO_OK);
    CHECK(k.data && h.data);
    if (k.data && h.data) {
        sprintf(want, "pto_h_pipe_buffer(run, M / 64, %lld)", (long long)per);
        CHECK_MSG(strstr(h.data, want) != NULL, "host.c allocates %s", want);
        sprintf(want, "pto_gm_pipe_buffer, pto_k_block_idx(core) * %lld + 0)", (long long)per);
        CHECK_MSG(strstr(k.data, want) != NULL, "kernel.c: %s", want);
        sprintf(want, "pto_gm_pipe_buffer, pto_k_block_idx(core) * %lld + %lld)", (long long)per, 8LL * 16384);
        CHECK_MSG(strstr(k.data, want) != NULL, "kernel.c: %s", want);
        sprintf(want, "pto_gm_pipe_buffer, pto_k_block_idx(core) * %lld + %lld)", (long long)per,
                8LL * 16384 + 3 * 8192);
        CHECK_MSG(strstr(k.data, want) != NULL, "kernel.c: %s", want);
    }
    pto_module_destroy(m);
    /* the isa target: the same shard, from get_block_idx() */
    m = parse(ctx, mix_src(2));
    if (m) {
        pto_compile_desc d;
        memset(&d, 0, sizeof d);
        d.target = PTO_TARGET_ISA;
        CHECK(pto_compile(ctx, m, &d) == PTO_OK);
        CHECK(pto_emit_isa(ctx, m, NULL, &ki) == PTO_OK);
        sprintf(want, "static_cast<int64_t>(get_block_idx()) * %lld;", (long long)per);
        CHECK_MSG(ki.data && strstr(ki.data, want) != NULL, "kernel.cpp: %s", want);
    }
    pto_module_destroy(m);
    pto_buf_free(&k);
    pto_buf_free(&h);
    pto_buf_free(&ki);
    pto_ctx_destroy(ctx);
}

int main(void)
{
    test_local_slots();
    test_gm_pipe_shards();
    return TEST_END();
}
