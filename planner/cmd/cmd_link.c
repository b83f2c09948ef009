/* SPDX-License-Identifier: MIT */
/*
 * cmd_link.c - memplan-plan link: what a link model (link.h) gives one GPU,
 * alone and with every GPU on its uplink copying, each way and both ways at
 * once; without MODEL, the presets and their sources.  Only reads the model:
 * the figures are link_rate_with()'s, the ones the simulators use.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "json.h"

/* GB/s as text; "inf" for an infinitely fast direction. */
static const char *gbs(double r, char *buf, size_t len)
{
	if (r == 0)
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%.2f", r);
	return buf;
}

static void json_rate(struct json *j, const char *key, double r)
{
	if (r == 0)
		json_null(j, key);
	else
		json_double(j, key, r);
}

const char cmd_link_options[] =
	"  -j, --json               print the figures as one JSON object\n"
	"  -h, --help               this text\n";

int cmd_link(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else
			return cli_option_error(c, "link");
	}
	if (optind < argc - 1)
		return cli_usage_error("link: expected at most one MODEL");
	if (optind == argc) {
		struct json j;
		if (json) {
			json_init(&j, stdout);
			json_array(&j, NULL);
		}
		for (size_t i = 0; link_preset_name(i); i++) {
			if (json) {
				json_object(&j, NULL);
				json_string(&j, "name", link_preset_name(i));
				json_string(&j, "about", link_preset_about(i));
				json_object_end(&j);
			} else {
				printf("%-10s %s\n", link_preset_name(i),
				       link_preset_about(i));
			}
		}
		if (json) {
			json_array_end(&j);
			json_finish(&j);
		}
		return fflush(stdout) ? MP_EXIT_OUTPUT : MP_EXIT_OK;
	}
	struct link_model l;
	char err[ERRLEN];
	if (link_parse(argv[optind], NULL, &l, err, sizeof(err))) {
		cli_error("%s", err);
		return strncmp(argv[optind], "measured", 8) == 0 ? MP_EXIT_INPUT
								 : MP_EXIT_USAGE;
	}
	unsigned n = l.ports;
	/* [alone|all][h2d|d2h][one way|both ways] */
	double r[2][2][2];
	for (int a = 0; a < 2; a++)
		for (int d = 0; d < 2; d++)
			for (int b = 0; b < 2; b++)
				r[a][d][b] = link_rate_with(&l, d ? LINK_H2D : LINK_D2H,
							    b, a ? n : 1, b);
	const char *about = NULL;
	size_t len = strcspn(argv[optind], ",");
	for (size_t i = 0; link_preset_name(i); i++)
		if (strlen(link_preset_name(i)) == len &&
		    strncmp(link_preset_name(i), argv[optind], len) == 0)
			about = link_preset_about(i);
	if (json) {
		struct json j;
		json_init(&j, stdout);
		json_object(&j, NULL);
		json_string(&j, "link", l.name);
		json_string(&j, "about", about);
		json_u64(&j, "gpus", n);
		json_double(&j, "latency_us", l.latency_ns / 1e3);
		static const char *const key[2] = { "alone", "all_copying" };
		for (int a = 0; a < 2; a++) {
			json_object(&j, key[a]);
			json_rate(&j, "h2d_gbs", r[a][1][0]);
			json_rate(&j, "d2h_gbs", r[a][0][0]);
			json_rate(&j, "h2d_both_gbs", r[a][1][1]);
			json_rate(&j, "d2h_both_gbs", r[a][0][1]);
			json_object_end(&j);
		}
		json_object_end(&j);
		json_finish(&j);
	} else {
		char x[32], y[32], lab[48];
		printf("%s: %u GPU%s on the uplink, latency %.1f us\n", l.name, n,
		       n == 1 ? "" : "s", l.latency_ns / 1e3);
		if (about)
			printf("  %s\n", about);
		printf("  %-24s %10s %10s   (GB/s per GPU)\n", "", "H2D", "D2H");
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 2; b++) {
				snprintf(lab, sizeof(lab), "%s%s",
					 a ? "all copying" : "alone",
					 b ? ", both ways" : ", one way");
				if (a)
					snprintf(lab, sizeof(lab), "%u copying%s", n,
						 b ? ", both ways" : ", one way");
				printf("  %-24s %10s %10s\n", lab,
				       gbs(r[a][1][b], x, sizeof(x)),
				       gbs(r[a][0][b], y, sizeof(y)));
			}
	}
	return fflush(stdout) ? MP_EXIT_OUTPUT : MP_EXIT_OK;
}
