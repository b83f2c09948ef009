#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/import/make_et.py - writes PyTorch execution traces (the JSON of
# torch.profiler.ExecutionTraceObserver) and the profiler's Chrome/Kineto
# trace of the same window, from a simulated training step of a small MLP
# (standard library only), and beside them the figures memplan must find,
# computed here from the simulation itself.
#
#   make_et.py KIND OUT.json [--kineto K.json] [--big N]
#              [--snapshot S.pickle [--variant plain|steps3|cut|lost]]
#              [--steps N]
#
# KIND is a schema shape: 1.0.0 (flat, five-element tensors), 1.0.1 (flat),
# 1.0.2, 1.0.3, 1.0.4, 1.1.0, 1.1.1 (nested, "-chakra.0.0.4"; 1.1.1 with
# strides and tensor_range), 1.1.1u (storage ids counted from 1: unique),
# or 2.0.0 (an unknown major version).  The step has: weights from before
# the window, a composite op (aten::linear) whose children are the leaves,
# views, in-place ops, an out= op, a backward thread, ops without schema
# (autograd nodes, AccumulateGrad), a tensor list cut at 4,096, and a freed
# address used again (the same storage id in address-derived traces).
# --kineto writes the profiler trace: cpu_op (with "Record function id",
# or only "External id" for 1.0.x), cudaLaunchKernel and kernel events
# joined by correlation, [memory] events with addresses; --kineto-noaddr
# writes [memory] events without Addr.  --big N writes N nodes of a
# repeated layer instead (for the benchmark), no expect file.
# --snapshot writes a memory snapshot of the same run (the pickle of
# torch.cuda.memory._dump_snapshot): the weights as blocks allocated before
# the history, a warm-up of other allocations, the step (each aten::mm with
# a cuBLAS workspace the ET does not show), the next step's first
# allocations.  Variants: steps3 (the step three times over: ambiguous,
# the same answer), cut (the history's ring buffer lost the step's first
# allocation), lost (the loss never reached the caching allocator).
# --steps N writes N steps, each inside a ProfilerStep#k record function
# (as torch.profiler.profile's schedule wraps them).
# OUT.expect holds "key value" lines: buffers, persistent, accesses_known,
# accesses_unknown, no_schema, truncated, peak (inferred, without Kineto),
# peak_kineto (with Kineto: the profiler's largest Total Allocated), and
# with --snapshot peak_snapshot and buffers_snapshot (the step's window
# replayed from the history) and hidden (allocations the ET does not show).
import json
import pickle
import sys

F, B = 101, 202  # forward and autograd thread ids


