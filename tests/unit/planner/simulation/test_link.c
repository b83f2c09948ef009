/* SPDX-License-Identifier: MIT */
/*
 * test_link.c - link.h: every spec the parser took before the uplink still
 * gives the same rates (a static 1/N for gpus=N), the uplink presets give
 * the figures their about lines state, link_rate_with() for any number of
 * GPUs copying, and a parsed model's name parses back to the same model.
 */
#include <math.h>
#include <string.h>

#include "link.h"
#include "tap.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1);
}

static int parse(const char *spec, struct link_model *l)
{
	char err[256];
	int rc = link_parse(spec, NULL, l, err, sizeof(err));
	if (rc)
		printf("# %s: %s\n", spec, err);
	return rc;
}

static int same(const struct link_model *a, const struct link_model *b)
{
	for (int d = 0; d < 2; d++)
		for (int both = 0; both < 2; both++)
			for (unsigned k = 1; k <= 17; k += 4)
				if (!near(link_rate_with(a, d, both, k, both),
					  link_rate_with(b, d, both, k, both)) ||
				    !near(link_rate(a, d, both), link_rate(b, d, both)))
					return 0;
	return a->gpus == b->gpus && a->ports == b->ports &&
	       near(a->latency_ns, b->latency_ns);
}

int main(void)
{
	struct link_model l, m;

	/* the old model: rate / gpus, times the share while both run */
	CHECK(parse("pcie5,gpus=4", &l) == 0, "pcie5,gpus=4 parses");
	CHECK(near(link_rate(&l, LINK_H2D, 0), 12.5), "  ... 1/4 of 50 GB/s each way");
	CHECK(near(link_rate(&l, LINK_D2H, 1), 6.25), "  ... and 1/4 of 25 both ways");
	CHECK(near(link_copy_ns(&l, LINK_H2D, 125000), 10000 + 10000),
	      "  ... a copy pays latency and bytes at that rate");
	CHECK(near(link_rate_with(&l, LINK_H2D, 0, 1, 0), 50),
	      "  ... one GPU copying alone has the whole link");
	CHECK(near(link_rate_with(&l, LINK_H2D, 0, 2, 0), 25),
	      "  ... two copying halve it");
	CHECK(near(link_rate_with(&l, LINK_H2D, 0, 2, 1), 12.5),
	      "  ... and halve it again while some copy runs the other way");
	CHECK(parse("pcie4,gpus=2,duplex=full", &l) == 0 &&
		      near(link_rate(&l, LINK_H2D, 1), 12.5),
	      "full duplex on a shared link: 1/2 of 25 both ways");
	CHECK(parse("pcie3,h2d=6,d2h=3,latency=2,share=0.8", &l) == 0 &&
		      near(link_rate(&l, LINK_H2D, 1), 4.8) &&
		      near(link_rate(&l, LINK_D2H, 0), 3) && near(l.latency_ns, 2000),
	      "overrides as before");
	CHECK(parse("infinite", &l) == 0 && link_is_infinite(&l) &&
		      link_rate_with(&l, LINK_H2D, 1, 8, 1) == 0,
	      "infinite stays infinite with any number copying");

	/* the topologies */
	CHECK(parse("dgx2", &l) == 0 && l.gpus == 1 && l.ports == 16,
	      "dgx2: a job of one GPU on a 16-GPU uplink");
	CHECK(near(link_rate(&l, LINK_H2D, 0), 12), "  ... 12 GB/s alone");
	CHECK(near(link_rate_with(&l, LINK_H2D, 0, 16, 0), 3) &&
		      near(link_rate_with(&l, LINK_D2H, 0, 16, 0), 3),
	      "  ... 3 GB/s each with all 16 copying");
	CHECK(near(link_rate_with(&l, LINK_H2D, 0, 4, 0), 12),
	      "  ... 4 copying still get their own 12");
	CHECK(parse("hgx-pcie5", &l) == 0 && l.ports == 8, "hgx-pcie5: 8 GPUs");
	CHECK(near(link_rate_with(&l, LINK_H2D, 0, 8, 0), 55),
	      "  ... H2D keeps 55 with all 8 copying");
	double d2h = link_rate_with(&l, LINK_D2H, 0, 8, 0);
	CHECK(d2h >= 44 && d2h <= 45, "  ... D2H 44-45 with all 8 copying");
	double b0 = link_rate_with(&l, LINK_H2D, 1, 8, 1),
	       b1 = link_rate_with(&l, LINK_D2H, 1, 8, 1);
	CHECK(b0 >= 22 && b0 <= 35 && b1 >= 22 && b1 <= 35,
	      "  ... 22-35 each both ways with all copying");
	CHECK(parse("hgx-pcie5,gpus=4", &l) == 0 && l.ports == 8 &&
		      near(link_rate(&l, LINK_D2H, 0), 55),
	      "  ... a 4-GPU job on it: D2H not yet limited by the uplink");
	CHECK(parse("pcie5,uplink=60,gpus=4", &l) == 0 &&
		      near(link_rate(&l, LINK_H2D, 0), 15) &&
		      near(link_rate_with(&l, LINK_H2D, 0, 1, 0), 50),
	      "uplink=60 under 4 GPUs: 15 each, 50 alone");
	CHECK(parse("pcie5,uplink-d2h=80,gpus=4", &l) == 0 &&
		      near(link_rate(&l, LINK_D2H, 0), 20) &&
		      near(link_rate(&l, LINK_H2D, 0), 12.5),
	      "uplink-d2h alone: the H2D uplink stays the link's");
	CHECK(parse("pcie5,uplink=100,uplink-share=0.9,gpus=4", &l) == 0 &&
		      near(link_rate(&l, LINK_H2D, 1), 22.5),
	      "uplink-share derates the uplink both ways");
	CHECK(parse("pcie5,ports=8", &l) == 0 && l.ports == 8 && l.gpus == 1,
	      "ports sets the topology's GPUs");
	CHECK(parse("pcie5,gpus=8,ports=2", &l) == 0 && l.ports == 8,
	      "  ... never fewer than the job's GPUs");

	/* refusals */
	char err[256];
	static const char *const bad[] = {
		"pcie5,uplink=0", "pcie5,uplink-share=2", "pcie5,ports=0",
		"pcie5,ports=1.5", "pcie5,uplinks=3", "infinite,uplink=5",
		"dgx2,gpus=0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[96];
		snprintf(what, sizeof(what), "'%s' is refused", bad[i]);
		CHECK(link_parse(bad[i], NULL, &l, err, sizeof(err)) != 0, what);
	}
	/* issue 30: a key given twice was taken silently (the last won, and
	 * the plan's LINK section kept both) */
	static const char *const twice[] = {
		"pcie5,h2d=1,h2d=2", "pcie4,gpus=2,latency=1,gpus=2",
		"pcie5,uplink=60,ports=4,uplink=70",
	};
	for (size_t i = 0; i < sizeof(twice) / sizeof(twice[0]); i++) {
		char what[96];
		snprintf(what, sizeof(what), "'%s' is refused: a key given twice", twice[i]);
		CHECK(link_parse(twice[i], NULL, &l, err, sizeof(err)) == TRACE_EINVAL, what);
		CHECK(strstr(err, "is given twice") != NULL, "  ... saying so");
	}

	/* round trip: the name is the spec */
	static const char *const specs[] = {
		"pcie3", "pcie4,gpus=2,duplex=full", "pcie5,gpus=8,latency=3",
		"gh200-c2c", "infinite", "dgx2,gpus=16", "hgx-pcie5,gpus=4",
		"pcie5,uplink=60,uplink-share=0.7,ports=4,gpus=2",
		"pcie4,h2d=20,d2h=18,share=0.6,uplink-h2d=30",
	};
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		char what[128];
		snprintf(what, sizeof(what), "'%s' parses back from its name", specs[i]);
		CHECK(parse(specs[i], &l) == 0 && strcmp(l.name, specs[i]) == 0 &&
			      parse(l.name, &m) == 0 && same(&l, &m),
		      what);
	}
	return tap_done();
}
