#!/bin/sh
# seed_test.sh - the review points of the five upstream pull requests pto was
# written from (docs/design.md, "Upstream review points and how pto handles
# each") that need more than a clean run of tests/user/seed_*.pto or a refusal
# in tests/bad/seed_*.pto:
#   - the same kernels at other block counts (1, 2, 5, a scalar count, none),
#     rank counts (1..5) and seeds (the order ranks and cores run in);
#   - the emitted kernel edited the way each upstream bug would have made it
#     (the gm pipe buffer not sharded by block or too small; allreduce without
#     its post-reduce barrier, with an EQ counting wait, without the wait for
#     an earlier subtract; a put that reads its window before the store to it
#     is ordered; slots rotated by the raw loop variable): the simulator must
#     report each one, so the clean runs above are a real check;
#   - refusals after verify, with their messages (a staging tile or local
#     slots that do not fit, a zero block count, overlapping put windows);
#   - the emitted device code where the point is about it (the per-block pipe
#     buffer, TPipe's SlotNum / LocalSlotNum, slot and event-id rotation).
# Kernels compile with tcc when there is one (~0.05 s each against ~1.3 s).
cd "$(dirname "$0")/.." || exit 1
ptoc=${PTOC:-./build/ptoc}
out=build/seed_test
rm -rf $out
mkdir -p $out
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f $out/log ] && tail -20 $out/log; }
cc=
command -v tcc >/dev/null 2>&1 && cc="--cc tcc"

if ! grep -q "pto_k_launch(pto_k_device" pto_kernels.h 2>/dev/null; then
    echo "skip: pto_kernels.h has no simulator yet"
    echo "$pass passed, $fail failed"
    exit 0
fi

