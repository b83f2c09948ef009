/* SPDX-License-Identifier: MIT */
/*
 * translate.c - CUPTI callback data -> recorder calls (see translate.h).
 * Allocations are recorded at API exit (when the address exists and the
 * call succeeded), frees, launches, copies and memsets at entry (before the
 * address can be reused by another thread).  Kernel parameter layouts are
 * asked of the backend once per kernel handle and cached.
 */
#define _GNU_SOURCE
#include "translate.h"

#include "allocsource.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h> /* with the generated params structs */
#include <generated_nvtx_meta.h>

#include "trace.h"

/* Candidate words looked at per launch: 8 KiB of parameters. */
#define MAX_WORDS 1024

struct layout_slot {
	int kind;
	const void *handle;
	int known;     /* 0: the backend could not tell */
	uint32_t name; /* the kernel's interned name: no hashing per launch */
	struct argscan_layout l;
};

struct translate {
	struct recorder *r;
	const struct capture_backend *b;
	pthread_mutex_t sel_mu;
	struct select sel;
	pthread_rwlock_t cache_mu;
	struct layout_slot **cache; /* open addressing by handle */
	size_t ncache, used;
	_Atomic uint32_t next_tid;
	uint32_t n_profiler, n_marker;
	/* cross-stream order: CUDA events by handle, streams being captured */
	pthread_mutex_t order_mu;
	struct cuda_event *events;
	size_t nevents, capevents;
	size_t *eidx, neidx; /* open addressing by handle: index + 1, 0 empty */
	struct capturing *capt;
	size_t ncapt, capcapt;
	_Atomic size_t capturing; /* ncapt, read without the lock per launch */
	/* the contexts the program used: synchronized at the end */
	_Atomic(void *) ctxs[TRANSLATE_MAX_CONTEXTS];
};

/* A CUDA event handle: its number in the trace, and whether its last
 * record was made on a stream being captured (then a stream that waits for
 * it joins that capture, as CUDA's cross-stream capture does). */
struct cuda_event {
	const void *handle;
	uint64_t number;
	int64_t origin; /* capture origin stream of its last record, or -1 */
};

/* A stream being captured into a graph, and the stream whose capture it
 * belongs to (itself, or the origin it joined through an event). */
struct capturing {
	int64_t stream, origin;
};

static _Thread_local int tls_self;      /* our own CUDA calls */
static _Thread_local int tls_rt_depth;  /* decoded runtime calls in progress */
static _Thread_local int tls_launch;    /* runtime launch callbacks in progress */
/* The outermost decoded runtime call that puts work on the GPU (copy,
 * memset, launch): its correlation id, which the driver calls nested in it
 * alias, since memset and some kernel records carry the driver's id. */
static _Thread_local uint32_t tls_work_corr;
static _Thread_local uint32_t tls_tid;  /* small thread number for keys */
/* The outermost decoded runtime allocation call's correlation id, and the
 * first driver call's nested in it: CUPTI's memory record (time, source)
 * may carry either. */
static _Thread_local uint32_t tls_alloc_corr, tls_alloc_alias;
/* The entry point of the call being decoded, for recorder_alloc's via. */
static _Thread_local uint8_t tls_via;
static _Thread_local uint32_t tls_push; /* NVTX push depth */
#define PUSH_NAMES 64
static _Thread_local uint32_t tls_push_name[PUSH_NAMES];
/* A runtime launch whose layout is unknown, waiting for the driver launch
 * nested in it. */
struct pending_launch {
	int active;
	int stream_known; /* 0: take the nested launch's stream (no params) */
	uint32_t name;
	int64_t stream;
	uint32_t corr;
	unsigned aux;
};
static _Thread_local struct pending_launch tls_pending;

void translate_self_enter(void)
{
	tls_self++;
}

void translate_self_leave(void)
{
	tls_self--;
}

struct translate *translate_new(struct recorder *r, const struct select *sel,
				const struct capture_backend *b)
{
	struct translate *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->r = r;
	t->b = b;
	t->sel = *sel;
	t->ncache = 256;
	t->cache = calloc(t->ncache, sizeof(*t->cache));
	if (!t->cache) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->sel_mu, NULL);
	pthread_mutex_init(&t->order_mu, NULL);
	pthread_rwlock_init(&t->cache_mu, NULL);
	t->n_profiler = recorder_intern(r, "cudaProfilerStart");
	return t;
}

void translate_free(struct translate *t)
{
	char buf[SELECT_NAME_MAX + 64];
	select_describe(&t->sel, buf, sizeof(buf));
	recorder_meta(t->r, "capture.selection", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->sel.seen);
	recorder_meta(t->r, "capture.occurrences", buf);
	recorder_meta(t->r, "capture.found",
		      t->sel.all || t->sel.state != SELECT_WAITING ? "1" : "0");
	for (size_t i = 0; i < t->ncache; i++) {
		if (t->cache[i])
			free(t->cache[i]->l.params);
		free(t->cache[i]);
	}
	free(t->cache);
	free(t->events);
	free(t->eidx);
	free(t->capt);
	pthread_mutex_destroy(&t->order_mu);
	pthread_mutex_destroy(&t->sel_mu);
	pthread_rwlock_destroy(&t->cache_mu);
	free(t);
}

int translate_state(struct translate *t)
{
	return recorder_state(t->r);
}

/* --- kernel layouts ------------------------------------------------------ */

static size_t handle_hash(int kind, const void *h, size_t n)
{
	uint64_t x = (uint64_t)(uintptr_t)h * 0x9e3779b97f4a7c15ull + (uint64_t)kind;
	return (size_t)(x >> 20) & (n - 1);
}

static const struct layout_slot *find_slot(struct translate *t, int kind,
					   const void *h)
{
	size_t j = handle_hash(kind, h, t->ncache);
	while (t->cache[j]) {
		if (t->cache[j]->handle == h && t->cache[j]->kind == kind)
			return t->cache[j];
		j = (j + 1) & (t->ncache - 1);
	}
	return NULL;
}

static int insert_slot(struct translate *t, struct layout_slot *s)
{
	if ((t->used + 1) * 2 > t->ncache) {
		size_t n = t->ncache * 2;
		struct layout_slot **c = calloc(n, sizeof(*c));
		if (!c)
			return -1;
		for (size_t i = 0; i < t->ncache; i++) {
			if (!t->cache[i])
				continue;
			size_t j = handle_hash(t->cache[i]->kind, t->cache[i]->handle, n);
			while (c[j])
				j = (j + 1) & (n - 1);
			c[j] = t->cache[i];
		}
		free(t->cache);
		t->cache = c;
		t->ncache = n;
	}
	size_t j = handle_hash(s->kind, s->handle, t->ncache);
	while (t->cache[j])
		j = (j + 1) & (t->ncache - 1);
	t->cache[j] = s;
	t->used++;
	return 0;
}

/* The cached slot of a kernel handle (layout and name), asking the backend
 * the first time; NULL only when out of memory or h is NULL. */
static const struct layout_slot *slot_of(struct translate *t, int kind,
					 const void *h, const char *name)
{
	if (!h)
		return NULL;
	pthread_rwlock_rdlock(&t->cache_mu);
	const struct layout_slot *s = find_slot(t, kind, h);
	pthread_rwlock_unlock(&t->cache_mu);
	if (s)
		return s;
	struct argscan_param p[BACKEND_MAX_PARAMS];
	uint32_t n = 0;
	tls_self++; /* the backend's CUDA calls are not the program's */
	int known = t->b->params(kind, h, p, BACKEND_MAX_PARAMS, &n) == 0;
	tls_self--;
	struct layout_slot *ns = calloc(1, sizeof(*ns));
	if (!ns)
		return NULL;
	ns->kind = kind;
	ns->handle = h;
	ns->known = known;
	ns->name = recorder_intern(t->r, name);
	if (known && n) {
		ns->l.params = malloc(n * sizeof(*p));
		if (!ns->l.params) {
			free(ns);
			return NULL;
		}
		memcpy(ns->l.params, p, n * sizeof(*p));
		ns->l.nparams = n;
	}
	pthread_rwlock_wrlock(&t->cache_mu);
	const struct layout_slot *old = find_slot(t, kind, h);
	if (old || insert_slot(t, ns) != 0) { /* another thread was first */
		free(ns->l.params);
		free(ns);
		ns = (struct layout_slot *)old;
	}
	pthread_rwlock_unlock(&t->cache_mu);
	return ns;
}

static const struct argscan_layout *layout_of(const struct layout_slot *s)
{
	return s && s->known ? &s->l : NULL;
}

/* The kernel's name id: cached in its slot, else interned now. */
static uint32_t name_of(struct translate *t, const struct layout_slot *s,
			const char *name)
{
	return s && s->name ? s->name : recorder_intern(t->r, name);
}

/* --- recording helpers --------------------------------------------------- */

static int ok_exit(const CUpti_CallbackData *cb)
{
	return cb->callbackSite == CUPTI_API_EXIT && cb->functionReturnValue &&
	       *(const int *)cb->functionReturnValue == 0;
}

