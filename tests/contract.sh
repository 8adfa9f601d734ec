#!/bin/sh
# contract.sh - the compile contract of pto.h: it must build cleanly with gcc
# and clang in strict C99, as C++, under tcc -run, included twice, with
# PTO_STATIC; and it must not be stale against src/.
cd "$(dirname "$0")/.." || exit 1
out=build/contract
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && head -20 $out/log; }
try() { name=$1; shift; if "$@" >$out/log 2>&1; then ok "$name"; else bad "$name"; fi; }

cat > $out/use.c <<'C'
#define PTO_IMPLEMENTATION
#include "pto.h"
#include "pto.h"   /* twice: the guards must hold */
int main(void)
{
    pto_ctx *ctx = pto_ctx_create(NULL);
    pto_module *m = pto_module_create(ctx, PTO_ARCH_A2A3);
    pto_loc loc = {0, 1, 1};
    int32_t k = pto_add_kernel(m, "k", PTO_KK_VECTOR, loc);
    int ok = k == 0 && pto_op_lookup("tadd", 4) == PTO_OP_TADD;
    pto_module_destroy(m);
    pto_ctx_destroy(ctx);
    return ok ? 0 : 1;
}
C
cat > $out/other.c <<'C'
#include "pto.h"
int pto_other(void) { return pto_dtype_size(PTO_F16); }
C
W="-Wall -Wextra -pedantic -Werror"
try "amalgamation is fresh" ${AMALGAMATE:-./build/amalgamate} --check
try "gcc -std=c99" sh -c "gcc -std=c99 $W -I. $out/use.c $out/other.c -lm -o $out/a && $out/a"
try "clang -std=c99" sh -c "clang -std=c99 $W -I. $out/use.c $out/other.c -lm -o $out/b && $out/b"
# as make test builds build/pto.o: the header is the main file, where clang
# reports static inline functions nothing calls (gcc does not)
try "clang pto.h as its own unit" clang -std=c99 $W -D_POSIX_C_SOURCE=200809L -DPTO_IMPLEMENTATION -x c -c -o $out/pto.o pto.h
try "clang pto_kernels.h as its own unit" clang -std=c99 $W -D_POSIX_C_SOURCE=200809L -x c -c -o $out/k.o pto_kernels.h
try "g++ as C++" sh -c "g++ -x c++ -std=c++11 -Wall -Wextra -Werror -I. $out/use.c -o $out/c && $out/c"
try "tcc -run" sh -c "tcc -I. -run $out/use.c"
try "PTO_STATIC" sh -c "gcc -std=c99 $W -DPTO_STATIC -I. $out/use.c -lm -o $out/d && $out/d"
try "gcc -O2 -std=c99 pto_kernels.h" sh -c "printf '#include \"pto_kernels.h\"\n#include \"pto_kernels.h\"\nint main(void){return 0;}\n' > $out/k.c && gcc -std=c99 $W -I. $out/k.c -lm -o $out/k && $out/k"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
