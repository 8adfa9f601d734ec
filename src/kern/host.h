/* host.h - the host side of the simulated device: devices, GM tensors,
   launches, reports and the Chrome trace.

   A launch builds one core context per simulated core (rank-major, then
   block, then AIC, AIV0, AIV1 for mix kernels), runs them under the seeded
   scheduler until every core has ended, then checks what only the whole
   launch can see (ring slots pushed and never popped) and fills the report.
   Everything a launch allocates is freed by the next launch or by
   pto_k_device_destroy; GM tensors live as long as the device. */

PTO_K_FN pto_k_device *pto_k_device_create(const pto_k_device_desc *desc)
{
    pto_k_device *dev = (pto_k_device *)calloc(1, sizeof *dev);
    if (!dev) return NULL;
    if (desc) dev->desc = *desc;
    if (dev->desc.nranks <= 0) dev->desc.nranks = 1;
    if (dev->desc.arch != PTO_K_A5) dev->desc.arch = PTO_K_A2A3;
    pthread_mutex_init(&dev->mu, NULL);
    pthread_cond_init(&dev->cv, NULL);
    dev->rfree = -1;
    return dev;
}

PTO_K_FN pto_k_gm *pto_k__gm_new(pto_k_device *dev, const char *name, int dtype, int64_t rows, int64_t cols)
{
    pto_k_gm *g;
    int cap = dev->capgms, capsh = dev->capgms;
    size_t bytes;
    if (dtype < PTO_K_F32 || dtype > PTO_K_I8 || rows < 0 || cols < 0 || rows > ((int64_t)1 << 31) ||
        cols > ((int64_t)1 << 31))
        return NULL;
    bytes = (size_t)(rows * cols * pto_k__dsize(dtype));
    dev->gms = (pto_k_gm **)pto_k__grow(dev, dev->gms, &cap, dev->ngms + 1, sizeof *dev->gms);
    dev->gsh = (pto_k__shadow *)pto_k__grow(dev, dev->gsh, &capsh, dev->ngms + 1, sizeof *dev->gsh);
    if (cap != capsh || dev->ngms + 1 > cap) return NULL;
    dev->capgms = cap;
    g = (pto_k_gm *)calloc(1, sizeof *g);
    if (!g) return NULL;
    g->data = calloc(bytes ? bytes : 1, 1);
    if (!g->data) {
        free(g);
        return NULL;
    }
    g->dtype = dtype;
    g->rows = rows;
    g->cols = cols;
    g->name = name;
    g->id = dev->ngms;
    memset(&dev->gsh[dev->ngms], 0, sizeof *dev->gsh);
    dev->gms[dev->ngms++] = g;
    return g;
}

PTO_K_FN pto_k_gm *pto_k_gm_create(pto_k_device *dev, const char *name, int dtype, int64_t rows, int64_t cols)
{
    return pto_k__gm_new(dev, name, dtype, rows, cols);
}

PTO_K_FN pto_k_gm *pto_k_gm_create_window(pto_k_device *dev, const char *name, int dtype, int64_t rows, int64_t cols)
{
    int n = dev->desc.nranks, r;
    pto_k_gm **peers = (pto_k_gm **)calloc((size_t)n, sizeof *peers);
    if (!peers) return NULL;
    for (r = 0; r < n; r++) {
        peers[r] = pto_k__gm_new(dev, name, dtype, rows, cols);
        if (!peers[r]) {
            if (r == 0) free(peers);
            return NULL;
        }
        peers[r]->rank = r;
        peers[r]->peers = peers;
        peers[r]->npeers = n;
    }
    return peers[0];
}

PTO_K_FN pto_k_gm *pto_k_gm_peer(pto_k_gm *g, int rank)
{
    if (!g || !g->peers || rank < 0 || rank >= g->npeers) return g;
    return g->peers[rank];
}

PTO_K_FN float pto_k_gm_get(const pto_k_gm *g, int64_t row, int64_t col)
{
    return pto_elem_get(g->data, g->dtype, row * g->cols + col);
}

