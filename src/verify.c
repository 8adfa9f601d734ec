/* verify.c - the verifier (placeholder until it lands). */

PTODEF pto_status pto_verify(pto_ctx *ctx, pto_module *m)
{
    (void)ctx;
    (void)m;
    return PTO_OK;
}
