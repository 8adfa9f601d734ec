/* test_emit_text.c - the emitter's fast text paths against plain versions
   written here from their specs (emit.c's comments), on inputs the corpus
   rarely has:
   - pto__emit_i64 against printf's %lld: every value below 200000, the
     powers of ten and their neighbours, INT64_MIN and INT64_MAX, and a
     million pseudo-random values of every magnitude;
   - the .pto source in host.c (SSE2 or word-at-a-time scan): texts of every
     byte value, lines of every length around the 16-byte steps and the
     1000-byte split, with and without a final newline, against a byte-at-
     a-time escaper;
   - pto__emit_unplain16 / pto__emit_note_copy against byte loops;
   - notes of every length from 1 to 70 with a newline, a '*', a "* /" (no
     space) or a byte above 0x7f at every position: the comment line is the
     note with newlines as spaces and "*" "/" split;
   - K_TILE lines bound per shape (300 shapes, at two depths, more than the
     table holds and more than its plan limit): every line as written out;
   - the uses sweep: a name read only under min's second operand, under a
     negation or through an expression node made after its parent (a module
     built by hand) gets no (void); an unread one does;
   - constant folding's value table (pto__emit_cval): 400 lets with
     constants of literals (not kept) and of constants (kept: the table
     grows and rehashes four times), each printed with its value, and a
     constant shared as both operands 50 deep (2^50: a value not kept would
     be worked out 2^50 times);
   - the tdecl table (pto__emit_td): 300 tiles declared first and loaded
     later in a scattered order, so that all 300 placements are pending at
     once (the table grows four times) and are taken out in an order unlike
     the one they went in: every tdecl right before its tile's load;
   - the two tables themselves against a plain map, on keys that collide
     (multiples of 64): 200,000 random adds and takes on the tdecl table
     (entries moved back over a freed one, around the end), 3,000 values
     in the constant table, every one found again;
   - a note shared by statements of two kernels: in full once per kernel,
     a later statement of the same kernel refers to the first;
   - event ids written in place (pto__emit_varop: "[BASE + ]NAME op VAL"):
     600 random id expressions, half of the shapes the fast path takes
     (with identities around them, bases and divisors at the edges), half
     any tree, each on a set_flag and a wait_flag: as the printer writes
     the same expression in a let. */

#define PTO_IMPLEMENTATION
#include "pto.h"
#include "tests/check.h"

#include <stdlib.h>

#define L(m, line) ((pto_loc){(m)->file, (line), 3})

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int i64_same(int64_t v)
{
    char want[32], got[48];
    size_t n;
    memset(got, 'x', sizeof got);
    snprintf(want, sizeof want, "%lld", (long long)v);
    n = pto__emit_i64(got, v);
    return n == strlen(want) && memcmp(got, want, n + 1) == 0;
}

static void test_i64(void)
{
    int64_t v, p;
    int i, bad = 0;
    for (v = -1000; v < 200000; v++) bad += !i64_same(v);
    for (p = 1, i = 0; i < 19; i++) {   /* 10^0 .. 10^18 (10^19 would overflow) */
        bad += !i64_same(p) + !i64_same(p - 1) + !i64_same(p + 1);
        bad += !i64_same(-p) + !i64_same(-p + 1) + !i64_same(-p - 1);
        if (i < 18) p *= 10;
    }
    bad += !i64_same(INT64_MIN) + !i64_same(INT64_MAX) + !i64_same(INT64_MIN + 1) + !i64_same(99999999) +
           !i64_same(100000000) + !i64_same(4294967295LL) + !i64_same(4294967296LL);
    for (i = 0; i < 1000000; i++) {
        uint64_t r = next();
        bad += !i64_same((int64_t)(r >> (r & 63)));
    }
    CHECK_MSG(bad == 0, "%d numbers printed unlike %%lld", bad);
}

/* ---- the source in host.c ---- */

static const char *const hopen = "    \"", *const hclose = "\",\n";

static void esc_ref(pto_buf *b, unsigned char c)
{
    char e[8];
    if (c == '\t') pto_buf_puts(b, "\\t");
    else if (c == '"' || c == '\\' || c == '?') { e[0] = '\\'; e[1] = (char)c; pto_buf_putn(b, e, 2); }
    else if (c >= 0x20 && c < 0x7f) pto_buf_putn(b, (const char *)&c, 1);
    else { snprintf(e, sizeof e, "\\%03o", c); pto_buf_puts(b, e); }
}

