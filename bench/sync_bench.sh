#!/bin/sh
# sync_bench.sh - pto's synchronisation against an expert's (make bench).
# For each bench/NAME_hand.pto (the kernel of examples/NAME.pto with its
# set_flag / wait_flag / pipe_barrier written by hand) the two are run on
# the simulator with the same seed: examples/NAME.pto through the whole
# pipeline, the hand version with `ptoc run --no-sync` (only its own
# syncs). Both must match the reference with no simulator report, the sync
# pass must find nothing missing in the hand version (`ptoc sync` inserts
# nothing), and pto's simulated cycles must be within 5% of the hand
# version's (ratio = pto / hand <= 1.05). Exit status 1 otherwise.
ptoc=${1:-./build/ptoc}
cc=cc
command -v tcc >/dev/null 2>&1 && cc=tcc
out=build/sync_bench
mkdir -p $out
status=0
printf '%-10s %10s %10s %8s %12s %12s\n' kernel pto hand ratio "pto syncs" "hand syncs"
for hand in bench/*_hand.pto; do
    name=$(basename "$hand" _hand.pto)
    ex=examples/$name.pto
    [ -f "$ex" ] || continue
    defs=$(sed -n 's/^# run: //p' "$ex" | head -1)
    # shellcheck disable=SC2086
    $ptoc run "$ex" --cc $cc --seed 1 $defs >$out/$name.pto.log 2>&1 || { echo "FAIL $ex does not run clean"; cat $out/$name.pto.log; status=1; }
    # shellcheck disable=SC2086
    $ptoc run --no-sync "$hand" --cc $cc --seed 1 $defs >$out/$name.hand.log 2>&1 || { echo "FAIL $hand does not run clean"; cat $out/$name.hand.log; status=1; }
    if ! $ptoc sync "$hand" 2>&1 | head -1 | grep -q "# sync: 0 set_flag, 0 wait_flag, 0 pipe_barrier"; then
        echo "FAIL the sync pass finds $hand incomplete:"; $ptoc sync "$hand" 2>&1 | head -3; status=1
    fi
    p=$(awk '/^  cycles/ { c += $2 } END { print c + 0 }' $out/$name.pto.log)
    h=$(awk '/^  cycles/ { c += $2 } END { print c + 0 }' $out/$name.hand.log)
    ps=$(awk '/^  syncs/ { print $2 "f " $4 "b" }' $out/$name.pto.log)
    hs=$(awk '/^  syncs/ { print $2 "f " $4 "b" }' $out/$name.hand.log)
    r=$(awk -v p="$p" -v h="$h" 'BEGIN { printf "%.3f", (h > 0 ? p / h : 99) }')
    printf '%-10s %10s %10s %8s %12s %12s\n' "$name" "$p" "$h" "$r" "$ps" "$hs"
    if awk -v r="$r" 'BEGIN { exit !(r > 1.05) }'; then echo "FAIL $name: pto is more than 5% slower than by hand"; status=1; fi
done
[ $status = 0 ] && echo "sync bench: pto within 5% of the hand-synchronised kernels"
exit $status
