/* SPDX-License-Identifier: MIT */
/*
 * pickle.h - a strict subset unpickler for untrusted files: Python pickles of
 * protocols 2 to 5 that hold only None, bools, ints, floats, str, bytes,
 * lists, tuples and dicts (what torch.cuda.memory._dump_snapshot writes).
 * Every opcode that would import or call code is refused; depth, memory and
 * the size that memo references can expand to are bounded.
 *
 * The result is a tree of values that may share subtrees (memo references);
 * it never has a cycle, and a container never changes once it sits inside
 * another one.
 */
#ifndef MEMPLAN_PICKLE_H
#define MEMPLAN_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

enum pickle_type {
	PICKLE_NONE = 0,
	PICKLE_BOOL,
	PICKLE_INT,
	PICKLE_FLOAT,
	PICKLE_STR,
	PICKLE_BYTES,
	PICKLE_LIST,
	PICKLE_TUPLE,
	PICKLE_DICT,
};

struct pickle_value {
	uint8_t type;     /* enum pickle_type */
	uint8_t sealed;   /* inside a container: no longer mutable */
	uint8_t wide;     /* INT: PICKLE_FITS, PICKLE_U64 or PICKLE_WIDER */
	uint16_t depth;   /* 0 for a scalar, 1 + deepest child for a container */
	size_t n;         /* str/bytes: length; list/tuple: items; dict: pairs */
	size_t cap;       /* allocated item slots */
	uint64_t expanded; /* values in the subtree, shared ones counted again */
	union {
		int64_t i;  /* INT that fits, BOOL (0 or 1); 0 when wider */
		uint64_t u; /* INT of PICKLE_U64: the value */
		double f;   /* FLOAT */
		char *s;    /* STR, BYTES: n bytes and a NUL after them */
		struct pickle_value **items; /* LIST/TUPLE: n; DICT: 2n (k, v, ...) */
	} u;
};

/*
 * How wide an INT is.  Pickles hold integers of any width (LONG1, LONG4);
 * the reader keeps the ones of 64 bits and marks the others, so that each
 * field decides what a value out of its range means (a line number becomes
 * unknown, an address is an error).
 */
enum pickle_width {
	PICKLE_FITS = 0,  /* in int64_t: u.i */
	PICKLE_U64 = 1,   /* in 2^63 .. 2^64 - 1: u.u */
	PICKLE_WIDER = 2, /* below -2^63 or above 2^64 - 1 */
};

/* The longest LONG1/LONG4 operand read, in bytes (2^32768: far beyond any
 * field, short enough that a bad length cannot cost much). */
#define PICKLE_MAX_LONG 4096

/* Bounds on what a pickle may build; zero fields take the defaults. */
struct pickle_limits {
	unsigned max_depth;    /* container nesting (default 64) */
	size_t max_memory;     /* bytes of values, strings, stacks (default 4 GiB) */
	uint64_t max_expanded; /* values counted through shared references
				  (default 64 per input byte, at least 2^20) */
};

struct pickle_doc;

/*
 * Parses data (len bytes) read from the file called name.  Returns 0 and
 * *out, or TRACE_EFORMAT (TRACE_ENOMEM when a limit on memory is passed, or
 * malloc fails) with one sentence "'name': byte N: ..." in err, naming the
 * opcode; *out is untouched on failure and nothing is leaked.
 */
int pickle_parse(const char *name, const uint8_t *data, size_t len,
		 const struct pickle_limits *lim, struct pickle_doc **out,
		 char *err, size_t errlen);

/* The value the pickle returns (its top of stack at STOP). */
const struct pickle_value *pickle_root(const struct pickle_doc *d);
/* Bytes the document holds (for tests and limits). */
size_t pickle_memory(const struct pickle_doc *d);
void pickle_free(struct pickle_doc *d);

/* dict[key] for a str key, the last one set; NULL if absent or d no dict. */
const struct pickle_value *pickle_get(const struct pickle_value *d,
				      const char *key);
/* Item i of a list or tuple, NULL if out of range or v is neither. */
const struct pickle_value *pickle_item(const struct pickle_value *v, size_t i);
/* True for a list or a tuple. */
int pickle_is_seq(const struct pickle_value *v);
/* "dict", "list", "str", ... for messages; "nothing" for NULL. */
const char *pickle_type_name(const struct pickle_value *v);
/* The pickle name of an opcode ("GLOBAL", "BINUNICODE"), or NULL. */
const char *pickle_opcode_name(unsigned op);

#endif
