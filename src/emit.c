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
    X(SIG, "sig") X(PLANNED, "planned") X(TEXT, "text") X(FN, "fn") X(PARAM, "param")

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
    X(K_ARG_H,     "$(ind)const double $(name) = pto_k_arg_h(args, $(idx), $(type)); /* scalar $(dtype): as that dtype holds it */\n") \
    X(K_ARG_I,     "$(ind)const int64_t $(name) = pto_k_arg_i(args, $(idx)); /* scalar $(dtype) */\n") \
    X(K_DIM,       "$(ind)const int64_t $(name) = pto_k_gm_$(rc)($(tensor));\n") \
    X(K_VOID,      "$(ind)(void)$(name);\n") \
    X(K_TILE,      "$(ind)const pto_k_tile $(name) = pto_k_t($(space), $(dtype), $(rows), $(cols), $(vr), $(vc), $(off));\n") \
    X(K_TDECL,     "$(ind)pto_k_tdecl(core, \"$(src)\", $(name));\n") \
    X(K_SLOTS,     "$(ind)static const int64_t pto_slots_$(idx)[$(n)] = {$(list)};\n") \
    X(K_LET,       "$(ind)const int64_t $(name) = $(expr);\n") \
    X(K_FOR,       "$(ind)for (int64_t $(name) = $(start); $(name) < $(end); $(name) += $(step)) {\n") \
    /* a loop whose last value plus step may pass INT64_MAX: the next value
       is computed only below end, as the interpreter does (FN: pto_k_next,
       or the isa target's pto_isa_next) */ \
    X(K_FOR_WRAP,  "$(ind)for (int64_t $(name) = $(start); $(name) < $(end); $(name) = $(fn)($(name), $(step), $(end))) {\n") \
    X(K_FOR_DYN,   "$(ind)for (int64_t $(name) = $(start); $(name) < $(end) && $(step) > 0; $(name) += $(step)) {\n") \
    X(K_FOR_DYN_WRAP, \
      "$(ind)for (int64_t $(name) = $(start); $(name) < $(end) && $(step) > 0; $(name) = $(fn)($(name), $(step), $(end))) {\n") \
    X(K_IF,        "$(ind)if ($(lhs) $(cmp) $(rhs)) {\n") \
    X(K_ELSE,      "$(ind)} else {\n") \
    X(K_ELSE_IF,   "$(ind)} else if ($(lhs) $(cmp) $(rhs)) {\n") \
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
      "   (harness.c in pto.h). Build and run it as ptoc run DIR does (-O0 -ffp-contract=off: no\n" \
      "   fused multiply-add changes a rounding):\n" \
      "     cc -std=c99 -O0 -ffp-contract=off -I DIR_OF_PTO_H host.c -lm -lpthread && ./a.out [-D NAME=VALUE]...\n" \
      "        [--seed S] [--trace F.json]\n" \
      "   Such a binary does not read the file's '# run:' line (only ptoc run DIR does): give its\n" \
      "   -D / --ranks values on the command line.\n" \
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
    X(H_SCALAR_F,  "    const double $(name) = pto_h_fscalar(run, \"$(text)\", $(dtype));\n") \
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
    /* a host scalar of another dtype (or an integer expression) for an f16 / bf16 param: \
       pto_h_narrow says a change */ \
    X(HS_ARG_FN,   "        args[$(idx)] = pto_k_f_arg(pto_h_narrow(run, $(expr), $(dtype), \"$(text)\", \"$(name)\", " \
                   "\"$(param)\", $(n)));\n") \
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

/* For a function the compiler would otherwise inline into the block walk,
   whose one big body then keeps nothing in registers (the op line's path
   reloaded the emitter from the stack at every step). */
#if defined(__GNUC__) || defined(__clang__)
#define PTO__EMIT_NOINLINE __attribute__((noinline))
#else
#define PTO__EMIT_NOINLINE
#endif
/* For the operand writer that both op-line paths share, which the compiler
   would otherwise keep as a call of its own (its prologue and the tables it
   reloads were a third of its cost). */
#if defined(__GNUC__) || defined(__clang__)
#define PTO__EMIT_INLINE inline __attribute__((always_inline))
#else
#define PTO__EMIT_INLINE inline
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

/* An event id that pto__emit_opline writes in place (pto__emit_varop):
   "[BASE + ]NAME op VAL", var v, op kind (0: the expression is another);
   ex + 1 of the expression it answers (0: an empty cache entry). */
