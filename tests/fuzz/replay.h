/* replay.h - the fuzz targets' main without libFuzzer (-DPTO_FUZZ_MAIN):
   replays files or directories through LLVMFuzzerTestOneInput. With no
   arguments it replays every .pto of examples/ and tests/ and every input
   kept in tests/fuzz/regress/ (run from the repository's root, as make
   test does), and ends with the suite's "N passed, N failed" line. A
   failing input aborts (the targets' contract), so "failed" counts only
   files that could not be read. FUZZ_WHAT names what was checked. */
#include <dirent.h>
#include <sys/stat.h>

/* Replays a file, or a directory's files: every file when all, else the
   .pto ones (a walk of tests/ meets C and shell sources too). */
static int fuzz_replay(const char *path, int all, int *count)
{
    struct stat st;
    FILE *f;
    char *buf;
    long n;
    if (stat(path, &st) != 0) { fprintf(stderr, "cannot stat %s\n", path); return 1; }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        int bad = 0;
        if (!d) return 1;
        while ((e = readdir(d)) != NULL) {
            char sub[4096];
            size_t len;
            if (e->d_name[0] == '.') continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            len = strlen(sub);
            if (!all && stat(sub, &st) == 0 && !S_ISDIR(st.st_mode) && (len < 4 || strcmp(sub + len - 4, ".pto") != 0))
                continue;
            bad |= fuzz_replay(sub, all, count);
        }
        closedir(d);
        return bad;
    }
    f = fopen(path, "rb");
    if (!f) return 1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (char *)malloc((size_t)n + 1);
    if (!buf || n < 0 || fread(buf, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(buf); return 1; }
    fclose(f);
    LLVMFuzzerTestOneInput((const uint8_t *)buf, (size_t)n);
    free(buf);
    ++*count;
    return 0;
}

int main(int argc, char **argv)
{
    int i, bad = 0, count = 0;
    if (argc == 1) {
        bad |= fuzz_replay("examples", 0, &count);
        bad |= fuzz_replay("tests", 0, &count);
        bad |= fuzz_replay("tests/fuzz/regress", 1, &count);
    }
    for (i = 1; i < argc; i++) bad |= fuzz_replay(argv[i], 1, &count);
    printf("%d inputs: %s\n", count, FUZZ_WHAT);
#ifdef FUZZ_STATS
    FUZZ_STATS();
#endif
    printf("%d passed, %d failed\n", count, bad);
    return bad;
}
