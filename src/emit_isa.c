/* emit_isa.c - the second emission target: a planned, synchronised module ->
   C++ against the Ascend pto-isa tile API, for real devices.

   Needs: what emit.c needs (a verified, stamped module, every local tile planned,
   flags and barriers in place). It reads the module and never changes it.

   Guarantees: one C++ source, byte-identical for identical input, that
   says the same thing as emit.c's kernel source in the vocabulary of the
   device headers (docs/isa-target.md has the mapping table and the sources
   of the API facts):
   - one `extern "C" __global__ AICORE void kernel_NAME(__gm__ int64_t *args)`
     per kernel: the runtime ABI of hardware.md section 7 (tensor
     descriptors first, then scalars as raw 64-bit values, an i32 / i8 one
     read from the slot's low bits; the block index and count, and an AIV's
     lane, from the runtime's per-dispatch context: PTO_ISA_BLOCK_IDX(args)
     and friends, never the CCE intrinsics get_block_idx() / get_subblockid(),
     which read core registers simpler's runtime does not program: physical
     ids, and 0 on both AIVs). Built with -DPTO_ISA_KERNEL=K, only kernel K
     (its index in the file) is compiled, named kernel_entry, as that runtime
     loads one kernel per object; a cube kernel is compiled only where
     __DAV_VEC__ is not defined and a vector kernel where __DAV_CUBE__ is not,
     so one file builds for either core type;
   - every tile declared where the .pto declares it, as a pto::Tile of its
     space, and bound to its planned offset with pto::TASSIGN (an xN tile's
     slot computed from the loop index, as in the simulator target); valid
     regions are template arguments when constant, pto::DYNAMIC plus a
     constructor argument when computed at run time;
   - one pto-isa call per instruction, with a comment "FILE:LINE: TEXT"
     naming the .pto statement; a GM window is a pto::GlobalTensor view
     declared on the line before the TLOAD / TSTORE that uses it;
   - set_flag / wait_flag / pipe_barrier with the comment of the pass that
     put them there; for / if / let as written; a mix kernel's sections
     under #if defined(__DAV_CUBE__) / __DAV_VEC__ (each core type is
     compiled on its own), with its pipes declared at the top.
   The statement walk, expressions, names, notes and slot offsets are
   emit.c's (this file is later in the same translation unit and plugs its
   spellings in through the emitter's hooks). An op or operand this target
   cannot express yet is an error with the statement's location, never
   silently different code.

   Cube/vector pipes (a2a3): a kernel with pipes takes the hidden GM pipe
   buffer after its tensors, as in the simulator target, and shards it by
   block (the logical block index x the kernel's per-block pipe bytes); each section
   declares one pto::TPipe per pipe of the kernel, and tpush / tpop / tfree
   become TPUSH / TPOP / TFREE (see "cube/vector pipes" below). On an AIV
   a split pipe's TPipe gets an entry offset of PTO_ISA_PIPE_LANE(args) x
   the half's step: pto-isa picks the half with get_subblockid(), 0 on both
   AIVs under simpler's runtime (pto__isa_pipe_lane). A file with pipes
   checks at compile time that pto-isa's TPipe reads its 5th and 6th
   arguments as LocalSlotNum, IsNoSplit (pto__isa_tpipe_text). Pipes the
   device protocol cannot carry (a V2C ring without a split, a5) are
   refused.

   The one thing the target adds: the row reductions (TROWSUM, TROWMAX,
   TROWMIN) take a scratch tile in the C++ API. The planner does not
   reserve one yet, so each kernel gets one vec scratch area right above
   its planned vec peak (sized for its largest reduced tile, an error if the
   space is full), and a pipe_barrier(PIPE_V) orders every row reduction
   after the V work before it (the scratch is shared), unless a V barrier
   is already the statement just before. TCOLSUM takes a tmp tile too:
   it gets a [1, C] tile at the same place, and isBinary = false, the
   sequential sum (the interpreter's order), which never touches tmp, so it
   needs no barrier.

   Padding: tload zeroes a tile outside its valid region, pto-isa's TLOAD
   does not. Where an op reads that padding, pto_lower_for(..., ISA) has put
   a tfillpad after the tload, which the sync pass ordered like any op; it
   becomes TFILLPAD_INPLACE (vec, through a whole-tile view with pad value
   Zero) or TFILLPAD (mat): see pto__isa_fillpad. A module lowered without
   those fills, and a [R, 1] column whose padding is read (pto-isa pads
   rows), are refused at the tload.

   Element types: on a2a3 each vector op takes the dtypes pto-isa's a2a3
   headers take (pto__isa_dtypes, one table: f16 / f32, and i32 for the
   integer ones); any other is refused at the op, naming the op, the dtype
   and what it takes.

   Valid regions (docs/isa-target.md, "Checked against pto-isa's headers"):
   a few pto-isa instructions read the valid regions of their operands
   differently from the .pto ops: the row reductions reduce their source's
   valid rows, TMOV vec -> vec copies the smaller region, and the row and
   column broadcasts pick their tile operand as the one whose region is the
   result's. Where the regions may differ the emitter passes views of the
   same bytes with the region the .pto op means (pto_rows_N, pto_full_N;
   pto__isa_mm_views) or refuses the op. It also refuses a column tile's GM
   window in a tensor of several columns (a2a3 moves a DN column as one
   contiguous run) and, in a kernel with a row broadcast, vec bytes at or
   above TMP_UB_OFFSET, the hidden scratch of a2a3's TROWEXPAND* (which the
   planner keeps free for this target). */

typedef struct pto__isa {
    pto__emitter e;          /* first member: the hooks get &I->e */
    int64_t scratch_off;     /* vec byte offset of the row-reduction scratch */
    int32_t ngm;             /* GM views named so far in this kernel */
    int32_t kernel;          /* the kernel being written */
    uint8_t *mm_view;        /* per tile: the views of its bytes it needs (pto__isa_mm_views) */
} pto__isa;

/* Names the device headers, the CCE compiler or the runtime own (sorted). A
   .pto name equal to one, or starting with PIPE_, EVENT_ID, PTO_ISA_ (the
   file's macros) or __, becomes user_NAME. */
static const char *const pto__isa_reserved[] = {
    "AICORE", "TensorData", "bfloat16_t", "event_t", "get_block_idx", "get_block_num", "get_subblockid",
    "half", "kernel_entry", "pipe_barrier", "pipe_t", "set_flag", "std", "wait_flag"};

static const char *const pto__isa_ctype[PTO_NDTYPE] = {"void", "float", "half", "bfloat16_t", "int32_t", "int8_t"};

static int pto__isa_is_reserved(const char *s)
{
    size_t i;
    if (strncmp(s, "PIPE_", 5) == 0 || strncmp(s, "EVENT_ID", 8) == 0 || strncmp(s, "PTO_ISA_", 8) == 0 ||
        strncmp(s, "__", 2) == 0)
        return 1;
    for (i = 0; i < sizeof pto__isa_reserved / sizeof pto__isa_reserved[0]; i++)
        if (strcmp(s, pto__isa_reserved[i]) == 0) return 1;
    return 0;
}

/* Renames, on top of emit.c's C renaming, the names the device API owns. */
static pto_status pto__isa_rename(pto__emitter *E, char **names, uint8_t *owned, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; i++) {
        size_t len;
        char *c;
        if (!pto__isa_is_reserved(names[i])) continue;
        len = strlen(names[i]);
        c = (char *)pto_alloc(E->ctx, len + 6);
        if (!c) return PTO_ERR_INTERNAL;
        memcpy(c, "user_", 5);
        memcpy(c + 5, names[i], len + 1);
        if (owned[i]) pto_free(E->ctx, names[i]);
        names[i] = c;
        owned[i] = 1;
    }
    return PTO_OK;
}

static void pto__isa_ind(pto__emitter *E) { pto__emit_put(E->out, E->val[PTO__K_IND], E->vlen[PTO__K_IND]); }

/* A valid extent: its constant, or -1 when it is computed at run time. */
static int64_t pto__isa_static_valid(const pto_module *m, int32_t ex, int32_t full)
{
    if (ex < 0) return full;
    if (m->exprs[ex].kind == PTO_E_INT) return m->exprs[ex].value;
    return -1;
}

static void pto__isa_dim(pto_buf *b, int64_t v)
{
    if (v < 0) pto__emit_puts(b, "pto::DYNAMIC");
    else pto__emit_put_i64(b, v);
}

/* The C++ type of a tile. full: the valid region is the whole tile (the
   scratch tiles). Vec tiles are row major, except a column [R, 1] (the
   result of a row reduction), which the API wants column major (DN);
   mat tiles are NZ (column-major boxes of row-major 512-byte fractals), the
   layout TMOV / TEXTRACT feed the cube from; left, right and acc use the
   API's own aliases, whose layout follows the arch. */
/* full: 0 the tile's valid region, 1 the whole tile, 2 all rows and the valid cols,
   3 the whole vec tile with pad value Zero (TFILLPAD's dst) */
static void pto__isa_tile_type(pto__emitter *E, pto_buf *b, const pto_tile *t, int full)
{
    const pto_module *m = E->m;
    int64_t vr = full ? t->rows : pto__isa_static_valid(m, t->valid_r, t->rows);
    int64_t vc = full == 1 || full == 3 ? t->cols : pto__isa_static_valid(m, t->valid_c, t->cols);
    const char *ct = pto__isa_ctype[t->dtype < PTO_NDTYPE ? t->dtype : 0];
    switch (t->space) {
    case PTO_LEFT: case PTO_RIGHT: case PTO_ACC:
        pto__emit_puts(b, t->space == PTO_LEFT ? "pto::TileLeft<" : t->space == PTO_RIGHT ? "pto::TileRight<"
                                                                                         : "pto::TileAcc<");
        pto__emit_puts(b, ct);
        break;
    default:
        pto__emit_puts(b, t->space == PTO_MAT ? "pto::Tile<pto::TileType::Mat, " : "pto::Tile<pto::TileType::Vec, ");
        pto__emit_puts(b, ct);
        break;
    }
    pto__emit_put(b, ", ", 2);
    pto__emit_put_i64(b, t->rows);
    pto__emit_put(b, ", ", 2);
    pto__emit_put_i64(b, t->cols);
    if (t->space == PTO_VEC || t->space == PTO_MAT) {
        int colmajor = t->space == PTO_MAT || (t->cols == 1 && t->rows > 1);
        pto__emit_puts(b, colmajor ? ", pto::BLayout::ColMajor" : ", pto::BLayout::RowMajor");
    }
    pto__emit_put(b, ", ", 2);
    pto__isa_dim(b, vr);
    pto__emit_put(b, ", ", 2);
    pto__isa_dim(b, vc);
    if (t->space == PTO_MAT) pto__emit_puts(b, ", pto::SLayout::RowMajor, 512");
    if (full == 3) pto__emit_puts(b, ", pto::SLayout::NoneBox, 512, pto::PadValue::Zero");
    pto__emit_put(b, ">", 1);
}

/* ---- tiles ----------------------------------------------------------------- */

/* Another view of tile ti's bytes (pto_whole_N, pto_pad_N, pto_mm_N): its
   declaration up to where constructor arguments would go (type `full` as
   pto__isa_tile_type takes it), then the end of the declaration and its
   TASSIGN to the tile's planned offset, opening the comment the caller ends. */
static void pto__isa_view_decl(pto__emitter *E, pto_buf *b, const pto_tile *t, int full, const char *prefix,
                               int32_t ti)
{
    pto__isa_ind(E);
    pto__isa_tile_type(E, b, t, full);
    pto_buf_printf(b, " %s_%ld", prefix, (long)ti);
}

static void pto__isa_view_assign(pto__emitter *E, pto_buf *b, const char *prefix, int32_t ti)
{
    pto__emit_puts(b, ";\n");
    pto__isa_ind(E);
    pto_buf_printf(b, "pto::TASSIGN(%s_%ld, ", prefix, (long)ti);
    pto__emit_put(b, E->val[PTO__K_OFF], E->vlen[PTO__K_OFF]);
    pto__emit_puts(b, "); /* ");
}

/* A view of tile ti's bytes with all its rows valid and its own valid
   columns (run-time ones as a constructor argument), then the comment
   saying why: "'t' with all R rows valid: WHY". */
static void pto__isa_rows_view(pto__emitter *E, pto_buf *b, const pto_tile *t, int32_t ti, int dyn_c,
                               const char *prefix, const char *why)
{
    pto__isa_view_decl(E, b, t, 2, prefix, ti);
    if (dyn_c) {
        pto__emit_puts(b, "(static_cast<unsigned>(");
        pto__emit_expr(E, b, t->valid_c, PTO__EX_KERNEL, 0);
        pto__emit_puts(b, "))");
    }
    pto__isa_view_assign(E, b, prefix, ti);
    pto_buf_printf(b, "'%s' with all %lld rows valid: %s */\n", pto_str(E->ctx, t->name), (long long)t->rows, why);
}

/* The rows of the first row reduction's result that is taller than tile
   ti, its source (`trowsum one, cs`: one [8, 1] valid(1, 1), cs [1, C]), or 0. */
static int pto__isa_red_tiles(const pto_module *m, int32_t s, int cls, const pto_tile **d, const pto_tile **a);

static int32_t pto__isa_tall_rows(const pto_module *m, int32_t ti)
{
    int32_t s;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_tile *d, *a;
        if (pto__isa_red_tiles(m, s, PTO_OC_ROWRED, &d, &a) && a == &m->tiles[ti] && d->rows > a->rows) return d->rows;
    }
    return 0;
}

/* pto_tall_N: tile ti's bytes as a tile of its result's rows, its own valid
   region, for a row reduction into a taller column. pto-isa's NPU
   TROWSUM / TROWMAX / TROWMIN take any static rows and reduce the source's
   valid rows, which must be the result's (TRowReduceCheck), but the CPU
   backend static_asserts equal Rows, and a [1, 1] column cannot be a vec
   tile (32-byte rows): so the source is given the result's Rows. Rows past
   ti's own are never read: the verifier holds both valid rows equal. */
static void pto__isa_tall_view(pto__emitter *E, pto_buf *b, const pto_tile *t, int32_t ti)
{
    const pto_module *m = E->m;
    int64_t vr = pto__isa_static_valid(m, t->valid_r, t->rows), vc = pto__isa_static_valid(m, t->valid_c, t->cols);
    pto__isa_ind(E);
    pto_buf_printf(b, "pto::Tile<pto::TileType::Vec, %s, %ld, %ld, pto::BLayout::RowMajor, ",
                   pto__isa_ctype[t->dtype < PTO_NDTYPE ? t->dtype : 0], (long)pto__isa_tall_rows(m, ti),
                   (long)t->cols);
    pto__isa_dim(b, vr);
    pto__emit_put(b, ", ", 2);
    pto__isa_dim(b, vc);
    pto_buf_printf(b, "> pto_tall_%ld", (long)ti);
    if (vr < 0 || vc < 0) {
        pto__emit_put(b, "(", 1);
        if (vr < 0) {
            pto__emit_puts(b, "static_cast<unsigned>(");
            pto__emit_expr(E, b, t->valid_r, PTO__EX_KERNEL, 0);
            pto__emit_put(b, ")", 1);
        }
        if (vc < 0) {
            pto__emit_puts(b, vr < 0 ? ", static_cast<unsigned>(" : "static_cast<unsigned>(");
            pto__emit_expr(E, b, t->valid_c, PTO__EX_KERNEL, 0);
            pto__emit_put(b, ")", 1);
        }
        pto__emit_put(b, ")", 1);
    }
    pto__isa_view_assign(E, b, "pto_tall", ti);
    pto_buf_printf(b, "'%s' with the rows of the column it is row-reduced into: pto-isa's CPU backend wants equal "
                   "Rows, and only the valid rows are read */\n", pto_str(E->ctx, t->name));
}

