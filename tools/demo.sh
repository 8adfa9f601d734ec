#!/bin/sh
# demo.sh - what `make` shows: every example emitted, compiled, run on the
# simulator and checked against the reference interpreter (ptoc run), as one
# table. Before the simulator is in pto_kernels.h it only checks the examples.
# An example's first lines may carry its -D values as "# run: -D N=64".
ptoc=${1:-./build/ptoc}
status=0
mkdir -p build
if ! grep -q "pto_k_launch(pto_k_device" pto_kernels.h 2>/dev/null; then
    printf '%-24s %s\n' example result
    for f in examples/*.pto; do
        [ -f "$f" ] || continue
        if $ptoc check "$f" >/dev/null 2>build/demo.err; then r=ok; else r=FAILED; status=1; cat build/demo.err; fi
        printf '%-24s %s\n' "$(basename "$f" .pto)" "$r"
    done
    exit $status
fi
printf '%-16s %-10s %10s %18s %10s %8s\n' example result cycles bound efficiency syncs
for f in examples/*.pto; do
    [ -f "$f" ] || continue
    defs=$(sed -n 's/^# run: //p' "$f" | head -1)
    case $(basename "$f" .pto) in softmax) [ -z "$defs" ] && defs="-D N=64" ;; esac
    # shellcheck disable=SC2086
    $ptoc run "$f" $defs >build/demo.out 2>&1; rc=$?
    if [ $rc = 0 ]; then r=match; else r=FAILED; status=1; cat build/demo.out; fi
    awk -v ex="$(basename "$f" .pto)" -v r="$r" '
        /^  cycles/ { c += $2 } /^  bound/ { b = $2 " " $3 } /^  efficiency/ { e = $2 }
        /^  syncs/ { s += $2 + $4 }
        END { printf "%-16s %-10s %10s %18s %10s %8s\n", ex, r, c, b, e, s }' build/demo.out
done
exit $status
