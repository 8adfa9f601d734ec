/* api.h - the device API of pto_kernels.h: what an emitted kernel calls and
   what a host program uses to run it on the simulated NPU.

   This is the contract between the emitter and the simulator. Everything is
   a static function of this header (pto_kernels.h is all static code), and
   every name carries the prefix pto_k_ / PTO_K_ so that one translation unit
   can include both pto.h (with PTO_IMPLEMENTATION) and pto_kernels.h. The
   header never includes pto.h; the numeric codes below are kept identical to
   pto.h's enums (pto_space, pto_dtype, pto_pipe, pto_kernel_kind, pto_core,
   pto_cmp, pto_cvdir) so the emitter can print either.

   ---- A kernel ------------------------------------------------------------
   An emitted kernel is one C function

       static void NAME(pto_k_core *c, const int64_t *args);

   called once per simulated core. args follows hardware.md section 7:
   tensor descriptors first (each an int64 holding a pto_k_gm pointer, read
   with pto_k_arg_gm), then scalars as raw 64-bit values (a float scalar is
   the bit pattern of a double: pto_k_arg_f; an integer: pto_k_arg_i). Block
   index and count, subblock, rank and core kind come from the core context
   (pto_k_block_idx(c) ...), never from args.
   A vector kernel runs one AIV per block, a cube kernel one AIC per block, a
   mix kernel one cluster per block: the function is called three times per
   block, on the AIC (pto_k_core_kind(c) == PTO_K_CORE_CUBE) and on both AIVs
   (subblock 0 and 1); the kernel branches on pto_k_core_kind to run its
   cube { } or vector { } section.

   ---- Instructions ---------------------------------------------------------
   Every instruction takes the core and `src`, a static string naming the
   kernel source line (e.g. "softmax.pto:9"): reports quote it.
   Tiles are passed by value (pto_k_t builds one) and addressed by their
   planned byte offset into their space. The pipe of each instruction follows
   hardware.md section 3:
     tload GM->vec/mat MTE2; tstore vec->GM MTE3, acc->GM FIX; vector ops,
     tcvt, tmov vec->vec V; tmov/textract mat->left/right MTE1; tmov acc->vec
     or acc->mat FIX; tmatmul M; set/wait/barrier as named; ring tpush FIX
     from acc, MTE3 from vec; tpop MTE2; tfree, notify, wait S.
   Values follow the reference interpreter bit for bit (f32 math, f16/bf16
   rounded to nearest even on write, see numerics.h): vector ops compute over
   the destination's valid region; tload fills the valid region from GM and
   zeroes the rest of the tile; tstore writes only the valid region; row
   reductions go left to right over the source's valid columns; matmul adds
   a*b over k ascending in f32 without FMA on the full shapes; a NaN that
   arithmetic produces is the canonical 0x7fc00000 (pto_nan_canon), moves
   copy bits when the dtypes are equal.

   ---- Uninitialised reads ------------------------------------------------
   The interpreter gives a tile fresh zeroed storage each time its
   declaration runs; here a planned address holds what its previous tenant
   left. So a read of local bytes that nothing wrote is an error
   (PTO_K_E_UNINIT) naming the instruction, the tile and the byte range,
   never a silent difference: e.g. tmov filling only a left tile's valid
   region before tmatmul reads the whole tile, or a vector op whose larger
   destination region reads past what its source's producer wrote. Written
   state is kept per byte (a mask in each 32-byte granule of shadow memory).
   Without help it covers the launch: every local byte starts unwritten. An
   emitted kernel calls pto_k_tdecl(c, src, tile) where a TILE statement
   runs (each slot of an xN tile when its iteration starts): the tile's
   bytes become unwritten again, so a read of the previous tenant's bytes
   through the new tile is caught too. tdecl takes no pipe and no cycles;
   an instruction issued before it but run later (its pipe was blocked in a
   wait) still belongs to the old tenant and is neither checked nor counted.

   ---- Host -----------------------------------------------------------------
       pto_k_device_desc dd;  memset(&dd, 0, sizeof dd);  dd.arch = PTO_K_A2A3;
       pto_k_device *dev = pto_k_device_create(&dd);
       pto_k_gm *x = pto_k_gm_create(dev, "x", PTO_K_F32, 64, 64);  (zeroed)
       int64_t args[2] = { pto_k_gm_arg(x), pto_k_f_arg(0.5) };
       pto_k_launch_desc ld;  memset(&ld, 0, sizeof ld);
       ld.fn = kern; ld.name = "kern"; ld.kind = PTO_K_KIND_VECTOR; ld.block_num = 4; ld.args = args;
       const pto_k_report *r = pto_k_launch(dev, &ld);
       pto_k_report_print(r, stdout);   r->nerrors == 0 when clean; r->ncores == 0
                                        when the launch was refused (nothing ran, r->errors say why)
       pto_k_device_destroy(dev);
   Ranks: set dd.nranks; create window tensors with pto_k_gm_create_window
   (one copy per rank, pto_k_gm_peer(g, rank) for each) and either pass
   args with ld.nargs set (a window tensor's handle then means each rank's
   own copy) or per-rank argument lists in ld.rank_args[rank]. */

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>

