#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/import/zoo_to_et.py - writes one training step of the synthetic zoo
# (a trace made by `memplan-trace synth`) as PyTorch would record it: an
# execution trace (schema 1.1.1, storage ids counted from 1) and a
# Chrome/Kineto trace with cpu_op, runtime, kernel and [memory] events, so
# that importing the two must give back the step the zoo made: the same
# buffers, order, accesses and GPU times (standard library only).
#
#   zoo_to_et.py SYNTH.trace ET.json KINETO.json [SNAPSHOT.pickle]
#
# With SNAPSHOT, also a memory snapshot of the same run as
# torch.cuda.memory._dump_snapshot writes it: its history holds the weights
# allocated (the buffers that live through the step), a warm-up of other
# allocations, all freed, the step's allocations and frees (each alloc
# recording the bytes asked for, as the caching allocator does), and the
# first allocations of the next step; its segments hold the blocks live at
# the end.  Importing the ET with it must give back the step too.
#
# Each kernel (and copy) becomes a leaf operator whose schema says how it
# touches each buffer: read (Tensor), written (Tensor(a!) in an .out
# overload), read and written (Tensor(a!) in an in-place op), or made (a
# fresh return, its [memory] allocation inside the operator).  CPU time is
# the zoo's sequence number, in microseconds, so the profiler's order is the
# zoo's; kernels keep the zoo's GPU times.  Prints what could not be
# expressed (a buffer allocated long before its first use, an operator that
# writes one buffer and reads-and-writes another) on stderr.
import json
import pickle
import random
import sqlite3
import sys


