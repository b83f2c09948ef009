#!/bin/sh
# memplan-analyze diff: a trace against itself changes nothing; two batch
# sizes of one model match every buffer by label (activations resized);
# two models show appeared and vanished buffers; imports match by order.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 8 -o "$T/r8.trace" 2>"$T/err" &&
	memplan-trace synth --model resnet50 --batch 16 -o "$T/r16.trace" 2>>"$T/err" &&
	memplan-trace synth --model alexnet --batch 8 -o "$T/alex.trace" 2>>"$T/err"
ok $? "synth three traces"
nb=$(memplan-trace info --json "$T/r8.trace" | sed 's/.*"buffers":\([0-9]*\).*/\1/')

expect 2 "diff needs two traces" memplan-analyze diff "$T/r8.trace"
expect 0 "a trace against itself" memplan-analyze diff --json "$T/r8.trace" "$T/r8.trace"
has "$T/out" "\"same\":$nb,\"resized_count\":0,\"resized_bytes\":0,\"appeared_count\":0,\"appeared_bytes\":0,\"vanished_count\":0" \
	"every buffer the same"
expect 0 "text against itself" memplan-analyze diff "$T/r8.trace" "$T/r8.trace"
has "$T/out" "peak" "peak row"
grep '^peak ' "$T/out" | grep -q '   0 B$'
ok $? "no change in the peak"

expect 0 "batch 8 against batch 16" memplan-analyze diff --json "$T/r8.trace" "$T/r16.trace"
has "$T/out" '"appeared_count":0,"appeared_bytes":0,"vanished_count":0' "same buffers by label"
same=$(sed 's/.*"same":\([0-9]*\).*/\1/' "$T/out")
resized=$(sed 's/.*"resized_count":\([0-9]*\).*/\1/' "$T/out")
[ $((same + resized)) -eq "$nb" ] && [ "$resized" -gt 0 ]
ok $? "same + resized = every buffer ($same + $resized = $nb)"
has "$T/out" '"resized":[{"a":{"buffer":' "resized buffers listed"
expect 0 "batch 8 against 16, text" memplan-analyze diff --top 3 "$T/r8.trace" "$T/r16.trace"
has "$T/out" "reserved (pytorch)" "reserved per allocator"
has "$T/out" "live at peak by role" "per-role changes"
has "$T/out" "live at peak by label (largest changes):" "per-label changes"
has "$T/out" "resized (largest first):" "resized list"
has "$T/out" "conv1.out" "a resized activation named"

expect 0 "two models" memplan-analyze diff --top 2 "$T/alex.trace" "$T/r8.trace"
has "$T/out" "appeared in B (largest first):" "appeared list"
has "$T/out" "vanished from A (largest first):" "vanished list"

# imports have labels (their ids): A against B of the public instances
if have_shared; then
	memplan-trace import --from minimalloc-csv "$SHARED_DATA/placement/A.1048576.csv" -o "$T/A.trace" &&
		memplan-trace import --from minimalloc-csv "$SHARED_DATA/placement/B.1048576.csv" -o "$T/B.trace"
	ok $? "import A and B"
	expect 0 "diff of two imports" memplan-analyze diff --json "$T/A.trace" "$T/B.trace"
	has "$T/out" '"a":{"trace":' "JSON side a"
else
	skip "diff of two imports of the public instances" "$no_shared"
fi

expect 3 "a missing trace exits 3" memplan-analyze diff "$T/r8.trace" "$T/none.trace"
has "$T/err" "$T/none.trace" "names it"

done_testing
