/* SPDX-License-Identifier: MIT */
/*
 * test_capture_live.c - the capture's live-allocation map and argument
 * scanner: lookups against a brute-force model, overlap handling, pointers
 * found in crafted parameter buffers (inside by-value structs too).
 */
#include <stdlib.h>

#include "argscan.h"
#include "live.h"
#include "tap.h"

#define N 2000

static struct live_entry model[N];
static int present[N];

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static const struct live_entry *brute(uint64_t p)
{
	for (int i = 0; i < N; i++)
		if (present[i] && p >= model[i].addr &&
		    p - model[i].addr < model[i].size)
			return &model[i];
	return NULL;
}

static void test_map(void)
{
	struct live_map m;
	live_init(&m);
	CHECK(live_find(&m, 12345) == NULL, "empty map finds nothing");
	/* slots of 1 MiB at 0x7f0000000000, sizes up to 1 MiB */
	uint64_t s = 88172645463325252ull;
	for (int i = 0; i < N; i++) {
		model[i] = (struct live_entry){
			.addr = 0x7f0000000000ull + (uint64_t)i * (1u << 20) +
				rnd(&s) % 512 * 256,
			.size = 1 + rnd(&s) % (1u << 19), .id = i };
	}
	int bad = 0;
	for (int step = 0; step < 20000; step++) {
		int i = (int)(rnd(&s) % N);
		if (present[i]) {
			struct live_entry out;
			bad += live_remove(&m, model[i].addr, &out) != 0 ||
			       out.id != i;
			present[i] = 0;
		} else {
			bad += live_insert(&m, &model[i]) != 0;
			present[i] = 1;
		}
		uint64_t p = 0x7f0000000000ull + rnd(&s) % ((uint64_t)N << 20);
		const struct live_entry *a = live_find(&m, p), *b = brute(p);
		bad += (a == NULL) != (b == NULL) || (a && a->id != b->id);
		if (present[i]) { /* its first and last byte, and one past */
			const struct live_entry *e = live_find(&m, model[i].addr);
			bad += !e || e->id != i;
			e = live_find(&m, model[i].addr + model[i].size - 1);
			bad += !e || e->id != i;
			e = live_find(&m, model[i].addr + model[i].size);
			bad += e && e->id == i;
		}
	}
	CHECK(bad == 0, "20000 random inserts, removes and lookups agree with a brute-force model");
	for (size_t i = 1; i < m.n; i++)
		bad += m.v[i - 1].addr + m.v[i - 1].size > m.v[i].addr;
	CHECK(bad == 0, "entries stay sorted and disjoint");
	live_clear(&m);

	struct live_entry a = { .addr = 1000000, .size = 100, .id = 1 };
	struct live_entry b = { .addr = 1000100, .size = 50, .id = 2 };
	CHECK(live_insert(&m, &a) == 0 && live_insert(&m, &b) == 0,
	      "adjacent ranges both insert");
	struct live_entry c = { .addr = 1000099, .size = 2, .id = 3 };
	CHECK(live_insert(&m, &c) != 0 && m.n == 2,
	      "an overlapping insert is refused and changes nothing");
	CHECK(live_overlap(&m, 1000099, 2) == 0, "overlap finds the first range touched");
	CHECK(live_overlap(&m, 999000, 1000) == -1, "a range ending at the start does not overlap");
	CHECK(live_overlap(&m, 1000150, 10) == -1, "a range starting at the end does not overlap");
	CHECK(live_overlap(&m, 0, UINT64_MAX) == 0, "a huge range overlaps without overflow");
	CHECK(live_remove(&m, 1000001, NULL) == -1,
	      "removing by an inner address (not a base) fails");
	struct live_entry z = { .addr = 5, .size = 0 };
	CHECK(live_insert(&m, &z) != 0, "an empty range is refused");
	live_clear(&m);
}

struct by_value { /* a by-value struct argument with pointers inside */
	int n;
	float *x;  /* offset 8 */
	char tag[8];
	double *y; /* offset 24 */
};