def main():
    src, et_path, kin_path = sys.argv[1:4]
    db = sqlite3.connect(src)
    size = dict(db.execute("SELECT id, size FROM buffers"))
    events = list(db.execute("SELECT e.seq, e.type, e.buffer, coalesce(n.name, ''), e.t_start, "
                             "e.t_end, e.bytes, e.aux FROM events e LEFT JOIN names n "
                             "ON n.id = e.name ORDER BY e.seq"))
    acc = {}
    for seq, buf, mode in db.execute("SELECT seq, buffer, mode FROM accesses ORDER BY rowid"):
        acc.setdefault(seq, []).append((buf, mode))
    allocated = set(e[2] for e in events if e[1] == 0)
    root = lambda i: {"id": i, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1,
                      "inputs": {"values": [], "shapes": [], "types": []},
                      "outputs": {"values": [], "shapes": [], "types": []},
                      "attrs": [{"name": "rf_id", "type": "uint64", "value": 0}]}
    nodes = [root(2), root(3)]
    kin = []
    next_id = 4
    corr = 1
    group = []  # allocations since the last operator
    # the backward pass (from the first *_bwd kernel to the optimizer's
    # step) runs on the autograd thread, with the forward thread as fw_tid
    phase = "fwd"
    seen = set()
    problems = 0

    def tensor(b):
        return [b + 1000000, b + 1, 0, size[b], 1, "cuda:0"]

    copy_names = {1: "Memcpy HtoD (Pinned -> Device)", 2: "Memcpy DtoH (Device -> Pinned)",
                  3: "Memcpy DtoD (Device -> Device)", 4: "Memcpy HtoH (Pinned -> Pinned)",
                  5: "Memcpy PtoP (Device -> Device)"}
    for seq, typ, buf, name, t0, t1, nbytes, aux in events:
        if typ == 0:
            group.append((seq, buf))
            continue
        if typ == 1:
            kin.append({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1,
                        "tid": 1, "ts": float(seq),
                        "args": {"Addr": (buf + 1) << 20, "Bytes": -size[buf], "Device Type": 1,
                                 "Device Id": 0, "Total Allocated": 0, "Total Reserved": 0}})
            continue
        if typ not in (2, 3, 4) or seq not in acc:
            continue
        nid = next_id
        next_id += 1
        if phase == "fwd" and "_bwd" in name:
            phase = "bwd"
        elif phase == "bwd" and "_step" in name:
            phase = "opt"
        tid = 2 if phase == "bwd" else 1
        fresh = set(b for _, b in group)
        args, ins, outs, modes = [], [], [], set()
        for b, mode in acc[seq]:
            if b in fresh and b not in seen:
                outs.append(b)
            else:
                if b in allocated and b not in seen:
                    problems += 1
                modes.add(mode)
                ins.append((b, mode))
            seen.add(b)
        inplace = 3 in modes
        if inplace and 2 in modes:
            problems += 1
        for i, (b, mode) in enumerate(ins):
            if mode == 1:
                args.append("Tensor x%d" % i)
            else:
                args.append("Tensor(a%d!) x%d" % (i, i))
        opname = "zoo::k%d%s" % (nid, "_" if inplace else "")
        schema = "%s%s(%s) -> (%s)" % (opname, "" if inplace else ".out", ", ".join(args),
                                       ", ".join("Tensor" for _ in outs))
        rf = nid
        nodes.append({"id": nid, "name": name or opname, "ctrl_deps": 3 if tid == 2 else 2,
                      "inputs": {"values": [tensor(b) for b, _ in ins], "shapes": [[] for _ in ins],
                                 "types": ["Tensor(uint8)" for _ in ins]},
                      "outputs": {"values": [tensor(b) for b in outs], "shapes": [[] for _ in outs],
                                  "types": ["Tensor(uint8)" for _ in outs]},
                      "attrs": [{"name": "rf_id", "type": "uint64", "value": rf},
                                {"name": "tid", "type": "uint64", "value": tid},
                                {"name": "fw_tid", "type": "uint64",
                                 "value": 1 if tid == 2 else 0},
                                {"name": "op_schema", "type": "string", "value": schema}]})
        start = (group[0][0] if group else seq) - 0.25
        kin.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": tid, "ts": start,
                    "dur": seq - start, "args": {"External id": nid, "Record function id": rf}})
        for aseq, b in group:
            kin.append({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1,
                        "tid": tid, "ts": float(aseq),
                        "args": {"Addr": (b + 1) << 20, "Bytes": size[b], "Device Type": 1,
                                 "Device Id": 0, "Total Allocated": 0, "Total Reserved": 0}})
        group = []
        if t0 is not None and t1 is not None:
            kin.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                        "tid": tid, "ts": seq - 0.1, "dur": 0.05,
                        "args": {"External id": nid, "correlation": corr}})
            cat, kname, args = "kernel", name, {"External id": nid, "correlation": corr}
            if typ == 3:  # copies and memsets are Kineto's gpu_memcpy/gpu_memset
                cat, kname = "gpu_memcpy", copy_names.get(aux, "Memcpy")
                args["bytes"] = nbytes
            elif typ == 4:
                cat, kname = "gpu_memset", "Memset (Device)"
                args["bytes"] = nbytes
            kin.append({"ph": "X", "cat": cat, "name": kname, "pid": 0, "tid": "stream 7",
                        "ts": t0 / 1000.0, "dur": (t1 - t0) / 1000.0, "args": args})
            corr += 1
    for aseq, b in group:  # allocations after the last operator
        kin.append({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1,
                    "ts": float(aseq), "args": {"Addr": (b + 1) << 20, "Bytes": size[b],
                                                "Device Type": 1, "Device Id": 0}})
    nodes.append({"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1,
                  "inputs": {"values": [], "shapes": [], "types": []},
                  "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []})
    if len(sys.argv) > 4:
        write_snapshot(sys.argv[4], events, size, allocated)
    with open(et_path, "w") as f:
        json.dump({"schema": "1.1.1-chakra.0.0.4", "pid": 1, "time": "zoo", "start_ts": 0,
                   "nodes": nodes, "finish_ts": 1}, f)
    with open(kin_path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": kin}, f)
    if problems:
        print("zoo_to_et.py: %d accesses could not be expressed exactly" % problems, file=sys.stderr)


def write_snapshot(path, events, size, allocated):
    hist = []
    clock = [1_760_000_000_000_000]
    live = {}
    top = [0x7F0000000000]
    segs = []

    def entry(action, addr, nbytes, where):
        clock[0] += 11
        hist.append({"action": action, "addr": addr, "size": nbytes, "stream": 0,
                     "time_us": clock[0], "compile_context": "N/A", "user_metadata": "",
                     "frames": [{"filename": "/home/ml/train.py", "line": where,
                                 "name": "step"}]})

    def alloc(nbytes, where):
        block = (nbytes + 511) // 512 * 512
        addr = top[0]
        top[0] += block
        segs.append([addr, block])
        entry("segment_alloc", addr, block, where)
        entry("alloc", addr, nbytes, where)
        live[addr] = nbytes
        return addr

    def free(addr, where):
        entry("free_requested", addr, live[addr], where)
        entry("free_completed", addr, live.pop(addr), where)

    for b in sorted(size):  # the weights and what else lives through the step
        if b not in allocated:
            alloc(size[b], 10)
    rng = random.Random(7)
    warm = [alloc(rng.randrange(1, 1 << 16) * 8 + 3, 20) for _ in range(40)]
    for a in warm:
        free(a, 21)
    addr = {}
    first = []
    for seq, typ, buf, name, t0, t1, nbytes, aux in events:
        if typ == 0:
            addr[buf] = alloc(size[buf], 30)
            first.append(buf)
        elif typ == 1 and buf in addr:
            free(addr[buf], 31)
    for buf in first[:5]:  # the next step begins
        alloc(size[buf], 30)
    blocks = {}
    for a, nbytes in live.items():
        blocks[a] = {"address": a, "size": (nbytes + 511) // 512 * 512,
                     "requested_size": nbytes, "state": "active_allocated", "frames": []}
    segments = [{"device": 0, "address": a, "total_size": n, "allocated_size": 0,
                 "active_size": 0, "requested_size": 0, "stream": 0,
                 "segment_type": "large" if n > (1 << 20) else "small",
                 "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
                 "blocks": [blocks[a]] if a in blocks else []} for a, n in segs]
    with open(path, "wb") as f:
        pickle.dump({"segments": segments, "device_traces": [hist],
                     "allocator_settings": {"expandable_segments": False}}, f, protocol=4)


main()
