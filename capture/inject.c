/* SPDX-License-Identifier: MIT */
/*
 * inject.c - libmemplan-capture.so's entry points.  CUDA calls
 * InitializeInjection() from cuInit when CUDA_INJECTION64_PATH names this
 * library; it subscribes to CUPTI (the runtime and driver callbacks
 * translate.c decodes, NVTX ranges, context creation; kernel, memcpy,
 * memset and memory activity records), opens the recorder on
 * MEMPLAN_CAPTURE_OUTPUT and forwards everything to translate.c.  NVTX
 * calls InitializeInjectionNvtx2() when NVTX_INJECTION64_PATH names this
 * library, which hands NVTX to the very CUPTI the library is bound to.
 * The trace is finished when the selected iteration ends (by a helper
 * thread, so that no CUDA call runs inside a callback) or at exit.
 *
 * Protocol with memplan-capture: the first process of the run to create
 * MEMPLAN_CAPTURE_STATUS records (children that also use CUDA do not); the
 * file carries "error <exit status> <sentence>" and "warning <sentence>"
 * lines for the launcher to print.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cupti.h>

#include "backend_cuda.h"
#include "recorder.h"
#include "select.h"
#include "trace.h"
#include "translate.h"

#define EXPORT __attribute__((visibility("default")))

/* Activity buffers CUPTI fills; records are 8-byte aligned. */
#define ACT_BUFFER (4u << 20)
#define ACT_ALIGN 8

static struct {
	pthread_mutex_t mu;      /* init and finish */
	pthread_rwlock_t lock;   /* callbacks (read) vs finish (write) */
	_Atomic int active;
	_Atomic int finishing;
	int status_fd;
	int all;                 /* whole run: finish at exit */
	struct recorder *r;
	struct translate *t;
	CUpti_SubscriberHandle sub;
	_Atomic(void *) ctx;     /* a context seen in a callback */
	_Atomic int named;
	int kinds_on[8];         /* activity kinds enabled */
} g = { .mu = PTHREAD_MUTEX_INITIALIZER, .lock = PTHREAD_RWLOCK_INITIALIZER,
	.status_fd = -1 };

static void status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void status(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (g.status_fd >= 0) {
		if (write(g.status_fd, line, (size_t)n) < 0)
			return;
	} else { /* not started by memplan-capture: tell the user directly */
		fprintf(stderr, "memplan-capture: %.*s", n, line);
	}
}

static const char *cupti_error(CUptiResult rc)
{
	const char *s = NULL;
	if (cuptiGetResultString(rc, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

static void finish(int from_exit);

static void *finisher(void *arg)
{
	(void)arg;
	finish(0);
	return NULL;
}

/* After a callback: the selected iteration just ended? Finish off-thread.
 * g.t is read under the lock: finish() frees it under the write lock. */
static void check_end(void)
{
	if (g.all || atomic_load(&g.finishing) || !atomic_load(&g.active))
		return;
	pthread_rwlock_rdlock(&g.lock);
	int ended = atomic_load(&g.active) && g.t && translate_state(g.t) == 2;
	pthread_rwlock_unlock(&g.lock);
	if (!ended)
		return;
	if (atomic_exchange(&g.finishing, 1))
		return;
	pthread_t th;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &at, finisher, NULL) != 0)
		atomic_store(&g.finishing, 0); /* at exit, then */
	pthread_attr_destroy(&at);
}

/* The device of a new context, named once: in the context-creation
 * callback, the one place the name is asked of CUDA, before the program's
 * work starts. */
static void name_device(void *ctx)
{
	if (!ctx || atomic_exchange(&g.named, 1))
		return;
	char name[256];
	if (backend_cuda_device_name(ctx, name, sizeof(name)) == 0)
		recorder_meta(g.r, "device", name);
	else
		atomic_store(&g.named, 0);
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom,
				 CUpti_CallbackId cbid, const void *data)
{
	(void)ud;
	if (!atomic_load_explicit(&g.active, memory_order_acquire))
		return;
	pthread_rwlock_rdlock(&g.lock);
	if (atomic_load(&g.active)) {
		if (dom == CUPTI_CB_DOMAIN_NVTX) {
			translate_nvtx(g.t, cbid, data);
		} else if (dom == CUPTI_CB_DOMAIN_RUNTIME_API ||
			   dom == CUPTI_CB_DOMAIN_DRIVER_API) {
			const CUpti_CallbackData *cb = data;
			translate_api(g.t, dom, cbid, cb);
			if (cb->context)
				atomic_store(&g.ctx, (void *)cb->context);
		} else if (dom == CUPTI_CB_DOMAIN_RESOURCE &&
			   cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
			const CUpti_ResourceData *rd = data;
			if (rd && rd->context) {
				atomic_store(&g.ctx, (void *)rd->context);
				name_device(rd->context);
			}
		}
	}
	pthread_rwlock_unlock(&g.lock);
	check_end();
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size,
				      size_t *max_records)
{
	void *p = NULL;
	if (posix_memalign(&p, ACT_ALIGN, ACT_BUFFER) != 0)
		p = NULL;
	*buf = p;
	*size = p ? ACT_BUFFER : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream,
				      uint8_t *buf, size_t size, size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)size;
	pthread_rwlock_rdlock(&g.lock);
	if (atomic_load(&g.active) && valid > 0) {
		CUpti_Activity *rec = NULL;
		while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
			translate_activity(g.t, rec);
	}
	pthread_rwlock_unlock(&g.lock);
	free(buf);
}

