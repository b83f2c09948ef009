/* SPDX-License-Identifier: MIT */
/*
 * simulate_svg.c - draws a simulated iteration (simulate.h) as SVG for
 * memplan-plan simulate -o: compute, D2H and H2D lanes over time, then the
 * resident pool bytes with the pool and the no-swap peak as lines.  Lanes
 * and the curve are binned into pixel columns first, so the element count
 * never grows with the trace (at most a few per column).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "cli.h"
#include "simulate.h"
#include "xml.h"

#define PIC_W 1000.0
#define PIC_H 560.0
#define LEFT 90.0
#define RIGHT 30.0
#define LANE_TOP 70.0
#define LANE_H 26.0
#define LANE_GAP 10.0
#define MEM_TOP 200.0
#define MEM_H 300.0
#define COLS 880 /* PIC_W - LEFT - RIGHT, one per pixel */

static double px(double t, double span)
{
	return LEFT + (PIC_W - LEFT - RIGHT) * (span > 0 ? t / span : 0);
}

static size_t col_of(double t, double span)
{
	if (!(span > 0) || !(t > 0))
		return 0;
	double c = t / span * COLS;
	return c >= COLS ? COLS - 1 : (size_t)c;
}

/* Marks the columns [a, b) touches as busy. */
static void mark(unsigned char *busy, double a, double b, double span)
{
	if (!(b > a))
		return;
	size_t c0 = col_of(a, span), c1 = col_of(b, span);
	for (size_t c = c0; c <= c1; c++)
		busy[c] = 1;
}

/* The runs of busy columns as rectangles of one colour. */
static void runs(FILE *f, const unsigned char *busy, double y, double h,
		 const char *fill, const char *what)
{
	fprintf(f, "<g class=\"%s\" fill=\"%s\">", what, fill);
	for (size_t c = 0; c < COLS;) {
		if (!busy[c]) {
			c++;
			continue;
		}
		size_t e = c;
		while (e < COLS && busy[e])
			e++;
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%zu\" height=\"%.1f\"/>",
			LEFT + (double)c, y, e - c, h);
		c = e;
	}
	fprintf(f, "</g>\n");
}

static double mem_y(uint64_t v, uint64_t ymax)
{
	return MEM_TOP + MEM_H - MEM_H * (double)v / (double)ymax;
}

static void hline(FILE *f, double y, const char *color, const char *label,
		  uint64_t v)
{
	char a[32];
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		   "stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>",
		LEFT, y, PIC_W - RIGHT, y, color);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\" text-anchor=\"end\">%s %s</text>\n",
		PIC_W - RIGHT - 4, y - 4, color, label, cli_format_size(v, a, sizeof(a)));
}

