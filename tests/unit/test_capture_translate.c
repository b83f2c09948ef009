/* SPDX-License-Identifier: MIT */
/*
 * test_capture_translate.c - CUPTI callback data -> trace, without a GPU:
 * the test builds CUpti_CallbackData with each API's params struct (from
 * generated_cuda_runtime_api_meta.h / generated_cuda_meta.h), NVTX data and
 * activity records, calls the translation with the host backend, and checks
 * the trace the recorder wrote.  Also checks that the injection library
 * exports only its entry points and that marker.h reaches it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#ifndef MEMPLAN_HAVE_CUPTI
int main(void)
{
	printf("ok 1 - # SKIP built without the CUPTI headers\n1..1\n");
	return 0;
}
#else

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <generated_nvtx_meta.h>

#include "alloc_clock.h"
#include "capture_backend.h"
#include "marker.h"
#include "recorder.h"
#include "select.h"
#include "trace.h"
#include "tracedb.h"
#include "translate.h"

#define RT CUPTI_CB_DOMAIN_RUNTIME_API
#define DRV CUPTI_CB_DOMAIN_DRIVER_API
#define DEV(i) (0x7f0000000000ull + (uint64_t)(i) * 0x100000ull)

static char dir[64];
static int ok_ret = 0, bad_ret = 2;

static CUpti_CallbackData cb(int enter, const void *params, const int *ret,
			     const char *fn, const char *sym, uint32_t corr)
{
	CUpti_CallbackData d;
	memset(&d, 0, sizeof(d));
	d.callbackSite = enter ? CUPTI_API_ENTER : CUPTI_API_EXIT;
	d.functionName = fn;
	d.symbolName = sym;
	d.functionParams = params;
	d.functionReturnValue = (void *)(uintptr_t)ret;
	d.correlationId = corr;
	return d;
}

/* One API call: entry, then exit with the given return value. */
static void call(struct translate *t, CUpti_CallbackDomain dom, CUpti_CallbackId id,
		 const void *params, const int *ret, const char *fn,
		 const char *sym, uint32_t corr)
{
	CUpti_CallbackData e = cb(1, params, NULL, fn, sym, corr);
	translate_api(t, dom, id, &e);
	CUpti_CallbackData x = cb(0, params, ret, fn, sym, corr);
	translate_api(t, dom, id, &x);
}

static struct trace *load(const char *path)
{
	struct trace *tr = NULL;
	char err[512];
	if (trace_load(path, &tr, err, sizeof(err)) != 0)
		printf("# load: %s\n", err);
	return tr;
}

static const struct trace_event *find_event(const struct trace *tr, unsigned type,
					    const char *name, int nth)
{
	for (size_t i = 0; i < tr->nevents; i++) {
		const struct trace_event *e = &tr->events[i];
		if (e->type == type && (!name || (e->name && strcmp(e->name, name) == 0)) &&
		    nth-- == 0)
			return e;
	}
	return NULL;
}

static int touches(const struct trace *tr, const struct trace_event *e, uint64_t addr)
{
	for (uint32_t i = 0; e && i < e->nacc; i++)
		if (tr->buffers[tr->accesses[e->acc0 + i].buffer].addr == addr)
			return 1;
	return 0;
}

struct by_value {
	int n;
	void *a; /* offset 8 */
	void *b; /* offset 16 */
};

/* stands in for a __global__'s host stub: only its address matters */
static const char kernel_stub_obj;
#define kernel_stub ((const void *)&kernel_stub_obj)

