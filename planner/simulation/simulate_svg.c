/* SPDX-License-Identifier: MIT */
/*
 * simulate_svg.c - draws a simulated iteration (simulate.h) as SVG for
 * memplan-plan simulate -o: compute, D2H and H2D lanes over time, then the
 * resident pool bytes with the pool and the no-swap peak as lines, and a
 * legend.  Each copy and each stall is its own bar with a tooltip while
 * there are few; past MAX_BARS a lane, like the compute lane and the curve
 * always, is binned into pixel columns, so the element count never grows
 * with the trace.
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
#define PIC_H 600.0
#define LEFT 90.0
#define RIGHT 30.0
#define LANE_TOP 70.0
#define LANE_H 26.0
#define LANE_GAP 10.0
#define MEM_TOP 200.0
#define MEM_H 300.0
#define COLS 880 /* PIC_W - LEFT - RIGHT, one per pixel */
#define MAX_BARS 400 /* bars with a tooltip per lane; more are binned */
#define LEGEND_Y 584.0

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

/* A dashed line across the memory plot, its label above it (below it with
 * below, when another line's label is too near), on a white halo so it
 * reads over the resident curve. */
static void hline(FILE *f, double y, const char *color, const char *label,
		  uint64_t v, int below)
{
	char a[32];
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		   "stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>",
		LEFT, y, PIC_W - RIGHT, y, color);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\" text-anchor=\"end\" "
		   "stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">%s %s</text>\n",
		PIC_W - RIGHT - 4, below ? y + 14 : y - 4, color, label,
		cli_format_size(v, a, sizeof(a)));
}

/*
 * Size ticks: a step of {1, 2, 5} x 10^k of one binary unit, about five to
 * the top, and the top a whole number of steps (*top).  *unit is the unit's
 * bytes, *uname its name.
 */
static double size_ticks(uint64_t max, uint64_t *top, double *unit,
			 const char **uname)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)(max ? max : 1), u = 1;
	unsigned k = 0;
	while (v / u >= 1024 && k + 1 < sizeof(names) / sizeof(names[0])) {
		u *= 1024;
		k++;
	}
	double step = axis_tick_step(v / u / 5);
	if (k == 0 && step < 1)
		step = 1;
	*top = (uint64_t)(ceil(v / u / step) * step * u);
	*unit = u;
	*uname = names[k];
	return step;
}

/* "1.234 ms" */
static const char *ms(double ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f ms", ns / 1e6);
	return buf;
}

/*
 * One bar per copy, tooltip naming the swap: what moves, when, and how
 * early it was ready (or how long compute waited).  Adjacent copies keep a
 * gap and alternate two shades, so two copies never read as one.
 */
static void copy_bars(FILE *f, const struct mp_plan *plan,
		      const struct sim_result *r, const char *const *names,
		      int in, double y, double span)
{
	static const char *const shade[2][2] = { { "#f28e2b", "#c7661a" },
						 { "#59a14f", "#3b7a33" } };
	char a[32], b[32], c[32], d[32];
	fprintf(f, "<g class=\"%s\">", in ? "H2D" : "D2H");
	for (uint32_t j = 0; j < r->nswaps; j++) {
		const struct sim_swap *w = &r->swaps[j];
		double t0 = in ? w->h2d_start : w->d2h_start, t1 = in ? w->h2d_end : w->d2h_end;
		double x0 = px(t0, span), x1 = px(t1, span), wd = x1 - x0;
		if (wd >= 3)
			wd -= 1;
		else if (wd < 1)
			wd = 1;
		fprintf(f, "<rect class=\"copy\" data-swap=\"%" PRIu32 "\" x=\"%.2f\" y=\"%.1f\" "
			   "width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>",
			j, x0, y, wd, LANE_H, shade[in][j & 1]);
		const struct mp_plan_swap *sw = j < plan->nswaps ? &plan->swaps[j] : NULL;
		fprintf(f, "swap %" PRIu32 "%s: %s of ", j, in ? " in (H2D)" : " out (D2H)",
			cli_format_size(sw ? sw->bytes : 0, a, sizeof(a)));
		if (names && sw)
			xml_escape(f, names[j]);
		else
			fputs("the buffer", f);
		fprintf(f, " (request %" PRIu64 ") %s, %s to %s",
			sw ? sw->request : 0, in ? "back" : "to the host",
			ms(t0, b, sizeof(b)), ms(t1, c, sizeof(c)));
		double slack = in ? w->slack : w->d2h_slack;
		double want = in ? w->need : w->reuse;
		if (want < 0)
			fprintf(f, "; %s", in ? "no later use" : "no allocation reuses its bytes");
		else if (slack >= 0)
			fprintf(f, "; ready %s before %s", ms(slack, d, sizeof(d)),
				in ? "its next use" : "its bytes are reused");
		else
			fprintf(f, "; %s waited %s for it", in ? "its next use" : "the reuse",
				ms(-slack, d, sizeof(d)));
		fprintf(f, "</title></rect>");
	}
	fprintf(f, "</g>\n");
}

