#!/bin/sh
# cycles_test.sh - ptoc run's cycles and bound against figures derived by
# hand from hardware.md section 9 (the cost table in src/kern/ops.h), for
# kernels whose schedule is clear on paper: a serial chain (load, vector
# ops, store: the sum), a double-buffered loop (the loads back to back, then
# the last tile's compute and store), a cube K loop (the L1 loads, then the
# last matmul and the fixpipe store). A cost that drifts from hardware.md,
# or a sync that costs overlap (a wait earlier than needed, a loop that
# stops overlapping), moves these numbers. Then the idle line (the busiest pipe's idle
# cycles, split into the waits that held it and the time it had no work) for five kernels.
#   tload GM->vec  ceil((B + 31334.4) / 143.36)     GM->mat  ceil(B / 78.35)
#   tstore vec     ceil(B / 109.12)                 acc      ceil(B / 40.63)
#   vector op      ceil(slope x B/256 + fixed (+16 for a partial repeat))
#   tmatmul f16    M N K / 4096 + 6;  tmov ->left B / 255.96, ->right B / 127.69
#   (tcvt: B of its wider side)
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/cycles_test
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
ld()  { awk -v b="$1" 'BEGIN { x = (b + 31334.4) / 143.36; print (x == int(x)) ? x : int(x) + 1 }'; }
cost() { awk -v s="$1" -v f="$2" -v b="$3" 'BEGIN { x = s * int((b + 255) / 256) + f + (b % 256 ? 16 : 0); print (x == int(x)) ? x : int(x) + 1 }'; }
bw()  { awk -v b="$1" -v r="$2" 'BEGIN { x = b / r; print (x == int(x)) ? x : int(x) + 1 }'; }
# check NAME FILE WANT_CYCLES WANT_BOUND [SLACK [ARGS]]: cycles within SLACK (default 0) above WANT
# (ARGS: ptoc run's options; default the file's '# run:' line)
check() {
    name=$1; f=$2; want=$3; wbound=$4; slack=${5:-0}; args=${6:-$(sed -n 's/^# run: //p' $f | head -1)}
    # shellcheck disable=SC2086
    $ptoc run $f $args >$out/log 2>&1
    cyc=$(sed -n 's/^  cycles      \([0-9]*\).*/\1/p' $out/log)
    bnd=$(sed -n 's/^  bound       \([0-9]*\).*/\1/p' $out/log)
    if [ -n "$cyc" ] && [ "$bnd" = "$wbound" ] && [ "$cyc" -ge "$want" ] && [ "$cyc" -le $((want + slack)) ]; then
        ok "$name: $cyc cycles (hand: $want + at most $slack), bound $bnd"
    else
        bad "$name: $cyc cycles, bound $bnd (hand: $want + at most $slack, bound $wbound)"
    fi
}

# softmax: 16 x 128 f32 (8 KB) per block, a serial chain
B=8192
v=$(( $(cost 7 46 $B) + $(cost 2.11 24 $B) + $(cost 2.0 31 $B) + $(cost 7 46 $B) + $(cost 4.03 31 $B) ))
check softmax examples/softmax.pto $(( $(ld $B) + v + $(bw $B 109.12) )) $v
# rmsnorm: 16 x 256 f32 (16 KB); the [16, 1] column ops touch 64 bytes (one partial repeat)
B=16384
v=$(( $(cost 2.3 25 $B) + $(cost 7 46 $B) + $(cost 1 26 64) + $(cost 1 26 64) + $(cost 4.03 31 64) + $(cost 2.3 25 $B) ))
check rmsnorm examples/rmsnorm.pto $(( $(ld $B) + v + $(bw $B 109.12) )) $v
# layernorm: x loads first, so its statistics start after one load, not three (was 2944:
# gamma's and beta's loads, 226 cycles each, ran before x's)
v=$(( 2 * $(cost 7 46 $B) + 2 * $(cost 1 26 64) + $(cost 1 26 64) + $(cost 4.03 31 64) + $(cost 2.11 24 $B) \
    + 2 * $(cost 2.3 25 $B) + $(cost 2.3 25 $B) + $(cost 2.11 24 $B) ))
