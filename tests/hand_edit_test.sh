#!/bin/sh
# hand_edit_test.sh - the README's promise that `ptoc run DIR` judges a hand
# edit of an emitted kernel.c, for edits other than deleting a sync (that is
# sync_necessity_test.sh): a rotating id fixed in one call (flag misuse), in
# every call of its pair (harmless: a stronger order), a wait moved after its
# consumer, a set moved above its producer, an xN slot rotation removed (all
# races), two waits' ids swapped (an id reused before its wait is ordered), a deleted set (a deadlock, and
# the run says that the mismatch and the cycles follow from it), and a
# wait_flag(V, S) moved above the set it waits for: S is the scalar unit,
# which stalls in the wait and never dispatches the set, a deadlock the
# simulator used to miss. Each edit is one sed or awk line on kernel.c.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/hand_edit
cc=cc
command -v tcc >/dev/null 2>&1 && cc=tcc
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$log" ] && tail -12 "$log"; }

# edit NAME EXAMPLE SCRIPT...: DIR = emitted EXAMPLE with kernel.c through SCRIPT (sed -e ... or awk ...)
edit() {
    d=$out/$1; ex=$2; shift 2
    $ptoc emit examples/$ex.pto -o $d >/dev/null 2>&1 || { echo "emit $ex failed"; return 1; }
    "$@" $d/kernel.c >$d/k.c && mv $d/k.c $d/kernel.c
}
# judge NAME WANT [PATTERN]: WANT clean (exit 0, no report) or fail (exit 1 and
# PATTERN in the output); the edit must have changed kernel.c
judge() {
    d=$out/$1; log=$d/log
    # shellcheck disable=SC2046
    $ptoc run $d --cc $cc $(sed -n 's/^# run: //p' examples/$3.pto | head -1) >$log 2>&1; rc=$?
    if [ "$2" = clean ]; then
        if [ $rc = 0 ] && grep -q "simulator   no reports" $log; then ok "$1: clean"; else bad "$1: expected clean (rc $rc)"; fi
    elif [ $rc = 1 ] && grep -q "$4" $log; then ok "$1: $4"
    else bad "$1: expected '$4' (rc $rc)"; fi
}
changed() { # NAME EXAMPLE: kernel.c differs from a fresh emit
    $ptoc emit examples/$2.pto -o $out/$1.orig >/dev/null 2>&1
    if cmp -s $out/$1.orig/kernel.c $out/$1/kernel.c; then bad "$1: the edit did not apply"; return 1; fi
}

# vadd: tile b moved onto tile a's bytes (both live): both loads run on MTE2 in order, so no race
# and no report; the mismatch note names the overwrite of bytes nothing had read (review21 L9)
edit alias vadd sed -e '/const pto_k_tile b = /s/32768 + (i % 2)/(i % 2)/'
changed alias vadd && judge alias fail vadd "note        no simulator report, but on .* tload (vadd.pto:10) overwrote vec bytes .* that tload (vadd.pto:9) had written and nothing had read"

