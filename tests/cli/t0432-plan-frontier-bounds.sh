#!/bin/sh
# frontier prints a proven floor per kind of plan its strategies make
# (swap, recompute, hybrid) within 1% and 2% predicted overhead
# (memplan-plan(1), BOUNDS): no strategy's smallest pool within an
# overhead is below its kind's bound there, the bounds fall from swap to
# hybrid; advise says how far above the bound at its own overhead its
# answer is.
. tests/cli/lib.sh

# hasnt FILE TEXT DESCRIPTION: FILE does not contain TEXT.
hasnt() {
	! grep -qF -- "$2" "$1"
	ok $? "$3"
}

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo trace"

expect 0 "frontier --json with swap, recompute and hybrid" memplan-plan frontier "$T/r.trace" --link pcie5 --strategies memplan,recompute,hybrid,sqrt-n --step 20 --json --quiet
cp "$T/out" "$T/f.json"
need_python3
python3 - "$T/f.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
b = {x["kind"]: x for x in f["bounds"]}
assert sorted(b) == ["hybrid", "recompute", "swap"], b
kind = {"memplan": "swap", "recompute": "recompute", "sqrt-n": "recompute", "hybrid": "hybrid"}
lb = f["lower_bound_noswap"]
for s in f["summary"]:
    k = b[kind[s["strategy"]]]
    for key in ("pool_overhead_1", "pool_overhead_2"):
        assert k[key] is not None and 0 < k[key] <= lb, (k, key)
        if s[key] is not None:
            assert s[key] >= k[key], (s, k, key)
for key in ("pool_overhead_1", "pool_overhead_2"):
    assert b["hybrid"][key] <= b["recompute"][key] and b["hybrid"][key] <= b["swap"][key], (b, key)
    assert b["hybrid"][key] < lb
assert b["hybrid"]["pool_overhead_2"] <= b["hybrid"]["pool_overhead_1"]
PY
ok $? "  ... every strategy's smallest pool within 1% and 2% at or above its kind's bound, hybrid's the lowest"

expect 0 "frontier as a table" memplan-plan frontier "$T/r.trace" --link pcie5 --strategies memplan,hybrid --step 10 --quiet
has "$T/out" "bound swap" "  ... a row for the swap bound"
has "$T/out" "bound hybrid" "  ... and the hybrid one"
hasnt "$T/out" "bound recompute" "  ... none for a kind no strategy makes"
has "$T/out" "proven, no plan of that kind" "  ... saying what a bound is"

expect 0 "frontier --csv has no bounds (one row per budget and strategy)" memplan-plan frontier "$T/r.trace" --link pcie5 --strategies memplan --step 25 --csv --quiet
hasnt "$T/out" "bound" "  ... none in the CSV"

expect 0 "frontier -o draws the region no plan can reach" memplan-plan frontier "$T/r.trace" --link pcie5 --strategies memplan,recompute,hybrid --step 20 --quiet -o "$T/h.svg"
grep -q '<g class="bound" data-kind="hybrid">' "$T/h.svg"
ok $? "  ... of hybrid's kind where the strategies make several kinds"
grep -q 'no hybrid plan can be here (proven' "$T/h.svg" && grep -q '>no hybrid plan</text>' "$T/h.svg"
ok $? "  ... with a tooltip and a legend entry"
python3 - "$T/h.svg" "$T/f.json" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
d = re.search(r'<g class="bound"[^>]*><path [^>]* d="([^"]*)"', svg).group(1)
pts = [tuple(map(float, p.split(','))) for p in re.findall(r'[ML]([0-9.]+,[0-9.]+)', d)]
xs = [x for x, y in pts]
ys = [y for x, y in pts]
# a staircase: x never grows as the overhead rises (y falls on the page)
steps = pts[1:-1]
for (x0, y0), (x1, y1) in zip(steps, steps[1:]):
    assert y1 <= y0 + 1e-6, (x0, y0, x1, y1)
    assert x1 <= x0 + 1e-6 or y1 < y0, (x0, y0, x1, y1)
assert max(xs) > min(xs), pts
PY
ok $? "  ... a staircase that moves left as the overhead grows"
expect 0 "frontier -o with swap strategies alone" memplan-plan frontier "$T/r.trace" --link pcie5 --strategies memplan,vdnn --step 25 --quiet -o "$T/s.svg"
grep -q '<g class="bound" data-kind="swap">' "$T/s.svg"
ok $? "  ... shades the link bound"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$T/h.svg" "$T/s.svg" 2>"$T/err"
	ok $? "the SVGs are well-formed"
fi
svg_in_chromium h

expect 0 "advise --json says the bound at its own overhead" memplan-plan advise "$T/r.trace" --budget 75% --link pcie5 --json --quiet
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["bound_pool"] is not None and 0 < d["bound_pool"] <= d["pool"], d
assert d["bound_pool"] < d["lower_bound_noswap"], d
' "$T/out"
ok $? "  ... at or below the advice's own pool"
expect 0 "advise as text" memplan-plan advise "$T/r.trace" --budget 75% --link pcie5 --strategy recompute --quiet
has "$T/out" "bound: no recompute-only plan predicted within" "  ... the bound of its kind, in words"
done_testing
