/* base.c - the context, allocation, interned strings, file names and
   diagnostics.

   Diagnostics are kept in order; pto_error returns PTO_ERR_USER so that a
   pass can report and return in one statement. Running out of memory is
   reported once, as an internal error at no location. */

/* Huge pages for the big arrays. A large kernel's module is tens of
   megabytes of arrays written once, front to back (at 100k instructions,
   ~36 MB after parse and ~140 MB after sync); touched 4 KB at a time, that
   is one page fault per 4 KB, and on some machines (VMs) a fault costs
   ~6 us: a quarter of the whole compile. Linux gives 2 MB pages to a range
   marked MADV_HUGEPAGE even when transparent huge pages are "madvise"
   only, so the default allocator marks every block of 2 MB or more it gets
   from malloc (realloc's too: a grown array may move). The range marked is
   the block rounded out to whole 4 KB pages: for glibc's blocks of that
   size (each its own mapping) that is exactly the mapping, so the mapping
   is not split and realloc can still grow it in place. A hint only: no
   error is possible or checked, and nothing else changes. Off with
   PTO_NO_HUGEPAGES, with a PTO_MALLOC of one's own or a runtime allocator
   (pto_ctx_desc), and on other systems. madvise is declared here when the
   header hides it (-std=c99 without _DEFAULT_SOURCE) on the machines whose
   MADV_HUGEPAGE is 14. */
#if defined(__linux__) && defined(PTO__LIBC_MALLOC) && !defined(PTO_NO_HUGEPAGES)
#include <sys/mman.h>
#if defined(MADV_HUGEPAGE)
#define PTO__MADV_HUGE MADV_HUGEPAGE
#elif !defined(__cplusplus) && (defined(__x86_64__) || defined(__aarch64__) || defined(__i386__))
int madvise(void *addr, size_t len, int advice);
#define PTO__MADV_HUGE 14
#endif
#endif

static void *pto__huge_hint(void *p, size_t size)
{
#ifdef PTO__MADV_HUGE
    if (p && size >= ((size_t)2 << 20)) {
        uintptr_t page = 4095, a = (uintptr_t)p & ~page, b = ((uintptr_t)p + size + page) & ~page;
        (void)madvise((void *)a, (size_t)(b - a), PTO__MADV_HUGE);
    }
#else
    (void)size;
#endif
    return p;
}

/* (void)user: a PTO_MALLOC(sz, u) of one's own that ignores u must not
   leave an unused parameter here under -Wextra -Werror (review29 L4). */
static void *pto__default_alloc(size_t size, void *user)
{
    (void)user;
    return pto__huge_hint(PTO_MALLOC(size, user), size);
}
static void *pto__default_realloc(void *p, size_t size, void *user)
{
    (void)user;
    return pto__huge_hint(PTO_REALLOC(p, size, user), size);
}
static void pto__default_free(void *p, void *user)
{
    (void)user;
    PTO_FREE(p, user);
}

