#!/bin/sh
# docs_test.sh - every .pto example in README.md and docs/*.md does what the
# page says it does. The docs fence their examples so that this script can
# find them:
#   ```pto     a whole .pto file: `ptoc check` passes with no diagnostic and
#              `ptoc run` matches the interpreter (its "# run:" line, if any,
#              gives -D / --ranks), unless an ```error block follows it
#   ```error   right after a ```pto block (blank lines between only): each
#              line is a diagnostic that `ptoc check` of that block prints
#              (or, when check passes, `ptoc run`); the block is written to
#              the FILE named by the first line's FILE:LINE:COL, and check
#              must exit 1 when a line says "error:", 0 when none does
#              (warnings only)
# Other fences (```text for grammar and fragments, ```c, ```cpp, bare ```
# for commands and output) are not run; but any block right after a line
# <!-- docs_test: COMMAND --> must be (part of) what COMMAND prints (below).
# Last, every op of src/ir.h's PTO_OPS must have a row in pto-format.md's op
# tables and appear in one of its ```pto examples.
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-$(pwd)/build/ptoc}
out=build/docs_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -20 $out/log; }

# split every page into numbered blocks: $out/N.LANG holds the body,
# $out/N.where "PAGE:LINE"; an ```error block right after a ```pto block
# becomes $out/M.error with M the pto block's number
for page in README.md docs/*.md; do
    awk -v out="$out" -v page="$page" '
        BEGIN { n = 0; while ((getline l < (out "/count")) > 0) n = l + 0 }
        /^```/ {
            if (!inb) {
                lang = substr($0, 4); gsub(/[ \t]/, "", lang)
                inb = 1; start = NR
                if (lang == "error" && lastpto && gap == 0) { file = out "/" lastn ".error" }
                else if (lang == "pto") { n++; file = out "/" n ".pto"; print page ":" NR > (out "/" n ".where"); lastn = n }
                else file = ""
                if (file != "") printf "" > file
                next
            } else {
                inb = 0; if (file != "") close(file)
                lastpto = (lang == "pto"); gap = 0; next
            }
        }
        inb && file != "" { print > file; next }
        !inb && $0 !~ /^[ \t]*$/ { gap = 1 }
        END { print n > (out "/count") }
    ' "$page"
done

n=$(cat $out/count)
i=1
while [ $i -le "$n" ]; do
    src=$out/$i.pto
    where=$(cat $out/$i.where)
    d=$out/k$i; mkdir -p $d
    if [ -f $out/$i.error ]; then
        name=$(sed -n '1s/^\([^:]*\):.*/\1/p' $out/$i.error)
        [ -n "$name" ] || name=k.pto
        cp $src $d/$name
        (cd $d && "$ptoc" check $name) >$d/out 2>&1; rc=$?
        if [ $rc = 0 ]; then
            (cd $d && "$ptoc" run $name) >>$d/out 2>&1
        fi
        missing=0
        while IFS= read -r line; do
            [ -z "$line" ] && continue
            if ! grep -qxF -- "$line" $d/out; then
                missing=1; echo "  not printed: $line" >>$d/out
            fi
        done <$out/$i.error
        if grep -q ': error: ' $out/$i.error && [ $rc = 0 ] && ! grep -q 'deadlock\|never returns' $out/$i.error; then
            missing=1; echo "  check exited 0" >>$d/out
        fi
        if ! grep -q ': error: ' $out/$i.error && [ $rc != 0 ]; then
            missing=1; echo "  check exited $rc on warnings only" >>$d/out
        fi
        cp $d/out $out/log
        if [ $missing = 0 ]; then ok "$where: the error shown"; else bad "$where: the error shown"; fi
    else
        cp $src $d/k.pto
        if (cd $d && "$ptoc" check k.pto) >$out/log 2>&1 && [ ! -s $out/log ]; then
            ok "$where: check"
        else
            bad "$where: check"
        fi
        if (cd $d && "$ptoc" run k.pto) >$out/log 2>&1 && grep -q '^  result      match' $out/log; then
            ok "$where: run matches"
        else
            bad "$where: run matches"
        fi
    fi
    i=$((i + 1))
done

# output shown in the docs: a fenced block right after a line
#   <!-- docs_test: COMMAND -->
# is (part of) what COMMAND, run by sh from the top of the repository,
# prints: every line of the block is a line of the output, except that "..."
# alone stands for lines left out, and "..." after some text for the rest of
# a line that starts with that text
for page in README.md docs/*.md; do
    awk -v out="$out" -v page="$page" '
        /^<!-- docs_test: .* -->$/ { cmd = substr($0, 17, length($0) - 20); want = NR; next }
        /^```/ {
            if (!inb) {
                inb = 1
                if (cmd != "" && want == NR - 1) {
                    c++; file = out "/c" c ".expect"; printf "" > file
                    print cmd > (out "/c" c ".cmd"); close(out "/c" c ".cmd")
                    print page ":" NR > (out "/c" c ".where"); close(out "/c" c ".where")
                } else file = ""
                cmd = ""; next
            }
            inb = 0; if (file != "") close(file); file = ""; next
        }
        inb && file != "" { print > file }
    ' "$page"
    for e in $out/c*.expect; do
        [ -f "$e" ] || continue
        b=${e%.expect}; mv $e $b.$(basename "$page" .md).want; mv $b.cmd $b.$(basename "$page" .md).cmd
        mv $b.where $b.$(basename "$page" .md).where
    done
done
for want in $out/c*.want; do
    [ -f "$want" ] || continue
    b=${want%.want}
    where=$(cat $b.where)
    # the docs say build/ptoc (what `make` builds); run this build's ($PTOC: build/san/ptoc under test-sanitize)
    sh -c "$(sed "s#build/ptoc#$ptoc#g" $b.cmd)" >$b.got 2>&1
    missing=0
    while IFS= read -r line; do
        t=$(printf '%s' "$line" | sed 's/^ *//')
        case "$t" in ""|...*) continue ;; esac
        case "$line" in
        *...*)  # "..." elides the rest of the line: the part before it starts one
            pre=${line%%...*}
            if ! P="$pre" awk 'index($0, ENVIRON["P"]) == 1 { f = 1 } END { exit !f }' $b.got; then
                missing=1; echo "  not printed: $line" >>$b.got
            fi ;;
        *)  if ! grep -qxF -- "$line" $b.got; then missing=1; echo "  not printed: $line" >>$b.got; fi ;;
        esac
    done <$want
    cp $b.got $out/log
    if [ $missing = 0 ]; then ok "$where: the output shown"; else bad "$where: the output shown"; fi
done

rm -f $out/log
# every op of the op table (PTO_OPS in src/ir.h) has a row in
# docs/pto-format.md's op tables and is used by one of its ```pto examples
for op in $(sed -n 's/^ *X([A-Z_]*, *"\([a-z_]*\)".*/\1/p' src/ir.h); do
    if grep -q "^| \([a-z_]* \)*$op[ |]" docs/pto-format.md; then
        ok "op $op: in the op tables"
    else
        bad "op $op: in the op tables"
    fi
    if cat $out/*.pto | grep -q "^ *$op "; then ok "op $op: in an example"; else bad "op $op: in an example"; fi
done

[ "$n" -ge 10 ] && ok "the docs hold $n .pto examples" || bad "the docs hold $n .pto examples (fences lost?)"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
