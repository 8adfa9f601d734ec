#!/bin/sh
# sim_tcc_test.sh - the simulator's C tests (tests/test_sim_*.c) built with
# tcc and run: pto_kernels.h must work with the small compiler too.
cd "$(dirname "$0")/.." || exit 1
out=build/tcc
mkdir -p $out
pass=0; fail=0
if ! command -v tcc >/dev/null 2>&1; then
    echo "tcc not found: skipped"; echo "0 passed, 0 failed"; exit 0
fi
for t in tests/test_sim_*.c; do
    n=$(basename "$t" .c)
    if ! tcc -std=c99 -Wall -D_POSIX_C_SOURCE=200809L -I. -o "$out/$n" "$t" -lm -lpthread >"$out/$n.log" 2>&1; then
        echo "FAIL tcc build $n"; head -20 "$out/$n.log"; fail=$((fail + 1)); continue
    fi
    res=$("$out/$n" 2>&1); rc=$?
    last=$(printf '%s\n' "$res" | tail -n 1)
    p=$(printf '%s' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1/p')
    f=$(printf '%s' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\2/p')
    if [ -z "$p" ] || [ "$f" != 0 ] || [ $rc != 0 ]; then
        printf '%s\n' "$res" | tail -20; echo "FAIL tcc run $n"; fail=$((fail + 1)); continue
    fi
    echo "ok $n under tcc: $last"; pass=$((pass + p))
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
