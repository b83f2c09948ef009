#!/bin/sh
# tests/gpu/probe.sh --dry: the GPU probe's steps that need no GPU, on the
# stand-ins, so that the one script a GPU machine runs cannot rot: it
# builds (a no-op after make check), captures tests/cuda/app beside the
# trace it replays, plans, runs the plan both ways in and a swap plan, and
# writes one valid JSON summary (and at most 8 files) with what needs a GPU
# marked skipped.
. tests/cli/lib.sh
need_python3
if [ ! -e "$BUILD_DIR/tests/cuda/cupti/libcupti.so.13" ]; then
	skip "the probe's dry run" "built without CUPTI's headers (no capture library)"
	done_testing
	exit
fi
# the probe runs make itself; up to date here, so it only checks
make -s -q BUILD="$BUILD" >/dev/null 2>&1
JOBS=2 sh tests/gpu/probe.sh --dry "$T/out" >"$T/log" 2>&1
ok $? "probe.sh --dry exits 0"
sed 's/^/# /' "$T/log" | tail -3
python3 -m json.tool "$T/out/summary.json" >/dev/null 2>"$T/err"
ok $? "  ... and writes a valid JSON summary"
n=$(ls "$T/out" | wc -l)
[ "$n" -le 8 ]
ok $? "  ... in at most 8 files ($n)"
python3 - "$T/out/summary.json" >"$T/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["capture"]["app"]
r = d["run"]
checks = [
    ("the build step ran", d["build"]["status"] == "ok"),
    ("app captured on the stand-ins", c["status"] == "ok"),
    ("every allocation and the peak of the program seen (ratios %s)" % c["ratio"],
     c["ratio"] == {"allocations": 1.0, "peak": 1.0}),
    ("kernels with GPU times and buffers",
     c["trace"]["kernels"] > 0 and c["trace"]["kernels_timed"] == c["trace"]["kernels"]
     and c["trace"]["kernels_with_buffers"] == c["trace"]["kernels"]),
    ("allocation sources by library",
     isinstance(c["trace"]["sources"], list) and len(c["trace"]["sources"]) > 0
     and c["trace"]["buffers_without_source"] == 0),
    ("the link measured", float(c["trace"]["bandwidth_h2d"] or 0) > 0),
    ("plans compiled and verified both ways in",
     all(d["plan"][w]["status"] == "ok" and d["plan"][w]["verify"]["status"] == "ok"
         for w in ("app", "torch"))),
]
for way in ("preload", "pluggable"):
    s = r[way]["runtime"]
    checks.append(("%s follows its plan: %d planned, %d completed, %d divergences"
                   % (way, s.get("planned_allocs", 0), s.get("completed", 0), s.get("divergences", -1)),
                   r[way]["status"] == "ok" and s.get("planned_allocs", 0) > 0
                   and s.get("completed", 0) > 0 and s.get("divergences") == 0))
sw = d["swap"]
checks += [
    ("a swap plan at %s%% runs with swaps, its bytes intact (%s)" % (sw.get("budget_percent"), sw.get("intact")),
     sw.get("run", {}).get("status") == "ok" and sw.get("runtime", {}).get("swaps_out", 0) > 0
     and " 0 failures" in sw.get("intact", "")),
    ("simulate's prediction is there", sw.get("simulate", {}).get("iter_ns", 0) > 0),
    ("the GPU parts are marked skipped",
     all(str(x).startswith("skipped") for x in (d["capture"]["resnet18"], d["run"]["pytorch"],
                                                d["sanitizer"], d["env"]["torch"]))),
]
bad = 0
for what, good in checks:
    print(("ok - " if good else "not ok - ") + what)
    bad += not good
sys.exit(bad != 0)
PY
ok $? "the summary answers what the stand-ins can"
sed 's/^/# /' "$T/check"
done_testing
