#!/bin/sh
# demo.sh - what `make` shows: every example emitted, compiled, run on the
# simulator and checked against the reference interpreter (ptoc run), as one
# table.
# An example's first lines may carry its -D values as "# run: -D N=64".
ptoc=${1:-./build/ptoc}
status=0
mkdir -p build
printf '%-16s %-10s %10s %18s %10s %8s\n' example result cycles bound efficiency syncs
for f in examples/*.pto; do
    [ -f "$f" ] || continue
    defs=$(sed -n 's/^# run: //p' "$f" | head -1)
    # shellcheck disable=SC2086
    $ptoc run "$f" $defs >build/demo.out 2>&1; rc=$?
    if [ $rc = 0 ]; then r=match; else r=FAILED; status=1; cat build/demo.out; fi
    awk -v ex="$(basename "$f" .pto)" -v r="$r" '
        /^  cycles/ { c += $2 } /^  bound/ { b = $2 " " $3 } /^  efficiency/ { e = $2 }
        /^  syncs/ { s += $2 + $4 }
        END { printf "%-16s %-10s %10s %18s %10s %8s\n", ex, r, c, b, e, s }' build/demo.out
done
exit $status
