#!/bin/sh
# libmemplan in a program that does not know it: the tests' CUDA client
# (tests/cuda/app.c) on the stand-in libcudart, with LD_PRELOAD and through
# PyTorch's pluggable-allocator entry points.  Interposition, recognised
# iterations, fallback, divergence, swaps and cross-stream reuse under random
# delays; wrong plans and a library missing one event wait make the client's
# checks fail; bad plans leave the program on the real allocator.  The
# client takes the CUDA runtime's last error after every call (as PyTorch
# does after every launch): the library's own calls must leave none behind.
# Buffers read on side streams (mp_torch_record_stream), and iterations
# captured into CUDA graphs, which the stand-in invalidates at the first
# call of the runtime's own that real CUDA refuses during a capture.
. tests/cli/lib.sh

APP=$BUILD/tests/cuda/app
LIB=$BUILD_DIR/lib/libmemplan.so
FAULTY=$BUILD_DIR/tests/cuda/libmemplan-faulty.so
# A sanitizer-built library needs the sanitizer runtimes first.
preload() {
	san=$(ldd "$1" 2>/dev/null | awk '/lib(asan|ubsan|tsan)\./ { printf "%s ", $3 }')
	echo "$san$1"
}
PRE=$(preload "$LIB")
"$BUILD/tests/cuda/fixtures" "$T" 2>"$T/err"
ok $? "the fixtures"

# run NAME PLAN APP-ARGS...: the client under LD_PRELOAD with statistics,
# checking the last error after every CUDA call
run() {
	what=$1
	plan=$2
	shift 2
	LD_PRELOAD=$PRE MEMPLAN_PLAN=$plan MEMPLAN_SHOW_STATS=1 "$APP" --check-errors "$@" >"$T/out" 2>"$T/err"
	st=$?
	cat "$T/err" >>"$T/out"
	[ $st -eq 0 ]
	ok $? "$what"
	[ $st -ne 0 ] && sed 's/^/#   /' "$T/out" | head -20
}
stat_is() { # NAME VALUE DESCRIPTION
	grep -qE "^$1 +$2 " "$T/out"
	st=$?
	[ $st -ne 0 ] && grep -E "^$1 " "$T/out" | sed 's/^/#   got: /'
	ok $st "$3"
}

"$APP" "$T/swap.trace" >"$T/out" 2>"$T/err"
ok $? "the client passes its own checks on the stand-in alone"

run "with LD_PRELOAD and a plan without swaps: every check passes" "$T/noswap.plan" "$T/swap.trace" --iterations 4
stat_is completed 4 "  ... 4 iterations followed to their end, the first one recognised"
stat_is planned_allocs 12 "  ... the 3 after the first (which matched the plan's 4 allocations first) from the pool"
stat_is divergences 0 "  ... no divergence"
has "$T/out" "0 bad frees" "  ... the stand-in never got a pointer it did not hand out"
has "$T/out" "memplan: statistics at exit" "  ... MEMPLAN_SHOW_STATS=1 prints the statistics"

run "a plan with a swap: every check passes" "$T/swap.plan" "$T/swap.trace" --iterations 4
stat_is swaps_out 3 "  ... 3 swap-outs"
stat_is swaps_in 3 "  ... 3 swap-ins"
export FAKECUDA_DELAY_US=300 FAKECUDA_COPY_DELAY_US=20000
run "  ... also with slow copies and random delays on every stream" "$T/swap.plan" "$T/swap.trace" --iterations 4
run "  ... and with cudaMallocAsync on 2 streams" "$T/swap.plan" "$T/swap.trace" --iterations 4 --async --streams 2
run "  ... and with a new pair of streams every iteration, 20 iterations (more streams than the runtime's slots)" \
	"$T/swap.plan" "$T/swap.trace" --iterations 20 --async --streams 2 --fresh-streams
stat_is completed 20 "  ... every iteration followed, swaps included"
stat_is divergences 0 "  ... no divergence"
unset FAKECUDA_DELAY_US FAKECUDA_COPY_DELAY_US