/* One bar per stall on the compute lane, its tooltip saying what waited. */
static void stall_bars(FILE *f, const struct sim_result *r,
		       const char *const *names, double y, double span)
{
	char a[32], b[32];
	fprintf(f, "<g class=\"stall\" fill=\"#e15759\">");
	for (size_t i = 0; i < r->nstalls; i++) {
		const struct sim_stall *s = &r->stalls[i];
		double x0 = px(s->at, span), wd = px(s->at + s->ns, span) - x0;
		fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"><title>"
			   "stall: event %" PRIu32 " waited %s at %s for swap %" PRIu32,
			x0, y, wd < 1 ? 1 : wd, LANE_H, s->event, ms(s->ns, a, sizeof(a)),
			ms(s->at, b, sizeof(b)), s->swap);
		if (names && s->swap < r->nswaps) {
			fputs(" (", f);
			xml_escape(f, names[s->swap]);
			fputs(")", f);
		}
		fprintf(f, " %s</title></rect>", s->in ? "to come back (H2D)" : "to leave (D2H)");
	}
	fprintf(f, "</g>\n");
}

/* The legend, one row under the axis label: what every colour means. */
static void legend(FILE *f, const struct sim_result *r, uint64_t pool)
{
	struct {
		const char *color, *text;
		int line;
	} items[] = {
		{ "#4e79a7", "compute", 0 },
		{ "#e15759", "stall: compute waits for a swap", 0 },
		{ "#f28e2b", "D2H: swap-out", 0 },
		{ "#59a14f", "H2D: swap-in", 0 },
		{ "#76b7b2", "resident pool bytes", 0 },
		{ "#c00", "pool", 1 },
		{ "#777", "peak without swaps", 1 },
	};
	size_t n = sizeof(items) / sizeof(items[0]);
	if (r->base_peak == pool)
		n--;
	double x = LEFT;
	fprintf(f, "<g class=\"legend\" font-size=\"12\" fill=\"#333\">");
	for (size_t i = 0; i < n; i++) {
		if (items[i].line)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>",
				x, LEGEND_Y - 4, x + 16, LEGEND_Y - 4, items[i].color);
		else
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>",
				x, LEGEND_Y - 10, items[i].color);
		double tx = x + (items[i].line ? 20 : 16);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", tx, LEGEND_Y, items[i].text);
		x = tx + 6.2 * (double)strlen(items[i].text) + 14;
	}
	fprintf(f, "</g>\n");
}

/*
 * Writes title escaped, at most max bytes of it: a longer one (a trace in a
 * deep folder) keeps its end, where the names are, after "...", cut on a
 * UTF-8 character boundary, so the heading never runs off the picture.
 */
static void title_text(FILE *f, const char *title, size_t max)
{
	size_t n = strlen(title);
	if (n <= max) {
		xml_escape(f, title);
		return;
	}
	const char *s = title + n - (max - 3);
	while (((unsigned char)*s & 0xC0) == 0x80)
		s++;
	fputs("...", f);
	xml_escape(f, s);
}

