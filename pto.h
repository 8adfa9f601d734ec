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

/* Optional counters filled by pto_sync (all kernels of the module). */
typedef struct pto_sync_stats {
    int flag_pairs;        /* set/wait groups inserted (a rotating group counts once) */
    int rotating;          /* of which rotate N > 1 ids with the loop */
    int barriers;          /* pipe_barrier(V/M) inserted */
    int degraded;          /* groups whose rotation was cut (N -> 2 -> 1) for lack of ids */
    int fallbacks;         /* groups replaced by a PIPE_ALL barrier for lack of ids */
    int rounds;            /* analysis rounds (one per dependency found, plus checks) */
} pto_sync_stats;

/* Zero-initialised fields take their defaults. */
typedef struct pto_sync_desc {
    int ids_per_pair;      /* event ids per ordered pipe pair; 0 = 8 (hardware.md s4) */
    pto_sync_stats *stats; /* optional: filled on return */
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



/* ---- dump ------------------------------------------------------------
   (declarations of this stage go below this banner) */


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
/* parse.c - the .pto parser (placeholder until the parser lands). */

PTODEF pto_module *pto_parse(pto_ctx *ctx, const char *filename, const char *text, size_t len)
{
    pto_loc loc;
    (void)text;
    (void)len;
    loc.file = pto_file_add(ctx, filename);
    loc.line = 1;
    loc.col = 1;
    pto_error(ctx, loc, "the parser is not built yet");
    return NULL;
}
/* ---- End file: src/parse.c ---- */

/* ---- Begin file: src/print.c ---- */
/* print.c - the .pto printer (placeholder until the printer lands). */

PTODEF void pto_print_expr(const pto_module *m, int32_t expr, pto_buf *out)
{
    (void)m;
    pto_buf_printf(out, "e%d", (int)expr);
}

PTODEF void pto_print(const pto_module *m, pto_buf *out)
{
    pto_buf_printf(out, "arch %s\n", pto_arch_name(m->arch));
}
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
/* sync.c - the sync inserter: orders every dependency inside a core.

   Needs: a verified module whose local tiles are planned (planned = 1 and
   offset[k] for every slot k). Guarantees, for every core program (a
   vector or cube kernel body, or one section of a mix kernel):
   - every cross-pipe RAW / WAR / WAW dependency is ordered by a chain of
     set_flag / wait_flag pairs (hardware.md section 4);
   - dependent instructions on the same V or M pipe are separated by a
     pipe_barrier; the in-order queues (MTE1/2/3, FIX, S) get nothing;
   - no event id is set twice, waited while unset, or left set at the end;
   - at most ids_per_pair (8) ids per ordered pipe pair; M -> FIX uses only
     ids 0..2 (that pair deadlocked with ids 3..7 on one device, s4);
   - deterministic: the same module gives the same statements.
   Inserted statements are ordinary op statements (origin PTO_BY_SYNC) whose
   note names the dependency that justified them.

   1. Access records. Each tile or GM operand of an op that reads or writes
      is an access; an xN tile gives one record per slot (slot k of the
      tile's loop iteration n is n mod N). Two accesses conflict when one
      writes and their byte ranges in one space overlap (ends rounded up to
      the 32-byte granule), whatever tiles they name: tiles that share bytes
      after reuse conflict too. GM windows of one tensor conflict unless
      their row or column ranges are provably disjoint (a linear difference
      of loop-invariant terms that is a constant).

   2. The analysis is an abstract interpretation of one core's program. Its
      state holds, per access record (the latest instance of that operand
      and slot), the set of pipes it is known to happen before, and per
      event id whether it is set and which records its set captured. A
      set_flag on p captures every record of pipe p and every record known
      to happen before p; the wait gives them pipe q. This is the
      happens-before closure over pipes, so a chain of existing flags
      (load -> compute -> store) covers the dependency it implies. Paths
      merge by intersection (a dependency is covered after an if only when
      both branches cover it); a loop is iterated to a fixpoint once per
      phase (iteration index mod the lcm of its tiles' N), so rotating slots
      and rotating ids are tracked exactly, and it may exit after any
      number of iterations, zero included. A covered later instance of an
      access covers the earlier ones on its pipe (a set covers everything
      before it on its pipe), which is why one record per operand and slot
      is enough.

   3. Insertion repeats: analyse; take the first uncovered dependency (at
      that statement, a same-iteration one before a loop-carried one, then
      the latest writer/reader); place a pair; analyse again. A dependency
      from A to B inside the same iteration of every common loop gets
      set_flag right after A's ancestor and wait_flag right before B's
      ancestor in their lowest common block, so both run equally often. A
      loop-carried one (B before A in their common loop L) gets the loop
      idiom: prime before L, wait before B's ancestor, set after A's,
      drain after L (balanced for any trip count, zero included). When the
      conflicting slots recur only every D iterations, the pair rotates
      M = min(D, N) ids with id = base + ((i - start) / step) % M, built
      from the loop's own start and step, so any start and step is right.
      Same-pipe V or M dependencies get a pipe_barrier instead.

   4. Event ids. During insertion every group has private virtual ids;
      afterwards each ordered pipe pair colours its groups' lifetimes
      (set..wait, or prime..drain of a loop) greedily in program order with
      the lowest free ids. When ids run out a group's rotation degrades
      N -> 2 -> 1, and then the group becomes a PIPE_ALL barrier (which
      orders at least as much); each is reported as a warning naming the
      tiles and pipes.

   5. Check. The analysis runs once more with the hardware ids: any
      unordered dependency or flag misuse now is an internal error. */

#define PTO__SY_ALLBITS 0x7f        /* the queues S..FIX; ALL is not a queue */
#define PTO__SY_PRESENT 0x80
#define PTO__SY_VBASE (1 << 20)     /* virtual ids of insertion rounds */
#define PTO__SY_REAL 512            /* 8 src x 8 dst x 8 ids */
#define PTO__SY_GRAN 32             /* conflicts are decided per 32-byte granule */
#define PTO__SY_MAXROT 8

enum { PTO__SY_RD = 1, PTO__SY_WR = 2 };
enum { PTO__SY_FWD, PTO__SY_LOOP, PTO__SY_BAR, PTO__SY_DEAD };
enum { PTO__SY_PRIME, PTO__SY_WAIT, PTO__SY_SET, PTO__SY_DRAIN, PTO__SY_BARRIER };
enum { PTO__SY_FIND, PTO__SY_CHECK };

typedef struct pto__sy_rec {
    int32_t stmt, opnd, slot;
    uint8_t pipe, rw, space;
    int64_t lo, hi;             /* local: byte range, end rounded to the granule */
} pto__sy_rec;

typedef struct pto__sy_grp {
    uint8_t kind, src, dst;
    int32_t nids;               /* rotation M (1 = a single id) */
    int32_t loop;               /* LOOP: the FOR statement */
    int32_t base;               /* hardware id base; -1 = none yet / fallback */
    int32_t arec, bstmt, bopnd; /* the dependency that made it */
    int32_t note;               /* interned dependency text */
} pto__sy_grp;

typedef struct pto__sy_ent {
    int32_t stmt;               /* -1 once removed */
    int32_t grp;
    int32_t ebase, emod;        /* INT exprs: id base (+k), rotation */
    int32_t k;                  /* prime/drain: which id of the rotation */
    uint8_t role;
} pto__sy_ent;

typedef struct pto__sy_st {
    int reached;
    uint8_t *rec;               /* per record: PRESENT | pipes it happens before */
    uint8_t *flag;              /* per id slot: 0 unset, 1 set, 2 set on some paths */
    uint8_t *cap;               /* per id slot: bitset of records its set captured */
} pto__sy_st;

typedef struct pto__sy {
    pto_ctx *ctx;
    pto_module *m;
    int32_t kernel;
    int ids_per_pair;
    pto_sync_stats stats;
    pto__sy_rec *recs;
    int32_t n_recs, cap_recs;
    int32_t *rec_of;            /* per operand: first record, or -1 */
    int32_t *tile_loop;         /* per tile: the FOR that rotates its slots, or -1 */
    int32_t *period, *phase, *pos, *ours;  /* per statement, rebuilt per analysis */
    uint8_t *off;               /* per statement: skipped by the analysis (sweep) */
    pto__sy_grp *grps;
    int32_t n_grps, cap_grps;
    pto__sy_ent *ents;
    int32_t n_ents, cap_ents;
    int32_t *seen;              /* dependencies placed so far: (record, operand) */
    int32_t n_seen, cap_seen;
    int32_t nslots, nkeys;
    int32_t *slotmap, *slotkey; /* key -> slot (-1 = unused), slot -> key */
    size_t capw;
    uint8_t *presa, *presb;     /* scratch for joins */
    int mode, stop;
    pto_status status;
    /* the dependency found by a FIND analysis */
    int found, h_fwd;
    int32_t h_rec, h_bstmt, h_bopnd, h_brec, h_apos;
} pto__sy;

/* ---- small helpers ------------------------------------------------------- */

static int pto__sy_inorder(int p) { return p != PTO_PIPE_V && p != PTO_PIPE_M; }
static int pto__sy_issync(int op)
{
    return op == PTO_OP_SET_FLAG || op == PTO_OP_WAIT_FLAG || op == PTO_OP_PIPE_BARRIER;
}
static int64_t pto__sy_gcd(int64_t a, int64_t b) { while (b) { int64_t t = a % b; a = b; b = t; } return a; }
static int64_t pto__sy_lcm(int64_t a, int64_t b) { return a / pto__sy_gcd(a, b) * b; }

static pto_loc pto__sy_noloc(void)
{
    pto_loc l;
    l.file = l.line = l.col = 0;
    return l;
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
        pto_error(sy->ctx, pto__sy_noloc(), "out of memory in the sync inserter");
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return NULL;
    }
    memset(p, 0, n);
    return p;
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

/* The ancestors-or-selves of a and b that share a block. */
static void pto__sy_lca(const pto_module *m, int32_t a, int32_t b, int32_t *pa, int32_t *pb)
{
    int da = pto__sy_depth(m, a), db = pto__sy_depth(m, b);
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

static int pto__sy_expr_eq(const pto_module *m, int32_t a, int32_t b)
{
    const pto_expr *x, *y;
    if (a == b) return 1;
    if (a < 0 || b < 0) return 0;
    x = &m->exprs[a];
    y = &m->exprs[b];
    if (x->kind != y->kind) return 0;
    if (x->kind == PTO_E_INT) return x->value == y->value;
    if (x->kind == PTO_E_VAR) return x->a == y->a;
    if (x->kind >= PTO_E_BLOCK && x->kind <= PTO_E_NRANKS) return 1;
    if (x->kind == PTO_E_NEG) return pto__sy_expr_eq(m, x->a, y->a);
    return pto__sy_expr_eq(m, x->a, y->a) && pto__sy_expr_eq(m, x->b, y->b);
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
    if (x->kind != PTO_E_SUB || m->exprs[x->a].kind != PTO_E_VAR) return 0;
    v = m->exprs[x->a].a;
    if (v < 0 || v >= m->n_vars || m->vars[v].kind != PTO_V_LOOP) return 0;
    L = m->vars[v].def;
    if (L < 0 || m->stmts[L].kind != PTO_ST_FOR) return 0;
    if (!pto__sy_expr_eq(m, x->b, m->stmts[L].e[0])) return 0;
    if (m->stmts[L].e[2] < 0 ? !(step < 0 || pto__sy_is_int(m, step, 1))
                             : !(pto__sy_expr_eq(m, step, m->stmts[L].e[2])
                                 || (step < 0 && pto__sy_is_int(m, m->stmts[L].e[2], 1))))
        return 0;
    *loop = L;
    return 1;
}

/* The event-id forms the analysis understands: INT, or
   INT + ((i - start) / step) % INT (what this pass writes). */
static int pto__sy_idform(const pto_module *m, int32_t e, int64_t *base, int64_t *mod, int32_t *loop)
{
    const pto_expr *x, *md;
    *base = 0;
    *mod = 1;
    *loop = -1;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    if (x->kind == PTO_E_INT) { *base = x->value; return 1; }
    if (x->kind != PTO_E_ADD || m->exprs[x->a].kind != PTO_E_INT) return 0;
    md = &m->exprs[x->b];
    if (md->kind != PTO_E_MOD || m->exprs[md->b].kind != PTO_E_INT) return 0;
    *base = m->exprs[x->a].value;
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

static pto_status pto__sy_add_records(pto__sy *sy, int32_t s)
{
    pto_module *m = sy->m;
    const pto_opinfo *oi = pto_opinfo_get((pto_op)m->stmts[s].op);
    uint8_t pipe = (uint8_t)pto_stmt_pipe(m, s);
    int i;
    for (i = 0; i < m->stmts[s].nargs && i < 4; i++) {
        int32_t o = m->stmts[s].arg0 + i, k, n = 1;
        const pto_operand *op = &m->operands[o];
        const pto_tile *t = NULL;
        uint8_t rw = (uint8_t)(((oi->arg[i] & PTO_A_READ) ? PTO__SY_RD : 0) | ((oi->arg[i] & PTO_A_WRITE) ? PTO__SY_WR : 0));
        if (!rw || (op->kind != PTO_O_TILE && op->kind != PTO_O_GM)) continue;
        if (op->kind == PTO_O_TILE) {
            if (op->ref < 0 || op->ref >= m->n_tiles) continue;
            t = &m->tiles[op->ref];
            if (!t->planned)
                return pto_error(sy->ctx, op->loc, "sync: tile '%s' is not planned (run the planner first)",
                                 pto_str(sy->ctx, t->name));
            n = t->nbuf < 1 ? 1 : t->nbuf > PTO_MAX_NBUF ? PTO_MAX_NBUF : t->nbuf;
        }
        sy->rec_of[o] = sy->n_recs;
        for (k = 0; k < n; k++) {
            int32_t r = PTO__PUSH(sy, recs);
            pto__sy_rec *rc;
            if (r < 0) return PTO_ERR_INTERNAL;
            rc = &sy->recs[r];
            rc->stmt = s;
            rc->opnd = o;
            rc->slot = k;
            rc->pipe = pipe;
            rc->rw = rw;
            rc->space = t ? t->space : (uint8_t)PTO_GM;
            rc->lo = t ? t->offset[k] : 0;
            rc->hi = t ? (t->offset[k] + pto_tile_bytes(t) + PTO__SY_GRAN - 1) / PTO__SY_GRAN * PTO__SY_GRAN : 0;
        }
    }
    return PTO_OK;
}

static pto_status pto__sy_build_records(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t s, t;
    sy->rec_of = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_operands + 1));
    sy->tile_loop = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_tiles + 1));
    if (!sy->rec_of || !sy->tile_loop) return PTO_ERR_INTERNAL;
    for (s = 0; s < m->n_operands; s++) sy->rec_of[s] = -1;
    for (t = 0; t < m->n_tiles; t++)
        sy->tile_loop[t] = (m->tiles[t].nbuf > 1 && m->tiles[t].decl >= 0) ? pto_stmt_loop(m, m->tiles[t].decl) : -1;
    for (s = 0; s < m->n_stmts; s++) {
        pto_status st;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0 || pto__sy_issync(m->stmts[s].op)) continue;
        if (m->blocks[m->stmts[s].block].kernel != sy->kernel) continue;
        st = pto__sy_add_records(sy, s);
        if (st != PTO_OK) return st;
    }
    return PTO_OK;
}