static void test_whole_run(void)
{
	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/whole.trace", dir);
	struct recorder *r;
	struct recorder_opts o = { .record_from_start = 1, .hold_ns = 60000000000ll };
	CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open recorder");
	struct select sel;
	select_parse(&sel, NULL, NULL, err, sizeof(err));
	backend_host_reset();
	struct translate *t = translate_new(r, &sel, &backend_host);

	/* cudaMalloc: recorded at a successful exit only */
	void *p1 = (void *)(uintptr_t)DEV(1), *p2 = (void *)(uintptr_t)DEV(2);
	cudaMalloc_v3020_params m1 = { &p1, 4096 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &m1, &ok_ret, "cudaMalloc", NULL, 1);
	void *pf = (void *)(uintptr_t)DEV(50);
	cudaMalloc_v3020_params mf = { &pf, 64 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &mf, &bad_ret, "cudaMalloc", NULL, 2);
	/* the driver allocation the runtime makes inside is not a second one */
	{
		CUpti_CallbackData e = cb(1, &m1, NULL, "cudaMalloc", NULL, 3);
		cudaMalloc_v3020_params m2 = { &p2, 8192 };
		e.functionParams = &m2;
		translate_api(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &e);
		CUdeviceptr dp = DEV(2);
		cuMemAlloc_v2_params dm = { &dp, 8192 };
		call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &dm, &ok_ret, "cuMemAlloc_v2", NULL, 4);
		CUpti_CallbackData x = cb(0, &m2, &ok_ret, "cudaMalloc", NULL, 3);
		translate_api(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &x);
	}
	/* stream-ordered, per-thread default stream */
	void *p3 = (void *)(uintptr_t)DEV(3);
	cudaMallocAsync_v11020_params ma = { &p3, 1 << 20, NULL };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020, &ma, &ok_ret,
	     "cudaMallocAsync_ptsz", NULL, 5);
	/* pinned host memory */
	void *h = (void *)(uintptr_t)0x20000000ull;
	cudaHostAlloc_v3020_params ha = { &h, 65536, 0 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020, &ha, &ok_ret, "cudaHostAlloc", NULL, 6);
	/* driver allocation outside any runtime call */
	CUdeviceptr d4 = DEV(4);
	cuMemAlloc_v2_params dm4 = { &d4, 512 };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &dm4, &ok_ret, "cuMemAlloc_v2", NULL, 7);

	/* cudaLaunchKernel(stub, ..., args) with a by-value struct argument */
	struct argscan_param lay[3] = { { 0, 8 }, { 8, sizeof(struct by_value) }, { 32, 4 } };
	backend_host_set_params(BACKEND_RUNTIME_STUB, kernel_stub, lay, 3);
	void *a0 = (void *)(uintptr_t)(DEV(1) + 128);
	struct by_value bv = { 3, (void *)(uintptr_t)DEV(2), (void *)(uintptr_t)(DEV(3) + 4096) };
	int n = 1 << 20;
	void *args[3] = { &a0, &bv, &n };
	cudaLaunchKernel_v7000_params lk;
	memset(&lk, 0, sizeof(lk));
	lk.func = kernel_stub;
	lk.args = args;
	lk.stream = (cudaStream_t)(uintptr_t)0x77;
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &lk, &ok_ret,
	     "cudaLaunchKernel", "_Z6kernelPfS_i", 10);

	/* CUDA 13 <<<>>>: __cudaLaunchKernel with a cudaKernel_t */
	const void *kern = (const void *)(uintptr_t)0xabc000;
	struct argscan_param lay2[1] = { { 0, 8 } };
	backend_host_set_params(BACKEND_KERNEL, kern, lay2, 1);
	void *a1 = (void *)(uintptr_t)DEV(4);
	void *args2[1] = { &a1 };
	cudaLaunchKernel_v7000_params lk2;
	memset(&lk2, 0, sizeof(lk2));
	lk2.func = kern;
	lk2.args = args2;
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &lk2, &ok_ret,
	     "__cudaLaunchKernel", "cuda13_kernel", 11);

	/* a runtime launch the backend cannot resolve, completed by the
	 * driver launch nested in it */
	CUfunction fn = (CUfunction)(uintptr_t)0xf00d;
	backend_host_set_params(BACKEND_FUNCTION, fn, lay2, 1);
	void *a2 = (void *)(uintptr_t)(DEV(3) + 7);
	void *args3[1] = { &a2 };
	cudaLaunchKernel_v7000_params lk3;
	memset(&lk3, 0, sizeof(lk3));
	lk3.func = (const void *)(uintptr_t)0x1234; /* unknown stub */
	lk3.args = args3;
	{
		CUpti_CallbackData e = cb(1, &lk3, NULL, "cudaLaunchKernel", "nested_kernel", 12);
		translate_api(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &e);
		cuLaunchKernel_params dl;
		memset(&dl, 0, sizeof(dl));
		dl.f = fn;
		dl.kernelParams = args3;
		call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &dl, &ok_ret,
		     "cuLaunchKernel", "nested_kernel", 13);
		CUpti_CallbackData x = cb(0, &lk3, &ok_ret, "cudaLaunchKernel", "nested_kernel", 12);
		translate_api(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &x);
	}
	/* unresolvable and no driver launch: recorded without accesses */
	lk3.func = (const void *)(uintptr_t)0x5678;
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &lk3, &ok_ret,
	     "cudaLaunchKernel", "opaque_kernel", 14);
	/* cuLaunchKernel with a packed parameter buffer in extra */
	uint64_t packed[3] = { 5, DEV(1) + 8, DEV(4) + 16 };
	size_t packed_len = sizeof(packed);
	void *extra[5] = { CU_LAUNCH_PARAM_BUFFER_POINTER, packed,
			   CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_len, CU_LAUNCH_PARAM_END };
	cuLaunchKernel_params dl2;
	memset(&dl2, 0, sizeof(dl2));
	dl2.f = (CUfunction)(uintptr_t)0xbeef;
	dl2.extra = extra;
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &dl2, &ok_ret, "cuLaunchKernel",
	     "packed_kernel", 15);

	/* copies and memsets */
	cudaMemcpyAsync_v3020_params cp = { (void *)(uintptr_t)DEV(1), (const void *)(uintptr_t)0x20000010ull,
					    256, cudaMemcpyHostToDevice, NULL };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, &cp, &ok_ret, "cudaMemcpyAsync", NULL, 20);
	cudaMemcpy_v3020_params cp2 = { (void *)(uintptr_t)DEV(2), (const void *)(uintptr_t)DEV(3), 100,
					cudaMemcpyDefault };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, &cp2, &ok_ret, "cudaMemcpy", NULL, 21);
	cuMemsetD32_v2_params ms = { DEV(4), 0, 16 };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, &ms, &ok_ret, "cuMemsetD32_v2", NULL, 22);

	/* virtual memory: two mappings, one unmap over both */
	cuMemMap_params mm1 = { DEV(10), 2 << 20, 0, 1, 0 };
	cuMemMap_params mm2 = { DEV(10) + (2 << 20), 2 << 20, 0, 2, 0 };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemMap, &mm1, &ok_ret, "cuMemMap", NULL, 30);
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemMap, &mm2, &ok_ret, "cuMemMap", NULL, 31);
	cuMemUnmap_params um = { DEV(10), 4 << 20 };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemUnmap, &um, &ok_ret, "cuMemUnmap", NULL, 32);

	/* NVTX ranges and a mark */
	nvtxRangePushA_params push = { "forward" };
	CUpti_NvtxData nd = { "nvtxRangePushA", &push, NULL };
	translate_nvtx(t, CUPTI_CBID_NVTX_nvtxRangePushA, &nd);
	CUpti_NvtxData pd = { "nvtxRangePop", NULL, NULL };
	translate_nvtx(t, CUPTI_CBID_NVTX_nvtxRangePop, &pd);

	cudaFree_v3020_params fr = { (void *)(uintptr_t)DEV(1) };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &fr, &ok_ret, "cudaFree", NULL, 40);
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, NULL, &ok_ret,
	     "cudaDeviceSynchronize", NULL, 41);

	/* the capture's own calls are not the program's */
	translate_self_enter();
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &dm4, &ok_ret, "cuMemAlloc_v2", NULL, 42);
	translate_self_leave();

	/* GPU times from activity records */
	CUpti_ActivityKernel10 ak;
	memset(&ak, 0, sizeof(ak));
	ak.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	ak.correlationId = 10;
	ak.start = 5000;
	ak.end = 7000;
	translate_activity(t, (const CUpti_Activity *)&ak);
	CUpti_ActivityMemcpy6 am;
	memset(&am, 0, sizeof(am));
	am.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	am.correlationId = 20;
	am.start = 8000;
	am.end = 8100;
	translate_activity(t, (const CUpti_Activity *)&am);

	translate_free(t);
	struct recorder_stats st;
	CHECK(recorder_close(r, 1, &st, err, sizeof(err)) == 0, "close recorder");
	struct trace *tr = load(path);
	CHECK(tr != NULL, "the translated trace loads");
	if (!tr)
		return;
	/* buffers: DEV1, DEV2 (once), DEV3 async, host, DEV4, 2 VMM maps */
	CHECK_EQ_U64(tr->nbuffers, 7, "seven buffers: failed and nested driver allocations are not recorded");
	CHECK(tr->buffers[0].addr == DEV(1) && tr->buffers[0].size == 4096 &&
		      tr->buffers[0].kind == TRACE_KIND_DEVICE, "cudaMalloc -> device buffer");
	CHECK(tr->buffers[2].kind == TRACE_KIND_ASYNC && tr->buffers[2].stream == 1,
	      "cudaMallocAsync_ptsz -> async buffer on the per-thread stream");
	CHECK(tr->buffers[3].kind == TRACE_KIND_HOST && tr->buffers[3].size == 65536,
	      "cudaHostAlloc -> pinned host buffer");
	CHECK(tr->buffers[5].kind == TRACE_KIND_VMM && tr->buffers[6].kind == TRACE_KIND_VMM &&
		      tr->buffers[5].free_ev != TRACE_NONE && tr->buffers[6].free_ev != TRACE_NONE,
	      "cuMemMap -> vmm buffers, one cuMemUnmap frees both");
	int aligned = 1;
	for (size_t i = 0; i < tr->nbuffers; i++)
		aligned &= tr->buffers[i].align == 256;
	CHECK(aligned, "every buffer, of every kind, has CUDA's alignment of 256 bytes");
	const struct trace_event *k = find_event(tr, TRACE_EV_KERNEL, "_Z6kernelPfS_i", 0);
	CHECK(k && k->nacc == 3 && touches(tr, k, DEV(1)) && touches(tr, k, DEV(2)) &&
		      touches(tr, k, DEV(3)) && k->stream == 0x77,
	      "cudaLaunchKernel: pointers in args and inside a by-value struct, stream");
	CHECK(k && k->t_start == 5000 && k->t_end == 7000, "kernel GPU times joined by correlation id");
	k = find_event(tr, TRACE_EV_KERNEL, "cuda13_kernel", 0);
	CHECK(k && k->nacc == 1 && touches(tr, k, DEV(4)), "__cudaLaunchKernel (CUDA 13) with a cudaKernel_t");
	k = find_event(tr, TRACE_EV_KERNEL, "nested_kernel", 0);
	CHECK(k && k->nacc == 1 && touches(tr, k, DEV(3)) && !find_event(tr, TRACE_EV_KERNEL, "nested_kernel", 1),
	      "an unresolved runtime launch is completed once by its nested driver launch");
	k = find_event(tr, TRACE_EV_KERNEL, "opaque_kernel", 0);
	CHECK(k && k->nacc == 0, "an unresolvable launch is still recorded, without accesses");
	k = find_event(tr, TRACE_EV_KERNEL, "packed_kernel", 0);
	CHECK(k && k->nacc == 2 && touches(tr, k, DEV(1)) && touches(tr, k, DEV(4)),
	      "cuLaunchKernel's packed extra buffer is scanned");
	const struct trace_event *c = find_event(tr, TRACE_EV_COPY, "cudaMemcpyAsync", 0);
	CHECK(c && c->aux == TRACE_COPY_H2D && c->bytes == 256 && c->nacc == 2 && c->t_start == 8000,
	      "cudaMemcpyAsync H2D: pinned source, device destination, GPU times");
	c = find_event(tr, TRACE_EV_COPY, "cudaMemcpy", 0);
	CHECK(c && c->aux == TRACE_COPY_D2D, "cudaMemcpyDefault between device buffers is D2D");
	c = find_event(tr, TRACE_EV_MEMSET, "cuMemsetD32_v2", 0);
	CHECK(c && c->bytes == 64 && c->nacc == 1, "cuMemsetD32 of 16 words is 64 bytes");
	CHECK(find_event(tr, TRACE_EV_MARK, "forward", 0) && find_event(tr, TRACE_EV_MARK, "forward", 1),
	      "an NVTX push/pop gives begin and end marks with the name");
	CHECK(tr->buffers[0].free_ev != TRACE_NONE && find_event(tr, TRACE_EV_SYNC, NULL, 0),
	      "cudaFree and cudaDeviceSynchronize");
	CHECK(st.unknown_frees == 0 && st.missed_frees == 0, "no unknown or missed frees");
	const char *found = trace_get_meta(tr, "capture.found");
	CHECK(found && strcmp(found, "1") == 0, "a whole run is always found");
	trace_free(tr);
}