# vadd: the V -> MTE2 wait before the tload rotates i % 2; fixed at 0 in that call only
edit rot1 vadd sed -e '/wait_flag(core, "vadd.pto:9", PTO_K_V, PTO_K_MTE2, i % 2)/s/i % 2)/0)/'
changed rot1 vadd && judge rot1 fail vadd "double set: set_flag(V, MTE2, 1)"
# ... at 0 in every call of the pair: iteration i waits for i - 1 instead of i - 2
edit rotall vadd sed -e '/PTO_K_V, PTO_K_MTE2, i % 2)/s/i % 2)/0)/'
changed rotall vadd && judge rotall clean vadd
# the MTE2 -> V wait moved after the tadd it orders
edit wdown vadd awk '/wait_flag\(core, "vadd.pto:11", PTO_K_MTE2, PTO_K_V/ { w = $0; next } { print } /pto_k_tadd\(/ && w { print w; w = "" }'
changed wdown vadd && judge wdown fail vadd 'tadd (V, block [0-9] aiv0) reads them while "vadd.pto:10" tload (MTE2, block [0-9] aiv0) wrote them unordered; missing set_flag(MTE2, V, id) / wait_flag(MTE2, V, id)'
# the MTE2 -> V set moved above the tload b it should follow (review20 L14): the hint names the set
# the edit moved, not a "missing" pair the kernel has
edit sflag vadd awk '/set_flag\(core, "vadd.pto:10", PTO_K_MTE2, PTO_K_V/ { next } /pto_k_tload\(core, "vadd.pto:10"/ { print "        pto_k_set_flag(core, \"vadd.pto:10\", PTO_K_MTE2, PTO_K_V, i % 2);" } { print }'
changed sflag vadd && judge sflag fail vadd 'tadd (V, block [0-9] aiv0) reads them while "vadd.pto:10" tload (MTE2, block [0-9] aiv0) wrote them unordered; the set_flag(MTE2, V, [01]) at "vadd.pto:10" is issued before the tload at "vadd.pto:10" it should follow: move it after the tload'
if ! grep -q "missing set_flag" $out/sflag/log; then ok "sflag: no 'missing set_flag'"; else bad "sflag: a 'missing set_flag' hint"; fi
# ... and the WAR V -> MTE2 set moved one line up, above the tadd (the reader of a and b) it should
# follow (review28 M2): the next-but-one tload into a's slot races with the tadd, and the hint names
# the set, though by then the other id's set (of the next iteration) is the newer one
edit swar vadd awk '/set_flag\(core, "vadd.pto:11", PTO_K_V, PTO_K_MTE2/ { next } /pto_k_tadd\(core, "vadd.pto:11"/ { print "        pto_k_set_flag(core, \"vadd.pto:11\", PTO_K_V, PTO_K_MTE2, i % 2);" } { print }'
changed swar vadd && judge swar fail vadd 'tload (MTE2, block [0-9] aiv0) writes them while "vadd.pto:11" tadd (V, block [0-9] aiv0) read them unordered; the set_flag(V, MTE2, [01]) at "vadd.pto:11" is issued before the tadd at "vadd.pto:11" it should follow: move it after the tadd'
if ! grep -q "missing set_flag" $out/swar/log; then ok "swar: no 'missing set_flag'"; else bad "swar: a 'missing set_flag' hint"; fi
# a's slot rotation removed: the next tload overwrites what this tadd reads
edit slot vadd sed -e '/const pto_k_tile a = /s/(i % 2) \* 16384)/0)/'
changed slot vadd && judge slot fail vadd 'tload (MTE2, block [0-9] aiv0) writes them while "vadd.pto:11" tadd (V, block [0-9] aiv0) read them unordered'
# vadd: tile b's two slots moved past the end of UB (review28 L9): one report per slot, not one per
# instruction on it in every iteration and block, and no efficiency figure for a run whose tadds
# and second tloads did not run; the tadds' destination c counts as written, so the tstores' reads
# of it draw no uninitialised read: one root cause (fix28a's leftover; was 3 distinct)
edit bcap vadd sed -e '/const pto_k_tile b = /s/32768 + (i % 2)/188416 + (i % 2)/'
changed bcap vadd && judge bcap fail vadd 'simulator   2 reports$'
if ! grep -q "uninitialised read" $out/bcap/log; then ok "bcap: no follow-on uninitialised read"; else bad "bcap: a follow-on uninitialised read"; fi
if grep -q '^  efficiency  - ([0-9]* instructions not run for the errors below: the cycles leave out their work)$' $out/bcap/log &&
   grep -q '^    vadd.pto:6: error: tdecl: tile past capacity: declared tile \[16, 256\] f32 at byte 204800 spans \[204800, 221184) but vec holds 196608 bytes on a2a3 (block [0-9] aiv0)$' $out/bcap/log &&
   [ "$(grep -c 'tile past capacity' $out/bcap/log)" = 2 ]