/* The record an operand touches now (its tile's slot in the current phase). */
static int32_t pto__sy_rec_now(const pto__sy *sy, int32_t o)
{
    const pto_operand *op = &sy->m->operands[o];
    int32_t r = sy->rec_of[o];
    if (r < 0) return -1;
    if (op->kind == PTO_O_TILE) {
        const pto_tile *t = &sy->m->tiles[op->ref];
        int32_t L = sy->tile_loop[op->ref];
        if (t->nbuf > 1 && L >= 0) r += sy->phase[L] % t->nbuf;
    }
    return r;
}

/* ---- analysis state --------------------------------------------------------- */

static size_t pto__sy_st_bytes(const pto__sy *sy)
{
    return (size_t)sy->n_recs + (size_t)sy->nslots + (size_t)sy->nslots * sy->capw;
}

/* A state buffer; zeroed only when asked (most are copied over at once,
   and an unreached state is never read). */
static int pto__sy_st_init(pto__sy *sy, pto__sy_st *st, int zero)
{
    uint8_t *p = (uint8_t *)pto_alloc(sy->ctx, pto__sy_st_bytes(sy));
    if (!p) {
        pto_error(sy->ctx, pto__sy_noloc(), "out of memory in the sync inserter");
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
    } else if (zero) {
        memset(p, 0, pto__sy_st_bytes(sy));
    }
    st->reached = 0;
    st->rec = p;
    st->flag = p ? p + sy->n_recs : NULL;
    st->cap = p ? st->flag + sy->nslots : NULL;
    return p != NULL;
}

