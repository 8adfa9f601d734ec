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
#define PTO_A_SCALAR (1u << 10)  /* float literal, scalar param or integer expression */
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
    PTO_OC_FILLPAD,  /* zero a loaded tile outside its valid region: made by pto_lower for the isa
                        target only (pto-isa's TLOAD moves the valid region alone; the simulator's
                        tload zeroes the rest itself), never written in a kernel */
    PTO_OC_TRANS     /* d[c, r] = a[r, c] over a's valid region (pto-isa's TTRANS) */
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
    X(TFILLPAD,      "tfillpad",      PTO_PIPE_V,    PTO_OC_FILLPAD, 1, PTO_W(PTO_A_VEC|PTO_A_MAT), 0, 0, 0) \
    X(TTRANS,        "ttrans",        PTO_PIPE_V,    PTO_OC_TRANS,  2, PTO_W(PTO_A_VEC), PTO_R(PTO_A_VEC), 0, 0)

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
       since. Builders clear it; pto_lower, pto_plan, pto_sync, pto_emit and
       pto_emit_isa refuse a module without it (one error naming the pass),
       so an invalid module never reaches code that relies on verify's
       guarantees. The interpreters (pto_interp, pto_interp_host) need no
       stamp: they check what they run and report it as a run-time error. lower and sync edit the
       module through the builders and stamp it again when they succeed
       (their output is valid by their own guarantees; a failed one leaves
       it cleared). A caller writing to the arrays above directly must call
       pto_verify again itself; for the fields a C program most often sets
       that way (a tile's shape, slots, valid region and pin, a kernel's
       blocks, a param's dims, a pipe's slots) there are setters
       (pto_set_tile_nbuf ...), and the stamp keeps a fingerprint of them
       (vprint): a pass finding them changed since refuses the module, as
       if unstamped, instead of emitting a kernel planned for other values. */
    int32_t verified;
    uint64_t vprint;
    /* The pto_target that pto_lower_for last lowered the module for (0: the
       simulator). The planner keeps pto-isa's hidden vec scratch free for
       the isa target (plan.c, pto__isa_hole). */
    int32_t target;
    /* The sync stamp: pto_plan sets it, pto_sync clears it (and so does
       pto_sync_hand, which pto_compile_desc.no_sync calls). pto_emit and pto_emit_isa refuse a module with it set: a
       planned module the sync pass never ran on would emit a kernel with
       no set_flag / wait_flag at all (review29 M2). A module whose tiles
       the caller placed (pins, pto_module_stamp) never ran pto_plan: its
       own flags are its sync, and it emits as it is. */
    int32_t unsynced;
} pto_module;

/* ---- queries -------------------------------------------------------------- */

/* An op's row: name, pipe, class, operand kinds. Never NULL: PTO_NOP and
   any op out of range (a cast of 999 or -5) get the one sentinel row, named
   "<none>" with no operands (nargs 0), as pto_dtype_name and the other name
   queries below give "?" for a value out of range; test
   `pto_opinfo_get(op) == pto_opinfo_get(PTO_NOP)`, not NULL. */
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
   (PTO_NPIPE for a statement id out of range; these statement queries
   return NULL, -1 or 0 for ids out of range). */
PTODEF pto_pipe pto_stmt_pipe(const pto_module *m, int32_t stmt);
PTODEF const pto_operand *pto_stmt_arg(const pto_module *m, int32_t stmt, int i);
/* Innermost enclosing FOR statement of a statement, or -1. */
PTODEF int32_t pto_stmt_loop(const pto_module *m, int32_t stmt);