static uint64_t u64p(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void rec_alloc(struct translate *t, const CUpti_CallbackData *cb,
		      uint64_t addr, uint64_t size, unsigned kind, int64_t stream)
{
	if (!addr || !size)
		return;
	struct recorder_alloc a = { .addr = addr, .size = size, .stream = stream,
				    .corr = cb->correlationId,
				    .device = t->b->device(cb->context),
				    .kind = (uint8_t)kind, .via = tls_via,
				    .api = recorder_intern(t->r, cb->functionName) };
	if (tls_alloc_corr == cb->correlationId)
		a.alias = tls_alloc_alias;
	recorder_alloc(t->r, &a);
	if (a.alias && recorder_state(t->r) == 1)
		recorder_alias(t->r, cb->correlationId, a.alias);
}

/* The entry point an allocation call comes through, as memplan's runtime
 * sees it (recorder.h's via): only cudaMalloc, cudaMallocAsync (not its
 * per-thread-stream variant) and cuMemAlloc_v2 are interposed. */
static uint8_t via_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020)
			return ALLOCSOURCE_CUDA_MALLOC;
		if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020)
			return ALLOCSOURCE_CUDA_MALLOC_ASYNC;
	} else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2) {
		return ALLOCSOURCE_CU_MEM_ALLOC;
	}
	return RECORDER_NOT_INTERPOSED;
}

static int64_t sid(struct translate *t, const CUpti_CallbackData *cb,
		   const void *stream, int ptsz)
{
	return t->b->stream_id(cb->context, (void *)(uintptr_t)stream, ptsz);
}

/* Candidate words of one launch: kernelParams/args with a layout, or the
 * packed buffer of cuLaunchKernel's extra. */
static size_t launch_words(const struct argscan_layout *l, void **args,
			   void **extra, uint64_t *words, size_t *truncated)
{
	size_t n = 0;
	if (args && l) {
		n = argscan_params(l, args, words, MAX_WORDS);
	} else if (extra) {
		const void *buf = NULL;
		size_t len = 0;
		for (size_t i = 0; i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
			if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
				buf = extra[i + 1];
			else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
				len = *(const size_t *)extra[i + 1];
			else if (extra[i] != CU_LAUNCH_PARAM_BUFFER_POINTER &&
				 extra[i] != CU_LAUNCH_PARAM_BUFFER_SIZE)
				break; /* an option we do not know: stop reading */
		}
		n = argscan_buffer(l, buf, len, words, MAX_WORDS);
	}
	*truncated = n > MAX_WORDS ? n - MAX_WORDS : 0;
	return n > MAX_WORDS ? MAX_WORDS : n;
}

/* --- stream capture and CUDA events (under order_mu) ---------------------- */

/* The capture origin of stream s, or -1 when s is not being captured. */
static int64_t capture_origin(const struct translate *t, int64_t s)
{
	for (size_t i = 0; s >= 0 && i < t->ncapt; i++)
		if (t->capt[i].stream == s)
			return t->capt[i].origin;
	return -1;
}

static void capture_add(struct translate *t, int64_t s, int64_t origin)
{
	if (s < 0 || capture_origin(t, s) >= 0)
		return;
	if (t->ncapt == t->capcapt) {
		size_t n = t->capcapt ? t->capcapt * 2 : 8;
		struct capturing *c = realloc(t->capt, n * sizeof(*c));
		if (!c)
			return;
		t->capt = c;
		t->capcapt = n;
	}
	t->capt[t->ncapt++] = (struct capturing){ s, origin };
	atomic_store(&t->capturing, t->ncapt);
}

/* Ends the capture begun on origin: it and every stream that joined it. */
static void capture_remove(struct translate *t, int64_t origin)
{
	size_t k = 0;
	for (size_t i = 0; i < t->ncapt; i++)
		if (t->capt[i].origin != origin && t->capt[i].stream != origin)
			t->capt[k++] = t->capt[i];
	t->ncapt = k;
	atomic_store(&t->capturing, k);
}

static size_t event_hash(const void *h, size_t n)
{
	return (size_t)(((uint64_t)(uintptr_t)h * 0x9e3779b97f4a7c15ull) >> 24) & (n - 1);
}

/* The entry of a CUDA event handle, numbered 1, 2, ... on first sight;
 * NULL when out of memory.  Programs record many events (PyTorch: one per
 * cross-stream block use), hence the hash index. */
static struct cuda_event *event_of(struct translate *t, const void *h)
{
	if (t->neidx) {
		for (size_t j = event_hash(h, t->neidx); t->eidx[j]; j = (j + 1) & (t->neidx - 1))
			if (t->events[t->eidx[j] - 1].handle == h)
				return &t->events[t->eidx[j] - 1];
	}
	if ((t->nevents + 1) * 2 > t->neidx) {
		size_t n = t->neidx ? t->neidx * 2 : 64;
		size_t *x = calloc(n, sizeof(*x));
		if (!x)
			return NULL;
		for (size_t i = 0; i < t->nevents; i++) {
			size_t j = event_hash(t->events[i].handle, n);
			while (x[j])
				j = (j + 1) & (n - 1);
			x[j] = i + 1;
		}
		free(t->eidx);
		t->eidx = x;
		t->neidx = n;
	}
	if (t->nevents == t->capevents) {
		size_t n = t->capevents ? t->capevents * 2 : 16;
		struct cuda_event *e = realloc(t->events, n * sizeof(*e));
		if (!e)
			return NULL;
		t->events = e;
		t->capevents = n;
	}
	struct cuda_event *e = &t->events[t->nevents++];
	*e = (struct cuda_event){ h, t->nevents, -1 };
	size_t j = event_hash(h, t->neidx);
	while (t->eidx[j])
		j = (j + 1) & (t->neidx - 1);
	t->eidx[j] = t->nevents;
	return e;
}

/* TRACE_KERNEL_CAPTURED when stream s is being captured into a graph. */
static unsigned captured(struct translate *t, int64_t s)
{
	if (!atomic_load_explicit(&t->capturing, memory_order_acquire))
		return 0; /* the common case: no lock per launch */
	pthread_mutex_lock(&t->order_mu);
	int64_t o = capture_origin(t, s);
	pthread_mutex_unlock(&t->order_mu);
	return o >= 0 ? TRACE_KERNEL_CAPTURED : 0;
}

/* Stream capture state changes whether recording or not: a capture begun
 * before the iteration still holds inside it. */
static void capture_begin(struct translate *t, const CUpti_CallbackData *cb,
			  const void *stream, int ptsz)
{
	if (cb->callbackSite != CUPTI_API_ENTER)
		return;
	int64_t s = sid(t, cb, stream, ptsz);
	pthread_mutex_lock(&t->order_mu);
	capture_add(t, s, s);
	pthread_mutex_unlock(&t->order_mu);
}

static void capture_end(struct translate *t, const CUpti_CallbackData *cb,
			const void *stream, int ptsz)
{
	if (cb->callbackSite != CUPTI_API_EXIT)
		return; /* launches until the end are still captured */
	int64_t s = sid(t, cb, stream, ptsz);
	pthread_mutex_lock(&t->order_mu);
	capture_remove(t, s);
	pthread_mutex_unlock(&t->order_mu);
}

/* The stream records CUDA event ev (cudaEventRecord, cuEventRecord). */
static void event_record(struct translate *t, const CUpti_CallbackData *cb,
			 const void *ev, const void *stream, int ptsz)
{
	if (cb->callbackSite != CUPTI_API_ENTER || !ev)
		return;
	int64_t s = sid(t, cb, stream, ptsz);
	pthread_mutex_lock(&t->order_mu);
	struct cuda_event *e = event_of(t, ev);
	uint64_t num = e ? e->number : 0;
	if (e)
		e->origin = capture_origin(t, s);
	pthread_mutex_unlock(&t->order_mu);
	if (num && recorder_state(t->r) == 1)
		recorder_order(t->r, recorder_intern(t->r, cb->functionName), s,
			       TRACE_SYNC_RECORD, num);
}

/* The stream waits for CUDA event ev's last record (cudaStreamWaitEvent). */
static void event_wait(struct translate *t, const CUpti_CallbackData *cb,
		       const void *ev, const void *stream, int ptsz)
{
	if (cb->callbackSite != CUPTI_API_ENTER || !ev)
		return;
	int64_t s = sid(t, cb, stream, ptsz);
	pthread_mutex_lock(&t->order_mu);
	struct cuda_event *e = event_of(t, ev);
	uint64_t num = e ? e->number : 0;
	if (e && e->origin >= 0)
		capture_add(t, s, e->origin);
	pthread_mutex_unlock(&t->order_mu);
	if (num && recorder_state(t->r) == 1)
		recorder_order(t->r, recorder_intern(t->r, cb->functionName), s,
			       TRACE_SYNC_WAIT, num);
}

/* A graph launch: one event for all its work (GPU times span its records). */
static void graph_launch(struct translate *t, const CUpti_CallbackData *cb,
			 const void *stream, int ptsz)
{
	if (cb->callbackSite != CUPTI_API_ENTER || recorder_state(t->r) != 1)
		return;
	int64_t s = sid(t, cb, stream, ptsz);
	recorder_launch(t->r, recorder_intern(t->r, cb->functionName), s,
			cb->correlationId, TRACE_KERNEL_GRAPH | captured(t, s),
			NULL, 0, 0);
}

