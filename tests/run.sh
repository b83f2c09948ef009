#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/run.sh - runs every test program and script, each speaking TAP, and
# ends with "N passed, N failed, N skipped" (one per TAP line; a program that
# crashes or exits non-zero without a "not ok" line counts one failure more).
# Called by `make check` with BUILD and SHARED_DATA set.
#
# Tests run MEMPLAN_TEST_JOBS at a time (default: the machine's cores), each
# into its own log; scripts that run make themselves run alone afterwards.
# Results are reported in a fixed order whatever order they finish in, with
# the slowest tests at the end.
BUILD=${BUILD:-build}
export BUILD SHARED_DATA
case $BUILD in
/*) MEMPLAN_BIN=$BUILD/bin ;;
*) MEMPLAN_BIN=$PWD/$BUILD/bin ;;
esac
export MEMPLAN_BIN
logs=$BUILD/tests/logs
mkdir -p "$logs"

# One job: sh tests/run.sh --one NAME COMMAND... (from xargs below)
if [ "${1:-}" = "--one" ]; then
	name=$2
	log=$logs/$(echo "$name" | tr / -).log
	shift 2
	t0=$(date +%s)
	"$@" >"$log" 2>&1
	echo $? >"$log.rc"
	sec=$(($(date +%s) - t0))
	echo "$sec" >"$log.sec"
	# progress while the rest runs; the ordered report comes at the end
	[ -t 1 ] && printf '  ran    %-36s %ds\n' "$name" "$sec"
	exit 0
fi

jobs=${MEMPLAN_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in
'' | *[!0-9]* | 0) echo "run.sh: MEMPLAN_TEST_JOBS='$jobs' is not a positive number" >&2
	exit 2 ;;
esac
pass=0
fail=0
skipped=0

report() { # name
	name=$1
	log=$logs/$(echo "$name" | tr / -).log
	status=$(cat "$log.rc" 2>/dev/null)
	[ -n "$status" ] || { status=1; echo "not ok - $name did not run" >>"$log"; }
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

# The job list: NAME COMMAND... one a line (no blanks inside words);
# serial jobs apart.
list=$logs/.jobs
serial=$logs/.serial
: >"$list"
: >"$serial"
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	echo "unit/${t##*/} $t" >>"$list"
done
# Seeds the tools under test make (real traces, a plan, pickles, exports).
BUILD=$BUILD MEMPLAN_BIN=$MEMPLAN_BIN sh tests/fuzz/seeds.sh
seeds=$BUILD/tests/seeds
for t in "$BUILD"/tests/fuzz_*; do
	[ -x "$t" ] || continue
	n=${t##*/}
	echo "fuzz/$n $t -runs=${FUZZ_RUNS:-2000} -crash=$logs/$n-crash.bin tests/fuzz/seeds/${n#fuzz_} $seeds/${n#fuzz_}" >>"$list"
done
for t in tests/cli/t*.sh; do
	[ -f "$t" ] || continue
	n=${t##*/}
	if grep -q '^[[:space:]]*make ' "$t"; then
		echo "cli/${n%.sh} sh $t" >>"$serial"
	else
		echo "cli/${n%.sh} sh $t" >>"$list"
	fi
done
rm -f "$logs"/*.rc "$logs"/*.sec
xargs -P "$jobs" -L 1 sh tests/run.sh --one <"$list"
xargs -P 1 -L 1 sh tests/run.sh --one <"$serial"
while read -r name rest; do
	report "$name"
done <<EOF_JOBS
$(cat "$list" "$serial")
EOF_JOBS
echo "slowest: $(for f in "$logs"/*.log.sec; do
	n=${f##*/}
	echo "$(cat "$f") ${n%.log.sec}"
done | sort -rn | head -n 5 | awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1 }')"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
