#!/bin/sh
# cache_test.sh - ptoc run's object cache (pto.h's implementation compiled
# once, host.c built against it with PTO_IMPLEMENTATION_LINKED):
#   - the first run makes one object and matches; a second run of another
#     kernel reuses it (still one object) and matches, under cc and tcc
#     (one object each: the compiler is part of the key, and so is its
#     version: a compiler of the same name that says another version
#     gets an object of its own);
#   - an object that does not link (garbage planted in its place) costs a
#     one-file build, which matches, and the bad object is removed (the
#     next run compiles it again);
#   - an emitted directory with a pto.h of its own gets an object of that
#     pto.h, not of the installed one;
#   - a hand edit that does not compile fails the run with the compiler's
#     error, printed once; a warning (PTO_CFLAGS=-Wall) is shown too;
#   - PTOC_CACHE=off makes no object; an object unused for 30 days is
#     removed by the next miss;
#   - run's scratch directory is made in $TMPDIR and removed, all of it.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/cache_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -20 $out/log; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
# run NAME ARGS...: ptoc run must match
run() {
    name=$1; shift
    "$ptoc" run "$@" >$out/log 2>&1; rc=$?
    if [ $rc = 0 ] && grep -q "^  result      match" $out/log; then ok "$name"; else bad "$name (exit $rc)"; fi
}
objects() { ls "$1" 2>/dev/null | grep -c '^pto-.*\.o$'; }

export PTOC_CACHE=$PWD/$out/c1
run "first run matches" examples/vadd.pto
check "the first run made one object" '[ "$(objects $out/c1)" = 1 ]'
obj=$(ls $out/c1/pto-*.o)
touch -d '2 days ago' "$obj"
run "second run (another kernel) matches" examples/softmax.pto
check "the second run reused it" '[ "$(objects $out/c1)" = 1 ] && [ -f "$obj" ]'
check "a hit refreshes the object's time" '[ -z "$(find "$obj" -mtime +1)" ]'
if command -v tcc >/dev/null; then
    run "tcc run matches" --cc tcc examples/vadd.pto
    run "tcc run again matches" --cc tcc examples/softmax.pto
    check "tcc has an object of its own" '[ "$(objects $out/c1)" = 2 ]'
fi

# the same compiler command upgraded: its version is part of the key
export PTOC_CACHE=$PWD/$out/c4
mkdir -p $out/bin
printf '#!/bin/sh\nif [ "$1" = --version ]; then echo "fakecc $FAKE_VER"; exit 0; fi\nexec cc "$@"\n' >$out/bin/fakecc
chmod +x $out/bin/fakecc
FAKE_VER=1 run "fakecc 1 matches" --cc $out/bin/fakecc examples/vadd.pto
FAKE_VER=2 run "fakecc 2 (an upgrade) matches" --cc $out/bin/fakecc examples/vadd.pto
check "the upgraded compiler got an object of its own" '[ "$(objects $out/c4)" = 2 ]'
FAKE_VER=1 run "fakecc 1 again matches" --cc $out/bin/fakecc examples/vadd.pto
check "and version 1 reused its own" '[ "$(objects $out/c4)" = 2 ]'

export PTOC_CACHE=$PWD/$out/c2
run "makes an object" examples/vadd.pto
obj=$(ls $out/c2/pto-*.o)
echo "not an object" >"$obj"
run "a bad object falls back to the one-file build" examples/vadd.pto
check "the bad object was removed" '[ ! -f "$obj" ]'
run "the next run matches" examples/vadd.pto
check "and compiled the object again" '[ -f "$obj" ] && [ "$(objects $out/c2)" = 1 ]'

"$ptoc" emit examples/vadd.pto -o $out/own >$out/log 2>&1 || bad "emit vadd"
{ echo "/* a copy of pto.h beside host.c */"; cat pto.h; } >$out/own/pto.h
run "an emitted dir with its own pto.h matches" $out/own
check "its pto.h got an object of its own" '[ "$(objects $out/c2)" = 2 ]'
sed 's/^static void kernel_/static void kernel_ int/' $out/own/kernel.c >$out/own/k && mv $out/own/k $out/own/kernel.c
"$ptoc" run $out/own >$out/log 2>&1; rc=$?
check "a hand edit that does not compile fails" '[ $rc != 0 ] && grep -q "failed to compile" $out/log'
check "the compiler's error is printed once" '[ "$(grep -c "kernel.c:.*error" $out/log)" = 1 ]'

# the compiler's warnings on a hand edit still show (PTO_CFLAGS=-Wall), from the linked build
"$ptoc" emit examples/vadd.pto -o $out/warn >$out/log 2>&1 || bad "emit vadd"
echo "static int hand_edit_unused(void) { return 0; }" >>$out/warn/kernel.c
PTO_CFLAGS=-Wall "$ptoc" run $out/warn >$out/log 2>&1; rc=$?
check "a hand edit's warning is shown and the run matches" \
    '[ $rc = 0 ] && grep -q "hand_edit_unused.*defined but not used\|unused function .hand_edit_unused" $out/log && grep -q "result      match" $out/log'

export PTOC_CACHE=off
run "PTOC_CACHE=off matches" examples/vadd.pto
mkdir -p $out/tmp
TMPDIR=$PWD/$out/tmp run "a run in \$TMPDIR matches" examples/vadd.pto
TMPDIR=$PWD/$out/tmp "$ptoc" run --sweep --sweep-runs 2 examples/softmax.pto >$out/log 2>&1 || bad "a sweep in \$TMPDIR"
check "runs leave nothing in \$TMPDIR" '[ -d $out/tmp ] && [ -z "$(ls -A $out/tmp)" ]'
export PTOC_CACHE=$PWD/$out/c3
mkdir -p $out/c3
touch -d '40 days ago' $out/c3/pto-0000000000000000.o
touch $out/c3/pto-1111111111111111.o
run "a miss matches" examples/vadd.pto
check "the miss removed the object unused for 40 days, kept the new one" \
    '[ ! -f $out/c3/pto-0000000000000000.o ] && [ -f $out/c3/pto-1111111111111111.o ] && [ "$(objects $out/c3)" = 2 ]'
check "PTOC_CACHE=off made nothing" '[ ! -e off ]'

# what a failed compile says (review20 L9): a compiler the shell cannot find, by name; a FILE's
# C by the FILE (not a scratch path already removed); an isa DIR, that it is one
$ptoc run --cc pto-no-such-cc examples/vadd.pto >$out/log 2>&1; rc=$?
check "a missing compiler: said" '[ $rc = 1 ] && grep -q "cannot run the C compiler .pto-no-such-cc. (give one with --cc or \$CC)" $out/log'
$ptoc run --cc false examples/vadd.pto >$out/log 2>&1; rc=$?
check "a failed compile names the FILE" '[ $rc = 1 ] && grep -q "false failed to compile the C that ptoc emitted from examples/vadd.pto" $out/log'
rm -rf $out/isa && $ptoc emit --target isa examples/vadd.pto -o $out/isa >/dev/null 2>&1
$ptoc run $out/isa >$out/log 2>&1; rc=$?
check "an isa DIR: said" '[ $rc = 1 ] && grep -q "holds the isa target.s kernel.cpp" $out/log'
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