typedef struct pto__emit_vo {
    int64_t val, base;
    int32_t ex, v, kind;
} pto__emit_vo;

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
    /* pto__emit_varop's last answers for event ids, by expression (a
       set_flag and its wait_flag name the same one) */
    pto__emit_vo vo[8];
    /* pto__emit_iter_unsafe_c: by loop statement + 1, whether its iteration
       number needs pto_k_iter_mod */
    int32_t iter_loop[8];
    uint8_t iter_bad[8];
    uint32_t rlen[256];   /* by PTO__EMIT_RKEY, a bit per length of the reserved names (pto__emit_cname) */
    /* pto_k_tdecl placement (pto__emit_tdecls): the statements that have
       tdecls right before them, each with a list of nodes naming the tiles
       (pto__emit_td: an open-addressing table by statement, tdcap entries, a
       power of two or 0, tdn used; an entry goes when its statement is
       emitted, so it holds the placements still ahead) */
    struct pto__emit_td *td;
    uint32_t tdcap, tdn;
    int32_t *tdecl_tile, *tdecl_next;
    int32_t ntdecl, ntdecl_cap;   /* nodes used / allocated in tdecl_tile and tdecl_next */
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
                             (PTO__EMIT_USE_LATER); bit 4: a flag's event id (PTO__EMIT_USE_FLAG) */
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
    char srchead[256 + 1 + 32];   /* "FILE:" alone, never written again (read 32 bytes at a time) */
    uint64_t srcdig;      /* the LINE digits of srcline as one word (srcdn of them, then zero bytes; 0: none) */
    uint32_t srcdn;
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
    size_t gm_room;       /* the most a tensor operand at leaf indices takes in pto__emit_opline */
    size_t op_room;       /* what an op line needs besides argmax + 40 per operand (pto__emit_opline) */
    /* A second target (emit_isa.c) reuses this walk: it sets hooks for the
       statements it spells differently (NULL: the C spelling below) and
       isa for the spelling of the builtins in kernel expressions. */
    void (*hook_op)(struct pto__emitter *E, int32_t s);
    void (*hook_tile)(struct pto__emitter *E, int32_t s);
    void (*hook_section)(struct pto__emitter *E, int32_t s);
    int isa;
    int ck;        /* host code: + - * and unary - through pto_h_ck (the blocks expression, pto__emit_blocks) */
    /* kernel expressions (pto__emit_expr): 0 outside one, 1 inside one
       whose + - * and unary - cannot leave int64 (plain C), 2 inside one
       where some may (each such node checked: pto__emit_ick); kb the
       blocks expression of the kernel being written (-1: one block) */
    int kin;
    int32_t kb;
    int32_t kline;   /* the line of the statement being written, 0 for an op (its $(src) is set) */
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
    if (v > 0 && v < 100000000) {   /* line numbers of large sources, byte offsets: two halves, in place */
        uint32_t x = (uint32_t)v, hi = x / 10000, lo = x % 10000, h1 = hi / 100, h0 = hi % 100;
        n = hi >= 1000 ? 8 : hi >= 100 ? 7 : hi >= 10 ? 6 : 5;
        p = buf + n;
        *p = 0;
        memcpy(p - 4, pairs + 2 * (lo / 100), 2);   /* the low four digits, zeros included */
        memcpy(p - 2, pairs + 2 * (lo % 100), 2);
        p[-5] = pairs[2 * h0 + 1];
        if (n >= 6) p[-6] = pairs[2 * h0];
        if (n >= 7) p[-7] = pairs[2 * h1 + 1];
        if (n == 8) p[-8] = pairs[2 * h1];
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
    if (b->data && b->cap - b->len > 25) {   /* in place (pto__emit_i64 ends it with a NUL) */
        b->len += pto__emit_i64(b->data + b->len, v);
        return;
    }
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
   memory owned by the emitter (NULL when out of memory). A user's name (user:
   not made by a pass) that starts with "__" or "_" and a capital is renamed
   too: C reserves those for the implementation (a tile named _IOFBF or a
   let named __LINE__ was a macro's number), and the names lower makes
   start with "__" (__put4_stage, __ar6_ch), which a user's name of the same
   spelling met in one C scope (a redeclaration error in the generated
   kernel: the upstream allreduce review's "emitted names stay unique"). */
/* Whether .pto name `name` is surely its own C spelling: most names (no
   reserved name has their first two bytes and length); 0 when it takes the
   full test (pto__emit_cname). */
static int pto__emit_cname_plain(const pto__emitter *E, int32_t name)
{
    const char *s;
    size_t n;
    if (name <= 0 || name >= E->ctx->n_strs) return 0;
    s = pto_str(E->ctx, name);
    if (s[0] == 'p' || s[0] == 'P' || s[0] == 'u' || s[0] == 'k' || s[0] == 'h' || s[0] == '_') return 0;
    n = pto__str_len(E->ctx, name);
    return n >= 32 || (n && !(E->rlen[PTO__EMIT_RKEY(s)] >> n & 1));
}

static char *pto__emit_cname(pto__emitter *E, int32_t name, int *owned, int user)
{
    const char *s = pto_str(E->ctx, name);
    char *c;
    size_t n;
    *owned = 0;
    if (pto__emit_cname_plain(E, name)) return (char *)s;
    if (!pto__emit_is_reserved(s) && !(user && s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z'))))
        return (char *)s;
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
        int own, user;
        int32_t id = which == PTO__NAMES_VAR ? m->vars[i].name
                   : which == PTO__NAMES_TILE ? m->tiles[i].name : m->params[i].name;
        if (pto__emit_cname_plain(E, id)) {   /* (whose it is matters only to the full test) */
            (*names)[i] = (char *)pto_str(E->ctx, id);
            continue;
        }
        /* made by a pass (lower's staging tiles, loop vars and lets): not the user's */
        user = which == PTO__NAMES_TILE ? m->tiles[i].origin == PTO_BY_USER
             : which == PTO__NAMES_PARAM || m->vars[i].kind > PTO_V_LOOP || m->vars[i].def < 0 ||
               m->vars[i].def >= m->n_stmts || m->stmts[m->vars[i].def].origin == PTO_BY_USER;
        (*names)[i] = pto__emit_cname(E, id, &own, user);
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
    for (i = 0, E->gm_room = 0; i < m->n_params; i++)   /* ", NAME" and two leaves (pto__emit_leaf_arg) */
        if ((size_t)E->param_len[i] + 2 * E->argmax + 96 > E->gm_room) E->gm_room = (size_t)E->param_len[i] + 2 * E->argmax + 96;
    /* an op line's literal pieces (an indent, the op, a bound FILE: under 2 * sizeof file), its
       FILE:LINE (under sizeof srcline), a K_OP_SEE reference's values (a pass, an op, a number),
       one tensor at leaf indices and the padding its moves write past the end */
    E->op_room = 2 * sizeof E->file + sizeof E->srcline + 256 + E->gm_room + PTO__EMIT_BPAD;
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
        if (m->exprs[ex].kind <= PTO_E_NRANKS) return 0;   /* a variable or a builtin: no constant, nothing kept */
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
   Or INT + that, INT from 1 to 9999 and op one of * / % (they bind tighter
   than +: no parentheses): "BASE + NAME op INT", a rotation that starts
   at another id than 0 (`2 + (i - 0) % 2`, a third of a kernel's flags).
   (pto__emit_expr gives the same text without asking: the identities it
   removes are these, a literal from 1 up is neither folded nor removed,
   and a divisor above 1 needs no pto_emit_div; asked at every node of a
   let's expression, this test was a quarter of its cost.) */
static inline int pto__emit_varop(pto__emitter *E, int32_t ex, pto__emit_vo *r)
{
    const pto_module *m = E->m;
    const pto_expr *x;
    int32_t xa, xb;
    r->base = 0;
    if (ex < 0 || ex >= m->n_exprs || m->exprs[ex].kind < PTO_E_ADD || m->exprs[ex].kind > PTO_E_MOD || !E->var_len)
        return 0;
    x = &m->exprs[ex];
    if (x->kind == PTO_E_ADD && (uint32_t)x->a < (uint32_t)m->n_exprs && (uint32_t)x->b < (uint32_t)m->n_exprs &&
        m->exprs[x->a].kind == PTO_E_INT && m->exprs[x->a].value >= 0 && m->exprs[x->a].value < 10000 &&
        m->exprs[x->b].kind == PTO_E_MOD) {   /* the sync pass's id, first: INT + (VAR - 0) % INT, peeled by hand */
        const pto_expr *mod = &m->exprs[x->b], *v, *n;
        if ((uint32_t)mod->a < (uint32_t)m->n_exprs && (uint32_t)mod->b < (uint32_t)m->n_exprs) {
            v = &m->exprs[mod->a];
            n = &m->exprs[mod->b];
            if (v->kind == PTO_E_SUB && (uint32_t)v->a < (uint32_t)m->n_exprs && (uint32_t)v->b < (uint32_t)m->n_exprs &&
                m->exprs[v->b].kind == PTO_E_INT && m->exprs[v->b].value == 0)
                v = &m->exprs[v->a];
            if (v->kind == PTO_E_VAR && v->a >= 0 && v->a < m->n_vars && n->kind == PTO_E_INT && n->value > 1) {
                r->base = m->exprs[x->a].value;
                r->v = v->a;
                r->kind = PTO_E_MOD;
                r->val = n->value;
                return 1;
            }
        }
    }
    x = &m->exprs[pto__emit_peel(m, ex)];
    if (x->kind == PTO_E_ADD && x->a >= 0 && x->a < m->n_exprs && m->exprs[x->a].kind == PTO_E_INT &&
        m->exprs[x->a].value >= 1 && m->exprs[x->a].value < 10000 && x->b >= 0 && x->b < m->n_exprs) {
        r->base = m->exprs[x->a].value;
        x = &m->exprs[pto__emit_peel(m, x->b)];
        if (x->kind != PTO_E_MUL && x->kind != PTO_E_DIV && x->kind != PTO_E_MOD) return 0;
    }
    if (x->kind < PTO_E_ADD || x->kind > PTO_E_MOD) return 0;
    xa = pto__emit_peel(m, x->a);
    if (xa < 0 || xa >= m->n_exprs || m->exprs[xa].kind != PTO_E_VAR || m->exprs[xa].a < 0 || m->exprs[xa].a >= m->n_vars)
        return 0;
    xb = pto__emit_peel(m, x->b);
    if (xb < 0 || xb >= m->n_exprs || m->exprs[xb].kind != PTO_E_INT || m->exprs[xb].value <= 1) return 0;
    r->v = m->exprs[xa].a;
    r->kind = x->kind;
    r->val = m->exprs[xb].value;
    return 1;
}

/* pto__emit_varop through the small cache above: the answer for ex (its
   kind 0 when it is another expression). */
static const pto__emit_vo *pto__emit_varop_c(pto__emitter *E, int32_t ex)
{
    pto__emit_vo *c = &E->vo[ex & 7];
    if (c->ex == ex + 1) return c;
    if (!pto__emit_varop(E, ex, c)) c->kind = 0;
    c->ex = ex + 1;
    return c;
}

static inline void pto__emit_int(pto_buf *b, int64_t v, int mode)
{
    if (v >= 0 && v < 10) {   /* most of them: an event id, a zero offset */
        char c = (char)('0' + v);
        pto__emit_put(b, &c, 1);
    } else if (v == INT64_MIN && mode != PTO__EX_PTO) pto__emit_puts(b, "(-9223372036854775807 - 1)");
    else pto__emit_put_i64(b, v);
}

/* ---- loop arithmetic the emitter adds ------------------------------------
   The reference interpreter evaluates each .pto expression exactly and
   refuses one that overflows; where it accepts one, the kernel's int64_t
   arithmetic gives the same value. The emitter adds arithmetic of its own,
   which the interpreter never sees: a loop's `i += step`, and the
   iteration number (i - start) / step of an xN tile's slot and of the sync
   pass's rotating event ids (pto__sy_rotexpr). It must not overflow either,
   for any values the interpreter accepts (review18 H1: `for i = 1 to N step
   2^63 - 1` wrapped and ran again; `for i = -2^63 to 2^63 - 1 step 2^62`
   put an x2 tile at byte -4096). pto__emit_range bounds an expression over
   those values: a dim is in [0, 2^31), an i32 / i8 scalar in its dtype, any
   other scalar under 2^53 in magnitude (the interpreter's bindings), a let
   what its expression gives, a loop variable from its start up to below its
   end. Where the bounds prove the plain form safe it stays (a literal start
   from 0, an end far from INT64_MAX: the usual kernels); elsewhere the
   kernel calls the exact helpers of pto_kernels.h, `i = pto_k_next(i, step,
   end)` and `pto_k_iter_mod(i, start, step, M)` (pto_isa_next /
   pto_isa_iter_mod on the isa target, defined in its file). */

#define PTO__EMIT_RANGE_BUDGET 256   /* nodes per question; past it a value is any int64 */

/* a + b, a - b, a * b, -a clamped to int64: a bound past the range is the
   range's end (every value the interpreter accepts is an int64) */
static int64_t pto__emit_sadd(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

static int64_t pto__emit_ssub(int64_t a, int64_t b)
{
    if (b < 0 && a > INT64_MAX + b) return INT64_MAX;
    if (b > 0 && a < INT64_MIN + b) return INT64_MIN;
    return a - b;
}

static int64_t pto__emit_sneg(int64_t a) { return a == INT64_MIN ? INT64_MAX : -a; }

static int64_t pto__emit_smul(int64_t a, int64_t b)
{
    uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a, ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    int neg = (a < 0) != (b < 0);
    if (!ua || !ub) return 0;
    if (ua > (uint64_t)INT64_MAX / ub) return neg ? INT64_MIN : INT64_MAX;
    return neg ? -(int64_t)(ua * ub) : (int64_t)(ua * ub);
}

/* a / b, b != 0, clamped (INT64_MIN / -1) */
static int64_t pto__emit_sdiv(int64_t a, int64_t b) { return b == -1 ? pto__emit_sneg(a) : a / b; }

static void pto__emit_range(const pto_module *m, int32_t ex, int32_t kb, int64_t cap, int64_t *lo, int64_t *hi, int *budget);

/* The values variable v can hold where it is read. */
static void pto__emit_var_range(const pto_module *m, int32_t v, int32_t kb, int64_t cap, int64_t *lo, int64_t *hi, int *budget)
{
    const pto_var *var = &m->vars[v];
    int64_t l2, h2;
    *lo = INT64_MIN;
    *hi = INT64_MAX;
    switch (var->kind) {
    case PTO_V_DIM:   /* bound to an integer in [0, 2^31) */
        *lo = 0;
        *hi = 2147483647;
        break;
    case PTO_V_SCALAR:   /* an integer of its dtype, or a float whose integer value is under 2^53 */
        if (var->def >= 0 && var->def < m->n_params &&
            (m->params[var->def].dtype == PTO_I32 || m->params[var->def].dtype == PTO_I8)) {
            *lo = (int64_t)pto_int_lo(m->params[var->def].dtype);
            *hi = (int64_t)pto_int_hi(m->params[var->def].dtype);
        } else {
            *lo = -9007199254740991;
            *hi = 9007199254740991;
        }
        break;
    case PTO_V_LET:
        if (var->def >= 0 && var->def < m->n_stmts && m->stmts[var->def].kind == PTO_ST_LET)
            pto__emit_range(m, m->stmts[var->def].e[0], kb, cap, lo, hi, budget);
        break;
    case PTO_V_LOOP:   /* start <= i < end */
        if (var->def >= 0 && var->def < m->n_stmts && m->stmts[var->def].kind == PTO_ST_FOR) {
            pto__emit_range(m, m->stmts[var->def].e[0], kb, cap, lo, &h2, budget);
            pto__emit_range(m, m->stmts[var->def].e[1], kb, cap, &l2, hi, budget);
            *hi = pto__emit_ssub(*hi, 1);
            if (*hi < *lo) *hi = *lo;   /* (a loop that never runs: i is never read) */
        }
        break;
    default: break;
    }
}

/* Whether the exact a + b, a - b or a * b (kind) leaves int64. */
static int pto__emit_leaves(int kind, int64_t a, int64_t b)
{
    uint64_t ua, ub;
    if (kind == PTO_E_ADD) return (b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b);
    if (kind == PTO_E_SUB) return (b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b);
    ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    return ua && ub && ua > ((uint64_t)INT64_MAX + (uint64_t)((a < 0) != (b < 0))) / ub;
}

/* [*lo, *hi] for a op b (kind: + - * / % min max) from the operands'
   [al, ah] and [bl, bh], clamped to int64. Returns whether a + - * may
   leave int64 there: its extremes are at the corners of the box. */
#define PTO__EMIT_SMALL(x, k) ((uint64_t)(x) + ((uint64_t)1 << (k)) < ((uint64_t)1 << ((k) + 1)))   /* -2^k <= x < 2^k */

static int pto__emit_range_op(int kind, int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t *lo, int64_t *hi)
{
    int64_t c[4];
    int i;
    if (kind <= PTO_E_MUL && PTO__EMIT_SMALL(al, 31) && PTO__EMIT_SMALL(ah, 31) && PTO__EMIT_SMALL(bl, 31) &&
        PTO__EMIT_SMALL(bh, 31)) {   /* the usual index: exact in int64, no test needed */
        if (kind == PTO_E_ADD) *lo = al + bl, *hi = ah + bh;
        else if (kind == PTO_E_SUB) *lo = al - bh, *hi = ah - bl;
        else {
            c[0] = al * bl, c[1] = al * bh, c[2] = ah * bl, c[3] = ah * bh;
            *lo = c[0] < c[1] ? c[0] : c[1];
            *hi = c[0] < c[1] ? c[1] : c[0];
            for (i = 2; i < 4; i++) {
                if (c[i] < *lo) *lo = c[i];
                if (c[i] > *hi) *hi = c[i];
            }
        }
        return 0;
    }
    *lo = INT64_MIN;
    *hi = INT64_MAX;
    switch (kind) {
    case PTO_E_ADD:
        *lo = pto__emit_sadd(al, bl);
        *hi = pto__emit_sadd(ah, bh);
        return pto__emit_leaves(kind, al, bl) || pto__emit_leaves(kind, ah, bh);
    case PTO_E_SUB:
        *lo = pto__emit_ssub(al, bh);
        *hi = pto__emit_ssub(ah, bl);
        return pto__emit_leaves(kind, al, bh) || pto__emit_leaves(kind, ah, bl);
    case PTO_E_MIN: *lo = al < bl ? al : bl; *hi = ah < bh ? ah : bh; return 0;
    case PTO_E_MAX: *lo = al > bl ? al : bl; *hi = ah > bh ? ah : bh; return 0;
    case PTO_E_MUL:   /* the extremes are at the corners */
        c[0] = pto__emit_smul(al, bl); c[1] = pto__emit_smul(al, bh);
        c[2] = pto__emit_smul(ah, bl); c[3] = pto__emit_smul(ah, bh);
        break;
    case PTO_E_DIV:
        if (bl > 0 || bh < 0) {   /* one sign: monotone in each operand, the corners again */
            c[0] = pto__emit_sdiv(al, bl); c[1] = pto__emit_sdiv(al, bh);
            c[2] = pto__emit_sdiv(ah, bl); c[3] = pto__emit_sdiv(ah, bh);
            break;
        }
        /* (the divisor is never 0 where the interpreter accepts it) |a / b| <= |a| */
        *hi = pto__emit_sneg(al) > ah ? pto__emit_sneg(al) : ah;
        *lo = -*hi;
        return 0;
    case PTO_E_MOD: {   /* the sign of a, |a % b| < |b| and <= |a| */
        int64_t bm = pto__emit_sneg(bl) > bh ? pto__emit_sneg(bl) : bh;
        bm = bm > 0 ? bm - 1 : 0;
        *lo = al >= 0 ? 0 : al > -bm ? al : -bm;
        *hi = ah <= 0 ? 0 : ah < bm ? ah : bm;
        return 0;
    }
    default: return 0;
    }
    *lo = *hi = c[0];
    for (i = 1; i < 4; i++) {
        if (c[i] < *lo) *lo = c[i];
        if (c[i] > *hi) *hi = c[i];
    }
    return kind == PTO_E_MUL && (pto__emit_leaves(kind, al, bl) || pto__emit_leaves(kind, al, bh) ||
                                 pto__emit_leaves(kind, ah, bl) || pto__emit_leaves(kind, ah, bh));
}

/* [*lo, *hi] holds every value expression ex takes where the interpreter
   evaluates it without overflow (and where the kernel reads it: a kernel
   stops at an overflow, pto_k_iadd ...). kb: the
   kernel's blocks expression (-1: one block, -2: not known), which bounds
   block and blocks (a grid-stride `for i = block to T step blocks`); cap:
   the most blocks and ranks the target launches (pto__emit_cap; INT64_MAX:
   no bound). */
static void pto__emit_range(const pto_module *m, int32_t ex, int32_t kb, int64_t cap, int64_t *lo, int64_t *hi, int *budget)
{
    const pto_expr *e;
    int64_t al, ah, bl, bh;
    *lo = INT64_MIN;
    *hi = INT64_MAX;
    if (ex < 0 || ex >= m->n_exprs || --*budget < 0) return;
    e = &m->exprs[ex];
    switch (e->kind) {
    case PTO_E_INT: *lo = *hi = e->value; return;
    case PTO_E_VAR:
        if (e->a >= 0 && e->a < m->n_vars) pto__emit_var_range(m, e->a, kb, cap, lo, hi, budget);
        return;
    case PTO_E_BLOCK: case PTO_E_BLOCKS:   /* 0 <= block < blocks */
        if (kb == -1) *hi = 1;
        else if (kb >= 0) pto__emit_range(m, kb, -2, cap, &al, hi, budget);
        else *hi = cap;
        if (*hi > cap) *hi = cap;
        *lo = 0;
        if (*hi < 0) *hi = 0;
        if (e->kind == PTO_E_BLOCK && *hi > 0) --*hi;
        return;
    case PTO_E_RANK: case PTO_E_NRANKS:   /* 0 <= rank < nranks <= cap */
        *lo = 0;
        *hi = e->kind == PTO_E_RANK && cap < INT64_MAX ? cap - 1 : cap;
        return;
    case PTO_E_SUBBLOCK: *lo = 0; *hi = 1; return;
    case PTO_E_NEG:
        pto__emit_range(m, e->a, kb, cap, &al, &ah, budget);
        *lo = pto__emit_sneg(ah);
        *hi = pto__emit_sneg(al);
        return;
    default: break;
    }
    if (e->kind < PTO_E_ADD || e->kind > PTO_E_MAX) return;
    pto__emit_range(m, e->a, kb, cap, &al, &ah, budget);
    pto__emit_range(m, e->b, kb, cap, &bl, &bh, budget);
    pto__emit_range_op(e->kind, al, ah, bl, bh, lo, hi);
}

/* Whether some +, -, * or unary - of expression ex itself (not of the
   lets it names: each is checked where it is defined) may leave int64 for
   values its variables can take; [*lo, *hi] as pto__emit_range. One pass
   over ex (the variables' ranges aside). Run out of budget, a node may. */
static int pto__emit_iter_of(const pto_module *m, const pto_expr *e, int32_t *loop, int32_t *step);

static int pto__emit_ovf(const pto_module *m, int32_t ex, int32_t kb, int64_t cap, int64_t *lo, int64_t *hi, int *budget)
{
    const pto_expr *e;
    int64_t al, ah, bl, bh;
    int32_t L, step;
    int bad;
    if (ex < 0 || ex >= m->n_exprs || *budget <= 0) {
        *lo = INT64_MIN;
        *hi = INT64_MAX;
        return 1;
    }
    e = &m->exprs[ex];
    if (e->kind == PTO_E_NEG) {
        --*budget;
        bad = pto__emit_ovf(m, e->a, kb, cap, &al, &ah, budget);
        *lo = pto__emit_sneg(ah);
        *hi = pto__emit_sneg(al);
        return bad || al == INT64_MIN;   /* (-INT64_MIN) */
    }
    if (e->kind == PTO_E_INT) {   /* (the most common leaf, without a call) */
        *lo = *hi = e->value;
        return 0;
    }
    if (e->kind < PTO_E_ADD || e->kind > PTO_E_MAX) {
        pto__emit_range(m, ex, kb, cap, lo, hi, budget);
        return *budget < 0;
    }
    if (e->kind == PTO_E_MOD && pto__emit_iter_of(m, e, &L, &step)) {   /* exact: pto__emit_expr_in */
        pto__emit_range(m, ex, kb, cap, lo, hi, budget);
        return 0;
    }
    --*budget;
    bad = pto__emit_ovf(m, e->a, kb, cap, &al, &ah, budget);
    bad |= pto__emit_ovf(m, e->b, kb, cap, &bl, &bh, budget);
    return pto__emit_range_op(e->kind, al, ah, bl, bh, lo, hi) || bad;
}

/* The blocks expression of the kernel of statement f (-1: one block; -2:
   not known). */
static int32_t pto__emit_kblocks(const pto_module *m, const pto_stmt *f)
{
    int32_t k;
    if (f->block < 0 || f->block >= m->n_blocks) return -2;
    k = m->blocks[f->block].kernel;
    if (k < 0 || k >= m->n_kernels) return -2;
    return m->kernels[k].blocks < m->n_exprs ? m->kernels[k].blocks : -2;
}

/* Whether `i += step` in loop f can overflow (it can only past the last
   value below end: that value plus step). A unit step cannot: i < end. */
static int pto__emit_next_unsafe(const pto_module *m, const pto_stmt *f)
{
    int budget = PTO__EMIT_RANGE_BUDGET;
    int32_t kb = pto__emit_kblocks(m, f);
    int64_t sl, sh, el, eh, tl, th, last;
    if (f->e[2] < 0) return 0;
    pto__emit_range(m, f->e[2], kb, INT64_MAX, &tl, &th, &budget);
    if (th <= 1) return 0;   /* 1, or a step the loop refuses to run with */
    pto__emit_range(m, f->e[0], kb, INT64_MAX, &sl, &sh, &budget);
    pto__emit_range(m, f->e[1], kb, INT64_MAX, &el, &eh, &budget);
    if (eh <= sl) return 0;   /* it never runs */
    last = eh - 1;
    if (sl == sh && tl == th)   /* one start, one step: the last value is start + k * step */
        last = (int64_t)((uint64_t)sl + ((uint64_t)last - (uint64_t)sl) / (uint64_t)th * (uint64_t)th);
    return last > INT64_MAX - th;
}

/* Whether (i - start) in loop f can overflow: i - start <= end - 1 - start,
   which passes INT64_MAX only from a negative start. */
static int pto__emit_iter_unsafe(const pto_module *m, const pto_stmt *f)
{
    int budget = PTO__EMIT_RANGE_BUDGET;
    int32_t kb;
    int64_t sl, sh, el, eh;
    if (f->e[0] >= 0 && f->e[0] < m->n_exprs && m->exprs[f->e[0]].kind == PTO_E_INT && m->exprs[f->e[0]].value >= 0)
        return 0;
    kb = pto__emit_kblocks(m, f);
    pto__emit_range(m, f->e[0], kb, INT64_MAX, &sl, &sh, &budget);
    if (sl >= 0) return 0;
    pto__emit_range(m, f->e[1], kb, INT64_MAX, &el, &eh, &budget);
    return eh > sl && eh - 1 > INT64_MAX + sl;
}

/* pto__emit_iter_unsafe of loop statement L, asked again for each slot and
   event id in its body: a small cache by statement */
static int pto__emit_iter_unsafe_c(pto__emitter *E, int32_t L)
{
    int c = L & 7;
    if (E->iter_loop[c] != L + 1) {
        E->iter_loop[c] = L + 1;
        E->iter_bad[c] = (uint8_t)pto__emit_iter_unsafe(E->m, &E->m->stmts[L]);
    }
    return E->iter_bad[c];
}

/* Whether expression e (a %) is ((i - start) / step) % M, or (i - start) % M
   for a unit step, of the loop L of variable i, start and step the same
   expressions as that loop's (what pto__sy_rotexpr writes): *loop = L, *step
   the divisor (-1: none). The exact form of it is pto_k_iter_mod. */
static int pto__emit_iter_of(const pto_module *m, const pto_expr *e, int32_t *loop, int32_t *step)
{
    const pto_expr *x;
    int32_t v, L;
    if (e->kind != PTO_E_MOD || (uint32_t)e->a >= (uint32_t)m->n_exprs || (uint32_t)e->b >= (uint32_t)m->n_exprs ||
        m->exprs[e->b].kind != PTO_E_INT || m->exprs[e->b].value < 1)
        return 0;
    x = &m->exprs[e->a];
    *step = -1;
    if (x->kind == PTO_E_DIV) {
        *step = x->b;
        if ((uint32_t)x->a >= (uint32_t)m->n_exprs) return 0;
        x = &m->exprs[x->a];
    }
    if (x->kind != PTO_E_SUB || (uint32_t)x->a >= (uint32_t)m->n_exprs || m->exprs[x->a].kind != PTO_E_VAR) return 0;
    v = m->exprs[x->a].a;
    if (v < 0 || v >= m->n_vars || m->vars[v].kind != PTO_V_LOOP) return 0;
    L = m->vars[v].def;
    if (L < 0 || L >= m->n_stmts || m->stmts[L].kind != PTO_ST_FOR || !pto__expr_same(m, x->b, m->stmts[L].e[0]))
        return 0;
    if (*step >= 0 ? !pto__expr_same(m, *step, m->stmts[L].e[2])
                   : m->stmts[L].e[2] >= 0 && !(m->stmts[L].e[2] < m->n_exprs &&
                                               m->exprs[m->stmts[L].e[2]].kind == PTO_E_INT &&
                                               m->exprs[m->stmts[L].e[2]].value == 1))
        return 0;
    *loop = L;
    return 1;
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

/* The builtins in kernel C, in .pto text and on the isa target. */
static const char *const pto__emit_builtin_c[] = {"pto_k_block_idx(core)", "pto_k_block_num(core)",
                                                  "pto_k_subblock(core)", "pto_k_rank(core)", "pto_k_nranks(core)"};
static const unsigned char pto__emit_builtin_c_len[] = {21, 21, 20, 16, 18};   /* (their strlen) */
static const char *const pto__emit_builtin_pto[] = {"block", "blocks", "subblock", "rank", "nranks"};
static const char *const pto__emit_builtin_isa[] = {"(int64_t)PTO_ISA_BLOCK_IDX(args)", "(int64_t)PTO_ISA_BLOCK_NUM(args)",
                                                    "(int64_t)PTO_ISA_SUBBLOCK(args)", "0", "1"};

/* Kernel expression e when it is A op B, op one of + - *, A and B each a
   variable, a builtin or a literal from 2 up, not both literals: then
   nothing folds (a variable or a builtin is no constant) and no identity
   applies (no operand is 0 or 1), so pto__emit_expr's text is "A op B", in
   parentheses under a tighter context. It is written here without the
   printer's questions at each node (the terms of a let's index: block *
   128, i * 16); 0 when e is another. */
static int pto__emit_atoms(pto__emitter *E, pto_buf *b, const pto_expr *e, int ctxprec)
{
    const pto_module *m = E->m;
    const pto_expr *x[2];
    int i, paren;
    size_t need;
    if (e->kind < PTO_E_ADD || e->kind > PTO_E_MUL || !E->var_len || (uint32_t)e->a >= (uint32_t)m->n_exprs ||
        (uint32_t)e->b >= (uint32_t)m->n_exprs)
        return 0;
    x[0] = &m->exprs[e->a];
    x[1] = &m->exprs[e->b];
    for (i = 0; i < 2; i++)
        if (x[i]->kind == PTO_E_INT ? x[i]->value < 2
                                    : x[i]->kind == PTO_E_VAR ? (uint32_t)x[i]->a >= (uint32_t)m->n_vars
                                                              : x[i]->kind < PTO_E_BLOCK || x[i]->kind > PTO_E_NRANKS)
            return 0;
    if (x[0]->kind == PTO_E_INT && x[1]->kind == PTO_E_INT) return 0;
    paren = (e->kind == PTO_E_MUL ? 2 : 1) < ctxprec;
    need = 2 * E->argmax + 128;   /* two names or builtins (< 40) or numbers (< 26), an op, parentheses */
    if (b->cap - b->len <= need && !b->sink) pto__emit_reserve(b, b->len + need + 256);   /* (doubling) */
    if (b->data && !b->oom && b->cap - b->len > need) {   /* written in place */
        char *d = b->data + b->len;
        if (paren) *d++ = '(';
        for (i = 0; i < 2; i++) {
            const char *t;
            size_t n;
            if (i) {
                memcpy(d, pto__emit_ops[e->kind - PTO_E_ADD], 3);
                d += 3;
            }
            if (x[i]->kind == PTO_E_INT) {
                if (x[i]->value < 10) *d++ = (char)('0' + x[i]->value);   /* (2 to 9: a factor, a stride) */
                else d += pto__emit_i64(d, x[i]->value);
                continue;
            }
            if (x[i]->kind == PTO_E_VAR) t = E->var_name[x[i]->a], n = (size_t)E->var_len[x[i]->a];
            else if (E->isa) t = pto__emit_builtin_isa[x[i]->kind - PTO_E_BLOCK], n = strlen(t);   /* (as below) */
            else t = pto__emit_builtin_c[x[i]->kind - PTO_E_BLOCK], n = pto__emit_builtin_c_len[x[i]->kind - PTO_E_BLOCK];
            pto__emit_cp(d, t, n);
            d += n;
        }
        if (paren) *d++ = ')';
        *d = 0;
        b->len = (size_t)(d - b->data);
        return 1;
    }
    if (paren) pto__emit_put(b, "(", 1);
    for (i = 0; i < 2; i++) {
        if (i) pto__emit_put(b, pto__emit_ops[e->kind - PTO_E_ADD], 3);
        if (x[i]->kind == PTO_E_INT) pto__emit_put_i64(b, x[i]->value);
        else if (x[i]->kind == PTO_E_VAR) pto__emit_put(b, E->var_name[x[i]->a], (size_t)E->var_len[x[i]->a]);
        /* two indexings, not (isa ? A : B)[k]: gcc's UBSan object-size check
           took that load for one past a smaller object (test-sanitize) */
        else if (E->isa) pto__emit_puts(b, pto__emit_builtin_isa[x[i]->kind - PTO_E_BLOCK]);
        else pto__emit_puts(b, pto__emit_builtin_c[x[i]->kind - PTO_E_BLOCK]);
    }
    if (paren) pto__emit_put(b, ")", 1);
    return 1;
}

static void pto__emit_expr(pto__emitter *E, pto_buf *b, int32_t ex, int mode, int ctxprec);

/* ((i - start) / step) % n of loop statement L (step < 0: a unit step), i
   >= start, as the exact pto_k_iter_mod(i, start, step, n): a call, no
   parentheses needed around it. */
static void pto__emit_iter_mod(pto__emitter *E, pto_buf *b, int32_t L, int32_t step, int64_t n)
{
    const pto_stmt *f = &E->m->stmts[L];
    pto__emit_puts(b, E->isa ? "pto_isa_iter_mod(" : "pto_k_iter_mod(");
    pto__emit_puts(b, E->var_name[f->ref]);
    pto__emit_put(b, ", ", 2);
    pto__emit_expr(E, b, f->e[0], PTO__EX_KERNEL, 0);
    pto__emit_put(b, ", ", 2);
    if (step < 0) pto__emit_put(b, "1", 1);
    else pto__emit_expr(E, b, step, PTO__EX_KERNEL, 0);
    pto__emit_put(b, ", ", 2);
    pto__emit_put_i64(b, n);
    pto__emit_put(b, ")", 1);
}

/* The most blocks (and ranks) a launch of the target has: the
   simulator refuses more than pto_kernels.h's PTO_K_MAX_CORES (4096) cores
   in one launch (blocks x 3 for a mix kernel x ranks); a device's
   blockDim is a uint32_t (rank is 0 there). */
#define PTO__EMIT_SIM_CORES 4096
static int64_t pto__emit_cap(const pto__emitter *E) { return E->isa ? (int64_t)1 << 32 : PTO__EMIT_SIM_CORES; }

/* Whether node e (+ - * or unary -) of a kernel expression may leave
   int64 for the values its operands can take. */
static int pto__emit_node_ovf(const pto__emitter *E, const pto_expr *e)
{
    int budget = PTO__EMIT_RANGE_BUDGET;
    int64_t al, ah, bl, bh, lo, hi;
    pto__emit_range(E->m, e->a, E->kb, pto__emit_cap(E), &al, &ah, &budget);
    if (e->kind == PTO_E_NEG) return al == INT64_MIN;
    pto__emit_range(E->m, e->b, E->kb, pto__emit_cap(E), &bl, &bh, &budget);
    return pto__emit_range_op(e->kind, al, ah, bl, bh, &lo, &hi) || budget < 0;
}

/* A + - * or unary - that may leave int64, as a checked call: in the
   simulator's C pto_k_iadd(core, "FILE:LINE", a, b) ..., which reports an
   overflow at the expression's line and stops the launch; on the isa
   target pto_isa_iadd(a, b) ..., wrapped without undefined behaviour (the
   device cannot report; pto__isa_ovf_warn warned). */
static void pto__emit_ick(pto__emitter *E, pto_buf *b, const pto_expr *e)
{
    static const char *const names[] = {"add(", "sub(", "mul("};
    pto__emit_puts(b, E->isa ? "pto_isa_i" : "pto_k_i");
    pto__emit_puts(b, e->kind == PTO_E_NEG ? "neg(" : names[e->kind - PTO_E_ADD]);
    if (!E->isa && (e->loc.line > 0 || E->kline > 0)) {   /* the expression's line, else its statement's */
        pto__emit_puts(b, "core, \"");
        pto__emit_puts(b, E->file);
        pto_buf_printf(b, ":%d\", ", (int)(e->loc.line > 0 ? e->loc.line : E->kline));
    } else if (!E->isa) {   /* an op's operand: the op's FILE:LINE */
        pto__emit_puts(b, "core, \"");
        pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
        pto__emit_put(b, "\", ", 3);
    }
    pto__emit_expr(E, b, e->a, PTO__EX_KERNEL, 0);
    if (e->kind != PTO_E_NEG) {
        pto__emit_put(b, ", ", 2);
        pto__emit_expr(E, b, e->b, PTO__EX_KERNEL, 0);
    }
    pto__emit_put(b, ")", 1);
}

static void pto__emit_expr_in(pto__emitter *E, pto_buf *b, int32_t ex, int mode, int ctxprec);

/* Expression ex as C (mode KERNEL, HOST) or .pto text. A kernel
   expression is asked once, at its root, whether any + - * or unary - in
   it may leave int64 (pto__emit_ovf: loop variables from their bounds,
   block below blocks, dims under 2^31, scalars in their dtype, lets from
   their values); almost every one cannot, and is plain C. */
static void pto__emit_expr(pto__emitter *E, pto_buf *b, int32_t ex, int mode, int ctxprec)
{
    const pto_module *m = E->m;
    int64_t lo, hi;
    int budget = PTO__EMIT_RANGE_BUDGET;
    if (mode != PTO__EX_KERNEL || E->kin || ex < 0 || ex >= m->n_exprs || m->exprs[ex].kind <= PTO_E_NRANKS) {
        pto__emit_expr_in(E, b, ex, mode, ctxprec);
        return;
    }
    E->kin = 1 + pto__emit_ovf(m, ex, E->kb, pto__emit_cap(E), &lo, &hi, &budget);
    pto__emit_expr_in(E, b, ex, mode, ctxprec);
    E->kin = 0;
}

static void pto__emit_expr_in(pto__emitter *E, pto_buf *b, int32_t ex, int mode, int ctxprec)
{
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
    if (mode == PTO__EX_KERNEL && E->kin < 2 && ex >= 0 && ex < m->n_exprs && pto__emit_atoms(E, b, &m->exprs[ex], ctxprec))
        return;
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
    if (e->kind == PTO_E_MOD && mode == PTO__EX_KERNEL && E->var_name) {   /* a rotating event id's iteration */
        int32_t L, step;
        if (pto__emit_iter_of(m, e, &L, &step) && pto__emit_iter_unsafe_c(E, L)) {
            pto__emit_iter_mod(E, b, L, step, m->exprs[e->b].value);
            return;
        }
    }
    if (E->kin == 2 && mode == PTO__EX_KERNEL && ((e->kind >= PTO_E_ADD && e->kind <= PTO_E_MUL) || e->kind == PTO_E_NEG) &&
        pto__emit_node_ovf(E, e)) {
        pto__emit_ick(E, b, e);   /* a call needs no parentheses */
        return;
    }
    prec = pto__emit_safediv(E, e, mode) || (E->ck && mode == PTO__EX_HOST && e->kind >= PTO_E_ADD && e->kind <= PTO_E_MUL) ||
                   (E->ck && mode == PTO__EX_HOST && e->kind == PTO_E_NEG)
               ? 4 : pto__emit_expr_prec(e);   /* a call needs no parentheses */
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
        if (mode == PTO__EX_PTO) pto__emit_puts(b, pto__emit_builtin_pto[e->kind - PTO_E_BLOCK]);
        else if (mode == PTO__EX_KERNEL && E->isa) pto__emit_puts(b, pto__emit_builtin_isa[e->kind - PTO_E_BLOCK]);
        else if (mode == PTO__EX_KERNEL) pto__emit_puts(b, pto__emit_builtin_c[e->kind - PTO_E_BLOCK]);
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
        if (E->ck && mode == PTO__EX_HOST) {
            pto__emit_puts(b, "pto_h_ck(run, 1, 0, ");
            pto__emit_expr(E, b, e->a, mode, 0);
            pto__emit_put(b, ")", 1);
            break;
        }
        pto__emit_put(b, "-", 1);
        pto__emit_expr(E, b, e->a, mode, 4);   /* never "--x" */
        break;
    default: {
        static const char *const ops[] = {" + ", " - ", " * ", " / ", " % "};
        if (E->ck && mode == PTO__EX_HOST && e->kind <= PTO_E_MUL) {
            pto__emit_puts(b, e->kind == PTO_E_ADD ? "pto_h_ck(run, 0, " : e->kind == PTO_E_SUB ? "pto_h_ck(run, 1, "
                                                                                               : "pto_h_ck(run, 2, ");
            pto__emit_expr(E, b, e->a, mode, 0);
            pto__emit_put(b, ", ", 2);
            pto__emit_expr(E, b, e->b, mode, 0);
            pto__emit_put(b, ")", 1);
            break;
        }
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

/* A kernel's blocks(...) in host code, as $(blocks): plain C where no
   value can overflow (every kernel of the repo), else through pto_h_ck,
   which the launch then refuses (pto_h_launch: "blocks(...) overflows"). */
static void pto__emit_blocks(pto__emitter *E, int32_t ex)
{
    /* (the host computes the count before anything else reads it, so no
       interpreter run has refused an overflow first: review26a L10, N * N *
       N at N = 3e6 wrapped, undefined behaviour in C, and launched 8.5e18
       blocks) */
    int budget = 4096;
    int64_t lo, hi;
    E->ck = pto__emit_ovf(E->m, ex, -2, INT64_MAX, &lo, &hi, &budget);
    pto__emit_expr(E, pto__emit_sb(E, PTO__K_BLOCKS), ex, PTO__EX_HOST, 0);
    E->ck = 0;
}

/* A double as the shortest text that reads back to the same value, plain
   decimal when short. The snprintf/strtod search is slow, and a kernel
   repeats its few literals: a small cache keyed by the bits keeps each text. */
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
        pto__pr_float_plain(num, sizeof E->fnum[h]);   /* 100.0, not 1e+02 (print.c's, as fmt prints it) */
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
   was a cache miss per expression. A macro over pto__emit_check's locals
   (nex = the expression count, cs = cstate): a byte store may alias
   anything, so a function reading them through E had them loaded again
   after each. */
#define PTO__EMIT_USE_LATER(ex)                                                                                        \
    do {                                                                                                                \
        int32_t mk_ = (ex);                                                                                             \
        if ((uint32_t)mk_ < nex) {                                                                                      \
            if (cs) cs[mk_] |= 8;                                                                                       \
            else pto__emit_use(E, mk_);                                                                                 \
        }                                                                                                               \
    } while (0)

/* PTO__EMIT_USE_LATER for a flag's event id (cstate bit 4): mostly the sync
   pass's rotating ids, which name only loop variables, and whose use no
   line asks about (a (void) is written for an unused let, scalar or dim,
   never for a loop variable). pto__emit_use_sweep walks them only when
   the other uses left such a name unused: at 100k instructions they were
   most of the sweep's nodes (a quarter of pto__emit_check's time). */
#define PTO__EMIT_USE_FLAG(ex)                                                                                         \
    do {                                                                                                                \
        int32_t mk_ = (ex);                                                                                             \
        if ((uint32_t)mk_ < nex) {                                                                                      \
            if (cs) cs[mk_] |= 16;                                                                                      \
            else pto__emit_use(E, mk_);                                                                                 \
        }                                                                                                               \
    } while (0)

/* The names the marked expressions read (PTO__EMIT_USE_LATER), as
   pto__emit_use_expr finds them: from the highest index down, a marked
   node marks its operands (b only of + - * / % min max; a of those and of
   negation) and a VAR node its variable. A node's operands were made
   before it and so are reached later in the same sweep; one made after it
   (an expression built by hand) is walked on the spot. */
static void pto__emit_use_pass(pto__emitter *E, uint8_t mark)
{
    const pto_module *m = E->m;
    uint8_t *cs = E->cstate;
    int32_t ex = m->n_exprs;
    uint64_t word = 0x0101010101010101u * mark;
    while (ex > 0) {
        const pto_expr *e;
        int32_t c;
        if (ex >= 8) {   /* eight entries at a time while none is marked */
            uint64_t w;
            memcpy(&w, cs + ex - 8, 8);
            if (!(w & word)) {
                ex -= 8;
                continue;
            }
        }
        ex--;
        if (!(cs[ex] & mark)) continue;
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

/* Whether a let, scalar or dim is still unused: only then can the flags'
   event ids (cstate bit 4) change a line. */
static int pto__emit_use_open(const pto__emitter *E)
{
    const pto_module *m = E->m;
    int32_t v;
    for (v = 0; v < m->n_vars; v++)
        if (m->vars[v].kind != PTO_V_LOOP && !E->var_used[v]) return 1;
    return 0;
}

static void pto__emit_use_sweep(pto__emitter *E)
{
    if (!E->cstate) return;
    pto__emit_use_pass(E, 8);
    if (pto__emit_use_open(E)) pto__emit_use_pass(E, 8 | 16);   /* (the marks so far are walked again) */
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
    const pto_stmt *stmts = m->stmts;
    const pto_ctx *ctx = E->ctx;
    int32_t c = E->pf, h, n, step = E->pfstep, nnotes = E->nnotes;
    /* (locals: each store below may alias anything, so fields read through E
       would be loaded again after it) */
    h = E->pfring[(step - PTO__EMIT_AHEAD / 2) & (PTO__EMIT_AHEAD - 1)];
    if (h >= 0) {
        const pto_stmt *st = &stmts[h];
        int32_t a = st->arg0, note = st->note;
        if (st->nargs > 0 && a >= 0 && a < m->n_operands) {
            const char *o = (const char *)&m->operands[a];
            PTO__EMIT_PREFETCH(o);
            PTO__EMIT_PREFETCH(o + 64);
            PTO__EMIT_PREFETCH(o + 128);
        }
        if (note > 0 && note < nnotes) {
            PTO__EMIT_PREFETCH(&E->note_first[note]);
            PTO__EMIT_PREFETCH(&ctx->str_off[note]);
        }
    }
    h = E->pfring[(step - PTO__EMIT_AHEAD * 3 / 4) & (PTO__EMIT_AHEAD - 1)];
    if (h >= 0) {
        const pto_stmt *st = &stmts[h];
        int32_t note = st->note;
        pto__emit_ahead_exprs(m, st);
        if (note > 0 && note < nnotes) {
            const char *t = ctx->pool + ctx->str_off[note];
            PTO__EMIT_PREFETCH(t);
            PTO__EMIT_PREFETCH(t + 64);
        }
    }
    E->pfring[step & (PTO__EMIT_AHEAD - 1)] = c;
    E->pfstep = step + 1;
    if (c < 0) return;
    PTO__EMIT_PREFETCH(&stmts[c]);
    PTO__EMIT_PREFETCH((const char *)&stmts[c] + sizeof(pto_stmt) - 1);
    n = E->succ[c];
    if (n < -1) n = pto__emit_after(E, -2 - n);
    n = n >= 0 && n < m->n_stmts ? n : -1;
    E->pf = n;
    if (n >= 0) PTO__EMIT_PREFETCH(&E->succ[n]);
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
/* Whether the bytes of a uint64_t in memory start with its low byte. */
static inline int pto__emit_le(void)
{
    uint32_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

/* The decimal digits of v (1 <= v < 10^8) as the bytes of one word in
   memory order (little-endian: the first digit in the low byte), then
   zero bytes; *n gets their count. Worked out in registers, four lanes at
   a time (v's two halves of four digits, each split into two of two, each
   into two of one: a division by 100 or 10 is a multiplication and a
   shift, exact for these ranges), so that the word is written with one
   store: a wide load of bytes stored one at a time has to wait for them. */
static inline uint64_t pto__emit_dig8(uint32_t v, uint32_t *n)
{
    uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32, q, t;
    uint32_t len = v >= 10000000 ? 8 : v >= 1000000 ? 7 : v >= 100000 ? 6 : v >= 10000 ? 5
                 : v >= 1000 ? 4 : v >= 100 ? 3 : v >= 10 ? 2 : 1;
    q = ((x * 5243) >> 19) & 0x0000007F0000007Fu;   /* / 100 in each 32-bit lane (< 10000) */
    x = q | (x - q * 100) << 16;
    t = ((x * 103) >> 10) & 0x000F000F000F000Fu;    /* / 10 in each 16-bit lane (< 100) */
    x = (t | (x - t * 10) << 8) | 0x3030303030303030u;
    *n = len;
    return x >> (8 * (8 - len));   /* the leading zeros out, zero bytes in at the end */
}

static void pto__emit_srcline_set(pto__emitter *E, int32_t line)
{
    size_t n = E->file_len + 1;   /* after "FILE:", which pto__emit_file_name wrote */
    if (line > 0 && line < 100000000 && pto__emit_le()) {
        uint64_t dig = pto__emit_dig8((uint32_t)line, &E->srcdn);
        E->srcdig = dig;
        memcpy(E->srcline + n, &dig, 8);   /* (the zero bytes after the digits end the string) */
        if (E->srcdn == 8) E->srcline[n + 8] = 0;
        n += E->srcdn;
    } else {
        E->srcdn = 0;
        n += pto__emit_i64(E->srcline + n, line);
    }
    E->srcline_line = line;
    E->val[PTO__K_SRC] = E->srcline;
    E->vlen[PTO__K_SRC] = n;
}

/* The same line as the statement before (a flag and the op it guards)
   keeps the text, without a call. */
static inline void pto__emit_srcline(pto__emitter *E, int32_t s)
{
    int32_t line = E->m->stmts[s].loc.line;
    uint32_t last;
    if (E->val[PTO__K_SRC] == E->srcline && E->srcdn) {   /* (vlen is FILE: and the srcdn digits) */
        if (line == E->srcline_line) return;
        last = 8 * (E->srcdn - 1);
        if (line > 1 && line - 1 == E->srcline_line && ((E->srcdig >> last) & 0xff) != '9') {
            uint64_t dig = E->srcdig + ((uint64_t)1 << last);   /* the next line, its last digit not a 9: one add */
            E->srcdig = dig;
            memcpy(E->srcline + E->file_len + 1, &dig, 8);
            E->srcline_line = line;
            return;
        }
    } else if (line == E->srcline_line && E->vlen[PTO__K_SRC] && E->val[PTO__K_SRC] == E->srcline) {
        return;
    }
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

/* The SRC value srcline (nsrc bytes) at d, which has room for nsrc plus
   PTO__EMIT_PAD: "FILE:" from srchead and the digits from srcdig, not
   from srcline, whose digits were just stored (pto__emit_dig8). */
static inline char *pto__emit_src_to(const pto__emitter *E, char *d, size_t nsrc)
{
    if (E->srcdn && E->file_len + 1 + E->srcdn == nsrc) {
        pto__emit_pcp(d, E->srchead, E->file_len + 1);
        memcpy(d + E->file_len + 1, &E->srcdig, 8);
    } else {
        pto__emit_pcp(d, E->srcline, nsrc);
    }
    return d + nsrc;
}

/* A plan's first literal piece, the source-location text, its second
   piece (the op and tdecl lines start so); returns the write position
   after them. The caller has made room for all three. */
static inline char *pto__emit_plan_src(char *d, const char *text, const pto__emit_plan *p, const pto__emitter *E,
                                       size_t nsrc)
{
    pto__emit_pcp64(d, text + p->off[0], (size_t)p->len[0]);
    d += p->len[0];
    d = pto__emit_src_to(E, d, nsrc);
    pto__emit_pcp64(d, text + p->off[1], (size_t)p->len[1]);
    return d + p->len[1];
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
            if (E->val[k] == E->srcline && E->vlen[k] + PTO__EMIT_PAD <= (size_t)(w.lim - w.d)) {
                w.d = pto__emit_src_to(E, w.d, E->vlen[k]);
                break;
            }
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

/* ", " and leaf expression ex (a literal from 0 up, a variable) at d, as
   pto__emit_expr spells it in a kernel: its length, or 0 (and d's bytes
   are scratch) for any other expression. d has room for argmax + 32. */
static inline size_t pto__emit_leaf_arg(const pto__emitter *E, char *d, int32_t ex)
{
    const pto_module *m = E->m;
    const pto_expr *e;
    if ((uint32_t)ex >= (uint32_t)m->n_exprs) return 0;
    e = &m->exprs[ex];
    if (e->kind == PTO_E_VAR && (uint32_t)e->a < (uint32_t)m->n_vars) {
        pto__emit_pcp(d, E->var_arg[e->a], (size_t)E->var_len[e->a] + 2);
        return (size_t)E->var_len[e->a] + 2;
    }
    if (e->kind != PTO_E_INT || e->value < 0) return 0;
    d[0] = ',';
    d[1] = ' ';
    if (e->value < 10) {
        d[2] = (char)('0' + e->value);
        return 3;
    }
    return 2 + pto__emit_i64(d + 2, e->value);
}

/* The operands [*po, end) of an op line written at d as pto__emit_expr and
   pto__emit_args_to spell them, without room tests (the caller made room
   for E->op_room plus E->argmax + 40 per operand; d < lim): names and pipes
   from their padded texts, the two pipes of a flag as one text, event ids
   0-9 as a literal, rotating ids and tensors at leaf indices in place. It
   stops at the first operand that needs the expression printer (*po is
   left there, end when all were written) and returns the new position. */
static PTO__EMIT_INLINE char *pto__emit_args_fast(pto__emitter *E, char *d, const char *lim, const pto_operand **po,
                                        const pto_operand *end)
{
    const pto_module *m = E->m;
    const pto_expr *exprs = m->exprs;
    const char *text = E->btext.data;
    const pto_operand *o = *po;
    size_t arg_room = E->argmax + 40;
    uint32_t n_exprs = (uint32_t)m->n_exprs;
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
        case PTO_O_TILE: {
            size_t n = (size_t)E->tile_len[o->ref] + 2;
            pto__emit_pcp(d, E->tile_arg[o->ref], n);
            d += n;
            continue;
        }
        case PTO_O_SCALAR: {
            size_t n = (size_t)E->var_len[o->ref] + 2;
            pto__emit_pcp(d, E->var_arg[o->ref], n);
            d += n;
            continue;
        }
        case PTO_O_FLOAT: {   /* a literal pto__emit_float has spelled before (its table entry) */
            double v = o->f;
            uint64_t bits;
            size_t n;
            int h;
            memcpy(&bits, &v, sizeof v);
            h = (int)((bits ^ bits >> 29 ^ bits >> 52) & 15);
            if (v != v || v - v != 0 || !E->fvalid[h] || memcmp(&E->fval[h], &v, sizeof v) != 0) break;
            n = strlen(E->fnum[h]);   /* (%.17g and ".0": under 30 bytes, within an operand's room) */
            d[0] = ',';
            d[1] = ' ';
            memcpy(d + 2, E->fnum[h], n);
            d += n + 2;
            continue;
        }
        case PTO_O_GM: {   /* "x, r, 0": a tensor at leaf indices (the room is that of one such) */
            size_t np = (size_t)E->param_len[o->ref], n0, n1;
            if (o->e[2] >= 0 || (size_t)(lim - d) < E->op_room + (size_t)(end - o) * arg_room) break;
            n0 = pto__emit_leaf_arg(E, d + 2 + np, o->e[0]);
            n1 = n0 ? pto__emit_leaf_arg(E, d + 2 + np + n0, o->e[1]) : 0;
            if (!n1) break;
            d[0] = ',';
            d[1] = ' ';
            pto__emit_cp(d + 2, E->param_name[o->ref], np);
            d += 2 + np + n0 + n1;
            continue;
        }
        case PTO_O_INT:
            if ((uint32_t)o->e[0] >= n_exprs) break;
            e = &exprs[o->e[0]];
            if (e->kind == PTO_E_INT && e->value >= 0 && e->value < 10) {   /* an event id */
                d[0] = ',';
                d[1] = ' ';
                d[2] = (char)('0' + e->value);
                d += 3;
                continue;
            } else {   /* a rotating one, "i % 2" or "2 + i % 2" (as pto__emit_expr prints it) */
                const pto__emit_vo *r = pto__emit_varop_c(E, o->e[0]);
                if (!r->kind) break;
                d[0] = ',';
                d[1] = ' ';
                d += 2;
                if (r->base) {   /* (under 10000: four digits and a NUL at most) */
                    if (r->base < 10) *d++ = (char)('0' + r->base);   /* (mostly: 2, 4, 6) */
                    else d += pto__emit_i64(d, r->base);
                    memcpy(d, " + ", 3);
                    d += 3;
                }
                pto__emit_pcp(d, E->var_arg[r->v] + 2, (size_t)E->var_len[r->v]);
                d += E->var_len[r->v];
                memcpy(d, pto__emit_ops[r->kind - PTO_E_ADD], 3);
                if (r->val < 10) {   /* (val > 1: the rotation's id count, mostly) */
                    d[3] = (char)('0' + r->val);
                    d += 4;
                } else {
                    d += 3 + pto__emit_i64(d + 3, r->val);
                }
                continue;
            }
        default: break;
        }
        break;
    }
    *po = o;
    return d;
}

/* The end of an op line from operand o on, the line so far ending at d:
   the printer's part (pto__emit_args_to, checked writes), then the literal
   pieces and keys after ARGS. */
static void pto__emit_opline_rest(pto__emitter *E, const pto__emit_plan *p, char *d, const pto_operand *o,
                                  const pto_operand *end)
{
    const char *text = E->btext.data;
    pto__emit_wr w;
    int32_t i;
    w.b = E->out;
    w.b->len = (size_t)(d - w.b->data);
    pto__wr_load(&w);
    pto__emit_args_to(E, &w, o, end);
    pto__wrp(&w, text + p->off[2], (size_t)p->len[2]);
    for (i = 2; i < p->nk && w.d; i++) {
        pto__wr(&w, E->val[p->key[i]], E->vlen[p->key[i]]);
        pto__wrp(&w, text + p->off[i + 1], (size_t)p->len[i + 1]);
    }
    if (w.d) pto__wr_sync(&w);
}

/* An op's K_OP line (plan: literal, SRC, literal, ARGS, literal), the most
   written line: one room test for all of it, then only moves
   (pto__emit_args_fast); from the first operand that needs the expression
   printer on, the rest goes through pto__emit_args_to, whose writes test
   room themselves. */
static void pto__emit_opline(pto__emitter *E, int32_t plan, int32_t s)
{
    const pto__emit_plan *p = &E->plans[plan];
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o = &m->operands[st->arg0], *end = o + st->nargs;
    const char *text = E->btext.data;
    size_t nsrc = E->vlen[PTO__K_SRC], arg_room = E->argmax + 40, op_room = E->op_room;
    pto_buf *b = E->out;
    pto__emit_wr w;
    char *d;
    int32_t i;
    if (!p->opline || E->val[PTO__K_SRC] != E->srcline || !b->data || b->oom) {
        pto__emit_line(E, plan, s);
        return;
    }
    if (b->cap - b->len < op_room + (size_t)st->nargs * arg_room) {
        w.b = b;
        pto__wr_load(&w);
        if (!pto__wr_grow(&w, op_room + (size_t)st->nargs * arg_room)) {
            pto__emit_line(E, plan, s);
            return;
        }
    }
    /* From here the room is there: locals only, no write position in memory
       (a byte store may alias anything: the compiler reloads what is not local). */
    d = b->data + b->len;
    d = pto__emit_plan_src(d, text, p, E, nsrc);
    d = pto__emit_args_fast(E, d, b->data + b->cap, &o, end);
    if (o < end) {   /* the printer's part: checked writes from here on */
        pto__emit_opline_rest(E, p, d, o, end);
        return;
    }
    pto__emit_pcp64(d, text + p->off[2], (size_t)p->len[2]);
    d += p->len[2];
    for (i = 2; i < p->nk; i++) {
        pto__emit_cp(d, E->val[p->key[i]], E->vlen[p->key[i]]);
        d += E->vlen[p->key[i]];
        pto__emit_pcp64(d, text + p->off[i + 1], (size_t)p->len[i + 1]);
        d += p->len[i + 1];
    }
    b->len = (size_t)(d - b->data);
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
    pto__dmark mk = pto__diag_mark(E->ctx);
    int oomr = E->ctx->oom_reported;
    int32_t r = pto__emit_plan_make(E, tpl, known, 0);
    if (r < 0) {
        pto__diag_truncate(E->ctx, &mk);
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

/* popped[t] = pto__emit_popped_from(m, t) >= 0 for every tile at once (the
   first tpop of each tile decides, as there): one pass over the statements,
   not one per tile (a big mix kernel made that quadratic). */
static void pto__emit_popped_tiles(const pto_module *m, uint8_t *popped)
{
    int32_t s;
    if (m->n_tiles) memset(popped, 0, (size_t)m->n_tiles);
    if (m->n_cvpipes == 0) return;
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == PTO_OP_TPOP && m->stmts[s].nargs == 2 &&
            m->operands[m->stmts[s].arg0].kind == PTO_O_TILE) {
            int32_t t = m->operands[m->stmts[s].arg0].ref;
            const pto_operand *q = &m->operands[m->stmts[s].arg0 + 1];
            if (t < 0 || t >= m->n_tiles || popped[t]) continue;
            popped[t] = (uint8_t)(q->kind == PTO_O_CVPIPE && q->ref >= 0 && q->ref < m->n_cvpipes ? 1 : 2);
        }
    for (s = 0; s < m->n_tiles; s++) popped[s] = popped[s] == 1;   /* 2: its first tpop names no pipe */
}

/* One instruction: its note (if any), then its bound K_OP line, or the
   K_OP_SEE line when its note was printed in full above another statement. */
static PTO__EMIT_NOINLINE void pto__emit_op(pto__emitter *E, int32_t s)
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
    if (see >= 0) {
        pto__emit_v(E, PTO__K_FN, pto_opinfo_get((pto_op)E->m->stmts[see].op)->name);
        pto__emit_vi(E, PTO__K_N, E->m->stmts[see].loc.line);
        pto__emit_v(E, PTO__K_PASS, pto__emit_origin[st->origin < 5 ? st->origin : 0]);
    }
    /* (one call: the compiler writes the line in place here) */
    pto__emit_opline(E, see < 0 ? E->bound_op[op][dep] : E->bound_see[op][dep], s);
}

static int pto__emit_td_has(const pto__emitter *E, int32_t key);

/* The note of op statement st, when pto__emit_op would print it in full
   through pto__emit_note_fast (its pass's comment plan for depth dep made,
   8 bytes or more): the note's id, with its text, its length and the plan;
   0 when st needs no comment (no note and not a flag, or the note of the
   comment right above), or only a reference to the statement whose comment
   has it (*see, else -1; pto__emit_note); -1 for anything else
   (pto__emit_op decides it). */
static inline int32_t pto__emit_run_note(const pto__emitter *E, const pto_stmt *st, int dep, const char **text,
                                         size_t *n, const pto__emit_plan **np, int32_t *see)
{
    int32_t note = st->note, plan;
    *see = -1;
    if (!note) return pto_opinfo_get((pto_op)st->op)->cls == PTO_OC_SYNC ? -1 : 0;
    if (note < 0 || note >= E->nnotes) return -1;
    if (note == E->last_note) return 0;
    if (pto__emit_note_seen(E, E->note_first[note])) {   /* a reference */
        *see = E->note_first[note];
        return 0;
    }
    plan = E->bound_note[st->origin < 5 ? st->origin : 0][dep];
    if (plan < 0) return -1;
    *np = &E->plans[plan];
    if ((*np)->nk != 1 || (*np)->how[0] != PTO__HOW_NOTE) return -1;
    *text = E->ctx->pool + E->ctx->str_off[note];   /* (pto_str, pto__str_len: note < n_strs) */
    *n = (size_t)(E->ctx->str_off[note + 1] - E->ctx->str_off[note]) - 1;
    return *n < 8 ? -1 : note;
}

/* Op statements from s on along its block, at a depth whose lines are
   bound (1 to PTO__EMIT_ND - 1), written as pto__emit_op writes them but
   with the write position and the line plans in locals from one statement
   to the next: a run of ops (a flag, the op it guards, the next flag) is
   most of a kernel. A statement the run does not take as it is (a note
   printed as a reference, a pipe op, a first line of its kind, no room)
   goes through pto__emit_op in the run. The run stops before a statement
   that is not an op or has tdecls before it (pto__emit_block writes it);
   it returns that statement (-1: the block's end), the walk's cursor not
   yet moved for it. */
static PTO__EMIT_NOINLINE int32_t pto__emit_op_run(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    const pto_stmt *stmts = m->stmts;
    const char *text = E->btext.data;
    pto_buf *b = E->out;
    int dep = E->depth;
    size_t arg_room = E->argmax + 40, op_room = E->op_room;
    /* pto__emit_note_at's answer for the whole run: its statements share a block */
    int here = pto__emit_kernel_of(m, &stmts[s]) == E->kernel;
    char *d, *lim;
    if (!b->data || b->oom) goto generic_all;
    d = b->data + b->len;
    lim = b->data + b->cap;
    for (;;) {
        const pto_stmt *st = &stmts[s];
        const pto_operand *o, *end;
        const pto__emit_plan *p, *np = NULL;
        const char *ntext = NULL;
        size_t nn = 0, need;
        int32_t plan, note, see, i;
        int op = st->op;
        if (op == PTO_OP_TPUSH || op == PTO_OP_TPOP || op == PTO_OP_TFREE || E->bound_op[op][dep] < 0 ||
            (note = pto__emit_run_note(E, st, dep, &ntext, &nn, &np, &see)) < 0)
            goto generic;
        plan = see < 0 ? E->bound_op[op][dep] : E->bound_see[op][dep];   /* (K_OP_SEE: PASS, FN, N after ARGS) */
        if (plan < 0 || !E->plans[plan].opline || (see < 0 && E->plans[plan].nk != 2)) goto generic;
        p = &E->plans[plan];
        need = op_room + (size_t)st->nargs * arg_room + (note ? (size_t)np->len[0] + nn + (size_t)np->len[1] + PTO__EMIT_BPAD + 16 : 0);
        if ((size_t)(lim - d) < need) {
            b->len = (size_t)(d - b->data);
            pto__emit_reserve(b, need + pto__emit_slack(b, 0));
            if (!b->data || b->oom) {   /* (out of memory: pto__emit_op reports it) */
                pto__emit_indent(E);
                pto__emit_op(E, s);
                goto reload;
            }
            d = b->data + b->len;
            lim = b->data + b->cap;
            if ((size_t)(lim - d) < need) goto generic;
        }
        if (note) {   /* the comment line first (pto__emit_note_fast) */
            char *q = d;
            pto__emit_pcp64(q, text + np->off[0], (size_t)np->len[0]);
            q += np->len[0];
            if (pto__emit_note_copy(q, ntext, nn)) goto generic;   /* (nothing kept: d is not moved) */
            q += nn;
            pto__emit_pcp64(q, text + np->off[1], (size_t)np->len[1]);
            d = q + np->len[1];
            E->note_first[note] = here ? s : -1;
            E->val[PTO__K_NOTE] = ntext;
            E->vlen[PTO__K_NOTE] = nn;
            E->last_note = note;
        } else if (!st->note || see >= 0) {
            E->last_note = 0;
        }
        if (see >= 0) {
            pto__emit_v(E, PTO__K_FN, pto_opinfo_get((pto_op)stmts[see].op)->name);
            pto__emit_vi(E, PTO__K_N, stmts[see].loc.line);
            pto__emit_v(E, PTO__K_PASS, pto__emit_origin[st->origin < 5 ? st->origin : 0]);
        }
        pto__emit_srcline(E, s);
        d = pto__emit_plan_src(d, text, p, E, E->vlen[PTO__K_SRC]);
        o = &m->operands[st->arg0];
        end = o + st->nargs;
        if (st->nargs == 3 && o[0].kind == PTO_O_PIPE && o[1].kind == PTO_O_PIPE) {   /* a flag: its two pipes as one text */
            int32_t k = o[0].ref * PTO_NPIPE + o[1].ref;
            pto__emit_pcp(d, text + E->pair_off[k], (size_t)E->pair_len[k]);
            d += E->pair_len[k];
            o += 2;
        }
        d = pto__emit_args_fast(E, d, lim, &o, end);
        if (o < end) {   /* the printer's part */
            pto__emit_opline_rest(E, p, d, o, end);
            goto reload;
        }
        pto__emit_pcp64(d, text + p->off[2], (size_t)p->len[2]);
        d += p->len[2];
        for (i = 2; i < p->nk; i++) {
            pto__emit_cp(d, E->val[p->key[i]], E->vlen[p->key[i]]);
            d += E->vlen[p->key[i]];
            pto__emit_pcp64(d, text + p->off[i + 1], (size_t)p->len[i + 1]);
            d += p->len[i + 1];
        }
        goto next;
    generic:   /* this statement as pto__emit_stmt writes it */
        b->len = (size_t)(d - b->data);
        pto__emit_indent(E);
        pto__emit_op(E, s);
    reload:
        if (!b->data || b->oom || E->st != PTO_OK) return st->next >= 0 && E->st == PTO_OK ? st->next : -1;
        text = E->btext.data;
        d = b->data + b->len;
        lim = b->data + b->cap;
    next:
        s = st->next;
        if (s < 0 || stmts[s].kind != PTO_ST_OP || (E->tdn && pto__emit_td_has(E, s))) break;
        if (E->succ) pto__emit_ahead(E);
    }
    b->len = (size_t)(d - b->data);
    return s;
generic_all:
    pto__emit_indent(E);
    pto__emit_op(E, s);
    return stmts[s].next;
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
    if (!start0 && pto__emit_iter_unsafe_c(E, loop)) {   /* i - start may pass INT64_MAX */
        pto__emit_iter_mod(E, b, loop, step1 ? -1 : step, t->nbuf);
        return;
    }
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
   from 0 by 1 (loop: pto_stmt_loop of the tile's declaration), written in
   one go into b (empty); 0 when the loop is another (pto__emit_slot_index
   spells it then) or out of memory. */
static int pto__emit_slot_fast(pto__emitter *E, pto_buf *b, const pto_tile *t, int64_t stride, int32_t loop)
{
    const pto_module *m = E->m;
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
    int dep = E->depth > 0 && E->depth < PTO__EMIT_ND && E->vlen[PTO__K_IND] == (size_t)E->depth * 4 ? E->depth : 0;
    int32_t plan = dep ? E->tpl_plan[PTO__T_K_TDECL][dep] - 1 : -1;
    pto_buf *b = E->out;
    E->last_note = 0;
    pto__emit_vn(E, PTO__K_NAME, E->tile_name[ti], E->tile_len[ti]);
    pto__emit_srcline(E, E->m->tiles[ti].decl);
    if (plan >= 0 && E->plans[plan].nk == 2 && E->plans[plan].key[0] == PTO__K_SRC && E->plans[plan].key[1] == PTO__K_NAME &&
        E->val[PTO__K_SRC] == E->srcline && b->data && !b->oom) {   /* the line made as pto__emit_x makes it */
        const pto__emit_plan *p = &E->plans[plan];
        const char *text = E->btext.data;
        size_t nsrc = E->vlen[PTO__K_SRC], nt = (size_t)E->tile_len[ti];
        char *d;
        if (b->cap - b->len < (size_t)p->lit + nsrc + nt + 3 * PTO__EMIT_BPAD) {
            pto__emit_reserve(b, (size_t)p->lit + nsrc + nt + 3 * PTO__EMIT_BPAD + pto__emit_slack(b, 0));
            if (!b->data || b->oom || b->cap - b->len < (size_t)p->lit + nsrc + nt + 3 * PTO__EMIT_BPAD) {
                pto__emit_x(E, PTO__T_K_TDECL);
                return;
            }
        }
        d = b->data + b->len;
        d = pto__emit_plan_src(d, text, p, E, nsrc);
        pto__emit_pcp(d, E->tile_arg[ti] + 2, nt);   /* (the padded ", NAME") */
        d += nt;
        pto__emit_pcp64(d, text + p->off[2], (size_t)p->len[2]);
        b->len = (size_t)(d + p->len[2] - b->data);
        return;
    }
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

/* Has key a list in the tdecl table? */
static int pto__emit_td_has(const pto__emitter *E, int32_t key)
{
    return key >= 0 && E->tdcap && pto__emit_td_at(E, key)->s == key;
}

/* Writes the tdecls filed under key (pto__emit_place_tdecl), if any. */
static void pto__emit_td_out(pto__emitter *E, int32_t key)
{
    int32_t t;
    for (t = key >= 0 ? pto__emit_td_take(E, key) : -1; t >= 0; t = E->tdecl_next[t]) {
        pto__emit_indent(E);
        pto__emit_tdecl(E, E->tdecl_tile[t]);
    }
}

/* Is tile t used by a statement of the chain from s on? */
static int pto__emit_used_from(const pto_module *m, int32_t s, int32_t t)
{
    for (; s >= 0; s = m->stmts[s].next)
        if (pto__emit_uses(m, s, t)) return 1;
    return 0;
}

/* The tdecl table's keys besides statements: the end of block b, and the
   else of an if s that has none (emitted as "} else {" with the tdecls in
   it); -1 when the module is too large for the key space (the caller then
   files the tdecl before the if). */
static int32_t pto__emit_td_end_key(const pto_module *m, int32_t b)
{
    return (int64_t)m->n_stmts * 2 + m->n_blocks < INT32_MAX ? m->n_stmts + b : -1;
}
static int32_t pto__emit_td_else_key(const pto_module *m, int32_t s)
{
    return (int64_t)m->n_stmts * 2 + m->n_blocks < INT32_MAX ? m->n_stmts + m->n_blocks + s : -1;
}

/* Files a node naming tile t under key (a statement, a block's end or an
   if's missing else). 0 when out of memory. */
static int pto__emit_td_file(pto__emitter *E, int32_t key, int32_t t)
{
    struct pto__emit_td *e;
    int32_t *at;
    if (E->ntdecl >= E->ntdecl_cap) {
        int32_t ncap = E->ntdecl_cap ? E->ntdecl_cap * 2 : 64;
        int32_t *nt = (int32_t *)pto_alloc(E->ctx, sizeof(int32_t) * (size_t)ncap);
        int32_t *nn = (int32_t *)pto_alloc(E->ctx, sizeof(int32_t) * (size_t)ncap);
        if (!nt || !nn || ncap < E->ntdecl_cap) {
            pto_free(E->ctx, nt);
            pto_free(E->ctx, nn);
            return 0;
        }
        if (E->ntdecl) {
            memcpy(nt, E->tdecl_tile, sizeof(int32_t) * (size_t)E->ntdecl);
            memcpy(nn, E->tdecl_next, sizeof(int32_t) * (size_t)E->ntdecl);
        }
        pto_free(E->ctx, E->tdecl_tile);
        pto_free(E->ctx, E->tdecl_next);
        E->tdecl_tile = nt;
        E->tdecl_next = nn;
        E->ntdecl_cap = ncap;
    }
    e = pto__emit_td_add(E, key);
    if (!e) return 0;
    at = &e->head;   /* tiles in falling index order (see pto__emit_tdecls) */
    while (*at >= 0 && E->tdecl_tile[*at] > t) at = &E->tdecl_next[*at];
    E->tdecl_tile[E->ntdecl] = t;
    E->tdecl_next[E->ntdecl] = *at;
    *at = E->ntdecl++;
    return 1;
}

/* Files tile t's tdecl before the first statement from `from` on that uses
   it: before that op, or before that loop (the planner's lifetime then covers
   the whole loop). An if gets one in each branch that uses the tile, before
   its first use there; when the tile is used after the if too (`later`, or
   a use further down the chain), every path through the if must pass a
   tdecl, so a branch that does not use it gets one at its end (a missing
   else gets an else holding it). At the end, not the start: the branch's
   own tiles may share the bytes (the planner numbers the branch before the
   tile's first use), and a tdecl after their last write still marks the
   bytes unwritten for the read after the if, which on that path reads
   nothing the kernel wrote through the tile. No tile live after the if can
   share them (its lifetime would overlap the tile's). 0 when out of memory. */
static int pto__emit_place_tdecl(pto__emitter *E, int32_t from, int32_t t, int later)
{
    const pto_module *m = E->m;
    int32_t s;
    for (s = from; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        int side;
        if (!pto__emit_uses(m, s, t)) continue;
        if (st->kind != PTO_ST_IF) return pto__emit_td_file(E, s, t);
        later = later || pto__emit_used_from(m, st->next, t);
        if (later && pto__emit_td_else_key(m, s) < 0) return pto__emit_td_file(E, s, t);
        for (side = 0; side < 2; side++) {
            int32_t b = side ? st->orelse : st->body;
            if (b >= 0 && pto__emit_used_from(m, m->blocks[b].head, t)) {
                if (!pto__emit_place_tdecl(E, m->blocks[b].head, t, later)) return 0;
            } else if (later) {
                if (!pto__emit_td_file(E, b >= 0 ? pto__emit_td_end_key(m, b) : pto__emit_td_else_key(m, s), t)) return 0;
            }
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
   in both branches of an if gets a tdecl in each (one runs); one used after
   the if gets one on every path through it; a tile never used gets none. An xN tile keeps its tdecl at the declaration: it holds
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
    E->tile_unused = (uint8_t *)pto_alloc(E->ctx, (size_t)(m->n_tiles ? m->n_tiles : 1));
    E->tile_popped = (uint8_t *)pto_alloc(E->ctx, (size_t)(m->n_tiles ? m->n_tiles : 1));
    if (!E->tile_unused || !E->tile_popped) return PTO_ERR_INTERNAL;
    pto__emit_popped_tiles(m, E->tile_popped);
    for (t = 0; t < m->n_tiles; t++) {
        int32_t d = m->tiles[t].decl, before = E->ntdecl;
        E->tile_unused[t] = 0;
        /* a popped tile: tpop writes all of its slot, the ring rotates it */
        if (E->tile_popped[t] || m->tiles[t].nbuf > 1 || d < 0 || m->stmts[d].block < 0) continue;
        if (m->stmts[d].kind == PTO_ST_TILE && m->stmts[d].ref == t) { E->tile_unused[t] = 2; continue; }
        if (!pto__emit_place_tdecl(E, m->stmts[d].next, t, 0)) return PTO_ERR_INTERNAL;
        E->tile_unused[t] = E->ntdecl == before;
    }
    return PTO_OK;
}

/* The deferred half of pto__emit_tdecls for tile t, at its declaration. */
static void pto__emit_place(pto__emitter *E, int32_t t)
{
    int32_t before = E->ntdecl;
    if (!pto__emit_place_tdecl(E, E->m->stmts[E->m->tiles[t].decl].next, t, 0)) E->st = PTO_ERR_INTERNAL;
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
    int32_t loop = -1;
    int k;
    if (!t->planned) {
        E->st = pto_error(E->ctx, t->loc, "emit: tile '%s' has no planned offset (run the planner first)",
                          pto_str(E->ctx, t->name));
        return 0;
    }
    if (t->nbuf > 1 && (loop = pto_stmt_loop(m, s)) < 0) {
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
        if (ap && pto__emit_slot_fast(E, b, t, stride, t->decl == s ? loop : pto_stmt_loop(m, t->decl))) {
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

/* The values of tile t's K_TILE line but NAME and OFF. */
static void pto__emit_tile_values(pto__emitter *E, const pto_tile *t)
{
    if (t->valid_r >= 0) { pto__emit_expr(E, pto__emit_sb(E, PTO__K_VR), t->valid_r, PTO__EX_KERNEL, 0); pto__emit_vbuf(E, PTO__K_VR); }
    else pto__emit_vi(E, PTO__K_VR, t->rows);
    if (t->valid_c >= 0) { pto__emit_expr(E, pto__emit_sb(E, PTO__K_VC), t->valid_c, PTO__EX_KERNEL, 0); pto__emit_vbuf(E, PTO__K_VC); }
    else pto__emit_vi(E, PTO__K_VC, t->cols);
    pto__emit_v(E, PTO__K_SPACE, pto__emit_space[t->space < PTO_NSPACE ? t->space : 0]);
    pto__emit_v(E, PTO__K_DTYPE, pto__emit_dtype[t->dtype < PTO_NDTYPE ? t->dtype : 0]);
    pto__emit_vi(E, PTO__K_ROWS, t->rows);
    pto__emit_vi(E, PTO__K_COLS, t->cols);
}

/* Tile t's K_TILE line (NAME and OFF set), valid rows and columns the full
   shape: kernels declare many tiles of a few shapes, so the line is bound
   per shape and depth (pto__emit_shape) and only NAME and OFF are written
   (a line of eight values cost as much as the rest of the tile; the other
   values are set only to bind or expand it). Another shape in the same
   table entry takes it over; past PTO__EMIT_SHAPE_PLANS plans (or out of
   memory) the line is expanded as any other. */
static void pto__emit_tile_line(pto__emitter *E, const pto_tile *t)
{
    int dep = E->depth > 0 && E->depth < PTO__EMIT_ND && E->vlen[PTO__K_IND] == (size_t)E->depth * 4 ? E->depth : 0;
    uint8_t space = (uint8_t)(t->space < PTO_NSPACE ? t->space : 0), dtype = (uint8_t)(t->dtype < PTO_NDTYPE ? t->dtype : 0);
    pto__emit_shape *sh = &E->shape[((uint32_t)t->rows * 31u + (uint32_t)t->cols * 7u + space * 5u + dtype * 3u +
                                     (uint32_t)dep) & (PTO__EMIT_NSHAPE - 1)];
    int bound = dep && sh->plan > 0 && sh->rows == t->rows && sh->cols == t->cols && sh->space == space &&
                sh->dtype == dtype && sh->dep == dep;   /* this shape's line is bound already */
    if (!bound) pto__emit_tile_values(E, t);
    if (!dep) { pto__emit_x(E, PTO__T_K_TILE); return; }
    if (!bound) {
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
    pto__emit_vn(E, PTO__K_NAME, E->tile_name[ti], E->tile_len[ti]);
    if (E->tile_popped[ti]) {
        pto__emit_tile_values(E, t);
        pto__emit_vi(E, PTO__K_IDX, ti);
        pto__emit_x(E, PTO__T_K_PTILE);
        return;
    }
    if (t->valid_r < 0 && t->valid_c < 0) {
        pto__emit_tile_line(E, t);
    } else {
        pto__emit_tile_values(E, t);
        pto__emit_x(E, PTO__T_K_TILE);
    }
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

/* Whether else block b can be written as `} else if`: its one statement
   is an if, with no tdecl placed before it or at the block's end. */
static int pto__emit_elif(const pto__emitter *E, int32_t b)
{
    const pto_module *m = E->m;
    int32_t h;
    if (b < 0 || b >= m->n_blocks) return 0;
    h = m->blocks[b].head;
    if (h < 0 || h >= m->n_stmts || m->stmts[h].kind != PTO_ST_IF || m->stmts[h].next >= 0) return 0;
    return !E->tdn || (!pto__emit_td_has(E, h) && !pto__emit_td_has(E, pto__emit_td_end_key(m, b)));
}

static void pto__emit_stmt(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    pto__emit_indent(E);
    if (st->kind == PTO_ST_OP) {   /* (the most, first) */
        E->kline = 0;
        if (E->hook_op) E->hook_op(E, s); else pto__emit_op(E, s);
        return;
    }
    E->kline = st->loc.line;
    E->last_note = 0;   /* a note's run ends at any other line */
    switch (st->kind) {
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
        /* `i += step` may overflow past end (for i = 0 to 2^63 - 1 step 2^62,
           for i = 1 to N step 2^63 - 1): pto_k_next instead */
        int wrap = pto__emit_next_unsafe(m, st), known = pto__emit_step_known(E, st->e[2]);
        pto__emit_vn(E, PTO__K_NAME, E->var_name[st->ref], E->var_len[st->ref]);
        pto__emit_exprval(E, PTO__K_START, st->e[0], 0);
        pto__emit_exprval(E, PTO__K_END, st->e[1], 0);
        pto__emit_exprval(E, PTO__K_STEP, st->e[2], 1);
        if (wrap) pto__emit_v(E, PTO__K_FN, E->isa ? "pto_isa_next" : "pto_k_next");
        pto__emit_x(E, known ? (wrap ? PTO__T_K_FOR_WRAP : PTO__T_K_FOR) : wrap ? PTO__T_K_FOR_DYN_WRAP : PTO__T_K_FOR_DYN);
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
        /* an else block that is one if and nothing else (an `else if`):
           `} else if (...) {`, flat, as the user wrote it. Nested, a chain
           of 256 arms passed clang's bracket depth (review21 L6). */
        while (st->orelse >= 0 && pto__emit_elif(E, st->orelse) && E->st == PTO_OK) {
            if (E->succ) pto__emit_ahead(E);   /* the step pto__emit_block takes */
            s = m->blocks[st->orelse].head;
            st = &m->stmts[s];
            E->last_note = 0;
            E->kline = st->loc.line;
            pto__emit_indent(E);
            pto__emit_exprval(E, PTO__K_LHS, st->e[0], 0);
            pto__emit_exprval(E, PTO__K_RHS, st->e[1], 0);
            pto__emit_v(E, PTO__K_CMP, pto_cmp_name((pto_cmp)st->cmp));
            pto__emit_x(E, PTO__T_K_ELSE_IF);
            pto__emit_block(E, st->body);
        }
        if (st->orelse >= 0) {
            pto__emit_indent(E);
            pto__emit_x(E, PTO__T_K_ELSE);
            pto__emit_block(E, st->orelse);
        } else if (E->tdn && pto__emit_td_has(E, pto__emit_td_else_key(m, s))) {
            /* the tile is used after the if and this path passes no tdecl (pto__emit_place_tdecl) */
            pto__emit_indent(E);
            pto__emit_x(E, PTO__T_K_ELSE);
            E->depth++;
            pto__emit_td_out(E, pto__emit_td_else_key(m, s));
            E->depth--;
        }
        pto__emit_indent(E);
        pto__emit_x(E, PTO__T_K_CLOSE);
        break;
    case PTO_ST_SECTION:
        if (E->hook_section) { E->hook_section(E, s); break; }
        pto__emit_v(E, PTO__K_CORE, st->ref == PTO_CORE_CUBE ? "PTO_K_CORE_CUBE" : "PTO_K_CORE_VECTOR");
        pto__emit_v(E, PTO__K_NAME, st->ref == PTO_CORE_CUBE ? "cube" : "vector");
        pto__emit_x(E, PTO__T_K_SECTION);
        E->depth++;   /* inside the section's braces, as its body */
        pto__emit_ring_inits(E, m->blocks[st->block].kernel);
        E->depth--;
        pto__emit_block(E, st->body);
        pto__emit_indent(E);
        pto__emit_x(E, PTO__T_K_CLOSE);
        break;
    default:
        E->st = pto_error(E->ctx, st->loc, "emit: unknown statement kind %d", (int)st->kind);
        break;
    }
    E->last_note = 0;   /* nor can it run out of a block */
}

static void pto__emit_block(pto__emitter *E, int32_t block)
{
    int32_t s;
    if (block < 0) return;
    E->depth++;
    for (s = E->m->blocks[block].head; s >= 0 && E->st == PTO_OK;) {
        if (E->succ) pto__emit_ahead(E);
        if (E->tdn) pto__emit_td_out(E, s);
        if (E->m->stmts[s].kind == PTO_ST_OP && !E->hook_op && E->depth > 0 && E->depth < PTO__EMIT_ND) {
            s = pto__emit_op_run(E, s);   /* (the run moves the cursor for the ops after s) */
            continue;
        }
        pto__emit_stmt(E, s);
        s = E->m->stmts[s].next;
    }
    if (E->tdn && E->st == PTO_OK) pto__emit_td_out(E, pto__emit_td_end_key(E->m, block));
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
        if (E->tile_popped && E->tile_popped[t]) continue;
        for (j = 0; j < (tl->nbuf > 1 ? tl->nbuf : 1) && j < PTO_MAX_NBUF; j++)
            if (tl->offset[j] + pto_tile_bytes(tl) > hi[tl->space]) hi[tl->space] = tl->offset[j] + pto_tile_bytes(tl);
    }
    for (s = 1; s < PTO_NSPACE; s++) {
        if (!used[s]) continue;
        pto_buf_printf(b, "%s%s %lld B", n++ ? ", " : "", pto_space_name((pto_space)s), (long long)hi[s]);
        res = pto__reserved(m, k, (pto_space)s) - pto__isa_hole(m, k, (pto_space)s);   /* the pipes' share */
        if (res > 0) pto_buf_printf(b, " + %lld B pipe buffers", (long long)res);
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
    E->kb = kn->blocks;
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
                int fl = pto__dtype_float(pa->dtype);
                if (pa->var < 0) continue;
                pto__emit_v(E, PTO__K_NAME, E->var_name[pa->var]);
                pto__emit_v(E, PTO__K_TYPE, pto__emit_dtype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0]);
                /* f16 / bf16: the host passes the value, the kernel holds it in its dtype (review23 L2) */
                pto__emit_x(E, !fl ? PTO__T_K_ARG_I : pa->dtype == PTO_F16 || pa->dtype == PTO_BF16 ? PTO__T_K_ARG_H
                                                                                            : PTO__T_K_ARG_F);
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
            int fl = pto__dtype_float(pa->dtype);
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
            pto__emit_blocks(E, kn->blocks);
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
            int fl = pto__dtype_float(pa->dtype);
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
        pto__emit_blocks(E, kn->blocks);
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

/* A host scalar of another dtype or an integer expression that is not a
   constant, passed to an f16 / bf16 param: its value is known only at run
   time, so host.c checks it there (pto_h_narrow; the verifier said the
   constants). */
static int pto__emit_hs_narrows(const pto_module *m, const pto_param *kp, const pto_operand *o)
{
    const pto_var *v;
    int64_t c;
    if (kp->dtype != PTO_F16 && kp->dtype != PTO_BF16) return 0;
    if (o->kind == PTO_O_INT) return !pto__hs_const(m, o->e[0], &c);
    if (o->kind != PTO_O_SCALAR || o->ref < 0 || o->ref >= m->n_vars) return 0;
    v = &m->vars[o->ref];
    return v->def >= 0 && v->def < m->n_params && m->params[v->def].dtype != kp->dtype;
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
        if (pto__emit_hs_narrows(m, kp, o)) {
            pto__emit_v(E, PTO__K_DTYPE, pto__emit_dtype[kp->dtype]);
            if (o->kind == PTO_O_INT) {   /* the expression as written: its -D when it is one name */
                pto__emit_expr(E, pto__emit_sb(E, PTO__K_TEXT), o->e[0], PTO__EX_PTO, 0);
                pto__emit_vbuf(E, PTO__K_TEXT);
            } else {
                pto__emit_v(E, PTO__K_TEXT, pto_str(E->ctx, m->vars[o->ref].name));
            }
            pto__emit_v(E, PTO__K_NAME, pto_str(E->ctx, k->name));
            pto__emit_v(E, PTO__K_PARAM, pto_str(E->ctx, kp->name));
            pto__emit_x(E, PTO__T_HS_ARG_FN);
        } else {
            pto__emit_x(E, pto__dtype_float(kp->dtype) ? PTO__T_HS_ARG_F : PTO__T_HS_ARG_I);
        }
    }
    txt->len = 0;
    pto__emit_hs_bind(E, st, order, n, txt, offs, saved);
    if (k->blocks >= 0) {
        pto__emit_blocks(E, k->blocks);
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
        else pto__emit_x(E, pa && pto__dtype_float(pa->dtype)
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

/* The error of an op that pto__emit_check refuses (pto__emit_refused). */
static pto_status pto__emit_op_error(pto__emitter *E, const pto_stmt *st)
{
    int cls;
    if (st->op >= PTO_NOP) return pto_error(E->ctx, st->loc, "emit: unknown op %d", (int)st->op);
    cls = (int)pto_opinfo_get((pto_op)st->op)->cls;
    if (cls == PTO_OC_XFER || cls == PTO_OC_ALLREDUCE)
        return pto_error(E->ctx, st->loc, "emit: %s is not lowered (run pto_lower after pto_verify)",
                         pto_opinfo_get((pto_op)st->op)->name);
    /* pto_kernels.h's tload zeroes the padding itself */
    return pto_error(E->ctx, st->loc, "emit: tfillpad is for the isa target (pto_compile_desc.target "
                     "PTO_TARGET_ISA); lower the module for PTO_TARGET_SIM to emit it for the simulator");
}

/* Per op, whether the emitter refuses it (pto__emit_op_error says why): the
   transfers not lowered, and tfillpad on the C target. */
static void pto__emit_refused(const pto__emitter *E, uint8_t *refused)
{
    int op;
    for (op = 0; op < PTO_NOP; op++) {
        int cls = (int)pto_opinfo_get((pto_op)op)->cls;
        refused[op] = (uint8_t)(cls == PTO_OC_XFER || cls == PTO_OC_ALLREDUCE || (cls == PTO_OC_FILLPAD && !E->hook_op));
    }
}

/* Every statement of the module's kernels must be something the emitter can
   name: checked up front so that a bad module gives one clear error. */
static pto_status pto__emit_check(pto__emitter *E)
{
    const pto_module *m = E->m;
    int32_t s, last_block = -1, *succ = E->succ, n_stmts = m->n_stmts;
    const pto_stmt *stmts = m->stmts;
    const pto_operand *operands = m->operands;
    const uint8_t *reach = E->reach;
    uint8_t *cs = E->cstate, *var_used = E->var_used, *param_used = E->param_used;
    uint32_t nex = (uint32_t)m->n_exprs, ntiles = (uint32_t)m->n_tiles, nvars = (uint32_t)m->n_vars,
             nparams = (uint32_t)m->n_params, nblocks = (uint32_t)m->n_blocks;
    int reached = 0;
    uint8_t refused[PTO_NOP];   /* (one look-up per op statement) */
    pto__emit_refused(E, refused);
    for (s = 0; s < n_stmts; s++) {
        const pto_stmt *st = &stmts[s];
        const pto_operand *o, *o0, *end;
        if (st->block < 0) {
            if (succ) succ[s] = -1;
            continue;
        }
        if (succ) succ[s] = pto__emit_succ(m, st);
        if (st->block != last_block) {   /* (a block's statements mostly follow each other) */
            last_block = st->block;
            reached = reach && (uint32_t)st->block < nblocks && reach[st->block] == 1;
        }
        if (st->kind != PTO_ST_OP) {
            if (st->kind == PTO_ST_TILE && (uint32_t)st->ref >= ntiles)
                return pto_error(E->ctx, st->loc, "emit: tile statement without a tile");
            if ((st->kind == PTO_ST_LET || st->kind == PTO_ST_FOR) && (uint32_t)st->ref >= nvars)
                return pto_error(E->ctx, st->loc, "emit: statement without its variable");
            if (reached && st->kind == PTO_ST_TILE) {   /* pto__emit_use_stmt's names, marked */
                PTO__EMIT_USE_LATER(m->tiles[st->ref].valid_r);
                PTO__EMIT_USE_LATER(m->tiles[st->ref].valid_c);
            } else if (reached) {
                PTO__EMIT_USE_LATER(st->e[0]);
                PTO__EMIT_USE_LATER(st->e[1]);
                PTO__EMIT_USE_LATER(st->e[2]);
            }
            continue;
        }
        if (st->op >= PTO_NOP || refused[st->op]) return pto__emit_op_error(E, st);
        o0 = end = operands;
        if (st->nargs > 0) end = (o0 += st->arg0) + st->nargs;
        if (st->nargs == 3 && o0[0].kind == PTO_O_PIPE && o0[1].kind == PTO_O_PIPE && o0[2].kind == PTO_O_INT &&
            (uint32_t)o0[0].ref < (uint32_t)PTO_NPIPE && (uint32_t)o0[1].ref < (uint32_t)PTO_NPIPE) {
            if (reached) {   /* a flag, the most: the loop below in one step */
                PTO__EMIT_USE_FLAG(o0[2].e[0]);
                PTO__EMIT_USE_FLAG(o0[2].e[1]);
            }
            continue;
        }
        if (st->nargs == 1 && o0->kind == PTO_O_PIPE && (uint32_t)o0->ref < (uint32_t)PTO_NPIPE) continue;   /* a barrier */
        for (o = o0; o < end; o++) {   /* checked, and the names it reads marked (pto__emit_use_stmt) */
            int bad = 0;
            switch (o->kind) {
            case PTO_O_PIPE: bad = (uint32_t)o->ref >= (uint32_t)PTO_NPIPE; break;   /* (the most: flags) */
            case PTO_O_TILE: bad = (uint32_t)o->ref >= ntiles; break;
            case PTO_O_INT:
                if (!reached) break;
                PTO__EMIT_USE_LATER(o->e[0]);
                PTO__EMIT_USE_LATER(o->e[1]);
                break;
            case PTO_O_GM:
                bad = (uint32_t)o->ref >= nparams;
                if (bad || !reached) break;
                param_used[o->ref] = 1;
                PTO__EMIT_USE_LATER(o->e[0]);
                PTO__EMIT_USE_LATER(o->e[1]);
                PTO__EMIT_USE_LATER(o->e[2]);
                break;
            case PTO_O_SCALAR:
                bad = (uint32_t)o->ref >= nvars;
                if (!bad && reached) var_used[o->ref] = 1;
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
#undef PTO__EMIT_USE_LATER
#undef PTO__EMIT_USE_FLAG
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
    memset(E->srchead, 0, sizeof E->srchead);
    memcpy(E->srchead, E->srcline, n + 1);
    E->srcline_line = 0;
    E->srcdn = 0;
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
    if (pto__need_verified(ctx, m, "pto_emit") != PTO_OK || pto__need_synced(ctx, m, "pto_emit") != PTO_OK)
        return PTO_ERR_USER;
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
