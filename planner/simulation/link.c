/* SPDX-License-Identifier: MIT */
/*
 * link.c - presets and the spec parser of the host<->device link model
 * (link.h).  The single-link preset bandwidths are effective rates of
 * pinned copies, about 80% of the per-direction figure of each
 * specification (90% for NVLink-C2C); the topology presets (dgx2,
 * hgx-pcie5) carry measured per-GPU figures with the GPUs copying alone and
 * all at once, their sources in the about line; memplan-plan(1) and
 * memplan-plan link list them.
 */
#include "link.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct preset {
	const char *name, *about;
	double h2d, d2h, latency_us, shared;
	/* the uplink; 0: the GPUs share the one link */
	double up_h2d, up_d2h, up_shared;
	unsigned ports;
};

static const struct preset presets[] = {
	{ "pcie3", "PCIe 3.0 x16: 15.75 GB/s per direction, 12 GB/s effective, 10 us, shared 50/50",
	  12.0, 12.0, 10.0, 0.5, 0, 0, 0, 1 },
	{ "pcie4", "PCIe 4.0 x16: 31.5 GB/s per direction, 25 GB/s effective, 10 us, shared 50/50",
	  25.0, 25.0, 10.0, 0.5, 0, 0, 0, 1 },
	{ "pcie5", "PCIe 5.0 x16: 63 GB/s per direction, 50 GB/s effective, 10 us, shared 50/50",
	  50.0, 50.0, 10.0, 0.5, 0, 0, 0, 1 },
	{ "gh200-c2c", "NVLink-C2C of GH200: 450 GB/s per direction, 400 GB/s effective, 5 us, full duplex",
	  400.0, 400.0, 5.0, 1.0, 0, 0, 0, 1 },
	{ "measured", "the bandwidth_h2d and bandwidth_d2h the capture measured, 10 us, shared 50/50",
	  0, 0, 10.0, 0.5, 0, 0, 0, 1 },
	{ "infinite", "no cost at all (the ideal a swap plan is measured against)",
	  0, 0, 0, 1.0, 0, 0, 0, 1 },
	/* 16 x 12 GB/s alone, 3 GB/s each with all 16 copying: 48 GB/s
	 * through the host side each way */
	{ "dgx2", "DGX-2, 16 V100 on PCIe 3.0 switches: 12 GB/s per GPU alone, 3 GB/s each with all 16 copying (48 GB/s shared each way), 10 us, shared 50/50; source: the measurements memplan issue 18 cites (\"12 -> 3 GB/s per GPU when all sixteen copy at once\"), after Kim et al. 2018 on shared-PCIe swapping",
	  12.0, 12.0, 10.0, 0.5, 48.0, 48.0, 0.5, 16 },
	/* H2D keeps 55 with 8 copying: 440 shared; D2H drops to 44-45: 356
	 * shared; both ways each GPU keeps half its link and the root ports
	 * half theirs: 27.5 H2D, 22.25 D2H, inside the measured 22-35 */
	{ "hgx-pcie5", "8-GPU PCIe Gen5 HGX: H2D 55 GB/s per GPU alone and with all 8 copying (440 GB/s shared), D2H 55 alone and 44.5 each with all copying (356 GB/s shared), both directions 27.5 and 22.25 each with all copying (measured 22-35), 10 us; source: nvbandwidth host_to_device/device_to_host/bidirectional memcpy_ce runs on 8 GPUs as memplan issue 18 cites them (cf. NVIDIA/nvbandwidth issue 11 for the bidirectional derate)",
	  55.0, 55.0, 10.0, 0.5, 440.0, 356.0, 0.5, 8 },
};
#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *link_preset_name(size_t i)
{
	return i < NPRESETS ? presets[i].name : NULL;
}

const char *link_preset_about(size_t i)
{
	return i < NPRESETS ? presets[i].about : NULL;
}