static void malloc_(struct translate *t, uint64_t addr, size_t size);

/* Entry of a runtime call, one driver call inside it, then its exit: the
 * shape CUPTI reports when the runtime calls the driver. */
static void nested(struct translate *t, CUpti_CallbackId rid, const void *rp,
		   const char *rfn, uint32_t rcorr, CUpti_CallbackId did,
		   const void *dp, const char *dfn, uint32_t dcorr, const char *sym)
{
	CUpti_CallbackData e = cb(1, rp, NULL, rfn, sym, rcorr);
	translate_api(t, RT, rid, &e);
	call(t, DRV, did, dp, &ok_ret, dfn, sym, dcorr);
	CUpti_CallbackData x = cb(0, rp, &ok_ret, rfn, sym, rcorr);
	translate_api(t, RT, rid, &x);
}

static void rt_enter(struct translate *t, CUpti_CallbackId id, const void *p,
		     const char *fn, const char *sym, uint32_t corr)
{
	CUpti_CallbackData e = cb(1, p, NULL, fn, sym, corr);
	translate_api(t, RT, id, &e);
}

static void rt_exit(struct translate *t, CUpti_CallbackId id, const void *p,
		    const char *fn, const char *sym, uint32_t corr)
{
	CUpti_CallbackData x = cb(0, p, &ok_ret, fn, sym, corr);
	translate_api(t, RT, id, &x);
}

static void kernel_time(struct translate *t, uint32_t corr, uint64_t s, uint64_t e)
{
	CUpti_ActivityKernel10 ak;
	memset(&ak, 0, sizeof(ak));
	ak.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	ak.correlationId = corr;
	ak.start = s;
	ak.end = e;
	translate_activity(t, (const CUpti_Activity *)&ak);
}

static int count_events(const struct trace *tr, unsigned type, const char *name)
{
	int n = 0;
	while (find_event(tr, type, name, n))
		n++;
	return n;
}

/*
 * The shapes CUDA 13 and CUPTI 13 really give: launches reported by two
 * runtime callbacks nested either way, NULL params for internal calls,
 * driver calls inside runtime calls memplan does not decode, copies and
 * memsets whose activity records carry the driver's correlation id, records
 * flushed before their work finished (start = end = 0), events, graphs and
 * stream capture.
 */
