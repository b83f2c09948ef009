#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/gpu/capture_resnet18.sh - end to end on a machine with a GPU and
# PyTorch: capture the 3rd training iteration of ResNet-18 (NVTX range
# "iteration" around each step) and check the trace against what PyTorch
# itself reports, then plan it (256-aligned, as cudaMalloc aligns), verify
# the plan and replay it on the device, which must follow it.  Captured the
# way an LD_PRELOAD plan is followed: PYTORCH_NO_CUDA_MEMORY_CACHING=1, so
# that every tensor is a cudaMalloc of its own (under the caching allocator
# a steady-state iteration asks CUDA for nothing, and there is nothing to
# plan).  Speaks TAP.
# Not part of `make check` (no GPU in CI); one command on a fresh machine
# (it builds first, see setup.sh):
#   sh tests/gpu/capture_resnet18.sh
# Knobs: BATCH (default 32), PYTHON (default python3), BUILD, CUDA_HOME.
# shellcheck source=tests/gpu/setup.sh
. "$(dirname "$0")/setup.sh"
BATCH=${BATCH:-32}

if ! "$PYTHON" -c "import torch, torchvision; assert torch.cuda.is_available()" 2>/dev/null; then
	ok 0 "# SKIP needs a GPU, torch and torchvision"
	done_testing
	exit 0
fi
[ -e "$BUILD_DIR/lib/libmemplan-capture.so" ]
ok $? "the capture library was built (CUPTI found under CUDA_HOME=$CUDA_HOME)"

cat >"$T/train.py" <<'PY'
import json, os, sys, torch, torchvision
torch.backends.cudnn.benchmark = False
batch = int(sys.argv[1])
model = torchvision.models.resnet18(num_classes=1000).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(batch, 3, 224, 224, device="cuda")
y = torch.randint(0, 1000, (batch,), device="cuda")
stats = []
for step in range(5):
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    torch.cuda.nvtx.range_push("iteration")
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    stats.append({"before": before, "peak": torch.cuda.max_memory_allocated(),
                  "reserved": torch.cuda.max_memory_reserved()})
json.dump(stats, open(os.environ["STATS"], "w"))
PY

STATS="$T/stats.json" PYTORCH_NO_CUDA_MEMORY_CACHING=1 memplan-capture -o "$T/r18.trace" --iteration 3 -- \
	"$PYTHON" "$T/train.py" "$BATCH" >"$T/out" 2>"$T/err"
ok $? "memplan-capture records iteration 3 of ResNet-18 (batch $BATCH)"
cat "$T/out" "$T/err" | sed 's/^/# /'
has "$T/out" "range 'iteration', occurrence 3" "the summary names the selection"
memplan-trace info "$T/r18.trace" >"$T/info" 2>"$T/err"
ok $? "the trace loads with the trace store"
sed 's/^/# /' "$T/info"

"$PYTHON" - "$T/r18.trace" "$T/stats.json" >"$T/check" 2>&1 <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
stats = json.load(open(sys.argv[2]))[2]
q = lambda s: db.execute(s).fetchone()[0]
meta = dict(db.execute("SELECT key, value FROM meta"))
checks = [
    ("complete", meta.get("complete") == "1"),
    ("device name recorded: %s" % meta.get("device"), bool(meta.get("device"))),
    ("bandwidths measured: %s / %s B/s" % (meta.get("bandwidth_h2d"), meta.get("bandwidth_d2h")),
     float(meta.get("bandwidth_h2d", 0)) > 1e9 and float(meta.get("bandwidth_d2h", 0)) > 1e9),
    ("kernels recorded: %d" % q("SELECT count(*) FROM events WHERE type = 2"),
     q("SELECT count(*) FROM events WHERE type = 2") > 50),
    ("most kernels touch a buffer",
     q("SELECT count(DISTINCT seq) FROM accesses") > 0.8 * q("SELECT count(*) FROM events WHERE type = 2")),
    ("kernels have GPU times",
     q("SELECT count(*) FROM events WHERE type = 2 AND t_start IS NOT NULL") > 0.9 * q("SELECT count(*) FROM events WHERE type = 2")),
    ("allocations inside the iteration (to plan): %d" % q("SELECT count(*) FROM events WHERE type = 0"),
     q("SELECT count(*) FROM events WHERE type = 0") > 20),
    ("persistent buffers (weights, momentum) are there",
     q("SELECT count(*) FROM buffers b WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.type = 0 AND e.buffer = b.id)") > 0),
    ("iteration marks begin and end the trace",
     q("SELECT aux FROM events ORDER BY seq LIMIT 1") == 1 and q("SELECT aux FROM events ORDER BY seq DESC LIMIT 1") == 2),
]
# without caching, PyTorch asks CUDA for each tensor: the trace's live
# bytes cover what PyTorch counts as allocated (cudaMalloc rounds up).
live = q("SELECT coalesce(sum(size), 0) FROM buffers")
checks.append(("device bytes in the trace (%d) cover PyTorch's peak allocation (%d)" % (live, stats["peak"]),
               live >= stats["peak"] * 0.9))
bad = 0
for what, good in checks:
    print(("ok - " if good else "not ok - ") + what)
    bad += not good
sys.exit(1 if bad else 0)
PY
ok $? "the trace agrees with PyTorch"
sed 's/^/# /' "$T/check"

# the plan of a device trace: 256-aligned, verified, and followed on the GPU
memplan-plan compile --align 256 "$T/r18.trace" -o "$T/r18.plan" >"$T/out" 2>"$T/err"
ok $? "the trace compiles to a plan with --align 256"
sed 's/^/# /' "$T/out"
memplan-plan verify "$T/r18.plan" "$T/r18.trace" >"$T/out" 2>"$T/err"
ok $? "  ... which verifies against the trace"
memplan-replay --backend cuda --iterations 3 --stats "$T/r18.plan" "$T/r18.trace" >"$T/out" 2>"$T/err"
ok $? "  ... and replays valid on the device"
head -1 "$T/out" | sed 's/^/# /'
stats_followed "the replay" "$T/out"

# the same capture under the marker API's equivalent: a range that never occurs
STATS="$T/stats2.json" memplan-capture -o "$T/none.trace" --range no-such-range -- \
	"$PYTHON" "$T/train.py" 8 >"$T/out" 2>"$T/err"
[ $? -eq 3 ] && [ ! -e "$T/none.trace" ]
ok $? "a range that never occurs: exit 3 and no trace"
has "$T/err" "never reached the selected iteration" "with a clear message"

done_testing
