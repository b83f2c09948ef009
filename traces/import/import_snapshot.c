/* SPDX-License-Identifier: MIT */
/*
 * import_snapshot.c - a PyTorch memory snapshot to a trace, for
 * `memplan-trace import --from pytorch-snapshot`.  The fields follow
 * c10/cuda/CUDACachingAllocator.h (TraceEntry, SegmentInfo, BlockInfo) as
 * torch.cuda.memory._snapshot() turns them into dicts.  Every field is
 * type-checked and every error names the entry (device_traces[d][i]) and
 * the field; the pickle itself is read by the strict unpickler.
 */
#include "import_snapshot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"

/* The largest snapshot file read into memory. */
#define MAX_FILE ((size_t)8 << 30)

enum { ST_OPEN = 1, ST_PENDING = 2 };

struct importer {
	const char *name;
	char *err;
	size_t errlen;
	struct trace *t;
	int device;
	/* address -> latest buffer id at that address, open addressing */
	uint64_t *keys;
	int64_t *vals;
	size_t nslots, nkeys;
	uint8_t *state; /* per buffer: ST_OPEN, ST_PENDING */
	size_t capstate;
	char where[64]; /* the entry being read, for messages */
	const char *stack; /* frame_label()'s stack: stackbuf or NULL */
	char *stackbuf;    /* MAX_STACK bytes */
	int64_t reserved, reserved_lo, reserved_hi;
	size_t pending, unknown, ooms;
	int expandable; /* segment_map/unmap seen, or an is_expandable segment */
	char choice[320]; /* why this device, when chosen among several traces */
};

