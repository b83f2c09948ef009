#!/bin/sh
# An output that is a device or a pipe (-o /dev/null, a FIFO) is written in
# place or refused, never replaced: the temporary-file-and-rename that keeps
# a good file from a half-written one would put a regular file where
# /dev/null was (as root, for the whole machine).  A FIFO stands in for the
# device here: a reader drains it, and it must still be a FIFO afterwards.
. tests/cli/lib.sh

memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" >/dev/null 2>&1
ok $? "a zoo trace"

reader=
fifo() { # name: a FIFO with a reader that drains it into NAME.got
	rm -f "$T/$1" "$T/$1.got"
	mkfifo "$T/$1"
	cat "$T/$1" >"$T/$1.got" &
	reader=$!
}
# still_fifo NAME DESCRIPTION: the FIFO is there, not a file; a reader the
# command never wrote to is stopped
still_fifo() {
	[ -p "$T/$1" ]
	st=$?
	sleep 0.2
	kill "$reader" 2>/dev/null
	wait "$reader" 2>/dev/null
	ok $st "$2"
}

fifo plan
expect 0 "compile -o a FIFO" memplan-plan compile "$T/a.trace" -o "$T/plan"
still_fifo plan "  ... the FIFO is still a FIFO (the plan went through it)"
[ -s "$T/plan.got" ]
ok $? "  ... and its reader got the plan"

fifo svg
expect 0 "frontier -o a FIFO" memplan-plan frontier "$T/a.trace" --step 25 -o "$T/svg"
still_fifo svg "  ... the FIFO is still a FIFO"
has "$T/svg.got" "<svg" "  ... and its reader got the picture"

fifo json
expect 0 "memplan-trace export -o a FIFO" memplan-trace export --to minimalloc-csv "$T/a.trace" -o "$T/json"
still_fifo json "  ... the FIFO is still a FIFO"

fifo tr
expect 4 "slice -o a FIFO: a trace is an SQLite file" memplan-trace slice "$T/a.trace" --iteration 1 -o "$T/tr"
has "$T/err" "not a regular file" "  ... refused, saying why"
still_fifo tr "  ... the FIFO is still a FIFO"

if command -v memplan-capture >/dev/null 2>&1; then
	fifo cap
	expect 2 "memplan-capture -o a FIFO" memplan-capture -o "$T/cap" -- true
	has "$T/err" "not a regular file" "  ... refused before the program runs"
	still_fifo cap "  ... the FIFO is still a FIFO"
else
	skip "memplan-capture -o a FIFO" "memplan-capture not built (no CUDA toolkit)"
fi

done_testing