#if defined(__GNUC__) || defined(__clang__) || defined(__TINYC__)
#define PTO_K_FN static __attribute__((unused))
#else
#define PTO_K_FN static
#endif

/* ---- codes (numerically identical to pto.h) ------------------------------ */

enum { PTO_K_A2A3 = 0, PTO_K_A5 = 1 };                                  /* pto_arch */
enum { PTO_K_DT_NONE = 0, PTO_K_F32 = 1, PTO_K_F16 = 2, PTO_K_BF16 = 3,  /* pto_dtype */
       PTO_K_I32 = 4, PTO_K_I8 = 5 };
enum { PTO_K_GM = 0, PTO_K_VEC = 1, PTO_K_MAT = 2, PTO_K_LEFT = 3,       /* pto_space */
       PTO_K_RIGHT = 4, PTO_K_ACC = 5, PTO_K_BIAS = 6, PTO_K_SCALING = 7, PTO_K_NSPACE = 8 };
enum { PTO_K_PIPE_S = 0, PTO_K_PIPE_V = 1, PTO_K_PIPE_M = 2,            /* pto_pipe */
       PTO_K_PIPE_MTE1 = 3, PTO_K_PIPE_MTE2 = 4, PTO_K_PIPE_MTE3 = 5,
       PTO_K_PIPE_FIX = 6, PTO_K_PIPE_ALL = 7, PTO_K_NPIPE = 8 };
/* The same pipes by their short names, as emitted kernels spell them
   (pto_k_set_flag(core, src, PTO_K_MTE2, PTO_K_V, 0)): a kernel has
   thousands of these arguments. */
enum { PTO_K_S = PTO_K_PIPE_S, PTO_K_V = PTO_K_PIPE_V, PTO_K_M = PTO_K_PIPE_M, PTO_K_MTE1 = PTO_K_PIPE_MTE1,
       PTO_K_MTE2 = PTO_K_PIPE_MTE2, PTO_K_MTE3 = PTO_K_PIPE_MTE3, PTO_K_FIX = PTO_K_PIPE_FIX,
       PTO_K_ALL = PTO_K_PIPE_ALL };
enum { PTO_K_KIND_VECTOR = 0, PTO_K_KIND_CUBE = 1, PTO_K_KIND_MIX = 2 }; /* pto_kernel_kind */
enum { PTO_K_CORE_VECTOR = 0, PTO_K_CORE_CUBE = 1 };                    /* pto_core */
enum { PTO_K_EQ = 0, PTO_K_NE = 1, PTO_K_LT = 2, PTO_K_LE = 3,          /* pto_cmp */
       PTO_K_GT = 4, PTO_K_GE = 5 };
