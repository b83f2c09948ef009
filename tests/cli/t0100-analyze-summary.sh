#!/bin/sh
# memplan-analyze summary: figures worked out by hand on a small import,
# agreement with memplan-trace info on a zoo trace, JSON, and bad input.
. tests/cli/lib.sh

expect 0 "--help exits 0" memplan-analyze --help
has "$T/out" "usage: memplan-analyze" "--help prints usage on stdout"
for c in summary check diff timeline; do
	has "$T/out" "  $c " "--help lists $c"
done
expect 0 "--version exits 0" memplan-analyze --version
has "$T/out" "memplan-analyze 0." "version line"
expect 2 "no command is a usage error" memplan-analyze
expect 2 "unknown command" memplan-analyze frobnicate
expect 0 "summary --help" memplan-analyze summary --help
has "$T/out" "usage: memplan-analyze summary" "summary usage"
expect 2 "summary without a trace" memplan-analyze summary
expect 2 "summary with a bad option" memplan-analyze summary --bogus x.trace

# tests/fuzz/seeds/csv/small.csv: [0,4) 1024, [2,6) 512, [4,8) 2048, [5,9) 256
# peak 2816 at time 5; buffers 1, 2 and 3 live there, each for 4 units.  The
# import records no access, so nothing is known to be idle (issue 15).
memplan-trace import --from minimalloc-csv tests/fuzz/seeds/csv/small.csv \
	-o "$T/small.trace" 2>"$T/err"
ok $? "import the small CSV"
expect 0 "summary of the import" memplan-analyze summary "$T/small.trace"
has "$T/out" "peak:           2.75 KiB (2816 bytes) at time 5" "peak and when"
has "$T/out" "lower bound:    2.75 KiB (2816 bytes)" "lower bound"
has "$T/out" "swappable room: not computable: the trace records no access" \
	"no swappable room without accesses"
grep -q "idle across the peak\|  yes  \|idle gap" "$T/out"
[ $? -ne 0 ]
ok $? "no buffer called idle, no idle gaps, without accesses"
has "$T/out" "           bytes  role           lifetime  label" "lifetimes instead"
has "$T/out" "        2.00 KiB  unknown         4 units  2" "buffer 2 lives 4 units"
[ "$(grep -c memplan-capture "$T/out")" -eq 1 ]
ok $? "what would make the rest computable, said once"
has "$T/out" "live at peak:   3 buffers" "three buffers live at the peak"
has "$T/out" "swap floor:     not computable: the trace records no access" \
	"no swap floor without accesses"
expect 0 "summary --json" memplan-analyze summary --json "$T/small.trace"
has "$T/out" '"peak":{"bytes":2816,"at":5,"seq":4,"time":5,"buffer":3,' "JSON peak, exact bytes"
has "$T/out" '"swappable":{"bytes":null,"buffers":null,"fraction_of_peak":null,"gap":null,"gap_ns":null,"swappable_why_not":"the trace records no access' \
	"JSON swappable room null without accesses, with why"
has "$T/out" '"idle":null' "JSON: no buffer called idle or not"
grep -q '"idle":true' "$T/out"
[ $? -ne 0 ]
ok $? "JSON: no buffer idle without accesses"
has "$T/out" '"top":[]}' "JSON: no idle buffer listed"
has "$T/out" '"swap_floor_bytes":null,"swap_floor_at":null,' "JSON swap floor null without accesses"
has "$T/out" '"swap_ideal_pct":null,"swap_floor_why_not":"the trace records no access' "JSON says why"
has "$T/out" '"pytorch":{"reserved_peak":2097152,' "PyTorch model: one 2 MiB small segment"
has "$T/out" '"cudamalloc":{"reserved_peak":2097152,' "cudaMalloc model: one 2 MiB page"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out"
	ok $? "JSON parses"
fi
expect 0 "summary --allocator pytorch" memplan-analyze summary --allocator pytorch "$T/small.trace"
has "$T/out" "pytorch" "the chosen allocator is shown"
grep -q cudamalloc "$T/out"
[ $? -ne 0 ]
ok $? "the other allocator is not"
expect 2 "unknown allocator" memplan-analyze summary --allocator tcmalloc "$T/small.trace"
has "$T/err" "unknown allocator 'tcmalloc'" "unknown allocator named"
expect 2 "bad --top" memplan-analyze summary --top many "$T/small.trace"