static int bad(struct importer *im, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct importer *im, const char *field, const char *fmt, ...)
{
	if (!im->err || !im->errlen)
		return TRACE_EFORMAT;
	int n;
	if (field)
		n = snprintf(im->err, im->errlen,
			     "cannot read snapshot '%s': %s, field '%s': ",
			     im->name, im->where, field);
	else
		n = snprintf(im->err, im->errlen, "cannot read snapshot '%s': ",
			     im->name);
	if (n >= 0 && (size_t)n < im->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(im->err + n, im->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return TRACE_EFORMAT;
}

static int nomem(struct importer *im)
{
	return trace_seterr(im->err, im->errlen, TRACE_ENOMEM,
			    "cannot read snapshot '%s': out of memory", im->name);
}

/* --- address map ------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static int64_t map_get(const struct importer *im, uint64_t addr)
{
	if (!im->nslots)
		return TRACE_NONE;
	for (size_t j = mix(addr) & (im->nslots - 1);; j = (j + 1) & (im->nslots - 1)) {
		if (im->vals[j] == TRACE_NONE)
			return TRACE_NONE;
		if (im->keys[j] == addr)
			return im->vals[j];
	}
}

static int map_set(struct importer *im, uint64_t addr, int64_t id)
{
	if ((im->nkeys + 1) * 2 > im->nslots) {
		size_t n = im->nslots ? im->nslots * 2 : 1024;
		uint64_t *k = malloc(n * sizeof(*k));
		int64_t *v = malloc(n * sizeof(*v));
		if (!k || !v) {
			free(k);
			free(v);
			return TRACE_ENOMEM;
		}
		for (size_t i = 0; i < n; i++)
			v[i] = TRACE_NONE;
		for (size_t i = 0; i < im->nslots; i++) {
			if (im->vals[i] == TRACE_NONE)
				continue;
			size_t j = mix(im->keys[i]) & (n - 1);
			while (v[j] != TRACE_NONE)
				j = (j + 1) & (n - 1);
			k[j] = im->keys[i];
			v[j] = im->vals[i];
		}
		free(im->keys);
		free(im->vals);
		im->keys = k;
		im->vals = v;
		im->nslots = n;
	}
	size_t j = mix(addr) & (im->nslots - 1);
	while (im->vals[j] != TRACE_NONE && im->keys[j] != addr)
		j = (j + 1) & (im->nslots - 1);
	if (im->vals[j] == TRACE_NONE)
		im->nkeys++;
	im->keys[j] = addr;
	im->vals[j] = id;
	return 0;
}

/* The open buffer at addr, or TRACE_NONE. */
static int64_t open_at(const struct importer *im, uint64_t addr)
{
	int64_t id = map_get(im, addr);
	return id != TRACE_NONE && (im->state[id] & ST_OPEN) ? id : TRACE_NONE;
}

/* --- fields -------------------------------------------------------------- */

/* An int field; absent gives def when optional, else an error. */
static int get_int(struct importer *im, const struct pickle_value *d,
		   const char *key, int optional, int64_t def, int64_t lo,
		   int64_t *out)
{
	const struct pickle_value *v = pickle_get(d, key);
	if (!v || v->type == PICKLE_NONE) {
		if (optional) {
			*out = def;
			return 0;
		}
		return bad(im, key, "missing");
	}
	if (v->type != PICKLE_INT)
		return bad(im, key, "expected an int, found %s", pickle_type_name(v));
	if (v->wide != PICKLE_FITS)
		return bad(im, key, "%s does not fit in 63 bits",
			   v->wide == PICKLE_U64 ? "a value of 2^63 or more"
						 : "a value wider than 64 bits");
	if (v->u.i < lo)
		return bad(im, key, "%" PRId64 " is below %" PRId64, v->u.i, lo);
	*out = v->u.i;
	return 0;
}

static int is_str(const struct pickle_value *v, const char *s)
{
	return v && v->type == PICKLE_STR && strlen(s) == v->n &&
	       memcmp(v->u.s, s, v->n) == 0;
}

/* The last component of a path of either separator ('/' or Windows' '\'). */
static const char *base_name(const char *path)
{
	const char *b = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	return b;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Case-insensitive: does the component [c, c + n) equal word? */
static int component_is(const char *c, size_t n, const char *word)
{
	size_t m = strlen(word);
	if (n != m)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char a = c[i], b = word[i];
		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (a != b)
			return 0;
	}
	return 1;
}

static int component_starts(const char *c, size_t n, const char *word)
{
	size_t m = strlen(word);
	return n >= m && component_is(c, m, word);
}

enum frame_class {
	F_NATIVE = 0, /* C++ (or no file): not a Python frame */
	F_RUNTIME,    /* Python, but PyTorch's, a package's or Python's own */
	F_USER,       /* the program's own Python code */
};

/*
 * Whose frame this is, from its file name alone.  Paths may use either
 * separator (snapshots taken on Windows).  PyTorch's own frames are those
 * under a 'torch' or 'functorch' directory; installed packages live under
 * site-packages or dist-packages; Python's standard library is under
 * lib/pythonX.Y (Unix) or PythonXY\Lib (Windows); '<frozen ...>',
 * '<string>' and generated code ('<eval_with_key>') have no file of the
 * program's, except IPython's cells ('<ipython-input-3-...>').
 */
static enum frame_class frame_class(const char *file)
{
	if (file[0] == '<') /* IPython's cells are the user's own */
		return strncmp(file, "<ipython-input-", 15) == 0 ? F_USER : F_RUNTIME;
	if (!ends_with(file, ".py"))
		return F_NATIVE;
	const char *prev = NULL;
	size_t prevn = 0;
	for (const char *c = file; *c;) {
		size_t n = strcspn(c, "/\\");
		if (c[n] == '\0')
			break; /* the file itself */
		if (component_is(c, n, "torch") || component_is(c, n, "functorch") ||
		    component_is(c, n, "site-packages") ||
		    component_is(c, n, "dist-packages"))
			return F_RUNTIME;
		if (prev && component_is(prev, prevn, "lib") &&
		    component_starts(c, n, "python"))
			return F_RUNTIME; /* .../lib/python3.11/x.py */
		if (prev && component_starts(prev, prevn, "python") &&
		    component_is(c, n, "lib"))
			return F_RUNTIME; /* ...\Python311\Lib\x.py */
		prev = c;
		prevn = n;
		c += n + 1;
	}
	return F_USER;
}

/*
 * The operator a C++ stack allocates for, for stacks without any Python
 * frame (the autograd engine's threads): the ATen operator called from the
 * autograd node ("MmBackward0 aten::mm"), else the outermost ATen operator.
 * Writes into buf; NULL when the stack names none.
 */
static const char *operator_label(const struct pickle_value *frames, char *buf,
				  size_t len)
{
	static const char ops[] = "at::_ops::";
	static const char node[] = "torch::autograd::generated::";
	const char *op = NULL, *fn = NULL;
	size_t opn = 0, fnn = 0;
	for (size_t i = 0; i < frames->n; i++) {
		const struct pickle_value *name = pickle_get(pickle_item(frames, i), "name");
		if (!name || name->type != PICKLE_STR)
			continue;
		const char *p = strstr(name->u.s, ops);
		if (p) {
			p += sizeof(ops) - 1;
			op = p;
			opn = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			continue;
		}
		if ((p = strstr(name->u.s, node))) {
			p += sizeof(node) - 1;
			fn = p;
			fnn = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			break; /* the operators inside this node are the ones seen */
		}
	}
	if (!opn && !fnn)
		return NULL;
	if (fnn && opn)
		snprintf(buf, len, "%.*s aten::%.*s", (int)fnn, fn, (int)opn, op);
	else if (fnn)
		snprintf(buf, len, "%.*s", (int)fnn, fn);
	else
		snprintf(buf, len, "aten::%.*s", (int)opn, op);
	return buf;
}

/* Replaces control characters (and, when keep_newline is 0, newlines). */
static void sanitize(char *s, int keep_newline)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && !(keep_newline && *s == '\n')) ||
		    *s == 0x7f)
			*s = '?';
}