class Sim:
    def __init__(s, kind):
        s.kind = kind
        s.major = kind.split(".")[0]
        s.flat = kind in ("1.0.0", "1.0.1")
        s.five = kind == "1.0.0"
        s.unique = kind.endswith("u")
        s.rfkey = kind.startswith("1.1")  # newer profilers: Record function id
        s.next_id = 2
        s.next_sid = 1
        s.addr_ids = {}
        s.nodes = []
        s.stack = {F: [], B: []}
        s.thread_root = {}
        s.ts = 1000.0
        s.events = []
        s.corr = 1
        s.ext = 1
        s.heap = 0x7F0000000000
        s.free_blocks = {}
        s.allocated = 0
        s.peak_alloc = 0
        s.gens = []  # [size(max view end), born leaf, last leaf, persistent]
        s.leaf_index = {}
        s.pairs = []  # per leaf op: {gen: known?}
        s.no_schema = 0
        s.truncated = 0
        s.hist = []  # the caching allocator's history: (action, addr, bytes asked)
        s.weights = []

    def newid(s):
        i = s.next_id
        s.next_id += 1
        return i

    def tick(s, d=1.0):
        s.ts += d
        return s.ts

    # --- storages --------------------------------------------------------
    def alloc(s, nbytes, tid, before_window=False):
        blk = (nbytes + 511) // 512 * 512
        lst = s.free_blocks.get(blk)
        if lst:
            addr = lst.pop()
        else:
            addr = s.heap
            s.heap += blk
        st = {"addr": addr, "bytes": blk, "gen": len(s.gens), "sid": None, "asked": nbytes}
        s.gens.append([0, None, None, before_window])
        if before_window:
            s.weights.append(st)
        else:
            s.hist.append(("alloc", addr, nbytes))
        s.allocated += blk
        s.peak_alloc = max(s.peak_alloc, s.allocated)
        if not before_window:
            s.memory(addr, blk, tid)
        return st

    def free(s, st, tid):
        s.hist.append(("free", st["addr"], st["asked"]))
        s.allocated -= st["bytes"]
        s.free_blocks.setdefault(st["bytes"], []).append(st["addr"])
        s.memory(st["addr"], -st["bytes"], tid)

    def memory(s, addr, nbytes, tid):
        args = {"Device Type": 1, "Device Id": 0, "Bytes": nbytes,
                "Total Allocated": s.allocated, "Total Reserved": s.heap - 0x7F0000000000}
        if not getattr(s, "noaddr", False):
            args["Addr"] = addr
        s.events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t",
                         "name": "[memory]", "pid": 7, "tid": tid, "ts": s.tick(0.1),
                         "args": args})

    def sid(s, st):
        if s.unique:
            if st["sid"] is None:
                st["sid"] = s.next_sid
                s.next_sid += 1
            return st["sid"]
        # address-derived: one id per address, from the counter nodes use
        if st["addr"] not in s.addr_ids:
            s.addr_ids[st["addr"]] = s.newid()
        return s.addr_ids[st["addr"]]

    def tval(s, t):
        st, numel, off = t["st"], t["numel"], t.get("off", 0)
        s.next_tid = getattr(s, "next_tid", 900000) + 1
        v = [s.next_tid, s.sid(st), off, numel, 4]
        if not s.five:
            v.append("cuda:0")
        return v

    # --- operators -------------------------------------------------------
    def begin(s, name, tid):
        if not s.stack[tid]:
            rid = s.newid()
            s.thread_root[tid] = rid
            s.stack[tid].append(rid)
            s.nodes.append(s.node("[pytorch|profiler|execution_trace|thread]", rid, 1,
                                  tid, "", [], []))
        parent = s.stack[tid][-1]
        nid = s.newid()
        s.stack[tid].append(nid)
        return {"name": name, "id": nid, "parent": parent, "tid": tid,
                "ts": s.tick(), "ext": s.next_ext(), "children": 0}

    def next_ext(s):
        e = s.ext
        s.ext += 1
        return e

    def end(s, op, schema, ins, outs, kernel=False, leaf=True):
        """ins/outs: (kind, value): kind 'r' read, 'w' written (a!), 'v' view,
        'f' fresh output, 'a' aliased output, 's' scalar, 'l' list of
        (kind, tensor), 'u' unknown (no schema)."""
        s.stack[op["tid"]].pop()
        if kernel:
            c = s.corr
            s.corr += 1
            s.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                             "pid": 7, "tid": op["tid"], "ts": s.tick(0.2), "dur": 0.1,
                             "args": {"External id": op["ext"], "correlation": c}})
            s.events.append({"ph": "X", "cat": "kernel", "name": "k_" + op["name"],
                             "pid": 0, "tid": "stream 7", "ts": op["ts"] + 50, "dur": 3.5,
                             "args": {"External id": op["ext"], "correlation": c,
                                      "device": 0, "stream": 7}})
        end = s.tick()
        rf = op["ext"] + 5000 if s.rfkey else op["ext"]
        args = {"External id": op["ext"]}
        if s.rfkey:
            args["Record function id"] = rf
        s.events.append({"ph": "X", "cat": "cpu_op", "name": op["name"], "pid": 7,
                         "tid": op["tid"], "ts": op["ts"], "dur": end - op["ts"], "args": args})
        iv, it = s.values(ins)
        ov, ot = s.values(outs)
        s.nodes.append(s.node(op["name"], op["id"], op["parent"], op["tid"], schema,
                              (iv, it), (ov, ot), rf))
        if leaf:
            li = len(s.pairs)
            pairs = {}
            for kind, t in s.flatten(ins) + s.flatten(outs):
                g = t["st"]["gen"]
                gen = s.gens[g]
                gen[0] = max(gen[0], (t.get("off", 0) + t["numel"]) * 4)
                if kind == "f" and gen[1] is None:
                    gen[1] = li
                gen[2] = li
                if kind in ("r", "w", "f"):
                    pairs[g] = True
                elif kind == "u":
                    pairs.setdefault(g, False)
            s.pairs.append(pairs)
            if not schema:
                s.no_schema += 1

    def flatten(s, vals):
        out = []
        for kind, v in vals:
            if kind == "l":
                if len(v) > 4096:
                    s.truncated += 1
                out += [(k, t) for k, t in v]
            elif kind != "s":
                out.append((kind, v))
        return out

    def values(s, vals):
        vs, ts = [], []
        for kind, v in vals:
            if kind == "s":
                vs.append(v[0])
                ts.append(v[1])
            elif kind == "l":
                vs.append([s.tval(t) for _, t in v])
                ts.append("GenericList[" + ",".join("Tensor(float)" for _ in v) + "]")
            else:
                vs.append(s.tval(v))
                ts.append("Tensor(float)")
        return vs, ts

    def node(s, name, nid, parent, tid, schema, ins, outs, rf=0):
        iv, it = ins if ins else ([], [])
        ov, ot = outs if outs else ([], [])
        shapes_i = [[] for _ in iv]
        shapes_o = [[] for _ in ov]
        if s.flat:
            n = {"name": name, "id": nid, "rf_id": rf, "parent": parent, "fw_parent": 0,
                 "seq_id": -1, "scope": 0, "tid": tid, "fw_tid": 0, "op_schema": schema,
                 "inputs": iv, "input_shapes": shapes_i, "input_types": it,
                 "outputs": ov, "output_shapes": shapes_o, "output_types": ot}
            return n
        attrs = [{"name": "rf_id", "type": "uint64", "value": rf},
                 {"name": "fw_parent", "type": "uint64", "value": 0},
                 {"name": "seq_id", "type": "int64", "value": -1},
                 {"name": "scope", "type": "uint64", "value": 0},
                 {"name": "tid", "type": "uint64", "value": tid},
                 {"name": "fw_tid", "type": "uint64", "value": F if tid == B else 0},
                 {"name": "op_schema", "type": "string", "value": schema}]
        if s.kind >= "1.0.4":
            attrs += [{"name": "kernel_backend", "type": "string", "value": ""},
                      {"name": "kernel_file", "type": "string", "value": ""}]
        if s.kind >= "1.0.3" and "all_reduce" in name:
            attrs += [{"name": "pg_name", "type": "string", "value": "0"}]
        if s.kind >= "1.1.0" and "all_reduce" in name:
            attrs += [{"name": "collective_name", "type": "string", "value": "allreduce"},
                      {"name": "in_msg_nelems", "type": "uint64", "value": 16}]
        n = {"id": nid, "name": name, "ctrl_deps": parent,
             "inputs": {"values": iv, "shapes": shapes_i, "types": it},
             "outputs": {"values": ov, "shapes": shapes_o, "types": ot},
             "attrs": attrs}
        if s.kind >= "1.1.1":
            n["inputs"]["strides"] = shapes_i
            n["outputs"]["strides"] = shapes_o
            n["attrs"].append({"name": "tensor_range", "type": "string", "value": "[]"})
        return n

    # --- a leaf op in one call -------------------------------------------
    def leaf(s, name, schema, ins, outs_spec, tid, kernel=True):
        """outs_spec: list of ('f', nbytes_numel) fresh or ('a', tensor)."""
        op = s.begin(name, tid)
        outs = []
        for kind, x in outs_spec:
            if kind == "f":
                st = s.alloc(x * 4, tid)
                outs.append(("f", {"st": st, "numel": x}))
            else:
                outs.append((kind, x))
        if name == "aten::mm":  # cuBLAS's workspace: in the history only
            s.hist.append(("alloc", 0x7E0000000000, 4 << 20))
            s.hist.append(("free", 0x7E0000000000, 4 << 20))
        s.end(op, schema, ins, outs, kernel=kernel)
        return [t for _, t in outs]