int sim_write_svg(FILE *f, const struct mp_plan *plan,
		  const struct sim_result *r, const char *title,
		  const char *const *names)
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
	uint64_t most = r->peak;
	if (plan->pool_size > most)
		most = plan->pool_size;
	if (r->base_peak > most)
		most = r->base_peak;
	uint64_t ymax;
	double unit;
	const char *uname;
	double ystep = size_ticks(most + most / 20, &ymax, &unit, &uname);
	if (ymax == 0)
		ymax = 1;

	char a[32], b[32];
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" role=\"img\">\n",
		PIC_W, PIC_H, PIC_W, PIC_H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(f, "<text x=\"%.1f\" y=\"24\" font-size=\"16\" font-weight=\"bold\">memplan simulation: ",
		LEFT);
	title_text(f, title, 70);
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
		if (k == 0) {
			runs(f, lane_busy[k], y, LANE_H, lane_color[k], lane_name[k]);
			if (r->nstalls <= MAX_BARS)
				stall_bars(f, r, names, y, span);
			else
				runs(f, stall, y, LANE_H, "#e15759", "stall");
		} else if (r->nswaps <= MAX_BARS) {
			copy_bars(f, plan, r, names, k == 2, y, span);
		} else {
			runs(f, lane_busy[k], y, LANE_H, lane_color[k], lane_name[k]);
		}
	}
	fprintf(f, "</g>\n");

	/* axes of the memory panel: sizes at round steps, time ticks in ms */
	fprintf(f, "<g class=\"axes\" font-size=\"12\" fill=\"#333\">\n");
	for (double k = 0; k * ystep * unit <= (double)ymax * (1 + 1e-9); k++) {
		double y = mem_y((uint64_t)(k * ystep * unit), ymax);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>",
			LEFT, y, PIC_W - RIGHT, y);
		if (k == 0)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>\n",
				LEFT - 6, y + 4);
		else
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g %s</text>\n",
				LEFT - 6, y + 4, k * ystep, uname);
	}
	double step = axis_tick_step(span / 1e6 / 8);
	fprintf(f, "<g class=\"xticks\">");
	for (double k = 0; k * step * 1e6 <= span * (1 + 1e-9); k++) {
		double x = px(k * step * 1e6, span);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
			x, MEM_TOP + MEM_H, x, MEM_TOP + MEM_H + 5, x,
			MEM_TOP + MEM_H + 18, k * step);
	}
	fprintf(f, "</g>\n");
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>",
		LEFT, MEM_TOP + MEM_H, PIC_W - RIGHT, MEM_TOP + MEM_H);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		LEFT, MEM_TOP, LEFT, MEM_TOP + MEM_H);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time into the iteration (ms)</text>\n",
		LEFT + (PIC_W - LEFT - RIGHT) / 2, MEM_TOP + MEM_H + 40);
	fprintf(f, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">resident pool bytes</text>\n",
		MEM_TOP + MEM_H / 2);
	fprintf(f, "</g>\n");

	/* the curve: one step per column */
	fprintf(f, "<path class=\"resident\" fill=\"#76b7b2\" fill-opacity=\"0.5\" stroke=\"#2f6f6a\" d=\"M%.1f %.1f",
		LEFT, mem_y(0, ymax));
	for (size_t c = 0; c < COLS; c++)
		fprintf(f, "V%.1fH%.1f", mem_y(hi[c], ymax), LEFT + (double)c + 1);
	fprintf(f, "V%.1fZ\"><title>resident pool bytes (most per pixel)</title></path>\n",
		mem_y(0, ymax));
	/* two lines nearer than a label's height: the lower one's label under it */
	double yp = mem_y(plan->pool_size, ymax), yb = mem_y(r->base_peak, ymax);
	int near = r->base_peak != plan->pool_size && fabs(yp - yb) < 16;
	hline(f, yp, "#c00", "pool", plan->pool_size, near && yp > yb);
	if (r->base_peak != plan->pool_size)
		hline(f, yb, "#777", "peak without swaps", r->base_peak, near && yb > yp);
	legend(f, r, plan->pool_size);
	fprintf(f, "</svg>\n");
	free(busy);
	free(hi);
	return ferror(f) ? -1 : 0;
}
