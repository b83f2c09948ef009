#!/bin/sh
# memplan-capture: options and bad input without a GPU.  What a CLI test
# can show here: usage errors, outputs it refuses (unwritable, existing,
# locked by another capture), programs that cannot start or never use CUDA,
# a tool already injecting, and a "CUDA program" (cuInit's call to
# InitializeInjection made by hand) that meets a machine without a driver.
# Each failure must leave no output file behind.  Recording a real program
# needs a GPU: tests/gpu/capture_resnet18.sh.
. tests/cli/lib.sh

LIB="$(dirname "$(command -v memplan-capture)")/../lib/libmemplan-capture.so"

expect 0 "--help exits 0" memplan-capture --help
has "$T/out" "usage: memplan-capture" "--help prints usage on stdout"
has "$T/out" "--iteration" "--help lists --iteration"
expect 0 "--version exits 0" memplan-capture --version
expect 2 "no program is a usage error" memplan-capture
has "$T/err" "no program to run" "says what is missing"
expect 2 "unknown option" memplan-capture --bogus /bin/true
expect 2 "iteration 0 is refused" memplan-capture -n 0 /bin/true
has "$T/err" "iteration '0' is not a whole number" "names the setting and value"
expect 2 "iteration that is not a number" memplan-capture --iteration 3x /bin/true
expect 2 "unknown '@' range name" memplan-capture --range @nvtx /bin/true
has "$T/err" "unknown range '@nvtx'" "names the unknown range"
expect 2 "empty output name" memplan-capture -o "" /bin/true

