#!/bin/sh
# memplan-trace synth: every model of the zoo, and option errors.
. tests/cli/lib.sh

expect 0 "synth --list" memplan-trace synth --list
cp "$T/out" "$T/list"
for m in alexnet vgg16 resnet18 resnet50 inception_v3 bert-base gpt2; do
	has "$T/list" "$m" "the zoo lists $m"
	expect 0 "synth $m" memplan-trace synth --model $m --batch 2 --dtype bf16 \
		--device a100 -o "$T/$m.trace"
	expect 0 "info on $m" memplan-trace info "$T/$m.trace"
	has "$T/out" "synthetic (model $m, batch 2, bf16)" "$m is marked synthetic"
done
has "$T/list" "(--depth 1-12)" "the list says how deep a model may be cut"
expect 0 "a cut-down gpt2" memplan-trace synth --model gpt2 --batch 1 --depth 2 -o "$T/g2.trace"
expect 0 "info on it" memplan-trace info "$T/g2.trace"
has "$T/out" "gpt2" "the cut-down trace names its model"
expect 2 "too deep" memplan-trace synth --model gpt2 --batch 1 --depth 13 -o "$T/x.trace"
has "$T/err" "at most 12" "the error says the most"
expect 2 "depth on alexnet" memplan-trace synth --model alexnet --batch 1 --depth 1 -o "$T/x.trace"
has "$T/err" "no cut-down versions" "the error says alexnet has none"
expect 2 "depth 0" memplan-trace synth --model gpt2 --batch 1 --depth 0 -o "$T/x.trace"
expect 2 "unknown model" memplan-trace synth --model lenet --batch 1 -o "$T/x.trace"
has "$T/err" "lenet" "the unknown model is named"
expect 2 "unknown device" memplan-trace synth --model gpt2 --batch 1 --device tpu -o "$T/x.trace"
expect 2 "bad dtype" memplan-trace synth --model gpt2 --batch 1 --dtype fp8 -o "$T/x.trace"
expect 2 "zero batch" memplan-trace synth --model gpt2 --batch 0 -o "$T/x.trace"
expect 2 "batch not a number" memplan-trace synth --model gpt2 --batch 12x -o "$T/x.trace"
expect 2 "no output" memplan-trace synth --model gpt2 --batch 1
[ ! -e "$T/x.trace" ]
ok $? "failed runs write nothing"

done_testing