static void test_argscan(void)
{
	float *devx = (float *)(uintptr_t)0x7f0000100040ull;
	double *devy = (double *)(uintptr_t)0x7f0000300000ull;
	void *devz = (void *)(uintptr_t)0x7f0000500008ull;
	int count = 77;
	short small = 3;
	/* padding zeroed: an initializer leaves it indeterminate, and the
	 * scan reads the word bv.n shares with it */
	struct by_value bv;
	memset(&bv, 0, sizeof(bv));
	bv.n = 5;
	bv.x = devx;
	memcpy(bv.tag, "abcdefg", 8);
	bv.y = devy;
	void *args[4] = { &count, &bv, &devz, &small };
	struct argscan_param p[4] = { { 0, 4 }, { 8, sizeof(bv) },
				      { 40, 8 }, { 48, 2 } };
	struct argscan_layout l = { 4, p };
	uint64_t out[16];
	size_t n = argscan_params(&l, args, out, 16);
	int fx = 0, fy = 0, fz = 0;
	for (size_t i = 0; i < n && i < 16; i++) {
		fx += out[i] == (uint64_t)(uintptr_t)devx;
		fy += out[i] == (uint64_t)(uintptr_t)devy;
		fz += out[i] == (uint64_t)(uintptr_t)devz;
	}
	CHECK(fx == 1 && fy == 1 && fz == 1,
	      "pointers in a plain parameter and inside a by-value struct are found");
	/* words: bv.n+pad (5, below the minimum), x, tag (text), y, devz */
	CHECK_EQ_U64(n, 4, "small integers and short parameters are not candidates");
	CHECK_EQ_U64(argscan_params(&l, args, out, 2), 4,
		     "a short output still counts every candidate");

	/* the same values packed into one buffer at the layout's offsets */
	unsigned char buf[56] = { 0 };
	memcpy(buf + 0, &count, 4);
	memcpy(buf + 8, &bv, sizeof(bv));
	memcpy(buf + 40, &devz, 8);
	memcpy(buf + 48, &small, 2);
	n = argscan_buffer(&l, buf, sizeof(buf), out, 16);
	CHECK_EQ_U64(n, 4, "a packed parameter buffer gives the same candidates");
	n = argscan_buffer(NULL, buf, sizeof(buf), out, 16);
	CHECK_EQ_U64(n, 4, "without a layout every aligned word of the buffer is scanned");
	n = argscan_buffer(&l, buf, 24, out, 16); /* ends after bv.x */
	CHECK_EQ_U64(n, 1, "a buffer shorter than the layout is read only up to its length");
	/* an unaligned args[] pointer is read safely (memcpy) */
	unsigned char raw[17];
	memcpy(raw + 1, &devz, 8);
	void *args2[1] = { raw + 1 };
	struct argscan_param p2 = { 0, 8 };
	struct argscan_layout l2 = { 1, &p2 };
	n = argscan_params(&l2, args2, out, 16);
	CHECK(n == 1 && out[0] == (uint64_t)(uintptr_t)devz,
	      "a parameter value at an unaligned host address is read");
	void *args3[1] = { NULL };
	CHECK_EQ_U64(argscan_params(&l2, args3, out, 16), 0, "a null argument pointer is skipped");
}

/* Stand-ins for cuFuncGetParamInfo / cuKernelGetParamInfo with the
 * driver's answers: a CUkernel handle passed as a CUfunction gets
 * INVALID_VALUE at index 0, as a parameterless CUfunction does. */
#define H_KERNEL ((const void *)(uintptr_t)0x4b00)
#define H_EMPTY ((const void *)(uintptr_t)0xe300)
static int fake_func_info(const void *h, uint32_t i, uint32_t *off, uint32_t *size)
{
	(void)i;
	(void)off;
	(void)size;
	if (h == H_KERNEL || h == H_EMPTY)
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	return -1;
}

static int fake_kernel_info(const void *h, uint32_t i, uint32_t *off, uint32_t *size)
{
	if (h != H_KERNEL)
		return -1; /* not a CUkernel: CUDA_ERROR_INVALID_HANDLE */
	if (i >= 2)
		return 1;
	*off = 8 * i;
	*size = 8;
	return 0;
}

static void test_read_layout(void)
{
	struct argscan_param p[8];
	uint32_t n = 99;
	CHECK(argscan_read_layout(fake_func_info, fake_kernel_info, H_KERNEL, p, 8, &n) == 0 &&
		      n == 2 && p[1].offset == 8,
	      "INVALID_VALUE at index 0 of a CUfunction: the CUkernel reading is tried first");
	n = 99;
	CHECK(argscan_read_layout(fake_func_info, fake_kernel_info, H_EMPTY, p, 8, &n) == 0 && n == 0,
	      "a CUfunction without parameters is believed once the CUkernel reading fails");
	CHECK(argscan_read_layout(fake_func_info, fake_kernel_info, (const void *)(uintptr_t)0x1, p,
				  8, &n) == -1,
	      "a handle neither reading knows: cannot tell");
	n = 99;
	CHECK(argscan_read_layout(fake_kernel_info, NULL, H_KERNEL, p, 1, &n) == 0 && n == 1,
	      "at most cap parameters are read");
}

int main(void)
{
	test_map();
	test_argscan();
	test_read_layout();
	return tap_done();
}