PTO_K_FN void pto_k_gm_set(pto_k_gm *g, int64_t row, int64_t col, float v)
{
    pto_elem_set(g->data, g->dtype, row * g->cols + col, v);
}

PTO_K_FN int pto_k_gm_written(const pto_k_gm *g, int64_t row, int64_t col)
{
    return g->written && g->written[row * g->cols + col];
}

PTO_K_FN int64_t pto_k_gm_arg(pto_k_gm *g) { return (int64_t)(intptr_t)g; }

PTO_K_FN int64_t pto_k_f_arg(double v)
{
    int64_t x;
    memcpy(&x, &v, sizeof x);
    return x;
}

/* ---- launch state ---------------------------------------------------------------- */

PTO_K_FN void pto_k__free_launch(pto_k_device *dev)
{
    int i, p, q, id, k, r;
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        for (p = 0; p < PTO_K_NSPACE; p++) {
            free(c->mem[p]);
            free(c->sh[p].g);
        }
        for (p = 0; p < PTO_K_NPIPE; p++) {
            free(c->vc[p]);
            free(c->q[p].v);
            for (q = 0; q < PTO_K_NPIPE; q++)
                for (id = 0; id < PTO_K_NFLAG; id++) free(c->flag[p][q][id].vc);
        }
    }
    free(dev->cores);
    dev->cores = NULL;
    dev->ncores = 0;
    for (i = 0; i < dev->nclusters; i++) {
        pto_k__cluster *cl = &dev->clusters[i];
        for (p = 0; p < 2; p++)
            for (q = 0; q < 2; q++)
                for (id = 0; id < PTO_K_NCROSS; id++) {
                    if (!cl->xq[p][q][id]) continue;
                    for (k = 0; k < PTO_K__XDEPTH; k++) free(cl->xq[p][q][id][k].vc);
                    free(cl->xq[p][q][id]);
                }
        for (r = 0; r < PTO_K_NRING; r++) {
            pto_k__ring *rg = &cl->ring[r];
            free(rg->own);
            for (k = 0; k < 2; k++) {
                pto_k__ring1 *r1 = &rg->d[k];
                if (r1->slot)
                    for (p = 0; p < rg->slot_num; p++) free(r1->slot[p].vc);
                if (r1->freeslot)
                    for (p = 0; p < rg->slot_num; p++) free(r1->freeslot[p].vc);
                free(r1->slot);
                free(r1->freeslot);
                free(r1->slot_dtype);
                free(r1->slot_rows);
                free(r1->slot_cols);
            }
        }
    }
    free(dev->clusters);
    dev->clusters = NULL;
    dev->nclusters = 0;
    for (i = 0; i < dev->nsigs; i++) {
        for (k = 0; k < dev->sigs[i].nw; k++) {
            free(dev->sigs[i].w[k].vc);
            free(dev->sigs[i].w[k].cum);
        }
        free(dev->sigs[i].w);
    }
    dev->nsigs = 0;
    dev->nsdone = 0;
    for (i = 0; i < dev->ngms; i++) {
        free(dev->gsh[i].g);
        dev->gsh[i].g = NULL;
        dev->gsh[i].n = 0;
    }
    dev->nrp = 0;
    dev->rfree = -1;
    for (i = 0; i < dev->rep.nerrors; i++) free(dev->rep.errors[i].msg);
    dev->rep.nerrors = 0;
    free(dev->rep.cores);
    {
        pto_k_error *e = dev->rep.errors;
        memset(&dev->rep, 0, sizeof dev->rep);
        dev->rep.errors = e;
    }
    dev->npairs = 0;   /* trace events stay: the trace covers every launch */
}