/* --- launches -------------------------------------------------------------- */

/* Records the pending runtime launch with the words its nested launch
 * found (and its stream s when the runtime call gave none; -1 unknown),
 * then the nested call's correlation id as its alias. */
static void complete_pending(struct translate *t, const uint64_t *words,
			     size_t n, size_t truncated, uint32_t alias, int64_t s)
{
	tls_pending.active = 0;
	if (!tls_pending.stream_known) {
		tls_pending.stream = s;
		tls_pending.aux = captured(t, s);
	}
	recorder_launch(t->r, tls_pending.name, tls_pending.stream, tls_pending.corr,
			tls_pending.aux, words, n, truncated);
	recorder_alias(t->r, tls_pending.corr, alias);
}

/*
 * A runtime launch of handle (a host stub or a cudaKernel_t).  Only the
 * outermost runtime launch is recorded (CUDA 13 may report <<<>>> as
 * __cudaLaunchKernel and cudaLaunchKernel, nested either way); a nested one
 * only completes an outer launch whose layout was unknown.
 */
static void rt_launch(struct translate *t, const CUpti_CallbackData *cb,
		      int kind, const void *handle, void **args,
		      const void *stream, int ptsz)
{
	if (cb->callbackSite != CUPTI_API_ENTER) {
		if (tls_launch == 1 && tls_pending.active) /* no nested launch came */
			complete_pending(t, NULL, 0, 0, 0, -1);
		return;
	}
	if (recorder_state(t->r) != 1)
		return;
	if (tls_launch > 1 && !tls_pending.active)
		return;
	const struct layout_slot *slot = slot_of(t, kind, handle, cb->symbolName);
	const struct argscan_layout *l = layout_of(slot);
	uint64_t words[MAX_WORDS];
	size_t truncated;
	if (tls_launch > 1) {
		if (l) {
			size_t n = launch_words(l, args, NULL, words, &truncated);
			complete_pending(t, words, n, truncated, cb->correlationId,
					 sid(t, cb, stream, ptsz));
		}
		return;
	}
	uint32_t name = name_of(t, slot, cb->symbolName);
	if (!cb->functionParams) { /* all the nested launch will tell */
		tls_pending = (struct pending_launch){ .active = 1, .name = name,
						       .corr = cb->correlationId,
						       .stream = -1 };
		return;
	}
	int64_t s = sid(t, cb, stream, ptsz);
	unsigned aux = captured(t, s);
	if (!l) {
		tls_pending.active = 1;
		tls_pending.stream_known = 1;
		tls_pending.name = name;
		tls_pending.stream = s;
		tls_pending.corr = cb->correlationId;
		tls_pending.aux = aux;
		return;
	}
	size_t n = launch_words(l, args, NULL, words, &truncated);
	recorder_launch(t->r, name, s, cb->correlationId, aux, words, n, truncated);
}

/* A driver launch of CUfunction f (which may be a CUkernel in disguise). */
static void drv_launch(struct translate *t, const CUpti_CallbackData *cb,
		       CUfunction f, void **params, void **extra,
		       CUstream stream, int ptsz)
{
	if (cb->callbackSite != CUPTI_API_ENTER || recorder_state(t->r) != 1)
		return;
	const struct layout_slot *slot = slot_of(t, BACKEND_FUNCTION, f, cb->symbolName);
	const struct argscan_layout *l = layout_of(slot);
	if (!l && f) { /* a CUkernel passed as a CUfunction */
		const struct layout_slot *ks = slot_of(t, BACKEND_KERNEL, f, cb->symbolName);
		if (layout_of(ks))
			slot = ks;
		l = layout_of(ks);
	}
	uint64_t words[MAX_WORDS];
	size_t truncated;
	size_t n = launch_words(l, params, extra, words, &truncated);
	int64_t s = sid(t, cb, stream, ptsz);
	if (tls_rt_depth > 0) { /* completing a runtime launch */
		if (tls_pending.active)
			complete_pending(t, words, n, truncated, cb->correlationId, s);
		return;
	}
	recorder_launch(t->r, name_of(t, slot, cb->symbolName), s,
			cb->correlationId, captured(t, s), words, n, truncated);
}

static unsigned rt_copy_kind(enum cudaMemcpyKind k)
{
	switch (k) {
	case cudaMemcpyHostToHost: return TRACE_COPY_H2H;
	case cudaMemcpyHostToDevice: return TRACE_COPY_H2D;
	case cudaMemcpyDeviceToHost: return TRACE_COPY_D2H;
	case cudaMemcpyDeviceToDevice: return TRACE_COPY_D2D;
	default: return TRACE_COPY_UNKNOWN; /* cudaMemcpyDefault: from the map */
	}
}

static void copy(struct translate *t, const CUpti_CallbackData *cb,
		 unsigned kind, uint64_t dst, uint64_t src, uint64_t bytes,
		 const void *stream, int ptsz)
{
	if (cb->callbackSite != CUPTI_API_ENTER || recorder_state(t->r) != 1)
		return;
	recorder_copy(t->r, recorder_intern(t->r, cb->functionName), kind, dst,
		      src, bytes, sid(t, cb, stream, ptsz), cb->correlationId);
}

/* An address in a 2D copy's description: its host or device pointer by
 * memory type (arrays have none). */
static uint64_t copy2d_addr(CUmemorytype type, const void *host, CUdeviceptr dev)
{
	return type == CU_MEMORYTYPE_HOST ? u64p(host)
	       : type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED ? dev
										 : 0;
}

static void copy2d(struct translate *t, const CUpti_CallbackData *cb,
		   const CUDA_MEMCPY2D *c, const void *stream, int ptsz)
{
	if (!c)
		return;
	copy(t, cb, TRACE_COPY_UNKNOWN,
	     copy2d_addr(c->dstMemoryType, c->dstHost, c->dstDevice),
	     copy2d_addr(c->srcMemoryType, c->srcHost, c->srcDevice),
	     (uint64_t)c->WidthInBytes * c->Height, stream, ptsz);
}

/* Most copies of one batch recorded (each its own event). */
#define MAX_BATCH 4096

static void copy_batch(struct translate *t, const CUpti_CallbackData *cb,
		       CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
		       size_t count, const void *stream, int ptsz)
{
	for (size_t i = 0; dsts && srcs && sizes && i < count && i < MAX_BATCH; i++)
		copy(t, cb, TRACE_COPY_UNKNOWN, dsts[i], srcs[i], sizes[i], stream, ptsz);
}

static void memset_(struct translate *t, const CUpti_CallbackData *cb,
		    uint64_t dst, uint64_t bytes, const void *stream, int ptsz)
{
	if (cb->callbackSite != CUPTI_API_ENTER || recorder_state(t->r) != 1)
		return;
	recorder_memset(t->r, recorder_intern(t->r, cb->functionName), dst, bytes,
			sid(t, cb, stream, ptsz), cb->correlationId);
}

static void sync_(struct translate *t, const CUpti_CallbackData *cb,
		  const void *stream, int ptsz, int has_stream)
{
	if (cb->callbackSite != CUPTI_API_ENTER || recorder_state(t->r) != 1)
		return;
	recorder_sync(t->r, recorder_intern(t->r, cb->functionName),
		      has_stream ? sid(t, cb, stream, ptsz) : TRACE_NONE);
}

static void range_begin(struct translate *t, const char *name, uint64_t key)
{
	uint32_t id = recorder_intern(t->r, name);
	pthread_mutex_lock(&t->sel_mu);
	if (select_begin(&t->sel, name, key) == SELECT_BEGIN)
		recorder_begin(t->r, id);
	else
		recorder_mark(t->r, id, TRACE_MARK_BEGIN);
	pthread_mutex_unlock(&t->sel_mu);
}

static void range_end(struct translate *t, uint32_t name, uint64_t key)
{
	pthread_mutex_lock(&t->sel_mu);
	if (select_end(&t->sel, key) == SELECT_END)
		recorder_end(t->r, name);
	else
		recorder_mark(t->r, name, TRACE_MARK_END);
	pthread_mutex_unlock(&t->sel_mu);
}

/* --- runtime API ------------------------------------------------------- */

#define RT(name) CUPTI_RUNTIME_TRACE_CBID_##name
#define P(type) ((const type *)cb->functionParams)
/* An out-parameter's value; CUDA fails a NULL one, but callback data is
 * not trusted further than the API's contract. */
#define DEREF(p) ((p) ? *(p) : 0)

