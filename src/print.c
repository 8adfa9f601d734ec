/* print.c - the .pto printer: IR -> canonical text, and pto_dump.

   Needs: a module whose ids are in range (any stage of the pipeline).
   Guarantees: canonical text that the parser reads back to the same IR, so
   print(parse(print(x))) == print(x): 2-space indentation, params on one
   line, the fewest parentheses that keep each expression tree, floats in the
   shortest form that reads back to the same double and still reads as a
   float, `} else {` on one line. pto_print drops comments;
   pto_print_commented keeps those of the source text: a full-line comment
   before the item that follows it, an end-of-line one after the item of
   its line (one the printer cannot place, after a `}`, becomes a full-line
   comment there). A parameter list written over several lines is printed
   one parameter per line, its comments with them (review23 L4: they moved
   into the body). Kernels and hosts print in the order they were written.

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

/* Whether e is the literal 0. */
static int pto__pr_zero(const pto_module *m, int32_t e)
{
    return e >= 0 && e < m->n_exprs && m->exprs[e].kind == PTO_E_INT && m->exprs[e].value == 0;
}

/* A walk of one expression tree: nodes left to print (operands several
   nodes share could make an unverified tree exponential) and the depth.
   pto_verify refuses any tree this would cut (pto__vexprs, and a depth of
   2000); the printer takes any module, so it bounds the walk itself and
   prints `?` where it stops (review29 H1). */
typedef struct pto__pr_ewalk {
    int64_t left;
    int depth;
} pto__pr_ewalk;

#define PTO__PR_EXPAND ((int64_t)1 << 20)
#define PTO__PR_EDEPTH 4096

/* Prints e, in parentheses when its precedence is below `min`; `ids`: an
   event id, where the sync pass's rotation `0 + (r - 0) / 16 % 2` reads
   `r / 16 % 2` (0 + x, x + 0 and x - 0 dropped, as the emitted C does;
   review20 L10). Elsewhere the tree prints as written. */
static void pto__pr_pexpr_at(const pto_module *m, int32_t e, int min, pto_buf *b, int ids, pto__pr_ewalk *w)
{
    static const char *const binop[] = {"+", "-", "*", "/", "%"};
    const pto_expr *x;
    int prec, paren;
    if (e < 0 || e >= m->n_exprs || w->left <= 0 || w->depth >= PTO__PR_EDEPTH) {
        pto_buf_puts(b, "?");
        return;
    }
    w->left--;
    w->depth++;
    x = &m->exprs[e];
    if (ids && (x->kind == PTO_E_ADD || x->kind == PTO_E_SUB) && pto__pr_zero(m, x->b)) {
        pto__pr_pexpr_at(m, x->a, min, b, ids, w);
        w->depth--;
        return;
    }
    if (ids && x->kind == PTO_E_ADD && pto__pr_zero(m, x->a)) {
        pto__pr_pexpr_at(m, x->b, min, b, ids, w);
        w->depth--;
        return;
    }
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
        pto__pr_pexpr_at(m, x->a, prec, b, ids, w);
        pto_buf_printf(b, " %s ", binop[x->kind - PTO_E_ADD]);
        pto__pr_pexpr_at(m, x->b, prec + 1, b, ids, w);
        break;
    case PTO_E_MIN: case PTO_E_MAX:
        pto_buf_puts(b, x->kind == PTO_E_MIN ? "min(" : "max(");
        pto__pr_pexpr_at(m, x->a, 0, b, ids, w);
        pto_buf_puts(b, ", ");
        pto__pr_pexpr_at(m, x->b, 0, b, ids, w);
        pto_buf_puts(b, ")");
        break;
    case PTO_E_NEG:
        /* `--x` would read as two minus signs anyway, but `-(-x)` is clearer;
           `-5` reads back as the literal -5, which prints the same */
        /* `-0` would read back as the literal 0, so that one keeps its parentheses */
        pto_buf_puts(b, "-");
        pto__pr_pexpr_at(m, x->a, x->a >= 0 && x->a < m->n_exprs && m->exprs[x->a].kind == PTO_E_INT &&
                                   m->exprs[x->a].value == 0 ? 5 : 4, b, ids, w);
        break;
    default: pto_buf_puts(b, "?"); break;
    }
    if (paren) pto_buf_puts(b, ")");
    w->depth--;
}

