#!/bin/sh
# memplan-capture end to end without a GPU: the real injection library
# records tests/cuda/app on the stand-in libcudart and libcupti
# (tests/cuda/cudart.c, tests/cuda/cupti.c).  The capture must leave no
# error on the program's thread (PyTorch checks cudaGetLastError after
# every launch), keep the kernels CUDA 13 reports without params, keep
# requests the runtime never sees off the plan's clock, and join every
# allocation's source.
. tests/cli/lib.sh

S=$BUILD_DIR/tests/cuda/cupti
APP=$BUILD_DIR/tests/cuda/app
if [ ! -e "$S/libcupti.so.13" ] || [ ! -e "$BUILD_DIR/lib/libmemplan-capture.so" ]; then
	skip "capture on the stand-ins" "built without CUPTI's headers (no capture library)"
	done_testing
	exit
fi
"$BUILD_DIR/tests/cuda/fixtures" "$T" 2>"$T/err"
ok $? "the fixtures"

# cap NAME [VAR=VALUE...] -- APP ARGS: capture iteration 2 into $T/NAME.trace
cap() {
	name=$1
	shift
	env LD_LIBRARY_PATH="$S" FAKECUDA_CUPTI="$S/libcupti.so.13" "$@" 2>"$T/err" >"$T/out"
}
q() { sqlite3 "$1" "$2"; }

# a launch through a runtime stub this cudart does not know (as cuBLAS's
# are to the program's): no cudaGetFuncBySymbol, no error left behind
cap launch memplan-capture -o "$T/launch.trace" --iteration 2 -- \
	"$APP" "$T/swap.trace" --iterations 3 --launch --mark --check-errors
ok $? "captured launches leave cudaGetLastError() clean (app --check-errors)"
grep -q 'pending' "$T/err" && sed 's/^/#   /' "$T/err" | head -3
k=$(q "$T/launch.trace" "SELECT count(*) FROM events WHERE type = 2 AND name = (SELECT id FROM names WHERE name = 'kernel')")
a=$(q "$T/launch.trace" "SELECT count(DISTINCT a.seq) FROM accesses a JOIN events e ON e.seq = a.seq WHERE e.name = (SELECT id FROM names WHERE name = 'kernel')")
t=$(q "$T/launch.trace" "SELECT count(*) FROM events WHERE type = 2 AND t_start IS NOT NULL")
[ "${k:-0}" -gt 0 ] && [ "$a" = "$k" ] && [ "$t" -ge "$k" ]
ok $? "its kernels are recorded, each touching its buffer, with GPU times ($k kernels, $a with accesses, $t timed)"

# CUDA 13's <<<>>> path: __cudaLaunchKernel with NULL params
cap cuda13 FAKECUPTI_CUDA13_LAUNCH=1 memplan-capture -o "$T/cuda13.trace" --iteration 2 -- \
	"$APP" "$T/swap.trace" --iterations 3 --launch --mark --check-errors
ok $? "capture with __cudaLaunchKernel reported without params"
k13=$(q "$T/cuda13.trace" "SELECT count(*) FROM events WHERE type = 2 AND name = (SELECT id FROM names WHERE name = 'kernel')")
a13=$(q "$T/cuda13.trace" "SELECT count(DISTINCT a.seq) FROM accesses a JOIN events e ON e.seq = a.seq WHERE e.name = (SELECT id FROM names WHERE name = 'kernel')")
[ "$k13" = "$k" ] && [ "$a13" = "$k" ]
ok $? "  ... the same kernels, with their buffers from the nested driver launch ($k13 kernels, $a13 with accesses)"

done_testing
