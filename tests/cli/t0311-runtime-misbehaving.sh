#!/bin/sh
# libmemplan under a program that misbehaves, on the stand-in libcudart:
# an error of the program's own pending on its thread when a call of the
# runtime's own fails (cudart keeps one last error per thread, which
# PyTorch takes after every launch: the runtime must neither replace it
# nor take it), and a program that frees a buffer twice in the middle of a
# swap plan (the divergence it causes must bring every swapped-out buffer
# back and lend no live buffer's bytes: every check passes).
. tests/cli/lib.sh

APP=$BUILD/tests/cuda/app
LIB=$BUILD_DIR/lib/libmemplan.so
san=$(ldd "$LIB" 2>/dev/null | awk '/lib(asan|ubsan|tsan)\./ { printf "%s ", $3 }')
MEMPLAN_CUDART=$BUILD_DIR/tests/cuda/libcudart.so.12
export MEMPLAN_CUDART
stat() { sed -n "s/^$1  *\([0-9][0-9]*\) .*/\1/p" "$T/out"; }

memplan-trace synth --model resnet50 --batch 1 --dtype fp16 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo iteration (ResNet-50, batch 1, fp16)"
memplan-plan compile "$T/r.trace" --budget 70% --link gh200-c2c -o "$T/70.plan" >/dev/null 2>"$T/err"
ok $? "  ... its swap plan at 70% of the lower bound over gh200-c2c"

# --- an error of the program's pending ----------------------------------------
# --keep-error fails a cudaSetDevice before the first request and wants
# that error pending at the end; FAKECUDA_HOST_MEM makes the runtime's own
# cudaMallocHost of its staging fail at open (the old runtime left its
# out-of-memory in the program's place)
FAKECUDA_HOST_MEM=65536 LD_PRELOAD="$san$LIB" MEMPLAN_PLAN=$T/70.plan MEMPLAN_SHOW_STATS=1 \
	"$APP" "$T/r.trace" --keep-error --iterations 2 >"$T/out" 2>&1
ok $? "an error of the program's pending when the runtime's staging fails: every check passes"
has "$T/out" "cannot take 32849920 bytes of pinned host staging" "  ... the runtime's own call failed"
has "$T/out" "app: the error pending at the end: invalid device ordinal (101)" \
	"  ... and the program's own error is still pending, not replaced nor taken"
# the same, followed: every call of the runtime's own (events, copies,
# syncs, a divergence) made while the error is pending
LD_PRELOAD="$san$LIB" MEMPLAN_PLAN=$T/70.plan MEMPLAN_SHOW_STATS=1 FAKECUDA_PINNED_DELAY_US=2000 \
	"$APP" "$T/r.trace" --keep-error --iterations 4 --diverge 2 >"$T/out" 2>&1
ok $? "  ... the plan followed with the error pending, and a divergence"
has "$T/out" "app: the error pending at the end: invalid device ordinal (101)" "  ... the program's error kept"
[ "$(stat swaps_out)" -gt 0 ] && [ "$(stat divergences)" = 1 ]
ok $? "  ... through $(stat swaps_out) swaps and the divergence"

# --- a second free in the middle of a swap plan ------------------------------
# --double-free 21,reuse: in each iteration, the buffer freed after 21% of
# the frees is freed again right after the allocation that is given its
# address next.  With the plain allocator (the stand-in alone) no
# allocation gets it again within the iteration, so the stale free is
# refused and harmless; the plan at 50% puts a buffer there that lies over
# a swapped-out one.  The old runtime took the stale free for that buffer's
# free, and the divergence copied the swapped-out buffer back over it
# (42 failed checks under MEMPLAN_ON_UNSAFE=warn).
memplan-plan compile "$T/r.trace" --budget 50% --link gh200-c2c -o "$T/50.plan" >/dev/null 2>"$T/err"
ok $? "the swap plan at 50%"
"$APP" "$T/r.trace" --double-free 21,reuse --iterations 3 >"$T/out" 2>&1
ok $? "a program freeing a stale pointer in each iteration, alone: every check passes"
has "$T/out" " 0 failures" "  ... no failure"
MEMPLAN_ON_UNSAFE=warn FAKECUDA_PINNED_DELAY_US=2000 LD_PRELOAD="$san$LIB" MEMPLAN_PLAN=$T/50.plan \
	MEMPLAN_SHOW_STATS=1 "$APP" "$T/r.trace" --double-free 21,reuse --iterations 3 >"$T/out" 2>&1
ok $? "  ... under the swap plan (MEMPLAN_ON_UNSAFE=warn): every check passes"
has "$T/out" "app: 3 second frees made" "  ... after 3 stale frees, all at a live buffer's address"
[ "$(stat divergences)" = 3 ] && [ "$(stat swaps_out)" = "$(stat swaps_in)" ]
ok $? "  ... each one a divergence, every buffer swapped out back in ($(stat swaps_in))"
has "$T/out" "a free of pool address" "  ... the stale free refused"
# by default the stale free, read as an early free of the buffer there,
# leaves a swapped-out buffer's bytes lent: the program stops before any
# use can read them
LD_PRELOAD="$san$LIB" MEMPLAN_PLAN=$T/50.plan "$APP" "$T/r.trace" \
	--double-free 21,reuse --iterations 3 >"$T/out" 2>&1
st=$?
[ $st -ne 0 ] && ! grep -q "holds the pattern" "$T/out"
ok $? "  ... by default the program stops (status $st) before a wrong read"
has "$T/out" "memplan: error: request" "  ... saying why"

done_testing