static void pto__isa_tile(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    int32_t ti = m->stmts[s].ref;
    const pto_tile *t = &m->tiles[ti];
    pto_buf *b = E->out;
    int dyn_r, dyn_c;
    if (!pto__emit_offset(E, s)) return;   /* may emit a pto_slots_N line */
    dyn_r = pto__isa_static_valid(m, t->valid_r, t->rows) < 0;
    dyn_c = pto__isa_static_valid(m, t->valid_c, t->cols) < 0;
    pto__isa_ind(E);
    pto__isa_tile_type(E, b, t, 0);
    pto__emit_put(b, " ", 1);
    pto__emit_puts(b, E->tile_name[ti]);
    if (dyn_r || dyn_c) {
        pto__emit_put(b, "(", 1);
        if (dyn_r) {
            pto__emit_puts(b, "static_cast<unsigned>(");
            pto__emit_expr(E, b, t->valid_r, PTO__EX_KERNEL, 0);
            pto__emit_put(b, ")", 1);
        }
        if (dyn_c) {
            pto__emit_puts(b, dyn_r ? ", static_cast<unsigned>(" : "static_cast<unsigned>(");
            pto__emit_expr(E, b, t->valid_c, PTO__EX_KERNEL, 0);
            pto__emit_put(b, ")", 1);
        }
        pto__emit_put(b, ")", 1);
    }
    if (E->tile_popped && E->tile_popped[ti]) {   /* TPOP binds it to a local slot of its pipe */
        pto_buf_printf(b, "; /* %s, a local slot of pipe '%s': each TPOP binds it */\n",
                       pto_space_name((pto_space)t->space),
                       pto_str(E->ctx, m->cvpipes[pto__emit_popped_from(m, ti)].name));
        return;
    }
    pto__emit_puts(b, ";\n");
    pto__isa_ind(E);
    pto__emit_puts(b, "pto::TASSIGN(");
    pto__emit_puts(b, E->tile_name[ti]);
    pto__emit_put(b, ", ", 2);
    pto__emit_put(b, E->val[PTO__K_OFF], E->vlen[PTO__K_OFF]);
    pto_buf_printf(b, "); /* %s, planned */\n", pto_space_name((pto_space)t->space));
    if (((pto__isa *)E)->mm_view && (((pto__isa *)E)->mm_view[ti] & 2)) {
        /* the whole tile, for TPUSH (pto__isa_mm_views) */
        pto__isa_view_decl(E, b, t, 1, "pto_whole", ti);
        pto__isa_view_assign(E, b, "pto_whole", ti);
        pto_buf_printf(b, "'%s' whole: TPUSH moves whole tiles, whatever the valid region */\n",
                       pto_str(E->ctx, t->name));
    }
    if (((pto__isa *)E)->mm_view && (((pto__isa *)E)->mm_view[ti] & 4)) {
        /* the whole tile with pad value Zero, TFILLPAD_INPLACE's dst (pto__isa_fillpad) */
        pto__isa_view_decl(E, b, t, 3, "pto_pad", ti);
        pto__isa_view_assign(E, b, "pto_pad", ti);
        pto_buf_printf(b, "'%s' whole, pad value zero: TFILLPAD_INPLACE zeroes what its TLOAD leaves "
                       "outside the valid region */\n", pto_str(E->ctx, t->name));
    }
    if (((pto__isa *)E)->mm_view && (((pto__isa *)E)->mm_view[ti] & 8)) {
        /* all rows and the valid columns, the source of a row reduction (pto__isa_mm_views) */
        pto__isa_rows_view(E, b, t, ti, dyn_c, "pto_rows",
                           "pto-isa's row reductions reduce their source's valid rows, a row reduction reduces its "
                           "result's");
    }
    if (((pto__isa *)E)->mm_view && (((pto__isa *)E)->mm_view[ti] & 32)) pto__isa_tall_view(E, b, t, ti);
    if (((pto__isa *)E)->mm_view && (((pto__isa *)E)->mm_view[ti] & 16)) {
        /* the whole tile valid: dst or src0 of a broadcast whose other one is whole (pto__isa_mm_views) */
        pto__isa_view_decl(E, b, t, 1, "pto_full", ti);
        pto__isa_view_assign(E, b, "pto_full", ti);
        pto_buf_printf(b, "'%s' whole: pto-isa's TROWEXPAND* / TCOLEXPAND* take the operand whose valid region "
                       "is the result's as the tile, the other as the broadcast one (pto__isa_mm_views) */\n",
                       pto_str(E->ctx, t->name));
    }
    if (((pto__isa *)E)->mm_view && (((pto__isa *)E)->mm_view[ti] & 1)) {
        /* the same bytes with all rows valid, for TMATMUL (pto__isa_mm_views) */
        pto__isa_rows_view(E, b, t, ti, dyn_c, "pto_mm",
                           "TMATMUL's m is the left tile's valid rows, and mad writes the accumulator with "
                           "ceil16(m) rows per 16-column block, which must be the acc's rows");
    }
}

/* mad (under TMATMUL / TMATMUL_ACC) has no destination stride: it writes the
   accumulator as ceil16(m) rows per 16-column block, m = the left tile's
   valid rows, while the acc tile is laid out with its Rows per block
   (pto-isa TMatmul.hpp, MadAccStrideCompatible: recent trees refuse an acc
   of more than 16 cols whose ValidRow is DYNAMIC or rounds up below Rows).
   So when the acc has more than 16 cols, a left or acc tile whose valid
   rows are not a constant rounding up to its rows is given to TMATMUL as a
   view of all its rows: m = the acc's rows. Rows past the valid ones are
   computed from whatever the left tile holds there; each row of c depends
   only on the same row of a, and the acc's valid region still decides what
   a TSTORE writes. Marks those tiles in I->mm_view (bit 1).
   A tpush reads the whole tile (docs/pto-format.md), and pto-isa's TPUSH
   takes a tile of exactly the slot's part with full valid regions: a pushed
   tile with a valid region is pushed through a whole-tile view pto_whole_N
   (bit 2).
   A row reduction reduces d's valid rows over a's valid columns (the
   interpreter, docs/pto-format.md), while pto-isa's TROWSUM / TROWMAX /
   TROWMIN reduce the SOURCE's valid rows (a2a3 TRowSum.hpp and the CPU
   backend: validRow = src.GetValidRow(); TRowReduceCheck asserts it equals
   dst's). When d has all its rows valid and a's valid rows may be fewer (a
   row tail: pad_rows.pto), a is passed as pto_rows_N, a view of its bytes
   with all rows and a's valid columns (bit 8); lower's fill has zeroed the
   rows past a's valid ones, as tload does. Other mismatches are refused
   (pto__isa_check).
   A row broadcast d = a op v computes over d's valid region, reading a at
   the same places (its padding where d's region is larger), and so does
   pto-isa's TROWEXPANDADD..DIV, but it tells the tile operand from the
   column by their valid regions at run time (a2a3 TRowExpandAdd.hpp:
   src0 is the tile when its valid region is dst's, else src1 is): given an
   a whose region is smaller than d's it would take v as the tile and a as
   the column. TCOLEXPANDADD..DIV decide the same way (a2a3
   TColExpandBinOp.hpp, TCOLEXPANDOP_IMPL). So when the two regions may
   differ, the one of them that is the whole tile is given to the other as
   well, through pto_full_N, a view of all of the other's bytes (bit 16):
   - d whole, a not (a row tail broadcast into a whole tile): a as
     pto_full_N, whose padding lower's fill has zeroed, as tload does;
   - a whole, d not (push_tail.pto: a popped tile into a row-tail result):
     d as pto_full_N. The op then also computes d's padding (from a's rows
     there and whatever the broadcast operand holds past its valid rows),
     bytes of d that no op reads as data: what d holds outside its valid
     region is not defined unless a tload put it there, and a tload
     replaces all of it.
   TMOV vec -> vec copies the smaller of the two regions (a2a3 TMovToVec),
   a tmov d's region reading a's padding: when a's region may not cover
   d's and d is whole, a is given as pto_full_N too (pto__isa_full_view_of).
   Two partial regions that may differ are refused (pto__isa_check). */
static int pto__isa_rows_same(const pto_module *m, const pto_tile *d, const pto_tile *a)
{
    int64_t vd = pto__isa_static_valid(m, d->valid_r, d->rows), va = pto__isa_static_valid(m, a->valid_r, a->rows);
    if (vd >= 0 || va >= 0) return vd == va;
    return pto__expr_same(m, d->valid_r, a->valid_r);
}

/* The tiles d (operand 0) and a (operand 1) of s, a reduction of class cls (PTO_OC_ROWRED or
   PTO_OC_COLRED), or 0. */
static int pto__isa_red_tiles(const pto_module *m, int32_t s, int cls, const pto_tile **d, const pto_tile **a)
{
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o;
    if (st->block < 0 || st->kind != PTO_ST_OP || (int)pto_opinfo_get((pto_op)st->op)->cls != cls || st->nargs != 2)
        return 0;
    o = &m->operands[st->arg0];
    if (o[0].kind != PTO_O_TILE || o[1].kind != PTO_O_TILE || o[0].ref < 0 || o[0].ref >= m->n_tiles ||
        o[1].ref < 0 || o[1].ref >= m->n_tiles)
        return 0;
    *d = &m->tiles[o[0].ref];
    *a = &m->tiles[o[1].ref];
    return 1;
}

/* pto-isa's name of reduction op (TROWSUM .. TCOLMIN), for the errors that quote it. */
static const char *pto__isa_red_api(int op)
{
    switch (op) {
    case PTO_OP_TROWSUM: return "TROWSUM";
    case PTO_OP_TROWMAX: return "TROWMAX";
    case PTO_OP_TROWMIN: return "TROWMIN";
    case PTO_OP_TCOLSUM: return "TCOLSUM";
    case PTO_OP_TCOLMAX: return "TCOLMAX";
    default: return "TCOLMIN";
    }
}

static int pto__isa_cols_same(const pto_module *m, const pto_tile *d, const pto_tile *a)
{
    int64_t vd = pto__isa_static_valid(m, d->valid_c, d->cols), va = pto__isa_static_valid(m, a->valid_c, a->cols);
    if (vd >= 0 || va >= 0) return vd == va;
    return pto__expr_same(m, d->valid_c, a->valid_c);
}

static int pto__isa_region_same(const pto_module *m, const pto_tile *d, const pto_tile *a)
{
    return pto__isa_rows_same(m, d, a) && pto__isa_cols_same(m, d, a);
}

static int pto__isa_valid_full(const pto_module *m, const pto_tile *t);

/* The tiles d (operand 0) and a (operand 1) of row or column broadcast s,
   or of a tmov vec -> vec (tmov 1), or 0. */
static int pto__isa_expand_tiles(const pto_module *m, int32_t s, const pto_tile **d, const pto_tile **a, int *tmov)
{
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o;
    int cls = st->kind == PTO_ST_OP ? (int)pto_opinfo_get((pto_op)st->op)->cls : -1;
    if (st->block < 0 || (!((cls == PTO_OC_ROWEXP || cls == PTO_OC_COLEXP) && st->nargs == 3) &&
                          !(cls == PTO_OC_MOV && st->nargs == 2)))
        return 0;
    o = &m->operands[st->arg0];
    if (o[0].kind != PTO_O_TILE || o[1].kind != PTO_O_TILE || o[0].ref < 0 || o[0].ref >= m->n_tiles ||
        o[1].ref < 0 || o[1].ref >= m->n_tiles)
        return 0;
    *d = &m->tiles[o[0].ref];
    *a = &m->tiles[o[1].ref];
    *tmov = cls == PTO_OC_MOV;
    return !*tmov || ((*d)->space == PTO_VEC && (*a)->space == PTO_VEC);
}

/* Whether a's valid extent ea (of na) covers d's ed (of nd) for certain. */
static int pto__isa_covers(const pto_module *m, int32_t ed, int64_t nd, int32_t ea, int64_t na)
{
    int64_t vd = pto__isa_static_valid(m, ed, nd), va = pto__isa_static_valid(m, ea, na);
    if (va == na) return 1;
    if (vd >= 0 && va >= 0) return va >= vd;
    return vd < 0 && va < 0 && pto__expr_same(m, ed, ea);
}

/* Which operand of statement s is given as pto_full_N (pto__isa_mm_views):
   1 (a), 0 (d), -1 none, -2 the regions cannot be reconciled (refused). A
   broadcast needs a's valid region to be d's; TMOV vec -> vec copies the
   smaller of the two (a2a3 TMovToVec), which must cover d's. */
static int pto__isa_full_view_of(const pto_module *m, int32_t s)
{
    const pto_tile *d, *a;
    int tmov;
    if (!pto__isa_expand_tiles(m, s, &d, &a, &tmov)) return -1;
    if (tmov ? pto__isa_covers(m, d->valid_r, d->rows, a->valid_r, a->rows) &&
                   pto__isa_covers(m, d->valid_c, d->cols, a->valid_c, a->cols)
             : pto__isa_region_same(m, d, a))
        return -1;
    if (pto__isa_valid_full(m, d)) return 1;
    if (!tmov && pto__isa_valid_full(m, a)) return 0;
    return -2;
}

static int pto__isa_valid_full(const pto_module *m, const pto_tile *t)
{
    return pto__isa_static_valid(m, t->valid_r, t->rows) == t->rows &&
           pto__isa_static_valid(m, t->valid_c, t->cols) == t->cols;
}

static int pto__isa_rows_partial(const pto_module *m, const pto_tile *t)
{
    int64_t vr = pto__isa_static_valid(m, t->valid_r, t->rows);
    return vr < 0 || (vr + 15) / 16 * 16 != t->rows;
}

static pto_status pto__isa_mm_views(pto__isa *I)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    int32_t s;
    I->mm_view = (uint8_t *)pto_alloc(E->ctx, (size_t)(m->n_tiles ? m->n_tiles : 1));
    if (!I->mm_view) return PTO_ERR_INTERNAL;
    memset(I->mm_view, 0, (size_t)(m->n_tiles ? m->n_tiles : 1));
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int i;
        if (st->block < 0 || st->kind != PTO_ST_OP || (st->op != PTO_OP_TMATMUL && st->op != PTO_OP_TMATMUL_ACC) ||
            st->nargs != 3)
            continue;
        for (i = 0; i < 3; i++) {
            const pto_operand *o = &m->operands[st->arg0 + i];
            if (o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= m->n_tiles) break;
        }
        if (i < 3 || m->tiles[m->operands[st->arg0].ref].cols <= 16) continue;
        for (i = 0; i < 2; i++) {
            int32_t t = m->operands[st->arg0 + i].ref;
            if (pto__isa_rows_partial(m, &m->tiles[t])) I->mm_view[t] |= 1;
        }
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *o;
        if (st->block < 0 || st->kind != PTO_ST_OP || st->op != PTO_OP_TPUSH || st->nargs != 2) continue;
        o = &m->operands[st->arg0 + 1];
        if (o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= m->n_tiles) continue;
        if (!pto__isa_valid_full(m, &m->tiles[o->ref])) I->mm_view[o->ref] |= 2;
    }
    for (s = 0; s < m->n_stmts; s++) {   /* valid regions pto-isa reads otherwise than the op */
        const pto_tile *d, *a;
        int w = pto__isa_full_view_of(m, s);
        if (pto__isa_red_tiles(m, s, PTO_OC_ROWRED, &d, &a) && !pto__isa_rows_same(m, d, a))
            I->mm_view[m->operands[m->stmts[s].arg0 + 1].ref] |= 8;
        if (pto__isa_red_tiles(m, s, PTO_OC_ROWRED, &d, &a) && d->rows > a->rows)
            I->mm_view[m->operands[m->stmts[s].arg0 + 1].ref] |= 32;
        if (w >= 0) I->mm_view[m->operands[m->stmts[s].arg0 + w].ref] |= 16;
    }
    for (s = 0; s < m->n_stmts; s++) {   /* a vec tile lower gave a padding fill (pto__isa_fillpad) */
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *o;
        if (st->block < 0 || st->kind != PTO_ST_OP || st->op != PTO_OP_TFILLPAD || st->nargs != 1) continue;
        o = &m->operands[st->arg0];
        if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles && m->tiles[o->ref].space == PTO_VEC)
            I->mm_view[o->ref] |= 4;
    }
    return PTO_OK;
}

/* ---- cube/vector pipes ---------------------------------------------------------
   A pipe is one pto::TPipe object per section: every pipe of the kernel is
   declared at the top of both sections (the sim target's pto_k_ring_init
   does the same), so its constructor and destructor run on the AIC and on
   both AIVs; pto-isa's destructor drains the free-space credits a producer
   has not waited for, which is why the object lives in the section's scope.
   TPipe<FlagID, DirType, SlotSize, SlotNum, LocalSlotNum, IsNoSplit>:
   - FlagID: the pipe's first cross-core flag (pto_cvpipe.flag_id); a
     one-way pipe uses FlagID and FlagID + 1, a `both` pipe FlagID..+3;
   - DirType: Direction::DIR_C2V / DIR_V2C / DIR_BOTH;
   - SlotSize, SlotNum: the normalised slot bytes and count (the GM ring);
   - LocalSlotNum: the consumer's local copies; on an AIV of a split pipe
     see pto__isa_local_slots;
   - IsNoSplit: true when the pipe has no split (both AIVs pop the tile).
   The constructor takes the GM slot buffer (this block's part of the
   hidden pipe buffer plus the pipe's offset in it; a `both` pipe's V2C
   ring follows its C2V ring there, as in the simulator) and the local
   bases the planner reserved for the consumers (vec for C2V, mat for V2C).
   tpush / tpop / tfree become TPUSH / TPOP / TFREE<Pipe, Tile, Split>
   (TFREE<Pipe, Split>); see pto__isa_cvpipe_op. */

