/* SPDX-License-Identifier: MIT */
/*
 * test_synth.c - unit tests of the synthetic zoo (synth.h): parameter
 * counts against the published models, every model and dtype builds a
 * trace that trace_finish() accepts, lifetimes by role, peaks against the
 * reference estimates, batch scaling, and the error sentences.
 */
#include "synth.h"
#include "tap.h"

#include <stdlib.h>
#include <time.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

static struct trace *build(const char *model, unsigned batch,
			   enum synth_dtype dt, const char *dev, unsigned seq,
			   const char *opt, int *rc, char *err, size_t errlen)
{
	struct synth_opts o = { .model = model, .batch = batch, .dtype = dt,
				.device = dev, .seq_len = seq,
				.optimizer = opt };
	struct trace *t = NULL;
	*rc = synth_build(&o, &t, err, errlen);
	return t;
}

static double peak_gib(const struct trace *t)
{
	return (double)trace_peak(t, TRACE_ALL, NULL) / GIB;
}

static void test_params(void)
{
	static const struct {
		const char *model;
		uint64_t ref;
	} ref[] = {
		{ "alexnet", 61100840 },     { "vgg16", 138357544 },
		{ "resnet50", 25557032 },    { "inception_v3", 27161264 },
		/* HF BertModel (with pooler); our MLM model drops the pooler
		 * and adds the head's transform, LayerNorm and decoder bias */
		{ "bert-base", 109482240 },  { "gpt2", 124439808 },
	};
	for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++) {
		uint64_t n = synth_param_count(ref[i].model);
		double rel = ((double)n - (double)ref[i].ref) / (double)ref[i].ref;
		char what[96];
		snprintf(what, sizeof(what), "%s has %llu params (ref %llu)",
			 ref[i].model, (unsigned long long)n,
			 (unsigned long long)ref[i].ref);
		CHECK(rel > -0.005 && rel < 0.005, what);
	}
	/* the CNNs and GPT-2 are exact */
	CHECK_EQ_U64(synth_param_count("resnet50"), 25557032, "resnet50 exact");
	CHECK_EQ_U64(synth_param_count("resnet18"), 11689512, "resnet18 exact");
	CHECK_EQ_U64(synth_param_count("inception_v3"), 27161264,
		     "inception_v3 exact");
	CHECK_EQ_U64(synth_param_count("gpt2"), 124439808, "gpt2 exact");
	CHECK_EQ_U64(synth_param_count("bert-base"),
		     109482240 - 590592 + 590592 + 1536 + 30522,
		     "bert-base MLM = BertModel - pooler + head");
	CHECK_EQ_U64(synth_param_count("nope"), 0, "unknown model has 0 params");
}

