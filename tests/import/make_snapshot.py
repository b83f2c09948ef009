#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/import/make_snapshot.py - writes pickles in the shape of PyTorch's
# torch.cuda.memory._dump_snapshot() (standard library only), and beside a
# snapshot the figures memplan must find in it, computed here independently.
#
#   make_snapshot.py KIND OUT.pickle [--protocol N]
#
# KIND: train (two devices, streams, frames, a history that starts and ends
# mid-iteration, a free_requested without free_completed), nohistory,
# legacy (PyTorch < 2.1 per-block history), otherprog (a plain dict from
# another program), code (a pickle that imports a class), segmentsonly (a
# list, as torch.cuda.memory_snapshot() returns), periodic (a long run of
# identical iterations after a different first one, for slice), real
# (what recent PyTorch writes beyond the basics: C++ stacks on the autograd
# thread, Windows paths, <frozen> frames, line numbers of 2^64 - 1 as
# Python 3.13 writes them, an 'oom' entry with 'device_free' and no 'addr',
# an action this reader does not know), torch20 (PyTorch 2.0: a history per
# block, blocks without 'address', a one-device device_traces), wideaddr (an
# address of 2^64), widesize (a size of -2^70).
# Writes OUT.expect ("key value" lines) for train, periodic, real,
# forward, inference, emptycache, expandable, random and randomx.
import pickle
import sys
from collections import OrderedDict

TORCH = "/opt/conda/lib/python3.11/site-packages/torch"


def frames(user_file, line, func):
    # innermost first, as CapturedTraceback gives them: C++ frames, torch's
    # Python frames, then the user's code outwards
    return [
        {"filename": "??", "line": 0, "name": "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, CUstream_st*)"},
        {"filename": TORCH + "/nn/modules/module.py", "line": 1527, "name": "_call_impl"},
        {"filename": "/home/ml/" + user_file, "line": line, "name": func},
        {"filename": "/home/ml/train.py", "line": 88, "name": "main"},
        {"filename": "/home/ml/train.py", "line": 120, "name": "<module>"},
    ]


class Device:
    """A small caching allocator: 2 MiB segments, bump allocation, reuse of
    freed blocks of the same size (the same address comes back, as in a real
    run)."""

    def __init__(self, index, base):
        self.index = index
        self.next = base
        self.free = {}
        self.segments = []  # [address, size, stream]
        self.seg_left = 0
        self.history = []
        self.time = 1_700_000_000_000_000 + index * 1000

    def tick(self):
        self.time += 37
        return self.time

    def entry(self, action, addr, size, stream, fr):
        e = {"action": action, "addr": addr, "size": size, "stream": stream,
             "time_us": self.tick(), "frames": fr,
             "compile_context": "N/A", "user_metadata": ""}
        self.history.append(e)

    def alloc(self, size, stream, fr):
        size = (size + 511) // 512 * 512
        if self.free.get(size):
            addr = self.free[size].pop()
        else:
            if self.seg_left < size:
                seg = max(2 << 20, size)
                self.segments.append([self.next, seg, stream])
                self.entry("segment_alloc", self.next, seg, stream, fr)
                self.seg_left = seg
            addr = self.next
            self.next += size
            self.seg_left -= size
        self.entry("alloc", addr, size, stream, fr)
        return (addr, size, stream)

    def free_(self, buf, completed=True):
        addr, size, stream = buf
        self.entry("free_requested", addr, size, stream, [])
        if completed:
            self.entry("free_completed", addr, size, stream, [])
            self.free.setdefault(size, []).append(addr)


def iteration(dev, weights_grads, side, first):
    """One training step: input, activations on two streams, gradients kept
    (allocated in the first step only, as with zero_grad(set_to_none=False))."""
    inp = dev.alloc(3 * 4096, 0, frames("train.py", 61, "load_batch"))
    acts = []
    for layer in range(3):
        acts.append(dev.alloc(65536 * (layer + 1), 0,
                              frames("model.py", 20 + layer, "forward")))
        tmp = dev.alloc(1000 + layer, side, frames("model.py", 30, "attention"))
        dev.free_(tmp)
    loss = dev.alloc(512, 0, frames("train.py", 70, "loss_fn"))
    for layer in reversed(range(3)):
        g = dev.alloc(65536, 0, frames("model.py", 40 + layer, "backward"))
        dev.free_(g)
        dev.free_(acts[layer])
    if first:
        for i in range(4):
            weights_grads.append(dev.alloc(8192 * (i + 1), 0,
                                           frames("optim.py", 11, "step")))
    dev.free_(loss)
    dev.free_(inp)


def snapshot_of(devs, keep):
    segs = []
    for d in devs:
        for addr, size, stream in d.segments:
            segs.append({"device": d.index, "address": addr, "total_size": size,
                         "allocated_size": 0, "active_size": 0,
                         "requested_size": 0, "stream": stream,
                         "segment_type": "large" if size > (1 << 20) else "small",
                         "segment_pool_id": (0, 0), "is_expandable": False,
                         "frames": [], "blocks": []})
    return segs


