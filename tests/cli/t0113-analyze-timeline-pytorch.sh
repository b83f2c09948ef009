#!/bin/sh
# memplan-analyze timeline as a PyTorch user reads it at a glance: an
# Nsight export's picture is the device's memory (its 64 MiB of pinned host
# memory is said, not stacked in), the reserved curve never runs below the
# live stack, a 2 us span ticks in ns; a snapshot (every role unknown) is
# drawn by label and its iterations are marked; legends have distinct names
# and colours, no 0 B entry, the largest group first and "other" never the
# majority; no two texts overlap.  Structure is checked by
# tests/cli/svgrule.py; where headless Chromium is installed, the pictures
# are also rendered and must draw inside their frame.
. tests/cli/lib.sh

need_python3
rule() { python3 tests/cli/svgrule.py "$@" >"$T/err" 2>&1; }

# an Nsight Systems export: 7.06 MiB of device memory at the peak, and a
# 64 MiB pinned staging buffer
python3 tests/import/make_nsys.py current "$T/n.sqlite" &&
	memplan-trace import --from nsys-sqlite "$T/n.sqlite" --device 0 -o "$T/n.trace" >/dev/null
ok $? "an Nsight export imported"
peak=$(awk '$1 == "peak" { print $2 }' "$T/n.sqlite.expect")
memplan-analyze timeline -o "$T/n.svg" "$T/n.trace" >"$T/out" 2>"$T/err"
ok $? "nsys: timeline"
drawn=$(sed -n 's/.*class="peak" data-peak="\([0-9]*\)".*/\1/p' "$T/n.svg")
[ -n "$peak" ] && [ "$drawn" = "$peak" ]
ok $? "nsys: the peak drawn is the device's ($drawn = $peak bytes), pinned host memory left out"
has "$T/n.svg" "pinned host memory (64.00 MiB at most) not drawn" "nsys: the subtitle says what is left out"
rule reserved "$T/n.svg"
ok $? "nsys: the reserved curve never runs below the live stack"
rule ticks "$T/n.svg"
ok $? "nsys: x ticks read without leading zeros"
has "$T/n.svg" "time into the iteration (ns)" "nsys: a 2 us iteration is read in ns"
has "$T/n.svg" ">label at the peak<" "nsys: no role known, so grouped by label (call and NVTX range)"
rule legend "$T/n.svg"
ok $? "nsys: the legend's names, colours, figures and order"
rule overlap "$T/n.svg"
ok $? "nsys: no two texts overlap"

# a PyTorch snapshot of five steps: by label, iterations marked
python3 tests/import/make_snapshot.py periodic "$T/p.pickle" &&
	memplan-trace import "$T/p.pickle" -o "$T/p.trace" >/dev/null 2>&1
ok $? "a snapshot of several steps imported"
memplan-analyze timeline -o "$T/p.svg" "$T/p.trace" >"$T/out" 2>"$T/err"
ok $? "snapshot: timeline"
has "$T/out" "groups by label" "snapshot: grouped by label without --by (no role is known)"
n=$(grep -c '<line data-iteration=' "$T/p.svg")
[ "$n" -ge 2 ]
ok $? "snapshot: iterations marked ($n)"
has "$T/p.svg" ">iteration 2</text>" "snapshot: the marks are numbered"
rule legend "$T/p.svg"
ok $? "snapshot: the legend's names, colours, figures and order"
rule overlap "$T/p.svg"
ok $? "snapshot: no two texts overlap"
memplan-analyze timeline -o "$T/p.html" "$T/p.trace" >/dev/null 2>"$T/err"
ok $? "snapshot: the HTML page"
has "$T/p.html" '"unit_name":"ms"' "snapshot: the page's hover reads ms, as its axis"
memplan-analyze timeline --by role -o "$T/pr.svg" "$T/p.trace" >/dev/null 2>"$T/err" &&
	grep -q '>role at the peak<' "$T/pr.svg"
ok $? "snapshot: --by role still draws by role"

# many label groups, --top 2: more named until "other" is not the majority
memplan-trace synth --model resnet50 --batch 8 -o "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "synth resnet50"
memplan-analyze timeline --by label --top 2 -o "$T/l2.svg" "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "resnet50: by label, top 2"
rule legend "$T/l2.svg"
ok $? "resnet50: the legend's names, colours, figures and order; other not the majority"
memplan-analyze timeline --by label --top 20 -o "$T/l20.svg" "$T/r.trace" >/dev/null 2>"$T/err" &&
	rule legend "$T/l20.svg"
ok $? "resnet50: 20 label groups, each its own colour and name"
rule overlap "$T/l20.svg"
ok $? "resnet50: no two texts overlap with 20 groups"

# in a browser: each picture drawn inside its frame
svg_in_chromium n p l20
done_testing