def step(s):
    W1 = {"st": s.alloc(64 * 64 * 4, F, True), "numel": 64 * 64}
    W2 = {"st": s.alloc(64 * 64 * 4, F, True), "numel": 64 * 64}
    none = ("s", ("<None>", "None"))
    x, = s.leaf("aten::empty", "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, "
                "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
                "MemoryFormat? memory_format=None) -> Tensor",
                [("s", ([32, 64], "GenericList[Int,Int]")), none, none,
                 ("s", ("cuda:0", "Device")), none, none], [("f", 32 * 64)], F, kernel=False)
    s.leaf("aten::normal_", "aten::normal_(Tensor(a!) self, float mean=0., float std=1., *, "
           "Generator? generator=None) -> Tensor(a!)",
           [("w", x), ("s", (0.0, "Double")), ("s", (1.0, "Double")), none], [("a", x)], F)
    # a composite: aten::linear's children are the leaves
    lin = s.begin("aten::linear", F)
    Wt, = s.leaf("aten::t", "aten::t(Tensor(a) self) -> Tensor(a)", [("v", W1)],
                 [("a", {"st": W1["st"], "numel": 64 * 64})], F, kernel=False)
    h, = s.leaf("aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor",
                [("r", x), ("r", Wt)], [("f", 32 * 64)], F)
    s.end(lin, "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
          [("r", x), ("r", W1), none], [("a", h)], leaf=False)
    s.leaf("aten::relu_", "aten::relu_(Tensor(a!) self) -> Tensor(a!)", [("w", h)], [("a", h)], F)
    hv = {"st": h["st"], "numel": 16 * 64, "off": 16 * 64}
    s.leaf("aten::view", "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
           [("v", h), ("s", ([16, 64], "GenericList[Int,Int]"))], [("a", hv)], F, kernel=False)
    y, = s.leaf("aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor",
                [("r", h), ("r", W2)], [("f", 32 * 64)], F)
    loss, = s.leaf("aten::sum", "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
                   [("r", y), none], [("f", 1)], F)
    # backward, on the autograd thread
    gy, = s.leaf("aten::ones_like", "aten::ones_like(Tensor self, *, ScalarType? dtype=None, "
                 "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
                 "MemoryFormat? memory_format=None) -> Tensor",
                 [("r", y), none, none, none, none, none], [("f", 32 * 64)], B)
    ev = s.begin("autograd::engine::evaluate_function: MmBackward0", B)
    mb = s.begin("MmBackward0", B)
    gh, = s.leaf("aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor",
                 [("r", gy), ("r", W2)], [("f", 32 * 64)], B)
    gW2, = s.leaf("aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor",
                  [("r", h), ("r", gy)], [("f", 64 * 64)], B)
    s.end(mb, "", [("u", gy)], [("u", gh), ("u", gW2)], leaf=False)
    s.end(ev, "", [("u", gy)], [], leaf=False)
    s.free(gy["st"], B)
    s.free(y["st"], B)
    # the freed block of gy is taken again: address-derived ids repeat
    gh2, = s.leaf("aten::threshold_backward", "aten::threshold_backward(Tensor grad_output, "
                  "Tensor self, Scalar threshold) -> Tensor",
                  [("r", gh), ("r", h), ("s", (0, "Int"))], [("f", 32 * 64)], B)
    s.free(gh["st"], B)
    gW1, = s.leaf("aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor",
                  [("r", x), ("r", gh2)], [("f", 64 * 64)], B)
    s.free(gh2["st"], B)
    s.free(x["st"], B)
    s.free(h["st"], B)
    s.free(loss["st"], B)
    # ops without a schema: unknown modes
    s.leaf("AccumulateGrad", "", [("u", gW1)], [], B, kernel=False)
    s.leaf("aten::detach", "", [("u", gW2)], [("u", gW2)], B, kernel=False)
    # optimizer: in-place lists, one cut at 4,096 (the observer keeps 4,097)
    s.leaf("aten::_foreach_add_", "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, "
           "Scalar alpha=1) -> ()", [("l", [("w", W1), ("w", W2)]), ("l", [("r", gW1), ("r", gW2)]),
                                    ("s", (-0.01, "Double"))], [], F)
    s.leaf("aten::_foreach_mul_", "aten::_foreach_mul_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
           [("l", [("w", W1 if i % 2 else W2) for i in range(4097)]), ("s", (0.99, "Double"))], [], F)
    # an out= variant writes without reading
    s.leaf("aten::add", "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, "
           "Tensor(a!) out) -> Tensor(a!)", [("r", gW1), ("r", gW2), ("s", (1, "Int")), ("w", W1)],
           [("a", W1)], F)
    s.free(gW1["st"], F)
    s.free(gW2["st"], F)


