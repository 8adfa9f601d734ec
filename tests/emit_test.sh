#!/bin/sh
# emit_test.sh - ptoc emit / ptoc run end to end.
#   - emission through the CLI is deterministic (two runs, cmp);
#   - once pto_kernels.h has the simulator: every example (and
#     tests/ok/columns.pto, the column ops, and tests/ok/mm_f16out.pto, tstore
#     from an f32 acc to f16 / bf16 tensors) runs through `ptoc run` under cc
#     and tcc and matches the reference interpreter with no simulator report; the golden sources of test_emit compile cleanly
#     with gcc, clang, g++ and tcc in strict mode, and the two runnable ones
#     match on the simulator; a flag deleted by hand from an emitted kernel
#     is caught (`ptoc run DIR` exits 1 naming a race); a missing or
#     malformed -D is a user error (exit 1), an unused one a warning; the
#     file's "# run:" defaults hold for FILE and for an emitted DIR.
# PTO_INCLUDE may point at another pto.h / pto_kernels.h pair.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/emit_test
inc=${PTO_INCLUDE:-.}
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -20 $out/log; }
try() { name=$1; shift; if "$@" >$out/log 2>&1; then ok "$name"; else bad "$name"; fi; }

# -D values the examples need: their "# run:" line
defs() { sed -n 's/^# run: //p' "$1" | head -1; }

try "emit vadd" $ptoc emit examples/vadd.pto -o $out/a
try "emit vadd again" $ptoc emit examples/vadd.pto -o $out/b
try "emit is deterministic (kernel.c)" cmp $out/a/kernel.c $out/b/kernel.c
try "emit is deterministic (host.c)" cmp $out/a/host.c $out/b/host.c
if $ptoc emit $out/none.pto -o $out/c >$out/log 2>&1; then bad "emit of a missing file fails"; else ok "emit of a missing file fails"; fi
# -o DIR whose parent is missing: the error says why ("cannot write" alone left it to guess)
$ptoc emit examples/vadd.pto -o $out/no/such >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^ptoc: error: cannot write '$out/no/such/kernel.c': No such file or directory (ptoc creates DIR, not its parents)$" $out/log
then ok "emit into a missing parent says why"; else bad "emit into a missing parent says why (rc $rc)"; fi

if ! grep -q "pto_k_launch(pto_k_device" "$inc/pto_kernels.h" 2>/dev/null; then
    echo "skip: $inc/pto_kernels.h has no simulator yet; run tests need it"
    echo "$pass passed, $fail failed"
    [ $fail = 0 ]
    exit
fi

