#!/bin/sh
# run.sh - fuzz the parser and printer for ${FUZZ_SECONDS:-60} seconds with
# libFuzzer + ASan + UBSan, seeded from examples/ and the .pto tests.
# A crashing input is left in build/fuzz/ (crash-*); copy it to
# tests/fuzz/regress/ so that test_roundtrip replays it forever.
cd "$(dirname "$0")/../.." || exit 1
out=build/fuzz
mkdir -p $out/corpus $out/seeds
CC=${FUZZ_CC:-clang}
$CC -g -O1 -std=c99 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -ffp-contract=off -D_POSIX_C_SOURCE=200809L -o $out/fuzz_parse tests/fuzz/fuzz_parse.c -lm || exit 1
for f in examples/*.pto tests/parse/*.pto tests/bad/*.pto tests/fuzz/seeds/* tests/fuzz/regress/*; do
    [ -f "$f" ] && cp "$f" $out/seeds/
done
cd $out || exit 1
./fuzz_parse -dict=../../tests/fuzz/pto.dict -max_total_time="${FUZZ_SECONDS:-60}" -max_len=4096 -timeout=10 \
    -print_final_stats=1 ${FUZZ_ARGS:-} corpus seeds
