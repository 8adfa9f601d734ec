#!/bin/sh
# isa_test.sh - the second emission target (ptoc emit --target isa, src/emit_isa.c).
# No device here, so the output is checked by compiling it:
#   - every example, every tests/ok kernel and every kernel of the spec
#     (/work/shared/spec/pto-text.md when present), and the tests/user and
#     tests/sweep kernels the target takes, is emitted with --target isa
#     and compiled by g++ -std=c++17 -fsyntax-only -Wall -Werror against
#     tests/isa/pto_isa_stub.hpp (the API surface we emit, with the real names,
#     template shapes and tile-type rules); a mix kernel once per core type;
#   - a tload whose tile's padding an op reads is followed by pto-isa's TFILLPAD
#     (TFILLPAD_INPLACE for vec, the NZ form for mat), ordered by the sync pass's
#     flags after the load and before the reader; none where nothing reads it;
#   - what the target cannot express yet is an error with its location, and so
#     is a vector op on a dtype pto-isa's a2a3 headers refuse (one table);
#   - planted emitter slips (TMATMUL operands swapped, a vec tile on the cube,
#     TLOAD / TSTORE operands swapped, an int where an event id goes, a
#     misaligned vec tile, a column op given a [R, 1] column or TCOLSUM
#     without its tmp, TSTORE of an acc to a tensor the fixpipe cannot cast
#     to) must NOT compile: the stub is strict enough;
#   - mix kernels with cube/vector pipes (c2v, v2c, both; split up_down, left_right,
#     none): TPipe per pipe and section, TPUSH / TPOP / TFREE, the hidden GM pipe
#     buffer sharded per block; a slip in a pipe call must not compile either;
#   - golden sources of vadd, mm, layernorm and mixmm (PTO_UPDATE_GOLDEN=1 rewrites them);
#   - re-emission is byte-identical; --target sim is still the default.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/isa_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -20 $out/log; }
try() { name=$1; shift; if "$@" >$out/log 2>&1; then ok "$name"; else bad "$name"; fi; }
fails() { name=$1; shift; if "$@" >$out/log 2>&1; then bad "$name (was accepted)"; else ok "$name"; fi; cp $out/log $out/err; }
CXX="g++ -std=c++17 -fsyntax-only -Wall -Werror -I tests/isa"

# every kernel we have: examples, tests/ok, and the spec's examples
mkdir -p $out/src
spec=/work/shared/spec/pto-text.md
if [ -f $spec ]; then
    awk -v dir=$out/src '/^```/ { if (f) { close(f); f = "" } else { inb = 1 } next }
        inb && /^kernel / && !f { n++; f = dir "/spec" n ".pto" }
        f { print > f }' $spec
