#!/bin/sh
# Every command whose answer goes to standard output, run with standard
# output on a full disk (/dev/full): the answer never reaches its reader, so
# the command must say so and exit 4, never 0 (a CI step that redirects
# `summary --json` into a file on a full disk would read an empty report as
# success).  With --json too: there the output runs through a temporary file
# and is copied back (cli/json_errors.c), which is where it went unseen; and
# --help and --list, whose text is an answer as well.  Then an output file
# on a full device.
. tests/cli/lib.sh

if [ ! -w /dev/full ]; then
	skip "commands on a full standard output" "no /dev/full here"
	done_testing
	exit
fi

memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" >/dev/null 2>&1
ok $? "a zoo trace"
memplan-plan compile "$T/a.trace" -o "$T/a.plan" >/dev/null 2>&1
ok $? "its plan"
memplan-plan compile "$T/a.trace" -o "$T/s.plan" --budget 90% >/dev/null 2>&1
ok $? "a swap plan"

# exit4 STDOUT CHECK TEXT SAYS CMD...: CMD with its stdout on STDOUT exits
# 4 (check CHECK) and its stderr holds TEXT (check SAYS)
exit4() {
	out=$1 check=$2 text=$3 says=$4
	shift 4
	"$@" >"$out" 2>"$T/err"
	got=$?
	[ "$got" -eq 4 ]
	st=$?
	[ $st -ne 0 ] && echo "#   exit status $got, expected 4: $*"
	ok $st "$check"
	has "$T/err" "$text" "$says"
}
# full WHAT CMD...: CMD with stdout on /dev/full exits 4 and says why
full() {
	what=$1
	shift
	exit4 /dev/full "$what: exit 4 on a full standard output" \
		"cannot write to standard output" "  ... and says so" "$@"
}

a=$T/a.trace
full "trace info" memplan-trace info "$a"
full "trace info --json" memplan-trace info --json "$a"
full "trace export" memplan-trace export --to minimalloc-csv "$a"
full "trace synth --list" memplan-trace synth --list
full "analyze summary" memplan-analyze summary "$a"
full "analyze summary --json" memplan-analyze summary --json "$a"
full "analyze check" memplan-analyze check "$a" --max-peak 100G
full "analyze check --json" memplan-analyze check --json "$a" --max-peak 100G
full "analyze diff" memplan-analyze diff "$a" "$a"
full "analyze diff --json" memplan-analyze diff --json "$a" "$a"
full "plan compile's report" memplan-plan compile "$a" -o "$T/b.plan"
full "plan compile --json" memplan-plan compile "$a" -o "$T/c.plan" --json
full "plan verify" memplan-plan verify "$T/a.plan" "$a"
full "plan verify --json" memplan-plan verify --json "$T/a.plan" "$a"
full "plan simulate" memplan-plan simulate "$T/s.plan" "$a"
full "plan simulate --json" memplan-plan simulate --json "$T/s.plan" "$a"
full "plan inspect" memplan-plan inspect "$T/a.plan"
full "plan inspect --json" memplan-plan inspect --json "$T/a.plan"
full "plan frontier" memplan-plan frontier "$a" --steps 2 --quiet
full "plan frontier --json" memplan-plan frontier "$a" --steps 2 --quiet --json
full "plan advise" memplan-plan advise "$a" --budget 90%
full "plan advise --json" memplan-plan advise --json "$a" --budget 90%
full "plan compare" memplan-plan compare "$a"
full "plan link" memplan-plan link
full "replay" memplan-replay "$T/a.plan" "$a"
full "replay --json" memplan-replay --json "$T/a.plan" "$a"
for p in memplan-trace memplan-analyze memplan-plan memplan-replay; do
	full "$p --help" "$p" --help
done
full "plan compile --help" memplan-plan compile --help
full "capture --help" memplan-capture --help

# an output file on a full device (-o /dev/full is written in place): the
# same rule (simulate and frontier said the SVG could not be written, then
# exited 0)
full_o() { # WHAT CMD...: exit 4, the file named
	what=$1
	shift
	exit4 /dev/null "$what: exit 4 when its file cannot be written" \
		/dev/full "  ... and names the file" "$@"
}
full_o "simulate -o" memplan-plan simulate "$T/s.plan" "$a" -o /dev/full
full_o "frontier -o" memplan-plan frontier "$a" --steps 2 --quiet -o /dev/full
full_o "check --junit" memplan-analyze check "$a" --max-peak 100G --junit /dev/full
full_o "compile -o" memplan-plan compile "$a" -o /dev/full
full_o "export -o" memplan-trace export --to minimalloc-csv "$a" -o /dev/full

# what a full standard output must not change: the plan file is still
# written whole, and the same commands on a good stdout exit 0
memplan-plan verify "$T/b.plan" "$a" >/dev/null 2>&1
ok $? "compile's plan file is whole although its report was lost"
expect 0 "summary --json on a good standard output exits 0" \
	memplan-analyze summary --json "$a"
has "$T/out" '"peak"' "  ... with its report"

done_testing