/* "file:line function" of frame f, the file by its base name unless
 * full; a line that is not a known int is left out. */
static void frame_text(const struct pickle_value *f, int full, char *buf,
		       size_t len)
{
	const struct pickle_value *file = pickle_get(f, "filename");
	const struct pickle_value *line = pickle_get(f, "line");
	const struct pickle_value *name = pickle_get(f, "name");
	const char *fn = name && name->type == PICKLE_STR ? name->u.s : "?";
	const char *b = full ? file->u.s : base_name(file->u.s);
	if (line && line->type == PICKLE_INT && line->wide == PICKLE_FITS &&
	    line->u.i >= 0)
		snprintf(buf, len, "%s:%" PRId64 " %s", b, line->u.i, fn);
	else
		snprintf(buf, len, "%s %s", b, fn);
}

/* The largest stack kept per buffer, in bytes; deeper frames are cut. */
#define MAX_STACK 65536

/*
 * The label of an allocation, into lbuf: "file:line function" of the
 * innermost frame of the user's code (frames[0] is the innermost), else of
 * the innermost Python frame, else the operator its C++ frames name; NULL
 * without any.  The whole stack, one "path:line function" a line, into
 * im->stack (NULL without frames).  A line number that is not an int of
 * 64 bits (Python 3.13 writes 2^64 - 1 for "none") is left out.
 */
static const char *frame_label(struct importer *im,
			       const struct pickle_value *frames, char *lbuf,
			       size_t len, int *rc)
{
	*rc = 0;
	im->stack = NULL;
	if (!frames || frames->type == PICKLE_NONE)
		return NULL;
	if (!pickle_is_seq(frames)) {
		*rc = bad(im, "frames", "expected a list, found %s",
			  pickle_type_name(frames));
		return NULL;
	}
	const struct pickle_value *user = NULL, *py = NULL;
	size_t used = 0;
	for (size_t i = 0; i < frames->n; i++) {
		const struct pickle_value *f = pickle_item(frames, i);
		const struct pickle_value *file = pickle_get(f, "filename");
		if (f->type != PICKLE_DICT || !file || file->type != PICKLE_STR ||
		    strlen(file->u.s) != file->n) {
			*rc = bad(im, "frames",
				  "frame %zu is not a dict with a str 'filename'", i);
			return NULL;
		}
		enum frame_class c = frame_class(file->u.s);
		if (!user && c == F_USER)
			user = f;
		if (!py && c != F_NATIVE)
			py = f;
		if (used < MAX_STACK - 1) {
			char line[1024];
			frame_text(f, 1, line, sizeof(line));
			int n = snprintf(im->stackbuf + used, MAX_STACK - used, "%s%s",
					 used ? "\n" : "", line);
			if (n > 0)
				used += (size_t)n < MAX_STACK - used ? (size_t)n : MAX_STACK - used - 1;
		}
	}
	if (used) {
		sanitize(im->stackbuf, 1);
		im->stack = im->stackbuf;
	}
	const struct pickle_value *f = user ? user : py;
	if (!f)
		return operator_label(frames, lbuf, len);
	frame_text(f, 0, lbuf, len);
	sanitize(lbuf, 0);
	return lbuf;
}

/* --- entries ------------------------------------------------------------ */