# the examples, tests/ok/columns.pto: every column reduction and broadcast, f32 and f16,
# tests/ok/mm_f16out.pto: the fixpipe's cast on tstore acc f32 -> f16 / bf16, and
# tests/ok/mm_lefttail.pto: a matmul row tail on the left tile (TMATMUL's m = its valid rows),
# tests/ok/pad_ktail.pto and pad_rows.pto: ops that read tload's zero padding (a K tail on the
# mat tiles only, a row sum past a tile's valid rows; the isa target adds TFILLPAD for them)
for f in examples/*.pto tests/ok/columns.pto tests/ok/mm_f16out.pto tests/ok/mm_lefttail.pto tests/ok/pad_ktail.pto \
         tests/ok/pad_rows.pto; do
    for cc in cc tcc; do
        name="run $(basename $f) with $cc"
        if $ptoc run $f $(defs $f) --cc $cc >$out/log 2>&1 && grep -q "result      match" $out/log &&
           grep -q "simulator   no reports" $out/log; then ok "$name"; else bad "$name"; fi
    done
done

# the golden kernels, compiled strictly by four compilers
W="-Wall -Wextra -Werror"
for g in gvadd gmm gmix; do
    mkdir -p $out/$g
    cp tests/golden/$g.kernel.c $out/$g/kernel.c
    cp tests/golden/$g.host.c $out/$g/host.c
    try "golden $g: gcc -std=c99 -pedantic" gcc -std=c99 -pedantic $W -I$inc -o $out/$g/gcc $out/$g/host.c -lm -lpthread
    try "golden $g: clang -std=c99 -pedantic" clang -std=c99 -pedantic $W -I$inc -o $out/$g/clang $out/$g/host.c -lm -lpthread
    try "golden $g: g++" g++ -x c++ $W -I$inc -o $out/$g/gxx $out/$g/host.c -lm -lpthread
    try "golden $g: tcc" tcc -I$inc -o $out/$g/tcc $out/$g/host.c -lm -lpthread
done
for g in gvadd gmm; do
    for bin in gcc tcc; do
        name="golden $g runs clean ($bin)"
        if $out/$g/$bin -D N=48 -D alpha=0.5 --seed 7 >$out/log 2>&1 && grep -q "result      match" $out/log &&
           grep -q "simulator   no reports" $out/log; then ok "$name"; else bad "$name"; fi
    done
done
# review28 L4: the emitter checks only the + - * it cannot bound; every index of the goldens and the examples is
# bounded (literals, loop ranges, block below blocks, dims, i32 scalars), so their C is plain; a kernel with one
# unbounded product (tests/diag/idx_overflow.pto) gets one pto_k_imul and compiles under the four compilers
for g in gvadd gmm gmix; do
    if grep -q 'pto_k_i[a-z]*(' tests/golden/$g.kernel.c; then bad "golden $g: no checked arithmetic"; else ok "golden $g: no checked arithmetic"; fi
done
n=0
for f in examples/*.pto; do
    $ptoc emit $f -o $out/ex >$out/log 2>&1 && ! grep -q 'pto_k_i[a-z]*(' $out/ex/kernel.c || { n=$((n + 1)); echo "  checked: $f"; }
done
if [ $n = 0 ]; then ok "examples: no checked arithmetic"; else bad "examples: no checked arithmetic ($n)"; fi
mkdir -p $out/iov
try "emit idx_overflow" $ptoc emit tests/diag/idx_overflow.pto -o $out/iov
if [ "$(grep -c 'pto_k_imul(core, "idx_overflow.pto:6", n, 4611686018427387904)' $out/iov/kernel.c)" = 1 ]; then
    ok "idx_overflow: one pto_k_imul at its line"; else bad "idx_overflow: one pto_k_imul at its line"; fi
try "idx_overflow: gcc -std=c99 -pedantic" gcc -std=c99 -pedantic $W -I$inc -o $out/iov/gcc $out/iov/host.c -lm -lpthread
try "idx_overflow: clang -std=c99 -pedantic" clang -std=c99 -pedantic $W -I$inc -o $out/iov/clang $out/iov/host.c -lm -lpthread
try "idx_overflow: g++" g++ -x c++ $W -I$inc -o $out/iov/gxx $out/iov/host.c -lm -lpthread
try "idx_overflow: tcc" tcc -I$inc -o $out/iov/tcc $out/iov/host.c -lm -lpthread
for bin in gcc clang gxx tcc; do
    $out/iov/$bin -D n=4 >$out/log 2>&1
    if grep -q "^    idx_overflow.pto:6: error: integer overflow in expression" $out/log; then
        ok "idx_overflow: reported ($bin)"; else bad "idx_overflow: reported ($bin)"; fi
done
try "run DIR of an emitted vadd" $ptoc run $out/a

# a flag deleted by hand: the simulator must judge the edit
awk 'done || !/pto_k_wait_flag\(core, "vadd.pto:11/ { print; next } { done = 1 }' $out/a/kernel.c > $out/a/k2
mv $out/a/k2 $out/a/kernel.c
$ptoc run $out/a >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "race" $out/log && grep -q "syncs       15 flags" $out/log; then ok "dropped wait_flag is caught"; else bad "dropped wait_flag is caught (rc $rc)"; fi

grep -v '^# run:' examples/softmax.pto > $out/nodefaults.pto
$ptoc run $out/nodefaults.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "dynamic dim N needs a value: -D N=VALUE" $out/log; then ok "missing -D"; else bad "missing -D (rc $rc)"; fi
# the file's own "# run: -D N=64" line gives the default; the command line overrides it
$ptoc run examples/softmax.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel softmax (4 blocks)" $out/log; then ok "# run: defaults"; else bad "# run: defaults (rc $rc)"; fi
$ptoc run examples/softmax.pto -D N=32 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel softmax (2 blocks)" $out/log; then ok "-D overrides # run:"; else bad "-D overrides # run: (rc $rc)"; fi
# the "# run:" line takes -DN=64 as the command line does, and an option it does not take is
# said: both used to shift the pairs after them, silently dropping every later default
{ echo "# run: -DN=32 --tight -D eps=0.00001"; grep -v '^# run:' examples/rmsnorm.pto; } > $out/runline.pto
$ptoc run $out/runline.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel rmsnorm (2 blocks)" $out/log &&
   grep -q "warning: $out/runline.pto: '# run:' option '--tight' is ignored" $out/log
then ok "# run: -DN=V and an ignored option"; else bad "# run: -DN=V and an ignored option (rc $rc)"; fi
# review27 L2: a FILE that comes through a pipe (`ptoc run -`, /dev/stdin) keeps its '# run:' and
# '# sweep:' lines: its text is read once (it was read again after the parse had drained the pipe:
# "dynamic dim N needs a value")
cat examples/softmax.pto | $ptoc run - >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel softmax (4 blocks)" $out/log; then ok "run -: # run: defaults"; else bad "run -: # run: defaults (rc $rc)"; fi
$ptoc run /dev/stdin <examples/softmax.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel softmax (4 blocks)" $out/log; then ok "run /dev/stdin: # run: defaults"; else bad "run /dev/stdin: # run: defaults (rc $rc)"; fi
{ echo "# sweep: -D N=64..64"; cat examples/softmax.pto; } | $ptoc run --sweep - >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  N (from 64, 64..64)" $out/log && grep -q "^sweep: 1 run: 1 match" $out/log
then ok "run --sweep -: # run: and # sweep: lines"; else bad "run --sweep -: # run: and # sweep: lines (rc $rc)"; cat $out/log; fi
# an unknown option with a value is one warning naming both, and the option after it still counts
{ echo "# run: --frob 3 -D N=32 -D eps=0.00001"; grep -v '^# run:' examples/rmsnorm.pto; } > $out/frob.pto
$ptoc run $out/frob.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel rmsnorm (2 blocks)" $out/log &&
   grep -q "'# run:' option '--frob 3' is ignored" $out/log && [ "$(grep -c "is ignored" $out/log)" = 1 ]
then ok "# run: an unknown option and its value: one warning"; else bad "# run: an unknown option and its value: one warning (rc $rc)"; fi
# review18 L7: "# run: -D N" without a value is an error at the file's line and column (was "bad
# -D 'N'" naming no file), in an emitted DIR at host.c's line
{ echo "# run: -D N"; grep -v '^# run:' examples/softmax.pto; } > $out/noval.pto
$ptoc run $out/noval.pto >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^$out/noval.pto:1:11: error: the '# run:' line's -D 'N' has no value (write -D NAME=VALUE)$" $out/log &&
   ! grep -q "bad -D" $out/log
then ok "# run: -D N without a value"; else bad "# run: -D N without a value (rc $rc)"; fi
$ptoc emit $out/noval.pto -o $out/novald >$out/log 2>&1
$ptoc run $out/novald >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^$out/novald/host.c:[0-9]*:16: error: the '# run:' line's -D 'N' has no value" $out/log
then ok "run DIR: # run: -D N without a value"; else bad "run DIR: # run: -D N without a value (rc $rc)"; fi
# a UTF-8 byte-order mark (Windows editors) is skipped: by the parser, fmt, and the "# run:" readers
{ printf '\357\273\277# run: -D N=32\n'; grep -v '^# run:' examples/softmax.pto; } > $out/bom.pto
$ptoc run $out/bom.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel softmax (2 blocks)" $out/log; then ok "BOM: run"; else bad "BOM: run (rc $rc)"; fi
if [ "$($ptoc fmt $out/bom.pto 2>&1 | head -1)" = "# run: -D N=32" ]; then ok "BOM: fmt keeps line 1"; else bad "BOM: fmt keeps line 1"; fi
$ptoc emit $out/bom.pto -o $out/bomd >$out/log 2>&1
$ptoc run $out/bomd >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel softmax (2 blocks)" $out/log; then ok "BOM: run DIR"; else bad "BOM: run DIR (rc $rc)"; fi
# an emitted directory keeps the defaults: host.c embeds the "# run:" line
$ptoc emit examples/softmax.pto -o $out/smx >$out/log 2>&1
$ptoc run $out/smx >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel softmax (4 blocks)" $out/log; then ok "run DIR: # run: defaults"; else bad "run DIR: # run: defaults (rc $rc)"; fi
$ptoc run $out/smx -D N=32 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "kernel softmax (2 blocks)" $out/log; then ok "run DIR: -D overrides"; else bad "run DIR: -D overrides (rc $rc)"; fi
# a -D value must be a whole number; a -D no param takes is a warning
for v in N=64x N=abc N=; do
    $ptoc run examples/softmax.pto -D $v >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q "bad -D '$v': the value is not a number" $out/log; then ok "-D $v is an error"; else bad "-D $v is an error (rc $rc)"; fi
done
# more blocks than the device has cores: the run says the device would need waves
$ptoc run examples/softmax.pto -D N=1024 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  note        64 blocks on 48 vector cores (a2a3, 910B): the device runs 2 waves; cycles counts the blocks at once$" $out/log
then ok "blocks past the cores: waves noted"; else bad "blocks past the cores: waves noted (rc $rc)"; fi
$ptoc run examples/softmax.pto -D N=768 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && ! grep -q "note        .*waves" $out/log; then ok "48 blocks: no waves note"; else bad "48 blocks: no waves note (rc $rc)"; fi
# a dim that is not a positive integer: the value is quoted
$ptoc run examples/softmax.pto -D N=64.5 >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^error: -D N=64.5: dynamic dim N must be a positive integer$" $out/log; then ok "-D N=64.5 is quoted"; else bad "-D N=64.5 is quoted (rc $rc)"; fi
# a dim is read as typed, not through a double (review22 L3: 2^62 - 1 read as 2^62 was "too large
# (at most 2^62)", printed as 4.6116860184273879e+18)
$ptoc run examples/softmax.pto -D N=4611686018427387903 >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && ! grep -q "dynamic dim N.*too large" $out/log && grep -q "4611686018427387903" $out/log
then ok "-D N=2^62-1 is a dim"; else bad "-D N=2^62-1 is a dim (rc $rc)"; fi
for v in 4611686018427387904 99999999999999999999; do
    $ptoc run examples/softmax.pto -D N=$v >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q "^error: dynamic dim N = $v is too large (a dim is less than 2^62)$" $out/log
    then ok "-D N=$v: too large, as typed"; else bad "-D N=$v: too large, as typed (rc $rc)"; fi
done
# an integer scalar takes an integer its dtype holds: the kernel gets an int64_t (2.5 arrived
# as 2, 1e30 through an undefined conversion) while the reference computed with the double
for v in k=2.5 k=1e30 k=2147483648 q=200 q=nan; do
    $ptoc run tests/edge/int_scalars.pto -D $v >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q "^error: -D $v: scalar ${v%%=*} is i[38][2]* and takes an integer in" $out/log &&
       ! grep -q "mismatch" $out/log; then ok "-D $v for an integer scalar is an error"
    else bad "-D $v for an integer scalar is an error (rc $rc)"; fi
done
# a float -D the tile's dtype takes as inf: said at the launch, as the verifier says of literals
$ptoc run examples/tail.pto -D alpha=1e39 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^warning: -D alpha=1e39: tmuls on the f32 tile 't' (tail.pto:9) takes the scalar as inf" $out/log
then ok "-D alpha=1e39: takes the scalar as inf, said"; else bad "-D alpha=1e39: takes the scalar as inf, said (rc $rc)"; fi
# ... or as 0 (review20 L5)
$ptoc run examples/tail.pto -D alpha=1e-50 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^warning: -D alpha=1e-50: tmuls on the f32 tile 't' (tail.pto:9) takes the scalar as 0$" $out/log
then ok "-D alpha=1e-50: takes the scalar as 0, said"; else bad "-D alpha=1e-50: takes the scalar as 0, said (rc $rc)"; fi
$ptoc run examples/tail.pto -D alpha=0 >$out/log 2>&1
if grep -q "warning" $out/log; then bad "-D alpha=0: no warning"; else ok "-D alpha=0: no warning"; fi
$ptoc run examples/tail.pto -D alpha=3e38 >$out/log 2>&1
if grep -q "warning" $out/log; then bad "-D alpha=3e38: no warning"; else ok "-D alpha=3e38: no warning"; fi
for v in abc 5x -1 18446744073709551616 99999999999999999999999; do
    $ptoc run examples/vadd.pto --seed $v >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q -- "--seed $v: want a non-negative integer in 0..18446744073709551615$" $out/log; then ok "--seed $v is an error"
    else bad "--seed $v is an error (rc $rc)"; fi
done
# --ranks: a whole count in 1..64 (atoi once took "2x" as 2 and wrapped a value past int)
for v in 0 65 2x abc 4294967298 99999999999999999999; do
    $ptoc run examples/allreduce.pto --ranks $v >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q -- "--ranks $v: want a rank count in 1..64$" $out/log; then ok "--ranks $v is an error"
    else bad "--ranks $v is an error (rc $rc)"; fi
done
$ptoc run examples/softmax.pto -D M=3 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "warning: -D M=3: softmax.pto has no dynamic dim or scalar param named 'M'" $out/log; then ok "unused -D warns"; else bad "unused -D warns (rc $rc)"; fi
# a -D close to a name of the file is likely its typo: the warning, or the missing value's error, names it
$ptoc run examples/layernorm.pto -D esp=0.1 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "warning: -D esp=0.1: layernorm.pto has no dynamic dim or scalar param named 'esp' (did you mean 'eps'?)" $out/log
then ok "unused -D suggests a name"; else bad "unused -D suggests a name (rc $rc)"; fi
$ptoc run $out/nodefaults.pto -D n=64 >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "error: dynamic dim N needs a value: -D N=VALUE (-D n=64 names nothing: did you mean N?)" $out/log
then ok "a missing -D names the likely typo"; else bad "a missing -D names the likely typo (rc $rc)"; fi
$ptoc run examples/vadd.pto --trace $out/t.json >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && [ -s $out/t.json ]; then ok "--trace writes a trace"; else bad "--trace writes a trace (rc $rc)"; fi
# a host's calls share one trace, one after the other (each call used to overwrite the file)
$ptoc run examples/host_mm_norm.pto --trace $out/h.json >$out/log 2>&1; rc=$?
total=$(sed -n 's/^total *\([0-9]*\) cycles.*/\1/p' $out/log)
if [ $rc = 0 ] && grep -q '"launches":2' $out/h.json && grep -q '"name":"1 mm: block 0 aic"' $out/h.json &&
   grep -q '"name":"2 rmsnorm: block 0 aiv0"' $out/h.json && grep -q '"name":"tmatmul"' $out/h.json &&
   grep -q '"name":"trowsum"' $out/h.json && grep -q "\"name\":\"end\",.*\"ts\":$total}" $out/h.json
