/* compile.c - pto_compile: the pass sequence in one place.

   Needs: a module straight from the parser or the builders.
   Guarantees: the passes run in their fixed order, verify -> lower -> plan -> sync,
   each only when the one before succeeded, with the options of desc; the
   module is left as the last pass that ran made it (ready for pto_emit when
   every pass ran). It adds no behaviour of its own: ptoc, the C API example
   and the benches call this instead of spelling the sequence out, so they
   cannot drift apart. */

PTODEF pto_status pto_compile(pto_ctx *ctx, pto_module *m, const pto_compile_desc *desc)
{
    pto_compile_desc zero;
    pto_stage last;
    pto_status st;
    if (!desc) {
        memset(&zero, 0, sizeof zero);
        desc = &zero;
    }
    last = desc->stop_after == PTO_STAGE_ALL ? PTO_STAGE_SYNC : desc->stop_after;
    if (!m) return PTO_ERR_USER;   /* a parse that failed: its diagnostics are recorded */
    st = pto_verify(ctx, m);
    if (st != PTO_OK || last == PTO_STAGE_VERIFY) return st;
    st = pto_lower_for(ctx, m, desc->target);
    if (st != PTO_OK || last == PTO_STAGE_LOWER) return st;
    st = pto_plan(ctx, m, &desc->plan);
    /* the checker shares no code with the planner: a violation is pto's bug */
    if (st == PTO_OK && desc->check_plan && pto_plan_check(ctx, m) != PTO_OK) st = PTO_ERR_INTERNAL;
    if (st != PTO_OK) return st;
    if (desc->no_sync) return pto_sync_hand(ctx, m);   /* its own flags are its sync: marked so for pto_emit */
    if (last == PTO_STAGE_PLAN) return st;
    return pto_sync(ctx, m, &desc->sync);
}
