#!/bin/sh
# diag_test.sh - what ptoc tells a user when something is wrong, end to end:
#   - a mismatch in ptoc run is reported per output tensor: how many
#     elements differ of how many, the largest errors, the first positions
#     with both values; a correct output is not named; exit status 1;
#   - an out tensor the kernel leaves partly unwritten (both sides leave
#     the same elements alone, so they match) draws a warning naming the
#     rows, the columns or a count and the first position, per rank; an
#     inout tensor does not; exit status 0; no example draws one; a read of
#     a host intermediate's elements no kernel stored to is an error;
#   - ptoc check plans and synchronises too: tiles that do not fit are an
#     error there, named largest first with their sizes and lines;
#   - a tpush into a v2c pipe without a split that AIV 1 reaches: the
#     verifier rejects it in the .pto; in a hand-edited kernel.c the
#     simulator names the ring, its pipe and the guard to write;
#   - a textract offset that only a launch value makes misaligned (a K loop
#     with a launch-time step) is an error of the interpreter and a
#     simulator report (was: both copied row-major and matched).
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/diag_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -20 $out/log; }
# expect NAME RC PATTERN CMD...: exit status RC and PATTERN (grep -E) in the output
expect() {
    name=$1; want=$2; pat=$3; shift 3
    "$@" >$out/log 2>&1; rc=$?
    if [ $rc = "$want" ] && grep -Eq -- "$pat" $out/log; then ok "$name"; else bad "$name (exit $rc, want $want, /$pat/)"; fi
}
# lacks NAME PATTERN: the last command's output does not contain PATTERN
lacks() { if grep -Eq -- "$2" $out/log; then bad "$1 (/$2/ found)"; else ok "$1"; fi; }
# holds NAME PATTERN: ... does contain it (a second look at one run)
holds() { if grep -Eq -- "$2" $out/log; then ok "$1"; else bad "$1 (/$2/ not found)"; fi; }

# ---- ptoc run: mismatch reports ----
$ptoc emit tests/diag/two_outputs.pto -o $out/good >$out/log 2>&1 || bad "emit two_outputs"
expect "two_outputs as emitted" 0 "^  result      match \(2 outputs\)" $ptoc run $out/good

# z = x + 0.5 edited to x + 2.5: every z element is off by exactly 2, y is right
cp -r $out/good $out/const
sed 's/b, a, 0.5);/b, a, 2.5);/' $out/good/kernel.c >$out/const/kernel.c
expect "an edited constant: count and max abs error" 1 \
    "^  result      mismatch: z differs in 2048 of 2048 elements \(max abs error 2, max rel error [0-9.e+]+\)$" \
    $ptoc run $out/const
lacks "the right output is not named" "y differs|^    y\["
for c in 0 1 2 3 4; do
    if grep -Eq "^    z\[0, $c\] = [-0-9.e]+ on the simulator, [-0-9.e]+ in the reference$" $out/log; then
        ok "first differing position [0, $c] listed"
    else bad "first differing position [0, $c] listed"; fi
done
lacks "only the first 5 positions" "^    z\[0, 5\]"
if grep -q "^    \.\.\. and 2043 more$" $out/log; then ok "the rest counted"; else bad "the rest counted"; fi

# i32 values past 2^24 are reported exactly: the fill of 16777217 edited to
# 16777218 (through f32 both printed 16777216, "max abs error 0")
$ptoc emit tests/edge/int_exact.pto -o $out/igood >$out/log 2>&1 || bad "emit int_exact"
cp -r $out/igood $out/iedit
sed 's/s, 16777217\.0);/s, 16777218.0);/' $out/igood/kernel.c >$out/iedit/kernel.c
expect "i32 past 2^24: the error is 1" 1 "^  result      mismatch: z differs in 16 of 16 elements \(max abs error 1, " \
    $ptoc run $out/iedit
w0() { if grep -Eq -- "$2" $out/log; then ok "$1"; else bad "$1 (/$2/ not found)"; fi; }
w0 "i32 past 2^24: both values exact" "^    z\[0, 0\] = 16777218 on the simulator, 16777217 in the reference$"
lacks "i32 past 2^24: y is right" "y differs"

# --inputs (review28 M5): the default grid keeps every sum exact, so a kernel.c edited to add
# p = (b + c) + a as (a + b) + c still matches; --inputs full (random mantissas) shows it, and the
# kernel as emitted matches under either (the interpreter adds in the kernel's order)
$ptoc emit tests/diag/sum_order.pto -o $out/so >$out/log 2>&1 || bad "emit sum_order"
expect "--inputs full: sum_order as emitted matches" 0 "^  result      match \(2 outputs\)" $ptoc run --inputs full $out/so
cp -r $out/so $out/so_edit
sed 's/"sum_order.pto:15", e, b, c)/"sum_order.pto:15", e, a, b)/; s/"sum_order.pto:16", e, e, a)/"sum_order.pto:16", e, e, c)/' \
    $out/so/kernel.c >$out/so_edit/kernel.c
if [ "$(grep -c 'e, a, b)\|e, e, c)' $out/so_edit/kernel.c)" != 2 ]; then bad "sum_order: the edit applies"; fi
expect "--inputs grid: another order of adds still matches" 0 "^  result      match \(2 outputs\)" $ptoc run $out/so_edit
expect "--inputs full: another order of adds mismatches" 1 "^  result      mismatch: p differs in [0-9]+ of 1024 elements \(max abs error [0-9.e-]+, max rel error" \
    $ptoc run --inputs full $out/so_edit
lacks "--inputs full: o is right" "o differs"
expect "--inputs fill: said" 1 "error: --inputs fill: want grid \(the default\) or full" $ptoc run --inputs fill tests/diag/sum_order.pto
# integer inputs over the whole dtype: sums wrap alike on both sides; a skipped store shows them
expect "--inputs full: i32 and i8 sums that wrap match" 0 "^  result      match \(2 outputs\)" $ptoc run --inputs full tests/diag/int_full.pto
$ptoc emit tests/diag/int_full.pto -o $out/ifull >$out/log 2>&1 || bad "emit int_full"
sed 's/^\( *\)\(pto_k_tstore(core, "int_full.pto:1[45]"\)/\1if (0) \2/' $out/ifull/kernel.c >$out/ifull/k.c && mv $out/ifull/k.c $out/ifull/kernel.c
expect "--inputs full: i32 inputs past the grid (10 digits, exact)" 1 "^    z\[0, [0-9]\] = 0 on the simulator, -?[0-9]{10} in the reference$" \
    $ptoc run --inputs full $out/ifull
holds "--inputs full: i8 inputs past the grid" "^    w\[0, [0-9]\] = 0 on the simulator, -?(4[1-9]|[5-9][0-9]|1[0-2][0-9]) in the reference$"
$ptoc run $out/ifull >$out/log 2>&1
lacks "--inputs grid: i8 sums within [-40, 40]" "^    w\[0, [0-9]\] = 0 on the simulator, -?(4[1-9]|[5-9][0-9]|1[0-2][0-9]) in the reference$"
# a '# run: --inputs full' line is read as the command line's option
printf '# run: --inputs full\n' >$out/so_line.pto
cat tests/diag/int_full.pto >>$out/so_line.pto
$ptoc emit $out/so_line.pto -o $out/ifl >$out/log 2>&1 || bad "emit so_line"
sed 's/^\( *\)\(pto_k_tstore(core, "so_line.pto:1[56]"\)/\1if (0) \2/' $out/ifl/kernel.c >$out/ifl/k.c && mv $out/ifl/k.c $out/ifl/kernel.c
expect "'# run: --inputs full' read" 1 "^    z\[0, [0-9]\] = 0 on the simulator, -?[0-9]{10} in the reference$" $ptoc run $out/ifl

# one block of two: rows 16..31 of both outputs are never written
cp -r $out/good $out/blocks
sed 's/"two", PTO_K_KIND_VECTOR, 2,/"two", PTO_K_KIND_VECTOR, 1,/' $out/good/host.c >$out/blocks/host.c
if cmp -s $out/good/host.c $out/blocks/host.c; then bad "the block count is emitted as 2"; else
    expect "too few blocks: y reported" 1 "^  result      mismatch: y differs in [0-9]+ of 2048 elements" $ptoc run $out/blocks
    expect "too few blocks: z reported too" 1 "^  result      mismatch: z differs in [0-9]+ of 2048 elements" $ptoc run $out/blocks
    expect "too few blocks: the first unwritten row" 1 "^    y\[16, 0\] = 0 on the simulator" $ptoc run $out/blocks
    expect "too few blocks: the rows never written" 1 \
        "^  warning     z: 1024 of 2048 elements never written \(rows 16\.\.31\)$" $ptoc run $out/blocks
fi

# ---- ptoc run: an out tensor the kernel leaves partly unwritten ----
# Both sides leave the elements alone, so they match: a warning, exit 0.
expect "blocks(M / 32) with M = 100: rows 96..99 never written" 0 \
    "^  warning     y: 256 of 6400 elements never written \(rows 96\.\.99\)$" \
    $ptoc run -D M=100 -D N=104 --ranks 3 tests/diag/unwritten.pto
w() { if grep -Eq -- "$2" $out/log; then ok "$1"; else bad "$1 (/$2/ not found)"; fi; }
w "whole columns never written" "^  warning     y: 128 of 1664 elements never written \(columns 96\.\.103\)$"
w "a corner: count and first position" "^  warning     y: 1536 of 2048 elements never written \(first at \[0, 32\]\)$"
lacks "an inout tensor written in part: no warning" "warning     z"
w "ranks: each rank's copy (rank 1)" "^  warning     y@1: 2048 of 4096 elements never written \(rows 32\.\.63\)$"
w "ranks: each rank's copy (rank 2)" "^  warning     y@2: 2048 of 4096 elements never written \(rows 32\.\.63\)$"
lacks "ranks: rank 0 wrote all of it" "warning     y@0"
if [ "$(grep -c '^  warning' $out/log)" = 5 ]; then ok "five warnings in all"; else bad "five warnings in all"; fi
expect "M = 96: every row written, no warning" 0 "^  result      match" \
    $ptoc run -D M=96 -D N=96 --ranks 1 tests/diag/unwritten.pto
if [ "$(grep -c '^  warning' $out/log)" = 1 ]; then ok "only the corner warns"; else bad "only the corner warns"; fi
# a host section: its out tensor over all its calls; not its intermediate t
cat > $out/host_half.pto <<'EOF2'
kernel half(in x: f32[64, 64], out y: f32[64, 64]) vector blocks(1) {
  tile t: vec f32[32, 64]
  tload t, x[0, 0]
  tstore y[0, 0], t
}
host main(in x: f32[64, 64], out y: f32[64, 64]) {
  tensor t: f32[64, 64]
  call half(x, t)
  call half(t, y)
}
EOF2
expect "a host section's out tensor" 0 "^  warning     y: 2048 of 4096 elements never written \(rows 32\.\.63\)$" \
    $ptoc run $out/host_half.pto
lacks "a host section's intermediate: no warning" "warning     t:"
# ... but a read of an intermediate's elements no kernel stored to is an error: the host allocates
# it and a device gives it no value (both sides read zeros, so only this report tells)
expect "temp_unwritten, M = 96: every row written, no report" 0 "^  simulator   no reports" \
    $ptoc run -D M=96 tests/diag/temp_unwritten.pto
lacks "temp_unwritten, M = 96: no uninitialised read" "uninitialised"
expect "temp_unwritten, M = 100: rows 96..99 read unwritten" 1 \
    "temp_unwritten.pto:13: error: uninitialised read: tload \(MTE2\) reads 256 element\(s\) of host intermediate 't' that no kernel stored to, the first at \[96, 0\]" \
    $ptoc run -D M=100 tests/diag/temp_unwritten.pto