def big(s, n, f):
    """Writes about n nodes to f as they are made (bounded memory here too)."""
    W = {"st": s.alloc(4096, F, True), "numel": 1024}
    prev = W
    written = 0
    f.write('{"schema": "1.1.1-chakra.0.0.4", "pid": 7, "time": "x", "start_ts": 1, "nodes": [\n')
    while written < n:
        for node in s.nodes:
            f.write(json.dumps(node))
            f.write(",\n")
        written += len(s.nodes)
        s.nodes = []
        s.events = []
        s.pairs = []
        y, = s.leaf("aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor",
                    [("r", prev), ("r", W)], [("f", 1024)], F)
        s.leaf("aten::relu_", "aten::relu_(Tensor(a!) self) -> Tensor(a!)", [("w", y)], [("a", y)], F)
        if prev is not W:
            s.free(prev["st"], F)
        prev = y
    root = s.node("[pytorch|profiler|execution_trace|process]", 1, 1, 0, "", [], [])
    f.write(json.dumps(root) + '], "finish_ts": 2}\n')


def finish(s):
    s.nodes.append(s.node("[pytorch|profiler|execution_trace|process]", 1, 1, 0, "", [], []))
    schema = s.kind.rstrip("u")
    if s.kind >= "1.0.2" or s.major != "1":
        schema += "-chakra.0.0.4"
    return {"schema": schema, "pid": 7, "time": "2026-11-25 12:00:00",
            "start_ts": 1, "nodes": s.nodes, "finish_ts": 2}


