/* SPDX-License-Identifier: MIT */
/*
 * synth_internal.h - the graph the zoo models are written in, shared by
 * synth.c (the engine that turns a graph into a trace) and the zoo_*.c model
 * definitions.  A model only describes its forward pass as ops on tensors;
 * the engine derives lifetimes, backward, and the optimizer step from it.
 *
 * Errors are sticky: the first failing op records a code and a sentence in
 * the graph, later ops return -1 and do nothing, and synth_build() reports
 * the first error.  So model code can chain ops without checking each one.
 */
#ifndef MEMPLAN_SYNTH_INTERNAL_H
#define MEMPLAN_SYNTH_INTERNAL_H

#include "synth.h"

#define SYNTH_MAXIN 8
#define SYNTH_MAXOUT 3
#define SYNTH_MAXSAVE 8
#define SYNTH_MAXBK 3

/* A tensor: one version of a value.  Views and in-place results are new
 * tensors that share their storage with the tensor they came from. */
struct synth_tensor {
	int64_t dims[4];
	int ndim;
	unsigned elem;       /* bytes per element */
	int storage;         /* index into graph.stor */
	int requires_grad;
	int is_param;        /* trainable leaf (fp32 master weight) */
	const char *label;   /* interned in the trace */
	int grad;            /* backward: storage of its gradient, -1 */
	int cast;            /* params: the 16-bit copy made by autocast, -1 */
	int pgrad;           /* params: storage of .grad, -1 until made */
};

/* A storage: one device allocation (one trace buffer once allocated). */
struct synth_storage {
	uint64_t bytes;
	const char *label;
	int64_t buf;         /* trace buffer id, -1 until allocated */
	int last_fwd;        /* last node touching it in forward */
	int saves;           /* saved-for-backward references left */
	int saves0;          /* same, before backward started */
	int refs;            /* backward: tensors whose grad is this storage */
	uint8_t role;        /* enum trace_role, for transients set at alloc */
	uint8_t persistent;  /* live at start and end: no events at all */
	uint8_t nofree;      /* allocated in the iteration, live at its end */
	uint8_t keep;        /* the loss: freed at the end of backward */
	uint8_t live;
};

/* One backward kernel of a node: writes the grads of the inputs in wmask. */
struct synth_bk {
	const char *kname;
	uint64_t flops;
	unsigned wmask;
	uint64_t ws;         /* workspace bytes around the kernel */
	unsigned rmask;      /* saved tensors it reads; 0: all of them */
	uint8_t tc;          /* runs on tensor cores in 16-bit */
};

struct synth_node {
	const char *kname;   /* forward kernel name, NULL for views */
	const char *name;    /* module path, e.g. "layer1.0.conv1" */
	int in[SYNTH_MAXIN], nin;
	int out[SYNTH_MAXOUT], nout;
	int saved[SYNTH_MAXSAVE], nsaved;
	struct synth_bk bk[SYNTH_MAXBK];
	int nbk;
	unsigned alias;      /* inputs whose grad is the grad of out[0] */
	unsigned rwmask;     /* inputs updated in place (running stats) */
	uint64_t flops, ws;
	uint8_t tc;          /* forward on tensor cores in 16-bit */
	uint8_t blas;        /* uses the cuBLAS workspace */
	uint8_t view;        /* no kernel: outputs alias in[0]'s storage */
	uint8_t h2d;         /* host-to-device copy of a leaf input */
	uint8_t inplace;     /* out[0] is in[0]'s storage, updated */
};

struct synth_graph {
	struct trace *t;
	unsigned batch, seq;
	unsigned depth;      /* 0: the whole model; else see synth_opts */
	enum synth_dtype dtype;
	unsigned elem;       /* activation element size: 4 or 2 */
	int err;
	char msg[256];

	struct synth_tensor *ten;
	size_t nten, capten;
	struct synth_storage *stor;
	size_t nstor, capstor;
	struct synth_node *node;
	size_t nnode, capnode;
	int *params;         /* tensor ids of trainable params, in order */
	size_t nparams, capparams;
	uint64_t param_elems;
	int loss;            /* tensor id of the loss, -1 */
};

