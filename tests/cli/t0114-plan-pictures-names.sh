#!/bin/sh
# Plans shown to people name their tensors: simulate's text, JSON and SVG
# tooltips, and inspect given the trace, say which tensors are swapped by
# the trace's labels, not request numbers alone; simulate's picture is
# titled by the plan's name and strategy, not a path, and its texts never
# overlap (tests/cli/svgrule.py); inspect refuses a trace the plan does not
# belong to.  The frontier picture keeps the 0-20% band readable: overheads
# above the axis's cap are drawn at its edge and labelled, labels do not
# overlap, and recompute and hybrid sit beside the swap strategies.
. tests/cli/lib.sh

need_python3
rule() { python3 tests/cli/svgrule.py "$@" >"$T/err" 2>&1; }
memplan-trace synth --model resnet50 --batch 2 -o "$T/r.trace" >/dev/null 2>"$T/err" &&
	memplan-trace synth --model alexnet --batch 8 -o "$T/a.trace" >/dev/null 2>"$T/err"
ok $? "two traces"
mkdir -p "$T/deep/folder"
memplan-plan compile "$T/r.trace" --budget 50% --link pcie5 -o "$T/deep/folder/r50.plan" >/dev/null 2>"$T/err"
ok $? "a plan with swaps"

# the names the trace gives the swapped tensors, in request order
python3 - "$T/r.trace" >"$T/labels" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for (lab,) in db.execute("SELECT label FROM buffers WHERE label IS NOT NULL"):
    print(lab)
EOF

memplan-plan simulate "$T/deep/folder/r50.plan" "$T/r.trace" -o "$T/s.svg" >"$T/out" 2>"$T/err"
ok $? "simulate with a picture"
has "$T/out" "swapped tensors" "simulate text: a list of the swapped tensors"
name=$(sed -n '/^swapped tensors/{n;p;}' "$T/out" | awk '{ print $1 }')
[ -n "$name" ] && grep -qxF "$name" "$T/labels"
ok $? "simulate text: the largest swapped tensor by its trace label ('$name')"
sed -n '/^longest stalls/,$p' "$T/out" | sed -n '3p' | awk '{ print $NF }' >"$T/stall1"
grep -qxF "$(cat "$T/stall1")" "$T/labels"
ok $? "simulate text: the longest stall names its tensor ('$(cat "$T/stall1")')"
memplan-plan simulate "$T/deep/folder/r50.plan" "$T/r.trace" --json >"$T/s.json" 2>"$T/err"
python3 - "$T/s.json" "$T/labels" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
labels = set(open(sys.argv[2]).read().split("\n"))
names = [w["tensor"] for w in d["swap_slack"]] + [s["tensor"] for s in d["top_stalls"]]
sys.exit(not names or not all(n in labels for n in names))
EOF
ok $? "simulate --json: every swap and stall names its tensor by label"
grep -q '<title>swap 0 out (D2H): [^<]* of [a-z0-9_.]*\.out (request ' "$T/s.svg"
ok $? "simulate SVG: a copy's tooltip names its tensor"
grep -q '<title>stall: [^<]* for swap [0-9]* ([a-z0-9_.]*)' "$T/s.svg"
ok $? "simulate SVG: a stall's tooltip names the tensor it waits for"
grep -q '>memplan simulation: r50.plan (best-fit+memplan) over pcie5<' "$T/s.svg"
ok $? "simulate SVG: titled by the plan's name and strategy"
! grep -q "$T" "$T/s.svg"
ok $? "simulate SVG: no path of this machine in the picture"
rule overlap "$T/s.svg"
ok $? "simulate SVG: no two texts overlap"
memplan-plan compile "$T/r.trace" --budget 97% --link pcie5 -o "$T/r97.plan" >/dev/null 2>"$T/err" &&
	memplan-plan simulate "$T/r97.plan" "$T/r.trace" -o "$T/s97.svg" >/dev/null 2>"$T/err" &&
	rule overlap "$T/s97.svg"
ok $? "simulate SVG: the pool and no-swap peak labels apart when the lines are close"

memplan-plan inspect "$T/deep/folder/r50.plan" "$T/r.trace" >"$T/out" 2>"$T/err"
ok $? "inspect PLAN TRACE"
sed -n '/^swaps (/,$p' "$T/out" | sed -n '3p' | awk '{ print $NF }' >"$T/sw1"
grep -qxF "$(cat "$T/sw1")" "$T/labels"
ok $? "inspect: the swaps table names the tensor ('$(cat "$T/sw1")')"
memplan-plan inspect --json "$T/deep/folder/r50.plan" "$T/r.trace" >"$T/i.json" 2>"$T/err" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not all(s["tensor"] for s in d["swaps"]))' "$T/i.json"
ok $? "inspect --json: every swap names its tensor"
memplan-plan inspect --json "$T/deep/folder/r50.plan" >"$T/i.json" 2>"$T/err" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not all(s["tensor"] is None for s in d["swaps"]))' "$T/i.json"
ok $? "inspect --json without a trace: tensor null"
expect 1 "inspect with another trace: refused, as verify refuses it" \
	memplan-plan inspect "$T/deep/folder/r50.plan" "$T/a.trace"
has "$T/err" "does not fit trace" "  ... in verify's words"
# the frontier: 0-20% readable under a 350% point, recompute and hybrid
# beside the swap strategies, no text over another
memplan-plan frontier "$T/r.trace" --link pcie5 --strategies memplan,vdnn,recompute,hybrid \
	--from 80 --to 20 --step 25 --quiet -o "$T/f.svg" >"$T/out" 2>"$T/err"
ok $? "frontier with recompute and hybrid, drawn"
python3 - "$T/f.svg" >"$T/err" 2>&1 <<'EOF'
import re, sys
svg = open(sys.argv[1]).read()
bad = []
levels = dict((m.group(2), float(m.group(1))) for m in re.finditer(
    r'<line class="level" x1="[0-9.]*" y1="([0-9.]*)"[^>]*/><text[^>]*>([0-9]+)%</text>', svg))
if abs(levels.get("1", 0) - levels.get("2", 0)) < 10:
    bad.append("the 1%% and 2%% levels %r are not 10 px apart" % levels)
if 'class="axis-break"' not in svg:
    bad.append("no axis break under a point above 20%")
for name in ("recompute", "hybrid"):
    g = re.search(r'<g class="strategy" id="s-%s" data-kind="recompute"><polyline[^>]*stroke-dasharray' % name, svg)
    if not g:
        bad.append("%s is not drawn dashed as a recompute strategy" % name)
if '>recompute</text>' not in svg or '>swap to host</text>' not in svg:
    bad.append("the legend does not group swap and recompute strategies")
for cy in re.findall(r'<circle class="plan"[^>]* cy="([0-9.]*)"', svg):
    if not 55 <= float(cy) <= 505:
        bad.append("a marker at y %s is outside the plot" % cy)
print("\n".join(bad))
sys.exit(bool(bad))
EOF
ok $? "frontier SVG: 1% and 2% apart, the axis broken above 20%, recompute and hybrid dashed and grouped, every marker inside"
rule overlap "$T/f.svg"
ok $? "frontier SVG: no two texts overlap"

# in a browser: each picture drawn inside its frame
svg_in_chromium s s97 f
done_testing