static void test_cuda13_shapes(void)
{
	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/cuda13.trace", dir);
	struct recorder *r;
	struct recorder_opts o = { .record_from_start = 1, .hold_ns = 60000000000ll };
	CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open recorder (cuda13)");
	struct select sel;
	select_parse(&sel, NULL, NULL, err, sizeof(err));
	backend_host_reset();
	struct translate *t = translate_new(r, &sel, &backend_host);
	malloc_(t, DEV(1), 1 << 20);
	malloc_(t, DEV(2), 1 << 20);

	/* every id of both domains with NULL params (CUPTI's internal calls):
	 * nothing is dereferenced, nothing but the argument-less calls recorded */
	for (CUpti_CallbackId id = 1; id < CUPTI_RUNTIME_TRACE_CBID_SIZE; id++) {
		/* __cudaLaunchKernel has no params struct in CUDA 13.0: a
		 * launch all the same, checked below */
		if (id == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 ||
		    id == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000 ||
		    id == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
		    id == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000)
			continue;
		call(t, RT, id, NULL, &ok_ret, "internal", NULL, 90);
	}
	for (CUpti_CallbackId id = 1; id < CUPTI_DRIVER_TRACE_CBID_SIZE; id++)
		call(t, DRV, id, NULL, &ok_ret, "internal", NULL, 91);
	CHECK(1, "NULL functionParams for every runtime and driver id: no crash");

	/* one <<<>>> launch: __cudaLaunchKernel and cudaLaunchKernel nested
	 * both ways, with the driver launch inside */
	const void *kern = (const void *)(uintptr_t)0xcafe00;
	struct argscan_param lay[1] = { { 0, 8 } };
	backend_host_set_params(BACKEND_KERNEL, kern, lay, 1);
	backend_host_set_params(BACKEND_RUNTIME_STUB, kernel_stub, lay, 1);
	void *a1 = (void *)(uintptr_t)(DEV(1) + 64);
	void *args[1] = { &a1 };
	cudaLaunchKernel_v7000_params outer, inner;
	memset(&outer, 0, sizeof(outer));
	outer.func = kern;
	outer.args = args;
	inner = outer;
	inner.func = kernel_stub;
	cuLaunchKernel_params dl;
	memset(&dl, 0, sizeof(dl));
	dl.f = (CUfunction)(uintptr_t)0xf1f1;
	dl.kernelParams = args;
	rt_enter(t, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &outer,
		 "__cudaLaunchKernel", "k_outer_first", 100);
	nested(t, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &inner, "cudaLaunchKernel",
	       101, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &dl, "cuLaunchKernel", 102,
	       "k_outer_first");
	rt_exit(t, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &outer,
		"__cudaLaunchKernel", "k_outer_first", 100);
	rt_enter(t, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &inner,
		 "cudaLaunchKernel", "k_inner_first", 110);
	nested(t, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &outer,
	       "__cudaLaunchKernel", 111, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &dl,
	       "cuLaunchKernel", 112, "k_inner_first");
	rt_exit(t, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &inner,
		"cudaLaunchKernel", "k_inner_first", 110);
	/* an outer launch the backend cannot resolve, completed by the
	 * resolvable runtime launch inside it */
	cudaLaunchKernel_v7000_params opaque = outer;
	opaque.func = (const void *)(uintptr_t)0x999;
	rt_enter(t, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &opaque,
		 "cudaLaunchKernel", "k_completed", 120);
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &outer, &ok_ret,
	     "__cudaLaunchKernel", "k_completed", 121);
	rt_exit(t, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &opaque,
		"cudaLaunchKernel", "k_completed", 120);
	/* the kernel record may carry the driver call's id */
	kernel_time(t, 102, 9000, 9500);

	/* __cudaLaunchKernel as CUPTI 13.0 gives it: no params; the name from
	 * the callback, the layout and the stream from the driver launch */
	cuLaunchKernel_params dn = dl;
	dn.hStream = (CUstream)(uintptr_t)0x70;
	backend_host_set_params(BACKEND_FUNCTION, dl.f, lay, 1);
	nested(t, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, NULL,
	       "__cudaLaunchKernel", 125, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &dn,
	       "cuLaunchKernel", 126, "k_no_params");
	kernel_time(t, 126, 9600, 9700);

	/* a runtime call memplan does not decode: its driver copy stands alone */
	cudaMemcpyToSymbol_v3020_params ts;
	memset(&ts, 0, sizeof(ts));
	cuMemcpyHtoD_v2_params hd = { DEV(2) + 16, (const void *)(uintptr_t)0x30000000ull, 64 };
	nested(t, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020, &ts, "cudaMemcpyToSymbol",
	       130, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, &hd, "cuMemcpyHtoD_v2", 131, NULL);

	/* a runtime copy: its record has the driver id in correlationId and
	 * the runtime id in runtimeCorrelationId */
	cudaMemcpyAsync_v3020_params cp = { (void *)(uintptr_t)DEV(1), (const void *)(uintptr_t)DEV(2),
					    128, cudaMemcpyDeviceToDevice, NULL };
	cuMemcpyAsync_params dcp = { DEV(1), DEV(2), 128, NULL };
	nested(t, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, &cp, "cudaMemcpyAsync", 140,
	       CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, &dcp, "cuMemcpyAsync", 141, NULL);
	CUpti_ActivityMemcpy6 am;
	memset(&am, 0, sizeof(am));
	am.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	am.correlationId = 141;
	am.runtimeCorrelationId = 140;
	am.start = 10000;
	am.end = 10100;
	translate_activity(t, (const CUpti_Activity *)&am);
	/* a runtime memset: its record has only the driver's id */
	cudaMemsetAsync_v3020_params ms = { (void *)(uintptr_t)DEV(2), 0, 256, NULL };
	cuMemsetD8Async_params dms = { DEV(2), 0, 256, NULL };
	nested(t, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, &ms, "cudaMemsetAsync", 150,
	       CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, &dms, "cuMemsetD8Async", 151, NULL);
	CUpti_ActivityMemset4 mr;
	memset(&mr, 0, sizeof(mr));
	mr.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	mr.correlationId = 151;
	mr.start = 11000;
	mr.end = 11050;
	translate_activity(t, (const CUpti_Activity *)&mr);

	/* a record flushed before its kernel finished: no time, not 0 */
	cudaLaunchKernel_v7000_params lz = inner;
	lz.func = (const void *)(uintptr_t)0x5100;
	backend_host_set_params(BACKEND_RUNTIME_STUB, lz.func, lay, 1);
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &lz, &ok_ret,
	     "cudaLaunchKernel", "k_untimed", 160);
	kernel_time(t, 160, 0, 0);

	/* cross-stream order through an event */
	cudaEvent_t ev = (cudaEvent_t)(uintptr_t)0xe1;
	cudaEventRecord_v3020_params er = { ev, (cudaStream_t)(uintptr_t)0x10 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, &er, &ok_ret,
	     "cudaEventRecord", NULL, 170);
	cudaStreamWaitEvent_v3020_params we = { (cudaStream_t)(uintptr_t)0x20, ev, 0 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, &we, &ok_ret,
	     "cudaStreamWaitEvent", NULL, 171);

	/* many events: each handle keeps its number */
	for (uintptr_t i = 0; i < 300; i++) {
		cudaEventRecord_v3020_params m = { (cudaEvent_t)(0xe000 + 16 * i),
						   (cudaStream_t)(uintptr_t)0x60 };
		call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, &m, &ok_ret,
		     "cudaEventRecord_many", NULL, 0);
	}
	cudaStreamWaitEvent_v3020_params wm = { (cudaStream_t)(uintptr_t)0x61,
						(cudaEvent_t)(0xe000 + 16 * 150), 0 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, &wm, &ok_ret,
	     "cudaStreamWaitEvent_many", NULL, 0);

	/* a graph launch, timed by its kernels' records */
	cudaGraphLaunch_v10000_params gl = { (cudaGraphExec_t)(uintptr_t)0x9a, (cudaStream_t)(uintptr_t)0x30 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, &gl, &ok_ret,
	     "cudaGraphLaunch", NULL, 180);
	kernel_time(t, 180, 12000, 12500);
	kernel_time(t, 180, 12600, 13000);

	/* stream capture: 0x40 captures, 0x50 joins it through an event */
	cudaStreamBeginCapture_v10000_params bc = { (cudaStream_t)(uintptr_t)0x40,
						    cudaStreamCaptureModeGlobal };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, &bc, &ok_ret,
	     "cudaStreamBeginCapture", NULL, 190);
	cudaEvent_t ev2 = (cudaEvent_t)(uintptr_t)0xe2;
	cudaEventRecord_v3020_params er2 = { ev2, (cudaStream_t)(uintptr_t)0x40 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, &er2, &ok_ret,
	     "cudaEventRecord", NULL, 191);
	cudaStreamWaitEvent_v3020_params we2 = { (cudaStream_t)(uintptr_t)0x50, ev2, 0 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, &we2, &ok_ret,
	     "cudaStreamWaitEvent", NULL, 192);
	cudaLaunchKernel_v7000_params lc = inner;
	lc.func = (const void *)(uintptr_t)0x5200;
	backend_host_set_params(BACKEND_RUNTIME_STUB, lc.func, lay, 1);
	lc.stream = (cudaStream_t)(uintptr_t)0x50;
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &lc, &ok_ret,
	     "cudaLaunchKernel", "k_captured", 193);
	cudaGraph_t g = NULL;
	cudaStreamEndCapture_v10000_params ec = { (cudaStream_t)(uintptr_t)0x40, &g };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, &ec, &ok_ret,
	     "cudaStreamEndCapture", NULL, 194);
	lc.func = (const void *)(uintptr_t)0x5300;
	backend_host_set_params(BACKEND_RUNTIME_STUB, lc.func, lay, 1);
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &lc, &ok_ret,
	     "cudaLaunchKernel", "k_after_capture", 195);

	translate_free(t);
	CHECK(recorder_close(r, 1, NULL, err, sizeof(err)) == 0, "close recorder (cuda13)");
	struct trace *tr = load(path);
	CHECK(tr != NULL, "the CUDA 13 shapes give a trace that loads");
	if (!tr)
		return;
	CHECK(count_events(tr, TRACE_EV_ALLOC, NULL) == 2 && count_events(tr, TRACE_EV_COPY, NULL) == 2 &&
		      count_events(tr, TRACE_EV_MEMSET, NULL) == 1,
	      "internal calls with NULL params record nothing");
	const struct trace_event *k = find_event(tr, TRACE_EV_KERNEL, "k_outer_first", 0);
	CHECK(k && k->nacc == 1 && count_events(tr, TRACE_EV_KERNEL, "k_outer_first") == 1,
	      "__cudaLaunchKernel around cudaLaunchKernel: one kernel event");
	CHECK(k && k->t_start == 9000 && k->t_end == 9500,
	      "its kernel record, carrying the driver launch's id, times it");
	CHECK(count_events(tr, TRACE_EV_KERNEL, "k_inner_first") == 1,
	      "cudaLaunchKernel around __cudaLaunchKernel: one kernel event");
	k = find_event(tr, TRACE_EV_KERNEL, "k_completed", 0);
	CHECK(k && k->nacc == 1 && touches(tr, k, DEV(1)) &&
		      count_events(tr, TRACE_EV_KERNEL, "k_completed") == 1,
	      "an unresolvable outer launch is completed by the resolvable one inside it");
	k = find_event(tr, TRACE_EV_KERNEL, "k_no_params", 0);
	CHECK(k && k->nacc == 1 && touches(tr, k, DEV(1)) && k->stream == 0x70 &&
		      k->t_start == 9600 && count_events(tr, TRACE_EV_KERNEL, "k_no_params") == 1,
	      "__cudaLaunchKernel with NULL params: one kernel, with the driver launch's "
	      "buffers, stream and time");
	const struct trace_event *c = find_event(tr, TRACE_EV_COPY, "cuMemcpyHtoD_v2", 0);
	CHECK(c && c->aux == TRACE_COPY_H2D && c->nacc == 1 && touches(tr, c, DEV(2)),
	      "a driver copy inside an undecoded runtime call (cudaMemcpyToSymbol) is recorded");
	c = find_event(tr, TRACE_EV_COPY, "cudaMemcpyAsync", 0);
	CHECK(c && c->t_start == 10000 && c->t_end == 10100 && !find_event(tr, TRACE_EV_COPY, "cuMemcpyAsync", 0),
	      "a runtime copy is timed through runtimeCorrelationId, and recorded once");
	c = find_event(tr, TRACE_EV_MEMSET, "cudaMemsetAsync", 0);
	CHECK(c && c->t_start == 11000 && c->t_end == 11050,
	      "a runtime memset is timed through its driver call's correlation id");
	k = find_event(tr, TRACE_EV_KERNEL, "k_untimed", 0);
	CHECK(k && k->t_start == TRACE_TIME_NONE && k->t_end == TRACE_TIME_NONE,
	      "a record with start = end = 0 gives no time, not time 0");
	const struct trace_event *rec = find_event(tr, TRACE_EV_SYNC, "cudaEventRecord", 0);
	const struct trace_event *wt = find_event(tr, TRACE_EV_SYNC, "cudaStreamWaitEvent", 0);
	CHECK(rec && wt && rec->aux == TRACE_SYNC_RECORD && wt->aux == TRACE_SYNC_WAIT &&
		      rec->stream == 0x10 && wt->stream == 0x20 && rec->bytes == wt->bytes &&
		      rec->bytes > 0,
	      "event record and stream wait: streams and the event's number");
	const struct trace_event *r150 = find_event(tr, TRACE_EV_SYNC, "cudaEventRecord_many", 150);
	const struct trace_event *w150 = find_event(tr, TRACE_EV_SYNC, "cudaStreamWaitEvent_many", 0);
	CHECK(r150 && w150 && r150->bytes == w150->bytes &&
		      count_events(tr, TRACE_EV_SYNC, "cudaEventRecord_many") == 300,
	      "300 events: a wait names the number its event was recorded under");
	const struct trace_event *gr = find_event(tr, TRACE_EV_KERNEL, "cudaGraphLaunch", 0);
	CHECK(gr && (gr->aux & TRACE_KERNEL_GRAPH) && gr->stream == 0x30 &&
		      gr->t_start == 12000 && gr->t_end == 13000,
	      "a graph launch: one event spanning its kernels' records");
	k = find_event(tr, TRACE_EV_KERNEL, "k_captured", 0);
	CHECK(k && (k->aux & TRACE_KERNEL_CAPTURED),
	      "a launch on a stream that joined a capture is tagged captured");
	k = find_event(tr, TRACE_EV_KERNEL, "k_after_capture", 0);
	CHECK(k && k->aux == 0, "after the capture ends it is not");
	trace_free(tr);
}

