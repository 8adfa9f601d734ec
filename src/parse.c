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
   is linear. The commonest lines (op operands, tile statements, plain
   expressions, as the printer writes them) are read straight from the text
   without tokens ("quick reads"); anything else, and every error, is the
   token parser's, which takes over at the first byte a quick read declines,
   so the result is the same either way.
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

#define PTO__MAX_NEST 64        /* nested blocks (an else-if chain counts as one) */
/* An else-if chain nests each arm's if in the else block of the one before
   (the IR's form): every pass recurses on that depth, and the sync pass's
   cost grows with its square (a state copy per open if: 512 arms in a loop
   cost it ~0.8 s and 70 MB, 2,000 arms 8 s and 900 MB), so a chain has at
   most PTO__MAX_ARMS arms and blocks plus arms nest at most
   PTO__MAX_IR_NEST deep in all. */
#define PTO__MAX_ARMS 512
#define PTO__MAX_IR_NEST 1024
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

/* The words an expression reads (block .. nan): no name in an expression's
   scope may be one. One list for the parser, by keyword id
   (pto__ps_reserved), and the verifier, by string (pto__vname_ok: the C
   API's names). */
static const unsigned char pto__reserved_kw[] = {PTO__KW_BLOCK, PTO__KW_BLOCKS, PTO__KW_SUBBLOCK, PTO__KW_RANK,
                                                 PTO__KW_NRANKS, PTO__KW_MIN, PTO__KW_MAX, PTO__KW_INF, PTO__KW_NAN};
#define PTO__NRESERVED (sizeof pto__reserved_kw / sizeof pto__reserved_kw[0])

/* What a name is bound to in the current kernel. */
enum {
    PTO__B_NONE, PTO__B_TENSOR, PTO__B_SCALAR, PTO__B_DIM, PTO__B_LET, PTO__B_LOOP, PTO__B_TILE, PTO__B_PIPE
};

/* The kinds that name an integer variable (an expression's atom), as bits. */
#define PTO__B_INTVARS ((1u << PTO__B_SCALAR) | (1u << PTO__B_DIM) | (1u << PTO__B_LET) | (1u << PTO__B_LOOP))

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

/* A tile line's tail as pto__ps_qtile read it: "SPACE DTYPE[R, C] [xN]\n"
   (its bytes in pto__ps_parser.qt_text). */
#define PTO__QT_MAX 40
typedef struct pto__ps_qtail {
    uint8_t sp, dt;       /* pto_space, pto_dtype */
    int32_t r, c, nbuf;   /* nbuf -1: no xN */
    size_t k, len;        /* past the ']' and past the newline, from the tail's start (len 0: none kept) */
} pto__ps_qtail;

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
    int32_t arch_line, arch_col;   /* the 'arch' line read, if any (line 0: none) */
    pto__ps_tok tok;
    int32_t kernel;          /* current kernel, -1 outside */
    int32_t depth;           /* scope depth */
    int nest;                /* open blocks */
    int ir_nest;             /* open blocks, plus one per else-if arm open */
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
    size_t nc_end;       /* a name starting before it may use the cache (16 bytes readable; 0: no cache) */
    const uint64_t *first;   /* pto__ps_first_le or _be, for this host */
    int32_t arg_op, arg_i;   /* the op whose operand arg_i (from 0) is being parsed (messages) */
    size_t name_stop;        /* the last byte that continues no name (0: none; pto__ps_name_end) */
    int32_t unk_line, unk_id;   /* the last unknown name reported and its line: once per line */
    int nonascii;               /* a non-ASCII byte was reported (once per file: review17) */
    int32_t dead[8], dead_kernel[8];  /* names whose let / for / tile / param line failed (pto__ps_dead) */
    int n_dead;
    pto__ps_qtail qt;                 /* the last tile line's tail read quickly (pto__ps_qtile) */
    char qt_text[PTO__QT_MAX];
    /* pto__ps_salvage: the byte ranges (from, to) of the top-level items to leave out of a second
       parse of a file with errors (those with an error, and hosts), and whether it may be tried */
    size_t *cut;
    int32_t n_cut, cap_cut;
    int32_t clean_kernels;   /* kernels parsed with no error */
    size_t last_from, last_to;   /* the last item, when it was a kernel parsed with no error (else to = 0) */
    int no_salvage;          /* an arch line with an error, or no memory: no second parse */
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

/* The location of byte `at` of the current line (the quick reads' tokens
   are never made), as *pto__ps_qloc(p, at): held as pto__ps_tloc's. */
static const pto_loc *pto__ps_qloc(pto__ps_parser *p, size_t at)
{
    p->tloc.file = p->file;
    p->tloc.line = p->line;
    p->tloc.col = (int32_t)(at - p->line_start + 1);
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
    if (t->len == 4 && memcmp(s, "elif", 4) == 0) return " (write 'else if')";
    return "";
}

