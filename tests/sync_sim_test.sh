#!/bin/sh
# sync_sim_test.sh - the sync inserter's property test on the simulator
# (issue 5): random kernels (tests/gen_random_kernels.c: loops with any
# start and step, zero-trip ones, ifs, xN tiles, capacity pressure, GM
# read-after-write through an inout tensor, one or two blocks, vector and
# cube) go through the real pipeline: ptoc emit (parse, verify, plan,
# sync, emit; odd programs with --tight plans, so that tiles of different
# pipes share bytes whenever their lifetimes allow), one compile per
# program of PER kernels (tcc when there is
# one, else cc -O0), and runs on the simulator against the reference
# interpreter under three configurations (--seed S -D n=N -D k=K: the
# seed changes the data and the interleaving of the blocks; n and k change
# the trip counts, zero included, and the branches taken). A kernel passes
# when every run matches the reference bit for bit and the simulator
# reports nothing (no race, flag misuse, deadlock, uninitialised read or
# out-of-bounds window).
# Then a planted bug: program 0 with every inserted sync deleted from its
# kernel.c must draw race reports from most kernels (the runs can see).
#   SYNC_SIM_PROGRAMS (16) x SYNC_SIM_KERNELS (150) kernels; SYNC_SIM_JOBS (2)
#   programs at a time; SYNC_SIM_FIRST (0) the first program's number (its
#   generator seed), SYNC_SIM_OUT (build/sync_sim) where to work. Reproduce a failure: see the command it prints.
cd "$(dirname "$0")/.." || exit 1
out=${SYNC_SIM_OUT:-build/sync_sim}
FIRST=${SYNC_SIM_FIRST:-0}
gen=$out/gen_random_kernels
ptoc=${PTOC:-./build/ptoc}
PROGRAMS=${SYNC_SIM_PROGRAMS:-16}
PER=${SYNC_SIM_KERNELS:-150}
JOBS=${SYNC_SIM_JOBS:-2}
CONFIGS="1:0:0 2:3:1 3:7:2"

compile() { # DIR: host.c -> DIR/run
    if command -v tcc >/dev/null 2>&1; then
        tcc -I. -o "$1/run" "$1/host.c" -lm -lpthread
    else
        cc -std=c99 -O0 -ffp-contract=off -I. -o "$1/run" "$1/host.c" -lm -lpthread
    fi
}

# Per kernel: ok when every run printed "result match" and "no reports".
# Prints "KERNELS PASSED FLAGS BARRIERS" and the first failing kernels.
judge() { # FILES...
    awk '
        FNR == 1 { nf++ }
        /^kernel / { cur = $2; names[cur] = 1; runs[cur]++; next }
        /^  result      match/ { mt[cur]++ }
        /^  simulator   no reports/ { cl[cur]++ }
        /^  syncs / && !(cur in fl) { fl[cur] = $2; ba[cur] = $4 }
        /^    / || /^  result      mismatch/ { if (!(cur in msg)) msg[cur] = $0 }
        END {
            n = 0; pass = 0; flags = 0; bars = 0
            for (k in names) {
                n++; flags += fl[k]; bars += ba[k]
                if (runs[k] == nf && mt[k] == nf && cl[k] == nf) pass++
                else if (shown++ < 5) print "  FAIL " k ": " msg[k]
            }
            printf "%d %d %d %d\n", n, pass, flags, bars
        }' "$@"
}

