/* check.h - the tiny test harness every C test in tests/ uses.

   CHECK(cond) and friends count passes and failures and print the failing
   line; TEST_END() prints "N passed, N failed" as the last line and returns
   the exit status, which tests/run.sh sums over every test program. */

#ifndef PTO_TEST_CHECK_H
#define PTO_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_pass, t_fail;

#define CHECK(cond) \
    do { \
        if (cond) t_pass++; \
        else { t_fail++; printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

#define CHECK_MSG(cond, ...) \
    do { \
        if (cond) t_pass++; \
        else { t_fail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    } while (0)

#define CHECK_STR(a, b) \
    do { \
        const char *ca_ = (a), *cb_ = (b); \
        if (ca_ && cb_ && strcmp(ca_, cb_) == 0) t_pass++; \
        else { t_fail++; printf("FAIL %s:%d: got \"%s\"\n     expected \"%s\"\n", __FILE__, __LINE__, \
                                 ca_ ? ca_ : "(null)", cb_ ? cb_ : "(null)"); } \
    } while (0)

/* The whole file at path, NUL-terminated (free it), its length in *len when
   len is not NULL; NULL when it cannot be read. */
static inline char *t_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *d;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    d = (char *)malloc((size_t)n + 1);
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) { free(d); d = NULL; }
    fclose(f);
    if (d) { d[n] = 0; if (len) *len = (size_t)n; }
    return d;
}

/* A pinned fingerprint: `got` (one line) must equal the file at path;
   PTO_UPDATE_GOLDEN=1 rewrites the file instead. `what` says what changed. */
static inline void t_pin(const char *path, const char *got, const char *what)
{
    const char *upd = getenv("PTO_UPDATE_GOLDEN");
    char *want;
    if (upd && strcmp(upd, "1") == 0) {
        FILE *f = fopen(path, "wb");
        CHECK_MSG(f != NULL, "cannot write %s", path);
        if (f) { fputs(got, f); fclose(f); }
        printf("updated %s\n", path);
        return;
    }
    want = t_slurp(path, NULL);
    CHECK_MSG(want != NULL, "missing %s (run PTO_UPDATE_GOLDEN=1 make test)", path);
    CHECK_MSG(!want || strcmp(want, got) == 0, "%s: expected %s (PTO_UPDATE_GOLDEN=1 make test accepts it if intended)",
              what, want ? want : "?");
    free(want);
}

#define TEST_END() (printf("%d passed, %d failed\n", t_pass, t_fail), t_fail != 0)

#endif
