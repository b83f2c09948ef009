# SPDX-License-Identifier: MIT
# tests/gpu/probe.py - the Python half of tests/gpu/probe.sh: the summary
# JSON (updated after every step, so a killed probe still leaves one), the
# figures of a trace, the PyTorch training step the probe captures, times
# and checks, and the environment.  Subcommands:
#   set FILE KEY JSON         sets FILE's KEY (a.b.c) to the JSON value
#   trace TRACE INFO.json     a trace's figures: allocations, peak, kernels
#                             with GPU times, allocation sources by library
#   stats LOG                 libmemplan's MEMPLAN_SHOW_STATS=1 lines -> JSON
#   median FILE...            medians of the step times in train.py outputs
#   env                       GPU, driver, torch, its CUDA, the libcudart and
#                             libcupti it maps, libcupti in the global scope
#   train MODEL STEPS BATCH OUT   a training run (env: MODE=pluggable,
#                             LIBMEMPLAN, SNAPSHOT_AT=k records PyTorch's own
#                             memory snapshot of step k, NVTX "iteration"
#                             ranges around each step)
import json
import os
import statistics
import sys


def jset(path, key, value):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        doc = {}
    cur = doc
    parts = key.split(".")
    for p in parts[:-1]:
        if not isinstance(cur.get(p), dict):
            cur[p] = {}
        cur = cur[p]
    try:
        cur[parts[-1]] = json.loads(value)
    except ValueError:
        cur[parts[-1]] = value
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def trace_figures(trace, info_path):
    with open(info_path) as f:
        info = json.load(f)
    ev = info.get("events_by_type", {})
    out = {
        "allocations": ev.get("alloc", 0),
        "frees": ev.get("free", 0),
        "buffers": info.get("buffers"),
        "peak_bytes": info.get("peak_bytes"),
        "lower_bound_bytes": info.get("lower_bound_bytes"),
        "bypass_buffers": info.get("bypass_buffers"),
        "kernels": ev.get("kernel", 0),
        "device": info.get("meta", {}).get("device"),
        "bandwidth_h2d": info.get("meta", {}).get("bandwidth_h2d"),
        "bandwidth_d2h": info.get("meta", {}).get("bandwidth_d2h"),
    }
    try:
        import sqlite3
    except ImportError:
        out["details"] = "python has no sqlite3 module"
        return out
    db = sqlite3.connect(trace)
    q = lambda s: db.execute(s).fetchall()
    out["kernels_timed"] = q("SELECT count(*) FROM events WHERE type = 2 AND t_start IS NOT NULL")[0][0]
    out["kernels_with_buffers"] = q("SELECT count(DISTINCT a.seq) FROM accesses a JOIN events e ON e.seq = a.seq WHERE e.type = 2")[0][0]
    out["kernel_gpu_ns"] = q("SELECT coalesce(sum(t_end - t_start), 0) FROM events WHERE type = 2 AND t_start IS NOT NULL")[0][0]
    out["top_kernels"] = [
        {"name": n, "count": c, "gpu_ns": t}
        for n, c, t in q("SELECT coalesce(nm.name, '?'), count(*), coalesce(sum(e.t_end - e.t_start), 0) "
                         "FROM events e LEFT JOIN names nm ON nm.id = e.name WHERE e.type = 2 "
                         "GROUP BY e.name ORDER BY 3 DESC LIMIT 8")]
    try:
        rows = q("SELECT nm.name, s.bypass, count(*), sum(b.size) FROM buffer_sources s "
                 "JOIN names nm ON nm.id = s.source JOIN buffers b ON b.id = s.buffer "
                 "GROUP BY nm.name, s.bypass ORDER BY 3 DESC")
        out["sources"] = [{"library": os.path.basename(n), "path": n, "bypass": bool(bp),
                           "buffers": c, "bytes": by} for n, bp, c, by in rows]
        out["buffers_without_source"] = q("SELECT count(*) FROM buffers WHERE id NOT IN (SELECT buffer FROM buffer_sources)")[0][0]
    except sqlite3.Error as e:
        out["sources"] = "none (%s)" % e
    return out


def stats(log):
    want = ("planned_allocs", "pass_through", "divergences", "iterations", "completed",
            "skipped", "pool_bytes", "swaps_out", "swaps_in", "swapin_late", "sync_swapins",
            "captured", "fallback_allocs")
    out = {}
    try:
        for line in open(log, errors="replace"):
            f = line.split()
            if len(f) >= 2 and f[0] in want and f[1].lstrip("-").isdigit():
                out[f[0]] = int(f[1])
    except OSError:
        pass
    return out


def median_of(paths):
    out = {}
    for p in paths:
        try:
            r = json.load(open(p))
        except (OSError, ValueError):
            continue
        t = r.get("time", [])[3:] or r.get("time", [])
        out[os.path.basename(p).rsplit(".", 1)[0]] = {
            "median_step_ms": 1e3 * statistics.median(t) if t else None,
            "steps": len(r.get("time", [])), "checksum": r.get("checksum"),
            "loss_last": (r.get("loss") or [None])[-1], "used_bytes": r.get("used")}
    return out


