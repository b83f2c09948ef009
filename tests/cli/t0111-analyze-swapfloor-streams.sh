#!/bin/sh
# The swap floor keeps a buffer used on more than one stream resident, as
# the planner does (it never swaps nor recomputes one: t0422), so the floor
# memplan-analyze reports and the one memplan-plan explains a refusal with
# are the same figure, and no plan is promised below what the planner can
# reach.  A zoo trace with every other kernel moved to stream 1: most of
# its buffers are used on two streams and the floor rises towards the
# lower bound.
. tests/cli/lib.sh

if ! command -v sqlite3 >/dev/null 2>&1; then
	skip "the rest of this test" "the sqlite3 shell is not installed"
	done_testing
	exit
fi
floor() { # TRACE: swap_floor_bytes of the summary
	memplan-analyze summary --json "$1" | grep -o '"swap_floor_bytes":[0-9]*' | sed 's/.*://'
}
memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "a zoo trace, one stream"
cp "$T/r.trace" "$T/x.trace"
sqlite3 "$T/x.trace" "UPDATE events SET stream = 1 WHERE type = 2 AND seq % 2 = 1" 2>"$T/err"
ok $? "the same trace with every other kernel on stream 1"
one=$(floor "$T/r.trace")
two=$(floor "$T/x.trace")
lb=$(memplan-analyze summary --json "$T/x.trace" | grep -o '"swap_floor_lower_bound":[0-9]*' | sed 's/.*://')
[ -n "$one" ] && [ -n "$two" ] && [ -n "$lb" ]
ok $? "both floors computed ($one and $two bytes, lower bound $lb)"
[ "$two" -gt $((one * 3)) ] && [ "$two" -le "$lb" ]
ok $? "buffers used on two streams stay resident: the floor rises from $one to $two bytes, within the lower bound"

# the planner's bound on an infinite link is the same figure: a budget
# just below it is refused as below the floor, one just above is not
below=$((two - 1048576))
expect 1 "compile --budget just below the floor: no plan" \
	memplan-plan compile "$T/x.trace" --budget "$below" --link pcie5 -o "$T/b.plan"
has "$T/err" "no budget below the swap floor of this trace" "  ... said to be below the swap floor"
mib=$(awk -v b="$two" 'BEGIN { printf "%.2f MiB", b / 1048576 }')
has "$T/err" "swap floor of this trace, $mib" "  ... the floor memplan-analyze reports ($mib)"
[ ! -e "$T/b.plan" ]
ok $? "  ... and no plan written"
# three times the one-stream floor: a budget the old bound (streams not
# counted) called reachable
expect 1 "compile --budget 3x the one-stream floor: no plan" \
	memplan-plan compile "$T/x.trace" --budget $((one * 3)) --link pcie5 -o "$T/c.plan"
has "$T/err" "no budget below the swap floor of this trace, $mib" \
	"  ... below the floor of the trace with two streams"
expect 0 "summary of the trace with two streams" memplan-analyze summary "$T/x.trace"
has "$T/out" "swap floor:     $mib" "  ... gives the floor in MiB"

# the swappable room leaves them out too: idle at the peak, but no plan
# moves them (the streamed summary's digest and the whole trace alike)
room() { # TRACE: the swappable room's bytes
	memplan-analyze summary --json "$1" | grep -o '"swappable":{"bytes":[0-9]*' | sed 's/.*://'
}
r1=$(room "$T/r.trace")
r2=$(room "$T/x.trace")
[ -n "$r1" ] && [ -n "$r2" ] && [ "$r2" -lt $((r1 / 2)) ]
ok $? "the swappable room leaves buffers used on two streams out: $r1 bytes on one stream, $r2 on two"

done_testing
