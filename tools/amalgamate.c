/* amalgamate.c - builds the single-file headers (pto.h, pto_kernels.h) from
   the modular sources in src/, as listed in src/manifest.txt.

   usage: amalgamate [-C DIR] [--check] [OUTPUT...]

   The output is deterministic (no dates, no paths beyond the manifest's own
   names) so that a stale header shows up as a diff. Each source is wrapped in
   "Begin file / End file" banners; local `#include "..."` lines are dropped
   because the amalgamation already holds every file in order.

   It also enforces the naming discipline of the implementation section:
   a function whose name starts with pto__ must be static, and nothing
   declared PTODEF may be private. A violation fails the build.

   An implementation file of kind `core` sits inside a further
   #ifndef IMPLMACRO_LINKED: a program that links the implementation from an
   object compiled once (ptoc run's cache) defines it, and its own
   translation unit keeps only the `impl` files (the host harness).

   With --check nothing is written: the tool exits 1 when an output on disk
   differs from what it would generate (the staleness test uses this). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTS 64

typedef struct part {
    char kind[16];
    char path[256];
} part;

typedef struct output {
    char name[128], guard[64], impl[64];
    part parts[MAX_PARTS];
    int nparts;
} output;

typedef struct buf {
    char *data;
    size_t len, cap;
} buf;

static void buf_put(buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 65536;
        while (cap < b->len + n + 1) cap *= 2;
        b->data = (char *)realloc(b->data, cap);
        if (!b->data) {
            fprintf(stderr, "amalgamate: out of memory\n");
            exit(2);
        }
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

static void buf_puts(buf *b, const char *s) { buf_put(b, s, strlen(s)); }

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = (char *)malloc((size_t)n + 1);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(data);
        return NULL;
    }
    data[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return data;
}

static int starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Private function definitions seen so far in one output: every source file is
   part of one translation unit, so two files must not define the same name. */
typedef struct seen_name {
    char name[96];
    char path[256];
} seen_name;
static seen_name seen[4096];
static int nseen;