def env():
    out = {"python": sys.version.split()[0]}
    try:
        import ctypes
        import torch
        out["torch"] = torch.__version__
        out["torch_cuda"] = torch.version.cuda
        out["cuda_available"] = torch.cuda.is_available()
        if torch.cuda.is_available():
            torch.zeros(1, device="cuda")
            out["gpu"] = torch.cuda.get_device_name()
            out["capability"] = list(torch.cuda.get_device_capability())
            out["memory_bytes"] = torch.cuda.mem_get_info()[1]
        maps = set()
        for line in open("/proc/self/maps"):
            p = line.split()[-1]
            b = os.path.basename(p)
            if b.startswith(("libcudart", "libcupti", "libnvToolsExt", "libcuda.", "libcudnn.", "libcublas.", "libnccl")):
                maps.add(p)
        out["mapped"] = sorted(maps)
        out["libcupti_in_global_scope"] = hasattr(ctypes.CDLL(None), "cuptiSubscribe")
        out["cudaGetFuncBySymbol_in_global_scope"] = hasattr(ctypes.CDLL(None), "cudaGetFuncBySymbol")
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        out["torch_error"] = repr(e)
    return out


def train(model_name, steps, batch, out_path):
    import ctypes
    import time
    import torch
    mode = os.environ.get("MODE", "")
    if mode == "pluggable":
        lib = os.environ["LIBMEMPLAN"]
        alloc = torch.cuda.memory.CUDAPluggableAllocator(lib, "mp_torch_alloc", "mp_torch_free")
        native = alloc.allocator()
        if hasattr(native, "set_record_stream_fn"):
            h = ctypes.CDLL(lib)
            native.set_record_stream_fn(ctypes.cast(h.mp_torch_record_stream, ctypes.c_void_p).value)
        torch.cuda.memory.change_current_allocator(alloc)
    torch.manual_seed(0)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True, warn_only=True)
    if model_name == "mlp":
        model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                    torch.nn.Linear(4096, 1024), torch.nn.ReLU(),
                                    torch.nn.Linear(1024, 10)).cuda()
        x = torch.randn(batch, 1024, device="cuda")
        y = torch.randint(0, 10, (batch,), device="cuda")
    else:
        import torchvision
        model = torchvision.models.resnet18(num_classes=100).cuda()
        x = torch.randn(batch, 3, 224, 224, device="cuda")
        y = torch.randint(0, 100, (batch,), device="cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    snap_at = int(os.environ.get("SNAPSHOT_AT", "-1"))
    total = torch.cuda.mem_get_info()[1]
    out = {"loss": [], "time": [], "used": 0, "model": model_name, "batch": batch, "mode": mode}
    for step in range(steps):
        torch.cuda.synchronize()
        if step == snap_at:
            torch.cuda.reset_peak_memory_stats()
            before = torch.cuda.memory_allocated()
            try:
                torch.cuda.memory._record_memory_history(max_entries=1000000)
            except Exception as e:  # noqa: BLE001
                out["snapshot_error"] = repr(e)
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("iteration")
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        out["time"].append(time.perf_counter() - t0)
        out["loss"].append(loss.item())
        out["used"] = max(out["used"], total - torch.cuda.mem_get_info()[0])
        if step == snap_at and "snapshot_error" not in out:
            try:
                snap = torch.cuda.memory._snapshot()
                torch.cuda.memory._record_memory_history(enabled=None)
                ev = [e for tr in snap.get("device_traces", []) for e in tr]
                out["pytorch"] = {
                    "allocations": sum(1 for e in ev if e.get("action") == "alloc"),
                    "frees": sum(1 for e in ev if e.get("action") in ("free_requested", "free")),
                    "segment_allocs": sum(1 for e in ev if e.get("action") == "segment_alloc"),
                    "peak_bytes": torch.cuda.max_memory_allocated(),
                    "allocated_before": before,
                    "reserved_peak": torch.cuda.max_memory_reserved()}
            except Exception as e:  # noqa: BLE001
                out["snapshot_error"] = repr(e)
    with torch.no_grad():
        out["checksum"] = float(sum(p.double().sum().item() for p in model.parameters())) + sum(out["loss"])
    out["device"] = torch.cuda.get_device_name()
    json.dump(out, open(out_path, "w"))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "set" and len(argv) == 5:
        jset(argv[2], argv[3], argv[4])
    elif cmd == "trace" and len(argv) == 4:
        print(json.dumps(trace_figures(argv[2], argv[3])))
    elif cmd == "stats" and len(argv) == 3:
        print(json.dumps(stats(argv[2])))
    elif cmd == "median":
        print(json.dumps(median_of(argv[2:])))
    elif cmd == "env":
        print(json.dumps(env()))
    elif cmd == "train" and len(argv) == 6:
        train(argv[2], int(argv[3]), int(argv[4]), argv[5])
    else:
        sys.stderr.write("usage: probe.py set|trace|stats|median|env|train ...\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
