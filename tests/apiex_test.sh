#!/bin/sh
# apiex_test.sh - the C API example and the --tight option of ptoc emit/run.
#   - examples/api_resadd.c compiles cleanly in strict mode under gcc,
#     clang, tcc and g++, and (built by tcc, with ptoc run compiling by tcc
#     too) runs its kernel to a match with no simulator report;
#   - the comments of the emitted kernel point at the C lines that built
#     each statement; two runs write byte-identical sources;
#   - the .pto text it writes, run through `ptoc run` as text, gives the
#     same cycles and sync counts as the API-built kernel;
#   - `ptoc emit --tight` / `ptoc run --tight` plan at the tight level: on a
#     kernel where the levels differ the tile offsets differ as planned
#     (tight puts c on a's bytes), both plans match on the simulator and the
#     separate plan takes fewer cycles.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/apiex_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -20 $out/log; }
try() { name=$1; shift; if "$@" >$out/log 2>&1; then ok "$name"; else bad "$name"; fi; }
matched() { grep -q "result      match" "$1" && grep -q "simulator   no reports" "$1"; }
field() { sed -n "s/^  $1 *//p" "$2" | head -1; }

src=examples/api_resadd.c
S="-std=c99 -Wall -Wextra -pedantic -Werror"
try "api_resadd: gcc $S" gcc $S -I. -o $out/api_gcc $src -lm
try "api_resadd: clang $S" clang $S -I. -o $out/api_clang $src -lm
if command -v tcc >/dev/null 2>&1; then
    try "api_resadd: tcc -Wall -Werror" tcc -std=c99 -Wall -Werror -I. -o $out/api_tcc $src -lm
    api=$out/api_tcc
    if CC=tcc $api $out/a $ptoc >$out/log 2>&1 && matched $out/log; then ok "api_resadd (tcc) runs to a match, kernel compiled by tcc"
    else bad "api_resadd (tcc) runs to a match, kernel compiled by tcc"; fi
else
    echo "skip: no tcc"; api=$out/api_gcc; $api $out/a $ptoc >/dev/null 2>&1
fi
try "api_resadd: g++ -x c++" g++ -x c++ -Wall -Wextra -Werror -I. -o $out/api_gxx $src -lm
if $out/api_gcc $out/b $ptoc >$out/api.log 2>&1 && matched $out/api.log; then ok "api_resadd (gcc) runs to a match"
else cp $out/api.log $out/log; bad "api_resadd (gcc) runs to a match"; fi
try "api output is deterministic (kernel.c)" cmp $out/a/kernel.c $out/b/kernel.c
try "api output is deterministic (host.c)" cmp $out/a/host.c $out/b/host.c

# the tstore's comment names the C line that called pto_add_op(..., PTO_OP_TSTORE, ...)
line=$(grep -n "PTO_OP_TSTORE" $src | head -1 | cut -d: -f1)
try "kernel.c points at api_resadd.c:$line for the tstore" grep -q "pto_k_tstore(core, \"api_resadd.c:$line\", z, r, 0, c" $out/b/kernel.c

# the same kernel as text: same cycles, same syncs
if $ptoc run $out/b/resadd.pto -D N=256 -D alpha=0.75 >$out/text.log 2>&1 && matched $out/text.log &&
   [ "$(field cycles $out/text.log)" = "$(field cycles $out/api.log)" ] &&
   [ "$(field syncs $out/text.log)" = "$(field syncs $out/api.log)" ]; then
    ok "the .pto text of the API kernel runs the same ($(field cycles $out/api.log) cycles)"
else cat $out/text.log $out/api.log >$out/log; bad "the .pto text of the API kernel runs the same"; fi

# --tight
cat >$out/chain.pto <<'PTO'
kernel chain(in x: f32[1024, 256], out z: f32[1024, 256]) vector blocks(8) {
  for i = 0 to 8 {
    tile a: vec f32[16, 256]
    tile b: vec f32[16, 256]
    tile c: vec f32[16, 256]
    let r = block * 128 + i * 16
    tload a, x[r, 0]
    tmuls b, a, 0.5
    tadds c, b, 1.0
    tstore z[r, 0], c
  }
}
PTO
try "emit (separate)" $ptoc emit $out/chain.pto -o $out/sep
try "emit --tight" $ptoc emit --tight $out/chain.pto -o $out/tight
try "separate: c at 32768" grep -q "const pto_k_tile c = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 256, 16, 256, 32768);" $out/sep/kernel.c
try "tight: c on a's bytes (offset 0)" grep -q "const pto_k_tile c = pto_k_t(PTO_K_VEC, PTO_K_F32, 16, 256, 16, 256, 0);" $out/tight/kernel.c
$ptoc run $out/chain.pto >$out/sep.log 2>&1; r1=$?
$ptoc run --tight $out/chain.pto >$out/tight.log 2>&1; r2=$?
if [ $r1 = 0 ] && matched $out/sep.log; then ok "run (separate) matches"; else cp $out/sep.log $out/log; bad "run (separate) matches"; fi
if [ $r2 = 0 ] && matched $out/tight.log && grep -q "planned     vec 32768 B" $out/tight.log; then ok "run --tight matches, planned 32768 B"
else cp $out/tight.log $out/log; bad "run --tight matches, planned 32768 B"; fi
c1=$(field cycles $out/sep.log); c2=$(field cycles $out/tight.log)
if [ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" -lt "$c2" ]; then ok "separate plan is faster ($c1 < $c2 cycles)"
else bad "separate plan is faster ($c1 < $c2 cycles)"; fi
$ptoc run --tight >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^usage: ptoc" $out/log; then ok "run --tight without a file: usage, exit 1"
else bad "run --tight without a file: usage, exit 1 (got $rc)"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
