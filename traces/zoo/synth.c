/* SPDX-License-Identifier: MIT */
/*
 * synth.c - the synthetic zoo's engine: a model's forward pass, written as a
 * graph of ops (zoo_cnn.c, zoo_transformer.c), becomes one training
 * iteration as PyTorch would run it: H2D copy of the batch, forward, loss,
 * autograd backward in reverse order, optimizer step.  Used by
 * `memplan-trace synth` and the tests; the trace it returns is finished.
 *
 * Design note.  Lifetimes follow PyTorch's reference counting:
 *  - a forward result is freed after its last forward use unless an op saved
 *    it for backward; saved storages are freed after the backward of the
 *    last (in backward order) op that saved them;
 *  - views and in-place results share the storage of their base;
 *  - a gradient lives from the backward kernel that makes it until the
 *    backward of the op that produced its tensor; ops whose backward is the
 *    identity (add, cat, views) hand the same gradient storage on, and a
 *    second contribution is summed in place when nobody else holds it;
 *  - parameter .grad is made by the first backward kernel that writes it
 *    (AccumulateGrad steals that tensor) and stays live at the end of the
 *    iteration: optimizer.zero_grad(set_to_none=True), PyTorch 2.x's
 *    default, frees it at the next iteration's start, outside this trace.
 *    So gradients are persistent (no free), allocated in backward;
 *  - weights, BN running stats and optimizer state are persistent with no
 *    events (live at start and end); the optimizer step is one fused kernel
 *    per parameter (torch.optim fused=True style, no foreach temporaries).
 * Sizes: "size" is the requested bytes, "rounded" the size rounded up to
 * 512 bytes, the granularity of PyTorch's CUDA caching allocator
 * (kMinBlockSize, c10/cuda/CUDACachingAllocator.cpp).
 * Mixed precision (fp16, bf16) is AMP-style: fp32 master weights, grads and
 * optimizer state; autocast makes one 16-bit copy of each weight a matmul or
 * conv uses (saved for backward by that op), activations are 16-bit
 * throughout (norms included), and the loss (log_softmax) runs in fp32.
 * Attention is the eager kind (scores, softmax and dropout are s^2 tensors);
 * no flash attention.
 */
