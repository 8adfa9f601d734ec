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
   Printer (pto__hs_print_one, called by print.c): the canonical text, in
   the written order among the kernels. Verifier (pto__hs_verify, called by pto_verify): every rule in
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

PTODEF int32_t pto_host_calls_of(const pto_module *m, int32_t k)
{
    int32_t s, n = 0;
    for (s = 0; s < m->n_hstmts; s++) n += m->hstmts[s].kind == PTO_HS_CALL && m->hstmts[s].ref == k;
    return n;
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
        else pto__ps_float_range(p, &t, &p->tok, neg, v);
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
    int lines = pto__pr_param_lines(pr, h->loc.line, h->param0, h->nparams);
    pto__pr_comments_before(pr, h->loc.line, 0);
    pto_buf_printf(b, "host %s(", pto_str(m->ctx, h->name));
    if (lines && (h->nparams == 0 || m->params[h->param0].loc.line != h->loc.line)) pto__pr_eol(pr, h->loc.line);
    for (i = 0; i < h->nparams; i++) {
        const pto_param *p = &m->params[h->param0 + i];
        pto__pr_param_sep(pr, h->param0, h->nparams, i, lines);
        if (p->kind == PTO_P_SCALAR) {
            pto_buf_printf(b, "scalar %s: %s", pto_str(m->ctx, p->name), pto_dtype_name((pto_dtype)p->dtype));
            continue;
        }
        pto_buf_printf(b, "%s ", dirs[p->dir < 3 ? p->dir : 0]);
        pto__hs_print_tensor(m, p, b);
    }
    pto__pr_param_sep(pr, h->param0, h->nparams, h->nparams, lines);
    pto_buf_puts(b, ") {");
    if (!lines) pto__pr_eol(pr, h->loc.line);
    pto_buf_puts(b, "\n");
    for (s = h->stmt0; s < h->stmt0 + h->nstmts && s < m->n_hstmts; s++) {
        const pto_hstmt *st = &m->hstmts[s];
        pto__pr_comments_before(pr, st->loc.line, 1);
        if (st->kind == PTO_HS_TENSOR) {
            pto_buf_puts(b, "  tensor ");
            if (st->ref >= 0 && st->ref < m->n_params) pto__hs_print_tensor(m, &m->params[st->ref], b);
            pto__pr_eol(pr, st->loc.line);
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
        pto_buf_puts(b, ")");
        pto__pr_eol(pr, st->loc.line);
        pto_buf_puts(b, "\n");
    }
    pto_buf_puts(b, "}\n");
}

/* Whether every call of h names a kernel below k (print.c may print h
   before kernel k: the parser needs a called kernel defined above). */
static int pto__hs_calls_below(const pto_module *m, const pto_host *h, int32_t k)
{
    int32_t s;
    for (s = h->stmt0; s < h->stmt0 + h->nstmts && s < m->n_hstmts; s++)
        if (m->hstmts[s].kind == PTO_HS_CALL && m->hstmts[s].ref >= k) return 0;
    return 1;
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
        if (v->kind == PTO_V_SCALAR && v->def >= 0 && v->def < m->n_params && pto__dtype_float(m->params[v->def].dtype)) {
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

/* a op b as host expressions compute it (wrapping, as the run does); 0 for
   a division or remainder with no value (by 0, or INT64_MIN by -1). */
static int pto__hs_arith(int kind, int64_t a, int64_t b, int64_t *out)
{
    switch (kind) {
    case PTO_E_ADD: *out = (int64_t)((uint64_t)a + (uint64_t)b); return 1;
    case PTO_E_SUB: *out = (int64_t)((uint64_t)a - (uint64_t)b); return 1;
    case PTO_E_MUL: *out = (int64_t)((uint64_t)a * (uint64_t)b); return 1;
    case PTO_E_MIN: *out = a < b ? a : b; return 1;
    case PTO_E_MAX: *out = a > b ? a : b; return 1;
    default:
        if (b == 0 || (a == INT64_MIN && b == -1)) return 0;
        *out = kind == PTO_E_DIV ? a / b : a % b;
        return 1;
    }
}

/* The value of a host expression without vars (what pto__hs_eval computes
   at run time, the same wrapping arithmetic); 0 when it uses a var or has
   no value (a division by 0 is the run's error, at its line). */
static int pto__hs_const(const pto_module *m, int32_t e, int64_t *out)
{
    const pto_expr *x;
    int64_t a = 0, b = 0;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: *out = x->value; return 1;
    case PTO_E_NEG:
        if (!pto__hs_const(m, x->a, &a)) return 0;
        *out = (int64_t)(0 - (uint64_t)a);
        return 1;
    case PTO_E_ADD: case PTO_E_SUB: case PTO_E_MUL: case PTO_E_MIN: case PTO_E_MAX: case PTO_E_DIV: case PTO_E_MOD:
        if (!pto__hs_const(m, x->a, &a) || !pto__hs_const(m, x->b, &b)) return 0;
        break;
    default: return 0;
    }
    return pto__hs_arith(x->kind, a, b, out);
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

/* The host tensor (its index among the host's params and intermediates)
   that argument operand o of a call names, or -1. */
static int32_t pto__hs_arg_tensor(const pto__hs_ver *V, const pto_operand *o)
{
    const pto_host *h = &V->m->hosts[V->h];
    int32_t idx = o->ref - h->param0;
    return o->kind == PTO_O_GM && idx >= 0 && idx < h->nparams + h->ntensors ? idx : -1;
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

/* A float literal for a float scalar param, which holds it in its dtype (f32,
   f16 and bf16 rounding to nearest even, as the kernel takes it: the
   verifier's rule for a literal in a kernel): a finite one that becomes inf
   or a nonzero one that becomes 0 is almost surely a typo; on an f16 / bf16
   param any other change is said with the value held, as -D says it of a
   kernel's own scalar (0.1 is 0.0999755859375 in f16). fs: o->f as text. */
static void pto__hs_vfloat_lit(pto__hs_ver *V, const pto_operand *o, int argi, const char *kn, const pto_param *kp,
                               const char *fs)
{
    const pto_module *m = V->m;
    int dt = kp->dtype == PTO_F16 || kp->dtype == PTO_BF16 ? (int)kp->dtype : (int)PTO_F32;
    const char *dn = pto_dtype_name((pto_dtype)dt);
    double used = (double)pto_scalar_as(dt, o->f);
    char us[40];
    if (o->f - o->f != 0.0) return;   /* inf and nan are as written */
    if (isinf(used))
        pto_warning(V->ctx, o->loc, "float %s rounds to %sinf in %s, as scalar '%s' of '%s' takes it (write %sinf if "
                    "that is meant)", fs, o->f < 0 ? "-" : "", dn, pto__hs_name(m, kp->name), kn, o->f < 0 ? "-" : "");
    else if (o->f != 0.0 && used == 0.0)
        pto_warning(V->ctx, o->loc, "float %s rounds to 0 in %s, as scalar '%s' of '%s' takes it (write 0 if "
                    "that is meant)", fs, dn, pto__hs_name(m, kp->name), kn);
    else if (dt != PTO_F32 && used != o->f) {
        pto__pr_fmt_msg(used, us, sizeof us);
        pto_warning(V->ctx, o->loc, "argument %d of '%s': scalar '%s' is %s and holds %s, not %s", argi, kn,
                    pto__hs_name(m, kp->name), dn, us, fs);
    }
}

/* A scalar argument: a number or host scalar for a float param, an integer
   expression or integer host scalar for an integer param. */
static void pto__hs_vscalar_arg(pto__hs_ver *V, const pto_hstmt *st, int argi, const pto_param *kp)
{
    const pto_module *m = V->m;
    const pto_operand *o = &m->operands[st->arg0 + argi - 1];
    const char *kn = pto__hs_name(m, m->kernels[st->ref].name);
    int want_float = pto__dtype_float(kp->dtype);
    switch (o->kind) {
    case PTO_O_GM:
        pto_error(V->ctx, o->loc, "argument %d of '%s' is scalar '%s'; it cannot be tensor '%s'", argi, kn,
                  pto__hs_name(m, kp->name), o->ref >= 0 && o->ref < m->n_params ? pto__hs_name(m, m->params[o->ref].name) : "?");
        break;
    case PTO_O_FLOAT: {
        /* the value as text that reads back to it (%g made 3.4028235677973366e+38,
           which does round to inf, read as FLT_MAX: review21 L3) */
        char fs[40];
        pto__pr_fmt_msg(o->f, fs, sizeof fs);
        if (!want_float)
            pto_error(V->ctx, o->loc, "argument %d of '%s': parameter '%s' is %s and takes an integer, not %s", argi, kn,
                      pto__hs_name(m, kp->name), pto_dtype_name((pto_dtype)kp->dtype), fs);
        else pto__hs_vfloat_lit(V, o, argi, kn, kp, fs);
        break;
    }
    case PTO_O_SCALAR: {
        const pto_var *v = o->ref >= 0 && o->ref < m->n_vars ? &m->vars[o->ref] : NULL;
        if (!v || v->kernel != PTO_HOST_SCOPE(V->h) || v->kind != PTO_V_SCALAR || v->def < 0) {
            pto_error(V->ctx, o->loc, "argument %d of '%s' is not a scalar of host '%s'", argi, kn, V->hname);
            break;
        }
        pto__hs_use(V, v->def, 1);
        if (!want_float && pto__dtype_float(m->params[v->def].dtype)) {
            pto_error(V->ctx, o->loc, "argument %d of '%s': parameter '%s' is %s; host scalar '%s' is %s", argi, kn,
                      pto__hs_name(m, kp->name), pto_dtype_name((pto_dtype)kp->dtype), pto__hs_name(m, v->name),
                      pto_dtype_name((pto_dtype)m->params[v->def].dtype));
        }
        break;
    }
    case PTO_O_INT: {
        int64_t c;
        if (!pto__hs_vexpr(V, o->e[0], o->loc)) break;
        /* a constant the integer param cannot hold (300 for an i8): the run would refuse it */
        if (!want_float && pto__hs_const(m, o->e[0], &c) && ((double)c < pto_int_lo(kp->dtype) || (double)c > pto_int_hi(kp->dtype)))
            pto_error(V->ctx, o->loc, "argument %d of '%s': parameter '%s' is %s and cannot hold %lld (%.0f..%.0f)", argi, kn,
                      pto__hs_name(m, kp->name), pto_dtype_name((pto_dtype)kp->dtype), (long long)c,
                      pto_int_lo(kp->dtype), pto_int_hi(kp->dtype));
        /* ... or one an f16 / bf16 param changes (4097 is 4096 in f16), as for a float literal */
        else if ((kp->dtype == PTO_F16 || kp->dtype == PTO_BF16) && pto__hs_const(m, o->e[0], &c) &&
                 (double)pto_scalar_as(kp->dtype, (double)c) != (double)c) {
            char us[40];
            pto__pr_fmt_msg((double)pto_scalar_as(kp->dtype, (double)c), us, sizeof us);
            pto_warning(V->ctx, o->loc, "argument %d of '%s': scalar '%s' is %s and holds %s, not %lld", argi, kn,
                        pto__hs_name(m, kp->name), pto_dtype_name((pto_dtype)kp->dtype), us, (long long)c);
        }
        break;
    }
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
    const pto_kernel *k;
    const char *kn;
    int32_t n, i, t;
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
        /* which parameter an argument meant is unknown: any tensor it names may
           be written (no cascade of "read before any call writes it") */
        for (i = 0; i < st->nargs; i++)
            if ((t = pto__hs_arg_tensor(V, &m->operands[st->arg0 + i])) >= 0) V->written[t] = 1;
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
    for (i = 0; i < n; i++)   /* what this call writes holds data for the calls after it */
        if (m->params[order[i]].dir != PTO_IN && (t = pto__hs_arg_tensor(V, &m->operands[st->arg0 + i])) >= 0)
            V->written[t] = 1;
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
    int errors0 = pto_error_count(V->ctx), calls_ok;
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
    /* an output no call writes: said only when the calls themselves were right (a call with a
       wrong argument count wrote nothing: review17's second error for one mistake) */
    calls_ok = pto_error_count(V->ctx) == errors0;
    for (i = 0; i < h->nparams && calls_ok; i++) {
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
    if (x->kind < PTO_E_ADD || x->kind > PTO_E_MAX) {
        pto_error(R->ctx, x->loc, "this expression has no value on the host");
        return 0;
    }
    if (!pto__hs_eval(R, x->a, &a) || !pto__hs_eval(R, x->b, &b)) return 0;
    if (pto__hs_arith(x->kind, a, b, out)) return 1;
    pto_error(R->ctx, x->loc, "%s by %lld in a host expression", x->kind == PTO_E_DIV ? "division" : "remainder",
              (long long)b);
    return 0;
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
        if ((kp->dtype == PTO_I32 || kp->dtype == PTO_I8) && o->kind != PTO_O_FLOAT &&
            (bind[nb].value < pto_int_lo(kp->dtype) || bind[nb].value > pto_int_hi(kp->dtype))) {
            /* named at the argument (the kernel would name its param line) */
            pto_error(R->ctx, o->loc, "argument %d of '%s': parameter '%s' is %s and gets %.0f, not an integer in %.0f..%.0f",
                      (int)i + 1, pto_str(R->ctx, k->name), pto_str(R->ctx, kp->name), pto_dtype_name((pto_dtype)kp->dtype),
                      bind[nb].value, pto_int_lo(kp->dtype), pto_int_hi(kp->dtype));
            pto_free(R->ctx, kt);
            return 0;
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