static void runtime_api(struct translate *t, CUpti_CallbackId cbid,
			const CUpti_CallbackData *cb)
{
	int enter = cb->callbackSite == CUPTI_API_ENTER;
	int ptsz = 0;
	tls_via = via_of(CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
	/* CUDA 13.0's headers have no params struct for __cudaLaunchKernel
	 * (the <<<>>> path): CUPTI gives none, and the nested driver launch
	 * tells the rest */
	if (!cb->functionParams && (cbid == RT(__cudaLaunchKernel_v13000) ||
				    cbid == RT(__cudaLaunchKernel_ptsz_v13000))) {
		rt_launch(t, cb, BACKEND_KERNEL, NULL, NULL, NULL, 0);
		return;
	}
	/* CUPTI passes NULL params for internal calls: only the calls that
	 * take no arguments may go on without them */
	if (!cb->functionParams && cbid != RT(cudaDeviceSynchronize_v3020) &&
	    cbid != RT(cudaThreadSynchronize_v3020) &&
	    cbid != RT(cudaProfilerStart_v4000) && cbid != RT(cudaProfilerStop_v4000))
		return;
	switch (cbid) {
	case RT(cudaEventRecord_ptsz_v7000):
		ptsz = 1;
		/* fall through */
	case RT(cudaEventRecord_v3020): {
		const cudaEventRecord_v3020_params *p = P(cudaEventRecord_v3020_params);
		event_record(t, cb, p->event, p->stream, ptsz);
		return;
	}
	case RT(cudaEventRecordWithFlags_ptsz_v11010):
		ptsz = 1;
		/* fall through */
	case RT(cudaEventRecordWithFlags_v11010): {
		const cudaEventRecordWithFlags_v11010_params *p =
			P(cudaEventRecordWithFlags_v11010_params);
		event_record(t, cb, p->event, p->stream, ptsz);
		return;
	}
	case RT(cudaStreamWaitEvent_ptsz_v7000):
		ptsz = 1;
		/* fall through */
	case RT(cudaStreamWaitEvent_v3020): {
		const cudaStreamWaitEvent_v3020_params *p = P(cudaStreamWaitEvent_v3020_params);
		event_wait(t, cb, p->event, p->stream, ptsz);
		return;
	}
	case RT(cudaGraphLaunch_ptsz_v10000):
		ptsz = 1;
		/* fall through */
	case RT(cudaGraphLaunch_v10000):
		graph_launch(t, cb, P(cudaGraphLaunch_v10000_params)->stream, ptsz);
		return;
	case RT(cudaStreamBeginCapture_ptsz_v10000):
	case RT(cudaStreamBeginCaptureToGraph_ptsz_v12030):
		ptsz = 1;
		/* fall through */
	case RT(cudaStreamBeginCapture_v10000):
	case RT(cudaStreamBeginCaptureToGraph_v12030):
		/* the stream comes first in both params structs */
		capture_begin(t, cb, P(cudaStreamBeginCapture_v10000_params)->stream, ptsz);
		return;
	case RT(cudaStreamEndCapture_ptsz_v10000):
		ptsz = 1;
		/* fall through */
	case RT(cudaStreamEndCapture_v10000):
		capture_end(t, cb, P(cudaStreamEndCapture_v10000_params)->stream, ptsz);
		return;
	case RT(cudaMalloc_v3020):
		if (ok_exit(cb))
			rec_alloc(t, cb, u64p(DEREF(P(cudaMalloc_v3020_params)->devPtr)),
				  P(cudaMalloc_v3020_params)->size, TRACE_KIND_DEVICE, -1);
		return;
	case RT(cudaMallocPitch_v3020):
		if (ok_exit(cb)) {
			const cudaMallocPitch_v3020_params *p = P(cudaMallocPitch_v3020_params);
			rec_alloc(t, cb, u64p(DEREF(p->devPtr)), (uint64_t)DEREF(p->pitch) * p->height,
				  TRACE_KIND_DEVICE, -1);
		}
		return;
	case RT(cudaMallocManaged_v6000):
		if (ok_exit(cb))
			rec_alloc(t, cb, u64p(DEREF(P(cudaMallocManaged_v6000_params)->devPtr)),
				  P(cudaMallocManaged_v6000_params)->size,
				  TRACE_KIND_MANAGED, -1);
		return;
	case RT(cudaMallocHost_v3020):
		if (ok_exit(cb))
			rec_alloc(t, cb, u64p(DEREF(P(cudaMallocHost_v3020_params)->ptr)),
				  P(cudaMallocHost_v3020_params)->size, TRACE_KIND_HOST, -1);
		return;
	case RT(cudaHostAlloc_v3020):
		if (ok_exit(cb))
			rec_alloc(t, cb, u64p(DEREF(P(cudaHostAlloc_v3020_params)->pHost)),
				  P(cudaHostAlloc_v3020_params)->size, TRACE_KIND_HOST, -1);
		return;
	case RT(cudaMallocAsync_ptsz_v11020):
		ptsz = 1;
		/* fall through */
	case RT(cudaMallocAsync_v11020):
		if (ok_exit(cb)) {
			const cudaMallocAsync_v11020_params *p = P(cudaMallocAsync_v11020_params);
			rec_alloc(t, cb, u64p(DEREF(p->devPtr)), p->size, TRACE_KIND_ASYNC,
				  sid(t, cb, p->hStream, ptsz));
		}
		return;
	case RT(cudaMallocFromPoolAsync_ptsz_v11020):
		ptsz = 1;
		/* fall through */
	case RT(cudaMallocFromPoolAsync_v11020):
		if (ok_exit(cb)) {
			const cudaMallocFromPoolAsync_v11020_params *p =
				P(cudaMallocFromPoolAsync_v11020_params);
			rec_alloc(t, cb, u64p(DEREF(p->ptr)), p->size, TRACE_KIND_ASYNC,
				  sid(t, cb, p->stream, ptsz));
		}
		return;
	case RT(cudaFree_v3020):
		if (enter)
			recorder_free(t->r, u64p(P(cudaFree_v3020_params)->devPtr), -1,
				      cb->correlationId);
		return;
	case RT(cudaFreeHost_v3020):
		if (enter)
			recorder_free(t->r, u64p(P(cudaFreeHost_v3020_params)->ptr), -1,
				      cb->correlationId);
		return;
	case RT(cudaFreeAsync_ptsz_v11020):
		ptsz = 1;
		/* fall through */
	case RT(cudaFreeAsync_v11020):
		if (enter) {
			const cudaFreeAsync_v11020_params *p = P(cudaFreeAsync_v11020_params);
			recorder_free(t->r, u64p(p->devPtr), sid(t, cb, p->hStream, ptsz),
				      cb->correlationId);
		}
		return;
	case RT(cudaLaunchKernel_ptsz_v7000):
	case RT(cudaLaunchCooperativeKernel_ptsz_v9000):
		ptsz = 1;
		/* fall through */
	case RT(cudaLaunchKernel_v7000):
	case RT(cudaLaunchCooperativeKernel_v9000): {
		/* both params structs have this layout */
		const cudaLaunchKernel_v7000_params *p = P(cudaLaunchKernel_v7000_params);
		rt_launch(t, cb, BACKEND_RUNTIME_STUB, p->func, p->args, p->stream, ptsz);
		return;
	}
	case RT(__cudaLaunchKernel_ptsz_v13000):
		ptsz = 1;
		/* fall through */
	case RT(__cudaLaunchKernel_v13000): {
		/*
		 * CUDA 13's <<<>>> path: __cudaLaunchKernel(cudaKernel_t, dim3,
		 * dim3, void **, size_t, cudaStream_t).  Its params struct is not
		 * in generated_cuda_runtime_api_meta.h of CUDA 13.0; the
		 * arguments are cudaLaunchKernel's with a cudaKernel_t first.
		 */
		const cudaLaunchKernel_v7000_params *p = P(cudaLaunchKernel_v7000_params);
		rt_launch(t, cb, BACKEND_KERNEL, p->func, p->args, p->stream, ptsz);
		return;
	}
	case RT(cudaLaunchKernelExC_ptsz_v11060):
		ptsz = 1;
		/* fall through */
	case RT(cudaLaunchKernelExC_v11060): {
		const cudaLaunchKernelExC_v11060_params *p = P(cudaLaunchKernelExC_v11060_params);
		rt_launch(t, cb, BACKEND_RUNTIME_STUB, p->func, p->args,
			  p->config ? p->config->stream : NULL, ptsz);
		return;
	}
	case RT(cudaMemcpy_v3020):
	case RT(cudaMemcpy_ptds_v7000): {
		const cudaMemcpy_v3020_params *p = P(cudaMemcpy_v3020_params);
		copy(t, cb, rt_copy_kind(p->kind), u64p(p->dst), u64p(p->src), p->count,
		     NULL, cbid == RT(cudaMemcpy_ptds_v7000));
		return;
	}
	case RT(cudaMemcpyAsync_ptsz_v7000):
		ptsz = 1;
		/* fall through */
	case RT(cudaMemcpyAsync_v3020): {
		const cudaMemcpyAsync_v3020_params *p = P(cudaMemcpyAsync_v3020_params);
		copy(t, cb, rt_copy_kind(p->kind), u64p(p->dst), u64p(p->src), p->count,
		     p->stream, ptsz);
		return;
	}
	case RT(cudaMemcpy2D_v3020): {
		const cudaMemcpy2D_v3020_params *p = P(cudaMemcpy2D_v3020_params);
		copy(t, cb, rt_copy_kind(p->kind), u64p(p->dst), u64p(p->src),
		     (uint64_t)p->width * p->height, NULL, 0);
		return;
	}
	case RT(cudaMemset_v3020):
	case RT(cudaMemset_ptds_v7000): {
		const cudaMemset_v3020_params *p = P(cudaMemset_v3020_params);
		memset_(t, cb, u64p(p->devPtr), p->count, NULL,
			cbid == RT(cudaMemset_ptds_v7000));
		return;
	}
	case RT(cudaMemsetAsync_ptsz_v7000):
		ptsz = 1;
		/* fall through */
	case RT(cudaMemsetAsync_v3020): {
		const cudaMemsetAsync_v3020_params *p = P(cudaMemsetAsync_v3020_params);
		memset_(t, cb, u64p(p->devPtr), p->count, p->stream, ptsz);
		return;
	}
	case RT(cudaDeviceSynchronize_v3020):
	case RT(cudaThreadSynchronize_v3020):
	case RT(cudaEventSynchronize_v3020):
		sync_(t, cb, NULL, 0, 0);
		return;
	case RT(cudaStreamSynchronize_ptsz_v7000):
		ptsz = 1;
		/* fall through */
	case RT(cudaStreamSynchronize_v3020):
		sync_(t, cb, P(cudaStreamSynchronize_v3020_params)->stream, ptsz, 1);
		return;
	case RT(cudaProfilerStart_v4000):
		if (enter)
			range_begin(t, SELECT_PROFILER, SELECT_KEY_PROFILER);
		return;
	case RT(cudaProfilerStop_v4000):
		if (enter)
			range_end(t, recorder_intern(t->r, SELECT_PROFILER),
				  SELECT_KEY_PROFILER);
		return;
	default:
		return;
	}
}

/* --- driver API -------------------------------------------------------- */

#define DRV(name) CUPTI_DRIVER_TRACE_CBID_##name

static void driver_api(struct translate *t, CUpti_CallbackId cbid,
		       const CUpti_CallbackData *cb)
{
	int enter = cb->callbackSite == CUPTI_API_ENTER;
	int ptsz = 0;
	tls_via = via_of(CUPTI_CB_DOMAIN_DRIVER_API, cbid);
	if (!cb->functionParams && cbid != DRV(cuCtxSynchronize))
		return; /* an internal call: CUPTI gives no params */
	switch (cbid) {
	case DRV(cuEventRecord_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuEventRecord): {
		const cuEventRecord_params *p = P(cuEventRecord_params);
		event_record(t, cb, p->hEvent, p->hStream, ptsz);
		return;
	}
	case DRV(cuEventRecordWithFlags_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuEventRecordWithFlags): {
		const cuEventRecordWithFlags_params *p = P(cuEventRecordWithFlags_params);
		event_record(t, cb, p->hEvent, p->hStream, ptsz);
		return;
	}
	case DRV(cuStreamWaitEvent_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuStreamWaitEvent): {
		const cuStreamWaitEvent_params *p = P(cuStreamWaitEvent_params);
		event_wait(t, cb, p->hEvent, p->hStream, ptsz);
		return;
	}
	case DRV(cuGraphLaunch_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuGraphLaunch):
		graph_launch(t, cb, P(cuGraphLaunch_params)->hStream, ptsz);
		return;
	case DRV(cuStreamBeginCapture_ptsz):
	case DRV(cuStreamBeginCapture_v2_ptsz):
	case DRV(cuStreamBeginCaptureToGraph_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuStreamBeginCapture):
	case DRV(cuStreamBeginCapture_v2):
	case DRV(cuStreamBeginCaptureToGraph):
		/* hStream comes first in every variant's params */
		capture_begin(t, cb, P(cuStreamBeginCapture_params)->hStream, ptsz);
		return;
	case DRV(cuStreamEndCapture_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuStreamEndCapture):
		capture_end(t, cb, P(cuStreamEndCapture_params)->hStream, ptsz);
		return;
	case DRV(cuMemAlloc_v2):
		if (ok_exit(cb))
			rec_alloc(t, cb, DEREF(P(cuMemAlloc_v2_params)->dptr),
				  P(cuMemAlloc_v2_params)->bytesize, TRACE_KIND_DEVICE, -1);
		return;
	case DRV(cuMemAllocPitch_v2):
		if (ok_exit(cb)) {
			const cuMemAllocPitch_v2_params *p = P(cuMemAllocPitch_v2_params);
			rec_alloc(t, cb, DEREF(p->dptr), (uint64_t)DEREF(p->pPitch) * p->Height,
				  TRACE_KIND_DEVICE, -1);
		}
		return;
	case DRV(cuMemAllocManaged):
		if (ok_exit(cb))
			rec_alloc(t, cb, DEREF(P(cuMemAllocManaged_params)->dptr),
				  P(cuMemAllocManaged_params)->bytesize, TRACE_KIND_MANAGED, -1);
		return;
	case DRV(cuMemAllocHost_v2):
		if (ok_exit(cb))
			rec_alloc(t, cb, u64p(DEREF(P(cuMemAllocHost_v2_params)->pp)),
				  P(cuMemAllocHost_v2_params)->bytesize, TRACE_KIND_HOST, -1);
		return;
	case DRV(cuMemHostAlloc):
		if (ok_exit(cb))
			rec_alloc(t, cb, u64p(DEREF(P(cuMemHostAlloc_params)->pp)),
				  P(cuMemHostAlloc_params)->bytesize, TRACE_KIND_HOST, -1);
		return;
	case DRV(cuMemAllocAsync_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemAllocAsync):
		if (ok_exit(cb)) {
			const cuMemAllocAsync_params *p = P(cuMemAllocAsync_params);
			rec_alloc(t, cb, DEREF(p->dptr), p->bytesize, TRACE_KIND_ASYNC,
				  sid(t, cb, p->hStream, ptsz));
		}
		return;
	case DRV(cuMemAllocFromPoolAsync_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemAllocFromPoolAsync):
		if (ok_exit(cb)) {
			const cuMemAllocFromPoolAsync_params *p = P(cuMemAllocFromPoolAsync_params);
			rec_alloc(t, cb, DEREF(p->dptr), p->bytesize, TRACE_KIND_ASYNC,
				  sid(t, cb, p->hStream, ptsz));
		}
		return;
	case DRV(cuMemMap):
		/* virtual memory (PyTorch's expandable segments): a mapping is
		 * what kernels can touch, so it is the buffer */
		if (ok_exit(cb))
			rec_alloc(t, cb, P(cuMemMap_params)->ptr, P(cuMemMap_params)->size,
				  TRACE_KIND_VMM, -1);
		return;
	case DRV(cuMemUnmap):
		if (enter)
			recorder_unmap(t->r, P(cuMemUnmap_params)->ptr,
				       P(cuMemUnmap_params)->size, cb->correlationId);
		return;
	case DRV(cuMemFree_v2):
		if (enter)
			recorder_free(t->r, P(cuMemFree_v2_params)->dptr, -1, cb->correlationId);
		return;
	case DRV(cuMemFreeHost):
		if (enter)
			recorder_free(t->r, u64p(P(cuMemFreeHost_params)->p), -1,
				      cb->correlationId);
		return;
	case DRV(cuMemFreeAsync_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemFreeAsync):
		if (enter)
			recorder_free(t->r, P(cuMemFreeAsync_params)->dptr,
				      sid(t, cb, P(cuMemFreeAsync_params)->hStream, ptsz),
				      cb->correlationId);
		return;
	case DRV(cuLaunchKernel_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuLaunchKernel): {
		const cuLaunchKernel_params *p = P(cuLaunchKernel_params);
		drv_launch(t, cb, p->f, p->kernelParams, p->extra, p->hStream, ptsz);
		return;
	}
	case DRV(cuLaunchCooperativeKernel_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuLaunchCooperativeKernel): {
		const cuLaunchCooperativeKernel_params *p = P(cuLaunchCooperativeKernel_params);
		drv_launch(t, cb, p->f, p->kernelParams, NULL, p->hStream, ptsz);
		return;
	}
	case DRV(cuLaunchKernelEx_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuLaunchKernelEx): {
		const cuLaunchKernelEx_params *p = P(cuLaunchKernelEx_params);
		drv_launch(t, cb, p->f, p->kernelParams, p->extra,
			   p->config ? p->config->hStream : NULL, ptsz);
		return;
	}
	case DRV(cuMemcpyHtoD_v2):
	case DRV(cuMemcpyHtoD_v2_ptds): {
		const cuMemcpyHtoD_v2_params *p = P(cuMemcpyHtoD_v2_params);
		copy(t, cb, TRACE_COPY_H2D, p->dstDevice, u64p(p->srcHost), p->ByteCount,
		     NULL, cbid == DRV(cuMemcpyHtoD_v2_ptds));
		return;
	}
	case DRV(cuMemcpyDtoH_v2):
	case DRV(cuMemcpyDtoH_v2_ptds): {
		const cuMemcpyDtoH_v2_params *p = P(cuMemcpyDtoH_v2_params);
		copy(t, cb, TRACE_COPY_D2H, u64p(p->dstHost), p->srcDevice, p->ByteCount,
		     NULL, cbid == DRV(cuMemcpyDtoH_v2_ptds));
		return;
	}
	case DRV(cuMemcpyDtoD_v2):
	case DRV(cuMemcpyDtoD_v2_ptds): {
		const cuMemcpyDtoD_v2_params *p = P(cuMemcpyDtoD_v2_params);
		copy(t, cb, TRACE_COPY_D2D, p->dstDevice, p->srcDevice, p->ByteCount,
		     NULL, cbid == DRV(cuMemcpyDtoD_v2_ptds));
		return;
	}
	case DRV(cuMemcpy):
	case DRV(cuMemcpy_ptds): {
		const cuMemcpy_params *p = P(cuMemcpy_params);
		copy(t, cb, TRACE_COPY_UNKNOWN, p->dst, p->src, p->ByteCount, NULL,
		     cbid == DRV(cuMemcpy_ptds));
		return;
	}
	case DRV(cuMemcpyAsync_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemcpyAsync): {
		const cuMemcpyAsync_params *p = P(cuMemcpyAsync_params);
		copy(t, cb, TRACE_COPY_UNKNOWN, p->dst, p->src, p->ByteCount, p->hStream,
		     ptsz);
		return;
	}
	case DRV(cuMemcpyHtoDAsync_v2_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemcpyHtoDAsync_v2): {
		const cuMemcpyHtoDAsync_v2_params *p = P(cuMemcpyHtoDAsync_v2_params);
		copy(t, cb, TRACE_COPY_H2D, p->dstDevice, u64p(p->srcHost), p->ByteCount,
		     p->hStream, ptsz);
		return;
	}
	case DRV(cuMemcpyDtoHAsync_v2_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemcpyDtoHAsync_v2): {
		const cuMemcpyDtoHAsync_v2_params *p = P(cuMemcpyDtoHAsync_v2_params);
		copy(t, cb, TRACE_COPY_D2H, u64p(p->dstHost), p->srcDevice, p->ByteCount,
		     p->hStream, ptsz);
		return;
	}
	case DRV(cuMemcpyDtoDAsync_v2_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemcpyDtoDAsync_v2): {
		const cuMemcpyDtoDAsync_v2_params *p = P(cuMemcpyDtoDAsync_v2_params);
		copy(t, cb, TRACE_COPY_D2D, p->dstDevice, p->srcDevice, p->ByteCount,
		     p->hStream, ptsz);
		return;
	}
	case DRV(cuMemcpy2D_v2):
		copy2d(t, cb, P(cuMemcpy2D_v2_params)->pCopy, NULL, 0);
		return;
	case DRV(cuMemcpy2DAsync_v2_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemcpy2DAsync_v2):
		copy2d(t, cb, P(cuMemcpy2DAsync_v2_params)->pCopy,
		       P(cuMemcpy2DAsync_v2_params)->hStream, ptsz);
		return;
	case DRV(cuMemcpyPeerAsync_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemcpyPeerAsync): {
		const cuMemcpyPeerAsync_params *p = P(cuMemcpyPeerAsync_params);
		copy(t, cb, TRACE_COPY_UNKNOWN, p->dstDevice, p->srcDevice, p->ByteCount,
		     p->hStream, ptsz);
		return;
	}
	case DRV(cuMemcpyBatchAsync_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemcpyBatchAsync): {
		const cuMemcpyBatchAsync_params *p = P(cuMemcpyBatchAsync_params);
		copy_batch(t, cb, p->dsts, p->srcs, p->sizes, p->count, p->hStream, ptsz);
		return;
	}
	case DRV(cuMemcpyBatchAsync_v2_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemcpyBatchAsync_v2): {
		/* the _v2 params lack failIdx */
		const cuMemcpyBatchAsync_v2_params *p = P(cuMemcpyBatchAsync_v2_params);
		copy_batch(t, cb, p->dsts, p->srcs, p->sizes, p->count, p->hStream, ptsz);
		return;
	}
	case DRV(cuMemsetD8_v2):
	case DRV(cuMemsetD8_v2_ptds):
		memset_(t, cb, P(cuMemsetD8_v2_params)->dstDevice, P(cuMemsetD8_v2_params)->N,
			NULL, cbid == DRV(cuMemsetD8_v2_ptds));
		return;
	case DRV(cuMemsetD16_v2):
	case DRV(cuMemsetD16_v2_ptds):
		memset_(t, cb, P(cuMemsetD16_v2_params)->dstDevice,
			2 * (uint64_t)P(cuMemsetD16_v2_params)->N, NULL,
			cbid == DRV(cuMemsetD16_v2_ptds));
		return;
	case DRV(cuMemsetD32_v2):
	case DRV(cuMemsetD32_v2_ptds):
		memset_(t, cb, P(cuMemsetD32_v2_params)->dstDevice,
			4 * (uint64_t)P(cuMemsetD32_v2_params)->N, NULL,
			cbid == DRV(cuMemsetD32_v2_ptds));
		return;
	case DRV(cuMemsetD8Async_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemsetD8Async):
		memset_(t, cb, P(cuMemsetD8Async_params)->dstDevice,
			P(cuMemsetD8Async_params)->N, P(cuMemsetD8Async_params)->hStream, ptsz);
		return;
	case DRV(cuMemsetD16Async_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemsetD16Async):
		memset_(t, cb, P(cuMemsetD16Async_params)->dstDevice,
			2 * (uint64_t)P(cuMemsetD16Async_params)->N,
			P(cuMemsetD16Async_params)->hStream, ptsz);
		return;
	case DRV(cuMemsetD32Async_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuMemsetD32Async):
		memset_(t, cb, P(cuMemsetD32Async_params)->dstDevice,
			4 * (uint64_t)P(cuMemsetD32Async_params)->N,
			P(cuMemsetD32Async_params)->hStream, ptsz);
		return;
	case DRV(cuCtxSynchronize):
		sync_(t, cb, NULL, 0, 0);
		return;
	case DRV(cuStreamSynchronize_ptsz):
		ptsz = 1;
		/* fall through */
	case DRV(cuStreamSynchronize):
		sync_(t, cb, P(cuStreamSynchronize_params)->hStream, ptsz, 1);
		return;
	default:
		return;
	}
}

/* --- the callbacks decoded ---------------------------------------------- */

enum { CB_DECODED = 1, CB_WORK = 2, CB_LAUNCH = 4, CB_ALLOC = 8 };

struct cb_entry {
	CUpti_CallbackId id;
	uint8_t flags; /* CB_WORK: puts work on the GPU; CB_LAUNCH: a launch */
};

/* Every id runtime_api() and driver_api() decode, and nothing else: the
 * injection library enables exactly these (translate_callbacks). */
static const struct cb_entry rt_ids[] = {
	{ RT(cudaEventRecord_ptsz_v7000), 0 },
	{ RT(cudaEventRecord_v3020), 0 },
	{ RT(cudaEventRecordWithFlags_ptsz_v11010), 0 },
	{ RT(cudaEventRecordWithFlags_v11010), 0 },
	{ RT(cudaStreamWaitEvent_ptsz_v7000), 0 },
	{ RT(cudaStreamWaitEvent_v3020), 0 },
	{ RT(cudaGraphLaunch_ptsz_v10000), CB_WORK },
	{ RT(cudaGraphLaunch_v10000), CB_WORK },
	{ RT(cudaStreamBeginCapture_ptsz_v10000), 0 },
	{ RT(cudaStreamBeginCaptureToGraph_ptsz_v12030), 0 },
	{ RT(cudaStreamBeginCapture_v10000), 0 },
	{ RT(cudaStreamBeginCaptureToGraph_v12030), 0 },
	{ RT(cudaStreamEndCapture_ptsz_v10000), 0 },
	{ RT(cudaStreamEndCapture_v10000), 0 },
	{ RT(cudaMalloc_v3020), CB_ALLOC },
	{ RT(cudaMallocPitch_v3020), CB_ALLOC },
	{ RT(cudaMallocManaged_v6000), CB_ALLOC },
	{ RT(cudaMallocHost_v3020), CB_ALLOC },
	{ RT(cudaHostAlloc_v3020), CB_ALLOC },
	{ RT(cudaMallocAsync_ptsz_v11020), CB_ALLOC },
	{ RT(cudaMallocAsync_v11020), CB_ALLOC },
	{ RT(cudaMallocFromPoolAsync_ptsz_v11020), CB_ALLOC },
	{ RT(cudaMallocFromPoolAsync_v11020), CB_ALLOC },
	{ RT(cudaFree_v3020), 0 },
	{ RT(cudaFreeHost_v3020), 0 },
	{ RT(cudaFreeAsync_ptsz_v11020), 0 },
	{ RT(cudaFreeAsync_v11020), 0 },
	{ RT(cudaLaunchKernel_ptsz_v7000), CB_LAUNCH | CB_WORK },
	{ RT(cudaLaunchCooperativeKernel_ptsz_v9000), CB_LAUNCH | CB_WORK },
	{ RT(cudaLaunchKernel_v7000), CB_LAUNCH | CB_WORK },
	{ RT(cudaLaunchCooperativeKernel_v9000), CB_LAUNCH | CB_WORK },
	{ RT(__cudaLaunchKernel_ptsz_v13000), CB_LAUNCH | CB_WORK },
	{ RT(__cudaLaunchKernel_v13000), CB_LAUNCH | CB_WORK },
	{ RT(cudaLaunchKernelExC_ptsz_v11060), CB_LAUNCH | CB_WORK },
	{ RT(cudaLaunchKernelExC_v11060), CB_LAUNCH | CB_WORK },
	{ RT(cudaMemcpy_v3020), CB_WORK },
	{ RT(cudaMemcpy_ptds_v7000), CB_WORK },
	{ RT(cudaMemcpyAsync_ptsz_v7000), CB_WORK },
	{ RT(cudaMemcpyAsync_v3020), CB_WORK },
	{ RT(cudaMemcpy2D_v3020), CB_WORK },
	{ RT(cudaMemset_v3020), CB_WORK },
	{ RT(cudaMemset_ptds_v7000), CB_WORK },
	{ RT(cudaMemsetAsync_ptsz_v7000), CB_WORK },
	{ RT(cudaMemsetAsync_v3020), CB_WORK },
	{ RT(cudaDeviceSynchronize_v3020), 0 },
	{ RT(cudaThreadSynchronize_v3020), 0 },
	{ RT(cudaEventSynchronize_v3020), 0 },
	{ RT(cudaStreamSynchronize_ptsz_v7000), 0 },
	{ RT(cudaStreamSynchronize_v3020), 0 },
	{ RT(cudaProfilerStart_v4000), 0 },
	{ RT(cudaProfilerStop_v4000), 0 },
};

static const struct cb_entry drv_ids[] = {
	{ DRV(cuEventRecord_ptsz), 0 },
	{ DRV(cuEventRecord), 0 },
	{ DRV(cuEventRecordWithFlags_ptsz), 0 },
	{ DRV(cuEventRecordWithFlags), 0 },
	{ DRV(cuStreamWaitEvent_ptsz), 0 },
	{ DRV(cuStreamWaitEvent), 0 },
	{ DRV(cuGraphLaunch_ptsz), CB_WORK },
	{ DRV(cuGraphLaunch), CB_WORK },
	{ DRV(cuStreamBeginCapture_ptsz), 0 },
	{ DRV(cuStreamBeginCapture_v2_ptsz), 0 },
	{ DRV(cuStreamBeginCaptureToGraph_ptsz), 0 },
	{ DRV(cuStreamBeginCapture), 0 },
	{ DRV(cuStreamBeginCapture_v2), 0 },
	{ DRV(cuStreamBeginCaptureToGraph), 0 },
	{ DRV(cuStreamEndCapture_ptsz), 0 },
	{ DRV(cuStreamEndCapture), 0 },
	{ DRV(cuMemAlloc_v2), 0 },
	{ DRV(cuMemAllocPitch_v2), 0 },
	{ DRV(cuMemAllocManaged), 0 },
	{ DRV(cuMemAllocHost_v2), 0 },
	{ DRV(cuMemHostAlloc), 0 },
	{ DRV(cuMemAllocAsync_ptsz), 0 },
	{ DRV(cuMemAllocAsync), 0 },
	{ DRV(cuMemAllocFromPoolAsync_ptsz), 0 },
	{ DRV(cuMemAllocFromPoolAsync), 0 },
	{ DRV(cuMemMap), 0 },
	{ DRV(cuMemUnmap), 0 },
	{ DRV(cuMemFree_v2), 0 },
	{ DRV(cuMemFreeHost), 0 },
	{ DRV(cuMemFreeAsync_ptsz), 0 },
	{ DRV(cuMemFreeAsync), 0 },
	{ DRV(cuLaunchKernel_ptsz), CB_LAUNCH | CB_WORK },
	{ DRV(cuLaunchKernel), CB_LAUNCH | CB_WORK },
	{ DRV(cuLaunchCooperativeKernel_ptsz), CB_LAUNCH | CB_WORK },
	{ DRV(cuLaunchCooperativeKernel), CB_LAUNCH | CB_WORK },
	{ DRV(cuLaunchKernelEx_ptsz), CB_LAUNCH | CB_WORK },
	{ DRV(cuLaunchKernelEx), CB_LAUNCH | CB_WORK },
	{ DRV(cuMemcpyHtoD_v2), CB_WORK },
	{ DRV(cuMemcpyHtoD_v2_ptds), CB_WORK },
	{ DRV(cuMemcpyDtoH_v2), CB_WORK },
	{ DRV(cuMemcpyDtoH_v2_ptds), CB_WORK },
	{ DRV(cuMemcpyDtoD_v2), CB_WORK },
	{ DRV(cuMemcpyDtoD_v2_ptds), CB_WORK },
	{ DRV(cuMemcpy), CB_WORK },
	{ DRV(cuMemcpy_ptds), CB_WORK },
	{ DRV(cuMemcpyAsync_ptsz), CB_WORK },
	{ DRV(cuMemcpyAsync), CB_WORK },
	{ DRV(cuMemcpyHtoDAsync_v2), CB_WORK },
	{ DRV(cuMemcpyDtoHAsync_v2), CB_WORK },
	{ DRV(cuMemcpyDtoDAsync_v2), CB_WORK },
	{ DRV(cuMemcpyHtoDAsync_v2_ptsz), CB_WORK },
	{ DRV(cuMemcpyDtoHAsync_v2_ptsz), CB_WORK },
	{ DRV(cuMemcpyDtoDAsync_v2_ptsz), CB_WORK },
	{ DRV(cuMemcpy2D_v2), CB_WORK },
	{ DRV(cuMemcpy2DAsync_v2), CB_WORK },
	{ DRV(cuMemcpy2DAsync_v2_ptsz), CB_WORK },
	{ DRV(cuMemcpyPeerAsync), CB_WORK },
	{ DRV(cuMemcpyPeerAsync_ptsz), CB_WORK },
	{ DRV(cuMemcpyBatchAsync), CB_WORK },
	{ DRV(cuMemcpyBatchAsync_ptsz), CB_WORK },
	{ DRV(cuMemcpyBatchAsync_v2), CB_WORK },
	{ DRV(cuMemcpyBatchAsync_v2_ptsz), CB_WORK },
	{ DRV(cuMemsetD8_v2), CB_WORK },
	{ DRV(cuMemsetD8_v2_ptds), CB_WORK },
	{ DRV(cuMemsetD16_v2), CB_WORK },
	{ DRV(cuMemsetD16_v2_ptds), CB_WORK },
	{ DRV(cuMemsetD32_v2), CB_WORK },
	{ DRV(cuMemsetD32_v2_ptds), CB_WORK },
	{ DRV(cuMemsetD8Async_ptsz), CB_WORK },
	{ DRV(cuMemsetD8Async), CB_WORK },
	{ DRV(cuMemsetD16Async_ptsz), CB_WORK },
	{ DRV(cuMemsetD16Async), CB_WORK },
	{ DRV(cuMemsetD32Async_ptsz), CB_WORK },
	{ DRV(cuMemsetD32Async), CB_WORK },
	{ DRV(cuCtxSynchronize), 0 },
	{ DRV(cuStreamSynchronize_ptsz), 0 },
	{ DRV(cuStreamSynchronize), 0 },
};

static uint8_t rt_flags[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static uint8_t drv_flags[CUPTI_DRIVER_TRACE_CBID_SIZE];
static pthread_once_t flags_once = PTHREAD_ONCE_INIT;

static void flags_init(void)
{
	for (size_t i = 0; i < sizeof(rt_ids) / sizeof(*rt_ids); i++)
		rt_flags[rt_ids[i].id] = CB_DECODED | rt_ids[i].flags;
	for (size_t i = 0; i < sizeof(drv_ids) / sizeof(*drv_ids); i++)
		drv_flags[drv_ids[i].id] = CB_DECODED | drv_ids[i].flags;
}

static unsigned cb_flags(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	pthread_once(&flags_once, flags_init);
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		return cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE ? rt_flags[cbid] : 0;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
		return cbid < CUPTI_DRIVER_TRACE_CBID_SIZE ? drv_flags[cbid] : 0;
	return 0;
}

size_t translate_callbacks(CUpti_CallbackDomain domain, CUpti_CallbackId *out,
			   size_t cap)
{
	const struct cb_entry *e = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? rt_ids
				   : domain == CUPTI_CB_DOMAIN_DRIVER_API ? drv_ids : NULL;
	size_t n = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? sizeof(rt_ids) / sizeof(*rt_ids)
		   : domain == CUPTI_CB_DOMAIN_DRIVER_API ? sizeof(drv_ids) / sizeof(*drv_ids)
							  : 0;
	for (size_t i = 0; i < n && i < cap; i++)
		out[i] = e[i].id;
	return n;
}

/*
 * Runtime calls memplan does not decode are not followed at all (and not
 * enabled by the library): the driver calls inside them are recorded as
 * if the program made them.  Inside a decoded runtime call, the driver
 * calls it makes are the same operation: only their correlation ids are
 * kept (as aliases), and a launch completes a pending runtime launch.
 */
/* Remembers ctx among the contexts seen (lock-free: one compare-and-swap
 * the first time, loads after). */
static void note_context(struct translate *t, void *ctx)
{
	for (size_t i = 0; ctx && i < TRANSLATE_MAX_CONTEXTS; i++) {
		void *cur = atomic_load_explicit(&t->ctxs[i], memory_order_relaxed);
		if (cur == ctx)
			return;
		if (!cur && atomic_compare_exchange_strong(&t->ctxs[i], &cur, ctx))
			return;
		if (cur == ctx)
			return;
	}
}

size_t translate_contexts(struct translate *t, void **out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < TRANSLATE_MAX_CONTEXTS; i++) {
		void *c = atomic_load(&t->ctxs[i]);
		if (c && n < cap)
			out[n++] = c;
	}
	return n;
}

uint64_t translate_finish_gpu(struct translate *t, int *unsynced)
{
	void *ctx[TRANSLATE_MAX_CONTEXTS];
	size_t n = translate_contexts(t, ctx, TRANSLATE_MAX_CONTEXTS);
	int bad = 0;
	tls_self++; /* the synchronization is ours, not the program's */
	for (size_t i = 0; i < n; i++)
		if (t->b->sync(ctx[i]) != 0)
			bad++;
	t->b->flush();
	uint64_t dropped = t->b->dropped(NULL);
	for (size_t i = 0; i < n; i++)
		dropped += t->b->dropped(ctx[i]);
	tls_self--;
	char v[32];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)dropped);
	recorder_meta(t->r, "capture.dropped_records", v);
	if (unsynced)
		*unsynced = bad;
	return dropped;
}