then ok "bcap: a report per slot, no efficiency figure"; else bad "bcap: a report per slot, no efficiency figure"; fi
# the MTE2 -> V wait before the tadd deleted (the README's example): the header counts the
# reports and how many distinct lines follow (review14: "66 reports" above 4 lines read wrong)
edit nowait vadd sed -e '/wait_flag(core, "vadd.pto:11", PTO_K_MTE2, PTO_K_V/d'
# (the two races, and per rotating id of MTE2 -> V a double set and an unbalanced flag, and V's
# next set of the slot-free id that nothing orders after MTE2's wait any more)
changed nowait vadd && judge nowait fail vadd "simulator   [0-9]* reports in all, 7 distinct (below; the others repeat them on other cores or in later iterations)$"
if [ "$(grep -c '^    vadd.pto:' $out/nowait/log)" = 7 ]; then ok "nowait: 7 distinct lines"; else bad "nowait: 7 distinct lines"; fi
# the set that releases the tadd deleted: a deadlock; the mismatch and cycles say they follow from it
edit noset vadd sed -e '/set_flag(core, "vadd.pto:10", PTO_K_MTE2, PTO_K_V, i % 2)/d'
changed noset vadd && judge noset fail vadd "wait_flag(MTE2, V, 0) can never be satisfied"
grep -q "note        the simulator reports a deadlock (below)" $out/noset/log && grep -q "cycles      [0-9]* (up to the deadlock)" $out/noset/log &&
    ok "noset: the note and the cycles say the deadlock came first" || bad "noset: no deadlock note"
# a wait whose set is queued behind another pipe's stuck wait says so (it said "no set_flag
# follows it" of a set the kernel has: review16)
grep -q 'wait_flag(V, MTE3, 0) is never satisfied: its set_flag at "vadd.pto:11" is queued on pipe V behind "vadd.pto:11", which never completes' $out/noset/log &&
    ok "noset: a knock-on wait names the set queued behind the stuck one" || bad "noset: the knock-on wait's report"

# mm: the two MTE2 -> MTE1 waits swap ids (each waits for the other load: both loads are in order on MTE2,
# so no race), but the later wait now consumes the id the first load sets again two iterations on, and only
# the earlier wait is ordered before that set: a set that may fire while the id is still set
edit swap mm sed -e '/wait_flag(core, "mm.pto:12", PTO_K_MTE2, PTO_K_MTE1, k \/ 64 % 2)/s/, k \/ 64 % 2);/, 2 + k \/ 64 % 2);/' -e '/wait_flag(core, "mm.pto:13", PTO_K_MTE2, PTO_K_MTE1, 2 + k \/ 64 % 2)/s/, 2 + k \/ 64 % 2);/, k \/ 64 % 2);/'
changed swap mm && judge swap fail mm 'unordered reuse: set_flag(MTE2, MTE1, 0) is not ordered after the wait_flag(MTE2, MTE1, 0) at "mm.pto:13"'
# ... and b1's MTE2 -> MTE1 pair deleted: a1's set (issued before the tload b1, consumed before the
# tmov b0) is no set moved up, so the hint stays "missing", not "move a1's set after the tload b1"
edit nopair mm sed -e '/set_flag(core, "mm.pto:11", PTO_K_MTE2, PTO_K_MTE1/d' -e '/wait_flag(core, "mm.pto:13", PTO_K_MTE2, PTO_K_MTE1/d'
changed nopair mm && judge nopair fail mm 'tmov (MTE1, block 0 aic) reads them while "mm.pto:11" tload (MTE2, block 0 aic) wrote them unordered; missing set_flag(MTE2, MTE1, id) / wait_flag(MTE2, MTE1, id)'
# the MTE1 -> M set moved above the tmov b0 it publishes
edit sup mm awk '/set_flag\(core, "mm.pto:13", PTO_K_MTE1, PTO_K_M, 0\)/ { next } /pto_k_tmov\(core, "mm.pto:13"/ { print "        pto_k_set_flag(core, \"mm.pto:13\", PTO_K_MTE1, PTO_K_M, 0);" } { print }'
changed sup mm && judge sup fail mm 'tmatmul (M, block 0 aic) reads them while "mm.pto:13" tmov (MTE1, block 0 aic) wrote them unordered; the set_flag(MTE1, M, 0) at "mm.pto:13" is issued before the tmov at "mm.pto:13" it should follow'