holds "temp_unwritten, M = 100: the outputs still match" "^  result      match \(1 output\)"
# tail.pto's last block has a run-time valid region: it writes every row
expect "tail.pto with N = 100: no warning" 0 "^  result      match" $ptoc run -D N=100 -D alpha=1.5 examples/tail.pto
lacks "tail.pto with N = 100: no warning" "warning"
for f in examples/*.pto; do
    defs=$(sed -n 's/^# run: //p' "$f" | head -1)
    # shellcheck disable=SC2086
    expect "$f as in its run line" 0 "^  result      match" $ptoc run "$f" $defs
    lacks "$f: no unwritten warning" "warning"
done

# ---- a split v2c slot that one vector core never pushes its half of ----
# (verify refuses such a .pto: tests/bad/split_push_one_aiv.pto; here it is a hand edit)
$ptoc emit tests/diag/split_push.pto -o $out/sp >$out/log 2>&1 || bad "emit split_push"
sed 's/^\( *\)pto_k_tpush(core, "split_push.pto:14"/\1if (pto_k_subblock(core) == 0) pto_k_tpush(core, "split_push.pto:14"/' \
    $out/sp/kernel.c >$out/k.c && mv $out/k.c $out/sp/kernel.c
expect "split v2c: the missing half's AIV is named" 1 \
    "deadlock: tpop on ring 0 \\(V2C, split\\) waits for slot 0, whose half from AIV 1 is never pushed \\(AIV 0 pushed 1, AIV 1 0" \
    $ptoc run $out/sp
expect "split_push as written: matches" 0 "result      match" $ptoc run tests/diag/split_push.pto

# ---- a mismatch a race explains: a note says so above the mismatch's long list ----
expect "race and mismatch: the note" 1 "^  note        the simulator reports a race \(below\): which access came first is left to timing" \
    $ptoc run tests/diag/race_mismatch.pto -D N=64
lacks "race and mismatch: not a deadlock's note" "reports a deadlock"

# ---- a declaration line that fails: its name's later uses are not unknown names on top ----
expect "for without 'to': the header's error" 1 "for_no_to.pto:4:13: error: expected 'to' after the loop start, got '8'" \
    $ptoc check tests/diag/for_no_to.pto
lacks "for without 'to': no unknown-name cascade" "unknown name"

# ---- a '{' on the line after a header: one error per header, with the rule (review20 L8) ----
expect "Allman braces: the loop header's error" 1 "cascade_brace.pto:5:17: error: expected '\{' after the loop header, got end of line \(the '\{' must end the header line\)" \
    $ptoc check tests/diag/cascade_brace.pto
n=$(grep -c ": error: " $out/log)
if [ "$n" = 3 ]; then ok "Allman braces: one error per header"; else bad "Allman braces: one error per header (got $n)"; fi
holds "Allman braces: the else's error" "cascade_brace.pto:11:11: error: expected '\{' or 'if' after 'else', got end of line \(the '\{' must end"

# ---- a kernel header wrapped after ')': one error with the rule, the kind read in place (review22 L2) ----
expect "wrapped header: the kind's error" 1 "cascade_kind.pto:4:49: error: expected a kernel kind \\('vector', 'cube' or 'mix'\\), got end of line \\(the kind must follow '\\)' on the same line" \
    $ptoc check tests/diag/cascade_kind.pto
holds "wrapped header: the body is still checked" "cascade_kind.pto:8:10: error: unknown name 'z'"
n=$(grep -c ": error: " $out/log)
if [ "$n" = 2 ]; then ok "wrapped header: two errors"; else bad "wrapped header: two errors (got $n)"; fi

# ---- one mistake, one error (review17's cascades) ----
# (the shadowing files, review17 c25: the name's later uses are no error of their own)
for f in tests/bad/pipe_not_mix_use.pto tests/diag/cascade_mat_op.pto tests/diag/cascade_nonascii.pto \
         tests/bad/shadow_*.pto tests/diag/cascade_host_args.pto; do
    $ptoc check $f >$out/log 2>&1
    n=$(grep -c ": error: " $out/log)
    if [ "$n" = 1 ]; then ok "$f: one error"; else bad "$f: one error (got $n)"; fi
done
holds "cascade_host_args: the arity error is the one" "cascade_host_args.pto:9:8: error: 'k' takes 2 arguments"
$ptoc check tests/diag/cascade_mat_op.pto >$out/log 2>&1
holds "cascade_mat_op: at the destination" "cascade_mat_op.pto:5:8: error: tadd cannot write a tile in 'mat' \(it writes vec\)"
$ptoc check tests/diag/cascade_nonascii.pto >$out/log 2>&1
holds "cascade_nonascii: the hint" "cascade_nonascii.pto:3:9: error: unexpected character '.xc3' \(non-ASCII: names are ASCII letters, digits and '_'; later ones are not reported\)"

# ---- allreduce's counting cell reached through run-time indices: the interpreter names the notify ----
expect "ar_cell_dyn: the notify's line" 1 \
    "ar_cell_dyn.pto:7:10: error: notify on cell \\[0, 0\\] of 'sig' \\(its indices computed at run time\\), where the allreduce at line 6 counts its barriers" \
    $ptoc run --ranks 3 tests/diag/ar_cell_dyn.pto
$ptoc check tests/diag/ar_cell_dyn.pto >$out/log 2>&1 || bad "ar_cell_dyn: check passes (the cell is known at run time only)"
# three signals: s0 has no allreduce (its [0, 0] is free), s1's allreduce is the second in the kernel
expect "ar_cell_dyn2: the signal's own allreduce" 1 \
    "^ar_cell_dyn2.pto:10:10: error: notify on cell \\[0, 0\\] of 's1' \\(its indices computed at run time\\), where the allreduce at line 9 counts" \
    $ptoc run --ranks 2 tests/diag/ar_cell_dyn2.pto
if [ "$(grep -c ': error: ' $out/log)" = 1 ]; then ok "ar_cell_dyn2: s0's notify and wait are no error"; else bad "ar_cell_dyn2: s0's notify and wait are no error"; fi

# ---- a division by a launch value of 0: the run's error, at the expression (review17 finding 14) ----
# (the emitted C takes the quotient as 0 rather than trap; the reference stops there)
expect "div_zero_let: the division at its line:col" 1 "^div_zero_let.pto:6:22: error: division by zero$" \
    $ptoc run -D s=0 tests/diag/div_zero_let.pto
holds "div_zero_let: the result is the division" \
    "^  result      not compared: a division by zero at div_zero_let.pto:6:22 \\(the error above\\) stops the reference$"
holds "div_zero_let: the simulator's race is marked as following from it" \
    "^  simulator   3 reports in all, 1 distinct \\(below; the others repeat it on other cores or in later iterations\\); they may follow from the division by zero above \\(the kernel took 0 for it\\)$"
if [ "$(grep -c 'error: division by zero' $out/log)" = 1 ]; then ok "div_zero_let: said once"; else bad "div_zero_let: said once"; fi
lacks "div_zero_let: not 'the interpreter failed'" "interpreter failed"
# the error comes before the result and the reports (ptoc run's output, stdout and stderr in one)
if [ "$(grep -n 'error: division by zero' $out/log | cut -d: -f1)" -lt "$(grep -n '^  result' $out/log | cut -d: -f1)" ]; then
    ok "div_zero_let: the error first"; else bad "div_zero_let: the error first"; fi
expect "div_zero_let, s = 4: clean" 0 "^  result      match \\(1 output\\)" $ptoc run -D s=4 tests/diag/div_zero_let.pto
expect "div_zero_blocks: blocks(N / s) at s = 0 is the division" 1 "^div_zero_blocks.pto:3:78: error: division by zero$" \
    $ptoc run -D N=64 -D s=0 tests/diag/div_zero_blocks.pto
holds "div_zero_blocks: the kernel is not run" "^note: kernel k is not run: its blocks\\(N / s\\) divides by zero with these -D values$"
lacks "div_zero_blocks: not 'would launch no block'" "would launch no block|gives 0"
# review18 L1: a launch refused for its block count is FILE:LINE:COL: error: at its blocks(...)
expect "div_zero_blocks, s = 128: no block, FILE:LINE:COL: error:" 1 \
    "^div_zero_blocks.pto:3:78: error: kernel k would launch no block: blocks\\(N / s\\) is 0 with these -D values$" \
    $ptoc run -D N=64 -D s=128 tests/diag/div_zero_blocks.pto
expect "div_zero_blocks, s = 16: clean" 0 "^  result      match" $ptoc run -D N=64 -D s=16 tests/diag/div_zero_blocks.pto
expect "div_zero_host: a call's block count" 1 "^div_zero_host.pto:5:64: error: division by zero$" \
    $ptoc run -D M=32 -D q=0 -D p=32 tests/diag/div_zero_host.pto
holds "div_zero_host: the call named" "^div_zero_host.pto:20:8: note: in the call of 'acc' by host 'h'$"
lacks "div_zero_host: not 'would launch no block'" "would launch no block"
expect "div_zero_host: a kernel's remainder, the host's result" 1 \
    "^  result      not compared: a remainder by zero at div_zero_host.pto:13:22 \\(the error above\\) stops the reference$" \
    $ptoc run -D M=32 -D q=1 -D p=0 tests/diag/div_zero_host.pto
holds "div_zero_host: the remainder at its line:col" "^div_zero_host.pto:13:22: error: modulo by zero$"
holds "div_zero_host: the calls' reports marked" "^  note        the calls above ran with 0 for it, so their reports may follow from it$"
expect "div_zero_host, q = 1, p = 32: clean" 0 "^  result      match" $ptoc run -D M=32 -D q=1 -D p=32 tests/diag/div_zero_host.pto
# review27 L1: a host call whose arguments give no block is said at the argument (the kernel is
# called twice), naming it, with a note at the kernel's blocks(...); not "these -D values"
expect "host_noblock: at the call's argument" 1 \
    "^host_noblock.pto:18:27: error: call scale would launch no block: blocks\\(nb\\) is 0 with this call's arguments \\(nb: argument 4, R / 128 \\+ d / \\(R - 32\\)\\)$" \
    $ptoc run tests/diag/host_noblock.pto
holds "host_noblock: the kernel's blocks(...) noted" "^host_noblock.pto:6:96: note: kernel scale's blocks\\(nb\\)$"
lacks "host_noblock: not 'these -D values'" "these -D values"
expect "host_noblock, R = 32: the argument's division" 1 "^host_noblock.pto:18:39: error: division by 0 in a host expression$" \
    $ptoc run -D R=32 tests/diag/host_noblock.pto
holds "host_noblock, R = 32: the argument named, not blocks(nb)" "^note: kernel scale is not run: an argument of its call divides by zero \\(the error above\\)$"
lacks "host_noblock, R = 32: not 'its blocks(nb) divides'" "blocks\\(nb\\) divides"
expect "host_noblock, R = 256: clean" 0 "^total " $ptoc run -D R=256 tests/diag/host_noblock.pto
expect "div_zero_host: the count's own division, with the call's arguments" 1 \
    "^note: kernel acc is not run: its blocks\\(M / \\(16 \\* n\\)\\) divides by zero with this call's arguments$" \
    $ptoc run -D M=32 -D q=0 -D p=32 tests/diag/div_zero_host.pto

# ---- a written set_flag without its wait_flag: the user's error, at the set ----
expect "set_flag with no wait_flag: exit 1 at the set's line" 1 \
    "set_no_wait.pto:5:3: error: sync: event id may be left set at kernel end \\(set_flag MTE2, V, 0\\): written flags are kept as written" \
    $ptoc check tests/diag/set_no_wait.pto
lacks "set_flag with no wait_flag: not an internal error" "internal"
expect "wait_flag with no set_flag: the advice is the wait's" 1 \
    "wait_no_set.pto:6:3: error: sync: wait on an event id that may not be set \\(wait_flag MTE2, V, 3\\): written flags are kept as written, so every wait_flag needs a set_flag of its id before it in program order, on every path" \
    $ptoc check tests/diag/wait_no_set.pto
expect "wait_flag before its set_flag: the advice says the set comes first in program order" 1 \
    "wait_before_set.pto:5:3: error: sync: wait on an event id that may not be set \\(wait_flag MTE2, V, 0\\): .*before it in program order.*move the set before the wait" \
    $ptoc check tests/diag/wait_before_set.pto

# ---- every unanalysable written event id is reported, not only the first ----
expect "unanalysable event ids: the first, with the forms the pass reads" 1 \
    "hand_id_forms.pto:6:5: error: sync: cannot analyse this event id \\(set_flag MTE2, V, \\(i \\+ 1\\) % 2\\): an event id is an integer" \
    $ptoc check tests/diag/hand_id_forms.pto
holds "... and its wait" "hand_id_forms.pto:7:5: error: sync: cannot analyse this event id either \\(wait_flag MTE2, V, \\(i \\+ 1\\) % 2\\)$"
holds "... and the block % 2 set" "hand_id_forms.pto:9:5: error: sync: cannot analyse this event id either \\(set_flag V, MTE3, block % 2\\)$"
holds "... and the block % 2 wait" "hand_id_forms.pto:10:5: error: sync: cannot analyse this event id either \\(wait_flag V, MTE3, block % 2\\)$"

# ---- warnings independent of another kernel's error appear with it ----
expect "an error in one kernel: the window warning of that kernel still shows" 1 \
    "warn_with_error.pto:4:14: warning: 'x' is window but kernel 'wa' is not a ranks kernel" \
    $ptoc check tests/diag/warn_with_error.pto
holds "... and so does another kernel's 'writes no output'" "warn_with_error.pto:9:8: warning: kernel 'wc' writes no output"
holds "... with the error" "warn_with_error.pto:7:10: error: tstore: this window of 'y' is the same in all 2 blocks"
# ... and a parse error in one kernel no longer hides another kernel's verify errors and warnings
# (review28 L2, w16): the kernels that parsed cleanly are verified; the half-parsed one is not (its
# read of t before any write is not reported), nor is the host that calls it
expect "parse error: the clean kernels are still verified" 1 "parse_then_verify.pto:13:11: error: 'a' is read before anything writes it" \
    $ptoc check tests/diag/parse_then_verify.pto
holds "parse error: the parse error itself" "parse_then_verify.pto:8:19: error: unknown name 'nosuch'"
holds "parse error: a clean kernel's warning" "parse_then_verify.pto:15:16: warning: 'x' is window but kernel 'fine' is not a ranks kernel"
lacks "parse error: the half-parsed kernel is not verified" "parse_then_verify.pto:7:"
[ "$(wc -l <$out/log)" = 3 ] && ok "parse error: three diagnostics, no host follow-on" || bad "parse error: $(wc -l <$out/log) diagnostics"
expect "parse error beside a clean kernel's parse warning" 1 "parse_warn_once.pto:11:18: error: expected ']'" $ptoc check tests/diag/parse_warn_once.pto
if [ "$(grep -c "parse_warn_once.pto:6:15: warning: float 1e999 rounds to inf" $out/log)" = 1 ]
then ok "... its warning said once (the salvage's second parse says nothing)"; else bad "... its warning said once"; cat $out/log; fi
expect "parse error: a kernel left open swallows the rest, which is not verified" 1 "parse_unclosed.pto:3:59: error: missing '}'" \
    $ptoc check tests/diag/parse_unclosed.pto
lacks "parse error: nothing verified after an unclosed kernel" "read before anything writes it"
lacks "... the kernel with the error draws no 'writes no output'" "kernel 'wa' writes no output"

expect "wait_flag under 'if i == 0' in a loop: the advice says what a wait in a loop needs" 1 \
    "wait_first_iter.pto:10:7: error: sync: wait on an event id that may not be set \\(wait_flag MTE2, V, 1\\): written flags are followed path by path, not by loop variable values: a wait_flag in a loop needs its id set on every path to it in every iteration .*: move that wait before the loop, or drop both$" \
    $ptoc check tests/diag/wait_first_iter.pto
lacks "... not 'add the missing one'" "add the missing one"

# ---- a mix kernel's pipes deadlock: the reference interpreter names the cycle ----
expect "both sections pop first: each tpop names the core it waits for and where that one is stuck" 1 \
    "pipe_cycle.pto:17:5: error: deadlock: this tpop on the cube core waits forever: it needs tile 1 of pipe 'r' \\(v2c\\), which AIV 0 \\(subblock 0\\) has pushed 0 of, and it is itself stuck in the tpop at line 27" \
    $ptoc run tests/diag/pipe_cycle.pto
holds "both sections pop first: the vector side too" \
    "pipe_cycle.pto:27:7: error: deadlock: this tpop on AIV 1 \\(subblock 1\\) waits forever: it needs tile 1 of pipe 'q' \\(c2v\\), which the cube core has pushed 0 of, and it is itself stuck in the tpop at line 17"
expect "both pipes full: each tpush names the slots and the core that holds them" 1 \
    "pipe_full.pto:18:7: error: deadlock: this tpush on the cube core waits forever: pipe 'q' \\(c2v\\) is full \\(8 slots, every one pushed and not yet popped by AIV 0 \\(subblock 0\\), which popped 0 of 8\\), and it is itself stuck in the tpush at line 30" \
    $ptoc run tests/diag/pipe_full.pto

# ---- what is not a .pto file ----
for c in check fmt plan "dump parse" sync; do
    # shellcheck disable=SC2086
    expect "$c DIR: cannot read it" 1 "^ptoc: error: cannot read 'examples': Is a directory" $ptoc $c examples
done
expect "emit DIR: cannot read it" 1 "^ptoc: error: cannot read 'examples': Is a directory" $ptoc emit examples -o $out/nodir
expect "run of an empty file: no kernel" 1 "^$out/empty.pto:1:1: error: no kernel" sh -c ": >$out/empty.pto; $ptoc run $out/empty.pto"

# ---- ptoc check: the planner's errors ----
$ptoc check examples/vadd.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && [ ! -s $out/log ]; then ok "check passes a good kernel, silently"; else bad "check passes a good kernel, silently (exit $rc)"; fi
expect "check plans: an overflow is an error" 1 \
    "^tests/plan/overflow.pto:10:3: error: kernel 'big': vec overflows: needs 262144 bytes, capacity 196608; at line 10, 4 tiles are live \(262144 bytes\), largest first: a 65536 \(line 3\), " \
    $ptoc check tests/plan/overflow.pto
expect "fmt still only verifies" 0 "^kernel big" $ptoc fmt tests/plan/overflow.pto
# fmt formats a file that parses even when verify finds errors (they go to
# stderr after the text, exit 1): a formatter that refused would not help fix it
$ptoc fmt tests/bad/arity.pto >$out/fmt.out 2>$out/fmt.err; rc=$?
if [ $rc = 1 ] && grep -q "^  tadd c, a$" $out/fmt.out && grep -q "^tests/bad/arity.pto:6:3: error: tadd expects 3 operands, got 2 (the form: tadd d, a, b)" $out/fmt.err
then ok "fmt formats a file with verify errors, reports them, exits 1"; else bad "fmt formats a file with verify errors (exit $rc)"; fi
expect "fmt prints nothing for a file that does not parse" 1 "error" $ptoc fmt tests/bad/bad_char.pto
expect "check --target isa: what the pto-isa target cannot express is an error" 1 \
    "^examples/ring.pto:6:8: error: emit \(isa\): kernel 'ring' is a ranks kernel; communication is not supported by the isa target yet" \
    $ptoc check --target isa examples/ring.pto
$ptoc check --target sim examples/ring.pto >$out/log 2>&1; rc=$?
if [ $rc = 0 ] && [ ! -s $out/log ]; then ok "check --target sim passes it"; else bad "check --target sim passes it (exit $rc)"; fi
expect "check: an unknown target is a usage error" 1 "^ptoc: error: --target is sim or isa, not 'gpu'" \
    $ptoc check --target gpu examples/vadd.pto

# ---- a GM race between blocks that write different bytes of one 32-byte block ----
expect "a race on a shared 32-byte block of GM says why it is one" 1 \
    "race on gm y bytes \[400, 416\).*\(the two touch different bytes of the same 32-byte block: memory moves whole 32-byte blocks, so unordered writers of one block can undo each other; align each core's part of the tensor to 32 bytes, or order them\)" \
    $ptoc run tests/diag/gm_shared_block.pto
# (blocks(C / 12) = 8 at C=100: a dynamic count, so check cannot refuse the same window, and the run reaches the simulator)
sed 's/tstore y\[block, 0\]/tstore y[0, 0]/; s/blocks(8)/blocks(C \/ 12)/' tests/diag/gm_shared_block.pto > $out/gm_same.pto
expect "every block writes the same bytes: a race" 1 "race on gm y bytes" $ptoc run $out/gm_same.pto
lacks "that race does not speak of different bytes" "different bytes"

# ---- a matmul row tail on the left tile, then tpush of the whole acc (review26b M1) ----
expect "tpush of an acc whose last rows a row-tail tmatmul skipped: the hint names the mat-tile form" 1 \
    "push_rowtail.pto:17: error: uninitialised read: tpush \(FIX\) reads 28672 unwritten byte\(s\) .*; these are the acc's last rows, which a tmatmul whose left tile has valid rows \(a row tail\) leaves unwritten: to read the whole acc \(as a tpush does\), put the row tail, valid\(...\), on the mat tile you tload instead of the left tile" \
    $ptoc run tests/diag/push_rowtail.pto
sed 's/tile al: left f16\[64, 64\] valid(mr, 64)/tile al: left f16[64, 64]/' tests/diag/push_rowtail.pto >$out/push_rowtail_mat.pto
expect "... and the mat-tile form runs clean" 0 "^  simulator   no reports" $ptoc run $out/push_rowtail_mat.pto
# unwritten bytes that are not the acc's last rows (a column tail on the right tile) get no such hint
sed 's/tile al: left f16\[64, 64\] valid(mr, 64)/tile al: left f16[64, 64]/; s/tile bl: right f16\[64, 128\]/tile bl: right f16[64, 128] valid(64, 100)/' \
    tests/diag/push_rowtail.pto >$out/push_coltail.pto
expect "a column tail: uninitialised, no row-tail hint" 1 "uninitialised read: tpush" $ptoc run $out/push_coltail.pto
lacks "... (the hint)" "last rows"

# ---- a directory or emitted C where a .pto FILE goes: pointed to 'ptoc run DIR' (review26a M5) ----
expect "check DIR: says a DIR runs with ptoc run DIR" 1 \
    "^ptoc: error: cannot read 'examples': Is a directory \\(a directory that ptoc emit wrote runs with 'ptoc run DIR'; this command takes a .pto FILE\\)$" \
    $ptoc check examples
expect "fmt DIR: the same" 1 "^ptoc: error: cannot read 'examples': Is a directory \\(a directory that ptoc emit wrote runs with 'ptoc run DIR'" \
    $ptoc fmt examples
$ptoc emit examples/vadd.pto -o $out/vaddemit >/dev/null 2>&1
expect "run DIR/kernel.c: C, not a .pto file" 1 \
    "^ptoc: error: '$out/vaddemit/kernel.c' is C, not a .pto file: run the directory ptoc emit wrote with 'ptoc run DIR'$" \
    $ptoc run $out/vaddemit/kernel.c

# ---- 'subblock' in a vector kernel is always 0: a warning (review26a L8); "1 col", not "1 cols" ----
printf 'kernel k(in x: f32[32, 64], out y: f32[32, 64]) vector {\n  tile a: vec f32[16, 64]\n  tload a, x[subblock * 16, 0]\n  tstore y[0, 0], a\n}\n' >$out/vsub.pto
expect "subblock in a vector kernel: warned" 0 "^$out/vsub.pto:3:14: warning: 'subblock' is always 0 in a vector kernel" $ptoc check $out/vsub.pto
printf 'kernel k(in x: f32[16, 1], out y: f32[16, 64]) vector {\n  tile a: vec f32[16, 64]\n  tload a, x[0, 0]\n  tstore y[0, 0], a\n}\n' >$out/onecol.pto
expect "a tensor of 1 column: '1 col'" 1 "ends at col 63, out of bounds \\('x' has 1 col\\)$" $ptoc check $out/onecol.pto

# ---- a blocks(...) that leaves int64 (review26a L10) ----
expect "blocks(N * N * N) past int64: an overflow at the expression" 1 \
    "^blocks_overflow.pto:4:67: error: kernel k is not run: blocks\\(N \\* N \\* N\\) overflows int64 \\(integer overflow in expression\\) with these -D values$" \
    $ptoc run tests/diag/blocks_overflow.pto
lacks "... not launched as a wrapped count" "would launch|blocks\\)$"
$ptoc emit tests/diag/blocks_overflow.pto -o $out/bov >/dev/null 2>&1
expect "... the host computes it through pto_h_ck" 0 "pto_h_ck\\(run, 2, pto_h_ck\\(run, 2, N, N\\), N\\)" cat $out/bov/host.c
$ptoc emit examples/vadd.pto -o $out/bov2 >/dev/null 2>&1
expect "... and a count that cannot overflow stays plain C" 1 "^0$" grep -c pto_h_ck $out/bov2/host.c

# ---- unguarded tpush into an unsplit v2c pipe ----
expect "a guarded v2c push runs clean" 0 "^  simulator   no reports" $ptoc run tests/diag/v2c_guarded.pto
expect "an unguarded one is rejected by check" 1 "tpush into pipe 'up' \(v2c, no split\) can run on AIV 1" \
    $ptoc check tests/bad/pipe_v2c_unguarded.pto
$ptoc emit tests/diag/v2c_guarded.pto -o $out/v2c >$out/log 2>&1 || bad "emit v2c_guarded"
cp -r $out/v2c $out/v2c_edit
sed 's/if (pto_k_subblock(core) == 0) {/if (1) {/' $out/v2c/kernel.c >$out/v2c_edit/kernel.c
if cmp -s $out/v2c/kernel.c $out/v2c_edit/kernel.c; then bad "the guard is emitted as pto_k_subblock(core) == 0"; else
    expect "the guard edited out: the simulator says which ring, pipe and what to do" 1 \
        "^    v2c_guarded.pto:22: error: tpush: AIV 1 \(subblock 1\) pushes into ring 0 \(\"v2c_guarded.pto:3: pipe up\"\), a V2C ring with no split: only AIV 0 may push into it; guard the push with .if subblock == 0. \(in C: pto_k_subblock\(core\) == 0\) or split the pipe" \
        $ptoc run $out/v2c_edit
fi

# ---- an out tensor nothing writes: a warning at the parameter, not an error ----
cat > $out/unwritten.pto <<'EOF2'
kernel w1(in x: f32[16, 64], out y: f32[16, 64], out never: f32[16, 64]) vector {
  tile t: vec f32[16, 64]
  tload t, x[0, 0]
  tstore y[0, 0], t
}
kernel w2(in x: f32[16, 64] window, out z: f32[16, 64], inout s: i32[1, 8] window) vector ranks {
  tget z[0, 0], x@0[0, 0], 16, 64
  notify s[0, 0], 1, set
}
EOF2
expect "an out tensor nothing writes is a warning" 0 \
    "^$out/unwritten.pto:1:54: warning: 'never' is an 'out' tensor of kernel 'w1' but nothing writes it$" \
    $ptoc check $out/unwritten.pto
lacks "tstore, tget and notify count as writes" "'(y|z|s)' is an 'out' tensor"

# ---- 'subblock' on the cube core (a slip copied from a vector section): a warning ----
cat > $out/cubesub.pto <<'EOF2'
kernel k(in a: f16[64, 64], out c: f32[64, 64]) mix {
  pipe q: c2v f32[64, 64] split(up_down)
  cube {
    tile am: mat f16[64, 64]
    tile al: left f16[64, 64]
    tile br: right f16[64, 64]
    tile acc: acc f32[64, 64]
    tload am, a[subblock * 32, 0]
    tmov al, am
    tmov br, am
    tmatmul acc, al, br
    tpush q, acc
  }
  vector {
    tile t: vec f32[32, 64]
    tpop t, q
    tstore c[subblock * 32, 0], t
    tfree q
  }
}
EOF2
expect "subblock on the cube core is a warning there" 0 \
    "^$out/cubesub.pto:8:17: warning: 'subblock' is always 0 on the cube core \(only the two vector cores of a cluster have subblocks\)$" \
    $ptoc check $out/cubesub.pto
lacks "... and not in the vector section" "cubesub.pto:17:"
expect "... only once" 0 "^1$" sh -c "$ptoc check $out/cubesub.pto 2>&1 | grep -c subblock"

# ---- a multi-block kernel whose store window is the same in every block: an error ----
# (z[r, 0] with r = i * 16: 'block' forgotten; the simulator reports the blocks' race at run time;
# a warning before session 26, though a partial overlap was already an error)
cat > $out/sameblk.pto <<'EOF2'
kernel sb(in x: f32[64, 64], out z: f32[64, 64], out w: f32[64, 64], out u: f32[64, 64]) vector blocks(4) {
  for i = 0 to 4 {
    tile a: vec f32[16, 64]
    let r = i * 16
    tload a, x[r, 0]
    tstore z[r, 0], a
    tstore w[block * 0 + r, 0], a
  }
  for j = block to 4 {
    tile b: vec f32[16, 64]
    tload b, x[j * 16, 0]
    if block == 0 {
      tstore u[j * 16, 0], b
    }
  }
}
EOF2
expect "same window in every block: an error" 1 \
    "^$out/sameblk.pto:6:12: error: tstore: this window of 'z' is the same in all 4 blocks of kernel 'sb' \(neither its row nor its column depends on 'block'\), so every block writes the same elements and nothing orders two blocks: which value stays depends on which writes last; is 'block' missing from the row \(e.g. z\[block \* ROWS, 0\]\)\?$" \
    $ptoc check $out/sameblk.pto
# block * 0 names block (the rule follows names, not values), a loop from block and an if on block: not warned;
# but w's window is the same in every block all the same, which the cross-block check (pto__vxblock_gm) sees
lacks "... only where block is absent" "sameblk.pto:(7|14):.*(warning|error)"
sed 's/tstore z\[r, 0\], a/tstore z[r + block * 0, 0], a/' $out/sameblk.pto >$out/sameblk2.pto
expect "... block * 0: the windows of blocks 0 and 1 meet (an error)" 1 \
    "^$out/sameblk2.pto:7:12: error: tstore: blocks 0 and 1 of kernel 'sb' both write rows 0..15, columns 0..63 of 'w' \(line 7 in both\): nothing orders two blocks" \
    $ptoc check $out/sameblk2.pto
lacks "... and u (block 0 only) is not" "sameblk2?.pto:14:"
expect "... once" 0 "^1$" sh -c "$ptoc check $out/sameblk.pto 2>&1 | grep -c error"
expect "... and one block is no warning" 0 "^0$" sh -c "sed 's/blocks(4)/blocks(1)/' $out/sameblk.pto >$out/oneblk.pto; $ptoc check $out/oneblk.pto 2>&1 | grep -c warning; true"

# ---- a mix kernel's vector store whose window names 'subblock' nowhere: both AIVs write it (a warning) ----
# (examples/mixmm.pto with subblock * 32 dropped from its store, review20 L13: the simulator reports the
# AIVs' race at run time)
sed 's/tstore c\[block \* 64 + subblock \* 32, 0\], o/tstore c[block * 64, 0], o/' examples/mixmm.pto >$out/nosub.pto
expect "vector store the same on both AIVs: warned" 0 \
    "^$out/nosub.pto:34:12: warning: tstore: this window of 'c' is the same on both vector cores \(AIV 0 and AIV 1\) of mix kernel 'mixmm' \(neither its row nor its column depends on 'subblock'\), so both write the same elements: is 'subblock' missing from the row \(e.g. c\[ROW \+ subblock \* ROWS, 0\]\), or is the store meant for one AIV \('if subblock == 0 \{ ... \}'\)\?$" \
    $ptoc check $out/nosub.pto
expect "... once" 0 "^1$" sh -c "$ptoc check $out/nosub.pto 2>&1 | grep -c warning"
# subblock through a let, a store an if on subblock keeps to one AIV: not warned; the third is
cat > $out/sub2.pto <<'EOF2'
kernel ns(in x: f32[64, 64], out y: f32[64, 64], out z: f32[32, 64], out w: f32[32, 64]) mix {
  cube {
  }
  vector {
    tile t: vec f32[32, 64]
    let r = subblock * 32
    tload t, x[r, 0]
    tstore y[r, 0], t
    if subblock == 0 {
      tstore z[0, 0], t
    }
    tstore w[0, 0], t
  }
}
EOF2
expect "... not through a let or under an if on subblock" 0 "^$out/sub2.pto:12:12: warning: tstore: this window of 'w' is the same on both vector cores" \
    $ptoc check $out/sub2.pto
lacks "... only where subblock is absent" "sub2.pto:(8|10):"
expect "... mixmm itself is clean" 0 "^0$" sh -c "$ptoc check examples/mixmm.pto 2>&1 | grep -c .; true"

# ---- a mix kernel's sections sharing a GM tensor with no pipe between them (review20 M4) ----
# sure (tests/bad/xcore_*.pto): an error; both store: an error that says so
cat > $out/xboth.pto <<'EOF2'
kernel xb(in a: f16[64, 64], in b: f16[64, 64], inout c: f32[64, 64], in d: f32[64, 64]) mix {
  cube {
    tile am: mat f16[64, 64]
    tile bm: mat f16[64, 64]
    tile a0: left f16[64, 64]
    tile b0: right f16[64, 64]
    tile acc: acc f32[64, 64]
    tload am, a[0, 0]
    tload bm, b[0, 0]
    tmov a0, am
    tmov b0, bm
    tmatmul acc, a0, b0
    tstore c[0, 0], acc
  }
  vector {
    tile t: vec f32[32, 64]
    tile h: vec f16[32, 64]
    tload h, a[subblock * 32, 0]
    tload t, d[subblock * 32, 0]
    tstore c[subblock * 32, 0], t
  }
}
EOF2
expect "cube and vector both store c: an error" 1 \
    "^$out/xboth.pto:13:5: error: the cube section stores 'c' \(line 13\) and the vector section stores it \(line 20\) with no pipe op between them: the two sections of a mix kernel run at the same time, so both write the elements their windows share, in no set order; pass the tile through a pipe \(tpush in one section, tpop in the other\) instead of through 'c'$" \
    $ptoc check $out/xboth.pto
lacks "... a tensor both sections only load (a) is no race" "line 18"
# not sure (the cube's store runs only in block 1 of a launch-time count): a warning
sed 's/) mix {/) mix blocks(N \/ 64) {/; s/c: f32\[64, 64\]/c: f32[N, 64]/; s/    tstore c\[0, 0\], acc/    if block == 1 {\n      tstore c[0, 0], acc\n    }/' \
    $out/xboth.pto >$out/xmaybe.pto
expect "a store in an if on block of a launch-time count: a warning" 0 \
    "^$out/xmaybe.pto:14:7: warning: the cube section stores 'c' \(line 14\) and the vector section stores it \(line 22\) with no pipe op between them: the two sections of a mix kernel run at the same time, so wherever their windows meet \(they may, in some block or on some AIV\) the result depends on timing; pass the tile" \
    $ptoc check $out/xmaybe.pto
# windows apart: the vector cores store rows 64.. of a taller c: quiet
sed 's/c: f32\[64, 64\]/c: f32[128, 64]/; s/tstore c\[subblock \* 32, 0\], t/tstore c[64 + subblock * 32, 0], t/' $out/xboth.pto >$out/xapart.pto
expect "windows apart (rows differ by subblock and an offset): no diagnostic" 0 "^0$" sh -c "$ptoc check $out/xapart.pto 2>&1 | grep -c .; true"

# ---- a float literal that rounds to inf in f32: a warning at the literal ----
cat > $out/bigfloat.pto <<'EOF2'
kernel f(in x: f32[16, 64], out y: f32[16, 64]) vector {
  tile a: vec f32[16, 64]
  tload a, x[0, 0]
  tmuls a, a, 3.5e38
  tadds a, a, -1e300
  tmaxs a, a, 3.4028234e38
  tmins a, a, inf
  tstore y[0, 0], a
}
EOF2
expect "3.5e38 rounds to inf in f32" 0 "^$out/bigfloat.pto:4:15: warning: float 3.5e\+38 rounds to inf in f32" \
    $ptoc check $out/bigfloat.pto
if grep -q "bigfloat.pto:5:15: warning: float -1e+300 rounds to -inf in f32 (write -inf if that is meant)" $out/log; then
    ok "-1e300 rounds to -inf in f32"; else bad "-1e300 rounds to -inf in f32"; fi
lacks "FLT_MAX and inf itself are no warning" "bigfloat.pto:[67]:"
# on f16 and bf16 tiles the scalar is converted to the tile's dtype first: 65520 is the least that
# rounds to inf in f16 (65504 is its largest finite), 3.3962e38 in bf16
cat > $out/bigf16.pto <<'EOF2'
kernel f(in x: f16[16, 64], in z: bf16[16, 64], out y: f16[16, 64], out w: bf16[16, 64]) vector {
  tile a: vec f16[16, 64]
  tile b: vec bf16[16, 64]
  tload a, x[0, 0]
  tload b, z[0, 0]
  tmuls a, a, 70000.0
  tmaxs a, a, 65504.0
  tmins a, a, -65520.0
  tadds b, b, 3.4e38
  tmaxs b, b, 3.38e38
  tstore y[0, 0], a
  tstore w[0, 0], b
}
EOF2
expect "70000 rounds to inf in f16" 0 "^$out/bigf16.pto:6:15: warning: float 70000 rounds to inf in f16, the tile's dtype" \
    $ptoc check $out/bigf16.pto
if grep -q "bigf16.pto:8:15: warning: float -65520 rounds to -inf in f16" $out/log &&
   grep -q "bigf16.pto:9:15: warning: float 3.4e+38 rounds to inf in bf16" $out/log; then
    ok "-65520 in f16, 3.4e38 in bf16: warned"; else bad "-65520 in f16, 3.4e38 in bf16: warned"; fi
lacks "65504 in f16 and 3.38e38 in bf16 are no warning" "bigf16.pto:(7|10):"

# ... and a nonzero literal that rounds to 0 (review20 L5): 1e-8 in f16 (its least subnormal is
# 5.96e-8), 1e-50 in f32; 6e-8 in f16 and 1e-40 in f32 (subnormals) and 0 itself are no warning
cat > $out/tinyf.pto <<'EOF2'
kernel f(in x: f16[16, 64], out y: f16[16, 64], out z: f32[16, 64]) vector {
  tile a: vec f16[16, 64]
  tile b: vec f32[16, 64]
  tload a, x[0, 0]
  tmuls a, a, 1e-8
  tadds a, a, -1e-9
  tmuls a, a, 6e-8
  tadds a, a, 0.0
  tcvt b, a
  tmuls b, b, 1e-50
  tmuls b, b, 1e-40
  tstore y[0, 0], a
  tstore z[0, 0], b
}
EOF2
expect "1e-8 rounds to 0 in f16" 0 "^$out/tinyf.pto:5:15: warning: float 1e-08 rounds to 0 in f16, the tile's dtype \(write 0 if that is meant\)" \
    $ptoc check $out/tinyf.pto
holds "-1e-9 rounds to 0 in f16" "tinyf.pto:6:15: warning: float -1e-09 rounds to 0 in f16"
holds "1e-50 rounds to 0 in f32" "tinyf.pto:10:15: warning: float 1e-50 rounds to 0 in f32 \(write 0"
lacks "6e-8 in f16, 0 and 1e-40 in f32 are no warning" "tinyf.pto:(7|8|11):"

# a host call's float argument: the kernel takes it as f32
cat > $out/hostinf.pto <<'EOF2'
kernel sc(in x: f32[16, 64], out y: f32[16, 64], scalar s: f32) vector {
  tile t: vec f32[16, 64]
  tload t, x[0, 0]
  tmuls t, t, s
  tstore y[0, 0], t
}
host h(in a: f32[16, 64], out c: f32[16, 64]) {
  call sc(a, c, 1e39)
}
EOF2
expect "a host call's 1e39: warned" 0 "^$out/hostinf.pto:8:17: warning: float 1e\\+39 rounds to inf in f32, as scalar 's' of 'sc' takes it" \
    $ptoc check $out/hostinf.pto
sed 's/1e39/1e-50/' $out/hostinf.pto >$out/hostzero.pto
expect "a host call's 1e-50: warned" 0 "^$out/hostzero.pto:8:17: warning: float 1e-50 rounds to 0 in f32, as scalar 's' of 'sc' takes it" \
    $ptoc check $out/hostzero.pto
# ... and an f16 / bf16 param holds it in its dtype: a literal that changes there is said with
# the value held, as -D says it (0.1 is 0.0999755859375 in f16); one that holds exactly is not
cat > $out/hosthalf.pto <<'EOF2'
kernel sh(in x: f16[16, 64], out y: f16[16, 64], scalar a: f16, scalar b: bf16) vector {
  tile t: vec f16[16, 64]
  tload t, x[0, 0]
  tmuls t, t, a
  tadds t, t, b
  tstore y[0, 0], t
}
host h(in x: f16[16, 64], out y: f16[16, 64], out z: f16[16, 64]) {
  call sh(x, y, 0.1, 0.1)
  call sh(x, z, 0.5, -3.25)
}
EOF2
expect "a host call's 0.1 to an f16 param: the value held" 0 \
    "^$out/hosthalf.pto:9:17: warning: argument 3 of 'sh': scalar 'a' is f16 and holds 0.0999755859375, not 0.1$" \
    $ptoc check $out/hosthalf.pto
holds "a host call's 0.1 to a bf16 param: the value held" \
    "^$out/hosthalf.pto:9:22: warning: argument 4 of 'sh': scalar 'b' is bf16 and holds 0.10009765625, not 0.1$"
lacks "0.5 and -3.25 hold exactly: no warning" "hosthalf.pto:10:"
sed 's/0.5, -3.25/70000.0, 1e-9/' $out/hosthalf.pto >$out/hosthalf2.pto
expect "a host call's 70000 to an f16 param rounds to inf" 0 \
    "^$out/hosthalf2.pto:10:17: warning: float 70000 rounds to inf in f16, as scalar 'a' of 'sh' takes it" \
    $ptoc check $out/hosthalf2.pto
holds "a host call's 1e-9 to a bf16 param: the value held, exactly" \
    "^$out/hosthalf2.pto:10:26: warning: argument 4 of 'sh': scalar 'b' is bf16 and holds 9.968061931431293e-10, not 1e-09$"
# an integer constant too (4097 is 4096 in f16; 2048 holds)
sed 's/0.5, -3.25/2048, 4 + 4093/' $out/hosthalf.pto >$out/hosthalf3.pto
expect "a host call's 4 + 4093 to a bf16 param: the value held" 0 \
    "^$out/hosthalf3.pto:10:23: warning: argument 4 of 'sh': scalar 'b' is bf16 and holds 4096, not 4097$" \
    $ptoc check $out/hosthalf3.pto
lacks "2048 holds in f16: no warning" "hosthalf3.pto:10:17"
# ... past double's range (review21 L3): strtod made 1e400 inf and 1e-400 0 with no word (the
# verifier sees only the value, as `inf` or `0.0` give it): said by the parser, as written; a
# zero written with a huge exponent is no warning. A host call's value is printed exactly (%g
# printed 3.4028235677973366e+38, which rounds to inf, as 3.40282e+38: FLT_MAX itself).
cat > $out/pastdouble.pto <<'EOF2'
kernel f(in x: f32[16, 64], out y: f32[16, 64]) vector {
  tile a: vec f32[16, 64]
  tload a, x[0, 0]
  tmuls a, a, 1e400
  tadds a, a, -1e400
  tmuls a, a, 1e-400
  tadds a, a, 0.0e999
  tstore y[0, 0], a
}
EOF2
expect "1e400 rounds to inf: said as written" 0 \
    "^$out/pastdouble.pto:4:15: warning: float 1e400 rounds to inf \(past double's range; write inf if that is meant\)$" \
    $ptoc check $out/pastdouble.pto
holds "-1e400 rounds to -inf" "^$out/pastdouble.pto:5:15: warning: float -1e400 rounds to -inf \(past double's range; write -inf if"
holds "1e-400 rounds to 0" "^$out/pastdouble.pto:6:15: warning: float 1e-400 rounds to 0 \(below double's range; write 0 if"
lacks "0.0e999 is no warning" "pastdouble.pto:7:"
sed 's/1e39/1e400/' $out/hostinf.pto >$out/hostbig.pto
expect "a host call's 1e400: warned" 0 "^$out/hostbig.pto:8:17: warning: float 1e400 rounds to inf \(past double's range" \
    $ptoc check $out/hostbig.pto
sed 's/1e39/3.4028235677973366e38/' $out/hostinf.pto >$out/hostmid.pto
expect "a host call's value, printed exactly" 0 \
    "^$out/hostmid.pto:8:17: warning: float 3.4028235677973366e\+38 rounds to inf in f32, as scalar 's' of 'sc' takes it" \
    $ptoc check $out/hostmid.pto
sed -n '1,6p' $out/hostinf.pto >$out/dbig.pto
expect "-D s=1e400: warned as the literal is" 0 \
    "^warning: -D s=1e400: the value rounds to inf \(past double's range; write inf if that is meant\)$" \
    $ptoc run $out/dbig.pto -D s=1e400

# ---- a command line ptoc cannot use: say what is wrong, then the usage, exit 1 ----
v=examples/vadd.pto
for c in "emit needs -o DIR|emit $v" \
         "emit: a value must follow '-o'|emit $v -o" \
         "--target is sim or isa, not 'gpu'|emit --target gpu $v -o $out/x" \
         "emit takes one FILE; a second one is '$v'|emit $v $v -o $out/x" \
         "run: a value must follow '--seed'|run $v --seed" \
         "run: a value must follow '-D'|run $v -D" \
         "run: unknown option '--sede'|run --sede 3 $v" \
         "run takes one FILE or DIR; a second one is '$v'|run $v $v" \
         "one FILE must follow 'run'|run" \
         "check takes one FILE; a second one is|check $v $v" \
         "a STAGE and a FILE must follow 'dump'|dump $v" \
         "--svg needs a file to write|plan $v --svg" \
         "plan: unknown option '--tigth'|plan --tigth $v" \
         "unknown command 'chek'|chek $v"; do
    msg=${c%%|*}; args=${c#*|}
    $ptoc $args >$out/log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -qF -- "ptoc: error: $msg" $out/log && grep -q "^usage: ptoc" $out/log; then ok "ptoc $args: $msg"
    else bad "ptoc $args: $msg (exit $rc)"; fi
done
# counts agree in number: "1 barrier", not "1 barriers"
cat > $out/onebar.pto <<'EOF2'
kernel k(in x: f32[16, 64], out y: f32[16, 64]) vector {
  tile a: vec f32[16, 64]
  tile b: vec f32[16, 64]
  tload a, x[0, 0]
  tadds b, a, 1.0
  tmuls b, b, 2.0
  tstore y[0, 0], b
}
EOF2
expect "one barrier is 'barrier'" 0 "^  syncs       4 flags, 1 barrier$" $ptoc run $out/onebar.pto
# a usage error shows that command's usage only, not the whole text
$ptoc run --sede 3 x.pto >$out/log 2>&1
if grep -q "^usage: ptoc run " $out/log && ! grep -q "^  emit\|fmt FILE" $out/log && grep -q "ptoc --help" $out/log
then ok "a usage error shows the command's usage only"; else bad "a usage error shows the command's usage only"; fi
expect "an unknown command near a real one: did you mean" 1 "^did you mean 'check'\?" $ptoc chek x.pto

# ---- tmatmul of an empty valid region: pto-isa asserts m, k, n >= 1 on the device, so the
#      simulator reports it at the line and the interpreter refuses it too (exit 1) ----
cat > $out/mm0.pto <<'EOF2'
kernel mm0(in a: f16[16, 32], in b: f16[32, 16], out c: f32[16, 16], scalar kc: i32) cube {
  tile a1: mat f16[16, 32]
  tile b1: mat f16[32, 16]
  tile a0: left f16[16, 32] valid(16, kc)
  tile b0: right f16[32, 16]
  tile acc: acc f32[16, 16]
  tload a1, a[0, 0]
  tload b1, b[0, 0]
  tmov a0, a1
  tmov b0, b1
  tmatmul acc, a0, b0
  tstore c[0, 0], acc
}
EOF2
expect "tmatmul with k = 0: the simulator names the line" 1 \
    "^    mm0.pto:11: error: tmatmul: k \(the left tile's valid columns\) is 0; pto-isa's TMATMUL takes m, k and n in 1..4095 \(the device asserts it\) \(block 0 aic\)$" \
    $ptoc run $out/mm0.pto -D kc=0
if grep -Eq "^mm0.pto:11:3: error: tmatmul: k \(the valid columns of 'a0'\) is 0" $out/log; then
    ok "tmatmul with k = 0: the interpreter refuses it too"; else bad "tmatmul with k = 0: the interpreter refuses it too"; fi
expect "tmatmul with k = 32 runs" 0 "^  result      match" $ptoc run $out/mm0.pto -D kc=32

# ---- a fractional scalar for an integer tile: a literal draws a warning from the verifier,
#      a -D value one at the launch (the device truncates it: the run still matches, exit 0) ----
cat > $out/iscal.pto <<'EOF2'
kernel iscal(in x: i32[16, 32], out y: i32[16, 32], in b: i8[32, 32], out c: i8[32, 32], scalar a: f32, scalar q: i32) vector {
  tile t: vec i32[16, 32]
  tile u: vec i8[32, 32]
  tload t, x[0, 0]
  tadds t, t, a
  tmuls t, t, a
  tstore y[0, 0], t
  tload u, b[0, 0]
  tadds u, u, q
  tmaxs u, u, 1.5
  tstore c[0, 0], u
}
EOF2
expect "a fractional literal on an i8 tile: a warning at the scalar with the value used" 0 \
    "^$out/iscal.pto:10:15: warning: tmaxs on the i8 tile 'u': the scalar 1.5 is taken as 1 \(the device converts it to the tile's dtype, truncating toward zero\)$" \
    $ptoc check $out/iscal.pto
expect "-D a=0.5 for tadds on an i32 tile: a warning naming the op, the tile and the value used" 0 \
    "^warning: -D a=0.5: tadds on the i32 tile 't' \(iscal.pto:5\) takes the scalar as 0 \(the device converts it to the tile's dtype, truncating toward zero\)$" \
    $ptoc run $out/iscal.pto -D a=0.5 -D q=3
if [ "$(grep -c "^warning: -D a=0.5" $out/log)" = 1 ] && grep -q "^  result      match" $out/log; then
    ok "-D a=0.5: one warning for the param (not one per op), and the run matches"; else bad "-D a=0.5: one warning, a match"; fi
expect "-D q=200 for tadds on an i8 tile: out of range, the value used" 0 \
    "^warning: -D q=200: tadds on the i8 tile 'u' \(iscal.pto:9\) cannot take it \(out of range: the device's conversion is undefined\); the simulator and the reference use 127$" \
    $ptoc run $out/iscal.pto -D a=2 -D q=200
# tdivs of an integer tile by a literal 0 (or one taken as 0): a warning that says what the device gives (review26a L5)
printf 'kernel k(in x: i32[16, 64], out y: i32[16, 64]) vector {\n  tile a: vec i32[16, 64]\n  tload a, x[0, 0]\n  tadds a, a, 1.5\n  tdivs a, a, 0\n  tstore y[0, 0], a\n}\n' >$out/tdz.pto
expect "tdivs of an i32 tile by 0: warned" 0 \
    "^$out/tdz.pto:5:15: warning: tdivs on the i32 tile 'a' by 0: the device multiplies by 1 / 0 = \\+inf, so every element but 0 saturates to the i32 range's end \\(positive ones to 2147483647, negative ones to -2147483648; 0 \\* inf is NaN, which gives 0\\)$" \
    $ptoc check $out/tdz.pto
sed 's/tdivs a, a, 0$/tdivs a, a, 0.5/' $out/tdz.pto >$out/tdz2.pto
expect "... and by 0.5, taken as 0" 0 "tdz2.pto:5:15: warning: tdivs on the i32 tile 'a' by 0.5 \\(taken as 0\\): " $ptoc check $out/tdz2.pto
lacks "... once (not also 'is taken as 0')" "is taken as 0"
lacks "-D a=2: an integer value draws no warning" "^warning: -D a="

# ---- a -D too large for the machine is the user's to fix (exit 1, with the size), not exit 2 ----
expect "-D N=10^12: cannot allocate, with the size" 1 "cannot allocate tensor x \[1000000000000, 256\]" \
    $ptoc run examples/rmsnorm.pto -D N=1000000000000
expect "-D N=10^20: too large as typed, not 'positive integer'" 1 "dynamic dim N = 99999999999999999999 is too large \(a dim is less than 2\^62\)" \
    $ptoc run examples/rmsnorm.pto -D N=99999999999999999999

# ---- textract offsets known only at launch: checked at run time ----
expect "textract with a launch-time step of 32: match" 0 "^  result      match" $ptoc run tests/diag/textract_dyn_step.pto
expect "... of 40: the interpreter names the offset inside a fractal" 1 \
    "textract_dyn_step.pto:13:5: error: textract: offset \[0, 40\] into 'am' is not whole fractals: offsets into a mat tile are multiples of 16 rows and 16 cols for f16" \
    $ptoc run tests/diag/textract_dyn_step.pto -D ks=40
expect "... and so does the simulator" 1 \
    "textract_dyn_step.pto:14: error: textract: offset \[40, 0\] is not whole fractals of the source tile: rows must be a multiple of 16 and cols of 16" \
    $ptoc run tests/diag/textract_dyn_step.pto -D ks=40


# ---- a GM read beside a write in one 32-byte block, no byte shared: no race ----
# (trial10's sweep found C=12: 48-byte rows; sync orders GM windows by element, the
# simulator judges a reader against a writer by byte, writers of one block by block)
expect "gm: a read and a write sharing a block but no byte (rows)" 0 "simulator   no reports" \
    $ptoc run tests/ok/gm_block_rows.pto -D C=12
expect "gm: a read and a write sharing a block but no byte (columns)" 0 "simulator   no reports" \
    $ptoc run tests/ok/gm_block_cols.pto

# ---- host sections: what no call uses draws a warning ----
expect "host: unused input warned" 0 "host_unused.pto:11:30: warning: parameter 'spare' of host 'h' is not used by any call" $ptoc check tests/diag/host_unused.pto
expect "host: unused scalar warned" 0 "warning: scalar 'beta' of host 'h' is not used by any call" $ptoc check tests/diag/host_unused.pto
expect "host: unused tensor warned" 0 "host_unused.pto:13:10: warning: tensor 'never' of host 'h' is not used by any call" $ptoc check tests/diag/host_unused.pto
expect "host: unread intermediate warned" 0 "host_unused.pto:12:10: warning: tensor 't' of host 'h' is written but no call reads it" $ptoc check tests/diag/host_unused.pto
$ptoc check examples/host_mm_norm.pto >$out/log 2>&1 && ok "host example checks" || bad "host example checks"
lacks "host example: no warning" "warning"
# ---- event ids: more than 64 set at once in the sync inserter's analysis (virtual ids of many
# x8 tiles) no longer refuses a kernel (tests/user/ten_x8.pto, many_x8.pto run); past 128 it
# is refused with a message that says what to change ----
expect "ids: 16 x8 tiles refused, with what to change" 1 \
    "ids_overflow.pto:38:5: error: sync: more than 128 event ids would be set at once here .*: give the loop fewer or shallower multi-buffered tiles" \
    $ptoc check tests/diag/ids_overflow.pto
expect "ids: 10 x8 tiles sync" 0 "out of event ids for MTE3 -> V: 9 flag pairs" $ptoc check tests/user/ten_x8.pto
# ttrans: valid regions that differ only at run time (review29 L7)
expect "ttrans: equal regions at run time match" 0 "^  result      match" $ptoc run tests/diag/ttrans_dyn_valid.pto
expect "ttrans: differing regions: the interpreter's error" 1 "ttrans_dyn_valid.pto:8:3: error: ttrans: 'd' has valid region \[48, 16\] but 'a' has \[16, 56\]" \
    $ptoc run -D M=48 tests/diag/ttrans_dyn_valid.pto
holds "ttrans: ... and the simulator's report" "ttrans_dyn_valid.pto:8: error: ttrans: the destination \(f32, valid \[48, 16\]\) is not the source \(f32, valid \[16, 56\]\) transposed"
# the diagnostics cap: 50 errors shown, then a line that says how many more (review29 L6)
expect "80 errors: the list says 30 more" 1 "^\.\.\. and 30 more errors not shown \(the first 50 shown\)$" $ptoc check tests/diag/many_errors.pto
if [ "$(grep -c ': error: ' $out/log)" = 50 ] && tail -1 $out/log | grep -q "^\.\.\. and 30 more"
then ok "80 errors: 50 lines, the count last"; else bad "80 errors: 50 lines, the count last"; fi
# each sync warning or note once, whatever the command (review29 L1 counted 9 lines for 3 warnings of
# `ptoc sync`: not reproduced, the lines are ~330 characters and wrap to 3 screen rows each)
for c in sync check "dump sync" "emit -o $out/ten_x8"; do
    # shellcheck disable=SC2086
    $ptoc $c tests/user/ten_x8.pto 2>$out/log >/dev/null
    # (ten_x8's sharing costs no waiting: notes since review28 L6; the same rule holds for them)
    n=$(grep -Ec "(warning|note): sync: out of event ids" $out/log); u=$(grep -E "(warning|note): sync: out of event ids" $out/log | sort -u | wc -l)
    if [ "$n" -ge 2 ] && [ "$n" = "$u" ]; then ok "ptoc $c: each sync warning / note once ($n)"; else bad "ptoc $c: each sync warning / note once ($n lines, $u distinct)"; fi
done
# ---- a rotation degraded to one id is that id, not 'base + i % 1' (review22 L1) ----
expect "one id left: a note (a forward pair: it waits no cycle)" 0 "ids_one.pto:20:5: note: sync: out of event ids for MTE2 -> V: 1 id instead of 2 rotating for tile te: .* \\(a forward pair: each set_flag now also follows the wait_flag 1 iteration back, which V has passed by then once the loop runs\\)$" \
    $ptoc dump sync tests/diag/ids_one.pto
holds "one id left: dump sync says 7" "^    set_flag MTE2, V, 7  # by sync: RAW .* tload te "
lacks "one id left: no '% 1' in dump sync" "% 1"
$ptoc emit tests/diag/ids_one.pto -o $out/ids_one >$out/log 2>&1 || bad "one id left: emit"
cat $out/ids_one/kernel.c >$out/log
holds "one id left: the sim target's id is 7" 'pto_k_set_flag\(core, "ids_one.pto:16", PTO_K_MTE2, PTO_K_V, 7\);'
lacks "one id left: no '% 1' in kernel.c" "% 1\)"
$ptoc emit --target isa tests/diag/ids_one.pto -o $out/ids_one_isa >$out/log 2>&1 || bad "one id left: emit isa"
cat $out/ids_one_isa/kernel.cpp >$out/log
holds "one id left: the isa target's id is EVENT_ID7" "set_flag\(PIPE_MTE2, PIPE_V, EVENT_ID7\); /\* ids_one.pto:16"
lacks "one id left: no '% 1' in kernel.cpp" "% 1\)"
expect "one id left: runs" 0 "^  simulator   no reports" $ptoc run tests/diag/ids_one.pto
holds "one id left: the degraded pair costs no MTE2 cycle" "^  MTE2 idle   [0-9]+ cycles: [0-9]+ with no work queued$"
# ---- review28 L6: rotating pairs that share a flag pair cost waiting only as the loop starts and
# ends: a note, not a warning (a warning reads as something to fix); still said, with its cost ----
expect "shared rotating pairs: noted" 0 "ids_share_note.pto:16:5: note: sync: out of event ids for V -> MTE2: 3 flag pairs \\(for tc, td, te\\) share the flag pair of WAR .* \\(its set_flag moves after their sources; the pair keeps its 3-id rotation, which hides the later wait in every iteration but the first and the last\\)$" \
    $ptoc check tests/diag/ids_share_note.pto
holds "shared rotating pairs: the RAW pairs noted too" "ids_share_note.pto:23:5: note: sync: out of event ids for MTE2 -> V: 3 flag pairs \\(for tc, td, tf\\)"
lacks "shared rotating pairs: no warning" "warning"
expect "shared rotating pairs: no MTE2 cycle in a wait" 0 "^  MTE2 idle   [0-9]+ cycles: [0-9]+ with no work queued$" \
    $ptoc run tests/diag/ids_share_note.pto
holds "shared rotating pairs: efficiency 0.978" "^  efficiency  0.978$"
# ---- a forward pair whose ids are all busy until the drains just before its wait: its set moves
# right before the wait, and the kernel runs. Set there, MTE3 may set the id before V's wait of
# its previous set (V lags behind): an order pair V -> MTE3 orders that wait first, and the one
# order pair whose own id cannot be ordered (every MTE3 -> V id rotates with the x8 loops) falls
# back to PIPE_ALL, with a warning that says why (not "out of event ids") ----
expect "delay to the wait: one fallback" 0 "# sync: 43 set_flag, 43 wait_flag, 2 pipe_barrier \(1 PIPE_ALL fallbacks\)" \
    $ptoc sync tests/diag/delay_drains.pto
expect "delay to the wait: the fallback's reason" 0 "delay_drains.pto:18:3: warning: sync: V -> MTE3: PIPE_ALL barrier instead of a flag pair for tile t: order: id 0 of MTE3 -> V is set again at delay_drains.pto:7; its previous wait \(delay_drains.pto:7\) must come first \(id 1 would be set again before its previous wait \(delay_drains.pto:14\) is known to be past, and no id of the reverse pair MTE3 -> V is free there to order that wait first\)" \
    $ptoc sync tests/diag/delay_drains.pto
expect "delay to the wait: runs" 0 "^  result      match \(3 outputs\)" $ptoc run tests/diag/delay_drains.pto -D n=9
# ---- an unknown name is one error per line, not one per use (review15: `tmuls t, t, 2.0` after
# t's loop said the same thing twice) ----
expect "unknown name: reported" 1 "unknown_twice.pto:7:9: error: unknown name 't': the tile 't' declared at 4:10 is out of scope here" \
    $ptoc check tests/diag/unknown_twice.pto
[ "$(grep -c error $out/log)" = 1 ] && ok "unknown name: once per line" || bad "unknown name: once per line ($(grep -c error $out/log) errors)"
# ---- --ranks on a file without a ranks kernel: a warning, the run as without it (review15: it
# was silently ignored) ----
expect "--ranks without a ranks kernel: warned" 0 "^warning: --ranks 4: .*vadd.pto has no ranks kernel, so every kernel ran once" \
    $ptoc run examples/vadd.pto --ranks 4
expect "--ranks with a ranks kernel: no warning" 0 "^  result      match" $ptoc run examples/ring.pto --ranks 3
lacks "--ranks with a ranks kernel: no warning" "no ranks kernel"
# ---- a valid(...) past the tile's shape is one error: the windows are judged by the whole tile
# then (review15: each load and store added "window of 'x' ends at row 19, out of bounds") ----
expect "valid past the shape: reported" 1 "valid_excess.pto:3:33: error: valid rows of 't' can be 20, more than its 16 rows" \
    $ptoc check tests/diag/valid_excess.pto
[ "$(grep -c error $out/log)" = 1 ] && ok "valid past the shape: one error" || bad "valid past the shape: one error ($(grep -c error $out/log))"
# ---- a tile in the other core's memory is one error, at its declaration (review15: each op that
# named it added "tstore cannot read a tile in 'mat' (it reads vec or acc)") ----
expect "other core's tile: reported" 1 "other_core_tile.pto:3:8: error: vector kernel 'k' cannot use a 'mat' tile" \
    $ptoc check tests/diag/other_core_tile.pto
[ "$(grep -c error $out/log)" = 1 ] && ok "other core's tile: one error" || bad "other core's tile: one error ($(grep -c error $out/log))"
# ---- review18 L6: 'window' on a tensor of a kernel that is not a ranks kernel: a warning at the
# tensor (a forgotten 'ranks'?), exit 0; a ranks kernel's window is no warning ----
cat > $out/window_nonranks.pto <<'EOF2'
kernel wn(in x: f32[16, 64] window, out y: f32[16, 64]) vector {
  tile a: vec f32[16, 64]
  tload a, x[0, 0]
  tstore y[0, 0], a
}
EOF2
expect "window without ranks: warned" 0 "^$out/window_nonranks.pto:1:14: warning: 'x' is window but kernel 'wn' is not a ranks kernel" \
    $ptoc check $out/window_nonranks.pto
sed 's/) vector {/) vector ranks {/' $out/window_nonranks.pto >$out/window_ranks.pto
$ptoc check $out/window_ranks.pto >$out/log 2>&1 && [ ! -s $out/log ] && ok "window with ranks: no warning" ||
    bad "window with ranks: no warning"
# ---- review18 L10: a host call's run-time value an integer scalar cannot hold is the run's error
# at the argument (was: at the kernel's param line); a constant one is check's (tests/bad) ----
cat > $out/host_range.pto <<'EOF2'
kernel k(in x: i8[16, 32], out y: i8[16, 32], scalar q: i8) vector {
  tile a: vec i8[16, 32]
  tload a, x[0, 0]
  tadds a, a, q
  tstore y[0, 0], a
}
host h(in x: i8[16, 32], out y: i8[16, 32], out z: i8[16, 32], scalar n: i32) {
  call k(x, y, 100)
  call k(x, z, n * 100)
}
EOF2
expect "host scalar out of range at run time: at the argument" 1 \
    "host_range.pto:9:16: error: argument 3 of 'k': parameter 'q' is i8 and gets 200, not an integer in -128..127" \
    $ptoc run $out/host_range.pto -D n=2
lacks "... not at the kernel's param line" "host_range.pto:1:"
expect "host scalar in range: runs" 0 "result      match \(2 outputs\)" $ptoc run $out/host_range.pto -D n=1
# a verify warning comes once, not again with the reference's error (review20 L1)
expect "a warning with the reference's error: reported" 1 "pushed 3 tiles but the cube core popped 2" $ptoc run tests/diag/warn_once.pto
if [ "$(grep -c "warning: kernel 'ringmis' writes no output" $out/log)" = 1 ]; then ok "the warning once"; else bad "the warning once"; fi
# a tile written under an if and read after it on a path that skips the write: the simulator
# reports the read (review21 M3: the tdecl went inside the branch, so the other path read the
# bytes of the iteration before, or of a tile the planner put on the same bytes, and only
# the mismatch was reported)
expect "written under an if, read after it in a loop: reported" 1 \
    "fresh_if.pto:9: error: uninitialised read: tadd \(V\) reads 4096 unwritten byte\(s\) of its second source tile .*\(declared at fresh_if.pto:3\)" \
    $ptoc run tests/diag/fresh_if.pto
expect "... and with no loop, on bytes another tile used before" 1 \
    "fresh_if_shared.pto:14: error: uninitialised read: tadd \(V\) reads 65536 unwritten byte\(s\) .*\(declared at fresh_if_shared.pto:6\)" \
    $ptoc run tests/diag/fresh_if_shared.pto
for k in 0 1 2 3; do
    expect "written on every path of an if chain (K=$k): no report" 0 "^  simulator   no reports" \
        $ptoc run tests/diag/fresh_if_ok.pto -D K=$k
done
# review26b H3: a vector store between tpop and tfree is ordered before nothing the cube does
# after its next tpush on a2a3 (pto-isa's TPOP frees the slot, TFREE is empty): the simulator
# reports it, on every seed, and says why; with `arch a5` (TFREE frees the slot) it is ordered;
# the right way (a v2c push after the store, a pop before the load) stays clean (user_test).
for s in 1 2 3; do
    expect "store between tpop and tfree (a2a3, seed $s): race reported with the reason" 1 \
        "tfree_order.pto:26: error: race on gm y bytes \[0, 8192\): tload \(MTE2, block 0 aic\) reads them while \"tfree_order.pto:36\" tstore \(MTE3, block 0 aiv0\) wrote them unordered; .*on a2a3 pto-isa's TPOP frees its ring slot as soon as its load ends and TFREE is empty.*order the GM data with a tpush after the access and a tpop of that pipe before the other one, or a signal" \
        $ptoc run --seed $s tests/diag/tfree_order.pto
done
(echo "arch a5"; cat tests/diag/tfree_order.pto) >$out/tfree_order_a5.pto
expect "... and on a5, where TFREE frees the slot: no report" 0 "^  simulator   no reports" \
    $ptoc run $out/tfree_order_a5.pto
# ... and check's static cube/vector GM test no longer counts such a tfree as an ordering point on
# a2a3 (it still does on a5, where TFREE frees the slot)
expect "a store followed only by a tfree, a cube load after its push: refused by check" 1 \
    "tfree_last_store.pto:23:5: error: the vector section stores 'y' \(line 23\) and the cube section loads it \(line 16\) with no pipe op between them" \
    $ptoc check tests/diag/tfree_last_store.pto
(echo "arch a5"; cat tests/diag/tfree_last_store.pto) >$out/tfree_last_store_a5.pto
expect "... on a5 check lets the tfree order it" 0 "^clean$" sh -c "$ptoc check $out/tfree_last_store_a5.pto && echo clean"
# review26b H1: odd slots(N) >= 5 overrun the ring on a device (pto-isa batches the free credits)
expect "slots(5): refused with the reason and what to use" 1 \
    "odd_slots.pto:5:8: error: pipe 'q': slots\(5\) is odd and more than 3: pto-isa's TPipe returns free slots to the producer in batches of slots / 2 = 2 pops, and a push waits for them only every 2 pushes, so with an odd count push 5 \(and 7, \.\.\.\) can overwrite a slot the consumer has not popped yet, corrupting data on a device; use an even count \(e.g. slots\(4\)\) or at most 3" \
    $ptoc check tests/diag/odd_slots.pto
for n in 1 2 3 4 6 14; do
    sed "s/slots(5) local_slots(1)/slots($n) local_slots(1)/" tests/diag/odd_slots.pto >$out/slots_$n.pto
    expect "slots($n): accepted" 0 "^clean$" sh -c "$ptoc check $out/slots_$n.pto && echo clean"
done
for n in 7 15; do
    sed "s/slots(5) local_slots(1)/slots($n) local_slots(1)/" tests/diag/odd_slots.pto >$out/slots_$n.pto
    expect "slots($n): refused" 1 "slots\($n\) is odd and more than 3" $ptoc check $out/slots_$n.pto
done
# ---- a pipe no tpush / tpop / tfree names: a warning with what it holds (review26b L3: two unused
# 'both' pipes passed check silently while holding 8 of the 12 flag ids); the used one draws none,
# and the kernel still runs; a5 has no GM pipe buffer to name ----
expect "unused pipe: both" 0 "^tests/diag/unused_pipe.pto:4:8: warning: pipe 'spare' of kernel 'unused_pipe' is never pushed or popped, but it still takes 4 cross-core flag ids \\(of 12\\), 131072 B per block of the GM pipe buffer and 2 local slots, 16384 B of each vector core's UB and 32768 B of the cube's L1: delete it$" \
    $ptoc check tests/diag/unused_pipe.pto
holds "unused pipe: v2c, 1 local slot in L1" "^tests/diag/unused_pipe.pto:6:8: warning: pipe 'idle' .* 2 cross-core flag ids \\(of 12\\), 32768 B per block of the GM pipe buffer and 1 local slot, 16384 B of the cube's L1: delete it$"
lacks "unused pipe: the used one is not named" "pipe 'q'"
if [ "$(grep -c warning $out/log)" = 2 ]; then ok "unused pipe: two warnings"; else bad "unused pipe: two warnings"; fi
{ echo "arch a5"; cat tests/diag/unused_pipe.pto; } >$out/unused_a5.pto
expect "unused pipe on a5: no GM buffer" 0 "pipe 'spare' .* 4 cross-core flag ids \\(of 16\\) and 2 local slots, " $ptoc check $out/unused_a5.pto
expect "unused pipe: runs" 0 "^  simulator   no reports" $ptoc run tests/diag/unused_pipe.pto
# ---- a tput / tget whose two windows overlap on one copy on every rank is a check error (tests/bad:
# tget_overlap, tput_overlap_loop); windows that touch, another rank's copy, two tensors or windows
# only some values make overlap are not (review26b L6) ----
cat >$out/xfer_apart.pto <<'EOF'
kernel xfer_apart(inout x: f32[64, 64] window, inout w: f32[64, 64] window, inout sig: i32[1, 8] window,
                  scalar s: i32) vector ranks {
  tget x[0, 0], x@rank[8, 0], 8, 64
  tput x@rank[16, 32], x[16, 0], 8, 32
  tget x[24, 0], x@((rank + 1) % nranks)[28, 0], 8, 64
  tget w[0, 0], x@rank[0, 0], 8, 64
  tget x[40, 0], x@rank[s, 0], 8, 64
}
EOF
if $ptoc check $out/xfer_apart.pto >$out/log 2>&1 && ! [ -s $out/log ]; then
    ok "xfer: windows apart, a peer's copy, two tensors, a run-time row: no diagnostic"
else bad "xfer: windows apart, a peer's copy, two tensors, a run-time row: no diagnostic"; fi
expect "xfer: ptoc run stops there, before the interpreter" 1 "^tests/bad/tget_overlap.pto:4:3: error: tget: the source and destination windows overlap: " \
    $ptoc run --ranks 2 tests/bad/tget_overlap.pto
lacks "xfer: ... so no run" "^  result"
# ---- a peer rank outside [0, nranks): one report per access, the access dropped (review26b L4:
# the put landed on the core's own copy and raced with the previous rank's put there) ----
expect "bad rank: reported" 1 "^    bad_rank.pto:8: error: rank 3 of y@3 is outside \\[0, 3\\) \\(rank 2 block 0 aiv0\\)$" \
    $ptoc run tests/diag/bad_rank.pto
holds "bad rank: the notify and the get too" "^  simulator   3 reports$"
lacks "bad rank: no follow-on race" "race on gm"
lacks "bad rank: a dropped get leaves no uninitialised tile" "uninitialised"
# ... and a wait for the notify that went nowhere stops its core with no deadlock report of its own
expect "bad rank: the partner's missing notify" 1 "^    ranks_pairs.pto:7: error: rank 3 of sig@3 is outside \\[0, 3\\)" \
    $ptoc run --ranks 3 tests/sweep/ranks_pairs.pto
lacks "bad rank: no follow-on deadlock" "deadlock"
# ---- review27 L5: an xN tile in a loop of literal trips T < N plans slots no access touches ----
expect "xN over T < N trips: a warning" 0 \
    "^tests/user/r26a_short_loops.pto:4:10: warning: tile 'a' is x3 in a loop of 2 trips: slot 2 is never used \\(x2 holds as much and plans 4096 fewer bytes\\)$" \
    $ptoc check tests/user/r26a_short_loops.pto
holds "xN over T < N trips: several slots" "tile 'b' is x4 in a loop of 3 trips: slot 3 is never used"
lacks "xN over T >= N trips: none" "tile 'c' is x2"
# ---- review28 H1: a column reduction's valid columns differing at run time (pto-isa asserts) ----
expect "colsum dyn valid: the interpreter" 1 \
    "colsum_dyn_valid.pto:9:3: error: tcolsum: 'd' has 100 valid cols but 'a' has 64: a column reduction's result has exactly its source's valid columns" \
    $ptoc run tests/diag/colsum_dyn_valid.pto
holds "colsum dyn valid: the simulator" "^    colsum_dyn_valid.pto:9: error: tcolsum: the destination has 100 valid cols but the source has 64"
lacks "colsum dyn valid: no follow-on uninitialised read" "uninitialised"
expect "colsum dyn valid: equal at launch runs clean" 0 "^  simulator   no reports" $ptoc run -D C=64 tests/diag/colsum_dyn_valid.pto
# ---- review28 L1: a tload past its tensor at run time: one report, no uninitialised read after ----
expect "load oob at run time: reported" 1 "^    load_oob_runtime.pto:6: error: tload: window x\\[60, 0\\] of shape \\[16, 64\\] is outside tensor 'x'" \
    $ptoc run tests/diag/load_oob_runtime.pto
lacks "load oob at run time: no follow-on uninitialised read" "uninitialised"
# ---- an index expression that leaves int64 at run time (review28 L4): the simulated kernel computes the one
# product the emitter cannot bound with pto_k_imul, which reports it at its line and stops the launch (no signed
# overflow in the C: UBSan); a kernel whose dynamic indices are all bounded gets plain C and no report
expect "idx_overflow: the simulator stops at the overflow's line" 1 \
    "^    idx_overflow.pto:6: error: integer overflow in expression: 4 \\* 4611686018427387904 leaves int64 \\(block [01] aiv0\\); the launch stopped here$" \
    $ptoc run tests/diag/idx_overflow.pto
holds "idx_overflow: the result line names the reference's error" \
    "^  result      not compared: an integer overflow at idx_overflow.pto:6:13 \\(the error above\\) stops the reference$"
holds "idx_overflow: one report, nothing after it" "^  simulator   1 report$"
expect "idx_overflow, n = 0: clean" 0 "^  result      match \\(1 output\\)" $ptoc run -D n=0 tests/diag/idx_overflow.pto
expect "idx_overflow: the portable checks (no __builtin_mul_overflow) report it too" 1 \
    "^    idx_overflow.pto:6: error: integer overflow in expression: 4 \\* 4611686018427387904" \
    env PTO_CFLAGS=-DPTO_K__OVF_BUILTIN=0 $ptoc run tests/diag/idx_overflow.pto
if command -v tcc >/dev/null 2>&1; then
    expect "idx_overflow under tcc" 1 "^    idx_overflow.pto:6: error: integer overflow in expression" \
        $ptoc run --cc tcc tests/diag/idx_overflow.pto
fi
if echo 'int main(void) { return 0; }' | ${CC:-cc} -fsanitize=undefined -x c - -o $out/ubsan_probe >/dev/null 2>&1; then
    expect "idx_overflow under UBSan: reported" 1 "^    idx_overflow.pto:6: error: integer overflow in expression" \
        env PTO_CFLAGS="-fsanitize=undefined -fno-sanitize-recover=all" $ptoc run tests/diag/idx_overflow.pto
    lacks "idx_overflow under UBSan: no signed overflow executed" "runtime error"
fi
$ptoc emit tests/diag/idx_overflow.pto -o $out/iov >$out/log 2>&1 || bad "emit idx_overflow"
if [ "$(grep -c 'pto_k_i[a-z]*(' $out/iov/kernel.c)" = 1 ] && grep -q 'const int64_t c = pto_k_block_idx(core) \* 32;$' $out/iov/kernel.c; then
    ok "idx_overflow: one checked product, the bounded let plain"; else bad "idx_overflow: one checked product, the bounded let plain"; fi
expect "idx_dyn_ok: dynamic indices, no false report" 0 "^  simulator   no reports$" $ptoc run tests/diag/idx_dyn_ok.pto
holds "idx_dyn_ok: matches" "^  result      match \\(1 output\\)$"
$ptoc emit tests/diag/idx_dyn_ok.pto -o $out/idyn >$out/log 2>&1 || bad "emit idx_dyn_ok"
if grep -q 'pto_k_i[a-z]*(' $out/idyn/kernel.c; then bad "idx_dyn_ok: no checked helper"; else ok "idx_dyn_ok: no checked helper"; fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
