#!/bin/sh
# memplan-trace import --from pytorch-et: a training step of the synthetic
# zoo, written as PyTorch's execution trace and profiler trace would hold
# it (tests/import/zoo_to_et.py), imports back to the same step: the same
# buffers, peak and lower bound, the same swap floor, and the same swap
# frontier for every strategy (vDNN's too: it offloads by role, which the
# import infers from threads and copies as the zoo assigns it).
. tests/cli/lib.sh

need_python3
json_num() { grep -o "\"$1\":[0-9]*" "$2" | head -n 1; }

for spec in "alexnet 128" "resnet50 32" "bert-base 32"; do
	set -- $spec
	m=$1
	z=$T/$m.trace
	expect 0 "$m: the zoo's step" memplan-trace synth --model "$m" --batch "$2" -o "$z"
	python3 tests/import/zoo_to_et.py "$z" "$T/$m.et.json" "$T/$m.kineto.json" 2>"$T/err"
	ok $? "$m: written as an execution trace and a profiler trace"
	[ ! -s "$T/err" ]
	ok $? "$m: every access could be expressed in an operator schema"
	expect 0 "$m: import them" memplan-trace import --from pytorch-et "$T/$m.et.json" \
		--kineto "$T/$m.kineto.json" -o "$T/$m-et.trace"
	memplan-trace info --json "$z" >"$T/a.json"
	memplan-trace info --json "$T/$m-et.trace" >"$T/b.json"
	for k in buffers persistent peak_bytes lower_bound_bytes; do
		[ "$(json_num $k "$T/a.json")" = "$(json_num $k "$T/b.json")" ]
		ok $? "$m: the same $k ($(json_num $k "$T/a.json"), imported $(json_num $k "$T/b.json"))"
	done
	has "$T/b.json" '"et.accesses_unknown":"0"' "$m: every access has a mode"
	has "$T/b.json" '"kineto.frees_without_alloc":"0"' "$m: every free found its allocation"
	memplan-analyze summary "$z" | sed -n 's/^swap floor: *\(.*\) after request \([0-9]*\).*/\1 \2/p' >"$T/fa"
	memplan-analyze summary "$T/$m-et.trace" | sed -n 's/^swap floor: *\(.*\) after request \([0-9]*\).*/\1 \2/p' >"$T/fb"
	[ -s "$T/fa" ] && cmp -s "$T/fa" "$T/fb"
	ok $? "$m: the same swap floor, after the same request ($(cat "$T/fa"); imported $(cat "$T/fb"))"
	memplan-plan frontier "$z" --step 20 --quiet 2>&1 | awk '/%/ && NF >= 5 && $1 ~ /%$/' >"$T/pa"
	memplan-plan frontier "$T/$m-et.trace" --step 20 --quiet 2>&1 | awk '/%/ && NF >= 5 && $1 ~ /%$/' >"$T/pb"
	[ -s "$T/pa" ] && cmp -s "$T/pa" "$T/pb"
	st=$?
	[ $st -ne 0 ] && diff "$T/pa" "$T/pb" | sed 's/^/#   /'
	ok $st "$m: the same swap frontier for every strategy at every budget"
done

done_testing
