/* interp.c - the reference interpreter (placeholder until it lands). */

PTODEF pto_status pto_interp(pto_ctx *ctx, const pto_module *m, const pto_launch *launch)
{
    pto_loc none = {0, 0, 0};
    (void)m;
    (void)launch;
    return pto_error(ctx, none, "the interpreter is not built yet");
}