static void after_fork_child(void)
{
	/* the writer thread is not in the child: record nothing there */
	atomic_store(&g.active, 0);
	if (g.r)
		recorder_disable(g.r);
}

static void at_exit(void)
{
	finish(1);
}

static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2,
};

/*
 * Waits for the GPU and flushes the activity records (translate.c, through
 * the backend), stops the activity records, measures bandwidth, writes the
 * selection's outcome, unsubscribes and closes the trace.  Runs once: from
 * the helper thread when the iteration ends, or at exit.
 */
static void finish(int from_exit)
{
	pthread_mutex_lock(&g.mu);
	if (!atomic_load(&g.active)) {
		pthread_mutex_unlock(&g.mu);
		return;
	}
	translate_self_enter();
	int unsynced = 0;
	uint64_t dropped = translate_finish_gpu(g.t, &unsynced);
	if (unsynced)
		status("warning could not wait for the GPU at the end%s: GPU times of the last work may be missing",
		       from_exit ? " (at exit, CUDA may be shut down already)" : "");
	if (dropped)
		status("warning CUPTI dropped %llu activity records (no buffer space): their GPU times are missing",
		       (unsigned long long)dropped);
	/* the bandwidth measurement's copies are not the program's */
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		if (g.kinds_on[i])
			cuptiActivityDisable(kinds[i]);
	double h2d, d2h;
	if (backend_cuda_bandwidth(atomic_load(&g.ctx), &h2d, &d2h) == 0) {
		char v[64];
		snprintf(v, sizeof(v), "%.0f", h2d);
		recorder_meta(g.r, "bandwidth_h2d", v);
		snprintf(v, sizeof(v), "%.0f", d2h);
		recorder_meta(g.r, "bandwidth_d2h", v);
	} else {
		status("warning the host<->device bandwidth could not be measured%s",
		       from_exit ? " at exit (CUDA may be shut down already)" : "");
	}
	translate_self_leave();
	pthread_rwlock_wrlock(&g.lock);
	atomic_store(&g.active, 0);
	struct translate *t = g.t;
	g.t = NULL;
	pthread_rwlock_unlock(&g.lock);
	cuptiEnableDomain(0, g.sub, CUPTI_CB_DOMAIN_RUNTIME_API);
	cuptiEnableDomain(0, g.sub, CUPTI_CB_DOMAIN_DRIVER_API);
	cuptiEnableDomain(0, g.sub, CUPTI_CB_DOMAIN_NVTX);
	cuptiEnableDomain(0, g.sub, CUPTI_CB_DOMAIN_RESOURCE);
	cuptiUnsubscribe(g.sub);
	translate_free(t);
	struct recorder_stats st;
	char err[512];
	if (recorder_close(g.r, 1, &st, err, sizeof(err)) != 0)
		status("error 4 %s", err);
	else if (st.truncated)
		status("warning %llu kernel argument words or buffers were over the scan limits",
		       (unsigned long long)st.truncated);
	if (st.bypassing)
		status("note %llu of %llu allocations with a known source came from libraries with their own CUDA runtime: plans pass them by",
		       (unsigned long long)st.bypassing,
		       (unsigned long long)st.sources);
	g.r = NULL;
	pthread_mutex_unlock(&g.mu);
}

