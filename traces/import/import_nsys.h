/* SPDX-License-Identifier: MIT */
/*
 * import_nsys.h - Nsight Systems reports exported to SQLite (`nsys export
 * --type sqlite`) to a trace: CUDA memory usage events as buffers, kernel,
 * memcpy and memset activity and NVTX ranges as timed events of one device.
 */
#ifndef MEMPLAN_IMPORT_NSYS_H
#define MEMPLAN_IMPORT_NSYS_H

#include "trace.h"

struct sqlite3;

/* device: the only device with memory events */
#define NSYS_ANY_DEVICE (-1)

/* pid: the only process with memory events on the device */
#define NSYS_ANY_PID (-1)

/* Export schema majors this reader knows (EXPORT_SCHEMA_VERSION). */
#define NSYS_KNOWN_VERSIONS "2.x and 3.x"

/*
 * Reads the export at path into a new finished trace of one device.
 * Enumerations (ENUM_*) are joined by name, since their ids change between
 * versions.  Errors name the file, and the table, row and column where
 * there is one: TRACE_EFORMAT (not an export, an unknown schema version, no
 * memory events, a bad field), TRACE_EINVAL (--device needed or absent),
 * TRACE_EIO or TRACE_ENOMEM; *out is untouched on failure.
 */
int nsys_import(const char *path, int device, struct trace **out, char *err,
		size_t errlen);

/* The same on an open database (fuzzing reads one from memory); name is
 * used in messages only. */
int nsys_import_db(struct sqlite3 *db, const char *name, int device,
		   struct trace **out, char *err, size_t errlen);

/*
 * The same for one process (its pid, or NSYS_ANY_PID: the only one with
 * memory events on the device; TRACE_EINVAL listing them when there are
 * several).  nsys_import() and nsys_import_db() are these with NSYS_ANY_PID.
 */
int nsys_import_process(const char *path, int device, int64_t pid,
			struct trace **out, char *err, size_t errlen);
int nsys_import_db_process(struct sqlite3 *db, const char *name, int device,
			   int64_t pid, struct trace **out, char *err,
			   size_t errlen);

#endif
