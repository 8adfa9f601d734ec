#!/bin/sh
# mix_test.sh - mix kernels with cube <-> vector pipes, from .pto to the simulator:
# the examples match the interpreter with no report (gcc and tcc, 1 and 4 blocks, a block
# count fixed or computed at launch, a kernel that never reads `block`); the GM pipe buffer
# is sharded per block (forcing every block onto offset 0 must make the simulator object);
# a5 has no GM pipe buffer.
ptoc=${1:-${PTOC:-./build/ptoc}}
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
out=$(mktemp -d); trap 'rm -rf $out' EXIT
clean() { # FILE/DIR, description, args...
    what=$1; desc=$2; shift 2
    $ptoc run "$@" "$what" >$out/log 2>&1; rc=$?
    if [ $rc = 0 ] && grep -q "result      match" $out/log && grep -q "simulator   no reports" $out/log; then ok
    else bad "$desc (rc $rc)"; cat $out/log; fi
}
clean examples/mixmm.pto "mixmm, 4 blocks from M" -D M=256
clean examples/mixmm.pto "mixmm, 1 block" -D M=64
clean examples/mixv2c.pto "mixv2c, v2c and c2v in a loop" -D N=256
# the pipe buffers (top of UB / L1) are named apart from the tiles' highest byte
if grep -q "planned     vec 16384 B + 16384 B pipe buffers, mat 16384 B + 32768 B pipe buffers," $out/log; then ok
else bad "mixv2c: planned names the pipe buffers apart"; grep planned $out/log; fi
if command -v tcc >/dev/null 2>&1; then
    clean examples/mixmm.pto "mixmm under tcc" --cc tcc -D M=256
    clean examples/mixv2c.pto "mixv2c under tcc" --cc tcc -D N=256
fi
# a constant block count
sed 's/a: f16\[M, 128\]/a: f16[256, 128]/; s/c: f32\[M, 128\]/c: f32[256, 128]/; s/blocks(M \/ 64)/blocks(4)/' \
    examples/mixmm.pto >$out/fixed.pto
clean $out/fixed.pto "constant blocks(4)"
# a kernel that never reads block: every block pushes and pops through its own share
cat >$out/noblock.pto <<'PTO'
kernel k(in x: f32[64, 64], inout y: f32[64, 64]) mix blocks(3) {
  pipe q: c2v f32[64, 64] split(left_right)
  cube {
    tile m: mat f32[64, 64]
    tile l: left f32[64, 64]
    tile r: right f32[64, 64]
    tile acc: acc f32[64, 64]
    tload m, x[0, 0]
    tmov l, m
    tmov r, m
    tmatmul acc, l, r
    tpush q, acc
  }
  vector {
    tile t: vec f32[64, 32]
    tpop t, q
    tfree q
  }
}
PTO
clean $out/noblock.pto "blocks(3), block never read"
# a both pipe: the cube sends, the AIVs answer on the same pipe's second ring
clean tests/ok/pipe_both.pto "a both pipe, 2 blocks"
$ptoc emit tests/ok/pipe_both.pto -o $out/bothdir >/dev/null 2>&1
grep -q "pto_h_pipe_buffer(run, 2, 131072)" $out/bothdir/host.c && ok || bad "both: 2 rings x 4 slots x 16384 bytes per block"
# an omitted count means exactly its default: the same kernel.c either way
mkdir -p $out/d1 $out/d2
sed 's/pipe q: c2v f32\[64, 128\] split(up_down)/pipe q: c2v f32[64, 128] slots(8) local_slots(2) split(up_down)/' \
    examples/mixmm.pto >$out/d1/mixmm.pto
cp examples/mixmm.pto $out/d2/mixmm.pto
grep -q "local_slots(2)" $out/d1/mixmm.pto && ok || bad "the explicit variant names its counts"
$ptoc emit $out/d1/mixmm.pto -o $out/d1/o >/dev/null 2>&1
$ptoc emit $out/d2/mixmm.pto -o $out/d2/o >/dev/null 2>&1
cmp -s $out/d1/o/kernel.c $out/d2/o/kernel.c && ok || bad "explicit default counts give the same kernel.c"
grep -c "pto_k_ring_init(core, \"mixmm.pto:7: pipe q\", 0, PTO_K_C2V, 32768, 8, 2, 0, PTO_K_SPLIT_UP_DOWN" $out/d2/o/kernel.c \
    | grep -qx 2 && ok || bad "both sections init the ring with the same normalised parameters"
grep -c "^        pto_k_ring_init(" $out/d2/o/kernel.c | grep -qx 2 && ok || bad "ring_init is indented as its section's body"
# a host section calling a mix kernel passes the hidden buffer too
( cat examples/mixmm.pto; printf 'host main(in a: f16[256, 128], in b: f16[128, 128], out y: f32[256, 128]) {\n  call mixmm(a, b, y)\n}\n' ) >$out/hmix.pto
$ptoc run $out/hmix.pto >$out/log 2>&1 && grep -q "result      match" $out/log && grep -q "simulator   no reports" $out/log && ok \
    || { bad "host call of a mix kernel"; cat $out/log; }
