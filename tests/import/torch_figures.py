#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/import/torch_figures.py - the figures of a real step, from its files.

Reads an execution trace and the profiler's memory records of the same
window (Kineto's JSON layout; see torch_step.py) and prints, one "key value"
a line, what `memplan-trace import --from pytorch-et ET --kineto KINETO`
must find, computed here without memplan's code or its join:

  nodes             the ET's nodes
  leaf_ops          operators without children (the observer's
                    [pytorch|profiler|...] root nodes are not operators)
  steps             ProfilerStep#N nodes
  space             the memory the tensors are in: "cpu" or "cuda:N"
  tensors           tensor values with a storage in that space
  storages          distinct storage ids in that space
  memory_events     [memory] events in that space
  allocations       of which allocations (Bytes > 0)
  never_freed       allocations the window does not free
  live_at_start     storages first seen as an input (of any node, leaf or
                    not): made before the window; their bytes (the largest
                    (offset + numel) * itemsize any tensor reaches) in
  live_at_start_bytes
  buffers           live_at_start + allocations
  persistent        live_at_start + never_freed
  peak              live_at_start_bytes + the largest running sum of Bytes
                    (time order): the peak of live bytes in the window
  lower_bound       the largest running sum over the allocations the
                    window also frees (transient buffers)
  total_allocated_rise  the profiler's own "Total Allocated": its largest
                    value less the value before the first event; equals
                    peak - live_at_start_bytes (checked here)
  time              "absolute" when ts are microseconds since the epoch

Usage: torch_figures.py ET KINETO
"""
import json
import sys


def space_of(dev):
    if dev == "cpu":
        return "cpu"
    if dev.startswith("cuda"):
        return dev if ":" in dev else "cuda:0"
    return None


def tensors(vals, types):
    """(storage, end bytes, device) of each tensor in a node's values."""
    out = []

    def walk(v, t):
        if t.startswith("Tensor"):
            if isinstance(v, list) and len(v) == 6 and v[1]:
                out.append((v[1], (v[2] + v[3]) * v[4], v[5]))
        elif t.startswith("GenericList[") or t.startswith("Tuple["):
            inner, depth, cur = [], 0, ""
            for ch in t[t.index("[") + 1:-1]:
                if ch == "," and depth == 0:
                    inner.append(cur)
                    cur = ""
                    continue
                depth += ch in "[("
                depth -= ch in "])"
                cur += ch
            if cur:
                inner.append(cur)
            for x, tt in zip(v if isinstance(v, list) else [], inner):
                walk(x, tt)
    for v, t in zip(vals, types):
        walk(v, t)
    return out


def sides(n):
    i, o = n.get("inputs"), n.get("outputs")
    if isinstance(i, dict):
        return (i.get("values", []), i.get("types", []),
                o.get("values", []), o.get("types", []))
    return i or [], n.get("input_types", []), o or [], n.get("output_types", [])


def main():
    et = json.load(open(sys.argv[1]))
    kin = json.load(open(sys.argv[2]))
    nodes = sorted(et["nodes"], key=lambda n: n["id"])
    root = [n for n in nodes if n["name"].startswith("[pytorch|profiler|")]
    parents = {n.get("ctrl_deps", n.get("parent")) for n in nodes
               if n.get("ctrl_deps", n.get("parent")) != n["id"]}
    ops = [n for n in nodes if n not in root]
    leaves = [n for n in ops if n["id"] not in parents]
    fig = {"nodes": len(nodes), "leaf_ops": len(leaves),
           "steps": sum(n["name"].startswith("ProfilerStep#") for n in ops)}
    spaces = set()
    for n in ops:
        iv, it, ov, ot = sides(n)
        for _, _, d in tensors(iv, it) + tensors(ov, ot):
            if space_of(d):
                spaces.add(space_of(d))
    cuda = sorted(s for s in spaces if s != "cpu")
    space = cuda[0] if cuda else "cpu"
    if len(cuda) > 1:
        sys.exit("torch_figures.py: tensors on %s: one device only" % cuda)
    fig["space"] = space
    # a storage id is its address's: once an op outputs it without having
    # it as an input, it is another storage (the first is gone)
    seen, born, done, size, ntens = set(), set(), set(), {}, 0
    for n in ops:
        iv, it, ov, ot = sides(n)
        ins = {sid for sid, _, d in tensors(iv, it) if space_of(d) == space}
        for side, ts in (("in", tensors(iv, it)), ("out", tensors(ov, ot))):
            for sid, end, d in ts:
                if space_of(d) != space:
                    continue
                ntens += 1
                if sid not in seen:
                    seen.add(sid)
                    if side == "out":
                        born.add(sid)
                if side == "out" and sid not in ins:
                    done.add(sid)
                if sid not in born and sid not in done and side == "in":
                    size[sid] = max(size.get(sid, 0), end)
    fig["tensors"] = ntens
    fig["storages"] = len(seen)
    pre = [s for s in seen if s not in born and size.get(s, 0) > 0]
    fig["live_at_start"] = len(pre)
    fig["live_at_start_bytes"] = s0 = sum(size[s] for s in pre)
    # the memory records
    want_type = 0 if space == "cpu" else 1
    want_id = -1 if space == "cpu" else int(space.split(":")[1])
    mem = [e for e in kin["traceEvents"] if e.get("name") == "[memory]"
           and e["args"]["Device Type"] == want_type
           and (want_type == 0 or e["args"]["Device Id"] == want_id)]
    mem.sort(key=lambda e: e["ts"])  # stable: file order within a time
    fig["time"] = "absolute" if mem and mem[0]["ts"] > 1e12 else "relative"
    fig["memory_events"] = len(mem)
    allocs = [e for e in mem if e["args"]["Bytes"] > 0]
    fig["allocations"] = len(allocs)
    live, run, peak, lb_run, lb = {}, 0, 0, 0, 0
    freed = set()  # the allocations (their index in mem) freed later
    for k, e in enumerate(mem):
        a, b = e["args"]["Addr"], e["args"]["Bytes"]
        if b > 0:
            live[a] = k
        elif a in live:
            freed.add(live.pop(a))
    ta0 = mem[0]["args"]["Total Allocated"] - mem[0]["args"]["Bytes"] if mem else 0
    rise = 0
    for k, e in enumerate(mem):
        b = e["args"]["Bytes"]
        run += b
        peak = max(peak, run)
        rise = max(rise, e["args"]["Total Allocated"] - ta0)
    # transient: allocations the window frees, by address, in order
    live = {}
    for k, e in enumerate(mem):
        a, b = e["args"]["Addr"], e["args"]["Bytes"]
        if b > 0:
            live[a] = k
            if k in freed:
                lb_run += b
        elif a in live:
            if live.pop(a) in freed:
                lb_run += b
        lb = max(lb, lb_run)
    fig["never_freed"] = len(allocs) - len(freed)
    fig["buffers"] = len(pre) + len(allocs)
    fig["persistent"] = len(pre) + fig["never_freed"]
    fig["peak"] = s0 + peak
    fig["lower_bound"] = lb
    fig["total_allocated_rise"] = rise
    if rise != peak:
        sys.exit("torch_figures.py: the profiler's Total Allocated rises by %d, "
                 "its Bytes by %d: the records are not one allocator's" % (rise, peak))
    for k, v in fig.items():
        print(k, v)


if __name__ == "__main__":
    main()