static void pto__sy_st_free(pto__sy *sy, pto__sy_st *st)
{
    pto_free(sy->ctx, st->rec);
    st->rec = st->flag = st->cap = NULL;
}

static void pto__sy_st_copy(const pto__sy *sy, pto__sy_st *dst, const pto__sy_st *src)
{
    dst->reached = src->reached;
    memcpy(dst->rec, src->rec, pto__sy_st_bytes(sy));
}

static void pto__sy_pres(const pto__sy *sy, const pto__sy_st *st, uint8_t *bits)
{
    int32_t r;
    memset(bits, 0, sy->capw);
    for (r = 0; r < sy->n_recs; r++)
        if (st->rec[r] & PTO__SY_PRESENT) bits[r >> 3] |= (uint8_t)(1u << (r & 7));
}

/* dst = dst joined with src (paths merging); returns whether dst changed. A
   record absent on one path was not accessed there, so the other path's
   knowledge stands; a captured bit holds when it holds on every path where
   the record exists. */
static int pto__sy_join(pto__sy *sy, pto__sy_st *dst, const pto__sy_st *src)
{
    int changed = 0;
    int32_t r, f;
    size_t i;
    if (!src->reached) return 0;
    if (!dst->reached) { pto__sy_st_copy(sy, dst, src); return 1; }
    pto__sy_pres(sy, dst, sy->presa);
    pto__sy_pres(sy, src, sy->presb);
    for (f = 0; f < sy->nslots; f++) {
        uint8_t nf = dst->flag[f] == src->flag[f] ? dst->flag[f] : 2;
        if (nf != dst->flag[f]) { dst->flag[f] = nf; changed = 1; }
        if (nf != 1) continue;
        for (i = 0; i < sy->capw; i++) {
            uint8_t *cd = &dst->cap[(size_t)f * sy->capw + i];
            uint8_t cs = src->cap[(size_t)f * sy->capw + i];
            uint8_t nc = (uint8_t)((*cd | (uint8_t)~sy->presa[i]) & (cs | (uint8_t)~sy->presb[i])
                                   & (sy->presa[i] | sy->presb[i]));
            if (nc != *cd) { *cd = nc; changed = 1; }
        }
    }
    for (r = 0; r < sy->n_recs; r++) {
        uint8_t s = src->rec[r], d = dst->rec[r], nd;
        if (!(s & PTO__SY_PRESENT)) continue;
        nd = (d & PTO__SY_PRESENT) ? (uint8_t)(PTO__SY_PRESENT | (d & s & PTO__SY_ALLBITS)) : s;
        if (nd != d) { dst->rec[r] = nd; changed = 1; }
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

/* "tload a (vadd.pto:8)": the op, its first operand, where it is. */
static void pto__sy_label(const pto__sy *sy, int32_t s, pto_buf *b)
{
    const pto_module *m = sy->m;
    const pto_operand *o = pto_stmt_arg(m, s, 0);
    pto_buf_puts(b, pto_opinfo_get((pto_op)m->stmts[s].op)->name);
    if (o && o->kind == PTO_O_TILE && o->ref >= 0) pto_buf_printf(b, " %s", pto_str(sy->ctx, m->tiles[o->ref].name));
    if (o && o->kind == PTO_O_GM && o->ref >= 0) pto_buf_printf(b, " %s", pto_str(sy->ctx, m->params[o->ref].name));
    pto_buf_printf(b, " (%s:%d)", pto__sy_base(pto_file_name(sy->ctx, m->stmts[s].loc.file)), (int)m->stmts[s].loc.line);
}

static const char *pto__sy_kind(uint8_t arw, uint8_t brw)
{
    if (arw & PTO__SY_WR) return (brw & PTO__SY_RD) ? "RAW" : "WAW";
    return "WAR";
}

/* "RAW vec[0x0000,0x2000) tload a (vadd.pto:8) -> tadd c (vadd.pto:10)" */
static int32_t pto__sy_dep_note(pto__sy *sy, int32_t ra, int32_t rb, int carried)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    pto_buf buf;
    int32_t id;
    memset(&buf, 0, sizeof buf);
    buf.ctx = sy->ctx;
    pto_buf_printf(&buf, "%s ", pto__sy_kind(a->rw, b->rw));
    if (a->space == PTO_GM)
        pto_buf_printf(&buf, "gm %s ", pto_str(sy->ctx, sy->m->params[sy->m->operands[a->opnd].ref].name));
    else
        pto_buf_printf(&buf, "%s[0x%04llx,0x%04llx) ", pto_space_name((pto_space)a->space),
                       (unsigned long long)(a->lo > b->lo ? a->lo : b->lo),
                       (unsigned long long)(a->hi < b->hi ? a->hi : b->hi));
    pto__sy_label(sy, a->stmt, &buf);
    pto_buf_puts(&buf, carried ? " -> next " : " -> ");
    pto__sy_label(sy, b->stmt, &buf);
    id = buf.oom ? 0 : pto_intern(sy->ctx, buf.data, buf.len);
    pto_buf_free(&buf);
    return id;
}

static int32_t pto__sy_prefixed(pto__sy *sy, const char *prefix, int32_t note)
{
    pto_buf buf;
    int32_t id;
    if (!prefix) return note;
    memset(&buf, 0, sizeof buf);
    buf.ctx = sy->ctx;
    pto_buf_printf(&buf, "%s%s", prefix, pto_str(sy->ctx, note));
    id = buf.oom ? note : pto_intern(sy->ctx, buf.data, buf.len);
    pto_buf_free(&buf);
    return id;
}

/* ---- the transfer functions ------------------------------------------------- */

static void pto__sy_misuse(pto__sy *sy, int32_t s, const char *what)
{
    pto_module *m = sy->m;
    const pto_operand *id = pto_stmt_arg(m, s, 2);
    pto_error(sy->ctx, m->stmts[s].loc, "sync: %s (%s %s -> %s, id expression %d)", what,
              pto_opinfo_get((pto_op)m->stmts[s].op)->name,
              pto_pipe_name((pto_pipe)pto_stmt_arg(m, s, 0)->ref), pto_pipe_name((pto_pipe)pto_stmt_arg(m, s, 1)->ref),
              id ? (int)id->e[0] : -1);
    pto__sy_fail(sy, PTO_ERR_INTERNAL);
}

/* Event ids are keyed (src, dst, id) for hardware ids, and by the id alone
   for the virtual ids of insertion rounds; only the keys some statement
   uses get a slot in the state. */
static int64_t pto__sy_key(const pto__sy *sy, int p, int q, int64_t id)
{
    if (p < 0 || p >= PTO_PIPE_ALL || q < 0 || q >= PTO_PIPE_ALL) return -1;
    if (id >= PTO__SY_VBASE) return id - PTO__SY_VBASE + PTO__SY_REAL < sy->nkeys ? id - PTO__SY_VBASE + PTO__SY_REAL : -1;
    if (id < 0 || id > 7) return -1;
    return (p * 8 + q) * 8 + id;
}

/* The id slot of a set/wait in the current phase, or -1. */
static int32_t pto__sy_slot(pto__sy *sy, int32_t s, int *p, int *q)
{
    const pto_module *m = sy->m;
    const pto_operand *a = pto_stmt_arg(m, s, 0), *b = pto_stmt_arg(m, s, 1), *c = pto_stmt_arg(m, s, 2);
    int64_t base, mod, id;
    int32_t L;
    if (!a || !b || !c || a->kind != PTO_O_PIPE || b->kind != PTO_O_PIPE || c->kind != PTO_O_INT) return -1;
    *p = a->ref;
    *q = b->ref;
    if (*p < 0 || *p >= PTO_PIPE_ALL || *q < 0 || *q >= PTO_PIPE_ALL || *p == *q) return -1;
    if (!pto__sy_idform(m, c->e[0], &base, &mod, &L)) return -1;
    id = base + (L >= 0 ? sy->phase[L] % mod : 0);
    id = pto__sy_key(sy, *p, *q, id);
    return id < 0 ? -1 : sy->slotmap[id];
}

static void pto__sy_syncop(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    int p = 0, q = 0;
    int32_t r, f;
    uint8_t *cap;
    if (m->stmts[s].op == PTO_OP_PIPE_BARRIER) {
        const pto_operand *a = pto_stmt_arg(m, s, 0);
        int P = a ? a->ref : -1;
        for (r = 0; r < sy->n_recs; r++) {
            if (!(st->rec[r] & PTO__SY_PRESENT)) continue;
            if (P == PTO_PIPE_ALL) st->rec[r] |= PTO__SY_ALLBITS;
            else if (sy->recs[r].pipe == P) st->rec[r] |= (uint8_t)(1u << P);
        }
        return;
    }
    f = pto__sy_slot(sy, s, &p, &q);
    if (f < 0) { pto__sy_misuse(sy, s, "cannot analyse this event id"); return; }
    cap = &st->cap[(size_t)f * sy->capw];
    if (m->stmts[s].op == PTO_OP_SET_FLAG) {
        if (st->flag[f] != 0) { pto__sy_misuse(sy, s, "event id set while it may still be set"); return; }
        st->flag[f] = 1;
        memset(cap, 0, sy->capw);
        for (r = 0; r < sy->n_recs; r++)
            if ((st->rec[r] & PTO__SY_PRESENT) && ((st->rec[r] & (1u << p)) || sy->recs[r].pipe == p))
                cap[r >> 3] |= (uint8_t)(1u << (r & 7));
    } else {
        if (st->flag[f] != 1) { pto__sy_misuse(sy, s, "wait on an event id that may not be set"); return; }
        st->flag[f] = 0;
        for (r = 0; r < sy->n_recs; r++)
            if (cap[r >> 3] & (1u << (r & 7))) st->rec[r] |= (uint8_t)(1u << q);
        memset(cap, 0, sy->capw);
    }
}

/* Position of the statement that is the dependency's source, for choosing
   among several: same-iteration ones first, then the latest. */
static int pto__sy_is_forward(const pto__sy *sy, int32_t a, int32_t b)
{
    int32_t pa, pb;
    pto__sy_lca(sy->m, a, b, &pa, &pb);
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

static void pto__sy_access(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    int q = pto_stmt_pipe(m, s);
    int32_t i, o, r, r2, f;
    for (i = 0; i < m->stmts[s].nargs; i++) {
        o = m->stmts[s].arg0 + i;
        if ((r = pto__sy_rec_now(sy, o)) < 0) continue;
        for (r2 = 0; r2 < sy->n_recs; r2++) {
            if (!(st->rec[r2] & PTO__SY_PRESENT) || !pto__sy_conflict(sy, r2, r)) continue;
            if ((st->rec[r2] & (1u << q)) || (sy->recs[r2].pipe == q && pto__sy_inorder(q))) continue;
            pto__sy_hazard(sy, r2, s, o, r);
            if (sy->stop) return;
        }
    }
    if (sy->found) { sy->stop = 1; return; }
    for (i = 0; i < m->stmts[s].nargs; i++) {
        o = m->stmts[s].arg0 + i;
        if ((r = pto__sy_rec_now(sy, o)) < 0) continue;
        st->rec[r] = PTO__SY_PRESENT;
        /* a new instance: sets still pending captured the old one only */
        for (f = 0; f < sy->nslots; f++)
            if (st->flag[f]) st->cap[(size_t)f * sy->capw + (r >> 3)] &= (uint8_t)~(1u << (r & 7));
    }
}

static void pto__sy_block(pto__sy *sy, int32_t b, pto__sy_st *st);

static void pto__sy_loop(pto__sy *sy, int32_t L, pto__sy_st *st)
{
    int32_t P = sy->period[L], ph;
    pto__sy_st *heads, work;
    int changed = 1;
    heads = (pto__sy_st *)pto__sy_zalloc(sy, sizeof(pto__sy_st) * (size_t)P);
    if (!heads) return;
    for (ph = 0; ph < P; ph++)
        if (!pto__sy_st_init(sy, &heads[ph], 0)) break;
    if (ph == P && pto__sy_st_init(sy, &work, 0)) {
        pto__sy_st_copy(sy, &heads[0], st);
        while (changed && !sy->stop) {
            changed = 0;
            for (ph = 0; ph < P && !sy->stop; ph++) {
                if (!heads[ph].reached) continue;
                sy->phase[L] = ph;
                pto__sy_st_copy(sy, &work, &heads[ph]);
                pto__sy_block(sy, sy->m->stmts[L].body, &work);
                if (!sy->stop) changed |= pto__sy_join(sy, &heads[(ph + 1) % P], &work);
            }
        }
        /* the loop may exit at the head of any iteration */
        for (ph = 0; ph < P; ph++) pto__sy_join(sy, st, &heads[ph]);
        pto__sy_st_free(sy, &work);
    }
    for (ph = 0; ph < P; ph++) pto__sy_st_free(sy, &heads[ph]);
    pto_free(sy->ctx, heads);
    sy->phase[L] = 0;
}

static void pto__sy_if(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    pto__sy_st other;
    if (!pto__sy_st_init(sy, &other, 0)) return;
    pto__sy_st_copy(sy, &other, st);
    pto__sy_block(sy, sy->m->stmts[s].body, st);
    if (!sy->stop && sy->m->stmts[s].orelse >= 0) pto__sy_block(sy, sy->m->stmts[s].orelse, &other);
    if (!sy->stop) pto__sy_join(sy, st, &other);
    pto__sy_st_free(sy, &other);
}

static void pto__sy_block(pto__sy *sy, int32_t b, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    int32_t s;
    for (s = m->blocks[b].head; s >= 0 && !sy->stop; s = m->stmts[s].next) {
        switch (m->stmts[s].kind) {
        case PTO_ST_OP:
            if (sy->off && sy->off[s]) break;   /* a group on trial removal */
            if (pto__sy_issync(m->stmts[s].op)) pto__sy_syncop(sy, s, st);
            else pto__sy_access(sy, s, st);
            break;
        case PTO_ST_FOR: pto__sy_loop(sy, s, st); break;
        case PTO_ST_IF: pto__sy_if(sy, s, st); break;
        default: break;   /* tiles, lets; a SECTION is its own core program */
        }
    }
}

/* ---- analysis driver ------------------------------------------------------------ */

static void pto__sy_number(pto__sy *sy, int32_t b, int32_t *n)
{
    const pto_module *m = sy->m;
    int32_t s;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        sy->pos[s] = (*n)++;
        if (m->stmts[s].body >= 0) pto__sy_number(sy, m->stmts[s].body, n);
        if (m->stmts[s].orelse >= 0) pto__sy_number(sy, m->stmts[s].orelse, n);
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
    pto__sy_number(sy, m->kernels[sy->kernel].body, &zero);
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

static void pto__sy_program(pto__sy *sy, int32_t b)
{
    pto__sy_st st;
    int32_t f;
    if (!pto__sy_st_init(sy, &st, 1)) return;
    st.reached = 1;
    pto__sy_block(sy, b, &st);
    for (f = 0; f < sy->nslots && !sy->stop; f++)
        if (st.flag[f]) {
            int32_t key = sy->slotkey[f];
            if (key < PTO__SY_REAL)
                pto_error(sy->ctx, sy->m->kernels[sy->kernel].loc, "sync: event id %s -> %s %d may be left set at kernel end",
                          pto_pipe_name((pto_pipe)(key / 64)), pto_pipe_name((pto_pipe)(key / 8 % 8)), (int)(key % 8));
            else
                pto_error(sy->ctx, sy->m->kernels[sy->kernel].loc, "sync: internal: flag group %d left set at kernel end",
                          (int)((key - PTO__SY_REAL) / PTO__SY_MAXROT));
            pto__sy_fail(sy, PTO_ERR_INTERNAL);
        }
    pto__sy_st_free(sy, &st);
}

/* Gives a slot to every event-id key that a set or wait of the kernel uses. */
static int pto__sy_slots(pto__sy *sy)
{
    const pto_module *m = sy->m;
    int32_t s, L;
    int64_t base, mod, i, key;
    pto_free(sy->ctx, sy->slotmap);
    pto_free(sy->ctx, sy->slotkey);
    sy->slotmap = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)sy->nkeys);
    sy->slotkey = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)sy->nkeys);
    if (!sy->slotmap || !sy->slotkey) return 0;
    for (i = 0; i < sy->nkeys; i++) sy->slotmap[i] = -1;
    sy->nslots = 0;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_operand *a, *b, *c;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0) continue;
        if (m->stmts[s].op != PTO_OP_SET_FLAG && m->stmts[s].op != PTO_OP_WAIT_FLAG) continue;
        if (m->blocks[m->stmts[s].block].kernel != sy->kernel) continue;
        a = pto_stmt_arg(m, s, 0);
        b = pto_stmt_arg(m, s, 1);
        c = pto_stmt_arg(m, s, 2);
        if (!a || !b || !c || c->kind != PTO_O_INT || !pto__sy_idform(m, c->e[0], &base, &mod, &L)) continue;
        for (i = base; i < base + mod; i++) {
            key = pto__sy_key(sy, a->ref, b->ref, i);
            if (key < 0 || sy->slotmap[key] >= 0) continue;
            sy->slotkey[sy->nslots] = (int32_t)key;
            sy->slotmap[key] = sy->nslots++;
        }
    }
    return 1;
}