enum { PTO_K_C2V = 1, PTO_K_V2C = 2, PTO_K_BOTH = 3 };                  /* pto_cvdir */
enum { PTO_K_NOTIFY_SET = 0, PTO_K_NOTIFY_ADD = 1 };
/* How a vector consumer splits a cube tile between the two AIVs. */
enum { PTO_K_SPLIT_NONE = 0, PTO_K_SPLIT_UP_DOWN = 1, PTO_K_SPLIT_LEFT_RIGHT = 2 };

#define PTO_K_NFLAG 8          /* set/wait ids per ordered pipe pair */
#define PTO_K_NCROSS 16        /* cross-core flag ids per cluster */
#define PTO_K_NRING 8          /* ring (cube/vector pipe) ids per kernel */

/* Error classes of a report (pto_k_error.kind). */
enum {
    PTO_K_E_RACE = 1,       /* two accesses not ordered by flags/barriers */
    PTO_K_E_DOUBLE_SET,     /* set_flag of an id that is still set */
    PTO_K_E_DEADLOCK,       /* a wait that can never be satisfied (or may not be, on hardware) */
    PTO_K_E_LEFT_SET,       /* an id still set when the kernel ends */
    PTO_K_E_CAPACITY,       /* a tile past its space's capacity */
    PTO_K_E_ALIGN,          /* a local address (or vec row) not 32-byte aligned */
    PTO_K_E_BOUNDS,         /* a GM window outside its tensor, bad shape */
    PTO_K_E_RING,           /* ring protocol misuse (init mismatch, tfree, unfreed slot) */
    PTO_K_E_USAGE,          /* anything else the API was called wrongly with */
    PTO_K_E_UNINIT,         /* a read of local bytes nothing wrote (see "Uninitialised reads") */
    PTO_K_E_BUDGET,         /* more instructions than the launch's max_instr: stopped */
    PTO_K_E_OVERFLOW        /* a .pto integer expression left int64 (pto_k_iadd ...): stopped */
};

/* ---- tiles and GM tensors ------------------------------------------------ */

typedef struct pto_k_tile {
    int space, dtype;
    int32_t rows, cols;
    int64_t valid_r, valid_c;
    int64_t offset;            /* byte offset in the core's memory `space` */
} pto_k_tile;

typedef struct pto_k_gm {
    void *data;                /* row-major, dtype elements (f16/bf16 as bits) */
    int dtype;
    int64_t rows, cols;
    const char *name;
    int rank;                  /* the rank that owns this copy */
    struct pto_k_gm **peers;   /* window tensors: the copy of every rank; else NULL */
    int npeers;
    int id;                    /* index in the device's tensor list */
    unsigned char *written;    /* per element: 1 once a kernel stored to it (tstore, atomic
                                  tstore_add, a remote put); NULL until the first store */
    int undefined;             /* set by the host for an intermediate it allocates: on a device
                                  its elements hold garbage until a kernel stores to them, so a
                                  read of one no store reached is an uninitialised read */
} pto_k_gm;

typedef struct pto_k_core pto_k_core;
typedef struct pto_k_device pto_k_device;
typedef void (*pto_k_kernel_fn)(pto_k_core *c, const int64_t *args);

/* ---- the device API (kernel side) ---------------------------------------- */

PTO_K_FN pto_k_tile pto_k_t(int space, int dtype, int32_t rows, int32_t cols, int64_t valid_r,
                            int64_t valid_c, int64_t offset);
PTO_K_FN pto_k_gm *pto_k_arg_gm(const int64_t *args, int i);
PTO_K_FN double pto_k_arg_f(const int64_t *args, int i);
PTO_K_FN double pto_k_arg_h(const int64_t *args, int i, int dtype);   /* f16 / bf16: rounded to dtype */
PTO_K_FN int64_t pto_k_arg_i(const int64_t *args, int i);
PTO_K_FN int64_t pto_k_gm_rows(const pto_k_gm *g);
PTO_K_FN int64_t pto_k_gm_cols(const pto_k_gm *g);

