/* api_resadd.c - a kernel built with the C API instead of .pto text, then
   compiled and run on the simulator. A tutorial: read it top to bottom.

   The kernel is a scaled residual add, out = x + alpha * y, over a tensor of
   N x 256 f32 whose row count N is only known at launch. The same kernel in
   .pto text would read:

       kernel resadd(in x: f32[N, 256], in y: f32[N, 256], out z: f32[N, 256],
                     scalar alpha: f32) vector blocks(N / 64) {
         for i = 0 to 4 {
           tile a: vec f32[16, 256] x2
           tile b: vec f32[16, 256] x2
           tile c: vec f32[16, 256] x2
           let r = block * 64 + i * 16
           tload a, x[r, 0]
           tload b, y[r, 0]
           tmuls b, b, alpha
           tadd c, a, b
           tstore z[r, 0], c
         }
       }

   Building it through the API is what a frontend (a DSL, a graph compiler)
   does: no text to generate and re-parse, and every error points at the C
   line that built the offending node, because the locations we hand to the
   builders below are this file's own __LINE__s.

   Usage: api_resadd [OUTDIR [PTOC]]
     OUTDIR  where kernel.c, host.c and resadd.pto go (default build/api_resadd)
     PTOC    the ptoc that runs them (default $PTOC, else `ptoc` on the PATH)
   Exit status: that of `ptoc run OUTDIR` (0: the simulator matched the
   reference interpreter and reported nothing), or 1/2 if building failed.

   Build: cc -std=c99 -I. -o api_resadd examples/api_resadd.c -lm
   (one translation unit holds the whole compiler: PTO_IMPLEMENTATION). */

/* mkdir() is POSIX, not C99 */
#define _POSIX_C_SOURCE 200809L

#define PTO_IMPLEMENTATION
#include "pto.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Every builder takes a source location. We make one from this file's line
   so that diagnostics and the comments in the emitted kernel.c read
   "api_resadd.c:LINE". It is a C99 compound literal rather than a function
   returning a pto_loc on purpose: tcc 0.9.27 (x86-64) passes wrong values
   to a call whose arguments contain calls that return a struct, and the
   builders nest exactly like that. `file` is the id from pto_file_add. */
#define HERE ((pto_loc){file, __LINE__, 1})

/* The launch values: N is a dynamic dim, alpha a scalar param. They reach
   the generated host program as `-D NAME=VALUE`, like `ptoc run -D`. */
#define ROWS "256"
#define ALPHA "0.75"

/* ---- step 1: build the IR ------------------------------------------------
   The IR is arrays and int32 ids (src/ir.h). Builders append to a block and
   return the new id, or -1 when memory ran out (with a diagnostic in the
   context). An id we index the arrays with goes through NEED first; the
   others may be -1 harmlessly (a builder given a -1 sub-expression returns
   -1 too), and one pto_error_count at the end catches them all. */
#define NEED(id) do { if ((id) < 0) goto fail; } while (0)

