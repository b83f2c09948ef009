#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/gpu/runtime_pytorch.sh - the runtime end to end on a machine with a
# GPU and PyTorch: capture iteration 3 of a small ResNet-18 training run,
# plan it, replay the plan on the device, then train with the plan through
# LD_PRELOAD (PYTORCH_NO_CUDA_MEMORY_CACHING=1) and through the pluggable
# allocator; the losses must equal those without memplan, and the script
# prints the device memory used and the step time of each way, for the
# README.  The runs with the runtime must follow the plan: requests served
# from the pool, iterations followed to their end, no divergence (its
# statistics, MEMPLAN_SHOW_STATS=1).  Plans of device traces are compiled
# 256-aligned.  Speaks TAP.  Not part of `make check` (no GPU in CI); one
# command on a fresh machine (it builds first, see setup.sh):
#   sh tests/gpu/runtime_pytorch.sh
# Knobs: BATCH (default 32), STEPS (default 8), PYTHON (default python3),
# BUILD, CUDA_HOME.  Written without a GPU at hand: it has never run.
# shellcheck source=tests/gpu/setup.sh
. "$(dirname "$0")/setup.sh"
BATCH=${BATCH:-32}
STEPS=${STEPS:-8}
LIB=$BUILD_DIR/lib/libmemplan.so

if ! "$PYTHON" -c "import torch, torchvision; assert torch.cuda.is_available()" 2>/dev/null; then
	ok 0 "# SKIP needs a GPU, torch and torchvision"
	done_testing
	exit 0
fi
[ -e "$BUILD_DIR/lib/libmemplan-capture.so" ]
ok $? "the capture library was built (CUPTI found under CUDA_HOME=$CUDA_HOME)"

cat >"$T/train.py" <<'PY'
import ctypes, json, os, sys, time, torch, torchvision
if os.environ.get("MODE") == "pluggable":
    alloc = torch.cuda.memory.CUDAPluggableAllocator(
        os.environ["LIBMEMPLAN"], "mp_torch_alloc", "mp_torch_free")
    lib = ctypes.CDLL(os.environ["LIBMEMPLAN"])
    native = alloc.allocator()
    if hasattr(native, "set_record_stream_fn"):
        native.set_record_stream_fn(
            ctypes.cast(lib.mp_torch_record_stream, ctypes.c_void_p).value)
    else:
        print("this PyTorch cannot set a record-stream hook", file=sys.stderr)
    torch.cuda.memory.change_current_allocator(alloc)
torch.manual_seed(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
batch, steps = int(sys.argv[1]), int(sys.argv[2])
model = torchvision.models.resnet18(num_classes=100).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(batch, 3, 224, 224, device="cuda")
y = torch.randint(0, 100, (batch,), device="cuda")
total = torch.cuda.mem_get_info()[1]
out = {"loss": [], "time": [], "used": 0}
for step in range(steps):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    torch.cuda.nvtx.range_push("iteration")
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    out["time"].append(time.perf_counter() - t0)
    out["loss"].append(loss.item())
    out["used"] = max(out["used"], total - torch.cuda.mem_get_info()[0])
if os.environ.get("MODE") != "pluggable":
    out["reserved"] = torch.cuda.max_memory_reserved()
out["device"] = torch.cuda.get_device_name()
json.dump(out, open(os.environ["OUT"], "w"))
PY

# train NAME [env...]: one run, its figures in $T/NAME.json
train() {
	name=$1
	shift
	env "$@" OUT="$T/$name.json" LIBMEMPLAN="$LIB" \
		"$PYTHON" "$T/train.py" "$BATCH" "$STEPS" >"$T/out" 2>"$T/err"
	ok $? "training run: $name"
	sed 's/^/# /' "$T/err" | tail -20
}

train caching
train nocaching PYTORCH_NO_CUDA_MEMORY_CACHING=1
# the requests the runtime will see: cudaMalloc per tensor, and the
# pluggable allocator's (unrounded sizes), each captured and planned
for way in preload pluggable; do
	if [ $way = preload ]; then set -- PYTORCH_NO_CUDA_MEMORY_CACHING=1; else set -- MODE=pluggable; fi
	env "$@" OUT="$T/cap-$way.json" LIBMEMPLAN="$LIB" memplan-capture -o "$T/$way.trace" \
		--iteration 3 -- "$PYTHON" "$T/train.py" "$BATCH" 5 >"$T/out" 2>"$T/err"
	ok $? "capture of iteration 3 for $way"
	memplan-plan compile --align 256 "$T/$way.trace" -o "$T/$way.plan" >"$T/out" 2>"$T/err"
	ok $? "  ... planned, 256-aligned"
	sed 's/^/# /' "$T/out"
	memplan-replay --backend cuda --iterations 3 --stats "$T/$way.plan" "$T/$way.trace" >"$T/out" 2>"$T/err"
	ok $? "  ... and the plan replays valid on the device"
	head -1 "$T/out" | sed 's/^/# /'
	stats_followed "replay" "$T/out"
done
train preload PYTORCH_NO_CUDA_MEMORY_CACHING=1 LD_PRELOAD="$LIB" \
	MEMPLAN_PLAN="$T/preload.plan" MEMPLAN_SHOW_STATS=1
sed 's/^/# /' "$T/err" | grep -E 'planned_allocs|completed|divergences|pool_bytes|captured'
stats_followed "LD_PRELOAD" "$T/err"
train pluggable MODE=pluggable MEMPLAN_PLAN="$T/pluggable.plan" MEMPLAN_SHOW_STATS=1
sed 's/^/# /' "$T/err" | grep -E 'planned_allocs|completed|divergences|pool_bytes|captured'
stats_followed "pluggable allocator" "$T/err"

"$PYTHON" - "$T" >"$T/table" 2>&1 <<'PY'
import json, statistics, sys, datetime
d = sys.argv[1]
runs = {n: json.load(open("%s/%s.json" % (d, n))) for n in ("caching", "nocaching", "preload", "pluggable")}
base = runs["caching"]["loss"]
bad = 0
print("# %s, %s" % (runs["caching"]["device"], datetime.date.today()))
print("# | run | loss equal | device memory used (MiB) | max_memory_reserved (MiB) | median step (ms) |")
for n, r in runs.items():
    same = r["loss"] == base
    bad += not same
    res = "%.0f" % (r["reserved"] / 2**20) if "reserved" in r else "-"
    print("# | %s | %s | %.0f | %s | %.2f |" % (n, "yes" if same else "NO %s" % r["loss"][:3],
          r["used"] / 2**20, res, 1e3 * statistics.median(r["time"][2:])))
sys.exit(1 if bad else 0)
PY
ok $? "every way trains to the same losses as PyTorch's own allocator"
cat "$T/table"

done_testing