def train(out, proto):
    d0 = Device(0, 0x7F0000000000)
    d1 = Device(1, 0x7E0000000000)
    # weights: allocated before recording starts, never in the history
    weights = []
    for i in range(3):
        weights.append((d0.next, 1 << 20, 0))
        d0.segments.append([d0.next, 1 << 20, 0])
        d0.next += 1 << 20
    grads = []
    for it in range(4):
        iteration(d0, grads, 7777, it == 0)
    # a fifth step cut short: a pending free (record_stream) and live blocks
    a = d0.alloc(3 * 4096, 0, frames("train.py", 61, "load_batch"))
    b = d0.alloc(65536, 0, frames("model.py", 20, "forward"))
    side = d0.alloc(4096, 7777, frames("model.py", 30, "attention"))
    d0.free_(side, completed=False)
    # device 1: a little history and an oom
    x = d1.alloc(1 << 16, 0, frames("eval.py", 5, "evaluate"))
    # an oom as PyTorch writes it: the free bytes where 'addr' would be
    d1.history.append({"action": "oom", "device_free": 1 << 30, "size": 80 << 30,
                       "stream": 0, "time_us": d1.tick(), "frames": []})
    d1.free_(x)

    # the ring buffer kept only the last entries: start mid-iteration 1
    full = d0.history
    cut = 0
    while full[cut]["action"] != "free_completed" or cut < 12:
        cut += 1
    hist = full[cut:]

    # the expected figures, by replaying the kept history
    live = {}
    start_live = {}
    seen = set()
    for e in hist:
        if e["action"] == "alloc":
            live[e["addr"]] = e["size"]
            seen.add(e["addr"])
        elif e["action"] in ("free_requested", "free_completed"):
            if e["addr"] not in live and e["addr"] not in seen:
                start_live[e["addr"]] = e["size"]
                live[e["addr"]] = e["size"]
                seen.add(e["addr"])
            if e["action"] == "free_completed":
                live.pop(e["addr"], None)
    end_live = dict(live)
    total = sum(w[1] for w in weights) + sum(start_live.values())
    peak = total
    nbuf = len(weights)
    allocs = frees = 0
    reserved_delta = reserved_hi = 0
    labels = {}
    cur = total
    for e in hist:
        if e["action"] == "alloc":
            cur += e["size"]
            peak = max(peak, cur)
            nbuf += 1
            allocs += 1
            fr = [f for f in e["frames"] if f["filename"].endswith(".py") and "/torch/" not in f["filename"]][0]
            lab = "%s:%d %s" % (fr["filename"].rsplit("/", 1)[-1], fr["line"], fr["name"])
            labels[lab] = labels.get(lab, 0) + 1
        elif e["action"] == "free_completed":
            cur -= e["size"]
            frees += 1
        elif e["action"] == "segment_alloc":
            reserved_delta += e["size"]
            reserved_hi = max(reserved_hi, reserved_delta)
    nbuf += len(start_live)
    reserved_end = sum(s[1] for s in d0.segments)

    segs = snapshot_of([d0, d1], None)
    # blocks at snapshot time: weights, live buffers, one inactive block
    for s in segs:
        if s["device"] != 0:
            continue
        for addr, size in [(w[0], w[1]) for w in weights] + list(end_live.items()):
            if s["address"] <= addr < s["address"] + s["total_size"]:
                s["blocks"].append({"address": addr, "size": size,
                                    "requested_size": size,
                                    "state": "active_allocated",
                                    "frames": frames("model.py", 9, "__init__")
                                    if addr in [w[0] for w in weights] else []})
        s["blocks"].append({"address": s["address"] + s["total_size"] - 512,
                            "size": 512, "requested_size": 0,
                            "state": "inactive", "frames": []})
    snap = {"segments": segs, "device_traces": [hist, d1.history],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "",
                                   "max_split_size": -1,
                                   "garbage_collection_threshold": 0.0,
                                   "expandable_segments": False,
                                   "roundup_power2_divisions": {"1": 0}}}
    with open(out, "wb") as f:
        pickle.dump(snap, f, protocol=proto)
    with open(out + ".expect", "w") as f:
        f.write("buffers %d\n" % nbuf)
        f.write("allocs %d\n" % allocs)
        f.write("frees %d\n" % frees)
        f.write("peak %d\n" % peak)
        # live at start ones are all freed in the window, so no overlap
        f.write("persistent %d\n" % (len(weights) + len(start_live) + len(end_live)))
        f.write("reserved_end %d\n" % reserved_end)
        f.write("reserved_peak %d\n" % (reserved_end - reserved_delta + reserved_hi))
        f.write("label_forward20 %d\n" % labels.get("model.py:20 forward", 0))
        f.write("label_attention %d\n" % labels.get("model.py:30 attention", 0))
        f.write("pending 1\n")
        f.write("events_device1 2\n")


