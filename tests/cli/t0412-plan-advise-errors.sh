#!/bin/sh
# memplan-plan advise refuses what it cannot do, with the documented exit
# statuses: usage (2), a missing or bad trace (3), no advice within the
# budget (1), an output it cannot write (4); compile refuses an unknown
# --swap-strategy naming the recomputing ones.
. tests/cli/lib.sh

memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" 2>"$T/err"
ok $? "a zoo trace"

expect 2 "advise without --budget" memplan-plan advise "$T/a.trace"
has "$T/err" "--budget" "  ... names the option"
expect 2 "advise without a trace" memplan-plan advise --budget 50%
expect 2 "advise --budget 0%" memplan-plan advise "$T/a.trace" --budget 0%
expect 2 "advise --budget lots" memplan-plan advise "$T/a.trace" --budget lots
expect 2 "advise --strategy vdnn (not a recomputing one)" memplan-plan advise "$T/a.trace" --budget 50% --strategy vdnn
has "$T/err" "hybrid, recompute" "  ... naming the known ones"
expect 2 "advise --max-overhead x" memplan-plan advise "$T/a.trace" --budget 50% --max-overhead x
expect 2 "advise --max-overhead -1" memplan-plan advise "$T/a.trace" --budget 50% --max-overhead -1
expect 2 "advise --link bogus" memplan-plan advise "$T/a.trace" --budget 50% --link bogus
expect 2 "advise --trace-out onto its input" memplan-plan advise "$T/a.trace" --budget 90% --trace-out "$T/a.trace"
expect 3 "advise on a missing trace" memplan-plan advise "$T/none.trace" --budget 50%
printf 'not a trace' >"$T/bad.trace"
expect 3 "advise on a file that is no trace" memplan-plan advise "$T/bad.trace" --budget 50%
expect 1 "advise for 1 byte: nothing fits" memplan-plan advise "$T/a.trace" --budget 1
has "$T/err" "no advice fits" "  ... saying so"
expect 4 "advise --trace-out into a missing folder" memplan-plan advise "$T/a.trace" --budget 90% --trace-out "$T/no/such/dir/x.trace"
expect 2 "compile --swap-strategy bogus" memplan-plan compile "$T/a.trace" --budget 50% --swap-strategy bogus -o "$T/x.plan"
has "$T/err" "recompute, hybrid" "  ... naming the recomputing strategies"
expect 0 "advise --help" memplan-plan advise --help
done_testing
