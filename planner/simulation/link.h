/* SPDX-License-Identifier: MIT */
/*
 * link.h - the host<->device link a swap plan is made for: bandwidth each
 * way per GPU, a fixed cost per transfer, what a direction keeps while the
 * other one runs, and the capacity of the switch or root port that several
 * GPUs share (the uplink), with its own derate when both directions run.
 * The swap planner and the simulator ask how fast a copy goes with all the
 * job's GPUs copying (link_rate()); the joint simulation of several GPUs
 * (multigpu.h) asks it for any number copying at once (link_rate_with()).
 * Invariant: a parsed model has finite positive bandwidths (or infinite
 * ones for the "infinite" model), gpus >= 1 and ports >= gpus.
 */
#ifndef MEMPLAN_LINK_H
#define MEMPLAN_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

enum link_dir { LINK_D2H = 0, LINK_H2D = 1 };

#define LINK_NAME_LEN 64

struct link_model {
	char name[LINK_NAME_LEN]; /* the spec it was parsed from, shortened */
	double h2d_gbs, d2h_gbs;  /* GB/s = bytes per ns, per direction, alone;
				     0 means infinitely fast */
	double latency_ns;        /* fixed cost of every transfer */
	double shared;            /* fraction of its bandwidth a direction keeps
				     while the other one runs: 1 full duplex,
				     0.5 the measured split of a shared link */
	unsigned gpus;            /* GPUs of the job whose copies share the
				     uplink (>= 1) */
	double up_h2d_gbs, up_d2h_gbs; /* the uplink (switch or root port):
				     bytes per ns each way for all its GPUs
				     together; equal to the per-GPU rates
				     when the GPUs share one link */
	double up_shared;         /* fraction of the uplink a direction keeps
				     while the other one runs */
	unsigned ports;           /* GPUs the topology has on the uplink (the
				     "all copying" of memplan-plan link) */
};

/*
 * Parses a link spec: a preset name (link_preset_name(i)), or "measured"
 * (the bandwidth_h2d and bandwidth_d2h meta keys of t, in bytes/s, with the
 * PCIe latency), then optional ",key=value" overrides: h2d=GB/s, d2h=GB/s,
 * latency=microseconds, duplex=full|shared, share=fraction (0 < f <= 1),
 * gpus=N (1..1024), uplink=GB/s (both ways), uplink-h2d=GB/s,
 * uplink-d2h=GB/s, uplink-share=fraction, ports=N (1..1024).  Without an
 * uplink the GPUs share one link: the uplink is the per-GPU link itself
 * (its rates and share follow h2d, d2h and share), so gpus=N gives each GPU
 * 1/N of it.  t may be NULL unless the spec is "measured".  Returns 0, or
 * TRACE_EINVAL with a sentence naming the field in err; l->name keeps the
 * spec whole when it fits (LINK_NAME_LEN), so link_parse(l->name) gives the
 * same model back.
 */
int link_parse(const char *spec, const struct trace *t, struct link_model *l,
	       char *err, size_t errlen);

/* The i-th preset's name and one line about it (numbers and source), NULL
 * past the end. */
const char *link_preset_name(size_t i);
const char *link_preset_about(size_t i);

/* Bytes per ns of direction dir: alone (both = 0) or while the other
 * direction also runs (both = 1), with all l->gpus GPUs copying that way at
 * once (the static view of a plan made for one of them).  0 means
 * infinite. */
double link_rate(const struct link_model *l, enum link_dir dir, int both);

/*
 * Bytes per ns one GPU's copy in direction dir gets while active GPUs (it
 * included, >= 1) copy that way over the uplink: the lesser of its own
 * link (derated when own_both, its other direction also moving bytes) and
 * an equal share of the uplink (derated when up_both, some GPU on it
 * moving bytes the other way).  0 means infinite.
 */
double link_rate_with(const struct link_model *l, enum link_dir dir,
		      int own_both, unsigned active, int up_both);

/* Nanoseconds a copy of bytes takes in direction dir with the link to
 * itself (latency included); 0 on an infinitely fast link. */
double link_copy_ns(const struct link_model *l, enum link_dir dir,
		    uint64_t bytes);

/* 1 if the model is infinitely fast (no latency, no bandwidth limit). */
int link_is_infinite(const struct link_model *l);

#endif
