#!/bin/sh
# sweep_test.sh - ptoc run --sweep: every kernel of the repository that has a
# dynamic dim or an integer scalar (examples/, tests/ok/, tests/user/,
# tests/sweep/, bench/repro/) matches the reference with no simulator report
# at every value set the sweep picks (loops run 0, 1, 2, 3 and more times than
# their slots, ifs both ways, tails partial and whole, 1, 2, 3 and 5+ blocks);
# and the sweep itself:
# the values it picks, a refused value, a failing run, the domain a -D range
# or a `# sweep:` line gives, its usage errors. The kernels are compiled with
# tcc when there is one (a sweep compiles once; tcc takes ~0.05 s where gcc
# takes ~1.3 s: CI's time budget).
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/sweep_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -30 $out/log; }
cc=
ccq=   # what a rerun line says of it
command -v tcc >/dev/null 2>&1 && cc="--cc tcc" && ccq=" --cc 'tcc'"

if ! grep -q "pto_k_launch(pto_k_device" pto_kernels.h 2>/dev/null; then
    echo "skip: pto_kernels.h has no simulator yet"
    echo "$pass passed, $fail failed"
    exit 0
fi

# The domain of kernels written for some values only (not a pto bug at the others):
#   flash   the K/V loop must run (S >= 64), else o is stored from an unwritten acc
#   mlp     the K loop must run (KS >= 1), likewise
#   sib     every block stores the same rows of y: one block (n = 1) or they race
#   cond    block b starts at S0 + b, step ST: at ST = 1 both blocks store the same rows of z (a race
#           between blocks, found once interior iterations were walked: review26 H1)
domain() {
    case $1 in
    tests/user/flash.pto) echo "-D S=64..4096" ;;
    tests/user/mlp.pto) echo "-D KS=1..64" ;;
    tests/ok/siblings.pto) echo "-D n=1..1" ;;
    tests/user/condload.pto) echo "-D ST=2..4096" ;;
    esac
}

for f in examples/*.pto tests/ok/*.pto tests/user/*.pto tests/sweep/*.pto bench/repro/*/*.pto; do
    # shellcheck disable=SC2046
    timeout 120 $ptoc run --sweep $cc $(domain $f) $f >$out/log 2>&1; rc=$?
    grep -q "^  no dynamic dim or integer scalar" $out/log && continue   # one run: the other tests run it
    if [ $rc = 0 ] && grep -q "^sweep: .* 0 failed" $out/log && ! grep -q "REPORT\|MISMATCH\|FAILED" $out/log
    then ok "sweep $f ($(grep '^sweep:' $out/log))"; else bad "sweep $f"; fi
done

# the values: N / 16 trips of a loop over x2 tiles from -D N=64: 4, 2, 1, 3, 0 trips
$ptoc run --sweep $cc tests/user/trip_x2.pto >$out/log 2>&1
if [ "$(sed -n 's/^  N=\([0-9]*\) .*/\1/p' $out/log | tr '\n' ' ')" = "64 32 16 48 8 " ]
then ok "trip_x2: N = 64 32 16 48 8"; else bad "trip_x2: N = 64 32 16 48 8"; fi
if grep -q "^  N (from 64, 1..4096): steers 1 loop (line 4)$" $out/log; then ok "trip_x2: header"; else bad "trip_x2: header"; fi

# a threshold if (`if i >= Z` in `for i = 0 to T`): besides Z = 0 (always taken) and a Z past
# the trips (never), a run where the loop's first iterations skip it and the last ones take it
$ptoc run --sweep $cc tests/sweep/threshold_if.pto >$out/log 2>&1
mixed=$(sed -n 's/^  T=16 Z=\([0-9]*\) .*match.*/\1/p' $out/log | awk '$1 >= 1 && $1 <= 15' | head -1)
if [ -n "$mixed" ] && grep -q "^  T=16 Z=0 .*match" $out/log
then ok "threshold_if: a mixed run (Z=$mixed)"; else bad "threshold_if: a mixed run"; fi

# a comment that starts '# sweep:' is read as the directive: its error has the line and says so
printf '# a comment\n# sweep: a loop whose trips vary\n' > $out/swc.pto
cat tests/sweep/threshold_if.pto >> $out/swc.pto
$ptoc run --sweep $cc $out/swc.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^$out/swc.pto:2:1: error: the '# sweep:' line takes -D NAME=LO..HI, --ranks LO..HI and --sweep-runs N, not 'a' (a comment that starts '# sweep:' is read as that line: reword it)$" $out/log
then ok "a '# sweep:' comment: the line and the hint"; else bad "a '# sweep:' comment: the line and the hint"; fi

# an unknown option on the '# sweep:' line is ignored with a warning, as on the '# run:' line (review26a L2: was an error)
printf '# sweep: --bogus 3 --sweep-runs 2\n' > $out/swopt.pto
cat examples/vadd.pto >> $out/swopt.pto
$ptoc run --sweep $cc $out/swopt.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^ptoc: warning: $out/swopt.pto: '# sweep:' option '--bogus 3' is ignored (the line takes -D NAME=LO..HI, --ranks LO..HI and --sweep-runs N)$" $out/log &&
   grep -q "^sweep: 1 run: 1 match" $out/log
then ok "an unknown '# sweep:' option: warned, ignored, the sweep runs"; else bad "an unknown '# sweep:' option (exit $rc)"; fi

# the header counts what changes with a name among the values that reach it: T steers its loop
# and the if (not the literal inner loop, reached or not); U steers the if, which only the last
# iteration shows
$ptoc run --sweep $cc -D T=0..4 -D U=0..4 tests/sweep/header_steers.pto >$out/log 2>&1
if grep -q "^  T (from 3, 0..4): steers 1 loop, 1 if (lines 7, 13)$" $out/log &&
   grep -q "^  U (from 2, 0..4): steers 1 if (line 13)$" $out/log