#include "synth_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Devices, from the vendors' datasheets (dense, i.e. without sparsity):
 *  - H200 SXM: NVIDIA H200 Tensor Core GPU datasheet (2024): FP32 67 TF,
 *    BF16/FP16 tensor 1,979 TF with sparsity = 989 TF dense, 4.8 TB/s,
 *    141 GB HBM3e.
 *  - H100 SXM5: NVIDIA H100 Tensor Core GPU datasheet: FP32 67 TF,
 *    BF16/FP16 tensor 989 TF dense, 3.35 TB/s, 80 GB HBM3.
 *  - A100 SXM4 80GB: NVIDIA A100 datasheet: FP32 19.5 TF, BF16/FP16 tensor
 *    312 TF dense, 2,039 GB/s, 80 GB HBM2e.
 *  - V100 SXM2 32GB: NVIDIA V100 datasheet: FP32 15.7 TF, FP16 tensor
 *    125 TF, 900 GB/s, 32 GB HBM2.  Volta has no bf16: bf16 on v100 is
 *    refused with TRACE_EINVAL rather than silently emulated.
 * fp32 uses the fp32 peak everywhere (PyTorch's default leaves TF32 off for
 * matmuls).  cuBLAS workspace: PyTorch keeps one per handle, 32 MiB on
 * Hopper (cuBLAS's recommendation for sm90) and 4 MiB before; it is
 * allocated once and persistent.
 */
struct synth_device {
	const char *name, *full;
	double fp32_tflops, fp16_tflops, bf16_tflops; /* 0: unsupported */
	double bw_gbs, mem_gib;
	uint64_t cublas_ws;
};

static const struct synth_device devices[] = {
	{ "h200", "NVIDIA H200 SXM 141GB", 67.0, 989.0, 989.0, 4800.0, 141.0,
	  32u << 20 },
	{ "h100", "NVIDIA H100 SXM5 80GB", 67.0, 989.0, 989.0, 3350.0, 80.0,
	  32u << 20 },
	{ "a100", "NVIDIA A100 SXM4 80GB", 19.5, 312.0, 312.0, 2039.0, 80.0,
	  4u << 20 },
	{ "v100", "NVIDIA V100 SXM2 32GB", 15.7, 125.0, 0.0, 900.0, 32.0,
	  4u << 20 },
};
#define NDEVICES (sizeof(devices) / sizeof(devices[0]))

#define LAUNCH_NS 3000          /* per kernel launch overhead */
#define ALLOC_ROUND 512u

struct synth_model {
	const char *name, *about;
	int (*build)(struct synth_graph *g);
	unsigned default_seq;       /* 0: not a transformer */
	const char *default_opt;
	unsigned max_depth;         /* 0: no cut-down versions */
};

static const struct synth_model models[] = {
	{ "alexnet", "AlexNet (torchvision), 224x224, 61.1M params",
	  synth_zoo_alexnet, 0, "sgd", 0 },
	{ "vgg16", "VGG-16 (torchvision), 224x224, 138.4M params",
	  synth_zoo_vgg16, 0, "sgd", 0 },
	{ "resnet18", "ResNet-18 (torchvision), 224x224, 11.7M params",
	  synth_zoo_resnet18, 0, "sgd", 2 },
	{ "resnet50", "ResNet-50 v1.5 (torchvision), 224x224, 25.6M params",
	  synth_zoo_resnet50, 0, "sgd", 6 },
	{ "inception_v3",
	  "Inception-v3 (torchvision) with AuxLogits, 299x299, 27.2M params",
	  synth_zoo_inception_v3, 0, "sgd", 0 },
	{ "bert-base",
	  "BERT-base MLM (HF BertForMaskedLM, tied decoder), seq 128, 109.5M params",
	  synth_zoo_bert_base, 128, "adam", 12 },
	{ "gpt2", "GPT-2 124M (HF GPT2LMHeadModel, tied), seq 1024, 124.4M params",
	  synth_zoo_gpt2, 1024, "adam", 12 },
};
#define NMODELS (sizeof(models) / sizeof(models[0]))

/* --- graph building ---------------------------------------------------- */

static int gfail(struct synth_graph *g, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int gfail(struct synth_graph *g, int code, const char *fmt, ...)
{
	if (g->err)
		return -1;
	g->err = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->msg, sizeof(g->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int grow(struct synth_graph *g, void **arr, size_t *cap, size_t n,
		size_t elem)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	void *p = realloc(*arr, nc * elem);
	if (!p)
		return gfail(g, TRACE_ENOMEM, "out of memory building the model graph");
	*arr = p;
	*cap = nc;
	return 0;
}

#define GROW(g, a) \
	grow((g), (void **)&(g)->a, &(g)->cap##a, (g)->n##a, sizeof(*(g)->a))

const char *synth_name(struct synth_graph *g, const char *fmt, ...)
{
	char buf[256];
	if (g->err)
		return NULL; /* a NULL argument may come from the failed call */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	const char *s = trace_intern(g->t, buf);
	if (!s)
		gfail(g, TRACE_ENOMEM, "out of memory interning '%s'", buf);
	return s;
}

static uint64_t tensor_numel(const struct synth_tensor *x)
{
	uint64_t n = 1;
	for (int i = 0; i < x->ndim; i++)
		n *= (uint64_t)x->dims[i];
	return n;
}

static uint64_t tensor_bytes(const struct synth_tensor *x)
{
	return tensor_numel(x) * x->elem;
}

static int new_storage(struct synth_graph *g, uint64_t bytes,
		       const char *label)
{
	if (GROW(g, stor) < 0)
		return -1;
	struct synth_storage *s = &g->stor[g->nstor];
	memset(s, 0, sizeof(*s));
	s->bytes = bytes ? bytes : 1;
	s->label = label;
	s->buf = -1;
	s->last_fwd = -1;
	return (int)g->nstor++;
}

/* A new tensor; storage < 0 makes a fresh storage of its size. */
static int new_tensor(struct synth_graph *g, const char *label, int ndim,
		      const int64_t *dims, unsigned elem, int storage)
{
	if (g->err)
		return -1;
	if (ndim < 1 || ndim > 4)
		return gfail(g, TRACE_EINVAL, "tensor '%s' has %d dimensions",
			     label ? label : "?", ndim);
	if (GROW(g, ten) < 0)
		return -1;
	struct synth_tensor *x = &g->ten[g->nten];
	memset(x, 0, sizeof(*x));
	x->ndim = ndim;
	for (int i = 0; i < ndim; i++) {
		if (dims[i] <= 0)
			return gfail(g, TRACE_EINVAL,
				     "tensor '%s' has an empty dimension %d (input too small for the model)",
				     label ? label : "?", i);
		x->dims[i] = dims[i];
	}
	x->elem = elem;
	x->label = label;
	x->grad = x->cast = x->pgrad = -1;
	if (storage < 0) {
		storage = new_storage(g, tensor_bytes(x), label);
		if (storage < 0)
			return -1;
	}
	x->storage = storage;
	return (int)g->nten++;
}

static int valid(struct synth_graph *g, int x)
{
	if (g->err)
		return 0;
	if (x < 0 || (size_t)x >= g->nten) {
		gfail(g, TRACE_EINVAL, "internal error: bad tensor id %d", x);
		return 0;
	}
	return 1;
}

static struct synth_node *node_new(struct synth_graph *g, const char *kname,
				   const char *name)
{
	if (g->err || GROW(g, node) < 0)
		return NULL;
	struct synth_node *n = &g->node[g->nnode++];
	memset(n, 0, sizeof(*n));
	n->kname = kname;
	n->name = name;
	return n;
}

static void node_in(struct synth_node *n, int x)
{
	if (n->nin < SYNTH_MAXIN)
		n->in[n->nin++] = x;
}

static void node_save(struct synth_node *n, int x)
{
	if (n->nsaved < SYNTH_MAXSAVE)
		n->saved[n->nsaved++] = x;
}

static void node_bk(struct synth_node *n, const char *kname, uint64_t flops,
		    unsigned wmask, uint64_t ws, int tc)
{
	if (n->nbk < SYNTH_MAXBK)
		n->bk[n->nbk++] = (struct synth_bk){ kname, flops, wmask, ws, 0,
						     (uint8_t)tc };
}

/* The last backward kernel added reads only the saved tensors in rmask
 * (a matmul's data grad needs the weight, its weight grad the input). */
static void node_bk_reads(struct synth_node *n, unsigned rmask)
{
	if (n->nbk > 0)
		n->bk[n->nbk - 1].rmask = rmask;
}

/* Whether any input of n requires grad. */
static int node_rg(const struct synth_graph *g, const struct synth_node *n)
{
	for (int i = 0; i < n->nin; i++)
		if (g->ten[n->in[i]].requires_grad)
			return 1;
	return 0;
}

/*
 * Adds an output to n.  share >= 0: the output aliases that tensor's storage
 * (view or in-place).  grad_able 0: never differentiable (indices, masks,
 * statistics).  Returns the tensor id or -1.
 */
static int node_out(struct synth_graph *g, struct synth_node *n,
		    const char *suffix, int ndim, const int64_t *dims,
		    unsigned elem, int share, int grad_able)
{
	if (!n || n->nout >= SYNTH_MAXOUT)
		return gfail(g, TRACE_EINVAL, "internal error: too many outputs");
	const char *label = synth_name(g, "%s.%s", n->name, suffix);
	int st = share >= 0 ? g->ten[share].storage : -1;
	int y = new_tensor(g, label, ndim, dims, elem, st);
	if (y < 0)
		return -1;
	g->ten[y].requires_grad = grad_able && node_rg(g, n);
	n->out[n->nout++] = y;
	return y;
}

/* Autograd saves nothing for an op none of whose inputs needs grad. */
static void node_end(struct synth_graph *g, struct synth_node *n)
{
	if (n && !node_rg(g, n)) {
		n->nsaved = 0;
		n->nbk = 0;
		n->alias = 0;
	}
}

static int act_elem(const struct synth_graph *g)
{
	return (int)g->elem;
}

int synth_add_input(struct synth_graph *g, const char *label, int ndim,
		    const int64_t *dims, unsigned elem)
{
	struct synth_node *n = node_new(g, "h2d", label);
	if (!n)
		return -1;
	n->h2d = 1;
	int x = new_tensor(g, label, ndim, dims, elem, -1);
	if (x < 0)
		return -1;
	n->out[n->nout++] = x;
	g->stor[g->ten[x].storage].role = TRACE_ROLE_INPUT;
	return x;
}

static int add_persistent(struct synth_graph *g, int x, uint8_t role)
{
	struct synth_storage *s = &g->stor[g->ten[x].storage];
	s->persistent = 1;
	s->role = role;
	struct trace_buffer b = { 0 };
	b.size = s->bytes;
	b.rounded = (s->bytes + ALLOC_ROUND - 1) / ALLOC_ROUND * ALLOC_ROUND;
	b.align = TRACE_ALIGN_TORCH;
	b.fixed_offset = TRACE_NONE;
	b.stream = 0;
	b.kind = TRACE_KIND_DEVICE;
	b.role = role;
	b.label = s->label;
	int64_t id = trace_add_buffer(g->t, &b);
	if (id < 0)
		return gfail(g, TRACE_ENOMEM, "out of memory adding buffer '%s'",
			     s->label);
	s->buf = id;
	s->live = 1;
	return x;
}

int synth_add_param(struct synth_graph *g, const char *label, int ndim,
		    const int64_t *dims)
{
	int x = new_tensor(g, label, ndim, dims, 4, -1);
	if (x < 0 || GROW(g, params) < 0)
		return -1;
	g->ten[x].is_param = 1;
	g->ten[x].requires_grad = 1;
	g->params[g->nparams++] = x;
	g->param_elems += tensor_numel(&g->ten[x]);
	return add_persistent(g, x, TRACE_ROLE_WEIGHT);
}

int synth_add_state(struct synth_graph *g, const char *label, int ndim,
		    const int64_t *dims, unsigned elem)
{
	int x = new_tensor(g, label, ndim, dims, elem, -1);
	if (x < 0)
		return -1;
	return add_persistent(g, x, TRACE_ROLE_WEIGHT);
}

int synth_use_param(struct synth_graph *g, int p)
{
	if (!valid(g, p))
		return -1;
	if (g->elem == 4 || !g->ten[p].is_param)
		return p;
	if (g->ten[p].cast >= 0)
		return g->ten[p].cast;
	struct synth_tensor *t = &g->ten[p];
	struct synth_node *n = node_new(g, "to_copy", t->label);
	if (!n)
		return -1;
	node_in(n, p);
	int64_t dims[4];
	memcpy(dims, g->ten[p].dims, sizeof(dims));
	int y = node_out(g, n, synth_dtype_name(g->dtype), g->ten[p].ndim,
			 dims, 2, -1, 1);
	if (y < 0)
		return -1;
	node_bk(n, "to_copy_bwd", 0, 1u, 0, 0);
	g->ten[p].cast = y;
	return y;
}

void synth_set_loss(struct synth_graph *g, int loss)
{
	if (!valid(g, loss))
		return;
	g->loss = loss;
	g->stor[g->ten[loss].storage].keep = 1;
}

/* --- ops --------------------------------------------------------------- */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* cuDNN workspace assumed for a non-1x1 convolution: the size of its output,
 * capped at 64 MiB (the order the heuristics' implicit-GEMM and tiled-FFT
 * algorithms ask for at these shapes); 1x1 convolutions need none. */
static uint64_t conv_ws(uint64_t out_bytes, int kh, int kw)
{
	return kh * kw > 1 ? min_u64(out_bytes, 64u << 20) : 0;
}

int synth_op_conv2d(struct synth_graph *g, const char *name, int x,
		    int cout, int kh, int kw, int sh, int sw, int ph, int pw,
		    int bias)
{
	if (!valid(g, x))
		return -1;
	const struct synth_tensor *xt = &g->ten[x];
	if (xt->ndim != 4)
		return gfail(g, TRACE_EINVAL, "conv2d '%s' needs an NCHW input",
			     name);
	int64_t nb = xt->dims[0], cin = xt->dims[1];
	int64_t ho = (xt->dims[2] + 2 * ph - kh) / sh + 1;
	int64_t wo = (xt->dims[3] + 2 * pw - kw) / sw + 1;
	int64_t wd[4] = { cout, cin, kh, kw }, bd[1] = { cout };
	int w = synth_add_param(g, synth_name(g, "%s.weight", name), 4, wd);
	int b = bias ? synth_add_param(g, synth_name(g, "%s.bias", name), 1, bd)
		     : -1;
	int wu = synth_use_param(g, w);
	int bu = bias ? synth_use_param(g, b) : -1;
	struct synth_node *n = node_new(g, "conv2d_fwd", name);
	if (!n)
		return -1;
	node_in(n, x);
	node_in(n, wu);
	if (bias)
		node_in(n, bu);
	int64_t od[4] = { nb, cout, ho, wo };
	int y = node_out(g, n, "out", 4, od, (unsigned)act_elem(g), -1, 1);
	if (y < 0)
		return -1;
	uint64_t fl = 2ull * (uint64_t)(nb * cout * ho * wo) *
		      (uint64_t)(cin * kh * kw);
	n->flops = fl;
	n->tc = 1;
	n->ws = conv_ws(tensor_bytes(&g->ten[y]), kh, kw);
	node_save(n, x);
	node_save(n, wu);
	node_bk(n, "conv2d_bwd_data", fl, 1u, n->ws, 1);
	node_bk_reads(n, 2u);
	node_bk(n, "conv2d_bwd_weight", fl, bias ? 6u : 2u, n->ws, 1);
	node_bk_reads(n, 1u);
	node_end(g, n);
	return y;
}

int synth_op_batchnorm(struct synth_graph *g, const char *name, int x)
{
	if (!valid(g, x))
		return -1;
	int64_t c[1] = { g->ten[x].dims[1] };
	int w = synth_add_param(g, synth_name(g, "%s.weight", name), 1, c);
	int b = synth_add_param(g, synth_name(g, "%s.bias", name), 1, c);
	int rm = synth_add_state(g, synth_name(g, "%s.running_mean", name), 1,
				 c, 4);
	int rv = synth_add_state(g, synth_name(g, "%s.running_var", name), 1,
				 c, 4);
	struct synth_node *n = node_new(g, "batch_norm_fwd", name);
	if (!n)
		return -1;
	node_in(n, x);
	node_in(n, w);
	node_in(n, b);
	node_in(n, rm);
	node_in(n, rv);
	n->rwmask = (1u << 3) | (1u << 4);
	const struct synth_tensor *xt = &g->ten[x];
	int64_t d[4];
	memcpy(d, xt->dims, sizeof(d));
	int y = node_out(g, n, "out", xt->ndim, d, xt->elem, -1, 1);
	int sm = node_out(g, n, "save_mean", 1, c, 4, -1, 0);
	int si = node_out(g, n, "save_invstd", 1, c, 4, -1, 0);
	if (y < 0 || sm < 0 || si < 0)
		return -1;
	n->flops = 8 * tensor_numel(&g->ten[x]);
	node_save(n, x);
	node_save(n, w);
	node_save(n, sm);
	node_save(n, si);
	node_bk(n, "batch_norm_bwd", 12 * tensor_numel(&g->ten[x]), 7u, 0, 0);
	node_end(g, n);
	return y;
}

/* An elementwise op with one output shaped like its input. */
static int unary(struct synth_graph *g, const char *kname, const char *name,
		 int x, int inplace, uint64_t flops_per, const char *bkname,
		 int save_in, int save_out)
{
	if (!valid(g, x))
		return -1;
	struct synth_node *n = node_new(g, kname, name);
	if (!n)
		return -1;
	node_in(n, x);
	const struct synth_tensor *xt = &g->ten[x];
	int64_t d[4];
	memcpy(d, xt->dims, sizeof(d));
	int y = node_out(g, n, "out", xt->ndim, d, xt->elem, inplace ? x : -1,
			 1);
	if (y < 0)
		return -1;
	n->inplace = (uint8_t)inplace;
	n->flops = flops_per * tensor_numel(&g->ten[y]);
	if (save_in)
		node_save(n, x);
	if (save_out)
		node_save(n, y);
	if (bkname)
		node_bk(n, bkname, n->flops, 1u, 0, 0);
	else
		n->alias = 1u;
	node_end(g, n);
	return y;
}

int synth_op_relu(struct synth_graph *g, const char *name, int x, int inplace)
{
	return unary(g, inplace ? "relu_" : "relu", name, x, inplace, 1,
		     "threshold_bwd", 0, 1);
}

int synth_op_gelu(struct synth_graph *g, const char *name, int x)
{
	return unary(g, "gelu_fwd", name, x, 0, 8, "gelu_bwd", 1, 0);
}

int synth_op_softmax(struct synth_graph *g, const char *name, int x)
{
	return unary(g, "softmax_fwd", name, x, 0, 5, "softmax_bwd", 0, 1);
}

int synth_op_scale(struct synth_graph *g, const char *name, int x)
{
	return unary(g, "div", name, x, 0, 1, "div_bwd", 0, 0);
}

static int pool(struct synth_graph *g, const char *kname, const char *bkname,
		const char *name, int x, int64_t ho, int64_t wo, int indices,
		uint64_t window)
{
	const struct synth_tensor *xt = &g->ten[x];
	if (xt->ndim != 4)
		return gfail(g, TRACE_EINVAL, "pool '%s' needs an NCHW input",
			     name);
	struct synth_node *n = node_new(g, kname, name);
	if (!n)
		return -1;
	node_in(n, x);
	int64_t d[4] = { xt->dims[0], xt->dims[1], ho, wo };
	int y = node_out(g, n, "out", 4, d, xt->elem, -1, 1);
	if (y < 0)
		return -1;
	n->flops = window * tensor_numel(&g->ten[y]);
	node_save(n, x);
	if (indices) {
		int ix = node_out(g, n, "indices", 4, d, 8, -1, 0);
		if (ix < 0)
			return -1;
		node_save(n, ix);
	}
	node_bk(n, bkname, n->flops, 1u, 0, 0);
	node_end(g, n);
	return y;
}

int synth_op_maxpool(struct synth_graph *g, const char *name, int x, int k,
		     int stride, int pad)
{
	if (!valid(g, x))
		return -1;
	const struct synth_tensor *xt = &g->ten[x];
	int64_t ho = (xt->dims[2] + 2 * pad - k) / stride + 1;
	int64_t wo = (xt->dims[3] + 2 * pad - k) / stride + 1;
	return pool(g, "max_pool2d_with_indices_fwd", "max_pool2d_bwd", name,
		    x, ho, wo, 1, (uint64_t)(k * k));
}

int synth_op_avgpool(struct synth_graph *g, const char *name, int x, int k,
		     int stride, int pad)
{
	if (!valid(g, x))
		return -1;
	const struct synth_tensor *xt = &g->ten[x];
	int64_t ho = (xt->dims[2] + 2 * pad - k) / stride + 1;
	int64_t wo = (xt->dims[3] + 2 * pad - k) / stride + 1;
	return pool(g, "avg_pool2d_fwd", "avg_pool2d_bwd", name, x, ho, wo, 0,
		    (uint64_t)(k * k));
}

int synth_op_adaptive_avgpool(struct synth_graph *g, const char *name, int x,
			      int oh, int ow)
{
	if (!valid(g, x))
		return -1;
	const struct synth_tensor *xt = &g->ten[x];
	uint64_t win = (uint64_t)((xt->dims[2] + oh - 1) / oh *
				  ((xt->dims[3] + ow - 1) / ow));
	return pool(g, "adaptive_avg_pool2d_fwd", "adaptive_avg_pool2d_bwd",
		    name, x, oh, ow, 0, win);
}

int synth_op_view(struct synth_graph *g, const char *name, int x, int ndim,
		  const int64_t *dims)
{
	if (!valid(g, x))
		return -1;
	struct synth_node *n = node_new(g, NULL, name);
	if (!n)
		return -1;
	n->view = 1;
	node_in(n, x);
	int y = node_out(g, n, "out", ndim, dims, g->ten[x].elem, x, 1);
	if (y < 0)
		return -1;
	if (tensor_numel(&g->ten[y]) != tensor_numel(&g->ten[x]))
		return gfail(g, TRACE_EINVAL,
			     "internal error: view '%s' changes the size", name);
	n->alias = 1u;
	node_end(g, n);
	return y;
}

int synth_op_flatten(struct synth_graph *g, const char *name, int x)
{
	if (!valid(g, x))
		return -1;
	const struct synth_tensor *xt = &g->ten[x];
	int64_t d[2] = { xt->dims[0], (int64_t)(tensor_numel(xt) /
						 (uint64_t)xt->dims[0]) };
	return synth_op_view(g, name, x, 2, d);
}

int synth_op_split(struct synth_graph *g, const char *name, int x, int n_out,
		   int ndim, const int64_t *dims, int *outs)
{
	if (!valid(g, x))
		return -1;
	if (n_out < 1 || n_out > SYNTH_MAXOUT)
		return gfail(g, TRACE_EINVAL, "internal error: split '%s'", name);
	struct synth_node *n = node_new(g, NULL, name);
	if (!n)
		return -1;
	n->view = 1;
	node_in(n, x);
	static const char *const parts[] = { "0", "1", "2" };
	for (int i = 0; i < n_out; i++) {
		outs[i] = node_out(g, n, parts[i], ndim, dims, g->ten[x].elem,
				   x, 1);
		if (outs[i] < 0)
			return -1;
	}
	/* split's backward concatenates the pieces' grads into a new tensor */
	node_bk(n, "cat_bwd", 0, 1u, 0, 0);
	node_end(g, n);
	return 0;
}

int synth_op_copy(struct synth_graph *g, const char *name, int x, int ndim,
		  const int64_t *dims)
{
	if (!valid(g, x))
		return -1;
	struct synth_node *n = node_new(g, "contiguous", name);
	if (!n)
		return -1;
	node_in(n, x);
	int y = node_out(g, n, "out", ndim, dims, g->ten[x].elem, -1, 1);
	if (y < 0)
		return -1;
	/* permute().contiguous(): backward hands a permuted view of the grad */
	n->alias = 1u;
	node_end(g, n);
	return y;
}

int synth_op_cat(struct synth_graph *g, const char *name, int nx,
		 const int *xs)
{
	if (nx < 1 || nx > SYNTH_MAXIN)
		return gfail(g, TRACE_EINVAL, "internal error: cat '%s'", name);
	int64_t c = 0;
	for (int i = 0; i < nx; i++) {
		if (!valid(g, xs[i]))
			return -1;
		c += g->ten[xs[i]].dims[1];
	}
	struct synth_node *n = node_new(g, "cat", name);
	if (!n)
		return -1;
	for (int i = 0; i < nx; i++)
		node_in(n, xs[i]);
	int64_t d[4];
	memcpy(d, g->ten[xs[0]].dims, sizeof(d));
	d[1] = c;
	int y = node_out(g, n, "out", g->ten[xs[0]].ndim, d,
			 g->ten[xs[0]].elem, -1, 1);
	if (y < 0)
		return -1;
	/* cat's backward returns narrow() views of the grad */
	n->alias = (1u << nx) - 1;
	node_end(g, n);
	return y;
}

int synth_op_dropout(struct synth_graph *g, const char *name, int x)
{
	if (!valid(g, x))
		return -1;
	struct synth_node *n = node_new(g, "native_dropout", name);
	if (!n)
		return -1;
	node_in(n, x);
	const struct synth_tensor *xt = &g->ten[x];
	int64_t d[4];
	memcpy(d, xt->dims, sizeof(d));
	int y = node_out(g, n, "out", xt->ndim, d, xt->elem, -1, 1);
	int m = node_out(g, n, "mask", xt->ndim, d, 1, -1, 0);
	if (y < 0 || m < 0)
		return -1;
	n->flops = 2 * tensor_numel(&g->ten[y]);
	node_save(n, m);
	node_bk(n, "native_dropout_bwd", n->flops, 1u, 0, 0);
	node_end(g, n);
	return y;
}

int synth_op_linear_w(struct synth_graph *g, const char *name, int x, int w,
		      int b)
{
	if (!valid(g, x) || !valid(g, w) || (b >= 0 && !valid(g, b)))
		return -1;
	const struct synth_tensor *xt = &g->ten[x];
	int64_t k = xt->dims[xt->ndim - 1], nout = g->ten[w].dims[0];
	if (g->ten[w].dims[1] != k)
		return gfail(g, TRACE_EINVAL,
			     "internal error: linear '%s' shapes disagree", name);
	int wu = synth_use_param(g, w);
	int bu = b >= 0 ? synth_use_param(g, b) : -1;
	struct synth_node *n = node_new(g, b >= 0 ? "addmm" : "mm", name);
	if (!n)
		return -1;
	node_in(n, x);
	node_in(n, wu);
	if (b >= 0)
		node_in(n, bu);
	xt = &g->ten[x]; /* synth_use_param may have moved the table */
	int64_t d[4];
	memcpy(d, xt->dims, sizeof(d));
	d[xt->ndim - 1] = nout;
	int y = node_out(g, n, "out", xt->ndim, d, (unsigned)act_elem(g), -1,
			 1);
	if (y < 0)
		return -1;
	uint64_t m = tensor_numel(&g->ten[x]) / (uint64_t)k;
	uint64_t fl = 2 * m * (uint64_t)k * (uint64_t)nout;
	n->flops = fl;
	n->tc = n->blas = 1;
	node_save(n, x);
	node_save(n, wu);
	node_bk(n, "mm_bwd_data", fl, 1u, 0, 1);
	node_bk_reads(n, 2u);
	node_bk(n, "mm_bwd_weight", fl, b >= 0 ? 6u : 2u, 0, 1);
	node_bk_reads(n, 1u);
	node_end(g, n);
	return y;
}

int synth_op_linear(struct synth_graph *g, const char *name, int x,
		    int64_t nout, int bias)
{
	if (!valid(g, x))
		return -1;
	const struct synth_tensor *xt = &g->ten[x];
	int64_t wd[2] = { nout, xt->dims[xt->ndim - 1] }, bd[1] = { nout };
	int w = synth_add_param(g, synth_name(g, "%s.weight", name), 2, wd);
	int b = bias ? synth_add_param(g, synth_name(g, "%s.bias", name), 1, bd)
		     : -1;
	return synth_op_linear_w(g, name, x, w, b);
}

int synth_op_add(struct synth_graph *g, const char *name, int a, int b,
		 int inplace)
{
	if (!valid(g, a) || !valid(g, b))
		return -1;
	struct synth_node *n = node_new(g, inplace ? "add_" : "add", name);
	if (!n)
		return -1;
	node_in(n, a);
	node_in(n, b);
	const struct synth_tensor *at = &g->ten[a];
	int64_t d[4];
	memcpy(d, at->dims, sizeof(d));
	int y = node_out(g, n, "out", at->ndim, d, at->elem, inplace ? a : -1,
			 1);
	if (y < 0)
		return -1;
	n->inplace = (uint8_t)inplace;
	n->flops = tensor_numel(&g->ten[y]);
	n->alias = 3u;
	node_end(g, n);
	return y;
}

int synth_op_cross_entropy(struct synth_graph *g, const char *name,
			   int logits, int labels)
{
	if (!valid(g, logits) || !valid(g, labels))
		return -1;
	const struct synth_tensor *lt = &g->ten[logits];
	int64_t d[4];
	memcpy(d, lt->dims, sizeof(d));
	int ndim = lt->ndim;
	int x = logits;
	if (lt->elem != 4) {
		/* autocast runs log_softmax/cross_entropy in fp32 */
		struct synth_node *n = node_new(g, "to_copy",
						synth_name(g, "%s.logits", name));
		if (!n)
			return -1;
		node_in(n, logits);
		x = node_out(g, n, "float", ndim, d, 4, -1, 1);
		if (x < 0)
			return -1;
		n->flops = tensor_numel(&g->ten[x]);
		node_bk(n, "to_copy_bwd", 0, 1u, 0, 0);
		node_end(g, n);
	}
	struct synth_node *n = node_new(g, "log_softmax_fwd",
					synth_name(g, "%s.log_softmax", name));
	if (!n)
		return -1;
	node_in(n, x);
	int ls = node_out(g, n, "out", ndim, d, 4, -1, 1);
	if (ls < 0)
		return -1;
	n->flops = 5 * tensor_numel(&g->ten[ls]);
	node_save(n, ls);
	node_bk(n, "log_softmax_bwd", n->flops, 1u, 0, 0);
	node_end(g, n);

	n = node_new(g, "nll_loss_fwd", name);
	if (!n)
		return -1;
	node_in(n, ls);
	node_in(n, labels);
	int64_t one[1] = { 1 };
	int loss = node_out(g, n, "loss", 1, one, 4, -1, 1);
	int tw = node_out(g, n, "total_weight", 1, one, 4, -1, 0);
	if (loss < 0 || tw < 0)
		return -1;
	n->flops = tensor_numel(&g->ten[labels]);
	node_save(n, ls);
	node_save(n, labels);
	node_save(n, tw);
	/* nll_loss_backward writes a zero-filled grad the size of its input */
	node_bk(n, "nll_loss_bwd", n->flops, 1u, 0, 0);
	node_end(g, n);
	return loss;
}

int synth_op_embedding(struct synth_graph *g, const char *name, int ids,
		       int w)
{
	if (!valid(g, ids) || !valid(g, w))
		return -1;
	int wu = synth_use_param(g, w);
	struct synth_node *n = node_new(g, "embedding_fwd", name);
	if (!n)
		return -1;
	node_in(n, ids);
	node_in(n, wu);
	const struct synth_tensor *it = &g->ten[ids];
	int64_t d[4];
	memcpy(d, it->dims, sizeof(d));
	d[it->ndim] = g->ten[w].dims[1];
	int y = node_out(g, n, "out", it->ndim + 1, d, (unsigned)act_elem(g),
			 -1, 1);
	if (y < 0)
		return -1;
	node_save(n, ids);
	/* embedding_dense_backward: a dense grad of the whole table */
	node_bk(n, "embedding_dense_bwd", tensor_numel(&g->ten[y]), 2u, 0, 0);
	node_end(g, n);
	return y;
}

int synth_op_layernorm(struct synth_graph *g, const char *name, int x)
{
	if (!valid(g, x))
		return -1;
	const struct synth_tensor *xt = &g->ten[x];
	int64_t h[1] = { xt->dims[xt->ndim - 1] };
	int w = synth_add_param(g, synth_name(g, "%s.weight", name), 1, h);
	int b = synth_add_param(g, synth_name(g, "%s.bias", name), 1, h);
	struct synth_node *n = node_new(g, "layer_norm_fwd", name);
	if (!n)
		return -1;
	xt = &g->ten[x];
	node_in(n, x);
	node_in(n, w);
	node_in(n, b);
	int64_t d[4], rows[1] = { (int64_t)(tensor_numel(xt) / (uint64_t)h[0]) };
	memcpy(d, xt->dims, sizeof(d));
	int y = node_out(g, n, "out", xt->ndim, d, xt->elem, -1, 1);
	int mean = node_out(g, n, "mean", 1, rows, 4, -1, 0);
	int rstd = node_out(g, n, "rstd", 1, rows, 4, -1, 0);
	if (y < 0 || mean < 0 || rstd < 0)
		return -1;
	n->flops = 8 * tensor_numel(&g->ten[x]);
	node_save(n, x);
	node_save(n, w);
	node_save(n, b);
	node_save(n, mean);
	node_save(n, rstd);
	node_bk(n, "layer_norm_bwd", 12 * tensor_numel(&g->ten[x]), 7u, 0, 0);
	node_end(g, n);
	return y;
}

int synth_op_bmm(struct synth_graph *g, const char *name, int a, int b,
		 int trans_b)
{
	if (!valid(g, a) || !valid(g, b))
		return -1;
	const struct synth_tensor *at = &g->ten[a], *bt = &g->ten[b];
	if (at->ndim != 3 || bt->ndim != 3 || at->dims[0] != bt->dims[0])
		return gfail(g, TRACE_EINVAL,
			     "internal error: bmm '%s' needs 3-d batches", name);
	int64_t k = at->dims[2];
	int64_t kb = trans_b ? bt->dims[2] : bt->dims[1];
	int64_t nn = trans_b ? bt->dims[1] : bt->dims[2];
	if (k != kb)
		return gfail(g, TRACE_EINVAL,
			     "internal error: bmm '%s' shapes disagree", name);
	struct synth_node *n = node_new(g, "bmm", name);
	if (!n)
		return -1;
	node_in(n, a);
	node_in(n, b);
	int64_t d[3] = { at->dims[0], at->dims[1], nn };
	int y = node_out(g, n, "out", 3, d, g->ten[a].elem, -1, 1);
	if (y < 0)
		return -1;
	uint64_t fl = 2ull * (uint64_t)(d[0] * d[1] * d[2]) * (uint64_t)k;
	n->flops = fl;
	n->tc = n->blas = 1;
	node_save(n, a);
	node_save(n, b);
	node_bk(n, "bmm_bwd_a", fl, 1u, 0, 1);
	node_bk_reads(n, 2u);
	node_bk(n, "bmm_bwd_b", fl, 2u, 0, 1);
	node_bk_reads(n, 1u);
	node_end(g, n);
	return y;
}

int synth_op_where(struct synth_graph *g, const char *name, int x, int mask)
{
	if (!valid(g, x) || !valid(g, mask))
		return -1;
	struct synth_node *n = node_new(g, "where", name);
	if (!n)
		return -1;
	node_in(n, mask);
	node_in(n, x);
	const struct synth_tensor *xt = &g->ten[x];
	int64_t d[4];
	memcpy(d, xt->dims, sizeof(d));
	int y = node_out(g, n, "out", xt->ndim, d, xt->elem, -1, 1);
	if (y < 0)
		return -1;
	n->flops = tensor_numel(&g->ten[y]);
	node_save(n, mask);
	node_bk(n, "where_bwd", n->flops, 2u, 0, 0);
	node_end(g, n);
	return y;
}

int synth_op_make(struct synth_graph *g, const char *kname, const char *name,
		  int from, int ndim, const int64_t *dims, unsigned elem)
{
	if (from >= 0 && !valid(g, from))
		return -1;
	struct synth_node *n = node_new(g, kname, name);
	if (!n)
		return -1;
	if (from >= 0)
		node_in(n, from);
	int y = node_out(g, n, "out", ndim, dims, elem, -1, 0);
	if (y < 0)
		return -1;
	n->flops = tensor_numel(&g->ten[y]);
	node_end(g, n);
	return y;
}

/* --- emitting the trace ------------------------------------------------ */

#define MAXACC 32

struct emit {
	struct synth_graph *g;
	const struct synth_device *dev;
	int64_t now;
	int cublas;      /* storage of the cuBLAS workspace, -1 */
	int adam;
	struct {
		int64_t buf;
		uint8_t mode;
	} acc[MAXACC];
	int nacc;
};

static uint64_t round_alloc(uint64_t n)
{
	return (n + ALLOC_ROUND - 1) / ALLOC_ROUND * ALLOC_ROUND;
}

static int emit_event(struct emit *e, uint8_t type, uint8_t aux, int64_t buf,
		      const char *name, uint64_t flops, uint64_t bytes,
		      int64_t dur)
{
	struct synth_graph *g = e->g;
	struct trace_event ev = { 0 };
	ev.seq = trace_next_seq(g->t);
	ev.t_start = e->now;
	ev.t_end = e->now + dur;
	e->now = ev.t_end;
	ev.buffer = buf;
	ev.stream = 0;
	ev.bytes = bytes;
	ev.flops = flops;
	ev.type = type;
	ev.aux = aux;
	ev.name = name;
	if (trace_add_event(g->t, &ev) < 0)
		return gfail(g, TRACE_ENOMEM, "out of memory adding an event");
	return 0;
}

static int emit_mark(struct emit *e, const char *name, uint8_t kind)
{
	return emit_event(e, TRACE_EV_MARK, kind, TRACE_NONE, name, 0, 0, 0);
}

/* Allocates storage st as a new trace buffer with an alloc event. */
static int emit_alloc(struct emit *e, int st, uint8_t role)
{
	struct synth_graph *g = e->g;
	struct synth_storage *s = &g->stor[st];
	if (s->live || s->persistent)
		return 0;
	s->role = role;
	struct trace_buffer b = { 0 };
	b.size = s->bytes;
	b.rounded = round_alloc(s->bytes);
	b.align = TRACE_ALIGN_TORCH;
	b.fixed_offset = TRACE_NONE;
	b.stream = 0;
	b.kind = TRACE_KIND_DEVICE;
	b.role = role;
	b.label = s->label;
	int64_t id = trace_add_buffer(g->t, &b);
	if (id < 0)
		return gfail(g, TRACE_ENOMEM, "out of memory adding buffer '%s'",
			     s->label ? s->label : "?");
	s->buf = id;
	s->live = 1;
	return emit_event(e, TRACE_EV_ALLOC, 0, id, NULL, 0, 0, 0);
}

static int emit_free(struct emit *e, int st)
{
	struct synth_storage *s = &e->g->stor[st];
	if (!s->live || s->persistent || s->nofree)
		return 0;
	s->live = 0;
	return emit_event(e, TRACE_EV_FREE, 0, s->buf, NULL, 0, 0, 0);
}

/* A fresh transient storage, allocated now. */
static int emit_new(struct emit *e, uint64_t bytes, const char *label,
		    uint8_t role)
{
	int st = new_storage(e->g, bytes, label);
	if (st < 0 || emit_alloc(e, st, role) < 0)
		return -1;
	return st;
}

static void acc_put(struct emit *e, int st, uint8_t mode)
{
	int64_t buf = e->g->stor[st].buf;
	for (int i = 0; i < e->nacc; i++) {
		if (e->acc[i].buf == buf) {
			e->acc[i].mode |= mode;
			return;
		}
	}
	if (e->nacc < MAXACC) {
		e->acc[e->nacc].buf = buf;
		e->acc[e->nacc].mode = mode;
		e->nacc++;
	}
}

/* Emits a kernel with the accesses gathered by acc_put(), timed by the
 * roofline of the device. */
static int emit_kernel(struct emit *e, const char *kname, const char *name,
		       uint64_t flops, int tc)
{
	struct synth_graph *g = e->g;
	uint64_t bytes = 0;
	for (int i = 0; i < e->nacc; i++) {
		if (e->cublas >= 0 && e->acc[i].buf == g->stor[e->cublas].buf)
			continue;
		bytes += g->t->buffers[e->acc[i].buf].size;
	}
	double peak = e->dev->fp32_tflops;
	if (tc && g->dtype == SYNTH_FP16)
		peak = e->dev->fp16_tflops;
	else if (tc && g->dtype == SYNTH_BF16)
		peak = e->dev->bf16_tflops;
	double t_fl = (double)flops / (peak * 1e3);      /* ns */
	double t_mem = (double)bytes / e->dev->bw_gbs;   /* ns */
	int64_t dur = (int64_t)(t_fl > t_mem ? t_fl : t_mem) + LAUNCH_NS;
	const char *full = synth_name(g, "%s %s", kname, name ? name : "");
	if (!full || emit_event(e, TRACE_EV_KERNEL, 0, TRACE_NONE, full, flops,
				bytes, dur) < 0)
		return -1;
	for (int i = 0; i < e->nacc; i++)
		if (trace_add_access(g->t, e->acc[i].buf, e->acc[i].mode) < 0)
			return gfail(g, TRACE_ENOMEM,
				     "out of memory adding an access");
	e->nacc = 0;
	return 0;
}

static int emit_h2d(struct emit *e, const struct synth_node *n)
{
	struct synth_graph *g = e->g;
	int st = g->ten[n->out[0]].storage;
	if (emit_alloc(e, st, TRACE_ROLE_INPUT) < 0)
		return -1;
	uint64_t bytes = g->stor[st].bytes;
	/* PCIe-ish 25 GB/s for pinned H2D copies */
	if (emit_event(e, TRACE_EV_COPY, TRACE_COPY_H2D, TRACE_NONE,
		       synth_name(g, "h2d %s", n->name), 0, bytes,
		       (int64_t)(bytes / 25) + LAUNCH_NS) < 0)
		return -1;
	if (trace_add_access(g->t, g->stor[st].buf, TRACE_ACCESS_WRITE) < 0)
		return gfail(g, TRACE_ENOMEM, "out of memory adding an access");
	return 0;
}

static int emit_forward_node(struct emit *e, int i)
{
	struct synth_graph *g = e->g;
	const struct synth_node *n = &g->node[i];
	if (n->h2d)
		return emit_h2d(e, n);
	if (!n->view) {
		for (int j = 0; j < n->nout; j++) {
			int st = g->ten[n->out[j]].storage;
			uint8_t role = g->stor[st].saves0 ? TRACE_ROLE_ACTIVATION
							  : TRACE_ROLE_TEMP;
			if (emit_alloc(e, st, role) < 0)
				return -1;
		}
		int ws = -1;
		if (n->ws) {
			ws = emit_new(e, n->ws, synth_name(g, "%s.workspace",
							   n->name),
				      TRACE_ROLE_WORKSPACE);
			if (ws < 0)
				return -1;
		}
		for (int j = 0; j < n->nin; j++)
			acc_put(e, g->ten[n->in[j]].storage,
				(n->rwmask >> j) & 1 ? TRACE_ACCESS_RW
						     : TRACE_ACCESS_READ);
		for (int j = 0; j < n->nout; j++)
			acc_put(e, g->ten[n->out[j]].storage,
				TRACE_ACCESS_WRITE);
		if (ws >= 0)
			acc_put(e, ws, TRACE_ACCESS_RW);
		if (n->blas && e->cublas >= 0)
			acc_put(e, e->cublas, TRACE_ACCESS_RW);
		if (emit_kernel(e, n->kname, n->name, n->flops, n->tc) < 0)
			return -1;
		if (ws >= 0 && emit_free(e, ws) < 0)
			return -1;
	}
	/* free what this op was the last forward user of, unless saved */
	for (int j = 0; j < n->nin + n->nout; j++) {
		int x = j < n->nin ? n->in[j] : n->out[j - n->nin];
		struct synth_storage *s = &g->stor[g->ten[x].storage];
		if (s->last_fwd == i && s->saves == 0 && !s->keep &&
		    emit_free(e, g->ten[x].storage) < 0)
			return -1;
	}
	return 0;
}

static void unref(struct emit *e, int st)
{
	struct synth_storage *s = &e->g->stor[st];
	if (--s->refs <= 0)
		emit_free(e, st);
}

/* Hands gradient storage st (one reference) to tensor x, summing it into
 * a gradient x already has. */
static int contribute(struct emit *e, int x, int st)
{
	struct synth_graph *g = e->g;
	struct synth_tensor *t = &g->ten[x];
	if (t->grad < 0) {
		t->grad = st;
		return 0;
	}
	int old = t->grad;
	const char *name = synth_name(g, "%s.grad", t->label);
	uint64_t fl = g->stor[old].bytes / t->elem;
	if (g->stor[old].refs == 1) {
		acc_put(e, old, TRACE_ACCESS_RW);
		acc_put(e, st, TRACE_ACCESS_READ);
		if (emit_kernel(e, "add_", name, fl, 0) < 0)
			return -1;
		unref(e, st);
		return 0;
	}
	int sum = emit_new(e, g->stor[old].bytes, name, TRACE_ROLE_TEMP);
	if (sum < 0)
		return -1;
	g->stor[sum].refs = 1;
	acc_put(e, old, TRACE_ACCESS_READ);
	acc_put(e, st, TRACE_ACCESS_READ);
	acc_put(e, sum, TRACE_ACCESS_WRITE);
	if (emit_kernel(e, "add", name, fl, 0) < 0)
		return -1;
	unref(e, old);
	unref(e, st);
	t->grad = sum;
	return 0;
}

static int emit_backward_kernel(struct emit *e, const struct synth_node *n,
				const struct synth_bk *bk, const int *gout)
{
	struct synth_graph *g = e->g;
	int dst[SYNTH_MAXIN], partial[SYNTH_MAXIN], nt = 0;
	int target[SYNTH_MAXIN];
	for (int j = 0; j < n->nin; j++) {
		int x = n->in[j];
		if (!((bk->wmask >> j) & 1) || !g->ten[x].requires_grad)
			continue;
		struct synth_tensor *t = &g->ten[x];
		int st;
		partial[nt] = 0;
		if (t->is_param && t->pgrad < 0) {
			/* AccumulateGrad steals the first grad as .grad */
			st = emit_new(e, tensor_bytes(t),
				      synth_name(g, "%s.grad", t->label),
				      TRACE_ROLE_GRADIENT);
			if (st < 0)
				return -1;
			g->stor[st].nofree = 1;
			t = &g->ten[x];
			t->pgrad = st;
		} else {
			st = emit_new(e, tensor_bytes(t),
				      synth_name(g, t->is_param ? "%s.grad.partial"
								: "%s.grad",
						 t->label),
				      TRACE_ROLE_TEMP);
			if (st < 0)
				return -1;
			g->stor[st].refs = 1;
			partial[nt] = g->ten[x].is_param;
		}
		target[nt] = x;
		dst[nt++] = st;
	}
	if (nt == 0)
		return 0;
	int ws = -1;
	if (bk->ws) {
		ws = emit_new(e, bk->ws,
			      synth_name(g, "%s.bwd.workspace", n->name),
			      TRACE_ROLE_WORKSPACE);
		if (ws < 0)
			return -1;
	}
	for (int j = 0; j < n->nout; j++)
		if (gout[j] >= 0)
			acc_put(e, gout[j], TRACE_ACCESS_READ);
	for (int j = 0; j < n->nsaved; j++)
		if (!bk->rmask || ((bk->rmask >> j) & 1))
			acc_put(e, g->ten[n->saved[j]].storage,
				TRACE_ACCESS_READ);
	for (int j = 0; j < nt; j++)
		acc_put(e, dst[j], TRACE_ACCESS_WRITE);
	if (ws >= 0)
		acc_put(e, ws, TRACE_ACCESS_RW);
	if (n->blas && e->cublas >= 0)
		acc_put(e, e->cublas, TRACE_ACCESS_RW);
	if (emit_kernel(e, bk->kname, n->name, bk->flops, bk->tc) < 0)
		return -1;
	if (ws >= 0 && emit_free(e, ws) < 0)
		return -1;
	for (int j = 0; j < nt; j++) {
		struct synth_tensor *t = &g->ten[target[j]];
		if (t->is_param) {
			if (!partial[j])
				continue;
			acc_put(e, t->pgrad, TRACE_ACCESS_RW);
			acc_put(e, dst[j], TRACE_ACCESS_READ);
			if (emit_kernel(e, "accumulate_grad", t->label,
					tensor_numel(t), 0) < 0)
				return -1;
			unref(e, dst[j]);
		} else if (contribute(e, target[j], dst[j]) < 0) {
			return -1;
		}
	}
	return 0;
}

static int emit_backward_node(struct emit *e, int i)
{
	struct synth_graph *g = e->g;
	const struct synth_node *n = &g->node[i];
	int gout[SYNTH_MAXOUT], any = 0;
	for (int j = 0; j < n->nout; j++) {
		gout[j] = g->ten[n->out[j]].grad;
		any |= gout[j] >= 0;
	}
	if (any) {
		for (int k = 0; k < n->nbk; k++)
			if (emit_backward_kernel(e, n, &n->bk[k], gout) < 0)
				return -1;
		for (int j = 0; j < n->nin && gout[0] >= 0; j++) {
			int x = n->in[j];
			if (!((n->alias >> j) & 1) || !g->ten[x].requires_grad)
				continue;
			g->stor[gout[0]].refs++;
			if (contribute(e, x, gout[0]) < 0)
				return -1;
		}
	}
	for (int j = 0; j < n->nout; j++) {
		if (gout[j] >= 0) {
			g->ten[n->out[j]].grad = -1;
			unref(e, gout[j]);
		}
	}
	for (int j = 0; j < n->nsaved; j++) {
		int st = g->ten[n->saved[j]].storage;
		struct synth_storage *s = &g->stor[st];
		if (s->persistent)
			continue;
		if (--s->saves == 0 && !s->keep && emit_free(e, st) < 0)
			return -1;
	}
	return g->err ? -1 : 0;
}

static int emit_optimizer(struct emit *e)
{
	struct synth_graph *g = e->g;
	for (size_t i = 0; i < g->nparams; i++) {
		int p = g->params[i];
		const struct synth_tensor *t = &g->ten[p];
		if (t->pgrad < 0)
			continue; /* unused parameter: no grad, no step */
		int64_t dims[4];
		int ndim = t->ndim;
		const char *label = t->label;
		memcpy(dims, t->dims, sizeof(dims));
		int s1 = new_tensor(g, synth_name(g, "%s.%s", label,
						  e->adam ? "exp_avg"
							  : "momentum_buffer"),
				    ndim, dims, 4, -1);
		int s2 = e->adam ? new_tensor(g, synth_name(g, "%s.exp_avg_sq",
							   label),
					      ndim, dims, 4, -1)
				 : -1;
		if (s1 < 0 || add_persistent(g, s1, TRACE_ROLE_OPTIMIZER) < 0)
			return -1;
		if (e->adam && add_persistent(g, s2, TRACE_ROLE_OPTIMIZER) < 0)
			return -1;
		t = &g->ten[p];
		acc_put(e, t->pgrad, TRACE_ACCESS_READ);
		acc_put(e, g->ten[s1].storage, TRACE_ACCESS_RW);
		if (e->adam)
			acc_put(e, g->ten[s2].storage, TRACE_ACCESS_RW);
		acc_put(e, t->storage, TRACE_ACCESS_RW);
		if (emit_kernel(e, e->adam ? "adamw_step" : "sgd_momentum_step",
				t->label, (e->adam ? 12 : 4) * tensor_numel(t),
				0) < 0)
			return -1;
	}
	return 0;
}

static int emit_iteration(struct emit *e)
{
	struct synth_graph *g = e->g;
	/* lifetimes: last forward touch and saved-for-backward counts */
	for (size_t i = 0; i < g->nnode; i++) {
		const struct synth_node *n = &g->node[i];
		for (int j = 0; j < n->nin; j++)
			g->stor[g->ten[n->in[j]].storage].last_fwd = (int)i;
		for (int j = 0; j < n->nout; j++)
			g->stor[g->ten[n->out[j]].storage].last_fwd = (int)i;
		for (int j = 0; j < n->nsaved; j++)
			g->stor[g->ten[n->saved[j]].storage].saves++;
	}
	for (size_t i = 0; i < g->nstor; i++)
		g->stor[i].saves0 = g->stor[i].saves;
	if (g->loss < 0)
		return gfail(g, TRACE_EINVAL, "internal error: the model has no loss");

	if (emit_mark(e, "iteration", TRACE_MARK_BEGIN) < 0)
		return -1;
	size_t i = 0;
	for (; i < g->nnode && g->node[i].h2d; i++)
		if (emit_forward_node(e, (int)i) < 0)
			return -1;
	if (emit_mark(e, "forward", TRACE_MARK_BEGIN) < 0)
		return -1;
	for (; i < g->nnode; i++)
		if (emit_forward_node(e, (int)i) < 0)
			return -1;
	if (emit_mark(e, "forward", TRACE_MARK_END) < 0 ||
	    emit_mark(e, "backward", TRACE_MARK_BEGIN) < 0)
		return -1;

	int seed = emit_new(e, 4, synth_name(g, "%s.grad", g->ten[g->loss].label),
			    TRACE_ROLE_TEMP);
	if (seed < 0)
		return -1;
	g->stor[seed].refs = 1;
	acc_put(e, seed, TRACE_ACCESS_WRITE);
	if (emit_kernel(e, "fill_ones", g->stor[seed].label, 1, 0) < 0)
		return -1;
	g->ten[g->loss].grad = seed;
	for (size_t k = g->nnode; k-- > 0;)
		if (emit_backward_node(e, (int)k) < 0)
			return -1;
	for (size_t k = 0; k < g->nstor; k++)
		if (g->stor[k].keep && emit_free(e, (int)k) < 0)
			return -1;
	if (emit_mark(e, "backward", TRACE_MARK_END) < 0 ||
	    emit_mark(e, "optimizer", TRACE_MARK_BEGIN) < 0 ||
	    emit_optimizer(e) < 0 ||
	    emit_mark(e, "optimizer", TRACE_MARK_END) < 0 ||
	    emit_mark(e, "iteration", TRACE_MARK_END) < 0)
		return -1;
	for (size_t k = 0; k < g->nstor; k++) {
		const struct synth_storage *s = &g->stor[k];
		if (s->live && !s->persistent && !s->nofree)
			return gfail(g, TRACE_EINVAL,
				     "internal error: buffer '%s' is still live at the end of the iteration",
				     s->label ? s->label : "?");
	}
	return 0;
}

/* --- public API -------------------------------------------------------- */

static const struct synth_model *find_model(const char *name)
{
	for (size_t i = 0; name && i < NMODELS; i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

static const struct synth_device *find_device(const char *name)
{
	for (size_t i = 0; name && i < NDEVICES; i++)
		if (!strcmp(devices[i].name, name))
			return &devices[i];
	return NULL;
}

static void graph_free(struct synth_graph *g)
{
	free(g->ten);
	free(g->stor);
	free(g->node);
	free(g->params);
}

static int graph_init(struct synth_graph *g, struct trace *t, unsigned batch,
		      unsigned seq, enum synth_dtype dtype)
{
	memset(g, 0, sizeof(*g));
	g->t = t;
	g->batch = batch;
	g->seq = seq;
	g->dtype = dtype;
	g->elem = dtype == SYNTH_FP32 ? 4 : 2;
	g->loss = -1;
	return 0;
}


static int set_meta(struct trace *t, const char *k, const char *v)
{
	return trace_set_meta(t, k, v) < 0 ? TRACE_ENOMEM : 0;
}

int synth_build(const struct synth_opts *o, struct trace **out, char *err,
		size_t errlen)
{
	if (out)
		*out = NULL;
	if (!o || !out)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				"synth_build needs options and an output pointer");
	const struct synth_model *m = find_model(o->model);
	if (!m)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				"unknown model '%s' (try alexnet, vgg16, resnet18, resnet50, inception_v3, bert-base or gpt2)",
				o->model ? o->model : "(null)");
	const struct synth_device *dev = find_device(o->device);
	if (!dev)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				"unknown device '%s' (try h200, h100, a100 or v100)",
				o->device ? o->device : "(null)");
	if (o->batch == 0)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				"batch '0' is invalid: the batch size must be at least 1");
	const char *dname = synth_dtype_name(o->dtype);
	if (!dname)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				"unknown dtype '%d' (try fp32, fp16 or bf16)",
				(int)o->dtype);
	if (o->dtype == SYNTH_BF16 && dev->bf16_tflops <= 0)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				"dtype 'bf16' is not supported on device '%s' (no bf16 tensor cores); use fp16",
				dev->name);
	const char *opt = o->optimizer ? o->optimizer : m->default_opt;
	if (strcmp(opt, "sgd") && strcmp(opt, "adam"))
		return trace_seterr(err, errlen, TRACE_EINVAL,
				"unknown optimizer '%s' (try sgd or adam)", opt);
	unsigned seq = 0;
	if (m->default_seq) {
		seq = o->seq_len ? o->seq_len : m->default_seq;
		unsigned max = !strcmp(m->name, "gpt2") ? 1024 : 512;
		if (seq > max)
			return trace_seterr(err, errlen, TRACE_EINVAL,
					"sequence length '%u' is too long for model '%s' (at most %u positions)",
					seq, m->name, max);
	}
	if (o->depth && o->depth > m->max_depth) {
		if (!m->max_depth)
			return trace_seterr(err, errlen, TRACE_EINVAL,
					"model '%s' has no cut-down versions (depth applies to resnet18, resnet50, bert-base and gpt2)",
					m->name);
		return trace_seterr(err, errlen, TRACE_EINVAL,
				"depth '%u' is too large for model '%s' (at most %u: %s)",
				o->depth, m->name, m->max_depth,
				m->default_seq ? "its layers" : "the blocks of its longest stage");
	}
	if (o->batch > 1u << 20)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				"batch '%u' is too large (at most %u)", o->batch,
				1u << 20);

	struct trace *t = trace_new();
	if (!t)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	struct synth_graph g;
	graph_init(&g, t, o->batch, seq, o->dtype);
	g.depth = o->depth;
	struct emit e = { .g = &g, .dev = dev, .cublas = -1,
			  .adam = !strcmp(opt, "adam") };
	int64_t wsd[1] = { (int64_t)dev->cublas_ws };
	int cw = synth_add_state(&g, "cublas.workspace", 1, wsd, 1);
	if (cw >= 0) {
		e.cublas = g.ten[cw].storage;
		g.stor[e.cublas].role = TRACE_ROLE_WORKSPACE;
		t->buffers[g.stor[e.cublas].buf].role = TRACE_ROLE_WORKSPACE;
	}
	int rc = 0;
	if (!g.err)
		m->build(&g);
	if (!g.err)
		emit_iteration(&e);
	if (g.err) {
		rc = trace_seterr(err, errlen, g.err, "%s", g.msg);
		goto fail;
	}
	char num[32];
	rc = set_meta(t, "source", "synthetic");
	if (!rc)
		rc = set_meta(t, "generator", "memplan-trace synth");
	if (!rc)
		rc = set_meta(t, "model", m->name);
	snprintf(num, sizeof(num), "%u", o->batch);
	if (!rc)
		rc = set_meta(t, "batch", num);
	if (!rc)
		rc = set_meta(t, "dtype", dname);
	if (!rc)
		rc = set_meta(t, "device", dev->full);
	if (!rc)
		rc = set_meta(t, "optimizer", opt);
	if (!rc && seq) {
		snprintf(num, sizeof(num), "%u", seq);
		rc = set_meta(t, "seq_len", num);
	}
	if (!rc && o->depth) {
		snprintf(num, sizeof(num), "%u", o->depth);
		rc = set_meta(t, "depth", num);
	}
	if (rc) {
		trace_seterr(err, errlen, rc, "out of memory setting meta");
		goto fail;
	}
	rc = trace_finish(t, err, errlen);
	if (rc)
		goto fail;
	graph_free(&g);
	*out = t;
	return 0;