PTO_K_FN void pto_k_device_destroy(pto_k_device *dev)
{
    int i;
    if (!dev) return;
    pto_k__free_launch(dev);
    free(dev->rep.errors);
    for (i = 0; i < dev->ngms; i++) {
        pto_k_gm *g = dev->gms[i];
        if (g->peers && g->rank == 0) free(g->peers);
        free(g->data);
        free(g->written);
        free(g);
    }
    free(dev->gms);
    free(dev->gsh);
    free(dev->sigs);
    free(dev->sdone);
    free(dev->rp);
    free(dev->pairs);
    free(dev->ev);
    free(dev->tproc);
    free(dev->rargs);
    pthread_mutex_destroy(&dev->mu);
    pthread_cond_destroy(&dev->cv);
    free(dev);
}

/* The set_flag that would release wait w, queued on another pipe of core c
   behind that pipe's own blocked head (NULL when none is: then nothing
   follows w at all). */
PTO_K_FN const pto_k__ins *pto_k__queued_set(const pto_k_core *c, const pto_k__ins *w, int *pipe)
{
    int r, j;
    for (r = 0; r < PTO_K_PIPE_ALL; r++)
        for (j = 1; j < c->q[r].n; j++) {
            const pto_k__ins *x = &c->q[r].v[j];
            if (x->op == PTO_K__SET_FLAG && x->p0 == w->p0 && x->p1 == w->p1 && x->id == w->id) {
                *pipe = r;
                return x;
            }
        }
    return NULL;
}

/* Checks at the end of one core: blocked pipes, ids left set, rings. */
PTO_K_FN void pto_k__core_end(pto_k_core *c)
{
    int p, q, id;
    char who[64];
    pto_k__core_name(c, who, sizeof who);
    if (!c->dead) {
        for (p = 0; p < PTO_K_PIPE_ALL; p++) {
            const pto_k__ins *w, *set;
            int r;
            if (c->q[p].n == 0) continue;
            w = &c->q[p].v[0];
            /* a knock-on: its set is queued behind another pipe's stuck wait */
            if ((set = pto_k__queued_set(c, w, &r)) != NULL) {
                pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                           "%s: error: deadlock: wait_flag(%s, %s, %d) is never satisfied: its set_flag at \"%s\" is "
                           "queued on pipe %s behind \"%s\", which never completes (reported on its own); %d later "
                           "instruction(s) on pipe %s never ran (%s)",
                           w->src, pto_k__pipe_name(w->p0), pto_k__pipe_name(w->p1), w->id, set->src ? set->src : "?",
                           pto_k__pipe_name(r), c->q[r].v[0].src ? c->q[r].v[0].src : "?", c->q[p].n - 1,
                           pto_k__pipe_name(p), who);
                continue;
            }
            pto_k__err(c->dev, PTO_K_E_DEADLOCK,
                       "%s: error: deadlock: wait_flag(%s, %s, %d) can never be satisfied: no set_flag(%s, %s, %d) "
                       "follows it before the kernel ends; %d later instruction(s) on pipe %s never ran (%s)",
                       w->src, pto_k__pipe_name(w->p0), pto_k__pipe_name(w->p1), w->id, pto_k__pipe_name(w->p0),
                       pto_k__pipe_name(w->p1), w->id, c->q[p].n - 1, pto_k__pipe_name(p), who);
        }
        for (p = 0; p < PTO_K_PIPE_ALL; p++)
            for (q = 0; q < PTO_K_PIPE_ALL; q++)
                for (id = 0; id < PTO_K_NFLAG; id++)
                    if (c->flag_set[p][q][id])
                        pto_k__err(c->dev, PTO_K_E_LEFT_SET,
                                   "%s: error: unbalanced flag: set_flag(%s, %s, %d) is still set when the kernel ends: "
                                   "no wait_flag(%s, %s, %d) consumes it (%s)",
                                   c->flag[p][q][id].src, pto_k__pipe_name(p), pto_k__pipe_name(q), id,
                                   pto_k__pipe_name(p), pto_k__pipe_name(q), id, who);
        pto_k__ring_end(c);
    }
}

/* Whole-launch checks: ring slots pushed and never popped; waits that a
   later write could have made miss their condition. */
