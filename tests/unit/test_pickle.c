/* SPDX-License-Identifier: MIT */
/*
 * test_pickle.c - the strict unpickler: the plain-data opcodes of protocols
 * 2 to 5 build the right values, and hostile pickles (code-loading opcodes,
 * truncation, deep nesting, huge lengths, memo abuse, exponential sharing)
 * fail with a sentence that names the byte and the opcode.
 */
#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "tap.h"

static char err[512];

static int parse(const void *data, size_t len, struct pickle_doc **doc)
{
	err[0] = '\0';
	return pickle_parse("t.pickle", data, len, NULL, doc, err, sizeof(err));
}

/* Parses and expects failure with text in the message. */
static void refused(const void *data, size_t len, const char *text,
		    const char *what)
{
	struct pickle_doc *doc = NULL;
	int rc = parse(data, len, &doc);
	CHECK(rc == TRACE_EFORMAT && doc == NULL, what);
	CHECK_STR_HAS(err, text, what);
}

#define P(...) ((const uint8_t[]){ __VA_ARGS__ })
#define PLEN(...) sizeof((const uint8_t[]){ __VA_ARGS__ })
#define REFUSED(text, what, ...) refused(P(__VA_ARGS__), PLEN(__VA_ARGS__), text, what)

/*
 * Integers wider than 64 bits: Python 3.13 and torch.compile write line
 * numbers of 2^64 - 1 as a 9-byte LONG1.  They parse, and say how wide
 * they are; LONG4 and negative numbers too.
 */
static void test_wide_integers(void)
{
	static const uint8_t p[] = {
		0x80, 4, '(',
		0x8a, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, /* 2^64-1 */
		0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1,                         /* 2^64 */
		0x8a, 9, 5, 0, 0, 0, 0, 0, 0, 0, 0,                         /* 5 */
		0x8a, 9, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* -5 */
		0x8a, 8, 0, 0, 0, 0, 0, 0, 0, 0x80,                         /* -2^63 */
		0x8a, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, /* -2^63-1 */
		0x8b, 12, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,   /* 96 bits */
		0x8b, 3, 0, 0, 0, 0x34, 0x12, 0,                            /* 0x1234 */
		0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0x80, 0,                      /* 2^63 */
		'l', '.',
	};
	struct pickle_doc *doc;
	int rc = parse(p, sizeof(p), &doc);
	CHECK(rc == 0, "LONG1 and LONG4 integers wider than 64 bits parse");
	if (rc) {
		printf("#   %s\n", err);
		return;
	}
	const struct pickle_value *r = pickle_root(doc);
	const struct pickle_value *v[9];
	for (size_t i = 0; i < 9; i++)
		v[i] = pickle_item(r, i);
	CHECK(r->n == 9 && v[0]->type == PICKLE_INT, "a list of 9 ints");
	CHECK(v[0]->wide == PICKLE_U64 && v[0]->u.u == UINT64_MAX,
	      "2^64 - 1 in 9 bytes is an unsigned 64-bit value");
	CHECK(v[1]->wide == PICKLE_WIDER, "2^64 is wider than 64 bits");
	CHECK(v[2]->wide == PICKLE_FITS && v[2]->u.i == 5, "5 in 9 bytes fits");
	CHECK(v[3]->wide == PICKLE_FITS && v[3]->u.i == -5, "-5 in 9 bytes fits");
	CHECK(v[4]->wide == PICKLE_FITS && v[4]->u.i == INT64_MIN, "-2^63 fits");
	CHECK(v[5]->wide == PICKLE_WIDER, "-2^63 - 1 is wider than 64 bits");
	CHECK(v[6]->wide == PICKLE_WIDER, "a 96-bit LONG4 is wider");
	CHECK(v[7]->wide == PICKLE_FITS && v[7]->u.i == 0x1234, "a short LONG4 fits");
	CHECK(v[8]->wide == PICKLE_U64 && v[8]->u.u == (uint64_t)1 << 63,
	      "2^63 is an unsigned 64-bit value");
	pickle_free(doc);
}