# ptoc plan checks its plan independently (popped tiles sit at their pipe's base)
for f in examples/mixmm.pto examples/mixv2c.pto tests/ok/pipe_both.pto; do
    $ptoc plan $f >/dev/null 2>&1 && ok || bad "ptoc plan $f"
done
# a local slot is the tile the core pops: half the cube tile on each AIV of a split pipe
# (6 x 16 KiB; 6 x 32 KiB would fill the UB), the whole tile unsplit
clean tests/ok/split_slots.pto "split(up_down) local_slots(6): 6 x 16 KiB per AIV"
cat >$out/slots.pto <<'PTO'
kernel k(in x: f32[96, 64], out y: f32[96, 64]) mix {
  pipe q: c2v f32[96, 64] split(up_down) local_slots(8)
  cube {
    tile m: mat f32[96, 64]
    tile n: mat f32[64, 64]
    tile l: left f32[96, 64]
    tile r: right f32[64, 64]
    tile acc: acc f32[96, 64]
    tload m, x[0, 0]
    tload n, x[0, 0]
    tmov l, m
    tmov r, n
    tmatmul acc, l, r
    tpush q, acc
  }
  vector {
    tile t: vec f32[48, 64]
    tile u: vec f32[48, 64]
    tpop t, q
    tadds u, t, 1.0
    tfree q
    tstore y[subblock * 48, 0], u
  }
}
PTO
clean $out/slots.pto "split: 8 local slots x 12 KiB beside a 12 KiB tile"
sed 's/ split(up_down)//; s/vec f32\[48, 64\]/vec f32[96, 64]/; s/subblock \* 48/0/' $out/slots.pto >$out/slots1.pto
$ptoc plan $out/slots1.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^$out/slots1.pto:2:8: error: kernel 'k': vec overflows: needs 221184 bytes, capacity 196608 (196608 reserved for cube/vector pipe buffers: pipe 'q' reserves 8 local slots x 24576 B on each vector core)" $out/log; then ok
else bad "unsplit: 8 x 24 KiB fill the UB, the error names the pipe at its line (rc $rc)"; cat $out/log; fi
# sharding matters: every block at offset 0 of the buffer must be caught
$ptoc emit examples/mixmm.pto -o $out/dir >$out/log 2>&1 || bad "emit mixmm"
grep -q "pto_k_block_idx(core) \* 262144 + 0" $out/dir/kernel.c && ok || bad "kernel.c offsets each block by its share"
grep -q "pto_h_pipe_buffer(run, M / 64, 262144)" $out/dir/host.c && ok || bad "host.c sizes the buffer blocks x per_block"
sed -i 's/pto_k_block_idx(core) \* 262144/0 * 262144/' $out/dir/kernel.c
$ptoc run -D M=256 $out/dir >$out/log 2>&1; rc=$?
if [ $rc != 0 ] && grep -Eq "simulator   [0-9]+ report|mismatch" $out/log; then ok
else bad "unsharded pipe buffer is reported (rc $rc)"; cat $out/log; fi
# the cycle model is a function of the program, not of the seed (which only picks the
# interleaving of cores): a ring with free slots lets every tpush go without waiting for a
# tfree, whichever tfree a seed ran first; the three identical blocks end together
cat >$out/pp.pto <<'PTO'
kernel pp(in a: f16[64, 64], in b: f16[64, 64], out c: f32[M, 256]) mix blocks(M / 64) {
  pipe q: c2v f32[64, 64] split(up_down)
  cube {
    tile a1: mat f16[64, 64]
    tile b1: mat f16[64, 64]
    tile a0: left f16[64, 64]
    tile b0: right f16[64, 64]
    tload a1, a[0, 0]
    tload b1, b[0, 0]
    tmov a0, a1
    tmov b0, b1
    for n = 0 to 4 {
      tile acc: acc f32[64, 64] x2
      tmatmul acc, a0, b0
      tpush q, acc
    }
  }
  vector {
    for n = 0 to 4 {
      tile t: vec f32[32, 64]
      tpop t, q
      tstore c[block * 64 + subblock * 32, n * 64], t
      tfree q
    }
  }
}
PTO
for M in 64 192; do
    seen=""
    for s in 1 2 3 4 5 6 7 8; do
        clean $out/pp.pto "pp, M=$M, seed $s" -D M=$M --seed $s
        seen="$seen $(sed -n 's/^  cycles *//p' $out/log)"
    done
    n=$(echo $seen | tr ' ' '\n' | sort -u | wc -l)
    [ "$n" = 1 ] && ok || bad "pp, M=$M: cycles depend on the seed:$seen"
