#!/bin/sh
# memplan-replay over the swap planner's plans at several budgets, on the
# CUDA backend over the test-only stand-in for libcudart, with slow swap
# copies of random length (and random delays on every stream): every
# swapped buffer is back intact at each use, in every iteration.  Two
# breakages must make the same replay fail: a plan whose swap-in trigger
# is moved after the buffer's use, and a memplan-replay whose runtime lets a
# buffer placed over a swapped-out one skip the wait for the copy-out.
# (t0300 and t0301 hold the hand-made fixture plans, late.plan among them,
# and the library without its swap-in wait.)  --stats and --json show the
# swap statistics.
. tests/cli/lib.sh

FX=$BUILD/tests/cuda/fixtures
NOWAIT=$BUILD/tests/cuda/replay-no-swapout-wait
MEMPLAN_CUDART=$BUILD_DIR/tests/cuda/libcudart.so.12
export MEMPLAN_CUDART

# stat NAME: its value in the --stats lines of $T/out
stat() { sed -n "s/^$1  *\([0-9][0-9]*\) .*/\1/p" "$T/out"; }

# ResNet-50 at batch 1, fp16: a zoo iteration whose replays check about 1 GB
# each; batch 8 would check 8 GB per iteration
memplan-trace synth --model resnet50 --batch 1 --dtype fp16 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo iteration (ResNet-50, batch 1, fp16)"

# swaps copy for 2 to 4 ms on the stand-in (FAKECUDA_PINNED_DELAY_US): the
# program's streams run ahead of the copy stream, so a missing wait shows
FAKECUDA_PINNED_DELAY_US=4000
export FAKECUDA_PINNED_DELAY_US
for b in 90 75 60; do
	memplan-plan compile "$T/r.trace" --budget $b% --link pcie5 -o "$T/$b.plan" >/dev/null 2>"$T/err"
	ok $? "the swap plan for $b% of the lower bound"
	expect 0 "  ... replays valid: 3 iterations on the stand-in with slow swap copies" \
		memplan-replay --backend cuda --iterations 3 --stats "$T/$b.plan" "$T/r.trace"
	has "$T/out" "3 iterations (3 followed)" "  ... every iteration followed to its end"
	out=$(stat swaps_out)
	[ "${out:-0}" -gt 0 ] && [ "$out" = "$(stat swaps_in)" ]
	ok $? "  ... $out swaps out, each one back in"
	[ "$(stat swap_bytes_out)" = "$(stat swap_bytes_in)" ] && [ "$(stat swap_bytes_in)" -gt 0 ]
	ok $? "  ... every byte copied out copied back ($(stat swap_bytes_in))"
	[ "$(stat divergences)" = 0 ] && [ "$(stat sync_swapins)" = 0 ]
	ok $? "  ... no divergence, nothing brought back synchronously"
done

FAKECUDA_DELAY_US=20 expect 0 "the 60% plan with random delays on every stream too: valid" \
	memplan-replay --backend cuda --iterations 2 "$T/60.plan" "$T/r.trace"

expect 0 "--json: one object" memplan-replay --backend cuda --iterations 1 --json "$T/60.plan" "$T/r.trace"
has "$T/out" '"valid":true' "  ... saying valid"
has "$T/out" '"swap_bytes_in":' "  ... with the swap statistics"
has "$T/out" '"swapin_late":' "  ... the late copies"
has "$T/out" '"sync_swapins":0' "  ... and the synchronous swap-ins"
[ "$(wc -l <"$T/out")" -eq 1 ] && ! grep -q '^problem' "$T/out"
ok $? "  ... and nothing else on standard output"
expect 2 "--stats with --json: usage error" memplan-replay --stats --json "$T/60.plan" "$T/r.trace"

# broken on purpose: a swap-in moved after the buffer's next use
"$FX" --late-swapin "$T/60.plan" "$T/r.trace" "$T/late.plan" >"$T/moved" 2>"$T/err"
ok $? "a copy of the 60% plan with one swap-in moved after the buffer's use"
sed 's/^/# /' "$T/moved"
expect 1 "  ... memplan-plan verify refuses it" memplan-plan verify "$T/late.plan" "$T/r.trace"
expect 1 "  ... the replay on the stand-in finds it invalid" \
	memplan-replay --backend cuda --iterations 2 "$T/late.plan" "$T/r.trace"