def snapshot(s, path, variant):
    """The history around the step, as PyTorch records it; returns the
    window's figures (peak of bytes asked, buffers, hidden allocations)."""
    t = [1_760_000_000_000_000]

    def entry(action, addr, size):
        t[0] += 13
        return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t[0],
                "frames": [{"filename": "/home/ml/train.py", "line": 40, "name": "step"}]}

    def replay(h):
        out = []
        for action, addr, size in h:
            if action == "alloc":
                out.append(entry("alloc", addr, size))
            else:
                out.append(entry("free_requested", addr, size))
                out.append(entry("free_completed", addr, size))
        return out

    warm = []
    for i in range(12):  # a warm-up of sizes the step does not use
        warm += [("alloc", 0x7D0000000000 + i * 65536, 1000 + 24 * i),
                 ("free", 0x7D0000000000 + i * 65536, 1000 + 24 * i)]
    step = list(s.hist)
    if variant == "lost":  # the loss (the one 4-byte output) never seen
        lost = [e for e in step if e[0] == "alloc" and e[2] == 4][0][1]
        step = [e for e in step if not (e[1] == lost and e[2] == 4)]
    window = list(step)
    steps = [step] * (3 if variant == "steps3" else 1)
    hist = replay(warm)
    for st in steps:
        hist += replay(st)
    if variant == "cut":  # the ring buffer begins after the first allocation
        first = [i for i, e in enumerate(hist) if e["action"] == "alloc"
                 and e["addr"] == step[0][1]][0]
        hist = hist[first + 1:]
    nxt = [e for e in step if e[0] == "alloc"][:3]
    hist += replay([("alloc", 0x7C0000000000 + i * 65536, e[2]) for i, e in enumerate(nxt)])
    live = {}
    for e in hist:
        if e["action"] == "alloc":
            live[e["addr"]] = e["size"]
        elif e["action"] == "free_completed":
            live.pop(e["addr"], None)
    segs = [{"device": 0, "address": 0x7F0000000000, "total_size": s.heap - 0x7F0000000000,
             "allocated_size": 0, "active_size": 0, "requested_size": 0, "stream": 0,
             "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False,
             "frames": [],
             "blocks": [{"address": w["addr"], "size": w["bytes"], "requested_size": w["asked"],
                         "state": "active_allocated", "frames": []} for w in s.weights]}]
    with open(path, "wb") as f:
        pickle.dump({"segments": segs, "device_traces": [hist],
                     "allocator_settings": {"expandable_segments": False}}, f, protocol=4)
    cur = sum(w["asked"] for w in s.weights)
    peak, nbuf, hidden = cur, len(s.weights), 0
    for action, addr, size in window:
        if action == "alloc":
            cur += size
            nbuf += 1
            hidden += addr == 0x7E0000000000
        else:
            cur -= size
        peak = max(peak, cur)
    return peak, nbuf + (variant == "lost"), hidden