static const char *const pto__isa_split[] = {"pto::TileSplitAxis::TILE_NO_SPLIT", "pto::TileSplitAxis::TILE_UP_DOWN",
                                             "pto::TileSplitAxis::TILE_LEFT_RIGHT"};
static const char *const pto__isa_dir[] = {"pto::Direction::UNDEFINED", "pto::Direction::DIR_C2V",
                                           "pto::Direction::DIR_V2C", "pto::Direction::DIR_BOTH"};

/* The LocalSlotNum of pipe q in a section of the cube (cube) or vector core.
   The planner reserves local_slots x the popped tile: on an AIV of a split
   pipe half the slot. pto-isa's TPOP binds the popped tile to base + (pop
   index % LocalSlotNum) x a step that is the popped tile's bytes in older
   trees but SlotSize (the whole cube tile) in recent ones, which would put
   the second local slot past the reservation. On that AIV the TPipe gets
   (local_slots + 1) / 2 local slots, which fit in the reservation with
   either step. Nothing else depends on the count: a section holds at most
   one popped tile of a pipe at a time (the verifier's TPOP then TFREE rule)
   and the sync pass orders every tpop after the tfree of the pop before it
   over the whole reservation. */
static int32_t pto__isa_local_slots(const pto_cvpipe *q, int cube)
{
    if (!cube && q->split != PTO_SPLIT_NONE && (q->dir & PTO_C2V)) return (q->local_slot_num + 1) / 2;
    return q->local_slot_num;
}

/* The byte step between the two AIVs' parts of a slot of split pipe q, as
   pto-isa's a2a3 TPUSH / TPOP compute it from the AIV's tile (the half):
   up_down its bytes, R/2 x C elements; left_right one row of it, C/2. */
static int64_t pto__isa_lane_step(const pto_cvpipe *q)
{
    int64_t es = pto_dtype_size((pto_dtype)q->dtype);
    return q->split == PTO_SPLIT_UP_DOWN ? (int64_t)(q->rows / 2) * q->cols * es : (int64_t)(q->cols / 2) * es;
}

/* On an AIV, right after split pipe q's TPipe: pto-isa's TPUSH / TPOP find
   the AIV's part of a slot at get_subblockid() x the step, and simpler's
   runtime leaves that register 0 on both AIVs (pto's own lane is
   PTO_ISA_SUBBLOCK(args)), so both AIVs would use part 0 (review26b H2).
   The TPipe's producer and consumer add an entry offset to every slot
   address (both trees read: hw-native-sys 1d87336 and b361384); pto sets
   it to PTO_ISA_PIPE_LANE(args) x the step, the lane pto-isa misses
   (pto__isa_pipe_text), for the side the AIV uses: the consumer of a C2V
   ring, the producer of a V2C ring. */
static void pto__isa_pipe_lane(pto__isa *I, const pto_cvpipe *q, int ind)
{
    pto_buf *b = I->e.out;
    int64_t step = pto__isa_lane_step(q);
    int k;
    for (k = 0; k < 2; k++) {
        if (!(q->dir & (k == 0 ? PTO_C2V : PTO_V2C))) continue;
        pto_buf_printf(b, "%*spto_pipe_%d.%s.setEntryOffset(PTO_ISA_PIPE_LANE(args) * %lld); /* this AIV's part of "
                       "each slot (%s: %lld B per lane) for its %s, from pto's lane: pto-isa reads get_subblockid() */\n",
                       ind, "", (int)q->ring, k == 0 ? "cons" : "prod", (long long)step,
                       q->split == PTO_SPLIT_UP_DOWN ? "up_down" : "left_right", (long long)step,
                       k == 0 ? "TPOPs" : "TPUSHes");
    }
}

/* Whether the module has a split pipe (pto__isa_pipe_text after the head). */
static int pto__isa_needs_lane(const pto_module *m)
{
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++)
        if (m->cvpipes[i].split != PTO_SPLIT_NONE) return 1;
    return 0;
}

/* The TPipe declarations at the top of a cube (cube) or vector section. */
static void pto__isa_pipes(pto__isa *I, int cube)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    pto_buf *b = E->out;
    int ind = (E->depth + 1) * 4;
    int32_t i;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *q = &m->cvpipes[i];
        int64_t vb = pto_plan_pipe_base(m, i, PTO_VEC), mb = pto_plan_pipe_base(m, i, PTO_MAT);
        int32_t local = pto__isa_local_slots(q, cube);
        if (q->kernel != I->kernel) continue;
        pto_buf_printf(b, "%*s/* pipe %s (%s:%d): %s %s[%d, %d]%s, %d slots of %d B at +%lld of this block's pipe "
                       "buffer%s; cross-core flags %d..%d */\n", ind, "", pto_str(E->ctx, q->name), E->file,
                       (int)q->loc.line, q->dir == PTO_C2V ? "c2v" : q->dir == PTO_V2C ? "v2c" : "both",
                       pto_dtype_name((pto_dtype)q->dtype), (int)q->rows, (int)q->cols,
                       q->split == PTO_SPLIT_UP_DOWN ? " split(up_down)" : q->split == PTO_SPLIT_LEFT_RIGHT
                                                                              ? " split(left_right)" : "",
                       (int)q->slot_num, (int)q->slot_size, (long long)pto_cvpipe_gm_offset(m, i),
                       q->dir == PTO_BOTH ? " (C2V ring, then V2C ring)" : "", (int)q->flag_id,
                       (int)q->flag_id + (q->dir == PTO_BOTH ? 3 : 1));
        if (local != q->local_slot_num)
            pto_buf_printf(b, "%*s/* LocalSlotNum (local_slots(%d) + 1) / 2 = %d: the plan reserves %d x %d B of vec "
                           "(half a slot per pop) and recent pto-isa steps local slots by SlotSize (emit_isa.c, "
                           "pto__isa_local_slots) */\n", ind, "", (int)q->local_slot_num, (int)local,
                           (int)q->local_slot_num, (int)(q->slot_size / 2));
        pto_buf_printf(b, "%*susing pto_pipe_%d_t = pto::TPipe<%d, %s, %d, %d, %d, %s>;\n", ind, "", (int)q->ring,
                       (int)q->flag_id, pto__isa_dir[q->dir & 3], (int)q->slot_size, (int)q->slot_num, (int)local,
                       q->split == PTO_SPLIT_NONE ? "true" : "false");
        pto_buf_printf(b, "%*spto_pipe_%d_t pto_pipe_%d(pto_gm_pipe_buffer + %lld, %lld, %lld); /* GM slots; local "
                       "consumer bases: vec (C2V), mat (V2C), as planned */\n", ind, "", (int)q->ring, (int)q->ring,
                       (long long)pto_cvpipe_gm_offset(m, i), (long long)(vb > 0 ? vb : 0),
                       (long long)(mb > 0 ? mb : 0));
        if (!cube && q->split != PTO_SPLIT_NONE) pto__isa_pipe_lane(I, q, ind);
    }
}

/* tpush q, t -> TPUSH<Pipe, Tile, Split>(pipe, t): waits for a free slot
   (sparsely: pto-isa waits for free-space credits every SyncPeriod pushes),
   stores t into the slot (the acc through the fixpipe on the AIC, MTE3 from
   vec on an AIV, at its half of the slot on a split pipe) and records
   data-ready on that pipe. tpop t, q -> TPOP<Pipe, Tile, Split>(pipe, t):
   waits for data-ready, binds t to its local slot (TASSIGN inside TPOP:
   the declaration has none), loads the slot (MTE2) and notifies free space
   on MTE2, after the load. tfree q -> TFREE<Pipe, Split>(pipe): for tile
   pops pto-isa's a2a3 TFREE is empty (TPOP has already freed the GM slot,
   whose data is in the local copy by then); it is emitted for the API's
   pairing (on a5 it is the free). What our tfree also orders, the reuse of
   the local copy by the next TPOP, the sync pass's flags before the tfree
   still order on the device: the scalar unit waits there before it issues
   the next TPOP. The flags and barriers the sync pass put around these ops
   (M -> FIX before a cube push, MTE2 -> V after a pop, V -> S before a
   tfree, ...) are the ones the pipes of the inner calls need. */
static void pto__isa_cvpipe_op(pto__isa *I, int32_t s)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *q = &m->operands[st->arg0 + (st->op == PTO_OP_TPOP ? 1 : 0)];
    const pto_cvpipe *p = &m->cvpipes[q->ref];
    pto_buf *b = E->out;
    pto__isa_ind(E);
    if (st->op == PTO_OP_TFREE) {
        pto_buf_printf(b, "pto::TFREE<pto_pipe_%d_t, %s>(pto_pipe_%d); /* ", (int)p->ring,
                       pto__isa_split[p->split < 3 ? p->split : 0], (int)p->ring);
        pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
        pto__emit_puts(b, "; a2a3: TPOP freed the slot */\n");
        return;
    }
    {
        int32_t ti = m->operands[st->arg0 + (st->op == PTO_OP_TPOP ? 0 : 1)].ref;
        char whole[32];
        const char *t = E->tile_name[ti];
        if (st->op == PTO_OP_TPUSH && (I->mm_view[ti] & 2)) {
            snprintf(whole, sizeof whole, "pto_whole_%ld", (long)ti);
            t = whole;
        }
        pto_buf_printf(b, "pto::%s<pto_pipe_%d_t, decltype(%s), %s>(pto_pipe_%d, %s); /* ",
                       st->op == PTO_OP_TPUSH ? "TPUSH" : "TPOP", (int)p->ring, t,
                       pto__isa_split[p->split < 3 ? p->split : 0], (int)p->ring, t);
    }
    pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
    pto__emit_puts(b, " */\n");
}

/* ---- instructions ------------------------------------------------------------ */

/* "pto_gm_N" for the GM window operand o: declares, on its own line, the
   GlobalTensor view of the window with the shape of tile t (its valid
   region) and the row stride of the tensor. */
static int32_t pto__isa_view(pto__isa *I, const pto_operand *o, const pto_tile *t)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    const pto_param *pa = &m->params[o->ref];
    pto_buf *b = E->out;
    int64_t vr = pto__isa_static_valid(m, t->valid_r, t->rows);
    int64_t vc = pto__isa_static_valid(m, t->valid_c, t->cols);
    int dyn_stride = pa->dim_var[1] >= 0;
    int32_t id = I->ngm++;
    pto__isa_ind(E);
    pto__emit_puts(b, "pto::GlobalTensor<");
    pto__emit_puts(b, pto__isa_ctype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0]);
    pto__emit_puts(b, ", pto::Shape<1, 1, 1, ");
    pto__isa_dim(b, vr);
    pto__emit_put(b, ", ", 2);
    pto__isa_dim(b, vc);
    pto__emit_puts(b, ">, pto::Stride<1, 1, 1, ");
    pto__isa_dim(b, dyn_stride ? -1 : pa->dim[1]);
    pto_buf_printf(b, ", 1>> pto_gm_%ld(%s + ", (long)id, E->param_name[o->ref]);
    pto__emit_expr(E, b, o->e[0], PTO__EX_KERNEL, 2);
    pto__emit_puts(b, " * ");
    if (dyn_stride) pto__emit_puts(b, E->var_name[pa->dim_var[1]]);
    else pto__emit_put_i64(b, pa->dim[1]);
    pto__emit_puts(b, " + ");
    pto__emit_expr(E, b, o->e[1], PTO__EX_KERNEL, 2);
    if (vr < 0 || vc < 0 || dyn_stride) {
        pto__emit_puts(b, ", pto::Shape<1, 1, 1, ");
        pto__isa_dim(b, vr);
        pto__emit_put(b, ", ", 2);
        pto__isa_dim(b, vc);
        pto__emit_puts(b, ">(");
        if (vr < 0) pto__emit_expr(E, b, t->valid_r, PTO__EX_KERNEL, 0);
        if (vr < 0 && vc < 0) pto__emit_put(b, ", ", 2);
        if (vc < 0) pto__emit_expr(E, b, t->valid_c, PTO__EX_KERNEL, 0);
        pto__emit_puts(b, "), pto::Stride<1, 1, 1, ");
        pto__isa_dim(b, dyn_stride ? -1 : pa->dim[1]);
        pto__emit_puts(b, ", 1>(");
        if (dyn_stride) pto__emit_puts(b, E->var_name[pa->dim_var[1]]);
        pto__emit_put(b, ")", 1);
    }
    pto__emit_puts(b, ");\n");
    return id;
}

static void pto__isa_name(pto__emitter *E, pto_buf *b, const pto_operand *o)
{
    switch (o->kind) {
    case PTO_O_TILE: pto__emit_puts(b, E->tile_name[o->ref]); break;
    case PTO_O_FLOAT: pto__emit_float(E, b, o->f, PTO__EX_KERNEL); break;
    case PTO_O_SCALAR: pto__emit_puts(b, E->var_name[o->ref]); break;
    case PTO_O_INT: pto__emit_expr(E, b, o->e[0], PTO__EX_KERNEL, 0); break;
    case PTO_O_PIPE: pto__emit_puts(b, "PIPE_"); pto__emit_puts(b, pto_pipe_name((pto_pipe)o->ref)); break;
    default: pto__emit_puts(b, "0"); break;
    }
}

/* Is operand i of statement s an integer (an integer expression, an i32 /
   i8 scalar param: int64_t in the kernel) in the scalar position of an op
   whose destination tile is a float? pto-isa takes the scalar as the
   tile's DType, and an int64_t converts to half ambiguously (half has
   float and double constructors), so the emitter casts it to float first,
   as the interpreter converts a scalar (pto_scalar_as: through float to
   f16 / bf16): the same value for every integer below 2^53. */
static int pto__isa_int_scalar(const pto_module *m, int32_t s, int i)
{
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o = &m->operands[st->arg0 + i], *d = &m->operands[st->arg0];
    int dt;
    if (i >= 4 || !(pto_opinfo_get((pto_op)st->op)->arg[i] & PTO_A_SCALAR) || d->kind != PTO_O_TILE) return 0;
    dt = m->tiles[d->ref].dtype;
    if (!pto__dtype_float(dt)) return 0;
    if (o->kind == PTO_O_INT) return 1;
    if (o->kind != PTO_O_SCALAR || m->vars[o->ref].kind != PTO_V_SCALAR) return 0;
    dt = m->params[m->vars[o->ref].def].dtype;
    return dt == PTO_I32 || dt == PTO_I8;
}

/* The dtype (PTO_I32 / PTO_I8) to which operand i of statement s, a scalar
   of an op whose destination is an integer tile, must be saturated, or 0.
   The reference takes such a scalar as pto_scalar_as does: saturated to
   the element type (an f32 truncated toward zero, NaN as 0). pto-isa takes
   it as `typename TileData::DType scalar`, where C++'s own conversion
   wraps an int64_t and leaves a float out of range undefined; so a scalar
   param, or an integer expression that is not a constant in range, goes
   through pto_isa_sat_* (review15: `tadds a, a, s * 100` wrapped on the
   device and saturated in the reference), and so does a literal out of
   range. Literals in range, the common case, are written as they are. */
static int pto__isa_sat_dtype(const pto_module *m, int32_t s, int i)
{
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o, *d;
    const pto_expr *x;
    int dt;
    if (st->kind != PTO_ST_OP || i >= 4 || i >= st->nargs || !(pto_opinfo_get((pto_op)st->op)->arg[i] & PTO_A_SCALAR))
        return 0;
    o = &m->operands[st->arg0 + i];
    d = &m->operands[st->arg0];
    if (d->kind != PTO_O_TILE || d->ref < 0 || d->ref >= m->n_tiles) return 0;
    dt = m->tiles[d->ref].dtype;
    if (dt != PTO_I32 && dt != PTO_I8) return 0;
    if (o->kind == PTO_O_SCALAR) return dt;
    if (o->kind == PTO_O_FLOAT) return o->f >= pto_int_lo(dt) && o->f <= pto_int_hi(dt) ? 0 : dt;
    if (o->kind != PTO_O_INT || o->e[0] < 0) return 0;
    x = &m->exprs[o->e[0]];
    return x->kind == PTO_E_INT && x->value >= (int64_t)pto_int_lo(dt) && x->value <= (int64_t)pto_int_hi(dt) ? 0 : dt;
}

/* Whether operand o (a scalar) is a float in the kernel (a literal, a float scalar param: f16 and
   bf16 ones are read as float too). */