buf=$(sed -n 's/.*(buffer \([0-9]*\)).*/\1/p' "$T/moved")
has "$T/out" "buffer $buf (plan entry" "  ... naming the swapped buffer"
has "$T/out" "at a use: the word at byte" "  ... read at its use before its bytes are back"
expect 1 "  ... so does the replay on the host" memplan-replay --iterations 1 "$T/late.plan" "$T/r.trace"

# broken on purpose: the buffer placed over a swapped-out one does not wait
# for the copy-out (a runtime built with MP_FAULT_NO_SWAPOUT_WAIT); with
# copies of 10 to 20 ms the borrower writes before the bytes have left.
# The fault shows only when a borrower writes while the copy-out still runs:
# on a loaded machine (or under the sanitizers) a run may miss it, so it
# gets three runs to show, each with copies 5-10 times longer than the last
# (a slow program's borrower then still meets a copy-out in flight); the
# real runtime below must be valid every time.
for delay in 20000 200000 1000000; do
	FAKECUDA_PINNED_DELAY_US=$delay "$NOWAIT" --backend cuda --iterations 1 \
		"$T/60.plan" "$T/r.trace" >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" -eq 1 ] && break
	echo "# the faulty runtime with copies of $delay us: exit status $got"
done
[ "$got" -eq 1 ]
ok $? "a runtime whose borrowers skip the wait for the swap-out: invalid"
has "$T/out" "two buffers resident at the same time overlap" "  ... a swapped buffer came back with its borrower's bytes"
FAKECUDA_PINNED_DELAY_US=20000 expect 0 "  ... the same copies with the real runtime: valid" \
	memplan-replay --backend cuda --iterations 1 --stats "$T/60.plan" "$T/r.trace"
# a borrower waits only when it asks while the copy-out still runs: on a
# loaded machine (or under the sanitizers) the program may be slower than
# a 20 ms copy, so longer copies get their turn; every run must be valid
n=$(stat swapout_late)
for delay in 100000 400000; do
	[ "${n:-0}" -gt 0 ] && break
	echo "# no borrower waited with shorter copies: copies of $((delay / 1000)) ms"
	FAKECUDA_PINNED_DELAY_US=$delay expect 0 "  ... copies of $((delay / 1000)) ms with the real runtime: valid" \
		memplan-replay --backend cuda --iterations 1 --stats "$T/60.plan" "$T/r.trace"
	n=$(stat swapout_late)
done
[ "${n:-0}" -gt 0 ]
ok $? "  ... which counts the borrowers that had to wait (swapout_late $n)"

# a divergence while a buffer is out, in a program under LD_PRELOAD: the
# buffer comes back before the program goes on (counted), every check passes
FX_DIR=$T/fx
mkdir -p "$FX_DIR" && "$FX" "$FX_DIR" 2>"$T/err"
LIB=$BUILD_DIR/lib/libmemplan.so
san=$(ldd "$LIB" 2>/dev/null | awk '/lib(asan|ubsan|tsan)\./ { printf "%s ", $3 }')
FAKECUDA_PINNED_DELAY_US=20000 LD_PRELOAD="$san$LIB" MEMPLAN_PLAN=$FX_DIR/swap.plan \
	MEMPLAN_SHOW_STATS=1 MEMPLAN_VERBOSE=-1 "$BUILD/tests/cuda/app" "$FX_DIR/swap.trace" \
	--iterations 6 --diverge 2 --diverge 4 >"$T/out" 2>&1
ok $? "iterations that differ while a buffer is swapped out, slow copies: every check passes"
[ "$(stat divergences)" = 2 ] && [ "$(stat sync_swapins)" = 2 ]
ok $? "  ... the buffer came back synchronously at both divergences"
[ "$(stat swap_bytes_in)" = "$(stat swap_bytes_out)" ]
ok $? "  ... every byte out came back"

done_testing