static void pto__pr_pexpr_ids(const pto_module *m, int32_t e, int min, pto_buf *b, int ids)
{
    pto__pr_ewalk w;
    w.left = PTO__PR_EXPAND;
    w.depth = 0;
    pto__pr_pexpr_at(m, e, min, b, ids, &w);
}

static void pto__pr_pexpr(const pto_module *m, int32_t e, int min, pto_buf *b)
{
    pto__pr_pexpr_ids(m, e, min, b, 0);
}

PTODEF void pto_print_expr(const pto_module *m, int32_t expr, pto_buf *out)
{
    if (m && out) pto__pr_pexpr(m, expr, 0, out);
}

/* The shortest %g text s of a double, in plain decimal when its exponent
   is in [-5, 15] (review26a L3: 100.0 printed as 1e+02): the same digits
   with the point moved, so it reads back to the same value (strtod rounds
   "100000" as it rounds "1e+05"); others keep the exponent (1e+16, 1e-06),
   which is the shorter there. s must hold 48 bytes or it stays as it is. */
static void pto__pr_float_plain(char *s, size_t size)
{
    char dig[24], out[48];
    const char *e = strchr(s, 'e'), *p;
    int neg = s[0] == '-', nd = 0, x, i, n = 0;
    if (!e || size < sizeof out) return;
    x = atoi(e + 1);
    if (x < -5 || x > 15) return;
    for (p = s + neg; p < e; p++)
        if (*p >= '0' && *p <= '9' && nd < 20) dig[nd++] = *p;
    if (neg) out[n++] = '-';
    if (x < 0) {   /* 0.000ddd */
        out[n++] = '0';
        out[n++] = '.';
        for (i = 0; i < -x - 1; i++) out[n++] = '0';
        for (i = 0; i < nd; i++) out[n++] = dig[i];
    } else {   /* ddd00 or dd.ddd */
        for (i = 0; i <= x || i < nd; i++) {
            if (i == x + 1) out[n++] = '.';
            out[n++] = i < nd ? dig[i] : '0';
        }
    }
    out[n] = 0;
    memcpy(s, out, (size_t)n + 1);
}

/* The shortest %g form that reads back to the same double, in plain
   decimal when that is short (pto__pr_float_plain), with a '.', 'e', 'inf'
   or 'nan' in it so that it reads back as a float. */
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
    pto__pr_float_plain(out, size);
    if (!strpbrk(out, ".e")) {
        size_t n = strlen(out);
        if (n + 3 <= size) memcpy(out + n, ".0", 3);
    }
}

/* A value in a message: %g as most people write it when that reads back
   exactly (70000, not the shortest form's 7e+04), else the shortest text
   that does (%g made FLT_MAX's 3.40282e+38, which reads back smaller). */
static void pto__pr_fmt_msg(double v, char *out, size_t size)
{
    snprintf(out, size, "%g", v);
    if (strtod(out, NULL) != v) pto__pr_fmt_double(v, out, size);
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

/* Whether the printed text of expression e starts with an integer literal
   (`2 * i`, `-5 + i`): in a scalar position that literal would read as a
   float operand. */
static int pto__pr_lead_literal(const pto_module *m, int32_t e)
{
    const pto_expr *x;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: return 1;
    case PTO_E_NEG:   /* `-5` reads as a literal; `-(0)`, `-i`, `-(a * b)` do not */
        return x->a >= 0 && x->a < m->n_exprs && m->exprs[x->a].kind == PTO_E_INT && m->exprs[x->a].value > 0;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_DIV: case PTO_E_MOD:
        return pto__pr_prec(m, x->a) >= pto__pr_prec(m, e) && pto__pr_lead_literal(m, x->a);
    default: return 0;
    }
}

/* An integer operand outside an integer-only position is read by its form.
   In a scalar position a leading literal would read as a float and a lone
   scalar param as the scalar itself, so those are parenthesised there (a
   loop variable, a let, `n * 2` read as integer expressions); elsewhere
   only a leading scalar param needs it. */
