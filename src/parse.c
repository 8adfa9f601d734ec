/* parse.c - the .pto parser (placeholder until the parser lands). */

PTODEF pto_module *pto_parse(pto_ctx *ctx, const char *filename, const char *text, size_t len)
{
    pto_loc loc;
    (void)text;
    (void)len;
    loc.file = pto_file_add(ctx, filename);
    loc.line = 1;
    loc.col = 1;
    pto_error(ctx, loc, "the parser is not built yet");
    return NULL;
}