/* The copy and memset variants PyTorch and NCCL use on CUDA 13: each
 * recorded, touching its buffers. */
static void test_copy_variants(void)
{
	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/copies.trace", dir);
	struct recorder *r;
	struct recorder_opts o = { .record_from_start = 1, .hold_ns = 0 };
	CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open recorder (copies)");
	struct select sel;
	select_parse(&sel, NULL, NULL, err, sizeof(err));
	backend_host_reset();
	struct translate *t = translate_new(r, &sel, &backend_host);
	malloc_(t, DEV(1), 1 << 20);
	malloc_(t, DEV(2), 1 << 20);
	CUstream st = (CUstream)(uintptr_t)0x40;
	CUDA_MEMCPY2D c2;
	memset(&c2, 0, sizeof(c2));
	c2.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	c2.srcDevice = DEV(2);
	c2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c2.dstDevice = DEV(1);
	c2.WidthInBytes = 64;
	c2.Height = 4;
	cuMemcpy2DAsync_v2_params p2 = { &c2, st };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2, &p2, &ok_ret,
	     "cuMemcpy2DAsync_v2", NULL, 0);
	cuMemcpyPeerAsync_params pp = { DEV(1), NULL, DEV(2), NULL, 128, st };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync, &pp, &ok_ret,
	     "cuMemcpyPeerAsync", NULL, 0);
	cuMemcpyHtoDAsync_v2_params ph = { DEV(1), (const void *)(uintptr_t)0x30000000ull, 32, st };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, &ph, &ok_ret,
	     "cuMemcpyHtoDAsync_v2_ptsz", NULL, 0);
	cuMemcpyDtoHAsync_v2_params pd = { (void *)(uintptr_t)0x30000000ull, DEV(2), 32, st };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz, &pd, &ok_ret,
	     "cuMemcpyDtoHAsync_v2_ptsz", NULL, 0);
	cuMemcpyDtoDAsync_v2_params pdd = { DEV(1), DEV(2), 32, st };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz, &pdd, &ok_ret,
	     "cuMemcpyDtoDAsync_v2_ptsz", NULL, 0);
	CUdeviceptr dsts[2] = { DEV(1), DEV(1) + 64 }, srcs[2] = { DEV(2), DEV(2) + 64 };
	size_t sizes[2] = { 64, 64 };
	cuMemcpyBatchAsync_params pb;
	memset(&pb, 0, sizeof(pb));
	pb.dsts = dsts;
	pb.srcs = srcs;
	pb.sizes = sizes;
	pb.count = 2;
	pb.hStream = st;
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync, &pb, &ok_ret,
	     "cuMemcpyBatchAsync", NULL, 0);
	cuMemsetD16Async_params ps = { DEV(2), 0, 100, st };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async, &ps, &ok_ret,
	     "cuMemsetD16Async", NULL, 0);
	translate_free(t);
	CHECK(recorder_close(r, 1, NULL, err, sizeof(err)) == 0, "close recorder (copies)");
	struct trace *tr = load(path);
	if (!tr)
		return;
	const struct trace_event *e = find_event(tr, TRACE_EV_COPY, "cuMemcpy2DAsync_v2", 0);
	CHECK(e && e->bytes == 256 && e->aux == TRACE_COPY_D2D && touches(tr, e, DEV(1)) &&
		      touches(tr, e, DEV(2)) && e->stream == 0x40,
	      "cuMemcpy2DAsync_v2: a D2D copy of width x height bytes on its stream");
	e = find_event(tr, TRACE_EV_COPY, "cuMemcpyPeerAsync", 0);
	CHECK(e && e->bytes == 128 && touches(tr, e, DEV(1)) && touches(tr, e, DEV(2)),
	      "cuMemcpyPeerAsync");
	e = find_event(tr, TRACE_EV_COPY, "cuMemcpyHtoDAsync_v2_ptsz", 0);
	const struct trace_event *e2 = find_event(tr, TRACE_EV_COPY, "cuMemcpyDtoHAsync_v2_ptsz", 0);
	const struct trace_event *e3 = find_event(tr, TRACE_EV_COPY, "cuMemcpyDtoDAsync_v2_ptsz", 0);
	CHECK(e && e->aux == TRACE_COPY_H2D && e2 && e2->aux == TRACE_COPY_D2H && e3 &&
		      e3->aux == TRACE_COPY_D2D,
	      "the per-thread-stream async copies");
	CHECK(count_events(tr, TRACE_EV_COPY, "cuMemcpyBatchAsync") == 2,
	      "cuMemcpyBatchAsync: one copy per element");
	e = find_event(tr, TRACE_EV_MEMSET, "cuMemsetD16Async", 0);
	CHECK(e && e->bytes == 200 && touches(tr, e, DEV(2)), "cuMemsetD16Async: 2 bytes each");
	trace_free(tr);
}

static void deliver(void *arg, const void *rec)
{
	translate_activity(arg, rec);
}

/*
 * The end of a capture: the GPU is waited for on every context seen before
 * the forced flush, so records of work still running at the range end
 * arrive complete (the host backend models CUPTI: a flush before the work
 * finished gives start = end = 0 and loses the times); dropped records are
 * counted into the trace's meta.
 */
static void test_finish_gpu(void)
{
	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/finish.trace", dir);
	struct recorder *r;
	struct recorder_opts o = { .record_from_start = 1, .hold_ns = 60000000000ll };
	CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open recorder (finish)");
	struct select sel;
	select_parse(&sel, NULL, NULL, err, sizeof(err));
	backend_host_reset();
	struct translate *t = translate_new(r, &sel, &backend_host);
	backend_host_set_sink(deliver, t);
	void *ctx1 = (void *)(uintptr_t)0xc1, *ctx2 = (void *)(uintptr_t)0xc2;
	struct argscan_param none[1] = { { 0, 0 } };
	backend_host_set_params(BACKEND_RUNTIME_STUB, kernel_stub, none, 0);
	cudaLaunchKernel_v7000_params lk;
	memset(&lk, 0, sizeof(lk));
	lk.func = kernel_stub;
	for (int i = 0; i < 2; i++) {
		CUpti_CallbackData e = cb(1, &lk, NULL, "cudaLaunchKernel", "tail_kernel", 700 + i);
		e.context = i ? ctx2 : ctx1;
		translate_api(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &e);
		CUpti_CallbackData x = cb(0, &lk, &ok_ret, "cudaLaunchKernel", "tail_kernel", 700 + i);
		x.context = e.context;
		translate_api(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &x);
		CUpti_ActivityKernel10 run, done;
		memset(&run, 0, sizeof(run));
		run.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		run.correlationId = 700 + (uint32_t)i;
		done = run;
		done.start = 20000 + 1000 * (uint64_t)i;
		done.end = 20500 + 1000 * (uint64_t)i;
		backend_host_submit(e.context, &run, &done, sizeof(run));
	}
	backend_host_set_dropped(3);
	int unsynced = -1;
	uint64_t dropped = translate_finish_gpu(t, &unsynced);
	CHECK(backend_host_syncs(ctx1) == 1 && backend_host_syncs(ctx2) == 1 && unsynced == 0,
	      "finish waits for the GPU once on each context seen");
	CHECK(dropped == 3, "finish reports the records CUPTI dropped");
	translate_free(t);
	CHECK(recorder_close(r, 1, NULL, err, sizeof(err)) == 0, "close recorder (finish)");
	struct trace *tr = load(path);
	const struct trace_event *k0 = tr ? find_event(tr, TRACE_EV_KERNEL, "tail_kernel", 0) : NULL;
	const struct trace_event *k1 = tr ? find_event(tr, TRACE_EV_KERNEL, "tail_kernel", 1) : NULL;
	CHECK(k0 && k1 && k0->t_start == 20000 && k1->t_end == 21500,
	      "kernels still running at the range end get their times");
	const char *d = tr ? trace_get_meta(tr, "capture.dropped_records") : NULL;
	CHECK(d && strcmp(d, "3") == 0, "meta capture.dropped_records");
	trace_free(tr);
	backend_host_reset();
}