static int pto__isa_float_scalar(const pto_module *m, const pto_operand *o)
{
    if (o->kind == PTO_O_FLOAT) return 1;
    return o->kind == PTO_O_SCALAR && o->ref >= 0 && o->ref < m->n_vars && m->vars[o->ref].kind == PTO_V_SCALAR &&
           m->vars[o->ref].def >= 0 && pto__dtype_float(m->params[m->vars[o->ref].def].dtype);
}

/* Whether any statement needs the pto_isa_sat_* helpers. */
static int pto__isa_needs_sat(const pto_module *m)
{
    int32_t s;
    int i;
    for (s = 0; s < m->n_stmts; s++)
        for (i = 1; i < 4 && m->stmts[s].kind == PTO_ST_OP; i++)
            if (pto__isa_sat_dtype(m, s, i)) return 1;
    return 0;
}

/* An event id: EVENT_IDn when constant, else the rotating expression. */
static void pto__isa_event(pto__emitter *E, pto_buf *b, const pto_operand *o)
{
    const pto_expr *e = o->e[0] >= 0 ? &E->m->exprs[o->e[0]] : NULL;
    if (e && e->kind == PTO_E_INT && e->value >= 0 && e->value < 8) {
        pto_buf_printf(b, "EVENT_ID%d", (int)e->value);
        return;
    }
    pto__emit_puts(b, "static_cast<event_t>(");
    pto__emit_expr(E, b, o->e[0], PTO__EX_KERNEL, 0);
    pto__emit_put(b, ")", 1);
}

/* The upper-case API name of an op (tadd -> TADD). */
static void pto__isa_opname(pto_buf *b, pto_op op)
{
    const char *n = pto_opinfo_get(op)->name;
    for (; *n; n++) {
        char c = *n >= 'a' && *n <= 'z' ? (char)(*n - 'a' + 'A') : *n;
        pto__emit_put(b, &c, 1);
    }
}

/* Whether statement s comes right after a barrier that orders V. */
static int pto__isa_after_v_barrier(const pto_module *m, int32_t s)
{
    int32_t p = m->stmts[s].prev;
    const pto_operand *o;
    if (p < 0 || m->stmts[p].kind != PTO_ST_OP || m->stmts[p].op != PTO_OP_PIPE_BARRIER) return 0;
    o = pto_stmt_arg(m, p, 0);
    return o && (o->ref == PTO_PIPE_V || o->ref == PTO_PIPE_ALL);
}

/* The scratch tile of a row reduction over tile src: a tile of src's type
   at the kernel's scratch offset, ordered after earlier V work. */
static void pto__isa_scratch(pto__isa *I, int32_t s, const pto_tile *src)
{
    pto__emitter *E = &I->e;
    pto_buf *b = E->out;
    if (!pto__isa_after_v_barrier(E->m, s)) {
        pto__isa_ind(E);
        pto__emit_puts(b, "/* emit (isa): the row-reduction scratch tile is shared: order it after earlier V work */\n");
        pto__isa_ind(E);
        pto__emit_puts(b, "pipe_barrier(PIPE_V);\n");
    }
    pto__isa_ind(E);
    pto__isa_tile_type(E, b, src, 1);
    pto_buf_printf(b, " pto_tmp_%ld;\n", (long)s);
    pto__isa_ind(E);
    pto_buf_printf(b, "pto::TASSIGN(pto_tmp_%ld, %lld); /* vec scratch above the planned peak */\n", (long)s,
                   (long long)I->scratch_off);
}

/* TTRANS's tmp operand for source a ([R, C]): pto-isa's a2a3 TTRANS
   transposes a's valid region into tmp, whose row stride is the valid rows
   rounded up to 16 (32 for 1-byte types), for the valid cols rounded up to
   whole 32-byte blocks, then copies tmp into dst: a tile of a's dtype of
   [C up to 32 bytes, R up to 16 / 32] holds that at any valid region. */
static pto_tile pto__isa_trans_tmp(const pto_tile *a)
{
    pto_tile t = *a;
    int64_t es = pto_dtype_size((pto_dtype)a->dtype), blk = es > 0 && es <= 32 ? 32 / es : 8, y = es == 1 ? 32 : 16;
    t.rows = (int32_t)((a->cols + blk - 1) / blk * blk);
    t.cols = (int32_t)((a->rows + y - 1) / y * y);
    t.valid_r = t.valid_c = -1;
    t.space = PTO_VEC;
    return t;
}

/* TTRANS's tmp tile at the kernel's scratch offset, ordered after earlier
   V work (the scratch is shared, as the row reductions'). */
static void pto__isa_trans_scratch(pto__isa *I, int32_t s, const pto_tile *a)
{
    pto__emitter *E = &I->e;
    pto_buf *b = E->out;
    pto_tile t = pto__isa_trans_tmp(a);
    if (!pto__isa_after_v_barrier(E->m, s)) {
        pto__isa_ind(E);
        pto__emit_puts(b, "/* emit (isa): TTRANS's tmp tile is the shared scratch: order it after earlier V work */\n");
        pto__isa_ind(E);
        pto__emit_puts(b, "pipe_barrier(PIPE_V);\n");
    }
    pto__isa_ind(E);
    pto__isa_tile_type(E, b, &t, 1);
    pto_buf_printf(b, " pto_tmp_%ld;\n", (long)s);
    pto__isa_ind(E);
    pto_buf_printf(b, "pto::TASSIGN(pto_tmp_%ld, %lld); /* vec scratch above the planned peak */\n", (long)s,
                   (long long)I->scratch_off);
}

/* TCOLSUM's tmp operand: a tile of d's type ([1, C]) at the scratch offset.
   The sequential form (isBinary = false) never reads or writes it. */
static void pto__isa_colsum_tmp(pto__isa *I, int32_t s, const pto_tile *d)
{
    pto__emitter *E = &I->e;
    pto_buf *b = E->out;
    pto__isa_ind(E);
    pto__isa_tile_type(E, b, d, 1);
    pto_buf_printf(b, " pto_tmp_%ld;\n", (long)s);
    pto__isa_ind(E);
    pto_buf_printf(b, "pto::TASSIGN(pto_tmp_%ld, %lld); /* vec scratch above the planned peak; the sequential "
                   "TCOLSUM (isBinary = false) leaves it untouched */\n", (long)s, (long long)I->scratch_off);
}

/* tfillpad t (lower.c, for this target only): pto-isa's TLOAD moved t's
   valid region; TFILLPAD zeroes the rest. A vec tile: TFILLPAD_INPLACE from
   t into the whole-tile view pto_pad_N at t's bytes, whose pad value is Zero
   (pto-isa's dst; its PadVal differing from t's Null is what makes it also
   fill the rest of each row's last 32-byte block), on V. A mat tile:
   TFILLPAD(t, t), the NZ form, which zeroes the rows past the valid ones and
   the 32-byte column blocks past the valid columns with create_cbuf_matrix
   on MTE2 (the ND2NZ load has zeroed the rest of the last column block).
   The sync pass ordered it after the TLOAD and before every reader. With a
   valid region known only at run time the call is skipped when the region
   is the whole tile, where pto-isa's vector form would run with a zero
   count. */
static void pto__isa_fillpad(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    int32_t ti = m->operands[m->stmts[s].arg0].ref;
    const pto_tile *t = &m->tiles[ti];
    pto_buf *b = E->out;
    const char *n = E->tile_name[ti];
    int dyn_r = pto__isa_static_valid(m, t->valid_r, t->rows) < 0, dyn_c = pto__isa_static_valid(m, t->valid_c, t->cols) < 0;
    pto__isa_ind(E);
    if (dyn_r || dyn_c) {
        pto__emit_puts(b, "if (");
        if (dyn_r) pto_buf_printf(b, "%s.GetValidRow() < %ld", n, (long)t->rows);
        if (dyn_r && dyn_c) pto__emit_puts(b, " || ");
        if (dyn_c) pto_buf_printf(b, "%s.GetValidCol() < %ld", n, (long)t->cols);
        pto__emit_puts(b, ") ");
    }
    if (t->space == PTO_VEC) pto_buf_printf(b, "pto::TFILLPAD_INPLACE(pto_pad_%ld, %s); /* ", (long)ti, n);
    else pto_buf_printf(b, "pto::TFILLPAD(%s, %s); /* ", n, n);
    pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
    pto__emit_puts(b, ": zero the padding */\n");
}

/* ---- empty valid regions ------------------------------------------------------
   A valid region computed at run time can be empty: valid(16, min(64, C - c0)) on
   a last trip past C, valid(min(16, N - r), 64) in a block past N. The simulator
   and the interpreter skip an op whose region is empty (a tload or tstore moves
   nothing, a vector op or tmov writes nothing), but pto-isa's a2a3 TLOAD and
   TSTORE assert a positive region (PTO_ASSERT, "The shape of src and dst must be
   greater than 0"), and so do its vector ops (TMAXS: dst's valid rows and cols,
   the row reductions: the source's, recent trees' TMOV vec -> vec). So an op
   whose region may be empty runs under `if (t.GetValidRow() > 0 && ...)` on
   that op alone: the flags the sync pass put around it stay outside, so every
   set_flag still meets its wait_flag, and a skipped op has no effect, as on the
   simulator. The region is the one the simulator moves or computes: the tile's
   for tload / tstore, the result's for the vector ops, tmov and the
   broadcasts. A row (column) reduction into a non-empty result over a source
   with no valid columns (rows) writes the reduction of nothing (0, -inf, +inf,
   or the integer extremes) on the simulator; pto-isa asserts there, so the
   result gets it from TEXPANDS in an else. A region whose extents are positive
   at every launch (constants, dynamic dims, blocks, and min / max / + / * of
   positive ones: pto__isa_pos) is not guarded. tmatmul is not guarded: an
   empty m, k or n is an error of the simulator and the interpreter, as pto-isa
   asserts it; nor are textract and the pipe ops, which move whole tiles, nor
   tfillpad, which zeroes the whole tile when its tload moved nothing (as the
   simulator's tload does). */

/* Whether expression e (a valid extent) is positive at every launch. */
static int pto__isa_pos(const pto_module *m, int32_t e, int depth)
{
    const pto_expr *x;
    if (e < 0 || e >= m->n_exprs || depth > 32) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: return x->value > 0;
    case PTO_E_VAR: return x->a >= 0 && x->a < m->n_vars && m->vars[x->a].kind == PTO_V_DIM;   /* 1..2^62 */
    case PTO_E_BLOCKS: case PTO_E_NRANKS: return 1;
    case PTO_E_MIN: case PTO_E_ADD: case PTO_E_MUL:
        return pto__isa_pos(m, x->a, depth + 1) && pto__isa_pos(m, x->b, depth + 1);
    case PTO_E_MAX: return pto__isa_pos(m, x->a, depth + 1) || pto__isa_pos(m, x->b, depth + 1);
    default: return 0;
    }
}

/* The guard terms of tile ti's valid rows (dims bit 1) and cols (bit 2) that
   may be 0 at run time, " && "-joined after *n earlier ones into b (b NULL:
   only counted). */
static void pto__isa_guard_terms(pto__emitter *E, pto_buf *b, int32_t ti, int dims, int *n)
{
    const pto_module *m = E->m;
    const pto_tile *t;
    int d;
    if (ti < 0 || ti >= m->n_tiles) return;
    t = &m->tiles[ti];
    for (d = 0; d < 2; d++) {
        int32_t ex = d ? t->valid_c : t->valid_r;
        if (!(dims >> d & 1) || ex < 0 || pto__isa_pos(m, ex, 0)) continue;
        if (b) pto_buf_printf(b, "%s%s.GetValid%s() > 0", *n ? " && " : "", E->tile_name[ti], d ? "Col" : "Row");
        ++*n;
    }
}

/* Statement s's region tile (*rt, both extents) and, for a reduction, the
   source (*st) and the extent it reduces (*sdims); 0 when the op is never
   guarded. */
static int pto__isa_guard_tiles(const pto_module *m, int32_t s, int32_t *rt, int32_t *srt, int *sdims)
{
    const pto_stmt *st = &m->stmts[s];
    int cls, i;
    *rt = *srt = -1;
    *sdims = 0;
    if (st->block < 0 || st->kind != PTO_ST_OP || st->nargs < 1) return 0;
    cls = (int)pto_opinfo_get((pto_op)st->op)->cls;
    switch (cls) {
    case PTO_OC_LOAD: case PTO_OC_BIN: case PTO_OC_BINS: case PTO_OC_UN: case PTO_OC_FILL: case PTO_OC_CVT:
    case PTO_OC_MOV: case PTO_OC_ROWEXP: case PTO_OC_COLEXP: case PTO_OC_ROWRED: case PTO_OC_COLRED: case PTO_OC_TRANS:
        i = 0;
        break;
    case PTO_OC_STORE: i = 1; break;
    default: return 0;
    }
    if (i >= st->nargs || m->operands[st->arg0 + i].kind != PTO_O_TILE) return 0;
    *rt = m->operands[st->arg0 + i].ref;
    if ((cls == PTO_OC_ROWRED || cls == PTO_OC_COLRED) && st->nargs >= 2 &&
        m->operands[st->arg0 + 1].kind == PTO_O_TILE) {
        *srt = m->operands[st->arg0 + 1].ref;
        *sdims = cls == PTO_OC_ROWRED ? 2 : 1;
    }
    return 1;
}

/* The value a reduction of nothing gives on the simulator (pto__exec_rowred,
   pto_el_red_i), as the kernel writes it for TEXPANDS into d. */
static const char *pto__isa_red_identity(int op, int dtype)
{
    int sum = op == PTO_OP_TROWSUM || op == PTO_OP_TCOLSUM, max = op == PTO_OP_TROWMAX || op == PTO_OP_TCOLMAX;
    if (dtype == PTO_I32) return sum ? "0" : max ? "INT32_MIN" : "INT32_MAX";
    if (dtype == PTO_I8) return sum ? "0" : max ? "INT8_MIN" : "INT8_MAX";
    return sum ? "0.0f" : max ? "-INFINITY" : "INFINITY";
}

