/* SPDX-License-Identifier: MIT */
/*
 * check.c - evaluates the CI limits of check.h.  A limit passes when the
 * value is at most the limit (equal passes), so a trace checked against
 * itself as baseline with tolerance 0 passes.
 */
#include "check.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int check_parse_tolerance(const char *s, double *out)
{
	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0 || v > 10000)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	int sign = *end == '%';
	if (sign)
		end++;
	if (*end)
		return -1;
	if (!sign && v > 0 && v < 1)
		return -2;
	*out = v / 100.0;
	return 0;
}

int check_parse_limit(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return -1;
	size_t digits = 0, points = 0, n = strlen(s);
	for (size_t i = 0; i < n; i++) {
		if (isdigit((unsigned char)s[i]))
			digits++;
		else if (s[i] == '.')
			points++;
	}
	if (digits && points <= 1 && digits + points == n) {
		double v = strtod(s, NULL);
		if (points || v < 1048576.0)
			return -2;
	}
	return cli_parse_size(s, out) ? -1 : 0;
}

/* Fills one result: value against limit, described by what and rule. */
static void judge(struct check_result *c, enum check_kind kind,
		  const char *what, uint64_t value, uint64_t limit,
		  const char *rule)
{
	char v[32], l[32], d[32];
	c->kind = kind;
	c->value = value;
	c->limit = limit;
	c->passed = value <= limit;
	c->figure[0] = '\0';
	snprintf(c->name, sizeof(c->name), "%s <= %s", what,
		 cli_format_size(limit, l, sizeof(l)));
	if (c->passed)
		snprintf(c->message, sizeof(c->message),
			 "%s %s is within %s %s (%s to spare)", what,
			 cli_format_size(value, v, sizeof(v)), rule, l,
			 cli_format_size(limit - value, d, sizeof(d)));
	else
		snprintf(c->message, sizeof(c->message),
			 "%s %s exceeds %s %s by %s (%.2f%% over)", what,
			 cli_format_size(value, v, sizeof(v)), rule, l,
			 cli_format_size(value - limit, d, sizeof(d)),
			 limit ? 100.0 * (double)(value - limit) / (double)limit
			       : 100.0);
}

/* base grown by the tolerance, saturating. */
static uint64_t grown(uint64_t base, double tol)
{
	double g = floor((double)base * tol);
	if (g >= 1.8e19 || (double)base + g >= 1.8e19)
		return UINT64_MAX;
	return base + (uint64_t)g;
}

/* value against the baseline's base, allowed to grow by tol. */
static void against(struct check_result *c, enum check_kind kind,
		    const char *what, uint64_t value, uint64_t base, double tol)
{
	char v[32], b[32], d[32];
	c->kind = kind;
	c->value = value;
	c->limit = grown(base, tol);
	c->passed = value <= c->limit;
	c->figure[0] = '\0';
	snprintf(c->name, sizeof(c->name), "%s within %g%% of the baseline",
		 what, tol * 100);
	double change = base ? 100.0 * ((double)value - (double)base) / (double)base
			     : (value ? 100.0 : 0.0);
	cli_format_size(value, v, sizeof(v));
	cli_format_size(base, b, sizeof(b));
	if (c->passed)
		snprintf(c->message, sizeof(c->message),
			 "%s %s against the baseline's %s: %+.2f%%, within the %g%% allowed",
			 what, v, b, change, tol * 100);
	else
		snprintf(c->message, sizeof(c->message),
			 "%s %s grew %.2f%% over the baseline's %s, more than the %g%% allowed (by %s)",
			 what, v, change, b, tol * 100,
			 cli_format_size(value - c->limit, d, sizeof(d)));
}

size_t check_run(const struct report *r, const struct check_opts *o,
		 struct check_result *out)
{
	size_t n = 0;
	if (o->has_max_peak) {
		judge(&out[n], CHECK_MAX_PEAK, "peak", r->peak, o->max_peak,
		      "--max-peak");
		snprintf(out[n++].figure, sizeof(out->figure), "live bytes");
	}
	if (o->has_max_reserved) {
		char what[96];
		uint64_t v;
		int recorded = o->allocator == ALLOCSIM_PYTORCH &&
			       r->recorded_reserved > 0; /* -1: none */
		if (recorded) {
			v = (uint64_t)r->recorded_reserved;
			snprintf(what, sizeof(what),
				 "reserved peak (recorded by PyTorch)");
		} else {
			v = r->alloc[o->allocator].reserved_peak;
			snprintf(what, sizeof(what), "reserved peak (%s model)",
				 allocsim_name(o->allocator));
		}
		judge(&out[n], CHECK_MAX_RESERVED, what, v, o->max_reserved,
		      "--max-reserved");
		snprintf(out[n++].figure, sizeof(out->figure), "%s%s",
			 recorded ? "recorded by PyTorch" : allocsim_name(o->allocator),
			 recorded ? "" : " model");
	}
	if (o->baseline) {
		against(&out[n++], CHECK_BASELINE_PEAK, "peak", r->peak,
			o->baseline->peak, o->tolerance);
		against(&out[n++], CHECK_BASELINE_LOWER_BOUND, "lower bound",
			r->lower_bound, o->baseline->lower_bound, o->tolerance);
	}
	return n;
}