def main():
    kind, out = sys.argv[1], sys.argv[2]
    kin = None
    nbig = None
    noaddr = False
    snap = None
    variant = "plain"
    nsteps = 0
    a = sys.argv[3:]
    while a:
        if a[0] in ("--kineto", "--kineto-noaddr"):
            noaddr = a[0] == "--kineto-noaddr"
            kin = a[1]
            a = a[2:]
        elif a[0] == "--big":
            nbig = int(a[1])
            a = a[2:]
        elif a[0] == "--snapshot":
            snap = a[1]
            a = a[2:]
        elif a[0] == "--variant":
            variant = a[1]
            a = a[2:]
        elif a[0] == "--steps":
            nsteps = int(a[1])
            a = a[2:]
        else:
            sys.exit("make_et.py: unknown option " + a[0])
    s = Sim(kind)
    s.noaddr = noaddr
    if nbig:
        s.kind = "1.1.1"
        with open(out, "w") as f:
            big(s, nbig, f)
        return
    if nsteps:
        for k in range(nsteps):
            ps = s.begin("ProfilerStep#%d" % (k + 5), F)
            step(s)
            s.end(ps, "", [], [], leaf=False)
    else:
        step(s)
    doc = finish(s)
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    if kin:
        with open(kin, "w") as f:
            json.dump({"schemaVersion": 1, "deviceProperties": [], "traceEvents": s.events,
                       "traceName": kin}, f)
    # the figures, from the simulation
    gens = [g for g in s.gens if g[0] > 0]
    peak = 0
    nleaf = len(s.pairs)
    for i in range(nleaf):
        live = sum(g[0] for g in gens if g[3] or (g[1] is not None and g[1] <= i <= g[2]))
        peak = max(peak, live)
    known = sum(1 for p in s.pairs for v in p.values() if v)
    unknown = sum(1 for p in s.pairs for v in p.values() if not v)
    with open(out + ".expect", "w") as f:
        f.write("buffers %d\npersistent %d\naccesses_known %d\naccesses_unknown %d\n"
                "no_schema %d\ntruncated %d\npeak %d\npeak_kineto %d\nleaf_ops %d\n" % (
                    len(gens), sum(1 for g in gens if g[3]), known, unknown, s.no_schema,
                    s.truncated, peak, s.peak_alloc, nleaf))
        f.write("steps %d\nleaf_ops_per_step %d\n" % (nsteps, nleaf // max(nsteps, 1)))
        if snap:
            f.write("peak_snapshot %d\nbuffers_snapshot %d\nhidden %d\n" %
                    snapshot(s, snap, variant))


main()
