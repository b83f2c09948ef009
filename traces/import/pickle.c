/* SPDX-License-Identifier: MIT */
/*
 * pickle.c - the strict subset unpickler of pickle.h, for PyTorch memory
 * snapshots.  A pickle is a program for a stack machine; this one runs only
 * the opcodes that build plain data and refuses, by name, every opcode that
 * imports or calls code.  Invariant: a container is sealed when it is put
 * into another one and never changes after, so the value graph has no cycle
 * and its depth and expanded size are known as it is built.
 */
#include "pickle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_DEPTH 64
#define DEFAULT_MEMORY ((size_t)4 << 30)
#define NODES_PER_CHUNK 4096

struct node_chunk {
	struct node_chunk *next;
	size_t used;
	struct pickle_value v[NODES_PER_CHUNK];
};

struct pickle_doc {
	struct pickle_value *root;
	struct node_chunk *chunks;
	size_t memory;
};

struct unpickler {
	const char *name;
	const uint8_t *p, *end, *start;
	size_t op_at; /* offset of the opcode being run */
	uint8_t op;
	struct pickle_doc *doc;
	struct pickle_limits lim;
	struct pickle_value **stack;
	size_t nstack, capstack;
	size_t *marks;
	size_t nmarks, capmarks;
	struct pickle_value **memo;
	size_t nmemo, capmemo;
	char *err;
	size_t errlen;
};

/* --- opcode names ------------------------------------------------------ */

static const struct {
	uint8_t op;
	const char *name;
} opnames[] = {
	{ '(', "MARK" }, { '.', "STOP" }, { '0', "POP" }, { '1', "POP_MARK" },
	{ '2', "DUP" }, { 'F', "FLOAT" }, { 'I', "INT" }, { 'J', "BININT" },
	{ 'K', "BININT1" }, { 'L', "LONG" }, { 'M', "BININT2" }, { 'N', "NONE" },
	{ 'P', "PERSID" }, { 'Q', "BINPERSID" }, { 'R', "REDUCE" },
	{ 'S', "STRING" }, { 'T', "BINSTRING" }, { 'U', "SHORT_BINSTRING" },
	{ 'V', "UNICODE" }, { 'X', "BINUNICODE" }, { 'a', "APPEND" },
	{ 'b', "BUILD" }, { 'c', "GLOBAL" }, { 'd', "DICT" }, { '}', "EMPTY_DICT" },
	{ 'e', "APPENDS" }, { 'g', "GET" }, { 'h', "BINGET" }, { 'i', "INST" },
	{ 'j', "LONG_BINGET" }, { 'l', "LIST" }, { ']', "EMPTY_LIST" },
	{ 'o', "OBJ" }, { 'p', "PUT" }, { 'q', "BINPUT" }, { 'r', "LONG_BINPUT" },
	{ 's', "SETITEM" }, { 't', "TUPLE" }, { ')', "EMPTY_TUPLE" },
	{ 'u', "SETITEMS" }, { 'G', "BINFLOAT" }, { 0x80, "PROTO" },
	{ 0x81, "NEWOBJ" }, { 0x82, "EXT1" }, { 0x83, "EXT2" }, { 0x84, "EXT4" },
	{ 0x85, "TUPLE1" }, { 0x86, "TUPLE2" }, { 0x87, "TUPLE3" },
	{ 0x88, "NEWTRUE" }, { 0x89, "NEWFALSE" }, { 0x8a, "LONG1" },
	{ 0x8b, "LONG4" }, { 'B', "BINBYTES" }, { 'C', "SHORT_BINBYTES" },
	{ 0x8c, "SHORT_BINUNICODE" }, { 0x8d, "BINUNICODE8" },
	{ 0x8e, "BINBYTES8" }, { 0x8f, "EMPTY_SET" }, { 0x90, "ADDITEMS" },
	{ 0x91, "FROZENSET" }, { 0x92, "NEWOBJ_EX" }, { 0x93, "STACK_GLOBAL" },
	{ 0x94, "MEMOIZE" }, { 0x95, "FRAME" }, { 0x96, "BYTEARRAY8" },
	{ 0x97, "NEXT_BUFFER" }, { 0x98, "READONLY_BUFFER" },
};