static int grow_state(struct importer *im)
{
	if (im->t->nbuffers < im->capstate)
		return 0;
	size_t n = im->capstate ? im->capstate * 2 : 256;
	uint8_t *s = realloc(im->state, n);
	if (!s)
		return TRACE_ENOMEM;
	memset(s + im->capstate, 0, n - im->capstate);
	im->state = s;
	im->capstate = n;
	return 0;
}

/* A new buffer, a block of the caching allocator: cut from its segment at a
 * multiple of kMinBlockSize (TRACE_ALIGN_TORCH); state open.  Returns its
 * id or a negative code. */
static int64_t new_buffer(struct importer *im, uint64_t addr, uint64_t size,
			  int64_t stream, const char *label)
{
	if (grow_state(im))
		return TRACE_ENOMEM;
	struct trace_buffer b = { .size = size, .rounded = size, .addr = addr,
				  .align = TRACE_ALIGN_TORCH, .fixed_offset = TRACE_NONE,
				  .stream = stream, .device = im->device,
				  .kind = TRACE_KIND_DEVICE, .label = label,
				  .stack = im->stack };
	int64_t id = trace_add_buffer(im->t, &b);
	if (id < 0 || map_set(im, addr, id) < 0)
		return TRACE_ENOMEM;
	im->state[id] = ST_OPEN;
	return id;
}

static int add_event(struct importer *im, int64_t seq, uint8_t type,
		     int64_t buffer, int64_t stream, int64_t t, uint64_t bytes,
		     const char *name)
{
	struct trace_event e = { .seq = seq, .t_start = t, .t_end = t,
				 .buffer = buffer, .stream = stream,
				 .bytes = bytes, .type = type, .name = name };
	return trace_add_event(im->t, &e) < 0 ? TRACE_ENOMEM : 0;
}

static int entry(struct importer *im, const struct pickle_value *e, int64_t seq)
{
	if (!e || e->type != PICKLE_DICT)
		return bad(im, NULL, "%s is a %s, not a dict", im->where,
			   pickle_type_name(e));
	const struct pickle_value *action = pickle_get(e, "action");
	if (!action || action->type != PICKLE_STR)
		return bad(im, "action", "expected a str, found %s",
			   pickle_type_name(action));
	int64_t addr, size, stream, tus, t = TRACE_TIME_NONE;
	int rc;
	if ((rc = get_int(im, e, "stream", 1, TRACE_NONE, INT64_MIN, &stream)) ||
	    (rc = get_int(im, e, "time_us", 1, -1, -1, &tus)))
		return rc;
	if (tus > INT64_MAX / 1000)
		return bad(im, "time_us", "%" PRId64 " is too large", tus);
	if (tus >= 0)
		t = tus * 1000;
	if (is_str(action, "oom")) {
		/*
		 * A failed allocation: 'size' bytes were asked for and the
		 * device had 'device_free' bytes free (PyTorch writes the
		 * free bytes where other entries have 'addr').  A mark.
		 */
		int64_t dfree;
		if ((rc = get_int(im, e, "size", 1, 0, 0, &size)) ||
		    (rc = get_int(im, e, "device_free", 1, -1, 0, &dfree)))
			return rc;
		char name[64] = "oom";
		if (dfree >= 0)
			snprintf(name, sizeof(name), "oom device_free=%" PRId64, dfree);
		im->ooms++;
		return add_event(im, seq, TRACE_EV_MARK, TRACE_NONE, stream, t,
				 (uint64_t)size, name)
			       ? nomem(im) : 0;
	}
	if (is_str(action, "snapshot"))
		return add_event(im, seq, TRACE_EV_MARK, TRACE_NONE, stream, t, 0,
				 "snapshot")
			       ? nomem(im) : 0;
	int known = is_str(action, "alloc") || is_str(action, "free_requested") ||
		    is_str(action, "free_completed") ||
		    is_str(action, "segment_alloc") || is_str(action, "segment_map") ||
		    is_str(action, "segment_free") || is_str(action, "segment_unmap");
	if (!known) {
		im->unknown++; /* an action newer than this reader: skipped, counted */
		return 0;
	}
	if ((rc = get_int(im, e, "addr", 0, 0, 0, &addr)) ||
	    (rc = get_int(im, e, "size", 0, 0, 0, &size)))
		return rc;
	char lbuf[512];
	const char *label = NULL;
	int64_t id;
	if (is_str(action, "alloc")) {
		if (size == 0)
			return bad(im, "size", "an allocation of 0 bytes");
		if ((id = open_at(im, (uint64_t)addr)) != TRACE_NONE)
			return bad(im, "addr",
				   "allocation at 0x%" PRIx64 ", which is still allocated (buffer %" PRId64 ")",
				   addr, id);
		label = frame_label(im, pickle_get(e, "frames"), lbuf, sizeof(lbuf), &rc);
		if (rc)
			return rc;
		if ((id = new_buffer(im, (uint64_t)addr, (uint64_t)size, stream, label)) < 0)
			return nomem(im);
		return add_event(im, seq, TRACE_EV_ALLOC, id, stream, t, 0, NULL)
			       ? nomem(im) : 0;
	}
	if (is_str(action, "free_requested") || is_str(action, "free_completed")) {
		int completed = action->u.s[5] == 'c';
		id = open_at(im, (uint64_t)addr);
		if (id == TRACE_NONE) {
			/* allocated before the history begins: live at start */
			if (size == 0)
				return bad(im, "size", "a free of 0 bytes");
			label = frame_label(im, pickle_get(e, "frames"), lbuf,
					    sizeof(lbuf), &rc);
			if (rc)
				return rc;
			if ((id = new_buffer(im, (uint64_t)addr, (uint64_t)size,
					     stream, label)) < 0)
				return nomem(im);
		} else if ((uint64_t)size != im->t->buffers[id].size) {
			return bad(im, "size",
				   "%" PRId64 " bytes freed at 0x%" PRIx64 ", which holds %" PRIu64,
				   size, addr, im->t->buffers[id].size);
		}
		if (!completed) {
			im->state[id] |= ST_PENDING;
			return 0;
		}
		im->state[id] = 0;
		return add_event(im, seq, TRACE_EV_FREE, id,
				 im->t->buffers[id].stream, t, 0, NULL)
			       ? nomem(im) : 0;
	}
	if (is_str(action, "segment_map") || is_str(action, "segment_unmap"))
		im->expandable = 1; /* only expandable segments map pages */
	if (is_str(action, "segment_alloc") || is_str(action, "segment_map")) {
		im->reserved += size;
		if (im->reserved > im->reserved_hi)
			im->reserved_hi = im->reserved;
		return 0;
	}
	/*
	 * segment_free, segment_unmap: the allocator gave memory back
	 * (empty_cache, or a failed cudaMalloc retried); a mark, so that
	 * its model can give back at the same point (allocsim_release).
	 */
	im->reserved -= size;
	if (im->reserved < im->reserved_lo)
		im->reserved_lo = im->reserved;
	return add_event(im, seq, TRACE_EV_MARK, TRACE_NONE, stream, t,
			 (uint64_t)size, action->u.s)
		       ? nomem(im) : 0;
}