PTODEF pto_ctx *pto_ctx_create(const pto_ctx_desc *desc)
{
    pto_ctx_desc d;
    pto_ctx *ctx;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (!d.allocator.alloc || !d.allocator.realloc || !d.allocator.free) {
        d.allocator.alloc = pto__default_alloc;
        d.allocator.realloc = pto__default_realloc;
        d.allocator.free = pto__default_free;
    }
    ctx = (pto_ctx *)d.allocator.alloc(sizeof *ctx, d.allocator.user);
    if (!ctx) return NULL;
    memset(ctx, 0, sizeof *ctx);
    ctx->al = d.allocator;
    ctx->max_diags = d.max_diags > 0 ? d.max_diags : 50;
    if (pto_intern(ctx, "", 0) != 0) {
        pto_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

PTODEF void pto_ctx_destroy(pto_ctx *ctx)
{
    int32_t i;
    if (!ctx) return;
    pto_diag_clear(ctx);
    pto_free(ctx, ctx->diags);
    for (i = 0; i < ctx->n_files; i++) pto_free(ctx, ctx->files[i]);
    pto_free(ctx, ctx->files);
    pto_free(ctx, ctx->pool);
    pto_free(ctx, ctx->str_off);
    pto_free(ctx, ctx->hash);
    ctx->al.free(ctx, ctx->al.user);
}

static void pto__oom(pto_ctx *ctx)
{
    pto_loc none = {0, 0, 0};
    if (ctx->oom_reported) return;
    ctx->oom_reported = 1;
    pto_error(ctx, none, "out of memory");
}

/* Quiet allocation, for best-effort reservations whose failure is no error
   (the array still grows on demand): NULL without a diagnostic. */
static void *pto__alloc_quiet(pto_ctx *ctx, size_t size) { return ctx->al.alloc(size ? size : 1, ctx->al.user); }
static void *pto__realloc_quiet(pto_ctx *ctx, void *p, size_t size)
{
    if (!p) return pto__alloc_quiet(ctx, size);
    return ctx->al.realloc(p, size ? size : 1, ctx->al.user);
}

/* A failure is reported here ("out of memory", once per context until
   pto_diag_clear), so that no caller can fail without an error recorded. */
PTODEF void *pto_alloc(pto_ctx *ctx, size_t size)
{
    void *p = pto__alloc_quiet(ctx, size);
    if (!p) pto__oom(ctx);
    return p;
}
PTODEF void *pto_realloc(pto_ctx *ctx, void *p, size_t size)
{
    void *q = pto__realloc_quiet(ctx, p, size);
    if (!q) pto__oom(ctx);
    return q;
}
PTODEF void pto_free(pto_ctx *ctx, void *p)
{
    if (p) ctx->al.free(p, ctx->al.user);
}

/* Makes room for one more element of `elem` bytes; returns its index or -1. */
static int32_t pto__grow(pto_ctx *ctx, void **arr, int32_t *n, int32_t *cap, size_t elem)
{
    if (*n == *cap) {
        int32_t ncap = *cap ? *cap * 2 : 16;
        void *p;
        if (*cap > INT32_MAX / 2) { pto__oom(ctx); return -1; }
        p = pto_realloc(ctx, *arr, (size_t)ncap * elem);
        if (!p) { pto__oom(ctx); return -1; }
        *arr = p;
        *cap = ncap;
    }
    memset((char *)*arr + (size_t)*n * elem, 0, elem);
    return (*n)++;
}

static char *pto__strndup(pto_ctx *ctx, const char *s, size_t n)
{
    char *p = (char *)pto_alloc(ctx, n + 1);
    if (!p) { pto__oom(ctx); return NULL; }
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

/* ---- files ---- */

PTODEF int32_t pto_file_add(pto_ctx *ctx, const char *name)
{
    int32_t i;
    char *copy;
    if (!name) name = "<input>";
    for (i = 0; i < ctx->n_files; i++)
        if (strcmp(ctx->files[i], name) == 0) return i;
    copy = pto__strndup(ctx, name, strlen(name));
    if (!copy) return 0;
    i = pto__grow(ctx, (void **)&ctx->files, &ctx->n_files, &ctx->cap_files, sizeof(char *));
    if (i < 0) { pto_free(ctx, copy); return 0; }
    ctx->files[i] = copy;
    return i;
}

PTODEF const char *pto_file_name(const pto_ctx *ctx, int32_t file)
{
    if (file < 0 || file >= ctx->n_files) return "<input>";
    return ctx->files[file];
}

/* ---- interned strings ---- */

/* FNV-1a, one byte at a time (the lexer hashes a name while it scans it). */
#define PTO__HASH_SEED 2166136261u
static uint32_t pto__hash_step(uint32_t h, int c) { return (h ^ (uint32_t)(c & 0xff)) * 16777619u; }

static uint32_t pto__hash(const char *s, size_t n)
{
    uint32_t h = PTO__HASH_SEED;
    size_t i;
    for (i = 0; i < n; i++) h = pto__hash_step(h, (unsigned char)s[i]);
    return h;
}

/* Whether a table of cap slots is too full for n strings: above three
   quarters (the probes stay short, as each slot keeps its full hash; a
   large file's table is reserved whole, so its size is pages touched). */
static int pto__hash_full(size_t n, int32_t cap) { return n * 4 > (size_t)cap * 3; }

/* Moves the table to ncap slots; 0 (nothing changed) when out of memory.
   Quiet: pto__rehash reports, pto__intern_reserve need not. The table
   keeps each slot's full hash next to its id (struct pto__hslot): a probe
   compares hashes first and touches the pool only on a likely match, and
   growing the table never rehashes a string. */
static int pto__rehash_quiet(pto_ctx *ctx, int32_t ncap)
{
    struct pto__hslot *h = (struct pto__hslot *)pto__alloc_quiet(ctx, sizeof *h * (size_t)ncap);
    int32_t i;
    if (!h) return 0;
    for (i = 0; i < ncap; i++) h[i].id = -1;
    for (i = 0; i < ctx->hash_cap; i++) {
        uint32_t k;
        if (ctx->hash[i].id < 0) continue;
        k = ctx->hash[i].hv & (uint32_t)(ncap - 1);
        while (h[k].id >= 0) k = (k + 1) & (uint32_t)(ncap - 1);
        h[k] = ctx->hash[i];
    }
    pto_free(ctx, ctx->hash);
    ctx->hash = h;
    ctx->hash_cap = ncap;
    return 1;
}

static int pto__rehash(pto_ctx *ctx, int32_t ncap)
{
    if (pto__rehash_quiet(ctx, ncap)) return 1;
    pto__oom(ctx);
    return 0;
}

/* Best effort: sizes the table for n strings at once (the parser's estimate
   for a large file), so that it is not rebuilt at every doubling on the way
   (each rebuild touches a fresh table and re-inserts every slot). */
static void pto__intern_reserve(pto_ctx *ctx, size_t n)
{
    int32_t ncap = ctx->hash_cap ? ctx->hash_cap : 64;
    if (n > (size_t)INT32_MAX / 16) return;
    while (pto__hash_full(n + 1, ncap)) ncap *= 2;
    if (ncap > ctx->hash_cap) pto__rehash_quiet(ctx, ncap);
    /* the offsets and the pool too (8 bytes a name): their doublings copy */
    if (n + 2 > (size_t)ctx->cap_strs) {
        int32_t *o = (int32_t *)pto__realloc_quiet(ctx, ctx->str_off, sizeof *o * (n + 2));
        if (o) { ctx->str_off = o; ctx->cap_strs = (int32_t)(n + 2); }
    }
    if (ctx->pool_len + n * 8 > ctx->pool_cap) {
        char *q = (char *)pto__realloc_quiet(ctx, ctx->pool, ctx->pool_len + n * 8);
        if (q) { ctx->pool = q; ctx->pool_cap = ctx->pool_len + n * 8; }
    }
}

/* Appends s to the pool as a new string id, not entered in the table:
   pto__intern_add's first half, and on its own for text that is never
   looked up (the sync pass's dependency notes, one per flag group), where
   hashing would only cost time. -1 when out of memory. */
static int32_t pto__str_add(pto_ctx *ctx, const char *s, size_t len)
{
    int32_t id = ctx->n_strs;
    if (ctx->pool_len + len + 1 > ctx->pool_cap) {
        size_t ncap = ctx->pool_cap ? ctx->pool_cap : 1024;
        char *p;
        while (ncap < ctx->pool_len + len + 1) ncap *= 2;
        p = (char *)pto_realloc(ctx, ctx->pool, ncap);
        if (!p) { pto__oom(ctx); return -1; }
        ctx->pool = p;
        ctx->pool_cap = ncap;
    }
    if (id + 2 > ctx->cap_strs) {   /* room for the id and the end sentinel */
        int32_t ncap = ctx->cap_strs ? ctx->cap_strs * 2 : 64;
        int32_t *o;
        if (ctx->cap_strs > INT32_MAX / 2) { pto__oom(ctx); return -1; }
        o = (int32_t *)pto_realloc(ctx, ctx->str_off, sizeof *o * (size_t)ncap);
        if (!o) { pto__oom(ctx); return -1; }
        ctx->str_off = o;
        ctx->cap_strs = ncap;
    }
    ctx->str_off[id] = (int32_t)ctx->pool_len;
    memcpy(ctx->pool + ctx->pool_len, s, len);
    ctx->pool[ctx->pool_len + len] = 0;
    ctx->pool_len += len + 1;
    ctx->str_off[id + 1] = (int32_t)ctx->pool_len;
    ctx->n_strs = id + 1;
    return id;
}

/* Adds s (not yet interned) to the pool and the table; returns its id. The
   slow half of pto__intern_hashed, kept apart so that the lookup (every
   name token of the parser) stays small. */
static int32_t pto__intern_add(pto_ctx *ctx, const char *s, size_t len, uint32_t hv, uint32_t k)
{
    int32_t id;
    if (pto__hash_full(ctx->n_strs + 1, ctx->hash_cap)) {
        /* a new table: the free slot the lookup found (k) is no longer the one */
        if (!pto__rehash(ctx, ctx->hash_cap ? ctx->hash_cap * 2 : 64)) return 0;
        k = hv & (uint32_t)(ctx->hash_cap - 1);
        while (ctx->hash[k].id >= 0) k = (k + 1) & (uint32_t)(ctx->hash_cap - 1);
    }
    if ((id = pto__str_add(ctx, s, len)) < 0) return 0;
    ctx->hash[k].hv = hv;
    ctx->hash[k].id = id;
    return id;
}

/* Length of interned string id (the pool holds them back to back). */
static size_t pto__str_len(const pto_ctx *ctx, int32_t id)
{
    return (size_t)(ctx->str_off[id + 1] - ctx->str_off[id]) - 1;
}

/* memcmp(a, b, n) == 0 for short n without a call: four bytes at a time
   (memcpy into a word is one load), then the tail. */
static int pto__same_bytes(const char *a, const char *b, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t x, y;
        memcpy(&x, a + i, 4);
        memcpy(&y, b + i, 4);
        if (x != y) return 0;
    }
    for (; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* pto_intern with the hash of s already known (pto__hash(s, len)). */
static int32_t pto__intern_hashed(pto_ctx *ctx, const char *s, size_t len, uint32_t hv)
{
    uint32_t mask = (uint32_t)ctx->hash_cap - 1, k = hv & mask;
    const struct pto__hslot *h = ctx->hash;
    if (!h) return pto__intern_add(ctx, s, len, hv, 0);   /* (no table: it is made first) */
    for (;; k = (k + 1) & mask) {
        int32_t id = h[k].id;
        if (id < 0) {   /* k: where it goes */
            int32_t nid = ctx->n_strs;
            /* the usual new string, with room in the table, the offsets and the pool (the
               parser reserves them for a large file): pto__intern_add's work in line, without
               its two calls (a new name of a large file was ~190 Ir, a quarter of it calls) */
            if (!pto__hash_full((size_t)nid + 1, ctx->hash_cap) && nid + 2 <= ctx->cap_strs &&
                ctx->pool_len + len + 1 <= ctx->pool_cap) {
                char *d = ctx->pool + ctx->pool_len;
                memcpy(d, s, len);
                d[len] = 0;
                ctx->str_off[nid] = (int32_t)ctx->pool_len;
                ctx->pool_len += len + 1;
                ctx->str_off[nid + 1] = (int32_t)ctx->pool_len;
                ctx->n_strs = nid + 1;
                ctx->hash[k].hv = hv;
                ctx->hash[k].id = nid;
                return nid;
            }
            return pto__intern_add(ctx, s, len, hv, k);
        }
        if (h[k].hv == hv && (size_t)(ctx->str_off[id + 1] - ctx->str_off[id]) == len + 1) {
            if (pto__same_bytes(ctx->pool + ctx->str_off[id], s, len)) return id;
        }
    }
}

PTODEF int32_t pto_intern(pto_ctx *ctx, const char *s, size_t len)
{
    if (!s) len = 0, s = "";
    return pto__intern_hashed(ctx, s, len, pto__hash(s, len));
}

PTODEF const char *pto_str(const pto_ctx *ctx, int32_t id)
{
    if (id < 0 || id >= ctx->n_strs) return "";
    return ctx->pool + ctx->str_off[id];
}

/* ---- diagnostics ---- */

static void pto__vdiag(pto_ctx *ctx, pto_severity sev, pto_loc loc, const char *fmt, va_list ap)
{
    char msg[1024];   /* a sync note names two dependencies and what sharing costs */
    int32_t i;
    if (sev == PTO_SEV_ERROR) ctx->n_errors++;
    if (ctx->n_diags >= ctx->max_diags) {   /* counted, so that a list that stops there says so (review29 L6) */
        if ((unsigned)sev <= PTO_SEV_NOTE) ctx->dropped[sev]++;
        return;
    }
    vsnprintf(msg, sizeof msg, fmt, ap);
    i = pto__grow(ctx, (void **)&ctx->diags, &ctx->n_diags, &ctx->cap_diags, sizeof(pto_diag));
    if (i < 0) return;
    ctx->diags[i].severity = sev;
    ctx->diags[i].loc = loc;
    ctx->diags[i].msg = pto__strndup(ctx, msg, strlen(msg));
    if (!ctx->diags[i].msg) ctx->n_diags--;
}

PTODEF pto_status pto_error(pto_ctx *ctx, pto_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pto__vdiag(ctx, PTO_SEV_ERROR, loc, fmt, ap);
    va_end(ap);
    return PTO_ERR_USER;
}

PTODEF void pto_warning(pto_ctx *ctx, pto_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pto__vdiag(ctx, PTO_SEV_WARNING, loc, fmt, ap);
    va_end(ap);
}

PTODEF void pto_note(pto_ctx *ctx, pto_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pto__vdiag(ctx, PTO_SEV_NOTE, loc, fmt, ap);
    va_end(ap);
}

PTODEF int pto_diag_count(const pto_ctx *ctx) { return ctx ? ctx->n_diags : 0; }
PTODEF int pto_diag_dropped(const pto_ctx *ctx, pto_severity sev)
{
    return ctx && (unsigned)sev <= PTO_SEV_NOTE ? ctx->dropped[sev] : 0;
}
PTODEF int pto_error_count(const pto_ctx *ctx) { return ctx ? ctx->n_errors : 0; }
PTODEF const pto_diag *pto_diag_get(const pto_ctx *ctx, int i)
{
    return (ctx && i >= 0 && i < ctx->n_diags) ? &ctx->diags[i] : NULL;
}

static pto__dmark pto__diag_mark(const pto_ctx *ctx)
{
    pto__dmark mk;
    mk.n = ctx->n_diags;
    mk.nerr = ctx->n_errors;
    memcpy(mk.dropped, ctx->dropped, sizeof mk.dropped);
    return mk;
}

/* Drops the diagnostics said after mark mk (recorded, or counted as
   dropped past max_diags): a pass that finds its input malformed part way
   through reports that alone, and a quiet try says nothing. */
static void pto__diag_truncate(pto_ctx *ctx, const pto__dmark *mk)
{
    while (ctx->n_diags > mk->n) pto_free(ctx, ctx->diags[--ctx->n_diags].msg);
    ctx->n_errors = mk->nerr;
    memcpy(ctx->dropped, mk->dropped, sizeof ctx->dropped);
}

PTODEF void pto_diag_clear(pto_ctx *ctx)
{
    int32_t i;
    for (i = 0; i < ctx->n_diags; i++) pto_free(ctx, ctx->diags[i].msg);
    ctx->n_diags = 0;
    ctx->n_errors = 0;
    memset(ctx->dropped, 0, sizeof ctx->dropped);
    ctx->oom_reported = 0;
}

PTODEF void pto_diag_format(const pto_ctx *ctx, const pto_diag *d, char *buf, size_t size)
{
    static const char *const sev[] = {"error", "warning", "note"};
    if (!buf || size == 0) return;
    if (!ctx || !d || (unsigned)d->severity > PTO_SEV_NOTE) { buf[0] = 0; return; }
    if (d->loc.line > 0)
        snprintf(buf, size, "%s:%d:%d: %s: %s", pto_file_name(ctx, d->loc.file), (int)d->loc.line,
                 (int)d->loc.col, sev[d->severity], d->msg);
    else
        snprintf(buf, size, "pto: %s: %s", sev[d->severity], d->msg);
}

/* The line that ends a list cut at max_diags: "... and 30 more errors
   not shown (the first 50 shown)" (review29 L6: the list stopped silently). */
static void pto__diag_print_dropped(const pto_ctx *ctx, FILE *out)
{
    static const char *const sev[] = {"error", "warning", "note"};
    int i, said = 0, left = 0;
    for (i = 0; i < 3; i++) left += ctx->dropped[i] > 0;
    if (!left) return;
    fprintf(out, "... and");
    for (i = 0; i < 3; i++) {
        if (!ctx->dropped[i]) continue;
        left--;
        fprintf(out, "%s %d %s%s%s", said ? (left ? "," : " and") : "", (int)ctx->dropped[i], said ? "" : "more ", sev[i],
                ctx->dropped[i] == 1 ? "" : "s");
        said = 1;
    }
    fprintf(out, " not shown (the first %d shown)\n", (int)ctx->n_diags);
}

PTODEF void pto_diag_print(const pto_ctx *ctx, FILE *out)
{
    int32_t i;
    char line[1300];
    if (!ctx || !out) return;
    for (i = 0; i < ctx->n_diags; i++) {
        pto_diag_format(ctx, &ctx->diags[i], line, sizeof line);
        fprintf(out, "%s\n", line);
    }
    pto__diag_print_dropped(ctx, out);
}

/* ---- pto_buf ---- */

PTODEF void pto_buf_flush(pto_buf *b)
{
    if (!b || !b->sink || !b->len) return;
    b->sink(b->data, b->len, b->sink_user);
    b->flushed += b->len;
    b->len = 0;
    b->data[0] = 0;
}

/* The staging area of a buffer with a sink, made (or grown) to hold n more
   bytes; it is allocated once and reused, so streaming touches the same
   memory over and over. 0 when out of memory. */
static int pto__buf_stage(pto_buf *b, size_t n)
{
    size_t size = b->stage ? b->stage : PTO_BUF_STAGE;
    char *p;
    if (size < b->len + n + 1) size = b->len + n + 1;
    if (b->cap >= size) return 1;
    if (!b->ctx) { b->oom = 1; return 0; }   /* no context set: nothing to allocate with */
    p = (char *)pto_realloc(b->ctx, b->data, size);
    if (!p) { b->oom = 1; pto__oom(b->ctx); return 0; }
    b->data = p;
    b->cap = size;
    b->data[b->len] = 0;
    return 1;
}

/* An append of n bytes that does not fit a buffer with a sink: the pending
   bytes go first; s too when it is longer than the staging area (1: done,
   or out of memory), else it is copied there (0). */
static int pto__buf_spill(pto_buf *b, const char *s, size_t n)
{
    pto_buf_flush(b);
    if (!pto__buf_stage(b, 0)) return 1;
    if (n + 1 <= b->cap) return 0;
    b->sink(s, n, b->sink_user);
    b->flushed += n;
    return 1;
}

/* Grows a buffer without a sink to hold n more bytes (doubling); 0 when
   out of memory. */
static int pto__buf_grow(pto_buf *b, size_t n)
{
    size_t ncap = b->cap ? b->cap : 256;
    char *p;
    while (ncap < b->len + n + 1) ncap *= 2;
    if (!b->ctx) {   /* a zeroed buffer works too: the default allocator (review17) */
        p = (char *)PTO_REALLOC(b->data, ncap, NULL);
        if (!p) { b->oom = 1; return 0; }
    } else {
        p = (char *)pto_realloc(b->ctx, b->data, ncap);
        if (!p) { b->oom = 1; pto__oom(b->ctx); return 0; }
    }
    b->data = p;
    b->cap = ncap;
    return 1;
}

PTODEF void pto_buf_putn(pto_buf *b, const char *s, size_t n)
{
    if (!b || b->oom || (!s && n)) return;
    if (b->len + n + 1 > b->cap && (b->sink ? pto__buf_spill(b, s, n) : !pto__buf_grow(b, n))) return;
    if (n) memcpy(b->data + b->len, s, n);   /* (s may be NULL when n is 0) */
    b->len += n;
    b->data[b->len] = 0;
}

PTODEF void pto_buf_puts(pto_buf *b, const char *s) { if (s) pto_buf_putn(b, s, strlen(s)); }

PTODEF void pto_buf_printf(pto_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;
    if (!b || !fmt || b->oom) return;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        pto_buf_putn(b, small, (size_t)n);
    } else {
        char *big = b->ctx ? (char *)pto_alloc(b->ctx, (size_t)n + 1) : NULL;
        if (!big) { b->oom = 1; return; }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        pto_buf_putn(b, big, (size_t)n);
        pto_free(b->ctx, big);
    }
}

PTODEF void pto_buf_free(pto_buf *b)
{
    if (!b) return;
    if (b->data && b->ctx) pto_free(b->ctx, b->data);
    else if (b->data) PTO_FREE(b->data, NULL);
    b->data = NULL;
    b->len = b->cap = 0;
}
