/* SPDX-License-Identifier: MIT */
/*
 * xml.h - escaping text for XML and HTML output (JUnit reports, SVG and HTML
 * timelines).  Everything that comes from a trace or a command line goes
 * through here, so a label or a path with '<' or '&' keeps the document
 * well-formed.
 */
#ifndef MEMPLAN_XML_H
#define MEMPLAN_XML_H

#include <stdio.h>

/*
 * Writes s escaped for element text and attribute values alike; control
 * characters, which XML 1.0 cannot hold, become '?'.  NULL writes nothing.
 */
void xml_escape(FILE *f, const char *s);

#endif