static void test_values(void)
{
	/* {'a': 1, 'b': [2, True, None, 1.5, -3, b'xy', ('t',), 'a']} */
	static const uint8_t p[] = {
		0x80, 4, 0x95, 10, 0, 0, 0, 0, 0, 0, 0, /* PROTO 4, FRAME */
		'}', 0x94, '(',                            /* dict, memo 0, MARK */
		0x8c, 1, 'a', 0x94, 'K', 1,                /* 'a' memo 1, 1 */
		0x8c, 1, 'b', 0x94, ']', 0x94, '(',        /* 'b', list memo 3 */
		'K', 2, 0x88, 'N',
		'G', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0,         /* 1.5 */
		'J', 0xfd, 0xff, 0xff, 0xff,               /* -3 */
		'C', 2, 'x', 'y',
		0x8c, 1, 't', 0x85,                        /* ('t',) */
		'h', 1,                                    /* memo 1: 'a' */
		'e', 'u', '.',
	};
	struct pickle_doc *doc;
	int rc = parse(p, sizeof(p), &doc);
	CHECK(rc == 0, "a protocol 4 pickle of plain data parses");
	if (rc) {
		printf("#   %s\n", err);
		return;
	}
	const struct pickle_value *r = pickle_root(doc);
	CHECK(r->type == PICKLE_DICT && r->n == 2, "the root is a dict of 2");
	const struct pickle_value *a = pickle_get(r, "a"), *b = pickle_get(r, "b");
	CHECK(a && a->type == PICKLE_INT && a->u.i == 1, "dict['a'] == 1");
	CHECK(b && b->type == PICKLE_LIST && b->n == 8, "dict['b'] is a list of 8");
	CHECK(pickle_item(b, 0)->u.i == 2, "int");
	CHECK(pickle_item(b, 1)->type == PICKLE_BOOL && pickle_item(b, 1)->u.i == 1, "True");
	CHECK(pickle_item(b, 2)->type == PICKLE_NONE, "None");
	CHECK(pickle_item(b, 3)->type == PICKLE_FLOAT && pickle_item(b, 3)->u.f == 1.5, "float");
	CHECK(pickle_item(b, 4)->u.i == -3, "negative BININT");
	CHECK(pickle_item(b, 5)->type == PICKLE_BYTES && pickle_item(b, 5)->n == 2 &&
		      memcmp(pickle_item(b, 5)->u.s, "xy", 2) == 0, "bytes");
	CHECK(pickle_item(b, 6)->type == PICKLE_TUPLE && pickle_item(b, 6)->n == 1, "tuple");
	CHECK(pickle_item(b, 7)->type == PICKLE_STR && strcmp(pickle_item(b, 7)->u.s, "a") == 0,
	      "the memo gives back the string");
	CHECK(pickle_item(b, 8) == NULL, "items past the end are NULL");
	CHECK(pickle_get(b, "a") == NULL, "pickle_get on a list is NULL");
	CHECK(r->depth == 3, "depth of dict > list > tuple is 3");
	pickle_free(doc);

	/* LONG1: 8 bytes of -1, 0 bytes (0), 2 bytes 0x0100 */
	static const uint8_t q[] = { 0x80, 2, '(', 0x8a, 8, 0xff, 0xff, 0xff, 0xff, 0xff,
				     0xff, 0xff, 0xff, 0x8a, 0, 0x8a, 2, 0, 1,
				     0x8a, 1, 0x80, 't', '.' };
	rc = parse(q, sizeof(q), &doc);
	CHECK(rc == 0, "LONG1 integers parse");
	if (rc == 0) {
		r = pickle_root(doc);
		CHECK(pickle_item(r, 0)->u.i == -1 && pickle_item(r, 1)->u.i == 0 &&
			      pickle_item(r, 2)->u.i == 256 && pickle_item(r, 3)->u.i == -128,
		      "LONG1 values, sign-extended");
		pickle_free(doc);
	}
	/* protocol 2, 3 and 5 headers; BINUNICODE, BINBYTES8, BYTEARRAY8 */
	static const uint8_t v5[] = { 0x80, 5, ']', '(', 'X', 2, 0, 0, 0, 'h', 'i',
				      0x96, 1, 0, 0, 0, 0, 0, 0, 0, 'z', 'e', '.' };
	rc = parse(v5, sizeof(v5), &doc);
	CHECK(rc == 0 && pickle_root(doc)->n == 2, "protocol 5 opcodes parse");
	if (rc == 0)
		pickle_free(doc);
}