static int pto__pr_int_needs_parens(const pto_module *m, int32_t e, uint32_t mask)
{
    int int_only = (mask & PTO_A_INT) && !(mask & (PTO_A_SCALAR | PTO_A_TILES | PTO_A_GM | PTO_A_CVPIPE));
    if (mask & PTO_A_SCALAR)
        return pto__pr_lead_literal(m, e) ||
               (e >= 0 && e < m->n_exprs && m->exprs[e].kind == PTO_E_VAR && pto__pr_lead_scalar(m, e));
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
    int32_t nlines;        /* lines of the text; 0: end-of-line comments are not kept (no memory) */
    size_t *start;         /* per line (1-based): where it starts */
    unsigned char *done;   /* per line: its end-of-line comment is printed */
} pto__pr_comments;

/* The sync pass's dependency notes, each printed once (review26a L8): a
   set_flag and its wait_flag (and the ids of one rotation) carry the same
   note. As the emitted C does (pto__emit_note), a note is printed in full
   where it first appears in a kernel; the statements right after it with
   the same note share it, and a later one refers back to it. */
typedef struct pto__pr_notes {
    int32_t *first;   /* per interned string: the statement that printed it (-1: none yet); NULL: all in full */
    int32_t n, last;  /* its length; the note of the statement before (0: none) */
} pto__pr_notes;

static void pto__pr_notes_init(const pto_module *m, pto__pr_notes *ns)
{
    ns->n = m->ctx->n_strs > 0 ? m->ctx->n_strs : 0;
    ns->first = ns->n ? (int32_t *)pto_alloc(m->ctx, sizeof(int32_t) * (size_t)ns->n) : NULL;
    ns->last = 0;
}

/* A new kernel: every note is printed in full again. */
static void pto__pr_notes_kernel(pto__pr_notes *ns)
{
    int32_t i;
    for (i = 0; ns->first && i < ns->n; i++) ns->first[i] = -1;
    ns->last = 0;
}

/* How statement s prints its note: -2 in full, -1 not at all (the
   statement before printed it), else the statement to refer back to. A
   statement of another pass than sync keeps its note in full. */
static int32_t pto__pr_note_use(const pto_module *m, pto__pr_notes *ns, int32_t s)
{
    const pto_stmt *st = &m->stmts[s];
    int32_t note = st->note, prev = ns->last;
    ns->last = 0;
    if (!note || st->origin != PTO_BY_SYNC || !ns->first || note < 0 || note >= ns->n) return -2;
    ns->last = note;
    if (note == prev && ns->first[note] >= 0) return -1;
    if (ns->first[note] < 0) {
        ns->first[note] = s;
        return -2;
    }
    return ns->first[note];
}

/* "see the set_flag at vadd.pto:10": the statement that printed the note. */
static void pto__pr_note_ref(const pto_module *m, int32_t see, pto_buf *b)
{
    const pto_stmt *st = &m->stmts[see];
    const char *path = pto_file_name(m->ctx, st->loc.file), *base = path, *p;
    for (p = path; p && *p; p++)
        if (*p == '/' || *p == '\\') base = p + 1;
    pto_buf_printf(b, "see the %s at %s:%d", st->kind == PTO_ST_OP ? pto_opinfo_get((pto_op)st->op)->name : "statement",
                   base ? base : "?", (int)st->loc.line);
}

typedef struct pto__pr_printer {
    const pto_module *m;
    pto_buf *b;
    int dump;
    pto__pr_comments *cm;  /* NULL: comments are not kept */
    pto__pr_notes *notes;  /* the dump's notes (NULL: not a dump) */
} pto__pr_printer;

static int pto__pr_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The comment that ends line `line` after some code: [*from, *to), or 0. */
static int pto__pr_eol_at(const pto__pr_comments *c, int32_t line, size_t *from, size_t *to)
{
    size_t i, end;
    if (!c || line < 1 || line > c->nlines) return 0;
    i = c->start[line];
    while (i < c->len && pto__pr_blank(c->src[i])) i++;
    if (i >= c->len || c->src[i] == '#' || c->src[i] == '\n') return 0;   /* a full-line comment, or blank */
    for (end = i; end < c->len && c->src[end] != '\n' && c->src[end] != '#'; end++) {}
    if (end >= c->len || c->src[end] != '#') return 0;
    *from = end;
    while (end < c->len && c->src[end] != '\n') end++;
    while (end > *from && pto__pr_blank(c->src[end - 1])) end--;
    *to = end;
    return 1;
}