/* --- segments ------------------------------------------------------------ */

/*
 * Reserved memory from the segments at snapshot time, and a persistent
 * buffer for every block still allocated that the history does not hold.
 */
static int segments(struct importer *im, const struct pickle_value *segs,
		    int64_t *reserved_end, size_t *nseg)
{
	*reserved_end = 0;
	*nseg = 0;
	if (!segs || segs->type == PICKLE_NONE)
		return 0;
	if (!pickle_is_seq(segs))
		return bad(im, NULL, "'segments' is a %s, not a list",
			   pickle_type_name(segs));
	for (size_t i = 0; i < segs->n; i++) {
		const struct pickle_value *s = pickle_item(segs, i);
		snprintf(im->where, sizeof(im->where), "segments[%zu]", i);
		if (s->type != PICKLE_DICT)
			return bad(im, NULL, "%s is a %s, not a dict", im->where,
				   pickle_type_name(s));
		int64_t dev, total, stream;
		int rc;
		if ((rc = get_int(im, s, "device", 0, 0, 0, &dev)) ||
		    (rc = get_int(im, s, "total_size", 0, 0, 0, &total)) ||
		    (rc = get_int(im, s, "stream", 1, TRACE_NONE, INT64_MIN, &stream)))
			return rc;
		if (dev != im->device)
			continue;
		const struct pickle_value *xp = pickle_get(s, "is_expandable");
		if (xp && xp->type == PICKLE_BOOL && xp->u.i)
			im->expandable = 1;
		if (total > INT64_MAX - *reserved_end)
			return bad(im, "total_size", "the segments add up past 2^63");
		*reserved_end += total;
		(*nseg)++;
		const struct pickle_value *blocks = pickle_get(s, "blocks");
		if (!blocks || blocks->type == PICKLE_NONE)
			continue;
		if (!pickle_is_seq(blocks))
			return bad(im, "blocks", "expected a list, found %s",
				   pickle_type_name(blocks));
		for (size_t k = 0; k < blocks->n; k++) {
			const struct pickle_value *b = pickle_item(blocks, k);
			snprintf(im->where, sizeof(im->where),
				 "segments[%zu].blocks[%zu]", i, k);
			if (b->type != PICKLE_DICT)
				return bad(im, NULL, "%s is a %s, not a dict",
					   im->where, pickle_type_name(b));
			const struct pickle_value *state = pickle_get(b, "state");
			if (!state || state->type != PICKLE_STR)
				return bad(im, "state", "expected a str, found %s",
					   pickle_type_name(state));
			if (!is_str(state, "active_allocated") &&
			    !is_str(state, "active_pending_free"))
				continue;
			int64_t addr, size;
			if ((rc = get_int(im, b, "address", 0, 0, 0, &addr)) ||
			    (rc = get_int(im, b, "size", 0, 0, 1, &size)))
				return rc;
			if (open_at(im, (uint64_t)addr) != TRACE_NONE)
				continue; /* the history has it */
			char lbuf[512];
			const char *label = frame_label(im, pickle_get(b, "frames"),
							lbuf, sizeof(lbuf), &rc);
			if (rc)
				return rc;
			int64_t id = new_buffer(im, (uint64_t)addr, (uint64_t)size,
						stream, label);
			if (id < 0)
				return nomem(im);
		}
	}
	return 0;
}