/* Runs the analysis over every core program of the kernel. FIND stops at
   the first uncovered dependency; CHECK reports it as an internal error. */
static void pto__sy_analyse(pto__sy *sy, int mode)
{
    pto_module *m = sy->m;
    int32_t body = m->kernels[sy->kernel].body, s;
    sy->mode = mode;
    sy->found = 0;
    sy->stats.rounds++;
    sy->nkeys = PTO__SY_REAL + (mode == PTO__SY_FIND ? PTO__SY_MAXROT * sy->n_grps : 0);
    sy->capw = ((size_t)sy->n_recs + 7) / 8 + 1;
    pto_free(sy->ctx, sy->presa);
    pto_free(sy->ctx, sy->presb);
    sy->presa = (uint8_t *)pto__sy_zalloc(sy, sy->capw);
    sy->presb = (uint8_t *)pto__sy_zalloc(sy, sy->capw);
    if (!sy->presa || !sy->presb || !pto__sy_tables(sy) || !pto__sy_slots(sy)) return;
    pto__sy_program(sy, body);
    for (s = m->blocks[body].head; s >= 0 && !sy->stop; s = m->stmts[s].next)
        if (m->stmts[s].kind == PTO_ST_SECTION) pto__sy_program(sy, m->stmts[s].body);
}