static void pto__isa_op(pto__emitter *E, int32_t s)
{
    pto__isa *I = (pto__isa *)E;
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_opinfo *oi = pto_opinfo_get((pto_op)st->op);
    pto_buf *b = E->out;
    int i, gm = -1, view = -1, nres = 0, nred = 0, sdims = 0, n;
    int32_t rt = -1, srt = -1;
    const char *ind0 = E->val[PTO__K_IND];
    size_t indl0 = E->vlen[PTO__K_IND];
    (void)pto__emit_note(E, s);   /* full note each time: E->nnotes is 0 here */
    pto__emit_src(E, s);
    if (oi->cls == PTO_OC_CVPIPE) {
        pto__isa_cvpipe_op(I, s);
        return;
    }
    if (oi->cls == PTO_OC_FILLPAD) {
        pto__isa_fillpad(E, s);
        return;
    }
    if (pto__isa_guard_tiles(m, s, &rt, &srt, &sdims)) {   /* a region that may be empty (above) */
        pto__isa_guard_terms(E, NULL, rt, 3, &nres);
        pto__isa_guard_terms(E, NULL, srt, sdims, &nred);
    }
    if (oi->cls == PTO_OC_LOAD || oi->cls == PTO_OC_STORE) {
        gm = oi->cls == PTO_OC_LOAD ? 1 : 0;
        if (nres) {   /* the GM view too: its shape is the region */
            pto__isa_ind(E);
            pto__emit_puts(b, "if (");
            n = 0;
            pto__isa_guard_terms(E, b, rt, 3, &n);
            pto__emit_puts(b, ") {\n");
            E->depth++;
            pto__emit_indent(E);
        }
        view = pto__isa_view(I, &m->operands[st->arg0 + gm], &m->tiles[m->operands[st->arg0 + 1 - gm].ref]);
    }
    if (oi->cls == PTO_OC_ROWRED) pto__isa_scratch(I, s, &m->tiles[m->operands[st->arg0 + 1].ref]);
    if (st->op == PTO_OP_TCOLSUM) pto__isa_colsum_tmp(I, s, &m->tiles[m->operands[st->arg0].ref]);
    if (st->op == PTO_OP_TTRANS) pto__isa_trans_scratch(I, s, &m->tiles[m->operands[st->arg0 + 1].ref]);
    pto__isa_ind(E);
    if ((nres || nred) && gm < 0) {
        pto__emit_puts(b, "if (");
        n = 0;
        pto__isa_guard_terms(E, b, rt, 3, &n);
        pto__isa_guard_terms(E, b, srt, sdims, &n);
        pto__emit_puts(b, ") ");
    }
    if (oi->cls == PTO_OC_SYNC) {
        pto__emit_puts(b, st->op == PTO_OP_SET_FLAG ? "set_flag(" : st->op == PTO_OP_WAIT_FLAG ? "wait_flag("
                                                                                              : "pipe_barrier(");
    } else {
        pto__emit_puts(b, "pto::");
        pto__isa_opname(b, (pto_op)st->op);
        pto__emit_put(b, "(", 1);
    }
    for (i = 0; i < st->nargs; i++) {
        const pto_operand *o = &m->operands[st->arg0 + i];
        int sat = pto__isa_sat_dtype(m, s, i);
        if (i) pto__emit_put(b, ", ", 2);
        if (i == gm) pto_buf_printf(b, "pto_gm_%ld", (long)view);
        else if (oi->cls == PTO_OC_SYNC && i == 2) pto__isa_event(E, b, o);
        else if (oi->cls == PTO_OC_EXTRACT && i >= 2) {
            pto__emit_puts(b, "static_cast<uint16_t>(");
            pto__isa_name(E, b, o);
            pto__emit_put(b, ")", 1);
        } else if (sat) {
            pto_buf_printf(b, "pto_isa_sat%s_%s(", pto__isa_float_scalar(m, o) ? "f" : "", sat == PTO_I8 ? "i8" : "i32");
            pto__isa_name(E, b, o);
            pto__emit_put(b, ")", 1);
        } else if (pto__isa_int_scalar(m, s, i)) {
            pto__emit_puts(b, "static_cast<float>(");
            pto__isa_name(E, b, o);
            pto__emit_put(b, ")", 1);
        } else if (oi->cls == PTO_OC_MATMUL && i < 2 && o->kind == PTO_O_TILE && (I->mm_view[o->ref] & 1)) {
            pto_buf_printf(b, "pto_mm_%ld", (long)o->ref);
        } else if (i < 2 && o->kind == PTO_O_TILE && (I->mm_view[o->ref] & 16) && pto__isa_full_view_of(m, s) == i) {
            pto_buf_printf(b, "pto_full_%ld", (long)o->ref);
        } else if (oi->cls == PTO_OC_ROWRED && i == 1 && o->kind == PTO_O_TILE && (I->mm_view[o->ref] & 32) &&
                   m->tiles[m->operands[st->arg0].ref].rows > m->tiles[o->ref].rows) {
            pto_buf_printf(b, "pto_tall_%ld", (long)o->ref);
        } else if (oi->cls == PTO_OC_ROWRED && i == 1 && o->kind == PTO_O_TILE && (I->mm_view[o->ref] & 8) &&
                   !pto__isa_rows_same(m, &m->tiles[m->operands[st->arg0].ref], &m->tiles[o->ref])) {
            pto_buf_printf(b, "pto_rows_%ld", (long)o->ref);
        } else {
            pto__isa_name(E, b, o);
        }
        /* the accumulator is both input and output of TMATMUL_ACC */
        if (i == 0 && st->op == PTO_OP_TMATMUL_ACC) {
            pto__emit_put(b, ", ", 2);
            if (o->kind == PTO_O_TILE && (I->mm_view[o->ref] & 1)) pto_buf_printf(b, "pto_mm_%ld", (long)o->ref);
            else pto__isa_name(E, b, o);
        }
    }
    if (oi->cls == PTO_OC_ROWRED || st->op == PTO_OP_TTRANS) pto_buf_printf(b, ", pto_tmp_%ld", (long)s);
    if (st->op == PTO_OP_TCOLSUM) pto_buf_printf(b, ", pto_tmp_%ld, false", (long)s);
    if (oi->cls == PTO_OC_CVT) pto__emit_puts(b, ", pto::RoundMode::CAST_RINT");
    pto__emit_puts(b, "); /* ");
    pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
    pto__emit_puts(b, " */\n");
    if (gm >= 0 && nres) {
        E->depth--;
        E->val[PTO__K_IND] = ind0;
        E->vlen[PTO__K_IND] = indl0;
        pto__isa_ind(E);
        pto__emit_puts(b, "}\n");
    }
    if (nred) {   /* the reduction of nothing into a non-empty result, as on the simulator */
        const pto_tile *d = &m->tiles[rt];
        pto__isa_ind(E);
        pto__emit_puts(b, "else ");
        if (nres) {
            pto__emit_puts(b, "if (");
            n = 0;
            pto__isa_guard_terms(E, b, rt, 3, &n);
            pto__emit_puts(b, ") ");
        }
        pto_buf_printf(b, "pto::TEXPANDS(%s, %s); /* ", E->tile_name[rt], pto__isa_red_identity(st->op, d->dtype));
        pto__emit_put(b, E->val[PTO__K_SRC], E->vlen[PTO__K_SRC]);
        pto_buf_printf(b, ": '%s' has no valid %s, which pto-isa's ", pto_str(E->ctx, m->tiles[srt].name),
                       sdims == 2 ? "columns" : "rows");
        pto__isa_opname(b, (pto_op)st->op);
        pto_buf_printf(b, " asserts against: the %s of none */\n",
                       st->op == PTO_OP_TROWSUM || st->op == PTO_OP_TCOLSUM ? "sum"
                       : st->op == PTO_OP_TROWMAX || st->op == PTO_OP_TCOLMAX ? "max" : "min");
    }
}

/* ---- sections --------------------------------------------------------------- */

static void pto__isa_section(pto__emitter *E, int32_t s)
{
    const pto_stmt *st = &E->m->stmts[s];
    int cube = st->ref == PTO_CORE_CUBE;
    pto_buf_printf(E->out, "#if defined(%s) /* %s { } section: built for the %s */\n",
                   cube ? "__DAV_CUBE__" : "__DAV_VEC__", cube ? "cube" : "vector", cube ? "AIC" : "AIV");
    pto__isa_ind(E);
    pto__emit_puts(E->out, "{\n");
    pto__isa_pipes((pto__isa *)E, cube);
    pto__emit_block(E, st->body);
    pto__emit_indent(E);
    pto__emit_x(E, PTO__T_K_CLOSE);
    pto__emit_puts(E->out, "#endif\n");
}

/* ---- kernels ----------------------------------------------------------------- */

/* The element types pto-isa's a2a3 headers take for each vector op we emit,
   as a mask of (1 << dtype): the static_asserts of include/pto/npu/a2a3
   (TAdd.hpp .. TMin.hpp and TAddS.hpp .., TDiv.hpp, TUnaryOp.hpp,
   TExpandS.hpp, TRowExpand*.hpp, TColSum/Max/Min.hpp, TColExpand*.hpp) and
   the target-profile notes of pto-isa's docs/isa pages (TSUBS, TMAXS, TMINS,
   TRELU, TROWSUM; the row reductions take int32 in recent trees, half / float
   in older ones). Of our dtypes: f16 and f32 everywhere, i32 where the
   integer vector unit computes it, never bf16 or i8 (int16 and the unsigned
   types have no pto dtype). TNEG is taken as TMULS by -1 (pto-isa's a5
   spelling; the a2a3 headers give no assert). An op not listed (tload,
   tstore, tcvt, tmov, textract, tmatmul, the pipes) is not checked here. */
#define PTO__ISA_F ((1u << PTO_F16) | (1u << PTO_F32))
#define PTO__ISA_FI (PTO__ISA_F | (1u << PTO_I32))
static const struct {
    uint8_t op, dtypes;
} pto__isa_dtypes[] = {
    {PTO_OP_TADD, PTO__ISA_FI},          {PTO_OP_TSUB, PTO__ISA_FI},          {PTO_OP_TMUL, PTO__ISA_FI},
    {PTO_OP_TDIV, PTO__ISA_F},           {PTO_OP_TMAX, PTO__ISA_FI},          {PTO_OP_TMIN, PTO__ISA_FI},
    {PTO_OP_TADDS, PTO__ISA_FI},         {PTO_OP_TSUBS, PTO__ISA_FI},         {PTO_OP_TMULS, PTO__ISA_FI},
    {PTO_OP_TDIVS, PTO__ISA_FI},         {PTO_OP_TMAXS, PTO__ISA_FI},         {PTO_OP_TMINS, PTO__ISA_FI},
    {PTO_OP_TEXP, PTO__ISA_F},           {PTO_OP_TLOG, PTO__ISA_F},           {PTO_OP_TSQRT, PTO__ISA_F},
    {PTO_OP_TRSQRT, PTO__ISA_F},         {PTO_OP_TRECIP, PTO__ISA_F},         {PTO_OP_TABS, PTO__ISA_F},
    {PTO_OP_TNEG, PTO__ISA_FI},          {PTO_OP_TRELU, PTO__ISA_FI},         {PTO_OP_TEXPANDS, PTO__ISA_FI},
    {PTO_OP_TROWSUM, PTO__ISA_FI},       {PTO_OP_TROWMAX, PTO__ISA_FI},       {PTO_OP_TROWMIN, PTO__ISA_FI},
    {PTO_OP_TROWEXPANDADD, PTO__ISA_F},  {PTO_OP_TROWEXPANDSUB, PTO__ISA_F},  {PTO_OP_TROWEXPANDMUL, PTO__ISA_F},
    {PTO_OP_TROWEXPANDDIV, PTO__ISA_F},  {PTO_OP_TCOLSUM, PTO__ISA_FI},       {PTO_OP_TCOLMAX, PTO__ISA_FI},
    {PTO_OP_TCOLMIN, PTO__ISA_FI},       {PTO_OP_TCOLEXPANDADD, PTO__ISA_F},  {PTO_OP_TCOLEXPANDSUB, PTO__ISA_F},
    {PTO_OP_TCOLEXPANDMUL, PTO__ISA_F},  {PTO_OP_TCOLEXPANDDIV, PTO__ISA_F}};

/* Statement s's op on a dtype pto-isa's a2a3 headers refuse: an error at
   the op naming the op, the dtype and what the op takes; PTO_OK otherwise. */
static pto_status pto__isa_check_dtype(pto__emitter *E, int32_t s)
{
    static const uint8_t order[] = {PTO_F16, PTO_F32, PTO_BF16, PTO_I32, PTO_I8};
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *o = &m->operands[st->arg0];
    const char *n = pto_opinfo_get((pto_op)st->op)->name;
    char api[32], list[64];
    size_t i, k, len = 0, nk = 0, seen = 0;
    unsigned mask = 0;
    int dt;
    for (i = 0; i < sizeof pto__isa_dtypes / sizeof pto__isa_dtypes[0]; i++)
        if (pto__isa_dtypes[i].op == st->op) mask = pto__isa_dtypes[i].dtypes;
    if (!mask || st->nargs < 1 || o->kind != PTO_O_TILE || o->ref < 0 || o->ref >= m->n_tiles) return PTO_OK;
    dt = m->tiles[o->ref].dtype;
    if (dt <= PTO_DT_NONE || dt >= PTO_NDTYPE || (mask >> dt & 1u)) return PTO_OK;
    for (i = 0; n[i] && i + 1 < sizeof api; i++) api[i] = n[i] >= 'a' && n[i] <= 'z' ? (char)(n[i] - 'a' + 'A') : n[i];
    api[i] = 0;
    for (k = 0; k < sizeof order; k++) nk += mask >> order[k] & 1u;
    list[0] = 0;
    for (k = 0; k < sizeof order; k++) {
        const char *dn = pto_dtype_name((pto_dtype)order[k]);
        if (!(mask >> order[k] & 1u)) continue;
        seen++;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", seen == 1 ? "" : seen == nk ? " or " : ", ", dn);
        if (len >= sizeof list) break;
    }
    return pto_error(E->ctx, st->loc, "emit (isa): %s on %s tiles: pto-isa's a2a3 %s takes %s tiles only", n,
                     pto_dtype_name((pto_dtype)dt), api, list);
}

/* The conversions pto-isa's a2a3 TCVT has, as a mask of (1 << dst dtype)
   per source dtype: the a2a3 column of pto-isa's docs/isa/TCVT.md
   ("Supported Conversions"), read against a2a3's TCvt.hpp, whose dispatch is
   an if-constexpr chain with no else and no static_assert: a pair it lacks
   compiles to a TCVT that writes nothing, and the destination keeps what
   the UB held. Of our dtypes: f32 -> f16 / bf16 / i32 (and f32 -> f32,
   round only), f16 -> f32 / i32 / i8, bf16 -> f32 / i32, i32 -> f32 / f16,
   i8 -> f16. */
#define PTO__CVT(d) (1u << (d))
static const uint8_t pto__isa_cvt_to[PTO_NDTYPE] = {
    0,                                                                       /* none */
    PTO__CVT(PTO_F32) | PTO__CVT(PTO_F16) | PTO__CVT(PTO_BF16) | PTO__CVT(PTO_I32), /* from f32 */
    PTO__CVT(PTO_F32) | PTO__CVT(PTO_I32) | PTO__CVT(PTO_I8),                       /* from f16 */
    PTO__CVT(PTO_F32) | PTO__CVT(PTO_I32),                                          /* from bf16 */
    PTO__CVT(PTO_F32) | PTO__CVT(PTO_F16),                                          /* from i32 */
    PTO__CVT(PTO_F16)};                                                             /* from i8 */

/* The shortest chain of a2a3 conversions from src to dst (at most three
   steps: every pair of our dtypes has one), written "f32 -> f16 -> i8" into
   out; a breadth-first walk over pto__isa_cvt_to. */
static void pto__isa_cvt_route(int src, int dst, char *out, size_t cap)
{
    int prev[PTO_NDTYPE], queue[PTO_NDTYPE], path[PTO_NDTYPE];
    int head = 0, tail = 0, d, n = 0, k;
    size_t len = 0;
    for (d = 0; d < PTO_NDTYPE; d++) prev[d] = -1;
    prev[src] = src;
    queue[tail++] = src;
    while (head < tail && prev[dst] < 0) {
        int at = queue[head++];
        for (d = PTO_DT_NONE + 1; d < PTO_NDTYPE; d++)
            if ((pto__isa_cvt_to[at] >> d & 1u) && prev[d] < 0) prev[d] = at, queue[tail++] = d;
    }
    out[0] = 0;
    if (prev[dst] < 0) return;
    for (d = dst; d != src; d = prev[d]) path[n++] = d;
    path[n++] = src;
    for (k = n - 1; k >= 0 && len < cap; k--)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", k == n - 1 ? "" : " -> ", pto_dtype_name((pto_dtype)path[k]));
}

/* A tcvt whose (source, destination) pair a2a3's TCVT lacks: an error at
   the op naming the pair and a chain of conversions it has; PTO_OK
   otherwise. A same-dtype tcvt other than f32's is such a pair too (the
   copy is tmov's). */
static pto_status pto__isa_check_cvt(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *d = &m->operands[st->arg0], *a = &m->operands[st->arg0 + 1];
    char route[64];
    int dt, at;
    if (st->op != PTO_OP_TCVT || st->nargs != 2 || d->kind != PTO_O_TILE || a->kind != PTO_O_TILE) return PTO_OK;
    if (d->ref < 0 || d->ref >= m->n_tiles || a->ref < 0 || a->ref >= m->n_tiles) return PTO_OK;
    dt = m->tiles[d->ref].dtype;
    at = m->tiles[a->ref].dtype;
    if (dt <= PTO_DT_NONE || dt >= PTO_NDTYPE || at <= PTO_DT_NONE || at >= PTO_NDTYPE) return PTO_OK;
    if (pto__isa_cvt_to[at] >> dt & 1u) return PTO_OK;
    if (dt == at)
        return pto_error(E->ctx, st->loc, "emit (isa): tcvt from %s to %s: pto-isa's a2a3 TCVT has no %s -> %s "
                         "conversion (the tile would stay unwritten on a device): copy with tmov",
                         pto_dtype_name((pto_dtype)at), pto_dtype_name((pto_dtype)dt), pto_dtype_name((pto_dtype)at),
                         pto_dtype_name((pto_dtype)dt));
    pto__isa_cvt_route(at, dt, route, sizeof route);
    return pto_error(E->ctx, st->loc, "emit (isa): tcvt from %s to %s: pto-isa's a2a3 TCVT has no %s -> %s "
                     "conversion (the tile would stay unwritten on a device): convert in steps it has, %s, "
                     "through tiles of those dtypes (each step rounds on its own)",
                     pto_dtype_name((pto_dtype)at), pto_dtype_name((pto_dtype)dt), pto_dtype_name((pto_dtype)at),
                     pto_dtype_name((pto_dtype)dt), route);
}

