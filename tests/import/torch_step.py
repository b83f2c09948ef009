#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/import/torch_step.py - real PyTorch writes the test inputs.

Runs one training step (forward, backward, optimizer) of a small real model
under PyTorch's execution-trace observer and its profiler with
profile_memory=True, in the same window, and writes into OUTDIR:

  MODEL.et.json      PyTorch's own file: the execution trace the observer
                     wrote (torch.profiler.ExecutionTraceObserver in 2.x,
                     ExecutionGraphObserver in 1.13), untouched.
  MODEL.chrome.json  PyTorch's own file: prof.export_chrome_trace().  Without
                     Kineto (Debian's CPU build of 1.13) it is the legacy
                     Chrome array, without [memory] events.
  MODEL.kineto.json  the profiler's memory records in Kineto's JSON layout.
                     Where PyTorch's own chrome trace already is Kineto's
                     (an object whose [memory] events carry "Addr"), a copy of
                     it.  Otherwise re-laid by this script from the profiler's
                     event tree (prof.profiler.kineto_results.
                     experimental_event_tree(): every operator with its
                     correlation id, which the ET names rf_id, its thread and
                     times; every allocation and free with its address, bytes,
                     the allocator's total and the device), nothing added:
                     cpu_op events ("External id" = the correlation id) and
                     [memory] instant events, times relative to
                     baseTimeNanoseconds as Kineto writes them.
  MODEL.layout       one line: "kineto-own" or "re-laid".

Models: mlp (784-512-256-10, SGD), cnn (torchvision's ResNet-18 at 32x32, or
a small conv net where torchvision is absent; SGD with momentum),
transformer (a 2-layer encoder, Adam), sched (the MLP for 3 steps under a
profiler schedule: ProfilerStep#N ranges).  Everything runs on the CPU.

Usage: torch_step.py MODEL OUTDIR
"""
import json
import warnings
import os
import shutil
import sys

import torch


def observer():
    """The execution-trace observer of this PyTorch, under either name."""
    prof = torch.profiler
    cls = getattr(prof, "ExecutionTraceObserver", None) or getattr(
        prof, "ExecutionGraphObserver", None)
    if cls is None:
        sys.exit("torch_step.py: this PyTorch (%s) has no execution-trace observer"
                 % torch.__version__)
    return cls()


def mlp():
    m = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                            torch.nn.Linear(512, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 10))
    x = torch.randn(64, 784)
    y = torch.randint(0, 10, (64,))
    opt = torch.optim.SGD(m.parameters(), lr=0.01)

    def step():
        loss = torch.nn.functional.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return step


def cnn():
    try:
        import torchvision
        m = torchvision.models.resnet18(num_classes=10)
        x = torch.randn(2, 3, 32, 32)
    except ImportError:
        m = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16),
            torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
            torch.nn.Linear(32, 10))
        x = torch.randn(4, 3, 32, 32)
    y = torch.randint(0, 10, (x.shape[0],))
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)

    def step():
        loss = torch.nn.functional.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return step


def transformer():
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4,
                                             dim_feedforward=128, dropout=0.0)
    m = torch.nn.TransformerEncoder(layer, num_layers=2)
    x = torch.randn(16, 4, 64)
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)

    def step():
        loss = m(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    return step


MODELS = {"mlp": mlp, "cnn": cnn, "transformer": transformer, "sched": mlp}


def relay(prof, path):
    """The profiler's event tree in Kineto's JSON layout (see the top)."""
    res = prof.profiler.kineto_results
    tree = res.experimental_event_tree()
    base = None
    nodes = []
    stack = list(tree)
    while stack:
        n = stack.pop()
        nodes.append(n)
        stack.extend(n.children)
        if base is None or n.start_time_ns < base:
            base = n.start_time_ns
    base = base or 0
    pid = os.getpid()
    events = []
    for n in nodes:
        ef = n.extra_fields
        kind = type(ef).__name__
        ts = (n.start_time_ns - base) / 1000.0
        if kind.endswith("Allocation"):
            dev = ef.device
            events.append({
                "ph": "i", "cat": "cpu_instant_event", "s": "t",
                "name": "[memory]", "pid": pid, "tid": n.start_tid,
                "ts": round(ts, 3),
                "args": {"Total Reserved": ef.total_reserved,
                         "Total Allocated": ef.total_allocated,
                         "Bytes": ef.alloc_size, "Addr": ef.ptr,
                         # c10::DeviceType: CPU 0, CUDA 1; Kineto writes
                         # -1 as the CPU's index
                         "Device Type": 1 if dev.type == "cuda" else 0,
                         "Device Id": dev.index if dev.index is not None else -1}})
        elif kind.endswith("TorchOp"):
            events.append({
                "ph": "X", "cat": "cpu_op", "name": n.name, "pid": pid,
                "tid": n.start_tid, "ts": round(ts, 3),
                "dur": round((n.end_time_ns - n.start_time_ns) / 1000.0, 3),
                "args": {"External id": n.correlation_id,
                         "Sequence number": ef.sequence_number}})
    events.sort(key=lambda e: (e["ts"], e["ph"] != "X"))
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "baseTimeNanoseconds": base,
                   "traceEvents": events}, f)


def kineto_own(path):
    """PyTorch's chrome trace is Kineto's, with addressed [memory] events."""
    try:
        with open(path) as f:
            d = json.load(f)
    except ValueError:
        return False
    if not isinstance(d, dict):
        return False
    return any(e.get("name") == "[memory]" and "Addr" in e.get("args", {})
               for e in d.get("traceEvents", []))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in MODELS:
        sys.exit("usage: torch_step.py {%s} OUTDIR" % ",".join(MODELS))
    name, out = sys.argv[1], sys.argv[2]
    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    torch.set_num_threads(1)
    step = MODELS[name]()
    et_path = os.path.join(out, name + ".et.json")
    chrome = os.path.join(out, name + ".chrome.json")
    et = observer()
    et.register_callback(et_path)
    from torch.profiler import profile, ProfilerActivity, schedule
    acts = [ProfilerActivity.CPU]
    kin = os.path.join(out, name + ".kineto.json")
    layout = []

    def ready(prof):
        prof.export_chrome_trace(chrome)
        if kineto_own(chrome):
            shutil.copyfile(chrome, kin)
            layout.append("kineto-own")
        else:
            relay(prof, kin)
            layout.append("re-laid")
    if name == "sched":
        # one cycle of 3 active steps: the trace is ready at the third
        # prof.step(), which closes ProfilerStep#2 (the observer stops just
        # before it: what the ET holds, the profiler saw)
        with profile(activities=acts, profile_memory=True, record_shapes=True,
                     schedule=schedule(wait=0, warmup=0, active=3, repeat=1),
                     on_trace_ready=ready) as prof:
            et.start()
            for k in range(3):
                step()
                if k == 2:  # the ET inside the profiler's window
                    et.stop()
                prof.step()
    else:
        with profile(activities=acts, profile_memory=True,
                     record_shapes=True) as prof:
            et.start()
            step()
            et.stop()
        ready(prof)
    et.unregister_callback()
    if layout != ["kineto-own"] and layout != ["re-laid"]:
        sys.exit("torch_step.py: the profiler's trace was ready %d times, not once"
                 % len(layout))
    layout = layout[0]
    with open(os.path.join(out, name + ".layout"), "w") as f:
        f.write(layout + "\n")


if __name__ == "__main__":
    main()