then ok "header_steers: T steers 1 loop, 1 if; U 1 if"; else bad "header_steers: T steers 1 loop, 1 if; U 1 if"; fi
# a name in a loop bound nested under another name's loop: each header names its own loop
cat > $out/nest.pto <<'PTO'
# run: -D T=3 -D U=2
kernel nest(in x: f32[16, 64], out y: f32[16, 64], scalar T: i32, scalar U: i32) vector {
  tile a: vec f32[16, 64]
  tload a, x[0, 0]
  for t = 0 to T {
    for i = 0 to U {
      tadds a, a, 1.0
    }
  }
  if T > U {
    tmuls a, a, 2.0
  }
  tstore y[0, 0], a
}
PTO
$ptoc run --sweep $cc -D T=0..20 -D U=0..20 $out/nest.pto >$out/log 2>&1
if grep -q "^  T (from 3, 0..20): steers 1 loop, 1 if (lines 5, 10)$" $out/log &&
   grep -q "^  U (from 2, 0..20): steers 1 loop, 1 if (lines 6, 10)$" $out/log
then ok "nest: T's header leaves out U's loop"; else bad "nest: T's header leaves out U's loop"; fi

# a value the kernel refuses at run time (a textract offset that is not whole fractals): a row
# saying why, not a failure; the behaviour it would show gets one more value, then is given up
$ptoc run --sweep $cc tests/sweep/refuse_step.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  ks=24  *refused: refuse_step.pto:13:5: textract: offset \[0, 24\] into 'am' is not whole" $out/log &&
   grep -q "^sweep: 5 runs: 3 match, 0 failed, 2 refused$" $out/log &&
   grep -q "^  note: 1 behaviour shown only by values the kernel refused$" $out/log
then ok "refused value"; else bad "refused value"; fi
# ... and one it refuses before running (a division by zero, a step <= 0): not run at all
$ptoc run --sweep $cc tests/sweep/refuse_div.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && ! grep -q "^  s=0 \| refused: " $out/log; then ok "s = 0 not run"; else bad "s = 0 not run"; fi
$ptoc run --sweep $cc --sweep-runs 30 tests/sweep/refuse_step.pto >$out/log 2>&1
if ! grep -q "^  ks=-\|^  ks=0 " $out/log; then ok "ks <= 0 not run"; else bad "ks <= 0 not run"; fi

# values whose windows leave the tensor are not run (nested.pto: RB = 64 puts block 2's rows past
# N = 96; run, the interpreter refused it); the walk sees them first
$ptoc run --sweep $cc tests/user/nested.pto >$out/log 2>&1
if grep -q "^sweep: [0-9]* runs: [0-9]* match, 0 failed, 0 refused$" $out/log && ! grep -q "RB=64 " $out/log
then ok "windows past the tensor: not run"; else bad "windows past the tensor: not run"; fi

# a failing run: the K loop runs no iteration at K < 64 and acc is stored unwritten
$ptoc run --sweep $cc tests/user/trip_cube_k.pto -D K=1..4096 >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  K=8  *1 REPORT" $out/log && grep -q "uninitialised read: tstore (FIX)" $out/log &&
   grep -q "^      rerun: ptoc run tests/user/trip_cube_k.pto$ccq -D 'K=8'$" $out/log &&
   grep -q "^sweep: 5 runs: 4 match, 1 failed, 0 refused$" $out/log
then ok "failing run: exit 1, the report, a rerun line"; else bad "failing run: exit 1, the report, a rerun line"; fi
# a rerun line carries every option that changes the compile or the run: a hand-synchronised
# kernel swept with --no-sync races at S=8; the rerun without --no-sync compiled with the sync
# pass and matched (review29 M3). The line is run as printed and must fail the same way.
$ptoc run --sweep --no-sync --tight $cc --seed 3 --inputs full --max-instr 50000 tests/sweep/fail/hand_inplace.pto >$out/log 2>&1; rc=$?
rr=$(sed -n "s/^      rerun: ptoc run \(.*-D 'S=8'.*\)/\1/p" $out/log)
if [ $rc = 1 ] && [ "$rr" = "tests/sweep/fail/hand_inplace.pto --no-sync --tight$ccq '--seed' '3' '--inputs' 'full' '--max-instr' '50000' -D 'S=8' -D 'T=4'" ]
then ok "--no-sync sweep: the rerun line keeps every option"; else bad "--no-sync sweep: the rerun line keeps every option ($rr)"; fi
eval "$ptoc run $rr" >$out/log2 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "race on gm y bytes" $out/log2; then ok "--no-sync sweep: the rerun reproduces the race"
else bad "--no-sync sweep: the rerun reproduces the race (rc $rc)"; fi
# the run at the values the user gave is never 'refused': a tail kernel without valid(...) fails
# `ptoc run` at its '# run: -D N=40' (the last block's window leaves x), and so the sweep (review20 H1)
printf '# run: -D N=40\nkernel tailbug(in x: f32[N, 64], out y: f32[N, 64]) vector blocks((N + 15) / 16) {\n  tile t: vec f32[16, 64]\n  tload t, x[block * 16, 0]\n  tmuls t, t, 2.0\n  tstore y[block * 16, 0], t\n}\n' >$out/tailbug.pto
$ptoc run --sweep $cc $out/tailbug.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  N=40  *2 REPORTS" $out/log && grep -q "^sweep: [0-9]* runs: [0-9]* match, 1 failed, 0 refused$" $out/log
then ok "the given values' run fails as ptoc run does"; else bad "the given values' run fails as ptoc run does"; fi
# the '# sweep:' line's errors name the token at fault (review20 L3)
for l in "-D N=64:not 'N=64'" "--sweep-runs 0:--sweep-runs takes a count in 1..1000, not '0'"; do
    { printf '# sweep: %s\n' "${l%%:*}"; cat tests/sweep/threshold_if.pto; } >$out/sl.pto
    $ptoc run --sweep $cc $out/sl.pto >$out/log 2>&1
    if grep -q -e "${l#*:}" $out/log; then ok "# sweep: ${l%%:*}: the token at fault"; else bad "# sweep: ${l%%:*}: the token at fault"; fi