/* --- the snapshot -------------------------------------------------------- */

static int not_a_snapshot(struct importer *im, const struct pickle_value *root)
{
	if (pickle_is_seq(root))
		return bad(im, NULL,
			   "the pickle holds a %s, not a dict: this looks like torch.cuda.memory_snapshot() (segments only, no history); "
			   "record with torch.cuda.memory._record_memory_history() and save with torch.cuda.memory._dump_snapshot()",
			   pickle_type_name(root));
	if (!root || root->type != PICKLE_DICT)
		return bad(im, NULL,
			   "the pickle holds a %s, not a PyTorch memory snapshot (a dict with 'segments' and 'device_traces')",
			   pickle_type_name(root));
	char keys[160] = "";
	size_t k = 0;
	for (size_t i = 0; i < root->n && k + 4 < sizeof(keys); i++) {
		const struct pickle_value *key = root->u.items[2 * i];
		int n = snprintf(keys + k, sizeof(keys) - k, "%s%s", i ? ", " : "",
				 key->type == PICKLE_STR ? key->u.s : pickle_type_name(key));
		if (n < 0 || (size_t)n >= sizeof(keys) - k) {
			strcpy(keys + sizeof(keys) - 4, "...");
			break;
		}
		k += (size_t)n;
	}
	for (char *p = keys; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	return bad(im, NULL,
		   "not a PyTorch memory snapshot: the top-level dict has neither 'device_traces' nor 'segments' (its keys: %s)",
		   root->n ? keys : "none");
}

/*
 * A snapshot in the shape of PyTorch 2.0 and older, told by what it holds:
 * blocks with a 'history' of their own, or allocated blocks without an
 * 'address' (2.1 added both 'address' and the device traces' free times).
 */
static int legacy(const struct pickle_value *segs)
{
	for (size_t i = 0; pickle_is_seq(segs) && i < segs->n; i++) {
		const struct pickle_value *blocks = pickle_get(pickle_item(segs, i), "blocks");
		for (size_t k = 0; pickle_is_seq(blocks) && k < blocks->n; k++) {
			const struct pickle_value *b = pickle_item(blocks, k);
			const struct pickle_value *st = pickle_get(b, "state");
			if (pickle_get(b, "history"))
				return 1;
			if (!pickle_get(b, "address") &&
			    (is_str(st, "active_allocated") ||
			     is_str(st, "active_pending_free")))
				return 1;
		}
	}
	return 0;
}

#define LEGACY_MSG                                                                  \
	"the snapshot is in the shape of PyTorch before 2.1 (a 'history' per block, blocks without 'address'), " \
	"which has no free times; record again on PyTorch 2.1 or later with "             \
	"torch.cuda.memory._record_memory_history(enabled='all') and save with torch.cuda.memory._dump_snapshot()"

/*
 * Whether a device trace holds a history: an entry other than the
 * 'snapshot' marker that _snapshot() leaves in every device's trace
 * (device 0's, on a program that ran on device 1 alone).
 */
static int has_history(const struct pickle_value *tr)
{
	for (size_t i = 0; i < tr->n; i++) {
		const struct pickle_value *a = pickle_get(pickle_item(tr, i), "action");
		if (!is_str(a, "snapshot"))
			return 1;
	}
	return 0;
}

/* Appends ", d" (or "d" first) to list, of size cap, at *k. */
static void list_add(char *list, size_t cap, size_t *k, size_t d)
{
	int n = snprintf(list + *k, cap - *k, "%s%zu", *k ? ", " : "", d);
	if (n > 0 && (size_t)n < cap - *k)
		*k += (size_t)n;
}

/*
 * Sets im->device to device, or where it is SNAPSHOT_ANY_DEVICE to the one
 * device with a history, and im->choice to a sentence saying why when it
 * chose among several device traces.  Two devices with a history, or a
 * device without one, are TRACE_EINVAL naming the devices that have one.
 */
static int choose_device(struct importer *im, const struct pickle_value *traces,
			 int device)
{
	if (!pickle_is_seq(traces))
		return bad(im, NULL, "'device_traces' is a %s, not a list",
			   pickle_type_name(traces));
	char list[128] = "", marks[128] = "";
	size_t k = 0, km = 0, with = 0;
	int only = -1;
	for (size_t d = 0; d < traces->n; d++) {
		const struct pickle_value *tr = pickle_item(traces, d);
		if (!pickle_is_seq(tr)) {
			snprintf(im->where, sizeof(im->where), "device_traces[%zu]", d);
			return bad(im, NULL, "%s is a %s, not a list", im->where,
				   pickle_type_name(tr));
		}
		if (tr->n == 0)
			continue;
		if (!has_history(tr)) {
			list_add(marks, sizeof(marks), &km, d);
			continue;
		}
		with++;
		only = (int)d;
		list_add(list, sizeof(list), &k, d);
	}
	/* a bad input (exit 3) whether or not a device was asked for */
	if (with == 0)
		return bad(im, NULL,
			   "the snapshot holds no allocation history (every device trace is empty or holds only 'snapshot' markers): call torch.cuda.memory._record_memory_history() before the code to trace, then _dump_snapshot()");
	if (device == SNAPSHOT_ANY_DEVICE) {
		if (with > 1)
			return trace_seterr(im->err, im->errlen, TRACE_EINVAL,
					    "snapshot '%s' holds the history of devices %s: choose one with --device",
					    im->name, list);
		im->device = only;
		if (traces->n > 1)
			snprintf(im->choice, sizeof(im->choice),
				 "device %d, the one device with a history%s%s%s", only,
				 km ? " (device traces with only 'snapshot' markers: " : "",
				 marks, km ? ")" : "");
		return 0;
	}
	if ((size_t)device >= traces->n || !has_history(pickle_item(traces, (size_t)device)))
		return trace_seterr(im->err, im->errlen, TRACE_EINVAL,
				    "snapshot '%s' holds no history for device %d (devices with a history: %s)",
				    im->name, device, k ? list : "none");
	im->device = device;
	return 0;
}

static int import_root(struct importer *im, const struct pickle_value *root,
		       int device)
{
	const struct pickle_value *traces = pickle_get(root, "device_traces");
	const struct pickle_value *segs = pickle_get(root, "segments");
	if (!root || root->type != PICKLE_DICT || (!traces && !segs))
		return not_a_snapshot(im, root);
	if (legacy(segs))
		return bad(im, NULL, LEGACY_MSG);
	if (!traces) {
		return bad(im, NULL,
			   "the snapshot has no 'device_traces': it was taken without recording history; "
			   "call torch.cuda.memory._record_memory_history() before the code to trace");
	}
	int rc = choose_device(im, traces, device);
	if (rc)
		return rc;
	const struct pickle_value *tr = pickle_item(traces, (size_t)im->device);
	for (size_t i = 0; i < tr->n; i++) {
		snprintf(im->where, sizeof(im->where), "device_traces[%d][%zu]",
			 im->device, i);
		if ((rc = entry(im, pickle_item(tr, i), (int64_t)i)))
			return rc;
	}
	for (size_t i = 0; i < im->t->nbuffers; i++)
		if (im->state[i] & ST_PENDING)
			im->pending++;
	int64_t reserved_end;
	size_t nseg;
	if ((rc = segments(im, segs, &reserved_end, &nseg)))
		return rc;
	/* expandable_segments:True, as the snapshot's settings say (2.2+) */
	const struct pickle_value *cfg = pickle_get(root, "allocator_settings");
	const struct pickle_value *xs = cfg && cfg->type == PICKLE_DICT
						? pickle_get(cfg, "expandable_segments") : NULL;
	if (xs && xs->type == PICKLE_BOOL && xs->u.i)
		im->expandable = 1;
	/* reserved at the start = at the end minus what the history added */
	int64_t start = reserved_end - im->reserved;
	if (start < 0)
		start = 0;
	char v[32], dev[32];
	snprintf(dev, sizeof(dev), "cuda:%d", im->device);
	struct {
		const char *k;
		int64_t v;
	} nums[] = {
		{ "pytorch.reserved_start_bytes", start },
		{ "pytorch.reserved_peak_bytes", start + im->reserved_hi },
		{ "pytorch.reserved_end_bytes", reserved_end },
		{ "pytorch.segments", (int64_t)nseg },
		{ "pytorch.pending_frees", (int64_t)im->pending },
		{ "pytorch.unknown_actions", (int64_t)im->unknown },
		{ "pytorch.oom_events", (int64_t)im->ooms },
		{ "pytorch.expandable_segments", im->expandable },
	};
	if (trace_set_meta(im->t, "source", "pytorch-snapshot") < 0 ||
	    trace_set_meta(im->t, "source_file", base_name(im->name)) < 0 ||
	    trace_set_meta(im->t, "device", dev) < 0 ||
	    (im->choice[0] && trace_set_meta(im->t, "pytorch.device_chosen", im->choice) < 0) ||
	    trace_set_meta(im->t, "allocator", "pytorch-caching") < 0)
		return nomem(im);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		snprintf(v, sizeof(v), "%" PRId64, nums[i].v);
		if (trace_set_meta(im->t, nums[i].k, v) < 0)
			return nomem(im);
	}
	char msg[400];
	if ((rc = trace_finish(im->t, msg, sizeof(msg))))
		return trace_seterr(im->err, im->errlen, rc,
				    "cannot read snapshot '%s': %s", im->name, msg);
	return 0;
}

