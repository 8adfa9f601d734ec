#!/bin/sh
# run.sh - fuzz with libFuzzer + ASan + UBSan, seeded from examples/ and the
# .pto tests, for ${FUZZ_SECONDS:-60} seconds per target:
#   parse     the parser, verifier and printer (fuzz_parse.c: round trips)
#   pipeline  every pass after them and both emitters (fuzz_pipeline.c: no
#             crash, no internal error, deterministic emission)
#   interp    the reference interpreter on the kernel as written and as
#             compiled (fuzz_interp.c: the passes change no result)
# FUZZ_TARGETS picks them (default: all three). A crashing input is
# left in build/fuzz/TARGET/ (crash-*, timeout-*); copy it to
# tests/fuzz/regress/ so that make test replays it forever (test_roundtrip
# for the parser, test_pipeline_replay and test_interp_replay for the rest).
cd "$(dirname "$0")/../.." || exit 1
CC=${FUZZ_CC:-clang}
root=$(pwd)
status=0
for target in ${FUZZ_TARGETS:-parse pipeline interp}; do
    out=build/fuzz/$target
    mkdir -p $out/corpus $out/seeds
    $CC -g -O1 -std=c99 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -ffp-contract=off -D_POSIX_C_SOURCE=200809L -o $out/fuzz_$target tests/fuzz/fuzz_$target.c -lm || exit 1
    for f in examples/*.pto tests/*/*.pto tests/fuzz/seeds/* tests/fuzz/regress/*; do
        [ -f "$f" ] && cp "$f" $out/seeds/
    done
    echo "== fuzz_$target for ${FUZZ_SECONDS:-60} s"
    (cd $out && ./fuzz_$target -dict="$root/tests/fuzz/pto.dict" -max_total_time="${FUZZ_SECONDS:-60}" \
        -max_len=4096 -timeout=20 -print_final_stats=1 ${FUZZ_ARGS:-} corpus seeds) || status=1
done
exit $status
