#!/bin/sh
# Outside the workplace ../shared/data is not there: every test that reads
# the public placement instances skips with a TAP "# SKIP" saying what is
# missing and how to get it, and none fails for want of them.
. tests/cli/lib.sh

nowhere=$T/no-shared-data
for u in test_solver test_exact test_mmcsv test_plan; do
	SHARED_DATA=$nowhere "$BUILD_DIR/tests/$u" >"$T/out" 2>&1
	ok $? "$u passes without the shared data"
	grep -q '^ok .* # SKIP .*shared/data' "$T/out"
	ok $? "  ... and says what it skipped and where the data goes"
	! grep -q '^not ok' "$T/out"
	ok $? "  ... with no failure"
done
for c in t0002-trace-minimalloc t0005-man-examples t0006-plan t0102-analyze-diff; do
	SHARED_DATA=$nowhere sh "tests/cli/$c.sh" >"$T/out" 2>&1
	ok $? "$c passes without the shared data"
	grep -q '^ok .* # SKIP .*shared/data' "$T/out"
	ok $? "  ... and says what it skipped"
done

done_testing