/* host.c's string table of text, byte by byte: a string per line, a line
   longer than 1000 bytes goes on in the next one. */
static void source_ref(pto_buf *b, const char *text, size_t len)
{
    size_t i, col = 0;
    int open = 0;
    pto_buf_puts(b, "static const char *const pto_h_source[] = {\n");
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (!open) { pto_buf_puts(b, hopen); open = 1; }
        if (c == '\n') {
            pto_buf_puts(b, "\\n");
            pto_buf_puts(b, hclose);
            open = 0;
            col = 0;
            continue;
        }
        if (col == 1000) { pto_buf_puts(b, hclose); pto_buf_puts(b, hopen); col = 0; }
        esc_ref(b, c);
        col++;
    }
    if (open) pto_buf_puts(b, hclose);
    pto_buf_puts(b, "    NULL\n};\n");
}

/* host.c's table for source text (the kernel is any valid one). */
static void source_check(pto_ctx *ctx, pto_module *m, const char *text, size_t len, const char *what)
{
    pto_emit_desc ed;
    pto_buf h, want;
    const char *a, *z;
    memset(&ed, 0, sizeof ed);
    memset(&h, 0, sizeof h);
    memset(&want, 0, sizeof want);
    h.ctx = want.ctx = ctx;
    ed.source = text;
    ed.source_len = len;
    source_ref(&want, text, len);
    CHECK(pto_emit(ctx, m, &ed, NULL, &h) == PTO_OK);
    a = h.data ? strstr(h.data, "static const char *const pto_h_source[] = {\n") : NULL;
    z = a ? strstr(a, "    NULL\n};\n") : NULL;
    CHECK_MSG(a && z && (size_t)(z + 12 - a) == want.len && memcmp(a, want.data, want.len) == 0,
              "source table of %s", what);
    pto_buf_free(&h);
    pto_buf_free(&want);
}

