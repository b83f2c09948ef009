#!/bin/sh
# memplan-capture end to end without a GPU: the real injection library
# records tests/cuda/app on the stand-in libcudart and libcupti
# (tests/cuda/cudart.c, tests/cuda/cupti.c).  The capture must leave no
# error on the program's thread (PyTorch checks cudaGetLastError after
# every launch), keep the kernels CUDA 13 reports without params, keep
# requests the runtime never sees off the plan's clock, and join every
# allocation's source.
. tests/cli/lib.sh
# a sanitizer-built library needs the sanitizer runtimes first
PRE="$(ldd "$BUILD_DIR/lib/libmemplan.so" 2>/dev/null |
	awk '/lib(asan|ubsan|tsan)\./ { printf "%s ", $3 }')$BUILD_DIR/lib/libmemplan.so"

S=$BUILD_DIR/tests/cuda/cupti
APP=$BUILD_DIR/tests/cuda/app
if [ ! -e "$S/libcupti.so.13" ] || [ ! -e "$BUILD_DIR/lib/libmemplan-capture.so" ]; then
	skip "capture on the stand-ins" "built without CUPTI's headers (no capture library)"
	done_testing
	exit
fi
"$BUILD_DIR/tests/cuda/fixtures" "$T" 2>"$T/err"
ok $? "the fixtures"

# cap NAME CMD...: CMD on the stand-ins (NAME says which capture)
cap() {
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

bw=$(q "$T/launch.trace" "SELECT count(*) FROM meta WHERE key IN ('bandwidth_h2d', 'bandwidth_d2h') AND CAST(value AS REAL) > 0")
[ "$bw" = 2 ]
ok $? "the link is measured at the end, on a stream and events of the capture's own"

# CUDA 13's <<<>>> path: __cudaLaunchKernel with NULL params
cap cuda13 FAKECUPTI_CUDA13_LAUNCH=1 memplan-capture -o "$T/cuda13.trace" --iteration 2 -- \
	"$APP" "$T/swap.trace" --iterations 3 --launch --mark --check-errors
ok $? "capture with __cudaLaunchKernel reported without params"
k13=$(q "$T/cuda13.trace" "SELECT count(*) FROM events WHERE type = 2 AND name = (SELECT id FROM names WHERE name = 'kernel')")
a13=$(q "$T/cuda13.trace" "SELECT count(DISTINCT a.seq) FROM accesses a JOIN events e ON e.seq = a.seq WHERE e.name = (SELECT id FROM names WHERE name = 'kernel')")
[ "$k13" = "$k" ] && [ "$a13" = "$k" ]
ok $? "  ... the same kernels, with their buffers from the nested driver launch ($k13 kernels, $a13 with accesses)"

# a pinned host buffer inside the iteration (cudaMallocHost, which the
# runtime does not interpose): off the plan's request clock, so that the
# plan is followed under LD_PRELOAD with no divergence
cap pinned memplan-capture -o "$T/pinned.trace" --iteration 2 -- \
	"$APP" "$T/swap.trace" --iterations 3 --mark --pinned --check-errors
ok $? "capture of an iteration with a pinned host allocation"
h=$(q "$T/pinned.trace" "SELECT count(*) FROM buffers b JOIN buffer_sources s ON s.buffer = b.id WHERE b.kind = 3 AND s.bypass = 1")
[ "$h" = 1 ]
ok $? "  ... recorded as bypassing the runtime ($h pinned buffer)"
expect 0 "  ... compiles to a plan" memplan-plan compile "$T/pinned.trace" -o "$T/pinned.plan"
expect 0 "  ... as does the iteration without it" memplan-plan compile "$T/launch.trace" -o "$T/plain.plan"
rp=$(memplan-plan inspect --json "$T/pinned.plan" | grep -o '"nrequests":[0-9]*' | cut -d: -f2)
rq=$(memplan-plan inspect --json "$T/plain.plan" | grep -o '"nrequests":[0-9]*' | cut -d: -f2)
[ -n "$rp" ] && [ "$rp" = "$rq" ]
ok $? "  ... with the same requests on its clock ($rp, $rq)"
LD_PRELOAD=$PRE MEMPLAN_PLAN=$T/pinned.plan MEMPLAN_SHOW_STATS=1 \
	"$APP" "$T/swap.trace" --iterations 4 --pinned --check-errors >"$T/out" 2>"$T/err"
ok $? "the plan runs under LD_PRELOAD with the pinned allocations"
d=$(awk '$1 == "divergences" { print $2 }' "$T/err" | tail -1)
c=$(awk '$1 == "completed" { print $2 }' "$T/err" | tail -1)
[ "$d" = 0 ] && [ "${c:-0}" -gt 0 ]
ok $? "  ... and follows it: ${c:-no} iterations completed, ${d:-no} divergences"

done_testing