/* Structural checks on a finished trace, one CHECK per property. */
static void check_structure(const struct trace *t, const char *what)
{
	char msg[256];
	size_t bad_role = 0, bad_kernel = 0, bad_size = 0, marks = 0;
	size_t kernels = 0, copies = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		int pers = trace_buffer_persistent(b);
		switch (b->role) {
		case TRACE_ROLE_WEIGHT:
		case TRACE_ROLE_OPTIMIZER:
			bad_role += !(b->alloc_ev == TRACE_NONE &&
				      b->free_ev == TRACE_NONE);
			break;
		case TRACE_ROLE_GRADIENT:
			bad_role += !(pers && b->free_ev == TRACE_NONE);
			break;
		case TRACE_ROLE_ACTIVATION:
		case TRACE_ROLE_TEMP:
		case TRACE_ROLE_INPUT:
			bad_role += pers;
			break;
		default:
			break;
		}
		bad_size += b->rounded < b->size || b->rounded % 512 != 0 ||
			    b->kind != TRACE_KIND_DEVICE || !b->label;
	}
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->type == TRACE_EV_KERNEL) {
			kernels++;
			bad_kernel += e->nacc == 0 || !e->name ||
				      e->t_end <= e->t_start ||
				      (i && e->t_start < t->events[i - 1].t_end);
		}
		copies += e->type == TRACE_EV_COPY && e->aux == TRACE_COPY_H2D;
		marks += e->type == TRACE_EV_MARK;
		if (i && e->seq != t->events[i - 1].seq + 1)
			bad_kernel++;
	}
	/* iteration begin, then the batch: alloc + H2D copy */
	int starts = t->nevents > 3 && t->events[0].type == TRACE_EV_MARK &&
		     t->events[1].type == TRACE_EV_ALLOC &&
		     t->buffers[t->events[1].buffer].role == TRACE_ROLE_INPUT &&
		     t->events[2].type == TRACE_EV_COPY;
	snprintf(msg, sizeof(msg), "%s: the batch is copied in first", what);
	CHECK(starts, msg);
	/* saved activations: born in forward, freed in backward */
	int64_t fwd_end = -1, bwd_end = -1;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (e->type != TRACE_EV_MARK || e->aux != TRACE_MARK_END)
			continue;
		if (!strcmp(e->name, "forward"))
			fwd_end = (int64_t)i;
		if (!strcmp(e->name, "backward"))
			bwd_end = (int64_t)i;
	}
	size_t bad_life = 0;
	for (size_t i = 0; i < t->nbuffers; i++) {
		const struct trace_buffer *b = &t->buffers[i];
		if (b->role == TRACE_ROLE_ACTIVATION)
			bad_life += !(b->alloc_ev < fwd_end &&
				      b->free_ev > fwd_end &&
				      b->free_ev < bwd_end);
		if (b->role == TRACE_ROLE_WORKSPACE &&
		    strcmp(b->label, "cublas.workspace"))
			bad_life += trace_buffer_persistent(b);
	}
	snprintf(msg, sizeof(msg),
		 "%s: activations live forward to backward, workspaces transient",
		 what);
	CHECK(fwd_end > 0 && bwd_end > fwd_end && bad_life == 0, msg);
	snprintf(msg, sizeof(msg), "%s: roles match lifetimes", what);
	CHECK(bad_role == 0, msg);
	snprintf(msg, sizeof(msg), "%s: sizes rounded to 512, device, labels",
		 what);
	CHECK(bad_size == 0, msg);
	snprintf(msg, sizeof(msg),
		 "%s: every kernel has accesses and a serialized time", what);
	CHECK(bad_kernel == 0 && kernels > 0, msg);
	snprintf(msg, sizeof(msg), "%s: H2D copies and 8 marks", what);
	CHECK(copies >= 2 && marks == 8, msg);
}

static void test_all_models(void)
{
	static const enum synth_dtype dts[] = { SYNTH_FP32, SYNTH_FP16,
						SYNTH_BF16 };
	char err[256], what[128];
	for (size_t m = 0; synth_model_name(m); m++) {
		const char *name = synth_model_name(m);
		CHECK(synth_model_about(m) != NULL, "model has a description");
		for (size_t d = 0; d < 3; d++) {
			int rc;
			err[0] = 0;
			/* short sequences keep the test fast */
			struct trace *t = build(name, 2, dts[d], "h100", 64,
						NULL, &rc, err, sizeof(err));
			snprintf(what, sizeof(what), "%s %s builds and finishes",
				 name, synth_dtype_name(dts[d]));
			CHECK(rc == 0 && t && t->finished, what);
			if (rc)
				printf("#   %s\n", err);
			if (!t)
				continue;
			snprintf(what, sizeof(what), "%s %s", name,
				 synth_dtype_name(dts[d]));
			check_structure(t, what);
			CHECK_STR_HAS(trace_get_meta(t, "source"), "synthetic",
				      "meta source");
			CHECK_STR_HAS(trace_get_meta(t, "model"), name,
				      "meta model");
			CHECK_STR_HAS(trace_get_meta(t, "dtype"),
				      synth_dtype_name(dts[d]), "meta dtype");
			CHECK_STR_HAS(trace_get_meta(t, "device"), "H100",
				      "meta device is the full name");
			trace_free(t);
		}
	}
}

/* A model's iteration: peak in GiB against the reference estimate. */
static void check_peak(const char *model, unsigned batch, enum synth_dtype dt,
		       unsigned seq, double ref_gib, double lo, double hi)
{
	char err[256], what[160];
	int rc;
	clock_t c0 = clock();
	struct trace *t = build(model, batch, dt, "h200", seq, NULL, &rc, err,
				sizeof(err));
	double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
	if (!t) {
		CHECK(0, err);
		return;
	}
	double p = peak_gib(t);
	snprintf(what, sizeof(what),
		 "%s b%u %s peak %.3f GiB within [%.2f, %.2f] x est %.3f",
		 model, batch, synth_dtype_name(dt), p, lo, hi, ref_gib);
	CHECK(p >= ref_gib * lo && p <= ref_gib * hi, what);
	printf("#   %s: %zu buffers, %zu events, %zu accesses, %.3f s\n", model,
	       t->nbuffers, t->nevents, t->naccesses, secs);
	snprintf(what, sizeof(what), "%s b%u generates in under a second",
		 model, batch);
	CHECK(secs < 1.0, what);
	trace_free(t);
}

