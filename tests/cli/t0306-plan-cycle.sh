#!/bin/sh
# Issue 18, jobs taking turns in one process: compile --cycle places the
# workloads of several traces in one pool over their cycle (a later one
# reuses the bytes an earlier one freed), writes the CYCLE section, and
# says each workload's share; verify holds the plan to its traces in order;
# memplan-replay follows the cycle turn by turn, and turns in another order
# diverge to the real allocator without losing a byte; swaps within a cycle
# (--budget); traces a cycle cannot hold, and usage.
. tests/cli/lib.sh

memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" >/dev/null 2>"$T/err" &&
	memplan-trace synth --model resnet50 --batch 1 -o "$T/b.trace" >/dev/null 2>"$T/err"
ok $? "two zoo iterations (AlexNet batch 2, ResNet-50 batch 1)"

pool() { sed -n 's/.*"pool":\([0-9]*\).*/\1/p' "$1" | head -1; }
memplan-plan compile --strategy greedy-size --json "$T/a.trace" -o "$T/a.plan" >"$T/a.json" 2>"$T/err" &&
	memplan-plan compile --strategy greedy-size --json "$T/b.trace" -o "$T/b.plan" >"$T/b.json" 2>"$T/err"
ok $? "each compiled alone"
pa=$(pool "$T/a.json") pb=$(pool "$T/b.json")
expect 0 "compile --cycle of the two" memplan-plan compile --cycle --strategy greedy-size --json "$T/a.trace" "$T/b.trace" -o "$T/ab.plan"
cp "$T/out" "$T/ab.json"
pc=$(sed -n 's/^{"plan":[^{}]*,"pool":\([0-9]*\),.*/\1/p' "$T/ab.json")
max=$pa; [ "$pb" -gt "$max" ] && max=$pb
echo "# alone: $pa and $pb (sum $((pa + pb))); cycle: $pc"
[ -n "$pc" ] && [ "$pc" -eq "$max" ]
ok $? "  ... its pool is the larger pool alone (the workloads never live at once)"
[ "$pc" -lt $((pa + pb)) ]
ok $? "  ... less than the two pools' sum"
has "$T/ab.json" '"workloads":[{"trace":"' "  ... --json lists the workloads"
has "$T/ab.json" "\"pool\":$pa,\"lower_bound\"" "  ... with the pool bytes each uses"
has "$T/ab.json" "\"pool\":$pb,\"lower_bound\"" "  ... (both)"
memplan-plan compile --cycle --strategy greedy-size "$T/a.trace" "$T/b.trace" -o "$T/ab2.plan" >"$T/out" 2>"$T/err"
has "$T/out" "  workload 1: $T/b.trace, requests [" "  ... and so does the text"
cmp -s "$T/ab.plan" "$T/ab2.plan"
ok $? "  ... the same plan both times"

expect 0 "verify: the plan fits its traces in order" memplan-plan verify "$T/ab.plan" "$T/a.trace" "$T/b.trace"
has "$T/out" "a cycle of 2 workloads" "  ... saying it is a cycle"
expect 1 "  ... not in the other order" memplan-plan verify "$T/ab.plan" "$T/b.trace" "$T/a.trace"
has "$T/err" "traces in another order?" "  ... saying so"
expect 1 "  ... nor one of them alone" memplan-plan verify "$T/ab.plan" "$T/a.trace"
has "$T/err" "the plan has 2 workloads, and 1 trace was given" "  ... saying so"
expect 1 "a plan of one trace does not fit a cycle" memplan-plan verify "$T/a.plan" "$T/a.trace" "$T/b.trace"

expect 0 "inspect shows the CYCLE section" memplan-plan inspect "$T/ab.plan"
has "$T/out" "CYCLE       optional" "  ... optional (an older reader follows the cycle as one iteration)"

expect 0 "replay: the cycle in order is followed, turn by turn" memplan-replay --iterations 3 --stats "$T/ab.plan" "$T/a.trace" "$T/b.trace"
has "$T/out" "valid: 3 iterations (3 followed)" "  ... every turn of every iteration"
grep -Eq "^completed +6 " "$T/out"
ok $? "  ... six turns completed"
grep -Eq "^out_of_order +0 " "$T/out"
ok $? "  ... none out of order"
expect 1 "replay: the turns in another order" memplan-replay --max-reports 100 "$T/ab.plan" "$T/b.trace" "$T/a.trace"
n=$(grep -c "^problem:" "$T/out") d=$(grep -c "^problem: .*did not follow the plan to its end" "$T/out")
[ "$n" -gt 0 ] && [ "$n" -eq "$d" ]
ok $? "  ... every turn diverges ($d), and no byte is lost or overlapped"
has "$T/out" "(0 followed)" "  ... none followed"

# swaps within a cycle: each turn's swaps end in its turn
expect 0 "compile --cycle --budget 70%: swaps within the cycle" memplan-plan compile --cycle --budget 70% "$T/a.trace" "$T/b.trace" -o "$T/abs.plan"
has "$T/out" "  workload 0: $T/a.trace" "  ... the workloads listed"
expect 0 "  ... verifies" memplan-plan verify "$T/abs.plan" "$T/a.trace" "$T/b.trace"
expect 0 "  ... replays valid" memplan-replay --iterations 2 "$T/abs.plan" "$T/a.trace" "$T/b.trace"
n=$(sed -n 's/.* \([0-9]*\) swaps out, 0 problems$/\1/p' "$T/out")
[ "${n:-0}" -gt 0 ]
ok $? "  ... with swaps ($n)"

# what a cycle cannot hold, and usage
printf 'id,lower,upper,size\n0,0,10,1024\n1,3,7,1024\n' >"$T/p.csv"
expect 3 "a MiniMalloc CSV (lifetimes on a time clock) cannot take a turn" memplan-plan compile --cycle "$T/a.trace" "$T/p.csv" -o "$T/x.plan"
has "$T/err" "trace '$T/p.csv' (workload 1 of the cycle): the trace's lifetimes are on a time clock" "  ... naming it"
expect 2 "several traces without --cycle: usage" memplan-plan compile "$T/a.trace" "$T/b.trace" -o "$T/x.plan"
has "$T/err" "several with --cycle" "  ... saying how"
expect 2 "--cycle --solution: usage" memplan-plan compile --cycle --solution "$T/s.csv" "$T/a.trace" "$T/b.trace" -o "$T/x.plan"
expect 2 "--cycle --per-gpu: usage" memplan-plan compile --cycle --per-gpu --budget 70% --link pcie5,gpus=2 "$T/a.trace" "$T/b.trace" -o "$T/x.plan"
has "$T/err" "--cycle and --per-gpu exclude each other" "  ... saying so"
expect 2 "--cycle with the plan as an input: usage" memplan-plan compile --cycle "$T/a.trace" "$T/a.trace" -o "$T/a.trace"
[ ! -e "$T/x.plan" ]
ok $? "  ... no plan written on any of these"

done_testing
