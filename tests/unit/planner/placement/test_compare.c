/* SPDX-License-Identifier: MIT */
/*
 * test_compare.c - compare_run() over a good CSV, a broken one and a missing
 * file, in two threads: every row filled or failed with its stage, and the
 * good row's pools are what solver_solve() finds (the lower bound here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "compare.h"
#include "solver.h"
#include "tap.h"
#include "trace.h"

static char dir[] = "/tmp/memplan-test-compare-XXXXXX";

int main(void)
{
	char good[128], bad[128], none[128];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(good, sizeof(good), "%s/good.csv", dir);
	snprintf(bad, sizeof(bad), "%s/bad.csv", dir);
	snprintf(none, sizeof(none), "%s/none.csv", dir);
	FILE *f = fopen(good, "w");
	if (f) {
		/* two at once, then one: the bound 192 is reachable */
		fputs("id,lower,upper,size\n0,0,10,64\n1,5,20,128\n2,12,30,32\n", f);
		fclose(f);
	}
	f = fopen(bad, "w");
	if (f) {
		fputs("id,lower,upper,size\n0,5,2,10\n", f);
		fclose(f);
	}
	const char *names[2] = { "first-fit", "best-fit" };
	struct compare_row rows[3] = { { 0 } };
	rows[0].path = good;
	rows[1].path = bad;
	rows[2].path = none;
	for (int i = 0; i < 3; i++)
		rows[i].cells = calloc(2, sizeof(struct compare_cell));
	struct compare_job j = { .rows = rows, .nrows = 3, .strategies = names,
				 .nstrat = 2, .limit = 1.0 };
	compare_run(&j, 2);
	CHECK(!rows[0].error && rows[0].failed_at == COMPARE_OK,
	      "the good trace has no error");
	CHECK_EQ_U64(rows[0].buffers, 3, "  ... three buffers");
	CHECK_EQ_U64(rows[0].lower_bound, 192, "  ... its lower bound");
	CHECK(rows[0].cells[0].pool == 192 && rows[0].cells[1].pool == 192 &&
		      !rows[0].cells[0].failed,
	      "  ... both strategies reach it");
	CHECK(rows[1].error && rows[1].failed_at == COMPARE_LOAD &&
		      rows[1].rc == TRACE_EFORMAT,
	      "the broken CSV fails loading, a format error");
	CHECK_STR_HAS(rows[1].error, "bad.csv", "  ... naming the file");
	CHECK(rows[2].error && rows[2].failed_at == COMPARE_LOAD &&
		      rows[2].rc == TRACE_EIO,
	      "the missing file fails loading, an I/O error");
	for (int i = 0; i < 3; i++) {
		free(rows[i].cells);
		free(rows[i].error);
	}
	unlink(good);
	unlink(bad);
	rmdir(dir);
	return tap_done();
}
