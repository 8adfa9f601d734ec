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
