#!/bin/sh
# memplan-analyze summary next to what PyTorch itself reserved (issue 15,
# item 5): a snapshot's recorded reserved peak is printed beside the
# caching-allocator model's, with the gap; on runs that give memory back
# (empty_cache, a failed cudaMalloc retried) and with expandable segments,
# written by tests/import/make_snapshot.py under the allocator's own rules,
# the model lands within 1% of the recorded peak, and on random requests
# under the same rules it is exact.  Without release and
# expandable segments in the model it is 54% and 80% high on them (the
# issue measured 7-14% and 8% on real runs): 1% keeps a wide margin from
# both while the fixtures follow the same rules, so an exact model is 0% off.
. tests/cli/lib.sh

if ! command -v python3 >/dev/null 2>&1; then
	skip "reserved memory of snapshots" "python3 is not installed"
	done_testing
	exit
fi

# the model's error, from summary --json, as a fraction
model_error() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pytorch_model_error"])' "$1"
}

for kind in emptycache expandable; do
	python3 tests/import/make_snapshot.py $kind "$T/$kind.pickle"
	ok $? "$kind: the generator wrote the snapshot"
	peak=$(awk '$1 == "reserved_peak" { print $2 }' "$T/$kind.pickle.expect")
	xs=$(awk '$1 == "expandable" { print $2 }' "$T/$kind.pickle.expect")
	memplan-trace import --from pytorch-snapshot "$T/$kind.pickle" \
		-o "$T/$kind.trace" 2>"$T/err"
	ok $? "$kind: import it"
	expect 0 "$kind: info --json" memplan-trace info --json "$T/$kind.trace"
	has "$T/out" "\"pytorch.reserved_peak_bytes\":\"$peak\"" \
		"$kind: the recorded reserved peak is the one the allocator reached"
	has "$T/out" "\"pytorch.expandable_segments\":\"$xs\"" \
		"$kind: expandable segments are told from the snapshot"
	expect 0 "$kind: summary" memplan-analyze summary "$T/$kind.trace"
	has "$T/out" "recorded  " "$kind: summary prints the recorded reserved peak"
	has "$T/out" "what PyTorch itself reserved at most" "$kind: and says what it is"
	has "$T/out" "the pytorch model is " "$kind: and the gap to the model"
	expect 0 "$kind: summary --json" memplan-analyze summary --json "$T/$kind.trace"
	has "$T/out" "\"recorded_reserved_peak\":$peak," "$kind: JSON has the recorded peak"
	err=$(model_error "$T/out")
	python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1])) <= 0.01 else 1)' "$err"
	ok $? "$kind: the model is within 1% of the recorded peak (error $err)"
done

retries=$(awk '$1 == "retries" { print $2 }' "$T/emptycache.pickle.expect")
[ "$retries" -ge 1 ]
ok $? "emptycache: a failed cudaMalloc was retried after releasing the cache"
memplan-analyze summary --json "$T/emptycache.trace" >"$T/out"
python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["allocators"]["pytorch"]["releases"]; sys.exit(0 if r >= 3 else 1)' "$T/out"
ok $? "emptycache: the model gave memory back at every release the snapshot shows"

# random requests of every size class on two streams, frees in random
# order, empty_cache() now and then: the Python allocator of the generator
# and the model agree to the byte
for kind in random randomx; do
	for seed in 1 2 3 4 5; do
		python3 tests/import/make_snapshot.py $kind "$T/r.pickle" --seed $seed &&
			memplan-trace import --from pytorch-snapshot "$T/r.pickle" \
				-o "$T/r.trace" 2>"$T/err" &&
			memplan-analyze summary --json "$T/r.trace" >"$T/out" &&
			python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["allocators"]["pytorch"]["reserved_peak"] == r["recorded_reserved_peak"] else 1)' "$T/out"
		ok $? "$kind seed $seed: the model reserves what the snapshot recorded"
		rm -f "$T/r.trace"
	done
done

# a trace without a recorded figure prints none
memplan-trace import --from minimalloc-csv tests/fuzz/seeds/csv/small.csv \
	-o "$T/small.trace" 2>"$T/err"
expect 0 "summary of a CSV import" memplan-analyze summary "$T/small.trace"
! grep -q "recorded  " "$T/out"
ok $? "no recorded line without a snapshot"
expect 0 "its JSON" memplan-analyze summary --json "$T/small.trace"
has "$T/out" '"recorded_reserved_peak":null' "JSON says null"

done_testing