/* ---- insertion ------------------------------------------------------------------- */

static int32_t pto__sy_idexpr(pto__sy *sy, int32_t L, int64_t base, int32_t nids, int32_t *ebase, int32_t *emod)
{
    pto_module *m = sy->m;
    pto_loc loc = L >= 0 ? m->stmts[L].loc : pto__sy_noloc();
    int32_t v, e, step;
    *ebase = pto_expr_int(m, base, loc);
    *emod = -1;
    if (L < 0 || nids <= 1 || *ebase < 0) return *ebase;
    v = pto_expr_var(m, m->stmts[L].ref, loc);
    e = pto_expr_bin(m, PTO_E_SUB, v, m->stmts[L].e[0], loc);
    step = m->stmts[L].e[2];
    if (step >= 0 && !pto__sy_is_int(m, step, 1)) e = pto_expr_bin(m, PTO_E_DIV, e, step, loc);
    *emod = pto_expr_int(m, nids, loc);
    e = pto_expr_bin(m, PTO_E_MOD, e, *emod, loc);
    return pto_expr_bin(m, PTO_E_ADD, *ebase, e, loc);
}

/* A new sync statement placed before (after = 0) or after `at`. */
static int32_t pto__sy_emit(pto__sy *sy, int32_t g, uint8_t role, int32_t at, int after, int32_t k)
{
    pto_module *m = sy->m;
    pto__sy_grp *gr = &sy->grps[g];
    int barrier = role == PTO__SY_BARRIER;
    int rot = (role == PTO__SY_WAIT || role == PTO__SY_SET) && gr->kind == PTO__SY_LOOP;
    int32_t ebase = -1, emod = -1, expr = -1, s, en;
    pto_op op = barrier ? PTO_OP_PIPE_BARRIER : (role == PTO__SY_SET || role == PTO__SY_PRIME) ? PTO_OP_SET_FLAG : PTO_OP_WAIT_FLAG;
    static const char *const prefix[] = {"prime: ", NULL, NULL, "drain: ", NULL};
    if (!barrier) {
        int64_t vb = (int64_t)PTO__SY_VBASE + (int64_t)PTO__SY_MAXROT * g + (k > 0 ? k : 0);
        expr = pto__sy_idexpr(sy, rot ? gr->loop : -1, vb, rot ? gr->nids : 1, &ebase, &emod);
        if (expr < 0) return -1;
    }
    s = pto_new_stmt(m, PTO_ST_OP, m->stmts[at].loc);
    if (s < 0) return -1;
    m->stmts[s].op = (uint16_t)op;
    m->stmts[s].origin = PTO_BY_SYNC;
    m->stmts[s].core = m->stmts[at].core;
    m->stmts[s].note = pto__sy_prefixed(sy, prefix[role], gr->note);
    if (barrier) {
        if (pto_arg_pipe(m, s, (pto_pipe)gr->dst, m->stmts[at].loc) < 0) return -1;
    } else if (pto_arg_pipe(m, s, (pto_pipe)gr->src, m->stmts[at].loc) < 0
               || pto_arg_pipe(m, s, (pto_pipe)gr->dst, m->stmts[at].loc) < 0
               || pto_arg_int(m, s, expr, m->stmts[at].loc) < 0) {
        return -1;
    }
    if (after) pto_insert_after(m, at, s);
    else pto_insert_before(m, at, s);
    en = PTO__PUSH(sy, ents);
    if (en < 0) return -1;
    sy->ents[en].stmt = s;
    sy->ents[en].grp = g;
    sy->ents[en].ebase = ebase;
    sy->ents[en].emod = emod;
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
        for (ph = 0; ph < per; ph++)
            for (i = 0; i < na; i++)
                for (j = 0; j < nb; j++) {
                    if (rota && i != ph % na) continue;
                    if (rotb && j != (ph + d) % nb) continue;
                    if (pto__sy_conflict(sy, r0a + i, r0b + j)) return d;
                }
    return nmax;
}