# sticky errors: the runtime's event queries (statistics) find copies still
# running, and a query that says so must not stay behind as the last error
"$APP" --check-errors "$T/swap.trace" >"$T/out" 2>&1
ok $? "the client checking the last error after every call passes on the stand-in alone"
export FAKECUDA_PINNED_DELAY_US=20000
run "a swap plan with slow swap copies: no error left behind after any call (as PyTorch checks)" \
	"$T/swap.plan" "$T/swap.trace" --iterations 4
grep -qE '^swap(in|out)_late +[1-9]' "$T/out"
ok $? "  ... where the runtime's event queries found copies still running"
run "  ... also with cudaMallocAsync on 2 streams" "$T/swap.plan" "$T/swap.trace" --iterations 4 --async --streams 2
# without the driver's cuEventQuery: cudaEventQuery, its error taken back
saved_path=${LD_LIBRARY_PATH-}
export LD_LIBRARY_PATH=$BUILD/tests/cuda/nodriver${saved_path:+:$saved_path}
run "  ... also without the driver's cuEventQuery (cudaEventQuery)" "$T/swap.plan" "$T/swap.trace" --iterations 4
LD_PRELOAD=$PRE MEMPLAN_PLAN=$T/swap.plan MEMPLAN_SHOW_STATS=1 "$APP" --keep-error \
	"$T/swap.trace" --iterations 4 >"$T/out" 2>&1
ok $? "  ... and an error of the program's pending throughout is neither taken nor replaced"
has "$T/out" "pending at the end: invalid device ordinal" "  ... the program's own"
LD_LIBRARY_PATH=$saved_path
[ -n "$saved_path" ] || unset LD_LIBRARY_PATH
LD_PRELOAD=$PRE MEMPLAN_PLAN=$T/swap.plan MEMPLAN_SHOW_STATS=1 "$APP" --keep-error \
	"$T/swap.trace" --iterations 4 >"$T/out" 2>&1
ok $? "  ... nor with the driver's cuEventQuery"
grep -qE '^swap(in|out)_late +[1-9]' "$T/out"
ok $? "  ... whose queries found copies still running too"
unset FAKECUDA_PINNED_DELAY_US
# a failed pool or staging allocation: the real allocator, and no error
for c in "no room for the pool:noswap:FAKECUDA_MEM=170000:cannot take the pool" \
	 "no pinned host memory for the staging:swap:FAKECUDA_HOST_MEM=1000:pinned host staging"; do
	IFS=: read -r what plan knob text <<EOF
$c
EOF
	env "$knob" LD_PRELOAD="$PRE" MEMPLAN_PLAN="$T/$plan.plan" MEMPLAN_SHOW_STATS=1 \
		"$APP" --check-errors "$T/swap.trace" >"$T/out" 2>&1
	ok $? "$what: the real allocator, and no error left behind after any call"
	has "$T/out" "$text" "  ... after the warning"
	stat_is planned_allocs 0 "  ... nothing from a pool"
done

run "  ... and with cuMemAlloc_v2" "$T/swap.plan" "$T/swap.trace" --iterations 4 --driver
stat_is swaps_out 3 "  ... which is interposed too"

# wrong on purpose: the client's checks must fail
LD_PRELOAD=$PRE MEMPLAN_PLAN=$T/overlap.plan "$APP" "$T/swap.trace" >"$T/out" 2>"$T/err"
[ $? -eq 1 ]
ok $? "a plan with two resident buffers sharing bytes makes the client fail"
has "$T/out" "holds the pattern of buffer 1" "  ... one buffer holds the other's bytes"
# (the copy-in waits for the borrower's free alone, not for the read of A
# enqueued after it: slow swap copies make that read come first)
FAKECUDA_PINNED_DELAY_US=20000 LD_PRELOAD=$PRE MEMPLAN_PLAN=$T/late.plan "$APP" "$T/swap.trace" >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 1 ] || [ $st -eq 66 ] # or ThreadSanitizer's: it sees that race too
ok $? "a plan with a swap-in after the buffer's use makes the client fail (slow swap copies)"
FAKECUDA_COPY_DELAY_US=20000 LD_PRELOAD=$(preload "$FAULTY") MEMPLAN_PLAN=$T/swap.plan \
	"$APP" "$T/swap.trace" --iterations 4 >"$T/out" 2>"$T/err"
