#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/import/make_nsys.py - writes SQLite files in the shape of Nsight
# Systems' `nsys export --type sqlite` (tables and columns from its
# documented export schema; standard library only), and beside them the
# figures memplan must find, computed here.
#
#   make_nsys.py KIND OUT.sqlite
#
# KIND: current (schema 3.x: enums with labels, textId, memory pools, two
# devices, pinned host memory, the CUDA runtime calls behind the memory
# events), old (schema 2.x: other enum ids, NVTX text, no pool columns),
# unknown (schema 9.0.0), nomem (no CUDA_GPU_MEMORY_USAGE_EVENTS),
# noversion (no META_DATA_EXPORT), badtype (text where an integer belongs),
# twoproc (current, and a second process on device 0), pinnedelsewhere
# (device 0, and pinned host memory only under device 1), threads (nested NVTX
# ranges on two threads of one process), trimmed (no ENUM tables and no
# memory table: a report recorded without --cuda-memory-usage), meta2022
# (current, its metadata table named EXPORT_META_DATA as Nsight Systems
# 2022.1 to 2023.2 name it), noenum (current without any ENUM_ table, as the
# oldest exports: the documented numbers), emptymem (the memory table there
# but empty: recorded without --cuda-memory-usage=true).
# A globalPid is pid << 24 and a globalTid pid << 24 | tid, as nsys writes
# them.  OUT.expect holds the figures of process 4242 on device 0, and a
# "label N TEXT" line per buffer label: the innermost NVTX range open on the
# allocating thread, and the runtime call, computed here.
import os
import sqlite3
import sys

OPER = ["CUDA_DEV_MEM_EVENT_OPR_ALLOCATION", "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION"]
KIND = ["PAGEABLE", "PINNED", "DEVICE", "ARRAY", "MANAGED", "DEVICE_STATIC",
        "MANAGED_STATIC", "UNKNOWN"]
COPY = ["UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH", "ATOA", "ATOD", "DTOA",
        "DTOD", "HTOH", "PTOP"]
NVTX = {33: "NvtxCategory", 34: "NvtxMark", 39: "NvtxThread",
        59: "NvtxPushPopRange", 60: "NvtxStartEndRange", 75: "NvtxDomainCreate"}