static int32_t pto__sy_new_group(pto__sy *sy, uint8_t kind, int src, int dst, int32_t L, int32_t nids, int carried)
{
    int32_t g = PTO__PUSH(sy, grps);
    pto__sy_grp *gr;
    if (g < 0) return -1;
    gr = &sy->grps[g];
    gr->kind = kind;
    gr->src = (uint8_t)src;
    gr->dst = (uint8_t)dst;
    gr->loop = L;
    gr->nids = nids;
    gr->base = -1;
    gr->arec = sy->h_rec;
    gr->bstmt = sy->h_bstmt;
    gr->bopnd = sy->h_bopnd;
    gr->note = pto__sy_dep_note(sy, sy->h_rec, sy->h_brec, carried);
    return g;
}

/* Orders the dependency the last FIND analysis reported. */
static pto_status pto__sy_place(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t a = sy->recs[sy->h_rec].stmt, b = sy->h_bstmt, pa, pb, L = -1, as, bs, g, k, M = 1;
    int p = sy->recs[sy->h_rec].pipe, q = pto_stmt_pipe(m, b), ok = 1;
    pto__sy_lca(m, a, b, &pa, &pb);
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
        if (g < 0 || pto__sy_emit(sy, g, PTO__SY_BARRIER, pb, 0, -1) < 0) return PTO_ERR_INTERNAL;
        sy->stats.barriers++;
        return PTO_OK;
    }
    if (!sy->h_fwd) M = pto__sy_rotation(sy, L, sy->h_rec, sy->h_brec);
    g = pto__sy_new_group(sy, sy->h_fwd ? PTO__SY_FWD : PTO__SY_LOOP, p, q, L, M, !sy->h_fwd);
    if (g < 0) return PTO_ERR_INTERNAL;
    as = pto__sy_emit(sy, g, PTO__SY_SET, pa, 1, -1);
    bs = pto__sy_emit(sy, g, PTO__SY_WAIT, pb, 0, -1);
    ok = as >= 0 && bs >= 0;
    for (k = 0; ok && L >= 0 && k < M; k++)
        ok = pto__sy_emit(sy, g, PTO__SY_PRIME, L, 0, k) >= 0 && pto__sy_emit(sy, g, PTO__SY_DRAIN, L, 1, M - 1 - k) >= 0;
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
    int32_t e;
    char tiles[160];
    pto__sy_tiles(sy, gr, tiles, sizeof tiles);
    pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                "sync: out of event ids for %s -> %s: %d ids rotate instead of %d for %s: %s",
                pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), (int)M, (int)gr->nids, tiles,
                pto_str(sy->ctx, gr->note));
    for (e = 0; e < sy->n_ents; e++) {
        if (sy->ents[e].grp != g || sy->ents[e].stmt < 0) continue;
        if (sy->ents[e].emod >= 0) sy->m->exprs[sy->ents[e].emod].value = M;
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
        if (sy->ents[e].role == PTO__SY_WAIT && pto__sy_emit(sy, g, PTO__SY_BARRIER, s, 0, -1) < 0) return PTO_ERR_INTERNAL;
        if (sy->ents[e].role == PTO__SY_DRAIN && sy->ents[e].k == 0
            && pto__sy_emit(sy, g, PTO__SY_BARRIER, gr->loop, 1, -1) < 0)
            return PTO_ERR_INTERNAL;
    }
    for (e = 0; e < n; e++)   /* the pair's own statements, not the new barriers */
        if (sy->ents[e].grp == g) pto__sy_unlink_ent(sy, e);
    sy->stats.fallbacks++;
    return PTO_OK;
}

