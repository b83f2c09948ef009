#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/run.sh - runs every test program and script, each speaking TAP, and
# ends with "N passed, N failed" (one per TAP line; a program that crashes or
# exits non-zero without a "not ok" line counts one failure more).
# Called by `make check` with BUILD and SHARED_DATA set.
BUILD=${BUILD:-build}
export BUILD SHARED_DATA
case $BUILD in
/*) MEMPLAN_BIN=$BUILD/bin ;;
*) MEMPLAN_BIN=$PWD/$BUILD/bin ;;
esac
export MEMPLAN_BIN
logs=$BUILD/tests/logs
mkdir -p "$logs"
pass=0
fail=0
skipped=0

run_one() { # name, command...
	name=$1
	shift
	log=$logs/$(echo "$name" | tr / -).log
	"$@" >"$log" 2>&1
	status=$?
	p=$(grep -c '^ok ' "$log")
	s=$(grep -c '^ok .*# SKIP' "$log")
	p=$((p - s))
	f=$(grep -c '^not ok ' "$log")
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited with status $status" >>"$log"
	fi
	if [ "$p" -eq 0 ] && [ "$s" -eq 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name ran no test" >>"$log"
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skipped=$((skipped + s))
	if [ "$f" -ne 0 ]; then
		printf '  FAIL   %-36s %4d passed, %d failed\n' "$name" "$p" "$f"
		sed -e 's/^/         | /' "$log" | grep -v '^         | ok ' | tail -n 40
	elif [ "$s" -ne 0 ]; then
		printf '  %-6s %-36s %4d passed, %d skipped\n' \
			"$([ "$p" -eq 0 ] && echo SKIP || echo PASS)" "$name" "$p" "$s"
		grep '^ok .*# SKIP' "$log" | sed 's/^ok [0-9]* - /         | skipped: /' | head -n 3
	else
		printf '  PASS   %-36s %4d passed\n' "$name" "$p"
	fi
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/${t##*/}" "$t"
done
# Seeds the tools under test make (real traces, a plan, pickles, exports).
BUILD=$BUILD MEMPLAN_BIN=$MEMPLAN_BIN sh tests/fuzz/seeds.sh
seeds=$BUILD/tests/seeds
for t in "$BUILD"/tests/fuzz_*; do
	[ -x "$t" ] || continue
	n=${t##*/}
	run_one "fuzz/$n" "$t" -runs="${FUZZ_RUNS:-2000}" \
		-crash="$logs/$n-crash.bin" tests/fuzz/seeds/"${n#fuzz_}" "$seeds/${n#fuzz_}"
done
for t in tests/cli/t*.sh; do
	[ -f "$t" ] || continue
	n=${t##*/}
	run_one "cli/${n%.sh}" sh "$t"
done
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
