#!/bin/sh
# memplan-trace import --from pytorch-et --snapshot: an execution trace
# joined with a memory snapshot of the same run, whose history holds the
# step among other allocations (a warm-up, the next step, cuBLAS
# workspaces the ET does not show).  The step's window gives the buffers
# and peak the generator replayed from the history, for address-derived
# and counted storage ids, when the step repeats (ambiguous, said so), when
# the ring buffer lost its first allocation, when an output never reached
# the caching allocator (inferred, said so); zoo steps come back whole;
# snapshots of another run, broken ones and option mistakes are refused
# and leave nothing behind.
. tests/cli/lib.sh

need_python3
gen=tests/import/make_et.py
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
meta() { has "$T/out" "\"$1\":\"$2\"" "$3"; }

for kind in 1.0.0 1.1.1u; do
	for v in plain steps3 cut lost; do
		et=$T/$kind-$v.json
		python3 "$gen" $kind "$et" --snapshot "$T/$kind-$v.pickle" --variant $v
		ok $? "$kind $v: the generator wrote an execution trace and a snapshot"
		e=$et.expect
		expect 0 "$kind $v: import them" memplan-trace import --from pytorch-et "$et" \
			--snapshot "$T/$kind-$v.pickle" -o "$T/$kind-$v.trace"
		expect 0 "$kind $v: info" memplan-trace info --json "$T/$kind-$v.trace"
		has "$T/out" "\"buffers\":$(value buffers_snapshot "$e")," \
			"$kind $v: the window's buffers: the step's, its workspaces, the weights"
		has "$T/out" "\"peak_bytes\":$(value peak_snapshot "$e")," \
			"$kind $v: the peak the history gives, in bytes asked for"
		meta snapshot.allocations_hidden "$(value hidden "$e")" \
			"$kind $v: the workspaces the ET does not show are counted"
		meta et.accesses_dropped 0 "$kind $v: no access falls outside its buffer's life"
		meta snapshot.live_at_start_matched \
			"$(grep -o '"snapshot.live_at_start":"[0-9]*"' "$T/out" | grep -o '[0-9]*')" \
			"$kind $v: every storage from before the window has its block"
		case $v in
		plain)
			meta snapshot.equal_windows 0 "$kind $v: the window is not ambiguous"
			! grep -q '"inferred"' "$T/out"
			ok $? "$kind $v: nothing is inferred"
			;;
		steps3)
			! grep -q '"snapshot.equal_windows":"0"' "$T/out"
			ok $? "$kind $v: three equal steps: the ambiguity is counted"
			;;
		cut)
			meta snapshot.outputs_before_history 1 \
				"$kind $v: the output made before the history is counted"
			! grep -q '"inferred"' "$T/out"
			ok $? "$kind $v: and takes its block live at the start, not an inferred one"
			;;
		lost)
			meta snapshot.outputs_inferred 1 "$kind $v: the output the history lacks is inferred"
			meta inferred "sizes,frees" "$kind $v: and the trace says so"
			;;
		esac
	done
done
cmp -s "$T/1.1.1u-plain.trace" "$T/1.1.1u-steps3.trace" ||
	[ "$(memplan-trace info --json "$T/1.1.1u-plain.trace" | grep -o '"peak_bytes":[0-9]*')" = \
		"$(memplan-trace info --json "$T/1.1.1u-steps3.trace" | grep -o '"peak_bytes":[0-9]*')" ]
ok $? "identical steps give the same answer as one"

expect 0 "summary of a lost output" memplan-analyze summary "$T/1.1.1u-lost.trace"
has "$T/out" "inferred:       sizes" "summary says what was inferred"
has "$T/out" "swap floor:     not computable: swap planning needs GPU timestamps" \
	"a snapshot has no GPU times: swap planning says so"
expect 0 "placement works on the result" memplan-plan compile "$T/1.1.1u-plain.trace" -o "$T/p.plan"

