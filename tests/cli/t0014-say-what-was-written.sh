#!/bin/sh
# Commands that write a file say so in one line on stdout; a replay, which
# can take tens of seconds, shows its progress on a terminal (and only
# there: a pipe or a log stays clean).
. tests/cli/lib.sh

expect 0 "synth" memplan-trace synth --model resnet50 --batch 2 -o "$T/r.trace"
has "$T/out" "$T/r.trace: " "synth names the trace it wrote"
grep -qE 'buffers, [0-9]+ events$' "$T/out"
ok $? "synth counts its buffers and events"

expect 0 "export" memplan-trace export --to minimalloc-csv "$T/r.trace" -o "$T/r.csv"
has "$T/out" "$T/r.csv: MiniMalloc CSV of $T/r.trace" "export names the CSV it wrote"
expect 0 "export to stdout" memplan-trace export --to minimalloc-csv "$T/r.trace"
head -1 "$T/out" | grep -q '^id,'
ok $? "export to stdout writes only the CSV"

expect 0 "import" memplan-trace import --from minimalloc-csv "$T/r.csv" -o "$T/c.trace"
has "$T/out" "$T/c.trace: " "import names the trace it wrote"

expect 0 "timeline" memplan-analyze timeline -o "$T/r.svg" "$T/r.trace"
has "$T/out" "$T/r.svg: svg timeline" "timeline names the picture it wrote"

expect 0 "timeline to stdout" memplan-analyze timeline --format svg -o - "$T/r.trace"
head -c 5 "$T/out" | grep -q '^<'
ok $? "timeline to stdout writes only the picture"

expect 0 "compile with swaps" memplan-plan compile "$T/r.trace" --budget 80% -o "$T/r.plan"
expect 0 "replay in a pipe" memplan-replay --iterations 2 "$T/r.plan" "$T/r.trace"
grep -q "replaying" "$T/err"
[ $? -ne 0 ]
ok $? "no progress when stderr is not a terminal"
if command -v script >/dev/null 2>&1; then
	script -qec "memplan-replay --iterations 2 '$T/r.plan' '$T/r.trace'" /dev/null \
		>"$T/tty" 2>&1 </dev/null
	ok $? "replay on a terminal"
	tr '\r' '\n' <"$T/tty" >"$T/tty.lines"
	has "$T/tty.lines" "replaying: 100% (iteration 2 of 2)" "progress on a terminal"
	has "$T/tty.lines" "valid: 2 iterations" "and the verdict after it"
else
	skip "progress on a terminal" "no script(1) to make a terminal"
fi

done_testing
