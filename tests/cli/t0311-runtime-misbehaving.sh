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

done_testing
