/* internal.h - private helpers shared by every pass (the start of the
   implementation section). Nothing here is part of the public API. */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef PTO_MALLOC
#define PTO__LIBC_MALLOC 1   /* the default allocator is the C library's (base.c's huge-page hint) */
#define PTO_MALLOC(sz, user) ((void)(user), malloc(sz))
#define PTO_REALLOC(p, sz, user) ((void)(user), realloc((p), (sz)))
#define PTO_FREE(p, user) ((void)(user), free(p))
#endif

#ifndef PTO_ASSERT
#include <assert.h>
#define PTO_ASSERT(x) assert(x)
#endif

/* Grow a PTO__ARRAY member of a module to hold one more element.
   Evaluates to the new element's index, or -1 when out of memory. */
#define PTO__PUSH(m, arr) \
    pto__grow((m)->ctx, (void **)&(m)->arr, &(m)->n_##arr, &(m)->cap_##arr, sizeof(*(m)->arr))
/* The same for the module builders (ir.c), with the common case (room
   left) inline: the parser pushes a few elements per token. */
#define PTO__PUSH_FAST(m, arr) \
    ((m)->n_##arr < (m)->cap_##arr \
         ? (memset(&(m)->arr[(m)->n_##arr], 0, sizeof(*(m)->arr)), (m)->n_##arr++) \
         : PTO__PUSH(m, arr))

/* The builders' pushes: pto__pushed (ir.c) marks a module that missed a node. */
#define PTO__MPUSH(m, arr) pto__pushed((m), PTO__PUSH(m, arr))
#define PTO__MPUSH_FAST(m, arr) pto__pushed((m), PTO__PUSH_FAST(m, arr))

/* f32, f16 or bf16: the element types that are floats (a scalar of one is a float in C). */
static inline int pto__dtype_float(int dt) { return dt == PTO_F32 || dt == PTO_F16 || dt == PTO_BF16; }

/* One slot of the intern table: the string's full hash next to its id, so
   a probe reads one cache line and touches the pool only on a likely match. */
struct pto__hslot {
    uint32_t hv;
    int32_t id;
};

/* Where the diagnostics stood (pto__diag_mark), to drop what a quiet try
   said after it (pto__diag_truncate). */
typedef struct pto__dmark {
    int32_t n, nerr, dropped[3];
} pto__dmark;

struct pto_ctx {
    pto_allocator al;
    int max_diags;
    pto_diag *diags;
    int32_t n_diags, cap_diags;
    int32_t n_errors;
    int32_t dropped[3];     /* per severity: diagnostics past max_diags, not recorded (pto_diag_dropped) */
    int oom_reported;
    /* files */
    char **files;
    int32_t n_files, cap_files;
    /* interned strings: one byte pool, offsets, and an open-addressing hash */
    char *pool;
    size_t pool_len, pool_cap;
    int32_t *str_off;       /* [n_strs + 1]: str_off[n_strs] == pool_len */
    int32_t n_strs, cap_strs;
    struct pto__hslot *hash; /* hash_cap slots; id -1 = empty */
    int32_t hash_cap;
    /* tests only: the token parser reads everything (parse.c's quick reads
       off), so tests/test_readers.c can hold the two readers to one result */
    int parse_tokens_only;
};