int snapshot_parse(const char *name, const uint8_t *data, size_t len,
		   int device, struct trace **out, char *err, size_t errlen)
{
	struct importer im = { .name = name, .err = err, .errlen = errlen };
	struct pickle_doc *doc;
	char msg[400];
	int rc = pickle_parse(name, data, len, NULL, &doc, msg, sizeof(msg));
	if (rc)
		return trace_seterr(err, errlen, rc, "cannot read snapshot %s", msg);
	if (!(im.t = trace_new()) || !(im.stackbuf = malloc(MAX_STACK))) {
		trace_free(im.t);
		pickle_free(doc);
		return nomem(&im);
	}
	rc = import_root(&im, pickle_root(doc), device);
	pickle_free(doc);
	free(im.keys);
	free(im.vals);
	free(im.state);
	free(im.stackbuf);
	if (rc) {
		trace_free(im.t);
		return rc;
	}
	*out = im.t;
	return 0;
}

int snapshot_import(const char *path, int device, struct trace **out,
		    char *err, size_t errlen)
{
	FILE *f;
	int orc = trace_open_input(path, "cannot read snapshot", &f, err, errlen);
	if (orc)
		return orc;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 1 << 16;
			uint8_t *p = ncap <= MAX_FILE ? realloc(buf, ncap) : NULL;
			if (!p) {
				rc = trace_seterr(err, errlen, ncap > MAX_FILE ? TRACE_EFORMAT : TRACE_ENOMEM,
						  "cannot read snapshot '%s': %s", path,
						  ncap > MAX_FILE ? "the file is larger than 8 GiB" : "out of memory");
				break;
			}
			buf = p;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				rc = trace_seterr(err, errlen, TRACE_EIO,
						  "cannot read snapshot '%s': %s",
						  path, strerror(errno));
			break;
		}
	}
	fclose(f);
	if (rc == 0)
		rc = snapshot_parse(path, buf, len, device, out, err, errlen);
	free(buf);
	return rc;
}