/* The tmov pairs pto-isa's a2a3 TMOV has, by the tile types it moves between
   (a2a3 TMov.hpp, TMOV_IMPL / TMOV_TILE_IMPL, read against each branch):
   - acc -> mat (the fixpipe, CheckTMovCcToCb / CheckTMovAccToMat with
     isCastQuant): f32 -> f16 or bf16 only (static_assert: "The src data type
     must be restricted to float", "The output data type must be restricted
     to half/bfloat16_t"); f32 -> f32 and every i32 source exist only as the
     quantising forms (a scale operand: TMOV(dst, src, preQuantScalar), or an
     fp tile), which a .pto cannot express;
   - mat -> left / right (TExtractToA / B, TMovToLeft / Right): no dtype
     check, the data move by element size; the .pto's one dtype holds;
   - vec -> vec (TMovToVec, TCopy): one element size (static_assert); the
     .pto's one dtype holds.
   So only acc -> mat is checked: a pair other than f32 -> f16 / bf16 is
   refused at the op, saying what to write instead. a5 (f32 -> f32 and
   i32 -> i32 too) is not checked, as for the other tables. */
static pto_status pto__isa_check_mov(pto__emitter *E, int32_t s)
{
    const pto_module *m = E->m;
    const pto_stmt *st = &m->stmts[s];
    const pto_operand *d = &m->operands[st->arg0], *a = &m->operands[st->arg0 + 1];
    const pto_tile *dt, *at;
    const char *dn, *an, *name;
    if (st->op != PTO_OP_TMOV || st->nargs != 2 || d->kind != PTO_O_TILE || a->kind != PTO_O_TILE) return PTO_OK;
    if (d->ref < 0 || d->ref >= m->n_tiles || a->ref < 0 || a->ref >= m->n_tiles) return PTO_OK;
    dt = &m->tiles[d->ref];
    at = &m->tiles[a->ref];
    if (at->space != PTO_ACC || dt->space != PTO_MAT) return PTO_OK;
    if (at->dtype == PTO_F32 && (dt->dtype == PTO_F16 || dt->dtype == PTO_BF16)) return PTO_OK;
    dn = pto_dtype_name((pto_dtype)dt->dtype);
    an = pto_dtype_name((pto_dtype)at->dtype);
    name = pto_str(E->ctx, dt->name);
    if (at->dtype == PTO_F32)
        return pto_error(E->ctx, st->loc, "emit (isa): tmov from an %s acc to a%s %s mat tile: pto-isa's a2a3 TMOV moves "
                         "an acc to mat only as f32 -> f16 or bf16 (narrow it: declare '%s' f16 or bf16; to keep "
                         "%s, tstore the acc to a tensor and tload '%s' from it)", an, dn[0] == 'b' ? "" : "n", dn,
                         name, an, name);
    return pto_error(E->ctx, st->loc, "emit (isa): tmov from an %s acc to a%s %s mat tile: pto-isa's a2a3 TMOV moves an "
                     "acc to mat only as f32 -> f16 or bf16; an %s acc only through its quantising forms, which take a "
                     "scale a .pto cannot give (tstore the acc to a tensor and tload '%s' from it)", an,
                     dn[0] == 'b' ? "" : "n", dn, an, name);
}

/* tload s into tile ti, whose padding an op may read (lower.c,
   pto__lw_pad_reads): a tfillpad of ti must follow it, with only flags and
   barriers between (pto_lower_for(..., PTO_TARGET_ISA) puts it there); a
   column [R, 1] cannot be padded yet: pto-isa's vec TFILLPAD pads row-major
   tiles (its pad starts after the 32-byte block of a row's valid columns,
   past a column's only element). */
static pto_status pto__isa_check_fill(pto__emitter *E, int32_t s, int32_t ti)
{
    const pto_module *m = E->m;
    const pto_tile *t = &m->tiles[ti];
    int32_t f;
    if (t->space == PTO_VEC && t->cols == 1 && t->rows > 1)
        return pto_error(E->ctx, m->stmts[s].loc, "emit (isa): tload into column tile '%s' [%ld, 1], whose rows past "
                         "its valid region an op reads: the isa target cannot zero a column's padding yet (pto-isa's "
                         "TFILLPAD pads row-major tiles); give the reading ops the column's valid region, or load a "
                         "tile without valid(...)", pto_str(E->ctx, t->name), (long)t->rows);
    for (f = m->stmts[s].next; f >= 0; f = m->stmts[f].next) {
        const pto_stmt *x = &m->stmts[f];
        if (x->kind == PTO_ST_OP && x->op == PTO_OP_TFILLPAD && x->nargs == 1 && m->operands[x->arg0].ref == ti)
            return PTO_OK;
        if (x->kind != PTO_ST_OP || pto_opinfo_get((pto_op)x->op)->cls != PTO_OC_SYNC) break;
    }
    return pto_error(E->ctx, m->stmts[s].loc, "emit (isa): tload into '%s' is not followed by the fill of its padding, "
                     "which an op reads: pto-isa's TLOAD moves the valid region only (compile the module for the isa "
                     "target: pto_compile_desc.target = PTO_TARGET_ISA)", pto_str(E->ctx, t->name));
}

/* What this target cannot express yet, refused with the place that needs
   it. Also finds each kernel's scratch need (checked in pto__isa_kernel). */
/* Whether some tpop fills tile t (its bytes are a pipe slot TPOP binds). */
static int pto__isa_popped(const pto_module *m, const pto_tile *t)
{
    int32_t s;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind == PTO_ST_OP && st->op == PTO_OP_TPOP && st->nargs >= 1 && m->operands[st->arg0].kind == PTO_O_TILE &&
            m->operands[st->arg0].ref >= 0 && m->operands[st->arg0].ref < m->n_tiles && &m->tiles[m->operands[st->arg0].ref] == t)
            return 1;
    }
    return 0;
}

static pto_status pto__isa_check(pto__emitter *E)
{
    const pto_module *m = E->m;
    int32_t k, s;
    uint8_t *pad_read;
    for (k = 0; k < m->n_kernels; k++)
        if (m->kernels[k].ranks)
            return pto_error(E->ctx, m->kernels[k].loc,
                             "emit (isa): kernel '%s' is a ranks kernel; communication is not supported by the "
                             "isa target yet", pto_str(E->ctx, m->kernels[k].name));
    for (k = 0; k < m->n_cvpipes; k++) {
        const pto_cvpipe *q = &m->cvpipes[k];
        if (m->arch != PTO_ARCH_A2A3)   /* a5's TPipe is core to core, with another template */
            return pto_error(E->ctx, q->loc, "emit (isa): pipe '%s': cube/vector pipes are supported by the isa "
                             "target on a2a3 only (GM slot rings)", pto_str(E->ctx, q->name));
        if (q->flag_id < 0)
            return pto_error(E->ctx, q->loc, "emit (isa): pipe '%s' has no cross-core flag",
                             pto_str(E->ctx, q->name));
        /* cross-core mode 2: the AIC's wait returns once BOTH AIVs have set the
           flag, but only AIV 0 pushes into an unsplit V2C ring */
        if ((q->dir & PTO_V2C) && q->split == PTO_SPLIT_NONE)
            return pto_error(E->ctx, q->loc, "emit (isa): pipe '%s': a %s pipe without a split is not supported by "
                             "the isa target: only AIV 0 pushes, but on a2a3 the AIC's wait for a cross-core flag "
                             "returns once both AIVs have set it (give it split(up_down) or split(left_right))",
                             pto_str(E->ctx, q->name), q->dir == PTO_BOTH ? "both" : "v2c");
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        int i;
        if (st->block < 0 || st->kind != PTO_ST_OP) continue;
        if (st->op == PTO_OP_TPOP && st->nargs == 2 && m->operands[st->arg0].kind == PTO_O_TILE &&
            m->operands[st->arg0].ref >= 0 && m->operands[st->arg0].ref < m->n_tiles &&
            !pto__isa_valid_full(m, &m->tiles[m->operands[st->arg0].ref]))
            return pto_error(E->ctx, st->loc,
                             "emit (isa): tpop into tile '%s', which has a valid region: pto-isa's TPOP fills a "
                             "whole tile and binds it to a local slot itself, so the popped tile cannot carry one "
                             "(pop into a tile without valid(...) and give the region to the tiles computed from it)",
                             pto_str(E->ctx, m->tiles[m->operands[st->arg0].ref].name));
        if ((pto_opinfo_get((pto_op)st->op)->cls == PTO_OC_LOAD || pto_opinfo_get((pto_op)st->op)->cls == PTO_OC_STORE) &&
            st->nargs == 2) {
            /* a column [R, 1] is a DN tile: pto-isa's a2a3 TLOAD / TSTORE move each of
               its columns as one contiguous run of valid-rows elements (TLoadGm2ubDn2dn,
               TStoreUb2gmDn2dn: the GM row stride is never read), so its GM window must
               be contiguous: a tensor of one column */
            int gi = pto_opinfo_get((pto_op)st->op)->cls == PTO_OC_LOAD ? 1 : 0;
            const pto_operand *g = &m->operands[st->arg0 + gi], *o = &m->operands[st->arg0 + 1 - gi];
            if (g->kind == PTO_O_GM && g->ref >= 0 && g->ref < m->n_params && o->kind == PTO_O_TILE && o->ref >= 0 &&
                o->ref < m->n_tiles && m->tiles[o->ref].space == PTO_VEC && m->tiles[o->ref].cols == 1 &&
                m->tiles[o->ref].rows > 1 && (m->params[g->ref].dim_var[1] >= 0 || m->params[g->ref].dim[1] != 1))
                return pto_error(E->ctx, st->loc, "emit (isa): %s of column tile '%s' [%ld, 1] %s '%s', a tensor of "
                                 "%s: pto-isa's a2a3 %s moves a column tile as one contiguous run, while "
                                 "this column's elements are a row apart (give the column a tensor of one column)",
                                 pto_opinfo_get((pto_op)st->op)->name, pto_str(E->ctx, m->tiles[o->ref].name),
                                 (long)m->tiles[o->ref].rows, gi ? "from" : "to",
                                 pto_str(E->ctx, m->params[g->ref].name),
                                 m->params[g->ref].dim_var[1] >= 0 ? "a run-time number of columns" : "more than one column",
                                 gi ? "TLOAD" : "TSTORE");
        }
        {   /* a broadcast or vec tmov whose operands' valid regions differ (pto__isa_mm_views) */
            const pto_tile *d, *a;
            int tmov;
            if (pto__isa_full_view_of(m, s) == -2 && pto__isa_expand_tiles(m, s, &d, &a, &tmov))
                return pto_error(E->ctx, st->loc, "emit (isa): %s into '%s', whose valid region is not that of "
                                 "'%s': %s, and the isa target can only give one of them the other's when that "
                                 "is the whole tile (give '%s' the valid region of '%s', or %s all of its tile)",
                                 pto_opinfo_get((pto_op)st->op)->name, pto_str(E->ctx, d->name), pto_str(E->ctx, a->name),
                                 tmov ? "pto-isa's TMOV copies the smaller of the two regions"
                                 : pto_opinfo_get((pto_op)st->op)->cls == PTO_OC_ROWEXP
                                 ? "pto-isa's TROWEXPAND* takes the operand whose valid region is the result's as the tile"
                                 : "pto-isa's TCOLEXPAND* takes the operand whose valid region is the result's as the tile",
                                 pto_str(E->ctx, d->name), pto_str(E->ctx, a->name), tmov ? "the result" : "one of them");
        }
        {   /* a row reduction: pto-isa reduces a's valid rows (pto__isa_mm_views) */
            const pto_tile *d, *a;
            if (pto__isa_red_tiles(m, s, PTO_OC_ROWRED, &d, &a) && !pto__isa_rows_same(m, d, a) &&
                pto__isa_static_valid(m, d->valid_r, d->rows) != d->rows)
                return pto_error(E->ctx, st->loc, "emit (isa): %s into '%s', whose valid rows are not those of "
                                 "'%s': pto-isa's %s reduces its source's valid rows, and the isa target can widen "
                                 "them only to a whole tile (give '%s' the valid rows of '%s', or all of its rows)",
                                 pto_opinfo_get((pto_op)st->op)->name, pto_str(E->ctx, d->name),
                                 pto_str(E->ctx, a->name), pto__isa_red_api(st->op),
                                 pto_str(E->ctx, d->name), pto_str(E->ctx, a->name));
            if (pto__isa_red_tiles(m, s, PTO_OC_ROWRED, &d, &a) && d->rows > a->rows && pto__isa_popped(m, a))
                return pto_error(E->ctx, st->loc, "emit (isa): %s of '%s', a tile a tpop fills, into the taller "
                                 "column '%s': the isa target gives the source the column's rows through a view "
                                 "of its bytes (pto_tall_N), and a popped tile's bytes are a pipe slot bound at "
                                 "run time (give '%s' the %d rows of '%s', or tmov '%s' into a tile of its own "
                                 "first)", pto_opinfo_get((pto_op)st->op)->name, pto_str(E->ctx, a->name),
                                 pto_str(E->ctx, d->name), pto_str(E->ctx, d->name), (int)a->rows,
                                 pto_str(E->ctx, a->name), pto_str(E->ctx, a->name));
        }
        {   /* a column reduction: pto-isa asserts equal valid columns (review28 H1: regions known only at
               launch passed here, and the device would assert) */
            const pto_tile *d, *a;
            if (pto__isa_red_tiles(m, s, PTO_OC_COLRED, &d, &a) && !pto__isa_cols_same(m, d, a))
                return pto_error(E->ctx, st->loc, "emit (isa): %s into '%s', whose valid columns may differ from "
                                 "those of '%s': pto-isa's %s asserts they are equal, and the isa target cannot show it "
                                 "(give '%s' the valid columns of '%s': the same expression)",
                                 pto_opinfo_get((pto_op)st->op)->name, pto_str(E->ctx, d->name),
                                 pto_str(E->ctx, a->name), pto__isa_red_api(st->op),
                                 pto_str(E->ctx, d->name), pto_str(E->ctx, a->name));
        }
        if (m->arch == PTO_ARCH_A2A3) {   /* pto-isa's a2a3 dtypes and conversions (the tables above) */
            pto_status r = pto__isa_check_dtype(E, s);
            if (r == PTO_OK) r = pto__isa_check_cvt(E, s);
            if (r == PTO_OK) r = pto__isa_check_mov(E, s);
            if (r != PTO_OK) return r;
        }
        for (i = 0; i < st->nargs; i++) {
            const pto_operand *o = &m->operands[st->arg0 + i];
            if (o->kind == PTO_O_GM && o->e[2] >= 0)
                return pto_error(E->ctx, o->loc, "emit (isa): %s of a peer's window (T@p[...]) is not "
                                 "supported by the isa target yet", pto_opinfo_get((pto_op)st->op)->name);
        }
    }
    pad_read = pto__lw_pad_reads(E->ctx, m);   /* the tiles whose padding an op reads (lower.c) */
    if (!pad_read) return PTO_ERR_INTERNAL;
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        pto_status r;
        if (st->block < 0 || st->kind != PTO_ST_OP || st->op != PTO_OP_TLOAD || st->nargs != 2 ||
            m->operands[st->arg0].kind != PTO_O_TILE || m->operands[st->arg0].ref < 0 ||
            m->operands[st->arg0].ref >= m->n_tiles || !pad_read[m->operands[st->arg0].ref])
            continue;
        r = pto__isa_check_fill(E, s, m->operands[st->arg0].ref);
        if (r != PTO_OK) {
            pto_free(E->ctx, pad_read);
            return r;
        }
    }
    pto_free(E->ctx, pad_read);
    return PTO_OK;
}

/* pto-isa's a2a3 TROWEXPANDADD..DIV with a column operand (ours are [R, 1]
   DN columns) broadcast it through a hidden scratch, the UB bytes
   [TMP_UB_OFFSET, TMP_UB_OFFSET + TMP_UB_SIZE) = [188416, 196608)
   (include/pto/common/constants.hpp; TRowExpandBinOp.hpp: vbrcb into
   TMP_UB_OFFSET), which nothing declares: in a kernel with a row broadcast
   every vec byte it uses must lie below it. The planner keeps them free in
   a module lowered for this target (plan.c, pto__isa_hole: pipe slots
   below, tiles an overflow), so this is the check that the emitter's own
   reduction scratch and any module planned otherwise (a pto_plan of a
   module lowered for the simulator) respect it. top: the end of the planned vec
   tiles and the scratch; the local slots of a C2V pipe end at most (LocalSlotNum
   - 1) x SlotSize past the base (recent trees step by SlotSize) plus the popped
   tile. */