check layernorm examples/layernorm.pto $(( $(ld $B) + v + $(bw $B 109.12) )) $v
# vadd: 8 iterations of two 16 KB loads back to back (double-buffered), then the last tadd and
# store; a few dispatch cycles of slack
l=$(ld 16384)
check vadd examples/vadd.pto $(( 16 * l + $(cost 2.11 24 16384) + $(bw 16384 109.12) )) $((16 * l)) 10
# mm: 4 K steps of two 16 KB L1 loads back to back, then the last tmov b0, the last matmul
# (128 x 128 x 64) and the 64 KB fixpipe store
l=$(bw 16384 78.35)
check mm examples/mm.pto $(( 8 * l + $(bw 16384 127.69) + 128 * 128 * 64 / 4096 + 6 + $(bw 65536 40.63) )) $((8 * l)) 10

# swiglu: V bound, 4 iterations of two widening tcvt (8 KB f16 -> 16 KB f32), tneg, texp, tadds,
# tdiv, tmul and a narrowing tcvt (16 KB f32 -> 8 KB f16), each tcvt 64 repeats of its wider side
# (pto-isa's TCVT); V starts on the second input after both loads of the first tile (2 x 276)
B=16384
cvt=$(cost 2.0 24 $B)
it=$(( 3 * cvt + $(cost 2.0 23 $B) + $(cost 2.0 31 $B) + $(cost 1 26 $B) + $(cost 4.03 31 $B) + $(cost 2.3 25 $B) ))
check swiglu examples/swiglu.pto $(( 2 * $(ld 8192) + it - cvt + 3 * it + $(bw 8192 109.12) )) $((4 * it)) 10

# a double-buffered loop under 'if r < N' (every iteration takes it at N=256) overlaps as the
# same loop without the if: its flags go inside the if (were around it, with order pairs that
# made each iteration wait for the previous store: 3070 cycles against 2122)
$ptoc run tests/user/guard_free.pto -D N=256 -D s=3.0 >$out/log 2>&1
free=$(sed -n 's/^  cycles      \([0-9]*\).*/\1/p' $out/log)
check "guard_block" tests/user/guard_block.pto "$free" "$(sed -n 's/^  bound       \([0-9]*\).*/\1/p' $out/log)" 0 "-D N=256 -D s=3.0"

# The idle line: the busiest pipe's idle cycles (cycles - bound) and where they went.
# idle NAME FILE REGEX: the run's idle line matches REGEX, and its parts add up to cycles - bound
idle() {
    name=$1; f=$2; re=$3
    # shellcheck disable=SC2046
    $ptoc run $f $(sed -n 's/^# run: //p' $f | head -1) >$out/log 2>&1
    cyc=$(sed -n 's/^  cycles      \([0-9]*\).*/\1/p' $out/log)
    bnd=$(sed -n 's/^  bound       \([0-9]*\).*/\1/p' $out/log)
    line=$(grep -E '^  [A-Z0-9]+ idle +[0-9]+ cycles' $out/log)
    tot=$(echo "$line" | sed 's/^  [A-Z0-9]* idle *\([0-9]*\) cycles.*/\1/')
    sum=$(echo "$line" | sed 's/^[^:]*://' | tr ',' '\n' | awk '{ s += $1 } END { print s + 0 }')
    if [ -n "$cyc" ] && [ "$tot" = $((cyc - bnd)) ] && [ "$sum" = "$tot" ] && echo "$line" | grep -Eq -- "$re"; then
        ok "$name: $line"
    else
        bad "$name: '$line' (want /$re/, cycles $cyc - bound $bnd, parts adding up to $sum)"
    fi
}
# softmax: V waits for the one load (its first op is dispatched 2 cycles in), then has no work
# while the store runs
w=$(( $(ld 8192) - 2 ))
idle "softmax idle" examples/softmax.pto "^  V idle +352 cycles: $w in wait_flag\(MTE2, V\) at softmax.pto:10, 78 with no work queued$"
# vadd: the double-buffered loads never wait; the drain after the loop delays no load, so it
# is no work, not a wait
idle "vadd idle" examples/vadd.pto "^  MTE2 idle +316 cycles: 316 with no work queued$"
# allreduce: the loads wait at the PIPE_ALL fences before each notify
idle "allreduce idle" examples/allreduce.pto "in pipe_barrier\(ALL\) at allreduce.pto:12"

