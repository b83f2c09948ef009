#!/bin/sh
# memplan-replay: plans compiled by memplan-plan replay valid, on the host
# backend and on the CUDA backend over the test-only stand-in for libcudart;
# plans that are wrong on purpose (two resident buffers sharing bytes, a
# swap-in after a use) are found invalid with the buffers named; bad input
# and usage.
. tests/cli/lib.sh

FX=$BUILD/tests/cuda/fixtures
STUB=$BUILD_DIR/tests/cuda/libcudart.so.12
"$FX" "$T" 2>"$T/err"
ok $? "the fixtures (a trace, plans with and without a swap)"

expect 0 "a plan without swaps replays valid" memplan-replay "$T/noswap.plan" "$T/swap.trace"
has "$T/out" "valid: 2 iterations (2 followed), 16 requests (8 from the pool)" "  ... every iteration followed, every planned request from the pool"
expect 0 "a plan with a swap replays valid" memplan-replay --iterations 3 "$T/swap.plan" "$T/swap.trace"
has "$T/out" "3 swaps out, 0 problems" "  ... the swap ran in every iteration"

expect 1 "two buffers resident at once sharing bytes: invalid" memplan-replay "$T/overlap.plan" "$T/swap.trace"
has "$T/out" "problem: iteration 0, event 3 (a_to_c, seq 3), after 2 requests: buffer 0 (plan entry 0, 65536 bytes at pool offset 0) at a use: the word at byte 32768 holds bytes of buffer 1 (plan entry 1, 32768 bytes at pool offset 32768): two buffers resident at the same time overlap" \
	"  ... naming both buffers, their plan entries and the event"
has "$T/out" "invalid" "  ... and saying invalid"
expect 1 "a swap-in after a use: invalid" memplan-replay "$T/late.plan" "$T/swap.trace"
has "$T/out" "event 7 (read_a, seq 7), after 4 requests: buffer 0" "  ... at the read of the swapped buffer"
has "$T/out" "holds bytes of buffer 2" "  ... which holds the bytes of the buffer that borrowed them"
expect 1 "--max-reports 1 describes one problem" memplan-replay --max-reports 1 "$T/overlap.plan" "$T/swap.trace"
has "$T/out" "problem: ... and 11 more" "  ... and counts the rest"

# a trace hole the plan does not empty: the runtime moves only swaps, so a
# plan that places B over A's hole without a swap loses A, verify says so
# before the runtime does, and replay names the hole
expect 1 "swap.plan without its swap (B over A's trace hole): invalid" memplan-replay "$T/hole.plan" "$T/swap.trace"
has "$T/out" "buffer 0's trace hole [4, 7) (seq clock) went to buffer 2 without a swap, and the runtime moves only the plan's swaps" \
	"  ... naming the hole and the buffer that took it"
memplan-plan verify "$T/hole.plan" "$T/swap.trace" >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "requests 0 and 2 (buffers 0 and 2) overlap" "$T/err"
ok $? "  ... and verify refuses it too, naming A and B"

# MiniMalloc gaps: compile counts them resident (the plan replays valid);
# --trust-holes places over them and says so, and replay shows the cost
printf 'id,lower,upper,size,gaps\n0,0,10,1024,2-8\n1,3,7,1024,\n2,1,9,512,\n' >"$T/gaps.csv"
memplan-trace import --from minimalloc-csv "$T/gaps.csv" -o "$T/gaps.trace" 2>"$T/err"
ok $? "a MiniMalloc instance with gaps as a trace"
memplan-plan compile "$T/gaps.csv" -o "$T/g.plan" >"$T/out" 2>"$T/err"
has "$T/out" "pool 2.50 KiB (2560)" "  ... compiled with its gap resident: 2560 bytes"
expect 0 "  ... replays valid" memplan-replay "$T/g.plan" "$T/gaps.trace"
memplan-plan compile --trust-holes "$T/gaps.csv" -o "$T/gt.plan" >"$T/out" 2>"$T/err"
has "$T/out" "pool 1.50 KiB (1536)" "--trust-holes: buffer 1 in buffer 0's gap, 1536 bytes"
memplan-plan inspect "$T/gt.plan" >"$T/out" 2>"$T/err"
has "$T/out" "holes:        trusts the trace's holes" "  ... the plan says so (inspect)"
memplan-plan inspect --json "$T/gt.plan" >"$T/out" 2>"$T/err"
has "$T/out" '"trusts_holes":true' "  ... and in JSON"
# issue 30: verify is the runtime's contract, and the runtime does not
# empty trace holes: such a plan is valid only if something else does
expect 6 "  ... verify: exit 6, valid only if something else moves its hole" \
	memplan-plan verify "$T/gt.plan" "$T/gaps.csv"
has "$T/out" "valid for $T/gaps.csv only if something else moves 1 hole: the plan trusts the trace's holes" \
	"  ... the verdict says so"
has "$T/err" "relies on 1 trace hole that the runtime does not empty (exit 6; verify --trust-holes accepts that)" \
	"  ... and stderr why the status"
expect 6 "  ... --json: exit 6 too" memplan-plan verify --json "$T/gt.plan" "$T/gaps.csv"
has "$T/out" '"verdict":"valid_if_holes_moved","valid":false,"holes_to_move":1,"trusts_holes":true' \
	"  ... verdict valid_if_holes_moved, 1 hole"
expect 0 "  ... verify --trust-holes accepts it on its word (exit 0)" \
	memplan-plan verify --trust-holes "$T/gt.plan" "$T/gaps.csv"
has "$T/out" "only if something else moves 1 hole" "  ... with the same verdict"
expect 0 "a plan that does not trust holes: verify --json, exit 0" \
	memplan-plan verify --json "$T/g.plan" "$T/gaps.csv"