static void test_source(void)
{
    const char *k = "kernel k(in a: f32[16, 64], out y: f32[16, 64]) vector {\n"
                    "  tile t: vec f32[16, 64]\n  tload t, a[0, 0]\n  tstore y[0, 0], t\n}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "t.pto", k, strlen(k));
    char *text = (char *)malloc(8192);
    size_t n, i, j;
    char what[64];
    CHECK(m && pto_compile(ctx, m, NULL) == PTO_OK);
    if (!m || !text) { free(text); pto_module_destroy(m); pto_ctx_destroy(ctx); return; }
    for (i = 0; i < 256; i++) text[i] = (char)i;   /* every byte, in and out of 16-byte steps */
    for (j = 0; j < 3; j++) {
        source_check(ctx, m, text + j, 256 - j, "every byte");
        source_check(ctx, m, text + 32 + j, 200, "every byte, from a space");
    }
    for (n = 1; n < 80; n++) {   /* a plain line of each length, then a byte to escape at each place */
        for (i = 0; i < n; i++) text[i] = (char)('a' + i % 26);
        text[n] = '\n';
        snprintf(what, sizeof what, "a line of %d", (int)n);
        source_check(ctx, m, text, n + 1, what);
        source_check(ctx, m, text, n, what);
        for (j = 0; j < n; j += 5) {
            static const char odd[] = "\"?\\\t\x7f\x80\xff\x01\n";
            text[j] = odd[j % (sizeof odd - 1)];
            source_check(ctx, m, text, n + 1, what);
            text[j] = 'q';
        }
    }
    for (n = 990; n < 1040; n++) {   /* around the split, plain and with a quote near it */
        for (i = 0; i < 3000; i++) text[i] = (char)('a' + i % 26);
        source_check(ctx, m, text, n, "a long line");
        text[n - 3] = '"';
        text[n + 900] = '\n';
        source_check(ctx, m, text, 3000, "long lines");
    }
    for (n = 0; n < 40; n++) {   /* random text with few special bytes */
        for (i = 0; i < 5000; i++) {
            uint64_t r = next();
            text[i] = (char)(r % 29 == 0 ? '\n' : r % 97 == 0 ? (char)(r >> 8) : (char)(' ' + (r >> 16) % 95));
        }
        source_check(ctx, m, text, 5000 - n, "random text");
    }
    free(text);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* ---- the scans themselves ---- */

static void test_scans(void)
{
    char s[64], d[64];
    int i, t, bad = 0;
    for (t = 0; t < 20000; t++) {
        size_t n = 8 + next() % 40;
        int want = 0;
        for (i = 0; i < (int)n; i++) {
            uint64_t r = next();
            s[i] = (char)(r % 11 == 0 ? (char)(r >> 8) : (char)(' ' + (r >> 16) % 95));
            want |= s[i] == '\n' || s[i] == '*' || (unsigned char)s[i] >= 0x80;
        }
        memset(d, 0, sizeof d);
        i = pto__emit_note_copy(d, s, n);
        bad += memcmp(d, s, n) != 0;   /* copied either way */
        if (i) {
            bad += !want;   /* flagged: a newline, a '*' (or, word at a time, a byte above 0x7f) */
        } else {
            int j;   /* clean: none of the bytes the comment cannot take */
            for (j = 0; j < (int)n; j++) bad += s[j] == '\n' || s[j] == '*';
        }
#if PTO__EMIT_SSE2
        {
            unsigned hit = pto__emit_unplain16(s, d), ref = 0;
            for (i = 0; i < 16; i++) ref |= (unsigned)!pto__emit_plain[(unsigned char)s[i]] << i;
            bad += hit != ref || memcmp(d, s, 16) != 0;
        }
#endif
    }
    CHECK_MSG(bad == 0, "%d scans differ", bad);
}

/* ---- notes ---- */

static void test_notes(void)
{
    const char *k = "kernel k(in a: f32[16, 64], out y: f32[16, 64]) vector {\n"
                    "  tile t: vec f32[16, 64]\n  tile u: vec f32[16, 64]\n  tload t, a[0, 0]\n"
                    "  tadds u, t, 1.0\n  tstore y[0, 0], u\n}\n";
    static const char *const odd[] = {"\n", "*", "*/", "\xc3\xa9", "/"};
    int n, pos, kind, bad = 0, tried = 0;
    for (n = 1; n <= 70; n++)
        for (kind = 0; kind < 5; kind++)
            for (pos = 0; pos < n; pos += n > 20 ? 7 : 1) {
                pto_ctx *ctx = pto_ctx_create(NULL);
                pto_module *m = pto_parse(ctx, "t.pto", k, strlen(k));
                char note[128], want[256];
                pto_buf kb;
                int32_t s, i, w;
                memset(&kb, 0, sizeof kb);
                kb.ctx = ctx;
                for (i = 0; i < n; i++) note[i] = (char)('a' + (i * 7 + n) % 26);
                note[n] = 0;
                memcpy(note + pos, odd[kind], strlen(odd[kind]));
                note[n + (pos + (int)strlen(odd[kind]) > n ? pos + (int)strlen(odd[kind]) - n : 0)] = 0;
                if (!m || pto_compile(ctx, m, NULL) != PTO_OK) { bad++; pto_module_destroy(m); pto_ctx_destroy(ctx); continue; }
                for (s = 0; s < m->n_stmts; s++)   /* the first flag gets the note */
                    if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op == PTO_OP_SET_FLAG) break;
                if (s == m->n_stmts) { bad++; pto_module_destroy(m); pto_ctx_destroy(ctx); continue; }
                m->stmts[s].note = pto_intern(ctx, note, strlen(note));
                strcpy(want, "/* sync: ");
                for (i = 0, w = (int)strlen(want); note[i]; i++) {
                    if (note[i] == '\n') want[w++] = ' ';
                    else if (note[i] == '*' && note[i + 1] == '/') { want[w++] = '*'; want[w++] = ' '; }
                    else want[w++] = note[i];
                }
                strcpy(want + w, " */\n");
                tried++;
                if (pto_emit(ctx, m, NULL, &kb, NULL) != PTO_OK || !kb.data || !strstr(kb.data, want)) {
                    if (bad < 3) printf("note %d/%d/%d: want %s", n, kind, pos, want);
                    bad++;
                }
                pto_buf_free(&kb);
                pto_module_destroy(m);
                pto_ctx_destroy(ctx);
            }
    CHECK_MSG(bad == 0 && tried > 1000, "%d of %d notes", bad, tried);
}

/* ---- tile lines by shape ---- */

static pto_module *verified(pto_ctx *ctx, pto_module *m)
{
    if (pto_verify(ctx, m) != PTO_OK) {
        pto_diag_print(ctx, stdout);
        CHECK(0);
    }
    return m;
}