static void test_peaks(void)
{
	/* zoo-reference.md est_peak (GiB); band +-25% */
	check_peak("resnet50", 32, SYNTH_FP32, 0, 2.828, 0.75, 1.25);
	check_peak("vgg16", 32, SYNTH_FP32, 0, 3.714, 0.75, 1.25);
	check_peak("alexnet", 128, SYNTH_FP32, 0, 1.057, 0.75, 1.25);
	check_peak("inception_v3", 32, SYNTH_FP32, 0, 3.256, 0.75, 1.25);
	check_peak("bert-base", 32, SYNTH_FP32, 128, 5.52, 0.75, 1.25);
	check_peak("gpt2", 8, SYNTH_FP32, 1024, 19.69, 0.75, 1.25);
	check_peak("gpt2", 8, SYNTH_FP16, 1024, 12.94, 0.75, 1.25);
}

/* Bytes saved for backward (role activation) per sample against the
 * reference's "PyTorch-saved" column, which is what the CNN bands hinge on. */
static void test_saved(void)
{
	static const struct {
		const char *model;
		double mib;
	} ref[] = {
		{ "alexnet", 2.995 },  { "vgg16", 69.363 },
		{ "resnet50", 81.359 }, { "inception_v3", 94.477 },
	};
	for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++) {
		char err[256], what[128];
		int rc;
		struct trace *t = build(ref[i].model, 16, SYNTH_FP32, "h100", 0,
					NULL, &rc, err, sizeof(err));
		if (!t) {
			CHECK(0, err);
			continue;
		}
		double saved = 0;
		for (size_t k = 0; k < t->nbuffers; k++)
			if (t->buffers[k].role == TRACE_ROLE_ACTIVATION)
				saved += (double)t->buffers[k].size;
		saved /= 16.0 * 1024 * 1024;
		snprintf(what, sizeof(what),
			 "%s saves %.2f MiB/sample for backward (ref %.2f, +-3%%)",
			 ref[i].model, saved, ref[i].mib);
		CHECK(saved > ref[i].mib * 0.97 && saved < ref[i].mib * 1.03,
		      what);
		trace_free(t);
	}
}

static void test_batch_scaling(void)
{
	char err[256];
	int rc;
	struct trace *a = build("resnet50", 16, SYNTH_FP32, "a100", 0, NULL,
				&rc, err, sizeof(err));
	struct trace *b = build("resnet50", 64, SYNTH_FP32, "a100", 0, NULL,
				&rc, err, sizeof(err));
	CHECK(a && b, "resnet50 b16 and b64 build");
	if (a && b) {
		double ta = (double)trace_peak(a, TRACE_TRANSIENT, NULL);
		double tb = (double)trace_peak(b, TRACE_TRANSIENT, NULL);
		double r = tb / ta;
		char what[96];
		snprintf(what, sizeof(what),
			 "transient peak grows ~linearly with batch (x%.2f for x4)",
			 r);
		CHECK(r > 3.6 && r < 4.2, what);
		CHECK_EQ_U64(trace_peak(a, TRACE_PERSISTENT, NULL),
			     trace_peak(b, TRACE_PERSISTENT, NULL),
			     "persistent bytes do not depend on batch");
	}
	trace_free(a);
	trace_free(b);
	/* Adam keeps two states per param, SGD one */
	a = build("resnet50", 2, SYNTH_FP32, "a100", 0, "sgd", &rc, err,
		  sizeof(err));
	b = build("resnet50", 2, SYNTH_FP32, "a100", 0, "adam", &rc, err,
		  sizeof(err));
	if (a && b) {
		uint64_t sa = 0, sb = 0;
		for (size_t i = 0; i < a->nbuffers; i++)
			if (a->buffers[i].role == TRACE_ROLE_OPTIMIZER)
				sa += a->buffers[i].size;
		for (size_t i = 0; i < b->nbuffers; i++)
			if (b->buffers[i].role == TRACE_ROLE_OPTIMIZER)
				sb += b->buffers[i].size;
		CHECK_EQ_U64(sa, 25557032ull * 4, "sgd momentum = params");
		CHECK_EQ_U64(sb, 2 * 25557032ull * 4, "adam state = 2 x params");
		CHECK_STR_HAS(trace_get_meta(b, "optimizer"), "adam",
			      "meta optimizer");
	} else {
		CHECK(0, "resnet50 sgd and adam build");
	}
	trace_free(a);
	trace_free(b);
	/* a longer sequence grows attention quadratically */
	a = build("gpt2", 1, SYNTH_FP32, "h200", 256, NULL, &rc, err,
		  sizeof(err));
	b = build("gpt2", 1, SYNTH_FP32, "h200", 512, NULL, &rc, err,
		  sizeof(err));
	if (a && b) {
		double r = (double)trace_peak(b, TRACE_TRANSIENT, NULL) /
			   (double)trace_peak(a, TRACE_TRANSIENT, NULL);
		CHECK(r > 2.0, "gpt2 seq x2 grows transients more than x2");
		CHECK_STR_HAS(trace_get_meta(b, "seq_len"), "512",
			      "meta seq_len");
	} else {
		CHECK(0, "gpt2 s256 and s512 build");
	}
	trace_free(a);
	trace_free(b);
}

