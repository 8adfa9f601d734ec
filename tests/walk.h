/* walk.h - every .pto file under a directory, for the tests that run over
   the repo's kernels (test_readers.c, test_sync_check.c). */

#ifndef PTO_TEST_WALK_H
#define PTO_TEST_WALK_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Calls fn with the path of every .pto file under dir, recursively, in
   readdir's order; hidden entries are skipped. */
static void t_walk_pto(const char *dir, void (*fn)(const char *path))
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1024];
    struct stat sb;
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) t_walk_pto(path, fn);
        else if (n > 4 && strcmp(e->d_name + n - 4, ".pto") == 0) fn(path);
    }
    closedir(d);
}

#endif
