/* SPDX-License-Identifier: MIT */
/*
 * plan_repair.h - for the fuzz targets that take plan files: a copy of the
 * input with its file-size field and checksum made right, so that mutations
 * reach the checks behind the CRC (section table, entries, the runtime).
 */
#ifndef MEMPLAN_FUZZ_PLAN_REPAIR_H
#define MEMPLAN_FUZZ_PLAN_REPAIR_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* A malloc'ed repaired copy of data, or NULL (too short for a header, or
 * out of memory). */
static inline unsigned char *fuzz_plan_repaired(const uint8_t *data, size_t size)
{
	if (size < MP_PLAN_HEADER_SIZE)
		return NULL;
	unsigned char *copy = malloc(size);
	if (!copy)
		return NULL;
	memcpy(copy, data, size);
	for (int i = 0; i < 8; i++) /* the file size field, then the CRC */
		copy[16 + i] = (unsigned char)((uint64_t)size >> (8 * i));
	uint32_t crc = mp_plan_checksum(copy, size);
	for (int i = 0; i < 4; i++)
		copy[MP_PLAN_CHECKSUM_AT + i] = (unsigned char)(crc >> (8 * i));
	return copy;
}

#endif