# mm: the left tile a0 cut to 120 rows (not whole 16-row fractals): the verifier refuses such a
# tile in a .pto, and so does the simulator in a hand edit (review20 L6: a left [64, 40] ran clean)
edit frac mm sed -e '/const pto_k_tile a0 = /s/PTO_K_F16, 128, 64, 128, 64,/PTO_K_F16, 120, 64, 120, 64,/'
changed frac mm && judge frac fail mm 'mm.pto:8: error: tdecl: the declared tile (left f16\[120, 64\]) is not whole fractals: left tiles are whole 16 x 16 fractals for f16, so rows must be a multiple of 16 and cols of 16'

# mixv2c: the vector's wait_flag(V, S) (before its tfree) moved up to right after the tpop, above
# the set_flag(MTE2, V) the tadd waits for: the stalled scalar unit never dispatches it (mixmm's
# last tfree has no such pair since review23 M3: no tpop follows it)
edit swait mixv2c awk '/wait_flag\(core, "mixv2c.pto:36", PTO_K_V, PTO_K_S, 0\)/ { next } { print } /pto_k_tpop\(core, "mixv2c.pto:34"/ { print "            pto_k_wait_flag(core, \"mixv2c.pto:36\", PTO_K_V, PTO_K_S, 0);" }'
changed swait mixv2c && judge swait fail mixv2c "mixv2c.pto:36: error: deadlock: wait_flag(V, S, 0) stalls the scalar unit, which dispatches nothing after it until set_flag(V, S, 0) fires, and none was issued before it: move the wait_flag after its set_flag"

# mixv2c: the vector's set_flag(MTE2, V, 1) after its tpop deleted (review22 L6): the wait on V it
# released is the root cause, not the wait_flag(V, S) behind it, which follows its set: no advice
# to move that one
edit dropset mixv2c sed -e '/set_flag(core, "mixv2c.pto:34", PTO_K_MTE2, PTO_K_V, 1)/d'
changed dropset mixv2c && judge dropset fail mixv2c 'mixv2c.pto:35: error: deadlock: wait_flag(MTE2, V, 1) can never be satisfied: no set_flag(MTE2, V, 1) follows it before the kernel ends; the scalar unit stalls behind it in wait_flag(V, S, 0) at "mixv2c.pto:36", whose set_flag at "mixv2c.pto:35" is queued on pipe V'
if ! grep -q "move the wait_flag" $out/dropset/log; then ok "dropset: no 'move the wait_flag'"; else bad "dropset: a 'move the wait_flag' advice"; fi

