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
# Seeds for the trace loader are real traces, made by the tools under test.
seeds=$BUILD/tests/seeds
mkdir -p "$seeds/trace"
"$MEMPLAN_BIN/memplan-trace" import --from minimalloc-csv \
	tests/fuzz/seeds/csv/small.csv -o "$seeds/trace/small.trace" >/dev/null 2>&1
"$MEMPLAN_BIN/memplan-trace" synth --model alexnet --batch 1 \
	-o "$seeds/trace/alexnet.trace" >/dev/null 2>&1
# Seeds for analyze's streaming reader: the same traces.
mkdir -p "$seeds/scan"
cp "$seeds/trace/"*.trace "$seeds/scan/" 2>/dev/null
# Seeds for the plan loader: plans compiled from those traces.
mkdir -p "$seeds/plan"
"$MEMPLAN_BIN/memplan-plan" compile --strategy greedy-size \
	"$seeds/trace/alexnet.trace" -o "$seeds/plan/alexnet.plan" >/dev/null 2>&1
# Seeds for the snapshot unpickler and the nsys reader: pickles and exports
# written by the generators of the import tests (python3, when there is one).
mkdir -p "$seeds/pickle" "$seeds/nsys"
if command -v python3 >/dev/null 2>&1; then
	for k in train periodic legacy otherprog; do
		python3 tests/import/make_snapshot.py $k "$seeds/pickle/$k.pickle" >/dev/null 2>&1
	done
	python3 tests/import/make_nsys.py current "$seeds/nsys/current.sqlite" >/dev/null 2>&1
	rm -f "$seeds/pickle/"*.expect "$seeds/nsys/"*.expect
fi
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