then ok "--trace of a host: every call, ending at the total"; else bad "--trace of a host: every call, ending at the total (rc $rc)"; fi

# a zero divisor or loop step that comes from -D: the simulator must not trap (SIGFPE, exit 2)
# nor spin; the run exits 1 with the interpreter's error at the .pto line
cat > $out/dz.pto <<'EOF2'
kernel dz(in x: f32[64, 64], out y: f32[64, 64], scalar S: i32, scalar D: i32) vector blocks(4 / D) {
  for i = 0 to 64 step S {
    tile a: vec f32[16, 64] x2
    let q = i / D % 4
    tload a, x[i, 0]
    tstore y[q * 16, 0], a
  }
}
EOF2
for c in "S=0 D=1 dz.pto:2:3: error: loop step must be positive, got 0" \
         "S=-16 D=1 dz.pto:2:3: error: loop step must be positive, got -16" \
         "S=16 D=0 dz.pto:1:96: error: division by zero"; do
    set -- $c
    s=$1; d=$2; shift 2
    timeout 60 $ptoc run $out/dz.pto -D $s -D $d >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -qF "$*" $out/log; then ok "-D $s -D $d: a user error"; else bad "-D $s -D $d: a user error (rc $rc)"; fi
done
sed "s|blocks(4 / D)|blocks(1)|" $out/dz.pto > $out/dz2.pto
timeout 60 $ptoc run $out/dz2.pto -D S=16 -D D=0 >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "dz2.pto:4:15: error: division by zero" $out/log; then ok "let i / 0: a user error"; else bad "let i / 0: a user error (rc $rc)"; fi
timeout 60 $ptoc run $out/dz2.pto -D S=16 -D D=1 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "result      match" $out/log; then ok "dynamic step and divisor run clean"; else bad "dynamic step and divisor run clean (rc $rc)"; fi
cat > $out/hdz.pto <<'EOF2'
kernel acc(inout z: f32[M, 64], scalar n: i32) vector blocks(M / 16) {
  tile t: vec f32[16, 64]
  tload t, z[block * 16, 0]
  tadds t, t, n
  tstore z[block * 16, 0], t
}
host h(inout z: f32[M, 64]) {
  call acc(z, 10 / (M - 32))
}
EOF2
timeout 60 $ptoc run $out/hdz.pto -D M=32 >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "hdz.pto:8:18: error: division by 0 in a host expression" $out/log; then ok "host call argument / 0: a user error"; else bad "host call argument / 0: a user error (rc $rc)"; fi
$ptoc emit $out/dz2.pto -o $out/dz2 >$out/log 2>&1
if grep -q "for (int64_t i = 0; i < 64 && S > 0; i += S) {" $out/dz2/kernel.c &&
   grep -q "const int64_t q = pto_emit_div(i, D) % 4;" $out/dz2/kernel.c; then ok "guarded step and divisor"; else bad "guarded step and divisor"; fi

