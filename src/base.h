/* base.h - version, configuration, the context, the allocator, diagnostics.

   Everything pto does happens inside a pto_ctx: it owns the allocator, the
   string table, the diagnostics and every module built in it. There is no
   global mutable state, so two contexts on two threads never interact.

   Errors are values: every fallible function returns a pto_status and leaves
   one or more pto_diag records (message plus FILE:LINE:COL) in the context.
   Bad input never crashes and never aborts; PTO_ASSERT guards only internal
   invariants that no input can break. */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PTO_VERSION_MAJOR 0
#define PTO_VERSION_MINOR 1
#define PTO_VERSION_PATCH 0
#define PTO_VERSION_STRING "0.1.0"

#ifndef PTODEF
#ifdef PTO_STATIC
#if defined(__GNUC__) || defined(__clang__) || defined(__TINYC__)
#define PTODEF static __attribute__((unused))
#else
#define PTODEF static
#endif
#else
#ifdef __cplusplus
#define PTODEF extern "C"
#else
#define PTODEF extern
#endif
#endif
#endif

typedef enum pto_status {
    PTO_OK = 0,
    PTO_ERR_USER = 1,     /* the input is wrong: see the diagnostics */
    PTO_ERR_INTERNAL = 2  /* pto is wrong (or out of memory) */
} pto_status;

typedef enum pto_severity { PTO_SEV_ERROR, PTO_SEV_WARNING, PTO_SEV_NOTE } pto_severity;

/* A source location. file indexes the context's file table (pto_file_name). */
typedef struct pto_loc {
    int32_t file, line, col;
} pto_loc;

typedef struct pto_diag {
    pto_severity severity;
    pto_loc loc;
    char *msg;
} pto_diag;

typedef struct pto_allocator {
    void *(*alloc)(size_t size, void *user);
    void *(*realloc)(void *ptr, size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} pto_allocator;

/* Zero-initialised fields take their defaults. */
typedef struct pto_ctx_desc {
    pto_allocator allocator; /* all three or none; default PTO_MALLOC & co */
    int max_diags;           /* stop recording after this many diagnostics (default 50); the
                                ones past it are counted (pto_diag_dropped) */
} pto_ctx_desc;

typedef struct pto_ctx pto_ctx;

PTODEF pto_ctx *pto_ctx_create(const pto_ctx_desc *desc);
PTODEF void pto_ctx_destroy(pto_ctx *ctx);

/* Diagnostics recorded so far, in order. pto_diag_get returns NULL for i
   out of range; a NULL ctx has none. pto_diag_format truncates to `size`
   bytes (NUL included; nothing for a NULL buf or size 0; "" for a NULL d). */
PTODEF int pto_diag_count(const pto_ctx *ctx);
PTODEF const pto_diag *pto_diag_get(const pto_ctx *ctx, int i);
PTODEF int pto_error_count(const pto_ctx *ctx);
PTODEF void pto_diag_clear(pto_ctx *ctx);
/* How many diagnostics of severity sev were not recorded, past
   pto_ctx_desc.max_diags (pto_error_count counts those errors too). */
PTODEF int pto_diag_dropped(const pto_ctx *ctx, pto_severity sev);
/* Writes "FILE:LINE:COL: error: MESSAGE\n" for every diagnostic, then, when
   some were dropped, "... and 30 more errors not shown (the first 50 shown)". */
PTODEF void pto_diag_print(const pto_ctx *ctx, FILE *out);
PTODEF void pto_diag_format(const pto_ctx *ctx, const pto_diag *d, char *buf, size_t size);

/* Report a diagnostic (printf-style). Returns PTO_ERR_USER for errors so a
   caller can write `return pto_error(...)`. */
PTODEF pto_status pto_error(pto_ctx *ctx, pto_loc loc, const char *fmt, ...);
PTODEF void pto_warning(pto_ctx *ctx, pto_loc loc, const char *fmt, ...);
PTODEF void pto_note(pto_ctx *ctx, pto_loc loc, const char *fmt, ...);

/* File names for locations. pto_file_add returns the id used in pto_loc.file. */
PTODEF int32_t pto_file_add(pto_ctx *ctx, const char *name);
PTODEF const char *pto_file_name(const pto_ctx *ctx, int32_t file);

/* Interned strings: equal text gives equal ids; id 0 is the empty string. */
PTODEF int32_t pto_intern(pto_ctx *ctx, const char *s, size_t len);
PTODEF const char *pto_str(const pto_ctx *ctx, int32_t id);

/* Memory through the context's allocator. A failure (NULL) records "out of
   memory" in the context, once until pto_diag_clear. */
PTODEF void *pto_alloc(pto_ctx *ctx, size_t size);
PTODEF void *pto_realloc(pto_ctx *ctx, void *p, size_t size);
PTODEF void pto_free(pto_ctx *ctx, void *p);