/* The library enables exactly the ids it decodes. */
static void test_callback_ids(void)
{
	CUpti_CallbackId ids[1024];
	size_t n = translate_callbacks(RT, ids, 1024);
	int launch = 0, launch13 = 0, undecoded = 0;
	for (size_t i = 0; i < n && i < 1024; i++) {
		launch += ids[i] == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
		launch13 += ids[i] == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000;
		undecoded += ids[i] == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020;
	}
	CHECK(n > 10 && n < 200 && launch && launch13 && !undecoded,
	      "runtime ids to enable: the decoded ones only");
	n = translate_callbacks(DRV, ids, 1024);
	int drv = 0;
	for (size_t i = 0; i < n && i < 1024; i++)
		drv += ids[i] == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
		       ids[i] == CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async;
	CHECK(drv == 2 && n < 200, "driver ids to enable include launches and memsets");
}

static void nvtx_push(struct translate *t, const char *name)
{
	nvtxRangePushA_params push = { name };
	CUpti_NvtxData nd = { "nvtxRangePushA", &push, NULL };
	translate_nvtx(t, CUPTI_CBID_NVTX_nvtxRangePushA, &nd);
}

static void nvtx_pop(struct translate *t)
{
	CUpti_NvtxData pd = { "nvtxRangePop", NULL, NULL };
	translate_nvtx(t, CUPTI_CBID_NVTX_nvtxRangePop, &pd);
}

static void malloc_(struct translate *t, uint64_t addr, size_t size)
{
	void *p = (void *)(uintptr_t)addr;
	cudaMalloc_v3020_params m = { &p, size };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &m, &ok_ret, "cudaMalloc", NULL, 0);
}

static void free_(struct translate *t, uint64_t addr)
{
	cudaFree_v3020_params f = { (void *)(uintptr_t)addr };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &f, &ok_ret, "cudaFree", NULL, 0);
}

/* Runs three 'step' iterations selecting iteration/range; returns the
 * trace (NULL if it did not load). */
static struct trace *run_steps(const char *file, const char *iteration,
			       const char *range, int profiler)
{
	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	struct recorder *r;
	struct recorder_opts o = { 0 };
	if (recorder_open(&r, path, &o, err, sizeof(err)))
		return NULL;
	struct select sel;
	if (select_parse(&sel, iteration, range, err, sizeof(err)))
		return NULL;
	struct translate *t = translate_new(r, &sel, &backend_host);
	malloc_(t, DEV(1), 1000); /* weights */
	for (int i = 0; i < 3; i++) {
		if (profiler)
			call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, NULL, &ok_ret,
			     "cudaProfilerStart", NULL, 0);
		else
			nvtx_push(t, "step");
		nvtx_push(t, "forward");
		malloc_(t, DEV(2 + i), 100 * (i + 1)); /* activation */
		nvtx_pop(t);
		free_(t, DEV(2 + i));
		if (profiler)
			call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000, NULL, &ok_ret,
			     "cudaProfilerStop", NULL, 0);
		else
			nvtx_pop(t);
	}
	translate_free(t);
	recorder_close(r, 1, NULL, err, sizeof(err));
	return load(path);
}

static void test_selection(void)
{
	struct trace *tr = run_steps("step2.trace", "2", "step", 0);
	CHECK(tr != NULL, "iteration 2 of NVTX range 'step' loads");
	if (!tr)
		return;
	CHECK(tr->nbuffers == 2 && trace_buffer_persistent(&tr->buffers[0]) &&
		      tr->buffers[1].size == 200 && !trace_buffer_persistent(&tr->buffers[1]),
	      "weights live at the start are persistent; only the second step's activation is transient");
	CHECK(tr->events[0].type == TRACE_EV_MARK && tr->events[0].aux == TRACE_MARK_BEGIN &&
		      strcmp(tr->events[0].name, "step") == 0 &&
		      tr->events[tr->nevents - 1].aux == TRACE_MARK_END,
	      "the trace runs from the range's begin to its end");
	CHECK(find_event(tr, TRACE_EV_MARK, "forward", 0) != NULL, "nested ranges are kept as marks");
	CHECK(strcmp(trace_get_meta(tr, "capture.found"), "1") == 0 &&
		      strcmp(trace_get_meta(tr, "capture.occurrences"), "2") == 0,
	      "meta: found, and the occurrences counted until recording stopped");
	trace_free(tr);

	tr = run_steps("nope.trace", "1", "nope", 0);
	CHECK(tr && strcmp(trace_get_meta(tr, "capture.found"), "0") == 0 && tr->nevents == 0,
	      "a range that never occurs: nothing recorded, found = 0");
	trace_free(tr);

	tr = run_steps("prof.trace", "3", SELECT_PROFILER, 1);
	CHECK(tr && tr->nbuffers == 2 && tr->buffers[1].size == 300 &&
		      strcmp(trace_get_meta(tr, "capture.found"), "1") == 0,
	      "'@profiler' selects the third cudaProfilerStart/Stop range");
	trace_free(tr);
}

static void test_marker(void)
{
	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/marker.trace", dir);
	struct recorder *r;
	struct recorder_opts o = { 0 };
	CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open (marker)");
	struct select sel;
	select_parse(&sel, "2", NULL, err, sizeof(err));
	struct translate *t = translate_new(r, &sel, &backend_host);
	for (int i = 0; i < 3; i++) {
		translate_marker(t, MEMPLAN_MARK_BEGIN, "iteration");
		malloc_(t, DEV(2 + i), 10 * (i + 1));
		free_(t, DEV(2 + i));
		translate_marker(t, MEMPLAN_MARK_END, "iteration");
	}
	translate_free(t);
	recorder_close(r, 1, NULL, err, sizeof(err));
	struct trace *tr = load(path);
	CHECK(tr && tr->nbuffers == 1 && tr->buffers[0].size == 20,
	      "marker API calls select the second iteration");
	trace_free(tr);
}

static const void *no_export_table(uint32_t id)
{
	(void)id;
	return NULL;
}

/* The library exports its entry points and nothing else. */
static void test_exports(void)
{
	if (access(MEMPLAN_CAPTURE_SO, R_OK) != 0) {
		printf("ok %d - # SKIP %s not built\n", ++tap_n, MEMPLAN_CAPTURE_SO);
		return;
	}
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "nm -D --defined-only '%s' | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sort",
		 MEMPLAN_CAPTURE_SO);
	FILE *f = popen(cmd, "r");
	char line[256], got[1024] = "";
	while (f && fgets(line, sizeof(line), f))
		strncat(got, line, sizeof(got) - strlen(got) - 1);
	if (f)
		pclose(f);
	static const char want[] =
		"InitializeInjection\nInitializeInjectionNvtx2\nmemplan_capture_mark\n";
	CHECK(strcmp(got, want) == 0,
	      "libmemplan-capture.so exports only InitializeInjection, InitializeInjectionNvtx2 "
	      "and memplan_capture_mark");
	if (strcmp(got, want) != 0)
		printf("#   exported: %s\n", got);

	/* marker.h: a no-op without the library, reaches it once CUDA has
	 * loaded it (privately, as CUDA does) */
	unsetenv("CUDA_INJECTION64_PATH");
	CHECK(memplan_mark_iteration_begin() == 0, "marker.h is a no-op without memplan");
	setenv("CUDA_INJECTION64_PATH", MEMPLAN_CAPTURE_SO, 1);
	CHECK(memplan_mark_iteration_begin() == 0, "and while the library is not loaded yet");
	void *h = dlopen(MEMPLAN_CAPTURE_SO, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "the injection library loads without a GPU or driver");
	if (!h)
		printf("#   %s\n", dlerror());
	CHECK(h && memplan_mark_iteration_begin() == 1 && memplan_mark_iteration_end() == 1,
	      "marker.h reaches memplan_capture_mark in a privately loaded library");
	/* NVTX's entry forwards to the libcupti the library is bound to (by
	 * soname: the program's own copy when it has one), which takes it */
	void *sym = h ? dlsym(h, "InitializeInjectionNvtx2") : NULL;
	int (*nvtx_init)(const void *(*)(uint32_t));
	memcpy(&nvtx_init, &sym, sizeof(sym));
	void *cupti = dlopen("libcupti.so.13", RTLD_LAZY | RTLD_NOLOAD);
	if (!cupti)
		cupti = dlopen("libcupti.so", RTLD_LAZY | RTLD_NOLOAD);
	void *their = cupti ? dlsym(cupti, "InitializeInjectionNvtx2") : NULL;
	Dl_info in;
	CHECK(sym && dladdr(sym, &in) && in.dli_fname && strstr(in.dli_fname, "libmemplan-capture"),
	      "InitializeInjectionNvtx2 is the capture library's own (not libcupti's through it)");
	CHECK(nvtx_init && their && sym != their && nvtx_init(no_export_table) == 1,
	      "and reaches the loaded libcupti's, which accepts NVTX");
	if (cupti)
		dlclose(cupti);
	unsetenv("CUDA_INJECTION64_PATH");
}