done
# review27 L8: a range the line gets wrong is said at the file's line (it named no file)
{ printf '# sweep: -D N=5..2\n'; cat tests/sweep/threshold_if.pto; } >$out/sl.pto
$ptoc run --sweep $cc $out/sl.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^$out/sl.pto:1:1: error: the '# sweep:' line's -D N=5..2: want NAME=LO..HI or NAME=LO..HI/STEP, LO <= HI, STEP >= 1$" $out/log
then ok "# sweep: -D N=5..2: at the line"; else bad "# sweep: -D N=5..2: at the line (rc $rc)"; fi
# a near miss of the '# run:' line is said, not silently ignored (review20 L7)
printf '#run: -D N=32\nkernel k(in x: f32[N, 64], out y: f32[N, 64]) vector {\n  tile t: vec f32[16, 64]\n  tload t, x[0, 0]\n  tstore y[0, 0], t\n}\n' >$out/nearrun.pto
$ptoc run $out/nearrun.pto >$out/log 2>&1
if grep -q "^ptoc: warning: $out/nearrun.pto:1: not read as the '# run:' line: write it as '# run: ...' at the start of the line$" $out/log
then ok "'#run:': a warning"; else bad "'#run:': a warning"; fi
# a -D value below the default scalar domain widens it (review20 L4: "from -7, -4..4096")
$ptoc run --sweep $cc tests/sweep/refuse_div.pto -D s=-7 >$out/log 2>&1
if grep -q "^  s (from -7, -7..4096)" $out/log; then ok "the domain holds the -D value"; else bad "the domain holds the -D value"; fi
# a match whose output the kernel left partly unwritten (a rounded-down block count) says so in
# its row, as the plain run warns (review20 M5)
printf '# run: -D N=40\nkernel rd(in x: f32[N, 64], out y: f32[N, 64]) vector blocks(N / 16) {\n  tile t: vec f32[16, 64]\n  tload t, x[block * 16, 0]\n  tstore y[block * 16, 0], t\n}\n' >$out/rounddown.pto
$ptoc run --sweep $cc $out/rounddown.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  N=40  *match  *cycles [0-9]*; warning: y: 512 of 2560 elements never written (rows 32..39)$" $out/log &&
   grep -q "^  N=16  *match  *cycles [0-9]*$" $out/log
then ok "a match with unwritten rows: the row says so"; else bad "a match with unwritten rows: the row says so"; fi
# rows that are not whole 32-byte blocks race only with two writers: the sweep runs such a row
# width with 2 or more blocks, not only at one block (review21 M1: C=4 launched one block and the
# sweep passed a kernel that races at C=100)
printf '# run: -D C=128\nkernel cols(in x: f32[4, C], out y: f32[4, C]) vector blocks((C + 63) / 64) {\n  let c0 = block * 64\n  tile t: vec f32[4, 64] valid(4, min(64, C - c0))\n  tload t, x[0, c0]\n  tmuls t, t, 2.0\n  tstore y[0, c0], t\n}\n' >$out/rowalign.pto
$ptoc run --sweep $cc $out/rowalign.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  C=[0-9]*  *1 REPORT" $out/log && grep -q "race on gm y" $out/log
then ok "misaligned rows with 2+ blocks: run, the race found"; else bad "misaligned rows with 2+ blocks: run, the race found"; fi
# in a file with hosts, a kernel's float scalar that a call binds gets no -D (review21 L7: every
# failing row warned "-D s sets nothing" and its rerun line carried the -D the sweep added)
printf '# run: -D N=40\nkernel k(in x: f32[N, 64], out y: f32[N, 64], scalar s: f32) vector blocks((N + 15) / 16) {\n  tile t: vec f32[16, 64]\n  tload t, x[block * 16, 0]\n  tmuls t, t, s\n  tstore y[block * 16, 0], t\n}\nhost h(in x: f32[N, 64], out y: f32[N, 64]) {\n  call k(x, y, 0.5)\n}\n' >$out/hostscalar.pto
$ptoc run --sweep $cc $out/hostscalar.pto >$out/log 2>&1
if grep -q "^      rerun: ptoc run $out/hostscalar.pto$ccq -D 'N=40'$" $out/log && ! grep -q "s=1.5\|sets nothing" $out/log
then ok "a host-bound kernel scalar: no -D added"; else bad "a host-bound kernel scalar: no -D added"; fi
# ... which its '# sweep: -D K=64..4096' line rules out (the sweep above passed it)
if grep -q "^# sweep: -D K=64..4096" tests/user/trip_cube_k.pto; then ok "# sweep: line"; else bad "# sweep: line"; fi

# trial10's find, fixed: the row width C = 12 (48-byte rows) is swept, and runs clean
$ptoc run --sweep $cc tests/ok/gm_block_rows.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  C=12  *match" $out/log; then ok "gm_block: C=12 swept, clean"; else bad "gm_block: C=12 swept, clean"; fi

# the block count: a name in blocks(...) steers it; the runs launch 1, 2, 3 and 5 or more blocks
# (a mix kernel whose c2v / v2c rings are sharded per block: each count matches)
vals() { sed -n "s/^  $1=\([0-9]*\)  *match .*/\1/p" $out/log | tr '\n' ' '; }
$ptoc run --sweep $cc tests/user/seed_spmd_pipe.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  M (from 192, 1..4096): steers the block count (blocks(M / 64)) (line 11)$" $out/log &&
   [ "$(vals M)" = "192 64 128 320 " ] && grep -q "^sweep: 4 runs: 4 match, 0 failed, 0 refused$" $out/log