done
[ "$(sed -n 's/^  cycles *//p' $out/log)" -lt 4000 ] && ok || bad "pp: no tpush waits for a tfree (under 4000 cycles)"
# pushes never popped, counts known only at launch (the verifier cannot see them; the static
# case is tests/bad/pipe_unbalanced.pto): the interpreter names the pipe and the counts, as the
# simulator does, so the run never says "result match" beside the simulator's report
leftover() { # FILE, description, pattern the interpreter must print, args...
    what=$1; desc=$2; pat=$3; shift 3
    $ptoc run "$@" "$what" >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q "$pat" $out/log && grep -q "pushed but never popped" $out/log &&
       grep -q "no reference: the interpreter failed" $out/log && ! grep -q "result      match" $out/log; then ok
    else bad "$desc (rc $rc)"; cat $out/log; fi
}
cat >$out/v2cleft.pto <<'PTO'
kernel k(in x: f32[64, 64], out y: f32[64, 64], scalar T: i32) mix {
  pipe q: v2c f32[64, 64] split(up_down)
  cube {
    for i = 0 to T - 1 {
      tile m: mat f32[64, 64]
      tpop m, q
      tfree q
    }
  }
  vector {
    tile t: vec f32[32, 64]
    tload t, x[subblock * 32, 0]
    for i = 0 to T {
      tpush q, t
    }
    tstore y[subblock * 32, 0], t
  }
}
PTO
leftover $out/v2cleft.pto "v2c: T pushes, T-1 pops" \
    "v2cleft.pto:2:8: error: pipe 'q' (v2c): the vector section pushed 3 tiles but the cube core popped 2: 1 left in its FIFO" -D T=3
# the same kernel popping T times is clean
sed 's/0 to T - 1/0 to T/' $out/v2cleft.pto >$out/v2cok.pto
clean $out/v2cok.pto "v2c: T pushes, T pops" -D T=3
# c2v with a split: AIV 1 pops one fewer
cat >$out/c2vleft.pto <<'PTO'
kernel k(in x: f32[64, 64], out y: f32[64, 64], scalar T: i32) mix {
  pipe q: c2v f32[64, 64] split(up_down)
  cube {
    tile m: mat f32[64, 64]
    tile l: left f32[64, 64]
    tile r: right f32[64, 64]
    tile acc: acc f32[64, 64]
    tload m, x[0, 0]
    tmov l, m
    tmov r, m
    tmatmul acc, l, r
    for i = 0 to T {
      tpush q, acc
    }
  }
  vector {
    for i = 0 to T - subblock {
      tile t: vec f32[32, 64]
      tpop t, q
      tstore y[subblock * 32, 0], t
      tfree q
    }
  }
}
PTO
leftover $out/c2vleft.pto "c2v: AIV 1 pops T-1" \
    "pipe 'q' (c2v): the cube core pushed 2 tiles but AIV 1 (subblock 1) popped 1: 1 left" -D T=2
# review23 M3: a tfree that no tpop of its pipe can follow gets no V -> S flag (nothing refills
# the slot: the scalar unit must not stall there); a tfree in a loop that pops again keeps it
clean tests/user/tfree_last.pto "the last tfree" -D N=128
$ptoc emit tests/user/tfree_last.pto -o $out/tfl >/dev/null 2>&1
grep -q "pto_k_tfree" $out/tfl/kernel.c && ! grep -q "PTO_K_V, PTO_K_S" $out/tfl/kernel.c && ok ||
    bad "the last tfree waits for the vector reads"
$ptoc emit examples/mixv2c.pto -o $out/v2c >/dev/null 2>&1
grep -q "wait_flag(core, [^)]*PTO_K_V, PTO_K_S" $out/v2c/kernel.c && ok || bad "mixv2c's loop tfree lost its V -> S flag"
# review27 L6: a mix kernel's bound says which core kind its pipe is on (a vector kernel's does not)
clean tests/user/mix_bound_aiv.pto "the vector epilogue's bound"
grep -q "^  bound       [0-9]* (MTE2, aiv)$" $out/log && ok || { bad "mix_bound_aiv: bound (MTE2, aiv)"; grep bound $out/log; }
clean examples/mixmm.pto "mixmm's bound" -D M=256
grep -q "^  bound       [0-9]* ([A-Z0-9]*, aic)$" $out/log && ok || { bad "mixmm: bound (..., aic)"; grep bound $out/log; }
clean examples/vadd.pto "vadd's bound"
grep -q "^  bound       [0-9]* (MTE2)$" $out/log && ok || { bad "vadd: bound (MTE2)"; grep bound $out/log; }
# a5: no GM pipe buffer, the simulator keeps the slots
( echo "arch a5"; cat examples/mixmm.pto ) >$out/a5.pto
clean $out/a5.pto "a5" -D M=128
$ptoc emit $out/a5.pto -o $out/a5dir >/dev/null 2>&1
grep -q "NULL, 0);" $out/a5dir/kernel.c && ! grep -q gm_pipe_buffer $out/a5dir/host.c && ok || bad "a5 passes no buffer"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