/* Momentum bytes of an SGD build: 4 per trainable parameter. */
static uint64_t sgd_state(const char *model, unsigned depth)
{
	struct synth_opts o = { .model = model, .batch = 2,
				.dtype = SYNTH_FP32, .device = "h200",
				.optimizer = "sgd", .depth = depth };
	struct trace *t = NULL;
	char err[256];
	if (synth_build(&o, &t, err, sizeof(err)))
		return 0;
	uint64_t s = 0;
	for (size_t i = 0; i < t->nbuffers; i++)
		if (t->buffers[i].role == TRACE_ROLE_OPTIMIZER)
			s += t->buffers[i].size;
	trace_free(t);
	return s;
}

/* Cut-down models (synth_opts.depth): the parameters of the layers or
 * blocks left out, by hand from the published shapes; the whole depth is
 * the whole model; the error sentences. */
static void test_depth(void)
{
	/* a transformer layer of width 768 (BERT and GPT-2 alike): q, k, v
	 * and the output projection 4 x (768^2 + 768), two LayerNorms
	 * 2 x 1536, the MLP 768 x 3072 + 3072 + 3072 x 768 + 768 */
	const uint64_t layer = 7087872;
	CHECK_EQ_U64(sgd_state("bert-base", 1), 4 * (109514298 - 11 * layer),
		     "bert-base depth 1 has one encoder layer's parameters");
	CHECK_EQ_U64(sgd_state("gpt2", 3), 4 * (124439808 - 9 * layer),
		     "gpt2 depth 3 has three blocks' parameters");
	CHECK_EQ_U64(sgd_state("gpt2", 12), sgd_state("gpt2", 0),
		     "gpt2 depth 12 is the whole model");
	/* ResNet-18 at one BasicBlock per stage loses 2 x 9c^2 + 4c for
	 * c = 64, 128, 256, 512 */
	CHECK_EQ_U64(sgd_state("resnet18", 1), 4 * (11689512 - 6270720),
		     "resnet18 depth 1 keeps the first block of each stage");
	/* ResNet-50 at most 2 blocks a stage: 1 + 2 + 4 + 1 bottlenecks of
	 * widths 64, 128, 256 (x4) and 512 left out; each c -> 4c ->
	 * (conv1 4c*c, conv2 9c^2, conv3 4c^2, BN 2c + 2c + 8c) */
	uint64_t cut = 0;
	static const unsigned gone[4] = { 1, 2, 4, 1 };
	for (int l = 0; l < 4; l++) {
		uint64_t c = 64u << l;
		cut += gone[l] * (4 * c * c + 9 * c * c + 4 * c * c + 12 * c);
	}
	CHECK_EQ_U64(sgd_state("resnet50", 2), 4 * (25557032 - cut),
		     "resnet50 depth 2 keeps two bottlenecks a stage");
	CHECK_EQ_U64(sgd_state("resnet50", 6), sgd_state("resnet50", 0),
		     "resnet50 depth 6 is the whole model");

	char err[256];
	struct trace *t = NULL;
	struct synth_opts o = { .model = "gpt2", .batch = 1,
				.device = "h200", .depth = 13 };
	CHECK(synth_build(&o, &t, err, sizeof(err)) == TRACE_EINVAL && !t,
	      "gpt2 depth 13 is EINVAL");
	CHECK_STR_HAS(err, "at most 12", "the error says the most");
	o.model = "alexnet";
	o.depth = 1;
	CHECK(synth_build(&o, &t, err, sizeof(err)) == TRACE_EINVAL && !t,
	      "alexnet takes no depth");
	CHECK_STR_HAS(err, "no cut-down versions", "the error says why");
	CHECK(synth_model_max_depth("resnet50") == 6 &&
	      synth_model_max_depth("bert-base") == 12 &&
	      synth_model_max_depth("vgg16") == 0 &&
	      synth_model_max_depth("nope") == 0, "synth_model_max_depth");
	o.model = "bert-base";
	o.depth = 2;
	if (synth_build(&o, &t, err, sizeof(err)) == 0) {
		CHECK_STR_HAS(trace_get_meta(t, "depth"), "2", "meta depth");
		trace_free(t);
	} else {
		CHECK(0, "bert-base depth 2 builds");
	}
}

