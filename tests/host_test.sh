#!/bin/sh
# host_test.sh - host sections end to end through ptoc run.
#   - a host with dynamic dims, scalars and intermediates matches the
#     reference interpreter under cc and tcc, and its host.c compiles clean
#     in strict mode (-Wall -Wextra -pedantic -Werror);
#   - planted bugs are caught: a kernel constant edited in kernel.c (the
#     host's output mismatches), a call deleted from host.c (the
#     intermediate it wrote mismatches, named), a block count too small
#     (rows left unwritten mismatch);
#   - a missing -D for a host dim is a user error (exit 1) naming the dim.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/host_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -20 $out/log; }
# expect NAME RC PATTERN CMD...: exit status RC and PATTERN in the output
expect() {
    name=$1; want=$2; pat=$3; shift 3
    "$@" >$out/log 2>&1; rc=$?
    if [ $rc = "$want" ] && grep -q -- "$pat" $out/log; then ok "$name"; else bad "$name (exit $rc, want $want, /$pat/)"; fi
}
D="-D M=64 -D s=0.5 -D k=3"

for cc in cc tcc; do
    # shellcheck disable=SC2086
    expect "host_chain matches ($cc)" 0 "^  result      match (1 output)" $ptoc run --cc $cc tests/ok/host_chain.pto $D
done
# shellcheck disable=SC2086
PTO_CFLAGS="-Wall -Wextra -pedantic -Werror" expect "host.c is clean in strict mode" 0 "^host h" \
    $ptoc run tests/ok/host_chain.pto $D
# shellcheck disable=SC2086
expect "three calls, one host report" 0 "total         .* cycles over 3 kernels" $ptoc run tests/ok/host_chain.pto $D

$ptoc emit examples/host_mm_norm.pto -o $out/good >$out/log 2>&1 || bad "emit host_mm_norm"
expect "host_mm_norm as emitted" 0 "result      match (1 output)" $ptoc run $out/good -D eps=0.000001

cp -r $out/good $out/const
sed 's/0.0078125/0.0078126/g' $out/good/kernel.c >$out/const/kernel.c
expect "an edited kernel constant mismatches" 1 "mismatch: y differs in" $ptoc run $out/const -D eps=0.000001

cp -r $out/good $out/nocall
grep -v 'pto_h_call(run, kernel_mm,' $out/good/host.c >$out/nocall/host.c
expect "a deleted call leaves its intermediate wrong" 1 "mismatch: t differs in" $ptoc run $out/nocall -D eps=0.000001

cp -r $out/good $out/blocks
sed 's/kernel_rmsnorm, "rmsnorm", PTO_K_KIND_VECTOR, 128 \/ 16,/kernel_rmsnorm, "rmsnorm", PTO_K_KIND_VECTOR, 4,/' \
    $out/good/host.c >$out/blocks/host.c
if cmp -s $out/good/host.c $out/blocks/host.c; then bad "the block count is emitted as 128 / 16"; else
    expect "too few blocks leave rows unwritten" 1 "^    y\[64, 0\] = 0 on the simulator" $ptoc run $out/blocks -D eps=0.000001
fi

grep -v '^# run:' tests/ok/host_chain.pto > $out/nodefaults.pto
expect "a missing host dim is a user error" 1 "dynamic dim M needs a value" \
    $ptoc run $out/nodefaults.pto -D s=0.5 -D k=3

# a -D of a kernel's dim that the host binds from its own arguments: said, not "did you mean N"
cat > $out/hb.pto <<'EOF2'
kernel k(in x: f32[N, 64], out y: f32[N, 64]) vector {
  tile t: vec f32[16, 64]
  tload t, x[0, 0]
  tstore y[0, 0], t
}
host h(in x: f32[16, 64], out y: f32[16, 64]) {
  call k(x, y)
}
EOF2
expect "-D of a host-bound dim: said what binds it" 0 \
    "warning: -D N=16: 'N' belongs to kernel 'k', which host code calls with values from its own arguments" \
    $ptoc run $out/hb.pto -D N=16
