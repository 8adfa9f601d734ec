#!/bin/sh
# run.sh - runs every test program and script given, sums their
# "N passed, N failed" last lines, and prints the total as its own last line.
# A program that crashes or prints no summary counts as one failure. Each
# line ends with the test's wall time in seconds (CI's budget is 30 minutes
# for make test and make test-sanitize together: these say where it goes).
pass=0; fail=0; start=$(date +%s)
for t in "$@"; do
    t0=$(date +%s)
    out=$("$t" 2>&1); rc=$?
    secs=$(( $(date +%s) - t0 ))
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
    printf '%-40s %-28s %4ss\n' "$(basename "$t")" "$last" "$secs"
    pass=$((pass + p)); fail=$((fail + f))
done
echo "(all tests: $(( $(date +%s) - start ))s)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