# more cores than the simulator runs: the simulator refuses the launch, and the harness compares
# nothing (outputs never written) and fails with the refusal as the result, for a vector kernel
# past 4096 blocks, a mix kernel past 4096 / 3, and a host's call (the host's end compares nothing)
cat > $out/nb.pto <<'EOF2'
kernel nb(in x: f32[16, 64], out y: f32[16, 64], scalar NB: i32) vector blocks(NB) {
  tile t: vec f32[16, 64]
  if block == 0 {
    tload t, x[0, 0]
    tstore y[0, 0], t
  }
}
EOF2
$ptoc run $out/nb.pto -D NB=4097 >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^error: kernel nb would launch 4097 blocks (a core per block): more than the 4096 cores the simulator runs in one launch; give it fewer blocks$" $out/log &&
   grep -q "^  result      not run: the simulator refused the launch (the error above); nothing is compared$" $out/log &&
   [ "$(grep -c "result\|mismatch\|never written\|cycles" $out/log)" = 1 ]
then ok "4097 blocks: refused, nothing compared"; else bad "4097 blocks: refused, nothing compared (rc $rc)"; cat $out/log; fi
# under the core cap, past the vector clocks' 1 GiB (256 B x cores^2): refused; 2048 run
$ptoc run $out/nb.pto -D NB=4096 >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "vector clocks would take 4096 MiB" $out/log; then ok "4096 blocks: clocks refused"; else bad "4096 blocks: clocks refused (rc $rc)"; fi
$ptoc run $out/nb.pto -D NB=2048 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "result      match" $out/log; then ok "2048 blocks run"; else bad "2048 blocks run (rc $rc)"; fi
$ptoc run examples/mixmm.pto -D M=$((1366 * 64)) >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "would launch 1366 blocks (3 cores per block of a mix kernel)" $out/log &&
   grep -q "^  result      not run: the simulator refused the launch" $out/log
