#!/bin/sh
# demo.sh - what `make` shows: every example emitted, compiled, run on the
# simulator and checked against the reference interpreter (ptoc run), as one
# table.
# An example's first lines may carry its -D values as "# run: -D N=64".
# examples/api_*.c build their kernel through the C API and run it through
# `ptoc run DIR` themselves; the Makefile compiles them next to ptoc
# (BINDIR/examples/NAME), and this script compiles any it does not find.
ptoc=${1:-./build/ptoc}
bindir=$(dirname "$ptoc")/examples
status=0
mkdir -p build "$bindir"
printf '%-16s %-10s %10s %18s %10s %8s\n' example result cycles bound efficiency syncs
row() {
    if [ "$1" = 0 ]; then r=match; else r=FAILED; status=1; cat build/demo.out; fi
    awk -v ex="$2" -v r="$r" '
        /^  cycles/ { c += $2 } /^  bound/ { b = $2 " " $3 } /^  efficiency/ { e = $2 }
        /^  syncs/ { s += $2 + $4 }
        END { printf "%-16s %-10s %10s %18s %10s %8s\n", ex, r, c, b, e, s }' build/demo.out
    # a match can still leave part of an output unwritten: show the warning under the row
    if [ "$1" = 0 ]; then grep '^  warning' build/demo.out; fi
}
for f in examples/*.pto; do
    [ -f "$f" ] || continue
    defs=$(sed -n 's/^# run: //p' "$f" | head -1)
    # shellcheck disable=SC2086
    $ptoc run "$f" $defs >build/demo.out 2>&1
    row $? "$(basename "$f" .pto)"
done
for f in examples/api_*.c; do
    [ -f "$f" ] || continue
    n=$(basename "$f" .c)
    if [ ! -x "$bindir/$n" ] || [ "$f" -nt "$bindir/$n" ]; then
        ${CC:-cc} -std=c99 -Wall -Wextra -pedantic -Werror -ffp-contract=off -I. -o "$bindir/$n" "$f" -lm \
            >build/demo.out 2>&1 || { row 1 "$n"; continue; }
    fi
    "$bindir/$n" "build/$n" "$ptoc" >build/demo.out 2>&1
    row $? "$n"
done
exit $status
