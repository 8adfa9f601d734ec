#!/bin/sh
# same_output.sh OLD_PTOC NEW_PTOC [REPO]: (for perf work: the output must not change) every .pto of the repo (and bench kernels of 1k and 10k instructions)
# through both compilers: sync, dump plan, dump sync, emit (sim and isa); prints the differing ones.
# Exit 0 when all outputs are byte-identical.
OLD=$1; NEW=$2; REPO=${3:-.}
T=$(mktemp -d); n=0; bad=0
[ -x "$REPO/build/bench/emit_bench" ] || { mkdir -p "$REPO/build/bench"; cc -I"$REPO" -O2 -o "$REPO/build/bench/emit_bench" "$REPO/bench/emit_bench.c" -lm; }
"$REPO/build/bench/emit_bench" --source 1000 > "$T/b1k.pto"
"$REPO/build/bench/emit_bench" --source 10000 > "$T/b10k.pto"
for f in $(find "$REPO" -name '*.pto' -not -path '*/build/*' | sort) "$T/b1k.pto" "$T/b10k.pto"; do
  for mode in sync dumpplan dumpsync emitsim emitisa; do
    for which in old new; do
      P=$OLD; [ $which = new ] && P=$NEW
      o="$T/$which"; rm -rf "$o"; mkdir -p "$o"
      case $mode in
        sync) "$P" sync "$f" > "$o/out" 2>&1; echo "rc=$?" >> "$o/out" ;;
        dumpplan) "$P" dump plan "$f" > "$o/out" 2>&1; echo "rc=$?" >> "$o/out" ;;
        dumpsync) "$P" dump sync "$f" > "$o/out" 2>&1; echo "rc=$?" >> "$o/out" ;;
        emitsim) "$P" emit "$f" -o "$o/d" > "$o/out" 2>&1; echo "rc=$?" >> "$o/out" ;;
        emitisa) "$P" emit --target isa "$f" -o "$o/d" > "$o/out" 2>&1; echo "rc=$?" >> "$o/out" ;;
      esac
      sed -i "s#$OLD#PTOC#g; s#$NEW#PTOC#g" "$o/out"
    done
    n=$((n+1))
    if ! diff -r "$T/old" "$T/new" > /dev/null 2>&1; then bad=$((bad+1)); echo "DIFFERS: $mode $f"; fi
  done
done
echo "$n comparisons, $bad differ"
rm -rf "$T"
[ $bad -eq 0 ]