then ok "a mix kernel of 1366 blocks: refused"; else bad "a mix kernel of 1366 blocks: refused (rc $rc)"; fi
cat > $out/hnb.pto <<'EOF2'
kernel nb(in x: f32[N, 64], out y: f32[N, 64]) vector blocks(N / 16) {
  tile t: vec f32[16, 64]
  tload t, x[block * 16, 0]
  tstore y[block * 16, 0], t
}

host main(in x: f32[M, 64], out y: f32[M, 64]) {
  call nb(x, y)
}
EOF2
$ptoc run $out/hnb.pto -D M=$((4097 * 16)) >$out/log 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^error: kernel nb would launch 4097 blocks" $out/log &&
   grep -q "^  result      not run: the simulator refused a call's launch (above); nothing is compared$" $out/log &&
   ! grep -q "mismatch\|never written" $out/log
then ok "a host's call of 4097 blocks: refused, nothing compared"; else bad "a host's call of 4097 blocks (rc $rc)"; cat $out/log; fi

$ptoc run examples/ring.pto --ranks 1 >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^kernel ring (1 block x 1 rank)$" $out/log; then ok "one rank is 'x 1 rank'"; else bad "one rank is 'x 1 rank' (rc $rc)"; fi

# a file name whose escaped form is longer than the emitter keeps (quotes become \"): it is cut
# between two escapes, never inside one (a lone backslash swallowed the closing quote)
qname=$(printf '%0130d' 0 | tr 0 '"').pto
cp examples/vadd.pto "$out/$qname"
$ptoc run "$out/$qname" >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "simulator   no reports" $out/log; then ok "run a file named with 130 quotes"; else bad "run a file named with 130 quotes (rc $rc)"; tail -3 $out/log; fi