const char *pickle_opcode_name(unsigned op)
{
	for (size_t i = 0; i < sizeof(opnames) / sizeof(opnames[0]); i++)
		if (opnames[i].op == op)
			return opnames[i].name;
	return NULL;
}

static const char *const type_names[] = { "None", "bool",  "int",
					  "float", "str",  "bytes",
					  "list", "tuple", "dict" };

const char *pickle_type_name(const struct pickle_value *v)
{
	return v ? type_names[v->type] : "nothing";
}

/* --- errors and memory ------------------------------------------------- */

static int fail(struct unpickler *u, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct unpickler *u, int code, const char *fmt, ...)
{
	if (!u->err || !u->errlen)
		return code;
	const char *on = pickle_opcode_name(u->op);
	int n;
	if (on)
		n = snprintf(u->err, u->errlen, "'%s': byte %zu: opcode %s: ",
			     u->name, u->op_at, on);
	else
		n = snprintf(u->err, u->errlen, "'%s': byte %zu: ", u->name,
			     u->op_at);
	if (n >= 0 && (size_t)n < u->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(u->err + n, u->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* Counts n more bytes against the memory limit; 0 or TRACE_ENOMEM. */
static int charge(struct unpickler *u, size_t n)
{
	if (n > u->lim.max_memory || u->doc->memory > u->lim.max_memory - n)
		return fail(u, TRACE_ENOMEM,
			    "the pickle needs more than %zu bytes of memory (the limit)",
			    u->lim.max_memory);
	u->doc->memory += n;
	return 0;
}

/* Grows *arr (elements of elem bytes) to hold one more; charges memory. */
static int reserve(struct unpickler *u, void **arr, size_t *cap, size_t n,
		   size_t elem)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 8;
	if (ncap > SIZE_MAX / elem / 2)
		return fail(u, TRACE_ENOMEM, "too many values");
	int rc = charge(u, (ncap - *cap) * elem);
	if (rc)
		return rc;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return fail(u, TRACE_ENOMEM, "out of memory");
	*arr = p;
	*cap = ncap;
	return 0;
}

static struct pickle_value *new_value(struct unpickler *u, uint8_t type)
{
	struct node_chunk *c = u->doc->chunks;
	if (!c || c->used == NODES_PER_CHUNK) {
		if (charge(u, sizeof(*c)))
			return NULL;
		c = calloc(1, sizeof(*c));
		if (!c) {
			fail(u, TRACE_ENOMEM, "out of memory");
			return NULL;
		}
		c->next = u->doc->chunks;
		u->doc->chunks = c;
	}
	struct pickle_value *v = &c->v[c->used++];
	v->type = type;
	v->depth = type >= PICKLE_LIST;
	v->expanded = 1;
	return v;
}

/* --- reading the input ------------------------------------------------- */

static int need(struct unpickler *u, uint64_t n, const char *what)
{
	if (n > (uint64_t)(u->end - u->p))
		return fail(u, TRACE_EFORMAT,
			    "%s of %llu bytes runs past the end of the file (%zu bytes left; truncated?)",
			    what, (unsigned long long)n, (size_t)(u->end - u->p));
	return 0;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* --- the stack --------------------------------------------------------- */

static int push(struct unpickler *u, struct pickle_value *v)
{
	if (!v)
		return TRACE_ENOMEM; /* new_value() said why */
	int rc = reserve(u, (void **)&u->stack, &u->capstack, u->nstack,
			 sizeof(*u->stack));
	if (rc)
		return rc;
	u->stack[u->nstack++] = v;
	return 0;
}

/* Items above the topmost mark start at *base; fails without a mark. */
static int mark_base(struct unpickler *u, size_t *base)
{
	if (u->nmarks == 0)
		return fail(u, TRACE_EFORMAT, "no MARK on the stack");
	*base = u->marks[u->nmarks - 1];
	if (*base > u->nstack)
		return fail(u, TRACE_EFORMAT, "the stack lost its MARK");
	return 0;
}

static int top(struct unpickler *u, size_t below, struct pickle_value **v)
{
	size_t floor = u->nmarks ? u->marks[u->nmarks - 1] : 0;
	if (u->nstack < floor + below + 1)
		return fail(u, TRACE_EFORMAT, "the stack holds too few values");
	*v = u->stack[u->nstack - 1 - below];
	return 0;
}

/*
 * Puts child into container c at item slot (its next free one: n for a list
 * or tuple, 2n for a dict key and 2n + 1 for its value).  This is the one
 * place containers grow, so the rules live here: a sealed container (one
 * inside another) never changes, nothing contains itself, and depth and
 * expanded size stay within the limits.
 */
static int insert(struct unpickler *u, struct pickle_value *c,
		  struct pickle_value *child, size_t slot)
{
	if (c->sealed)
		return fail(u, TRACE_EFORMAT,
			    "a %s is changed after it was put inside another container (memo reuse a snapshot never makes)",
			    pickle_type_name(c));
	if (c == child)
		return fail(u, TRACE_EFORMAT, "a %s would contain itself",
			    pickle_type_name(c));
	if ((unsigned)child->depth + 1 > u->lim.max_depth)
		return fail(u, TRACE_EFORMAT, "values nest deeper than %u levels",
			    u->lim.max_depth);
	if (child->expanded > u->lim.max_expanded - c->expanded)
		return fail(u, TRACE_EFORMAT,
			    "memo references expand the data to more than %llu values",
			    (unsigned long long)u->lim.max_expanded);
	int rc = reserve(u, (void **)&c->u.items, &c->cap, slot,
			 sizeof(*c->u.items));
	if (rc)
		return rc;
	c->u.items[slot] = child;
	child->sealed = 1;
	if (child->depth + 1 > c->depth)
		c->depth = (uint16_t)(child->depth + 1);
	c->expanded += child->expanded;
	return 0;
}

/* Builds a list, tuple or dict of the values above the topmost mark. */
static int collect(struct unpickler *u, uint8_t type)
{
	size_t base;
	int rc = mark_base(u, &base);
	if (rc)
		return rc;
	size_t n = u->nstack - base;
	if (type == PICKLE_DICT && n % 2)
		return fail(u, TRACE_EFORMAT, "an odd number of values (%zu) for key/value pairs",
			    n);
	struct pickle_value *c = new_value(u, type);
	if (!c)
		return TRACE_ENOMEM;
	for (size_t i = base; i < u->nstack; i++) {
		if ((rc = insert(u, c, u->stack[i], i - base)))
			return rc;
		if (type != PICKLE_DICT || (i - base) % 2 == 1)
			c->n++;
	}
	u->nstack = base;
	u->nmarks--;
	return push(u, c);
}

/* APPEND(S) and SETITEM(S): adds the values above from to the container
 * just below from. */
static int extend(struct unpickler *u, size_t from, int pairs)
{
	size_t floor = u->nmarks ? u->marks[u->nmarks - 1] : 0;
	if (from <= floor)
		return fail(u, TRACE_EFORMAT, "no container below the values");
	struct pickle_value *c = u->stack[from - 1];
	uint8_t want = pairs ? PICKLE_DICT : PICKLE_LIST;
	if (c->type != want)
		return fail(u, TRACE_EFORMAT, "adds to a %s, not a %s",
			    pickle_type_name(c), pairs ? "dict" : "list");
	size_t n = u->nstack - from;
	if (pairs && n % 2)
		return fail(u, TRACE_EFORMAT, "an odd number of values (%zu) for key/value pairs",
			    n);
	for (size_t i = from; i < u->nstack; i++) {
		size_t slot = pairs ? 2 * c->n + (i - from) % 2 : c->n;
		int rc = insert(u, c, u->stack[i], slot);
		if (rc)
			return rc;
		if (!pairs || (i - from) % 2 == 1)
			c->n++;
	}
	u->nstack = from;
	return 0;
}

static int tuple_of(struct unpickler *u, size_t n)
{
	size_t floor = u->nmarks ? u->marks[u->nmarks - 1] : 0;
	if (u->nstack < floor + n)
		return fail(u, TRACE_EFORMAT, "the stack holds too few values");
	struct pickle_value *c = new_value(u, PICKLE_TUPLE);
	if (!c)
		return TRACE_ENOMEM;
	for (size_t i = u->nstack - n; i < u->nstack; i++) {
		int rc = insert(u, c, u->stack[i], c->n);
		if (rc)
			return rc;
		c->n++;
	}
	u->nstack -= n;
	return push(u, c);
}

static int memo_put(struct unpickler *u, uint64_t idx)
{
	struct pickle_value *v = NULL;
	int rc = top(u, 0, &v);
	if (rc)
		return rc;
	if (idx > u->nmemo)
		return fail(u, TRACE_EFORMAT,
			    "memo index %llu skips past the next free index %zu",
			    (unsigned long long)idx, u->nmemo);
	if (idx == u->nmemo) {
		rc = reserve(u, (void **)&u->memo, &u->capmemo, u->nmemo,
			     sizeof(*u->memo));
		if (rc)
			return rc;
		u->nmemo++;
	}
	u->memo[idx] = v;
	return 0;
}

static int memo_get(struct unpickler *u, uint64_t idx)
{
	if (idx >= u->nmemo)
		return fail(u, TRACE_EFORMAT,
			    "memo index %llu was never stored (the memo holds %zu)",
			    (unsigned long long)idx, u->nmemo);
	return push(u, u->memo[idx]);
}

static int blob(struct unpickler *u, uint8_t type, uint64_t n)
{
	int rc = need(u, n, type == PICKLE_STR ? "a string" : "a bytes value");
	if (rc)
		return rc;
	struct pickle_value *v = new_value(u, type);
	if (!v || charge(u, (size_t)n + 1))
		return TRACE_ENOMEM;
	v->u.s = malloc((size_t)n + 1);
	if (!v->u.s)
		return fail(u, TRACE_ENOMEM, "out of memory");
	memcpy(v->u.s, u->p, (size_t)n);
	v->u.s[n] = '\0';
	v->n = (size_t)n;
	u->p += n;
	return push(u, v);
}

static int integer(struct unpickler *u, int64_t i)
{
	struct pickle_value *v = new_value(u, PICKLE_INT);
	if (!v)
		return TRACE_ENOMEM;
	v->u.i = i;
	return push(u, v);
}

/*
 * LONG1/LONG4: n bytes of two's complement, little-endian, of any width.
 * The value is kept when it fits in 64 bits (signed, or unsigned when
 * positive) and marked PICKLE_WIDER otherwise.
 */
static int long_integer(struct unpickler *u, size_t n)
{
	const uint8_t *p = u->p;
	int neg = n > 0 && (p[n - 1] & 0x80);
	uint8_t fill = neg ? 0xff : 0x00;
	/* the bytes above the low 8 must all be the sign's */
	size_t used = n;
	while (used > 8 && p[used - 1] == fill)
		used--;
	struct pickle_value *x = new_value(u, PICKLE_INT);
	if (!x)
		return TRACE_ENOMEM;
	u->p += n;
	if (used > 8) {
		x->wide = PICKLE_WIDER;
		return push(u, x);
	}
	uint64_t raw = le(p, (unsigned)used);
	if (neg && used < 8)
		raw |= ~(uint64_t)0 << (8 * used); /* sign-extend */
	if (neg && used == 8 && !(p[7] & 0x80))
		x->wide = PICKLE_WIDER; /* below -2^63 */
	else if (!neg && (raw >> 63))
		x->wide = PICKLE_U64;
	x->u.u = raw;
	if (x->wide == PICKLE_WIDER)
		x->u.u = 0;
	return push(u, x);
}

/* Reads an n-byte little-endian length operand. */
static int operand(struct unpickler *u, unsigned n, uint64_t *v)
{
	int rc = need(u, n, "an operand");
	if (rc)
		return rc;
	*v = le(u->p, n);
	u->p += n;
	return 0;
}

/* --- the machine ------------------------------------------------------- */

static int refuse(struct unpickler *u)
{
	const char *n = pickle_opcode_name(u->op);
	switch (u->op) {
	case 'c': case 0x93: case 'i': case 'o': case 'R': case 'b':
	case 0x81: case 0x92: case 0x82: case 0x83: case 0x84:
		return fail(u, TRACE_EFORMAT,
			    "would import or call code; memplan reads only plain data from a pickle (it is untrusted input), so this is not a memory snapshot it can read");
	case 'P': case 'Q':
		return fail(u, TRACE_EFORMAT,
			    "asks for a persistent object; a memory snapshot holds only plain data");
	case 0x97: case 0x98:
		return fail(u, TRACE_EFORMAT,
			    "refers to an out-of-band buffer; a memory snapshot holds only plain data");
	case 0x8f: case 0x90: case 0x91:
		return fail(u, TRACE_EFORMAT,
			    "builds a set, which a memory snapshot never holds");
	default:
		if (n)
			return fail(u, TRACE_EFORMAT,
				    "is a protocol 0/1 text opcode; memplan reads pickles of protocols 2 to 5");
		return fail(u, TRACE_EFORMAT, "unknown opcode 0x%02x", u->op);
	}
}

static int step(struct unpickler *u, int *stop)
{
	uint64_t v = 0;
	struct pickle_value *x = NULL;
	size_t base = 0;
	int rc;
	switch (u->op) {
	case 0x95: /* FRAME: frames are transparent, but must fit */
		if ((rc = operand(u, 8, &v)))
			return rc;
		return need(u, v, "a frame");
	case '.':
		*stop = 1;
		return 0;
	case '(':
		if ((rc = reserve(u, (void **)&u->marks, &u->capmarks, u->nmarks,
				  sizeof(*u->marks))))
			return rc;
		u->marks[u->nmarks++] = u->nstack;
		return 0;
	case '0':
		if (u->nmarks && u->marks[u->nmarks - 1] == u->nstack) {
			u->nmarks--; /* POP of a mark, as Python does */
			return 0;
		}
		if ((rc = top(u, 0, &x)))
			return rc;
		u->nstack--;
		return 0;
	case '1':
		if ((rc = mark_base(u, &base)))
			return rc;
		u->nstack = base;
		u->nmarks--;
		return 0;
	case '2':
		if ((rc = top(u, 0, &x)))
			return rc;
		return push(u, x);
	case 'N':
		return push(u, new_value(u, PICKLE_NONE));
	case 0x88:
	case 0x89:
		if (!(x = new_value(u, PICKLE_BOOL)))
			return TRACE_ENOMEM;
		x->u.i = u->op == 0x88;
		return push(u, x);
	case 'J':
		if ((rc = operand(u, 4, &v)))
			return rc;
		return integer(u, (int64_t)(int32_t)(uint32_t)v);
	case 'K':
		if ((rc = operand(u, 1, &v)))
			return rc;
		return integer(u, (int64_t)v);
	case 'M':
		if ((rc = operand(u, 2, &v)))
			return rc;
		return integer(u, (int64_t)v);
	case 0x8a:
	case 0x8b: {
		if ((rc = operand(u, u->op == 0x8a ? 1 : 4, &v)))
			return rc;
		if (v > PICKLE_MAX_LONG)
			return fail(u, TRACE_EFORMAT,
				    "an integer of %llu bytes is longer than the %d memplan reads",
				    (unsigned long long)v, PICKLE_MAX_LONG);
		if ((rc = need(u, v, "an integer")))
			return rc;
		return long_integer(u, (size_t)v);
	}
	case 'G': {
		if ((rc = need(u, 8, "a float")))
			return rc;
		uint64_t bits = 0;
		for (int i = 0; i < 8; i++)
			bits = bits << 8 | u->p[i];
		u->p += 8;
		if (!(x = new_value(u, PICKLE_FLOAT)))
			return TRACE_ENOMEM;
		memcpy(&x->u.f, &bits, sizeof(bits));
		return push(u, x);
	}
	case 0x8c:
		return (rc = operand(u, 1, &v)) ? rc : blob(u, PICKLE_STR, v);
	case 'X':
		return (rc = operand(u, 4, &v)) ? rc : blob(u, PICKLE_STR, v);
	case 0x8d:
		return (rc = operand(u, 8, &v)) ? rc : blob(u, PICKLE_STR, v);
	case 'C':
		return (rc = operand(u, 1, &v)) ? rc : blob(u, PICKLE_BYTES, v);
	case 'B':
		return (rc = operand(u, 4, &v)) ? rc : blob(u, PICKLE_BYTES, v);
	case 0x8e:
	case 0x96:
		return (rc = operand(u, 8, &v)) ? rc : blob(u, PICKLE_BYTES, v);
	case ']':
		return push(u, new_value(u, PICKLE_LIST));
	case ')':
		return push(u, new_value(u, PICKLE_TUPLE));
	case '}':
		return push(u, new_value(u, PICKLE_DICT));
	case 'l':
		return collect(u, PICKLE_LIST);
	case 't':
		return collect(u, PICKLE_TUPLE);
	case 'd':
		return collect(u, PICKLE_DICT);
	case 0x85:
	case 0x86:
	case 0x87:
		return tuple_of(u, (size_t)(u->op - 0x84));
	case 'a':
		if ((rc = top(u, 0, &x)))
			return rc;
		return extend(u, u->nstack - 1, 0);
	case 's':
		if ((rc = top(u, 1, &x)))
			return rc;
		return extend(u, u->nstack - 2, 1);
	case 'e':
	case 'u':
		if ((rc = mark_base(u, &base)))
			return rc;
		u->nmarks--;
		return extend(u, base, u->op == 'u');
	case 'q':
		return (rc = operand(u, 1, &v)) ? rc : memo_put(u, v);
	case 'r':
		return (rc = operand(u, 4, &v)) ? rc : memo_put(u, v);
	case 0x94:
		return memo_put(u, u->nmemo);
	case 'h':
		return (rc = operand(u, 1, &v)) ? rc : memo_get(u, v);
	case 'j':
		return (rc = operand(u, 4, &v)) ? rc : memo_get(u, v);
	default:
		return refuse(u);
	}
}

static void doc_free(struct pickle_doc *d)
{
	if (!d)
		return;
	struct node_chunk *c = d->chunks;
	while (c) {
		for (size_t i = 0; i < c->used; i++) {
			struct pickle_value *v = &c->v[i];
			if (v->type == PICKLE_STR || v->type == PICKLE_BYTES)
				free(v->u.s);
			else if (v->type >= PICKLE_LIST)
				free(v->u.items);
		}
		struct node_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(d);
}

int pickle_parse(const char *name, const uint8_t *data, size_t len,
		 const struct pickle_limits *lim, struct pickle_doc **out,
		 char *err, size_t errlen)
{
	struct unpickler u = { .name = name, .p = data, .start = data,
			       .end = data + len, .err = err, .errlen = errlen };
	if (lim)
		u.lim = *lim;
	if (!u.lim.max_depth)
		u.lim.max_depth = DEFAULT_DEPTH;
	if (u.lim.max_depth > 60000)
		u.lim.max_depth = 60000;
	if (!u.lim.max_memory)
		u.lim.max_memory = DEFAULT_MEMORY;
	if (!u.lim.max_expanded)
		u.lim.max_expanded = len < (UINT64_MAX >> 7) && 64 * (uint64_t)len > (1u << 20)
					     ? 64 * (uint64_t)len
					     : 1u << 20;
	if (len == 0)
		return trace_seterr(err, errlen, TRACE_EFORMAT,
				    "'%s': the file is empty", name);
	u.doc = calloc(1, sizeof(*u.doc));
	if (!u.doc)
		return trace_seterr(err, errlen, TRACE_ENOMEM, "out of memory");
	int rc = 0, stop = 0;
	u.op_at = 0;
	u.op = data[0];
	if (data[0] != 0x80 || len < 2) {
		rc = trace_seterr(err, errlen, TRACE_EFORMAT,
				  "'%s': byte 0: not a pickle of protocol 2 to 5 (it does not start with the PROTO opcode 0x80)",
				  name);
	} else if (data[1] < 2 || data[1] > 5) {
		u.op_at = 1;
		rc = trace_seterr(err, errlen, TRACE_EFORMAT,
				  "'%s': byte 1: pickle protocol %u; memplan reads protocols 2 to 5",
				  name, data[1]);
	}
	u.p = data + 2;
	while (rc == 0 && !stop) {
		if (u.p >= u.end) {
			u.op_at = len;
			u.op = 0;
			rc = fail(&u, TRACE_EFORMAT,
				  "the pickle ends without STOP (truncated?)");
			break;
		}
		u.op_at = (size_t)(u.p - u.start);
		u.op = *u.p++;
		if (u.op == 0x80) {
			rc = fail(&u, TRACE_EFORMAT, "a second PROTO inside the pickle");
			break;
		}
		rc = step(&u, &stop);
	}
	if (rc == 0) {
		if (u.nmarks)
			rc = fail(&u, TRACE_EFORMAT, "STOP with a MARK still open");
		else if (u.nstack != 1)
			rc = fail(&u, TRACE_EFORMAT,
				  "STOP with %zu values on the stack (expected 1)",
				  u.nstack);
		else if (u.p != u.end)
			rc = fail(&u, TRACE_EFORMAT,
				  "%zu bytes follow the end of the pickle",
				  (size_t)(u.end - u.p));
	}
	if (rc == 0)
		u.doc->root = u.stack[0];
	free(u.stack);
	free(u.marks);
	free(u.memo);
	if (rc) {
		doc_free(u.doc);
		return rc;
	}
	*out = u.doc;
	return 0;
}

const struct pickle_value *pickle_root(const struct pickle_doc *d)
{
	return d ? d->root : NULL;
}

size_t pickle_memory(const struct pickle_doc *d)
{
	return d ? d->memory : 0;
}

void pickle_free(struct pickle_doc *d)
{
	doc_free(d);
}

const struct pickle_value *pickle_get(const struct pickle_value *d,
				      const char *key)
{
	if (!d || d->type != PICKLE_DICT)
		return NULL;
	size_t klen = strlen(key);
	for (size_t i = d->n; i-- > 0;) {
		const struct pickle_value *k = d->u.items[2 * i];
		if (k->type == PICKLE_STR && k->n == klen &&
		    memcmp(k->u.s, key, klen) == 0)
			return d->u.items[2 * i + 1];
	}
	return NULL;
}

int pickle_is_seq(const struct pickle_value *v)
{
	return v && (v->type == PICKLE_LIST || v->type == PICKLE_TUPLE);
}

const struct pickle_value *pickle_item(const struct pickle_value *v, size_t i)
{
	return pickle_is_seq(v) && i < v->n ? v->u.items[i] : NULL;
}
