#!/bin/sh
# memplan-plan advise: per tensor keep, swap or recompute for a budget, as
# text (per operator, per layer, per tensor, the PyTorch advice) and JSON
# (pool, overhead_percent, decisions); --strategy recompute; --max-overhead
# as a check (exit 1 above it, the advice still printed).
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo trace to advise on"

expect 0 "advise (text)" memplan-plan advise "$T/r.trace" --budget 70% --link pcie5
has "$T/out" "hybrid for budget" "  ... names the strategy and the budget"
has "$T/out" "overhead" "  ... the predicted overhead"
has "$T/out" "not recomputable:" "  ... why the others cannot be recomputed"
has "$T/out" "per operator" "  ... per operator kind"
has "$T/out" "per layer" "  ... per layer"
has "$T/out" "per tensor" "  ... per tensor"
has "$T/out" "recompute " "  ... some tensors recomputed"
has "$T/out" "for PyTorch (advice" "  ... the framework part, said to be advice"
has "$T/out" "MEMPLAN_RECOMPUTE = {" "  ... as a Python literal"

# The literal is Python: each module once, its operators a list without
# repeats (GPT-2's dropouts recompute an output and a mask of one operator)
memplan-trace synth --model gpt2 --batch 1 --depth 2 -o "$T/g.trace" 2>"$T/err"
ok $? "a cut-down GPT-2 to advise on"
expect 0 "advise on it" memplan-plan advise "$T/g.trace" --budget 80% --link pcie5
sed -n '/^MEMPLAN_RECOMPUTE = {/,/^}/p' "$T/out" >"$T/lit.py"
has "$T/lit.py" '": ["' "  ... modules map to lists of operators"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$T/lit.py" <<'PY'
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
d = tree.body[0].value
keys = [k.value for k in d.keys]
assert keys and len(keys) == len(set(keys)), keys
for v in d.values:
    ops = [e.value for e in v.elts]
    assert ops and len(ops) == len(set(ops)), ops
PY
	ok $? "  ... a literal with each module once and no repeated operator"
else
	skip "python3 absent: the literal is not parsed"
fi

expect 0 "advise --json" memplan-plan advise "$T/r.trace" --budget 70% --link pcie5 --json
cp "$T/out" "$T/a.json"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$T/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["strategy"] == "hybrid"
assert 0 < d["pool"] <= d["budget"] < d["lower_bound_noswap"]
assert d["overhead_percent"] >= 0
acts = {x["action"] for x in d["decisions"]}
assert acts <= {"keep", "swap", "recompute"} and "recompute" in acts, acts
for x in d["decisions"]:
    for k in ("buffer", "label", "action", "bytes", "cost_ns"):
        assert k in x, k
    assert x["bytes"] > 0
    if x["action"] == "recompute":
        assert "not_recomputable" not in x and x["cost_ns"] > 0
rec = sum(x["bytes"] for x in d["decisions"] if x["action"] == "recompute")
assert rec == d["recomputed_bytes"]
assert d["operators"] and d["layers"]
PY
	ok $? "  ... pool within the budget, every decision with its fields, bytes add up"
else
	skip "  ... the JSON's content" "no python3"
fi

expect 0 "advise --strategy recompute" memplan-plan advise "$T/r.trace" --budget 85% --link pcie5 --strategy recompute --json
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["strategy"] == "recompute" and all(x["action"] != "swap" for x in d["decisions"])' "$T/out"
	ok $? "  ... recomputes, never swaps"
else
	skip "  ... recomputes, never swaps" "no python3"
fi

expect 1 "advise --max-overhead 0: a check that fails at a tight budget" memplan-plan advise "$T/r.trace" --budget 60% --link pcie5 --max-overhead 0
has "$T/err" "above --max-overhead" "  ... saying so"
has "$T/out" "per tensor" "  ... the advice still printed"
expect 0 "advise --max-overhead 1000%: within" memplan-plan advise "$T/r.trace" --budget 60% --link pcie5 --max-overhead 1000%

done_testing