/* "expected WHAT, got 'X'"; a malformed token is reported for what it is. */
static void pto__ps_expected(pto__ps_parser *p, const char *what)
{
    char q[200];
    pto__ps_tokstr(p, &p->tok, q, sizeof q);
    if (p->tok.kind == PTO__T_BADCHAR && (unsigned char)p->src[p->tok.pos] >= 0x80) {
        /* a non-ASCII name is written at every use: one error says it (a later line's is a repeat) */
        if (!p->nonascii++)
            pto__ps_err(p, &p->tok, "unexpected character %s (non-ASCII: names are ASCII letters, digits and '_'; "
                        "later ones are not reported)", q);
        /* (the first one is an error: the parse fails either way) */
    } else if (p->tok.kind == PTO__T_BADCHAR)
        pto__ps_err(p, &p->tok, "unexpected character %s%s", q, pto__ps_foreign_hint(p, &p->tok));
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

PTODEF int pto_near(const char *word, size_t len, const char *cand)
{
    int limit = pto__ps_near_limit(len);
    int d = pto__ps_edits(word, len, cand, strlen(cand), limit);
    return d <= limit && (size_t)d < len ? d : -1;
}

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

/* For a function the compiler would otherwise inline into a hotter one,
   and for the few small ones of the hottest paths it might not inline
   (a call there costs as much as the function). */
#if defined(__GNUC__) || defined(__clang__)
#define PTO__PS_NOINLINE __attribute__((noinline))
#define PTO__PS_INLINE inline __attribute__((always_inline))
#else
#define PTO__PS_NOINLINE
#define PTO__PS_INLINE inline
#endif

/* Character classes, one table lookup per byte (the lexer's inner loops):
   1 letter or '_', 2 digit, 4 hex digit, 8 starts a punctuator, 16 blank
   (space, \t, \v, \f, \r: not the newline, a token), 32 starts a comment,
   64 may start a two-character operator. */
enum {
    PTO__CC_ALPHA = 1, PTO__CC_DIGIT = 2, PTO__CC_HEX = 4, PTO__CC_PUNCT = 8, PTO__CC_BLANK = 16,
    PTO__CC_COMMENT = 32, /* '#' */
    PTO__CC_OP2 = 64,     /* '<' '>' '=' '!': may start a two-character operator */
    PTO__CC_ARITH = 128   /* '+' '-' '*' '/' '%': an expression's operators (pto__ps_qexpr) */
};
static const unsigned char pto__ps_cc[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    16, 64, 0, 32, 0, 136, 0, 0, 8, 8, 136, 136, 8, 136, 0, 136, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 8, 0, 72, 72, 72, 0,
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
static PTO__PS_NOINLINE int32_t pto__ps_name_miss(pto__ps_parser *p, pto__ps_ncent *e, uint64_t k0, uint64_t k1,
                                                  size_t start, size_t len)
{
    int32_t id = pto__ps_intern(p, start, len);
    if (id > 0) {   /* 0: out of memory (the empty string); not kept */
        e->k0 = k0;
        e->k1 = k1;
        e->len = (uint32_t)len;
        e->id = id;
    }
    return id;
}

/* The id of the name at start. Most names are the same few words again and
   again (ops, keywords, the tiles and variables of the block at hand), so
   the parser keeps a small direct-mapped cache of names of up to 16 bytes,
   keyed by their bytes as two words: a hit costs two loads and a compare
   instead of hashing every byte and probing the intern table (whose slots
   and pool, megabytes in a large file, are mostly cache misses). The cache
   only holds ids the table already gave, so ids are the same as without it
   (first-seen order). Away from the end of the text (16 bytes may be read
   past the name's start). pto__ps_name_id takes names of up to 8 bytes
   (one word: most of them), this one the others, out of line so that the
   common path stays small where it is inlined. */
static PTO__PS_NOINLINE int32_t pto__ps_name_id_long(pto__ps_parser *p, size_t start, size_t len)
{
    uint64_t k0, k1;
    pto__ps_ncent *e;
    if (start >= p->nc_end || len > 16) return pto__ps_intern(p, start, len);
    memcpy(&k0, p->src + start, 8);
    memcpy(&k1, p->src + start + 8, 8);
    k1 &= p->first[len - 8];
    e = &p->nc[(uint32_t)(((k0 ^ (k1 * 31u) ^ len) * 0x9E3779B97F4A7C15u) >> (64 - PTO__NC_BITS))];
    if (e->k0 == k0 && e->k1 == k1 && e->len == len) return e->id;
    return pto__ps_name_miss(p, e, k0, k1, start, len);
}

static PTO__PS_INLINE int32_t pto__ps_name_id(pto__ps_parser *p, size_t start, size_t len)
{
    uint64_t k0;
    pto__ps_ncent *e;
    if (start >= p->nc_end || len > 8) return pto__ps_name_id_long(p, start, len);
    /* most names: one word (an entry of up to 8 bytes has k1 0, so equal
       lengths and first words are the same name) */
    memcpy(&k0, p->src + start, 8);
    k0 &= p->first[len];
    e = &p->nc[(uint32_t)(((k0 ^ len) * 0x9E3779B97F4A7C15u) >> (64 - PTO__NC_BITS))];
    if (e->k0 == k0 && e->len == len) return e->id;
    return pto__ps_name_miss(p, e, k0, 0, start, len);
}

/* The end of the name whose first character is at i. Before p->name_stop
   (a byte that continues no name) the scan needs no bounds test: it stops
   there at the latest. */
static inline size_t pto__ps_name_end(const pto__ps_parser *p, size_t i)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t n = p->len;
    if (i < p->name_stop) {
        for (i++; pto__ps_cc[s[i]] & (PTO__CC_ALPHA | PTO__CC_DIGIT); i++) {}
        return i;
    }
    for (i++; i < n && (pto__ps_cc[s[i]] & (PTO__CC_ALPHA | PTO__CC_DIGIT)); i++) {}
    return i;
}

/* A NAME token starting at i. Kept out of line (pto__ps_next calls it last,
   a tail call): inlined, its registers would be saved on every token. */
static PTO__PS_NOINLINE void pto__ps_lex_name(pto__ps_parser *p, size_t i)
{
    size_t end = pto__ps_name_end(p, i);
    p->tok.kind = PTO__T_NAME;
    p->tok.len = end - i;
    p->pos = end;
    p->tok.id = pto__ps_name_id(p, i, end - i);
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

/* The newline at p->pos (a quick read stopped there, having taken the
   whole line) and the first token after it: what pto__ps_next would do
   making the NEWLINE token and pto__ps_end_stmt consuming it, without the
   token no one reads. */
static void pto__ps_newline(pto__ps_parser *p)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t i = p->pos + 1, n = p->len;
    uint32_t w;
    p->line++;
    p->line_start = i;
    while (n - i > 4 && (memcpy(&w, s + i, 4), w == 0x20202020u)) i += 4;
    if (n - i > 1 && (pto__ps_cc[s[i]] & PTO__CC_ALPHA)) {   /* a statement's first word, as pto__ps_next makes it */
        p->tok.pos = i;
        p->tok.line = p->line;
        p->tok.col = (int32_t)(i - p->line_start + 1);
        pto__ps_lex_name(p, i);
        return;
    }
    p->pos = i;
    pto__ps_next(p);
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

/* Consumes the '{' that ends a header line (*open: it) or reports "expected
   WHAT". A '{' alone on the next line (C's Allman habit) is one error with
   the rule, then taken as the block's '{': the block's lines and its '}'
   are not reported again (review20 L8: three cascading errors). */
static int pto__ps_open(pto__ps_parser *p, const char *what, pto__ps_tok *open)
{
    if (pto__ps_is(p, PTO__T_NL) && pto__ps_peek(p).kind == '{') {
        pto__ps_err(p, &p->tok, "expected %s, got end of line (the '{' must end the header line)", what);
        pto__ps_next(p);
    }
    *open = p->tok;
    if (p->tok.kind != '{') { pto__ps_expected(p, what); return 0; }
    pto__ps_next(p);
    return 1;
}

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

/* A literal past double's range: strtod read the finite, nonzero text t as
   inf (1e400) or 0 (1e-400). The verifier, which warns of a literal that
   rounds to inf or 0 in the dtype it is used in (1e39 in f32), sees only
   the value, which `inf` and `0.0` have too: said here, with the literal as
   written (review21 L3). `start` is the operand's first token (its '-'). */
static void pto__ps_float_range(pto__ps_parser *p, const pto__ps_tok *start, const pto__ps_tok *t, int neg, double v)
{
    const char *s = p->src + t->pos;
    size_t i;
    int n = t->len > 60 ? 60 : (int)t->len;
    if (v != v || (v != 0.0 && v - v == 0.0)) return;   /* finite and nonzero: in range */
    if (v == 0.0) {
        for (i = 0; i < t->len && s[i] != 'e' && s[i] != 'E'; i++)
            if (s[i] >= '1' && s[i] <= '9') break;
        if (i == t->len || s[i] == 'e' || s[i] == 'E') return;   /* the text is a zero */
    }
    pto_warning(p->ctx, *pto__ps_tloc(p, start), "float %s%.*s%s rounds to %s (%s double's range; write %s if that is meant)",
                neg ? "-" : "", n, s, n < (int)t->len ? "..." : "", v == 0.0 ? "0" : neg ? "-inf" : "inf",
                v == 0.0 ? "below" : "past", v == 0.0 ? "0" : neg ? "-inf" : "inf");
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
    size_t i;
    if (id > p->kw_max) return 0;   /* interned after every keyword: none of them */
    for (i = 0; i < PTO__NRESERVED; i++)
        if (p->kw[pto__reserved_kw[i]] == id) return 1;
    return 0;
}

/* A let, for, tile or parameter line that failed after its name: that
   error is the one to fix, so a later use of the name is not reported
   again as unknown (review16: every use of a loop variable whose header
   lacked 'to'). The last 8 such names are kept. Returns 0, the
   statement's failure. */
static int pto__ps_dead(pto__ps_parser *p, const pto__ps_tok *name)
{
    p->dead[p->n_dead % 8] = name->id;
    p->dead_kernel[p->n_dead % 8] = p->kernel;
    p->n_dead++;
    return 0;
}

/* Whether name id is one whose declaring line failed (pto__ps_dead). */
static int pto__ps_is_dead(const pto__ps_parser *p, int32_t id)
{
    int i;
    for (i = 0; i < 8 && i < p->n_dead; i++)
        if (p->dead[i] == id && p->dead_kernel[i] == p->kernel) return 1;
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
    /* the name stays bound to what it was: a use the new declaration meant
       (`tload x, ...` for a tile x that shadows tensor x) is no second error
       (review17 c25) */
    pto__ps_dead(p, t);
    if (n->depth == p->depth)
        pto__ps_err(p, t, "%s '%s' is already declared at %d:%d", pto__ps_bind_word[n->kind], pto__ps_text(p, t),
                 (int)n->line, (int)n->col);
    else
        pto__ps_err(p, t, "'%s' shadows the %s declared at %d:%d (shadowing is not allowed)",
                 pto__ps_text(p, t), pto__ps_bind_word[n->kind], (int)n->line, (int)n->col);
    return 0;
}

static PTO__PS_INLINE void pto__ps_bind(pto__ps_parser *p, const pto__ps_tok *t, int kind, int32_t ref)
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

/* A name used before the line that declares it (`tload t, ...` above `tile t: ...`): the
   text after the use is searched for `tile NAME` / `let NAME` at the start of a line, and the
   error says where (review17: "unknown name 't'" alone, one line above its declaration).
   Returns 1 when it reported. Only on an error's path, and over the next 256 lines at most, so
   a file of many unknown names costs no more than that per error. */
static int pto__ps_declared_later(pto__ps_parser *p, const pto__ps_tok *t)
{
    const char *s = p->src, *name = p->src + t->pos;
    size_t i = t->pos + t->len, len = p->len, k;
    int32_t line = t->line;
    for (; i < len; i++) {
        size_t j, w;
        if (s[i] != '\n') continue;
        if (++line - t->line > 256) break;
        for (j = i + 1; j < len && (s[j] == ' ' || s[j] == '\t'); j++) {}
        if (j + 4 < len && memcmp(s + j, "tile", 4) == 0 && (s[j + 4] == ' ' || s[j + 4] == '\t')) w = 4;
        else if (j + 3 < len && memcmp(s + j, "let", 3) == 0 && (s[j + 3] == ' ' || s[j + 3] == '\t')) w = 3;
        else continue;
        for (k = j + w; k < len && (s[k] == ' ' || s[k] == '\t'); k++) {}
        if (k + t->len <= len && memcmp(s + k, name, t->len) == 0 &&
            (k + t->len == len || !(pto__ps_cc[(unsigned char)s[k + t->len]] & (PTO__CC_ALPHA | PTO__CC_DIGIT)))) {
            pto__ps_err(p, t, "unknown name '%.*s': it is declared later, at %d:%d (declare it before its first use)",
                        (int)t->len, name, (int)line, (int)(k - i));
            return 1;
        }
    }
    return 0;
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
    if (t->line == p->unk_line && t->id == p->unk_id) return;   /* `tmuls t, t, 2.0`: one error for two t's */
    if (pto__ps_is_dead(p, t->id)) return;
    p->unk_line = t->line;
    p->unk_id = t->id;
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
    if (pto__ps_declared_later(p, t)) return;
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

/* chain: in a left-assoc chain of + - or * / %, the operators so far (this
   one too) and in *chain_h the tallest operand; 0 / NULL elsewhere. The tree
   is as high when the user wrote no parentheses (1 + 1 + ... + 1): that is
   said as a long chain, not as nesting. */
static int32_t pto__ps_bin(pto__ps_parser *p, pto_expr_kind k, int32_t a, int ha, int32_t b, int hb,
                        const pto__ps_tok *op, int *h, int chain, const int *chain_h)
{
    *h = 1 + (ha > hb ? ha : hb);
    if (*h > PTO__MAX_EXPR_DEPTH) {
        if (chain_h && chain > *chain_h)
            pto__ps_err(p, op, "expression is too long (a chain of %d operators makes it more than %d levels "
                        "deep: split it with a let)", chain, PTO__MAX_EXPR_DEPTH);
        else
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
        if (pto__ps_is_dead(p, t.id)) break;   /* `let x = ..` that x shadowed: said there */
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
    return pto__ps_bin(p, k, a, ha, b, hb, &t, h, 0, NULL);
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
            if (e >= 0) e = pto__ps_bin(p, PTO_E_NEG, e, ha, -1, 0, &op, h, 0, NULL);
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
    int n = 0, top = *h;
    while (a >= 0 && (pto__ps_is(p, '*') || pto__ps_is(p, '/') || pto__ps_is(p, '%'))) {
        pto__ps_tok op = p->tok;
        pto_expr_kind k = op.kind == '*' ? PTO_E_MUL : op.kind == '/' ? PTO_E_DIV : PTO_E_MOD;
        int32_t b;
        int hb, ha = *h;
        pto__ps_next(p);
        if ((b = pto__ps_unary(p, &hb)) < 0) return -1;
        if (hb > top) top = hb;
        a = pto__ps_bin(p, k, a, ha, b, hb, &op, h, ++n, &top);
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
    int n = 0, top = *h;
    while (a >= 0 && (pto__ps_is(p, '+') || pto__ps_is(p, '-'))) {
        pto__ps_tok op = p->tok;
        int32_t b;
        int hb, ha = *h;
        pto__ps_next(p);
        if ((b = pto__ps_term(p, &hb)) < 0) return -1;
        if (hb > top) top = hb;
        a = pto__ps_bin(p, op.kind == '+' ? PTO_E_ADD : PTO_E_SUB, a, ha, b, hb, &op, h, ++n, &top);
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
/* A whole expression of the usual form read straight from the text (as
   the operands are, pto__ps_qoperands): atoms (a decimal integer, an
   integer variable, a builtin) joined by + - * / % with one space either
   side, starting with the current token. Checked to the end before any
   node is made; any other form (parentheses, unary minus, min / max, other
   spacing around an operator, a name the token parser would report) is
   left to it (-1, nothing done). The nodes are made in the token parser's
   order: each atom, each operator once its right operand is complete. */
#define PTO__QX_MAX 32   /* atoms: the tree stays far below PTO__MAX_EXPR_DEPTH */

typedef struct pto__ps_qatom {
    size_t at;
    int64_t v;
    int32_t var;
    int kind;        /* PTO_E_INT, PTO_E_VAR or a builtin */
    size_t op;       /* the operator before it (atoms after the first) */
} pto__ps_qatom;

/* The builtin an id of a keyword names, or -1. */
static int pto__ps_qbuiltin(const pto__ps_parser *p, int32_t id)
{
    static const struct { int kw; pto_expr_kind k; } builtins[] = {
        {PTO__KW_BLOCK, PTO_E_BLOCK}, {PTO__KW_BLOCKS, PTO_E_BLOCKS}, {PTO__KW_SUBBLOCK, PTO_E_SUBBLOCK},
        {PTO__KW_RANK, PTO_E_RANK}, {PTO__KW_NRANKS, PTO_E_NRANKS}};
    size_t i;
    for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (id == p->kw[builtins[i].kw]) return (int)builtins[i].k;
    return -1;
}

/* The atom at [at, end) (a name's id in `id`): 1 when it is one. */
static inline int pto__ps_qatom_at(pto__ps_parser *p, size_t at, size_t end, int32_t id, pto__ps_qatom *a)
{
    const unsigned char *s = (const unsigned char *)p->src;
    a->at = at;
    if (pto__ps_cc[s[at]] & PTO__CC_DIGIT) {
        uint64_t v = 0;
        size_t i;
        if (end - at > 18 || (s[at] == '0' && end - at > 1)) return 0;
        for (i = at; i < end; i++) v = v * 10u + (uint64_t)(s[i] - '0');
        a->kind = PTO_E_INT;
        a->var = -1;
        a->v = (int64_t)v;
        return 1;
    }
    a->v = 0;
    if (id > p->kw_max) {
        int k;
        if (id >= p->cap_names) return 0;
        k = p->names[id].kind;
        if (!(PTO__B_INTVARS >> k & 1u)) return 0;
        a->kind = PTO_E_VAR;
        a->var = p->names[id].ref;
        return 1;
    }
    a->var = -1;
    return (a->kind = pto__ps_qbuiltin(p, id)) >= 0;
}

/* The atom starting at byte i (< p->len): a number not glued to a name or
   '.', or a name; *end past it. */
static inline int pto__ps_qatom_scan(pto__ps_parser *p, size_t i, pto__ps_qatom *a, size_t *end)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t j = i, n = p->len;
    int cls = pto__ps_cc[s[i]];
    if (cls & PTO__CC_DIGIT) {   /* the value as it is scanned (pto__ps_qatom_at's checks) */
        uint64_t v = (uint64_t)(s[i] - '0');
        for (j++; j < n && (pto__ps_cc[s[j]] & PTO__CC_DIGIT); j++)
            if (j - i < 18) v = v * 10u + (uint64_t)(s[j] - '0');
        if (j < n && ((pto__ps_cc[s[j]] & (PTO__CC_ALPHA | PTO__CC_DIGIT)) || s[j] == '.')) return 0;
        if (j - i > 18 || (s[i] == '0' && j - i > 1)) return 0;
        *end = j;
        a->at = i;
        a->kind = PTO_E_INT;
        a->var = -1;
        a->v = (int64_t)v;
        return 1;
    }
    if (!(cls & PTO__CC_ALPHA)) return 0;
    j = pto__ps_name_end(p, i);
    *end = j;
    return pto__ps_qatom_at(p, i, j, pto__ps_name_id(p, i, j - i), a);
}

/* An expression node at byte `at` of the current line, as pto_expr_int /
   _var / _builtin / _bin make it (a binary node of a failed operand is
   -1), written in place when the array has room: the quick reads make
   most of the parser's nodes, and the calls, the location copied through
   p->tloc and the zeroing of a node about to be written cost more than
   the node itself. */
static inline int32_t pto__ps_qnode(pto__ps_parser *p, int kind, int32_t a, int32_t b, int64_t v, size_t at)
{
    pto_module *m = p->m;
    pto_expr *x;
    int32_t e;
    if (kind >= PTO_E_ADD && (a < 0 || b < 0)) return -1;
    if (m->n_exprs >= m->cap_exprs) return pto__expr(m, (pto_expr_kind)kind, a, b, v, *pto__ps_qloc(p, at));
    e = m->n_exprs++;
    x = &m->exprs[e];
    memset((char *)x + offsetof(pto_expr, kind), 0, sizeof *x - offsetof(pto_expr, kind));   /* the padding */
    x->value = v;
    x->a = a;
    x->b = b;
    x->loc.file = p->file;
    x->loc.line = p->line;
    x->loc.col = (int32_t)(at - p->line_start + 1);
    x->kind = (uint8_t)kind;
    m->verified = 0;
    return e;
}

static pto_expr_kind pto__ps_qop_kind(int c)
{
    return c == '+' ? PTO_E_ADD : c == '-' ? PTO_E_SUB : c == '*' ? PTO_E_MUL : c == '/' ? PTO_E_DIV : PTO_E_MOD;
}

/* The nodes of atoms[0..n) and the operators between them, in the token
   parser's order: each atom, each operator once its right operand is
   complete (a term's '*' at once, a '+' when the term after it ends). */
static int32_t pto__ps_qtree(pto__ps_parser *p, const pto__ps_qatom *atoms, int n)
{
    const char *s = p->src;
    int32_t acc = -1, term = pto__ps_qnode(p, atoms[0].kind, atoms[0].var, -1, atoms[0].v, atoms[0].at);
    size_t add = 0;   /* the pending '+' / '-' (0: none yet) */
    int k;
    for (k = 1; k < n; k++) {
        const pto__ps_qatom *a = &atoms[k];
        int c = s[a->op];
        int32_t b;
        if (c != '+' && c != '-') {
            b = pto__ps_qnode(p, a->kind, a->var, -1, a->v, a->at);
            term = pto__ps_qnode(p, pto__ps_qop_kind(c), term, b, 0, a->op);
            continue;
        }
        acc = add ? pto__ps_qnode(p, pto__ps_qop_kind(s[add]), acc, term, 0, add) : term;
        add = a->op;
        term = pto__ps_qnode(p, a->kind, a->var, -1, a->v, a->at);
    }
    return add ? pto__ps_qnode(p, pto__ps_qop_kind(s[add]), acc, term, 0, add) : term;
}

/* The atoms after atoms[0] (which ends at j) of an expression read
   quickly: their count, with *end where the expression ends, or 0 when it
   is left to the token parser. Makes no node. */
static int pto__ps_qrest(pto__ps_parser *p, pto__ps_qatom *atoms, size_t j, size_t *end)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t n = p->len;
    int na = 1;
    for (;;) {
        size_t b = j + 1;
        if (!(b < n && s[j] == ' ' && (pto__ps_cc[s[b]] & PTO__CC_ARITH))) {   /* else the usual ` + ` */
            for (b = j; b < n && (pto__ps_cc[s[b]] & PTO__CC_BLANK); b++) {}
            if (b >= n || !(pto__ps_cc[s[b]] & PTO__CC_ARITH)) break;   /* the expression ends at j */
            if (b != j + 1) return 0;
        }
        if (b + 2 >= n || s[b + 1] != ' ' || na == PTO__QX_MAX || !pto__ps_qatom_scan(p, b + 2, &atoms[na], &j))
            return 0;
        atoms[na++].op = b;
    }
    *end = j;
    return na;
}

/* An expression read quickly from byte i (< p->len) of the line: its atom
   count (atoms[], *end past it) or 0, as pto__ps_qrest. */
static int pto__ps_qscan(pto__ps_parser *p, size_t i, pto__ps_qatom *atoms, size_t *end)
{
    size_t j;
    if (!pto__ps_qatom_scan(p, i, &atoms[0], &j)) return 0;
    return pto__ps_qrest(p, atoms, j, end);
}

/* 1 and the expression's node in *e (-1 when a node could not be added),
   or 0 when the expression is left to the token parser. */
static int pto__ps_qexpr(pto__ps_parser *p, int32_t *e)
{
    pto__ps_qatom atoms[PTO__QX_MAX];
    size_t j = p->tok.pos + p->tok.len;
    int na;
    if (p->ctx->parse_tokens_only || !pto__ps_qatom_at(p, p->tok.pos, j, p->tok.id, &atoms[0])) return 0;
    if (!(na = pto__ps_qrest(p, atoms, j, &j))) return 0;
    *e = pto__ps_qtree(p, atoms, na);
    p->pos = j;
    pto__ps_next(p);
    return 1;
}

static int32_t pto__ps_expr0(pto__ps_parser *p)
{
    int h = 1;
    int32_t a;
    if ((p->tok.kind == PTO__T_INT || p->tok.kind == PTO__T_NAME) && pto__ps_qexpr(p, &a)) return a;
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
        if (pto__ps_is_dead(p, t.id))   /* a declaration of this name failed, and said why */
            return pto_arg_int(p->m, s, pto_expr_int(p->m, 0, *pto__ps_tloc(p, &t)), *pto__ps_tloc(p, &t)) >= 0;
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
        pto__ps_float_range(p, &start, &p->tok, neg, v);
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

/* Does an arithmetic operator follow the current token? Then a scalar
   param there starts an integer expression (`tadds d, a, n * 2`). */
static int pto__ps_is_arith(int kind)
{
    return kind == '+' || kind == '-' || kind == '*' || kind == '/' || kind == '%';
}

static int pto__ps_arith_next(pto__ps_parser *p) { return pto__ps_is_arith(pto__ps_peek(p).kind); }

/* In a scalar position, an integer literal that an arithmetic operator
   follows (`2 * i`, `2 + 1`, `-2 * i`) starts an integer expression, as
   `i * 2` does; a literal alone stays a float operand (`1.5`, `-2`, `3`).
   The current token is the literal or the '-' before it. */
static int pto__ps_int_lead(pto__ps_parser *p)
{
    size_t pos = p->pos, ls = p->line_start;
    int32_t line = p->line;
    pto__ps_tok cur = p->tok;
    int r;
    if (cur.kind == '-') {
        pto__ps_next(p);
        if (p->tok.kind != PTO__T_INT) {
            r = 0;
            goto out;
        }
    } else if (cur.kind != PTO__T_INT) {
        return 0;
    }
    pto__ps_next(p);
    r = pto__ps_is_arith(p->tok.kind);
out:
    p->tok = cur;
    p->pos = pos;
    p->line_start = ls;
    p->line = line;
    return r;
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
    if ((mask & PTO_A_SCALAR) && (t.kind == '-' || t.kind == PTO__T_INT) && pto__ps_int_lead(p)) {
        int32_t e = pto__ps_expr0(p);
        return e >= 0 && pto__ps_arg_int(p, s, e, &loc);
    }
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
            if (!(mask & PTO_A_INT) && !pto__ps_arith_next(p)) {
                pto__ps_next(p);
                return pto__arg_last(p->m, s, PTO_O_SCALAR, n->ref, loc) >= 0;
            }
            break;
        case PTO__B_NONE:
            /* `zz + 1`: the expression reports the name, and takes the rest */
            if (mask != PTO_A_CVPIPE && pto__ps_arith_next(p)) break;
            if (mask == 0 && pto_pipe_lookup(p->src + t.pos, t.len) != PTO_NPIPE) {
                pto__ps_next(p);
                return pto_arg_pipe(p->m, s, pto_pipe_lookup(p->src + t.pos, t.len), loc) >= 0;
            }
            if (mask == PTO_A_CVPIPE && pto__ps_is_dead(p, t.id))
                ;   /* its declaration failed, and said why */
            else if (mask == PTO_A_CVPIPE && p->kernel >= 0 && p->m->kernels[p->kernel].kind != PTO_KK_MIX)
                /* tpush / tpop / tfree outside a mix kernel: no pipe can be declared here */
                pto__ps_err(p, &t, "unknown name '%s': cube/vector pipes ('pipe %s: c2v f32[R, C]') are declared in "
                            "a mix kernel, and this is a %s kernel", pto__ps_text(p, &t), pto__ps_text(p, &t),
                            p->m->kernels[p->kernel].kind == PTO_KK_CUBE ? "cube" : "vector");
            else
                pto__ps_unknown_name(p, &t, ~(1u << PTO__B_NONE), (mask & PTO_A_INT) != 0);
            pto__ps_next(p);
            if (pto__ps_is(p, '[') || pto__ps_is(p, '@')) { /* a window of an unknown tensor: skip it */
                while (!pto__ps_at_eol(p) && !pto__ps_is(p, ']')) pto__ps_next(p);
                if (pto__ps_is(p, ']')) pto__ps_next(p);
            }
            return pto_arg_int(p->m, s, pto_expr_int(p->m, 0, loc), loc) >= 0;
        default:
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

/* `allreduce X, SIG, max`: a reduction named where allreduce has none to
   choose (it sums; min / max would otherwise read as the functions). */
static int pto__ps_reduction_word(pto__ps_parser *p)
{
    static const char *const words[] = {"sum", "add", "max", "min", "prod", "mul", "mean", "avg"};
    const pto__ps_tok t = p->tok;
    size_t i;
    if (t.kind != PTO__T_NAME) return 0;
    for (i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == (size_t)t.len && memcmp(p->src + t.pos, words[i], (size_t)t.len) == 0) {
            pto__ps_err(p, &t, "allreduce takes no reduction: it sums over ranks (in rank order); write "
                               "'allreduce X, SIG' (got '%s')", words[i]);
            return 1;
        }
    return 0;
}

/* ---- operands read straight from the text ---------------------------------
   Most operand lists are written the way the printer writes them: one space
   after the op and after each ',', each operand a tile, a scalar param, a
   plain number where a scalar goes, or a window T[R, C] whose R and C are
   each an integer or a variable. Those are read here from the bytes, without
   a token for each name, ',' and number (most of a large file's tokens).
   The first operand that is anything else (another form or spacing, a
   comment, a name that is no such thing, the end of the text) ends the
   quick read before it adds anything, and the token parser goes on from the
   start of that operand. The quick read only takes what the token parser
   would take without a word, and makes the same nodes in the same order
   with the same locations; it interns only names of this line, in text
   order, all of which the token parser would intern too (it lexes every
   token of a line, even after an error), so ids are the same as well. */

/* pto__ps_qarg when the operand array is full (ir.c grows it). */
static PTO__PS_NOINLINE int32_t pto__ps_qarg_grow(pto__ps_parser *p, int32_t s, pto_operand_kind kind, int32_t ref,
                                                  size_t at)
{
    return pto__arg_last(p->m, s, kind, ref, *pto__ps_qloc(p, at));
}

/* pto__arg_last for a quick read at byte `at` of the current line: the
   operand written in place when the array has room (as pto__ps_qnode
   writes its nodes), its location straight from the line. */
static PTO__PS_INLINE int32_t pto__ps_qarg(pto__ps_parser *p, int32_t s, pto_operand_kind kind, int32_t ref, size_t at)
{
    pto_module *m = p->m;
    pto_operand *x;
    int32_t o;
    if (m->n_operands >= m->cap_operands) return pto__ps_qarg_grow(p, s, kind, ref, at);
    o = m->n_operands++;
    x = &m->operands[o];
    memset(x, 0, sizeof *x);   /* f and the padding */
    x->kind = (uint8_t)kind;
    x->ref = ref;
    x->e[0] = x->e[1] = x->e[2] = -1;
    x->loc.file = p->file;
    x->loc.line = p->line;
    x->loc.col = (int32_t)(at - p->line_start + 1);
    m->stmts[s].nargs++;
    m->verified = 0;
    return o;
}

/* The binding of the name at [start, end) when it is no keyword (the
   keywords hold inf, nan and the builtins, which read otherwise), else
   NULL. */
static PTO__PS_INLINE const pto__ps_pname *pto__ps_qname(pto__ps_parser *p, size_t start, size_t end)
{
    int32_t id = pto__ps_name_id(p, start, end - start);
    return id > p->kw_max && id < p->cap_names ? &p->names[id] : NULL;
}

/* One index of a window, at i and ended by the byte `stop`: an integer of
   at most 18 digits (no leading 0, which may be hex) or an integer
   variable. Its node is made only once the whole operand has been read. */
typedef struct pto__ps_qidx {
    size_t at, end;
    int32_t var;     /* -1: the integer v */
    int64_t v;
} pto__ps_qidx;

static PTO__PS_INLINE int pto__ps_qindex(pto__ps_parser *p, size_t i, int stop, pto__ps_qidx *x)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t n = p->len, j = i;
    x->at = i;
    x->var = -1;
    x->v = 0;
    if (i >= n) return 0;
    if (pto__ps_cc[s[i]] & PTO__CC_DIGIT) {
        uint64_t v = 0;
        for (; j < n && j - i <= 18 && (pto__ps_cc[s[j]] & PTO__CC_DIGIT); j++) v = v * 10u + (uint64_t)(s[j] - '0');
        if (j - i > 18 || (s[i] == '0' && j - i > 1)) return 0;
        x->v = (int64_t)v;
    } else if (pto__ps_cc[s[i]] & PTO__CC_ALPHA) {
        const pto__ps_pname *nm;
        j = pto__ps_name_end(p, i);
        nm = j < n ? pto__ps_qname(p, i, j) : NULL;
        if (!nm || !(PTO__B_INTVARS >> nm->kind & 1u)) return 0;
        x->var = nm->ref;
    } else {
        return 0;
    }
    x->end = j;
    return j < n && s[j] == stop;
}

static int32_t pto__ps_qindex_node(pto__ps_parser *p, const pto__ps_qidx *x)
{
    return x->var >= 0 ? pto__ps_qnode(p, PTO_E_VAR, x->var, -1, 0, x->at) : pto__ps_qnode(p, PTO_E_INT, -1, -1, x->v, x->at);
}

/* A window T[R, C] of the tensor param `param` whose name ends at j (its
   '['); *end is set past the ']'. */
static int pto__ps_qwindow(pto__ps_parser *p, int32_t s, int32_t param, size_t at, size_t j, size_t *end)
{
    const unsigned char *src = (const unsigned char *)p->src;
    pto__ps_qidx r, c;
    int32_t er, ec, o;
    if (!pto__ps_qindex(p, j + 1, ',', &r) || r.end + 2 >= p->len || src[r.end + 1] != ' ' ||
        !pto__ps_qindex(p, r.end + 2, ']', &c))
        return 0;
    *end = c.end + 1;
    if (*end >= p->len || (src[*end] != ',' && src[*end] != '\n')) return 0;
    er = pto__ps_qindex_node(p, &r);
    ec = pto__ps_qindex_node(p, &c);
    if (er < 0 || ec < 0) return -1;
    o = pto__ps_qarg(p, s, PTO_O_GM, param, at);
    if (o < 0) return -1;
    p->m->operands[o].e[0] = er;
    p->m->operands[o].e[1] = ec;
    p->m->operands[o].e[2] = -1;
    return 1;
}

/* One operand starting at byte i of op statement s, in a position of op
   table mask `mask`. Returns 1 when it was read and added (*end is the ','
   or newline after it), 0 when it is left to the token parser (nothing
   added), -1 when a node could not be added (out of memory). */
static int pto__ps_qoperand(pto__ps_parser *p, int32_t s, uint32_t mask, size_t i, size_t *end)
{
    const unsigned char *src = (const unsigned char *)p->src;
    const uint32_t other = PTO_A_SCALAR | PTO_A_INT | PTO_A_TILES | PTO_A_GM | PTO_A_CVPIPE;
    size_t n = p->len, j;
    int32_t o;
    /* positions that read a name or number otherwise (pto__ps_operand's first tests) */
    if ((mask & (PTO_A_PIPE | PTO_A_CMP | PTO_A_NMODE)) || ((mask & PTO_A_INT) && !(mask & (other & ~PTO_A_INT))))
        return 0;
    if (pto__ps_cc[src[i]] & PTO__CC_ALPHA) {
        const pto__ps_pname *nm;
        j = pto__ps_name_end(p, i);
        if (j >= n || !(nm = pto__ps_qname(p, i, j))) return 0;
        if (nm->kind == PTO__B_TENSOR && src[j] == '[') return pto__ps_qwindow(p, s, nm->ref, i, j, end);
        if (src[j] != ',' && src[j] != '\n') return 0;
        *end = j;
        if (nm->kind == PTO__B_TILE) return pto__ps_qarg(p, s, PTO_O_TILE, nm->ref, i) >= 0 ? 1 : -1;
        if (nm->kind == PTO__B_SCALAR && !(mask & PTO_A_INT))
            return pto__ps_qarg(p, s, PTO_O_SCALAR, nm->ref, i) >= 0 ? 1 : -1;
        return 0;
    }
    if ((pto__ps_cc[src[i]] & PTO__CC_DIGIT) && (mask & PTO_A_SCALAR)) {
        double v;
        for (j = i; j < n && ((pto__ps_cc[src[j]] & PTO__CC_DIGIT) || src[j] == '.'); j++) {}
        if (j >= n || (src[j] != ',' && src[j] != '\n') || !pto__ps_float_fast(p->src + i, j - i, &v)) return 0;
        *end = j;
        o = pto__ps_qarg(p, s, PTO_O_FLOAT, -1, i);
        if (o < 0) return -1;
        p->m->operands[o].f = v;
        return 1;
    }
    return 0;
}

/* The operands of op statement s read quickly from p->pos (just past the op
   name), as many as there are of the usual form. Returns how many, with
   p->pos where the token parser goes on: after the last ',' read, or at the
   newline when the quick read took the whole list (*all set); -1 after a
   node could not be added. */
static PTO__PS_NOINLINE int pto__ps_qoperands(pto__ps_parser *p, int32_t s, pto_op op, const pto_opinfo *info,
                                               int *all)
{
    const unsigned char *src = (const unsigned char *)p->src;
    size_t i = p->pos, end = 0;
    int k = 0, r;
    *all = 0;
    if (op == PTO_OP_ALLREDUCE) return 0;   /* its last operand may be a reduction word, reported */
    if (p->ctx->parse_tokens_only) return 0;
    while (p->len - i > 2 && src[i] == ' ') {
        r = pto__ps_qoperand(p, s, k < info->nargs && k < 4 ? info->arg[k] : 0, i + 1, &end);
        if (r == 0) break;
        if (r < 0) { p->pos = end; return -1; }
        k++;
        if (src[end] == '\n') { p->pos = end; *all = 1; break; }
        p->pos = i = end + 1;
    }
    return k;
}

/* 1 when the operands were read (the current token is what ends them), 2
   when the quick read took the whole line (p->pos at its newline, the token
   not made), 0 after an error. */
static PTO__PS_INLINE int pto__ps_operands(pto__ps_parser *p, int32_t s, pto_op op)
{
    const pto_opinfo *info = pto_opinfo_get(op);
    int all, i = pto__ps_qoperands(p, s, op, info, &all);
    if (all && i > 0) return 2;
    pto__ps_next(p);
    if (i < 0) return 0;
    if (all || (i == 0 && pto__ps_at_eol(p))) return 1;
    p->arg_op = (int32_t)op;
    for (;; i++) {
        uint32_t mask = i < info->nargs && i < 4 ? info->arg[i] : 0;
        p->arg_i = i;
        if (op == PTO_OP_ALLREDUCE && i == info->nargs && pto__ps_reduction_word(p)) return 0;
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
    if (p->ir_nest >= PTO__MAX_IR_NEST) {
        pto__ps_err(p, open, "blocks are nested too deeply (more than %d levels, counting each arm of an else-if "
                    "chain as one)", PTO__MAX_IR_NEST);
        pto__ps_skip_block(p);
        return;
    }
    p->nest++;
    p->ir_nest++;
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
    p->ir_nest--;
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
static PTO__PS_INLINE pto_dtype pto__ps_dtype_of(pto__ps_parser *p, const pto__ps_tok *t)
{
    pto__ps_pname *n = pto__ps_name_slot(p, t->id);
    if (!n) return pto_dtype_lookup(p->src + t->pos, t->len);
    if (n->dtc == 0) n->dtc = (uint8_t)(1 + (int)pto_dtype_lookup(p->src + t->pos, t->len));
    return (pto_dtype)(n->dtc - 1);
}

static PTO__PS_INLINE pto_space pto__ps_space_of(pto__ps_parser *p, const pto__ps_tok *t)
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
        /* reported; read on as f32, so the name it declares is known and
           its uses do not draw "unknown name" too */
        pto__ps_unknown_dtype(p, &p->tok);
        *dt = PTO_F32;
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

/* A tile statement as the printer writes it, `tile NAME: SPACE DTYPE[R, C]`
   with an optional ` xN`, read straight from the text as the operands are
   (pto__ps_qoperands): the whole line is checked before anything is added,
   and any other form, or a line the token parser would report anything
   about, is left to it (-1, nothing done but interning this line's names
   in text order). Else returns what pto__ps_tile_stmt would. */

/* The name at i, followed by the byte `after`: its NAME token in *t (as
   the lexer would make it), and *end past it. */
static PTO__PS_INLINE int pto__ps_qword(pto__ps_parser *p, size_t i, int after, pto__ps_tok *t, size_t *end)
{
    size_t j;
    if (i >= p->len || !(pto__ps_cc[(unsigned char)p->src[i]] & PTO__CC_ALPHA)) return 0;
    *end = j = pto__ps_name_end(p, i);
    t->kind = PTO__T_NAME;
    t->pos = i;
    t->len = j - i;
    t->line = p->line;
    t->col = (int32_t)(i - p->line_start + 1);
    t->id = pto__ps_name_id(p, i, j - i);
    return j < p->len && (unsigned char)p->src[j] == after;
}

/* A tile dimension at i (decimal, no leading 0, at most INT32_MAX) followed
   by the byte `after`; *end past it. */
static PTO__PS_INLINE int pto__ps_qdim(const pto__ps_parser *p, size_t i, int after, int64_t *v, size_t *end)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t j, n = p->len;
    int64_t x;
    if (i >= n || !(pto__ps_cc[s[i]] & PTO__CC_DIGIT)) return 0;
    x = s[i] - '0';
    for (j = i + 1; j < n && (pto__ps_cc[s[j]] & PTO__CC_DIGIT); j++) {
        if (j - i >= 10) return 0;   /* 11 digits or more */
        x = x * 10 + (s[j] - '0');
    }
    *v = x;
    *end = j;
    return x <= INT32_MAX && (s[i] != '0' || j - i == 1) && j < n && s[j] == after;
}

/* The rest of a tile line from byte i (after "NAME: "): SPACE DTYPE[R, C]
   [xN] and its newline, into *q; 0 when the line is left to the token
   parser (also for a word that is no space or dtype, which it reports).
   A tail of up to PTO__QT_MAX bytes is kept (pto__ps_qtile). */
static int pto__ps_qtile_tail(pto__ps_parser *p, size_t i, pto__ps_qtail *q)
{
    pto__ps_tok spt, dtt, xn;
    int64_t r, c, nbuf = -1;
    size_t j, k;
    if (!pto__ps_qword(p, i, ' ', &spt, &j) || !pto__ps_qword(p, j + 1, '[', &dtt, &j) ||
        !pto__ps_qdim(p, j + 1, ',', &r, &j) || pto__ps_at(p, j + 1) != ' ' || !pto__ps_qdim(p, j + 2, ']', &c, &j))
        return 0;
    k = ++j;   /* past the ']' */
    if (pto__ps_at(p, j) == ' ' && pto__ps_at(p, j + 1) == 'x' && pto__ps_is_digit(pto__ps_at(p, j + 2))) {
        size_t d;
        if (!pto__ps_qword(p, j + 1, '\n', &xn, &j) || xn.len > 10) return 0;
        for (nbuf = 0, d = 1; d < xn.len; d++) {
            if (!pto__ps_is_digit(p->src[xn.pos + d])) return 0;
            nbuf = nbuf * 10 + (p->src[xn.pos + d] - '0');
        }
    }
    if (pto__ps_at(p, j) != '\n') return 0;
    q->sp = (uint8_t)pto__ps_space_of(p, &spt);
    q->dt = (uint8_t)pto__ps_dtype_of(p, &dtt);
    if (q->sp == PTO_NSPACE || q->dt == PTO_DT_NONE) return 0;
    q->r = (int32_t)r;
    q->c = (int32_t)c;
    q->nbuf = (int32_t)nbuf;
    q->k = k - i;
    q->len = j + 1 - i;
    if (q->len <= PTO__QT_MAX) {
        memcpy(p->qt_text, p->src + i, q->len);
        p->qt = *q;
    }
    return 1;
}

static int pto__ps_qtile(pto__ps_parser *p, int32_t block, const pto__ps_tok *kw)
{
    pto__ps_tok name;
    pto__ps_pname *nm;
    pto__ps_qtail q;
    size_t i;
    int32_t t;
    if (p->ctx->parse_tokens_only) return -1;
    if (pto__ps_at(p, p->pos) != ' ' || !pto__ps_qword(p, p->pos + 1, ':', &name, &i) || pto__ps_at(p, i + 1) != ' ')
        return -1;
    i += 2;
    /* a tile line's tail is usually the one before's (tiles alike in a row):
       the same bytes read the same, without a word looked up again */
    if (p->qt.len && p->len - i >= p->qt.len && memcmp(p->src + i, p->qt_text, p->qt.len) == 0) q = p->qt;
    else if (!pto__ps_qtile_tail(p, i, &q)) return -1;
    /* what the token parser would report: a name that may not be declared */
    nm = pto__ps_name_slot(p, name.id);
    if (!nm || nm->kind != PTO__B_NONE || pto__ps_reserved(p, name.id)) return -1;
    t = pto__add_tile_id(p->m, block, name.id, (pto_space)q.sp, (pto_dtype)q.dt, q.r, q.c, *pto__ps_tloc(p, kw));
    if (t < 0) {   /* as the token parser fails: at the token after the ']' */
        p->pos = i + q.k;
        pto__ps_next(p);
        return 0;
    }
    p->m->tiles[t].loc = *pto__ps_tloc(p, &name);
    pto__ps_bind(p, &name, PTO__B_TILE, t);
    if (q.nbuf >= 0) p->m->tiles[t].nbuf = q.nbuf;
    p->pos = i + q.len - 1;   /* its newline */
    pto__ps_newline(p);
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
    if ((ok = pto__ps_qtile(p, block, &kw)) >= 0) return ok;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a tile name")) return 0;
    ok = pto__ps_can_declare(p, &name);
    if (!pto__ps_expect(p, ':', "':' after the tile name")) return pto__ps_dead(p, &name);
    if (!pto__ps_is(p, PTO__T_NAME)) { pto__ps_expected(p, "a memory space"); return pto__ps_dead(p, &name); }
    sp = pto__ps_space_of(p, &p->tok);
    if (sp == PTO_NSPACE) {   /* reported; read on as vec (see pto__ps_dtype) */
        pto__ps_unknown_space(p, &p->tok);
        sp = PTO_VEC;
    }
    pto__ps_next(p);
    if (!pto__ps_dtype(p, &dt)) return pto__ps_dead(p, &name);
    if (!pto__ps_expect(p, '[', "'[' before the tile shape")) return pto__ps_dead(p, &name);
    if (!pto__ps_tile_dim(p, &r)) return pto__ps_dead(p, &name);
    if (!pto__ps_expect(p, ',', "',' between the tile dimensions")) return pto__ps_dead(p, &name);
    if (!pto__ps_tile_dim(p, &c)) return pto__ps_dead(p, &name);
    if (!pto__ps_expect(p, ']', "']' after the tile shape")) return pto__ps_dead(p, &name);
    t = pto__add_tile_id(p->m, block, name.id, sp, dt, (int32_t)r, (int32_t)c, *pto__ps_tloc(p, &kw));
    if (t < 0) return pto__ps_dead(p, &name);
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
            /* a second suffix of one kind would silently override the first (which slot count,
               which valid region?): named as such rather than as an unexpected word */
            const char *dup = pto__ps_is_kw(p, PTO__KW_VALID) ? "valid(...)"
                              : a.kind == PTO__T_NAME && s[0] == 'x' && a.len > 1 && pto__ps_is_digit(s[1]) ? "xN"
                              : pto__ps_is_kw(p, PTO__KW_AT) ? "at ADDRESS" : NULL;
            if (dup) pto__ps_err(p, &a, "'%s' is given twice: a tile takes each suffix at most once", dup);
            else
                pto__ps_expected(p, seen_valid && seen_n && seen_at ? "end of line after the tile"
                                 : "'valid(...)', 'xN', 'at ADDRESS' or end of line after the tile");
            return 0;
        }
    }
    return pto__ps_end_stmt(p, "the tile");
}

/* `let NAME = EXPR` and `for NAME = A to B {` read quickly, as
   pto__ps_qtile reads a tile line: the name and quick expressions (no
   token made), single spaces, nothing else on the line. -1 when the line is
   left to the token parser (nothing done but interning this line's names in
   text order), else what the statement's parser returns. *j is set past
   "NAME = " and *name to the name. */
static PTO__PS_INLINE int pto__ps_qhead(pto__ps_parser *p, pto__ps_tok *name, size_t *j)
{
    const unsigned char *s = (const unsigned char *)p->src;
    const pto__ps_pname *nm;
    if (p->ctx->parse_tokens_only || pto__ps_at(p, p->pos) != ' ' || !pto__ps_qword(p, p->pos + 1, ' ', name, j) ||
        *j + 3 >= p->len || s[*j + 1] != '=' || s[*j + 2] != ' ')
        return 0;
    /* what the token parser would report: a name that may not be declared */
    nm = pto__ps_name_slot(p, name->id);
    if (!nm || nm->kind != PTO__B_NONE || pto__ps_reserved(p, name->id)) return 0;
    *j += 3;
    return 1;
}

static int pto__ps_qlet(pto__ps_parser *p, int32_t block, const pto__ps_tok *kw)
{
    pto__ps_qatom atoms[PTO__QX_MAX];
    pto__ps_tok name;
    size_t j;
    int na;
    int32_t e, st;
    if (!pto__ps_qhead(p, &name, &j) || !(na = pto__ps_qscan(p, j, atoms, &j)) || p->src[j] != '\n') return -1;
    e = pto__ps_qtree(p, atoms, na);
    st = e < 0 ? -1 : pto__add_let_id(p->m, block, name.id, e, *pto__ps_tloc(p, kw));
    p->pos = j;   /* its newline */
    if (st < 0) {   /* as the token parser fails: at the newline */
        pto__ps_next(p);
        return pto__ps_dead(p, &name);
    }
    p->m->vars[p->m->stmts[st].ref].loc = *pto__ps_tloc(p, &name);
    pto__ps_bind(p, &name, PTO__B_LET, p->m->stmts[st].ref);
    pto__ps_newline(p);
    return 1;
}

static int pto__ps_qfor(pto__ps_parser *p, int32_t block, const pto__ps_tok *kw)
{
    const unsigned char *s = (const unsigned char *)p->src;
    pto__ps_qatom xa[PTO__QX_MAX], xb[PTO__QX_MAX];
    pto__ps_tok name, open;
    size_t j, n = p->len;
    int na, nb;
    int32_t a, b = -1, st = -1;
    if (!pto__ps_qhead(p, &name, &j) || !(na = pto__ps_qscan(p, j, xa, &j)) || n - j < 5 ||
        memcmp(s + j, " to ", 4) != 0 || !(nb = pto__ps_qscan(p, j + 4, xb, &j)) || n - j < 3 || s[j] != ' ' ||
        s[j + 1] != '{' || s[j + 2] != '\n')
        return -1;
    open.kind = '{';
    open.pos = j + 1;
    open.len = 1;
    open.line = p->line;
    open.col = (int32_t)(j + 2 - p->line_start);
    open.id = 0;
    if ((a = pto__ps_qtree(p, xa, na)) >= 0 && (b = pto__ps_qtree(p, xb, nb)) >= 0)
        st = pto__add_for_id(p->m, block, name.id, a, b, -1, *pto__ps_tloc(p, kw));
    /* as the token parser fails: at the '{' (a bound) or past it */
    p->pos = a < 0 || b < 0 ? j + 1 : j + 2;
    pto__ps_next(p);
    if (st < 0) return pto__ps_dead(p, &name);
    p->m->vars[p->m->stmts[st].ref].loc = *pto__ps_tloc(p, &name);
    pto__ps_scope_open(p);
    pto__ps_bind(p, &name, PTO__B_LOOP, p->m->stmts[st].ref);
    pto__ps_block(p, p->m->stmts[st].body, &open);
    pto__ps_scope_close(p);
    return pto__ps_end_stmt(p, "'}'");
}

/* let NAME = EXPR */
static int pto__ps_let_stmt(pto__ps_parser *p, int32_t block)
{
    pto__ps_tok kw = p->tok, name;
    int32_t e, s;
    int ok;
    if ((ok = pto__ps_qlet(p, block, &kw)) >= 0) return ok;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a name after 'let'")) return 0;
    ok = pto__ps_can_declare(p, &name);
    if (!pto__ps_expect(p, '=', "'=' after the let name")) return pto__ps_dead(p, &name);
    if ((e = pto__ps_expr0(p)) < 0) return pto__ps_dead(p, &name);
    s = pto__add_let_id(p->m, block, name.id, e, *pto__ps_tloc(p, &kw));
    if (s < 0) return pto__ps_dead(p, &name);
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
    if ((ok = pto__ps_qfor(p, block, &kw)) >= 0) return ok;
    pto__ps_next(p);
    name = p->tok;
    if (!pto__ps_expect(p, PTO__T_NAME, "a loop variable after 'for'")) return 0;
    ok = pto__ps_can_declare(p, &name);
    if (!pto__ps_expect(p, '=', "'=' after the loop variable")) return pto__ps_dead(p, &name);
    {   /* A .. B (Rust's, Swift's range): one error with the form (review20 L8: it was "unexpected
           character '.'", or "bad number '0..8'") */
        size_t i = p->tok.pos, dd = 0, e;
        for (; i < p->len && p->src[i] != '\n' && p->src[i] != '#'; i++)
            if (!dd && i + 1 < p->len && p->src[i] == '.' && p->src[i + 1] == '.') dd = i;
        if (dd) {
            size_t a0 = p->tok.pos, a1 = dd, b0 = dd + 2;
            while (a1 > a0 && (p->src[a1 - 1] == ' ' || p->src[a1 - 1] == '\t')) a1--;
            while (b0 < i && (p->src[b0] == ' ' || p->src[b0] == '\t' || p->src[b0] == '.')) b0++;
            for (e = b0; e < i && p->src[e] != '{'; e++) {}
            while (e > b0 && (p->src[e - 1] == ' ' || p->src[e - 1] == '\t')) e--;
            pto_error(p->ctx, *pto__ps_qloc(p, dd), "'..' is no range here: write: for %.*s = %.*s to %.*s (the end "
                      "is excluded)", (int)name.len, p->src + name.pos, (int)(a1 - a0 < 60 ? a1 - a0 : 60), p->src + a0,
                      (int)(e - b0 < 60 ? e - b0 : 60), p->src + b0);
            return pto__ps_dead(p, &name);
        }
    }
    if ((a = pto__ps_expr0(p)) < 0) return pto__ps_dead(p, &name);
    if (!pto__ps_is_kw(p, PTO__KW_TO)) { pto__ps_expected(p, "'to' after the loop start"); return pto__ps_dead(p, &name); }
    pto__ps_next(p);
    if ((b = pto__ps_expr0(p)) < 0) return pto__ps_dead(p, &name);
    if (pto__ps_is_kw(p, PTO__KW_STEP)) {
        pto__ps_next(p);
        if ((st = pto__ps_expr0(p)) < 0) return pto__ps_dead(p, &name);
    }
    if (!pto__ps_open(p, "'{' after the loop header", &open)) return pto__ps_dead(p, &name);
    s = pto__add_for_id(p->m, block, name.id, a, b, st, *pto__ps_tloc(p, &kw));
    if (s < 0) return pto__ps_dead(p, &name);
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

/* Skips the rest of an else-if chain from its `if` token (already
   reported): each arm's header up to its '{' and its block, then the next
   `else if` / `else { }`. One error, not one per arm. */
static void pto__ps_skip_chain(pto__ps_parser *p)
{
    for (;;) {
        while (!pto__ps_is(p, PTO__T_EOF) && !pto__ps_is(p, PTO__T_NL) && !pto__ps_is(p, '{')) pto__ps_next(p);
        if (!pto__ps_is(p, '{')) return;
        pto__ps_next(p);
        pto__ps_skip_block(p);
        if (!pto__ps_is_kw(p, PTO__KW_ELSE)) return;
        pto__ps_next(p);
        if (!pto__ps_is_kw(p, PTO__KW_IF)) {
            if (pto__ps_is(p, '{')) { pto__ps_next(p); pto__ps_skip_block(p); }
            return;
        }
    }
}

/* if EXPR CMP EXPR { ... } [else { ... } | else if ...]. An `else if`
   nests an if in the else block of the IR, but to the user the chain is
   flat: its arms are parsed in a loop, each arm's body one level below the
   chain, so a chain counts as one nesting level (review21 L6: a 65-arm
   dispatch was "nested too deeply", with one more error per arm). The
   else block holds only the next if, which declares nothing: no scope of
   its own. */
static int pto__ps_if_stmt(pto__ps_parser *p, int32_t block)
{
    int arms = 1, ir_nest = p->ir_nest, ok = 0;
    for (;;) {
        pto__ps_tok kw = p->tok, open;
        int32_t a, b, s, eb;
        pto_cmp c;
        pto__ps_next(p);
        if ((a = pto__ps_expr0(p)) < 0) break;
        if (!pto__ps_cmp(p, &c)) break;
        if ((b = pto__ps_expr0(p)) < 0) break;
        if (!pto__ps_open(p, "'{' after the condition", &open)) break;
        s = pto_add_if(p->m, block, a, c, b, *pto__ps_tloc(p, &kw));
        if (s < 0) break;
        pto__ps_sub_block(p, p->m->stmts[s].body, &open);
        if (!pto__ps_is_kw(p, PTO__KW_ELSE)) { ok = pto__ps_end_stmt(p, "'}'"); break; }
        pto__ps_next(p);
        eb = pto_if_else(p->m, s);
        if (eb < 0) break;
        if (pto__ps_is_kw(p, PTO__KW_IF)) {   /* else if: the next arm, an if in the else block */
            if (arms >= PTO__MAX_ARMS || p->ir_nest + 1 >= PTO__MAX_IR_NEST) {   /* (its body would pass it) */
                if (arms >= PTO__MAX_ARMS)
                    pto__ps_err(p, &p->tok, "an else-if chain of more than %d arms nests too deeply (each 'else if' "
                                "is an if in the else block of the arm before it): split it, e.g. by ranges of the value tested",
                                PTO__MAX_ARMS);
                else
                    pto__ps_err(p, &p->tok, "this else-if arm nests too deeply: blocks and else-if arms nest at "
                                "most %d levels in all (each 'else if' is an if in the else block of the arm "
                                "before it)", PTO__MAX_IR_NEST);
                pto__ps_skip_chain(p);
                ok = pto__ps_end_stmt(p, "'}'");
                break;
            }
            arms++;
            p->ir_nest++;
            block = eb;
            continue;
        }
        if (!pto__ps_open(p, "'{' or 'if' after 'else'", &open)) break;
        pto__ps_sub_block(p, eb, &open);
        ok = pto__ps_end_stmt(p, "'}'");
        break;
    }
    p->ir_nest = ir_nest;
    return ok;
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
    if (!pto__ps_open(p, "'{' after the section name", &open)) return 0;
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
            /* slots vs local_slots: a repeated count would silently replace the first */
            const char *dup = pto__ps_word(p, "slots") ? "slots(N)" : pto__ps_word(p, "local_slots") ? "local_slots(N)"
                              : pto__ps_word(p, "split") ? "split(...)" : NULL;
            if (dup) pto__ps_err(p, &p->tok, "'%s' is given twice: a pipe takes each of slots, local_slots and split "
                                 "at most once", dup);
            else pto__ps_expected(p, "'slots(N)', 'local_slots(N)', 'split(...)' or end of line after the pipe");
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
    if (p->m->kernels[p->kernel].kind != PTO_KK_MIX) {   /* review17: the rule read like the fault */
        pto__ps_err(p, &kw, "'%s' is a %s kernel: cube/vector pipes belong to mix kernels (`kernel %s(...) mix`, "
                    "the pipe at its top, then its cube { } and vector { } sections)",
                    pto_str(p->ctx, p->m->kernels[p->kernel].name),
                    p->m->kernels[p->kernel].kind == PTO_KK_CUBE ? "cube" : "vector",
                    pto_str(p->ctx, p->m->kernels[p->kernel].name));
        pto__ps_next(p);
        return pto__ps_is(p, PTO__T_NAME) ? pto__ps_dead(p, &p->tok) : 0;   /* its uses: no second error */
    }
    if (block != p->m->kernels[p->kernel].body) {
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
    /* still declared: its uses resolve; worded and placed as the verifier's bounds are (review17) */
    if (attrs_ok && seen_s && slots == 0)
        pto__ps_err(p, &name, "pipe '%s': slots(0) must be > 0", pto__ps_text(p, &name));
    else if (attrs_ok && seen_l && local == 0)
        pto__ps_err(p, &name, "pipe '%s': local_slots(0) must be > 0, <= slots(%d) and <= %d for a %s pipe",
                    pto__ps_text(p, &name), (int)(seen_s ? slots : dir == PTO_BOTH ? 4 : 8), dir == PTO_BOTH ? 4 : 8,
                    dir == PTO_BOTH ? "both" : dir == PTO_C2V ? "c2v" : "v2c");
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
    /* a written tile would print as `tfree q` and no longer mean the same
       (the fuzzer's round trip found it): the text has the pipe only */
    if (st->nargs > 1 && m->operands[st->arg0].kind == PTO_O_CVPIPE) {
        pto_error(p->ctx, m->operands[st->arg0 + 1].loc,
                  "tfree takes the pipe only ('tfree %s'): the slot it frees is the one its tpop filled",
                  pto_str(p->ctx, m->cvpipes[m->operands[st->arg0].ref].name));
        return 0;
    }
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
            {"ttranspose", " (pto calls it 'ttrans')"}, {"transpose", " (pto calls it 'ttrans')"},
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
    const pto__ps_tok *t = &p->tok;   /* (read only before the first token after it is made) */
    int32_t id = t->id, s;
    pto_op op;
    int r;
    if (t->kind != PTO__T_NAME) { pto__ps_expected(p, "a statement"); return 0; }
    if (id <= p->kw_max) {   /* a name interned after every keyword is none: an op, or no statement word */
        if (id == p->kw[PTO__KW_TILE]) return pto__ps_tile_stmt(p, block);
        if (id == p->kw[PTO__KW_LET]) return pto__ps_let_stmt(p, block);
        if (id == p->kw[PTO__KW_FOR]) return pto__ps_for_stmt(p, block);
        if (id == p->kw[PTO__KW_IF]) return pto__ps_if_stmt(p, block);
        if (id == p->kw[PTO__KW_CUBE] || id == p->kw[PTO__KW_VECTOR]) return pto__ps_section_stmt(p, block);
        if (id == p->kw[PTO__KW_PIPE]) return pto__ps_pipe_stmt(p, block);
        if (id == p->kw[PTO__KW_ELSE]) {
            pto__ps_err(p, t, "'else' must follow '}' on the same line");
            return 0;
        }
    }
    op = pto__ps_op_of(p, t);
    if (op == PTO_NOP) {
        pto__ps_unknown_op(p, t);
        return 0;
    }
    s = pto__add_op_id(p->m, block, op, *pto__ps_tloc(p, t));
    if (s < 0) { pto__ps_next(p); return 0; }
    if (!(r = pto__ps_operands(p, s, op))) return 0;
    if (r == 2 && op != PTO_OP_TFREE) { pto__ps_newline(p); return 1; }
    if (r == 2) pto__ps_next(p);
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
        if (n->kind != PTO__B_DIM && !pto__ps_dim_end(p)) {
            /* `f32[B * 16, 16]`: B is not declared by it (a later `scalar B`
               is no "already declared"), and its uses say nothing more */
            if (n->kind == PTO__B_NONE) pto__ps_dead(p, &t);
            return 0;
        }
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
    if (!pto__ps_expect(p, ':', "':' after the parameter name")) return pto__ps_dead(p, name);
    return pto__ps_dtype(p, dt) || pto__ps_dead(p, name);
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
    if (pto__ps_is(p, PTO__T_NL)) {
        /* a header wrapped after ')' (review22 L2): the contract has only the
           parameters span lines. One error with the rule; a kind that starts
           the next line is then read as if in place (no cascade). */
        pto__ps_tok nx = pto__ps_peek(p);
        pto__ps_err(p, &p->tok, "expected a kernel kind ('vector', 'cube' or 'mix'), got end of line (the kind must "
                    "follow ')' on the same line: `...) vector {`)");
        if (nx.kind != PTO__T_NAME
            || (nx.id != p->kw[PTO__KW_VECTOR] && nx.id != p->kw[PTO__KW_CUBE] && nx.id != p->kw[PTO__KW_MIX]))
            return 0;
        pto__ps_next(p);
    }
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
    if (p->arch_line) {
        pto__ps_err(p, &kw, "'arch' is given twice (first at %ld:%ld): a file has one arch", (long)p->arch_line,
                    (long)p->arch_col);
        pto__ps_skip_to_top(p);
        return;
    }
    p->arch_line = kw.line;
    p->arch_col = kw.col;
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

/* Notes top-level item [from, to) for pto__ps_salvage (kind: a keyword, -2
   a host, -1 anything else): one with an error (errs) or a host is left out
   of the second parse; an arch line with an error stops it (every kernel's
   rules depend on the arch). */
static void pto__ps_cut(pto__ps_parser *p, size_t from, size_t to)
{
    int32_t i = pto__grow(p->ctx, (void **)&p->cut, &p->n_cut, &p->cap_cut, 2 * sizeof(size_t));
    if (i < 0) {
        p->no_salvage = 1;
        return;
    }
    p->cut[2 * i] = from;
    p->cut[2 * i + 1] = to;
}

static void pto__ps_item(pto__ps_parser *p, size_t from, size_t to, int kind, int errs)
{
    size_t kfrom = p->last_from, kto = p->last_to;
    p->last_to = 0;
    if (kind == PTO__KW_ARCH) {
        if (errs) p->no_salvage = 1;
        return;
    }
    if (kind == PTO__KW_KERNEL && !errs) {
        p->clean_kernels++;
        p->last_from = from;
        p->last_to = to;
        return;
    }
    /* statements outside any kernel right after one: a '}' closed it early,
       so what it would have verified as is not the kernel meant */
    if (kind == -1 && kto) {
        p->clean_kernels--;
        pto__ps_cut(p, kfrom, kto);
    }
    pto__ps_cut(p, from, to);
}

static void pto__ps_file(pto__ps_parser *p)
{
    pto__ps_next(p);
    for (;;) {
        size_t from;
        int e0 = pto_error_count(p->ctx), kind = -1;
        pto__ps_skip_nl(p);
        if (pto__ps_is(p, PTO__T_EOF)) return;
        from = p->tok.pos;
        if (pto__ps_is_kw(p, PTO__KW_KERNEL)) pto__ps_kernel(p), kind = PTO__KW_KERNEL;
        else if (pto__ps_is_kw(p, PTO__KW_ARCH)) pto__ps_arch(p), kind = PTO__KW_ARCH;
        else if (pto__hs_word(p, "host")) pto__hs_host(p), kind = -2;
        else {
            pto__ps_top_unknown(p);
            pto__ps_skip_to_top(p);
        }
        pto__ps_skip_nl(p);
        pto__ps_item(p, from, pto__ps_is(p, PTO__T_EOF) ? p->len : p->tok.pos, kind, pto_error_count(p->ctx) > e0);
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

static pto_module *pto__parse(pto_ctx *ctx, const char *filename, const char *text, size_t len, int salvage);

/* A file with parse errors: its kernels that parsed with none are verified
   all the same, so that one check shows every independent error (review28
   L2: a read before any write in one kernel went unsaid next to another
   kernel's parse error). The text is parsed again with the items that had
   errors, and the hosts (whose calls may name those kernels), blanked out
   byte for byte (newlines kept: every line and column stays), and that
   module is verified; a half-parsed kernel is never verified. Should the
   second parse report anything (it should not), its diagnostics are
   dropped: this only ever adds findings. */
static void pto__ps_salvage(pto__ps_parser *p, const char *filename)
{
    pto_ctx *ctx = p->ctx;
    pto__dmark mk = pto__diag_mark(ctx);
    int32_t i;
    char *copy;
    pto_module *m;
    size_t j;
    if (p->no_salvage || p->clean_kernels == 0 || p->n_cut == 0) return;
    if (!(copy = (char *)pto__alloc_quiet(ctx, p->len + 1))) return;
    memcpy(copy, p->src, p->len);
    for (i = 0; i < p->n_cut; i++)
        for (j = p->cut[2 * i]; j < p->cut[2 * i + 1] && j < p->len; j++)
            if (copy[j] != '\n' && copy[j] != '\r') copy[j] = ' ';
    m = pto__parse(ctx, filename, copy, p->len, 0);
    /* what the second parse says, the first said already (a float that
       rounds to inf, in a kernel that parsed clean): only verify adds */
    pto__diag_truncate(ctx, &mk);
    if (m) pto_verify(ctx, m);
    pto_module_destroy(m);
    pto_free(ctx, copy);
}

PTODEF pto_module *pto_parse(pto_ctx *ctx, const char *filename, const char *text, size_t len)
{
    return pto__parse(ctx, filename, text, len, 1);
}

static pto_module *pto__parse(pto_ctx *ctx, const char *filename, const char *text, size_t len, int salvage)
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
    /* a UTF-8 byte-order mark (what Windows editors write): skipped, and
       the first line's columns count from after it */
    if (p.len >= 3 && memcmp(p.src, "\xEF\xBB\xBF", 3) == 0) p.pos = p.line_start = 3;
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
    for (p.name_stop = p.len; p.name_stop > 0 && pto__ps_is_alnum((unsigned char)p.src[p.name_stop - 1]); p.name_stop--) {}
    if (p.name_stop > 0) p.name_stop--;
    pto__ps_reserve_names(&p);
    /* best effort: without the cache every name is hashed and looked up */
    p.nc = (pto__ps_ncent *)pto__alloc_quiet(ctx, sizeof *p.nc << PTO__NC_BITS);
    if (p.nc) memset(p.nc, 0, sizeof *p.nc << PTO__NC_BITS);
    p.nc_end = p.nc && p.len >= 16 ? p.len - 15 : 0;
    {
        static const union { uint16_t u; unsigned char c[2]; } order = {1};
        p.first = order.c[0] ? pto__ps_first_le : pto__ps_first_be;
    }
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
        if (salvage) pto__ps_salvage(&p, filename);
        pto_free(ctx, p.cut);
        return NULL;
    }
    pto_free(ctx, p.cut);
    return p.m;
}