[ $? -ne 0 ] # 1, or ThreadSanitizer's 66: it sees the race too
ok $? "a library whose swap-in lacks its event wait makes the client fail (slow copies)"
has "$T/out" "event 7: buffer 0" "  ... at the read after the swap-in"

# divergence, and the way back
run "an iteration that differs: every check still passes" "$T/swap.plan" "$T/swap.trace" --iterations 6 --diverge 2 --diverge 4
stat_is divergences 2 "  ... 2 divergences counted"
[ "$(grep -c 'memplan: warning: request 2 of the iteration is an alloc of 65792 bytes where the plan has an alloc of 65536 bytes' "$T/out")" -eq 1 ]
ok $? "  ... said once on stderr, with the request and what the plan expected"
export MEMPLAN_VERBOSE=1
run "  ... MEMPLAN_VERBOSE=1 says every divergence" "$T/swap.plan" "$T/swap.trace" --iterations 6 --diverge 2 --diverge 4
[ "$(grep -c 'memplan: warning: request 2' "$T/out")" -eq 2 ]
ok $? "  ... twice"
export MEMPLAN_VERBOSE=-1
run "  ... MEMPLAN_VERBOSE=-1 says nothing" "$T/swap.plan" "$T/swap.trace" --iterations 6 --diverge 2
unset MEMPLAN_VERBOSE
! grep -q "warning" "$T/out"
ok $? "  ... no warning"

# a zoo iteration, its compiled plan, several streams and random delays;
# the zoo's trace has one stream, and the client puts its buffers on
# several: the plans lose their STREAMS section (as older memplans wrote
# them), which would count each iteration a divergence (t0305)
memplan-trace synth --model resnet50 --batch 1 --dtype fp16 -o "$T/r.trace" 2>"$T/err" &&
	memplan-plan compile "$T/r.trace" -o "$T/r.plan" >/dev/null 2>"$T/err" &&
	"$BUILD/tests/cuda/fixtures" --strip-streams "$T/r.plan" "$T/r.plan" 2>"$T/err"
ok $? "a zoo iteration and its plan (ResNet-50, batch 1, fp16), without its stream section"
export FAKECUDA_DELAY_US=20
run "  ... 3 iterations on 3 streams with random delays: every check passes" \
	"$T/r.plan" "$T/r.trace" --iterations 3 --async --streams 3
unset FAKECUDA_DELAY_US
stat_is completed 3 "  ... all followed"
grep -qE '^stream_waits +[1-9]' "$T/out"
ok $? "  ... with the waits that reuse across streams needs"

memplan-plan compile --budget 70% "$T/r.trace" -o "$T/rs.plan" >/dev/null 2>"$T/err" &&
	"$BUILD/tests/cuda/fixtures" --strip-streams "$T/rs.plan" "$T/rs.plan" 2>"$T/err"
ok $? "the swap planner's plan for 70% of the lower bound (without its stream section)"
export FAKECUDA_DELAY_US=20 FAKECUDA_COPY_DELAY_US=300
run "  ... followed on 2 streams with slow copies: every check passes" \
	"$T/rs.plan" "$T/r.trace" --iterations 3 --async --streams 2
unset FAKECUDA_DELAY_US FAKECUDA_COPY_DELAY_US
grep -qE '^swaps_in +[1-9]' "$T/out"
ok $? "  ... its swaps ran"
stat_is divergences 0 "  ... no divergence"