# six waits at the end that no MTE2 instruction follows: all of them no work (more than a
# short pending list holds)
idle "trailing waits" tests/diag/idle_tail.pto "^  MTE2 idle +[0-9]+ cycles: [0-9]+ with no work queued$"
# a mix kernel: the vector cores' loads wait in tpop for the cube's product (the scalar unit
# stalls there, so every pipe waits)
idle "mixv2c idle" examples/mixv2c.pto "^  MTE2 idle +[0-9]+ cycles: [0-9]+ in tpop \(a pushed slot\) at mixv2c.pto:[0-9]+"

# init once (review27 M2): bb is loaded under `if i == 0` on the loop's first trip only and read
# by every trip's tadd; no earlier trip's tadd exists when that load runs, so no V -> MTE2 pair
# orders it and the x2 loads of a stay back to back: 7 loads (bias and 6 rows of x), then the
# last tadd and store (it was 2126 cycles and 16 flags, every trip's load of a waiting for the
# previous trip's tadd)
f=tests/user/r27_33_init_once.pto
check "init once" $f $(( 7 * $(ld 4096) + $(cost 2.11 24 4096) + $(bw 4096 109.12) )) $((7 * $(ld 4096))) 4
idle "init once idle" $f "^  MTE2 idle +[0-9]+ cycles: [0-9]+ with no work queued$"
if $ptoc run $f | grep -q "^  syncs       12 flags, 1 barrier$"; then ok "init once: 12 flags"; else
    bad "init once: $($ptoc run $f | grep '^  syncs')"; fi

# three short loops (review26 A-M3): the third loop's MTE2 -> V and V -> MTE3 ids are the first
# loop's, whose reuse the third loop's own MTE3 -> MTE2 primes order (pto__sy_chain_free), not
# the second loop's, which took 4 "order:" flags (2119 cycles, 22 flags; 2077 hand-fixed)
f=tests/user/r26a_short_loops.pto
$ptoc run $f >$out/log 2>&1
if grep -q "^  cycles      2077$" $out/log && grep -q "^  syncs       18 flags, 0 barriers$" $out/log \
    && ! $ptoc dump sync $f 2>/dev/null | grep -q "order: id"; then ok "short loops: 18 flags, 2077 cycles"; else
    bad "short loops: $(grep -E '^  (cycles|syncs)' $out/log | tr '\n' ' ')"; fi

# five x2 loads in one loop (review26 A-M6): MTE2 -> V runs out of ids and one pair falls back to
# a PIPE_ALL barrier in the body; the pass runs again over that barrier, which orders every carried
# WAR pair and the pipe_barrier V beside it (40 flags, 5 barriers, 7592 cycles before)
f=tests/user/r26a_id_pressure.pto
$ptoc run $f >$out/log 2>&1
if grep -q "^  cycles      7560$" $out/log && grep -q "^  syncs       10 flags, 4 barriers$" $out/log \
    && [ "$(grep -c 'warning: sync' $out/log)" = 1 ]; then ok "id pressure: 10 flags, 4 barriers, 7560 cycles"; else
    bad "id pressure: $(grep -E '^  (cycles|syncs)|warning: sync' $out/log | tr '\n' ' ')"; fi

# an inner K loop of `if kk == 0 { tmatmul } else { tmatmul_acc }` in an outer loop (first27's
# leftover): the barrier before the if (the WAW from the last tmatmul_acc to the next outer trip's
# tmatmul) already orders the else branch's RAW between tmatmul_accs: its own barrier goes
# (pto__sy_bar_implied; 2 barriers before, the same 7673 cycles)
f=bench/repro/nested_carry/mmr.pto
$ptoc run $f >$out/log 2>&1
if grep -q "^  cycles      7673$" $out/log && grep -q "^  syncs       12 flags, 1 barrier$" $out/log \
    && grep -q "^  simulator   no reports$" $out/log; then ok "mmr: 12 flags, 1 barrier, 7673 cycles"; else
    bad "mmr: $(grep -E '^  (cycles|syncs|simulator)' $out/log | tr '\n' ' ')"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