then ok "seed_spmd_pipe: M = 192 64 128 320 (3 1 2 5 blocks), all match"; else bad "seed_spmd_pipe: M = 192 64 128 320 (3 1 2 5 blocks), all match"; fi
$ptoc run --sweep $cc examples/mixv2c.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  N (from 256, 1..4096): steers the block count (blocks(N / 128))" $out/log &&
   [ "$(vals N)" = "256 768 128 384 " ] && grep -q "^sweep: 4 runs: 4 match, 0 failed, 0 refused$" $out/log
then ok "mixv2c: N = 256 768 128 384 (2 6 1 3 blocks), all match"; else bad "mixv2c: N = 256 768 128 384 (2 6 1 3 blocks), all match"; fi
# ... a blocks(N / 16) from -D N=64 (4 blocks): 8, 2, 1 and 3 blocks too
$ptoc run --sweep $cc examples/softmax.pto >$out/log 2>&1
if [ "$(vals N)" = "64 128 32 16 48 " ]; then ok "softmax: N = 64 128 32 16 48"; else bad "softmax: N = 64 128 32 16 48"; fi
# a row tail: from two whole blocks (M = 128), a run whose last block (of 2 or more) is partial
$ptoc run --sweep $cc tests/sweep/block_tail.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  M (from 128, 1..4096): steers the block count (blocks((M + 63) / 64)), a partial last block (2 tiles)" $out/log &&
   [ -n "$(vals M | tr ' ' '\n' | awk '$1 > 64 && $1 % 64 != 0')" ]
then ok "block_tail: a partial last block of 2+ run ($(vals M))"; else bad "block_tail: a partial last block of 2+ run"; fi
# a host: its R reaches the kernel's N through the calls, so R steers the block count (N is no name to sweep)
$ptoc run --sweep $cc tests/sweep/host_blocks.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  R (from 64, 1..4096): steers the block count (blocks(N / 16)) (line 4)$" $out/log &&
   ! grep -q "^  N " $out/log && [ "$(vals R)" = "64 128 32 16 48 " ]
then ok "host_blocks: R steers blocks(N / 16)"; else bad "host_blocks: R steers blocks(N / 16)"; fi
# a bug only more than one block shows is found: siblings' blocks all store the same rows of y (its
# domain above keeps n = 1); swept without it, n = 2 races
$ptoc run --sweep $cc tests/ok/siblings.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  n=1  *match" $out/log && grep -q "^  n=2  *[0-9]* REPORT" $out/log
then ok "siblings without its domain: n = 2 races"; else bad "siblings without its domain: n = 2 races"; fi
# two kernels of one block-count text: it is named once (it read "blocks(N / 16), blocks(N / 16)")
$ptoc run --sweep $cc tests/ok/host_chain.pto >$out/log 2>&1
if grep -q "^  M (from 64, 1..4096): steers the block count (blocks(N / 16)) (lines 4, 12)$" $out/log
then ok "host_chain: blocks(N / 16) named once"; else bad "host_chain: blocks(N / 16) named once"; fi
# a name that blocks(...) does not read but that moves the work between the blocks (N of an even split
# over blocks(NB)) steers which blocks get work, not the count (review26a L4: it said "the block count")
$ptoc run --sweep $cc tests/user/r26a_even_split.pto >$out/log 2>&1
if grep -q "^  N (from 100, 1..400): steers which blocks get work (of blocks(NB)), " $out/log &&
   grep -q "^  NB (from 3, 1..8): steers the block count (blocks(NB)), " $out/log
then ok "even_split: N steers which blocks get work, NB the count"; else bad "even_split: N steers which blocks get work, NB the count"; fi
# a blocks(8) is no name's to steer
$ptoc run --sweep $cc tests/user/colsum_loop.pto >$out/log 2>&1
if grep -q "^  N (from" $out/log && ! grep -q "block count" $out/log; then ok "colsum_loop: blocks(8) steered by none"; else bad "colsum_loop: blocks(8) steered by none"; fi

# --sweep-runs bounds the runs; -D NAME=V moves the start; a range pins a name
$ptoc run --sweep $cc --sweep-runs 2 tests/user/trip_x2.pto >$out/log 2>&1
if grep -q "^sweep: 2 runs: 2 match" $out/log && grep -q "not shown within 2 runs" $out/log
then ok "--sweep-runs 2"; else bad "--sweep-runs 2"; fi
$ptoc run --sweep $cc tests/user/trip_x2.pto -D N=16 >$out/log 2>&1
if [ "$(sed -n 's/^  N=\([0-9]*\) .*/\1/p' $out/log | head -1)" = 16 ]; then ok "-D N=16 starts at 16"; else bad "-D N=16 starts at 16"; fi
# review27 L3: the values the sweep gives names no -D or '# run:' line gives are said
$ptoc run --sweep $cc tests/sweep/own_values.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note: alpha=1.5 N=64 C=64: the sweep's own values (no -D or '# run:' line gives them; ptoc run needs them)" $out/log &&
   ! $ptoc run $cc tests/sweep/own_values.pto >/dev/null 2>&1
then ok "own_values: the sweep's own values noted"; else bad "own_values: the sweep's own values noted (rc $rc)"; fi
$ptoc run --sweep $cc -D N=1..8 -D C=16 -D alpha=2.0 tests/sweep/own_values.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note: N=8: the sweep's own values" $out/log
then ok "own_values: N in its range, C and alpha given"; else bad "own_values: N in its range, C and alpha given (rc $rc)"; fi
if $ptoc run --sweep $cc tests/user/trip_x2.pto 2>&1 | grep -q "the sweep's own values"
then bad "trip_x2 (# run: -D N=64): no such note"; else ok "trip_x2 (# run: -D N=64): no such note"; fi
$ptoc run --sweep $cc tests/user/trip_nested.pto -D A=2..2 >$out/log 2>&1
if ! grep -q "^  A=[013-9]" $out/log && grep -q "^  A (from 3, 2..2)\|^  A (from 2, 2..2)" $out/log
then ok "-D A=2..2 pins A"; else bad "-D A=2..2 pins A"; fi