PTO_K_FN int64_t pto_k_block_idx(const pto_k_core *c);
PTO_K_FN int64_t pto_k_block_num(const pto_k_core *c);
PTO_K_FN int64_t pto_k_subblock(const pto_k_core *c);
PTO_K_FN int64_t pto_k_rank(const pto_k_core *c);
PTO_K_FN int64_t pto_k_nranks(const pto_k_core *c);
PTO_K_FN int pto_k_core_kind(const pto_k_core *c);
PTO_K_FN int pto_k_arch(const pto_k_core *c);

/* Loop arithmetic without int64 overflow, where an emitted kernel's plain
   `i += step` or `(i - start) / step % n` could pass INT64_MAX (the
   emitter writes the plain forms where it can prove they cannot):
   pto_k_next(i, step, end), for i < end and step > 0, is i + step when
   that is below end, else end (the loop ends; the interpreter stops there
   too); pto_k_iter_mod(i, start, step, n), for start <= i, step > 0 and
   n > 0, is the iteration number ((i - start) / step) % n, exact for any
   int64 values (the unsigned difference i - start is). */
PTO_K_FN int64_t pto_k_next(int64_t i, int64_t step, int64_t end);
PTO_K_FN int64_t pto_k_iter_mod(int64_t i, int64_t start, int64_t step, int64_t n);

/* The + - * and unary - of a .pto integer expression that the emitter could
   not prove stays in int64 (a dynamic dim or a scalar times a large
   factor, say; every other one is plain C): the exact a + b, a - b, a * b,
   -a; one whose value leaves int64 is reported at src ("integer overflow
   in expression", as the reference interpreter refuses it) and stops the
   launch there, as the instruction budget does: C's signed overflow is
   undefined behaviour, and a wrapped index can land back inside a tensor. */
PTO_K_FN int64_t pto_k_iadd(pto_k_core *c, const char *src, int64_t a, int64_t b);
PTO_K_FN int64_t pto_k_isub(pto_k_core *c, const char *src, int64_t a, int64_t b);
PTO_K_FN int64_t pto_k_imul(pto_k_core *c, const char *src, int64_t a, int64_t b);
PTO_K_FN int64_t pto_k_ineg(pto_k_core *c, const char *src, int64_t a);

/* Memory movement. The GM window is the tile's valid region at (row, col). */
PTO_K_FN void pto_k_tload(pto_k_core *c, const char *src, pto_k_tile d, pto_k_gm *g, int64_t row, int64_t col);
PTO_K_FN void pto_k_tstore(pto_k_core *c, const char *src, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a);
/* Atomic add store: GM window += tile (MTE3 from vec, FIX from acc). */
PTO_K_FN void pto_k_tstore_add(pto_k_core *c, const char *src, pto_k_gm *g, int64_t row, int64_t col, pto_k_tile a);