program() { # P: generate, emit, compile, run; writes $out/pP/result
    d=$out/p$1
    rm -rf "$d"
    mkdir -p "$d"
    "$gen" "$1" "$PER" $(($1 * PER)) >"$d/k.pto"
    tight=
    [ $(($1 % 2)) = 1 ] && tight=--tight
    if ! $ptoc emit $tight "$d/k.pto" -o "$d" 2>"$d/emit.log"; then
        echo "0 0 0 0" >"$d/result"
        { echo "  FAIL: ptoc emit $d/k.pto"; head -5 "$d/emit.log"; } >"$d/detail"
        return
    fi
    if ! compile "$d" >"$d/cc.log" 2>&1; then
        echo "0 0 0 0" >"$d/result"
        { echo "  FAIL: compile $d/host.c"; head -5 "$d/cc.log"; } >"$d/detail"
        return
    fi
    files=
    for cfg in $CONFIGS; do
        s=${cfg%%:*}; r=${cfg#*:}; n=${r%%:*}; k=${r#*:}
        "$d/run" --seed $(($1 * 10 + s)) -D n=$n -D k=$k >"$d/run.$s" 2>&1
        files="$files $d/run.$s"
    done
    # shellcheck disable=SC2086
    judge $files >"$d/judged"
    tail -n 1 "$d/judged" >"$d/result"
    sed '$d' "$d/judged" >"$d/detail"
    [ -s "$d/detail" ] && echo "  reproduce: $d/run --seed $(($1 * 10 + 1)) -D n=0 -D k=0 (and the other configs)" >>"$d/detail"
    grep -c "warning: sync:" "$d/emit.log" >"$d/warnings"
}

if [ "$1" = "--program" ]; then
    program "$2"
    exit 0
fi

start=$(date +%s)
mkdir -p $out
if ! cc -std=c99 -O2 -o $gen tests/gen_random_kernels.c; then
    echo "FAIL build tests/gen_random_kernels.c"; echo "0 passed, 1 failed"; exit 1
fi
seq $FIRST $((FIRST + PROGRAMS - 1)) | xargs -P "$JOBS" -n 1 sh "$0" --program
pass=0; fail=0; kernels=0; flags=0; bars=0; warns=0
p=$FIRST
while [ $p -lt $((FIRST + PROGRAMS)) ]; do
    d=$out/p$p
    set -- $(cat "$d/result" 2>/dev/null || echo 0 0 0 0)
    [ "$1" = "$PER" ] || { echo "FAIL program $p: $1 of $PER kernels ran"; fail=$((fail + PER - $2)); pass=$((pass + $2)); }
    [ "$1" = "$PER" ] && { pass=$((pass + $2)); fail=$((fail + $1 - $2)); }
    kernels=$((kernels + $1)); flags=$((flags + $3)); bars=$((bars + $4))
    warns=$((warns + $(cat "$d/warnings" 2>/dev/null || echo 0)))
    [ -s "$d/detail" ] && { echo "program $p ($d/k.pto):"; cat "$d/detail"; }
    p=$((p + 1))
done
echo "random kernels: $kernels in $PROGRAMS programs (odd ones planned --tight), 3 runs each (seeds P*10+1..3; n = 0, 3, 7; k = 0, 1, 2)"
echo "inserted: $flags set/wait calls and $bars barriers in the kernel sources; $warns sync warnings (fallbacks)"

# planted bug: the first program without any inserted sync
d=$out/p$FIRST
if [ -f "$d/kernel.c" ]; then
    mkdir -p $out/nosync
    cp "$d/host.c" $out/nosync/
    grep -v "pto_k_set_flag\|pto_k_wait_flag\|pto_k_pipe_barrier" "$d/kernel.c" >$out/nosync/kernel.c
    if compile $out/nosync >$out/nosync/cc.log 2>&1; then
        $out/nosync/run --seed 2 -D n=3 -D k=1 >$out/nosync/log 2>&1
        total=$(grep -c "^kernel " $out/nosync/log)
        racy=$(awk '/^kernel /{k=$2} /error: race/{r[k]=1} END{print length(r)}' $out/nosync/log)
        echo "planted bug: without its syncs, $racy of $total kernels of program 0 report a race"
        if [ "$total" = "$PER" ] && [ $((racy * 2)) -gt "$total" ]; then pass=$((pass + 1)); else
            echo "FAIL planted bug: too few races"; fail=$((fail + 1)); fi
    else
        echo "FAIL planted bug: compile"; fail=$((fail + 1))
    fi
fi
echo "time: $(($(date +%s) - start)) s"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
