#!/bin/sh
# run.sh - runs every test program and script given, sums their
# "N passed, N failed" last lines, and prints the total as its own last line.
# A program that crashes or prints no summary counts as one failure. Each
# line ends with the test's wall time in seconds (CI's budget is 30 minutes
# for make test and make test-sanitize together: these say where it goes).
#
# The tests run TEST_JOBS at a time (default: one per core); each works in a
# directory of its own under build/. Their lines come out in the order given,
# each as soon as it and every test before it are done.
if [ "$1" = --one ]; then   # --one DIR I TEST: one test, its output and status in DIR
    t0=$(date +%s)
    "$4" >"$2/$3.out" 2>&1
    echo "$? $(( $(date +%s) - t0 ))" >"$2/$3.tmp" && mv "$2/$3.tmp" "$2/$3.rc"
    exit 0
fi
pass=0; fail=0; start=$(date +%s)
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
i=0
for t in "$@"; do i=$((i + 1)); printf '%s %s\n' "$i" "$t"; done |
    xargs -P "$jobs" -n 2 sh "$0" --one "$tmp" &
i=0
for t in "$@"; do
    i=$((i + 1))
    while [ ! -f "$tmp/$i.rc" ]; do sleep 1; done
    read -r rc secs <"$tmp/$i.rc"
    out=$tmp/$i.out
    last=$(tail -n 1 "$out")
    p=$(printf '%s' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1/p')
    f=$(printf '%s' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then
        tail -n 20 "$out"
        echo "CRASH $t (exit $rc, no summary line)"
        fail=$((fail + 1))
        continue
    fi
    if [ "$f" != 0 ] || [ "$rc" != 0 ]; then
        grep -v '^ok ' "$out" | tail -n 40
        [ "$f" = 0 ] && f=1
    fi
    printf '%-40s %-28s %4ss\n' "$(basename "$t")" "$last" "$secs"
    pass=$((pass + p)); fail=$((fail + f))
done
wait
echo "(all tests: $(( $(date +%s) - start ))s on $jobs jobs)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