# PyTorch's way in: dlopen(RTLD_LOCAL), mp_torch_alloc / mp_torch_free
MEMPLAN_PLAN=$T/swap.plan MEMPLAN_SHOW_STATS=1 FAKECUDA_COPY_DELAY_US=5000 \
	"$APP" "$T/swap.trace" --iterations 4 --async --torch "$LIB" >"$T/out" 2>&1
ok $? "the pluggable-allocator entry points, loaded as PyTorch loads them: every check passes"
stat_is swaps_out 3 "  ... the plan is followed, swaps included"

# record_stream: every buffer a kernel reads is also read on a slow side
# stream, freed on its own stream without waiting for that one
for plan in noswap swap; do
	MEMPLAN_PLAN=$T/$plan.plan MEMPLAN_SHOW_STATS=1 "$APP" --check-errors "$T/swap.trace" \
		--iterations 4 --async --torch "$LIB" --side-stream >"$T/out" 2>&1
	ok $? "buffers read on a side stream too, told with mp_torch_record_stream ($plan.plan): every check passes"
	stat_is completed 4 "  ... every iteration followed"
done
grep -q "has no mp_torch_record_stream" "$T/out"
[ $? -ne 0 ]
ok $? "  ... libmemplan.so exports mp_torch_record_stream"
FAKECUDA_DELAY_US=300 MEMPLAN_PLAN=$T/swap.plan "$APP" --check-errors "$T/swap.trace" \
	--iterations 6 --async --streams 2 --torch "$LIB" --side-stream >"$T/out" 2>&1
ok $? "  ... also on 2 streams with random delays"

# CUDA graphs: an iteration captured with the runtime following the plan
# around it; the runtime's own calls would break the capture
for mode in global thread relaxed; do
	run "an iteration captured into a CUDA graph ($mode mode) on cudaMallocAsync, 2 streams around it: the capture holds" \
		"$T/swap.plan" "$T/swap.trace" --iterations 4 --async --streams 2 --capture 2 --capture-mode "$mode"
	has "$T/out" "0 captures invalidated" "  ... the stand-in saw no forbidden call"
done
has "$T/out" "iteration 2 captured into a graph, launched twice" "  ... and the graph ran twice, its checks passing"
stat_is captured 8 "  ... the capture's 8 requests went to the real allocator"
stat_is completed 3 "  ... the iterations around it followed the plan"
stat_is divergences 0 "  ... with no divergence"
MEMPLAN_PLAN=$T/swap.plan MEMPLAN_SHOW_STATS=1 "$APP" --check-errors "$T/swap.trace" \
	--iterations 4 --async --torch "$LIB" --capture 2 >"$T/out" 2>&1
ok $? "an iteration captured through the pluggable-allocator entry points: the capture holds"
stat_is captured 8 "  ... its requests served by the real allocator (cudaMalloc in relaxed mode)"
stat_is capture_kept 4 "  ... its frees kept (the graph uses the memory)"
has "$T/out" "freed during a CUDA stream capture" "  ... said once"

