#!/bin/sh
# memplan-trace import --from pytorch-et: execution traces of every schema
# shape (1.0.0 and 1.0.1 flat, 1.0.2 to 1.1.1 nested, storage ids derived
# from addresses or counted from 1), alone or with the profiler's trace,
# plain, gzipped or in a tar.gz, give the figures the generator computed
# from its simulation; an unknown major version and a profiler trace whose
# memory events have no addresses are refused; the result plans.
. tests/cli/lib.sh

need_python3
gen=tests/import/make_et.py
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
meta() { has "$T/out" "\"$1\":\"$2\"" "$3"; }

for kind in 1.0.0 1.0.1 1.0.2 1.0.3 1.0.4 1.1.0 1.1.1 1.1.1u; do
	et=$T/et-$kind.json
	python3 "$gen" $kind "$et" --kineto "$T/k-$kind.json"
	ok $? "$kind: the generator wrote an execution trace and a profiler trace"
	e=$et.expect
	expect 0 "$kind: import the execution trace alone" \
		memplan-trace import --from pytorch-et "$et" -o "$T/$kind.trace"
	expect 0 "$kind: info" memplan-trace info --json "$T/$kind.trace"
	has "$T/out" "\"buffers\":$(value buffers "$e")," "$kind: a buffer per storage life (reused ids split)"
	has "$T/out" "\"persistent\":$(value persistent "$e")," "$kind: weights from before the window are persistent"
	has "$T/out" "\"peak_bytes\":$(value peak "$e")," "$kind: the peak with sizes from views and frees after last use"
	meta et.leaf_ops "$(value leaf_ops "$e")" "$kind: leaf operators only (aten::linear's children, not it)"
	meta et.accesses_known "$(value accesses_known "$e")" "$kind: accesses with a mode from the schema"
	meta et.accesses_unknown "$(value accesses_unknown "$e")" "$kind: accesses of ops without schema are unknown"
	meta et.ops_without_schema "$(value no_schema "$e")" "$kind: ops without schema are counted"
	meta et.truncated_lists "$(value truncated "$e")" "$kind: the list cut at 4,096 is counted"
	meta inferred "sizes,frees" "$kind: without the profiler trace sizes and frees are marked inferred"
	case $kind in
	*u) meta et.storage_ids unique "$kind: storage ids counted from 1 are told apart" ;;
	*) meta et.storage_ids address-derived "$kind: address-derived storage ids are told apart" ;;
	esac
	expect 0 "$kind: import with the profiler trace" \
		memplan-trace import --from pytorch-et "$et" --kineto "$T/k-$kind.json" -o "$T/$kind-k.trace"
	expect 0 "$kind: info" memplan-trace info --json "$T/$kind-k.trace"
	has "$T/out" "\"peak_bytes\":$(value peak_kineto "$e")," \
		"$kind: with [memory] events the peak is the profiler's largest Total Allocated"
	has "$T/out" "\"buffers\":$(value buffers "$e")," "$kind: every allocation joined with its storage"
	meta kineto.outputs_without_alloc 0 "$kind: every fresh output found its allocation"
	meta et.accesses_dropped 0 "$kind: no access falls outside its buffer's life"
	! grep -q '"inferred"' "$T/out"
	ok $? "$kind: nothing is inferred with the profiler's memory events"
done

# the summary says what was inferred; the swap floor is computable
expect 0 "summary of an inferred import" memplan-analyze summary "$T/1.1.1.trace"
has "$T/out" "inferred:       sizes (from tensor views: a lower bound), frees (after each buffer's last use)" \
	"summary says sizes and frees are inferred"
has "$T/out" "swap floor:     not computable: swap planning needs GPU timestamps" \
	"without the profiler trace there are no GPU times to plan swaps on"
expect 0 "summary with the profiler trace" memplan-analyze summary "$T/1.1.1-k.trace"
! grep -q "^inferred:" "$T/out"
ok $? "no 'inferred' line when nothing was"
grep -q "^swap floor:     [0-9]" "$T/out"
ok $? "with it (kernel times through correlation) the swap floor is a figure"
expect 0 "the swap frontier plans the import" \
	memplan-plan frontier "$T/1.1.1-k.trace" --step 20 --quiet