# fmt keeps every comment (review23 L4: a comment among a kernel's parameters moved into its body,
# end-of-line ones were dropped): the golden text, fmt of it gives it back, it parses
$ptoc fmt tests/fmt/comments.pto >$out/cm.fmt 2>$out/log
try "fmt keeps comments: tests/fmt/comments.fmt" cmp tests/fmt/comments.fmt $out/cm.fmt
$ptoc fmt $out/cm.fmt >$out/cm2.fmt 2>$out/log
try "fmt keeps comments: idempotent" cmp $out/cm.fmt $out/cm2.fmt
try "fmt keeps comments: every comment of the source is in the text" sh -c \
    "for c in \$(grep -o '#.*' tests/fmt/comments.pto | tr ' ' '_'); do grep -q \"\$(echo \$c | tr _ ' ')\" $out/cm.fmt || exit 1; done"
# fmt keeps the written order of kernels and hosts (a host written before a kernel handed its
# comments to that kernel): the golden text, idempotent, and the text runs as the source does
$ptoc fmt tests/fmt/order.pto >$out/or.fmt 2>$out/log
try "fmt keeps the item order: tests/fmt/order.fmt" cmp tests/fmt/order.fmt $out/or.fmt
$ptoc fmt $out/or.fmt >$out/or2.fmt 2>$out/log
try "fmt keeps the item order: idempotent" cmp $out/or.fmt $out/or2.fmt
try "fmt keeps the item order: host h (its comment above it) before kernel b" awk \
    '/^# the host of a/ { c = NR } /^host h\(/ { h = NR } /^kernel b\(/ { b = NR } END { exit !(c && c + 1 == h && h < b) }' \
    $out/or.fmt