# bad plans: one warning, then the real allocator, and the program runs
bad() { # DESCRIPTION EXPECTED-TEXT PLAN [env...]
	what=$1
	text=$2
	plan=$3
	shift 3
	env "$@" LD_PRELOAD="$PRE" MEMPLAN_PLAN="$plan" MEMPLAN_SHOW_STATS=1 \
		"$APP" "$T/swap.trace" >"$T/out" 2>&1
	ok $? "$what: the program runs on the real allocator"
	has "$T/out" "$text" "  ... after one warning"
	[ "$(grep -c 'memplan: warning' "$T/out")" -eq 1 ]
	ok $? "  ... only one"
	stat_is planned_allocs 0 "  ... nothing from a pool"
}
bad "a missing plan" "plan '$T/missing.plan'" "$T/missing.plan"
printf 'not a plan, but long enough to look for its header in the first 64 bytes' >"$T/foreign.plan"
bad "a foreign file" "not a memplan plan file" "$T/foreign.plan"
head -c 300 "$T/swap.plan" >"$T/cut.plan"
bad "a truncated plan" "cut.plan" "$T/cut.plan"
bad "a plan for a device this machine lacks" "is for device 3, and this machine has 1 device" "$T/dev3.plan"
bad "two plans for one device" "is for the same device as an earlier one" "$T/swap.plan,$T/noswap.plan"
bad "no room for the pool" "cannot take the pool of 180224 bytes on device 0: out of memory" "$T/noswap.plan" FAKECUDA_MEM=170000
# a plan aligned below cudaMalloc's 256 bytes (a MiniMalloc CSV's, or a
# memplan's before that rule): refused on CUDA before a request is compared
printf 'id,lower,upper,size\n0,0,4,100\n1,2,6,50\n' >"$T/odd.csv"
memplan-plan compile "$T/odd.csv" -o "$T/align1.plan" >/dev/null 2>&1
bad "a plan aligned to 1 byte" "the plan's alignment is 1, below the 256 bytes CUDA allocations guarantee" "$T/align1.plan"
LD_PRELOAD=$PRE MEMPLAN_PLAN=$T/swap.plan MEMPLAN_DISABLE=1 MEMPLAN_SHOW_STATS=1 "$APP" "$T/swap.trace" >"$T/out" 2>&1
ok $? "MEMPLAN_DISABLE=1: the program runs"
has "$T/out" "disabled" "  ... and the statistics say the library was disabled"
for v in yes true TRUE on; do
	LD_PRELOAD=$PRE MEMPLAN_PLAN=$T/swap.plan MEMPLAN_DISABLE=$v MEMPLAN_SHOW_STATS=$v "$APP" "$T/swap.trace" >"$T/out" 2>&1
	has "$T/out" "statistics at exit (disabled" "  ... and so does MEMPLAN_DISABLE=$v (MEMPLAN_SHOW_STATS=$v)"
	! grep -q warning "$T/out"
	ok $? "  ... without a warning"
done
# values that mean nothing: named once each, the default applies
LD_PRELOAD=$PRE MEMPLAN_PLAN=$T/swap.plan MEMPLAN_DISABLE=banana MEMPLAN_MATCH=x \
	MEMPLAN_VERBOSE=loud MEMPLAN_SHOW_STATS=1 "$APP" "$T/swap.trace" >"$T/out" 2>&1
ok $? "MEMPLAN_DISABLE=banana, MEMPLAN_MATCH=x, MEMPLAN_VERBOSE=loud: the program runs"
has "$T/out" "MEMPLAN_DISABLE='banana' means nothing to libmemplan and was ignored: MEMPLAN_DISABLE=0 applies" "  ... saying MEMPLAN_DISABLE was ignored"
has "$T/out" "MEMPLAN_MATCH='x' means nothing" "  ... and MEMPLAN_MATCH"
has "$T/out" "MEMPLAN_VERBOSE='loud' means nothing" "  ... and MEMPLAN_VERBOSE"
[ "$(grep -c 'memplan: warning' "$T/out")" -eq 3 ]
ok $? "  ... once each"
stat_is completed 3 "  ... and follows the plan with the defaults"

# only the prefix and the interposed names are exported
nm -D --defined-only "$LIB" | awk '{ print $3 }' | grep -vE '^(mp_|cudaMalloc$|cudaFree$|cudaMallocAsync$|cudaFreeAsync$|cuMemAlloc_v2$|cuMemFree_v2$|cudaStreamBeginCapture(_ptsz)?$|cudaStreamBeginCaptureToGraph(_ptsz)?$|cudaStreamEndCapture(_ptsz)?$)' >"$T/extra"
[ ! -s "$T/extra" ]
ok $? "libmemplan.so exports mp_* and the interposed CUDA names alone"
[ -s "$T/extra" ] && sed 's/^/#   /' "$T/extra"
nm -D --defined-only "$LIB" | grep -q ' T mp_torch_alloc$'
ok $? "  ... mp_torch_alloc among them"
nm -D --defined-only "$LIB" | grep -q ' T mp_torch_record_stream$'
ok $? "  ... and mp_torch_record_stream"

done_testing