fi
n=0
for f in examples/*.pto tests/ok/*.pto $out/src/*.pto; do
    [ -f "$f" ] || continue
    case $f in $out/*) $ptoc check "$f" >/dev/null 2>&1 || continue;; esac  # grammar, not a kernel
    b=$(basename "$f" .pto)
    d=$out/$b
    if grep -q ' ranks' "$f"; then
        fails "$b: a ranks kernel is refused" $ptoc emit --target isa "$f" -o $d
        try "$b: ... with its location" grep -q "^$f:[0-9]*:[0-9]*: error: emit (isa): kernel '[a-z]*' is a ranks kernel" $out/err
        continue
    fi
    if [ "$b" = capacity_edge ]; then   # fills a5's UB exactly: past the 248 KiB the isa target plans
        fails "$b: a5 UB filled to the last byte is refused on the isa target" $ptoc emit --target isa "$f" -o $d
        try "$b: ... naming the margin" grep -q "a5's top 8 KiB of UB, which PTOAS leaves free" $out/err
        continue
    fi
    try "$b: emit --target isa" $ptoc emit --target isa "$f" -o $d
    try "$b: g++ -fsyntax-only -Wall -Werror" $CXX $d/kernel.cpp
    if grep -q '__DAV_CUBE__' $d/kernel.cpp; then
        try "$b: ... built for the AIC" $CXX -D__DAV_CUBE__ $d/kernel.cpp
        try "$b: ... built for the AIV" $CXX -D__DAV_VEC__ $d/kernel.cpp
    fi
    n=$((n + 1))
done
try "at least the six examples compiled" test $n -ge 6
# the user-style and sweep kernels too: each is emitted and compiled, or refused by the isa
# target with its location (ranks kernels, dtypes a2a3 lacks)
u=0
for f in tests/user/*.pto tests/sweep/*.pto; do
    [ -f "$f" ] || continue
    b=u_$(basename "$f" .pto)
    if $ptoc emit --target isa "$f" -o $out/$b > $out/uerr 2>&1; then
        if grep -q '__DAV_CUBE__' $out/$b/kernel.cpp; then
            try "$f: compiles for the AIC and the AIV" sh -c "$CXX -D__DAV_CUBE__ $out/$b/kernel.cpp && $CXX -D__DAV_VEC__ $out/$b/kernel.cpp"
        else
            try "$f: compiles" $CXX $out/$b/kernel.cpp
        fi
        u=$((u + 1))
    else
        try "$f: refused by the isa target at a location" grep -q "^$f:[0-9]*:[0-9]*: error: emit (isa): " $out/uerr
    fi
done
try "(most of them are emitted)" test $u -ge 20

# cube/vector pipes: every direction and split kind the target takes, each built for the AIC
# and the AIV (tests/ok/pipe_*.pto; mixmm, mixv2c and split_slots come from above)
for b in both lr whole; do
    try "$b: the simulator runs it clean" sh -c "$ptoc run tests/ok/pipe_$b.pto > $out/log 2>&1 && grep -q 'result      match' $out/log && grep -q 'simulator   no reports' $out/log"
    try "$b: emit --target isa" $ptoc emit --target isa tests/ok/pipe_$b.pto -o $out/$b
    try "$b: g++ -fsyntax-only -Wall -Werror" $CXX $out/$b/kernel.cpp
    try "$b: ... built for the AIC" $CXX -D__DAV_CUBE__ $out/$b/kernel.cpp
    try "$b: ... built for the AIV" $CXX -D__DAV_VEC__ $out/$b/kernel.cpp
done
m=$out/mixmm/kernel.cpp
try "mixmm: the GM pipe buffer follows the tensors, sharded by block" grep -q '__gm__ uint8_t \*pto_gm_pipe_buffer = pto_isa_gm<uint8_t>(args, 3) + static_cast<int64_t>(PTO_ISA_BLOCK_IDX(args)) \* 262144;' $m
try "mixmm: ... never by subblock" sh -c "! grep 'pto_gm_pipe_buffer.*SUBBLOCK' $m"
try "mixmm: one TPipe per section" test "$(grep -c 'using pto_pipe_0_t = pto::TPipe<0, pto::Direction::DIR_C2V, 32768, 8, [12], false>;' $m)" = 2
try "mixmm: ... on this block's part of the buffer, the consumer's planned UB base" test "$(grep -c 'pto_pipe_0_t pto_pipe_0(pto_gm_pipe_buffer + 0, 163840, 0);' $m)" = 2
try "mixmm: the AIV's TPipe keeps its local slots inside the reservation" grep -q 'TPipe<0, pto::Direction::DIR_C2V, 32768, 8, 1, false>' $m
try "mixmm: TPUSH of the acc" grep -q 'pto::TPUSH<pto_pipe_0_t, decltype(acc), pto::TileSplitAxis::TILE_UP_DOWN>(pto_pipe_0, acc);' $m
try "mixmm: TPOP binds the popped tile" grep -q 'pto::TPOP<pto_pipe_0_t, decltype(t), pto::TileSplitAxis::TILE_UP_DOWN>(pto_pipe_0, t);' $m
try "mixmm: ... which has no TASSIGN" sh -c "! grep -q 'TASSIGN(t,' $m"
try "mixmm: TFREE (empty on a2a3)" grep -q 'pto::TFREE<pto_pipe_0_t, pto::TileSplitAxis::TILE_UP_DOWN>(pto_pipe_0);' $m
try "mixv2c: the second pipe's ring and flags follow the first's" grep -q 'using pto_pipe_1_t = pto::TPipe<2, pto::Direction::DIR_C2V, 16384, 4, [12], false>;' $out/mixv2c/kernel.cpp
try "mixv2c: ... at +65536 of the block's part" grep -q 'pto_pipe_1(pto_gm_pipe_buffer + 65536, 180224, 0);' $out/mixv2c/kernel.cpp
try "mixv2c: the cube pops into mat" grep -q 'pto::TPOP<pto_pipe_0_t, decltype(xm), pto::TileSplitAxis::TILE_UP_DOWN>(pto_pipe_0, xm);' $out/mixv2c/kernel.cpp
try "both: DIR_BOTH, four flags, 2 rings x 4 slots per block" grep -q 'using pto_pipe_0_t = pto::TPipe<0, pto::Direction::DIR_BOTH, 16384, 4, 2, false>;' $out/both/kernel.cpp
try "both: ... the buffer is 131072 bytes per block" grep -q 'PTO_ISA_BLOCK_IDX(args)) \* 131072;' $out/both/kernel.cpp
try "lr: left_right" grep -q 'pto::TPUSH<pto_pipe_0_t, decltype(xv), pto::TileSplitAxis::TILE_LEFT_RIGHT>(pto_pipe_0, xv);' $out/lr/kernel.cpp
try "lr: 3 local slots of half a slot: 2 on the AIV" grep -q 'using pto_pipe_1_t = pto::TPipe<2, pto::Direction::DIR_C2V, 16384, 8, 2, false>;' $out/lr/kernel.cpp
try "whole: no split, IsNoSplit" grep -q 'using pto_pipe_0_t = pto::TPipe<0, pto::Direction::DIR_C2V, 16384, 2, 1, true>;' $out/whole/kernel.cpp
try "whole: ... TILE_NO_SPLIT" grep -q 'pto::TPOP<pto_pipe_0_t, decltype(t), pto::TileSplitAxis::TILE_NO_SPLIT>(pto_pipe_0, t);' $out/whole/kernel.cpp
# a pushed tile with a valid region: TPUSH moves the whole tile, through a whole-tile view
try "push_tail: TPUSH of a whole-tile view of the row-tail acc" grep -q 'pto::TPUSH<pto_pipe_0_t, decltype(pto_whole_[0-9]*), pto::TileSplitAxis::TILE_UP_DOWN>(pto_pipe_0, pto_whole_[0-9]*);' $out/push_tail/kernel.cpp
try "push_tail: ... a view of the acc's bytes with no valid region" grep -q 'pto::TileAcc<float, 64, 128, 64, 128> pto_whole_' $out/push_tail/kernel.cpp
# the padding of a tile with a valid region: tload zeroes it on the simulator, pto-isa's TLOAD
# does not, so an op that reads it gets pto-isa's TFILLPAD after the load, synchronised like
# any op (lower.c puts a tfillpad there for the isa target). inorder FILE RE...: each RE
# matches a line after the line the one before it matched.
inorder() { f=$1; shift; awk 'BEGIN { n = ARGC - 1; for (i = 2; i <= n; i++) re[i - 1] = ARGV[i]; ARGC = 2; k = 1 }
    k < n && $0 ~ re[k] { k++ } END { exit k < n }' "$f" "$@"; }
# review26b H2: pto-isa's TPUSH / TPOP place an AIV's part of a split slot at get_subblockid() x
# the step, 0 on both AIVs under simpler's runtime: each AIV's TPipe adds the rest from pto's lane
try "mixmm: the AIV's consumer gets its lane's part of each slot" grep -q '^        pto_pipe_0.cons.setEntryOffset(PTO_ISA_PIPE_LANE(args) \* 16384); ' $m
try "mixmm: ... on the AIV only (the AIC moves whole slots)" test "$(grep -c '[.]setEntryOffset(' $m)" = 1
try "mixmm: ... inside the vector section, after the TPipe" inorder $m '^#if defined\(__DAV_VEC__\)' 'pto_pipe_0_t pto_pipe_0\(' 'pto_pipe_0.cons.setEntryOffset\(' 'pto::TPOP<'
try "mixmm: PTO_ISA_PIPE_LANE is pto's lane less the register pto-isa reads, unless defined" grep -q '^#define PTO_ISA_PIPE_LANE(args) (static_cast<int>(PTO_ISA_SUBBLOCK(args)) - static_cast<int>(get_subblockid()))$' $m
try "lr: left_right: one row of the AIV's half, for the v2c producer and the c2v consumer" sh -c "grep -q 'pto_pipe_0.prod.setEntryOffset(PTO_ISA_PIPE_LANE(args) \* 128);' $out/lr/kernel.cpp && grep -q 'pto_pipe_1.cons.setEntryOffset(PTO_ISA_PIPE_LANE(args) \* 128);' $out/lr/kernel.cpp && test \$(grep -c '[.]setEntryOffset(' $out/lr/kernel.cpp) = 2"
try "both: the AIV's consumer and producer, half the slot each" sh -c "grep -q 'pto_pipe_0.cons.setEntryOffset(PTO_ISA_PIPE_LANE(args) \* 8192);' $out/both/kernel.cpp && grep -q 'pto_pipe_0.prod.setEntryOffset(PTO_ISA_PIPE_LANE(args) \* 8192);' $out/both/kernel.cpp"
try "whole: an unsplit pipe gets no entry offset and no PTO_ISA_PIPE_LANE" sh -c "! grep -q 'setEntryOffset\|PTO_ISA_PIPE_LANE' $out/whole/kernel.cpp"
try "vadd: no PTO_ISA_PIPE_LANE without a split pipe" sh -c "! grep -q PTO_ISA_PIPE_LANE $out/vadd/kernel.cpp"
try "mixmm: builds with PTO_ISA_PIPE_LANE defined before the file (a native launch)" $CXX -D__DAV_VEC__ '-DPTO_ISA_PIPE_LANE(args)=0' $m
# review26b M3: TPipe's 5th and 6th arguments mean other things in other pto-isa trees; a file with
# pipes checks the tree at compile time (the stub declares the two other heads on request)
try "mixmm: the TPipe form check after the head" grep -q '^static_assert(!pto_isa_tpipe_compat<pto_isa_tpipe_probe>::value && pto_isa_tpipe_probe::RingFiFo::LOCAL_SLOT_NUM == 1,$' $m
try "whole: ... in an unsplit pipe's file too" grep -q '^using pto_isa_tpipe_probe = pto::TPipe<0, pto::Direction::DIR_C2V, 512, 2, 1, false, false>;$' $out/whole/kernel.cpp
try "vadd: ... and none without a pipe" sh -c "! grep -q pto_isa_tpipe $out/vadd/kernel.cpp"
for d in -D__DAV_CUBE__ -D__DAV_VEC__; do
    fails "mixmm $d: b361384's TPipe (CompatLocalSlotNumOrIsNoSplit) does not compile" $CXX $d -DPTO_STUB_TPIPE_B361384 $m
    try "... at the check, saying why" grep -q "error: static assertion failed: this pto-isa's TPipe does not read its 5th and 6th arguments as LocalSlotNum, IsNoSplit" $out/err
    fails "mixmm $d: a six-parameter TPipe (EN_UNIT_FLAG 6th) does not compile" $CXX $d -DPTO_STUB_TPIPE_SIX $m
    try "... at the probe" grep -q "kernel.cpp:[0-9]*:[0-9]*: error: wrong number of template arguments (7" $out/err
done
p=$out/pad_rows/kernel.cpp
try "pad_rows: the row-tail tile read past its valid rows gets TFILLPAD_INPLACE into a pad-zero whole view" grep -q 'pto::Tile<pto::TileType::Vec, float, 16, 64, pto::BLayout::RowMajor, 16, 64, pto::SLayout::NoneBox, 512, pto::PadValue::Zero> pto_pad_[0-9]*;' $p
try "pad_rows: ... after the load, MTE2 -> V, then a V barrier before the row sum" inorder $p 'pto::TLOAD\(t, ' 'wait_flag\(PIPE_MTE2, PIPE_V, ' 'if \(t.GetValidRow\(\) < 16 \|\| t.GetValidCol\(\) < 64\) pto::TFILLPAD_INPLACE\(pto_pad_[0-9]*, t\);' 'pipe_barrier\(PIPE_V\)' 'pto::TROWSUM\(rs, pto_rows_[0-9]*, '
try "pad_rows: ... the sync pass's note names the fill as the source of the barrier" grep -q 'sync: RAW vec\[0x0000,0x1000) tfillpad t (pad_rows.pto:14) -> trowsum rs' $p
try "pad_rows: a tile whose padding no op reads gets no fill" sh -c "! grep -q 'TFILLPAD.*x2' $p"
# an isa dump keeps the fill right after its tload: read back, it runs on the simulator (the
# sim target drops the fill), checks, and emits the same fills (no second one) (review21 M2)
for st in lower plan sync; do
    $ptoc dump --target isa $st tests/ok/pad_rows.pto > $out/pad_dump_$st.pto 2>$out/log || bad "dump --target isa $st pad_rows"
    try "pad_rows' isa $st dump: runs on the simulator" $ptoc run $out/pad_dump_$st.pto
    try "... checks for the isa target" $ptoc check --target isa $out/pad_dump_$st.pto
    try "... emits with as many TFILLPADs as its source" sh -c "$ptoc emit --target isa $out/pad_dump_$st.pto -o $out/pad_dump_$st &&
        [ \$(grep -c 'pto::TFILLPAD' $out/pad_dump_$st/kernel.cpp) = \$(grep -c 'pto::TFILLPAD' $p) ]"
done
try "tail: the scaled tail tile is read in place only: no fill" sh -c "! grep -q TFILLPAD $out/tail/kernel.cpp"
k=$out/pad_ktail/kernel.cpp
try "pad_ktail: a K tail on mat tiles: TFILLPAD(mat, mat) after each TLOAD" test "$(grep -c 'pto::TFILLPAD(\([ab]1\), \1);' $k)" = 2
try "pad_ktail: ... on MTE2 after the load, before the MTE2 -> MTE1 flag of the TMOV" inorder $k 'pto::TLOAD\(a1, ' 'if \(a1.GetValidCol\(\) < 64\) pto::TFILLPAD\(a1, a1\);' 'set_flag\(PIPE_MTE2, PIPE_MTE1, ' 'wait_flag\(PIPE_MTE2, PIPE_MTE1, ' 'pto::TMOV\(a0, a1\);'
try "pad_ktail: ... b1's too" inorder $k 'pto::TLOAD\(b1, ' 'if \(b1.GetValidRow\(\) < 64\) pto::TFILLPAD\(b1, b1\);' 'set_flag\(PIPE_MTE2, PIPE_MTE1, ' 'wait_flag\(PIPE_MTE2, PIPE_MTE1, ' 'pto::TMOV\(b0, b1\);'
$ptoc dump --target isa lower tests/ok/pad_rows.pto > $out/dump_isa 2>&1
try "ptoc dump --target isa lower shows the fill after its tload" inorder $out/dump_isa '^ *tload t, x\[r, 0\]' '^ *tfillpad t  *# by lower: fill: zero .t. outside its valid region'
$ptoc dump lower tests/ok/pad_rows.pto > $out/dump_sim 2>&1
try "... and ptoc dump lower (the simulator target) none" sh -c "grep -q 'tload t' $out/dump_sim && ! grep -q tfillpad $out/dump_sim"
fails "(inorder fails when the lines come in another order)" inorder $k 'pto::TMOV\(a0, a1\);' 'pto::TLOAD\(a1, '
# a column [R, 1] read past its valid rows: pto-isa's TFILLPAD pads rows, so it is refused
cat > $out/padcol.pto <<'PTO'
kernel padcol(in x: f32[16, 1], out y: f32[16, 1]) vector {
  tile v: vec f32[16, 1] valid(12, 1)
  tile w: vec f32[16, 1]
  tload v, x[0, 0]
  tadd w, v, v
  tstore y[0, 0], w
}
PTO
try "(a column read past its valid rows runs on the simulator)" $ptoc run $out/padcol.pto
fails "... and is refused by the isa target" $ptoc emit --target isa $out/padcol.pto -o $out/padcol
try "... at the tload, naming the tile and why" grep -q "^$out/padcol.pto:4:3: error: emit (isa): tload into column tile 'v' \[16, 1\], whose rows past its valid region an op reads: the isa target cannot zero a column's padding yet (pto-isa's TFILLPAD pads row-major tiles)" $out/err
fails "ptoc check --target isa refuses it too" $ptoc check --target isa $out/padcol.pto
try "... with the same message" grep -q "^$out/padcol.pto:4:3: error: emit (isa): tload into column tile 'v'" $out/err
sed 's/  tile w: vec f32\[16, 1\]$/  tile w: vec f32[16, 1] valid(12, 1)/' $out/padcol.pto > $out/padcol2.pto
try "... unless no op reads past the column's valid rows" $ptoc emit --target isa $out/padcol2.pto -o $out/padcol2
try "... (then it has no fill)" sh -c "! grep -q TFILLPAD $out/padcol2/kernel.cpp"
# a row reduction reduces d's valid rows; pto-isa's reduces its source's: a d with all rows gets
# the all-rows view (pad_rows above), the same valid rows need none, anything else is refused
cat > $out/rowvalid.pto <<'PTO'
kernel rowvalid(in x: f32[N, 64], out s: f32[N, 1]) vector {
  for r = 0 to N step 16 {
    let nr = min(16, N - r)
    tile t: vec f32[16, 64] valid(nr, 64)
    tile rs: vec f32[16, 1] valid(nr, 1)
    tload t, x[r, 0]
    trowmax rs, t
    tstore s[r, 0], rs
  }
}
PTO
try "rowvalid: a row reduction into the source's valid rows is emitted" $ptoc emit --target isa $out/rowvalid.pto -o $out/rowvalid
try "... as the tile itself (no view, no fill)" sh -c "grep -q 'pto::TROWMAX(rs, t, pto_tmp_[0-9]*);' $out/rowvalid/kernel.cpp && ! grep -q 'pto_rows_\|TFILLPAD' $out/rowvalid/kernel.cpp"
try "... and compiles" $CXX $out/rowvalid/kernel.cpp
sed 's/valid(nr, 1)/valid(8, 1)/' $out/rowvalid.pto > $out/rowvalid2.pto
fails "rowvalid2: a row reduction into other valid rows than the source's is refused" $ptoc check --target isa $out/rowvalid2.pto
try "... at the op, naming both tiles and why" grep -q "^$out/rowvalid2.pto:7:5: error: emit (isa): trowmax into 'rs', whose valid rows are not those of 't': pto-isa's TROWMAX reduces its source's valid rows" $out/err
# a column [R, 1] is a DN tile, which pto-isa's a2a3 TLOAD / TSTORE move as one contiguous run:
# its GM window must be a tensor of one column (pad_rows stores its column sums to f32[16, 1])
try "pad_rows: the column's GM view has a row stride of one element" grep -q 'pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 1>, pto::Stride<1, 1, 1, 1, 1>> pto_gm_[0-9]*(s + 0 \* 1 + 0);' $out/pad_rows/kernel.cpp
sed 's/out s: f32\[16, 1\]/out s: f32[16, 4]/' tests/ok/pad_rows.pto > $out/colwin.pto
try "(a column stored to a column of a wider tensor runs on the simulator)" $ptoc run -D N=40 -D C=50 $out/colwin.pto
fails "... and is refused by the isa target" $ptoc check --target isa $out/colwin.pto
try "... at the tstore, naming the tile, the tensor and why" grep -q "^$out/colwin.pto:22:3: error: emit (isa): tstore of column tile 'acc' \[16, 1\] to 's', a tensor of more than one column: pto-isa's a2a3 TSTORE moves a column tile as one contiguous run" $out/err
cat > $out/colwin2.pto <<'PTO'
kernel colwin2(in x: f32[32, 32], out y: f32[32, 1]) vector {
  tile t: vec f32[32, 32]
  tile v: vec f32[32, 1]
  tload t, x[0, 0]
  tload v, x[0, 0]
  trowsum v, t
  tstore y[0, 0], v
}
PTO
fails "a column loaded from a wider tensor is refused" $ptoc emit --target isa $out/colwin2.pto -o $out/colwin2
try "... at the tload" grep -q "^$out/colwin2.pto:5:3: error: emit (isa): tload of column tile 'v' \[32, 1\] from 'x', a tensor of more than one column" $out/err
# a row broadcast: pto-isa takes the operand with the result's valid region as the tile, so a
# source with a row tail broadcast into a whole tile goes through a whole view (after its fill)
cat > $out/rowexp.pto <<'PTO'
kernel rowexp(in x: f32[N, 64], in m: f32[16, 1], out y: f32[N, 64]) vector {
  tile v: vec f32[16, 1]
  tload v, m[0, 0]
  for r = 0 to N step 16 {
    let nr = min(16, N - r)
    tile t: vec f32[16, 64] valid(nr, 64)
    tile u: vec f32[16, 64]
    tload t, x[r, 0]
    trowexpandsub u, t, v
    tstore y[r, 0], t
    tmuls t, u, 2.0
    tstore y[r, 0], t
  }
}
PTO
try "(rowexp runs on the simulator)" $ptoc run -D N=40 $out/rowexp.pto
try "rowexp: a row tail broadcast into a whole tile is emitted" $ptoc emit --target isa $out/rowexp.pto -o $out/rowexp
try "... through a whole view of the source, after its fill" inorder $out/rowexp/kernel.cpp 'pto::Tile<pto::TileType::Vec, float, 16, 64, pto::BLayout::RowMajor, 16, 64> pto_full_[0-9]*;' 'pto::TFILLPAD_INPLACE\(pto_pad_[0-9]*, t\);' 'pto::TROWEXPANDSUB\(u, pto_full_[0-9]*, v\);'
try "... and compiles" $CXX $out/rowexp/kernel.cpp
sed 's/    tile u: vec f32\[16, 64\]$/    tile u: vec f32[16, 64] valid(8, 64)/' $out/rowexp.pto > $out/rowexp2.pto
fails "a row broadcast into another partial region than its source's is refused" $ptoc check --target isa $out/rowexp2.pto
try "... at the op, saying why" grep -q "^$out/rowexp2.pto:9:5: error: emit (isa): trowexpandsub into 'u', whose valid region is not that of 't': pto-isa's TROWEXPAND\* takes the operand whose valid region is the result's as the tile" $out/err
sed 's/    trowexpandsub u, t, v/    tcolexpandsub u, t, w/; s/  tile v: vec f32\[16, 1\]/  tile w: vec f32[1, 64]/; s/  tload v, m\[0, 0\]/  tload w, x[0, 0]/' $out/rowexp.pto > $out/colexp.pto
try "(colexp runs on the simulator)" $ptoc run -D N=40 $out/colexp.pto
try "colexp: a column broadcast of a row-tail tile into a whole tile goes through its whole view" sh -c "$ptoc emit --target isa $out/colexp.pto -o $out/colexp && grep -q 'pto::TCOLEXPANDSUB(u, pto_full_[0-9]*, w);' $out/colexp/kernel.cpp"
try "... and compiles" $CXX $out/colexp/kernel.cpp
try "push_tail: a whole popped tile broadcast into a row-tail result goes to a whole view of the result" grep -q 'pto::TCOLEXPANDADD(pto_full_[0-9]*, t, bv);' $out/push_tail/kernel.cpp
# tmov vec -> vec: pto-isa's TMOV copies the smaller of the two valid regions, a tmov d's
cat > $out/tmovtail.pto <<'PTO'
kernel tmovtail(in x: f32[N, 64], out y: f32[N, 64]) vector {
  for r = 0 to N step 16 {
    let nr = min(16, N - r)
    tile t: vec f32[16, 64] valid(nr, 64)
    tile u: vec f32[16, 64]
    tile o: vec f32[16, 64] valid(nr, 64)
    tload t, x[r, 0]
    tmov u, t
    tmuls o, u, 2.0
    tstore y[r, 0], o
  }
}
PTO
try "(tmovtail runs on the simulator)" $ptoc run -D N=40 $out/tmovtail.pto
try "tmovtail: a row-tail tile moved into a whole one goes through its whole view, after its fill" sh -c "$ptoc emit --target isa $out/tmovtail.pto -o $out/tmovtail && grep -q 'pto::TMOV(u, pto_full_[0-9]*);' $out/tmovtail/kernel.cpp && grep -q TFILLPAD_INPLACE $out/tmovtail/kernel.cpp"
try "... and compiles" $CXX $out/tmovtail/kernel.cpp
sed 's/    tile u: vec f32\[16, 64\]$/    tile u: vec f32[16, 64] valid(8, 64)/' $out/tmovtail.pto > $out/tmovtail2.pto
fails "a tmov into another partial region than its source's is refused" $ptoc check --target isa $out/tmovtail2.pto
try "... saying why" grep -q "^$out/tmovtail2.pto:8:5: error: emit (isa): tmov into 'u', whose valid region is not that of 't': pto-isa's TMOV copies the smaller of the two regions" $out/err
# pto-isa's a2a3 row broadcasts use the top 8 KB of UB (TMP_UB_OFFSET) as a hidden scratch:
# a kernel with one must keep its vec tiles below 188416; the planner reserves those bytes
# for the isa target, so tiles that need them are its overflow error, naming the scratch
cat > $out/tmpub.pto <<'PTO'
kernel tmpub(in x: f32[128, 128], in m: f32[128, 1], out y: f32[128, 128]) vector {
  tile t: vec f32[128, 128]
  tile u: vec f32[128, 128]
  tile w: vec f32[112, 128]
  tile v: vec f32[128, 1]
  tload t, x[0, 0]
  tload w, x[0, 0]
  tload v, m[0, 0]
  trowexpandsub u, t, v
  tadd u, u, t
  tstore y[0, 0], u
  tstore y[0, 0], w
}
PTO
try "(tmpub, 188928 B of vec, runs on the simulator)" $ptoc run $out/tmpub.pto
fails "... and is refused by the isa target" $ptoc check --target isa $out/tmpub.pto
try "... at the peak, saying why" grep -q "^$out/tmpub.pto:9:3: error: kernel 'tmpub': vec overflows: needs 197120 bytes, capacity 196608 (8192 reserved for pto-isa's row-broadcast scratch \[188416, 196608) on the isa target); at line 9" $out/err
sed 's/f32\[112, 128\]/f32[96, 128]/' $out/tmpub.pto > $out/tmpub2.pto
try "... and accepted below it" $ptoc check --target isa $out/tmpub2.pto
sed 's/  trowexpandsub u, t, v/  tsub u, t, t/' $out/tmpub.pto > $out/tmpub3.pto
try "... and without a row broadcast" $ptoc check --target isa $out/tmpub3.pto
# a popped tile with a valid region: TPOP binds the tile itself, so it cannot carry one
sed 's/    tile t: vec f32\[32, 128\]$/    tile t: vec f32[32, 128] valid(nr, 128)/' tests/ok/push_tail.pto > $out/src_popvalid.pto
try "(a popped tile with a valid region runs on the simulator)" $ptoc check $out/src_popvalid.pto
fails "... and is refused by the isa target" $ptoc emit --target isa $out/src_popvalid.pto -o $out/popvalid
try "... at the tpop, saying why" grep -q "^$out/src_popvalid.pto:29:5: error: emit (isa): tpop into tile 't', which has a valid region: pto-isa's TPOP fills a whole tile" $out/err
# unsupported pipes: an error at the pipe
fails "a v2c pipe without a split is refused" $ptoc emit --target isa tests/diag/v2c_guarded.pto -o $out/v2cns
try "... at the pipe, saying why" grep -q "^tests/diag/v2c_guarded.pto:3:8: error: emit (isa): pipe 'up': a v2c pipe without a split is not supported by the isa target: only AIV 0 pushes" $out/err
sed 's/ split(up_down)//; s/vec f32\[32, 64\]/vec f32[64, 64]/g; s/    tpush p, u/    if subblock == 0 {\n      tpush p, u\n    }/' tests/ok/pipe_both.pto > $out/src_bothns.pto
try "(an unsplit both pipe runs on the simulator)" $ptoc check $out/src_bothns.pto
fails "... and is refused" $ptoc emit --target isa $out/src_bothns.pto -o $out/bothns
try "... at the pipe" grep -q "^$out/src_bothns.pto:2:8: error: emit (isa): pipe 'p': a both pipe without a split" $out/err
( echo "arch a5"; cat examples/mixmm.pto ) > $out/src_a5.pto
fails "an a5 pipe is refused" $ptoc emit --target isa $out/src_a5.pto -o $out/a5
try "... at the pipe" grep -q "^$out/src_a5.pto:8:8: error: emit (isa): pipe 'q': cube/vector pipes are supported by the isa target on a2a3 only" $out/err

# the output says what the simulator target says
try "vadd: an xN tile's slot comes from the loop index" grep -q 'pto::TASSIGN(b, 32768 + (i % 2) \* 16384);' $out/vadd/kernel.cpp
try "vadd: rotating event ids" grep -q 'wait_flag(PIPE_V, PIPE_MTE2, static_cast<event_t>(' $out/vadd/kernel.cpp
try "vadd: syncs keep their dependency comment" grep -q '/\* sync: RAW vec\[0x8000,0xc000) tload b (vadd.pto:10) -> tadd c (vadd.pto:11) \*/' $out/vadd/kernel.cpp
try "vadd: block index from the runtime's dispatch context" grep -q '(int64_t)PTO_ISA_BLOCK_IDX(args)' $out/vadd/kernel.cpp
try "vadd: ... args[48]'s block_idx unless defined" grep -q '^#define PTO_ISA_BLOCK_IDX(args) (reinterpret_cast<__gm__ int32_t \*>(static_cast<uint64_t>((args)\[48\]))\[0\])$' $out/vadd/kernel.cpp
# review17: simpler's runtime does not program the registers the CCE intrinsics read: none is called
# (outside the directives: PTO_ISA_PIPE_LANE's definition subtracts get_subblockid() to undo pto-isa's use)
for f in vadd mm mixmm mix both; do
    try "$f: no CCE topology intrinsic is called" sh -c "g++ -x c++ -fpreprocessed -dD -E -P $out/$f/kernel.cpp | grep -v '^#' | (! grep -q 'get_block_idx()\|get_block_num()\|get_subblockid()')"
