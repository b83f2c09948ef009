/* SPDX-License-Identifier: MIT */
/*
 * test_capture_select.c - iteration selection: parsing of the settings and
 * the waiting -> inside -> done state machine over nested and interleaved
 * ranges.
 */
#include "select.h"
#include "tap.h"

int main(void)
{
	struct select s;
	char err[256];
	CHECK(select_parse(&s, NULL, NULL, err, sizeof(err)) == 0 && s.all,
	      "no settings select the whole run");
	CHECK(select_begin(&s, "iteration", 1) == SELECT_NOTHING,
	      "the whole run ignores ranges");
	CHECK(select_parse(&s, "3", NULL, err, sizeof(err)) == 0 && !s.all &&
		      s.want == 3 && strcmp(s.name, "iteration") == 0,
	      "an iteration alone counts ranges named 'iteration'");
	CHECK(select_parse(&s, NULL, "step", err, sizeof(err)) == 0 && s.want == 1,
	      "a range alone selects its first occurrence");
	const char *bad_iter[] = { "0", "-1", "x", "", "3x", "99999999999999999999", "1000000001" };
	for (size_t i = 0; i < sizeof(bad_iter) / sizeof(*bad_iter); i++) {
		int rc = select_parse(&s, bad_iter[i], NULL, err, sizeof(err));
		CHECK(rc == -1 && strstr(err, "iteration"), "a bad iteration is refused, naming the setting");
	}
	char longname[300];
	memset(longname, 'a', 299);
	longname[299] = 0;
	CHECK(select_parse(&s, "1", longname, err, sizeof(err)) == -1 &&
		      strstr(err, "1 to 255"), "a range name over 255 characters is refused");
	CHECK(select_parse(&s, "1", "", err, sizeof(err)) == -1, "an empty range name is refused");
	CHECK(select_parse(&s, "1", "a\tb", err, sizeof(err)) == -1 &&
		      strstr(err, "byte 2"), "a control character is refused with its position");
	CHECK(select_parse(&s, "1", "@nvtx", err, sizeof(err)) == -1 &&
		      strstr(err, "unknown range '@nvtx'"), "an unknown '@' range is refused");
	CHECK(select_parse(&s, "2", SELECT_PROFILER, err, sizeof(err)) == 0,
	      "'@profiler' is accepted");

	/* the 2nd 'step', with other ranges nested and interleaved */
	CHECK(select_parse(&s, "2", "step", err, sizeof(err)) == 0, "parse step #2");
	int ok = select_begin(&s, "step", 10) == SELECT_NOTHING &&
		 select_begin(&s, "fwd", 11) == SELECT_NOTHING &&
		 select_end(&s, 11) == SELECT_NOTHING &&
		 select_end(&s, 10) == SELECT_NOTHING;
	CHECK(ok && s.seen == 1 && s.state == SELECT_WAITING, "the first occurrence is skipped");
	CHECK(select_begin(&s, "step", 20) == SELECT_BEGIN && s.state == SELECT_INSIDE,
	      "the second occurrence begins recording");
	CHECK(select_begin(&s, "step", 21) == SELECT_NOTHING,
	      "a nested range of the same name does not restart it");
	CHECK(select_end(&s, 21) == SELECT_NOTHING, "its end does not end the recording");
	CHECK(select_end(&s, 10) == SELECT_NOTHING, "a stale key does not end the recording");
	CHECK(select_end(&s, 20) == SELECT_END && s.state == SELECT_DONE,
	      "the selected range's own end stops recording");
	CHECK(select_begin(&s, "step", 30) == SELECT_NOTHING && select_end(&s, 30) == SELECT_NOTHING,
	      "later occurrences change nothing");
	char d[128];
	select_describe(&s, d, sizeof(d));
	CHECK(strcmp(d, "range 'step', occurrence 2") == 0, "the selection describes itself");
	return tap_done();
}