static void test_code_refused(void)
{
	REFUSED("opcode GLOBAL: would import or call code", "GLOBAL is refused",
		0x80, 2, 'c', 'o', 's', '\n', 's', 'y', 's', 't', 'e', 'm', '\n',
		'.');
	REFUSED("opcode STACK_GLOBAL", "STACK_GLOBAL is refused", 0x80, 4, 0x8c, 2,
		'o', 's', 0x8c, 6, 's', 'y', 's', 't', 'e', 'm', 0x93, '.');
	REFUSED("opcode REDUCE", "REDUCE is refused", 0x80, 2, ']', ')', 'R', '.');
	REFUSED("opcode BUILD", "BUILD is refused", 0x80, 2, ']', '}', 'b', '.');
	REFUSED("opcode INST", "INST is refused", 0x80, 2, '(', 'i', 'a', '\n',
		'b', '\n', '.');
	REFUSED("opcode OBJ", "OBJ is refused", 0x80, 2, '(', ']', 'o', '.');
	REFUSED("opcode NEWOBJ", "NEWOBJ is refused", 0x80, 2, ']', ')', 0x81, '.');
	REFUSED("opcode NEWOBJ_EX", "NEWOBJ_EX is refused", 0x80, 4, ']', ')', '}',
		0x92, '.');
	REFUSED("opcode EXT1", "EXT1 is refused", 0x80, 2, 0x82, 1, '.');
	REFUSED("opcode BINPERSID", "BINPERSID is refused", 0x80, 2, 'N', 'Q', '.');
	REFUSED("opcode NEXT_BUFFER", "out-of-band buffers are refused", 0x80, 5,
		0x97, '.');
	REFUSED("builds a set", "sets are refused", 0x80, 4, 0x8f, '.');
	REFUSED("byte 2: opcode GLOBAL", "the error names the byte", 0x80, 2, 'c',
		'a', '\n', 'b', '\n', '.');
	REFUSED("protocol 0/1 text opcode", "text opcodes are refused", 0x80, 2,
		'I', '1', '\n', '.');
	REFUSED("unknown opcode 0xff", "unknown opcodes are refused", 0x80, 2,
		0xff, '.');
}

static void test_framing(void)
{
	REFUSED("does not start with the PROTO opcode", "protocol 0 is refused",
		'(', 'l', '.');
	REFUSED("pickle protocol 1", "protocol 1 is refused", 0x80, 1, ']', '.');
	REFUSED("pickle protocol 6", "protocol 6 is refused", 0x80, 6, ']', '.');
	REFUSED("bytes follow the end", "data after STOP is refused", 0x80, 2, ']',
		'.', 'x');
	REFUSED("STOP with 2 values", "two values at STOP is refused", 0x80, 2, ']',
		']', '.');
	REFUSED("STOP with a MARK still open", "an open MARK at STOP is refused",
		0x80, 2, '(', ']', '.');
	REFUSED("a second PROTO", "PROTO inside is refused", 0x80, 2, 0x80, 2, '.');
	struct pickle_doc *doc = NULL;
	CHECK(parse("", 0, &doc) == TRACE_EFORMAT && strstr(err, "empty"),
	      "an empty file is refused");

	/* every prefix of a good pickle fails cleanly */
	static const uint8_t p[] = { 0x80, 4, '}', 0x94, '(', 0x8c, 3, 'k', 'e',
				     'y', 'X', 3, 0, 0, 0, 'v', 'a', 'l', 0x8c,
				     1, 't', 'J', 1, 2, 3, 4, 'G', 0, 0, 0, 0,
				     0, 0, 0, 0, 0x86, 0x94, 'u', 'h', 0, '0',
				     '.' };
	int rc = parse(p, sizeof(p), &doc);
	CHECK(rc == 0, "the full pickle parses");
	if (rc == 0)
		pickle_free(doc);
	int all = 1;
	for (size_t n = 0; n < sizeof(p); n++) {
		doc = NULL;
		if (parse(p, n, &doc) == 0 || doc)
			all = 0;
	}
	CHECK(all, "every truncation of it is refused");
	CHECK_STR_HAS(err, "without STOP", "a cut pickle ends without STOP");
	REFUSED("runs past the end of the file", "a truncated string is refused",
		0x80, 4, 'X', 10, 0, 0, 0, 'a', 'b', '.');
}