PTO_K_FN void pto_k__launch_end(pto_k_device *dev)
{
    int i, r, k, s;
    pto_k__sig_end(dev);
    for (i = 0; i < dev->nclusters; i++)
        for (r = 0; r < PTO_K_NRING; r++) {
            pto_k__ring *rg = &dev->clusters[i].ring[r];
            if (!rg->inited) continue;
            for (k = 0; k < 2; k++) {
                pto_k__ring1 *r1 = &rg->d[k];
                int64_t pushed = pto_k__pushed(rg, k);
                if (!r1->used) continue;
                for (s = 0; s < (k == 0 ? 2 : 1); s++)
                    if (r1->popped[s] < pushed && !dev->cores[rg->init_core].dead)
                        pto_k__err(dev, PTO_K_E_RING,
                                   "%s: error: ring %d (%s) of block %d: %lld slot(s) pushed but never popped by %s",
                                   rg->init_src, r, k == 0 ? "C2V" : "V2C",
                                   (int)dev->cores[rg->init_core].block, (long long)(pushed - r1->popped[s]),
                                   k == 1 ? "the aic" : s == 0 ? "aiv0" : "aiv1");
            }
        }
}

PTO_K_FN void pto_k__json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

PTO_K_FN void pto_k__write_trace_to(pto_k_device *dev, FILE *f, int nproc)
{
    int i, p;
    char who[160];
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"time unit\":\"cycles\",\"kernel\":");
    pto_k__json_str(f, dev->ld->name ? dev->ld->name : "kernel");
    if (dev->ntlaunch > 0) fprintf(f, ",\"launches\":%d", dev->ntlaunch + 1);
    fprintf(f, "},\"traceEvents\":[\n");
    for (i = 0; i < nproc; i++) {
        const pto_k__tproc *t = &dev->tproc[i];
        if (dev->ntlaunch > 0) snprintf(who, sizeof who, "%d %s: %s", t->launch + 1, t->kernel, t->who);
        else snprintf(who, sizeof who, "%s", t->who);
        fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":", i);
        pto_k__json_str(f, who);
        fprintf(f, "}},\n");
        fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}},\n", i, i);
        for (p = 0; p < PTO_K_PIPE_ALL; p++)
            fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}},\n", i, p,
                    pto_k__pipe_name(p));
    }
    for (i = 0; i < dev->nev; i++) {
        const pto_k__event *e = &dev->ev[i];
        fprintf(f, "{\"name\":");
        pto_k__json_str(f, e->name);
        fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%lld,\"args\":{\"src\":",
                pto_k__pipe_name(e->pipe), e->core, e->pipe, (long long)e->start, (long long)e->dur);
        pto_k__json_str(f, e->src);
        fprintf(f, "}},\n");
    }
    fprintf(f, "{\"name\":\"end\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%lld}\n]}\n",
            (long long)(dev->trace_t0 + dev->rep.makespan));
    fclose(f);
}

/* The launch's cores become trace processes after those of earlier launches. */
PTO_K_FN int pto_k__trace_procs(pto_k_device *dev)
{
    int i, cap = dev->captproc;
    dev->tproc = (pto_k__tproc *)pto_k__grow(dev, dev->tproc, &cap, dev->ntproc + dev->ncores, sizeof *dev->tproc);
    dev->captproc = cap;
    if (dev->ntproc + dev->ncores > cap) return 0;
    for (i = 0; i < dev->ncores; i++) {
        pto_k__tproc *t = &dev->tproc[dev->ntproc + i];
        pto_k__core_name(&dev->cores[i], t->who, sizeof t->who);
        snprintf(t->kernel, sizeof t->kernel, "%s", dev->ld->name ? dev->ld->name : "kernel");
        t->launch = dev->ntlaunch;
    }
    return 1;
}

/* Chrome trace / Perfetto JSON: one process per core, one thread per pipe,
   ts and dur in cycles (shown as microseconds by the viewers). Every launch
   on the device rewrites the file with all launches so far, one after the
   other ("2 rmsn: block 0 aiv0" when there are several). */