static pto_status pto__isa_check_tmp_ub(pto__isa *I, int32_t k, int64_t top)
{
    const pto_module *m = I->e.m;
    int32_t s, i, first = -1;
    for (s = 0; s < m->n_stmts && first < 0; s++) {
        const pto_stmt *st = &m->stmts[s];
        if (st->block >= 0 && st->kind == PTO_ST_OP && pto_opinfo_get((pto_op)st->op)->cls == PTO_OC_ROWEXP &&
            st->nargs == 3 && m->operands[st->arg0].kind == PTO_O_TILE && m->operands[st->arg0].ref >= 0 &&
            m->operands[st->arg0].ref < m->n_tiles && m->tiles[m->operands[st->arg0].ref].kernel == k)
            first = s;
    }
    if (first < 0) return PTO_OK;
    for (i = 0; i < m->n_cvpipes; i++) {
        const pto_cvpipe *q = &m->cvpipes[i];
        int64_t vb = pto_plan_pipe_base(m, i, PTO_VEC), end;
        if (q->kernel != k || !(q->dir & PTO_C2V) || vb < 0) continue;
        end = vb + (int64_t)(pto__isa_local_slots(q, 0) - 1) * q->slot_size +
              (q->split != PTO_SPLIT_NONE ? q->slot_size / 2 : q->slot_size);
        if (end > top) top = end;
    }
    if (top <= PTO__ISA_TMP_UB_OFFSET) return PTO_OK;
    return pto_error(I->e.ctx, m->stmts[first].loc, "emit (isa): %s: pto-isa's a2a3 row broadcasts use the vec bytes "
                     "[%d, %d) as a hidden scratch (TMP_UB_OFFSET), but this kernel's vec tiles reach %lld; leave them "
                     "free (smaller tiles or fewer slots)", pto_opinfo_get((pto_op)m->stmts[first].op)->name,
                     PTO__ISA_TMP_UB_OFFSET, (int)pto_space_capacity(m->arch, PTO_VEC), (long long)top);
}

/* The kernel's reduction scratch: right above its highest planned vec
   byte, 32-byte aligned, big enough for its largest reduced tile (and
   TCOLSUM's [1, C] tmp tiles). */
static pto_status pto__isa_plan_scratch(pto__isa *I, int32_t k)
{
    const pto_module *m = I->e.m;
    int64_t hi = 0, need = 0, cap = pto_space_capacity(m->arch, PTO_VEC) - pto__reserved(m, k, PTO_VEC);
    int32_t t, s, first = -1;
    for (t = 0; t < m->n_tiles; t++) {
        const pto_tile *tl = &m->tiles[t];
        int j;
        if (tl->kernel != k || tl->space != PTO_VEC || !tl->planned) continue;
        if (I->e.tile_popped && I->e.tile_popped[t]) continue;   /* in the pipe reservation, at the top */
        for (j = 0; j < (tl->nbuf > 1 ? tl->nbuf : 1) && j < PTO_MAX_NBUF; j++)
            if (tl->offset[j] + pto_tile_bytes(tl) > hi) hi = tl->offset[j] + pto_tile_bytes(tl);
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_stmt *st = &m->stmts[s];
        const pto_tile *src;
        pto_tile tt;
        if (st->block < 0 || st->kind != PTO_ST_OP ||
            (pto_opinfo_get((pto_op)st->op)->cls != PTO_OC_ROWRED && st->op != PTO_OP_TCOLSUM && st->op != PTO_OP_TTRANS))
            continue;
        /* a row reduction's scratch has its source's type, TCOLSUM's tmp its result's, TTRANS's
           its source's transposed and rounded up (pto__isa_trans_tmp) */
        src = &m->tiles[m->operands[st->arg0 + (st->op == PTO_OP_TCOLSUM ? 0 : 1)].ref];
        if (src->kernel != k) continue;
        if (st->op == PTO_OP_TTRANS) {
            tt = pto__isa_trans_tmp(src);
            src = &tt;
        }
        if (first < 0) first = s;
        if (pto_tile_bytes(src) > need) need = pto_tile_bytes(src);
    }
    I->scratch_off = (hi + 31) / 32 * 32;
    if (first >= 0 && I->scratch_off + need > cap)
        return pto_error(I->e.ctx, m->stmts[first].loc,
                         "emit (isa): %s needs a %lld-byte vec scratch tile, but the plan uses %lld of %lld bytes; "
                         "leave room for it (smaller tiles or fewer slots)",
                         pto_opinfo_get((pto_op)m->stmts[first].op)->name, (long long)need, (long long)hi,
                         (long long)cap);
    return m->arch == PTO_ARCH_A2A3 ? pto__isa_check_tmp_ub(I, k, first >= 0 ? I->scratch_off + need : hi) : PTO_OK;
}

/* Kernel k's guard and entry line: compiled unless one other kernel is
   built alone (-DPTO_ISA_KERNEL), or the core type built is not its own
   (a mix kernel guards its sections instead). */
static void pto__isa_entry_open(pto__isa *I, int32_t k)
{
    pto__emitter *E = &I->e;
    const pto_kernel *kn = &E->m->kernels[k];
    const char *core = kn->kind == PTO_KK_CUBE ? " && !defined(__DAV_VEC__)" : kn->kind == PTO_KK_VECTOR ? " && !defined(__DAV_CUBE__)" : "";
    pto_buf_printf(E->out, "#if (!defined(PTO_ISA_KERNEL) || PTO_ISA_KERNEL == %d)%s /* kernel %d: %s */\n", (int)k, core,
                   (int)k, kn->kind == PTO_KK_CUBE ? "cube, built for the AIC" : kn->kind == PTO_KK_VECTOR
                                                                                 ? "vector, built for the AIV"
                                                                                 : "mix, built for both (its sections are guarded)");
    pto_buf_printf(E->out, "extern \"C\" __global__ AICORE void PTO_ISA_ENTRY(kernel_%s)(__gm__ int64_t *args)\n{\n",
                   pto_str(E->ctx, kn->name));
}

static void pto__isa_kernel(pto__isa *I, int32_t k)
{
    pto__emitter *E = &I->e;
    const pto_module *m = E->m;
    const pto_kernel *kn = &m->kernels[k];
    pto_buf *b = E->out;
    int32_t p, v, idx = 0;
    int pass;
    I->ngm = 0;
    I->kernel = k;
    E->kb = kn->blocks;
    E->st = pto__isa_plan_scratch(I, k);
    if (E->st != PTO_OK) return;
    pto__emit_use_block(E, kn->body);
    /* a GM view's row stride is its tensor's column count (pto__isa_view):
       a dynamic one is read even when no expression names it */
    for (p = kn->param0; p < kn->param0 + kn->nparams; p++)
        if (E->param_used[p] && m->params[p].kind == PTO_P_TENSOR && m->params[p].dim_var[1] >= 0)
            E->var_used[m->params[p].dim_var[1]] = 1;
    for (v = 0; v < m->n_vars; v++)
        if (m->vars[v].kernel == k && m->vars[v].kind == PTO_V_DIM && E->var_used[v] && m->vars[v].def >= 0)
            E->param_used[m->vars[v].def] = 1;
    pto__emit_sig(E, k);
    pto__emit_planned(E, k);
    pto_buf_printf(b, "\n/* %s:%d: %s kernel %s(%s), blocks(%s)\n   planned: %s */\n", E->file, (int)kn->loc.line,
                   E->val[PTO__K_KIND], pto_str(E->ctx, kn->name), E->val[PTO__K_SIG], E->val[PTO__K_BLOCKS],
                   E->val[PTO__K_PLANNED]);
    pto__isa_entry_open(I, k);
    E->depth = 1;
    pto__emit_indent(E);
    for (pass = 0; pass < 2; pass++) {    /* tensors first, then scalars */
        for (p = kn->param0; p < kn->param0 + kn->nparams; p++) {
            const pto_param *pa = &m->params[p];
            const char *name;
            int used;
            if ((pa->kind == PTO_P_SCALAR) != pass) continue;
            if (pa->kind == PTO_P_TENSOR) {
                name = E->param_name[p];
                used = E->param_used[p];
                pto_buf_printf(b, "    __gm__ %s *%s = pto_isa_gm<%s>(args, %d); /* %s %s[",
                               pto__isa_ctype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0], name,
                               pto__isa_ctype[pa->dtype < PTO_NDTYPE ? pa->dtype : 0], (int)idx,
                               pto__emit_dir[pa->dir < 3 ? pa->dir : 0], pto_dtype_name((pto_dtype)pa->dtype));
                for (v = 0; v < 2; v++) {
                    if (v) pto__emit_put(b, ", ", 2);
                    if (pa->dim_var[v] >= 0) pto__emit_puts(b, pto_str(E->ctx, m->vars[pa->dim_var[v]].name));
                    else pto__emit_put_i64(b, pa->dim[v]);
                }
                pto__emit_puts(b, "] */\n");
            } else {
                int fl = pto__dtype_float(pa->dtype);
                if (pa->var < 0) { idx++; continue; }
                name = E->var_name[pa->var];
                used = E->var_used[pa->var];
                /* an integer: the slot's low 32 (8) bits, whether the runtime sign- or
                   zero-extended it (review17: -1 would read 4294967295) */
                if (pa->dtype == PTO_F16 || pa->dtype == PTO_BF16)   /* held in its dtype, as the reference (review23 L2) */
                    pto_buf_printf(b, "    const float %s = static_cast<float>(static_cast<%s>(pto_isa_f32(args, %d))); "
                                   "/* scalar %s */\n", name, pto__isa_ctype[pa->dtype], (int)idx,
                                   pto_dtype_name((pto_dtype)pa->dtype));
                else pto_buf_printf(b, fl ? "    const float %s = pto_isa_f32(args, %d); /* scalar %s */\n"
                               : pa->dtype == PTO_I8 ? "    const int64_t %s = static_cast<int8_t>(args[%d]); /* scalar %s */\n"
                                                     : "    const int64_t %s = static_cast<int32_t>(args[%d]); /* scalar %s */\n",
                               name, (int)idx, pto_dtype_name((pto_dtype)pa->dtype));
            }
            idx++;
            /* a mix kernel compiles each section alone: any name may go unused */
            if (!used || kn->kind == PTO_KK_MIX) pto_buf_printf(b, "    (void)%s;\n", name);
        }
        if (pass == 0 && pto__emit_has_pipebuf(m, k)) {
            /* The hidden GM pipe buffer, after the tensors (the simulator
               target's order): blocks x per_block bytes, block b's rings at
               b x per_block. Sharded by the block index, never by subblock:
               the AIC and both AIVs of a block share its rings. per_block is
               a constant, so each block's part is where the host sized it
               whatever blocks(...) is and whether or not `block` is read. */
            int64_t per_block = pto_kernel_pipe_bytes(m, k);
            pto_buf_printf(b, "    /* hidden argument %d: the GM pipe buffer, blocks x %lld bytes; this block's rings "
                           "are its part [block * %lld, (block + 1) * %lld), shared by the block's AIC and AIVs */\n",
                           (int)idx, (long long)per_block, (long long)per_block, (long long)per_block);
            pto_buf_printf(b, "    __gm__ uint8_t *pto_gm_pipe_buffer = pto_isa_gm<uint8_t>(args, %d) + "
                           "static_cast<int64_t>(PTO_ISA_BLOCK_IDX(args)) * %lld;\n", (int)idx, (long long)per_block);
            pto_buf_printf(b, "    (void)pto_gm_pipe_buffer;\n");
            idx++;
        }
    }
    for (v = 0; v < m->n_vars; v++) {
        const pto_var *va = &m->vars[v];
        if (va->kernel != k || va->kind != PTO_V_DIM || !E->var_used[v] || va->def < 0) continue;
        pto_buf_printf(b, "    const int64_t %s = pto_isa_dim(args, %d, %d);\n", E->var_name[v],
                       (int)(va->def - kn->param0), m->params[va->def].dim_var[0] == v ? 0 : 1);
        if (kn->kind == PTO_KK_MIX) pto_buf_printf(b, "    (void)%s;\n", E->var_name[v]);
    }
    E->depth = 0;
    pto__emit_block(E, kn->body);
    pto__emit_puts(b, "}\n#endif\n");
}

static const char pto__isa_head[] =
    "/* kernel.cpp - generated by ptoc %s from %s for the Ascend pto-isa C++ API (ptoc emit --target isa).\n"
    "   One extern \"C\" entry per kernel, kernel_NAME(__gm__ int64_t *args), in the ABI of simpler's\n"
    "   runtime: args holds the tensor descriptors (TensorData) first, then the scalars as raw 64-bit\n"
    "   values (a float scalar: its f32 bits in the low 32 bits); the block index and count, and an\n"
    "   AIV's lane, come from the runtime's per-dispatch context (PTO_ISA_BLOCK_IDX below). Tiles sit\n"
    "   at the addresses pto planned; every flag and barrier is the one pto's sync pass (or the .pto)\n"
    "   put there. Build it with the CANN toolchain against pto-isa's include/ and the runtime's\n"
    "   tensor.h: -DPTO_ISA_KERNEL=K compiles kernel K of this file alone (its index, in the comment\n"
    "   above it) as kernel_entry, the one entry that runtime loads from an object; a cube kernel is\n"
    "   compiled only where __DAV_VEC__ is not defined, a vector kernel where __DAV_CUBE__ is not. */\n"
    "\n"
    "#include <cstdint>\n"
    "#include <cmath>\n"
    "#include <pto/pto-inst.hpp>\n"
    "#include \"tensor.h\"\n"
    "\n"
    "/* the logical block index and count, and an AIV's lane in its cluster (0 or 1), from the\n"
    "   runtime's per-dispatch context: in simpler's tensormap_and_ringbuffer runtime args[48] points\n"
    "   at {int32 block_idx, int32 block_num} and args[49] at {int32 sub_block_id}. Not the CCE\n"
    "   intrinsics get_block_idx() / get_block_num() / get_subblockid(): they read core registers that\n"
    "   runtime does not program (physical ids; 0 on both AIVs). Define these three before this file\n"
    "   for another runtime (e.g. as its get_block_idx(args) accessors, or the intrinsics for a native\n"
    "   launch). */\n"
    "#ifndef PTO_ISA_BLOCK_IDX\n"
    "#define PTO_ISA_BLOCK_IDX(args) (reinterpret_cast<__gm__ int32_t *>(static_cast<uint64_t>((args)[48]))[0])\n"
    "#endif\n"
    "#ifndef PTO_ISA_BLOCK_NUM\n"
    "#define PTO_ISA_BLOCK_NUM(args) (reinterpret_cast<__gm__ int32_t *>(static_cast<uint64_t>((args)[48]))[1])\n"
    "#endif\n"
    "#ifndef PTO_ISA_SUBBLOCK\n"
    "#define PTO_ISA_SUBBLOCK(args) (reinterpret_cast<__gm__ int32_t *>(static_cast<uint64_t>((args)[49]))[0])\n"
    "#endif\n"
    "\n"
    "/* the runtime's tensor descriptor type (tensor.h): TensorData, Tensor in newer trees */\n"
    "#ifndef PTO_ISA_TENSOR\n"
    "#define PTO_ISA_TENSOR TensorData\n"
    "#endif\n"
    "\n"
    "/* kernel_NAME, or kernel_entry when one kernel is built alone (-DPTO_ISA_KERNEL=K) */\n"
    "#ifdef PTO_ISA_KERNEL\n"
    "#define PTO_ISA_ENTRY(name) kernel_entry\n"
    "#else\n"
    "#define PTO_ISA_ENTRY(name) name\n"
    "#endif\n"
    "\n"
    "/* the helpers are always inlined: that runtime's loader takes a kernel's .text as it is, with no\n"
    "   calls to resolve */\n"
    "#define PTO_ISA_INLINE AICORE inline __attribute__((always_inline))\n"
    "\n"
    "/* the first element of tensor argument i */\n"
    "template <typename T>\n"
    "PTO_ISA_INLINE __gm__ T *pto_isa_gm(__gm__ int64_t *args, int i)\n"
    "{\n"
    "    __gm__ PTO_ISA_TENSOR *d = reinterpret_cast<__gm__ PTO_ISA_TENSOR *>(args[i]);\n"
    "    return reinterpret_cast<__gm__ T *>(d->buffer.addr) + d->start_offset;\n"
    "}\n"
    "\n"
    "/* extent d (0: rows, 1: columns) of tensor argument i */\n"
    "PTO_ISA_INLINE int64_t pto_isa_dim(__gm__ int64_t *args, int i, int d)\n"
    "{\n"
    "    return static_cast<int64_t>(reinterpret_cast<__gm__ PTO_ISA_TENSOR *>(args[i])->shapes[d]);\n"
    "}\n"
    "\n"
    "/* a float scalar argument: f32 bits in the low half of its slot */\n"
    "PTO_ISA_INLINE float pto_isa_f32(__gm__ int64_t *args, int i)\n"
    "{\n"
    "    union { uint32_t u; float f; } v;\n"
    "    v.u = static_cast<uint32_t>(static_cast<uint64_t>(args[i]));\n"
    "    return v.f;\n"
    "}\n"
    "\n"
    "/* min and max of the .pto integer expressions */\n"
    "PTO_ISA_INLINE int64_t pto_emit_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
    "PTO_ISA_INLINE int64_t pto_emit_max(int64_t a, int64_t b) { return a > b ? a : b; }\n";

