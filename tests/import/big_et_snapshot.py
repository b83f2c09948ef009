#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/import/big_et_snapshot.py - a large execution trace and the memory
# snapshot of the same run, for timing `import --from pytorch-et --snapshot`
# (standard library only): N matrix products in a chain, each output
# allocated in the history, half of them with a 4 MiB cuBLAS workspace the
# ET does not show, a hundred outputs live at a time.
#
#   big_et_snapshot.py N ET.json SNAP.pickle
import json
import pickle
import random
import sys


def main():
    n, et_path, snap_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    r = random.Random(1)
    nodes = [{"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1}]
    hist = []
    clock = [1_760_000_000_000_000]

    def entry(action, addr, size):
        clock[0] += 1
        hist.append({"action": action, "addr": addr, "size": size, "stream": 0,
                     "time_us": clock[0], "frames": []})

    sizes = [4096 * (1 + i % 7) for i in range(50)]
    weight = [3, 5, 0, 1024, 4, "cuda:0"]
    prev = None
    addr = 0x7F0000000000
    live = []
    schema = "aten::mm(Tensor self, Tensor mat2) -> Tensor"
    for i in range(n):
        size = sizes[r.randrange(50)]
        out = [1000000 + i, 11 + i, 0, size // 4, 4, "cuda:0"]
        ins = [weight] + ([prev] if prev else [])
        nodes.append({"id": 3 + i, "name": "aten::mm", "ctrl_deps": 2,
                      "inputs": {"values": ins, "shapes": [[] for _ in ins],
                                 "types": ["Tensor(float)"] * len(ins)},
                      "outputs": {"values": [out], "shapes": [[]], "types": ["Tensor(float)"]},
                      "attrs": [{"name": "op_schema", "type": "string", "value": schema}]})
        a = addr
        addr += 1 << 20
        entry("alloc", a, size)
        if r.random() < 0.5:
            entry("alloc", 0x100, 4 << 20)
            entry("free_requested", 0x100, 4 << 20)
            entry("free_completed", 0x100, 4 << 20)
        live.append((a, size))
        if len(live) > 100:
            fa, fs = live.pop(0)
            entry("free_requested", fa, fs)
            entry("free_completed", fa, fs)
        prev = out
    nodes.append({"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1})
    with open(et_path, "w") as f:
        json.dump({"schema": "1.1.1-chakra.0.0.4", "nodes": nodes}, f)
    segs = [{"device": 0, "address": 0x7E0000000000, "total_size": 1 << 21, "stream": 0,
             "blocks": [{"address": 0x7E0000000000, "size": 4096, "requested_size": 4096,
                         "state": "active_allocated", "frames": []}]}]
    with open(snap_path, "wb") as f:
        pickle.dump({"segments": segs, "device_traces": [hist]}, f, protocol=4)


main()
