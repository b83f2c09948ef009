/* SPDX-License-Identifier: MIT */
/*
 * import_et.c - a PyTorch execution trace (and its profiler trace) to a
 * trace with accesses, for `memplan-trace import --from pytorch-et`.
 * Formats as torch/csrc/profiler/standalone/execution_trace_observer.cpp
 * writes them (schemas 1.0.0 to 1.1.1) and as Kineto's Chrome trace holds
 * cpu_op, runtime, kernel and [memory] events.
 *
 * Design: the ET is streamed one node at a time (json_read.h); a node keeps
 * only what memplan needs (id, name, rf_id and its tensor references with
 * the access mode its schema gives them), leaf operators only.  After the
 * file, operators are put in entry order (node ids) and storages resolved
 * to buffers: a storage id that a fresh output reuses starts a new buffer
 * when ids are address-derived.  The profiler trace, when given, is kept
 * as compact arrays and joined by rf_id, External id and correlation.
 */
#include "import_et.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "et_align.h"
#include "import_snapshot.h"
#include "zinput.h"

#define MAX_NODES ((size_t)1 << 31)
#define MAX_REFS ((size_t)1 << 32)
#define ET_LIST_CUT 4096 /* the observer stops a list after 4,097 items */
#define ALIGN UINT64_C(512)
#define STEP_NAME "ProfilerStep" /* torch.profiler's step record function */

enum {
	REF_VIEW = 1,  /* an alias: no access, the storage is only reached */
	REF_FRESH = 2, /* a fresh output: the start of a buffer */
	REF_OUT = 4,   /* an output of an op without schema */
	REF_NL = 8,    /* a fresh output of a composite (non-leaf) operator:
			  where its storage is born, never an access */
	REF_RET = 16,  /* any output (a view or an in-place result too) */
};

/* the memory a tensor is in: a CUDA ordinal (0..1023), or one of these */
#define DEV_CPU (-1)   /* "cpu": host memory */
#define DEV_OTHER (-2) /* "meta", "mps", "xla", ...: not memory memplan reads */
#define DEV_BAD (-3)   /* "cuda:x" that names no device */
#define MAX_DEVICE 1023

struct ref {
	int64_t sid;   /* storage id; after resolve(): index in im->gens */
	uint64_t end;  /* bytes of the storage the tensor reaches */
	int32_t dev;   /* a CUDA ordinal or DEV_CPU */
	uint8_t mode;  /* enum trace_access_mode */
	uint8_t flags;
};

struct op {
	int64_t id, rf_id;
	int64_t parent;   /* its parent's node id */
	int64_t up;       /* after resolve(): its parent's op index, -1 none */
	int64_t sub_end;  /* after resolve(): the last op of its subtree */
	const char *name; /* interned in the trace; NULL: not a leaf */
	const char *label; /* its name, leaf or not */
	size_t ref0;
	uint32_t nref;
	int64_t key;      /* with a profiler trace: its end time, ns */
	int64_t t0, t1;   /* GPU time of its kernels */
	uint64_t bytes;   /* bytes its copies or memsets moved */
	uint8_t type;     /* KERNEL, or COPY/MEMSET when that is all it ran */
	uint8_t aux;
	int bwd;          /* run by autograd for a forward thread (fw_tid) */
	int step;         /* a ProfilerStep#N record function (not a leaf) */
};

struct gen {              /* one buffer's life on one storage */
	uint64_t size;        /* the most bytes a tensor on it reaches */
	uint64_t birth_size;  /* what the tensor it was born as reaches (an
				 expanded view, stride 0, reaches past its
				 storage: the ET has no strides) */
	int64_t born, last;   /* op indexes; born -1: before the window */
	int64_t alloc_mem, free_mem; /* profiler memory events, -1 none */
	int64_t buf;          /* trace buffer id, -1 none */
	int64_t snap;         /* its buffer in the memory snapshot, -1 none */
	int32_t device;
	int used_bwd;         /* an op of the backward pass reaches it */
	int64_t next;         /* the first op after its birth that reaches it */
	int in_birth;         /* born as an input (see resolve()) */
	int64_t nl_until;     /* born as a composite op's output: the last op
				 of that op's subtree (its storage cannot be
				 another's before), else -1 */
};

/* u64 -> i64 open addressing; values are >= 0, a negative one marks an
 * empty slot (so no value may be set negative) */
struct map {
	uint64_t *k;
	int64_t *v;
	size_t n, used;
};

struct cpuop { int64_t ts, end, tid, rf, ext, parent; const char *name; };
struct kern {
	int64_t corr, ts, end;
	uint64_t bytes;  /* memcpy/memset: args "bytes" */
	uint8_t type;    /* TRACE_EV_KERNEL, _COPY or _MEMSET */
	uint8_t aux;     /* COPY: enum trace_copy_kind, from the name */
};
struct rt { int64_t corr, ext; };
struct mem {
	int64_t ts, tid, bytes, total_res;
	uint64_t addr;
	size_t ev;
	int32_t dev; /* a CUDA ordinal, DEV_CPU, or DEV_OTHER */
};

struct im {
	const char *name, *kname;
	char *err;
	size_t errlen;
	struct trace *t;
	int device;            /* a CUDA ordinal, ET_ANY_DEVICE or ET_HOST */
	uint64_t devset[(MAX_DEVICE + 1) / 64]; /* CUDA devices the ET's tensors are on */
	int host;              /* the trace is of host memory: tensors on cpu */
	uint64_t align;        /* its allocator's guarantee */
	int flat_seen, nested_seen, five_seen;
	char schema[64];
	/* the node being read, for messages */
	int64_t node_id;
	char node_name[80];
	char field[96];
	int rc; /* the code of the error reported, for callers up the stack */
	struct op *ops;
	size_t nops, capops;
	struct ref *refs;
	size_t nrefs, caprefs;
	struct map parents; /* ids named as a parent: not leaves */
	struct map nodeids;
	struct gen *gens;
	size_t ngens, capgens;
	/* counts for meta */
	size_t nodes, no_schema, truncated, nonleaf_skipped, cpu_refs;
	size_t cuda_refs, other_refs, roots, nl_births, in_births;
	size_t elsewhere; /* tensors in another memory than the trace's */
	size_t known, unknown, dropped, unmatched_out, unmatched_free;
	size_t not_in_kineto, unique_ids;
	/* profiler trace */
	struct cpuop *cpu;
	size_t ncpu, capcpu;
	struct kern *kern;
	size_t nkern, capkern;
	struct rt *rt;
	size_t nrt, caprt;
	struct mem *mem;
	size_t nmem, capmem;
	size_t kevents;
	int64_t reserved_peak;
	int64_t kbase;   /* microseconds since the epoch: the first time read */
	int kabsolute;   /* its times were absolute: shifted by kbase */
	int64_t rf_offset; /* profiler record id = the ET's rf_id + this */
	/* memory snapshot */
	const char *sname;
	struct trace *snap;
	size_t s_outputs, s_matched, s_hidden, s_inputs, s_inputs_matched;
	size_t s_ties, s_before;
	size_t steps; /* ProfilerStep ranges written */
};