/* Vector ops (V). */
PTO_K_FN void pto_k_tadd(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tsub(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tdiv(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tmax(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tmin(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tadds(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tsubs(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tmuls(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tdivs(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tmaxs(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_tmins(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, double s);
PTO_K_FN void pto_k_texp(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tlog(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tsqrt(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trsqrt(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trecip(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tabs(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tneg(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trelu(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_texpands(pto_k_core *c, const char *src, pto_k_tile d, double s);
PTO_K_FN void pto_k_trowsum(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trowmax(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trowmin(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_trowexpandadd(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_trowexpandsub(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_trowexpandmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_trowexpanddiv(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
/* Column reductions: d is [1, C]; each valid column of d gets the sum / max /
   min of a's valid rows in that column, top to bottom. */
PTO_K_FN void pto_k_tcolsum(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tcolmax(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
PTO_K_FN void pto_k_tcolmin(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
/* Column broadcasts: d[r, c] = a[r, c] op v[0, c], v is [1, C]. */
PTO_K_FN void pto_k_tcolexpandadd(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_tcolexpandsub(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_tcolexpandmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_tcolexpanddiv(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile v);
PTO_K_FN void pto_k_tcvt(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
/* d[c, r] = a[r, c] over a's valid region (V); d is [C, R] of a's dtype, its valid region a's transposed. */
PTO_K_FN void pto_k_ttrans(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
/* vec->vec (V), mat->left/right (MTE1), acc->vec or acc->mat (FIX). */
PTO_K_FN void pto_k_tmov(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a);
/* d = the d-shaped window of mat tile a at element (row, col) (MTE1). */
PTO_K_FN void pto_k_textract(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, int64_t row, int64_t col);
PTO_K_FN void pto_k_tmatmul(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);
PTO_K_FN void pto_k_tmatmul_acc(pto_k_core *c, const char *src, pto_k_tile d, pto_k_tile a, pto_k_tile b);

/* A tile's storage begins here (a TILE statement runs): its bytes count as
   unwritten until an instruction writes them. No pipe, no cycles. */
PTO_K_FN void pto_k_tdecl(pto_k_core *c, const char *src, pto_k_tile t);

/* Synchronisation inside one core (hardware.md section 4). */
PTO_K_FN void pto_k_set_flag(pto_k_core *c, const char *src, int src_pipe, int dst_pipe, int id);
PTO_K_FN void pto_k_wait_flag(pto_k_core *c, const char *src, int src_pipe, int dst_pipe, int id);
PTO_K_FN void pto_k_pipe_barrier(pto_k_core *c, const char *src, int pipe);

/* Cross-core flags inside a cluster (mix kernels). A set from the AIC raises
   id on both AIVs; a set from an AIV raises it on the AIC, whose wait needs
   both AIVs' sets. Counters are 4 bits (at most 15 pending sets). */
PTO_K_FN void pto_k_cross_set(pto_k_core *c, const char *src, int pipe, int id);
PTO_K_FN void pto_k_cross_wait(pto_k_core *c, const char *src, int pipe, int id);

/* Cube <-> vector rings (hardware.md section 5). Every core of the cluster
   that uses ring `ring` calls pto_k_ring_init first with the same
   parameters (compared after normalisation: slot_num 0 means 8 one-way / 4
   BOTH, local_slot_num 0 means 2). buf is the a2a3 GM pipe buffer tensor and
   buf_offset this block's byte offset in it (NULL: the simulator keeps the
   slots itself, as a5's core-to-core path does). Slot i of the ring is at
   buf_offset + (i % slot_num) * slot_size. For BOTH, direction C2V uses the
   first slot_num slots and V2C the next.
   tpush (producer) waits for a free slot, stores tile a, signals data-ready.
   tpop (consumer) waits for data, loads it into the local slot
   base.offset + (i % local_slot_num) * (base's bytes: half of slot_size on
   an AIV of a split pipe) and returns that tile.
   With SPLIT_UP_DOWN / LEFT_RIGHT the two AIVs each push or pop their half
   of the cube tile (base is the half-shaped tile). tfree releases the
   oldest popped slot. */
PTO_K_FN void pto_k_ring_init(pto_k_core *c, const char *src, int ring, int dir, int32_t slot_size,
                              int32_t slot_num, int32_t local_slot_num, int flag_id, int split,
                              pto_k_gm *buf, int64_t buf_offset);
PTO_K_FN void pto_k_tpush(pto_k_core *c, const char *src, int ring, pto_k_tile a);
PTO_K_FN pto_k_tile pto_k_tpop(pto_k_core *c, const char *src, int ring, pto_k_tile base);
PTO_K_FN void pto_k_tfree(pto_k_core *c, const char *src, int ring);

/* Ranks (hardware.md section 8). pto_k_gm_at: rank p's copy of window
   tensor g (for T@p[r, c]). Signals are i32 cells of a GM tensor. notify is
   an S instruction: it publishes only what pipe S has seen, so data must be
   fenced with pipe_barrier(ALL) first; it reaches the cell 1000 cycles
   after it ran. wait blocks the core until `cell CMP value` holds, at the
   simulated time the notifies make it hold (whatever order the simulator
   ran the ranks in); a wait whose condition a later, unordered notify would
   break (EQ on a counter) is reported as a deadlock that may happen. */
PTO_K_FN pto_k_gm *pto_k_gm_at(pto_k_core *c, const char *src, pto_k_gm *g, int64_t rank);
PTO_K_FN void pto_k_notify(pto_k_core *c, const char *src, pto_k_gm *sig, int64_t row, int64_t col,
                           int32_t value, int op);
PTO_K_FN void pto_k_wait(pto_k_core *c, const char *src, pto_k_gm *sig, int64_t row, int64_t col,
                         int cmp, int32_t value);

/* ---- host side ------------------------------------------------------------ */

typedef struct pto_k_device_desc {
    int arch;                  /* PTO_K_A2A3 (default) or PTO_K_A5 */
    uint64_t seed;             /* scheduler seed; a seed reproduces a run */
    int nranks;                /* 0 = 1 */
    const char *trace_path;    /* Chrome trace JSON of every launch, or NULL */
    int max_errors;            /* 0 = 100 */
} pto_k_device_desc;

typedef struct pto_k_launch_desc {
    pto_k_kernel_fn fn;
    const char *name;
    int kind;                  /* PTO_K_KIND_* */
    int64_t block_num;         /* 0 = 1 */
    const int64_t *args;       /* the same args for every rank ... */
    int nargs;                 /* ... how many: with nranks > 1, a window tensor in args
                                  means each rank's own copy of it */
    const int64_t *const *rank_args; /* ... or one list per rank, taken as is */
    int64_t max_instr;         /* the instruction budget: past this many instructions in the
                                  launch (every core and rank; set_flag, wait_flag,
                                  pipe_barrier and tdecl not counted) the run stops with
                                  an error; 0 = PTO_K_MAX_INSTR_DEFAULT */
} pto_k_launch_desc;

/* pto.h's PTO_MAX_INSTR_DEFAULT: a runaway loop stops in seconds, every kernel
   of the repository stays far below it */
#define PTO_K_MAX_INSTR_DEFAULT 100000
#define PTO_K_MAX_CORES 4096            /* cores of one launch: blocks x (3 for mix) x ranks */
/* The race detector keeps a vector clock per pipe of every core with an
   entry per pipe of every core: 256 bytes x cores^2 (4.3 GB at 4096 cores).
   A launch whose clocks would pass this is refused before anything is
   allocated (build with -DPTO_K_MAX_VC_BYTES=... to raise it: ptoc run
   passes PTO_CFLAGS); 1 GiB allows 2048 cores. */
#ifndef PTO_K_MAX_VC_BYTES
#define PTO_K_MAX_VC_BYTES (1024.0 * 1024.0 * 1024.0)
#endif

typedef struct pto_k_error {
    int kind;                  /* PTO_K_E_* */
    char *msg;                 /* "SRC: error: ..." (one line) */
} pto_k_error;

typedef struct pto_k_core_report {
    int kind, rank;            /* PTO_K_CORE_* */
    int64_t block, subblock;
    int64_t busy[PTO_K_NPIPE]; /* busy cycles per pipe (ALL unused) */
    int64_t end;               /* the core's last pipe end */
} pto_k_core_report;

/* What a wait waited for, besides a wait_flag's setting pipe (0..6) or
   PTO_K_PIPE_ALL (a PIPE_ALL barrier). */
enum { PTO_K_WAIT_SIGNAL = -1, PTO_K_WAIT_TPUSH = -2, PTO_K_WAIT_TPOP = -3, PTO_K_WAIT_CROSS = -4 };

typedef struct pto_k_wait_site {
    const char *src;           /* the waiting statement's "file:line" (the kernel's text) */
    int from;                  /* a wait_flag's setting pipe, PTO_K_PIPE_ALL, or PTO_K_WAIT_* */
    int64_t cycles;            /* summed over its waits */
} pto_k_wait_site;

/* A write of local bytes that replaced another instruction's write before
   anything read it (see pto_k_report.lost). */
typedef struct pto_k_overwrite {
    const char *src, *op;           /* the overwriting instruction; src NULL: none this launch */
    const char *lost_src, *lost_op; /* the write it replaced */
    int space;                      /* PTO_K_VEC .. */
    char core[48];                  /* "block 3 aiv0", as reports name cores */
    int64_t lo, hi;                 /* the first granule's bytes concerned */
} pto_k_overwrite;

typedef struct pto_k_report {
    int nerrors;
    pto_k_error *errors;
    int suppressed;            /* repeats of an already reported pair, errors past max */
    int ncores;                /* 0: the launch was refused and nothing ran (errors say why) */
    pto_k_core_report *cores;
    int64_t makespan;          /* last end over every core and pipe */
    int64_t bound;             /* busiest pipe's busy cycles */
    int64_t serial;            /* sum of every pipe's busy cycles (no overlap) */
    double efficiency;         /* bound / makespan */
    int64_t ninstr;
    /* Instructions not run for an error in their operands (a tile past its
       memory, misaligned, a GM window outside its tensor...): their work is
       missing from the cycles, so efficiency says nothing of the kernel. */
    int64_t skipped;
    /* Why efficiency is not 1: the busiest pipe (bound_pipe, on core
       bound_core: the first where it is that busy) is idle makespan - bound
       cycles; `waited` of them it sat in waits (wait_flag, PIPE_ALL, a signal
       wait, a tpush / tpop / cross-core flag the scalar unit waited for), the
       largest at sites[0 .. nsites) (one statement each);
       the rest it had no work queued. */
    int bound_core, bound_pipe;
    int64_t waited;
    int nsites;
    pto_k_wait_site sites[3];
    /* The launch's first overwrite of local bytes nothing had read: a dead
       store, or two live tiles sharing bytes. Not an error (kernels may
       write tiles they never read); the harness shows it only to explain a
       mismatch the simulator has no report for. */
    pto_k_overwrite lost;
} pto_k_report;

PTO_K_FN pto_k_device *pto_k_device_create(const pto_k_device_desc *desc);
PTO_K_FN void pto_k_device_destroy(pto_k_device *dev);
/* Zeroed tensors owned by the device (freed with it). */
PTO_K_FN pto_k_gm *pto_k_gm_create(pto_k_device *dev, const char *name, int dtype, int64_t rows, int64_t cols);
/* A window tensor: one copy per rank; returns rank 0's copy. */
PTO_K_FN pto_k_gm *pto_k_gm_create_window(pto_k_device *dev, const char *name, int dtype, int64_t rows,
                                          int64_t cols);
PTO_K_FN pto_k_gm *pto_k_gm_peer(pto_k_gm *g, int rank);
PTO_K_FN float pto_k_gm_get(const pto_k_gm *g, int64_t row, int64_t col);
PTO_K_FN void pto_k_gm_set(pto_k_gm *g, int64_t row, int64_t col, float v);
/* 1 if some kernel launched on the device stored to element (row, col) of
   this copy since it was created (pto_k_gm_set does not count): the host
   harness warns about outputs a kernel leaves partly unwritten. */
PTO_K_FN int pto_k_gm_written(const pto_k_gm *g, int64_t row, int64_t col);
PTO_K_FN int64_t pto_k_gm_arg(pto_k_gm *g);
PTO_K_FN int64_t pto_k_f_arg(double v);
/* Runs a kernel to completion; the report lives until the next launch. */
PTO_K_FN const pto_k_report *pto_k_launch(pto_k_device *dev, const pto_k_launch_desc *ld);
PTO_K_FN void pto_k_report_print(const pto_k_report *r, FILE *out);
/* First error message containing `needle` (NULL: the first), or NULL. */
PTO_K_FN const char *pto_k_report_find(const pto_k_report *r, int kind, const char *needle);