# an emitted DIR as it is: a hand edit that is wrong at one trip count only (the wait before the
# second load of mat tile am skipped when the K loop runs 3 times) passes the plain run (K = 256:
# 4 trips) and the sweep finds it, its rerun line naming the DIR; the unedited DIR sweeps clean
$ptoc emit tests/user/trip_cube_k.pto -o $out/tk >$out/log 2>&1 || bad "emit trip_cube_k"
$ptoc run --sweep $cc $out/tk >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^sweep $out/tk" $out/log && grep -q "^sweep: [0-9]* runs: [0-9]* match, 0 failed" $out/log
then ok "sweep an emitted DIR"; else bad "sweep an emitted DIR (rc $rc)"; fi
sed 's/^\( *\)\(pto_k_wait_flag(core, "trip_cube_k.pto:11", PTO_K_MTE1, PTO_K_MTE2, k % 2);\)/\1if (K \/ 64 != 3) \2/' \
    $out/tk/kernel.c >$out/k.c && mv $out/k.c $out/tk/kernel.c
grep -q "if (K / 64 != 3) pto_k_wait_flag" $out/tk/kernel.c || bad "the hand edit of trip_cube_k applies"
$ptoc run $cc $out/tk >$out/log 2>&1; rc=$?
if [ $rc = 0 ]; then ok "the edited DIR passes at K = 256"; else bad "the edited DIR passes at K = 256 (rc $rc)"; fi
$ptoc run --sweep $cc $out/tk >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "race on mat bytes" $out/log && grep -q "rerun: ptoc run $out/tk$ccq -D 'K=192'" $out/log
then ok "the sweep of the edited DIR finds K = 192"; else bad "the sweep of the edited DIR finds K = 192 (rc $rc)"; fi
# its rows line up: "cycles" in one column whatever the verdict ("2 REPORTS" pushed it right by one)
if [ "$(grep '^  K=.* cycles ' $out/log | awk '{ print index($0, "cycles") }' | sort -u | wc -l)" = 1 ] &&
   grep -q "REPORTS" $out/log
then ok "sweep rows: one cycles column"; else bad "sweep rows: one cycles column"; fi

# a 2-D grid, blocks((M / 32) * (N / 64)) from M=96 N=192: one name at a time launches 3, 6 or
# more blocks; the names' smallest values together launch 1 (M=32 N=64) and 2 (M=64 N=64) (review18 L9)
$ptoc run --sweep $cc tests/sweep/grid2d.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  M=32 N=64  *match" $out/log && grep -q "^  M=64 N=64  *match" $out/log &&
   ! grep -q "was not run at block count" $out/log