static void test_errors(void)
{
	char err[256];
	int rc;
	struct trace *t;

	t = build("resnet51", 8, SYNTH_FP32, "h100", 0, NULL, &rc, err,
		  sizeof(err));
	CHECK(rc == TRACE_EINVAL && !t, "unknown model is EINVAL");
	CHECK_STR_HAS(err, "'resnet51'", "error names the model");
	t = build("resnet50", 8, SYNTH_FP32, "k80", 0, NULL, &rc, err,
		  sizeof(err));
	CHECK(rc == TRACE_EINVAL && !t, "unknown device is EINVAL");
	CHECK_STR_HAS(err, "'k80'", "error names the device");
	t = build("resnet50", 0, SYNTH_FP32, "h100", 0, NULL, &rc, err,
		  sizeof(err));
	CHECK(rc == TRACE_EINVAL && !t, "batch 0 is EINVAL");
	CHECK_STR_HAS(err, "batch '0'", "error names the batch");
	t = build("resnet50", 8, (enum synth_dtype)7, "h100", 0, NULL, &rc,
		  err, sizeof(err));
	CHECK(rc == TRACE_EINVAL && !t, "unknown dtype is EINVAL");
	CHECK_STR_HAS(err, "dtype '7'", "error names the dtype");
	t = build("resnet50", 8, SYNTH_BF16, "v100", 0, NULL, &rc, err,
		  sizeof(err));
	CHECK(rc == TRACE_EINVAL && !t, "bf16 on v100 is EINVAL");
	CHECK_STR_HAS(err, "'bf16'", "error names bf16");
	t = build("resnet50", 8, SYNTH_FP32, "h100", 0, "lamb", &rc, err,
		  sizeof(err));
	CHECK(rc == TRACE_EINVAL && !t, "unknown optimizer is EINVAL");
	CHECK_STR_HAS(err, "'lamb'", "error names the optimizer");
	t = build("gpt2", 1, SYNTH_FP32, "h100", 2048, NULL, &rc, err,
		  sizeof(err));
	CHECK(rc == TRACE_EINVAL && !t, "gpt2 seq 2048 is EINVAL");
	CHECK_STR_HAS(err, "'2048'", "error names the sequence length");

	enum synth_dtype d = SYNTH_FP32;
	CHECK(synth_dtype_parse("bf16", &d) == 0 && d == SYNTH_BF16,
	      "parse bf16");
	CHECK(synth_dtype_parse("fp8", &d) == -1, "parse fp8 fails");
	CHECK(synth_dtype_name((enum synth_dtype)9) == NULL,
	      "no name for a bad dtype");
	size_t n = 0;
	while (synth_device_name(n))
		n++;
	CHECK_EQ_U64(n, 4, "four devices");
}

int main(void)
{
	test_params();
	test_all_models();
	test_peaks();
	test_saved();
	test_batch_scaling();
	test_depth();
	test_errors();
	return tap_done();
}
