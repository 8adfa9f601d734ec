#!/bin/sh
# sim_tcc_test.sh - the simulator's C tests (tests/test_sim_*.c) built with
# tcc and run: pto_kernels.h must work with the small compiler too. They are
# also built as C++ (g++), since emitted kernels may be compiled as C++.
cd "$(dirname "$0")/.." || exit 1
out=build/tcc
mkdir -p $out
pass=0; fail=0
if ! command -v tcc >/dev/null 2>&1; then
    echo "tcc not found: skipped"; echo "0 passed, 0 failed"; exit 0
fi
for mode in tcc cxx; do
for t in tests/test_sim_*.c; do
    if [ $mode = cxx ]; then
        n=$(basename "$t" .c)_cxx; cc="g++ -x c++ -std=c++11 -Wall -Wextra -Werror -ffp-contract=off"
    else
        n=$(basename "$t" .c); cc="tcc -std=c99 -Wall"
    fi
    if ! $cc -D_POSIX_C_SOURCE=200809L -I. -o "$out/$n" "$t" -lm -lpthread >"$out/$n.log" 2>&1; then
        echo "FAIL build $n ($cc)"; head -20 "$out/$n.log"; fail=$((fail + 1)); continue
    fi
    res=$("$out/$n" 2>&1); rc=$?
    last=$(printf '%s\n' "$res" | tail -n 1)
    p=$(printf '%s' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1/p')
    f=$(printf '%s' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\2/p')
    if [ -z "$p" ] || [ "$f" != 0 ] || [ $rc != 0 ]; then
        printf '%s\n' "$res" | tail -20; echo "FAIL run $n"; fail=$((fail + 1)); continue
    fi
    echo "ok $n ($cc): $last"; pass=$((pass + p))
done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