/* Ids already used by sync statements this run did not make are reserved
   for the whole kernel. */
static void pto__sy_reserved(pto__sy *sy, uint8_t used[8][8])
{
    const pto_module *m = sy->m;
    int32_t s, e;
    memset(used, 0, 64);
    for (e = 0; e < sy->n_ents; e++)
        if (sy->ents[e].stmt >= 0) sy->ours[sy->ents[e].stmt] = 1;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_operand *a, *b, *c;
        int64_t base, mod, i;
        int32_t L;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0 || sy->ours[s]) continue;
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

/* Colours the lifetimes of the flag groups of one kernel with hardware ids,
   pair by pair, greedily in program order (optimal for intervals). */
static pto_status pto__sy_assign(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t *lo, *hi, *order, g, e, i, j, n = 0;
    uint8_t used[8][8];
    int32_t busy[8][8][8];
    pto_status st = PTO_OK;
    if (!pto__sy_tables(sy)) return PTO_ERR_INTERNAL;
    pto_free(sy->ctx, sy->ours);
    sy->ours = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)m->n_stmts + 1));
    lo = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_grps + 1));
    hi = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_grps + 1));
    order = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * ((size_t)sy->n_grps + 1));
    if (!sy->ours || !lo || !hi || !order) st = PTO_ERR_INTERNAL;
    for (g = 0; st == PTO_OK && g < sy->n_grps; g++) {
        lo[g] = 0x7fffffff;
        hi[g] = -1;
        if (sy->grps[g].kind == PTO__SY_BAR || sy->grps[g].kind == PTO__SY_DEAD) continue;
        for (e = 0; e < sy->n_ents; e++) {
            if (sy->ents[e].grp != g || sy->ents[e].stmt < 0) continue;
            if (sy->pos[sy->ents[e].stmt] < lo[g]) lo[g] = sy->pos[sy->ents[e].stmt];
            if (sy->pos[sy->ents[e].stmt] > hi[g]) hi[g] = sy->pos[sy->ents[e].stmt];
        }
        for (i = n++; i > 0 && (lo[order[i - 1]] > lo[g]); i--) order[i] = order[i - 1];
        order[i] = g;
    }
    if (st == PTO_OK) pto__sy_reserved(sy, used);
    for (i = 0; i < 8; i++)
        for (j = 0; j < 64; j++) busy[i][j / 8][j % 8] = -1;
    for (i = 0; st == PTO_OK && i < n; i++) {
        pto__sy_grp *gr = &sy->grps[order[i]];
        int32_t lim = pto__sy_limit(sy, gr->src, gr->dst), M = gr->nids, base;
        int32_t *bz = busy[gr->src][gr->dst];
        base = pto__sy_first_free(bz, used[gr->src][gr->dst], lo[order[i]], M, lim);
        while (base < 0 && M > 1) {
            M = M > 2 ? 2 : 1;
            base = pto__sy_first_free(bz, used[gr->src][gr->dst], lo[order[i]], M, lim);
        }
        if (base < 0) { st = pto__sy_fallback(sy, order[i]); continue; }
        if (M < gr->nids) pto__sy_degrade(sy, order[i], M);
        gr->base = base;
        for (j = base; j < base + M; j++) bz[j] = hi[order[i]];
    }
    for (e = 0; st == PTO_OK && e < sy->n_ents; e++) {
        pto__sy_ent *en = &sy->ents[e];
        if (en->stmt >= 0 && en->ebase >= 0 && sy->grps[en->grp].base >= 0)
            m->exprs[en->ebase].value = sy->grps[en->grp].base + (en->k > 0 ? en->k : 0);
    }
    pto_free(sy->ctx, lo);
    pto_free(sy->ctx, hi);
    pto_free(sy->ctx, order);
    return st;
}

/* ---- driver ----------------------------------------------------------------------- */

static int pto__sy_seen(pto__sy *sy)
{
    int32_t i, n;
    for (i = 0; i + 1 < sy->n_seen; i += 2)
        if (sy->seen[i] == sy->h_rec && sy->seen[i + 1] == sy->h_bopnd) return 1;
    n = PTO__PUSH(sy, seen);
    if (n >= 0) sy->seen[n] = sy->h_rec;
    n = PTO__PUSH(sy, seen);
    if (n >= 0) sy->seen[n] = sy->h_bopnd;
    return 0;
}

/* A group placed early can be implied by groups placed after it (a barrier
   for a carried dependency also orders the first iteration). Each group in
   turn is switched off; if the analysis then finds nothing unordered, it
   goes. What remains is each needed given the others. */
static pto_status pto__sy_sweep(pto__sy *sy)
{
    int32_t g, e;
    sy->off = (uint8_t *)pto__sy_zalloc(sy, (size_t)sy->m->n_stmts + 1);
    if (!sy->off) return PTO_ERR_INTERNAL;
    for (g = 0; g < sy->n_grps && sy->status == PTO_OK; g++) {
        for (e = 0; e < sy->n_ents; e++)
            if (sy->ents[e].grp == g && sy->ents[e].stmt >= 0) sy->off[sy->ents[e].stmt] = 1;
        pto__sy_analyse(sy, PTO__SY_FIND);
        sy->stop = 0;
        for (e = 0; e < sy->n_ents; e++) {
            if (sy->ents[e].grp != g || sy->ents[e].stmt < 0) continue;
            sy->off[sy->ents[e].stmt] = 0;
            if (!sy->found) pto__sy_unlink_ent(sy, e);
        }
        if (sy->found) continue;
        if (sy->grps[g].kind == PTO__SY_BAR) sy->stats.barriers--;
        else {
            sy->stats.flag_pairs--;
            if (sy->grps[g].nids > 1) sy->stats.rotating--;
        }
        sy->grps[g].kind = PTO__SY_DEAD;
    }
    pto_free(sy->ctx, sy->off);
    sy->off = NULL;
    return sy->status;
}

