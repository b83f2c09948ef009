/* SPDX-License-Identifier: MIT */
/*
 * cmd_names.c - the names people know a plan's tensors by, for every place
 * a plan is shown (simulate's text, JSON and SVG, inspect with a trace): the
 * trace's label, else the innermost frame of the allocation's call stack,
 * else the kernel that first touches it; never only a request number.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "plan.h"

/* The innermost frame of a call stack, without its folders:
 * "/home/ml/model.py:20 forward" reads "model.py:20 forward". */
static void frame_name(const char *stack, char *buf, size_t len)
{
	size_t n = strcspn(stack, "\n");
	const char *s = stack, *slash = NULL;
	for (const char *p = stack; p < stack + n && *p != ' '; p++)
		if (*p == '/' || *p == '\\')
			slash = p;
	if (slash)
		s = slash + 1;
	snprintf(buf, len, "%.*s", (int)(stack + n - s), s);
}

const char *cmd_buffer_name(const struct trace *t, uint64_t id, char *buf,
			    size_t len)
{
	if (id >= t->nbuffers) {
		snprintf(buf, len, "buffer %" PRIu64, id);
		return buf;
	}
	const struct trace_buffer *b = &t->buffers[id];
	if (b->label && *b->label) {
		snprintf(buf, len, "%s", b->label);
		return buf;
	}
	if (b->stack && *b->stack) {
		frame_name(b->stack, buf, len);
		if (*buf)
			return buf;
	}
	for (uint32_t k = 0; k < b->nuses; k++) {
		const struct trace_event *e = &t->events[t->uses[b->use0 + k]];
		if (e->type == TRACE_EV_KERNEL && e->name) {
			snprintf(buf, len, "buffer %" PRIu64 " of %s", id, e->name);
			return buf;
		}
	}
	snprintf(buf, len, "buffer %" PRIu64, id);
	return buf;
}

const char **cmd_swap_names(const struct trace *t, const struct mp_plan *plan)
{
	size_t n = plan->nswaps;
	const char **names = malloc((n + 1) * sizeof(*names) + (n + 1) * CMD_NAME_LEN);
	if (!names)
		return NULL;
	char *text = (char *)(names + n + 1);
	for (size_t i = 0; i < n; i++) {
		char *s = text + i * CMD_NAME_LEN;
		uint64_t rq = plan->swaps[i].request;
		if (rq < plan->nallocs)
			cmd_buffer_name(t, plan->allocs[rq].buffer, s, CMD_NAME_LEN);
		else
			snprintf(s, CMD_NAME_LEN, "request %" PRIu64, rq);
		names[i] = s;
	}
	names[n] = NULL;
	return names;
}
