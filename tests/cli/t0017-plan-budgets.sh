#!/bin/sh
# Issue 20, item 4: budgets as a user means them.  --budget PCT% is a share
# of the transient lower bound (weights and optimizer state left out), which
# --help says; compile prints pool + persistent = what the device holds;
# --device-budget SIZE counts everything and leaves the pool what the
# persistent buffers do not take (an error when they take it all); a bare
# --budget 70 asks "did you mean 70%?"; a budget nothing fits names the
# swap floor (size and %) and points to frontier; --max-overhead P refuses a
# plan predicted slower than P% (exit 1, no file); a plan predicted more
# than 25% slower gets a warning.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 8 -o "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "a ResNet-50 iteration"

expect 0 "compile --help" memplan-plan compile --help
has "$T/out" "of the lower bound of the transient buffers without" \
	"  ... says what --budget PCT% is a share of"
has "$T/out" "swaps (weights and optimizer state are not in it" "  ... and what is not in it"
has "$T/out" "--device-budget SIZE" "  ... and offers --device-budget"

# num KEY: the number of a JSON key in $T/out, 0 when it is not there
num() {
	v=$(sed -n 's/.*"'"$1"'":\([0-9][0-9]*\).*/\1/p' "$T/out")
	echo "${v:-0}"
}

# pool + persistent
expect 0 "compile --budget 80% --json" \
	memplan-plan compile "$T/r.trace" --budget 80% --link gh200-c2c --json -o "$T/a.plan"
pool=$(num pool)
pers=$(num persistent)
dev=$(num device_bytes)
[ "$pers" -gt 0 ] && [ "$dev" -eq $((pool + pers)) ]
ok $? "  ... device_bytes $dev = pool $pool + persistent $pers"
expect 0 "  ... inspect agrees on the persistent bytes" memplan-plan inspect "$T/a.plan"
has "$T/out" "($pers bytes, not planned)" "  ... $pers"
expect 0 "compile --budget 80% (text)" \
	memplan-plan compile "$T/r.trace" --budget 80% --link gh200-c2c -o "$T/a.plan"
grep -Eq "^$T/a.plan: the device holds pool [0-9.]+ [KMG]iB \+ persistent [0-9.]+ [KMG]iB \(weights, optimizer state: not in the budget\) = [0-9.]+ [KMG]iB$" "$T/out"
ok $? "  ... prints pool + persistent = what the device holds"

# --device-budget: everything included
dbud=$((dev + 4096))
expect 0 "compile --device-budget $dbud (the last plan's device bytes and a page)" \
	memplan-plan compile "$T/r.trace" --device-budget "$dbud" --link gh200-c2c --json -o "$T/d.plan"
dpool=$(num pool)
dbudget=$(num budget)
[ "$dbudget" -eq $((dbud - pers)) ] && [ $((dpool + pers)) -le "$dbud" ]
ok $? "  ... the pool's budget is $dbud less the persistent $pers, and pool + persistent fits it"
expect 1 "--device-budget below the persistent bytes: no plan" \
	memplan-plan compile "$T/r.trace" --device-budget "$pers" -o "$T/no.plan"
has "$T/err" "alone take" "  ... the persistent buffers alone take it"
[ ! -e "$T/no.plan" ]
ok $? "  ... no plan written"
expect 2 "--device-budget with --budget: usage error" \
	memplan-plan compile "$T/r.trace" --device-budget 1GiB --budget 80% -o "$T/no.plan"
expect 2 "--device-budget lots: usage error" \
	memplan-plan compile "$T/r.trace" --device-budget lots -o "$T/no.plan"

# a bare number
expect 2 "--budget 70 (no %, no unit)" memplan-plan compile "$T/r.trace" --budget 70 -o "$T/no.plan"
has "$T/err" "did you mean 70%?" "  ... asks whether 70% was meant"
expect 2 "--budget 99.5" memplan-plan compile "$T/r.trace" --budget 99.5 -o "$T/no.plan"
has "$T/err" "did you mean 99.5%?" "  ... asks too"
expect 0 "--budget 70% is a percentage" memplan-plan compile "$T/r.trace" --budget 70% -o "$T/p.plan"
expect 1 "--budget 70B is bytes (nothing fits 70 bytes)" \
	memplan-plan compile "$T/r.trace" --budget 70B -o "$T/no.plan"
[ ! -e "$T/no.plan" ]
ok $? "  ... no plan written by any of them"

# an impossible budget names the least feasible one
expect 1 "--budget 5%: nothing fits" memplan-plan compile "$T/r.trace" --budget 5% -o "$T/no.plan"
has "$T/err" "no plan fits --budget " "  ... says so"
has "$T/err" "5.0% of the lower bound without swaps" "  ... as a share of the lower bound"
grep -Eq "no budget below the swap floor of this trace, [0-9.]+ [KMG]iB \([0-9.]+% of the lower bound without swaps" "$T/err"
ok $? "  ... names the swap floor, in bytes and %"
has "$T/err" "'memplan-plan frontier $T/r.trace' shows which budgets" "  ... and points to frontier"
floor=$(sed -n 's/.*swap floor of this trace, [0-9.]* [KMG]iB (\([0-9.]*\)%.*/\1/p' "$T/err")
# the floor is a bound: frontier, sweeping down to it, fits nothing below
expect 0 "frontier down to 1% (every strategy)" \
	memplan-plan frontier "$T/r.trace" --link infinite --from 40 --to 1 --step 3 --csv --quiet
[ -n "$floor" ] &&
	awk -F, -v f="$floor" 'NR > 1 && $4 == 1 && $6 + 0 < f + 0 { bad = 1 } END { exit bad }' "$T/out"
ok $? "  ... no strategy's pool is below the floor ($floor%)"

# --max-overhead
expect 1 "--max-overhead 5 refuses a plan predicted slower" \
	memplan-plan compile "$T/r.trace" --budget 50% --link pcie3 --max-overhead 5 -o "$T/slow.plan"
has "$T/err" "above --max-overhead 5%; no plan written" "  ... says so"
[ ! -e "$T/slow.plan" ]
ok $? "  ... and writes no plan"
expect 0 "--max-overhead 1000000 lets it through" \
	memplan-plan compile "$T/r.trace" --budget 50% --link pcie3 --max-overhead 1000000 -o "$T/slow.plan"
[ ! -s "$T/err" ]
ok $? "  ... without a warning"
expect 0 "without --max-overhead, the slow plan is written" \
	memplan-plan compile "$T/r.trace" --budget 50% --link pcie3 -o "$T/slow.plan"
has "$T/err" "warning: the plan is predicted" "  ... with a warning about its overhead"
expect 0 "a plan without overhead" \
	memplan-plan compile "$T/r.trace" --budget 80% --link infinite -o "$T/fast.plan"
[ ! -s "$T/err" ]
ok $? "  ... gets no warning"
expect 0 "--max-overhead 0 takes a plan without overhead" \
	memplan-plan compile "$T/r.trace" --budget 80% --link infinite --max-overhead 0 -o "$T/fast.plan"
expect 2 "--max-overhead without a budget: usage error" \
	memplan-plan compile "$T/r.trace" --max-overhead 5 -o "$T/no.plan"
expect 2 "--max-overhead -1: usage error" \
	memplan-plan compile "$T/r.trace" --budget 80% --max-overhead -1 -o "$T/no.plan"

done_testing
