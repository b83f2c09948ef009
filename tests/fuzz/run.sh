#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/run.sh - `make fuzz`: each fuzz target for FUZZ_SECONDS with
# libFuzzer (clang -fsanitize=fuzzer,address,undefined) when clang has it,
# else with the built-in driver for many more runs than `make check` does.
# A sanitizer's report stops the target and fails it: UBSan does not
# recover (-fno-sanitize-recover=all, as SANITIZE= builds do), so undefined
# behaviour is never a printed line in a target that exits 0.  The built-in
# driver has the sanitizers of its build: `make fuzz SANITIZE=address,undefined`
# (as .ci/run does); without them it says so.
# Every target runs (a corpus folder that does not exist would make
# libFuzzer stop at once, so the seed folders are made first and only
# existing ones are passed); one line per target, then "N passed, N failed".
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
out=$BUILD/fuzz
mkdir -p "$out"
# the core library's sources and include folders, from the Makefile (which
# keeps interpose.c for libmemplan.so alone); the same found here otherwise
dirs=$(find cli traces analyze planner runtime -maxdepth 1 -type d | sort)
core=${FUZZ_CORE_SRC:-$(for d in $dirs; do ls "$d"/*.c 2>/dev/null; done |
	grep -v -e '/memplan-' -e 'runtime/interpose\.c')}
includes=${FUZZ_INCLUDES:-$(for d in $dirs; do printf -- '-I%s ' "$d"; done)}
BUILD=$BUILD sh tests/fuzz/seeds.sh
seeds=$BUILD/tests/seeds
cc=${CC_FUZZ:-clang}
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 $includes"
norecover=-fno-sanitize-recover=all
libfuzzer=0
if echo 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}' |
	$cc -x c -fsanitize=fuzzer - -o "$out/probe" 2>/dev/null; then
	libfuzzer=1
	# the core once, instrumented, for every target
	objs=""
	for src in $core; do
		o=$out/obj/$(echo "$src" | tr / _).o
		mkdir -p "$out/obj"
		$cc $flags -fsanitize=fuzzer-no-link,address,undefined $norecover \
			$(pkg-config --cflags sqlite3) -c "$src" -o "$o" || {
			echo "fuzz: cannot compile $src"
			echo "0 passed, 1 failed"
			exit 1
		}
		objs="$objs $o"
	done
fi
pass=0
fail=0
for target in tests/fuzz/fuzz_*.c; do
	name=$(basename "$target" .c)
	kind=${name#fuzz_}
	corpus=$out/corpus-$kind
	mkdir -p "$corpus"
	dirs=""
	for d in tests/fuzz/seeds/$kind "$seeds/$kind"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	if [ "$libfuzzer" -eq 1 ]; then
		echo "== $name: libFuzzer for ${FUZZ_SECONDS}s"
		if $cc $flags -fsanitize=fuzzer,address,undefined $norecover "$target" $objs \
			$(pkg-config --libs sqlite3) -lz -lm -lpthread -ldl -o "$out/$name" &&
			"$out/$name" -max_total_time="$FUZZ_SECONDS" -max_len=1048576 \
				-artifact_prefix="$out/$name-" "$corpus" $dirs; then
			pass=$((pass + 1))
			echo "ok - $name"
		else
			fail=$((fail + 1))
			echo "not ok - $name"
		fi
	else
		runs=$((FUZZ_SECONDS * 3000))
		echo "== $name: no libFuzzer in $cc; built-in driver, $runs runs${SANITIZE:+, sanitizers $SANITIZE}"
		[ -n "${SANITIZE:-}" ] ||
			echo "# built without sanitizers: undefined behaviour goes unseen (make fuzz SANITIZE=address,undefined)"
		if "$BUILD/tests/$name" -runs=$runs -crash="$out/$name-crash.bin" \
			$dirs; then
			pass=$((pass + 1))
			echo "ok - $name"
		else
			fail=$((fail + 1))
			echo "not ok - $name"
		fi
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
