/* pto.h - a small code generator for Ascend NPU tile kernels.
   Generated from src/ by tools/amalgamate.c: do not edit by hand.

   WHAT IT IS
     pto takes a kernel written in a tiny IR (text: the .pto format, or built
     through the C API), checks it, lowers composite ops, places every local
     buffer, inserts every pipe synchronisation and writes the kernel source and
     its host code. A reference interpreter runs the IR on host arrays and is the
     oracle for everything the compiler produces.

   DO THIS
     In exactly one C or C++ file:
         #define PTO_IMPLEMENTATION
         #include "pto.h"
     Everywhere else just #include "pto.h".

   OPTIONS (define before the #include that has PTO_IMPLEMENTATION)
     PTO_STATIC              every public function becomes static to that file
     PTO_MALLOC(sz, user)    default allocator (default: malloc)
     PTO_REALLOC(p, sz, user)                    (default: realloc)
     PTO_FREE(p, user)                           (default: free)
     PTO_ASSERT(x)           internal invariant check (default: assert)
     A runtime allocator can also be given in pto_ctx_desc.allocator.

   CONTENTS
     base      version, configuration, context, allocator, diagnostics
     ir        the IR: modules, kernels, params, tiles, statements, operands,
               integer expressions, the op table (X-macro) and the C builder API
     passes    parse -> verify -> lower -> plan -> sync -> emit, each a plain
               function over the IR; print and interp sit beside them

   PIPELINE
     Each pass says what it needs and what it guarantees at the top of its
     section; pto_dump(m, buf) prints the IR with what the passes computed
     (ptoc dump STAGE FILE runs the pipeline up to STAGE and prints it).

   LICENSE
     MIT. See the end of the file.
*/

#ifndef PTO_H_INCLUDED
#define PTO_H_INCLUDED

/* ---- Begin file: src/base.h ---- */
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
    int max_diags;           /* stop recording after this many errors (default 50) */
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
/* Writes "FILE:LINE:COL: error: MESSAGE\n" for every diagnostic. */
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
/* ---- End file: src/base.h ---- */

/* ---- Begin file: src/ir.h ---- */
/* ir.h - the pto IR: data in arrays, integer ids, no pointers between nodes.

   A pto_module holds flat arrays of kernels, params, vars, tiles, statements,
   blocks, operands and expressions. Every cross-reference is an int32 index
   into one of those arrays; -1 means "none". Passes add to the arrays and
   relink statements; they never move or free a node, so ids stay valid for
   the life of the module.

   Shape of a kernel:
     kernel -> params (a contiguous range) and a body block
     block  -> a doubly linked list of statements (head/tail, next/prev)
     stmt   -> OP (op + operand range), TILE (declares a tile), LET (binds a
               var), FOR (var, start/end/step, body), IF (lhs cmp rhs, body,
               orelse), SECTION (the cube { } or vector { } half of a mix kernel)
     operand-> a tile, a GM window T[r, c] (optionally T@p[r, c]), a scalar
               (float literal or scalar param), an integer expression, a pipe
               name, a cube/vector pipe
     expr   -> integer expression tree (64-bit, C semantics)

   The op table (PTO_OPS below) records, for every op, its operands, which
   operand kinds and memory spaces each accepts and whether it is read or
   written, and the hardware pipe it runs on (hardware.md section 3). The
   verifier, planner, sync inserter, interpreter and emitter all read it. */

typedef enum pto_arch { PTO_ARCH_A2A3, PTO_ARCH_A5, PTO_NARCH } pto_arch;

typedef enum pto_dtype {
    PTO_DT_NONE, PTO_F32, PTO_F16, PTO_BF16, PTO_I32, PTO_I8, PTO_NDTYPE
} pto_dtype;

/* Memory spaces. GM is global memory; the others are a core's local buffers. */
typedef enum pto_space {
    PTO_GM, PTO_VEC, PTO_MAT, PTO_LEFT, PTO_RIGHT, PTO_ACC, PTO_BIAS, PTO_SCALING, PTO_NSPACE
} pto_space;

/* Hardware pipes of one core (hardware.md section 3). */
typedef enum pto_pipe {
    PTO_PIPE_S, PTO_PIPE_V, PTO_PIPE_M, PTO_PIPE_MTE1, PTO_PIPE_MTE2, PTO_PIPE_MTE3,
    PTO_PIPE_FIX, PTO_PIPE_ALL, PTO_NPIPE
} pto_pipe;

typedef enum pto_kernel_kind { PTO_KK_VECTOR, PTO_KK_CUBE, PTO_KK_MIX } pto_kernel_kind;

/* Which core a statement or tile belongs to. */
typedef enum pto_core { PTO_CORE_VECTOR, PTO_CORE_CUBE } pto_core;

typedef enum pto_dir { PTO_IN, PTO_OUT, PTO_INOUT } pto_dir;

typedef enum pto_cmp { PTO_EQ, PTO_NE, PTO_LT, PTO_LE, PTO_GT, PTO_GE } pto_cmp;

#define PTO_MAX_NBUF 8        /* most slots an xN tile may have */
#define PTO_NO_ADDR (-1)      /* tile.pin when the planner chooses the address */

/* ---- the op table --------------------------------------------------------
   Operand access/kind bits. A space bit (1 << PTO_VEC, ...) says the operand
   may be a tile in that space (PTO_A_GM: a GM window). */
#define PTO_A_SPACE(s) (1u << (s))
#define PTO_A_GM     PTO_A_SPACE(PTO_GM)
#define PTO_A_VEC    PTO_A_SPACE(PTO_VEC)
#define PTO_A_MAT    PTO_A_SPACE(PTO_MAT)
#define PTO_A_LEFT   PTO_A_SPACE(PTO_LEFT)
#define PTO_A_RIGHT  PTO_A_SPACE(PTO_RIGHT)
#define PTO_A_ACC    PTO_A_SPACE(PTO_ACC)
#define PTO_A_TILES  (PTO_A_VEC | PTO_A_MAT | PTO_A_LEFT | PTO_A_RIGHT | PTO_A_ACC)
#define PTO_A_SCALAR (1u << 10)  /* float literal or scalar param */
#define PTO_A_INT    (1u << 11)  /* integer expression */
#define PTO_A_PIPE   (1u << 12)  /* a pipe name: S V M MTE1 MTE2 MTE3 FIX ALL */
#define PTO_A_CVPIPE (1u << 13)  /* a cube/vector pipe declared in a mix kernel */
#define PTO_A_IMPLICIT (1u << 17) /* filled in by the parser, not written in the text */
#define PTO_A_CMP    (1u << 14)  /* a comparison word: eq ne lt le gt ge (wait) */
#define PTO_A_NMODE  (1u << 15)  /* a notify mode word: set add */
#define PTO_A_WHOLE  (1u << 16)  /* with PTO_A_GM: a whole tensor, its name without [r, c] */
#define PTO_A_READ   (1u << 20)
#define PTO_A_WRITE  (1u << 21)
#define PTO_R(m)  ((m) | PTO_A_READ)
#define PTO_W(m)  ((m) | PTO_A_WRITE)
#define PTO_RW(m) ((m) | PTO_A_READ | PTO_A_WRITE)

/* Op classes: how the interpreter and the verifier treat an op. */
typedef enum pto_opclass {
    PTO_OC_LOAD,     /* tile <- GM window */
    PTO_OC_STORE,    /* GM window <- tile */
    PTO_OC_BIN,      /* d = a op b, elementwise */
    PTO_OC_BINS,     /* d = a op scalar */
    PTO_OC_UN,       /* d = f(a) */
    PTO_OC_FILL,     /* d = scalar */
    PTO_OC_ROWRED,   /* d[r, 0] = reduce over a[r, :] */
    PTO_OC_ROWEXP,   /* d[r, c] = a[r, c] op v[r, 0] */
    PTO_OC_COLRED,   /* d[0, c] = reduce over a[:, c] */
    PTO_OC_COLEXP,   /* d[r, c] = a[r, c] op v[0, c] */
    PTO_OC_CVT,      /* d = (dtype of d) a */
    PTO_OC_MOV,      /* copy between spaces */
    PTO_OC_EXTRACT,  /* d = window of a at (r, c) */
    PTO_OC_MATMUL,   /* acc (+)= left x right */
    PTO_OC_SYNC,     /* set_flag / wait_flag / pipe_barrier */
    PTO_OC_CVPIPE,   /* tpush / tpop / tfree on a cube/vector pipe */
    PTO_OC_NOTIFY,   /* signal cell (=|+=) value, on S (hardware.md s8) */
    PTO_OC_WAIT,     /* block until signal cell CMP value, on S */
    PTO_OC_XFER,     /* GM window -> GM window (tput / tget); lowered to a staging tile */
    PTO_OC_ALLREDUCE, /* in-place sum over ranks of a window tensor; lowered (lower.c) */
    PTO_OC_FILLPAD   /* zero a loaded tile outside its valid region: made by pto_lower for the isa
                        target only (pto-isa's TLOAD moves the valid region alone; the simulator's
                        tload zeroes the rest itself), never written in a kernel */
} pto_opclass;

/* notify's second word. */
typedef enum pto_notify_mode { PTO_NOTIFY_SET, PTO_NOTIFY_ADD } pto_notify_mode;

/* X(ENUM, "name", default pipe, class, operand count, operand 0..3 masks) */
#define PTO_OPS(X) \
    X(TLOAD,         "tload",         PTO_PIPE_MTE2, PTO_OC_LOAD,   2, PTO_W(PTO_A_VEC|PTO_A_MAT), PTO_R(PTO_A_GM), 0, 0) \
    X(TSTORE,        "tstore",        PTO_PIPE_MTE3, PTO_OC_STORE,  2, PTO_W(PTO_A_GM), PTO_R(PTO_A_VEC|PTO_A_ACC), 0, 0) \
    X(TADD,          "tadd",          PTO_PIPE_V,    PTO_OC_BIN,    3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TSUB,          "tsub",          PTO_PIPE_V,    PTO_OC_BIN,    3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TMUL,          "tmul",          PTO_PIPE_V,    PTO_OC_BIN,    3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TDIV,          "tdiv",          PTO_PIPE_V,    PTO_OC_BIN,    3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TMAX,          "tmax",          PTO_PIPE_V,    PTO_OC_BIN,    3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TMIN,          "tmin",          PTO_PIPE_V,    PTO_OC_BIN,    3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TADDS,         "tadds",         PTO_PIPE_V,    PTO_OC_BINS,   3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_A_SCALAR, 0) \
    X(TSUBS,         "tsubs",         PTO_PIPE_V,    PTO_OC_BINS,   3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_A_SCALAR, 0) \
    X(TMULS,         "tmuls",         PTO_PIPE_V,    PTO_OC_BINS,   3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_A_SCALAR, 0) \
    X(TDIVS,         "tdivs",         PTO_PIPE_V,    PTO_OC_BINS,   3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_A_SCALAR, 0) \
    X(TMAXS,         "tmaxs",         PTO_PIPE_V,    PTO_OC_BINS,   3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_A_SCALAR, 0) \
    X(TMINS,         "tmins",         PTO_PIPE_V,    PTO_OC_BINS,   3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_A_SCALAR, 0) \
    X(TEXP,          "texp",          PTO_PIPE_V,    PTO_OC_UN,     2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TLOG,          "tlog",          PTO_PIPE_V,    PTO_OC_UN,     2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TSQRT,         "tsqrt",         PTO_PIPE_V,    PTO_OC_UN,     2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TRSQRT,        "trsqrt",        PTO_PIPE_V,    PTO_OC_UN,     2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TRECIP,        "trecip",        PTO_PIPE_V,    PTO_OC_UN,     2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TABS,          "tabs",          PTO_PIPE_V,    PTO_OC_UN,     2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TNEG,          "tneg",          PTO_PIPE_V,    PTO_OC_UN,     2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TRELU,         "trelu",         PTO_PIPE_V,    PTO_OC_UN,     2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TEXPANDS,      "texpands",      PTO_PIPE_V,    PTO_OC_FILL,   2, PTO_W(PTO_A_VEC), PTO_A_SCALAR, 0, 0) \
    X(TROWSUM,       "trowsum",       PTO_PIPE_V,    PTO_OC_ROWRED, 2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TROWMAX,       "trowmax",       PTO_PIPE_V,    PTO_OC_ROWRED, 2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TROWMIN,       "trowmin",       PTO_PIPE_V,    PTO_OC_ROWRED, 2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TROWEXPANDADD, "trowexpandadd", PTO_PIPE_V,    PTO_OC_ROWEXP, 3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TROWEXPANDSUB, "trowexpandsub", PTO_PIPE_V,    PTO_OC_ROWEXP, 3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TROWEXPANDMUL, "trowexpandmul", PTO_PIPE_V,    PTO_OC_ROWEXP, 3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TROWEXPANDDIV, "trowexpanddiv", PTO_PIPE_V,    PTO_OC_ROWEXP, 3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TCOLSUM,       "tcolsum",       PTO_PIPE_V,    PTO_OC_COLRED, 2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TCOLMAX,       "tcolmax",       PTO_PIPE_V,    PTO_OC_COLRED, 2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TCOLMIN,       "tcolmin",       PTO_PIPE_V,    PTO_OC_COLRED, 2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TCOLEXPANDADD, "tcolexpandadd", PTO_PIPE_V,    PTO_OC_COLEXP, 3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TCOLEXPANDSUB, "tcolexpandsub", PTO_PIPE_V,    PTO_OC_COLEXP, 3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TCOLEXPANDMUL, "tcolexpandmul", PTO_PIPE_V,    PTO_OC_COLEXP, 3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TCOLEXPANDDIV, "tcolexpanddiv", PTO_PIPE_V,    PTO_OC_COLEXP, 3, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), PTO_R(PTO_A_VEC), 0) \
    X(TCVT,          "tcvt",          PTO_PIPE_V,    PTO_OC_CVT,    2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TMOV,          "tmov",          PTO_PIPE_MTE1, PTO_OC_MOV,    2, PTO_W(PTO_A_LEFT|PTO_A_RIGHT|PTO_A_VEC|PTO_A_MAT), PTO_R(PTO_A_MAT|PTO_A_ACC|PTO_A_VEC), 0, 0) \
    X(TEXTRACT,      "textract",      PTO_PIPE_MTE1, PTO_OC_EXTRACT,4, PTO_W(PTO_A_LEFT|PTO_A_RIGHT), PTO_R(PTO_A_MAT), PTO_A_INT, PTO_A_INT) \
    X(TMATMUL,       "tmatmul",       PTO_PIPE_M,    PTO_OC_MATMUL, 3, PTO_W(PTO_A_ACC), PTO_R(PTO_A_LEFT), PTO_R(PTO_A_RIGHT), 0) \
    X(TMATMUL_ACC,   "tmatmul_acc",   PTO_PIPE_M,    PTO_OC_MATMUL, 3, PTO_RW(PTO_A_ACC), PTO_R(PTO_A_LEFT), PTO_R(PTO_A_RIGHT), 0) \
    X(TPUSH,         "tpush",         PTO_PIPE_MTE3, PTO_OC_CVPIPE, 2, PTO_A_CVPIPE, PTO_R(PTO_A_VEC|PTO_A_ACC), 0, 0) \
    X(TPOP,          "tpop",          PTO_PIPE_MTE2, PTO_OC_CVPIPE, 2, PTO_W(PTO_A_VEC|PTO_A_MAT), PTO_A_CVPIPE, 0, 0) \
    X(TFREE,         "tfree",         PTO_PIPE_S,    PTO_OC_CVPIPE, 2, PTO_A_CVPIPE, PTO_W(PTO_A_VEC|PTO_A_MAT)|PTO_A_IMPLICIT, 0, 0) \
    X(SET_FLAG,      "set_flag",      PTO_PIPE_S,    PTO_OC_SYNC,   3, PTO_A_PIPE, PTO_A_PIPE, PTO_A_INT, 0) \
    X(WAIT_FLAG,     "wait_flag",     PTO_PIPE_S,    PTO_OC_SYNC,   3, PTO_A_PIPE, PTO_A_PIPE, PTO_A_INT, 0) \
    X(PIPE_BARRIER,  "pipe_barrier",  PTO_PIPE_S,    PTO_OC_SYNC,   1, PTO_A_PIPE, 0, 0, 0) \
    X(NOTIFY,        "notify",        PTO_PIPE_S,    PTO_OC_NOTIFY, 3, PTO_W(PTO_A_GM), PTO_A_INT, PTO_A_NMODE, 0) \
    X(WAIT,          "wait",          PTO_PIPE_S,    PTO_OC_WAIT,   3, PTO_R(PTO_A_GM), PTO_A_CMP, PTO_A_INT, 0) \
    X(TPUT,          "tput",          PTO_PIPE_MTE2, PTO_OC_XFER,   4, PTO_W(PTO_A_GM), PTO_R(PTO_A_GM), PTO_A_INT, PTO_A_INT) \
    X(TGET,          "tget",          PTO_PIPE_MTE2, PTO_OC_XFER,   4, PTO_W(PTO_A_GM), PTO_R(PTO_A_GM), PTO_A_INT, PTO_A_INT) \
    X(ALLREDUCE,     "allreduce",     PTO_PIPE_S,    PTO_OC_ALLREDUCE, 2, PTO_RW(PTO_A_GM | PTO_A_WHOLE), PTO_RW(PTO_A_GM | PTO_A_WHOLE), 0, 0) \
    X(TFILLPAD,      "tfillpad",      PTO_PIPE_V,    PTO_OC_FILLPAD, 1, PTO_W(PTO_A_VEC|PTO_A_MAT), 0, 0, 0)

typedef enum pto_op {
#define PTO__OP_ENUM(e, name, pipe, cls, n, a0, a1, a2, a3) PTO_OP_##e,
    PTO_OPS(PTO__OP_ENUM)
#undef PTO__OP_ENUM
    PTO_NOP
} pto_op;

typedef struct pto_opinfo {
    const char *name;
    pto_pipe pipe;        /* default pipe; pto_stmt_pipe() resolves per operand spaces */
    pto_opclass cls;
    int nargs;
    uint32_t arg[4];      /* PTO_A_* masks */
} pto_opinfo;

/* ---- nodes --------------------------------------------------------------- */

typedef enum pto_expr_kind {
    PTO_E_INT,      /* value */
    PTO_E_VAR,      /* a: var id */
    PTO_E_BLOCK, PTO_E_BLOCKS, PTO_E_SUBBLOCK, PTO_E_RANK, PTO_E_NRANKS,
    PTO_E_ADD, PTO_E_SUB, PTO_E_MUL, PTO_E_DIV, PTO_E_MOD, PTO_E_MIN, PTO_E_MAX,
    PTO_E_NEG       /* a */
} pto_expr_kind;

typedef struct pto_expr {   /* fields ordered for size: 32 bytes */
    int64_t value;        /* PTO_E_INT */
    int32_t a, b;         /* sub-expressions, or var id for PTO_E_VAR */
    pto_loc loc;
    uint8_t kind;
} pto_expr;

typedef enum pto_var_kind {
    PTO_V_LET,      /* let NAME = EXPR        (def: the LET stmt) */
    PTO_V_LOOP,     /* for NAME = ...         (def: the FOR stmt) */
    PTO_V_DIM,      /* a dynamic tensor dim   (def: first param using it) */
    PTO_V_SCALAR    /* scalar NAME: DTYPE     (def: the param) */
} pto_var_kind;

typedef struct pto_var {
    int32_t name;
    uint8_t kind;
    int32_t kernel;
    int32_t def;
    pto_loc loc;
} pto_var;

typedef enum pto_param_kind { PTO_P_TENSOR, PTO_P_SCALAR } pto_param_kind;

typedef struct pto_param {
    int32_t name;
    uint8_t kind, dir, dtype, window;
    int64_t dim[2];        /* static extent, or -1 when dynamic */
    int32_t dim_var[2];    /* PTO_V_DIM var when dynamic, else -1 */
    int32_t var;           /* PTO_V_SCALAR var for scalars, else -1 */
    pto_loc loc;
} pto_param;

typedef struct pto_tile {
    int32_t name;
    int32_t kernel;
    uint8_t space, dtype, core;
    uint8_t planned;             /* planner: the offsets below are meaningful */
    int32_t rows, cols;
    int32_t valid_r, valid_c;    /* expr ids; -1 = the full shape */
    int32_t nbuf;                /* 1, or N for xN */
    int32_t decl;                /* the TILE stmt */
    int64_t pin;                 /* fixed address, or PTO_NO_ADDR */
    /* Written by the planner (planned, with the small fields above: 128
       bytes, no padding hole). planned says the offsets are meaningful:
       offset 0 is a valid placement, never a "not yet planned" mark. */
    int64_t offset[PTO_MAX_NBUF];  /* slot k's byte offset in its space */
    int32_t origin;              /* 0 = user; else the pass that made it */
    pto_loc loc;
} pto_tile;

/* Cube <-> vector pipe of a mix kernel (hardware.md section 5). */
typedef enum pto_cvdir { PTO_C2V = 1, PTO_V2C = 2, PTO_BOTH = 3 } pto_cvdir;
/* How the two AIVs share a cube tile (numerically PTO_K_SPLIT_*). */
typedef enum pto_cvsplit { PTO_SPLIT_NONE = 0, PTO_SPLIT_UP_DOWN = 1, PTO_SPLIT_LEFT_RIGHT = 2 } pto_cvsplit;

#define PTO_MAX_CVPIPES 8     /* rings per mix kernel */

typedef struct pto_cvpipe {
    int32_t name;
    int32_t kernel;
    uint8_t dir;
    int32_t slot_size, slot_num, local_slot_num;  /* normalised: never 0 */
    int32_t flag_id;       /* first cross-core flag; -1 when none is left */
    int32_t ring;          /* index among its kernel's pipes (the ring id) */
    uint8_t split, dtype;  /* pto_cvsplit; element type of the cube-side tile */
    int32_t rows, cols;    /* the cube-side tile: slot_size = rows * cols * dtype size */
    pto_loc loc;
} pto_cvpipe;

typedef enum pto_operand_kind {
    PTO_O_TILE,     /* ref: tile id */
    PTO_O_GM,       /* ref: param id; e[0], e[1]: row, col (both -1: the whole
                       tensor, PTO_A_WHOLE); e[2]: rank or -1 */
    PTO_O_FLOAT,    /* f */
    PTO_O_SCALAR,   /* ref: var id of a scalar param */
    PTO_O_INT,      /* e[0]: expression */
    PTO_O_PIPE,     /* ref: pto_pipe */
    PTO_O_CVPIPE,   /* ref: cvpipe id */
    PTO_O_CMP,      /* ref: pto_cmp (wait's comparison word) */
    PTO_O_NMODE     /* ref: pto_notify_mode (notify's set / add) */
} pto_operand_kind;

typedef struct pto_operand {   /* fields ordered for size: 40 bytes */
    double f;
    int32_t ref;
    int32_t e[3];
    pto_loc loc;
    uint8_t kind;
} pto_operand;

typedef enum pto_stmt_kind {
    PTO_ST_OP, PTO_ST_TILE, PTO_ST_LET, PTO_ST_FOR, PTO_ST_IF, PTO_ST_SECTION
} pto_stmt_kind;

/* Which pass created a node (for comments in the emitted kernel). */
typedef enum pto_origin {
    PTO_BY_USER, PTO_BY_LOWER, PTO_BY_PLAN, PTO_BY_SYNC, PTO_BY_EMIT
} pto_origin;

typedef struct pto_stmt {
    uint8_t kind;
    uint8_t core;          /* pto_core */
    uint8_t origin;        /* pto_origin */
    uint8_t cmp;           /* IF: pto_cmp */
    uint16_t op;           /* OP: pto_op */
    int32_t next, prev;    /* siblings in the block; -1 at the ends */
    int32_t block;         /* the block that holds this statement */
    int32_t ref;           /* TILE: tile; LET/FOR: var; SECTION: pto_core */
    int32_t e[3];          /* FOR: start, end, step (-1 = 1); IF: lhs, rhs; LET: value */
    int32_t body, orelse;  /* FOR/IF/SECTION: blocks (-1 = none) */
    int32_t arg0, nargs;   /* OP: operands [arg0, arg0 + nargs) (read-only: may be shared, see sync) */
    int32_t note;          /* interned: why a pass put it here (0 = none) */
    pto_loc loc;
} pto_stmt;

typedef struct pto_block {
    int32_t head, tail;    /* first / last stmt, -1 when empty */
    int32_t owner;         /* the FOR/IF/SECTION stmt, or -1 for a kernel body */
    int32_t kernel;
} pto_block;

typedef struct pto_kernel {
    int32_t name;
    uint8_t kind;          /* pto_kernel_kind */
    uint8_t ranks;         /* runs once per rank of a group */
    int32_t blocks;        /* expr: SPMD block count; -1 = 1 */
    int32_t param0, nparams;
    int32_t body;          /* block */
    pto_loc loc;
} pto_kernel;

#define PTO__ARRAY(T, name) T *name; int32_t n_##name, cap_##name

typedef struct pto_module {
    pto_ctx *ctx;
    pto_arch arch;
    int32_t file;
    PTO__ARRAY(pto_kernel, kernels);
    PTO__ARRAY(pto_param, params);
    PTO__ARRAY(pto_var, vars);
    PTO__ARRAY(pto_tile, tiles);
    PTO__ARRAY(pto_stmt, stmts);
    PTO__ARRAY(pto_block, blocks);
    PTO__ARRAY(pto_operand, operands);
    PTO__ARRAY(pto_expr, exprs);
    PTO__ARRAY(pto_cvpipe, cvpipes);
    PTO__ARRAY(struct pto_host, hosts);     /* host sections (below) */
    PTO__ARRAY(struct pto_hstmt, hstmts);
    /* builder calls refused (a bad argument) or out of memory: the module
       misses what they would have added, and pto_verify fails on it */
    int32_t broken;
    /* The verified stamp: nonzero when pto_verify accepted the module and no
       builder (pto_add_*, pto_arg_*, pto_set_*, pto_expr_*, pto_if_else,
       pto_new_stmt and the relinking calls, the host builders) changed it
       since. Builders clear it; pto_lower, pto_plan, pto_sync, pto_emit,
       pto_emit_isa, pto_interp and pto_interp_host refuse a module without
       it (one error naming the pass), so an invalid module never reaches
       code that relies on verify's guarantees. lower and sync edit the
       module through the builders and stamp it again when they succeed
       (their output is valid by their own guarantees; a failed one leaves
       it cleared). Only the builders are tracked: a caller writing to the
       arrays above directly must call pto_verify again itself. */
    int32_t verified;
} pto_module;

/* ---- queries -------------------------------------------------------------- */

PTODEF const pto_opinfo *pto_opinfo_get(pto_op op);
PTODEF pto_op pto_op_lookup(const char *name, size_t len);     /* PTO_NOP if unknown */
PTODEF const char *pto_dtype_name(pto_dtype dt);
PTODEF int pto_dtype_size(pto_dtype dt);
PTODEF pto_dtype pto_dtype_lookup(const char *name, size_t len); /* PTO_DT_NONE if unknown */
PTODEF const char *pto_space_name(pto_space s);
PTODEF pto_space pto_space_lookup(const char *name, size_t len); /* PTO_NSPACE if unknown */
PTODEF const char *pto_pipe_name(pto_pipe p);
PTODEF pto_pipe pto_pipe_lookup(const char *name, size_t len);   /* PTO_NPIPE if unknown */
PTODEF const char *pto_arch_name(pto_arch a);
PTODEF const char *pto_cmp_name(pto_cmp c);
/* Capacity in bytes of a local space on an arch (hardware.md section 2). */
PTODEF int64_t pto_space_capacity(pto_arch arch, pto_space s);
/* Bytes of one slot of a tile (rows * cols * dtype size). */
PTODEF int64_t pto_tile_bytes(const pto_tile *t);
/* The pipe an op statement runs on, resolved from its operand spaces
   (PTO_NPIPE for a statement id out of range; these queries return NULL,
   -1 or 0 for ids out of range). */
PTODEF pto_pipe pto_stmt_pipe(const pto_module *m, int32_t stmt);
PTODEF const pto_operand *pto_stmt_arg(const pto_module *m, int32_t stmt, int i);
/* Innermost enclosing FOR statement of a statement, or -1. */
PTODEF int32_t pto_stmt_loop(const pto_module *m, int32_t stmt);

/* ---- building IR (the C API; the parser uses it too) ----------------------
   All builders return the new id, or -1 when out of memory or when an
   argument is wrong: a kernel, block, statement, param or host id out of
   range, a NULL name, a param added to a kernel that is not the newest, an
   operand added to a statement that is not an op or not the newest one with
   operands (a statement's operands go right after its pto_add_op). Each
   refusal records an error naming the builder ("pto_add_op: block id 9 is
   out of range ...") at the location given, and marks the module
   incomplete (pto_module.broken), so that pto_verify / pto_compile fail on
   it instead of compiling a module that silently lacks a node. A -1 passed
   on from a builder that failed is refused without a second error. Ids
   stored in a node (a tile, an expression, a var of an operand) are checked
   by pto_verify. Every builder here (and the relinking calls below, and the
   host builders) clears the verified stamp (pto_module.verified): verify
   again before the later passes, which refuse an unstamped module. m must be a module of pto_module_create (never NULL);
   pto_module_destroy(NULL) does nothing. Statements are appended to the
   block given. */

PTODEF pto_module *pto_module_create(pto_ctx *ctx, pto_arch arch);
PTODEF void pto_module_destroy(pto_module *m);

PTODEF int32_t pto_add_kernel(pto_module *m, const char *name, pto_kernel_kind kind, pto_loc loc);
PTODEF int32_t pto_add_tensor_param(pto_module *m, int32_t kernel, const char *name, pto_dir dir,
                                    pto_dtype dt, int64_t d0, int64_t d1, pto_loc loc);
/* Make dim d (0 or 1) of a tensor param dynamic, named by `name` (shared by
   every param of the kernel that uses the same name). Returns the dim var. */
PTODEF int32_t pto_set_dynamic_dim(pto_module *m, int32_t param, int d, const char *name);
PTODEF int32_t pto_add_scalar_param(pto_module *m, int32_t kernel, const char *name, pto_dtype dt,
                                    pto_loc loc);
PTODEF int32_t pto_add_var(pto_module *m, int32_t kernel, const char *name, pto_var_kind kind,
                           int32_t def, pto_loc loc);
PTODEF int32_t pto_find_var(const pto_module *m, int32_t kernel, const char *name);
PTODEF int32_t pto_find_param(const pto_module *m, int32_t kernel, const char *name);

PTODEF int32_t pto_expr_int(pto_module *m, int64_t v, pto_loc loc);
PTODEF int32_t pto_expr_var(pto_module *m, int32_t var, pto_loc loc);
PTODEF int32_t pto_expr_builtin(pto_module *m, pto_expr_kind k, pto_loc loc);
PTODEF int32_t pto_expr_bin(pto_module *m, pto_expr_kind k, int32_t a, int32_t b, pto_loc loc);

/* New empty block; kernel bodies, loop bodies and branches are blocks. */
PTODEF int32_t pto_add_block(pto_module *m, int32_t kernel, int32_t owner);
/* Statements (appended at the end of `block`). */
PTODEF int32_t pto_add_tile(pto_module *m, int32_t block, const char *name, pto_space space,
                            pto_dtype dt, int32_t rows, int32_t cols, pto_loc loc);
PTODEF int32_t pto_add_let(pto_module *m, int32_t block, const char *name, int32_t value, pto_loc loc);
/* Returns the FOR stmt; its body block is m->stmts[s].body. step may be -1 (= 1). */
PTODEF int32_t pto_add_for(pto_module *m, int32_t block, const char *var, int32_t start,
                           int32_t end, int32_t step, pto_loc loc);
/* Returns the IF stmt; body is .body, the else block .orelse (created on demand
   by pto_if_else). */
PTODEF int32_t pto_add_if(pto_module *m, int32_t block, int32_t lhs, pto_cmp cmp, int32_t rhs,
                          pto_loc loc);
PTODEF int32_t pto_if_else(pto_module *m, int32_t ifstmt);
PTODEF int32_t pto_add_section(pto_module *m, int32_t block, pto_core core, pto_loc loc);
/* An op statement with no operands yet; add them with pto_arg_*. */
PTODEF int32_t pto_add_op(pto_module *m, int32_t block, pto_op op, pto_loc loc);
PTODEF int32_t pto_arg_tile(pto_module *m, int32_t stmt, int32_t tile, pto_loc loc);
PTODEF int32_t pto_arg_gm(pto_module *m, int32_t stmt, int32_t param, int32_t row, int32_t col,
                          int32_t rank, pto_loc loc);
PTODEF int32_t pto_arg_float(pto_module *m, int32_t stmt, double v, pto_loc loc);
PTODEF int32_t pto_arg_scalar(pto_module *m, int32_t stmt, int32_t var, pto_loc loc);
PTODEF int32_t pto_arg_int(pto_module *m, int32_t stmt, int32_t expr, pto_loc loc);
PTODEF int32_t pto_arg_pipe(pto_module *m, int32_t stmt, pto_pipe p, pto_loc loc);
/* tfree takes the pipe, then the tile the latest tpop of that pipe filled: the text writes
   `tfree q` and the parser adds the tile, a builder adds it with pto_arg_tile. */
PTODEF int32_t pto_arg_cvpipe(pto_module *m, int32_t stmt, int32_t cvpipe, pto_loc loc);
/* A cube <-> vector pipe of mix kernel `kernel` carrying [rows, cols] tiles
   of dt (the cube side's shape). slot_num / local_slot_num 0 mean their
   defaults (8 one-way / 4 both; 2); they are stored normalised. The ring id
   and the flag ids are assigned here: each one-way pipe takes two ids, a
   both pipe four, skipping 11..14 on a2a3; flag_id is -1 when none is left
   (the verifier reports it). */
PTODEF int32_t pto_add_cvpipe(pto_module *m, int32_t kernel, const char *name, pto_cvdir dir, pto_dtype dt,
                              int32_t rows, int32_t cols, int32_t slot_num, int32_t local_slot_num,
                              pto_cvsplit split, pto_loc loc);
PTODEF int32_t pto_find_cvpipe(const pto_module *m, int32_t kernel, const char *name);
/* Bytes of one pipe's GM rings (rings x slot_num x slot_size) and its byte
   offset in its kernel's per-block GM pipe buffer; the kernel's total. */
PTODEF int64_t pto_cvpipe_gm_bytes(const pto_cvpipe *p);
PTODEF int64_t pto_cvpipe_gm_offset(const pto_module *m, int32_t cvpipe);
PTODEF int64_t pto_kernel_pipe_bytes(const pto_module *m, int32_t kernel);
/* wait's comparison and notify's mode (set / add). */
PTODEF int32_t pto_arg_cmp(pto_module *m, int32_t stmt, pto_cmp c, pto_loc loc);
PTODEF int32_t pto_arg_nmode(pto_module *m, int32_t stmt, pto_notify_mode mode, pto_loc loc);
/* Word tables of those operands: "eq".."ge" (pto_cmp order), "set" "add";
   lookups return -1 when the word is not one of them. */
PTODEF const char *pto_cmp_word(pto_cmp c);
PTODEF int pto_cmp_word_lookup(const char *name, size_t len);
PTODEF const char *pto_nmode_name(pto_notify_mode mode);
PTODEF int pto_nmode_lookup(const char *name, size_t len);

/* Relinking, for passes: a new statement is created detached (block -1) by
   pto_new_stmt and then placed. */
PTODEF int32_t pto_new_stmt(pto_module *m, pto_stmt_kind kind, pto_loc loc);
PTODEF void pto_insert_before(pto_module *m, int32_t at, int32_t stmt);
PTODEF void pto_insert_after(pto_module *m, int32_t at, int32_t stmt);
PTODEF void pto_append(pto_module *m, int32_t block, int32_t stmt);
PTODEF void pto_prepend(pto_module *m, int32_t block, int32_t stmt);
PTODEF void pto_unlink(pto_module *m, int32_t stmt);


/* ---- host sections ---------------------------------------------------------
   `host NAME(PARAMS) { tensor ... / call ... }` orchestrates kernel launches
   (hardware.md section 7; docs/pto-format.md). A host is its params, the
   intermediate GM tensors it declares and its calls, in program order.
   - Its params and intermediates are pto_params (kind, dir, dtype, dims as
     for kernels), contiguous from param0: nparams params, then ntensors
     intermediates (dir PTO_INOUT; declared by TENSOR statements).
   - Its dims and scalars are vars whose `kernel` is PTO_HOST_SCOPE(host).
   - A CALL statement names a kernel; its operands [arg0, arg0 + nargs) are
     the arguments by position in the kernel's ABI order (tensor params
     first, then scalars): PTO_O_GM (ref: host tensor, e[] = -1), PTO_O_INT,
     PTO_O_FLOAT or PTO_O_SCALAR (ref: host scalar var). */

#define PTO_HOST_SCOPE(h) (-2 - (h))   /* pto_var.kernel of host h's dims and scalars */

typedef enum pto_hstmt_kind { PTO_HS_TENSOR, PTO_HS_CALL } pto_hstmt_kind;

typedef struct pto_hstmt {
    uint8_t kind;
    int32_t ref;           /* TENSOR: the param it declares; CALL: the kernel */
    int32_t arg0, nargs;   /* CALL: operands */
    pto_loc loc;
} pto_hstmt;

typedef struct pto_host {
    int32_t name;
    int32_t param0, nparams, ntensors;
    int32_t stmt0, nstmts; /* hstmts */
    pto_loc loc;
} pto_host;

/* Builders; as for kernels, a host's params and statements are added while
   it is the last host and before anything else adds params or operands. */
PTODEF int32_t pto_add_host(pto_module *m, const char *name, pto_loc loc);
PTODEF int32_t pto_add_host_tensor_param(pto_module *m, int32_t host, const char *name, pto_dir dir,
                                         pto_dtype dt, int64_t d0, int64_t d1, pto_loc loc);
PTODEF int32_t pto_add_host_scalar_param(pto_module *m, int32_t host, const char *name, pto_dtype dt,
                                         pto_loc loc);
/* Makes dim d of host tensor `param` the host dim `name` (created at its
   first use by a param). Returns the dim var. */
PTODEF int32_t pto_set_host_dim(pto_module *m, int32_t host, int32_t param, int d, const char *name);
/* `tensor NAME: DT[D0, D1]`: an intermediate; returns its param. */
PTODEF int32_t pto_add_host_tensor(pto_module *m, int32_t host, const char *name, pto_dtype dt, int64_t d0,
                                   int64_t d1, pto_loc loc);
/* `call KERNEL(...)`: returns the statement; add its arguments in order. */
PTODEF int32_t pto_add_host_call(pto_module *m, int32_t host, int32_t kernel, pto_loc loc);
PTODEF int32_t pto_call_arg_tensor(pto_module *m, int32_t call, int32_t param, pto_loc loc);
PTODEF int32_t pto_call_arg_int(pto_module *m, int32_t call, int32_t expr, pto_loc loc);
PTODEF int32_t pto_call_arg_float(pto_module *m, int32_t call, double v, pto_loc loc);
PTODEF int32_t pto_call_arg_scalar(pto_module *m, int32_t call, int32_t var, pto_loc loc);
/* ---- End file: src/ir.h ---- */

/* ---- Begin file: src/api.h ---- */
/* api.h - the passes and their entry points.

   The pipeline is fixed and visible:

       parse -> verify -> lower -> plan -> sync -> emit

   Each pass is a plain function over a pto_module. The comment at the top of
   each pass's source states what it needs and what it guarantees. print turns
   a module back into .pto text at any point (pto_dump adds what the later
   passes computed); interp runs a verified module on host arrays. */

/* ---- text output --------------------------------------------------------- */

/* A growable byte buffer; every printer writes into one. Zero-initialise it
   and set ctx; free it with pto_buf_free. data is always NUL-terminated.

   Streaming (optional): with `sink` set, the buffer is a bounded staging
   area instead of the whole text, so a large output (pto_emit's) never sits
   in memory. An append that would not fit sends the pending bytes to the
   sink, in order, and len starts again from 0; an append longer than the
   staging area goes to the sink as it is. data[0, len) is then only the
   pending tail, and flushed + len is everything appended. pto_buf_flush
   sends the pending tail; pto_emit and pto_emit_isa send it when they
   succeed (when they fail, part of the text may have reached the sink). The
   sink cannot fail: a writer that can (a full disk) records the error for
   its caller to report after emission. Nothing else changes: oom, the
   printers, pto_buf_free (which does not flush).

   A buffer whose ctx is NULL cannot allocate: appends set oom and are
   dropped (pto_emit and pto_emit_isa set a NULL ctx to theirs). The
   printers below do nothing given a NULL module or buffer. */
typedef struct pto_buf {
    pto_ctx *ctx;
    char *data;
    size_t len, cap;
    int oom;               /* set when an append failed; the text is truncated */
    /* the sink (NULL: the buffer holds everything) and its argument */
    void (*sink)(const char *data, size_t len, void *user);
    void *sink_user;
    size_t stage;          /* bytes of the staging area (0: PTO_BUF_STAGE); it grows past
                              that only when the emitter makes room for more at once */
    size_t flushed;        /* bytes sent to the sink so far */
} pto_buf;

#define PTO_BUF_STAGE ((size_t)64 << 10)

PTODEF void pto_buf_puts(pto_buf *b, const char *s);
PTODEF void pto_buf_putn(pto_buf *b, const char *s, size_t n);
PTODEF void pto_buf_printf(pto_buf *b, const char *fmt, ...);
/* Sends the pending bytes to the sink; nothing without one. */
PTODEF void pto_buf_flush(pto_buf *b);
PTODEF void pto_buf_free(pto_buf *b);

/* ---- parse / print ------------------------------------------------------- */

/* Parses .pto text. Returns NULL (with diagnostics) on a syntax error; name
   resolution that the grammar needs happens here, every other rule is the
   verifier's. `filename` is used for locations. */
PTODEF pto_module *pto_parse(pto_ctx *ctx, const char *filename, const char *text, size_t len);

/* Canonical .pto text of a module. print(parse(print(x))) == print(x). */
PTODEF void pto_print(const pto_module *m, pto_buf *out);
/* pto_print keeping the full-line `#` comments of `text`, the text m was
   parsed from (unchanged since): each is printed, indented, before the
   statement, pipe, kernel or host that follows it, the rest at the end;
   comments after code on a line are dropped. What ptoc fmt prints. */
PTODEF void pto_print_commented(const pto_module *m, const char *text, size_t len, pto_buf *out);
PTODEF void pto_print_expr(const pto_module *m, int32_t expr, pto_buf *out);

/* ---- verify -------------------------------------------------------------- */

/* Checks every rule of the IR a user can break, with a diagnostic at the
   offending FILE:LINE:COL. PTO_OK means the later passes may rely on it,
   and stamps the module (pto_module.verified): pto_lower, pto_plan,
   pto_sync, pto_emit and pto_emit_isa refuse a module without the stamp,
   which every builder call clears (call pto_verify again after changing a
   module; pto_compile does it first). A NULL module, or one whose builders
   refused a call or ran out of memory (pto_module.broken), is
   PTO_ERR_USER. */
PTODEF pto_status pto_verify(pto_ctx *ctx, pto_module *m);

/* ---- interp -------------------------------------------------------------- */

/* A value for a dynamic dim or a scalar param, by name. */
typedef struct pto_binding {
    const char *name;
    double value;
} pto_binding;

/* Host arrays are row-major, element type as declared (f16/bf16 as their
   16-bit patterns). tensors[r * nparams + p] is param p of rank r; entries
   of scalar params are ignored. */
typedef struct pto_launch {
    int32_t kernel;
    void **tensors;
    const pto_binding *bindings;
    int nbindings;
    int nranks;            /* ranks kernels only; 0 = 1 */
    int64_t max_instr;     /* the instruction budget: more ops than this in the whole
                              launch (every block, core and rank) is an error naming
                              the innermost loop running; 0 = PTO_MAX_INSTR_DEFAULT */
} pto_launch;

/* A runaway kernel (a loop to 10^12) must stop with an error, not run until
   killed. The default is ~280x the largest launch of the repository's
   kernels (352 ops: the examples, tests/ok, tests/user, tests/sync_sim, the
   benches) and stops a runaway on the simulator in ~15 s (16 x 256 f32
   tiles; the time per instruction grows with the tile). */
#define PTO_MAX_INSTR_DEFAULT 100000

/* Runs every block (and rank) of the kernel with the reference semantics:
   program order, no pipes, no addresses. It needs no verify stamp (it
   re-checks at run time what could take it out of bounds). */
PTODEF pto_status pto_interp(pto_ctx *ctx, const pto_module *m, const pto_launch *launch);

/* ---- lower ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* What a module is compiled for: the emitter that will write it. */
typedef enum pto_target {
    PTO_TARGET_SIM = 0,  /* pto_emit: C against pto_kernels.h (the simulator) */
    PTO_TARGET_ISA       /* pto_emit_isa: C++ against the pto-isa API, for devices */
} pto_target;

/* Runs after pto_verify, before pto_plan (lower.c states what it
   guarantees): tput / tget become a planned-like-any staging tile + tload +
   tstore, allreduce the notify / wait / remote-load recipe of hardware.md
   section 8, and every notify gets its pipe_barrier ALL fence. New
   statements and tiles have origin PTO_BY_LOWER. pto_lower lowers for
   PTO_TARGET_SIM; pto_lower_for(..., PTO_TARGET_ISA) also puts a tfillpad
   after every tload whose tile's padding (outside its valid region) some op
   may read: pto-isa's TLOAD does not zero it, as the simulator's does, and
   pto_emit_isa refuses a module without those fills. */
PTODEF pto_status pto_lower(pto_ctx *ctx, pto_module *m);
PTODEF pto_status pto_lower_for(pto_ctx *ctx, pto_module *m, pto_target target);



/* ---- plan ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* Placement levels, preferred first (see plan.c). */
typedef enum pto_plan_level {
    PTO_PLAN_SEPARATE, /* bytes shared only by tiles of one pipe: no cross-pipe write-after-read */
    PTO_PLAN_TIGHT     /* bytes shared whenever lifetimes are disjoint */
} pto_plan_level;

/* Orders in which the planner places tiles; it tries each with first-fit
   and best-fit and keeps the lowest peak. */
typedef enum pto_plan_order {
    PTO_ORDER_LARGEST,  /* largest footprint first */
    PTO_ORDER_START,    /* earliest first use first */
    PTO_ORDER_LONGEST,  /* longest lifetime first */
    PTO_ORDER_AREA,     /* largest footprint x lifetime first */
    PTO_NORDER
} pto_plan_order;

/* What the planner did in one memory (kernel, core, space). */
typedef struct pto_plan_stat {
    int32_t kernel;
    uint8_t core, space;     /* pto_core, pto_space */
    uint8_t level;           /* pto_plan_level used */
    uint8_t order, fit;      /* winning pto_plan_order; fit 0 = first-fit, 1 = best-fit */
    int64_t capacity;        /* bytes of the space */
    int64_t reserved;        /* at the top, for cube/vector pipe consumer buffers */
    int64_t peak;            /* highest byte used by a tile (0 when planning failed) */
    int64_t live_max;        /* most aligned bytes live at one point: a lower bound on peak */
    int32_t live_stmt;       /* a statement where live_max is reached, or -1 */
    int32_t ntiles;
} pto_plan_stat;

/* Per-memory figures; zero-initialise, free with pto_plan_result_free. */
typedef struct pto_plan_result {
    pto_plan_stat *stats;
    int32_t n, cap;
} pto_plan_result;

/* Zero-initialised fields take their defaults. */
typedef struct pto_plan_desc {
    int tight;                     /* 1: pack tightly, ignore pipe conflicts (skip the separate level) */
    const pto_plan_order *orders;  /* orders to try, in this order; NULL = all four */
    int norders;
    pto_plan_result *result;       /* optional: receives one pto_plan_stat per memory */
} pto_plan_desc;

/* Gives every local tile its offsets (plan.c states the guarantees).
   On overflow the error names the space, the line of the peak, the bytes
   needed against the capacity and the live tiles with their sizes. */
PTODEF pto_status pto_plan(pto_ctx *ctx, pto_module *m, const pto_plan_desc *desc);
PTODEF void pto_plan_result_free(pto_ctx *ctx, pto_plan_result *r);
/* Unit of planner-chosen offsets and slot strides: 32 bytes; left/right 512
   (one fractal), acc 1024 (one accumulator fractal). */
PTODEF int64_t pto_plan_granule(pto_space s);
/* Base offset of a cube/vector pipe's consumer buffer in space s (vec for
   C2V, mat for V2C), or -1 when s does not consume that pipe. The buffers
   are stacked down from the top of the space in pipe order. */
PTODEF int64_t pto_plan_pipe_base(const pto_module *m, int32_t cvpipe, pto_space s);
/* Bytes of one of a pipe's local slots in space s (0 when s does not
   consume the pipe): the tile this core pops, so half the cube-side tile on
   an AIV of a split pipe, the whole tile otherwise. */
PTODEF int64_t pto_plan_pipe_slot_bytes(const pto_cvpipe *p, pto_space s);
/* The plan of a planned module as text: per kernel a table (tile, space,
   offset, size, slots, lifetime as source lines), then per space the level
   used and a memory map (address across, program order down). r may be NULL. */
PTODEF void pto_plan_report(const pto_module *m, const pto_plan_result *r, pto_buf *out);
/* The same memory maps as an SVG picture (x: program order, y: address). */
PTODEF void pto_plan_svg(const pto_module *m, pto_buf *out);



/* ---- plan check (independent of the planner) ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* Checks a planned module without the planner's code: every local tile is
   planned, 32-byte aligned, inside its space (below the cube/vector pipe
   buffers), its slots in order without overlap, and no two tiles that can be
   live together share a byte. Reports every violation; PTO_OK when none. */
PTODEF pto_status pto_plan_check(pto_ctx *ctx, const pto_module *m);



/* ---- sync ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* Optional counters filled by pto_sync (all kernels of the module). */
typedef struct pto_sync_stats {
    int flag_pairs;        /* set/wait groups inserted (a rotating group counts once) */
    int rotating;          /* of which rotate N > 1 ids with the loop */
    int barriers;          /* pipe_barrier(V/M) inserted */
    int degraded;          /* groups whose rotation was cut (N -> 2 -> 1) for lack of ids */
    int fallbacks;         /* groups replaced by a PIPE_ALL barrier for lack of ids */
    int delayed;           /* groups whose set_flag moved later, to where an id was free */
    int shared;            /* groups that share an earlier pair of their pipes (its set moved after theirs) */
    int rounds;            /* analysis rounds (one per dependency found, plus checks) */
} pto_sync_stats;

/* Zero-initialised fields take their defaults. */
typedef struct pto_sync_desc {
    int ids_per_pair;      /* event ids per ordered pipe pair; 0 = 8 (hardware.md s4) */
    pto_sync_stats *stats; /* optional: filled on return */
    int check;             /* self-check: analyse the result once more with the hardware
                              ids; an unordered dependency or a flag misuse then is
                              PTO_ERR_INTERNAL (pto's bug). Costs about half again the
                              pass; ptoc and the test suite turn it on. */
} pto_sync_desc;

/* Inserts set_flag / wait_flag / pipe_barrier statements (origin PTO_BY_SYNC,
   note = the dependency that justified each) so that every cross-pipe
   dependency inside a core is ordered, same-pipe V/M dependencies are
   separated by a barrier, and no event id is left set at kernel end. Needs a
   verified module whose local tiles are planned. desc may be NULL.
   Deterministic: the same module gives the same statements. */
PTODEF pto_status pto_sync(pto_ctx *ctx, pto_module *m, const pto_sync_desc *desc);

/* Readable dump of the module after sync: the control structure, every op,
   and every sync statement with the dependency that justified it. */
PTODEF void pto_sync_dump(const pto_module *m, pto_buf *out);



/* ---- emit ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* What pto_emit needs besides the module. Zero-initialised fields take
   their defaults. */
typedef struct pto_emit_desc {
    const char *filename;  /* source name for comments and src strings (its base
                              name is used); NULL: the file of the first kernel */
    const char *source;    /* the .pto text, embedded in the host source for the
                              reference run; NULL: pto_print of the module */
    size_t source_len;
} pto_emit_desc;

/* Emits a planned, synchronised module as C (emit.c states the shape):
   kernel_src gets the kernels (includes "pto_kernels.h"), host_src the host
   program (includes pto_kernels.h, pto.h with PTO_HOST_HARNESS, and
   "kernel.c"). Either buffer may be NULL. Deterministic: the same module
   gives byte-identical text. A tile without a planned offset is an error. */
PTODEF pto_status pto_emit(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src,
                           pto_buf *host_src);



/* ---- emit (isa target) ------------------------------------------------
   (declarations of this stage go below this banner) */

/* Emits a planned, synchronised module as C++ against the Ascend pto-isa
   tile API for real devices (emit_isa.c states the shape, docs/isa-target.md
   the mapping): kernel_src gets one extern "C" entry per kernel taking the
   runtime's int64_t *args. desc as for pto_emit (its source is not used).
   Deterministic. What the target cannot express yet (ranks kernels, peer
   windows, no vec room for a reduction's scratch tile, a column op on a
   dtype pto-isa's a2a3 TCOL* do not take, a [R, 1] column whose padding
   an op reads) is an error with its location, and so is a module that was
   not lowered for PTO_TARGET_ISA where a tile's padding is read (its
   TFILLPADs would be missing). A NULL kernel_src runs the checks and
   writes nothing. */
PTODEF pto_status pto_emit_isa(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src);



/* ---- dump ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* The text of pto_print plus, as trailing `#` comments, what later passes
   computed: planned tile offsets (per slot) and, for statements a pass
   created, the pass and its note. Not meant to be parsed back. */
PTODEF void pto_dump(const pto_module *m, pto_buf *out);




/* ---- compile (the pass sequence) ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* Where pto_compile stops; zero runs every pass. */
typedef enum pto_stage {
    PTO_STAGE_ALL = 0,     /* verify, lower, plan, sync: ready for pto_emit */
    PTO_STAGE_VERIFY,      /* verify only */
    PTO_STAGE_LOWER,       /* verify and lower */
    PTO_STAGE_PLAN,        /* verify, lower and plan */
    PTO_STAGE_SYNC         /* every pass (the same as PTO_STAGE_ALL) */
} pto_stage;

/* Zero-initialised fields take their defaults (sokol style). */
typedef struct pto_compile_desc {
    pto_stage stop_after;  /* the last pass to run; 0 = all of them */
    int no_sync;           /* leave the sync pass out: hand-written syncs only (ptoc --no-sync) */
    int check_plan;        /* run pto_plan_check after plan; a violation is PTO_ERR_INTERNAL */
    pto_plan_desc plan;    /* options of pto_plan (tight, orders, result) */
    pto_sync_desc sync;    /* options of pto_sync (ids per pipe pair, stats) */
    pto_target target;     /* the emitter the module is for (pto_lower_for); 0 = PTO_TARGET_SIM
                              (last: positional initialisers of the fields above keep working) */
} pto_compile_desc;

/* Runs the passes on a parsed or built module in their fixed order,
   verify -> lower -> plan -> sync, stopping at the first that fails (its diagnostics
   are recorded) or after desc->stop_after. desc may be NULL. m may be NULL
   (a failed parse): PTO_ERR_USER. After the full sequence the module is
   ready for pto_emit. */
PTODEF pto_status pto_compile(pto_ctx *ctx, pto_module *m, const pto_compile_desc *desc);


/* ---- host sections ------------------------------------------------------------
   (declarations of this stage go below this banner; the IR is in ir.h) */

/* A run of host section `host`. tensors[i] is host tensor i (param0 + i):
   the host's params (entries of scalar params are ignored), then its
   `tensor` intermediates, row-major as for pto_launch; a NULL intermediate
   is allocated (zero) and freed by the interpreter. bindings give the host's
   dims and scalars by name. */
typedef struct pto_host_launch {
    int32_t host;
    void **tensors;
    const pto_binding *bindings;
    int nbindings;
    int64_t max_instr;     /* every call's pto_launch.max_instr (0 = the default) */
} pto_host_launch;

/* Runs the host's calls in program order with the reference semantics
   (pto_interp per call, each kernel's dims bound from the tensors passed
   and its scalars from the arguments). Needs a verified module. */
PTODEF pto_status pto_interp_host(pto_ctx *ctx, const pto_module *m, const pto_host_launch *launch);
/* ---- End file: src/api.h ---- */

#endif /* PTO_H_INCLUDED */

#if defined(PTO_IMPLEMENTATION) && !defined(PTO_IMPLEMENTATION_DONE)
#define PTO_IMPLEMENTATION_DONE

/* ---- Begin file: src/internal.h ---- */
/* internal.h - private helpers shared by every pass (the start of the
   implementation section). Nothing here is part of the public API. */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef PTO_MALLOC
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

/* The builders' pushes (ir.c, host.c): a module whose array could not grow
   misses a node, so it is marked incomplete and pto_verify refuses it. */
static int32_t pto__pushed(pto_module *m, int32_t i)
{
    m->verified = 0;   /* a changed module needs pto_verify again (ir.h) */
    if (i < 0) m->broken++;
    return i;
}

/* The entry check of each pass after verify (ir.h, pto_module.verified):
   PTO_OK, or one error naming the pass. */
static pto_status pto__need_verified(pto_ctx *ctx, const pto_module *m, const char *pass)
{
    pto_loc none = {0, 0, 0};
    if (!m) return pto_error(ctx, none, "%s: the module is NULL", pass);
    if (m->verified) return PTO_OK;
    none.file = m->file;
    return pto_error(ctx, none, "%s: the module is not verified (call pto_verify or pto_compile first; "
                     "again after any builder call)", pass);
}
#define PTO__MPUSH(m, arr) pto__pushed((m), PTO__PUSH(m, arr))
#define PTO__MPUSH_FAST(m, arr) pto__pushed((m), PTO__PUSH_FAST(m, arr))

/* One slot of the intern table: the string's full hash next to its id, so
   a probe reads one cache line and touches the pool only on a likely match. */
struct pto__hslot {
    uint32_t hv;
    int32_t id;
};

struct pto_ctx {
    pto_allocator al;
    int max_diags;
    pto_diag *diags;
    int32_t n_diags, cap_diags;
    int32_t n_errors;
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
};
/* ---- End file: src/internal.h ---- */

/* ---- Begin file: src/numerics.h ---- */
/* numerics.h - the storage rules shared by the reference interpreter (pto.h)
   and the simulated device (pto_kernels.h), so that both agree bit for bit.

   f16 and bf16 are stored as 16-bit patterns and computed in f32; every write
   rounds the f32 result to nearest, ties to even. Overflow rounds to infinity,
   NaN stays NaN (quiet), subnormals are kept. Elements are read and written
   through pto_elem_get / pto_elem_set so that the dtype rule lives in one
   place. Dtype codes follow pto_dtype: 1 f32, 2 f16, 3 bf16, 4 i32, 5 i8.

   This file is included in both generated headers; the guard lets one
   translation unit include both. */

#ifndef PTO_NUMERICS_H
#define PTO_NUMERICS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__) || defined(__TINYC__)
#define PTO_NUMFN static __attribute__((unused))
#else
#define PTO_NUMFN static
#endif

PTO_NUMFN uint32_t pto_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

PTO_NUMFN float pto_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

PTO_NUMFN float pto_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) return pto_f32_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        /* subnormal or zero: man * 2^-24, exact in f32 */
        float v = (float)man * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return pto_f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

PTO_NUMFN uint16_t pto_f32_to_f16(float f)
{
    uint32_t u = pto_f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t exp = (u >> 23) & 0xffu;
    uint32_t man = u & 0x7fffffu;
    int32_t e;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
    e = (int32_t)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        /* subnormal f16: shift the full mantissa (with its hidden bit) right */
        uint32_t full, shift, half, rest, q;
        if (e < -10) return (uint16_t)sign; /* below half the smallest subnormal */
        full = man | 0x800000u;
        shift = (uint32_t)(14 - e);
        q = full >> shift;
        rest = full & ((1u << shift) - 1u);
        half = 1u << (shift - 1u);
        if (rest > half || (rest == half && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    {
        uint32_t q = ((uint32_t)e << 10) | (man >> 13);
        uint32_t rest = man & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (q & 1u))) q++; /* may carry into inf: right */
        return (uint16_t)(sign | q);
    }
}

PTO_NUMFN float pto_bf16_to_f32(uint16_t h) { return pto_f32_from_bits((uint32_t)h << 16); }

PTO_NUMFN uint16_t pto_f32_to_bf16(float f)
{
    uint32_t u = pto_f32_bits(f);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu))
        return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* The NaN every arithmetic result that is NaN becomes (quiet, positive, no
   payload). C leaves the sign and payload of a NaN result to the compiler
   and the CPU: which operand of a commuted a + b is kept, x86's negative
   default NaN against ARM's positive one. Canonical NaNs keep the
   interpreter and the simulator bit for bit whatever compiled them.
   Selections and copies (tmax, tmin, tabs, tneg, moves) keep NaN bits. */
PTO_NUMFN float pto_nan_canon(float v) { return v != v ? pto_f32_from_bits(0x7fc00000u) : v; }

/* -x as a sign-bit flip: tcc compiles unary minus as x * -1, which leaves
   a NaN's sign alone; tneg must flip it (and the sign of 0) everywhere. */
PTO_NUMFN float pto_fneg(float v) { return pto_f32_from_bits(pto_f32_bits(v) ^ 0x80000000u); }

/* Round an f32 value as storing it in dtype would. */
PTO_NUMFN float pto_round_to(int dtype, float v)
{
    switch (dtype) {
    case 2: return pto_f16_to_f32(pto_f32_to_f16(v));
    case 3: return pto_bf16_to_f32(pto_f32_to_bf16(v));
    default: return v;
    }
}

/* The values integer dtype 5 (i8) or 4 (i32) holds, as doubles: the one
   range that scalar conversion, the verifier's and the harness's warnings
   and the -D checks share. */
PTO_NUMFN double pto_int_lo(int dtype) { return dtype == 5 ? -128.0 : -2147483648.0; }
PTO_NUMFN double pto_int_hi(int dtype) { return dtype == 5 ? 127.0 : 2147483647.0; }

/* A scalar operand as the vector unit takes it. pto-isa's TADDS .. TMINS
   and TEXPANDS take the scalar as the tile's element type (`typename
   TileData::DType scalar`), so the device converts it to the destination
   tile's dtype before any arithmetic: f16 and bf16 round to nearest even
   (through f32), i32 and i8 truncate toward zero as C++ converts a float
   to an integer (saturated here, NaN as 0, where the device's conversion
   is undefined). So tmuls on an f16 tile by 0.1 multiplies by
   0.0999755859375, and tadds on an i32 tile of 2.5 adds 2. */
PTO_NUMFN float pto_scalar_as(int dtype, double s)
{
    switch (dtype) {
    case 2:
    case 3: return pto_round_to(dtype, (float)s);
    case 4:
    case 5: {
        double lo = pto_int_lo(dtype), hi = pto_int_hi(dtype);
        if (s != s) return 0.0f;
        s = s < lo ? lo : s > hi ? hi : s;
        return (float)(s < 0 ? ceil(s) : floor(s));
    }
    default: return (float)s;
    }
}

PTO_NUMFN float pto_elem_get(const void *base, int dtype, int64_t i)
{
    switch (dtype) {
    case 1: return ((const float *)base)[i];
    case 2: return pto_f16_to_f32(((const uint16_t *)base)[i]);
    case 3: return pto_bf16_to_f32(((const uint16_t *)base)[i]);
    case 4: return (float)((const int32_t *)base)[i];
    case 5: return (float)((const int8_t *)base)[i];
    default: return 0.0f;
    }
}

/* Integer dtypes: round to nearest even, saturate. */
PTO_NUMFN int32_t pto_sat_i32(float v)
{
    float r;
    if (v != v) return 0;
    if (v >= 2147483647.0f) return 2147483647;
    if (v <= -2147483648.0f) return (-2147483647 - 1);
    r = nearbyintf(v);
    return (int32_t)r;
}

PTO_NUMFN void pto_elem_set(void *base, int dtype, int64_t i, float v)
{
    switch (dtype) {
    case 1: ((float *)base)[i] = v; break;
    case 2: ((uint16_t *)base)[i] = pto_f32_to_f16(v); break;
    case 3: ((uint16_t *)base)[i] = pto_f32_to_bf16(v); break;
    case 4: ((int32_t *)base)[i] = pto_sat_i32(v); break;
    case 5: {
        int32_t x = pto_sat_i32(v);
        ((int8_t *)base)[i] = (int8_t)(x > 127 ? 127 : x < -128 ? -128 : x);
        break;
    }
    default: break;
    }
}

/* tcvt's store: f16 -> i8 is one of the narrowing conversions pto-isa's
   a2a3 TCVT runs with saturation OFF by default (kIsNarrowingCvt, "PyTorch
   semantics"), where the hardware keeps the low 8 bits of the rounded
   integer (300.0 -> 44, 200.0 -> -56) and, whatever the mode, +-inf give
   127 / -128 and NaN 0 (asc-devkit SetSaturationFlag). Every other pair
   tcvt takes saturates, as its default (SaturationMode ON) does: f32 ->
   i32 of 3e9 is INT32_MAX. sdt is the source dtype. */
PTO_NUMFN void pto_cvt_set(void *base, int ddt, int sdt, int64_t i, float v)
{
    if (ddt == 5 && sdt == 2 && v == v && v - v == 0.0f) {
        /* finite f16: |v| <= 65504, the rounded value fits int32 */
        int32_t r = (int32_t)nearbyintf(v);
        uint32_t u = (uint32_t)r & 0xffu;
        ((int8_t *)base)[i] = (int8_t)(u < 0x80u ? (int)u : (int)u - 256);
    } else {
        pto_elem_set(base, ddt, i, v);
    }
}

/* ---- element arithmetic -------------------------------------------------
   One definition for both sides, so the interpreter and the simulator cannot
   drift apart. Binary ops in op-table order (add sub mul div max min), unary
   ops likewise (exp log sqrt rsqrt recip abs neg relu). Arithmetic NaN
   results are the canonical quiet NaN; max/min return the first NaN operand
   and, for equal values (+0 and -0 too), the first operand; abs and neg only
   touch the sign bit; relu maps -0 and NaN to +0. */

enum { PTO_EL_ADD, PTO_EL_SUB, PTO_EL_MUL, PTO_EL_DIV, PTO_EL_MAX, PTO_EL_MIN };
enum { PTO_EL_EXP, PTO_EL_LOG, PTO_EL_SQRT, PTO_EL_RSQRT, PTO_EL_RECIP, PTO_EL_ABS, PTO_EL_NEG, PTO_EL_RELU };

PTO_NUMFN float pto_el_bin(int op, float a, float b)
{
    float r;
    switch (op) {
    case PTO_EL_ADD: r = a + b; return pto_nan_canon(r);
    case PTO_EL_SUB: r = a - b; return pto_nan_canon(r);
    case PTO_EL_MUL: r = a * b; return pto_nan_canon(r);
    case PTO_EL_DIV: r = a / b; return pto_nan_canon(r);
    case PTO_EL_MAX: return a != a ? a : b != b ? b : a >= b ? a : b;
    default: return a != a ? a : b != b ? b : a <= b ? a : b;
    }
}

PTO_NUMFN float pto_el_un(int op, float x)
{
    float r;
    switch (op) {
    case PTO_EL_EXP: return pto_nan_canon(expf(x));
    case PTO_EL_LOG: return pto_nan_canon(logf(x));
    case PTO_EL_SQRT: return pto_nan_canon(sqrtf(x));
    case PTO_EL_RSQRT: r = sqrtf(x); r = 1.0f / r; return pto_nan_canon(r);
    case PTO_EL_RECIP: r = 1.0f / x; return pto_nan_canon(r);
    case PTO_EL_ABS: return fabsf(x);
    case PTO_EL_NEG: return pto_fneg(x);
    default: return x > 0.0f ? x : 0.0f;
    }
}

/* ---- integer tiles --------------------------------------------------------
   On an i32 / i8 tile the vector unit's add, sub, mul, max, min (and their
   scalar forms), abs, neg, relu and the fill are integer operations
   (pto-isa's int32_t TADD ...), not f32 ones: 16777217 + 0 must not round to
   16777216. They are computed exactly in int64 and stored WRAPPED to the
   dtype (two's complement: the low 32 / 8 bits), as the device does: its
   integer saturation mode (Ascend C SaturationMode::INT, CTRL bit 53) is off
   by default, and "an overflowing integer result keeps its low bits"
   (asc-devkit SetSaturationFlag). So INT32_MAX + 1 is INT32_MIN, 100 * 3 on
   i8 is 44, and abs / neg of INT32_MIN (-128 on i8) are INT32_MIN (-128).
   Wrapping the exact result equals wrapping every step (arithmetic mod 2^n),
   so the row / column reductions (pto_el_red_i: the sum in int64) and the
   row / column broadcasts' add, sub, mul (the binary ops) wrap the same way.
   tdiv and its broadcast forms still compute in f32, and conversions (tcvt,
   a tload from another dtype) still saturate (pto_elem_set): the device's
   float -> int conversion saturation (SaturationMode::CAST) is on by
   default. pto_el_int_op says which ops take this path:
   bop a binary op (PTO_EL_ADD ..), or -1 - uop for a unary one (PTO_EL_EXP ..),
   or -100 for the fill. */
PTO_NUMFN int pto_el_int_op(int dtype, int op)
{
    if (dtype != 4 && dtype != 5) return 0;
    if (op == -100) return 1;
    if (op >= 0) return op != PTO_EL_DIV;
    op = -1 - op;
    return op == PTO_EL_ABS || op == PTO_EL_NEG || op == PTO_EL_RELU;
}

PTO_NUMFN int64_t pto_elem_geti(const void *base, int dtype, int64_t i)
{
    return dtype == 4 ? (int64_t)((const int32_t *)base)[i] : (int64_t)((const int8_t *)base)[i];
}

/* v modulo 2^32 / 2^8 as a two's complement i32 / i8. Only unsigned
   arithmetic and in-range conversions: C leaves the conversion of an
   out-of-range value to a signed type to the implementation (and signed
   overflow undefined), so neither is relied on. */
PTO_NUMFN int32_t pto_wrap_i32(int64_t v)
{
    uint32_t u = (uint32_t)((uint64_t)v & 0xffffffffu);
    return u < 0x80000000u ? (int32_t)u : (int32_t)(u - 0x80000000u) - 2147483647 - 1;
}

PTO_NUMFN int8_t pto_wrap_i8(int64_t v)
{
    unsigned u = (unsigned)((uint64_t)v & 0xffu);
    return (int8_t)(u < 0x80u ? (int)u : (int)u - 256);
}

PTO_NUMFN void pto_elem_seti(void *base, int dtype, int64_t i, int64_t v)
{
    if (dtype == 4) ((int32_t *)base)[i] = pto_wrap_i32(v);
    else ((int8_t *)base)[i] = pto_wrap_i8(v);
}

/* The scalar of an integer tile's op: pto_scalar_as's truncation, as an
   integer (a float would round 16777217). */
PTO_NUMFN int64_t pto_scalar_asi(int dtype, double s)
{
    double lo = pto_int_lo(dtype), hi = pto_int_hi(dtype);
    if (s != s) return 0;
    s = s < lo ? lo : s > hi ? hi : s;
    return (int64_t)(s < 0 ? ceil(s) : floor(s));
}

/* Operands are i32 or i8 values (or a reduction's running sum of fewer than
   2^31 of them), so neither the product nor a sum leaves int64: exact, no
   signed overflow; the store wraps (pto_elem_seti). */
PTO_NUMFN int64_t pto_el_bin_i(int op, int64_t a, int64_t b)
{
    switch (op) {
    case PTO_EL_ADD: return a + b;
    case PTO_EL_SUB: return a - b;
    case PTO_EL_MUL: return a * b;
    case PTO_EL_MAX: return a >= b ? a : b;
    default: return a <= b ? a : b;
    }
}

PTO_NUMFN int64_t pto_el_un_i(int op, int64_t x)
{
    switch (op) {
    case PTO_EL_ABS: return x < 0 ? -x : x;   /* -INT32_MIN is 2^31 here; stored, INT32_MIN */
    case PTO_EL_NEG: return -x;
    default: return x > 0 ? x : 0;
    }
}

/* A row or column reduction of an integer tile: n elements of base from
   index i0, step apart, combined in order by op (PTO_EL_ADD: the sum, exact
   in int64 since n < 2^32 i32 values cannot leave it, wrapped when stored;
   PTO_EL_MAX, PTO_EL_MIN: exact). No elements give 0 for the sum and, for
   max / min, the dtype's least / greatest value (what -inf / +inf store as
   on the f32 path). */
PTO_NUMFN int64_t pto_el_red_i(int op, const void *base, int dtype, int64_t i0, int64_t step, int64_t n)
{
    int64_t k, acc;
    if (n == 0)
        return op == PTO_EL_ADD ? 0 : op == PTO_EL_MAX ? (dtype == 4 ? -2147483647 - 1 : -128)
                                                       : (dtype == 4 ? 2147483647 : 127);
    acc = pto_elem_geti(base, dtype, i0);
    for (k = 1; k < n; k++) acc = pto_el_bin_i(op, acc, pto_elem_geti(base, dtype, i0 + k * step));
    return acc;
}

/* Which of TMATMUL's m, k, n (0, 1, 2: the left tile's valid rows and
   cols, the right tile's valid cols) is outside 1..4095, the range pto-isa
   asserts on the device (CheckDynamicMad); -1 when all are in it. The
   interpreter and the simulator refuse the same launches. */
PTO_NUMFN int pto_mm_bad_extent(int64_t m, int64_t k, int64_t n)
{
    return m < 1 || m > 4095 ? 0 : k < 1 || k > 4095 ? 1 : n < 1 || n > 4095 ? 2 : -1;
}

/* c[i][j] of an i8 x i8 -> i32 tmatmul: c0 (0, or the accumulator for
   tmatmul_acc) plus a[i][k] * b[k][j] over k < K, ascending, a and b row
   major with row strides sa and sb. The cube multiplies and accumulates
   integers exactly (f32 would round past 2^24: 127 * 127 * 1041 is
   already there), so this is int64 (|each product| <= 2^14, K <= 4095),
   and the store wraps to i32 like every integer result. */
PTO_NUMFN int64_t pto_el_mm_i8(const void *a, int64_t sa, const void *b, int64_t sb, int64_t i, int64_t j, int64_t K,
                               int64_t c0)
{
    const int8_t *pa = (const int8_t *)a + i * sa, *pb = (const int8_t *)b + j;
    int64_t k, acc = c0;
    for (k = 0; k < K; k++) acc += (int64_t)pa[k] * (int64_t)pb[k * sb];
    return acc;
}

#endif /* PTO_NUMERICS_H */
/* ---- End file: src/numerics.h ---- */

/* ---- Begin file: src/base.c ---- */
/* base.c - the context, allocation, interned strings, file names and
   diagnostics.

   Diagnostics are kept in order; pto_error returns PTO_ERR_USER so that a
   pass can report and return in one statement. Running out of memory is
   reported once, as an internal error at no location. */

static void *pto__default_alloc(size_t size, void *user) { return PTO_MALLOC(size, user); }
static void *pto__default_realloc(void *p, size_t size, void *user) { return PTO_REALLOC(p, size, user); }
static void pto__default_free(void *p, void *user) { PTO_FREE(p, user); }

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
static int32_t pto__intern_add(pto_ctx *ctx, const char *s, size_t len, uint32_t hv)
{
    uint32_t k;
    int32_t id;
    if (pto__hash_full(ctx->n_strs + 1, ctx->hash_cap) && !pto__rehash(ctx, ctx->hash_cap ? ctx->hash_cap * 2 : 64))
        return 0;
    if ((id = pto__str_add(ctx, s, len)) < 0) return 0;
    k = hv & (uint32_t)(ctx->hash_cap - 1);
    while (ctx->hash[k].id >= 0) k = (k + 1) & (uint32_t)(ctx->hash_cap - 1);
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
    if (!h) return pto__intern_add(ctx, s, len, hv);
    for (;; k = (k + 1) & mask) {
        int32_t id = h[k].id;
        if (id < 0) return pto__intern_add(ctx, s, len, hv);
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
    char msg[512];
    int32_t i;
    if (sev == PTO_SEV_ERROR) ctx->n_errors++;
    if (ctx->n_diags >= ctx->max_diags) return;
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
PTODEF int pto_error_count(const pto_ctx *ctx) { return ctx ? ctx->n_errors : 0; }
PTODEF const pto_diag *pto_diag_get(const pto_ctx *ctx, int i)
{
    return (ctx && i >= 0 && i < ctx->n_diags) ? &ctx->diags[i] : NULL;
}

/* Drops the diagnostics recorded after the first n, and counts nerr
   errors: a pass that finds its input malformed part way through reports
   that alone. */
static void pto__diag_truncate(pto_ctx *ctx, int32_t n, int32_t nerr)
{
    while (ctx->n_diags > n) pto_free(ctx, ctx->diags[--ctx->n_diags].msg);
    ctx->n_errors = nerr;
}

PTODEF void pto_diag_clear(pto_ctx *ctx)
{
    int32_t i;
    for (i = 0; i < ctx->n_diags; i++) pto_free(ctx, ctx->diags[i].msg);
    ctx->n_diags = 0;
    ctx->n_errors = 0;
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

PTODEF void pto_diag_print(const pto_ctx *ctx, FILE *out)
{
    int32_t i;
    char line[700];
    if (!ctx || !out) return;
    for (i = 0; i < ctx->n_diags; i++) {
        pto_diag_format(ctx, &ctx->diags[i], line, sizeof line);
        fprintf(out, "%s\n", line);
    }
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
    if (!b->ctx) { b->oom = 1; return 0; }   /* no context set: nothing to allocate with */
    p = (char *)pto_realloc(b->ctx, b->data, ncap);
    if (!p) { b->oom = 1; pto__oom(b->ctx); return 0; }
    b->data = p;
    b->cap = ncap;
    return 1;
}

PTODEF void pto_buf_putn(pto_buf *b, const char *s, size_t n)
{
    if (!b || b->oom || (!s && n)) return;
    if (b->len + n + 1 > b->cap && (b->sink ? pto__buf_spill(b, s, n) : !pto__buf_grow(b, n))) return;
    memcpy(b->data + b->len, s, n);
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
    b->data = NULL;
    b->len = b->cap = 0;
}
/* ---- End file: src/base.c ---- */

/* ---- Begin file: src/ir.c ---- */
/* ir.c - the op table, name tables, capacities, the IR builders and the
   statement-relinking helpers that passes use to insert code.

   Builders never fail silently: on out-of-memory they record a diagnostic and
   return -1, and every caller propagates that. Statement lists are doubly
   linked so that the sync inserter and the lowering pass can put a statement
   before or after any other in O(1). */

static const pto_opinfo pto__optab[] = {
#define PTO__OP_ROW(e, name, pipe, cls, n, a0, a1, a2, a3) {name, pipe, cls, n, {a0, a1, a2, a3}},
    PTO_OPS(PTO__OP_ROW)
#undef PTO__OP_ROW
    {"<none>", PTO_PIPE_S, PTO_OC_SYNC, 0, {0, 0, 0, 0}}
};

PTODEF const pto_opinfo *pto_opinfo_get(pto_op op)
{
    if ((int)op < 0 || op > PTO_NOP) op = PTO_NOP;
    return &pto__optab[op];
}

static int pto__streq(const char *a, const char *s, size_t len)
{
    return strncmp(a, s, len) == 0 && a[len] == 0;
}

PTODEF pto_op pto_op_lookup(const char *name, size_t len)
{
    int i;
    for (i = 0; i < PTO_NOP; i++)
        if (pto__streq(pto__optab[i].name, name, len)) return (pto_op)i;
    return PTO_NOP;
}

static const char *const pto__dtype_names[PTO_NDTYPE] = {"<none>", "f32", "f16", "bf16", "i32", "i8"};
static const int pto__dtype_sizes[PTO_NDTYPE] = {0, 4, 2, 2, 4, 1};
static const char *const pto__space_names[PTO_NSPACE] = {"gm", "vec", "mat", "left", "right", "acc", "bias", "scaling"};
static const char *const pto__pipe_names[PTO_NPIPE] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};
static const char *const pto__arch_names[PTO_NARCH] = {"a2a3", "a5"};
static const char *const pto__cmp_names[6] = {"==", "!=", "<", "<=", ">", ">="};

/* hardware.md section 2 */
static const int64_t pto__capacity[PTO_NARCH][PTO_NSPACE] = {
    /* gm, vec, mat, left, right, acc, bias, scaling */
    {0, 196608, 524288, 65536, 65536, 131072, 1024, 2048},
    {0, 262144, 524288, 65536, 65536, 262144, 4096, 4096},
};

PTODEF const char *pto_dtype_name(pto_dtype dt) { return (dt >= 0 && dt < PTO_NDTYPE) ? pto__dtype_names[dt] : "?"; }
PTODEF int pto_dtype_size(pto_dtype dt) { return (dt >= 0 && dt < PTO_NDTYPE) ? pto__dtype_sizes[dt] : 0; }
PTODEF pto_dtype pto_dtype_lookup(const char *name, size_t len)
{
    int i;
    for (i = 1; i < PTO_NDTYPE; i++)
        if (pto__streq(pto__dtype_names[i], name, len)) return (pto_dtype)i;
    return PTO_DT_NONE;
}
PTODEF const char *pto_space_name(pto_space s) { return (s >= 0 && s < PTO_NSPACE) ? pto__space_names[s] : "?"; }
PTODEF pto_space pto_space_lookup(const char *name, size_t len)
{
    int i;
    for (i = 1; i < PTO_NSPACE; i++)
        if (pto__streq(pto__space_names[i], name, len)) return (pto_space)i;
    return PTO_NSPACE;
}
PTODEF const char *pto_pipe_name(pto_pipe p) { return (p >= 0 && p < PTO_NPIPE) ? pto__pipe_names[p] : "?"; }
PTODEF pto_pipe pto_pipe_lookup(const char *name, size_t len)
{
    int i;
    for (i = 0; i < PTO_NPIPE; i++)
        if (pto__streq(pto__pipe_names[i], name, len)) return (pto_pipe)i;
    return PTO_NPIPE;
}
PTODEF const char *pto_arch_name(pto_arch a) { return (a >= 0 && a < PTO_NARCH) ? pto__arch_names[a] : "?"; }
PTODEF const char *pto_cmp_name(pto_cmp c) { return (c >= 0 && c <= PTO_GE) ? pto__cmp_names[c] : "?"; }

/* Whether `a cmp b` holds (an if's condition, a wait's test): the verifier
   and the interpreter decide it the same way. */
static int pto__cmp_holds(int cmp, int64_t a, int64_t b)
{
    switch (cmp) {
    case PTO_EQ: return a == b;
    case PTO_NE: return a != b;
    case PTO_LT: return a < b;
    case PTO_LE: return a <= b;
    case PTO_GT: return a > b;
    default: return a >= b;
    }
}

PTODEF int64_t pto_space_capacity(pto_arch arch, pto_space s)
{
    if (arch < 0 || arch >= PTO_NARCH || s < 0 || s >= PTO_NSPACE) return 0;
    return pto__capacity[arch][s];
}

/* Byte offsets into a tensor are int64 everywhere (the interpreter, the
   emitted kernels and host code): a tensor of static dims d0 x d1 must stay
   under 2^61 bytes so that offset arithmetic has headroom. 0 when it does
   (or when a dim is not a positive static one: reported elsewhere). */
static int pto__tensor_too_big(int dtype, int64_t d0, int64_t d1)
{
    int64_t es = (dtype >= 0 && dtype < PTO_NDTYPE) ? pto_dtype_size((pto_dtype)dtype) : 0;
    return d0 > 0 && d1 > 0 && es > 0 && d0 > INT64_MAX / 4 / d1 / es;
}

/* Whether expressions a and b are the same text (lets and vars by
   identity): the structural equality sync (loop rotations) and lower (the
   isa target's padding reads) decide with. Ids out of range or a tree
   deeper than any the parser makes (PTO__MAX_EXPR_DEPTH there: 256) are
   "not the same", so a hostile builder-made module cannot exhaust the stack. */
static int pto__expr_same_at(const pto_module *m, int32_t a, int32_t b, int depth)
{
    const pto_expr *x, *y;
    if (a == b) return 1;
    if (a < 0 || b < 0 || a >= m->n_exprs || b >= m->n_exprs || depth > 4096) return 0;
    x = &m->exprs[a];
    y = &m->exprs[b];
    if (x->kind != y->kind) return 0;
    switch (x->kind) {
    case PTO_E_INT: return x->value == y->value;
    case PTO_E_VAR: return x->a == y->a;
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS: return 1;
    case PTO_E_NEG: return pto__expr_same_at(m, x->a, y->a, depth + 1);
    default: return pto__expr_same_at(m, x->a, y->a, depth + 1) && pto__expr_same_at(m, x->b, y->b, depth + 1);
    }
}

static int pto__expr_same(const pto_module *m, int32_t a, int32_t b) { return pto__expr_same_at(m, a, b, 0); }

PTODEF int64_t pto_tile_bytes(const pto_tile *t)
{
    return (int64_t)t->rows * t->cols * pto_dtype_size((pto_dtype)t->dtype);
}

PTODEF const pto_operand *pto_stmt_arg(const pto_module *m, int32_t stmt, int i)
{
    const pto_stmt *s;
    if (stmt < 0 || stmt >= m->n_stmts) return NULL;
    s = &m->stmts[stmt];
    if (i < 0 || i >= s->nargs) return NULL;
    return &m->operands[s->arg0 + i];
}

static int pto__arg_space(const pto_module *m, int32_t stmt, int i)
{
    const pto_operand *o = pto_stmt_arg(m, stmt, i);
    if (!o) return -1;
    if (o->kind == PTO_O_GM) return PTO_GM;
    if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles) return m->tiles[o->ref].space;
    return -1;
}

PTODEF pto_pipe pto_stmt_pipe(const pto_module *m, int32_t stmt)
{
    const pto_stmt *s;
    int src;
    if (stmt < 0 || stmt >= m->n_stmts) return PTO_NPIPE;
    s = &m->stmts[stmt];
    if (s->kind != PTO_ST_OP) return PTO_PIPE_S;
    /* only these four depend on their operands' spaces: the others are
       their table row (no operand lookups for them; every pass asks) */
    if (s->op != PTO_OP_TSTORE && s->op != PTO_OP_TPUSH && s->op != PTO_OP_TMOV && s->op != PTO_OP_TFILLPAD)
        return pto_opinfo_get((pto_op)s->op)->pipe;
    /* pto-isa's TFILLPAD: the vector unit pads a UB tile; an L1 tile is
       padded by create_cbuf_matrix, an MTE2 instruction (after the load,
       in the same in-order queue) */
    if (s->op == PTO_OP_TFILLPAD) return pto__arg_space(m, stmt, 0) == PTO_MAT ? PTO_PIPE_MTE2 : PTO_PIPE_V;
    src = pto__arg_space(m, stmt, 1);
    switch (s->op) {
    case PTO_OP_TSTORE:
        return src == PTO_ACC ? PTO_PIPE_FIX : PTO_PIPE_MTE3;
    case PTO_OP_TPUSH:   /* hardware.md section 3: FIX from L0C, MTE3 from UB */
        return src == PTO_ACC ? PTO_PIPE_FIX : PTO_PIPE_MTE3;
    default:             /* tmov */
        if (src == PTO_ACC) return PTO_PIPE_FIX;
        if (src == PTO_VEC && pto__arg_space(m, stmt, 0) == PTO_VEC) return PTO_PIPE_V;
        return PTO_PIPE_MTE1;
    }
}

PTODEF int32_t pto_stmt_loop(const pto_module *m, int32_t stmt)
{
    int32_t b = stmt >= 0 && stmt < m->n_stmts ? m->stmts[stmt].block : -1;
    while (b >= 0) {
        int32_t owner = m->blocks[b].owner;
        if (owner < 0) return -1;
        if (m->stmts[owner].kind == PTO_ST_FOR) return owner;
        b = m->stmts[owner].block;
    }
    return -1;
}

/* ---- module ---- */

PTODEF pto_module *pto_module_create(pto_ctx *ctx, pto_arch arch)
{
    pto_module *m = (pto_module *)pto_alloc(ctx, sizeof *m);
    if (!m) { pto__oom(ctx); return NULL; }
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->arch = arch;
    return m;
}

PTODEF void pto_module_destroy(pto_module *m)
{
    pto_ctx *ctx;
    if (!m) return;
    ctx = m->ctx;
    pto_free(ctx, m->kernels);
    pto_free(ctx, m->params);
    pto_free(ctx, m->vars);
    pto_free(ctx, m->tiles);
    pto_free(ctx, m->stmts);
    pto_free(ctx, m->blocks);
    pto_free(ctx, m->operands);
    pto_free(ctx, m->exprs);
    pto_free(ctx, m->cvpipes);
    pto_free(ctx, m->hosts);
    pto_free(ctx, m->hstmts);
    pto_free(ctx, m);
}

/* Sets an empty PTO__ARRAY's capacity to `want` elements. Best effort: a
   failed reservation is not an error (the array still grows on demand). */
static void pto__reserve(pto_ctx *ctx, void **arr, int32_t n, int32_t *cap, size_t elem, size_t want)
{
    void *p;
    if (n != 0 || *arr || want <= 16 || want > (size_t)INT32_MAX / 2) return;
    p = pto__alloc_quiet(ctx, want * elem);
    if (!p) return;
    *arr = p;
    *cap = (int32_t)want;
}
#define PTO__RESERVE(m, arr, want) \
    pto__reserve((m)->ctx, (void **)&(m)->arr, (m)->n_##arr, &(m)->cap_##arr, sizeof(*(m)->arr), (want))

/* Sizes a fresh module's node arrays for a source of `len` bytes, so that a
   large file's arrays do not grow by doubling (each doubling copies the
   array and touches fresh pages). The ratios are a little above those of
   typical kernel text (about 32 bytes per statement, 23 per operand, 21 per
   expression, 137 per tile); pages of an unused tail are never touched. */
static void pto__module_reserve(pto_module *m, size_t len)
{
    PTO__RESERVE(m, stmts, len / 28);
    PTO__RESERVE(m, operands, len / 20);
    PTO__RESERVE(m, exprs, len / 18);
    PTO__RESERVE(m, tiles, len / 112);
    PTO__RESERVE(m, vars, len / 128);
    PTO__RESERVE(m, blocks, len / 256);
}

static int32_t pto__name(pto_module *m, const char *s) { return pto_intern(m->ctx, s, strlen(s)); }

/* A refused builder call: the error, and the module marked incomplete. */
static pto_status pto__api_error(pto_module *m, pto_loc loc, const char *fmt, ...)
{
    va_list ap;
    m->broken++;
    m->verified = 0;
    va_start(ap, fmt);
    pto__vdiag(m->ctx, PTO_SEV_ERROR, loc, fmt, ap);
    va_end(ap);
    return PTO_ERR_USER;
}

/* Checks of the C API's arguments: an id out of range, a NULL name, a
   statement of the wrong kind are a caller's mistake, reported as an error
   naming the builder, at the location given, and the builder returns -1
   without touching the module. An id of -1 (the result of a builder that
   failed before, which reported) is refused without a second error. */
static int pto__api_id(pto_module *m, const char *fn, const char *what, int32_t id, int32_t n, pto_loc loc)
{
    if (id >= 0 && id < n) return 1;
    if (id != -1 || pto_error_count(m->ctx) == 0)
        pto__api_error(m, loc, "%s: %s id %ld is out of range (the module has %ld)", fn, what, (long)id, (long)n);
    else
        m->broken++;
    m->verified = 0;
    return 0;
}

static int pto__api_name(pto_module *m, const char *fn, const char *name, pto_loc loc)
{
    if (name) return 1;
    pto__api_error(m, loc, "%s: the name is NULL", fn);
    return 0;
}

static int pto__api_block(pto_module *m, const char *fn, int32_t block, pto_loc loc)
{
    if (!pto__api_id(m, fn, "block", block, m->n_blocks, loc)) return 0;
    return pto__api_id(m, fn, "kernel of the block", m->blocks[block].kernel, m->n_kernels, loc);
}

PTODEF int32_t pto_add_block(pto_module *m, int32_t kernel, int32_t owner)
{
    pto_loc none = {0, 0, 0};
    int32_t b;
    if (!pto__api_id(m, "pto_add_block", "kernel", kernel, m->n_kernels, none)) return -1;
    if (owner != -1 && !pto__api_id(m, "pto_add_block", "owner statement", owner, m->n_stmts, none)) return -1;
    b = PTO__MPUSH_FAST(m, blocks);
    if (b < 0) return -1;
    m->blocks[b].head = m->blocks[b].tail = -1;
    m->blocks[b].owner = owner;
    m->blocks[b].kernel = kernel;
    return b;
}

PTODEF int32_t pto_add_kernel(pto_module *m, const char *name, pto_kernel_kind kind, pto_loc loc)
{
    int32_t k;
    if (!pto__api_name(m, "pto_add_kernel", name, loc)) return -1;
    k = PTO__MPUSH(m, kernels);
    if (k < 0) return -1;
    m->kernels[k].name = pto__name(m, name);
    m->kernels[k].kind = (uint8_t)kind;
    m->kernels[k].blocks = -1;
    m->kernels[k].param0 = m->n_params;
    m->kernels[k].loc = loc;
    m->kernels[k].body = pto_add_block(m, k, -1);
    return m->kernels[k].body < 0 ? -1 : k;
}

/* Params of a kernel are contiguous: only the newest kernel takes new ones. */
static int32_t pto__add_param(pto_module *m, const char *fn, int32_t kernel, const char *name, pto_loc loc)
{
    int32_t p;
    pto_kernel *k;
    if (!pto__api_id(m, fn, "kernel", kernel, m->n_kernels, loc) || !pto__api_name(m, fn, name, loc)) return -1;
    k = &m->kernels[kernel];
    if (kernel != m->n_kernels - 1 || k->param0 + k->nparams != m->n_params) {
        pto__api_error(m, loc, "%s: params of kernel '%s' must be added while it is the newest kernel and before "
                  "any other kernel's or host's params", fn, pto_str(m->ctx, k->name));
        return -1;
    }
    p = PTO__MPUSH(m, params);
    if (p < 0) return -1;
    m->kernels[kernel].nparams++;
    m->params[p].name = pto__name(m, name);
    m->params[p].dim_var[0] = m->params[p].dim_var[1] = -1;
    m->params[p].var = -1;
    m->params[p].loc = loc;
    return p;
}

PTODEF int32_t pto_add_tensor_param(pto_module *m, int32_t kernel, const char *name, pto_dir dir,
                                    pto_dtype dt, int64_t d0, int64_t d1, pto_loc loc)
{
    int32_t p = pto__add_param(m, "pto_add_tensor_param", kernel, name, loc);
    if (p < 0) return -1;
    m->params[p].kind = PTO_P_TENSOR;
    m->params[p].dir = (uint8_t)dir;
    m->params[p].dtype = (uint8_t)dt;
    m->params[p].dim[0] = d0;
    m->params[p].dim[1] = d1;
    return p;
}

PTODEF int32_t pto_find_var(const pto_module *m, int32_t kernel, const char *name)
{
    int32_t i;
    if (!name) return -1;
    for (i = m->n_vars - 1; i >= 0; i--)
        if (m->vars[i].kernel == kernel && strcmp(pto_str(m->ctx, m->vars[i].name), name) == 0) return i;
    return -1;
}

PTODEF int32_t pto_find_param(const pto_module *m, int32_t kernel, const char *name)
{
    const pto_kernel *k;
    int32_t i;
    if (!name || kernel < 0 || kernel >= m->n_kernels) return -1;
    k = &m->kernels[kernel];
    for (i = k->param0; i < k->param0 + k->nparams; i++)
        if (strcmp(pto_str(m->ctx, m->params[i].name), name) == 0) return i;
    return -1;
}

PTODEF int32_t pto_set_dynamic_dim(pto_module *m, int32_t param, int d, const char *name)
{
    pto_param *p;
    pto_loc none = {0, 0, 0};
    int32_t kernel = m->n_kernels - 1, v = -1, i;
    const char *fn = "pto_set_dynamic_dim";
    if (!pto__api_id(m, fn, "param", param, m->n_params, none)) return -1;
    p = &m->params[param];
    if (!pto__api_name(m, fn, name, p->loc)) return -1;
    if (d != 0 && d != 1) return pto__api_error(m, p->loc, "%s: dim %d of '%s' (a tensor has dims 0 and 1)", fn, d,
                                           pto_str(m->ctx, p->name)), -1;
    if (p->kind != PTO_P_TENSOR || kernel < 0 || param < m->kernels[kernel].param0 ||
        param >= m->kernels[kernel].param0 + m->kernels[kernel].nparams)
        return pto__api_error(m, p->loc, "%s: '%s' is not a tensor param of the newest kernel", fn,
                         pto_str(m->ctx, p->name)), -1;
    for (i = 0; i < m->n_vars; i++)
        if (m->vars[i].kernel == kernel && m->vars[i].kind == PTO_V_DIM &&
            strcmp(pto_str(m->ctx, m->vars[i].name), name) == 0) v = i;
    if (v < 0) v = pto_add_var(m, kernel, name, PTO_V_DIM, param, p->loc);
    if (v < 0) return -1;
    p = &m->params[param];
    p->dim[d] = -1;
    p->dim_var[d] = v;
    m->verified = 0;
    return v;
}

PTODEF int32_t pto_add_scalar_param(pto_module *m, int32_t kernel, const char *name, pto_dtype dt,
                                    pto_loc loc)
{
    int32_t p = pto__add_param(m, "pto_add_scalar_param", kernel, name, loc), v;
    if (p < 0) return -1;
    m->params[p].kind = PTO_P_SCALAR;
    m->params[p].dir = PTO_IN;
    m->params[p].dtype = (uint8_t)dt;
    m->params[p].dim[0] = m->params[p].dim[1] = 1;
    v = pto_add_var(m, kernel, name, PTO_V_SCALAR, p, loc);
    if (v < 0) return -1;
    m->params[p].var = v;
    return p;
}

/* The builders below with the name already interned (the parser has its
   id from the lexer; re-interning the text would hash it again). */
static int32_t pto__add_var_id(pto_module *m, int32_t kernel, int32_t name, pto_var_kind kind,
                               int32_t def, pto_loc loc)
{
    int32_t v = PTO__MPUSH_FAST(m, vars);
    if (v < 0) return -1;
    m->vars[v].name = name;
    m->vars[v].kind = (uint8_t)kind;
    m->vars[v].kernel = kernel;
    m->vars[v].def = def;
    m->vars[v].loc = loc;
    return v;
}

PTODEF int32_t pto_add_var(pto_module *m, int32_t kernel, const char *name, pto_var_kind kind,
                           int32_t def, pto_loc loc)
{
    if (!pto__api_name(m, "pto_add_var", name, loc)) return -1;
    return pto__add_var_id(m, kernel, pto__name(m, name), kind, def, loc);
}

/* ---- expressions ---- */

static inline int32_t pto__expr(pto_module *m, pto_expr_kind k, int32_t a, int32_t b, int64_t v, pto_loc loc)
{
    int32_t e = PTO__MPUSH_FAST(m, exprs);
    if (e < 0) return -1;
    m->exprs[e].kind = (uint8_t)k;
    m->exprs[e].a = a;
    m->exprs[e].b = b;
    m->exprs[e].value = v;
    m->exprs[e].loc = loc;
    return e;
}

PTODEF int32_t pto_expr_int(pto_module *m, int64_t v, pto_loc loc) { return pto__expr(m, PTO_E_INT, -1, -1, v, loc); }
PTODEF int32_t pto_expr_var(pto_module *m, int32_t var, pto_loc loc) { return pto__expr(m, PTO_E_VAR, var, -1, 0, loc); }
PTODEF int32_t pto_expr_builtin(pto_module *m, pto_expr_kind k, pto_loc loc) { return pto__expr(m, k, -1, -1, 0, loc); }
PTODEF int32_t pto_expr_bin(pto_module *m, pto_expr_kind k, int32_t a, int32_t b, pto_loc loc)
{
    if (a < 0 || (k != PTO_E_NEG && b < 0)) return -1;
    return pto__expr(m, k, a, b, 0, loc);
}

/* ---- statements ---- */

/* pto_new_stmt and pto_append, inline for the builders (the parser makes
   a statement per line). */
static inline int32_t pto__new_stmt(pto_module *m, pto_stmt_kind kind, pto_loc loc)
{
    int32_t s = PTO__MPUSH_FAST(m, stmts);
    pto_stmt *st;
    if (s < 0) return -1;
    st = &m->stmts[s];
    st->kind = (uint8_t)kind;
    st->next = st->prev = st->block = -1;
    st->ref = -1;
    st->e[0] = st->e[1] = st->e[2] = -1;
    st->body = st->orelse = -1;
    st->arg0 = m->n_operands;
    st->loc = loc;
    return s;
}

PTODEF int32_t pto_new_stmt(pto_module *m, pto_stmt_kind kind, pto_loc loc) { return pto__new_stmt(m, kind, loc); }

/* The core of a new statement follows its block: a section sets it, a kernel
   of kind cube makes it the cube core. */
static uint8_t pto__block_core(const pto_module *m, int32_t block)
{
    int32_t owner = m->blocks[block].owner;
    if (owner >= 0) return m->stmts[owner].core;
    return m->kernels[m->blocks[block].kernel].kind == PTO_KK_CUBE ? PTO_CORE_CUBE : PTO_CORE_VECTOR;
}

static inline void pto__append(pto_module *m, int32_t block, int32_t s)
{
    pto_block *b = &m->blocks[block];
    pto_stmt *st = &m->stmts[s];
    st->block = block;
    st->prev = b->tail;
    st->next = -1;
    if (b->tail >= 0) m->stmts[b->tail].next = s; else b->head = s;
    b->tail = s;
}

/* The relinking calls change the module: they clear the verified stamp
   (ir.h); lower and sync, which relink, stamp it again when they succeed. */
PTODEF void pto_append(pto_module *m, int32_t block, int32_t s)
{
    m->verified = 0;
    pto__append(m, block, s);
}

PTODEF void pto_prepend(pto_module *m, int32_t block, int32_t s)
{
    pto_block *b = &m->blocks[block];
    pto_stmt *st = &m->stmts[s];
    m->verified = 0;
    st->block = block;
    st->next = b->head;
    st->prev = -1;
    if (b->head >= 0) m->stmts[b->head].prev = s; else b->tail = s;
    b->head = s;
}

PTODEF void pto_insert_before(pto_module *m, int32_t at, int32_t s)
{
    pto_stmt *a = &m->stmts[at], *st = &m->stmts[s];
    m->verified = 0;
    st->block = a->block;
    st->next = at;
    st->prev = a->prev;
    if (a->prev >= 0) m->stmts[a->prev].next = s; else m->blocks[a->block].head = s;
    a->prev = s;
}

PTODEF void pto_insert_after(pto_module *m, int32_t at, int32_t s)
{
    pto_stmt *a = &m->stmts[at], *st = &m->stmts[s];
    m->verified = 0;
    st->block = a->block;
    st->prev = at;
    st->next = a->next;
    if (a->next >= 0) m->stmts[a->next].prev = s; else m->blocks[a->block].tail = s;
    a->next = s;
}

PTODEF void pto_unlink(pto_module *m, int32_t s)
{
    pto_stmt *st = &m->stmts[s];
    m->verified = 0;
    if (st->block < 0) return;
    if (st->prev >= 0) m->stmts[st->prev].next = st->next; else m->blocks[st->block].head = st->next;
    if (st->next >= 0) m->stmts[st->next].prev = st->prev; else m->blocks[st->block].tail = st->prev;
    st->block = st->next = st->prev = -1;
}

static int32_t pto__add_stmt(pto_module *m, int32_t block, pto_stmt_kind kind, pto_loc loc)
{
    int32_t s = pto__new_stmt(m, kind, loc);
    if (s < 0) return -1;
    m->stmts[s].core = pto__block_core(m, block);
    pto__append(m, block, s);
    return s;
}

static int32_t pto__add_tile_id(pto_module *m, int32_t block, int32_t name, pto_space space,
                                pto_dtype dt, int32_t rows, int32_t cols, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_TILE, loc), t;
    pto_tile *tl;
    if (s < 0) return -1;
    t = PTO__MPUSH_FAST(m, tiles);
    if (t < 0) return -1;
    tl = &m->tiles[t];
    tl->name = name;
    tl->kernel = m->blocks[block].kernel;
    tl->space = (uint8_t)space;
    tl->dtype = (uint8_t)dt;
    tl->core = m->stmts[s].core;
    tl->rows = rows;
    tl->cols = cols;
    tl->valid_r = tl->valid_c = -1;
    tl->nbuf = 1;
    tl->decl = s;
    tl->pin = PTO_NO_ADDR;
    tl->loc = loc;
    m->stmts[s].ref = t;
    return t;
}

static int32_t pto__add_let_id(pto_module *m, int32_t block, int32_t name, int32_t value, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_LET, loc), v;
    if (s < 0) return -1;
    v = pto__add_var_id(m, m->blocks[block].kernel, name, PTO_V_LET, s, loc);
    if (v < 0) return -1;
    m->stmts[s].ref = v;
    m->stmts[s].e[0] = value;
    return s;
}

static int32_t pto__add_for_id(pto_module *m, int32_t block, int32_t var, int32_t start,
                               int32_t end, int32_t step, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_FOR, loc), v, body;
    if (s < 0) return -1;
    v = pto__add_var_id(m, m->blocks[block].kernel, var, PTO_V_LOOP, s, loc);
    body = pto_add_block(m, m->blocks[block].kernel, s);
    if (v < 0 || body < 0) return -1;
    m->stmts[s].ref = v;
    m->stmts[s].e[0] = start;
    m->stmts[s].e[1] = end;
    m->stmts[s].e[2] = step;
    m->stmts[s].body = body;
    return s;
}

PTODEF int32_t pto_add_tile(pto_module *m, int32_t block, const char *name, pto_space space,
                            pto_dtype dt, int32_t rows, int32_t cols, pto_loc loc)
{
    if (!pto__api_block(m, "pto_add_tile", block, loc) || !pto__api_name(m, "pto_add_tile", name, loc)) return -1;
    return pto__add_tile_id(m, block, pto__name(m, name), space, dt, rows, cols, loc);
}

PTODEF int32_t pto_add_let(pto_module *m, int32_t block, const char *name, int32_t value, pto_loc loc)
{
    if (!pto__api_block(m, "pto_add_let", block, loc) || !pto__api_name(m, "pto_add_let", name, loc)) return -1;
    return pto__add_let_id(m, block, pto__name(m, name), value, loc);
}

PTODEF int32_t pto_add_for(pto_module *m, int32_t block, const char *var, int32_t start,
                           int32_t end, int32_t step, pto_loc loc)
{
    if (!pto__api_block(m, "pto_add_for", block, loc) || !pto__api_name(m, "pto_add_for", var, loc)) return -1;
    return pto__add_for_id(m, block, pto__name(m, var), start, end, step, loc);
}

PTODEF int32_t pto_add_if(pto_module *m, int32_t block, int32_t lhs, pto_cmp cmp, int32_t rhs,
                          pto_loc loc)
{
    int32_t s, body;
    if (!pto__api_block(m, "pto_add_if", block, loc)) return -1;
    s = pto__add_stmt(m, block, PTO_ST_IF, loc);
    if (s < 0) return -1;
    body = pto_add_block(m, m->blocks[block].kernel, s);
    if (body < 0) return -1;
    m->stmts[s].e[0] = lhs;
    m->stmts[s].e[1] = rhs;
    m->stmts[s].cmp = (uint8_t)cmp;
    m->stmts[s].body = body;
    return s;
}

PTODEF int32_t pto_if_else(pto_module *m, int32_t ifstmt)
{
    int32_t b;
    pto_loc none = {0, 0, 0};
    if (!pto__api_id(m, "pto_if_else", "statement", ifstmt, m->n_stmts, none)) return -1;
    if (m->stmts[ifstmt].kind != PTO_ST_IF || m->stmts[ifstmt].block < 0)
        return pto__api_error(m, m->stmts[ifstmt].loc, "pto_if_else: statement %ld is not an if placed in a block",
                         (long)ifstmt), -1;
    if (m->stmts[ifstmt].orelse >= 0) return m->stmts[ifstmt].orelse;
    b = pto_add_block(m, m->blocks[m->stmts[ifstmt].block].kernel, ifstmt);
    if (b >= 0) m->stmts[ifstmt].orelse = b;
    return b;
}

PTODEF int32_t pto_add_section(pto_module *m, int32_t block, pto_core core, pto_loc loc)
{
    int32_t s, body;
    if (!pto__api_block(m, "pto_add_section", block, loc)) return -1;
    s = pto__add_stmt(m, block, PTO_ST_SECTION, loc);
    if (s < 0) return -1;
    m->stmts[s].core = (uint8_t)core;
    m->stmts[s].ref = (int32_t)core;
    body = pto_add_block(m, m->blocks[block].kernel, s);
    if (body < 0) return -1;
    m->stmts[s].body = body;
    return s;
}

/* pto_add_op for the parser, whose block ids are its own (valid): without
   the API check. */
static int32_t pto__add_op_id(pto_module *m, int32_t block, pto_op op, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_OP, loc);
    if (s < 0) return -1;
    m->stmts[s].op = (uint16_t)op;
    return s;
}

PTODEF int32_t pto_add_op(pto_module *m, int32_t block, pto_op op, pto_loc loc)
{
    int32_t s;
    if (!pto__api_block(m, "pto_add_op", block, loc)) return -1;
    s = pto__add_stmt(m, block, PTO_ST_OP, loc);
    if (s < 0) return -1;
    m->stmts[s].op = (uint16_t)op;
    return s;
}

/* Operands of one statement are contiguous, so they must be added right
   after the statement, before any other statement's operands. */
/* A new zeroed operand at the end of the operand array (no expressions
   yet); the statement or host call that owns it counts it in nargs. */
static inline int32_t pto__operand_new(pto_module *m, pto_operand_kind kind, int32_t ref, pto_loc loc)
{
    int32_t o = PTO__MPUSH_FAST(m, operands);
    if (o < 0) return -1;
    m->operands[o].kind = (uint8_t)kind;
    m->operands[o].ref = ref;
    m->operands[o].e[0] = m->operands[o].e[1] = m->operands[o].e[2] = -1;
    m->operands[o].loc = loc;
    return o;
}

static inline int32_t pto__arg(pto_module *m, int32_t stmt, pto_operand_kind kind, int32_t ref, pto_loc loc)
{
    int32_t o;
    pto_stmt *s;
    if (!pto__api_id(m, "pto_arg_*", "statement", stmt, m->n_stmts, loc)) return -1;
    s = &m->stmts[stmt];
    if (s->kind != PTO_ST_OP)
        return pto__api_error(m, loc, "pto_arg_*: statement %ld is not an op statement (pto_add_op makes one)",
                         (long)stmt), -1;
    if (s->arg0 + s->nargs != m->n_operands)
        return pto__api_error(m, loc, "pto_arg_*: an operand of statement %ld (%s, line %ld) added after another "
                         "statement's operands: add a statement's operands right after pto_add_op, before "
                         "the next statement's", (long)stmt, pto_opinfo_get((pto_op)s->op)->name,
                         (long)s->loc.line), -1;
    o = pto__operand_new(m, kind, ref, loc);
    if (o >= 0) m->stmts[stmt].nargs++;
    return o;
}

/* A param's enum fields, as the C API may have set them: a value outside
   its enum is named by its number (for kernels and hosts alike). */
static void pto__param_enums(pto_ctx *ctx, const pto_param *p, const char *pn)
{
    if (p->dtype == PTO_DT_NONE) pto_error(ctx, p->loc, "'%s' needs a dtype", pn);
    else if (p->dtype >= PTO_NDTYPE) pto_error(ctx, p->loc, "'%s' has dtype %d, which is no pto_dtype", pn, (int)p->dtype);
    if (p->kind == PTO_P_TENSOR && p->dir > PTO_INOUT)
        pto_error(ctx, p->loc, "tensor '%s' has direction %d, which is no pto_dir (PTO_IN, PTO_OUT, PTO_INOUT)", pn,
                  (int)p->dir);
}

/* "a tile or a scalar": what an operand mask allows, for messages (the parser
   and the verifier say it the same way). */
static void pto__arg_expected(uint32_t mask, char *buf, size_t size)
{
    const char *parts[8];
    int n = 0, i;
    size_t len = 0;
    if (mask & PTO_A_TILES) parts[n++] = "a tile";
    if (mask & PTO_A_GM) parts[n++] = "a GM window";
    if (mask & PTO_A_SCALAR) parts[n++] = "a scalar";
    if (mask & PTO_A_INT) parts[n++] = "an integer";
    if (mask & PTO_A_PIPE) parts[n++] = "a pipe";
    if (mask & PTO_A_CVPIPE) parts[n++] = "a cube/vector pipe";
    if (mask & PTO_A_CMP) parts[n++] = "a comparison (eq ne lt le gt ge)";
    if (mask & PTO_A_NMODE) parts[n++] = "a notify mode (set add)";
    buf[0] = 0;
    for (i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " or " : "", parts[i]);
}

/* pto__arg without its checks, for the parser: its statement is always the
   op statement it added last (pto__add_op_id), whose operands are the
   last ones, so the checks hold by construction; each costs more than the
   operand itself. The values are set by the caller as pto_arg_* does. */
static inline int32_t pto__arg_last(pto_module *m, int32_t stmt, pto_operand_kind kind, int32_t ref, pto_loc loc)
{
    int32_t o = pto__operand_new(m, kind, ref, loc);
    if (o >= 0) m->stmts[stmt].nargs++;
    return o;
}

PTODEF int32_t pto_arg_tile(pto_module *m, int32_t stmt, int32_t tile, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_TILE, tile, loc);
}

PTODEF int32_t pto_arg_gm(pto_module *m, int32_t stmt, int32_t param, int32_t row, int32_t col,
                          int32_t rank, pto_loc loc)
{
    int32_t o = pto__arg(m, stmt, PTO_O_GM, param, loc);
    if (o < 0) return -1;
    m->operands[o].e[0] = row;
    m->operands[o].e[1] = col;
    m->operands[o].e[2] = rank;
    return o;
}

PTODEF int32_t pto_arg_float(pto_module *m, int32_t stmt, double v, pto_loc loc)
{
    int32_t o = pto__arg(m, stmt, PTO_O_FLOAT, -1, loc);
    if (o >= 0) m->operands[o].f = v;
    return o;
}

PTODEF int32_t pto_arg_scalar(pto_module *m, int32_t stmt, int32_t var, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_SCALAR, var, loc);
}

PTODEF int32_t pto_arg_int(pto_module *m, int32_t stmt, int32_t expr, pto_loc loc)
{
    int32_t o = pto__arg(m, stmt, PTO_O_INT, -1, loc);
    if (o >= 0) m->operands[o].e[0] = expr;
    return o;
}

PTODEF int32_t pto_arg_pipe(pto_module *m, int32_t stmt, pto_pipe p, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_PIPE, (int32_t)p, loc);
}

/* ---- cube <-> vector pipes ----------------------------------------------- */

PTODEF int32_t pto_arg_cvpipe(pto_module *m, int32_t stmt, int32_t cvpipe, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_CVPIPE, cvpipe, loc);
}

/* The first id of `need` consecutive cross-core flags after the ids the
   kernel's earlier pipes hold, skipping a2a3's reserved 11..14; -1 if none. */
static int32_t pto__cv_flag(const pto_module *m, int32_t kernel, int need)
{
    int32_t i, next = 0;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *p = &m->cvpipes[i];
        if (p->kernel == kernel && p->flag_id >= 0) next = p->flag_id + (p->dir == PTO_BOTH ? 4 : 2);
    }
    if (m->arch == PTO_ARCH_A2A3 && next <= 14 && next + need - 1 >= 11) next = 15;
    return next + need <= 16 ? next : -1;
}

PTODEF int32_t pto_add_cvpipe(pto_module *m, int32_t kernel, const char *name, pto_cvdir dir, pto_dtype dt,
                              int32_t rows, int32_t cols, int32_t slot_num, int32_t local_slot_num,
                              pto_cvsplit split, pto_loc loc)
{
    int32_t i, ring = 0, id;
    pto_cvpipe *p;
    if (!pto__api_id(m, "pto_add_cvpipe", "kernel", kernel, m->n_kernels, loc) ||
        !pto__api_name(m, "pto_add_cvpipe", name, loc)) return -1;
    id = PTO__MPUSH(m, cvpipes);
    if (id < 0) return -1;
    for (i = 0; i < id; i++) ring += m->cvpipes[i].kernel == kernel;
    p = &m->cvpipes[id];
    p->name = pto__name(m, name);
    p->kernel = kernel;
    p->dir = (uint8_t)dir;
    p->dtype = (uint8_t)dt;
    p->rows = rows;
    p->cols = cols;
    p->split = (uint8_t)split;
    /* normalised here, once: an omitted count is exactly its default */
    p->slot_num = slot_num ? slot_num : dir == PTO_BOTH ? 4 : 8;
    p->local_slot_num = local_slot_num ? local_slot_num : 2;
    p->slot_size = (int32_t)((int64_t)rows * cols * pto_dtype_size(dt) > INT32_MAX ? INT32_MAX
                             : (int64_t)rows * cols * pto_dtype_size(dt));
    p->ring = ring;
    p->flag_id = -1;
    p->flag_id = pto__cv_flag(m, kernel, dir == PTO_BOTH ? 4 : 2);
    p->loc = loc;
    return id;
}

PTODEF int32_t pto_find_cvpipe(const pto_module *m, int32_t kernel, const char *name)
{
    int32_t i;
    if (!name) return -1;
    for (i = 0; i < m->n_cvpipes; i++)
        if (m->cvpipes[i].kernel == kernel && strcmp(pto_str(m->ctx, m->cvpipes[i].name), name) == 0) return i;
    return -1;
}

PTODEF int64_t pto_cvpipe_gm_bytes(const pto_cvpipe *p)
{
    return (int64_t)(p->dir == PTO_BOTH ? 2 : 1) * p->slot_num * p->slot_size;
}

PTODEF int64_t pto_cvpipe_gm_offset(const pto_module *m, int32_t cvpipe)
{
    int64_t off = 0;
    int32_t i;
    if (cvpipe < 0 || cvpipe >= m->n_cvpipes) return 0;
    for (i = 0; i < cvpipe; i++)
        if (m->cvpipes[i].kernel == m->cvpipes[cvpipe].kernel) off += pto_cvpipe_gm_bytes(&m->cvpipes[i]);
    return off;
}

PTODEF int64_t pto_kernel_pipe_bytes(const pto_module *m, int32_t kernel)
{
    int64_t n = 0;
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++)
        if (m->cvpipes[i].kernel == kernel) n += pto_cvpipe_gm_bytes(&m->cvpipes[i]);
    return n;
}

PTODEF int32_t pto_arg_cmp(pto_module *m, int32_t stmt, pto_cmp c, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_CMP, (int32_t)c, loc);
}

PTODEF int32_t pto_arg_nmode(pto_module *m, int32_t stmt, pto_notify_mode mode, pto_loc loc)
{
    return pto__arg(m, stmt, PTO_O_NMODE, (int32_t)mode, loc);
}

static const char *const pto__cmp_words[6] = {"eq", "ne", "lt", "le", "gt", "ge"};
static const char *const pto__nmode_names[2] = {"set", "add"};

PTODEF const char *pto_cmp_word(pto_cmp c) { return (c >= 0 && c < 6) ? pto__cmp_words[c] : "?"; }
PTODEF int pto_cmp_word_lookup(const char *name, size_t len)
{
    int i;
    for (i = 0; i < 6; i++)
        if (pto__streq(pto__cmp_words[i], name, len)) return i;
    return -1;
}
PTODEF const char *pto_nmode_name(pto_notify_mode mode) { int i = (int)mode; return i >= 0 && i < 2 ? pto__nmode_names[i] : "?"; }
PTODEF int pto_nmode_lookup(const char *name, size_t len)
{
    int i;
    for (i = 0; i < 2; i++)
        if (pto__streq(pto__nmode_names[i], name, len)) return i;
    return -1;
}
/* ---- End file: src/ir.c ---- */

/* ---- Begin file: src/parse.c ---- */
/* parse.c - the .pto parser: text -> IR through the builder API.

   Needs: a context and the bytes of a file (any bytes: NUL, binary junk,
   huge numbers and very long lines are all just bad input).
   Guarantees: a module whose every name is resolved (tiles, tensors, scalar
   params, dynamic dims, lets and loop vars point at their declarations), or
   NULL with diagnostics at the exact LINE:COL of each offending token.
   Everything else (arity, dtypes, shapes, spaces) is the verifier's job: an
   op statement holds whatever operands were written, each classified by the
   op table mask of its position (a scalar position reads `1` as a float, an
   integer position reads it as an expression, a pipe position reads `V` as a
   pipe name).

   How: a hand-written lexer makes one token at a time (one statement per
   line, so NEWLINE is a token); a recursive-descent parser builds IR as it
   goes. Names are interned (a small cache of the names met recently spares
   most of them the intern table); the binding of a name is an array slot
   indexed by its interned id, so every lookup is O(1) and the whole parse
   is linear.
   Scopes are lexical: a scope remembers the names it declared and unbinds
   them when it closes. Shadowing is an error, so a scope never has to
   restore an outer binding.

   Errors: a syntax error skips to the end of the line (a `{` skipped on that
   line still opens a block, parsed into a detached block, so the matching
   `}` does not close the wrong block); a name error reports and carries on
   with a placeholder. An unknown op, name, dtype, space, pipe or top-level
   word gets the closest known one of its kind suggested when one is close
   ("did you mean", below). Nesting (blocks, parentheses, expression trees) is
   capped so that neither this parser nor any later recursive pass can run
   out of stack. */

#include <float.h>
#include <math.h>

#define PTO__MAX_NEST 64        /* nested blocks */
#define PTO__MAX_EXPR_DEPTH 256 /* height of one expression tree */
/* Nested parentheses / unary minus / min / max. The printer writes at most
   two of these per tree level (`-(...)`), so twice the height cap keeps
   every printed expression readable again. */
#define PTO__MAX_EXPR_REC (2 * PTO__MAX_EXPR_DEPTH + 2)

/* Token kinds; a one-character punctuator is its own character code. */
enum {
    PTO__T_EOF, PTO__T_NL, PTO__T_NAME, PTO__T_INT, PTO__T_FLOAT,
    PTO__T_BADNUM,  /* a malformed number: `12ab`, `0x`, `1.5.2` */
    PTO__T_BADCHAR, /* a byte that starts no token */
    PTO__T_LE = 256, PTO__T_GE, PTO__T_EQ, PTO__T_NE
};

typedef struct pto__ps_tok {
    int kind;
    size_t pos, len;
    int32_t line, col;
    int32_t id;         /* NAME: interned text */
} pto__ps_tok;

/* Keywords, interned once per parse so that a keyword test is an id compare. */
#define PTO__KEYWORDS(X) \
    X(KERNEL, "kernel") X(ARCH, "arch") X(TILE, "tile") X(LET, "let") X(FOR, "for") \
    X(IF, "if") X(ELSE, "else") X(TO, "to") X(STEP, "step") X(IN, "in") X(OUT, "out") \
    X(INOUT, "inout") X(SCALAR, "scalar") X(WINDOW, "window") X(AT, "at") X(VALID, "valid") \
    X(BLOCKS, "blocks") X(RANKS, "ranks") X(BLOCK, "block") X(SUBBLOCK, "subblock") \
    X(RANK, "rank") X(NRANKS, "nranks") X(MIN, "min") X(MAX, "max") X(VECTOR, "vector") \
    X(CUBE, "cube") X(MIX, "mix") X(INF, "inf") X(NAN, "nan") X(PIPE, "pipe")

enum {
#define PTO__KW_ENUM(e, s) PTO__KW_##e,
    PTO__KEYWORDS(PTO__KW_ENUM)
#undef PTO__KW_ENUM
    PTO__NKW
};

static const char *const pto__ps_kw_text[PTO__NKW] = {
#define PTO__KW_TEXT(e, s) s,
    PTO__KEYWORDS(PTO__KW_TEXT)
#undef PTO__KW_TEXT
};

/* What a name is bound to in the current kernel. */
enum {
    PTO__B_NONE, PTO__B_TENSOR, PTO__B_SCALAR, PTO__B_DIM, PTO__B_LET, PTO__B_LOOP, PTO__B_TILE, PTO__B_PIPE
};

static const char *const pto__ps_bind_word[] = {
    "name", "tensor", "scalar param", "dim", "let", "loop variable", "tile", "pipe"
};

/* One per interned name (the table is indexed by id, so a large file has
   tens of thousands: 28 bytes, no pto_loc, whose file is always the
   parser's). */
typedef struct pto__ps_pname {
    uint8_t kind;       /* PTO__B_* */
    uint8_t opc;        /* op lookup cache: 0 not looked up, 1 no op, 2 + op */
    uint8_t dtc, spc;   /* the same for dtype and memory space names: 0 not looked up, 1 + value */
    uint8_t gone;       /* the kind it had when its scope closed (PTO__B_NONE: none) */
    int16_t depth;      /* scope depth of the declaration (at most about twice PTO__MAX_NEST) */
    int32_t ref;        /* param (tensor), var (scalar, dim, let, loop) or tile */
    int32_t kernel;     /* 1 + kernel id when a kernel has this name */
    int32_t line, col;  /* the declaring name token */
    int32_t gone_kernel;   /* and the kernel it was declared in */
} pto__ps_pname;

/* One entry of the lexer's name cache (pto__ps_lex_name). */
#define PTO__NC_BITS 10
typedef struct pto__ps_ncent {
    uint64_t k0, k1;    /* the name's first 16 bytes, zero-padded */
    uint32_t len;       /* 0: empty entry (no name is empty) */
    int32_t id;
} pto__ps_ncent;

typedef struct pto__ps_parser {
    pto_ctx *ctx;
    pto_module *m;
    const char *src;
    size_t len, pos, line_start;
    int32_t line, file;
    pto__ps_tok tok;
    int32_t kernel;          /* current kernel, -1 outside */
    int32_t depth;           /* scope depth */
    int nest;                /* open blocks */
    int rec;                 /* expression recursion */
    pto__ps_pname *names;       /* indexed by interned id */
    int32_t cap_names;       /* slots zeroed so far (usable) */
    int32_t alloc_names;     /* slots allocated */
    int32_t *decls;          /* names declared by the open scopes, innermost last */
    int32_t n_decls, cap_decls;
    int32_t *marks;          /* n_decls when each open scope began */
    int32_t n_marks, cap_marks;
    int32_t kw[PTO__NKW];
    int32_t kw_max;   /* the highest keyword id: a name above it is no keyword */
    pto_loc tloc;     /* pto__ps_tloc's result */
    pto__ps_ncent *nc;   /* the lexer's name cache (NULL: none, every name is hashed) */
    int32_t arg_op, arg_i;   /* the op whose operand arg_i (from 0) is being parsed (messages) */
} pto__ps_parser;

/* ---- diagnostics ------------------------------------------------------- */

/* Token t's location, as *pto__ps_tloc(p, t) (one per statement: the
   parser holds it). Not a pto_loc returned by value: tcc 0.9.27 on x86-64
   stores a 12-byte struct returned in registers as 16 bytes, over the
   caller's neighbouring local (a tcc-built ptoc refused `tile ... at ADDR`:
   the tile statement's seen_at was overwritten). */
static const pto_loc *pto__ps_tloc(pto__ps_parser *p, const pto__ps_tok *t)
{
    p->tloc.file = p->file;
    p->tloc.line = t->line;
    p->tloc.col = t->col;
    return &p->tloc;
}

/* Quotes a token for a message: 'text' (shortened, non-printables as \xNN),
   or "end of line" / "end of file". */
static void pto__ps_tokstr(const pto__ps_parser *p, const pto__ps_tok *t, char *out, size_t size)
{
    size_t i, o = 0, n = t->len;
    if (t->kind == PTO__T_EOF) { snprintf(out, size, "end of file"); return; }
    if (t->kind == PTO__T_NL) { snprintf(out, size, "end of line"); return; }
    out[o++] = '\'';
    for (i = 0; i < n && i < 32 && o + 8 < size; i++) {
        unsigned char c = (unsigned char)p->src[t->pos + i];
        if (c >= 0x20 && c < 0x7f) out[o++] = (char)c;
        else o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
    }
    if (i < n && o + 5 < size) { memcpy(out + o, "...", 3); o += 3; }
    out[o++] = '\'';
    out[o] = 0;
}

static void pto__ps_err(pto__ps_parser *p, const pto__ps_tok *t, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pto_error(p->ctx, *pto__ps_tloc(p, t), "%s", msg);
}

/* What a token from another language means here: C's comments and
   statement ends ("" for any other token). */
static const char *pto__ps_foreign_hint(const pto__ps_parser *p, const pto__ps_tok *t)
{
    const char *s = p->src + t->pos;
    size_t left = p->len - t->pos;
    if (left >= 1 && s[0] == ';') return " (a statement ends at the end of its line: no ';')";
    if (left >= 2 && s[0] == '/' && (s[1] == '/' || s[1] == '*')) return " (comments start with '#')";
    return "";
}

/* "expected WHAT, got 'X'"; a malformed token is reported for what it is. */
static void pto__ps_expected(pto__ps_parser *p, const char *what)
{
    char q[200];
    pto__ps_tokstr(p, &p->tok, q, sizeof q);
    if (p->tok.kind == PTO__T_BADCHAR) pto__ps_err(p, &p->tok, "unexpected character %s%s", q, pto__ps_foreign_hint(p, &p->tok));
    else if (p->tok.kind == PTO__T_BADNUM) {
        const char *s = p->src + p->tok.pos;
        if (p->tok.len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            pto__ps_err(p, &p->tok, "bad hex literal %s", q);
        else
            pto__ps_err(p, &p->tok, "bad number %s", q);
    } else pto__ps_err(p, &p->tok, "expected %s, got %s%s", what, q, pto__ps_foreign_hint(p, &p->tok));
}

/* ---- "did you mean" ---------------------------------------------------------
   An unknown word gets the closest known word of its kind suggested when one
   is close: at most one edit for words of up to 5 characters, two up to 8,
   three beyond (an edit inserts, deletes or changes a character or swaps two
   neighbours; case is free, so `mte2` finds MTE2), and never more edits than
   the word keeps characters (`q` does not suggest `x`). Ties go to the first
   candidate offered, so callers offer the likeliest first. Only while
   diagnostics are still kept: a file of a thousand typos costs no more. */

#define PTO__NEAR_MAX 32    /* longer words are not compared */

typedef struct pto__ps_near {
    const char *word;       /* the unknown word */
    size_t len;
    int limit;              /* most edits a suggestion may be away; -1: none wanted */
    const char *best;       /* the closest candidate so far, NULL while none */
    size_t best_len;
    int dist;
} pto__ps_near;

static int pto__ps_lower(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : (unsigned char)c; }

/* Edits between a and b (optimal string alignment), or cap + 1 when more. */
static int pto__ps_edits(const char *a, size_t la, const char *b, size_t lb, int cap)
{
    int rows[3][PTO__NEAR_MAX + 1], *back2 = rows[0], *back = rows[1], *cur = rows[2], *spare;
    size_t i, j;
    if (la > PTO__NEAR_MAX || lb > PTO__NEAR_MAX || (la > lb ? la - lb : lb - la) > (size_t)cap) return cap + 1;
    for (j = 0; j <= lb; j++) back[j] = (int)j;
    for (i = 1; i <= la; i++) {
        int ca = pto__ps_lower(a[i - 1]);
        cur[0] = (int)i;
        for (j = 1; j <= lb; j++) {
            int cb = pto__ps_lower(b[j - 1]), d = back[j - 1] + (ca != cb);
            int swap = i > 1 && j > 1 && ca == pto__ps_lower(b[j - 2]) && pto__ps_lower(a[i - 2]) == cb;
            if (back[j] + 1 < d) d = back[j] + 1;
            if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
            if (swap && back2[j - 2] + 1 < d) d = back2[j - 2] + 1;
            cur[j] = d;
        }
        spare = back2; back2 = back; back = cur; cur = spare;
    }
    return back[lb] > cap ? cap + 1 : back[lb];
}

/* The most edits a suggestion for a word of len characters may be away. */
static int pto__ps_near_limit(size_t len) { return len <= 5 ? 1 : len <= 8 ? 2 : 3; }

/* A search for the candidate nearest to word (ptoc's command names use it
   too, with the same rule). */
static void pto__ps_near_start(pto__ps_near *n, const char *word, size_t len)
{
    n->word = word;
    n->len = len;
    n->limit = pto__ps_near_limit(len);
    n->best = NULL;
    n->best_len = 0;
    n->dist = n->limit + 1;
}

/* ... none when no diagnostic could show it any more. */
static void pto__ps_near_init(pto__ps_parser *p, pto__ps_near *n, const char *word, size_t len)
{
    pto__ps_near_start(n, word, len);
    if (pto_diag_count(p->ctx) >= p->ctx->max_diags) n->limit = -1;
    n->dist = n->limit + 1;
}

static void pto__ps_near_try(pto__ps_near *n, const char *cand, size_t len)
{
    int d;
    if (n->limit < 0 || len == 0) return;
    d = pto__ps_edits(n->word, n->len, cand, len, n->dist - 1);
    if (d < n->dist && (size_t)d < n->len) {
        n->best = cand;
        n->best_len = len;
        n->dist = d;
    }
}

/* " (did you mean 'X'?)" when a candidate was close, else `otherwise`. */
static const char *pto__ps_near_hint(const pto__ps_near *n, char *out, size_t size, const char *otherwise)
{
    if (!n->best) return otherwise;
    snprintf(out, size, " (did you mean '%.*s'?)", (int)n->best_len, n->best);
    return out;
}

/* ---- lexer ---------------------------------------------------------------- */

/* For a function the compiler would otherwise inline into a hotter one. */
#if defined(__GNUC__) || defined(__clang__)
#define PTO__PS_NOINLINE __attribute__((noinline))
#else
#define PTO__PS_NOINLINE
#endif

/* Character classes, one table lookup per byte (the lexer's inner loops):
   1 letter or '_', 2 digit, 4 hex digit, 8 starts a punctuator, 16 blank
   (space, \t, \v, \f, \r: not the newline, a token), 32 starts a comment,
   64 may start a two-character operator. */
enum {
    PTO__CC_ALPHA = 1, PTO__CC_DIGIT = 2, PTO__CC_HEX = 4, PTO__CC_PUNCT = 8, PTO__CC_BLANK = 16,
    PTO__CC_COMMENT = 32, /* '#' */
    PTO__CC_OP2 = 64      /* '<' '>' '=' '!': may start a two-character operator */
};
static const unsigned char pto__ps_cc[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    16, 64, 0, 32, 0, 8, 0, 0, 8, 8, 8, 8, 8, 8, 0, 8, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 8, 0, 72, 72, 72, 0,
    8, 5, 5, 5, 5, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 8, 0, 8, 0, 1,
    0, 5, 5, 5, 5, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 8, 0, 8, 0, 0,
    /* 128..255: no token starts or continues with a non-ASCII byte */
};

static int pto__ps_cc_is(int c, int cls) { return c >= 0 && (pto__ps_cc[c & 0xff] & cls) != 0; }
static int pto__ps_is_digit(int c) { return pto__ps_cc_is(c, PTO__CC_DIGIT); }
static int pto__ps_is_alnum(int c) { return pto__ps_cc_is(c, PTO__CC_ALPHA | PTO__CC_DIGIT); }
static int pto__ps_is_hex(int c) { return pto__ps_cc_is(c, PTO__CC_HEX); }

static int pto__ps_at(const pto__ps_parser *p, size_t i) { return i < p->len ? (unsigned char)p->src[i] : -1; }

/* Scans a number starting at p->pos: 0x hex, or decimal with an optional
   fraction and exponent. Anything glued to it (`12ab`, `1.2.3`) makes the
   whole run one BADNUM token, so the error quotes all of it. */
static int pto__ps_lex_number(pto__ps_parser *p)
{
    size_t i = p->pos;
    int kind = PTO__T_INT;
    if (pto__ps_at(p, i) == '0' && (pto__ps_at(p, i + 1) == 'x' || pto__ps_at(p, i + 1) == 'X')) {
        size_t d = i + 2;
        i = d;
        while (pto__ps_is_alnum(pto__ps_at(p, i))) {
            if (!pto__ps_is_hex(pto__ps_at(p, i))) kind = PTO__T_BADNUM;
            i++;
        }
        if (i == d) kind = PTO__T_BADNUM;
    } else {
        while (pto__ps_is_digit(pto__ps_at(p, i))) i++;
        if (pto__ps_at(p, i) == '.') {
            kind = PTO__T_FLOAT;
            i++;
            while (pto__ps_is_digit(pto__ps_at(p, i))) i++;
        }
        if (pto__ps_at(p, i) == 'e' || pto__ps_at(p, i) == 'E') {
            size_t j = i + 1;
            if (pto__ps_at(p, j) == '+' || pto__ps_at(p, j) == '-') j++;
            if (pto__ps_is_digit(pto__ps_at(p, j))) {
                kind = PTO__T_FLOAT;
                i = j;
                while (pto__ps_is_digit(pto__ps_at(p, i))) i++;
            }
        }
    }
    if (pto__ps_is_alnum(pto__ps_at(p, i)) || pto__ps_at(p, i) == '.') {
        kind = PTO__T_BADNUM;
        while (pto__ps_is_alnum(pto__ps_at(p, i)) || pto__ps_at(p, i) == '.') i++;
    }
    p->pos = i;
    return kind;
}

/* Masks that keep the first k (0..8) bytes, in memory order, of a word
   loaded with memcpy: the low bytes on a little-endian host, the high ones
   on a big-endian one. */
static const uint64_t pto__ps_first_le[9] = {
    0, 0xffu, 0xffffu, 0xffffffu, 0xffffffffu, 0xffffffffffu, 0xffffffffffffu, 0xffffffffffffffu,
    0xffffffffffffffffu};
static const uint64_t pto__ps_first_be[9] = {
    0, 0xff00000000000000u, 0xffff000000000000u, 0xffffff0000000000u, 0xffffffff00000000u,
    0xffffffffff000000u, 0xffffffffffff0000u, 0xffffffffffffff00u, 0xffffffffffffffffu};

/* A NAME's id through the context's intern table: the text hashed, then
   looked up (or added). */
static int32_t pto__ps_intern(pto__ps_parser *p, size_t start, size_t len)
{
    const unsigned char *s = (const unsigned char *)p->src + start;
    uint32_t hv = PTO__HASH_SEED;
    size_t i;
    for (i = 0; i < len; i++) hv = pto__hash_step(hv, s[i]);
    return pto__intern_hashed(p->ctx, p->src + start, len, hv);
}

/* A name the cache does not hold: interned, and kept in entry e. */
static PTO__PS_NOINLINE void pto__ps_name_miss(pto__ps_parser *p, pto__ps_ncent *e, uint64_t k0, uint64_t k1,
                                               size_t start, size_t len)
{
    int32_t id = pto__ps_intern(p, start, len);
    p->tok.id = id;
    if (id > 0) {   /* 0: out of memory (the empty string); not kept */
        e->k0 = k0;
        e->k1 = k1;
        e->len = (uint32_t)len;
        e->id = id;
    }
}

/* A NAME token starting at i. Most names are the same few words again and
   again (ops, keywords, the tiles and variables of the block at hand), so
   the parser keeps a small direct-mapped cache of names of up to 16 bytes,
   keyed by their bytes as two words: a hit costs two loads and a compare
   instead of hashing every byte and probing the intern table (whose slots
   and pool, megabytes in a large file, are mostly cache misses). The cache
   only holds ids the table already gave, so ids are the same as without it
   (first-seen order). Away from the end of the text (16 bytes may be read
   past the name's start). Kept out of line (pto__ps_next calls it last, a
   tail call): inlined, its registers would be saved on every token. */
static PTO__PS_NOINLINE void pto__ps_lex_name(pto__ps_parser *p, size_t i)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t start = i, n = p->len, len;
    for (i++; i < n && (pto__ps_cc[s[i]] & (PTO__CC_ALPHA | PTO__CC_DIGIT)); i++) {}
    len = i - start;
    p->tok.kind = PTO__T_NAME;
    p->tok.len = len;
    p->pos = i;
    if (len <= 16 && n - start >= 16 && p->nc) {
        static const union { uint16_t u; unsigned char c[2]; } order = {1};
        const uint64_t *first = order.c[0] ? pto__ps_first_le : pto__ps_first_be;
        uint64_t k0, k1;
        pto__ps_ncent *e;
        memcpy(&k0, s + start, 8);
        memcpy(&k1, s + start + 8, 8);
        k0 &= first[len < 8 ? len : 8];
        k1 &= first[len > 8 ? len - 8 : 0];
        e = &p->nc[(uint32_t)(((k0 ^ (k1 * 31u) ^ len) * 0x9E3779B97F4A7C15u) >> (64 - PTO__NC_BITS))];
        if (e->k0 == k0 && e->k1 == k1 && e->len == len) p->tok.id = e->id;
        else pto__ps_name_miss(p, e, k0, k1, start, len);
        return;
    }
    p->tok.id = pto__ps_intern(p, start, len);
}

/* A number token starting at i (INT, FLOAT or BADNUM). */
static void pto__ps_lex_num(pto__ps_parser *p, size_t i)
{
    p->pos = i;
    p->tok.kind = pto__ps_lex_number(p);
    p->tok.len = p->pos - i;
}

/* The next token. The scan works on locals (the source pointer, position
   and length stay in registers): this loop sees every byte of the file.
   Names and numbers are finished by the two helpers above, called last so
   that they are tail calls: the common path (blanks, punctuators, newlines)
   then makes no call and needs no saved registers. */
static void pto__ps_next(pto__ps_parser *p)
{
    pto__ps_tok *t = &p->tok;
    const unsigned char *s = (const unsigned char *)p->src;
    size_t i = p->pos, n = p->len, len = 1;
    int c = -1, cls = 0, kind;
    if (i + 1 < n && s[i] == ' ') i++;   /* the usual one space between tokens, without the loop's tests */
    while (i < n) {
        c = s[i];
        cls = pto__ps_cc[c];
        if (!(cls & (PTO__CC_BLANK | PTO__CC_COMMENT))) break;
        if (cls & PTO__CC_BLANK) i++;
        else
            while (i < n && s[i] != '\n') i++;   /* a comment runs up to its newline, a token */
    }
    t->pos = i;
    t->line = p->line;
    t->col = (int32_t)(i - p->line_start + 1);
    t->id = 0;
    if (i >= n) {
        t->kind = PTO__T_EOF;
        t->len = 0;
        p->pos = n;
        return;
    }
    if (c == '\n') {
        uint32_t w;
        t->kind = PTO__T_NL;
        t->len = 1;
        p->line++;
        p->line_start = ++i;
        /* the next line's indentation, four spaces a step (one load, one
           compare; all four bytes alike, so in any byte order) */
        while (n - i > 4 && (memcpy(&w, s + i, 4), w == 0x20202020u)) i += 4;
        p->pos = i;
        return;
    }
    if (cls & PTO__CC_ALPHA) { pto__ps_lex_name(p, i); return; }
    if (cls & PTO__CC_DIGIT) { pto__ps_lex_num(p, i); return; }
    kind = c;
    if ((cls & PTO__CC_OP2) && i + 1 < n && s[i + 1] == '=') {
        kind = c == '<' ? PTO__T_LE : c == '>' ? PTO__T_GE : c == '=' ? PTO__T_EQ : PTO__T_NE;
        len = 2;
    } else if (!(cls & PTO__CC_PUNCT)) {
        kind = PTO__T_BADCHAR;
    }
    t->kind = kind;
    t->len = len;
    p->pos = i + len;
}

/* One token of lookahead past the current one, without consuming it. */
static pto__ps_tok pto__ps_peek(pto__ps_parser *p)
{
    size_t pos = p->pos, ls = p->line_start;
    int32_t line = p->line;
    pto__ps_tok cur = p->tok, nxt;
    pto__ps_next(p);
    nxt = p->tok;
    p->tok = cur;
    p->pos = pos;
    p->line_start = ls;
    p->line = line;
    return nxt;
}

static int pto__ps_is(const pto__ps_parser *p, int kind) { return p->tok.kind == kind; }
static int pto__ps_is_kw(const pto__ps_parser *p, int kw)
{
    return p->tok.kind == PTO__T_NAME && p->tok.id == p->kw[kw];
}
static int pto__ps_at_eol(const pto__ps_parser *p) { return p->tok.kind == PTO__T_NL || p->tok.kind == PTO__T_EOF; }

/* Consumes `kind` or reports "expected WHAT". */
static int pto__ps_expect(pto__ps_parser *p, int kind, const char *what)
{
    if (p->tok.kind != kind) { pto__ps_expected(p, what); return 0; }
    pto__ps_next(p);
    return 1;
}

/* The token's text as a NUL-terminated interned string (names only). */
static const char *pto__ps_text(const pto__ps_parser *p, const pto__ps_tok *t) { return pto_str(p->ctx, t->id); }

/* ---- literal values -------------------------------------------------------- */

/* pto__ps_int_value's general path: hex, a leading 0, long literals, with
   the overflow check (and the message buffer the fast path does without). */
static int pto__ps_int_value_long(pto__ps_parser *p, const pto__ps_tok *t, int neg, int64_t *out)
{
    const char *s = p->src + t->pos;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    size_t i = 0;
    int base = 10;
    char q[200];
    if (t->len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; i = 2; }
    for (; i < t->len; i++) {
        int c = (unsigned char)s[i];
        uint64_t d = (uint64_t)(pto__ps_is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
        if (v > (lim - d) / (uint64_t)base) {
            pto__ps_tokstr(p, t, q, sizeof q);
            pto__ps_err(p, t, "integer literal %s is too large", q);
            return 0;
        }
        v = v * (uint64_t)base + d;
    }
    *out = neg ? (int64_t)(0u - v) : (int64_t)v;
    return 1;
}

/* Integer value of an INT token; `neg` allows -2^63. */
static inline int pto__ps_int_value(pto__ps_parser *p, const pto__ps_tok *t, int neg, int64_t *out)
{
    const char *s = p->src + t->pos;
    uint64_t v = 0;
    size_t i;
    if (t->len > 18 || s[0] == '0') return pto__ps_int_value_long(p, t, neg, out);
    /* at most 18 decimal digits: below 10^18 < 2^63, so no overflow check
       is needed; a literal starting with 0 (hex, 0 itself, 007) takes the
       general path) */
    for (i = 0; i < t->len; i++) v = v * 10u + (uint64_t)(s[i] - '0');
    *out = neg ? (int64_t)(0u - v) : (int64_t)v;
    return 1;
}

/* The value of a plain decimal DIGITS[.DIGITS] of at most 15 digits without
   strtod: the digits as an integer (below 10^15 < 2^53) and 10^k (k <= 15)
   are exact doubles, so one IEEE division rounds exactly as strtod does.
   Only where doubles are evaluated as doubles (FLT_EVAL_METHOD 0, e.g.
   SSE2): x87 extended precision would round twice and differ from strtod
   about once in 6,000 inputs. 0 when the text has another form (exponent,
   hex, too many digits) or on such a host. */
static int pto__ps_float_fast(const char *s, size_t len, double *out)
{
    static const double pow10[16] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    uint64_t v = 0;
    size_t i, digits = 0, frac = 0;
    int dot = 0;
    if (len > 16) return 0;
    for (i = 0; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d < 10) { v = v * 10u + d; digits++; frac += (size_t)dot; }
        else if (s[i] == '.' && !dot) dot = 1;
        else return 0;
    }
    if (digits == 0 || digits > 15) return 0;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    *out = (double)v / pow10[frac];
    return 1;
#else
    (void)pow10;
    return 0;
#endif
}

/* Value of an INT or FLOAT token read as a double. */
static int pto__ps_float_value(pto__ps_parser *p, const pto__ps_tok *t, double *out)
{
    char small[64], *buf = small;
    if (pto__ps_float_fast(p->src + t->pos, t->len, out)) return 1;
    if (t->kind == PTO__T_INT && t->len > 2 && (p->src[t->pos + 1] == 'x' || p->src[t->pos + 1] == 'X')) {
        int64_t v;
        if (!pto__ps_int_value(p, t, 0, &v)) return 0;
        *out = (double)v;
        return 1;
    }
    if (t->len >= sizeof small) {
        buf = (char *)pto_alloc(p->ctx, t->len + 1);
        if (!buf) { pto__oom(p->ctx); return 0; }
    }
    memcpy(buf, p->src + t->pos, t->len);
    buf[t->len] = 0;
    *out = strtod(buf, NULL);
    if (buf != small) pto_free(p->ctx, buf);
    return 1;
}

/* ---- names and scopes ------------------------------------------------------ */

/* The binding slot of interned id `id`; grows the table on demand. NULL only
   when out of memory. Callers go through pto__ps_name_slot, which indexes
   the table without a call when it is big enough (this one is too big to be
   inlined, and every name operand asks). The table is allocated for
   alloc_names slots but only its first cap_names are zeroed (usable): a
   generous reservation then costs no page that no name reaches. */
static pto__ps_pname *pto__ps_slot_grow(pto__ps_parser *p, int32_t id)
{
    if (id >= p->alloc_names) {
        int32_t ncap = p->alloc_names ? p->alloc_names : 256;
        pto__ps_pname *n;
        while (ncap <= id) ncap *= 2;
        n = (pto__ps_pname *)pto_realloc(p->ctx, p->names, sizeof *n * (size_t)ncap);
        if (!n) { pto__oom(p->ctx); return NULL; }
        p->names = n;
        p->alloc_names = ncap;
    }
    {   /* zero a chunk past id: ids arrive one by one, in order */
        int32_t upto = id + 1024 < p->alloc_names ? id + 1024 : p->alloc_names;
        memset(p->names + p->cap_names, 0, sizeof *p->names * (size_t)(upto - p->cap_names));
        p->cap_names = upto;
    }
    return &p->names[id];
}

static inline pto__ps_pname *pto__ps_name_slot(pto__ps_parser *p, int32_t id)
{
    return id < p->cap_names ? &p->names[id] : pto__ps_slot_grow(p, id);
}

static int pto__ps_push_i32(pto__ps_parser *p, int32_t **arr, int32_t *n, int32_t *cap, int32_t v)
{
    /* room left: no call (the element is written below, no zeroing needed) */
    int32_t i = *n < *cap ? (*n)++ : pto__grow(p->ctx, (void **)arr, n, cap, sizeof(int32_t));
    if (i < 0) return 0;
    (*arr)[i] = v;
    return 1;
}

static void pto__ps_scope_open(pto__ps_parser *p)
{
    pto__ps_push_i32(p, &p->marks, &p->n_marks, &p->cap_marks, p->n_decls);
    p->depth++;
}

static void pto__ps_scope_close(pto__ps_parser *p)
{
    int32_t mark;
    if (p->n_marks == 0) return;
    mark = p->marks[--p->n_marks];
    while (p->n_decls > mark) {
        int32_t id = p->decls[--p->n_decls];
        if (id < p->cap_names) {   /* kept for "unknown name": the name is out of scope, not misspelt */
            p->names[id].gone = p->names[id].kind;
            p->names[id].gone_kernel = p->kernel;
            p->names[id].kind = PTO__B_NONE;
        }
    }
    p->depth--;
}

static int pto__ps_reserved(const pto__ps_parser *p, int32_t id)
{
    static const int words[] = {PTO__KW_BLOCK, PTO__KW_BLOCKS, PTO__KW_SUBBLOCK, PTO__KW_RANK,
                                PTO__KW_NRANKS, PTO__KW_MIN, PTO__KW_MAX, PTO__KW_INF, PTO__KW_NAN};
    size_t i;
    if (id > p->kw_max) return 0;   /* interned after every keyword: none of them */
    for (i = 0; i < sizeof words / sizeof words[0]; i++)
        if (p->kw[words[i]] == id) return 1;
    return 0;
}

/* Checks that the name token t may be declared here; reports why not. */
static int pto__ps_can_declare(pto__ps_parser *p, const pto__ps_tok *t)
{
    pto__ps_pname *n = pto__ps_name_slot(p, t->id);
    if (!n) return 0;
    if (pto__ps_reserved(p, t->id)) {
        pto__ps_err(p, t, "'%s' is a reserved word and cannot be declared", pto__ps_text(p, t));
        return 0;
    }
    if (n->kind == PTO__B_NONE) return 1;
    if (n->depth == p->depth)
        pto__ps_err(p, t, "%s '%s' is already declared at %d:%d", pto__ps_bind_word[n->kind], pto__ps_text(p, t),
                 (int)n->line, (int)n->col);
    else
        pto__ps_err(p, t, "'%s' shadows the %s declared at %d:%d (shadowing is not allowed)",
                 pto__ps_text(p, t), pto__ps_bind_word[n->kind], (int)n->line, (int)n->col);
    return 0;
}

static void pto__ps_bind(pto__ps_parser *p, const pto__ps_tok *t, int kind, int32_t ref)
{
    pto__ps_pname *n = pto__ps_name_slot(p, t->id);
    if (!n || ref < 0) return;
    if (!pto__ps_push_i32(p, &p->decls, &p->n_decls, &p->cap_decls, t->id)) return;
    n = &p->names[t->id];
    n->kind = (uint8_t)kind;
    n->ref = ref;
    n->depth = (int16_t)p->depth;
    n->line = t->line;
    n->col = t->col;
}

static const pto__ps_pname *pto__ps_lookup(pto__ps_parser *p, const pto__ps_tok *t)
{
    static const pto__ps_pname none = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    /* every name operand comes here: the table is nearly always big enough */
    pto__ps_pname *n = pto__ps_name_slot(p, t->id);
    return n ? n : &none;
}

/* Offers the names the open scopes declared, innermost first, of the kinds
   in `kinds` (bits 1 << PTO__B_*); a few thousand at most. */
static void pto__ps_near_names(pto__ps_parser *p, pto__ps_near *n, unsigned kinds)
{
    int32_t i, stop = p->n_decls > 4096 ? p->n_decls - 4096 : 0;
    for (i = p->n_decls - 1; i >= stop && n->limit >= 0; i--) {
        int32_t id = p->decls[i];
        if (id < p->cap_names && (kinds >> p->names[id].kind & 1u))
            pto__ps_near_try(n, pto_str(p->ctx, id), pto__str_len(p->ctx, id));
    }
}

/* "unknown name 'X'" with the closest name of the kinds that fit. */
static void pto__ps_unknown_name(pto__ps_parser *p, const pto__ps_tok *t, unsigned kinds, int builtins)
{
    static const int words[] = {PTO__KW_BLOCK, PTO__KW_SUBBLOCK, PTO__KW_RANK, PTO__KW_NRANKS};
    pto__ps_near n;
    char hint[80];
    size_t i;
    pto__ps_near_init(p, &n, pto__ps_text(p, t), t->len);
    pto__ps_near_names(p, &n, kinds);
    const pto__ps_pname *was = t->id < p->cap_names ? &p->names[t->id] : NULL;
    for (i = 0; builtins && i < sizeof words / sizeof words[0]; i++)
        pto__ps_near_try(&n, pto__ps_kw_text[words[i]], strlen(pto__ps_kw_text[words[i]]));
    if (was && was->kind == PTO__B_NONE && was->gone != PTO__B_NONE && was->gone_kernel == p->kernel
        && (kinds >> was->gone & 1u)) {
        /* declared in a block that has closed: a use after its loop or if */
        if (was->gone == PTO__B_LOOP)
            pto__ps_err(p, t, "unknown name '%s': the loop variable '%s' (%d:%d) is visible in its loop's body only",
                        pto__ps_text(p, t), pto__ps_text(p, t), (int)was->line, (int)was->col);
        else
            pto__ps_err(p, t, "unknown name '%s': the %s '%s' declared at %d:%d is out of scope here, its block has "
                        "ended (declare it before that block to use it after)", pto__ps_text(p, t),
                        pto__ps_bind_word[was->gone], pto__ps_text(p, t), (int)was->line, (int)was->col);
        return;
    }
    pto__ps_err(p, t, "unknown name '%s'%s", pto__ps_text(p, t), pto__ps_near_hint(&n, hint, sizeof hint, ""));
}

/* ---- expressions ------------------------------------------------------------
   expr  := term (('+' | '-') term)*
   term  := unary (('*' | '/' | '%') unary)*
   unary := '-' unary | primary          (`-` INT folds into a negative literal)
   primary := INT | NAME | builtin | min(e, e) | max(e, e) | '(' expr ')'
   Each function returns the expr id (-1 after a syntax error) and the height
   of the tree in *h, which is capped so later passes may recurse. */

static int32_t pto__ps_expr(pto__ps_parser *p, int *h);

static int32_t pto__ps_bin(pto__ps_parser *p, pto_expr_kind k, int32_t a, int ha, int32_t b, int hb,
                        const pto__ps_tok *op, int *h)
{
    *h = 1 + (ha > hb ? ha : hb);
    if (*h > PTO__MAX_EXPR_DEPTH) {
        pto__ps_err(p, op, "expression is too deeply nested (more than %d levels)", PTO__MAX_EXPR_DEPTH);
        return -1;
    }
    return pto_expr_bin(p->m, k, a, b, *pto__ps_tloc(p, op));
}

static int32_t pto__ps_name_expr(pto__ps_parser *p)
{
    pto__ps_tok t = p->tok;
    const pto__ps_pname *n = pto__ps_lookup(p, &t);
    pto_loc loc = *pto__ps_tloc(p, &t);
    pto__ps_next(p);
    switch (n->kind) {
    case PTO__B_SCALAR: case PTO__B_DIM: case PTO__B_LET: case PTO__B_LOOP:
        return pto_expr_var(p->m, n->ref, loc);
    case PTO__B_NONE:
        pto__ps_unknown_name(p, &t, 1u << PTO__B_SCALAR | 1u << PTO__B_DIM | 1u << PTO__B_LET | 1u << PTO__B_LOOP, 1);
        break;
    default:
        pto__ps_err(p, &t, "'%s' is a %s, not an integer", pto__ps_text(p, &t), pto__ps_bind_word[n->kind]);
        break;
    }
    return pto_expr_int(p->m, 0, loc); /* placeholder: keep parsing */
}

static int32_t pto__ps_minmax(pto__ps_parser *p, pto_expr_kind k, int *h)
{
    pto__ps_tok t = p->tok, open;
    int32_t a, b;
    int ha, hb;
    pto__ps_next(p);
    open = p->tok;
    if (!pto__ps_expect(p, '(', "'(' after min/max")) return -1;
    if ((a = pto__ps_expr(p, &ha)) < 0) return -1;
    if (!pto__ps_expect(p, ',', "',' between the arguments of min/max")) return -1;
    if ((b = pto__ps_expr(p, &hb)) < 0) return -1;
    if (!pto__ps_is(p, ')')) {
        char q[200];
        pto__ps_tokstr(p, &p->tok, q, sizeof q);
        pto__ps_err(p, &p->tok, "expected ')' to close '(' at %d:%d, got %s", (int)open.line, (int)open.col, q);
        return -1;
    }
    pto__ps_next(p);
    return pto__ps_bin(p, k, a, ha, b, hb, &t, h);
}

static int32_t pto__ps_primary(pto__ps_parser *p, int *h)
{
    pto__ps_tok t = p->tok;
    pto_loc loc = *pto__ps_tloc(p, &t);
    *h = 1;
    if (t.kind == PTO__T_INT) {
        int64_t v;
        pto__ps_next(p);
        if (!pto__ps_int_value(p, &t, 0, &v)) return -1;
        return pto_expr_int(p->m, v, loc);
    }
    if (t.kind == PTO__T_NAME) {
        static const struct { int kw; pto_expr_kind k; } builtins[] = {
            {PTO__KW_BLOCK, PTO_E_BLOCK}, {PTO__KW_BLOCKS, PTO_E_BLOCKS},
            {PTO__KW_SUBBLOCK, PTO_E_SUBBLOCK}, {PTO__KW_RANK, PTO_E_RANK},
            {PTO__KW_NRANKS, PTO_E_NRANKS}};
        size_t i;
        if (t.id > p->kw_max) return pto__ps_name_expr(p);   /* not a keyword */
        for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
            if (t.id == p->kw[builtins[i].kw]) {
                pto__ps_next(p);
                return pto_expr_builtin(p->m, builtins[i].k, loc);
            }
        if (t.id == p->kw[PTO__KW_MIN]) return pto__ps_minmax(p, PTO_E_MIN, h);
        if (t.id == p->kw[PTO__KW_MAX]) return pto__ps_minmax(p, PTO_E_MAX, h);
        return pto__ps_name_expr(p);
    }
    if (t.kind == '(') {
        int32_t e;
        pto__ps_next(p);
        e = pto__ps_expr(p, h);
        if (e < 0) return -1;
        if (!pto__ps_is(p, ')')) {
            char q[200];
            pto__ps_tokstr(p, &p->tok, q, sizeof q);
            pto__ps_err(p, &p->tok, "expected ')' to close '(' at %d:%d, got %s", (int)t.line, (int)t.col, q);
            return -1;
        }
        pto__ps_next(p);
        return e;
    }
    if (t.kind == PTO__T_FLOAT) {
        char q[200];
        pto__ps_tokstr(p, &t, q, sizeof q);
        pto__ps_err(p, &t, "expected an integer expression, got float %s", q);
        return -1;
    }
    pto__ps_expected(p, "an expression");
    return -1;
}

static int32_t pto__ps_unary(pto__ps_parser *p, int *h)
{
    int32_t e;
    if (++p->rec > PTO__MAX_EXPR_REC) {
        pto__ps_err(p, &p->tok, "expression is too deeply nested (more than %d levels)", PTO__MAX_EXPR_REC);
        p->rec--;
        return -1;
    }
    if (pto__ps_is(p, '-')) {
        pto__ps_tok op = p->tok;
        pto__ps_next(p);
        if (pto__ps_is(p, PTO__T_INT)) {
            pto__ps_tok t = p->tok;
            int64_t v;
            pto__ps_next(p);
            *h = 1;
            e = pto__ps_int_value(p, &t, 1, &v) ? pto_expr_int(p->m, v, *pto__ps_tloc(p, &op)) : -1;
        } else {
            int ha;
            e = pto__ps_unary(p, &ha);
            if (e >= 0) e = pto__ps_bin(p, PTO_E_NEG, e, ha, -1, 0, &op, h);
        }
    } else {
        e = pto__ps_primary(p, h);
    }
    p->rec--;
    return e;
}

/* The operators after a term's first operand a (of height *h). */
static int32_t pto__ps_term_rest(pto__ps_parser *p, int32_t a, int *h)
{
    while (a >= 0 && (pto__ps_is(p, '*') || pto__ps_is(p, '/') || pto__ps_is(p, '%'))) {
        pto__ps_tok op = p->tok;
        pto_expr_kind k = op.kind == '*' ? PTO_E_MUL : op.kind == '/' ? PTO_E_DIV : PTO_E_MOD;
        int32_t b;
        int hb, ha = *h;
        pto__ps_next(p);
        if ((b = pto__ps_unary(p, &hb)) < 0) return -1;
        a = pto__ps_bin(p, k, a, ha, b, hb, &op, h);
    }
    return a;
}

static int32_t pto__ps_term(pto__ps_parser *p, int *h)
{
    int32_t a = pto__ps_unary(p, h);
    return pto__ps_term_rest(p, a, h);
}

/* The operators after an expression's first term a (of height *h). */
static int32_t pto__ps_expr_rest(pto__ps_parser *p, int32_t a, int *h)
{
    while (a >= 0 && (pto__ps_is(p, '+') || pto__ps_is(p, '-'))) {
        pto__ps_tok op = p->tok;
        int32_t b;
        int hb, ha = *h;
        pto__ps_next(p);
        if ((b = pto__ps_term(p, &hb)) < 0) return -1;
        a = pto__ps_bin(p, op.kind == '+' ? PTO_E_ADD : PTO_E_SUB, a, ha, b, hb, &op, h);
    }
    return a;
}

static int32_t pto__ps_expr(pto__ps_parser *p, int *h)
{
    int32_t a = pto__ps_term(p, h);
    return pto__ps_expr_rest(p, a, h);
}

/* A whole expression (a statement's, an operand's: never inside another
   expression, so p->rec is 0 here). Most are a single integer or name (a
   window's row and column, a loop's bounds): its node is made here, as
   pto__ps_primary would, without the four calls down to it; the operators
   after it, if any, are parsed as pto__ps_term and pto__ps_expr would. */
static int32_t pto__ps_expr0(pto__ps_parser *p)
{
    int h = 1;
    int32_t a;
    if (p->tok.kind == PTO__T_INT) {
        pto__ps_tok t = p->tok;
        pto_loc loc = *pto__ps_tloc(p, &t);
        int64_t v;
        pto__ps_next(p);
        if (!pto__ps_int_value(p, &t, 0, &v)) return -1;
        a = pto_expr_int(p->m, v, loc);
    } else if (p->tok.kind == PTO__T_NAME && p->tok.id > p->kw_max) {   /* no keyword, no builtin */
        a = pto__ps_name_expr(p);
    } else {
        return pto__ps_expr(p, &h);
    }
    return pto__ps_expr_rest(p, pto__ps_term_rest(p, a, &h), &h);
}

/* ---- operands ----------------------------------------------------------------- */

/* The operands the parser adds most, through pto__arg_last (ir.c): s is
   the op statement it added last. */
static int pto__ps_arg_gm(pto__ps_parser *p, int32_t s, int32_t param, int32_t r, int32_t c, int32_t rank,
                          const pto__ps_tok *t)
{
    int32_t o = pto__arg_last(p->m, s, PTO_O_GM, param, *pto__ps_tloc(p, t));
    if (o < 0) return 0;
    p->m->operands[o].e[0] = r;
    p->m->operands[o].e[1] = c;
    p->m->operands[o].e[2] = rank;
    return 1;
}

static int pto__ps_arg_int(pto__ps_parser *p, int32_t s, int32_t e, const pto_loc *loc)
{
    int32_t o = pto__arg_last(p->m, s, PTO_O_INT, -1, *loc);
    if (o < 0) return 0;
    p->m->operands[o].e[0] = e;
    return 1;
}

/* T[r, c] or T@p[r, c]; the current token is the tensor name. Where the
   op takes a whole tensor (PTO_A_WHOLE, allreduce), the bare name T. */
static int pto__ps_gm_operand(pto__ps_parser *p, int32_t s, int32_t param, uint32_t mask)
{
    pto__ps_tok t = p->tok, open;
    int32_t r, c, rank = -1;
    pto__ps_next(p);
    if ((mask & PTO_A_WHOLE) && (pto__ps_at_eol(p) || pto__ps_is(p, ',')))
        return pto__ps_arg_gm(p, s, param, -1, -1, -1, &t);
    if (pto__ps_is(p, '@')) {
        pto__ps_next(p);
        if ((rank = pto__ps_expr0(p)) < 0) return 0;
    }
    open = p->tok;
    if (mask && !(mask & PTO_A_GM) && !pto__ps_is(p, '[')) {
        /* a bare tensor name where the op takes no tensor: say so rather than
           ask for its '[' (a window there is the verifier's "got a GM window") */
        char want[96];
        pto__arg_expected(mask, want, sizeof want);
        pto__ps_err(p, &t, "operand %d of %s must be %s, got tensor '%s'", (int)p->arg_i + 1,
                    pto_opinfo_get((pto_op)p->arg_op)->name, want, pto__ps_text(p, &t));
        return 0;
    }
    if (!pto__ps_is(p, '[')) {
        char q[200];
        pto__ps_tokstr(p, &p->tok, q, sizeof q);
        pto__ps_err(p, &p->tok, "expected '[' after tensor '%s', got %s (a window of it is %s[row, col])",
                    pto__ps_text(p, &t), q, pto__ps_text(p, &t));
        return 0;
    }
    pto__ps_next(p);
    if ((r = pto__ps_expr0(p)) < 0) return 0;
    if (!pto__ps_expect(p, ',', "',' between the row and column of a tensor window")) return 0;
    if ((c = pto__ps_expr0(p)) < 0) return 0;
    if (!pto__ps_is(p, ']')) {
        char q[200];
        pto__ps_tokstr(p, &p->tok, q, sizeof q);
        pto__ps_err(p, &p->tok, "expected ']' to close '[' at %d:%d, got %s", (int)open.line, (int)open.col, q);
        return 0;
    }
    pto__ps_next(p);
    return pto__ps_arg_gm(p, s, param, r, c, rank, &t);
}

/* A float operand: [-] (FLOAT | INT | inf | nan). */
static int pto__ps_float_operand(pto__ps_parser *p, int32_t s)
{
    pto__ps_tok start = p->tok;
    int neg = 0;
    double v;
    if (pto__ps_is(p, '-')) { neg = 1; pto__ps_next(p); }
    if (pto__ps_is_kw(p, PTO__KW_INF)) v = HUGE_VAL;
    else if (pto__ps_is_kw(p, PTO__KW_NAN)) v = strtod("nan", NULL);
    else if (pto__ps_is(p, PTO__T_INT) || pto__ps_is(p, PTO__T_FLOAT)) {
        if (!pto__ps_float_value(p, &p->tok, &v)) return 0;
    } else {
        pto__ps_expected(p, "a number");
        return 0;
    }
    pto__ps_next(p);
    {
        int32_t o = pto__arg_last(p->m, s, PTO_O_FLOAT, -1, *pto__ps_tloc(p, &start));
        if (o >= 0) p->m->operands[o].f = neg ? -v : v;
        return o >= 0;
    }
}

static int pto__ps_is_floaty(const pto__ps_parser *p, const pto__ps_tok *t)
{
    return t->kind == PTO__T_FLOAT ||
           (t->kind == PTO__T_NAME && (t->id == p->kw[PTO__KW_INF] || t->id == p->kw[PTO__KW_NAN]));
}

/* wait's comparison (eq ne lt le gt ge) or notify's mode (set add). */
static int pto__ps_word_operand(pto__ps_parser *p, int32_t s, uint32_t mask)
{
    pto__ps_tok t = p->tok;
    int cmp = mask & PTO_A_CMP, w;
    if (t.kind != PTO__T_NAME) {
        pto__ps_expected(p, cmp ? "a comparison (eq, ne, lt, le, gt, ge)" : "a notify mode (set or add)");
        return 0;
    }
    w = cmp ? pto_cmp_word_lookup(p->src + t.pos, t.len) : pto_nmode_lookup(p->src + t.pos, t.len);
    if (w < 0) {
        pto__ps_err(p, &t, cmp ? "unknown comparison '%s' (use eq, ne, lt, le, gt or ge)"
                               : "unknown notify mode '%s' (use set or add)", pto__ps_text(p, &t));
        return 0;
    }
    pto__ps_next(p);
    if (cmp) return pto_arg_cmp(p->m, s, (pto_cmp)w, *pto__ps_tloc(p, &t)) >= 0;
    return pto_arg_nmode(p->m, s, (pto_notify_mode)w, *pto__ps_tloc(p, &t)) >= 0;
}

static void pto__ps_unknown_pipe(pto__ps_parser *p, const pto__ps_tok *t)
{
    pto__ps_near n;
    char hint[80];
    int pp;
    pto__ps_near_init(p, &n, pto__ps_text(p, t), t->len);
    for (pp = 0; pp < PTO_NPIPE; pp++)
        pto__ps_near_try(&n, pto_pipe_name((pto_pipe)pp), strlen(pto_pipe_name((pto_pipe)pp)));
    pto__ps_err(p, t, "unknown pipe '%s'%s", pto__ps_text(p, t),
                pto__ps_near_hint(&n, hint, sizeof hint, " (expected S, V, M, MTE1, MTE2, MTE3, FIX or ALL)"));
}

/* One operand of op statement s; `mask` is the op table mask of its
   position (0 past the table's arity: classified by its form alone). */
static int pto__ps_operand(pto__ps_parser *p, int32_t s, uint32_t mask)
{
    pto__ps_tok t = p->tok;
    pto_loc loc = *pto__ps_tloc(p, &t);
    const uint32_t other = PTO_A_SCALAR | PTO_A_INT | PTO_A_TILES | PTO_A_GM | PTO_A_CVPIPE;
    /* the usual operand, a tile name where no pipe, word or integer alone is
       expected: what the general path below decides for it, decided at once
       (a bound name is no reserved word: inf and nan are never tiles) */
    if (t.kind == PTO__T_NAME && t.id < p->cap_names && p->names[t.id].kind == PTO__B_TILE &&
        !(mask & (PTO_A_PIPE | PTO_A_CMP | PTO_A_NMODE)) && !((mask & PTO_A_INT) && !(mask & (other & ~PTO_A_INT)))) {
        int32_t tile = p->names[t.id].ref;
        pto__ps_next(p);
        return pto__arg_last(p->m, s, PTO_O_TILE, tile, loc) >= 0;
    }
    if ((mask & PTO_A_PIPE) && t.kind == PTO__T_NAME) {
        pto_pipe pp = pto_pipe_lookup(p->src + t.pos, t.len);
        if (pp != PTO_NPIPE) { pto__ps_next(p); return pto_arg_pipe(p->m, s, pp, loc) >= 0; }
        if (!(mask & other)) { pto__ps_unknown_pipe(p, &t); return 0; }
    }
    if ((mask & PTO_A_PIPE) && !(mask & other)) { pto__ps_expected(p, "a pipe name"); return 0; }
    if (mask & (PTO_A_CMP | PTO_A_NMODE)) return pto__ps_word_operand(p, s, mask);
    if ((mask & PTO_A_INT) && !(mask & (other & ~PTO_A_INT))) {
        int32_t e = pto__ps_expr0(p);
        return e >= 0 && pto__ps_arg_int(p, s, e, &loc);
    }
    /* the form decides; the mask only breaks ties */
    if (pto__ps_is_floaty(p, &t)) return pto__ps_float_operand(p, s);
    if (t.kind == '-') {
        pto__ps_tok n = pto__ps_peek(p);
        if (pto__ps_is_floaty(p, &n) || (n.kind == PTO__T_INT && (mask & PTO_A_SCALAR)))
            return pto__ps_float_operand(p, s);
    }
    if (t.kind == PTO__T_INT && (mask & PTO_A_SCALAR)) return pto__ps_float_operand(p, s);
    if (t.kind == PTO__T_NAME && !pto__ps_reserved(p, t.id)) {
        const pto__ps_pname *n = pto__ps_lookup(p, &t);
        switch (n->kind) {
        case PTO__B_TILE:
            pto__ps_next(p);
            return pto__arg_last(p->m, s, PTO_O_TILE, n->ref, loc) >= 0;
        case PTO__B_TENSOR:
            return pto__ps_gm_operand(p, s, n->ref, mask);
        case PTO__B_PIPE:
            pto__ps_next(p);
            return pto_arg_cvpipe(p->m, s, n->ref, loc) >= 0;
        case PTO__B_SCALAR:
            if (!(mask & PTO_A_INT)) {
                pto__ps_next(p);
                return pto__arg_last(p->m, s, PTO_O_SCALAR, n->ref, loc) >= 0;
            }
            break;
        case PTO__B_NONE:
            if (mask == 0 && pto_pipe_lookup(p->src + t.pos, t.len) != PTO_NPIPE) {
                pto__ps_next(p);
                return pto_arg_pipe(p->m, s, pto_pipe_lookup(p->src + t.pos, t.len), loc) >= 0;
            }
            pto__ps_unknown_name(p, &t, ~(1u << PTO__B_NONE), (mask & PTO_A_INT) != 0);
            pto__ps_next(p);
            if (pto__ps_is(p, '[') || pto__ps_is(p, '@')) { /* a window of an unknown tensor: skip it */
                while (!pto__ps_at_eol(p) && !pto__ps_is(p, ']')) pto__ps_next(p);
                if (pto__ps_is(p, ']')) pto__ps_next(p);
            }
            return pto_arg_int(p->m, s, pto_expr_int(p->m, 0, loc), loc) >= 0;
        default:
            if (mask & PTO_A_SCALAR) {
                pto__ps_err(p, &t, "'%s' is a %s; a scalar operand must be a number or a scalar param",
                         pto__ps_text(p, &t), pto__ps_bind_word[n->kind]);
                return 0;
            }
            break;
        }
    }
    if (t.kind != PTO__T_NAME && t.kind != PTO__T_INT && t.kind != '(' && t.kind != '-') {
        pto__ps_expected(p, "an operand");
        return 0;
    }
    {
        int32_t e = pto__ps_expr0(p);
        return e >= 0 && pto__ps_arg_int(p, s, e, &loc);
    }
}

static int pto__ps_operands(pto__ps_parser *p, int32_t s, pto_op op)
{
    const pto_opinfo *info = pto_opinfo_get(op);
    int i;
    if (pto__ps_at_eol(p)) return 1;
    p->arg_op = (int32_t)op;
    for (i = 0;; i++) {
        uint32_t mask = i < info->nargs && i < 4 ? info->arg[i] : 0;
        p->arg_i = i;
        if (!pto__ps_operand(p, s, mask)) return 0;
        if (pto__ps_at_eol(p)) return 1;
        if (!pto__ps_is(p, ',')) {
            pto__ps_expected(p, "',' after operand");
            return 0;
        }
        pto__ps_next(p);
    }
}

/* ---- statements ------------------------------------------------------------------ */

static void pto__ps_block(pto__ps_parser *p, int32_t block, const pto__ps_tok *open);
static int pto__ps_stmt(pto__ps_parser *p, int32_t block);

/* Skips the rest of the line after an error, up to its newline; returns
   how many more `{` than `}` it skipped (*brace: the last `{`). */
static int pto__ps_skip_line(pto__ps_parser *p, pto__ps_tok *brace)
{
    int net = 0;
    while (!pto__ps_at_eol(p)) {
        if (pto__ps_is(p, '{')) { net++; *brace = p->tok; }
        else if (pto__ps_is(p, '}')) net--;
        pto__ps_next(p);
    }
    return net; /* the newline stays: an orphan block starts after it */
}

/* After a statement: the end of the line. */
static int pto__ps_end_stmt(pto__ps_parser *p, const char *after)
{
    if (pto__ps_is(p, PTO__T_EOF)) return 1;
    if (pto__ps_is(p, PTO__T_NL)) { pto__ps_next(p); return 1; }
    {
        char what[64];
        snprintf(what, sizeof what, "end of line after %s", after);
        pto__ps_expected(p, what);
    }
    return 0;
}

/* A block whose `{` was skipped by error recovery: parsed into a detached
   block so that its `}` closes it and its errors are still reported. */
static void pto__ps_orphan_block(pto__ps_parser *p, const pto__ps_tok *open)
{
    int32_t b = pto_add_block(p->m, p->kernel, -1);
    if (b < 0) return;
    pto__ps_scope_open(p);
    pto__ps_block(p, b, open);
    pto__ps_scope_close(p);
}

/* Skips to the `}` that closes the current block (iteratively: used when
   nesting is already too deep to recurse). */
static void pto__ps_skip_block(pto__ps_parser *p)
{
    int depth = 1;
    while (!pto__ps_is(p, PTO__T_EOF)) {
        if (pto__ps_is(p, '{')) depth++;
        else if (pto__ps_is(p, '}') && --depth == 0) { pto__ps_next(p); return; }
        pto__ps_next(p);
    }
}

/* Statements up to and including the `}` matching `open` (already
   consumed). The caller checks what follows the `}`. */
static void pto__ps_block(pto__ps_parser *p, int32_t block, const pto__ps_tok *open)
{
    if (!pto__ps_at_eol(p)) {
        pto__ps_expected(p, "end of line after '{'");
        while (!pto__ps_at_eol(p) && !pto__ps_is(p, '}')) pto__ps_next(p);
        if (pto__ps_is(p, '}')) { pto__ps_next(p); return; }
    }
    if (p->nest >= PTO__MAX_NEST) {
        pto__ps_err(p, open, "blocks are nested too deeply (more than %d levels)", PTO__MAX_NEST);
        pto__ps_skip_block(p);
        return;
    }
    p->nest++;
    for (;;) {
        if (pto__ps_is(p, PTO__T_NL)) { pto__ps_next(p); continue; }
        if (pto__ps_is(p, PTO__T_EOF)) {
            pto__ps_err(p, open, "missing '}': the block opened here is still open at the end of the file");
            break;
        }
        if (pto__ps_is(p, '}')) { pto__ps_next(p); break; }
        if (!pto__ps_stmt(p, block)) {
            pto__ps_tok at = p->tok;
            int net = pto__ps_skip_line(p, &at);
            for (; net > 0; net--) pto__ps_orphan_block(p, &at);
            if (net < 0) break;
        }
    }
    p->nest--;
}

/* A nested block with its own scope. */
static void pto__ps_sub_block(pto__ps_parser *p, int32_t block, const pto__ps_tok *open)
{
    pto__ps_scope_open(p);
    pto__ps_block(p, block, open);
    pto__ps_scope_close(p);
}

/* The dtype / memory space a name token spells, looked up once per
   interned name (every tile statement names both). */
static pto_dtype pto__ps_dtype_of(pto__ps_parser *p, const pto__ps_tok *t)
{
    pto__ps_pname *n = pto__ps_name_slot(p, t->id);
    if (!n) return pto_dtype_lookup(p->src + t->pos, t->len);
    if (n->dtc == 0) n->dtc = (uint8_t)(1 + (int)pto_dtype_lookup(p->src + t->pos, t->len));
    return (pto_dtype)(n->dtc - 1);
}

static pto_space pto__ps_space_of(pto__ps_parser *p, const pto__ps_tok *t)
{
    pto__ps_pname *n = pto__ps_name_slot(p, t->id);
    if (!n) return pto_space_lookup(p->src + t->pos, t->len);
    if (n->spc == 0) n->spc = (uint8_t)(1 + (int)pto_space_lookup(p->src + t->pos, t->len));
    return (pto_space)(n->spc - 1);
}

/* The word other stacks use for a dtype or memory space ("half", "UB"),
   as " (pto calls it 'f16')", or NULL: table holds pairs, NULL-ended. */
static const char *pto__ps_alias(const char *word, const char *const *table, char *out, size_t size)
{
    for (; *table; table += 2)
        if (pto__ps_edits(word, strlen(word), table[0], strlen(table[0]), 0) == 0) {
            snprintf(out, size, " (pto calls it '%s')", table[1]);
            return out;
        }
    return NULL;
}

static void pto__ps_unknown_dtype(pto__ps_parser *p, const pto__ps_tok *t)
{
    static const char *const alias[] = {"float", "f32", "float32", "f32", "half", "f16", "float16", "f16",
                                        "bfloat16", "bf16", "int", "i32", "int32", "i32", "int32_t", "i32",
                                        "int8", "i8", "int8_t", "i8", NULL};
    pto__ps_near n;
    char hint[80];
    const char *a = pto__ps_alias(pto__ps_text(p, t), alias, hint, sizeof hint);
    int d;
    pto__ps_near_init(p, &n, pto__ps_text(p, t), t->len);
    for (d = 1; d < PTO_NDTYPE; d++)
        pto__ps_near_try(&n, pto_dtype_name((pto_dtype)d), strlen(pto_dtype_name((pto_dtype)d)));
    pto__ps_err(p, t, "unknown dtype '%s'%s", pto__ps_text(p, t),
                a ? a : pto__ps_near_hint(&n, hint, sizeof hint, " (expected f32, f16, bf16, i32 or i8)"));
}

static int pto__ps_dtype(pto__ps_parser *p, pto_dtype *dt)
{
    if (!pto__ps_is(p, PTO__T_NAME)) { pto__ps_expected(p, "a dtype"); return 0; }
    *dt = pto__ps_dtype_of(p, &p->tok);
    if (*dt == PTO_DT_NONE) {
        pto__ps_unknown_dtype(p, &p->tok);
        return 0;
    }
    pto__ps_next(p);
    return 1;
}

/* A non-negative integer literal that must fit in [0, max]. */
static int pto__ps_small_int(pto__ps_parser *p, int64_t max, const char *what, int64_t *v)
{
    pto__ps_tok t = p->tok;
    char q[200];
    if (!pto__ps_is(p, PTO__T_INT)) { pto__ps_expected(p, what); return 0; }
    pto__ps_next(p);
    if (!pto__ps_int_value(p, &t, 0, v)) return 0;
    if (*v > max) {
        pto__ps_tokstr(p, &t, q, sizeof q);
        pto__ps_err(p, &t, "%s %s is too large (at most %lld)", what, q, (long long)max);
        return 0;
    }
    return 1;
}

/* A tile's row or column count: an integer literal. A name (a dim, a
   scalar, a let) is the usual mistake: a shape that changes at run time is
   a fixed shape with a run-time valid region. */
static int pto__ps_tile_dim(pto__ps_parser *p, int64_t *v)
{
    if (pto__ps_is(p, PTO__T_NAME) || pto__ps_is(p, '(')) {
        char q[200];
        pto__ps_tokstr(p, &p->tok, q, sizeof q);
        pto__ps_err(p, &p->tok,
                    "tile dimensions are integer literals, got %s: give the tile the largest shape it takes "
                    "and its run-time extent as valid(ROWS, COLS)", q);
        return 0;
    }
    return pto__ps_small_int(p, INT32_MAX, "tile dimension", v);
}

static void pto__ps_unknown_space(pto__ps_parser *p, const pto__ps_tok *t)
{
    /* the hardware's names (hardware.md section 2) */
    static const char *const alias[] = {"ub", "vec", "l1", "mat", "cbuf", "mat", "l0a", "left", "l0b", "right",
                                        "l0c", "acc", NULL};
    pto__ps_near n;
    char hint[80];
    const char *a = pto__ps_alias(pto__ps_text(p, t), alias, hint, sizeof hint);
    int sp;
    pto__ps_near_init(p, &n, pto__ps_text(p, t), t->len);
    for (sp = PTO_VEC; sp <= PTO_ACC; sp++)
        pto__ps_near_try(&n, pto_space_name((pto_space)sp), strlen(pto_space_name((pto_space)sp)));
    pto__ps_err(p, t, "unknown memory space '%s'%s", pto__ps_text(p, t),
                a ? a : pto__ps_near_hint(&n, hint, sizeof hint, " (expected vec, mat, left, right or acc)"));
}

/* tile NAME: SPACE DTYPE[R, C] [valid(E, E)] [xN] [at ADDR] */
static int pto__ps_tile_stmt(pto__ps_parser *p, int32_t block)
{
    pto__ps_tok kw = p->tok, name;
    pto_space sp;
    pto_dtype dt;
    int64_t r, c;
    int32_t t;
    int ok, seen_valid = 0, seen_n = 0, seen_at = 0;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a tile name")) return 0;
    ok = pto__ps_can_declare(p, &name);
    if (!pto__ps_expect(p, ':', "':' after the tile name")) return 0;
    if (!pto__ps_is(p, PTO__T_NAME)) { pto__ps_expected(p, "a memory space"); return 0; }
    sp = pto__ps_space_of(p, &p->tok);
    if (sp == PTO_NSPACE) {
        pto__ps_unknown_space(p, &p->tok);
        return 0;
    }
    pto__ps_next(p);
    if (!pto__ps_dtype(p, &dt)) return 0;
    if (!pto__ps_expect(p, '[', "'[' before the tile shape")) return 0;
    if (!pto__ps_tile_dim(p, &r)) return 0;
    if (!pto__ps_expect(p, ',', "',' between the tile dimensions")) return 0;
    if (!pto__ps_tile_dim(p, &c)) return 0;
    if (!pto__ps_expect(p, ']', "']' after the tile shape")) return 0;
    t = pto__add_tile_id(p->m, block, name.id, sp, dt, (int32_t)r, (int32_t)c, *pto__ps_tloc(p, &kw));
    if (t < 0) return 0;
    p->m->tiles[t].loc = *pto__ps_tloc(p, &name);
    if (ok) pto__ps_bind(p, &name, PTO__B_TILE, t);
    while (!pto__ps_at_eol(p)) {
        pto__ps_tok a = p->tok;
        const char *s = p->src + a.pos;
        if (pto__ps_is_kw(p, PTO__KW_VALID) && !seen_valid) {
            int32_t vr, vc;
            seen_valid = 1;
            pto__ps_next(p);
            if (!pto__ps_expect(p, '(', "'(' after 'valid'")) return 0;
            if ((vr = pto__ps_expr0(p)) < 0) return 0;
            if (!pto__ps_expect(p, ',', "',' between the valid rows and columns")) return 0;
            if ((vc = pto__ps_expr0(p)) < 0) return 0;
            if (!pto__ps_expect(p, ')', "')' after the valid columns")) return 0;
            p->m->tiles[t].valid_r = vr;
            p->m->tiles[t].valid_c = vc;
        } else if (a.kind == PTO__T_NAME && s[0] == 'x' && a.len > 1 && pto__ps_is_digit(s[1]) && !seen_n) {
            int64_t n = 0;
            size_t i;
            seen_n = 1;
            for (i = 1; i < a.len; i++) {
                if (!pto__ps_is_digit(s[i])) break;
                n = n * 10 + (s[i] - '0');
                if (n > INT32_MAX) break;
            }
            if (i < a.len) {
                pto__ps_err(p, &a, "bad buffer count '%s' (expected x2, x3, ...)", pto__ps_text(p, &a));
                return 0;
            }
            p->m->tiles[t].nbuf = (int32_t)n;
            pto__ps_next(p);
        } else if (pto__ps_is_kw(p, PTO__KW_AT) && !seen_at) {
            int64_t addr;
            seen_at = 1;
            pto__ps_next(p);
            if (!pto__ps_small_int(p, INT64_MAX, "tile address", &addr)) return 0;
            p->m->tiles[t].pin = addr;
        } else {
            pto__ps_expected(p, seen_valid && seen_n && seen_at ? "end of line after the tile"
                             : "'valid(...)', 'xN', 'at ADDRESS' or end of line after the tile");
            return 0;
        }
    }
    return pto__ps_end_stmt(p, "the tile");
}

/* let NAME = EXPR */
static int pto__ps_let_stmt(pto__ps_parser *p, int32_t block)
{
    pto__ps_tok kw = p->tok, name;
    int32_t e, s;
    int ok;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a name after 'let'")) return 0;
    ok = pto__ps_can_declare(p, &name);
    if (!pto__ps_expect(p, '=', "'=' after the let name")) return 0;
    if ((e = pto__ps_expr0(p)) < 0) return 0;
    s = pto__add_let_id(p->m, block, name.id, e, *pto__ps_tloc(p, &kw));
    if (s < 0) return 0;
    p->m->vars[p->m->stmts[s].ref].loc = *pto__ps_tloc(p, &name);
    if (ok) pto__ps_bind(p, &name, PTO__B_LET, p->m->stmts[s].ref);
    return pto__ps_end_stmt(p, "the let");
}

/* for NAME = EXPR to EXPR [step EXPR] { ... } */
static int pto__ps_for_stmt(pto__ps_parser *p, int32_t block)
{
    pto__ps_tok kw = p->tok, name, open;
    int32_t a, b, st = -1, s;
    int ok;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a loop variable after 'for'")) return 0;
    ok = pto__ps_can_declare(p, &name);
    if (!pto__ps_expect(p, '=', "'=' after the loop variable")) return 0;
    if ((a = pto__ps_expr0(p)) < 0) return 0;
    if (!pto__ps_is_kw(p, PTO__KW_TO)) { pto__ps_expected(p, "'to' after the loop start"); return 0; }
    pto__ps_next(p);
    if ((b = pto__ps_expr0(p)) < 0) return 0;
    if (pto__ps_is_kw(p, PTO__KW_STEP)) {
        pto__ps_next(p);
        if ((st = pto__ps_expr0(p)) < 0) return 0;
    }
    open = p->tok;
    if (!pto__ps_expect(p, '{', "'{' after the loop header")) return 0;
    s = pto__add_for_id(p->m, block, name.id, a, b, st, *pto__ps_tloc(p, &kw));
    if (s < 0) return 0;
    p->m->vars[p->m->stmts[s].ref].loc = *pto__ps_tloc(p, &name);
    pto__ps_scope_open(p);
    if (ok) pto__ps_bind(p, &name, PTO__B_LOOP, p->m->stmts[s].ref);
    pto__ps_block(p, p->m->stmts[s].body, &open);
    pto__ps_scope_close(p);
    return pto__ps_end_stmt(p, "'}'");
}

static int pto__ps_cmp(pto__ps_parser *p, pto_cmp *c)
{
    switch (p->tok.kind) {
    case PTO__T_EQ: *c = PTO_EQ; break;
    case PTO__T_NE: *c = PTO_NE; break;
    case '<': *c = PTO_LT; break;
    case PTO__T_LE: *c = PTO_LE; break;
    case '>': *c = PTO_GT; break;
    case PTO__T_GE: *c = PTO_GE; break;
    default:
        pto__ps_expected(p, "a comparison (==, !=, <, <=, >, >=)");
        return 0;
    }
    pto__ps_next(p);
    return 1;
}

/* if EXPR CMP EXPR { ... } [else { ... } | else if ...] */
static int pto__ps_if_stmt(pto__ps_parser *p, int32_t block)
{
    pto__ps_tok kw = p->tok, open;
    int32_t a, b, s;
    pto_cmp c;
    pto__ps_next(p);
    if ((a = pto__ps_expr0(p)) < 0) return 0;
    if (!pto__ps_cmp(p, &c)) return 0;
    if ((b = pto__ps_expr0(p)) < 0) return 0;
    open = p->tok;
    if (!pto__ps_expect(p, '{', "'{' after the condition")) return 0;
    s = pto_add_if(p->m, block, a, c, b, *pto__ps_tloc(p, &kw));
    if (s < 0) return 0;
    pto__ps_sub_block(p, p->m->stmts[s].body, &open);
    if (!pto__ps_is_kw(p, PTO__KW_ELSE)) return pto__ps_end_stmt(p, "'}'");
    pto__ps_next(p);
    {
        int32_t eb = pto_if_else(p->m, s);
        if (eb < 0) return 0;
        if (pto__ps_is_kw(p, PTO__KW_IF)) {
            /* else if: a nested if in the else block */
            int ok;
            if (p->nest >= PTO__MAX_NEST) {
                pto__ps_err(p, &p->tok, "blocks are nested too deeply (more than %d levels)", PTO__MAX_NEST);
                return 0;
            }
            p->nest++;
            pto__ps_scope_open(p);
            ok = pto__ps_if_stmt(p, eb);
            pto__ps_scope_close(p);
            p->nest--;
            return ok;
        }
        open = p->tok;
        if (!pto__ps_expect(p, '{', "'{' or 'if' after 'else'")) return 0;
        pto__ps_sub_block(p, eb, &open);
    }
    return pto__ps_end_stmt(p, "'}'");
}

/* cube { ... } / vector { ... }: the halves of a mix kernel. */
static int pto__ps_section_stmt(pto__ps_parser *p, int32_t block)
{
    pto__ps_tok kw = p->tok, open;
    pto_core core = pto__ps_is_kw(p, PTO__KW_CUBE) ? PTO_CORE_CUBE : PTO_CORE_VECTOR;
    int32_t s;
    if (p->m->kernels[p->kernel].kind != PTO_KK_MIX || block != p->m->kernels[p->kernel].body)
        pto__ps_err(p, &kw, "a '%s' section is only allowed at the top level of a mix kernel",
                 pto__ps_text(p, &kw));
    pto__ps_next(p);
    open = p->tok;
    if (!pto__ps_expect(p, '{', "'{' after the section name")) return 0;
    s = pto_add_section(p->m, block, core, *pto__ps_tloc(p, &kw));
    if (s < 0) return 0;
    pto__ps_sub_block(p, p->m->stmts[s].body, &open);
    return pto__ps_end_stmt(p, "'}'");
}

/* Whether the current token is the name `w` (words of a pipe declaration
   are not keywords: they stay free for tile and tensor names). */
static int pto__ps_word(const pto__ps_parser *p, const char *w)
{
    return p->tok.kind == PTO__T_NAME && p->tok.len == strlen(w) && memcmp(p->src + p->tok.pos, w, p->tok.len) == 0;
}

/* `(N)` after slots / local_slots. */
static int pto__ps_paren_count(pto__ps_parser *p, const char *what, int64_t *v)
{
    if (!pto__ps_expect(p, '(', "'('")) return 0;
    if (!pto__ps_small_int(p, 1000000, what, v)) return 0;
    return pto__ps_expect(p, ')', "')'");
}

/* The attributes after a pipe's shape: [slots(N)] [local_slots(N)]
   [split(up_down | left_right)], each at most once. Returns 0 after
   reporting the first bad one; the caller still declares the pipe with what
   was read, so its uses resolve and report nothing more. */
static int pto__ps_pipe_attrs(pto__ps_parser *p, int64_t *slots, int64_t *local, int *split, int *seen_s,
                              int *seen_l)
{
    int seen_sp = 0;
    while (!pto__ps_at_eol(p)) {
        if (pto__ps_word(p, "slots") && !(*seen_s)++) {
            pto__ps_next(p);
            if (!pto__ps_paren_count(p, "slot count", slots)) return 0;
        } else if (pto__ps_word(p, "local_slots") && !(*seen_l)++) {
            pto__ps_next(p);
            if (!pto__ps_paren_count(p, "local slot count", local)) return 0;
        } else if (pto__ps_word(p, "split") && !seen_sp++) {
            pto__ps_next(p);
            if (!pto__ps_expect(p, '(', "'(' after 'split'")) return 0;
            if (pto__ps_word(p, "up_down")) *split = PTO_SPLIT_UP_DOWN;
            else if (pto__ps_word(p, "left_right")) *split = PTO_SPLIT_LEFT_RIGHT;
            else { pto__ps_expected(p, "'up_down' or 'left_right'"); return 0; }
            pto__ps_next(p);
            if (!pto__ps_expect(p, ')', "')' after the split mode")) return 0;
        } else {
            pto__ps_expected(p, "'slots(N)', 'local_slots(N)', 'split(...)' or end of line after the pipe");
            return 0;
        }
    }
    return 1;
}

/* pipe NAME: (c2v | v2c | both) DTYPE[R, C] [slots(N)] [local_slots(N)]
              [split(up_down | left_right)]
   A cube <-> vector pipe, declared at the top level of a mix kernel. The
   shape is the cube side's tile; an omitted count means its default. */
static int pto__ps_pipe_stmt(pto__ps_parser *p, int32_t block)
{
    pto__ps_tok kw = p->tok, name;
    pto_cvdir dir;
    pto_dtype dt;
    int64_t r, c, slots = 0, local = 0;
    int split = PTO_SPLIT_NONE, seen_s = 0, seen_l = 0, ok, attrs_ok;
    int32_t id;
    if (p->m->kernels[p->kernel].kind != PTO_KK_MIX || block != p->m->kernels[p->kernel].body) {
        pto__ps_err(p, &kw, "a pipe is declared at the top level of a mix kernel, before its sections");
        return 0;
    }
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a pipe name")) return 0;
    ok = pto__ps_can_declare(p, &name);
    if (!pto__ps_expect(p, ':', "':' after the pipe name")) return 0;
    if (pto__ps_word(p, "c2v")) dir = PTO_C2V;
    else if (pto__ps_word(p, "v2c")) dir = PTO_V2C;
    else if (pto__ps_word(p, "both")) dir = PTO_BOTH;
    else { pto__ps_expected(p, "a pipe direction (c2v, v2c or both)"); return 0; }
    pto__ps_next(p);
    if (!pto__ps_dtype(p, &dt)) return 0;
    if (!pto__ps_expect(p, '[', "'[' before the pipe's tile shape")) return 0;
    if (!pto__ps_small_int(p, 65536, "pipe tile dimension", &r)) return 0;
    if (!pto__ps_expect(p, ',', "',' between the tile dimensions")) return 0;
    if (!pto__ps_small_int(p, 65536, "pipe tile dimension", &c)) return 0;
    if (!pto__ps_expect(p, ']', "']' after the pipe's tile shape")) return 0;
    attrs_ok = pto__ps_pipe_attrs(p, &slots, &local, &split, &seen_s, &seen_l);
    /* 0 is how an omitted count is passed on: an explicit 0 is out of range */
    if (attrs_ok && ((seen_s && slots == 0) || (seen_l && local == 0)))   /* still declared: its uses resolve */
        pto__ps_err(p, &kw, "pipe '%s': %s must be > 0", pto__ps_text(p, &name),
                    seen_s && slots == 0 ? "slots" : "local_slots");
    id = pto_add_cvpipe(p->m, p->kernel, pto__ps_text(p, &name), dir, dt, (int32_t)r, (int32_t)c, (int32_t)slots,
                        (int32_t)local, (pto_cvsplit)split, *pto__ps_tloc(p, &name));
    if (id < 0) return 0;
    if (ok) pto__ps_bind(p, &name, PTO__B_PIPE, id);
    return attrs_ok && pto__ps_end_stmt(p, "the pipe");
}

/* tfree q names no tile in the text; its IR statement also holds the tile
   the latest tpop of q in this section popped into (the bytes it releases),
   so that the op table's access records order every read of the slot
   before the S-pipe tfree. */
static int pto__ps_tfree_tile(pto__ps_parser *p, int32_t s)
{
    pto_module *m = p->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *q = st->nargs == 1 ? &m->operands[st->arg0] : NULL;
    int32_t i;
    if (!q || q->kind != PTO_O_CVPIPE) return 1;   /* the verifier reports the operands */
    for (i = s - 1; i >= 0; i--) {
        const pto_stmt *o = &m->stmts[i];
        if (o->kind == PTO_ST_OP && o->op == PTO_OP_TPOP && o->nargs == 2 && o->core == st->core && o->block >= 0 &&
            m->blocks[o->block].kernel == p->kernel && m->operands[o->arg0 + 1].kind == PTO_O_CVPIPE &&
            m->operands[o->arg0 + 1].ref == q->ref && m->operands[o->arg0].kind == PTO_O_TILE)
            return pto_arg_tile(m, s, m->operands[o->arg0].ref, q->loc) >= 0;
    }
    pto_error(p->ctx, st->loc, "tfree of pipe '%s' with no tpop of it before in this section",
              pto_str(p->ctx, m->cvpipes[q->ref].name));
    return 1;
}

static pto_op pto__ps_op_of(pto__ps_parser *p, const pto__ps_tok *t)
{
    pto__ps_pname *n = pto__ps_name_slot(p, t->id);
    if (!n) return PTO_NOP;
    if (n->opc == 0) {
        pto_op op = pto_op_lookup(p->src + t->pos, t->len);
        n->opc = (uint8_t)(op == PTO_NOP ? 1 : 2 + (int)op);
    }
    return n->opc == 1 ? PTO_NOP : (pto_op)(n->opc - 2);
}

/* "unknown op 'X'" with the closest op or statement keyword. */
static void pto__ps_unknown_op(pto__ps_parser *p, const pto__ps_tok *t)
{
    static const int words[] = {PTO__KW_TILE, PTO__KW_LET, PTO__KW_FOR, PTO__KW_IF, PTO__KW_PIPE,
                                PTO__KW_VECTOR, PTO__KW_CUBE};
    pto__ps_near n;
    char hint[80];
    size_t i;
    int op;
    pto__ps_near_init(p, &n, pto__ps_text(p, t), t->len);
    for (op = 0; op < PTO_NOP; op++) {
        const char *name = pto_opinfo_get((pto_op)op)->name;
        pto__ps_near_try(&n, name, strlen(name));
    }
    for (i = 0; i < sizeof words / sizeof words[0]; i++)
        pto__ps_near_try(&n, pto__ps_kw_text[words[i]], strlen(pto__ps_kw_text[words[i]]));
    if (!n.best) {
        /* names of other tile languages (pto-isa's own spellings differ
           only in case, which the near match already takes): what pto
           calls it, or that it has no such op */
        static const char *const other[][2] = {
            {"tcast", " (pto calls it 'tcvt')"}, {"tconvert", " (pto calls it 'tcvt')"},
            {"tfill", " (pto calls it 'texpands')"}, {"tduplicate", " (pto calls it 'texpands')"},
            {"tcopy", " (pto calls it 'tmov')"}, {"tassign", " (pto calls it 'tmov')"},
            {"ttranspose", " (pto has no transpose: load the tile from a transposed tensor)"},
            {"treshape", " (pto has no reshape: declare a tile of the shape you want and tload it)"},
            {"tmma", " (pto calls it 'tmatmul', or 'tmatmul_acc' to accumulate)"},
            {"tgemm", " (pto calls it 'tmatmul', or 'tmatmul_acc' to accumulate)"},
            {"tstore_add", " (pto has no atomic store: accumulate in a tile, or allreduce across ranks)"},
            {"tatomic_add", " (pto has no atomic store: accumulate in a tile, or allreduce across ranks)"},
            {"tsel", " (pto has no select: tmax / tmin, or trelu, cover clamps)"},
            {"tselect", " (pto has no select: tmax / tmin, or trelu, cover clamps)"}};
        const char *w = pto__ps_text(p, t);
        for (i = 0; i < sizeof other / sizeof other[0]; i++)
            if (pto__ps_edits(w, strlen(w), other[i][0], strlen(other[i][0]), 0) == 0) {
                pto__ps_err(p, t, "unknown op '%s'%s", w, other[i][1]);
                return;
            }
    }
    pto__ps_err(p, t, "unknown op '%s'%s", pto__ps_text(p, t), pto__ps_near_hint(&n, hint, sizeof hint, ""));
}

/* One statement; returns 0 after a syntax error (the caller skips the line). */
static int pto__ps_stmt(pto__ps_parser *p, int32_t block)
{
    pto__ps_tok t = p->tok;
    pto_op op;
    int32_t s;
    if (t.kind != PTO__T_NAME) { pto__ps_expected(p, "a statement"); return 0; }
    if (t.id <= p->kw_max) {   /* a name interned after every keyword is none: an op, or no statement word */
        if (t.id == p->kw[PTO__KW_TILE]) return pto__ps_tile_stmt(p, block);
        if (t.id == p->kw[PTO__KW_LET]) return pto__ps_let_stmt(p, block);
        if (t.id == p->kw[PTO__KW_FOR]) return pto__ps_for_stmt(p, block);
        if (t.id == p->kw[PTO__KW_IF]) return pto__ps_if_stmt(p, block);
        if (t.id == p->kw[PTO__KW_CUBE] || t.id == p->kw[PTO__KW_VECTOR]) return pto__ps_section_stmt(p, block);
        if (t.id == p->kw[PTO__KW_PIPE]) return pto__ps_pipe_stmt(p, block);
        if (t.id == p->kw[PTO__KW_ELSE]) {
            pto__ps_err(p, &t, "'else' must follow '}' on the same line");
            return 0;
        }
    }
    op = pto__ps_op_of(p, &t);
    if (op == PTO_NOP) {
        pto__ps_unknown_op(p, &t);
        return 0;
    }
    pto__ps_next(p);
    s = pto__add_op_id(p->m, block, op, *pto__ps_tloc(p, &t));
    if (s < 0 || !pto__ps_operands(p, s, op)) return 0;
    if (op == PTO_OP_TFREE && !pto__ps_tfree_tile(p, s)) return 0;
    return pto__ps_end_stmt(p, "the operands");
}

/* ---- kernels --------------------------------------------------------------------- */

static void pto__ps_skip_nl(pto__ps_parser *p)
{
    while (pto__ps_is(p, PTO__T_NL)) pto__ps_next(p);
}

/* One dim of a tensor param: an integer, or a name (a dynamic dim shared by
   every param of the kernel that uses it). */
/* After a dimension: an operator there is an expression, which a shape
   cannot hold (`f16[B * 64, 96]`). */
static int pto__ps_dim_end(pto__ps_parser *p)
{
    int k = p->tok.kind;
    if (k == '+' || k == '-' || k == '*' || k == '/' || k == '%' || k == '(') {
        pto__ps_err(p, &p->tok, "a tensor dimension is an integer or a name, not an expression (give the "
                    "extent a name of its own, e.g. 'BM', and compute with it in the body)");
        return 0;
    }
    return 1;
}

static int pto__ps_dim(pto__ps_parser *p, int32_t param, int d)
{
    pto__ps_tok t = p->tok;
    if (t.kind == PTO__T_INT) {
        int64_t v;
        pto__ps_next(p);
        if (!pto__ps_int_value(p, &t, 0, &v)) return 0;
        p->m->params[param].dim[d] = v;
        return pto__ps_dim_end(p);
    }
    if (t.kind == PTO__T_NAME) {
        const pto__ps_pname *n = pto__ps_lookup(p, &t);
        int32_t v;
        pto__ps_next(p);
        if (n->kind == PTO__B_DIM) {
            v = n->ref;
        } else {
            if (!pto__ps_can_declare(p, &t)) return 1; /* reported; keep parsing */
            v = pto__add_var_id(p->m, p->kernel, t.id, PTO_V_DIM, param, *pto__ps_tloc(p, &t));
            if (v < 0) return 0;
            pto__ps_bind(p, &t, PTO__B_DIM, v);
        }
        p->m->params[param].dim[d] = -1;
        p->m->params[param].dim_var[d] = v;
        return pto__ps_dim_end(p);
    }
    pto__ps_expected(p, "a dimension (an integer or a name)");
    return 0;
}

/* The head every parameter list shares (kernels and hosts):
   `in|out|inout|scalar NAME: DTYPE`. *ok says the name may be bound (no
   clash; the clash is already reported). Returns 0 after an error. */
static int pto__ps_param_head(pto__ps_parser *p, int *scalar, pto_dir *dir, pto__ps_tok *name, int *ok,
                              pto_dtype *dt)
{
    *scalar = pto__ps_is_kw(p, PTO__KW_SCALAR);
    *dir = pto__ps_is_kw(p, PTO__KW_IN) ? PTO_IN : pto__ps_is_kw(p, PTO__KW_OUT) ? PTO_OUT : PTO_INOUT;
    if (!*scalar && !pto__ps_is_kw(p, PTO__KW_IN) && !pto__ps_is_kw(p, PTO__KW_OUT) &&
        !pto__ps_is_kw(p, PTO__KW_INOUT)) {
        pto__ps_expected(p, "a parameter ('in', 'out', 'inout' or 'scalar')");
        return 0;
    }
    pto__ps_next(p);
    *name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a parameter name")) return 0;
    *ok = pto__ps_can_declare(p, name);
    if (!pto__ps_expect(p, ':', "':' after the parameter name")) return 0;
    return pto__ps_dtype(p, dt);
}

/* in|out|inout NAME: DTYPE[D0, D1] [window]   or   scalar NAME: DTYPE */
static int pto__ps_param(pto__ps_parser *p)
{
    pto__ps_tok name;
    pto_dtype dt;
    pto_dir dir;
    int32_t prm;
    int ok, scalar;
    if (!pto__ps_param_head(p, &scalar, &dir, &name, &ok, &dt)) return 0;
    if (scalar) {
        prm = pto_add_scalar_param(p->m, p->kernel, pto__ps_text(p, &name), dt, *pto__ps_tloc(p, &name));
        if (prm < 0) return 0;
        if (ok) pto__ps_bind(p, &name, PTO__B_SCALAR, p->m->params[prm].var);
        return 1;
    }
    prm = pto_add_tensor_param(p->m, p->kernel, pto__ps_text(p, &name), dir, dt, 0, 0, *pto__ps_tloc(p, &name));
    if (prm < 0) return 0;
    if (ok) pto__ps_bind(p, &name, PTO__B_TENSOR, prm);
    if (!pto__ps_expect(p, '[', "'[' before the tensor shape")) return 0;
    pto__ps_skip_nl(p);   /* the list may span lines, shapes too */
    if (!pto__ps_dim(p, prm, 0)) return 0;
    pto__ps_skip_nl(p);
    if (!pto__ps_expect(p, ',', "',' between the tensor dimensions")) return 0;
    pto__ps_skip_nl(p);
    if (!pto__ps_dim(p, prm, 1)) return 0;
    pto__ps_skip_nl(p);
    if (!pto__ps_expect(p, ']', "']' after the tensor shape")) return 0;
    if (pto__ps_is_kw(p, PTO__KW_WINDOW)) {
        p->m->params[prm].window = 1;
        pto__ps_next(p);
    }
    return 1;
}

/* (PARAM, ...) possibly over several lines. After an error, skips to the
   closing `)` so that the rest of the header still parses. */
/* Whether t starts a parameter (in, out, inout, scalar). */
static int pto__ps_param_word(const pto__ps_parser *p, const pto__ps_tok *t)
{
    return t->kind == PTO__T_NAME && (t->id == p->kw[PTO__KW_IN] || t->id == p->kw[PTO__KW_OUT] ||
                                      t->id == p->kw[PTO__KW_INOUT] || t->id == p->kw[PTO__KW_SCALAR]);
}

static int pto__ps_params(pto__ps_parser *p)
{
    pto__ps_tok open = p->tok;
    if (!pto__ps_expect(p, '(', "'(' after the kernel name")) return 0;
    pto__ps_skip_nl(p);
    if (pto__ps_is(p, ')')) { pto__ps_next(p); return 1; }
    for (;;) {
        pto__ps_skip_nl(p);
        if (!pto__ps_param(p)) {
            /* resume at the next parameter, a ',' followed by a direction (a ','
               inside the broken shape is not one): the ones after a broken
               parameter are still declared, so their uses are not errors too */
            int resumed = 0;
            while (!pto__ps_is(p, ')') && !pto__ps_is(p, '{') && !pto__ps_is(p, PTO__T_EOF)) {
                if (pto__ps_is(p, ',')) {
                    pto__ps_tok n = pto__ps_peek(p);
                    if (pto__ps_param_word(p, &n)) {
                        resumed = 1;
                        pto__ps_next(p);
                        break;
                    }
                }
                pto__ps_next(p);
            }
            if (resumed) continue;
            break;
        }
        pto__ps_skip_nl(p);
        if (pto__ps_is(p, ',')) { pto__ps_next(p); continue; }
        if (pto__ps_is(p, ')')) { pto__ps_next(p); return 1; }
        if (pto__ps_is(p, PTO__T_EOF)) {
            pto__ps_err(p, &open, "missing ')': the parameter list opened here is not closed");
            return 0;
        }
        pto__ps_expected(p, "',' or ')' after a parameter");
        if (pto__ps_param_word(p, &p->tok)) continue;   /* a missing ',': go on with the next one */
        break;
    }
    while (!pto__ps_is(p, ')') && !pto__ps_is(p, '{') && !pto__ps_is(p, PTO__T_EOF)) pto__ps_next(p);
    if (!pto__ps_is(p, ')')) return 0;
    pto__ps_next(p);
    return 1;
}

/* KIND [blocks(EXPR)] [ranks] up to and including `{` (returned in *open). */
static int pto__ps_kernel_attrs(pto__ps_parser *p, int32_t k, pto__ps_tok *open)
{
    int seen_blocks = 0;
    if (pto__ps_is_kw(p, PTO__KW_VECTOR)) p->m->kernels[k].kind = PTO_KK_VECTOR;
    else if (pto__ps_is_kw(p, PTO__KW_CUBE)) p->m->kernels[k].kind = PTO_KK_CUBE;
    else if (pto__ps_is_kw(p, PTO__KW_MIX)) p->m->kernels[k].kind = PTO_KK_MIX;
    else { pto__ps_expected(p, "a kernel kind ('vector', 'cube' or 'mix')"); return 0; }
    pto__ps_next(p);
    for (;;) {
        if (pto__ps_is_kw(p, PTO__KW_BLOCKS)) {
            int32_t e;
            if (seen_blocks++) { pto__ps_err(p, &p->tok, "'blocks' is given twice"); return 0; }
            pto__ps_next(p);
            if (!pto__ps_expect(p, '(', "'(' after 'blocks'")) return 0;
            if ((e = pto__ps_expr0(p)) < 0) return 0;
            if (!pto__ps_expect(p, ')', "')' after the block count")) return 0;
            p->m->kernels[k].blocks = e;
        } else if (pto__ps_is_kw(p, PTO__KW_RANKS)) {
            if (p->m->kernels[k].ranks) { pto__ps_err(p, &p->tok, "'ranks' is given twice"); return 0; }
            p->m->kernels[k].ranks = 1;
            pto__ps_next(p);
        } else if (pto__ps_is(p, '{')) {
            *open = p->tok;
            pto__ps_next(p);
            return 1;
        } else {
            pto__ps_expected(p, "'blocks(...)', 'ranks' or '{'");
            return 0;
        }
    }
}

/* host sections (host.c, later in the amalgamation) */
static void pto__hs_host(pto__ps_parser *p);
static int pto__hs_word(const pto__ps_parser *p, const char *w);

/* Skips lines until one that starts with `kernel`, `host` or `arch`
   (top-level recovery: whatever followed a broken header is not parsed). */
static void pto__ps_skip_to_top(pto__ps_parser *p)
{
    for (;;) {
        while (!pto__ps_at_eol(p)) pto__ps_next(p);
        if (pto__ps_is(p, PTO__T_EOF)) return;
        pto__ps_next(p);
        pto__ps_skip_nl(p);
        if (pto__ps_is_kw(p, PTO__KW_KERNEL) || pto__ps_is_kw(p, PTO__KW_ARCH) || pto__hs_word(p, "host")) return;
    }
}

static void pto__ps_kernel(pto__ps_parser *p)
{
    pto__ps_tok name, open;
    int32_t k;
    pto__ps_pname *n;
    int ok;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a kernel name")) { pto__ps_skip_to_top(p); return; }
    n = pto__ps_name_slot(p, name.id);
    if (!n) return;
    if (n->kernel) {
        const pto_kernel *o = &p->m->kernels[n->kernel - 1];
        pto__ps_err(p, &name, "kernel '%s' is already defined at %d:%d", pto__ps_text(p, &name),
                 (int)o->loc.line, (int)o->loc.col);
    }
    k = pto_add_kernel(p->m, pto__ps_text(p, &name), PTO_KK_VECTOR, *pto__ps_tloc(p, &name));
    if (k < 0) return;
    if (!p->names[name.id].kernel) p->names[name.id].kernel = k + 1;
    p->kernel = k;
    pto__ps_scope_open(p);
    ok = pto__ps_params(p) && pto__ps_kernel_attrs(p, k, &open);
    if (!ok) {
        /* broken header: still parse the body if its `{` is on this line */
        while (!pto__ps_at_eol(p) && !pto__ps_is(p, '{')) pto__ps_next(p);
        open = p->tok;
        ok = pto__ps_is(p, '{');
        if (ok) pto__ps_next(p);
    }
    if (ok) pto__ps_sub_block(p, p->m->kernels[k].body, &open);
    pto__ps_scope_close(p);
    p->kernel = -1;
    if (!ok || !pto__ps_end_stmt(p, "'}'")) pto__ps_skip_to_top(p);
}

static void pto__ps_arch(pto__ps_parser *p)
{
    pto__ps_tok kw = p->tok;
    pto__ps_next(p);
    if (p->m->n_kernels > 0) {
        pto__ps_err(p, &kw, "'arch' must come before the first kernel");
        pto__ps_skip_to_top(p);
        return;
    }
    if (pto__ps_is(p, PTO__T_NAME)) {
        int a;
        for (a = 0; a < PTO_NARCH; a++)
            if (strcmp(pto_arch_name((pto_arch)a), pto__ps_text(p, &p->tok)) == 0) break;
        if (a == PTO_NARCH) {
            pto__ps_err(p, &p->tok, "unknown arch '%s' (expected a2a3 or a5)", pto__ps_text(p, &p->tok));
            pto__ps_skip_to_top(p);
            return;
        }
        p->m->arch = (pto_arch)a;
        pto__ps_next(p);
    } else {
        pto__ps_expected(p, "an arch name (a2a3 or a5)");
        pto__ps_skip_to_top(p);
        return;
    }
    if (!pto__ps_end_stmt(p, "the arch")) pto__ps_skip_to_top(p);
}

/* The kernel or host section the parser finished last (the one above the
   top-level token at hand), as "kernel 'k'" / "host 'h'"; "" when none. */
static void pto__ps_last_item(const pto__ps_parser *p, char *out, size_t size)
{
    const pto_module *m = p->m;
    const pto_kernel *k = m->n_kernels > 0 ? &m->kernels[m->n_kernels - 1] : NULL;
    const pto_host *h = m->n_hosts > 0 ? &m->hosts[m->n_hosts - 1] : NULL;
    out[0] = 0;
    if (h && (!k || h->loc.line > k->loc.line))
        snprintf(out, size, "host '%s'", pto_str(p->ctx, h->name));
    else if (k)
        snprintf(out, size, "kernel '%s'", pto_str(p->ctx, k->name));
}

/* What may start a top-level item, with the closest of the words to a word.
   A '}' here closes nothing: said as such (an extra '}' after a kernel read
   as "expected 'kernel'", which hid what happened). */
static void pto__ps_top_unknown(pto__ps_parser *p)
{
    static const char *const words[] = {"kernel", "host", "arch"};
    pto__ps_near n;
    char q[200], hint[80];
    size_t i;
    if (p->tok.kind == '}') {
        char last[160];
        pto__ps_last_item(p, last, sizeof last);
        if (last[0])
            pto__ps_err(p, &p->tok, "unmatched '}': no block is open here (%s above is already closed by an earlier '}')",
                        last);
        else
            pto__ps_err(p, &p->tok, "unmatched '}': no block is open here");
        return;
    }
    if (p->tok.kind != PTO__T_NAME) { pto__ps_expected(p, "'kernel', 'host' or 'arch'"); return; }
    pto__ps_near_init(p, &n, pto__ps_text(p, &p->tok), p->tok.len);
    for (i = 0; i < sizeof words / sizeof words[0]; i++) pto__ps_near_try(&n, words[i], strlen(words[i]));
    pto__ps_tokstr(p, &p->tok, q, sizeof q);
    if (pto_op_lookup(pto__ps_text(p, &p->tok), p->tok.len) != PTO_NOP || pto__ps_is_kw(p, PTO__KW_TILE) ||
        pto__ps_is_kw(p, PTO__KW_LET) || pto__ps_is_kw(p, PTO__KW_FOR) || pto__ps_is_kw(p, PTO__KW_IF)) {
        /* a statement out here: most likely a '}' above closed its kernel early */
        char last[160];
        pto__ps_last_item(p, last, sizeof last);
        if (last[0]) {
            pto__ps_err(p, &p->tok, "expected 'kernel', 'host' or 'arch', got %s: a statement outside any kernel "
                        "(did a '}' above close %s early?)", q, last);
            return;
        }
    }
    pto__ps_err(p, &p->tok, "expected 'kernel', 'host' or 'arch', got %s%s", q, pto__ps_near_hint(&n, hint, sizeof hint, ""));
}

static void pto__ps_file(pto__ps_parser *p)
{
    pto__ps_next(p);
    for (;;) {
        pto__ps_skip_nl(p);
        if (pto__ps_is(p, PTO__T_EOF)) return;
        if (pto__ps_is_kw(p, PTO__KW_KERNEL)) pto__ps_kernel(p);
        else if (pto__ps_is_kw(p, PTO__KW_ARCH)) pto__ps_arch(p);
        else if (pto__hs_word(p, "host")) pto__hs_host(p);
        else {
            pto__ps_top_unknown(p);
            pto__ps_skip_to_top(p);
        }
    }
}

/* Best effort, for a large file: the intern table and the binding table
   sized for the names the text will likely add instead of growing by
   doubling, each step a fresh table to fill or copy. Typical kernels have
   about one name per 80 bytes, the bench's one per 78. The binding table is
   zeroed as ids arrive, so an unused tail touches no page: it is reserved
   for one per 48. The intern table's slots are all written when it is
   made, so every slot is a page touched: it is reserved for one per 64
   (it grows by doubling past that). */
static void pto__ps_reserve_names(pto__ps_parser *p)
{
    size_t cap = (size_t)1 << 22;
    size_t more = p->len / 48 < cap ? p->len / 48 : cap, hmore = p->len / 64 < cap ? p->len / 64 : cap;
    size_t want = (size_t)p->ctx->n_strs + more;
    pto__ps_pname *n;
    if (more < 256) return;
    pto__intern_reserve(p->ctx, (size_t)p->ctx->n_strs + hmore);
    n = (pto__ps_pname *)pto__alloc_quiet(p->ctx, sizeof *n * want);
    if (!n) return;
    p->names = n;
    p->alloc_names = (int32_t)want;
}

PTODEF pto_module *pto_parse(pto_ctx *ctx, const char *filename, const char *text, size_t len)
{
    pto__ps_parser p;
    int errors = pto_error_count(ctx), i;
    memset(&p, 0, sizeof p);
    p.ctx = ctx;
    p.file = pto_file_add(ctx, filename ? filename : "<input>");
    p.src = text ? text : "";
    p.len = text ? len : 0;
    p.line = 1;
    p.kernel = -1;
    if (p.len > (size_t)INT32_MAX) {
        pto_loc loc;
        loc.file = p.file;
        loc.line = 1;
        loc.col = 1;
        pto_error(ctx, loc, "the file is too large (more than 2 GiB)");
        return NULL;
    }
    p.m = pto_module_create(ctx, PTO_ARCH_A2A3);
    if (!p.m) return NULL;
    p.m->file = p.file;
    pto__module_reserve(p.m, p.len);
    pto__ps_reserve_names(&p);
    /* best effort: without the cache every name is hashed and looked up */
    p.nc = (pto__ps_ncent *)pto__alloc_quiet(ctx, sizeof *p.nc << PTO__NC_BITS);
    if (p.nc) memset(p.nc, 0, sizeof *p.nc << PTO__NC_BITS);
    for (i = 0; i < PTO__NKW; i++) {
        p.kw[i] = pto_intern(ctx, pto__ps_kw_text[i], strlen(pto__ps_kw_text[i]));
        if (p.kw[i] > p.kw_max) p.kw_max = p.kw[i];
    }
    pto__ps_file(&p);
    pto_free(ctx, p.names);
    pto_free(ctx, p.nc);
    pto_free(ctx, p.decls);
    pto_free(ctx, p.marks);
    if (pto_error_count(ctx) > errors) {
        pto_module_destroy(p.m);
        return NULL;
    }
    return p.m;
}
/* ---- End file: src/parse.c ---- */

/* ---- Begin file: src/print.c ---- */
/* print.c - the .pto printer: IR -> canonical text, and pto_dump.

   Needs: a module whose ids are in range (any stage of the pipeline).
   Guarantees: canonical text that the parser reads back to the same IR, so
   print(parse(print(x))) == print(x): 2-space indentation, params on one
   line, the fewest parentheses that keep each expression tree, floats in the
   shortest form that reads back to the same double and still reads as a
   float, `} else {` on one line. pto_print drops comments;
   pto_print_commented keeps the full-line ones of the source text, each
   before the item that follows it (end-of-line comments are dropped).

   pto_dump prints the same text plus `#` comments with what later passes
   computed: planned tile offsets and why a pass created a statement. */

#include <float.h>
#include <math.h>

/* Operator precedence of an expression for parenthesisation:
   1 additive, 2 multiplicative, 3 unary, 4 primary. */
static int pto__pr_prec(const pto_module *m, int32_t e)
{
    const pto_expr *x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_ADD: case PTO_E_SUB: return 1;
    case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD: return 2;
    case PTO_E_NEG: return 3;
    case PTO_E_INT: return x->value < 0 ? 3 : 4;
    default: return 4;
    }
}

static const char *pto__pr_var_name(const pto_module *m, int32_t v)
{
    if (v < 0 || v >= m->n_vars) return "?";
    return pto_str(m->ctx, m->vars[v].name);
}

/* Prints e, in parentheses when its precedence is below `min`. */
static void pto__pr_pexpr(const pto_module *m, int32_t e, int min, pto_buf *b)
{
    static const char *const binop[] = {"+", "-", "*", "/", "%"};
    const pto_expr *x;
    int prec, paren;
    if (e < 0 || e >= m->n_exprs) { pto_buf_puts(b, "?"); return; }
    x = &m->exprs[e];
    prec = pto__pr_prec(m, e);
    paren = prec < min;
    if (paren) pto_buf_puts(b, "(");
    switch (x->kind) {
    case PTO_E_INT: pto_buf_printf(b, "%lld", (long long)x->value); break;
    case PTO_E_VAR: pto_buf_puts(b, pto__pr_var_name(m, x->a)); break;
    case PTO_E_BLOCK: pto_buf_puts(b, "block"); break;
    case PTO_E_BLOCKS: pto_buf_puts(b, "blocks"); break;
    case PTO_E_SUBBLOCK: pto_buf_puts(b, "subblock"); break;
    case PTO_E_RANK: pto_buf_puts(b, "rank"); break;
    case PTO_E_NRANKS: pto_buf_puts(b, "nranks"); break;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD:
        /* left-associative: the right operand needs parentheses at equal precedence */
        pto__pr_pexpr(m, x->a, prec, b);
        pto_buf_printf(b, " %s ", binop[x->kind - PTO_E_ADD]);
        pto__pr_pexpr(m, x->b, prec + 1, b);
        break;
    case PTO_E_MIN: case PTO_E_MAX:
        pto_buf_puts(b, x->kind == PTO_E_MIN ? "min(" : "max(");
        pto__pr_pexpr(m, x->a, 0, b);
        pto_buf_puts(b, ", ");
        pto__pr_pexpr(m, x->b, 0, b);
        pto_buf_puts(b, ")");
        break;
    case PTO_E_NEG:
        /* `--x` would read as two minus signs anyway, but `-(-x)` is clearer;
           `-5` reads back as the literal -5, which prints the same */
        /* `-0` would read back as the literal 0, so that one keeps its parentheses */
        pto_buf_puts(b, "-");
        pto__pr_pexpr(m, x->a, x->a >= 0 && x->a < m->n_exprs && m->exprs[x->a].kind == PTO_E_INT &&
                                   m->exprs[x->a].value == 0 ? 5 : 4, b);
        break;
    default: pto_buf_puts(b, "?"); break;
    }
    if (paren) pto_buf_puts(b, ")");
}

PTODEF void pto_print_expr(const pto_module *m, int32_t expr, pto_buf *out)
{
    if (m && out) pto__pr_pexpr(m, expr, 0, out);
}

/* The shortest %g form that reads back to the same double, with a '.',
   'e', 'inf' or 'nan' in it so that it reads back as a float. */
static void pto__pr_fmt_double(double v, char *out, size_t size)
{
    int prec;
    if (v != v) { snprintf(out, size, signbit(v) ? "-nan" : "nan"); return; }
    if (v > DBL_MAX) { snprintf(out, size, "inf"); return; }
    if (v < -DBL_MAX) { snprintf(out, size, "-inf"); return; }
    for (prec = 1; prec <= 17; prec++) {
        snprintf(out, size, "%.*g", prec, v);
        if (strtod(out, NULL) == v) break;
    }
    if (!strpbrk(out, ".e")) {
        size_t n = strlen(out);
        if (n + 3 <= size) memcpy(out + n, ".0", 3);
    }
}

static void pto__pr_indent(pto_buf *b, int depth)
{
    int i;
    for (i = 0; i < depth; i++) pto_buf_puts(b, "  ");
}

static const char *pto__pr_tile_name(const pto_module *m, int32_t t)
{
    if (t < 0 || t >= m->n_tiles) return "?";
    return pto_str(m->ctx, m->tiles[t].name);
}

/* Whether the printed text of expression e starts with a scalar param name. */
static int pto__pr_lead_scalar(const pto_module *m, int32_t e)
{
    const pto_expr *x;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_VAR: return x->a >= 0 && x->a < m->n_vars && m->vars[x->a].kind == PTO_V_SCALAR;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD:
        return pto__pr_prec(m, x->a) >= pto__pr_prec(m, e) && pto__pr_lead_scalar(m, x->a);
    default: return 0;
    }
}

/* An integer operand outside an integer-only position is read by its form.
   In a scalar position a leading literal would read as a float and a leading
   let or loop variable is an error, so the expression is parenthesised
   there; elsewhere only a leading scalar param (which would read as the
   scalar itself) needs it. */
static int pto__pr_int_needs_parens(const pto_module *m, int32_t e, uint32_t mask)
{
    int int_only = (mask & PTO_A_INT) && !(mask & (PTO_A_SCALAR | PTO_A_TILES | PTO_A_GM | PTO_A_CVPIPE));
    if (mask & PTO_A_SCALAR) return 1;
    return !int_only && pto__pr_lead_scalar(m, e);
}

static void pto__pr_operand(const pto_module *m, const pto_operand *o, uint32_t mask, pto_buf *b)
{
    char num[64];
    switch (o->kind) {
    case PTO_O_TILE: pto_buf_puts(b, pto__pr_tile_name(m, o->ref)); break;
    case PTO_O_GM:
        pto_buf_puts(b, o->ref >= 0 && o->ref < m->n_params ? pto_str(m->ctx, m->params[o->ref].name) : "?");
        if (o->e[0] < 0 && o->e[1] < 0) break; /* a whole tensor (allreduce) */
        if (o->e[2] >= 0) {
            pto_buf_puts(b, "@");
            pto__pr_pexpr(m, o->e[2], 4, b);
        }
        pto_buf_puts(b, "[");
        pto__pr_pexpr(m, o->e[0], 0, b);
        pto_buf_puts(b, ", ");
        pto__pr_pexpr(m, o->e[1], 0, b);
        pto_buf_puts(b, "]");
        break;
    case PTO_O_FLOAT:
        pto__pr_fmt_double(o->f, num, sizeof num);
        pto_buf_puts(b, num);
        break;
    case PTO_O_SCALAR: pto_buf_puts(b, pto__pr_var_name(m, o->ref)); break;
    case PTO_O_INT:
        if (pto__pr_int_needs_parens(m, o->e[0], mask)) {
            pto_buf_puts(b, "(");
            pto__pr_pexpr(m, o->e[0], 0, b);
            pto_buf_puts(b, ")");
        } else {
            pto__pr_pexpr(m, o->e[0], 0, b);
        }
        break;
    case PTO_O_PIPE: pto_buf_puts(b, pto_pipe_name((pto_pipe)o->ref)); break;
    case PTO_O_CVPIPE:
        pto_buf_puts(b, o->ref >= 0 && o->ref < m->n_cvpipes ? pto_str(m->ctx, m->cvpipes[o->ref].name) : "?");
        break;
    case PTO_O_CMP: pto_buf_puts(b, pto_cmp_word((pto_cmp)o->ref)); break;
    case PTO_O_NMODE: pto_buf_puts(b, pto_nmode_name((pto_notify_mode)o->ref)); break;
    default: pto_buf_puts(b, "?"); break;
    }
}

/* The full-line comments of the text a module was parsed from, for
   pto_print_commented: a cursor over its lines that only moves forward. */
typedef struct pto__pr_comments {
    const char *src;
    size_t len, pos;       /* pos: where line `line` starts */
    int32_t line;
} pto__pr_comments;

typedef struct pto__pr_printer {
    const pto_module *m;
    pto_buf *b;
    int dump;
    pto__pr_comments *cm;  /* NULL: comments are not kept */
} pto__pr_printer;

static int pto__pr_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Prints, indented to `depth`, the full-line comments of the source above
   `line` not printed yet (line <= 0: every one left): a comment goes with
   the statement, pipe, kernel or host that follows it. */
static void pto__pr_comments_before(const pto__pr_printer *pr, int32_t line, int depth)
{
    pto__pr_comments *c = pr->cm;
    if (!c) return;
    while (c->pos < c->len && (line <= 0 || c->line < line)) {
        const char *s = c->src;
        size_t i = c->pos, end, e;
        while (i < c->len && pto__pr_blank(s[i])) i++;
        for (end = i; end < c->len && s[end] != '\n'; end++) {}
        if (i < end && s[i] == '#') {
            for (e = end; e > i && pto__pr_blank(s[e - 1]); e--) {}
            pto__pr_indent(pr->b, depth);
            pto_buf_putn(pr->b, s + i, e - i);
            pto_buf_puts(pr->b, "\n");
        }
        c->pos = end < c->len ? end + 1 : c->len;
        c->line++;
    }
}

/* The trailing `# ...` of a dumped statement: who made it, planned offsets. */
static void pto__pr_dump_note(const pto__pr_printer *pr, int32_t s)
{
    static const char *const by[] = {"user", "lower", "plan", "sync", "emit"};
    const pto_module *m = pr->m;
    const pto_stmt *st = &m->stmts[s];
    int any = 0;
    if (!pr->dump) return;
    if (st->origin != PTO_BY_USER) {
        pto_buf_printf(pr->b, "  # by %s", st->origin < 5 ? by[st->origin] : "?");
        if (st->note) pto_buf_printf(pr->b, ": %s", pto_str(m->ctx, st->note));
        any = 1;
    }
    if (st->kind == PTO_ST_TILE && st->ref >= 0 && st->ref < m->n_tiles && m->tiles[st->ref].planned) {
        const pto_tile *t = &m->tiles[st->ref];
        int k, n = t->nbuf < 1 ? 1 : t->nbuf > PTO_MAX_NBUF ? PTO_MAX_NBUF : t->nbuf;
        pto_buf_puts(pr->b, any ? "; " : "  # ");
        pto_buf_puts(pr->b, n > 1 ? "offsets" : "offset");
        for (k = 0; k < n; k++) pto_buf_printf(pr->b, " 0x%llx", (unsigned long long)t->offset[k]);
    }
}

static void pto__pr_pblock(const pto__pr_printer *pr, int32_t block, int depth);

static void pto__pr_ptile(const pto__pr_printer *pr, const pto_tile *t)
{
    const pto_module *m = pr->m;
    pto_buf *b = pr->b;
    pto_buf_printf(b, "tile %s: %s %s[%d, %d]", pto_str(m->ctx, t->name), pto_space_name((pto_space)t->space),
                   pto_dtype_name((pto_dtype)t->dtype), (int)t->rows, (int)t->cols);
    if (t->valid_r >= 0 || t->valid_c >= 0) {
        pto_buf_puts(b, " valid(");
        if (t->valid_r >= 0) pto__pr_pexpr(m, t->valid_r, 0, b); else pto_buf_printf(b, "%d", (int)t->rows);
        pto_buf_puts(b, ", ");
        if (t->valid_c >= 0) pto__pr_pexpr(m, t->valid_c, 0, b); else pto_buf_printf(b, "%d", (int)t->cols);
        pto_buf_puts(b, ")");
    }
    if (t->nbuf != 1) pto_buf_printf(b, " x%d", (int)t->nbuf);
    if (t->pin != PTO_NO_ADDR) pto_buf_printf(b, " at 0x%llx", (unsigned long long)t->pin);
}

/* A statement that opens a block: the header, then the body and `}`. */
static void pto__pr_pbody(const pto__pr_printer *pr, int32_t s, int32_t body, int depth)
{
    pto_buf_puts(pr->b, " {");
    pto__pr_dump_note(pr, s);
    pto_buf_puts(pr->b, "\n");
    pto__pr_pblock(pr, body, depth + 1);
    pto__pr_indent(pr->b, depth);
    pto_buf_puts(pr->b, "}");
}

/* An op statement as its .pto line (no indent, no newline): also the sync
   pass's dump (pto_sync_dump), so both print the same text. */
static void pto__pr_op(const pto_module *m, int32_t s, pto_buf *b)
{
    const pto_stmt *st = &m->stmts[s];
    const pto_opinfo *info = pto_opinfo_get((pto_op)st->op);
    int i;
    pto_buf_puts(b, info->name);
    for (i = 0; i < st->nargs; i++) {
        if (i < info->nargs && i < 4 && (info->arg[i] & PTO_A_IMPLICIT)) continue; /* not in the text */
        pto_buf_puts(b, i ? ", " : " ");
        pto__pr_operand(m, &m->operands[st->arg0 + i], i < info->nargs && i < 4 ? info->arg[i] : 0, b);
    }
}

static void pto__pr_pstmt(const pto__pr_printer *pr, int32_t s, int depth)
{
    const pto_module *m = pr->m;
    const pto_stmt *st = &m->stmts[s];
    pto_buf *b = pr->b;
    pto__pr_comments_before(pr, st->loc.line, depth);
    pto__pr_indent(b, depth);
    switch (st->kind) {
    case PTO_ST_OP: pto__pr_op(m, s, b); break;
    case PTO_ST_TILE:
        if (st->ref >= 0 && st->ref < m->n_tiles) pto__pr_ptile(pr, &m->tiles[st->ref]);
        break;
    case PTO_ST_LET:
        pto_buf_printf(b, "let %s = ", pto__pr_var_name(m, st->ref));
        pto__pr_pexpr(m, st->e[0], 0, b);
        break;
    case PTO_ST_FOR:
        pto_buf_printf(b, "for %s = ", pto__pr_var_name(m, st->ref));
        pto__pr_pexpr(m, st->e[0], 0, b);
        pto_buf_puts(b, " to ");
        pto__pr_pexpr(m, st->e[1], 0, b);
        if (st->e[2] >= 0) {
            pto_buf_puts(b, " step ");
            pto__pr_pexpr(m, st->e[2], 0, b);
        }
        pto__pr_pbody(pr, s, st->body, depth);
        break;
    case PTO_ST_IF:
        pto_buf_puts(b, "if ");
        pto__pr_pexpr(m, st->e[0], 0, b);
        pto_buf_printf(b, " %s ", pto_cmp_name((pto_cmp)st->cmp));
        pto__pr_pexpr(m, st->e[1], 0, b);
        pto__pr_pbody(pr, s, st->body, depth);
        if (st->orelse >= 0) {
            pto_buf_puts(b, " else {\n");
            pto__pr_pblock(pr, st->orelse, depth + 1);
            pto__pr_indent(b, depth);
            pto_buf_puts(b, "}");
        }
        pto_buf_puts(b, "\n");
        return;
    case PTO_ST_SECTION:
        pto_buf_puts(b, st->ref == PTO_CORE_CUBE ? "cube" : "vector");
        pto__pr_pbody(pr, s, st->body, depth);
        pto_buf_puts(b, "\n");
        return;
    default:
        pto_buf_puts(b, "?");
        break;
    }
    if (st->kind != PTO_ST_FOR) pto__pr_dump_note(pr, s);
    pto_buf_puts(b, "\n");
}

static void pto__pr_pblock(const pto__pr_printer *pr, int32_t block, int depth)
{
    int32_t s;
    if (block < 0 || block >= pr->m->n_blocks) return;
    for (s = pr->m->blocks[block].head; s >= 0; s = pr->m->stmts[s].next) pto__pr_pstmt(pr, s, depth);
}

/* `pipe q: c2v f32[64, 128] slots(8) local_slots(2) split(up_down)`: the
   counts are printed normalised (an omitted count means its default). */
static void pto__pr_pipes(const pto__pr_printer *pr, int32_t k)
{
    static const char *const dirs[] = {"?", "c2v", "v2c", "both"};
    static const char *const splits[] = {"", " split(up_down)", " split(left_right)"};
    const pto_module *m = pr->m;
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *p = &m->cvpipes[i];
        if (p->kernel != k) continue;
        pto__pr_comments_before(pr, p->loc.line, 1);
        pto_buf_printf(pr->b, "  pipe %s: %s %s[%d, %d] slots(%d) local_slots(%d)%s\n", pto_str(m->ctx, p->name),
                       dirs[p->dir & 3], pto_dtype_name((pto_dtype)p->dtype), (int)p->rows, (int)p->cols,
                       (int)p->slot_num, (int)p->local_slot_num, splits[p->split < 3 ? p->split : 0]);
    }
}

static void pto__pr_pkernel(const pto__pr_printer *pr, const pto_kernel *k)
{
    static const char *const kinds[] = {"vector", "cube", "mix"};
    static const char *const dirs[] = {"in", "out", "inout"};
    const pto_module *m = pr->m;
    pto_buf *b = pr->b;
    int32_t i;
    int d;
    pto__pr_comments_before(pr, k->loc.line, 0);
    pto_buf_printf(b, "kernel %s(", pto_str(m->ctx, k->name));
    for (i = 0; i < k->nparams; i++) {
        const pto_param *p = &m->params[k->param0 + i];
        if (i) pto_buf_puts(b, ", ");
        if (p->kind == PTO_P_SCALAR) {
            pto_buf_printf(b, "scalar %s: %s", pto_str(m->ctx, p->name), pto_dtype_name((pto_dtype)p->dtype));
            continue;
        }
        pto_buf_printf(b, "%s %s: %s[", dirs[p->dir < 3 ? p->dir : 0], pto_str(m->ctx, p->name),
                       pto_dtype_name((pto_dtype)p->dtype));
        for (d = 0; d < 2; d++) {
            if (d) pto_buf_puts(b, ", ");
            if (p->dim_var[d] >= 0) pto_buf_puts(b, pto__pr_var_name(m, p->dim_var[d]));
            else pto_buf_printf(b, "%lld", (long long)p->dim[d]);
        }
        pto_buf_puts(b, p->window ? "] window" : "]");
    }
    pto_buf_printf(b, ") %s", kinds[k->kind < 3 ? k->kind : 0]);
    if (k->blocks >= 0) {
        pto_buf_puts(b, " blocks(");
        pto__pr_pexpr(m, k->blocks, 0, b);
        pto_buf_puts(b, ")");
    }
    if (k->ranks) pto_buf_puts(b, " ranks");
    pto_buf_puts(b, " {\n");
    pto__pr_pipes(pr, (int32_t)(k - m->kernels));
    pto__pr_pblock(pr, k->body, 1);
    pto_buf_puts(b, "}\n");
}

/* host sections are printed by host.c */
static void pto__hs_print(const pto__pr_printer *pr);

static void pto__pr_pmodule(const pto_module *m, pto_buf *out, int dump, pto__pr_comments *cm)
{
    pto__pr_printer pr;
    int32_t k;
    pr.m = m;
    pr.b = out;
    pr.dump = dump;
    pr.cm = cm;
    if (m->arch != PTO_ARCH_A2A3) {
        /* the comments above the first kernel stay first: a `# run:` line must */
        pto__pr_comments_before(&pr, m->n_kernels ? m->kernels[0].loc.line : m->n_hosts ? m->hosts[0].loc.line : 0, 0);
        pto_buf_printf(out, "arch %s\n\n", pto_arch_name(m->arch));
    }
    for (k = 0; k < m->n_kernels; k++) {
        if (k) pto_buf_puts(out, "\n");
        pto__pr_pkernel(&pr, &m->kernels[k]);
    }
    pto__hs_print(&pr);
    pto__pr_comments_before(&pr, 0, 0);   /* the comments after the last item */
}

PTODEF void pto_print(const pto_module *m, pto_buf *out) { if (m && out) pto__pr_pmodule(m, out, 0, NULL); }

PTODEF void pto_print_commented(const pto_module *m, const char *text, size_t len, pto_buf *out)
{
    pto__pr_comments cm;
    if (!m || !out) return;
    cm.src = text ? text : "";
    cm.len = text ? len : 0;
    cm.pos = 0;
    cm.line = 1;
    pto__pr_pmodule(m, out, 0, &cm);
}

PTODEF void pto_dump(const pto_module *m, pto_buf *out) { if (m && out) pto__pr_pmodule(m, out, 1, NULL); }
/* ---- End file: src/print.c ---- */

/* ---- Begin file: src/verify.c ---- */
/* verify.c - the verifier: every rule of the IR that a user can break.

   Needs: a module as the parser or the C API builds it (ids may be wrong when
   the C API is misused; the verifier checks them before following them).

   Guarantees on PTO_OK, for the planner, the sync inserter, the emitter and
   the interpreter (and sets pto_module.verified, the stamp those passes
   check; a failure clears it; ir.h):
     - every name resolves: tiles and let/loop vars are used only where they
       are in scope, in their own kernel; no name shadows another;
     - every op has the operand count, kinds, spaces, dtypes and shapes its
       row of the op table and its class demand (matmul [M,K]x[K,N]->[M,N],
       row reductions to [R,1], column reductions to [1,C] with the
       valid cols of their source, column broadcasts of a [1,C] row that
       covers the valid cols, ...), reads only tiles some earlier write (or
       a write later in an enclosing loop, for a tile declared outside that
       loop) can have filled, and never reads an `out` or writes an `in`
       tensor;
     - every tile fits its space (times its xN slots), keeps 32-byte rows (or
       32-byte columns for [R,1] vectors) in vec, is whole fractals in
       mat/left/right/acc, has a sane pin, a valid region inside its shape,
       and xN only inside a loop;
     - GM windows, textract windows, valid regions, loop steps, block counts
       and event ids that are known statically are in range (M -> FIX ids
       above 2, which hung a device, draw a warning); textract
       offsets known statically are whole fractals of the mat tile;
     - mix kernels are exactly a cube section and a vector section, each using
       only its own core's memories and pipes;
     - cube <-> vector pipes have counts in range (after normalisation), flag
       ids and a ring left; each tpush / tpop runs on the producer / consumer
       core of the pipe's direction with the pipe's dtype and this core's
       shape; a pipe pops into one tile per section; a tpush into a v2c
       pipe without a split is guarded from AIV 1 (subblock 1) by an
       enclosing if; and on every path a tpop is followed by its tfree
       before the next tpop or the end.

   How: one pass per kernel checks the statements in program order (phase 1),
   numbering them as it goes and noting which tiles some earlier statement
   writes. A read with no earlier write inside a loop that its tile is
   declared outside of may still be filled by a write later in that loop:
   only then, once per kernel, a first pass (phase 0) lists every tile write
   with its position. Correct kernels rarely need it (a tile read before any
   write in program order is an accumulator or a mistake), so the module is
   usually walked once. Both walk the statement lists iteratively (no
   recursion on nesting depth), so the cost is linear in the size of the
   module. Integer expressions are folded into
   affine forms (const + sum k * var) over loop vars with static bounds and
   `block` with a static block count; the extremes of such a form are exact,
   so a window indexed by `block * 128 + i * 16` is checked at both ends
   without false alarms. Anything not affine is simply not checked statically.

   Every error is reported (up to the context's limit) and checking goes on. */

#define PTO__VK 4              /* terms of an affine form */
#define PTO__VBLOCK (-2)       /* the `block` builtin as a term of a form */
#define PTO__VDEPTH 2000       /* deepest expression tree accepted */
#define PTO__IN_BLOCKS 1       /* expression context: a blocks(...) count */

/* const + sum k[i] * var[i]; ok = 0 when the expression is not affine (or
   not foldable at all). */
typedef struct pto__vform {
    int ok, n;
    int64_t c;
    int32_t var[PTO__VK];
    int64_t k[PTO__VK];
} pto__vform;

/* One tile write: its program-order position and the tile's next write. */
typedef struct pto__vwrite { int32_t pos, next; } pto__vwrite;

/* What a name is bound to while it is in scope. */
enum { PTO__N_NONE, PTO__N_PARAM, PTO__N_DIM, PTO__N_TILE, PTO__N_VAR };

/* Per-tile flags. */
#define PTO__T_SCOPE 1         /* declared and in scope now */
#define PTO__T_UNINIT 2        /* an uninitialised read was reported already */
#define PTO__T_VALID 4         /* tvalid holds its valid(...) forms; else its shape is its valid region */
#define PTO__T_WRITTEN 8       /* a statement already checked writes it (phase 1) */

typedef struct pto__verifier {
    pto_ctx *ctx;
    pto_module *m;
    int phase;                 /* 0: number + collect writes; 1: check */
    int collected;             /* phase 0 ran for this kernel */
    int internal;              /* an internal failure (oom, malformed lists) */
    int malformed;             /* ... the statement lists are malformed */
    int32_t kernel;
    int core;                  /* core of the statements being checked, -1 none */
    int64_t nblocks;           /* static block count, or -1 */
    int32_t counter;           /* program-order position */
    int64_t nvisited;          /* statements phase 1 visited, over every kernel */
    uint8_t *pwritten;         /* per param: a GM window of it is written (phase 1) */
    int32_t here_pos;          /* phase 1: the position of the statement being checked */
    int32_t here_stmt;         /* the op statement whose operands are checked */
    pto_loc here;              /* the statement being checked */
    int32_t ifdepth;
    /* PTO__T_WRITTEN is per path: the writes of an if's then-branch do not precede its else-branch
       (a tile declared in a loop is fresh each iteration, so nothing else brings them there). wlog
       lists the tiles whose bit went 0 -> 1 inside an if; ifmark holds two entries per open if:
       where its writes start in wlog, and where its else-branch's start (-1 before the else). */
    int32_t *wlog, n_wlog, cap_wlog;
    int32_t *ifmark, n_ifmark, cap_ifmark;
    int sections[2];           /* sections seen per core in this mix kernel */
    /* per statement (phase 0) */
    int32_t *endpos;           /* FOR: position of its last body stmt */
    /* per tile */
    uint8_t *tflags;
    int32_t *tdepth;           /* loop depth at the declaration */
    int32_t *wfirst, *wlast, *wcur;
    pto__vform *tvalid;        /* 2 per tile with a valid(...) clause: the valid rows and cols */
    /* tile writes, in program order, chained per tile */
    pto__vwrite *w;
    int32_t n_w, cap_w;
    /* per var */
    uint8_t *vlive, *vrange;   /* in scope; has a static range (loop vars) */
    int32_t *vifdepth;         /* loop vars: if depth at the loop */
    int64_t *vlo, *vhi;
    int64_t *vstart, *vstep;   /* loop vars: constant start and step (step 0: not constant, -1: zero-trip) */
    pto__vform *vform;         /* let vars: their value */
    /* per interned name */
    uint8_t *nkind;
    int32_t *nid, *kname;
    int32_t n_names;
    /* enclosing loops (FOR stmts), outermost first */
    int32_t *loops;
    int32_t nloops, cap_loops;
} pto__verifier;

/* ---- small helpers ---------------------------------------------------- */

static const char *pto__vname(const pto__verifier *v, int32_t id) { return pto_str(v->ctx, id); }

static void *pto__vcalloc(pto__verifier *v, size_t n, size_t size)
{
    void *p = pto_alloc(v->ctx, n * size + 1);
    if (!p) { v->internal = 1; pto__oom(v->ctx); return NULL; }
    memset(p, 0, n * size + 1);
    return p;
}

/* An array whose elements are all written before they are read (no
   zeroing: these are the two arrays of 64-byte affine forms). */
static void *pto__vuninit(pto__verifier *v, size_t n, size_t size)
{
    void *p = pto_alloc(v->ctx, n * size + 1);
    if (!p) { v->internal = 1; pto__oom(v->ctx); }
    return p;
}

static int pto__vdtype_float(int dt) { return dt == PTO_F32 || dt == PTO_F16 || dt == PTO_BF16; }

/* Where an expression starts: its leftmost token (a binary node's own loc
   is its operator), or the fallback when it has none. */
/* (A pointer, not a pto_loc by value: see pto__ps_tloc on tcc.) */
static const pto_loc *pto__vexpr_loc(const pto__verifier *v, int32_t e, const pto_loc *fallback)
{
    int depth = 0;
    while (e >= 0 && e < v->m->n_exprs && depth++ < PTO__VDEPTH) {
        const pto_expr *x = &v->m->exprs[e];
        if (x->kind < PTO_E_ADD || x->kind > PTO_E_MOD || x->a < 0 || x->a >= v->m->n_exprs)
            return x->loc.line > 0 ? &x->loc : fallback;
        e = x->a;
    }
    return fallback;
}

/* Checked 64-bit arithmetic: 0 on overflow. */
static int pto__vadd(int64_t a, int64_t b, int64_t *r)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 0;
    *r = a + b;
    return 1;
}

static int pto__vmul(int64_t a, int64_t b, int64_t *r)
{
    /* the common case: both fit in 32 bits, so the product cannot overflow
       (no division needed to check it) */
    if (a >= -INT32_MAX && a <= INT32_MAX && b >= -INT32_MAX && b <= INT32_MAX) { *r = a * b; return 1; }
    if (a == 0 || b == 0) { *r = 0; return 1; }
    if (a == -1) { if (b == INT64_MIN) return 0; *r = -b; return 1; }
    if (b == -1) { if (a == INT64_MIN) return 0; *r = -a; return 1; }
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : b < INT64_MAX / a)) return 0;
    *r = a * b;
    return 1;
}

/* ---- affine forms ---------------------------------------------------- */

static void pto__fconst(pto__vform *f, int64_t c) { f->ok = 1; f->n = 0; f->c = c; }
static void pto__fnone(pto__vform *f) { f->ok = 0; f->n = 0; f->c = 0; }

static void pto__fterm(pto__vform *f, int32_t var, int64_t k)
{
    int i;
    if (!f->ok || k == 0) return;
    for (i = 0; i < f->n; i++) {
        if (f->var[i] != var) continue;
        if (!pto__vadd(f->k[i], k, &f->k[i])) { pto__fnone(f); return; }
        if (f->k[i] == 0) {
            f->n--;
            f->var[i] = f->var[f->n];
            f->k[i] = f->k[f->n];
        }
        return;
    }
    if (f->n == PTO__VK) { pto__fnone(f); return; }
    f->var[f->n] = var;
    f->k[f->n++] = k;
}

/* f += sign * g */
static void pto__fadd(pto__vform *f, const pto__vform *g, int64_t sign)
{
    int64_t c;
    int i;
    if (!f->ok || !g->ok) { pto__fnone(f); return; }
    if (!pto__vmul(g->c, sign, &c) || !pto__vadd(f->c, c, &f->c)) { pto__fnone(f); return; }
    for (i = 0; i < g->n; i++) {
        int64_t k;
        if (!pto__vmul(g->k[i], sign, &k)) { pto__fnone(f); return; }
        pto__fterm(f, g->var[i], k);
    }
}

static void pto__fscale(pto__vform *f, int64_t s)
{
    int i;
    if (!f->ok) return;
    if (!pto__vmul(f->c, s, &f->c)) { pto__fnone(f); return; }
    for (i = 0; i < f->n; i++)
        if (!pto__vmul(f->k[i], s, &f->k[i])) { pto__fnone(f); return; }
    if (s == 0) f->n = 0;
}

static int pto__fisconst(const pto__vform *f) { return f->ok && f->n == 0; }

/* The static range of a var at the current statement: a loop var with
   constant bounds whose loop body is not under an `if` here (a branch inside
   the loop may skip some iterations), or `block` with a static block count
   and no enclosing `if`. */
static int pto__vvar_range(const pto__verifier *v, int32_t var, int64_t *lo, int64_t *hi)
{
    if (var == PTO__VBLOCK) {
        if (v->nblocks <= 0 || v->ifdepth > 0) return 0;
        *lo = 0;
        *hi = v->nblocks - 1;
        return 1;
    }
    if (var < 0 || var >= v->m->n_vars || !v->vrange[var] || !v->vlive[var]) return 0;
    if (v->ifdepth > v->vifdepth[var]) return 0;
    *lo = v->vlo[var];
    *hi = v->vhi[var];
    return 1;
}

/* The extremes x[i] <= y[i] of each term k[i] * var[i] of an affine form;
   0 when a var has no static range or a product overflows. */
static int pto__fterms(const pto__verifier *v, const pto__vform *f, int64_t *x, int64_t *y)
{
    int i;
    for (i = 0; i < f->n; i++) {
        int64_t a, b;
        if (!pto__vvar_range(v, f->var[i], &a, &b)) return 0;
        if (!pto__vmul(f->k[i], a, &x[i]) || !pto__vmul(f->k[i], b, &y[i])) return 0;
        if (x[i] > y[i]) { int64_t t = x[i]; x[i] = y[i]; y[i] = t; }
    }
    return 1;
}

/* c plus the terms' extremes, summed in term order; 0 on overflow. */
static int pto__fsum(int64_t c, int n, const int64_t *x, const int64_t *y, int64_t *lo, int64_t *hi)
{
    int i;
    *lo = *hi = c;
    for (i = 0; i < n; i++)
        if (!pto__vadd(*lo, x[i], lo) || !pto__vadd(*hi, y[i], hi)) return 0;
    return 1;
}

/* Exact extremes of an affine form (its vars are independent). */
static int pto__frange(const pto__verifier *v, const pto__vform *f, int64_t *lo, int64_t *hi)
{
    int64_t x[PTO__VK], y[PTO__VK];
    return f->ok && pto__fterms(v, f, x, y) && pto__fsum(f->c, f->n, x, y, lo, hi);
}

/* ---- expressions ------------------------------------------------------ */

static void pto__vexpr(pto__verifier *v, int32_t e, int where, pto__vform *out, int depth);

static void pto__vexpr_var(pto__verifier *v, const pto_expr *x, pto__vform *out)
{
    const pto_module *m = v->m;
    const pto_var *var;
    pto__fnone(out);
    if (x->a < 0 || x->a >= m->n_vars) { pto_error(v->ctx, x->loc, "expression names no variable"); return; }
    var = &m->vars[x->a];
    if (var->kernel != v->kernel ||
        ((var->kind == PTO_V_LET || var->kind == PTO_V_LOOP) && !v->vlive[x->a])) {
        pto_error(v->ctx, x->loc, "'%s' is not defined here", pto__vname(v, var->name));
        return;
    }
    if (var->kind == PTO_V_LET) { *out = v->vform[x->a]; return; }
    if (var->kind == PTO_V_LOOP) { pto__fconst(out, 0); pto__fterm(out, x->a, 1); return; }
    if (var->kind == PTO_V_SCALAR && var->def >= 0 && var->def < m->n_params) {
        int dt = m->params[var->def].dtype;
        if (!(dt == PTO_I32 || dt == PTO_I8))
            pto_error(v->ctx, x->loc, "scalar '%s' is %s; integer expressions need an integer scalar",
                      pto__vname(v, var->name), pto_dtype_name((pto_dtype)dt));
    }
}

static void pto__vexpr_builtin(pto__verifier *v, const pto_expr *x, int where, pto__vform *out)
{
    static const char *const names[] = {"block", "blocks", "subblock", "rank", "nranks"};
    const char *name = names[x->kind - PTO_E_BLOCK];
    pto__fnone(out);
    if ((x->kind == PTO_E_RANK || x->kind == PTO_E_NRANKS) && !v->m->kernels[v->kernel].ranks) {
        pto_error(v->ctx, x->loc, "'%s' is only defined in a ranks kernel", name);
        return;
    }
    if ((where & PTO__IN_BLOCKS) && x->kind != PTO_E_RANK && x->kind != PTO_E_NRANKS) {
        pto_error(v->ctx, x->loc, "'%s' cannot be used in blocks(...)", name);
        return;
    }
    if (x->kind == PTO_E_SUBBLOCK && v->core == PTO_CORE_CUBE)   /* a slip copied from a vector section */
        pto_warning(v->ctx, x->loc, "'subblock' is always 0 on the cube core (only the two vector cores of a "
                    "cluster have subblocks)");
    if (x->kind == PTO_E_BLOCK) { pto__fconst(out, 0); pto__fterm(out, PTO__VBLOCK, 1); }
    else if (x->kind == PTO_E_BLOCKS && v->nblocks > 0) pto__fconst(out, v->nblocks);
}

/* Folds div/mod/min/max of two constants (C semantics). */
static void pto__vfold(pto__verifier *v, const pto_expr *x, const pto__vform *a, const pto__vform *b,
                       pto__vform *out)
{
    int64_t p, q;
    pto__fnone(out);
    if ((x->kind == PTO_E_DIV || x->kind == PTO_E_MOD) && pto__fisconst(b) && b->c == 0) {
        pto_error(v->ctx, *pto__vexpr_loc(v, x->b, &x->loc), "%s by zero",
                  x->kind == PTO_E_DIV ? "division" : "modulo");
        return;
    }
    if (!pto__fisconst(a) || !pto__fisconst(b)) return;
    p = a->c;
    q = b->c;
    switch (x->kind) {
    case PTO_E_DIV: if (!(p == INT64_MIN && q == -1)) pto__fconst(out, p / q); break;
    case PTO_E_MOD: if (!(p == INT64_MIN && q == -1)) pto__fconst(out, p % q); break;
    case PTO_E_MIN: pto__fconst(out, p < q ? p : q); break;
    default: pto__fconst(out, p > q ? p : q); break;
    }
}

/* pto__vexpr where an integer literal is common (operands of a binary
   node, window coordinates): the literal is folded here, without the
   recursive call; what pto__vexpr would check first (a valid id, the
   depth) is checked the same way. */
static void pto__vexpr_sub(pto__verifier *v, int32_t e, int where, pto__vform *out, int depth)
{
    if (e >= 0 && e < v->m->n_exprs && depth <= PTO__VDEPTH && v->m->exprs[e].kind == PTO_E_INT)
        pto__fconst(out, v->m->exprs[e].value);
    else
        pto__vexpr(v, e, where, out, depth);
}

static void pto__vexpr_bin(pto__verifier *v, const pto_expr *x, int where, pto__vform *out, int depth)
{
    pto__vform a, b;
    if (x->kind == PTO_E_DIV || x->kind == PTO_E_MOD || x->kind == PTO_E_MIN || x->kind == PTO_E_MAX) {
        pto__vexpr_sub(v, x->a, where, &a, depth + 1);
        pto__vexpr_sub(v, x->b, where, &b, depth + 1);
        pto__vfold(v, x, &a, &b, out);
        return;
    }
    /* the left operand is folded straight into out (no form copies) */
    pto__vexpr_sub(v, x->a, where, out, depth + 1);
    if (x->kind == PTO_E_NEG) { pto__fscale(out, -1); return; }
    pto__vexpr_sub(v, x->b, where, &b, depth + 1);
    switch (x->kind) {
    case PTO_E_ADD: pto__fadd(out, &b, 1); break;
    case PTO_E_SUB: pto__fadd(out, &b, -1); break;
    default:   /* PTO_E_MUL */
        if (pto__fisconst(out)) { int64_t c = out->c; *out = b; pto__fscale(out, c); }
        else if (pto__fisconst(&b)) pto__fscale(out, b.c);
        else pto__fnone(out);
        break;
    }
}

/* Checks an integer expression (names in scope, builtins allowed here,
   integer scalars only, no static division by zero) and folds it. */
static void pto__vexpr(pto__verifier *v, int32_t e, int where, pto__vform *out, int depth)
{
    const pto_expr *x;
    pto__fnone(out);
    if (e < 0 || e >= v->m->n_exprs) { pto_error(v->ctx, v->here, "missing or malformed expression"); return; }
    x = &v->m->exprs[e];
    if (depth > PTO__VDEPTH) { pto_error(v->ctx, x->loc, "expression nested too deeply"); return; }
    switch (x->kind) {
    case PTO_E_INT: pto__fconst(out, x->value); break;
    case PTO_E_VAR: pto__vexpr_var(v, x, out); break;
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS:
        pto__vexpr_builtin(v, x, where, out);
        break;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD:
    case PTO_E_MIN: case PTO_E_MAX: case PTO_E_NEG:
        pto__vexpr_bin(v, x, where, out, depth);
        break;
    default: pto_error(v->ctx, x->loc, "malformed expression"); break;
    }
}

/* ---- names ------------------------------------------------------------ */

static const pto_loc *pto__vname_loc(const pto__verifier *v, int kind, int32_t id)
{
    switch (kind) {
    case PTO__N_PARAM: return &v->m->params[id].loc;
    case PTO__N_TILE: return &v->m->tiles[id].loc;
    default: return &v->m->vars[id].loc;
    }
}

static const char *pto__vbind_word(const pto__verifier *v, int kind, int32_t id)
{
    switch (kind) {
    case PTO__N_PARAM: return v->m->params[id].kind == PTO_P_SCALAR ? "scalar param" : "tensor";
    case PTO__N_TILE: return "tile";
    case PTO__N_DIM: return "dim";
    default: return v->m->vars[id].kind == PTO_V_LOOP ? "loop variable" : "let";
    }
}

/* Binds a name for its scope; shadowing any visible name is an error. */
static void pto__vbind(pto__verifier *v, int32_t name, int kind, int32_t id, pto_loc loc)
{
    if (name <= 0 || name >= v->n_names) return;
    if (v->nkind[name] != PTO__N_NONE) {
        const pto_loc *prev = pto__vname_loc(v, v->nkind[name], v->nid[name]);
        pto_error(v->ctx, loc, "'%s' shadows the %s declared at %d:%d (shadowing is not allowed)",
                  pto__vname(v, name), pto__vbind_word(v, v->nkind[name], v->nid[name]), (int)prev->line,
                  (int)prev->col);
        return;
    }
    v->nkind[name] = (uint8_t)kind;
    v->nid[name] = id;
}

static void pto__vunbind(pto__verifier *v, int32_t name, int kind, int32_t id)
{
    if (name > 0 && name < v->n_names && v->nkind[name] == kind && v->nid[name] == id)
        v->nkind[name] = PTO__N_NONE;
}

/* ---- tiles ------------------------------------------------------------ */

static int pto__vspace_core(int space) { return space == PTO_VEC ? PTO_CORE_VECTOR : PTO_CORE_CUBE; }

/* The tile's space must belong to the core that runs its statements. */
static void pto__vtile_core(pto__verifier *v, const pto_tile *t)
{
    const pto_kernel *k = &v->m->kernels[v->kernel];
    const char *sp, *kn;
    if (v->core < 0 || pto__vspace_core(t->space) == v->core) return;
    sp = pto_space_name((pto_space)t->space);
    kn = pto__vname(v, k->name);
    if (k->kind == PTO_KK_VECTOR)
        pto_error(v->ctx, t->loc, "vector kernel '%s' cannot use a%s '%s' tile (the vector core has only vec)", kn,
                  sp[0] == 'a' ? "n" : "", sp);
    else if (k->kind == PTO_KK_CUBE)
        pto_error(v->ctx, t->loc, "cube kernel '%s' cannot use a 'vec' tile (vec belongs to the vector core)", kn);
    else if (t->space == PTO_VEC)
        pto_error(v->ctx, t->loc, "'vec' tile '%s' in the cube section (vec belongs to the vector core)",
                  pto__vname(v, t->name));
    else
        pto_error(v->ctx, t->loc, "'%s' tile '%s' in the vector section (%s belongs to the cube core)", sp,
                  pto__vname(v, t->name), sp);
}

/* 32-byte rows in vec; a [R, 1] column vector is stored column-major. */
static void pto__vtile_align(pto__verifier *v, const pto_tile *t)
{
    int size = pto_dtype_size((pto_dtype)t->dtype);
    if (t->space != PTO_VEC) return;
    if (t->cols == 1 && t->rows > 1) {
        if ((int64_t)t->rows * size % 32 != 0)
            pto_error(v->ctx, t->loc, "column tile '%s' is %lld bytes (%d x %s); a [R, 1] vec tile needs a multiple of 32 bytes",
                      pto__vname(v, t->name), (long long)t->rows * size, (int)t->rows,
                      pto_dtype_name((pto_dtype)t->dtype));
    } else if ((int64_t)t->cols * size % 32 != 0) {
        /* the usual intent is a ragged width: say how to write it */
        int64_t up = ((int64_t)t->cols * size + 31) / 32 * 32 / size;
        char rows[24] = "...";
        if (t->valid_r < 0) snprintf(rows, sizeof rows, "%d", (int)t->rows);
        pto_error(v->ctx, t->loc,
                  "row of vec tile '%s' is %lld bytes (%d x %s); vec rows must be a multiple of 32 bytes (for a width "
                  "of %d, declare %s[%d, %lld] valid(%s, %d): loads and stores then move %d columns)",
                  pto__vname(v, t->name), (long long)t->cols * size, (int)t->cols, pto_dtype_name((pto_dtype)t->dtype),
                  (int)t->cols, pto_dtype_name((pto_dtype)t->dtype), (int)t->rows, (long long)up, rows, (int)t->cols,
                  (int)t->cols);
    }
}

/* The fractal a cube tile is built of, as pto-isa lays it out (the isa
   target's types; tests/isa/pto_isa_stub.hpp asserts "whole fractals"):
   512 bytes as 16 rows of 32 bytes in mat (NZ) and left, its transpose
   (32 bytes of rows x 16 cols) in right, 16 x 16 (1 KiB of f32) in acc
   whatever the dtype. 0 for the other spaces (vec has its 32-byte rows)
   and a malformed dtype (already reported at the tile). */
static int pto__vfractal(int space, int dtype, int *fr, int *fc)
{
    int size = pto_dtype_size((pto_dtype)dtype), w = size > 0 ? 32 / size : 0;
    if (w == 0) return 0;
    switch (space) {
    case PTO_MAT: case PTO_LEFT: *fr = 16; *fc = w; return 1;
    case PTO_RIGHT: *fr = w; *fc = 16; return 1;
    case PTO_ACC: *fr = *fc = 16; return 1;
    default: return 0;
    }
}

/* A cube tile's stored shape is whole fractals (its valid region need not
   be: the cube reads the valid rows and cols of whole fractals). */
static void pto__vtile_fractal(pto__verifier *v, const pto_tile *t)
{
    int fr, fc;
    const char *sp, *dt;
    if (!pto__vfractal(t->space, t->dtype, &fr, &fc) || (t->rows % fr == 0 && t->cols % fc == 0)) return;
    sp = pto_space_name((pto_space)t->space);
    dt = pto_dtype_name((pto_dtype)t->dtype);
    if (fr == fc)
        pto_error(v->ctx, t->loc, "%s tile '%s' is %s[%d, %d]: %s tiles are whole %d x %d fractals for %s, so rows and cols must be multiples of %d",
                  sp, pto__vname(v, t->name), dt, (int)t->rows, (int)t->cols, sp, fr, fc, dt, fr);
    else
        pto_error(v->ctx, t->loc, "%s tile '%s' is %s[%d, %d]: %s tiles are whole %d x %d fractals for %s, so rows must be a multiple of %d and cols of %d",
                  sp, pto__vname(v, t->name), dt, (int)t->rows, (int)t->cols, sp, fr, fc, dt, fr, fc);
}

static void pto__vtile_fit(pto__verifier *v, const pto_tile *t)
{
    int64_t cap = pto_space_capacity(v->m->arch, (pto_space)t->space);
    int64_t one, all, size = pto_dtype_size((pto_dtype)t->dtype);
    const char *tn, *sp, *an;
    /* rows and cols are positive int32s here: their product fits, but its
       bytes times the slots need not (f32[2147483647, 2147483647]); below
       2^56 elements it does (dtype size <= 8, nbuf <= 8), without the divisions */
    if ((int64_t)t->rows * t->cols >= (int64_t)1 << 56 &&
        (size <= 0 || (int64_t)t->rows * t->cols > INT64_MAX / size / t->nbuf)) {
        pto_error(v->ctx, t->loc, "tile '%s' is %s[%d, %d]%s, far more than the %lld bytes of '%s' on %s",
                  pto__vname(v, t->name), pto_dtype_name((pto_dtype)t->dtype), (int)t->rows, (int)t->cols,
                  t->nbuf > 1 ? " with slots" : "", (long long)cap, pto_space_name((pto_space)t->space),
                  pto_arch_name(v->m->arch));
        return;
    }
    one = pto_tile_bytes(t);
    all = one * t->nbuf;
    if (all <= cap && t->pin == PTO_NO_ADDR) return;   /* fits, not pinned: the names are not needed */
    tn = pto__vname(v, t->name);
    sp = pto_space_name((pto_space)t->space);
    an = pto_arch_name(v->m->arch);
    if (all > cap) {
        if (t->nbuf > 1)
            pto_error(v->ctx, t->loc, "tile '%s' needs %lld bytes (%d x %lld), more than the %lld bytes of '%s' on %s",
                      tn, (long long)all, (int)t->nbuf, (long long)one, (long long)cap, sp, an);
        else
            pto_error(v->ctx, t->loc, "tile '%s' needs %lld bytes, more than the %lld bytes of '%s' on %s",
                      tn, (long long)all, (long long)cap, sp, an);
        return;
    }
    if (t->pin == PTO_NO_ADDR) return;
    if (t->pin < 0)
        pto_error(v->ctx, t->loc, "pinned address %lld of tile '%s' is negative", (long long)t->pin, tn);
    else if (t->pin % 32 != 0)   /* addresses in hex, as `ptoc plan` and the printed .pto show them */
        pto_error(v->ctx, t->loc, "pinned address 0x%llx of tile '%s' is not 32-byte aligned", (long long)t->pin, tn);
    else if (t->pin > cap - all)
        pto_error(v->ctx, t->loc, "tile '%s' pinned at 0x%llx ends at 0x%llx, past the end of '%s' (0x%llx, %lld bytes on %s)",
                  tn, (long long)t->pin, (long long)(t->pin + all), sp, (long long)cap, (long long)cap, an);
}

/* The valid rows (d = 0) or cols (d = 1) of tile id as a form: its
   valid(...) clause, or its shape (built in *tmp: most tiles have no
   clause, so their two forms are never stored or touched). */
static const pto__vform *pto__vvalid(pto__verifier *v, int32_t id, int d, pto__vform *tmp)
{
    const pto_tile *t = &v->m->tiles[id];
    if (v->tflags[id] & PTO__T_VALID) return &v->tvalid[2 * id + d];
    pto__fconst(tmp, d ? t->cols : t->rows);
    return tmp;
}

static void pto__vtile_valid(pto__verifier *v, int32_t id, const pto_tile *t)
{
    int d;
    if (t->valid_r < 0 && t->valid_c < 0) return;
    v->tflags[id] |= PTO__T_VALID;
    for (d = 0; d < 2; d++) {
        int32_t e = d ? t->valid_c : t->valid_r;
        int32_t extent = d ? t->cols : t->rows;
        pto__vform *f = &v->tvalid[2 * id + d];
        int64_t lo, hi;
        const char *what = d ? "cols" : "rows";
        if (e < 0) { pto__fconst(f, extent); continue; }
        pto__vexpr(v, e, 0, f, 0);
        if (!pto__frange(v, f, &lo, &hi)) continue;
        if (lo < 0)
            pto_error(v->ctx, *pto__vexpr_loc(v, e, &t->loc), "valid %s of '%s' can be %lld, below 0",
                      what, pto__vname(v, t->name), (long long)lo);
        else if (hi > extent)
            pto_error(v->ctx, *pto__vexpr_loc(v, e, &t->loc), "valid %s of '%s' can be %lld, more than its %d %s",
                      what, pto__vname(v, t->name), (long long)hi, (int)extent, what);
    }
}

static void pto__vtile(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    const pto_tile *t;
    const char *tn;
    if (st->ref < 0 || st->ref >= v->m->n_tiles) { pto_error(v->ctx, st->loc, "tile statement names no tile"); return; }
    t = &v->m->tiles[st->ref];
    tn = pto__vname(v, t->name);
    pto__vbind(v, t->name, PTO__N_TILE, st->ref, t->loc);
    v->tflags[st->ref] |= PTO__T_SCOPE;
    v->tdepth[st->ref] = v->nloops;
    v->tflags[st->ref] &= (uint8_t)~PTO__T_VALID;   /* its shape until pto__vtile_valid reads the clause */
    if (t->space >= PTO_NSPACE) {   /* through the C API: say the value, not '?' */
        pto_error(v->ctx, t->loc, "tile '%s' has space %d, which is no pto_space", tn, (int)t->space);
        return;
    }
    if (t->space == PTO_GM) {
        pto_error(v->ctx, t->loc, "tile '%s' cannot live in '%s'", tn, pto_space_name((pto_space)t->space));
        return;
    }
    if (t->dtype == PTO_DT_NONE) { pto_error(v->ctx, t->loc, "tile '%s' needs a dtype", tn); return; }
    if (t->dtype >= PTO_NDTYPE) {
        pto_error(v->ctx, t->loc, "tile '%s' has dtype %d, which is no pto_dtype", tn, (int)t->dtype);
        return;
    }
    if (t->rows <= 0 || t->cols <= 0) {
        pto_error(v->ctx, t->loc, "tile '%s' must have a positive shape, got [%d, %d]", tn, (int)t->rows, (int)t->cols);
        return;
    }
    if (t->nbuf < 1)
        pto_error(v->ctx, t->loc, "tile '%s' needs at least one buffer, got x%d", tn, (int)t->nbuf);
    else if (t->nbuf > PTO_MAX_NBUF)
        pto_error(v->ctx, t->loc, "tile '%s' has x%d but at most x%d slots are allowed", tn, (int)t->nbuf, PTO_MAX_NBUF);
    else if (t->nbuf > 1 && v->nloops == 0)
        pto_error(v->ctx, t->loc, "tile '%s' is x%d outside any loop (its slots rotate per iteration)", tn, (int)t->nbuf);
    pto__vtile_core(v, t);
    pto__vtile_align(v, t);
    pto__vtile_fractal(v, t);
    if (t->nbuf >= 1 && t->nbuf <= PTO_MAX_NBUF) pto__vtile_fit(v, t);
    pto__vtile_valid(v, st->ref, t);
}

/* ---- operands --------------------------------------------------------- */

static const char *pto__vkind_name(int kind)
{
    switch (kind) {
    case PTO_O_TILE: return "a tile";
    case PTO_O_GM: return "a GM window";
    case PTO_O_FLOAT: return "a float literal";
    case PTO_O_SCALAR: return "a scalar";
    case PTO_O_INT: return "an integer";
    case PTO_O_PIPE: return "a pipe";
    case PTO_O_CVPIPE: return "a cube/vector pipe";
    case PTO_O_CMP: return "a comparison";
    case PTO_O_NMODE: return "a notify mode";
    default: return "a malformed operand";
    }
}

/* "vec", "vec or mat", "mat, acc or vec": the spaces of a mask, in a fixed order. */
static void pto__vspaces(uint32_t mask, char *buf, size_t size)
{
    static const int order[] = {PTO_VEC, PTO_MAT, PTO_LEFT, PTO_RIGHT, PTO_ACC, PTO_BIAS, PTO_SCALING};
    int i, n = 0, total = 0;
    size_t len = 0;
    buf[0] = 0;
    for (i = 0; i < 7; i++) total += (mask & PTO_A_SPACE(order[i])) != 0;
    for (i = 0; i < 7; i++) {
        if (!(mask & PTO_A_SPACE(order[i]))) continue;
        n++;
        len += (size_t)snprintf(buf + len, size - len, "%s%s", n == 1 ? "" : n == total ? " or " : ", ",
                                pto_space_name((pto_space)order[i]));
        if (len >= size) return;
    }
}

/* Is this operand kind one the mask allows? An integer that folds to a
   constant is accepted where a scalar goes (`tmuls d, a, 2`). */
static int pto__vkind_ok(pto__verifier *v, const pto_operand *o, uint32_t mask)
{
    switch (o->kind) {
    case PTO_O_TILE: return (mask & (PTO_A_TILES | PTO_A_SPACE(PTO_BIAS) | PTO_A_SPACE(PTO_SCALING))) != 0;
    case PTO_O_GM: return (mask & PTO_A_GM) != 0;
    case PTO_O_FLOAT: case PTO_O_SCALAR: return (mask & PTO_A_SCALAR) != 0;
    case PTO_O_INT:
        if (mask & PTO_A_INT) return 1;
        if (mask & PTO_A_SCALAR) {
            pto__vform f;
            int before = pto_error_count(v->ctx);
            pto__vexpr(v, o->e[0], 0, &f, 0);
            return pto_error_count(v->ctx) != before || pto__fisconst(&f);
        }
        return 0;
    case PTO_O_PIPE: return (mask & PTO_A_PIPE) != 0;
    case PTO_O_CVPIPE: return (mask & PTO_A_CVPIPE) != 0;
    case PTO_O_CMP: return (mask & PTO_A_CMP) != 0 && o->ref >= 0 && o->ref <= PTO_GE;
    case PTO_O_NMODE: return (mask & PTO_A_NMODE) != 0 && (o->ref == PTO_NOTIFY_SET || o->ref == PTO_NOTIFY_ADD);
    default: return 0;
    }
}

/* The first program-order write of tile t that can have happened before
   the statement at position p runs: one earlier in program order, or one
   later (or at p) in the outermost loop around p that the tile is declared
   outside of, which reaches p's next iteration. A write at p itself never
   precedes p's first run. */
static int pto__vcollect_kernel(pto__verifier *v);

static int pto__vwritten(pto__verifier *v, int32_t t, int32_t p)
{
    int32_t c, loop;
    if (v->tflags[t] & PTO__T_WRITTEN) return 1;   /* by a statement before p */
    if (v->tdepth[t] >= v->nloops) return 0;       /* no loop to bring a later write round */
    if (!v->collected && !pto__vcollect_kernel(v)) return 1;
    c = v->wcur[t];
    if (v->wfirst[t] >= 0 && v->w[v->wfirst[t]].pos < p) return 1;
    while (c >= 0 && v->w[c].pos <= p) c = v->w[c].next;
    v->wcur[t] = c;
    if (c < 0 || v->tdepth[t] >= v->nloops) return 0;
    loop = v->loops[v->tdepth[t]];
    return v->w[c].pos <= v->endpos[loop];
}

static void pto__vread_tile(pto__verifier *v, int32_t s, int32_t t, const pto_operand *o)
{
    const pto_stmt *st = &v->m->stmts[s];
    const char *hint;
    if (v->tflags[t] & PTO__T_UNINIT) return;
    if (pto__vwritten(v, t, v->here_pos)) return;
    v->tflags[t] |= PTO__T_UNINIT;
    /* a write earlier in program order that does not count: one in the other branch of an if */
    hint = (v->collected || pto__vcollect_kernel(v)) && v->wfirst[t] >= 0 && v->w[v->wfirst[t]].pos < v->here_pos
               ? (v->tdepth[t] > 0 ? " (the write in the other branch of an if does not reach here; a tile declared "
                                      "in a loop is fresh each iteration: declare it before the loop to carry it)"
                                    : " (the write in the other branch of an if does not reach here)")
               : "";
    if (st->op == PTO_OP_TMATMUL_ACC)
        pto_error(v->ctx, o->loc, "'%s' is accumulated into before anything writes it (start with tmatmul)%s",
                  pto__vname(v, v->m->tiles[t].name), hint);
    else
        pto_error(v->ctx, o->loc, "'%s' is read before anything writes it%s", pto__vname(v, v->m->tiles[t].name), hint);
}

/* A tile operand: in scope, in a space the op can use, written before read. */
static int pto__vtile_arg(pto__verifier *v, int32_t s, const pto_operand *o, uint32_t mask)
{
    const pto_tile *t;
    char allowed[96];
    if (o->ref < 0 || o->ref >= v->m->n_tiles) { pto_error(v->ctx, o->loc, "operand names no tile"); return 0; }
    t = &v->m->tiles[o->ref];
    if (t->kernel != v->kernel || !(v->tflags[o->ref] & PTO__T_SCOPE)) {
        pto_error(v->ctx, o->loc, "tile '%s' is not declared here", pto__vname(v, t->name));
        return 0;
    }
    if (t->space >= PTO_NSPACE || !(mask & PTO_A_SPACE(t->space))) {
        int w = (mask & PTO_A_WRITE) != 0, op = v->m->stmts[s].op;
        const char *how = "";
        pto__vspaces(mask, allowed, sizeof allowed);
        /* the cube's data path (GM -> mat -> left / right -> acc) is the
           usual thing missed: name the step */
        if (op == PTO_OP_TLOAD && (t->space == PTO_LEFT || t->space == PTO_RIGHT))
            how = "; load a mat tile, then tmov or textract it into this one";
        else if ((op == PTO_OP_TMATMUL || op == PTO_OP_TMATMUL_ACC) && !w && t->space == PTO_MAT)
            how = "; tmov or textract it into one first";
        pto_error(v->ctx, o->loc, "%s cannot %s a tile in '%s' (it %s %s%s)", pto_opinfo_get((pto_op)op)->name,
                  w ? "write" : "read", pto_space_name((pto_space)t->space), w ? "writes" : "reads", allowed, how);
        return 0;
    }
    if (mask & PTO_A_READ) pto__vread_tile(v, s, o->ref, o);
    return 1;
}

/* A GM window: a tensor, direction respected, a rank only on a window
   tensor of a ranks kernel. Bounds are checked with the op (they need the
   tile's shape). */
static int pto__vgm_arg(pto__verifier *v, const pto_operand *o, uint32_t mask)
{
    const pto_kernel *k = &v->m->kernels[v->kernel];
    const pto_param *p;
    const char *pn;
    pto__vform f;
    int ok = 1, d;
    if (o->ref < k->param0 || o->ref >= k->param0 + k->nparams) {
        pto_error(v->ctx, o->loc, "GM window names no parameter of this kernel");
        return 0;
    }
    p = &v->m->params[o->ref];
    pn = pto__vname(v, p->name);
    if (p->kind != PTO_P_TENSOR) { pto_error(v->ctx, o->loc, "'%s' is a scalar, not a tensor", pn); return 0; }
    if ((mask & PTO_A_WRITE) && p->dir == PTO_IN) {
        pto_error(v->ctx, o->loc, "cannot write '%s': it is an 'in' tensor", pn);
        ok = 0;
    }
    if ((mask & PTO_A_READ) && p->dir == PTO_OUT) {
        pto_error(v->ctx, o->loc, "cannot read '%s': it is an 'out' tensor (declare it inout to read it)", pn);
        ok = 0;
    }
    if (mask & PTO_A_WHOLE) {
        if (o->e[0] >= 0 || o->e[1] >= 0 || o->e[2] >= 0) {
            pto_error(v->ctx, o->loc, "%s takes the whole tensor: write '%s', not a window of it",
                      pto_opinfo_get((pto_op)v->m->stmts[v->here_stmt].op)->name, pn);
            return 0;
        }
        return ok;
    }
    for (d = 0; d < 2; d++) {
        if (o->e[d] < 0) { pto_error(v->ctx, o->loc, "window of '%s' needs a row and a column", pn); return 0; }
    }
    if (o->e[2] >= 0) {
        int64_t lo, hi;
        if (!k->ranks) {
            pto_error(v->ctx, o->loc, "'%s@...' needs a ranks kernel; '%s' is not declared 'ranks'", pn,
                      pto__vname(v, k->name));
            ok = 0;
        } else if (!p->window) {
            pto_error(v->ctx, o->loc, "'%s' is not a window tensor; declare it 'window' to address a peer's copy", pn);
            ok = 0;
        }
        pto__vexpr(v, o->e[2], 0, &f, 0);
        if (pto__frange(v, &f, &lo, &hi) && lo < 0)
            pto_error(v->ctx, *pto__vexpr_loc(v, o->e[2], &o->loc), "rank %lld of '%s' is negative", (long long)lo, pn);
    }
    return ok;
}

static int pto__vint_arg(pto__verifier *v, const pto_operand *o)
{
    pto__vform f;
    int before = pto_error_count(v->ctx);
    pto__vexpr(v, o->e[0], 0, &f, 0);
    return pto_error_count(v->ctx) == before;
}

static int pto__vpipe_arg(pto__verifier *v, const pto_operand *o)
{
    static const char *const core_names[] = {"vector", "cube"};
    int p = o->ref;
    int vector_ok = p == PTO_PIPE_S || p == PTO_PIPE_V || p == PTO_PIPE_MTE2 || p == PTO_PIPE_MTE3 || p == PTO_PIPE_ALL;
    int cube_ok = p != PTO_PIPE_V;
    if (p < 0 || p >= PTO_NPIPE) { pto_error(v->ctx, o->loc, "pipe %d is no pto_pipe", p); return 0; }
    if (v->core >= 0 && !(v->core == PTO_CORE_VECTOR ? vector_ok : cube_ok)) {
        pto_error(v->ctx, o->loc, "pipe '%s' does not exist on the %s core", pto_pipe_name((pto_pipe)p),
                  core_names[v->core]);
        return 0;
    }
    return 1;
}

static int pto__varg(pto__verifier *v, int32_t s, int i, const pto_operand *o, uint32_t mask)
{
    const char *opname;   /* the op's name, looked up for a message only */
    char want[96];
    if (!pto__vkind_ok(v, o, mask)) {
        int op = v->m->stmts[s].op, scalar = o->kind == PTO_O_FLOAT || o->kind == PTO_O_SCALAR || o->kind == PTO_O_INT;
        char other[48];
        other[0] = 0;
        /* the binary op and its scalar form, swapped: name the other one */
        if (i == 2 && scalar && op >= PTO_OP_TADD && op <= PTO_OP_TMIN)
            snprintf(other, sizeof other, " (%s takes a scalar)", pto_opinfo_get((pto_op)(op + PTO_OP_TADDS - PTO_OP_TADD))->name);
        else if (i == 2 && o->kind == PTO_O_TILE && op >= PTO_OP_TADDS && op <= PTO_OP_TMINS)
            snprintf(other, sizeof other, " (%s takes a tile)", pto_opinfo_get((pto_op)(op - PTO_OP_TADDS + PTO_OP_TADD))->name);
        pto__arg_expected(mask, want, sizeof want);
        opname = pto_opinfo_get((pto_op)op)->name;
        pto_error(v->ctx, o->loc, "operand %d of %s must be %s, got %s%s", i + 1, opname, want,
                  pto__vkind_name(o->kind), other);
        return 0;
    }
    switch (o->kind) {
    case PTO_O_TILE: return pto__vtile_arg(v, s, o, mask);
    case PTO_O_GM: return pto__vgm_arg(v, o, mask);
    case PTO_O_SCALAR:
        if (o->ref < 0 || o->ref >= v->m->n_vars || v->m->vars[o->ref].kind != PTO_V_SCALAR ||
            v->m->vars[o->ref].kernel != v->kernel) {
            opname = pto_opinfo_get((pto_op)v->m->stmts[s].op)->name;
            pto_error(v->ctx, o->loc, "operand %d of %s names no scalar parameter", i + 1, opname);
            return 0;
        }
        return 1;
    case PTO_O_FLOAT:
        /* the value is rounded to f32 where it is used: a finite literal
           that rounds to inf there (1e39, 1e400 reads as inf already) is
           almost surely a typo. 2^128 - 2^103, half-way past FLT_MAX, is
           the least magnitude that rounds to inf (ties to even). */
        if (o->f - o->f == 0.0 && (o->f >= 340282356779733661637539395458142568448.0 ||
                                   o->f <= -340282356779733661637539395458142568448.0))
            pto_warning(v->ctx, o->loc, "float %g rounds to %sinf in f32 (write %sinf if that is meant)", o->f,
                        o->f < 0 ? "-" : "", o->f < 0 ? "-" : "");
        return 1;
    case PTO_O_INT: return (mask & PTO_A_INT) ? pto__vint_arg(v, o) : 1;
    case PTO_O_PIPE: return pto__vpipe_arg(v, o);
    case PTO_O_CVPIPE:
        if (o->ref < 0 || o->ref >= v->m->n_cvpipes || v->m->cvpipes[o->ref].kernel != v->kernel) {
            opname = pto_opinfo_get((pto_op)v->m->stmts[s].op)->name;
            pto_error(v->ctx, o->loc, "operand %d of %s names no cube/vector pipe", i + 1, opname);
            return 0;
        }
        return 1;
    default: return 1;
    }
}

/* ---- op classes -------------------------------------------------------- */

typedef struct pto__vop {
    int32_t s;
    const pto_operand *o[4];
    const pto_tile *t[4];      /* tile operands, NULL otherwise */
} pto__vop;

static const char *pto__vtn(const pto__verifier *v, const pto_tile *t) { return pto__vname(v, t->name); }

static int pto__vsame_dtype(pto__verifier *v, const pto__vop *op, int a, int b)
{
    const pto_tile *x = op->t[a], *y = op->t[b];
    if (x->dtype == y->dtype) return 1;
    pto_error(v->ctx, op->o[b]->loc, "dtype mismatch: '%s' is %s but '%s' is %s", pto__vtn(v, x),
              pto_dtype_name((pto_dtype)x->dtype), pto__vtn(v, y), pto_dtype_name((pto_dtype)y->dtype));
    return 0;
}

static int pto__vsame_shape(pto__verifier *v, const pto__vop *op, int a, int b)
{
    const pto_tile *x = op->t[a], *y = op->t[b];
    int o = v->m->stmts[op->s].op;
    char hint[96] = "";
    if (x->rows == y->rows && x->cols == y->cols) return 1;
    /* tadd .. tdiv with a row or column vector is usually meant as the
       broadcast (its vector is the last operand, so only add and mul may
       have it first) */
    if (o >= PTO_OP_TADD && o <= PTO_OP_TDIV && (b == 2 || o == PTO_OP_TADD || o == PTO_OP_TMUL)) {
        int per_row = y->cols == 1 && y->rows == x->rows && x->cols > 1;
        int per_col = y->rows == 1 && y->cols == x->cols && x->rows > 1;
        if (per_row || per_col)
            snprintf(hint, sizeof hint, " (one value per %s: that is %s)", per_row ? "row" : "column",
                     pto_opinfo_get((pto_op)(o - PTO_OP_TADD + (per_row ? PTO_OP_TROWEXPANDADD : PTO_OP_TCOLEXPANDADD)))->name);
    }
    pto_error(v->ctx, op->o[b]->loc, "shape mismatch: '%s' is [%d, %d] but '%s' is [%d, %d]%s", pto__vtn(v, x),
              (int)x->rows, (int)x->cols, pto__vtn(v, y), (int)y->rows, (int)y->cols, hint);
    return 0;
}

/* The op of the other direction: trowsum <-> tcolsum, trowexpandmul <->
   tcolexpandmul, ...; PTO_NOP for the others. */
static pto_op pto__vtwin(int op)
{
    if (op >= PTO_OP_TROWSUM && op <= PTO_OP_TROWMIN) return (pto_op)(op - PTO_OP_TROWSUM + PTO_OP_TCOLSUM);
    if (op >= PTO_OP_TCOLSUM && op <= PTO_OP_TCOLMIN) return (pto_op)(op - PTO_OP_TCOLSUM + PTO_OP_TROWSUM);
    if (op >= PTO_OP_TROWEXPANDADD && op <= PTO_OP_TROWEXPANDDIV)
        return (pto_op)(op - PTO_OP_TROWEXPANDADD + PTO_OP_TCOLEXPANDADD);
    if (op >= PTO_OP_TCOLEXPANDADD && op <= PTO_OP_TCOLEXPANDDIV)
        return (pto_op)(op - PTO_OP_TCOLEXPANDADD + PTO_OP_TROWEXPANDADD);
    return PTO_NOP;
}

/* x is not the vector the op wants; when it is the other direction's
   vector ([1, C] for a row op, [R, 1] for a column op), the message names
   the op that takes it. */
static void pto__vvector_error(pto__verifier *v, const pto__vop *op, int d, int of, int percol)
{
    const pto_tile *x = op->t[d], *a = op->t[of];
    const char *tn = pto__vtn(v, x), *an = pto__vtn(v, a);
    int twin = percol ? x->rows == a->rows && x->cols == 1 : x->rows == 1 && x->cols == a->cols;
    char hint[96] = "";
    int o = v->m->stmts[op->s].op;
    int reduction = (o >= PTO_OP_TROWSUM && o <= PTO_OP_TROWMIN) || (o >= PTO_OP_TCOLSUM && o <= PTO_OP_TCOLMIN);
    if (twin && pto__vtwin(o) != PTO_NOP)
        snprintf(hint, sizeof hint, " (one value per %s: that is %s)", percol ? "row" : "column",
                 pto_opinfo_get(pto__vtwin(o))->name);
    else if (reduction && d == 0 && of == 1 &&
             (percol ? a->rows == 1 && a->cols == x->cols : a->cols == 1 && a->rows == x->rows))
        /* `trowsum a, s`: the source is the vector the result should be */
        snprintf(hint, sizeof hint, " (the operands look swapped: %s %s, %s)", pto_opinfo_get((pto_op)o)->name, an, tn);
    if (percol)
        pto_error(v->ctx, op->o[d]->loc, "'%s' must be [1, %d] (one value per column of '%s'), got [%d, %d]%s", tn,
                  (int)a->cols, an, (int)x->rows, (int)x->cols, hint);
    else
        pto_error(v->ctx, op->o[d]->loc, "'%s' must be [%d, 1] (one value per row of '%s'), got [%d, %d]%s", tn,
                  (int)a->rows, an, (int)x->rows, (int)x->cols, hint);
}

/* d is [R, 1] where R is the row count of the tile `of`. */
static void pto__vcolumn(pto__verifier *v, const pto__vop *op, int d, int of)
{
    const pto_tile *x = op->t[d], *a = op->t[of];
    if (x->rows == a->rows && x->cols == 1) return;
    pto__vvector_error(v, op, d, of, 0);
}

/* d is [1, C] where C is the column count of the tile `of`. */
static int pto__vrowvec(pto__verifier *v, const pto__vop *op, int d, int of)
{
    const pto_tile *x = op->t[d], *a = op->t[of];
    if (x->rows == 1 && x->cols == a->cols) return 1;
    pto__vvector_error(v, op, d, of, 1);
    return 0;
}

/* The valid columns of the column ops, where they are known statically
   (the difference of the two affine forms has a static range):
   - tcolsum / tcolmax / tcolmin d, a: d's valid cols equal a's: each valid
     column of a is reduced into the same column of d (pto-isa's TCOL*
     assert src.GetValidCol() == dst.GetValidCol());
   - tcolexpand* d, a, v: v's valid cols cover d's: every valid column c of
     d reads v[0, c]. */
static void pto__vcolvalid(pto__verifier *v, const pto__vop *op)
{
    int cls = pto_opinfo_get((pto_op)v->m->stmts[op->s].op)->cls;
    const char *name = pto_opinfo_get((pto_op)v->m->stmts[op->s].op)->name;
    int x = cls == PTO_OC_COLRED ? 0 : 2, y = cls == PTO_OC_COLRED ? 1 : 0;   /* x - y is checked */
    pto__vform fx, fy, diff;
    const pto__vform *px = pto__vvalid(v, op->o[x]->ref, 1, &fx), *py = pto__vvalid(v, op->o[y]->ref, 1, &fy);
    const char *xn = pto__vtn(v, op->t[x]), *yn = pto__vtn(v, op->t[y]);
    int64_t lo, hi;
    diff = *px;
    pto__fadd(&diff, py, -1);
    if (!pto__frange(v, &diff, &lo, &hi)) return;
    if (cls == PTO_OC_COLRED) {
        if (lo == 0 && hi == 0) return;
        if (pto__fisconst(px) && pto__fisconst(py))
            pto_error(v->ctx, op->o[x]->loc, "'%s' has %lld valid cols but '%s' has %lld; %s reduces each valid column "
                      "of '%s' into the same column of '%s', so they must be equal", xn, (long long)px->c, yn,
                      (long long)py->c, name, yn, xn);
        else
            pto_error(v->ctx, op->o[x]->loc, "the valid cols of '%s' and '%s' can differ ('%s' minus '%s' is %lld to "
                      "%lld); %s reduces each valid column of '%s' into the same column of '%s', so they must be "
                      "equal", xn, yn, xn, yn, (long long)lo, (long long)hi, name, yn, xn);
        return;
    }
    if (lo >= 0) return;
    if (pto__fisconst(px) && pto__fisconst(py))
        pto_error(v->ctx, op->o[x]->loc, "'%s' has %lld valid cols but '%s' has %lld; %s reads %s[0, c] for every "
                  "valid column c of '%s'", xn, (long long)px->c, yn, (long long)py->c, name, xn, yn);
    else
        pto_error(v->ctx, op->o[x]->loc, "the valid cols of '%s' can be %lld fewer than those of '%s'; %s reads "
                  "%s[0, c] for every valid column c of '%s'", xn, (long long)-lo, yn, name, xn, yn);
}

static void pto__vfloat_only(pto__verifier *v, const pto__vop *op)
{
    int o = v->m->stmts[op->s].op;
    if (o != PTO_OP_TEXP && o != PTO_OP_TLOG && o != PTO_OP_TSQRT && o != PTO_OP_TRSQRT && o != PTO_OP_TRECIP) return;
    if (!pto__vdtype_float(op->t[1]->dtype))
        pto_error(v->ctx, op->o[1]->loc, "%s needs a float tile, but '%s' is %s", pto_opinfo_get((pto_op)o)->name,
                  pto__vtn(v, op->t[1]), pto_dtype_name((pto_dtype)op->t[1]->dtype));
}

/* One dimension of a window [start, start + extent) against [0, limit)
   (limit < 0: unknown), exact at the extremes of affine forms; `what` is
   "row" or "col". Errors point at expression e (its leftmost token, else
   `at`), found only then. */
static void pto__vwindow_dim(pto__verifier *v, const pto__vform *start, const pto__vform *extent,
                             int64_t limit, const char *prefix, const char *what, const char *name, int32_t e,
                             pto_loc at)
{
    pto__vform end;
    int64_t lo, hi, c, x[PTO__VK], y[PTO__VK];
    if (!start->ok || !pto__fterms(v, start, x, y) || !pto__fsum(start->c, start->n, x, y, &lo, &hi)) return;
    if (lo < 0) {
        pto_error(v->ctx, *pto__vexpr_loc(v, e, &at), "%s of '%s' starts at %s %lld, out of bounds", prefix, name, what,
                  (long long)lo);
        return;
    }
    if (limit < 0) return;
    if (pto__fisconst(extent)) {
        /* start + a constant has start's terms: only the constant moves,
           so the terms' extremes are reused (what frange of the sum gives) */
        if (!pto__vadd(start->c, extent->c, &c) || !pto__fsum(c, start->n, x, y, &lo, &hi) || hi <= limit) return;
    } else {
        end = *start;
        pto__fadd(&end, extent, 1);
        if (!pto__frange(v, &end, &lo, &hi) || hi <= limit) return;
    }
    pto_error(v->ctx, *pto__vexpr_loc(v, e, &at), "%s of '%s' ends at %s %lld, out of bounds ('%s' has %lld %ss)", prefix, name, what,
              (long long)(hi - 1), name, (long long)limit, what);
}

/* tload / tstore: same dtype as the tensor, except that a tstore from an f32
   acc tile may narrow to an f16 / bf16 tensor (the fixpipe's F322F16 /
   F322BF16 cast, as pto-isa's TSTORE picks for an Acc tile and a half /
   bfloat16_t GlobalTensor; an i32 acc has no such cast without quant
   parameters); the window (the tile's valid region) inside the tensor when
   that is known statically. */
static void pto__vgm_op(pto__verifier *v, const pto__vop *op, int g, int t)
{
    const pto_operand *o = op->o[g];
    const pto_param *p = &v->m->params[o->ref];
    const pto_tile *x = op->t[t];
    int32_t tid = op->o[t]->ref;
    const char *pn = pto__vname(v, p->name);
    pto__vform r, c, vr, vc;
    int narrow = !g && x->space == PTO_ACC && x->dtype == PTO_F32 && (p->dtype == PTO_F16 || p->dtype == PTO_BF16);
    if (p->dtype != x->dtype && !narrow) {
        const char *tn = pto__vtn(v, x);
        const char *pd = pto_dtype_name((pto_dtype)p->dtype), *td = pto_dtype_name((pto_dtype)x->dtype);
        pto_error(v->ctx, op->o[1]->loc, "dtype mismatch: '%s' is %s but '%s' is %s", g ? tn : pn, g ? td : pd,
                  g ? pn : tn, g ? pd : td);
    }
    pto__vexpr_sub(v, o->e[0], 0, &r, 0);
    pto__vexpr_sub(v, o->e[1], 0, &c, 0);
    pto__vwindow_dim(v, &r, pto__vvalid(v, tid, 0, &vr), p->dim[0], "window", "row", pn, o->e[0], o->loc);
    pto__vwindow_dim(v, &c, pto__vvalid(v, tid, 1, &vc), p->dim[1], "window", "col", pn, o->e[1], o->loc);
}

/* tmov: mat -> left/right (MTE1), acc -> vec/mat (FIX, may narrow f32 to
   f16/bf16), vec -> vec (V). Same shape. */
static void pto__vmov(pto__verifier *v, const pto__vop *op)
{
    int d = op->t[0]->space, a = op->t[1]->space;
    int ok = (a == PTO_MAT && (d == PTO_LEFT || d == PTO_RIGHT)) || (a == PTO_ACC && (d == PTO_VEC || d == PTO_MAT)) ||
             (a == PTO_VEC && d == PTO_VEC);
    if (!ok) {
        pto_error(v->ctx, op->o[0]->loc, "tmov cannot move '%s' to '%s' (it moves mat to left/right, acc to vec/mat, vec to vec)",
                  pto_space_name((pto_space)a), pto_space_name((pto_space)d));
        return;
    }
    pto__vsame_shape(v, op, 0, 1);
    if (a == PTO_ACC && op->t[1]->dtype == PTO_F32 && (op->t[0]->dtype == PTO_F16 || op->t[0]->dtype == PTO_BF16))
        return;
    pto__vsame_dtype(v, op, 0, 1);
}

/* The values a var of an affine form takes: first, first + step, ...;
   more = 0 when it takes one value at most. 0: not known statically, as
   under an `if` inside its loop (a guard may skip the bad values, as for
   pto__vvar_range); -1: it takes none (a zero-trip loop). */
static int pto__vvar_steps(const pto__verifier *v, int32_t var, int64_t *first, int64_t *step, int *more)
{
    if (var == PTO__VBLOCK) {   /* 0, 1, .. blocks - 1 */
        if (v->ifdepth > 0) return 0;
        *first = 0;
        *step = 1;
        *more = v->nblocks != 1;
        return 1;
    }
    if (var < 0 || var >= v->m->n_vars || !v->vlive[var]) return 0;
    if (v->vstep[var] < 0) return -1;
    if (v->vstep[var] == 0 || v->ifdepth > v->vifdepth[var]) return 0;
    *first = v->vstart[var];
    *step = v->vstep[var];
    *more = !(v->vrange[var] && v->vlo[var] == v->vhi[var]);
    return 1;
}

static int64_t pto__vmod(int64_t x, int64_t m) { return (x % m + m) % m; }

/* Whether affine form f can be a value that is not a multiple of m, and
   one such value in *bad (exact = 0 when some var's first value is not
   known). With every var at its first value f is f0; a var that takes
   more values moves f by k * step each time; so f is always a multiple of
   m iff f0 is and every such move is. A term whose var is not known
   statically is fine only when k is a multiple of m: otherwise nothing is
   said (no false alarm). */
static int pto__vmisaligned(const pto__verifier *v, const pto__vform *f, int64_t m, int64_t *bad, int *exact)
{
    int64_t val = f->c, res = pto__vmod(f->c, m), move = 0;
    int i;
    *exact = 1;
    if (!f->ok) return 0;
    for (i = 0; i < f->n; i++) {
        int64_t first, step, kf, ks;
        int more, known = pto__vvar_steps(v, f->var[i], &first, &step, &more);
        if (known < 0) return 0;   /* in a zero-trip loop: never a value at all */
        if (!known && f->k[i] % m != 0) return 0;
        if (!known) { *exact = 0; continue; }
        if (!pto__vmul(f->k[i], first, &kf) || !pto__vadd(val, kf, &val)) return 0;
        res = pto__vmod(res + pto__vmod(kf, m), m);
        if (!more || move != 0) continue;
        if (!pto__vmul(f->k[i], step, &ks)) return 0;
        if (ks % m != 0) move = ks;
    }
    if (res == 0 && move == 0) return 0;
    *bad = val;
    if (res == 0 && !pto__vadd(val, move, bad)) *exact = 0;
    return 1;
}

/* A textract offset into mat tile a (d = 0: row, 1: col) is whole
   fractals of a: TEXTRACT copies whole fractals out of the NZ layout. */
static void pto__vextract_align(pto__verifier *v, const pto_tile *a, const pto__vform *f, int d, const pto_operand *o)
{
    int fr, fc, exact;
    int64_t m, bad;
    const char *what = d ? "col" : "row", *dt, *an;
    pto_loc at;
    if (!pto__vfractal(a->space, a->dtype, &fr, &fc)) return;
    m = d ? fc : fr;
    if (!pto__vmisaligned(v, f, m, &bad, &exact)) return;
    dt = pto_dtype_name((pto_dtype)a->dtype);
    an = pto__vtn(v, a);
    at = *pto__vexpr_loc(v, o->e[0], &o->loc);
    if (pto__fisconst(f))
        pto_error(v->ctx, at, "textract %s offset %lld into '%s' is not a multiple of %d: offsets into a mat tile are whole %d x %d fractals for %s",
                  what, (long long)bad, an, (int)m, fr, fc, dt);
    else if (exact)
        pto_error(v->ctx, at, "textract %s offset into '%s' can be %lld, not a multiple of %d: offsets into a mat tile are whole %d x %d fractals for %s",
                  what, an, (long long)bad, (int)m, fr, fc, dt);
    else
        pto_error(v->ctx, at, "textract %s offset into '%s' is not always a multiple of %d: offsets into a mat tile are whole %d x %d fractals for %s",
                  what, an, (int)m, fr, fc, dt);
}

/* textract d, a, r, c: the [d.rows, d.cols] window of a at (r, c) lies in
   a and starts on a fractal of a. */
static void pto__vextract(pto__verifier *v, const pto__vop *op)
{
    const pto_tile *d = op->t[0], *a = op->t[1];
    pto__vform r, c, er, ec;
    pto__vsame_dtype(v, op, 0, 1);
    pto__vexpr(v, op->o[2]->e[0], 0, &r, 0);
    pto__vexpr(v, op->o[3]->e[0], 0, &c, 0);
    pto__fconst(&er, d->rows);
    pto__fconst(&ec, d->cols);
    pto__vwindow_dim(v, &r, &er, a->rows, "textract window", "row", pto__vtn(v, a),
                     op->o[2]->e[0], op->o[2]->loc);
    pto__vwindow_dim(v, &c, &ec, a->cols, "textract window", "col", pto__vtn(v, a),
                     op->o[3]->e[0], op->o[3]->loc);
    pto__vextract_align(v, a, &r, 0, op->o[2]);
    pto__vextract_align(v, a, &c, 1, op->o[3]);
}

/* c = a x b: [M, K] x [K, N] -> [M, N]; f16/bf16 -> f32, f32 -> f32, i8 -> i32. */
static void pto__vmatmul(pto__verifier *v, const pto__vop *op)
{
    const pto_tile *c = op->t[0], *a = op->t[1], *b = op->t[2];
    const char *name = pto_opinfo_get((pto_op)v->m->stmts[op->s].op)->name;
    int want;
    if (pto__vsame_dtype(v, op, 1, 2)) {
        if (a->dtype == PTO_I8) want = PTO_I32;
        else if (pto__vdtype_float(a->dtype)) want = PTO_F32;
        else {
            pto_error(v->ctx, op->o[1]->loc, "%s cannot multiply %s tiles (it takes f16, bf16, f32 or i8)", name,
                      pto_dtype_name((pto_dtype)a->dtype));
            want = -1;
        }
        if (want >= 0 && c->dtype != want)
            pto_error(v->ctx, op->o[0]->loc, "'%s' must be %s to accumulate %s products, got %s", pto__vtn(v, c),
                      pto_dtype_name((pto_dtype)want), pto_dtype_name((pto_dtype)a->dtype),
                      pto_dtype_name((pto_dtype)c->dtype));
    }
    if (a->cols != b->rows) {
        pto_error(v->ctx, op->o[2]->loc, "matmul inner dims differ: '%s' is [%d, %d] but '%s' is [%d, %d]",
                  pto__vtn(v, a), (int)a->rows, (int)a->cols, pto__vtn(v, b), (int)b->rows, (int)b->cols);
        return;
    }
    if (c->rows != a->rows || c->cols != b->cols)
        pto_error(v->ctx, op->o[0]->loc, "'%s' must be [%d, %d] for [%d, %d] x [%d, %d], got [%d, %d]", pto__vtn(v, c),
                  (int)a->rows, (int)b->cols, (int)a->rows, (int)a->cols, (int)b->rows, (int)b->cols, (int)c->rows,
                  (int)c->cols);
}

/* set_flag / wait_flag: two different real pipes, an event id in 0..7. */
static void pto__vsync(pto__verifier *v, const pto__vop *op)
{
    const pto_stmt *st = &v->m->stmts[op->s];
    const char *name = pto_opinfo_get((pto_op)st->op)->name;
    pto__vform f;
    int64_t lo, hi;
    if (st->op == PTO_OP_PIPE_BARRIER) return;
    if (op->o[0]->ref == PTO_PIPE_ALL || op->o[1]->ref == PTO_PIPE_ALL) {
        pto_error(v->ctx, op->o[op->o[0]->ref == PTO_PIPE_ALL ? 0 : 1]->loc,
                  "%s cannot name pipe 'ALL' (use pipe_barrier ALL)", name);
    } else if (op->o[0]->ref == op->o[1]->ref) {
        pto_error(v->ctx, op->o[1]->loc, "%s needs two different pipes, got '%s' twice", name,
                  pto_pipe_name((pto_pipe)op->o[0]->ref));
    }
    pto__vexpr(v, op->o[2]->e[0], 0, &f, 0);
    if (pto__frange(v, &f, &lo, &hi) && (lo < 0 || hi > 7))
        pto_error(v->ctx, *pto__vexpr_loc(v, op->o[2]->e[0], &op->o[2]->loc), "event id %lld is out of range 0..7",
                  (long long)(lo < 0 ? lo : hi));
    else if (op->o[0]->ref == PTO_PIPE_M && op->o[1]->ref == PTO_PIPE_FIX && pto__frange(v, &f, &lo, &hi) && hi > 2)
        /* a warning: the ISA allows it, the simulator refuses it (a hang on a device) */
        pto_warning(v->ctx, *pto__vexpr_loc(v, op->o[2]->e[0], &op->o[2]->loc),
                    "%s M, FIX with event id %lld: ids 3..7 of the M -> FIX pair deadlocked on a device (hardware.md "
                    "section 4); use 0..2 (the simulator reports the others)", name, (long long)hi);
}

/* ---- cube <-> vector pipes -------------------------------------------------- */

static const char *pto__vdir_word(int d) { return d == PTO_C2V ? "c2v" : d == PTO_V2C ? "v2c" : "both"; }

/* The value of integer expression e on AIV 1 (subblock = 1) when it
   depends on nothing but subblock and constants (through lets too);
   0 when it depends on anything else or does not fold. */
static int pto__vat_aiv1(const pto__verifier *v, int32_t e, int64_t *out, int depth)
{
    const pto_module *m = v->m;
    const pto_expr *x;
    int64_t a, b;
    if (e < 0 || e >= m->n_exprs || depth > PTO__VDEPTH) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: *out = x->value; return 1;
    case PTO_E_SUBBLOCK: *out = 1; return 1;
    case PTO_E_VAR: {
        const pto_var *var = x->a >= 0 && x->a < m->n_vars ? &m->vars[x->a] : NULL;
        if (!var || var->kind != PTO_V_LET || var->def < 0 || var->def >= m->n_stmts) return 0;
        return pto__vat_aiv1(v, m->stmts[var->def].e[0], out, depth + 1);
    }
    case PTO_E_NEG:
        if (!pto__vat_aiv1(v, x->a, &a, depth + 1) || a == INT64_MIN) return 0;
        *out = -a;
        return 1;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD: case PTO_E_MIN: case PTO_E_MAX:
        if (!pto__vat_aiv1(v, x->a, &a, depth + 1) || !pto__vat_aiv1(v, x->b, &b, depth + 1)) return 0;
        switch (x->kind) {
        case PTO_E_ADD: return pto__vadd(a, b, out);
        case PTO_E_SUB: return b != INT64_MIN && pto__vadd(a, -b, out);
        case PTO_E_MUL: return pto__vmul(a, b, out);
        case PTO_E_MIN: *out = a < b ? a : b; return 1;
        case PTO_E_MAX: *out = a > b ? a : b; return 1;
        default:
            if (b == 0 || (a == INT64_MIN && b == -1)) return 0;
            *out = x->kind == PTO_E_DIV ? a / b : a % b;
            return 1;
        }
    default: return 0;
    }
}

/* Whether AIV 1 never runs the statements of `block`: an enclosing `if` of
   the section takes the branch that holds them only when subblock is not 1,
   judged by evaluating its condition at subblock = 1 (a condition that
   depends on anything else is no guard: it lets both AIVs in alike). */
static int pto__vaiv1_skips(const pto__verifier *v, int32_t block)
{
    const pto_module *m = v->m;
    int32_t steps = 0;
    while (block >= 0 && block < m->n_blocks && steps++ <= m->n_blocks) {
        int32_t owner = m->blocks[block].owner;
        const pto_stmt *ow;
        int64_t a, b;
        if (owner < 0 || owner >= m->n_stmts) return 0;
        ow = &m->stmts[owner];
        if (ow->kind == PTO_ST_SECTION) return 0;
        if (ow->kind == PTO_ST_IF && pto__vat_aiv1(v, ow->e[0], &a, 0) && pto__vat_aiv1(v, ow->e[1], &b, 0) &&
            pto__cmp_holds(ow->cmp, a, b) != (block == ow->body))
            return 1;
        block = ow->block;
    }
    return 0;
}

/* tpush / tpop: the section's core is the producer (tpush) or consumer
   (tpop) of the pipe's direction, and the tile has the pipe's dtype and the
   shape this core sees: the whole tile on the cube, the half its split
   gives each AIV on the vector core. */
static void pto__vcvpipe_op(pto__verifier *v, const pto__vop *op)
{
    const pto_stmt *st = &v->m->stmts[op->s];
    int pi = st->op == PTO_OP_TPOP ? 1 : 0, ti = 1 - pi;
    const pto_cvpipe *q = &v->m->cvpipes[op->o[pi]->ref];
    const pto_tile *t = op->t[ti];
    const char *name = pto_opinfo_get((pto_op)st->op)->name, *qn = pto__vname(v, q->name);
    int cube = v->core == PTO_CORE_CUBE, need, r = q->rows, c = q->cols;
    if (v->core < 0 || !t) return;   /* outside a section: reported already */
    need = (st->op != PTO_OP_TPUSH) == cube ? PTO_V2C : PTO_C2V;
    if (!(q->dir & need)) {
        pto_error(v->ctx, st->loc, "%s on %s pipe '%s' in the %s section: the %s core is its %s", name,
                  pto__vdir_word(q->dir), qn, cube ? "cube" : "vector", cube ? "vector" : "cube",
                  st->op == PTO_OP_TPUSH ? "producer" : "consumer");
        return;
    }
    if (st->op == PTO_OP_TFREE) return;
    if (!cube && q->split == PTO_SPLIT_UP_DOWN) r /= 2;
    if (!cube && q->split == PTO_SPLIT_LEFT_RIGHT) c /= 2;
    if (t->dtype != q->dtype)
        pto_error(v->ctx, op->o[ti]->loc, "%s: tile '%s' is %s but pipe '%s' carries %s", name, pto__vtn(v, t),
                  pto_dtype_name((pto_dtype)t->dtype), qn, pto_dtype_name((pto_dtype)q->dtype));
    else if (t->rows != r || t->cols != c) {
        /* a vector core's half tile on an unsplit pipe: name the split that gives it */
        const char *hint = "";
        if (!cube && q->split == PTO_SPLIT_NONE && t->rows * 2 == r && t->cols == c)
            hint = " (without a split each vector core sees the whole tile; split(up_down) gives each half the rows)";
        else if (!cube && q->split == PTO_SPLIT_NONE && t->rows == r && t->cols * 2 == c)
            hint = " (without a split each vector core sees the whole tile; split(left_right) gives each half the "
                   "columns)";
        pto_error(v->ctx, op->o[ti]->loc, "%s: tile '%s' must be [%d, %d] for pipe '%s' of [%d, %d]%s, got [%d, %d]%s",
                  name, pto__vtn(v, t), r, c, qn, (int)q->rows, (int)q->cols,
                  cube || q->split == PTO_SPLIT_NONE ? "" : q->split == PTO_SPLIT_UP_DOWN ? " split up_down" : " split left_right",
                  (int)t->rows, (int)t->cols, hint);
    }
    /* without a split the slot holds one whole tile: AIV 0 fills it, and a
       push from AIV 1 as well would have no ring direction to go to */
    if (st->op == PTO_OP_TPUSH && !cube && q->split == PTO_SPLIT_NONE && !pto__vaiv1_skips(v, st->block))
        pto_error(v->ctx, st->loc, "tpush into pipe '%s' (v2c, no split) can run on AIV 1 (subblock 1), but only "
                  "AIV 0 pushes into an unsplit v2c pipe: guard it with 'if subblock == 0 { ... }', or split the "
                  "pipe (each AIV then pushes half the tile)", qn);
    if (st->op == PTO_OP_TPOP && (t->nbuf > 1 || t->pin != PTO_NO_ADDR))
        pto_error(v->ctx, op->o[0]->loc, "tpop: tile '%s' lives in pipe '%s''s local slots: it cannot be %s", pto__vtn(v, t),
                  qn, t->nbuf > 1 ? "multi-buffered (the slots rotate by themselves)" : "pinned with 'at'");
}

/* ---- communication (hardware.md section 8) ---- */

/* A constant integer operand, or 0 with *known = 0. */
static int64_t pto__vconst_int(pto__verifier *v, const pto_operand *o, int *known)
{
    pto__vform f;
    pto__vexpr(v, o->e[0], 0, &f, 0);
    *known = pto__fisconst(&f);
    return *known ? f.c : 0;
}

/* The [rows, cols] window at GM operand g inside its tensor (when static). */
static void pto__vcomm_window(pto__verifier *v, const pto_operand *o, int64_t rows, int64_t cols)
{
    const pto_param *p = &v->m->params[o->ref];
    const char *pn = pto__vname(v, p->name);
    pto__vform r, c, er, ec;
    pto__vexpr(v, o->e[0], 0, &r, 0);
    pto__vexpr(v, o->e[1], 0, &c, 0);
    pto__fconst(&er, rows);
    pto__fconst(&ec, cols);
    pto__vwindow_dim(v, &r, &er, p->dim[0], "window", "row", pn, o->e[0], o->loc);
    pto__vwindow_dim(v, &c, &ec, p->dim[1], "window", "col", pn, o->e[1], o->loc);
}

/* A signal operand: an i32 tensor; one cell, or (allreduce) the whole tensor. */
static int pto__vsignal(pto__verifier *v, const char *opname, const pto_operand *o)
{
    const pto_param *p = &v->m->params[o->ref];
    if (p->dtype != PTO_I32) {
        pto_error(v->ctx, o->loc, "%s: signal '%s' must be an i32 tensor, got %s", opname, pto__vname(v, p->name),
                  pto_dtype_name((pto_dtype)p->dtype));
        return 0;
    }
    if (o->e[0] >= 0) pto__vcomm_window(v, o, 1, 1);
    return 1;
}

/* tput X@p[r, c], Y[r, c], ROWS, COLS (tget: the remote side is Y): same
   dtype, ROWS and COLS constant and positive, both windows inside. */
static void pto__vxfer(pto__verifier *v, const pto__vop *op, const char *name)
{
    const pto_param *d = &v->m->params[op->o[0]->ref], *a = &v->m->params[op->o[1]->ref];
    int64_t ext[2];
    int i, known;
    if (d->dtype != a->dtype)
        pto_error(v->ctx, op->o[1]->loc, "%s: dtype mismatch: '%s' is %s but '%s' is %s", name, pto__vname(v, d->name),
                  pto_dtype_name((pto_dtype)d->dtype), pto__vname(v, a->name), pto_dtype_name((pto_dtype)a->dtype));
    for (i = 0; i < 2; i++) {
        ext[i] = pto__vconst_int(v, op->o[2 + i], &known);
        if (!known || ext[i] < 1 || ext[i] > 65536) {
            pto_error(v->ctx, op->o[2 + i]->loc, "%s: the %s count must be a constant in 1..65536", name,
                      i ? "column" : "row");
            return;
        }
    }
    pto__vcomm_window(v, op->o[0], ext[0], ext[1]);
    pto__vcomm_window(v, op->o[1], ext[0], ext[1]);
}

/* allreduce X, SIG: X an f32 window tensor with static dims; SIG an i32
   window tensor (its cell [0, 0] counts the barriers). */
static void pto__vallreduce(pto__verifier *v, const pto__vop *op)
{
    const pto_param *x = &v->m->params[op->o[0]->ref], *g = &v->m->params[op->o[1]->ref];
    int i;
    for (i = 0; i < 2; i++) {
        const pto_param *p = i ? g : x;
        if (!p->window)
            pto_error(v->ctx, op->o[i]->loc, "allreduce: '%s' is not a window tensor (declare it 'window': peers read it)",
                      pto__vname(v, p->name));
    }
    if (x->dtype != PTO_F32)
        pto_error(v->ctx, op->o[0]->loc, "allreduce: '%s' must be f32 (the sum is f32), got %s", pto__vname(v, x->name),
                  pto_dtype_name((pto_dtype)x->dtype));
    if (x->dim_var[0] >= 0 || x->dim_var[1] >= 0)
        pto_error(v->ctx, op->o[0]->loc, "allreduce: '%s' needs static dims (its chunks are planned tiles)",
                  pto__vname(v, x->name));
    if (op->o[0]->ref == op->o[1]->ref)
        pto_error(v->ctx, op->o[1]->loc, "allreduce: the signal must be another tensor than the data");
    /* the recipe (lower.c) is per rank: every block would count itself into the one signal cell
       and sum and store the whole tensor (wrong sums, races and waits that pass early) */
    if (v->nblocks > 1)
        pto_error(v->ctx, v->m->stmts[op->s].loc,
                  "allreduce needs one block per rank: kernel '%s' launches %lld blocks, and every block would run "
                  "the whole allreduce on the one signal (drop its blocks(...))",
                  pto__vname(v, v->m->kernels[v->kernel].name), (long long)v->nblocks);
    else if (v->nblocks != 1)
        pto_error(v->ctx, v->m->stmts[op->s].loc,
                  "allreduce needs one block per rank: kernel '%s' launches blocks(...) known only at launch, and "
                  "every block would run the whole allreduce on the one signal (drop its blocks(...))",
                  pto__vname(v, v->m->kernels[v->kernel].name));
    pto__vsignal(v, "allreduce", op->o[1]);
}

/* notify / wait / tput / tget / allreduce: a ranks kernel; the staging
   tiles of tput / tget / allreduce are vec tiles, so the vector core. */
static void pto__vcomm(pto__verifier *v, const pto__vop *op)
{
    const pto_stmt *st = &v->m->stmts[op->s];
    const pto_kernel *k = &v->m->kernels[v->kernel];
    const char *name = pto_opinfo_get((pto_op)st->op)->name;
    int cls = pto_opinfo_get((pto_op)st->op)->cls;
    if (!k->ranks) {
        pto_error(v->ctx, st->loc, "%s needs a ranks kernel; '%s' is not declared 'ranks'", name, pto__vname(v, k->name));
        return;
    }
    if ((cls == PTO_OC_XFER || cls == PTO_OC_ALLREDUCE) && v->core != PTO_CORE_VECTOR) {
        pto_error(v->ctx, st->loc, "%s runs on the vector core (it stages data in vec tiles)", name);
        return;
    }
    if (cls == PTO_OC_NOTIFY) {
        int known;
        int64_t val = pto__vconst_int(v, op->o[1], &known);
        if (pto__vsignal(v, name, op->o[0]) && known && (val < -2147483647 - 1 || val > 2147483647))
            pto_error(v->ctx, op->o[1]->loc, "notify: value %lld does not fit an i32 signal", (long long)val);
    } else if (cls == PTO_OC_WAIT) {
        int known;
        int64_t val = pto__vconst_int(v, op->o[2], &known);
        if (op->o[0]->e[2] >= 0)
            pto_error(v->ctx, op->o[0]->loc, "wait polls the own copy of a signal: drop the '@rank'");
        else if (pto__vsignal(v, name, op->o[0]) && known && (val < -2147483647 - 1 || val > 2147483647))
            pto_error(v->ctx, op->o[2]->loc, "wait: value %lld does not fit an i32 signal", (long long)val);
    } else if (cls == PTO_OC_XFER) {
        pto__vxfer(v, op, name);
    } else {
        pto__vallreduce(v, op);
    }
}

/* The scalar of tadds .. tmins or texpands on an i32 / i8 tile: the device
   takes it in the tile's dtype (pto-isa's `TileData::DType scalar`), so a
   fractional value is truncated toward zero and one out of the dtype's
   range has no defined conversion (pto_scalar_as saturates it, NaN to 0).
   A literal or constant that changes on the way is warned about here, with
   the value that will be used; a scalar param's value is known only at
   run time (the host harness says it then). */
static void pto__vint_scalar(pto__verifier *v, const pto__vop *op, int si)
{
    const pto_operand *o = op->o[si];
    const pto_tile *d = op->t[0];
    const char *name = pto_opinfo_get((pto_op)v->m->stmts[op->s].op)->name, *dt;
    double x, used;
    char xs[40];
    if (!d || (d->dtype != PTO_I32 && d->dtype != PTO_I8) || !o) return;
    if (o->kind == PTO_O_FLOAT) {
        x = o->f;
        snprintf(xs, sizeof xs, "%g", x);
        if (strtod(xs, NULL) != x) snprintf(xs, sizeof xs, "%.17g", x);
    } else if (o->kind == PTO_O_INT) {
        int known;
        int64_t c = pto__vconst_int(v, o, &known);
        if (!known) return;
        x = (double)c;
        snprintf(xs, sizeof xs, "%lld", (long long)c);
    } else return;
    used = (double)pto_scalar_asi(d->dtype, x);
    if (used == x) return;
    dt = pto_dtype_name((pto_dtype)d->dtype);
    if (x != x)
        pto_warning(v->ctx, o->loc, "%s on the %s tile '%s': the scalar nan has no %s value; the simulator and the "
                    "reference use 0", name, dt, pto__vtn(v, d), dt);
    else if (x < pto_int_lo(d->dtype) || x > pto_int_hi(d->dtype))
        pto_warning(v->ctx, o->loc, "%s on the %s tile '%s': the scalar %s does not fit %s (the device's conversion "
                    "is undefined); the simulator and the reference use %.0f", name, dt, pto__vtn(v, d), xs, dt, used);
    else
        pto_warning(v->ctx, o->loc, "%s on the %s tile '%s': the scalar %s is taken as %.0f (the device converts it "
                    "to the tile's dtype, truncating toward zero)", name, dt, pto__vtn(v, d), xs, used);
}

/* The class rules, once every operand has the right kind and space. */
static void pto__vclass(pto__verifier *v, const pto__vop *op)
{
    const pto_opinfo *info = pto_opinfo_get((pto_op)v->m->stmts[op->s].op);
    int ok;
    switch (info->cls) {
    case PTO_OC_LOAD: pto__vgm_op(v, op, 1, 0); break;
    case PTO_OC_STORE: pto__vgm_op(v, op, 0, 1); break;
    case PTO_OC_BIN:
        if (pto__vsame_dtype(v, op, 0, 1)) pto__vsame_dtype(v, op, 0, 2);
        if (pto__vsame_shape(v, op, 0, 1)) pto__vsame_shape(v, op, 0, 2);
        break;
    case PTO_OC_BINS: case PTO_OC_UN:
        pto__vsame_dtype(v, op, 0, 1);
        pto__vsame_shape(v, op, 0, 1);
        if (info->cls == PTO_OC_UN) pto__vfloat_only(v, op);
        else pto__vint_scalar(v, op, 2);
        break;
    case PTO_OC_FILL: pto__vint_scalar(v, op, 1); break;
    case PTO_OC_ROWRED:
        pto__vsame_dtype(v, op, 0, 1);
        pto__vcolumn(v, op, 0, 1);
        break;
    case PTO_OC_ROWEXP:
        if (pto__vsame_dtype(v, op, 0, 1)) pto__vsame_dtype(v, op, 0, 2);
        pto__vsame_shape(v, op, 0, 1);
        pto__vcolumn(v, op, 2, 1);
        break;
    case PTO_OC_COLRED:
        ok = pto__vsame_dtype(v, op, 0, 1);
        if (pto__vrowvec(v, op, 0, 1) && ok) pto__vcolvalid(v, op);
        break;
    case PTO_OC_COLEXP:
        ok = pto__vsame_dtype(v, op, 0, 1) && pto__vsame_dtype(v, op, 0, 2);
        if (!pto__vsame_shape(v, op, 0, 1)) ok = 0;
        if (pto__vrowvec(v, op, 2, 1) && ok) pto__vcolvalid(v, op);
        break;
    case PTO_OC_CVT: pto__vsame_shape(v, op, 0, 1); break;
    case PTO_OC_MOV: pto__vmov(v, op); break;
    case PTO_OC_EXTRACT: pto__vextract(v, op); break;
    case PTO_OC_MATMUL: pto__vmatmul(v, op); break;
    case PTO_OC_SYNC: pto__vsync(v, op); break;
    case PTO_OC_CVPIPE: pto__vcvpipe_op(v, op); break;
    case PTO_OC_NOTIFY: case PTO_OC_WAIT: case PTO_OC_XFER: case PTO_OC_ALLREDUCE: pto__vcomm(v, op); break;
    case PTO_OC_FILLPAD:   /* the padding fill of the isa target (lower.c) */
        if (v->m->stmts[op->s].origin == PTO_BY_USER)
            pto_error(v->ctx, v->m->stmts[op->s].loc, "tfillpad is not written in a kernel: tload already zeroes a "
                      "tile outside its valid region (pto_lower adds tfillpad for the isa target, where TLOAD does "
                      "not)");
        break;
    default: break;
    }
}

static void pto__vop_stmt(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    const pto_opinfo *info;
    pto__vop op;
    int i, ok = 1;
    if (st->op >= PTO_NOP) { pto_error(v->ctx, st->loc, "unknown op %d", (int)st->op); return; }
    info = pto_opinfo_get((pto_op)st->op);
    if (st->nargs != info->nargs) {
        /* the text never writes an implicit operand (tfree's tile: the parser adds it), so a
           builder that copies the text's form misses it; say which one and how to add it */
        if (st->nargs < info->nargs && st->nargs < 4 && (info->arg[st->nargs] & PTO_A_IMPLICIT))
            pto_error(v->ctx, st->loc,
                      "%s expects %d operands, got %d: operand %d is implicit in the text (the parser adds it), "
                      "a builder passes it: for tfree, pto_arg_tile with the tile the latest tpop of the pipe "
                      "filled",
                      info->name, info->nargs, (int)st->nargs, (int)st->nargs + 1);
        else
            pto_error(v->ctx, st->loc, "%s expects %d operands, got %d", info->name, info->nargs, (int)st->nargs);
        return;
    }
    if (st->arg0 < 0 || st->arg0 + st->nargs > v->m->n_operands) {
        pto_error(v->ctx, st->loc, "%s has malformed operands", info->name);
        return;
    }
    op.s = s;
    v->here_stmt = s;
    for (i = 0; i < info->nargs; i++) {
        op.o[i] = &v->m->operands[st->arg0 + i];
        op.t[i] = NULL;
        if (!pto__varg(v, s, i, op.o[i], info->arg[i])) ok = 0;
        else if (op.o[i]->kind == PTO_O_TILE) op.t[i] = &v->m->tiles[op.o[i]->ref];
    }
    if (ok) pto__vclass(v, &op);
}

/* ---- statements -------------------------------------------------------- */

static void pto__vlet(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    int32_t var = st->ref;
    pto__vform f;
    pto__vexpr(v, st->e[0], 0, &f, 0);
    if (var < 0 || var >= v->m->n_vars) { pto_error(v->ctx, st->loc, "let names no variable"); return; }
    v->vform[var] = f;
    v->vlive[var] = 1;
    pto__vbind(v, v->m->vars[var].name, PTO__N_VAR, var, v->m->vars[var].loc);
}

/* Bounds and step of a loop; the var gets a static range when all three
   are constants and the loop runs at least once. Entering the body. */
static void pto__vfor(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    int32_t var = st->ref;
    pto__vform a, b, c;
    int64_t lo, hi, span;
    pto__vexpr(v, st->e[0], 0, &a, 0);
    pto__vexpr(v, st->e[1], 0, &b, 0);
    if (st->e[2] >= 0) pto__vexpr(v, st->e[2], 0, &c, 0);
    else pto__fconst(&c, 1);
    if (st->e[2] >= 0 && pto__frange(v, &c, &lo, &hi) && lo <= 0)
        pto_error(v->ctx, *pto__vexpr_loc(v, st->e[2], &st->loc), "loop step must be positive, got %lld", (long long)lo);
    if (var < 0 || var >= v->m->n_vars) { pto_error(v->ctx, st->loc, "loop names no variable"); return; }
    pto__vbind(v, v->m->vars[var].name, PTO__N_VAR, var, v->m->vars[var].loc);
    v->vlive[var] = 1;
    v->vrange[var] = 0;
    v->vifdepth[var] = v->ifdepth;
    pto__fnone(&v->vform[var]);   /* (vform is not zeroed: a let var a malformed loop names is read through it) */
    v->vstep[var] = 0;
    if (pto__fisconst(&a) && pto__fisconst(&b) && pto__fisconst(&c) && c.c > 0 && a.c >= b.c)
        v->vstep[var] = -1;   /* a zero-trip loop: its var takes no value, its body never runs */
    else if (pto__fisconst(&a) && pto__fisconst(&c) && c.c > 0) {   /* its values, even with an unknown end */
        v->vstart[var] = a.c;
        v->vstep[var] = c.c;
    }
    if (pto__fisconst(&a) && pto__fisconst(&b) && pto__fisconst(&c) && c.c > 0 && a.c < b.c && a.c > INT64_MIN &&
        pto__vadd(b.c - 1, -a.c, &span)) {   /* (-a.c: not from INT64_MIN) */
        v->vrange[var] = 1;
        v->vlo[var] = a.c;
        v->vhi[var] = a.c + span / c.c * c.c;
    }
}

static void pto__vsection(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    const pto_kernel *k = &v->m->kernels[v->kernel];
    int core = st->ref == PTO_CORE_CUBE ? PTO_CORE_CUBE : PTO_CORE_VECTOR;
    const char *cn = core == PTO_CORE_CUBE ? "cube" : "vector";
    if (k->kind != PTO_KK_MIX)
        pto_error(v->ctx, st->loc, "'%s' section in a non-mix kernel '%s'", cn, pto__vname(v, k->name));
    else if (st->block != k->body)
        pto_error(v->ctx, st->loc, "'%s' section must be at the top level of mix kernel '%s'", cn,
                  pto__vname(v, k->name));
    else if (v->sections[core]++)
        pto_error(v->ctx, st->loc, "second '%s' section in mix kernel '%s'", cn, pto__vname(v, k->name));
    v->core = core;
}

static int pto__vcompound(const pto_stmt *st)
{
    return st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF || st->kind == PTO_ST_SECTION;
}

/* Phase 0 for a statement: number it and list its tile writes. */
static void pto__vcollect(pto__verifier *v, int32_t s)
{
    const pto_module *m = v->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_opinfo *info;
    int32_t pos = v->counter++;
    int i;
    if (st->kind != PTO_ST_OP || st->op >= PTO_NOP) return;
    info = pto_opinfo_get((pto_op)st->op);
    if (st->nargs != info->nargs || st->arg0 < 0 || st->arg0 + st->nargs > m->n_operands) return;
    for (i = 0; i < st->nargs; i++) {
        const pto_operand *o = &m->operands[st->arg0 + i];
        int32_t t = o->ref, w;
        if (!(info->arg[i] & PTO_A_WRITE) || o->kind != PTO_O_TILE || t < 0 || t >= m->n_tiles) continue;
        /* room is usually there: pto__valloc reserves one write per operand */
        w = v->n_w < v->cap_w ? v->n_w++ : pto__grow(v->ctx, (void **)&v->w, &v->n_w, &v->cap_w, sizeof(pto__vwrite));
        if (w < 0) { v->internal = 1; return; }
        v->w[w].pos = pos;
        v->w[w].next = -1;
        if (v->wlast[t] >= 0) v->w[v->wlast[t]].next = w; else v->wfirst[t] = v->wcur[t] = w;
        v->wlast[t] = w;
    }
}

/* After checking an op statement: the tiles it writes, as phase 0 lists
   them (whether or not the checks passed), are written for what follows;
   the tensors it writes, for pto__vunwritten. */
static void pto__vnote_writes(pto__verifier *v, const pto_stmt *st)
{
    const pto_module *m = v->m;
    const pto_opinfo *info;
    int i;
    if (st->op >= PTO_NOP) return;
    info = pto_opinfo_get((pto_op)st->op);
    if (st->nargs != info->nargs || st->arg0 < 0 || st->arg0 + st->nargs > m->n_operands) return;
    for (i = 0; i < st->nargs; i++) {
        const pto_operand *o = &m->operands[st->arg0 + i];
        if (!(info->arg[i] & PTO_A_WRITE) || o->ref < 0) continue;
        if (o->kind == PTO_O_TILE && o->ref < m->n_tiles) {
            if (!(v->tflags[o->ref] & PTO__T_WRITTEN) && v->n_ifmark > 0) {
                int32_t w = pto__grow(v->ctx, (void **)&v->wlog, &v->n_wlog, &v->cap_wlog, sizeof(int32_t));
                if (w < 0) { v->internal = 1; return; }
                v->wlog[w] = o->ref;
            }
            v->tflags[o->ref] |= PTO__T_WRITTEN;
        } else if (o->kind == PTO_O_GM && o->ref < m->n_params && i < 4) v->pwritten[o->ref] = 1;
    }
}

/* Phase 1 for a statement (and entering its body). */
static void pto__vcheck(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    const pto_kernel *k = &v->m->kernels[v->kernel];
    v->here = st->loc;
    v->here_pos = v->counter++;
    v->nvisited++;
    if (k->kind == PTO_KK_MIX && st->block == k->body && st->kind != PTO_ST_SECTION)
        pto_error(v->ctx, st->loc, "statement outside the cube and vector sections of mix kernel '%s'",
                  pto__vname(v, k->name));
    switch (st->kind) {
    case PTO_ST_OP: pto__vop_stmt(v, s); pto__vnote_writes(v, st); break;
    case PTO_ST_TILE: pto__vtile(v, s); break;
    case PTO_ST_LET: pto__vlet(v, s); break;
    case PTO_ST_FOR: pto__vfor(v, s); break;
    case PTO_ST_IF: {
        pto__vform f;
        pto__vexpr(v, st->e[0], 0, &f, 0);
        pto__vexpr(v, st->e[1], 0, &f, 0);
        if (st->cmp > PTO_GE) pto_error(v->ctx, st->loc, "comparison %d is no pto_cmp", (int)st->cmp);
        break;
    }
    case PTO_ST_SECTION: pto__vsection(v, s); break;
    default: pto_error(v->ctx, st->loc, "malformed statement"); break;
    }
    if (st->kind == PTO_ST_FOR) {
        int32_t *p = v->loops;
        if (v->nloops == v->cap_loops) {
            int32_t cap = v->cap_loops ? v->cap_loops * 2 : 16;
            p = (int32_t *)pto_realloc(v->ctx, v->loops, (size_t)cap * sizeof(int32_t));
            if (!p) { v->internal = 1; pto__oom(v->ctx); return; }
            v->loops = p;
            v->cap_loops = cap;
        }
        v->loops[v->nloops++] = s;
    }
    if (st->kind == PTO_ST_IF) {
        int32_t a = pto__grow(v->ctx, (void **)&v->ifmark, &v->n_ifmark, &v->cap_ifmark, sizeof(int32_t));
        int32_t b = a < 0 ? -1 : pto__grow(v->ctx, (void **)&v->ifmark, &v->n_ifmark, &v->cap_ifmark, sizeof(int32_t));
        if (b < 0) { v->internal = 1; return; }
        v->ifmark[a] = v->n_wlog;
        v->ifmark[b] = -1;
        v->ifdepth++;
    }
}

/* From an if's then-branch to its else-branch: the then-branch's writes are undone (kept in wlog
   for the union after the if). */
static void pto__vif_else(pto__verifier *v)
{
    int32_t i;
    if (v->phase != 1 || v->n_ifmark < 2) return;
    v->ifmark[v->n_ifmark - 1] = v->n_wlog;
    for (i = v->ifmark[v->n_ifmark - 2]; i < v->n_wlog; i++) v->tflags[v->wlog[i]] &= (uint8_t)~PTO__T_WRITTEN;
}

/* Leaving an if: what either branch wrote may have been written (the entries stay in wlog: to
   an enclosing if they are writes of its branch). */
static void pto__vif_leave(pto__verifier *v)
{
    int32_t i, start, els;
    if (v->n_ifmark < 2) return;
    start = v->ifmark[v->n_ifmark - 2];
    els = v->ifmark[v->n_ifmark - 1];
    v->n_ifmark -= 2;
    for (i = start; els >= 0 && i < els; i++) v->tflags[v->wlog[i]] |= PTO__T_WRITTEN;
    if (v->n_ifmark == 0) v->n_wlog = 0;
}

/* Leaving the body of a compound statement. */
static void pto__vleave_stmt(pto__verifier *v, int32_t s)
{
    const pto_stmt *st = &v->m->stmts[s];
    if (v->phase == 0) {
        if (st->kind == PTO_ST_FOR) v->endpos[s] = v->counter - 1;
        return;
    }
    if (st->kind == PTO_ST_FOR) {
        if (v->nloops > 0) v->nloops--;
        if (st->ref >= 0 && st->ref < v->m->n_vars) {
            v->vlive[st->ref] = 0;
            pto__vunbind(v, v->m->vars[st->ref].name, PTO__N_VAR, st->ref);
        }
    } else if (st->kind == PTO_ST_IF) {
        v->ifdepth--;
        pto__vif_leave(v);
    } else if (st->kind == PTO_ST_SECTION) {
        v->core = -1;
    }
}

/* Leaving a block: its tiles and lets go out of scope. */
static void pto__vleave_block(pto__verifier *v, int32_t b)
{
    int32_t s;
    if (v->phase == 0) return;
    for (s = v->m->blocks[b].head; s >= 0; s = v->m->stmts[s].next) {
        const pto_stmt *st = &v->m->stmts[s];
        if (st->kind == PTO_ST_TILE && st->ref >= 0 && st->ref < v->m->n_tiles) {
            v->tflags[st->ref] &= (uint8_t)~PTO__T_SCOPE;
            pto__vunbind(v, v->m->tiles[st->ref].name, PTO__N_TILE, st->ref);
        } else if (st->kind == PTO_ST_LET && st->ref >= 0 && st->ref < v->m->n_vars) {
            v->vlive[st->ref] = 0;
            pto__vunbind(v, v->m->vars[st->ref].name, PTO__N_VAR, st->ref);
        }
    }
}

static int pto__vbody(const pto_module *m, const pto_stmt *st)
{
    return pto__vcompound(st) && st->body >= 0 && st->body < m->n_blocks;
}

/* Walks a kernel body in program order without recursion: down into
   bodies, on to the next statement, up to the owner at a block's end (and
   over to an if's else block). */
static void pto__vwalk(pto__verifier *v, int32_t body)
{
    const pto_module *m = v->m;
    int32_t cur = body, s = m->blocks[body].head;
    int64_t guard = 0, limit = 2 * (int64_t)m->n_stmts + 16;
    pto_loc none = {0, 0, 0};
    for (;;) {
        while (s < 0) {
            int32_t owner = m->blocks[cur].owner;
            const pto_stmt *ow;
            pto__vleave_block(v, cur);
            if (cur == body || owner < 0 || owner >= m->n_stmts) return;
            ow = &m->stmts[owner];
            if (ow->kind == PTO_ST_IF && cur == ow->body && ow->orelse >= 0 && ow->orelse < m->n_blocks) {
                pto__vif_else(v);
                cur = ow->orelse;
                s = m->blocks[cur].head;
                continue;
            }
            pto__vleave_stmt(v, owner);
            cur = ow->block;
            s = ow->next;
            if (cur < 0 || cur >= m->n_blocks) { s = -1; cur = body; }
        }
        if (s >= m->n_stmts || ++guard > limit) {
            pto_error(v->ctx, none, "internal error: malformed statement lists");
            v->internal = v->malformed = 1;
            return;
        }
        if (v->phase == 0) pto__vcollect(v, s); else pto__vcheck(v, s);
        if (v->internal) return;
        if (pto__vbody(m, &m->stmts[s])) {
            cur = m->stmts[s].body;
            s = m->blocks[cur].head;
        } else {
            if (pto__vcompound(&m->stmts[s])) pto__vleave_stmt(v, s);
            s = m->stmts[s].next;
        }
    }
}

/* ---- kernels ----------------------------------------------------------- */

static void pto__vparams(pto__verifier *v, const pto_kernel *k, int bind)
{
    int32_t i;
    int d;
    for (i = k->param0; i < k->param0 + k->nparams; i++) {
        const pto_param *p = &v->m->params[i];
        const char *pn = pto__vname(v, p->name);
        if (!bind) {
            pto__vunbind(v, p->name, PTO__N_PARAM, i);
            for (d = 0; d < 2; d++)
                if (p->dim_var[d] >= 0 && p->dim_var[d] < v->m->n_vars)
                    pto__vunbind(v, v->m->vars[p->dim_var[d]].name, PTO__N_DIM, p->dim_var[d]);
            continue;
        }
        pto__vbind(v, p->name, PTO__N_PARAM, i, p->loc);
        pto__param_enums(v->ctx, p, pn);
        if (p->kind == PTO_P_SCALAR) {
            if (p->window) pto_error(v->ctx, p->loc, "scalar '%s' cannot be a window (only tensors can)", pn);
            continue;
        }
        for (d = 0; d < 2; d++) {
            int32_t dv = p->dim_var[d];
            if (dv >= 0 && dv < v->m->n_vars) {
                int32_t nm = v->m->vars[dv].name;
                if (!(nm > 0 && nm < v->n_names && v->nkind[nm] == PTO__N_DIM && v->nid[nm] == dv))
                    pto__vbind(v, nm, PTO__N_DIM, dv, p->loc);
            } else if (p->dim[d] <= 0) {
                pto_error(v->ctx, p->loc, "dim %d of '%s' must be positive, got %lld", d, pn, (long long)p->dim[d]);
            }
        }
        if (p->dim_var[0] < 0 && p->dim_var[1] < 0 && pto__tensor_too_big(p->dtype, p->dim[0], p->dim[1]))
            pto_error(v->ctx, p->loc, "tensor '%s' is %s[%lld, %lld]: more than 2^61 bytes, too large for 64-bit offsets", pn,
                      pto_dtype_name((pto_dtype)p->dtype), (long long)p->dim[0], (long long)p->dim[1]);
    }
}

/* A pipe declaration: counts in range (compared after normalisation, so an
   omitted count is its default), a slot of whole 32-byte granules, a
   split that halves evenly, a ring id and cross-core flags left. */
static void pto__vpipe_decl(pto__verifier *v, const pto_cvpipe *q)
{
    const char *qn = pto__vname(v, q->name);
    int maxl = q->dir == PTO_BOTH ? 4 : 8, need = q->dir == PTO_BOTH ? 4 : 2;
    int64_t bytes = (int64_t)q->rows * q->cols * pto_dtype_size((pto_dtype)q->dtype);
    if (v->m->kernels[v->kernel].kind != PTO_KK_MIX) {
        pto_error(v->ctx, q->loc, "pipe '%s' belongs to a mix kernel", qn);
        return;
    }
    if (q->dir < PTO_C2V || q->dir > PTO_BOTH || q->dtype == PTO_DT_NONE || q->dtype >= PTO_NDTYPE ||
        q->rows <= 0 || q->cols <= 0 || q->split > PTO_SPLIT_LEFT_RIGHT) {
        pto_error(v->ctx, q->loc, "pipe '%s' is malformed", qn);
        return;
    }
    if (bytes % 32)
        pto_error(v->ctx, q->loc, "pipe '%s': a slot of [%d, %d] %s is %lld bytes, not a multiple of 32", qn,
                  (int)q->rows, (int)q->cols, pto_dtype_name((pto_dtype)q->dtype), (long long)bytes);
    if ((q->split == PTO_SPLIT_UP_DOWN && q->rows % 2) || (q->split == PTO_SPLIT_LEFT_RIGHT && q->cols % 2))
        pto_error(v->ctx, q->loc, "pipe '%s': split(%s) needs an even number of %s, got %d", qn,
                  q->split == PTO_SPLIT_UP_DOWN ? "up_down" : "left_right",
                  q->split == PTO_SPLIT_UP_DOWN ? "rows" : "columns",
                  (int)(q->split == PTO_SPLIT_UP_DOWN ? q->rows : q->cols));
    if (q->slot_num <= 0)
        pto_error(v->ctx, q->loc, "pipe '%s': slots(%d) must be > 0", qn, (int)q->slot_num);
    else if (q->local_slot_num <= 0 || q->local_slot_num > q->slot_num || q->local_slot_num > maxl)
        pto_error(v->ctx, q->loc, "pipe '%s': local_slots(%d) must be > 0, <= slots(%d) and <= %d for a %s pipe", qn,
                  (int)q->local_slot_num, (int)q->slot_num, maxl, pto__vdir_word(q->dir));
    if (q->ring >= PTO_MAX_CVPIPES)
        pto_error(v->ctx, q->loc, "pipe '%s': mix kernel '%s' has more than %d pipes", qn,
                  pto__vname(v, v->m->kernels[v->kernel].name), PTO_MAX_CVPIPES);
    else if (q->flag_id < 0)
        pto_error(v->ctx, q->loc,
                  "pipe '%s' needs %d cross-core flag ids but the earlier pipes of '%s' hold all that are free "
                  "(16 per cluster, one-way pipes take 2, both pipes 4%s)",
                  qn, need, pto__vname(v, v->m->kernels[v->kernel].name),
                  v->m->arch == PTO_ARCH_A2A3 ? ", 11..14 are reserved on a2a3" : "");
}

/* Every tpop of a pipe in one section pops into one tile (the pipe's local
   slots), and no tile is the destination of two pipes. */
static void pto__vpop_tiles(pto__verifier *v, int32_t qi)
{
    const pto_module *m = v->m;
    int32_t s, first[2] = {-1, -1};
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *o;
        int32_t t, c = st->core ? 1 : 0;
        if (st->kind != PTO_ST_OP || st->op != PTO_OP_TPOP || st->nargs != 2 || st->block < 0 ||
            m->blocks[st->block].kernel != v->kernel)
            continue;
        o = &m->operands[st->arg0];
        if (m->operands[st->arg0 + 1].kind != PTO_O_CVPIPE || o->kind != PTO_O_TILE) continue;
        if (m->operands[st->arg0 + 1].ref != qi) {
            if (o->ref == first[0] || o->ref == first[1])
                pto_error(v->ctx, o->loc, "tpop: tile '%s' is already the destination of pipe '%s' (one pipe per tile)",
                          pto__vname(v, m->tiles[o->ref].name), pto__vname(v, m->cvpipes[qi].name));
            continue;
        }
        t = o->ref;
        if (first[c] < 0) { first[c] = t; continue; }
        if (first[c] != t) {
            pto_error(v->ctx, o->loc,
                      "tpop: pipe '%s' already pops into '%s' in this section; every tpop of a pipe in a section uses one tile",
                      pto__vname(v, m->cvpipes[qi].name), pto__vname(v, m->tiles[first[c]].name));
        }
    }
}

/* Pop / free balance: a per-pipe set of possible states (bit 0: no slot
   held, bit 1: a popped slot held), flowed through the section. tpop needs
   "no slot held" on every path, tfree "a slot held" on every path, and the
   section must end holding none: always TPOP then TFREE. */
typedef struct pto__vpf {
    uint8_t st[PTO_MAX_CVPIPES];
    int32_t last_pop[PTO_MAX_CVPIPES];
} pto__vpf;

static void pto__vpf_block(pto__verifier *v, int32_t block, pto__vpf *f, int report);

static void pto__vpf_stmt(pto__verifier *v, int32_t s, pto__vpf *f, int report)
{
    const pto_module *m = v->m;
    const pto_stmt *st = &m->stmts[s];
    if (st->kind == PTO_ST_IF) {
        pto__vpf a = *f, b = *f;
        int i;
        pto__vpf_block(v, st->body, &a, report);
        if (st->orelse >= 0) pto__vpf_block(v, st->orelse, &b, report);
        for (i = 0; i < PTO_MAX_CVPIPES; i++) {
            f->st[i] = (uint8_t)(a.st[i] | b.st[i]);
            f->last_pop[i] = a.last_pop[i] > b.last_pop[i] ? a.last_pop[i] : b.last_pop[i];
        }
    } else if (st->kind == PTO_ST_FOR) {
        pto__vpf x = *f, y;
        int i, same, guard;
        for (guard = 0; guard < 4; guard++) {   /* 2 bits per pipe: a fixpoint within 3 rounds */
            y = x;
            pto__vpf_block(v, st->body, &y, 0);
            same = 1;
            for (i = 0; i < PTO_MAX_CVPIPES; i++) {
                uint8_t n = (uint8_t)(f->st[i] | y.st[i]);
                if (n != x.st[i]) same = 0;
                x.st[i] = n;
                if (y.last_pop[i] > x.last_pop[i]) x.last_pop[i] = y.last_pop[i];
            }
            if (same) break;
        }
        y = x;
        pto__vpf_block(v, st->body, &y, report);
        for (i = 0; i < PTO_MAX_CVPIPES; i++) {
            f->st[i] = (uint8_t)(x.st[i] | y.st[i]);
            f->last_pop[i] = y.last_pop[i] > x.last_pop[i] ? y.last_pop[i] : x.last_pop[i];
        }
    } else if (st->kind == PTO_ST_OP && (st->op == PTO_OP_TPOP || st->op == PTO_OP_TFREE) && st->nargs >= 1) {
        const pto_operand *o = &m->operands[st->arg0 + (st->op == PTO_OP_TPOP ? 1 : 0)];
        int r;
        const char *qn;
        if (st->op == PTO_OP_TPOP && st->nargs != 2) return;
        if (o->kind != PTO_O_CVPIPE || o->ref < 0 || o->ref >= m->n_cvpipes) return;
        r = m->cvpipes[o->ref].ring;
        if (r < 0 || r >= PTO_MAX_CVPIPES) return;
        qn = pto__vname(v, m->cvpipes[o->ref].name);
        if (st->op == PTO_OP_TPOP) {
            if (report && (f->st[r] & 2)) {
                const pto_stmt *lp = &m->stmts[f->last_pop[r] >= 0 ? f->last_pop[r] : s];
                pto_error(v->ctx, st->loc, "tpop of pipe '%s' while the slot popped at %d:%d may still be held (tfree %s first)",
                          qn, (int)lp->loc.line, (int)lp->loc.col, qn);
            }
            f->st[r] = 2;
            f->last_pop[r] = s;
        } else {
            if (report && (f->st[r] & 1))
                pto_error(v->ctx, st->loc, "tfree of pipe '%s' without a tpop of it before on every path", qn);
            f->st[r] = 1;
        }
    }
}

static void pto__vpf_block(pto__verifier *v, int32_t block, pto__vpf *f, int report)
{
    int32_t s;
    if (block < 0 || block >= v->m->n_blocks) return;
    for (s = v->m->blocks[block].head; s >= 0; s = v->m->stmts[s].next) pto__vpf_stmt(v, s, f, report);
}

/* How many times one run of block b executes `op` on pipe qi: -1 when that
   is not known before the run (a loop whose trip count is not a literal, or
   an if whose branches differ). */
static int64_t pto__vpipe_count(const pto_module *m, int32_t b, int32_t qi, int op)
{
    int64_t n = 0, c;
    int32_t s;
    if (b < 0 || b >= m->n_blocks) return 0;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        c = 0;
        if (st->kind == PTO_ST_OP && st->op == op && st->nargs == 2) {
            const pto_operand *o = &m->operands[st->arg0 + (op == PTO_OP_TPOP ? 1 : 0)];
            c = o->kind == PTO_O_CVPIPE && o->ref == qi;
        } else if (st->kind == PTO_ST_IF) {
            int64_t e = st->orelse >= 0 ? pto__vpipe_count(m, st->orelse, qi, op) : 0;
            c = pto__vpipe_count(m, st->body, qi, op);
            if (c != e) c = -1;
        } else if (st->kind == PTO_ST_FOR) {
            const pto_expr *x0 = st->e[0] >= 0 ? &m->exprs[st->e[0]] : NULL, *x1 = st->e[1] >= 0 ? &m->exprs[st->e[1]] : NULL;
            const pto_expr *x2 = st->e[2] >= 0 ? &m->exprs[st->e[2]] : NULL;
            c = pto__vpipe_count(m, st->body, qi, op);
            if (c > 0) {
                int64_t step = x2 ? (x2->kind == PTO_E_INT ? x2->value : -1) : 1, trips, span = 0;
                if (!x0 || !x1 || x0->kind != PTO_E_INT || x1->kind != PTO_E_INT || step <= 0) return -1;
                /* end - start without overflow (pto__vfor's rule): a span past int64 is not counted */
                if (x1->value > x0->value && (x0->value == INT64_MIN || !pto__vadd(x1->value, -x0->value, &span))) return -1;
                trips = x1->value <= x0->value ? 0 : (span - 1) / step + 1;
                if (trips > ((int64_t)1 << 40) / c) return -1;
                c *= trips;
            }
        }
        if (c < 0) return -1;
        n += c;
        if (n > ((int64_t)1 << 40)) return -1;
    }
    return n;
}

/* Every tile pushed into a pipe is popped on the other side: when both
   counts are known before the run, they must agree (otherwise the run ends
   with slots nobody pops, or a tpop waits forever). */
static void pto__vpipe_balance(pto__verifier *v, const pto_kernel *k)
{
    const pto_module *m = v->m;
    int32_t sec[2] = {-1, -1}, s, i;
    for (s = m->blocks[k->body].head; s >= 0; s = m->stmts[s].next)
        if (m->stmts[s].kind == PTO_ST_SECTION && (m->stmts[s].ref == PTO_CORE_CUBE || m->stmts[s].ref == PTO_CORE_VECTOR))
            sec[m->stmts[s].ref == PTO_CORE_CUBE] = m->stmts[s].body;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *q = &m->cvpipes[i];
        int c2v = q->dir == PTO_C2V;
        int64_t push, pop;
        if (q->kernel != v->kernel || (q->dir != PTO_C2V && q->dir != PTO_V2C)) continue;   /* both: two rings */
        push = pto__vpipe_count(m, sec[c2v ? 1 : 0], i, PTO_OP_TPUSH);
        pop = pto__vpipe_count(m, sec[c2v ? 0 : 1], i, PTO_OP_TPOP);
        if (push < 0 || pop < 0 || push == pop) continue;
        pto_error(v->ctx, q->loc,
                  "pipe '%s': the %s section pushes %lld tile%s per run and the %s section pops %lld: every tpush "
                  "needs its tpop on the other side",
                  pto__vname(v, q->name), c2v ? "cube" : "vector", (long long)push, push == 1 ? "" : "s",
                  c2v ? "vector" : "cube", (long long)pop);
    }
}

static void pto__vpipes(pto__verifier *v, const pto_kernel *k)
{
    const pto_module *m = v->m;
    int32_t i, s;
    for (i = 0; i < m->n_cvpipes; i++)
        if (m->cvpipes[i].kernel == v->kernel) {
            pto__vpipe_decl(v, &m->cvpipes[i]);
            pto__vpop_tiles(v, i);
        }
    if (k->kind != PTO_KK_MIX) return;
    pto__vpipe_balance(v, k);
    for (s = m->blocks[k->body].head; s >= 0; s = m->stmts[s].next) {
        pto__vpf f;
        if (m->stmts[s].kind != PTO_ST_SECTION) continue;
        for (i = 0; i < PTO_MAX_CVPIPES; i++) f.st[i] = 1, f.last_pop[i] = -1;
        pto__vpf_block(v, m->stmts[s].body, &f, 1);
        for (i = 0; i < m->n_cvpipes; i++) {
            const pto_cvpipe *q = &m->cvpipes[i];
            if (q->kernel != v->kernel || q->ring < 0 || q->ring >= PTO_MAX_CVPIPES || !(f.st[q->ring] & 2)) continue;
            pto_error(v->ctx, m->stmts[f.last_pop[q->ring]].loc,
                      "tpop of pipe '%s' is not followed by a tfree on every path to the end of the %s section",
                      pto__vname(v, q->name), m->stmts[s].ref == PTO_CORE_CUBE ? "cube" : "vector");
        }
    }
}

/* Phase 0 for the current kernel, from the middle of phase 1 (the first
   read that needs it): every tile write with its position, and each loop's
   last position. 0 after an internal failure. */
static int pto__vcollect_kernel(pto__verifier *v)
{
    const pto_module *m = v->m;
    int32_t counter = v->counter, i;
    v->collected = 1;
    if (!v->endpos) {   /* the first kernel that needs it: the arrays, once */
        size_t ns = (size_t)m->n_stmts, nt = (size_t)m->n_tiles;
        v->endpos = (int32_t *)pto__vuninit(v, ns, sizeof(int32_t));
        v->wfirst = (int32_t *)pto__vuninit(v, nt, sizeof(int32_t));
        v->wlast = (int32_t *)pto__vuninit(v, nt, sizeof(int32_t));
        v->wcur = (int32_t *)pto__vuninit(v, nt, sizeof(int32_t));
        /* a tile write is an operand: one pto__grow for them all */
        if (m->n_operands > 0) v->w = (pto__vwrite *)pto__vuninit(v, (size_t)m->n_operands, sizeof(pto__vwrite));
        if (v->internal) return 0;
        v->cap_w = m->n_operands;
        for (i = 0; i < m->n_tiles; i++) v->wfirst[i] = v->wlast[i] = v->wcur[i] = -1;
    }
    v->phase = 0;
    v->counter = 0;
    pto__vwalk(v, m->kernels[v->kernel].body);
    v->phase = 1;
    v->counter = counter;
    return !v->internal;
}

static void pto__vkernel(pto__verifier *v, int32_t ki)
{
    const pto_kernel *k = &v->m->kernels[ki];
    const char *kn = pto__vname(v, k->name);
    v->kernel = ki;
    v->nblocks = 1;
    v->ifdepth = 0;
    v->n_wlog = v->n_ifmark = 0;
    v->nloops = 0;
    v->sections[0] = v->sections[1] = 0;
    v->core = k->kind == PTO_KK_CUBE ? PTO_CORE_CUBE : k->kind == PTO_KK_VECTOR ? PTO_CORE_VECTOR : -1;
    if (k->kind > PTO_KK_MIX) pto_error(v->ctx, k->loc, "kernel '%s' has kind %d, which is no pto_kernel_kind", kn, (int)k->kind);
    if (k->kind == PTO_KK_MIX && k->ranks)
        pto_error(v->ctx, k->loc,
                  "kernel '%s' is a mix kernel with 'ranks': a mix kernel cannot run on several ranks yet "
                  "(its cube and vector sections are not run per rank); put the communication in a vector "
                  "ranks kernel of its own", kn);
    if (k->name > 0 && k->name < v->n_names) {
        if (v->kname[k->name])
            pto_error(v->ctx, k->loc, "kernel '%s' is already defined at %d:%d", kn,
                      (int)v->m->kernels[v->kname[k->name] - 1].loc.line,
                      (int)v->m->kernels[v->kname[k->name] - 1].loc.col);
        else
            v->kname[k->name] = ki + 1;
    }
    if (k->param0 < 0 || k->nparams < 0 || k->param0 + k->nparams > v->m->n_params ||
        k->body < 0 || k->body >= v->m->n_blocks) {
        pto_error(v->ctx, k->loc, "kernel '%s' is malformed", kn);
        return;
    }
    pto__vparams(v, k, 1);
    if (k->blocks >= 0) {
        pto__vform f;
        v->here = k->loc;
        pto__vexpr(v, k->blocks, PTO__IN_BLOCKS, &f, 0);
        v->nblocks = pto__fisconst(&f) ? f.c : -1;
        if (pto__fisconst(&f) && f.c <= 0) {
            pto_error(v->ctx, *pto__vexpr_loc(v, k->blocks, &k->loc), "blocks(...) must be positive, got %lld",
                      (long long)f.c);
            v->nblocks = -1;
        }
    }
    v->collected = 0;
    v->phase = 1;
    v->counter = 0;
    {
        int32_t nd = v->ctx->n_diags, ne = v->ctx->n_errors;
        pto__vwalk(v, k->body);
        if (v->malformed) {
            /* phase 0 would have found it before checking anything: that
               error alone, as then */
            pto_loc none = {0, 0, 0};
            pto__diag_truncate(v->ctx, nd, ne);
            pto_error(v->ctx, none, "internal error: malformed statement lists");
        }
    }
    if (!v->internal) pto__vpipes(v, k);
    pto__vparams(v, k, 0);
}

static void pto__vfree(pto__verifier *v)
{
    void *ps[] = {v->endpos, v->pwritten, v->tflags, v->tdepth, v->wfirst, v->wlast, v->wcur, v->tvalid, v->w,
                  v->vlive, v->vrange, v->vifdepth, v->vlo, v->vhi, v->vstart, v->vstep, v->vform, v->nkind, v->nid,
                  v->kname, v->loops, v->wlog, v->ifmark};
    size_t i;
    for (i = 0; i < sizeof ps / sizeof ps[0]; i++) pto_free(v->ctx, ps[i]);
}

static int pto__valloc(pto__verifier *v)
{
    const pto_module *m = v->m;
    size_t nt = (size_t)m->n_tiles, nv = (size_t)m->n_vars, nn;
    v->n_names = v->ctx->n_strs;
    nn = (size_t)v->n_names;
    /* (phase 0's arrays: pto__vcollect_kernel, when first needed) */
    v->pwritten = (uint8_t *)pto__vcalloc(v, (size_t)m->n_params, 1);
    v->tflags = (uint8_t *)pto__vcalloc(v, nt, 1);
    v->tdepth = (int32_t *)pto__vcalloc(v, nt, sizeof(int32_t));
    /* a tile's forms are set when its declaration comes into scope
       (pto__vtile_valid, only for tiles with a valid(...) clause: see
       pto__vvalid), before any operand can name it */
    v->tvalid = (pto__vform *)pto__vuninit(v, 2 * nt, sizeof(pto__vform));
    v->vlive = (uint8_t *)pto__vcalloc(v, nv, 1);
    v->vrange = (uint8_t *)pto__vcalloc(v, nv, 1);
    v->vifdepth = (int32_t *)pto__vcalloc(v, nv, sizeof(int32_t));
    v->vlo = (int64_t *)pto__vcalloc(v, nv, sizeof(int64_t));
    v->vhi = (int64_t *)pto__vcalloc(v, nv, sizeof(int64_t));
    v->vstart = (int64_t *)pto__vcalloc(v, nv, sizeof(int64_t));
    v->vstep = (int64_t *)pto__vcalloc(v, nv, sizeof(int64_t));
    /* a let's form is set before the let is live (pto__vlet) */
    v->vform = (pto__vform *)pto__vuninit(v, nv, sizeof(pto__vform));
    v->nkind = (uint8_t *)pto__vcalloc(v, nn, 1);
    v->nid = (int32_t *)pto__vcalloc(v, nn, sizeof(int32_t));
    v->kname = (int32_t *)pto__vcalloc(v, nn, sizeof(int32_t));
    return !v->internal;
}

/* An `out` tensor that no statement of its kernel writes keeps whatever the
   launch left in it, and `ptoc run` still says "match" (both sides keep the
   same bytes): nearly always a forgotten or misdirected tstore. A warning
   at the parameter, once the kernels verified clean. A kernel that writes
   no tensor at all (no out, no inout, on any path: nothing it computes
   leaves the core) draws one warning at the kernel instead. */
static void pto__vunwritten(pto__verifier *v)
{
    const pto_module *m = v->m;
    uint8_t *w;
    int32_t s, k, p;
    int i;
    /* phase 1 noted them when it saw every statement (none is detached) */
    if (m->n_params <= 0) w = NULL;   /* kernels without params: nothing to write */
    else if (v->nvisited == m->n_stmts) w = v->pwritten;
    else if (!(w = (uint8_t *)pto__vcalloc(v, (size_t)m->n_params, 1))) return;
    for (s = 0; s < m->n_stmts && w && w != v->pwritten; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_opinfo *oi = pto_opinfo_get((pto_op)st->op);
        for (i = 0; st->kind == PTO_ST_OP && i < st->nargs && i < oi->nargs && i < 4; i++) {
            const pto_operand *o = pto_stmt_arg(m, s, i);
            if (o && o->kind == PTO_O_GM && (oi->arg[i] & PTO_A_WRITE) && o->ref >= 0 && o->ref < m->n_params)
                w[o->ref] = 1;
        }
    }
    for (k = 0; k < m->n_kernels; k++) {
        const pto_kernel *kk = &m->kernels[k];
        int any = 0;
        for (p = kk->param0; w && p < kk->param0 + kk->nparams; p++) any |= w[p];
        if (!any) {
            /* nothing reaches GM at all: one warning at the kernel (the
               out tensors' own would only repeat it) */
            pto_warning(v->ctx, kk->loc, "kernel '%s' writes no output: no tstore, tput, tget, notify or allreduce "
                        "writes any of its tensors, so running it changes nothing", pto__vname(v, kk->name));
            continue;
        }
        for (p = kk->param0; p < kk->param0 + kk->nparams; p++)
            if (m->params[p].kind == PTO_P_TENSOR && m->params[p].dir == PTO_OUT && !w[p])
                pto_warning(v->ctx, m->params[p].loc, "'%s' is an 'out' tensor of kernel '%s' but nothing writes it",
                            pto__vname(v, m->params[p].name), pto__vname(v, kk->name));
    }
    if (w && w != v->pwritten) pto_free(v->ctx, w);
}

/* host sections are checked by host.c */
static pto_status pto__hs_verify(pto_ctx *ctx, const pto_module *m);

PTODEF pto_status pto_verify(pto_ctx *ctx, pto_module *m)
{
    pto__verifier v;
    int before = pto_error_count(ctx);
    int32_t k;
    memset(&v, 0, sizeof v);
    v.ctx = ctx;
    v.m = m;
    if (!m) {
        pto_loc none = {0, 0, 0};
        return pto_error(ctx, none, "pto_verify: the module is NULL");
    }
    m->verified = 0;
    if (m->broken) {
        pto_loc none = {m->file, 0, 0};
        pto_error(ctx, none, "the module is incomplete: %ld builder call(s) were refused or ran out of memory "
                  "(the errors they recorded say which)", (long)m->broken);
        return PTO_ERR_USER;
    }
    if (m->arch >= PTO_NARCH) {
        pto_loc none = {m->file, 0, 0};
        pto_error(ctx, none, "unknown arch %d", (int)m->arch);
        return PTO_ERR_USER;
    }
    if (pto__valloc(&v))
        for (k = 0; k < m->n_kernels && !v.internal; k++) pto__vkernel(&v, k);
    if (!v.internal && pto_error_count(ctx) == before) pto__vunwritten(&v);
    pto__vfree(&v);
    if (v.internal) return PTO_ERR_INTERNAL;
    if (pto__hs_verify(ctx, m) == PTO_ERR_INTERNAL) return PTO_ERR_INTERNAL;
    if (pto_error_count(ctx) != before) return PTO_ERR_USER;
    m->verified = 1;   /* the stamp the later passes require (ir.h) */
    return PTO_OK;
}
/* ---- End file: src/verify.c ---- */

/* ---- Begin file: src/interp.c ---- */
/* interp.c - the reference interpreter: the oracle every generated kernel is
   compared with, bit for bit. It needs a module whose ids are well formed (as
   the builders make them); it re-checks at run time everything that could
   make it read or write outside a host array or a tile, so an unverified or
   wrong kernel gives a diagnostic, never a crash.

   The reference semantics (the simulator implements exactly the same):

   Launch. The kernel's blocks(EXPR) is evaluated once, with the dims and
   scalars bound, block = 0, blocks = 1, subblock = 0, rank = 0 (no blocks
   clause = 1 block; a negative count is an error). Then every block b in
   [0, blocks) runs, in order, with block = b, blocks = the count, subblock = 0.
   A `ranks` kernel runs all of its blocks once per rank, rank-major, with
   rank = r and nranks = launch->nranks (0 means 1); other kernels see rank 0
   and nranks 1. Statements run in program order. A mix kernel's block is a
   cluster: the cube { } section runs once (subblock 0) and the vector { }
   section twice, as AIV 0 and AIV 1 (subblock 0 and 1), each core with its
   own tiles; they exchange tiles only through pipes (bounded FIFOs, see
   pto__exec_cvpipe), run as resumable steps in either order until all
   finish, and a round where none can go on is a deadlock error. set_flag,
   wait_flag and pipe_barrier do nothing here.

   Bindings. Dynamic dims and scalar params take their values from
   launch->bindings by name (bindings naming nothing are ignored). Every
   dynamic dim must be bound, to an integer in [0, 2^31): a tensor's shape
   needs it. A scalar must be bound only if it is used; used in an integer
   expression its value must be an integer.

   Integer expressions are int64 with C semantics (division truncates, %
   takes the sign of the dividend). Division or modulo by zero, and any
   result that overflows int64, is a runtime error at the expression.

   Loops. start, end and step are evaluated once at loop entry; the body runs
   for i = start, start + step, ... while i < end (start >= end: zero times).
   step must be > 0. if compares two expressions.

   Budget. A launch may run at most launch->max_instr ops (0 means
   PTO_MAX_INSTR_DEFAULT) over all its blocks, cores and ranks; set_flag,
   wait_flag and pipe_barrier do not count (the simulator counts the same
   way, so both stop a runaway at the same point). The next op is an error
   at the innermost loop running (or at the op outside any loop).

   Pipes. Every slot pushed into a cube/vector pipe must be popped by each
   consumer before the block ends; slots left are an error naming the pipe
   and the counts (pto__in_rings_drained).

   Tiles. Each execution of a TILE statement gives the tile fresh storage, all
   zero (a tile read before any write reads zeros; at the start of every
   block every tile is zero). A kernel whose result depends on those zeros
   is wrong on the device, where a planned address holds its previous
   tenant's bytes: the simulator (pto_kernels.h) reports every read of local
   bytes nothing wrote since the launch or the tile's declaration
   (pto_k_tdecl) as an "uninitialised read" error instead of computing a
   different value silently. An xN tile is one buffer here: its slots never
   change values. The valid region valid(vr, vc) is evaluated at the
   declaration and must lie in [0, rows] x [0, cols].

   GM windows. `X[r, c]` names the vr x vc window (the tile operand's valid
   region) whose top-left element is (r, c); `X@p[r, c]` is rank p's copy
   (0 <= p < nranks). A non-empty window that is not inside the tensor is an
   error naming the tensor, the window and the shapes; an empty window (vr or
   vc is 0) touches nothing and is never an error.
   - tload t, X[r, c]: t's valid region gets the window; every other element
     of t becomes 0.  tstore X[r, c], t: writes the valid region only.
   - tload, tstore, tmov and textract copy bits when the dtypes are equal
     (so i32 above 2^24 survives); otherwise the value goes through f32
     (tstore of an f32 acc to an f16 / bf16 tensor: the fixpipe's cast).

   Element values. Every element is read as f32 (pto_elem_get) and written
   with pto_elem_set: f16/bf16 round to nearest even, f32 -> i32/i8 rounds to
   nearest even and saturates (NaN -> 0). An arithmetic result that is NaN
   (+ - * /, texp tlog tsqrt trsqrt trecip, trowsum, tcolsum, matmul) is the
   canonical NaN 0x7fc00000 (pto_nan_canon: C does not fix a NaN result's
   sign or payload); tmax/tmin and the row and column max/min select an
   operand and tabs/tneg touch only the sign, so they keep NaN bits. Arithmetic is f32 with no fused
   multiply-add: each product is its own statement, so contraction within an
   expression (clang's default) cannot apply; build with -ffp-contract=off
   where the compiler contracts across statements (gcc in GNU mode).
   On i32/i8 tiles tadd tsub tmul tmax tmin, their scalar forms, tabs tneg
   trelu, texpands, the row / column reductions (the sums in int64) and the
   row / column broadcasts but the div ones are exact integer operations
   (numerics.h: in int64, stored wrapped to the dtype, two's complement,
   as the device's integer overflow wraps); tdiv and trowexpanddiv /
   tcolexpanddiv go through f32 (exact below 2^24).

   Vector ops compute over the DESTINATION's valid region; elements outside it
   keep their values. Sources are read at the same (r, c) and must have the
   destination's shape.
   - tadd tsub tmul tdiv: a + b, a - b, a * b, a / b.  The *s forms use the
     scalar as b, converted to the destination's dtype first, as pto-isa's
     TADDS .. TMINS take it (pto_scalar_as: f32 rounds, f16/bf16 round to
     nearest even, i32/i8 truncate toward zero); texpands fills with the same.
   - tmax(a, b) = a if a is NaN, else b if b is NaN, else (a >= b ? a : b);
     tmin the same with <=. So a NaN operand propagates (the first NaN wins)
     and equal values (+0 and -0 too) give a.
   - texp tlog tsqrt: expf logf sqrtf. trsqrt = 1.0f / sqrtf(x).
     trecip = 1.0f / x. tabs = fabsf. tneg = -x as a sign-bit flip
     (pto_fneg: it flips the sign of 0 and NaN whatever the compiler).
     trelu = x > 0 ? x : +0.0f, so trelu(-0.0) = +0.0 and trelu(NaN) = +0.0.
   - texpands d, s: every valid element of d = s as the *s forms convert it.
   - trowsum/trowmax/trowmin d, a: d is [R, 1]; for each valid row r of d,
     reduce a[r, 0 .. a.valid_c) left to right in f32: the sum starts at 0.0f
     and adds; max/min start at the first element and apply tmax/tmin (an
     empty row gives -inf for max, +inf for min). Like every vector op it
     writes only d's valid region: nothing when d has valid(R, 0). On an
     i32 / i8 tile the same in int64, exactly, stored wrapped (an empty
     row's max / min: the dtype's least / greatest value).
   - trowexpand{add,sub,mul,div} d, a, v: d[r, c] = a[r, c] op v[r, 0].
   - tcolsum/tcolmax/tcolmin d, a: d is [1, C]; for each valid column c of
     d (when d's valid rows are not 0), reduce a[0 .. a.valid_r, c] top to
     bottom in f32, the order of pto-isa's sequential TCOLSUM / TCOLMAX /
     TCOLMIN (the first row, then each next row combined into it): the sum
     is ((a[0][c] + a[1][c]) + a[2][c]) + ... and a NaN sum is the
     canonical NaN; max/min apply tmax/tmin down the rows. No valid rows
     give 0.0f for the sum, -inf for max, +inf for min. i32 / i8 tiles:
     exact in int64, stored wrapped, as trowsum.
   - tcolexpand{add,sub,mul,div} d, a, v: d[r, c] = a[r, c] op v[0, c]
     (v is [1, C]; the verifier wants v's valid cols to cover d's).
   - tcvt d, a: read as f32, write with d's rounding (pto_cvt_set: f16 ->
     i8 keeps the low 8 bits of the rounded value, as the device's default
     non-saturating narrowing does; other pairs saturate).
   - tmov d, a: copies d's valid region from the same positions of a (any
     spaces; acc -> vec rounds f32 to d's dtype).
   - textract d, a, r, c: d[i][j] = a[r + i][c + j] over the full shape of d;
     the window must lie inside a.
   - tmatmul c, a, b (shapes a [R, C], b [C, N'], c [R, N']): pto-isa's
     TMATMUL domain, M = a's valid rows, K = a's valid cols, N = b's valid
     cols (each in 1..4095, which the device asserts: else an error, as in
     the simulator): for each c[i][j] with i < M, j < N, acc = 0.0f (tmatmul_acc: c's
     current value), then for k < K ascending: p = a[i][k] * b[k][j]; acc =
     acc + p; in f32; then c[i][j] = acc, rounded to c's dtype (i8 x i8 -> i32:
     the same in int64, exactly, stored wrapped, as the cube's integer
     MACs; numerics.h pto_el_mm_i8). The rest of
     c keeps its values (the device's cube works in whole fractals there:
     store only c's M x N).

   Errors are pto_error diagnostics at the statement (or, inside an
   expression, at the expression), followed by a note naming the block (and
   rank) that failed; pto_interp then returns PTO_ERR_USER and stops. Host
   arrays outside the written windows are never touched.

   Speed: expressions read an env array indexed by var id; every tile of the
   kernel lives in one arena allocated once; matmul converts its operands to
   f32 scratch once per op. Nothing is allocated per element or per block. */

enum { PTO__UNBOUND, PTO__BOUND, PTO__NOTINT };

#define PTO__MAX_TILE_BYTES ((int64_t)1 << 28)
#define PTO__MAX_DEPTH 200

typedef struct pto__itile {
    unsigned char *data;   /* rows * cols elements of the tile's dtype; NULL: not this kernel's */
    int64_t vr, vc;        /* valid region of the latest declaration */
} pto__itile;

typedef struct pto__interp {
    pto_ctx *ctx;
    const pto_module *m;
    const pto_launch *L;
    const pto_kernel *k;
    int64_t *env;          /* per var: its integer value */
    uint8_t *state;        /* per var: PTO__UNBOUND / PTO__BOUND / PTO__NOTINT */
    double *sval;          /* per var: a scalar param's value */
    pto__itile *tiles;     /* per tile id */
    unsigned char *arena;  /* the kernel's tiles */
    size_t arena_size;
    float *scratch;        /* matmul operands in f32 */
    int64_t (*shape)[2];   /* per kernel param: its extents */
    int64_t block, blocks, rank, nranks;
    int oom;
    /* mix kernels: the three cores of a cluster, resumable by replay */
    int64_t subblock;
    int core;              /* pto_core of the section running */
    pto__itile *ctiles[3]; /* per core (cube, aiv0, aiv1): its own tile storage */
    struct pto__iring *rings; /* per cvpipe id */
    int64_t step, done;    /* ops and tile decls passed / already run by earlier visits */
    int32_t cvblocked;     /* the pipe op that could not go on, or -1 */
    int fail_core;         /* the cluster core (0 cube, 1 AIV 0, 2 AIV 1) an error stopped, or -1 */
    /* ranks kernels run as resumable steps (pto__in_ranks): */
    int stepping;          /* set: wait and allreduce may block */
    int blocked;           /* the op just run could not go on (the step stays on it) */
    int ar;                /* allreduce: 0 none, 1 arrived (waits for every rank), 2 done */
    /* the instruction budget (pto_launch.max_instr), shared by every rank */
    int64_t *ninstr, max_instr;
    int32_t loop;          /* the innermost FOR running, or -1 */
} pto__interp;

/* One cube/vector pipe: its slots and per-direction counters (k 0 = c2v,
   1 = v2c; index me = the subblock on the vector side, 0 on the cube). */
typedef struct pto__iring {
    unsigned char *slots;  /* 2 * slot_num slots: direction k uses [k * slot_num, ...) */
    int64_t pushed[2][2], popped[2][2], freed[2][2];
} pto__iring;

static int pto__fail(pto__interp *I, pto_loc loc, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pto_error(I->ctx, loc, "%s", msg);
    return 0;
}

static const char *pto__in_vname(const pto__interp *I, int32_t v)
{
    return pto_str(I->ctx, I->m->vars[v].name);
}

/* ---- integer expressions ---- */

static int pto__eval(pto__interp *I, int32_t e, int64_t *out, int depth);

static int pto__eval_var(pto__interp *I, const pto_expr *x, int64_t *out)
{
    int32_t v = x->a;
    if (v < 0 || v >= I->m->n_vars) return pto__fail(I, x->loc, "malformed variable reference");
    if (I->state[v] == PTO__BOUND) {
        *out = I->env[v];
        return 1;
    }
    if (I->state[v] == PTO__NOTINT)
        return pto__fail(I, x->loc, "scalar '%s' = %g is used as an integer", pto__in_vname(I, v), I->sval[v]);
    if (I->m->vars[v].kind == PTO_V_SCALAR || I->m->vars[v].kind == PTO_V_DIM)
        return pto__fail(I, x->loc, "'%s' has no binding in the launch", pto__in_vname(I, v));
    return pto__fail(I, x->loc, "'%s' is used before it is defined", pto__in_vname(I, v));
}

static int pto__in_overflow(pto__interp *I, const pto_expr *x)
{
    return pto__fail(I, x->loc, "integer overflow in expression");
}

static int pto__arith(pto__interp *I, const pto_expr *x, int64_t a, int64_t b, int64_t *out)
{
    switch (x->kind) {
    case PTO_E_ADD:
        if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return pto__in_overflow(I, x);
        *out = a + b;
        return 1;
    case PTO_E_SUB:
        if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return pto__in_overflow(I, x);
        *out = a - b;
        return 1;
    case PTO_E_MUL:
        if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
                  : (b > 0 ? a < INT64_MIN / b : (a != 0 && b < INT64_MAX / a)))
            return pto__in_overflow(I, x);
        *out = a * b;
        return 1;
    case PTO_E_DIV:
        if (b == 0) return pto__fail(I, x->loc, "division by zero");
        if (a == INT64_MIN && b == -1) return pto__in_overflow(I, x);
        *out = a / b;
        return 1;
    case PTO_E_MOD:
        if (b == 0) return pto__fail(I, x->loc, "modulo by zero");
        *out = b == -1 ? 0 : a % b;
        return 1;
    case PTO_E_MIN: *out = a < b ? a : b; return 1;
    case PTO_E_MAX: *out = a > b ? a : b; return 1;
    default: return pto__fail(I, x->loc, "malformed expression");
    }
}

static int pto__eval(pto__interp *I, int32_t e, int64_t *out, int depth)
{
    const pto_expr *x;
    int64_t a, b;
    pto_loc none = {0, 0, 0};
    if (e < 0 || e >= I->m->n_exprs) return pto__fail(I, none, "malformed expression");
    x = &I->m->exprs[e];
    if (depth > PTO__MAX_DEPTH) return pto__fail(I, x->loc, "expression nested too deeply");
    switch (x->kind) {
    case PTO_E_INT: *out = x->value; return 1;
    case PTO_E_VAR: return pto__eval_var(I, x, out);
    case PTO_E_BLOCK: *out = I->block; return 1;
    case PTO_E_BLOCKS: *out = I->blocks; return 1;
    case PTO_E_SUBBLOCK: *out = I->subblock; return 1;
    case PTO_E_RANK: *out = I->rank; return 1;
    case PTO_E_NRANKS: *out = I->nranks; return 1;
    case PTO_E_NEG:
        if (!pto__eval(I, x->a, &a, depth + 1)) return 0;
        if (a == INT64_MIN) return pto__in_overflow(I, x);
        *out = -a;
        return 1;
    default:
        if (!pto__eval(I, x->a, &a, depth + 1) || !pto__eval(I, x->b, &b, depth + 1)) return 0;
        return pto__arith(I, x, a, b, out);
    }
}

/* ---- element arithmetic (the rules in the overview) ---- */

/* op is one of TADD .. TMIN (numerics.h holds the arithmetic). */
static float pto__binop(int op, float a, float b) { return pto_el_bin(op - PTO_OP_TADD, a, b); }

/* op is one of TEXP .. TRELU. */
static float pto__unop(int op, float x) { return pto_el_un(op - PTO_OP_TEXP, x); }

/* ---- operands ---- */

/* A tile operand of this kernel with its declaration. */
typedef struct pto__top {
    const pto_tile *t;
    pto__itile *it;
} pto__top;

static int pto__tile_arg(pto__interp *I, int32_t s, int i, pto__top *out)
{
    const pto_operand *o = pto_stmt_arg(I->m, s, i);
    const pto_stmt *st = &I->m->stmts[s];
    const char *op = pto_opinfo_get((pto_op)st->op)->name;
    if (!o || o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= I->m->n_tiles || !I->tiles[o->ref].data)
        return pto__fail(I, st->loc, "%s: operand %d must be a tile of this kernel", op, i + 1);
    out->t = &I->m->tiles[o->ref];
    out->it = &I->tiles[o->ref];
    return 1;
}

static const char *pto__in_tname(const pto__interp *I, const pto__top *t)
{
    return pto_str(I->ctx, t->t->name);
}

/* b must be [rows, cols] (cols < 0: any cols); d names the tile it must match. */
static int pto__same_shape(pto__interp *I, int32_t s, const pto__top *d, const pto__top *b, int32_t rows,
                           int32_t cols)
{
    if (b->t->rows == rows && (cols < 0 || b->t->cols == cols)) return 1;
    return pto__fail(I, I->m->stmts[s].loc, "%s: tile '%s' is [%d, %d], expected [%d, %d] to match '%s'",
                     pto_opinfo_get((pto_op)I->m->stmts[s].op)->name, pto__in_tname(I, b), (int)b->t->rows,
                     (int)b->t->cols, (int)rows, (int)(cols < 0 ? b->t->cols : cols), pto__in_tname(I, d));
}

/* Operand i of statement s, a scalar, as the destination's dtype takes it
   (pto_scalar_as: the device converts it to the tile's element type). */
static int pto__scalar_arg(pto__interp *I, int32_t s, int i, int dtype, float *out)
{
    const pto_operand *o = pto_stmt_arg(I->m, s, i);
    const pto_stmt *st = &I->m->stmts[s];
    int64_t v;
    if (o && o->kind == PTO_O_FLOAT) {
        *out = pto_scalar_as(dtype, o->f);
        return 1;
    }
    if (o && o->kind == PTO_O_INT) {
        if (!pto__eval(I, o->e[0], &v, 0)) return 0;
        *out = pto_scalar_as(dtype, (double)v);
        return 1;
    }
    if (o && o->kind == PTO_O_SCALAR && o->ref >= 0 && o->ref < I->m->n_vars) {
        if (I->state[o->ref] == PTO__UNBOUND)
            return pto__fail(I, o->loc, "'%s' has no binding in the launch", pto__in_vname(I, o->ref));
        *out = pto_scalar_as(dtype, I->sval[o->ref]);
        return 1;
    }
    return pto__fail(I, st->loc, "%s: operand %d must be a scalar", pto_opinfo_get((pto_op)st->op)->name, i + 1);
}

/* A resolved GM window: the host array of one rank and the top-left corner. */
typedef struct pto__win {
    unsigned char *base;
    int dtype;
    int64_t d1, r, c;
} pto__win;

static int pto__window(pto__interp *I, int32_t s, int i, int64_t nr, int64_t nc, pto__win *w)
{
    const pto_operand *o = pto_stmt_arg(I->m, s, i);
    const pto_stmt *st = &I->m->stmts[s];
    const char *op = pto_opinfo_get((pto_op)st->op)->name, *name;
    const pto_param *p;
    int64_t rank = I->rank, pi;
    char rk[32] = "";
    if (!o || o->kind != PTO_O_GM || o->ref < I->k->param0 || o->ref >= I->k->param0 + I->k->nparams ||
        I->m->params[o->ref].kind != PTO_P_TENSOR)
        return pto__fail(I, st->loc, "%s: operand %d must be a window of a tensor param", op, i + 1);
    p = &I->m->params[o->ref];
    pi = o->ref - I->k->param0;
    name = pto_str(I->ctx, p->name);
    if (!pto__eval(I, o->e[0], &w->r, 0) || !pto__eval(I, o->e[1], &w->c, 0)) return 0;
    if (o->e[2] >= 0) {
        if (!pto__eval(I, o->e[2], &rank, 0)) return 0;
        if (rank < 0 || rank >= I->nranks)
            return pto__fail(I, st->loc, "%s: rank %lld of %s@%lld is outside [0, %lld)", op, (long long)rank,
                             name, (long long)rank, (long long)I->nranks);
        snprintf(rk, sizeof rk, "@%lld", (long long)rank);
    }
    if (nr > 0 && nc > 0 &&
        (w->r < 0 || w->c < 0 || w->r > I->shape[pi][0] - nr || w->c > I->shape[pi][1] - nc))
        return pto__fail(I, st->loc, "%s: window %s%s[%lld, %lld] of shape [%lld, %lld] is outside tensor '%s' of shape [%lld, %lld]",
                         op, name, rk, (long long)w->r, (long long)w->c, (long long)nr, (long long)nc, name,
                         (long long)I->shape[pi][0], (long long)I->shape[pi][1]);
    w->base = (unsigned char *)I->L->tensors[rank * I->k->nparams + pi];
    w->dtype = p->dtype;
    w->d1 = I->shape[pi][1];
    return 1;
}

/* Copies an nr x nc block: element (i, j) of src (row stride ss, dtype sd)
   to (i, j) of dst (row stride ds, dtype dd). Equal dtypes copy bits. */
static void pto__copy(unsigned char *dst, int dd, int64_t ds, const unsigned char *src, int sd, int64_t ss,
                      int64_t nr, int64_t nc)
{
    int64_t i, j;
    size_t es = (size_t)pto_dtype_size((pto_dtype)dd);
    if (nr <= 0 || nc <= 0) return;
    for (i = 0; i < nr; i++) {
        if (dd == sd) {
            memcpy(dst + (size_t)(i * ds) * es, src + (size_t)(i * ss) * es, (size_t)nc * es);
            continue;
        }
        for (j = 0; j < nc; j++) pto_elem_set(dst, dd, i * ds + j, pto_elem_get(src, sd, i * ss + j));
    }
}

/* ---- op classes ---- */

static int pto__exec_load(pto__interp *I, int32_t s)
{
    pto__top t;
    pto__win w;
    if (!pto__tile_arg(I, s, 0, &t) || !pto__window(I, s, 1, t.it->vr, t.it->vc, &w)) return 0;
    if (t.it->vr < t.t->rows || t.it->vc < t.t->cols) memset(t.it->data, 0, (size_t)pto_tile_bytes(t.t));
    if (t.it->vr > 0 && t.it->vc > 0)
        pto__copy(t.it->data, t.t->dtype, t.t->cols, w.base + (size_t)(w.r * w.d1 + w.c) * (size_t)pto_dtype_size((pto_dtype)w.dtype),
                  w.dtype, w.d1, t.it->vr, t.it->vc);
    return 1;
}

static int pto__exec_store(pto__interp *I, int32_t s)
{
    pto__top t;
    pto__win w;
    if (!pto__tile_arg(I, s, 1, &t) || !pto__window(I, s, 0, t.it->vr, t.it->vc, &w)) return 0;
    if (t.it->vr > 0 && t.it->vc > 0)
        pto__copy(w.base + (size_t)(w.r * w.d1 + w.c) * (size_t)pto_dtype_size((pto_dtype)w.dtype), w.dtype, w.d1,
                  t.it->data, t.t->dtype, t.t->cols, t.it->vr, t.it->vc);
    return 1;
}

/* tadd .. tmin, tadds .. tmins, unary ops, texpands, tcvt, vec->vec tmov:
   d's valid region from a (and b or the scalar) at the same positions. */
static int pto__exec_map(pto__interp *I, int32_t s, pto_opclass cls)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top d, a, b;
    float sc = 0.0f;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int op = st->op;
    int64_t r, c, cols;
    if (!pto__tile_arg(I, s, 0, &d)) return 0;
    if (cls != PTO_OC_FILL && (!pto__tile_arg(I, s, 1, &a) || !pto__same_shape(I, s, &d, &a, d.t->rows, d.t->cols)))
        return 0;
    if (cls == PTO_OC_BIN && (!pto__tile_arg(I, s, 2, &b) || !pto__same_shape(I, s, &d, &b, d.t->rows, d.t->cols)))
        return 0;
    if (cls == PTO_OC_BINS && !pto__scalar_arg(I, s, 2, d.t->dtype, &sc)) return 0;
    if (cls == PTO_OC_FILL && !pto__scalar_arg(I, s, 1, d.t->dtype, &sc)) return 0;
    if (cls == PTO_OC_BINS) op -= PTO_OP_TADDS - PTO_OP_TADD;
    cols = d.t->cols;
    if (pto_el_int_op(d.t->dtype, cls == PTO_OC_FILL ? -100 : cls == PTO_OC_UN ? -1 - (op - PTO_OP_TEXP)
                                   : cls == PTO_OC_BIN || cls == PTO_OC_BINS ? op - PTO_OP_TADD : -50)
        && (cls == PTO_OC_FILL || a.t->dtype == d.t->dtype) && (cls != PTO_OC_BIN || b.t->dtype == d.t->dtype)) {
        /* an integer tile: exact integer arithmetic (numerics.h) */
        int64_t si = 0;
        if (cls == PTO_OC_BINS || cls == PTO_OC_FILL) {
            const pto_operand *o = pto_stmt_arg(I->m, s, cls == PTO_OC_FILL ? 1 : 2);
            int64_t v;
            if (o->kind == PTO_O_FLOAT) si = pto_scalar_asi(d.t->dtype, o->f);
            else if (o->kind == PTO_O_INT) {
                if (!pto__eval(I, o->e[0], &v, 0)) return 0;
                si = pto_scalar_asi(d.t->dtype, (double)v);
            } else si = pto_scalar_asi(d.t->dtype, I->sval[o->ref]);   /* bound: pto__scalar_arg checked */
        }
        for (r = 0; r < d.it->vr; r++)
            for (c = 0; c < d.it->vc; c++) {
                int64_t i = r * cols + c, x = cls == PTO_OC_FILL ? si : pto_elem_geti(a.it->data, a.t->dtype, i), y;
                if (cls == PTO_OC_BIN) y = pto_el_bin_i(op - PTO_OP_TADD, x, pto_elem_geti(b.it->data, b.t->dtype, i));
                else if (cls == PTO_OC_BINS) y = pto_el_bin_i(op - PTO_OP_TADD, x, si);
                else if (cls == PTO_OC_UN) y = pto_el_un_i(op - PTO_OP_TEXP, x);
                else y = x;
                pto_elem_seti(d.it->data, d.t->dtype, i, y);
            }
        return 1;
    }
    for (r = 0; r < d.it->vr; r++) {
        for (c = 0; c < d.it->vc; c++) {
            int64_t i = r * cols + c;
            float x = cls == PTO_OC_FILL ? sc : pto_elem_get(a.it->data, a.t->dtype, i), y;
            switch (cls) {
            case PTO_OC_BIN: y = pto__binop(op, x, pto_elem_get(b.it->data, b.t->dtype, i)); break;
            case PTO_OC_BINS: y = pto__binop(op, x, sc); break;
            case PTO_OC_UN: y = pto__unop(op, x); break;
            default: y = x; break; /* fill, cvt, mov */
            }
            if (cls == PTO_OC_CVT) pto_cvt_set(d.it->data, d.t->dtype, a.t->dtype, i, y);
            else pto_elem_set(d.it->data, d.t->dtype, i, y);
        }
    }
    return 1;
}

/* tmov: d's valid region from the same positions of a; equal dtypes copy bits. */
static int pto__exec_mov(pto__interp *I, int32_t s)
{
    pto__top d, a;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a) ||
        !pto__same_shape(I, s, &d, &a, d.t->rows, d.t->cols))
        return 0;
    pto__copy(d.it->data, d.t->dtype, d.t->cols, a.it->data, a.t->dtype, a.t->cols, d.it->vr, d.it->vc);
    return 1;
}

static int pto__exec_rowred(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top d, a;
    int64_t r, c, n;
    int eop = st->op == PTO_OP_TROWSUM ? PTO_EL_ADD : st->op == PTO_OP_TROWMAX ? PTO_EL_MAX : PTO_EL_MIN;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a) ||
        !pto__same_shape(I, s, &a, &d, a.t->rows, 1))
        return 0;
    n = a.it->vc;
    if (pto_el_int_op(d.t->dtype, eop) && a.t->dtype == d.t->dtype) {
        /* an integer tile: exact (numerics.h) */
        for (r = 0; r < d.it->vr && d.it->vc > 0; r++)
            pto_elem_seti(d.it->data, d.t->dtype, r, pto_el_red_i(eop, a.it->data, a.t->dtype, r * a.t->cols, 1, n));
        return 1;
    }
    for (r = 0; r < d.it->vr && d.it->vc > 0; r++) {
        const void *row = a.it->data;
        int64_t base = r * a.t->cols;
        float acc;
        if (st->op == PTO_OP_TROWSUM) {
            acc = 0.0f;
            for (c = 0; c < n; c++) acc = acc + pto_elem_get(row, a.t->dtype, base + c);
            acc = pto_nan_canon(acc);
        } else if (n == 0) {
            acc = st->op == PTO_OP_TROWMAX ? -INFINITY : INFINITY;
        } else {
            acc = pto_elem_get(row, a.t->dtype, base);
            for (c = 1; c < n; c++)
                acc = pto__binop(st->op == PTO_OP_TROWMAX ? PTO_OP_TMAX : PTO_OP_TMIN, acc,
                                 pto_elem_get(row, a.t->dtype, base + c));
        }
        pto_elem_set(d.it->data, d.t->dtype, r, acc);
    }
    return 1;
}

/* trowexpand* (by_col 0: v is [R, 1], one value per row) and tcolexpand*
   (by_col 1: v is [1, C], one value per column): d = a op v broadcast
   over d's valid region; `first` is the op's ADD, so op - first picks
   add, sub, mul or div. */
static int pto__exec_expand(pto__interp *I, int32_t s, int first, int by_col)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top d, a, v;
    int op = PTO_OP_TADD + (st->op - first);
    int64_t r, c;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a) || !pto__tile_arg(I, s, 2, &v) ||
        !pto__same_shape(I, s, &d, &a, d.t->rows, d.t->cols) ||
        !pto__same_shape(I, s, &d, &v, by_col ? 1 : d.t->rows, by_col ? d.t->cols : 1))
        return 0;
    if (pto_el_int_op(d.t->dtype, op - PTO_OP_TADD) && a.t->dtype == d.t->dtype && v.t->dtype == d.t->dtype) {
        /* an integer tile: exact (numerics.h) */
        for (r = 0; r < d.it->vr; r++)
            for (c = 0; c < d.it->vc; c++) {
                int64_t i = r * d.t->cols + c, y = pto_elem_geti(v.it->data, v.t->dtype, by_col ? c : r);
                pto_elem_seti(d.it->data, d.t->dtype, i,
                              pto_el_bin_i(op - PTO_OP_TADD, pto_elem_geti(a.it->data, a.t->dtype, i), y));
            }
        return 1;
    }
    for (r = 0; r < d.it->vr; r++)
        for (c = 0; c < d.it->vc; c++) {
            int64_t i = r * d.t->cols + c;
            float y = pto_elem_get(v.it->data, v.t->dtype, by_col ? c : r);
            pto_elem_set(d.it->data, d.t->dtype, i, pto__binop(op, pto_elem_get(a.it->data, a.t->dtype, i), y));
        }
    return 1;
}

static int pto__exec_colred(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top d, a;
    int64_t r, c, n, cols;
    int eop = st->op == PTO_OP_TCOLSUM ? PTO_EL_ADD : st->op == PTO_OP_TCOLMAX ? PTO_EL_MAX : PTO_EL_MIN;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a) ||
        !pto__same_shape(I, s, &a, &d, 1, a.t->cols))
        return 0;
    n = a.it->vr;
    cols = a.t->cols;
    if (pto_el_int_op(d.t->dtype, eop) && a.t->dtype == d.t->dtype) {
        /* an integer tile: exact (numerics.h) */
        for (c = 0; c < d.it->vc && d.it->vr > 0; c++)
            pto_elem_seti(d.it->data, d.t->dtype, c, pto_el_red_i(eop, a.it->data, a.t->dtype, c, cols, n));
        return 1;
    }
    for (c = 0; c < d.it->vc && d.it->vr > 0; c++) {
        const void *src = a.it->data;
        float acc;
        if (n == 0) {
            acc = st->op == PTO_OP_TCOLSUM ? 0.0f : st->op == PTO_OP_TCOLMAX ? -INFINITY : INFINITY;
        } else {
            acc = pto_elem_get(src, a.t->dtype, c);
            for (r = 1; r < n; r++) {
                float x = pto_elem_get(src, a.t->dtype, r * cols + c);
                acc = st->op == PTO_OP_TCOLSUM ? acc + x
                                               : pto__binop(st->op == PTO_OP_TCOLMAX ? PTO_OP_TMAX : PTO_OP_TMIN, acc, x);
            }
            if (st->op == PTO_OP_TCOLSUM) acc = pto_nan_canon(acc);
        }
        pto_elem_set(d.it->data, d.t->dtype, c, acc);
    }
    return 1;
}

static int pto__exec_extract(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    const pto_operand *orow = pto_stmt_arg(I->m, s, 2), *ocol = pto_stmt_arg(I->m, s, 3);
    pto__top d, a;
    int64_t r, c;
    size_t es;
    if (!pto__tile_arg(I, s, 0, &d) || !pto__tile_arg(I, s, 1, &a)) return 0;
    if (!orow || !ocol || orow->kind != PTO_O_INT || ocol->kind != PTO_O_INT)
        return pto__fail(I, st->loc, "textract: operands 3 and 4 must be integers");
    if (!pto__eval(I, orow->e[0], &r, 0) || !pto__eval(I, ocol->e[0], &c, 0)) return 0;
    if (r < 0 || c < 0 || r > a.t->rows - d.t->rows || c > a.t->cols - d.t->cols)
        return pto__fail(I, st->loc, "textract: window [%lld, %lld] of shape [%d, %d] is outside tile '%s' of shape [%d, %d]",
                         (long long)r, (long long)c, (int)d.t->rows, (int)d.t->cols, pto__in_tname(I, &a),
                         (int)a.t->rows, (int)a.t->cols);
    es = (size_t)pto_dtype_size((pto_dtype)a.t->dtype);
    /* whole 16-row x 32-byte fractals of a (the verifier checks what it knows statically; a
       launch-time step reaches here) */
    if (r % 16 != 0 || (c * (int64_t)es) % 32 != 0)
        return pto__fail(I, st->loc, "textract: offset [%lld, %lld] into '%s' is not whole fractals: offsets into a mat tile "
                         "are multiples of 16 rows and %d cols for %s",
                         (long long)r, (long long)c, pto__in_tname(I, &a), (int)(32 / es),
                         pto_dtype_name((pto_dtype)a.t->dtype));
    pto__copy(d.it->data, d.t->dtype, d.t->cols, a.it->data + (size_t)(r * a.t->cols + c) * es, a.t->dtype,
              a.t->cols, d.t->rows, d.t->cols);
    return 1;
}

/* Converts a whole tile to f32. */
static void pto__to_f32(float *dst, const pto__top *t)
{
    int64_t i, n = (int64_t)t->t->rows * t->t->cols;
    for (i = 0; i < n; i++) dst[i] = pto_elem_get(t->it->data, t->t->dtype, i);
}

static int pto__exec_matmul(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    pto__top c, a, b;
    int64_t M, K, N, SA, SB, SC, i, j, k;
    int which;
    float *fa, *fb, *row;
    if (!pto__tile_arg(I, s, 0, &c) || !pto__tile_arg(I, s, 1, &a) || !pto__tile_arg(I, s, 2, &b) ||
        !pto__same_shape(I, s, &c, &a, c.t->rows, -1) || !pto__same_shape(I, s, &a, &b, a.t->cols, c.t->cols))
        return 0;
    /* pto-isa's TMATMUL asserts m, k, n (below) in 1..4095 on the device:
       an empty valid region is an error, as in the simulator */
    if ((which = pto_mm_bad_extent(a.it->vr, a.it->vc, b.it->vc)) >= 0)
        return pto__fail(I, st->loc, "%s: %s (the valid %s of '%s') is %lld; pto-isa's TMATMUL takes m, k and n in "
                         "1..4095 (the device asserts it)", pto_opinfo_get((pto_op)st->op)->name,
                         which == 0 ? "m" : which == 1 ? "k" : "n", which == 0 ? "rows" : "columns",
                         pto__in_tname(I, which == 2 ? &b : &a),
                         (long long)(which == 0 ? a.it->vr : which == 1 ? a.it->vc : b.it->vc));
    /* strides are the stored shapes; the domain is the valid one (pto-isa:
       m, k, n from a's valid rows and cols and b's valid cols) */
    SA = a.t->cols, SB = b.t->cols, SC = c.t->cols;
    M = a.it->vr < c.t->rows ? a.it->vr : c.t->rows;
    K = a.it->vc < b.t->rows ? a.it->vc : b.t->rows;
    N = b.it->vc < c.t->cols ? b.it->vc : c.t->cols;
    if (a.t->dtype == PTO_I8 && b.t->dtype == PTO_I8 && c.t->dtype == PTO_I32) {
        /* the cube's integer products and sums are exact (numerics.h) */
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++)
                pto_elem_seti(c.it->data, c.t->dtype, i * SC + j,
                              pto_el_mm_i8(a.it->data, SA, b.it->data, SB, i, j, K,
                                           st->op == PTO_OP_TMATMUL_ACC ? pto_elem_geti(c.it->data, c.t->dtype, i * SC + j)
                                                                        : 0));
        return 1;
    }
    fa = I->scratch;
    fb = fa + (int64_t)a.t->rows * SA;
    row = fb + (int64_t)b.t->rows * SB;
    pto__to_f32(fa, &a);
    pto__to_f32(fb, &b);
    for (i = 0; i < M; i++) {
        /* i-k-j order: every c[i][j] still sums over k ascending */
        for (j = 0; j < N; j++)
            row[j] = st->op == PTO_OP_TMATMUL_ACC ? pto_elem_get(c.it->data, c.t->dtype, i * SC + j) : 0.0f;
        for (k = 0; k < K; k++) {
            float x = fa[i * SA + k];
            const float *bk = fb + k * SB;
            for (j = 0; j < N; j++) {
                float p = x * bk[j];
                row[j] = row[j] + p;
            }
        }
        for (j = 0; j < N; j++) pto_elem_set(c.it->data, c.t->dtype, i * SC + j, pto_nan_canon(row[j]));
    }
    return 1;
}

/* ---- cube <-> vector pipes ----
   A pipe carries [rows, cols] tiles of its dtype through slot_num slots per
   direction, as the device's rings do. tpush waits while every slot holds
   data not yet freed by every consumer; tpop waits until every producer
   has pushed the next slot, then copies this core's part (the whole tile on
   the cube; with a split, AIV s gets or gives half s of the rows or
   columns; without one, both AIVs pop the whole tile and only AIV 0 pushes
   into a v2c pipe); tfree releases the oldest popped slot. Waiting is not
   done here: the op sets I->cvblocked and the section is resumed later. */

static int pto__in_block(pto__interp *I, int32_t s)
{
    I->cvblocked = s;
    return 0;
}

static int pto__in_freed(const pto__iring *r, int k)
{
    return (int)(k == 0 ? (r->freed[0][0] < r->freed[0][1] ? r->freed[0][0] : r->freed[0][1]) : r->freed[1][0]);
}

static int64_t pto__in_pushed(const pto__iring *r, const pto_cvpipe *q, int k)
{
    if (k == 0 || q->split == PTO_SPLIT_NONE) return r->pushed[k][0];
    return r->pushed[1][0] < r->pushed[1][1] ? r->pushed[1][0] : r->pushed[1][1];
}

/* Copies between tile t and its part of slot n of direction k. */
static void pto__in_slot_copy(pto__interp *I, const pto_cvpipe *q, pto__iring *r, int k, int64_t n, const pto__top *t,
                              int to_slot)
{
    int es = pto_dtype_size((pto_dtype)q->dtype);
    int64_t r0 = 0, c0 = 0, i;
    unsigned char *slot = r->slots + (size_t)((k * q->slot_num + n % q->slot_num) * (int64_t)q->slot_size);
    if (I->core == PTO_CORE_VECTOR && q->split == PTO_SPLIT_UP_DOWN) r0 = I->subblock * t->t->rows;
    if (I->core == PTO_CORE_VECTOR && q->split == PTO_SPLIT_LEFT_RIGHT) c0 = I->subblock * t->t->cols;
    for (i = 0; i < t->t->rows; i++) {
        unsigned char *g = slot + (size_t)(((r0 + i) * q->cols + c0) * es);
        unsigned char *l = t->it->data + (size_t)(i * t->t->cols * es);
        if (to_slot) memcpy(g, l, (size_t)t->t->cols * (size_t)es);
        else memcpy(l, g, (size_t)t->t->cols * (size_t)es);
    }
}

static int pto__exec_cvpipe(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    const pto_operand *o = pto_stmt_arg(I->m, s, st->op == PTO_OP_TPOP ? 1 : 0);
    const pto_cvpipe *q;
    pto__iring *r;
    pto__top t;
    int cube = I->core == PTO_CORE_CUBE, me = cube ? 0 : (int)I->subblock, k;
    int32_t R, C;
    if (!o || o->kind != PTO_O_CVPIPE || o->ref < 0 || o->ref >= I->m->n_cvpipes || !I->rings ||
        I->m->cvpipes[o->ref].kernel != I->L->kernel)
        return pto__fail(I, st->loc, "%s needs a pipe of this mix kernel", pto_opinfo_get((pto_op)st->op)->name);
    q = &I->m->cvpipes[o->ref];
    r = &I->rings[o->ref];
    k = (st->op == PTO_OP_TPUSH) == cube ? 0 : 1;
    if (!(q->dir & (1 << k)))
        return pto__fail(I, st->loc, "%s: pipe '%s' has no %s direction", pto_opinfo_get((pto_op)st->op)->name,
                         pto_str(I->ctx, q->name), k ? "v2c" : "c2v");
    if (st->op == PTO_OP_TFREE) {
        if (r->freed[k][me] >= r->popped[k][me])
            return pto__fail(I, st->loc, "tfree of pipe '%s' without a popped slot to free", pto_str(I->ctx, q->name));
        r->freed[k][me]++;
        return 1;
    }
    if (!pto__tile_arg(I, s, st->op == PTO_OP_TPOP ? 0 : 1, &t)) return 0;
    R = q->rows / (!cube && q->split == PTO_SPLIT_UP_DOWN ? 2 : 1);
    C = q->cols / (!cube && q->split == PTO_SPLIT_LEFT_RIGHT ? 2 : 1);
    if (t.t->dtype != q->dtype || t.t->rows != R || t.t->cols != C)
        return pto__fail(I, st->loc, "%s: tile '%s' does not match pipe '%s'", pto_opinfo_get((pto_op)st->op)->name,
                         pto__in_tname(I, &t), pto_str(I->ctx, q->name));
    if (st->op == PTO_OP_TPUSH) {
        if (k == 1 && q->split == PTO_SPLIT_NONE && me == 1)
            return pto__fail(I, st->loc, "tpush: only AIV 0 (subblock 0) pushes into v2c pipe '%s', which has no split",
                             pto_str(I->ctx, q->name));
        if (r->pushed[k][me] - pto__in_freed(r, k) >= q->slot_num) return pto__in_block(I, s);
        pto__in_slot_copy(I, q, r, k, r->pushed[k][me], &t, 1);
        r->pushed[k][me]++;
        return 1;
    }
    if (r->popped[k][me] - r->freed[k][me] >= q->local_slot_num)
        return pto__fail(I, st->loc, "tpop of pipe '%s' overwrites a local slot still held (missing tfree)",
                         pto_str(I->ctx, q->name));
    if (pto__in_pushed(r, q, k) <= r->popped[k][me]) return pto__in_block(I, s);
    pto__in_slot_copy(I, q, r, k, r->popped[k][me], &t, 0);
    r->popped[k][me]++;
    return 1;
}

/* ---- communication (hardware.md section 8) ----
   Signals are i32 cells of a tensor; notify sets or adds (wrapping), wait
   holds its rank until `cell CMP value`. tput / tget copy a ROWS x COLS
   window between two GM windows (either may be a peer's). allreduce is one
   collective step here: it waits until every rank has reached an
   allreduce, then every element of X becomes the f32 sum over ranks in rank
   order 0, 1, .., n-1 (the order of the lowering's accumulation, so the two
   agree bit for bit), in every rank's copy; the signal is left alone (the
   lowering leaves it as it found it). */

static int pto__in_cell(pto__interp *I, int32_t s, int32_t *val, unsigned char **at)
{
    pto__win w;
    if (!pto__window(I, s, 0, 1, 1, &w)) return 0;
    if (w.dtype != PTO_I32)
        return pto__fail(I, I->m->stmts[s].loc, "%s: a signal must be an i32 tensor",
                         pto_opinfo_get((pto_op)I->m->stmts[s].op)->name);
    *at = w.base + (size_t)(w.r * w.d1 + w.c) * 4u;
    memcpy(val, *at, 4);
    return 1;
}

static int pto__in_notify(pto__interp *I, int32_t s)
{
    const pto_operand *vo = pto_stmt_arg(I->m, s, 1), *mo = pto_stmt_arg(I->m, s, 2);
    unsigned char *at;
    int32_t cell;
    int64_t v;
    if (!pto__in_cell(I, s, &cell, &at) || !pto__eval(I, vo->e[0], &v, 0)) return 0;
    if (v < -2147483647 - 1 || v > 2147483647)
        return pto__fail(I, vo->loc, "notify: value %lld does not fit an i32 signal", (long long)v);
    cell = mo->ref == PTO_NOTIFY_ADD ? (int32_t)(uint32_t)((uint32_t)cell + (uint32_t)(int32_t)v) : (int32_t)v;
    memcpy(at, &cell, 4);
    return 1;
}

static int pto__in_wait(pto__interp *I, int32_t s)
{
    const pto_operand *co = pto_stmt_arg(I->m, s, 1), *vo = pto_stmt_arg(I->m, s, 2);
    unsigned char *at;
    int32_t cell;
    int64_t v;
    if (!pto__in_cell(I, s, &cell, &at) || !pto__eval(I, vo->e[0], &v, 0)) return 0;
    if (pto__cmp_holds(co->ref, cell, v)) return 1;
    if (!I->stepping) return pto__fail(I, I->m->stmts[s].loc, "wait never returns: nothing else runs (not a ranks kernel)");
    I->blocked = 1;
    return 1;
}

static int pto__in_xfer(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    int64_t nr, nc;
    pto__win d, a;
    size_t es;
    if (!pto__eval(I, pto_stmt_arg(I->m, s, 2)->e[0], &nr, 0) || !pto__eval(I, pto_stmt_arg(I->m, s, 3)->e[0], &nc, 0))
        return 0;
    if (nr < 0 || nc < 0) return pto__fail(I, st->loc, "%s: negative extent", pto_opinfo_get((pto_op)st->op)->name);
    if (!pto__window(I, s, 0, nr, nc, &d) || !pto__window(I, s, 1, nr, nc, &a)) return 0;
    if (d.dtype != a.dtype) return pto__fail(I, st->loc, "%s: the two tensors differ in dtype", pto_opinfo_get((pto_op)st->op)->name);
    if (d.base == a.base && d.r < a.r + nr && a.r < d.r + nr && d.c < a.c + nc && a.c < d.c + nc)
        return pto__fail(I, st->loc, "%s: the source and destination windows overlap", pto_opinfo_get((pto_op)st->op)->name);
    es = (size_t)pto_dtype_size((pto_dtype)d.dtype);
    pto__copy(d.base + (size_t)(d.r * d.d1 + d.c) * es, d.dtype, d.d1, a.base + (size_t)(a.r * a.d1 + a.c) * es, a.dtype,
              a.d1, nr, nc);
    return 1;
}

static int pto__in_allreduce(pto__interp *I, int32_t s)
{
    if (!I->stepping) return pto__fail(I, I->m->stmts[s].loc, "allreduce needs a ranks kernel");
    if (I->ar == 2) {
        I->ar = 0;
        return 1;
    }
    I->ar = 1;
    I->blocked = 1;
    return 1;
}

static int pto__exec_op(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    const pto_opinfo *info = pto_opinfo_get((pto_op)st->op);
    if (st->op >= PTO_NOP) return pto__fail(I, st->loc, "the interpreter does not know op %d", (int)st->op);
    if (st->nargs < info->nargs)
        return pto__fail(I, st->loc, "%s takes %d operands, got %d", info->name, info->nargs, (int)st->nargs);
    switch (info->cls) {
    case PTO_OC_LOAD: return pto__exec_load(I, s);
    case PTO_OC_STORE: return pto__exec_store(I, s);
    case PTO_OC_BIN:
    case PTO_OC_BINS:
    case PTO_OC_UN:
    case PTO_OC_FILL:
    case PTO_OC_CVT: return pto__exec_map(I, s, info->cls);
    case PTO_OC_MOV: return pto__exec_mov(I, s);
    case PTO_OC_ROWRED: return pto__exec_rowred(I, s);
    case PTO_OC_ROWEXP: return pto__exec_expand(I, s, PTO_OP_TROWEXPANDADD, 0);
    case PTO_OC_COLRED: return pto__exec_colred(I, s);
    case PTO_OC_COLEXP: return pto__exec_expand(I, s, PTO_OP_TCOLEXPANDADD, 1);
    case PTO_OC_EXTRACT: return pto__exec_extract(I, s);
    case PTO_OC_MATMUL: return pto__exec_matmul(I, s);
    case PTO_OC_SYNC: return 1;
    case PTO_OC_CVPIPE: return pto__exec_cvpipe(I, s);
    case PTO_OC_NOTIFY: return pto__in_notify(I, s);
    case PTO_OC_WAIT: return pto__in_wait(I, s);
    case PTO_OC_XFER: return pto__in_xfer(I, s);
    case PTO_OC_ALLREDUCE: return pto__in_allreduce(I, s);
    case PTO_OC_FILLPAD: return 1;   /* the isa target's padding fill: tload has zeroed the padding already */
    }
    return pto__fail(I, st->loc, "the interpreter cannot run %s", info->name);
}

/* ---- statements ---- */

static int pto__run_list(pto__interp *I, int32_t block);

static int pto__run_tile(pto__interp *I, const pto_stmt *st)
{
    const pto_tile *t = &I->m->tiles[st->ref];
    pto__itile *it = &I->tiles[st->ref];
    int64_t vr = t->rows, vc = t->cols;
    if (!it->data) return pto__fail(I, st->loc, "tile '%s' does not belong to this kernel", pto_str(I->ctx, t->name));
    if (t->valid_r >= 0 && !pto__eval(I, t->valid_r, &vr, 0)) return 0;
    if (t->valid_c >= 0 && !pto__eval(I, t->valid_c, &vc, 0)) return 0;
    if (vr < 0 || vr > t->rows || vc < 0 || vc > t->cols)
        return pto__fail(I, st->loc, "valid region (%lld, %lld) of tile '%s' is outside its shape [%d, %d]",
                         (long long)vr, (long long)vc, pto_str(I->ctx, t->name), (int)t->rows, (int)t->cols);
    memset(it->data, 0, (size_t)pto_tile_bytes(t));
    it->vr = vr;
    it->vc = vc;
    return 1;
}

static int pto__run_for(pto__interp *I, const pto_stmt *st)
{
    int64_t lo, hi, step = 1, i;
    int32_t outer = I->loop;
    if (!pto__eval(I, st->e[0], &lo, 0) || !pto__eval(I, st->e[1], &hi, 0)) return 0;
    if (st->e[2] >= 0 && !pto__eval(I, st->e[2], &step, 0)) return 0;
    if (step <= 0) return pto__fail(I, st->loc, "loop step must be positive, got %lld", (long long)step);
    I->loop = (int32_t)(st - I->m->stmts);
    for (i = lo; i < hi;) {
        I->env[st->ref] = i;
        I->state[st->ref] = PTO__BOUND;
        if (!pto__run_list(I, st->body)) return 0;
        /* the next value must stay below hi, and computing it must not overflow */
        if ((uint64_t)hi - (uint64_t)i <= (uint64_t)step) break;
        i += step;
    }
    I->loop = outer;
    return 1;
}

/* The instruction budget: one more op (not a set_flag / wait_flag /
   pipe_barrier, which the simulator's count leaves out too, and not an op a
   resumed mix section replays). Past the limit the run stops with an error
   at the innermost loop running (a runaway loop is the usual cause). */
static int pto__in_counts(const pto_stmt *st)
{
    return st->kind == PTO_ST_OP && pto_opinfo_get((pto_op)st->op)->cls != PTO_OC_SYNC;
}

static int pto__in_count(pto__interp *I, const pto_stmt *st)
{
    const pto_stmt *at = I->loop >= 0 ? &I->m->stmts[I->loop] : st;
    if (!pto__in_counts(st)) return 1;
    if (++*I->ninstr <= I->max_instr) return 1;
    return pto__fail(I, at->loc,
                     "kernel '%s' ran more than %lld instructions (the instruction budget, over every block%s)%s: "
                     "a runaway loop? raise the limit with ptoc run --max-instr N",
                     pto_str(I->ctx, I->k->name), (long long)I->max_instr, I->k->ranks ? " and rank" : "",
                     I->loop >= 0 ? "; this loop was running" : "");
}

static int pto__run_if(pto__interp *I, const pto_stmt *st)
{
    int64_t a, b;
    if (!pto__eval(I, st->e[0], &a, 0) || !pto__eval(I, st->e[1], &b, 0)) return 0;
    if (pto__cmp_holds(st->cmp, a, b)) return pto__run_list(I, st->body);
    return st->orelse >= 0 ? pto__run_list(I, st->orelse) : 1;
}

static int pto__run_stmt(pto__interp *I, int32_t s)
{
    const pto_stmt *st = &I->m->stmts[s];
    int64_t v;
    int ok;
    switch (st->kind) {
    case PTO_ST_OP:
    case PTO_ST_TILE:
        /* a resumed mix section replays its path up to where it stopped */
        if (I->step < I->done) { I->step++; return 1; }
        if (!pto__in_count(I, st)) return 0;
        ok = st->kind == PTO_ST_OP ? pto__exec_op(I, s) : pto__run_tile(I, st);
        if ((I->cvblocked == s || I->blocked) && pto__in_counts(st)) --*I->ninstr;   /* it runs again later */
        if (ok) I->step++;
        return ok;
    case PTO_ST_LET:
        if (!pto__eval(I, st->e[0], &v, 0)) return 0;
        I->env[st->ref] = v;
        I->state[st->ref] = PTO__BOUND;
        return 1;
    case PTO_ST_FOR: return pto__run_for(I, st);
    case PTO_ST_IF: return pto__run_if(I, st);
    case PTO_ST_SECTION: return st->body >= 0 ? pto__run_list(I, st->body) : 1;
    default: return pto__fail(I, st->loc, "malformed statement");
    }
}

static int pto__run_list(pto__interp *I, int32_t block)
{
    int32_t s;
    for (s = I->m->blocks[block].head; s >= 0; s = I->m->stmts[s].next)
        if (!pto__run_stmt(I, s)) return 0;
    return 1;
}

/* ---- launch ---- */

static const pto_binding *pto__find_binding(const pto__interp *I, int32_t v)
{
    const char *name = pto__in_vname(I, v);
    int i;
    for (i = 0; i < I->L->nbindings; i++)
        if (I->L->bindings[i].name && strcmp(I->L->bindings[i].name, name) == 0) return &I->L->bindings[i];
    return NULL;
}

/* Dims and scalars from the bindings; every dynamic dim must be bound. */
static int pto__bind(pto__interp *I, int32_t kernel)
{
    int32_t v;
    for (v = 0; v < I->m->n_vars; v++) {
        const pto_var *var = &I->m->vars[v];
        const pto_binding *b;
        if (var->kernel != kernel || (var->kind != PTO_V_DIM && var->kind != PTO_V_SCALAR)) continue;
        b = pto__find_binding(I, v);
        if (!b) {
            if (var->kind == PTO_V_DIM)
                return pto__fail(I, var->loc, "dynamic dim '%s' has no binding in the launch", pto__in_vname(I, v));
            continue;
        }
        I->sval[v] = b->value;
        if (var->kind == PTO_V_SCALAR && var->def >= 0 && var->def < I->m->n_params) {
            /* an integer scalar holds an integer of its dtype: the device gets one (2.5 would be 2) */
            int dt = I->m->params[var->def].dtype;
            double lo = pto_int_lo(dt), hi = pto_int_hi(dt);
            if ((dt == PTO_I32 || dt == PTO_I8) && !(b->value >= lo && b->value <= hi && b->value == floor(b->value)))
                return pto__fail(I, var->loc, "scalar '%s' is %s and is bound to %g, not an integer in %.0f..%.0f",
                                 pto__in_vname(I, v), pto_dtype_name((pto_dtype)dt), b->value, lo, hi);
        }
        if (var->kind == PTO_V_DIM && !(b->value >= 0 && b->value < 2147483648.0 && b->value == floor(b->value)))
            return pto__fail(I, var->loc, "dynamic dim '%s' is bound to %g, not an integer in [0, 2^31)",
                             pto__in_vname(I, v), b->value);
        if (b->value == floor(b->value) && fabs(b->value) < 9007199254740992.0) {
            I->env[v] = (int64_t)b->value;
            I->state[v] = PTO__BOUND;
        } else {
            I->state[v] = PTO__NOTINT;
        }
    }
    return 1;
}

/* Tensor shapes and host arrays: every tensor of every rank needs one. */
static int pto__tensors(pto__interp *I)
{
    int32_t i, r;
    for (i = 0; i < I->k->nparams; i++) {
        const pto_param *p = &I->m->params[I->k->param0 + i];
        int d;
        if (p->kind != PTO_P_TENSOR) continue;
        for (d = 0; d < 2; d++)
            I->shape[i][d] = p->dim_var[d] >= 0 ? I->env[p->dim_var[d]] : p->dim[d];
        if (I->shape[i][0] < 0 || I->shape[i][1] < 0)
            return pto__fail(I, p->loc, "tensor '%s' has a negative dim", pto_str(I->ctx, p->name));
        for (r = 0; r < I->nranks; r++)
            if (!I->L->tensors || !I->L->tensors[r * I->k->nparams + i])
                return pto__fail(I, p->loc, "tensor '%s' of rank %d has no host array in the launch",
                                 pto_str(I->ctx, p->name), (int)r);
    }
    return 1;
}

static void *pto__zalloc(pto__interp *I, size_t n)
{
    void *p = pto_alloc(I->ctx, n ? n : 1);
    if (!p) {
        I->oom = 1;
        pto__oom(I->ctx);
        return NULL;
    }
    memset(p, 0, n ? n : 1);
    return p;
}

/* The slots of every pipe of a mix kernel. */
static int pto__alloc_rings(pto__interp *I, int32_t kernel)
{
    int32_t i;
    I->rings = (pto__iring *)pto__zalloc(I, sizeof(pto__iring) * (size_t)(I->m->n_cvpipes ? I->m->n_cvpipes : 1));
    if (!I->rings) return 0;
    for (i = 0; i < I->m->n_cvpipes; i++) {
        const pto_cvpipe *q = &I->m->cvpipes[i];
        if (q->kernel != kernel) continue;
        if (q->slot_num <= 0 || q->slot_size <= 0 || (int64_t)q->slot_num * q->slot_size > PTO__MAX_TILE_BYTES ||
            (int64_t)q->rows * q->cols * pto_dtype_size((pto_dtype)q->dtype) != q->slot_size)
            return pto__fail(I, q->loc, "pipe '%s' cannot be interpreted", pto_str(I->ctx, q->name));
        I->rings[i].slots = (unsigned char *)pto__zalloc(I, (size_t)(2 * q->slot_num) * (size_t)q->slot_size);
        if (!I->rings[i].slots) return 0;
    }
    return 1;
}

/* One arena for every tile of the kernel, and f32 scratch for matmul. */
static int pto__alloc_tiles(pto__interp *I, int32_t kernel)
{
    int32_t t;
    int c, ncores;
    size_t off = 0;
    int64_t maxel = 1;
    for (t = 0; t < I->m->n_tiles; t++) {
        const pto_tile *tl = &I->m->tiles[t];
        int64_t bytes = pto_tile_bytes(tl);
        if (tl->kernel != kernel) continue;
        if (tl->rows <= 0 || tl->cols <= 0 || bytes <= 0 || bytes > PTO__MAX_TILE_BYTES)
            return pto__fail(I, tl->loc, "tile '%s' of shape [%d, %d] cannot be interpreted",
                             pto_str(I->ctx, tl->name), (int)tl->rows, (int)tl->cols);
        off += ((size_t)bytes + 31u) & ~(size_t)31u;
        if ((int64_t)tl->rows * tl->cols > maxel) maxel = (int64_t)tl->rows * tl->cols;
    }
    /* a mix kernel's three cores each get their own copy of every tile */
    ncores = I->k->kind == PTO_KK_MIX ? 3 : 1;
    I->arena_size = off * (size_t)ncores;
    I->arena = (unsigned char *)pto__zalloc(I, I->arena_size);
    I->scratch = (float *)pto__zalloc(I, (size_t)(3 * maxel) * sizeof(float));
    if (!I->arena || !I->scratch) return 0;
    for (c = 0; c < ncores; c++) {
        size_t base = off * (size_t)c, o = 0;
        pto__itile *ts = c == 0 ? I->tiles : (pto__itile *)pto__zalloc(I, sizeof(pto__itile) * (size_t)I->m->n_tiles);
        if (!ts) return 0;
        I->ctiles[c] = ts;
        for (t = 0; t < I->m->n_tiles; t++) {
            const pto_tile *tl = &I->m->tiles[t];
            if (tl->kernel != kernel) continue;
            ts[t].data = I->arena + base + o;
            ts[t].vr = tl->rows;
            ts[t].vc = tl->cols;
            o += ((size_t)pto_tile_bytes(tl) + 31u) & ~(size_t)31u;
        }
    }
    return ncores == 1 || pto__alloc_rings(I, kernel);
}

static int pto__setup(pto__interp *I)
{
    const pto_module *m = I->m;
    int32_t kernel = I->L->kernel;
    I->k = &m->kernels[kernel];
    I->nranks = I->k->ranks && I->L->nranks > 0 ? I->L->nranks : 1;
    I->env = (int64_t *)pto__zalloc(I, sizeof(int64_t) * (size_t)m->n_vars);
    I->state = (uint8_t *)pto__zalloc(I, (size_t)m->n_vars);
    I->sval = (double *)pto__zalloc(I, sizeof(double) * (size_t)m->n_vars);
    I->tiles = (pto__itile *)pto__zalloc(I, sizeof(pto__itile) * (size_t)m->n_tiles);
    I->shape = (int64_t(*)[2])pto__zalloc(I, sizeof(int64_t[2]) * (size_t)I->k->nparams);
    if (!I->env || !I->state || !I->sval || !I->tiles || !I->shape) return 0;
    if (I->L->nbindings > 0 && !I->L->bindings) return pto__fail(I, I->k->loc, "the launch has no bindings array");
    if (!pto__bind(I, kernel) || !pto__tensors(I)) return 0;
    return pto__alloc_tiles(I, kernel);
}

/* Forget the previous block: every tile zero, lets and loop vars unbound. */
static void pto__reset_block(pto__interp *I)
{
    int32_t v;
    memset(I->arena, 0, I->arena_size);
    for (v = 0; I->rings && v < I->m->n_cvpipes; v++) {
        unsigned char *slots = I->rings[v].slots;
        memset(&I->rings[v], 0, sizeof I->rings[v]);
        I->rings[v].slots = slots;
    }
    for (v = 0; v < I->m->n_vars; v++)
        if (I->m->vars[v].kind == PTO_V_LET || I->m->vars[v].kind == PTO_V_LOOP) I->state[v] = PTO__UNBOUND;
}

/* Every slot a section pushed must be popped by the block's end: the
   device's ring would hold them into the next launch, and the simulator
   reports them ("pushed but never popped"); saying nothing here would let
   ptoc run print "result match" beside that report. With counts known only
   at launch the verifier cannot see this (tests/bad/pipe_unbalanced.pto is
   the static case). A pop of an empty FIFO never returns: the deadlock
   error of pto__run_mix. */
static int pto__in_rings_drained(pto__interp *I)
{
    static const char *const who[3] = {"the cube core", "AIV 0 (subblock 0)", "AIV 1 (subblock 1)"};
    int32_t i;
    int k, c, ok = 1;
    for (i = 0; I->rings && i < I->m->n_cvpipes; i++) {
        const pto_cvpipe *q = &I->m->cvpipes[i];
        const pto__iring *r = &I->rings[i];
        if (q->kernel != I->L->kernel) continue;
        for (k = 0; k < 2; k++) {
            int64_t pushed;
            if (!(q->dir & (1 << k))) continue;
            pushed = pto__in_pushed(r, q, k);
            for (c = 0; c < (k == 0 ? 2 : 1); c++) {
                int64_t popped = r->popped[k][c];
                if (popped >= pushed) continue;
                ok = pto__fail(I, q->loc, "pipe '%s' (%s): %s pushed %lld tile%s but %s popped %lld: %lld left in its FIFO "
                               "when the block ends (every tpush needs its tpop)",
                               pto_str(I->ctx, q->name), k ? "v2c" : "c2v",
                               k ? (q->split == PTO_SPLIT_NONE ? who[1] : "the vector section") : who[0],
                               (long long)pushed, pushed == 1 ? "" : "s", k ? who[0] : who[1 + c], (long long)popped,
                               (long long)(pushed - popped));
            }
        }
    }
    return ok;
}

/* The cores of one cluster: the cube section on the AIC, the vector
   section on AIV 0 and AIV 1 (subblock 0, 1). Each runs until it finishes
   or a pipe op must wait; a waiting core is resumed on a later round by
   replaying its path (control flow depends only on integers, and the ops
   and tile declarations it already ran are skipped). A round in which no
   core gets further is a deadlock. */
static int pto__run_mix(pto__interp *I)
{
    int32_t sec[2] = {-1, -1}, s, wait_at[3] = {-1, -1, -1};
    int64_t done[3] = {0, 0, 0};
    int fin[3] = {0, 0, 0}, c, progress;
    I->fail_core = -1;
    for (s = I->m->blocks[I->k->body].head; s >= 0; s = I->m->stmts[s].next)
        if (I->m->stmts[s].kind == PTO_ST_SECTION && I->m->stmts[s].body >= 0)
            sec[I->m->stmts[s].ref == PTO_CORE_CUBE ? 0 : 1] = I->m->stmts[s].body;
    for (;;) {
        progress = 0;
        for (c = 0; c < 3; c++) {
            int32_t body = sec[c ? 1 : 0];
            if (fin[c]) continue;
            if (body < 0) { fin[c] = progress = 1; continue; }
            I->tiles = I->ctiles[c];
            I->core = c ? PTO_CORE_VECTOR : PTO_CORE_CUBE;
            I->subblock = c ? c - 1 : 0;
            I->step = 0;
            I->done = done[c];
            I->cvblocked = -1;
            if (pto__run_list(I, body)) {
                fin[c] = progress = 1;
                continue;
            }
            if (I->cvblocked < 0) {
                I->fail_core = c;
                return 0;
            }
            if (I->step > done[c]) progress = 1;
            done[c] = I->step;
            wait_at[c] = I->cvblocked;
        }
        if (fin[0] && fin[1] && fin[2]) break;
        if (!progress) {
            for (c = 0; c < 3; c++)
                if (!fin[c])
                    pto__fail(I, I->m->stmts[wait_at[c]].loc, "deadlock: this %s on %s waits forever",
                              pto_opinfo_get((pto_op)I->m->stmts[wait_at[c]].op)->name,
                              c == 0 ? "the cube core" : c == 1 ? "AIV 0 (subblock 0)" : "AIV 1 (subblock 1)");
            return 0;
        }
    }
    I->tiles = I->ctiles[0];
    I->subblock = 0;
    I->step = I->done = 0;
    return pto__in_rings_drained(I);
}

static int pto__run_kernel(pto__interp *I)
{
    const char *kname = pto_str(I->ctx, I->k->name);
    int64_t r, b, nblocks = 1;
    I->blocks = 1;
    if (I->k->blocks >= 0 && !pto__eval(I, I->k->blocks, &nblocks, 0)) return 0;
    if (nblocks < 0)
        return pto__fail(I, I->k->loc, "kernel '%s' has blocks(%lld): the count must be >= 0", kname,
                         (long long)nblocks);
    I->blocks = nblocks;
    for (r = 0; r < I->nranks; r++) {
        for (b = 0; b < nblocks; b++) {
            I->rank = r;
            I->block = b;
            pto__reset_block(I);
            if (I->k->kind == PTO_KK_MIX ? pto__run_mix(I) : pto__run_list(I, I->k->body)) continue;
            if (I->k->ranks)
                pto_note(I->ctx, I->k->loc, "in block %lld of rank %lld of kernel '%s'", (long long)b,
                         (long long)r, kname);
            else if (I->k->kind == PTO_KK_MIX && I->fail_core >= 0)   /* which core of the cluster */
                pto_note(I->ctx, I->k->loc, "in block %lld (%s) of kernel '%s'", (long long)b,
                         I->fail_core == 0 ? "the cube core" : I->fail_core == 1 ? "AIV 0, subblock 0"
                                                                                 : "AIV 1, subblock 1", kname);
            else
                pto_note(I->ctx, I->k->loc, "in block %lld of kernel '%s'", (long long)b, kname);
            return 0;
        }
    }
    return 1;
}

static void pto__in_free(pto__interp *I)
{
    pto_free(I->ctx, I->env);
    pto_free(I->ctx, I->state);
    pto_free(I->ctx, I->sval);
    pto_free(I->ctx, I->ctiles[0] ? I->ctiles[0] : I->tiles);   /* a mix kernel: the cube's */
    pto_free(I->ctx, I->ctiles[1]);
    pto_free(I->ctx, I->ctiles[2]);
    if (I->rings) {
        int32_t i;
        for (i = 0; i < I->m->n_cvpipes; i++) pto_free(I->ctx, I->rings[i].slots);
        pto_free(I->ctx, I->rings);
    }
    pto_free(I->ctx, I->shape);
    pto_free(I->ctx, I->arena);
    pto_free(I->ctx, I->scratch);
}

/* ---- ranks: every rank a resumable program ----
   Ranks interleave (a wait needs a peer's notify), so each rank keeps its
   own interpreter state and an explicit stack of frames instead of the C
   stack; the scheduler resumes rank 0, 1, .. in turn, each until it
   finishes or blocks (a wait that does not hold, an allreduce that not
   every rank has reached). Within a rank, blocks still run in order. When
   every rank still running waits at an allreduce, the sum is taken and
   they go on; when a whole round moves nothing, that is a deadlock: an
   error at the first blocked statement. A race-free kernel gives the same
   result in every interleaving, so this one order is as good as any. */

typedef struct pto__in_frame {
    int32_t next;          /* next statement of this list, -1 at its end */
    int32_t loop;          /* the FOR statement whose body this is, or -1 */
    int64_t i, hi, step;
} pto__in_frame;

typedef struct pto__in_rank {
    pto__interp I;
    pto__in_frame *fr;
    int32_t nfr, capfr;
    int64_t block;
    int started, done;
    int32_t at;            /* the statement it is blocked at, or -1 */
    int64_t steps;         /* statements completed (progress) */
} pto__in_rank;

static int pto__in_push(pto__in_rank *R, int32_t block, int32_t loop, int64_t i, int64_t hi, int64_t step)
{
    pto__in_frame *f;
    if (R->nfr == R->capfr) {
        int32_t cap = R->capfr ? R->capfr * 2 : 16;
        pto__in_frame *n = (pto__in_frame *)pto_realloc(R->I.ctx, R->fr, sizeof *n * (size_t)cap);
        if (!n) {
            R->I.oom = 1;
            pto__oom(R->I.ctx);
            return 0;
        }
        R->fr = n;
        R->capfr = cap;
    }
    f = &R->fr[R->nfr++];
    f->next = block >= 0 ? R->I.m->blocks[block].head : -1;
    f->loop = loop;
    f->i = i, f->hi = hi, f->step = step;
    return 1;
}

/* The end of a list: the next iteration of its loop, or pop it. */
static void pto__in_list_end(pto__in_rank *R)
{
    pto__in_frame *f = &R->fr[R->nfr - 1];
    const pto_stmt *lp;
    if (f->loop < 0 || (uint64_t)f->hi - (uint64_t)f->i <= (uint64_t)f->step) {
        R->nfr--;
        return;
    }
    lp = &R->I.m->stmts[f->loop];
    f->i += f->step;
    R->I.env[lp->ref] = f->i;
    R->I.state[lp->ref] = PTO__BOUND;
    f->next = R->I.m->blocks[lp->body].head;
}

/* FOR / IF / SECTION open a frame; everything else runs (and may block). */
static int pto__in_step(pto__in_rank *R, int32_t s)
{
    pto__interp *I = &R->I;
    const pto_stmt *st = &I->m->stmts[s];
    int64_t lo, hi, step = 1, a, b;
    switch (st->kind) {
    case PTO_ST_FOR:
        if (!pto__eval(I, st->e[0], &lo, 0) || !pto__eval(I, st->e[1], &hi, 0)) return 0;
        if (st->e[2] >= 0 && !pto__eval(I, st->e[2], &step, 0)) return 0;
        if (step <= 0) return pto__fail(I, st->loc, "loop step must be positive, got %lld", (long long)step);
        R->fr[R->nfr - 1].next = st->next;
        if (lo >= hi) return 1;
        I->env[st->ref] = lo;
        I->state[st->ref] = PTO__BOUND;
        return pto__in_push(R, st->body, s, lo, hi, step);
    case PTO_ST_IF:
        if (!pto__eval(I, st->e[0], &a, 0) || !pto__eval(I, st->e[1], &b, 0)) return 0;
        R->fr[R->nfr - 1].next = st->next;
        if (pto__cmp_holds(st->cmp, a, b)) return pto__in_push(R, st->body, -1, 0, 0, 0);
        return st->orelse >= 0 ? pto__in_push(R, st->orelse, -1, 0, 0, 0) : 1;
    case PTO_ST_SECTION:
        R->fr[R->nfr - 1].next = st->next;
        return st->body >= 0 ? pto__in_push(R, st->body, -1, 0, 0, 0) : 1;
    default:
        I->blocked = 0;
        for (I->loop = -1, a = R->nfr - 1; a >= 0 && I->loop < 0; a--) I->loop = R->fr[a].loop;
        if (!pto__run_stmt(I, s)) return 0;
        if (!I->blocked) R->fr[R->nfr - 1].next = st->next;
        return 1;
    }
}

/* Runs rank R until it finishes or blocks; 0 on an error. */
static int pto__in_resume(pto__in_rank *R)
{
    pto__interp *I = &R->I;
    for (;;) {
        int32_t s;
        if (R->nfr == 0) {
            if (R->started) R->block++;
            R->started = 1;
            if (R->block >= I->blocks) {
                R->done = 1;
                return 1;
            }
            I->block = R->block;
            pto__reset_block(I);
            if (!pto__in_push(R, I->k->body, -1, 0, 0, 0)) return 0;
            continue;
        }
        s = R->fr[R->nfr - 1].next;
        if (s < 0) {
            pto__in_list_end(R);
            continue;
        }
        if (!pto__in_step(R, s)) {
            pto_note(I->ctx, I->k->loc, "in block %lld of rank %lld of kernel '%s'", (long long)I->block,
                     (long long)I->rank, pto_str(I->ctx, I->k->name));
            return 0;
        }
        if (I->blocked) {
            R->at = s;
            return 1;
        }
        R->at = -1;
        R->steps++;
    }
}

/* Every rank still running is at an allreduce: check they agree, sum. */
static int pto__in_reduce(pto__in_rank *R, int64_t n)
{
    const pto__interp *I0 = &R[0].I;
    const pto_module *m = I0->m;
    const pto_operand *x0 = pto_stmt_arg(m, R[0].at, 0), *g0 = pto_stmt_arg(m, R[0].at, 1);
    int32_t pi = x0->ref - I0->k->param0;
    int64_t r, i, count = I0->shape[pi][0] * I0->shape[pi][1];
    for (r = 1; r < n; r++) {
        const pto_operand *x = pto_stmt_arg(m, R[r].at, 0), *g = pto_stmt_arg(m, R[r].at, 1);
        if (x->ref != x0->ref || g->ref != g0->ref)
            return pto__fail(&R[r].I, m->stmts[R[r].at].loc,
                             "allreduce on rank %lld meets a different allreduce on rank 0 (line %d)", (long long)r,
                             (int)m->stmts[R[0].at].loc.line);
    }
    for (i = 0; i < count; i++) {
        float acc = pto_elem_get(I0->L->tensors[pi], PTO_F32, i);
        for (r = 1; r < n; r++) acc = pto__binop(PTO_OP_TADD, acc, pto_elem_get(I0->L->tensors[r * I0->k->nparams + pi], PTO_F32, i));
        for (r = 0; r < n && n > 1; r++) pto_elem_set(I0->L->tensors[r * I0->k->nparams + pi], PTO_F32, i, acc);
    }
    for (r = 0; r < n; r++) R[r].I.ar = 2;
    return 1;
}

/* No rank moved: name what the first blocked rank waits for. */
static int pto__in_deadlock(pto__in_rank *R, int64_t n)
{
    int64_t r, first = -1, other = -1;
    const pto_module *m = R[0].I.m;
    for (r = 0; r < n; r++)
        if (!R[r].done && first < 0) first = r;
    /* the rank an allreduce waits for: one that finished, else one at a wait */
    for (r = 0; r < n && other < 0; r++)
        if (R[r].done) other = r;
    for (r = 0; r < n && other < 0; r++)
        if (R[r].at >= 0 && m->stmts[R[r].at].op != PTO_OP_ALLREDUCE) other = r;
    if (first < 0) return 1;
    if (m->stmts[R[first].at].op == PTO_OP_WAIT) {
        pto__interp *I = &R[first].I;
        const pto_operand *g = pto_stmt_arg(m, R[first].at, 0), *c = pto_stmt_arg(m, R[first].at, 1);
        unsigned char *at;
        int32_t cell = 0;
        int64_t v = 0, gr = 0, gc = 0;
        pto__in_cell(I, R[first].at, &cell, &at);
        pto__eval(I, pto_stmt_arg(m, R[first].at, 2)->e[0], &v, 0);
        pto__eval(I, g->e[0], &gr, 0);
        pto__eval(I, g->e[1], &gc, 0);
        pto__fail(I, m->stmts[R[first].at].loc,
                  "deadlock: wait %s[%lld, %lld], %s, %lld on rank %lld never returns: the cell holds %d and no rank "
                  "can change it (every other rank has finished or waits too)",
                  pto_str(I->ctx, m->params[g->ref].name), (long long)gr, (long long)gc, pto_cmp_word((pto_cmp)c->ref),
                  (long long)v, (long long)first, (int)cell);
    } else {
        char why[64] = "never reaches it";
        if (other >= 0 && R[other].done) snprintf(why, sizeof why, "has finished without reaching it");
        else if (other >= 0) snprintf(why, sizeof why, "waits at line %d", (int)m->stmts[R[other].at].loc.line);
        pto__fail(&R[first].I, m->stmts[R[first].at].loc, "deadlock: allreduce on rank %lld waits for every rank, but rank %lld %s",
                  (long long)first, (long long)(other >= 0 ? other : 0), why);
    }
    for (r = 0; r < n; r++)
        if (!R[r].done && r != first)
            pto_note(R[0].I.ctx, m->stmts[R[r].at].loc, "rank %lld waits here", (long long)r);
    /* "no rank can change it" reads false when a later block of some rank
       holds the notify: say why it cannot run */
    if (R[first].I.blocks > 1)
        pto_note(R[0].I.ctx, R[0].I.k->loc,
                 "the reference runs the blocks of a rank one after another (block %lld of rank %lld is running), "
                 "so a wait cannot count on a notify of a later block; on the device, blocks beyond the cores run "
                 "in waves too",
                 (long long)R[first].block, (long long)first);
    return 0;
}

/* One round-robin round; *moved says whether any rank got further. */
static int pto__in_round(pto__in_rank *R, int64_t n, int *moved, int *alive)
{
    int64_t r;
    *moved = 0;
    *alive = 0;
    for (r = 0; r < n; r++) {
        int64_t steps = R[r].steps;
        int ar = R[r].I.ar;
        if (R[r].done) continue;
        if (!pto__in_resume(&R[r])) return 0;
        if (R[r].steps != steps || R[r].I.ar != ar || R[r].done) *moved = 1;
        *alive += !R[r].done;
    }
    return 1;
}

static int pto__in_schedule(pto__in_rank *R, int64_t n)
{
    for (;;) {
        int moved, alive;
        int64_t r, at_ar = 0;
        if (!pto__in_round(R, n, &moved, &alive)) return 0;
        if (!alive) return 1;
        for (r = 0; r < n; r++) at_ar += !R[r].done && R[r].I.ar == 1;
        if (at_ar == n) {
            if (!pto__in_reduce(R, n)) return 0;
            continue;
        }
        if (!moved) return pto__in_deadlock(R, n);
    }
}

static pto_status pto__in_ranks(pto_ctx *ctx, const pto_module *m, const pto_launch *launch)
{
    int64_t n = launch->nranks > 0 ? launch->nranks : 1, r, nblocks = 1;
    pto__in_rank *R = (pto__in_rank *)pto_alloc(ctx, sizeof *R * (size_t)n);
    int ok = R != NULL, oom = 0;
    int64_t ninstr = 0;
    if (!R) return pto__oom(ctx), PTO_ERR_INTERNAL;
    memset(R, 0, sizeof *R * (size_t)n);
    for (r = 0; r < n && ok; r++) {
        pto__interp *I = &R[r].I;
        I->ctx = ctx, I->m = m, I->L = launch;
        I->ninstr = &ninstr;
        I->max_instr = launch->max_instr > 0 ? launch->max_instr : PTO_MAX_INSTR_DEFAULT;
        I->loop = -1;
        I->cvblocked = -1;
        I->stepping = 1;
        R[r].at = -1;
        ok = pto__setup(I);
        I->rank = r;
        I->blocks = 1;
        if (ok && I->k->blocks >= 0) ok = pto__eval(I, I->k->blocks, &nblocks, 0);
        if (ok && nblocks < 0)
            ok = pto__fail(I, I->k->loc, "kernel '%s' has blocks(%lld): the count must be >= 0",
                           pto_str(ctx, I->k->name), (long long)nblocks);
        I->blocks = nblocks;
    }
    if (ok) ok = pto__in_schedule(R, n);
    for (r = 0; r < n; r++) {
        oom |= R[r].I.oom;
        pto_free(ctx, R[r].fr);
        if (R[r].I.ctx) pto__in_free(&R[r].I);
    }
    pto_free(ctx, R);
    if (oom) return PTO_ERR_INTERNAL;
    return ok ? PTO_OK : PTO_ERR_USER;
}

PTODEF pto_status pto_interp(pto_ctx *ctx, const pto_module *m, const pto_launch *launch)
{
    pto__interp I;
    pto_loc none = {0, 0, 0};
    int64_t ninstr = 0;
    int ok;
    if (!m || !launch || launch->kernel < 0 || launch->kernel >= m->n_kernels)
        return pto_error(ctx, none, "pto_interp: the launch names no kernel of the module");
    if (m->kernels[launch->kernel].ranks) return pto__in_ranks(ctx, m, launch);
    memset(&I, 0, sizeof I);
    I.ctx = ctx;
    I.m = m;
    I.L = launch;
    I.ninstr = &ninstr;
    I.max_instr = launch->max_instr > 0 ? launch->max_instr : PTO_MAX_INSTR_DEFAULT;
    I.loop = -1;
    I.cvblocked = -1;
    ok = pto__setup(&I) && pto__run_kernel(&I);
    pto__in_free(&I);
    if (I.oom) return PTO_ERR_INTERNAL;
    return ok ? PTO_OK : PTO_ERR_USER;
}
/* ---- End file: src/interp.c ---- */

/* ---- Begin file: src/host.c ---- */
/* host.c - host sections: builders, parser, printer, verifier, interpreter.

   A host section orchestrates kernels (hardware.md section 7):

       host main(in x: f32[N, 128], out y: f32[N, 128]) {
         tensor t: f32[N, 128]
         call k1(x, t)
         call k2(t, y)
       }

   The host's params are GM tensors (and scalars) given at launch; `tensor`
   declares an intermediate GM tensor the host allocates; `call` launches a
   kernel with arguments by position in the kernel's ABI order (its tensor
   params, then its scalars). Calls run in program order, which is also the
   dependency order the in/out/inout tags imply, so a sequential host needs no
   other synchronisation.

   Parser (pto__hs_host, called by parse.c at a top-level `host`): needs the
   kernels it calls to be defined above it (names resolve as they are read,
   as everywhere in the parser); guarantees every name of the section is
   resolved. `host`, `tensor` and `call` are words only where they start a
   section or a host statement, so they stay usable as names in kernels.
   Printer (pto__hs_print, called by print.c): the canonical text after the
   kernels. Verifier (pto__hs_verify, called by pto_verify): every rule in
   docs/pto-format.md "Host sections", with the error at the argument or
   name at fault. Interpreter (pto_interp_host): runs the calls in order
   through pto_interp, binding each kernel's dims and scalars from the host's
   values: the reference the harness compares a host's outputs with. */

/* ---- builders ------------------------------------------------------------- */

PTODEF int32_t pto_add_host(pto_module *m, const char *name, pto_loc loc)
{
    int32_t h;
    if (!pto__api_name(m, "pto_add_host", name, loc)) return -1;
    h = PTO__MPUSH(m, hosts);
    if (h < 0) return -1;
    memset(&m->hosts[h], 0, sizeof m->hosts[h]);
    m->hosts[h].name = pto__name(m, name);
    m->hosts[h].param0 = m->n_params;
    m->hosts[h].stmt0 = m->n_hstmts;
    m->hosts[h].loc = loc;
    return h;
}

/* A param slot of host h: params first, then intermediates (tensor = 1). */
static int32_t pto__hs_add_param(pto_module *m, int32_t h, const char *name, int tensor, pto_loc loc)
{
    pto_host *ho;
    int32_t p;
    const char *fn = tensor ? "pto_add_host_tensor" : "pto_add_host_*_param";
    if (!pto__api_id(m, fn, "host", h, m->n_hosts, loc) || !pto__api_name(m, fn, name, loc)) return -1;
    ho = &m->hosts[h];
    if (h != m->n_hosts - 1 || ho->param0 + ho->nparams + ho->ntensors != m->n_params) {
        pto__api_error(m, loc, "%s: params of host '%s' must be added while it is the newest host and before any "
                  "kernel's params", fn, pto_str(m->ctx, ho->name));
        return -1;
    }
    if (!tensor && ho->ntensors != 0) {
        pto__api_error(m, loc, "%s: host '%s' has intermediate tensors already: its params come first", fn,
                  pto_str(m->ctx, ho->name));
        return -1;
    }
    p = PTO__MPUSH(m, params);
    if (p < 0) return -1;
    if (tensor) m->hosts[h].ntensors++;
    else m->hosts[h].nparams++;
    memset(&m->params[p], 0, sizeof m->params[p]);
    m->params[p].name = pto__name(m, name);
    m->params[p].dim_var[0] = m->params[p].dim_var[1] = -1;
    m->params[p].var = -1;
    m->params[p].loc = loc;
    return p;
}

static int32_t pto__hs_tensor(pto_module *m, int32_t h, const char *name, int tensor, pto_dir dir, pto_dtype dt,
                              int64_t d0, int64_t d1, pto_loc loc)
{
    int32_t p = pto__hs_add_param(m, h, name, tensor, loc);
    if (p < 0) return -1;
    m->params[p].kind = PTO_P_TENSOR;
    m->params[p].dir = (uint8_t)dir;
    m->params[p].dtype = (uint8_t)dt;
    m->params[p].dim[0] = d0;
    m->params[p].dim[1] = d1;
    return p;
}

PTODEF int32_t pto_add_host_tensor_param(pto_module *m, int32_t host, const char *name, pto_dir dir,
                                         pto_dtype dt, int64_t d0, int64_t d1, pto_loc loc)
{
    return pto__hs_tensor(m, host, name, 0, dir, dt, d0, d1, loc);
}

PTODEF int32_t pto_add_host_scalar_param(pto_module *m, int32_t host, const char *name, pto_dtype dt,
                                         pto_loc loc)
{
    int32_t p = pto__hs_add_param(m, host, name, 0, loc), v;
    if (p < 0) return -1;
    m->params[p].kind = PTO_P_SCALAR;
    m->params[p].dir = PTO_IN;
    m->params[p].dtype = (uint8_t)dt;
    m->params[p].dim[0] = m->params[p].dim[1] = 1;
    v = pto_add_var(m, PTO_HOST_SCOPE(host), name, PTO_V_SCALAR, p, loc);
    if (v < 0) return -1;
    m->params[p].var = v;
    return p;
}

PTODEF int32_t pto_set_host_dim(pto_module *m, int32_t host, int32_t param, int d, const char *name)
{
    int32_t v = -1, i, id;
    pto_loc none = {0, 0, 0};
    const char *fn = "pto_set_host_dim";
    pto_param *p;
    if (!pto__api_id(m, fn, "host", host, m->n_hosts, none) || !pto__api_id(m, fn, "param", param, m->n_params, none))
        return -1;
    p = &m->params[param];
    if (!pto__api_name(m, fn, name, p->loc)) return -1;
    if (d != 0 && d != 1) return pto__api_error(m, p->loc, "%s: dim %d of '%s' (a tensor has dims 0 and 1)", fn, d,
                                           pto_str(m->ctx, p->name)), -1;
    if (p->kind != PTO_P_TENSOR || param < m->hosts[host].param0 ||
        param >= m->hosts[host].param0 + m->hosts[host].nparams + m->hosts[host].ntensors)
        return pto__api_error(m, p->loc, "%s: '%s' is not a tensor of host '%s'", fn, pto_str(m->ctx, p->name),
                         pto_str(m->ctx, m->hosts[host].name)), -1;
    id = pto__name(m, name);
    for (i = 0; i < m->n_vars && v < 0; i++)
        if (m->vars[i].kernel == PTO_HOST_SCOPE(host) && m->vars[i].kind == PTO_V_DIM && m->vars[i].name == id) v = i;
    if (v < 0) v = pto_add_var(m, PTO_HOST_SCOPE(host), name, PTO_V_DIM, param, m->params[param].loc);
    if (v < 0) return -1;
    m->params[param].dim[d] = -1;
    m->params[param].dim_var[d] = v;
    m->verified = 0;
    return v;
}

static int32_t pto__hs_stmt(pto_module *m, int32_t host, pto_hstmt_kind kind, int32_t ref, pto_loc loc)
{
    pto_host *ho;
    int32_t s;
    if (!pto__api_id(m, "pto_add_host_call", "host", host, m->n_hosts, loc)) return -1;
    ho = &m->hosts[host];
    if (host != m->n_hosts - 1 || ho->stmt0 + ho->nstmts != m->n_hstmts)
        return pto__api_error(m, loc, "pto_add_host_call: statements of host '%s' must be added while it is the "
                         "newest host", pto_str(m->ctx, ho->name)), -1;
    s = PTO__MPUSH(m, hstmts);
    if (s < 0) return -1;
    m->hosts[host].nstmts++;
    m->hstmts[s].kind = (uint8_t)kind;
    m->hstmts[s].ref = ref;
    m->hstmts[s].arg0 = m->n_operands;
    m->hstmts[s].nargs = 0;
    m->hstmts[s].loc = loc;
    return s;
}

PTODEF int32_t pto_add_host_tensor(pto_module *m, int32_t host, const char *name, pto_dtype dt, int64_t d0,
                                   int64_t d1, pto_loc loc)
{
    int32_t p = pto__hs_tensor(m, host, name, 1, PTO_INOUT, dt, d0, d1, loc);
    if (p < 0 || pto__hs_stmt(m, host, PTO_HS_TENSOR, p, loc) < 0) return -1;
    return p;
}

PTODEF int32_t pto_add_host_call(pto_module *m, int32_t host, int32_t kernel, pto_loc loc)
{
    return pto__hs_stmt(m, host, PTO_HS_CALL, kernel, loc);
}

static int32_t pto__hs_arg(pto_module *m, int32_t call, pto_operand_kind kind, int32_t ref, pto_loc loc)
{
    int32_t o;
    if (!pto__api_id(m, "pto_call_arg_*", "host call", call, m->n_hstmts, loc)) return -1;
    if (m->hstmts[call].kind != PTO_HS_CALL)
        return pto__api_error(m, loc, "pto_call_arg_*: host statement %ld is not a call", (long)call), -1;
    if (m->hstmts[call].arg0 + m->hstmts[call].nargs != m->n_operands)
        return pto__api_error(m, loc, "pto_call_arg_*: an argument of host call %ld added after another "
                         "statement's operands: add a call's arguments right after pto_add_host_call", (long)call), -1;
    o = pto__operand_new(m, kind, ref, loc);
    if (o >= 0) m->hstmts[call].nargs++;
    return o;
}

PTODEF int32_t pto_call_arg_tensor(pto_module *m, int32_t call, int32_t param, pto_loc loc)
{
    return pto__hs_arg(m, call, PTO_O_GM, param, loc);
}

PTODEF int32_t pto_call_arg_int(pto_module *m, int32_t call, int32_t expr, pto_loc loc)
{
    int32_t o = pto__hs_arg(m, call, PTO_O_INT, -1, loc);
    if (o >= 0) m->operands[o].e[0] = expr;
    return o;
}

PTODEF int32_t pto_call_arg_float(pto_module *m, int32_t call, double v, pto_loc loc)
{
    int32_t o = pto__hs_arg(m, call, PTO_O_FLOAT, -1, loc);
    if (o >= 0) m->operands[o].f = v;
    return o;
}

PTODEF int32_t pto_call_arg_scalar(pto_module *m, int32_t call, int32_t var, pto_loc loc)
{
    return pto__hs_arg(m, call, PTO_O_SCALAR, var, loc);
}

/* ---- parser ----------------------------------------------------------------- */

/* Whether the current token is the word w (host words are not keywords). */
static int pto__hs_word(const pto__ps_parser *p, const char *w)
{
    size_t n = strlen(w);
    return p->tok.kind == PTO__T_NAME && p->tok.len == n && memcmp(p->src + p->tok.pos, w, n) == 0;
}

/* One dim of a host tensor: an integer, or a name. A param's name declares
   a host dim at its first use; an intermediate's must be a declared dim. */
static int pto__hs_dim(pto__ps_parser *p, int32_t h, int32_t param, int d, int intermediate)
{
    pto__ps_tok t = p->tok;
    const pto__ps_pname *n;
    int32_t v;
    if (t.kind == PTO__T_INT) {
        int64_t val;
        pto__ps_next(p);
        if (!pto__ps_int_value(p, &t, 0, &val)) return 0;
        p->m->params[param].dim[d] = val;
        return 1;
    }
    if (t.kind != PTO__T_NAME) {
        pto__ps_expected(p, "a dimension (an integer or a name)");
        return 0;
    }
    n = pto__ps_lookup(p, &t);
    pto__ps_next(p);
    if (n->kind == PTO__B_DIM) {
        p->m->params[param].dim[d] = -1;
        p->m->params[param].dim_var[d] = n->ref;
        return 1;
    }
    if (intermediate) {
        pto__ps_near near;
        char hint[80];
        pto__ps_near_init(p, &near, pto__ps_text(p, &t), t.len);
        pto__ps_near_names(p, &near, 1u << PTO__B_DIM);
        pto__ps_err(p, &t, "unknown dim '%s'%s", pto__ps_text(p, &t),
                    pto__ps_near_hint(&near, hint, sizeof hint,
                                      ": a host tensor's dims are integers or dims of the host's params"));
        return 1;
    }
    if (!pto__ps_can_declare(p, &t)) return 1;
    v = pto_set_host_dim(p->m, h, param, d, pto__ps_text(p, &t));
    if (v < 0) return 0;
    p->m->vars[v].loc = *pto__ps_tloc(p, &t);
    pto__ps_bind(p, &t, PTO__B_DIM, v);
    return 1;
}

/* DTYPE[D0, D1] of host tensor prm. */
static int pto__hs_shape(pto__ps_parser *p, int32_t h, int32_t prm, int intermediate)
{
    if (!pto__ps_expect(p, '[', "'[' before the tensor shape")) return 0;
    if (!pto__hs_dim(p, h, prm, 0, intermediate)) return 0;
    if (!pto__ps_expect(p, ',', "',' between the tensor dimensions")) return 0;
    if (!pto__hs_dim(p, h, prm, 1, intermediate)) return 0;
    return pto__ps_expect(p, ']', "']' after the tensor shape");
}

/* in|out|inout NAME: DTYPE[D0, D1]   or   scalar NAME: DTYPE */
static int pto__hs_param(pto__ps_parser *p, int32_t h)
{
    pto__ps_tok name;
    pto_dtype dt;
    pto_dir dir;
    int32_t prm;
    int ok, scalar;
    if (!pto__ps_param_head(p, &scalar, &dir, &name, &ok, &dt)) return 0;
    if (scalar) {
        prm = pto_add_host_scalar_param(p->m, h, pto__ps_text(p, &name), dt, *pto__ps_tloc(p, &name));
        if (prm < 0) return 0;
        if (ok) pto__ps_bind(p, &name, PTO__B_SCALAR, p->m->params[prm].var);
        return 1;
    }
    prm = pto_add_host_tensor_param(p->m, h, pto__ps_text(p, &name), dir, dt, 0, 0, *pto__ps_tloc(p, &name));
    if (prm < 0) return 0;
    if (ok) pto__ps_bind(p, &name, PTO__B_TENSOR, prm);
    return pto__hs_shape(p, h, prm, 0);
}

/* (PARAM, ...) possibly over several lines. */
static int pto__hs_params(pto__ps_parser *p, int32_t h)
{
    pto__ps_tok open = p->tok;
    if (!pto__ps_expect(p, '(', "'(' after the host name")) return 0;
    pto__ps_skip_nl(p);
    if (pto__ps_is(p, ')')) { pto__ps_next(p); return 1; }
    for (;;) {
        pto__ps_skip_nl(p);
        if (!pto__hs_param(p, h)) return 0;
        pto__ps_skip_nl(p);
        if (pto__ps_is(p, ',')) { pto__ps_next(p); continue; }
        if (pto__ps_is(p, ')')) { pto__ps_next(p); return 1; }
        if (pto__ps_is(p, PTO__T_EOF)) {
            pto__ps_err(p, &open, "missing ')': the parameter list opened here is not closed");
            return 0;
        }
        pto__ps_expected(p, "',' or ')' after a parameter");
        return 0;
    }
}

/* tensor NAME: DTYPE[D0, D1] */
static int pto__hs_tensor_stmt(pto__ps_parser *p, int32_t h)
{
    pto__ps_tok name;
    pto_dtype dt;
    int32_t prm;
    int ok;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a tensor name")) return 0;
    ok = pto__ps_can_declare(p, &name);
    if (!pto__ps_expect(p, ':', "':' after the tensor name")) return 0;
    if (!pto__ps_dtype(p, &dt)) return 0;
    prm = pto_add_host_tensor(p->m, h, pto__ps_text(p, &name), dt, 0, 0, *pto__ps_tloc(p, &name));
    if (prm < 0) return 0;
    if (ok) pto__ps_bind(p, &name, PTO__B_TENSOR, prm);
    return pto__hs_shape(p, h, prm, 1) && pto__ps_end_stmt(p, "the tensor");
}

/* One call argument: a host tensor, a float, a host scalar or an integer
   expression over the host's dims and integer scalars. */
static void pto__hs_unknown_kernel(pto__ps_parser *p, const pto__ps_tok *t)
{
    pto__ps_near n;
    char hint[80];
    int32_t k;
    pto__ps_near_init(p, &n, pto__ps_text(p, t), t->len);
    for (k = 0; k < p->m->n_kernels; k++) {
        int32_t id = p->m->kernels[k].name;
        pto__ps_near_try(&n, pto_str(p->ctx, id), pto__str_len(p->ctx, id));
    }
    pto__ps_err(p, t, "unknown kernel '%s'%s", pto__ps_text(p, t),
                pto__ps_near_hint(&n, hint, sizeof hint, " (a host calls kernels defined above it)"));
}

static int pto__hs_arg_parse(pto__ps_parser *p, int32_t call)
{
    pto__ps_tok t = p->tok, n = pto__ps_peek(p);
    pto_loc loc = *pto__ps_tloc(p, &t);
    int neg = t.kind == '-';
    int32_t e;
    if (pto__ps_is_floaty(p, &t) || (neg && pto__ps_is_floaty(p, &n))) {
        double v;
        if (neg) pto__ps_next(p);
        if (pto__ps_is_kw(p, PTO__KW_INF)) v = HUGE_VAL;
        else if (pto__ps_is_kw(p, PTO__KW_NAN)) v = strtod("nan", NULL);
        else if (!pto__ps_float_value(p, &p->tok, &v)) return 0;
        pto__ps_next(p);
        return pto_call_arg_float(p->m, call, neg ? -v : v, loc) >= 0;
    }
    if (t.kind == PTO__T_NAME && !pto__ps_reserved(p, t.id)) {
        const pto__ps_pname *b = pto__ps_lookup(p, &t);
        if (b->kind == PTO__B_TENSOR) {
            pto__ps_next(p);
            return pto_call_arg_tensor(p->m, call, b->ref, loc) >= 0;
        }
        if (b->kind == PTO__B_SCALAR && (n.kind == ',' || n.kind == ')')) {
            pto__ps_next(p);
            return pto_call_arg_scalar(p->m, call, b->ref, loc) >= 0;
        }
        if (b->kind == PTO__B_NONE && (n.kind == ',' || n.kind == ')')) {  /* any name may be meant */
            pto__ps_unknown_name(p, &t, ~(1u << PTO__B_NONE), 1);
            pto__ps_next(p);
            return pto_call_arg_int(p->m, call, pto_expr_int(p->m, 0, loc), loc) >= 0;   /* placeholder */
        }
    }
    if (t.kind != PTO__T_NAME && t.kind != PTO__T_INT && t.kind != '(' && t.kind != '-') {
        pto__ps_expected(p, "an argument (a tensor, a number or an expression)");
        return 0;
    }
    e = pto__ps_expr0(p);
    return e >= 0 && pto_call_arg_int(p->m, call, e, loc) >= 0;
}

/* call KERNEL(ARG, ...) */
static int pto__hs_call_stmt(pto__ps_parser *p, int32_t h)
{
    pto__ps_tok name;
    const pto__ps_pname *n;
    int32_t call, k;
    int32_t i;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "the name of the kernel to call")) return 0;
    n = pto__ps_lookup(p, &name);
    k = n->kernel - 1;
    if (k < 0) {
        for (i = 0; i < p->m->n_hosts; i++)
            if (p->m->hosts[i].name == name.id) break;
        if (i < p->m->n_hosts)
            pto__ps_err(p, &name, "'%s' is a host; a host calls kernels", pto__ps_text(p, &name));
        else
            pto__hs_unknown_kernel(p, &name);
        return 0;
    }
    call = pto_add_host_call(p->m, h, k, *pto__ps_tloc(p, &name));
    if (call < 0) return 0;
    if (!pto__ps_expect(p, '(', "'(' after the kernel name")) return 0;
    if (!pto__ps_is(p, ')')) {
        for (;;) {
            if (!pto__hs_arg_parse(p, call)) return 0;
            if (pto__ps_is(p, ')')) break;
            if (!pto__ps_expect(p, ',', "',' or ')' after an argument")) return 0;
        }
    }
    pto__ps_next(p);
    return pto__ps_end_stmt(p, "the call");
}

/* The statements of a host body up to its `}`. */
static void pto__hs_body(pto__ps_parser *p, int32_t h, const pto__ps_tok *open)
{
    if (!pto__ps_at_eol(p)) {   /* as kernel blocks do: a `}` on the same line still closes */
        pto__ps_expected(p, "end of line after '{'");
        while (!pto__ps_at_eol(p) && !pto__ps_is(p, '}')) pto__ps_next(p);
        if (pto__ps_is(p, '}')) { pto__ps_next(p); return; }
    }
    for (;;) {
        int ok;
        if (pto__ps_is(p, PTO__T_NL)) { pto__ps_next(p); continue; }
        if (pto__ps_is(p, PTO__T_EOF)) {
            pto__ps_err(p, open, "missing '}': the host opened here is still open at the end of the file");
            return;
        }
        if (pto__ps_is(p, '}')) { pto__ps_next(p); return; }
        if (pto__hs_word(p, "tensor")) ok = pto__hs_tensor_stmt(p, h);
        else if (pto__hs_word(p, "call")) ok = pto__hs_call_stmt(p, h);
        else {
            pto__ps_expected(p, "'tensor', 'call' or '}' in a host");
            ok = 0;
        }
        if (!ok) {
            pto__ps_tok at = p->tok;
            if (pto__ps_skip_line(p, &at) < 0) return;
        }
    }
}

/* host NAME(PARAMS) { ... }; the current token is `host`. */
static void pto__hs_host(pto__ps_parser *p)
{
    pto__ps_tok name, open;
    int32_t h, i;
    int ok;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a host name")) { pto__ps_skip_to_top(p); return; }
    for (i = 0; i < p->m->n_hosts; i++)
        if (p->m->hosts[i].name == name.id)
            pto__ps_err(p, &name, "host '%s' is already defined at %d:%d", pto__ps_text(p, &name),
                        (int)p->m->hosts[i].loc.line, (int)p->m->hosts[i].loc.col);
    h = pto_add_host(p->m, pto__ps_text(p, &name), *pto__ps_tloc(p, &name));
    if (h < 0) return;
    pto__ps_scope_open(p);
    ok = pto__hs_params(p, h);
    if (ok) {
        open = p->tok;
        ok = pto__ps_expect(p, '{', "'{' after the host's parameters");
    }
    if (ok) pto__hs_body(p, h, &open);
    pto__ps_scope_close(p);
    if (!ok || !pto__ps_end_stmt(p, "'}'")) pto__ps_skip_to_top(p);
}

/* ---- printer ----------------------------------------------------------------- */

static void pto__hs_print_tensor(const pto_module *m, const pto_param *p, pto_buf *b)
{
    int d;
    pto_buf_printf(b, "%s: %s[", pto_str(m->ctx, p->name), pto_dtype_name((pto_dtype)p->dtype));
    for (d = 0; d < 2; d++) {
        if (d) pto_buf_puts(b, ", ");
        if (p->dim_var[d] >= 0) pto_buf_puts(b, pto__pr_var_name(m, p->dim_var[d]));
        else pto_buf_printf(b, "%lld", (long long)p->dim[d]);
    }
    pto_buf_puts(b, "]");
}

static void pto__hs_print_one(const pto__pr_printer *pr, const pto_host *h)
{
    static const char *const dirs[] = {"in", "out", "inout"};
    const pto_module *m = pr->m;
    pto_buf *b = pr->b;
    int32_t i, s, a;
    pto__pr_comments_before(pr, h->loc.line, 0);
    pto_buf_printf(b, "host %s(", pto_str(m->ctx, h->name));
    for (i = 0; i < h->nparams; i++) {
        const pto_param *p = &m->params[h->param0 + i];
        if (i) pto_buf_puts(b, ", ");
        if (p->kind == PTO_P_SCALAR) {
            pto_buf_printf(b, "scalar %s: %s", pto_str(m->ctx, p->name), pto_dtype_name((pto_dtype)p->dtype));
            continue;
        }
        pto_buf_printf(b, "%s ", dirs[p->dir < 3 ? p->dir : 0]);
        pto__hs_print_tensor(m, p, b);
    }
    pto_buf_puts(b, ") {\n");
    for (s = h->stmt0; s < h->stmt0 + h->nstmts && s < m->n_hstmts; s++) {
        const pto_hstmt *st = &m->hstmts[s];
        pto__pr_comments_before(pr, st->loc.line, 1);
        if (st->kind == PTO_HS_TENSOR) {
            pto_buf_puts(b, "  tensor ");
            if (st->ref >= 0 && st->ref < m->n_params) pto__hs_print_tensor(m, &m->params[st->ref], b);
            pto_buf_puts(b, "\n");
            continue;
        }
        pto_buf_printf(b, "  call %s(",
                       st->ref >= 0 && st->ref < m->n_kernels ? pto_str(m->ctx, m->kernels[st->ref].name) : "?");
        for (a = 0; a < st->nargs; a++) {
            const pto_operand *o = &m->operands[st->arg0 + a];
            if (a) pto_buf_puts(b, ", ");
            if (o->kind == PTO_O_GM)   /* a whole tensor: its name, no window */
                pto_buf_puts(b, o->ref >= 0 && o->ref < m->n_params ? pto_str(m->ctx, m->params[o->ref].name) : "?");
            else
                pto__pr_operand(m, o, PTO_A_INT, b);
        }
        pto_buf_puts(b, ")\n");
    }
    pto_buf_puts(b, "}\n");
}

/* The host sections after the kernels, each after a blank line. */
static void pto__hs_print(const pto__pr_printer *pr)
{
    const pto_module *m = pr->m;
    int32_t h;
    for (h = 0; h < m->n_hosts; h++) {
        if (h || m->n_kernels) pto_buf_puts(pr->b, "\n");
        pto__hs_print_one(pr, &m->hosts[h]);
    }
}

/* ---- verifier ----------------------------------------------------------------- */

typedef struct pto__hs_ver {
    pto_ctx *ctx;
    const pto_module *m;
    int32_t h;
    const char *hname;
    uint8_t *written;      /* per host tensor (index from param0): holds data */
    uint8_t *used;         /* per host param or tensor (index from param0): bit 1 passed to a
                              call (or, a scalar, used in an argument), bit 2 read by one */
    int32_t *kbind;        /* per var: what a kernel dim is bound to in this call */
} pto__hs_ver;

static const char *pto__hs_name(const pto_module *m, int32_t id) { return pto_str(m->ctx, id); }

static int pto__hs_is_float(int dt) { return dt == PTO_F32 || dt == PTO_F16 || dt == PTO_BF16; }

/* Param or tensor p (a module param id) of the host being checked is used
   (how: the bits of pto__hs_ver.used); other ids are ignored. */
static void pto__hs_use(pto__hs_ver *V, int32_t p, int how)
{
    const pto_host *h = &V->m->hosts[V->h];
    if (V->used && p >= h->param0 && p < h->param0 + h->nparams + h->ntensors)
        V->used[p - h->param0] = (uint8_t)(V->used[p - h->param0] | how);
}

/* Every var of a host expression is a dim or integer scalar of the host;
   no kernel builtin. Returns 1 when the expression is fine. */
static int pto__hs_vexpr(pto__hs_ver *V, int32_t e, pto_loc at)
{
    const pto_module *m = V->m;
    const pto_expr *x;
    static const char *const builtin[] = {"block", "blocks", "subblock", "rank", "nranks"};
    if (e < 0 || e >= m->n_exprs) { pto_error(V->ctx, at, "malformed host expression"); return 0; }
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: return 1;
    case PTO_E_VAR: {
        const pto_var *v = x->a >= 0 && x->a < m->n_vars ? &m->vars[x->a] : NULL;
        if (!v || v->kernel != PTO_HOST_SCOPE(V->h)) {
            pto_error(V->ctx, x->loc, "host '%s' has no dim or scalar by that name", V->hname);
            return 0;
        }
        pto__hs_use(V, v->def, 1);
        if (v->kind == PTO_V_SCALAR && v->def >= 0 && v->def < m->n_params && pto__hs_is_float(m->params[v->def].dtype)) {
            pto_error(V->ctx, x->loc, "'%s' is an %s scalar; an integer expression cannot use it",
                      pto__hs_name(m, v->name), pto_dtype_name((pto_dtype)m->params[v->def].dtype));
            return 0;
        }
        return 1;
    }
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS:
        pto_error(V->ctx, x->loc, "'%s' is a kernel builtin; a host expression cannot use it",
                  builtin[x->kind - PTO_E_BLOCK]);
        return 0;
    case PTO_E_NEG: return pto__hs_vexpr(V, x->a, x->loc);
    default: return pto__hs_vexpr(V, x->a, x->loc) && pto__hs_vexpr(V, x->b, x->loc);
    }
}

/* The kernel's params in ABI order (tensors, then scalars) into order[]. */
static int32_t pto__hs_abi(const pto_module *m, const pto_kernel *k, int32_t *order)
{
    int32_t n = 0, p;
    int pass;
    for (pass = 0; pass < 2; pass++)
        for (p = k->param0; p < k->param0 + k->nparams; p++)
            if ((m->params[p].kind == PTO_P_SCALAR) == pass) order[n++] = p;
    return n;
}

/* Dim d of host tensor ht against dim d of kernel param kp. A kernel's
   dynamic dim binds to the host extent (an integer or a host dim) at its
   first tensor and must match it at every other. Encoding of a binding:
   value >= 1 an integer, -2 - var a host dim. */
static void pto__hs_vdim(pto__hs_ver *V, const pto_operand *o, int argi, const char *kn, const pto_param *kp,
                         const pto_param *ht, int d)
{
    const pto_module *m = V->m;
    int32_t have = ht->dim_var[d] >= 0 ? -2 - ht->dim_var[d] : (int32_t)(ht->dim[d] > 0x7fffffff ? 0x7fffffff : ht->dim[d]);
    char hs[64], ks[64];
    if (ht->dim_var[d] >= 0) snprintf(hs, sizeof hs, "%s", pto__hs_name(m, m->vars[ht->dim_var[d]].name));
    else snprintf(hs, sizeof hs, "%lld", (long long)ht->dim[d]);
    if (kp->dim_var[d] < 0) {
        if (have == kp->dim[d]) return;
        pto_error(V->ctx, o->loc, "argument %d of '%s': dim %d of '%s' is %s, parameter '%s' needs %lld%s", argi, kn,
                  d, pto__hs_name(m, ht->name), hs, pto__hs_name(m, kp->name), (long long)kp->dim[d],
                  ht->dim_var[d] >= 0 ? " (a host dim is known only at launch)" : "");
        return;
    }
    if (V->kbind[kp->dim_var[d]] == 0) {
        V->kbind[kp->dim_var[d]] = have;
        return;
    }
    if (V->kbind[kp->dim_var[d]] == have) return;
    if (V->kbind[kp->dim_var[d]] <= -2)
        snprintf(ks, sizeof ks, "%s", pto__hs_name(m, m->vars[-2 - V->kbind[kp->dim_var[d]]].name));
    else
        snprintf(ks, sizeof ks, "%d", (int)V->kbind[kp->dim_var[d]]);
    pto_error(V->ctx, o->loc, "argument %d of '%s': dim %d of '%s' is %s, but '%s' of '%s' is already %s", argi, kn, d,
              pto__hs_name(m, ht->name), hs, pto__hs_name(m, m->vars[kp->dim_var[d]].name), kn, ks);
}

/* A tensor argument: dtype, shape, direction, and data flow. */
static void pto__hs_vtensor_arg(pto__hs_ver *V, const pto_hstmt *st, int argi, const pto_param *kp)
{
    const pto_module *m = V->m;
    const pto_host *h = &m->hosts[V->h];
    const pto_operand *o = &m->operands[st->arg0 + argi - 1];
    const char *kn = pto__hs_name(m, m->kernels[st->ref].name);
    const pto_param *ht;
    int32_t idx = o->ref - h->param0;
    int d;
    if (o->kind != PTO_O_GM) {
        pto_error(V->ctx, o->loc, "argument %d of '%s' must be a tensor (parameter '%s')", argi, kn,
                  pto__hs_name(m, kp->name));
        return;
    }
    if (idx < 0 || idx >= h->nparams + h->ntensors || m->params[o->ref].kind != PTO_P_TENSOR) {
        pto_error(V->ctx, o->loc, "argument %d of '%s' is not a tensor of host '%s'", argi, kn, V->hname);
        return;
    }
    ht = &m->params[o->ref];
    if (ht->dtype != kp->dtype) {
        pto_error(V->ctx, o->loc, "argument %d of '%s': tensor '%s' is %s, parameter '%s' is %s", argi, kn,
                  pto__hs_name(m, ht->name), pto_dtype_name((pto_dtype)ht->dtype), pto__hs_name(m, kp->name),
                  pto_dtype_name((pto_dtype)kp->dtype));
        return;
    }
    for (d = 0; d < 2; d++) pto__hs_vdim(V, o, argi, kn, kp, ht, d);
    pto__hs_use(V, o->ref, kp->dir != PTO_OUT ? 3 : 1);
    if (kp->dir != PTO_OUT && !V->written[idx])
        pto_error(V->ctx, o->loc, "'%s' is read by '%s' (parameter '%s' is %s) before any call writes it",
                  pto__hs_name(m, ht->name), kn, pto__hs_name(m, kp->name), kp->dir == PTO_IN ? "in" : "inout");
    if (kp->dir != PTO_IN && idx < h->nparams && ht->dir == PTO_IN)
        pto_error(V->ctx, o->loc, "'%s' is an 'in' tensor of host '%s'; '%s' writes it (parameter '%s' is %s)",
                  pto__hs_name(m, ht->name), V->hname, kn, pto__hs_name(m, kp->name),
                  kp->dir == PTO_OUT ? "out" : "inout");
}

/* A scalar argument: a number or host scalar for a float param, an integer
   expression or integer host scalar for an integer param. */
static void pto__hs_vscalar_arg(pto__hs_ver *V, const pto_hstmt *st, int argi, const pto_param *kp)
{
    const pto_module *m = V->m;
    const pto_operand *o = &m->operands[st->arg0 + argi - 1];
    const char *kn = pto__hs_name(m, m->kernels[st->ref].name);
    int want_float = pto__hs_is_float(kp->dtype);
    switch (o->kind) {
    case PTO_O_GM:
        pto_error(V->ctx, o->loc, "argument %d of '%s' is scalar '%s'; it cannot be tensor '%s'", argi, kn,
                  pto__hs_name(m, kp->name), o->ref >= 0 && o->ref < m->n_params ? pto__hs_name(m, m->params[o->ref].name) : "?");
        break;
    case PTO_O_FLOAT:
        if (!want_float)
            pto_error(V->ctx, o->loc, "argument %d of '%s': parameter '%s' is %s and takes an integer, not %g", argi, kn,
                      pto__hs_name(m, kp->name), pto_dtype_name((pto_dtype)kp->dtype), o->f);
        break;
    case PTO_O_SCALAR: {
        const pto_var *v = o->ref >= 0 && o->ref < m->n_vars ? &m->vars[o->ref] : NULL;
        if (!v || v->kernel != PTO_HOST_SCOPE(V->h) || v->kind != PTO_V_SCALAR || v->def < 0) {
            pto_error(V->ctx, o->loc, "argument %d of '%s' is not a scalar of host '%s'", argi, kn, V->hname);
            break;
        }
        pto__hs_use(V, v->def, 1);
        if (!want_float && pto__hs_is_float(m->params[v->def].dtype)) {
            pto_error(V->ctx, o->loc, "argument %d of '%s': parameter '%s' is %s; host scalar '%s' is %s", argi, kn,
                      pto__hs_name(m, kp->name), pto_dtype_name((pto_dtype)kp->dtype), pto__hs_name(m, v->name),
                      pto_dtype_name((pto_dtype)m->params[v->def].dtype));
        }
        break;
    }
    case PTO_O_INT: pto__hs_vexpr(V, o->e[0], o->loc); break;
    default: pto_error(V->ctx, o->loc, "argument %d of '%s' is not a value", argi, kn); break;
    }
}

/* A tensor passed twice to one call and written through either: the
   kernel's reads and writes of it would race. */
static void pto__hs_valias(pto__hs_ver *V, const pto_hstmt *st, const int32_t *order, int32_t n)
{
    const pto_module *m = V->m;
    int32_t i, j;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            const pto_operand *a = &m->operands[st->arg0 + i], *b = &m->operands[st->arg0 + j];
            if (a->kind != PTO_O_GM || b->kind != PTO_O_GM || a->ref != b->ref || a->ref < 0 || a->ref >= m->n_params)
                continue;
            if (m->params[order[i]].dir == PTO_IN && m->params[order[j]].dir == PTO_IN) continue;
            pto_error(V->ctx, b->loc, "'%s' is passed to '%s' twice (arguments %d and %d) and written through one: "
                      "the kernel's reads and writes of it are unordered", pto__hs_name(m, m->params[a->ref].name),
                      pto__hs_name(m, m->kernels[st->ref].name), (int)i + 1, (int)j + 1);
            return;
        }
}

static void pto__hs_vcall(pto__hs_ver *V, const pto_hstmt *st, int32_t *order)
{
    const pto_module *m = V->m;
    const pto_host *h = &m->hosts[V->h];
    const pto_kernel *k;
    const char *kn;
    int32_t n, i;
    if (st->ref < 0 || st->ref >= m->n_kernels) { pto_error(V->ctx, st->loc, "call names no kernel"); return; }
    k = &m->kernels[st->ref];
    kn = pto__hs_name(m, k->name);
    if (st->arg0 < 0 || st->nargs < 0 || st->arg0 + st->nargs > m->n_operands) {
        pto_error(V->ctx, st->loc, "the call of '%s' is malformed", kn);
        return;
    }
    if (k->param0 < 0 || k->nparams < 0 || k->param0 + k->nparams > m->n_params) return; /* reported with the kernel */
    if (k->ranks)   /* reported, then checked as any call (its writes count: no cascade of "no call writes") */
        pto_error(V->ctx, st->loc, "'%s' is a ranks kernel; a host cannot call one yet", kn);
    n = pto__hs_abi(m, k, order);
    if (st->nargs != n) {
        pto_error(V->ctx, st->loc, "'%s' takes %d argument%s (its tensors, then its scalars), got %d", kn, (int)n,
                  n == 1 ? "" : "s", (int)st->nargs);
        return;
    }
    for (i = 0; i < n; i++)
        if (m->params[order[i]].dim_var[0] >= 0) V->kbind[m->params[order[i]].dim_var[0]] = 0;
    for (i = 0; i < n; i++)
        if (m->params[order[i]].dim_var[1] >= 0) V->kbind[m->params[order[i]].dim_var[1]] = 0;
    for (i = 0; i < n; i++) {
        if (m->params[order[i]].kind == PTO_P_TENSOR) pto__hs_vtensor_arg(V, st, (int)i + 1, &m->params[order[i]]);
        else pto__hs_vscalar_arg(V, st, (int)i + 1, &m->params[order[i]]);
    }
    pto__hs_valias(V, st, order, n);
    for (i = 0; i < n; i++) {   /* what this call writes holds data for the calls after it */
        const pto_operand *o = &m->operands[st->arg0 + i];
        if (o->kind == PTO_O_GM && m->params[order[i]].dir != PTO_IN && o->ref - h->param0 >= 0 &&
            o->ref - h->param0 < h->nparams + h->ntensors)
            V->written[o->ref - h->param0] = 1;
    }
}

/* Params and intermediates: dtypes, positive static dims, intermediate dims
   that are dims of the params. */
static void pto__hs_vtensors(pto__hs_ver *V)
{
    const pto_module *m = V->m;
    const pto_host *h = &m->hosts[V->h];
    int32_t i;
    int d;
    for (i = 0; i < h->nparams + h->ntensors; i++) {
        const pto_param *p = &m->params[h->param0 + i];
        const char *pn = pto__hs_name(m, p->name);
        pto__param_enums(V->ctx, p, pn);
        V->written[i] = i < h->nparams && (p->kind == PTO_P_SCALAR || p->dir != PTO_OUT);
        if (p->kind == PTO_P_SCALAR) continue;
        for (d = 0; d < 2; d++) {
            int32_t dv = p->dim_var[d];
            if (dv < 0 && p->dim[d] <= 0)
                pto_error(V->ctx, p->loc, "dim %d of '%s' must be positive, got %lld", d, pn, (long long)p->dim[d]);
            if (dv >= 0 && (dv >= m->n_vars || m->vars[dv].kernel != PTO_HOST_SCOPE(V->h) ||
                            m->vars[dv].kind != PTO_V_DIM || m->vars[dv].def - h->param0 >= h->nparams))
                pto_error(V->ctx, p->loc, "dim %d of '%s' is not a dim of the params of host '%s'", d, pn, V->hname);
        }
        if (p->dim_var[0] < 0 && p->dim_var[1] < 0 && pto__tensor_too_big(p->dtype, p->dim[0], p->dim[1]))
            pto_error(V->ctx, p->loc, "tensor '%s' of host '%s' is %s[%lld, %lld]: more than 2^61 bytes, too large for "
                      "64-bit offsets", pn, V->hname, pto_dtype_name((pto_dtype)p->dtype), (long long)p->dim[0],
                      (long long)p->dim[1]);
    }
}

/* Warnings (a clean host only): an input or scalar that no call uses, an
   intermediate that no call uses or none reads after it is written; most
   often a call left out or a wrong argument, and never needed to run. */
static void pto__hs_unused(pto__hs_ver *V)
{
    const pto_module *m = V->m;
    const pto_host *h = &m->hosts[V->h];
    int32_t i;
    for (i = 0; i < h->nparams + h->ntensors; i++) {
        const pto_param *p = &m->params[h->param0 + i];
        const char *pn = pto__hs_name(m, p->name);
        if (i < h->nparams && p->kind == PTO_P_TENSOR && p->dir == PTO_OUT) continue;   /* an error above */
        if (!(V->used[i] & 1))
            pto_warning(V->ctx, p->loc, "%s '%s' of host '%s' is not used by any call",
                        i >= h->nparams ? "tensor" : p->kind == PTO_P_SCALAR ? "scalar" : "parameter", pn, V->hname);
        else if (i >= h->nparams && !(V->used[i] & 2))
            pto_warning(V->ctx, p->loc, "tensor '%s' of host '%s' is written but no call reads it", pn, V->hname);
    }
}

static void pto__hs_vhost(pto__hs_ver *V, int32_t *order)
{
    const pto_module *m = V->m;
    const pto_host *h = &m->hosts[V->h];
    int32_t s, i;
    int errors0 = pto_error_count(V->ctx);
    V->hname = pto__hs_name(m, h->name);
    if (h->param0 < 0 || h->nparams < 0 || h->ntensors < 0 || h->param0 + h->nparams + h->ntensors > m->n_params ||
        h->stmt0 < 0 || h->nstmts < 0 || h->stmt0 + h->nstmts > m->n_hstmts) {
        pto_error(V->ctx, h->loc, "host '%s' is malformed", V->hname);
        return;
    }
    memset(V->used, 0, (size_t)(h->nparams + h->ntensors));
    pto__hs_vtensors(V);
    for (s = h->stmt0; s < h->stmt0 + h->nstmts; s++) {
        const pto_hstmt *st = &m->hstmts[s];
        if (st->kind == PTO_HS_CALL) pto__hs_vcall(V, st, order);
        else if (st->kind != PTO_HS_TENSOR || st->ref - h->param0 < h->nparams ||
                 st->ref - h->param0 >= h->nparams + h->ntensors)
            pto_error(V->ctx, st->loc, "malformed host statement");
    }
    for (i = 0; i < h->nparams; i++) {
        const pto_param *p = &m->params[h->param0 + i];
        if (p->kind == PTO_P_TENSOR && p->dir == PTO_OUT && !V->written[i])
            pto_error(V->ctx, p->loc, "'%s' is an output of host '%s' but no call writes it", pto__hs_name(m, p->name),
                      V->hname);
    }
    if (pto_error_count(V->ctx) == errors0) pto__hs_unused(V);
}

/* Checks every host section (pto_verify calls it after the kernels). */
static pto_status pto__hs_verify(pto_ctx *ctx, const pto_module *m)
{
    pto__hs_ver V;
    int32_t *order, h, most = 1, k;
    int before = pto_error_count(ctx);
    if (!m->n_hosts) return PTO_OK;
    for (k = 0; k < m->n_kernels; k++)
        if (m->kernels[k].nparams > most) most = m->kernels[k].nparams;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    V.m = m;
    order = (int32_t *)pto_alloc(ctx, sizeof(int32_t) * (size_t)most);
    V.written = (uint8_t *)pto_alloc(ctx, (size_t)m->n_params + 1);
    V.used = (uint8_t *)pto_alloc(ctx, (size_t)m->n_params + 1);
    V.kbind = (int32_t *)pto_alloc(ctx, sizeof(int32_t) * ((size_t)m->n_vars + 1));
    if (order && V.written && V.used && V.kbind)
        for (h = 0; h < m->n_hosts; h++) {
            V.h = h;
            pto__hs_vhost(&V, order);
        }
    pto_free(ctx, order);
    pto_free(ctx, V.written);
    pto_free(ctx, V.used);
    pto_free(ctx, V.kbind);
    if (!order || !V.written || !V.used || !V.kbind) return PTO_ERR_INTERNAL;
    return pto_error_count(ctx) != before ? PTO_ERR_USER : PTO_OK;
}

/* ---- interpreter ----------------------------------------------------------------- */

typedef struct pto__hs_run {
    pto_ctx *ctx;
    const pto_module *m;
    const pto_host *h;
    double *val;            /* per var: host dims and scalars */
    void **tensors;         /* per host tensor */
    int64_t (*shape)[2];    /* per host tensor */
    int64_t max_instr;      /* each call's instruction budget (pto_host_launch) */
} pto__hs_run;

static int pto__hs_eval(pto__hs_run *R, int32_t e, int64_t *out)
{
    const pto_expr *x = &R->m->exprs[e];
    int64_t a = 0, b = 0;
    switch (x->kind) {
    case PTO_E_INT: *out = x->value; return 1;
    case PTO_E_VAR: *out = (int64_t)R->val[x->a]; return 1;
    case PTO_E_NEG:
        if (!pto__hs_eval(R, x->a, &a)) return 0;
        *out = (int64_t)(0 - (uint64_t)a);
        return 1;
    default: break;
    }
    if (!pto__hs_eval(R, x->a, &a) || !pto__hs_eval(R, x->b, &b)) return 0;
    switch (x->kind) {
    case PTO_E_ADD: *out = (int64_t)((uint64_t)a + (uint64_t)b); return 1;
    case PTO_E_SUB: *out = (int64_t)((uint64_t)a - (uint64_t)b); return 1;
    case PTO_E_MUL: *out = (int64_t)((uint64_t)a * (uint64_t)b); return 1;
    case PTO_E_MIN: *out = a < b ? a : b; return 1;
    case PTO_E_MAX: *out = a > b ? a : b; return 1;
    case PTO_E_DIV: case PTO_E_MOD:
        if (b == 0 || (a == INT64_MIN && b == -1)) {
            pto_error(R->ctx, x->loc, "%s by %lld in a host expression", x->kind == PTO_E_DIV ? "division" : "remainder",
                      (long long)b);
            return 0;
        }
        *out = x->kind == PTO_E_DIV ? a / b : a % b;
        return 1;
    default:
        pto_error(R->ctx, x->loc, "this expression has no value on the host");
        return 0;
    }
}

static const pto_binding *pto__hs_binding(const pto_host_launch *L, const char *name)
{
    int i;
    for (i = 0; i < L->nbindings; i++)
        if (L->bindings[i].name && strcmp(L->bindings[i].name, name) == 0) return &L->bindings[i];
    return NULL;
}

/* Host dims and scalars from the bindings; tensor shapes from them. */
static int pto__hs_bind(pto__hs_run *R, const pto_host_launch *L, int32_t host)
{
    const pto_module *m = R->m;
    int32_t v, i;
    int d;
    for (v = 0; v < m->n_vars; v++) {
        const pto_binding *b;
        if (m->vars[v].kernel != PTO_HOST_SCOPE(host)) continue;
        b = pto__hs_binding(L, pto_str(R->ctx, m->vars[v].name));
        if (!b) {
            pto_error(R->ctx, m->vars[v].loc, "%s '%s' of host '%s' has no binding in the launch",
                      m->vars[v].kind == PTO_V_DIM ? "dim" : "scalar", pto_str(R->ctx, m->vars[v].name),
                      pto_str(R->ctx, R->h->name));
            return 0;
        }
        if (m->vars[v].kind == PTO_V_DIM && !(b->value >= 1 && b->value < 2147483648.0 && b->value == floor(b->value))) {
            pto_error(R->ctx, m->vars[v].loc, "dim '%s' is bound to %g, not an integer in [1, 2^31)",
                      pto_str(R->ctx, m->vars[v].name), b->value);
            return 0;
        }
        R->val[v] = b->value;
    }
    for (i = 0; i < R->h->nparams + R->h->ntensors; i++) {
        const pto_param *p = &m->params[R->h->param0 + i];
        for (d = 0; d < 2; d++) R->shape[i][d] = p->dim_var[d] >= 0 ? (int64_t)R->val[p->dim_var[d]] : p->dim[d];
    }
    return 1;
}

/* One call: the kernel's tensors and the bindings of its dims and scalars. */
static int pto__hs_call(pto__hs_run *R, const pto_hstmt *st, int32_t *order, pto_binding *bind)
{
    const pto_module *m = R->m;
    const pto_kernel *k = &m->kernels[st->ref];
    void **kt = (void **)pto_alloc(R->ctx, sizeof(void *) * (size_t)(k->nparams + 1));
    int32_t n = pto__hs_abi(m, k, order), i, nb = 0;
    pto_launch L;
    pto_status ps;
    int d;
    if (!kt) return 0;
    for (i = 0; i < n; i++) {
        const pto_param *kp = &m->params[order[i]];
        const pto_operand *o = &m->operands[st->arg0 + i];
        kt[order[i] - k->param0] = NULL;
        if (kp->kind == PTO_P_TENSOR) {
            int32_t idx = o->ref - R->h->param0;
            kt[order[i] - k->param0] = R->tensors[idx];
            for (d = 0; d < 2; d++)
                if (kp->dim_var[d] >= 0) {
                    bind[nb].name = pto_str(R->ctx, m->vars[kp->dim_var[d]].name);
                    bind[nb++].value = (double)R->shape[idx][d];
                }
            continue;
        }
        if (kp->var < 0) continue;
        bind[nb].name = pto_str(R->ctx, m->vars[kp->var].name);
        if (o->kind == PTO_O_FLOAT) bind[nb].value = o->f;
        else if (o->kind == PTO_O_SCALAR) bind[nb].value = R->val[o->ref];
        else {
            int64_t v;
            if (!pto__hs_eval(R, o->e[0], &v)) { pto_free(R->ctx, kt); return 0; }
            bind[nb].value = (double)v;
        }
        nb++;
    }
    memset(&L, 0, sizeof L);
    L.kernel = st->ref;
    L.tensors = kt;
    L.bindings = bind;
    L.nbindings = nb;
    L.max_instr = R->max_instr;
    ps = pto_interp(R->ctx, m, &L);
    if (ps != PTO_OK)
        pto_note(R->ctx, st->loc, "in the call of '%s' by host '%s'", pto_str(R->ctx, k->name), pto_str(R->ctx, R->h->name));
    pto_free(R->ctx, kt);
    return ps == PTO_OK;
}

static int pto__hs_interp_run(pto__hs_run *R, const pto_host_launch *L, int32_t *order, pto_binding *bind,
                              uint8_t *owned)
{
    const pto_module *m = R->m;
    const pto_host *h = R->h;
    int32_t i, s;
    if (!pto__hs_bind(R, L, L->host)) return 0;
    for (i = 0; i < h->nparams + h->ntensors; i++) {
        const pto_param *p = &m->params[h->param0 + i];
        if (p->kind != PTO_P_TENSOR) continue;
        R->tensors[i] = L->tensors ? L->tensors[i] : NULL;
        if (!R->tensors[i] && i >= h->nparams) {
            size_t bytes = (size_t)(R->shape[i][0] * R->shape[i][1]) * (size_t)pto_dtype_size((pto_dtype)p->dtype);
            R->tensors[i] = pto_alloc(R->ctx, bytes ? bytes : 1);
            if (!R->tensors[i]) return 0;
            memset(R->tensors[i], 0, bytes);
            owned[i] = 1;
        }
        if (!R->tensors[i]) {
            pto_error(R->ctx, p->loc, "tensor '%s' of host '%s' has no array in the launch", pto_str(R->ctx, p->name),
                      pto_str(R->ctx, h->name));
            return 0;
        }
    }
    for (s = h->stmt0; s < h->stmt0 + h->nstmts; s++)
        if (m->hstmts[s].kind == PTO_HS_CALL && !pto__hs_call(R, &m->hstmts[s], order, bind)) return 0;
    return 1;
}

PTODEF pto_status pto_interp_host(pto_ctx *ctx, const pto_module *m, const pto_host_launch *launch)
{
    pto__hs_run R;
    pto_loc none = {0, 0, 0};
    int32_t *order, n, most = 1, k, i;
    pto_binding *bind;
    uint8_t *owned;
    int ok = 0, before = pto_error_count(ctx);
    if (!m || !launch || launch->host < 0 || launch->host >= m->n_hosts)
        return pto_error(ctx, none, "pto_interp_host: the launch names no host of the module");
    if (launch->nbindings > 0 && !launch->bindings)
        return pto_error(ctx, m->hosts[launch->host].loc, "pto_interp_host: the launch has no bindings array");
    memset(&R, 0, sizeof R);
    R.ctx = ctx;
    R.m = m;
    R.h = &m->hosts[launch->host];
    R.max_instr = launch->max_instr;
    n = R.h->nparams + R.h->ntensors;
    for (k = 0; k < m->n_kernels; k++)
        if (m->kernels[k].nparams > most) most = m->kernels[k].nparams;
    order = (int32_t *)pto_alloc(ctx, sizeof(int32_t) * (size_t)most);
    bind = (pto_binding *)pto_alloc(ctx, sizeof(pto_binding) * (size_t)(2 * most));
    owned = (uint8_t *)pto_alloc(ctx, (size_t)n + 1);
    R.val = (double *)pto_alloc(ctx, sizeof(double) * ((size_t)m->n_vars + 1));
    R.tensors = (void **)pto_alloc(ctx, sizeof(void *) * ((size_t)n + 1));
    R.shape = (int64_t(*)[2])pto_alloc(ctx, sizeof(int64_t[2]) * ((size_t)n + 1));
    if (order && bind && owned && R.val && R.tensors && R.shape) {
        memset(owned, 0, (size_t)n + 1);
        memset(R.tensors, 0, sizeof(void *) * ((size_t)n + 1));
        memset(R.val, 0, sizeof(double) * ((size_t)m->n_vars + 1));
        ok = pto__hs_interp_run(&R, launch, order, bind, owned);
        for (i = 0; i < n; i++)
            if (owned[i]) pto_free(ctx, R.tensors[i]);
    }
    pto_free(ctx, order);
    pto_free(ctx, bind);
    pto_free(ctx, owned);
    pto_free(ctx, R.val);
    pto_free(ctx, R.tensors);
    pto_free(ctx, R.shape);
    if (ok) return PTO_OK;
    return pto_error_count(ctx) > before ? PTO_ERR_USER : PTO_ERR_INTERNAL;
}
/* ---- End file: src/host.c ---- */

/* ---- Begin file: src/lower.c ---- */
/* lower.c - the lowering pass: communication ops become ops that the
   planner, the sync inserter and the emitter already know.

   Needs: a module that pto_verify accepted (ranks kernels, window and
   signal tensors, constant tput / tget extents, allreduce on an f32 window
   tensor with static dims: the verifier's rules for these ops), stamped
   (pto_module.verified; refused with an error otherwise). Its builder
   calls clear the stamp; it sets it again on PTO_OK.

   Guarantees on PTO_OK (hardware.md section 8):
   - no tput, tget or allreduce is left. Every statement the pass makes has
     origin PTO_BY_LOWER and a note saying why it is there; its tiles have
     origin PTO_BY_LOWER and are ordinary unplanned vec tiles, so the
     planner places them like any tile (a staging tile the planner does not
     see is the upstream bug of seeds/002) and the emitter declares them.
   - tput D@p[r, c], S[r, c], ROWS, COLS (tget: S@p) becomes a staging tile
     + tload (MTE2) + tstore (MTE3), chunked so one slot holds at most
     PTO__LW_XFER_BYTES; more than one chunk gives a loop over the chunks
     with the staging tile x2, so the load of chunk k + 1 overlaps the store
     of chunk k. Tails use the tile's valid region.
   - allreduce X, SIG becomes the recipe of hardware.md s8, counting
     barriers in cell SIG[0, 0] of every rank with AtomicAdd only:
       wait SIG[0, 0] < n (an earlier allreduce's subtract has landed);
       fence; notify SIG@p[0, 0] += 1 for every rank p; wait SIG[0, 0] >= n
       for every chunk ch (UB-sized, in rank-order-independent loops):
         acc = X@0 chunk; for q = 1 .. n-1: t = X@q chunk; acc = acc + t
         post-reduce barrier: fence; notify every rank; wait >= (ch + 2) * n
         store acc into the own X chunk
       fence; notify SIG[0, 0] += -(chunks + 1) * n   (back to where it was)
     Waits use GE, never EQ (a fast peer can move the cell past the value
     before a slow rank polls it). The post-reduce barrier keeps a fast rank
     from overwriting its window while a slow peer still reads it (the
     wrong sums at 4 ranks of seeds/001). Subtracting the own total makes
     the signal reusable by the next allreduce of the same kernel: with
     AtomicAdd only, a fast peer's early add for the next call is kept.
     The sum runs over ranks in order 0, 1, .., n-1 in f32 on every rank:
     the interpreter's order, so the results agree bit for bit.
   - every notify is directly preceded by pipe_barrier ALL: a notify
     publishes only what every pipe has finished. The pass puts the fence
     there (note "fence: ... inserted by lower") unless the source already
     has one right before the notify.
   - for the isa target only (pto_lower_for(..., PTO_TARGET_ISA)): every
     tload into a tile whose padding (the part outside its valid region)
     some op may read is directly followed by `tfillpad t` (origin lower,
     with a note): pto-isa's TLOAD leaves the padding as it was, and the
     fill is an instruction on another pipe that the sync pass must order
     (see "the isa target's padding fills" below). The simulator target
     gets none: its tload zeroes the padding itself.
   Names the pass makes start with "__" and the op and statement id
   (__ar12_ch), so they do not meet the names of a normal kernel. */

#define PTO__LW_XFER_BYTES 32768   /* one slot of a tput / tget staging tile */
#define PTO__LW_AR_BYTES 16384     /* one allreduce chunk tile */

typedef struct pto__lw {
    pto_ctx *ctx;
    pto_module *m;
    int32_t at;            /* the statement being lowered; new code goes before it */
    pto_loc loc;
    char pre[40];          /* name prefix, e.g. "__ar12" */
    char buf[80];
} pto__lw;

static const char *pto__lw_name(pto__lw *L, const char *suffix)
{
    snprintf(L->buf, sizeof L->buf, "%s_%s", L->pre, suffix);
    return L->buf;
}

static void pto__lw_note(pto__lw *L, int32_t s, const char *note)
{
    if (s >= 0) L->m->stmts[s].note = pto_intern(L->ctx, note, strlen(note));
}

/* ---- expressions ---- */

static int32_t pto__lw_int(pto__lw *L, int64_t v) { return pto_expr_int(L->m, v, L->loc); }
static int32_t pto__lw_var(pto__lw *L, int32_t stmt) { return stmt < 0 ? -1 : pto_expr_var(L->m, L->m->stmts[stmt].ref, L->loc); }
static int32_t pto__lw_nranks(pto__lw *L) { return pto_expr_builtin(L->m, PTO_E_NRANKS, L->loc); }
static int32_t pto__lw_bin(pto__lw *L, pto_expr_kind k, int32_t a, int32_t b)
{
    return a < 0 || b < 0 ? -1 : pto_expr_bin(L->m, k, a, b, L->loc);
}

/* base + off, without the + when off is absent (-1). */
static int32_t pto__lw_plus(pto__lw *L, int32_t base, int32_t off) { return off < 0 ? base : pto__lw_bin(L, PTO_E_ADD, base, off); }

/* The value of a constant expression (lets followed); the verifier made
   sure the extents it is used for are constant. */
static int pto__lw_const(const pto_module *m, int32_t e, int64_t *v, int depth)
{
    const pto_expr *x;
    int64_t a = 0, b = 0;
    if (e < 0 || e >= m->n_exprs || depth > 200) return 0;
    x = &m->exprs[e];
    if (x->kind == PTO_E_INT) { *v = x->value; return 1; }
    if (x->kind == PTO_E_VAR) {
        const pto_var *var = x->a >= 0 && x->a < m->n_vars ? &m->vars[x->a] : NULL;
        return var && var->kind == PTO_V_LET && var->def >= 0 && pto__lw_const(m, m->stmts[var->def].e[0], v, depth + 1);
    }
    if (x->kind == PTO_E_NEG) {
        if (!pto__lw_const(m, x->a, &a, depth + 1)) return 0;
        *v = -a;
        return 1;
    }
    if (!pto__lw_const(m, x->a, &a, depth + 1) || !pto__lw_const(m, x->b, &b, depth + 1)) return 0;
    switch (x->kind) {
    case PTO_E_ADD: *v = a + b; return 1;
    case PTO_E_SUB: *v = a - b; return 1;
    case PTO_E_MUL: *v = a * b; return 1;
    case PTO_E_DIV: if (!b) return 0; *v = a / b; return 1;
    case PTO_E_MOD: if (!b) return 0; *v = a % b; return 1;
    case PTO_E_MIN: *v = a < b ? a : b; return 1;
    case PTO_E_MAX: *v = a > b ? a : b; return 1;
    default: return 0;
    }
}

/* ---- statements ----
   Builders append to a block; the pass builds the replacement at the end of
   the lowered statement's own block and then moves it in front of it. */

static int32_t pto__lw_op(pto__lw *L, int32_t block, pto_op op) { return pto_add_op(L->m, block, op, L->loc); }

static int32_t pto__lw_barrier_all(pto__lw *L, int32_t block, const char *note)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_PIPE_BARRIER);
    if (s >= 0 && pto_arg_pipe(L->m, s, PTO_PIPE_ALL, L->loc) < 0) return -1;
    pto__lw_note(L, s, note);
    return s;
}

static int32_t pto__lw_notify(pto__lw *L, int32_t block, int32_t param, int32_t rank, int32_t value, const char *note)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_NOTIFY), zero = pto__lw_int(L, 0);
    if (s < 0 || pto_arg_gm(L->m, s, param, zero, zero, rank, L->loc) < 0 || pto_arg_int(L->m, s, value, L->loc) < 0 ||
        pto_arg_nmode(L->m, s, PTO_NOTIFY_ADD, L->loc) < 0)
        return -1;
    pto__lw_note(L, s, note);
    return s;
}

static int32_t pto__lw_wait(pto__lw *L, int32_t block, int32_t param, pto_cmp cmp, int32_t value, const char *note)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_WAIT), zero = pto__lw_int(L, 0);
    if (s < 0 || pto_arg_gm(L->m, s, param, zero, zero, -1, L->loc) < 0 || pto_arg_cmp(L->m, s, cmp, L->loc) < 0 ||
        pto_arg_int(L->m, s, value, L->loc) < 0)
        return -1;
    pto__lw_note(L, s, note);
    return s;
}

/* tload t, P[r, c] (rank: -1 own) / tstore P[r, c], t */
static int32_t pto__lw_load(pto__lw *L, int32_t block, int32_t tile, int32_t param, int32_t r, int32_t c, int32_t rank)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_TLOAD);
    if (s < 0 || pto_arg_tile(L->m, s, tile, L->loc) < 0 || pto_arg_gm(L->m, s, param, r, c, rank, L->loc) < 0) return -1;
    return s;
}

static int32_t pto__lw_store(pto__lw *L, int32_t block, int32_t param, int32_t r, int32_t c, int32_t rank, int32_t tile)
{
    int32_t s = pto__lw_op(L, block, PTO_OP_TSTORE);
    if (s < 0 || pto_arg_gm(L->m, s, param, r, c, rank, L->loc) < 0 || pto_arg_tile(L->m, s, tile, L->loc) < 0) return -1;
    return s;
}

/* A vec tile [rows, cols] with valid(vr, vc) (-1: full) and nbuf slots. */
static int32_t pto__lw_tile(pto__lw *L, int32_t block, const char *suffix, pto_dtype dt, int64_t rows, int64_t cols,
                            int32_t vr, int32_t vc, int nbuf)
{
    int32_t t = pto_add_tile(L->m, block, pto__lw_name(L, suffix), PTO_VEC, dt, (int32_t)rows, (int32_t)cols, L->loc);
    if (t < 0) return -1;
    L->m->tiles[t].valid_r = vr;
    L->m->tiles[t].valid_c = vc;
    L->m->tiles[t].nbuf = nbuf;
    return t;
}

static int32_t pto__lw_for(pto__lw *L, int32_t block, const char *suffix, int32_t start, int32_t end)
{
    if (start < 0 || end < 0) return -1;
    return pto_add_for(L->m, block, pto__lw_name(L, suffix), start, end, -1, L->loc);
}

/* ---- chunks ----
   A chunk grid over a ROWS x COLS window: tiles [tr, tc] (tc a multiple of
   32 bytes of the dtype), nr x nc chunks visited by one loop var ch as
   row (ch / nc) * tr, col (ch % nc) * tc. */

typedef struct pto__lw_grid {
    int64_t rows, cols, tr, tc, nr, nc;
} pto__lw_grid;

static void pto__lw_grid_make(pto__lw_grid *g, int64_t rows, int64_t cols, int esize, int64_t budget)
{
    int64_t per32 = 32 / esize, cp = (cols + per32 - 1) / per32 * per32;
    g->rows = rows, g->cols = cols;
    g->tc = cp * esize <= budget ? cp : budget / esize / per32 * per32;
    g->tr = budget / (g->tc * esize);
    if (g->tr < 1) g->tr = 1;
    if (g->tr > rows) g->tr = rows;
    g->nr = (rows + g->tr - 1) / g->tr;
    g->nc = (cols + g->tc - 1) / g->tc;
}

/* Inside the chunk loop (ch: its FOR stmt): lets for the chunk's row and
   col offsets (*r, *c: their exprs, -1 for an offset that is always 0) and
   the valid extents of the chunk's tile (-1: the full tile). */
static int pto__lw_grid_pos(pto__lw *L, const pto__lw_grid *g, int32_t body, int32_t ch, int32_t *r, int32_t *c,
                            int32_t *vr, int32_t *vc)
{
    int32_t chv = pto__lw_var(L, ch), s;
    *r = *c = *vr = *vc = -1;
    if (g->nr > 1) {
        int32_t row = g->nc > 1 ? pto__lw_bin(L, PTO_E_DIV, chv, pto__lw_int(L, g->nc)) : chv;
        s = pto_add_let(L->m, body, pto__lw_name(L, "r"), pto__lw_bin(L, PTO_E_MUL, row, pto__lw_int(L, g->tr)), L->loc);
        if ((*r = pto__lw_var(L, s)) < 0) return 0;
    }
    if (g->nc > 1) {
        int32_t col = g->nr > 1 ? pto__lw_bin(L, PTO_E_MOD, pto__lw_var(L, ch), pto__lw_int(L, g->nc)) : pto__lw_var(L, ch);
        s = pto_add_let(L->m, body, pto__lw_name(L, "c"), pto__lw_bin(L, PTO_E_MUL, col, pto__lw_int(L, g->tc)), L->loc);
        if ((*c = pto__lw_var(L, s)) < 0) return 0;
    }
    if (g->rows % g->tr)
        *vr = pto__lw_bin(L, PTO_E_MIN, pto__lw_int(L, g->tr),
                          *r < 0 ? pto__lw_int(L, g->rows) : pto__lw_bin(L, PTO_E_SUB, pto__lw_int(L, g->rows), *r));
    if (g->cols % g->tc)
        *vc = pto__lw_bin(L, PTO_E_MIN, pto__lw_int(L, g->tc),
                          *c < 0 ? pto__lw_int(L, g->cols) : pto__lw_bin(L, PTO_E_SUB, pto__lw_int(L, g->cols), *c));
    if (*vr < 0 && *vc >= 0) *vr = pto__lw_int(L, g->tr);
    if (*vc < 0 && *vr >= 0) *vc = pto__lw_int(L, g->tc);
    return 1;
}

/* ---- tput / tget ---- */

static int pto__lw_xfer(pto__lw *L, int32_t block)
{
    pto_module *m = L->m;
    const pto_operand d = *pto_stmt_arg(m, L->at, 0), a = *pto_stmt_arg(m, L->at, 1);
    pto_dtype dt = (pto_dtype)m->params[a.ref].dtype;
    pto__lw_grid g;
    int64_t rows, cols;
    int32_t body = block, ch = -1, r, c, vr, vc, t, s;
    if (!pto__lw_const(m, pto_stmt_arg(m, L->at, 2)->e[0], &rows, 0) ||
        !pto__lw_const(m, pto_stmt_arg(m, L->at, 3)->e[0], &cols, 0) || rows < 1 || cols < 1)
        return pto_error(L->ctx, L->loc, "lower: the extents of %s are not constant (verify first)",
                         pto_opinfo_get((pto_op)m->stmts[L->at].op)->name) == PTO_OK;
    pto__lw_grid_make(&g, rows, cols, pto_dtype_size(dt), PTO__LW_XFER_BYTES);
    if (g.nr * g.nc > 1) {
        ch = pto__lw_for(L, block, "ch", pto__lw_int(L, 0), pto__lw_int(L, g.nr * g.nc));
        if (ch < 0) return 0;
        pto__lw_note(L, ch, "tput/tget: one UB-sized chunk per iteration");
        body = m->stmts[ch].body;
        if (!pto__lw_grid_pos(L, &g, body, ch, &r, &c, &vr, &vc)) return 0;
    } else {
        r = c = -1;
        vr = g.tc != cols ? pto__lw_int(L, rows) : -1;
        vc = g.tc != cols ? pto__lw_int(L, cols) : -1;
    }
    t = pto__lw_tile(L, body, "stage", dt, g.tr, g.tc, vr, vc, ch >= 0 ? 2 : 1);
    if (t < 0) return 0;
    pto__lw_note(L, m->tiles[t].decl, "staging tile: GM -> UB -> GM (planned like any tile)");
    s = pto__lw_load(L, body, t, a.ref, pto__lw_plus(L, a.e[0], r), pto__lw_plus(L, a.e[1], c), a.e[2]);
    pto__lw_note(L, s, "stage in (MTE2)");
    s = s < 0 ? -1 : pto__lw_store(L, body, d.ref, pto__lw_plus(L, d.e[0], r), pto__lw_plus(L, d.e[1], c), d.e[2], t);
    pto__lw_note(L, s, "stage out (MTE3)");
    return s >= 0;
}

/* ---- allreduce ---- */

/* fence; notify SIG@p[0, 0] += 1 for every rank p; wait SIG[0, 0] >= count. */
static int pto__lw_ar_barrier(pto__lw *L, int32_t block, int32_t sig, int32_t count, const char *what,
                              const char *suffix)
{
    char note[200];
    int32_t lp, s;
    snprintf(note, sizeof note, "fence: %s: the notify below publishes only what every pipe has finished "
             "(hardware.md s8); inserted by lower", what);
    if (pto__lw_barrier_all(L, block, note) < 0) return 0;
    lp = pto__lw_for(L, block, suffix, pto__lw_int(L, 0), pto__lw_nranks(L));
    if (lp < 0) return 0;
    snprintf(note, sizeof note, "%s: count this rank in every rank's cell (AtomicAdd only: the cell is reused)", what);
    pto__lw_note(L, lp, note);
    if (pto__lw_notify(L, L->m->stmts[lp].body, sig, pto__lw_var(L, lp), pto__lw_int(L, 1), note) < 0) return 0;
    snprintf(note, sizeof note, "%s: until every rank has counted (GE, never EQ: a fast peer may already have "
             "counted further)", what);
    s = pto__lw_wait(L, block, sig, PTO_GE, count, note);
    return s >= 0;
}

/* acc = X@0 chunk; acc += X@q chunk for q = 1 .. nranks - 1, in rank order. */
static int pto__lw_ar_sum(pto__lw *L, int32_t body, const pto__lw_grid *g, int32_t x, int32_t r, int32_t c, int32_t vr,
                          int32_t vc, int32_t *acc)
{
    pto_module *m = L->m;
    int32_t zero = pto__lw_int(L, 0), row = r < 0 ? zero : r, col = c < 0 ? zero : c, q, t, s;
    *acc = pto__lw_tile(L, body, "acc", PTO_F32, g->tr, g->tc, vr, vc, 1);
    if (*acc < 0) return 0;
    s = pto__lw_load(L, body, *acc, x, row, col, pto__lw_int(L, 0));
    pto__lw_note(L, s, "allreduce: start from rank 0's chunk (every rank sums in rank order: the same bits)");
    q = pto__lw_for(L, body, "src", pto__lw_int(L, 1), pto__lw_nranks(L));
    if (s < 0 || q < 0) return 0;
    t = pto__lw_tile(L, m->stmts[q].body, "peer", PTO_F32, g->tr, g->tc, vr, vc, 2);
    if (t < 0) return 0;
    s = pto__lw_load(L, m->stmts[q].body, t, x, row, col, pto__lw_var(L, q));
    pto__lw_note(L, s, "allreduce: remote-load rank q's chunk");
    s = s < 0 ? -1 : pto__lw_op(L, m->stmts[q].body, PTO_OP_TADD);
    if (s < 0 || pto_arg_tile(m, s, *acc, L->loc) < 0 || pto_arg_tile(m, s, *acc, L->loc) < 0 ||
        pto_arg_tile(m, s, t, L->loc) < 0)
        return 0;
    return 1;
}

static int pto__lw_allreduce(pto__lw *L, int32_t block)
{
    pto_module *m = L->m;
    int32_t x = pto_stmt_arg(m, L->at, 0)->ref, sig = pto_stmt_arg(m, L->at, 1)->ref, ch, body, r, c, vr, vc, acc, s;
    pto__lw_grid g;
    int64_t nch;
    pto__lw_grid_make(&g, m->params[x].dim[0], m->params[x].dim[1], 4, PTO__LW_AR_BYTES);
    nch = g.nr * g.nc;
    /* the subtract that ended an earlier allreduce on SIG lands ~1000 cycles after it runs, also in
       the own cell: until it has, the cell still holds that call's counts and the publish wait below
       would pass before the peers arrive. Peers can add at most nranks - 1 before this rank publishes
       (each then waits for it), so the own cell is below nranks exactly when no subtract is pending. */
    if (pto__lw_wait(L, block, sig, PTO_LT, pto__lw_nranks(L),
                     "allreduce: until the subtract of an earlier allreduce on this signal has landed (a notify "
                     "reaches its cell later, the own one too)") < 0)
        return 0;
    /* every rank's X is final before any rank reads it */
    if (!pto__lw_ar_barrier(L, block, sig, pto__lw_nranks(L), "allreduce: publish", "pub")) return 0;
    ch = pto__lw_for(L, block, "ch", pto__lw_int(L, 0), pto__lw_int(L, nch));
    if (ch < 0) return 0;
    pto__lw_note(L, ch, "allreduce: one UB-sized chunk per iteration, with a barrier per chunk");
    body = m->stmts[ch].body;
    if (!pto__lw_grid_pos(L, &g, body, ch, &r, &c, &vr, &vc) || !pto__lw_ar_sum(L, body, &g, x, r, c, vr, vc, &acc))
        return 0;
    /* post-reduce barrier: nobody overwrites chunk ch before every rank read it */
    if (!pto__lw_ar_barrier(L, body, sig,
                            pto__lw_bin(L, PTO_E_MUL, pto__lw_bin(L, PTO_E_ADD, pto__lw_var(L, ch), pto__lw_int(L, 2)),
                                        pto__lw_nranks(L)),
                            "post-reduce barrier", "post"))
        return 0;
    s = pto__lw_store(L, body, x, r < 0 ? pto__lw_int(L, 0) : r, c < 0 ? pto__lw_int(L, 0) : c, -1, acc);
    pto__lw_note(L, s, "allreduce: the sum into the own window (every rank has read this chunk)");
    if (s < 0 || pto__lw_barrier_all(L, block, "fence: the notify below publishes only what every pipe has finished "
                                               "(hardware.md s8); inserted by lower") < 0)
        return 0;
    s = pto__lw_notify(L, block, sig, -1,
                       pto__lw_bin(L, PTO_E_SUB, pto__lw_int(L, 0),
                                   pto__lw_bin(L, PTO_E_MUL, pto__lw_int(L, nch + 1), pto__lw_nranks(L))),
                       "allreduce: subtract this call's (chunks + 1) * nranks counts: the cell is back where it "
                       "started, so the next allreduce can reuse it");
    return s >= 0;
}

/* ---- driver ---- */

/* Moves the statements appended to `block` after `tail` in front of L->at. */
static void pto__lw_move(pto__lw *L, int32_t block, int32_t tail)
{
    pto_module *m = L->m;
    int32_t s = tail >= 0 ? m->stmts[tail].next : m->blocks[block].head;
    while (s >= 0 && s != L->at) {
        int32_t next = m->stmts[s].next;
        pto_unlink(m, s);
        pto_insert_before(m, L->at, s);
        s = next;
    }
}

/* A user notify without pipe_barrier ALL right before it gets one. */
static int pto__lw_fence_notify(pto__lw *L, int32_t block)
{
    const pto_module *m = L->m;
    int32_t prev = m->stmts[L->at].prev;
    if (prev >= 0 && m->stmts[prev].kind == PTO_ST_OP && m->stmts[prev].op == PTO_OP_PIPE_BARRIER &&
        pto_stmt_arg(m, prev, 0)->ref == PTO_PIPE_ALL)
        return 1;
    return pto__lw_barrier_all(L, block, "fence: notify publishes only what every pipe has finished (hardware.md s8); "
                                         "inserted by lower") >= 0;
}

/* Lowers statement s (in a kernel body); 0 on failure. */
static int pto__lw_stmt(pto_ctx *ctx, pto_module *m, int32_t s)
{
    pto__lw L;
    int32_t block = m->stmts[s].block, tail = m->blocks[block].tail, op = m->stmts[s].op;
    int cls = pto_opinfo_get((pto_op)op)->cls, ok;
    memset(&L, 0, sizeof L);
    L.ctx = ctx, L.m = m, L.at = s, L.loc = m->stmts[s].loc;
    snprintf(L.pre, sizeof L.pre, "__%s%d", cls == PTO_OC_ALLREDUCE ? "ar" : op == PTO_OP_TPUT ? "put" : "get", (int)s);
    if (cls == PTO_OC_NOTIFY) ok = pto__lw_fence_notify(&L, block);
    else if (cls == PTO_OC_XFER) ok = pto__lw_xfer(&L, block);
    else ok = pto__lw_allreduce(&L, block);
    pto__lw_move(&L, block, tail);
    if (ok && cls != PTO_OC_NOTIFY) pto_unlink(m, s);
    return ok;
}

/* ---- the isa target's padding fills ----
   tload zeroes a tile outside its valid region (the contract, the
   interpreter, the simulator); pto-isa's TLOAD moves the valid region
   only (its pad value reaches at most the rest of a row's last 32-byte
   block), and zeroing the rest is TFILLPAD's job, an instruction of its
   own on its own pipe (V for a vec tile, MTE2 for a mat tile). So for the
   isa target every tload whose padding some op may read is followed by a
   tfillpad of its tile: the sync pass then orders it after the load and
   before every reader like any op, which the emitter alone could not do. */

/* Whether the extent ed of a tile dimension of size nd (ed -1: all of it)
   is known to lie within the extent et of t's dimension of size nt. */
static int pto__lw_within(const pto_module *m, int32_t ed, int64_t nd, int32_t et, int64_t nt)
{
    int64_t a = nd, b = nt;
    if (nd > nt) return 0;
    if (et < 0 || (pto__lw_const(m, et, &b, 0) && b >= nt)) return 1;   /* t's whole dimension */
    if (pto__expr_same(m, ed, et)) return 1;
    return (ed < 0 || pto__lw_const(m, ed, &a, 0)) && pto__lw_const(m, et, &b, 0) && a <= b;
}

/* Whether statement s may read tile t (its operand i) outside t's valid
   region (docs/pto-format.md, "tile": vector ops and tmov read their
   sources over the DESTINATION's valid region, a row reduction the valid
   columns of its source on the valid rows of its result, a column op its
   source's own valid region; textract and tpush read whole tiles). */
static int pto__lw_reads_pad(const pto_module *m, int32_t s, int i, const pto_tile *t)
{
    const pto_stmt *st = &m->stmts[s];
    int cls = pto_opinfo_get((pto_op)st->op)->cls;
    const pto_operand *o0 = pto_stmt_arg(m, s, 0);
    const pto_tile *d;
    if (cls == PTO_OC_STORE || cls == PTO_OC_COLRED || cls == PTO_OC_SYNC) return 0;
    if (cls != PTO_OC_BIN && cls != PTO_OC_BINS && cls != PTO_OC_UN && cls != PTO_OC_CVT && cls != PTO_OC_MOV &&
        cls != PTO_OC_ROWRED && cls != PTO_OC_ROWEXP && cls != PTO_OC_COLEXP)
        return 1;
    if (!o0 || o0->kind != PTO_O_TILE || o0->ref < 0 || o0->ref >= m->n_tiles) return 1;
    d = &m->tiles[o0->ref];
    if (d == t) return 0;   /* in place: t's own valid region */
    if (cls == PTO_OC_ROWRED || (cls == PTO_OC_ROWEXP && i == 2))   /* rows of d, t's own columns (or column 0) */
        return !pto__lw_within(m, d->valid_r, d->rows, t->valid_r, t->rows);
    if (cls == PTO_OC_COLEXP && i == 2)   /* the [1, C] row: columns of d */
        return !pto__lw_within(m, d->valid_c, d->cols, t->valid_c, t->cols);
    return !pto__lw_within(m, d->valid_r, d->rows, t->valid_r, t->rows) ||
           !pto__lw_within(m, d->valid_c, d->cols, t->valid_c, t->cols);
}

/* Per tile of the module, 1 when it has a padding (a valid region that may
   be smaller than its shape) that some op may read: one pass over the
   statements. NULL when out of memory; the caller frees it. */
static uint8_t *pto__lw_pad_reads(pto_ctx *ctx, const pto_module *m)
{
    uint8_t *pad = (uint8_t *)pto_alloc(ctx, (size_t)m->n_tiles + 1);   /* 2: a padding, 1: read too */
    int32_t s, ti;
    if (!pad) return NULL;
    for (ti = 0; ti < m->n_tiles; ti++) {
        const pto_tile *t = &m->tiles[ti];
        pad[ti] = pto__lw_within(m, -1, t->rows, t->valid_r, t->rows) &&
                  pto__lw_within(m, -1, t->cols, t->valid_c, t->cols) ? 0 : 2;
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int i;
        if (st->kind != PTO_ST_OP || st->block < 0 || st->op >= PTO_NOP) continue;
        for (i = 0; i < st->nargs && i < 4; i++) {
            const pto_operand *o = &m->operands[st->arg0 + i];
            if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles && pad[o->ref] == 2 &&
                (pto_opinfo_get((pto_op)st->op)->arg[i] & PTO_A_READ) && pto__lw_reads_pad(m, s, i, &m->tiles[o->ref]))
                pad[o->ref] = 1;
        }
    }
    for (ti = 0; ti < m->n_tiles; ti++) pad[ti] = pad[ti] == 1;
    return pad;
}

/* A tfillpad of its tile after every tload whose padding may be read. */
static void pto__lw_fillpads(pto_ctx *ctx, pto_module *m)
{
    int32_t s, n = m->n_stmts, ti;
    uint8_t *need = pto__lw_pad_reads(ctx, m);
    if (!need) {
        pto_loc none;
        memset(&none, 0, sizeof none);
        pto_error(ctx, none, "out of memory in the lower pass");
        return;
    }
    for (s = 0; s < n; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *o = st->kind == PTO_ST_OP && st->block >= 0 && st->op == PTO_OP_TLOAD ? pto_stmt_arg(m, s, 0) : NULL;
        int32_t f;
        char note[200];
        if (!o || o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= m->n_tiles || !need[o->ref]) continue;
        ti = o->ref;
        f = pto_add_op(m, m->stmts[s].block, PTO_OP_TFILLPAD, m->stmts[s].loc);
        if (f < 0 || pto_arg_tile(m, f, ti, m->stmts[s].loc) < 0) break;
        pto_unlink(m, f);
        pto_insert_after(m, s, f);
        m->stmts[f].origin = PTO_BY_LOWER;
        snprintf(note, sizeof note, "fill: zero '%s' outside its valid region, which an op reads; pto-isa's TLOAD "
                 "moves the valid region only (inserted by lower for the isa target)", pto_str(ctx, m->tiles[ti].name));
        m->stmts[f].note = pto_intern(ctx, note, strlen(note));
    }
    pto_free(ctx, need);
}

PTODEF pto_status pto_lower(pto_ctx *ctx, pto_module *m) { return pto_lower_for(ctx, m, PTO_TARGET_SIM); }

PTODEF pto_status pto_lower_for(pto_ctx *ctx, pto_module *m, pto_target target)
{
    int32_t s, n, s0, t0, t;
    int errors = pto_error_count(ctx);
    if (pto__need_verified(ctx, m, "pto_lower") != PTO_OK) return PTO_ERR_USER;
    n = s0 = m->n_stmts;
    t0 = m->n_tiles;
    for (s = 0; s < n; s++) {
        const pto_stmt *st = &m->stmts[s];
        int cls;
        if (st->kind != PTO_ST_OP || st->block < 0 || st->op >= PTO_NOP || st->origin != PTO_BY_USER) continue;
        cls = pto_opinfo_get((pto_op)st->op)->cls;
        if (cls != PTO_OC_NOTIFY && cls != PTO_OC_XFER && cls != PTO_OC_ALLREDUCE) continue;
        if (!pto__lw_stmt(ctx, m, s)) break;
    }
    for (s = s0; s < m->n_stmts; s++) m->stmts[s].origin = PTO_BY_LOWER;
    for (t = t0; t < m->n_tiles; t++) m->tiles[t].origin = PTO_BY_LOWER;
    if (target == PTO_TARGET_ISA && pto_error_count(ctx) == errors) pto__lw_fillpads(ctx, m);
    if (pto_error_count(ctx) != errors) return PTO_ERR_INTERNAL;
    /* the builders it called cleared the stamp; its output is valid (Guarantees) */
    m->verified = 1;
    return PTO_OK;
}
/* ---- End file: src/lower.c ---- */

/* ---- Begin file: src/plan.c ---- */
/* plan.c - the memory planner: an address for every local tile.

   Needs: a verified module (tile spaces, shapes and nbuf in range; xN tiles
   declared inside a loop), stamped (pto_module.verified; refused with an
   error otherwise). It writes addresses only, so the stamp stays.
   Guarantees on PTO_OK: every tile whose space is not GM has planned = 1 and
   offset[0..nbuf-1] set; slot k of an xN tile is at offset[0] + k * stride,
   stride = the slot's bytes rounded up to the space's granule, so slots are
   contiguous and in slot order (the sync inserter and the emitter compute a
   slot's address from that). Every slot lies inside its space below the
   room reserved for cube/vector pipe buffers, every planner-chosen offset is
   a multiple of the granule (>= 32 bytes), pinned tiles sit exactly at their
   pin, and no two tiles that can be live at the same time share a byte.
   Tiles that a failed group could not place keep planned = 0.

   Memory is per kernel, per core and per space: a mix kernel's cube and
   vector sections have separate memories, and the two vector cores each have
   their own UB (they run the same vector code, so one plan serves both).

   Lifetimes. Statements are numbered in a pre-order walk of the kernel body
   (a FOR or IF gets its number before its body; the else branch follows the
   then branch). A tile's interval is [first use, last use] over the op
   statements that name it (its declaration alone does not make it live),
   widened so that:
   - a use inside a loop that does not also contain the declaration covers
     that whole loop (the value must survive every iteration);
   - an xN tile covers the whole loop that declares it: slot k may still be
     in flight while iterations k+1..k+N-1 run, so the simplest correct rule
     is N distinct buffers live for the whole loop;
   - a tile declared in a loop body and used only there lives within one
     iteration (a fresh buffer each iteration, pto-text.md).
   Both branches of an IF lie inside [first, last] when the tile is used on
   both sides or after it, so neither branch can clobber it.

   Granules (the unit of planner-chosen offsets and slot strides): 32 bytes
   for vec, mat, bias and scaling (the hardware's alignment rule). left and
   right use 512 bytes and acc 1024 bytes: a cube operand tile is a whole
   number of 512-byte fractals and an accumulator one of 1 KiB fractals
   (hardware.md section 2), so a fractal-aligned offset keeps every fractal
   whole at no cost in space. We do not copy PTOAS's 4 KiB units: they lose
   up to 3.5 KiB per tile in a 64 KiB space for no correctness gain.
   Pins only need the 32-byte hardware alignment.

   Placement. Pinned tiles go first, at their pins. The others are placed one
   at a time at the lowest (first-fit) or the tightest (best-fit) gap that
   clears every already placed tile they may conflict with; several orders
   are tried (largest first, by start, longest lifetime first, largest
   size x lifetime first), each with both fits, and the lowest peak wins
   (the first on a tie, so the output is deterministic).
   Two levels:
   - separate: bytes are shared only by tiles whose accesses all run on one
     pipe. Reusing a dead tile's bytes for a tile written by another pipe
     adds a write-after-read dependency that serialises the two pipes (the
     upstream planner's "pipe conflict" rule), so this level is preferred.
   - tight: any two tiles whose lifetimes are disjoint may share bytes.
   The tight level is used only when no order fits at the separate level,
   or when the caller asks for it. bench/plan_pipes_bench.c shows the effect
   in the cycle model: kernels where a tight plan makes a load wait for a
   store or for the vector pipe run 1.3-1.5x longer.

   Cube/vector pipe consumer buffers (m->cvpipes) are reserved at the top of
   the consumer's space (vec for C2V, mat for V2C, both for BOTH):
   local_slot_num slots of what that core pops (pto_plan_pipe_slot_bytes:
   half the cube tile on an AIV of a split pipe) each, rounded to the
   granule, stacked downwards in pipe order; pto_plan_pipe_base gives a
   pipe's base. */

#define PTO__NFITS 2

typedef struct pto__live {
    int32_t npts;
    int32_t *at;       /* [npts] the statement at a point */
    int32_t *lo, *hi;  /* [n_tiles] the interval; hi < 0: no point at all */
    uint16_t *rd, *wr; /* [n_tiles] pipes that read / write the tile */
} pto__live;

typedef struct pto__item {
    int32_t tile;
    int64_t size, stride, pin; /* size = nbuf * stride; pin = fixed offset or -1 */
    int32_t lo, hi;
    uint16_t rd, wr;
} pto__item;

typedef struct pto__group {
    int32_t kernel;
    int core, space;
    int64_t cap, reserved, avail, granule;
    pto__item *it;
    int32_t n;
    int64_t live_max;  /* most aligned bytes live at one point (a lower bound) */
    int32_t live_pt;
} pto__group;

static const char *const pto__order_names[PTO_NORDER] = {
    "largest-first", "by-start", "longest-first", "by-area"
};

PTODEF int64_t pto_plan_granule(pto_space s)
{
    if (s == PTO_LEFT || s == PTO_RIGHT) return 512;
    if (s == PTO_ACC) return 1024;
    return 32;
}

static int64_t pto__align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

/* ---- program points ------------------------------------------------------ */

static int32_t pto__block_head(const pto_module *m, int32_t b) { return b >= 0 ? m->blocks[b].head : -1; }

static void pto__live_free(pto_ctx *ctx, pto__live *lv)
{
    pto_free(ctx, lv->at);
    pto_free(ctx, lv->lo);
    pto_free(ctx, lv->hi);
    pto_free(ctx, lv->rd);
    pto_free(ctx, lv->wr);
    memset(lv, 0, sizeof *lv);
}

/* The walk's state. Loops are numbered in the order they open (li); a tile
   used in a loop that does not contain its declaration is live to the end
   of the outermost such loop, which is known only when it closes: the tile
   remembers that loop (pend) and takes its end after the walk. In program
   order the outermost loops of a tile's uses are the same or later
   siblings (each holds the uses, none the declaration), so the last one
   has the largest end. */
typedef struct pto__lwalk {
    int32_t *lpt, *lend;    /* [loops] first and last point */
    int32_t nl, capl;
    int32_t *fors;          /* the open loops, outermost first */
    int32_t nf, capf;
    int32_t *frames;        /* the open compound statements: stmt, then 1 while in its body */
    int32_t nfr, capfr;
    int32_t *dpt, *dloop, *pend;   /* [tiles] declaration point, its innermost loop, pending loop */
    int oom;
} pto__lwalk;

static void pto__lw_push(pto_ctx *ctx, pto__lwalk *w, int32_t **arr, int32_t *n, int32_t *cap, int32_t v)
{
    int32_t i = *n < *cap ? (*n)++ : pto__grow(ctx, (void **)arr, n, cap, sizeof(int32_t));
    if (i < 0) { w->oom = 1; return; }
    (*arr)[i] = v;
}

/* The uses of op statement s at point p. */
static void pto__live_op(const pto_module *m, pto__live *lv, const pto__lwalk *w, int32_t s, int32_t p)
{
    const pto_stmt *st = &m->stmts[s];
    const pto_opinfo *oi = pto_opinfo_get((pto_op)st->op);
    /* pto_stmt_pipe: the table's pipe but for the three ops whose pipe depends on their operands */
    int pp = st->op == PTO_OP_TSTORE || st->op == PTO_OP_TPUSH || st->op == PTO_OP_TMOV ? (int)pto_stmt_pipe(m, s)
                                                                                      : (int)oi->pipe;
    uint16_t pipe = (uint16_t)(1u << pp);
    int i;
    for (i = 0; i < st->nargs; i++) {
        const pto_operand *o = &m->operands[st->arg0 + i];
        uint32_t mask = oi && i < oi->nargs ? oi->arg[i] : PTO_A_READ;
        int32_t t = o->ref, dp, j, outer = -1;
        if (o->kind != PTO_O_TILE || t < 0 || t >= m->n_tiles) continue;
        /* the outermost open loop that does not contain the declaration
           (every open loop contains p, after the declaration) */
        dp = w->dpt[t];
        for (j = w->nf - 1; j >= 0 && !(dp >= 0 && w->lpt[w->fors[j]] <= dp); j--) outer = w->fors[j];
        if (outer >= 0) {
            if (w->lpt[outer] < lv->lo[t]) lv->lo[t] = w->lpt[outer];
            w->pend[t] = outer;
        }
        if (p < lv->lo[t]) lv->lo[t] = p;
        if (p > lv->hi[t]) lv->hi[t] = p;
        if (mask & PTO_A_WRITE) lv->wr[t] |= pipe;
        if ((mask & PTO_A_READ) || !(mask & PTO_A_WRITE)) lv->rd[t] |= pipe;
    }
}

/* A new loop opening at point p (its end is p until its body closes). */
static void pto__lw_loop(pto_ctx *ctx, pto__lwalk *w, int32_t p)
{
    if (w->nl == w->capl) {
        int32_t ncap = w->capl ? w->capl * 2 : 64;
        int32_t *a = (int32_t *)pto_realloc(ctx, w->lpt, (size_t)ncap * sizeof(int32_t)), *e;
        if (a) w->lpt = a;
        e = a ? (int32_t *)pto_realloc(ctx, w->lend, (size_t)ncap * sizeof(int32_t)) : NULL;
        if (!e) { w->oom = 1; return; }
        w->lend = e;
        w->capl = ncap;
    }
    w->lpt[w->nl] = w->lend[w->nl] = p;
    w->nl++;
}

/* Numbers one kernel's statements from point n in pre-order (a FOR or IF
   before its body, an else branch after the then branch) and takes their
   uses; returns the next point. At most `budget` statements: a cycle in
   malformed links stops there rather than looping. */
static int32_t pto__live_kernel(pto_ctx *ctx, const pto_module *m, pto__live *lv, pto__lwalk *w, int32_t k,
                                int32_t n, int32_t budget)
{
    int32_t s = pto__block_head(m, m->kernels[k].body);
    w->nf = w->nfr = 0;
    while (s >= 0 && budget-- > 0 && !w->oom) {
        const pto_stmt *st = &m->stmts[s];
        int32_t p = n++;
        lv->at[p] = s;
        if (st->kind == PTO_ST_OP) pto__live_op(m, lv, w, s, p);
        else if (st->kind == PTO_ST_TILE && st->ref >= 0 && st->ref < m->n_tiles && m->tiles[st->ref].decl == s) {
            w->dpt[st->ref] = p;
            w->dloop[st->ref] = w->nf > 0 ? w->fors[w->nf - 1] : -1;
        } else if (st->kind == PTO_ST_FOR) {
            pto__lw_loop(ctx, w, p);
        }
        if (pto__block_head(m, st->body) >= 0 || pto__block_head(m, st->orelse) >= 0) {
            int body = pto__block_head(m, st->body) >= 0;
            pto__lw_push(ctx, w, &w->frames, &w->nfr, &w->capfr, s);
            pto__lw_push(ctx, w, &w->frames, &w->nfr, &w->capfr, body);
            if (st->kind == PTO_ST_FOR) pto__lw_push(ctx, w, &w->fors, &w->nf, &w->capf, w->nl - 1);
            s = pto__block_head(m, body ? st->body : st->orelse);
            continue;
        }
        /* s's subtree is done: the statement after it, closing the compound
           statements whose last statement it was */
        for (;;) {
            int32_t f;
            if (m->stmts[s].next >= 0) { s = m->stmts[s].next; break; }
            if (w->nfr < 2) { s = -1; break; }
            f = w->frames[w->nfr - 2];
            if (w->frames[w->nfr - 1] && pto__block_head(m, m->stmts[f].orelse) >= 0) {
                w->frames[w->nfr - 1] = 0;   /* the then branch is done: the else branch */
                s = pto__block_head(m, m->stmts[f].orelse);
                break;
            }
            w->nfr -= 2;
            if (m->stmts[f].kind == PTO_ST_FOR && w->nf > 0) w->lend[w->fors[--w->nf]] = n - 1;
            s = f;
        }
    }
    return n;
}

/* Intervals of every tile: a tile's interval is [first use, last use]
   over the op statements that name it, widened as the file's top says. */
static pto_status pto__live_build(pto_ctx *ctx, const pto_module *m, pto__live *lv)
{
    size_t ns = (size_t)m->n_stmts + 1, nt = (size_t)m->n_tiles + 1;
    int32_t t, k, n = 0;
    pto__lwalk w;
    memset(lv, 0, sizeof *lv);
    memset(&w, 0, sizeof w);
    lv->at = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    lv->lo = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    lv->hi = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    lv->rd = (uint16_t *)pto_alloc(ctx, nt * sizeof(uint16_t));
    lv->wr = (uint16_t *)pto_alloc(ctx, nt * sizeof(uint16_t));
    w.dpt = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    w.dloop = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    w.pend = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    if (lv->at && lv->lo && lv->hi && lv->rd && lv->wr && w.dpt && w.dloop && w.pend) {
        for (t = 0; t < m->n_tiles; t++) {
            lv->lo[t] = INT32_MAX;
            lv->hi[t] = -1;
            lv->rd[t] = lv->wr[t] = 0;
            w.dpt[t] = w.dloop[t] = w.pend[t] = -1;
        }
        for (k = 0; k < m->n_kernels && !w.oom; k++) n = pto__live_kernel(ctx, m, lv, &w, k, n, m->n_stmts - n);
    } else {
        w.oom = 1;
    }
    lv->npts = n;
    if (!w.oom) {
        for (t = 0; t < m->n_tiles; t++) {
            int32_t l = w.dloop[t];
            if (w.pend[t] >= 0 && w.lend[w.pend[t]] > lv->hi[t]) lv->hi[t] = w.lend[w.pend[t]];
            if (lv->hi[t] < 0) lv->lo[t] = lv->hi[t] = w.dpt[t];  /* never used: live at its declaration */
            if (m->tiles[t].nbuf > 1 && l >= 0) {
                if (w.lpt[l] < lv->lo[t] || lv->lo[t] < 0) lv->lo[t] = w.lpt[l];
                if (w.lend[l] > lv->hi[t]) lv->hi[t] = w.lend[l];
            }
        }
    }
    pto_free(ctx, w.lpt);
    pto_free(ctx, w.lend);
    pto_free(ctx, w.fors);
    pto_free(ctx, w.frames);
    pto_free(ctx, w.dpt);
    pto_free(ctx, w.dloop);
    pto_free(ctx, w.pend);
    if (w.oom) {
        pto__live_free(ctx, lv);
        pto__oom(ctx);
        return PTO_ERR_INTERNAL;
    }
    return PTO_OK;
}

/* ---- groups -------------------------------------------------------------- */

static int pto__local(const pto_tile *t) { return t->space > PTO_GM && t->space < PTO_NSPACE; }

static int64_t pto__tile_stride(const pto_tile *t)
{
    return pto__align_up(pto_tile_bytes(t), pto_plan_granule((pto_space)t->space));
}

static int pto__pipe_consumes(const pto_cvpipe *p, pto_space s)
{
    if (s == PTO_VEC) return (p->dir & PTO_C2V) != 0;
    if (s == PTO_MAT) return (p->dir & PTO_V2C) != 0;
    return 0;
}

/* A local slot holds what this core pops, not the cube-side tile: a split
   pipe gives each AIV half of the tile, and pto-isa's TPOP steps the local
   slots by the popped tile's bytes. The cube always pops the whole tile
   (a split v2c pipe's two halves land in one slot). */
PTODEF int64_t pto_plan_pipe_slot_bytes(const pto_cvpipe *p, pto_space s)
{
    if (!pto__pipe_consumes(p, s)) return 0;
    return s == PTO_VEC && p->split != PTO_SPLIT_NONE ? (int64_t)p->slot_size / 2 : (int64_t)p->slot_size;
}

static int64_t pto__pipe_room(const pto_cvpipe *p, pto_space s)
{
    return pto__align_up((int64_t)p->local_slot_num * pto_plan_pipe_slot_bytes(p, s), pto_plan_granule(s));
}

PTODEF int64_t pto_plan_pipe_base(const pto_module *m, int32_t cvpipe, pto_space s)
{
    int64_t top;
    int32_t i, k;
    if (cvpipe < 0 || cvpipe >= m->n_cvpipes || !pto__pipe_consumes(&m->cvpipes[cvpipe], s)) return -1;
    k = m->cvpipes[cvpipe].kernel;
    top = pto_space_capacity(m->arch, s);
    for (i = 0; i <= cvpipe; i++)
        if (m->cvpipes[i].kernel == k && pto__pipe_consumes(&m->cvpipes[i], s))
            top -= pto__pipe_room(&m->cvpipes[i], s);
    return top;
}

static int64_t pto__reserved(const pto_module *m, int32_t kernel, pto_space s)
{
    int64_t r = 0;
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++)
        if (m->cvpipes[i].kernel == kernel && pto__pipe_consumes(&m->cvpipes[i], s))
            r += pto__pipe_room(&m->cvpipes[i], s);
    return r;
}

/* Appends "pipe 'q' reserves 6 local slots x 16384 B on each vector core"
   for the pipes of kernel that s consumes (b may be NULL); returns the one
   with the largest reservation, which an error caused by the reservation
   points at, or -1. */
static int32_t pto__pipe_desc(const pto_module *m, int32_t kernel, pto_space s, pto_buf *b)
{
    int32_t i, big = -1;
    int64_t most = 0;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *p = &m->cvpipes[i];
        if (p->kernel != kernel || !pto__pipe_consumes(p, s)) continue;
        if (b)
            pto_buf_printf(b, "%spipe '%s' reserves %d local slots x %lld B", big >= 0 ? ", " : "",
                           pto_str(m->ctx, p->name), (int)p->local_slot_num, (long long)pto_plan_pipe_slot_bytes(p, s));
        if (big < 0 || pto__pipe_room(p, s) > most) big = i, most = pto__pipe_room(p, s);
    }
    if (b && big >= 0) pto_buf_puts(b, s == PTO_VEC ? " on each vector core" : " on the cube core");
    return big;
}

static int pto__overlap_time(const pto__item *a, const pto__item *b)
{
    return a->lo <= b->hi && b->lo <= a->hi;
}

static int pto__popcount(unsigned v)
{
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

/* Writing t over bytes that d used adds a dependency between two pipes
   unless every access of d and every write of t run on the same pipe. */
static int pto__conflict_dir(const pto__item *d, const pto__item *t)
{
    unsigned acc = (unsigned)(d->rd | d->wr), w = t->wr;
    return acc && w && pto__popcount(acc | w) > 1;
}

static int pto__conflict(const pto__item *a, const pto__item *b)
{
    return pto__conflict_dir(a, b) || pto__conflict_dir(b, a);
}

/* Sort scratch: n entries each. */
typedef struct pto__sortbuf {
    int32_t *tmp, *base;  /* radix scratch; the base order (pto__sort_base) */
    int64_t *val;         /* the key values of the sort at hand */
    uint64_t *key;        /* the same as radix keys */
} pto__sortbuf;

/* ---- sorting ---------------------------------------------------------------
   Every order the planner uses is a total order: keys compared in turn
   (larger or smaller first), then the item index (items are in tile id
   order, so that is the tile id). Such an order is built by stable LSD
   radix sorts of the item indices, least significant key first, starting
   from index order: linear in the items per key byte, and the same result
   as any sort under that total order. A key byte that is equal in every
   item costs nothing. */

/* Sorts the n item indices v[] stably by key[item], smaller first. tmp:
   n more entries. */
static void pto__rsort(int32_t *v, int32_t *tmp, int32_t n, const uint64_t *key)
{
    uint64_t any = 0, all = ~(uint64_t)0, diff;
    int32_t cnt[256], i, *src = v, *dst = tmp;
    int shift;
    for (i = 0; i < n; i++) { any |= key[i]; all &= key[i]; }
    diff = any ^ all;
    for (shift = 0; shift < 64; shift += 8) {
        int32_t sum = 0, *t;
        int d;
        if (!((diff >> shift) & 0xff)) continue;
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < n; i++) cnt[(key[src[i]] >> shift) & 0xff]++;
        for (d = 0; d < 256; d++) { int32_t c = cnt[d]; cnt[d] = sum; sum += c; }
        for (i = 0; i < n; i++) dst[cnt[(key[src[i]] >> shift) & 0xff]++] = src[i];
        t = src; src = dst; dst = t;
    }
    if (src != v) memcpy(v, src, (size_t)n * sizeof *v);
}

/* key[i] = how far item i's value val[i] is from the first in the order:
   val - min for smaller first, max - val for larger first (exact in
   unsigned arithmetic for any two int64 values). */
static void pto__rkey(uint64_t *key, const int64_t *val, int32_t n, int larger_first)
{
    int64_t lo = 0, hi = 0;
    int32_t i;
    for (i = 0; i < n; i++) {
        if (i == 0 || val[i] < lo) lo = val[i];
        if (i == 0 || val[i] > hi) hi = val[i];
    }
    for (i = 0; i < n; i++) key[i] = larger_first ? (uint64_t)hi - (uint64_t)val[i] : (uint64_t)val[i] - (uint64_t)lo;
}

/* v = the items in index order, then stably sorted by val (larger first or
   smaller first). */
static void pto__sort_by(int32_t *v, int32_t *tmp, int32_t n, int64_t *val, uint64_t *key, int larger_first, int fresh)
{
    int32_t i;
    if (fresh)
        for (i = 0; i < n; i++) v[i] = i;
    pto__rkey(key, val, n, larger_first);
    pto__rsort(v, tmp, n, key);
}

/* The items by interval start (key 0) or end (key 1), ties in item order. */
static void pto__sort_point(const pto__group *g, pto__sortbuf *sb, int32_t *v, int key)
{
    int32_t i;
    for (i = 0; i < g->n; i++) sb->val[i] = key ? g->it[i].hi : g->it[i].lo;
    pto__sort_by(v, sb->tmp, g->n, sb->val, sb->key, 0, 1);
}

/* The most bytes live at one point, and that point. The maximum of a sum of
   intervals is reached at some interval's start: a sweep over the starts
   and the ends (both sorted) visits every start once; the earliest point
   wins a tie. bylo and byhi receive the orders (n entries each); sk and
   tmp are sort scratch. */
static void pto__group_live_max(pto__group *g, int32_t *bylo, int32_t *byhi, pto__sortbuf *sb)
{
    int32_t i, e = 0;
    int64_t sum = 0;
    g->live_max = 0;
    g->live_pt = -1;
    pto__sort_point(g, sb, bylo, 0);
    pto__sort_point(g, sb, byhi, 1);
    if (g->n) g->live_pt = g->it[bylo[0]].lo;
    for (i = 0; i < g->n;) {
        int32_t p = g->it[bylo[i]].lo;
        for (; i < g->n && g->it[bylo[i]].lo == p; i++) sum += g->it[bylo[i]].size;
        for (; e < g->n && g->it[byhi[e]].hi < p; e++) sum -= g->it[byhi[e]].size;
        if (sum > g->live_max) {
            g->live_max = sum;
            g->live_pt = p;
        }
    }
}

/* ---- placement ----------------------------------------------------------- */

/* The placement orders as keys: the order's own key, then size (larger
   first), then start (earlier first), then tile id. */
static int64_t pto__order_key(const pto__item *a, int order)
{
    switch (order) {
    case PTO_ORDER_LARGEST: return a->size;
    case PTO_ORDER_START: return -(int64_t)a->lo;
    case PTO_ORDER_LONGEST: return a->hi - a->lo;
    default: return a->size * (a->hi - a->lo + 1);
    }
}

/* The items by size (larger first), then start (earlier first), then
   index: the tail of every placement order's keys, sorted once per group.
   bylo (pto__group_live_max) is already by start, then index. */
static void pto__sort_base(const pto__group *g, pto__sortbuf *sb, const int32_t *bylo)
{
    int32_t i;
    memcpy(sb->base, bylo, (size_t)g->n * sizeof *bylo);
    for (i = 0; i < g->n; i++) sb->val[i] = g->it[i].size;
    pto__sort_by(sb->base, sb->tmp, g->n, sb->val, sb->key, 1, 0);
}

/* idx = the items in placement order `order`: its own key (larger first),
   then the base order. Largest-first's own key is the size: the base. */
static void pto__sort_order(const pto__group *g, pto__sortbuf *sb, int32_t *idx, int order)
{
    int32_t i;
    memcpy(idx, sb->base, (size_t)g->n * sizeof *idx);
    if (order == PTO_ORDER_LARGEST) return;
    for (i = 0; i < g->n; i++) sb->val[i] = pto__order_key(&g->it[i], order);
    pto__sort_by(idx, sb->tmp, g->n, sb->val, sb->key, 1, 0);
}

/* What one placement attempt knows, built so that placing a tile costs the
   number of tiles it must avoid (times a log), not the number placed:
   - a segment tree over the items sorted by start, holding the latest end
     of the placed ones, finds the placed items live at the same time;
   - at the separate level, the bytes ever used by the placed items of each
     pipe class (the pipes that access a tile, and those that write it:
     pto__conflict depends on nothing else) as a sorted list of disjoint
     ranges, since a conflicting class must be avoided whatever its time.
   The gap search only depends on the union of the bytes to avoid, so the
   result is the same as scanning every placed item in offset order. */
typedef struct pto__cls {
    pto__item rep;      /* rd/wr of the class */
    int64_t *iv;        /* [start, end) pairs, sorted, disjoint, not touching */
    int32_t n, cap;
} pto__cls;

typedef struct pto__scratch {
    pto_ctx *ctx;
    int32_t *idx, *bylo, *byhi, *leaf, *tree, *hits;
    int32_t *lim;       /* per item: how many items start at or before its end (a prefix of bylo) */
    int32_t *touched;   /* tree nodes set since the last reset (each once: values only rise from -1) */
    int32_t ntouched;
    int32_t *pins;      /* the pinned items, in index order */
    int32_t npins;
    pto__sortbuf sb;
    int64_t *off, *best, *obs;
    int32_t width, nobs, capobs, nhits;
    pto__cls *cls;
    int32_t ncls, capcls;
    int oom;
} pto__scratch;

/* Sets item's leaf (from -1: an item is placed once per attempt, and the
   tree is reset before each). A node holds the largest end below it and
   ends only grow, so the new value rises until a node already holds as
   much: every node above holds at least that too. */
static void pto__tree_set(pto__scratch *s, int32_t item, int32_t v)
{
    int32_t n = s->width + s->leaf[item];
    s->touched[s->ntouched++] = n;      /* ends are >= 0: the leaf leaves -1 */
    s->tree[n] = v;
    for (n /= 2; n >= 1 && s->tree[n] < v; n /= 2) {
        if (s->tree[n] < 0) s->touched[s->ntouched++] = n;
        s->tree[n] = v;
    }
}

/* Back to an empty tree (all -1) by undoing the nodes set since the last
   reset: an attempt stopped early has set few of them. */
static void pto__tree_reset(pto__scratch *s)
{
    int32_t k;
    for (k = 0; k < s->ntouched; k++) s->tree[s->touched[k]] = -1;
    s->ntouched = 0;
}

/* The leaves under `node` whose end is >= qlo, left to right (a node's
   value is the largest end below it, so a subtree below qlo is skipped
   whole). An explicit stack: at most one pending right sibling per level. */
static void pto__tree_collect(pto__scratch *s, int32_t node, int32_t qlo)
{
    int32_t stack[66], sp = 0;
    stack[sp++] = node;
    while (sp > 0) {
        int32_t n = stack[--sp];
        if (n >= s->width) { s->hits[s->nhits++] = s->bylo[n - s->width]; continue; }
        if (s->tree[2 * n + 1] >= qlo) stack[sp++] = 2 * n + 1;
        if (s->tree[2 * n] >= qlo) stack[sp++] = 2 * n;
    }
}

/* The placed items among the first `lim` by start whose end is >= qlo, in
   start order: [0, lim) is covered left to right by the whole subtrees met
   on one root-to-leaf path, each then searched by pto__tree_collect. */
static void pto__tree_find(pto__scratch *s, int32_t lim, int32_t qlo)
{
    int32_t node = 1, l = 0, span = s->width;
    while (l < lim) {
        if (l + span <= lim) {              /* the node lies inside [0, lim) */
            if (s->tree[node] >= qlo) pto__tree_collect(s, node, qlo);
            return;
        }
        span /= 2;                          /* partly inside: look at its halves */
        if (l + span <= lim) {              /* the left half is inside, the right partly */
            if (s->tree[2 * node] >= qlo) pto__tree_collect(s, 2 * node, qlo);
            node = 2 * node + 1;
            l += span;
        } else {
            node = 2 * node;
        }
    }
}

static void pto__obs_add(pto__scratch *s, int64_t lo, int64_t hi)
{
    if (s->nobs == s->capobs) {
        int32_t ncap = s->capobs ? s->capobs * 2 : 64;
        int64_t *p = (int64_t *)pto_realloc(s->ctx, s->obs, (size_t)ncap * 2 * sizeof(int64_t));
        if (!p) { s->oom = 1; return; }
        s->obs = p;
        s->capobs = ncap;
    }
    s->obs[2 * s->nobs] = lo;
    s->obs[2 * s->nobs + 1] = hi;
    s->nobs++;
}

static int pto__obs_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The class of item i (created on first sight). */
static pto__cls *pto__class_of(pto__scratch *s, const pto__item *it)
{
    int32_t c;
    for (c = 0; c < s->ncls; c++)
        if (s->cls[c].rep.rd == it->rd && s->cls[c].rep.wr == it->wr) return &s->cls[c];
    if (s->ncls == s->capcls) {
        int32_t ncap = s->capcls ? s->capcls * 2 : 8;
        pto__cls *p = (pto__cls *)pto_realloc(s->ctx, s->cls, (size_t)ncap * sizeof *p);
        if (!p) { s->oom = 1; return NULL; }
        s->cls = p;
        s->capcls = ncap;
    }
    memset(&s->cls[s->ncls], 0, sizeof s->cls[0]);
    s->cls[s->ncls].rep = *it;
    return &s->cls[s->ncls++];
}

/* Adds [lo, hi) to a class's byte ranges, merging what it overlaps. */
static void pto__cls_add(pto__scratch *s, pto__cls *c, int64_t lo, int64_t hi)
{
    int32_t a = 0, b = c->n, i, j;
    while (a < b) { int32_t mid = (a + b) / 2; if (c->iv[2 * mid + 1] < lo) a = mid + 1; else b = mid; }
    i = j = a;
    for (; j < c->n && c->iv[2 * j] <= hi; j++) {
        if (c->iv[2 * j] < lo) lo = c->iv[2 * j];
        if (c->iv[2 * j + 1] > hi) hi = c->iv[2 * j + 1];
    }
    if (j == i) {
        if (c->n == c->cap) {
            int32_t ncap = c->cap ? c->cap * 2 : 16;
            int64_t *p = (int64_t *)pto_realloc(s->ctx, c->iv, (size_t)ncap * 2 * sizeof(int64_t));
            if (!p) { s->oom = 1; return; }
            c->iv = p;
            c->cap = ncap;
        }
        memmove(c->iv + 2 * (i + 1), c->iv + 2 * i, (size_t)(c->n - i) * 2 * sizeof(int64_t));
        c->n++;
    } else {
        memmove(c->iv + 2 * (i + 1), c->iv + 2 * j, (size_t)(c->n - j) * 2 * sizeof(int64_t));
        c->n -= j - i - 1;
    }
    c->iv[2 * i] = lo;
    c->iv[2 * i + 1] = hi;
}

static void pto__mark_placed(const pto__group *g, pto__scratch *s, int32_t i, int separate)
{
    pto__tree_set(s, i, g->it[i].hi);
    if (separate) {
        pto__cls *c = pto__class_of(s, &g->it[i]);
        if (c) pto__cls_add(s, c, s->off[i], s->off[i] + g->it[i].size);
    }
}

/* The offset for item i: the lowest (first-fit) or tightest (best-fit) gap
   between the bytes it must avoid: the placed items live at the same time,
   and at the separate level every placed item of a conflicting pipe class. */
static int64_t pto__find_gap(const pto__group *g, pto__scratch *s, int32_t i, int bestfit, int separate)
{
    const pto__item *a = &g->it[i];
    int64_t cur = 0, best = -1, best_gap = 0;
    int32_t k, c;
    s->nhits = s->nobs = 0;
    pto__tree_find(s, s->lim[i], a->lo);
    for (k = 0; k < s->nhits; k++) pto__obs_add(s, s->off[s->hits[k]], s->off[s->hits[k]] + g->it[s->hits[k]].size);
    for (c = 0; separate && c < s->ncls; c++)
        if (pto__conflict(a, &s->cls[c].rep))
            for (k = 0; k < s->cls[c].n; k++) pto__obs_add(s, s->cls[c].iv[2 * k], s->cls[c].iv[2 * k + 1]);
    if (s->nobs > 1) qsort(s->obs, (size_t)s->nobs, 2 * sizeof(int64_t), pto__obs_cmp);
    for (k = 0; k < s->nobs; k++) {
        int64_t st = s->obs[2 * k], cand = pto__align_up(cur, g->granule);
        if (cand + a->size <= st) {
            if (!bestfit) return cand;
            if (best < 0 || st - cand < best_gap) { best = cand; best_gap = st - cand; }
        }
        if (s->obs[2 * k + 1] > cur) cur = s->obs[2 * k + 1];
    }
    return best >= 0 ? best : pto__align_up(cur, g->granule);
}

/* Places every item with one order and fit; returns the peak (highest byte
   used), or stops with a peak past `limit` as soon as one is (an attempt
   that cannot fit need not be finished). s->off receives the offsets. */
static int64_t pto__place(const pto__group *g, pto__scratch *s, int bestfit, int separate, int64_t limit)
{
    int32_t k, c;
    int64_t peak = 0;
    pto__tree_reset(s);
    for (c = 0; c < s->ncls; c++) s->cls[c].n = 0;
    /* an item's offset is read only once it is placed (the tree and the
       classes hold placed items only; best[] copies a finished attempt) */
    for (c = 0; c < s->npins; c++) {
        k = s->pins[c];
        s->off[k] = g->it[k].pin;
        pto__mark_placed(g, s, k, separate);
        if (s->off[k] + g->it[k].size > peak) peak = s->off[k] + g->it[k].size;
    }
    for (k = 0; k < g->n && peak <= limit && !s->oom; k++) {
        int32_t i = s->idx[k];
        if (g->it[i].pin >= 0) continue;
        s->off[i] = pto__find_gap(g, s, i, bestfit, separate);
        pto__mark_placed(g, s, i, separate);
        if (s->off[i] + g->it[i].size > peak) peak = s->off[i] + g->it[i].size;
    }
    return peak;
}

/* ---- diagnostics ---------------------------------------------------------- */

static const char *pto__plan_tname(const pto_module *m, int32_t t) { return pto_str(m->ctx, m->tiles[t].name); }
static const char *pto__kname(const pto_module *m, int32_t k) { return pto_str(m->ctx, m->kernels[k].name); }

/* "a 65536 (line 3)", "b 2x32768 (line 4)": a tile, its bytes, where it is declared. */
static void pto__item_desc(const pto_module *m, const pto__item *it, pto_buf *b)
{
    int nbuf = m->tiles[it->tile].nbuf;
    if (nbuf > 1) pto_buf_printf(b, "%s %dx%lld", pto__plan_tname(m, it->tile), nbuf, (long long)it->stride);
    else pto_buf_printf(b, "%s %lld", pto__plan_tname(m, it->tile), (long long)it->size);
    pto_buf_printf(b, " (line %d)", (int)m->tiles[it->tile].loc.line);
}

#define PTO__OVERFLOW_SHOWN 5   /* live tiles an overflow message names (4 and "N more" past 5) */

/* The live item at point pt that comes next after item `prev` (-1: the
   first) in the order largest first, then declaration order; -1 if none.
   Repeated selection rather than a sort: only a few are named, and an
   error path should not allocate. */
static int32_t pto__next_largest(const pto__group *g, int32_t pt, int32_t prev)
{
    int32_t i, best = -1;
    for (i = 0; i < g->n; i++) {
        const pto__item *it = &g->it[i];
        if (!(it->lo <= pt && pt <= it->hi)) continue;
        if (prev >= 0 && !(it->size < g->it[prev].size || (it->size == g->it[prev].size && i > prev))) continue;
        if (best < 0 || it->size > g->it[best].size) best = i;
    }
    return best;
}

/* (A pointer, not a pto_loc by value: see pto__ps_tloc on tcc.) */
static const pto_loc *pto__pt_loc(const pto_module *m, const pto__live *lv, int32_t p)
{
    static const pto_loc none = {0, 0, 0};
    return p >= 0 && p < lv->npts ? &m->stmts[lv->at[p]].loc : &none;
}

static pto_status pto__plan_overflow(pto_ctx *ctx, const pto_module *m, const pto__live *lv,
                                const pto__group *g, int64_t peak, const pto_plan_desc *d)
{
    pto_buf b;
    pto_loc live = *pto__pt_loc(m, lv, g->live_pt), loc = live;
    int32_t i, nlive = 0, k, q = -1, shown;
    pto_status st;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    /* the pipe buffers take at least as much as the tiles: the fix is in the
       pipe declaration (fewer local slots), so the error names it there */
    if (g->reserved && g->reserved >= peak) q = pto__pipe_desc(m, g->kernel, (pto_space)g->space, NULL);
    if (q >= 0) loc = m->cvpipes[q].loc;
    for (i = 0; i < g->n; i++) nlive += g->it[i].lo <= g->live_pt && g->live_pt <= g->it[i].hi;
    pto_buf_printf(&b, "kernel '%s': %s overflows: needs %lld bytes, capacity %lld", pto__kname(m, g->kernel),
                   pto_space_name((pto_space)g->space), (long long)(peak + g->reserved), (long long)g->cap);
    if (g->reserved) pto_buf_printf(&b, " (%lld reserved for cube/vector pipe buffers", (long long)g->reserved);
    if (q >= 0) {
        pto_buf_puts(&b, ": ");
        pto__pipe_desc(m, g->kernel, (pto_space)g->space, &b);
    }
    if (g->reserved) pto_buf_puts(&b, ")");
    /* what to shrink: the biggest tiles live where the need peaks */
    pto_buf_printf(&b, "; at line %d, %d tile%s live (%lld bytes), largest first:", (int)live.line, (int)nlive,
                   nlive == 1 ? " is" : "s are", (long long)g->live_max);
    shown = nlive <= PTO__OVERFLOW_SHOWN ? nlive : PTO__OVERFLOW_SHOWN - 1;
    for (k = 0, i = -1; k < shown && (i = pto__next_largest(g, g->live_pt, i)) >= 0; k++) {
        pto_buf_puts(&b, k ? ", " : " ");
        pto__item_desc(m, &g->it[i], &b);
    }
    if (nlive > k) pto_buf_printf(&b, " and %d more", (int)(nlive - k));
    if (g->live_max + g->reserved <= g->cap) {   /* they would fit: the placement is what failed */
        pto_buf_printf(&b, "; the rest is fragmentation: tried %d placement orders (", d->norders);
        for (i = 0; i < d->norders; i++)
            pto_buf_printf(&b, "%s%s", i ? ", " : "", pto__order_names[d->orders[i]]);
        pto_buf_puts(&b, "), first-fit and best-fit each");
    }
    st = b.oom ? PTO_ERR_INTERNAL : pto_error(ctx, loc, "%s", b.data);
    pto_buf_free(&b);
    return st;
}

/* Pins: aligned, inside the space, and never overlapping another live pin. */
static pto_status pto__check_pins(pto_ctx *ctx, const pto_module *m, const pto__group *g)
{
    pto_status st = PTO_OK;
    int32_t i, j;
    for (i = 0; i < g->n; i++) {
        const pto__item *a = &g->it[i];
        const pto_tile *t = &m->tiles[a->tile];
        if (a->pin < 0) continue;
        if (a->pin % 32)
            st = pto_error(ctx, t->loc, "tile '%s' pinned at 0x%llx is not 32-byte aligned",
                           pto__plan_tname(m, a->tile), (long long)a->pin);
        else if (a->pin + a->size > g->avail)
            st = pto_error(ctx, t->loc, "tile '%s' pinned at 0x%llx ends at 0x%llx, past the %s capacity 0x%llx%s",
                           pto__plan_tname(m, a->tile), (long long)a->pin, (long long)(a->pin + a->size),
                           pto_space_name((pto_space)g->space), (long long)g->avail,
                           g->reserved ? " (the rest is reserved for cube/vector pipe buffers)" : "");
        for (j = 0; j < i; j++) {
            const pto__item *b = &g->it[j];
            int64_t lo, hi;
            if (b->pin < 0 || !pto__overlap_time(a, b)) continue;
            lo = a->pin > b->pin ? a->pin : b->pin;
            hi = a->pin + a->size < b->pin + b->size ? a->pin + a->size : b->pin + b->size;
            if (lo < hi)
                st = pto_error(ctx, t->loc, "pinned tiles '%s' and '%s' overlap at %s bytes [0x%llx, 0x%llx) while both live",
                               pto__plan_tname(m, b->tile), pto__plan_tname(m, a->tile), pto_space_name((pto_space)g->space),
                               (long long)lo, (long long)hi);
        }
    }
    return st;
}

/* ---- one group ------------------------------------------------------------ */

/* Tries every level, order and fit; keeps the lowest peak of the first
   level that fits. Returns 1 when a placement fits (best[] holds it).
   Attempts stop once past `limit`; *min_peak is exact only when limit
   is never reached (the caller asks again without a limit when nothing
   fits, to report the real need). */
static int pto__search(const pto__group *g, const pto_plan_desc *d, pto__scratch *s, pto_plan_stat *stat,
                       int64_t limit, int64_t *min_peak)
{
    int level, o, fit;
    *min_peak = -1;
    for (level = d->tight ? PTO_PLAN_TIGHT : PTO_PLAN_SEPARATE; level <= PTO_PLAN_TIGHT; level++) {
        int64_t best_peak = -1;
        for (o = 0; o < d->norders; o++) {
            pto__sort_order(g, &s->sb, s->idx, d->orders[o]);
            for (fit = 0; fit < PTO__NFITS && !s->oom; fit++) {
                /* an attempt that reaches the best peak so far cannot win
                   (a tie keeps the first): stop it there */
                int64_t lim = best_peak >= 0 && best_peak - 1 < limit ? best_peak - 1 : limit;
                int64_t peak = pto__place(g, s, fit, level == PTO_PLAN_SEPARATE, lim);
                if (*min_peak < 0 || peak < *min_peak) *min_peak = peak;
                if (peak > g->avail || (best_peak >= 0 && peak >= best_peak)) continue;
                best_peak = peak;
                memcpy(s->best, s->off, (size_t)g->n * sizeof(int64_t));
                stat->level = (uint8_t)level;
                stat->order = (uint8_t)d->orders[o];
                stat->fit = (uint8_t)fit;
                stat->peak = peak;
                /* live_max is a lower bound of every peak: no later attempt
                   can beat this one, and a tie keeps it */
                if (peak <= g->live_max) return 1;
            }
        }
        if (best_peak >= 0) return 1;
    }
    return 0;
}

static void pto__scratch_free(pto__scratch *s)
{
    int32_t c;
    pto_free(s->ctx, s->idx);
    pto_free(s->ctx, s->sb.tmp);
    pto_free(s->ctx, s->sb.base);
    pto_free(s->ctx, s->sb.val);
    pto_free(s->ctx, s->sb.key);
    pto_free(s->ctx, s->bylo);
    pto_free(s->ctx, s->byhi);
    pto_free(s->ctx, s->leaf);
    pto_free(s->ctx, s->tree);
    pto_free(s->ctx, s->hits);
    pto_free(s->ctx, s->lim);
    pto_free(s->ctx, s->touched);
    pto_free(s->ctx, s->pins);
    pto_free(s->ctx, s->off);
    pto_free(s->ctx, s->best);
    pto_free(s->ctx, s->obs);
    for (c = 0; c < s->ncls; c++) pto_free(s->ctx, s->cls[c].iv);
    pto_free(s->ctx, s->cls);
}

static int pto__scratch_init(pto_ctx *ctx, const pto__group *g, pto__scratch *s)
{
    size_t n = (size_t)g->n + 1;
    int32_t k;
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    for (s->width = 1; s->width < g->n; s->width *= 2) {}
    s->idx = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->sb.tmp = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->sb.base = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->sb.val = (int64_t *)pto_alloc(ctx, n * sizeof(int64_t));
    s->sb.key = (uint64_t *)pto_alloc(ctx, n * sizeof(uint64_t));
    s->bylo = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->byhi = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->leaf = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->hits = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->lim = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->pins = (int32_t *)pto_alloc(ctx, n * sizeof(int32_t));
    s->touched = (int32_t *)pto_alloc(ctx, 2 * (size_t)s->width * sizeof(int32_t));
    s->tree = (int32_t *)pto_alloc(ctx, 2 * (size_t)s->width * sizeof(int32_t));
    s->off = (int64_t *)pto_alloc(ctx, n * sizeof(int64_t));
    s->best = (int64_t *)pto_alloc(ctx, n * sizeof(int64_t));
    if (!s->idx || !s->sb.tmp || !s->sb.base || !s->sb.val || !s->sb.key || !s->bylo || !s->byhi || !s->leaf || !s->hits || !s->lim || !s->pins || !s->touched || !s->tree || !s->off || !s->best) return 0;
    for (k = 1; k < 2 * s->width; k++) s->tree[k] = -1;   /* empty; pto__tree_reset keeps it so */
    for (k = 0; k < g->n; k++)
        if (g->it[k].pin >= 0) s->pins[s->npins++] = k;
    return 1;
}

/* s->lim for every item, by one merge of the items by end (byhi) with the
   items by start (bylo): the same counts as a binary search over bylo per
   placement, computed once for all the attempts. */
static void pto__prefix_limits(const pto__group *g, pto__scratch *s)
{
    int32_t e, j = 0;
    for (e = 0; e < g->n; e++) {
        int32_t i = s->byhi[e];
        while (j < g->n && g->it[s->bylo[j]].lo <= g->it[i].hi) j++;
        s->lim[i] = j;
    }
}

static pto_status pto__plan_group(pto_ctx *ctx, pto_module *m, const pto__live *lv, pto__group *g,
                                  const pto_plan_desc *d, pto_plan_stat *stat)
{
    pto__scratch s;
    int64_t min_peak;
    pto_status st;
    int32_t i;
    stat->kernel = g->kernel;
    stat->core = (uint8_t)g->core;
    stat->space = (uint8_t)g->space;
    stat->capacity = g->cap;
    stat->reserved = g->reserved;
    stat->ntiles = g->n;
    if (!pto__scratch_init(ctx, g, &s)) {
        pto__scratch_free(&s);
        pto__oom(ctx);
        return PTO_ERR_INTERNAL;
    }
    pto__group_live_max(g, s.bylo, s.byhi, &s.sb);
    pto__sort_base(g, &s.sb, s.bylo);
    stat->live_max = g->live_max;
    stat->live_stmt = g->live_pt >= 0 ? lv->at[g->live_pt] : -1;
    for (i = 0; i < g->n; i++) s.leaf[s.bylo[i]] = i;
    pto__prefix_limits(g, &s);
    st = pto__check_pins(ctx, m, g);
    if (st != PTO_OK) {
        pto__scratch_free(&s);
        return st;
    }
    if (!pto__search(g, d, &s, stat, g->avail, &min_peak)) {
        if (!s.oom) pto__search(g, d, &s, stat, INT64_MAX, &min_peak);
        st = s.oom ? PTO_ERR_INTERNAL : pto__plan_overflow(ctx, m, lv, g, min_peak, d);
    } else if (!s.oom) {
        for (i = 0; i < g->n; i++) {
            pto_tile *t = &m->tiles[g->it[i].tile];
            int k;
            for (k = 0; k < t->nbuf; k++) t->offset[k] = s.best[i] + k * g->it[i].stride;
            t->planned = 1;
        }
    }
    if (s.oom) { pto__oom(ctx); st = PTO_ERR_INTERNAL; }
    pto__scratch_free(&s);
    return st;
}

/* ---- driver ---------------------------------------------------------------- */

typedef struct pto__tkey {
    int64_t key;
    int32_t tile;
} pto__tkey;

/* Sorts keys by group key; ties keep their order (tile order: the keys are
   made in tile order): the groups in key order, each in tile order. */
static int pto__sort_keys(pto_ctx *ctx, pto__tkey *keys, int32_t n)
{
    size_t z = (size_t)n + 1;
    int32_t *v = (int32_t *)pto_alloc(ctx, z * sizeof(int32_t)), *tmp = (int32_t *)pto_alloc(ctx, z * sizeof(int32_t)), i;
    int64_t *val = (int64_t *)pto_alloc(ctx, z * sizeof(int64_t));
    uint64_t *key = (uint64_t *)pto_alloc(ctx, z * sizeof(uint64_t));
    pto__tkey *out = (pto__tkey *)pto_alloc(ctx, z * sizeof *out);
    int ok = v && tmp && val && key && out;
    if (ok) {
        for (i = 0; i < n; i++) val[i] = keys[i].key;
        pto__sort_by(v, tmp, n, val, key, 0, 1);
        for (i = 0; i < n; i++) out[i] = keys[v[i]];
        memcpy(keys, out, (size_t)n * sizeof *out);
    } else {
        pto__oom(ctx);
    }
    pto_free(ctx, v);
    pto_free(ctx, tmp);
    pto_free(ctx, val);
    pto_free(ctx, key);
    pto_free(ctx, out);
    return ok;
}

static int64_t pto__group_key(const pto_tile *t) { return ((int64_t)t->kernel << 8) | (t->core << 4) | t->space; }

/* A tile the planner cannot size: reported, and left unplanned. */
static pto_status pto__check_tile(pto_ctx *ctx, const pto_module *m, int32_t t)
{
    const pto_tile *tl = &m->tiles[t];
    if (tl->nbuf < 1 || tl->nbuf > PTO_MAX_NBUF)
        return pto_error(ctx, tl->loc, "tile '%s' has %d slots; 1 to %d are allowed", pto__plan_tname(m, t), (int)tl->nbuf,
                         PTO_MAX_NBUF);
    if (tl->rows <= 0 || tl->cols <= 0 || pto_dtype_size((pto_dtype)tl->dtype) == 0)
        return pto_error(ctx, tl->loc, "tile '%s' has no size", pto__plan_tname(m, t));
    if (tl->kernel < 0 || tl->kernel >= m->n_kernels)
        return pto_error(ctx, tl->loc, "tile '%s' belongs to no kernel", pto__plan_tname(m, t));
    return PTO_OK;
}

static int pto__result_push(pto_ctx *ctx, pto_plan_result *r, const pto_plan_stat *s)
{
    if (r->n == r->cap) {
        int32_t ncap = r->cap ? r->cap * 2 : 16;
        pto_plan_stat *p = (pto_plan_stat *)pto_realloc(ctx, r->stats, (size_t)ncap * sizeof *p);
        if (!p) { pto__oom(ctx); return 0; }
        r->stats = p;
        r->cap = ncap;
    }
    r->stats[r->n++] = *s;
    return 1;
}

static void pto__group_init(const pto_module *m, const pto__live *lv, pto__group *g, const pto__tkey *keys,
                            int32_t n)
{
    const pto_tile *t0 = &m->tiles[keys[0].tile];
    int32_t i;
    g->kernel = t0->kernel;
    g->core = t0->core;
    g->space = t0->space;
    g->cap = pto_space_capacity(m->arch, (pto_space)g->space);
    g->reserved = pto__reserved(m, g->kernel, (pto_space)g->space);
    g->avail = g->cap - g->reserved;
    g->granule = pto_plan_granule((pto_space)g->space);
    g->n = n;
    for (i = 0; i < n; i++) {
        int32_t t = keys[i].tile;
        pto__item *it = &g->it[i];
        it->tile = t;
        it->stride = pto__tile_stride(&m->tiles[t]);
        it->size = it->stride * m->tiles[t].nbuf;
        it->pin = m->tiles[t].pin >= 0 ? m->tiles[t].pin : -1;
        it->lo = lv->lo[t] >= 0 ? lv->lo[t] : 0;
        it->hi = lv->hi[t] >= 0 ? lv->hi[t] : 0;
        it->rd = lv->rd[t];
        it->wr = lv->wr[t];
    }
}

static pto_status pto__plan_groups(pto_ctx *ctx, pto_module *m, const pto__live *lv, const pto__tkey *keys,
                                   int32_t nk, const pto_plan_desc *d)
{
    pto_status st = PTO_OK;
    pto__group g;
    int32_t i = 0, j;
    g.it = (pto__item *)pto_alloc(ctx, ((size_t)nk + 1) * sizeof(pto__item));
    if (!g.it) { pto__oom(ctx); return PTO_ERR_INTERNAL; }
    while (i < nk) {
        pto_plan_stat stat;
        pto_status gs;
        for (j = i; j < nk && keys[j].key == keys[i].key; j++) {}
        memset(&stat, 0, sizeof stat);
        pto__group_init(m, lv, &g, keys + i, j - i);
        gs = pto__plan_group(ctx, m, lv, &g, d, &stat);
        if (gs != PTO_OK && st != PTO_ERR_INTERNAL) st = gs;
        if (d->result && !pto__result_push(ctx, d->result, &stat)) st = PTO_ERR_INTERNAL;
        if (st == PTO_ERR_INTERNAL) break;
        i = j;
    }
    pto_free(ctx, g.it);
    return st;
}

static const pto_plan_order pto__default_orders[PTO_NORDER] = {
    PTO_ORDER_LARGEST, PTO_ORDER_START, PTO_ORDER_LONGEST, PTO_ORDER_AREA
};

/* The local slots of pipe q (with the pipes before it) pass the top of
   space s; the error points at the pipe's declaration. */
static pto_status pto__pipe_nofit(pto_ctx *ctx, const pto_module *m, int32_t q, pto_space s)
{
    pto_buf b;
    pto_status st;
    const pto_cvpipe *p = &m->cvpipes[q];
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    pto_buf_printf(&b, "kernel '%s': the local slots of pipe '%s' do not fit %s: needs %lld bytes, capacity %lld (",
                   pto__kname(m, p->kernel), pto_str(ctx, p->name), pto_space_name(s),
                   (long long)pto__reserved(m, p->kernel, s), (long long)pto_space_capacity(m->arch, s));
    pto__pipe_desc(m, p->kernel, s, &b);
    pto_buf_puts(&b, ")");
    st = b.oom ? PTO_ERR_INTERNAL : pto_error(ctx, p->loc, "%s", b.data);
    pto_buf_free(&b);
    return st;
}

/* A tile that a tpop fills lives in its pipe's reserved consumer slots:
   offset[0] is the pipe's base and its pops rotate through local_slot_num
   slots from there (the emitter and the simulator compute the slot), so
   the tile is placed here and kept out of the groups. The verifier makes
   it the only destination of that pipe in its section. Returns 1 when t is
   such a tile. */
static int pto__pipe_dest(pto_ctx *ctx, pto_module *m, int32_t t, pto_status *st)
{
    int32_t s;
    if (m->n_cvpipes == 0) return 0;   /* no pipe: no scan (long kernels) */
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *x = &m->stmts[s];
        const pto_operand *o;
        int64_t base;
        if (x->kind != PTO_ST_OP || x->op != PTO_OP_TPOP || x->nargs != 2 || x->block < 0) continue;
        o = &m->operands[x->arg0];
        if (o->kind != PTO_O_TILE || o->ref != t || m->operands[x->arg0 + 1].kind != PTO_O_CVPIPE) continue;
        base = pto_plan_pipe_base(m, m->operands[x->arg0 + 1].ref, (pto_space)m->tiles[t].space);
        if (base < 0) {
            *st = pto__pipe_nofit(ctx, m, m->operands[x->arg0 + 1].ref, (pto_space)m->tiles[t].space);
            return 1;
        }
        memset(m->tiles[t].offset, 0, sizeof m->tiles[t].offset);
        m->tiles[t].offset[0] = base;
        m->tiles[t].planned = 1;
        return 1;
    }
    return 0;
}

PTODEF pto_status pto_plan(pto_ctx *ctx, pto_module *m, const pto_plan_desc *desc)
{
    pto_plan_desc d;
    pto__live lv;
    pto__tkey *keys;
    pto_status st = PTO_OK;
    int32_t t, nk = 0, i;
    if (pto__need_verified(ctx, m, "pto_plan") != PTO_OK) return PTO_ERR_USER;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    for (i = 0; i < d.norders; i++)
        if (d.orders[i] < 0 || d.orders[i] >= PTO_NORDER) d.norders = 0;
    if (d.norders <= 0 || !d.orders) { d.orders = pto__default_orders; d.norders = PTO_NORDER; }
    if (d.result) d.result->n = 0;
    if (pto__live_build(ctx, m, &lv) != PTO_OK) return PTO_ERR_INTERNAL;
    keys = (pto__tkey *)pto_alloc(ctx, ((size_t)m->n_tiles + 1) * sizeof *keys);
    if (!keys) { pto__live_free(ctx, &lv); pto__oom(ctx); return PTO_ERR_INTERNAL; }
    for (t = 0; t < m->n_tiles; t++) {
        if (!pto__local(&m->tiles[t])) continue;
        m->tiles[t].planned = 0;
        if (pto__pipe_dest(ctx, m, t, &st)) continue;
        if (pto__check_tile(ctx, m, t) != PTO_OK) { st = PTO_ERR_USER; continue; }
        keys[nk].key = pto__group_key(&m->tiles[t]);
        keys[nk++].tile = t;
    }
    if (!pto__sort_keys(ctx, keys, nk)) { pto_free(ctx, keys); pto__live_free(ctx, &lv); return PTO_ERR_INTERNAL; }
    {
        pto_status gs = pto__plan_groups(ctx, m, &lv, keys, nk, &d);
        if (gs != PTO_OK) st = gs;
    }
    pto_free(ctx, keys);
    pto__live_free(ctx, &lv);
    return st;
}

PTODEF void pto_plan_result_free(pto_ctx *ctx, pto_plan_result *r)
{
    if (!r) return;
    pto_free(ctx, r->stats);
    memset(r, 0, sizeof *r);
}

/* ---- the report ------------------------------------------------------------ */

#define PTO__MAP_COLS 64
#define PTO__MAP_ROWS 60

static char pto__letter(int32_t i)
{
    if (i < 26) return (char)('a' + i);
    if (i < 52) return (char)('A' + i - 26);
    if (i < 62) return (char)('0' + i - 52);
    return '*';
}

static void pto__lines(const pto_module *m, const pto__live *lv, int32_t lo, int32_t hi, int *l0, int *l1)
{
    int32_t p;
    *l0 = *l1 = 0;
    for (p = lo; p >= 0 && p <= hi && p < lv->npts; p++) {
        int line = (int)m->stmts[lv->at[p]].loc.line;
        if (*l0 == 0 || line < *l0) *l0 = line;
        if (line > *l1) *l1 = line;
    }
}

/* Whether statement s has a point (the report's statements only: a scan). */
static int pto__numbered(const pto__live *lv, int32_t s)
{
    int32_t p;
    for (p = 0; p < lv->npts; p++)
        if (lv->at[p] == s) return 1;
    return 0;
}

static const pto_plan_stat *pto__find_stat(const pto_plan_result *r, int32_t k, int core, int space)
{
    int32_t i;
    for (i = 0; r && i < r->n; i++)
        if (r->stats[i].kernel == k && r->stats[i].core == core && r->stats[i].space == space) return &r->stats[i];
    return NULL;
}

/* The tiles of one memory, in id order; returns how many. */
static int32_t pto__collect(const pto_module *m, int32_t k, int core, int space, int32_t *out)
{
    int32_t t, n = 0;
    for (t = 0; t < m->n_tiles; t++) {
        const pto_tile *tl = &m->tiles[t];
        if (tl->kernel == k && tl->core == core && tl->space == space && tl->planned) out[n++] = t;
    }
    return n;
}

static void pto__report_table(const pto_module *m, const pto__live *lv, const int32_t *ts, int32_t n, pto_buf *b)
{
    int32_t i;
    for (i = 0; i < n; i++) {
        const pto_tile *t = &m->tiles[ts[i]];
        int l0, l1;
        pto__lines(m, lv, lv->lo[ts[i]], lv->hi[ts[i]], &l0, &l1);
        pto_buf_printf(b, "  %c %-12s %-6s 0x%06llx %8lld  x%d  lines %d-%d%s\n", pto__letter(i),
                       pto__plan_tname(m, ts[i]), pto_space_name((pto_space)t->space), (long long)t->offset[0],
                       (long long)(pto__tile_stride(t) * t->nbuf), (int)t->nbuf, l0, l1,
                       t->pin >= 0 ? "  pinned" : "");
    }
}

static void pto__report_summary(const pto_module *m, const pto__live *lv, const pto_plan_stat *s,
                                pto_space sp, pto_buf *b)
{
    static const char *const level_names[2] = {
        "separate (no byte shared across pipes)", "tight (bytes reused across pipes: adds waits between pipes)"
    };
    int64_t cap = pto_space_capacity(m->arch, sp);
    if (!s) {
        pto_buf_printf(b, "  %s: capacity %lld bytes\n", pto_space_name(sp), (long long)cap);
        return;
    }
    pto_buf_printf(b, "  %s: peak %lld of %lld bytes (%.1f%%), lower bound %lld", pto_space_name(sp),
                   (long long)s->peak, (long long)cap, cap ? 100.0 * (double)s->peak / (double)cap : 0.0,
                   (long long)s->live_max);
    if (s->live_stmt >= 0 && pto__numbered(lv, s->live_stmt))
        pto_buf_printf(b, " (live at line %d)", (int)m->stmts[s->live_stmt].loc.line);
    if (s->reserved) pto_buf_printf(b, ", %lld reserved for pipe buffers", (long long)s->reserved);
    pto_buf_printf(b, "\n    level %s, order %s, %s\n", level_names[s->level ? 1 : 0],
                   pto__order_names[s->order < PTO_NORDER ? s->order : 0], s->fit ? "best-fit" : "first-fit");
}

static int64_t pto__cover(int64_t a0, int64_t a1, int64_t o0, int64_t o1)
{
    int64_t lo = a0 > o0 ? a0 : o0, hi = a1 < o1 ? a1 : o1;
    return hi > lo ? hi - lo : 0;
}

/* One map row: the tiles live at point p, address across. A column shows
   the tile covering most of its bytes; a tile too small to win a column
   still shows at the column of its first byte. */
static void pto__map_row(const pto_module *m, const pto__live *lv, const int32_t *ts, int32_t n, int32_t p,
                         int64_t cap, int64_t reserved, pto_buf *b)
{
    char row[PTO__MAP_COLS + 1];
    int64_t best[PTO__MAP_COLS];
    int c;
    int32_t i;
    for (c = 0; c < PTO__MAP_COLS; c++) {
        row[c] = cap * c / PTO__MAP_COLS >= cap - reserved ? '#' : '.';
        best[c] = 0;
    }
    for (i = 0; i < n; i++) {
        const pto_tile *t = &m->tiles[ts[i]];
        int64_t o0 = t->offset[0], o1 = o0 + pto__tile_stride(t) * t->nbuf;
        int shown = 0;
        if (!(lv->lo[ts[i]] <= p && p <= lv->hi[ts[i]])) continue;
        for (c = 0; c < PTO__MAP_COLS; c++) {
            int64_t cov = pto__cover(cap * c / PTO__MAP_COLS, cap * (c + 1) / PTO__MAP_COLS, o0, o1);
            if (cov > best[c]) { best[c] = cov; row[c] = pto__letter(i); shown = 1; }
        }
        c = (int)(o0 * PTO__MAP_COLS / cap);
        if (!shown && c >= 0 && c < PTO__MAP_COLS) row[c] = pto__letter(i);
    }
    row[PTO__MAP_COLS] = 0;
    pto_buf_printf(b, "    line %4d |%s|\n", (int)m->stmts[lv->at[p]].loc.line, row);
}

static void pto__report_map(const pto_module *m, const pto__live *lv, const int32_t *ts, int32_t n, pto_space sp,
                            int64_t reserved, pto_buf *b)
{
    int64_t cap = pto_space_capacity(m->arch, sp);
    int32_t p, i, rows = 0, p0 = INT32_MAX, p1 = -1;
    for (i = 0; i < n; i++) {
        if (lv->lo[ts[i]] >= 0 && lv->lo[ts[i]] < p0) p0 = lv->lo[ts[i]];
        if (lv->hi[ts[i]] > p1) p1 = lv->hi[ts[i]];
    }
    pto_buf_printf(b, "    %9s 0x0%*s0x%llx (one column = %lld bytes)\n", "", PTO__MAP_COLS - 6, "",
                   (long long)cap, (long long)(cap / PTO__MAP_COLS));
    /* a row wherever some tile becomes live */
    for (p = p0; p <= p1 && rows < PTO__MAP_ROWS; p++) {
        int starts = 0;
        for (i = 0; i < n; i++) starts |= lv->lo[ts[i]] == p;
        if (!starts) continue;
        pto__map_row(m, lv, ts, n, p, cap, reserved, b);
        rows++;
    }
    if (p <= p1) pto_buf_puts(b, "    ... (more rows)\n");
}

PTODEF void pto_plan_report(const pto_module *m, const pto_plan_result *r, pto_buf *out)
{
    pto__live lv;
    int32_t *ts, k;
    int core, sp;
    if (!m || !out) return;
    if (pto__live_build(m->ctx, m, &lv) != PTO_OK) { out->oom = 1; return; }
    ts = (int32_t *)pto_alloc(m->ctx, ((size_t)m->n_tiles + 1) * sizeof(int32_t));
    if (!ts) { pto__live_free(m->ctx, &lv); out->oom = 1; return; }
    for (k = 0; k < m->n_kernels; k++) {
        pto_buf_printf(out, "kernel %s (%s, %s)\n", pto__kname(m, k),
                       m->kernels[k].kind == PTO_KK_MIX ? "mix" : m->kernels[k].kind == PTO_KK_CUBE ? "cube" : "vector",
                       pto_arch_name(m->arch));
        pto_buf_printf(out, "map %-12s %-6s %-8s %8s  %-3s %s\n", "tile", "space", "offset", "bytes", "slots",
                       "lifetime");
        for (core = 0; core < 2; core++)
            for (sp = PTO_VEC; sp < PTO_NSPACE; sp++) {
                int32_t n = pto__collect(m, k, core, sp, ts);
                if (n) pto__report_table(m, &lv, ts, n, out);
            }
        for (core = 0; core < 2; core++)
            for (sp = PTO_VEC; sp < PTO_NSPACE; sp++) {
                int32_t n = pto__collect(m, k, core, sp, ts);
                const pto_plan_stat *s = pto__find_stat(r, k, core, sp);
                if (!n) continue;
                pto__report_summary(m, &lv, s, (pto_space)sp, out);
                pto__report_map(m, &lv, ts, n, (pto_space)sp, s ? s->reserved : pto__reserved(m, k, (pto_space)sp), out);
            }
    }
    pto_free(m->ctx, ts);
    pto__live_free(m->ctx, &lv);
}

/* ---- the SVG picture ----------------------------------------------------- */

static void pto__svg_panel(const pto_module *m, const pto__live *lv, const int32_t *ts, int32_t n, int32_t k,
                           pto_space sp, double y0, pto_buf *b)
{
    const double W = 760, H = 260, X = 60;
    int64_t cap = pto_space_capacity(m->arch, sp);
    int32_t i, p0 = INT32_MAX, p1 = 0;
    for (i = 0; i < n; i++) {
        if (lv->lo[ts[i]] < p0) p0 = lv->lo[ts[i]];
        if (lv->hi[ts[i]] > p1) p1 = lv->hi[ts[i]];
    }
    pto_buf_printf(b, "<text x='%g' y='%g'>kernel %s: %s, %lld bytes (x: program order, y: address)</text>\n", X,
                   y0 - 6, pto__kname(m, k), pto_space_name(sp), (long long)cap);
    pto_buf_printf(b, "<rect x='%g' y='%g' width='%g' height='%g' fill='none' stroke='black'/>\n", X, y0, W, H);
    for (i = 0; i < n; i++) {
        const pto_tile *t = &m->tiles[ts[i]];
        double span = (double)(p1 - p0 + 1);
        double x = X + W * (lv->lo[ts[i]] - p0) / span, w = W * (lv->hi[ts[i]] - lv->lo[ts[i]] + 1) / span;
        double y = y0 + H * (double)t->offset[0] / (double)cap;
        double h = H * (double)(pto__tile_stride(t) * t->nbuf) / (double)cap;
        pto_buf_printf(b, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='hsl(%d,60%%,70%%)' "
                          "stroke='black'><title>%s 0x%llx +%lld</title></rect>\n",
                       x, y, w, h, (int)(i * 47 % 360), pto__plan_tname(m, ts[i]), (long long)t->offset[0],
                       (long long)(pto__tile_stride(t) * t->nbuf));
        pto_buf_printf(b, "<text x='%.1f' y='%.1f' font-size='10'>%s</text>\n", x + 2, y + 10, pto__plan_tname(m, ts[i]));
    }
}

PTODEF void pto_plan_svg(const pto_module *m, pto_buf *out)
{
    pto__live lv;
    int32_t *ts, k, panels = 0;
    int core, sp;
    if (!m || !out) return;
    if (pto__live_build(m->ctx, m, &lv) != PTO_OK) { out->oom = 1; return; }
    ts = (int32_t *)pto_alloc(m->ctx, ((size_t)m->n_tiles + 1) * sizeof(int32_t));
    if (!ts) { pto__live_free(m->ctx, &lv); out->oom = 1; return; }
    for (k = 0; k < m->n_kernels; k++)
        for (core = 0; core < 2; core++)
            for (sp = PTO_VEC; sp < PTO_NSPACE; sp++) panels += pto__collect(m, k, core, sp, ts) > 0;
    pto_buf_printf(out, "<svg xmlns='http://www.w3.org/2000/svg' width='840' height='%d' font-family='monospace' "
                        "font-size='12'>\n", 20 + panels * 300);
    panels = 0;
    for (k = 0; k < m->n_kernels; k++)
        for (core = 0; core < 2; core++)
            for (sp = PTO_VEC; sp < PTO_NSPACE; sp++) {
                int32_t n = pto__collect(m, k, core, sp, ts);
                if (n) pto__svg_panel(m, &lv, ts, n, k, (pto_space)sp, 30.0 + 300.0 * panels++, out);
            }
    pto_buf_puts(out, "</svg>\n");
    pto_free(m->ctx, ts);
    pto__live_free(m->ctx, &lv);
}
/* ---- End file: src/plan.c ---- */

/* ---- Begin file: src/plancheck.c ---- */
/* plancheck.c - the plan checker: an independent second opinion on plan.c.

   Needs: a module that went through pto_plan (or that someone placed by
   hand: pins, tests with planted bugs).
   Guarantees: PTO_OK only when every local tile (space != GM) is planned,
   every slot is 32-byte aligned and lies inside its space below the room of
   the kernel's cube/vector pipe consumer buffers, the slots of an xN tile
   are in slot order at one fixed stride without overlapping each other, and
   no two tiles of one memory (kernel, core, space) that can be live at the
   same time share a byte. Every violation is reported, naming the tiles and
   the byte range.

   It shares no code with the planner on purpose: a bug in one is unlikely to
   be repeated in the other. It numbers statements with an explicit stack
   (plan.c walks sibling links), finds subtree ends by a reverse sweep, and
   finds a use's loops by climbing block owners. The lifetime rules are the
   documented ones (plan.c): [first use, last use]; a use inside a loop that
   does not contain the declaration covers that loop; an xN tile covers the
   whole loop that declares it; an unused tile lives at its declaration.
   It checks footprints with the real slot bytes (rows x cols x element
   size), not the planner's rounded strides. */

typedef struct pto__pc {
    const pto_module *m;
    int32_t npts;
    int32_t *num;       /* [n_stmts] pre-order number, -1 when unreachable */
    int32_t *last;      /* [n_stmts] largest number in the subtree */
    int32_t *stmt_of;   /* [npts] */
    int32_t *from, *to; /* [n_tiles] live range */
} pto__pc;

static int32_t pto__pc_parent(const pto_module *m, int32_t s)
{
    int32_t b = m->stmts[s].block;
    return b >= 0 ? m->blocks[b].owner : -1;
}

static void pto__pc_walk(pto__pc *c, int32_t *stack)
{
    const pto_module *m = c->m;
    int32_t k, p, sp;
    for (k = 0; k < m->n_kernels; k++) {
        sp = 0;
        if (m->kernels[k].body >= 0 && m->blocks[m->kernels[k].body].head >= 0)
            stack[sp++] = m->blocks[m->kernels[k].body].head;
        while (sp > 0) {
            int32_t s = stack[--sp];
            const pto_stmt *st = &m->stmts[s];
            if (c->num[s] >= 0) continue;
            c->num[s] = c->npts;
            c->stmt_of[c->npts++] = s;
            /* pushed in reverse: body first, then else, then the sibling */
            if (st->next >= 0 && sp < m->n_stmts) stack[sp++] = st->next;
            if (st->orelse >= 0 && m->blocks[st->orelse].head >= 0 && sp < m->n_stmts)
                stack[sp++] = m->blocks[st->orelse].head;
            if (st->body >= 0 && m->blocks[st->body].head >= 0 && sp < m->n_stmts)
                stack[sp++] = m->blocks[st->body].head;
        }
    }
    for (p = c->npts - 1; p >= 0; p--) {
        int32_t s = c->stmt_of[p], up = pto__pc_parent(m, s);
        if (c->last[s] < p) c->last[s] = p;
        if (up >= 0 && c->num[up] >= 0 && c->last[up] < c->last[s]) c->last[up] = c->last[s];
    }
}

static int pto__pc_encloses(const pto_module *m, int32_t anc, int32_t s)
{
    for (s = s >= 0 ? pto__pc_parent(m, s) : -1; s >= 0; s = pto__pc_parent(m, s))
        if (s == anc) return 1;
    return 0;
}

static void pto__pc_cover(pto__pc *c, int32_t t, int32_t lo, int32_t hi)
{
    if (c->from[t] < 0 || lo < c->from[t]) c->from[t] = lo;
    if (hi > c->to[t]) c->to[t] = hi;
}

static void pto__pc_use(pto__pc *c, int32_t t, int32_t u)
{
    const pto_module *m = c->m;
    int32_t a, outer = -1;
    for (a = pto__pc_parent(m, u); a >= 0; a = pto__pc_parent(m, a))
        if (m->stmts[a].kind == PTO_ST_FOR && !pto__pc_encloses(m, a, m->tiles[t].decl)) outer = a;
    pto__pc_cover(c, t, c->num[u], c->num[u]);
    if (outer >= 0) pto__pc_cover(c, t, c->num[outer], c->last[outer]);
}

static void pto__pc_ranges(pto__pc *c)
{
    const pto_module *m = c->m;
    int32_t p, t;
    for (p = 0; p < c->npts; p++) {
        const pto_stmt *st = &m->stmts[c->stmt_of[p]];
        int32_t i;
        if (st->kind != PTO_ST_OP) continue;
        for (i = st->arg0; i < st->arg0 + st->nargs; i++)
            if (m->operands[i].kind == PTO_O_TILE && m->operands[i].ref >= 0 && m->operands[i].ref < m->n_tiles)
                pto__pc_use(c, m->operands[i].ref, c->stmt_of[p]);
    }
    for (t = 0; t < m->n_tiles; t++) {
        int32_t d = m->tiles[t].decl, a;
        if (d < 0 || d >= m->n_stmts || c->num[d] < 0) continue;
        if (c->from[t] < 0) pto__pc_cover(c, t, c->num[d], c->num[d]);
        if (m->tiles[t].nbuf < 2) continue;
        for (a = pto__pc_parent(m, d); a >= 0 && m->stmts[a].kind != PTO_ST_FOR; a = pto__pc_parent(m, a)) {}
        if (a >= 0) pto__pc_cover(c, t, c->num[a], c->last[a]);
    }
}

/* Bytes at the top of (kernel, space) held by cube/vector pipe consumer
   buffers: C2V pipes land in vec, V2C in mat, each 32-byte rounded. A slot
   holds what the core pops: half the cube tile on an AIV of a split pipe. */
static int64_t pto__pc_pipe_room(const pto_module *m, int32_t k, int space)
{
    int64_t r = 0;
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *p = &m->cvpipes[i];
        int here = (space == PTO_VEC && (p->dir & 1)) || (space == PTO_MAT && (p->dir & 2));
        int64_t slot = space == PTO_VEC && p->split != PTO_SPLIT_NONE ? p->slot_size / 2 : p->slot_size;
        if (p->kernel == k && here) r += ((int64_t)p->local_slot_num * slot + 31) / 32 * 32;
    }
    return r;
}

static int64_t pto__pc_bytes(const pto_tile *t)
{
    return (int64_t)t->rows * t->cols * pto_dtype_size((pto_dtype)t->dtype);
}

static void pto__pc_lines(const pto__pc *c, int32_t t, int *a, int *b)
{
    int32_t p;
    *a = *b = 0;
    for (p = c->from[t]; p >= 0 && p <= c->to[t]; p++) {
        int line = (int)c->m->stmts[c->stmt_of[p]].loc.line;
        if (!*a || line < *a) *a = line;
        if (line > *b) *b = line;
    }
}

/* The pipe whose tpop fills tile t, or -1. */
static int32_t pto__pc_popped_from(const pto_module *m, int32_t t)
{
    int32_t s;
    if (m->n_cvpipes == 0) return -1;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *x = &m->stmts[s];
        if (x->kind == PTO_ST_OP && x->op == PTO_OP_TPOP && x->nargs == 2 && x->block >= 0 &&
            m->operands[x->arg0].kind == PTO_O_TILE && m->operands[x->arg0].ref == t &&
            m->operands[x->arg0 + 1].kind == PTO_O_CVPIPE)
            return m->operands[x->arg0 + 1].ref;
    }
    return -1;
}

/* One tile alone: planned, aligned, inside, slots in order. A tile that a
   tpop fills sits at its pipe's reserved base instead (the slots above the
   usable bytes, which no other tile reaches). */
static pto_status pto__pc_tile(pto_ctx *ctx, const pto_module *m, int32_t t)
{
    const pto_tile *tl = &m->tiles[t];
    const char *name = pto_str(ctx, tl->name), *sp = pto_space_name((pto_space)tl->space);
    int64_t bytes = pto__pc_bytes(tl), room = pto__pc_pipe_room(m, tl->kernel, tl->space);
    int64_t limit = pto_space_capacity(m->arch, (pto_space)tl->space) - room;
    pto_status st = PTO_OK;
    int32_t q = pto__pc_popped_from(m, t);
    int k;
    if (!tl->planned) return pto_error(ctx, tl->loc, "tile '%s' (%s) is not planned", name, sp);
    if (q >= 0) {
        int64_t base = pto_plan_pipe_base(m, q, (pto_space)tl->space);
        if (base < 0 || tl->offset[0] != base || tl->nbuf != 1)
            return pto_error(ctx, tl->loc, "tile '%s' is popped from pipe '%s' but is not at its base 0x%llx", name,
                             pto_str(ctx, m->cvpipes[q].name), (long long)base);
        return PTO_OK;
    }
    if (tl->nbuf < 1 || tl->nbuf > PTO_MAX_NBUF)
        return pto_error(ctx, tl->loc, "tile '%s' has %d slots", name, (int)tl->nbuf);
    for (k = 0; k < tl->nbuf; k++) {
        int64_t o = tl->offset[k];
        if (o % 32 != 0)
            st = pto_error(ctx, tl->loc, "tile '%s' slot %d at 0x%llx is not 32-byte aligned", name, k, (long long)o);
        if (o < 0 || o + bytes > limit)
            st = pto_error(ctx, tl->loc, "tile '%s' slot %d [0x%llx, 0x%llx) is outside %s (%lld usable bytes)", name,
                           k, (long long)o, (long long)(o + bytes), sp, (long long)limit);
        if (k >= 1 && (tl->offset[k] - tl->offset[k - 1] < bytes ||
                       tl->offset[k] - tl->offset[k - 1] != tl->offset[1] - tl->offset[0]))
            st = pto_error(ctx, tl->loc, "slots of tile '%s' are not in slot order at one stride (slot %d at 0x%llx)",
                           name, k, (long long)o);
    }
    return st;
}

static int pto__pc_same_memory(const pto_tile *a, const pto_tile *b)
{
    return a->kernel == b->kernel && a->core == b->core && a->space == b->space;
}

/* Two tiles: if both can be live at one point, no slot may share a byte. */
static pto_status pto__pc_pair(pto_ctx *ctx, const pto__pc *c, int32_t i, int32_t j)
{
    const pto_module *m = c->m;
    const pto_tile *a = &m->tiles[i], *b = &m->tiles[j];
    int64_t ba = pto__pc_bytes(a), bb = pto__pc_bytes(b);
    int ka, kb, la0, la1, lb0, lb1;
    if (c->from[i] < 0 || c->from[j] < 0 || c->to[i] < c->from[j] || c->to[j] < c->from[i]) return PTO_OK;
    for (ka = 0; ka < a->nbuf; ka++)
        for (kb = 0; kb < b->nbuf; kb++) {
            int64_t lo = a->offset[ka] > b->offset[kb] ? a->offset[ka] : b->offset[kb];
            int64_t hi = a->offset[ka] + ba < b->offset[kb] + bb ? a->offset[ka] + ba : b->offset[kb] + bb;
            if (lo >= hi) continue;
            pto__pc_lines(c, i, &la0, &la1);
            pto__pc_lines(c, j, &lb0, &lb1);
            return pto_error(ctx, b->loc,
                             "tiles '%s' and '%s' overlap at %s bytes [0x%llx, 0x%llx) while both live "
                             "(lines %d-%d and %d-%d)",
                             pto_str(ctx, a->name), pto_str(ctx, b->name), pto_space_name((pto_space)a->space),
                             (long long)lo, (long long)hi, la0, la1, lb0, lb1);
        }
    return PTO_OK;
}

static pto_status pto__pc_all(pto_ctx *ctx, pto__pc *c)
{
    const pto_module *m = c->m;
    pto_status st = PTO_OK;
    int32_t i, j;
    char *ok = (char *)pto_alloc(ctx, (size_t)m->n_tiles + 1);
    if (!ok) { pto__oom(ctx); return PTO_ERR_INTERNAL; }
    for (i = 0; i < m->n_tiles; i++) {
        const pto_tile *t = &m->tiles[i];
        ok[i] = 0;
        if (t->space == PTO_GM || t->space >= PTO_NSPACE) continue;
        if (pto__pc_tile(ctx, m, i) != PTO_OK) st = PTO_ERR_USER;
        ok[i] = t->planned && t->nbuf >= 1 && t->nbuf <= PTO_MAX_NBUF;
    }
    for (i = 0; i < m->n_tiles; i++)
        for (j = i + 1; ok[i] && j < m->n_tiles; j++)
            if (ok[j] && pto__pc_same_memory(&m->tiles[i], &m->tiles[j]) && pto__pc_pair(ctx, c, i, j) != PTO_OK)
                st = PTO_ERR_USER;
    pto_free(ctx, ok);
    return st;
}

PTODEF pto_status pto_plan_check(pto_ctx *ctx, const pto_module *m)
{
    pto__pc c;
    int32_t *stack, i;
    size_t ns = (size_t)m->n_stmts + 1, nt = (size_t)m->n_tiles + 1;
    pto_status st = PTO_ERR_INTERNAL;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.num = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    c.last = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    c.stmt_of = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    stack = (int32_t *)pto_alloc(ctx, ns * sizeof(int32_t));
    c.from = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    c.to = (int32_t *)pto_alloc(ctx, nt * sizeof(int32_t));
    if (c.num && c.last && c.stmt_of && stack && c.from && c.to) {
        for (i = 0; i < m->n_stmts; i++) c.num[i] = c.last[i] = -1;
        for (i = 0; i < m->n_tiles; i++) c.from[i] = c.to[i] = -1;
        pto__pc_walk(&c, stack);
        pto__pc_ranges(&c);
        st = pto__pc_all(ctx, &c);
    } else {
        pto__oom(ctx);
    }
    pto_free(ctx, c.num);
    pto_free(ctx, c.last);
    pto_free(ctx, c.stmt_of);
    pto_free(ctx, stack);
    pto_free(ctx, c.from);
    pto_free(ctx, c.to);
    return st;
}
/* ---- End file: src/plancheck.c ---- */

/* ---- Begin file: src/sync.c ---- */
/* sync.c - the sync inserter: orders every dependency inside a core.

   Needs: a verified module (stamped: pto_module.verified, refused with an
   error otherwise; its relinking clears the stamp and it sets it again on
   PTO_OK) whose local tiles are planned (planned = 1 and
   offset[k] for every slot k). Guarantees, for every core program (a
   vector or cube kernel body, or one section of a mix kernel):
   - every cross-pipe RAW / WAR / WAW dependency is ordered by a chain of
     set_flag / wait_flag pairs (hardware.md section 4);
   - dependent instructions on the same V or M pipe are separated by a
     pipe_barrier; the in-order queues (MTE1/2/3, FIX, S) get nothing;
   - no event id is set twice, waited while unset, or left set at the end;
   - at most ids_per_pair (8) ids per ordered pipe pair; M -> FIX uses only
     ids 0..2 (that pair deadlocked with ids 3..7 on one device, s4);
   - deterministic: the same module gives the same statements;
   - time linear in the kernel (one analysis to insert; one more to check).
   Inserted statements are ordinary op statements (origin PTO_BY_SYNC) whose
   note names the dependency that justified them.

   1. Access records. Each tile or GM operand of an op that reads or writes
      is an access; an xN tile gives one record per slot (slot k of the
      tile's loop iteration n is n mod N). Two accesses conflict when one
      writes and their byte ranges in one space overlap (ends rounded up to
      the 32-byte granule), whatever tiles they name: tiles that share bytes
      after reuse conflict too. GM windows of one tensor conflict unless
      their row or column ranges are provably disjoint (a linear difference
      of loop-invariant terms that is a constant). Tensors that can never be
      part of a dependency (only read, or only on one in-order pipe) get no
      records.

   2. The analysis is an abstract interpretation of one core's program. Its
      state holds the live records (the latest instance of an operand's
      slot), each with the set of pipes it is known to happen before, and
      the event ids that are set, each with the records its set captured.
      A set_flag on p captures every record of pipe p and every record
      known to happen before p; the wait gives them pipe q. This is the
      happens-before closure over pipes, so a chain of existing flags
      (load -> compute -> store) covers the dependency it implies. Paths
      merge by intersection (a dependency is covered after an if only when
      both branches cover it); a loop is analysed once per phase (iteration
      index mod the lcm of its tiles' N and its rotating ids), then again
      from its heads joined with the back edges until they stop changing,
      and it may exit after any number of iterations, zero included. A
      loop of T literal iterations, 1 <= T <= its period, is analysed
      instead as its T iterations in order (pto__sy_unrolled): no slot or
      rotating id comes round inside it, so the carried pairs the fixpoint
      would add for it could never order anything. A new
      access supersedes the live records of its pipe whose bytes it covers
      when it writes or both read (pto__sy_touch), and between top-level
      statements a record that a later one supersedes leaves
      (pto__sy_collect: what a loop's zero-trip path keeps alive), so the
      state is the size of what is in flight (18 records on average on
      bench/emit_bench's kernel), kept in a small array scanned per operand.

   3. Insertion happens during that one analysis. At an access with
      uncovered dependencies it orders one (a same-iteration one before a
      loop-carried one, then the latest source) and looks again, until none
      is left. A dependency from A to B inside the same iteration of every
      common loop gets set_flag right after A's ancestor and wait_flag right
      before B's ancestor in their lowest common block, so both run equally
      often. A loop-carried one (B before A in their common loop L) gets the
      loop idiom: prime before L, wait before B's ancestor, set after A's,
      drain after L (balanced for any trip count, zero included); the
      prime and drain move out through the loops around L whose bodies
      touch the dependency's bytes only inside L (pto__sy_anchor): each id
      still alternates set and wait over the whole nest, and L's pipeline
      does not empty at every outer iteration. The drains then move down
      past the next statements of their block whose consumer-pipe accesses
      touch nothing the producer pipe touched there (pto__sy_sink, at most
      one loop): a drain is a wait on an in-order queue, and right after L
      it would hold the next loop's loads until L's last compute ends; the
      colouring moves one back when its pair runs out of ids
      (pto__sy_unsink). When the
      conflicting slots recur only every D iterations, the pair rotates
      M = min(D, N) ids with id = base + ((i - start) / step) % M, built
      from the loop's own start and step, so any start and step is right.
      Same-pipe V or M dependencies get a pipe_barrier instead.
      The new pair's effect is applied where the analysis stands: every
      record and hb bit carries the analysis time it was issued / acquired,
      so the set placed in the past (after A's ancestor, time t) captured
      exactly the live records of its pipe issued by t and those ordered
      before its pipe by t; they now happen before q (pto__sy_apply, also
      on the states kept by the loops and ifs opened since the wait). When
      a loop around the pair has already been through an iteration, its
      heads were computed without the pair and would be too pessimistic, so
      that loop is analysed again from its entry (pto__sy_loop): this is the
      case of every loop-carried pair (its prime becomes part of the entry).
      The carried pairs of one visit share that re-analysis: after the
      first, the visit goes on with an optimistic effect of the pair (see
      pto__sy_defer) to find the others, and the loop is analysed again
      when the visit ends. When every pair deferred so far is a barrier
      (no event id, so no set that a later visit would miss), the loop's
      fixpoint goes on to its next visits first, until a flag pair is
      deferred too, the loop has had one visit more than its period, or it
      converges: the carried flag pair that only the next phase's visit
      finds shares the same re-analysis (softmax-like loops: 9 -> 7 body
      visits). Those visits start from heads partly made before the
      barrier existed, so they could in principle place a pair that the
      exact re-analysis would not need (never miss one: that re-analysis
      still follows); on the repo's kernels, the bench's and 40,000 random
      ones the output is the same as with the re-analysis at once.
      Forward pairs whose wait sits right before that loop, placed during
      its visit, are dropped then and placed again only if still needed: a
      carried pair's prime (through a chain of flags) often orders them.
      There is no trial-removal sweep: test_sync's and the examples'
      necessity tests remove each inserted group and see a race.

   4. Event ids. During insertion every group has private virtual ids;
      afterwards each ordered pipe pair colours its groups' lifetimes
      (set..wait, or prime..drain of a loop) greedily in program order with
      the lowest free ids. When ids run out, a rotating carried group
      first shares the pair of an earlier group of its loop, pipes and
      rotation whose set then moves after its own (pto__sy_share: it keeps
      its buffering; one warning per shared pair); else its rotation degrades
      N -> 2 -> 1 (a warning); then a forward group's set_flag moves later
      in its block, before its wait, to where an id is free (the wait does
      not move: nothing is lost, no warning); then a one-id group shares the
      pair of an earlier group of its pipes whose set moves after its own
      (pto__sy_share, a warning); and only then the group becomes a PIPE_ALL
      barrier (which orders at least as much; a warning naming the tiles and
      pipes). The notes are written between the analysis and the colouring,
      all at once: one exact reservation of the string pool.

   Memory: a placed statement is written straight into the module (wait
   shares its set's operands, drain its prime's, barriers their pipe's; a
   loop's rotation expression is shared by its groups); records are 20
   bytes, counted before they are made; the module's arrays get one
   reservation from per-access ratios. 100k instructions: about 90 MB.

   5. Check (pto_sync_desc.check, on in ptoc and the tests). The analysis
      runs once more with the hardware ids: any unordered dependency or flag
      misuse now is an internal error. It re-proves what insertion and the
      colouring guarantee by construction, so it is a self-check, like
      pto_plan_check, not part of producing the result. */

#define PTO__SY_ALLBITS 0x7f        /* the queues S..FIX; ALL is not a queue */
#define PTO__SY_VBASE (1 << 20)     /* virtual ids of insertion rounds */
#define PTO__SY_REAL 512            /* 8 src x 8 dst x 8 ids */
#define PTO__SY_GRAN 32             /* conflicts are decided per 32-byte granule */
#define PTO__SY_MAXROT 8
#define PTO__SY_NFL 64              /* event ids set at once (one bit each in pto__sy_e.cap) */
#define PTO__SY_MAXPASS 8           /* loop fixpoint rounds before giving up */

enum { PTO__SY_RD = 1, PTO__SY_WR = 2 };
enum { PTO__SY_FWD, PTO__SY_LOOP, PTO__SY_BAR, PTO__SY_DEAD };
enum { PTO__SY_PRIME, PTO__SY_WAIT, PTO__SY_SET, PTO__SY_DRAIN, PTO__SY_BARRIER };
enum { PTO__SY_FIND, PTO__SY_CHECK };

typedef struct pto__sy_rec {   /* 20 bytes: a long kernel has hundreds of thousands */
    int32_t lo, hi;             /* local: byte range, end rounded to the granule (< 2 GB: planned) */
    int32_t stmt, opnd;
    uint8_t slot, pipe, rw, space;
} pto__sy_rec;

typedef struct pto__sy_grp {
    uint8_t kind, src, dst;
    int32_t nids;               /* rotation M (1 = a single id) */
    int32_t loop;               /* LOOP: the FOR statement */
    int32_t anchor;             /* LOOP: the statement its primes precede and drains follow:
                                   loop, or a loop around it (pto__sy_anchor) */
    int32_t dafter;             /* LOOP: the statement its drains follow: anchor, or a later
                                   one of its block (pto__sy_sink) */
    int32_t base;               /* hardware id base; -1 = none yet / fallback */
    int32_t arec, bstmt, bopnd; /* the dependency that made it */
    int32_t note;               /* dependency text (string pool, pto__sy_note) */
    int32_t pb;                 /* forward: the statement its wait precedes */
    int32_t pnote, dnote;       /* "prime: " / "drain: " + note, once made */
    int32_t e0, ne;             /* its ents: ents[e0 .. e0 + ne) */
    int32_t brec;               /* the dependency's second record (its note) */
    uint8_t carried;            /* ... is loop-carried */
} pto__sy_grp;

typedef struct pto__sy_ent {
    int32_t stmt;               /* -1 once removed */
    int32_t grp;
    int32_t ebase, emod;        /* exprs: the INT id base (+k), the ADD base + rotation (or -1) */
    int32_t k;                  /* prime/drain: which id of the rotation */
    uint8_t role;
} pto__sy_ent;

/* One live access record in a state: the latest instance of an operand's
   slot, when it was issued, which pipes it is known to happen before (and
   since when), and which pending sets captured it. */
typedef struct pto__sy_e {
    int64_t lo, hi;             /* the record's byte range, pipe, space and   */
    int32_t rid;
    uint8_t pipe, space, rw;    /* access, copied here: every scan reads them */
    uint8_t bits;
    uint32_t ts;
    uint32_t hts[7];
    uint64_t cap;
} pto__sy_e;

typedef struct pto__sy_st {
    int reached;
    int32_t n, cap_e;
    pto__sy_e *e;               /* [n] live records, in no particular order */
    uint64_t fused;             /* event-id slots in use */
    int32_t fkey[PTO__SY_NFL];
    uint8_t fval[PTO__SY_NFL];  /* 1 set, 2 set on some paths */
} pto__sy_st;

/* An open loop or if around the statement being analysed: the states it
   keeps (loop heads and entry, the other branch) that a pair placed in
   place may have to update. */
typedef struct pto__sy_lg {    /* a change made to a loop's entry state */
    int32_t grp, stmt;          /* stmt >= 0: a prime to analyse; -1 pto__sy_apply;
                                   -2 pto__sy_apply_carried */
    uint8_t p, q;
    uint32_t t, w;
} pto__sy_lg;

typedef struct pto__sy_fr {
    int32_t stmt;
    int loop, fresh;            /* fresh: first round, first iteration */
    uint32_t vstart;            /* loop: analysis time its current body visit began */
    pto__sy_st **sv;
    int32_t nsv;
    int32_t g0;                 /* loop: groups before this visit */
    pto__sy_lg *lg;             /* loop: changes to its entry, in order */
    int32_t nlg, cap_lg;
} pto__sy_fr;

typedef struct pto__sy_idc {   /* a sync statement's event id, decoded once per analysis */
    int64_t base;
    int32_t loop;
    uint8_t mod;                /* 1..PTO__SY_MAXROT */
    uint8_t p, q;               /* its pipes */
    uint8_t ok;                 /* 0 not yet, 1 decoded, 2 not analysable */
} pto__sy_idc;

typedef struct pto__sy_seen_e {
    int32_t rec, next;
} pto__sy_seen_e;

typedef struct pto__sy {
    pto_ctx *ctx;
    pto_module *m;
    int32_t kernel;
    int ids_per_pair;
    int check;                  /* desc->check: run the CHECK analysis */
    pto_sync_stats stats;
    pto__sy_rec *recs;
    int32_t n_recs, cap_recs;
    int32_t *rec_of;            /* per operand: first record, or -1 */
    uint8_t acc_pipes[PTO_NSPACE], wr_pipes[PTO_NSPACE];  /* pipes that access / write a space */
    uint8_t need[PTO_NSPACE * 32];  /* pto__sy_done */
    int32_t *op_loop;           /* per operand: the FOR that rotates its tile's slots, or -1 */
    uint8_t *op_nbuf;           /* and the tile's N */
    int32_t *lab, *lab_len, n_lab;  /* pto__sy_notes, per statement: its label (pto__sy_label_len) */
    int32_t base_file;          /* pto__sy_label: the file whose base name is */
    const char *base_name;      /* its base name (NULL = none yet) */
    size_t base_len;
    uint32_t *mark_at, stamp;   /* per record: pto__sy_join's index of dst, valid */
    int32_t *mark_k;            /* when mark_at[r] == stamp */
    int32_t *tile_loop;         /* per tile: the FOR that rotates its slots, or -1 */
    uint8_t *inert;             /* per param: its accesses can never be a dependency */
    int32_t *period, *phase, *pos;  /* per statement */
    int32_t s0;                 /* statements from s0 on are this kernel's placements */
    int32_t *dep, n_dep;        /* per statement numbered by pto__sy_tables: its depth, or -1 */
    uint32_t *tstart, *tend;    /* per statement of the original kernel: its latest visit */
    pto__sy_idc *idc;           /* per placed statement s: idc[s - s0] (grows with them) */
    int32_t n_idc, cap_idc;     /* idc[0 .. n_idc) are initialised */
    pto__sy_idc *uidc;          /* per statement before s0, made when a user's flag is met */
    int32_t n_tt;
    uint32_t now;               /* analysis time */
    pto__sy_grp *grps;
    int32_t n_grps, cap_grps;
    pto__sy_ent *ents;
    int32_t n_ents, cap_ents;
    int32_t bar_arg[PTO_NPIPE]; /* per pipe: a barrier's operand + 1 (0 = none yet) */
    int32_t iter_loop[16], iter_e[16];  /* pto__sy_rotexpr: a loop's iteration index expr + 1 */
    int32_t *seen_head;         /* per operand: its dependencies placed (a list in seen) */
    int32_t cap_seen_head;
    pto__sy_seen_e *seen;       /* (record, next); rec = -1 once the group is dropped */
    int32_t n_seen, cap_seen;
    int32_t nkeys;
    int32_t *progs, nprogs, cap_progs;     /* core programs: their blocks */
    pto__sy_st **freel;
    int32_t nfree, capfree;
    pto__sy_fr *fr;
    int32_t nfr, cap_fr;
    uint8_t *drop;
    int32_t cap_drop;
    int32_t restart, restart_grp;          /* loop to analyse again, and the group that asked */
    int32_t pend;                          /* loop to analyse again once its body visit ends */
    int32_t *pendg, npendg, cap_pendg;     /* the carried groups that asked for it */
    int mode, stop;
    pto_status status;
    /* the dependency found at the current statement */
    int found, h_fwd;
    int32_t h_rec, h_bstmt, h_bopnd, h_brec, h_apos;
    int noted;                  /* pto__sy_notes has made the notes */
    uint8_t oplen[PTO_NOP];     /* strlen(pto_opinfo_get(op)->name), 0 = not yet */
    uint8_t splen[PTO_NSPACE];  /* strlen(pto_space_name(space)) */
    int32_t iter_mod[16][PTO__SY_MAXROT + 1];  /* pto__sy_rotexpr: its rotation by M + 1 */
    int user_flags;             /* the kernel has set/wait statements of its own (pto__sy_reserved) */
    pto_stmt stmt_tpl;          /* pto__sy_emit: a placed statement before its fields */
    size_t nacc;                /* statements with records (accesses) */
    pto_operand opnd_tpl;       /* pto__sy_operands: an operand before its fields */
    int32_t n_pos;                         /* pos[] covers statements [0, n_pos) (pto__sy_assign) */
    int32_t *shr, n_shr, cap_shr;          /* pto__sy_share: (group, the group whose pair it shares) */
} pto__sy;

/* ---- small helpers ------------------------------------------------------- */

static int pto__sy_inorder(int p) { return p != PTO_PIPE_V && p != PTO_PIPE_M; }
static int pto__sy_lowbit(unsigned v)
{
    int i = 0;
    while (v && !(v & 1u)) { v >>= 1; i++; }
    return i;
}
static int pto__sy_issync(int op)
{
    return op == PTO_OP_SET_FLAG || op == PTO_OP_WAIT_FLAG || op == PTO_OP_PIPE_BARRIER;
}
static int64_t pto__sy_gcd(int64_t a, int64_t b) { while (b) { int64_t t = a % b; a = b; b = t; } return a; }
static int64_t pto__sy_lcm(int64_t a, int64_t b) { return a / pto__sy_gcd(a, b) * b; }

/* (A pointer, not a pto_loc by value: see pto__ps_tloc on tcc.) */
static const pto_loc *pto__sy_noloc(void)
{
    static const pto_loc none = {0, 0, 0};
    return &none;
}

static void pto__sy_fail(pto__sy *sy, pto_status st)
{
    if (sy->status == PTO_OK) sy->status = st;
    sy->stop = 1;
}

static void *pto__sy_zalloc(pto__sy *sy, size_t n)
{
    void *p = pto_alloc(sy->ctx, n);
    if (!p) {
        pto_error(sy->ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return NULL;
    }
    memset(p, 0, n);
    return p;
}

/* Raises an array's capacity to `want` elements of `esz` bytes, in one
   step instead of doublings that copy it. Best effort: a failed reservation is not an error (the array
   still grows on demand). */
static void pto__sy_prealloc(pto__sy *sy, void **p, size_t esz, int32_t *cap, size_t want)
{
    void *q;
    if (want <= (size_t)*cap || want > (size_t)INT32_MAX / 2 || want > (size_t)-1 / esz) return;
    q = pto__realloc_quiet(sy->ctx, *p, want * esz);
    if (!q) return;
    *p = q;
    *cap = (int32_t)want;
}

/* The parent statement (FOR/IF/SECTION) of a statement, or -1. */
static int32_t pto__sy_up(const pto_module *m, int32_t s)
{
    int32_t b = m->stmts[s].block;
    return b < 0 ? -1 : m->blocks[b].owner;
}

static int pto__sy_depth(const pto_module *m, int32_t s)
{
    int d = 0;
    while ((s = pto__sy_up(m, s)) >= 0) d++;
    return d;
}

/* The ancestors-or-selves of a and b that share a block (depths from the
   table pto__sy_tables numbered, where it has them: placing syncs never
   moves a statement that was there then). */
static void pto__sy_lca(const pto__sy *sy, int32_t a, int32_t b, int32_t *pa, int32_t *pb)
{
    const pto_module *m = sy->m;
    int da = a < sy->n_dep && sy->dep[a] >= 0 ? sy->dep[a] : pto__sy_depth(m, a);
    int db = b < sy->n_dep && sy->dep[b] >= 0 ? sy->dep[b] : pto__sy_depth(m, b);
    for (; da > db; da--) a = pto__sy_up(m, a);
    for (; db > da; db--) b = pto__sy_up(m, b);
    while (m->stmts[a].block != m->stmts[b].block) {
        a = pto__sy_up(m, a);
        b = pto__sy_up(m, b);
    }
    *pa = a;
    *pb = b;
}

/* The ancestor-or-self of s that sits in block blk. */
static int32_t pto__sy_in_block(const pto_module *m, int32_t s, int32_t blk)
{
    while (s >= 0 && m->stmts[s].block != blk) s = pto__sy_up(m, s);
    return s;
}

static int pto__sy_is_int(const pto_module *m, int32_t e, int64_t v)
{
    return e >= 0 && m->exprs[e].kind == PTO_E_INT && m->exprs[e].value == v;
}

/* e is ((i - start) / step) or (i - start) for a unit step, where i is the
   variable of a loop with that start and step: sets *loop. */
static int pto__sy_iter_of(const pto_module *m, int32_t e, int32_t *loop)
{
    const pto_expr *x = &m->exprs[e];
    int32_t step = -1, L, v;
    if (x->kind == PTO_E_DIV) {
        step = x->b;
        x = &m->exprs[x->a];
    }
    /* i - start, or a bare i when the loop starts at 0 (hand-written ids) */
    if (x->kind == PTO_E_VAR) v = x->a;
    else if (x->kind == PTO_E_SUB && m->exprs[x->a].kind == PTO_E_VAR) v = m->exprs[x->a].a;
    else return 0;
    if (v < 0 || v >= m->n_vars || m->vars[v].kind != PTO_V_LOOP) return 0;
    L = m->vars[v].def;
    if (L < 0 || m->stmts[L].kind != PTO_ST_FOR) return 0;
    if (x->kind == PTO_E_VAR ? !pto__sy_is_int(m, m->stmts[L].e[0], 0) : !pto__expr_same(m, x->b, m->stmts[L].e[0]))
        return 0;
    if (m->stmts[L].e[2] < 0 ? !(step < 0 || pto__sy_is_int(m, step, 1))
                             : !(pto__expr_same(m, step, m->stmts[L].e[2])
                                 || (step < 0 && pto__sy_is_int(m, m->stmts[L].e[2], 1))))
        return 0;
    *loop = L;
    return 1;
}

/* The event-id forms the analysis understands: INT, or
   INT + ((i - start) / step) % INT (what this pass writes), or the shorter
   ones people write: ((i - start) / step) % INT, and i / step or i in
   place of the iteration index when the loop starts at 0 (with step 1 for
   a bare i). */
static int pto__sy_idform(const pto_module *m, int32_t e, int64_t *base, int64_t *mod, int32_t *loop)
{
    const pto_expr *x, *md;
    *base = 0;
    *mod = 1;
    *loop = -1;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    if (x->kind == PTO_E_INT) { *base = x->value; return 1; }
    if (x->kind == PTO_E_MOD) md = x;
    else if (x->kind == PTO_E_ADD && m->exprs[x->a].kind == PTO_E_INT) md = &m->exprs[x->b];
    else return 0;
    if (md->kind != PTO_E_MOD || m->exprs[md->b].kind != PTO_E_INT) return 0;
    *base = md == x ? 0 : m->exprs[x->a].value;
    *mod = m->exprs[md->b].value;
    if (*mod < 1 || *mod > PTO__SY_MAXROT) return 0;
    return pto__sy_iter_of(m, md->a, loop);
}

/* ---- GM windows ------------------------------------------------------------
   A linear form c + sum coef * leaf over loop-invariant leaves (dims, scalars,
   top-level lets, builtins). Anything else is unknown and makes two windows
   "may overlap". Loop variables are never leaves: two instances of one
   access in different iterations see different values. */

typedef struct pto__sy_lin {
    int64_t c;
    int n;
    int32_t leaf[8];            /* var id, or -1 - builtin kind */
    int64_t coef[8];
} pto__sy_lin;

static int pto__sy_lin_add(pto__sy_lin *l, int32_t leaf, int64_t coef)
{
    int i;
    for (i = 0; i < l->n; i++)
        if (l->leaf[i] == leaf) { l->coef[i] += coef; return 1; }
    if (l->n == 8) return 0;
    l->leaf[l->n] = leaf;
    l->coef[l->n++] = coef;
    return 1;
}

static int pto__sy_linear(const pto_module *m, int32_t e, int64_t k, pto__sy_lin *l)
{
    const pto_expr *x;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: l->c += k * x->value; return 1;
    case PTO_E_ADD: return pto__sy_linear(m, x->a, k, l) && pto__sy_linear(m, x->b, k, l);
    case PTO_E_SUB: return pto__sy_linear(m, x->a, k, l) && pto__sy_linear(m, x->b, -k, l);
    case PTO_E_NEG: return pto__sy_linear(m, x->a, -k, l);
    case PTO_E_MUL:
        if (m->exprs[x->a].kind == PTO_E_INT) return pto__sy_linear(m, x->b, k * m->exprs[x->a].value, l);
        if (m->exprs[x->b].kind == PTO_E_INT) return pto__sy_linear(m, x->a, k * m->exprs[x->b].value, l);
        return 0;
    case PTO_E_VAR: {
        const pto_var *v;
        if (x->a < 0 || x->a >= m->n_vars) return 0;
        v = &m->vars[x->a];
        if (v->kind == PTO_V_LOOP) return 0;
        if (v->kind == PTO_V_LET && (v->def < 0 || pto_stmt_loop(m, v->def) >= 0)) return 0;
        return pto__sy_lin_add(l, x->a, k);
    }
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS:
        return pto__sy_lin_add(l, -1 - (int32_t)x->kind, k);
    default:
        return 0;
    }
}

/* a - b as a constant, if it is one. */
static int pto__sy_const_diff(const pto_module *m, int32_t a, int32_t b, int64_t *d)
{
    pto__sy_lin l;
    int i;
    memset(&l, 0, sizeof l);
    if (a < 0 && b < 0) { *d = 0; return 1; }
    if (a < 0 || b < 0) return 0;
    if (!pto__sy_linear(m, a, 1, &l) || !pto__sy_linear(m, b, -1, &l)) return 0;
    for (i = 0; i < l.n; i++)
        if (l.coef[i] != 0) return 0;
    *d = l.c;
    return 1;
}

/* The tile that gives a GM window its shape: the op's first tile operand. */
static const pto_tile *pto__sy_window_tile(const pto_module *m, int32_t stmt)
{
    int i;
    for (i = 0; i < m->stmts[stmt].nargs; i++) {
        const pto_operand *o = pto_stmt_arg(m, stmt, i);
        if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles) return &m->tiles[o->ref];
    }
    return NULL;
}

static int pto__sy_gm_overlap(const pto_module *m, const pto__sy_rec *a, const pto__sy_rec *b)
{
    const pto_operand *oa = &m->operands[a->opnd], *ob = &m->operands[b->opnd];
    const pto_tile *ta = pto__sy_window_tile(m, a->stmt), *tb = pto__sy_window_tile(m, b->stmt);
    int64_t d;
    if (oa->ref != ob->ref) return 0;
    if (!ta || !tb) return 1;
    if (pto__sy_const_diff(m, oa->e[2], ob->e[2], &d) && d != 0) return 0;
    if (pto__sy_const_diff(m, oa->e[0], ob->e[0], &d) && (d >= tb->rows || -d >= ta->rows)) return 0;
    if (pto__sy_const_diff(m, oa->e[1], ob->e[1], &d) && (d >= tb->cols || -d >= ta->cols)) return 0;
    return 1;
}

static int pto__sy_overlap(const pto__sy *sy, const pto__sy_rec *a, const pto__sy_rec *b)
{
    if (a->space != b->space) return 0;
    if (a->space == PTO_GM) return pto__sy_gm_overlap(sy->m, a, b);
    return a->lo < b->hi && b->lo < a->hi;
}

static int pto__sy_conflict(const pto__sy *sy, int32_t ra, int32_t rb)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    if (!((a->rw | b->rw) & PTO__SY_WR)) return 0;
    return pto__sy_overlap(sy, a, b);
}

/* ---- records ---------------------------------------------------------------- */

static inline int pto__sy_grow(pto__sy *sy, void **p, size_t esz, int32_t *cap, int32_t need);

/* How many records (slots) an access to tile t has. */
static int32_t pto__sy_slots(const pto_tile *t)
{
    return t->nbuf < 1 ? 1 : t->nbuf > PTO_MAX_NBUF ? PTO_MAX_NBUF : t->nbuf;
}

/* The records of op statement s, into room reserved by
   pto__sy_build_records (grown here only if that count was short). */
static pto_status pto__sy_add_records(pto__sy *sy, int32_t s)
{
    pto_module *m = sy->m;
    const pto_opinfo *oi = pto_opinfo_get((pto_op)m->stmts[s].op);
    uint8_t pipe = (uint8_t)pto_stmt_pipe(m, s);
    int i, nargs = m->stmts[s].nargs < 4 ? m->stmts[s].nargs : 4;
    for (i = 0; i < nargs; i++) {
        int32_t o = m->stmts[s].arg0 + i, k, n = 1;
        const pto_operand *op = &m->operands[o];
        const pto_tile *t = NULL;
        uint8_t rw = (uint8_t)(((oi->arg[i] & PTO_A_READ) ? PTO__SY_RD : 0) | ((oi->arg[i] & PTO_A_WRITE) ? PTO__SY_WR : 0));
        int64_t bytes = 0;
        pto__sy_rec *rc;
        if (!rw || (op->kind != PTO_O_TILE && op->kind != PTO_O_GM)) continue;
        if (op->kind == PTO_O_GM && op->ref >= 0 && op->ref < m->n_params && sy->inert[op->ref]) continue;
        if (op->kind == PTO_O_TILE) {
            if (op->ref < 0 || op->ref >= m->n_tiles) continue;
            t = &m->tiles[op->ref];
            if (!t->planned)
                return pto_error(sy->ctx, op->loc, "sync: tile '%s' is not planned (run the planner first)",
                                 pto_str(sy->ctx, t->name));
            n = pto__sy_slots(t);
            bytes = pto_tile_bytes(t);
            if (t->nbuf > 1 && sy->tile_loop[op->ref] >= 0) {   /* its slot rotates with that loop */
                sy->op_loop[o] = sy->tile_loop[op->ref];
                sy->op_nbuf[o] = (uint8_t)t->nbuf;
            }
        }
        if (!pto__sy_grow(sy, (void **)&sy->recs, sizeof *sy->recs, &sy->cap_recs, sy->n_recs + n)) return PTO_ERR_INTERNAL;
        sy->rec_of[o] = sy->n_recs;
        rc = &sy->recs[sy->n_recs];
        sy->n_recs += n;
        for (k = 0; k < n; k++, rc++) {
            memset(rc, 0, sizeof *rc);   /* padding too */
            rc->stmt = s;
            rc->opnd = o;
            rc->slot = (uint8_t)k;
            rc->pipe = pipe;
            rc->rw = rw;
            rc->space = t ? t->space : (uint8_t)PTO_GM;
            rc->lo = t ? (int32_t)t->offset[k] : 0;
            rc->hi = t ? (int32_t)((t->offset[k] + bytes + PTO__SY_GRAN - 1) / PTO__SY_GRAN * PTO__SY_GRAN) : 0;
        }
    }
    return PTO_OK;
}

static int pto__sy_kernel_op(const pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    return m->stmts[s].kind == PTO_ST_OP && m->stmts[s].block >= 0 && m->blocks[m->stmts[s].block].kernel == sy->kernel;
}

static void pto__sy_need_table(pto__sy *sy);

/* One look at the kernel's op statements first: a tensor that this kernel
   only reads, or only accesses from one in-order pipe, can never be part
   of a dependency and its accesses get no records (a long kernel stores
   to its outputs thousands of times, all on MTE3); and the records to
   come are counted, so that their array is sized once. */
static pto_status pto__sy_build_records(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t s, t, i;
    size_t nrec = 16;
    uint16_t *pipes;
    int32_t *gm;
    sy->rec_of = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * (size_t)(m->n_operands + 1));
    sy->op_loop = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * (size_t)(m->n_operands + 1));
    sy->op_nbuf = (uint8_t *)pto_alloc(sy->ctx, (size_t)m->n_operands + 1);
    sy->tile_loop = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_tiles + 1));
    sy->inert = (uint8_t *)pto__sy_zalloc(sy, (size_t)m->n_params + 1);
    pipes = (uint16_t *)pto__sy_zalloc(sy, sizeof(uint16_t) * (size_t)(m->n_params + 1));
    gm = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_params + 1));   /* GM accesses per param */
    if (!sy->rec_of || !sy->op_loop || !sy->op_nbuf || !sy->tile_loop || !sy->inert || !pipes || !gm) {
        pto_free(sy->ctx, pipes);
        pto_free(sy->ctx, gm);
        pto_error(sy->ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
        return PTO_ERR_INTERNAL;
    }
    for (s = 0; s < m->n_operands; s++) sy->rec_of[s] = sy->op_loop[s] = -1;
    for (t = 0; t < m->n_tiles; t++) {
        const pto_tile *tl = &m->tiles[t];
        int k;
        sy->tile_loop[t] = (tl->nbuf > 1 && tl->decl >= 0) ? pto_stmt_loop(m, tl->decl) : -1;
        for (k = 0; tl->planned && k < tl->nbuf && k < PTO_MAX_NBUF; k++)   /* records keep 32-bit ranges */
            if (tl->offset[k] < 0 || pto_tile_bytes(tl) < 0 || tl->offset[k] + pto_tile_bytes(tl) > (int64_t)INT32_MAX - PTO__SY_GRAN)
                return pto_error(sy->ctx, tl->decl >= 0 ? m->stmts[tl->decl].loc : *pto__sy_noloc(),
                                 "sync: tile '%s' lies beyond 2 GB", pto_str(sy->ctx, tl->name));
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_opinfo *oi;
        int nargs;
        if (!pto__sy_kernel_op(sy, s)) continue;
        if (pto__sy_issync(m->stmts[s].op)) {
            sy->user_flags |= m->stmts[s].op != PTO_OP_PIPE_BARRIER;
            continue;
        }
        oi = pto_opinfo_get((pto_op)m->stmts[s].op);
        nargs = m->stmts[s].nargs < 4 ? m->stmts[s].nargs : 4;
        for (i = 0; i < nargs; i++) {
            const pto_operand *op = &m->operands[m->stmts[s].arg0 + i];
            if (!(oi->arg[i] & (PTO_A_READ | PTO_A_WRITE))) continue;
            if (op->kind == PTO_O_TILE && op->ref >= 0 && op->ref < m->n_tiles)
                nrec += (size_t)pto__sy_slots(&m->tiles[op->ref]);
            if (op->kind != PTO_O_GM) continue;
            if (op->ref < 0 || op->ref >= m->n_params) { nrec++; continue; }
            pipes[op->ref] |= (uint16_t)(1u << pto_stmt_pipe(m, s));
            if (oi->arg[i] & PTO_A_WRITE) pipes[op->ref] |= 0x8000;
            gm[op->ref]++;
        }
    }
    for (i = 0; i < m->n_params; i++) {
        unsigned p = pipes[i] & 0x7fffu;
        sy->inert[i] = !(pipes[i] & 0x8000) || ((p & (p - 1)) == 0 && pto__sy_inorder(pto__sy_lowbit(p)));
        if (!sy->inert[i]) nrec += (size_t)gm[i];
    }
    pto_free(sy->ctx, pipes);
    pto_free(sy->ctx, gm);
    pto__sy_prealloc(sy, (void **)&sy->recs, sizeof *sy->recs, &sy->cap_recs, nrec);
    for (s = 0; s < m->n_stmts; s++) {
        pto_status st;
        int32_t n0 = sy->n_recs;
        if (!pto__sy_kernel_op(sy, s) || pto__sy_issync(m->stmts[s].op)) continue;
        st = pto__sy_add_records(sy, s);
        if (st != PTO_OK) return st;
        sy->nacc += sy->n_recs > n0;
    }
    memset(sy->acc_pipes, 0, sizeof sy->acc_pipes);
    memset(sy->wr_pipes, 0, sizeof sy->wr_pipes);
    for (s = 0; s < sy->n_recs; s++) {
        const pto__sy_rec *rc = &sy->recs[s];
        sy->acc_pipes[rc->space] = (uint8_t)(sy->acc_pipes[rc->space] | (1u << rc->pipe));
        if (rc->rw & PTO__SY_WR) sy->wr_pipes[rc->space] = (uint8_t)(sy->wr_pipes[rc->space] | (1u << rc->pipe));
    }
    pto__sy_need_table(sy);
    /* mark_k is read only where mark_at says it was written */
    sy->mark_at = (uint32_t *)pto__sy_zalloc(sy, sizeof(uint32_t) * (size_t)(sy->n_recs + 1));
    sy->mark_k = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * (size_t)(sy->n_recs + 1));
    return sy->mark_at && sy->mark_k ? PTO_OK : PTO_ERR_INTERNAL;
}

/* The record an operand touches now (its tile's slot in the current phase). */
static int32_t pto__sy_rec_now(const pto__sy *sy, int32_t o)
{
    int32_t r = sy->rec_of[o], L;
    if (r < 0) return -1;
    if ((L = sy->op_loop[o]) >= 0) r += sy->phase[L] % sy->op_nbuf[o];
    return r;
}

/* ---- analysis state ---------------------------------------------------------
   A small unordered array of live records (see pto__sy_touch for why it
   stays small) and up to 64 event ids set, each a slot whose bit in a
   record's `cap` says the pending set captured it. Copies happen only at
   loops and ifs. */

static int pto__sy_grow_to(pto__sy *sy, void **p, size_t esz, int32_t *cap, int32_t need)
{
    void *q;
    int32_t ncap;
    ncap = *cap * 2 > need ? *cap * 2 : need + 8;
    q = pto_realloc(sy->ctx, *p, (size_t)ncap * esz);
    if (!q) {
        pto_error(sy->ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return 0;
    }
    *p = q;
    *cap = ncap;
    return 1;
}

/* The test inline, the growth not: most calls have room. */
static inline int pto__sy_grow(pto__sy *sy, void **p, size_t esz, int32_t *cap, int32_t need)
{
    return need <= *cap || pto__sy_grow_to(sy, p, esz, cap, need);
}

static void pto__sy_st_free(pto__sy *sy, pto__sy_st *st)
{
    pto_free(sy->ctx, st->e);
    st->e = NULL;
    st->n = st->cap_e = 0;
}

/* States come from a free list: loops and ifs need a few at every visit. */
static pto__sy_st *pto__sy_st_get(pto__sy *sy)
{
    pto__sy_st *st;
    if (sy->nfree > 0) st = sy->freel[--sy->nfree];
    else {
        st = (pto__sy_st *)pto__sy_zalloc(sy, sizeof *st);
        if (!st) return NULL;
    }
    st->reached = 0;
    st->n = 0;
    st->fused = 0;
    return st;
}

static void pto__sy_st_put(pto__sy *sy, pto__sy_st *st)
{
    if (!st) return;
    if (!pto__sy_grow(sy, (void **)&sy->freel, sizeof(pto__sy_st *), &sy->capfree, sy->nfree + 1)) {
        pto__sy_st_free(sy, st);
        pto_free(sy->ctx, st);
        return;
    }
    sy->freel[sy->nfree++] = st;
}

static int pto__sy_ctz(uint64_t u)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(u);
#else
    int i = 0;
    if (!(u & 0xffffffffu)) { u >>= 32; i += 32; }
    if (!(u & 0xffffu)) { u >>= 16; i += 16; }
    if (!(u & 0xffu)) { u >>= 8; i += 8; }
    while (!(u & 1u)) { u >>= 1; i++; }
    return i;
#endif
}

static void pto__sy_st_copy(pto__sy *sy, pto__sy_st *dst, const pto__sy_st *src)
{
    uint64_t u;
    if (dst == src || !pto__sy_grow(sy, (void **)&dst->e, sizeof(pto__sy_e), &dst->cap_e, src->n)) return;
    dst->reached = src->reached;
    dst->n = src->n;
    if (src->n) memcpy(dst->e, src->e, (size_t)src->n * sizeof(pto__sy_e));
    dst->fused = src->fused;
    for (u = src->fused; u; u &= u - 1) {   /* only the slots in use are ever read */
        int f = pto__sy_ctz(u);
        dst->fkey[f] = src->fkey[f];
        dst->fval[f] = src->fval[f];
    }
}

static pto__sy_st *pto__sy_st_dup(pto__sy *sy, const pto__sy_st *src)
{
    pto__sy_st *st = pto__sy_st_get(sy);
    if (st) pto__sy_st_copy(sy, st, src);
    return st;
}

static int32_t pto__sy_find(const pto__sy_st *st, int32_t rid)
{
    int32_t k;
    for (k = 0; k < st->n; k++)
        if (st->e[k].rid == rid) return k;
    return -1;
}

static int pto__sy_fslot(const pto__sy_st *st, int32_t key)
{
    uint64_t u = st->fused;
    while (u) {
        int i = pto__sy_ctz(u);
        if (st->fkey[i] == key) return i;
        u &= u - 1;
    }
    return -1;
}

static int pto__sy_ffree(const pto__sy_st *st)
{
    return ~st->fused ? pto__sy_ctz(~st->fused) : -1;
}

/* Record entry e now happens before pipe q, since time t (the earliest
   acquisition is kept: a retroactive set asks "before when"). */
static inline void pto__sy_addbit(pto__sy_e *e, int q, uint32_t t)
{
    if (q < 0 || q >= 7) return;
    if (!(e->bits & (1u << q))) {
        e->bits = (uint8_t)(e->bits | (1u << q));
        e->hts[q] = t;
    } else if (e->hts[q] > t) {
        e->hts[q] = t;
    }
}

/* GM window of record b lies inside that of a (same tensor, same start,
   a shape at least as large). */
static int pto__sy_gm_covers(const pto_module *m, const pto__sy_rec *a, const pto__sy_rec *b)
{
    const pto_operand *oa = &m->operands[a->opnd], *ob = &m->operands[b->opnd];
    const pto_tile *ta, *tb;
    int64_t d;
    if (oa->ref != ob->ref) return 0;
    ta = pto__sy_window_tile(m, a->stmt);
    tb = pto__sy_window_tile(m, b->stmt);
    if (!ta || !tb || ta->rows < tb->rows || ta->cols < tb->cols) return 0;
    return pto__sy_const_diff(m, oa->e[0], ob->e[0], &d) && d == 0 && pto__sy_const_diff(m, oa->e[1], ob->e[1], &d)
           && d == 0 && pto__sy_const_diff(m, oa->e[2], ob->e[2], &d) && d == 0;
}

/* A new access a (just issued) supersedes a live record b of its pipe
   whose bytes it covers when it writes or both read: any later access
   that conflicts with b conflicts with a, and whatever orders a (a set or
   barrier on their pipe after a, or a chain starting there) orders b. So
   b can go: the hazard on a is found instead, and ordering it orders b. */
static int pto__sy_dominates(const pto__sy *sy, const pto__sy_rec *a, const pto__sy_e *x)
{
    if (x->pipe != a->pipe || x->space != a->space) return 0;
    if (!(a->rw & PTO__SY_WR) && (x->rw & PTO__SY_WR)) return 0;
    if (a->space != PTO_GM) return a->lo <= x->lo && x->hi <= a->hi;
    return pto__sy_gm_covers(sy->m, a, &sy->recs[x->rid]);
}

/* A local record ordered before every pipe that could conflict with it (a
   writer of its space when it reads, any accessor when it writes; its own
   pipe only when that is V or M) can never be a hazard again: bits only
   grow along a path, and at a join the other path's instance stands. It
   leaves the state when a wait or barrier completes it (pto__sy_keep),
   which keeps loops' states small: most records of earlier loops end up
   ordered before V, MTE2 and MTE3. */
static inline int pto__sy_done(const pto__sy *sy, const pto__sy_e *x)
{
    return (sy->need[(x->space * 4u + x->rw) * 8u + x->pipe] & ~(unsigned)x->bits) == 0;
}

/* pto__sy_done's pipes per (space, rw, pipe); GM never (a bit no entry has). */
static void pto__sy_need_table(pto__sy *sy)
{
    unsigned sp, rw, p, need;
    for (sp = 0; sp < PTO_NSPACE; sp++)
        for (rw = 0; rw < 4; rw++)
            for (p = 0; p < 8; p++) {
                need = (rw & PTO__SY_WR) ? sy->acc_pipes[sp] : sy->wr_pipes[sp];
                if (pto__sy_inorder((int)p) && p < 7) need &= ~(1u << p);
                if (sp == PTO_GM) need = 0x80;
                sy->need[(sp * 4 + rw) * 8 + p] = (uint8_t)need;
            }
}

/* After entry k gained bits: it goes if it is done (the last entry fills
   its place); returns the index to look at next. */
static inline int32_t pto__sy_keep(const pto__sy *sy, pto__sy_st *st, int32_t k)
{
    if (!pto__sy_done(sy, &st->e[k])) return k + 1;
    if (k != --st->n) st->e[k] = st->e[st->n];
    return k;
}

/* A new instance of record r: issued now, happening before nothing yet;
   the records it supersedes leave the state, which keeps the state the
   size of what is in flight, not of the kernel. */
static void pto__sy_touch(pto__sy *sy, pto__sy_st *st, int32_t r)
{
    const pto__sy_rec *a = &sy->recs[r];
    int64_t alo = a->space == PTO_GM ? INT64_MIN : a->lo, ahi = a->space == PTO_GM ? INT64_MAX : a->hi;
    int32_t k;
    pto__sy_e *e;
    for (k = 0; k < st->n;) {   /* unordered: the last entry fills a hole */
        const pto__sy_e *x = &st->e[k];
        /* the range test is pto__sy_dominates' own for local bytes */
        if ((x->lo >= alo && x->hi <= ahi)
            && (x->rid == r
                || (x->pipe == a->pipe && x->space == a->space && ((a->rw & PTO__SY_WR) || !(x->rw & PTO__SY_WR))
                    && (a->space != PTO_GM || pto__sy_dominates(sy, a, x))))) {
            if (k != --st->n) st->e[k] = st->e[st->n];
        } else {
            k++;
        }
    }
    if (st->n >= st->cap_e && !pto__sy_grow(sy, (void **)&st->e, sizeof(pto__sy_e), &st->cap_e, st->n + 1)) return;
    e = &st->e[st->n++];
    e->rid = r;
    e->lo = alo;   /* GM: every range test passes on to the window test */
    e->hi = ahi;
    e->pipe = a->pipe;
    e->space = a->space;
    e->rw = a->rw;
    e->bits = 0;
    e->ts = sy->now;
    e->cap = 0;   /* hts[q] is read only where bit q is set */
}

/* dst = dst joined with src (paths merging); returns whether dst changed
   (timestamps aside: they only ever grow and decide nothing here). A record
   absent on one path was not accessed there (or was superseded), so the
   other path's knowledge stands; on both, it happens before what it does on
   both, is captured by a set only when captured on both, and counts as
   issued and ordered at the later of the two times. An id set on one path
   only, or with different values, is "set on some paths" (2): a set or
   wait on it is misuse. */
static int pto__sy_join(pto__sy *sy, pto__sy_st *dst, const pto__sy_st *src)
{
    int map[PTO__SY_NFL];
    uint64_t both = 0, u, same = 0, moved = 0;   /* src slots mapped to the same / another dst slot */
    int32_t i, k, n0;
    int changed = 0, j;
    if (!src->reached) return 0;
    if (!dst->reached) { pto__sy_st_copy(sy, dst, src); return 1; }
    for (i = 0, u = src->fused; u; i++, u >>= 1) {
        map[i] = -1;
        if (!(u & 1u)) continue;
        j = pto__sy_fslot(dst, src->fkey[i]);
        if (j >= 0) {
            uint8_t v = dst->fval[j] == src->fval[i] ? dst->fval[j] : 2;
            changed |= v != dst->fval[j];
            dst->fval[j] = v;
            map[i] = j;
            if (j == i) same |= (uint64_t)1 << i;
            else moved |= (uint64_t)1 << i;
            if (v == 1) both |= (uint64_t)1 << j;
        } else if ((j = pto__sy_ffree(dst)) >= 0) {
            dst->fused |= (uint64_t)1 << j;
            dst->fkey[j] = src->fkey[i];
            dst->fval[j] = 2;
            changed = 1;
        }
    }
    for (u = dst->fused & ~both; u; u &= u - 1) {
        j = pto__sy_ctz(u);
        if (dst->fval[j] != 2 && pto__sy_fslot(src, dst->fkey[j]) < 0) { dst->fval[j] = 2; changed = 1; }
    }
    n0 = dst->n;
    if (++sy->stamp == 0) {   /* wrapped: clear the marks */
        memset(sy->mark_at, 0, (size_t)sy->n_recs * sizeof(uint32_t));
        sy->stamp = 1;
    }
    for (k = 0; k < n0; k++) {
        sy->mark_at[dst->e[k].rid] = sy->stamp;
        sy->mark_k[dst->e[k].rid] = k;
    }
    for (i = 0; i < src->n; i++) {
        const pto__sy_e *f = &src->e[i];
        uint64_t mc = f->cap & same;
        int q;
        for (u = f->cap & moved; u; u &= u - 1) {
            q = pto__sy_ctz(u);
            mc |= (uint64_t)1 << map[q];
        }
        k = sy->mark_at[f->rid] == sy->stamp ? sy->mark_k[f->rid] : -1;
        if (k < 0) {
            pto__sy_e *e;
            if (!pto__sy_grow(sy, (void **)&dst->e, sizeof(pto__sy_e), &dst->cap_e, dst->n + 1)) return changed;
            e = &dst->e[dst->n++];
            *e = *f;
            e->cap = mc;
            changed = 1;
        } else {
            pto__sy_e *e = &dst->e[k];
            uint8_t nb = (uint8_t)(e->bits & f->bits);
            uint64_t nc = e->cap & mc;
            changed |= nb != e->bits || (nc & both) != (e->cap & both);
            e->bits = nb;
            e->cap = nc;
            if (f->ts > e->ts) e->ts = f->ts;
            for (u = nb; u; u &= u - 1) {
                q = pto__sy_ctz(u);
                if (f->hts[q] > e->hts[q]) e->hts[q] = f->hts[q];
            }
        }
    }
    return changed;
}

/* ---- messages ------------------------------------------------------------------ */

static const char *pto__sy_base(const char *path)
{
    const char *s = path, *p;
    for (p = path; *p; p++)
        if (*p == '/' || *p == '\\') s = p + 1;
    return s;
}

/* Notes are made after the analysis, all at once (pto__sy_notes): their
   lengths are counted first (pto__sy_dep_len), so the string pool grows
   once, then each is written in place at the pool's free end by plain
   copies of known lengths (pto__sy_dep_w), its prime / drain forms right
   after it. A note longer than 599 bytes is cut there: such a note and
   those of messages are built in a pto__sy_txt, whose writes check the
   room. No printf on the way, and strlen only for op and space names. */
#define PTO__SY_NOTEMAX 599
typedef struct pto__sy_txt {
    char d[PTO__SY_NOTEMAX + 1];
    size_t n;
} pto__sy_txt;

static void pto__sy_put(pto__sy_txt *t, const char *s, size_t n)
{
    size_t room = sizeof t->d - 1 - t->n;
    /* two memcpy calls, not one after clamping n: with a literal's constant
       n (PTO__SY_LIT) the first becomes a few moves */
    if (n <= room) {
        memcpy(t->d + t->n, s, n);
        t->n += n;
    } else {
        memcpy(t->d + t->n, s, room);
        t->n += room;
    }
}
#define PTO__SY_LIT(t, lit) pto__sy_put((t), (lit), sizeof(lit) - 1)

/* An interned string's length; 0 for a malformed id from the C API (pto_str's ""). */
static size_t pto__sy_str_len(const pto__sy *sy, int32_t id)
{
    return id < 0 || id >= sy->ctx->n_strs ? 0 : pto__str_len(sy->ctx, id);
}

static void pto__sy_put_str(pto__sy *sy, pto__sy_txt *t, int32_t id)
{
    pto__sy_put(t, pto_str(sy->ctx, id), pto__sy_str_len(sy, id));
}

static void pto__sy_cat(pto__sy_txt *t, const char *s) { pto__sy_put(t, s, strlen(s)); }

/* Digits of v in base 10 or 16, at least `width` (< 24). */
static int pto__sy_ndig(unsigned long long v, unsigned base, int width)
{
    int n = 1;
    if (base == 16) for (v >>= 4; v; v >>= 4) n++;
    else for (v /= 10u; v; v /= 10u) n++;
    return n < width ? (width < 24 ? width : 23) : n;
}

/* v in base 10 or 16 (lower case), at least `width` (< 24) digits at w,
   from the last one; returns the end. */
static char *pto__sy_wnum(char *w, unsigned long long v, unsigned base, int width)
{
    static const char hex[] = "0123456789abcdef";
    int n, i;
    if (base == 16 && width == 4 && v < 0x10000u) {   /* most byte offsets */
        w[0] = hex[v >> 12];
        w[1] = hex[(v >> 8) & 15u];
        w[2] = hex[(v >> 4) & 15u];
        w[3] = hex[v & 15u];
        return w + 4;
    }
    if (base == 10 && width <= 1 && v < 1000000u) {   /* line numbers: two digits at a time */
        static const char d2[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";
        uint32_t x = (uint32_t)v;
        n = x < 10u ? 1 : x < 100u ? 2 : x < 1000u ? 3 : x < 10000u ? 4 : x < 100000u ? 5 : 6;
        for (i = n; x >= 100u; x /= 100u, i -= 2) memcpy(w + i - 2, d2 + 2 * (x % 100u), 2);
        if (x >= 10u) memcpy(w + i - 2, d2 + 2 * x, 2);
        else w[i - 1] = (char)('0' + x);
        return w + n;
    }
    n = pto__sy_ndig(v, base, width);
    if (base == 16)
        for (i = n; i > 0; v >>= 4) w[--i] = hex[v & 15u];
    else
        for (i = n; i > 0; v /= 10u) w[--i] = (char)('0' + v % 10u);
    return w + n;
}

static void pto__sy_num(pto__sy_txt *t, unsigned long long v, unsigned base, int width)
{
    char tmp[24];
    pto__sy_put(t, tmp, (size_t)(pto__sy_wnum(tmp, v, base, width) - tmp));
}

/* Unchecked writes, where the room was counted. */
static inline char *pto__sy_w(char *w, const char *s, size_t n)
{
    memcpy(w, s, n);
    return w + n;
}
#define PTO__SY_WLIT(w, lit) ((w) = pto__sy_w((w), (lit), sizeof(lit) - 1))

/* The base name of the file of statement s (notes name one file, as a rule). */
static void pto__sy_base_of(pto__sy *sy, int32_t s)
{
    if (sy->m->stmts[s].loc.file != sy->base_file || !sy->base_name) {
        sy->base_file = sy->m->stmts[s].loc.file;
        sy->base_name = pto__sy_base(pto_file_name(sy->ctx, sy->base_file));
        sy->base_len = strlen(sy->base_name);
    }
}

/* The name a label gives after the op: its first operand's tile or tensor, or -1. */
static int32_t pto__sy_label_name(const pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    const pto_operand *o = pto_stmt_arg(m, s, 0);
    if (o && o->kind == PTO_O_TILE && o->ref >= 0) return m->tiles[o->ref].name;
    if (o && o->kind == PTO_O_GM && o->ref >= 0) return m->params[o->ref].name;
    return -1;
}

static unsigned long long pto__sy_line(const pto__sy *sy, int32_t s)
{
    return (unsigned long long)(sy->m->stmts[s].loc.line > 0 ? sy->m->stmts[s].loc.line : 0);
}

/* "tload a (vadd.pto:8)": the op, its first operand, where it is. */
static void pto__sy_label(pto__sy *sy, int32_t s, pto__sy_txt *t)
{
    int32_t name = pto__sy_label_name(sy, s);
    pto__sy_cat(t, pto_opinfo_get((pto_op)sy->m->stmts[s].op)->name);
    if (name != -1) { PTO__SY_LIT(t, " "); pto__sy_put_str(sy, t, name); }
    PTO__SY_LIT(t, " (");
    pto__sy_base_of(sy, s);
    pto__sy_put(t, sy->base_name, sy->base_len);
    PTO__SY_LIT(t, ":");
    pto__sy_num(t, pto__sy_line(sy, s), 10, 0);
    PTO__SY_LIT(t, ")");
}

/* Labels of statements s < n_lab (those of records): lab_len[s] is the
   length + 1 once counted (0 = not yet), and -(length + 1) once the text
   is in the pool at offset lab[s], in the first note that has it; later
   notes copy it from there. */
static size_t pto__sy_oplen(pto__sy *sy, int32_t op)
{
    if (op < 0 || op >= PTO_NOP) return strlen(pto_opinfo_get((pto_op)op)->name);
    if (!sy->oplen[op]) sy->oplen[op] = (uint8_t)strlen(pto_opinfo_get((pto_op)op)->name);
    return sy->oplen[op];
}

static size_t pto__sy_label_len(pto__sy *sy, int32_t s)
{
    int32_t name, op = sy->m->stmts[s].op;
    unsigned long long line;
    size_t n;
    if (sy->lab_len[s]) return (size_t)(sy->lab_len[s] < 0 ? -sy->lab_len[s] : sy->lab_len[s]) - 1;
    name = pto__sy_label_name(sy, s);
    pto__sy_base_of(sy, s);
    line = pto__sy_line(sy, s);
    n = pto__sy_oplen(sy, op) + (name != -1 ? 1 + pto__sy_str_len(sy, name) : 0) + 2 + sy->base_len + 1
        + (line < 10u ? 1 : line < 100u ? 2 : line < 1000u ? 3 : line < 10000u ? 4 : (size_t)pto__sy_ndig(line, 10, 0)) + 1;
    sy->lab_len[s] = (int32_t)n + 1;
    return n;
}

static char *pto__sy_label_w(pto__sy *sy, int32_t s, char *w)
{
    int32_t name, op = sy->m->stmts[s].op;
    if (sy->lab_len[s] < 0) return pto__sy_w(w, sy->ctx->pool + sy->lab[s], (size_t)-sy->lab_len[s] - 1);
    sy->lab[s] = (int32_t)(w - sy->ctx->pool);
    sy->lab_len[s] = -sy->lab_len[s];
    w = pto__sy_w(w, pto_opinfo_get((pto_op)op)->name, pto__sy_oplen(sy, op));
    if ((name = pto__sy_label_name(sy, s)) != -1) {
        *w++ = ' ';
        w = pto__sy_w(w, pto_str(sy->ctx, name), pto__sy_str_len(sy, name));
    }
    PTO__SY_WLIT(w, " (");
    pto__sy_base_of(sy, s);
    w = pto__sy_w(w, sy->base_name, sy->base_len);
    *w++ = ':';
    w = pto__sy_wnum(w, pto__sy_line(sy, s), 10, 0);
    *w++ = ')';
    return w;
}

/* A dependency's note: "RAW vec[0x0000,0x2000) tload a (vadd.pto:8) ->
   tadd c (vadd.pto:10)" ("-> next" when carried): its length uncut (the
   labels made), the note at w when that length is at most 599, or in t. */
static size_t pto__sy_dep_len(pto__sy *sy, int32_t ra, int32_t rb, int carried)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    size_t n = 3 + 1 + pto__sy_label_len(sy, a->stmt) + (carried ? 9 : 4) + pto__sy_label_len(sy, b->stmt);
    unsigned long long lo = (unsigned long long)(a->lo > b->lo ? a->lo : b->lo);
    unsigned long long hi = (unsigned long long)(a->hi < b->hi ? a->hi : b->hi);
    if (a->space == PTO_GM) return n + 4 + pto__sy_str_len(sy, sy->m->params[sy->m->operands[a->opnd].ref].name);
    return n + 1 + sy->splen[a->space] + 3 + (lo < 0x10000u ? 4 : (size_t)pto__sy_ndig(lo, 16, 4)) + 3
           + (hi < 0x10000u ? 4 : (size_t)pto__sy_ndig(hi, 16, 4)) + 1;
}

static const char *pto__sy_kind3(const pto__sy_rec *a, const pto__sy_rec *b)
{
    return (a->rw & PTO__SY_WR) ? ((b->rw & PTO__SY_RD) ? "RAW" : "WAW") : "WAR";
}

static char *pto__sy_dep_w(pto__sy *sy, int32_t ra, int32_t rb, int carried, char *w)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    w = pto__sy_w(w, pto__sy_kind3(a, b), 3);
    if (a->space == PTO_GM) {
        int32_t name = sy->m->params[sy->m->operands[a->opnd].ref].name;
        PTO__SY_WLIT(w, " gm ");
        w = pto__sy_w(w, pto_str(sy->ctx, name), pto__sy_str_len(sy, name));
    } else {
        *w++ = ' ';
        w = pto__sy_w(w, pto_space_name((pto_space)a->space), sy->splen[a->space]);
        PTO__SY_WLIT(w, "[0x");
        w = pto__sy_wnum(w, (unsigned long long)(a->lo > b->lo ? a->lo : b->lo), 16, 4);
        PTO__SY_WLIT(w, ",0x");
        w = pto__sy_wnum(w, (unsigned long long)(a->hi < b->hi ? a->hi : b->hi), 16, 4);
        *w++ = ')';
    }
    *w++ = ' ';
    w = pto__sy_label_w(sy, a->stmt, w);
    if (carried) PTO__SY_WLIT(w, " -> next ");
    else PTO__SY_WLIT(w, " -> ");
    return pto__sy_label_w(sy, b->stmt, w);
}

static void pto__sy_dep_text(pto__sy *sy, int32_t ra, int32_t rb, int carried, pto__sy_txt *t)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    pto__sy_put(t, pto__sy_kind3(a, b), 3);
    if (a->space == PTO_GM) {
        PTO__SY_LIT(t, " gm ");
        pto__sy_put_str(sy, t, sy->m->params[sy->m->operands[a->opnd].ref].name);
    } else {
        PTO__SY_LIT(t, " ");
        pto__sy_cat(t, pto_space_name((pto_space)a->space));
        PTO__SY_LIT(t, "[0x");
        pto__sy_num(t, (unsigned long long)(a->lo > b->lo ? a->lo : b->lo), 16, 4);
        PTO__SY_LIT(t, ",0x");
        pto__sy_num(t, (unsigned long long)(a->hi < b->hi ? a->hi : b->hi), 16, 4);
        PTO__SY_LIT(t, ")");
    }
    PTO__SY_LIT(t, " ");
    pto__sy_label(sy, a->stmt, t);
    if (carried) PTO__SY_LIT(t, " -> next ");
    else PTO__SY_LIT(t, " -> ");
    pto__sy_label(sy, b->stmt, t);
}

/* A note made on its own (messages, the fallback's): built in a txt and
   added to the pool without the intern table (pto__str_add: it is never
   looked up by its text). */
static int32_t pto__sy_note(pto__sy *sy, const pto__sy_txt *t)
{
    int32_t id = pto__str_add(sy->ctx, t->d, t->n);
    return id < 0 ? 0 : id;
}

static int32_t pto__sy_dep_note(pto__sy *sy, int32_t ra, int32_t rb, int carried)
{
    pto__sy_txt t;
    t.n = 0;
    pto__sy_dep_text(sy, ra, rb, carried, &t);
    return pto__sy_note(sy, &t);
}

static int32_t pto__sy_prefixed(pto__sy *sy, const char *prefix, int32_t note)
{
    pto__sy_txt t;
    t.n = 0;
    pto__sy_cat(&t, prefix);
    pto__sy_put_str(sy, &t, note);
    return pto__sy_note(sy, &t);
}

/* ---- the transfer functions ------------------------------------------------- */

/* A set/wait the analysis cannot follow or that is misused on some path. A
   hand-written one is the user's error; one this pass wrote is an internal
   error. */
static void pto__sy_misuse(pto__sy *sy, int32_t s, const char *what)
{
    pto_module *m = sy->m;
    const pto_operand *a = pto_stmt_arg(m, s, 0), *b = pto_stmt_arg(m, s, 1), *id = pto_stmt_arg(m, s, 2);
    int user = m->stmts[s].origin == PTO_BY_USER;
    pto_buf e;
    memset(&e, 0, sizeof e);
    e.ctx = sy->ctx;
    if (id && id->kind == PTO_O_INT) pto_print_expr(m, id->e[0], &e);
    /* the pass keeps written flags as they are, so an unbalanced pair is the author's to fix */
    pto_error(sy->ctx, m->stmts[s].loc, "sync: %s (%s %s, %s, %s)%s", what, pto_opinfo_get((pto_op)m->stmts[s].op)->name,
              a && a->kind == PTO_O_PIPE ? pto_pipe_name((pto_pipe)a->ref) : "?",
              b && b->kind == PTO_O_PIPE ? pto_pipe_name((pto_pipe)b->ref) : "?", e.data ? e.data : "?",
              !user ? ""
              : strncmp(what, "cannot", 6) == 0
                  ? ": an event id is an integer, or INT + ((i - start) / step) % N with i, start and step those of an "
                    "enclosing loop (i / step or i when it starts at 0), N <= 8"
                  : ": written flags are kept as written, so every set_flag needs its wait_flag on every path "
                    "(add the missing one, or drop both and let the pass insert them)");
    pto_buf_free(&e);
    pto__sy_fail(sy, user ? PTO_ERR_USER : PTO_ERR_INTERNAL);
}

/* Event ids are keyed (src, dst, id) for hardware ids, and by the id alone
   for the virtual ids of insertion rounds (valid only for groups that exist
   and only while inserting). */
static int64_t pto__sy_key(const pto__sy *sy, int p, int q, int64_t id)
{
    if (p < 0 || p >= PTO_PIPE_ALL || q < 0 || q >= PTO_PIPE_ALL) return -1;
    if (id >= PTO__SY_VBASE) return id - PTO__SY_VBASE + PTO__SY_REAL < sy->nkeys ? id - PTO__SY_VBASE + PTO__SY_REAL : -1;
    if (id < 0 || id > 7) return -1;
    return (p * 8 + q) * 8 + id;
}

/* The decoded-id slot of sync statement s, zeroed when first met; NULL
   when out of memory. Placed statements (the many) are numbered from s0 up,
   so their slots start there: the kernel's own statements cost nothing
   unless it has hand-written flags. */
static pto__sy_idc *pto__sy_idc_of(pto__sy *sy, int32_t s)
{
    int32_t i = s - sy->s0;
    if (s < sy->s0) {
        if (!sy->uidc) sy->uidc = (pto__sy_idc *)pto__sy_zalloc(sy, sizeof(pto__sy_idc) * ((size_t)sy->s0 + 1));
        return sy->uidc ? &sy->uidc[s] : NULL;
    }
    if (i >= sy->n_idc) {   /* first met (statements placed later have higher indices) */
        if (!pto__sy_grow(sy, (void **)&sy->idc, sizeof(pto__sy_idc), &sy->cap_idc, i + 1)) return NULL;
        memset(sy->idc + sy->n_idc, 0, sizeof(pto__sy_idc) * (size_t)(i + 1 - sy->n_idc));
        sy->n_idc = i + 1;
    }
    return &sy->idc[i];
}

/* The key of a set/wait in the current phase, or -1. */
static int32_t pto__sy_slot(pto__sy *sy, int32_t s, int *p, int *q)
{
    const pto_module *m = sy->m;
    const pto_operand *a, *b, *c;
    int64_t base, mod, id;
    int32_t L;
    pto__sy_idc *ic = pto__sy_idc_of(sy, s);
    if (!ic) return -1;
    if (ic->ok) {   /* decoded on an earlier visit of this analysis */
        if (ic->ok == 2) return -1;
        base = ic->base;
        mod = ic->mod;
        L = ic->loop;
        *p = ic->p;
        *q = ic->q;
    } else {
        int ok;
        a = pto_stmt_arg(m, s, 0), b = pto_stmt_arg(m, s, 1), c = pto_stmt_arg(m, s, 2);
        ok = a && b && c && a->kind == PTO_O_PIPE && b->kind == PTO_O_PIPE && c->kind == PTO_O_INT;
        *p = ok ? a->ref : -1;
        *q = ok ? b->ref : -1;
        ok = ok && *p >= 0 && *p < PTO_PIPE_ALL && *q >= 0 && *q < PTO_PIPE_ALL && *p != *q;
        ok = ok && pto__sy_idform(m, c->e[0], &base, &mod, &L);
        ic->ok = (uint8_t)(ok ? 1 : 2);
        ic->base = ok ? base : 0;
        ic->mod = (uint8_t)(ok ? mod : 1);
        ic->loop = ok ? L : -1;
        ic->p = (uint8_t)(ok ? *p : 0);
        ic->q = (uint8_t)(ok ? *q : 0);
        if (!ok) return -1;
    }
    id = base + (L >= 0 ? sy->phase[L] % mod : 0);
    return (int32_t)pto__sy_key(sy, *p, *q, id);
}

static void pto__sy_barrier(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_operand *a = pto_stmt_arg(sy->m, s, 0);
    int P = a ? a->ref : -1, q;
    int32_t k;
    if (P == PTO_PIPE_ALL) {
        for (k = 0; k < st->n;) {
            for (q = 0; q < 7; q++) pto__sy_addbit(&st->e[k], q, sy->now);
            k = pto__sy_keep(sy, st, k);
        }
        return;
    }
    for (k = 0; k < st->n;) {
        pto__sy_e *e = &st->e[k];
        if (e->pipe != P) { k++; continue; }
        pto__sy_addbit(e, P, sy->now);
        k = pto__sy_keep(sy, st, k);
    }
}

/* set_flag on p captures every record of pipe p and every record known to
   happen before p; the wait on q makes them happen before q. */
static void pto__sy_syncop(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    int p = 0, q = 0, f;
    int32_t key, k;
    uint64_t bit;
    if (sy->m->stmts[s].op == PTO_OP_PIPE_BARRIER) { pto__sy_barrier(sy, s, st); return; }
    key = pto__sy_slot(sy, s, &p, &q);
    if (key < 0) { pto__sy_misuse(sy, s, "cannot analyse this event id"); return; }
    f = pto__sy_fslot(st, key);
    if (sy->m->stmts[s].op == PTO_OP_SET_FLAG) {
        if (f >= 0) { pto__sy_misuse(sy, s, "event id set while it may still be set"); return; }
        if ((f = pto__sy_ffree(st)) < 0) {
            pto_error(sy->ctx, sy->m->stmts[s].loc, "sync: more than %d event ids set at once", PTO__SY_NFL);
            pto__sy_fail(sy, PTO_ERR_USER);
            return;
        }
        bit = (uint64_t)1 << f;
        st->fused |= bit;
        st->fkey[f] = key;
        st->fval[f] = 1;
        for (k = 0; k < st->n; k++) {
            pto__sy_e *e = &st->e[k];
            if ((e->bits & (1u << p)) || e->pipe == p) e->cap |= bit;
        }
        return;
    }
    if (f < 0 || st->fval[f] != 1) { pto__sy_misuse(sy, s, "wait on an event id that may not be set"); return; }
    bit = (uint64_t)1 << f;
    for (k = 0; k < st->n;) {
        pto__sy_e *e = &st->e[k];
        if (!(e->cap & bit)) { k++; continue; }
        e->cap &= ~bit;
        pto__sy_addbit(e, q, sy->now);
        k = pto__sy_keep(sy, st, k);
    }
    st->fused &= ~bit;
}

static int pto__sy_is_forward(const pto__sy *sy, int32_t a, int32_t b)
{
    int32_t pa, pb;
    pto__sy_lca(sy, a, b, &pa, &pb);
    return sy->pos[pa] < sy->pos[pb];
}

/* How a dependency reads in a note: RAW before WAR before WAW. */
static int pto__sy_kind_rank(const pto__sy *sy, int32_t ra, int32_t rb)
{
    uint8_t a = sy->recs[ra].rw, b = sy->recs[rb].rw;
    if ((a & PTO__SY_WR) && (b & PTO__SY_RD)) return 2;
    return (a & PTO__SY_WR) ? 0 : 1;
}

static void pto__sy_hazard(pto__sy *sy, int32_t ra, int32_t s, int32_t o, int32_t rb)
{
    int32_t a = sy->recs[ra].stmt;
    int fwd, rank;
    if (sy->mode == PTO__SY_CHECK) {
        int32_t note = pto__sy_dep_note(sy, ra, rb, 0);
        pto_error(sy->ctx, sy->m->stmts[s].loc, "sync: internal: unordered dependency after sync: %s",
                  pto_str(sy->ctx, note));
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return;
    }
    fwd = pto__sy_is_forward(sy, a, s);
    rank = pto__sy_kind_rank(sy, ra, rb);
    if (sy->found) {
        if (sy->h_fwd != fwd) { if (sy->h_fwd > fwd) return; }
        else if (sy->h_apos != sy->pos[a]) { if (sy->h_apos > sy->pos[a]) return; }
        else if (pto__sy_kind_rank(sy, sy->h_rec, sy->h_brec) >= rank) return;
    }
    sy->found = 1;
    sy->h_fwd = fwd;
    sy->h_apos = sy->pos[a];
    sy->h_rec = ra;
    sy->h_bstmt = s;
    sy->h_bopnd = o;
    sy->h_brec = rb;
}

/* ---- superseded records -----------------------------------------------------
   A record that the join of a loop's zero-trip path keeps alive is dropped
   between two top-level statements of a core program (one path: no join
   pending) when a later-placed record a (pos[a] > pos[b]) supersedes it:
   - a covers b's bytes, and a writes or both read: whatever conflicts with
     b conflicts with a;
   - the pipes for which a is not a dependency (those it happens before, and
     its own when that queue is in order) are a subset of b's, and so are the
     pipes whose sets capture it (those it happens before and its own), and
     every pending set that captured a captured b.
   - for each of those pipes, b is captured since no later than a (a set
     placed in the past, pto__sy_apply, that captures a captures b).
   Each transfer function keeps these properties, so whenever b is an
   unordered dependency of a later access, a is one too, and ordering a
   (from its pipe, after it) orders b. A set placed in the past sits at
   top level (it follows the source's ancestor in the lowest common block
   of the source and a later access), where one path holds. */

static uint8_t pto__sy_cov(const pto__sy *sy, int32_t r, uint8_t bits)
{
    int p = sy->recs[r].pipe;
    return (uint8_t)(bits | (pto__sy_inorder(p) ? 1u << p : 0u));
}

/* Since when record entry e (of record r) is captured by a set on pipe p. */
static uint32_t pto__sy_since(const pto__sy_e *e, const pto__sy_rec *r, int p)
{
    uint32_t t = 0xffffffffu;
    if (r->pipe == p) t = e->ts;
    if ((e->bits & (1u << p)) && e->hts[p] < t) t = e->hts[p];
    return t;
}

static int pto__sy_supersedes(const pto__sy *sy, uint64_t set1, const pto__sy_e *x, const pto__sy_e *y)
{
    int p;
    const pto__sy_rec *a = &sy->recs[x->rid], *b = &sy->recs[y->rid];
    uint8_t ca = (uint8_t)(x->bits | (1u << a->pipe)), cb = (uint8_t)(y->bits | (1u << b->pipe));
    uint8_t va = pto__sy_cov(sy, x->rid, x->bits), vb = pto__sy_cov(sy, y->rid, y->bits);
    if (a->space != b->space || sy->pos[a->stmt] <= sy->pos[b->stmt]) return 0;
    if (!(a->rw & PTO__SY_WR) && (b->rw & PTO__SY_WR)) return 0;
    if ((ca & ~cb) || (va & ~vb)) return 0;
    if (x->cap & ~y->cap & set1) return 0;
    for (p = 0; p < 7; p++)
        if ((ca & (1u << p)) && pto__sy_since(y, b, p) > pto__sy_since(x, a, p)) return 0;
    return a->space != PTO_GM ? a->lo <= b->lo && b->hi <= a->hi : pto__sy_gm_covers(sy->m, a, b);
}

/* Drops every superseded record (superseding is transitive and pos grows
   along it, so marking first and dropping after is the same). */
static void pto__sy_collect(pto__sy *sy, pto__sy_st *st)
{
    int32_t ka, kb, w = 0, n = st->n;
    uint8_t *drop;
    uint64_t set1 = 0, u;
    if (n < 2 || !pto__sy_grow(sy, (void **)&sy->drop, 1, &sy->cap_drop, n)) return;
    drop = sy->drop;
    memset(drop, 0, (size_t)n);
    for (u = st->fused; u; u &= u - 1)
        if (st->fval[pto__sy_ctz(u)] == 1) set1 |= u & (~u + 1);
    for (kb = 0; kb < n; kb++) {
        const pto__sy_e *b = &st->e[kb];
        for (ka = 0; ka < n; ka++) {
            const pto__sy_e *a = &st->e[ka];
            if (!(a->lo <= b->lo && b->hi <= a->hi) || ka == kb || a->space != b->space) continue;
            if (pto__sy_supersedes(sy, set1, &st->e[ka], &st->e[kb])) { drop[kb] = 1; break; }
        }
    }
    for (kb = 0; kb < n; kb++)
        if (!drop[kb]) st->e[w++] = st->e[kb];
    st->n = w;
}

static pto_status pto__sy_place(pto__sy *sy);
static int pto__sy_seen(pto__sy *sy);
static void pto__sy_counted(pto__sy *sy);

/* The hazard check of statement s: every live record that conflicts with
   one of its accesses and is not ordered before its pipe. */
static int32_t pto__sy_scan(pto__sy *sy, int32_t s, const pto__sy_st *st, int32_t *rs)
{
    const pto_module *m = sy->m;
    int q;
    int32_t i, o, r, k, n = st->n, nr = 0;   /* n: nothing here changes the state */
    int64_t blo, bhi;
    for (i = 0; i < m->stmts[s].nargs; i++) {
        const pto__sy_rec *b;
        o = m->stmts[s].arg0 + i;
        if ((r = pto__sy_rec_now(sy, o)) < 0) continue;
        b = &sy->recs[r];
        q = b->pipe;   /* the statement's pipe */
        blo = b->space == PTO_GM ? INT64_MIN : b->lo;
        bhi = b->space == PTO_GM ? INT64_MAX : b->hi;
        for (k = 0; k < n; k++) {
            const pto__sy_e *e = &st->e[k];
            if (e->lo >= bhi || blo >= e->hi) continue;   /* first: it decides most (and all for local bytes) */
            if (e->space != b->space || !((e->rw | b->rw) & PTO__SY_WR)) continue;
            if ((e->bits & (1u << q)) || (e->pipe == q && pto__sy_inorder(q))) continue;
            if (e->space == PTO_GM && !pto__sy_gm_overlap(m, &sy->recs[e->rid], b)) continue;
            pto__sy_hazard(sy, e->rid, s, o, r);
            if (sy->stop) return nr;
        }
        if (nr < 8) rs[nr++] = r;
    }
    return nr;
}

/* A pair placed where the analysis has already been takes effect in place:
   the set after statement pa (at time t, its latest visit) captured the
   records of pipe p issued by then and those known to happen before p by
   then; the wait before pb (time w) made them happen before q. A record
   issued later is a new instance the pair does not order. Exact for every
   state between pb and here: a record live here with ts <= t is the same
   instance it was at t on every path. */
static void pto__sy_apply(pto__sy *sy, pto__sy_st *st, int p, int q, uint32_t t, uint32_t w)
{
    int32_t k;
    (void)sy;
    for (k = 0; k < st->n; k++) {
        pto__sy_e *e = &st->e[k];
        if ((e->pipe == p && e->ts <= t) || ((e->bits & (1u << p)) && e->hts[p] <= t))
            pto__sy_addbit(e, q, w);
    }
}

/* The effect, on the iteration under analysis, of a carried pair (its
   prime before the loop, its set in earlier iterations) placed while the
   loop was being visited: every record issued before this iteration
   (before time t0) that is of pipe p or ordered before p counts as ordered
   before q since w. That is at least what the exact analysis would know
   (the set captured a subset of those), so a dependency still unordered
   after it is one the exact analysis finds too: the rest of the visit can
   go on looking for the loop's other carried dependencies, and the loop is
   analysed again, exactly, once the visit ends (sy->pend; for barriers
   only, after the loop's next visits: pto__sy_only_barriers). */
static void pto__sy_apply_carried(pto__sy_st *st, int p, int q, uint32_t t0, uint32_t w)
{
    int32_t k;
    for (k = 0; k < st->n; k++) {
        pto__sy_e *e = &st->e[k];
        if (e->ts < t0 && (e->pipe == p || (e->bits & (1u << p)))) pto__sy_addbit(e, q, w);
    }
}

static int32_t pto__sy_frame_of(const pto__sy *sy, int32_t stmt)
{
    int32_t i;
    for (i = 0; i < sy->nfr; i++)
        if (sy->fr[i].stmt == stmt) return i;
    return -1;
}

/* Where the dependency just ordered can take effect in place: every loop
   around the block that holds both ends (for a carried one: the loop that
   carries it, and those around it) must be in its first visit, or its
   heads, computed without the pair, would be too pessimistic. Returns the
   outermost loop to analyse again, or -1. */
static int32_t pto__sy_restart_target(pto__sy *sy, const pto__sy_grp *gr, int32_t pb)
{
    int32_t lim = gr->kind == PTO__SY_LOOP || !sy->h_fwd ? -1 : pto__sy_frame_of(sy, pb), i;
    if (!sy->h_fwd) {
        int32_t L = gr->kind == PTO__SY_LOOP ? gr->anchor : pto_stmt_loop(sy->m, pb);
        lim = pto__sy_frame_of(sy, L) + 1;
        for (i = 0; i < lim; i++)
            if (sy->fr[i].loop && !sy->fr[i].fresh) return sy->fr[i].stmt;
        return L;
    }
    if (lim < 0) lim = sy->nfr;
    for (i = 0; i < lim; i++)
        if (sy->fr[i].loop && !sy->fr[i].fresh) return sy->fr[i].stmt;
    return -1;
}

static int pto__sy_log(pto__sy *sy, pto__sy_fr *f, int32_t g, int32_t stmt, uint32_t t, uint32_t w)
{
    pto__sy_lg *l;
    if (!pto__sy_grow(sy, (void **)&f->lg, sizeof(pto__sy_lg), &f->cap_lg, f->nlg + 1)) return 0;
    l = &f->lg[f->nlg++];
    l->grp = g;
    l->stmt = stmt;
    l->p = sy->grps[g].src;
    l->q = sy->grps[g].dst;
    l->t = t;
    l->w = w;
    return 1;
}

/* A carried group just placed (gr, for the dependency found at the
   current statement, whose wait precedes pb) would make loop `target`
   stale: instead of analysing target again at once, its effect on this
   iteration is taken optimistically (pto__sy_apply_carried) and target is
   analysed again when its body visit ends, so one visit finds all of a
   loop's carried dependencies. Returns 0 when that cannot be done (a
   rotation that changes the loop's period, or a dependency the optimistic
   effect does not order): then target is analysed again at once. */
static int pto__sy_defer(pto__sy *sy, pto__sy_st *st, const pto__sy_grp *gr, int32_t target, int32_t pb,
                         int32_t period0)
{
    int32_t L = pto_stmt_loop(sy->m, pb), fl = pto__sy_frame_of(sy, L), i, j, k;
    uint32_t w = pb < sy->n_tt ? sy->tstart[pb] : sy->now, t0;
    /* only when the loop to analyse again is the one that carries the pair:
       the rest of this visit then meets no wait of a deferred group (each
       sits before its pb, already passed) and no loop analysed further */
    if (sy->mode != PTO__SY_FIND || fl < 0 || L < 0 || target != L || sy->period[L] != period0) return 0;
    t0 = sy->fr[fl].vstart;
    pto__sy_apply_carried(st, gr->src, gr->dst, t0, w);
    if (gr->kind == PTO__SY_BAR) pto__sy_apply(sy, st, gr->src, gr->dst, w, w);
    k = pto__sy_find(st, sy->h_rec);
    if (k < 0 || !(st->e[k].bits & (1u << gr->dst))) return 0;
    for (i = fl + 1; i < sy->nfr; i++) {
        for (j = 0; j < sy->fr[i].nsv; j++)
            if (sy->fr[i].sv[j]) {
                pto__sy_apply_carried(sy->fr[i].sv[j], gr->src, gr->dst, t0, w);
                if (gr->kind == PTO__SY_BAR) pto__sy_apply(sy, sy->fr[i].sv[j], gr->src, gr->dst, w, w);
            }
        if (sy->fr[i].loop) {
            if (!pto__sy_log(sy, &sy->fr[i], sy->n_grps - 1, -2, t0, w)) return 0;
            if (gr->kind == PTO__SY_BAR && !pto__sy_log(sy, &sy->fr[i], sy->n_grps - 1, -1, w, w)) return 0;
        }
    }
    if (!pto__sy_grow(sy, (void **)&sy->pendg, sizeof(int32_t), &sy->cap_pendg, sy->npendg + 1)) return 0;
    sy->pendg[sy->npendg++] = sy->n_grps - 1;
    if (sy->pend < 0 || pto__sy_frame_of(sy, target) < pto__sy_frame_of(sy, sy->pend)) sy->pend = target;
    return 1;
}

/* Orders the dependency found at s: places the group, then either applies
   it to the states in place (pto__sy_apply) and returns 1, or asks for the
   loop it makes stale to be analysed again and returns 0. */
static int pto__sy_resolve(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    int32_t a = sy->recs[sy->h_rec].stmt, pa, pb, target, fi, i, j;
    const pto__sy_grp *gr;
    uint32_t t, w;
    int32_t period0;
    if (pto__sy_seen(sy)) {
        pto_error(sy->ctx, m->stmts[sy->h_bstmt].loc, "sync: internal: could not order %s",
                  pto_str(sy->ctx, pto__sy_dep_note(sy, sy->h_rec, sy->h_brec, !sy->h_fwd)));
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return 0;
    }
    pto__sy_lca(sy, a, s, &pa, &pb);
    if (!sy->h_fwd) {
        int32_t L = pto_stmt_loop(m, pa);
        if (L >= 0) pb = pto__sy_in_block(m, s, m->stmts[L].body);
    }
    period0 = !sy->h_fwd && pto_stmt_loop(m, pa) >= 0 ? sy->period[pto_stmt_loop(m, pa)] : 0;
    if (pto__sy_place(sy) != PTO_OK) { pto__sy_fail(sy, PTO_ERR_INTERNAL); return 0; }
    pto__sy_counted(sy);
    sy->grps[sy->n_grps - 1].ne = sy->n_ents - sy->grps[sy->n_grps - 1].e0;
    if (sy->h_fwd) sy->grps[sy->n_grps - 1].pb = pb;
    gr = &sy->grps[sy->n_grps - 1];
    target = pto__sy_restart_target(sy, gr, pb);
    sy->found = 0;
    if (target >= 0 && !sy->h_fwd && pto__sy_defer(sy, st, gr, target, pb, period0)) return 1;
    if (target >= 0) {
        if (sy->pend >= 0 && pto__sy_frame_of(sy, sy->pend) < pto__sy_frame_of(sy, target)) target = sy->pend;
        sy->pend = -1;
        sy->restart = target;
        sy->restart_grp = sy->n_grps - 1;
        return 0;
    }
    w = pb < sy->n_tt ? sy->tstart[pb] : sy->now;
    t = gr->kind == PTO__SY_BAR ? w : pa < sy->n_tt ? sy->tend[pa] : w;
    fi = pto__sy_frame_of(sy, pb);
    pto__sy_apply(sy, st, gr->src, gr->dst, t, w);
    for (i = fi < 0 ? sy->nfr : fi; i < sy->nfr; i++) {
        for (j = 0; j < sy->fr[i].nsv; j++)
            if (sy->fr[i].sv[j]) pto__sy_apply(sy, sy->fr[i].sv[j], gr->src, gr->dst, t, w);
        if (sy->fr[i].loop && !pto__sy_log(sy, &sy->fr[i], sy->n_grps - 1, -1, t, w)) return 0;
    }
    return 1;
}

static void pto__sy_access(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    int32_t i, rs[8], nr;
    for (;;) {
        sy->found = 0;
        nr = pto__sy_scan(sy, s, st, rs);
        if (sy->stop) return;
        if (!sy->found) break;
        if (!pto__sy_resolve(sy, s, st)) return;
    }
    for (i = 0; i < nr; i++) pto__sy_touch(sy, st, rs[i]);
}

static void pto__sy_block(pto__sy *sy, int32_t b, pto__sy_st *st);

static int pto__sy_halted(const pto__sy *sy) { return sy->stop || sy->restart >= 0; }

static pto__sy_fr *pto__sy_push(pto__sy *sy, int32_t s, int loop, pto__sy_st **sv, int32_t nsv)
{
    pto__sy_fr *f;
    if (!pto__sy_grow(sy, (void **)&sy->fr, sizeof(pto__sy_fr), &sy->cap_fr, sy->nfr + 1)) return NULL;
    f = &sy->fr[sy->nfr++];
    f->stmt = s;
    f->loop = loop;
    f->fresh = 1;
    f->sv = sv;
    f->nsv = nsv;
    f->g0 = sy->n_grps;
    f->lg = NULL;
    f->nlg = f->cap_lg = 0;
    return f;
}

static void pto__sy_unseen(pto__sy *sy, int32_t rec, int32_t opnd);
static void pto__sy_unlink_ent(pto__sy *sy, int32_t e);

/* A forward group whose wait sits right before loop L, placed during this
   visit of L, may be implied by what made L stale (typically a carried
   group whose prime, just before L, orders the same records through a
   chain of flags): it goes, and the new analysis of L places it again if
   it is needed after all. This is the one redundancy a single pass meets
   (what a group placed later orders earlier is its prime's part). */
static void pto__sy_drop_group(pto__sy *sy, int32_t g)
{
    pto__sy_grp *gr = &sy->grps[g];
    int32_t e;
    for (e = gr->e0; e < gr->e0 + gr->ne; e++) pto__sy_unlink_ent(sy, e);
    pto__sy_unseen(sy, gr->arec, gr->bopnd);
    if (gr->kind == PTO__SY_BAR) sy->stats.barriers--;
    else {
        sy->stats.flag_pairs--;
        if (gr->nids > 1) sy->stats.rotating--;
    }
    gr->kind = PTO__SY_DEAD;
}

/* A forward group placed during this visit of L whose wait sits right
   before L, or before a loop inside L (a carried pair of that inner loop,
   its primes moved out to L by pto__sy_anchor, now precedes it too), may
   be implied by what made L stale: it goes, and is placed again if the
   new analysis still needs it. */
static int pto__sy_droppable(const pto__sy *sy, int32_t pb, int32_t L)
{
    if (pb == L) return 1;
    if (pb < 0 || sy->m->stmts[pb].kind != PTO_ST_FOR) return 0;
    while ((pb = pto__sy_up(sy->m, pb)) >= 0)
        if (pb == L) return 1;
    return 0;
}

/* L's entry again: as it was when the analysis reached L, with the changes
   the groups still there made to it, in order, then the primes of the
   group that made L stale (they are the last statements before L). */
static void pto__sy_reenter(pto__sy *sy, int32_t fi, pto__sy_st *st, const pto__sy_st *entry0)
{
    int32_t g, i, w = 0, e, L = sy->fr[fi].stmt;
    for (g = sy->fr[fi].g0; g < sy->n_grps; g++)
        if (pto__sy_droppable(sy, sy->grps[g].pb, L) && sy->grps[g].kind != PTO__SY_DEAD && g != sy->restart_grp)
            pto__sy_drop_group(sy, g);
    pto__sy_st_copy(sy, st, entry0);
    for (i = 0; i < sy->fr[fi].nlg; i++) {
        pto__sy_lg l = sy->fr[fi].lg[i];
        if (sy->grps[l.grp].kind == PTO__SY_DEAD) continue;
        sy->fr[fi].lg[w++] = l;
        if (l.stmt >= 0) pto__sy_syncop(sy, l.stmt, st);
        else if (l.stmt == -2) pto__sy_apply_carried(st, l.p, l.q, l.t, l.w);
        else pto__sy_apply(sy, st, l.p, l.q, l.t, l.w);
    }
    sy->fr[fi].nlg = w;
    /* the groups that asked, in the order they were placed (so are their
       primes: each new one goes right before L) */
    for (i = 0; i <= sy->npendg && !sy->stop; i++) {
        g = i < sy->npendg ? sy->pendg[i] : sy->restart_grp;
        if (g < 0 || sy->grps[g].kind != PTO__SY_LOOP || sy->grps[g].anchor != L) continue;
        for (e = sy->grps[g].e0; e < sy->grps[g].e0 + sy->grps[g].ne && !sy->stop; e++) {
            if (sy->ents[e].role != PTO__SY_PRIME || sy->ents[e].stmt < 0) continue;
            pto__sy_syncop(sy, sy->ents[e].stmt, st);
            if (!pto__sy_log(sy, &sy->fr[fi], g, sy->ents[e].stmt, 0, 0)) return;
        }
    }
    sy->npendg = 0;
}

/* The groups deferred so far are all barriers (no event id whose set a
   later visit would miss). */
static int pto__sy_only_barriers(const pto__sy *sy)
{
    int32_t i;
    for (i = 0; i < sy->npendg; i++)
        if (sy->grps[sy->pendg[i]].kind != PTO__SY_BAR) return 0;
    return 1;
}

/* Chaotic iteration over the phases (iteration index mod the period): a
   phase is analysed again only when its head changed since its last visit
   (the same fixpoint, and the same dependencies found, as full rounds). */
static int pto__sy_fixpoint(pto__sy *sy, int32_t L, int32_t fi, pto__sy_st *st, pto__sy_st **heads, int32_t P)
{
    pto__sy_st *work = pto__sy_st_get(sy);
    uint8_t *dirty = (uint8_t *)pto__sy_zalloc(sy, (size_t)P);
    int32_t ph = 0, visits = 0, left = 1;
    if (!work || !dirty) { pto__sy_st_put(sy, work); pto_free(sy->ctx, dirty); return 0; }
    heads[P] = st;
    sy->fr[fi].sv = heads;
    sy->fr[fi].nsv = P + 1;
    pto__sy_st_copy(sy, heads[0], st);
    dirty[0] = 1;
    while (left > 0 && !pto__sy_halted(sy)) {
        if (dirty[ph]) {
            dirty[ph] = 0;
            left--;
            if (++visits > PTO__SY_MAXPASS * P) {
                pto_error(sy->ctx, sy->m->stmts[L].loc, "sync: internal: the analysis of this loop did not converge");
                pto__sy_fail(sy, PTO_ERR_INTERNAL);
                break;
            }
            sy->phase[L] = ph;
            sy->fr[fi].fresh = visits == 1;
            pto__sy_st_copy(sy, work, heads[ph]);
            sy->fr[fi].vstart = sy->now;
            pto__sy_block(sy, sy->m->stmts[L].body, work);
            /* pto__sy_defer. Barriers only: not before visit P + 1, the
               first from a back edge, whose carried flag pairs then share
               the same re-analysis (top comment, 3.) */
            if (sy->pend == L && !pto__sy_halted(sy) && (visits > P || !pto__sy_only_barriers(sy))) {
                sy->pend = -1;
                sy->restart = L;
                sy->restart_grp = -1;
            }
            if (!pto__sy_halted(sy) && pto__sy_join(sy, heads[(ph + 1) % P], work) && !dirty[(ph + 1) % P]) {
                dirty[(ph + 1) % P] = 1;
                left++;
            }
        }
        ph = (ph + 1) % P;
    }
    if (sy->pend == L && !pto__sy_halted(sy)) {   /* converged before a deferred barrier's restart */
        sy->pend = -1;
        sy->restart = L;
        sy->restart_grp = -1;
    }
    sy->fr[fi].sv = NULL;
    sy->fr[fi].nsv = 0;
    pto__sy_st_put(sy, work);
    pto_free(sy->ctx, dirty);
    sy->phase[L] = 0;
    return 1;
}

/* The trip count of loop L when its start, end and step are literals
   (a positive step), else -1. */
static int64_t pto__sy_const_trips(const pto_module *m, int32_t L)
{
    const pto_stmt *f = &m->stmts[L];
    int64_t a, b, c = 1;
    if (f->e[0] < 0 || f->e[1] < 0 || m->exprs[f->e[0]].kind != PTO_E_INT || m->exprs[f->e[1]].kind != PTO_E_INT) return -1;
    if (f->e[2] >= 0 && (m->exprs[f->e[2]].kind != PTO_E_INT || (c = m->exprs[f->e[2]].value) < 1)) return -1;
    a = m->exprs[f->e[0]].value;
    b = m->exprs[f->e[1]].value;
    if (b <= a) return 0;
    if (b - a > INT64_MAX - c) return -1;
    return (b - a + c - 1) / c;
}

/* A loop of T literal iterations, 1 <= T <= its period: no slot and no
   rotating id comes round again inside one run of it, so the fixpoint's
   "any number of iterations" would only add carried dependencies that
   cannot happen (a K loop of 2 steps over x2 tiles got a primed, rotating
   pair that never ordered anything). Its T iterations are analysed in
   order instead, each at its own phase, and the state after the last is
   the loop's exit: exact, and no more visits than the fixpoint's. A pair
   placed after the first iteration makes it stale (fresh is 0) and it is
   analysed again from its entry, as in the fixpoint. */
static void pto__sy_unrolled(pto__sy *sy, int32_t L, int32_t fi, pto__sy_st *st, int64_t T, int32_t P)
{
    int64_t it;
    sy->fr[fi].sv = NULL;
    sy->fr[fi].nsv = 0;
    for (it = 0; it < T && !pto__sy_halted(sy); it++) {
        sy->phase[L] = (int32_t)(it % P);
        sy->fr[fi].fresh = it == 0;
        sy->fr[fi].vstart = sy->now;
        pto__sy_block(sy, sy->m->stmts[L].body, st);
        if (sy->pend == L && !pto__sy_halted(sy)) {   /* pto__sy_defer: analyse again, exactly */
            sy->pend = -1;
            sy->restart = L;
            sy->restart_grp = -1;
        }
    }
    sy->phase[L] = 0;
}

/* One analysis of loop L that may exit at the head of any iteration, zero
   included: the fixpoint over its P phase heads, then st = its entry
   joined with every head. 0 when out of memory. */
static int pto__sy_any_trips(pto__sy *sy, int32_t L, int32_t fi, pto__sy_st *st, int32_t P)
{
    pto__sy_st **heads = (pto__sy_st **)pto__sy_zalloc(sy, sizeof(pto__sy_st *) * (size_t)(P + 1));
    int ok = heads != NULL;
    int32_t ph;
    for (ph = 0; ok && ph < P; ph++) ok = (heads[ph] = pto__sy_st_get(sy)) != NULL;
    if (ok) ok = pto__sy_fixpoint(sy, L, fi, st, heads, P);
    if (ok && !pto__sy_halted(sy))
        for (ph = 0; ph < P; ph++) pto__sy_join(sy, st, heads[ph]);
    for (ph = 0; heads && ph < P; ph++) pto__sy_st_put(sy, heads[ph]);
    pto_free(sy->ctx, heads);
    return ok;
}

/* The loop may exit at the head of any iteration, zero included (unless
   its trip count is a literal no larger than its period: pto__sy_unrolled).
   When a pair placed inside makes it stale (pto__sy_restart_target), it is
   analysed again from its entry. */
static void pto__sy_loop(pto__sy *sy, int32_t L, pto__sy_st *st)
{
    pto__sy_st *entry0 = pto__sy_st_dup(sy, st);
    int32_t fi;
    if (!entry0 || !pto__sy_push(sy, L, 1, NULL, 0)) { pto__sy_st_put(sy, entry0); return; }
    fi = sy->nfr - 1;
    for (;;) {
        int32_t P = sy->period[L];
        int64_t T = pto__sy_const_trips(sy->m, L);
        int ok = 1;
        if (T >= 1 && T <= P) pto__sy_unrolled(sy, L, fi, st, T, P);
        else ok = pto__sy_any_trips(sy, L, fi, st, P);
        if (!ok || sy->stop || sy->restart != L) break;
        sy->restart = -1;
        pto__sy_reenter(sy, fi, st, entry0);
        sy->restart_grp = -1;
    }
    pto_free(sy->ctx, sy->fr[fi].lg);
    sy->nfr = fi;
    pto__sy_st_put(sy, entry0);
}

static void pto__sy_if(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    pto__sy_st *sv[2];
    sv[0] = st;
    sv[1] = pto__sy_st_dup(sy, st);
    if (!sv[1] || !pto__sy_push(sy, s, 0, sv, 2)) { pto__sy_st_put(sy, sv[1]); return; }
    pto__sy_block(sy, sy->m->stmts[s].body, st);
    if (!pto__sy_halted(sy) && sy->m->stmts[s].orelse >= 0) pto__sy_block(sy, sy->m->stmts[s].orelse, sv[1]);
    sy->nfr--;
    if (!pto__sy_halted(sy)) pto__sy_join(sy, st, sv[1]);
    pto__sy_st_put(sy, sv[1]);
}

static void pto__sy_stmt(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    ++sy->now;
    if (s < sy->n_tt) sy->tstart[s] = sy->now;
    switch (m->stmts[s].kind) {
    case PTO_ST_OP:
        if (pto__sy_issync(m->stmts[s].op)) pto__sy_syncop(sy, s, st);
        else pto__sy_access(sy, s, st);
        break;
    case PTO_ST_FOR: pto__sy_loop(sy, s, st); break;
    case PTO_ST_IF: pto__sy_if(sy, s, st); break;
    default: break;   /* tiles, lets; a SECTION is its own core program */
    }
    ++sy->now;
    if (s < sy->n_tt) sy->tend[s] = sy->now;
}

/* pto__sy_stmt for an op, inline: nine in ten statements a loop body's
   visits meet are ops, and the call with pto__sy_stmt's frame cost more
   than their own work in many cases. */
static inline void pto__sy_op(pto__sy *sy, int32_t s, pto__sy_st *st, int sync)
{
    ++sy->now;
    if (s < sy->n_tt) sy->tstart[s] = sy->now;
    if (sync) pto__sy_syncop(sy, s, st);
    else pto__sy_access(sy, s, st);
    ++sy->now;
    if (s < sy->n_tt) sy->tend[s] = sy->now;
}

static void pto__sy_block(pto__sy *sy, int32_t b, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    int32_t s;
    /* tiles and lets change nothing (their analysis times are never read:
       skipping them keeps every other time in the same order) */
    for (s = m->blocks[b].head; s >= 0 && !pto__sy_halted(sy); s = m->stmts[s].next) {
        const pto_stmt *x = &m->stmts[s];
        if (x->kind == PTO_ST_OP) pto__sy_op(sy, s, st, pto__sy_issync(x->op));
        else if (x->kind != PTO_ST_TILE && x->kind != PTO_ST_LET) pto__sy_stmt(sy, s, st);
    }
}

/* ---- analysis driver ------------------------------------------------------------
   A core program is the kernel body (sections excluded) or one section's
   body; each is analysed from an empty state, once. */

static void pto__sy_number(pto__sy *sy, int32_t b, int32_t *n, int32_t d)
{
    const pto_module *m = sy->m;
    int32_t s;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        sy->pos[s] = (*n)++;
        if (s < sy->n_dep) sy->dep[s] = d;
        if (m->stmts[s].body >= 0) pto__sy_number(sy, m->stmts[s].body, n, d + 1);
        if (m->stmts[s].orelse >= 0) pto__sy_number(sy, m->stmts[s].orelse, n, d + 1);
    }
}

/* Per-statement tables: preorder positions, loop periods (lcm of the
   rotations of the loop's tiles and of the event ids rotating with it). */
static int pto__sy_tables(pto__sy *sy)
{
    pto_module *m = sy->m;
    size_t n = (size_t)m->n_stmts + 1;
    int32_t s, t, zero = 0;
    pto_free(sy->ctx, sy->pos);
    pto_free(sy->ctx, sy->period);
    pto_free(sy->ctx, sy->phase);
    sy->pos = (int32_t *)pto__sy_zalloc(sy, n * sizeof(int32_t));
    sy->period = (int32_t *)pto__sy_zalloc(sy, n * sizeof(int32_t));
    sy->phase = (int32_t *)pto__sy_zalloc(sy, n * sizeof(int32_t));
    if (!sy->pos || !sy->period || !sy->phase) return 0;
    pto_free(sy->ctx, sy->dep);
    sy->dep = (int32_t *)pto_alloc(sy->ctx, n * sizeof(int32_t));
    sy->n_dep = sy->dep ? m->n_stmts : 0;
    for (s = 0; s < sy->n_dep; s++) sy->dep[s] = -1;
    pto__sy_number(sy, m->kernels[sy->kernel].body, &zero, 0);
    for (s = 0; s < m->n_stmts; s++) sy->period[s] = 1;
    for (t = 0; t < m->n_tiles; t++)
        if (sy->tile_loop[t] >= 0)
            sy->period[sy->tile_loop[t]] = (int32_t)pto__sy_lcm(sy->period[sy->tile_loop[t]], m->tiles[t].nbuf);
    for (s = 0; s < m->n_stmts; s++) {
        const pto_operand *c;
        int64_t base, mod;
        int32_t L;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0) continue;
        if (m->stmts[s].op != PTO_OP_SET_FLAG && m->stmts[s].op != PTO_OP_WAIT_FLAG) continue;
        c = pto_stmt_arg(m, s, 2);
        if (c && c->kind == PTO_O_INT && pto__sy_idform(m, c->e[0], &base, &mod, &L) && L >= 0)
            sy->period[L] = (int32_t)pto__sy_lcm(sy->period[L], mod);
    }
    return 1;
}

/* The core programs of the kernel: its body, then each section's body. */
static int pto__sy_programs(pto__sy *sy)
{
    const pto_module *m = sy->m;
    int32_t body = m->kernels[sy->kernel].body, s;
    sy->nprogs = 0;
    if (!pto__sy_grow(sy, (void **)&sy->progs, sizeof(int32_t), &sy->cap_progs, 1)) return 0;
    sy->progs[sy->nprogs++] = body;
    for (s = m->blocks[body].head; s >= 0; s = m->stmts[s].next) {
        if (m->stmts[s].kind != PTO_ST_SECTION) continue;
        if (!pto__sy_grow(sy, (void **)&sy->progs, sizeof(int32_t), &sy->cap_progs, sy->nprogs + 1)) return 0;
        sy->progs[sy->nprogs++] = m->stmts[s].body;
    }
    return 1;
}

/* The program (index) and top-level statement that contain statement s. */
/* Analyses program `prog` from an empty state. */
static void pto__sy_run(pto__sy *sy, int32_t prog)
{
    const pto_module *m = sy->m;
    pto__sy_st *st = pto__sy_st_get(sy);
    int32_t s;
    int f;
    if (!st) return;
    st->reached = 1;
    sy->nfr = 0;
    sy->restart = sy->restart_grp = sy->pend = -1;
    sy->npendg = 0;
    for (s = m->blocks[sy->progs[prog]].head; s >= 0 && !sy->stop; s = m->stmts[s].next) {
        if (!(m->stmts[s].kind == PTO_ST_OP && pto__sy_issync(m->stmts[s].op))) pto__sy_collect(sy, st);
        pto__sy_stmt(sy, s, st);
    }
    for (f = 0; f < PTO__SY_NFL && !sy->stop; f++) {
        int32_t key = st->fkey[f];
        if (!(st->fused & ((uint64_t)1 << f))) continue;
        if (key < PTO__SY_REAL)
            pto_error(sy->ctx, m->kernels[sy->kernel].loc, "sync: event id %s -> %s %d may be left set at kernel end",
                      pto_pipe_name((pto_pipe)(key / 64)), pto_pipe_name((pto_pipe)(key / 8 % 8)), (int)(key % 8));
        else
            pto_error(sy->ctx, m->kernels[sy->kernel].loc, "sync: internal: flag group %d left set at kernel end",
                      (int)((key - PTO__SY_REAL) / PTO__SY_MAXROT));
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
    }
    pto__sy_st_put(sy, st);
}

/* One analysis of the kernel: FIND orders every uncovered dependency as it
   meets it; CHECK reports one as an internal error. */
static void pto__sy_analyse(pto__sy *sy, int mode)
{
    int32_t k;
    if (!pto__sy_tables(sy) || !pto__sy_programs(sy)) return;
    pto_free(sy->ctx, sy->tstart);
    pto_free(sy->ctx, sy->tend);
    sy->n_tt = sy->m->n_stmts;
    sy->tstart = (uint32_t *)pto__sy_zalloc(sy, sizeof(uint32_t) * ((size_t)sy->n_tt + 1));
    sy->tend = (uint32_t *)pto__sy_zalloc(sy, sizeof(uint32_t) * ((size_t)sy->n_tt + 1));
    pto_free(sy->ctx, sy->idc);
    pto_free(sy->ctx, sy->uidc);
    sy->idc = sy->uidc = NULL;   /* pto__sy_idc_of makes them */
    sy->n_idc = sy->cap_idc = 0;
    if (!sy->tstart || !sy->tend) return;
    sy->mode = mode;
    sy->found = 0;
    sy->now = 0;
    sy->stats.rounds++;
    sy->nkeys = PTO__SY_REAL + (mode == PTO__SY_FIND ? PTO__SY_MAXROT * sy->n_grps : 0);
    for (k = 0; k < sy->nprogs && !sy->stop; k++) pto__sy_run(sy, k);
}

/* ---- insertion ------------------------------------------------------------------- */

/* Placed statements, their operands and their id expressions are written
   straight into the module's arrays (each grows by doubling, as
   PTO__PUSH does): the builders of ir.c would zero each element and then
   set it field by field, and a kernel gets a few of them per access. */
static int pto__sy_room_to(pto__sy *sy, void **p, size_t esz, int32_t n, int32_t *cap, int32_t more)
{
    void *q;
    int32_t ncap;
    if (*cap > INT32_MAX / 2 - more) return 0;
    ncap = *cap * 2 > n + more ? *cap * 2 : n + more + 16;
    if (!(q = pto_realloc(sy->ctx, *p, (size_t)ncap * esz))) return 0;
    *p = q;
    *cap = ncap;
    return 1;
}

static inline int pto__sy_room(pto__sy *sy, void **p, size_t esz, int32_t n, int32_t *cap, int32_t more)
{
    return n + more <= *cap || pto__sy_room_to(sy, p, esz, n, cap, more);
}

static int32_t pto__sy_new_expr(pto__sy *sy, uint8_t kind, int32_t a, int32_t b, int64_t v, pto_loc loc)
{
    pto_module *m = sy->m;
    pto_expr *x;
    if (!pto__sy_room(sy, (void **)&m->exprs, sizeof *m->exprs, m->n_exprs, &m->cap_exprs, 1)) return -1;
    x = &m->exprs[m->n_exprs];
    memset(x, 0, sizeof *x);   /* padding too: the module's arrays are zeroed where they grow */
    x->kind = kind;
    x->a = a;
    x->b = b;
    x->value = v;
    x->loc = loc;
    return m->n_exprs++;
}

/* Operands [pipe p, pipe q, INT e] (q < 0: only [pipe p]); returns the first. */
static int32_t pto__sy_operands(pto__sy *sy, int p, int q, int32_t e, pto_loc loc)
{
    pto_module *m = sy->m;
    pto_operand *o;
    int32_t n = q < 0 ? 1 : 3;
    if (!pto__sy_room(sy, (void **)&m->operands, sizeof *m->operands, m->n_operands, &m->cap_operands, n)) return -1;
    o = &m->operands[m->n_operands];
    o[0] = sy->opnd_tpl;   /* zero but for the -1s, padding too */
    o[0].kind = PTO_O_PIPE;
    o[0].ref = p;
    o[0].loc = loc;
    if (n == 3) {
        o[1] = o[0];
        o[1].ref = q;
        o[2] = o[0];
        o[2].kind = PTO_O_INT;
        o[2].ref = -1;
        o[2].e[0] = e;
    }
    m->n_operands += n;
    return m->n_operands - n;
}

/* ((i - start) / step) % M of loop L (the division only when step is not
   1): the same tree for every group of the loop that rotates M ids, built
   once and shared (nothing writes it: the colouring changes only each
   group's base, and a degraded rotation gets the tree of its new M). */
static int32_t pto__sy_rotexpr(pto__sy *sy, int32_t L, int32_t M)
{
    pto_module *m = sy->m;
    pto_loc loc = m->stmts[L].loc;
    int32_t c = L & 15, e, step;
    if (sy->iter_loop[c] != L + 1) {
        e = pto__sy_new_expr(sy, PTO_E_VAR, m->stmts[L].ref, -1, 0, loc);
        e = e < 0 ? -1 : pto__sy_new_expr(sy, PTO_E_SUB, e, m->stmts[L].e[0], 0, loc);
        step = m->stmts[L].e[2];
        if (e >= 0 && step >= 0 && !pto__sy_is_int(m, step, 1)) e = pto__sy_new_expr(sy, PTO_E_DIV, e, step, 0, loc);
        if (e < 0) return -1;
        sy->iter_loop[c] = L + 1;
        sy->iter_e[c] = e + 1;
        memset(sy->iter_mod[c], 0, sizeof sy->iter_mod[c]);
    }
    if (M < 1 || M > PTO__SY_MAXROT) return -1;
    if (!sy->iter_mod[c][M]) {
        e = pto__sy_new_expr(sy, PTO_E_INT, -1, -1, M, loc);
        e = e < 0 ? -1 : pto__sy_new_expr(sy, PTO_E_MOD, sy->iter_e[c] - 1, e, 0, loc);
        if (e < 0) return -1;
        sy->iter_mod[c][M] = e + 1;
    }
    return sy->iter_mod[c][M] - 1;
}

/* A group's event id: INT base, or base + rotation (*erot: that ADD node,
   whose rotation a degrade replaces; *ebase: the INT the colouring sets). */
static int32_t pto__sy_idexpr(pto__sy *sy, int32_t L, int64_t base, int32_t nids, int32_t *ebase, int32_t *erot)
{
    int32_t r;
    *erot = -1;
    *ebase = pto__sy_new_expr(sy, PTO_E_INT, -1, -1, base, L >= 0 ? sy->m->stmts[L].loc : *pto__sy_noloc());
    if (L < 0 || nids <= 1 || *ebase < 0) return *ebase;
    if ((r = pto__sy_rotexpr(sy, L, nids)) < 0) return -1;
    *erot = pto__sy_new_expr(sy, PTO_E_ADD, *ebase, r, 0, sy->m->stmts[L].loc);
    return *erot;
}

/* A new sync statement placed before (after = 0) or after `at`. `like`: an
   entry of the same group whose event id is the same expression (set and
   wait; prime and drain of one id): its operands are shared (nothing
   writes an operand after this pass, and every reader goes through arg0),
   as are those of the barriers of one pipe. `ebase` >= 0: the id is that
   INT (a rotating group's prime of id 0 is its base). */
static int32_t pto__sy_emit(pto__sy *sy, int32_t g, uint8_t role, int32_t at, int after, int32_t k, int32_t like,
                            int32_t ebase)
{
    pto_module *m = sy->m;
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t erot = -1, arg0, nargs = 3, s, en;
    pto_stmt *st;
    const pto_loc loc = m->stmts[at].loc;
    if (role == PTO__SY_BARRIER) {
        nargs = 1;
        if (!sy->bar_arg[gr->dst]) {
            if ((arg0 = pto__sy_operands(sy, gr->dst, -1, -1, loc)) < 0) return -1;
            sy->bar_arg[gr->dst] = arg0 + 1;
        }
        arg0 = sy->bar_arg[gr->dst] - 1;
    } else if (like >= 0) {
        ebase = sy->ents[like].ebase;
        erot = sy->ents[like].emod;
        arg0 = m->stmts[sy->ents[like].stmt].arg0;
    } else {
        int rot = (role == PTO__SY_WAIT || role == PTO__SY_SET) && gr->kind == PTO__SY_LOOP;
        int32_t expr = ebase;
        if (expr < 0)
            expr = pto__sy_idexpr(sy, rot ? gr->loop : -1,
                                  (int64_t)PTO__SY_VBASE + (int64_t)PTO__SY_MAXROT * g + (k > 0 ? k : 0),
                                  rot ? gr->nids : 1, &ebase, &erot);
        if (expr < 0 || (arg0 = pto__sy_operands(sy, gr->src, gr->dst, expr, loc)) < 0) return -1;
    }
    if (!pto__sy_room(sy, (void **)&m->stmts, sizeof *m->stmts, m->n_stmts, &m->cap_stmts, 1)) return -1;
    s = m->n_stmts++;
    st = &m->stmts[s];
    *st = sy->stmt_tpl;   /* an op of this pass, no links yet; padding zero */
    st->op = (uint16_t)(role == PTO__SY_BARRIER ? PTO_OP_PIPE_BARRIER
                        : role == PTO__SY_SET || role == PTO__SY_PRIME ? PTO_OP_SET_FLAG : PTO_OP_WAIT_FLAG);
    st->core = m->stmts[at].core;
    st->arg0 = arg0;
    st->nargs = nargs;
    /* the notes come after the analysis (pto__sy_notes), but for the
       fallback's barriers */
    st->note = !sy->noted ? 0 : role == PTO__SY_PRIME ? gr->pnote : role == PTO__SY_DRAIN ? gr->dnote : gr->note;
    st->loc = loc;
    if (after) pto_insert_after(m, at, s);
    else pto_insert_before(m, at, s);
    if (!pto__sy_grow(sy, (void **)&sy->ents, sizeof *sy->ents, &sy->cap_ents, sy->n_ents + 1)) return -1;
    en = sy->n_ents++;
    memset(&sy->ents[en], 0, sizeof sy->ents[en]);   /* fields not set here start at 0 */
    sy->ents[en].stmt = s;
    sy->ents[en].grp = g;
    sy->ents[en].ebase = ebase;
    sy->ents[en].emod = erot;
    sy->ents[en].k = k;
    sy->ents[en].role = role;
    return s;
}

/* The rotation for a dependency carried by loop L: the number of iterations
   D until the conflicting bytes recur (slots of L's xN tiles rotate with the
   phase; other tiles may be in any slot), capped by the tiles' N. */
static int32_t pto__sy_rotation(pto__sy *sy, int32_t L, int32_t ra, int32_t rb)
{
    const pto_module *m = sy->m;
    int32_t oa = sy->recs[ra].opnd, ob = sy->recs[rb].opnd;
    int32_t r0a = sy->rec_of[oa], r0b = sy->rec_of[ob], na = 1, nb = 1, ta = -1, tb = -1, d, ph, i, j, nmax = 1;
    int rota = 0, rotb = 0;
    int64_t per;
    if (m->operands[oa].kind == PTO_O_TILE) { ta = m->operands[oa].ref; na = m->tiles[ta].nbuf; rota = sy->tile_loop[ta] == L && na > 1; }
    if (m->operands[ob].kind == PTO_O_TILE) { tb = m->operands[ob].ref; nb = m->tiles[tb].nbuf; rotb = sy->tile_loop[tb] == L && nb > 1; }
    if (rota && na > nmax) nmax = na;
    if (rotb && nb > nmax) nmax = nb;
    if (nmax == 1) return 1;
    per = pto__sy_lcm(rota ? na : 1, rotb ? nb : 1);
    for (d = 1; d < nmax; d++)
        for (ph = 0; ph < per; ph++) {
            /* a rotating side is in one slot at phase ph (the other side d
               iterations later); the other is in any */
            int32_t i0 = rota ? ph % na : 0, i1 = rota ? i0 + 1 : na;
            int32_t j0 = rotb ? (ph + d) % nb : 0, j1 = rotb ? j0 + 1 : nb;
            for (i = i0; i < i1; i++)
                for (j = j0; j < j1; j++)
                    if (pto__sy_conflict(sy, r0a + i, r0b + j)) return d;
        }
    return nmax;
}

static int32_t pto__sy_new_group(pto__sy *sy, uint8_t kind, int src, int dst, int32_t L, int32_t nids, int carried)
{
    int32_t g = PTO__PUSH_FAST(sy, grps);
    pto__sy_grp *gr;
    if (g < 0) return -1;
    gr = &sy->grps[g];
    gr->kind = kind;
    gr->src = (uint8_t)src;
    gr->dst = (uint8_t)dst;
    gr->loop = L;
    gr->anchor = gr->dafter = L;
    gr->nids = nids;
    gr->base = -1;
    gr->arec = sy->h_rec;
    gr->bstmt = sy->h_bstmt;
    gr->bopnd = sy->h_bopnd;
    gr->note = 0;   /* pto__sy_notes */
    gr->pb = -1;
    gr->pnote = gr->dnote = 0;
    gr->e0 = sy->n_ents;
    gr->ne = 0;
    gr->brec = sy->h_brec;
    gr->carried = (uint8_t)carried;
    return g;
}

/* Bytes [*lo, *hi) of every slot of operand o's records (its tile's). */
static void pto__sy_opnd_span(const pto__sy *sy, int32_t o, int64_t *lo, int64_t *hi)
{
    const pto_operand *op = &sy->m->operands[o];
    int32_t r0 = sy->rec_of[o], n = 1, k;
    if (op->kind == PTO_O_TILE && op->ref >= 0 && op->ref < sy->m->n_tiles) n = pto__sy_slots(&sy->m->tiles[op->ref]);
    for (k = 0; k < n; k++) {
        if (sy->recs[r0 + k].lo < *lo) *lo = sy->recs[r0 + k].lo;
        if (sy->recs[r0 + k].hi > *hi) *hi = sy->recs[r0 + k].hi;
    }
}

/* Whether no op of block b's statements (their bodies too), statement
   skip's subtree aside, touches bytes [lo, hi) of space sp. At most
   *budget statements are looked at (then: "touched", the pair stays where
   it is), so a long outer loop around many inner ones costs no more than
   a bounded walk per pair. */
static int pto__sy_untouched(const pto__sy *sy, int32_t b, int32_t skip, int sp, int64_t lo, int64_t hi, int32_t *budget)
{
    const pto_module *m = sy->m;
    int32_t s, i;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *x = &m->stmts[s];
        if (s == skip) continue;
        if (--*budget < 0) return 0;
        if (x->kind == PTO_ST_OP && s < sy->s0 && !pto__sy_issync(x->op))
            for (i = 0; i < x->nargs; i++) {
                int32_t o = x->arg0 + i;
                int64_t l = INT64_MAX, h = INT64_MIN;
                if (sy->rec_of[o] < 0 || sy->recs[sy->rec_of[o]].space != sp) continue;
                pto__sy_opnd_span(sy, o, &l, &h);
                if (l < hi && lo < h) return 0;
            }
        if (x->body >= 0 && !pto__sy_untouched(sy, x->body, skip, sp, lo, hi, budget)) return 0;
        if (x->orelse >= 0 && !pto__sy_untouched(sy, x->orelse, skip, sp, lo, hi, budget)) return 0;
    }
    return 1;
}

/* Where a carried pair of loop L (the dependency found: h_rec -> h_brec)
   puts its primes and drains. Around L, they prime and drain once per run
   of L: inside an outer loop O, the producer pipe then waits at every
   iteration of O for the last consumer of the run before (the pipeline
   empties there). Around O instead, each id alternates set, wait, set,
   ..., wait over the whole nest whatever the trip counts (every use of a
   slot waits its id, then sets it), and a run of L waits for the previous
   run's last set of the slot: the same dependency. So they move out
   through each loop O around L (L the only statement of O's body that
   touches the dependency's bytes, any slot; local bytes only) and the
   analysis of O orders the rest. */
static int32_t pto__sy_anchor(pto__sy *sy, int32_t L)
{
    const pto_module *m = sy->m;
    const pto__sy_rec *a = &sy->recs[sy->h_rec];
    int32_t A = L, O, budget = 4096;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    if (a->space == PTO_GM || sy->recs[sy->h_brec].space != a->space) return L;
    pto__sy_opnd_span(sy, a->opnd, &lo, &hi);
    pto__sy_opnd_span(sy, sy->recs[sy->h_brec].opnd, &lo, &hi);
    while ((O = pto__sy_up(m, A)) >= 0 && m->stmts[O].kind == PTO_ST_FOR
           && pto__sy_untouched(sy, m->stmts[O].body, A, a->space, lo, hi, &budget))
        A = O;
    return A;
}

/* The bytes a pipe's accesses in a subtree touch: up to 16 local byte
   ranges (past them, the hull of the last one grows), and the GM tensors
   (by param; `gm_all` past 8 of them). A hull of a whole loop would
   cover the next loop's tiles planned between its tiles. */
typedef struct pto__sy_foot {
    int64_t lo[16], hi[16];
    uint8_t sp[16];
    int n;
    uint8_t all;                /* spaces wholly in it (past 16 ranges) */
    int32_t gm[8];
    int ngm, gm_all;
} pto__sy_foot;

static void pto__sy_foot_range(pto__sy_foot *f, int sp, int64_t lo, int64_t hi)
{
    int i;
    for (i = 0; i < f->n; i++)
        if (f->sp[i] == sp && lo <= f->hi[i] && f->lo[i] <= hi) break;   /* overlapping or adjacent */
    if (i == f->n) {
        if (f->n < 16) {
            f->sp[f->n] = (uint8_t)sp;
            f->lo[f->n] = lo;
            f->hi[f->n++] = hi;
            return;
        }
        for (i = f->n - 1; i >= 0 && f->sp[i] != sp; i--) continue;   /* full: widen one of the space */
        if (i < 0) { f->all |= (uint8_t)(1u << sp); return; }
    }
    if (lo < f->lo[i]) f->lo[i] = lo;
    if (hi > f->hi[i]) f->hi[i] = hi;
}

static void pto__sy_foot_add(const pto__sy *sy, pto__sy_foot *f, int32_t o)
{
    const pto__sy_rec *r = &sy->recs[sy->rec_of[o]];
    int64_t l = INT64_MAX, h = INT64_MIN;
    int i;
    if (r->space == PTO_GM) {
        int32_t ref = sy->m->operands[o].ref;
        for (i = 0; i < f->ngm && f->gm[i] != ref; i++) continue;
        if (i == f->ngm) {
            if (f->ngm < 8) f->gm[f->ngm++] = ref;
            else f->gm_all = 1;
        }
        return;
    }
    pto__sy_opnd_span(sy, o, &l, &h);
    pto__sy_foot_range(f, r->space, l, h);
}

/* Operand o (with a record) touches what foot holds. */
static int pto__sy_foot_hits(const pto__sy *sy, const pto__sy_foot *f, int32_t o)
{
    const pto__sy_rec *r = &sy->recs[sy->rec_of[o]];
    int64_t l = INT64_MAX, h = INT64_MIN;
    int i;
    if (r->space == PTO_GM) {
        if (f->gm_all) return 1;
        for (i = 0; i < f->ngm; i++)
            if (f->gm[i] == sy->m->operands[o].ref) return 1;
        return 0;
    }
    if (f->all & (1u << r->space)) return 1;
    pto__sy_opnd_span(sy, o, &l, &h);
    for (i = 0; i < f->n; i++)
        if (f->sp[i] == r->space && l < f->hi[i] && f->lo[i] < h) return 1;
    return 0;
}

/* Walks block b (bodies too): mode 0 adds pipe p's accesses to *f; mode 1
   says whether an access of another pipe touches *f, or one of any pipe
   the bytes in *dep. At most *budget statements. */
static int pto__sy_foot_walk(const pto__sy *sy, int32_t b, int p, int q, pto__sy_foot *f, const pto__sy_foot *dep,
                             int mode, int32_t *budget)
{
    const pto_module *m = sy->m;
    int32_t s, i;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *x = &m->stmts[s];
        if (--*budget < 0) return 1;
        if (x->kind == PTO_ST_OP && s < sy->s0 && !pto__sy_issync(x->op))
            for (i = 0; i < x->nargs; i++) {
                int32_t o = x->arg0 + i;
                if (sy->rec_of[o] < 0) continue;
                if (mode == 0 && sy->recs[sy->rec_of[o]].pipe == p) pto__sy_foot_add(sy, f, o);
                if (mode == 1 && ((sy->recs[sy->rec_of[o]].pipe == q && pto__sy_foot_hits(sy, f, o))
                                  || pto__sy_foot_hits(sy, dep, o)))
                    return 1;
            }
        if (x->body >= 0 && pto__sy_foot_walk(sy, x->body, p, q, f, dep, mode, budget)) return 1;
        if (x->orelse >= 0 && pto__sy_foot_walk(sy, x->orelse, p, q, f, dep, mode, budget)) return 1;
    }
    return 0;
}

/* Where the drains of a carried pair (producer pipe p) anchored at A go:
   after A, or further down A's block. A drain is a wait_flag on the
   consumer pipe, whose queue is in order: right after A it holds every
   later instruction of that pipe until the producer's last set of the
   run, so the next loop's loads cannot start under this loop's last
   compute (a two-pass kernel lost ~7% at its one boundary); further down
   it holds only what comes after it. The drain orders more than the
   dependency: its set captured every record of p. So it passes only
   statements whose accesses on other pipes touch nothing p accesses in A
   (bytes per space, GM tensors) and none of which touches the dependency's
   bytes; at most one loop (a loop passed keeps the pair's ids busy
   longer: colouring pressure); a bounded walk. What it still ordered
   there (a record of p from before A, through a chain) a later access
   finds unordered and gets its own pair. */
static int32_t pto__sy_sink(pto__sy *sy, int32_t A, int p, int q, const pto__sy_foot *dep)
{
    const pto_module *m = sy->m;
    pto__sy_foot f;
    int32_t s, at = A, budget = 4096, loops = 0, i;
    memset(&f, 0, sizeof f);
    if (m->stmts[A].body < 0 || pto__sy_foot_walk(sy, m->stmts[A].body, p, q, &f, dep, 0, &budget)) return A;
    for (s = m->stmts[A].next; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *x = &m->stmts[s];
        int stop = 0;
        if (x->kind == PTO_ST_SECTION) break;
        if (x->kind == PTO_ST_OP && x->op == PTO_OP_PIPE_BARRIER && s < sy->s0 && x->nargs == 1
            && m->operands[x->arg0].ref == PTO_PIPE_ALL)
            break;   /* a fence (lower's, before a notify): every pipe waits there anyway */
        if (x->kind == PTO_ST_OP && (s >= sy->s0 || pto__sy_issync(x->op))) continue;   /* not a place */
        if (x->kind == PTO_ST_FOR && ++loops > 1) break;
        if (x->kind == PTO_ST_OP)
            for (i = 0; i < x->nargs && !stop; i++) {
                int32_t o = x->arg0 + i;
                if (sy->rec_of[o] < 0) continue;
                stop = (sy->recs[sy->rec_of[o]].pipe == q && pto__sy_foot_hits(sy, &f, o)) || pto__sy_foot_hits(sy, dep, o);
            }
        if (!stop && x->body >= 0) stop = pto__sy_foot_walk(sy, x->body, p, q, &f, dep, 1, &budget);
        if (!stop && x->orelse >= 0) stop = pto__sy_foot_walk(sy, x->orelse, p, q, &f, dep, 1, &budget);
        if (stop || --budget < 0) break;
        if (x->kind != PTO_ST_TILE && x->kind != PTO_ST_LET) at = s;   /* only past work */
    }
    return at;
}

/* Orders the dependency the last FIND analysis reported. */
static pto_status pto__sy_place(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t a = sy->recs[sy->h_rec].stmt, b = sy->h_bstmt, pa, pb, L = -1, as, bs, g, k, M = 1, kent[PTO__SY_MAXROT], s;
    int p = sy->recs[sy->h_rec].pipe, q = sy->recs[sy->h_brec].pipe, ok = 1;   /* h_brec is b's */
    pto__sy_lca(sy, a, b, &pa, &pb);
    if (!sy->h_fwd) {
        L = pto_stmt_loop(m, pa);
        if (L < 0) {
            pto_error(sy->ctx, m->stmts[b].loc, "sync: internal: a backward dependency outside any loop");
            return PTO_ERR_INTERNAL;
        }
        pa = pto__sy_in_block(m, a, m->stmts[L].body);
        pb = pto__sy_in_block(m, b, m->stmts[L].body);
    }
    if (p == q) {
        g = pto__sy_new_group(sy, PTO__SY_BAR, p, q, -1, 0, !sy->h_fwd);
        if (g < 0 || pto__sy_emit(sy, g, PTO__SY_BARRIER, pb, 0, -1, -1, -1) < 0) return PTO_ERR_INTERNAL;
        sy->stats.barriers++;
        return PTO_OK;
    }
    if (!sy->h_fwd) M = pto__sy_rotation(sy, L, sy->h_rec, sy->h_brec);
    g = pto__sy_new_group(sy, sy->h_fwd ? PTO__SY_FWD : PTO__SY_LOOP, p, q, L, M, !sy->h_fwd);
    if (g < 0) return PTO_ERR_INTERNAL;
    as = pto__sy_emit(sy, g, PTO__SY_SET, pa, 1, -1, -1, -1);
    bs = as >= 0 ? pto__sy_emit(sy, g, PTO__SY_WAIT, pb, 0, -1, sy->n_ents - 1, -1) : -1;
    ok = as >= 0 && bs >= 0;
    if (L >= 0) {
        const pto__sy_rec *ra = &sy->recs[sy->h_rec];
        sy->grps[g].anchor = pto__sy_anchor(sy, L);
        sy->grps[g].dafter = sy->grps[g].anchor;
        if (ra->space != PTO_GM && sy->recs[sy->h_brec].space == ra->space) {
            pto__sy_foot dep;
            memset(&dep, 0, sizeof dep);
            pto__sy_foot_add(sy, &dep, ra->opnd);
            pto__sy_foot_add(sy, &dep, sy->recs[sy->h_brec].opnd);
            sy->grps[g].dafter = pto__sy_sink(sy, sy->grps[g].anchor, p, q, &dep);
        }
    }
    for (k = 0; k < PTO__SY_MAXROT; k++) kent[k] = -1;
    /* one id: the prime and drain use the set's id expression (the same
       virtual id, the same colour, and no rotation to degrade) */
    if (ok && M == 1) kent[0] = sy->n_ents - 2;
    for (k = 0; ok && L >= 0 && k < M; k++) {
        int32_t kd = M - 1 - k;
        /* a rotation's id 0 is its base: the set's INT */
        ok = pto__sy_emit(sy, g, PTO__SY_PRIME, sy->grps[g].anchor, 0, k, k < PTO__SY_MAXROT ? kent[k] : -1,
                          k == 0 && M > 1 ? sy->ents[sy->grps[g].e0].ebase : -1) >= 0;
        if (ok && k < PTO__SY_MAXROT && kent[k] < 0) kent[k] = sy->n_ents - 1;
        ok = ok && (s = pto__sy_emit(sy, g, PTO__SY_DRAIN, sy->grps[g].dafter, 1, kd, kd < PTO__SY_MAXROT ? kent[kd] : -1,
                                     kd == 0 && M > 1 ? sy->ents[sy->grps[g].e0].ebase : -1)) >= 0;
        if (ok) m->stmts[s].loc = m->stmts[sy->grps[g].anchor].loc;   /* named by its loop's line */
        if (ok && kd < PTO__SY_MAXROT && kent[kd] < 0) kent[kd] = sy->n_ents - 1;
    }
    return ok ? PTO_OK : PTO_ERR_INTERNAL;
}

/* ---- event ids ------------------------------------------------------------------- */

static int32_t pto__sy_limit(const pto__sy *sy, int src, int dst)
{
    int32_t lim = sy->ids_per_pair;
    /* hardware.md s4: M -> FIX deadlocked with ids 3..7 on one device */
    if (src == PTO_PIPE_M && dst == PTO_PIPE_FIX && lim > 3) lim = 3;
    return lim;
}

static void pto__sy_unlink_ent(pto__sy *sy, int32_t e)
{
    if (sy->ents[e].stmt < 0) return;
    pto_unlink(sy->m, sy->ents[e].stmt);
    sy->ents[e].stmt = -1;
}

static const char *pto__sy_opname(const pto__sy *sy, int32_t o)
{
    const pto_operand *op = &sy->m->operands[o];
    if (op->kind == PTO_O_TILE) return pto_str(sy->ctx, sy->m->tiles[op->ref].name);
    if (op->kind == PTO_O_GM) return pto_str(sy->ctx, sy->m->params[op->ref].name);
    return "?";
}

/* "tile t8" or "tiles a and b" (tiles that share bytes after reuse). */
static void pto__sy_tiles(const pto__sy *sy, const pto__sy_grp *gr, char *buf, size_t n)
{
    const char *a = pto__sy_opname(sy, sy->recs[gr->arec].opnd), *b = pto__sy_opname(sy, gr->bopnd);
    const char *what = sy->m->operands[gr->bopnd].kind == PTO_O_GM ? "tensor" : "tile";
    if (strcmp(a, b) == 0) snprintf(buf, n, "%s %s", what, a);
    else snprintf(buf, n, "%ss %s and %s", what, a, b);
}

static void pto__sy_degrade(pto__sy *sy, int32_t g, int32_t M)
{
    pto__sy_grp *gr = &sy->grps[g];
    int32_t e, rot = -1;
    char tiles[160];
    pto__sy_tiles(sy, gr, tiles, sizeof tiles);
    pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                "sync: out of event ids for %s -> %s: %d ids rotate instead of %d for %s: %s",
                pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), (int)M, (int)gr->nids, tiles,
                pto_str(sy->ctx, gr->note));
    for (e = 0; e < sy->n_ents; e++) {
        if (sy->ents[e].grp != g || sy->ents[e].stmt < 0) continue;
        if (sy->ents[e].emod >= 0) {   /* base + the loop's rotation by M (the old one is shared) */
            if (rot < 0 && (rot = pto__sy_rotexpr(sy, gr->loop, M)) < 0) {
                pto__sy_fail(sy, PTO_ERR_INTERNAL);
                return;
            }
            sy->m->exprs[sy->ents[e].emod].b = rot;
        }
        if (sy->ents[e].k >= M) pto__sy_unlink_ent(sy, e);
    }
    gr->nids = M;
    sy->stats.degraded++;
}

/* No ids left at all: a PIPE_ALL barrier where the wait was (and after the
   loop for a carried dependency) orders everything the pair ordered. */
static pto_status pto__sy_fallback(pto__sy *sy, int32_t g)
{
    pto__sy_grp *gr = &sy->grps[g];
    int32_t e, n = sy->n_ents;
    char tiles[160];
    pto__sy_tiles(sy, gr, tiles, sizeof tiles);
    pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                "sync: out of event ids for %s -> %s: PIPE_ALL barrier instead of a flag pair for %s: %s",
                pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), tiles, pto_str(sy->ctx, gr->note));
    gr->note = pto__sy_prefixed(sy, "PIPE_ALL (out of event ids): ", gr->note);
    gr->dst = PTO_PIPE_ALL;
    for (e = 0; e < n; e++) {
        int32_t s = sy->ents[e].stmt;
        if (sy->ents[e].grp != g || s < 0) continue;
        if (sy->ents[e].role == PTO__SY_WAIT && pto__sy_emit(sy, g, PTO__SY_BARRIER, s, 0, -1, -1, -1) < 0)
            return PTO_ERR_INTERNAL;
        if (sy->ents[e].role == PTO__SY_DRAIN && sy->ents[e].k == 0
            && pto__sy_emit(sy, g, PTO__SY_BARRIER, s, 1, -1, -1, -1) < 0)
            return PTO_ERR_INTERNAL;
    }
    for (e = 0; e < n; e++)   /* the pair's own statements, not the new barriers */
        if (sy->ents[e].grp == g) pto__sy_unlink_ent(sy, e);
    sy->stats.fallbacks++;
    return PTO_OK;
}

/* The set and wait statements of a one-id group (-1 when it has none left). */
static void pto__sy_ends(const pto__sy *sy, int32_t g, int32_t *set, int32_t *wait)
{
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t e;
    *set = *wait = -1;
    for (e = gr->e0; e < gr->e0 + gr->ne; e++) {
        if (sy->ents[e].stmt < 0) continue;
        if (sy->ents[e].role == PTO__SY_SET) *set = sy->ents[e].stmt;
        if (sy->ents[e].role == PTO__SY_WAIT) *wait = sy->ents[e].stmt;
    }
}

/* Ids already used by sync statements this run did not make are reserved
   for the whole kernel. */
static void pto__sy_reserved(pto__sy *sy, uint8_t used[8][8])
{
    const pto_module *m = sy->m;
    int32_t s;
    memset(used, 0, 64);
    for (s = 0; sy->user_flags && s < sy->s0 && s < m->n_stmts; s++) {   /* from s0 on: this run's */
        const pto_operand *a, *b, *c;
        int64_t base, mod, i;
        int32_t L;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0) continue;
        if (m->blocks[m->stmts[s].block].kernel != sy->kernel) continue;
        if (m->stmts[s].op != PTO_OP_SET_FLAG && m->stmts[s].op != PTO_OP_WAIT_FLAG) continue;
        a = pto_stmt_arg(m, s, 0);
        b = pto_stmt_arg(m, s, 1);
        c = pto_stmt_arg(m, s, 2);
        if (!a || !b || !c || a->ref < 0 || a->ref > 7 || b->ref < 0 || b->ref > 7) continue;
        if (!pto__sy_idform(m, c->e[0], &base, &mod, &L)) continue;
        for (i = base; i < base + mod; i++)
            if (i >= 0 && i < 8) used[a->ref][b->ref] |= (uint8_t)(1u << i);
    }
}

static int32_t pto__sy_first_free(const int32_t *busy, uint8_t used, int32_t lo, int32_t M, int32_t lim)
{
    int32_t b, i;
    for (b = 0; b + M <= lim; b++) {
        for (i = b; i < b + M; i++)
            if ((used & (1u << i)) || busy[i] >= lo) break;
        if (i == b + M) return b;
    }
    return -1;
}

/* No id is free for forward group g where its set is: the set may move
   later in its block, up to its wait, and an id may free up on the way (a
   wait of another pair of the same pipes ends that pair's lifetime). The
   set then goes right before the first statement where one is free: a set
   on p captures everything issued on p before it (and what is known to
   happen before p), so a later set still orders g's source and captures
   only more; g's wait, where the consumer blocks, does not move. The usual case: more loads in
   flight than ids, each with its own consumer further down. Returns the id
   base, or -1 when none frees up before the wait. */
static int32_t pto__sy_delay_set(pto__sy *sy, int32_t g, const int32_t *busy, uint8_t used, int32_t lim)
{
    pto_module *m = sy->m;
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t sg, wg, s, base;
    if (gr->kind != PTO__SY_FWD || gr->nids != 1) return -1;
    pto__sy_ends(sy, g, &sg, &wg);
    if (sg < 0 || wg < 0 || m->stmts[sg].block != m->stmts[wg].block) return -1;
    for (s = m->stmts[sg].next; s >= 0 && s != wg; s = m->stmts[s].next) {
        if (s >= sy->n_pos) continue;   /* a fallback's barrier, added after the numbering */
        if ((base = pto__sy_first_free(busy, used, sy->pos[s], 1, lim)) < 0) continue;
        pto_unlink(m, sg);
        pto_insert_before(m, s, sg);
        sy->stats.delayed++;
        return base;
    }
    return -1;
}

/* Statement a comes before statement b in their block. */
static int pto__sy_before(const pto_module *m, int32_t a, int32_t b)
{
    int32_t s;
    for (s = m->stmts[a].next; s >= 0; s = m->stmts[s].next)
        if (s == b) return 1;
    return 0;
}

/* No id for group g (forward with one id, or carried by a loop): rather
   than a PIPE_ALL barrier, it shares the pair of an earlier group h of the
   same pipes (and loop, and rotation M) whose set and wait come before
   g's, each pair in one block: h's set moves right after g's, so it
   captures g's source too, and g's consumer comes after h's wait on the
   destination pipe (in the same iteration for a forward pair; for a
   carried pair M iterations later, as g's own wait would: h's set of
   iteration i - M now follows g's source of that iteration, and its prime
   and drain sit where g's did). A set moved later captures only more, so
   what h ordered stays ordered, and h's id lifetime does not grow. Of the
   candidates, the one whose wait is latest: its consumer loses least by
   waiting for more. A rotating carried group tries this before its
   rotation degrades: the fused kernel that loads more x2 inputs than a
   pipe pair has ids for keeps its double buffering. Returns 0 when none
   fits. */
static int pto__sy_share(pto__sy *sy, int32_t g)
{
    pto_module *m = sy->m;
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t sg, wg, h, best = -1, bset = -1, bwait = -1, e;
    if (gr->kind != PTO__SY_LOOP && (gr->kind != PTO__SY_FWD || gr->nids != 1)) return 0;
    pto__sy_ends(sy, g, &sg, &wg);
    if (sg < 0 || wg < 0) return 0;
    for (h = 0; h < sy->n_grps; h++) {
        const pto__sy_grp *hr = &sy->grps[h];
        int32_t sh, wh;
        if (h == g || hr->kind != gr->kind || hr->nids != gr->nids || hr->base < 0 || hr->src != gr->src || hr->dst != gr->dst
            || (gr->kind == PTO__SY_LOOP && (hr->loop != gr->loop || hr->anchor != gr->anchor || hr->dafter != gr->dafter)))
            continue;
        pto__sy_ends(sy, h, &sh, &wh);
        if (sh < 0 || wh < 0 || m->stmts[sh].block != m->stmts[sg].block || m->stmts[wh].block != m->stmts[wg].block)
            continue;
        if (!pto__sy_before(m, sh, sg) || !pto__sy_before(m, wh, wg)) continue;
        if (gr->kind == PTO__SY_FWD && !pto__sy_before(m, sg, wh)) continue;   /* h's set must stay before its wait */
        if (best >= 0 && !pto__sy_before(m, bwait, wh)) continue;
        best = h, bset = sh, bwait = wh;
    }
    if (best < 0 || !pto__sy_grow(sy, (void **)&sy->shr, sizeof(int32_t), &sy->cap_shr, sy->n_shr + 2)) return 0;
    sy->shr[sy->n_shr++] = g;   /* reported by pto__sy_report_shares */
    sy->shr[sy->n_shr++] = best;
    pto_unlink(m, bset);
    pto_insert_after(m, sg, bset);
    for (e = gr->e0; e < gr->e0 + gr->ne; e++) pto__sy_unlink_ent(sy, e);
    if (sy->grps[g].nids > 1) sy->stats.rotating--;
    sy->grps[g].kind = PTO__SY_DEAD;
    sy->stats.flag_pairs--;
    sy->stats.shared++;
    return 1;
}

/* One warning per pair that others share (pto__sy_share), at the first
   of them: a fused kernel with many x2 inputs would otherwise get one line
   per input and pipe pair. */
static void pto__sy_report_shares(pto__sy *sy)
{
    int32_t i, j, n;
    for (i = 0; i < sy->n_shr; i += 2) {
        const pto__sy_grp *gr = &sy->grps[sy->shr[i]], *hr;
        int32_t h = sy->shr[i + 1];
        char names[200];
        size_t len = 0;
        int cut = 0;
        if (h < 0) continue;   /* reported with an earlier one */
        hr = &sy->grps[h];
        names[0] = 0;
        for (n = 0, j = i; j < sy->n_shr; j += 2) {
            const char *t;
            if (sy->shr[j + 1] != h) continue;
            t = pto__sy_opname(sy, sy->grps[sy->shr[j]].bopnd);
            if (!cut && len + strlen(t) + 8 < sizeof names)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", n ? ", " : "", t);
            else if (!cut && (cut = 1))
                len += (size_t)snprintf(names + len, sizeof names - len, "%s...", n ? ", " : "");
            if (j > i) sy->shr[j + 1] = -1;
            n++;
        }
        if (n == 1)
            pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                        "sync: out of event ids for %s -> %s: %s shares the flag pair of %s (its set_flag moves "
                        "after this one's source)",
                        pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), pto_str(sy->ctx, gr->note),
                        pto_str(sy->ctx, hr->note));
        else
            pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                        "sync: out of event ids for %s -> %s: %d flag pairs (for %s) share the flag pair of %s (its "
                        "set_flag moves after their sources)",
                        pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), (int)n, names,
                        pto_str(sy->ctx, hr->note));
    }
    sy->n_shr = 0;
}

/* One walk of block b in program order: the positions of the final
   statements (pos, as pto__sy_number counts; pto__sy_delay_set reads
   them), each flag group's first and last position (lo, hi), and order[]
   gets the groups as their first statement is met. A placed statement s is
   entry s - s0 (pto__sy_emit makes one of each, in step). */
static int32_t pto__sy_walk(const pto__sy *sy, int32_t b, int32_t p, int32_t *lo, int32_t *hi, int32_t *order, int32_t *no)
{
    const pto_stmt *st = sy->m->stmts;
    int32_t *pos = sy->pos;
    const pto__sy_ent *ents = sy->ents;
    const pto__sy_grp *grps = sy->grps;
    uint32_t s0 = (uint32_t)sy->s0, ne = (uint32_t)sy->n_ents;
    int32_t s;
    for (s = sy->m->blocks[b].head; s >= 0; s = st[s].next, p++) {
        uint32_t e = (uint32_t)s - s0;   /* wraps for the kernel's own statements */
        pos[s] = p;
        if (e < ne && ents[e].stmt == s) {
            int32_t g = ents[e].grp;
            if (grps[g].kind != PTO__SY_BAR && grps[g].kind != PTO__SY_DEAD) {
                if (hi[g] < 0) { lo[g] = p; order[(*no)++] = g; }
                hi[g] = p;
            }
        }
        if (st[s].body >= 0) p = pto__sy_walk(sy, st[s].body, p + 1, lo, hi, order, no) - 1;
        if (st[s].orelse >= 0) p = pto__sy_walk(sy, st[s].orelse, p + 1, lo, hi, order, no) - 1;
    }
    return p;
}

/* The position of the last statement of s's subtree (pto__sy_walk's). */
static int32_t pto__sy_end_pos(const pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    for (;;) {
        int32_t ob = m->stmts[s].orelse, bb = m->stmts[s].body, t = -1;
        if (ob >= 0 && m->blocks[ob].tail >= 0) t = m->blocks[ob].tail;
        else if (bb >= 0 && m->blocks[bb].tail >= 0) t = m->blocks[bb].tail;
        if (t < 0 || t >= sy->n_pos) return sy->pos[s];
        s = t;
    }
}

/* The ids of pipe pair (src, dst) ran short for a group starting at lo:
   the drains that pto__sy_sink moved down past lo go back right after
   their anchors (where they would have been without it: the order they
   give is only earlier, and there they were deadlock-free), which frees
   their ids from there on. A kernel whose consecutive loops rotate many
   ids of one pair keeps its rotations instead of a degraded one. Returns
   whether a drain moved. */
static int pto__sy_unsink(pto__sy *sy, int src, int dst, int32_t lo, int32_t *bz, const int32_t *hi)
{
    pto_module *m = sy->m;
    int32_t h, e, j, end;
    int moved = 0;
    for (h = 0; h < sy->n_grps; h++) {
        pto__sy_grp *hr = &sy->grps[h];
        if (hr->kind != PTO__SY_LOOP || hr->base < 0 || hr->src != src || hr->dst != dst || hr->dafter == hr->anchor
            || hi[h] < lo || (end = pto__sy_end_pos(sy, hr->anchor)) >= lo)
            continue;
        for (e = hr->e0; e < hr->e0 + hr->ne; e++)   /* each right after it, as pto__sy_place put them */
            if (sy->ents[e].role == PTO__SY_DRAIN && sy->ents[e].stmt >= 0) {
                pto_unlink(m, sy->ents[e].stmt);
                pto_insert_after(m, hr->anchor, sy->ents[e].stmt);
            }
        hr->dafter = hr->anchor;
        for (j = hr->base; j < hr->base + hr->nids && j < 8; j++)
            if (bz[j] == hi[h]) bz[j] = end;
        moved = 1;
    }
    return moved;
}

/* Colours the lifetimes of the flag groups of one kernel with hardware ids,
   pair by pair, greedily in program order of their first statements
   (optimal for intervals; creation order for a group with none left). */
static pto_status pto__sy_assign(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t *lo, *hi, *order, g, e, i, j, n = 0;
    uint8_t used[8][8];
    int32_t busy[8][8][8];
    pto_status st = PTO_OK;
    pto_free(sy->ctx, sy->pos);
    sy->pos = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)m->n_stmts + 1));
    sy->n_pos = m->n_stmts;   /* statements a fallback adds later have no position */
    sy->n_dep = 0;   /* the depths are those of the analysis' statements */
    lo = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * ((size_t)sy->n_grps + 1) * 3);
    if (!lo || !sy->pos) {
        pto_free(sy->ctx, lo);
        pto_error(sy->ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
        return PTO_ERR_INTERNAL;
    }
    hi = lo + sy->n_grps + 1;
    order = hi + sy->n_grps + 1;
    for (g = 0; g < sy->n_grps; g++) hi[g] = -1;
    pto__sy_walk(sy, m->kernels[sy->kernel].body, 0, lo, hi, order, &n);
    for (g = 0; g < sy->n_grps; g++)
        if (hi[g] < 0 && sy->grps[g].kind != PTO__SY_BAR && sy->grps[g].kind != PTO__SY_DEAD) {
            lo[g] = 0x7fffffff;
            order[n++] = g;
        }
    pto__sy_reserved(sy, used);
    for (i = 0; i < 8; i++)
        for (j = 0; j < 64; j++) busy[i][j / 8][j % 8] = -1;
    for (i = 0; st == PTO_OK && i < n; i++) {
        pto__sy_grp *gr = &sy->grps[order[i]];
        int32_t lim = pto__sy_limit(sy, gr->src, gr->dst), M = gr->nids, base;
        int32_t *bz = busy[gr->src][gr->dst];
        base = pto__sy_first_free(bz, used[gr->src][gr->dst], lo[order[i]], M, lim);
        if (base < 0 && pto__sy_unsink(sy, gr->src, gr->dst, lo[order[i]], bz, hi))
            base = pto__sy_first_free(bz, used[gr->src][gr->dst], lo[order[i]], M, lim);
        if (base < 0 && M > 1 && pto__sy_share(sy, order[i])) continue;
        while (base < 0 && M > 1) {
            M = M > 2 ? 2 : 1;
            base = pto__sy_first_free(bz, used[gr->src][gr->dst], lo[order[i]], M, lim);
        }
        if (base < 0 && M == 1) base = pto__sy_delay_set(sy, order[i], bz, used[gr->src][gr->dst], lim);
        if (base < 0 && M == 1 && gr->nids == 1 && pto__sy_share(sy, order[i])) continue;
        if (base < 0) { st = pto__sy_fallback(sy, order[i]); continue; }
        if (M < gr->nids) pto__sy_degrade(sy, order[i], M);
        gr->base = base;
        for (j = base; j < base + M; j++) bz[j] = hi[order[i]];
    }
    pto__sy_report_shares(sy);
    for (e = 0; st == PTO_OK && e < sy->n_ents; e++) {
        pto__sy_ent *en = &sy->ents[e];
        if (en->stmt >= 0 && en->ebase >= 0 && sy->grps[en->grp].base >= 0)
            m->exprs[en->ebase].value = sy->grps[en->grp].base + (en->k > 0 ? en->k : 0);
    }
    pto_free(sy->ctx, lo);
    return st;
}

/* The notes of every group the analysis placed and kept, and those of
   their statements: the lengths first (labels counted once per statement;
   a group's is kept in its pnote meanwhile), then one reservation of the
   string pool and its offsets, then each note written in place at the
   pool's end and its prime / drain forms copied from it. */
static int32_t pto__sy_commit(pto__sy *sy, size_t n)
{
    pto_ctx *ctx = sy->ctx;   /* pto__str_add's tail: the text is in place */
    int32_t id = ctx->n_strs;
    ctx->str_off[id] = (int32_t)ctx->pool_len;
    ctx->pool[ctx->pool_len + n] = 0;
    ctx->pool_len += n + 1;
    ctx->str_off[id + 1] = (int32_t)ctx->pool_len;
    ctx->n_strs = id + 1;
    return id;
}

static pto_status pto__sy_notes(pto__sy *sy)
{
    pto_ctx *ctx = sy->ctx;
    size_t total = 0, n, want;
    int32_t g, e, nstr = 0;
    int k;
    static const char prefix[2][8] = {"prime: ", "drain: "};
    void *p;
    for (k = 0; k < PTO_NSPACE; k++) sy->splen[k] = (uint8_t)strlen(pto_space_name((pto_space)k));
    sy->n_lab = sy->s0;
    sy->lab_len = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_lab + 1));
    sy->lab = (int32_t *)pto_alloc(ctx, sizeof(int32_t) * ((size_t)sy->n_lab + 1));
    if (!sy->lab_len || !sy->lab) goto oom;
    for (g = 0; g < sy->n_grps; g++) {
        pto__sy_grp *gr = &sy->grps[g];
        if (gr->kind == PTO__SY_DEAD) continue;
        n = pto__sy_dep_len(sy, gr->arec, gr->brec, gr->carried);
        gr->pnote = n > PTO__SY_NOTEMAX ? -1 : (int32_t)n;
        if (n > PTO__SY_NOTEMAX) n = PTO__SY_NOTEMAX;
        total += n + 1;
        nstr++;
        if (gr->kind == PTO__SY_LOOP) {
            n = n + 7 > PTO__SY_NOTEMAX ? PTO__SY_NOTEMAX : n + 7;
            total += 2 * (n + 1);
            nstr += 2;
        }
    }
    want = ctx->pool_len + total + 1;
    if (ctx->pool_cap < want) {
        if (!(p = pto_realloc(ctx, ctx->pool, want))) goto oom;
        ctx->pool = (char *)p;
        ctx->pool_cap = want;
    }
    if (ctx->cap_strs < ctx->n_strs + nstr + 2) {
        if (ctx->n_strs + (size_t)nstr + 2 > (size_t)INT32_MAX / 2
            || !(p = pto_realloc(ctx, ctx->str_off, sizeof(int32_t) * (size_t)(ctx->n_strs + nstr + 2))))
            goto oom;
        ctx->str_off = (int32_t *)p;
        ctx->cap_strs = ctx->n_strs + nstr + 2;
    }
    for (g = 0; g < sy->n_grps; g++) {
        pto__sy_grp *gr = &sy->grps[g];
        char *w = ctx->pool + ctx->pool_len;
        if (gr->kind == PTO__SY_DEAD) continue;
        if (gr->pnote >= 0) {
            n = (size_t)(pto__sy_dep_w(sy, gr->arec, gr->brec, gr->carried, w) - w);
            if (n != (size_t)gr->pnote) {   /* the count was wrong: the pool may be overrun */
                pto_error(ctx, *pto__sy_noloc(), "sync: internal: a note of %d bytes counted as %d", (int)n, (int)gr->pnote);
                pto__sy_fail(sy, PTO_ERR_INTERNAL);
                return PTO_ERR_INTERNAL;
            }
        } else {   /* cut at 599 bytes */
            pto__sy_txt t;
            t.n = 0;
            pto__sy_dep_text(sy, gr->arec, gr->brec, gr->carried, &t);
            n = t.n;
            memcpy(w, t.d, n);
        }
        gr->note = pto__sy_commit(sy, n);
        if (gr->kind != PTO__SY_LOOP) continue;
        if (n > PTO__SY_NOTEMAX - 7) n = PTO__SY_NOTEMAX - 7;
        for (k = 0; k < 2; k++) {
            w = ctx->pool + ctx->pool_len;
            memcpy(w, prefix[k], 7);
            memcpy(w + 7, ctx->pool + ctx->str_off[gr->note], n);
            if (k == 0) gr->pnote = pto__sy_commit(sy, n + 7);
            else gr->dnote = pto__sy_commit(sy, n + 7);
        }
    }
    sy->noted = 1;
    for (g = 0; g < sy->n_grps; g++) {   /* a group's entries are ents[e0 .. e0 + ne) */
        const pto__sy_grp *gr = &sy->grps[g];
        if (gr->kind == PTO__SY_DEAD) continue;
        for (e = gr->e0; e < gr->e0 + gr->ne; e++) {
            const pto__sy_ent *en = &sy->ents[e];
            if (en->stmt >= 0)
                sy->m->stmts[en->stmt].note = en->role == PTO__SY_PRIME ? gr->pnote
                                              : en->role == PTO__SY_DRAIN ? gr->dnote : gr->note;
        }
    }
    pto_free(ctx, sy->lab);
    pto_free(ctx, sy->lab_len);
    sy->lab = sy->lab_len = NULL;
    sy->n_lab = 0;
    return PTO_OK;
oom:
    pto_error(ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
    pto__sy_fail(sy, PTO_ERR_INTERNAL);
    return PTO_ERR_INTERNAL;
}

/* ---- driver ----------------------------------------------------------------------- */

/* Dependencies placed so far, (record, operand) pairs in a hash set: one
   found twice means a placement did not order it. */
static int pto__sy_seen(pto__sy *sy)
{
    int32_t o = sy->h_bopnd, i, old = sy->cap_seen_head;
    if (o >= sy->cap_seen_head) {
        if (!pto__sy_grow(sy, (void **)&sy->seen_head, sizeof(int32_t), &sy->cap_seen_head, o + 1)) return 0;
        for (i = old; i < sy->cap_seen_head; i++) sy->seen_head[i] = -1;
    }
    for (i = sy->seen_head[o]; i >= 0; i = sy->seen[i].next)
        if (sy->seen[i].rec == sy->h_rec) return 1;
    if (!pto__sy_grow(sy, (void **)&sy->seen, sizeof(pto__sy_seen_e), &sy->cap_seen, sy->n_seen + 1)) return 0;
    sy->seen[sy->n_seen].rec = sy->h_rec;
    sy->seen[sy->n_seen].next = sy->seen_head[o];
    sy->seen_head[o] = sy->n_seen++;
    return 0;
}

/* A dropped group's dependency may be found and placed again. */
static void pto__sy_unseen(pto__sy *sy, int32_t rec, int32_t opnd)
{
    int32_t i;
    if (opnd >= sy->cap_seen_head) return;
    for (i = sy->seen_head[opnd]; i >= 0; i = sy->seen[i].next)
        if (sy->seen[i].rec == rec) { sy->seen[i].rec = -1; return; }
}

/* Book-keeping for the group just placed. */
static void pto__sy_counted(pto__sy *sy)
{
    const pto__sy_grp *gr = &sy->grps[sy->n_grps - 1];
    if (gr->kind != PTO__SY_BAR) {
        sy->stats.flag_pairs++;
        if (gr->nids > 1) sy->stats.rotating++;
    }
    if (gr->kind == PTO__SY_LOOP) sy->period[gr->loop] = (int32_t)pto__sy_lcm(sy->period[gr->loop], gr->nids);
    sy->nkeys = PTO__SY_REAL + PTO__SY_MAXROT * sy->n_grps;
    sy->stats.rounds++;
}

/* Room for what insertion will probably add, so that the module's arrays
   do not grow by doubling copies while placing: per access statement the
   bench kernels get 2.8 statements, 3.3 operands (3 per flag pair and id,
   the pairs' waits and drains share them), 1.7 expressions, 1.2 groups and
   2.8 entries; a little more is reserved. Best effort: a failed
   reservation is no error (they still grow on demand), and the untouched
   tail of a reservation costs no page faults, though it is requested. The
   notes have their own exact reservation (pto__sy_notes). */
static void pto__sy_reserve(pto__sy *sy, size_t nacc)
{
    pto_module *m = sy->m;
    pto_ctx *ctx = sy->ctx;
    size_t want;
    void *p;
    if (nacc < 64) return;
    want = (size_t)m->n_stmts + 3 * nacc;
    if (want < (size_t)INT32_MAX / 2 && (size_t)m->cap_stmts < want && (p = pto__realloc_quiet(ctx, m->stmts, want * sizeof *m->stmts))) {
        m->stmts = (pto_stmt *)p;
        m->cap_stmts = (int32_t)want;
    }
    want = (size_t)m->n_operands + 3 * nacc + nacc / 2;
    if (want < (size_t)INT32_MAX / 2 && (size_t)m->cap_operands < want
        && (p = pto__realloc_quiet(ctx, m->operands, want * sizeof *m->operands))) {
        m->operands = (pto_operand *)p;
        m->cap_operands = (int32_t)want;
    }
    want = (size_t)m->n_exprs + 2 * nacc - nacc / 5;
    if (want < (size_t)INT32_MAX / 2 && (size_t)m->cap_exprs < want && (p = pto__realloc_quiet(ctx, m->exprs, want * sizeof *m->exprs))) {
        m->exprs = (pto_expr *)p;
        m->cap_exprs = (int32_t)want;
    }
    pto__sy_prealloc(sy, (void **)&sy->grps, sizeof *sy->grps, &sy->cap_grps, nacc + nacc / 4);
    pto__sy_prealloc(sy, (void **)&sy->ents, sizeof *sy->ents, &sy->cap_ents, 3 * nacc);
}

static pto_status pto__sy_kernel(pto__sy *sy)
{
    pto_status st = pto__sy_build_records(sy);
    if (st != PTO_OK) return st;
    pto__sy_reserve(sy, sy->nacc);
    memset(&sy->stmt_tpl, 0, sizeof sy->stmt_tpl);
    sy->stmt_tpl.kind = PTO_ST_OP;
    sy->stmt_tpl.origin = PTO_BY_SYNC;
    sy->stmt_tpl.next = sy->stmt_tpl.prev = sy->stmt_tpl.block = sy->stmt_tpl.ref = -1;
    sy->stmt_tpl.e[0] = sy->stmt_tpl.e[1] = sy->stmt_tpl.e[2] = sy->stmt_tpl.body = sy->stmt_tpl.orelse = -1;
    memset(&sy->opnd_tpl, 0, sizeof sy->opnd_tpl);
    sy->opnd_tpl.e[0] = sy->opnd_tpl.e[1] = sy->opnd_tpl.e[2] = -1;
    sy->s0 = sy->m->n_stmts;   /* every statement made from here on is a placement */
    pto__sy_analyse(sy, PTO__SY_FIND);
    if (pto__sy_notes(sy) != PTO_OK) return PTO_ERR_INTERNAL;
    if (sy->status != PTO_OK) return sy->status;
    if ((st = pto__sy_assign(sy)) != PTO_OK) return st;
    if (sy->check) pto__sy_analyse(sy, PTO__SY_CHECK);
    return sy->status;
}

static void pto__sy_reset(pto__sy *sy)
{
    pto_ctx *ctx = sy->ctx;
    int32_t i;
    for (i = 0; i < sy->nfree; i++) {
        pto__sy_st_free(sy, sy->freel[i]);
        pto_free(ctx, sy->freel[i]);
    }
    pto_free(ctx, sy->freel);
    pto_free(ctx, sy->fr);
    pto_free(ctx, sy->pendg);
    pto_free(ctx, sy->drop);
    pto_free(ctx, sy->tstart);
    pto_free(ctx, sy->tend);
    pto_free(ctx, sy->idc);
    pto_free(ctx, sy->uidc);
    pto_free(ctx, sy->progs);
    pto_free(ctx, sy->recs);
    pto_free(ctx, sy->rec_of);
    pto_free(ctx, sy->op_loop);
    pto_free(ctx, sy->op_nbuf);
    pto_free(ctx, sy->mark_at);
    pto_free(ctx, sy->mark_k);
    pto_free(ctx, sy->lab);
    pto_free(ctx, sy->lab_len);
    pto_free(ctx, sy->tile_loop);
    pto_free(ctx, sy->inert);
    pto_free(ctx, sy->period);
    pto_free(ctx, sy->phase);
    pto_free(ctx, sy->pos);
    pto_free(ctx, sy->dep);
    pto_free(ctx, sy->grps);
    pto_free(ctx, sy->ents);
    pto_free(ctx, sy->seen);
    pto_free(ctx, sy->seen_head);
    pto_free(ctx, sy->shr);
    {
        pto_ctx *c = sy->ctx;
        pto_module *m = sy->m;
        int32_t k = sy->kernel, ids = sy->ids_per_pair, check = sy->check;
        pto_sync_stats stats = sy->stats;
        pto_status status = sy->status;
        memset(sy, 0, sizeof *sy);
        sy->ctx = c;
        sy->m = m;
        sy->kernel = k;
        sy->ids_per_pair = ids;
        sy->check = check;
        sy->base_file = -1;
        sy->stats = stats;
        sy->status = status;
    }
}

PTODEF pto_status pto_sync(pto_ctx *ctx, pto_module *m, const pto_sync_desc *desc)
{
    pto__sy sy;
    pto_status st = PTO_OK;
    int32_t k;
    if (pto__need_verified(ctx, m, "pto_sync") != PTO_OK) return PTO_ERR_USER;
    memset(&sy, 0, sizeof sy);
    sy.ctx = ctx;
    sy.m = m;
    sy.ids_per_pair = desc && desc->ids_per_pair > 0 ? (desc->ids_per_pair > 8 ? 8 : desc->ids_per_pair) : 8;
    sy.check = desc && desc->check;
    sy.base_file = -1;
    for (k = 0; k < m->n_kernels && st == PTO_OK; k++) {
        sy.kernel = k;
        sy.status = PTO_OK;
        sy.stop = 0;
        st = pto__sy_kernel(&sy);
        pto__sy_reset(&sy);
    }
    if (desc && desc->stats) *desc->stats = sy.stats;
    /* its relinking cleared the stamp; a synced module is still valid (a
       failed sync that relinked leaves it cleared) */
    if (st == PTO_OK) m->verified = 1;
    return st;
}

/* ---- dump ------------------------------------------------------------------------------ */

static void pto__sy_dump_block(const pto_module *m, int32_t blk, int depth, pto_buf *b)
{
    int32_t s;
    for (s = m->blocks[blk].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->note) pto_buf_printf(b, "%*s# %s\n", 2 * depth, "", pto_str(m->ctx, st->note));
        pto_buf_printf(b, "%*s", 2 * depth, "");
        switch (st->kind) {
        case PTO_ST_OP: pto__pr_op(m, s, b); break;   /* print.c's: the same .pto text */
        case PTO_ST_TILE: {
            const pto_tile *t = &m->tiles[st->ref];
            int k;
            pto_buf_printf(b, "tile %s: %s %s[%d, %d] x%d at", pto_str(m->ctx, t->name), pto_space_name((pto_space)t->space),
                           pto_dtype_name((pto_dtype)t->dtype), (int)t->rows, (int)t->cols, (int)t->nbuf);
            for (k = 0; k < t->nbuf && k < PTO_MAX_NBUF; k++)
                pto_buf_printf(b, k ? ",0x%04llx" : " 0x%04llx", (unsigned long long)t->offset[k]);
            if (!t->planned) pto_buf_puts(b, " (unplanned)");
            break;
        }
        case PTO_ST_LET:
            pto_buf_printf(b, "let %s = ", pto_str(m->ctx, m->vars[st->ref].name));
            pto_print_expr(m, st->e[0], b);
            break;
        case PTO_ST_FOR:
            pto_buf_printf(b, "for %s = ", pto_str(m->ctx, m->vars[st->ref].name));
            pto_print_expr(m, st->e[0], b);
            pto_buf_puts(b, " to ");
            pto_print_expr(m, st->e[1], b);
            if (st->e[2] >= 0) { pto_buf_puts(b, " step "); pto_print_expr(m, st->e[2], b); }
            break;
        case PTO_ST_IF:
            pto_buf_puts(b, "if ");
            pto_print_expr(m, st->e[0], b);
            pto_buf_printf(b, " %s ", pto_cmp_name((pto_cmp)st->cmp));
            pto_print_expr(m, st->e[1], b);
            break;
        case PTO_ST_SECTION: pto_buf_puts(b, st->ref == PTO_CORE_CUBE ? "cube" : "vector"); break;
        default: break;
        }
        pto_buf_puts(b, st->body >= 0 ? " {\n" : "\n");
        if (st->body >= 0) {
            pto__sy_dump_block(m, st->body, depth + 1, b);
            pto_buf_printf(b, "%*s}", 2 * depth, "");
            if (st->orelse >= 0) {
                pto_buf_puts(b, " else {\n");
                pto__sy_dump_block(m, st->orelse, depth + 1, b);
                pto_buf_printf(b, "%*s}", 2 * depth, "");
            }
            pto_buf_puts(b, "\n");
        }
    }
}

PTODEF void pto_sync_dump(const pto_module *m, pto_buf *out)
{
    int32_t k, s;
    if (!m || !out) return;
    for (k = 0; k < m->n_kernels; k++) {
        int nset = 0, nwait = 0, nbar = 0, nall = 0;
        for (s = 0; s < m->n_stmts; s++) {
            const pto_stmt *st = &m->stmts[s];
            if (st->kind != PTO_ST_OP || st->origin != PTO_BY_SYNC || st->block < 0) continue;
            if (m->blocks[st->block].kernel != k) continue;
            nset += st->op == PTO_OP_SET_FLAG;
            nwait += st->op == PTO_OP_WAIT_FLAG;
            if (st->op == PTO_OP_PIPE_BARRIER) {
                nbar++;
                nall += pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_ALL;
            }
        }
        pto_buf_printf(out, "kernel %s  # sync: %d set_flag, %d wait_flag, %d pipe_barrier (%d PIPE_ALL fallbacks)\n",
                       pto_str(m->ctx, m->kernels[k].name), nset, nwait, nbar, nall);
        pto__sy_dump_block(m, m->kernels[k].body, 1, out);
    }
}
/* ---- End file: src/sync.c ---- */

/* ---- Begin file: src/compile.c ---- */
/* compile.c - pto_compile: the pass sequence in one place.

   Needs: a module straight from the parser or the builders.
   Guarantees: the passes run in their fixed order, verify -> lower -> plan -> sync,
   each only when the one before succeeded, with the options of desc; the
   module is left as the last pass that ran made it (ready for pto_emit when
   every pass ran). It adds no behaviour of its own: ptoc, the C API example
   and the benches call this instead of spelling the sequence out, so they
   cannot drift apart. */

PTODEF pto_status pto_compile(pto_ctx *ctx, pto_module *m, const pto_compile_desc *desc)
{
    pto_compile_desc zero;
    pto_stage last;
    pto_status st;
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    last = desc->stop_after == PTO_STAGE_ALL ? PTO_STAGE_SYNC : desc->stop_after;
    if (!m) return PTO_ERR_USER;   /* a parse that failed: its diagnostics are recorded */
    st = pto_verify(ctx, m);
    if (st != PTO_OK || last == PTO_STAGE_VERIFY) return st;
    st = pto_lower_for(ctx, m, desc->target);
    if (st != PTO_OK || last == PTO_STAGE_LOWER) return st;
    st = pto_plan(ctx, m, &desc->plan);
    /* the checker shares no code with the planner: a violation is pto's bug */
    if (st == PTO_OK && desc->check_plan && pto_plan_check(ctx, m) != PTO_OK) st = PTO_ERR_INTERNAL;
    if (st != PTO_OK || last == PTO_STAGE_PLAN || desc->no_sync) return st;
    return pto_sync(ctx, m, &desc->sync);
}
/* ---- End file: src/compile.c ---- */

/* ---- Begin file: src/emit.c ---- */
/* emit.c - the template emitter: a planned, synchronised module -> C source.

   Needs: a verified module (stamped: pto_module.verified, refused with an
   error otherwise) whose local tiles are all planned (tile.planned,
   tile.offset[slot]) and whose flags and barriers are in place (the sync
   pass, or written by hand). It reads the module and never changes it.

   Guarantees: two C sources, byte-identical for identical input.
   - kernel source: includes "pto_kernels.h"; one function per kernel with
     the device entry signature `static void kernel_NAME(pto_k_core *core,
     const int64_t *args)`. It unpacks its args (tensors first, then
     scalars; hardware.md section 7), reads dynamic dims from the tensors,
     declares every tile where the .pto declares it, at its planned offset
     (an xN tile picks slot ((i - start) / step) % N of its loop), tells the
     simulator where the tile's lifetime begins (pto_k_tdecl: at an xN
     tile's declaration, at a single tile's first use, see
     pto__emit_tdecls), and emits
     one device call per instruction with a `src` string "FILE:LINE" that
     the simulator quotes. Flags and barriers carry a comment naming
     the pass that put them there and why (the statement's note), printed
     once per kernel: a set_flag and its wait_flag share one note, and the
     second gets a short reference to the first (pto__emit_note). for / if
     are emitted as written; lets are `const int64_t`; a mix kernel branches
     on pto_k_core_kind for its cube { } and vector { } sections, and each
     section starts with pto_k_ring_init of every pipe of the kernel (the
     same normalised parameters on every core). On a2a3 a kernel with pipes
     takes a hidden `pto_gm_pipe_buffer` argument after its tensors; the
     host allocates blocks x per_block bytes and block b's rings start at
     b * per_block. A tile that a tpop fills is a variable the tpop
     assigns (pto_k_tpop picks the local slot), built from its planned base.
   - host source: one host_NAME function per kernel that allocates its
     tensors, launches it with its block count (computed from dynamic dims
     when the count depends on them) and passes dims and scalars, plus a
     main. It runs through the host harness of pto.h (harness.c), which
     re-parses the embedded .pto text and checks every output against the
     reference interpreter in the same process.

   All text comes from the template table below (one place); the code only
   chooses templates and fills their $(placeholders). Templates are split
   into literal/placeholder segments once per call and bound into line
   plans on first use, per op or pass and per depth (pto__emit_plan_make:
   "    pto_k_tadds(core, \"" is one piece), so writing a line is a few
   short moves, with an op's operands and a note written in place
   (pto__emit_line): emission is linear in the size of the module. The
   lines written most (ops, notes, lines of values only) make room once
   for the whole line and then only move text (pto__emit_opline).
   The output is only ever appended to, never read back or patched, so it
   can be streamed: with pto_buf.sink set, each buffer is a staging area
   the fast paths write into as they would into a whole file (their room
   tests make room by sending what is pending, pto__emit_reserve), the
   kernel source is flushed before the host source starts, and pto_emit
   flushes both when it succeeds. A module the passes made fails, if at
   all, before the first byte (pto__emit_check); the errors of one built
   by hand that skipped the planner (a tile without an offset) come during
   the walk, when part of the text may have gone (the caller drops it).
   Memory, not instructions, is most of the cost on large modules: the
   statements sit wherever the passes added them, so the few walks in
   block order are the emission itself and the tdecl search, done as the
   TILE statement is emitted; a one-kernel module's uses (which names get
   a (void)) are gathered in pto__emit_check's pass in index order (the
   expressions it names are walked after it in one sweep down the
   expression array, pto__emit_use_sweep), and so is each statement's
   successor in block order, along which a prefetch cursor runs ahead of
   the emission on large modules (pto__emit_ahead). Fresh memory costs too
   (a page fault is ~1.3 us in our containers): what the emitter keeps per
   statement or per expression is only what every one needs (a successor,
   a state byte); sparse facts live in small tables (constant values,
   pto__emit_cval; pending tdecls, pto__emit_td).

   Names: a .pto name is used as is in C unless it could clash with C, C++,
   the headers or the emitter's own names (a keyword, a header's macro,
   `core`, `args`, or a name starting with pto, PTO, user_, kernel_ or
   host_); such a name becomes
   user_NAME. The emitter's own names are core, args, run, kernel_K,
   host_K, pto_emit_min/max/div/mod and pto_slots_N, none of which a renamed user
   name can produce. */

/* ---- the templates -------------------------------------------------------
   $(key) is replaced by the value of key; everything else is copied. Keys
   are listed in PTO__EMIT_KEYS. */

#define PTO__EMIT_KEYS(X) \
    X(IND, "ind") X(NAME, "name") X(FILE, "file") X(VERSION, "version") X(KIND, "kind") \
    X(IDX, "idx") X(TYPE, "type") X(DIMS, "dims") X(DIR, "dir") X(RC, "rc") X(TENSOR, "tensor") \
    X(SPACE, "space") X(DTYPE, "dtype") X(ROWS, "rows") X(COLS, "cols") X(VR, "vr") X(VC, "vc") \
    X(OFF, "off") X(LIST, "list") X(N, "n") X(EXPR, "expr") X(START, "start") X(END, "end") \
    X(STEP, "step") X(LHS, "lhs") X(CMP, "cmp") X(RHS, "rhs") X(CORE, "core") X(OP, "op") \
    X(SRC, "src") X(ARGS, "args") X(PASS, "pass") X(NOTE, "note") X(BLOCKS, "blocks") \
    X(SIG, "sig") X(PLANNED, "planned") X(TEXT, "text") X(FN, "fn")

#define PTO__EMIT_TEMPLATES(X) \
    /* ---- kernel source ---- */ \
    X(K_FILE, \
      "/* kernel.c - generated by ptoc $(version) from $(file): the device code of every kernel.\n" \
      "   Each kernel_NAME below runs on one simulated core (pto_kernels.h); host.c launches it.\n" \
      "   Edits are welcome: `ptoc run DIR` recompiles this directory as it is and lets the\n" \
      "   simulator judge the result. */\n" \
      "\n" \
      "#include \"pto_kernels.h\"\n" \
      "\n" \
      "/* min and max of the .pto integer expressions */\n" \
      "PTO_K_FN int64_t pto_emit_min(int64_t a, int64_t b) { return a < b ? a : b; }\n" \
      "PTO_K_FN int64_t pto_emit_max(int64_t a, int64_t b) { return a > b ? a : b; }\n" \
      "/* / and % by a value known only at launch: a zero divisor (or INT64_MIN / -1) gives 0\n" \
      "   instead of trapping; the reference interpreter reports it at its .pto line */\n" \
      "PTO_K_FN int64_t pto_emit_div(int64_t a, int64_t b) { return b == 0 || (b == -1 && a == INT64_MIN) ? 0 : a / b; }\n" \
      "PTO_K_FN int64_t pto_emit_mod(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }\n") \
    X(K_FN_BEGIN, \
      "\n" \
      "/* $(file):$(n): $(kind) kernel $(name)($(sig)), blocks($(blocks))\n" \
      "   planned: $(planned) */\n" \
      "static void kernel_$(name)(pto_k_core *core, const int64_t *args)\n" \
      "{\n") \
    X(K_ARG_GM,    "$(ind)pto_k_gm *$(name) = pto_k_arg_gm(args, $(idx)); /* $(dir) $(dtype)[$(dims)] */\n") \
    X(K_ARG_F,     "$(ind)const double $(name) = pto_k_arg_f(args, $(idx)); /* scalar $(dtype) */\n") \
    X(K_ARG_I,     "$(ind)const int64_t $(name) = pto_k_arg_i(args, $(idx)); /* scalar $(dtype) */\n") \
    X(K_DIM,       "$(ind)const int64_t $(name) = pto_k_gm_$(rc)($(tensor));\n") \
    X(K_VOID,      "$(ind)(void)$(name);\n") \
    X(K_TILE,      "$(ind)const pto_k_tile $(name) = pto_k_t($(space), $(dtype), $(rows), $(cols), $(vr), $(vc), $(off));\n") \
    X(K_TDECL,     "$(ind)pto_k_tdecl(core, \"$(src)\", $(name));\n") \
    X(K_SLOTS,     "$(ind)static const int64_t pto_slots_$(idx)[$(n)] = {$(list)};\n") \
    X(K_LET,       "$(ind)const int64_t $(name) = $(expr);\n") \
    X(K_FOR,       "$(ind)for (int64_t $(name) = $(start); $(name) < $(end); $(name) += $(step)) {\n") \
    /* a loop whose last value plus step passes INT64_MAX: the next value is
       computed only below end (as the interpreter does) */ \
    X(K_FOR_WRAP,  "$(ind)for (int64_t $(name) = $(start); $(name) < $(end); " \
                   "$(name) = (uint64_t)$(end) - (uint64_t)$(name) > (uint64_t)$(step) ? $(name) + $(step) : $(end)) {\n") \
    X(K_FOR_DYN,   "$(ind)for (int64_t $(name) = $(start); $(name) < $(end) && $(step) > 0; $(name) += $(step)) {\n") \
    X(K_IF,        "$(ind)if ($(lhs) $(cmp) $(rhs)) {\n") \
    X(K_ELSE,      "$(ind)} else {\n") \
    X(K_CLOSE,     "$(ind)}\n") \
    X(K_SECTION,   "$(ind)if (pto_k_core_kind(core) == $(core)) { /* $(name) { } section */\n") \
    X(K_NOTE,      "$(ind)/* $(pass): $(note) */\n") \
    X(K_OP,        "$(ind)pto_k_$(op)(core, \"$(src)\"$(args));\n") \
    X(K_PTILE,     "$(ind)const pto_k_tile pto_base_$(idx) = pto_k_t($(space), $(dtype), $(rows), $(cols), $(vr), $(vc), $(off));\n" \
                   "$(ind)pto_k_tile $(name) = pto_base_$(idx); /* a pipe's local slots: each tpop picks one */\n" \
                   "$(ind)(void)$(name);\n") \
    X(K_TPOP,      "$(ind)$(name) = pto_k_tpop(core, \"$(src)\", $(n), pto_base_$(idx));\n") \
    X(K_RING,      "$(ind)pto_k_ring_init(core, \"$(src)\", $(n), $(dir), $(args));\n") \
    X(K_PIPEBUF,   "$(ind)pto_k_gm *pto_gm_pipe_buffer = pto_k_arg_gm(args, $(idx)); /* hidden: $(n) bytes of pipe slots per block */\n") \
    X(K_OP_SEE,    "$(ind)pto_k_$(op)(core, \"$(src)\"$(args)); /* $(pass): see the $(fn) at $(file):$(n) */\n") \
    X(K_FN_END,    "}\n") \
    /* ---- host source ---- */ \
    X(H_FILE, \
      "/* host.c - generated by ptoc $(version) from $(file): the host side. host_NAME allocates\n" \
      "   the tensors of kernel NAME, launches it on the simulated NPU and checks every output\n" \
      "   against the reference interpreter, which runs in this process on the .pto text below\n" \
      "   (harness.c in pto.h). Build and run:\n" \
      "     cc -std=c99 -I DIR_OF_PTO_H host.c -lm -lpthread && ./a.out [-D NAME=VALUE]... [--seed S] [--trace F.json]\n" \
      "*/\n" \
      "\n" \
      "#include \"pto_kernels.h\"\n" \
      "#define PTO_IMPLEMENTATION\n" \
      "#define PTO_HOST_HARNESS\n" \
      "#include \"pto.h\"\n" \
      "\n" \
      "#include \"kernel.c\"\n" \
      "\n" \
      "/* $(file), as the reference interpreter reads it */\n" \
      "static const char *const pto_h_source[] = {\n") \
    X(H_LINE,      "    \"") /* then the line as a C string */ \
    X(H_LINE_END,  "\",\n") \
    X(H_SOURCE_END, "    NULL\n};\n") \
    X(H_FN_BEGIN, \
      "\n" \
      "/* $(kind) kernel $(name)($(sig)), blocks($(blocks)) */\n" \
      "static void host_$(name)(pto_h_run *run)\n" \
      "{\n") \
    X(H_RANKS,     "    pto_h_ranks(run, \"$(text)\"); /* a ranks kernel: every tensor once per rank */\n") \
    X(H_DIM,       "    const int64_t $(name) = pto_h_dim(run, \"$(text)\");\n") \
    X(H_SCALAR_F,  "    const double $(name) = pto_h_scalar(run, \"$(text)\");\n") \
    X(H_SCALAR_I,  "    const int64_t $(name) = pto_h_iscalar(run, \"$(text)\", $(dtype));\n") \
    X(H_TENSOR,    "    pto_k_gm *$(name) = pto_h_tensor(run, $(idx), \"$(text)\", $(dtype), $(rows), $(cols), $(dir));\n") \
    X(H_ARGS,      "    int64_t args[$(n)];\n    if (!pto_h_ready(run)) return;\n") \
    X(H_ARG_GM,    "    args[$(idx)] = pto_k_gm_arg($(name));\n") \
    X(H_ARG_F,     "    args[$(idx)] = pto_k_f_arg($(name));\n") \
    X(H_ARG_I,     "    args[$(idx)] = $(name);\n") \
    X(H_PIPEBUF,   "    pto_k_gm *pto_gm_pipe_buffer = pto_h_pipe_buffer(run, $(blocks), $(n));\n") \
    X(H_LAUNCH, \
      "    pto_h_launch(run, kernel_$(name), \"$(text)\", $(kind), $(blocks), args, \"$(planned)\");\n" \
      "}\n") \
    X(H_MAIN_BEGIN, \
      "\n" \
      "int main(int argc, char **argv)\n" \
      "{\n" \
      "    pto_h_run run;\n" \
      "    if (pto_h_begin(&run, argc, argv, \"$(file)\", pto_h_source, __FILE__))\n" \
      "        return pto_h_end(&run);\n") \
    X(H_CALL,      "    host_$(name)(&run);\n") \
    /* ---- host sections (a host_NAME per host; main calls only those) ---- */ \
    X(HS_BEGIN, \
      "\n" \
      "/* $(file):$(n): host $(name)($(sig)) */\n" \
      "static void host_$(name)(pto_h_run *run)\n" \
      "{\n") \
    X(HS_READY,    "    if (!pto_h_ready(run)) { pto_h_host_end(run, \"$(text)\"); return; }\n") \
    X(HS_CALL,     "    {   /* $(file):$(n): call $(sig) */\n        int64_t args[$(idx)];\n") \
    X(HS_ARG_GM,   "        args[$(idx)] = pto_k_gm_arg($(name));\n") \
    X(HS_PIPEBUF,  "        args[$(idx)] = pto_k_gm_arg(pto_h_pipe_buffer(run, $(blocks), $(n))); /* hidden GM pipe buffer */\n") \
    X(HS_ARG_F,    "        args[$(idx)] = pto_k_f_arg($(expr));\n") \
    X(HS_ARG_I,    "        args[$(idx)] = $(expr);\n") \
    X(HS_LAUNCH, \
      "        pto_h_call(run, kernel_$(name), \"$(text)\", $(kind), $(blocks), args, \"$(planned)\");\n" \
      "    }\n") \
    X(HS_END,      "    pto_h_host_end(run, \"$(text)\");\n}\n") \
    X(H_MAIN_END,  "    return pto_h_end(&run);\n}\n")

enum {
#define PTO__KEY_ENUM(e, s) PTO__K_##e,
    PTO__EMIT_KEYS(PTO__KEY_ENUM)
#undef PTO__KEY_ENUM
    PTO__NKEYS
};

enum {
#define PTO__TPL_ENUM(e, s) PTO__T_##e,
    PTO__EMIT_TEMPLATES(PTO__TPL_ENUM)
#undef PTO__TPL_ENUM
    PTO__NTPL
};

static const char *const pto__emit_keys[PTO__NKEYS] = {
#define PTO__KEY_NAME(e, s) s,
    PTO__EMIT_KEYS(PTO__KEY_NAME)
#undef PTO__KEY_NAME
};

static const char *const pto__emit_tpl[PTO__NTPL] = {
#define PTO__TPL_TEXT(e, s) s,
    PTO__EMIT_TEMPLATES(PTO__TPL_TEXT)
#undef PTO__TPL_TEXT
};

/* Spellings of the codes in emitted C. */
static const char *const pto__emit_space[PTO_NSPACE] = {
    "PTO_K_GM", "PTO_K_VEC", "PTO_K_MAT", "PTO_K_LEFT", "PTO_K_RIGHT", "PTO_K_ACC", "PTO_K_BIAS", "PTO_K_SCALING"};
static const char *const pto__emit_dtype[PTO_NDTYPE] = {
    "PTO_K_DT_NONE", "PTO_K_F32", "PTO_K_F16", "PTO_K_BF16", "PTO_K_I32", "PTO_K_I8"};
static const char *const pto__emit_kind[3] = {"PTO_K_KIND_VECTOR", "PTO_K_KIND_CUBE", "PTO_K_KIND_MIX"};
static const char *const pto__emit_kind_word[3] = {"vector", "cube", "mix"};
static const char *const pto__emit_dir[3] = {"in", "out", "inout"};
static const char *const pto__emit_cmp[6] = {"PTO_K_EQ", "PTO_K_NE", "PTO_K_LT", "PTO_K_LE", "PTO_K_GT", "PTO_K_GE"};
static const char *const pto__emit_origin[5] = {"user", "lower", "plan", "sync", "emit"};

/* C, C++ and header names a .pto name must not take over (sorted: searched
   by bisection), plus the emitter's own plain names. The header names are
   the object-like macros the headers of the generated code define (assert.h,
   float.h, math.h, pthread.h, stddef.h, stdint.h, stdio.h, stdlib.h,
   string.h: host.c includes kernel.c after pto.h's own headers; with glibc,
   gcc and clang, strict and GNU modes: as `gcc -dM -E` lists them): a
   local named EXIT_SUCCESS or linux would be a macro's number. Names
   starting with PTO are the headers' own (pto__emit_is_reserved). All are
   shorter than 32 bytes (pto__emit_names). */
static const char *const pto__emit_reserved[] = {
    "BIG_ENDIAN", "BUFSIZ", "BYTE_ORDER", "CLOCKS_PER_SEC", "CLOCK_BOOTTIME", "CLOCK_BOOTTIME_ALARM",
    "CLOCK_MONOTONIC", "CLOCK_MONOTONIC_COARSE", "CLOCK_MONOTONIC_RAW", "CLOCK_PROCESS_CPUTIME_ID",
    "CLOCK_REALTIME", "CLOCK_REALTIME_ALARM", "CLOCK_REALTIME_COARSE", "CLOCK_TAI", "CLOCK_THREAD_CPUTIME_ID",
    "DBL_DECIMAL_DIG", "DBL_DIG", "DBL_EPSILON", "DBL_HAS_SUBNORM", "DBL_MANT_DIG", "DBL_MAX",
    "DBL_MAX_10_EXP", "DBL_MAX_EXP", "DBL_MIN", "DBL_MIN_10_EXP", "DBL_MIN_EXP", "DBL_TRUE_MIN",
    "DECIMAL_DIG", "EOF", "EXIT_FAILURE", "EXIT_SUCCESS", "FD_SETSIZE", "FILE", "FILENAME_MAX",
    "FLT_DECIMAL_DIG", "FLT_DIG", "FLT_EPSILON", "FLT_EVAL_METHOD", "FLT_HAS_SUBNORM", "FLT_MANT_DIG",
    "FLT_MAX", "FLT_MAX_10_EXP", "FLT_MAX_EXP", "FLT_MIN", "FLT_MIN_10_EXP", "FLT_MIN_EXP", "FLT_RADIX",
    "FLT_ROUNDS", "FLT_TRUE_MIN", "FOPEN_MAX", "FP_ILOGB0", "FP_ILOGBNAN", "FP_INFINITE", "FP_NAN",
    "FP_NORMAL", "FP_SUBNORMAL", "FP_ZERO", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "INFINITY", "INT16_MAX",
    "INT16_MIN", "INT32_MAX", "INT32_MIN", "INT64_MAX", "INT64_MIN", "INT8_MAX", "INT8_MIN", "INTMAX_MAX",
    "INTMAX_MIN", "INTPTR_MAX", "INTPTR_MIN", "INT_FAST16_MAX", "INT_FAST16_MIN", "INT_FAST32_MAX",
    "INT_FAST32_MIN", "INT_FAST64_MAX", "INT_FAST64_MIN", "INT_FAST8_MAX", "INT_FAST8_MIN", "INT_LEAST16_MAX",
    "INT_LEAST16_MIN", "INT_LEAST32_MAX", "INT_LEAST32_MIN", "INT_LEAST64_MAX", "INT_LEAST64_MIN",
    "INT_LEAST8_MAX", "INT_LEAST8_MIN", "LDBL_DECIMAL_DIG", "LDBL_DIG", "LDBL_EPSILON", "LDBL_HAS_SUBNORM",
    "LDBL_MANT_DIG", "LDBL_MAX", "LDBL_MAX_10_EXP", "LDBL_MAX_EXP", "LDBL_MIN", "LDBL_MIN_10_EXP",
    "LDBL_MIN_EXP", "LDBL_TRUE_MIN", "LITTLE_ENDIAN", "L_ctermid", "L_tmpnam", "MATH_ERREXCEPT", "MATH_ERRNO",
    "MB_CUR_MAX", "M_1_PI", "M_2_PI", "M_2_SQRTPI", "M_E", "M_LN10", "M_LN2", "M_LOG10E", "M_LOG2E", "M_PI",
    "M_PI_2", "M_PI_4", "M_SQRT1_2", "M_SQRT2", "NAN", "NFDBITS", "NULL", "PDP_ENDIAN",
    "PTHREAD_BARRIER_SERIAL_THREAD", "PTHREAD_CANCELED", "PTHREAD_CANCEL_ASYNCHRONOUS",
    "PTHREAD_CANCEL_DEFERRED", "PTHREAD_CANCEL_DISABLE", "PTHREAD_CANCEL_ENABLE", "PTHREAD_COND_INITIALIZER",
    "PTHREAD_CREATE_DETACHED", "PTHREAD_CREATE_JOINABLE", "PTHREAD_EXPLICIT_SCHED", "PTHREAD_INHERIT_SCHED",
    "PTHREAD_MUTEX_INITIALIZER", "PTHREAD_ONCE_INIT", "PTHREAD_PROCESS_PRIVATE", "PTHREAD_PROCESS_SHARED",
    "PTHREAD_RWLOCK_INITIALIZER", "PTHREAD_SCOPE_PROCESS", "PTHREAD_SCOPE_SYSTEM", "PTHREAD_STACK_MIN",
    "PTRDIFF_MAX", "PTRDIFF_MIN", "P_tmpdir", "RAND_MAX", "SCHED_FIFO", "SCHED_OTHER", "SCHED_RR", "SEEK_CUR",
    "SEEK_END", "SEEK_SET", "SIG_ATOMIC_MAX", "SIG_ATOMIC_MIN", "SIZE_MAX", "TIMER_ABSTIME", "TIME_UTC",
    "TMP_MAX", "UINT16_MAX", "UINT32_MAX", "UINT64_MAX", "UINT8_MAX", "UINTMAX_MAX", "UINTPTR_MAX",
    "UINT_FAST16_MAX", "UINT_FAST32_MAX", "UINT_FAST64_MAX", "UINT_FAST8_MAX", "UINT_LEAST16_MAX",
    "UINT_LEAST32_MAX", "UINT_LEAST64_MAX", "UINT_LEAST8_MAX", "WCHAR_MAX", "WCHAR_MIN", "WCONTINUED",
    "WEXITED", "WINT_MAX", "WINT_MIN", "WNOHANG", "WNOWAIT", "WSTOPPED", "WUNTRACED", "_Bool", "_Complex",
    "_Imaginary", "alignas", "alignof", "and", "and_eq", "args", "asm", "assert", "auto", "bitand", "bitor",
    "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "class", "compl", "complex", "const",
    "const_cast", "constexpr", "continue", "core", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "errno", "explicit", "export", "extern", "false", "float", "for",
    "fpclassify", "friend", "goto", "if", "imaginary", "inline", "int", "int16_t", "int32_t", "int64_t",
    "int8_t", "intptr_t", "isfinite", "isinf", "isnan", "isnormal", "linux", "long", "main",
    "math_errhandling", "memcpy", "memset", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "offsetof", "operator", "or", "or_eq", "private", "protected", "pthread_t", "ptrdiff_t",
    "public", "register", "reinterpret_cast", "restrict", "return", "run", "sched_priority", "short",
    "signbit", "signed", "size_t", "sizeof", "static", "static_assert", "static_cast", "stderr", "stdin",
    "stdout", "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef",
    "typeid", "typename", "uint16_t", "uint32_t", "uint64_t", "uint8_t", "uintptr_t", "union", "unix",
    "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};

/* ---- the emitter state --------------------------------------------------- */

/* A hash of a name's first two bytes (the second is its NUL for one byte). */
#define PTO__EMIT_RKEY(s) (((unsigned)(unsigned char)(s)[0] * 7u + (unsigned char)(s)[1]) & 255u)

typedef struct pto__emit_seg {
    int32_t off, len;     /* literal text of the template, or */
    int32_t key;          /* a placeholder (-1 = literal) */
} pto__emit_seg;

/* A line plan (pto__emit_plan): a bound template as literal pieces
   (offset, length in btext) around at most PTO__EMIT_PK keys, each with
   how it is written (pto__emit_line). */
#define PTO__EMIT_PK 16
enum { PTO__HOW_VAL, PTO__HOW_SRC, PTO__HOW_ARGS, PTO__HOW_NOTE };
typedef struct pto__emit_plan {
    int32_t nk;
    int32_t lit;          /* the length of all the literal pieces */
    int simple;           /* every key written from its value (no ARGS, NOTE) */
    int opline;           /* SRC, ARGS, then keys written from their values: pto__emit_opline's shape */
    uint8_t key[PTO__EMIT_PK], how[PTO__EMIT_PK];
    int32_t off[PTO__EMIT_PK + 1], len[PTO__EMIT_PK + 1];   /* literal before key i; [nk]: after the last */
} pto__emit_plan;

/* How many statements ahead of the walk the prefetch cursor runs
   (pto__emit_ahead); a power of two. 32: the operands are asked for 16
   statements (~0.8 us of emission) before they are written, the note's
   text 8; with 16, emit at 100k instructions took 6% longer (64 gained
   nothing more). */
#define PTO__EMIT_AHEAD 32
/* The cursor runs when the statements alone outgrow this (smaller modules
   stay in cache and it only costs instructions). */
#define PTO__EMIT_AHEAD_MIN ((size_t)4 << 20)
#if defined(__GNUC__) || defined(__clang__)
#define PTO__EMIT_PREFETCH(p) __builtin_prefetch(p)
#else
#define PTO__EMIT_PREFETCH(p) ((void)(p))
#endif

/* SSE2 (every x86-64 compiler that says so: gcc, clang) scans the texts
   the emitter copies sixteen bytes at a time (the .pto source into host.c,
   notes into comments); other compilers (tcc) and machines take the
   word-at-a-time path, which gives the same bytes (tcc_ptoc_test.sh). */
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__)) && !defined(PTO__EMIT_NO_SSE2)
#define PTO__EMIT_SSE2 1
#include <emmintrin.h>
#else
#define PTO__EMIT_SSE2 0
#endif

/* Depths whose indent is bound into the hot lines (deeper ones copy it). */
#define PTO__EMIT_ND 8
/* Bytes readable past the end of the texts the emitter owns (pto__emit_pcp);
   the bound literals (btext) have twice that (pto__emit_pcp64). */
#define PTO__EMIT_PAD 32
#define PTO__EMIT_BPAD 64

/* A tile shape whose K_TILE line is bound (pto__emit_tile_line): the
   values of SPACE, DTYPE, ROWS, COLS, VR and VC (valid rows and columns
   the full shape) at a depth are fixed text of the line's plan (+ 1; 0:
   the entry is empty). */
typedef struct pto__emit_shape {
    int32_t rows, cols, plan;
    uint8_t space, dtype, dep;
} pto__emit_shape;
/* Entries of the table (a power of two) and plans it may make in all. */
#define PTO__EMIT_NSHAPE 64
#define PTO__EMIT_SHAPE_PLANS 256

/* The tdecls before statement s: the first node of its list (pto__emit_td;
   s -1: an empty entry). */
struct pto__emit_td {
    int32_t s, head;
};

/* A constant expression's value (pto__emit_cval; ex -1: an empty entry). */
struct pto__emit_cv {
    int64_t v;
    int32_t ex;
};

typedef struct pto__emitter {
    pto_ctx *ctx;
    const pto_module *m;
    pto_buf *out;
    pto_status st;
    /* compiled templates */
    pto__emit_seg *segs;
    int32_t nsegs;
    int32_t tpl_first[PTO__NTPL + 1];
    /* current placeholder values */
    const char *val[PTO__NKEYS];
    size_t vlen[PTO__NKEYS];
    char num[PTO__NKEYS][32];
    int64_t numv[PTO__NKEYS];    /* the number num[key] holds, when numlen[key] > 0 */
    size_t numlen[PTO__NKEYS];
    /* scratch text for values that are built (one buffer per key) */
    pto_buf scratch[PTO__NKEYS];
    /* per-module names (C spelling) and uses */
    char **var_name, **tile_name, **param_name;
    uint8_t *var_used, *param_used;
    /* a one-kernel module: per block, 1 when the walk from the kernel's body
       reaches it, 2 when not (pto__emit_reach); uses_known: var_used and
       param_used were filled by pto__emit_check's pass in index order */
    uint8_t *reach;
    int uses_known;
    /* the prefetch cursor (pto__emit_ahead): per statement its successor in
       the walk's order (a block's end: -2 - block, resolved by
       pto__emit_after), per block the statement after it (-2: not known
       yet, -3: being worked out), the cursor and the statements it passed
       (by step, modulo PTO__EMIT_AHEAD) */
    int32_t *succ, *after;
    int32_t pf, pfstep, pfring[PTO__EMIT_AHEAD];
    /* pto__emit_varop's last answers for event ids, by expression (+ 1; 0:
       empty): a set_flag and its wait_flag name the same one */
    int32_t vo_ex[8], vo_v[8], vo_kind[8];
    int64_t vo_val[8];
    uint32_t rlen[256];   /* by PTO__EMIT_RKEY, a bit per length of the reserved names (pto__emit_cname) */
    /* pto_k_tdecl placement (pto__emit_tdecls): the statements that have
       tdecls right before them, each with a list of nodes naming the tiles
       (pto__emit_td: an open-addressing table by statement, tdcap entries, a
       power of two or 0, tdn used; an entry goes when its statement is
       emitted, so it holds the placements still ahead) */
    struct pto__emit_td *td;
    uint32_t tdcap, tdn;
    int32_t *tdecl_tile, *tdecl_next;
    int32_t ntdecl;
    uint8_t *tile_unused;  /* no op names it: (void)NAME, no tdecl (2: not worked out yet, pto__emit_place) */
    uint8_t *tile_popped;  /* a tpop fills it: it lives in a pipe's local slots */
    /* dependency notes (pto__emit_note): per interned note, the statement
       whose comment printed it in full (-1 = none yet); the note of the
       comment right above the current line (0 = none) */
    int32_t *note_first;  /* the statement, kept only when its block is of the kernel being written
                             (pto__emit_note_at); a module of several kernels checks the kernel of the
                             statement found (pto__emit_note_seen): one of one kernel, the usual
                             module, reads nothing more (a pair per note was 1.8 MB at 100k
                             instructions, ~450 page faults of ~1.3 us) */
    int32_t nnotes, last_note, kernel;
    int32_t planned_k;    /* kernel + 1 whose PLANNED text the scratch holds (pto__emit_planned; 0: none) */
    uint8_t *cstate;      /* per expression: pto__emit_const's answer (bits 0-1, NULL: not kept; bit 2:
                             a constant of literals, not in cval); bit 3: its names are to be marked used
                             (pto__emit_use_later) */
    struct pto__emit_cv *cval;   /* the values of the constant ones: an open-addressing table by
                                    expression (pto__emit_cval), cvcap entries (a power of two), cvn used */
    uint32_t cvcap, cvn;
    double fval[16];      /* float literals printed (fnum), by a hash of their bits */
    char fnum[16][48];
    uint8_t fvalid[16];
    char file[256];       /* base name of the source, escaped for a C string */
    size_t file_len;
    char srcline[300];    /* "FILE:LINE" of the line last quoted (pto__emit_srcline; FILE: is written once) */
    int32_t srcline_line;
    int depth;
    /* lengths of the C names (pto__emit_lens) */
    int32_t *var_len, *tile_len, *param_len;
    char **tile_arg;      /* ", NAME" of each tile: an operand (tile_len[t] + 2 bytes) */
    char **var_arg;       /* ", NAME" of each var (var_len[v] + 2 bytes) */
    pto_buf argtext;      /* their text, padded (PTO__EMIT_PAD) */
    /* bound templates (pto__emit_bind): segment runs in bsegs, each ended
       by a key of -2; literal text in btext. Per op and depth the K_OP and
       K_OP_SEE lines with the op's name and the indent bound, per pass and
       depth the K_NOTE line (-1 = not bound yet; depth slot 0: the indent
       is not bound, for depths from PTO__EMIT_ND on). */
    pto__emit_seg *bsegs;
    int32_t nbsegs, bcap;
    pto_buf btext;
    int32_t bound_op[PTO_NOP][PTO__EMIT_ND], bound_see[PTO_NOP][PTO__EMIT_ND], bound_note[5][PTO__EMIT_ND];
    pto__emit_plan *plans;   /* what bound_* index */
    int32_t tpl_plan[PTO__NTPL][PTO__EMIT_ND];   /* pto__emit_x: plan + 1 (0 = not made, -1 = failed) */
    int32_t nplans, plancap;
    pto__emit_shape shape[PTO__EMIT_NSHAPE];   /* by a hash of the shape (pto__emit_tile_line) */
    int32_t shape_plans;
    /* ", PTO_K_V" ...: the argument text of each pipe, in btext; of each
       pair of pipes (a flag's two operands: pair index a * PTO_NPIPE + b) */
    int32_t pipe_off[PTO_NPIPE], pipe_len[PTO_NPIPE];
    int32_t pair_off[PTO_NPIPE * PTO_NPIPE], pair_len[PTO_NPIPE * PTO_NPIPE];
    size_t argmax;        /* the longest of those and of tile_arg / var_arg */
    /* A second target (emit_isa.c) reuses this walk: it sets hooks for the
       statements it spells differently (NULL: the C spelling below) and
       isa for the spelling of the builtins in kernel expressions. */
    void (*hook_op)(struct pto__emitter *E, int32_t s);
    void (*hook_tile)(struct pto__emitter *E, int32_t s);
    void (*hook_section)(struct pto__emitter *E, int32_t s);
    int isa;
} pto__emitter;

/* ---- the expander -------------------------------------------------------- */

static int pto__emit_key_lookup(const char *s, size_t n)
{
    int k;
    for (k = 0; k < PTO__NKEYS; k++)
        if (strlen(pto__emit_keys[k]) == n && memcmp(pto__emit_keys[k], s, n) == 0) return k;
    return -1;
}

static int pto__emit_seg_push(pto__emitter *E, int32_t *cap, int32_t off, int32_t len, int32_t key)
{
    if (E->nsegs == *cap) {
        int32_t ncap = *cap ? *cap * 2 : 256;
        pto__emit_seg *p = (pto__emit_seg *)pto_realloc(E->ctx, E->segs, (size_t)ncap * sizeof *p);
        if (!p) return 0;
        E->segs = p;
        *cap = ncap;
    }
    E->segs[E->nsegs].off = off;
    E->segs[E->nsegs].len = len;
    E->segs[E->nsegs].key = key;
    E->nsegs++;
    return 1;
}

/* Splits every template into literal and placeholder segments. An unknown
   key is a bug in the table above, caught by every test. */
static pto_status pto__emit_compile(pto__emitter *E)
{
    int32_t cap = 0;
    int t;
    for (t = 0; t < PTO__NTPL; t++) {
        const char *s = pto__emit_tpl[t];
        int32_t i = 0, lit = 0;
        E->tpl_first[t] = E->nsegs;
        while (s[i]) {
            if (s[i] == '$' && s[i + 1] == '(') {
                int32_t j = i + 2, key;
                while (s[j] && s[j] != ')') j++;
                key = pto__emit_key_lookup(s + i + 2, (size_t)(j - i - 2));
                PTO_ASSERT(key >= 0 && s[j] == ')');
                if (i > lit && !pto__emit_seg_push(E, &cap, lit, i - lit, -1)) return PTO_ERR_INTERNAL;
                if (!pto__emit_seg_push(E, &cap, 0, 0, key)) return PTO_ERR_INTERNAL;
                i = lit = j + 1;
            } else {
                i++;
            }
        }
        if (i > lit && !pto__emit_seg_push(E, &cap, lit, i - lit, -1)) return PTO_ERR_INTERNAL;
    }
    E->tpl_first[PTO__NTPL] = E->nsegs;
    return PTO_OK;
}

/* Copies n bytes without a library call for the short pieces that most
   appends are: two overlapping fixed-size copies (the compiler makes each a
   single load and store) read only the n source bytes. */
static inline void pto__emit_cp(char *d, const char *s, size_t n)
{
    if (n >= 8) {
        if (n <= 16) { memcpy(d, s, 8); memcpy(d + n - 8, s + n - 8, 8); }
        else if (n <= 32) { memcpy(d, s, 16); memcpy(d + n - 16, s + n - 16, 16); }
        else memcpy(d, s, n);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

/* pto_buf_putn with the common case inline: emission is mostly appends of
   a few bytes, and the call dominated the profile. Keeps b NUL-terminated
   (scratch values are read as C strings too). */
static inline void pto__emit_put(pto_buf *b, const char *s, size_t n)
{
    if (b->len + n < b->cap) {
        pto__emit_cp(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = 0;
    } else {
        pto_buf_putn(b, s, n);
    }
}

/* The output files' append: as pto__emit_put without the terminating NUL
   (pto__emit_nul writes it once a file is done). */
static inline void pto__emit_w(pto_buf *b, const char *s, size_t n)
{
    if (b->len + n < b->cap) {
        pto__emit_cp(b->data + b->len, s, n);
        b->len += n;
    } else {
        pto_buf_putn(b, s, n);
    }
}

static void pto__emit_nul(pto_buf *b)
{
    if (b && b->data && !b->oom && b->len < b->cap) b->data[b->len] = 0;
}

static void pto__emit_puts(pto_buf *b, const char *s) { pto__emit_put(b, s, strlen(s)); }

/* What a growing output reserves on top of what it needs: half of what it
   holds again, so that growing stays amortised; nothing with a sink, which
   reuses its staging area instead. */
static size_t pto__emit_slack(const pto_buf *b, size_t more) { return b->sink ? 0 : b->len / 2 + more; }

/* Grows b once to hold n more bytes, so that the appends of a whole file
   take the fast path (an estimate: a short one only costs a regrowth). A
   buffer with a sink sends what is pending instead and reuses its staging
   area, which grows only for a single reservation larger than it (a line
   longer than 64 KB). */
static void pto__emit_reserve(pto_buf *b, size_t n)
{
    char *p;
    if (b->oom || b->len + n + 1 <= b->cap) return;
    if (b->sink) {
        pto_buf_flush(b);
        pto__buf_stage(b, n);
        return;
    }
    if (!b->ctx) return;   /* pto_buf_putn sets oom on the next append */
    p = (char *)pto_realloc(b->ctx, b->data, b->len + n + 1);
    if (!p) return;   /* pto_buf_putn reports it on the next append */
    b->data = p;
    b->cap = b->len + n + 1;
}

/* Appends segments [g, end) (end NULL: up to the key -2 that ends a bound
   template) of literal text `text` and the current values to E->out. The
   write position stays in a local: a segment is a length test and a short
   copy; one that does not fit goes through pto_buf_putn, which grows the
   buffer (the files are reserved up front, so that is rare). */
static void pto__emit_segs(pto__emitter *E, const pto__emit_seg *g, const pto__emit_seg *end, const char *text)
{
    pto_buf *b = E->out;
    char *d, *lim;
    if (!b->data || b->oom) {   /* nothing reserved (out of memory): the checked path */
        for (; g != end && g->key != -2; g++)
            if (g->key < 0) pto_buf_putn(b, text + g->off, (size_t)g->len);
            else pto_buf_putn(b, E->val[g->key], E->vlen[g->key]);
        return;
    }
    d = b->data + b->len;
    lim = b->data + b->cap;
    for (; g != end && g->key != -2; g++) {
        const char *src = g->key < 0 ? text + g->off : E->val[g->key];
        size_t n = g->key < 0 ? (size_t)g->len : E->vlen[g->key];
        if ((size_t)(lim - d) <= n) {
            b->len = (size_t)(d - b->data);
            pto_buf_putn(b, src, n);
            if (b->oom) return;
            d = b->data + b->len;
            lim = b->data + b->cap;
            continue;
        }
        pto__emit_cp(d, src, n);
        d += n;
    }
    b->len = (size_t)(d - b->data);
}


/* Binds the keys of `known` (a bit per key) of template tpl to their
   current values: the result is the template with each run of literal text
   and bound values merged into one literal, so that expanding it
   (pto__emit_xb) copies only the values that change from line to line. The
   hot lines bind what is fixed per op (K_OP: "pto_k_tadds(core, \"") or per
   pass (K_NOTE: "/ * sync: "); -1 when out of memory. */
static int32_t pto__emit_bind(pto__emitter *E, int tpl, uint64_t known)
{
    const char *text = pto__emit_tpl[tpl];
    const pto__emit_seg *g = E->segs + E->tpl_first[tpl], *end = E->segs + E->tpl_first[tpl + 1];
    int32_t first = E->nbsegs, need = (int32_t)(end - g) + 1;
    pto_buf *t = &E->btext;
    if (E->nbsegs + need > E->bcap) {
        int32_t ncap = E->bcap ? E->bcap * 2 : 64;
        pto__emit_seg *p;
        while (ncap < E->nbsegs + need) ncap *= 2;
        p = (pto__emit_seg *)pto_realloc(E->ctx, E->bsegs, (size_t)ncap * sizeof *p);
        if (!p) return -1;
        E->bsegs = p;
        E->bcap = ncap;
    }
    for (; g < end; g++) {
        pto__emit_seg *o = &E->bsegs[E->nbsegs];
        const char *v = g->key < 0 ? text + g->off : E->val[g->key];
        size_t n = g->key < 0 ? (size_t)g->len : E->vlen[g->key];
        if (g->key >= 0 && !(known >> g->key & 1)) {
            o->off = o->len = 0;
            o->key = g->key;
            E->nbsegs++;
            continue;
        }
        if (E->nbsegs == first || o[-1].key >= 0) {   /* a new literal */
            o->off = (int32_t)t->len;
            o->len = 0;
            o->key = -1;
            E->nbsegs++;
        } else {
            o--;
        }
        pto__emit_put(t, v, n);
        o->len += (int32_t)n;
    }
    E->bsegs[E->nbsegs].key = -2;
    E->bsegs[E->nbsegs].off = E->bsegs[E->nbsegs].len = 0;
    E->nbsegs++;
    pto__emit_reserve(t, PTO__EMIT_BPAD);   /* (pto__emit_pcp64 reads past the last text) */
    return t->oom || t->cap < t->len + PTO__EMIT_BPAD ? -1 : first;
}

/* Template tpl bound (pto__emit_bind) and made a line plan for
   pto__emit_line: the literal pieces between its remaining keys; with
   `direct`, ARGS and NOTE are written from the statement (else from their
   values, as every other key). -1 when out of memory or when it has more
   keys than a plan holds. */
static int32_t pto__emit_plan_make(pto__emitter *E, int tpl, uint64_t known, int direct)
{
    int32_t first = pto__emit_bind(E, tpl, known), nk = 0;
    const pto__emit_seg *g;
    pto__emit_plan *p;
    if (first < 0) return -1;
    if (E->nplans == E->plancap) {
        int32_t ncap = E->plancap ? E->plancap * 2 : 16;
        pto__emit_plan *q = (pto__emit_plan *)pto_realloc(E->ctx, E->plans, (size_t)ncap * sizeof *q);
        if (!q) return -1;
        E->plans = q;
        E->plancap = ncap;
    }
    p = &E->plans[E->nplans];
    memset(p, 0, sizeof *p);
    for (g = E->bsegs + first; g->key != -2; g++) {
        if (g->key < 0) {   /* bind merged literal runs: at most one before each key */
            p->off[nk] = g->off;
            p->len[nk] = g->len;
            continue;
        }
        if (nk == PTO__EMIT_PK) return -1;
        p->key[nk] = (uint8_t)g->key;
        p->how[nk] = g->key == PTO__K_SRC ? PTO__HOW_SRC : direct && g->key == PTO__K_ARGS ? PTO__HOW_ARGS
                   : direct && g->key == PTO__K_NOTE ? PTO__HOW_NOTE : PTO__HOW_VAL;
        nk++;
    }
    p->nk = nk;
    p->simple = 1;
    p->opline = nk >= 2 && p->how[0] == PTO__HOW_SRC && p->how[1] == PTO__HOW_ARGS;
    for (nk = 0; nk <= p->nk; nk++) {
        p->lit += p->len[nk];
        if (nk < p->nk && (p->how[nk] == PTO__HOW_ARGS || p->how[nk] == PTO__HOW_NOTE)) p->simple = 0;
        if (nk >= 2 && nk < p->nk && p->how[nk] != PTO__HOW_VAL) p->opline = 0;
    }
    E->nbsegs = first;   /* the segments were only the way here */
    return E->nplans++;
}

static void pto__emit_v(pto__emitter *E, int key, const char *s)
{
    E->val[key] = s;
    E->vlen[key] = strlen(s);
}

static void pto__emit_vn(pto__emitter *E, int key, const char *s, int32_t n)
{
    E->val[key] = s;
    E->vlen[key] = (size_t)n;
}

static void pto__emit_vbuf(pto__emitter *E, int key)
{
    E->val[key] = E->scratch[key].data ? E->scratch[key].data : "";
    E->vlen[key] = E->scratch[key].len;
}

/* Decimal without printf: this runs once per number of every instruction.
   Two digits per step, written from the end. buf must hold 25 bytes. */
static size_t pto__emit_i64(char *buf, int64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "4041424344454647484950515253545556575859606162636465666768697071727374757677787980"
                                "81828384858687888990919293949596979899";
    char tmp[48], *p = tmp + 24;
    size_t n;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v >= 0 && v < 10000) {   /* most numbers (line numbers, shapes, offsets' parts): straight into buf */
        unsigned hi = (unsigned)v / 100, lo = (unsigned)v % 100;
        n = v >= 1000 ? 4 : v >= 100 ? 3 : v >= 10 ? 2 : 1;
        p = buf + n;
        *p = 0;
        p[-1] = pairs[2 * lo + 1];
        if (n >= 2) p[-2] = pairs[2 * lo];
        if (n >= 3) p[-3] = pairs[2 * hi + 1];
        if (n == 4) p[-4] = pairs[2 * hi];
        return n;
    }
    if (v > 0 && v < 100000000) {   /* line numbers of large sources, byte offsets: 32-bit steps, in place */
        uint32_t x = (uint32_t)v, r;
        n = x >= 10000000 ? 8 : x >= 1000000 ? 7 : x >= 100000 ? 6 : 5;
        p = buf + n;
        *p = 0;
        for (; x >= 100; x /= 100) {
            r = x % 100;
            p -= 2;
            p[0] = pairs[2 * r];
            p[1] = pairs[2 * r + 1];
        }
        if (x >= 10) { p[-2] = pairs[2 * x]; p[-1] = pairs[2 * x + 1]; }
        else p[-1] = (char)('0' + x);
        return n;
    }
    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        p -= 2;
        p[0] = pairs[2 * r];
        p[1] = pairs[2 * r + 1];
    }
    if (u >= 10) { p -= 2; p[0] = pairs[2 * u]; p[1] = pairs[2 * u + 1]; }
    else *--p = (char)('0' + u);
    if (v < 0) *--p = '-';
    n = (size_t)(tmp + 24 - p);
    memcpy(buf, p, 24);   /* a fixed size: no library call (buf holds 25 bytes or more) */
    buf[n] = 0;
    return n;
}

static void pto__emit_vi(pto__emitter *E, int key, int64_t v)
{
    if (!E->numlen[key] || E->numv[key] != v) {   /* (shapes repeat from tile to tile) */
        E->numlen[key] = pto__emit_i64(E->num[key], v);
        E->numv[key] = v;
    }
    E->vlen[key] = E->numlen[key];
    E->val[key] = E->num[key];
}

/* The scratch buffer of `key`, emptied, for building its value. */
static pto_buf *pto__emit_sb(pto__emitter *E, int key)
{
    pto_buf *b = &E->scratch[key];
    b->len = 0;
    if (b->data) b->data[0] = 0;
    return b;
}

static void pto__emit_put_i64(pto_buf *b, int64_t v)
{
    char num[40];   /* (inlined copies reason about 40 bytes) */
    pto__emit_put(b, num, pto__emit_i64(num, v));
}

static void pto__emit_indent(pto__emitter *E)
{
    static const char spaces[] = "                                                                "
                                 "                                                                ";
    size_t n = (size_t)E->depth * 4;
    if (n > sizeof spaces - 1) n = sizeof spaces - 1;
    E->val[PTO__K_IND] = spaces;
    E->vlen[PTO__K_IND] = n;
}

/* ---- names ---------------------------------------------------------------- */

static int pto__emit_is_reserved(const char *s)
{
    int lo = 0, hi = (int)(sizeof pto__emit_reserved / sizeof pto__emit_reserved[0]) - 1;
    if ((s[0] == 'p' && strncmp(s, "pto", 3) == 0) || (s[0] == 'P' && strncmp(s, "PTO", 3) == 0) ||
        (s[0] == 'u' && strncmp(s, "user_", 5) == 0) ||
        (s[0] == 'k' && strncmp(s, "kernel_", 7) == 0) || (s[0] == 'h' && strncmp(s, "host_", 5) == 0))
        return 1;
    while (lo <= hi) {   /* the first two bytes decide most steps without a call */
        const char *r = pto__emit_reserved[(lo + hi) / 2];
        int c = (unsigned char)s[0] - (unsigned char)r[0];
        if (c == 0) c = (unsigned char)s[1] - (unsigned char)r[1];
        if (c == 0 && s[1]) c = strcmp(s + 2, r + 2);
        if (c == 0) return 1;
        if (c < 0) hi = (lo + hi) / 2 - 1; else lo = (lo + hi) / 2 + 1;
    }
    return 0;
}

/* The C spelling of a .pto name: the interned text itself, or user_NAME in
   memory owned by the emitter (NULL when out of memory). */
static char *pto__emit_cname(pto__emitter *E, int32_t name, int *owned)
{
    const char *s = pto_str(E->ctx, name);
    char *c;
    size_t n;
    *owned = 0;
    if (name > 0 && name < E->ctx->n_strs && s[0] != 'p' && s[0] != 'P' && s[0] != 'u' && s[0] != 'k' && s[0] != 'h') {
        /* most names: no reserved name has these first two bytes and length */
        n = pto__str_len(E->ctx, name);
        if (n >= 32 || (n && !(E->rlen[PTO__EMIT_RKEY(s)] >> n & 1))) return (char *)s;
    }
    if (!pto__emit_is_reserved(s)) return (char *)s;
    n = strlen(s);
    c = (char *)pto_alloc(E->ctx, n + 6);
    if (!c) return NULL;
    memcpy(c, "user_", 5);
    memcpy(c + 5, s, n + 1);
    *owned = 1;
    return c;
}

/* The C names of every var, tile and param; owned[i] marks the renamed
   ones (allocated here, freed by pto__emit_free_names). */
enum { PTO__NAMES_VAR, PTO__NAMES_TILE, PTO__NAMES_PARAM };

static pto_status pto__emit_names(pto__emitter *E, int which, char ***names, uint8_t **owned)
{
    const pto_module *m = E->m;
    int32_t i, n = which == PTO__NAMES_VAR ? m->n_vars : which == PTO__NAMES_TILE ? m->n_tiles : m->n_params;
    for (i = 0; i < (int32_t)(sizeof pto__emit_reserved / sizeof pto__emit_reserved[0]); i++) {
        size_t len = strlen(pto__emit_reserved[i]);   /* (all shorter than 32) */
        E->rlen[PTO__EMIT_RKEY(pto__emit_reserved[i])] |= (uint32_t)1 << len;
    }
    *names = (char **)pto_alloc(E->ctx, (size_t)(n ? n : 1) * sizeof(char *));
    *owned = (uint8_t *)pto_alloc(E->ctx, (size_t)(n ? n : 1));
    if (!*names || !*owned) return PTO_ERR_INTERNAL;
    memset(*owned, 0, (size_t)(n ? n : 1));
    for (i = 0; i < n; i++) {
        int own;
        int32_t id = which == PTO__NAMES_VAR ? m->vars[i].name
                   : which == PTO__NAMES_TILE ? m->tiles[i].name : m->params[i].name;
        (*names)[i] = pto__emit_cname(E, id, &own);
        (*owned)[i] = (uint8_t)own;
        if (!(*names)[i]) return PTO_ERR_INTERNAL;
    }
    return PTO_OK;
}

static void pto__emit_free_names(pto__emitter *E, char **names, uint8_t *owned, int32_t n)
{
    int32_t i;
    if (names && owned)
        for (i = 0; i < n; i++)
            if (owned[i] && names[i]) pto_free(E->ctx, names[i]);
    if (names) pto_free(E->ctx, names);
    if (owned) pto_free(E->ctx, owned);
}

/* The lengths of the C names (after any renaming: emit_isa.c renames
   first), and the argument text of each pipe: what every line copies. */
static pto_status pto__emit_lens(pto__emitter *E)
{
    const pto_module *m = E->m;
    int32_t i, p;
    size_t total;
    E->var_len = (int32_t *)pto_alloc(E->ctx, sizeof(int32_t) * (size_t)(m->n_vars ? m->n_vars : 1));
    E->tile_len = (int32_t *)pto_alloc(E->ctx, sizeof(int32_t) * (size_t)(m->n_tiles ? m->n_tiles : 1));
    E->param_len = (int32_t *)pto_alloc(E->ctx, sizeof(int32_t) * (size_t)(m->n_params ? m->n_params : 1));
    if (!E->var_len || !E->tile_len || !E->param_len) return PTO_ERR_INTERNAL;
    for (i = 0; i < m->n_vars; i++) E->var_len[i] = (int32_t)strlen(E->var_name[i]);
    for (i = 0; i < m->n_tiles; i++) E->tile_len[i] = (int32_t)strlen(E->tile_name[i]);
    for (i = 0; i < m->n_params; i++) E->param_len[i] = (int32_t)strlen(E->param_name[i]);
    E->tile_arg = (char **)pto_alloc(E->ctx, sizeof(char *) * (size_t)(m->n_tiles ? m->n_tiles : 1));
    E->var_arg = (char **)pto_alloc(E->ctx, sizeof(char *) * (size_t)(m->n_vars ? m->n_vars : 1));
    if (!E->tile_arg || !E->var_arg) return PTO_ERR_INTERNAL;
    E->argtext.ctx = E->ctx;
    for (i = 0, total = 0; i < m->n_tiles; i++) total += (size_t)E->tile_len[i] + 2;
    for (i = 0; i < m->n_vars; i++) total += (size_t)E->var_len[i] + 2;
    pto__emit_reserve(&E->argtext, total + PTO__EMIT_PAD);   /* all of it: the text does not move */
    if (!E->argtext.data || E->argtext.cap < total + PTO__EMIT_PAD) return PTO_ERR_INTERNAL;
    memset(E->argtext.data, 0, E->argtext.cap);
    for (i = 0; i < m->n_tiles + m->n_vars; i++) {
        int tl = i < m->n_tiles;
        const char *nm = tl ? E->tile_name[i] : E->var_name[i - m->n_tiles];
        size_t n = (size_t)(tl ? E->tile_len[i] : E->var_len[i - m->n_tiles]);
        if (tl) E->tile_arg[i] = E->argtext.data + E->argtext.len;
        else E->var_arg[i - m->n_tiles] = E->argtext.data + E->argtext.len;
        memcpy(E->argtext.data + E->argtext.len, ", ", 2);
        memcpy(E->argtext.data + E->argtext.len + 2, nm, n);
        E->argtext.len += n + 2;
    }
    for (i = 0; i < PTO_NOP; i++)
        for (p = 0; p < PTO__EMIT_ND; p++) E->bound_op[i][p] = E->bound_see[i][p] = -1;
    for (i = 0; i < 5; i++)
        for (p = 0; p < PTO__EMIT_ND; p++) E->bound_note[i][p] = -1;
    E->btext.ctx = E->ctx;
    for (p = 0; p < PTO_NPIPE; p++) {
        E->pipe_off[p] = (int32_t)E->btext.len;
        pto__emit_put(&E->btext, ", PTO_K_", 8);
        pto__emit_puts(&E->btext, pto_pipe_name((pto_pipe)p));
        E->pipe_len[p] = (int32_t)E->btext.len - E->pipe_off[p];
    }
    for (p = 0; p < PTO_NPIPE * PTO_NPIPE; p++) {   /* every flag names two pipes */
        char pair[64];   /* (btext may move while it grows) */
        size_t na = (size_t)E->pipe_len[p / PTO_NPIPE], nb = (size_t)E->pipe_len[p % PTO_NPIPE];
        if (!E->btext.data || na + nb > sizeof pair) return PTO_ERR_INTERNAL;
        memcpy(pair, E->btext.data + E->pipe_off[p / PTO_NPIPE], na);
        memcpy(pair + na, E->btext.data + E->pipe_off[p % PTO_NPIPE], nb);
        E->pair_off[p] = (int32_t)E->btext.len;
        pto__emit_put(&E->btext, pair, na + nb);
        E->pair_len[p] = (int32_t)(na + nb);
    }
    for (i = 0, E->argmax = 3; i < m->n_tiles + m->n_vars; i++) {
        size_t n = (size_t)(i < m->n_tiles ? E->tile_len[i] : E->var_len[i - m->n_tiles]) + 2;
        if (n > E->argmax) E->argmax = n;
    }
    for (p = 0; p < PTO_NPIPE * PTO_NPIPE; p++)
        if ((size_t)E->pair_len[p] > E->argmax) E->argmax = (size_t)E->pair_len[p];
    pto__emit_reserve(&E->btext, PTO__EMIT_BPAD);   /* (pto__emit_pcp64 reads past the last text) */
    return E->btext.oom || E->btext.cap < E->btext.len + PTO__EMIT_BPAD ? PTO_ERR_INTERNAL : PTO_OK;
}

/* ---- expressions ----------------------------------------------------------
   One printer for the three spellings: C in a kernel (builtins read the
   core), C on the host (only dims and scalars can occur), and .pto text
   (for the heading comments). Parentheses follow C precedence. The .pto
   spelling keeps the tree as written; C folds what is constant and drops
   the identities x + 0, 0 + x, x - 0, x * 1, 1 * x and x / 1, so that a
   generated index such as `0 + (i - 0) % 2` reads `i % 2`. */

enum { PTO__EX_KERNEL, PTO__EX_HOST, PTO__EX_PTO };

static int pto__emit_expr_prec(const pto_expr *e)
{
    switch (e->kind) {
    case PTO_E_ADD: case PTO_E_SUB: return 1;
    case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD: return 2;
    case PTO_E_NEG: return 3;
    case PTO_E_INT: return e->value < 0 ? 3 : 4;
    default: return 4;
    }
}

/* Whether expression ex has a constant value (*v) without overflow: the
   integer literals combined by + - * and negation (never / or %, which can
   fail at run time). The printer asks this of every node and again of its
   operands (pto__emit_ident), which made a let's expression quadratic in
   its depth: each node's answer is kept (cstate bits 0-1: 0 = not asked
   yet, 1 = constant, its value in cval, 2 = not constant), so every node
   is evaluated once. The values are few (a let's `2 * 16`) and spread over
   the expressions: a table of them, not an array by expression, whose
   pages (3.5 MB at 100k instructions) were each touched for a value or two
   (a page fault costs ~1.3 us here). A constant whose operands are
   literals (cstate bit 2 with 1), the usual one, is not kept: working it
   out again reads two nodes, as a look-up would (pto__emit_shallow). */
static int pto__emit_const(pto__emitter *E, int32_t ex, int64_t *v);

/* The slot of ex in the value table: its entry, or the empty one where it
   goes (the table is never full: at most half used). */
static inline struct pto__emit_cv *pto__emit_cval(const pto__emitter *E, int32_t ex)
{
    uint32_t mask = E->cvcap - 1, h = ((uint32_t)ex * 2654435761u) & mask;
    while (E->cval[h].ex >= 0 && E->cval[h].ex != ex) h = (h + 1) & mask;
    return &E->cval[h];
}

/* Keeps constant ex's value; 0 when the table cannot grow (out of memory:
   the node's answer is then not kept and is worked out again when asked). */
static int pto__emit_cval_put(pto__emitter *E, int32_t ex, int64_t v)
{
    struct pto__emit_cv *c;
    if ((E->cvn + 1) * 2 > E->cvcap) {
        uint32_t ncap = E->cvcap ? E->cvcap * 2 : 256, i, old = E->cvcap;
        struct pto__emit_cv *t = (struct pto__emit_cv *)pto__alloc_quiet(E->ctx, sizeof *t * ncap), *o = E->cval;
        if (!t || ncap < E->cvcap) {
            pto_free(E->ctx, t);
            return 0;
        }
        for (i = 0; i < ncap; i++) t[i].ex = -1;
        E->cval = t;
        E->cvcap = ncap;
        for (i = 0; i < old; i++)
            if (o[i].ex >= 0) *pto__emit_cval(E, o[i].ex) = o[i];
        pto_free(E->ctx, o);
    }
    c = pto__emit_cval(E, ex);
    c->ex = ex;
    c->v = v;
    E->cvn++;
    return 1;
}

static inline int pto__emit_cq(pto__emitter *E, int32_t ex, int64_t *v);

/* The value of constant e whose operands are literals (cstate 1 | 4): it
   was worked out once with the overflow checks (pto__emit_const_eval), so
   the operation is known not to overflow. */
static inline int64_t pto__emit_shallow(const pto_module *m, const pto_expr *e)
{
    int64_t a = m->exprs[e->a].value, b = e->kind == PTO_E_NEG ? 0 : m->exprs[e->b].value;
    return e->kind == PTO_E_NEG ? -a : e->kind == PTO_E_ADD ? a + b : e->kind == PTO_E_SUB ? a - b : a * b;
}

static int pto__emit_const_eval(pto__emitter *E, const pto_expr *e, int64_t *v)
{
    int64_t a, b;
    switch (e->kind) {
    case PTO_E_INT: *v = e->value; return 1;
    case PTO_E_NEG:
        if (!pto__emit_cq(E, e->a, &a) || a == INT64_MIN) return 0;
        *v = -a;
        return 1;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL:
        if (!pto__emit_cq(E, e->a, &a) || !pto__emit_cq(E, e->b, &b)) return 0;
        if (e->kind == PTO_E_ADD) {
            if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 0;
            *v = a + b;
        } else if (e->kind == PTO_E_SUB) {
            if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return 0;
            *v = a - b;
        } else {
            if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
                      : (b > 0 ? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a))
                return 0;
            *v = a * b;
        }
        return 1;
    default: return 0;
    }
}

static int pto__emit_const(pto__emitter *E, int32_t ex, int64_t *v)
{
    const pto_module *m = E->m;
    int r;
    if (ex < 0 || ex >= m->n_exprs) return 0;
    if (m->exprs[ex].kind == PTO_E_INT) { *v = m->exprs[ex].value; return 1; }
    if (E->cstate && (E->cstate[ex] & 3)) {
        if ((E->cstate[ex] & 3) == 2) return 0;
        if (E->cstate[ex] & 4) { *v = pto__emit_shallow(m, &m->exprs[ex]); return 1; }   /* (literal operands) */
        *v = pto__emit_cval(E, ex)->v;
        return 1;
    }
    r = pto__emit_const_eval(E, &m->exprs[ex], v);
    if (E->cstate) {
        const pto_expr *e = &m->exprs[ex];
        if (!r) E->cstate[ex] |= 2;
        else if (m->exprs[e->a].kind == PTO_E_INT && (e->kind == PTO_E_NEG || m->exprs[e->b].kind == PTO_E_INT))
            E->cstate[ex] |= 1 | 4;   /* worked out again when asked: as cheap as finding it */
        else if (pto__emit_cval_put(E, ex, *v))
            E->cstate[ex] |= 1;
    }
    return r;
}

/* pto__emit_const with the answers it kept (and literals) read in place:
   the printer asks for them at every node and again at its parent. */
static inline int pto__emit_cq(pto__emitter *E, int32_t ex, int64_t *v)
{
    const pto_module *m = E->m;
    if (ex >= 0 && ex < m->n_exprs) {
        if (m->exprs[ex].kind == PTO_E_INT) { *v = m->exprs[ex].value; return 1; }
        if (E->cstate && (E->cstate[ex] & 3) == 2) return 0;
        if (E->cstate && (E->cstate[ex] & 3) == 1) {
            *v = E->cstate[ex] & 4 ? pto__emit_shallow(m, &m->exprs[ex]) : pto__emit_cval(E, ex)->v;
            return 1;
        }
    }
    return pto__emit_const(E, ex, v);
}

/* The operand that an identity (x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1)
   reduces ex to, repeatedly; ex itself when it is none. */
static int32_t pto__emit_ident(pto__emitter *E, int32_t ex)
{
    const pto_module *m = E->m;
    for (;;) {
        const pto_expr *e;
        int64_t a = 0, b = 0;   /* read only when ka / kb say they were set */
        int ka, kb;
        if (ex < 0 || ex >= m->n_exprs) return ex;
        e = &m->exprs[ex];
        if (e->kind != PTO_E_ADD && e->kind != PTO_E_SUB && e->kind != PTO_E_MUL && e->kind != PTO_E_DIV) return ex;
        ka = pto__emit_cq(E, e->a, &a);
        kb = pto__emit_cq(E, e->b, &b);
        if (kb && b == (e->kind == PTO_E_ADD || e->kind == PTO_E_SUB ? 0 : 1)) ex = e->a;
        else if (ka && a == (e->kind == PTO_E_ADD ? 0 : 1) && (e->kind == PTO_E_ADD || e->kind == PTO_E_MUL)) ex = e->b;
        else return ex;
    }
}

/* pto__emit_ident restricted to literal operands (x + 0, 0 + x, x - 0,
   x * 1, 1 * x, x / 1 with the 0 or 1 an INT node): no constant folding of
   whole subtrees, so it is cheap enough to try first. Removing such an
   identity keeps the value, the folding and the printed text the same. */
static inline int32_t pto__emit_peel_loop(const pto_module *m, int32_t ex)
{
    while (ex >= 0 && ex < m->n_exprs) {
        const pto_expr *e = &m->exprs[ex];
        const pto_expr *a, *b;
        if (e->kind < PTO_E_ADD || e->kind > PTO_E_DIV || e->a < 0 || e->a >= m->n_exprs || e->b < 0 ||
            e->b >= m->n_exprs)
            return ex;
        a = &m->exprs[e->a];
        b = &m->exprs[e->b];
        if (b->kind == PTO_E_INT && b->value == (e->kind == PTO_E_ADD || e->kind == PTO_E_SUB ? 0 : 1)) ex = e->a;
        else if (a->kind == PTO_E_INT && (e->kind == PTO_E_ADD || e->kind == PTO_E_MUL) &&
                 a->value == (e->kind == PTO_E_ADD ? 0 : 1)) ex = e->b;
        else return ex;
    }
    return ex;
}

/* pto__emit_peel_loop, with the usual case (not + - * /: nothing to peel)
   decided without a call. */
static inline int32_t pto__emit_peel(const pto_module *m, int32_t ex)
{
    if (ex < 0 || ex >= m->n_exprs || m->exprs[ex].kind < PTO_E_ADD || m->exprs[ex].kind > PTO_E_DIV) return ex;
    return pto__emit_peel_loop(m, ex);
}

static const char *const pto__emit_ops[] = {" + ", " - ", " * ", " / ", " % "};

/* Whether kernel expression ex is, once the literal identities are peeled
   (pto__emit_peel), VAR op INT with op one of + - * / % and INT > 1: then
   nothing folds and it prints as "NAME op INT" (the rotating event ids
   `0 + (i - 0) % 2`, i * 16): pto__emit_opline writes such an id in place.
   (pto__emit_expr gives the same text without asking: the identities it
   removes are these, and a divisor above 1 needs no pto_emit_div; asked at
   every node of a let's expression, this test was a quarter of its cost.) */
static inline int pto__emit_varop(pto__emitter *E, int32_t ex, int32_t *v, int32_t *kind, int64_t *val)
{
    const pto_module *m = E->m;
    const pto_expr *x;
    int32_t xa, xb;
    if (ex < 0 || ex >= m->n_exprs || m->exprs[ex].kind < PTO_E_ADD || m->exprs[ex].kind > PTO_E_MOD || !E->var_len)
        return 0;
    x = &m->exprs[pto__emit_peel(m, ex)];
    if (x->kind < PTO_E_ADD || x->kind > PTO_E_MOD) return 0;
    xa = pto__emit_peel(m, x->a);
    if (xa < 0 || xa >= m->n_exprs || m->exprs[xa].kind != PTO_E_VAR || m->exprs[xa].a < 0 || m->exprs[xa].a >= m->n_vars)
        return 0;
    xb = pto__emit_peel(m, x->b);
    if (xb < 0 || xb >= m->n_exprs || m->exprs[xb].kind != PTO_E_INT || m->exprs[xb].value <= 1) return 0;
    *v = m->exprs[xa].a;
    *kind = x->kind;
    *val = m->exprs[xb].value;
    return 1;
}

/* pto__emit_varop through the small cache above. */
static int pto__emit_varop_c(pto__emitter *E, int32_t ex, int32_t *v, int32_t *kind, int64_t *val)
{
    int h = ex & 7, r;
    if (E->vo_ex[h] == ex + 1) {
        *v = E->vo_v[h];
        *kind = E->vo_kind[h];
        *val = E->vo_val[h];
        return *kind != 0;
    }
    r = pto__emit_varop(E, ex, v, kind, val);
    E->vo_ex[h] = ex + 1;
    E->vo_v[h] = r ? *v : 0;
    E->vo_kind[h] = r ? *kind : 0;
    E->vo_val[h] = r ? *val : 0;
    return r;
}

static inline void pto__emit_int(pto_buf *b, int64_t v, int mode)
{
    if (v >= 0 && v < 10) {   /* most of them: an event id, a zero offset */
        char c = (char)('0' + v);
        pto__emit_put(b, &c, 1);
    } else if (v == INT64_MIN && mode != PTO__EX_PTO) pto__emit_puts(b, "(-9223372036854775807 - 1)");
    else pto__emit_put_i64(b, v);
}

/* Whether a / or % goes through pto_emit_div / pto_emit_mod: in the C of
   the simulator (kernel and host, not the isa target) when the divisor is
   not a constant other than 0 and -1. A divisor from a launch value (-D S=0)
   would otherwise trap the whole run (SIGFPE) before the interpreter could
   name the .pto line at fault. */
static inline int pto__emit_safediv(pto__emitter *E, const pto_expr *e, int mode)
{
    int64_t d;
    if (mode == PTO__EX_PTO || E->isa || (e->kind != PTO_E_DIV && e->kind != PTO_E_MOD)) return 0;
    return !pto__emit_cq(E, e->b, &d) || d == 0 || d == -1;
}

static void pto__emit_expr(pto__emitter *E, pto_buf *b, int32_t ex, int mode, int ctxprec)
{
    static const char *const builtin_c[] = {"pto_k_block_idx(core)", "pto_k_block_num(core)",
                                            "pto_k_subblock(core)", "pto_k_rank(core)", "pto_k_nranks(core)"};
    static const char *const builtin_pto[] = {"block", "blocks", "subblock", "rank", "nranks"};
    static const char *const builtin_isa[] = {"(int64_t)get_block_idx()", "(int64_t)get_block_num()",
                                              "(int64_t)get_subblockid()", "0", "1"};
    const pto_module *m = E->m;
    const pto_expr *e;
    int prec, paren;
    int64_t cv;
    if (ex >= 0 && ex < m->n_exprs && m->exprs[ex].kind <= PTO_E_VAR) {   /* the common leaves, directly */
        e = &m->exprs[ex];
        if (e->kind == PTO_E_INT) {
            paren = e->value < 0 && ctxprec > 3;
            if (paren) pto__emit_put(b, "(", 1);
            pto__emit_int(b, e->value, mode);
            if (paren) pto__emit_put(b, ")", 1);
        } else if (e->a < 0 || e->a >= m->n_vars) {
            pto__emit_put(b, "0", 1);
        } else if (mode == PTO__EX_KERNEL && E->var_len) {   /* (host calls rebind the names) */
            pto__emit_put(b, E->var_name[e->a], (size_t)E->var_len[e->a]);
        } else {
            pto__emit_puts(b, mode == PTO__EX_PTO ? pto_str(E->ctx, m->vars[e->a].name) : E->var_name[e->a]);
        }
        return;
    }
    if (mode != PTO__EX_PTO) {
        if (pto__emit_cq(E, ex, &cv)) {
            paren = cv < 0 && ctxprec > 3;
            if (paren) pto__emit_put(b, "(", 1);
            pto__emit_int(b, cv, mode);
            if (paren) pto__emit_put(b, ")", 1);
            return;
        }
        ex = pto__emit_ident(E, ex);
    }
    if (ex < 0 || ex >= m->n_exprs) {
        pto__emit_puts(b, "0");
        return;
    }
    e = &m->exprs[ex];
    prec = pto__emit_safediv(E, e, mode) ? 4 : pto__emit_expr_prec(e);   /* a call needs no parentheses */
    paren = prec < ctxprec;
    if (paren) pto__emit_put(b, "(", 1);
    switch (e->kind) {
    case PTO_E_INT: pto__emit_int(b, e->value, mode); break;
    case PTO_E_VAR:
        if (e->a >= 0 && e->a < m->n_vars)
            pto__emit_puts(b, mode == PTO__EX_PTO ? pto_str(E->ctx, m->vars[e->a].name) : E->var_name[e->a]);
        else
            pto__emit_puts(b, "0");
        break;
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS:
        if (mode == PTO__EX_PTO) pto__emit_puts(b, builtin_pto[e->kind - PTO_E_BLOCK]);
        else if (mode == PTO__EX_KERNEL && E->isa) pto__emit_puts(b, builtin_isa[e->kind - PTO_E_BLOCK]);
        else if (mode == PTO__EX_KERNEL) pto__emit_puts(b, builtin_c[e->kind - PTO_E_BLOCK]);
        else pto__emit_puts(b, e->kind == PTO_E_NRANKS ? "1" : "0");
        break;
    case PTO_E_MIN: case PTO_E_MAX:
        if (mode == PTO__EX_PTO) pto__emit_puts(b, e->kind == PTO_E_MIN ? "min(" : "max(");
        else pto__emit_puts(b, e->kind == PTO_E_MIN ? "pto_emit_min(" : "pto_emit_max(");
        pto__emit_expr(E, b, e->a, mode, 0);
        pto__emit_put(b, ", ", 2);
        pto__emit_expr(E, b, e->b, mode, 0);
        pto__emit_put(b, ")", 1);
        break;
    case PTO_E_NEG:
        pto__emit_put(b, "-", 1);
        pto__emit_expr(E, b, e->a, mode, 4);   /* never "--x" */
        break;
    default: {
        static const char *const ops[] = {" + ", " - ", " * ", " / ", " % "};
        if (pto__emit_safediv(E, e, mode)) {
            pto__emit_puts(b, e->kind == PTO_E_DIV ? "pto_emit_div(" : "pto_emit_mod(");
            pto__emit_expr(E, b, e->a, mode, 0);
            pto__emit_put(b, ", ", 2);
            pto__emit_expr(E, b, e->b, mode, 0);
            pto__emit_put(b, ")", 1);
            break;
        }
        pto__emit_expr(E, b, e->a, mode, prec);
        pto__emit_put(b, ops[e->kind - PTO_E_ADD], 3);
        pto__emit_expr(E, b, e->b, mode, prec + 1);
        break;
    }
    }
    if (paren) pto__emit_put(b, ")", 1);
}

/* A double as the shortest text that reads back to the same value. The
   snprintf/strtod search is slow, and a kernel repeats its few literals:
   a small cache keyed by the bits keeps each text. */
static void pto__emit_float(pto__emitter *E, pto_buf *b, double v, int mode)
{
    uint64_t bits;
    char *num;
    int prec, h;
    if (v != v) { pto__emit_puts(b, mode == PTO__EX_PTO ? "nan" : "NAN"); return; }
    if (v - v != 0) {   /* infinite */
        pto__emit_puts(b, v < 0 ? (mode == PTO__EX_PTO ? "-inf" : "-INFINITY") : (mode == PTO__EX_PTO ? "inf" : "INFINITY"));
        return;
    }
    memcpy(&bits, &v, sizeof v);
    h = (int)((bits ^ bits >> 29 ^ bits >> 52) & 15);
    num = E->fnum[h];
    if (!E->fvalid[h] || memcmp(&E->fval[h], &v, sizeof v) != 0) {
        for (prec = 1; prec < 17; prec++) {
            snprintf(num, sizeof E->fnum[h], "%.*g", prec, v);
            if (strtod(num, NULL) == v) break;
        }
        snprintf(num, sizeof E->fnum[h], "%.*g", prec, v);
        if (!strpbrk(num, ".eE")) strcat(num, ".0");
        E->fval[h] = v;
        E->fvalid[h] = 1;
    }
    pto__emit_puts(b, num);
}

/* ---- uses: which names a kernel reads (the rest get a (void) cast) ------- */

static void pto__emit_use_expr(pto__emitter *E, int32_t ex)
{
    const pto_module *m = E->m;
    while (ex >= 0 && ex < m->n_exprs) {
        const pto_expr *e = &m->exprs[ex];
        if (e->kind == PTO_E_VAR) {
            if (e->a >= 0 && e->a < m->n_vars) E->var_used[e->a] = 1;
            return;
        }
        if (e->kind < PTO_E_ADD) return;
        if (e->kind <= PTO_E_MAX && e->b >= 0 && e->b < m->n_exprs && m->exprs[e->b].kind != PTO_E_INT)
            pto__emit_use_expr(E, e->b);   /* (a literal operand, the common case, names nothing) */
        ex = e->a;
    }
}

/* pto__emit_use_expr where there is something to walk: no call for a
   missing expression (-1) or a literal (an event id). */
static inline void pto__emit_use(pto__emitter *E, int32_t ex)
{
    if (ex >= 0 && ex < E->m->n_exprs && E->m->exprs[ex].kind != PTO_E_INT) pto__emit_use_expr(E, ex);
}

/* pto__emit_use for pto__emit_check's pass (one kernel, the uses kept
   for the whole module): the expression is only marked (cstate bit 3), and
   pto__emit_use_sweep walks the marked ones once, however many statements
   name them (a set_flag and its wait_flag share their event id), in index
   order rather than in the statements' order, which at 100k instructions
   was a cache miss per expression. */
static inline void pto__emit_use_later(pto__emitter *E, int32_t ex)
{
    if ((uint32_t)ex >= (uint32_t)E->m->n_exprs) return;
    if (E->cstate) E->cstate[ex] |= 8;
    else pto__emit_use(E, ex);
}

/* The names the marked expressions read (pto__emit_use_later), as
   pto__emit_use_expr finds them: from the highest index down, a marked
   node marks its operands (b only of + - * / % min max; a of those and of
   negation) and a VAR node its variable. A node's operands were made
   before it and so are reached later in the same sweep; one made after it
   (an expression built by hand) is walked on the spot. */
static void pto__emit_use_sweep(pto__emitter *E)
{
    const pto_module *m = E->m;
    uint8_t *cs = E->cstate;
    int32_t ex = m->n_exprs;
    if (!cs) return;
    while (ex > 0) {
        const pto_expr *e;
        int32_t c;
        if (ex >= 8) {   /* eight entries at a time while none is marked */
            uint64_t w;
            memcpy(&w, cs + ex - 8, 8);
            if (!(w & 0x0808080808080808u)) {
                ex -= 8;
                continue;
            }
        }
        ex--;
        if (!(cs[ex] & 8)) continue;
        e = &m->exprs[ex];
        if (e->kind == PTO_E_VAR) {
            if (e->a >= 0 && e->a < m->n_vars) E->var_used[e->a] = 1;
            continue;
        }
        if (e->kind < PTO_E_ADD) continue;
        for (c = 0; c < 2; c++) {
            int32_t k = c ? e->b : e->a;
            if (c && e->kind > PTO_E_MAX) break;
            if ((uint32_t)k >= (uint32_t)m->n_exprs) continue;
            if (k < ex) cs[k] |= 8;
            else pto__emit_use(E, k);
        }
    }
}

/* The names statement s reads (not those of its nested blocks). */
static void pto__emit_use_stmt(pto__emitter *E, const pto_stmt *st)
{
    const pto_module *m = E->m;
    int i;
    switch (st->kind) {
    case PTO_ST_OP:
        for (i = 0; i < st->nargs; i++) {
            const pto_operand *o = &m->operands[st->arg0 + i];
            if (o->kind == PTO_O_GM && o->ref >= 0) E->param_used[o->ref] = 1;
            if (o->kind == PTO_O_SCALAR && o->ref >= 0) E->var_used[o->ref] = 1;
            if (o->kind == PTO_O_GM || o->kind == PTO_O_INT) {
                pto__emit_use(E, o->e[0]);
                pto__emit_use(E, o->e[1]);
                if (o->kind == PTO_O_GM) pto__emit_use(E, o->e[2]);
            }
        }
        break;
    case PTO_ST_TILE:
        if (st->ref >= 0) {
            pto__emit_use(E, m->tiles[st->ref].valid_r);
            pto__emit_use(E, m->tiles[st->ref].valid_c);
        }
        break;
    default:
        for (i = 0; i < 3; i++) pto__emit_use(E, st->e[i]);
        break;
    }
}

static void pto__emit_use_block(pto__emitter *E, int32_t block)
{
    const pto_module *m = E->m;
    int32_t s;
    for (s = m->blocks[block].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        pto__emit_use_stmt(E, st);
        if (st->body >= 0) pto__emit_use_block(E, st->body);
        if (st->orelse >= 0) pto__emit_use_block(E, st->orelse);
    }
}

/* Which blocks the walk from kernel 0's body reaches (a one-kernel
   module): up the owners of each block (a FOR / IF / SECTION that is itself
   in a reached block and has the block as its body or else) to the body;
   the answers along the way are kept, so each block is climbed once. With
   it the uses are gathered in index order during pto__emit_check's pass:
   the walk in block order chases `next` from statement to statement, one
   memory latency after another, and was a fifth of emit's time at 100k. */
static pto_status pto__emit_reach(pto__emitter *E)
{
    const pto_module *m = E->m;
    int32_t b, body = m->n_kernels == 1 ? m->kernels[0].body : -1;
    E->reach = (uint8_t *)pto_alloc(E->ctx, (size_t)(m->n_blocks ? m->n_blocks : 1));
    if (!E->reach) return PTO_ERR_INTERNAL;
    memset(E->reach, 0, (size_t)(m->n_blocks ? m->n_blocks : 1));
    if (body >= 0 && body < m->n_blocks) E->reach[body] = 1;
    for (b = 0; b < m->n_blocks; b++) {
        int32_t cur = b, n = 0, i;
        uint8_t r;
        for (;;) {   /* up to a block whose answer is known */
            int32_t o = m->blocks[cur].owner;
            const pto_stmt *os;
            if (E->reach[cur]) { r = E->reach[cur]; break; }
            n++;
            if (o < 0 || o >= m->n_stmts || n > m->n_blocks) { r = 2; break; }   /* not the body; a cycle */
            os = &m->stmts[o];
            if (os->block < 0 || os->block >= m->n_blocks || (os->body != cur && os->orelse != cur)) { r = 2; break; }
            cur = os->block;
        }
        for (cur = b, i = 0; i < n && i < m->n_blocks; i++) {   /* the same way again, keeping it */
            E->reach[cur] = r;
            if (m->blocks[cur].owner < 0 || m->blocks[cur].owner >= m->n_stmts) break;
            cur = m->stmts[m->blocks[cur].owner].block;
            if (cur < 0 || cur >= m->n_blocks || E->reach[cur]) break;
        }
    }
    return PTO_OK;
}

/* ---- the prefetch cursor ---------------------------------------------------
   The walk follows `next` from statement to statement, and the statements
   sit wherever the passes added them (sync appends its flags at the end of
   the array): at 100k instructions each step was a cache miss, a third of
   emit's time. pto__emit_check's pass (in index order) files each
   statement's successor in the walk's order (succ), a cursor runs
   PTO__EMIT_AHEAD statements ahead of the walk along it and asks for the
   memory of the statement it reaches; half way, the statement's operands
   and note; a quarter of the way, its expressions and the note's text.
   Only a hint: the output never depends on it. Measured at 100k
   instructions (450k statements): emit 42.0 -> 37.8 ms with warm output
   buffers; off below PTO__EMIT_AHEAD_MIN. Without it emit takes 13% longer
   today (fresh processes, session 10). */

/* The successor of statement st in the walk: the head of its body (or of
   its else when it has no body), else its next; -2 - block for the end
   of a block (resolved when the cursor gets there, pto__emit_after). */
static int32_t pto__emit_succ(const pto_module *m, const pto_stmt *st)
{
    int32_t b = -1;
    if (st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF || st->kind == PTO_ST_SECTION)
        b = st->body >= 0 ? st->body : st->kind == PTO_ST_IF ? st->orelse : -1;
    if (b >= 0 && b < m->n_blocks) return m->blocks[b].head >= 0 ? m->blocks[b].head : -2 - b;
    if (st->next >= 0) return st->next;
    return st->block >= 0 && st->block < m->n_blocks ? -2 - st->block : -1;
}

/* The statement the walk reaches after block b ends (-1: none). */
static int32_t pto__emit_after(pto__emitter *E, int32_t b)
{
    const pto_module *m = E->m;
    const pto_stmt *os;
    int32_t o, r = -1;
    if (b < 0 || b >= m->n_blocks) return -1;
    if (E->after[b] != -2) return E->after[b] == -3 ? -1 : E->after[b];
    E->after[b] = -3;   /* (a malformed module's cycle ends here) */
    o = m->blocks[b].owner;
    if (o >= 0 && o < m->n_stmts) {
        os = &m->stmts[o];
        if (os->kind == PTO_ST_IF && os->body == b && os->orelse >= 0 && os->orelse < m->n_blocks)
            r = m->blocks[os->orelse].head >= 0 ? m->blocks[os->orelse].head : pto__emit_after(E, os->orelse);
        else if (os->body == b || os->orelse == b)
            r = os->next >= 0 ? os->next : pto__emit_after(E, os->block);
    }
    E->after[b] = r >= 0 && r < m->n_stmts ? r : -1;
    return E->after[b];
}

/* The expressions statement st reads, asked for (their root nodes; a
   node's operands were made just before it, so they are mostly near). */
static void pto__emit_ahead_exprs(const pto_module *m, const pto_stmt *st)
{
    int32_t i, e;
    if (st->kind == PTO_ST_OP) {
        const pto_operand *o;
        if (st->arg0 < 0 || st->nargs <= 0 || st->arg0 > m->n_operands - st->nargs) return;
        for (o = &m->operands[st->arg0], i = 0; i < st->nargs && i < 8; i++, o++) {
            if (o->kind != PTO_O_INT && o->kind != PTO_O_GM) continue;
            e = o->e[0];
            if (e >= 0 && e < m->n_exprs) PTO__EMIT_PREFETCH(&m->exprs[e]);
            e = o->e[1];
            if (e >= 0 && e < m->n_exprs) PTO__EMIT_PREFETCH(&m->exprs[e]);
        }
        return;
    }
    for (i = 0; i < 3; i++) {
        e = st->e[i];
        if (e >= 0 && e < m->n_exprs) PTO__EMIT_PREFETCH(&m->exprs[e]);
    }
}

/* One step of the cursor: the statement it reaches (and the successor
   entry it reads next) is asked for; the one it reached half the distance
   ago (in cache by now) has its operands and note's offset asked for, and
   the one of three quarters ago its expressions and note's text. */
static void pto__emit_ahead(pto__emitter *E)
{
    const pto_module *m = E->m;
    int32_t c = E->pf, h, n;
    h = E->pfring[(E->pfstep - PTO__EMIT_AHEAD / 2) & (PTO__EMIT_AHEAD - 1)];
    if (h >= 0) {
        const pto_stmt *st = &m->stmts[h];
        if (st->nargs > 0 && st->arg0 >= 0 && st->arg0 < m->n_operands) {
            PTO__EMIT_PREFETCH(&m->operands[st->arg0]);
            PTO__EMIT_PREFETCH((const char *)&m->operands[st->arg0] + 64);
            PTO__EMIT_PREFETCH((const char *)&m->operands[st->arg0] + 128);
        }
        if (st->note > 0 && st->note < E->nnotes) {
            PTO__EMIT_PREFETCH(&E->note_first[st->note]);
            PTO__EMIT_PREFETCH(&E->ctx->str_off[st->note]);
        }
    }
    h = E->pfring[(E->pfstep - PTO__EMIT_AHEAD * 3 / 4) & (PTO__EMIT_AHEAD - 1)];
    if (h >= 0) {
        const pto_stmt *st = &m->stmts[h];
        pto__emit_ahead_exprs(m, st);
        if (st->note > 0 && st->note < E->nnotes) {
            const char *t = E->ctx->pool + E->ctx->str_off[st->note];
            PTO__EMIT_PREFETCH(t);
            PTO__EMIT_PREFETCH(t + 64);
        }
    }
    E->pfring[E->pfstep++ & (PTO__EMIT_AHEAD - 1)] = c;
    if (c < 0) return;
    PTO__EMIT_PREFETCH(&m->stmts[c]);
    PTO__EMIT_PREFETCH((const char *)&m->stmts[c] + sizeof(pto_stmt) - 1);
    n = E->succ[c];
    if (n < -1) n = pto__emit_after(E, -2 - n);
    E->pf = n >= 0 && n < E->m->n_stmts ? n : -1;
    if (E->pf >= 0) PTO__EMIT_PREFETCH(&E->succ[E->pf]);
}

/* Puts the cursor on the first statement of block b, PTO__EMIT_AHEAD
   steps ahead of the walk that starts there. */
static void pto__emit_ahead_start(pto__emitter *E, int32_t b)
{
    int i;
    E->pf = -1;
    for (i = 0; i < PTO__EMIT_AHEAD; i++) E->pfring[i] = -1;
    if (!E->succ || b < 0 || b >= E->m->n_blocks) return;
    E->pf = E->m->blocks[b].head;
    if (E->pf < 0 || E->pf >= E->m->n_stmts) E->pf = -1;
    for (i = 0; i < PTO__EMIT_AHEAD; i++) pto__emit_ahead(E);
}

/* ---- kernel statements ---------------------------------------------------- */

static void pto__emit_block(pto__emitter *E, int32_t block);

/* "FILE:LINE: op" (or "FILE:LINE: tile NAME") for emit_isa.c's comments:
   the line and the instruction; the operands are on that line of the .pto
   and in the call itself, so they are not repeated in every string. */
static void pto__emit_src(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    pto_buf *b = pto__emit_sb(E, PTO__K_SRC);
    pto__emit_puts(b, E->file);
    pto__emit_put(b, ":", 1);
    pto__emit_put_i64(b, st->loc.line);
    pto__emit_put(b, ": ", 2);
    if (st->kind == PTO_ST_TILE) {
        pto__emit_puts(b, "tile ");
        pto__emit_puts(b, pto_str(E->ctx, m->tiles[st->ref].name));
        pto__emit_vbuf(E, PTO__K_SRC);
        return;
    }
    pto__emit_puts(b, pto_opinfo_get((pto_op)st->op)->name);
    pto__emit_vbuf(E, PTO__K_SRC);
}

/* The C target's src string: "FILE:LINE". The call itself names the
   instruction (and the simulator's reports name it too), so the string only
   says where it comes from. Consecutive statements often share a line (a
   flag and the op it guards): the text is kept from one to the next. */
static void pto__emit_srcline_set(pto__emitter *E, int32_t line)
{
    size_t n = E->vlen[PTO__K_SRC];
    if (line > 1 && line - 1 == E->srcline_line && n > E->file_len + 1 && E->val[PTO__K_SRC] == E->srcline) {
        char *p = E->srcline + n - 1;   /* the next line: add one to the digits in place */
        while (p > E->srcline + E->file_len + 1 && *p == '9') *p-- = '0';
        if (*p != '9') {
            (*p)++;
            E->srcline_line = line;
            return;
        }
    }
    n = E->file_len + 1;   /* after "FILE:", which pto__emit_file_name wrote */
    n += pto__emit_i64(E->srcline + n, line);
    E->srcline_line = line;
    E->val[PTO__K_SRC] = E->srcline;
    E->vlen[PTO__K_SRC] = n;
}

/* The same line as the statement before (a flag and the op it guards)
   keeps the text, without a call. */
static inline void pto__emit_srcline(pto__emitter *E, int32_t s)
{
    int32_t line = E->m->stmts[s].loc.line;
    if (line == E->srcline_line && E->vlen[PTO__K_SRC] && E->val[PTO__K_SRC] == E->srcline) return;
    pto__emit_srcline_set(E, line);
}

/* A write position in the output kept in locals (d, lim) while a line is
   written: an append is a length test and a short copy. pto__wr_sync
   stores the position back before anything appends to the pto_buf itself
   (the expression printer), pto__wr_load picks it up again. */
typedef struct pto__emit_wr {
    char *d, *lim;
    pto_buf *b;
} pto__emit_wr;

static inline void pto__wr_load(pto__emit_wr *w)
{
    w->d = w->b->data + w->b->len;
    w->lim = w->b->data + w->b->cap;
}

static inline void pto__wr_sync(pto__emit_wr *w) { w->b->len = (size_t)(w->d - w->b->data); }

static void pto__wr_slow(pto__emit_wr *w, const char *s, size_t n)
{
    pto__wr_sync(w);
    pto_buf_putn(w->b, s, n);   /* grows it (or records out of memory) */
    if (w->b->data) pto__wr_load(w);
    else w->d = w->lim = NULL;
}

/* As pto__emit_cp from a source that can be read 32 bytes past its start
   (text the emitter owns and pads: PTO__EMIT_PAD): one or two 16-byte moves
   whatever n is up to 32; the destination needs that much room too. */
static inline void pto__emit_pcp(char *d, const char *s, size_t n)
{
    if (n <= 16) memcpy(d, s, 16);
    else if (n <= 32) memcpy(d, s, 32);
    else memcpy(d, s, n);
}

/* pto__wr from padded text. */
static inline void pto__wrp(pto__emit_wr *w, const char *s, size_t n)
{
    if (n + PTO__EMIT_PAD <= (size_t)(w->lim - w->d)) {
        pto__emit_pcp(w->d, s, n);
        w->d += n;
    } else {
        pto__wr_slow(w, s, n);
    }
}

static inline void pto__wr(pto__emit_wr *w, const char *s, size_t n)
{
    if (n < (size_t)(w->lim - w->d)) {
        pto__emit_cp(w->d, s, n);
        w->d += n;
    } else {
        pto__wr_slow(w, s, n);
    }
}

/* ", a, x, r, c" : the operands as device-call arguments, straight into
   the output (no scratch copy): the names and pipes are texts made once,
   the rest goes through the expression printer. */
static void pto__emit_args_to(pto__emitter *E, pto__emit_wr *w, const pto_operand *o, const pto_operand *end)
{
    const pto_module *m = E->m;
    pto_buf *b = w->b;
    for (; o < end; o++) {
        switch (o->kind) {
        case PTO_O_PIPE:
            pto__wrp(w, E->btext.data + E->pipe_off[o->ref], (size_t)E->pipe_len[o->ref]);
            continue;
        case PTO_O_TILE: pto__wrp(w, E->tile_arg[o->ref], (size_t)E->tile_len[o->ref] + 2); continue;
        case PTO_O_SCALAR: pto__wrp(w, E->var_arg[o->ref], (size_t)E->var_len[o->ref] + 2); continue;
        case PTO_O_INT: {
            const pto_expr *e = o->e[0] >= 0 && o->e[0] < m->n_exprs ? &m->exprs[o->e[0]] : NULL;
            if (e && e->kind == PTO_E_INT && e->value >= 0 && e->value < 10) {   /* an event id */
                char t[PTO__EMIT_PAD];
                memset(t, 0, sizeof t);
                t[0] = ',';
                t[1] = ' ';
                t[2] = (char)('0' + e->value);
                pto__wrp(w, t, 3);
                continue;
            }
            break;
        }
        default: break;
        }
        pto__wr(w, ", ", 2);
        pto__wr_sync(w);
        switch (o->kind) {
        case PTO_O_GM:
            if (o->e[2] >= 0) {
                pto__emit_puts(b, "pto_k_gm_at(core, \"");
                pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
                pto__emit_puts(b, "\", ");
                pto__emit_put(b, E->param_name[o->ref], (size_t)E->param_len[o->ref]);
                pto__emit_put(b, ", ", 2);
                pto__emit_expr(E, b, o->e[2], PTO__EX_KERNEL, 0);
                pto__emit_put(b, ")", 1);
            } else {
                pto__emit_put(b, E->param_name[o->ref], (size_t)E->param_len[o->ref]);
            }
            pto__emit_put(b, ", ", 2);
            pto__emit_expr(E, b, o->e[0], PTO__EX_KERNEL, 0);
            pto__emit_put(b, ", ", 2);
            pto__emit_expr(E, b, o->e[1], PTO__EX_KERNEL, 0);
            break;
        case PTO_O_FLOAT: pto__emit_float(E, b, o->f, PTO__EX_KERNEL); break;
        case PTO_O_INT: pto__emit_expr(E, b, o->e[0], PTO__EX_KERNEL, 0); break;
        case PTO_O_CMP: /* pto_k_wait(core, src, sig, r, c, cmp, value) */
            pto__emit_puts(b, pto__emit_cmp[o->ref >= 0 && o->ref <= PTO_GE ? o->ref : PTO_GE]);
            break;
        case PTO_O_NMODE: /* pto_k_notify(core, src, sig, r, c, value, mode) */
            pto__emit_puts(b, o->ref == PTO_NOTIFY_ADD ? "PTO_K_NOTIFY_ADD" : "PTO_K_NOTIFY_SET");
            break;
        default: pto__emit_puts(b, "0"); break;
        }
        if (b->data) pto__wr_load(w);
        else w->d = w->lim = NULL;
    }
}

/* Copies note text s (n >= 8 bytes) to d, which has room for n + 16;
   nonzero when it has a byte the comment cannot take as it is: '\n'
   (0x0a) and '*' (0x2a) are the only bytes that OR 0x20 makes 0x2a. With
   SSE2 sixteen bytes a step; else one zero-byte test per word (y - 1
   borrows into the high bit of a zero byte; a byte from 0x80 up sets it
   too and takes the exact path, as a note with a newline does). The last
   step overlaps. */
static inline int pto__emit_note_copy(char *d, const char *s, size_t n)
{
    size_t i = 0;
#if PTO__EMIT_SSE2
    if (n >= 16) {
        __m128i hit = _mm_setzero_si128(), v;
        const __m128i sp = _mm_set1_epi8(0x20), star = _mm_set1_epi8(0x2a);
        for (; i + 16 <= n; i += 16) {
            v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            _mm_storeu_si128((__m128i *)(void *)(d + i), v);
            hit = _mm_or_si128(hit, _mm_cmpeq_epi8(_mm_or_si128(v, sp), star));
        }
        v = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
        _mm_storeu_si128((__m128i *)(void *)(d + n - 16), v);
        hit = _mm_or_si128(hit, _mm_cmpeq_epi8(_mm_or_si128(v, sp), star));
        return _mm_movemask_epi8(hit) != 0;
    }
#endif
    {
        const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
        uint64_t x, y, x2, y2, hit = 0;
        for (; i + 16 <= n; i += 16) {   /* (the high bits are kept once, after the loop) */
            memcpy(&x, s + i, 8);
            memcpy(&x2, s + i + 8, 8);
            memcpy(d + i, &x, 8);
            memcpy(d + i + 8, &x2, 8);
            y = (x | ones * 0x20) ^ (ones * 0x2a);
            y2 = (x2 | ones * 0x20) ^ (ones * 0x2a);
            hit |= (y - ones) | (y2 - ones);
        }
        for (; i + 8 <= n; i += 8) {
            memcpy(&x, s + i, 8);
            memcpy(d + i, &x, 8);
            y = (x | ones * 0x20) ^ (ones * 0x2a);
            hit |= y - ones;
        }
        memcpy(&x, s + n - 8, 8);
        memcpy(d + n - 8, &x, 8);
        y = (x | ones * 0x20) ^ (ones * 0x2a);
        hit |= y - ones;
        return (hit & high) != 0;
    }
}

/* The NOTE value as comment text: copied while looking for a newline or a
   '*' in the same pass (pto__emit_note_copy); a note that has one (a rare,
   hand-written one) is rewritten: newlines become spaces and a '*' before
   '/' gets a space, so that the comment stays closed. */
static void pto__emit_note_to(pto__emitter *E, pto__emit_wr *w)
{
    const char *note = E->val[PTO__K_NOTE], *p;
    size_t n = E->vlen[PTO__K_NOTE], i = 0;
    pto_buf *b;
    if (n >= 8 && n + 16 < (size_t)(w->lim - w->d)) {
        if (!pto__emit_note_copy(w->d, note, n)) {
            w->d += n;
            return;
        }
    } else if (n < 8 && n + 8 < (size_t)(w->lim - w->d)) {
        for (; i < n && note[i] != '\n' && note[i] != '*'; i++) w->d[i] = note[i];
        if (i == n) {
            w->d += n;
            return;
        }
    }
    b = pto__emit_sb(E, PTO__K_NOTE);   /* (the value stays the raw text) */
    for (p = note; p < note + n;) {
        const char *q = p;
        while (q < note + n && *q != '\n' && !(q[0] == '*' && q[1] == '/')) q++;
        pto__emit_put(b, p, (size_t)(q - p));
        if (q == note + n) break;
        if (*q == '\n') pto__emit_put(b, " ", 1);
        else pto__emit_put(b, "* ", 2);    /* keep the comment closed */
        p = q + 1;
    }
    pto__wr(w, b->data ? b->data : "", b->len);
}

/* Makes room for `need` more bytes at the write position (growing the
   output by half again, so that growing stays amortised; with a sink,
   sending what is pending); 0 when out of memory, the caller then takes
   the checked path that reports it. */
static int pto__wr_grow(pto__emit_wr *w, size_t need)
{
    pto__wr_sync(w);
    pto__emit_reserve(w->b, need + pto__emit_slack(w->b, 0));
    if (!w->b->data) return 0;
    pto__wr_load(w);
    return (size_t)(w->lim - w->d) >= need;
}

static inline int pto__wr_room(pto__emit_wr *w, size_t need)
{
    return (size_t)(w->lim - w->d) >= need || pto__wr_grow(w, need);
}

/* pto__emit_pcp for the bound literals (btext is padded by
   PTO__EMIT_BPAD): an indent and an op name are one or two 32-byte moves. */
static inline void pto__emit_pcp64(char *d, const char *s, size_t n)
{
    if (n <= 32) memcpy(d, s, 32);
    else if (n <= 64) memcpy(d, s, 64);
    else memcpy(d, s, n);
}

/* A line whose keys are all written from their values: one room test for
   all of it (its length is known), then only moves: the literal pieces
   from the padded btext, the values as they are. 0 when out of memory
   (nothing written). */
static int pto__emit_line_simple(pto__emitter *E, const pto__emit_plan *p, pto__emit_wr *w)
{
    const char *text = E->btext.data;
    size_t need = (size_t)p->lit + PTO__EMIT_BPAD;
    char *d;
    int32_t i;
    for (i = 0; i < p->nk; i++) need += E->vlen[p->key[i]];
    if (!pto__wr_room(w, need)) return 0;
    d = w->d;
    pto__emit_pcp64(d, text + p->off[0], (size_t)p->len[0]);
    d += p->len[0];
    for (i = 0; i < p->nk; i++) {
        int k = p->key[i];
        pto__emit_cp(d, E->val[k], E->vlen[k]);
        d += E->vlen[k];
        pto__emit_pcp64(d, text + p->off[i + 1], (size_t)p->len[i + 1]);
        d += p->len[i + 1];
    }
    w->d = d;
    pto__wr_sync(w);
    return 1;
}

/* Writes line plan `plan` (pto__emit_plan_make) for statement s straight
   into the output: its literal pieces from btext, the SRC value from
   srcline, the ARGS key by writing the operands in place
   (pto__emit_args_to), the NOTE key by pto__emit_note_to, other keys from
   their current values. A line is then a handful of short moves. */
static void pto__emit_line(pto__emitter *E, int32_t plan, int32_t s)
{
    const pto__emit_plan *p = &E->plans[plan];
    const char *text = E->btext.data;
    pto__emit_wr w;
    int32_t i;
    w.b = E->out;
    if (!w.b->data) {   /* nothing reserved yet (or out of memory): take the checked path once */
        pto_buf_putn(w.b, "", 0);
        if (!w.b->data) return;
    }
    pto__wr_load(&w);
    if (p->simple && pto__emit_line_simple(E, p, &w)) return;
    pto__wrp(&w, text + p->off[0], (size_t)p->len[0]);
    for (i = 0; i < p->nk; i++) {
        int k = p->key[i];
        switch (p->how[i]) {
        case PTO__HOW_SRC:
            if (E->val[k] == E->srcline) { pto__wrp(&w, E->srcline, E->vlen[k]); break; }
            pto__wr(&w, E->val[k], E->vlen[k]);
            break;
        case PTO__HOW_ARGS:
            pto__emit_args_to(E, &w, &E->m->operands[E->m->stmts[s].arg0],
                              &E->m->operands[E->m->stmts[s].arg0] + E->m->stmts[s].nargs);
            break;
        case PTO__HOW_NOTE: pto__emit_note_to(E, &w); break;
        default: pto__wr(&w, E->val[k], E->vlen[k]); break;
        }
        pto__wrp(&w, text + p->off[i + 1], (size_t)p->len[i + 1]);
    }
    if (w.d) pto__wr_sync(&w);
}

/* An op's K_OP line (plan: literal, SRC, literal, ARGS, literal), the most
   written line: one room test for all of it, then only moves. Names and
   pipes come from their padded texts, the two pipes of a flag as one text,
   event ids 0-9 as a literal; from the first operand that needs the
   expression printer on, the rest goes through pto__emit_args_to, whose
   writes test room themselves. */
static void pto__emit_opline(pto__emitter *E, int32_t plan, int32_t s)
{
    const pto__emit_plan *p = &E->plans[plan];
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o = &m->operands[st->arg0], *end = o + st->nargs;
    const char *text = E->btext.data;
    size_t nsrc = E->vlen[PTO__K_SRC];
    size_t vals = 0;
    pto__emit_wr w;
    char *d;
    int32_t i;
    w.b = E->out;
    if (!p->opline || E->val[PTO__K_SRC] != E->srcline || !w.b->data || w.b->oom) {
        pto__emit_line(E, plan, s);
        return;
    }
    for (i = 2; i < p->nk; i++) vals += E->vlen[p->key[i]];   /* K_OP_SEE: the reference after the call */
    pto__wr_load(&w);
    if (!pto__wr_room(&w, (size_t)p->lit + nsrc + (size_t)st->nargs * (E->argmax + 32) + vals + PTO__EMIT_BPAD)) {
        pto__emit_line(E, plan, s);
        return;
    }
    d = w.d;
    pto__emit_pcp64(d, text + p->off[0], (size_t)p->len[0]);
    d += p->len[0];
    pto__emit_pcp(d, E->srcline, nsrc);
    d += nsrc;
    pto__emit_pcp64(d, text + p->off[1], (size_t)p->len[1]);
    d += p->len[1];
    for (; o < end; o++) {
        const pto_expr *e;
        switch (o->kind) {
        case PTO_O_PIPE:
            if (o + 1 < end && o[1].kind == PTO_O_PIPE) {
                int32_t k = o->ref * PTO_NPIPE + o[1].ref;
                pto__emit_pcp(d, text + E->pair_off[k], (size_t)E->pair_len[k]);
                d += E->pair_len[k];
                o++;
                continue;
            }
            pto__emit_pcp(d, text + E->pipe_off[o->ref], (size_t)E->pipe_len[o->ref]);
            d += E->pipe_len[o->ref];
            continue;
        case PTO_O_TILE:
            pto__emit_pcp(d, E->tile_arg[o->ref], (size_t)E->tile_len[o->ref] + 2);
            d += E->tile_len[o->ref] + 2;
            continue;
        case PTO_O_SCALAR:
            pto__emit_pcp(d, E->var_arg[o->ref], (size_t)E->var_len[o->ref] + 2);
            d += E->var_len[o->ref] + 2;
            continue;
        case PTO_O_INT:
            e = o->e[0] >= 0 && o->e[0] < m->n_exprs ? &m->exprs[o->e[0]] : NULL;
            if (e && e->kind == PTO_E_INT && e->value >= 0 && e->value < 10) {   /* an event id */
                d[0] = ',';
                d[1] = ' ';
                d[2] = (char)('0' + e->value);
                d += 3;
                continue;
            } else {   /* a rotating one, "i % 2" (as pto__emit_expr prints it) */
                int32_t v, kind;
                int64_t val;
                if (!pto__emit_varop_c(E, o->e[0], &v, &kind, &val)) break;
                d[0] = ',';
                d[1] = ' ';
                pto__emit_pcp(d + 2, E->var_arg[v] + 2, (size_t)E->var_len[v]);
                d += 2 + E->var_len[v];
                memcpy(d, pto__emit_ops[kind - PTO_E_ADD], 3);
                if (val < 10) {   /* (val > 1: the rotation's id count, mostly) */
                    d[3] = (char)('0' + val);
                    d += 4;
                } else {
                    d += 3 + pto__emit_i64(d + 3, val);
                }
                continue;
            }
        default: break;
        }
        break;
    }
    w.d = d;
    if (o < end) {   /* the printer's part: checked writes from here on */
        pto__emit_args_to(E, &w, o, end);
        pto__wrp(&w, text + p->off[2], (size_t)p->len[2]);
        for (i = 2; i < p->nk && w.d; i++) {
            pto__wr(&w, E->val[p->key[i]], E->vlen[p->key[i]]);
            pto__wrp(&w, text + p->off[i + 1], (size_t)p->len[i + 1]);
        }
    } else {
        pto__emit_pcp64(w.d, text + p->off[2], (size_t)p->len[2]);
        w.d += p->len[2];
        for (i = 2; i < p->nk; i++) {
            pto__emit_cp(w.d, E->val[p->key[i]], E->vlen[p->key[i]]);
            w.d += E->vlen[p->key[i]];
            pto__emit_pcp64(w.d, text + p->off[i + 1], (size_t)p->len[i + 1]);
            w.d += p->len[i + 1];
        }
    }
    if (w.d) pto__wr_sync(&w);
}

/* A note's K_NOTE line (plan: literal, NOTE, literal): as pto__emit_opline,
   one room test and the note copied by pto__emit_note_to. */
static void pto__emit_noteline(pto__emitter *E, int32_t plan, int32_t s)
{
    const pto__emit_plan *p = &E->plans[plan];
    const char *text = E->btext.data;
    pto__emit_wr w;
    w.b = E->out;
    if (p->nk != 1 || p->how[0] != PTO__HOW_NOTE || !w.b->data || w.b->oom) {
        pto__emit_line(E, plan, s);
        return;
    }
    pto__wr_load(&w);
    if (!pto__wr_room(&w, (size_t)p->len[0] + E->vlen[PTO__K_NOTE] + (size_t)p->len[1] + PTO__EMIT_BPAD)) {
        pto__emit_line(E, plan, s);
        return;
    }
    pto__emit_pcp64(w.d, text + p->off[0], (size_t)p->len[0]);
    w.d += p->len[0];
    pto__emit_note_to(E, &w);
    if (!w.d) return;
    pto__wrp(&w, text + p->off[1], (size_t)p->len[1]);
    if (w.d) pto__wr_sync(&w);
}

/* Expands template tpl into E->out: through its line plan, made on first
   use, per depth with the indent bound (when the IND value is the depth's
   indent); every key is written from its value. */
/* pto__emit_plan_make (keys written from their values) for a plan that is
   an optimisation: when it cannot be made (out of memory, too many keys)
   the template is expanded directly, so a failure here is no error (its
   diagnostic is dropped); -1 then. */
static int32_t pto__emit_plan_try(pto__emitter *E, int tpl, uint64_t known)
{
    int32_t nd = E->ctx->n_diags, ne = E->ctx->n_errors, oomr = E->ctx->oom_reported;
    int32_t r = pto__emit_plan_make(E, tpl, known, 0);
    if (r < 0) {
        pto__diag_truncate(E->ctx, nd, ne);
        E->ctx->oom_reported = oomr;
    }
    return r;
}

static void pto__emit_x(pto__emitter *E, int tpl)
{
    int dep = E->depth > 0 && E->depth < PTO__EMIT_ND && E->vlen[PTO__K_IND] == (size_t)E->depth * 4 ? E->depth : 0;
    int32_t *pl = &E->tpl_plan[tpl][dep];
    if (*pl == 0) {
        int32_t r = pto__emit_plan_try(E, tpl, dep ? (uint64_t)1 << PTO__K_IND : 0);
        *pl = r < 0 ? -1 : r + 1;
    }
    if (*pl > 0) pto__emit_line(E, *pl - 1, -1);
    else pto__emit_segs(E, E->segs + E->tpl_first[tpl], E->segs + E->tpl_first[tpl + 1], pto__emit_tpl[tpl]);
}

/* The kernel of statement st's block (-1: none). */
static inline int32_t pto__emit_kernel_of(const pto_module *m, const pto_stmt *st)
{
    return st->block >= 0 && st->block < m->n_blocks ? m->blocks[st->block].kernel : -1;
}

/* What note_first keeps for statement s (st) printing a note in full: s,
   or -1 when its block is not of the kernel being written (the note is then
   printed in full again, as a note first seen in another kernel is). */
static inline int32_t pto__emit_note_at(const pto__emitter *E, const pto_stmt *st, int32_t s)
{
    return pto__emit_kernel_of(E->m, st) == E->kernel ? s : -1;
}

/* Whether note_first's statement `first` printed its note in the kernel
   being written. */
static inline int pto__emit_note_seen(const pto__emitter *E, int32_t first)
{
    return first >= 0 && (E->m->n_kernels == 1 || pto__emit_kernel_of(E->m, &E->m->stmts[first]) == E->kernel);
}

/* A comment before a statement a pass inserted, and before every flag and
   barrier: which pass, and the dependency it serves. A note is printed in
   full once per kernel: where it first appears (a set_flag and its
   wait_flag carry the same note, and so do the ids of one rotation). The
   statements right after it that carry the same note share that comment;
   a later one gets a short trailing reference to the statement that has
   it. Returns that statement (-1: the call needs no reference). */
static int32_t pto__emit_note(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const char *note;
    int pass, dep;
    if (!st->note && pto_opinfo_get((pto_op)st->op)->cls != PTO_OC_SYNC) { E->last_note = 0; return -1; }
    if (st->note > 0 && st->note < E->nnotes) {
        int32_t first = E->note_first[st->note];
        if (st->note == E->last_note) return -1;
        if (pto__emit_note_seen(E, first)) {
            E->last_note = 0;
            return first;
        }
        E->note_first[st->note] = pto__emit_note_at(E, st, s);
    }
    note = st->note ? pto_str(E->ctx, st->note) : NULL;
    E->last_note = st->note;
    if (!note) note = st->origin == PTO_BY_USER ? "written in the source" : "(no note recorded)";
    E->val[PTO__K_NOTE] = note;   /* pto__emit_note_to writes it */
    /* a note id from the C API may be out of range: pto_str gave "" then */
    E->vlen[PTO__K_NOTE] = st->note > 0 && st->note < E->ctx->n_strs ? pto__str_len(E->ctx, st->note) : strlen(note);
    pass = st->origin < 5 ? st->origin : 0;
    dep = E->depth < PTO__EMIT_ND ? E->depth : 0;
    if (E->bound_note[pass][dep] < 0) {   /* "/ * sync: " and the indent are fixed text of a pass's notes */
        pto__emit_v(E, PTO__K_PASS, pto__emit_origin[pass]);
        E->bound_note[pass][dep] = pto__emit_plan_make(E, PTO__T_K_NOTE, (uint64_t)1 << PTO__K_PASS |
                                                                     (dep ? (uint64_t)1 << PTO__K_IND : 0), 1);
        if (E->bound_note[pass][dep] < 0) { E->st = PTO_ERR_INTERNAL; return -1; }
    }
    pto__emit_noteline(E, E->bound_note[pass][dep], s);
    return -1;
}

/* pto__emit_note's usual case on the C target: a note printed in full,
   its pass's comment plan made for this depth, a note of 8 bytes or more
   without a newline or a '*': the comment line is written with one room
   test and the note checked while it is copied. 0, with nothing written or
   changed, for anything else (pto__emit_note then does it). */
static int pto__emit_note_fast(pto__emitter *E, const pto_stmt *st, int32_t s)
{
    int32_t note = st->note, dep = E->depth < PTO__EMIT_ND ? E->depth : 0, plan;
    const pto__emit_plan *p;
    const char *text, *lit;
    pto__emit_wr w;
    size_t n;
    char *d;
    if (note <= 0 || note >= E->nnotes || note == E->last_note || dep == 0) return 0;
    if (pto__emit_note_seen(E, E->note_first[note])) return 0;   /* a reference */
    plan = E->bound_note[st->origin < 5 ? st->origin : 0][dep];
    w.b = E->out;
    if (plan < 0 || !w.b->data || w.b->oom) return 0;
    p = &E->plans[plan];
    if (p->nk != 1 || p->how[0] != PTO__HOW_NOTE) return 0;
    text = pto_str(E->ctx, note);
    n = pto__str_len(E->ctx, note);
    if (n < 8) return 0;
    pto__wr_load(&w);
    if (!pto__wr_room(&w, (size_t)p->len[0] + n + (size_t)p->len[1] + PTO__EMIT_BPAD + 16)) return 0;
    lit = E->btext.data;
    d = w.d;
    pto__emit_pcp64(d, lit + p->off[0], (size_t)p->len[0]);
    d += p->len[0];
    if (pto__emit_note_copy(d, text, n)) return 0;   /* (nothing kept: the length is not moved) */
    d += n;
    pto__emit_pcp64(d, lit + p->off[1], (size_t)p->len[1]);
    w.d = d + p->len[1];
    pto__wr_sync(&w);
    E->note_first[note] = pto__emit_note_at(E, st, s);
    E->last_note = note;
    E->val[PTO__K_NOTE] = text;
    E->vlen[PTO__K_NOTE] = n;
    return 1;
}

/* tpush / tpop / tfree take the pipe's ring id; tpop assigns the slot it
   picked to the tile's variable (see K_PTILE). */
static int pto__emit_cvpipe_op(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *q = &m->operands[st->arg0 + (st->op == PTO_OP_TPOP ? 1 : 0)];
    pto_buf *b;
    if (st->op != PTO_OP_TPUSH && st->op != PTO_OP_TPOP && st->op != PTO_OP_TFREE) return 0;
    pto__emit_vi(E, PTO__K_N, m->cvpipes[q->ref].ring);
    if (st->op == PTO_OP_TPOP) {
        int32_t t = m->operands[st->arg0].ref;
        pto__emit_v(E, PTO__K_NAME, E->tile_name[t]);
        pto__emit_vi(E, PTO__K_IDX, t);
        pto__emit_x(E, PTO__T_K_TPOP);
        return 1;
    }
    b = pto__emit_sb(E, PTO__K_ARGS);
    pto__emit_puts(b, ", ");
    pto__emit_put_i64(b, m->cvpipes[q->ref].ring);
    if (st->op == PTO_OP_TPUSH) {
        pto__emit_puts(b, ", ");
        pto__emit_puts(b, E->tile_name[m->operands[st->arg0 + 1].ref]);
    }
    pto__emit_vbuf(E, PTO__K_ARGS);
    pto__emit_v(E, PTO__K_OP, pto_opinfo_get((pto_op)st->op)->name);
    pto__emit_x(E, PTO__T_K_OP);
    return 1;
}

/* The tile a tpop of this kernel fills, or 0. */
/* The pipe a tpop fills tile t from, or -1 (t is an ordinary tile). */
static int32_t pto__emit_popped_from(const pto_module *m, int32_t t)
{
    int32_t s;
    if (m->n_cvpipes == 0) return -1;
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == PTO_OP_TPOP && m->stmts[s].nargs == 2 &&
            m->operands[m->stmts[s].arg0].kind == PTO_O_TILE && m->operands[m->stmts[s].arg0].ref == t) {
            const pto_operand *q = &m->operands[m->stmts[s].arg0 + 1];
            return q->kind == PTO_O_CVPIPE && q->ref >= 0 && q->ref < m->n_cvpipes ? q->ref : -1;
        }
    return -1;
}

static int pto__emit_is_popped(const pto_module *m, int32_t t) { return pto__emit_popped_from(m, t) >= 0; }

/* One instruction: its note (if any), then its bound K_OP line, or the
   K_OP_SEE line when its note was printed in full above another statement. */
static void pto__emit_op(pto__emitter *E, int32_t s)
{
    const pto_stmt *st = &E->m->stmts[s];
    int32_t see, op = st->op, dep = E->depth < PTO__EMIT_ND ? E->depth : 0;
    if (!st->note && pto_opinfo_get((pto_op)op)->cls != PTO_OC_SYNC) {   /* pto__emit_note's quick answers */
        E->last_note = 0;
        see = -1;
    } else if (st->note > 0 && st->note < E->nnotes && st->note == E->last_note) {
        see = -1;
    } else if (pto__emit_note_fast(E, st, s)) {
        see = -1;
    } else {
        see = pto__emit_note(E, s);
    }
    pto__emit_srcline(E, s);
    if ((op == PTO_OP_TPUSH || op == PTO_OP_TPOP || op == PTO_OP_TFREE) && pto__emit_cvpipe_op(E, s)) return;
    if (E->bound_op[op][dep] < 0) {   /* the op's name and the indent are fixed text of its lines */
        uint64_t known = (uint64_t)1 << PTO__K_OP | (dep ? (uint64_t)1 << PTO__K_IND : 0);
        pto__emit_v(E, PTO__K_OP, pto_opinfo_get((pto_op)op)->name);
        E->bound_op[op][dep] = pto__emit_plan_make(E, PTO__T_K_OP, known, 1);
        E->bound_see[op][dep] = pto__emit_plan_make(E, PTO__T_K_OP_SEE, known | (uint64_t)1 << PTO__K_FILE, 1);
        if (E->bound_op[op][dep] < 0 || E->bound_see[op][dep] < 0) { E->st = PTO_ERR_INTERNAL; return; }
    }
    if (see < 0) {
        pto__emit_opline(E, E->bound_op[op][dep], s);
        return;
    }
    pto__emit_v(E, PTO__K_FN, pto_opinfo_get((pto_op)E->m->stmts[see].op)->name);
    pto__emit_vi(E, PTO__K_N, E->m->stmts[see].loc.line);
    pto__emit_v(E, PTO__K_PASS, pto__emit_origin[st->origin < 5 ? st->origin : 0]);
    pto__emit_opline(E, E->bound_see[op][dep], s);
}

/* The offset of an xN tile: slot ((i - start) / step) % N of its loop. */
static void pto__emit_slot_index(pto__emitter *E, pto_buf *b, const pto_tile *t)
{
    const pto_module *m = E->m;
    int32_t loop = pto_stmt_loop(m, t->decl);
    const pto_stmt *f = &m->stmts[loop];
    int32_t start = f->e[0], step = f->e[2];
    int start0 = start >= 0 && m->exprs[start].kind == PTO_E_INT && m->exprs[start].value == 0;
    int step1 = step < 0 || (m->exprs[step].kind == PTO_E_INT && m->exprs[step].value == 1);
    pto__emit_put(b, "(", 1);
    if (!start0 || !step1) pto__emit_put(b, "(", 1);
    if (!start0) pto__emit_put(b, "(", 1);
    pto__emit_puts(b, E->var_name[f->ref]);
    if (!start0) {
        pto__emit_puts(b, " - ");
        pto__emit_expr(E, b, start, PTO__EX_KERNEL, 2);
        pto__emit_put(b, ")", 1);
    }
    if (!step1) {
        pto__emit_puts(b, " / ");
        pto__emit_expr(E, b, step, PTO__EX_KERNEL, 3);
    }
    if (!start0 || !step1) pto__emit_put(b, ")", 1);
    pto__emit_puts(b, " % ");
    pto__emit_put_i64(b, t->nbuf);
    pto__emit_put(b, ")", 1);
}

/* The common offset of an xN tile, "[OFF + ](i % N) * STRIDE" for a loop
   from 0 by 1, written in one go into b (empty); 0 when the loop is
   another (pto__emit_slot_index spells it then) or out of memory. */
static int pto__emit_slot_fast(pto__emitter *E, pto_buf *b, const pto_tile *t, int64_t stride)
{
    const pto_module *m = E->m;
    int32_t loop = pto_stmt_loop(m, t->decl);
    const pto_stmt *f = loop >= 0 ? &m->stmts[loop] : NULL;
    size_t n;
    char *d;
    if (!f || f->e[0] < 0 || m->exprs[f->e[0]].kind != PTO_E_INT || m->exprs[f->e[0]].value != 0 ||
        (f->e[2] >= 0 && (m->exprs[f->e[2]].kind != PTO_E_INT || m->exprs[f->e[2]].value != 1)))
        return 0;
    n = (size_t)E->var_len[f->ref];
    pto__emit_reserve(b, n + 128);   /* three numbers (pto__emit_i64 writes up to 25 bytes each) */
    if (!b->data || b->cap < b->len + n + 128) return 0;
    d = b->data + b->len;
    if (t->offset[0]) {
        d += pto__emit_i64(d, t->offset[0]);
        memcpy(d, " + ", 3);
        d += 3;
    }
    *d++ = '(';
    memcpy(d, E->var_name[f->ref], n);
    d += n;
    memcpy(d, " % ", 3);
    d += 3;
    d += pto__emit_i64(d, t->nbuf);
    memcpy(d, ") * ", 4);
    d += 4;
    d += pto__emit_i64(d, stride);
    b->len = (size_t)(d - b->data);
    return 1;
}

/* pto_k_tdecl(core, "FILE:LINE", NAME): from here on the
   simulator treats the tile's bytes as unwritten (a new tenant). */
static void pto__emit_tdecl(pto__emitter *E, int32_t ti)
{
    E->last_note = 0;
    pto__emit_vn(E, PTO__K_NAME, E->tile_name[ti], E->tile_len[ti]);
    pto__emit_srcline(E, E->m->tiles[ti].decl);
    pto__emit_x(E, PTO__T_K_TDECL);
}

/* Whether statement s, or a statement nested in it, names tile t. */
static int pto__emit_uses(const pto_module *m, int32_t s, int32_t t)
{
    const pto_stmt *st = &m->stmts[s];
    int32_t c, i, b;
    if (st->kind == PTO_ST_OP) {
        for (i = 0; i < st->nargs; i++)
            if (m->operands[st->arg0 + i].kind == PTO_O_TILE && m->operands[st->arg0 + i].ref == t) return 1;
        return 0;
    }
    for (i = 0; i < 2; i++) {
        b = i ? st->orelse : st->body;
        if (b < 0) continue;
        for (c = m->blocks[b].head; c >= 0; c = m->stmts[c].next)
            if (pto__emit_uses(m, c, t)) return 1;
    }
    return 0;
}

/* The entry of statement s in the tdecl table (pto__emit_td), or the empty
   one where it goes (the table is at most half full). tdcap > 0. */
static inline struct pto__emit_td *pto__emit_td_at(const pto__emitter *E, int32_t s)
{
    uint32_t mask = E->tdcap - 1, h = ((uint32_t)s * 2654435761u) & mask;
    while (E->td[h].s >= 0 && E->td[h].s != s) h = (h + 1) & mask;
    return &E->td[h];
}

/* Statement s's entry, made if it has none; NULL when out of memory. */
static struct pto__emit_td *pto__emit_td_add(pto__emitter *E, int32_t s)
{
    struct pto__emit_td *e;
    if ((E->tdn + 1) * 2 > E->tdcap) {
        uint32_t ncap = E->tdcap ? E->tdcap * 2 : 64, i, old = E->tdcap;
        struct pto__emit_td *t = (struct pto__emit_td *)pto_alloc(E->ctx, sizeof *t * ncap), *o = E->td;
        if (!t || ncap < E->tdcap) {
            pto_free(E->ctx, t);
            return NULL;
        }
        for (i = 0; i < ncap; i++) t[i].s = -1;
        E->td = t;
        E->tdcap = ncap;
        for (i = 0; i < old; i++)
            if (o[i].s >= 0) *pto__emit_td_at(E, o[i].s) = o[i];
        pto_free(E->ctx, o);
    }
    e = pto__emit_td_at(E, s);
    if (e->s < 0) {
        e->s = s;
        e->head = -1;
        E->tdn++;
    }
    return e;
}

/* Takes statement s's list out of the table (-1: none): the walk is at s,
   which it passes once. Linear probing keeps no holes: the entries after
   the freed one that would no longer be found move into it. */
static int32_t pto__emit_td_take(pto__emitter *E, int32_t s)
{
    uint32_t mask = E->tdcap - 1, i, j, k;
    struct pto__emit_td *e = pto__emit_td_at(E, s);
    int32_t head = e->head;
    if (e->s < 0) return -1;
    i = (uint32_t)(e - E->td);
    for (j = (i + 1) & mask; E->td[j].s >= 0; j = (j + 1) & mask) {
        k = ((uint32_t)E->td[j].s * 2654435761u) & mask;   /* where it belongs: stays unless i is on its way */
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) continue;
        E->td[i] = E->td[j];
        i = j;
    }
    E->td[i].s = -1;
    E->tdn--;
    return head;
}

/* Files tile t's tdecl before the first statement from `from` on that uses
   it: before that op, or before that loop (the planner's lifetime then covers
   the whole loop); an if gets one in each branch that uses the tile. 0 when
   out of memory. */
static int pto__emit_place_tdecl(pto__emitter *E, int32_t from, int32_t t)
{
    const pto_module *m = E->m;
    int32_t s;
    for (s = from; s >= 0; s = m->stmts[s].next) {
        if (!pto__emit_uses(m, s, t)) continue;
        if (m->stmts[s].kind == PTO_ST_IF) {
            if (!pto__emit_place_tdecl(E, m->blocks[m->stmts[s].body].head, t)) return 0;
            if (m->stmts[s].orelse >= 0 && !pto__emit_place_tdecl(E, m->blocks[m->stmts[s].orelse].head, t)) return 0;
        } else if (E->ntdecl < m->n_operands) {  /* one node per use at most */
            struct pto__emit_td *e = pto__emit_td_add(E, s);
            int32_t *at;
            if (!e) return 0;
            at = &e->head;   /* tiles in falling index order (see pto__emit_tdecls) */
            while (*at >= 0 && E->tdecl_tile[*at] > t) at = &E->tdecl_next[*at];
            E->tdecl_tile[E->ntdecl] = t;
            E->tdecl_next[E->ntdecl] = *at;
            *at = E->ntdecl++;
        }
        return 1;
    }
    return 1;
}

/* Where each single tile's pto_k_tdecl goes. The simulator reports a read
   of bytes written before the latest tdecl over them, so the tdecl must not
   come before the tile's lifetime as the planner sees it: from its first
   use, not from its declaration (plan.c), since another tile whose life
   ends between the two may share its bytes. So it is emitted right before
   the first use (or the loop or branch holding it, as above). A tile used
   in both branches of an if gets a tdecl in each (one runs); a tile never
   used gets none. An xN tile keeps its tdecl at the declaration: it holds
   its slots for the whole loop.
   A tile whose declaration is a TILE statement naming it is placed when
   that statement is emitted (tile_unused 2 until then, pto__emit_place):
   the search then reads the statements the emission is about to write,
   rather than a pass of its own through memory that is not in cache.
   Either way a statement's list holds its tiles in falling index order.
   The lists are kept by statement in a table (pto__emit_td), not an array
   over all statements: it holds the placements the walk has not reached
   yet, mostly a few (an array was 1.8 MB at 100k instructions, every page
   written before the first line: ~440 page faults, ~1.3 us each). */
static pto_status pto__emit_tdecls(pto__emitter *E)
{
    const pto_module *m = E->m;
    int32_t t;
    E->tdecl_tile = (int32_t *)pto_alloc(E->ctx, sizeof(int32_t) * (size_t)(m->n_operands ? m->n_operands : 1));
    E->tdecl_next = (int32_t *)pto_alloc(E->ctx, sizeof(int32_t) * (size_t)(m->n_operands ? m->n_operands : 1));
    E->tile_unused = (uint8_t *)pto_alloc(E->ctx, (size_t)(m->n_tiles ? m->n_tiles : 1));
    E->tile_popped = (uint8_t *)pto_alloc(E->ctx, (size_t)(m->n_tiles ? m->n_tiles : 1));
    if (!E->tdecl_tile || !E->tdecl_next || !E->tile_unused || !E->tile_popped) return PTO_ERR_INTERNAL;
    for (t = 0; t < m->n_tiles; t++) {
        int32_t d = m->tiles[t].decl, before = E->ntdecl;
        E->tile_unused[t] = 0;
        E->tile_popped[t] = (uint8_t)pto__emit_is_popped(m, t);
        /* a popped tile: tpop writes all of its slot, the ring rotates it */
        if (E->tile_popped[t] || m->tiles[t].nbuf > 1 || d < 0 || m->stmts[d].block < 0) continue;
        if (m->stmts[d].kind == PTO_ST_TILE && m->stmts[d].ref == t) { E->tile_unused[t] = 2; continue; }
        if (!pto__emit_place_tdecl(E, m->stmts[d].next, t)) return PTO_ERR_INTERNAL;
        E->tile_unused[t] = E->ntdecl == before;
    }
    return PTO_OK;
}

/* The deferred half of pto__emit_tdecls for tile t, at its declaration. */
static void pto__emit_place(pto__emitter *E, int32_t t)
{
    int32_t before = E->ntdecl;
    if (!pto__emit_place_tdecl(E, E->m->stmts[E->m->tiles[t].decl].next, t)) E->st = PTO_ERR_INTERNAL;
    E->tile_unused[t] = E->ntdecl == before;
}

/* The planned offset of the tile that statement s declares, as C text in
   PTO__K_OFF: an xN tile picks its slot from the loop index (a pto_slots_N
   table line comes first when the slots are not evenly spaced). 0, with
   E->st set, when the tile has no place. emit_isa.c shares it. */
static int pto__emit_offset(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    int32_t ti = m->stmts[s].ref;
    const pto_tile *t = &m->tiles[ti];
    pto_buf *b;
    int k;
    if (!t->planned) {
        E->st = pto_error(E->ctx, t->loc, "emit: tile '%s' has no planned offset (run the planner first)",
                          pto_str(E->ctx, t->name));
        return 0;
    }
    if (t->nbuf > 1 && pto_stmt_loop(m, s) < 0) {
        E->st = pto_error(E->ctx, t->loc, "emit: tile '%s' has %d slots but is not declared in a loop",
                          pto_str(E->ctx, t->name), (int)t->nbuf);
        return 0;
    }
    b = pto__emit_sb(E, PTO__K_OFF);
    if (t->nbuf <= 1) {
        pto__emit_put_i64(b, t->offset[0]);
    } else {
        int64_t stride = t->offset[1] - t->offset[0];
        int ap = 1;
        for (k = 2; k < t->nbuf; k++) ap &= t->offset[k] - t->offset[k - 1] == stride;
        if (ap && pto__emit_slot_fast(E, b, t, stride)) {
            /* written */
        } else if (ap) {
            if (t->offset[0]) { pto__emit_put_i64(b, t->offset[0]); pto__emit_puts(b, " + "); }
            pto__emit_slot_index(E, b, t);
            pto__emit_puts(b, " * ");
            pto__emit_put_i64(b, stride);
        } else {
            pto_buf *l = pto__emit_sb(E, PTO__K_LIST);
            for (k = 0; k < t->nbuf; k++) {
                if (k) pto__emit_put(l, ", ", 2);
                pto__emit_put_i64(l, t->offset[k]);
            }
            pto__emit_vbuf(E, PTO__K_LIST);
            pto__emit_vi(E, PTO__K_IDX, ti);
            pto__emit_vi(E, PTO__K_N, t->nbuf);
            pto__emit_x(E, PTO__T_K_SLOTS);
            pto__emit_puts(b, "pto_slots_");
            pto__emit_put_i64(b, ti);
            pto__emit_put(b, "[", 1);
            pto__emit_slot_index(E, b, t);
            pto__emit_put(b, "]", 1);
        }
    }
    pto__emit_vbuf(E, PTO__K_OFF);
    return 1;
}

/* Tile t's K_TILE line, its values set, valid rows and columns the full
   shape: kernels declare many tiles of a few shapes, so the line is bound
   per shape and depth (pto__emit_shape) and only NAME and OFF are written
   (a line of eight values cost as much as the rest of the tile). Another
   shape in the same table entry takes it over; past PTO__EMIT_SHAPE_PLANS
   plans (or out of memory) the line is expanded as any other. */
static void pto__emit_tile_line(pto__emitter *E, const pto_tile *t)
{
    int dep = E->depth > 0 && E->depth < PTO__EMIT_ND && E->vlen[PTO__K_IND] == (size_t)E->depth * 4 ? E->depth : 0;
    uint8_t space = (uint8_t)(t->space < PTO_NSPACE ? t->space : 0), dtype = (uint8_t)(t->dtype < PTO_NDTYPE ? t->dtype : 0);
    pto__emit_shape *sh = &E->shape[((uint32_t)t->rows * 31u + (uint32_t)t->cols * 7u + space * 5u + dtype * 3u +
                                     (uint32_t)dep) & (PTO__EMIT_NSHAPE - 1)];
    if (!dep) { pto__emit_x(E, PTO__T_K_TILE); return; }
    if (sh->plan <= 0 || sh->rows != t->rows || sh->cols != t->cols || sh->space != space || sh->dtype != dtype ||
        sh->dep != dep) {
        int32_t r = -1;
        if (E->shape_plans < PTO__EMIT_SHAPE_PLANS)
            r = pto__emit_plan_try(E, PTO__T_K_TILE, (uint64_t)1 << PTO__K_IND | (uint64_t)1 << PTO__K_SPACE |
                                                         (uint64_t)1 << PTO__K_DTYPE | (uint64_t)1 << PTO__K_ROWS |
                                                         (uint64_t)1 << PTO__K_COLS | (uint64_t)1 << PTO__K_VR |
                                                         (uint64_t)1 << PTO__K_VC);
        if (r < 0) { pto__emit_x(E, PTO__T_K_TILE); return; }
        E->shape_plans++;
        sh->rows = t->rows;
        sh->cols = t->cols;
        sh->space = space;
        sh->dtype = dtype;
        sh->dep = (uint8_t)dep;
        sh->plan = r + 1;
    }
    pto__emit_line(E, sh->plan - 1, -1);
}

static void pto__emit_tile(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    int32_t ti = m->stmts[s].ref;
    const pto_tile *t = &m->tiles[ti];
    if (E->tile_unused[ti] == 2) pto__emit_place(E, ti);
    if (!pto__emit_offset(E, s)) return;
    if (t->valid_r >= 0) { pto__emit_expr(E, pto__emit_sb(E, PTO__K_VR), t->valid_r, PTO__EX_KERNEL, 0); pto__emit_vbuf(E, PTO__K_VR); }
    else pto__emit_vi(E, PTO__K_VR, t->rows);
    if (t->valid_c >= 0) { pto__emit_expr(E, pto__emit_sb(E, PTO__K_VC), t->valid_c, PTO__EX_KERNEL, 0); pto__emit_vbuf(E, PTO__K_VC); }
    else pto__emit_vi(E, PTO__K_VC, t->cols);
    pto__emit_vn(E, PTO__K_NAME, E->tile_name[ti], E->tile_len[ti]);
    pto__emit_v(E, PTO__K_SPACE, pto__emit_space[t->space < PTO_NSPACE ? t->space : 0]);
    pto__emit_v(E, PTO__K_DTYPE, pto__emit_dtype[t->dtype < PTO_NDTYPE ? t->dtype : 0]);
    pto__emit_vi(E, PTO__K_ROWS, t->rows);
    pto__emit_vi(E, PTO__K_COLS, t->cols);
    if (E->tile_popped[ti]) {
        pto__emit_vi(E, PTO__K_IDX, ti);
        pto__emit_x(E, PTO__T_K_PTILE);
        return;
    }
    if (t->valid_r < 0 && t->valid_c < 0) pto__emit_tile_line(E, t);
    else pto__emit_x(E, PTO__T_K_TILE);
    if (t->nbuf > 1) pto__emit_tdecl(E, ti);
    else if (E->tile_unused[ti]) pto__emit_x(E, PTO__T_K_VOID);
}

static void pto__emit_exprval(pto__emitter *E, int key, int32_t ex, int dflt)
{
    if (ex < 0) { pto__emit_vi(E, key, dflt); return; }
    pto__emit_expr(E, pto__emit_sb(E, key), ex, PTO__EX_KERNEL, 0);
    pto__emit_vbuf(E, key);
}

/* Every section initialises every pipe of its kernel with the same,
   normalised parameters; on a2a3 the slots are this block's share of the
   hidden GM pipe buffer: base + block * (the kernel's pipe bytes). */
static void pto__emit_ring_inits(pto__emitter *E, int32_t k)
{
    static const char *const dirs[] = {"0", "PTO_K_C2V", "PTO_K_V2C", "PTO_K_BOTH"};
    static const char *const splits[] = {"PTO_K_SPLIT_NONE", "PTO_K_SPLIT_UP_DOWN", "PTO_K_SPLIT_LEFT_RIGHT"};
    const pto_module *m = E->m;
    int64_t per_block = pto_kernel_pipe_bytes(m, k);
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *q = &m->cvpipes[i];
        pto_buf *b;
        if (q->kernel != k) continue;
        b = pto__emit_sb(E, PTO__K_SRC);
        pto__emit_puts(b, E->file);
        pto_buf_printf(b, ":%d: pipe %s", (int)q->loc.line, pto_str(E->ctx, q->name));
        pto__emit_vbuf(E, PTO__K_SRC);
        b = pto__emit_sb(E, PTO__K_ARGS);
        pto_buf_printf(b, "%d, %d, %d, %d, %s, ", (int)q->slot_size, (int)q->slot_num, (int)q->local_slot_num,
                       (int)q->flag_id, splits[q->split < 3 ? q->split : 0]);
        if (m->arch == PTO_ARCH_A2A3)
            pto_buf_printf(b, "pto_gm_pipe_buffer, pto_k_block_idx(core) * %lld + %lld", (long long)per_block,
                           (long long)pto_cvpipe_gm_offset(m, i));
        else
            pto__emit_puts(b, "NULL, 0");
        pto__emit_vbuf(E, PTO__K_ARGS);
        pto__emit_vi(E, PTO__K_N, q->ring);
        pto__emit_v(E, PTO__K_DIR, dirs[q->dir & 3]);
        pto__emit_indent(E);
        pto__emit_x(E, PTO__T_K_RING);
    }
}

/* The hidden GM pipe buffer argument (a2a3 mix kernels with pipes): it
   follows the tensors, before the scalars. */
static int pto__emit_has_pipebuf(const pto_module *m, int32_t k)
{
    return m->arch == PTO_ARCH_A2A3 && m->kernels[k].kind == PTO_KK_MIX && pto_kernel_pipe_bytes(m, k) > 0;
}

/* Whether a loop step is a positive constant. One known only at launch
   gets a `step > 0` test in the loop condition: a step of 0 (-D S=0) would
   spin forever and a negative one run until i wraps; the loop runs zero
   times instead and the reference interpreter reports the bad step. */
static int pto__emit_step_known(pto__emitter *E, int32_t step)
{
    int64_t v;
    return step < 0 || (pto__emit_const(E, step, &v) && v > 0);
}

static void pto__emit_stmt(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    pto__emit_indent(E);
    if (st->kind != PTO_ST_OP) E->last_note = 0;   /* a note's run ends at any other line */
    switch (st->kind) {
    case PTO_ST_OP:
        if (E->hook_op) E->hook_op(E, s); else pto__emit_op(E, s);
        break;
    case PTO_ST_TILE:
        if (E->hook_tile) E->hook_tile(E, s); else pto__emit_tile(E, s);
        break;
    case PTO_ST_LET:
        pto__emit_vn(E, PTO__K_NAME, E->var_name[st->ref], E->var_len[st->ref]);
        pto__emit_exprval(E, PTO__K_EXPR, st->e[0], 0);
        pto__emit_x(E, PTO__T_K_LET);
        if (!E->var_used[st->ref]) pto__emit_x(E, PTO__T_K_VOID);
        break;
    case PTO_ST_FOR: {
        int64_t end, step = 1;
        /* `i += step` would overflow past end (for i = 0 to 2^63 - 1 step 2^62):
           known only for constants; a dim or an i32 scalar is far from it */
        int wrap = pto__emit_const(E, st->e[1], &end) && (st->e[2] < 0 || pto__emit_const(E, st->e[2], &step)) &&
                   step > 0 && end > INT64_MIN && end - 1 > INT64_MAX - step;
        pto__emit_vn(E, PTO__K_NAME, E->var_name[st->ref], E->var_len[st->ref]);
        pto__emit_exprval(E, PTO__K_START, st->e[0], 0);
        pto__emit_exprval(E, PTO__K_END, st->e[1], 0);
        pto__emit_exprval(E, PTO__K_STEP, st->e[2], 1);
        pto__emit_x(E, !pto__emit_step_known(E, st->e[2]) ? PTO__T_K_FOR_DYN : wrap ? PTO__T_K_FOR_WRAP : PTO__T_K_FOR);
        pto__emit_block(E, st->body);
        pto__emit_indent(E);
        pto__emit_x(E, PTO__T_K_CLOSE);
        break;
    }
    case PTO_ST_IF:
        pto__emit_exprval(E, PTO__K_LHS, st->e[0], 0);
        pto__emit_exprval(E, PTO__K_RHS, st->e[1], 0);
        pto__emit_v(E, PTO__K_CMP, pto_cmp_name((pto_cmp)st->cmp));
        pto__emit_x(E, PTO__T_K_IF);
        pto__emit_block(E, st->body);
        if (st->orelse >= 0) {
            pto__emit_indent(E);
            pto__emit_x(E, PTO__T_K_ELSE);
            pto__emit_block(E, st->orelse);
        }
        pto__emit_indent(E);
        pto__emit_x(E, PTO__T_K_CLOSE);
        break;
    case PTO_ST_SECTION:
        if (E->hook_section) { E->hook_section(E, s); break; }
        pto__emit_v(E, PTO__K_CORE, st->ref == PTO_CORE_CUBE ? "PTO_K_CORE_CUBE" : "PTO_K_CORE_VECTOR");
        pto__emit_v(E, PTO__K_NAME, st->ref == PTO_CORE_CUBE ? "cube" : "vector");
        pto__emit_x(E, PTO__T_K_SECTION);
        pto__emit_ring_inits(E, m->blocks[st->block].kernel);
        pto__emit_block(E, st->body);
        pto__emit_indent(E);
        pto__emit_x(E, PTO__T_K_CLOSE);
        break;
    default:
        E->st = pto_error(E->ctx, st->loc, "emit: unknown statement kind %d", (int)st->kind);
        break;
    }
    if (st->kind != PTO_ST_OP) E->last_note = 0;   /* nor can it run out of a block */
}

static void pto__emit_block(pto__emitter *E, int32_t block)
{
    int32_t s, t;
    if (block < 0) return;
    E->depth++;
    for (s = E->m->blocks[block].head; s >= 0 && E->st == PTO_OK; s = E->m->stmts[s].next) {
        if (E->succ) pto__emit_ahead(E);
        for (t = E->tdn ? pto__emit_td_take(E, s) : -1; t >= 0; t = E->tdecl_next[t]) {
            pto__emit_indent(E);
            pto__emit_tdecl(E, E->tdecl_tile[t]);
        }
        pto__emit_stmt(E, s);
    }
    E->depth--;
}

/* ---- kernel heads ----------------------------------------------------------- */

/* "in x: f32[N, 256], scalar alpha: f32": params [param0, param0 + n) of a
   kernel or a host, into the SIG value of the heading comments. */
static void pto__emit_param_list(pto__emitter *E, int32_t param0, int32_t n)
{
    const pto_module *m = E->m;
    pto_buf *b = pto__emit_sb(E, PTO__K_SIG);
    int32_t p;
    for (p = param0; p < param0 + n; p++) {
        const pto_param *pa = &m->params[p];
        int d;
        if (p > param0) pto__emit_put(b, ", ", 2);
        if (pa->kind == PTO_P_SCALAR) {
            pto_buf_printf(b, "scalar %s: %s", pto_str(E->ctx, pa->name), pto_dtype_name((pto_dtype)pa->dtype));
            continue;
        }
        pto_buf_printf(b, "%s %s: %s[", pto__emit_dir[pa->dir < 3 ? pa->dir : 0], pto_str(E->ctx, pa->name),
                       pto_dtype_name((pto_dtype)pa->dtype));
        for (d = 0; d < 2; d++) {
            if (d) pto__emit_put(b, ", ", 2);
            if (pa->dim_var[d] >= 0) pto__emit_puts(b, pto_str(E->ctx, m->vars[pa->dim_var[d]].name));
            else pto__emit_put_i64(b, pa->dim[d]);
        }
        pto__emit_put(b, "]", 1);
    }
    pto__emit_vbuf(E, PTO__K_SIG);
}

/* The heading values of kernel k: its signature, kind and block count. */
static void pto__emit_sig(pto__emitter *E, int32_t k)
{
    const pto_module *m = E->m;
    const pto_kernel *kn = &m->kernels[k];
    pto__emit_param_list(E, kn->param0, kn->nparams);
    pto__emit_v(E, PTO__K_KIND, pto__emit_kind_word[kn->kind < 3 ? kn->kind : 0]);
    if (kn->blocks >= 0) {
        pto__emit_expr(E, pto__emit_sb(E, PTO__K_BLOCKS), kn->blocks, PTO__EX_PTO, 0);
        pto__emit_vbuf(E, PTO__K_BLOCKS);
    } else {
        pto__emit_v(E, PTO__K_BLOCKS, "1");
    }
}

/* "vec 98304 B, mat 0 B": the highest planned byte of each space in use.
   A mix kernel's cube/vector pipe buffers sit at the top of their space
   (plan.c), so the highest byte would always read "all of it": tiles a
   tpop fills live there and are left out, and the reservation is named
   apart ("vec 32896 B + 32768 B pipe buffers"). */
static void pto__emit_planned(pto__emitter *E, int32_t k)
{
    const pto_module *m = E->m;
    int64_t hi[PTO_NSPACE], res;
    int used[PTO_NSPACE];
    pto_buf *b;
    int32_t t;
    int s, n = 0;
    if (E->planned_k == k + 1) {   /* the text of the kernel's heading, again for its host function */
        pto__emit_vbuf(E, PTO__K_PLANNED);
        return;
    }
    b = pto__emit_sb(E, PTO__K_PLANNED);
    memset(hi, 0, sizeof hi);
    memset(used, 0, sizeof used);
    for (t = 0; t < m->n_tiles; t++) {
        const pto_tile *tl = &m->tiles[t];
        int j;
        if (tl->kernel != k || tl->space == PTO_GM || tl->space >= PTO_NSPACE || !tl->planned) continue;
        used[tl->space] = 1;
        if (E->tile_popped && E->tile_popped[t] && pto__emit_popped_from(m, t) >= 0) continue;
        for (j = 0; j < (tl->nbuf > 1 ? tl->nbuf : 1) && j < PTO_MAX_NBUF; j++)
            if (tl->offset[j] + pto_tile_bytes(tl) > hi[tl->space]) hi[tl->space] = tl->offset[j] + pto_tile_bytes(tl);
    }
    for (s = 1; s < PTO_NSPACE; s++) {
        if (!used[s]) continue;
        pto_buf_printf(b, "%s%s %lld B", n++ ? ", " : "", pto_space_name((pto_space)s), (long long)hi[s]);
        if ((res = pto__reserved(m, k, (pto_space)s)) > 0) pto_buf_printf(b, " + %lld B pipe buffers", (long long)res);
    }
    if (!n) pto__emit_puts(b, "nothing");
    pto__emit_vbuf(E, PTO__K_PLANNED);
    E->planned_k = k + 1;
}

static void pto__emit_kernel(pto__emitter *E, int32_t k)
{
    const pto_module *m = E->m;
    const pto_kernel *kn = &m->kernels[k];
    int32_t p, v, idx = 0;
    int pass;
    if (!E->uses_known) pto__emit_use_block(E, kn->body);
    for (v = 0; v < m->n_vars; v++)   /* a used dim reads its tensor */
        if (m->vars[v].kernel == k && m->vars[v].kind == PTO_V_DIM && E->var_used[v] && m->vars[v].def >= 0)
            E->param_used[m->vars[v].def] = 1;
    pto__emit_sig(E, k);
    pto__emit_planned(E, k);
    pto__emit_v(E, PTO__K_NAME, pto_str(E->ctx, kn->name));
    pto__emit_vi(E, PTO__K_N, kn->loc.line);
    pto__emit_x(E, PTO__T_K_FN_BEGIN);
    E->depth = 1;
    pto__emit_indent(E);
    for (pass = 0; pass < 2; pass++) {    /* tensors first, then scalars */
        for (p = kn->param0; p < kn->param0 + kn->nparams; p++) {
            const pto_param *pa = &m->params[p];
            if ((pa->kind == PTO_P_SCALAR) != pass) continue;
            pto__emit_vi(E, PTO__K_IDX, idx++);
            pto__emit_v(E, PTO__K_DTYPE, pto_dtype_name((pto_dtype)pa->dtype));
            if (pa->kind == PTO_P_TENSOR) {
                pto_buf *d = pto__emit_sb(E, PTO__K_DIMS);
                int j;
                for (j = 0; j < 2; j++) {
                    if (j) pto__emit_put(d, ", ", 2);
                    if (pa->dim_var[j] >= 0) pto__emit_puts(d, pto_str(E->ctx, m->vars[pa->dim_var[j]].name));
                    else pto__emit_put_i64(d, pa->dim[j]);
                }
                pto__emit_vbuf(E, PTO__K_DIMS);
                pto__emit_v(E, PTO__K_DIR, pto__emit_dir[pa->dir < 3 ? pa->dir : 0]);
                pto__emit_v(E, PTO__K_NAME, E->param_name[p]);
                pto__emit_x(E, PTO__T_K_ARG_GM);
                if (!E->param_used[p]) pto__emit_x(E, PTO__T_K_VOID);
            } else {
                int fl = pa->dtype == PTO_F32 || pa->dtype == PTO_F16 || pa->dtype == PTO_BF16;
                if (pa->var < 0) continue;
                pto__emit_v(E, PTO__K_NAME, E->var_name[pa->var]);
                pto__emit_x(E, fl ? PTO__T_K_ARG_F : PTO__T_K_ARG_I);
                if (!E->var_used[pa->var]) pto__emit_x(E, PTO__T_K_VOID);
            }
        }
        if (pass == 0 && pto__emit_has_pipebuf(m, k)) {
            pto__emit_vi(E, PTO__K_IDX, idx++);
            pto__emit_vi(E, PTO__K_N, pto_kernel_pipe_bytes(m, k));
            pto__emit_x(E, PTO__T_K_PIPEBUF);
        }
    }
    for (v = 0; v < m->n_vars; v++) {
        const pto_var *va = &m->vars[v];
        const pto_param *pa;
        if (va->kernel != k || va->kind != PTO_V_DIM || !E->var_used[v] || va->def < 0) continue;
        pa = &m->params[va->def];
        pto__emit_v(E, PTO__K_NAME, E->var_name[v]);
        pto__emit_v(E, PTO__K_RC, pa->dim_var[0] == v ? "rows" : "cols");
        pto__emit_v(E, PTO__K_TENSOR, E->param_name[va->def]);
        pto__emit_x(E, PTO__T_K_DIM);
    }
    E->depth = 0;
    E->kernel = k;
    E->last_note = 0;
    pto__emit_ahead_start(E, kn->body);
    pto__emit_block(E, kn->body);
    pto__emit_x(E, PTO__T_K_FN_END);
}

/* ---- host ----------------------------------------------------------------- */

/* The bytes a C string literal holds as they are: printable ASCII but for
   '"', '\\' and '?' (no trigraphs). 128..255 are escaped. */
static const unsigned char pto__emit_plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
};

/* Escapes one byte that pto__emit_plain refuses into d; returns its length. */
static size_t pto__emit_esc(char *d, unsigned char c)
{
    d[0] = '\\';
    if (c == '\n') { d[1] = 'n'; return 2; }
    if (c == '\t') { d[1] = 't'; return 2; }
    if (c == '"' || c == '\\' || c == '?') { d[1] = (char)c; return 2; }
    d[1] = (char)('0' + (c >> 6));
    d[2] = (char)('0' + ((c >> 3) & 7));
    d[3] = (char)('0' + (c & 7));
    return 4;
}

/* Whether any of the 8 bytes of w is one that pto__emit_plain refuses:
   below 0x20, 0x7f and above, '"', '?' or '\\' (bit tricks on the word). */
static inline uint64_t pto__emit_unplain8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    /* below 0x20 (w - 0x20 borrows); 0x7f and up (w + 1 carries only out of a byte whose high
       bit w already has); '"', '?', '\\' (the byte xor the character is 0: minus 1 borrows).
       Each test can also flag bytes above one it rightly flags (a borrow or carry), never
       below, and bytes from 0x80 up, which are to escape anyway: the lowest bit set is the
       first byte to escape. */
    uint64_t lo = w - ones * 0x20, hi = (w + ones) | w;
    return (lo | hi | ((w ^ (ones * 0x22)) - ones) | ((w ^ (ones * 0x3f)) - ones) | ((w ^ (ones * 0x5c)) - ones)) &
           high;
}

#if PTO__EMIT_SSE2
/* pto__emit_unplain8 for the 16 bytes at s, copied to d on the way: a bit
   per byte to escape (below 0x20 or, as a signed byte, from 0x80 up; 0x7f,
   '"', '?', '\\'). */
static inline unsigned pto__emit_unplain16(const char *s, char *d)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f))),
                               _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                         _mm_cmpeq_epi8(v, _mm_set1_epi8('?'))),
                                            _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
    _mm_storeu_si128((__m128i *)(void *)d, v);
    return (unsigned)_mm_movemask_epi8(bad);
}
#endif

/* The index of the first byte pto__emit_unplain8 flags in its (non-zero)
   result, for a word loaded from memory on a little-endian machine: the
   lowest bit set, 8k + 7, picks byte k of the multiplier. */
static inline size_t pto__emit_first_flagged(uint64_t hit)
{
    return (size_t)((((hit & (0 - hit)) >> 7) * 0x0001020304050607u) >> 56);
}

/* The .pto text, one string per line (short literals keep C99 compilers'
   4095-character limit; a line longer than 1000 bytes goes on in the next
   string): the H_LINE and H_LINE_END templates (plain text) around each
   line, straight into the output. One pass over the text, sixteen (on a
   big-endian machine eight) bytes at a time while they are all plain and
   the line has room for them, byte by byte around a newline or a byte to
   escape; the room for each piece of the text is made once, for its worst
   case. */
#define PTO__EMIT_SRC_PIECE 512
#define PTO__EMIT_SRC_SPLIT 1000

static void pto__emit_source(pto__emitter *E, const char *text, size_t len)
{
    const char *open = pto__emit_tpl[PTO__T_H_LINE], *close = pto__emit_tpl[PTO__T_H_LINE_END];
    size_t no = strlen(open), nc = strlen(close), col = 0;
    const char *p = text, *end = text + len;
    int in_line = 0;   /* a string is open, col bytes of the line in it */
    const uint64_t one = 1;
    int little = *(const unsigned char *)&one == 1;   /* (a constant to the compiler) */
    pto_buf *b = E->out;
#if PTO__EMIT_SSE2
    char nl[16 + 32];   /* "\\n" H_LINE_END H_LINE: a newline inside the text */
    size_t nnl = 2 + nc + no;
    memset(nl, 0, sizeof nl);
    if (nnl <= 16) {
        memcpy(nl, "\\n", 2);
        memcpy(nl + 2, close, nc);
        memcpy(nl + 2 + nc, open, no);
    }
#endif
    while (p < end) {
        size_t n = (size_t)(end - p) < PTO__EMIT_SRC_PIECE ? (size_t)(end - p) : PTO__EMIT_SRC_PIECE;
        size_t need = n * (no + nc + 4) + no + nc + 16;   /* every byte a newline, or escaped */
        const char *stop = p + n;
        char *d;
        if (b->len + need + 1 > b->cap) pto__emit_reserve(b, need + pto__emit_slack(b, 4096));
        if (b->oom || !b->data || b->len + need + 1 > b->cap) {   /* out of memory */
            E->st = PTO_ERR_INTERNAL;
            return;
        }
        d = b->data + b->len;
        if (!in_line) {   /* the first line */
            pto__emit_cp(d, open, no);
            d += no;
            in_line = 1;
        }
        while (p < stop) {
            unsigned char c;
#if PTO__EMIT_SSE2
            if (stop - p >= 16 && col + 16 <= PTO__EMIT_SRC_SPLIT) {   /* sixteen bytes a step */
                unsigned hit = pto__emit_unplain16(p, d);
                if (!hit) {
                    d += 16;
                    p += 16;
                    col += 16;
                    continue;
                }
                hit = (unsigned)__builtin_ctz(hit);   /* up to the first byte to escape */
                d += hit;
                p += hit;
                if (*p == '\n' && p + 1 < end && nnl <= 16) {   /* the usual one: the next line's string */
                    memcpy(d, nl, 16);
                    d += nnl;
                    p++;
                    col = 0;
                    continue;
                }
                col += hit;
            } else
#endif
            if (little && stop - p >= 16 && col + 16 <= PTO__EMIT_SRC_SPLIT) {   /* two words a step */
                uint64_t w, w2, hit, hit2;
                size_t k;
                memcpy(&w, p, 8);
                memcpy(&w2, p + 8, 8);
                hit = pto__emit_unplain8(w);
                hit2 = pto__emit_unplain8(w2);
                memcpy(d, &w, 8);
                memcpy(d + 8, &w2, 8);
                if (!(hit | hit2)) {
                    d += 16;
                    p += 16;
                    col += 16;
                    continue;
                }
                k = hit ? pto__emit_first_flagged(hit) : 8 + pto__emit_first_flagged(hit2);
                d += k;
                p += k;
                col += k;
            } else if (stop - p >= 8 && col + 8 <= PTO__EMIT_SRC_SPLIT) {
                uint64_t w, hit;
                memcpy(&w, p, 8);
                hit = pto__emit_unplain8(w);
                memcpy(d, &w, 8);   /* (bytes from the flagged one on are written again) */
                if (!hit) {
                    d += 8;
                    p += 8;
                    col += 8;
                    continue;
                }
                if (little) {   /* up to the first byte to escape (in these 8) */
                    size_t k = pto__emit_first_flagged(hit);
                    d += k;
                    p += k;
                    col += k;
                } else {
                    while (pto__emit_plain[(unsigned char)*p]) {
                        *d++ = *p++;
                        col++;
                    }
                }
            }
            c = (unsigned char)*p++;
            if (c == '\n') {
                d[0] = '\\';
                d[1] = 'n';
                pto__emit_cp(d + 2, close, nc);
                d += 2 + nc;
                col = 0;
                if (p < end) {
                    pto__emit_cp(d, open, no);
                    d += no;
                } else {
                    in_line = 0;
                }
                continue;
            }
            if (col == PTO__EMIT_SRC_SPLIT) {   /* a long line: on in the next string */
                pto__emit_cp(d, close, nc);
                pto__emit_cp(d + nc, open, no);
                d += nc + no;
                col = 0;
            }
            if (pto__emit_plain[c]) *d++ = (char)c;
            else d += pto__emit_esc(d, c);
            col++;
        }
        if (p == end && in_line) {   /* the text does not end with a newline */
            pto__emit_cp(d, close, nc);
            d += nc;
        }
        b->len = (size_t)(d - b->data);
    }
}

static void pto__emit_host_kernel(pto__emitter *E, int32_t k)
{
    const pto_module *m = E->m;
    const pto_kernel *kn = &m->kernels[k];
    int32_t p, v, idx = 0, ntensor = 0;
    int pass;
    pto__emit_sig(E, k);
    pto__emit_planned(E, k);
    pto__emit_v(E, PTO__K_NAME, pto_str(E->ctx, kn->name));
    pto__emit_x(E, PTO__T_H_FN_BEGIN);
    if (kn->ranks) {
        pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, kn->name));
        pto__emit_x(E, PTO__T_H_RANKS);
    }
    for (v = 0; v < m->n_vars; v++) {
        const pto_var *va = &m->vars[v];
        if (va->kernel != k || va->kind != PTO_V_DIM) continue;
        pto__emit_v(E, PTO__K_NAME, E->var_name[v]);
        pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, va->name));
        pto__emit_x(E, PTO__T_H_DIM);
    }
    for (p = kn->param0; p < kn->param0 + kn->nparams; p++) {
        const pto_param *pa = &m->params[p];
        if (pa->kind == PTO_P_SCALAR) {
            int fl = pa->dtype == PTO_F32 || pa->dtype == PTO_F16 || pa->dtype == PTO_BF16;
            if (pa->var < 0) continue;
            pto__emit_v(E, PTO__K_NAME, E->var_name[pa->var]);
            pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, pa->name));
            pto__emit_v(E, PTO__K_DTYPE, pto__emit_dtype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0]);
            pto__emit_x(E, fl ? PTO__T_H_SCALAR_F : PTO__T_H_SCALAR_I);
            continue;
        }
        ntensor++;
    }
    for (p = kn->param0; p < kn->param0 + kn->nparams; p++) {
        const pto_param *pa = &m->params[p];
        if (pa->kind != PTO_P_TENSOR) continue;
        pto__emit_v(E, PTO__K_NAME, E->param_name[p]);
        pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, pa->name));
        pto__emit_vi(E, PTO__K_IDX, p - kn->param0);
        pto__emit_v(E, PTO__K_DTYPE, pto__emit_dtype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0]);
        if (pa->dim_var[0] >= 0) pto__emit_v(E, PTO__K_ROWS, E->var_name[pa->dim_var[0]]);
        else pto__emit_vi(E, PTO__K_ROWS, pa->dim[0]);
        if (pa->dim_var[1] >= 0) pto__emit_v(E, PTO__K_COLS, E->var_name[pa->dim_var[1]]);
        else pto__emit_vi(E, PTO__K_COLS, pa->dim[1]);
        pto__emit_v(E, PTO__K_DIR, pa->dir == PTO_IN ? "PTO_H_IN" : pa->dir == PTO_OUT ? "PTO_H_OUT" : "PTO_H_INOUT");
        pto__emit_x(E, PTO__T_H_TENSOR);
    }
    if (pto__emit_has_pipebuf(m, k)) {
        if (kn->blocks >= 0) {
            pto__emit_expr(E, pto__emit_sb(E, PTO__K_BLOCKS), kn->blocks, PTO__EX_HOST, 0);
            pto__emit_vbuf(E, PTO__K_BLOCKS);
        } else {
            pto__emit_v(E, PTO__K_BLOCKS, "1");
        }
        pto__emit_vi(E, PTO__K_N, pto_kernel_pipe_bytes(m, k));
        pto__emit_x(E, PTO__T_H_PIPEBUF);
    }
    pto__emit_vi(E, PTO__K_N, kn->nparams + pto__emit_has_pipebuf(m, k) > 0 ? kn->nparams + pto__emit_has_pipebuf(m, k) : 1);
    pto__emit_x(E, PTO__T_H_ARGS);
    for (pass = 0; pass < 2; pass++) {
        for (p = kn->param0; p < kn->param0 + kn->nparams; p++) {
            const pto_param *pa = &m->params[p];
            int fl = pa->dtype == PTO_F32 || pa->dtype == PTO_F16 || pa->dtype == PTO_BF16;
            if ((pa->kind == PTO_P_SCALAR) != pass) continue;
            pto__emit_vi(E, PTO__K_IDX, idx++);
            if (pa->kind == PTO_P_TENSOR) {
                pto__emit_v(E, PTO__K_NAME, E->param_name[p]);
                pto__emit_x(E, PTO__T_H_ARG_GM);
            } else if (pa->var >= 0) {
                pto__emit_v(E, PTO__K_NAME, E->var_name[pa->var]);
                pto__emit_x(E, fl ? PTO__T_H_ARG_F : PTO__T_H_ARG_I);
            }
        }
        if (pass == 0 && pto__emit_has_pipebuf(m, k)) {
            pto__emit_vi(E, PTO__K_IDX, idx++);
            pto__emit_v(E, PTO__K_NAME, "pto_gm_pipe_buffer");
            pto__emit_x(E, PTO__T_H_ARG_GM);
        }
    }
    (void)ntensor;
    pto__emit_v(E, PTO__K_NAME, pto_str(E->ctx, kn->name));
    pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, kn->name));
    pto__emit_v(E, PTO__K_KIND, pto__emit_kind[kn->kind < 3 ? kn->kind : 0]);
    if (kn->blocks >= 0) {
        pto__emit_expr(E, pto__emit_sb(E, PTO__K_BLOCKS), kn->blocks, PTO__EX_HOST, 0);
        pto__emit_vbuf(E, PTO__K_BLOCKS);
    } else {
        pto__emit_v(E, PTO__K_BLOCKS, "1");
    }
    pto__emit_x(E, PTO__T_H_LAUNCH);
}

/* ---- host sections ----------------------------------------------------------
   host_NAME declares the host's dims and scalars (from -D), allocates its
   params and intermediates, and per call fills args in the kernel's ABI order
   and launches it with the kernel's block count, computed from the host's
   values: while a call is emitted, the kernel's dim and scalar vars are
   spelled as the host text bound to them (pto__emit_hs_bind). */

/* The C text of a scalar argument (host spelling). */
static void pto__emit_hs_value(pto__emitter *E, pto_buf *b, const pto_operand *o)
{
    if (o->kind == PTO_O_FLOAT) pto__emit_float(E, b, o->f, PTO__EX_HOST);
    else if (o->kind == PTO_O_SCALAR) pto__emit_puts(b, E->var_name[o->ref]);
    else pto__emit_expr(E, b, o->e[0], PTO__EX_HOST, 0);
}

/* Spells every dim and scalar var of the called kernel as its host value
   (saved[] gets the names to restore); the texts live in txt. */
static void pto__emit_hs_bind(pto__emitter *E, const pto_hstmt *st, const int32_t *order, int32_t n, pto_buf *txt,
                              int32_t *offs, char **saved)
{
    const pto_module *m = E->m;
    int32_t i, nv = 0;
    int d;
    for (i = 0; i < n; i++) {   /* texts first: txt may move while it grows */
        const pto_param *kp = &m->params[order[i]];
        const pto_operand *o = &m->operands[st->arg0 + i];
        for (d = 0; d < 2 && kp->kind == PTO_P_TENSOR; d++) {
            const pto_param *ht = &m->params[o->ref];
            offs[nv++] = (int32_t)txt->len;
            if (ht->dim_var[d] >= 0) pto__emit_puts(txt, E->var_name[ht->dim_var[d]]);
            else pto__emit_put_i64(txt, ht->dim[d]);
            pto__emit_put(txt, "", 1);
        }
        if (kp->kind == PTO_P_SCALAR) {
            offs[nv++] = (int32_t)txt->len;
            pto__emit_put(txt, "(", 1);
            pto__emit_hs_value(E, txt, o);
            pto__emit_put(txt, ")", 2);
        }
    }
    nv = 0;
    for (i = 0; i < n && !txt->oom; i++) {
        const pto_param *kp = &m->params[order[i]];
        for (d = 0; d < 2 && kp->kind == PTO_P_TENSOR; d++, nv++)
            if (kp->dim_var[d] >= 0) {
                saved[2 * i + d] = E->var_name[kp->dim_var[d]];
                E->var_name[kp->dim_var[d]] = txt->data + offs[nv];
            }
        if (kp->kind == PTO_P_SCALAR && kp->var >= 0) {
            saved[2 * i] = E->var_name[kp->var];
            E->var_name[kp->var] = txt->data + offs[nv];
        }
        nv += kp->kind == PTO_P_SCALAR;
    }
}

static void pto__emit_hs_unbind(pto__emitter *E, const int32_t *order, int32_t n, char **saved)
{
    const pto_module *m = E->m;
    int32_t i;
    int d;
    /* in reverse: a dim shared by two params saved the first one's text second */
    for (i = n - 1; i >= 0; i--) {
        const pto_param *kp = &m->params[order[i]];
        for (d = 1; d >= 0; d--) {
            int32_t v = kp->kind == PTO_P_TENSOR ? kp->dim_var[d] : d == 0 ? kp->var : -1;
            if (v >= 0 && saved[2 * i + d]) E->var_name[v] = saved[2 * i + d];
            saved[2 * i + d] = NULL;
        }
    }
}

/* "k(x, t, 0.5)": the call as written, for the comment. */
static void pto__emit_hs_sig(pto__emitter *E, const pto_hstmt *st)
{
    const pto_module *m = E->m;
    pto_buf *b = pto__emit_sb(E, PTO__K_SIG);
    int32_t i;
    pto__emit_puts(b, pto_str(E->ctx, m->kernels[st->ref].name));
    pto__emit_put(b, "(", 1);
    for (i = 0; i < st->nargs; i++) {
        const pto_operand *o = &m->operands[st->arg0 + i];
        if (i) pto__emit_put(b, ", ", 2);
        if (o->kind == PTO_O_GM) pto__emit_puts(b, pto_str(E->ctx, m->params[o->ref].name));
        else if (o->kind == PTO_O_FLOAT) pto__emit_float(E, b, o->f, PTO__EX_PTO);
        else if (o->kind == PTO_O_SCALAR) pto__emit_puts(b, pto_str(E->ctx, m->vars[o->ref].name));
        else pto__emit_expr(E, b, o->e[0], PTO__EX_PTO, 0);
    }
    pto__emit_put(b, ")", 1);
    pto__emit_vbuf(E, PTO__K_SIG);
}

static void pto__emit_hs_call(pto__emitter *E, const pto_hstmt *st, int32_t *order, int32_t *offs, char **saved,
                              pto_buf *txt)
{
    const pto_module *m = E->m;
    const pto_kernel *k = &m->kernels[st->ref];
    int32_t n = pto__hs_abi(m, k, order), i, nt = 0;
    int pb = pto__emit_has_pipebuf(m, st->ref);   /* the hidden buffer follows the tensors */
    for (i = 0; i < n; i++) nt += m->params[order[i]].kind == PTO_P_TENSOR;
    pto__emit_hs_sig(E, st);
    pto__emit_vi(E, PTO__K_N, st->loc.line);
    pto__emit_vi(E, PTO__K_IDX, n + pb > 0 ? n + pb : 1);
    pto__emit_x(E, PTO__T_HS_CALL);
    for (i = 0; i < n; i++) {
        const pto_param *kp = &m->params[order[i]];
        const pto_operand *o = &m->operands[st->arg0 + i];
        pto__emit_vi(E, PTO__K_IDX, i + (pb && i >= nt));
        if (kp->kind == PTO_P_TENSOR) {
            pto__emit_v(E, PTO__K_NAME, E->param_name[o->ref]);
            pto__emit_x(E, PTO__T_HS_ARG_GM);
            continue;
        }
        pto__emit_hs_value(E, pto__emit_sb(E, PTO__K_EXPR), o);
        pto__emit_vbuf(E, PTO__K_EXPR);
        pto__emit_x(E, kp->dtype == PTO_F32 || kp->dtype == PTO_F16 || kp->dtype == PTO_BF16 ? PTO__T_HS_ARG_F
                                                                                              : PTO__T_HS_ARG_I);
    }
    txt->len = 0;
    pto__emit_hs_bind(E, st, order, n, txt, offs, saved);
    if (k->blocks >= 0) {
        pto__emit_expr(E, pto__emit_sb(E, PTO__K_BLOCKS), k->blocks, PTO__EX_HOST, 0);
        pto__emit_vbuf(E, PTO__K_BLOCKS);
    } else {
        pto__emit_v(E, PTO__K_BLOCKS, "1");
    }
    if (pb) {
        pto__emit_vi(E, PTO__K_IDX, nt);
        pto__emit_vi(E, PTO__K_N, pto_kernel_pipe_bytes(m, st->ref));
        pto__emit_x(E, PTO__T_HS_PIPEBUF);
    }
    pto__emit_hs_unbind(E, order, n, saved);
    pto__emit_planned(E, st->ref);
    pto__emit_v(E, PTO__K_NAME, pto_str(E->ctx, k->name));
    pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, k->name));
    pto__emit_v(E, PTO__K_KIND, pto__emit_kind[k->kind < 3 ? k->kind : 0]);
    pto__emit_x(E, PTO__T_HS_LAUNCH);
}

/* The host's dims and scalars, then its tensors (index = host tensor). */
static void pto__emit_hs_decls(pto__emitter *E, int32_t h)
{
    const pto_module *m = E->m;
    const pto_host *ho = &m->hosts[h];
    int32_t v, i;
    for (v = 0; v < m->n_vars; v++) {
        const pto_var *va = &m->vars[v];
        const pto_param *pa;
        if (va->kernel != PTO_HOST_SCOPE(h)) continue;
        pa = va->def >= 0 ? &m->params[va->def] : NULL;
        pto__emit_v(E, PTO__K_NAME, E->var_name[v]);
        pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, va->name));
        pto__emit_v(E, PTO__K_DTYPE, pa && pa->dtype < PTO_NDTYPE ? pto__emit_dtype[pa->dtype] : "PTO_K_I32");
        if (va->kind == PTO_V_DIM) pto__emit_x(E, PTO__T_H_DIM);
        else pto__emit_x(E, pa && (pa->dtype == PTO_F32 || pa->dtype == PTO_F16 || pa->dtype == PTO_BF16)
                                ? PTO__T_H_SCALAR_F : PTO__T_H_SCALAR_I);
    }
    for (i = 0; i < ho->nparams + ho->ntensors; i++) {
        const pto_param *pa = &m->params[ho->param0 + i];
        if (pa->kind != PTO_P_TENSOR) continue;
        pto__emit_v(E, PTO__K_NAME, E->param_name[ho->param0 + i]);
        pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, pa->name));
        pto__emit_vi(E, PTO__K_IDX, i);
        pto__emit_v(E, PTO__K_DTYPE, pto__emit_dtype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0]);
        if (pa->dim_var[0] >= 0) pto__emit_v(E, PTO__K_ROWS, E->var_name[pa->dim_var[0]]);
        else pto__emit_vi(E, PTO__K_ROWS, pa->dim[0]);
        if (pa->dim_var[1] >= 0) pto__emit_v(E, PTO__K_COLS, E->var_name[pa->dim_var[1]]);
        else pto__emit_vi(E, PTO__K_COLS, pa->dim[1]);
        pto__emit_v(E, PTO__K_DIR, i >= ho->nparams ? "PTO_H_TEMP" : pa->dir == PTO_IN ? "PTO_H_IN"
                                   : pa->dir == PTO_OUT ? "PTO_H_OUT" : "PTO_H_INOUT");
        pto__emit_x(E, PTO__T_H_TENSOR);
    }
}

static void pto__emit_host_section(pto__emitter *E, int32_t h)
{
    const pto_module *m = E->m;
    const pto_host *ho = &m->hosts[h];
    int32_t most = 1, k, s, *order, *offs;
    char **saved;
    pto_buf txt;
    for (k = 0; k < m->n_kernels; k++)
        if (m->kernels[k].nparams > most) most = m->kernels[k].nparams;
    memset(&txt, 0, sizeof txt);
    txt.ctx = E->ctx;
    order = (int32_t *)pto_alloc(E->ctx, sizeof(int32_t) * (size_t)most);
    offs = (int32_t *)pto_alloc(E->ctx, sizeof(int32_t) * (size_t)(2 * most));
    saved = (char **)pto_alloc(E->ctx, sizeof(char *) * (size_t)(2 * most));
    if (!order || !offs || !saved) {
        E->st = PTO_ERR_INTERNAL;
    } else {
        memset(saved, 0, sizeof(char *) * (size_t)(2 * most));
        pto__emit_v(E, PTO__K_NAME, pto_str(E->ctx, ho->name));
        pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, ho->name));
        pto__emit_vi(E, PTO__K_N, ho->loc.line);
        pto__emit_param_list(E, ho->param0, ho->nparams); /* as written, for the comment */
        pto__emit_x(E, PTO__T_HS_BEGIN);
        pto__emit_hs_decls(E, h);
        pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, ho->name));
        pto__emit_x(E, PTO__T_HS_READY);
        for (s = ho->stmt0; s < ho->stmt0 + ho->nstmts; s++)
            if (m->hstmts[s].kind == PTO_HS_CALL) pto__emit_hs_call(E, &m->hstmts[s], order, offs, saved, &txt);
        pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, ho->name));
        pto__emit_x(E, PTO__T_HS_END);
    }
    if (txt.oom) E->st = PTO_ERR_INTERNAL;
    pto_buf_free(&txt);
    pto_free(E->ctx, order);
    pto_free(E->ctx, offs);
    pto_free(E->ctx, saved);
}

/* ---- entry ---------------------------------------------------------------- */

/* Every statement of the module's kernels must be something the emitter can
   name: checked up front so that a bad module gives one clear error. */
static pto_status pto__emit_check(pto__emitter *E)
{
    const pto_module *m = E->m;
    int32_t s, last_block = -1, *succ = E->succ;
    int reached = 0;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *o, *o0, *end;
        int cls;
        if (st->block < 0) {
            if (succ) succ[s] = -1;
            continue;
        }
        if (succ) succ[s] = pto__emit_succ(m, st);
        if (st->block != last_block) {   /* (a block's statements mostly follow each other) */
            last_block = st->block;
            reached = E->reach && st->block < m->n_blocks && E->reach[st->block] == 1;
        }
        if (st->kind != PTO_ST_OP) {
            if (st->kind == PTO_ST_TILE && (st->ref < 0 || st->ref >= m->n_tiles))
                return pto_error(E->ctx, st->loc, "emit: tile statement without a tile");
            if ((st->kind == PTO_ST_LET || st->kind == PTO_ST_FOR) && (st->ref < 0 || st->ref >= m->n_vars))
                return pto_error(E->ctx, st->loc, "emit: statement without its variable");
            if (reached && st->kind == PTO_ST_TILE) {   /* pto__emit_use_stmt's names, marked */
                pto__emit_use_later(E, m->tiles[st->ref].valid_r);
                pto__emit_use_later(E, m->tiles[st->ref].valid_c);
            } else if (reached) {
                pto__emit_use_later(E, st->e[0]);
                pto__emit_use_later(E, st->e[1]);
                pto__emit_use_later(E, st->e[2]);
            }
            continue;
        }
        if (st->op >= PTO_NOP) return pto_error(E->ctx, st->loc, "emit: unknown op %d", (int)st->op);
        cls = (int)pto_opinfo_get((pto_op)st->op)->cls;
        if (cls == PTO_OC_XFER || cls == PTO_OC_ALLREDUCE)
            return pto_error(E->ctx, st->loc, "emit: %s is not lowered (run pto_lower after pto_verify)",
                             pto_opinfo_get((pto_op)st->op)->name);
        if (cls == PTO_OC_FILLPAD && !E->hook_op)   /* pto_kernels.h's tload zeroes the padding itself */
            return pto_error(E->ctx, st->loc, "emit: tfillpad is for the isa target (pto_compile_desc.target "
                             "PTO_TARGET_ISA); lower the module for PTO_TARGET_SIM to emit it for the simulator");
        o0 = end = m->operands;
        if (st->nargs > 0) end = (o0 += st->arg0) + st->nargs;
        for (o = o0; o < end; o++) {   /* checked, and the names it reads marked (pto__emit_use_stmt) */
            int bad = 0;
            switch (o->kind) {
            case PTO_O_TILE: bad = (uint32_t)o->ref >= (uint32_t)m->n_tiles; break;
            case PTO_O_PIPE: bad = (uint32_t)o->ref >= (uint32_t)PTO_NPIPE; break;
            case PTO_O_INT:
                if (!reached) break;
                pto__emit_use_later(E, o->e[0]);
                pto__emit_use_later(E, o->e[1]);
                break;
            case PTO_O_GM:
                bad = (uint32_t)o->ref >= (uint32_t)m->n_params;
                if (bad || !reached) break;
                E->param_used[o->ref] = 1;
                pto__emit_use_later(E, o->e[0]);
                pto__emit_use_later(E, o->e[1]);
                pto__emit_use_later(E, o->e[2]);
                break;
            case PTO_O_SCALAR:
                bad = (uint32_t)o->ref >= (uint32_t)m->n_vars;
                if (!bad && reached) E->var_used[o->ref] = 1;
                break;
            case PTO_O_CVPIPE: bad = (uint32_t)o->ref >= (uint32_t)m->n_cvpipes; break;
            case PTO_O_FLOAT: break;
            case PTO_O_CMP: bad = o->ref < 0 || o->ref > PTO_GE; break;
            case PTO_O_NMODE: bad = o->ref != PTO_NOTIFY_SET && o->ref != PTO_NOTIFY_ADD; break;
            default:
                return pto_error(E->ctx, o->loc, "emit: operand kind %d of %s is not supported yet", (int)o->kind,
                                 pto_opinfo_get((pto_op)st->op)->name);
            }
            if (bad) return pto_error(E->ctx, o->loc, "emit: operand %d of %s refers to nothing", (int)(o - o0),
                                      pto_opinfo_get((pto_op)st->op)->name);
        }
    }
    pto__emit_use_sweep(E);
    return PTO_OK;
}

/* The base name of the source, escaped for a C string; a name whose escaped
   form does not fit is cut between two escapes, never inside one (a lone
   backslash at the end would swallow the closing quote). */
static void pto__emit_file_name(pto__emitter *E, const char *name)
{
    const char *base = name, *p;
    size_t n = 0, k;
    for (p = name; *p; p++)
        if (*p == '/' || *p == '\\') base = p + 1;
    for (p = base; *p; p++) {
        char esc[4];
        if (pto__emit_plain[(unsigned char)*p]) esc[0] = *p, k = 1;
        else k = pto__emit_esc(esc, (unsigned char)*p);
        if (n + k > sizeof E->file - 1) break;
        memcpy(E->file + n, esc, k);
        n += k;
    }
    E->file[n] = 0;
    E->file_len = n;
    memcpy(E->srcline, E->file, n);   /* the fixed start of every "FILE:LINE" (pto__emit_srcline_set) */
    E->srcline[n] = ':';
    E->srcline_line = 0;
    if (E->val[PTO__K_SRC] == E->srcline) E->vlen[PTO__K_SRC] = 0;
}

static void pto__emit_free(pto__emitter *E, uint8_t *vo, uint8_t *to, uint8_t *po)
{
    int k;
    pto__emit_free_names(E, E->var_name, vo, E->m->n_vars);
    pto__emit_free_names(E, E->tile_name, to, E->m->n_tiles);
    pto__emit_free_names(E, E->param_name, po, E->m->n_params);
    pto_free(E->ctx, E->var_used);
    pto_free(E->ctx, E->param_used);
    pto_free(E->ctx, E->reach);
    pto_free(E->ctx, E->succ);
    pto_free(E->ctx, E->after);
    pto_free(E->ctx, E->td);
    pto_free(E->ctx, E->tdecl_tile);
    pto_free(E->ctx, E->tile_unused);
    pto_free(E->ctx, E->tile_popped);
    pto_free(E->ctx, E->tdecl_next);
    pto_free(E->ctx, E->note_first);
    pto_free(E->ctx, E->cstate);
    pto_free(E->ctx, E->cval);
    pto_free(E->ctx, E->segs);
    pto_free(E->ctx, E->var_len);
    pto_free(E->ctx, E->tile_len);
    pto_free(E->ctx, E->param_len);
    pto_free(E->ctx, E->tile_arg);
    pto_free(E->ctx, E->var_arg);
    pto_buf_free(&E->argtext);
    pto_free(E->ctx, E->bsegs);
    pto_free(E->ctx, E->plans);
    pto_buf_free(&E->btext);
    for (k = 0; k < PTO__NKEYS; k++) pto_buf_free(&E->scratch[k]);
}

static void pto__emit_all(pto__emitter *E, const pto_emit_desc *desc, pto_buf *ksrc, pto_buf *hsrc)
{
    const pto_module *m = E->m;
    int32_t k;
    pto__emit_v(E, PTO__K_FILE, E->file);
    pto__emit_v(E, PTO__K_VERSION, PTO_VERSION_STRING);
    if (ksrc) {
        E->out = ksrc;
        pto__emit_reserve(ksrc, ksrc->sink ? 0 : (size_t)m->n_stmts * 200 + 4096);
        pto__emit_x(E, PTO__T_K_FILE);
        for (k = 0; k < m->n_kernels && E->st == PTO_OK; k++) {
            if (!E->uses_known) {
                memset(E->var_used, 0, (size_t)(m->n_vars ? m->n_vars : 1));
                memset(E->param_used, 0, (size_t)(m->n_params ? m->n_params : 1));
            }
            pto__emit_kernel(E, k);
        }
        /* with sinks, a writer sees the kernel source end before the host source begins */
        if (E->st == PTO_OK) pto_buf_flush(ksrc);
    }
    if (hsrc && E->st == PTO_OK) {
        E->out = hsrc;
        pto__emit_reserve(hsrc, hsrc->sink ? 0
                                           : (desc && desc->source ? desc->source_len : (size_t)m->n_stmts * 32) * 3 / 2 +
                                                 8192);
        pto__emit_v(E, PTO__K_FILE, E->file);
        pto__emit_x(E, PTO__T_H_FILE);
        if (desc && desc->source) {
            pto__emit_source(E, desc->source, desc->source_len);
        } else {
            pto_buf text;
            memset(&text, 0, sizeof text);
            text.ctx = E->ctx;
            pto_print(m, &text);
            pto__emit_source(E, text.data ? text.data : "", text.len);
            if (text.oom) E->st = PTO_ERR_INTERNAL;
            pto_buf_free(&text);
        }
        pto__emit_x(E, PTO__T_H_SOURCE_END);
        /* with host sections, the hosts are the program; else each kernel on its own */
        for (k = 0; k < m->n_kernels && !m->n_hosts; k++) pto__emit_host_kernel(E, k);
        for (k = 0; k < m->n_hosts; k++) pto__emit_host_section(E, k);
        pto__emit_v(E, PTO__K_FILE, E->file);
        pto__emit_x(E, PTO__T_H_MAIN_BEGIN);
        for (k = 0; k < (m->n_hosts ? m->n_hosts : m->n_kernels); k++) {
            pto__emit_v(E, PTO__K_NAME, pto_str(E->ctx, m->n_hosts ? m->hosts[k].name : m->kernels[k].name));
            pto__emit_x(E, PTO__T_H_CALL);
        }
        pto__emit_x(E, PTO__T_H_MAIN_END);
    }
}

PTODEF pto_status pto_emit(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src,
                           pto_buf *host_src)
{
    pto__emitter *E;
    uint8_t *vo = NULL, *to = NULL, *po = NULL;
    pto_status st;
    int k, before = pto_error_count(ctx);
    if (pto__need_verified(ctx, m, "pto_emit") != PTO_OK) return PTO_ERR_USER;
    /* a zeroed buffer whose ctx the caller did not set writes through ours */
    if (kernel_src && !kernel_src->ctx) kernel_src->ctx = ctx;
    if (host_src && !host_src->ctx) host_src->ctx = ctx;
    E = (pto__emitter *)pto_alloc(ctx, sizeof *E);
    if (!E) return PTO_ERR_INTERNAL;
    memset(E, 0, sizeof *E);
    E->ctx = ctx;
    E->m = m;
    for (k = 0; k < PTO__NKEYS; k++) E->scratch[k].ctx = ctx;
    pto__emit_file_name(E, desc && desc->filename ? desc->filename
                                                  : pto_file_name(ctx, m->n_kernels ? m->kernels[0].loc.file : m->file));
    E->var_used = (uint8_t *)pto_alloc(ctx, (size_t)(m->n_vars ? m->n_vars : 1));
    E->param_used = (uint8_t *)pto_alloc(ctx, (size_t)(m->n_params ? m->n_params : 1));
    st = E->var_used && E->param_used ? PTO_OK : PTO_ERR_INTERNAL;
    if (st == PTO_OK) {   /* one kernel: its uses are gathered by the check's pass */
        memset(E->var_used, 0, (size_t)(m->n_vars ? m->n_vars : 1));
        memset(E->param_used, 0, (size_t)(m->n_params ? m->n_params : 1));
        if (m->n_kernels == 1) st = pto__emit_reach(E);
    }
    if (st == PTO_OK && (size_t)m->n_stmts * sizeof(pto_stmt) > PTO__EMIT_AHEAD_MIN) {
        /* (without them there is no prefetching: the same output) */
        E->succ = (int32_t *)pto_alloc(ctx, sizeof(int32_t) * (size_t)(m->n_stmts ? m->n_stmts : 1));
        E->after = (int32_t *)pto_alloc(ctx, sizeof(int32_t) * (size_t)(m->n_blocks ? m->n_blocks : 1));
        if (E->succ && E->after) {
            int32_t b;
            for (b = 0; b < m->n_blocks; b++) E->after[b] = -2;
        } else {
            pto_free(ctx, E->succ);
            pto_free(ctx, E->after);
            E->succ = E->after = NULL;
        }
    }
    if (st == PTO_OK && m->n_exprs > 0) {   /* (without them the printer still works, only slower) */
        E->cstate = (uint8_t *)pto_alloc(ctx, (size_t)m->n_exprs);
        if (E->cstate) memset(E->cstate, 0, (size_t)m->n_exprs);
    }
    if (st == PTO_OK) st = pto__emit_check(E);
    E->uses_known = E->reach != NULL;
    if (st == PTO_OK) st = pto__emit_compile(E);
    if (st == PTO_OK) st = pto__emit_names(E, PTO__NAMES_VAR, &E->var_name, &vo);
    if (st == PTO_OK) st = pto__emit_names(E, PTO__NAMES_TILE, &E->tile_name, &to);
    if (st == PTO_OK) st = pto__emit_names(E, PTO__NAMES_PARAM, &E->param_name, &po);
    if (st == PTO_OK) st = pto__emit_lens(E);
    if (st == PTO_OK) st = pto__emit_tdecls(E);
    if (st == PTO_OK) {
        int32_t i;
        E->nnotes = ctx->n_strs;
        E->note_first = (int32_t *)pto_alloc(ctx, sizeof(int32_t) * (size_t)(E->nnotes ? E->nnotes : 1));
        if (!E->note_first) st = PTO_ERR_INTERNAL;
        for (i = 0; st == PTO_OK && i < E->nnotes; i++) E->note_first[i] = -1;
    }
    if (st == PTO_OK) {
        pto__emit_all(E, desc, kernel_src, host_src);
        st = E->st;
    }
    for (k = 0; k < PTO__NKEYS; k++)
        if (E->scratch[k].oom) st = PTO_ERR_INTERNAL;
    if ((kernel_src && kernel_src->oom) || (host_src && host_src->oom) || E->btext.oom) st = PTO_ERR_INTERNAL;
    pto__emit_nul(kernel_src);
    pto__emit_nul(host_src);
    if (st == PTO_OK && kernel_src) pto_buf_flush(kernel_src);
    if (st == PTO_OK && host_src) pto_buf_flush(host_src);
    pto__emit_free(E, vo, to, po);
    pto_free(ctx, E);
    /* every internal failure of emit is an allocation that failed: some
       were allowed to fail quietly (line plans) before a later one gave up */
    if (st == PTO_ERR_INTERNAL && pto_error_count(ctx) == before) pto__oom(ctx);
    return st;
}
/* ---- End file: src/emit.c ---- */

/* ---- Begin file: src/emit_isa.c ---- */
/* emit_isa.c - the second emission target: a planned, synchronised module ->
   C++ against the Ascend pto-isa tile API, for real devices.

   Needs: what emit.c needs (a verified, stamped module, every local tile planned,
   flags and barriers in place). It reads the module and never changes it.

   Guarantees: one C++ source, byte-identical for identical input, that
   says the same thing as emit.c's kernel source in the vocabulary of the
   device headers (docs/isa-target.md has the mapping table and the sources
   of the API facts):
   - one `extern "C" __global__ AICORE void kernel_NAME(__gm__ int64_t *args)`
     per kernel: the runtime ABI of hardware.md section 7 (tensor
     descriptors first, then scalars as raw 64-bit values; block index and
     count come from get_block_idx() / get_block_num());
   - every tile declared where the .pto declares it, as a pto::Tile of its
     space, and bound to its planned offset with pto::TASSIGN (an xN tile's
     slot computed from the loop index, as in the simulator target); valid
     regions are template arguments when constant, pto::DYNAMIC plus a
     constructor argument when computed at run time;
   - one pto-isa call per instruction, with a comment "FILE:LINE: TEXT"
     naming the .pto statement; a GM window is a pto::GlobalTensor view
     declared on the line before the TLOAD / TSTORE that uses it;
   - set_flag / wait_flag / pipe_barrier with the comment of the pass that
     put them there; for / if / let as written; a mix kernel's sections
     under #if defined(__DAV_CUBE__) / __DAV_VEC__ (each core type is
     compiled on its own), with its pipes declared at the top.
   The statement walk, expressions, names, notes and slot offsets are
   emit.c's (this file is later in the same translation unit and plugs its
   spellings in through the emitter's hooks). An op or operand this target
   cannot express yet is an error with the statement's location, never
   silently different code.

   Cube/vector pipes (a2a3): a kernel with pipes takes the hidden GM pipe
   buffer after its tensors, as in the simulator target, and shards it by
   block (get_block_idx() x the kernel's per-block pipe bytes); each section
   declares one pto::TPipe per pipe of the kernel, and tpush / tpop / tfree
   become TPUSH / TPOP / TFREE (see "cube/vector pipes" below). Pipes the
   device protocol cannot carry (a V2C ring without a split, a5) are
   refused.

   The one thing the target adds: the row reductions (TROWSUM, TROWMAX,
   TROWMIN) take a scratch tile in the C++ API. The planner does not
   reserve one yet, so each kernel gets one vec scratch area right above
   its planned vec peak (sized for its largest reduced tile, an error if the
   space is full), and a pipe_barrier(PIPE_V) orders every row reduction
   after the V work before it (the scratch is shared), unless a V barrier
   is already the statement just before. TCOLSUM takes a tmp tile too:
   it gets a [1, C] tile at the same place, and isBinary = false, the
   sequential sum (the interpreter's order), which never touches tmp, so it
   needs no barrier.

   Padding: tload zeroes a tile outside its valid region, pto-isa's TLOAD
   does not. Where an op reads that padding, pto_lower_for(..., ISA) has put
   a tfillpad after the tload, which the sync pass ordered like any op; it
   becomes TFILLPAD_INPLACE (vec, through a whole-tile view with pad value
   Zero) or TFILLPAD (mat): see pto__isa_fillpad. A module lowered without
   those fills, and a [R, 1] column whose padding is read (pto-isa pads
   rows), are refused at the tload.

   Element types: on a2a3 each vector op takes the dtypes pto-isa's a2a3
   headers take (pto__isa_dtypes, one table: f16 / f32, and i32 for the
   integer ones); any other is refused at the op, naming the op, the dtype
   and what it takes. */

typedef struct pto__isa {
    pto__emitter e;          /* first member: the hooks get &I->e */
    int64_t scratch_off;     /* vec byte offset of the row-reduction scratch */
    int32_t ngm;             /* GM views named so far in this kernel */
    int32_t kernel;          /* the kernel being written */
    uint8_t *mm_view;        /* per tile: TMATMUL takes its all-rows view pto_mm_N (pto__isa_mm_views) */
} pto__isa;

/* Names the device headers or the CCE compiler own (sorted). A .pto name
   equal to one, or starting with PIPE_, EVENT_ID or __, becomes user_NAME. */
static const char *const pto__isa_reserved[] = {
    "AICORE", "TensorData", "bfloat16_t", "event_t", "get_block_idx", "get_block_num", "get_subblockid",
    "half", "pipe_barrier", "pipe_t", "set_flag", "std", "wait_flag"};

static const char *const pto__isa_ctype[PTO_NDTYPE] = {"void", "float", "half", "bfloat16_t", "int32_t", "int8_t"};

static int pto__isa_is_reserved(const char *s)
{
    size_t i;
    if (strncmp(s, "PIPE_", 5) == 0 || strncmp(s, "EVENT_ID", 8) == 0 || strncmp(s, "__", 2) == 0) return 1;
    for (i = 0; i < sizeof pto__isa_reserved / sizeof pto__isa_reserved[0]; i++)
        if (strcmp(s, pto__isa_reserved[i]) == 0) return 1;
    return 0;
}

/* Renames, on top of emit.c's C renaming, the names the device API owns. */
static pto_status pto__isa_rename(pto__emitter *E, char **names, uint8_t *owned, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; i++) {
        size_t len;
        char *c;
        if (!pto__isa_is_reserved(names[i])) continue;
        len = strlen(names[i]);
        c = (char *)pto_alloc(E->ctx, len + 6);
        if (!c) return PTO_ERR_INTERNAL;
        memcpy(c, "user_", 5);
        memcpy(c + 5, names[i], len + 1);
        if (owned[i]) pto_free(E->ctx, names[i]);
        names[i] = c;
        owned[i] = 1;
    }
    return PTO_OK;
}

static void pto__isa_ind(pto__emitter *E) { pto__emit_put(E->out, E->val[PTO__K_IND], E->vlen[PTO__K_IND]); }

/* A valid extent: its constant, or -1 when it is computed at run time. */
static int64_t pto__isa_static_valid(const pto_module *m, int32_t ex, int32_t full)
{
    if (ex < 0) return full;
    if (m->exprs[ex].kind == PTO_E_INT) return m->exprs[ex].value;
    return -1;
}

static void pto__isa_dim(pto_buf *b, int64_t v)
{
    if (v < 0) pto__emit_puts(b, "pto::DYNAMIC");
    else pto__emit_put_i64(b, v);
}

/* The C++ type of a tile. full: the valid region is the whole tile (the
   scratch tiles). Vec tiles are row major, except a column [R, 1] (the
   result of a row reduction), which the API wants column major (DN);
   mat tiles are NZ (column-major boxes of row-major 512-byte fractals), the
   layout TMOV / TEXTRACT feed the cube from; left, right and acc use the
   API's own aliases, whose layout follows the arch. */
/* full: 0 the tile's valid region, 1 the whole tile, 2 all rows and the valid cols,
   3 the whole vec tile with pad value Zero (TFILLPAD's dst) */
static void pto__isa_tile_type(pto__emitter *E, pto_buf *b, const pto_tile *t, int full)
{
    const pto_module *m = E->m;
    int64_t vr = full ? t->rows : pto__isa_static_valid(m, t->valid_r, t->rows);
    int64_t vc = full == 1 || full == 3 ? t->cols : pto__isa_static_valid(m, t->valid_c, t->cols);
    const char *ct = pto__isa_ctype[t->dtype < PTO_NDTYPE ? t->dtype : 0];
    switch (t->space) {
    case PTO_LEFT: case PTO_RIGHT: case PTO_ACC:
        pto__emit_puts(b, t->space == PTO_LEFT ? "pto::TileLeft<" : t->space == PTO_RIGHT ? "pto::TileRight<"
                                                                                         : "pto::TileAcc<");
        pto__emit_puts(b, ct);
        break;
    default:
        pto__emit_puts(b, t->space == PTO_MAT ? "pto::Tile<pto::TileType::Mat, " : "pto::Tile<pto::TileType::Vec, ");
        pto__emit_puts(b, ct);
        break;
    }
    pto__emit_put(b, ", ", 2);
    pto__emit_put_i64(b, t->rows);
    pto__emit_put(b, ", ", 2);
    pto__emit_put_i64(b, t->cols);
    if (t->space == PTO_VEC || t->space == PTO_MAT) {
        int colmajor = t->space == PTO_MAT || (t->cols == 1 && t->rows > 1);
        pto__emit_puts(b, colmajor ? ", pto::BLayout::ColMajor" : ", pto::BLayout::RowMajor");
    }
    pto__emit_put(b, ", ", 2);
    pto__isa_dim(b, vr);
    pto__emit_put(b, ", ", 2);
    pto__isa_dim(b, vc);
    if (t->space == PTO_MAT) pto__emit_puts(b, ", pto::SLayout::RowMajor, 512");
    if (full == 3) pto__emit_puts(b, ", pto::SLayout::NoneBox, 512, pto::PadValue::Zero");
    pto__emit_put(b, ">", 1);
}

/* ---- tiles ----------------------------------------------------------------- */

/* Another view of tile ti's bytes (pto_whole_N, pto_pad_N, pto_mm_N): its
   declaration up to where constructor arguments would go (type `full` as
   pto__isa_tile_type takes it), then the end of the declaration and its
   TASSIGN to the tile's planned offset, opening the comment the caller ends. */
static void pto__isa_view_decl(pto__emitter *E, pto_buf *b, const pto_tile *t, int full, const char *prefix,
                               int32_t ti)
{
    pto__isa_ind(E);
    pto__isa_tile_type(E, b, t, full);
    pto_buf_printf(b, " %s_%ld", prefix, (long)ti);
}

static void pto__isa_view_assign(pto__emitter *E, pto_buf *b, const char *prefix, int32_t ti)
{
    pto__emit_puts(b, ";\n");
    pto__isa_ind(E);
    pto_buf_printf(b, "pto::TASSIGN(%s_%ld, ", prefix, (long)ti);
    pto__emit_put(b, E->val[PTO__K_OFF], E->vlen[PTO__K_OFF]);
    pto__emit_puts(b, "); /* ");
}

static void pto__isa_tile(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    int32_t ti = m->stmts[s].ref;
    const pto_tile *t = &m->tiles[ti];
    pto_buf *b = E->out;
    int dyn_r, dyn_c;
    if (!pto__emit_offset(E, s)) return;   /* may emit a pto_slots_N line */
    dyn_r = pto__isa_static_valid(m, t->valid_r, t->rows) < 0;
    dyn_c = pto__isa_static_valid(m, t->valid_c, t->cols) < 0;
    pto__isa_ind(E);
    pto__isa_tile_type(E, b, t, 0);
    pto__emit_put(b, " ", 1);
    pto__emit_puts(b, E->tile_name[ti]);
    if (dyn_r || dyn_c) {
        pto__emit_put(b, "(", 1);
        if (dyn_r) {
            pto__emit_puts(b, "static_cast<unsigned>(");
            pto__emit_expr(E, b, t->valid_r, PTO__EX_KERNEL, 0);
            pto__emit_put(b, ")", 1);
        }
        if (dyn_c) {
            pto__emit_puts(b, dyn_r ? ", static_cast<unsigned>(" : "static_cast<unsigned>(");
            pto__emit_expr(E, b, t->valid_c, PTO__EX_KERNEL, 0);
            pto__emit_put(b, ")", 1);
        }
        pto__emit_put(b, ")", 1);
    }
    if (E->tile_popped && E->tile_popped[ti]) {   /* TPOP binds it to a local slot of its pipe */
        pto_buf_printf(b, "; /* %s, a local slot of pipe '%s': each TPOP binds it */\n",
                       pto_space_name((pto_space)t->space),
                       pto_str(E->ctx, m->cvpipes[pto__emit_popped_from(m, ti)].name));
        return;
    }
    pto__emit_puts(b, ";\n");
    pto__isa_ind(E);
    pto__emit_puts(b, "pto::TASSIGN(");
    pto__emit_puts(b, E->tile_name[ti]);
    pto__emit_put(b, ", ", 2);
    pto__emit_put(b, E->val[PTO__K_OFF], E->vlen[PTO__K_OFF]);
    pto_buf_printf(b, "); /* %s, planned */\n", pto_space_name((pto_space)t->space));
    if (((pto__isa *)E)->mm_view && (((pto__isa *)E)->mm_view[ti] & 2)) {
        /* the whole tile, for TPUSH (pto__isa_mm_views) */
        pto__isa_view_decl(E, b, t, 1, "pto_whole", ti);
        pto__isa_view_assign(E, b, "pto_whole", ti);
        pto_buf_printf(b, "'%s' whole: TPUSH moves whole tiles, whatever the valid region */\n",
                       pto_str(E->ctx, t->name));
    }
    if (((pto__isa *)E)->mm_view && (((pto__isa *)E)->mm_view[ti] & 4)) {
        /* the whole tile with pad value Zero, TFILLPAD_INPLACE's dst (pto__isa_fillpad) */
        pto__isa_view_decl(E, b, t, 3, "pto_pad", ti);
        pto__isa_view_assign(E, b, "pto_pad", ti);
        pto_buf_printf(b, "'%s' whole, pad value zero: TFILLPAD_INPLACE zeroes what its TLOAD leaves "
                       "outside the valid region */\n", pto_str(E->ctx, t->name));
    }
    if (((pto__isa *)E)->mm_view && (((pto__isa *)E)->mm_view[ti] & 1)) {
        /* the same bytes with all rows valid, for TMATMUL (pto__isa_mm_views) */
        pto__isa_view_decl(E, b, t, 2, "pto_mm", ti);
        if (dyn_c) {
            pto__emit_puts(b, "(static_cast<unsigned>(");
            pto__emit_expr(E, b, t->valid_c, PTO__EX_KERNEL, 0);
            pto__emit_puts(b, "))");
        }
        pto__isa_view_assign(E, b, "pto_mm", ti);
        pto_buf_printf(b, "'%s' with all %lld rows valid: TMATMUL's m is the left tile's valid rows, and mad "
                       "writes the accumulator with ceil16(m) rows per 16-column block, which must be the acc's "
                       "rows */\n", pto_str(E->ctx, t->name), (long long)t->rows);
    }
}

/* mad (under TMATMUL / TMATMUL_ACC) has no destination stride: it writes the
   accumulator as ceil16(m) rows per 16-column block, m = the left tile's
   valid rows, while the acc tile is laid out with its Rows per block
   (pto-isa TMatmul.hpp, MadAccStrideCompatible: recent trees refuse an acc
   of more than 16 cols whose ValidRow is DYNAMIC or rounds up below Rows).
   So when the acc has more than 16 cols, a left or acc tile whose valid
   rows are not a constant rounding up to its rows is given to TMATMUL as a
   view of all its rows: m = the acc's rows. Rows past the valid ones are
   computed from whatever the left tile holds there; each row of c depends
   only on the same row of a, and the acc's valid region still decides what
   a TSTORE writes. Marks those tiles in I->mm_view (bit 1).
   A tpush reads the whole tile (docs/pto-format.md), and pto-isa's TPUSH
   takes a tile of exactly the slot's part with full valid regions: a pushed
   tile with a valid region is pushed through a whole-tile view pto_whole_N
   (bit 2). */
static int pto__isa_valid_full(const pto_module *m, const pto_tile *t)
{
    return pto__isa_static_valid(m, t->valid_r, t->rows) == t->rows &&
           pto__isa_static_valid(m, t->valid_c, t->cols) == t->cols;
}

static int pto__isa_rows_partial(const pto_module *m, const pto_tile *t)
{
    int64_t vr = pto__isa_static_valid(m, t->valid_r, t->rows);
    return vr < 0 || (vr + 15) / 16 * 16 != t->rows;
}

static pto_status pto__isa_mm_views(pto__isa *I)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    int32_t s;
    I->mm_view = (uint8_t *)pto_alloc(E->ctx, (size_t)(m->n_tiles ? m->n_tiles : 1));
    if (!I->mm_view) return PTO_ERR_INTERNAL;
    memset(I->mm_view, 0, (size_t)(m->n_tiles ? m->n_tiles : 1));
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int i;
        if (st->block < 0 || st->kind != PTO_ST_OP || (st->op != PTO_OP_TMATMUL && st->op != PTO_OP_TMATMUL_ACC) ||
            st->nargs != 3)
            continue;
        for (i = 0; i < 3; i++) {
            const pto_operand *o = &m->operands[st->arg0 + i];
            if (o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= m->n_tiles) break;
        }
        if (i < 3 || m->tiles[m->operands[st->arg0].ref].cols <= 16) continue;
        for (i = 0; i < 2; i++) {
            int32_t t = m->operands[st->arg0 + i].ref;
            if (pto__isa_rows_partial(m, &m->tiles[t])) I->mm_view[t] |= 1;
        }
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *o;
        if (st->block < 0 || st->kind != PTO_ST_OP || st->op != PTO_OP_TPUSH || st->nargs != 2) continue;
        o = &m->operands[st->arg0 + 1];
        if (o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= m->n_tiles) continue;
        if (!pto__isa_valid_full(m, &m->tiles[o->ref])) I->mm_view[o->ref] |= 2;
    }
    for (s = 0; s < m->n_stmts; s++) {   /* a vec tile lower gave a padding fill (pto__isa_fillpad) */
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *o;
        if (st->block < 0 || st->kind != PTO_ST_OP || st->op != PTO_OP_TFILLPAD || st->nargs != 1) continue;
        o = &m->operands[st->arg0];
        if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles && m->tiles[o->ref].space == PTO_VEC)
            I->mm_view[o->ref] |= 4;
    }
    return PTO_OK;
}

/* ---- cube/vector pipes ---------------------------------------------------------
   A pipe is one pto::TPipe object per section: every pipe of the kernel is
   declared at the top of both sections (the sim target's pto_k_ring_init
   does the same), so its constructor and destructor run on the AIC and on
   both AIVs; pto-isa's destructor drains the free-space credits a producer
   has not waited for, which is why the object lives in the section's scope.
   TPipe<FlagID, DirType, SlotSize, SlotNum, LocalSlotNum, IsNoSplit>:
   - FlagID: the pipe's first cross-core flag (pto_cvpipe.flag_id); a
     one-way pipe uses FlagID and FlagID + 1, a `both` pipe FlagID..+3;
   - DirType: Direction::DIR_C2V / DIR_V2C / DIR_BOTH;
   - SlotSize, SlotNum: the normalised slot bytes and count (the GM ring);
   - LocalSlotNum: the consumer's local copies; on an AIV of a split pipe
     see pto__isa_local_slots;
   - IsNoSplit: true when the pipe has no split (both AIVs pop the tile).
   The constructor takes the GM slot buffer (this block's part of the
   hidden pipe buffer plus the pipe's offset in it; a `both` pipe's V2C
   ring follows its C2V ring there, as in the simulator) and the local
   bases the planner reserved for the consumers (vec for C2V, mat for V2C).
   tpush / tpop / tfree become TPUSH / TPOP / TFREE<Pipe, Tile, Split>
   (TFREE<Pipe, Split>); see pto__isa_cvpipe_op. */

static const char *const pto__isa_split[] = {"pto::TileSplitAxis::TILE_NO_SPLIT", "pto::TileSplitAxis::TILE_UP_DOWN",
                                             "pto::TileSplitAxis::TILE_LEFT_RIGHT"};
static const char *const pto__isa_dir[] = {"pto::Direction::UNDEFINED", "pto::Direction::DIR_C2V",
                                           "pto::Direction::DIR_V2C", "pto::Direction::DIR_BOTH"};

/* The LocalSlotNum of pipe q in a section of the cube (cube) or vector core.
   The planner reserves local_slots x the popped tile: on an AIV of a split
   pipe half the slot. pto-isa's TPOP binds the popped tile to base + (pop
   index % LocalSlotNum) x a step that is the popped tile's bytes in older
   trees but SlotSize (the whole cube tile) in recent ones, which would put
   the second local slot past the reservation. On that AIV the TPipe gets
   (local_slots + 1) / 2 local slots, which fit in the reservation with
   either step. Nothing else depends on the count: a section holds at most
   one popped tile of a pipe at a time (the verifier's TPOP then TFREE rule)
   and the sync pass orders every tpop after the tfree of the pop before it
   over the whole reservation. */
static int32_t pto__isa_local_slots(const pto_cvpipe *q, int cube)
{
    if (!cube && q->split != PTO_SPLIT_NONE && (q->dir & PTO_C2V)) return (q->local_slot_num + 1) / 2;
    return q->local_slot_num;
}

/* The TPipe declarations at the top of a cube (cube) or vector section. */
static void pto__isa_pipes(pto__isa *I, int cube)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    pto_buf *b = E->out;
    int ind = (E->depth + 1) * 4;
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *q = &m->cvpipes[i];
        int64_t vb = pto_plan_pipe_base(m, i, PTO_VEC), mb = pto_plan_pipe_base(m, i, PTO_MAT);
        int32_t local = pto__isa_local_slots(q, cube);
        if (q->kernel != I->kernel) continue;
        pto_buf_printf(b, "%*s/* pipe %s (%s:%d): %s %s[%d, %d]%s, %d slots of %d B at +%lld of this block's pipe "
                       "buffer%s; cross-core flags %d..%d */\n", ind, "", pto_str(E->ctx, q->name), E->file,
                       (int)q->loc.line, q->dir == PTO_C2V ? "c2v" : q->dir == PTO_V2C ? "v2c" : "both",
                       pto_dtype_name((pto_dtype)q->dtype), (int)q->rows, (int)q->cols,
                       q->split == PTO_SPLIT_UP_DOWN ? " split(up_down)" : q->split == PTO_SPLIT_LEFT_RIGHT
                                                                              ? " split(left_right)" : "",
                       (int)q->slot_num, (int)q->slot_size, (long long)pto_cvpipe_gm_offset(m, i),
                       q->dir == PTO_BOTH ? " (C2V ring, then V2C ring)" : "", (int)q->flag_id,
                       (int)q->flag_id + (q->dir == PTO_BOTH ? 3 : 1));
        if (local != q->local_slot_num)
            pto_buf_printf(b, "%*s/* LocalSlotNum (local_slots(%d) + 1) / 2 = %d: the plan reserves %d x %d B of vec "
                           "(half a slot per pop) and recent pto-isa steps local slots by SlotSize (emit_isa.c, "
                           "pto__isa_local_slots) */\n", ind, "", (int)q->local_slot_num, (int)local,
                           (int)q->local_slot_num, (int)(q->slot_size / 2));
        pto_buf_printf(b, "%*susing pto_pipe_%d_t = pto::TPipe<%d, %s, %d, %d, %d, %s>;\n", ind, "", (int)q->ring,
                       (int)q->flag_id, pto__isa_dir[q->dir & 3], (int)q->slot_size, (int)q->slot_num, (int)local,
                       q->split == PTO_SPLIT_NONE ? "true" : "false");
        pto_buf_printf(b, "%*spto_pipe_%d_t pto_pipe_%d(pto_gm_pipe_buffer + %lld, %lld, %lld); /* GM slots; local "
                       "consumer bases: vec (C2V), mat (V2C), as planned */\n", ind, "", (int)q->ring, (int)q->ring,
                       (long long)pto_cvpipe_gm_offset(m, i), (long long)(vb > 0 ? vb : 0),
                       (long long)(mb > 0 ? mb : 0));
    }
}

/* tpush q, t -> TPUSH<Pipe, Tile, Split>(pipe, t): waits for a free slot
   (sparsely: pto-isa waits for free-space credits every SyncPeriod pushes),
   stores t into the slot (the acc through the fixpipe on the AIC, MTE3 from
   vec on an AIV, at its half of the slot on a split pipe) and records
   data-ready on that pipe. tpop t, q -> TPOP<Pipe, Tile, Split>(pipe, t):
   waits for data-ready, binds t to its local slot (TASSIGN inside TPOP:
   the declaration has none), loads the slot (MTE2) and notifies free space
   on MTE2, after the load. tfree q -> TFREE<Pipe, Split>(pipe): for tile
   pops pto-isa's a2a3 TFREE is empty (TPOP has already freed the GM slot,
   whose data is in the local copy by then); it is emitted for the API's
   pairing (on a5 it is the free). What our tfree also orders, the reuse of
   the local copy by the next TPOP, the sync pass's flags before the tfree
   still order on the device: the scalar unit waits there before it issues
   the next TPOP. The flags and barriers the sync pass put around these ops
   (M -> FIX before a cube push, MTE2 -> V after a pop, V -> S before a
   tfree, ...) are the ones the pipes of the inner calls need. */
static void pto__isa_cvpipe_op(pto__isa *I, int32_t s)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *q = &m->operands[st->arg0 + (st->op == PTO_OP_TPOP ? 1 : 0)];
    const pto_cvpipe *p = &m->cvpipes[q->ref];
    pto_buf *b = E->out;
    pto__isa_ind(E);
    if (st->op == PTO_OP_TFREE) {
        pto_buf_printf(b, "pto::TFREE<pto_pipe_%d_t, %s>(pto_pipe_%d); /* ", (int)p->ring,
                       pto__isa_split[p->split < 3 ? p->split : 0], (int)p->ring);
        pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
        pto__emit_puts(b, "; a2a3: TPOP freed the slot */\n");
        return;
    }
    {
        int32_t ti = m->operands[st->arg0 + (st->op == PTO_OP_TPOP ? 0 : 1)].ref;
        char whole[32];
        const char *t = E->tile_name[ti];
        if (st->op == PTO_OP_TPUSH && (I->mm_view[ti] & 2)) {
            snprintf(whole, sizeof whole, "pto_whole_%ld", (long)ti);
            t = whole;
        }
        pto_buf_printf(b, "pto::%s<pto_pipe_%d_t, decltype(%s), %s>(pto_pipe_%d, %s); /* ",
                       st->op == PTO_OP_TPUSH ? "TPUSH" : "TPOP", (int)p->ring, t,
                       pto__isa_split[p->split < 3 ? p->split : 0], (int)p->ring, t);
    }
    pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
    pto__emit_puts(b, " */\n");
}

/* ---- instructions ------------------------------------------------------------ */

/* "pto_gm_N" for the GM window operand o: declares, on its own line, the
   GlobalTensor view of the window with the shape of tile t (its valid
   region) and the row stride of the tensor. */
static int32_t pto__isa_view(pto__isa *I, const pto_operand *o, const pto_tile *t)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    const pto_param *pa = &m->params[o->ref];
    pto_buf *b = E->out;
    int64_t vr = pto__isa_static_valid(m, t->valid_r, t->rows);
    int64_t vc = pto__isa_static_valid(m, t->valid_c, t->cols);
    int dyn_stride = pa->dim_var[1] >= 0;
    int32_t id = I->ngm++;
    pto__isa_ind(E);
    pto__emit_puts(b, "pto::GlobalTensor<");
    pto__emit_puts(b, pto__isa_ctype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0]);
    pto__emit_puts(b, ", pto::Shape<1, 1, 1, ");
    pto__isa_dim(b, vr);
    pto__emit_put(b, ", ", 2);
    pto__isa_dim(b, vc);
    pto__emit_puts(b, ">, pto::Stride<1, 1, 1, ");
    pto__isa_dim(b, dyn_stride ? -1 : pa->dim[1]);
    pto_buf_printf(b, ", 1>> pto_gm_%ld(%s + ", (long)id, E->param_name[o->ref]);
    pto__emit_expr(E, b, o->e[0], PTO__EX_KERNEL, 2);
    pto__emit_puts(b, " * ");
    if (dyn_stride) pto__emit_puts(b, E->var_name[pa->dim_var[1]]);
    else pto__emit_put_i64(b, pa->dim[1]);
    pto__emit_puts(b, " + ");
    pto__emit_expr(E, b, o->e[1], PTO__EX_KERNEL, 2);
    if (vr < 0 || vc < 0 || dyn_stride) {
        pto__emit_puts(b, ", pto::Shape<1, 1, 1, ");
        pto__isa_dim(b, vr);
        pto__emit_put(b, ", ", 2);
        pto__isa_dim(b, vc);
        pto__emit_puts(b, ">(");
        if (vr < 0) pto__emit_expr(E, b, t->valid_r, PTO__EX_KERNEL, 0);
        if (vr < 0 && vc < 0) pto__emit_put(b, ", ", 2);
        if (vc < 0) pto__emit_expr(E, b, t->valid_c, PTO__EX_KERNEL, 0);
        pto__emit_puts(b, "), pto::Stride<1, 1, 1, ");
        pto__isa_dim(b, dyn_stride ? -1 : pa->dim[1]);
        pto__emit_puts(b, ", 1>(");
        if (dyn_stride) pto__emit_puts(b, E->var_name[pa->dim_var[1]]);
        pto__emit_put(b, ")", 1);
    }
    pto__emit_puts(b, ");\n");
    return id;
}

static void pto__isa_name(pto__emitter *E, pto_buf *b, const pto_operand *o)
{
    switch (o->kind) {
    case PTO_O_TILE: pto__emit_puts(b, E->tile_name[o->ref]); break;
    case PTO_O_FLOAT: pto__emit_float(E, b, o->f, PTO__EX_KERNEL); break;
    case PTO_O_SCALAR: pto__emit_puts(b, E->var_name[o->ref]); break;
    case PTO_O_INT: pto__emit_expr(E, b, o->e[0], PTO__EX_KERNEL, 0); break;
    case PTO_O_PIPE: pto__emit_puts(b, "PIPE_"); pto__emit_puts(b, pto_pipe_name((pto_pipe)o->ref)); break;
    default: pto__emit_puts(b, "0"); break;
    }
}

/* An event id: EVENT_IDn when constant, else the rotating expression. */
static void pto__isa_event(pto__emitter *E, pto_buf *b, const pto_operand *o)
{
    const pto_expr *e = o->e[0] >= 0 ? &E->m->exprs[o->e[0]] : NULL;
    if (e && e->kind == PTO_E_INT && e->value >= 0 && e->value < 8) {
        pto_buf_printf(b, "EVENT_ID%d", (int)e->value);
        return;
    }
    pto__emit_puts(b, "static_cast<event_t>(");
    pto__emit_expr(E, b, o->e[0], PTO__EX_KERNEL, 0);
    pto__emit_put(b, ")", 1);
}

/* The upper-case API name of an op (tadd -> TADD). */
static void pto__isa_opname(pto_buf *b, pto_op op)
{
    const char *n = pto_opinfo_get(op)->name;
    for (; *n; n++) {
        char c = *n >= 'a' && *n <= 'z' ? (char)(*n - 'a' + 'A') : *n;
        pto__emit_put(b, &c, 1);
    }
}

/* Whether statement s comes right after a barrier that orders V. */
static int pto__isa_after_v_barrier(const pto_module *m, int32_t s)
{
    int32_t p = m->stmts[s].prev;
    const pto_operand *o;
    if (p < 0 || m->stmts[p].kind != PTO_ST_OP || m->stmts[p].op != PTO_OP_PIPE_BARRIER) return 0;
    o = pto_stmt_arg(m, p, 0);
    return o && (o->ref == PTO_PIPE_V || o->ref == PTO_PIPE_ALL);
}

/* The scratch tile of a row reduction over tile src: a tile of src's type
   at the kernel's scratch offset, ordered after earlier V work. */
static void pto__isa_scratch(pto__isa *I, int32_t s, const pto_tile *src)
{
    pto__emitter *E = &I->e;
    pto_buf *b = E->out;
    if (!pto__isa_after_v_barrier(E->m, s)) {
        pto__isa_ind(E);
        pto__emit_puts(b, "/* emit (isa): the row-reduction scratch tile is shared: order it after earlier V work */\n");
        pto__isa_ind(E);
        pto__emit_puts(b, "pipe_barrier(PIPE_V);\n");
    }
    pto__isa_ind(E);
    pto__isa_tile_type(E, b, src, 1);
    pto_buf_printf(b, " pto_tmp_%ld;\n", (long)s);
    pto__isa_ind(E);
    pto_buf_printf(b, "pto::TASSIGN(pto_tmp_%ld, %lld); /* vec scratch above the planned peak */\n", (long)s,
                   (long long)I->scratch_off);
}

/* TCOLSUM's tmp operand: a tile of d's type ([1, C]) at the scratch offset.
   The sequential form (isBinary = false) never reads or writes it. */
static void pto__isa_colsum_tmp(pto__isa *I, int32_t s, const pto_tile *d)
{
    pto__emitter *E = &I->e;
    pto_buf *b = E->out;
    pto__isa_ind(E);
    pto__isa_tile_type(E, b, d, 1);
    pto_buf_printf(b, " pto_tmp_%ld;\n", (long)s);
    pto__isa_ind(E);
    pto_buf_printf(b, "pto::TASSIGN(pto_tmp_%ld, %lld); /* vec scratch above the planned peak; the sequential "
                   "TCOLSUM (isBinary = false) leaves it untouched */\n", (long)s, (long long)I->scratch_off);
}

/* tfillpad t (lower.c, for this target only): pto-isa's TLOAD moved t's
   valid region; TFILLPAD zeroes the rest. A vec tile: TFILLPAD_INPLACE from
   t into the whole-tile view pto_pad_N at t's bytes, whose pad value is Zero
   (pto-isa's dst; its PadVal differing from t's Null is what makes it also
   fill the rest of each row's last 32-byte block), on V. A mat tile:
   TFILLPAD(t, t), the NZ form, which zeroes the rows past the valid ones and
   the 32-byte column blocks past the valid columns with create_cbuf_matrix
   on MTE2 (the ND2NZ load has zeroed the rest of the last column block).
   The sync pass ordered it after the TLOAD and before every reader. With a
   valid region known only at run time the call is skipped when the region
   is the whole tile, where pto-isa's vector form would run with a zero
   count. */
static void pto__isa_fillpad(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    int32_t ti = m->operands[m->stmts[s].arg0].ref;
    const pto_tile *t = &m->tiles[ti];
    pto_buf *b = E->out;
    const char *n = E->tile_name[ti];
    int dyn_r = pto__isa_static_valid(m, t->valid_r, t->rows) < 0, dyn_c = pto__isa_static_valid(m, t->valid_c, t->cols) < 0;
    pto__isa_ind(E);
    if (dyn_r || dyn_c) {
        pto__emit_puts(b, "if (");
        if (dyn_r) pto_buf_printf(b, "%s.GetValidRow() < %ld", n, (long)t->rows);
        if (dyn_r && dyn_c) pto__emit_puts(b, " || ");
        if (dyn_c) pto_buf_printf(b, "%s.GetValidCol() < %ld", n, (long)t->cols);
        pto__emit_puts(b, ") ");
    }
    if (t->space == PTO_VEC) pto_buf_printf(b, "pto::TFILLPAD_INPLACE(pto_pad_%ld, %s); /* ", (long)ti, n);
    else pto_buf_printf(b, "pto::TFILLPAD(%s, %s); /* ", n, n);
    pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
    pto__emit_puts(b, ": zero the padding */\n");
}

static void pto__isa_op(pto__emitter *E, int32_t s)
{
    pto__isa *I = (pto__isa *)E;
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_opinfo *oi = pto_opinfo_get((pto_op)st->op);
    pto_buf *b = E->out;
    int i, gm = -1, view = -1;
    (void)pto__emit_note(E, s);   /* full note each time: E->nnotes is 0 here */
    pto__emit_src(E, s);
    if (oi->cls == PTO_OC_CVPIPE) {
        pto__isa_cvpipe_op(I, s);
        return;
    }
    if (oi->cls == PTO_OC_FILLPAD) {
        pto__isa_fillpad(E, s);
        return;
    }
    if (oi->cls == PTO_OC_LOAD || oi->cls == PTO_OC_STORE) {
        gm = oi->cls == PTO_OC_LOAD ? 1 : 0;
        view = pto__isa_view(I, &m->operands[st->arg0 + gm], &m->tiles[m->operands[st->arg0 + 1 - gm].ref]);
    }
    if (oi->cls == PTO_OC_ROWRED) pto__isa_scratch(I, s, &m->tiles[m->operands[st->arg0 + 1].ref]);
    if (st->op == PTO_OP_TCOLSUM) pto__isa_colsum_tmp(I, s, &m->tiles[m->operands[st->arg0].ref]);
    pto__isa_ind(E);
    if (oi->cls == PTO_OC_SYNC) {
        pto__emit_puts(b, st->op == PTO_OP_SET_FLAG ? "set_flag(" : st->op == PTO_OP_WAIT_FLAG ? "wait_flag("
                                                                                              : "pipe_barrier(");
    } else {
        pto__emit_puts(b, "pto::");
        pto__isa_opname(b, (pto_op)st->op);
        pto__emit_put(b, "(", 1);
    }
    for (i = 0; i < st->nargs; i++) {
        const pto_operand *o = &m->operands[st->arg0 + i];
        if (i) pto__emit_put(b, ", ", 2);
        if (i == gm) pto_buf_printf(b, "pto_gm_%ld", (long)view);
        else if (oi->cls == PTO_OC_SYNC && i == 2) pto__isa_event(E, b, o);
        else if (oi->cls == PTO_OC_EXTRACT && i >= 2) {
            pto__emit_puts(b, "static_cast<uint16_t>(");
            pto__isa_name(E, b, o);
            pto__emit_put(b, ")", 1);
        } else if (oi->cls == PTO_OC_MATMUL && i < 2 && o->kind == PTO_O_TILE && (I->mm_view[o->ref] & 1)) {
            pto_buf_printf(b, "pto_mm_%ld", (long)o->ref);
        } else {
            pto__isa_name(E, b, o);
        }
        /* the accumulator is both input and output of TMATMUL_ACC */
        if (i == 0 && st->op == PTO_OP_TMATMUL_ACC) {
            pto__emit_put(b, ", ", 2);
            if (o->kind == PTO_O_TILE && (I->mm_view[o->ref] & 1)) pto_buf_printf(b, "pto_mm_%ld", (long)o->ref);
            else pto__isa_name(E, b, o);
        }
    }
    if (oi->cls == PTO_OC_ROWRED) pto_buf_printf(b, ", pto_tmp_%ld", (long)s);
    if (st->op == PTO_OP_TCOLSUM) pto_buf_printf(b, ", pto_tmp_%ld, false", (long)s);
    if (oi->cls == PTO_OC_CVT) pto__emit_puts(b, ", pto::RoundMode::CAST_RINT");
    pto__emit_puts(b, "); /* ");
    pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
    pto__emit_puts(b, " */\n");
}

/* ---- sections --------------------------------------------------------------- */

static void pto__isa_section(pto__emitter *E, int32_t s)
{
    const pto_stmt *st = &E->m->stmts[s];
    int cube = st->ref == PTO_CORE_CUBE;
    pto_buf_printf(E->out, "#if defined(%s) /* %s { } section: built for the %s */\n",
                   cube ? "__DAV_CUBE__" : "__DAV_VEC__", cube ? "cube" : "vector", cube ? "AIC" : "AIV");
    pto__isa_ind(E);
    pto__emit_puts(E->out, "{\n");
    pto__isa_pipes((pto__isa *)E, cube);
    pto__emit_block(E, st->body);
    pto__emit_indent(E);
    pto__emit_x(E, PTO__T_K_CLOSE);
    pto__emit_puts(E->out, "#endif\n");
}

/* ---- kernels ----------------------------------------------------------------- */

/* The element types pto-isa's a2a3 headers take for each vector op we emit,
   as a mask of (1 << dtype): the static_asserts of include/pto/npu/a2a3
   (TAdd.hpp .. TMin.hpp and TAddS.hpp .., TDiv.hpp, TUnaryOp.hpp,
   TExpandS.hpp, TRowExpand*.hpp, TColSum/Max/Min.hpp, TColExpand*.hpp) and
   the target-profile notes of pto-isa's docs/isa pages (TSUBS, TMAXS, TMINS,
   TRELU, TROWSUM; the row reductions take int32 in recent trees, half / float
   in older ones). Of our dtypes: f16 and f32 everywhere, i32 where the
   integer vector unit computes it, never bf16 or i8 (int16 and the unsigned
   types have no pto dtype). TNEG is taken as TMULS by -1 (pto-isa's a5
   spelling; the a2a3 headers give no assert). An op not listed (tload,
   tstore, tcvt, tmov, textract, tmatmul, the pipes) is not checked here. */
#define PTO__ISA_F ((1u << PTO_F16) | (1u << PTO_F32))
#define PTO__ISA_FI (PTO__ISA_F | (1u << PTO_I32))
static const struct {
    uint8_t op, dtypes;
} pto__isa_dtypes[] = {
    {PTO_OP_TADD, PTO__ISA_FI},          {PTO_OP_TSUB, PTO__ISA_FI},          {PTO_OP_TMUL, PTO__ISA_FI},
    {PTO_OP_TDIV, PTO__ISA_F},           {PTO_OP_TMAX, PTO__ISA_FI},          {PTO_OP_TMIN, PTO__ISA_FI},
    {PTO_OP_TADDS, PTO__ISA_FI},         {PTO_OP_TSUBS, PTO__ISA_FI},         {PTO_OP_TMULS, PTO__ISA_FI},
    {PTO_OP_TDIVS, PTO__ISA_FI},         {PTO_OP_TMAXS, PTO__ISA_FI},         {PTO_OP_TMINS, PTO__ISA_FI},
    {PTO_OP_TEXP, PTO__ISA_F},           {PTO_OP_TLOG, PTO__ISA_F},           {PTO_OP_TSQRT, PTO__ISA_F},
    {PTO_OP_TRSQRT, PTO__ISA_F},         {PTO_OP_TRECIP, PTO__ISA_F},         {PTO_OP_TABS, PTO__ISA_F},
    {PTO_OP_TNEG, PTO__ISA_FI},          {PTO_OP_TRELU, PTO__ISA_FI},         {PTO_OP_TEXPANDS, PTO__ISA_FI},
    {PTO_OP_TROWSUM, PTO__ISA_FI},       {PTO_OP_TROWMAX, PTO__ISA_FI},       {PTO_OP_TROWMIN, PTO__ISA_FI},
    {PTO_OP_TROWEXPANDADD, PTO__ISA_F},  {PTO_OP_TROWEXPANDSUB, PTO__ISA_F},  {PTO_OP_TROWEXPANDMUL, PTO__ISA_F},
    {PTO_OP_TROWEXPANDDIV, PTO__ISA_F},  {PTO_OP_TCOLSUM, PTO__ISA_FI},       {PTO_OP_TCOLMAX, PTO__ISA_FI},
    {PTO_OP_TCOLMIN, PTO__ISA_FI},       {PTO_OP_TCOLEXPANDADD, PTO__ISA_F},  {PTO_OP_TCOLEXPANDSUB, PTO__ISA_F},
    {PTO_OP_TCOLEXPANDMUL, PTO__ISA_F},  {PTO_OP_TCOLEXPANDDIV, PTO__ISA_F}};

/* Statement s's op on a dtype pto-isa's a2a3 headers refuse: an error at
   the op naming the op, the dtype and what the op takes; PTO_OK otherwise. */
static pto_status pto__isa_check_dtype(pto__emitter *E, int32_t s)
{
    static const uint8_t order[] = {PTO_F16, PTO_F32, PTO_BF16, PTO_I32, PTO_I8};
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o = &m->operands[st->arg0];
    const char *n = pto_opinfo_get((pto_op)st->op)->name;
    char api[32], list[64];
    size_t i, k, len = 0, nk = 0, seen = 0;
    unsigned mask = 0;
    int dt;
    for (i = 0; i < sizeof pto__isa_dtypes / sizeof pto__isa_dtypes[0]; i++)
        if (pto__isa_dtypes[i].op == st->op) mask = pto__isa_dtypes[i].dtypes;
    if (!mask || st->nargs < 1 || o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= m->n_tiles) return PTO_OK;
    dt = m->tiles[o->ref].dtype;
    if (dt <= PTO_DT_NONE || dt >= PTO_NDTYPE || (mask >> dt & 1u)) return PTO_OK;
    for (i = 0; n[i] && i + 1 < sizeof api; i++) api[i] = n[i] >= 'a' && n[i] <= 'z' ? (char)(n[i] - 'a' + 'A') : n[i];
    api[i] = 0;
    for (k = 0; k < sizeof order; k++) nk += mask >> order[k] & 1u;
    list[0] = 0;
    for (k = 0; k < sizeof order; k++) {
        const char *dn = pto_dtype_name((pto_dtype)order[k]);
        if (!(mask >> order[k] & 1u)) continue;
        seen++;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", seen == 1 ? "" : seen == nk ? " or " : ", ", dn);
        if (len >= sizeof list) break;
    }
    return pto_error(E->ctx, st->loc, "emit (isa): %s on %s tiles: pto-isa's a2a3 %s takes %s tiles only", n,
                     pto_dtype_name((pto_dtype)dt), api, list);
}

/* tload s into tile ti, whose padding an op may read (lower.c,
   pto__lw_pad_reads): a tfillpad of ti must follow it, with only flags and
   barriers between (pto_lower_for(..., PTO_TARGET_ISA) puts it there); a
   column [R, 1] cannot be padded yet: pto-isa's vec TFILLPAD pads row-major
   tiles (its pad starts after the 32-byte block of a row's valid columns,
   past a column's only element). */
static pto_status pto__isa_check_fill(pto__emitter *E, int32_t s, int32_t ti)
{
    const pto_module *m = E->m;
    const pto_tile *t = &m->tiles[ti];
    int32_t f;
    if (t->space == PTO_VEC && t->cols == 1 && t->rows > 1)
        return pto_error(E->ctx, m->stmts[s].loc, "emit (isa): tload into column tile '%s' [%ld, 1], whose rows past "
                         "its valid region an op reads: the isa target cannot zero a column's padding yet (pto-isa's "
                         "TFILLPAD pads row-major tiles); give the reading ops the column's valid region, or load a "
                         "tile without valid(...)", pto_str(E->ctx, t->name), (long)t->rows);
    for (f = m->stmts[s].next; f >= 0; f = m->stmts[f].next) {
        const pto_stmt *x = &m->stmts[f];
        if (x->kind == PTO_ST_OP && x->op == PTO_OP_TFILLPAD && x->nargs == 1 && m->operands[x->arg0].ref == ti)
            return PTO_OK;
        if (x->kind != PTO_ST_OP || pto_opinfo_get((pto_op)x->op)->cls != PTO_OC_SYNC) break;
    }
    return pto_error(E->ctx, m->stmts[s].loc, "emit (isa): tload into '%s' is not followed by the fill of its padding, "
                     "which an op reads: pto-isa's TLOAD moves the valid region only (compile the module for the isa "
                     "target: pto_compile_desc.target = PTO_TARGET_ISA)", pto_str(E->ctx, t->name));
}

/* What this target cannot express yet, refused with the place that needs
   it. Also finds each kernel's scratch need (checked in pto__isa_kernel). */
static pto_status pto__isa_check(pto__emitter *E)
{
    const pto_module *m = E->m;
    int32_t k, s;
    uint8_t *pad_read;
    for (k = 0; k < m->n_kernels; k++)
        if (m->kernels[k].ranks)
            return pto_error(E->ctx, m->kernels[k].loc,
                             "emit (isa): kernel '%s' is a ranks kernel; communication is not supported by the "
                             "isa target yet", pto_str(E->ctx, m->kernels[k].name));
    for (k = 0; k < m->n_cvpipes; k++) {
        const pto_cvpipe *q = &m->cvpipes[k];
        if (m->arch != PTO_ARCH_A2A3)   /* a5's TPipe is core to core, with another template */
            return pto_error(E->ctx, q->loc, "emit (isa): pipe '%s': cube/vector pipes are supported by the isa "
                             "target on a2a3 only (GM slot rings)", pto_str(E->ctx, q->name));
        if (q->flag_id < 0)
            return pto_error(E->ctx, q->loc, "emit (isa): pipe '%s' has no cross-core flag",
                             pto_str(E->ctx, q->name));
        /* cross-core mode 2: the AIC's wait returns once BOTH AIVs have set the
           flag, but only AIV 0 pushes into an unsplit V2C ring */
        if ((q->dir & PTO_V2C) && q->split == PTO_SPLIT_NONE)
            return pto_error(E->ctx, q->loc, "emit (isa): pipe '%s': a %s pipe without a split is not supported by "
                             "the isa target: only AIV 0 pushes, but on a2a3 the AIC's wait for a cross-core flag "
                             "returns once both AIVs have set it (give it split(up_down) or split(left_right))",
                             pto_str(E->ctx, q->name), q->dir == PTO_BOTH ? "both" : "v2c");
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int i;
        if (st->block < 0 || st->kind != PTO_ST_OP) continue;
        if (st->op == PTO_OP_TPOP && st->nargs == 2 && m->operands[st->arg0].kind == PTO_O_TILE &&
            m->operands[st->arg0].ref >= 0 && m->operands[st->arg0].ref < m->n_tiles &&
            !pto__isa_valid_full(m, &m->tiles[m->operands[st->arg0].ref]))
            return pto_error(E->ctx, st->loc,
                             "emit (isa): tpop into tile '%s', which has a valid region: pto-isa's TPOP fills a "
                             "whole tile and binds it to a local slot itself, so the popped tile cannot carry one "
                             "(pop into a tile without valid(...) and give the region to the tiles computed from it)",
                             pto_str(E->ctx, m->tiles[m->operands[st->arg0].ref].name));
        if (m->arch == PTO_ARCH_A2A3) {   /* pto-isa's a2a3 dtypes (the table above) */
            pto_status r = pto__isa_check_dtype(E, s);
            if (r != PTO_OK) return r;
        }
        for (i = 0; i < st->nargs; i++) {
            const pto_operand *o = &m->operands[st->arg0 + i];
            if (o->kind == PTO_O_GM && o->e[2] >= 0)
                return pto_error(E->ctx, o->loc, "emit (isa): %s of a peer's window (T@p[...]) is not "
                                 "supported by the isa target yet", pto_opinfo_get((pto_op)st->op)->name);
        }
    }
    pad_read = pto__lw_pad_reads(E->ctx, m);   /* the tiles whose padding an op reads (lower.c) */
    if (!pad_read) return PTO_ERR_INTERNAL;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        pto_status r;
        if (st->block < 0 || st->kind != PTO_ST_OP || st->op != PTO_OP_TLOAD || st->nargs != 2 ||
            m->operands[st->arg0].kind != PTO_O_TILE || m->operands[st->arg0].ref < 0 ||
            m->operands[st->arg0].ref >= m->n_tiles || !pad_read[m->operands[st->arg0].ref])
            continue;
        r = pto__isa_check_fill(E, s, m->operands[st->arg0].ref);
        if (r != PTO_OK) {
            pto_free(E->ctx, pad_read);
            return r;
        }
    }
    pto_free(E->ctx, pad_read);
    return PTO_OK;
}

/* The kernel's reduction scratch: right above its highest planned vec
   byte, 32-byte aligned, big enough for its largest reduced tile (and
   TCOLSUM's [1, C] tmp tiles). */
static pto_status pto__isa_plan_scratch(pto__isa *I, int32_t k)
{
    const pto_module *m = I->e.m;
    int64_t hi = 0, need = 0, cap = pto_space_capacity(m->arch, PTO_VEC) - pto__reserved(m, k, PTO_VEC);
    int32_t t, s, first = -1;
    for (t = 0; t < m->n_tiles; t++) {
        const pto_tile *tl = &m->tiles[t];
        int j;
        if (tl->kernel != k || tl->space != PTO_VEC || !tl->planned) continue;
        if (I->e.tile_popped && I->e.tile_popped[t]) continue;   /* in the pipe reservation, at the top */
        for (j = 0; j < (tl->nbuf > 1 ? tl->nbuf : 1) && j < PTO_MAX_NBUF; j++)
            if (tl->offset[j] + pto_tile_bytes(tl) > hi) hi = tl->offset[j] + pto_tile_bytes(tl);
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_tile *src;
        if (st->block < 0 || st->kind != PTO_ST_OP ||
            (pto_opinfo_get((pto_op)st->op)->cls != PTO_OC_ROWRED && st->op != PTO_OP_TCOLSUM))
            continue;
        /* a row reduction's scratch has its source's type, TCOLSUM's tmp its result's */
        src = &m->tiles[m->operands[st->arg0 + (st->op == PTO_OP_TCOLSUM ? 0 : 1)].ref];
        if (src->kernel != k) continue;
        if (first < 0) first = s;
        if (pto_tile_bytes(src) > need) need = pto_tile_bytes(src);
    }
    I->scratch_off = (hi + 31) / 32 * 32;
    if (first >= 0 && I->scratch_off + need > cap)
        return pto_error(I->e.ctx, m->stmts[first].loc,
                         "emit (isa): %s needs a %lld-byte vec scratch tile, but the plan uses %lld of %lld bytes; "
                         "leave room for it (smaller tiles or fewer slots)",
                         pto_opinfo_get((pto_op)m->stmts[first].op)->name, (long long)need, (long long)hi,
                         (long long)cap);
    return PTO_OK;
}

static void pto__isa_kernel(pto__isa *I, int32_t k)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    const pto_kernel *kn = &m->kernels[k];
    pto_buf *b = E->out;
    int32_t p, v, idx = 0;
    int pass;
    I->ngm = 0;
    I->kernel = k;
    E->st = pto__isa_plan_scratch(I, k);
    if (E->st != PTO_OK) return;
    pto__emit_use_block(E, kn->body);
    /* a GM view's row stride is its tensor's column count (pto__isa_view):
       a dynamic one is read even when no expression names it */
    for (p = kn->param0; p < kn->param0 + kn->nparams; p++)
        if (E->param_used[p] && m->params[p].kind == PTO_P_TENSOR && m->params[p].dim_var[1] >= 0)
            E->var_used[m->params[p].dim_var[1]] = 1;
    for (v = 0; v < m->n_vars; v++)
        if (m->vars[v].kernel == k && m->vars[v].kind == PTO_V_DIM && E->var_used[v] && m->vars[v].def >= 0)
            E->param_used[m->vars[v].def] = 1;
    pto__emit_sig(E, k);
    pto__emit_planned(E, k);
    pto_buf_printf(b, "\n/* %s:%d: %s kernel %s(%s), blocks(%s)\n   planned: %s */\n", E->file, (int)kn->loc.line,
                   E->val[PTO__K_KIND], pto_str(E->ctx, kn->name), E->val[PTO__K_SIG], E->val[PTO__K_BLOCKS],
                   E->val[PTO__K_PLANNED]);
    pto_buf_printf(b, "extern \"C\" __global__ AICORE void kernel_%s(__gm__ int64_t *args)\n{\n",
                   pto_str(E->ctx, kn->name));
    E->depth = 1;
    pto__emit_indent(E);
    for (pass = 0; pass < 2; pass++) {    /* tensors first, then scalars */
        for (p = kn->param0; p < kn->param0 + kn->nparams; p++) {
            const pto_param *pa = &m->params[p];
            const char *name;
            int used;
            if ((pa->kind == PTO_P_SCALAR) != pass) continue;
            if (pa->kind == PTO_P_TENSOR) {
                name = E->param_name[p];
                used = E->param_used[p];
                pto_buf_printf(b, "    __gm__ %s *%s = pto_isa_gm<%s>(args, %d); /* %s %s[",
                               pto__isa_ctype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0], name,
                               pto__isa_ctype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0], (int)idx,
                               pto__emit_dir[pa->dir < 3 ? pa->dir : 0], pto_dtype_name((pto_dtype)pa->dtype));
                for (v = 0; v < 2; v++) {
                    if (v) pto__emit_put(b, ", ", 2);
                    if (pa->dim_var[v] >= 0) pto__emit_puts(b, pto_str(E->ctx, m->vars[pa->dim_var[v]].name));
                    else pto__emit_put_i64(b, pa->dim[v]);
                }
                pto__emit_puts(b, "] */\n");
            } else {
                int fl = pa->dtype == PTO_F32 || pa->dtype == PTO_F16 || pa->dtype == PTO_BF16;
                if (pa->var < 0) { idx++; continue; }
                name = E->var_name[pa->var];
                used = E->var_used[pa->var];
                pto_buf_printf(b, fl ? "    const float %s = pto_isa_f32(args, %d); /* scalar %s */\n"
                                     : "    const int64_t %s = args[%d]; /* scalar %s */\n",
                               name, (int)idx, pto_dtype_name((pto_dtype)pa->dtype));
            }
            idx++;
            /* a mix kernel compiles each section alone: any name may go unused */
            if (!used || kn->kind == PTO_KK_MIX) pto_buf_printf(b, "    (void)%s;\n", name);
        }
        if (pass == 0 && pto__emit_has_pipebuf(m, k)) {
            /* The hidden GM pipe buffer, after the tensors (the simulator
               target's order): blocks x per_block bytes, block b's rings at
               b x per_block. Sharded by the block index, never by subblock:
               the AIC and both AIVs of a block share its rings. per_block is
               a constant, so each block's part is where the host sized it
               whatever blocks(...) is and whether or not `block` is read. */
            int64_t per_block = pto_kernel_pipe_bytes(m, k);
            pto_buf_printf(b, "    /* hidden argument %d: the GM pipe buffer, blocks x %lld bytes; this block's rings "
                           "are its part [block * %lld, (block + 1) * %lld), shared by the block's AIC and AIVs */\n",
                           (int)idx, (long long)per_block, (long long)per_block, (long long)per_block);
            pto_buf_printf(b, "    __gm__ uint8_t *pto_gm_pipe_buffer = pto_isa_gm<uint8_t>(args, %d) + "
                           "static_cast<int64_t>(get_block_idx()) * %lld;\n", (int)idx, (long long)per_block);
            pto_buf_printf(b, "    (void)pto_gm_pipe_buffer;\n");
            idx++;
        }
    }
    for (v = 0; v < m->n_vars; v++) {
        const pto_var *va = &m->vars[v];
        if (va->kernel != k || va->kind != PTO_V_DIM || !E->var_used[v] || va->def < 0) continue;
        pto_buf_printf(b, "    const int64_t %s = pto_isa_dim(args, %d, %d);\n", E->var_name[v],
                       (int)(va->def - kn->param0), m->params[va->def].dim_var[0] == v ? 0 : 1);
        if (kn->kind == PTO_KK_MIX) pto_buf_printf(b, "    (void)%s;\n", E->var_name[v]);
    }
    E->depth = 0;
    pto__emit_block(E, kn->body);
    pto__emit_puts(b, "}\n");
}

static const char pto__isa_head[] =
    "/* kernel.cpp - generated by ptoc %s from %s for the Ascend pto-isa C++ API (ptoc emit --target isa).\n"
    "   One extern \"C\" entry per kernel, kernel_NAME(__gm__ int64_t *args): args holds the tensor\n"
    "   descriptors (TensorData) first, then the scalars as raw 64-bit values (a float scalar: its f32\n"
    "   bits in the low 32 bits). Tiles sit at the addresses pto planned; every flag and barrier is\n"
    "   the one pto's sync pass (or the .pto) put there. Build it with the CANN toolchain against\n"
    "   pto-isa's include/ and the runtime's tensor.h. */\n"
    "\n"
    "#include <cstdint>\n"
    "#include <cmath>\n"
    "#include <pto/pto-inst.hpp>\n"
    "#include \"tensor.h\"\n"
    "\n"
    "/* the first element of tensor argument i */\n"
    "template <typename T>\n"
    "AICORE inline __gm__ T *pto_isa_gm(__gm__ int64_t *args, int i)\n"
    "{\n"
    "    __gm__ TensorData *d = reinterpret_cast<__gm__ TensorData *>(args[i]);\n"
    "    return reinterpret_cast<__gm__ T *>(d->buffer.addr) + d->start_offset;\n"
    "}\n"
    "\n"
    "/* extent d (0: rows, 1: columns) of tensor argument i */\n"
    "AICORE inline int64_t pto_isa_dim(__gm__ int64_t *args, int i, int d)\n"
    "{\n"
    "    return static_cast<int64_t>(reinterpret_cast<__gm__ TensorData *>(args[i])->shapes[d]);\n"
    "}\n"
    "\n"
    "/* a float scalar argument: f32 bits in the low half of its slot */\n"
    "AICORE inline float pto_isa_f32(__gm__ int64_t *args, int i)\n"
    "{\n"
    "    union { uint32_t u; float f; } v;\n"
    "    v.u = static_cast<uint32_t>(static_cast<uint64_t>(args[i]));\n"
    "    return v.f;\n"
    "}\n"
    "\n"
    "/* min and max of the .pto integer expressions */\n"
    "AICORE inline int64_t pto_emit_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
    "AICORE inline int64_t pto_emit_max(int64_t a, int64_t b) { return a > b ? a : b; }\n";

static pto_status pto__isa_emit(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src);

/* A NULL kernel_src still runs every check (into a scratch buffer), as
   pto_emit does: "nothing to write" must not read as "this would emit". */
PTODEF pto_status pto_emit_isa(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src)
{
    pto_buf scratch;
    pto_status st;
    if (kernel_src) return pto__isa_emit(ctx, m, desc, kernel_src);
    memset(&scratch, 0, sizeof scratch);
    scratch.ctx = ctx;
    st = pto__isa_emit(ctx, m, desc, &scratch);
    pto_buf_free(&scratch);
    return st;
}

static pto_status pto__isa_emit(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src)
{
    pto__isa *I;
    pto__emitter *E;
    uint8_t *vo = NULL, *to = NULL, *po = NULL;
    pto_status st;
    int32_t k, s, before = pto_error_count(ctx);
    if (pto__need_verified(ctx, m, "pto_emit_isa") != PTO_OK) return PTO_ERR_USER;
    if (!kernel_src->ctx) kernel_src->ctx = ctx;
    I = (pto__isa *)pto_alloc(ctx, sizeof *I);
    if (!I) return PTO_ERR_INTERNAL;
    memset(I, 0, sizeof *I);
    E = &I->e;
    E->ctx = ctx;
    E->m = m;
    E->out = kernel_src;
    E->isa = 1;
    E->hook_op = pto__isa_op;
    E->hook_tile = pto__isa_tile;
    E->hook_section = pto__isa_section;
    for (k = 0; k < PTO__NKEYS; k++) E->scratch[k].ctx = ctx;
    pto__emit_file_name(E, desc && desc->filename ? desc->filename
                                                  : pto_file_name(ctx, m->n_kernels ? m->kernels[0].loc.file : m->file));
    st = pto__emit_check(E);
    if (st == PTO_OK) st = pto__isa_check(E);
    if (st == PTO_OK) st = pto__emit_compile(E);
    if (st == PTO_OK) st = pto__emit_names(E, PTO__NAMES_VAR, &E->var_name, &vo);
    if (st == PTO_OK) st = pto__emit_names(E, PTO__NAMES_TILE, &E->tile_name, &to);
    if (st == PTO_OK) st = pto__emit_names(E, PTO__NAMES_PARAM, &E->param_name, &po);
    if (st == PTO_OK) st = pto__isa_rename(E, E->var_name, vo, m->n_vars);
    if (st == PTO_OK) st = pto__isa_rename(E, E->tile_name, to, m->n_tiles);
    if (st == PTO_OK) st = pto__isa_rename(E, E->param_name, po, m->n_params);
    if (st == PTO_OK) st = pto__emit_lens(E);
    if (st == PTO_OK) {
        E->var_used = (uint8_t *)pto_alloc(ctx, (size_t)(m->n_vars ? m->n_vars : 1));
        E->param_used = (uint8_t *)pto_alloc(ctx, (size_t)(m->n_params ? m->n_params : 1));
        /* no simulator lifetimes on a device: no tdecl is placed (the table stays empty) */
        if (!E->var_used || !E->param_used) st = PTO_ERR_INTERNAL;
    }
    if (st == PTO_OK) st = pto__isa_mm_views(I);
    if (st == PTO_OK && m->n_cvpipes > 0) {   /* the tiles a tpop fills: no TASSIGN, not in the peak */
        E->tile_popped = (uint8_t *)pto_alloc(ctx, (size_t)(m->n_tiles ? m->n_tiles : 1));
        if (!E->tile_popped) st = PTO_ERR_INTERNAL;
        for (k = 0; st == PTO_OK && k < m->n_tiles; k++) E->tile_popped[k] = 0;
        for (s = 0; st == PTO_OK && s < m->n_stmts; s++) {
            const pto_stmt *ps = &m->stmts[s];
            if (ps->kind == PTO_ST_OP && ps->op == PTO_OP_TPOP && ps->nargs == 2 &&
                m->operands[ps->arg0].kind == PTO_O_TILE && m->operands[ps->arg0].ref >= 0 &&
                m->operands[ps->arg0].ref < m->n_tiles && m->operands[ps->arg0 + 1].kind == PTO_O_CVPIPE)
                E->tile_popped[m->operands[ps->arg0].ref] = 1;
        }
    }
    /* every kernel's scratch room before the first byte: with a sink, text
       written is text sent, so the errors come first (pto__isa_kernel
       places each scratch again) */
    for (k = 0; st == PTO_OK && k < m->n_kernels; k++) st = pto__isa_plan_scratch(I, k);
    if (st == PTO_OK) {
        pto_buf_printf(kernel_src, pto__isa_head, PTO_VERSION_STRING, E->file);
        for (k = 0; k < m->n_kernels && E->st == PTO_OK; k++) {
            memset(E->var_used, 0, (size_t)(m->n_vars ? m->n_vars : 1));
            memset(E->param_used, 0, (size_t)(m->n_params ? m->n_params : 1));
            pto__isa_kernel(I, k);
        }
        st = E->st;
    }
    for (k = 0; k < PTO__NKEYS; k++)
        if (E->scratch[k].oom) st = PTO_ERR_INTERNAL;
    if (kernel_src->oom) st = PTO_ERR_INTERNAL;
    pto__emit_nul(kernel_src);
    if (st == PTO_OK) pto_buf_flush(kernel_src);
    pto__emit_free(E, vo, to, po);
    pto_free(ctx, I->mm_view);
    pto_free(ctx, I);
    if (st == PTO_ERR_INTERNAL && pto_error_count(ctx) == before) pto__oom(ctx);   /* as in pto_emit */
    return st;
}
/* ---- End file: src/emit_isa.c ---- */

/* ---- Begin file: src/harness.c ---- */
/* harness.c - the host harness of emitted programs (ptoc emit's host.c).

   Compiled only in a translation unit that includes pto_kernels.h first and
   then pto.h with PTO_IMPLEMENTATION and PTO_HOST_HARNESS defined: that is
   the host.c pto_emit writes. It needs the .pto text of the kernels (host.c
   embeds it) and gives host.c a small vocabulary:

     pto_h_begin   reads -D NAME=VALUE, --seed S, --ranks N, --max-instr N,
                  --trace F.json;
                  re-parses and verifies the .pto text; creates the simulated device
     pto_h_ranks   the kernel set up next is a ranks kernel: it runs on a
                  second device of N ranks (--ranks, default 2); each of its
                  tensors is a window tensor there (one copy per rank, each
                  with its own inputs), and a tensor the kernel uses as a
                  signal (notify, wait, allreduce) starts at zero
     pto_h_dim / pto_h_scalar    a dynamic dim / scalar param from -D
     pto_h_iscalar an integer scalar param from -D: an integer its dtype
                  holds, else a user error (exit 1); a scalar whose value an
                  op on an integer tile changes (-D alpha=0.5 for tadds on
                  i32: truncated to 0) draws a warning at the launch
     pto_h_tensor  a device tensor plus a host copy for the interpreter;
                  inputs get seeded random values (the same in both)
     pto_h_launch  runs the kernel on the simulator, then the reference
                  interpreter on the host copies, and compares every tensor
                  (inputs too: a kernel must not write them; every rank's copy)
                  bit for bit, NaN equal to NaN (a tensor that differs: how
                  many elements, the largest errors, the first few
                  positions); warns about out tensors the simulated kernel
                  left partly unwritten (every rank's copy); prints result,
                  cycles, bound, efficiency, flags and barriers (counted in
                  kernel.c as it is on disk, hand edits included), planned
                  bytes and simulator reports (after a deadlock a note by the
                  mismatch and the cycles say that they follow from it)
     pto_h_end     exit status: 0 all match and the simulator reported
                  nothing, 1 mismatch / report / bad input, 2 internal

   A kernel that mismatches or draws a simulator report does not stop the
   later kernels of the program (a file of many kernels reports on each);
   bad input (a missing -D, a failed allocation) does.

   Because the interpreter and the kernels are compiled by the same compiler
   in the same program, they share libm and the float rules, so a correct
   kernel matches bit for bit. */

#ifdef PTO_HOST_HARNESS
#ifndef PTO_KERNELS_H_INCLUDED
#error "the host harness needs pto_kernels.h included before pto.h"
#endif

#define PTO_H_IN 0
#define PTO_H_OUT 1
#define PTO_H_INOUT 2
#define PTO_H_TEMP 3    /* an intermediate of a host section: zero, not random */
#define PTO_H_MAX 64
#define PTO_H_RMAX 64              /* most ranks */

typedef struct pto_h_run {
    const char *file;              /* the .pto file name */
    uint64_t seed, rng;
    const char *trace;
    const char *def_name[PTO_H_MAX]; /* -D NAME=VALUE */
    size_t def_len[PTO_H_MAX];
    double def_val[PTO_H_MAX];
    unsigned char def_used[PTO_H_MAX];  /* a dim or scalar took it (pto_h_end reports the others) */
    int ndefs;
    pto_ctx *ctx;
    pto_module *m;
    pto_k_device *dev;
    pto_k_device *rdev;            /* nranks ranks, for ranks kernels (made on first use) */
    int nranks;                    /* --ranks N */
    int64_t max_instr;             /* --max-instr N: each launch's instruction budget (0 = default) */
    char *ksrc;                    /* kernel.c, for counting flags and barriers */
    /* the kernel being set up */
    pto_binding bind[PTO_H_MAX];
    int nbind;
    void *host[PTO_H_MAX];
    void *rhost[PTO_H_RMAX][PTO_H_MAX]; /* a ranks kernel: rank r's host copy ([0] is host) */
    int kranks;                    /* the kernel being set up is a ranks kernel: its rank count */
    int32_t kernel;                /* and its id */
    pto_k_gm *gm[PTO_H_MAX];
    int dir[PTO_H_MAX];
    int ntensors;
    /* totals */
    int status, nkernels;
    int failed;                    /* some kernel mismatched or drew a report */
    int64_t cycles;
} pto_h_run;

PTO_K_FN void pto_h_fail(pto_h_run *run, int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    if (run->status < status) run->status = status;
}

PTO_K_FN uint64_t pto_h_next(pto_h_run *run)
{
    uint64_t z = (run->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

PTO_K_FN char *pto_h_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    size_t n = 0, cap = 0, got;
    if (!f) return NULL;
    for (;;) {
        if (n + 4097 > cap) {
            char *p = (char *)realloc(data, cap = cap ? cap * 2 : 65536);
            if (!p) { free(data); fclose(f); return NULL; }
            data = p;
        }
        got = fread(data + n, 1, cap - n - 1, f);
        if (!got) break;
        n += got;
    }
    fclose(f);
    data[n] = 0;
    return data;
}

/* A whole -D value as a number: "64x", "abc" or "" are mistakes, not 64 or 0. */
PTO_K_FN int pto_h_number(const char *text, double *out)
{
    char *end;
    *out = strtod(text, &end);
    return end != text && *end == 0;
}

PTO_K_FN int pto_h_args(pto_h_run *run, int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL, *eq;
        if (strcmp(a, "-D") == 0 && i + 1 < argc) v = argv[++i];
        else if (strncmp(a, "-D", 2) == 0 && a[2]) v = a + 2;
        else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
            /* "abc" or "5x" are mistakes, not seed 0 or 5 */
            char *end;
            const char *sv = argv[++i];
            run->seed = strtoull(sv, &end, 0);
            if (end == sv || *end || sv[0] == '-') {
                pto_h_fail(run, 1, "--seed %s: want a non-negative integer", sv);
                return 1;
            }
            continue;
        }
        else if (strcmp(a, "--trace") == 0 && i + 1 < argc) { run->trace = argv[++i]; continue; }
        else if (strcmp(a, "--ranks") == 0 && i + 1 < argc) {
            run->nranks = atoi(argv[++i]);
            if (run->nranks < 1 || run->nranks > PTO_H_RMAX) {
                pto_h_fail(run, 1, "--ranks %s: want a rank count in 1..64", argv[i]);
                return 1;
            }
            continue;
        }
        else if (strcmp(a, "--max-instr") == 0 && i + 1 < argc) {
            char *end;
            const char *sv = argv[++i];
            long long n = strtoll(sv, &end, 0);
            if (end == sv || *end || n < 1) {
                pto_h_fail(run, 1, "--max-instr %s: want a positive instruction count", sv);
                return 1;
            }
            run->max_instr = (int64_t)n;
            continue;
        }
        else {
            pto_h_fail(run, 1, "unknown argument '%s' (use -D NAME=VALUE, --seed S, --ranks N, --max-instr N, --trace FILE)",
                       a);
            return 1;
        }
        eq = strchr(v, '=');
        if (!eq || eq == v || run->ndefs == PTO_H_MAX) { pto_h_fail(run, 1, "bad -D '%s' (want NAME=VALUE)", v); return 1; }
        run->def_name[run->ndefs] = v;
        run->def_len[run->ndefs] = (size_t)(eq - v);
        if (!pto_h_number(eq + 1, &run->def_val[run->ndefs])) {
            pto_h_fail(run, 1, "bad -D '%s': the value is not a number", v);
            return 1;
        }
        run->ndefs++;
    }
    return 0;
}

/* Joins the embedded lines, parses and verifies them. */
PTO_K_FN int pto_h_load(pto_h_run *run, const char *const *lines)
{
    size_t n = 0, i;
    char *text;
    for (i = 0; lines[i]; i++) n += strlen(lines[i]);
    text = (char *)malloc(n + 1);
    if (!text) return 2;
    n = 0;
    for (i = 0; lines[i]; i++) {
        size_t l = strlen(lines[i]);
        memcpy(text + n, lines[i], l);
        n += l;
    }
    text[n] = 0;
    run->m = pto_parse(run->ctx, run->file, text, n);
    free(text);
    if (!run->m || pto_verify(run->ctx, run->m) != PTO_OK) {
        pto_diag_print(run->ctx, stderr);
        pto_h_fail(run, 2, "the embedded text of %s does not verify", run->file);
        return 2;
    }
    return 0;
}

PTO_K_FN int pto_h_begin(pto_h_run *run, int argc, char **argv, const char *file, const char *const *lines,
                        const char *host_path)
{
    pto_k_device_desc dd;
    char path[4096];
    const char *slash = strrchr(host_path, '/');
    memset(run, 0, sizeof *run);
    run->file = file;
    run->seed = 1;
    run->nranks = 2;
    if (pto_h_args(run, argc, argv)) return 1;
    run->rng = run->seed;
    run->ctx = pto_ctx_create(NULL);
    if (!run->ctx) { pto_h_fail(run, 2, "out of memory"); return 2; }
    if (pto_h_load(run, lines)) return run->status;
    memset(&dd, 0, sizeof dd);
    dd.arch = run->m->arch == PTO_ARCH_A5 ? PTO_K_A5 : PTO_K_A2A3;
    dd.seed = run->seed;
    dd.trace_path = run->trace;
    run->dev = pto_k_device_create(&dd);
    if (!run->dev) { pto_h_fail(run, 2, "cannot create the simulated device"); return 2; }
    snprintf(path, sizeof path, "%.*skernel.c", slash ? (int)(slash - host_path + 1) : 0, host_path);
    run->ksrc = pto_h_read(path);
    return 0;
}

/* How close a -D name is to a name of the module, by the parser's rule for
   "did you mean" (case free; at most 1 edit up to 5 characters, 2 up to 8,
   3 beyond, and fewer edits than the word has characters); -1 when not. */
PTO_K_FN int pto_h_near(const char *word, size_t len, const char *cand)
{
    int limit = pto__ps_near_limit(len);
    int d = pto__ps_edits(word, len, cand, strlen(cand), limit);
    return d <= limit && (size_t)d < len ? d : -1;
}

/* The -D (or `# run:` definition) of `name`: its index, or ndefs. */
PTO_K_FN int pto_h_def_index(const pto_h_run *run, const char *name)
{
    int i;
    for (i = 0; i < run->ndefs; i++)
        if (run->def_len[i] == strlen(name) && strncmp(run->def_name[i], name, run->def_len[i]) == 0) break;
    return i;
}

PTO_K_FN double pto_h_def(pto_h_run *run, const char *name, const char *what)
{
    int i = pto_h_def_index(run, name);
    if (i < run->ndefs) {
        run->def_used[i] = 1;
        if (run->nbind < PTO_H_MAX) {
            run->bind[run->nbind].name = name;
            run->bind[run->nbind].value = run->def_val[i];
            run->nbind++;
        }
        return run->def_val[i];
    }
    /* a -D that names nothing and is close to this name is likely its typo */
    for (i = 0; i < run->ndefs; i++)
        if (!run->def_used[i] && pto_h_near(run->def_name[i], run->def_len[i], name) >= 0) break;
    if (i < run->ndefs)
        fprintf(stderr, "error: %s %s needs a value: -D %s=VALUE (-D %s names nothing: did you mean %s?)\n", what,
                name, name, run->def_name[i], name);
    else
        fprintf(stderr, "error: %s %s needs a value: -D %s=VALUE\n", what, name, name);
    if (run->status < 1) run->status = 1;
    return 0;
}

PTO_K_FN int64_t pto_h_dim(pto_h_run *run, const char *name)
{
    double v = pto_h_def(run, name, "dynamic dim");
    /* (a double at or past 2^62 is refused before the cast, which would be undefined past 2^63) */
    if (run->status == 0 && v >= 4611686018427387904.0) {
        pto_h_fail(run, 1, "dynamic dim %s = %.17g is too large (at most 2^62)", name, v);
        return 1;
    }
    if (run->status == 0 && (v < 1 || v != (double)(int64_t)v)) {
        pto_h_fail(run, 1, "-D %s=%.17g: dynamic dim %s must be a positive integer", name, v, name);
        return 1;
    }
    return (int64_t)v;
}

PTO_K_FN double pto_h_scalar(pto_h_run *run, const char *name) { return pto_h_def(run, name, "scalar"); }

/* An integer scalar param (dtype PTO_K_I32 or PTO_K_I8) from -D: the value
   must be an integer the dtype holds. The kernel takes an int64_t, so 2.5
   would reach it as 2 while the reference computed with 2.5 (and a value past
   int64 has no conversion at all): said here, as the user's mistake. */
PTO_K_FN int64_t pto_h_iscalar(pto_h_run *run, const char *name, int dtype)
{
    double v = pto_h_def(run, name, "scalar"), lo = pto_int_lo(dtype), hi = pto_int_hi(dtype);
    if (!(v >= lo && v <= hi && v == floor(v))) {
        int i = pto_h_def_index(run, name);
        if (i < run->ndefs && run->status == 0)
            pto_h_fail(run, 1, "-D %s: scalar %s is %s and takes an integer in %.0f..%.0f", run->def_name[i],
                       name, dtype == PTO_K_I8 ? "i8" : "i32", lo, hi);
        return 0;
    }
    return (int64_t)v;
}

/* The module's kernel called `name` (n_kernels when there is none). */
PTO_K_FN int32_t pto_h_kernel_index(const pto_h_run *run, const char *name)
{
    int32_t k;
    for (k = 0; k < run->m->n_kernels; k++)
        if (strcmp(pto_str(run->ctx, run->m->kernels[k].name), name) == 0) break;
    return k;
}

/* The next kernel is a ranks kernel: its tensors go to the device of
   run->nranks ranks, one window copy per rank. */
PTO_K_FN void pto_h_ranks(pto_h_run *run, const char *name)
{
    pto_k_device_desc dd;
    if (run->status) return;
    run->kernel = pto_h_kernel_index(run, name);
    if (run->kernel == run->m->n_kernels) { pto_h_fail(run, 2, "no kernel %s in the embedded text", name); return; }
    run->kranks = run->nranks;
    if (run->rdev) return;
    memset(&dd, 0, sizeof dd);
    dd.arch = run->m->arch == PTO_ARCH_A5 ? PTO_K_A5 : PTO_K_A2A3;
    dd.seed = run->seed;
    dd.nranks = run->nranks;
    dd.trace_path = run->trace;
    run->rdev = pto_k_device_create(&dd);
    if (!run->rdev) pto_h_fail(run, 2, "cannot create the simulated device");
}

/* Is param (an index in the current ranks kernel) a signal: the tensor of
   a notify / wait, or allreduce's second operand? Signals start at zero. */
PTO_K_FN int pto_h_signal(const pto_h_run *run, int param)
{
    const pto_module *m = run->m;
    int32_t ref = m->kernels[run->kernel].param0 + param, s;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int i = st->op == PTO_OP_ALLREDUCE ? 1 : 0;
        if (st->kind != PTO_ST_OP || st->block < 0 || m->blocks[st->block].kernel != run->kernel) continue;
        if (st->op != PTO_OP_NOTIFY && st->op != PTO_OP_WAIT && st->op != PTO_OP_ALLREDUCE) continue;
        if (pto_stmt_arg(m, s, i)->ref == ref) return 1;
    }
    return 0;
}

/* Seeded random values for an input (the same sequence for device and reference). */
PTO_K_FN void pto_h_fill(pto_h_run *run, void *host, int dtype, int64_t n)
{
    int64_t i;
    for (i = 0; i < n; i++) {
        uint64_t r = pto_h_next(run);
        float v = dtype == PTO_K_I32 ? (float)((int)(r % 201) - 100)
                : dtype == PTO_K_I8 ? (float)((int)(r % 41) - 20)
                : (float)((int)(r % 2048) - 1024) / 512.0f;
        pto_elem_set(host, dtype, i, v);
    }
}

PTO_K_FN pto_k_gm *pto_h_tensor(pto_h_run *run, int param, const char *name, int dtype, int64_t rows, int64_t cols,
                               int dir)
{
    pto_k_gm *g;
    size_t bytes;
    int r, nr = run->kranks ? run->kranks : 1, fill;
    if (run->status) return NULL;
    if (param >= PTO_H_MAX) { pto_h_fail(run, 1, "tensor %s: too many tensors for the harness", name); return NULL; }
    if (rows < 1 || cols < 1) { pto_h_fail(run, 1, "tensor %s has an empty shape", name); return NULL; }
    /* a shape from -D can be larger than this machine can hold: the user's to fix (exit 1), said
       with the size, before rows * cols * size can overflow */
    if (rows > (int64_t)(SIZE_MAX / 2) / cols / 8) {
        pto_h_fail(run, 1, "tensor %s [%lld, %lld] is too large for the simulator", name, (long long)rows,
                   (long long)cols);
        return NULL;
    }
    bytes = (size_t)(rows * cols * pto_dtype_size((pto_dtype)dtype));
    g = run->kranks ? pto_k_gm_create_window(run->rdev, name, dtype, rows, cols)
                    : pto_k_gm_create(run->dev, name, dtype, rows, cols);
    fill = dir != PTO_H_OUT && dir != PTO_H_TEMP && !(run->kranks && pto_h_signal(run, param));
    for (r = 0; r < nr; r++) {
        pto_k_gm *gr = run->kranks && g ? pto_k_gm_peer(g, r) : g;
        run->rhost[r][param] = calloc(bytes ? bytes : 1, 1);
        if (!gr || !run->rhost[r][param]) {
            pto_h_fail(run, 1, "cannot allocate tensor %s [%lld, %lld]: %.3g bytes (a smaller -D?)", name,
                       (long long)rows, (long long)cols, (double)bytes);
            return NULL;
        }
        if (!fill) continue;
        pto_h_fill(run, run->rhost[r][param], dtype, rows * cols);
        memcpy(gr->data, run->rhost[r][param], bytes);
    }
    run->host[param] = run->rhost[0][param];
    run->gm[param] = g;
    run->dir[param] = dir;
    if (param + 1 > run->ntensors) run->ntensors = param + 1;
    return g;
}

PTO_K_FN int pto_h_ready(const pto_h_run *run) { return run->status == 0; }

/* The hidden GM pipe buffer of an a2a3 mix kernel (hardware.md section 6):
   blocks x per_block bytes, one share per block (kernel.c adds block *
   per_block). blocks is the launch's count, computed here exactly as the
   launch computes it, so a count known only at launch sizes it too. */
PTO_K_FN pto_k_gm *pto_h_pipe_buffer(pto_h_run *run, int64_t blocks, int64_t per_block)
{
    pto_k_gm *g;
    if (run->status || blocks < 1) return NULL;   /* pto_h_launch reports the count */
    g = pto_k_gm_create(run->dev, "gm_pipe_buffer", PTO_K_I8, blocks, per_block);
    if (!g) pto_h_fail(run, 2, "cannot allocate the GM pipe buffer");
    return g;
}

/* Calls of set_flag / wait_flag (flags) and pipe_barrier (barriers) in
   kernel_NAME of kernel.c, outside comments and strings. */
PTO_K_FN void pto_h_count_syncs(const char *s, const char *name, int *flags, int *barriers)
{
    size_t nl = strlen(name);
    int cur = 0, bol = 1;
    *flags = *barriers = 0;
    while (s && *s) {
        if (bol && strncmp(s, "static void kernel_", 19) == 0)
            cur = strncmp(s + 19, name, nl) == 0 && s[19 + nl] == '(';
        bol = *s == '\n';
        if (s[0] == '/' && s[1] == '*') {
            const char *e = strstr(s + 2, "*/");
            s = e ? e + 2 : s + strlen(s);
        } else if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n') s++;
        } else if (*s == '"' || *s == '\'') {
            char q = *s++;
            while (*s && *s != q) s += (*s == '\\' && s[1]) ? 2 : 1;
            if (*s) s++;
        } else if (cur && (strncmp(s, "pto_k_set_flag(", 15) == 0 || strncmp(s, "pto_k_wait_flag(", 16) == 0)) {
            (*flags)++;
            s += 15;
        } else if (cur && strncmp(s, "pto_k_pipe_barrier(", 19) == 0) {
            (*barriers)++;
            s += 19;
        } else {
            s++;
        }
    }
}

#define PTO_H_SHOW 5        /* differing elements listed per output */

/* How far apart one differing pair is: the absolute error, NaN or an
   infinity against a number counting as infinitely far (so that it tops the
   maximum rather than vanishing from it); and the relative error, -1 where
   the reference is 0 (there only the absolute error means something). */
PTO_K_FN void pto_h_error(double got, double want, double *abs_err, double *rel_err)
{
    double d = fabs(got - want);
    if (d != d) d = HUGE_VAL;
    *abs_err = d;
    *rel_err = want != 0 ? d / fabs(want) : -1;
}

/* Element i as a double: an i32 / i8 element exactly (through f32, two i32
   values past 2^24 that differ could print alike). */
PTO_K_FN double pto_h_value(const void *base, int dtype, int64_t i)
{
    return dtype == 4 || dtype == 5 ? (double)pto_elem_geti(base, dtype, i) : (double)pto_elem_get(base, dtype, i);
}

/* Compares one copy of a tensor with the reference, bit for bit (NaN equal
   to NaN). When they differ, says how many elements differ, the largest
   errors (to tell rounding noise from a wrong kernel) and the first few
   positions with both values (the shape of the damage: a row, a column, a
   block). Returns 1 if any element differs. */
PTO_K_FN int pto_h_compare_copy(const pto_k_gm *g, const void *host, const char *name)
{
    int size = pto_dtype_size((pto_dtype)g->dtype);
    int64_t i, n = g->rows * g->cols, ndiff = 0, first[PTO_H_SHOW];
    double max_abs = 0, max_rel = -1, a, r;
    char rel[48] = "";
    for (i = 0; i < n; i++) {
        double x, y;
        if (memcmp((const char *)g->data + i * size, (const char *)host + i * size, (size_t)size) == 0) continue;
        x = pto_h_value(g->data, g->dtype, i);
        y = pto_h_value(host, g->dtype, i);
        if (x != x && y != y) continue;
        if (ndiff < PTO_H_SHOW) first[ndiff] = i;
        ndiff++;
        pto_h_error(x, y, &a, &r);
        if (a > max_abs) max_abs = a;
        if (r > max_rel) max_rel = r;
    }
    if (!ndiff) return 0;
    if (max_rel >= 0) snprintf(rel, sizeof rel, ", max rel error %.3g", max_rel);
    printf("  result      mismatch: %s differs in %lld of %lld elements (max abs error %.3g%s)\n", name,
           (long long)ndiff, (long long)n, max_abs, rel);
    for (i = 0; i < ndiff && i < PTO_H_SHOW; i++)
        printf("    %s[%lld, %lld] = %.9g on the simulator, %.9g in the reference\n", name,
               (long long)(first[i] / g->cols), (long long)(first[i] % g->cols),
               pto_h_value(g->data, g->dtype, first[i]), pto_h_value(host, g->dtype, first[i]));
    if (ndiff > PTO_H_SHOW) printf("    ... and %lld more\n", (long long)(ndiff - PTO_H_SHOW));
    return 1;
}

/* Copy r of tensor p (a ranks kernel's tensor has one per rank) and its
   name in the run's report: x, or x@r for a ranks kernel. */
PTO_K_FN pto_k_gm *pto_h_copy(const pto_h_run *run, int p, int r, const char *name, char *label, size_t n)
{
    if (run->kranks) snprintf(label, n, "%.60s@%d", name, r);
    else snprintf(label, n, "%.70s", name);
    return run->kranks ? pto_k_gm_peer(run->gm[p], r) : run->gm[p];
}

/* Compares tensor p; a ranks kernel's tensor on every rank (named x@r).
   Returns 1 if any copy differs. */
PTO_K_FN int pto_h_compare(pto_h_run *run, int p, const char *name)
{
    int r, nr = run->kranks ? run->kranks : 1, bad = 0;
    for (r = 0; r < nr; r++) {
        char label[80];
        pto_k_gm *g = pto_h_copy(run, p, r, name, label, sizeof label);
        bad |= pto_h_compare_copy(g, run->rhost[r][p], label);
    }
    return bad;
}

/* Warns when the kernels left elements of one copy of an out tensor
   unwritten. The reference leaves the same elements alone (both keep the
   zeros they started with), so the comparison matches and cannot tell: a
   launch of blocks(M / 32) with M = 100 leaves rows 96..99 of the output
   to nobody. Described compactly: the rows (or columns) when whole ones are
   missing and they are consecutive, else a count and the first position.
   A warning, not a failure: a kernel may mean it (the README says how to
   read it). Returns 1 if it warned. */
PTO_K_FN int pto_h_unwritten_copy(const pto_k_gm *g, const char *name)
{
    int64_t R = g->rows, C = g->cols, i, j, n = 0, first = -1;
    int64_t fr0 = -1, fr1 = -1, nfr = 0, fc0 = -1, fc1 = -1, nfc = 0;
    char where[96];
    for (i = 0; i < R; i++) {
        int64_t nr = 0;
        for (j = 0; j < C; j++)
            if (!pto_k_gm_written(g, i, j)) {
                if (first < 0) first = i * C + j;
                nr++;
            }
        n += nr;
        if (nr == C) {      /* a whole row */
            if (fr0 < 0) fr0 = i;
            fr1 = i;
            nfr++;
        }
    }
    if (!n) return 0;
    for (j = 0; j < C && nfr * C != n; j++) {   /* whole columns, when not whole rows */
        for (i = 0; i < R && !pto_k_gm_written(g, i, j); i++) {}
        if (i == R) {
            if (fc0 < 0) fc0 = j;
            fc1 = j;
            nfc++;
        }
    }
    if (nfr * C == n && fr1 - fr0 + 1 == nfr && fr0 == fr1)
        snprintf(where, sizeof where, "row %lld", (long long)fr0);
    else if (nfr * C == n && fr1 - fr0 + 1 == nfr)
        snprintf(where, sizeof where, "rows %lld..%lld", (long long)fr0, (long long)fr1);
    else if (nfc * R == n && fc1 - fc0 + 1 == nfc && fc0 == fc1)
        snprintf(where, sizeof where, "column %lld", (long long)fc0);
    else if (nfc * R == n && fc1 - fc0 + 1 == nfc)
        snprintf(where, sizeof where, "columns %lld..%lld", (long long)fc0, (long long)fc1);
    else
        snprintf(where, sizeof where, "first at [%lld, %lld]", (long long)(first / C), (long long)(first % C));
    printf("  warning     %s: %lld of %lld elements never written (%s)\n", name, (long long)n, (long long)(R * C),
           where);
    return 1;
}

/* The unwritten-elements warning for tensor p when it is an out tensor
   (an inout one keeps what the kernel leaves alone by design); a ranks
   kernel's on every rank (named x@r). */
PTO_K_FN void pto_h_unwritten(pto_h_run *run, int p, const char *name)
{
    int r, nr = run->kranks ? run->kranks : 1;
    if (run->dir[p] != PTO_H_OUT) return;
    for (r = 0; r < nr; r++) {
        char label[80];
        pto_h_unwritten_copy(pto_h_copy(run, p, r, name, label, sizeof label), label);
    }
}

PTO_K_FN const char *pto_h_bound_pipe(const pto_k_report *r)
{
    static const char *const names[PTO_K_NPIPE] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};
    int c, p;
    for (c = 0; c < r->ncores; c++)
        for (p = 0; p < PTO_K_NPIPE; p++)
            if (r->bound > 0 && r->cores[c].busy[p] == r->bound) return names[p];
    return "-";
}

PTO_K_FN void pto_h_reset(pto_h_run *run)
{
    int p, r;
    for (p = 0; p < run->ntensors; p++) {
        for (r = 0; r < PTO_H_RMAX; r++) {
            free(run->rhost[r][p]);
            run->rhost[r][p] = NULL;
        }
        run->host[p] = NULL;
        run->gm[p] = NULL;
    }
    run->kranks = 0;
    run->ntensors = 0;
    run->nbind = 0;
}

/* Length of a report without its "(block N ...)" suffix ("(rank R block N
   ...)" on a ranks launch): the same error in every block or rank is one
   finding, printed once with a count. */
PTO_K_FN size_t pto_h_msg_core_len(const char *msg)
{
    const char *p = strstr(msg, " (");
    const char *last = NULL;
    for (; p; p = strstr(p + 1, " ("))
        if (strncmp(p + 2, "block ", 6) == 0 || strncmp(p + 2, "rank ", 5) == 0) last = p;
    return last && strchr(last, ')') && strchr(last, ')')[1] == 0 ? (size_t)(last - msg) : strlen(msg);
}

/* Prints each distinct report once, in first-seen order, with how often it
   occurred; at most 12 distinct reports. */
PTO_K_FN void pto_h_print_distinct(const pto_k_report *r)
{
    int i, j, shown = 0, distinct = 0;
    for (i = 0; i < r->nerrors; i++) {
        const char *mi = r->errors[i].msg;
        size_t li = pto_h_msg_core_len(mi);
        int seen = 0, count = 1;
        for (j = 0; j < i && !seen; j++)
            seen = pto_h_msg_core_len(r->errors[j].msg) == li && strncmp(r->errors[j].msg, mi, li) == 0;
        if (seen) continue;
        distinct++;
        for (j = i + 1; j < r->nerrors; j++)
            count += pto_h_msg_core_len(r->errors[j].msg) == li && strncmp(r->errors[j].msg, mi, li) == 0;
        if (shown == 12) continue;
        shown++;
        if (count == 1) printf("    %s\n", mi);
        else printf("    %.*s (%d times, first in %s\n", (int)li, mi, count, mi + li + 2);
    }
    if (distinct > shown) printf("    ... and %d more distinct reports\n", distinct - shown);
}

/* Did the launch deadlock? Then its cores stopped at the hang: what they
   left unwritten and the cycles up to it follow from the deadlock. */
PTO_K_FN int pto_h_deadlocked(const pto_k_report *r)
{
    int i;
    for (i = 0; i < r->nerrors; i++)
        if (r->errors[i].kind == PTO_K_E_DEADLOCK) return 1;
    return 0;
}

PTO_K_FN void pto_h_report(pto_h_run *run, const char *name, const pto_k_report *r, const char *planned)
{
    int flags, barriers;
    printf("  cycles      %lld%s\n", (long long)r->makespan, pto_h_deadlocked(r) ? " (up to the deadlock)" : "");
    printf("  bound       %lld (%s)\n", (long long)r->bound, pto_h_bound_pipe(r));
    printf("  efficiency  %.3f\n", r->efficiency);
    if (run->ksrc) {
        pto_h_count_syncs(run->ksrc, name, &flags, &barriers);
        printf("  syncs       %d flag%s, %d barrier%s\n", flags, flags == 1 ? "" : "s", barriers, barriers == 1 ? "" : "s");
    } else {
        printf("  syncs       ? (kernel.c not found next to host.c)\n");
    }
    printf("  planned     %s\n", planned);
    if (!r->nerrors) printf("  simulator   no reports\n");
    else if (!r->suppressed) printf("  simulator   %d report%s\n", r->nerrors, r->nerrors == 1 ? "" : "s");
    else   /* a race repeated by a loop is reported once; past max_errors, none is kept */
        printf("  simulator   %d report%s (and %d repeats or further reports not kept)\n", r->nerrors,
               r->nerrors == 1 ? "" : "s", r->suppressed);
    pto_h_print_distinct(r);
}

/* A scalar param used by tadds .. tmins / texpands on an i32 / i8 tile: the
   device takes the value in the tile's dtype (truncated toward zero; one
   out of range has no defined conversion), and so do the simulator and the
   reference, so both agree on a value the user did not write: a -D that
   changes on the way (-D alpha=0.5 for an integer op) is said, once per
   param, with the op, the tile, its line and the value used. The verifier
   says the same of literals. */
PTO_K_FN void pto_h_int_scalars(pto_h_run *run, int32_t k)
{
    const pto_module *m = run->m;
    int32_t s, warned[PTO_H_MAX];
    int nwarned = 0, b, i;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *d, *o;
        const pto_tile *t;
        const char *vn, *dt;
        double x, used;
        int cls, dup = 0;
        if (st->kind != PTO_ST_OP || st->op >= PTO_NOP || st->block < 0 || m->blocks[st->block].kernel != k) continue;
        cls = pto_opinfo_get((pto_op)st->op)->cls;
        if (cls != PTO_OC_BINS && cls != PTO_OC_FILL) continue;
        d = pto_stmt_arg(m, s, 0);
        o = pto_stmt_arg(m, s, cls == PTO_OC_FILL ? 1 : 2);
        if (!d || !o || d->kind != PTO_O_TILE || d->ref < 0 || d->ref >= m->n_tiles || o->kind != PTO_O_SCALAR ||
            o->ref < 0 || o->ref >= m->n_vars)
            continue;
        t = &m->tiles[d->ref];
        if (t->dtype != PTO_I32 && t->dtype != PTO_I8) continue;
        for (i = 0; i < nwarned; i++) dup |= warned[i] == o->ref;
        vn = pto_str(run->ctx, m->vars[o->ref].name);
        for (b = 0; b < run->nbind && strcmp(run->bind[b].name, vn) != 0; b++) {}
        if (dup || b == run->nbind) continue;
        x = run->bind[b].value;
        used = (double)pto_scalar_asi(t->dtype, x);
        if (used == x) continue;
        if (nwarned < PTO_H_MAX) warned[nwarned++] = o->ref;
        dt = pto_dtype_name((pto_dtype)t->dtype);
        i = pto_h_def_index(run, vn);
        fprintf(stderr, "warning: -D %s: %s on the %s tile '%s' (%s:%d) %s %.0f%s\n",
                i < run->ndefs ? run->def_name[i] : vn, pto_opinfo_get((pto_op)st->op)->name, dt,
                pto_str(run->ctx, t->name), run->file, (int)st->loc.line,
                x != x ? "has no value for nan; the simulator and the reference use"
                : x < pto_int_lo(t->dtype) || x > pto_int_hi(t->dtype)
                    ? "cannot take it (out of range: the device's conversion is undefined); the simulator and the "
                      "reference use"
                    : "takes the scalar as",
                used, x == x && used != x && used == (x < 0 ? ceil(x) : floor(x))
                    ? " (the device converts it to the tile's dtype, truncating toward zero)" : "");
    }
}

/* A launch of no block is the user's input: say which expression gave it. */
PTO_K_FN void pto_h_no_block(pto_h_run *run, const char *name, int64_t blocks)
{
    int32_t k = pto_h_kernel_index(run, name);
    pto_buf b;
    memset(&b, 0, sizeof b);
    b.ctx = run->ctx;
    if (k < run->m->n_kernels && run->m->kernels[k].blocks >= 0) pto_print_expr(run->m, run->m->kernels[k].blocks, &b);
    if (b.data)
        pto_h_fail(run, 1, "kernel %s would launch no block: blocks(%s) is %lld with these -D values", name, b.data,
                   (long long)blocks);
    else
        pto_h_fail(run, 1, "kernel %s would launch no block", name);
    pto_buf_free(&b);
}

/* The simulator gives every block its own core, so all blocks run at once;
   the device has 24 clusters (a2a3, 910B1/B2: 24 AIC, 48 AIV; a5: 36 / 72,
   hardware.md section 1) and runs more blocks than cores in waves. Said
   when it applies, so that cycles is not read as the device's time. */
PTO_K_FN void pto_h_waves(const pto_h_run *run, int kind, int64_t blocks)
{
    int a5 = run->m && run->m->arch == PTO_ARCH_A5;
    int64_t cores = kind == PTO_K_KIND_VECTOR ? (a5 ? 72 : 48) : (a5 ? 36 : 24);
    const char *what = kind == PTO_K_KIND_VECTOR ? "vector cores" : kind == PTO_K_KIND_CUBE ? "cube cores" : "clusters";
    if (blocks <= cores) return;
    printf("  note        %lld blocks on %lld %s (%s): the device runs %lld waves; cycles counts the blocks at once\n",
           (long long)blocks, (long long)cores, what, a5 ? "a5" : "a2a3, 910B", (long long)((blocks + cores - 1) / cores));
}

PTO_K_FN void pto_h_launch(pto_h_run *run, pto_k_kernel_fn fn, const char *name, int kind, int64_t blocks,
                          const int64_t *args, const char *planned)
{
    pto_k_launch_desc ld;
    const pto_k_report *rep;
    pto_launch L;
    int32_t k;
    int p, r, bad = 0, nout = 0;
    void **tensors = NULL;
    if (run->status) { pto_h_reset(run); return; }
    if (blocks < 1) { pto_h_no_block(run, name, blocks); pto_h_reset(run); return; }
    memset(&ld, 0, sizeof ld);
    ld.fn = fn;
    ld.name = name;
    ld.kind = kind;
    ld.block_num = blocks;
    ld.args = args;
    ld.max_instr = run->max_instr;
    k = pto_h_kernel_index(run, name);
    if (k < run->m->n_kernels) pto_h_int_scalars(run, k);
    memset(&L, 0, sizeof L);
    L.kernel = k;
    L.tensors = run->host;
    L.bindings = run->bind;
    L.nbindings = run->nbind;
    L.max_instr = run->max_instr;
    if (run->kranks && k < run->m->n_kernels) {
        /* every arg once; the simulator gives each rank its window copies */
        int np = run->m->kernels[k].nparams;
        ld.nargs = np;
        tensors = (void **)calloc((size_t)(run->kranks * (np > 0 ? np : 1)), sizeof *tensors);
        if (!tensors) { pto_h_fail(run, 2, "out of memory"); pto_h_reset(run); return; }
        for (r = 0; r < run->kranks; r++)
            for (p = 0; p < np && p < PTO_H_MAX; p++) tensors[r * np + p] = run->rhost[r][p];
        L.tensors = tensors;
        L.nranks = run->kranks;
    }
    rep = pto_k_launch(run->kranks ? run->rdev : run->dev, &ld);
    if (run->kranks)
        printf("kernel %s (%lld block%s x %d rank%s)\n", name, (long long)blocks, blocks == 1 ? "" : "s", run->kranks,
               run->kranks == 1 ? "" : "s");
    else
        printf("kernel %s (%lld block%s)\n", name, (long long)blocks, blocks == 1 ? "" : "s");
    if (k == run->m->n_kernels || pto_interp(run->ctx, run->m, &L) != PTO_OK) {
        pto_diag_print(run->ctx, stderr);
        pto_diag_clear(run->ctx);
        printf("  result      no reference: the interpreter failed\n");
        bad = 1;
    } else {
        for (p = 0; p < run->ntensors; p++) {   /* every tensor: each wrong one is reported */
            if (!run->gm[p]) continue;
            nout += run->dir[p] != PTO_H_IN;
            bad |= pto_h_compare(run, p, run->gm[p]->name);
        }
        if (!bad) printf("  result      match (%d output%s)\n", nout, nout == 1 ? "" : "s");
        for (p = 0; p < run->ntensors; p++)
            if (run->gm[p]) pto_h_unwritten(run, p, run->gm[p]->name);
        if (bad && pto_h_deadlocked(rep))   /* the cause is at the end of the report: say so up here */
            printf("  note        the simulator reports a deadlock (below): the cores stopped there, so the "
                   "differences follow from it\n");
    }
    pto_h_report(run, name, rep, planned);
    pto_h_waves(run, kind, blocks);
    if (bad || rep->nerrors) run->failed = 1;
    run->cycles += rep->makespan;
    run->nkernels++;
    free(tensors);
    pto_h_reset(run);
}

/* ---- host sections ----------------------------------------------------------
   host_NAME in host.c allocates the host's tensors with pto_h_tensor (index =
   host tensor, PTO_H_TEMP for intermediates), launches every call with
   pto_h_call (simulator only: reports per call, no comparison, the tensors
   stay) and ends with pto_h_host_end, which runs the host on the reference
   interpreter (pto_interp_host) and compares every tensor of the host. */

PTO_K_FN void pto_h_call(pto_h_run *run, pto_k_kernel_fn fn, const char *name, int kind, int64_t blocks,
                        const int64_t *args, const char *planned)
{
    pto_k_launch_desc ld;
    const pto_k_report *r;
    if (run->status) return;
    if (blocks < 1) { pto_h_no_block(run, name, blocks); return; }
    memset(&ld, 0, sizeof ld);
    ld.fn = fn;
    ld.name = name;
    ld.kind = kind;
    ld.block_num = blocks;
    ld.args = args;
    ld.max_instr = run->max_instr;
    r = pto_k_launch(run->dev, &ld);
    printf("call %s (%lld block%s)\n", name, (long long)blocks, blocks == 1 ? "" : "s");
    pto_h_report(run, name, r, planned);
    pto_h_waves(run, kind, blocks);
    if (r->nerrors) run->failed = 1;
    run->cycles += r->makespan;
    run->nkernels++;
}

PTO_K_FN void pto_h_host_end(pto_h_run *run, const char *name)
{
    pto_host_launch L;
    int32_t h;
    int p, bad = 0, nout = 0;
    if (run->status) { pto_h_reset(run); return; }
    for (h = 0; h < run->m->n_hosts; h++)
        if (strcmp(pto_str(run->ctx, run->m->hosts[h].name), name) == 0) break;
    memset(&L, 0, sizeof L);
    L.host = h;
    L.tensors = run->host;
    L.bindings = run->bind;
    L.nbindings = run->nbind;
    L.max_instr = run->max_instr;
    printf("host %s\n", name);
    if (h == run->m->n_hosts || pto_interp_host(run->ctx, run->m, &L) != PTO_OK) {
        pto_diag_print(run->ctx, stderr);
        pto_diag_clear(run->ctx);
        printf("  result      no reference: the interpreter failed\n");
        bad = 1;
    } else {
        for (p = 0; p < run->ntensors; p++) {   /* every tensor: a wrong intermediate names the call at fault */
            if (!run->gm[p]) continue;
            nout += run->dir[p] == PTO_H_OUT || run->dir[p] == PTO_H_INOUT;
            bad |= pto_h_compare(run, p, run->gm[p]->name);
        }
        if (!bad) printf("  result      match (%d output%s)\n", nout, nout == 1 ? "" : "s");
        for (p = 0; p < run->ntensors; p++)   /* the host's out tensors, over all its calls */
            if (run->gm[p]) pto_h_unwritten(run, p, run->gm[p]->name);
    }
    if (bad) run->failed = 1;
    pto_h_reset(run);
}

/* A -D nothing took is likely a typo: a warning, not an error, so that one
   set of -D options can serve several kernels (said only when the run got
   through, so that it is not noise after another error). */
PTO_K_FN void pto_h_unused_defs(const pto_h_run *run)
{
    int i, v, d, best;
    const char *near;
    if (run->status || !run->m) return;
    for (i = 0; i < run->ndefs; i++) {
        if (run->def_used[i]) continue;
        near = NULL;   /* the closest dim or scalar of a kernel or host */
        best = 99;
        for (v = 0; v < run->m->n_vars; v++) {
            const char *cand = pto_str(run->ctx, run->m->vars[v].name);
            if (run->m->vars[v].kind != PTO_V_DIM && run->m->vars[v].kind != PTO_V_SCALAR) continue;
            d = pto_h_near(run->def_name[i], run->def_len[i], cand);
            if (d >= 0 && d < best) best = d, near = cand;
        }
        for (v = 0; v < run->m->n_params; v++) {
            const char *cand = pto_str(run->ctx, run->m->params[v].name);
            if (run->m->params[v].kind != PTO_P_SCALAR) continue;
            d = pto_h_near(run->def_name[i], run->def_len[i], cand);
            if (d >= 0 && d < best) best = d, near = cand;
        }
        fprintf(stderr, "warning: -D %s: %s has no dynamic dim or scalar param named '%.*s'%s%s%s\n",
                run->def_name[i], run->file, (int)run->def_len[i], run->def_name[i], near ? " (did you mean '" : "",
                near ? near : "", near ? "'?)" : "");
    }
}

PTO_K_FN int pto_h_end(pto_h_run *run)
{
    int status;
    pto_h_unused_defs(run);
    status = run->status ? run->status : run->failed;
    if (run->nkernels > 1) printf("total         %lld cycles over %d kernels\n", (long long)run->cycles, run->nkernels);
    pto_h_reset(run);
    if (run->dev) pto_k_device_destroy(run->dev);
    if (run->rdev) pto_k_device_destroy(run->rdev);
    if (run->m) pto_module_destroy(run->m);
    if (run->ctx) pto_ctx_destroy(run->ctx);
    free(run->ksrc);
    memset(run, 0, sizeof *run);
    return status;
}

#endif /* PTO_HOST_HARNESS */
/* ---- End file: src/harness.c ---- */

#endif /* PTO_IMPLEMENTATION */
/*
MIT License

Copyright (c) 2026 the pto authors

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
