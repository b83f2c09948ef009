/* SPDX-License-Identifier: MIT */
/*
 * fuzz_plan.c - fuzz target for the plan file loader: any input is either
 * refused with a sentence or decodes to a plan that validates, re-encodes to
 * the same plan and shows the same layout.  Each input is tried twice: as
 * it is, and with its size field and checksum repaired, so that mutations reach the
 * section table and entry checks behind the CRC.  Seeds are real plans,
 * one of them with the optional SWAP_TIMING section (timing.plan); compiled
 * plans carry the optional STREAMS section, swap plans the optional LINK
 * section (link.plan, seeds.sh).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "plan_repair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const unsigned char *buf, size_t len)
{
	char err[512] = "";
	struct mp_plan p, q;
	int rc = mp_plan_decode(buf, len, &p, err, sizeof(err));
	if (rc) {
		if (err[0] == '\0' || p.allocs || p.swaps || p.nallocs ||
		    p.timing || p.has_timing || p.streams || p.has_streams ||
		    p.has_link || p.link[0])
			abort(); /* a refusal says why and leaves nothing */
		return;
	}
	if (mp_plan_validate(&p, err, sizeof(err)) != 0)
		abort();
	struct mp_plan_section_info sec[8];
	size_t nsec;
	uint32_t crc;
	if (mp_plan_layout(buf, len, sec, 8, &nsec, &crc, err, sizeof(err)) != 0)
		abort();
	unsigned char *out;
	size_t olen;
	if (mp_plan_encode(&p, &out, &olen, err, sizeof(err)) != 0)
		abort(); /* what decodes must encode */
	if (mp_plan_decode(out, olen, &q, err, sizeof(err)) != 0)
		abort();
	if (q.nallocs != p.nallocs || q.nswaps != p.nswaps ||
	    q.pool_size != p.pool_size || q.fingerprint != p.fingerprint ||
	    q.has_timing != p.has_timing || q.has_streams != p.has_streams ||
	    q.has_link != p.has_link || strcmp(q.link, p.link) != 0 ||
	    mp_plan_stream_count(&q) != mp_plan_stream_count(&p))
		abort();
	/* a stream ordinal never reaches the count of entries */
	if (p.has_streams && mp_plan_stream_count(&p) > p.nallocs)
		abort();
	for (uint32_t i = 0; p.has_streams && i < p.nallocs; i++)
		if (q.streams[i] != p.streams[i])
			abort();
	for (uint32_t i = 0; i < p.nallocs; i++)
		if (q.allocs[i].offset != p.allocs[i].offset ||
		    q.allocs[i].size != p.allocs[i].size)
			abort();
	/* the advisory timing survives the trip whole, sign included */
	for (uint32_t i = 0; p.has_timing && i < p.nswaps; i++)
		if (q.timing[i].d2h_slack_ns != p.timing[i].d2h_slack_ns ||
		    q.timing[i].h2d_slack_ns != p.timing[i].h2d_slack_ns ||
		    q.timing[i].predicted_stall_ns != p.timing[i].predicted_stall_ns ||
		    q.timing[i].flags != p.timing[i].flags)
			abort();
	mp_plan_free(&q);
	free(out);
	mp_plan_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size);
	unsigned char *copy = fuzz_plan_repaired(data, size);
	if (copy)
		one(copy, size);
	free(copy);
	return 0;
}
