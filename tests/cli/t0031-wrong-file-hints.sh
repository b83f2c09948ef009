#!/bin/sh
# The wrong file in the wrong place points to the fix: a PyTorch snapshot,
# an Nsight Systems export, an execution trace, a Kineto trace alone or a
# plan given where a command takes a TRACE, and a trace or an outside file
# given where it takes a PLAN, get an error (exit 3) that says what the
# file looks like and the command that makes the right one.  A plan given
# with a trace it was not made for gets one wording and exit 1 from
# verify, simulate and memplan-replay.
. tests/cli/lib.sh
need_python3

python3 tests/import/make_nsys.py current "$T/n.sqlite" >/dev/null &&
	python3 tests/import/make_snapshot.py train "$T/s.pickle" >/dev/null &&
	python3 tests/import/make_et.py 1.1.1 "$T/et.json" --kineto "$T/k.json" >/dev/null
ok $? "an nsys export, a snapshot, an execution trace and its Kineto trace"
memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" >/dev/null &&
	memplan-plan compile "$T/a.trace" -o "$T/a.plan" >/dev/null
ok $? "a trace and its plan"

# as TRACE: every command that takes one
for f in s.pickle n.sqlite et.json k.json a.plan; do
	case $f in
	s.pickle) hint="looks like a PyTorch memory snapshot: 'memplan-trace import $T/s.pickle -o TRACE'" ;;
	n.sqlite) hint="looks like an Nsight Systems SQLite export: 'memplan-trace import $T/n.sqlite -o TRACE'" ;;
	et.json) hint="looks like a PyTorch execution trace: 'memplan-trace import $T/et.json -o TRACE'" ;;
	k.json) hint="looks like a profiler (Kineto) trace: import it with its execution trace, 'memplan-trace import ET.json --kineto $T/k.json -o TRACE'" ;;
	a.plan) hint="it is a memplan plan, which goes where a command takes a PLAN" ;;
	esac
	expect 3 "memplan-plan compile $f" memplan-plan compile "$T/$f" -o "$T/x.plan"
	has "$T/err" "$hint" "  ... says what it is and the fix"
	expect 3 "memplan-analyze summary $f" memplan-analyze summary "$T/$f"
	has "$T/err" "$hint" "  ... the same hint"
	expect 3 "memplan-trace info $f" memplan-trace info "$T/$f"
	has "$T/err" "$hint" "  ... the same hint"
	expect 3 "memplan-plan verify PLAN $f" memplan-plan verify "$T/a.plan" "$T/$f"
	has "$T/err" "$hint" "  ... the same hint"
	expect 3 "memplan-replay PLAN $f" memplan-replay "$T/a.plan" "$T/$f"
	has "$T/err" "$hint" "  ... the same hint"
done

# as PLAN: every command that takes one
for f in a.trace s.pickle; do
	case $f in
	a.trace) hint="it is a memplan trace: make a plan of it with 'memplan-plan compile $T/a.trace -o PLAN'" ;;
	s.pickle) hint="looks like a PyTorch memory snapshot: 'memplan-trace import $T/s.pickle -o TRACE', then 'memplan-plan compile TRACE -o PLAN'" ;;
	esac
	for c in inspect verify simulate; do
		if [ $c = inspect ]; then
			expect 3 "memplan-plan $c $f" memplan-plan $c "$T/$f"
		else
			expect 3 "memplan-plan $c $f TRACE" memplan-plan $c "$T/$f" "$T/a.trace"
		fi
		has "$T/err" "$hint" "  ... says what it is and the fix"
	done
	expect 3 "memplan-replay $f TRACE" memplan-replay "$T/$f" "$T/a.trace"
	has "$T/err" "$hint" "  ... the same hint"
done

# a plan with a trace it was not made for: one wording, one exit status
memplan-trace synth --model vgg16 --batch 2 -o "$T/v.trace" >/dev/null
words="plan '$T/a.plan' does not fit trace '$T/v.trace': fingerprint mismatch: the plan was made for another request sequence"
expect 1 "verify PLAN another-trace: exit 1" memplan-plan verify "$T/a.plan" "$T/v.trace"
has "$T/err" "$words" "  ... in the one wording"
expect 1 "simulate PLAN another-trace: exit 1" memplan-plan simulate "$T/a.plan" "$T/v.trace"
has "$T/err" "$words" "  ... in the one wording"
expect 1 "memplan-replay PLAN another-trace: exit 1" memplan-replay "$T/a.plan" "$T/v.trace"
has "$T/err" "$words" "  ... in the one wording"

# the right files get no hint; a damaged plan is no other kind of file
expect 0 "the right files in the right places" memplan-plan verify "$T/a.plan" "$T/a.trace"
head -c 100 "$T/a.plan" >"$T/cut.plan"
expect 3 "a cut plan" memplan-plan inspect "$T/cut.plan"
if grep -q "looks like\|it is a" "$T/err"; then r=1; else r=0; fi
ok $r "  ... gets no hint of another format"

done_testing