done
try "tail: a run-time valid region" grep -q 'pto::DYNAMIC, 64> t(static_cast<unsigned>(pto_emit_min(16, N - r)));' $out/tail/kernel.cpp
try "tail: a dynamic dim from the descriptor" grep -q 'const int64_t N = pto_isa_dim(args, 0, 0);' $out/tail/kernel.cpp
try "tail: a float scalar after the tensors" grep -q 'const float alpha = pto_isa_f32(args, 2);' $out/tail/kernel.cpp
try "mm: TMATMUL_ACC reads and writes acc" grep -q 'pto::TMATMUL_ACC(acc, acc, a0, b0);' $out/mm/kernel.cpp
# a row tail (valid rows known at run time): mad writes ceil16(m) rows per 16-column block of the
# acc, so TMATMUL gets all-rows views of the left and acc tiles (the stub asserts it)
try "mm_lefttail: TMATMUL on all-rows views of the left and acc tiles" grep -q 'pto::TMATMUL_ACC(pto_mm_[0-9]*, pto_mm_[0-9]*, pto_mm_[0-9]*, b0);' $out/mm_lefttail/kernel.cpp
try "mm_lefttail: ... the acc view keeps the valid cols" grep -q 'pto::TileAcc<float, 64, 64, 64, 64> pto_mm_' $out/mm_lefttail/kernel.cpp
try "mm_lefttail: ... TSTORE still takes the acc's valid region" grep -q 'pto::TileAcc<float, 64, 64, pto::DYNAMIC, 64> acc(' $out/mm_lefttail/kernel.cpp
try "softmax: row reductions get the scratch tile" grep -q 'pto::TROWSUM(s, t, pto_tmp_' $out/softmax/kernel.cpp
try "mix: subblock index from the runtime's dispatch context" grep -q '(int64_t)PTO_ISA_SUBBLOCK(args)' $out/mix/kernel.cpp
try "layernorm: gamma and beta by column broadcasts" grep -q 'pto::TCOLEXPANDMUL(t, t, g);' $out/layernorm/kernel.cpp
try "layernorm: ... [1, C] row tiles are row major" grep -q 'pto::Tile<pto::TileType::Vec, float, 1, 256, pto::BLayout::RowMajor, 1, 256> g;' $out/layernorm/kernel.cpp
try "columns: TCOLSUM gets a tmp tile and the sequential sum" grep -q 'pto::TCOLSUM(csum, a, pto_tmp_[0-9]*, false);' $out/columns/kernel.cpp
try "columns: ... a [1, C] tmp above the planned peak" grep -q 'pto::Tile<pto::TileType::Vec, float, 1, 64, pto::BLayout::RowMajor, 1, 64> pto_tmp_' $out/columns/kernel.cpp
try "mm_f16out: TSTORE from the f32 acc to a half tensor" grep -q 'pto::GlobalTensor<half, pto::Shape<1, 1, 1, 64, 64>, pto::Stride<1, 1, 1, 64, 1>> pto_gm_2(c + 0 \* 64 + 0);' $out/mm_f16out/kernel.cpp
try "mm_f16out: ... and to a bfloat16_t tensor" grep -q 'pto::GlobalTensor<bfloat16_t, pto::Shape<1, 1, 1, 64, 64>, pto::Stride<1, 1, 1, 64, 1>> pto_gm_3(cb + 0 \* 64 + 0);' $out/mm_f16out/kernel.cpp
try "columns: TCOLMAX / TCOLMIN take no tmp" grep -q 'pto::TCOLMAX(cmax, a);' $out/columns/kernel.cpp