static pto_status pto__sy_kernel(pto__sy *sy)
{
    pto_status st = pto__sy_build_records(sy);
    if (st != PTO_OK) return st;
    for (;;) {
        pto__sy_analyse(sy, PTO__SY_FIND);
        if (sy->status != PTO_OK) return sy->status;
        if (!sy->found) break;
        sy->stop = 0;
        if (pto__sy_seen(sy)) {
            pto_error(sy->ctx, sy->m->stmts[sy->h_bstmt].loc, "sync: internal: could not order %s",
                      pto_str(sy->ctx, pto__sy_dep_note(sy, sy->h_rec, sy->h_brec, !sy->h_fwd)));
            return PTO_ERR_INTERNAL;
        }
        if ((st = pto__sy_place(sy)) != PTO_OK) return st;
        if (sy->grps[sy->n_grps - 1].kind != PTO__SY_BAR) {
            sy->stats.flag_pairs++;
            if (sy->grps[sy->n_grps - 1].nids > 1) sy->stats.rotating++;
        }
    }
    if ((st = pto__sy_sweep(sy)) != PTO_OK) return st;
    if ((st = pto__sy_assign(sy)) != PTO_OK) return st;
    pto__sy_analyse(sy, PTO__SY_CHECK);
    return sy->status;
}

static void pto__sy_reset(pto__sy *sy)
{
    pto_ctx *ctx = sy->ctx;
    pto_free(ctx, sy->recs);
    pto_free(ctx, sy->rec_of);
    pto_free(ctx, sy->tile_loop);
    pto_free(ctx, sy->period);
    pto_free(ctx, sy->phase);
    pto_free(ctx, sy->pos);
    pto_free(ctx, sy->ours);
    pto_free(ctx, sy->grps);
    pto_free(ctx, sy->ents);
    pto_free(ctx, sy->seen);
    pto_free(ctx, sy->presa);
    pto_free(ctx, sy->presb);
    pto_free(ctx, sy->slotmap);
    pto_free(ctx, sy->slotkey);
    sy->slotmap = sy->slotkey = NULL;
    sy->recs = NULL;
    sy->rec_of = sy->tile_loop = sy->period = sy->phase = sy->pos = sy->ours = sy->seen = NULL;
    sy->grps = NULL;
    sy->ents = NULL;
    sy->presa = sy->presb = NULL;
    sy->n_recs = sy->cap_recs = sy->n_grps = sy->cap_grps = 0;
    sy->n_ents = sy->cap_ents = sy->n_seen = sy->cap_seen = 0;
}

PTODEF pto_status pto_sync(pto_ctx *ctx, pto_module *m, const pto_sync_desc *desc)
{
    pto__sy sy;
    pto_status st = PTO_OK;
    int32_t k;
    memset(&sy, 0, sizeof sy);
    sy.ctx = ctx;
    sy.m = m;
    sy.ids_per_pair = desc && desc->ids_per_pair > 0 ? (desc->ids_per_pair > 8 ? 8 : desc->ids_per_pair) : 8;
    for (k = 0; k < m->n_kernels && st == PTO_OK; k++) {
        sy.kernel = k;
        sy.status = PTO_OK;
        sy.stop = 0;
        st = pto__sy_kernel(&sy);
        pto__sy_reset(&sy);
    }
    if (desc && desc->stats) *desc->stats = sy.stats;
    return st;
}

/* ---- dump ------------------------------------------------------------------------------ */

static void pto__sy_expr(const pto_module *m, int32_t e, pto_buf *b)
{
    static const char *const ops[] = {"+", "-", "*", "/", "%"};
    const pto_expr *x;
    if (e < 0 || e >= m->n_exprs) { pto_buf_puts(b, "?"); return; }
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: pto_buf_printf(b, "%lld", (long long)x->value); return;
    case PTO_E_VAR: pto_buf_puts(b, pto_str(m->ctx, m->vars[x->a].name)); return;
    case PTO_E_BLOCK: pto_buf_puts(b, "block"); return;
    case PTO_E_BLOCKS: pto_buf_puts(b, "blocks"); return;
    case PTO_E_SUBBLOCK: pto_buf_puts(b, "subblock"); return;
    case PTO_E_RANK: pto_buf_puts(b, "rank"); return;
    case PTO_E_NRANKS: pto_buf_puts(b, "nranks"); return;
    case PTO_E_NEG: pto_buf_puts(b, "-("); pto__sy_expr(m, x->a, b); pto_buf_puts(b, ")"); return;
    case PTO_E_MIN: case PTO_E_MAX:
        pto_buf_puts(b, x->kind == PTO_E_MIN ? "min(" : "max(");
        pto__sy_expr(m, x->a, b);
        pto_buf_puts(b, ", ");
        pto__sy_expr(m, x->b, b);
        pto_buf_puts(b, ")");
        return;
    default:
        pto_buf_puts(b, "(");
        pto__sy_expr(m, x->a, b);
        pto_buf_printf(b, " %s ", ops[x->kind - PTO_E_ADD]);
        pto__sy_expr(m, x->b, b);
        pto_buf_puts(b, ")");
        return;
    }
}

static void pto__sy_dump_op(const pto_module *m, int32_t s, pto_buf *b)
{
    int i;
    pto_buf_puts(b, pto_opinfo_get((pto_op)m->stmts[s].op)->name);
    for (i = 0; i < m->stmts[s].nargs; i++) {
        const pto_operand *o = pto_stmt_arg(m, s, i);
        pto_buf_puts(b, i ? ", " : " ");
        switch (o->kind) {
        case PTO_O_TILE: pto_buf_puts(b, pto_str(m->ctx, m->tiles[o->ref].name)); break;
        case PTO_O_GM:
            pto_buf_printf(b, "%s[", pto_str(m->ctx, m->params[o->ref].name));
            pto__sy_expr(m, o->e[0], b);
            pto_buf_puts(b, ", ");
            pto__sy_expr(m, o->e[1], b);
            pto_buf_puts(b, "]");
            break;
        case PTO_O_FLOAT: pto_buf_printf(b, "%g", o->f); break;
        case PTO_O_SCALAR: pto_buf_puts(b, pto_str(m->ctx, m->vars[o->ref].name)); break;
        case PTO_O_INT: pto__sy_expr(m, o->e[0], b); break;
        case PTO_O_PIPE: pto_buf_puts(b, pto_pipe_name((pto_pipe)o->ref)); break;
        default: pto_buf_puts(b, "?"); break;
        }
    }
}

static void pto__sy_dump_block(const pto_module *m, int32_t blk, int depth, pto_buf *b)
{
    int32_t s;
    for (s = m->blocks[blk].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->note) pto_buf_printf(b, "%*s# %s\n", 2 * depth, "", pto_str(m->ctx, st->note));
        pto_buf_printf(b, "%*s", 2 * depth, "");
        switch (st->kind) {
        case PTO_ST_OP: pto__sy_dump_op(m, s, b); break;
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
            pto__sy_expr(m, st->e[0], b);
            break;
        case PTO_ST_FOR:
            pto_buf_printf(b, "for %s = ", pto_str(m->ctx, m->vars[st->ref].name));
            pto__sy_expr(m, st->e[0], b);
            pto_buf_puts(b, " to ");
            pto__sy_expr(m, st->e[1], b);
            if (st->e[2] >= 0) { pto_buf_puts(b, " step "); pto__sy_expr(m, st->e[2], b); }
            break;
        case PTO_ST_IF:
            pto_buf_puts(b, "if ");
            pto__sy_expr(m, st->e[0], b);
            pto_buf_printf(b, " %s ", pto_cmp_name((pto_cmp)st->cmp));
            pto__sy_expr(m, st->e[1], b);
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
