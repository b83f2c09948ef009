#!/bin/sh
# memplan-plan advise --trace-out: the trace of the program that
# recomputes; compile --budget on it makes the plan the runtime follows,
# which verifies against it (not against the original), and simulate on
# that plan predicts the advised overhead within half a point.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo trace"

expect 0 "advise --trace-out" memplan-plan advise "$T/r.trace" --budget 65% --link pcie5 --json --trace-out "$T/r2.trace"
cp "$T/out" "$T/a.json"
[ -s "$T/r2.trace" ]
ok $? "  ... the trace written"
has "$T/out" "\"trace_out\":\"$T/r2.trace\"" "  ... its path in the JSON"
expect 0 "advise --trace-out (text)" memplan-plan advise "$T/r.trace" --budget 65% --link pcie5 --trace-out "$T/r3.trace"
has "$T/out" "$T/r3.trace: the trace of the program that recomputes" "  ... says what it wrote"
cmp -s "$T/r2.trace" "$T/r3.trace" || memplan-trace info "$T/r3.trace" >/dev/null
ok $? "  ... a trace that loads"
expect 0 "  ... which loads" memplan-trace info "$T/r2.trace"

budget=$(sed 's/.*"budget":\([0-9]*\).*/\1/' "$T/a.json")
pool=$(sed 's/.*"pool":\([0-9]*\).*/\1/' "$T/a.json")
adv=$(sed 's/.*"overhead_percent":\([-0-9.e+]*\).*/\1/' "$T/a.json")
[ -n "$budget" ] && [ "$pool" -le "$budget" ]
ok $? "  ... advice pool $pool within budget $budget"

expect 0 "compile --budget on the recomputing program" memplan-plan compile "$T/r2.trace" --budget "$budget" --link pcie5 -o "$T/r2.plan"
expect 0 "  ... the plan verifies against that program" memplan-plan verify "$T/r2.plan" "$T/r2.trace"
expect 1 "  ... not against the original (its requests differ)" memplan-plan verify "$T/r2.plan" "$T/r.trace"
expect 0 "simulate the plan on the program" memplan-plan simulate "$T/r2.plan" "$T/r2.trace" --link pcie5 --json
sim=$(sed 's/.*"overhead_percent":\([-0-9.e+]*\).*/\1/' "$T/out")
awk -v a="$adv" -v s="$sim" 'BEGIN { d = a - s; if (d < 0) d = -d; exit !(d <= 0.5 && a > 0) }'
ok $? "  ... predicts the advised overhead within half a point ($sim% vs $adv%)"
base0=$(memplan-plan advise "$T/r.trace" --budget 100% --link pcie5 --json | sed 's/.*"base_ns":\([0-9]*\).*/\1/')
base=$(sed 's/.*"base_ns":\([0-9]*\).*/\1/' "$T/out")
[ -n "$base" ] && [ "$base" = "$base0" ]
ok $? "  ... measured against the original program's iteration ($base ns)"

expect 0 "compile --swap-strategy hybrid on the original" memplan-plan compile "$T/r.trace" --budget "$budget" --link pcie5 --swap-strategy hybrid -o "$T/h.plan"
expect 0 "  ... is the plan of the same program" memplan-plan verify "$T/h.plan" "$T/r2.trace"

# the recomputed tensors are named where the plan is simulated, as the
# swapped ones are: every tensor advise says to recompute, by its label
memplan-plan advise "$T/r.trace" --budget "$budget" --link pcie5 >"$T/adv.txt" 2>&1
awk '$1 ~ /^[0-9]+$/ && $3 == "recompute" { print $2 }' "$T/adv.txt" | sort >"$T/want"
[ -s "$T/want" ]
ok $? "  ... advise recomputes $(wc -l <"$T/want") tensors"
expect 0 "simulate names them" memplan-plan simulate "$T/h.plan" "$T/r2.trace"
sed -n '/^recomputed tensors/,/^$/p' "$T/out" | sed 1d | awk 'NF { print $1 }' | sort >"$T/got"
# (a re-run also makes its operator's other outputs again: a superset)
[ -z "$(comm -23 "$T/want" "$T/got")" ]
ok $? "  ... every recomputed tensor by its label, in the text"
memplan-plan simulate --json "$T/h.plan" "$T/r2.trace" >"$T/s.json" 2>"$T/err"
grep -o '"recomputed":\[[^]]*\]' "$T/s.json" | grep -o '"tensor":"[^"]*"' |
	sed 's/"tensor":"//; s/"$//' | sort >"$T/gotj"
[ -s "$T/gotj" ] && cmp -s "$T/got" "$T/gotj"
ok $? "  ... and in the JSON's recomputed array"
done_testing