void translate_api(struct translate *t, CUpti_CallbackDomain domain,
		   CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	if (tls_self || !cb)
		return;
	unsigned f = cb_flags(domain, cbid);
	if (!(f & CB_DECODED))
		return;
	note_context(t, cb->context);
	int enter = cb->callbackSite == CUPTI_API_ENTER;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		if (enter) {
			if (++tls_rt_depth == 1) {
				tls_work_corr = f & CB_WORK ? cb->correlationId : 0;
				tls_alloc_corr = f & CB_ALLOC ? cb->correlationId : 0;
				tls_alloc_alias = 0;
			}
			if (f & CB_LAUNCH)
				tls_launch++;
		}
		if (!(f & CB_LAUNCH) || tls_launch <= 1 || tls_pending.active)
			runtime_api(t, cbid, cb);
		else if (enter && tls_work_corr) /* recorded by the outer launch */
			recorder_alias(t->r, tls_work_corr, cb->correlationId);
		if (!enter) {
			if ((f & CB_LAUNCH) && tls_launch > 0)
				tls_launch--;
			if (tls_rt_depth > 0 && --tls_rt_depth == 0) {
				tls_work_corr = 0;
				tls_alloc_corr = tls_alloc_alias = 0;
				tls_launch = 0;
			}
		}
		return;
	}
	if (tls_rt_depth > 0) {
		if (enter && tls_alloc_corr && !tls_alloc_alias)
			tls_alloc_alias = cb->correlationId;
		if ((f & CB_LAUNCH) && tls_pending.active)
			driver_api(t, cbid, cb);
		else if (enter && (f & CB_WORK) && tls_work_corr &&
			 recorder_state(t->r) == 1)
			recorder_alias(t->r, tls_work_corr, cb->correlationId);
		return;
	}
	driver_api(t, cbid, cb);
}