/* ---- building IR (the C API; the parser uses it too) ----------------------
   All builders return the new id, or -1 when out of memory or when an
   argument is wrong: a kernel, block, statement, param or host id out of
   range, an expression operand not made yet (>= n_exprs), a kind out of
   its enum where a builder takes one (pto_add_var, pto_expr_bin), a NULL
   name, a param added to a kernel that is not the newest, an
   operand added to a statement that is not an op or not the newest one with
   operands (a statement's operands go right after its pto_add_op). Each
   refusal records an error naming the builder ("pto_add_op: block id 9 is
   out of range ...") at the location given, and marks the module
   incomplete (pto_module.broken), so that pto_verify / pto_compile fail on
   it instead of compiling a module that silently lacks a node. A -1 passed
   on from a builder that failed is refused without a second error. Ids
   stored in a node (a tile, an expression, a var of an operand) are checked
   by pto_verify, and so are names: each must be one the .pto text could
   hold ([A-Za-z_][A-Za-z0-9_]*, not block, blocks, subblock, rank, nranks,
   min, max, inf or nan), since the emitter writes them into C. Every builder here (and the relinking calls below, and the
   host builders) clears the verified stamp (pto_module.verified): verify
   again before the later passes, which refuse an unstamped module. m must be a module of pto_module_create (never NULL);
   pto_module_destroy(NULL) does nothing. Statements are appended to the
   block given. */

PTODEF pto_module *pto_module_create(pto_ctx *ctx, pto_arch arch);
PTODEF void pto_module_destroy(pto_module *m);
/* Stamps m verified WITHOUT verifying it, with the fingerprint of its
   fields as they are: for a caller that writes the arrays directly and
   answers for the result (tests of a pass's own checks). A program calls
   pto_verify or pto_compile instead. */
PTODEF void pto_module_stamp(pto_module *m);

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
/* k: PTO_E_ADD .. PTO_E_MAX, or PTO_E_NEG (which reads a only; b is
   ignored). a and b must be existing expression ids (< n_exprs): an
   operand is made before the node that reads it, so no tree holds a
   cycle. Any other kind or id is refused like every builder's bad argument.
   pto_verify also refuses an expression tree written directly with a
   cycle, or one that expands through shared operands to more than 2^20
   nodes. */
PTODEF int32_t pto_expr_bin(pto_module *m, pto_expr_kind k, int32_t a, int32_t b, pto_loc loc);

/* New empty block; kernel bodies, loop bodies and branches are blocks. */
PTODEF int32_t pto_add_block(pto_module *m, int32_t kernel, int32_t owner);
/* Statements (appended at the end of `block`). */
PTODEF int32_t pto_add_tile(pto_module *m, int32_t block, const char *name, pto_space space,
                            pto_dtype dt, int32_t rows, int32_t cols, pto_loc loc);
/* A tile's slots (xN: 1..8), its valid region (expr ids; -1 = the full
   extent) and a fixed address (PTO_NO_ADDR: planned), and a kernel's block
   count (expr id; -1 = 1): the fields the .pto writes as `x2`,
   `valid(...)`, `at ADDR` and `blocks(...)`. They return the id given, or -1
   (an error) for a bad one; like every builder they clear the stamp. */
PTODEF int32_t pto_set_tile_nbuf(pto_module *m, int32_t tile, int32_t nbuf);
PTODEF int32_t pto_set_tile_valid(pto_module *m, int32_t tile, int32_t valid_rows, int32_t valid_cols);
PTODEF int32_t pto_set_tile_pin(pto_module *m, int32_t tile, int64_t addr);
PTODEF int32_t pto_set_kernel_blocks(pto_module *m, int32_t kernel, int32_t blocks);
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
   pto_new_stmt and then placed. The statement placed must be detached: to
   move one, pto_unlink it first (placing a linked one would put it in two
   places of the lists: a cycle, or the statements after it lost). An id
   out of range, a linked statement to place or an anchor (`at`) that is
   not linked is refused like a builder's bad argument: an error naming the
   call, the module marked broken, the lists unchanged. pto_unlink of a
   detached statement does nothing. pto_verify refuses lists written
   directly that are not well formed (a cycle, a statement on two lists or
   lost from its own) with a "malformed statement lists" error. */
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
/* How many host calls name kernel k. In a file with hosts a run is the
   hosts' calls, so a kernel none names is never run (ptoc says so). */
PTODEF int32_t pto_host_calls_of(const pto_module *m, int32_t k);
