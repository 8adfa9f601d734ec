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
     section; pto_dump(ctx, mod, stage, out) prints the IR after any of them.

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

/* Diagnostics recorded so far, in order. */
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

/* Memory through the context's allocator. */
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
    PTO_OC_CVT,      /* d = (dtype of d) a */
    PTO_OC_MOV,      /* copy between spaces */
    PTO_OC_EXTRACT,  /* d = window of a at (r, c) */
    PTO_OC_MATMUL,   /* acc (+)= left x right */
    PTO_OC_SYNC      /* set_flag / wait_flag / pipe_barrier */
} pto_opclass;

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
    X(TCVT,          "tcvt",          PTO_PIPE_V,    PTO_OC_CVT,    2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0) \
    X(TMOV,          "tmov",          PTO_PIPE_MTE1, PTO_OC_MOV,    2, PTO_W(PTO_A_LEFT|PTO_A_RIGHT|PTO_A_VEC|PTO_A_MAT), PTO_R(PTO_A_MAT|PTO_A_ACC|PTO_A_VEC), 0, 0) \
    X(TEXTRACT,      "textract",      PTO_PIPE_MTE1, PTO_OC_EXTRACT,4, PTO_W(PTO_A_LEFT|PTO_A_RIGHT), PTO_R(PTO_A_MAT), PTO_A_INT, PTO_A_INT) \
    X(TMATMUL,       "tmatmul",       PTO_PIPE_M,    PTO_OC_MATMUL, 3, PTO_W(PTO_A_ACC), PTO_R(PTO_A_LEFT), PTO_R(PTO_A_RIGHT), 0) \
    X(TMATMUL_ACC,   "tmatmul_acc",   PTO_PIPE_M,    PTO_OC_MATMUL, 3, PTO_RW(PTO_A_ACC), PTO_R(PTO_A_LEFT), PTO_R(PTO_A_RIGHT), 0) \
    X(SET_FLAG,      "set_flag",      PTO_PIPE_S,    PTO_OC_SYNC,   3, PTO_A_PIPE, PTO_A_PIPE, PTO_A_INT, 0) \
    X(WAIT_FLAG,     "wait_flag",     PTO_PIPE_S,    PTO_OC_SYNC,   3, PTO_A_PIPE, PTO_A_PIPE, PTO_A_INT, 0) \
    X(PIPE_BARRIER,  "pipe_barrier",  PTO_PIPE_S,    PTO_OC_SYNC,   1, PTO_A_PIPE, 0, 0, 0)

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

typedef struct pto_expr {
    uint8_t kind;
    int32_t a, b;         /* sub-expressions, or var id for PTO_E_VAR */
    int64_t value;        /* PTO_E_INT */
    pto_loc loc;
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
    int32_t rows, cols;
    int32_t valid_r, valid_c;    /* expr ids; -1 = the full shape */
    int32_t nbuf;                /* 1, or N for xN */
    int32_t decl;                /* the TILE stmt */
    int64_t pin;                 /* fixed address, or PTO_NO_ADDR */
    /* Written by the planner. planned says the offsets are meaningful:
       offset 0 is a valid placement, never a "not yet planned" mark. */
    uint8_t planned;
    int64_t offset[PTO_MAX_NBUF];  /* slot k's byte offset in its space */
    int32_t origin;              /* 0 = user; else the pass that made it */
    pto_loc loc;
} pto_tile;

/* Cube <-> vector pipe of a mix kernel (hardware.md section 5). */
typedef enum pto_cvdir { PTO_C2V = 1, PTO_V2C = 2, PTO_BOTH = 3 } pto_cvdir;

typedef struct pto_cvpipe {
    int32_t name;
    int32_t kernel;
    uint8_t dir;
    int32_t slot_size, slot_num, local_slot_num;  /* normalised: never 0 */
    int32_t flag_id;
    pto_loc loc;
} pto_cvpipe;

typedef enum pto_operand_kind {
    PTO_O_TILE,     /* ref: tile id */
    PTO_O_GM,       /* ref: param id; e[0], e[1]: row, col; e[2]: rank or -1 */
    PTO_O_FLOAT,    /* f */
    PTO_O_SCALAR,   /* ref: var id of a scalar param */
    PTO_O_INT,      /* e[0]: expression */
    PTO_O_PIPE,     /* ref: pto_pipe */
    PTO_O_CVPIPE    /* ref: cvpipe id */
} pto_operand_kind;

typedef struct pto_operand {
    uint8_t kind;
    int32_t ref;
    int32_t e[3];
    double f;
    pto_loc loc;
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
    int32_t arg0, nargs;   /* OP: operands [arg0, arg0 + nargs) */
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
/* The pipe an op statement runs on, resolved from its operand spaces. */
PTODEF pto_pipe pto_stmt_pipe(const pto_module *m, int32_t stmt);
PTODEF const pto_operand *pto_stmt_arg(const pto_module *m, int32_t stmt, int i);
/* Innermost enclosing FOR statement of a statement, or -1. */
PTODEF int32_t pto_stmt_loop(const pto_module *m, int32_t stmt);

/* ---- building IR (the C API; the parser uses it too) ----------------------
   All builders return the new id, or -1 when out of memory (a diagnostic is
   recorded). Statements are appended to the block given. */

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

/* Relinking, for passes: a new statement is created detached (block -1) by
   pto_new_stmt and then placed. */
PTODEF int32_t pto_new_stmt(pto_module *m, pto_stmt_kind kind, pto_loc loc);
PTODEF void pto_insert_before(pto_module *m, int32_t at, int32_t stmt);
PTODEF void pto_insert_after(pto_module *m, int32_t at, int32_t stmt);
PTODEF void pto_append(pto_module *m, int32_t block, int32_t stmt);
PTODEF void pto_prepend(pto_module *m, int32_t block, int32_t stmt);
PTODEF void pto_unlink(pto_module *m, int32_t stmt);
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
   and set ctx; free it with pto_buf_free. data is always NUL-terminated. */
typedef struct pto_buf {
    pto_ctx *ctx;
    char *data;
    size_t len, cap;
    int oom;               /* set when an append failed; the text is truncated */
} pto_buf;

PTODEF void pto_buf_puts(pto_buf *b, const char *s);
PTODEF void pto_buf_putn(pto_buf *b, const char *s, size_t n);
PTODEF void pto_buf_printf(pto_buf *b, const char *fmt, ...);
PTODEF void pto_buf_free(pto_buf *b);

/* ---- parse / print ------------------------------------------------------- */

/* Parses .pto text. Returns NULL (with diagnostics) on a syntax error; name
   resolution that the grammar needs happens here, every other rule is the
   verifier's. `filename` is used for locations. */
PTODEF pto_module *pto_parse(pto_ctx *ctx, const char *filename, const char *text, size_t len);

/* Canonical .pto text of a module. print(parse(print(x))) == print(x). */
PTODEF void pto_print(const pto_module *m, pto_buf *out);
PTODEF void pto_print_expr(const pto_module *m, int32_t expr, pto_buf *out);

/* ---- verify -------------------------------------------------------------- */

/* Checks every rule of the IR a user can break, with a diagnostic at the
   offending FILE:LINE:COL. PTO_OK means the later passes may rely on it. */
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
} pto_launch;