static void test_tile_shapes(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    pto_loc l0 = {0, 0, 0};
    int32_t k, f, i, t[660];
    pto_buf kb;
    char name[16], want[160];
    int bad = 0;
    memset(&kb, 0, sizeof kb);
    kb.ctx = ctx;
    m->file = pto_file_add(ctx, "s.pto");
    k = pto_add_kernel(m, "s", PTO_KK_VECTOR, L(m, 1));
    f = pto_add_for(m, m->kernels[k].body, "i", pto_expr_int(m, 0, l0), pto_expr_int(m, 2, l0), -1, L(m, 2));
    for (i = 0; i < 660; i++) {   /* 300 shapes at depth 1, the same at depth 2, then 60 again at depth 1 */
        int j = i < 600 ? i % 300 : (i * 37) % 300;
        int32_t blk = i >= 300 && i < 600 ? m->stmts[f].body : m->kernels[k].body;
        snprintf(name, sizeof name, "t%d", i);
        t[i] = pto_add_tile(m, blk, name, PTO_VEC, j % 3 == 0 ? PTO_F16 : j % 3 == 1 ? PTO_F32 : PTO_I32, 1 + j % 16,
                            16 * (1 + j / 16), L(m, 3 + i));
        m->tiles[t[i]].planned = 1;
        m->tiles[t[i]].offset[0] = 64 * i;
    }
    CHECK(pto_emit(ctx, verified(ctx, m), NULL, &kb, NULL) == PTO_OK);
    for (i = 0; i < 660 && kb.data; i++) {
        int j = i < 600 ? i % 300 : (i * 37) % 300, r = 1 + j % 16, c = 16 * (1 + j / 16);
        snprintf(want, sizeof want, "\n%s    const pto_k_tile t%d = pto_k_t(%s, %s, %d, %d, %d, %d, %d);\n%s    (void)t%d;\n",
                 i >= 300 && i < 600 ? "    " : "", i, "PTO_K_VEC", j % 3 == 0 ? "PTO_K_F16" : j % 3 == 1 ? "PTO_K_F32" : "PTO_K_I32",
                 r, c, r, c, 64 * i, i >= 300 && i < 600 ? "    " : "", i);
        if (!strstr(kb.data, want)) {
            if (bad < 3) printf("missing: %s", want + 1);
            bad++;
        }
    }
    CHECK_MSG(kb.data && bad == 0, "%d tile lines", bad);
    pto_buf_free(&kb);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* ---- uses ---- */

static void test_uses(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    pto_loc l0 = {0, 0, 0};
    int32_t k, x, body, a, b, c, d, e, late, par, s, t;
    pto_buf kb;
    memset(&kb, 0, sizeof kb);
    kb.ctx = ctx;
    m->file = pto_file_add(ctx, "u.pto");
    k = pto_add_kernel(m, "u", PTO_KK_VECTOR, L(m, 1));
    x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 64, 64, L(m, 1));
    body = m->kernels[k].body;
    /* the statement first: pto_add_let may move m->stmts (m->stmts[pto_add_let(...)] read a stale array) */
    s = pto_add_let(m, body, "a", pto_expr_builtin(m, PTO_E_BLOCK, l0), L(m, 2));
    a = m->stmts[s].ref;
    s = pto_add_let(m, body, "b", pto_expr_builtin(m, PTO_E_BLOCK, l0), L(m, 3));
    b = m->stmts[s].ref;
    s = pto_add_let(m, body, "c", pto_expr_builtin(m, PTO_E_BLOCK, l0), L(m, 4));
    c = m->stmts[s].ref;
    s = pto_add_let(m, body, "d", pto_expr_builtin(m, PTO_E_BLOCK, l0), L(m, 5));
    d = m->stmts[s].ref;
    s = pto_add_let(m, body, "e", pto_expr_builtin(m, PTO_E_BLOCK, l0), L(m, 6));
    e = m->stmts[s].ref;
    t = pto_add_tile(m, body, "t", PTO_VEC, PTO_F32, 16, 64, L(m, 7));
    m->tiles[t].planned = 1;
    s = pto_add_op(m, body, PTO_OP_TLOAD, L(m, 8));
    pto_arg_tile(m, s, t, L(m, 8));
    /* row: min(1, b) + -(c); col: a * 0 + (made after it) ... */
    par = pto_expr_bin(m, PTO_E_ADD, pto_expr_int(m, 0, l0), pto_expr_int(m, 0, l0), l0);
    pto_arg_gm(m, s, x,
               pto_expr_bin(m, PTO_E_ADD, pto_expr_bin(m, PTO_E_MIN, pto_expr_int(m, 1, l0), pto_expr_var(m, b, l0), l0),
                            pto_expr_bin(m, PTO_E_NEG, pto_expr_var(m, c, l0), -1, l0), l0),
               par, -1, L(m, 8));
    late = pto_expr_var(m, d, l0);   /* made after the node that reads it */
    m->exprs[par].b = late;
    (void)a;
    (void)e;
    CHECK(pto_emit(ctx, verified(ctx, m), NULL, &kb, NULL) == PTO_OK);
    CHECK(kb.data && strstr(kb.data, "const int64_t a = pto_k_block_idx(core);\n    (void)a;\n"));
    CHECK(kb.data && strstr(kb.data, "const int64_t b = pto_k_block_idx(core);\n    const int64_t c"));
    CHECK(kb.data && strstr(kb.data, "const int64_t c = pto_k_block_idx(core);\n    const int64_t d"));
    CHECK(kb.data && strstr(kb.data, "const int64_t d = pto_k_block_idx(core);\n    const int64_t e"));
    CHECK(kb.data && strstr(kb.data, "const int64_t e = pto_k_block_idx(core);\n    (void)e;\n"));
    CHECK(kb.data && strstr(kb.data, "pto_emit_min(1, b) + -c, d)"));
    pto_buf_free(&kb);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* ---- constants ---- */

static void test_consts(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    pto_loc l0 = {0, 0, 0};
    int32_t k, body, i, x, big, stamp;
    pto_buf kb;
    char name[16], want[160];
    int bad = 0;
    memset(&kb, 0, sizeof kb);
    kb.ctx = ctx;
    m->file = pto_file_add(ctx, "c.pto");
    k = pto_add_kernel(m, "c", PTO_KK_VECTOR, L(m, 1));
    body = m->kernels[k].body;
    for (i = 0; i < 400; i++) {   /* block + ((i + 1) * 3 - 2) * (i % 2 ? -1 : 1) ("+ -4"): i + 1 is of literals */
        int32_t c = pto_expr_bin(m, PTO_E_MUL, pto_expr_bin(m, PTO_E_ADD, pto_expr_int(m, i, l0), pto_expr_int(m, 1, l0), l0),
                                 pto_expr_int(m, 3, l0), l0);
        c = pto_expr_bin(m, PTO_E_SUB, c, pto_expr_int(m, 2, l0), l0);
        if (i % 2) c = pto_expr_bin(m, PTO_E_MUL, c, pto_expr_bin(m, PTO_E_NEG, pto_expr_int(m, 1, l0), -1, l0), l0);
        snprintf(name, sizeof name, "v%d", i);
        pto_add_let(m, body, name, pto_expr_bin(m, PTO_E_ADD, pto_expr_builtin(m, PTO_E_BLOCK, l0), c, l0), L(m, 2 + i));
    }
    /* constants of literals at the edges: INT64_MAX, INT64_MIN, and one past (not a constant) */
    pto_add_let(m, body, "hi", pto_expr_bin(m, PTO_E_ADD, pto_expr_builtin(m, PTO_E_BLOCK, l0),
                                            pto_expr_bin(m, PTO_E_ADD, pto_expr_int(m, INT64_MAX - 1, l0),
                                                         pto_expr_int(m, 1, l0), l0), l0), L(m, 450));
    pto_add_let(m, body, "lo", pto_expr_bin(m, PTO_E_MUL, pto_expr_builtin(m, PTO_E_BLOCK, l0),
                                            pto_expr_bin(m, PTO_E_SUB, pto_expr_int(m, -INT64_MAX, l0),
                                                         pto_expr_int(m, 1, l0), l0), l0), L(m, 451));
    big = pto_add_let(m, body, "big", pto_expr_int(m, 0, l0), L(m, 500));
    stamp = verified(ctx, m)->verified;
    /* one past INT64_MAX: the verifier refuses it (tests/bad/const_overflow.pto);
       the emitter, given it anyway (the stamp is put back below), writes it unfolded
       and checked (pto_k_iadd: no signed overflow in C), at its statement's line
       (the expression has none) */
    pto_add_let(m, body, "past", pto_expr_bin(m, PTO_E_ADD, pto_expr_builtin(m, PTO_E_BLOCK, l0),
                                              pto_expr_bin(m, PTO_E_ADD, pto_expr_int(m, INT64_MAX, l0),
                                                           pto_expr_int(m, 1, l0), l0), l0), L(m, 452));
    /* then its expression: one node as both operands, 50 deep (verify would
       walk its 2^50 paths; the stamp is put back by hand) */
    x = pto_expr_int(m, 1, l0);
    for (i = 0; i < 50; i++) x = pto_expr_bin(m, PTO_E_ADD, x, x, l0);
    m->stmts[big].e[0] = x;
    m->verified = stamp;
    CHECK(pto_emit(ctx, m, NULL, &kb, NULL) == PTO_OK);
    for (i = 0; i < 400 && kb.data; i++) {
        long v = ((long)i + 1) * 3 - 2;
        snprintf(want, sizeof want, "    const int64_t v%d = pto_k_block_idx(core) + %ld;\n", i, i % 2 ? -v : v);
        if (!strstr(kb.data, want)) {
            if (bad < 3) printf("missing: %s", want);
            bad++;
        }
    }
    CHECK_MSG(kb.data && bad == 0, "%d lets", bad);
    CHECK(kb.data && strstr(kb.data, "    const int64_t big = 1125899906842624;\n"));
    CHECK(kb.data && strstr(kb.data, "    const int64_t hi = pto_k_block_idx(core) + 9223372036854775807;\n"));
    CHECK(kb.data && strstr(kb.data, "    const int64_t lo = pto_k_block_idx(core) * (-9223372036854775807 - 1);\n"));
    CHECK(kb.data && strstr(kb.data, "    const int64_t past = pto_k_block_idx(core) + pto_k_iadd(core, \"c.pto:452\", "
                                     "9223372036854775807, 1);\n"));
    pto_buf_free(&kb);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* ---- the emitter's tables ---- */

static void test_tables(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto__emitter *E = (pto__emitter *)calloc(1, sizeof *E);
    static int32_t ref[4096];
    int32_t i, key, live = 0, bad = 0;
    E->ctx = ctx;
    for (i = 0; i < 4096; i++) ref[i] = -2;
    for (i = 0; i < 200000; i++) {
        uint64_t r = next();
        key = (int32_t)((r >> 8) % 60) * 64 + (int32_t)((r >> 20) % 3);
        if ((r & 3) != 0 && live < 150) {   /* add (a value for a new key, or a new value) */
            struct pto__emit_td *e = pto__emit_td_add(E, key);
            if (!e || e->s != key || (ref[key] == -2 && e->head != -1)) bad++;
            if (!e) break;
            live += ref[key] == -2;
            e->head = i;
            ref[key] = i;
        } else {
            int32_t got = E->tdcap ? pto__emit_td_take(E, key) : -1;
            if (got != (ref[key] == -2 ? -1 : ref[key])) bad++;
            live -= ref[key] != -2;
            ref[key] = -2;
        }
        if (E->tdn != (uint32_t)live) bad++;
    }
    for (key = 0; key < 4096; key++)   /* what is left, each found */
        if (ref[key] != -2 && pto__emit_td_at(E, key)->head != ref[key]) bad++;
    CHECK_MSG(bad == 0 && E->tdcap >= 256, "tdecl table: %d wrong answers (%u entries)", bad, E->tdcap);
    for (i = 0, bad = 0; i < 3000; i++)
        if (!pto__emit_cval_put(E, i * 64, (int64_t)i * 1000003 - 7)) bad++;
    for (i = 0; i < 3000; i++)
        if (pto__emit_cval(E, i * 64)->ex != i * 64 || pto__emit_cval(E, i * 64)->v != (int64_t)i * 1000003 - 7) bad++;
    CHECK_MSG(bad == 0 && E->cvn == 3000 && pto__emit_cval(E, 64 * 3000)->ex == -1, "constant table: %d wrong", bad);
    pto_free(ctx, E->td);
    pto_free(ctx, E->cval);
    free(E);
    pto_ctx_destroy(ctx);
}

/* ---- notes across kernels ---- */

static void test_note_kernels(void)
{
    static const char *const src =
        "kernel a(in x: f32[16, 16]) vector {\n"
        "  set_flag MTE2, V, 0\n"
        "  wait_flag MTE2, V, 0\n"
        "  pipe_barrier V\n"
        "  set_flag MTE2, V, 1\n"
        "  wait_flag MTE2, V, 1\n"
        "}\n"
        "kernel b(in x: f32[16, 16]) vector {\n"
        "  pipe_barrier V\n"
        "  set_flag MTE2, V, 0\n"
        "  wait_flag MTE2, V, 0\n"
        "}\n";
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_parse(ctx, "n.pto", src, strlen(src));
    pto_buf kb;
    int32_t s, note, one = 0;
    const char *p, *full = "    /* user: the shared note */\n";
    memset(&kb, 0, sizeof kb);
    kb.ctx = ctx;
    CHECK(m != NULL);
    if (!m) return;
    note = pto_intern(ctx, "the shared note", 15);
    for (s = 0; s < m->n_stmts; s++)   /* every set and wait: the note (a direct write: verify again) */
        if (m->stmts[s].kind == PTO_ST_OP && m->stmts[s].op != PTO_OP_PIPE_BARRIER) m->stmts[s].note = note;
    CHECK(pto_emit(ctx, verified(ctx, m), NULL, &kb, NULL) == PTO_OK);
    for (p = kb.data; p && (p = strstr(p, full)) != NULL; p++) one++;
    CHECK_MSG(one == 2, "the note in full %d times (once per kernel)", one);
    CHECK(kb.data && strstr(kb.data, "    pto_k_set_flag(core, \"n.pto:5\", PTO_K_MTE2, PTO_K_V, 1); "
                                     "/* user: see the set_flag at n.pto:2 */\n"));
    CHECK(kb.data && strstr(kb.data, "    pto_k_pipe_barrier(core, \"n.pto:9\", PTO_K_V);\n" "    /* user: the shared note */\n"
                                     "    pto_k_set_flag(core, \"n.pto:10\""));
    pto_buf_free(&kb);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* ---- tdecls ---- */

static void test_tdecls(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    pto_loc l0 = {0, 0, 0};
    int32_t k, x, body, i, s, t[300];
    pto_buf kb;
    char name[16], want[160];
    int bad = 0;
    memset(&kb, 0, sizeof kb);
    kb.ctx = ctx;
    m->file = pto_file_add(ctx, "t.pto");
    k = pto_add_kernel(m, "t", PTO_KK_VECTOR, L(m, 1));
    x = pto_add_tensor_param(m, k, "x", PTO_IN, PTO_F32, 64, 64, L(m, 1));
    body = m->kernels[k].body;
    for (i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "t%d", i);
        t[i] = pto_add_tile(m, body, name, PTO_VEC, PTO_F32, 16, 16, L(m, 2 + i));
        m->tiles[t[i]].planned = 1;
        m->tiles[t[i]].offset[0] = 1024 * i;
    }
    for (i = 0; i < 300; i++) {   /* tile (7 i) % 300 at line 400 + i */
        s = pto_add_op(m, body, PTO_OP_TLOAD, L(m, 400 + i));
        pto_arg_tile(m, s, t[i * 7 % 300], L(m, 400 + i));
        pto_arg_gm(m, s, x, pto_expr_int(m, 0, l0), pto_expr_int(m, 0, l0), -1, L(m, 400 + i));
    }
    CHECK(pto_emit(ctx, verified(ctx, m), NULL, &kb, NULL) == PTO_OK);
    for (i = 0; i < 300 && kb.data; i++) {
        int j = i * 7 % 300;
        snprintf(want, sizeof want, "    pto_k_tdecl(core, \"t.pto:%d\", t%d);\n    pto_k_tload(core, \"t.pto:%d\", t%d, x, 0, 0);\n",
                 2 + j, j, 400 + i, j);
        if (!strstr(kb.data, want)) {
            if (bad < 3) printf("missing: %s", want);
            bad++;
        }
    }
    CHECK_MSG(kb.data && bad == 0, "%d tdecls", bad);
    pto_buf_free(&kb);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

/* ---- event ids ---- */

static int32_t rand_expr(pto_module *m, int32_t var, int depth)
{
    static const int64_t lits[] = {0, 1, 2, 3, 7, 9, 10, 11, 9999, 10000, 123456, -1, -2};
    pto_loc l0 = {0, 0, 0};
    uint64_t r = next();
    if (depth == 0 || r % 8 == 0)
        return r % 3 == 0 ? pto_expr_var(m, var, l0) : pto_expr_int(m, lits[(r >> 8) % 13], l0);
    if (r % 8 == 1) return pto_expr_bin(m, PTO_E_NEG, rand_expr(m, var, depth - 1), -1, l0);
    return pto_expr_bin(m, (pto_expr_kind)(PTO_E_ADD + (int)((r >> 8) % 5)), rand_expr(m, var, depth - 1),
                        rand_expr(m, var, depth - 1), l0);
}

/* [BASE +] (i - 0) op M and the like (i - 3: a start that is no identity), with identities around */
static int32_t id_expr(pto_module *m, int32_t var)
{
    static const int64_t base[] = {0, 1, 2, 9, 10, 9999, 10000, -1}, mod[] = {2, 3, 10, 12, 1, 0, -2};
    pto_loc l0 = {0, 0, 0};
    uint64_t r = next();
    int32_t x = pto_expr_var(m, var, l0);
    if (r & 1) x = pto_expr_bin(m, PTO_E_SUB, x, pto_expr_int(m, r >> 40 & 1 ? 3 : 0, l0), l0);
    x = pto_expr_bin(m, (pto_expr_kind)(PTO_E_ADD + (int)((r >> 8) % 5)), x, pto_expr_int(m, mod[(r >> 16) % 7], l0), l0);
    if (r & 2) x = pto_expr_bin(m, PTO_E_ADD, pto_expr_int(m, base[(r >> 24) % 8], l0), x, l0);
    if (r & 4) x = pto_expr_bin(m, PTO_E_ADD, x, pto_expr_int(m, 0, l0), l0);
    if (r & 8) x = pto_expr_bin(m, PTO_E_MUL, pto_expr_int(m, 1, l0), x, l0);
    return x;
}

static void test_event_ids(void)
{
    enum { N = 600 };
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    pto_loc l0 = {0, 0, 0};
    int32_t k, f, var, n, stamp, let[N], op[N][2];
    pto_buf kb;
    char want[512], name[16];
    int bad = 0, fast = 0;
    memset(&kb, 0, sizeof kb);
    kb.ctx = ctx;
    m->file = pto_file_add(ctx, "e.pto");
    k = pto_add_kernel(m, "e", PTO_KK_VECTOR, L(m, 1));
    f = pto_add_for(m, m->kernels[k].body, "i", pto_expr_int(m, 0, l0), pto_expr_int(m, 4, l0), -1, L(m, 2));
    var = m->stmts[f].ref;
    for (n = 0; n < N; n++) {
        int j;
        snprintf(name, sizeof name, "v%d", n);
        let[n] = pto_add_let(m, m->stmts[f].body, name, pto_expr_int(m, 0, l0), L(m, 10 + 3 * n));
        for (j = 0; j < 2; j++) {
            op[n][j] = pto_add_op(m, m->stmts[f].body, j ? PTO_OP_WAIT_FLAG : PTO_OP_SET_FLAG, L(m, 11 + 3 * n + j));
            pto_arg_pipe(m, op[n][j], PTO_PIPE_V, L(m, 11 + 3 * n + j));
            pto_arg_pipe(m, op[n][j], PTO_PIPE_MTE2, L(m, 11 + 3 * n + j));
            pto_arg_int(m, op[n][j], pto_expr_int(m, 0, l0), L(m, 11 + 3 * n + j));
        }
    }
    stamp = verified(ctx, m)->verified;
    for (n = 0; n < N; n++) {   /* then the ids (verify would refuse most of them), one node for the three */
        int32_t x = n % 2 ? rand_expr(m, var, 3) : id_expr(m, var);
        m->stmts[let[n]].e[0] = x;
        m->operands[m->stmts[op[n][0]].arg0 + 2].e[0] = x;
        m->operands[m->stmts[op[n][1]].arg0 + 2].e[0] = x;
    }
    m->verified = stamp;
    CHECK(pto_emit(ctx, m, NULL, &kb, NULL) == PTO_OK);
    for (n = 0; n < N && kb.data; n++) {
        const char *p, *q;
        int j;
        snprintf(want, sizeof want, "const int64_t v%d = ", n);
        p = strstr(kb.data, want);
        p = p ? strstr(p, " = ") : NULL;
        q = p ? strchr(p, ';') : NULL;
        if (!q || q - p > 300) { bad++; continue; }
        fast += strchr(p, '(') == NULL || strchr(p, '(') > q;   /* no parentheses: likely the fast path's */
        for (j = 0; j < 2; j++) {
            snprintf(want, sizeof want, "(core, \"e.pto:%d\", PTO_K_V, PTO_K_MTE2, %.*s);", 11 + 3 * n + j,
                     (int)(q - p - 3), p + 3);
            if (!strstr(kb.data, want)) {
                if (bad < 3) printf("missing: %s\n", want);
                bad++;
            }
        }
    }
    CHECK_MSG(kb.data && bad == 0 && fast > N / 3, "%d event ids (%d without parentheses)", bad, fast);
    pto_buf_free(&kb);
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
}

int main(void)
{
    test_i64();
    test_scans();
    test_source();
    test_notes();
    test_tile_shapes();
    test_uses();
    test_consts();
    test_tdecls();
    test_tables();
    test_note_kernels();
    test_event_ids();
    return TEST_END();
}
