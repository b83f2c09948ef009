#!/bin/sh
# memplan-plan compile --per-gpu: two GPUs whose identical plans collide
# on one shared link (lock step slower than one GPU alone), planned jointly
# into PREFIX.gpuK.plan, each verified, replayed and naming its device, no
# worse than lock step; JSON; refusals.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 8 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo trace"

expect 0 "one GPU alone at 90%" \
	memplan-plan compile "$T/r.trace" --budget 90% --link pcie5 --json -o "$T/one.plan"
alone=$(sed 's/.*"overhead_percent":\([0-9.]*\).*/\1/' "$T/out")

expect 0 "compile --per-gpu on pcie5,gpus=2" \
	memplan-plan compile "$T/r.trace" --budget 90% --link pcie5,gpus=2 --per-gpu --json -o "$T/p"
cp "$T/out" "$T/pg.json"
lock=$(sed 's/.*"lockstep_overhead_percent":\([0-9.]*\)}$/\1/' "$T/pg.json")
worst=$(sed 's/.*"worst_overhead_percent":\([0-9.]*\),.*/\1/' "$T/pg.json")
awk -v a="$alone" -v l="$lock" 'BEGIN { exit !(l > a) }'
ok $? "  ... identical plans collide: lock step $lock% > alone $alone%"
awk -v w="$worst" -v l="$lock" 'BEGIN { exit !(w <= l) }'
ok $? "  ... the joint plans' worst $worst% <= lock step $lock%"
for k in '"per_gpu":[' '"gpu":0' '"gpu":1' '"overhead_percent":' '"lockstep_overhead_percent":' '"made_as":'; do
	has "$T/pg.json" "$k" "  ... JSON has $k"
done
for g in 0 1; do
	[ -s "$T/p.gpu$g.plan" ]
	ok $? "  ... wrote p.gpu$g.plan"
	expect 0 "  ... gpu$g verifies" memplan-plan verify "$T/p.gpu$g.plan" "$T/r.trace"
	expect 0 "  ... gpu$g inspects" memplan-plan inspect "$T/p.gpu$g.plan"
	grep -E "^device: +$g\$" "$T/out" >/dev/null
	ok $? "  ... and names device $g"
	has "$T/out" "link:         pcie5,gpus=2 (LINK" \
		"  ... and the link its swaps were planned on (issue 30: no LINK section)"
done
# the host backend has one device: gpu1's plan is for device 1 (its
# content replays in test_multigpu with the device cleared)
expect 0 "  ... gpu0 replays" memplan-replay --iterations 2 "$T/p.gpu0.plan" "$T/r.trace"
memplan-replay --iterations 2 "$T/p.gpu1.plan" "$T/r.trace" >"$T/out" 2>"$T/err"
grep -q "for device 1" "$T/err"
ok $? "  ... gpu1's plan is for device 1, not this one-device backend's" 
[ ! -e "$T/p.gpu2.plan" ]
ok $? "  ... and no third plan"

expect 0 "compile --per-gpu, text" \
	memplan-plan compile "$T/r.trace" --budget 90% --link pcie5,gpus=2 --per-gpu -o "$T/q"
has "$T/out" "lock step" "  ... says the lock-step overhead"
has "$T/out" "MEMPLAN_PLAN=$T/q.gpu0.plan,$T/q.gpu1.plan" "  ... and the per-device list"

expect 2 "--per-gpu without --budget" memplan-plan compile "$T/r.trace" --per-gpu --link pcie5,gpus=2 -o "$T/x"
expect 2 "--per-gpu without --link" memplan-plan compile "$T/r.trace" --per-gpu --budget 90% -o "$T/x"
expect 2 "--per-gpu with --swap-strategy" memplan-plan compile "$T/r.trace" --per-gpu --budget 90% --link pcie5,gpus=2 --swap-strategy vdnn -o "$T/x"
expect 1 "--per-gpu at a budget nothing fits" memplan-plan compile "$T/r.trace" --per-gpu --budget 1KiB --link pcie5,gpus=2 -o "$T/x"
has "$T/err" "no plan fits" "  ... says so"
[ ! -e "$T/x.gpu0.plan" ]
ok $? "  ... and writes nothing"

# the same overhead judged as plain compile judges it: a warning above
# 25%, and --max-overhead refuses, writing nothing
memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" 2>"$T/err"
expect 0 "compile --per-gpu of a plan 4 GPUs make much slower" memplan-plan compile "$T/a.trace" \
	--budget 90% --link pcie4,gpus=4 --per-gpu -o "$T/w"
has "$T/err" "warning: the plans are predicted" "  ... warns, as compile does above 25%"
has "$T/err" "slower than the trace on the worst GPU over pcie4,gpus=4 (--max-overhead P refuses such plans" "  ... naming the link and the option"
expect 1 "compile --per-gpu --max-overhead 10" memplan-plan compile "$T/a.trace" \
	--budget 90% --link pcie4,gpus=4 --per-gpu --max-overhead 10 -o "$T/m"
has "$T/err" "above --max-overhead 10%; no plan written" "  ... refuses, as compile does"
[ ! -e "$T/m.gpu0.plan" ]
ok $? "  ... and writes nothing"
expect 0 "compile --per-gpu --max-overhead 1000" memplan-plan compile "$T/a.trace" \
	--budget 90% --link pcie4,gpus=4 --per-gpu --max-overhead 1000 -o "$T/m"
if grep -q warning "$T/err"; then r=1; else r=0; fi
ok $r "  ... a limit it keeps: no warning"

done_testing