/* Runs every block (and rank) of the kernel with the reference semantics:
   program order, no pipes, no addresses. */
PTODEF pto_status pto_interp(pto_ctx *ctx, const pto_module *m, const pto_launch *launch);

/* ---- lower ------------------------------------------------------------
   (declarations of this stage go below this banner) */



/* ---- plan ------------------------------------------------------------
   (declarations of this stage go below this banner) */



/* ---- plan check (independent of the planner) ------------------------------------------------------------
   (declarations of this stage go below this banner) */



/* ---- sync ------------------------------------------------------------
   (declarations of this stage go below this banner) */



/* ---- emit ------------------------------------------------------------
   (declarations of this stage go below this banner) */



/* ---- dump ------------------------------------------------------------
   (declarations of this stage go below this banner) */

/* The text of pto_print plus, as trailing `#` comments, what later passes
   computed: planned tile offsets (per slot) and, for statements a pass
   created, the pass and its note. Not meant to be parsed back. */
PTODEF void pto_dump(const pto_module *m, pto_buf *out);


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
    int32_t *str_off;
    int32_t n_strs, cap_strs;
    int32_t *hash;          /* string ids, -1 = empty */
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

/* Round an f32 value as storing it in dtype would. */
PTO_NUMFN float pto_round_to(int dtype, float v)
{
    switch (dtype) {
    case 2: return pto_f16_to_f32(pto_f32_to_f16(v));
    case 3: return pto_bf16_to_f32(pto_f32_to_bf16(v));
    default: return v;
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

PTODEF void *pto_alloc(pto_ctx *ctx, size_t size) { return ctx->al.alloc(size ? size : 1, ctx->al.user); }
PTODEF void *pto_realloc(pto_ctx *ctx, void *p, size_t size)
{
    if (!p) return pto_alloc(ctx, size);
    return ctx->al.realloc(p, size ? size : 1, ctx->al.user);
}
PTODEF void pto_free(pto_ctx *ctx, void *p)
{
    if (p) ctx->al.free(p, ctx->al.user);
}

static void pto__oom(pto_ctx *ctx)
{
    pto_loc none = {0, 0, 0};
    if (ctx->oom_reported) return;
    ctx->oom_reported = 1;
    pto_error(ctx, none, "out of memory");
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

static uint32_t pto__hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int pto__rehash(pto_ctx *ctx, int32_t ncap)
{
    int32_t *h = (int32_t *)pto_alloc(ctx, sizeof(int32_t) * (size_t)ncap);
    int32_t i;
    if (!h) { pto__oom(ctx); return 0; }
    for (i = 0; i < ncap; i++) h[i] = -1;
    for (i = 0; i < ctx->n_strs; i++) {
        const char *s = ctx->pool + ctx->str_off[i];
        uint32_t k = pto__hash(s, strlen(s)) & (uint32_t)(ncap - 1);
        while (h[k] >= 0) k = (k + 1) & (uint32_t)(ncap - 1);
        h[k] = i;
    }
    pto_free(ctx, ctx->hash);
    ctx->hash = h;
    ctx->hash_cap = ncap;
    return 1;
}

PTODEF int32_t pto_intern(pto_ctx *ctx, const char *s, size_t len)
{
    uint32_t k;
    int32_t id;
    if ((ctx->n_strs + 1) * 2 > ctx->hash_cap && !pto__rehash(ctx, ctx->hash_cap ? ctx->hash_cap * 2 : 64))
        return 0;
    k = pto__hash(s, len) & (uint32_t)(ctx->hash_cap - 1);
    while (ctx->hash[k] >= 0) {
        const char *t = ctx->pool + ctx->str_off[ctx->hash[k]];
        if (strncmp(t, s, len) == 0 && t[len] == 0) return ctx->hash[k];
        k = (k + 1) & (uint32_t)(ctx->hash_cap - 1);
    }
    if (ctx->pool_len + len + 1 > ctx->pool_cap) {
        size_t ncap = ctx->pool_cap ? ctx->pool_cap : 1024;
        char *p;
        while (ncap < ctx->pool_len + len + 1) ncap *= 2;
        p = (char *)pto_realloc(ctx, ctx->pool, ncap);
        if (!p) { pto__oom(ctx); return 0; }
        ctx->pool = p;
        ctx->pool_cap = ncap;
    }
    id = pto__grow(ctx, (void **)&ctx->str_off, &ctx->n_strs, &ctx->cap_strs, sizeof(int32_t));
    if (id < 0) return 0;
    ctx->str_off[id] = (int32_t)ctx->pool_len;
    memcpy(ctx->pool + ctx->pool_len, s, len);
    ctx->pool[ctx->pool_len + len] = 0;
    ctx->pool_len += len + 1;
    ctx->hash[k] = id;
    return id;
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

PTODEF int pto_diag_count(const pto_ctx *ctx) { return ctx->n_diags; }
PTODEF int pto_error_count(const pto_ctx *ctx) { return ctx->n_errors; }
PTODEF const pto_diag *pto_diag_get(const pto_ctx *ctx, int i)
{
    return (i >= 0 && i < ctx->n_diags) ? &ctx->diags[i] : NULL;
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
    for (i = 0; i < ctx->n_diags; i++) {
        pto_diag_format(ctx, &ctx->diags[i], line, sizeof line);
        fprintf(out, "%s\n", line);
    }
}

/* ---- pto_buf ---- */

PTODEF void pto_buf_putn(pto_buf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        char *p;
        while (ncap < b->len + n + 1) ncap *= 2;
        p = (char *)pto_realloc(b->ctx, b->data, ncap);
        if (!p) { b->oom = 1; pto__oom(b->ctx); return; }
        b->data = p;
        b->cap = ncap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

PTODEF void pto_buf_puts(pto_buf *b, const char *s) { pto_buf_putn(b, s, strlen(s)); }

PTODEF void pto_buf_printf(pto_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        pto_buf_putn(b, small, (size_t)n);
    } else {
        char *big = (char *)pto_alloc(b->ctx, (size_t)n + 1);
        if (!big) { b->oom = 1; pto__oom(b->ctx); return; }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        pto_buf_putn(b, big, (size_t)n);
        pto_free(b->ctx, big);
    }
}

PTODEF void pto_buf_free(pto_buf *b)
{
    if (b->data) pto_free(b->ctx, b->data);
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

PTODEF int64_t pto_space_capacity(pto_arch arch, pto_space s)
{
    if (arch < 0 || arch >= PTO_NARCH || s < 0 || s >= PTO_NSPACE) return 0;
    return pto__capacity[arch][s];
}

PTODEF int64_t pto_tile_bytes(const pto_tile *t)
{
    return (int64_t)t->rows * t->cols * pto_dtype_size((pto_dtype)t->dtype);
}

PTODEF const pto_operand *pto_stmt_arg(const pto_module *m, int32_t stmt, int i)
{
    const pto_stmt *s = &m->stmts[stmt];
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
    const pto_stmt *s = &m->stmts[stmt];
    int dst, src;
    if (s->kind != PTO_ST_OP) return PTO_PIPE_S;
    dst = pto__arg_space(m, stmt, 0);
    src = pto__arg_space(m, stmt, 1);
    switch (s->op) {
    case PTO_OP_TSTORE:
        return src == PTO_ACC ? PTO_PIPE_FIX : PTO_PIPE_MTE3;
    case PTO_OP_TMOV:
        if (src == PTO_ACC) return PTO_PIPE_FIX;
        if (src == PTO_VEC && dst == PTO_VEC) return PTO_PIPE_V;
        return PTO_PIPE_MTE1;
    default:
        return pto_opinfo_get((pto_op)s->op)->pipe;
    }
}

PTODEF int32_t pto_stmt_loop(const pto_module *m, int32_t stmt)
{
    int32_t b = m->stmts[stmt].block;
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
    pto_free(ctx, m);
}

static int32_t pto__name(pto_module *m, const char *s) { return pto_intern(m->ctx, s, strlen(s)); }

PTODEF int32_t pto_add_block(pto_module *m, int32_t kernel, int32_t owner)
{
    int32_t b = PTO__PUSH(m, blocks);
    if (b < 0) return -1;
    m->blocks[b].head = m->blocks[b].tail = -1;
    m->blocks[b].owner = owner;
    m->blocks[b].kernel = kernel;
    return b;
}

PTODEF int32_t pto_add_kernel(pto_module *m, const char *name, pto_kernel_kind kind, pto_loc loc)
{
    int32_t k = PTO__PUSH(m, kernels);
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
static int32_t pto__add_param(pto_module *m, int32_t kernel, const char *name, pto_loc loc)
{
    int32_t p;
    pto_kernel *k = &m->kernels[kernel];
    PTO_ASSERT(kernel == m->n_kernels - 1 && k->param0 + k->nparams == m->n_params);
    p = PTO__PUSH(m, params);
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
    int32_t p = pto__add_param(m, kernel, name, loc);
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
    for (i = m->n_vars - 1; i >= 0; i--)
        if (m->vars[i].kernel == kernel && strcmp(pto_str(m->ctx, m->vars[i].name), name) == 0) return i;
    return -1;
}

PTODEF int32_t pto_find_param(const pto_module *m, int32_t kernel, const char *name)
{
    const pto_kernel *k = &m->kernels[kernel];
    int32_t i;
    for (i = k->param0; i < k->param0 + k->nparams; i++)
        if (strcmp(pto_str(m->ctx, m->params[i].name), name) == 0) return i;
    return -1;
}

PTODEF int32_t pto_set_dynamic_dim(pto_module *m, int32_t param, int d, const char *name)
{
    pto_param *p = &m->params[param];
    int32_t kernel = m->n_kernels - 1, v = -1, i;
    for (i = 0; i < m->n_vars; i++)
        if (m->vars[i].kernel == kernel && m->vars[i].kind == PTO_V_DIM &&
            strcmp(pto_str(m->ctx, m->vars[i].name), name) == 0) v = i;
    if (v < 0) v = pto_add_var(m, kernel, name, PTO_V_DIM, param, p->loc);
    if (v < 0) return -1;
    p = &m->params[param];
    p->dim[d] = -1;
    p->dim_var[d] = v;
    return v;
}

PTODEF int32_t pto_add_scalar_param(pto_module *m, int32_t kernel, const char *name, pto_dtype dt,
                                    pto_loc loc)
{
    int32_t p = pto__add_param(m, kernel, name, loc), v;
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

PTODEF int32_t pto_add_var(pto_module *m, int32_t kernel, const char *name, pto_var_kind kind,
                           int32_t def, pto_loc loc)
{
    int32_t v = PTO__PUSH(m, vars);
    if (v < 0) return -1;
    m->vars[v].name = pto__name(m, name);
    m->vars[v].kind = (uint8_t)kind;
    m->vars[v].kernel = kernel;
    m->vars[v].def = def;
    m->vars[v].loc = loc;
    return v;
}

/* ---- expressions ---- */

static int32_t pto__expr(pto_module *m, pto_expr_kind k, int32_t a, int32_t b, int64_t v, pto_loc loc)
{
    int32_t e = PTO__PUSH(m, exprs);
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

PTODEF int32_t pto_new_stmt(pto_module *m, pto_stmt_kind kind, pto_loc loc)
{
    int32_t s = PTO__PUSH(m, stmts);
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

/* The core of a new statement follows its block: a section sets it, a kernel
   of kind cube makes it the cube core. */
static uint8_t pto__block_core(const pto_module *m, int32_t block)
{
    int32_t owner = m->blocks[block].owner;
    if (owner >= 0) return m->stmts[owner].core;
    return m->kernels[m->blocks[block].kernel].kind == PTO_KK_CUBE ? PTO_CORE_CUBE : PTO_CORE_VECTOR;
}

PTODEF void pto_append(pto_module *m, int32_t block, int32_t s)
{
    pto_block *b = &m->blocks[block];
    pto_stmt *st = &m->stmts[s];
    st->block = block;
    st->prev = b->tail;
    st->next = -1;
    if (b->tail >= 0) m->stmts[b->tail].next = s; else b->head = s;
    b->tail = s;
}

PTODEF void pto_prepend(pto_module *m, int32_t block, int32_t s)
{
    pto_block *b = &m->blocks[block];
    pto_stmt *st = &m->stmts[s];
    st->block = block;
    st->next = b->head;
    st->prev = -1;
    if (b->head >= 0) m->stmts[b->head].prev = s; else b->tail = s;
    b->head = s;
}

PTODEF void pto_insert_before(pto_module *m, int32_t at, int32_t s)
{
    pto_stmt *a = &m->stmts[at], *st = &m->stmts[s];
    st->block = a->block;
    st->next = at;
    st->prev = a->prev;
    if (a->prev >= 0) m->stmts[a->prev].next = s; else m->blocks[a->block].head = s;
    a->prev = s;
}

PTODEF void pto_insert_after(pto_module *m, int32_t at, int32_t s)
{
    pto_stmt *a = &m->stmts[at], *st = &m->stmts[s];
    st->block = a->block;
    st->prev = at;
    st->next = a->next;
    if (a->next >= 0) m->stmts[a->next].prev = s; else m->blocks[a->block].tail = s;
    a->next = s;
}

PTODEF void pto_unlink(pto_module *m, int32_t s)
{
    pto_stmt *st = &m->stmts[s];
    if (st->block < 0) return;
    if (st->prev >= 0) m->stmts[st->prev].next = st->next; else m->blocks[st->block].head = st->next;
    if (st->next >= 0) m->stmts[st->next].prev = st->prev; else m->blocks[st->block].tail = st->prev;
    st->block = st->next = st->prev = -1;
}

static int32_t pto__add_stmt(pto_module *m, int32_t block, pto_stmt_kind kind, pto_loc loc)
{
    int32_t s = pto_new_stmt(m, kind, loc);
    if (s < 0) return -1;
    m->stmts[s].core = pto__block_core(m, block);
    pto_append(m, block, s);
    return s;
}

PTODEF int32_t pto_add_tile(pto_module *m, int32_t block, const char *name, pto_space space,
                            pto_dtype dt, int32_t rows, int32_t cols, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_TILE, loc), t;
    pto_tile *tl;
    if (s < 0) return -1;
    t = PTO__PUSH(m, tiles);
    if (t < 0) return -1;
    tl = &m->tiles[t];
    tl->name = pto__name(m, name);
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

PTODEF int32_t pto_add_let(pto_module *m, int32_t block, const char *name, int32_t value, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_LET, loc), v;
    if (s < 0) return -1;
    v = pto_add_var(m, m->blocks[block].kernel, name, PTO_V_LET, s, loc);
    if (v < 0) return -1;
    m->stmts[s].ref = v;
    m->stmts[s].e[0] = value;
    return s;
}

PTODEF int32_t pto_add_for(pto_module *m, int32_t block, const char *var, int32_t start,
                           int32_t end, int32_t step, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_FOR, loc), v, body;
    if (s < 0) return -1;
    v = pto_add_var(m, m->blocks[block].kernel, var, PTO_V_LOOP, s, loc);
    body = pto_add_block(m, m->blocks[block].kernel, s);
    if (v < 0 || body < 0) return -1;
    m->stmts[s].ref = v;
    m->stmts[s].e[0] = start;
    m->stmts[s].e[1] = end;
    m->stmts[s].e[2] = step;
    m->stmts[s].body = body;
    return s;
}

PTODEF int32_t pto_add_if(pto_module *m, int32_t block, int32_t lhs, pto_cmp cmp, int32_t rhs,
                          pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_IF, loc), body;
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
    if (m->stmts[ifstmt].orelse >= 0) return m->stmts[ifstmt].orelse;
    b = pto_add_block(m, m->blocks[m->stmts[ifstmt].block].kernel, ifstmt);
    if (b >= 0) m->stmts[ifstmt].orelse = b;
    return b;
}

PTODEF int32_t pto_add_section(pto_module *m, int32_t block, pto_core core, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_SECTION, loc), body;
    if (s < 0) return -1;
    m->stmts[s].core = (uint8_t)core;
    m->stmts[s].ref = (int32_t)core;
    body = pto_add_block(m, m->blocks[block].kernel, s);
    if (body < 0) return -1;
    m->stmts[s].body = body;
    return s;
}

PTODEF int32_t pto_add_op(pto_module *m, int32_t block, pto_op op, pto_loc loc)
{
    int32_t s = pto__add_stmt(m, block, PTO_ST_OP, loc);
    if (s < 0) return -1;
    m->stmts[s].op = (uint16_t)op;
    return s;
}

/* Operands of one statement are contiguous, so they must be added right
   after the statement, before any other statement's operands. */
static int32_t pto__arg(pto_module *m, int32_t stmt, pto_operand_kind kind, int32_t ref, pto_loc loc)
{
    int32_t o;
    pto_stmt *s = &m->stmts[stmt];
    PTO_ASSERT(s->arg0 + s->nargs == m->n_operands);
    o = PTO__PUSH(m, operands);
    if (o < 0) return -1;
    m->stmts[stmt].nargs++;
    m->operands[o].kind = (uint8_t)kind;
    m->operands[o].ref = ref;
    m->operands[o].e[0] = m->operands[o].e[1] = m->operands[o].e[2] = -1;
    m->operands[o].loc = loc;
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
   goes. Names are interned; the binding of a name is an array slot indexed
   by its interned id, so every lookup is O(1) and the whole parse is linear.
   Scopes are lexical: a scope remembers the names it declared and unbinds
   them when it closes. Shadowing is an error, so a scope never has to
   restore an outer binding.

   Errors: a syntax error skips to the end of the line (a `{` skipped on that
   line still opens a block, parsed into a detached block, so the matching
   `}` does not close the wrong block); a name error reports and carries on
   with a placeholder. Nesting (blocks, parentheses, expression trees) is
   capped so that neither this parser nor any later recursive pass can run
   out of stack. */

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
    X(CUBE, "cube") X(MIX, "mix") X(INF, "inf") X(NAN, "nan")

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
    PTO__B_NONE, PTO__B_TENSOR, PTO__B_SCALAR, PTO__B_DIM, PTO__B_LET, PTO__B_LOOP, PTO__B_TILE
};

static const char *const pto__ps_bind_word[] = {
    "name", "tensor", "scalar param", "dim", "let", "loop variable", "tile"
};

typedef struct pto__ps_pname {
    uint8_t kind;       /* PTO__B_* */
    uint8_t opc;        /* op lookup cache: 0 not looked up, 1 no op, 2 + op */
    int32_t ref;        /* param (tensor), var (scalar, dim, let, loop) or tile */
    int32_t depth;      /* scope depth of the declaration */
    int32_t kernel;     /* 1 + kernel id when a kernel has this name */
    pto_loc loc;        /* the declaring name token */
} pto__ps_pname;

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
    int32_t cap_names;
    int32_t *decls;          /* names declared by the open scopes, innermost last */
    int32_t n_decls, cap_decls;
    int32_t *marks;          /* n_decls when each open scope began */
    int32_t n_marks, cap_marks;
    int32_t kw[PTO__NKW];
} pto__ps_parser;

/* ---- diagnostics ------------------------------------------------------- */

static pto_loc pto__ps_tloc(const pto__ps_parser *p, const pto__ps_tok *t)
{
    pto_loc l;
    l.file = p->file;
    l.line = t->line;
    l.col = t->col;
    return l;
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
    pto_error(p->ctx, pto__ps_tloc(p, t), "%s", msg);
}

/* "expected WHAT, got 'X'"; a malformed token is reported for what it is. */
static void pto__ps_expected(pto__ps_parser *p, const char *what)
{
    char q[200];
    pto__ps_tokstr(p, &p->tok, q, sizeof q);
    if (p->tok.kind == PTO__T_BADCHAR) pto__ps_err(p, &p->tok, "unexpected character %s", q);
    else if (p->tok.kind == PTO__T_BADNUM) {
        const char *s = p->src + p->tok.pos;
        if (p->tok.len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            pto__ps_err(p, &p->tok, "bad hex literal %s", q);
        else
            pto__ps_err(p, &p->tok, "bad number %s", q);
    } else pto__ps_err(p, &p->tok, "expected %s, got %s", what, q);
}

/* ---- lexer ---------------------------------------------------------------- */

static int pto__ps_is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int pto__ps_is_digit(int c) { return c >= '0' && c <= '9'; }
static int pto__ps_is_alnum(int c) { return pto__ps_is_alpha(c) || pto__ps_is_digit(c); }
static int pto__ps_is_hex(int c) { return pto__ps_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

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

static void pto__ps_next(pto__ps_parser *p)
{
    pto__ps_tok *t = &p->tok;
    int c;
    for (;;) {
        c = pto__ps_at(p, p->pos);
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') p->pos++;
        else if (c == '#') {
            const char *nl = (const char *)memchr(p->src + p->pos, '\n', p->len - p->pos);
            p->pos = nl ? (size_t)(nl - p->src) : p->len;
        } else break;
    }
    t->pos = p->pos;
    t->line = p->line;
    t->col = (int32_t)(p->pos - p->line_start + 1);
    t->id = 0;
    if (c < 0) { t->kind = PTO__T_EOF; t->len = 0; return; }
    if (c == '\n') {
        t->kind = PTO__T_NL;
        p->pos++;
        p->line++;
        p->line_start = p->pos;
    } else if (pto__ps_is_alpha(c)) {
        while (pto__ps_is_alnum(pto__ps_at(p, p->pos))) p->pos++;
        t->kind = PTO__T_NAME;
        t->id = pto_intern(p->ctx, p->src + t->pos, p->pos - t->pos);
    } else if (pto__ps_is_digit(c)) {
        t->kind = pto__ps_lex_number(p);
    } else {
        int d = pto__ps_at(p, p->pos + 1);
        p->pos++;
        t->kind = c;
        if (c == '<' && d == '=') t->kind = PTO__T_LE;
        else if (c == '>' && d == '=') t->kind = PTO__T_GE;
        else if (c == '=' && d == '=') t->kind = PTO__T_EQ;
        else if (c == '!' && d == '=') t->kind = PTO__T_NE;
        else if (!strchr("(){}[],:=@+-*/%<>", c) || c == 0) t->kind = PTO__T_BADCHAR;
        if (t->kind >= 256) p->pos++;
    }
    t->len = p->pos - t->pos;
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

/* Integer value of an INT token; `neg` allows -2^63. */
static int pto__ps_int_value(pto__ps_parser *p, const pto__ps_tok *t, int neg, int64_t *out)
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

/* Value of an INT or FLOAT token read as a double. */
static int pto__ps_float_value(pto__ps_parser *p, const pto__ps_tok *t, double *out)
{
    char small[64], *buf = small;
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
   when out of memory. */
static pto__ps_pname *pto__ps_slot(pto__ps_parser *p, int32_t id)
{
    if (id >= p->cap_names) {
        int32_t ncap = p->cap_names ? p->cap_names : 256;
        pto__ps_pname *n;
        while (ncap <= id) ncap *= 2;
        n = (pto__ps_pname *)pto_realloc(p->ctx, p->names, sizeof *n * (size_t)ncap);
        if (!n) { pto__oom(p->ctx); return NULL; }
        memset(n + p->cap_names, 0, sizeof *n * (size_t)(ncap - p->cap_names));
        p->names = n;
        p->cap_names = ncap;
    }
    return &p->names[id];
}

static int pto__ps_push_i32(pto__ps_parser *p, int32_t **arr, int32_t *n, int32_t *cap, int32_t v)
{
    int32_t i = pto__grow(p->ctx, (void **)arr, n, cap, sizeof(int32_t));
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
        if (id < p->cap_names) p->names[id].kind = PTO__B_NONE;
    }
    p->depth--;
}

static int pto__ps_reserved(const pto__ps_parser *p, int32_t id)
{
    static const int words[] = {PTO__KW_BLOCK, PTO__KW_BLOCKS, PTO__KW_SUBBLOCK, PTO__KW_RANK,
                                PTO__KW_NRANKS, PTO__KW_MIN, PTO__KW_MAX, PTO__KW_INF, PTO__KW_NAN};
    size_t i;
    for (i = 0; i < sizeof words / sizeof words[0]; i++)
        if (p->kw[words[i]] == id) return 1;
    return 0;
}

/* Checks that the name token t may be declared here; reports why not. */
static int pto__ps_can_declare(pto__ps_parser *p, const pto__ps_tok *t)
{
    pto__ps_pname *n = pto__ps_slot(p, t->id);
    if (!n) return 0;
    if (pto__ps_reserved(p, t->id)) {
        pto__ps_err(p, t, "'%s' is a reserved word and cannot be declared", pto__ps_text(p, t));
        return 0;
    }
    if (n->kind == PTO__B_NONE) return 1;
    if (n->depth == p->depth)
        pto__ps_err(p, t, "%s '%s' is already declared at %d:%d", pto__ps_bind_word[n->kind], pto__ps_text(p, t),
                 (int)n->loc.line, (int)n->loc.col);
    else
        pto__ps_err(p, t, "'%s' shadows the %s declared at %d:%d (shadowing is not allowed)",
                 pto__ps_text(p, t), pto__ps_bind_word[n->kind], (int)n->loc.line, (int)n->loc.col);
    return 0;
}

static void pto__ps_bind(pto__ps_parser *p, const pto__ps_tok *t, int kind, int32_t ref)
{
    pto__ps_pname *n = pto__ps_slot(p, t->id);
    if (!n || ref < 0) return;
    if (!pto__ps_push_i32(p, &p->decls, &p->n_decls, &p->cap_decls, t->id)) return;
    n = &p->names[t->id];
    n->kind = (uint8_t)kind;
    n->ref = ref;
    n->depth = p->depth;
    n->loc = pto__ps_tloc(p, t);
}

static const pto__ps_pname *pto__ps_lookup(pto__ps_parser *p, const pto__ps_tok *t)
{
    static const pto__ps_pname none = {0, 0, 0, 0, 0, {0, 0, 0}};
    pto__ps_pname *n = pto__ps_slot(p, t->id);
    return n ? n : &none;
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
    return pto_expr_bin(p->m, k, a, b, pto__ps_tloc(p, op));
}

static int32_t pto__ps_name_expr(pto__ps_parser *p)
{
    pto__ps_tok t = p->tok;
    const pto__ps_pname *n = pto__ps_lookup(p, &t);
    pto_loc loc = pto__ps_tloc(p, &t);
    pto__ps_next(p);
    switch (n->kind) {
    case PTO__B_SCALAR: case PTO__B_DIM: case PTO__B_LET: case PTO__B_LOOP:
        return pto_expr_var(p->m, n->ref, loc);
    case PTO__B_NONE:
        pto__ps_err(p, &t, "unknown name '%s'", pto__ps_text(p, &t));
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
    pto_loc loc = pto__ps_tloc(p, &t);
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
            e = pto__ps_int_value(p, &t, 1, &v) ? pto_expr_int(p->m, v, pto__ps_tloc(p, &op)) : -1;
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

static int32_t pto__ps_term(pto__ps_parser *p, int *h)
{
    int32_t a = pto__ps_unary(p, h);
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

static int32_t pto__ps_expr(pto__ps_parser *p, int *h)
{
    int32_t a = pto__ps_term(p, h);
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

static int32_t pto__ps_expr0(pto__ps_parser *p)
{
    int h;
    return pto__ps_expr(p, &h);
}

/* ---- operands ----------------------------------------------------------------- */

/* T[r, c] or T@p[r, c]; the current token is the tensor name. */
static int pto__ps_gm_operand(pto__ps_parser *p, int32_t s, int32_t param)
{
    pto__ps_tok t = p->tok, open;
    int32_t r, c, rank = -1;
    pto__ps_next(p);
    if (pto__ps_is(p, '@')) {
        pto__ps_next(p);
        if ((rank = pto__ps_expr0(p)) < 0) return 0;
    }
    open = p->tok;
    if (!pto__ps_is(p, '[')) {
        char q[200];
        pto__ps_tokstr(p, &p->tok, q, sizeof q);
        pto__ps_err(p, &p->tok, "expected '[' after tensor '%s', got %s", pto__ps_text(p, &t), q);
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
    return pto_arg_gm(p->m, s, param, r, c, rank, pto__ps_tloc(p, &t)) >= 0;
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
    return pto_arg_float(p->m, s, neg ? -v : v, pto__ps_tloc(p, &start)) >= 0;
}

static int pto__ps_is_floaty(const pto__ps_parser *p, const pto__ps_tok *t)
{
    return t->kind == PTO__T_FLOAT ||
           (t->kind == PTO__T_NAME && (t->id == p->kw[PTO__KW_INF] || t->id == p->kw[PTO__KW_NAN]));
}

/* One operand of op statement s; `mask` is the op table mask of its
   position (0 past the table's arity: classified by its form alone). */
static int pto__ps_operand(pto__ps_parser *p, int32_t s, uint32_t mask)
{
    pto__ps_tok t = p->tok;
    pto_loc loc = pto__ps_tloc(p, &t);
    const uint32_t other = PTO_A_SCALAR | PTO_A_INT | PTO_A_TILES | PTO_A_GM | PTO_A_CVPIPE;
    if ((mask & PTO_A_PIPE) && t.kind == PTO__T_NAME) {
        pto_pipe pp = pto_pipe_lookup(p->src + t.pos, t.len);
        if (pp != PTO_NPIPE) { pto__ps_next(p); return pto_arg_pipe(p->m, s, pp, loc) >= 0; }
        if (!(mask & other)) { pto__ps_err(p, &t, "unknown pipe '%s'", pto__ps_text(p, &t)); return 0; }
    }
    if ((mask & PTO_A_PIPE) && !(mask & other)) { pto__ps_expected(p, "a pipe name"); return 0; }
    if ((mask & PTO_A_INT) && !(mask & (other & ~PTO_A_INT))) {
        int32_t e = pto__ps_expr0(p);
        return e >= 0 && pto_arg_int(p->m, s, e, loc) >= 0;
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
            return pto_arg_tile(p->m, s, n->ref, loc) >= 0;
        case PTO__B_TENSOR:
            return pto__ps_gm_operand(p, s, n->ref);
        case PTO__B_SCALAR:
            if (!(mask & PTO_A_INT)) {
                pto__ps_next(p);
                return pto_arg_scalar(p->m, s, n->ref, loc) >= 0;
            }
            break;
        case PTO__B_NONE:
            if (mask == 0 && pto_pipe_lookup(p->src + t.pos, t.len) != PTO_NPIPE) {
                pto__ps_next(p);
                return pto_arg_pipe(p->m, s, pto_pipe_lookup(p->src + t.pos, t.len), loc) >= 0;
            }
            pto__ps_err(p, &t, "unknown name '%s'", pto__ps_text(p, &t));
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
        return e >= 0 && pto_arg_int(p->m, s, e, loc) >= 0;
    }
}

static int pto__ps_operands(pto__ps_parser *p, int32_t s, pto_op op)
{
    const pto_opinfo *info = pto_opinfo_get(op);
    int i;
    if (pto__ps_at_eol(p)) return 1;
    for (i = 0;; i++) {
        uint32_t mask = i < info->nargs && i < 4 ? info->arg[i] : 0;
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

static int pto__ps_dtype(pto__ps_parser *p, pto_dtype *dt)
{
    if (!pto__ps_is(p, PTO__T_NAME)) { pto__ps_expected(p, "a dtype"); return 0; }
    *dt = pto_dtype_lookup(p->src + p->tok.pos, p->tok.len);
    if (*dt == PTO_DT_NONE) {
        pto__ps_err(p, &p->tok, "unknown dtype '%s'", pto__ps_text(p, &p->tok));
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
    sp = pto_space_lookup(p->src + p->tok.pos, p->tok.len);
    if (sp == PTO_NSPACE) {
        pto__ps_err(p, &p->tok, "unknown memory space '%s' (expected vec, mat, left, right or acc)",
                 pto__ps_text(p, &p->tok));
        return 0;
    }
    pto__ps_next(p);
    if (!pto__ps_dtype(p, &dt)) return 0;
    if (!pto__ps_expect(p, '[', "'[' before the tile shape")) return 0;
    if (!pto__ps_small_int(p, INT32_MAX, "tile dimension", &r)) return 0;
    if (!pto__ps_expect(p, ',', "',' between the tile dimensions")) return 0;
    if (!pto__ps_small_int(p, INT32_MAX, "tile dimension", &c)) return 0;
    if (!pto__ps_expect(p, ']', "']' after the tile shape")) return 0;
    t = pto_add_tile(p->m, block, pto__ps_text(p, &name), sp, dt, (int32_t)r, (int32_t)c, pto__ps_tloc(p, &kw));
    if (t < 0) return 0;
    p->m->tiles[t].loc = pto__ps_tloc(p, &name);
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
    s = pto_add_let(p->m, block, pto__ps_text(p, &name), e, pto__ps_tloc(p, &kw));
    if (s < 0) return 0;
    p->m->vars[p->m->stmts[s].ref].loc = pto__ps_tloc(p, &name);
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
    s = pto_add_for(p->m, block, pto__ps_text(p, &name), a, b, st, pto__ps_tloc(p, &kw));
    if (s < 0) return 0;
    p->m->vars[p->m->stmts[s].ref].loc = pto__ps_tloc(p, &name);
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
    s = pto_add_if(p->m, block, a, c, b, pto__ps_tloc(p, &kw));
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
    s = pto_add_section(p->m, block, core, pto__ps_tloc(p, &kw));
    if (s < 0) return 0;
    pto__ps_sub_block(p, p->m->stmts[s].body, &open);
    return pto__ps_end_stmt(p, "'}'");
}

static pto_op pto__ps_op_of(pto__ps_parser *p, const pto__ps_tok *t)
{
    pto__ps_pname *n = pto__ps_slot(p, t->id);
    if (!n) return PTO_NOP;
    if (n->opc == 0) {
        pto_op op = pto_op_lookup(p->src + t->pos, t->len);
        n->opc = (uint8_t)(op == PTO_NOP ? 1 : 2 + (int)op);
    }
    return n->opc == 1 ? PTO_NOP : (pto_op)(n->opc - 2);
}

/* One statement; returns 0 after a syntax error (the caller skips the line). */
static int pto__ps_stmt(pto__ps_parser *p, int32_t block)
{
    pto__ps_tok t = p->tok;
    pto_op op;
    int32_t s;
    if (t.kind != PTO__T_NAME) { pto__ps_expected(p, "a statement"); return 0; }
    if (t.id == p->kw[PTO__KW_TILE]) return pto__ps_tile_stmt(p, block);
    if (t.id == p->kw[PTO__KW_LET]) return pto__ps_let_stmt(p, block);
    if (t.id == p->kw[PTO__KW_FOR]) return pto__ps_for_stmt(p, block);
    if (t.id == p->kw[PTO__KW_IF]) return pto__ps_if_stmt(p, block);
    if (t.id == p->kw[PTO__KW_CUBE] || t.id == p->kw[PTO__KW_VECTOR]) return pto__ps_section_stmt(p, block);
    if (t.id == p->kw[PTO__KW_ELSE]) {
        pto__ps_err(p, &t, "'else' must follow '}' on the same line");
        return 0;
    }
    op = pto__ps_op_of(p, &t);
    if (op == PTO_NOP) {
        pto__ps_err(p, &t, "unknown op '%s'", pto__ps_text(p, &t));
        return 0;
    }
    pto__ps_next(p);
    s = pto_add_op(p->m, block, op, pto__ps_tloc(p, &t));
    if (s < 0 || !pto__ps_operands(p, s, op)) return 0;
    return pto__ps_end_stmt(p, "the operands");
}

/* ---- kernels --------------------------------------------------------------------- */

static void pto__ps_skip_nl(pto__ps_parser *p)
{
    while (pto__ps_is(p, PTO__T_NL)) pto__ps_next(p);
}

/* One dim of a tensor param: an integer, or a name (a dynamic dim shared by
   every param of the kernel that uses it). */
static int pto__ps_dim(pto__ps_parser *p, int32_t param, int d)
{
    pto__ps_tok t = p->tok;
    if (t.kind == PTO__T_INT) {
        int64_t v;
        pto__ps_next(p);
        if (!pto__ps_int_value(p, &t, 0, &v)) return 0;
        p->m->params[param].dim[d] = v;
        return 1;
    }
    if (t.kind == PTO__T_NAME) {
        const pto__ps_pname *n = pto__ps_lookup(p, &t);
        int32_t v;
        pto__ps_next(p);
        if (n->kind == PTO__B_DIM) {
            v = n->ref;
        } else {
            if (!pto__ps_can_declare(p, &t)) return 1; /* reported; keep parsing */
            v = pto_add_var(p->m, p->kernel, pto__ps_text(p, &t), PTO_V_DIM, param, pto__ps_tloc(p, &t));
            if (v < 0) return 0;
            pto__ps_bind(p, &t, PTO__B_DIM, v);
        }
        p->m->params[param].dim[d] = -1;
        p->m->params[param].dim_var[d] = v;
        return 1;
    }
    pto__ps_expected(p, "a dimension (an integer or a name)");
    return 0;
}

/* in|out|inout NAME: DTYPE[D0, D1] [window]   or   scalar NAME: DTYPE */
static int pto__ps_param(pto__ps_parser *p)
{
    pto__ps_tok name;
    pto_dtype dt;
    int32_t prm;
    int ok, scalar = pto__ps_is_kw(p, PTO__KW_SCALAR);
    pto_dir dir = pto__ps_is_kw(p, PTO__KW_IN) ? PTO_IN : pto__ps_is_kw(p, PTO__KW_OUT) ? PTO_OUT : PTO_INOUT;
    if (!scalar && !pto__ps_is_kw(p, PTO__KW_IN) && !pto__ps_is_kw(p, PTO__KW_OUT) && !pto__ps_is_kw(p, PTO__KW_INOUT)) {
        pto__ps_expected(p, "a parameter ('in', 'out', 'inout' or 'scalar')");
        return 0;
    }
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a parameter name")) return 0;
    ok = pto__ps_can_declare(p, &name);
    if (!pto__ps_expect(p, ':', "':' after the parameter name")) return 0;
    if (!pto__ps_dtype(p, &dt)) return 0;
    if (scalar) {
        prm = pto_add_scalar_param(p->m, p->kernel, pto__ps_text(p, &name), dt, pto__ps_tloc(p, &name));
        if (prm < 0) return 0;
        if (ok) pto__ps_bind(p, &name, PTO__B_SCALAR, p->m->params[prm].var);
        return 1;
    }
    prm = pto_add_tensor_param(p->m, p->kernel, pto__ps_text(p, &name), dir, dt, 0, 0, pto__ps_tloc(p, &name));
    if (prm < 0) return 0;
    if (ok) pto__ps_bind(p, &name, PTO__B_TENSOR, prm);
    if (!pto__ps_expect(p, '[', "'[' before the tensor shape")) return 0;
    if (!pto__ps_dim(p, prm, 0)) return 0;
    if (!pto__ps_expect(p, ',', "',' between the tensor dimensions")) return 0;
    if (!pto__ps_dim(p, prm, 1)) return 0;
    if (!pto__ps_expect(p, ']', "']' after the tensor shape")) return 0;
    if (pto__ps_is_kw(p, PTO__KW_WINDOW)) {
        p->m->params[prm].window = 1;
        pto__ps_next(p);
    }
    return 1;
}

/* (PARAM, ...) possibly over several lines. After an error, skips to the
   closing `)` so that the rest of the header still parses. */
static int pto__ps_params(pto__ps_parser *p)
{
    pto__ps_tok open = p->tok;
    if (!pto__ps_expect(p, '(', "'(' after the kernel name")) return 0;
    pto__ps_skip_nl(p);
    if (pto__ps_is(p, ')')) { pto__ps_next(p); return 1; }
    for (;;) {
        pto__ps_skip_nl(p);
        if (!pto__ps_param(p)) break;
        pto__ps_skip_nl(p);
        if (pto__ps_is(p, ',')) { pto__ps_next(p); continue; }
        if (pto__ps_is(p, ')')) { pto__ps_next(p); return 1; }
        if (pto__ps_is(p, PTO__T_EOF)) {
            pto__ps_err(p, &open, "missing ')': the parameter list opened here is not closed");
            return 0;
        }
        pto__ps_expected(p, "',' or ')' after a parameter");
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

/* Skips lines until one that starts with `kernel` or `arch` (top-level
   recovery: whatever followed a broken header is not parsed). */
static void pto__ps_skip_to_top(pto__ps_parser *p)
{
    for (;;) {
        while (!pto__ps_at_eol(p)) pto__ps_next(p);
        if (pto__ps_is(p, PTO__T_EOF)) return;
        pto__ps_next(p);
        pto__ps_skip_nl(p);
        if (pto__ps_is_kw(p, PTO__KW_KERNEL) || pto__ps_is_kw(p, PTO__KW_ARCH)) return;
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
    n = pto__ps_slot(p, name.id);
    if (!n) return;
    if (n->kernel) {
        const pto_kernel *o = &p->m->kernels[n->kernel - 1];
        pto__ps_err(p, &name, "kernel '%s' is already defined at %d:%d", pto__ps_text(p, &name),
                 (int)o->loc.line, (int)o->loc.col);
    }
    k = pto_add_kernel(p->m, pto__ps_text(p, &name), PTO_KK_VECTOR, pto__ps_tloc(p, &name));
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

static void pto__ps_file(pto__ps_parser *p)
{
    pto__ps_next(p);
    for (;;) {
        pto__ps_skip_nl(p);
        if (pto__ps_is(p, PTO__T_EOF)) return;
        if (pto__ps_is_kw(p, PTO__KW_KERNEL)) pto__ps_kernel(p);
        else if (pto__ps_is_kw(p, PTO__KW_ARCH)) pto__ps_arch(p);
        else {
            pto__ps_expected(p, "'kernel' or 'arch'");
            pto__ps_skip_to_top(p);
        }
    }
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
    for (i = 0; i < PTO__NKW; i++) p.kw[i] = pto_intern(ctx, pto__ps_kw_text[i], strlen(pto__ps_kw_text[i]));
    pto__ps_file(&p);
    pto_free(ctx, p.names);
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
   float, `} else {` on one line. Comments are not kept.

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
    pto__pr_pexpr(m, expr, 0, out);
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
    default: pto_buf_puts(b, "?"); break;
    }
}

typedef struct pto__pr_printer {
    const pto_module *m;
    pto_buf *b;
    int dump;
} pto__pr_printer;

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

static void pto__pr_pstmt(const pto__pr_printer *pr, int32_t s, int depth)
{
    const pto_module *m = pr->m;
    const pto_stmt *st = &m->stmts[s];
    pto_buf *b = pr->b;
    const pto_opinfo *info;
    int i;
    pto__pr_indent(b, depth);
    switch (st->kind) {
    case PTO_ST_OP:
        info = pto_opinfo_get((pto_op)st->op);
        pto_buf_puts(b, info->name);
        for (i = 0; i < st->nargs; i++) {
            pto_buf_puts(b, i ? ", " : " ");
            pto__pr_operand(m, &m->operands[st->arg0 + i], i < info->nargs && i < 4 ? info->arg[i] : 0, b);
        }
        break;
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

static void pto__pr_pkernel(const pto__pr_printer *pr, const pto_kernel *k)
{
    static const char *const kinds[] = {"vector", "cube", "mix"};
    static const char *const dirs[] = {"in", "out", "inout"};
    const pto_module *m = pr->m;
    pto_buf *b = pr->b;
    int32_t i;
    int d;
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
    pto__pr_pblock(pr, k->body, 1);
    pto_buf_puts(b, "}\n");
}

static void pto__pr_pmodule(const pto_module *m, pto_buf *out, int dump)
{
    pto__pr_printer pr;
    int32_t k;
    pr.m = m;
    pr.b = out;
    pr.dump = dump;
    if (m->arch != PTO_ARCH_A2A3) pto_buf_printf(out, "arch %s\n\n", pto_arch_name(m->arch));
    for (k = 0; k < m->n_kernels; k++) {
        if (k) pto_buf_puts(out, "\n");
        pto__pr_pkernel(&pr, &m->kernels[k]);
    }
}

PTODEF void pto_print(const pto_module *m, pto_buf *out) { pto__pr_pmodule(m, out, 0); }

PTODEF void pto_dump(const pto_module *m, pto_buf *out) { pto__pr_pmodule(m, out, 1); }
/* ---- End file: src/print.c ---- */

/* ---- Begin file: src/verify.c ---- */
/* verify.c - the verifier (placeholder until it lands). */

PTODEF pto_status pto_verify(pto_ctx *ctx, pto_module *m)
{
    (void)ctx;
    (void)m;
    return PTO_OK;
}
/* ---- End file: src/verify.c ---- */

/* ---- Begin file: src/interp.c ---- */
/* interp.c - the reference interpreter (placeholder until it lands). */

PTODEF pto_status pto_interp(pto_ctx *ctx, const pto_module *m, const pto_launch *launch)
{
    pto_loc none = {0, 0, 0};
    (void)m;
    (void)launch;
    return pto_error(ctx, none, "the interpreter is not built yet");
}
/* ---- End file: src/interp.c ---- */

/* ---- Begin file: src/lower.c ---- */
/* lower.c - (placeholder; lands with its issue) */
/* ---- End file: src/lower.c ---- */

/* ---- Begin file: src/plan.c ---- */
/* plan.c - (placeholder; lands with its issue) */
/* ---- End file: src/plan.c ---- */

/* ---- Begin file: src/plancheck.c ---- */
/* plancheck.c - (placeholder; lands with its issue) */
/* ---- End file: src/plancheck.c ---- */

/* ---- Begin file: src/sync.c ---- */
/* sync.c - (placeholder; lands with its issue) */
/* ---- End file: src/sync.c ---- */

/* ---- Begin file: src/emit.c ---- */
/* emit.c - (placeholder; lands with its issue) */
/* ---- End file: src/emit.c ---- */

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
