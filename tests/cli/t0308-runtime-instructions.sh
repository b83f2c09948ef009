#!/bin/sh
# The guard on the runtime's hot path (issue 34): the instructions per
# request of bench_runtime --count under callgrind stay within 3% of
# tests/bench/bench_runtime.baseline.  The guard's logic on counts given to
# it (at, over and under the baseline, a case missing); the normal build
# against the baseline; and the same program over a runtime whose every
# alloc does a few instructions more (MP_FAULT_SLOW_HOT_PATH, about 7% on
# the window case) refused.  The measured checks skip, saying why, without
# valgrind and on a build that is not the baseline's (SANITIZE, other
# flags, compiler or C library).
. tests/cli/lib.sh

G=tests/bench/instructions.sh
BASE=tests/bench/bench_runtime.baseline
SLOW=$BUILD_DIR/tests/bench_runtime-slow

# counts FACTOR_WINDOW FACTOR_OTHERS: the baseline's runtime rows, the
# window case's times the first factor, the others' (ResNet-50, the window
# in a threaded process) times the second, into $T/counts
counts() {
	awk -v fw="$1" -v fr="$2" '
	$1 == "runtime_window" { printf "%s %.1f\n", $1, $2 * fw; next }
	$1 ~ /^runtime_/ { printf "%s %.1f\n", $1, $2 * fr }' "$BASE" >"$T/counts"
}

counts 1 1
expect 0 "counts equal to the baseline pass" sh "$G" --check "$BASE" --counts "$T/counts"
has "$T/out" "runtime_window: " "  ... naming each case"
counts 1.025 0.5
expect 0 "2.5% over on one case and half on the others pass" sh "$G" --check "$BASE" --counts "$T/counts"
has "$T/out" "under the baseline" "  ... saying the faster one may be recorded"
counts 1.04 1
expect 1 "4% over on the window case fails" sh "$G" --check "$BASE" --counts "$T/counts"
has "$T/out" "runtime_window: " "  ... naming the case"
has "$T/out" "over the baseline" "  ... and that it grew"
counts 1 1.035
expect 1 "3.5% over on the others fails" sh "$G" --check "$BASE" --counts "$T/counts"
grep -v resnet50 "$T/counts" >"$T/partial"
expect 1 "a case of the baseline left unmeasured fails" sh "$G" --check "$BASE" --counts "$T/partial"
has "$T/out" "not measured" "  ... saying so"
TOLERANCE=5 sh "$G" --check "$BASE" --counts "$T/counts" >"$T/out" 2>"$T/err"
ok $? "TOLERANCE=5 lets the 3.5% through"

sh "$G" --check "$BASE" >"$T/out" 2>"$T/err"
st=$?
if [ $st -eq 3 ]; then
	why=$(head -n 1 "$T/out")
	skip "the normal build within 3% of the baseline's instructions per request" "$why"
	skip "a hot path a few instructions slower is refused" "$why"
else
	sed 's/^/# /' "$T/out"
	ok $st "the normal build within 3% of the baseline's instructions per request"
	sh "$G" --check "$BASE" "$SLOW" >"$T/out" 2>"$T/err"
	st=$?
	sed 's/^/# slow: /' "$T/out"
	[ $st -eq 1 ] && grep -q "runtime_window: .* over the baseline" "$T/out"
	ok $? "a hot path a few instructions slower is refused"
fi

done_testing