# planted slips must not compile
plant() {   # NAME SRCDIR SED [CXX FLAGS]
    sed "$3" $out/$2/kernel.cpp > $out/planted.cpp
    if cmp -s $out/planted.cpp $out/$2/kernel.cpp; then bad "$1 (the plant did not apply)"; return; fi
    fails "$1 is rejected" $CXX $4 $out/planted.cpp
}
plant "TMATMUL with left and right swapped" mm 's/pto::TMATMUL(acc, a0, b0)/pto::TMATMUL(acc, b0, a0)/'
plant "TMATMUL into a vec tile" mm 's/pto::TileAcc<float, 128, 128, 128, 128> acc;/pto::Tile<pto::TileType::Vec, float, 128, 128> acc;/'
plant "a left tile declared as vec" mm 's/pto::TileLeft<half, 128, 64, 128, 64>/pto::Tile<pto::TileType::Vec, half, 128, 64>/'
plant "TMATMUL on the row-tail tiles themselves (mad would lay the acc out with ceil16(nr) rows)" mm_lefttail 's/pto::TMATMUL(pto_mm_[0-9]*, pto_mm_[0-9]*, b0)/pto::TMATMUL(acc, a0, b0)/'
try "... by the mad stride check" grep -q "mad writes ceil16(m) rows per block column" $out/err
plant "TPUSH of the row-tail acc itself" push_tail 's/TPUSH<pto_pipe_0_t, decltype(pto_whole_[0-9]*), \(.*\)(pto_pipe_0, pto_whole_[0-9]*)/TPUSH<pto_pipe_0_t, decltype(acc), \1(pto_pipe_0, acc)/' -D__DAV_CUBE__
plant "TLOAD with its operands swapped" vadd 's/pto::TLOAD(a, pto_gm_0)/pto::TLOAD(pto_gm_0, a)/'
plant "TSTORE with its operands swapped" vadd 's/pto::TSTORE(pto_gm_2, c)/pto::TSTORE(c, pto_gm_2)/'
plant "an int as an event id" vadd 's/set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0)/set_flag(PIPE_V, PIPE_MTE2, 0)/'
plant "a misaligned vec row" vadd 's/float, 16, 256, pto::BLayout::RowMajor, 16, 256> a;/float, 16, 3, pto::BLayout::RowMajor, 16, 3> a;/'
plant "a tile element type unlike the tensor's" vadd 's/pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 256>, pto::Stride<1, 1, 1, 256, 1>> pto_gm_0/pto::GlobalTensor<int32_t, pto::Shape<1, 1, 1, 16, 256>, pto::Stride<1, 1, 1, 256, 1>> pto_gm_0/'
plant "TSTORE from a float acc to an int8_t tensor" mm_f16out 's/pto::GlobalTensor<half, \(.*\) pto_gm_2(c/pto::GlobalTensor<int8_t, \1 pto_gm_2((int8_t *)c/'
plant "TSTORE from an int32_t acc to a half tensor" mm_f16out 's/pto::TileAcc<float,/pto::TileAcc<int32_t,/'
plant "TSTORE from a vec float tile to a half tensor" vadd 's/pto::GlobalTensor<float, \(.*\) pto_gm_2(\([a-z]*\)/pto::GlobalTensor<half, \1 pto_gm_2((half *)\2/'
plant "a dynamic valid row without its value" tail 's/t(static_cast<unsigned>(pto_emit_min(16, N - r)));/t;/'
plant "a row reduction without its scratch" softmax 's/pto::TROWSUM(s, t, pto_tmp_[0-9]*)/pto::TROWSUM(s, t)/'
plant "a column sum without its tmp and isBinary" columns 's/pto::TCOLSUM(csum, a, pto_tmp_[0-9]*, false)/pto::TCOLSUM(csum, a)/'
plant "a column reduction into a [R, 1] column" columns 's/pto::TCOLMAX(cmax, a)/pto::TCOLMAX(m, a)/'
plant "a column broadcast of a [R, 1] column" layernorm 's/pto::TCOLEXPANDMUL(t, t, g)/pto::TCOLEXPANDMUL(t, t, var)/'
plant "TPUSH of a mat tile on the AIC" mixv2c 's/TPUSH<pto_pipe_1_t, decltype(acc), \(.*\)(pto_pipe_1, acc)/TPUSH<pto_pipe_1_t, decltype(xm), \1(pto_pipe_1, xm)/' -D__DAV_CUBE__
try "... by the acc check" grep -q "TPUSH on the AIC: an acc tile" $out/err
plant "TPOP on an AIV without the pipe's split" mixmm 's/TPOP<pto_pipe_0_t, decltype(t), pto::TileSplitAxis::TILE_UP_DOWN>/TPOP<pto_pipe_0_t, decltype(t), pto::TileSplitAxis::TILE_NO_SPLIT>/' -D__DAV_VEC__
plant "TPOP into a tile of another dtype" mixmm 's/float, 32, 128, pto::BLayout::RowMajor, 32, 128> t;/half, 32, 128, pto::BLayout::RowMajor, 32, 128> t;/' -D__DAV_VEC__
try "... by the slot check" grep -q "TPOP: the tile is the part of a slot" $out/err
try "pad_rows: the row sum reduces all 16 rows of rs through a view of t with all rows valid (pto-isa reduces the source's valid rows)" grep -q 'pto::Tile<pto::TileType::Vec, float, 16, 64, pto::BLayout::RowMajor, 16, pto::DYNAMIC> pto_rows_1(static_cast<unsigned>(C));' $out/pad_rows/kernel.cpp
plant "a row sum of the row-tail tile itself (pto-isa would reduce its nr valid rows only)" pad_rows 's/pto::TROWSUM(rs, pto_rows_[0-9]*, /pto::TROWSUM(rs, t, /'
plant "a column tile stored to a strided column (a2a3 moves it as one contiguous run)" pad_rows 's/pto::Shape<1, 1, 1, 16, 1>, pto::Stride<1, 1, 1, 1, 1>>/pto::Shape<1, 1, 1, 16, 1>, pto::Stride<1, 1, 1, 4, 1>>/'
plant "a row broadcast of the row-tail tile itself (pto-isa would take the column for the tile)" rowexp 's/pto::TROWEXPANDSUB(u, pto_full_[0-9]*, v)/pto::TROWEXPANDSUB(u, t, v)/'
plant "a column broadcast of a whole popped tile into the row-tail result itself (pto-isa would take the row for the tile)" push_tail 's/pto::TCOLEXPANDADD(pto_full_[0-9]*, t, bv)/pto::TCOLEXPANDADD(o, t, bv)/' -D__DAV_VEC__
plant "a column broadcast of the row-tail tile itself (pto-isa would take the row for the tile)" colexp 's/pto::TCOLEXPANDSUB(u, pto_full_[0-9]*, w)/pto::TCOLEXPANDSUB(u, t, w)/'
plant "a tmov of the row-tail tile itself (pto-isa would copy its nr rows only)" tmovtail 's/pto::TMOV(u, pto_full_[0-9]*)/pto::TMOV(u, t)/'
plant "TMATMUL of half tiles into an int32_t acc" mm 's/pto::TileAcc<float, 128, 128, 128, 128> acc;/pto::TileAcc<int32_t, 128, 128, 128, 128> acc;/'
plant "TMOV of an acc tile to a vec tile (a2a3 moves acc to mat only)" mm 's/pto::TMATMUL(acc, a0, b0);/pto::TMATMUL(acc, a0, b0); pto::Tile<pto::TileType::Vec, float, 128, 128> pto_v; pto::TMOV(pto_v, acc);/'
sed 's/pto::TMATMUL(acc, a0, b0);/pto::TMATMUL(acc, a0, b0); pto::Tile<pto::TileType::Mat, half, 128, 128, pto::BLayout::ColMajor, 128, 128, pto::SLayout::RowMajor, 512> pto_v; pto::TMOV(pto_v, acc);/' $out/mm/kernel.cpp > $out/planted2.cpp
try "... while the same TMOV to a half mat tile compiles" $CXX $out/planted2.cpp
# review22 M4: a2a3's plain TMOV acc -> mat converts float to half / bfloat16_t only (CheckTMovAccToMat)
plant "TMOV of a float acc to a float mat tile" mm 's/pto::TMATMUL(acc, a0, b0);/pto::TMATMUL(acc, a0, b0); pto::Tile<pto::TileType::Mat, float, 128, 128, pto::BLayout::ColMajor, 128, 128, pto::SLayout::RowMajor, 512> pto_v; pto::TMOV(pto_v, acc);/'
try "... by the acc -> mat dtype check" grep -q "TMOV: acc -> mat converts float to half / bfloat16_t only" $out/err
plant "TMOV of an int32_t acc to an int32_t mat tile" mm 's/pto::TMATMUL(acc, a0, b0);/pto::TMATMUL(acc, a0, b0); pto::TileAcc<int32_t, 128, 128> pto_a; pto::Tile<pto::TileType::Mat, int32_t, 128, 128, pto::BLayout::ColMajor, 128, 128, pto::SLayout::RowMajor, 512> pto_v; pto::TMOV(pto_v, pto_a);/'
try "... by the acc -> mat dtype check" grep -q "TMOV: acc -> mat converts float to half / bfloat16_t only" $out/err
sed 's/pto::TMATMUL(acc, a0, b0);/pto::TMATMUL(acc, a0, b0); pto::Tile<pto::TileType::Mat, float, 128, 128, pto::BLayout::ColMajor, 128, 128, pto::SLayout::RowMajor, 512> pto_v; pto::TMOV(pto_v, acc);/' $out/mm/kernel.cpp > $out/planted2.cpp
try "... which a5's plain TMOV has (PTO_NPU_ARCH_A5)" $CXX -DPTO_NPU_ARCH_A5 $out/planted2.cpp
plant "TFILLPAD_INPLACE into a view whose pad value is Null" pad_rows 's/pto::PadValue::Zero> pto_pad_/pto::PadValue::Null> pto_pad_/'
plant "TFILLPAD_INPLACE into a view with the tile's valid region" pad_rows 's/RowMajor, 16, 64, pto::SLayout::NoneBox, 512, pto::PadValue::Zero> pto_pad_/RowMajor, 8, 64, pto::SLayout::NoneBox, 512, pto::PadValue::Zero> pto_pad_/'
plant "the mat form of TFILLPAD on a vec tile" pad_rows 's/pto::TFILLPAD_INPLACE(pto_pad_[0-9]*, t)/pto::TFILLPAD(t, t)/'
plant "TFILLPAD_INPLACE on a mat tile" pad_ktail 's/pto::TFILLPAD(a1, a1)/pto::TFILLPAD_INPLACE(a1, a1)/'
plant "a TPipe whose slot is not the AIC's tile" mixmm '0,/TPipe<0, pto::Direction::DIR_C2V, 32768/s//TPipe<0, pto::Direction::DIR_C2V, 16384/' -D__DAV_CUBE__
plant "TPOP on the AIC into a left tile" mixv2c 's/TPOP<pto_pipe_0_t, decltype(xm), \(.*\)(pto_pipe_0, xm)/TPOP<pto_pipe_0_t, decltype(xl), \1(pto_pipe_0, xl)/' -D__DAV_CUBE__
plant "TPOP on an AIV from a V2C pipe" mixv2c 's/TPOP<pto_pipe_1_t, decltype(p), \(.*\)(pto_pipe_1, p)/TPOP<pto_pipe_0_t, decltype(p), \1(pto_pipe_0, p)/' -D__DAV_VEC__
plant "a both pipe whose flags run past 15" both 's/TPipe<0, pto::Direction::DIR_BOTH/TPipe<13, pto::Direction::DIR_BOTH/' -D__DAV_VEC__
plant "more local slots than slots" whole 's/TPipe<0, pto::Direction::DIR_C2V, 16384, 2, 1, true>/TPipe<0, pto::Direction::DIR_C2V, 16384, 2, 3, true>/' -D__DAV_VEC__

