#!/bin/sh
# gm_carried_test.sh - loop-carried GM dependencies through an inout tensor
# (src/sync.c section 1, pto__sy_apart_loop; review29 M1). Each kernel of
# tests/gm_carried/ says what the sync pass must do with the dependency from
# a tstore of y to a tload of y in a later iteration:
#   # expect: apart    every iteration distance keeps the windows apart: no
#                      "gm y ... -> next" pair (a load would wait for the
#                      previous store: review29's k04d ran 9186 cycles, the
#                      hand-synchronised kernel 5572);
#   # expect: carried  the windows meet at some distance (stride 8 with
#                      16-row tiles, a 32-row store window, an outer loop's
#                      variable, a negative stride onto the stored rows, a
#                      far distance within a literal trip count or a
#                      launch-time one): the pair stays, and the planted bug
#                      (the kernel synchronised as if its loads read another
#                      tensor, then read y again: what a wrong proof would
#                      give) must make the simulator report a race on gm y.
#   # expect: kept     the pair stays, checked on `ptoc sync` only (the proof
#                      gave up: its arithmetic would overflow int64).
#   # cycles: N        ptoc run's cycles exactly (the hand-synchronised figure).
# Every other kernel also runs (ptoc run: simulator against the reference
# interpreter, the file's `# run:` options) with a match and no report.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/gm_carried_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -5 $out/log; }
field() { sed -n "s/^# $1: *//p" "$2" | head -1; }

if ! grep -q "pto_k_launch(pto_k_device" pto_kernels.h 2>/dev/null; then
    echo "skip: pto_kernels.h has no simulator yet"
    echo "$pass passed, $fail failed"
    exit 0
fi

# The kernel with its loads of y reading w (y's shape) instead, synchronised,
# then reading y again: $out/planted.pto.
plant() { # SRC
    shape=$(sed -n 's/.*inout y: \(f32\[[^]]*\]\).*/\1/p' "$1" | head -1)
    awk -v s="in w: $shape, " '{ i = index($0, "inout y: "); if (i) $0 = substr($0, 1, i - 1) s substr($0, i)
        gsub(/tload t, y\[/, "tload t, w["); print }' "$1" >$out/w.pto
    $ptoc dump sync $out/w.pto | awk -v s="in w: $shape, " '{ i = index($0, s); if (i) $0 = substr($0, 1, i - 1) substr($0, i + length(s))
        gsub(/tload t, w\[/, "tload t, y["); print }' >$out/planted.pto
}

for f in tests/gm_carried/*.pto; do
    n=$(basename "$f" .pto)
    want=$(field expect "$f")
    defs=$(field run "$f")
    if [ "$want" = kept ]; then
        $ptoc sync "$f" >$out/log 2>&1
        if grep -q "RAW gm y tstore y .* -> next tload" $out/log; then ok "$n: the pair stays"; else bad "$n: the pair is gone"; fi
        continue
    fi
    # shellcheck disable=SC2086
    if $ptoc run "$f" $defs >$out/log 2>&1 && grep -q "result *match" $out/log && grep -q "simulator *no reports" $out/log \
        && ! grep -q "error\|warning" $out/log; then ok "$n runs clean"; else bad "$n runs clean"; fi
    cyc=$(sed -n 's/^  cycles *\([0-9]*\).*/\1/p' $out/log)
    c=$(field cycles "$f")
    if [ -n "$c" ]; then
        if [ "$cyc" = "$c" ]; then ok "$n: $cyc cycles"; else bad "$n: $cyc cycles, want $c"; fi
    fi
    $ptoc sync "$f" >$out/log 2>&1
    has=0; grep -q "RAW gm y tstore y .* -> next tload" $out/log && has=1
    case $want in
    apart)   if [ $has = 0 ]; then ok "$n: no carried GM pair"; else bad "$n: a carried GM pair"; fi ;;
    carried) if [ $has = 1 ]; then ok "$n: the carried GM pair stays"; else bad "$n: the carried GM pair is gone"; fi
             plant "$f"
             # shellcheck disable=SC2086
             $ptoc run --no-sync $out/planted.pto $defs >$out/log 2>&1
             if grep -q "error: race on gm y" $out/log; then ok "$n: without it, a race on gm y"
             else bad "$n: without it, no race on gm y (the test proves nothing)"; fi ;;
    *)       bad "$n: no '# expect: apart|carried' line" ;;
    esac
done
echo "$pass passed, $fail failed"