static void test_limits(void)
{
	/* huge lengths are checked against the file before any allocation */
	REFUSED("a string of 4611686018427387904 bytes runs past the end",
		"a 2^62-byte string is refused", 0x80, 4, 0x8d, 0, 0, 0, 0, 0, 0,
		0, 0x40, '.');
	REFUSED("runs past the end", "a 4 GiB bytes value is refused", 0x80, 4,
		'B', 0xff, 0xff, 0xff, 0xff, '.');
	REFUSED("runs past the end", "a huge frame is refused", 0x80, 4, 0x95,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, '.');
	REFUSED("an integer of 4294967295 bytes is longer than the 4096",
		"a LONG4 of 4 GiB is refused before it is read", 0x80, 2, 0x8b,
		0xff, 0xff, 0xff, 0xff, '.');
	REFUSED("an integer of 4000 bytes runs past", "a truncated LONG4 is refused",
		0x80, 2, 0x8b, 0xa0, 0x0f, 0, 0, 1, 2, '.');

	/* deep nesting: 200 lists, each appended into the one below */
	uint8_t deep[2 + 200 + 199 + 1];
	size_t n = 0;
	deep[n++] = 0x80;
	deep[n++] = 2;
	for (int i = 0; i < 200; i++)
		deep[n++] = ']';
	for (int i = 0; i < 199; i++)
		deep[n++] = 'a';
	deep[n++] = '.';
	refused(deep, n, "nest deeper than 64 levels", "200 nested lists are refused");
	struct pickle_doc *doc;
	struct pickle_limits lim = { .max_depth = 300 };
	CHECK(pickle_parse("d", deep, n, &lim, &doc, err, sizeof(err)) == 0,
	      "and parse with a higher depth limit");
	if (doc)
		pickle_free(doc);

	/* a memory limit is an error, not a crash */
	static const uint8_t big[] = { 0x80, 4, 'X', 0, 0, 1, 0 };
	uint8_t *m = malloc(sizeof(big) + 65536 + 1);
	memcpy(m, big, sizeof(big));
	memset(m + sizeof(big), 'x', 65536);
	m[sizeof(big) + 65536] = '.';
	lim = (struct pickle_limits){ .max_memory = 32768 };
	int rc = pickle_parse("m", m, sizeof(big) + 65537, &lim, &doc, err, sizeof(err));
	CHECK(rc == TRACE_ENOMEM, "a pickle over the memory limit fails");
	CHECK_STR_HAS(err, "bytes of memory", "and says so");
	rc = pickle_parse("m", m, sizeof(big) + 65537, NULL, &doc, err, sizeof(err));
	CHECK(rc == 0 && pickle_memory(doc) > 65536, "and parses under the default limit");
	if (rc == 0)
		pickle_free(doc);
	free(m);
}

static void test_memo(void)
{
	REFUSED("memo index 5 was never stored", "BINGET of an unknown index",
		0x80, 2, 'h', 5, '.');
	REFUSED("memo index 1000000 skips past", "LONG_BINPUT far ahead",
		0x80, 2, ']', 'r', 0x40, 0x42, 0x0f, 0, '.');
	REFUSED("memo index 4294967295 was never stored", "LONG_BINGET of 2^32-1",
		0x80, 2, 'j', 0xff, 0xff, 0xff, 0xff, '.');
	REFUSED("holds too few values", "BINPUT on an empty stack", 0x80, 2, 'q', 0, '.');
	REFUSED("would contain itself", "a list appended to itself",
		0x80, 2, ']', 'q', 0, 'h', 0, 'a', '.');
	/* l = []; d = {'k': l}; then l.append(1) through the memo */
	REFUSED("changed after it was put inside another container",
		"a list changed after it was placed in a dict",
		0x80, 2, ']', 'q', 0, '}', 0x8c, 1, 'k', 'h', 0, 's', 'h', 0, 'K',
		1, 'a', '0', '.');
	/* a dict used as its own value through a tuple */
	REFUSED("changed after it was put inside another container",
		"a cycle through a tuple is refused",
		0x80, 2, '}', 'q', 0, 'h', 0, 0x85, 'q', 1, '0', 'h', 0, 0x8c, 1,
		'k', 'h', 1, 's', '.');
	/* billion laughs: x = [s, s]; each level [prev, prev], 40 levels */
	uint8_t laughs[2 + 6 + 40 * 8 + 1];
	size_t n = 0;
	laughs[n++] = 0x80;
	laughs[n++] = 4;
	const uint8_t head[] = { 0x8c, 1, 'x', 0x94, ']', 0x94 };
	memcpy(laughs + n, head, sizeof(head));
	n += sizeof(head);
	for (int i = 0; i < 40; i++) {
		/* stack: L(i); make L(i+1) = [L(i), L(i)] */
		const uint8_t lvl[] = { ']', 0x94, '(', 'h', (uint8_t)(i + 1), 'h',
					(uint8_t)(i + 1), 'e' };
		memcpy(laughs + n, lvl, sizeof(lvl));
		n += sizeof(lvl);
	}
	laughs[n++] = '.';
	struct pickle_doc *doc;
	int rc = parse(laughs, n, &doc);
	CHECK(rc != 0, "2^40 values through shared references are refused");
	CHECK_STR_HAS(err, "expand the data", "the error names the expansion");
	if (rc == 0)
		pickle_free(doc);
}

int main(void)
{
	test_values();
	test_wide_integers();
	test_code_refused();
	test_framing();
	test_limits();
	test_memo();
	CHECK(strcmp(pickle_opcode_name(0x93), "STACK_GLOBAL") == 0 &&
		      pickle_opcode_name(0xfe) == NULL, "opcode names");
	return tap_done();
}