def build(path, kind):
    variant = kind
    if kind in ("meta2022", "noenum", "emptymem"):
        kind = "current"
    old = kind == "old"
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    x = db.execute
    x("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    if kind == "trimmed":
        x("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)")
        x("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1')")
        x("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER,"
          " eventType INTEGER NOT NULL, text TEXT, globalTid INTEGER)")
        db.commit()
        db.close()
        return
    if kind != "noversion":
        meta = "EXPORT_META_DATA" if variant == "meta2022" else "META_DATA_EXPORT"
        x("CREATE TABLE %s (name TEXT, value TEXT)" % meta)
        ver = {"old": "2.7.1", "unknown": "9.0.0"}.get(kind, "3.11.1")
        x("INSERT INTO %s VALUES ('EXPORT_SCHEMA_VERSION', ?)" % meta, (ver,))
        x("INSERT INTO %s VALUES ('EXPORT_PRODUCT_VERSION', '2024.4.1.61')" % meta)
    # enumerations: the old schema numbers them differently (ids shifted and
    # reversed), so only a join by name reads both
    def enum(table, names):
        if variant == "noenum":  # no table: the documented numbers
            return {name: n for n, name in names}
        if old:
            x("CREATE TABLE %s (id INTEGER PRIMARY KEY, name TEXT NOT NULL)" % table)
        else:
            x("CREATE TABLE %s (id INTEGER PRIMARY KEY, name TEXT NOT NULL, label TEXT)" % table)
        ids = {}
        for i, (n, name) in enumerate(names):
            nid = 100 - i if old else n
            ids[name] = nid
            if old:
                x("INSERT INTO %s VALUES (?, ?)" % table, (nid, name))
            else:
                x("INSERT INTO %s VALUES (?, ?, ?)" % table, (nid, name, name.title()))
        return ids
    oper = enum("ENUM_CUDA_DEV_MEM_EVENT_OPER", list(enumerate(OPER)))
    kinds = enum("ENUM_CUDA_MEM_KIND",
                 [(i, "CUDA_MEMOPR_MEMORY_KIND_" + k) for i, k in enumerate(KIND)])
    copies = enum("ENUM_CUDA_MEMCPY_OPER",
                  [(i, "CUDA_MEMCPY_KIND_" + k) for i, k in enumerate(COPY)])
    nvtx = enum("ENUM_NSYS_EVENT_TYPE", sorted(NVTX.items()))
    if kind != "nomem":
        pool = "" if old else (", correlationId INTEGER, localMemoryPoolAddress INTEGER,"
                               " localMemoryPoolReleaseThreshold INTEGER,"
                               " localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER,"
                               " importedMemoryPoolAddress INTEGER, importedMemoryPoolProcessId INTEGER")
        x("CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL,"
          + ("" if old else " globalPid INTEGER,")
          + " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL,"
          " pc INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER NOT NULL,"
          " memoryOperationType INTEGER NOT NULL, name TEXT" + pool + ")")
    x("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
      " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
      " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,"
      + ("" if old else " shortName INTEGER NOT NULL, mangledName INTEGER,")
      + " gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER,"
      " blockZ INTEGER, registersPerThread INTEGER)")
    x("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
      " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
      " correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,"
      " copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER)")
    x("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,"
      " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
      " correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,"
      " bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER)")
    if not old:
        x("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL,"
          " end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,"
          " correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,"
          " callchainId INTEGER)")
    x("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER,"
      " eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER,"
      " text TEXT, globalTid INTEGER, endGlobalTid INTEGER"
      + ("" if old else ", textId INTEGER, domainId INTEGER") + ")")

    strings = {}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            x("INSERT INTO StringIds VALUES (?, ?)", (strings[s], s))
        return strings[s]

    PID = 4242
    pid = PID << 24
    MAIN = pid | PID  # the main thread's globalTid
    live = {}
    cur = [0]
    peak = [0]
    host = [0, 0]  # pinned host bytes live, and their peak
    exp = {"allocs": 0, "frees": 0, "kernels": 0, "copies": 0, "memsets": 0,
           "marks": 0, "buffers": 0, "skipped": 0, "persistent": 0}
    allocs = []   # (t, globalTid or None, api) of the expected process
    ranges = []   # (start, end, globalTid, text)
    corr = [100]
    API = {("DEVICE", 0): "cudaMalloc_v3020", ("DEVICE", 1): "cudaFree_v3020",
           ("POOL", 0): "cudaMallocAsync_v11020", ("POOL", 1): "cudaFreeAsync_v11020",
           ("MANAGED", 0): "cudaMallocManaged_v6000", ("MANAGED", 1): "cudaFree_v3020",
           ("PINNED", 0): "cudaHostAlloc_v3020", ("PINNED", 1): "cudaFreeHost_v3020",
           ("PAGEABLE", 0): "cudaMemcpy_v3020", ("PAGEABLE", 1): "cudaMemcpy_v3020"}

    def mem(t, dev, addr, size, op, memkind="DEVICE", poolbase=None, proc=PID,
            tid=None, traced=True):
        k = kinds["CUDA_MEMOPR_MEMORY_KIND_" + memkind]
        o = oper[OPER[op]]
        if kind == "nomem":
            return
        gtid = (proc << 24) | (tid if tid is not None else proc)
        api = API[("POOL" if poolbase else memkind, op)]
        corr[0] += 1
        if old:
            x("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (?,?,1,?,0,?,?,?,NULL)",
              (t, dev, addr, size, k, o))
        else:
            x("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES"
              " (?,?,?,1,?,0,?,?,?,NULL,?,?,0,?,?,NULL,NULL)",
              (t, proc << 24, dev, addr, size, k, o, corr[0], poolbase,
               1 << 24 if poolbase else None, size if poolbase else None))
            if traced:
                # the call starts before the event and ends after it
                x("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,0,?,?,?,0,NULL)",
                  (t - 1, t + 1, gtid, corr[0], sid(api)))
        if dev != 0 or proc != PID:
            return
        if memkind in ("PAGEABLE", "DEVICE_STATIC"):
            exp["skipped"] += 1
            return
        if op == 0:
            exp["allocs"] += 1
            exp["buffers"] += 1
            allocs.append((t, gtid if traced and not old else None,
                           api if traced and not old else None))
        else:
            exp["frees"] += 1
        if memkind == "PINNED":
            host[0] += size if op == 0 else -size
            host[1] = max(host[1], host[0])
            return
        if op == 0:
            live[addr] = size
            cur[0] += size
        else:
            cur[0] -= size
            live.pop(addr, None)
        peak[0] = max(peak[0], cur[0])

    def kernel(t, d, dev, stream, name):
        if old:
            x("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,1,?,1,?,?,1,1,1,128,1,1,32)",
              (t, t + d, dev, stream, pid, sid(name)))
        else:
            x("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,1,?,1,?,?,?,NULL,1,1,1,128,1,1,32)",
              (t, t + d, dev, stream, pid, sid("void " + name + "<float>(float*)"), sid(name)))
        exp["kernels"] += dev == 0

    def nvtx_range(t, e, text, tid=MAIN, count=True):
        if old:
            x("INSERT INTO NVTX_EVENTS VALUES (?,?,?,NULL,NULL,NULL,?,?,?)",
              (t, e, nvtx["NvtxPushPopRange"], text, tid, tid))
        else:
            x("INSERT INTO NVTX_EVENTS VALUES (?,?,?,NULL,NULL,NULL,NULL,?,?,?,0)",
              (t, e, nvtx["NvtxPushPopRange"], tid, tid, sid(text)))
        if count:
            exp["marks"] += 2
            ranges.append((t, e, tid, text))

    # memory allocated before the recording: freed in the first iteration
    t = 1_000_000
    start_addr = 0x7F00_0000_0000
    exp["persistent"] += 1
    cur[0] += 1 << 20
    peak[0] = cur[0]
    x("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (?, NULL, ?, NULL, ?)",
      (t - 10, nvtx["NvtxDomainCreate"], MAIN))  # not a mark: filtered by its type
    if not old:
        x("INSERT INTO NVTX_EVENTS (start, end, eventType, textId, globalTid) VALUES (?, NULL, ?, ?, ?)",
          (t - 5, nvtx["NvtxMark"], sid("start"), MAIN))
        exp["marks"] += 1
    if kind in ("current", "twoproc", "threads"):
        # a staging buffer of pinned host memory, larger than the device's
        # own: host memory, never in the device peak
        mem(t - 3, 0, 0x7C00_0000_0000, 64 << 20, 0, "PINNED")
    mem(t + 1, 0, 0x7E00_0000_0000, 4096, 0, "PAGEABLE")
    addr = 0x7F10_0000_0000
    for it in range(3):
        t0 = t
        weights = []
        act = []
        for layer in range(3):
            a = addr + (it * 16 + layer) * (1 << 22)
            mem(t + 10, 0, a, (layer + 1) << 20, 0)
            act.append(((layer + 1) << 20, a))
            kernel(t + 20, 100, 0, 7, "gemm_layer%d" % layer)
            t += 150
        x("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,0,1,7,1,?,?,?,NULL,0,2)",
          (t, t + 40, pid, 1 << 20, copies["CUDA_MEMCPY_KIND_HTOD"]))
        exp["copies"] += 1
        x("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?,?,0,1,7,1,?,0,?,NULL,2)",
          (t + 50, t + 60, pid, 1 << 20))
        exp["memsets"] += 1
        p = addr + 0x1000_0000 + it * 65536
        mem(t + 70, 0, p, 65536, 0, "DEVICE", None if old else 0x7F20_0000_0000)
        t += 100
        if it == 0:
            mem(t, 0, start_addr, 1 << 20, 1)
        for size, a in reversed(act):
            mem(t + 5, 0, a, size, 1)
            t += 10
        mem(t + 1, 0, p, 65536, 1)
        t += 50
        nvtx_range(t0, t, "iteration")
    # managed memory kept to the end
    mem(t + 5, 0, addr + 0x2000_0000, 8192, 0, "MANAGED")
    exp["persistent"] += 1
    t += 10
    if kind in ("current", "twoproc", "threads"):
        mem(t, 0, 0x7C00_0000_0000, 64 << 20, 1, "PINNED")
        t += 10
    if kind == "threads":
        # nested ranges on the main thread; a loader thread allocates
        # while they are open; an allocation without its runtime call
        LOADER = pid | 77
        t0 = t
        mem(t + 10, 0, 0x7B00_0000_0000, 4096, 0)                 # in step
        # in step > forward > attn, while the loader's later range is open
        mem(t + 30, 0, 0x7B00_0001_0000, 8192, 0)
        mem(t + 40, 0, 0x7B00_0002_0000, 512, 0, tid=77)          # loader: in prefetch
        mem(t + 60, 0, 0x7B00_0003_0000, 1024, 0)                 # in step > forward (attn ended)
        mem(t + 70, 0, 0x7B00_0004_0000, 2048, 0, traced=False)   # no runtime row
        mem(t + 80, 0, 0x7B00_0005_0000, 256, 0, tid=77)          # loader: no range open
        nvtx_range(t + 28, t + 45, "prefetch", tid=LOADER)
        for a, n in ((0x7B00_0000_0000, 4096), (0x7B00_0001_0000, 8192),
                     (0x7B00_0002_0000, 512), (0x7B00_0003_0000, 1024),
                     (0x7B00_0004_0000, 2048), (0x7B00_0005_0000, 256)):
            mem(t + 90, 0, a, n, 1)
            t += 1
        nvtx_range(t0 + 5, t0 + 100, "step")
        nvtx_range(t0 + 20, t0 + 65, "forward")
        nvtx_range(t0 + 25, t0 + 50, "attn")
        nvtx_range(t0 + 60, t0 + 60, "empty")  # zero length, before the alloc at 60
        t = t0 + 110
    if kind == "pinnedelsewhere":
        # pinned host memory filed under another device id: not a device
        # to choose between
        mem(t, 1, 0x7C10_0000_0000, 1 << 20, 0, "PINNED")
        mem(t + 5, 1, 0x7C10_0000_0000, 1 << 20, 1, "PINNED")
        t += 10
    if kind == "twoproc":
        # another process on device 0 (a second job, or a launcher)
        mem(t, 0, 0x7A00_0000_0000, 1 << 20, 0, proc=5151)
        kernel_other = (t + 1, t + 5)
        x("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,9,1,?,?,?,NULL,1,1,1,128,1,1,32)",
          (kernel_other[0], kernel_other[1], 5151 << 24, sid("other_job"), sid("other_job")))
        x("INSERT INTO NVTX_EVENTS VALUES (?,?,?,NULL,NULL,NULL,NULL,?,?,?,0)",
          (t, t + 8, nvtx["NvtxPushPopRange"], (5151 << 24) | 5151, (5151 << 24) | 5151,
           sid("other")))
        mem(t + 9, 0, 0x7A00_0000_0000, 1 << 20, 1, proc=5151)
        t += 10
    if kind == "current":
        mem(t, 1, 0x7D00_0000_0000, 4096, 0)
        kernel(t + 1, 5, 1, 3, "other_device")
        mem(t + 10, 1, 0x7D00_0000_0000, 4096, 1)
    if kind == "badtype":
        x("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId,"
          " address, pc, bytes, memKind, memoryOperationType)"
          " VALUES (?, ?, 0, 1, 1, 0, 'many', ?, ?)",
          (t + 20, pid, kinds["CUDA_MEMOPR_MEMORY_KIND_DEVICE"], oper[OPER[0]]))
    if variant == "emptymem":
        x("DELETE FROM CUDA_GPU_MEMORY_USAGE_EVENTS")
    db.commit()
    db.close()
    exp["buffers"] += 1  # the one live at start
    exp["peak"] = peak[0]
    exp["host_peak"] = host[1]
    labels = {}
    for t, gtid, api in allocs:
        inner = None
        for r in ranges:  # the innermost: the latest to open, on the thread
            if r[0] <= t < r[1] and (gtid is None or r[2] == gtid):
                if inner is None or r[0] >= inner[0]:
                    inner = r
        call = api.rsplit("_v", 1)[0] if api else None
        if inner and call:
            lab = "%s (%s)" % (inner[3], call)
        else:
            lab = inner[3] if inner else call
        labels[lab] = labels.get(lab, 0) + 1
    with open(path + ".expect", "w") as f:
        for k, v in sorted(exp.items()):
            f.write("%s %d\n" % (k, v))
        for lab, n in sorted(labels.items(), key=lambda kv: str(kv[0])):
            f.write("label %d %s\n" % (n, lab if lab is not None else "(none)"))


build(sys.argv[2], sys.argv[1])