/* The end-of-line comment of source line `line` after the item printed
   from it, once: `tload t, x[0, 0]  # the input`. */
static void pto__pr_eol(const pto__pr_printer *pr, int32_t line)
{
    size_t from, to;
    pto__pr_comments *c = pr->cm;
    if (!pto__pr_eol_at(c, line, &from, &to) || c->done[line]) return;
    c->done[line] = 1;
    pto_buf_puts(pr->b, "  ");
    pto_buf_putn(pr->b, c->src + from, to - from);
}

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
        } else {   /* an end-of-line comment no item took (a `}` line's): kept on a line of its own */
            size_t from, to;
            if (pto__pr_eol_at(c, c->line, &from, &to) && !c->done[c->line]) {
                c->done[c->line] = 1;
                pto__pr_indent(pr->b, depth);
                pto_buf_putn(pr->b, s + from, to - from);
                pto_buf_puts(pr->b, "\n");
            }
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
    if (pr->notes && (st->origin == PTO_BY_USER || !st->note)) pr->notes->last = 0;   /* (no note between) */
    if (st->origin != PTO_BY_USER) {
        int32_t see = pr->notes ? pto__pr_note_use(m, pr->notes, s) : -2;
        pto_buf_printf(pr->b, "  # by %s", st->origin < 5 ? by[st->origin] : "?");
        if (st->note && see == -2) pto_buf_printf(pr->b, ": %s", pto_str(m->ctx, st->note));
        else if (see == -1) pto_buf_puts(pr->b, ": as the line above");
        else if (st->note) {
            pto_buf_puts(pr->b, ": ");
            pto__pr_note_ref(m, see, pr->b);
        }
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
    pto__pr_eol(pr, pr->m->stmts[s].loc.line);
    pto_buf_puts(pr->b, "\n");
    pto__pr_pblock(pr, body, depth + 1);
    if (pr->notes) pr->notes->last = 0;   /* a note above the `}` is not the next line's */
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
        if (i == 2 && (st->op == PTO_OP_SET_FLAG || st->op == PTO_OP_WAIT_FLAG) &&
            m->operands[st->arg0 + i].kind == PTO_O_INT)   /* an event id: the sync pass's rotation, simplified */
            pto__pr_pexpr_ids(m, m->operands[st->arg0 + i].e[0], 0, b, 1);
        else
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
        for (;;) {
            int32_t h;
            pto__pr_pexpr(m, st->e[0], 0, b);
            pto_buf_printf(b, " %s ", pto_cmp_name((pto_cmp)st->cmp));
            pto__pr_pexpr(m, st->e[1], 0, b);
            /* an else block that is one if: `} else if`, as the parser reads
               it (nested, a chain of 64 arms printed past the nesting limit:
               review21 L6); the comments above that line end the arm */
            h = st->orelse >= 0 && st->orelse < m->n_blocks ? m->blocks[st->orelse].head : -1;
            if (h < 0 || h >= m->n_stmts || m->stmts[h].kind != PTO_ST_IF || m->stmts[h].next >= 0) {
                pto__pr_pbody(pr, s, st->body, depth);
                break;
            }
            pto_buf_puts(b, " {");
            pto__pr_dump_note(pr, s);
            pto__pr_eol(pr, st->loc.line);
            pto_buf_puts(b, "\n");
            pto__pr_pblock(pr, st->body, depth + 1);
            if (m->stmts[h].loc.line > 0) pto__pr_comments_before(pr, m->stmts[h].loc.line, depth + 1);
            pto__pr_indent(b, depth);
            pto_buf_puts(b, "}");
            s = h;
            st = &m->stmts[s];
            pto_buf_puts(b, " else if ");
        }
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
    if (st->kind != PTO_ST_FOR) pto__pr_eol(pr, st->loc.line);
    pto_buf_puts(b, "\n");
}

/* A list written directly with a cycle or a link out of range, or a body
   nested in itself, prints what the bounds reach (pto_verify refuses such
   a module: review29 H2): at most n_stmts statements a block, PTO__PR_EDEPTH
   blocks deep. */
static void pto__pr_pblock(const pto__pr_printer *pr, int32_t block, int depth)
{
    const pto_module *m = pr->m;
    int32_t s, n = 0;
    if (block < 0 || block >= m->n_blocks || depth > PTO__PR_EDEPTH) return;
    for (s = m->blocks[block].head; s >= 0 && s < m->n_stmts && n++ < m->n_stmts; s = m->stmts[s].next)
        pto__pr_pstmt(pr, s, depth);
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
        pto_buf_printf(pr->b, "  pipe %s: %s %s[%d, %d] slots(%d) local_slots(%d)%s", pto_str(m->ctx, p->name),
                       dirs[p->dir & 3], pto_dtype_name((pto_dtype)p->dtype), (int)p->rows, (int)p->cols,
                       (int)p->slot_num, (int)p->local_slot_num, splits[p->split < 3 ? p->split : 0]);
        pto__pr_eol(pr, p->loc.line);
        pto_buf_puts(pr->b, "\n");
    }
}