/* A name "fmt" formatted and interned in the trace; NULL on failure (the
 * graph's error is set). */
const char *synth_name(struct synth_graph *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Leaves. */
int synth_add_input(struct synth_graph *g, const char *label, int ndim,
		    const int64_t *dims, unsigned elem);
int synth_add_param(struct synth_graph *g, const char *label, int ndim,
		    const int64_t *dims);
int synth_add_state(struct synth_graph *g, const char *label, int ndim,
		    const int64_t *dims, unsigned elem);
/* The tensor an op should use for param p: p itself in fp32, else the
 * 16-bit copy autocast makes (once per iteration). */
int synth_use_param(struct synth_graph *g, int p);
void synth_set_loss(struct synth_graph *g, int loss);

/* CNN ops (NCHW). */
int synth_op_conv2d(struct synth_graph *g, const char *name, int x,
		    int cout, int kh, int kw, int sh, int sw, int ph, int pw,
		    int bias);
int synth_op_batchnorm(struct synth_graph *g, const char *name, int x);
int synth_op_relu(struct synth_graph *g, const char *name, int x,
		  int inplace);
int synth_op_maxpool(struct synth_graph *g, const char *name, int x, int k,
		     int stride, int pad);
int synth_op_avgpool(struct synth_graph *g, const char *name, int x, int k,
		     int stride, int pad);
int synth_op_adaptive_avgpool(struct synth_graph *g, const char *name, int x,
			      int oh, int ow);
int synth_op_flatten(struct synth_graph *g, const char *name, int x);
int synth_op_cat(struct synth_graph *g, const char *name, int n,
		 const int *xs);

/* Shared ops. */
int synth_op_dropout(struct synth_graph *g, const char *name, int x);
int synth_op_linear(struct synth_graph *g, const char *name, int x,
		    int64_t nout, int bias);
int synth_op_linear_w(struct synth_graph *g, const char *name, int x, int w,
		      int b);
int synth_op_add(struct synth_graph *g, const char *name, int a, int b,
		 int inplace);
int synth_op_cross_entropy(struct synth_graph *g, const char *name,
			   int logits, int labels);

/* Transformer ops; activations are (B, S, H), attention (B*heads, S, x). */
int synth_op_embedding(struct synth_graph *g, const char *name, int ids,
		       int w);
int synth_op_layernorm(struct synth_graph *g, const char *name, int x);
int synth_op_split(struct synth_graph *g, const char *name, int x, int n,
		   int ndim, const int64_t *dims, int *outs);
int synth_op_view(struct synth_graph *g, const char *name, int x, int ndim,
		  const int64_t *dims);
int synth_op_copy(struct synth_graph *g, const char *name, int x, int ndim,
		  const int64_t *dims);
int synth_op_bmm(struct synth_graph *g, const char *name, int a, int b,
		 int trans_b);
int synth_op_scale(struct synth_graph *g, const char *name, int x);
int synth_op_where(struct synth_graph *g, const char *name, int x, int mask);
int synth_op_softmax(struct synth_graph *g, const char *name, int x);
int synth_op_gelu(struct synth_graph *g, const char *name, int x);
/* A no-grad tensor made on the device from inputs (arange, mask prep). */
int synth_op_make(struct synth_graph *g, const char *kname, const char *name,
		  int from, int ndim, const int64_t *dims, unsigned elem);

/* The zoo. */
int synth_zoo_alexnet(struct synth_graph *g);
int synth_zoo_vgg16(struct synth_graph *g);
int synth_zoo_resnet18(struct synth_graph *g);
int synth_zoo_resnet50(struct synth_graph *g);
int synth_zoo_inception_v3(struct synth_graph *g);
int synth_zoo_bert_base(struct synth_graph *g);
int synth_zoo_gpt2(struct synth_graph *g);

#endif