static int bad(struct im *im, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad(struct im *im, const char *fmt, ...)
{
	im->rc = TRACE_EFORMAT;
	if (!im->err || !im->errlen)
		return TRACE_EFORMAT;
	int n;
	if (im->node_id >= 0)
		n = snprintf(im->err, im->errlen,
			     "cannot read execution trace '%s': node %" PRId64 " (%s), field '%s': ",
			     im->name, im->node_id, im->node_name, im->field);
	else
		n = snprintf(im->err, im->errlen, "cannot read execution trace '%s': ",
			     im->name);
	if (n >= 0 && (size_t)n < im->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(im->err + n, im->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return TRACE_EFORMAT;
}

static int nomem(struct im *im)
{
	im->rc = TRACE_ENOMEM;
	return trace_seterr(im->err, im->errlen, TRACE_ENOMEM,
			    "cannot read execution trace '%s': out of memory", im->name);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}
#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* --- map ------------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static int64_t map_get(const struct map *m, uint64_t key)
{
	if (!m->n)
		return -1;
	for (size_t j = mix(key) & (m->n - 1);; j = (j + 1) & (m->n - 1)) {
		if (m->v[j] < 0)
			return -1;
		if (m->k[j] == key)
			return m->v[j];
	}
}

static int map_set(struct map *m, uint64_t key, int64_t val)
{
	if ((m->used + 1) * 2 > m->n) {
		size_t n = m->n ? m->n * 2 : 1024;
		uint64_t *k = malloc(n * sizeof(*k));
		int64_t *v = malloc(n * sizeof(*v));
		if (!k || !v) {
			free(k);
			free(v);
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			v[i] = -1;
		for (size_t i = 0; i < m->n; i++) {
			if (m->v[i] < 0)
				continue;
			size_t j = mix(m->k[i]) & (n - 1);
			while (v[j] >= 0)
				j = (j + 1) & (n - 1);
			k[j] = m->k[i];
			v[j] = m->v[i];
		}
		free(m->k);
		free(m->v);
		m->k = k;
		m->v = v;
		m->n = n;
	}
	size_t j = mix(key) & (m->n - 1);
	while (m->v[j] >= 0 && m->k[j] != key)
		j = (j + 1) & (m->n - 1);
	if (m->v[j] < 0)
		m->used++;
	m->k[j] = key;
	m->v[j] = val;
	return 0;
}

static void map_free(struct map *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* --- fields --------------------------------------------------------------- */

static void set_field(struct im *im, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_field(struct im *im, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(im->field, sizeof(im->field), fmt, ap);
	va_end(ap);
}

/* An attribute: in "attrs" (1.0.2 on) or a field of the node (1.0.0/1.0.1). */
static const struct jv *attr(const struct jv *node, const char *name)
{
	const struct jv *a = jv_get(node, "attrs");
	if (a && a->type == JV_ARR)
		for (uint32_t i = 0; i < a->len; i++) {
			const struct jv *n = jv_get(&a->u.kids[i], "name");
			if (n && n->type == JV_STR && strcmp(n->u.s, name) == 0)
				return jv_get(&a->u.kids[i], "value");
		}
	return jv_get(node, name);
}

static int want_int(struct im *im, const struct jv *v, const char *field,
		    int64_t min, int64_t *out)
{
	snprintf(im->field, sizeof(im->field), "%s", field);
	if (!v)
		return bad(im, "missing");
	if (v->type != JV_INT)
		return bad(im, "%s where an integer was expected", jv_type_name(v));
	if (v->u.i < min)
		return bad(im, "%" PRId64 " is below %" PRId64, v->u.i, min);
	*out = v->u.i;
	return 0;
}

/* --- operator schemas ----------------------------------------------------- */

enum { ARG_OTHER = 0, ARG_READ, ARG_WRITE, ARG_VIEW };

/*
 * The next top-level item of a comma-separated list in [*p, end), trimmed:
 * brackets, parentheses and quotes nest.  Returns 0 at the end.
 */
static int next_item(const char **p, const char *end, const char **s,
		     const char **e)
{
	const char *q = *p;
	while (q < end && (*q == ' ' || *q == ','))
		q++;
	if (q >= end)
		return 0;
	*s = q;
	int depth = 0;
	char quote = 0;
	for (; q < end; q++) {
		if (quote) {
			if (*q == '\\' && q + 1 < end)
				q++;
			else if (*q == quote)
				quote = 0;
		} else if (*q == '"' || *q == '\'') {
			quote = *q;
		} else if (*q == '(' || *q == '[') {
			depth++;
		} else if (*q == ')' || *q == ']') {
			depth--;
		} else if (*q == ',' && depth == 0) {
			break;
		}
	}
	*e = q;
	while (*e > *s && (*e)[-1] == ' ')
		(*e)--;
	*p = q;
	return 1;
}

/* The kind of one argument or return, from its type (up to its name). */
static int arg_kind(const char *s, const char *e)
{
	const char *q = s;
	int depth = 0;
	while (q < e && (depth || *q != ' ')) { /* the type ends at a top-level space */
		if (*q == '(' || *q == '[')
			depth++;
		else if (*q == ')' || *q == ']')
			depth--;
		q++;
	}
	if (q - s < 6 || strncmp(s, "Tensor", 6) != 0)
		return ARG_OTHER;
	const char *a = memchr(s, '(', (size_t)(q - s));
	if (!a)
		return ARG_READ;
	const char *b = memchr(a, ')', (size_t)(q - a));
	if (!b)
		return ARG_READ;
	if (memchr(a, '!', (size_t)(b - a)))
		return ARG_WRITE;
	return ARG_VIEW;
}

/*
 * Parses "ns::op.overload(args) -> rets" into kinds of the positional
 * arguments (the '*' marker skipped) and of the returns.  Returns 0, or -1
 * when the text is not a schema.
 */
static int parse_schema(const char *s, uint8_t *args, size_t *nargs,
			uint8_t *rets, size_t *nrets, size_t cap)
{
	const char *open = strchr(s, '(');
	if (!open)
		return -1;
	int depth = 0;
	const char *close = NULL;
	char quote = 0;
	for (const char *q = open; *q; q++) {
		if (quote) {
			if (*q == '\\' && q[1])
				q++;
			else if (*q == quote)
				quote = 0;
		} else if (*q == '"' || *q == '\'') {
			quote = *q;
		} else if (*q == '(' || *q == '[') {
			depth++;
		} else if ((*q == ')' || *q == ']') && --depth == 0) {
			close = q;
			break;
		}
	}
	if (!close)
		return -1;
	const char *p = open + 1, *a, *b;
	*nargs = 0;
	while (next_item(&p, close, &a, &b)) {
		if (b - a == 1 && *a == '*')
			continue;
		if (*nargs == cap)
			return -1;
		args[(*nargs)++] = (uint8_t)arg_kind(a, b);
	}
	const char *r = close + 1;
	while (*r == ' ')
		r++;
	if (strncmp(r, "->", 2) != 0)
		return -1;
	r += 2;
	while (*r == ' ')
		r++;
	const char *rend = r + strlen(r);
	if (*r == '(' && rend > r && rend[-1] == ')') {
		r++;
		rend--;
	}
	*nrets = 0;
	p = r;
	while (next_item(&p, rend, &a, &b)) {
		if (*nrets == cap)
			return -1;
		rets[(*nrets)++] = (uint8_t)arg_kind(a, b);
	}
	return 0;
}

/* "aten::add_.Tensor", "aten::__iadd__": the op works in place. */
static int in_place(const char *name)
{
	const char *b = strstr(name, "::");
	b = b ? b + 2 : name;
	size_t n = strcspn(b, ".");
	if (n > 5 && strncmp(b, "__i", 3) == 0 && b[n - 1] == '_' && b[n - 2] == '_')
		return 1;
	return n >= 2 && b[n - 1] == '_' && b[n - 2] != '_';
}

/* --- tensor values -------------------------------------------------------- */

/*
 * The memory of a tensor value's device: its CUDA ordinal, DEV_CPU,
 * DEV_OTHER (a device memplan does not read), or DEV_BAD ("cuda:-1",
 * "cuda:x": no device).
 */
static int device_of(const char *s)
{
	if (strcmp(s, "cpu") == 0 || strncmp(s, "cpu:", 4) == 0)
		return DEV_CPU;
	if (strncmp(s, "cuda", 4) != 0)
		return DEV_OTHER;
	if (s[4] == 0)
		return 0;
	if (s[4] != ':')
		return DEV_OTHER;
	const char *q = s + 5;
	if (*q < '0' || *q > '9')
		return DEV_BAD;
	char *e;
	long d = strtol(q, &e, 10);
	return *e || d > MAX_DEVICE ? DEV_BAD : (int)d;
}

static void dev_add(struct im *im, int d)
{
	im->devset[d / 64] |= UINT64_C(1) << (d % 64);
}

static int dev_has(const struct im *im, int d)
{
	return (im->devset[d / 64] >> (d % 64)) & 1;
}

/* The CUDA devices the ET's tensors are on: their number; *first the lowest. */
static int dev_count(const struct im *im, int *first)
{
	int n = 0;
	*first = -1;
	for (int d = 0; d <= MAX_DEVICE; d++)
		if (dev_has(im, d)) {
			if (!n)
				*first = d;
			n++;
		}
	return n;
}

static int add_ref(struct im *im, const struct ref *r)
{
	if (im->nrefs >= MAX_REFS)
		return bad(im, "more than 2^32 tensor references in the trace");
	if (GROW(im->refs, im->caprefs, im->nrefs + 1))
		return nomem(im);
	im->refs[im->nrefs++] = *r;
	return 0;
}

/* One tensor value [tensor_id, storage_id, offset, numel, itemsize(, device)]. */
static int tensor_value(struct im *im, const struct jv *v, uint8_t mode,
			uint8_t flags)
{
	if (v->type != JV_ARR)
		return bad(im, "%s where a tensor value (an array) was expected",
			   jv_type_name(v));
	if (v->len != 5 && v->len != 6)
		return bad(im, "a tensor value has %" PRIu32 " elements, not 6 (5 in schema 1.0.0)",
			   v->len);
	int64_t x[5];
	static const char *what[5] = { "tensor_id", "storage_id", "offset", "numel", "itemsize" };
	for (int i = 0; i < 5; i++) {
		const struct jv *e = &v->u.kids[i];
		if (e->type != JV_INT || e->u.i < 0)
			return bad(im, "element %d (%s) is %s, not a non-negative integer",
				   i, what[i], e->type == JV_INT ? "negative" : jv_type_name(e));
		x[i] = e->u.i;
	}
	int dev = im->device < 0 ? 0 : im->device;
	if (v->len == 6) {
		const struct jv *d = &v->u.kids[5];
		if (d->type != JV_STR)
			return bad(im, "element 5 (device) is %s, not a string", jv_type_name(d));
		if (x[1] == 0 || d->len == 0)
			return 0; /* an undefined tensor, or one without storage */
		dev = device_of(d->u.s);
		if (dev == DEV_BAD)
			return bad(im, "element 5 (device) '%.40s' is not a device (cuda:0 to cuda:%d, cpu)",
				   d->u.s, MAX_DEVICE);
		if (dev == DEV_OTHER) {
			im->other_refs++;
			return 0;
		}
	} else {
		im->five_seen = 1;
		if (x[1] == 0)
			return 0;
	}
	if (dev == DEV_CPU) {
		im->cpu_refs++;
	} else {
		im->cuda_refs++;
		dev_add(im, dev);
	}
	/* another device than the one asked for: not kept */
	if ((im->device >= 0 && dev != im->device) || (im->device == ET_HOST && dev != DEV_CPU)) {
		im->elsewhere++;
		return 0;
	}
	uint64_t limit = TRACE_BYTES_LIMIT;
	if ((uint64_t)x[4] > 1024 || (uint64_t)x[2] > limit || (uint64_t)x[3] > limit ||
	    (uint64_t)x[2] + (uint64_t)x[3] > limit / (x[4] ? (uint64_t)x[4] : 1))
		return bad(im, "offset %" PRId64 ", numel %" PRId64 " and itemsize %" PRId64
			   " reach past 2^62 bytes", x[2], x[3], x[4]);
	/* the storage reaches at least the end of every tensor on it: its
	 * offset (in elements) plus its elements */
	struct ref r = { .sid = x[1], .end = ((uint64_t)x[2] + (uint64_t)x[3]) * (uint64_t)x[4],
			 .dev = dev, .mode = mode, .flags = flags };
	return add_ref(im, &r);
}

/*
 * A value of type type (its ET type string, e.g. "Tensor(float)" or
 * "GenericList[Tensor(float),Int]"): its tensors as references.
 */
static int typed_value(struct im *im, const char *type, const char *tend,
		       const struct jv *v, uint8_t mode, uint8_t flags, int depth)
{
	if (depth > 8)
		return 0;
	size_t n = (size_t)(tend - type);
	if (n >= 6 && strncmp(type, "Tensor", 6) == 0 && (n == 6 || type[6] == '('))
		return tensor_value(im, v, mode, flags);
	const char *br = memchr(type, '[', n);
	if (!br || tend[-1] != ']' ||
	    !((br - type == 11 && strncmp(type, "GenericList", 11) == 0) ||
	      (br - type == 5 && strncmp(type, "Tuple", 5) == 0)))
		return 0; /* a scalar, a string, None, a device ... */
	if (v->type != JV_ARR)
		return bad(im, "%s where a list was expected (type %.*s)",
			   jv_type_name(v), (int)(n > 40 ? 40 : n), type);
	const char *p = br + 1, *s, *e;
	uint32_t i = 0;
	while (next_item(&p, tend - 1, &s, &e)) {
		if (i >= v->len)
			return bad(im, "the list has %" PRIu32 " values but more types", v->len);
		if (typed_value(im, s, e, &v->u.kids[i], mode, flags, depth + 1))
			return im->rc;
		i++;
	}
	if (v->len > ET_LIST_CUT)
		im->truncated++;
	return 0;
}

/*
 * The values of one side of a node with their types; kinds[i] the schema's
 * kind of value i (NULL: no schema).
 */
static int side(struct im *im, const char *side_name, const struct jv *vals,
		const struct jv *types, const uint8_t *kinds, size_t nkinds,
		int output, int inplace, int out_overload)
{
	if (!vals && !types)
		return 0;
	set_field(im, "%s", side_name);
	if (!vals || vals->type != JV_ARR)
		return bad(im, "values are %s, not an array", jv_type_name(vals));
	if (!types || types->type != JV_ARR)
		return bad(im, "types are %s, not an array", jv_type_name(types));
	if (types->len != vals->len)
		return bad(im, "%" PRIu32 " values but %" PRIu32 " types", vals->len, types->len);
	for (uint32_t i = 0; i < vals->len; i++) {
		const struct jv *ty = &types->u.kids[i];
		set_field(im, "%s[%" PRIu32 "]", side_name, i);
		if (ty->type != JV_STR)
			return bad(im, "the type is %s, not a string", jv_type_name(ty));
		uint8_t mode = TRACE_ACCESS_UNKNOWN, flags = output ? REF_OUT : 0;
		uint8_t ret = output ? REF_RET : 0;
		if (kinds && i < nkinds) {
			switch (kinds[i]) {
			case ARG_READ:
				mode = output ? TRACE_ACCESS_WRITE : TRACE_ACCESS_READ;
				flags = output ? REF_FRESH : 0;
				break;
			case ARG_WRITE:
				mode = output ? TRACE_ACCESS_UNKNOWN
					      : inplace && !out_overload ? TRACE_ACCESS_RW
									  : TRACE_ACCESS_WRITE;
				flags = output ? REF_VIEW : 0;
				break;
			case ARG_VIEW:
				flags = REF_VIEW;
				break;
			default:
				break;
			}
		} else if (kinds) {
			/* past the schema: extra values (triton's grid, stream) */
		}
		if (typed_value(im, ty->u.s, ty->u.s + ty->len, &vals->u.kids[i], mode,
				flags | ret, 0))
			return im->rc;
	}
	return 0;
}

/* --- nodes ---------------------------------------------------------------- */

/* The observer's own nodes ("[pytorch|profiler|execution_trace|thread]",
 * "...|process]"; "execution_graph" in 1.13): roots, not operators. */
static int root_name(const char *s)
{
	return strncmp(s, "[pytorch|profiler|execution_trace|", 34) == 0 ||
	       strncmp(s, "[pytorch|profiler|execution_graph|", 34) == 0;
}

static int read_node(struct im *im, const struct jv *n, size_t index)
{
	im->node_id = -1;
	if (n->type != JV_OBJ)
		return bad(im, "nodes[%zu] is %s, not an object", index, jv_type_name(n));
	const struct jv *id = jv_get(n, "id"), *name = jv_get(n, "name");
	if (!id || id->type != JV_INT || id->u.i < 0)
		return bad(im, "nodes[%zu], field 'id': %s, not a node id", index,
			   id && id->type == JV_INT ? "negative" : jv_type_name(id));
	im->node_id = id->u.i;
	snprintf(im->node_name, sizeof(im->node_name), "?");
	if (!name || name->type != JV_STR) {
		set_field(im, "name");
		return bad(im, "%s, not a string", jv_type_name(name));
	}
	snprintf(im->node_name, sizeof(im->node_name), "%s", name->u.s);
	if (map_get(&im->nodeids, (uint64_t)id->u.i) >= 0) {
		set_field(im, "id");
		return bad(im, "a second node with this id");
	}
	if (map_set(&im->nodeids, (uint64_t)id->u.i, 1))
		return nomem(im);
	int64_t parent = 0, rf = -1, v;
	const struct jv *pv = jv_get(n, "ctrl_deps");
	if (!pv)
		pv = jv_get(n, "parent");
	if (pv && want_int(im, pv, pv == jv_get(n, "ctrl_deps") ? "ctrl_deps" : "parent", 0, &parent))
		return im->rc;
	if (parent != id->u.i && map_set(&im->parents, (uint64_t)parent, 1))
		return nomem(im);
	const struct jv *rv = attr(n, "rf_id");
	if (rv) {
		if (want_int(im, rv, "rf_id", 0, &v))
			return im->rc;
		rf = v;
	}
	int bwd = 0;
	const struct jv *fv = attr(n, "fw_tid");
	if (fv) {
		if (want_int(im, fv, "fw_tid", 0, &v))
			return im->rc;
		bwd = v != 0;
	}
	im->nodes++;
	if (root_name(name->u.s)) {
		im->roots++;
		return 0;
	}
	/* children exit, and are written, before their parent: a composite
	 * operator (aten::linear, aten::addmm over its copy_) is kept for
	 * its rf_id (allocations inside it) and its fresh outputs (a storage
	 * it makes that its children only read or fill is born there) */
	int leaf = map_get(&im->parents, (uint64_t)id->u.i) < 0;
	/* the schema */
	const struct jv *sv = attr(n, "op_schema");
	uint8_t args[512], rets[64];
	size_t nargs = 0, nrets = 0;
	int have = 0;
	if (sv && sv->type == JV_STR && sv->len) {
		have = parse_schema(sv->u.s, args, &nargs, rets, &nrets, 64) == 0;
	} else if (sv && sv->type != JV_STR) {
		set_field(im, "op_schema");
		return bad(im, "%s, not a string", jv_type_name(sv));
	}
	/* the shape: nested (1.0.2 on) or flat (1.0.0/1.0.1) */
	const struct jv *in = jv_get(n, "inputs"), *out = jv_get(n, "outputs");
	const struct jv *iv, *it, *ov, *ot;
	if ((in && in->type == JV_OBJ) || (out && out->type == JV_OBJ)) {
		im->nested_seen = 1;
		iv = jv_get(in, "values");
		it = jv_get(in, "types");
		ov = jv_get(out, "values");
		ot = jv_get(out, "types");
		if (!in || !out) {
			set_field(im, in ? "outputs" : "inputs");
			return bad(im, "missing");
		}
	} else {
		im->flat_seen = 1;
		iv = in;
		it = jv_get(n, "input_types");
		ov = out;
		ot = jv_get(n, "output_types");
	}
	if (have && ((iv && iv->type == JV_ARR && iv->len < nargs) ||
		     (ov && ov->type == JV_ARR && ov->len != nrets)))
		have = 0; /* the values do not follow the schema */
	if (!have && leaf)
		im->no_schema++;
	if (im->nops >= MAX_NODES)
		return bad(im, "more than 2^31 operators");
	if (GROW(im->ops, im->capops, im->nops + 1))
		return nomem(im);
	struct op *o = &im->ops[im->nops];
	*o = (struct op){ .id = id->u.i, .rf_id = rf, .parent = parent, .ref0 = im->nrefs,
			  .t0 = TRACE_TIME_NONE, .t1 = TRACE_TIME_NONE, .bwd = bwd,
			  .step = !leaf && strncmp(name->u.s, STEP_NAME "#", sizeof(STEP_NAME)) == 0 };
	if (!(o->label = trace_intern(im->t, name->u.s)))
		return nomem(im);
	o->name = leaf ? o->label : NULL;
	/* the overload is in the schema only ("aten::add.out(...)") */
	const char *full = have ? sv->u.s : name->u.s;
	int inplace = in_place(full);
	const char *dot = strchr(full, '.'), *paren = strchr(full, '(');
	int out_overload = dot && (!paren || dot < paren) && strncmp(dot, ".out", 4) == 0;
	if (side(im, "inputs", iv, it, have ? args : NULL, nargs, 0, inplace, out_overload))
		return im->rc;
	size_t nin = im->nrefs;
	if (side(im, "outputs", ov, ot, have ? rets : NULL, nrets, 1, inplace, out_overload))
		return im->rc;
	if (!leaf) {
		/* its inputs (a storage only composite ops reach, as
		 * batch_norm's running statistics, is still live at the
		 * start) and fresh outputs, never accesses */
		size_t w = o->ref0;
		for (size_t r = o->ref0; r < im->nrefs; r++)
			if (r < nin || (im->refs[r].flags & REF_FRESH)) {
				im->refs[w] = im->refs[r];
				im->refs[w++].flags = r < nin ? REF_NL : REF_FRESH | REF_NL;
			}
		im->nrefs = w;
		im->nonleaf_skipped++;
	}
	size_t k = im->nrefs - o->ref0;
	if (k > UINT32_MAX)
		return bad(im, "more than 2^32 tensors");
	o->nref = (uint32_t)k;
	im->nops++;
	return 0;
}

/* Reads the execution trace: top-level fields, nodes one at a time. */
static int read_et(struct im *im, struct json_reader *jr)
{
	const char *key;
	int rc, have_nodes = 0;
	im->node_id = -1;
	if (json_peek(jr) == '[')
		return bad(im, "it is a JSON array, not an execution trace (an object with "
			   "'schema' and 'nodes'): a Chrome trace goes with --kineto");
	if (json_enter(jr, 1))
		goto json;
	while ((rc = json_next(jr, &key)) == 1) {
		if (strcmp(key, "schema") == 0) {
			struct jv *v;
			if (json_value(jr, &v))
				goto json;
			if (v->type != JV_STR)
				return bad(im, "field 'schema' is %s, not a version string",
					   jv_type_name(v));
			snprintf(im->schema, sizeof(im->schema), "%s", v->u.s);
		} else if (strcmp(key, "nodes") == 0) {
			have_nodes = 1;
			if (json_enter(jr, 0))
				goto json;
			size_t i = 0;
			while ((rc = json_next(jr, NULL)) == 1) {
				struct jv *v;
				if (json_value(jr, &v))
					goto json;
				if ((rc = read_node(im, v, i++)) != 0)
					return rc;
			}
			if (rc < 0)
				goto json;
			im->node_id = -1;
		} else if (json_skip(jr)) {
			goto json;
		}
	}
	if (rc < 0 || json_end(jr))
		goto json;
	if (!im->schema[0])
		return bad(im, "no field 'schema': not an execution trace");
	char *e;
	long major = strtol(im->schema, &e, 10);
	if (e == im->schema || *e != '.' || major != 1)
		return trace_seterr(im->err, im->errlen, TRACE_EVERSION,
				    "cannot read execution trace '%s': schema '%s' is not a version this build reads (1.0.0 to 1.1.1, any 1.x)",
				    im->name, im->schema);
	if (!have_nodes)
		return bad(im, "no field 'nodes'");
	if (im->nops == 0)
		return bad(im, "%zu nodes and no operator among them (only the observer's own "
			   "roots, or none): the observer was stopped before the step ran",
			   im->nodes);
	return 0;
json:
	im->node_id = -1;
	return bad(im, "%s", json_reader_error(jr));
}

/* --- the profiler trace --------------------------------------------------- */

static int kbad(struct im *im, size_t ev, const char *what, const char *field,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int kbad(struct im *im, size_t ev, const char *what, const char *field,
		const char *fmt, ...)
{
	int n = snprintf(im->err, im->errlen,
			 "cannot read profiler trace '%s': traceEvents[%zu] (%s), field '%s': ",
			 im->kname, ev, what, field);
	if (n >= 0 && (size_t)n < im->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(im->err + n, im->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return TRACE_EFORMAT;
}

/*
 * A time in microseconds (Chrome trace) as nanoseconds.  Kineto writes
 * times relative to its top-level baseTimeNanoseconds; older profilers,
 * and 1.x Kineto, microseconds since the epoch (1689360788495703): those
 * are shifted by the first such time read (only differences matter here),
 * before they become nanoseconds.  dur: a duration, never shifted.
 */
static int k_time(struct im *im, const struct jv *e, size_t ev, const char *what,
		  const char *field, int64_t *out)
{
	int dur = strcmp(field, "dur") == 0;
	const struct jv *v = jv_get(e, field);
	if (!v)
		return kbad(im, ev, what, field, "missing");
	double d;
	if (v->type == JV_INT)
		d = (double)v->u.i;
	else if (v->type == JV_NUM)
		d = v->u.d;
	else
		return kbad(im, ev, what, field, "%s, not a number", jv_type_name(v));
	if (!dur && !im->kabsolute && d > 9e12 && d < 9e15) {
		/* since the epoch (9e12 us: 1970-04-15; 9e15: 2255) */
		im->kabsolute = 1;
		im->kbase = (int64_t)floor(d);
	}
	if (!dur && im->kabsolute) {
		if (v->type == JV_INT && v->u.i > INT64_MIN / 2) /* exact, no double */
			d = (double)(v->u.i - im->kbase);
		else
			d -= (double)im->kbase;
	}
	if (!(d >= -9e12 && d <= 9e12))
		return kbad(im, ev, what, field, "%.17g microseconds is out of range%s", d,
			    im->kabsolute ? " (after the first time since the epoch)" : "");
	*out = (int64_t)llround(d * 1000.0);
	return 0;
}

static int k_int(struct im *im, const struct jv *args, size_t ev,
		 const char *what, const char *field, int64_t *out, int need)
{
	const struct jv *v = jv_get(args, field);
	if (!v) {
		if (need)
			return kbad(im, ev, what, field, "missing");
		*out = -1;
		return 0;
	}
	if (v->type != JV_INT)
		return kbad(im, ev, what, field, "%s, not an integer", jv_type_name(v));
	*out = v->u.i;
	return 0;
}

/* tid: an integer, or a string (hashed) on Kineto's GPU rows. */
static int64_t k_tid(const struct jv *e)
{
	const struct jv *v = jv_get(e, "tid");
	if (v && v->type == JV_INT)
		return v->u.i;
	if (v && v->type == JV_STR) {
		uint64_t h = 1469598103934665603ull;
		for (uint32_t i = 0; i < v->len; i++)
			h = (h ^ (uint8_t)v->u.s[i]) * 1099511628211ull;
		return (int64_t)(h >> 1);
	}
	return -1;
}

static int k_event(struct im *im, const struct jv *e, size_t ev)
{
	if (e->type != JV_OBJ)
		return kbad(im, ev, "?", "", "%s, not an object", jv_type_name(e));
	const struct jv *nm = jv_get(e, "name"), *cat = jv_get(e, "cat"),
			*args = jv_get(e, "args");
	const char *name = nm && nm->type == JV_STR ? nm->u.s : "?";
	const char *c = cat && cat->type == JV_STR ? cat->u.s : "";
	if (args && args->type != JV_OBJ)
		return kbad(im, ev, name, "args", "%s, not an object", jv_type_name(args));
	im->kevents++;
	if (strcmp(name, "[memory]") == 0) {
		struct mem m = { .ev = ev };
		int64_t dt, di, addr;
		if (!args)
			return kbad(im, ev, name, "args", "missing");
		if (!jv_get(args, "Addr"))
			return trace_seterr(im->err, im->errlen, TRACE_EFORMAT,
					    "cannot read profiler trace '%s': traceEvents[%zu] ([memory]) has no 'Addr': "
					    "its allocations cannot be told apart, so they cannot be joined with the execution trace "
					    "(record with a profiler that writes addresses, or import without --kineto)",
					    im->kname, ev);
		if (k_time(im, e, ev, name, "ts", &m.ts) ||
		    k_int(im, args, ev, name, "Addr", &addr, 1) ||
		    k_int(im, args, ev, name, "Bytes", &m.bytes, 1) ||
		    k_int(im, args, ev, name, "Total Reserved", &m.total_res, 0) ||
		    k_int(im, args, ev, name, "Device Type", &dt, 1) ||
		    k_int(im, args, ev, name, "Device Id", &di, 1))
			return TRACE_EFORMAT;
		if (m.bytes == 0 || m.bytes == INT64_MIN ||
		    (uint64_t)(m.bytes < 0 ? -m.bytes : m.bytes) >= TRACE_BYTES_LIMIT)
			return kbad(im, ev, name, "Bytes", "%" PRId64 " is not a size", m.bytes);
		/* c10::DeviceType: CPU 0 (Kineto's Device Id -1), CUDA 1; the
		 * events of the memory the trace is of are kept after the ET
		 * (choose_memory()) */
		if (dt == 1) {
			if (di < 0 || di > MAX_DEVICE)
				return kbad(im, ev, name, "Device Id", "%" PRId64 " is not a CUDA device",
					    di);
			m.dev = (int32_t)di;
		} else if (dt == 0) {
			m.dev = DEV_CPU;
		} else {
			return 0;
		}
		if ((im->device >= 0 && m.dev != im->device) ||
		    (im->device == ET_HOST && m.dev != DEV_CPU))
			return 0;
		m.addr = (uint64_t)addr;
		m.tid = k_tid(e);
		if (GROW(im->mem, im->capmem, im->nmem + 1))
			return nomem(im);
		im->mem[im->nmem++] = m;
		return 0;
	}
	const struct jv *ph = jv_get(e, "ph");
	if (!ph || ph->type != JV_STR || strcmp(ph->u.s, "X") != 0)
		return 0;
	if (strcmp(c, "cpu_op") == 0) {
		struct cpuop o = { .tid = k_tid(e), .parent = -1 };
		int64_t dur;
		if (k_time(im, e, ev, name, "ts", &o.ts) ||
		    k_time(im, e, ev, name, "dur", &dur) ||
		    k_int(im, args, ev, name, "External id", &o.ext, 0) ||
		    k_int(im, args, ev, name, "Record function id", &o.rf, 0))
			return TRACE_EFORMAT;
		if (dur < 0)
			return kbad(im, ev, name, "dur", "negative");
		if (o.rf < 0)
			o.rf = o.ext; /* older profilers: the ET's rf_id is the External id */
		o.end = o.ts + dur;
		if (!(o.name = trace_intern(im->t, name)))
			return nomem(im);
		if (GROW(im->cpu, im->capcpu, im->ncpu + 1))
			return nomem(im);
		im->cpu[im->ncpu++] = o;
	} else if (strcmp(c, "cuda_runtime") == 0 || strcmp(c, "cuda_driver") == 0) {
		struct rt r;
		if (k_int(im, args, ev, name, "correlation", &r.corr, 0) ||
		    k_int(im, args, ev, name, "External id", &r.ext, 0))
			return TRACE_EFORMAT;
		if (r.corr < 0 || r.ext < 0)
			return 0;
		if (GROW(im->rt, im->caprt, im->nrt + 1))
			return nomem(im);
		im->rt[im->nrt++] = r;
	} else if (strcmp(c, "kernel") == 0 || strcmp(c, "gpu_memcpy") == 0 ||
		   strcmp(c, "gpu_memset") == 0) {
		struct kern k = { .type = TRACE_EV_KERNEL };
		int64_t dur, bytes;
		if (k_time(im, e, ev, name, "ts", &k.ts) ||
		    k_time(im, e, ev, name, "dur", &dur) ||
		    k_int(im, args, ev, name, "correlation", &k.corr, 1) ||
		    k_int(im, args, ev, name, "bytes", &bytes, 0))
			return TRACE_EFORMAT;
		if (c[4] == 'm') { /* gpu_memcpy, gpu_memset */
			k.type = c[7] == 'c' ? TRACE_EV_COPY : TRACE_EV_MEMSET;
			k.bytes = bytes > 0 ? (uint64_t)bytes : 0;
			/* Kineto names copies "Memcpy HtoD (Pinned -> Device)" */
			k.aux = strstr(name, "HtoD") ? TRACE_COPY_H2D
				: strstr(name, "DtoH") ? TRACE_COPY_D2H
				: strstr(name, "DtoD") ? TRACE_COPY_D2D
				: strstr(name, "PtoP") ? TRACE_COPY_P2P
				: strstr(name, "HtoH") ? TRACE_COPY_H2H : TRACE_COPY_UNKNOWN;
		}
		if (dur < 0)
			return kbad(im, ev, name, "dur", "negative");
		k.end = k.ts + dur;
		if (GROW(im->kern, im->capkern, im->nkern + 1))
			return nomem(im);
		im->kern[im->nkern++] = k;
	}
	return 0;
}

static int read_kineto(struct im *im, struct json_reader *jr)
{
	const char *key;
	int rc, have = 0;
	if (json_peek(jr) == '[')
		return trace_seterr(im->err, im->errlen, TRACE_EFORMAT,
				    "cannot read profiler trace '%s': it is a Chrome trace array, what "
				    "export_chrome_trace() writes without Kineto (PyTorch built without it, "
				    "as Debian's): it has no [memory] events with addresses; record with a "
				    "PyTorch that has Kineto (torch.autograd.kineto_available()), or import "
				    "the execution trace alone (sizes and frees inferred)",
				    im->kname);
	if (json_enter(jr, 1))
		goto json;
	while ((rc = json_next(jr, &key)) == 1) {
		if (strcmp(key, "traceEvents") != 0) {
			if (json_skip(jr))
				goto json;
			continue;
		}
		have = 1;
		if (json_enter(jr, 0))
			goto json;
		size_t i = 0;
		while ((rc = json_next(jr, NULL)) == 1) {
			struct jv *v;
			if (json_value(jr, &v))
				goto json;
			if ((rc = k_event(im, v, i++)) != 0)
				return rc;
		}
		if (rc < 0)
			goto json;
	}
	if (rc < 0 || json_end(jr))
		goto json;
	if (!have)
		return trace_seterr(im->err, im->errlen, TRACE_EFORMAT,
				    "cannot read profiler trace '%s': no field 'traceEvents': not a Chrome trace of torch.profiler",
				    im->kname);
	return 0;
json:
	return trace_seterr(im->err, im->errlen, TRACE_EFORMAT,
			    "cannot read profiler trace '%s': %s", im->kname,
			    json_reader_error(jr));
}

/* --- resolving storages --------------------------------------------------- */

static uint64_t round_up(uint64_t n)
{
	return (n + ALIGN - 1) / ALIGN * ALIGN;
}

/* qsort() of n items, none when n is 0 (qsort(NULL, 0) is undefined) */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int cmp_op(const void *a, const void *b)
{
	const struct op *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int new_gen(struct im *im, int64_t born, int64_t *out)
{
	if (GROW(im->gens, im->capgens, im->ngens + 1))
		return nomem(im);
	im->gens[im->ngens] = (struct gen){ .born = born, .last = born,
		.alloc_mem = -1, .free_mem = -1, .buf = -1, .snap = -1, .next = -1,
		.nl_until = -1 };
	*out = (int64_t)im->ngens++;
	return 0;
}

/*
 * Operators to entry order, storage ids to buffers (gens).  Address-derived
 * ids (no storage id equals a node id) start a new buffer at each fresh
 * output; unique ids are buffers themselves.
 */
static int resolve(struct im *im)
{
	sort(im->ops, im->nops, sizeof(*im->ops), cmp_op);
	for (size_t i = 0; i < im->nrefs && !im->unique_ids; i++)
		if (map_get(&im->nodeids, (uint64_t)im->refs[i].sid) >= 0)
			im->unique_ids = 1;
	/* each op's subtree: it and the ops after it up to its last
	 * descendant (children enter after their parent) */
	struct map cur = { 0 };
	for (size_t i = 0; i < im->nops; i++)
		if (map_set(&cur, (uint64_t)im->ops[i].id, (int64_t)i)) {
			map_free(&cur);
			return nomem(im);
		}
	for (size_t i = 0; i < im->nops; i++) {
		int64_t p = im->ops[i].parent != im->ops[i].id
				    ? map_get(&cur, (uint64_t)im->ops[i].parent) : -1;
		im->ops[i].up = p >= 0 && p < (int64_t)i ? p : -1;
		im->ops[i].sub_end = (int64_t)i;
	}
	for (size_t i = im->nops; i-- > 0;) {
		int64_t p = im->ops[i].up;
		if (p >= 0 && im->ops[p].sub_end < im->ops[i].sub_end)
			im->ops[p].sub_end = im->ops[i].sub_end;
	}
	map_free(&cur);
	for (size_t i = 0; i < im->nops; i++) {
		struct op *o = &im->ops[i];
		for (int pass = 0; pass < 2; pass++) /* inputs, then outputs */
			for (uint32_t j = 0; j < o->nref; j++) {
				struct ref *r = &im->refs[o->ref0 + j];
				int out = (r->flags & (REF_FRESH | REF_OUT)) != 0;
				int ret = !out && (r->flags & (REF_RET | REF_NL)) == REF_RET;
				if (ret ? pass == 0 : out != pass)
					continue; /* results after the inputs */
				int64_t g = map_get(&cur, (uint64_t)r->sid);
				/* a storage first seen as an in-place op's or a
				 * view's result (aten::resize_ gives its self a new
				 * one): born here, as a fresh output */
				if (g < 0 && ret) {
					out = 1;
					r->flags |= REF_FRESH;
				}
				/* a fresh output on a storage id seen before is a
				 * new storage at a reused address, unless the old
				 * one is still in use here or inside the composite
				 * op that made it */
				int start = g < 0 ||
					    ((r->flags & REF_FRESH) && !im->unique_ids &&
					     im->gens[g].last < (int64_t)i &&
					     im->gens[g].nl_until < (int64_t)i);
				/* an input that reaches past a storage made in the
				 * window, no longer in use: another storage at its
				 * address, made with no operator (a Python number
				 * wrapped as a tensor for aten::add_): born here */
				int grown = !start && !out && !im->unique_ids &&
					    im->gens[g].born >= 0 && im->gens[g].last < (int64_t)i &&
					    im->gens[g].nl_until < (int64_t)i && r->end > im->gens[g].size;
				if (!start && !grown && (r->flags & REF_NL)) {
					/* a composite's output its children
					 * made, or a storage it passes on */
					r->sid = g;
					r->flags = REF_NL | REF_VIEW;
					continue;
				}
				if (start || grown) {
					if (new_gen(im, out || grown ? (int64_t)i : -1, &g) ||
					    map_set(&cur, (uint64_t)r->sid, g)) {
						map_free(&cur);
						return nomem(im);
					}
					im->gens[g].in_birth = grown;
					im->in_births += (size_t)grown;
					start = 1;
					if ((r->flags & REF_NL) && out) {
						im->gens[g].nl_until = o->sub_end;
						im->nl_births++;
					}
				}
				if (!start && (r->flags & REF_FRESH))
					r->flags &= (uint8_t)~REF_FRESH; /* not its start */
				if (!start && (r->flags & REF_OUT))
					r->flags &= (uint8_t)~REF_OUT;
				if (start && out)
					r->flags |= REF_FRESH;
				struct gen *ge = &im->gens[g];
				if (start)
					ge->birth_size = r->end;
				if (r->end > ge->size)
					ge->size = r->end;
				if (ge->next < 0 && (int64_t)i != ge->born)
					ge->next = (int64_t)i;
				ge->last = (int64_t)i;
				ge->used_bwd |= o->bwd;
				r->sid = g;
			}
	}
	map_free(&cur);
	return 0;
}

/* --- joining the profiler trace ------------------------------------------- */

static int cmp_cpu(const void *a, const void *b)
{
	const struct cpuop *x = a, *y = b;
	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	if (x->ts != y->ts)
		return (x->ts > y->ts) - (x->ts < y->ts);
	return (x->end < y->end) - (x->end > y->end); /* outer first */
}

static int cmp_mem(const void *a, const void *b)
{
	const struct mem *x = a, *y = b;
	if (x->ts != y->ts)
		return (x->ts > y->ts) - (x->ts < y->ts);
	return (x->ev > y->ev) - (x->ev < y->ev);
}

/* The innermost cpu_op on tid that contains time ts, or -1. */
/* The first cpu_op on tid that starts after ts, or -1. */
static int64_t next_cpu(const struct im *im, int64_t tid, int64_t ts)
{
	size_t lo = 0, hi = im->ncpu;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cpuop *c = &im->cpu[mid];
		if (c->tid < tid || (c->tid == tid && c->ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < im->ncpu && im->cpu[lo].tid == tid ? (int64_t)lo : -1;
}

static int64_t innermost(const struct im *im, int64_t tid, int64_t ts)
{
	size_t lo = 0, hi = im->ncpu;
	while (lo < hi) { /* first index with (tid, ts') > (tid, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const struct cpuop *c = &im->cpu[mid];
		if (c->tid < tid || (c->tid == tid && c->ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	int64_t j = (int64_t)lo - 1;
	if (im->cpu[j].tid != tid)
		return -1;
	while (j >= 0 && im->cpu[j].end < ts)
		j = im->cpu[j].parent;
	return j;
}

/* How many of (up to) the first 4,096 operators with an rf_id find a
 * record of their name at rf_id + d. */
static size_t rf_matches(const struct im *im, const struct map *rf, int64_t d)
{
	size_t n = 0, tried = 0;
	for (size_t i = 0; i < im->nops && tried < 4096; i++) {
		const struct op *o = &im->ops[i];
		if (o->rf_id < 0)
			continue;
		tried++;
		/* wraps, defined, where a wild offset would overflow */
		int64_t c = map_get(rf, (uint64_t)o->rf_id + (uint64_t)d);
		n += c >= 0 && strcmp(im->cpu[c].name, o->label) == 0;
	}
	return n;
}

/*
 * The difference between the profiler's record ids and the ET's rf_ids.
 * PyTorch 2 writes both the same ("Record function id"); 1.13's
 * ExecutionGraphObserver writes the RecordFunction handle while its
 * profiler names operators by its own correlation counter, equal only when
 * both saw the same operators since the process began (a profiler started
 * earlier, as with a schedule, runs ahead by the operators only it saw).
 * 0 when most names agree; else the offset, among those that put the first
 * operators' names on a record of the same name, that agrees most.
 */
static int64_t rf_offset(const struct im *im, const struct map *rf)
{
	size_t tried = 0;
	for (size_t i = 0; i < im->nops && tried < 4096; i++)
		tried += im->ops[i].rf_id >= 0;
	size_t best = rf_matches(im, rf, 0);
	if (best * 10 >= tried * 9)
		return 0;
	int64_t bestd = 0;
	size_t cands = 0;
	for (size_t i = 0, ops = 0; i < im->nops && ops < 8; i++) {
		const struct op *o = &im->ops[i];
		if (o->rf_id < 0)
			continue;
		ops++;
		for (size_t c = 0; c < im->ncpu && cands < 256; c++) {
			const struct cpuop *k = &im->cpu[c];
			if (k->rf < 0 || strcmp(k->name, o->label) != 0)
				continue;
			cands++;
			int64_t d = k->rf - o->rf_id;
			size_t m = rf_matches(im, rf, d);
			if (m > best) {
				best = m;
				bestd = d;
			}
		}
	}
	return bestd;
}

static int join_kineto(struct im *im)
{
	sort(im->cpu, im->ncpu, sizeof(*im->cpu), cmp_cpu);
	sort(im->mem, im->nmem, sizeof(*im->mem), cmp_mem);
	/* nesting on each thread */
	int64_t *stack = malloc((im->ncpu + 1) * sizeof(*stack));
	struct map rf = { 0 }, ext = { 0 }, corr = { 0 }, etrf = { 0 };
	int rc = 0;
	if (!stack) {
		rc = nomem(im);
		goto out;
	}
	size_t sp = 0;
	for (size_t i = 0; i < im->ncpu; i++) {
		struct cpuop *c = &im->cpu[i];
		while (sp && (im->cpu[stack[sp - 1]].tid != c->tid ||
			      im->cpu[stack[sp - 1]].end < c->ts))
			sp--;
		c->parent = sp ? stack[sp - 1] : -1;
		stack[sp++] = (int64_t)i;
		if ((c->rf >= 0 && map_set(&rf, (uint64_t)c->rf, (int64_t)i)) ||
		    (c->ext >= 0 && map_set(&ext, (uint64_t)c->ext, (int64_t)i))) {
			rc = nomem(im);
			goto out;
		}
	}
	for (size_t i = 0; i < im->nrt; i++)
		if (map_set(&corr, (uint64_t)im->rt[i].corr, im->rt[i].ext)) {
			rc = nomem(im);
			goto out;
		}
	/* GPU time of each cpu_op: its kernels through correlation */
	int64_t *t0 = malloc((im->ncpu + 1) * 2 * sizeof(int64_t));
	if (!t0) {
		rc = nomem(im);
		goto out;
	}
	int64_t *t1 = t0 + im->ncpu + 1;
	for (size_t i = 0; i < im->ncpu; i++)
		t0[i] = INT64_MAX, t1[i] = INT64_MIN;
	/* what the op ran: 0 nothing yet, else a kern type (mixed: KERNEL) */
	uint8_t *ktype = calloc(im->ncpu + 1, 3);
	uint64_t *kbytes = calloc(im->ncpu + 1, sizeof(uint64_t));
	if (!ktype || !kbytes) {
		free(ktype);
		free(kbytes);
		free(t0);
		rc = nomem(im);
		goto out;
	}
	uint8_t *kaux = ktype + im->ncpu + 1;
	for (size_t i = 0; i < im->nkern; i++) {
		int64_t x = map_get(&corr, (uint64_t)im->kern[i].corr);
		int64_t c = x < 0 ? -1 : map_get(&ext, (uint64_t)x);
		if (c < 0)
			continue;
		if (im->kern[i].ts < t0[c])
			t0[c] = im->kern[i].ts;
		if (im->kern[i].end > t1[c])
			t1[c] = im->kern[i].end;
		const struct kern *k = &im->kern[i];
		if (!ktype[c])
			ktype[c] = (uint8_t)(k->type + 1), kaux[c] = k->aux;
		else if (ktype[c] != k->type + 1 || kaux[c] != k->aux)
			ktype[c] = TRACE_EV_KERNEL + 1;
		kbytes[c] += k->bytes;
	}
	/* operators: their place (end of the cpu_op) and GPU time */
	int64_t last = INT64_MIN;
	im->rf_offset = rf_offset(im, &rf);
	for (size_t i = 0; i < im->nops; i++) {
		struct op *o = &im->ops[i];
		int64_t c = o->rf_id >= 0 ? map_get(&rf, (uint64_t)o->rf_id + (uint64_t)im->rf_offset)
					  : -1;
		if (c >= 0 && strcmp(im->cpu[c].name, o->label) != 0)
			c = -1; /* another operator: not this one's record */
		o->t0 = o->t1 = TRACE_TIME_NONE;
		if (c < 0) {
			if (o->name)
				im->not_in_kineto++;
			o->key = last;
		} else {
			o->key = im->cpu[c].end;
			if (t0[c] <= t1[c]) {
				o->t0 = t0[c];
				o->t1 = t1[c];
			}
			if (ktype[c] && ktype[c] - 1 != TRACE_EV_KERNEL) {
				o->type = (uint8_t)(ktype[c] - 1);
				o->aux = kaux[c];
				o->bytes = kbytes[c];
			}
		}
		last = o->key;
		if (c >= 0 && map_set(&etrf, (uint64_t)im->cpu[c].rf, (int64_t)i)) {
			free(t0);
			free(ktype);
			free(kbytes);
			rc = nomem(im);
			goto out;
		}
	}
	free(t0);
	free(ktype);
	free(kbytes);
	/* allocations to the fresh outputs of the operator that made them */
	for (size_t m = 0; m < im->nmem; m++) {
		struct mem *me = &im->mem[m];
		if (me->bytes < 0)
			continue;
		int64_t c = innermost(im, me->tid, me->ts);
		int64_t oi = c < 0 || im->cpu[c].rf < 0 ? -1 : map_get(&etrf, (uint64_t)im->cpu[c].rf);
		/* the op's own fresh outputs, else those of the composite ops
		 * around it that are born there (aten::linear's output, made
		 * inside aten::addmm): the nearest of the allocation's size
		 * (or block size), else the nearest it can hold; a storage of
		 * no bytes is never allocated */
		struct gen *pick = NULL;
		for (int pass = 0; pass < 2 && !pick; pass++)
			for (int64_t x = oi; x >= 0 && !pick; x = im->ops[x].up) {
				struct op *o = &im->ops[x];
				for (uint32_t j = 0; j < o->nref && !pick; j++) {
					struct ref *r = &im->refs[o->ref0 + j];
					struct gen *g = &im->gens[r->sid];
					uint64_t b = (uint64_t)me->bytes;
					if (!(r->flags & REF_FRESH) || g->born != x || g->alloc_mem >= 0 ||
					    g->birth_size == 0)
						continue;
					if (pass == 0 ? b == g->birth_size || b == round_up(g->birth_size)
						      : x == oi || b >= g->birth_size)
						pick = g;
				}
			}
		if (!pick) {
			/* made just before the op that reads it (a wrapped
			 * number): the next op entered on the thread */
			int64_t nx = next_cpu(im, me->tid, me->ts);
			int64_t x = nx < 0 || im->cpu[nx].rf < 0 ? -1
				    : map_get(&etrf, (uint64_t)im->cpu[nx].rf);
			for (uint32_t j = 0; x >= 0 && j < im->ops[x].nref && !pick; j++) {
				struct gen *g = &im->gens[im->refs[im->ops[x].ref0 + j].sid];
				if (g->in_birth && g->born == x && g->alloc_mem < 0 &&
				    (uint64_t)me->bytes >= g->birth_size)
					pick = g;
			}
		}
		if (pick)
			pick->alloc_mem = (int64_t)m;
	}
out:
	free(stack);
	map_free(&rf);
	map_free(&ext);
	map_free(&corr);
	map_free(&etrf);
	return rc;
}

/* --- the trace ------------------------------------------------------------ */

struct item {
	int64_t key;
	uint8_t kind; /* 0 alloc, 1 op, 2 free, 3 a snapshot's mark */
	int64_t idx;  /* alloc/free: buffer; op: op index; mark: its event */
	int64_t ord;
	int64_t ts;
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return (x->ord > y->ord) - (x->ord < y->ord);
}

static int add_buf_role(struct im *im, uint64_t size, uint64_t rounded,
			uint64_t addr, const char *label, uint8_t role, int64_t *id)
{
	struct trace_buffer b = { .size = size, .rounded = rounded, .addr = addr,
				  .align = im->align, .fixed_offset = TRACE_NONE,
				  .stream = TRACE_NONE, .device = im->device < 0 ? 0 : im->device,
				  .kind = TRACE_KIND_DEVICE, .label = label, .role = role };
	int64_t r = trace_add_buffer(im->t, &b);
	if (r < 0)
		return nomem(im);
	*id = r;
	return 0;
}

static int add_buf(struct im *im, uint64_t size, uint64_t rounded, uint64_t addr,
		   const char *label, int64_t *id)
{
	return add_buf_role(im, size, rounded, addr, label, TRACE_ROLE_UNKNOWN, id);
}

static int h2d(const struct op *o)
{
	return o->type == TRACE_EV_COPY && o->aux == TRACE_COPY_H2D;
}

/*
 * Roles the operators tell: a buffer filled from the host as it is made
 * (its maker, or the first op after it, ran only a host-to-device copy:
 * aten::to's empty_strided and copy_) is an input; another that a forward
 * operator made and the backward pass reaches is an activation (saved for
 * backward), what vDNN-style offload moves.
 */
static uint8_t gen_role(const struct im *im, const struct gen *g)
{
	if (g->born < 0)
		return TRACE_ROLE_UNKNOWN;
	if (h2d(&im->ops[g->born]) || (g->next >= 0 && h2d(&im->ops[g->next])))
		return TRACE_ROLE_INPUT;
	return !im->ops[g->born].bwd && g->used_bwd ? TRACE_ROLE_ACTIVATION
						   : TRACE_ROLE_UNKNOWN;
}

/*
 * Allocations and frees on the GPU's clock.  The profiler stamps them with
 * the host's time, which runs ahead of the device; in stream order an
 * allocation takes effect where the kernels launched before it end.  So
 * each alloc and free gets the latest end of the kernels before it (the
 * first kernel's start before any), as the zoo times its own; without any
 * kernel time they keep none.
 */
static void stream_times(struct trace *t)
{
	int64_t now = TRACE_TIME_NONE;
	for (size_t i = 0; i < t->nevents && now == TRACE_TIME_NONE; i++)
		if (t->events[i].type >= TRACE_EV_KERNEL && t->events[i].type <= TRACE_EV_MEMSET)
			now = t->events[i].t_start;
	for (size_t i = 0; i < t->nevents; i++) {
		struct trace_event *e = &t->events[i];
		if (e->type == TRACE_EV_KERNEL || e->type == TRACE_EV_COPY ||
		    e->type == TRACE_EV_MEMSET) {
			if (e->t_end != TRACE_TIME_NONE && (now == TRACE_TIME_NONE || e->t_end > now))
				now = e->t_end;
		} else {
			e->t_start = now;
			e->t_end = now;
		}
	}
}

static int push_item(struct item **it, size_t *n, size_t *cap, struct item x)
{
	if (GROW(*it, *cap, *n + 1))
		return -1;
	(*it)[(*n)++] = x;
	return 0;
}

static int emit(struct im *im, const struct item *it, size_t n,
		const int64_t *bufkey0, const int64_t *bufkey1);

/*
 * Builds buffers and events.  Without a profiler trace every key is the
 * operator's index: allocs before the op that makes them, frees after the
 * last op that reaches them (persistent: buffers seen first as inputs).
 */
static int build(struct im *im, int kineto)
{
	struct item *it = NULL;
	size_t n = 0, cap = 0;
	int64_t *bufkey0 = NULL, *bufkey1 = NULL;
	struct map open = { 0 };
	int rc = 0;
	/* buffers of the ET's storages */
	for (size_t g = 0; g < im->ngens; g++) {
		struct gen *ge = &im->gens[g];
		if (kineto && ge->alloc_mem >= 0) {
			const struct mem *m = &im->mem[ge->alloc_mem];
			if ((rc = add_buf_role(im, (uint64_t)m->bytes, (uint64_t)m->bytes, m->addr,
					       im->ops[ge->born].label, gen_role(im, ge), &ge->buf)))
				goto out;
		} else if (ge->size > 0) {
			if (kineto && ge->born >= 0)
				im->unmatched_out++;
			uint64_t rounded = im->host ? (ge->size + 63) / 64 * 64 : round_up(ge->size);
			if ((rc = add_buf_role(im, ge->size, rounded, 0,
					       ge->born >= 0 ? im->ops[ge->born].label : NULL,
					       gen_role(im, ge), &ge->buf)))
				goto out;
		}
	}
	/* the profiler's allocations nobody claimed, and its frees */
	int64_t *memgen = NULL;
	if (kineto) {
		memgen = malloc((im->nmem + 1) * sizeof(*memgen));
		if (!memgen) {
			rc = nomem(im);
			goto out;
		}
		for (size_t m = 0; m < im->nmem; m++)
			memgen[m] = -1;
		for (size_t g = 0; g < im->ngens; g++)
			if (im->gens[g].alloc_mem >= 0)
				memgen[im->gens[g].alloc_mem] = im->gens[g].buf;
	}
	size_t nbuf_cap = im->t->nbuffers + im->nmem + 1;
	bufkey0 = malloc(nbuf_cap * sizeof(int64_t));
	bufkey1 = malloc(nbuf_cap * sizeof(int64_t));
	if (!bufkey0 || !bufkey1) {
		free(memgen);
		rc = nomem(im);
		goto out;
	}
	for (size_t b = 0; b < nbuf_cap; b++)
		bufkey0[b] = INT64_MIN, bufkey1[b] = INT64_MAX;
	int64_t ord = 0;
	if (kineto) {
		for (size_t m = 0; m < im->nmem && !rc; m++) {
			const struct mem *me = &im->mem[m];
			if (me->bytes > 0) {
				int64_t b = memgen[m];
				if (b < 0) {
					int64_t c = innermost(im, me->tid, me->ts);
					if ((rc = add_buf(im, (uint64_t)me->bytes, (uint64_t)me->bytes,
							  me->addr, c >= 0 ? im->cpu[c].name : NULL, &b)))
						break;
				}
				if (map_set(&open, me->addr, b) ||
				    push_item(&it, &n, &cap, (struct item){ me->ts, 0, b, ord++, me->ts })) {
					rc = nomem(im);
					break;
				}
				bufkey0[b] = me->ts;
			} else {
				/* INT64_MAX: freed (a negative value would empty the slot) */
				int64_t b = map_get(&open, me->addr);
				if (b == INT64_MAX)
					b = -1;
				if (b >= 0) {
					if (map_set(&open, me->addr, INT64_MAX)) {
						rc = nomem(im);
						break;
					}
				} else {
					/* a buffer from before the window: an ET storage
					 * of that size (or block size), seen last before
					 * the free, or a new buffer */
					uint64_t sz = (uint64_t)-me->bytes;
					for (size_t g = 0; g < im->ngens && b < 0; g++) {
						struct gen *ge = &im->gens[g];
						if (ge->buf >= 0 && ge->alloc_mem < 0 && ge->free_mem < 0 &&
						    ge->born < 0 &&
						    (ge->size == sz || round_up(ge->size) == sz) &&
						    im->ops[ge->last].key < me->ts) {
							ge->free_mem = (int64_t)m;
							b = ge->buf;
						}
					}
					if (b < 0) {
						im->unmatched_free++;
						if ((rc = add_buf(im, sz, sz, me->addr, NULL, &b)))
							break;
					}
				}
				if (push_item(&it, &n, &cap, (struct item){ me->ts, 2, b, ord++, me->ts })) {
					rc = nomem(im);
					break;
				}
				bufkey1[b] = me->ts;
			}
		}
		free(memgen);
		if (rc)
			goto out;
	}
	/* operators, and without a profiler trace the inferred allocs and frees */
	for (size_t i = 0; i < im->nops; i++) {
		struct op *o = &im->ops[i];
		int64_t key = kineto ? o->key : (int64_t)i;
		if (!kineto)
			for (uint32_t j = 0; j < o->nref; j++) {
				struct gen *g = &im->gens[im->refs[o->ref0 + j].sid];
				if (g->born == (int64_t)i && g->buf >= 0 && bufkey0[g->buf] == INT64_MIN) {
					bufkey0[g->buf] = key;
					if (push_item(&it, &n, &cap, (struct item){ key, 0, g->buf, ord++, TRACE_TIME_NONE }))
						goto oom;
				}
			}
		if (kineto)
			for (uint32_t j = 0; j < o->nref; j++) {
				/* outputs the profiler did not see allocated: born
				 * here (a composite op's key is its end: before
				 * the first op that reaches it instead) */
				struct gen *g = &im->gens[im->refs[o->ref0 + j].sid];
				if (g->born == (int64_t)i && g->buf >= 0 && g->alloc_mem < 0 &&
				    bufkey0[g->buf] == INT64_MIN) {
					int64_t k = !o->name && g->next >= 0 ? im->ops[g->next].key : key;
					bufkey0[g->buf] = k;
					if (push_item(&it, &n, &cap, (struct item){ k, 0, g->buf, ord++, TRACE_TIME_NONE }))
						goto oom;
				}
			}
		if (o->name && push_item(&it, &n, &cap, (struct item){ key, 1, (int64_t)i, ord++, 0 }))
			goto oom;
		if (!kineto)
			for (uint32_t j = 0; j < o->nref; j++) {
				struct gen *g = &im->gens[im->refs[o->ref0 + j].sid];
				if (g->last == (int64_t)i && g->born >= 0 && g->buf >= 0 &&
				    bufkey1[g->buf] == INT64_MAX) {
					bufkey1[g->buf] = key;
					if (push_item(&it, &n, &cap, (struct item){ key, 2, g->buf, ord++, TRACE_TIME_NONE }))
						goto oom;
				}
			}
	}
	sort(it, n, sizeof(*it), cmp_item);
	if ((rc = emit(im, it, n, bufkey0, bufkey1)) != 0)
		goto out;
	if (kineto)
		stream_times(im->t);
	goto out;
oom:
	rc = nomem(im);
out:
	free(it);
	free(bufkey0);
	free(bufkey1);
	map_free(&open);
	return rc;
}

/*
 * The events of the sorted items, with each operator's accesses to the
 * buffers live then (bufkey0 < key < bufkey1, by buffer; alloc, op and
 * free items of one key sort in that order).  Marks (kind 3) are copied
 * from the snapshot.
 */
/*
 * Where each profiler step begins among the sorted items: its first
 * operator, or the allocation of that operator's output.  A step holds
 * the operators entered after its ProfilerStep#N node and before the next
 * one's (node ids count entries, on every thread).  Sets start[k] for the
 * *nsteps steps; 0 steps when there are none or they do not follow in
 * order.  Returns 0 or TRACE_ENOMEM.
 */
static int step_starts(struct im *im, const struct item *it, size_t n,
		       size_t **start, size_t *nsteps)
{
	*start = NULL;
	*nsteps = 0;
	size_t ns = 0;
	for (size_t i = 0; i < im->nops; i++)
		ns += im->ops[i].step != 0;
	if (!ns)
		return 0;
	int64_t *stepof = malloc((im->nops + 1) * sizeof(*stepof));
	int64_t *bufop = malloc((im->t->nbuffers + 1) * sizeof(*bufop));
	size_t *st = malloc(ns * sizeof(*st));
	if (!stepof || !bufop || !st) {
		free(stepof);
		free(bufop);
		free(st);
		return nomem(im);
	}
	int64_t k = -1;
	for (size_t i = 0; i < im->nops; i++) {
		k += im->ops[i].step != 0;
		stepof[i] = k;
	}
	for (size_t b = 0; b < im->t->nbuffers; b++)
		bufop[b] = -1;
	for (size_t g = 0; g < im->ngens; g++)
		if (im->gens[g].buf >= 0 && im->gens[g].born >= 0)
			bufop[im->gens[g].buf] = im->gens[g].born;
	for (size_t s = 0; s < ns; s++)
		st[s] = SIZE_MAX;
	for (size_t x = 0; x < n; x++) {
		int64_t op = it[x].kind == 1 ? it[x].idx
			     : it[x].kind == 0 && it[x].idx >= 0 ? bufop[it[x].idx] : -1;
		if (op >= 0 && stepof[op] >= 0 && st[stepof[op]] == SIZE_MAX)
			st[stepof[op]] = x;
	}
	int ordered = 1;
	for (size_t s = 0; s < ns; s++)
		if (st[s] == SIZE_MAX || (s && st[s] <= st[s - 1]))
			ordered = 0;
	free(stepof);
	free(bufop);
	if (!ordered) {
		free(st);
		return 0;
	}
	*start = st;
	*nsteps = ns;
	return 0;
}

static int add_mark(struct im *im, uint8_t aux)
{
	struct trace_event e = { .seq = trace_next_seq(im->t), .t_start = TRACE_TIME_NONE,
				 .t_end = TRACE_TIME_NONE, .buffer = TRACE_NONE,
				 .stream = TRACE_NONE, .type = TRACE_EV_MARK, .aux = aux,
				 .name = STEP_NAME };
	return trace_add_event(im->t, &e) < 0 ? nomem(im) : 0;
}

static int emit(struct im *im, const struct item *it, size_t n,
		const int64_t *bufkey0, const int64_t *bufkey1)
{
	/* profiler steps as ranges: begin at each step's first item, end at
	 * the next one's begin or after the last item */
	size_t *start, nsteps, next = 0;
	if (step_starts(im, it, n, &start, &nsteps))
		return im->rc;
	im->steps = nsteps;
	/* an access needs its buffer live: strictly inside (alloc, free) */
	int64_t *stamp = malloc((im->t->nbuffers + 1) * sizeof(*stamp));
	uint32_t *slot = malloc((im->t->nbuffers + 1) * sizeof(*slot));
	if (!stamp || !slot) {
		free(stamp);
		free(slot);
		free(start);
		return nomem(im);
	}
	for (size_t b = 0; b < im->t->nbuffers; b++)
		stamp[b] = -1;
	for (size_t k = 0; k < n; k++) {
		const struct item *x = &it[k];
		if (next < nsteps && start[next] == k) {
			if ((next && add_mark(im, TRACE_MARK_END)) || add_mark(im, TRACE_MARK_BEGIN))
				goto oom2;
			next++;
		}
		struct trace_event e = { .seq = trace_next_seq(im->t), .t_start = TRACE_TIME_NONE,
					 .t_end = TRACE_TIME_NONE, .buffer = TRACE_NONE,
					 .stream = TRACE_NONE };
		if (x->kind == 3) {
			const struct trace_event *m = &im->snap->events[x->idx];
			e.type = m->type;
			e.aux = m->aux;
			e.bytes = m->bytes;
			e.name = m->name;
			e.stream = m->stream;
			if (trace_add_event(im->t, &e) < 0)
				goto oom2;
			continue;
		}
		if (x->kind != 1) {
			e.type = x->kind == 0 ? TRACE_EV_ALLOC : TRACE_EV_FREE;
			e.buffer = x->idx;
			e.stream = im->t->buffers[x->idx].stream;
			e.t_start = x->ts;
			if (trace_add_event(im->t, &e) < 0)
				goto oom2;
			continue;
		}
		struct op *o = &im->ops[x->idx];
		e.type = o->type ? o->type : TRACE_EV_KERNEL;
		e.aux = o->aux;
		e.bytes = o->bytes;
		e.name = o->name;
		e.t_start = o->t0;
		e.t_end = o->t1;
		int64_t ev = trace_add_event(im->t, &e);
		if (ev < 0)
			goto oom2;
		for (uint32_t j = 0; j < o->nref; j++) {
			const struct ref *r = &im->refs[o->ref0 + j];
			int64_t b = im->gens[r->sid].buf;
			if (b < 0 || (r->flags & REF_VIEW))
				continue;
			/* alloc, op and free items of one key sort in that order */
			if (bufkey0[b] > x->key || x->key > bufkey1[b]) {
				im->dropped++;
				continue;
			}
			if (stamp[b] == ev) {
				struct trace_access *a = &im->t->accesses[slot[b]];
				if (r->mode && a->mode)
					a->mode |= r->mode;
				else if (r->mode)
					a->mode = r->mode;
				continue;
			}
			stamp[b] = ev;
			slot[b] = (uint32_t)im->t->naccesses;
			if (trace_add_access(im->t, b, r->mode) < 0)
				goto oom2;
		}
		for (uint32_t a = im->t->events[ev].acc0; a < im->t->events[ev].acc0 + im->t->events[ev].nacc; a++)
			if (im->t->accesses[a].mode)
				im->known++;
			else
				im->unknown++;
	}
	free(stamp);
	free(slot);
	free(start);
	if (nsteps && add_mark(im, TRACE_MARK_END))
		return im->rc;
	return 0;
oom2:
	free(stamp);
	free(slot);
	free(start);
	return nomem(im);
}

/* --- joining a memory snapshot -------------------------------------------- */

struct cand {          /* a snapshot buffer live as the window opens */
	uint64_t block;    /* its 512-byte block size */
	int64_t fkey;      /* the key of its free, INT64_MAX none */
	int64_t sb;        /* its snapshot buffer */
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->block != y->block)
		return (x->block > y->block) - (x->block < y->block);
	if (x->fkey != y->fkey)
		return (x->fkey > y->fkey) - (x->fkey < y->fkey);
	return (x->sb > y->sb) - (x->sb < y->sb);
}

struct pre {           /* an ET storage first seen as an input */
	int64_t lastkey;
	size_t g;
};

static int cmp_pre(const void *a, const void *b)
{
	const struct pre *x = a, *y = b;
	if (x->lastkey != y->lastkey)
		return (x->lastkey > y->lastkey) - (x->lastkey < y->lastkey);
	return (x->g > y->g) - (x->g < y->g);
}

/*
 * Builds buffers and events from the ET joined with a memory snapshot of
 * the same run (et_align.h): the step's window in the snapshot's history
 * runs from the first matched allocation to the allocation after the last
 * one.  Keys: the snapshot's event e is 2e; an operator sits just after
 * its last matched allocation (odd keys), or with the operator before it.
 * Every allocation and free in the window is the snapshot's, with its
 * block sizes; the ET's outputs get their allocation, its storages seen
 * first as inputs one of the blocks live as the window opens (of their
 * block size, freed after their last use); what stays unmatched is
 * inferred as without a profiler trace and counted.
 */
#define PENDING (-2) /* sbuf: in the window, its buffer not made yet */

static int build_snap(struct im *im)
{
	const struct trace *sn = im->snap;
	int rc = 0;
	uint64_t *want = NULL, *have = NULL;
	uint32_t *group = NULL;
	size_t *fg = NULL, *aev = NULL;
	int64_t *match = NULL, *opkey = NULL, *sbuf = NULL, *bufkey0 = NULL, *bufkey1 = NULL;
	struct cand *cand = NULL;
	struct pre *pre = NULL;
	struct item *it = NULL;
	size_t n = 0, cap = 0, nw = 0, nh = 0;
	/* the outputs, in entry order, and the history's allocations */
	want = malloc((im->ngens + 1) * sizeof(*want));
	group = malloc((im->ngens + 1) * sizeof(*group));
	fg = malloc((im->ngens + 1) * sizeof(*fg));
	match = malloc((im->ngens + 1) * sizeof(*match));
	aev = malloc((sn->nevents + 1) * sizeof(*aev));
	have = malloc((sn->nevents + 1) * sizeof(*have));
	opkey = malloc((im->nops + 1) * sizeof(*opkey));
	sbuf = malloc((sn->nbuffers + 1) * sizeof(*sbuf));
	if (!want || !group || !fg || !match || !aev || !have || !opkey || !sbuf)
		goto oom;
	for (size_t i = 0; i < im->nops; i++) {
		const struct op *o = &im->ops[i];
		for (uint32_t j = 0; j < o->nref; j++) {
			const struct ref *r = &im->refs[o->ref0 + j];
			const struct gen *g = &im->gens[r->sid];
			if ((r->flags & REF_FRESH) && g->born == (int64_t)i && g->size > 0) {
				want[nw] = g->size;
				group[nw] = (uint32_t)i;
				fg[nw++] = (size_t)r->sid;
			}
		}
	}
	for (size_t e = 0; e < sn->nevents; e++)
		if (sn->events[e].type == TRACE_EV_ALLOC) {
			aev[nh] = e;
			have[nh++] = sn->buffers[sn->events[e].buffer].size;
		}
	struct et_align_report rep;
	if (et_align(want, group, nw, have, nh, match, &rep))
		goto oom;
	im->s_outputs = nw;
	im->s_matched = rep.matched;
	im->s_ties = rep.ties;
	im->s_before = rep.first;
	if (nw && rep.matched * 2 < nw) {
		rc = trace_seterr(im->err, im->errlen, TRACE_EFORMAT,
				  "cannot join execution trace '%s' with snapshot '%s': %zu of its %zu "
				  "outputs on cuda:%d are among the snapshot's %zu allocations; record "
				  "both in one run, with _record_memory_history() before the step",
				  im->name, im->sname, rep.matched, nw, im->device < 0 ? 0 : im->device, nh);
		goto out;
	}
	/* the window [ev_lo, ev_hi) of the snapshot's events */
	size_t j0 = SIZE_MAX, j1 = 0;
	for (size_t k = 0; k < nw; k++)
		if (match[k] >= 0) {
			im->gens[fg[k]].snap = sn->events[aev[match[k]]].buffer;
			if ((size_t)match[k] < j0)
				j0 = (size_t)match[k];
			if ((size_t)match[k] > j1)
				j1 = (size_t)match[k];
		}
	/* it ends before the first allocation after the last match that is
	 * not a temporary of the step's last operators (freed before the next
	 * allocation): the next step's first, or what the program does next */
	size_t ev_lo = nw ? aev[j0] : 0, ev_hi = sn->nevents;
	for (size_t j = j1 + 1; nw && j < nh; j++) {
		int64_t f = sn->buffers[sn->events[aev[j]].buffer].free_ev;
		if (f == TRACE_NONE || (j + 1 < nh && f > (int64_t)aev[j + 1])) {
			ev_hi = aev[j];
			break;
		}
	}
	/* operators' keys: after their last matched allocation */
	int64_t key = 2 * (int64_t)ev_lo - 1;
	size_t k = 0;
	for (size_t i = 0; i < im->nops; i++) {
		for (; k < nw && group[k] == i; k++)
			if (match[k] >= 0 && 2 * (int64_t)aev[match[k]] + 1 > key)
				key = 2 * (int64_t)aev[match[k]] + 1;
		opkey[i] = key;
	}
	/* the snapshot's buffers in the window */
	size_t ncand = 0;
	cand = malloc((sn->nbuffers + 1) * sizeof(*cand));
	if (!cand)
		goto oom;
	for (size_t b = 0; b < sn->nbuffers; b++) {
		const struct trace_buffer *sbf = &sn->buffers[b];
		int64_t a = sbf->alloc_ev, f = sbf->free_ev;
		int before = a == TRACE_NONE || a < (int64_t)ev_lo;
		int in = !before && a < (int64_t)ev_hi;
		sbuf[b] = (before && (f == TRACE_NONE || f >= (int64_t)ev_lo)) || in ? PENDING : -1;
		if (before && sbuf[b] == PENDING)
			cand[ncand++] = (struct cand){ round_up(sbf->size),
				f == TRACE_NONE || f >= (int64_t)ev_hi ? INT64_MAX : 2 * f, (int64_t)b };
	}
	/* the ET's storages seen first as inputs (and outputs from before the
	 * history), to blocks live at the start, in order of last use: each
	 * takes the block of its size freed first after that use (never
	 * freed: persistent) */
	sort(cand, ncand, sizeof(*cand), cmp_cand);
	size_t npre = 0;
	pre = malloc((im->ngens + 1) * sizeof(*pre));
	if (!pre)
		goto oom;
	for (size_t g = 0; g < im->ngens; g++)
		if (im->gens[g].born < 0 && im->gens[g].size > 0 && im->gens[g].last >= 0)
			pre[npre++] = (struct pre){ opkey[im->gens[g].last], g };
	/* outputs made before the history begins are live as it begins */
	for (size_t q = 0; q < rep.first; q++)
		pre[npre++] = (struct pre){ opkey[im->gens[fg[q]].last], fg[q] };
	sort(pre, npre, sizeof(*pre), cmp_pre);
	struct map first = { 0 }; /* block size -> next candidate */
	for (size_t c = ncand; c-- > 0;)
		if (map_set(&first, cand[c].block, (int64_t)c)) {
			map_free(&first);
			goto oom;
		}
	im->s_inputs = npre;
	for (size_t q = 0; q < npre; q++) {
		struct gen *g = &im->gens[pre[q].g];
		uint64_t bl = round_up(g->size);
		int64_t c = map_get(&first, bl);
		while (c >= 0 && (size_t)c < ncand && cand[c].block == bl &&
		       cand[c].fkey <= pre[q].lastkey)
			c++;
		if (c < 0 || (size_t)c >= ncand || cand[c].block != bl)
			continue;
		g->snap = cand[c].sb;
		im->s_inputs_matched++;
		if (map_set(&first, bl, c + 1)) {
			map_free(&first);
			goto oom;
		}
	}
	map_free(&first);
	/* buffers: the snapshot's in the window, labelled by the ET's operator
	 * where they are its outputs; the ET's unmatched storages, inferred */
	size_t nbuf_cap = sn->nbuffers + im->ngens + 1;
	bufkey0 = malloc(nbuf_cap * sizeof(*bufkey0));
	bufkey1 = malloc(nbuf_cap * sizeof(*bufkey1));
	if (!bufkey0 || !bufkey1)
		goto oom;
	for (size_t g = 0; g < im->ngens; g++) {
		struct gen *ge = &im->gens[g];
		if (ge->snap >= 0) {
			const struct trace_buffer *sbf = &sn->buffers[ge->snap];
			struct trace_buffer b = { .size = sbf->size, .rounded = sbf->rounded,
						  .addr = sbf->addr, .align = sbf->align,
						  .fixed_offset = TRACE_NONE, .stream = sbf->stream,
						  .device = sbf->device, .kind = TRACE_KIND_DEVICE,
						  .label = ge->born >= 0 ? im->ops[ge->born].label : sbf->label,
						  .stack = sbf->stack, .role = gen_role(im, ge) };
			if ((ge->buf = trace_add_buffer(im->t, &b)) < 0)
				goto oom;
			sbuf[ge->snap] = ge->buf;
		} else if (ge->size > 0) {
			if ((rc = add_buf_role(im, ge->size, round_up(ge->size), 0,
					       ge->born >= 0 ? im->ops[ge->born].label : NULL,
					       gen_role(im, ge), &ge->buf)))
				goto out;
			bufkey0[ge->buf] = INT64_MIN;
			bufkey1[ge->buf] = INT64_MAX;
			if (ge->born >= 0) {
				im->unmatched_out++;
				bufkey0[ge->buf] = opkey[ge->born];
				bufkey1[ge->buf] = opkey[ge->last];
			}
		}
	}
	for (size_t b = 0; b < sn->nbuffers; b++) {
		if (sbuf[b] != PENDING)
			continue; /* outside the window, or an ET storage's */
		const struct trace_buffer *sbf = &sn->buffers[b];
		struct trace_buffer nb = *sbf;
		nb.fixed_offset = TRACE_NONE;
		int64_t id = trace_add_buffer(im->t, &nb);
		if (id < 0)
			goto oom;
		sbuf[b] = id;
		if (sbf->alloc_ev >= (int64_t)ev_lo)
			im->s_hidden++;
	}
	for (size_t b = 0; b < sn->nbuffers; b++) {
		if (sbuf[b] < 0)
			continue;
		const struct trace_buffer *sbf = &sn->buffers[b];
		bufkey0[sbuf[b]] = sbf->alloc_ev >= (int64_t)ev_lo ? 2 * sbf->alloc_ev : INT64_MIN;
		bufkey1[sbuf[b]] = sbf->free_ev != TRACE_NONE && sbf->free_ev < (int64_t)ev_hi
					   ? 2 * sbf->free_ev : INT64_MAX;
	}
	/* items: the window's events, the operators, the inferred lives */
	int64_t ord = 0;
	for (size_t e = ev_lo; e < ev_hi; e++) {
		const struct trace_event *se = &sn->events[e];
		struct item x = { 2 * (int64_t)e, 3, (int64_t)e, ord++, TRACE_TIME_NONE };
		if (se->type == TRACE_EV_ALLOC || se->type == TRACE_EV_FREE) {
			x.kind = se->type == TRACE_EV_ALLOC ? 0 : 2;
			x.idx = sbuf[se->buffer];
			if (x.idx < 0)
				continue;
		} else if (se->type != TRACE_EV_MARK) {
			continue;
		}
		if (push_item(&it, &n, &cap, x))
			goto oom;
	}
	for (size_t i = 0; i < im->nops; i++) {
		const struct op *o = &im->ops[i];
		for (uint32_t j = 0; j < o->nref; j++) {
			const struct gen *g = &im->gens[im->refs[o->ref0 + j].sid];
			if (g->born == (int64_t)i && g->snap < 0 && g->buf >= 0 &&
			    push_item(&it, &n, &cap, (struct item){ opkey[i], 0, g->buf, ord++,
								  TRACE_TIME_NONE }))
				goto oom;
		}
		if (o->name &&
		    push_item(&it, &n, &cap, (struct item){ opkey[i], 1, (int64_t)i, ord++, 0 }))
			goto oom;
		for (uint32_t j = 0; j < o->nref; j++) {
			const struct gen *g = &im->gens[im->refs[o->ref0 + j].sid];
			if (g->last == (int64_t)i && g->born >= 0 && g->snap < 0 && g->buf >= 0 &&
			    push_item(&it, &n, &cap, (struct item){ opkey[i], 2, g->buf, ord++,
								  TRACE_TIME_NONE }))
				goto oom;
		}
	}
	sort(it, n, sizeof(*it), cmp_item);
	rc = emit(im, it, n, bufkey0, bufkey1);
	goto out;
oom:
	rc = nomem(im);
out:
	free(want);
	free(group);
	free(fg);
	free(match);
	free(aev);
	free(have);
	free(opkey);
	free(sbuf);
	free(cand);
	free(pre);
	free(it);
	free(bufkey0);
	free(bufkey1);
	return rc;
}

static int set_meta_u(struct im *im, const char *k, uint64_t v)
{
	char s[32];
	snprintf(s, sizeof(s), "%" PRIu64, v);
	return trace_set_meta(im->t, k, s) < 0 ? nomem(im) : 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int finish_meta(struct im *im, int kineto)
{
	char off[32];
	char dev[32];
	if (im->host)
		snprintf(dev, sizeof(dev), "cpu");
	else
		snprintf(dev, sizeof(dev), "cuda:%d", im->device < 0 ? 0 : im->device);
	struct { const char *k; uint64_t v; } nums[] = {
		{ "et.nodes", im->nodes },
		{ "et.leaf_ops", im->nops - im->nonleaf_skipped },
		{ "et.ops_without_schema", im->no_schema },
		{ "et.accesses_known", im->known },
		{ "et.accesses_unknown", im->unknown },
		{ "et.truncated_lists", im->truncated },
		{ "et.accesses_dropped", im->dropped },
		{ "et.profiler_steps", im->steps },
		{ "et.observer_roots", im->roots },
		{ "et.storages_born_in_composite_ops", im->nl_births },
		{ "et.storages_born_as_inputs", im->in_births },
		{ "et.tensors_on_other_memory", im->elsewhere + im->other_refs },
	};
	/* a trace of host memory says so wherever its source is shown (the
	 * summary's "source:" line, info's "device:") */
	if (trace_set_meta(im->t, "source", im->host ? "pytorch-et (cpu tensors: host memory)"
						     : "pytorch-et") < 0 ||
	    trace_set_meta(im->t, "source_file", base_name(im->name)) < 0 ||
	    trace_set_meta(im->t, "device", dev) < 0 ||
	    trace_set_meta(im->t, "allocator", im->host ? "c10-cpu" : "pytorch-caching") < 0 ||
	    (im->host && trace_set_meta(im->t, "memory", "host") < 0) ||
	    trace_set_meta(im->t, "et.schema", im->schema) < 0 ||
	    trace_set_meta(im->t, "et.storage_ids",
			   im->unique_ids ? "unique" : "address-derived") < 0)
		return nomem(im);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (set_meta_u(im, nums[i].k, nums[i].v))
			return TRACE_ENOMEM;
	if (kineto) {
		if (trace_set_meta(im->t, "kineto_file", base_name(im->kname)) < 0 ||
		    (im->kabsolute &&
		     trace_set_meta(im->t, "kineto.time", "microseconds since the epoch, shifted by the first") < 0) ||
		    set_meta_u(im, "kineto.memory_events", im->nmem) ||
		    set_meta_u(im, "kineto.ops_not_found", im->not_in_kineto) ||
		    (im->rf_offset &&
		     trace_set_meta(im->t, "kineto.rf_offset", (snprintf(off, sizeof(off), "%" PRId64,
									 im->rf_offset), off)) < 0) ||
		    set_meta_u(im, "kineto.outputs_without_alloc", im->unmatched_out) ||
		    set_meta_u(im, "kineto.frees_without_alloc", im->unmatched_free))
			return nomem(im);
		if (im->reserved_peak > 0 &&
		    set_meta_u(im, "pytorch.reserved_peak_bytes", (uint64_t)im->reserved_peak))
			return TRACE_ENOMEM;
		if (im->unmatched_out &&
		    trace_set_meta(im->t, "inferred", "sizes") < 0)
			return nomem(im);
	} else if (im->snap) {
		const char *xs = trace_get_meta(im->snap, "pytorch.expandable_segments");
		if (trace_set_meta(im->t, "snapshot_file", base_name(im->sname)) < 0 ||
		    set_meta_u(im, "snapshot.outputs", im->s_outputs) ||
		    set_meta_u(im, "snapshot.outputs_matched", im->s_matched) ||
		    set_meta_u(im, "snapshot.outputs_before_history", im->s_before) ||
		    set_meta_u(im, "snapshot.outputs_inferred", im->unmatched_out) ||
		    set_meta_u(im, "snapshot.live_at_start", im->s_inputs) ||
		    set_meta_u(im, "snapshot.live_at_start_matched", im->s_inputs_matched) ||
		    set_meta_u(im, "snapshot.allocations_hidden", im->s_hidden) ||
		    set_meta_u(im, "snapshot.equal_windows", im->s_ties) ||
		    (xs && trace_set_meta(im->t, "pytorch.expandable_segments", xs) < 0))
			return nomem(im);
		const char *inf = im->unmatched_out ? "sizes,frees"
				  : im->s_inputs_matched < im->s_inputs ? "sizes" : NULL;
		if (inf && trace_set_meta(im->t, "inferred", inf) < 0)
			return nomem(im);
	} else if (trace_set_meta(im->t, "inferred", "sizes,frees") < 0) {
		return nomem(im);
	}
	if (im->five_seen &&
	    trace_set_meta(im->t, "et.device_assumed", dev) < 0)
		return nomem(im);
	return 0;
}

static void im_free(struct im *im)
{
	free(im->ops);
	free(im->refs);
	free(im->gens);
	free(im->cpu);
	free(im->kern);
	free(im->rt);
	free(im->mem);
	trace_free(im->snap);
	map_free(&im->parents);
	map_free(&im->nodeids);
}

/* A list of the CUDA devices the tensors are on, for messages. */
static void dev_list(const struct im *im, char *list, size_t len)
{
	int shown = 0, more = 0;
	list[0] = 0;
	for (int d = 0; d <= MAX_DEVICE; d++) {
		if (!dev_has(im, d))
			continue;
		if (shown == 8) {
			more++;
			continue;
		}
		size_t l = strlen(list);
		snprintf(list + l, len - l, "%scuda:%d", shown ? ", " : "", d);
		shown++;
	}
	if (more) {
		size_t l = strlen(list);
		snprintf(list + l, len - l, " and %d more", more);
	}
}

/*
 * The memory the trace is of: the device asked for; else the one CUDA
 * device the tensors are on (a DDP rank's cuda:1 as well as cuda:0); else,
 * with tensors only on the CPU, host memory (im->host).  Several CUDA
 * devices and none asked for: TRACE_EINVAL, naming them.  Then drops the
 * references and memory events of any other memory.
 */
static int choose_memory(struct im *im)
{
	int first, n = dev_count(im, &first);
	char list[160];
	dev_list(im, list, sizeof(list));
	if (im->device == ET_HOST) {
		if (!im->cpu_refs)
			return trace_seterr(im->err, im->errlen, TRACE_EINVAL,
					    "execution trace '%s' has no tensors on cpu (%zu on %s)",
					    im->name, im->cuda_refs, n ? list : "no CUDA device");
		im->host = 1;
	} else if (im->device >= 0) {
		if (!dev_has(im, im->device) && (n || im->cpu_refs))
			return trace_seterr(im->err, im->errlen, TRACE_EINVAL,
					    "execution trace '%s' has no tensors on cuda:%d (its tensors are on %s%s%s)",
					    im->name, im->device, list, n && im->cpu_refs ? " and " : "",
					    im->cpu_refs ? "cpu" : "");
	} else if (n > 1) {
		return trace_seterr(im->err, im->errlen, TRACE_EINVAL,
				    "execution trace '%s' has tensors on %d CUDA devices (%s): choose one with --device",
				    im->name, n, list);
	} else if (n == 1) {
		im->device = first;
	} else if (im->cpu_refs) {
		im->host = 1;
	} else if (im->other_refs) {
		return trace_seterr(im->err, im->errlen, TRACE_EFORMAT,
				    "cannot import execution trace '%s': all %zu of its tensors are on devices "
				    "that are neither CUDA nor the CPU (meta, mps, xla, ...): no memory to trace",
				    im->name, im->other_refs);
	}
	im->align = im->host ? UINT64_C(64) : ALIGN; /* c10's CPU allocator: 64 */
	int32_t want = im->host ? DEV_CPU : im->device < 0 ? 0 : im->device;
	size_t w = 0;
	for (size_t i = 0; i < im->nops; i++) {
		struct op *o = &im->ops[i];
		size_t r0 = w;
		for (uint32_t j = 0; j < o->nref; j++)
			if (im->refs[o->ref0 + j].dev == want)
				im->refs[w++] = im->refs[o->ref0 + j];
		o->ref0 = r0;
		o->nref = (uint32_t)(w - r0);
	}
	im->elsewhere += im->nrefs - w;
	im->nrefs = w;
	w = 0;
	for (size_t m = 0; m < im->nmem; m++)
		if (im->mem[m].dev == want) {
			if (im->mem[m].total_res > im->reserved_peak)
				im->reserved_peak = im->mem[m].total_res;
			im->mem[w++] = im->mem[m];
		}
	im->nmem = w;
	return 0;
}

int et_import_streams(const char *et_name, json_read_fn et, void *et_ctx,
		      const char *kin_name, json_read_fn kin, void *kin_ctx,
		      const char *snap_path, int device, struct trace **out,
		      char *err, size_t errlen)
{
	struct im im = { .name = et_name, .kname = kin_name, .sname = snap_path,
			 .err = err, .errlen = errlen, .device = device, .node_id = -1 };
	int rc;
	struct json_reader *jr = NULL;
	if (!(im.t = trace_new()))
		return nomem(&im);
	if (kin) {
		if (!(jr = json_reader_new(kin, kin_ctx))) {
			rc = nomem(&im);
			goto fail;
		}
		rc = read_kineto(&im, jr);
		json_reader_free(jr);
		jr = NULL;
		if (rc)
			goto fail;
	}
	if (!(jr = json_reader_new(et, et_ctx))) {
		rc = nomem(&im);
		goto fail;
	}
	rc = read_et(&im, jr);
	json_reader_free(jr);
	if (rc)
		goto fail;
	if ((rc = choose_memory(&im)) != 0)
		goto fail;
	if (snap_path) {
		if (im.host) {
			rc = trace_seterr(err, errlen, TRACE_EINVAL,
					  "execution trace '%s' is of host memory (its %zu tensors are on cpu) "
					  "and a memory snapshot is of CUDA memory: import it without --snapshot",
					  et_name, im.cpu_refs);
			goto fail;
		}
		/* the snapshot's history of the device the ET's tensors are on */
		if ((rc = snapshot_import(snap_path, im.device < 0 ? SNAPSHOT_ANY_DEVICE : im.device,
					  &im.snap, err, errlen)) != 0)
			goto fail;
		if (im.device < 0 && im.snap->nbuffers)
			im.device = im.snap->buffers[0].device;
	}
	if ((rc = resolve(&im)) != 0)
		goto fail;
	if (kin && (rc = join_kineto(&im)) != 0)
		goto fail;
	if ((rc = im.snap ? build_snap(&im) : build(&im, kin != NULL)) != 0 ||
	    (rc = finish_meta(&im, kin != NULL)) != 0)
		goto fail;
	char ferr[384];
	if ((rc = trace_finish(im.t, ferr, sizeof(ferr))) != 0) {
		rc = trace_seterr(err, errlen, rc,
				  "cannot import execution trace '%s': the result is not a valid trace: %s",
				  et_name, ferr);
		goto fail;
	}
	im_free(&im);
	*out = im.t;
	return 0;
fail:
	trace_free(im.t);
	im_free(&im);
	return rc;
}

int et_import(const char *et_path, const char *kineto_path,
	      const char *snapshot_path, int device, long rank, struct trace **out,
	      char *err, size_t errlen)
{
	struct zinput *ze = NULL, *zk = NULL;
	int rc = zin_open_rank(et_path, "execution trace", rank, &ze, err, errlen);
	if (rc)
		return rc;
	if (kineto_path &&
	    (rc = zin_open_rank(kineto_path, "profiler trace", rank, &zk, err, errlen))) {
		zin_close(ze);
		return rc;
	}
	rc = et_import_streams(et_path, zin_read, ze, kineto_path,
			       zk ? zin_read : NULL, zk, snapshot_path, device, out, err,
			       errlen);
	/* a read error inside the JSON reader: say what the wrapping said */
	const char *why = zin_error(ze)[0] ? zin_error(ze) : zk && zin_error(zk)[0] ? zin_error(zk) : NULL;
	if (rc == TRACE_EFORMAT && why)
		trace_seterr(err, errlen, rc, "%s", why);
	if (rc == 0 && ((rc = zin_finish(ze, err, errlen)) != 0 ||
			(zk && (rc = zin_finish(zk, err, errlen)) != 0))) {
		trace_free(*out);
		*out = NULL;
	}
	/* the member of an archive that was read, said so */
	if (rc == 0 && ((zin_member(ze)[0] &&
			 trace_set_meta(*out, "et.archive_member", zin_member(ze)) < 0) ||
			(zk && zin_member(zk)[0] &&
			 trace_set_meta(*out, "kineto.archive_member", zin_member(zk)) < 0))) {
		trace_free(*out);
		*out = NULL;
		rc = trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	}
	zin_close(ze);
	zin_close(zk);
	return rc;
}
