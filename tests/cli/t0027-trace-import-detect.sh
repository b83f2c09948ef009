#!/bin/sh
# memplan-trace import without --from: the format is detected from the file
# (an nsys SQLite export, a PyTorch snapshot pickle, an execution trace, plain
# or gzipped, a MiniMalloc CSV), said on stdout, and the trace is the one
# --from would make; what is none of them (a memplan trace, a profiler trace
# alone, a Chrome array, other text) is refused saying what it looks like.
. tests/cli/lib.sh

need_python3
same() { # name format input [options]: detected as format, the same trace as --from
	name=$1
	fmt=$2
	in=$3
	shift 3
	expect 0 "$name: import without --from" memplan-trace import "$in" "$@" -o "$T/$name-d.trace"
	has "$T/out" "$in: detected $fmt: " "$name: detected as $fmt, said"
	cp "$T/out" "$T/$name.said"
	expect 0 "$name: import with --from $fmt" memplan-trace import --from "$fmt" "$in" "$@" \
		-o "$T/$name-f.trace"
	memplan-trace info --json "$T/$name-d.trace" | sed 's/"trace":"[^"]*"//' >"$T/a"
	memplan-trace info --json "$T/$name-f.trace" | sed 's/"trace":"[^"]*"//' >"$T/b"
	cmp -s "$T/a" "$T/b"
	ok $? "$name: the same trace"
}
python3 tests/import/make_nsys.py current "$T/n.sqlite"
same nsys nsys-sqlite "$T/n.sqlite" --device 0
python3 tests/import/make_snapshot.py train "$T/s.pickle"
same snapshot pytorch-snapshot "$T/s.pickle" --device 0
python3 tests/import/make_et.py 1.1.1 "$T/et.json" --kineto "$T/k.json"
same et pytorch-et "$T/et.json"
gzip -c "$T/et.json" >"$T/et.json.gz"
same et-gz pytorch-et "$T/et.json.gz"
has "$T/et-gz.said" "a PyTorch execution trace (gzip)" "et-gz: the wrapping is said too"
memplan-trace synth --model mlp --batch 4 -o "$T/z.trace" >/dev/null 2>&1 ||
	memplan-trace synth --model resnet50 --batch 2 -o "$T/z.trace" >/dev/null
memplan-trace export --to minimalloc-csv "$T/z.trace" -o "$T/z.csv" >/dev/null
same csv minimalloc-csv "$T/z.csv"

expect 3 "a memplan trace is refused" memplan-trace import "$T/z.trace" -o "$T/x.trace"
has "$T/err" "is already a memplan trace" "saying it needs no import"
expect 3 "a profiler trace alone is refused" memplan-trace import "$T/k.json" -o "$T/x.trace"
has "$T/err" "is a profiler (Chrome/Kineto) trace: it goes with --kineto" "saying where it goes"
printf '[{"name": "aten::mm", "ph": "X", "ts": 1, "dur": 2}]\n' >"$T/chrome.json"
expect 3 "a Chrome array is refused" memplan-trace import "$T/chrome.json" -o "$T/x.trace"
has "$T/err" "is a JSON array, as export_chrome_trace() writes without Kineto" "saying what it is"
printf 'hello\n' >"$T/hello.txt"
expect 3 "other text is refused" memplan-trace import "$T/hello.txt" -o "$T/x.trace"
has "$T/err" "cannot tell what '$T/hello.txt' is" "asking for --from"
[ ! -e "$T/x.trace" ]
ok $? "and nothing is written"

done_testing
