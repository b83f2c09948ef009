/* SPDX-License-Identifier: MIT */
/*
 * import_et.h - PyTorch execution traces (torch.profiler.
 * ExecutionTraceObserver, the JSON MLCommons Chakra reads) to a trace with
 * accesses: every leaf operator becomes a kernel event that reads and writes
 * the storages its schema says it does.  Joined, when given, with the
 * profiler's Chrome/Kineto trace of the same window for real allocations,
 * frees and GPU times; without it sizes and frees are inferred and the
 * trace's meta says so.
 */
#ifndef MEMPLAN_IMPORT_ET_H
#define MEMPLAN_IMPORT_ET_H

#include <stddef.h>
#include <stdint.h>

#include "json_read.h"
#include "trace.h"

/* device: a CUDA ordinal (0 to 1023), or one of these */
#define ET_ANY_DEVICE (-1) /* the only device the tensors are on: a CUDA
			      device, else the CPU (a trace of host memory) */
#define ET_HOST (-2)       /* the tensors on the CPU: a trace of host memory */

/*
 * Reads the execution trace from et (named et_name in messages) and, when
 * kin is not NULL, the profiler trace from kin (kin_name), or, when
 * snap_path is not NULL, the memory snapshot (torch.cuda.memory.
 * _dump_snapshot) of the same run at that path, and makes a new finished
 * trace of device's memory.  With a snapshot, the step is found in its
 * history by the order and sizes of the allocations (et_align.h); one
 * whose history holds fewer than half the step's outputs is refused.  Errors are one sentence naming the
 * file, the node (id and name) or event and the field: TRACE_EFORMAT for
 * bad or unsupported input, TRACE_EVERSION for an unknown major schema
 * version, TRACE_EINVAL when tensors are on several devices and none was
 * chosen, TRACE_ENOMEM.  *out is untouched on failure.
 */
int et_import_streams(const char *et_name, json_read_fn et, void *et_ctx,
		      const char *kin_name, json_read_fn kin, void *kin_ctx,
		      const char *snap_path, int device, struct trace **out,
		      char *err, size_t errlen);

/* The same from files: plain JSON, gzip, or a tar(.gz) (zinput.h: of
 * several ranks' files, the one of rank rank, else ZIN_ANY_RANK; the member
 * read is kept in meta et.archive_member, kineto.archive_member) (the
 * snapshot: a pickle, as for snapshot_import()). */
int et_import(const char *et_path, const char *kineto_path,
	      const char *snapshot_path, int device, long rank, struct trace **out,
	      char *err, size_t errlen);

#endif