/* --- NVTX and the marker API ------------------------------------------- */

static uint64_t push_key(uint32_t depth)
{
	if (!tls_tid)
		tls_tid = 1; /* set properly in translate_nvtx */
	return SELECT_KEY_PUSH | (uint64_t)tls_tid << 24 | depth;
}

static const char *attr_message(const nvtxEventAttributes_t *a)
{
	if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII)
		return a->message.ascii;
	return NULL;
}

static void push(struct translate *t, const char *name)
{
	uint32_t d = ++tls_push;
	if (d <= PUSH_NAMES)
		tls_push_name[d - 1] = recorder_intern(t->r, name ? name : "(unnamed)");
	range_begin(t, name ? name : "(unnamed)", push_key(d));
}

static void pop(struct translate *t)
{
	if (tls_push == 0)
		return;
	uint32_t d = tls_push--;
	range_end(t, d <= PUSH_NAMES ? tls_push_name[d - 1] : 0, push_key(d));
}

static void start(struct translate *t, const char *name, const void *ret)
{
	if (!ret)
		return;
	uint64_t id = *(const nvtxRangeId_t *)ret;
	range_begin(t, name ? name : "(unnamed)", id);
}

void translate_nvtx(struct translate *t, CUpti_CallbackId cbid,
		    const CUpti_NvtxData *d)
{
	if (tls_self || !d)
		return;
	if (!tls_tid)
		tls_tid = atomic_fetch_add(&t->next_tid, 1) + 1;
	const void *fp = d->functionParams;
	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxRangePushA:
		push(t, ((const nvtxRangePushA_params *)fp)->message);
		return;
	case CUPTI_CBID_NVTX_nvtxRangePushEx:
		push(t, attr_message(((const nvtxRangePushEx_params *)fp)->eventAttrib));
		return;
	case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
		push(t, attr_message(((const nvtxDomainRangePushEx_params *)fp)->core.eventAttrib));
		return;
	case CUPTI_CBID_NVTX_nvtxRangePop:
	case CUPTI_CBID_NVTX_nvtxDomainRangePop:
		pop(t);
		return;
	case CUPTI_CBID_NVTX_nvtxRangeStartA:
		start(t, ((const nvtxRangeStartA_params *)fp)->message,
		      d->functionReturnValue);
		return;
	case CUPTI_CBID_NVTX_nvtxRangeStartEx:
		start(t, attr_message(((const nvtxRangeStartEx_params *)fp)->eventAttrib),
		      d->functionReturnValue);
		return;
	case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
		start(t, attr_message(((const nvtxDomainRangeStartEx_params *)fp)->core.eventAttrib),
		      d->functionReturnValue);
		return;
	case CUPTI_CBID_NVTX_nvtxRangeEnd:
		range_end(t, 0, ((const nvtxRangeEnd_params *)fp)->id);
		return;
	case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
		range_end(t, 0, ((const nvtxDomainRangeEnd_params *)fp)->core.id);
		return;
	case CUPTI_CBID_NVTX_nvtxMarkA:
		recorder_mark(t->r, recorder_intern(t->r, ((const nvtxMarkA_params *)fp)->message),
			      TRACE_MARK_POINT);
		return;
	default:
		return;
	}
}