# outputs it must not touch
expect 4 "unwritable output folder" memplan-capture -o /nonexistent-dir/x.trace /bin/true
has "$T/err" "cannot write trace '/nonexistent-dir/x.trace'" "names the output"
echo "a good trace" >"$T/old.trace"
expect 4 "an existing output is refused" memplan-capture -o "$T/old.trace" /bin/true
has "$T/err" "already exists; use --force" "says how to replace it"
[ "$(cat "$T/old.trace")" = "a good trace" ]
ok $? "the existing output is unchanged"
# the first holds the output for 4 s (any readable file stands in for the
# library: sleep never loads it); the second starts once the lock is there,
# however slow the machine (not a timing test)
( MEMPLAN_CAPTURE_LIB=/dev/null memplan-capture -o "$T/busy.trace" sleep 4 >/dev/null 2>&1 ) &
first=$!
i=0
while [ ! -e "$T/busy.trace.lock" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.2 # from the lock file's creation to its flock
expect 4 "a second capture on the same output is refused" \
	memplan-capture -o "$T/busy.trace" /bin/true
has "$T/err" "another memplan-capture is writing it" "says another capture holds it"
wait $first
[ ! -e "$T/busy.trace.lock" ]
ok $? "the lock file is removed when the capture ends"

# programs that give nothing to capture
if [ -r "$LIB" ]; then
	expect 3 "a program that cannot be started" memplan-capture -o "$T/a.trace" /nonexistent/prog
	has "$T/err" "cannot start '/nonexistent/prog': No such file or directory" "names the program and why"
	expect 3 "a program that never touches CUDA" memplan-capture -o "$T/a.trace" /bin/true
	has "$T/err" "'/bin/true' never initialized CUDA" "a clear message, not an empty success"
	expect 3 "the program's failure is reported too" memplan-capture -o "$T/a.trace" /bin/false
	has "$T/err" "exited with status 1" "with its exit status"
	[ -z "$(ls "$T" | grep '^a\.trace')" ]
	ok $? "no output and no temporary files are left"
	env CUDA_INJECTION64_PATH=/opt/nsight/libToolsInjection64.so \
		memplan-capture -o "$T/a.trace" /bin/true >"$T/out" 2>"$T/err"
	[ $? -eq 3 ]
	ok $? "another tool already injecting is a conflict (exit 3)"
	has "$T/err" "another CUDA tool (Nsight Systems, Nsight Compute)" "names the conflict"
	# what cuInit does with CUDA_INJECTION64_PATH, by hand
	if ldd "$LIB" 2>/dev/null | grep -q 'libasan\|libubsan'; then
		# an uninstrumented python cannot load a sanitizer-built library
		ok 0 "# SKIP InitializeInjection by hand: the library is built with sanitizers"
	elif command -v python3 >/dev/null 2>&1; then
		memplan-capture -o "$T/b.trace" python3 -c \
			"import ctypes, os; ctypes.CDLL(os.environ['CUDA_INJECTION64_PATH']).InitializeInjection()" \
			>"$T/out" 2>"$T/err"
		st=$?
		if [ -e /dev/nvidiactl ]; then
			[ $st -eq 0 ] && [ -s "$T/b.trace" ]
			ok $? "with a driver, an empty run still gives a trace"
		else
			[ $st -eq 3 ] && grep -q "cannot subscribe to CUPTI" "$T/err" && [ ! -e "$T/b.trace" ]
			ok $? "without a driver, the injection library refuses clearly and no trace appears"
		fi
	fi
else
	ok 0 "# SKIP $LIB not built (no CUDA toolkit)"
	expect 5 "without the library the launcher says so" memplan-capture -o "$T/a.trace" /bin/true
fi
# NVTX's injection library is the capture library itself (it hands NVTX to
# the libcupti it is bound to), never a toolkit libcupti by path; any
# readable file stands in for the library: the child never loads it
echo lib >"$T/fake-capture.so"
( unset NVTX_INJECTION64_PATH
  MEMPLAN_CAPTURE_LIB="$T/fake-capture.so" memplan-capture -o "$T/n.trace" \
	sh -c 'printf "%s\n%s\n" "$NVTX_INJECTION64_PATH" "$CUDA_INJECTION64_PATH" >"$0"' "$T/env" \
	>/dev/null 2>&1 )
[ "$(sed -n 1p "$T/env")" = "$T/fake-capture.so" ] && [ "$(sed -n 2p "$T/env")" = "$T/fake-capture.so" ]
ok $? "the child gets NVTX_INJECTION64_PATH = CUDA_INJECTION64_PATH = the capture library"
NVTX_INJECTION64_PATH=/opt/other/libnvtxtool.so MEMPLAN_CAPTURE_LIB="$T/fake-capture.so" \
	memplan-capture -o "$T/n.trace" sh -c 'printf "%s\n" "$NVTX_INJECTION64_PATH" >"$0"' "$T/env" \
	>"$T/out" 2>"$T/err"
[ "$(cat "$T/env")" = /opt/other/libnvtxtool.so ]
ok $? "an NVTX tool the user set is kept"
has "$T/err" "NVTX_INJECTION64_PATH is already set to '/opt/other/libnvtxtool.so'" "and the capture says its ranges will not reach memplan"

# the build: CUPTI found in a pip-style layout (only lib/libcupti.so.13),
# and a toolkit without CUPTI said loudly (make -n: nothing is compiled)
if [ -r Makefile ] && [ -r capture/build.mk ] && command -v make >/dev/null 2>&1; then
	mkdir -p "$T/cuda-pip/include" "$T/cuda-pip/lib" "$T/cuda-bare/include"
	: >"$T/cuda-pip/include/cuda.h"
	: >"$T/cuda-pip/include/cupti.h"
	: >"$T/cuda-pip/lib/libcupti.so.13"
	: >"$T/cuda-bare/include/cuda.h"
	make -n CUDA_HOME="$T/cuda-pip" BUILD="$T/b" "$T/b/lib/libmemplan-capture.so" >"$T/out" 2>"$T/err"
	grep -q -- "-l:libcupti.so.13" "$T/out" && grep -q -- "-Wl,-rpath,$T/cuda-pip/lib/" "$T/out"
	ok $? "build: CUPTI as lib/libcupti.so.13 alone is found and linked by name"
	make -n CUDA_HOME="$T/cuda-bare" BUILD="$T/b" >"$T/out" 2>"$T/err"
	grep -q "CUDA toolkit at $T/cuda-bare but no CUPTI" "$T/err" &&
		grep -q "libmemplan-capture.so is NOT built" "$T/err"
	ok $? "build: a toolkit without CUPTI is a warning naming what is missing"
else
	ok 0 "# SKIP build checks: not run from the source tree"
	ok 0 "# SKIP build checks: not run from the source tree"
fi

MEMPLAN_CAPTURE_LIB=/nonexistent/lib.so memplan-capture -o "$T/c.trace" /bin/true >"$T/out" 2>"$T/err"
[ $? -eq 5 ]
ok $? "a capture library that is not there is an internal error (exit 5)"
has "$T/err" "libmemplan-capture.so was not found" "names the library"

done_testing