/* Enables exactly the callbacks translate.c decodes; 0 or a CUPTI error. */
static CUptiResult enable_callbacks(void)
{
	static const CUpti_CallbackDomain doms[] = { CUPTI_CB_DOMAIN_RUNTIME_API,
						     CUPTI_CB_DOMAIN_DRIVER_API };
	CUpti_CallbackId ids[512];
	CUptiResult rc;
	for (size_t d = 0; d < sizeof(doms) / sizeof(*doms); d++) {
		size_t n = translate_callbacks(doms[d], ids, 512);
		for (size_t i = 0; i < n && i < 512; i++)
			if ((rc = cuptiEnableCallback(1, g.sub, doms[d], ids[i])) != CUPTI_SUCCESS)
				return rc;
	}
	if ((rc = cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RESOURCE,
				      CUPTI_CBID_RESOURCE_CONTEXT_CREATED)) != CUPTI_SUCCESS)
		return rc;
	/* NVTX: the ranges and marks translate_nvtx() reads, all cheap */
	return cuptiEnableDomain(1, g.sub, CUPTI_CB_DOMAIN_NVTX);
}

/* Opens the recorder and subscribes; returns 0 or -1 (status written). */
static int start(void)
{
	const char *out = getenv("MEMPLAN_CAPTURE_OUTPUT");
	const char *stpath = getenv("MEMPLAN_CAPTURE_STATUS");
	if (!out || !*out)
		return 0; /* loaded outside memplan-capture: stay out of the way */
	if (stpath && *stpath) {
		g.status_fd = open(stpath, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
				   0644);
		if (g.status_fd < 0)
			return 0; /* another process of this run records */
	}
	char err[512];
	struct select sel;
	backend_cuda_init(); /* dlopen/dlsym now, never inside a callback */
	if (select_parse(&sel, getenv("MEMPLAN_CAPTURE_ITERATION"),
			 getenv("MEMPLAN_CAPTURE_RANGE"), err, sizeof(err)) != 0) {
		status("error 2 MEMPLAN_CAPTURE_ITERATION/RANGE: %s", err);
		return -1;
	}
	CUptiResult rc = cuptiSubscribe(&g.sub, on_callback, NULL);
	if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		status("error 3 another CUPTI client already holds this process "
		       "(Nsight Systems, Nsight Compute, torch.profiler or another "
		       "CUDA_INJECTION64_PATH tool); CUPTI allows one at a time, so "
		       "run the program under memplan-capture alone");
		return -1;
	}
	if (rc != CUPTI_SUCCESS) {
		status("error 3 cannot subscribe to CUPTI: %s (is the CUDA driver installed and a GPU visible?)",
		       cupti_error(rc));
		return -1;
	}
	struct recorder_opts o = { .record_from_start = sel.all, .hold_ns = -1 };
	int rrc = recorder_open(&g.r, out, &o, err, sizeof(err));
	if (rrc != 0) {
		cuptiUnsubscribe(g.sub);
		status("error %d %s", rrc == TRACE_ENOMEM ? 5 : 4, err);
		return -1;
	}
	g.t = translate_new(g.r, &sel, &backend_cuda);
	if (!g.t) {
		recorder_close(g.r, 0, NULL, err, sizeof(err));
		cuptiUnsubscribe(g.sub);
		status("error 5 out of memory");
		return -1;
	}
	g.all = sel.all;
	char pid[32];
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	recorder_meta(g.r, "capture.pid", pid);
	atomic_store(&g.active, 1);
	if ((rc = enable_callbacks()) != CUPTI_SUCCESS) {
		status("error 3 cannot enable CUPTI callbacks: %s", cupti_error(rc));
		atomic_store(&g.active, 0);
		translate_free(g.t);
		recorder_close(g.r, 0, NULL, err, sizeof(err));
		cuptiUnsubscribe(g.sub);
		return -1;
	}
	/* GPU times are a bonus: without them the trace is still whole */
	if ((rc = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) ==
	    CUPTI_SUCCESS) {
		for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
			if ((rc = cuptiActivityEnable(kinds[i])) != CUPTI_SUCCESS)
				status("warning activity kind %d unavailable (%s): some GPU times will be missing",
				       (int)kinds[i], cupti_error(rc));
			else
				g.kinds_on[i] = 1;
		}
		/* which shared object asked for each allocation: requests of
		 * libraries with their own cudart never reach the runtime */
		if ((rc = cuptiActivityEnableAllocationSource(1)) == CUPTI_SUCCESS) {
			recorder_meta(g.r, "capture.allocation_source", "on");
		} else {
			recorder_meta(g.r, "capture.allocation_source", "unavailable");
			status("warning allocation sources unavailable (%s): allocations by libraries with their own CUDA runtime cannot be told apart",
			       cupti_error(rc));
		}
		cuptiActivityFlushPeriod(500);
	} else {
		status("warning no GPU timestamps: %s", cupti_error(rc));
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	atexit(at_exit);
	return 0;
}