def periodic(out, proto):
    """A warm-up step that differs, then identical steps, the last cut."""
    d = Device(0, 0x7F0000000000)
    grads = []
    for it in range(6):
        iteration(d, grads, 7777, it == 0)
    d.alloc(3 * 4096, 0, frames("train.py", 61, "load_batch"))
    snap = {"segments": snapshot_of([d], None), "device_traces": [d.history]}
    with open(out, "wb") as f:
        pickle.dump(snap, f, protocol=proto)
    # requests (allocs and frees) of one steady step
    steady = 1 + 3 * 3 + 1 + 3 * 3 + 2
    with open(out + ".expect", "w") as f:
        f.write("period %d\n" % steady)


def marker_devices(out, proto, histories):
    """A program on device 1 (and 2, when histories is 2): _snapshot() puts
    a 'snapshot' marker in every device's trace, so device 0's holds that
    marker alone."""
    devs = [Device(i, 0x7F0000000000 + (i << 36)) for i in range(1 + histories)]
    grads = []
    for d in devs[1:]:
        for it in range(2):
            iteration(d, grads, 0, it == 0)
    for d in devs:
        d.entry("snapshot", 0, 0, 0, [])
    snap = {"segments": snapshot_of(devs[1:], None),
            "device_traces": [d.history for d in devs]}
    with open(out, "wb") as f:
        pickle.dump(snap, f, protocol=proto)
    with open(out + ".expect", "w") as f:
        f.write("allocs %d\n" % sum(1 for e in devs[1].history if e["action"] == "alloc"))


# --- forward passes: layers are not iterations ------------------------------

def forward_pass(d, layers, seq=512, hidden=768, heads=12, vocab=50257):
    """One forward pass of a GPT-2-like model under torch.no_grad(), fp16,
    batch 1: every layer allocates the same sizes, frees what it allocates
    and hands its output (the hidden state) to the next."""
    sh = seq * hidden * 2
    fr = lambda line, fn: frames("gpt.py", line, fn)
    ids = d.alloc(seq * 8, 0, fr(10, "forward"))
    tok = d.alloc(sh, 0, fr(11, "forward"))
    pos = d.alloc(sh, 0, fr(12, "forward"))
    h = d.alloc(sh, 0, fr(13, "forward"))
    d.free_(tok)
    d.free_(pos)
    for _ in range(layers):
        ln1 = d.alloc(sh, 0, fr(30, "block"))
        qkv = d.alloc(3 * sh, 0, fr(31, "attn"))
        d.free_(ln1)
        scores = d.alloc(heads * seq * seq * 2, 0, fr(32, "attn"))
        probs = d.alloc(heads * seq * seq * 2, 0, fr(33, "attn"))
        d.free_(scores)
        ctx = d.alloc(sh, 0, fr(34, "attn"))
        d.free_(probs)
        d.free_(qkv)
        proj = d.alloc(sh, 0, fr(35, "attn"))
        d.free_(ctx)
        h2 = d.alloc(sh, 0, fr(36, "block"))
        d.free_(proj)
        d.free_(h)
        ln2 = d.alloc(sh, 0, fr(37, "block"))
        fc = d.alloc(4 * sh, 0, fr(38, "mlp"))
        d.free_(ln2)
        act = d.alloc(4 * sh, 0, fr(39, "mlp"))
        d.free_(fc)
        out = d.alloc(sh, 0, fr(40, "mlp"))
        d.free_(act)
        h = d.alloc(sh, 0, fr(41, "block"))
        d.free_(out)
        d.free_(h2)
    lnf = d.alloc(sh, 0, fr(50, "forward"))
    d.free_(h)
    logits = d.alloc(seq * vocab * 2, 0, fr(51, "forward"))
    d.free_(lnf)
    d.free_(ids)
    d.free_(logits)


