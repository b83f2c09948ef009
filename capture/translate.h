/* SPDX-License-Identifier: MIT */
/*
 * translate.h - CUPTI callback data and activity records -> recorder calls.
 * The injection library (inject.c) forwards every callback here; tests build
 * CUpti_CallbackData with the API's params struct themselves and call the
 * same functions.  Needs the CUPTI headers, so it is built only with CUDA.
 *
 * Runtime API calls are recorded in the runtime domain; the driver calls a
 * decoded runtime call makes inside itself are skipped (one event per API
 * call; their correlation ids become aliases for GPU times), but a runtime
 * launch whose kernel layout the backend cannot tell is completed by the
 * launch nested in it.  Driver calls inside runtime calls memplan does not
 * decode are recorded themselves.
 */
#ifndef MEMPLAN_CAPTURE_TRANSLATE_H
#define MEMPLAN_CAPTURE_TRANSLATE_H

#include <stdint.h>

#include <cupti.h>

#include "capture_backend.h"
#include "recorder.h"
#include "select.h"

struct translate;

/* A translator feeding r, selecting with *sel (copied), asking b.  NULL
 * when out of memory. */
struct translate *translate_new(struct recorder *r, const struct select *sel,
				const struct capture_backend *b);
/* Writes the selection's outcome into the trace's meta (capture.selection,
 * capture.occurrences, capture.found) and frees t; r stays open. */
void translate_free(struct translate *t);

/* A runtime or driver API callback (domain CUPTI_CB_DOMAIN_RUNTIME_API or
 * CUPTI_CB_DOMAIN_DRIVER_API). */
void translate_api(struct translate *t, CUpti_CallbackDomain domain,
		   CUpti_CallbackId cbid, const CUpti_CallbackData *cb);
/*
 * The callback ids of domain (runtime or driver API) that translate_api()
 * decodes: fills out[0..min(n, cap)) and returns n.  Enabling only these
 * keeps CUPTI out of every other call, and a runtime call that is not
 * enabled leaves the driver calls inside it to be recorded alone.
 */
size_t translate_callbacks(CUpti_CallbackDomain domain, CUpti_CallbackId *out,
			   size_t cap);
/* An NVTX callback (CUPTI_CB_DOMAIN_NVTX). */
void translate_nvtx(struct translate *t, CUpti_CallbackId cbid,
		    const CUpti_NvtxData *d);
/* One activity record (kernel, memcpy, memset, memory). */
void translate_activity(struct translate *t, const CUpti_Activity *a);
/* A mark from the marker API (marker.h: MEMPLAN_MARK_*). */
void translate_marker(struct translate *t, int what, const char *name);

/* Most contexts remembered (and synchronized at the end). */
#define TRANSLATE_MAX_CONTEXTS 16
/* The contexts seen in callbacks so far into out[0..cap); returns how many. */
size_t translate_contexts(struct translate *t, void **out, size_t cap);
/*
 * The end of a capture, off the callbacks: waits for the GPU on every
 * context seen (the backend's sync), then flushes the activity records
 * into translate_activity() (the backend's flush), so that no record is
 * flushed before its work finished.  Writes capture.dropped_records and
 * returns the records CUPTI dropped; *unsynced (if not NULL): contexts it
 * could not wait for.
 */
uint64_t translate_finish_gpu(struct translate *t, int *unsynced);

/* 0 before the selected range, 1 inside, 2 after it (always 1 for a whole
 * run until it ends). */
int translate_state(struct translate *t);

/* While > 0 on a thread, its callbacks are the capture's own CUDA calls
 * (backend, bandwidth measurement) and are ignored. */
void translate_self_enter(void);
void translate_self_leave(void);

#endif
