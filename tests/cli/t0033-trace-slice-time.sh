#!/bin/sh
# Times a person can type: memplan-trace slice --from-time/--to-time take
# offsets from the trace's start with a unit (250us, 1ms, 2.5s) beside the
# raw timestamps; a window that holds no event names the trace's valid
# range (offsets and timestamps) and the window that takes it all; info
# says whether its span is GPU or wall-clock time.
. tests/cli/lib.sh

z=$T/z.trace
memplan-trace synth --model alexnet --batch 2 -o "$z" >/dev/null
ok $? "a zoo trace"
expect 0 "info" memplan-trace info "$z"
has "$T/out" "ms of modelled GPU time (timestamps 0.." "  ... the span says what its times measure"
expect 0 "info --json" memplan-trace info --json "$z"
has "$T/out" '"time_kind":"modelled GPU time"' "  ... and so does its JSON"
first=$(sed 's/.*"time_first":\([0-9]*\).*/\1/' "$T/out")

expect 0 "slice --from-time 100us --to-time 0.3ms" memplan-trace slice "$z" --from-time 100us --to-time 0.3ms -o "$T/a.trace"
# the same window in raw timestamps
expect 0 "the same window as timestamps" memplan-trace slice "$z" --from-time $((first + 100000)) \
	--to-time $((first + 300000)) -o "$T/b.trace"
memplan-trace info --json "$T/a.trace" | sed 's/"trace":"[^"]*",//; s/"slice":"[^"]*",//' >"$T/a"
memplan-trace info --json "$T/b.trace" | sed 's/"trace":"[^"]*",//; s/"slice":"[^"]*",//' >"$T/b"
cmp -s "$T/a" "$T/b"
ok $? "  ... gives the same slice"
n=$(memplan-trace info --json "$T/a.trace" | sed 's/.*"events":\([0-9]*\),.*/\1/')
[ "$n" -gt 0 ] && [ "$n" -lt 218 ]
ok $? "  ... a part of the trace ($n of 218 events)"
expect 0 "--from-time 0s --to-time 1s takes all" memplan-trace slice "$z" --from-time 0s --to-time 1s -o "$T/c.trace"
memplan-trace info --json "$T/c.trace" | grep -q '"events":218,'
ok $? "  ... every event"

expect 3 "a window past the end" memplan-trace slice "$z" --from-time 5s --to-time 6s -o "$T/x.trace"
has "$T/err" "no event starts between 5.000s and 6.000s after its start" "  ... says what was asked"
has "$T/err" "its events start from 0 to " "  ... and the valid range"
has "$T/err" "takes them all; modelled GPU time, timestamps" "  ... with the window that takes it all"
to=$(sed -n 's/.*--to-time \([0-9]*us\) takes them all.*/\1/p' "$T/err")
expect 0 "the window the error suggests ($to) works" memplan-trace slice "$z" --from-time 0us --to-time "$to" -o "$T/d.trace"
memplan-trace info --json "$T/d.trace" | grep -q '"events":218,'
ok $? "  ... and takes every event"
[ ! -e "$T/x.trace" ]
ok $? "no output is left behind"
expect 2 "an unknown unit" memplan-trace slice "$z" --from-time 1min --to-time 2min -o "$T/x.trace"
has "$T/err" "(1ms, 250us, 2.5s after the trace's start, or a timestamp in ns)" "  ... says what a time looks like"
expect 2 "a window backwards" memplan-trace slice "$z" --from-time 2ms --to-time 1ms -o "$T/x.trace"
has "$T/err" "--from-time must come before --to-time" "  ... says so"
expect 2 "a negative time" memplan-trace slice "$z" --from-time -1ms --to-time 1ms -o "$T/x.trace"

# a MiniMalloc CSV counts abstract units: units are refused, integers kept
printf 'id,lower,upper,size\n0,0,10,4\n1,5,20,8\n2,12,30,4\n' >"$T/m.csv"
memplan-trace import --from minimalloc-csv "$T/m.csv" -o "$T/m.trace" >/dev/null 2>&1
expect 0 "info of a MiniMalloc CSV" memplan-trace info "$T/m.trace"
has "$T/out" "(abstract time units)" "  ... its times are abstract units"
expect 2 "a unit on abstract times" memplan-trace slice "$T/m.trace" --from-time 1ms --to-time 2ms -o "$T/x.trace"
has "$T/err" "counts abstract time units, not seconds: give --from-time and --to-time as integers from 0 to" "  ... names the valid integers"

need_python3
python3 tests/import/make_snapshot.py train "$T/s.pickle" >/dev/null &&
	memplan-trace import --device 0 "$T/s.pickle" -o "$T/s.trace" >/dev/null
ok $? "a snapshot's trace"
expect 0 "info of it" memplan-trace info "$T/s.trace"
has "$T/out" "ms of wall-clock time" "  ... its span is wall-clock time"
expect 0 "slice it by offsets" memplan-trace slice "$T/s.trace" --from-time 0ms --to-time 2ms -o "$T/s2.trace"

done_testing
