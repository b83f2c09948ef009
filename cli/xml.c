/* SPDX-License-Identifier: MIT */
/*
 * xml.c - the escaping of xml.h.  Bytes of 0x80 and above pass through, so
 * UTF-8 labels stay readable; the documents declare UTF-8.
 */
#include "xml.h"

void xml_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\n': fputs("&#10;", f); break;
		case '\t': fputs("&#9;", f); break;
		case '\r': fputs("&#13;", f); break;
		default:
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
		}
	}
}