void translate_marker(struct translate *t, int what, const char *name)
{
	if (!name || !*name)
		name = "iteration";
	switch (what) {
	case 1:
		range_begin(t, name, SELECT_KEY_MARKER);
		return;
	case 2:
		range_end(t, recorder_intern(t->r, name), SELECT_KEY_MARKER);
		return;
	default:
		recorder_mark(t->r, recorder_intern(t->r, name), TRACE_MARK_POINT);
		return;
	}
}

/* --- activity records ---------------------------------------------------- */

/* A GPU time, unless CUPTI could not take one: start = end = 0 means no
 * timestamp (a record flushed before its work finished, or not timed). */
static void gpu_time(struct translate *t, uint32_t corr, uint64_t start,
		     uint64_t end)
{
	if (start == 0 && end == 0)
		return;
	if (start == 0) /* half a record: the one time known */
		start = end;
	if (end < start)
		end = start;
	recorder_gpu_time(t->r, corr, (int64_t)start, (int64_t)end);
}

/*
 * Which correlation id a record carries (cupti_activity.h): a kernel the
 * launching API call's (runtime or driver); a copy the driver call's in
 * correlationId and the runtime call's in runtimeCorrelationId; a memset
 * only the driver call's, reached through the alias translate_api() keeps
 * for a runtime memset.
 */
void translate_activity(struct translate *t, const CUpti_Activity *a)
{
	if (!a)
		return;
	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
		gpu_time(t, k->correlationId, k->start, k->end);
		return;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;
		gpu_time(t, m->runtimeCorrelationId ? m->runtimeCorrelationId
						    : m->correlationId,
			 m->start, m->end);
		return;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)a;
		gpu_time(t, m->correlationId, m->start, m->end);
		return;
	}
	case CUPTI_ACTIVITY_KIND_MEMORY2: {
		const CUpti_ActivityMemory4 *m = (const CUpti_ActivityMemory4 *)a;
		/* before the time: the allocation still waits in the ring */
		if (m->memoryOperationType ==
			    CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION &&
		    m->source && m->source[0]) {
			char path[4096];
			const char *src = allocsource_resolve(m->source, path, sizeof(path));
			recorder_source(t->r, m->correlationId, m->address, src,
					allocsource_entry_points(src));
		}
		gpu_time(t, m->correlationId, m->timestamp, m->timestamp);
		return;
	}
	default:
		return;
	}
}
