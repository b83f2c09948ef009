#!/bin/sh
# memplan-plan link: a model's bandwidth per GPU alone and with every GPU
# on its uplink copying (the figures the topology presets cite), the
# presets with their sources, JSON, refusals; a topology preset planned
# with compile --budget.
. tests/cli/lib.sh

expect 0 "link dgx2" memplan-plan link dgx2
has "$T/out" "16 GPUs on the uplink" "  ... names the GPUs on the uplink"
grep -E '^ +16 copying, one way +3\.00 +3\.00$' "$T/out" >/dev/null
ok $? "  ... 3 GB/s each with all 16 copying"
grep -E '^ +alone, one way +12\.00 +12\.00$' "$T/out" >/dev/null
ok $? "  ... 12 GB/s alone"
has "$T/out" "source:" "  ... the about line cites its source"

expect 0 "link hgx-pcie5 --json" memplan-plan link hgx-pcie5 --json
has "$T/out" '"all_copying":{"h2d_gbs":55,"d2h_gbs":44.5,' "  ... H2D 55, D2H 44.5 with all 8 copying"
has "$T/out" '"gpus":8' "  ... 8 GPUs"

expect 0 "link pcie5,gpus=4: one link shared by 4" memplan-plan link pcie5,gpus=4
grep -E '^ +4 copying, one way +12\.50 +12\.50$' "$T/out" >/dev/null
ok $? "  ... 1/4 of 50 GB/s each"

expect 0 "link without MODEL lists the presets" memplan-plan link
for p in pcie3 pcie4 pcie5 gh200-c2c measured infinite dgx2 hgx-pcie5; do
	grep -q "^$p " "$T/out"
	ok $? "  ... $p"
done

expect 2 "link pcie9 is refused" memplan-plan link pcie9
has "$T/err" "pcie9" "  ... naming it"
expect 2 "link pcie5,uplink=0 is refused" memplan-plan link pcie5,uplink=0
has "$T/err" "uplink" "  ... naming the key"
expect 2 "link with two models is refused" memplan-plan link pcie4 pcie5
expect 3 "link measured without a trace" memplan-plan link measured

memplan-trace synth --model alexnet --batch 16 -o "$T/a.trace" 2>"$T/err"
ok $? "a zoo trace to plan"
expect 0 "compile --budget 80% --link dgx2,gpus=16" \
	memplan-plan compile "$T/a.trace" --budget 80% --link dgx2,gpus=16 --json -o "$T/d.plan"
has "$T/out" '"link":"dgx2,gpus=16"' "  ... the spec is kept whole"
expect 0 "  ... verify" memplan-plan verify "$T/d.plan" "$T/a.trace"

done_testing
