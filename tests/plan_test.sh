#!/bin/sh
# plan_test.sh - `ptoc plan` end to end: the table and map of the examples,
# pins from .pto text, the overflow and pin errors with exact text and exit
# status, --tight and --svg.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/plan_test
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
# has NAME FILE TEXT: FILE contains the line TEXT exactly
has() { if grep -qxF -- "$3" "$2"; then ok "$1"; else bad "$1"; echo "  wanted: $3"; head -20 "$2"; fi; }
rc()  { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (exit $2, wanted $3)"; fi; }

$ptoc plan examples/vadd.pto >$out/vadd.txt 2>&1; rc "vadd plans" $? 0
has "vadd table a" $out/vadd.txt "  a = a            vec    0x000000    32768  x2  lines 4-12"
has "vadd table c" $out/vadd.txt "  c = c            vec    0x010000    32768  x2  lines 4-12"
has "vadd summary" $out/vadd.txt "  vec: peak 98304 of 196608 bytes (50.0%), lower bound 98304 (live at line 4)"
has "vadd level" $out/vadd.txt "    level separate (no byte shared across pipes), order largest-first, first-fit"
has "vadd map" $out/vadd.txt "    line    4 |aaaaaaaaaaabbbbbbbbbbccccccccccc................................|"

$ptoc plan --tight examples/softmax.pto >$out/softmax.txt 2>&1; rc "softmax --tight plans" $? 0
has "softmax tight level" $out/softmax.txt "    level tight (bytes reused across pipes: adds waits between pipes), order largest-first, first-fit"
has "softmax small tiles visible" $out/softmax.txt "    line   10 |aab.............................................................|"

$ptoc plan examples/mm.pto >$out/mm.txt 2>&1; rc "mm plans" $? 0
has "mm left" $out/mm.txt "  a = a0           left   0x000000    32768  x2  lines 5-17"

$ptoc plan tests/plan/pins.pto >$out/pins.txt 2>&1; rc "pins plan" $? 0
has "pin honoured" $out/pins.txt "  a = p            vec    0x001000     8192  x1  lines 6-8  pinned"
has "planned around the pin" $out/pins.txt "  b = q            vec    0x003000     8192  x1  lines 7-8"

$ptoc plan tests/plan/overflow.pto >$out/overflow.txt 2>&1; rc "overflow exit" $? 1
has "overflow message" $out/overflow.txt "tests/plan/overflow.pto:10:3: error: kernel 'big': vec overflows: needs 262144 bytes, capacity 196608; at line 10, 4 tiles are live (262144 bytes), largest first: a 65536 (line 3), b 65536 (line 4), c 65536 (line 5), d 65536 (line 6)"

# review23 L5: a group that fits exactly but not by any order and fit gets a complete search
$ptoc plan tests/plan/exact_fit.pto >$out/exact.txt 2>&1; rc "exact fit plans" $? 0
has "exact fit: the whole space" $out/exact.txt "  vec: peak 196608 of 196608 bytes (100.0%), lower bound 196608 (live at line 15)"
has "exact fit: by the search" $out/exact.txt "    level tight (bytes reused across pipes: adds waits between pipes), order none (a complete search), the first placement that fits"
$ptoc run tests/plan/exact_fit.pto >$out/exact_run.txt 2>&1; rc "exact fit runs clean" $? 0

$ptoc plan tests/plan/pin_overlap.pto >$out/overlap.txt 2>&1; rc "pin overlap exit" $? 1
has "pin overlap message" $out/overlap.txt "tests/plan/pin_overlap.pto:4:8: error: pinned tiles 'p' and 'q' overlap at vec bytes [0x2000, 0x3000) while both live"

rm -f $out/vadd.svg
$ptoc plan --svg $out/vadd.svg examples/vadd.pto >/dev/null 2>&1; rc "svg exit" $? 0
if head -c 4 $out/vadd.svg 2>/dev/null | grep -q '<svg' && grep -q '</svg>' $out/vadd.svg && [ "$(grep -c '<rect' $out/vadd.svg)" = 4 ]; then
    ok "svg written: a frame and three tiles"; else bad "svg written"; fi

# review27 L8: an SVG that cannot be written is the error, and no plan is printed as if all went well
$ptoc plan --svg /nonexistent/dir/x.svg examples/vadd.pto >$out/nosvg.txt 2>$out/nosvg.err; rc "svg unwritable exit" $? 1
has "svg unwritable: said" $out/nosvg.err "ptoc: error: cannot write '/nonexistent/dir/x.svg': No such file or directory"
if [ -s $out/nosvg.txt ]; then bad "svg unwritable: no plan printed"; else ok "svg unwritable: no plan printed"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