# what the target cannot express yet: an error with its location
cat > $out/full.pto <<'PTO'
kernel full(in x: f32[64, 512], out y: f32[64, 1]) vector {
  tile t: vec f32[64, 512]
  tile s: vec f32[64, 1]
  tload t, x[0, 0]
  trowsum s, t
  tstore y[0, 0], s
}
PTO
fails "no vec room for the scratch tile is refused" $ptoc emit --target isa $out/full.pto -o $out/full
try "... at the row reduction, saying why" grep -q "^$out/full.pto:5:3: error: emit (isa): trowsum needs a 131072-byte vec scratch tile, but the plan uses 131328 of 196608 bytes" $out/err
try "... and the simulator target still takes it" $ptoc emit $out/full.pto -o $out/full_sim

# pto-isa's a2a3 column ops take f16 / f32 (and i32 for the reductions)
cat > $out/colbf.pto <<'PTO'
kernel colbf(in x: bf16[16, 32], in b: bf16[1, 32], out y: bf16[16, 32]) vector {
  tile t: vec bf16[16, 32]
  tile v: vec bf16[1, 32]
  tload t, x[0, 0]
  tload v, b[0, 0]
  tcolexpandadd t, t, v
  tstore y[0, 0], t
}
PTO
fails "a bf16 column broadcast is refused" $ptoc emit --target isa $out/colbf.pto -o $out/colbf
try "... at the op, saying which dtypes pto-isa takes" grep -q "^$out/colbf.pto:6:3: error: emit (isa): tcolexpandadd on bf16 tiles: pto-isa's a2a3 TCOLEXPANDADD takes f16 or f32 tiles only" $out/err
try "... and the simulator target runs it" $ptoc run $out/colbf.pto