if grep -q "did you mean" $out/log; then bad "no 'did you mean' for the name itself"; else ok "no 'did you mean' for the name itself"; fi
# a -D given twice: the later value counts, with no warning
expect "-D N=64 -D N=128: the later counts" 0 "^kernel softmax (8 blocks)" $ptoc run examples/softmax.pto -D N=64 -D N=128
if grep -q "warning" $out/log; then bad "-D twice: no warning"; else ok "-D twice: no warning"; fi

# a call with the wrong argument count is one error: the tensors it names count as written
# (the call after it, reading t, drew "read before any call writes it" too)
{ sed -n '2,$p' tests/bad/host_arity.pto | sed '/^host/,$d'
  printf 'host h(in x: f32[64, 64], out y: f32[64, 64]) {\n  tensor t: f32[64, 64]\n  call sc(x, t)\n  call sc(t, y, 2.0)\n}\n'; } >$out/arity.pto
expect "wrong argument count: reported" 1 "'sc' takes 3 arguments (its tensors, then its scalars), got 2" $ptoc check $out/arity.pto
if [ "$(grep -c 'error:' $out/log)" = 1 ]; then ok "wrong argument count: no cascade"; else bad "wrong argument count: no cascade"; fi

# a kernel that no host calls is not run, and the run says so (a note: the exit status stays 0)
# (review18 L11); a file whose kernels are all called gets no note
{ printf 'kernel art(inout g: f32[7, 13] window, inout sig: i32[1, 8] window) vector ranks {\n  allreduce g, sig\n}\n'
  cat tests/ok/host_chain.pto; } >$out/uncalled.pto
expect "an uncalled kernel: a note, exit 0" 0 "^note: kernel 'art' is called by no host: not run" $ptoc run $out/uncalled.pto $D
if grep -q "^  result      match" $out/log; then ok "an uncalled kernel: the host still matches"; else bad "an uncalled kernel: the host still matches"; fi
$ptoc run tests/ok/host_chain.pto $D >$out/log 2>&1
if grep -q "called by no host" $out/log; then bad "every kernel called: no note"; else ok "every kernel called: no note"; fi
# a host whose result differs after a call that raced says the race may be the cause
# (a hand edit: no syncs, and addn's constant changed)
rm -rf $out/hc && $ptoc emit --no-sync tests/ok/host_chain.pto -o $out/hc >$out/log 2>&1 || bad "emit --no-sync host_chain"
sed -i 's/pto_k_texpands(core, "host_chain.pto:17", c, 1.0);/pto_k_texpands(core, "host_chain.pto:17", c, 2.0);/' $out/hc/kernel.c
expect "a mismatch after a racing call: a note" 1 "^  note        call scale raced (above): .* may follow from it" $ptoc run $out/hc $D
# check says it too, before anything runs
expect "check: an uncalled kernel, a note, exit 0" 0 "^note: kernel 'art' is called by no host: .ptoc run. will not run it" $ptoc check $out/uncalled.pto
$ptoc check tests/ok/host_chain.pto >$out/log 2>&1
if grep -q "called by no host" $out/log; then bad "check: every kernel called: no note"; else ok "check: every kernel called: no note"; fi

# ptoc dump keeps the file's '# run:' and '# sweep:' lines: its dump runs as the file does (review18 L5)
$ptoc dump sync examples/allreduce.pto >$out/ar_dump.pto 2>$out/log
expect "a dump of allreduce runs at the file's --ranks 4" 0 "^kernel allreduce (1 block x 4 ranks)" $ptoc run $out/ar_dump.pto
$ptoc dump parse tests/user/trip_cube_k.pto >$out/log 2>&1
if [ "$(sed -n 1,2p $out/log)" = "$(grep '^# \(sweep\|run\):' tests/user/trip_cube_k.pto)" ] && grep -q '^# sweep:' $out/log
then ok "dump keeps '# sweep:' and '# run:' at the top"; else bad "dump keeps '# sweep:' and '# run:' at the top"; fi