cp $out/or.fmt $out/or.pto
try "fmt keeps the item order: the text runs" sh -c "$ptoc run $out/or.pto | grep -c '^  result      match' | grep -q '^2\$'"
# f16 / bf16 scalar params are held in their dtypes (review23 L2): ptoc run says the value used
$ptoc run tests/user/half_scalars.pto >$out/hs.log 2>&1
try "half scalars: f16 0.1 is 0.0999755859375" grep -q "^warning: -D a=0.1: scalar a is f16 and holds 0.0999755859375$" $out/hs.log
try "half scalars: bf16 0.1 is 0.10009765625" grep -q "^warning: -D b=0.1: scalar b is bf16 and holds 0.10009765625$" $out/hs.log
try "half scalars: match" grep -q "^  result      match (2 outputs)$" $out/hs.log
$ptoc run tests/user/half_scalars.pto -D a=0.5 -D b=0.25 >$out/hs.log 2>&1
try "half scalars: exact values, no warning" sh -c "! grep -q warning $out/hs.log"
# an else-if chain of 300 arms (review21 L6: past 63 it was "nested too deeply"): fmt writes it
# back as written, and the emitted C and C++ are flat `} else if`: nested, clang refused them
# past its bracket depth of 256
mkdir -p $out/elif
awk 'BEGIN { print "kernel k(in x: f32[64, 64], out y: f32[64, 64]) vector blocks(4) {"
             print "  tile t: vec f32[16, 64]"; print "  tload t, x[block * 16, 0]"
             for (i = 0; i < 300; i++) printf "  %sif block == %d {\n    tmuls t, t, %d.5\n", i ? "} else " : "", i % 7, i
             print "  } else {"; print "    tadds t, t, 1.0"; print "  }"
             print "  tstore y[block * 16, 0], t"; print "}" }' >$out/elif/chain.pto
