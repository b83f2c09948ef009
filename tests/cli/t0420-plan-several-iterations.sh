#!/bin/sh
# A trace of several iterations is not planned as one in silence: compile
# (and every command that plans a TRACE) warns, counting the iterations as
# 'memplan-trace info' does, and prints the 'memplan-trace slice' command
# that cuts one out; that command works, and its slice plans without the
# warning; one iteration gets none.
. tests/cli/lib.sh

memplan-trace synth --model alexnet --batch 2 -o "$T/z.trace" >/dev/null 2>"$T/err"
ok $? "a zoo iteration"
expect 0 "compile one iteration" memplan-plan compile "$T/z.trace" -o "$T/z.plan"
if grep -q "iterations" "$T/err"; then r=1; else r=0; fi
ok $r "  ... without a warning"

need_python3
python3 tests/import/make_snapshot.py periodic "$T/p.pickle" >/dev/null &&
	memplan-trace import --from pytorch-snapshot "$T/p.pickle" -o "$T/p.trace" >/dev/null 2>"$T/err"
ok $? "a snapshot of a training loop imported"
memplan-trace info "$T/p.trace" >"$T/info"
has "$T/info" "5 complete iterations" "info counts 5 iterations"
expect 0 "compile plans it" memplan-plan compile "$T/p.trace" -o "$T/p.plan"
has "$T/err" "warning: trace '$T/p.trace' holds 5 complete iterations" "  ... warning, with info's count"
has "$T/err" "planned as one" "  ... saying it is planned as one"
has "$T/err" "'memplan-trace slice $T/p.trace --auto --iteration 2 -o STEP.trace'" \
	"  ... and printing the slice command"
expect 3 "frontier warns too (and refuses a snapshot: no accesses)" \
	memplan-plan frontier -q --steps 2 "$T/p.trace"
has "$T/err" "holds 5 complete iterations" "  ... the same warning"
cmd=$(sed -n "s/.*'\(memplan-trace slice [^']*\)'.*/\1/p" "$T/err" | head -1)
cd "$T" && $cmd >/dev/null 2>"$T/err2"
st=$?
cd - >/dev/null
ok $st "the printed command cuts one iteration ($cmd)"
expect 0 "compile the slice" memplan-plan compile "$T/STEP.trace" -o "$T/s.plan"
if grep -q "iterations" "$T/err"; then r=1; else r=0; fi
ok $r "  ... without a warning"

done_testing