fail:
	graph_free(&g);
	trace_free(t);
	return rc;
}

unsigned synth_model_max_depth(const char *model)
{
	const struct synth_model *m = find_model(model);
	return m ? m->max_depth : 0;
}

const char *synth_model_name(size_t i)
{
	return i < NMODELS ? models[i].name : NULL;
}

const char *synth_model_about(size_t i)
{
	return i < NMODELS ? models[i].about : NULL;
}

const char *synth_device_name(size_t i)
{
	return i < NDEVICES ? devices[i].name : NULL;
}

uint64_t synth_param_count(const char *model)
{
	const struct synth_model *m = find_model(model);
	if (!m)
		return 0;
	struct trace *t = trace_new();
	if (!t)
		return 0;
	struct synth_graph g;
	graph_init(&g, t, 1, m->default_seq, SYNTH_FP32);
	m->build(&g);
	uint64_t n = g.err ? 0 : g.param_elems;
	graph_free(&g);
	trace_free(t);
	return n;
}

int synth_dtype_parse(const char *s, enum synth_dtype *out)
{
	static const enum synth_dtype all[] = { SYNTH_FP32, SYNTH_FP16,
						SYNTH_BF16 };
	for (size_t i = 0; s && i < 3; i++) {
		if (!strcmp(s, synth_dtype_name(all[i]))) {
			if (out)
				*out = all[i];
			return 0;
		}
	}
	return -1;
}

const char *synth_dtype_name(enum synth_dtype d)
{
	switch (d) {
	case SYNTH_FP32:
		return "fp32";
	case SYNTH_FP16:
		return "fp16";
	case SYNTH_BF16:
		return "bf16";
	}
	return NULL;
}