# clean NAME ARGS...: ptoc run ARGS matches with no simulator report (exit 0)
clean() {
    name=$1; shift
    # shellcheck disable=SC2086
    if $ptoc run $cc "$@" >$out/log 2>&1 && grep -q "^  result      match" $out/log &&
       grep -q "^  simulator   no reports" $out/log; then ok "$name"; else bad "$name"; fi
}
# expect NAME RC PATTERN CMD...: exit status RC and PATTERN (grep -E) in the output
expect() {
    name=$1; want=$2; pat=$3; shift 3
    "$@" >$out/log 2>&1; rc=$?
    if [ $rc = "$want" ] && grep -Eq -- "$pat" $out/log; then ok "$name"; else bad "$name (exit $rc, want $want, /$pat/)"; fi
}
# has NAME FILE STRING: FILE contains STRING (fixed)
has() { if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1 (no '$3' in $2)"; fi; }
# edit NAME SRC SED-SCRIPT: $out/NAME = SRC emitted, kernel.c or host.c (FILE=...) through sed; the edit must apply
edit() {
    d=$out/$1; f=${FILE:-kernel.c}
    $ptoc emit "$2" -o $d >/dev/null 2>&1 || { bad "$1: emit"; return 1; }
    cp $d/$f $d/orig
    sed -e "$3" $d/orig >$d/$f
    if cmp -s $d/orig $d/$f; then bad "$1: the edit did not apply"; return 1; fi
}

# ---- seed 000: SPMD gm-pipe sharding (tests/user/seed_spmd_pipe.pto) --------------------------------
sp=tests/user/seed_spmd_pipe.pto
for m in 64 128 320; do clean "gm pipe: blocks(M / 64) at M=$m" $sp -D M=$m; done
# the block count as a scalar param (the review asked for a launch-spec variant of the test)
sed 's/out d: f32\[M, 64\]) mix blocks(M \/ 64) {/out d: f32[M, 64], scalar NB: i32) mix blocks(NB) {/' $sp >$out/nb.pto
has "gm pipe: the scalar-count variant applied" $out/nb.pto "mix blocks(NB)"
clean "gm pipe: blocks(NB), a scalar, NB=3" $out/nb.pto -D M=192 -D NB=3
expect "gm pipe: a block count of 0 is refused" 1 "kernel seed_spmd_pipe would launch no block: blocks\(M / 64\) is 0" \
    $ptoc run $cc $sp -D M=32
# the buffer: blocks x per_block (q: 2 x 16384, w: 3 x 8192) and block b's rings at b x per_block + offset
$ptoc emit $sp -o $out/sp >/dev/null 2>&1 || bad "emit $sp"
has "gm pipe: host.c allocates blocks x per_block" $out/sp/host.c "pto_h_pipe_buffer(run, M / 64, 57344)"
has "gm pipe: ring q at block * per_block + 0" $out/sp/kernel.c "pto_gm_pipe_buffer, pto_k_block_idx(core) * 57344 + 0);"
has "gm pipe: ring w at block * per_block + 32768" $out/sp/kernel.c "pto_gm_pipe_buffer, pto_k_block_idx(core) * 57344 + 32768);"
$ptoc emit --target isa $sp -o $out/spi >/dev/null 2>&1 || bad "emit --target isa $sp"
has "gm pipe (isa): the block's part of the buffer" $out/spi/kernel.cpp "pto_isa_gm<uint8_t>(args, 4) + static_cast<int64_t>(PTO_ISA_BLOCK_IDX(args)) * 57344;"
# seed 004: SlotNum and LocalSlotNum reach TPipe (the AIV of a split c2v pipe takes (local + 1) / 2: emit_isa.c)
has "local_slots(1) reaches TPipe" $out/spi/kernel.cpp "pto::TPipe<0, pto::Direction::DIR_C2V, 16384, 2, 1, false>"
has "slots(3) local_slots(3) reach TPipe" $out/spi/kernel.cpp "pto::TPipe<2, pto::Direction::DIR_V2C, 8192, 3, 3, false>"
# the buffer not sharded (every block's rings at byte 0): blocks pop each other's tiles
edit noshard $sp 's/pto_k_block_idx(core) \* 57344 + /0 * 57344 + /'
expect "gm pipe not sharded by block: the simulator reports it" 1 "error: race on gm gm_pipe_buffer \(ring [01]\)" \
    $ptoc run $cc $out/noshard
# the buffer sized for one block
FILE=host.c edit onebuf $sp 's/pto_h_pipe_buffer(run, M \/ 64, 57344)/pto_h_pipe_buffer(run, 1, 57344)/'
expect "gm pipe buffer of one block: the simulator reports it" 1 "ring_init 0: 2 slots of 16384 bytes at byte 57344 do not fit GM buffer 'gm_pipe_buffer'" \
    $ptoc run $cc $out/onebuf

# ---- seed 004: local_slot_num -----------------------------------------------------------------------
# an omitted count is exactly its default, printed so
sed 's/ slots(2) local_slots(1)//' $sp >$out/def.pto
$ptoc fmt $out/def.pto >$out/log 2>&1
has "omitted counts: the defaults, spelled out by fmt" $out/log "pipe q: c2v f32[64, 64] slots(8) local_slots(2) split(up_down)"
$ptoc emit --target isa $out/def.pto -o $out/defi >/dev/null 2>&1 || bad "emit --target isa def.pto"
has "omitted counts: TPipe<..., 8, 2> on the cube" $out/defi/kernel.cpp "pto::TPipe<0, pto::Direction::DIR_C2V, 16384, 8, 2, false>"
cat >$out/lsbig.pto <<'EOF'
kernel lsbig(in a: f32[128, 128], out c: f32[128, 128]) mix {
  pipe q: c2v f32[128, 128] split(up_down) local_slots(8)
  cube {
    tile m: mat f32[128, 128]
    tile l: left f32[128, 64]
    tile r: right f32[64, 128]
    tile acc: acc f32[128, 128]
    tload m, a[0, 0]
    textract l, m, 0, 0
    textract r, m, 0, 0
    tmatmul acc, l, r
    tpush q, acc
  }
  vector {
    tile t: vec f32[64, 128]
    tpop t, q
    tstore c[subblock * 64, 0], t
    tfree q
  }
}
EOF
expect "local slots that do not fit: refused naming the pipe's reservation" 1 \
    "lsbig.pto:2:8: error: kernel 'lsbig': the local slots of pipe 'q' do not fit vec: needs 262144 bytes, capacity 196608 \(pipe 'q' reserves 8 local slots x 32768 B on each vector core\)" \
    $ptoc check $out/lsbig.pto
sed 's/local_slots(8)/local_slots(5)/' $out/lsbig.pto >$out/ls5.pto
clean "5 local slots of 32 KiB fit" $out/ls5.pto

# ---- seed 001: allreduce (tests/user/seed_allreduce.pto) --------------------------------------------
ar=tests/user/seed_allreduce.pto
for r in 1 2 4 5; do clean "allreduce at $r ranks" $ar --ranks $r; done
for s in 3 4 5; do clean "allreduce at 3 ranks, seed $s" $ar --seed $s; done
clean "allreduce, no call in the loop (T=0)" $ar -D T=0
$ptoc dump lower $ar >$out/lower.txt 2>&1
if grep -q "wait .*, eq, " $out/lower.txt; then bad "allreduce: an EQ wait in the lowering"; else ok "allreduce: no EQ wait in the lowering"; fi
n=$(grep -c "post-reduce barrier: until every rank has counted (GE" $out/lower.txt)
[ "$n" = 3 ] && ok "allreduce: a post-reduce barrier in each of the 3 calls" || bad "allreduce: $n post-reduce waits, want 3"
# the post-reduce barrier's wait deleted (first call): a fast rank overwrites a chunk a peer still reads
edit nopost $ar '/PTO_K_GE, (__ar4_ch + 2)/d'
expect "allreduce without its post-reduce barrier: the simulator reports it" 1 "error: race on gm g@[0-9]+ bytes" $ptoc run $cc $out/nopost
# ... made EQ: a fast peer moves the cell past the value before a slow rank polls
edit posteq $ar '/PTO_K_GE, (__ar4_ch + 2)/s/PTO_K_GE/PTO_K_EQ/'
expect "allreduce with an EQ counting wait: the simulator reports it" 1 "may never return: it saw the cell hold" $ptoc run $cc $out/posteq
# the wait for an earlier allreduce's subtract deleted (the call in the loop: its second iteration reuses sig at once)
ln=$(grep -n "^    allreduce g, sig" $ar | cut -d: -f1)
edit nolt $ar "/\"seed_allreduce.pto:$ln\", sig, 0, 0, PTO_K_LT/d"
expect "allreduce reusing a signal before its subtract landed: the simulator or the comparison says so" 1 \
    "error: (race|deadlock)|result      mismatch" $ptoc run $cc $out/nolt --seed 1

# GM bytes are exact in the simulator's shadow: rank 0 stores bytes [0, 16) of a 32-byte block of x,
# then [16, 32); rank 1 loads [0, 16) with nothing ordering it: a race with the first store, whatever
# order the seed runs the ranks in (keeping only the newest writer of the block lost it in 4 of 6)
cat >$out/gmold.pto <<'EOF'
# run: --ranks 2
kernel gmold(in a: f32[1, 8], inout x: f32[4, 8] window, out y: f32[1, 8]) vector ranks {
  tile t: vec f32[1, 8] valid(1, 4)
  tile u: vec f32[1, 8] valid(1, 4)
  if rank == 0 {
    tload t, a[0, 0]
    tstore x[0, 0], t
    tstore x[0, 4], t
  } else {
    tload u, x@0[0, 0]
    tstore y[0, 0], u
  }
}
EOF
for s in 1 2 3 4 5 6; do
    expect "GM: a read racing an earlier writer of its bytes, seed $s" 1 \
        'error: race on gm x(@0)? bytes \[0, 16\): (tload \(MTE2, rank 1|tstore \(MTE3, rank 0)' $ptoc run $cc $out/gmold.pto --seed $s
done

# lowered names (__put4_stage, __ar6_ch: "__", the op, the statement id) and a user's names of the same
# spelling, and names C reserves (_IOFBF is stdio.h's macro, __LINE__ the compiler's): the generated
# kernel was a redeclaration or a macro's number; the emitter renames the user's (user___put4_stage)
cat >$out/names.pto <<'EOF'
# run: --ranks 2
kernel names(in x: f32[16, 64], inout g: f32[16, 64] window, inout sig: i32[1, 8] window, inout y: f32[16, 64] window, out z: f32[16, 64]) vector ranks {
  let __ar6_ch = 7
  let __put4_stage = 1
  tile __ar6_acc: vec f32[16, 64]
  tload __ar6_acc, x[0, 0]
  tput y@((rank + 1) % nranks)[0, 0], x[0, 0], 16, 64
  tstore g[0, 0], __ar6_acc
  allreduce g, sig
  tload __ar6_acc, g[__ar6_ch - 7, __put4_stage - 1]
  tstore z[0, 0], __ar6_acc
}
EOF
# (lower's own names step aside from the user's, __put4x_stage, so that the dump parses back: review20 L2)
$ptoc dump lower $out/names.pto >$out/names_lowered.pto 2>&1
has "names: lower made __put4x_stage beside the user's __put4_stage" $out/names_lowered.pto "tile __put4x_stage: vec f32[16, 64]"
if $ptoc check $out/names_lowered.pto >$out/log 2>&1; then ok "names: the lowered dump parses back"; else bad "names: the lowered dump parses back"; fi
clean "names: a user's __put4_stage and __ar6_ch beside lower's" $out/names.pto
cat >$out/cres.pto <<'EOF'
kernel cres(in x: f32[16, 64], out y: f32[16, 64]) vector {
  tile _IOFBF: vec f32[16, 64]
  let __LINE__ = 0
  tload _IOFBF, x[__LINE__, 0]
  tstore y[0, 0], _IOFBF
}
EOF
clean "names: _IOFBF and __LINE__ (C reserves them)" $out/cres.pto
if command -v g++ >/dev/null 2>&1; then
    $ptoc emit --target isa $out/cres.pto -o $out/cresi >/dev/null 2>&1 &&
        g++ -std=c++17 -fsyntax-only -Wall -Werror -I tests/isa $out/cresi/kernel.cpp >$out/log 2>&1 &&
        ok "names: _IOFBF and __LINE__ on the isa target" || bad "names: _IOFBF and __LINE__ on the isa target"
fi

# ---- seed 002: the put staging tile (tests/user/seed_put_stage.pto) ---------------------------------
pt=tests/user/seed_put_stage.pto
for r in 1 2 4; do clean "put / get staging at $r ranks" $pt --ranks $r --seed 7; done
clean "put / get staging, no store loop (T=0)" $pt -D T=0
# a tstore into the window and the put that reads it: the wait ordering them deleted
cat >$out/put.pto <<'EOF'
# run: --ranks 2
kernel put(in x: f32[40, 200], inout w: f32[40, 200], inout y: f32[40, 200] window, out z: f32[40, 200]) vector ranks {
  tile a: vec f32[40, 200]
  tload a, x[0, 0]
  tmuls a, a, 2.0
  tstore w[0, 0], a
  tput y@((rank + 1) % nranks)[0, 0], w[0, 0], 40, 200
  tstore z[0, 0], a
}
EOF
clean "store then put" $out/put.pto
edit noraw $out/put.pto '/wait_flag(core, "put.pto:7", PTO_K_MTE3, PTO_K_MTE2/d'
expect "a put before the store to its window is ordered: the simulator reports it" 1 \
    'put.pto:7: error: race on gm w@[01] bytes \[0, 32000\): tload \(MTE2, rank [01] block 0 aiv0\) reads them while "put.pto:6" tstore \(MTE3' \
    $ptoc run $cc $out/noraw
# the staging tile is planned like any tile: when it cannot fit beside the live tiles, the plan says so by name
cat >$out/putfull.pto <<'EOF'
kernel putfull(in x: f32[64, 256], inout w: f32[64, 256], inout y: f32[64, 256] window, out z: f32[64, 256]) vector ranks {
  tile a: vec f32[64, 256]
  tile b: vec f32[64, 256]
  tile c: vec f32[64, 256]
  tload a, x[0, 0]
  tmuls b, a, 2.0
  tmuls c, a, 3.0
  tstore w[0, 0], b
  tput y@((rank + 1) % nranks)[0, 0], w[0, 0], 64, 256
  tadd a, a, b
  tadd a, a, c
  tstore z[0, 0], a
}
EOF
expect "a staging tile that does not fit: refused, named" 1 \
    "putfull.pto:9:3: error: kernel 'putfull': vec overflows: needs 262144 bytes, capacity 196608; at line 9, 4 tiles are live .*tput's staging tile __put7_stage 2x32768 \(line 9\)" \
    $ptoc check $out/putfull.pto
# a put whose windows overlap (rank 0 to itself at one rank)
cat >$out/putover.pto <<'EOF'
kernel putover(inout v: f32[40, 64] window) vector ranks {
  tput v@((rank + 1) % nranks)[0, 0], v[2, 0], 16, 64
}
EOF
expect "overlapping put windows: the interpreter refuses them" 1 "putover.pto:2:3: error: tput: the source and destination windows overlap" \
    $ptoc run $cc $out/putover.pto --ranks 1

# ---- seed 003: multi-buffer planning (tests/user/seed_multibuf.pto) ---------------------------------
mb=tests/user/seed_multibuf.pto
for v in "S=0 T=1" "S=-5 T=3" "S=7 T=5"; do
    # shellcheck disable=SC2086
    set -- $v
    clean "xN slots by iteration number: $1 $2" $mb -D $1 -D $2
done
$ptoc emit $mb -o $out/mb >/dev/null 2>&1 || bad "emit $mb"
has "slot of a loop from 4 step 2: ((i - 4) / 2) % 2" $out/mb/kernel.c "16, 64, 16, 64, (((i - 4) / 2) % 2) * 4096);"
has "event id of that loop: (i - 4) / 2 % 2" $out/mb/kernel.c "PTO_K_MTE3, PTO_K_MTE2, (i - 4) / 2 % 2);"
has "slot of a launch-time start and step: ((j - S) / T) % 3" $out/mb/kernel.c "(((j - S) / T) % 3) * 4096);"
$ptoc emit --target isa $mb -o $out/mbi >/dev/null 2>&1 || bad "emit --target isa $mb"
has "isa: the same slot" $out/mbi/kernel.cpp "pto::TASSIGN(a, (((i - 4) / 2) % 2) * 4096);"
has "isa: the same event id" $out/mbi/kernel.cpp "static_cast<event_t>((i - 4) / 2 % 2)"
# the slots rotated by the raw loop variable (upstream's remui %iv): i % 2 is 0 for every even i
edit rawiv $mb 's/(((i - 4) \/ 2) % 2) \* 4096)/(i % 2) * 4096)/'
expect "slots rotated by the raw loop variable: the simulator reports it" 1 \
    'seed_multibuf.pto:16: error: race on vec bytes \[0, 4096\): tload \(MTE2, block 0 aiv0\) writes them while' $ptoc run $cc $out/rawiv
$ptoc plan $mb >$out/log 2>&1
has "top-level tiles reuse bytes across pipes when they must" $out/log "level tight (bytes reused across pipes"
# more rotating pairs than event ids: fewer ids, warned, still correct
cat >$out/ids.pto <<'EOF'
# run: -D T=5
kernel ids(in x: f32[80, 64], out y: f32[16, 64], scalar T: i32) vector {
  tile s: vec f32[16, 64]
  texpands s, 0.0
  for i = 0 to T {
    tile a: vec f32[16, 64] x4
    tile b: vec f32[16, 64] x4
    tile c: vec f32[16, 64] x4
    tile d: vec f32[16, 64] x4
    tile e: vec f32[16, 64] x4
    tload a, x[0, 0]
    tload b, x[16, 0]
    tload c, x[32, 0]
    tload d, x[48, 0]
    tload e, x[64, 0]
    tadd s, s, a
    tadd s, s, b
    tadd s, s, c
    tadd s, s, d
    tadd s, s, e
  }
  tstore y[0, 0], s
}
EOF
expect "out of event ids for x4 tiles: a warning" 0 "warning: sync: out of event ids for V -> MTE2" $ptoc check $out/ids.pto
for t in 1 4 5 9; do clean "out of event ids, still correct at T=$t" $out/ids.pto -D T=$t; done

echo "$pass passed, $fail failed"
[ $fail = 0 ]