PTO_K_FN void pto_k__write_trace(pto_k_device *dev)
{
    FILE *f;
    int nproc;
    if (!dev->desc.trace_path || !pto_k__trace_procs(dev)) return;
    nproc = dev->ntproc + dev->ncores;
    f = fopen(dev->desc.trace_path, "w");
    if (!f) pto_k__err(dev, PTO_K_E_USAGE, "error: cannot write trace '%s'", dev->desc.trace_path);
    else pto_k__write_trace_to(dev, f, nproc);
    dev->ntproc = nproc;   /* the next launch follows this one */
    dev->trace_t0 += dev->rep.makespan;
    dev->ntlaunch++;
}

/* The busiest pipe's waits (pto_k_report.waited, .sites): the sites of one
   statement text and pipe are merged (its src may be several copies). */
PTO_K_FN void pto_k__fill_sites(pto_k_device *dev, pto_k_report *r)
{
    pto_k_wait_site all[PTO_K__NSITE];
    pto_k_core *c = NULL;
    int i, j, n = 0, p = -1;
    for (i = 0; i < dev->ncores && !c; i++)
        for (p = 0; p < PTO_K_PIPE_ALL; p++)
            if (r->bound > 0 && dev->cores[i].busy[p] == r->bound) { c = &dev->cores[i]; break; }
    r->bound_core = c ? c->index : -1;
    r->bound_pipe = c ? p : -1;
    if (!c) return;
    for (i = 0; i < c->npend[p]; i++) c->site[c->pend_site[p][i]].cycles -= c->site[c->pend_site[p][i]].pend;   /* nothing followed */
    c->site_other[p] -= c->other_pend[p];
    pto_k__waits_count(c, p);
    r->waited = c->site_other[p];
    for (i = 0; i < c->nsite; i++) {
        if (c->site[i].pipe != p) continue;
        r->waited += c->site[i].cycles;
        for (j = 0; j < n; j++)
            if (all[j].from == c->site[i].from && strcmp(all[j].src ? all[j].src : "", c->site[i].src ? c->site[i].src : "") == 0)
                break;
        if (j == n) {
            all[n].src = c->site[i].src;
            all[n].from = c->site[i].from;
            all[n++].cycles = 0;
        }
        all[j].cycles += c->site[i].cycles;
    }
    for (i = 0; i < n && r->nsites < 3; i++) {   /* the three largest, first seen on a tie */
        int best = -1;
        for (j = 0; j < n; j++)
            if (all[j].cycles > 0 && (best < 0 || all[j].cycles > all[best].cycles)) best = j;
        if (best < 0) break;
        r->sites[r->nsites++] = all[best];
        all[best].cycles = 0;
    }
}

PTO_K_FN void pto_k__fill_report(pto_k_device *dev)
{
    pto_k_report *r = &dev->rep;
    int i, p;
    r->ncores = dev->ncores;
    r->cores = (pto_k_core_report *)calloc((size_t)(dev->ncores ? dev->ncores : 1), sizeof *r->cores);
    if (!r->cores) {
        dev->oom = 1;
        r->ncores = 0;
        return;
    }
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        pto_k_core_report *cr = &r->cores[i];
        cr->kind = c->kind;
        cr->rank = c->rank;
        cr->block = c->block;
        cr->subblock = c->subblock;
        for (p = 0; p < PTO_K_PIPE_ALL; p++) {
            cr->busy[p] = c->busy[p];
            r->serial += c->busy[p];
            if (c->busy[p] > r->bound) r->bound = c->busy[p];
            if (c->free_at[p] > cr->end) cr->end = c->free_at[p];
        }
        if (cr->end > r->makespan) r->makespan = cr->end;
        r->ninstr += c->ninstr;
    }
    r->efficiency = r->makespan > 0 ? (double)r->bound / (double)r->makespan : 0.0;
    pto_k__fill_sites(dev, r);
}

/* With shared args and several ranks, each rank gets a copy of args in
   which a window tensor's handle names that rank's own copy. */