# wrappings: gzip, a tar.gz holding one file, a plain tar
peak=$(value peak "$T/et-1.1.1.json.expect")
gzip -c "$T/et-1.1.1.json" >"$T/et.json.gz"
gzip -c "$T/k-1.1.1.json" >"$T/k.json.gz"
expect 0 "gzip: import" memplan-trace import --from pytorch-et "$T/et.json.gz" \
	--kineto "$T/k.json.gz" -o "$T/gz.trace"
expect 0 "gzip: info" memplan-trace info --json "$T/gz.trace"
has "$T/out" "\"peak_bytes\":$(value peak_kineto "$T/et-1.1.1.json.expect")," "gzip: the same figures"
mkdir -p "$T/tar"
cp "$T/et-1.1.1.json" "$T/tar/rank0.et.json"
cp "$T/k-1.1.1.json" "$T/tar/extra.json"
(cd "$T/tar" && tar czf ../one.tar.gz rank0.et.json && tar cf ../one.tar rank0.et.json &&
	tar czf ../two.tar.gz rank0.et.json extra.json)
expect 0 "tar.gz of one file: import" memplan-trace import --from pytorch-et "$T/one.tar.gz" -o "$T/tgz.trace"
expect 0 "tar.gz: info" memplan-trace info --json "$T/tgz.trace"
has "$T/out" "\"peak_bytes\":$peak," "tar.gz: the same figures"
expect 0 "tar of one file: import" memplan-trace import --from pytorch-et "$T/one.tar" -o "$T/tar.trace"
expect 3 "a tar.gz of two files is refused" \
	memplan-trace import --from pytorch-et "$T/two.tar.gz" -o "$T/two.trace"
has "$T/err" "holds more than one file" "and says why"
[ ! -e "$T/two.trace" ]
ok $? "and leaves nothing behind"
head -c 3000 "$T/et.json.gz" >"$T/cut.json.gz"
expect 3 "a truncated gzip file is refused" \
	memplan-trace import --from pytorch-et "$T/cut.json.gz" -o "$T/cut.trace"
has "$T/err" "gzip stream is truncated" "and says so"

# several steps, each inside ProfilerStep#k: ranges that slice cuts, with
# the profiler trace, a snapshot, or neither
python3 "$gen" 1.0.4 "$T/st.json" --steps 3 --kineto "$T/st-k.json" --snapshot "$T/st.pickle"
per=$(value leaf_ops_per_step "$T/st.json.expect")
for how in "" "--kineto $T/st-k.json" "--snapshot $T/st.pickle"; do
	w=${how%% *}
	w=${w:-alone}
	expect 0 "three steps ($w): import" memplan-trace import --from pytorch-et "$T/st.json" $how \
		-o "$T/st.trace"
	expect 0 "three steps ($w): info" memplan-trace info --json "$T/st.trace"
	meta et.profiler_steps 3 "three steps ($w): each ProfilerStep#k is a range"
	expect 0 "three steps ($w): slice the second" memplan-trace slice "$T/st.trace" \
		--range ProfilerStep --iteration 2 -o "$T/st2.trace"
	expect 0 "three steps ($w): info of the slice" memplan-trace info --json "$T/st2.trace"
	has "$T/out" "\"kernel\":$per," "three steps ($w): the slice holds one step's $per operators"
done
expect 0 "one step: info" memplan-trace info --json "$T/1.1.1.trace"
meta et.profiler_steps 0 "a trace without ProfilerStep nodes has no ranges"

# refusals
python3 "$gen" 2.0.0 "$T/v2.json"
expect 3 "an unknown major schema version is refused" \
	memplan-trace import --from pytorch-et "$T/v2.json" -o "$T/v2.trace"
has "$T/err" "schema '2.0.0-chakra.0.0.4' is not a version this build reads" "the version is named"
python3 "$gen" 1.1.1 "$T/na.json" --kineto-noaddr "$T/na-k.json"
expect 3 "[memory] events without addresses are refused" \
	memplan-trace import --from pytorch-et "$T/na.json" --kineto "$T/na-k.json" -o "$T/na.trace"
has "$T/err" "has no 'Addr': its allocations cannot be told apart" "and the reason is given"
expect 2 "--kineto with another format is a usage error" \
	memplan-trace import --from nsys-sqlite "$T/na.json" --kineto "$T/na-k.json" -o "$T/na.trace"
expect 3 "a profiler trace is not an execution trace" \
	memplan-trace import --from pytorch-et "$T/k-1.1.1.json" -o "$T/x.trace"
has "$T/err" "no field 'schema': not an execution trace" "and is told apart"

done_testing
