#!/bin/sh
# runguard_test.sh - the instruction budget of ptoc run (--max-instr N, also on a `# run:` line
# and for `ptoc run DIR`): a runaway loop stops on the simulator (one report naming the kernel,
# the limit and the instruction; every other core and rank stopped; exit status 1) and in the
# reference interpreter (an error at the innermost loop running), fast; a kernel exactly at
# the limit passes, one instruction more does not.
ptoc=${1:-${PTOC:-./build/ptoc}}
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
out=$(mktemp -d); trap 'rm -rf $out' EXIT
# stopped: FILE/DIR, description, limit, interpreter's loop location, args...
stopped() {
    what=$1; desc=$2; lim=$3; loc=$4; shift 4
    start=$(date +%s)
    $ptoc run "$@" "$what" >$out/log 2>&1; rc=$?
    took=$(( $(date +%s) - start ))
    if [ $rc = 1 ] && grep -q "error: kernel [a-z]* ran more than $lim instructions (the instruction budget, over every core of the launch), stopped here" $out/log &&
       grep -q "raise the limit with ptoc run --max-instr N" $out/log &&
       grep -q "$loc: error: kernel '[a-z]*' ran more than $lim instructions (the instruction budget, over every block.*); this loop was running" $out/log &&
       grep -q "no reference: the interpreter failed" $out/log && grep -q "simulator   1 report$" $out/log &&
       [ $took -lt 60 ]; then ok
    else bad "$desc (rc $rc, ${took}s)"; cat $out/log; fi
}
cat >$out/runaway.pto <<'PTO'
kernel runaway(in x: f32[16, 64], out z: f32[64, 64]) vector blocks(4) {
  tile a: vec f32[16, 64]
  tile c: vec f32[16, 64]
  tload a, x[0, 0]
  for i = 0 to 1000000000000 {
    tadd c, a, a
  }
  tstore z[block * 16, 0], c
}
PTO
stopped $out/runaway.pto "vector, 4 blocks" 3000 "runaway.pto:5:3" --max-instr 3000
# a `# run:` line gives the limit; the command line overrides it; ptoc run DIR reads it from host.c
( echo "# run: --max-instr 2500"; cat $out/runaway.pto ) >$out/runline.pto
stopped $out/runline.pto "# run: --max-instr" 2500 "runline.pto:6:3"
stopped $out/runline.pto "--max-instr overrides # run:" 1200 "runline.pto:6:3" --max-instr 1200
$ptoc emit $out/runline.pto -o $out/dir >/dev/null 2>&1
stopped $out/dir "ptoc run DIR" 2500 "runline.pto:6:3"
# the innermost loop running is named, not the outer one
cat >$out/nested.pto <<'PTO'
kernel nested(in x: f32[16, 64], out z: f32[16, 64]) vector {
  tile a: vec f32[16, 64]
  tload a, x[0, 0]
  for j = 0 to 1000000 {
    for i = 0 to 3 {
      tadd a, a, a
    }
  }
  tstore z[0, 0], a
}
PTO
stopped $out/nested.pto "nested loops" 500 "nested.pto:5:5" --max-instr 500
# a mix kernel: the cube pushes forever, both AIVs pop forever; the blocked cores stop too
cat >$out/mix.pto <<'PTO'
kernel mixrun(in x: f32[64, 64], out y: f32[128, 64], scalar T: i32) mix blocks(2) {
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
    for i = 0 to T {
      tile t: vec f32[32, 64]
      tpop t, q
      tstore y[block * 64 + subblock * 32, 0], t
      tfree q
    }
  }
}
PTO
stopped $out/mix.pto "mix, 2 clusters" 4000 "mix.pto:1[27]:5" --max-instr 4000 -D T=1000000000
# a ranks kernel on 3 ranks
cat >$out/ranks.pto <<'PTO'
kernel rk(in x: f32[16, 64], out z: f32[16, 64]) vector ranks {
  tile a: vec f32[16, 64]
  tload a, x[0, 0]
  for i = 0 to 1000000000 {
    tadd a, a, a
  }
  tstore z[0, 0], a
}
PTO
stopped $out/ranks.pto "ranks" 900 "ranks.pto:4:3" --max-instr 900 --ranks 3
# exactly at the limit: 1 tload + 10 tadds + 1 tstore = 12 instructions per block, 2 blocks
cat >$out/exact.pto <<'PTO'
kernel exact(in x: f32[32, 64], out z: f32[32, 64]) vector blocks(2) {
  tile a: vec f32[16, 64]
  tload a, x[block * 16, 0]
  for i = 0 to 10 {
    tadds a, a, 1.0
  }
  tstore z[block * 16, 0], a
}
PTO
$ptoc run --max-instr 24 $out/exact.pto >$out/log 2>&1 && grep -q "result      match" $out/log &&
    grep -q "simulator   no reports" $out/log && ok || { bad "24 instructions under --max-instr 24"; cat $out/log; }
# one more: the 24th (block 1's tstore, in either order of the blocks) stops both sides
$ptoc run --max-instr 23 $out/exact.pto >$out/log 2>&1; rc=$?
[ $rc = 1 ] && grep -q "exact.pto:7:3: error: kernel 'exact' ran more than 23 instructions (the instruction budget, over every block): a runaway" $out/log &&
    grep -q "exact.pto:7: error: kernel exact ran more than 23 instructions" $out/log && ok ||
    { bad "24 instructions under --max-instr 23 (rc $rc)"; cat $out/log; }
# the default lets an ordinary kernel run; a bad value is a usage error
$ptoc run examples/vadd.pto >$out/log 2>&1 && ok || { bad "vadd under the default budget"; cat $out/log; }
# (past int64 it once clamped to 9223372036854775807 without a word)
for v in 0 -5 abc 10x 9223372036854775808 99999999999999999999 -99999999999999999999 ''; do
    $ptoc run --max-instr "$v" $out/exact.pto >$out/log 2>&1; rc=$?
    [ $rc = 1 ] && grep -q "\-\-max-instr $v: want a positive instruction count in 1..9223372036854775807$" $out/log && ok ||
        { bad "--max-instr $v (rc $rc)"; cat $out/log; }
done
# a budget of 1: both sides say "1 instruction" ("1 instructions" before)
$ptoc run --max-instr 1 $out/exact.pto >$out/log 2>&1; rc=$?
[ $rc = 1 ] && grep -q "exact.pto:[0-9]*:[0-9]*: error: kernel 'exact' ran more than 1 instruction (the instruction budget" $out/log &&
    grep -q "exact.pto:[0-9]*: error: kernel exact ran more than 1 instruction (the instruction budget" $out/log && ok ||
    { bad "--max-instr 1: singular (rc $rc)"; cat $out/log; }
$ptoc run --max-instr 9223372036854775807 $out/exact.pto >$out/log 2>&1 && grep -q "result      match" $out/log && ok ||
    { bad "--max-instr 9223372036854775807 (the largest) runs"; cat $out/log; }
echo "$pass passed, $fail failed"
[ $fail = 0 ]