static pto_module *build(pto_ctx *ctx)
{
    int32_t file = pto_file_add(ctx, "api_resadd.c");
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    int32_t k, x, y, z, alpha, n, body, loop, lbody, a, b, c, r, s;
    if (!m) return NULL;

    /* The kernel and its parameters, in signature order: tensors carry a
       direction, a dtype and two dims; a dim given here as 0 is made dynamic
       right after, by name, so all three tensors share the one var N. */
    k = pto_add_kernel(m, "resadd", PTO_KK_VECTOR, HERE);
    NEED(k);
    x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 0, 256, HERE);
    y = pto_add_tensor_param(m, k, "y", PTO_IN, PTO_F32, 0, 256, HERE);
    z = pto_add_tensor_param(m, k, "z", PTO_OUT, PTO_F32, 0, 256, HERE);
    NEED(x); NEED(y); NEED(z);
    n = pto_set_dynamic_dim(m, x, 0, "N");
    pto_set_dynamic_dim(m, y, 0, "N");
    pto_set_dynamic_dim(m, z, 0, "N");
    alpha = pto_add_scalar_param(m, k, "alpha", PTO_F32, HERE);
    NEED(alpha);

    /* blocks(N / 64): the SPMD block count is an expression over dims, set
       on the kernel with a setter (a setter, like every builder, clears the
       verified stamp; a field written by hand after pto_compile is refused
       by the next pass). Each block does 64 rows as 4 tiles of 16. */
    NEED(pto_set_kernel_blocks(m, k, pto_expr_bin(m, PTO_E_DIV, pto_expr_var(m, n, HERE), pto_expr_int(m, 64, HERE), HERE)));

    /* for i = 0 to 4 { ... }: the FOR statement owns a fresh body block. */
    body = m->kernels[k].body;
    loop = pto_add_for(m, body, "i", pto_expr_int(m, 0, HERE), pto_expr_int(m, 4, HERE), -1, HERE);
    NEED(loop);
    lbody = m->stmts[loop].body;

    /* Three double-buffered tiles in the vector core's UB (vec). nbuf = 2 is
       the text's `x2`: iteration k uses slot k mod 2, so the loads of the
       next rows overlap the arithmetic and store of these. */
    a = pto_add_tile(m, lbody, "a", PTO_VEC, PTO_F32, 16, 256, HERE);
    b = pto_add_tile(m, lbody, "b", PTO_VEC, PTO_F32, 16, 256, HERE);
    c = pto_add_tile(m, lbody, "c", PTO_VEC, PTO_F32, 16, 256, HERE);
    NEED(a); NEED(b); NEED(c);
    NEED(pto_set_tile_nbuf(m, a, 2)); NEED(pto_set_tile_nbuf(m, b, 2)); NEED(pto_set_tile_nbuf(m, c, 2));

    /* let r = block * 64 + i * 16: the var the LET binds is its stmt's ref. */
    s = pto_add_let(m, lbody, "r",
                    pto_expr_bin(m, PTO_E_ADD,
                                 pto_expr_bin(m, PTO_E_MUL, pto_expr_builtin(m, PTO_E_BLOCK, HERE),
                                              pto_expr_int(m, 64, HERE), HERE),
                                 pto_expr_bin(m, PTO_E_MUL, pto_expr_var(m, m->stmts[loop].ref, HERE),
                                              pto_expr_int(m, 16, HERE), HERE),
                                 HERE),
                    HERE);
    NEED(s);
    r = m->stmts[s].ref;

    /* The instructions. An op statement gets its operands right after it is
       made, in the op table's order (PTO_OPS in src/ir.h): destination
       first. A GM window is (param, row expr, col expr, rank expr or -1). */
    s = pto_add_op(m, lbody, PTO_OP_TLOAD, HERE);          /* tload a, x[r, 0] */
    NEED(s);
    pto_arg_tile(m, s, a, HERE);
    pto_arg_gm(m, s, x, pto_expr_var(m, r, HERE), pto_expr_int(m, 0, HERE), -1, HERE);

    s = pto_add_op(m, lbody, PTO_OP_TLOAD, HERE);          /* tload b, y[r, 0] */
    NEED(s);
    pto_arg_tile(m, s, b, HERE);
    pto_arg_gm(m, s, y, pto_expr_var(m, r, HERE), pto_expr_int(m, 0, HERE), -1, HERE);

    s = pto_add_op(m, lbody, PTO_OP_TMULS, HERE);          /* tmuls b, b, alpha */
    NEED(s);
    pto_arg_tile(m, s, b, HERE);
    pto_arg_tile(m, s, b, HERE);
    pto_arg_scalar(m, s, m->params[alpha].var, HERE);      /* a scalar param is read through its var */

    s = pto_add_op(m, lbody, PTO_OP_TADD, HERE);           /* tadd c, a, b */
    NEED(s);
    pto_arg_tile(m, s, c, HERE);
    pto_arg_tile(m, s, a, HERE);
    pto_arg_tile(m, s, b, HERE);

    s = pto_add_op(m, lbody, PTO_OP_TSTORE, HERE);         /* tstore z[r, 0], c */
    NEED(s);
    pto_arg_gm(m, s, z, pto_expr_var(m, r, HERE), pto_expr_int(m, 0, HERE), -1, HERE);
    pto_arg_tile(m, s, c, HERE);

    if (pto_error_count(ctx) == 0) return m;
fail: /* a builder ran out of memory */
    pto_module_destroy(m);
    return NULL;
}