/* Whether a kernel's or host's parameter list is printed one parameter
   per line: when the source wrote it over several lines and comments are
   kept (fmt), so that the comments among the parameters stay there. */
static int pto__pr_param_lines(const pto__pr_printer *pr, int32_t line, int32_t p0, int32_t n)
{
    int32_t i;
    if (!pr->cm) return 0;
    for (i = 0; i < n; i++)
        if (pr->m->params[p0 + i].loc.line != line) return 1;
    return 0;
}

/* Before parameter i of the n from p0 (i == n: before the `)`): ", " on
   one line; else the end-of-line comment of the previous parameter's line
   when it was the last there, a new line, the comments above parameter i
   and its indent. */
static void pto__pr_param_sep(const pto__pr_printer *pr, int32_t p0, int32_t n, int32_t i, int lines)
{
    const pto_module *m = pr->m;
    if (!lines) {
        if (i && i < n) pto_buf_puts(pr->b, ", ");
        return;
    }
    if (i) {
        if (i < n) pto_buf_puts(pr->b, ",");
        if (i == n || m->params[p0 + i].loc.line != m->params[p0 + i - 1].loc.line)
            pto__pr_eol(pr, m->params[p0 + i - 1].loc.line);
    }
    pto_buf_puts(pr->b, "\n");
    if (i < n) {
        pto__pr_comments_before(pr, m->params[p0 + i].loc.line, 1);
        pto__pr_indent(pr->b, 1);
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
    int lines = pto__pr_param_lines(pr, k->loc.line, k->param0, k->nparams);
    pto__pr_comments_before(pr, k->loc.line, 0);
    pto_buf_printf(b, "kernel %s(", pto_str(m->ctx, k->name));
    if (lines && (k->nparams == 0 || m->params[k->param0].loc.line != k->loc.line)) pto__pr_eol(pr, k->loc.line);
    for (i = 0; i < k->nparams; i++) {
        const pto_param *p = &m->params[k->param0 + i];
        pto__pr_param_sep(pr, k->param0, k->nparams, i, lines);
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
    pto__pr_param_sep(pr, k->param0, k->nparams, k->nparams, lines);
    pto_buf_printf(b, ") %s", kinds[k->kind < 3 ? k->kind : 0]);
    if (k->blocks >= 0) {
        pto_buf_puts(b, " blocks(");
        pto__pr_pexpr(m, k->blocks, 0, b);
        pto_buf_puts(b, ")");
    }
    if (k->ranks) pto_buf_puts(b, " ranks");
    pto_buf_puts(b, " {");
    if (!lines) pto__pr_eol(pr, k->loc.line);
    pto_buf_puts(b, "\n");
    pto__pr_pipes(pr, (int32_t)(k - m->kernels));
    pto__pr_pblock(pr, k->body, 1);
    pto_buf_puts(b, "}\n");
}

/* host sections are printed by host.c */
static void pto__hs_print_one(const pto__pr_printer *pr, const pto_host *h);
static int pto__hs_calls_below(const pto_module *m, const pto_host *h, int32_t k);

/* Whether host h prints before kernel k: the items keep their written
   order, so that each keeps the comments above it (hosts printed after
   every kernel gave a host's comments to the kernel written below it). A
   host goes first only when the source put it first (a built module with
   no lines keeps its kernels first) and it calls no kernel from k on,
   which the text must define above it. */
static int pto__pr_host_first(const pto_module *m, int32_t h, int32_t k)
{
    const pto_loc *a, *b;
    if (h >= m->n_hosts) return 0;
    if (k >= m->n_kernels) return 1;
    a = &m->hosts[h].loc;
    b = &m->kernels[k].loc;
    if (a->line <= 0 || (a->line > b->line || (a->line == b->line && a->col >= b->col))) return 0;
    return pto__hs_calls_below(m, &m->hosts[h], k);
}

static void pto__pr_pmodule(const pto_module *m, pto_buf *out, int dump, pto__pr_comments *cm)
{
    pto__pr_printer pr;
    pto__pr_notes notes;
    int32_t k = 0, h = 0;
    int first = pto__pr_host_first(m, 0, 0);
    pr.m = m;
    pr.b = out;
    pr.dump = dump;
    pr.cm = cm;
    pr.notes = NULL;
    if (dump) {
        pto__pr_notes_init(m, &notes);
        pr.notes = &notes;
    }
    if (m->arch != PTO_ARCH_A2A3) {
        /* the comments above the first item stay first: a `# run:` line must */
        pto__pr_comments_before(&pr, first ? m->hosts[0].loc.line : m->n_kernels ? m->kernels[0].loc.line : 0, 0);
        pto_buf_printf(out, "arch %s\n\n", pto_arch_name(m->arch));
    }
    while (k < m->n_kernels || h < m->n_hosts) {   /* in the written order, a blank line between items */
        if (k + h) pto_buf_puts(out, "\n");
        if (pto__pr_host_first(m, h, k)) pto__hs_print_one(&pr, &m->hosts[h++]);
        else {
            if (pr.notes) pto__pr_notes_kernel(pr.notes);
            pto__pr_pkernel(&pr, &m->kernels[k++]);
        }
    }
    pto__pr_comments_before(&pr, 0, 0);   /* the comments after the last item */
    if (pr.notes) pto_free(m->ctx, notes.first);
}

PTODEF void pto_print(const pto_module *m, pto_buf *out) { if (m && out) pto__pr_pmodule(m, out, 0, NULL); }

/* Where each line of the text starts, for the end-of-line comments (none
   kept when there is no memory for it: the full-line ones still are). */
static void pto__pr_line_table(const pto_module *m, pto__pr_comments *cm)
{
    size_t i;
    int32_t n = 1;
    cm->nlines = 0;
    cm->start = NULL;
    cm->done = NULL;
    for (i = cm->pos; i < cm->len; i++) n += cm->src[i] == '\n' && n < INT32_MAX - 2;
    cm->start = (size_t *)pto_alloc(m->ctx, sizeof(size_t) * ((size_t)n + 2));
    cm->done = (unsigned char *)pto_alloc(m->ctx, (size_t)n + 2);
    if (!cm->start || !cm->done) return;
    memset(cm->done, 0, (size_t)n + 2);
    cm->start[1] = cm->pos;
    for (i = cm->pos, n = 1; i < cm->len; i++)
        if (cm->src[i] == '\n' && n < INT32_MAX - 2) cm->start[++n] = i + 1;
    cm->nlines = n;
}

PTODEF void pto_print_commented(const pto_module *m, const char *text, size_t len, pto_buf *out)
{
    pto__pr_comments cm;
    if (!m || !out) return;
    cm.src = text ? text : "";
    cm.len = text ? len : 0;
    cm.pos = 0;
    cm.line = 1;
    if (cm.len >= 3 && memcmp(cm.src, "\xEF\xBB\xBF", 3) == 0) cm.pos = 3;   /* a byte-order mark: as the parser */
    pto__pr_line_table(m, &cm);
    pto__pr_pmodule(m, out, 0, &cm);
    pto_free(m->ctx, cm.start);
    pto_free(m->ctx, cm.done);
}

PTODEF void pto_dump(const pto_module *m, pto_buf *out) { if (m && out) pto__pr_pmodule(m, out, 1, NULL); }
