/* SPDX-License-Identifier: MIT */
/*
 * junit.c - writes the JUnit XML of junit.h.  Everything that comes from
 * outside (trace paths, labels, messages) goes through xml_text(), so a
 * file name with '<' or '&' still gives a well-formed document.
 */
#include "junit.h"

#include <time.h>

/* Writes s escaped for an attribute value or element text. */
static void xml_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\n': fputs("&#10;", f); break;
		case '\t': fputs("&#9;", f); break;
		case '\r': fputs("&#13;", f); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
		}
	}
}

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
	xml_text(f, suite);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.3f\" timestamp=\"%s\">\n",
		n, failures, errors, seconds, stamp);
	for (size_t i = 0; i < n; i++) {
		const struct junit_case *c = &cases[i];
		fputs("    <testcase classname=\"", f);
		xml_text(f, c->classname);
		fputs("\" name=\"", f);
		xml_text(f, c->name);
		fputs("\" time=\"0\"", f);
		if (!c->failure && !c->error && !c->output) {
			fputs("/>\n", f);
			continue;
		}
		fputs(">\n", f);
		if (c->error) {
			fputs("      <error type=\"input\" message=\"", f);
			xml_text(f, c->error);
			fputs("\"/>\n", f);
		} else if (c->failure) {
			fputs("      <failure type=\"limit\" message=\"", f);
			xml_text(f, c->failure);
			fputs("\">", f);
			xml_text(f, c->failure);
			fputs("</failure>\n", f);
		}
		if (c->output) {
			fputs("      <system-out>", f);
			xml_text(f, c->output);
			fputs("</system-out>\n", f);
		}
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? -1 : 0;
}
