#!/bin/sh
# --json on failure: compile, verify and simulate print one JSON object on
# standard output, {"error", "exit_status", "messages"}, with the exit
# status unchanged and the messages still on standard error; verify --json
# gives its verdict as JSON (for a plan that does not fit too: its own
# object, no error object beside it); without --json standard output stays
# empty.
. tests/cli/lib.sh

memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" >/dev/null 2>&1 &&
	memplan-trace synth --model vgg16 --batch 2 -o "$T/v.trace" >/dev/null 2>&1
ok $? "two zoo traces"
expect 0 "compile a plan" memplan-plan compile "$T/a.trace" -o "$T/a.plan"

# json_error FILE STATUS: FILE is one JSON error object with that status
json_error() {
	python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
d = json.loads(lines[0])
sys.exit(0 if len(lines) == 1 and d["exit_status"] == int(sys.argv[2])
         and d["error"] and d["messages"] else 1)' "$1" "$2" 2>/dev/null
}

need_python3
expect 3 "compile --json of a missing trace" \
	memplan-plan compile --json "$T/none.trace" -o "$T/x.plan"
json_error "$T/out" 3
ok $? "  ... one JSON error object, exit_status 3"
has "$T/out" "\"error\":\"cannot open trace '$T/none.trace'" "  ... the error's sentence"
has "$T/err" "error: cannot open trace" "  ... and the message still on stderr"
expect 2 "compile --json with a bad option value" \
	memplan-plan compile --json --budget 70 "$T/a.trace" -o "$T/x.plan"
json_error "$T/out" 2
ok $? "  ... a usage error is JSON too, exit_status 2"
expect 1 "compile --json --max-pool too small" \
	memplan-plan compile --json --max-pool 1KiB "$T/a.trace" -o "$T/x.plan"
json_error "$T/out" 1
ok $? "  ... exit_status 1"
expect 0 "compile --json that succeeds" memplan-plan compile --json "$T/a.trace" -o "$T/x.plan"
has "$T/out" '"plan":' "  ... prints its result, no error object"
if grep -q '"error"' "$T/out"; then r=1; else r=0; fi
ok $r "  ... and no error"

expect 0 "verify --json" memplan-plan verify --json "$T/a.plan" "$T/a.trace"
has "$T/out" '"valid":true' "  ... the verdict as JSON"
expect 1 "verify --json of another trace" memplan-plan verify --json "$T/a.plan" "$T/v.trace"
has "$T/out" '"verdict":"invalid"' "  ... its verdict object says invalid"
has "$T/out" "fingerprint mismatch" "  ... saying why"
[ "$(wc -l <"$T/out")" -eq 1 ]
ok $? "  ... one object, no error object beside it"
expect 3 "verify --json of a missing plan" memplan-plan verify --json "$T/none.plan" "$T/a.trace"
json_error "$T/out" 3
ok $? "  ... no verdict: one JSON error object, exit_status 3"
expect 1 "simulate --json of another trace" memplan-plan simulate --json "$T/a.plan" "$T/v.trace"
json_error "$T/out" 1
ok $? "  ... one JSON error object, exit_status 1 (as verify's)"
expect 1 "simulate without --json" memplan-plan simulate "$T/a.plan" "$T/v.trace"
[ ! -s "$T/out" ]
ok $? "  ... nothing on standard output"

done_testing
