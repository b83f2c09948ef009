/* SPDX-License-Identifier: MIT */
/*
 * fuzz_zinput.c - fuzz target for the wrapping of outside files (zinput.c:
 * gzip, tar headers, member choice) and format detection (detect.c): any
 * input either opens, reads to its end and finishes, or fails with one
 * sentence that names the file; detection either names a format or says
 * why not.  zinput reads paths, so each input is written to a temporary
 * file first.  Run by tests/fuzz/driver.c or by libFuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect.h"
#include "trace.h"
#include "zinput.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/memplan-fuzz-zinput.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	size_t done = 0;
	while (done < size) {
		ssize_t k = write(fd, data + done, size - done);
		if (k <= 0)
			break;
		done += (size_t)k;
	}
	close(fd);
	char err[512];
	/* rank from the first byte: none, or 0..6 */
	long rank = size && data[0] < 7 ? (long)data[0] : ZIN_ANY_RANK;
	struct zinput *z = NULL;
	err[0] = 0;
	int rc = zin_open_rank(path, "fuzz input", rank, &z, err, sizeof(err));
	if (rc == 0) {
		uint8_t buf[4096];
		long k;
		while ((k = zin_read(z, buf, sizeof(buf))) > 0)
			;
		if (k < 0 && !zin_error(z)[0])
			abort();
		err[0] = 0;
		if (k == 0 && zin_finish(z, err, sizeof(err)) != 0 && !err[0])
			abort();
		if (strlen(zin_member(z)) >= 320)
			abort();
		zin_close(z);
	} else if (!err[0] || z) {
		abort();
	}
	const char *format = NULL;
	char why[160];
	err[0] = 0;
	rc = import_detect(path, &format, why, sizeof(why), err, sizeof(err));
	if (rc == 0 ? !format || !why[0] : !err[0])
		abort();
	unlink(path);
	return 0;
}
