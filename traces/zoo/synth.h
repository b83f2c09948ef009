/* SPDX-License-Identifier: MIT */
/*
 * synth.h - the synthetic model zoo: one training iteration (forward, loss,
 * backward, optimizer step) of a published architecture, built as a trace
 * the way a framework would allocate, use and free its tensors, with kernel
 * durations from a roofline of the chosen device.
 */
#ifndef MEMPLAN_SYNTH_H
#define MEMPLAN_SYNTH_H

#include "trace.h"

enum synth_dtype { SYNTH_FP32 = 0, SYNTH_FP16 = 1, SYNTH_BF16 = 2 };

struct synth_opts {
	const char *model;     /* a name from synth_model_name() */
	unsigned batch;        /* > 0 */
	enum synth_dtype dtype;
	const char *device;    /* "h200", "h100", "a100", "v100" */
	unsigned seq_len;      /* transformers; 0 = the model's default */
	const char *optimizer; /* "sgd" (momentum) or "adam"; NULL = model default */
	unsigned depth;        /* a cut-down model: transformer layers, or ResNet
				* blocks per stage at most; 0 = the whole model
				* (synth_model_max_depth() says what a model takes) */
};

/*
 * Builds the iteration described by o into a new finished trace (*out, freed
 * by the caller with trace_free()).  Meta records source = synthetic, the
 * model and every option.  Returns 0, TRACE_EINVAL with a sentence in err for
 * an unknown model, device or optimizer or a zero batch, or TRACE_ENOMEM.
 */
int synth_build(const struct synth_opts *o, struct trace **out, char *err,
		size_t errlen);

/* The zoo: i-th model name and a one-line description; NULL past the end. */
const char *synth_model_name(size_t i);
const char *synth_model_about(size_t i);
/* The largest --depth a model takes (12 layers for the transformers, the
 * longest stage's blocks for the ResNets), 0 when it takes none or is
 * unknown. */
unsigned synth_model_max_depth(const char *model);
/* Devices: i-th name, NULL past the end. */
const char *synth_device_name(size_t i);

/* Trainable parameter count of a model (for tests against the reference
 * counts); 0 if unknown. */
uint64_t synth_param_count(const char *model);

/* Parses "fp32" | "fp16" | "bf16"; 0 or -1. */
int synth_dtype_parse(const char *s, enum synth_dtype *out);
const char *synth_dtype_name(enum synth_dtype d);

#endif