EXPORT int InitializeInjection(void);
EXPORT int InitializeInjection(void)
{
	pthread_mutex_lock(&g.mu);
	static int done;
	if (!done) {
		done = 1;
		start();
	}
	pthread_mutex_unlock(&g.mu);
	return 1; /* a refusal is reported through the status, not by failing cuInit */
}

/*
 * NVTX's entry (NVTX_INJECTION64_PATH names this library).  NVTX must reach
 * the CUPTI this library subscribed with: a program may carry its own
 * libcupti.so.13 (a PyTorch wheel does), which the dynamic linker bound us
 * to by soname, and a second copy loaded by path would have no subscriber.
 * So the call goes to InitializeInjectionNvtx2 of the libcupti that
 * cuptiSubscribe comes from.  The guard against calling ourselves compares
 * objects (load addresses), not function addresses: our own reference to
 * InitializeInjectionNvtx2 goes through the GOT and binds to a libcupti in
 * the global scope, which would make the two look equal.  Returns its
 * answer, or 0 (NVTX then makes every call a no-op for the rest of the
 * process) with a warning on stderr.
 */
typedef const void *(*nvtx_export_table_fn)(uint32_t id);

static int nvtx_refused(const char *why)
{
	fprintf(stderr, "memplan-capture: warning: NVTX ranges are off in this process: %s\n",
		why);
	return 0;
}

EXPORT int InitializeInjectionNvtx2(nvtx_export_table_fn get_export_table);
EXPORT int InitializeInjectionNvtx2(nvtx_export_table_fn get_export_table)
{
	Dl_info info, self;
	void *cupti_sym = (void *)(uintptr_t)&cuptiSubscribe;
	void *self_sym = (void *)(uintptr_t)&nvtx_refused; /* static: ours */
	if (!dladdr(cupti_sym, &info) || !info.dli_fname || !dladdr(self_sym, &self))
		return nvtx_refused("the libcupti in use cannot be found (dladdr)");
	void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return nvtx_refused("the libcupti in use cannot be opened again");
	void *p = dlsym(h, "InitializeInjectionNvtx2");
	Dl_info at;
	int rc;
	if (!p)
		rc = nvtx_refused("the libcupti in use has no InitializeInjectionNvtx2");
	else if (dladdr(p, &at) && at.dli_fbase == self.dli_fbase)
		rc = nvtx_refused("InitializeInjectionNvtx2 of libcupti resolves to the capture library itself");
	else {
		int (*init)(nvtx_export_table_fn);
		memcpy(&init, &p, sizeof(p));
		rc = init(get_export_table);
		if (!rc)
			nvtx_refused("libcupti's InitializeInjectionNvtx2 refused");
	}
	dlclose(h); /* NOLOAD took a reference; the library stays loaded */
	return rc;
}

/* The marker API's entry (marker.h).  0 recorded (or nothing to record),
 * -1 when no capture is running in this process. */
EXPORT int memplan_capture_mark(int what, const char *name);
EXPORT int memplan_capture_mark(int what, const char *name)
{
	if (!atomic_load(&g.active))
		return -1;
	pthread_rwlock_rdlock(&g.lock);
	if (atomic_load(&g.active))
		translate_marker(g.t, what, name);
	pthread_rwlock_unlock(&g.lock);
	check_end();
	return 0;
}