PTO_K_FN int pto_k__rank_args(pto_k_device *dev, const pto_k_launch_desc *ld, int nr)
{
    int r, i, g;
    free(dev->rargs);
    dev->rargs = NULL;
    if (nr <= 1 || ld->rank_args || !ld->args || ld->nargs <= 0) return 1;
    dev->rargs = (int64_t *)malloc((size_t)nr * (size_t)ld->nargs * sizeof(int64_t));
    if (!dev->rargs) return 0;
    for (r = 0; r < nr; r++)
        for (i = 0; i < ld->nargs; i++) {
            int64_t v = ld->args[i];
            for (g = 0; g < dev->ngms; g++)
                if (dev->gms[g]->peers && pto_k_gm_arg(dev->gms[g]) == v && r < dev->gms[g]->npeers) {
                    v = pto_k_gm_arg(dev->gms[g]->peers[r]);
                    break;
                }
            dev->rargs[(size_t)r * (size_t)ld->nargs + (size_t)i] = v;
        }
    return 1;
}

PTO_K_FN const pto_k_report *pto_k_launch(pto_k_device *dev, const pto_k_launch_desc *ld)
{
    int nr = dev->desc.nranks, per, i, p;
    int64_t nb = ld && ld->block_num > 0 ? ld->block_num : 1, n;
    uint64_t z;
    pto_k__free_launch(dev);
    dev->ld = ld;
    dev->ninstr_all = 0;
    dev->max_instr = ld && ld->max_instr > 0 ? ld->max_instr : PTO_K_MAX_INSTR_DEFAULT;
    dev->stopped = 0;
    if (!ld || !ld->fn || ld->kind < PTO_K_KIND_VECTOR || ld->kind > PTO_K_KIND_MIX) {
        pto_k__err(dev, PTO_K_E_USAGE, "error: launch needs a kernel function and a kind vector/cube/mix");
        return &dev->rep;
    }
    per = ld->kind == PTO_K_KIND_MIX ? 3 : 1;
    n = (int64_t)nr * nb * per;
    if (n > PTO_K_MAX_CORES) {   /* refused: said in the user's terms (blocks), with the way out */
        pto_k__err(dev, PTO_K_E_USAGE, "error: kernel %s would launch %lld blocks (%s%s): more than the %d cores the "
                   "simulator runs in one launch; give it fewer blocks", ld->name ? ld->name : "?", (long long)nb,
                   per == 3 ? "3 cores per block of a mix kernel" : "a core per block", nr > 1 ? ", on every rank" : "",
                   PTO_K_MAX_CORES);
        return &dev->rep;
    }
    if ((double)n * PTO_K_NPIPE * (double)n * 8.0 * 4.0 > PTO_K_MAX_VC_BYTES) {
        pto_k__err(dev, PTO_K_E_USAGE, "error: kernel %s would launch %lld blocks (%lld cores): the race detector's "
                   "vector clocks would take %.0f MiB (they grow with the square of the cores), more than the %.0f MiB "
                   "the simulator allows (PTO_K_MAX_VC_BYTES); give it fewer blocks",
                   ld->name ? ld->name : "?", (long long)nb, (long long)n,
                   (double)n * PTO_K_NPIPE * (double)n * 32.0 / 1048576.0, PTO_K_MAX_VC_BYTES / 1048576.0);
        return &dev->rep;
    }
    dev->ncores = (int)n;
    dev->ngp = dev->ncores * 8;
    dev->cores = (pto_k_core *)calloc((size_t)n, sizeof *dev->cores);
    dev->nclusters = (int)(nr * nb);
    dev->clusters = (pto_k__cluster *)calloc((size_t)dev->nclusters, sizeof *dev->clusters);
    if (!dev->cores || !dev->clusters) {
        dev->ncores = 0;
        pto_k__err(dev, PTO_K_E_USAGE, "error: out of memory");
        return &dev->rep;
    }
    if (!pto_k__rank_args(dev, ld, nr)) {
        pto_k__err(dev, PTO_K_E_USAGE, "error: out of memory");
        return &dev->rep;
    }
    for (i = 0; i < dev->ncores; i++) {
        pto_k_core *c = &dev->cores[i];
        int role = i % per;
        c->dev = dev;
        c->index = i;
        c->rank = (int)(i / (per * nb));
        c->block = (i / per) % nb;
        c->block_num = nb;
        c->cluster = (int)(i / per);
        c->kind = ld->kind == PTO_K_KIND_CUBE || (per == 3 && role == 0) ? PTO_K_CORE_CUBE : PTO_K_CORE_VECTOR;
        c->subblock = per == 3 && role > 0 ? role - 1 : 0;
        c->args = ld->rank_args ? ld->rank_args[c->rank] : dev->rargs ? dev->rargs + (size_t)c->rank * (size_t)ld->nargs : ld->args;
        for (p = 0; p < PTO_K_NPIPE; p++) c->vc[p] = pto_k__vc_new(dev);
    }
    if (dev->oom) {
        pto_k__err(dev, PTO_K_E_USAGE, "error: out of memory");
        return &dev->rep;
    }
    /* splitmix64 of the seed: a seed always gives the same schedule */
    z = dev->desc.seed + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    dev->rng = (z ^ (z >> 31)) | 1u;
    pthread_mutex_lock(&dev->mu);
    dev->ndone = 0;
    dev->running = -1;
    pto_k__pick(dev);
    while (dev->ndone < dev->ncores) pthread_cond_wait(&dev->cv, &dev->mu);
    pthread_mutex_unlock(&dev->mu);
    if (!dev->stopped) pto_k__launch_end(dev);   /* a stopped launch: only its budget report */
    if (dev->oom) pto_k__err(dev, PTO_K_E_USAGE, "error: the simulator ran out of memory; results are incomplete");
    pto_k__fill_report(dev);
    pto_k__write_trace(dev);
    return &dev->rep;
}

