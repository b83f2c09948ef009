#!/bin/sh
# --json on failure, for every command that has --json (memplan-plan's
# share, advise, inspect, frontier, link, per-GPU compile and compare;
# memplan-replay; memplan-analyze's; memplan-trace info): one JSON error
# object on standard output with the exit status, the messages still on
# stderr; a command that printed its own object (compare's rows with their
# errors, analyze check's verdict) gets no second one; compare's -j is its
# jobs, not --json.
. tests/cli/lib.sh
need_python3

memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" >/dev/null 2>&1
ok $? "a zoo trace"

# json_error FILE STATUS: FILE is one JSON error object with that status
json_error() {
	python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
d = json.loads(lines[0])
sys.exit(0 if len(lines) == 1 and d["exit_status"] == int(sys.argv[2])
         and d["error"] and d["messages"] else 1)' "$1" "$2" 2>/dev/null
}
# one_object FILE: FILE is one JSON object that is no error object
one_object() {
	python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
d = json.loads(lines[0])
sys.exit(0 if len(lines) == 1 and "exit_status" not in d else 1)' "$1" 2>/dev/null
}

check() { # STATUS DESCRIPTION CMD...
	want=$1
	expect "$@"
	json_error "$T/out" "$want"
	ok $? "  ... one JSON error object, exit_status $want"
	[ -s "$T/err" ]
	ok $? "  ... the messages still on stderr"
}

none=$T/none.trace
check 2 "share --json without --device-memory" memplan-plan share --json "$T/a.trace" -o "$T/d"
check 3 "share --json of a missing trace" memplan-plan share --json --device-memory 1GiB "$none" -o "$T/d"
check 3 "advise --json of a missing trace" memplan-plan advise --json "$none" --budget 50%
check 3 "advise -j of a missing trace" memplan-plan advise -j "$none" --budget 50%
check 2 "advise --json without --budget" memplan-plan advise --json "$T/a.trace"
check 3 "inspect --json of a missing plan" memplan-plan inspect --json "$T/none.plan"
check 3 "frontier --json of a missing trace" memplan-plan frontier --json "$none"
check 2 "link --json of an unknown model" memplan-plan link --json nosuch
check 3 "compile --per-gpu --json of a missing trace" memplan-plan compile --json \
	--per-gpu "$none" --budget 50% --link pcie4,gpus=2 -o "$T/p"
check 3 "memplan-replay --json of a missing plan" memplan-replay --json "$T/none.plan" "$T/a.trace"
check 2 "memplan-replay --json with a bad option" memplan-replay --json --iterations 0 "$T/none.plan" "$T/a.trace"
check 3 "memplan-analyze summary --json of a missing trace" memplan-analyze summary --json "$none"
check 3 "memplan-trace info --json of a missing trace" memplan-trace info --json "$none"

expect 3 "compare --json of a missing trace" memplan-plan compare --json "$none"
one_object "$T/out"
ok $? "  ... its own object (the row holds the error), no second one"
has "$T/out" "cannot open trace" "  ... naming the error in the row"
expect 3 "compare -j 1 (jobs) of a missing trace" memplan-plan compare --csv -j 1 "$none"
if grep -q '"exit_status"' "$T/out"; then r=1; else r=0; fi
ok $r "  ... -j is compare's jobs: no JSON error object"

expect 0 "advise --json that succeeds" memplan-plan advise --json "$T/a.trace" --budget 90%
one_object "$T/out"
ok $? "  ... prints its result only"

done_testing
