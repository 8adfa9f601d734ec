#!/bin/sh
# demo.sh - what `make` shows: every example checked by ptoc.
# (The emitter issue grows this into compile + run + check with a cycle table.)
ptoc=${1:-./build/ptoc}
status=0
printf '%-24s %s\n' example result
for f in examples/*.pto; do
    [ -f "$f" ] || continue
    if $ptoc check "$f" >/dev/null 2>build/demo.err; then r=ok; else r=FAILED; status=1; cat build/demo.err; fi
    printf '%-24s %s\n' "$(basename "$f" .pto)" "$r"
done
exit $status
