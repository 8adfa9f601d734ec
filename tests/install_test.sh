#!/bin/sh
# install_test.sh - `make install PREFIX=...` gives a working toolchain:
#   - pto.h, pto_kernels.h land in PREFIX/include and ptoc in PREFIX/bin;
#   - the installed ptoc, run from a directory outside the repo with no
#     headers around and no PTO_INCLUDE, finds PREFIX/include on its own
#     (ptoc looks next to its binary: ../include) and runs an example to a
#     match on the simulator;
#   - the same binary copied where no ../include exists fails with the
#     "cannot find pto.h" message and exit status 1 (the search is real);
#   - a C API program (examples/api_resadd.c) builds against the installed
#     pto.h alone and runs through the installed ptoc;
#   - DESTDIR stages the same layout under a root.
cd "$(dirname "$0")/.." || exit 1
repo=$(pwd)
tmp=$(mktemp -d /tmp/pto-install-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$tmp/log" ] && tail -20 "$tmp/log"; }
try() { name=$1; shift; if "$@" >"$tmp/log" 2>&1; then ok "$name"; else bad "$name"; fi; }
unset PTO_INCLUDE

pre=$tmp/prefix
try "make install PREFIX=$pre" ${MAKE:-make} -s install PREFIX="$pre"
for f in include/pto.h include/pto_kernels.h bin/ptoc; do
    try "installed $f" test -f "$pre/$f"
done
try "installed pto.h is the repo's" cmp "$pre/include/pto.h" pto.h
try "ptoc is executable" test -x "$pre/bin/ptoc"

# run from outside the repo: only the .pto file in the working directory
mkdir -p "$tmp/work"
cp examples/vadd.pto "$tmp/work/"
cd "$tmp/work" || exit 1
if "$pre/bin/ptoc" run vadd.pto >"$tmp/log" 2>&1 && grep -q "result      match" "$tmp/log" &&
   grep -q "simulator   no reports" "$tmp/log"; then ok "installed ptoc runs vadd from outside the repo"
else bad "installed ptoc runs vadd from outside the repo"; fi
try "no headers were copied into the working directory" test ! -e pto.h

# the same binary without ../include next to it must not find headers
mkdir -p "$tmp/lonely/bin"
cp "$pre/bin/ptoc" "$tmp/lonely/bin/"
"$tmp/lonely/bin/ptoc" run vadd.pto >"$tmp/log" 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "cannot find pto.h and pto_kernels.h" "$tmp/log"; then ok "ptoc without ../include says so (exit 1)"
else bad "ptoc without ../include says so (exit 1, got $rc)"; fi
try "PTO_INCLUDE points the lonely ptoc at the headers" env PTO_INCLUDE="$pre/include" "$tmp/lonely/bin/ptoc" run vadd.pto

# a C API program against the installed header only
try "api_resadd builds against PREFIX/include" \
    ${CC:-cc} -std=c99 -Wall -Wextra -pedantic -Werror -I"$pre/include" -o "$tmp/api" "$repo/examples/api_resadd.c" -lm
if "$tmp/api" "$tmp/work/api" "$pre/bin/ptoc" >"$tmp/log" 2>&1 && grep -q "result      match" "$tmp/log"; then
    ok "api_resadd runs through the installed ptoc"
else bad "api_resadd runs through the installed ptoc"; fi
cd "$repo" || exit 1

# DESTDIR staging
try "make install DESTDIR" ${MAKE:-make} -s install DESTDIR="$tmp/root" PREFIX=/opt/pto
try "DESTDIR layout" test -f "$tmp/root/opt/pto/include/pto_kernels.h" -a -x "$tmp/root/opt/pto/bin/ptoc"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
