#!/bin/sh
# Issue 30: a buffer used on a second stream is never swapped.  The
# runtime's copy-out waits for the work of the buffer's own stream alone, so
# a write still queued on another stream (which libmemplan(3) allows, the
# program ordering it with events) would land in the bytes lent to the
# buffer placed over it.  A zoo trace whose swapped buffer gets a use on a
# second stream (its last kernel moved to stream 1): verify and
# memplan-replay refuse the plan that swaps it, naming buffer and streams,
# and compile --budget plans the trace without swapping it.
. tests/cli/lib.sh

if ! command -v sqlite3 >/dev/null 2>&1; then
	skip "the rest of this test" "the sqlite3 shell is not installed"
	done_testing
	exit
fi

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "a zoo trace, one stream"
expect 0 "compile --budget 80%: a plan with swaps" \
	memplan-plan compile "$T/r.trace" --budget 80% --link pcie5 -o "$T/s.plan"
memplan-plan inspect --json "$T/s.plan" >"$T/s.json" 2>"$T/err"
ok $? "  ... inspect --json"
req=$(grep -o '"swaps":\[{"request":[0-9]*' "$T/s.json" | sed 's/.*://')
buf=$(grep -o '"allocs":.*' "$T/s.json" | tr '}' '\n' | sed -n "$((req + 1))p" |
	sed 's/.*"buffer":\([0-9]*\).*/\1/')
case $buf in
'' | *[!0-9]*) false ;;
*) true ;;
esac
ok $? "  ... its first swap is of buffer $buf (request $req)"

# the last kernel that uses the buffer runs on stream 1 instead: the same
# requests, so the same fingerprint and STREAMS section (allocations stay
# on stream 0)
cp "$T/r.trace" "$T/x.trace"
sqlite3 "$T/x.trace" "UPDATE events SET stream = 1 WHERE type = 2 AND seq =
	(SELECT max(seq) FROM accesses WHERE buffer = $buf)" 2>"$T/err"
ok $? "the trace with buffer $buf also used on stream 1"

expect 1 "verify refuses the plan that swaps it (exit 1)" \
	memplan-plan verify "$T/s.plan" "$T/x.trace"
has "$T/err" "is used on streams 0 and 1" "  ... naming the streams"
grep -qE "buffer [0-9]+ is used on streams 0 and 1" "$T/err"
ok $? "  ... and the buffer"
expect 0 "  ... and accepts it against the trace it was made for" \
	memplan-plan verify "$T/s.plan" "$T/r.trace"
expect 1 "memplan-replay: invalid too" memplan-replay "$T/s.plan" "$T/x.trace"
has "$T/out" "is used on streams 0 and 1" "  ... saying why"

expect 0 "compile --budget 80% of the trace with two streams" \
	memplan-plan compile "$T/x.trace" --budget 80% --link pcie5 -o "$T/y.plan"
memplan-plan inspect --json "$T/y.plan" >"$T/y.json" 2>"$T/err"
ok $? "  ... inspect --json"
# the buffers of the plan's swaps
reqs=$(grep -o '"swaps":.*' "$T/y.json" | grep -o '"request":[0-9]*' | sed 's/.*://')
[ -n "$reqs" ]
ok $? "  ... the plan still swaps"
grep -o '"allocs":.*' "$T/y.json" | sed 's/"swaps":.*//' | tr '}' '\n' |
	sed -n 's/.*"buffer":\([0-9]*\).*/\1/p' >"$T/bufs"
swapped=""
for r in $reqs; do
	swapped="$swapped $(sed -n "$((r + 1))p" "$T/bufs")"
done
! echo " $swapped " | grep -q " $buf "
ok $? "  ... but never buffer $buf (swapped:$(echo "$swapped" | head -c 80) ...)"
expect 0 "  ... and the plan verifies" memplan-plan verify "$T/y.plan" "$T/x.trace"
expect 0 "  ... and replays" memplan-replay "$T/y.plan" "$T/x.trace"

done_testing