# zoo steps: the same buffers, peak and lower bound as the synthetic trace
for spec in "alexnet 128" "resnet50 32" "bert-base 32"; do
	set -- $spec
	m=$1
	z=$T/$m.trace
	expect 0 "$m: the zoo's step" memplan-trace synth --model "$m" --batch "$2" -o "$z"
	python3 tests/import/zoo_to_et.py "$z" "$T/$m.et.json" "$T/$m.k.json" "$T/$m.pickle" 2>"$T/err"
	ok $? "$m: written as an execution trace and a snapshot"
	expect 0 "$m: import them" memplan-trace import --from pytorch-et "$T/$m.et.json" \
		--snapshot "$T/$m.pickle" -o "$T/$m-s.trace"
	memplan-trace info --json "$z" >"$T/a.json"
	memplan-trace info --json "$T/$m-s.trace" >"$T/b.json"
	for k in buffers persistent peak_bytes lower_bound_bytes; do
		a=$(grep -o "\"$k\":[0-9]*" "$T/a.json" | head -n 1)
		b=$(grep -o "\"$k\":[0-9]*" "$T/b.json" | head -n 1)
		[ -n "$a" ] && [ "$a" = "$b" ]
		ok $? "$m: the same $k ($a, imported $b)"
	done
	has "$T/b.json" '"et.accesses_unknown":"0"' "$m: every access has a mode"
	has "$T/b.json" '"snapshot.outputs_inferred":"0"' "$m: every output found its allocation"
	has "$T/b.json" '"snapshot.allocations_hidden":"0"' "$m: nothing outside the step is taken in"
done

# refusals: another run, not a pickle, no file, and option mistakes
python3 tests/import/make_snapshot.py train "$T/other.pickle"
et=$T/1.1.1u-plain.json
expect 3 "a snapshot of another run is refused" memplan-trace import --from pytorch-et "$et" \
	--snapshot "$T/other.pickle" -o "$T/x.trace"
has "$T/err" "cannot join execution trace '$et' with snapshot '$T/other.pickle': 0 of its" \
	"the error says how little of the step the snapshot holds"
# a message with two long paths is not cut (memplan-trace's room was 512)
long=$T/a-folder-whose-name-is-long-enough-that-two-paths-fill-a-line-$(printf '%0150d' 0)
mkdir "$long"
cp "$et" "$long/et.json"
cp "$T/other.pickle" "$long/other.pickle"
expect 3 "a snapshot of another run, in a long path" memplan-trace import --from pytorch-et \
	"$long/et.json" --snapshot "$long/other.pickle" -o "$T/x.trace"
has "$T/err" "with _record_memory_history() before the step" "the whole sentence, however long the paths"
printf 'not a pickle' >"$T/bad.pickle"
expect 3 "a broken snapshot is refused" memplan-trace import --from pytorch-et "$et" \
	--snapshot "$T/bad.pickle" -o "$T/x.trace"
has "$T/err" "cannot read snapshot '$T/bad.pickle'" "the error names the snapshot"
expect 3 "a missing snapshot is refused" memplan-trace import --from pytorch-et "$et" \
	--snapshot "$T/nope.pickle" -o "$T/x.trace"
expect 2 "--kineto with --snapshot is a usage error" memplan-trace import --from pytorch-et "$et" \
	--snapshot "$T/1.1.1u-plain.pickle" --kineto "$et" -o "$T/x.trace"
expect 2 "--snapshot with another format is a usage error" memplan-trace import \
	--from pytorch-snapshot "$T/1.1.1u-plain.pickle" --snapshot "$T/1.1.1u-plain.pickle" -o "$T/x.trace"
expect 2 "--snapshot that is the output is a usage error" memplan-trace import --from pytorch-et "$et" \
	--snapshot "$T/1.1.1u-plain.pickle" -o "$T/1.1.1u-plain.pickle"
[ ! -e "$T/x.trace" ]
ok $? "no trace is left behind by a refusal"

done_testing
