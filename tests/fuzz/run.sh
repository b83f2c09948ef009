#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/run.sh - `make fuzz`: each fuzz target for FUZZ_SECONDS with
# libFuzzer (clang -fsanitize=fuzzer,address,undefined) when clang has it,
# else with the built-in driver for many more runs than `make check` does.
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
seeds=$BUILD/tests/seeds
cc=${CC_FUZZ:-clang}
status=0
for target in tests/fuzz/fuzz_*.c; do
	name=$(basename "$target" .c)
	corpus=$out/corpus-${name#fuzz_}
	mkdir -p "$corpus"
	if echo 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}' |
		$cc -x c -fsanitize=fuzzer - -o "$out/probe" 2>/dev/null; then
		echo "== $name: libFuzzer for ${FUZZ_SECONDS}s"
		$cc -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 \
			-fsanitize=fuzzer,address,undefined $includes \
			$(pkg-config --cflags sqlite3) "$target" $core \
			$(pkg-config --libs sqlite3) -lm -lpthread -ldl -o "$out/$name" || exit 1
		"$out/$name" -max_total_time="$FUZZ_SECONDS" -max_len=1048576 \
			-artifact_prefix="$out/" "$corpus" tests/fuzz/seeds/"${name#fuzz_}" \
			"$seeds/${name#fuzz_}" || status=1
	else
		echo "== $name: no libFuzzer in $cc; built-in driver, 200000 runs"
		"$BUILD/tests/$name" -runs=200000 -crash="$out/$name-crash.bin" \
			tests/fuzz/seeds/"${name#fuzz_}" "$seeds/${name#fuzz_}" || status=1
	fi
done
exit $status
