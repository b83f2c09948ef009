#!/bin/sh
# The checkpoint baselines sqrt-n and every-layer: compile writes the plan
# of the program that checkpoints (it verifies against advise's trace of
# that program), frontier has their columns and hybrid is never predicted
# slower than either where they fit, advise lists the segments' re-runs
# (checkpoint, kernels, cost) and, on a model with dropout, tells the
# framework to keep the random generator's state.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo trace"

expect 0 "compile --swap-strategy sqrt-n" memplan-plan compile "$T/r.trace" --budget 100% --link pcie5 --swap-strategy sqrt-n -o "$T/s.plan"
has "$T/out" "sqrt-n over pcie5" "  ... names the strategy"
has "$T/out" "0 swaps" "  ... and swaps nothing"
expect 0 "advise --strategy sqrt-n --trace-out" memplan-plan advise "$T/r.trace" --budget 100% --link pcie5 --strategy sqrt-n --trace-out "$T/s.trace"
has "$T/out" "re-run" "  ... lists the segments' re-runs"
has "$T/out" "from checkpoint" "  ... each from its checkpoint"
expect 0 "  ... the compiled plan verifies against that program" memplan-plan verify "$T/s.plan" "$T/s.trace"
expect 1 "compile --swap-strategy every-layer below its pool" memplan-plan compile "$T/r.trace" --budget 10% --link pcie5 --swap-strategy every-layer -o "$T/e.plan"
has "$T/err" "every-layer" "  ... saying which strategy does not fit"

expect 0 "frontier with the baselines" memplan-plan frontier "$T/r.trace" --link pcie5 --strategies memplan,hybrid,sqrt-n,every-layer --step 10 --csv --quiet
cp "$T/out" "$T/f.csv"
grep -q ",sqrt-n,1," "$T/f.csv" && grep -q ",every-layer,1," "$T/f.csv"
ok $? "  ... both baselines fit somewhere"
awk -F, 'NR > 1 { fit[$1, $3] = $4; ov[$1, $3] = $7; b[$1] = 1 }
	 END { for (k in b)
		 for (s = 0; s < 2; s++) {
		   n = s ? "every-layer" : "sqrt-n"
		   if (fit[k, n] && (!fit[k, "hybrid"] || ov[k, "hybrid"] > ov[k, n] + 1e-9)) bad = 1
		 }
	       exit bad }' "$T/f.csv"
ok $? "  ... hybrid never predicted slower than a baseline where it fits"

memplan-trace synth --model bert-base --batch 2 -o "$T/b.trace" 2>"$T/err"
ok $? "a model with dropout"
expect 0 "advise --strategy every-layer" memplan-plan advise "$T/b.trace" --budget 100% --link pcie5 --strategy every-layer
has "$T/out" "restores the random generator's state" "  ... a re-run of a dropout restores the generator's state"
has "$T/out" "preserve_rng_state=True" "  ... and the framework is told so"
expect 0 "advise --json" memplan-plan advise "$T/b.trace" --budget 100% --link pcie5 --strategy every-layer --json
has "$T/out" '"restore_rng":true' "  ... per tensor in the JSON"
done_testing
