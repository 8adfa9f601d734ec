#!/bin/sh
# sync_necessity_test.sh - every sync the inserter adds to the examples is
# needed, and none of them is a PIPE_ALL fallback (issue 5).
# For each example: ptoc emit, then no PIPE_ALL barrier and no sync warning;
# then, one at a time, each inserted flag group is deleted from kernel.c
# (the set_flag and the wait_flag of a pair; for a loop-carried pair the
# primes before the loop, the wait and set in it and the drains after it,
# every id of a rotation) and each inserted pipe_barrier, and `ptoc run DIR`
# (tcc when there is one) must fail with the simulator reporting a race.
# Then, for each loop-carried group, only its primes and drains are deleted
# (the pair in the loop kept): the simulator must report the misuse (a
# wait on an id never set: a deadlock) rather than pass.
# A group is the inserted statements that share a pipe pair and a note (the
# dependency the sync pass wrote in the comment above each call).
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/necessity
cc=cc
command -v tcc >/dev/null 2>&1 && cc=tcc
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
defs() { sed -n 's/^# run: //p' "$1" | head -1; }

# Prints one line per inserted sync call of kernel.c: LINE<TAB>KEY<TAB>ROLE,
# KEY the group (pipe pair and note; a barrier's own line), ROLE prime,
# drain or body. A call's note is the "/* sync: NOTE */" line above it (the
# calls right after such a line share it), or the note of the call that a
# trailing "/* sync: see the OP at FILE:LINE */" names.
units() {
    awk '
        /^ *\/\* sync: / { note = $0; sub(/^ *\/\* sync: /, "", note); sub(/ \*\/$/, "", note); run = 1; next }
        /pto_k_(set_flag|wait_flag|pipe_barrier)\(/ {
            src = $0; sub(/^[^"]*"/, "", src); sub(/".*/, "", src)
            op = $0; sub(/^ *pto_k_/, "", op); sub(/\(.*/, "", op); loc = src
            n0 = ""
            if (match($0, /\/\* sync: see the [a-z_]* at [^ ]* \*\//)) {
                ref = substr($0, RSTART + 17, RLENGTH - 20)
                if (ref in noted) n0 = noted[ref]
                run = 0
            } else if (run) {
                n0 = note
                noted[op " at " loc] = note
            }
            if (n0 == "") { run = 0; next }
            if ($0 ~ /pto_k_pipe_barrier\(/) { printf "%d\tbarrier@%d\tbarrier\n", NR, NR; next }
            role = "body"; k = n0
            if (k ~ /^prime: /) { role = "prime"; sub(/^prime: /, "", k) }
            if (k ~ /^drain: /) { role = "drain"; sub(/^drain: /, "", k) }
            n = split($0, a, "PTO_K_")
            p = a[2]; q = a[3]; sub(/[^A-Z0-9].*/, "", p); sub(/[^A-Z0-9].*/, "", q)
            printf "%d\t%s>%s %s\t%s\n", NR, p, q, k, role
            next
        }
        { run = 0 }
    ' "$1"
}

# Writes kernel.c minus the given call lines (and a note comment right
# above one: a comment left without its calls would only be noise).
drop() { # SRC DST LINES...
    src=$1; dst=$2; shift 2
    awk -v lines=" $* " 'BEGIN { n = split(lines, a, " "); for (i = 1; i <= n; i++) d[a[i]] = 1 }
        { l[NR] = $0 }
        END { for (i = 1; i <= NR; i++) if (!(i in d) && !((i + 1) in d && l[i] ~ /^ *\/\* sync: /)) print l[i] }' "$src" >"$dst"
}

# Runs DIR; prints what the simulator said: race, deadlock, misuse, other,
# or clean (exit 0).
judge() { # DIR DEFS...
    dir=$1; shift
    # shellcheck disable=SC2086
    $ptoc run "$dir" --cc $cc "$@" >"$dir/log" 2>&1; rc=$?
    if [ $rc = 0 ]; then echo clean
    elif grep -q "error: race" "$dir/log"; then echo race
    elif grep -q "error: deadlock" "$dir/log"; then echo deadlock
    elif grep -q "double set\|unbalanced flag" "$dir/log"; then echo misuse
    else echo "other(rc $rc)"; fi
}

total=0; races=0; partial=0; partial_ok=0
for ex in vadd softmax mm rmsnorm swiglu tail; do
    f=examples/$ex.pto
    [ -f $f ] || continue
    d=$out/$ex
    mkdir -p $d
    if ! $ptoc emit $f -o $d/orig >$d.emit 2>&1; then bad "emit $ex"; cat $d.emit; continue; fi
    if grep -q "PTO_K_ALL" $d/orig/kernel.c || grep -q "warning" $d.emit; then
        bad "$ex: a PIPE_ALL fallback or a sync warning"
    else
        ok "$ex: no PIPE_ALL fallback, no sync warning"
    fi
    r=$(judge $d/orig $(defs $f))
    if [ "$r" = clean ]; then ok "$ex as emitted runs clean"; else bad "$ex as emitted: $r"; fi
    units $d/orig/kernel.c >$d/units
    cut -f2 $d/units | awk '!seen[$0]++' >$d/keys
    n=0; nrace=0
    while IFS= read -r key; do
        n=$((n + 1))
        mkdir -p $d/g$n
        cp $d/orig/host.c $d/g$n/
        lines=$(awk -F '\t' -v k="$key" '$2 == k { print $1 }' $d/units | tr '\n' ' ')
        # shellcheck disable=SC2086
        drop $d/orig/kernel.c $d/g$n/kernel.c $lines
        r=$(judge $d/g$n $(defs $f))
        if [ "$r" = race ]; then nrace=$((nrace + 1)); else bad "$ex: without [$key] the simulator says: $r"; fi
        # loop-carried group: its primes and drains alone
        pd=$(awk -F '\t' -v k="$key" '$2 == k && ($3 == "prime" || $3 == "drain") { print $1 }' $d/units | tr '\n' ' ')
        if [ -n "$pd" ]; then
            partial=$((partial + 1))
            mkdir -p $d/p$n
            cp $d/orig/host.c $d/p$n/
            # shellcheck disable=SC2086
            drop $d/orig/kernel.c $d/p$n/kernel.c $pd
            r=$(judge $d/p$n $(defs $f))
            case $r in
            clean|other*) bad "$ex: without the primes and drains of [$key] the simulator says: $r" ;;
            *) partial_ok=$((partial_ok + 1)); echo "  $ex: primes/drains of [$key] removed: $r" ;;
            esac
        fi
    done <$d/keys
    total=$((total + n)); races=$((races + nrace))
    if [ $n -gt 0 ] && [ $nrace = $n ]; then ok "$ex: each of its $n inserted syncs (groups and barriers) is needed: removing it is a race"
    else bad "$ex: $nrace of $n removals raced"; fi
done
echo "necessity: $races of $total removals made a race; $partial_ok of $partial prime/drain-only removals were reported"
[ $partial_ok = $partial ] || bad "prime/drain removals"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