def forward(out, proto, passes):
    """passes forward passes of a 24-layer model: one pass (forward), or
    several in a row (inference: each pass is an iteration), under the
    caching allocator's rules (Caching, below)."""
    d = Caching()
    before = len(d.history)
    for _ in range(passes):
        forward_pass(d, 24)
    snap = {"segments": d.segments(), "device_traces": [d.history]}
    with open(out, "wb") as f:
        pickle.dump(snap, f, protocol=proto)
    requests = sum(1 for e in d.history[before:]
                   if e["action"] in ("alloc", "free_completed"))
    with open(out + ".expect", "w") as f:
        f.write("layers 24\n")
        f.write("pass_requests %d\n" % (requests // passes))
        f.write("passes %d\n" % passes)


def forward_train(out, proto, layers=32, seq=512, hidden=1024, heads=16):
    """One forward pass of a 32-layer model with autograd on, and nothing
    else: each layer saves most of what it allocates for the backward that
    the snapshot does not hold, and every allocation comes from the one call
    site (the model's forward), so the layer's requests repeat 32 times,
    growing the live bytes; the layers are not iterations."""
    d = Caching()
    sh = seq * hidden * 2
    fr = frames("model.py", 20, "forward")
    d.alloc(seq * 8, 0, fr)
    d.alloc(sh, 0, fr)
    for _ in range(layers):
        for size in (sh, 3 * sh):
            d.alloc(size, 0, fr)
        scores = d.alloc(heads * seq * seq * 2, 0, fr)
        d.alloc(heads * seq * seq * 2, 0, fr)
        d.free(scores)
        for size in (sh, sh, sh, 4 * sh, 4 * sh, sh):
            d.alloc(size, 0, fr)
    d.alloc(sh, 0, fr)
    d.alloc(seq * 32000 * 2, 0, fr)
    snap = {"segments": d.segments(), "device_traces": [d.history]}
    with open(out, "wb") as f:
        pickle.dump(snap, f, protocol=proto)
    with open(out + ".expect", "w") as f:
        f.write("layers %d\n" % layers)


# --- the caching allocator's own rules: reserved memory ---------------------
# c10/cuda/CUDACachingAllocator.cpp, default settings: sizes round up to
# 512 bytes; up to 1 MiB from the small pool (2 MiB segments), larger from
# the large pool (20 MiB segments below 10 MiB, else the size rounded up to
# 2 MiB); best fit per pool and stream by (size, address); a block is split
# when 512 bytes or more remain (small pool) or more than 1 MiB (large
# pool); freed blocks merge with free neighbours; empty_cache(), and a
# cudaMalloc that fails (retried once after it), give back every segment
# that is wholly free.  With expandable_segments:True each pool and stream
# has one segment of address space, mapped in pages (2 MiB small, 20 MiB
# large) from its lowest unmapped range with room (with the free block just
# before it); every pool splits down to 512 bytes; best fit takes last a
# block that could grow into the unmapped range after it; empty_cache()
# unmaps the whole pages inside free blocks.

KMIN, KSMALL, KSMALLBUF = 512, 1 << 20, 2 << 20
KLARGEBUF, KMINLARGE, KROUND = 20 << 20, 10 << 20, 2 << 20
XSPACE = KLARGEBUF << 16


class Blk:
    def __init__(self, addr, size, pool, stream, seg=None, mapped=True):
        self.addr, self.size, self.pool, self.stream = addr, size, pool, stream
        self.seg, self.mapped = seg, mapped
        self.allocated = False
        self.prev = self.next = None
        self.req = 0


class Caching:
    def __init__(self, expandable=False, capacity=None):
        self.expandable = expandable
        self.capacity = capacity
        self.blocks = []
        self.xsegs = {}
        self.reserved = 0
        self.peak = 0
        self.retries = 0
        self.next_addr = 0x7F0000000000
        self.history = []
        self.time = 1_700_000_000_000_000

    def entry(self, action, addr, size, stream, fr=None):
        self.time += 41
        self.history.append({"action": action, "addr": addr, "size": size,
                             "stream": stream, "time_us": self.time,
                             "frames": fr or [], "compile_context": "N/A",
                             "user_metadata": ""})

    @staticmethod
    def pool_of(rounded):
        return "small" if rounded <= KSMALL else "large"

    def page(self, pool):
        return KSMALLBUF if pool == "small" else KLARGEBUF

    def new_block(self, *a, **k):
        b = Blk(*a, **k)
        self.blocks.append(b)
        return b

    def link_before(self, y, x):
        y.prev, y.next = x.prev, x
        if x.prev:
            x.prev.next = y
        x.prev = y

    def link_after(self, z, x):
        z.prev, z.next = x, x.next
        if x.next:
            x.next.prev = z
        x.next = z

    def join(self, x, n):
        """n, a neighbour of x, becomes part of x."""
        if x.prev is n:
            x.addr = n.addr
            x.prev = n.prev
            if n.prev:
                n.prev.next = x
        else:
            x.next = n.next
            if n.next:
                n.next.prev = x
        x.size += n.size
        self.blocks.remove(n)

    def free_ok(self, b):
        return b is not None and not b.allocated and b.mapped

    def best_fit(self, pool, stream, rounded):
        cands = sorted((b for b in self.blocks if self.free_ok(b) and b.pool == pool
                        and b.stream == stream and b.size >= rounded),
                       key=lambda b: (b.size, b.addr))
        if not cands:
            return None
        grow = lambda b: b.size + (b.next.size if b.next and not b.next.mapped else 0)
        i = 0
        while (cands[i].seg is not None and i + 1 < len(cands)
               and grow(cands[i + 1]) < grow(cands[i])):
            i += 1
        return cands[i]

    def note(self):
        self.peak = max(self.peak, self.reserved)

    def map_block(self, u, size, stream):
        m = min(-(-size // self.page(u.pool)) * self.page(u.pool), u.size)
        if m < u.size:
            y = self.new_block(u.addr, m, u.pool, u.stream, u.seg)
            self.link_before(y, u)
            u.addr += m
            u.size -= m
        else:
            y = u
            y.mapped = True
        self.reserved += m
        self.note()
        self.entry("segment_map", y.addr, m, stream)
        if self.free_ok(y.prev):
            self.join(y, y.prev)
        if self.free_ok(y.next):
            self.join(y, y.next)
        return y

    def expand(self, pool, stream, rounded):
        key = (pool, stream)
        if key not in self.xsegs:
            base = self.next_addr
            self.next_addr += XSPACE
            self.xsegs[key] = base
            self.new_block(base, XSPACE, pool, stream, seg=base, mapped=False)
        base = self.xsegs[key]
        unmapped = sorted((b for b in self.blocks if b.seg == base and not b.mapped),
                          key=lambda b: b.addr)
        for c in unmapped:
            start = c.prev if self.free_ok(c.prev) else c
            have, y = 0, start
            while y is not None and have < rounded and not y.allocated:
                have += y.size
                y = y.next
            if have >= rounded:
                break
        c = start
        if not c.mapped:
            c = self.map_block(c, min(c.size, rounded), stream)
        while c.size < rounded:
            n = c.next
            c = self.map_block(n, min(rounded - c.size, n.size), stream)
        return c

    def cuda_malloc(self, seg):
        return self.capacity is None or self.reserved + seg <= self.capacity

    def alloc(self, size, stream=0, fr=None):
        rounded = max(KMIN, -(-size // KMIN) * KMIN)
        pool = self.pool_of(rounded)
        b = self.best_fit(pool, stream, rounded)
        if b is None and self.expandable:
            b = self.expand(pool, stream, rounded)
        elif b is None:
            seg = (KSMALLBUF if pool == "small" else
                   KLARGEBUF if rounded < KMINLARGE else -(-rounded // KROUND) * KROUND)
            if not self.cuda_malloc(seg):
                self.retries += 1
                self.empty_cache()  # release_cached_blocks(), then retry
                if not self.cuda_malloc(seg):
                    raise SystemExit("make_snapshot.py: the workload does not fit")
            b = self.new_block(self.next_addr, seg, pool, stream)
            self.next_addr += -(-seg // KROUND) * KROUND
            self.reserved += seg
            self.note()
            self.entry("segment_alloc", b.addr, seg, stream)
        rest = b.size - rounded
        if (rest >= KMIN) if (pool == "small" or self.expandable) else (rest > KSMALL):
            r = self.new_block(b.addr + rounded, rest, pool, stream, b.seg)
            self.link_after(r, b)
            b.size = rounded
        b.allocated = True
        b.req = size
        self.entry("alloc", b.addr, size, stream, fr)
        return b

    def free(self, b):
        self.entry("free_requested", b.addr, b.req, b.stream)
        self.entry("free_completed", b.addr, b.req, b.stream)
        b.allocated = False
        if self.free_ok(b.prev):
            self.join(b, b.prev)
        if self.free_ok(b.next):
            self.join(b, b.next)

    free_ = free

    def empty_cache(self):
        for b in sorted((b for b in self.blocks if self.free_ok(b)),
                        key=lambda b: (b.pool, b.stream, b.size, b.addr)):
            if b.seg is None:
                if b.prev is None and b.next is None:
                    self.entry("segment_free", b.addr, b.size, b.stream)
                    self.reserved -= b.size
                    self.blocks.remove(b)
                continue
            pg = self.page(b.pool)
            rel = b.addr - b.seg
            lo, hi = -(-rel // pg) * pg, (rel + b.size) // pg * pg
            if hi <= lo:
                continue
            before, after = b.seg + lo - b.addr, rel + b.size - hi
            if before:
                y = self.new_block(b.addr, before, b.pool, b.stream, b.seg)
                self.link_before(y, b)
                b.addr += before
                b.size -= before
            if after:
                z = self.new_block(b.addr + b.size - after, after, b.pool, b.stream, b.seg)
                self.link_after(z, b)
                b.size -= after
            b.mapped = False
            self.reserved -= b.size
            self.entry("segment_unmap", b.addr, b.size, b.stream)
            if b.prev is not None and not b.prev.mapped:
                self.join(b, b.prev)
            if b.next is not None and not b.next.mapped:
                self.join(b, b.next)

    def segments(self):
        """The snapshot's segments: one per cudaMalloc'd segment, or per run
        of mapped memory of an expandable segment."""
        out = []
        for h in sorted(self.blocks, key=lambda b: b.addr):
            if not h.mapped or (h.prev is not None and h.prev.mapped):
                continue
            blocks, b = [], h
            while b is not None and b.mapped:
                blocks.append({"address": b.addr, "size": b.size,
                               "requested_size": b.req if b.allocated else 0,
                               "state": "active_allocated" if b.allocated else "inactive",
                               "frames": []})
                b = b.next
            total = sum(x["size"] for x in blocks)
            out.append({"device": 0, "address": h.addr, "total_size": total,
                        "allocated_size": sum(x["size"] for x in blocks
                                              if x["state"] != "inactive"),
                        "active_size": 0, "requested_size": 0, "stream": h.stream,
                        "segment_type": h.pool, "segment_pool_id": (0, 0),
                        "is_expandable": h.seg is not None, "frames": [],
                        "blocks": blocks})
        return out


def reserved_fixture(out, proto, expandable):
    """A training run whose shapes change: steps, an evaluation with larger
    shapes between two empty_cache() calls, and (fixed segments) a step that
    hits the device's capacity, so the allocator gives back its free
    segments and retries; or (expandable) steps whose sequence length
    grows, with one empty_cache() among them."""
    mib = 1 << 20
    c = Caching(expandable=expandable,
                capacity=None if expandable else 330 * mib)
    fr = lambda line, fn: frames("train.py", line, fn)
    weights = [c.alloc(s, 0, fr(5, "init")) for s in (8 * mib, 30 * mib, 700 * 1024)]

    def step(sizes, line):
        held = [c.alloc(s, 0, fr(line, "forward")) for s in sizes]
        tmp = c.alloc(3000, 0, fr(line + 1, "loss"))
        c.free(tmp)
        for b in reversed(held):
            c.free(b)

    if expandable:
        for seq in (128, 192, 256, 320, 384, 448, 512):
            k = seq * 1024 * 16
            step([k * 3, k * 5 + 4096, 300 * 1024, k * 2, k * 7], 20)
            if seq == 320:
                c.empty_cache()
    else:
        train = [12 * mib, 24 * mib + 4096, 36 * mib, 48 * mib, 300 * 1024, 5 * mib]
        for _ in range(3):
            step(train, 20)
        c.empty_cache()
        for _ in range(2):
            step([40 * mib, 80 * mib + 512, 120 * mib, 200 * 1024], 40)
        c.empty_cache()
        step(train, 20)
        for _ in range(2):  # larger shapes: cudaMalloc fails, cache released
            step([64 * mib, 66 * mib, 96 * mib, 3 * mib], 60)
    for w in weights:
        pass  # weights stay allocated
    snap = {"segments": c.segments(), "device_traces": [c.history],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF":
                                   "expandable_segments:True" if expandable else "",
                                   "max_split_size": -1,
                                   "garbage_collection_threshold": 0.0,
                                   "expandable_segments": expandable,
                                   "roundup_power2_divisions": {"1": 0}}}
    with open(out, "wb") as f:
        pickle.dump(snap, f, protocol=proto)
    with open(out + ".expect", "w") as f:
        f.write("reserved_peak %d\n" % c.peak)
        f.write("reserved_end %d\n" % c.reserved)
        f.write("retries %d\n" % c.retries)
        f.write("releases %d\n" % sum(1 for e in c.history
                                      if e["action"] in ("segment_free", "segment_unmap")))
        f.write("expandable %d\n" % int(expandable))


def random_fixture(out, proto, expandable, seed):
    """Random requests of every size class on two streams, frees in random
    order and now and then empty_cache(), under the caching allocator's
    rules: the allocator model must land on the same reserved peak."""
    import random
    rng = random.Random(seed)
    c = Caching(expandable=expandable)
    live = []
    for _ in range(400):
        r = rng.random()
        if r < 0.04:
            c.empty_cache()
        elif r < 0.5 and live:
            c.free(live.pop(rng.randrange(len(live))))
        else:
            cls = rng.random()
            size = (rng.randint(1, 1 << 20) if cls < 0.5 else
                    rng.randint(1 << 20, 10 << 20) if cls < 0.8 else
                    rng.randint(10 << 20, 90 << 20))
            live.append(c.alloc(size, rng.choice((0, 0, 0, 7777)),
                                frames("train.py", 9, "step")))
    snap = {"segments": c.segments(), "device_traces": [c.history],
            "allocator_settings": {"expandable_segments": expandable}}
    with open(out, "wb") as f:
        pickle.dump(snap, f, protocol=proto)
    with open(out + ".expect", "w") as f:
        f.write("reserved_peak %d\n" % c.peak)


# --- what recent PyTorch writes ------------------------------------------

NONE_LINE = 2 ** 64 - 1  # Python 3.13's "no line number", a 9-byte LONG1
WIN_TORCH = "D:\\Python311\\Lib\\site-packages\\torch"
WIN_USER = "D:\\Dev\\project"


def cpp(file, name):
    return {"filename": file, "line": 0, "name": name}


# the C++ frames _record_memory_history(stacks='all') adds, innermost first
CPP_TOP = [
    cpp("??", "torch::unwind::unwind()"),
    cpp("/pytorch/torch/csrc/profiler/combined_traceback.cpp",
        "torch::CapturedTraceback::gather(bool, bool, bool)"),
    cpp("/pytorch/torch/csrc/cuda/memory_snapshot.cpp", "gather_with_cpp()"),
    cpp("/pytorch/c10/cuda/CUDACachingAllocator.cpp",
        "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, CUstream_st*)"),
    cpp("/pytorch/aten/src/ATen/EmptyTensor.cpp", "at::detail::empty_strided_cuda(...)"),
    cpp("RegisterCUDA.cpp", "at::_ops::empty_strided::call(c10::ArrayRef<c10::SymInt>, ...)"),
]


def backward_frames(node, op):
    """The autograd engine's thread: C++ frames only."""
    return CPP_TOP + [
        cpp("/pytorch/aten/src/ATen/native/cuda/Blas.cpp", "at::native::" + op + "_out_cuda(...)"),
        cpp("Operators_2.cpp", "at::_ops::" + op + "::call(at::Tensor const&, at::Tensor const&)"),
        cpp("/pytorch/torch/csrc/autograd/generated/Functions.cpp",
            "torch::autograd::generated::" + node + "::apply(std::vector<at::Tensor>&&)"),
        cpp("/pytorch/torch/csrc/autograd/engine.cpp",
            "torch::autograd::Engine::evaluate_function(...)"),
        cpp("??", "start_thread"),
        cpp("??", "clone"),
    ]


def forward_frames(sep, user_dir, torch_dir, line, func):
    """Combined C++ and Python frames, on Windows or Unix paths."""
    return CPP_TOP + [
        cpp("Operators_0.cpp", "at::_ops::addmm::call(...)"),
        {"filename": torch_dir + sep + "nn" + sep + "modules" + sep + "linear.py",
         "line": 125, "name": "forward"},
        {"filename": torch_dir + sep + "_dynamo" + sep + "eval_frame.py",
         "line": NONE_LINE, "name": "_fn"},
        {"filename": user_dir + sep + "model.py", "line": line, "name": func},
        {"filename": user_dir + sep + "train.py", "line": NONE_LINE, "name": "main"},
        {"filename": "<frozen runpy>", "line": 88, "name": "_run_code"},
    ]


def torch_only_frames():
    """Python frames of PyTorch and Python only (a hook run by the optimizer)."""
    return [
        cpp("??", "c10::cuda::CUDACachingAllocator::malloc"),
        {"filename": TORCH + "/optim/adam.py", "line": 400, "name": "_multi_tensor_adam"},
        {"filename": "/opt/conda/lib/python3.11/threading.py", "line": 975, "name": "run"},
        {"filename": "<frozen importlib._bootstrap>", "line": 241, "name": "_call"},
    ]


def label_of(frames):
    """The rule memplan documents, written again here: the innermost frame
    of the user's code, else the innermost Python frame, else the operator
    named by the C++ frames."""
    def parts(f):
        return f["filename"].replace("\\", "/").split("/")

    def runtime(f):
        p = [c.lower() for c in parts(f)[:-1]]
        if f["filename"].startswith("<"):
            return not f["filename"].startswith("<ipython-input-")
        for i, c in enumerate(p):
            if c in ("torch", "functorch", "site-packages", "dist-packages"):
                return True
            if i and p[i - 1] == "lib" and c.startswith("python"):
                return True
            if i and p[i - 1].startswith("python") and c == "lib":
                return True
        return False

    def text(f):
        base = parts(f)[-1]
        if 0 <= f["line"] < 2 ** 63:
            return "%s:%d %s" % (base, f["line"], f["name"])
        return "%s %s" % (base, f["name"])

    py = [f for f in frames if f["filename"].endswith(".py") or f["filename"].startswith("<")]
    user = [f for f in py if not runtime(f)]
    if user:
        return text(user[0])
    if py:
        return text(py[0])
    op = node = None
    for f in frames:
        n = f["name"]
        if "at::_ops::" in n:
            op = n.split("at::_ops::")[1].split("::")[0]
        elif "torch::autograd::generated::" in n:
            node = n.split("torch::autograd::generated::")[1].split("::")[0]
            break
    return "%s aten::%s" % (node, op) if node else "aten::" + op


def real(out, proto):
    d = Device(0, 0x7F0000000000)
    win = forward_frames("\\", WIN_USER, WIN_TORCH, 42, "forward")
    unix = forward_frames("/", "/home/ml", TORCH, 17, "block")
    bwd = backward_frames("MmBackward0", "mm")
    opt = torch_only_frames()
    held = []
    for fr in (win, unix, win):
        held.append(d.alloc(1 << 20, 0, fr))
    for _ in range(3):
        g = d.alloc(1 << 21, 0, bwd)
        d.free_(g)
    held.append(d.alloc(4096, 0, opt))
    # a notebook: IPython's cell is the user's code
    held.append(d.alloc(8192, 0, [
        cpp("??", "c10::cuda::CUDACachingAllocator::malloc"),
        {"filename": TORCH + "/nn/functional.py", "line": 2100, "name": "relu"},
        {"filename": "<ipython-input-7-3f2a9c>", "line": 4, "name": "<module>"},
        {"filename": "/usr/lib/python3/dist-packages/IPython/core/interactiveshell.py",
         "line": 3577, "name": "run_code"}]))
    d.history.append({"action": "oom", "device_free": 123456789, "size": 80 << 30,
                      "stream": 0, "time_us": d.tick(), "frames": unix})
    d.history.append({"action": "workspace_snapshot", "addr": 0, "size": 0,
                      "stream": 0, "time_us": d.tick()})
    for b in held:
        d.free_(b)
    snap = {"segments": snapshot_of([d], None), "device_traces": [d.history]}
    with open(out, "wb") as f:
        pickle.dump(snap, f, protocol=proto)
    labels = {}
    for e in d.history:
        if e["action"] == "alloc":
            lab = label_of(e["frames"])
            labels[lab] = labels.get(lab, 0) + 1
    with open(out + ".expect", "w") as f:
        f.write("allocs %d\n" % sum(labels.values()))
        for lab, n in sorted(labels.items()):
            f.write("label %d %s\n" % (n, lab))
        f.write("stack_frames %d\n" % len(win))
        f.write("oom_bytes %d\n" % (80 << 30))
        f.write("oom_free %d\n" % 123456789)


def main():
    kind, out = sys.argv[1], sys.argv[2]
    proto = pickle.DEFAULT_PROTOCOL
    if "--protocol" in sys.argv:
        proto = int(sys.argv[sys.argv.index("--protocol") + 1])
    if kind == "train":
        train(out, proto)
    elif kind == "periodic":
        periodic(out, proto)
    elif kind == "real":
        real(out, proto)
    elif kind == "emptycache":
        reserved_fixture(out, proto, False)
    elif kind == "expandable":
        reserved_fixture(out, proto, True)
    elif kind in ("random", "randomx"):
        seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
        random_fixture(out, proto, kind == "randomx", seed)
    elif kind == "forward":
        forward(out, proto, 1)
    elif kind == "inference":
        forward(out, proto, 4)
    elif kind in ("marker0", "marker01"):
        marker_devices(out, proto, 1 if kind == "marker0" else 2)
    elif kind == "forward32":
        forward_train(out, proto)
    else:
        if kind == "nohistory":
            obj = {"segments": [{"device": 0, "address": 4096, "total_size": 2 << 20,
                                 "stream": 0, "blocks": []}],
                   "device_traces": [[], []]}
        elif kind == "legacy":
            obj = {"segments": [{"device": 0, "address": 4096, "total_size": 2 << 20,
                                 "stream": 0, "blocks": [
                                     {"size": 512, "state": "active_allocated",
                                      "history": [{"addr": 4096, "real_size": 500,
                                                   "frames": []}]}]}]}
        elif kind == "torch20":
            # PyTorch 2.0: blocks carry their own history and no address;
            # device_traces has one list per device, here one
            obj = {"segments": [{"device": 0, "address": 4096, "total_size": 2 << 20,
                                 "allocated_size": 512, "active_size": 512,
                                 "stream": 0, "segment_type": "large", "blocks": [
                                     {"size": 512, "state": "active_allocated",
                                      "history": [{"addr": 4096, "real_size": 500,
                                                   "frames": []}]},
                                     {"size": (2 << 20) - 512, "state": "inactive"}]}],
                   "device_traces": [[{"action": "alloc", "addr": 4096, "size": 512,
                                       "stream": 0, "frames": []}]]}
        elif kind in ("wideaddr", "widesize"):
            big = {"wideaddr": ("addr", 2 ** 64), "widesize": ("size", -2 ** 70)}[kind]
            e = {"action": "alloc", "addr": 4096, "size": 512, "stream": 0,
                 "time_us": 5, "frames": []}
            e[big[0]] = big[1]
            obj = {"segments": [], "device_traces": [[e]]}
        elif kind == "otherprog":
            obj = {"model": "resnet", "epoch": 3, "losses": [0.5, 0.25]}
        elif kind == "code":
            obj = OrderedDict([("segments", []), ("device_traces", [])])
        elif kind == "segmentsonly":
            obj = [{"device": 0, "address": 4096, "total_size": 2 << 20,
                    "blocks": []}]
        else:
            sys.exit("make_snapshot.py: unknown kind " + kind)
        with open(out, "wb") as f:
            pickle.dump(obj, f, protocol=proto)


main()