# every vector op's dtypes, from one table (emit_isa.c, pto__isa_dtypes: pto-isa's a2a3
# static_asserts): NAME|DTYPE|OP|TAKES is refused at the op, naming the op, the dtype and
# what it takes; NAME|DTYPE|OP is emitted and compiles
dtk() {   # dtk NAME DTYPE OP: a kernel whose line 6 is OP on DTYPE tiles t [32, 32] and v [32, 1]
    cat > $out/$1.pto <<PTO
kernel $1(in x: $2[32, 32], in xc: $2[32, 1], out y: $2[32, 32]) vector {
  tile t: vec $2[32, 32]
  tile v: vec $2[32, 1]
  tload t, x[0, 0]
  tload v, xc[0, 0]
  $3
  tstore y[0, 0], t
}
PTO
}
while IFS='|' read -r nm dt op takes; do
    o=${op%% *}; api=$(echo "$o" | tr a-z A-Z)
    dtk "$nm" "$dt" "$op"
    fails "$o on $dt is refused" $ptoc emit --target isa $out/$nm.pto -o $out/$nm
    try "... at the op: $o, $dt and what $api takes" grep -q \
        "^$out/$nm.pto:6:3: error: emit (isa): $o on $dt tiles: pto-isa's a2a3 $api takes $takes tiles only\$" $out/err
done <<'TABLE'
dt_muls_bf|bf16|tmuls t, t, 0.5|f16, f32 or i32
dt_adds_i8|i8|tadds t, t, 1|f16, f32 or i32
dt_add_bf|bf16|tadd t, t, t|f16, f32 or i32
dt_max_i8|i8|tmax t, t, t|f16, f32 or i32
dt_div_i32|i32|tdiv t, t, t|f16 or f32
dt_divs_i8|i8|tdivs t, t, 2|f16, f32 or i32
dt_abs_i32|i32|tabs t, t|f16 or f32
dt_neg_bf|bf16|tneg t, t|f16, f32 or i32
dt_exp_bf|bf16|texp t, t|f16 or f32
dt_fill_i8|i8|texpands t, 3|f16, f32 or i32
dt_rsum_bf|bf16|trowsum v, t|f16, f32 or i32
dt_rexp_i32|i32|trowexpandmul t, t, v|f16 or f32
TABLE
dtk dt_check_bf bf16 "tmuls t, t, 0.5"
fails "ptoc check --target isa refuses it too" $ptoc check --target isa $out/dt_check_bf.pto
try "... with the same message" grep -q "^$out/dt_check_bf.pto:6:3: error: emit (isa): tmuls on bf16 tiles: pto-isa's a2a3 TMULS takes f16, f32 or i32 tiles only" $out/err
try "... while the simulator target runs it" $ptoc run $out/dt_check_bf.pto
( echo "arch a5"; cat $out/dt_check_bf.pto ) > $out/dt_a5.pto
try "on a5 the a2a3 table does not apply" $ptoc emit --target isa $out/dt_a5.pto -o $out/dt_a5
while IFS='|' read -r nm dt op; do
    dtk "$nm" "$dt" "$op"
    try "$op on $dt is emitted" $ptoc emit --target isa $out/$nm.pto -o $out/$nm
    try "... and compiles" $CXX $out/$nm/kernel.cpp
done <<'TABLE'
dt_ok_adds|i32|tadds t, t, 16777217
dt_ok_muls|f16|tmuls t, t, 0.5
dt_ok_mul|i32|tmul t, t, t
dt_ok_div|f16|tdiv t, t, t
dt_ok_relu|i32|trelu t, t
dt_ok_neg|i32|tneg t, t
dt_ok_fill|i32|texpands t, 3
dt_ok_rsum|i32|trowsum v, t
dt_ok_rexp|f16|trowexpandsub t, t, v
TABLE

# tcvt: a2a3's TCVT has 11 of the 20 conversions between distinct dtypes of ours (its dispatch
# has no else: a missing pair compiles and writes nothing); each missing one is refused at the
# op with a chain of conversions it has; each present one is emitted and compiles
cvk() {   # cvk NAME SRC DST: line 5 is tcvt d, a from SRC to DST
    cat > $out/$1.pto <<PTO
kernel $1(in x: $2[16, 64], out y: $3[16, 64]) vector {
  tile a: vec $2[16, 64]
  tile d: vec $3[16, 64]
  tload a, x[0, 0]
  tcvt d, a
  tstore y[0, 0], d
}
PTO
}
while IFS='|' read -r nm sd dd route; do
    cvk "$nm" "$sd" "$dd"
    if [ -n "$route" ]; then
        fails "tcvt $sd -> $dd is refused" $ptoc check --target isa $out/$nm.pto
        try "... at the op, with the chain $route" grep -q "^$out/$nm.pto:5:3: error: emit (isa): tcvt from $sd to $dd: pto-isa's a2a3 TCVT has no $sd -> $dd conversion (the tile would stay unwritten on a device): convert in steps it has, $route, through tiles" $out/err
    else
        try "tcvt $sd -> $dd is emitted" $ptoc emit --target isa $out/$nm.pto -o $out/$nm
        try "... and compiles" $CXX $out/$nm/kernel.cpp
    fi
done <<'TABLE'
cv_f32_i8|f32|i8|f32 -> f16 -> i8
cv_i8_f32|i8|f32|i8 -> f16 -> f32
cv_f16_bf16|f16|bf16|f16 -> f32 -> bf16
cv_bf16_f16|bf16|f16|bf16 -> f32 -> f16
cv_bf16_i8|bf16|i8|bf16 -> f32 -> f16 -> i8
cv_i32_bf16|i32|bf16|i32 -> f32 -> bf16
cv_i32_i8|i32|i8|i32 -> f16 -> i8
cv_i8_bf16|i8|bf16|i8 -> f16 -> f32 -> bf16
cv_i8_i32|i8|i32|i8 -> f16 -> i32
cv_f32_f16|f32|f16|
cv_f32_bf16|f32|bf16|
cv_f32_i32|f32|i32|
cv_f16_f32|f16|f32|
cv_f16_i32|f16|i32|
cv_f16_i8|f16|i8|
cv_bf16_f32|bf16|f32|
cv_bf16_i32|bf16|i32|
cv_i32_f32|i32|f32|
cv_i32_f16|i32|f16|
cv_i8_f16|i8|f16|
TABLE
cvk cv_same_f16 f16 f16
fails "a same-dtype tcvt other than f32's is refused" $ptoc check --target isa $out/cv_same_f16.pto
try "... with tmov as the way" grep -q "^$out/cv_same_f16.pto:5:3: error: emit (isa): tcvt from f16 to f16: .*: copy with tmov\$" $out/err
cvk cv_same_f32 f32 f32
try "f32 -> f32 (round only) is emitted" $ptoc emit --target isa $out/cv_same_f32.pto -o $out/cv_same_f32
cvk cv_sim f32 i8
try "the simulator target runs f32 -> i8" $ptoc run $out/cv_sim.pto
( echo "arch a5"; cat $out/cv_f32_i8.pto ) > $out/cv_a5.pto
try "on a5 the a2a3 conversion table does not apply" $ptoc emit --target isa $out/cv_a5.pto -o $out/cv_a5