# a zoo trace: the same peak and lower bound as memplan-trace info
memplan-trace synth --model resnet50 --batch 8 -o "$T/r50.trace" 2>"$T/err"
ok $? "synth resnet50"
memplan-trace info --json "$T/r50.trace" >"$T/info.json"
peak=$(sed 's/.*"peak_bytes":\([0-9]*\).*/\1/' "$T/info.json")
lb=$(sed 's/.*"lower_bound_bytes":\([0-9]*\).*/\1/' "$T/info.json")
expect 0 "summary --json of a zoo trace" memplan-analyze summary --json --top 3 "$T/r50.trace"
has "$T/out" "\"peak\":{\"bytes\":$peak," "peak agrees with memplan-trace info"
has "$T/out" "\"lower_bound\":{\"bytes\":$lb," "lower bound agrees with memplan-trace info"
has "$T/out" '"by_role":[{"name":"activation"' "activations lead at the peak"
# the swap floor: the least any swap plan keeps resident, at most the lower bound
floor=$(sed -n 's/.*"swap_floor_bytes":\([0-9]*\),.*/\1/p' "$T/out")
flb=$(sed -n 's/.*"swap_floor_lower_bound":\([0-9]*\),.*/\1/p' "$T/out")
[ -n "$floor" ] && [ "$floor" -gt 0 ] && [ "$floor" -lt "$flb" ] && [ "$flb" -le "$lb" ]
ok $? "JSON swap floor ($floor) below the planner's lower bound ($flb)"
has "$T/out" '"swap_floor_at":' "JSON swap floor's request"
has "$T/out" '"swap_ideal_pct":' "JSON ideal reduction"
has "$T/out" '"swap_floor_why_not":null' "JSON swap floor computed"
expect 0 "summary text of a zoo trace" memplan-analyze summary "$T/r50.trace"
has "$T/out" "allocating '" "names the buffer that makes the peak"
has "$T/out" "ms into the iteration" "peak time from the timestamps"
has "$T/out" "  by label:" "groups by label"
has "$T/out" "idle gaps:" "idle gaps in time"
has "$T/out" "swappable room: " "swappable room of a trace with accesses"
grep -q "not computable: the trace records no access\|memplan-capture" "$T/out"
[ $? -ne 0 ]
ok $? "a trace with accesses: no word of missing accesses"
has "$T/out" "% below the lower bound) after request " "swap floor line"
has "$T/out" "the least any swap plan can keep resident, whatever the link" "swap floor explained"

expect 3 "missing trace exits 3" memplan-analyze summary "$T/nope.trace"
has "$T/err" "memplan-analyze: error: cannot open trace '$T/nope.trace'" "missing trace named"
printf 'hello\n' >"$T/text.trace"
expect 3 "not SQLite exits 3" memplan-analyze summary "$T/text.trace"
head -c 5000 "$T/r50.trace" >"$T/trunc.trace"
expect 3 "truncated trace exits 3" memplan-analyze summary "$T/trunc.trace"
has "$T/err" "trace '$T/trunc.trace'" "truncated trace named"

# a trace of host memory (the ET importer's CPU tensors: meta memory=host,
# device cpu) is labelled so, and the CUDA allocator models are not run on it
need_python3
for m in "memory host" "device cpu"; do
	cp "$T/small.trace" "$T/host.trace"
	python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (sys.argv[2], sys.argv[3]))
db.commit()' "$T/host.trace" $m
	ok $? "$m: a host-memory trace"
	expect 0 "$m: summary" memplan-analyze summary "$T/host.trace"
	has "$T/out" "memory:         host (device " "$m: said to be host memory"
	has "$T/out" "by kind:       host (CPU) 2.75 KiB (100.0%)" "$m: its buffers are host, not device"
	! grep -q "by kind:       device\|cudamalloc\|pytorch  " "$T/out"
	ok $? "$m: no device kind and no CUDA allocator simulated"
	has "$T/out" "allocators:     none simulated: host memory" "$m: one line says why"
	expect 0 "$m: summary --json" memplan-analyze summary --json "$T/host.trace"
	has "$T/out" '"memory":"host","recorded_reserved_peak"' "$m: JSON says host"
	has "$T/out" '"allocators":{}}' "$m: and no allocator"
done
expect 0 "a device trace: summary" memplan-analyze summary --json "$T/small.trace"
has "$T/out" '"memory":"device"' "a device trace says device"

done_testing