/*
 * NVTX's entry when a libcupti sits in the global scope before the capture
 * library (a program that linked or dlopen'ed it RTLD_GLOBAL): the
 * library's references to cuptiSubscribe and InitializeInjectionNvtx2 both
 * bind to it, and the forwarder must still call that libcupti's entry and
 * hand its answer back (NVTX turns every call into a no-op for good on 0).
 * In a child: the stand-in must come before anything loaded the library.
 */
static void test_nvtx_global_cupti(void)
{
	if (access(MEMPLAN_CAPTURE_SO, R_OK) != 0) {
		printf("ok %d - # SKIP %s not built\n", ++tap_n, MEMPLAN_CAPTURE_SO);
		return;
	}
	char sdir[128], cmd[1024], lib[192];
	snprintf(sdir, sizeof(sdir), "%s/gcupti", dir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s && cd %s && "
		 "printf 'int standin_nvtx_calls;\\n"
		 "int cuptiSubscribe(void *s, void *cb, void *ud){(void)s;(void)cb;(void)ud; return 0;}\\n"
		 "int InitializeInjectionNvtx2(const void *(*f)(unsigned)){(void)f; standin_nvtx_calls++; return 1;}\\n' > c.c && "
		 "${CC:-cc} -shared -fPIC -o libcupti-global.so c.c",
		 sdir, sdir);
	if (system(cmd) != 0) {
		tap_skip("NVTX with a global libcupti", "the C compiler could not build the stand-in");
		return;
	}
	snprintf(lib, sizeof(lib), "%s/libcupti-global.so", sdir);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		void *c = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
		void *h = c ? dlopen(MEMPLAN_CAPTURE_SO, RTLD_LAZY | RTLD_LOCAL) : NULL;
		void *sym = h ? dlsym(h, "InitializeInjectionNvtx2") : NULL;
		void *calls = c ? dlsym(c, "standin_nvtx_calls") : NULL;
		if (!sym || !calls)
			_exit(3);
		int (*nvtx_init)(const void *(*)(uint32_t));
		memcpy(&nvtx_init, &sym, sizeof(sym));
		int rc = nvtx_init(no_export_table);
		_exit(rc == 1 && *(int *)calls == 1 ? 0 : 1);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "with a libcupti in the global scope, NVTX's entry reaches it and returns its 1");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		printf("#   child status %d\n", st);
}

static void memory_record(struct translate *t, uint32_t corr, uint64_t addr,
			  uint64_t bytes, const char *source)
{
	CUpti_ActivityMemory4 m;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
	m.correlationId = corr;
	m.address = addr;
	m.bytes = bytes;
	m.timestamp = 5000;
	m.source = source;
	translate_activity(t, (const CUpti_Activity *)&m);
}

static const struct trace_buffer *buffer_at(const struct trace *tr, uint64_t addr)
{
	for (size_t i = 0; tr && i < tr->nbuffers; i++)
		if (tr->buffers[i].addr == addr)
			return &tr->buffers[i];
	return NULL;
}

/*
 * Whether an allocation reaches the runtime is decided per entry point and
 * per object together: a pinned host allocation bypasses it whoever asked
 * (the runtime does not interpose cudaMallocHost), a cuMemAlloc_v2 by an
 * object that names only cuMemAlloc_v2 reaches it.  Sources join by
 * address when the record carries the nested driver call's id, are kept
 * for allocations made before the range, and a bare file name is the
 * loaded object's.
 */
static void test_source_joins(void)
{
	char sdir[128], cmd[1024];
	snprintf(sdir, sizeof(sdir), "%s/joins", dir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s && cd %s && "
		 "printf 'extern int cudaMalloc(void **, unsigned long);\\nint f(void){void *p; return cudaMalloc(&p, 1);}\\n' > a.c && "
		 "printf 'extern int cuMemAlloc_v2(unsigned long long *, unsigned long);\\nint g(void){unsigned long long p; return cuMemAlloc_v2(&p, 1);}\\n' > d.c && "
		 "printf 'int h(void){return 0;}\\n' > s.c && "
		 "${CC:-cc} -shared -fPIC -o libtrainer.so a.c && "
		 "${CC:-cc} -shared -fPIC -Wl,--unresolved-symbols=ignore-all -o libdrvonly.so d.c && "
		 "${CC:-cc} -shared -fPIC -o libstaticrt.so s.c",
		 sdir, sdir);
	if (system(cmd) != 0) {
		tap_skip("allocation verdicts per entry point", "the C compiler could not build the fixtures");
		return;
	}
	char trainer[192], drvonly[192], staticrt[192];
	snprintf(trainer, sizeof(trainer), "%s/libtrainer.so", sdir);
	snprintf(drvonly, sizeof(drvonly), "%s/libdrvonly.so", sdir);
	snprintf(staticrt, sizeof(staticrt), "%s/libstaticrt.so", sdir);
	/* loaded, so that its bare name resolves to it */
	void *sh = dlopen(staticrt, RTLD_NOW | RTLD_LOCAL);

	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/joins.trace", dir);
	struct recorder *r;
	struct recorder_opts o = { .hold_ns = 60000000000ll };
	CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open recorder (joins)");
	struct select sel;
	select_parse(&sel, NULL, "step", err, sizeof(err));
	backend_host_reset();
	struct translate *t = translate_new(r, &sel, &backend_host);

	/* before the range: a static-cudart library's workspace, whose
	 * source comes before the range begins */
	void *pre = (void *)(uintptr_t)DEV(20);
	cudaMalloc_v3020_params mp = { &pre, 8192 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &mp, &ok_ret, "cudaMalloc", NULL, 300);
	memory_record(t, 300, DEV(20), 8192, staticrt);
	translate_marker(t, 1, "step");
	/* a pinned host allocation by an object that reaches the runtime */
	void *host = (void *)(uintptr_t)0x50000000ull;
	cudaMallocHost_v3020_params hp = { &host, 4096 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, &hp, &ok_ret,
	     "cudaMallocHost", NULL, 310);
	memory_record(t, 310, 0x50000000ull, 4096, trainer);
	/* cuMemAlloc_v2 by an object that names only cuMemAlloc_v2 */
	cuMemAlloc_v2_params dp = { (CUdeviceptr[]){ DEV(21) }, 4096 };
	call(t, DRV, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &dp, &ok_ret, "cuMemAlloc_v2", NULL, 320);
	memory_record(t, 320, DEV(21), 4096, drvonly);
	/* cudaMalloc with the nested driver call's id in its record, by a
	 * static-cudart library named by its file name alone */
	void *nd = (void *)(uintptr_t)DEV(22);
	cudaMalloc_v3020_params np = { &nd, 4096 };
	cuMemAlloc_v2_params ndp = { (CUdeviceptr[]){ DEV(22) }, 4096 };
	nested(t, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &np, "cudaMalloc", 330,
	       CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &ndp, "cuMemAlloc_v2", 331, NULL);
	memory_record(t, 331, DEV(22), 4096, "libstaticrt.so");
	/* and a plain cudaMalloc by the trainer */
	void *pl = (void *)(uintptr_t)DEV(23);
	cudaMalloc_v3020_params pp = { &pl, 4096 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &pp, &ok_ret, "cudaMalloc", NULL, 340);
	memory_record(t, 340, DEV(23), 4096, trainer);
	/* an address freed and handed out again before the first one's
	 * record comes: the record is the first allocation's, not the live one's */
	void *x = (void *)(uintptr_t)DEV(24);
	cudaMalloc_v3020_params xp = { &x, 4096 };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &xp, &ok_ret, "cudaMalloc", NULL, 350);
	cudaFree_v3020_params xf = { x };
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &xf, &ok_ret, "cudaFree", NULL, 351);
	call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &xp, &ok_ret, "cudaMalloc", NULL, 360);
	memory_record(t, 350, DEV(24), 4096, staticrt);
	memory_record(t, 360, DEV(24), 4096, trainer);
	translate_marker(t, 2, "step");
	translate_free(t);
	CHECK(recorder_close(r, 1, NULL, err, sizeof(err)) == 0, "close recorder (joins)");
	if (sh)
		dlclose(sh);
	struct trace *tr = load(path);
	CHECK(tr != NULL, "the trace with sources loads");
	const struct trace_buffer *b = buffer_at(tr, 0x50000000ull);
	CHECK(b && b->bypass && b->kind == TRACE_KIND_HOST,
	      "a pinned host allocation bypasses the runtime, though its object reaches it");
	b = buffer_at(tr, DEV(21));
	CHECK(b && !b->bypass && b->source && strcmp(b->source, drvonly) == 0,
	      "cuMemAlloc_v2 by an object naming only cuMemAlloc_v2 reaches the runtime");
	b = buffer_at(tr, DEV(22));
	CHECK(b && b->bypass && b->source && strstr(b->source, "/libstaticrt.so"),
	      "a record with the nested driver call's id joins by address; a bare name is "
	      "resolved to the loaded object, which bypasses");
	b = buffer_at(tr, DEV(20));
	CHECK(b && trace_buffer_persistent(b) && b->bypass && b->source &&
		      strcmp(b->source, staticrt) == 0,
	      "a source that came before the range stays with its allocation");
	b = buffer_at(tr, DEV(23));
	CHECK(b && !b->bypass && b->source && strcmp(b->source, trainer) == 0,
	      "a cudaMalloc by the shared cudart's caller reaches the runtime");
	const struct trace_buffer *first = NULL, *second = NULL;
	for (size_t i = 0; tr && i < tr->nbuffers; i++)
		if (tr->buffers[i].addr == DEV(24))
			*(first ? &second : &first) = &tr->buffers[i];
	CHECK(first && second && first->bypass && !second->bypass && second->source &&
		      strcmp(second->source, trainer) == 0,
	      "a late record of a freed allocation goes to it, not to the one now at its address");
	int requests = 0;
	for (size_t i = 0; tr && i < tr->nevents; i++)
		requests += trace_event_request(tr, &tr->events[i]);
	CHECK(requests == 3, "the request clock counts only the allocations the runtime sees");
	trace_free(tr);
}

