/* test_bad.c - every file in tests/bad/ is a wrong .pto whose first line is
   `# expect: MESSAGE-LINE`, the exact first diagnostic ptoc prints for it.
   The file is parsed and, when that succeeds, verified; the first diagnostic
   must match exactly, and a file that passes both is itself a failure (it
   does not belong in tests/bad). */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

#include <dirent.h>
#include <stdlib.h>

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void check_file(const char *path)
{
    size_t len = 0;
    char *text = t_slurp(path, &len), expect[600], got[700];
    const char *nl;
    pto_ctx *ctx;
    pto_module *m;
    CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text) return;
    if (strncmp(text, "# expect: ", 10) != 0 || !(nl = strchr(text, '\n')) || nl - text - 10 >= 600) {
        CHECK_MSG(0, "%s: first line must be '# expect: MESSAGE'", path);
        free(text);
        return;
    }
    memcpy(expect, text + 10, (size_t)(nl - text - 10));
    expect[nl - text - 10] = 0;
    ctx = pto_ctx_create(NULL);
    m = pto_parse(ctx, path, text, len);
    if (m && pto_verify(ctx, m) == PTO_OK) {
        CHECK_MSG(0, "%s: has no error, so it does not belong in tests/bad", path);
    } else if (pto_diag_count(ctx) == 0) {
        CHECK_MSG(0, "%s: failed without a diagnostic", path);
    } else {
        pto_diag_format(ctx, pto_diag_get(ctx, 0), got, sizeof got);
        CHECK_MSG(strcmp(got, expect) == 0, "%s:\n  got      %s\n  expected %s", path, got, expect);
    }
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
    free(text);
}

int main(void)
{
    DIR *d = opendir("tests/bad");
    struct dirent *e;
    char *names[1024];
    int n = 0, i;
    CHECK(d != NULL);
    while (d && (e = readdir(d)) != NULL && n < 1024) {
        size_t l = strlen(e->d_name);
        char *path;
        if (l < 5 || strcmp(e->d_name + l - 4, ".pto") != 0) continue;
        path = (char *)malloc(l + 11);
        sprintf(path, "tests/bad/%s", e->d_name);
        names[n++] = path;
    }
    if (d) closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    for (i = 0; i < n; i++) {
        check_file(names[i]);
        free(names[i]);
    }
    CHECK_MSG(n >= 20, "only %d files in tests/bad", n);
    return TEST_END();
}
