#!/bin/sh
# run.sh - runs every test program and script given, sums their
# "N passed, N failed" last lines, and prints the total as its own last line.
# A program that crashes or prints no summary counts as one failure.
pass=0; fail=0
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    last=$(printf '%s\n' "$out" | tail -n 1)
    p=$(printf '%s' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1/p')
    f=$(printf '%s' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then
        printf '%s\n' "$out" | tail -n 20
        echo "CRASH $t (exit $rc, no summary line)"
        fail=$((fail + 1))
        continue
    fi
    if [ "$f" != 0 ] || [ $rc != 0 ]; then
        printf '%s\n' "$out" | grep -v '^ok ' | tail -n 40
        [ "$f" = 0 ] && f=1
    fi
    printf '%-40s %s\n' "$(basename "$t")" "$last"
    pass=$((pass + p)); fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