static int check_duplicate(const char *path, int lineno, const char *line)
{
    const char *p = strstr(line, "pto__"), *paren, *end = line + strlen(line);
    char name[96];
    size_t n;
    int i;
    if (!starts_with(line, "static") || !p) return 0;
    paren = strchr(p, '(');
    if (!paren || strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_") != (size_t)(paren - p)) return 0;
    while (end > line && (end[-1] == ' ' || end[-1] == '\r')) end--;
    if (end > line && end[-1] == ';') return 0; /* a declaration, not a definition */
    n = (size_t)(paren - p) < sizeof name - 1 ? (size_t)(paren - p) : sizeof name - 1;
    memcpy(name, p, n);
    name[n] = 0;
    for (i = 0; i < nseen; i++)
        if (strcmp(seen[i].name, name) == 0) {
            if (strcmp(seen[i].path, path) == 0) return 0;
            fprintf(stderr, "%s:%d: %s is already defined in %s (all of src/ is one translation unit: "
                    "give private names a per-file prefix)\n", path, lineno, name, seen[i].path);
            return 1;
        }
    if (nseen < (int)(sizeof seen / sizeof seen[0])) {
        strcpy(seen[nseen].name, name);
        snprintf(seen[nseen].path, sizeof seen[nseen].path, "%s", path);
        nseen++;
    }
    return 0;
}

/* Naming rules on one line of implementation code at file scope. */
static int check_line(const char *path, int lineno, const char *line)
{
    if (check_duplicate(path, lineno, line)) return 1;
    const char *p = strstr(line, "pto__");
    if (line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '/' || line[0] == '*')
        return 0;
    if (starts_with(line, "PTODEF")) {
        const char *paren = strchr(line, '(');
        if (p && paren && p < paren) {
            fprintf(stderr, "%s:%d: a PTODEF (public) function must not have a pto__ name\n", path, lineno);
            return 1;
        }
        return 0;
    }
    if (p && strchr(p, '(') && !starts_with(line, "static") && !starts_with(line, "typedef") &&
        !starts_with(line, "struct") && !starts_with(line, "}") && strchr(line, '=') == NULL) {
        /* `type pto__name(` at column 0: a private function without static */
        const char *q = line;
        while (q < p && *q != '(' && *q != ';') q++;
        if (q == p) {
            fprintf(stderr, "%s:%d: private function %.*s is not static\n", path, lineno,
                    (int)strcspn(p, "("), p);
            return 1;
        }
    }
    return 0;
}

static int append_file(buf *out, const char *dir, const part *pt, int banner, int check)
{
    char full[600];
    size_t len, i = 0;
    int lineno = 0, bad = 0;
    char *data;
    snprintf(full, sizeof full, "%s/%s", dir, pt->path);
    data = read_file(full, &len);
    if (!data) {
        fprintf(stderr, "amalgamate: cannot read %s\n", full);
        return 1;
    }
    if (banner) {
        buf_puts(out, "\n/* ---- Begin file: ");
        buf_puts(out, pt->path);
        buf_puts(out, " ---- */\n");
    }
    while (i < len) {
        size_t j = i;
        char line[4096];
        size_t n;
        while (j < len && data[j] != '\n') j++;
        n = j - i < sizeof line - 1 ? j - i : sizeof line - 1;
        memcpy(line, data + i, n);
        line[n] = 0;
        lineno++;
        if (starts_with(line, "#include \"")) {
            /* local include: the amalgamation already has it */
        } else {
            if (check) bad |= check_line(pt->path, lineno, line);
            buf_put(out, data + i, j - i);
            buf_puts(out, "\n");
        }
        i = j + 1;
    }
    if (banner) {
        buf_puts(out, "/* ---- End file: ");
        buf_puts(out, pt->path);
        buf_puts(out, " ---- */\n");
    }
    free(data);
    return bad;
}

static int build(const char *dir, const output *o, buf *out)
{
    int i, bad = 0, in_public = 0, in_impl = 0, in_core = 0;
    nseen = 0;
    for (i = 0; i < o->nparts; i++) {
        const part *pt = &o->parts[i];
        int is_public = strcmp(pt->kind, "public") == 0 || strcmp(pt->kind, "body") == 0;
        int is_core = strcmp(pt->kind, "core") == 0;
        int is_impl = is_core || strcmp(pt->kind, "impl") == 0;
        if (in_core && !is_core) {
            buf_puts(out, "\n#endif /* ");
            buf_puts(out, o->impl);
            buf_puts(out, "_LINKED */\n");
            in_core = 0;
        }
        if (in_public && !is_public) {
            buf_puts(out, "\n#endif /* ");
            buf_puts(out, o->guard);
            buf_puts(out, " */\n");
            in_public = 0;
        }
        if (in_impl && !is_impl) {
            buf_puts(out, "\n#endif /* ");
            buf_puts(out, o->impl);
            buf_puts(out, " */\n");
            in_impl = 0;
        }
        if (is_public && !in_public) {
            buf_puts(out, "\n#ifndef ");
            buf_puts(out, o->guard);
            buf_puts(out, "\n#define ");
            buf_puts(out, o->guard);
            buf_puts(out, "\n");
            in_public = 1;
        }
        if (is_impl && !in_impl) {
            /* the _DONE guard lets a file include the header twice with the
               implementation switch on */
            buf_puts(out, "\n#if defined(");
            buf_puts(out, o->impl);
            buf_puts(out, ") && !defined(");
            buf_puts(out, o->impl);
            buf_puts(out, "_DONE)\n#define ");
            buf_puts(out, o->impl);
            buf_puts(out, "_DONE\n");
            in_impl = 1;
        }
        if (is_core && !in_core) {
            buf_puts(out, "\n#ifndef ");
            buf_puts(out, o->impl);
            buf_puts(out, "_LINKED\n");
            in_core = 1;
        }
        bad |= append_file(out, dir, pt, is_public || is_impl, is_impl);
    }
    if (in_public) buf_puts(out, "\n#endif\n");
    if (in_core) buf_puts(out, "\n#endif\n");
    if (in_impl) buf_puts(out, "\n#endif\n");
    return bad;
}

static int read_manifest(const char *dir, output *outs, int max)
{
    char path[600], line[512];
    FILE *f;
    int n = -1;
    snprintf(path, sizeof path, "%s/src/manifest.txt", dir);
    f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "amalgamate: cannot read %s\n", path);
        exit(2);
    }
    while (fgets(line, sizeof line, f)) {
        char a[128], b[256], c[64], d[64];
        int k = sscanf(line, "%127s %255s %63s %63s", a, b, c, d);
        if (k < 2 || a[0] == '#') continue;
        if (strcmp(a, "output") == 0 && k == 4) {
            if (++n >= max) break;
            memset(&outs[n], 0, sizeof outs[n]);
            strcpy(outs[n].name, b);
            strcpy(outs[n].guard, c);
            strcpy(outs[n].impl, d);
        } else if (n >= 0 && outs[n].nparts < MAX_PARTS) {
            part *pt = &outs[n].parts[outs[n].nparts++];
            strcpy(pt->kind, a);
            strcpy(pt->path, b);
        }
    }
    fclose(f);
    return n + 1;
}

int main(int argc, char **argv)
{
    const char *dir = ".";
    int check = 0, i, j, nouts, status = 0, nwanted = 0;
    const char *wanted[16];
    output *outs = (output *)calloc(8, sizeof(output));
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-C") == 0 && i + 1 < argc) dir = argv[++i];
        else if (strcmp(argv[i], "--check") == 0) check = 1;
        else if (nwanted < 16) wanted[nwanted++] = argv[i];
    }
    nouts = read_manifest(dir, outs, 8);
    for (i = 0; i < nouts; i++) {
        buf out = {0, 0, 0};
        char path[600];
        int want = nwanted == 0;
        for (j = 0; j < nwanted; j++) want |= strcmp(wanted[j], outs[i].name) == 0;
        if (!want) continue;
        if (build(dir, &outs[i], &out)) {
            status = 1;
            free(out.data);
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, outs[i].name);
        if (check) {
            size_t len = 0;
            char *old = read_file(path, &len);
            if (!old || len != out.len || memcmp(old, out.data, len) != 0) {
                fprintf(stderr, "%s is stale: run `make` to regenerate it from src/\n", outs[i].name);
                status = 1;
            }
            free(old);
        } else {
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(out.data, 1, out.len, f) != out.len) {
                fprintf(stderr, "amalgamate: cannot write %s\n", path);
                status = 2;
            }
            if (f) fclose(f);
        }
        free(out.data);
    }
    free(outs);
    return status;
}