# a scalar on an integer tile is saturated to its element type, as the reference does (C++'s
# int64_t -> int32_t would wrap): a scalar param or a non-constant expression goes through
# pto_isa_sat_*, a literal in range is written as it is; the helpers' values on the host
mkdir -p $out/sat
cat > $out/sat/k.pto <<'EOF2'
kernel k(in x: i32[16, 32], out y: i32[16, 32], scalar s: i32, scalar f: f32, scalar h: f16) vector {
  tile a: vec i32[16, 32]
  tload a, x[0, 0]
  tadds a, a, s * 100
  tmuls a, a, f
  tmaxs a, a, h
  tmaxs a, a, 7
  tmins a, a, 3e10
  tstore y[0, 0], a
}
EOF2
try "sat: emit" $ptoc emit --target isa $out/sat/k.pto -o $out/sat/o
try "sat: tadds of s * 100 saturates" grep -q "TADDS(a, a, pto_isa_sat_i32(s \* 100))" $out/sat/o/kernel.cpp
try "sat: tmuls of an f32 scalar saturates" grep -q "TMULS(a, a, pto_isa_satf_i32(f))" $out/sat/o/kernel.cpp
try "sat: ... an f16 one (read as float) too" grep -q "TMAXS(a, a, pto_isa_satf_i32(h))" $out/sat/o/kernel.cpp
try "sat: a literal in range is as written" grep -q "TMAXS(a, a, 7.0)" $out/sat/o/kernel.cpp
try "sat: a literal out of range saturates" grep -q "TMINS(a, a, pto_isa_satf_i32(3" $out/sat/o/kernel.cpp
try "sat: compiles" $CXX $out/sat/o/kernel.cpp
try "sat: an i32 scalar is the slot's low 32 bits" grep -q 'const int64_t s = static_cast<int32_t>(args\[2\]); /\* scalar i32 \*/' $out/sat/o/kernel.cpp
try "sat: no helpers where nothing needs them" sh -c "! grep -q pto_isa_sat $out/vadd/kernel.cpp"
{
    echo '#include <cstdint>'
    echo '#include <cmath>'
    echo '#include <cstdio>'
    echo '#define AICORE'
    echo '#define PTO_ISA_INLINE inline'
    sed -n '/^PTO_ISA_INLINE int32_t pto_isa_sat_i32/,/^}$/p' $out/sat/o/kernel.cpp
    sed -n '/^PTO_ISA_INLINE int8_t pto_isa_satf_i8/,/^}$/p' $out/sat/o/kernel.cpp
    cat <<'EOF2'
int main()
{
    int bad = 0;
    bad |= pto_isa_sat_i32(3000000000LL) != INT32_MAX || pto_isa_sat_i32(-3000000000LL) != INT32_MIN;
    bad |= pto_isa_sat_i32(-5) != -5 || pto_isa_sat_i8(300) != 127 || pto_isa_sat_i8(-300) != -128 || pto_isa_sat_i8(-7) != -7;
    bad |= pto_isa_satf_i32(NAN) != 0 || pto_isa_satf_i32(2.5f) != 2 || pto_isa_satf_i32(-2.5f) != -2;
    bad |= pto_isa_satf_i32(3e9f) != INT32_MAX || pto_isa_satf_i32(-3e9f) != INT32_MIN || pto_isa_satf_i32(2147483520.0f) != 2147483520;
    bad |= pto_isa_satf_i8(-200.0f) != -128 || pto_isa_satf_i8(127.9f) != 127 || pto_isa_satf_i8(-0.5f) != 0;
    return bad;
}
EOF2
} > $out/sat/t.cpp
try "sat: the helpers saturate as pto_scalar_as does" sh -c "g++ -std=c++17 -Wall -Werror -o $out/sat/t $out/sat/t.cpp && $out/sat/t"

# an index expression the compiler cannot bound (review28 L4, tests/diag/idx_overflow.pto: n * 2^62 with n an i32):
# the device cannot report an overflow, so the target warns at the expression and computes it wrapped through
# uint64_t (pto_isa_imul: no undefined behaviour); a bounded one stays plain; none where nothing needs it
mkdir -p $out/ovf
$ptoc emit --target isa tests/diag/idx_overflow.pto -o $out/ovf/o >$out/ovf/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^tests/diag/idx_overflow.pto:6:13: warning: emit (isa): 'n \* 4611686018427387904' may overflow int64 for some values of its dims and scalars; the device cannot report it, so the isa target computes it wrapped (pto_isa_i\*, no undefined behaviour)" $out/ovf/log &&
   [ "$(grep -c warning $out/ovf/log)" = 1 ]; then ok "ovf: one warning at the expression"; else bad "ovf: one warning at the expression (rc $rc)"; cat $out/ovf/log; fi
try "ovf: the product wrapped, the bounded let plain" sh -c "grep -q 'const int64_t r = pto_isa_imul(n, 4611686018427387904);' $out/ovf/o/kernel.cpp && grep -q 'const int64_t c = (int64_t)PTO_ISA_BLOCK_IDX(args) \* 32;' $out/ovf/o/kernel.cpp"
try "ovf: compiles" $CXX $out/ovf/o/kernel.cpp
try "ovf: no helpers where nothing needs them" sh -c "! grep -q pto_isa_i[a-z]*\( $out/vadd/kernel.cpp"
{
    echo '#include <cstdint>'
    echo '#define PTO_ISA_INLINE inline'
    grep '^PTO_ISA_INLINE int64_t pto_isa_i[a-z]*(' $out/ovf/o/kernel.cpp
    cat <<'EOF2'
int main()
{
    int bad = 0;
    bad |= pto_isa_imul(4, 4611686018427387904LL) != 0 || pto_isa_imul(-3, 5) != -15 || pto_isa_imul(INT64_MIN, -1) != INT64_MIN;
    bad |= pto_isa_iadd(INT64_MAX, 1) != INT64_MIN || pto_isa_iadd(-2, 7) != 5 || pto_isa_isub(INT64_MIN, 1) != INT64_MAX;
    bad |= pto_isa_ineg(INT64_MIN) != INT64_MIN || pto_isa_ineg(5) != -5;
    return bad;
}
EOF2
} > $out/ovf/t.cpp
try "ovf: the helpers wrap modulo 2^64 with no signed overflow (UBSan)" sh -c "g++ -std=c++17 -Wall -Werror -fsanitize=undefined -fno-sanitize-recover=all -o $out/ovf/t $out/ovf/t.cpp && $out/ovf/t"

# one file, several kernels (review17): -DPTO_ISA_KERNEL=K builds kernel K alone as kernel_entry,
# the one entry simpler's runtime loads from an object; a cube kernel is left out of an AIV build
# and a vector kernel out of an AIC build
try "hmn: emit" $ptoc emit --target isa examples/host_mm_norm.pto -o $out/hmn
PP="g++ -x c++ -std=c++17 -E -P -I tests/isa"
try "hmn: both kernels by default" sh -c "$PP $out/hmn/kernel.cpp | grep -q 'void kernel_mm(' && $PP $out/hmn/kernel.cpp | grep -q 'void kernel_rmsnorm('"
try "hmn: -DPTO_ISA_KERNEL=1: rmsnorm alone, as kernel_entry" sh -c "$PP -DPTO_ISA_KERNEL=1 $out/hmn/kernel.cpp > $out/hmn/k1.i && grep -q 'void kernel_entry(' $out/hmn/k1.i && ! grep -q 'kernel_mm\|kernel_rmsnorm' $out/hmn/k1.i"
try "hmn: ... compiles" $CXX -DPTO_ISA_KERNEL=1 $out/hmn/kernel.cpp
try "hmn: -DPTO_ISA_KERNEL=0: mm alone, compiles" $CXX -DPTO_ISA_KERNEL=0 $out/hmn/kernel.cpp
try "hmn: an AIV build leaves the cube kernel out" sh -c "$PP -D__DAV_VEC__ $out/hmn/kernel.cpp > $out/hmn/v.i && ! grep -q 'kernel_mm(' $out/hmn/v.i && grep -q 'kernel_rmsnorm(' $out/hmn/v.i"
try "hmn: an AIC build leaves the vector kernel out" sh -c "$PP -D__DAV_CUBE__ $out/hmn/kernel.cpp > $out/hmn/c.i && grep -q 'kernel_mm(' $out/hmn/c.i && ! grep -q 'kernel_rmsnorm(' $out/hmn/c.i"
try "hmn: ... both compile" sh -c "$CXX -D__DAV_VEC__ $out/hmn/kernel.cpp && $CXX -D__DAV_CUBE__ $out/hmn/kernel.cpp"

# a .pto name that is one of the file's macros (PTO_ISA_*) or the runtime's entry is renamed
mkdir -p $out/nm
cat > $out/nm/k.pto <<'EOF2'
kernel k(in x: f32[16, 64], out y: f32[16, 64], scalar PTO_ISA_INLINE: i32) vector {
  tile kernel_entry: vec f32[16, 64]
  tload kernel_entry, x[0, 0]
  tadds kernel_entry, kernel_entry, PTO_ISA_INLINE
  tstore y[0, 0], kernel_entry
}
EOF2
try "names: emit" $ptoc emit --target isa $out/nm/k.pto -o $out/nm/o
try "names: PTO_ISA_INLINE and kernel_entry become user_*" sh -c "grep -q 'const int64_t user_PTO_ISA_INLINE = ' $out/nm/o/kernel.cpp && grep -q 'pto::TLOAD(user_kernel_entry, ' $out/nm/o/kernel.cpp"
try "names: compiles, alone as kernel_entry too" sh -c "$CXX $out/nm/o/kernel.cpp && $CXX -DPTO_ISA_KERNEL=0 $out/nm/o/kernel.cpp"