then ok "grid2d: 1 and 2 blocks run with the names together"; else bad "grid2d: 1 and 2 blocks run with the names together"; fi
# ... and a budget that stops before them says which counts no run launched
$ptoc run --sweep $cc --sweep-runs 3 tests/sweep/grid2d.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note: kernel 'g2' was not run at block counts 1, 2 (blocks(M / 32 \* (N / 64)) reads 2 swept names" $out/log
then ok "grid2d, 3 runs: the note names block counts 1, 2"; else bad "grid2d, 3 runs: the note names block counts 1, 2"; fi

# review22 H1: a deadlock or a cube/vector push/pop count mismatch at a swept value is a failure,
# not a refusal (the kernel has a meaning there: the off-by-one is the bug); exit 1. A row counts
# the distinct reports (ring_deadlock's one deadlock on both AIVs is 1)
for f in ring_deadlock:1 ring_count:2; do
    n=${f#*:}; f=${f%:*}
    $ptoc run --sweep $cc tests/sweep/fail/$f.pto >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q "^  T=3 U=3  *$n REPORT" $out/log && grep -q "^sweep: [0-9]* runs: [0-9]* match, [1-9][0-9]* failed, 0 refused$" $out/log &&
       ! grep -q " refused: " $out/log
    then ok "$f: U >= T fails the sweep"; else bad "$f: U >= T fails the sweep (rc $rc)"; fi
done
# review23 M2: a name used only in GM windows or only in valid() is varied: the stride that makes
# two blocks' windows overlap races; a valid region short of the rows a full op reads is read
# uninitialised. Before, each name "steered nothing" and the sweep ran its -D value only.
$ptoc run --sweep $cc tests/sweep/fail/win_stride.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  S (from 16, -4..4096): steers whether blocks 0 and 1 overlap, touch or lie apart in 2 windows (lines 8, 10)$" $out/log &&
   grep -q "^  S=8  *2 REPORTS" $out/log && grep -q "^  S=32  *match" $out/log
then ok "win_stride: S=8 overlaps and races"; else bad "win_stride: S=8 overlaps and races (rc $rc)"; fi
$ptoc run --sweep $cc tests/sweep/fail/valid_only.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  V (from 16, -4..4096): steers the valid region of 1 tile (line 6)$" $out/log &&
   grep -q "^  V=8  *1 REPORT" $out/log && grep -q "^  V=0  *1 REPORT" $out/log
then ok "valid_only: V < 16 reads rows nothing wrote"; else bad "valid_only: V < 16 reads rows nothing wrote (rc $rc)"; fi
# review27 M1: a block's share of 4 rows of C f16 that is not whole 32-byte blocks (C = 2, 42: not
# C = 40, whose 80-byte rows make 320-byte shares) splits a 32-byte block of y between two blocks: a
# race. The store windows of blocks 0 and 1 are classed by whether they share a 32-byte block, so
# such a C is run (before: C = 64 and 8 only, the sweep passed); from C = 40 too; and a budget that
# stops before it says so in a note.
$ptoc run --sweep $cc tests/sweep/fail/share32.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  C (from 48, 1..4096): steers .*whether blocks 0 and 1 store into one 32-byte block of GM in 1 window (lines 8, 9, 12)$" $out/log &&
   grep -q "^  N=16 C=2  *1 REPORT" $out/log && grep -q "error: race on gm y bytes" $out/log
then ok "share32: C=2 splits a 32-byte block between blocks and races"; else bad "share32: C=2 splits a 32-byte block between blocks and races (rc $rc)"; fi
$ptoc run --sweep $cc -D C=40 tests/sweep/fail/share32.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  N=16 C=40  *match" $out/log && grep -q "^  N=16 C=2  *1 REPORT" $out/log
then ok "share32 from C=40: still found"; else bad "share32 from C=40: still found (rc $rc)"; fi
$ptoc run --sweep $cc --sweep-runs 2 tests/sweep/fail/share32.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note: no run had blocks 0 and 1 store different bytes of one 32-byte block of GM with the store at line 12$" $out/log
then ok "share32, 2 runs: the note"; else bad "share32, 2 runs: the note (rc $rc)"; fi
$ptoc run --sweep $cc tests/sweep/valid_scalar.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  V=8  *match" $out/log && grep -q "^  V=0  *match" $out/log && ! grep -q "V=17\|V=-" $out/log
then ok "valid_scalar: none, some and all rows"; else bad "valid_scalar: none, some and all rows (rc $rc)"; fi
# review23 M1: a block count whose blocks 0 and 1 do not both work is an outcome apart, and the
# note says when no run of 2 blocks or more had both at work
$ptoc run --sweep $cc tests/sweep/idle_blocks.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note: kernel 'idle_blocks' ran at 2, 3 or 5 and more blocks only where block 0 or block 1 had no GM work" $out/log
then ok "idle_blocks: the note"; else bad "idle_blocks: the note (rc $rc)"; fi
$ptoc run --sweep $cc -D K=2..8 tests/sweep/idle_blocks.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && ! grep -q "had no GM work" $out/log
then ok "idle_blocks, K from 2: no note"; else bad "idle_blocks, K from 2: no note (rc $rc)"; fi
# a notify / wait value is an outcome too (review23 M2): T is the wait's value in ranks_loop
$ptoc run --sweep $cc tests/sweep/ranks_loop.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  T (from 3, -4..4096): steers 1 loop, 1 signal value (lines 4, 7)$" $out/log
then ok "ranks_loop: T steers the wait's value"; else bad "ranks_loop: T steers the wait's value (rc $rc)"; fi
# -D NAME=LO..HI/STEP: every STEP-th value from LO; a step below 1 is an error
$ptoc run --sweep $cc -D 'S=0..64/16' tests/sweep/fail/win_stride.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  S (from 16, 0..64/16): " $out/log && ! grep -q "^  S=8 " $out/log && grep -q "^  S=0  *2 REPORTS" $out/log
then ok "-D S=0..64/16"; else bad "-D S=0..64/16 (rc $rc)"; fi
$ptoc run --sweep $cc -D 'S=0..64/0' tests/sweep/fail/win_stride.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "error: -D S=0..64/0: want NAME=LO..HI or NAME=LO..HI/STEP" $out/log
then ok "-D S=0..64/0 refused"; else bad "-D S=0..64/0 refused (rc $rc)"; fi
# ... while a domain refusal with the simulator's uninitialised reads after it stays refused
# (refuse_step above); the rank count: a ring that reuses a slot races from 4 ranks (review22 M2)
$ptoc run --sweep $cc tests/sweep/fail/ring_noack.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  --ranks (from 3, 1..64): a ranks kernel: also run at 1, 2, 4 and 5 ranks$" $out/log &&
   grep -q "^  --ranks 2  *match" $out/log && grep -q "^  --ranks 4  *MISMATCH" $out/log &&
   grep -q "^      rerun: ptoc run tests/sweep/fail/ring_noack.pto$ccq --ranks '4'$" $out/log
then ok "ring_noack: --ranks 4 races"; else bad "ring_noack: --ranks 4 races (rc $rc)"; fi
# a count the interpreter refuses (a partner rank that does not exist) is a refused row
$ptoc run --sweep $cc tests/sweep/ranks_pairs.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  --ranks 3  *refused: ranks_pairs.pto:6:3: tput: rank 3 of g@3 is outside \[0, 3)$" $out/log &&
   grep -q "^  --ranks 2  *match" $out/log && grep -q "^sweep: 5 runs: 2 match, 0 failed, 3 refused$" $out/log
then ok "ranks_pairs: odd rank counts refused"; else bad "ranks_pairs: odd rank counts refused (rc $rc)"; fi
# --ranks LO..HI (command line or '# sweep:') bounds the counts; the file's --ranks outside it is said
$ptoc run --sweep $cc --ranks 2..4 tests/sweep/ranks_pairs.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  --ranks (from 4, 2..4): a ranks kernel: also run at 2 and 3 ranks$" $out/log
then ok "--ranks 2..4"; else bad "--ranks 2..4 (rc $rc)"; fi
{ printf '# sweep: --ranks 2..2\n'; cat tests/sweep/ranks_pairs.pto; } >$out/rp.pto
$ptoc run --sweep $cc $out/rp.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note: --ranks 4 (the command line's or the '# run:' line's) is outside --ranks 2..2: the sweep starts at 2 ranks and no run is made at 4$" $out/log &&
   grep -q "^sweep: 1 run: 1 match, 0 failed, 0 refused$" $out/log
then ok "# sweep: --ranks 2..2"; else bad "# sweep: --ranks 2..2 (rc $rc)"; fi
for a in "--ranks 0..4" "--ranks 3..2" "--ranks 1..65"; do
    # shellcheck disable=SC2086
    $ptoc run --sweep $a tests/sweep/ranks_pairs.pto >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q "error: run: --ranks LO..HI takes rank counts in 1..64" $out/log; then ok "usage: $a"; else bad "usage: $a (rc $rc)"; fi
done
# review22 L4: a row count that only changes the writers of misaligned rows is not "the row
# width"; a '# run:' value outside the '# sweep:' range is said, not dropped silently
$ptoc run --sweep $cc tests/sweep/rowwidth_words.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  R (from 48, 1..4096): steers the block count (blocks(R / 16)), whether 2 or more blocks share the misaligned rows of 2 tensors (line 6)$" $out/log &&
   grep -q "^  C (from 300, 300..4096): steers 3 min/max, the row width of 2 tensors" $out/log &&
   grep -q "^  note: C=200 (the -D or '# run:' value) is outside C=300..4096: C starts at 300 and no run is made at 200$" $out/log
then ok "rowwidth_words: the header's words, the note"; else bad "rowwidth_words: the header's words, the note (rc $rc)"; fi
# review22 M1: CRLF line endings: the '# run:' and '# sweep:' values lose the '\r'
sed 's/$/\r/' examples/softmax.pto >$out/crlf.pto
$ptoc run $cc $out/crlf.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "result      match" $out/log; then ok "CRLF: run"; else bad "CRLF: run (rc $rc)"; fi
$ptoc run --sweep $cc $out/crlf.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  N=64  *match" $out/log; then ok "CRLF: sweep"; else bad "CRLF: sweep (rc $rc)"; fi
{ printf '# sweep: -D N=16..64\n# run: -D N=40 -D alpha=1.5\n'; cat examples/tail.pto | grep -v '^# run:'; } | sed 's/$/\r/' >$out/crlf2.pto
$ptoc run --sweep $cc $out/crlf2.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  N (from 40, 16..64)" $out/log && grep -q "^  N=40  *match" $out/log; then ok "CRLF: '# sweep:' range"; else bad "CRLF: '# sweep:' range (rc $rc)"; fi
$ptoc emit $out/crlf.pto -o $out/crlfdir >/dev/null 2>&1 && $ptoc run $cc $out/crlfdir >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel softmax (4 blocks)" $out/log; then ok "CRLF: run DIR reads its '# run:'"; else bad "CRLF: run DIR reads its '# run:' (rc $rc)"; fi

# review26: a race the sweep missed, planted by deleting flags from the emit (the .pto itself
# sweeps clean); plant NAME PTO PATTERN...: each PATTERN names one flag call to delete
plant() {
    d=$out/$1; src=$2; shift 2
    $ptoc emit $src -o $d >/dev/null 2>&1 || { echo "emit $src failed"; return 1; }
    for p in "$@"; do
        n=$(grep -c "$p" $d/kernel.c)
        [ "$n" = 1 ] || { echo "plant $1: '$p' matches $n lines"; return 1; }
        grep -v "$p" $d/kernel.c >$d/k.c && mv $d/k.c $d/kernel.c
    done
}
# H1: an if reached only at interior iterations (`if i % 2 == 1`, T=7) is judged there too
$ptoc run --sweep $cc tests/sweep/fail/nested_if.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  U (from 16, 0..16): steers 1 if (line 16)$" $out/log
then ok "nested_if: U steers the interior if; clean"; else bad "nested_if: U steers the interior if; clean (rc $rc)"; fi
plant nested_if tests/sweep/fail/nested_if.pto 'wait_flag(core, "nested_if.pto:20", PTO_K_MTE2, PTO_K_V' &&
$ptoc run --sweep $cc $out/nested_if >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  T=7 U=[0-9]*  *[0-9]* REPORT" $out/log
then ok "nested_if: the planted race fails the sweep"; else bad "nested_if: the planted race fails the sweep (rc $rc)"; fi
# ... and a loop reached only there is run 0, 1, 2 and more times
$ptoc run --sweep $cc tests/sweep/hidden_loop.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  K (from 3, 0..8): steers 1 loop, 1 min/max (line 10)$" $out/log &&
   grep -q "^  T=7 K=0  *match" $out/log && grep -q "^  T=7 K=1  *match" $out/log
then ok "hidden_loop: K=0 and K=1 run"; else bad "hidden_loop: K=0 and K=1 run (rc $rc)"; fi
# H2: two short inner loops at once (A <= 2 and B <= 3), which no one-name run gives
$ptoc run --sweep $cc tests/sweep/fail/pairwise.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  together (loops and ifs that nest or share a loop): .*A and B.*: 8 runs; the bound of 8 runs left [0-9]* value sets unrun$" $out/log
then ok "pairwise: clean, the combination runs and their bound said"; else bad "pairwise: clean, the combination runs and their bound said (rc $rc)"; fi
plant pairwise tests/sweep/fail/pairwise.pto 'wait_flag(core, "pairwise.pto:10", PTO_K_MTE3, PTO_K_V' \
    'set_flag(core, "pairwise.pto:29", PTO_K_MTE3, PTO_K_V' &&
$ptoc run --sweep $cc $out/pairwise >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  R=[1-4] A=[0-2] B=[0-3] Z=[0-9]  *[0-9]* REPORT" $out/log
then ok "pairwise: the planted race fails the sweep"; else bad "pairwise: the planted race fails the sweep (rc $rc)"; fi
# ... and a loop inside an if that another name steers: trip_loopif's else loop past its 2 slots
plant loopif tests/user/trip_loopif.pto 'wait_flag(core, "trip_loopif.pto:18", PTO_K_MTE3, PTO_K_MTE2' \
    'set_flag(core, "trip_loopif.pto:20", PTO_K_MTE3, PTO_K_MTE2' &&
$ptoc run --sweep $cc $out/loopif >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^  together (loops and ifs that nest or share a loop): N and s: " $out/log &&
   grep -q "^  N=\(9[6-9]\|1[0-9][0-9]\) s=\(-[1-4]\|0\)  *[0-9]* REPORT" $out/log
then ok "trip_loopif: the planted race in the else loop fails the sweep"; else bad "trip_loopif: the planted race in the else loop fails the sweep (rc $rc)"; fi
# B-L2: a trip class that another dim's window refuses is said, not skipped silently
$ptoc run --sweep $cc tests/sweep/ring_held.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note: no run ran the loop at line 22 more than 3 times (its pipe ring's slots) (the sweep refuses the values of T that do with R=192: -D them together to run it)$" $out/log
then ok "ring_held: the ring wrap never run is noted"; else bad "ring_held: the ring wrap never run is noted (rc $rc)"; fi

# review29 L5: a trip class in words: past 3 trips over x2 tiles is "more than 3 times" (was "more
# than 2 times (its tiles' slots)" while runs made 3), 4 trips over x4 tiles "4 times" (was "4 to 4")
$ptoc run --sweep $cc tests/sweep/nest3_notes.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note: no run ran the loop at line 18 more than 3 times$" $out/log &&
   grep -q "^  note: no run ran the loop at line 11 4 times (its tiles' slots)$" $out/log &&
   grep -q "^  A=3 B=5 C=3 .* match" $out/log
then ok "nest3_notes: the unshown trip classes in words"; else bad "nest3_notes: the unshown trip classes in words (rc $rc)"; fi

# review27 L4: an outcome refused only with another name at its base value: the note names them
$ptoc run --sweep $cc tests/sweep/note_refused.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note: no run ran the loop at line 6 0 times, once, 2 times (the sweep refuses the values of T1 that do with T2=3: -D them together to run it)$" $out/log &&
   $ptoc run $cc -D T1=0 -D T2=0 tests/sweep/note_refused.pto >$out/log2 2>&1
then ok "note_refused: the note names T2=3"; else bad "note_refused: the note names T2=3 (rc $rc)"; fi

# review28 M6: windows under an if that leave their tensor at an iteration before the last (t = 8
# of T = 10 under `if t % 2 == 0`) refuse the value as a window outside an if does: T = 10 is
# not run; a guarded look-ahead (`if t < T - 1`) refuses nothing
$ptoc run --sweep $cc tests/sweep/if_window.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && ! grep -q "^  T=\(9\|1[0-9]\) " $out/log && grep -q "^sweep: [0-9]* runs: [0-9]* match, 0 failed, 0 refused$" $out/log &&
   grep -q "^  note: no run ran the loop at line 7 more than 8 times (its tiles' slots) (only values the sweep refuses to run do)$" $out/log
then ok "if_window: T = 10 not run"; else bad "if_window: T = 10 not run (rc $rc)"; fi
$ptoc run --sweep $cc tests/sweep/lookahead_if.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  T=4  *match" $out/log && grep -q "^sweep: [0-9]* runs: [0-9]* match, 0 failed, 0 refused$" $out/log
then ok "lookahead_if: nothing refused"; else bad "lookahead_if: nothing refused (rc $rc)"; fi
# ... and a run the interpreter refuses for a window past its tensor is refused although the
# simulator also reports the race between blocks that the window causes (it was "4 REPORTS")
$ptoc run --sweep $cc -D T=9..12 tests/sweep/if_window.pto >$out/log 2>&1
if grep -q "^  T=9  *refused: if_window.pto:10:7: tload: window x\[768, 0\] of shape \[32, 32\] is outside tensor 'x'" $out/log &&
   grep -q "^sweep: 1 run: 0 match, 0 failed, 1 refused$" $out/log
then ok "if_window: a window past its tensor and a race: refused"; else bad "if_window: a window past its tensor and a race: refused"; fi

# review28 M4: a stride that only moves one block's windows from one iteration to the next steers
# them: S = 0 (the same rows), below the tile's 16 rows (overlap), 16 (touch) and above (apart)
$ptoc run --sweep $cc tests/sweep/gm_stride.pto >$out/log 2>&1; rc=$?
svals=$(sed -n 's/^  S=\([0-9]*\) T=6 .*match.*/\1/p' $out/log | sort -n | tr '\n' ' ')
if [ $rc = 0 ] && grep -q "^  S (from 8, -4..4096): steers whether a block's window and its next iteration's overlap, touch or lie apart in 2 windows (lines 9, 11)$" $out/log &&
   echo "$svals" | grep -q "^0 \([1-9] \|1[0-5] \)*16 \(1[7-9]\|[2-9][0-9]\)" 
then ok "gm_stride: S steers the windows ($svals)"; else bad "gm_stride: S steers the windows ($svals, rc $rc)"; fi

# usage errors (exit 1, said)
for args in "--sweep --trace t.json tests/user/trip_x2.pto" "--sweep build" "--sweep-runs 3 tests/user/trip_x2.pto" \
            "--sweep --sweep-runs 0 tests/user/trip_x2.pto" "--sweep -D N=9..2 tests/user/trip_x2.pto" \
            "--sweep -D Q=1..2 tests/user/trip_x2.pto"; do
    # shellcheck disable=SC2086
    $ptoc run $args >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q "error:" $out/log; then ok "usage: run $args"; else bad "usage: run $args"; fi
done
# a value past int64 or no integer at all: said, not clamped (it once swept from 9223372036854775807)
# or replaced by the default base 64
for d in "N=99999999999999999999" "N=abc" "N=2.5"; do
    $ptoc run --sweep -D $d tests/user/trip_x2.pto >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q "^ptoc: error: -D $d: a swept name takes an integer in the range of a dim (1..2^62)" $out/log
    then ok "sweep -D $d is an error"; else bad "sweep -D $d is an error (rc $rc)"; cat $out/log; fi
done
for d in "N=1..99999999999999999999" "N=-99999999999999999999..4" "N=1..4611686018427387905"; do
    $ptoc run --sweep -D $d tests/user/trip_x2.pto >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q "^ptoc: error: -D $d: want NAME=LO..HI or NAME=LO..HI/STEP, LO <= HI, in the range of a dim (1..2^62), STEP >= 1" $out/log
    then ok "sweep -D $d is an error"; else bad "sweep -D $d is an error (rc $rc)"; cat $out/log; fi
done

echo "$pass passed, $fail failed"
[ $fail = 0 ]
