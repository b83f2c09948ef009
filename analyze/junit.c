/* SPDX-License-Identifier: MIT */
/*
 * junit.c - writes the JUnit XML of junit.h.  Everything that comes from
 * outside (trace paths, labels, messages) goes through xml_escape(), so a
 * file name with '<' or '&' still gives a well-formed document.
 */
#include "junit.h"

#include <time.h>

#include "xml.h"

int junit_write(FILE *f, const char *suite, const struct junit_case *cases,
		size_t n, double seconds)
{
	size_t failures = 0, errors = 0;
	for (size_t i = 0; i < n; i++) {
		failures += cases[i].failure != NULL && cases[i].error == NULL;
		errors += cases[i].error != NULL;
	}
	char stamp[32] = "";
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n",
		n, failures, errors, seconds);
	fputs("  <testsuite name=\"", f);
	xml_escape(f, suite);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.3f\" timestamp=\"%s\">\n",
		n, failures, errors, seconds, stamp);
	for (size_t i = 0; i < n; i++) {
		const struct junit_case *c = &cases[i];
		fputs("    <testcase classname=\"", f);
		xml_escape(f, c->classname);
		fputs("\" name=\"", f);
		xml_escape(f, c->name);
		fputs("\" time=\"0\"", f);
		if (!c->failure && !c->error && !c->output) {
			fputs("/>\n", f);
			continue;
		}
		fputs(">\n", f);
		if (c->error) {
			fputs("      <error type=\"input\" message=\"", f);
			xml_escape(f, c->error);
			fputs("\"/>\n", f);
		} else if (c->failure) {
			fputs("      <failure type=\"limit\" message=\"", f);
			xml_escape(f, c->failure);
			fputs("\">", f);
			xml_escape(f, c->failure);
			fputs("</failure>\n", f);
		}
		if (c->output) {
			fputs("      <system-out>", f);
			xml_escape(f, c->output);
			fputs("</system-out>\n", f);
		}
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? -1 : 0;
}