# a5's UB: the isa target leaves the top 8 KiB free, as PTOAS does (it plans 248 KiB of 256); the
# simulator target keeps the exact capacity
mkdir -p $out/a5
printf 'arch a5\nkernel k(in x: f32[16, 4080], out y: f32[16, 4080]) vector {\n  tile t: vec f32[16, 4080]\n  tload t, x[0, 0]\n  tstore y[0, 0], t\n}\n' > $out/a5/big.pto
printf 'arch a5\nkernel k(in x: f32[16, 3968], out y: f32[16, 3968]) vector {\n  tile t: vec f32[16, 3968]\n  tload t, x[0, 0]\n  tstore y[0, 0], t\n}\n' > $out/a5/fits.pto
fails "a5: 261120 bytes of UB: refused on the isa target" $ptoc check --target isa $out/a5/big.pto
try "... naming the margin" grep -q "8192 reserved for a5's top 8 KiB of UB, which PTOAS leaves free, on the isa target" $out/err
try "... and planned on the simulator target" $ptoc check $out/a5/big.pto
try "a5: 253952 bytes fit the isa target" $ptoc check --target isa $out/a5/fits.pto

# tests/isa_bad: kernels the simulator target takes and the isa target refuses; the first line of
# each is `# expect: MESSAGE`, the exact first error `ptoc check --target isa` prints (as tests/bad
# for the verifier)
nb=0
for f in tests/isa_bad/*.pto; do
    [ -f "$f" ] || continue
    nb=$((nb + 1))
    want=$(sed -n '1s/^# expect: //p' "$f")
    try "$f: the simulator target takes it" $ptoc check "$f"
    $ptoc check --target isa "$f" > $out/log 2>&1; rc=$?
    got=$(grep -m1 'error:' $out/log)
    if [ $rc != 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then ok "$f: refused by the isa target as expected"
    else echo "  got      $got"; echo "  expected $want"; bad "$f: refused by the isa target as expected"; fi
done
try "tests/isa_bad has its kernels" test $nb -ge 2
# acc -> mat as a2a3 has it: f32 -> f16 and f32 -> bf16 are emitted and compile; on a5 (whose plain
# TMOV also keeps f32 and i32) the a2a3 rule does not apply
for dt in f16 bf16; do
    sed "s/tile cm: mat f32/tile cm: mat $dt/; s/tile al: left f32/tile al: left $dt/; s/tile bl: right f32/tile bl: right $dt/; s/tile am: mat f32/tile am: mat $dt/; s/tile bm: mat f32/tile bm: mat $dt/; s/in a: f32/in a: $dt/; s/in b: f32/in b: $dt/" tests/isa_bad/tmov_acc_f32.pto > $out/accmat_$dt.pto
    try "tmov f32 acc -> $dt mat: emitted" $ptoc emit --target isa $out/accmat_$dt.pto -o $out/accmat_$dt
    try "... and compiles" $CXX $out/accmat_$dt/kernel.cpp
done
( echo "arch a5"; tail -n +2 tests/isa_bad/tmov_acc_f32.pto ) > $out/accmat_a5.pto
try "tmov f32 acc -> f32 mat on a5: the a2a3 rule does not apply" $ptoc check --target isa $out/accmat_a5.pto

# review22 M3: a valid region that may be empty at run time (0 rows or cols: pto-isa's TLOAD /
# TSTORE / vector ops assert > 0) runs its op under a guard on that op alone; flags stay outside
g=tests/user/r22_empty_cols.pto
try "empty_cols: emit --target isa" $ptoc emit --target isa $g -o $out/ec
e=$out/ec/kernel.cpp
try "empty_cols: the tload and its GM view under the guard" sh -c "grep -A2 '^        if (t.GetValidCol() > 0) {\$' $e | grep -q 'pto::TLOAD(t, pto_gm_0);'"
try "empty_cols: the vector op" grep -q '^        if (t.GetValidCol() > 0) pto::TMULS(t, t, 2.0); /\* r22_empty_cols.pto:[0-9]*: tmuls \*/$' $e
try "empty_cols: the row sum over no columns is the sum of none" sh -c "grep -q '^        if (t.GetValidCol() > 0) pto::TROWSUM(r, t, pto_tmp_[0-9]*);' $e && grep -q '^        else pto::TEXPANDS(r, 0.0f); ' $e"
try "empty_cols: the tstore" sh -c "grep -A2 '^        if (t.GetValidCol() > 0) {\$' $e | grep -q 'pto::TSTORE(pto_gm_1, t);'"
try "empty_cols: a constant region is not guarded" grep -q '^        pto::TADD(acc, acc, r); ' $e
try "empty_cols: compiles" $CXX $e
try "r21_empty_tail: 0 valid rows: the loads, ops and stores are guarded" sh -c "grep -q 'if (t.GetValidRow() > 0) pto::TEXP(t, t);' $out/u_r21_empty_tail/kernel.cpp && grep -q 'if (m.GetValidRow() > 0) pto::TROWSUM(m, t, ' $out/u_r21_empty_tail/kernel.cpp"
try "colsum_loop: a column max over no rows is -inf" grep -q 'else pto::TEXPANDS(q, -INFINITY); ' $out/u_colsum_loop/kernel.cpp
try "tail: the row tail is guarded" grep -q 'if (t.GetValidRow() > 0) pto::TMULS(t, t, alpha);' $out/tail/kernel.cpp
try "mm_lefttail: TMATMUL is not guarded (an empty m, k or n is a simulator error)" sh -c "grep -q '^ *pto::TMATMUL_ACC(pto_mm_' $out/mm_lefttail/kernel.cpp && ! grep -q 'if (.*TMATMUL' $out/mm_lefttail/kernel.cpp"
try "mm_lefttail: ... the acc's row-tail store is" grep -q '^    if (acc.GetValidRow() > 0) {$' $out/mm_lefttail/kernel.cpp
for f in vadd mm layernorm softmax; do
    try "$f: no guard where every region is constant" sh -c "! grep -q 'GetValid' $out/$f/kernel.cpp"
done
cat > $out/posv.pto <<'PTO'
kernel posv(in x: f32[N, 64], out y: f32[N, 64]) vector {
  tile t: vec f32[16, 64] valid(min(16, N), max(8, 64 - N))
  tload t, x[0, 0]
  tstore y[0, 0], t
}
PTO
try "posv: emit" $ptoc emit --target isa $out/posv.pto -o $out/posv
try "posv: extents positive at every launch (a dim, min / max of positive ones) are not guarded" sh -c "grep -q 'pto::TLOAD(t, ' $out/posv/kernel.cpp && ! grep -q 'GetValid' $out/posv/kernel.cpp"
# every guard holds its op alone: no flag inside one, in any kernel emitted above
for k in $out/*/kernel.cpp; do
    awk '/if \(.*GetValid(Row|Col)\(\) > 0.*\) \{$/ { g = 1; next } g && /^ *}$/ { g = 0 } g && /set_flag|wait_flag|pipe_barrier/ { bad = 1 } END { exit bad }' $k || bad "$k: a flag inside an empty-region guard"
done
ok "no flag inside an empty-region guard"

# golden sources
for g in vadd mm layernorm mixmm; do
    if [ "$PTO_UPDATE_GOLDEN" = 1 ]; then cp $out/$g/kernel.cpp tests/golden/isa_$g.kernel.cpp; fi
    try "golden isa_$g.kernel.cpp" cmp tests/golden/isa_$g.kernel.cpp $out/$g/kernel.cpp
done

# determinism and the default target
try "re-emit mm" $ptoc emit --target isa examples/mm.pto -o $out/mm2
try "re-emission is byte-identical" cmp $out/mm/kernel.cpp $out/mm2/kernel.cpp
try "emit without --target writes the simulator's kernel.c" $ptoc emit examples/vadd.pto -o $out/sim
try "... and no kernel.cpp" test ! -f $out/sim/kernel.cpp -a -f $out/sim/kernel.c
try "--target sim is the same" $ptoc emit --target sim examples/vadd.pto -o $out/sim2
try "... byte for byte" cmp $out/sim/kernel.c $out/sim2/kernel.c
fails "an unknown target is a usage error" $ptoc emit --target gpu examples/vadd.pto -o $out/gpu

# ttrans (review29 L7): pto-isa's TTRANS(dst, src, tmp), tmp a vec tile at the scratch offset above
# the planned peak, sized for the source's transpose rounded up to 16 rows (32 for i8) and 32-byte
# columns, after a V barrier (the scratch is shared); the stub refuses a tmp one size too small
try "ttrans: emit --target isa" $ptoc emit --target isa tests/user/ttrans.pto -o $out/tr
try "ttrans: TTRANS(dst, src, tmp)" grep -q 'pto::TTRANS(t, a, pto_tmp_[0-9]*); /\* ttrans.pto:11: ttrans \*/' $out/tr/kernel.cpp
try "ttrans: the i8 tmp is [64, 32]" grep -q 'pto::Tile<pto::TileType::Vec, int8_t, 64, 32, pto::BLayout::RowMajor, 64, 32> pto_tmp_' $out/tr/kernel.cpp
try "ttrans: the f16 tmp is [32, 16]" grep -q 'pto::Tile<pto::TileType::Vec, half, 32, 16, pto::BLayout::RowMajor, 32, 16> pto_tmp_' $out/tr/kernel.cpp
try "ttrans: ordered after earlier V work" grep -q "TTRANS's tmp tile is the shared scratch" $out/tr/kernel.cpp
try "ttrans: compiles against the stub" $CXX $out/tr/kernel.cpp
sed 's/int8_t, 64, 32, pto::BLayout::RowMajor, 64, 32> pto_tmp_/int8_t, 64, 16, pto::BLayout::RowMajor, 64, 16> pto_tmp_/' $out/tr/kernel.cpp >$out/tr/small.cpp
fails "ttrans: a tmp too small does not compile" $CXX $out/tr/small.cpp

echo "$pass passed, $fail failed"
[ $fail = 0 ]
