/* SPDX-License-Identifier: MIT */
/*
 * import_snapshot.h - PyTorch memory snapshots (the pickle that
 * torch.cuda.memory._dump_snapshot writes and memory_viz reads) to a trace:
 * the allocation history of one device as buffers and events, the caching
 * allocator's segments as reserved memory in meta.
 */
#ifndef MEMPLAN_IMPORT_SNAPSHOT_H
#define MEMPLAN_IMPORT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* device for snapshot_parse(): the only device that has a history */
#define SNAPSHOT_ANY_DEVICE (-1)

/*
 * Reads the snapshot in data (len bytes, from the file called name) with
 * the strict unpickler and maps device_traces[device] to a new finished
 * trace: a buffer per allocation, alive from alloc to free_completed, with
 * the innermost user frame as its label; blocks still allocated at the end
 * that the history never saw as persistent buffers.  Errors are one sentence
 * naming the file and the entry and field, in err, with TRACE_EFORMAT (bad
 * or unsupported input), TRACE_EINVAL (device needed or absent: a command
 * line problem) or TRACE_ENOMEM; *out is untouched on failure.
 */
int snapshot_parse(const char *name, const uint8_t *data, size_t len,
		   int device, struct trace **out, char *err, size_t errlen);

/* Reads the file at path and parses it (TRACE_EIO if it cannot be read). */
int snapshot_import(const char *path, int device, struct trace **out,
		    char *err, size_t errlen);

#endif
