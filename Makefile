# pto - the two commands of the README:
#   make        build pto.h, pto_kernels.h and ptoc, then run the demo
#   make test   run every test (last line: "N passed, N failed")
# Others: make test-sanitize | fuzz | bench | install PREFIX=... | clean

CC      ?= cc
HOSTCC  ?= cc
PREFIX  ?= /usr/local
WARN     = -Wall -Wextra -pedantic -Werror
CFLAGS  ?= -O2 -g
# no fused multiply-add: the interpreter and the kernels must agree bit for bit
BASEFLAGS = -std=c99 $(WARN) -ffp-contract=off -I.
TESTFLAGS = $(BASEFLAGS) -D_POSIX_C_SOURCE=200809L
B = build
# ptoc run's object cache (README, "ptoc run"): the build's own, so make
# and make test leave nothing in $HOME
PTOC_CACHE ?= $(CURDIR)/build/cache
export PTOC_CACHE

SRC       = $(wildcard src/*.h src/*.c src/kern/*.h src/manifest.txt)
TEST_SRC  = $(wildcard tests/test_*.c)
TEST_BIN  = $(patsubst tests/%.c,$(B)/tests/%,$(TEST_SRC))
TEST_SH   = $(wildcard tests/*_test.sh) tests/contract.sh
BENCH_SRC = $(wildcard bench/*.c)
BENCH_BIN = $(patsubst bench/%.c,$(B)/bench/%,$(BENCH_SRC))
API_SRC   = $(wildcard examples/api_*.c)
API_BIN   = $(patsubst examples/%.c,$(B)/examples/%,$(API_SRC))

.PHONY: all demo test test-bins test-sanitize test-sanitize-bins fuzz bench install clean headers

all: headers $(B)/ptoc demo

headers: pto.h pto_kernels.h

$(B)/amalgamate: tools/amalgamate.c
	@mkdir -p $(B)
	$(HOSTCC) -O2 -o $@ $<

pto.h pto_kernels.h: $(SRC) $(B)/amalgamate
	./$(B)/amalgamate

$(B)/ptoc: tools/ptoc.c pto.h
	@mkdir -p $(B)
	$(CC) $(BASEFLAGS) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -o $@ tools/ptoc.c -lm

demo: $(B)/ptoc headers $(API_BIN)
	@sh tools/demo.sh ./$(B)/ptoc

# examples that build their kernel through the C API (demo.sh runs them)
$(B)/examples/%: examples/%.c pto.h
	@mkdir -p $(B)/examples
	$(CC) $(BASEFLAGS) $(CFLAGS) -o $@ $< -lm

# pto.h's implementation, compiled once: the test programs that use only the
# public API link it (PTO_IMPLEMENTATION_LINKED leaves it out of their own
# compile), which takes most of the test build's time off CI's 30 minutes.
# Those that call private pto__ functions compile it whole.
TEST_PRIVATE = $(patsubst tests/%.c,$(B)/tests/%,$(shell grep -l 'pto__' $(TEST_SRC)))

$(B)/pto.o: pto.h
	@mkdir -p $(B)
	$(CC) $(TESTFLAGS) $(CFLAGS) -DPTO_IMPLEMENTATION -x c -c -o $@ pto.h

$(B)/tests/%: tests/%.c pto.h pto_kernels.h $(wildcard tests/*.h tests/fuzz/*.c tests/fuzz/*.h) $(B)/pto.o
	@mkdir -p $(B)/tests
	$(CC) $(TESTFLAGS) $(CFLAGS) -DPTO_IMPLEMENTATION_LINKED -o $@ $< $(B)/pto.o -lm

$(TEST_PRIVATE): $(B)/tests/%: tests/%.c pto.h pto_kernels.h $(wildcard tests/*.h tests/fuzz/*.c tests/fuzz/*.h)
	@mkdir -p $(B)/tests
	$(CC) $(TESTFLAGS) $(CFLAGS) -o $@ $< -lm

# The scripts run this build's ptoc (the sanitized one under test-sanitize).
test: headers $(B)/ptoc $(TEST_BIN)
	@PTOC=$(CURDIR)/$(B)/ptoc AMALGAMATE=$(CURDIR)/$(B)/amalgamate sh tests/run.sh $(TEST_BIN) $(TEST_SH)

# What make test runs, built and not run: CI builds it with -j2 first (the
# tests then run one per core, tests/run.sh), which halves the build's share
# of its 30 minutes.
test-bins: headers $(B)/ptoc $(TEST_BIN)

# The same suite under AddressSanitizer and UndefinedBehaviorSanitizer (ptoc
# too). The simulator property test runs 4 programs of other seeds than
# make test's 16: new kernels, in a quarter of the time.
SANFLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test-sanitize: headers
	SYNC_SIM_PROGRAMS=4 SYNC_SIM_FIRST=16 $(MAKE) B=build/san CFLAGS="$(SANFLAGS)" test

test-sanitize-bins: headers
	$(MAKE) B=build/san CFLAGS="$(SANFLAGS)" test-bins

fuzz: headers
	@sh tests/fuzz/run.sh

$(B)/bench/%: bench/%.c pto.h pto_kernels.h
	@mkdir -p $(B)/bench
	$(CC) $(TESTFLAGS) -O2 -o $@ $< -lm

bench: headers $(B)/ptoc $(BENCH_BIN)
	@rc=0; echo "== bench/sync_bench.sh (pto's syncs against hand-written ones)"; \
	  sh bench/sync_bench.sh ./$(B)/ptoc || rc=1; \
	  for b in $(BENCH_BIN); do echo "== $$b"; ./$$b || rc=1; done; exit $$rc

install: headers $(B)/ptoc
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 644 pto.h pto_kernels.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(B)/ptoc $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build