has "$T/out" '"verdict":"valid","valid":true,"holes_to_move":0,"trusts_holes":false' "  ... verdict valid"
printf 'id,lower,upper,size\n0,0,10,1024\n1,3,7,1024\n' >"$T/nogaps.csv"
memplan-plan compile --trust-holes "$T/nogaps.csv" -o "$T/ng.plan" >/dev/null 2>"$T/err"
expect 0 "a --trust-holes plan of a trace without holes needs none: exit 0" \
	memplan-plan verify "$T/ng.plan" "$T/nogaps.csv"
has "$T/out" "ng.plan: valid for" "  ... plainly valid"
expect 1 "an invalid plan: --json says invalid, exit 1" \
	memplan-plan verify --json "$T/gt.plan" "$T/nogaps.csv"
has "$T/out" '"verdict":"invalid","valid":false' "  ... verdict invalid"
has "$T/out" '"error":"fingerprint mismatch' "  ... with the error"
expect 1 "  ... and replay shows what the runtime alone does" memplan-replay "$T/gt.plan" "$T/gaps.trace"
has "$T/out" "buffer 0's trace hole [2, 8) (time clock) went to buffer 1 without a swap" "  ... naming the hole"
has "$T/out" "(the plan trusts the trace's holes: something else must move these bytes)" "  ... and the flag"
memplan-plan compile --trust-holes --budget 50% "$T/gaps.csv" -o "$T/x.plan" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "exclude each other" "$T/err"
ok $? "--trust-holes with --budget: usage error"

# plans the planner compiles, from every strategy, replay valid
memplan-trace import --from minimalloc-csv tests/fuzz/seeds/csv/small.csv -o "$T/small.trace" 2>"$T/err"
ok $? "a MiniMalloc instance as a trace"
for s in first-fit greedy-size best-fit exact; do
	memplan-plan compile --strategy $s "$T/small.trace" -o "$T/s.plan" >/dev/null 2>"$T/err"
	expect 0 "  ... its $s plan replays valid" memplan-replay "$T/s.plan" "$T/small.trace"
done
memplan-trace synth --model resnet50 --batch 1 --dtype fp16 -o "$T/r.trace" 2>"$T/err"
memplan-plan compile "$T/r.trace" -o "$T/r.plan" >/dev/null 2>"$T/err"
ok $? "a zoo iteration compiled (ResNet-50, batch 1, fp16)"
expect 0 "  ... replays valid" memplan-replay "$T/r.plan" "$T/r.trace"
has "$T/out" "(2 followed)" "  ... both iterations followed"

# the swap planner's plans: swaps to fit 70% of the lower bound
memplan-plan compile --budget 70% "$T/r.trace" -o "$T/rs.plan" >/dev/null 2>"$T/err"
ok $? "a plan with swaps for 70% of the lower bound (compile --budget)"
expect 0 "  ... replays valid" memplan-replay --iterations 3 "$T/rs.plan" "$T/r.trace"
n=$(sed -n 's/.* \([0-9]*\) swaps out, 0 problems$/\1/p' "$T/out")
[ "${n:-0}" -gt 0 ]
ok $? "  ... with its swaps executed ($n)"

# a plan for another iteration is not valid for this one
memplan-trace synth --model resnet50 --batch 2 --dtype fp16 -o "$T/r2.trace" 2>"$T/err"
expect 1 "a plan replayed with another model's trace: exit 1, as verify's" memplan-replay "$T/r.plan" "$T/r2.trace"
has "$T/err" "plan '$T/r.plan' does not fit trace '$T/r2.trace': fingerprint mismatch" "  ... in verify's words, before any replay"
expect 1 "a plan replayed with an unrelated trace: invalid" memplan-replay "$T/r.plan" "$T/swap.trace"

# the CUDA backend, on the stand-in
MEMPLAN_CUDART=$STUB FAKECUDA_DELAY_US=100 FAKECUDA_COPY_DELAY_US=2000 \
	expect 0 "--backend cuda on the stand-in libcudart: valid" \
	memplan-replay --backend cuda --iterations 3 "$T/swap.plan" "$T/swap.trace"
has "$T/out" "3 swaps out" "  ... swaps through cudaMemcpyAsync on the copy stream"
MEMPLAN_CUDART=$STUB expect 1 "--backend cuda finds the overlap too" \
	memplan-replay --backend cuda "$T/overlap.plan" "$T/swap.trace"
MEMPLAN_CUDART=/nonexistent/libcudart.so expect 5 "--backend cuda without a CUDA runtime: exit 5" \
	memplan-replay --backend cuda "$T/swap.plan" "$T/swap.trace"
has "$T/err" "memplan-replay: error: no CUDA runtime library" "  ... saying why"

# bad input and usage
printf 'not a plan, but long enough to look for its header in the first 64 bytes' >"$T/foreign.plan"
expect 3 "a foreign file as the plan: exit 3" memplan-replay "$T/foreign.plan" "$T/swap.trace"
has "$T/err" "not a memplan plan file" "  ... saying so"
expect 3 "a missing trace: exit 3" memplan-replay "$T/swap.plan" "$T/missing.trace"
expect 2 "one argument: usage error" memplan-replay "$T/swap.plan"
expect 2 "--iterations 0: usage error" memplan-replay --iterations 0 "$T/swap.plan" "$T/swap.trace"
expect 2 "--backend gpu: usage error" memplan-replay --backend gpu "$T/swap.plan" "$T/swap.trace"
expect 0 "--help" memplan-replay --help
has "$T/out" "usage: memplan-replay" "  ... prints the usage on stdout"

done_testing