PTO_K_FN void pto_k_report_print(const pto_k_report *r, FILE *out)
{
    int i, p, nc;
    static const char *const kinds[] = {"aiv", "aic"};
    for (i = 0; i < r->nerrors; i++) fprintf(out, "%s\n", r->errors[i].msg);
    if (r->suppressed) fprintf(out, "(%d repeated or further errors not shown)\n", r->suppressed);
    fprintf(out, "%d error(s); %d core(s), %lld instruction%s\n", r->nerrors, r->ncores, (long long)r->ninstr,
            r->ninstr == 1 ? "" : "s");
    fprintf(out, "cycles: makespan %lld, bound %lld (busiest pipe), efficiency %.1f%%, serial sum %lld\n",
            (long long)r->makespan, (long long)r->bound, 100.0 * r->efficiency, (long long)r->serial);
    if (r->skipped)
        fprintf(out, "(%lld instruction%s not run for the errors above: the cycles leave out their work)\n",
                (long long)r->skipped, r->skipped == 1 ? "" : "s");
    nc = r->ncores < 16 ? r->ncores : 16;
    for (i = 0; i < nc; i++) {
        const pto_k_core_report *c = &r->cores[i];
        fprintf(out, "  rank %d block %lld %s%s: end %lld, busy", c->rank, (long long)c->block, kinds[c->kind & 1],
                c->kind == PTO_K_CORE_VECTOR ? (c->subblock ? "1" : "0") : "", (long long)c->end);
        for (p = 0; p < PTO_K_PIPE_ALL; p++)
            if (c->busy[p]) fprintf(out, " %s %lld", pto_k__pipe_name(p), (long long)c->busy[p]);
        fprintf(out, "\n");
    }
    if (nc < r->ncores) fprintf(out, "  ... %d more cores\n", r->ncores - nc);
}

PTO_K_FN const char *pto_k_report_find(const pto_k_report *r, int kind, const char *needle)
{
    int i;
    for (i = 0; i < r->nerrors; i++)
        if ((kind == 0 || r->errors[i].kind == kind) && (!needle || strstr(r->errors[i].msg, needle)))
            return r->errors[i].msg;
    return NULL;
}