$ptoc fmt $out/elif/chain.pto >$out/elif/fmt.pto 2>$out/log
try "a 300-arm else-if chain: fmt writes it back as written" cmp $out/elif/chain.pto $out/elif/fmt.pto
$ptoc emit $out/elif/chain.pto -o $out/elif/c >$out/log 2>&1
if [ "$(grep -c '^    } else if (pto_k_block_idx(core) == [0-6]) {$' $out/elif/c/kernel.c)" = 299 ]
then ok "a 300-arm else-if chain: flat in kernel.c"; else bad "a 300-arm else-if chain: flat in kernel.c"; fi
$ptoc emit --target isa $out/elif/chain.pto -o $out/elif/isa >$out/log 2>&1
if [ "$(grep -c '} else if (' $out/elif/isa/kernel.cpp)" = 299 ]
then ok "a 300-arm else-if chain: flat in kernel.cpp"; else bad "a 300-arm else-if chain: flat in kernel.cpp"; fi
for cc in cc clang tcc; do
    command -v $cc >/dev/null || continue
    $ptoc run --cc $cc $out/elif/chain.pto >$out/log 2>&1; rc=$?
    if [ $rc = 0 ] && grep -q "^  result      match (1 output)$" $out/log && grep -q "simulator   no reports" $out/log
    then ok "a 300-arm else-if chain runs under $cc"; else bad "a 300-arm else-if chain runs under $cc (rc $rc)"; fi
done

echo "$pass passed, $fail failed"
[ $fail = 0 ]
