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
# devices), old (schema 2.x: other enum ids, NVTX text, no pool columns),
# unknown (schema 9.0.0), nomem (no CUDA_GPU_MEMORY_USAGE_EVENTS),
# noversion (no META_DATA_EXPORT), badtype (text where an integer belongs).
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
    old = kind == "old"
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    x = db.execute
    x("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    if kind != "noversion":
        x("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)")
        ver = {"old": "2.7.1", "unknown": "9.0.0"}.get(kind, "3.11.1")
        x("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', ?)", (ver,))
        x("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2024.4.1.61')")
    # enumerations: the old schema numbers them differently (ids shifted and
    # reversed), so only a join by name reads both
    def enum(table, names):
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

    pid = 4242 << 24
    live = {}
    cur = [0]
    peak = [0]
    exp = {"allocs": 0, "frees": 0, "kernels": 0, "copies": 0, "memsets": 0,
           "marks": 0, "buffers": 0, "skipped": 0, "persistent": 0}

    def mem(t, dev, addr, size, op, memkind="DEVICE", poolbase=None):
        k = kinds["CUDA_MEMOPR_MEMORY_KIND_" + memkind]
        o = oper[OPER[op]]
        if kind == "nomem":
            return
        if old:
            x("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (?,?,1,?,0,?,?,?,NULL)",
              (t, dev, addr, size, k, o))
        else:
            x("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES"
              " (?,?,?,1,?,0,?,?,?,NULL,7,?,0,?,?,NULL,NULL)",
              (t, pid, dev, addr, size, k, o, poolbase, 1 << 24 if poolbase else None,
               size if poolbase else None))
        if dev != 0:
            return
        if memkind in ("PAGEABLE", "DEVICE_STATIC"):
            exp["skipped"] += 1
            return
        if op == 0:
            exp["allocs"] += 1
            exp["buffers"] += 1
            live[addr] = size
            cur[0] += size
        else:
            exp["frees"] += 1
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

    def nvtx_range(t, e, text):
        if old:
            x("INSERT INTO NVTX_EVENTS VALUES (?,?,?,NULL,NULL,NULL,?,1,1)",
              (t, e, nvtx["NvtxPushPopRange"], text))
        else:
            x("INSERT INTO NVTX_EVENTS VALUES (?,?,?,NULL,NULL,NULL,NULL,1,1,?,0)",
              (t, e, nvtx["NvtxPushPopRange"], sid(text)))
        exp["marks"] += 2

    # memory allocated before the recording: freed in the first iteration
    t = 1_000_000
    start_addr = 0x7F00_0000_0000
    exp["persistent"] += 1
    cur[0] += 1 << 20
    peak[0] = cur[0]
    x("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (?, NULL, ?, NULL, 1)",
      (t - 10, nvtx["NvtxDomainCreate"]))  # not a mark: filtered by its type
    if not old:
        x("INSERT INTO NVTX_EVENTS (start, end, eventType, textId, globalTid) VALUES (?, NULL, ?, ?, 1)",
          (t - 5, nvtx["NvtxMark"], sid("start")))
        exp["marks"] += 1
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
    if kind == "current":
        mem(t, 1, 0x7D00_0000_0000, 4096, 0)
        kernel(t + 1, 5, 1, 3, "other_device")
        mem(t + 10, 1, 0x7D00_0000_0000, 4096, 1)
    if kind == "badtype":
        x("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId,"
          " address, pc, bytes, memKind, memoryOperationType)"
          " VALUES (?, 1, 0, 1, 1, 0, 'many', ?, ?)",
          (t + 20, kinds["CUDA_MEMOPR_MEMORY_KIND_DEVICE"], oper[OPER[0]]))
    db.commit()
    db.close()
    exp["buffers"] += 1  # the one live at start
    exp["peak"] = peak[0]
    with open(path + ".expect", "w") as f:
        for k, v in sorted(exp.items()):
            f.write("%s %d\n" % (k, v))


build(sys.argv[2], sys.argv[1])