int sim_write_svg(FILE *f, const struct mp_plan *plan,
		  const struct sim_result *r, const char *title)
{
	double span = r->iter_ns > r->base_ns ? r->iter_ns : r->base_ns;
	for (uint32_t j = 0; j < r->nswaps; j++) {
		if (r->swaps[j].d2h_end > span)
			span = r->swaps[j].d2h_end;
		if (r->swaps[j].h2d_end > span)
			span = r->swaps[j].h2d_end;
	}
	if (!(span > 0))
		span = 1;
	unsigned char *busy = calloc(4 * COLS, 1);
	uint64_t *hi = calloc(COLS, sizeof(*hi));
	if (!busy || !hi) {
		free(busy);
		free(hi);
		return -1;
	}
	unsigned char *comp = busy, *stall = busy + COLS, *d2h = busy + 2 * COLS,
		      *h2d = busy + 3 * COLS;
	for (size_t i = 0; i < r->nevents; i++)
		mark(comp, r->ev_start[i], r->ev_end[i], span);
	for (size_t i = 0; i < r->nstalls; i++)
		mark(stall, r->stalls[i].at, r->stalls[i].at + r->stalls[i].ns, span);
	for (uint32_t j = 0; j < r->nswaps; j++) {
		mark(d2h, r->swaps[j].d2h_start, r->swaps[j].d2h_end, span);
		mark(h2d, r->swaps[j].h2d_start, r->swaps[j].h2d_end, span);
	}
	/* the most resident in each column: a step holds from its time to the next */
	for (size_t i = 0; i < r->nmem; i++) {
		double t1 = i + 1 < r->nmem ? r->mem_t[i + 1] : span;
		size_t c0 = col_of(r->mem_t[i], span), c1 = col_of(t1, span);
		if (t1 > r->mem_t[i] && c1 > c0 && t1 <= (double)(c1) * span / COLS)
			c1--; /* ends exactly on a column's left edge */
		for (size_t c = c0; c <= c1; c++)
			if (r->mem_v[i] > hi[c])
				hi[c] = r->mem_v[i];
	}
	uint64_t ymax = r->peak;
	if (plan->pool_size > ymax)
		ymax = plan->pool_size;
	if (r->base_peak > ymax)
		ymax = r->base_peak;
	if (ymax == 0)
		ymax = 1;
	ymax += ymax / 10;

	char a[32], b[32];
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" role=\"img\">\n",
		PIC_W, PIC_H, PIC_W, PIC_H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(f, "<text x=\"%.1f\" y=\"24\" font-size=\"16\" font-weight=\"bold\">memplan simulation: ",
		LEFT);
	xml_escape(f, title);
	fprintf(f, "</text>\n<text x=\"%.1f\" y=\"44\" font-size=\"12\" fill=\"#555\">"
		   "%.3f ms vs %.3f ms without swaps (overhead %.2f%%), stall %.3f ms, "
		   "%" PRIu32 " swaps; peak resident %s of a %s pool</text>\n",
		LEFT, r->iter_ns / 1e6, r->base_ns / 1e6, sim_overhead(r),
		r->stall_ns / 1e6, r->nswaps, cli_format_size(r->peak, a, sizeof(a)),
		cli_format_size(plan->pool_size, b, sizeof(b)));

	static const char *const lane_name[] = { "compute", "D2H", "H2D" };
	static const char *const lane_color[] = { "#4e79a7", "#f28e2b", "#59a14f" };
	unsigned char *lane_busy[] = { comp, d2h, h2d };
	fprintf(f, "<g class=\"lanes\" font-size=\"12\" fill=\"#333\">\n");
	for (int k = 0; k < 3; k++) {
		double y = LANE_TOP + k * (LANE_H + LANE_GAP);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
			   "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f4f4f4\"/>\n",
			LEFT - 6, y + LANE_H / 2 + 4, lane_name[k], LEFT, y,
			PIC_W - LEFT - RIGHT, LANE_H);
		runs(f, lane_busy[k], y, LANE_H, lane_color[k], lane_name[k]);
		if (k == 0)
			runs(f, stall, y, LANE_H, "#e15759", "stall");
	}
	fprintf(f, "</g>\n");

	/* axes of the memory panel, time ticks in milliseconds */
	fprintf(f, "<g class=\"axes\" font-size=\"12\" fill=\"#333\">\n");
	for (int k = 0; k <= 4; k++) {
		uint64_t v = (uint64_t)((double)ymax * k / 4);
		double y = mem_y(v, ymax);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			LEFT, y, PIC_W - RIGHT, y, LEFT - 6, y + 4,
			k ? cli_format_size(v, a, sizeof(a)) : "0");
	}
	double step = axis_tick_step(span / 1e6 / 8) * 1e6;
	for (double v = 0; v <= span * (1 + 1e-9); v += step) {
		double x = px(v, span);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
			x, MEM_TOP + MEM_H, x, MEM_TOP + MEM_H + 5, x,
			MEM_TOP + MEM_H + 18, v / 1e6);
	}
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>",
		LEFT, MEM_TOP + MEM_H, PIC_W - RIGHT, MEM_TOP + MEM_H);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		LEFT, MEM_TOP, LEFT, MEM_TOP + MEM_H);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time into the iteration (ms)</text>\n",
		LEFT + (PIC_W - LEFT - RIGHT) / 2, PIC_H - 14);
	fprintf(f, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">resident pool bytes</text>\n",
		MEM_TOP + MEM_H / 2);
	fprintf(f, "</g>\n");

	/* the curve: one step per column */
	fprintf(f, "<path class=\"resident\" fill=\"#76b7b2\" fill-opacity=\"0.5\" stroke=\"#2f6f6a\" d=\"M%.1f %.1f",
		LEFT, mem_y(0, ymax));
	for (size_t c = 0; c < COLS; c++)
		fprintf(f, "V%.1fH%.1f", mem_y(hi[c], ymax), LEFT + (double)c + 1);
	fprintf(f, "V%.1fZ\"><title>resident pool bytes (most per pixel)</title></path>\n",
		mem_y(0, ymax));
	hline(f, mem_y(plan->pool_size, ymax), "#c00", "pool", plan->pool_size);
	if (r->base_peak != plan->pool_size)
		hline(f, mem_y(r->base_peak, ymax), "#777", "peak without swaps",
		      r->base_peak);
	fprintf(f, "</svg>\n");
	free(busy);
	free(hi);
	return ferror(f) ? -1 : 0;
}
