/* SPDX-License-Identifier: MIT */
/*
 * test_et_shapes.c - shapes real execution traces and profiler traces have,
 * as PyTorch 1.13 and 2.x write them: tensors on the CPU (a host-memory
 * trace, said so), on one CUDA device of any ordinal, a malformed device,
 * storage offsets, no operators, 1.13's execution_graph roots written
 * before their children, storages born inside composite operators and
 * allocated there, wrapped numbers, absolute Kineto times, and the legacy
 * Chrome array.  Each check failed on the importer before these shapes
 * were read right.
 */
#include <stdlib.h>
#include <string.h>

#include "import_et.h"
#include "tap.h"

struct src {
	const char *s;
	size_t len, pos;
};

static long src_read(void *ctx, uint8_t *buf, size_t n)
{
	struct src *s = ctx;
	if (n > s->len - s->pos)
		n = s->len - s->pos;
	memcpy(buf, s->s + s->pos, n);
	s->pos += n;
	return (long)n;
}

static char err[768];
static int rc;

/* Imports an ET whose nodes are given (roots added unless bare) and, when
 * kin is not NULL, that profiler trace. */
static struct trace *import2(const char *nodes, const char *kin, int device, int bare)
{
	static char doc[32768];
	if (bare)
		snprintf(doc, sizeof(doc), "{\"schema\": \"1.0.1\", \"nodes\": [%s]}", nodes);
	else
		snprintf(doc, sizeof(doc),
			 "{\"schema\": \"1.0.1\", \"nodes\": ["
			 "{\"id\": 2, \"name\": \"[pytorch|profiler|execution_graph|thread]\", \"parent\": 1},"
			 "%s%s"
			 "{\"id\": 1, \"name\": \"[pytorch|profiler|execution_graph|process]\", \"parent\": 1}]}",
			 nodes, nodes[0] ? "," : "");
	struct src s = { doc, strlen(doc), 0 }, k = { kin, kin ? strlen(kin) : 0, 0 };
	struct trace *t = NULL;
	err[0] = 0;
	rc = et_import_streams("t.json", src_read, &s, kin ? "k.json" : NULL, kin ? src_read : NULL,
			       kin ? &k : NULL, NULL, device, &t, err, sizeof(err));
	if (rc)
		printf("#   %s\n", err);
	return t;
}

static struct trace *import(const char *nodes)
{
	return import2(nodes, NULL, ET_ANY_DEVICE, 0);
}

static const char *meta(const struct trace *t, const char *k)
{
	const char *v = t ? trace_get_meta(t, k) : NULL;
	return v ? v : "(none)";
}

static size_t count(const struct trace *t, int type)
{
	size_t n = 0;
	for (size_t i = 0; t && i < t->nevents; i++)
		n += t->events[i].type == type;
	return n;
}

/* a leaf (1.0.1's flat layout) with one tensor in, one out */
#define TV(id, sid, off, n, dev) "[" #id ", " #sid ", " #off ", " #n ", 4, \"" dev "\"]"
#define OP(id, parent, rf, name, schema, ivals, itypes, ovals, otypes)                    \
	"{\"id\": " #id ", \"name\": \"" name "\", \"parent\": " #parent ", \"rf_id\": " #rf \
	", \"op_schema\": \"" schema "\", \"inputs\": [" ivals "], \"input_types\": [" itypes \
	"], \"outputs\": [" ovals "], \"output_types\": [" otypes "]}"
#define RELU "aten::relu(Tensor self) -> Tensor"
#define F "\"Tensor(float)\""