/* A finite number in [lo, hi] (hi inclusive), the whole text. */
static int parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int measured(const struct trace *t, const char *key, double *gbs,
		    char *err, size_t errlen)
{
	const char *v = t ? trace_get_meta(t, key) : NULL;
	if (!v)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "--link measured: the trace has no meta key '%s' (only captured traces do); name a preset instead",
				    key);
	double bps;
	if (parse_num(v, 1e6, 1e14, &bps))
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "--link measured: the trace's meta key '%s' is '%s', not a bandwidth in bytes/s from 1e6 to 1e14",
				    key, v);
	*gbs = bps / 1e9;
	return 0;
}

int link_parse(const char *spec, const struct trace *t, struct link_model *l,
	       char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	size_t len = strcspn(spec, ",");
	const struct preset *p = NULL;
	for (size_t i = 0; i < NPRESETS; i++)
		if (strlen(presets[i].name) == len &&
		    strncmp(spec, presets[i].name, len) == 0)
			p = &presets[i];
	if (!p) {
		char names[160] = "";
		for (size_t i = 0; i < NPRESETS; i++) {
			size_t at = strlen(names);
			snprintf(names + at, sizeof(names) - at, "%s%s",
				 i ? ", " : "", presets[i].name);
		}
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "--link '%.*s' is not a known model (known: %s)",
				    (int)(len > 64 ? 64 : len), spec, names);
	}
	l->h2d_gbs = p->h2d;
	l->d2h_gbs = p->d2h;
	l->latency_ns = p->latency_us * 1e3;
	l->shared = p->shared;
	l->gpus = 1;
	l->up_h2d_gbs = p->up_h2d;
	l->up_d2h_gbs = p->up_d2h;
	l->up_shared = p->up_shared;
	l->ports = p->ports;
	/* without an uplink the GPUs share the one link: it follows the
	 * per-GPU figures, overrides included, until the spec names one */
	int own_up = p->up_h2d > 0, own_up_share = p->up_shared > 0;
	if (strcmp(p->name, "measured") == 0) {
		int rc = measured(t, "bandwidth_h2d", &l->h2d_gbs, err, errlen);
		if (!rc)
			rc = measured(t, "bandwidth_d2h", &l->d2h_gbs, err, errlen);
		if (rc)
			return rc;
	}
	const char *s = spec + len;
	char seen[16][16]; /* the keys so far: each may be given once */
	size_t nseen = 0;
	while (*s == ',') {
		s++;
		char key[16], val[48];
#define LINK_KEYS "h2d, d2h, latency, duplex, share, gpus, uplink, uplink-h2d, uplink-d2h, uplink-share, ports"
		size_t kl = strcspn(s, "="), all = strcspn(s, ",");
		if (kl >= all || kl == 0 || kl >= sizeof(key) ||
		    all - kl - 1 >= sizeof(val))
			return trace_seterr(err, errlen, TRACE_EINVAL,
					    "--link '%s': '%.*s' is not KEY=VALUE (keys: " LINK_KEYS ")",
					    spec, (int)(all > 48 ? 48 : all), s);
		memcpy(key, s, kl);
		key[kl] = '\0';
		memcpy(val, s + kl + 1, all - kl - 1);
		val[all - kl - 1] = '\0';
		for (size_t k = 0; k < nseen; k++)
			if (strcmp(seen[k], key) == 0)
				return trace_seterr(err, errlen, TRACE_EINVAL,
						    "--link '%s': key '%s' is given twice (each key once: the spec is written into the plan as given)",
						    spec, key);
		if (nseen < sizeof(seen) / sizeof(*seen))
			memcpy(seen[nseen++], key, kl + 1);
		double v;
		int bad = 0;
		if (strcmp(key, "h2d") == 0 || strcmp(key, "d2h") == 0) {
			bad = parse_num(val, 0.001, 1e5, &v);
			if (!bad)
				*(key[0] == 'h' ? &l->h2d_gbs : &l->d2h_gbs) = v;
		} else if (strcmp(key, "latency") == 0) {
			bad = parse_num(val, 0, 1e6, &v);
			if (!bad)
				l->latency_ns = v * 1e3;
		} else if (strcmp(key, "duplex") == 0) {
			if (strcmp(val, "full") == 0)
				l->shared = 1.0;
			else if (strcmp(val, "shared") == 0)
				l->shared = 0.5;
			else
				bad = 1;
		} else if (strcmp(key, "share") == 0) {
			bad = parse_num(val, 0.01, 1, &v);
			if (!bad)
				l->shared = v;
		} else if (strcmp(key, "gpus") == 0 || strcmp(key, "ports") == 0) {
			bad = parse_num(val, 1, 1024, &v) || v != floor(v);
			if (!bad)
				*(key[0] == 'g' ? &l->gpus : &l->ports) = (unsigned)v;
		} else if (strcmp(key, "uplink") == 0 ||
			   strcmp(key, "uplink-h2d") == 0 ||
			   strcmp(key, "uplink-d2h") == 0) {
			bad = parse_num(val, 0.001, 1e6, &v);
			if (!bad && key[6] != '-')
				l->up_h2d_gbs = l->up_d2h_gbs = v;
			else if (!bad)
				*(key[7] == 'h' ? &l->up_h2d_gbs : &l->up_d2h_gbs) = v;
			if (!bad && !own_up) {
				/* naming one way keeps the other at the link's */
				if (key[6] == '-' && key[7] == 'h')
					l->up_d2h_gbs = l->d2h_gbs;
				else if (key[6] == '-')
					l->up_h2d_gbs = l->h2d_gbs;
				own_up = 1;
			}
		} else if (strcmp(key, "uplink-share") == 0) {
			bad = parse_num(val, 0.01, 1, &v);
			if (!bad) {
				l->up_shared = v;
				own_up_share = 1;
			}
		} else {
			return trace_seterr(err, errlen, TRACE_EINVAL,
					    "--link '%s': unknown key '%s' (keys: " LINK_KEYS ")",
					    spec, key);
		}
		if (bad)
			return trace_seterr(err, errlen, TRACE_EINVAL,
					    "--link '%s': %s '%s' is out of range (h2d and d2h: GB/s from 0.001 to 1e5; latency: microseconds from 0 to 1e6; duplex: full or shared; share and uplink-share: 0.01 to 1; gpus and ports: whole numbers from 1 to 1024; uplink: GB/s from 0.001 to 1e6)",
					    spec, key, val);
		s += all;
	}
	if (*s)
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "--link '%s': unexpected text '%s'", spec, s);
	if (!own_up) {
		l->up_h2d_gbs = l->h2d_gbs;
		l->up_d2h_gbs = l->d2h_gbs;
	}
	if (!own_up_share)
		l->up_shared = l->shared;
	if (l->ports < l->gpus)
		l->ports = l->gpus;
	if ((l->h2d_gbs == 0) != (l->up_h2d_gbs == 0) ||
	    (l->d2h_gbs == 0) != (l->up_d2h_gbs == 0))
		return trace_seterr(err, errlen, TRACE_EINVAL,
				    "--link '%s': an uplink needs finite per-GPU rates (name h2d and d2h, or leave the uplink out)",
				    spec);
	snprintf(l->name, sizeof(l->name), "%s", spec);
	return 0;
}

int link_is_infinite(const struct link_model *l)
{
	return l->h2d_gbs == 0 && l->d2h_gbs == 0 && l->latency_ns == 0;
}

double link_rate_with(const struct link_model *l, enum link_dir dir,
		      int own_both, unsigned active, int up_both)
{
	double r = dir == LINK_H2D ? l->h2d_gbs : l->d2h_gbs;
	double u = dir == LINK_H2D ? l->up_h2d_gbs : l->up_d2h_gbs;
	if (r == 0)
		return 0;
	if (own_both)
		r *= l->shared;
	if (u > 0) {
		u *= up_both ? l->up_shared : 1.0;
		u /= active ? active : 1;
		if (u < r)
			r = u;
	}
	return r;
}

double link_rate(const struct link_model *l, enum link_dir dir, int both)
{
	return link_rate_with(l, dir, both, l->gpus ? l->gpus : 1, both);
}

double link_copy_ns(const struct link_model *l, enum link_dir dir,
		    uint64_t bytes)
{
	double r = link_rate(l, dir, 0);
	return l->latency_ns + (r > 0 ? (double)bytes / r : 0);
}