/* After the head, when a scalar on an integer tile needs them (pto__isa_sat_dtype). */
static const char pto__isa_sat_text[] =
    "\n"
    "/* a scalar on an integer tile, as pto's reference takes it: saturated to the element type (a float\n"
    "   truncated toward zero, NaN as 0), where C++'s conversion would wrap an int64_t or be undefined */\n"
    "PTO_ISA_INLINE int32_t pto_isa_sat_i32(int64_t v) { return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : static_cast<int32_t>(v); }\n"
    "PTO_ISA_INLINE int8_t pto_isa_sat_i8(int64_t v) { return v < -128 ? -128 : v > 127 ? 127 : static_cast<int8_t>(v); }\n"
    "PTO_ISA_INLINE int32_t pto_isa_satf_i32(float v)\n"
    "{\n"
    "    return v != v ? 0 : v <= -2147483648.0f ? INT32_MIN : v >= 2147483648.0f ? INT32_MAX : static_cast<int32_t>(v);\n"
    "}\n"
    "PTO_ISA_INLINE int8_t pto_isa_satf_i8(float v)\n"
    "{\n"
    "    return v != v ? 0 : v <= -128.0f ? -128 : v >= 127.0f ? 127 : static_cast<int8_t>(v);\n"
    "}\n";

/* After the head, when some kernel expression may leave int64 (pto__isa_ovf_warn) */
static const char pto__isa_ovf_text[] =
    "\n"
    "/* + - * and unary - of a .pto integer expression that pto could not prove stays in int64 (ptoc warned at\n"
    "   each): wrapped modulo 2^64 through uint64_t, with no undefined behaviour. The device cannot report an\n"
    "   overflow; `ptoc run` on the simulator stops at one. */\n"
    "PTO_ISA_INLINE int64_t pto_isa_iadd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }\n"
    "PTO_ISA_INLINE int64_t pto_isa_isub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }\n"
    "PTO_ISA_INLINE int64_t pto_isa_imul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }\n"
    "PTO_ISA_INLINE int64_t pto_isa_ineg(int64_t a) { return static_cast<int64_t>(0 - static_cast<uint64_t>(a)); }\n";

/* After the head, when a loop's increment or iteration number could pass INT64_MAX as plain int64_t
   arithmetic (pto__emit_next_unsafe, pto__emit_iter_unsafe): pto_kernels.h's pto_k_next and
   pto_k_iter_mod */
static const char pto__isa_loop_text[] =
    "\n"
    "/* loop arithmetic without int64 overflow (the plain i += step or (i - start) / step % n could pass\n"
    "   INT64_MAX here): the next value of i below end, else end; the iteration number modulo n, for\n"
    "   start <= i, step > 0 */\n"
    "PTO_ISA_INLINE int64_t pto_isa_next(int64_t i, int64_t step, int64_t end)\n"
    "{\n"
    "    return static_cast<uint64_t>(end) - static_cast<uint64_t>(i) > static_cast<uint64_t>(step) ? i + step : end;\n"
    "}\n"
    "PTO_ISA_INLINE int64_t pto_isa_iter_mod(int64_t i, int64_t start, int64_t step, int64_t n)\n"
    "{\n"
    "    return static_cast<int64_t>((static_cast<uint64_t>(i) - static_cast<uint64_t>(start)) / static_cast<uint64_t>(step) %\n"
    "                                static_cast<uint64_t>(n));\n"
    "}\n";

/* After the head, when the module has a pipe (review26b M3): pto writes TPipe's
   5th and 6th arguments as LocalSlotNum and IsNoSplit, and two public pto-isa
   trees read those places otherwise without a compile error. A probe TPipe
   named with a seventh argument stops a six-parameter tree; b361384's
   compatibility member stops that one; its local slot count must be the 5th
   argument. The stub has the three heads (isa_test plants the other two). */
static const char pto__isa_tpipe_text[] =
    "\n"
    "/* pto writes pto::TPipe<FlagID, DirType, SlotSize, SlotNum, LocalSlotNum, IsNoSplit>, pto-isa's a2a3\n"
    "   declaration in hw-native-sys 1d87336 (<..., uint32_t LocalSlotNum = 2, bool IsNoSplit = false,\n"
    "   bool EN_UNIT_FLAG = false>). Two public trees read the 5th and 6th arguments otherwise and would\n"
    "   still compile: older ones declare <..., LocalSlotNum, bool EN_UNIT_FLAG> (six parameters: the\n"
    "   probe's seventh argument is an error there), b361384 <..., uint32_t CompatLocalSlotNumOrIsNoSplit,\n"
    "   uint32_t LocalSlotNum, bool EN_UNIT_FLAG> (`..., 1, false>` is an unsplit pipe with 0 local\n"
    "   slots there). Build against a pto-isa of the first form (docs/isa-target.md, \"TPipe's arguments\"). */\n"
    "using pto_isa_tpipe_probe = pto::TPipe<0, pto::Direction::DIR_C2V, 512, 2, 1, false, false>;\n"
    "template <typename P, typename = void> struct pto_isa_tpipe_compat { static constexpr bool value = false; };\n"
    "template <typename P> struct pto_isa_tpipe_compat<P, decltype(static_cast<void>(P::EffectiveLocalSlotNum))> { static constexpr bool value = true; };\n"
    "static_assert(!pto_isa_tpipe_compat<pto_isa_tpipe_probe>::value && pto_isa_tpipe_probe::RingFiFo::LOCAL_SLOT_NUM == 1,\n"
    "              \"this pto-isa's TPipe does not read its 5th and 6th arguments as LocalSlotNum, IsNoSplit (b361384's \"\n"
    "              \"CompatLocalSlotNumOrIsNoSplit form?): use a pto-isa whose a2a3 TPipe declares them so\");\n";

/* After the head, when a pipe is split (pto__isa_pipe_lane). */
static const char pto__isa_pipe_text[] =
    "\n"
    "/* the lane pto-isa's TPUSH / TPOP miss on a split pipe: they place an AIV's part of a slot at\n"
    "   get_subblockid() x its step, a register simpler's runtime leaves 0 on both AIVs, so each AIV's\n"
    "   TPipe adds (its lane - get_subblockid()) x the step through setEntryOffset: the lane from\n"
    "   PTO_ISA_SUBBLOCK(args) under that runtime, nothing where the launch programs the register (a\n"
    "   native launch that defines PTO_ISA_SUBBLOCK(args) as get_subblockid()). Define it before this\n"
    "   file (e.g. as 0) for a pto-isa that takes the lane from elsewhere. */\n"
    "#ifndef PTO_ISA_PIPE_LANE\n"
    "#define PTO_ISA_PIPE_LANE(args) (static_cast<int>(PTO_ISA_SUBBLOCK(args)) - static_cast<int>(get_subblockid()))\n"
    "#endif\n";

/* One warning per kernel expression that may leave int64 (pto__emit_ovf,
   with the device's bounds: pto__emit_cap), at the expression: the device
   has no simulator to report an overflow at run time, so the isa target
   computes such an expression wrapped (pto__isa_ovf_text), which the
   user should know. Returns how many there were. */
static int pto__isa_ovf_one(pto__emitter *E, int32_t ex, int *last)
{
    const pto_module *m = E->m;
    int64_t lo, hi;
    int budget = PTO__EMIT_RANGE_BUDGET;
    pto_buf t;
    if (ex < 0 || ex >= m->n_exprs || m->exprs[ex].kind <= PTO_E_NRANKS ||
        !pto__emit_ovf(m, ex, E->kb, pto__emit_cap(E), &lo, &hi, &budget))
        return 0;
    if (*last == ex) return 1;   /* (an operand list sync shares) */
    *last = ex;
    memset(&t, 0, sizeof t);
    t.ctx = E->ctx;
    pto_print_expr(m, ex, &t);
    pto_warning(E->ctx, m->exprs[ex].loc,
                "emit (isa): '%s' may overflow int64 for some values of its dims and scalars; the device cannot "
                "report it, so the isa target computes it wrapped (pto_isa_i*, no undefined behaviour) and a "
                "wrong index goes unnoticed there (ptoc run's simulator stops at such an overflow)",
                t.data ? t.data : "...");
    pto_buf_free(&t);
    return 1;
}

static int pto__isa_ovf_block(pto__emitter *E, int32_t b, int *last)
{
    const pto_module *m = E->m;
    int32_t s;
    int n = 0, i;
    if (b < 0 || b >= m->n_blocks) return 0;
    for (s = m->blocks[b].head; s >= 0 && s < m->n_stmts; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        if (st->kind == PTO_ST_OP) {
            for (i = st->arg0; i >= 0 && i < st->arg0 + st->nargs && i < m->n_operands; i++) {
                const pto_operand *o = &m->operands[i];
                if (o->kind == PTO_O_GM) n += pto__isa_ovf_one(E, o->e[0], last) + pto__isa_ovf_one(E, o->e[1], last);
                else if (o->kind == PTO_O_INT) n += pto__isa_ovf_one(E, o->e[0], last);
            }
            continue;
        }
        if (st->kind == PTO_ST_TILE && st->ref >= 0 && st->ref < m->n_tiles)
            n += pto__isa_ovf_one(E, m->tiles[st->ref].valid_r, last) + pto__isa_ovf_one(E, m->tiles[st->ref].valid_c, last);
        for (i = 0; i < (st->kind == PTO_ST_LET ? 1 : st->kind == PTO_ST_IF ? 2 : st->kind == PTO_ST_FOR ? 3 : 0); i++)
            n += pto__isa_ovf_one(E, st->e[i], last);
        n += pto__isa_ovf_block(E, st->body, last) + pto__isa_ovf_block(E, st->orelse, last);
    }
    return n;
}

static int pto__isa_ovf_warn(pto__emitter *E)
{
    int32_t k;
    int n = 0, last = -1;
    for (k = 0; k < E->m->n_kernels; k++) {
        E->kb = E->m->kernels[k].blocks;
        n += pto__isa_ovf_block(E, E->m->kernels[k].body, &last);
    }
    return n;
}

/* Whether any loop needs pto__isa_loop_text. */
static int pto__isa_needs_loop(const pto_module *m)
{
    int32_t s;
    for (s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].kind == PTO_ST_FOR && (pto__emit_next_unsafe(m, &m->stmts[s]) || pto__emit_iter_unsafe(m, &m->stmts[s])))
            return 1;
    return 0;
}

static pto_status pto__isa_emit(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src);

/* A NULL kernel_src still runs every check (into a scratch buffer), as
   pto_emit does: "nothing to write" must not read as "this would emit". */
PTODEF pto_status pto_emit_isa(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src)
{
    pto_buf scratch;
    pto_status st;
    if (kernel_src) return pto__isa_emit(ctx, m, desc, kernel_src);
    memset(&scratch, 0, sizeof scratch);
    scratch.ctx = ctx;
    st = pto__isa_emit(ctx, m, desc, &scratch);
    pto_buf_free(&scratch);
    return st;
}

static pto_status pto__isa_emit(pto_ctx *ctx, const pto_module *m, const pto_emit_desc *desc, pto_buf *kernel_src)
{
    pto__isa *I;
    pto__emitter *E;
    uint8_t *vo = NULL, *to = NULL, *po = NULL;
    pto_status st;
    int32_t k, s, before = pto_error_count(ctx);
    if (pto__need_verified(ctx, m, "pto_emit_isa") != PTO_OK || pto__need_synced(ctx, m, "pto_emit_isa") != PTO_OK)
        return PTO_ERR_USER;
    if (!kernel_src->ctx) kernel_src->ctx = ctx;
    I = (pto__isa *)pto_alloc(ctx, sizeof *I);
    if (!I) return PTO_ERR_INTERNAL;
    memset(I, 0, sizeof *I);
    E = &I->e;
    E->ctx = ctx;
    E->m = m;
    E->out = kernel_src;
    E->isa = 1;
    E->hook_op = pto__isa_op;
    E->hook_tile = pto__isa_tile;
    E->hook_section = pto__isa_section;
    for (k = 0; k < PTO__NKEYS; k++) E->scratch[k].ctx = ctx;
    pto__emit_file_name(E, desc && desc->filename ? desc->filename
                                                  : pto_file_name(ctx, m->n_kernels ? m->kernels[0].loc.file : m->file));
    st = pto__emit_check(E);
    if (st == PTO_OK) st = pto__isa_check(E);
    if (st == PTO_OK) st = pto__emit_compile(E);
    if (st == PTO_OK) st = pto__emit_names(E, PTO__NAMES_VAR, &E->var_name, &vo);
    if (st == PTO_OK) st = pto__emit_names(E, PTO__NAMES_TILE, &E->tile_name, &to);
    if (st == PTO_OK) st = pto__emit_names(E, PTO__NAMES_PARAM, &E->param_name, &po);
    if (st == PTO_OK) st = pto__isa_rename(E, E->var_name, vo, m->n_vars);
    if (st == PTO_OK) st = pto__isa_rename(E, E->tile_name, to, m->n_tiles);
    if (st == PTO_OK) st = pto__isa_rename(E, E->param_name, po, m->n_params);
    if (st == PTO_OK) st = pto__emit_lens(E);
    if (st == PTO_OK) {
        E->var_used = (uint8_t *)pto_alloc(ctx, (size_t)(m->n_vars ? m->n_vars : 1));
        E->param_used = (uint8_t *)pto_alloc(ctx, (size_t)(m->n_params ? m->n_params : 1));
        /* no simulator lifetimes on a device: no tdecl is placed (the table stays empty) */
        if (!E->var_used || !E->param_used) st = PTO_ERR_INTERNAL;
    }
    if (st == PTO_OK) st = pto__isa_mm_views(I);
    if (st == PTO_OK && m->n_cvpipes > 0) {   /* the tiles a tpop fills: no TASSIGN, not in the peak */
        E->tile_popped = (uint8_t *)pto_alloc(ctx, (size_t)(m->n_tiles ? m->n_tiles : 1));
        if (!E->tile_popped) st = PTO_ERR_INTERNAL;
        for (k = 0; st == PTO_OK && k < m->n_tiles; k++) E->tile_popped[k] = 0;
        for (s = 0; st == PTO_OK && s < m->n_stmts; s++) {
            const pto_stmt *ps = &m->stmts[s];
            if (ps->kind == PTO_ST_OP && ps->op == PTO_OP_TPOP && ps->nargs == 2 &&
                m->operands[ps->arg0].kind == PTO_O_TILE && m->operands[ps->arg0].ref >= 0 &&
                m->operands[ps->arg0].ref < m->n_tiles && m->operands[ps->arg0 + 1].kind == PTO_O_CVPIPE)
                E->tile_popped[m->operands[ps->arg0].ref] = 1;
        }
    }
    /* every kernel's scratch room before the first byte: with a sink, text
       written is text sent, so the errors come first (pto__isa_kernel
       places each scratch again) */
    for (k = 0; st == PTO_OK && k < m->n_kernels; k++) st = pto__isa_plan_scratch(I, k);
    if (st == PTO_OK) {
        pto_buf_printf(kernel_src, pto__isa_head, PTO_VERSION_STRING, E->file);
        if (pto__isa_needs_sat(m)) pto_buf_puts(kernel_src, pto__isa_sat_text);
        if (pto__isa_needs_loop(m)) pto_buf_puts(kernel_src, pto__isa_loop_text);
        if (pto__isa_ovf_warn(E)) pto_buf_puts(kernel_src, pto__isa_ovf_text);
        if (m->n_cvpipes > 0) pto_buf_puts(kernel_src, pto__isa_tpipe_text);
        if (pto__isa_needs_lane(m)) pto_buf_puts(kernel_src, pto__isa_pipe_text);
        for (k = 0; k < m->n_kernels && E->st == PTO_OK; k++) {
            memset(E->var_used, 0, (size_t)(m->n_vars ? m->n_vars : 1));
            memset(E->param_used, 0, (size_t)(m->n_params ? m->n_params : 1));
            pto__isa_kernel(I, k);
        }
        st = E->st;
    }
    for (k = 0; k < PTO__NKEYS; k++)
        if (E->scratch[k].oom) st = PTO_ERR_INTERNAL;
    if (kernel_src->oom) st = PTO_ERR_INTERNAL;
    pto__emit_nul(kernel_src);
    if (st == PTO_OK) pto_buf_flush(kernel_src);
    pto__emit_free(E, vo, to, po);
    pto_free(ctx, I->mm_view);
    pto_free(ctx, I);
    if (st == PTO_ERR_INTERNAL && pto_error_count(ctx) == before) pto__oom(ctx);   /* as in pto_emit */
    return st;
}