int main(void)
{
	/* tensors on the CPU: a trace of host memory, never cuda:0 */
	struct trace *t = import(OP(3, 2, 1, "aten::relu", RELU, TV(10, 11, 0, 256, "cpu"), F,
				    TV(12, 13, 0, 256, "cpu"), F));
	CHECK(t && t->nbuffers == 2, "cpu tensors are imported: the input and the output");
	CHECK(strcmp(meta(t, "device"), "cpu") == 0 && strcmp(meta(t, "memory"), "host") == 0,
	      "as host memory, device cpu, not a false cuda:0");
	CHECK(strstr(meta(t, "source"), "host memory") && strcmp(meta(t, "allocator"), "c10-cpu") == 0,
	      "the source and allocator say so where the summary shows them");
	CHECK(t && t->nbuffers && t->buffers[0].align == 64, "with the CPU allocator's 64-byte alignment");
	trace_free(t);
	/* cpu beside cuda: the CUDA device, the rest counted */
	t = import(OP(3, 2, 1, "aten::to", RELU, TV(10, 11, 0, 256, "cpu"), F,
		      TV(12, 13, 0, 256, "cuda:0"), F));
	CHECK(t && t->nbuffers == 1 && strcmp(meta(t, "device"), "cuda:0") == 0 &&
	      strcmp(meta(t, "et.tensors_on_other_memory"), "1") == 0,
	      "cpu tensors beside cuda:0 ones: a cuda:0 trace, the cpu tensor counted");
	trace_free(t);
	t = import2(OP(3, 2, 1, "aten::relu", RELU, TV(10, 11, 0, 256, "cpu"), F,
		       TV(12, 13, 0, 256, "cuda:0"), F), NULL, ET_HOST, 0);
	CHECK(t && t->nbuffers == 1 && strcmp(meta(t, "device"), "cpu") == 0,
	      "--device cpu takes the host's tensors");
	trace_free(t);
	/* one CUDA device whatever its ordinal */
	t = import(OP(3, 2, 1, "aten::relu", RELU, TV(10, 11, 0, 256, "cuda:1"), F,
		      TV(12, 13, 0, 256, "cuda:1"), F));
	CHECK(t && strcmp(meta(t, "device"), "cuda:1") == 0 && t->nbuffers && t->buffers[0].device == 1,
	      "tensors only on cuda:1 (a DDP rank): that device, no --device asked");
	trace_free(t);
	t = import(OP(3, 2, 1, "aten::relu", RELU, TV(10, 11, 0, 256, "cuda:40"), F,
		      TV(12, 13, 0, 256, "cuda:40"), F));
	CHECK(t && strcmp(meta(t, "device"), "cuda:40") == 0,
	      "tensors only on cuda:40: that device (32 and up were taken for 0)");
	trace_free(t);
	t = import(OP(3, 2, 1, "aten::relu", RELU, TV(10, 11, 0, 256, "cuda:31"), F,
		      TV(12, 13, 0, 256, "cuda:40"), F));
	CHECK(!t && rc == TRACE_EINVAL && strstr(err, "2 CUDA devices (cuda:31, cuda:40)"),
	      "cuda:31 and cuda:40: both named, --device asked for");
	trace_free(t);
	t = import(OP(3, 2, 1, "aten::relu", RELU, TV(10, 11, 0, 256, "cuda:-1"), F,
		      TV(12, 13, 0, 256, "cuda:0"), F));
	CHECK(!t && rc == TRACE_EFORMAT && strstr(err, "'cuda:-1' is not a device"),
	      "cuda:-1 is refused, not taken for the CPU");
	trace_free(t);
	/* the storage offset: a view at element 100 reaches (100 + 4) * 4 bytes */
	t = import(OP(3, 2, 1, "aten::relu", RELU, TV(10, 11, 100, 4, "cuda:0"), F,
		      TV(12, 13, 0, 4, "cuda:0"), F));
	CHECK(t && t->nbuffers == 2 && t->buffers[0].size == 416 && t->buffers[1].size == 16,
	      "a tensor's storage offset counts in its storage's size");
	trace_free(t);
	/* two tensors on one storage at different offsets: one op returns
	 * elements 0..99 and 100..149 of storage 11 (a split); the storage
	 * reaches (100 + 50) * 4 bytes, which neither tensor does alone
	 * (400 and 200 bytes without the offset) */
	t = import(OP(3, 2, 1, "aten::split", "aten::split(Tensor self) -> (Tensor, Tensor)",
		      TV(10, 13, 0, 150, "cuda:0"), F,
		      TV(12, 11, 0, 100, "cuda:0") "," TV(14, 11, 100, 50, "cuda:0"), F "," F));
	CHECK(t && t->nbuffers == 2 && t->buffers[0].size == 600 && t->buffers[1].size == 600,
	      "two outputs on one storage at offsets 0 and 100: the storage is 600 bytes");
	trace_free(t);
	/* a later input on that storage, at offset 100, reaching past the
	 * 400 bytes it was born with and no longer used: another storage at
	 * its address (as a wrapped number's), born there with 600 bytes */
	t = import(OP(3, 2, 1, "aten::relu", RELU, TV(10, 13, 0, 100, "cuda:0"), F,
		      TV(12, 11, 0, 100, "cuda:0"), F) ","
		   OP(4, 2, 2, "aten::relu", RELU, TV(14, 11, 100, 50, "cuda:0"), F,
		      TV(16, 15, 0, 50, "cuda:0"), F));
	CHECK(t && t->nbuffers == 4 && t->buffers[2].size == 600,
	      "a view at offset 100 past a storage's 400 bytes: another storage of 600");
	trace_free(t);
	/* a view at a nonzero offset, the only tensor of its storage an op
	 * writes: the output's storage reaches past the view's own bytes */
	t = import(OP(3, 2, 1, "aten::relu", RELU, TV(10, 13, 0, 8, "cuda:0"), F,
		      TV(12, 11, 24, 8, "cuda:0"), F));
	CHECK(t && t->nbuffers == 2 && ((t->buffers[0].size == 32 && t->buffers[1].size == 128) ||
					(t->buffers[0].size == 128 && t->buffers[1].size == 32)),
	      "an output view at element 24 of 8 elements: a storage of (24 + 8) * 4 bytes");
	trace_free(t);
	/* no operators */
	t = import("");
	CHECK(!t && rc == TRACE_EFORMAT && strstr(err, "no operator"),
	      "an ET of the observer's roots only is refused, not an empty trace");
	trace_free(t);
	t = import2("", NULL, ET_ANY_DEVICE, 1);
	CHECK(!t && rc == TRACE_EFORMAT && strstr(err, "0 nodes and no operator"),
	      "an ET without nodes is refused (and never sorted)");
	trace_free(t);
	/* 1.13's thread root comes first, before its children: not an op */
	t = import(OP(3, 2, 1, "aten::relu", RELU, TV(10, 11, 0, 256, "cuda:0"), F,
		      TV(12, 13, 0, 256, "cuda:0"), F));
	CHECK(t && count(t, TRACE_EV_KERNEL) == 1 && strcmp(meta(t, "et.leaf_ops"), "1") == 0 &&
	      strcmp(meta(t, "et.observer_roots"), "2") == 0,
	      "[pytorch|profiler|execution_graph|thread] is a root, not an operator");
	trace_free(t);
	/*
	 * aten::linear (3) > aten::addmm (4) > aten::copy_ (5) fills the
	 * output addmm allocated itself; aten::relu (6) reads it.  The
	 * profiler saw the 1 KiB allocation inside addmm, before copy_.
	 */
	const char *lin =
		OP(5, 4, 3, "aten::copy_", "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
		   TV(20, 21, 0, 256, "cpu") "," TV(22, 23, 0, 64, "cpu") ", false", F "," F ", \"Bool\"",
		   TV(20, 21, 0, 256, "cpu"), F) ","
		OP(4, 3, 2, "aten::addmm", "aten::addmm(Tensor self, Tensor mat1, Tensor mat2) -> Tensor",
		   TV(22, 23, 0, 64, "cpu") "," TV(24, 25, 0, 64, "cpu") "," TV(26, 27, 0, 64, "cpu"),
		   F "," F "," F, TV(20, 21, 0, 256, "cpu"), F) ","
		OP(3, 2, 1, "aten::linear", "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
		   TV(24, 25, 0, 64, "cpu") "," TV(26, 27, 0, 64, "cpu") "," TV(22, 23, 0, 64, "cpu"),
		   F "," F "," F, TV(20, 21, 0, 256, "cpu"), F) ","
		OP(6, 2, 4, "aten::relu", RELU, TV(20, 21, 0, 256, "cpu"), F, TV(30, 31, 0, 256, "cpu"), F);
#define CPUOP(name, rf, ts, dur)                                                          \
	"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" name "\", \"pid\": 1, \"tid\": 1, " \
	"\"ts\": " ts ", \"dur\": " #dur ", \"args\": {\"External id\": " #rf "}}"
#define MEM(ts, addr, bytes, total)                                                       \
	"{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": " ts ", "    \
	"\"args\": {\"Addr\": " #addr ", \"Bytes\": " #bytes ", \"Total Allocated\": " #total  \
	", \"Total Reserved\": 0, \"Device Type\": 0, \"Device Id\": -1}}"
#define KIN(b, o)                                                                          \
	"{\"traceEvents\": [" CPUOP("aten::linear", 1, b "100" o, 50) ","                   \
	CPUOP("aten::addmm", 2, b "110" o, 30) "," MEM(b "112" o, 4096, 1024, 1024) ","        \
	CPUOP("aten::copy_", 3, b "120" o, 5) "," CPUOP("aten::relu", 4, b "160" o, 10) ","   \
	MEM(b "162" o, 8192, 1024, 2048) "," MEM(b "175" o, 4096, -1024, 1024) "]}"
	t = import2(lin, KIN("", ""), ET_ANY_DEVICE, 0);
	/* weights 64*4 * 3 = 768 bytes live at the start; then 1 KiB + 1 KiB */
	CHECK(t && t->nbuffers == 5, "a storage born in aten::addmm under aten::linear is one buffer, "
				     "not a persistent ET buffer and a transient allocation");
	CHECK(t && trace_peak(t, TRACE_ALL, NULL) == 768 + 2048,
	      "and the peak counts it once");
	CHECK(strcmp(meta(t, "kineto.outputs_without_alloc"), "0") == 0 &&
	      strcmp(meta(t, "et.storages_born_in_composite_ops"), "1") == 0 &&
	      strcmp(meta(t, "kineto.ops_not_found"), "0") == 0,
	      "the allocation inside the composite is its output's; every op is found");
	trace_free(t);
	/* Kineto's absolute times: microseconds since the epoch */
	t = import2(lin, KIN("1689360788495", ".25"), ET_ANY_DEVICE, 0);
	CHECK(t && t->nbuffers == 5 && trace_peak(t, TRACE_ALL, NULL) == 768 + 2048 &&
	      strcmp(meta(t, "kineto.time"), "microseconds since the epoch, shifted by the first") == 0,
	      "absolute Kineto times (1689360788495100.25) are read, shifted by the first");
	trace_free(t);
	/* the profiler's ids run ahead of the ET's rf_ids (1.13 with a schedule) */
	t = import2(lin, "{\"traceEvents\": [" CPUOP("aten::zeros", 1, "1", 2) "," CPUOP("aten::empty", 2, "2", 2) ","
		    CPUOP("aten::linear", 3, "100", 50) "," CPUOP("aten::addmm", 4, "110", 30) ","
		    MEM("112", 4096, 1024, 1024) "," CPUOP("aten::copy_", 5, "120", 5) ","
		    CPUOP("aten::relu", 6, "160", 10) "," MEM("162", 8192, 1024, 2048) ","
		    MEM("175", 4096, -1024, 1024) "]}", ET_ANY_DEVICE, 0);
	CHECK(t && strcmp(meta(t, "kineto.rf_offset"), "2") == 0 &&
	      strcmp(meta(t, "kineto.ops_not_found"), "0") == 0 && t->nbuffers == 5,
	      "record ids that run 2 ahead of the rf_ids are joined by name, the offset said");
	trace_free(t);
	/* the legacy array export_chrome_trace writes without Kineto */
	t = import2(lin, "[{\"name\": \"aten::linear\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2}]",
		    ET_ANY_DEVICE, 0);
	CHECK(!t && rc == TRACE_EFORMAT && strstr(err, "Chrome trace array") &&
	      strstr(err, "without Kineto"),
	      "a legacy Chrome trace array says what it is and what is needed");
	trace_free(t);
	/* a wrapped number: a 4-byte storage freed, its address reused by an
	 * 8-byte double made with no op just before aten::add_ reads it */
	t = import2(OP(3, 2, 1, "aten::empty", "aten::empty(SymInt[] size) -> Tensor", "[1]",
		       "\"GenericList[Int]\"", "[40, 41, 0, 1, 4, \"cpu\"]", F) ","
		    OP(4, 2, 2, "aten::relu", RELU, "[40, 41, 0, 1, 4, \"cpu\"]", F,
		       TV(42, 43, 0, 1, "cpu"), F) ","
		    OP(5, 2, 3, "aten::add_", "aten::add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
		       TV(42, 43, 0, 1, "cpu") ", [44, 41, 0, 1, 8, \"cpu\"]", F ", \"Tensor(double)\"",
		       TV(42, 43, 0, 1, "cpu"), F),
		    "{\"traceEvents\": [" CPUOP("aten::empty", 1, "10", 5) "," MEM("11", 64, 4, 4) ","
		    CPUOP("aten::relu", 2, "20", 5) "," MEM("21", 128, 4, 8) "," MEM("27", 64, -4, 4) ","
		    MEM("28", 64, 8, 12) "," CPUOP("aten::add_", 3, "30", 5) "," MEM("40", 64, -8, 4) "]}",
		    ET_ANY_DEVICE, 0);
	CHECK(t && t->nbuffers == 3 && trace_peak(t, TRACE_ALL, NULL) == 12 &&
	      strcmp(meta(t, "et.storages_born_as_inputs"), "1") == 0 &&
	      strcmp(meta(t, "kineto.outputs_without_alloc"), "0") == 0,
	      "a wrapped number at a freed storage's address is a storage of its own, "
	      "joined with its allocation");
	trace_free(t);
	return tap_done();
}