# mm: the M -> FIX pair (acc -> tstore) moved to id 5: legal in the ISA, but ids 3..7 of that pair
# hung a device (hardware.md section 4); the sync pass keeps to 0..2, the simulator refuses the others
edit mfix mm sed -e 's/PTO_K_M, PTO_K_FIX, 0)/PTO_K_M, PTO_K_FIX, 5)/'
changed mfix mm && judge mfix fail mm 'mm.pto:5: error: set_flag(M, FIX, 5): ids 3..7 of the M -> FIX pair deadlocked on a device (hardware.md section 4): use an id in 0..2, as the sync pass does'
# ... reported, then run as written: no race blaming a missing set_flag the edit kept, and the
# run went to its end (review16: "cycles N (up to the deadlock)" and a race followed it)
if ! grep -q "race\|up to the deadlock" $out/mfix/log; then ok "mfix: no knock-on race, cycles to the end"
else bad "mfix: a knock-on race or 'up to the deadlock'"; fi
# ... and the verifier warns about a hand-written one in a .pto
cat >$out/mfix.pto <<'EOF'
kernel mf(in a: f16[16, 16], in b: f16[16, 16], out c: f32[16, 16]) cube {
  tile am: mat f16[16, 16]
  tile bm: mat f16[16, 16]
  tile a0: left f16[16, 16]
  tile b0: right f16[16, 16]
  tile acc: acc f32[16, 16]
  tload am, a[0, 0]
  tload bm, b[0, 0]
  tmov a0, am
  tmov b0, bm
  tmatmul acc, a0, b0
  set_flag M, FIX, 4
  wait_flag M, FIX, 4
  tstore c[0, 0], acc
}
EOF
log=$out/mfix.log
$ptoc check $out/mfix.pto >$log 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "mfix.pto:12:20: warning: set_flag M, FIX with event id 4: ids 3..7 of the M -> FIX pair deadlocked on a device" $log &&
   grep -q "mfix.pto:13:21: warning: wait_flag M, FIX with event id 4" $log; then ok "mfix.pto: check warns about M -> FIX id 4"; else bad "mfix.pto: no warning (rc $rc)"; fi

# a gather to rank 0 with the pipe_barrier(ALL) before the notify deleted (review28 M3): each rank's
# tput (its tstore on MTE3) is no longer ordered before its notify, so rank 0's tload races with its
# own tput (an in-core pair: a missing flag) and with the other ranks' (a cross-rank race: no flag
# of rank 0 orders another rank's store). The cross-rank one is reported too, not folded into the
# in-core one's count with the in-core fix
cat >$out/gather.pto <<'EOF'
kernel gat(in x: f32[1, 64], inout gat: f32[8, 64] window, inout sig: i32[1, 8] window, out res: f32[8, 64]) vector ranks {
  tput gat@0[rank, 0], x[0, 0], 1, 64
  notify sig@0[0, 0], 1, add
  if rank == 0 {
    tile g: vec f32[8, 64] valid(nranks, 64)
    wait sig[0, 0], ge, nranks
    tload g, gat[0, 0]
    tstore res[0, 0], g
  }
}
EOF
d=$out/gather; log=$d/log
$ptoc emit $out/gather.pto -o $d >/dev/null 2>&1
sed -e '/pipe_barrier(core, "gather.pto:3", PTO_K_ALL)/d' $d/kernel.c >$d/k.c
if cmp -s $d/k.c $d/kernel.c; then bad "gather: the edit did not apply"; else
    mv $d/k.c $d/kernel.c
    $ptoc run $d --cc $cc --ranks 4 >$log 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q 'simulator   4 reports in all, 2 distinct' $log &&
       grep -q 'tload (MTE2, rank 0 block 0 aiv0) reads them while "gather.pto:2" tstore (MTE3, rank 0 block 0 aiv0) wrote them unordered; missing set_flag(MTE3, MTE2, id)' $log &&
       grep -q 'tload (MTE2, rank 0 block 0 aiv0) reads them while "gather.pto:2" tstore (MTE3, rank [123] block 0 aiv0) wrote them unordered; no cross-core flag, ring slot or signal orders rank [123] block 0 aiv0 before rank 0 block 0 aiv0' $log
    then ok "gather: the cross-rank race is a report of its own"; else bad "gather: cross-rank race (rc $rc)"; fi
    # ... and its hint names the notify rank 0's wait saw, which nothing fenced after the tstore (fix28a's leftover)
    if grep -q 'before rank 0 block 0 aiv0: its notify at "gather.pto:3", which a wait here saw, is not ordered after the tstore (a notify runs on the scalar pipe and can land before an earlier MTE3 instruction ends: fence it with a pipe_barrier(ALL) before the notify)$' $log
    then ok "gather: the cross-rank race names the unfenced notify"; else bad "gather: the unfenced notify"; fi
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