# a host scalar of another dtype passed to an f16 / bf16 param: its value is known only at run
# time, so the run says a value that changes on the way (as -D does of a kernel's own f16 scalar),
# naming the call; one that holds exactly is no warning, and both sides agree either way
cat > $out/narrow.pto <<'EOF2'
kernel k(in x: f16[16, 64], out y: f16[16, 64], scalar a: f16, scalar b: bf16) vector {
  tile t: vec f16[16, 64]
  tload t, x[0, 0]
  tmuls t, t, a
  tadds t, t, b
  tstore y[0, 0], t
}
# run: -D s=0.1 -D h=0.5
host main(in x: f16[16, 64], out y: f16[16, 64], scalar s: f32, scalar h: f16) {
  call k(x, y, s, h)
}
EOF2
expect "an f32 host scalar to an f16 param: the value held" 0 \
    "^warning: -D s=0.1: call k (narrow.pto:10) passes it to scalar a, which is f16 and holds 0.0999755859375$" \
    $ptoc run $out/narrow.pto
if grep -q "^  result      match (1 output)$" $out/log && [ "$(grep -c warning $out/log)" = 1 ]; then
    ok "narrowed: match, one warning (h=0.5 holds in bf16)"; else bad "narrowed: match, one warning"; fi
expect "an f16 host scalar to a bf16 param: the value held" 0 \
    "^warning: -D h=0.1: call k (narrow.pto:10) passes it to scalar b, which is bf16 and holds 0.10009765625$" \
    $ptoc run $out/narrow.pto -D s=0.25 -D h=0.1
if grep -q "^warning: -D h=0.1: scalar h is f16 and holds 0.0999755859375$" $out/log &&
   ! grep -q "s=0.25" $out/log; then ok "narrowed: h said twice (f16, then bf16), s=0.25 not"
else bad "narrowed: h said twice (f16, then bf16), s=0.25 not"; fi
$ptoc emit $out/narrow.pto -o $out/narrow >$out/log 2>&1
if grep -q 'pto_h_narrow(run, s, PTO_K_F16, "s", "k", "a", 10)' $out/narrow/host.c &&
   grep -q 'pto_h_narrow(run, h, PTO_K_BF16, "h", "k", "b", 10)' $out/narrow/host.c; then
    ok "host.c checks both arguments"; else bad "host.c checks both arguments"; fi

# an integer host scalar and an integer expression of the host's dims: f16 holds 2049 as 2048
cat > $out/narrowi.pto <<'EOF2'
kernel k(in x: f16[N, 64], out y: f16[16, 64], scalar a: f16) vector {
  tile t: vec f16[16, 64]
  tload t, x[0, 0]
  tadds t, t, a
  tstore y[0, 0], t
}
# run: -D n=2049 -D M=16
host main(in x: f16[M, 64], out y: f16[16, 64], out z: f16[16, 64], scalar n: i32) {
  call k(x, y, n)
  call k(x, z, M * 128 + 1)
}
EOF2
expect "an i32 host scalar to an f16 param: the value held" 0 \
    "^warning: -D n=2049: call k (narrowi.pto:9) passes it to scalar a, which is f16 and holds 2048$" \
    $ptoc run $out/narrowi.pto
if grep -q "^warning: call k (narrowi.pto:10) passes M \* 128 + 1 = 2049 to scalar a, which is f16 and holds 2048$" $out/log &&
   grep -q "^  result      match (2 outputs)$" $out/log; then ok "an expression to an f16 param: the value held"
else bad "an expression to an f16 param: the value held"; fi
expect "2048 holds in f16: no warning" 0 "^  result      match (2 outputs)$" $ptoc run $out/narrowi.pto -D n=2048 -D M=16
if grep -q "warning: -D n" $out/log; then bad "n=2048: no warning"; else ok "n=2048: no warning"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
