#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/seeds.sh - makes the generated seeds of the fuzz targets in
# $BUILD/tests/seeds/<target> with the tools under test (real traces, a plan
# compiled from one, pickles and nsys exports when python3 is there), for
# `make check` (tests/run.sh) and `make fuzz` (tests/fuzz/run.sh) alike.
# Every target gets its folder, empty or not: libFuzzer stops at once on a
# corpus folder that does not exist.
BUILD=${BUILD:-build}
MEMPLAN_BIN=${MEMPLAN_BIN:-$BUILD/bin}
seeds=$BUILD/tests/seeds
for t in tests/fuzz/fuzz_*.c; do
	n=$(basename "$t" .c)
	mkdir -p "$seeds/${n#fuzz_}"
done
# Seeds for the trace loader are real traces, made by the tools under test.
"$MEMPLAN_BIN/memplan-trace" import --from minimalloc-csv \
	tests/fuzz/seeds/csv/small.csv -o "$seeds/trace/small.trace" >/dev/null 2>&1
"$MEMPLAN_BIN/memplan-trace" synth --model alexnet --batch 1 \
	-o "$seeds/trace/alexnet.trace" >/dev/null 2>&1
# Seeds for analyze's streaming reader: the same traces.
cp "$seeds/trace/"*.trace "$seeds/scan/" 2>/dev/null
# Seeds for the plan loader: plans compiled from those traces.
"$MEMPLAN_BIN/memplan-plan" compile --strategy greedy-size \
	"$seeds/trace/alexnet.trace" -o "$seeds/plan/alexnet.plan" >/dev/null 2>&1
"$MEMPLAN_BIN/memplan-plan" compile --budget 90% --link gh200-c2c \
	"$seeds/trace/alexnet.trace" -o "$seeds/plan/link.plan" >/dev/null 2>&1
# Seeds for the snapshot unpickler and the nsys reader: pickles and exports
# written by the generators of the import tests (python3, when there is one).
if command -v python3 >/dev/null 2>&1; then
	for k in train periodic legacy otherprog marker0; do
		python3 tests/import/make_snapshot.py $k "$seeds/pickle/$k.pickle" >/dev/null 2>&1
	done
	python3 tests/import/make_nsys.py current "$seeds/nsys/current.sqlite" >/dev/null 2>&1
	# execution traces (and a profiler trace) for the JSON reader
	python3 tests/import/make_et.py 1.0.0 "$seeds/json/et-1.0.0.json" >/dev/null 2>&1
	python3 tests/import/make_et.py 1.1.1 "$seeds/json/et-1.1.1.json" \
		--kineto "$seeds/json/kineto.json" >/dev/null 2>&1
	rm -f "$seeds/json/"*.expect
	# what real PyTorch writes (python3-torch): an MLP step's ET and memory
	# records, 1.13's shapes (execution_graph roots, composite operators)
	for py in python3 /usr/bin/python3; do
		"$py" -c 'import torch' >/dev/null 2>&1 || continue
		"$py" tests/import/torch_step.py mlp "$seeds/json" >/dev/null 2>&1
		rm -f "$seeds/json/mlp.layout" "$seeds/json/mlp.chrome.json"
		break
	done
	# archives as people ship them, for the wrapping reader: a macOS .tgz
	# (a resource fork first), an ET beside generated .py files, two ranks
	z=$seeds/zinput
	mkdir -p "$z/w/k"
	cp tests/fuzz/seeds/json/small-et.json "$z/w/rank0.json"
	cp tests/fuzz/seeds/json/small-et.json "$z/w/rank1.json"
	printf '\000\005\026\007Mac OS X' >"$z/w/._rank0.json"
	printf 'import torch\n' >"$z/w/k/kernel.py"
	(cd "$z/w" && tar czf ../mac.tgz ._rank0.json rank0.json &&
		tar cf ../pt2.tar k rank0.json && tar cf ../ranks.tar rank0.json rank1.json) 2>/dev/null
	gzip -c tests/fuzz/seeds/json/small-et.json >"$z/et.json.gz"
	# two members then zero padding (tar's records): read as gzip(1) does
	gzip -c tests/fuzz/seeds/json/small-et.json >"$z/two-pad.json.gz"
	printf ' \n' | gzip -c >>"$z/two-pad.json.gz"
	head -c 1024 /dev/zero >>"$z/two-pad.json.gz"
	rm -rf "$z/w"
	rm -f "$seeds/pickle/"*.expect "$seeds/nsys/"*.expect
fi
exit 0
