#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/bench/instructions.sh - the runtime's instructions per request,
# counted by callgrind on `bench_runtime --count` (each case's requests
# only, the same requests for the runtime and for malloc), and the guard
# that keeps them within a few percent of a baseline.  Counted instructions
# are the same on every run of one binary, where nanoseconds swing 2-3x on a
# loaded machine.  `make bench` prints the counts; `make check`
# (tests/cli/t0308) runs the guard on the normal build.
#
# Usage: instructions.sh [--counts FILE] [BENCH]
#            rows "runtime_CASE_instructions_per_request N instructions",
#            malloc's, and their ratio
#        instructions.sh --check BASELINE [--counts FILE] [BENCH]
#            exit 0 when every runtime_CASE is within TOLERANCE percent
#            (default 3) of the baseline, 1 when one grew past it, 3 when
#            the guard cannot judge here (no valgrind, a SANITIZE build,
#            another compiler, flags or C library than the baseline's),
#            saying why on stdout
#        instructions.sh --record BASELINE [BENCH]
#            writes the baseline of this build
# BENCH: default $BUILD/bench/bench_runtime.  --counts FILE reads
# "NAME VALUE" lines (NAME as in the baseline: runtime_window ...) instead
# of running callgrind, so that the guard's own logic can be tested.  The
# build is named by the DW_AT_producer of $BUILD/obj/runtime/runtime.o (the
# compiler, its version and the code-generating flags; -D flags are not in
# it) and the C library by getconf GNU_LIBC_VERSION.
BUILD=${BUILD:-build}
TOLERANCE=${TOLERANCE:-3}
mode=show
baseline=
counts=
while [ $# -gt 0 ]; do
	case $1 in
	--check | --record)
		mode=${1#--}
		[ $# -ge 2 ] || { echo "instructions.sh: error: $1 needs a baseline file" >&2; exit 2; }
		baseline=$2
		shift 2 ;;
	--counts)
		[ $# -ge 2 ] || { echo "instructions.sh: error: --counts needs a file" >&2; exit 2; }
		counts=$2
		shift 2 ;;
	-*) echo "instructions.sh: error: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
bench=${1:-$BUILD/bench/bench_runtime}
tmp=$(mktemp -d /tmp/memplan-instructions.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT

# The build's identity: compiler and flags, C library.
producer() {
	readelf --debug-dump=info "$BUILD/obj/runtime/runtime.o" 2>/dev/null |
		sed -n 's/.*DW_AT_producer *: *\(([^)]*): *\)\{0,1\}//p' | head -n 1
}
libc() {
	getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown
}

# measure: NAME VALUE rows of instructions per request into $tmp/counts
# (runtime_CASE and malloc_CASE), or says why it cannot and returns 3.
measure() {
	if [ -n "$counts" ]; then
		cp "$counts" "$tmp/counts"
		return 0
	fi
	if ! command -v valgrind >/dev/null 2>&1; then
		echo "valgrind is not installed (apt-get install valgrind): no instruction counts"
		return 3
	fi
	if [ ! -x "$bench" ]; then
		echo "'$bench' is not built"
		return 3
	fi
	valgrind --tool=callgrind --collect-atstart=no \
		--callgrind-out-file="$tmp/cg" "$bench" --count >"$tmp/requests" 2>"$tmp/err"
	st=$?
	if [ $st -eq 3 ]; then # built without valgrind/callgrind.h
		sed -n 's/^bench_runtime: error: //p' "$tmp/err"
		return 3
	fi
	if [ $st -ne 0 ]; then
		echo "instructions.sh: error: callgrind on '$bench' failed (status $st):" >&2
		tail -n 5 "$tmp/err" >&2
		return 2
	fi
	: >"$tmp/counts"
	for f in "$tmp"/cg.*; do
		[ -f "$f" ] || continue
		name=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
		total=$(sed -n 's/^totals: *//p' "$f")
		[ -n "$name" ] && [ -n "$total" ] || continue
		n=$(awk -v c="requests_${name#*_}" '$1 == c { print $2 }' "$tmp/requests")
		[ -n "$n" ] && [ "$n" -gt 0 ] || continue
		awk -v name="$name" -v t="$total" -v n="$n" \
			'BEGIN { printf "%s %.1f\n", name, t / n }' >>"$tmp/counts"
	done
	if ! grep -q '^runtime_' "$tmp/counts"; then
		echo "instructions.sh: error: callgrind wrote no counts for '$bench'" >&2
		return 2
	fi
	return 0
}

case $mode in
show)
	measure >"$tmp/why"
	st=$?
	if [ $st -ne 0 ]; then
		sed 's/^/(instruction counts skipped: /; s/$/)/' "$tmp/why"
		exit $st
	fi
	awk '{ v[$1] = $2; order[n++] = $1 }
	END {
		for (i = 0; i < n; i++) {
			name = order[i]
			if (name !~ /^runtime_/)
				continue
			c = substr(name, 9)
			printf "runtime_%s_instructions_per_request %s instructions\n", c, v[name]
			if (("malloc_" c) in v) {
				printf "malloc_%s_instructions_per_request %s instructions\n", c, v["malloc_" c]
				printf "runtime_%s_instructions_over_malloc %.2f x\n", c, v[name] / v["malloc_" c]
			}
		}
	}' "$tmp/counts"
	;;
record)
	measure >"$tmp/why"
	st=$?
	[ $st -eq 0 ] || { cat "$tmp/why"; exit $st; }
	{
		echo "# The runtime's instructions per request on bench_runtime --count"
		echo "# (tests/bench/instructions.sh --record), $(date -u +%Y-%m-%d)."
		echo "# runtime_CASE rows are the guard's (make check, t0308);"
		echo "# malloc_CASE rows are for comparison only."
		echo "build $(producer)"
		echo "libc $(libc)"
		cat "$tmp/counts"
	} >"$baseline"
	echo "recorded $(grep -c '^runtime_' "$tmp/counts") cases in '$baseline'"
	;;
