#!/bin/sh
# edge_test.sh - rare but legal inputs, end to end (ptoc run: emitted,
# compiled, simulated and compared with the reference interpreter), and
# the emitted text for a few of them:
#   - names that are the headers' macros or names are renamed user_NAME;
#     the kernel also compiles in GNU mode (where linux is a macro);
#   - a loop whose step would overflow past INT64_MAX ends (timeout), and its
#     kernel compiles cleanly in strict mode (gcc, clang, g++, tcc);
#   - no loop increment, xN slot or rotating event id overflows int64
#     (pto_k_next, pto_k_iter_mod where the plain forms could; review18 H1),
#     checked in the emitted text, under UBSan and on the isa target.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/edge_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -20 $out/log; }
# expect NAME PATTERN CMD...: CMD exits 0 and its output matches PATTERN
expect() {
    name=$1; pat=$2; shift 2
    if "$@" >$out/log 2>&1 && grep -q -- "$pat" $out/log; then ok "$name"; else bad "$name"; fi
}

if ! grep -q "pto_k_launch(pto_k_device" pto_kernels.h 2>/dev/null; then
    echo "skip: pto_kernels.h has no simulator yet"
    echo "$pass passed, $fail failed"
    exit 0
fi

for f in tests/edge/*.pto; do
    expect "run $f" "^  result      match" timeout 120 $ptoc run $f
done

W="-Wall -Wextra -Werror"
$ptoc emit tests/edge/big_step_loop.pto -o $out/bs >$out/log 2>&1 || bad "emit big_step_loop"
if grep -q "i = pto_k_next(i, 4611686018427387904, 9223372036854775807))" $out/bs/kernel.c; then
    ok "big step: the next value is computed below end"; else bad "big step: the next value is computed below end"; fi
try() { name=$1; shift; if "$@" >$out/log 2>&1; then ok "$name"; else bad "$name"; fi; }
try "big step: gcc -std=c99 -pedantic" gcc -std=c99 -pedantic $W -I. -o $out/bs/gcc $out/bs/host.c -lm -lpthread
command -v clang >/dev/null && try "big step: clang -std=c99 -pedantic" clang -std=c99 -pedantic $W -I. -o $out/bs/clang $out/bs/host.c -lm -lpthread
command -v g++ >/dev/null && try "big step: g++" g++ -x c++ $W -I. -o $out/bs/gxx $out/bs/host.c -lm -lpthread
command -v tcc >/dev/null && try "big step: tcc" tcc -I. -o $out/bs/tcc $out/bs/host.c -lm -lpthread

# review18 H1: no loop increment, slot or rotating event id overflows int64 (the plain forms stay
# where they provably cannot); the kernels run clean under UBSan, and the isa target says the same
# has TEXT FILE: FILE holds the line TEXT (fixed string)
has() { if grep -qF -- "$1" "$2"; then ok "text: $1"; else bad "text: $1"; fi; }
hasnt() { if grep -qF -- "$1" "$2"; then bad "no text: $1"; else ok "no text: $1"; fi; }
$ptoc emit tests/edge/loop_ovf_next.pto -o $out/on >$out/log 2>&1 || bad "emit loop_ovf_next"
has "for (int64_t i = 1; i < N; i = pto_k_next(i, 9223372036854775807, N)) {" $out/on/kernel.c
has "for (int64_t j = 9223372036854775800; j < 9223372036854775807 && n > 0; j = pto_k_next(j, n, 9223372036854775807)) {" $out/on/kernel.c
has "for (int64_t k = 9223372036854775800; k < 9223372036854775807; k = pto_k_next(k, 3, 9223372036854775807)) {" $out/on/kernel.c
has "for (int64_t l = 0; l < N; l += 9223372036854775807) {" $out/on/kernel.c
has "for (int64_t p = 0; p < N; p += 4) {" $out/on/kernel.c
# a grid-stride loop stays plain: block < blocks, blocks(B) with B an i32
$ptoc emit tests/user/trip_grid.pto -o $out/tg >$out/log 2>&1 || bad "emit trip_grid"
has "i < T && pto_k_block_num(core) > 0; i += pto_k_block_num(core)) {" $out/tg/kernel.c
$ptoc emit tests/edge/loop_ovf_slots.pto -o $out/os >$out/log 2>&1 || bad "emit loop_ovf_slots"
has "16, 64, pto_k_iter_mod(i, (-9223372036854775807 - 1), 4611686018427387904, 2) * 4096);" $out/os/kernel.c
has "PTO_K_MTE2, PTO_K_V, pto_k_iter_mod(i, (-9223372036854775807 - 1), 4611686018427387904, 2));" $out/os/kernel.c
has "16, 64, 8192 + pto_k_iter_mod(j, s, 4611686018427387904, 2) * 4096);" $out/os/kernel.c
has "PTO_K_MTE2, PTO_K_V, 2 + pto_k_iter_mod(j, s, 4611686018427387904, 2));" $out/os/kernel.c
has "16, 64, 16384 + (((k - 9223372036854775804) / 2) % 2) * 4096);" $out/os/kernel.c
has "16, 64, 24576 + (((m - -4) / 4) % 2) * 4096);" $out/os/kernel.c
has "PTO_K_MTE2, PTO_K_V, 6 + (m - -4) / 4 % 2);" $out/os/kernel.c
hasnt "(i - (-9223372036854775807 - 1))" $out/os/kernel.c
hasnt "(j - s)" $out/os/kernel.c
# the usual kernels keep the plain forms (and pto_isa_next is written only where a loop needs it)
$ptoc emit examples/vadd.pto -o $out/va >$out/log 2>&1 || bad "emit vadd"
has "for (int64_t i = 0; i < 8; i += 1) {" $out/va/kernel.c
hasnt "pto_k_iter_mod" $out/va/kernel.c
if echo 'int main(void){return 0;}' | cc -fsanitize=undefined -x c -o $out/ubsan_probe - >/dev/null 2>&1; then
    # the timeout catches a loop that wraps and runs forever; it is generous because a UBSan
    # compile and run took 150 s (16 s of CPU) on a loaded 2-core machine
    for f in tests/edge/loop_ovf_next.pto tests/edge/loop_ovf_slots.pto tests/edge/big_step_loop.pto; do
        if PTO_CFLAGS="-fsanitize=undefined -fno-sanitize-recover=undefined" timeout 600 $ptoc run $f >$out/log 2>&1 &&
           grep -q "^  result      match" $out/log && ! grep -q "runtime error" $out/log; then
            ok "UBSan run $f"; else bad "UBSan run $f"; fi
    done
fi
if command -v g++ >/dev/null; then
    for f in loop_ovf_next loop_ovf_slots; do
        $ptoc emit --target isa tests/edge/$f.pto -o $out/isa_$f >$out/log 2>&1 || bad "emit --target isa $f"
        try "isa $f: g++ -fsyntax-only" g++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I tests/isa $out/isa_$f/kernel.cpp
    done
    has "i = pto_isa_next(i, 9223372036854775807, N)) {" $out/isa_loop_ovf_next/kernel.cpp
    has "pto::TASSIGN(a, pto_isa_iter_mod(i, (-9223372036854775807 - 1), 4611686018427387904, 2) * 4096);" $out/isa_loop_ovf_slots/kernel.cpp
    has "static_cast<event_t>(2 + pto_isa_iter_mod(j, s, 4611686018427387904, 2))" $out/isa_loop_ovf_slots/kernel.cpp
    $ptoc emit --target isa examples/vadd.pto -o $out/isa_va >$out/log 2>&1 || bad "emit --target isa vadd"
    hasnt "pto_isa_next" $out/isa_va/kernel.cpp
fi

# header macros: renamed, and the kernel compiles in GNU mode too
$ptoc emit tests/edge/names_macros.pto -o $out/nm >$out/log 2>&1 || bad "emit names_macros"
for n in SEEK_SET EXIT_SUCCESS INT32_MAX PTO_K_VEC linux M_PI FLT_MAX; do
    if grep -q "user_$n\b" $out/nm/kernel.c; then ok "$n renamed"; else bad "$n renamed"; fi
done
if cc -std=gnu11 -c -I. -o $out/nm.o $out/nm/kernel.c >$out/log 2>&1; then ok "names_macros compiles in GNU mode"; else bad "names_macros compiles in GNU mode"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