/*
 * CUPTI's allocation source (CUpti_ActivityMemory4.source): an allocation
 * by an object with its own static cudart is recorded as bypassing the
 * runtime, one by the shared cudart's caller is not; whether the source
 * comes while the allocation waits for its time (hold) or after it was
 * written (no hold).
 */
static void test_allocation_source(void)
{
	char sdir[128], cmd[1024];
	snprintf(sdir, sizeof(sdir), "%s/src", dir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s && cd %s && "
		 "printf 'extern int cudaMalloc(void **, unsigned long);\\nint f(void){void *p; return cudaMalloc(&p, 1);}\\n' > a.c && "
		 "printf '__attribute__((visibility(\"hidden\"))) int cudaMalloc(void **p, unsigned long n){(void)n; *p = 0; return 0;}\\nint g(void){void *p; return cudaMalloc(&p, 1);}\\n' > b.c && "
		 "${CC:-cc} -shared -fPIC -o libtrainer.so a.c && ${CC:-cc} -shared -fPIC -o libcublasLt.so b.c",
		 sdir, sdir);
	if (system(cmd) != 0) {
		tap_skip("allocation sources", "the C compiler could not build the fixtures");
		return;
	}
	char shared_src[192], static_src[192];
	snprintf(shared_src, sizeof(shared_src), "%s/libtrainer.so", sdir);
	snprintf(static_src, sizeof(static_src), "%s/libcublasLt.so", sdir);
	for (int hold = 0; hold < 2; hold++) {
		char path[128], err[512];
		snprintf(path, sizeof(path), "%s/source%d.trace", dir, hold);
		struct recorder *r;
		struct recorder_opts o = { .record_from_start = 1,
					   .hold_ns = hold ? 60000000000ll : 0 };
		CHECK(recorder_open(&r, path, &o, err, sizeof(err)) == 0, "open recorder");
		struct select sel;
		select_parse(&sel, NULL, NULL, err, sizeof(err));
		backend_host_reset();
		struct translate *t = translate_new(r, &sel, &backend_host);
		void *p[3] = { (void *)(uintptr_t)DEV(1), (void *)(uintptr_t)DEV(2),
			       (void *)(uintptr_t)DEV(3) };
		for (int i = 0; i < 3; i++) {
			cudaMalloc_v3020_params m = { &p[i], 4096u << i };
			call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &m, &ok_ret,
			     "cudaMalloc", NULL, (uint32_t)(100 + i));
		}
		for (int i = 0; i < 3; i++) {
			cudaFree_v3020_params fr = { p[i] };
			call(t, RT, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &fr, &ok_ret,
			     "cudaFree", NULL, (uint32_t)(200 + i));
		}
		if (!hold)
			usleep(20000); /* let the writer write them untimed */
		const char *srcs[3] = { shared_src, static_src, NULL };
		for (int i = 0; i < 3; i++) {
			CUpti_ActivityMemory4 m;
			memset(&m, 0, sizeof(m));
			m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
			m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
			m.correlationId = (uint32_t)(100 + i);
			m.address = DEV(1 + i);
			m.bytes = 4096u << i;
			m.timestamp = 1000u + (uint64_t)i;
			m.source = srcs[i];
			translate_activity(t, (const CUpti_Activity *)&m);
		}
		translate_free(t);
		struct recorder_stats st;
		CHECK(recorder_close(r, 1, &st, err, sizeof(err)) == 0, "close recorder");
		struct trace *tr = load(path);
		CHECK(tr && tr->nbuffers == 3, "three buffers");
		if (!tr)
			continue;
		const char *what = hold ? "(source while the allocation waits)"
					: "(source after the allocation was written)";
		char m0[160], m1[160], m2[160];
		snprintf(m0, sizeof(m0), "an allocation by the shared cudart's caller reaches the runtime %s", what);
		snprintf(m1, sizeof(m1), "an allocation by a static-cudart library bypasses it, and is not poolable %s", what);
		snprintf(m2, sizeof(m2), "an allocation with no source stays as it was %s", what);
		CHECK(tr->buffers[0].source && strcmp(tr->buffers[0].source, shared_src) == 0 &&
			      !tr->buffers[0].bypass, m0);
		CHECK(tr->buffers[1].source && strcmp(tr->buffers[1].source, static_src) == 0 &&
			      tr->buffers[1].bypass && !trace_buffer_poolable(&tr->buffers[1]), m1);
		CHECK(!tr->buffers[2].source && !tr->buffers[2].bypass &&
			      trace_buffer_poolable(&tr->buffers[2]), m2);
		CHECK_EQ_U64(st.bypassing, 1, "the recorder counts one bypassing allocation");
		trace_free(tr);
	}
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/memplan-tr.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_nvtx_global_cupti();
	test_whole_run();
	test_allocation_source();
	test_source_joins();
	test_cuda13_shapes();
	test_callback_ids();
	test_copy_variants();
	test_finish_gpu();
	test_selection();
	test_marker();
	test_exports();
	backend_host_reset();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
#endif
