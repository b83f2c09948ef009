#!/bin/sh
# The strategies that recompute in compile, frontier and simulate:
# compile --swap-strategy recompute|hybrid writes the plan of the program
# that recomputes (text and JSON), frontier --strategies
# memplan,recompute,hybrid --csv has today's columns and a row per
# strategy and budget, hybrid never predicted slower than the other two,
# and simulate reads a hybrid plan with the trace advise --trace-out wrote.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 4 -o "$T/v.trace" 2>"$T/err"
ok $? "a zoo trace"

expect 0 "compile --swap-strategy recompute" memplan-plan compile "$T/v.trace" --budget 75% --link pcie5 --swap-strategy recompute -o "$T/rc.plan"
has "$T/out" "recompute over pcie5" "  ... names the strategy"
has "$T/out" "0 swaps" "  ... and swaps nothing"
expect 0 "compile --swap-strategy hybrid --json" memplan-plan compile "$T/v.trace" --budget 75% --link pcie5 --swap-strategy hybrid -o "$T/h.plan" --json
has "$T/out" '"swap_strategy":"hybrid"' "  ... the strategy in the JSON"
expect 0 "  ... the plan's strategy names it" memplan-plan inspect "$T/h.plan"
has "$T/out" "hybrid" "  ... hybrid"

expect 0 "frontier --strategies memplan,recompute,hybrid --csv" memplan-plan frontier "$T/v.trace" --link pcie5 --strategies memplan,recompute,hybrid --step 10 --csv --quiet
cp "$T/out" "$T/f.csv"
[ "$(head -1 "$T/f.csv")" = "budget_percent,budget,strategy,fits,pool,pool_percent,overhead_percent,iter_ns,stall_ns,swaps,swapped_bytes,seconds,cpu_seconds" ]
ok $? "  ... the same columns as the swap strategies'"
rows=$(($(wc -l <"$T/f.csv") - 1))
budgets=$(tail -n +2 "$T/f.csv" | cut -d, -f1 | uniq | wc -l)
[ "$budgets" -ge 3 ] && [ "$rows" -eq $((budgets * 3)) ]
ok $? "  ... a row per budget and strategy ($budgets budgets, $rows rows)"
grep -q ",recompute,1," "$T/f.csv" && grep -q ",hybrid,1," "$T/f.csv"
ok $? "  ... recompute and hybrid fit somewhere"
awk -F, 'NR > 1 { if ($4 == 1 && $5 > $2) bad = 1
		   fit[$1, $3] = $4; ov[$1, $3] = $7; b[$1] = 1 }
	 END { for (k in b) {
		 best = -1
		 if (fit[k, "memplan"]) best = ov[k, "memplan"]
		 if (fit[k, "recompute"] && (best < 0 || ov[k, "recompute"] < best)) best = ov[k, "recompute"]
		 if (best >= 0 && (!fit[k, "hybrid"] || ov[k, "hybrid"] > best + 1e-9)) bad = 1
	       }
	       exit bad }' "$T/f.csv"
ok $? "  ... every pool within its budget; hybrid never above the better of the other two"

expect 0 "advise --trace-out at the same budget" memplan-plan advise "$T/v.trace" --budget 75% --link pcie5 --trace-out "$T/v2.trace"
expect 0 "simulate the hybrid plan with that trace" memplan-plan simulate "$T/h.plan" "$T/v2.trace" --link pcie5
has "$T/out" "overhead" "  ... its overhead"
expect 1 "simulate the hybrid plan with the original trace: another program" memplan-plan simulate "$T/h.plan" "$T/v.trace" --link pcie5
has "$T/err" "does not fit trace" "  ... saying so, as verify does"
done_testing
