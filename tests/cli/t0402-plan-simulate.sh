#!/bin/sh
# memplan-plan simulate: a plan without swaps predicts the trace's own
# time; a swap plan's overhead, stalls and peak, as text and JSON; an SVG
# that is well-formed and written atomically; a plan for another trace and
# bad options refused.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo trace to plan"
memplan-trace synth --model resnet50 --batch 8 -o "$T/r8.trace" 2>"$T/err"
ok $? "a second trace, another batch size"
memplan-plan compile "$T/r.trace" -o "$T/n.plan" >/dev/null 2>"$T/err"
ok $? "a plan without swaps"
memplan-plan compile "$T/r.trace" --budget 70% -o "$T/s.plan" >/dev/null 2>"$T/err"
ok $? "a plan with swaps (--budget 70%)"

expect 0 "simulate a plan without swaps" memplan-plan simulate "$T/n.plan" "$T/r.trace"
has "$T/out" "overhead 0.00%" "  ... no overhead"
has "$T/out" "0 waits" "  ... no stall"

expect 0 "simulate a plan with swaps" memplan-plan simulate "$T/s.plan" "$T/r.trace"
has "$T/out" "without swaps, overhead" "  ... predicted time vs no swaps"
has "$T/out" "swaps:  " "  ... the swaps"
has "$T/out" "peak:" "  ... the peak resident bytes"

expect 0 "simulate --json" memplan-plan simulate --json "$T/s.plan" "$T/r.trace"
has "$T/out" '"overhead_percent":' "  ... overhead"
has "$T/out" '"top_stalls":[' "  ... the stalls"
has "$T/out" '"swap_slack":[{' "  ... every swap's slack"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["swaps"] > 0 and d["iter_ns"] >= d["base_ns"] and d["peak"] <= d["pool"]' "$T/out"
	ok $? "  ... parses, with swaps, no faster than the trace, peak within the pool"
fi

expect 0 "simulate on an infinitely fast link" \
	memplan-plan simulate --json --link infinite "$T/s.plan" "$T/r.trace"
has "$T/out" '"stall_ns":0,' "  ... no stall"

expect 0 "simulate -o FILE.svg" memplan-plan simulate "$T/s.plan" "$T/r.trace" -o "$T/s.svg"
[ -s "$T/s.svg" ]
ok $? "  ... writes the SVG"
has "$T/s.svg" "</svg>" "  ... complete"
has "$T/s.svg" 'class="H2D"' "  ... with the copy lanes"
if command -v python3 >/dev/null 2>&1; then
	python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$T/s.svg" 2>"$T/err"
	ok $? "  ... well-formed XML"
fi
n=$(grep -o '<[a-z]' "$T/s.svg" | wc -l)
[ "$n" -lt 4000 ]
ok $? "  ... a bounded element count ($n)"

expect 1 "a plan for another trace is refused, exit 1 as verify's" memplan-plan simulate "$T/s.plan" "$T/r8.trace"
has "$T/err" "does not fit trace '$T/r8.trace': fingerprint mismatch" "  ... in verify's words"
expect 3 "a missing plan" memplan-plan simulate "$T/none.plan" "$T/r.trace"
expect 3 "a missing trace" memplan-plan simulate "$T/s.plan" "$T/none.trace"

expect 2 "no TRACE" memplan-plan simulate "$T/s.plan"
expect 2 "an unknown option" memplan-plan simulate --bogus "$T/s.plan" "$T/r.trace"
expect 2 "--link pcie9" memplan-plan simulate --link pcie9 "$T/s.plan" "$T/r.trace"
has "$T/err" "pcie9" "  ... naming it"
expect 2 "-o -" memplan-plan simulate "$T/s.plan" "$T/r.trace" -o -
expect 0 "simulate --help" memplan-plan simulate --help
has "$T/out" "simulate PLAN TRACE" "  ... prints the usage"

mkdir "$T/ro" && chmod 555 "$T/ro"
if [ ! -w "$T/ro" ]; then
	expect 4 "an unwritable -o" memplan-plan simulate "$T/s.plan" "$T/r.trace" -o "$T/ro/s.svg"
	[ -z "$(ls -A "$T/ro")" ]
	ok $? "  ... leaves nothing behind"
fi
expect 4 "-o in a missing folder" memplan-plan simulate "$T/s.plan" "$T/r.trace" -o "$T/nowhere/s.svg"
[ ! -e "$T/nowhere" ]
ok $? "  ... leaves nothing behind"

done_testing
