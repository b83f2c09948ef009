/* SPDX-License-Identifier: MIT */
/*
 * link.h - the host<->device link a swap plan is made for: bandwidth each
 * way, a fixed cost per transfer, whether the two directions share the
 * wire, and how many GPUs share one link.  The swap planner and the
 * simulator ask it one question: how long does a copy of n bytes take.
 * Invariant: a parsed model has finite positive bandwidths (or infinite
 * ones for the "infinite" model) and gpus >= 1.
 */
#ifndef MEMPLAN_LINK_H
#define MEMPLAN_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

enum link_dir { LINK_D2H = 0, LINK_H2D = 1 };

#define LINK_NAME_LEN 48

struct link_model {
	char name[LINK_NAME_LEN]; /* the spec it was parsed from, shortened */
	double h2d_gbs, d2h_gbs;  /* GB/s = bytes per ns, per direction, alone;
				     0 means infinitely fast */
	double latency_ns;        /* fixed cost of every transfer */
	double shared;            /* fraction of its bandwidth a direction keeps
				     while the other one runs: 1 full duplex,
				     0.5 the measured split of a shared link */
	unsigned gpus;            /* GPUs whose copies share this link (>= 1) */
};

/*
 * Parses a link spec: a preset name (link_preset_name(i)), or "measured"
 * (the bandwidth_h2d and bandwidth_d2h meta keys of t, in bytes/s, with the
 * PCIe latency), then optional ",key=value" overrides: h2d=GB/s, d2h=GB/s,
 * latency=microseconds, duplex=full|shared, share=fraction (0 < f <= 1),
 * gpus=N (1..1024).  t may be NULL unless the spec is "measured".  Returns
 * 0, or TRACE_EINVAL with a sentence naming the field in err.
 */
int link_parse(const char *spec, const struct trace *t, struct link_model *l,
	       char *err, size_t errlen);

/* The i-th preset's name and one line about it (numbers and source), NULL
 * past the end. */
const char *link_preset_name(size_t i);
const char *link_preset_about(size_t i);

/* Bytes per ns of direction dir: alone (both = 0) or while the other
 * direction also runs (both = 1), divided among the GPUs sharing the link.
 * 0 means infinite. */
double link_rate(const struct link_model *l, enum link_dir dir, int both);

/* Nanoseconds a copy of bytes takes in direction dir with the link to
 * itself (latency included); 0 on an infinitely fast link. */
double link_copy_ns(const struct link_model *l, enum link_dir dir,
		    uint64_t bytes);

/* 1 if the model is infinitely fast (no latency, no bandwidth limit). */
int link_is_infinite(const struct link_model *l);

#endif
