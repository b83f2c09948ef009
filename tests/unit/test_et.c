/* SPDX-License-Identifier: MIT */
/*
 * test_et.c - the execution-trace importer's reading of operator schemas:
 * defaults with commas, brackets and quotes, '*', optional and list types,
 * views that alias many ("Tensor(a -> *)"), tuple returns, out= and
 * in-place overloads, and values that do not follow their schema, each
 * giving the access modes the schema's alias marks say.
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

static char err[512];

/* A document of one thread and the given nodes (JSON text, comma-joined). */
static struct trace *import(const char *nodes)
{
	static char doc[16384];
	snprintf(doc, sizeof(doc),
		 "{\"schema\": \"1.1.1-chakra.0.0.4\", \"nodes\": ["
		 "{\"id\": 2, \"name\": \"[pytorch|profiler|execution_trace|thread]\", \"ctrl_deps\": 1},"
		 "%s,"
		 "{\"id\": 1, \"name\": \"[pytorch|profiler|execution_trace|process]\", \"ctrl_deps\": 1}]}",
		 nodes);
	struct src s = { doc, strlen(doc), 0 };
	struct trace *t = NULL;
	err[0] = 0;
	if (et_import_streams("t.json", src_read, &s, NULL, NULL, NULL, NULL, ET_ANY_DEVICE, &t,
			      err, sizeof(err)))
		printf("#   %s\n", err);
	return t;
}

/* The modes of the accesses of the event named name, as "RWX..." (U unknown). */
static const char *modes(const struct trace *t, const char *name)
{
	static char out[64];
	out[0] = 0;
	for (size_t i = 0; t && i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];
		if (!e->name || strcmp(e->name, name) != 0)
			continue;
		size_t n = 0;
		for (uint32_t a = e->acc0; a < e->acc0 + e->nacc && n < sizeof(out) - 1; a++)
			out[n++] = "URWX"[t->accesses[a].mode];
		out[n] = 0;
	}
	return out;
}

#define T(id, sid) "[" #id ", " #sid ", 0, 4, 4, \"cuda:0\"]"
#define NODE(id, name, schema, ivals, itypes, ovals, otypes)                       \
	"{\"id\": " #id ", \"name\": \"" name "\", \"ctrl_deps\": 2,"             \
	"\"inputs\": {\"values\": [" ivals "], \"shapes\": [], \"types\": [" itypes "]}," \
	"\"outputs\": {\"values\": [" ovals "], \"shapes\": [], \"types\": [" otypes "]}," \
	"\"attrs\": [{\"name\": \"op_schema\", \"type\": \"string\", \"value\": \"" schema "\"}]}"

int main(void)
{
	struct trace *t = import(
		NODE(3, "aten::empty", "aten::empty(SymInt[] size) -> Tensor", "[4]",
		     "\"GenericList[Int]\"", T(50, 900), "\"Tensor(float)\"") ","
		NODE(4, "aten::conv", "aten::conv(Tensor input, Tensor weight, Tensor? bias=None, "
		     "int[2] stride=[1, 1], str pad=\\\"a,(b\\\", *, int groups=1) -> Tensor",
		     T(51, 900) "," T(52, 901) ", \"<None>\", [1, 1], \"a,(b\", 1",
		     "\"Tensor(float)\", \"Tensor(float)\", \"None\", \"GenericList[Int,Int]\", \"String\", \"Int\"",
		     T(53, 902), "\"Tensor(float)\"") ","
		NODE(5, "aten::split", "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, "
		     "int dim=0) -> Tensor(a)[]", T(54, 902) ", 2, 0", "\"Tensor(float)\", \"Int\", \"Int\"",
		     "[" T(55, 902) "," T(56, 902) "]", "\"GenericList[Tensor(float),Tensor(float)]\"") ","
		NODE(6, "aten::max", "aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, "
		     "Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
		     T(57, 902) ", 0, false," T(58, 900) "," T(59, 901),
		     "\"Tensor(float)\", \"Int\", \"Bool\", \"Tensor(float)\", \"Tensor(long)\"",
		     T(58, 900) "," T(59, 901), "\"Tensor(float)\", \"Tensor(long)\"") ","
		NODE(7, "aten::add_", "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) "
		     "-> Tensor(a!)", T(60, 900) "," T(61, 902) ", 1",
		     "\"Tensor(float)\", \"Tensor(float)\", \"Int\"", T(60, 900), "\"Tensor(float)\"") ","
		NODE(8, "aten::index", "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
		     T(62, 902) ", [" T(63, 901) ", \"<None>\"]",
		     "\"Tensor(float)\", \"GenericList[Tensor(long),None]\"", T(64, 903), "\"Tensor(float)\"") ","
		NODE(9, "aten::odd", "aten::odd(Tensor a, Tensor b, Tensor c) -> Tensor",
		     T(65, 902) "," T(66, 903), "\"Tensor(float)\", \"Tensor(float)\"", "", ""));
	CHECK(t != NULL, "a document of many schema shapes imports");
	CHECK(strcmp(modes(t, "aten::conv"), "RRW") == 0,
	      "defaults with commas, brackets and quotes, and '*', keep the arguments in place");
	CHECK(strcmp(modes(t, "aten::split"), "") == 0, "Tensor(a -> *) and Tensor(a)[] are views: no access");
	CHECK(strcmp(modes(t, "aten::max"), "RWW") == 0,
	      "out arguments of a tuple-returning overload are written, the aliased returns add nothing");
	CHECK(strcmp(modes(t, "aten::add_"), "XR") == 0, "in place: Tensor(a!) is read and written");
	CHECK(strcmp(modes(t, "aten::index"), "RRW") == 0, "Tensor?[] lists are read, None skipped");
	CHECK(strcmp(modes(t, "aten::odd"), "UU") == 0, "values that do not follow the schema: unknown");
	CHECK(t && strcmp(trace_get_meta(t, "et.ops_without_schema"), "1") == 0,
	      "and counted as without schema");
	trace_free(t);

	/* a tensor on device 1 beside device 0: choose */
	t = import(NODE(3, "aten::add", "aten::add(Tensor a, Tensor b) -> Tensor",
			"[1, 5, 0, 4, 4, \"cuda:1\"]," T(2, 6), "\"Tensor(float)\", \"Tensor(float)\"",
			T(7, 8), "\"Tensor(float)\""));
	CHECK(t == NULL && strstr(err, "has tensors on 2 CUDA devices (cuda:0, cuda:1): choose one with --device"),
	      "tensors on two devices ask for --device");
	trace_free(t);
	return tap_done();
}