/* ---- step 2: the passes --------------------------------------------------
   pto_compile runs the passes in their fixed order:
     verify  checks every rule a builder cannot (operand kinds and spaces,
             tile shapes against windows, ...): what lets the later passes
             trust the module;
     plan    gives every tile its address (check_plan: then the planner's
             independent checker looks at the result);
     sync    inserts the set_flag / wait_flag / pipe_barrier statements the
             pipes need.
   Each is also callable on its own (pto_verify, pto_plan, pto_plan_check,
   pto_sync); the desc's zero fields are the defaults. emit then writes C. */
static pto_status compile(pto_ctx *ctx, pto_module *m, pto_buf *pto_text, pto_buf *ksrc, pto_buf *hsrc)
{
    pto_emit_desc ed;
    pto_compile_desc cd;
    pto_status st;
    memset(&cd, 0, sizeof cd);
    cd.check_plan = 1;
    /* The host program re-parses the kernel's .pto text to run the
       reference interpreter, so print it before the passes add anything:
       pto_print of the module as we built it (canonical text). */
    pto_print(m, pto_text);
    st = pto_compile(ctx, m, &cd);
    if (st == PTO_OK) {
        memset(&ed, 0, sizeof ed);
        ed.filename = "api_resadd.c";      /* names in comments: lines refer to this file */
        ed.source = pto_text->data;
        ed.source_len = pto_text->len;
        st = pto_emit(ctx, m, &ed, ksrc, hsrc);
    }
    return st;
}

/* ---- step 3: write the directory ----------------------------------------- */
static int write_file(const char *dir, const char *name, const pto_buf *b)
{
    char path[4096];
    FILE *f;
    int ok;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    ok = f && fwrite(b->data, 1, b->len, f) == b->len;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "api_resadd: cannot write %s\n", path);
    return ok;
}

/* ---- step 4: run it ------------------------------------------------------
   `ptoc run DIR` compiles DIR/host.c (which includes kernel.c) against
   pto_kernels.h, runs it on the simulated NPU with seeded random inputs,
   runs the reference interpreter on the same inputs and compares every
   output bit for bit. It prints cycles, the pipe bound, efficiency and sync
   counts; we pass its output and exit status through. */
static int run(const char *ptoc, const char *dir)
{
    char cmd[8192];
    int rc;
    snprintf(cmd, sizeof cmd, "'%s' run '%s' -D N=" ROWS " -D alpha=" ALPHA, ptoc, dir);
    printf("$ %s\n", cmd);
    fflush(stdout);
    rc = system(cmd);
    if (rc == -1) return 2;
    /* system() returns a wait status; POSIX's WEXITSTATUS is this shift */
    rc = (rc >> 8) & 0xff;
    return rc > 2 ? 2 : rc;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "build/api_resadd";
    const char *ptoc = argc > 2 ? argv[2] : getenv("PTOC");
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m;
    pto_buf text, k, h;
    pto_status st;
    int rc;
    if (!ptoc || !*ptoc) ptoc = "ptoc";
    if (strchr(dir, '\'') || strchr(ptoc, '\'')) {
        fprintf(stderr, "api_resadd: paths with a quote are not supported\n");
        return 1;
    }
    if (!ctx) return 2;
    memset(&text, 0, sizeof text);
    memset(&k, 0, sizeof k);
    memset(&h, 0, sizeof h);
    text.ctx = k.ctx = h.ctx = ctx;

    m = build(ctx);
    st = m ? compile(ctx, m, &text, &k, &h) : PTO_ERR_INTERNAL;
    pto_diag_print(ctx, stderr);            /* errors and warnings, FILE:LINE:COL */
    rc = st == PTO_OK ? 0 : st == PTO_ERR_USER ? 1 : 2;
    if (rc == 0) {
        mkdir(dir, 0777);                   /* may exist already */
        if (!write_file(dir, "kernel.c", &k) || !write_file(dir, "host.c", &h) ||
            !write_file(dir, "resadd.pto", &text))
            rc = 1;
    }
    if (rc == 0) {
        printf("built resadd through the C API; its .pto text (%s/resadd.pto):\n%s", dir, text.data);
        rc = run(ptoc, dir);
    }
    pto_buf_free(&text);
    pto_buf_free(&k);
    pto_buf_free(&h);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
    return rc;
}
