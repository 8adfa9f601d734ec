/* fuzz_pipeline.c - libFuzzer target for the passes after the parser.

   fuzz_parse.c stops at the verifier; this one takes every input that
   parses through the whole pipeline, as ptoc does: pto_compile (verify,
   lower, plan with pto_plan_check, sync with its self-check) and pto_emit
   for the simulator, then the same text again for the isa target
   (pto_compile for PTO_TARGET_ISA, pto_emit_isa). Any input may be refused
   with an error (PTO_ERR_USER: that is the contract for bad input), but
   none may crash, trip a sanitizer, hang (libFuzzer's -timeout), or draw
   PTO_ERR_INTERNAL, which means pto is wrong: a pass broke its own
   guarantee (the plan checker, the sync self-check) or a later pass met a
   module an earlier one should have refused. An internal error aborts
   after printing the diagnostics, so the fuzzer keeps the input.

   A successful emission must also be deterministic: the sources of a
   second pto_emit of the same module are compared byte for byte.

   Built with -DPTO_FUZZ_MAIN (no libFuzzer) it replays the files or
   directories given on the command line (tests/fuzz/regress_pipeline/ in
   make test). */

#define PTO_IMPLEMENTATION
#include "../../pto.h"

#include <stdlib.h>
#include <string.h>

/* A pass said PTO_ERR_INTERNAL: pto's bug. */
static void internal(pto_ctx *ctx, const char *where, const uint8_t *data, size_t size)
{
    fprintf(stderr, "fuzz_pipeline: internal error in %s on:\n%.*s\n", where, (int)size, (const char *)data);
    pto_diag_print(ctx, stderr);
    abort();
}

static void emit_twice(pto_ctx *ctx, const pto_module *m, const uint8_t *data, size_t size)
{
    pto_buf k1, h1, k2, h2;
    pto_emit_desc ed;
    pto_status st;
    memset(&k1, 0, sizeof k1);
    memset(&h1, 0, sizeof h1);
    memset(&k2, 0, sizeof k2);
    memset(&h2, 0, sizeof h2);
    k1.ctx = h1.ctx = k2.ctx = h2.ctx = ctx;
    memset(&ed, 0, sizeof ed);
    ed.source = (const char *)data;
    ed.source_len = size;
    st = pto_emit(ctx, m, &ed, &k1, &h1);
    if (st == PTO_ERR_INTERNAL) internal(ctx, "pto_emit", data, size);
    if (st == PTO_OK) {
        if (pto_emit(ctx, m, &ed, &k2, &h2) != PTO_OK || k1.len != k2.len || h1.len != h2.len
            || (k1.len && memcmp(k1.data, k2.data, k1.len)) || (h1.len && memcmp(h1.data, h2.data, h1.len))) {
            fprintf(stderr, "fuzz_pipeline: two emissions of one module differ on:\n%.*s\n", (int)size,
                    (const char *)data);
            abort();
        }
    }
    pto_buf_free(&k1);
    pto_buf_free(&h1);
    pto_buf_free(&k2);
    pto_buf_free(&h2);
}

static void one_target(const uint8_t *data, size_t size, pto_target target)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m;
    pto_compile_desc cd;
    pto_status st;
    if (!ctx) return;
    m = pto_parse(ctx, "fuzz.pto", (const char *)data, size);
    if (!m) { pto_ctx_destroy(ctx); return; }
    memset(&cd, 0, sizeof cd);
    cd.check_plan = 1;
    cd.sync.check = 1;
    cd.target = target;
    st = pto_compile(ctx, m, &cd);
    if (st == PTO_ERR_INTERNAL) internal(ctx, "pto_compile", data, size);
    if (st == PTO_OK) {
        if (target == PTO_TARGET_ISA) {
            pto_buf k;
            pto_emit_desc ed;
            memset(&k, 0, sizeof k);
            k.ctx = ctx;
            memset(&ed, 0, sizeof ed);
            if (pto_emit_isa(ctx, m, &ed, &k) == PTO_ERR_INTERNAL) internal(ctx, "pto_emit_isa", data, size);
            pto_buf_free(&k);
        } else {
            emit_twice(ctx, m, data, size);
        }
    }
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    one_target(data, size, PTO_TARGET_SIM);
    one_target(data, size, PTO_TARGET_ISA);
    return 0;
}

#ifdef PTO_FUZZ_MAIN
#define FUZZ_WHAT "through compile and emit (both targets): no crash, no internal error, deterministic emission"
#include "replay.h"
#endif