check)
	if [ ! -r "$baseline" ]; then
		echo "instructions.sh: error: cannot read baseline '$baseline'" >&2
		exit 2
	fi
	if [ -z "$counts" ]; then
		want=$(sed -n 's/^build //p' "$baseline")
		have=$(producer)
		case $have in
		'') echo "'$BUILD/obj/runtime/runtime.o' has no DW_AT_producer (built without -g?): not the normal make build"
			exit 3 ;;
		*-fsanitize*) echo "a SANITIZE build ($have): instruction counts of sanitized code mean nothing"
			exit 3 ;;
		esac
		if [ "$have" != "$want" ]; then
			echo "this build ($have) is not the baseline's ($want): counts compare only between identical builds; tests/bench/instructions.sh --record '$baseline' records one for this build"
			exit 3
		fi
		want=$(sed -n 's/^libc //p' "$baseline")
		if [ "$(libc)" != "$want" ]; then
			echo "this C library ($(libc)) is not the baseline's ($want): pass-through requests count its instructions"
			exit 3
		fi
	fi
	measure >"$tmp/why"
	st=$?
	[ $st -eq 0 ] || { cat "$tmp/why"; exit $st; }
	awk -v tol="$TOLERANCE" -v base="$baseline" '
	FNR == NR { if ($1 ~ /^runtime_/) b[$1] = $2; next }
	$1 ~ /^runtime_/ { now[$1] = $2 }
	END {
		bad = 0
		for (name in b) {
			if (!(name in now)) {
				printf "%s: in the baseline, not measured\n", name
				bad = 1
				continue
			}
			d = 100 * (now[name] - b[name]) / b[name]
			if (d > tol) {
				printf "%s: %s instructions per request, %.1f%% over the baseline %s (more than %s%%): the hot path got slower\n", name, now[name], d, b[name], tol
				bad = 1
			} else if (d < -tol) {
				printf "%s: %s instructions per request, %.1f%% under the baseline %s: faster (tests/bench/instructions.sh --record %s keeps it so)\n", name, now[name], -d, b[name], base
			} else {
				printf "%s: %s instructions per request, baseline %s (%+.1f%%)\n", name, now[name], b[name], d
			}
		}
		exit bad
	}' "$baseline" "$tmp/counts"
	;;
esac
