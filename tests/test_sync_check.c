/* test_sync_check.c - the sync pass's check changes nothing it places.

   pto_sync_desc.check runs the CHECK analysis once more as a self-check;
   ptoc always turns it on, a C API user's zero-initialised desc leaves it
   off. What the pass guarantees (every dependency ordered, every event id
   set again only after the wait of its previous set) must not depend on
   it: session 15 found 7 repo kernels with ifs whose check-off output
   lacked order pairs that check on added, and the simulator reported
   their unordered reuse. With check off, the analysis that proves id
   reuses is skipped when the colouring showed them all ordered; this test
   is what holds that proof to the analysis. Every .pto under examples/,
   tests/ and bench/ that compiles is synchronised both ways and the two
   dumps (every statement with its note) must be the same, byte for byte. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"
#include "tests/walk.h"

#include <stdlib.h>

static int nfiles, ncompiled;

/* The module after sync (check on or off) as pto_dump prints it; NULL
   when the file does not compile (tests/bad and the like). */
static char *synced(const char *path, const char *text, size_t len, int check)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = ctx ? pto_parse(ctx, path, text, len) : NULL;
    pto_compile_desc cd;
    pto_buf out;
    char *r = NULL;
    memset(&cd, 0, sizeof cd);
    memset(&out, 0, sizeof out);
    cd.stop_after = PTO_STAGE_SYNC;
    cd.sync.check = check;
    out.ctx = ctx;
    if (m && pto_compile(ctx, m, &cd) == PTO_OK) {
        pto_dump(m, &out);
        if (!out.oom && out.data) {
            r = (char *)malloc(strlen(out.data) + 1);
            if (r) strcpy(r, out.data);
        }
    }
    pto_buf_free(&out);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
    return r;
}

static void check_file(const char *path)
{
    size_t len = 0;
    char *text = t_slurp(path, &len), *off, *on;
    nfiles++;
    if (!text) {
        CHECK_MSG(0, "%s: readable", path);
        return;
    }
    off = synced(path, text, len, 0);
    on = synced(path, text, len, 1);
    CHECK_MSG((off == NULL) == (on == NULL), "%s: compiles with check off as with check on", path);
    if (off && on) {
        ncompiled++;
        CHECK_MSG(strcmp(off, on) == 0, "%s: the same statements with check off and on", path);
    }
    free(off);
    free(on);
    free(text);
}

int main(void)
{
    t_walk_pto("examples", check_file);
    t_walk_pto("tests", check_file);
    t_walk_pto("bench", check_file);
    CHECK_MSG(ncompiled > 120, "found the repo's kernels (%d of %d files compile)", ncompiled, nfiles);
    printf("  %d files, %d compiled, each synchronised with check off and on\n", nfiles, ncompiled);
    return TEST_END();
}
