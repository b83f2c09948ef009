/* SPDX-License-Identifier: MIT */
/*
 * timeline_svg.c - draws a timeline (timeline.h) as SVG: one stacked area
 * per group, axes with human sizes and times, the peak marked, a legend and
 * a title.  The HTML page embeds the same picture, so both look alike.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "allocsim.h"
#include "axis.h"
#include "timeline.h"
#include "xml.h"

#define PIC_W 1000.0
#define PIC_H 560.0
#define LEFT 90.0
#define RIGHT 250.0
#define TOP 64.0
#define BOTTOM 56.0
#define LANE_H 14.0
#define LANE_GAP 4.0

/*
 * Colours follow what a group is, never its rank, so a role keeps its colour
 * from one chart to the next: one colour per role and per kind (Tableau 10),
 * label groups by a hash of their name over Tableau 20, grey for "other".
 */
static const char *const role_colors[TRACE_ROLE_COUNT] = {
	[TRACE_ROLE_UNKNOWN] = "#9c755f",    [TRACE_ROLE_WEIGHT] = "#4e79a7",
	[TRACE_ROLE_GRADIENT] = "#f28e2b",   [TRACE_ROLE_OPTIMIZER] = "#b07aa1",
	[TRACE_ROLE_ACTIVATION] = "#59a14f", [TRACE_ROLE_TEMP] = "#edc948",
	[TRACE_ROLE_WORKSPACE] = "#76b7b2",  [TRACE_ROLE_INPUT] = "#ff9da7",
};
static const char *const kind_colors[TRACE_KIND_COUNT] = {
	[TRACE_KIND_DEVICE] = "#4e79a7", [TRACE_KIND_ASYNC] = "#f28e2b",
	[TRACE_KIND_MANAGED] = "#e15759", [TRACE_KIND_HOST] = "#76b7b2",
	[TRACE_KIND_VMM] = "#59a14f",
};
static const char *const label_colors[] = {
	"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f", "#8cd17d", "#b6992d",
	"#f1ce63", "#499894", "#86bcb6", "#e15759", "#ff9d9a", "#79706e", "#d37295",
	"#fabfd2", "#b07aa1", "#d4a6c8", "#9d7660", "#d7b5a6", "#bab0ac"
};
#define OTHER_COLOR "#d3d3d3"

const char *timeline_color(const struct timeline *tl, size_t g)
{
	uint32_t key = tl->groups[g].key;
	if (key == TIMELINE_KEY_OTHER)
		return OTHER_COLOR;
	if (tl->by == TIMELINE_BY_ROLE && key < TRACE_ROLE_COUNT)
		return role_colors[key];
	if (tl->by == TIMELINE_BY_KIND && key < TRACE_KIND_COUNT)
		return kind_colors[key];
	return label_colors[key % (sizeof(label_colors) / sizeof(label_colors[0]))];
}

/* --- nice ticks ------------------------------------------------------------ */

static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };

/* A tick step near max/6 of the form {1, 2, 2.5, 5} x 10^k of a binary unit. */
static double size_step(uint64_t max, unsigned *unit)
{
	double v = (double)(max ? max : 1), u = 1;
	unsigned k = 0;
	while (v / u >= 1024 && k + 1 < sizeof(units) / sizeof(units[0])) {
		u *= 1024;
		k++;
	}
	static const double m[] = { 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50,
				    100, 200, 250, 500, 1000 };
	double want = v / 6, step = m[16] * u;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (m[i] * u >= want && m[i] * u >= 1) {
			step = m[i] * u;
			break;
		}
	*unit = k;
	return step;
}

/* The most bytes drawn: the live peak, or the reserved one above it. */
static uint64_t most_drawn(const struct timeline *tl)
{
	return tl->allocator >= 0 && tl->reserved_peak > tl->peak ? tl->reserved_peak : tl->peak;
}

void timeline_frame(const struct timeline *tl, struct timeline_frame *fr)
{
	unsigned u;
	uint64_t most = most_drawn(tl);
	double step = size_step(most, &u);
	double top = ceil((double)(most ? most : 1) / step) * step;
	fr->width = PIC_W;
	fr->left = LEFT;
	fr->top = TOP;
	fr->plot_w = PIC_W - LEFT - RIGHT;
	fr->plot_h = PIC_H - TOP - BOTTOM;
	fr->y_max = (uint64_t)top;
	/* the lanes go under the tick labels; the picture grows by them */
	fr->lanes_top = TOP + fr->plot_h + 28;
	fr->lanes_h = (tl->nkernels ? LANE_H + LANE_GAP : 0) +
		      (double)tl->range_depths * (LANE_H + LANE_GAP);
	fr->height = PIC_H + fr->lanes_h;
}

static double px(const struct timeline *tl, const struct timeline_frame *fr,
		 int64_t x)
{
	return fr->left + fr->plot_w * (double)(x - tl->x_min) /
				   (double)(tl->x_max - tl->x_min);
}

static double py(const struct timeline_frame *fr, uint64_t y)
{
	return fr->top + fr->plot_h - fr->plot_h * (double)y / (double)fr->y_max;
}

/*
 * The x axis reads from the first event (0) on the ns axis, and on the
 * others when their values are far from 0 (a clock of epoch times), so a
 * tick never reads 1732546800123 or, summed in doubles, 0.199936.
 */
int timeline_x_relative(const struct timeline *tl)
{
	double span = (double)(tl->x_max - tl->x_min);
	return tl->axis == TIMELINE_AXIS_NS ||
	       fabs((double)tl->x_min) > 1000 * span;
}

/* The unit a person reads the span in: 2 us reads "2 us", not "0.002 ms". */
double timeline_x_unit(const struct timeline *tl, const char **name)
{
	static const struct {
		double ns;
		const char *name;
	} u[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };
	double span = (double)(tl->x_max - tl->x_min);
	if (tl->axis != TIMELINE_AXIS_NS) {
		if (name)
			*name = "";
		return 1;
	}
	size_t k = 0;
	while (k + 1 < sizeof(u) / sizeof(u[0]) && span < 2 * u[k].ns)
		k++;
	if (name)
		*name = u[k].name;
	return u[k].ns;
}

static double x_unit(const struct timeline *tl)
{
	return timeline_x_unit(tl, NULL);
}

static const char *axis_label(const struct timeline *tl)
{
	static const char *const ns_labels[] = { "time into the iteration (s)",
						 "time into the iteration (ms)",
						 "time into the iteration (us)",
						 "time into the iteration (ns)" };
	double u = x_unit(tl);
	switch (tl->axis) {
	case TIMELINE_AXIS_NS:
		return ns_labels[u == 1e9 ? 0 : u == 1e6 ? 1 : u == 1e3 ? 2 : 3];
	case TIMELINE_AXIS_TIME:
		return timeline_x_relative(tl) ? "time from the first event (the trace's clock units)"
				      : "time (the trace's clock units)";
	default:
		return timeline_x_relative(tl) ? "events from the first" : "event sequence number";
	}
}

/* An x value as its label reads (v in axis units). */
static void x_text(const struct timeline *tl, double v, char *buf, size_t len)
{
	double u = x_unit(tl);
	if (timeline_x_relative(tl))
		v -= (double)tl->x_min;
	if (u != 1)
		snprintf(buf, len, "%g", v / u);
	else
		snprintf(buf, len, "%.0f", v);
}

/*
 * The x ticks, <g class="xticks">: k whole steps of {1, 2, 5} x 10^n label
 * units, counted from the first event (relative) or from 0, never summed
 * in doubles.  The HTML page redraws them this way when zoomed.
 */
static void xticks(FILE *f, const struct timeline *tl,
		   const struct timeline_frame *fr)
{
	double u = x_unit(tl), span = (double)(tl->x_max - tl->x_min) / u;
	double step = axis_tick_step(span / 8);
	if (tl->axis != TIMELINE_AXIS_NS && step < 1)
		step = 1;
	int rel = timeline_x_relative(tl);
	double k0 = rel ? 0 : ceil((double)tl->x_min / u / step);
	fprintf(f, "<g class=\"xticks\">\n");
	for (double k = k0; k <= k0 + 100; k++) {
		double at = k * step; /* label units, relative or absolute */
		double off = rel ? at : at - (double)tl->x_min / u;
		if (off > span * (1 + 1e-9))
			break;
		double x = fr->left + fr->plot_w * off / span;
		char lab[48];
		if (u != 1)
			snprintf(lab, sizeof(lab), "%g", at);
		else
			snprintf(lab, sizeof(lab), "%.0f", at);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>",
			x, fr->top + fr->plot_h, x, fr->top + fr->plot_h + 5);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x,
			fr->top + fr->plot_h + 18, lab);
	}
	fprintf(f, "</g>\n");
}

static void axes(FILE *f, const struct timeline *tl,
		 const struct timeline_frame *fr)
{
	unsigned u;
	double step = size_step(most_drawn(tl), &u), scale = 1;
	for (unsigned k = 0; k < u; k++)
		scale *= 1024;
	fprintf(f, "<g class=\"axes\" font-size=\"12\" fill=\"#333\">\n");
	for (double v = 0; v <= (double)fr->y_max + step / 2; v += step) {
		double y = py(fr, (uint64_t)v);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>",
			fr->left, y, fr->left + fr->plot_w, y);
		if (v == 0)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>\n",
				fr->left - 6, y + 4);
		else
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g %s</text>\n",
				fr->left - 6, y + 4, v / scale, units[u]);
	}
	xticks(f, tl, fr);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>",
		fr->left, fr->top + fr->plot_h, fr->left + fr->plot_w, fr->top + fr->plot_h);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		fr->left, fr->top, fr->left, fr->top + fr->plot_h);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		fr->left + fr->plot_w / 2, fr->height - 14, axis_label(tl));
	fprintf(f, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">live bytes</text>\n",
		fr->top + fr->plot_h / 2);
	fprintf(f, "</g>\n");
}

/* One stacked area: the step line of its top, back along its bottom. */
static void area(FILE *f, const struct timeline *tl,
		 const struct timeline_frame *fr, size_t g)
{
	size_t G = tl->ngroups;
	fprintf(f, "<path class=\"area\" data-group=\"%zu\" fill=\"%s\" stroke=\"none\" d=\"", g,
		timeline_color(tl, g));
	for (size_t p = 0; p < tl->npoints; p++) {
		uint64_t lo = 0;
		for (size_t k = 0; k < g; k++)
			lo += tl->y[p * G + k];
		uint64_t hi = lo + tl->y[p * G + g];
		int64_t x1 = p + 1 < tl->npoints ? tl->x[p + 1] : tl->x_max;
		fprintf(f, "%s%.1f %.1fH%.1f", p ? "L" : "M", px(tl, fr, tl->x[p]),
			py(fr, hi), px(tl, fr, x1));
	}
	for (size_t p = tl->npoints; p-- > 0;) {
		uint64_t lo = 0;
		for (size_t k = 0; k < g; k++)
			lo += tl->y[p * G + k];
		int64_t x1 = p + 1 < tl->npoints ? tl->x[p + 1] : tl->x_max;
		fprintf(f, "L%.1f %.1fH%.1f", px(tl, fr, x1), py(fr, lo), px(tl, fr, tl->x[p]));
	}
	fprintf(f, "Z\"><title>");
	xml_escape(f, tl->groups[g].name);
	fprintf(f, "</title></path>\n");
}

/*
 * The allocator model's reserved bytes: a dashed step line over the stack
 * (the gap between them is what the caching allocator holds unused).  Its
 * stroke keeps its width when the HTML page stretches the areas to zoom.
 */
static void reserved(FILE *f, const struct timeline *tl,
		     const struct timeline_frame *fr)
{
	if (tl->allocator < 0 || !tl->nreserved)
		return;
	fprintf(f, "<path class=\"reserved\" data-peak=\"%" PRIu64 "\" fill=\"none\" stroke=\"#222\" "
		   "stroke-width=\"1.5\" stroke-dasharray=\"5 3\" vector-effect=\"non-scaling-stroke\" d=\"",
		tl->reserved_peak);
	fprintf(f, "M%.1f %.1f", px(tl, fr, tl->rx[0]), py(fr, tl->ry[0]));
	for (size_t k = 0; k < tl->nreserved; k++) {
		int64_t x1 = k + 1 < tl->nreserved ? tl->rx[k + 1] : tl->x_max;
		fprintf(f, "H%.1f", px(tl, fr, x1));
		if (k + 1 < tl->nreserved)
			fprintf(f, "V%.1f", py(fr, tl->ry[k + 1]));
	}
	fprintf(f, "\"><title>reserved from the device (%s allocator model)</title></path>\n",
		allocsim_name((unsigned)tl->allocator));
}

/*
 * Where each iteration starts, when the requests repeat: a thin line down
 * the plot and its number at the top inside, the number left out when the
 * previous one is too near to read both.
 */
static void iteration_marks(FILE *f, const struct timeline *tl,
			    const struct timeline_frame *fr)
{
	if (!tl->niters)
		return;
	fprintf(f, "<g class=\"iterations\" font-size=\"10\" fill=\"#444\">\n");
	double last = -1e9;
	for (size_t k = 0; k < tl->niters; k++) {
		double x = px(tl, fr, tl->iters[k]);
		fprintf(f, "<line data-iteration=\"%zu\" data-x=\"%" PRId64 "\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			   "y2=\"%.1f\" stroke=\"#444\" stroke-width=\"0.8\" stroke-dasharray=\"2 3\"/>",
			k + 1, tl->iters[k] - tl->x_min, x, fr->top, x, fr->top + fr->plot_h);
		int wide = k + 1 < tl->niters ? px(tl, fr, tl->iters[k + 1]) - x >= 64
					      : fr->left + fr->plot_w - x >= 64;
		if (x - last < 24)
			continue;
		last = x;
		fprintf(f, "<text data-x=\"%" PRId64 "\" x=\"%.1f\" y=\"%.1f\">%s%zu</text>\n",
			tl->iters[k] - tl->x_min, x + 3, fr->top + 11, wide ? "iteration " : "", k + 1);
	}
	fprintf(f, "</g>\n");
}

/* A light colour for an NVTX range, by its name: the same range reads the
 * same in every chart. */
static const char *range_color(const char *name)
{
	static const char *const c[] = { "#c6dbef", "#fdd0a2", "#c7e9c0", "#dadaeb",
					 "#fcbba1", "#d9d9d9" };
	uint32_t h = 2166136261u;
	for (const char *p = name ? name : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return c[h % (sizeof(c) / sizeof(c[0]))];
}

static double lane_y(const struct timeline *tl, const struct timeline_frame *fr,
		     int kernel, uint32_t depth)
{
	double y = fr->lanes_top;
	if (!kernel && tl->nkernels)
		y += LANE_H + LANE_GAP;
	return y + (kernel ? 0 : (double)depth * (LANE_H + LANE_GAP));
}

/*
 * The lanes under the plot: kernels (dark, one bar per run of busy
 * columns) and NVTX ranges (one row per nesting level, named inside when
 * there is room).  The bars zoom with the areas in the HTML page; the
 * names carry their range (data-x0, data-x1) so the page can move them.
 */
static void lanes(FILE *f, const struct timeline *tl,
		  const struct timeline_frame *fr)
{
	if (!fr->lanes_h)
		return;
	fprintf(f, "<clipPath id=\"memplan-lanes\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		   "height=\"%.1f\"/></clipPath>\n",
		fr->left, fr->lanes_top, fr->plot_w, fr->lanes_h);
	fprintf(f, "<g class=\"lane-names\" font-size=\"11\" fill=\"#333\" text-anchor=\"end\">");
	if (tl->nkernels)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">kernels</text>", fr->left - 6,
			lane_y(tl, fr, 1, 0) + LANE_H - 3);
	if (tl->range_depths)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">NVTX</text>", fr->left - 6,
			lane_y(tl, fr, 0, 0) + LANE_H - 3);
	fprintf(f, "</g>\n<g clip-path=\"url(#memplan-lanes)\">\n<g class=\"lanes\">\n");
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f6f6f6\"/>\n",
		fr->left, fr->lanes_top, fr->plot_w, fr->lanes_h - LANE_GAP);
	fprintf(f, "<g class=\"kernels\" fill=\"#555\">");
	for (size_t i = 0; i < tl->nkernels; i++) {
		const struct timeline_span *k = &tl->kernels[i];
		double x0 = px(tl, fr, k->x0), w = px(tl, fr, k->x1) - x0;
		fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"><title>",
			x0, lane_y(tl, fr, 1, 0), w < 0.5 ? 0.5 : w, LANE_H);
		if (k->count == 1)
			xml_escape(f, k->name ? k->name : "kernel");
		else {
			fprintf(f, "%" PRIu32 " kernels, from ", k->count);
			xml_escape(f, k->name ? k->name : "kernel");
		}
		fprintf(f, "</title></rect>");
	}
	fprintf(f, "</g>\n<g class=\"ranges\">");
	for (size_t i = 0; i < tl->nranges; i++) {
		const struct timeline_span *r = &tl->ranges[i];
		double x0 = px(tl, fr, r->x0), w = px(tl, fr, r->x1) - x0;
		fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
			   "stroke=\"#fff\" stroke-width=\"0.5\" vector-effect=\"non-scaling-stroke\"><title>",
			x0, lane_y(tl, fr, 0, r->depth), w < 0.5 ? 0.5 : w, LANE_H,
			range_color(r->name));
		xml_escape(f, r->name ? r->name : "range");
		fprintf(f, "</title></rect>");
	}
	fprintf(f, "</g>\n</g>\n<g class=\"range-names\" font-size=\"10\" fill=\"#333\" "
		   "text-anchor=\"middle\">");
	for (size_t i = 0; i < tl->nranges; i++) {
		const struct timeline_span *r = &tl->ranges[i];
		double x0 = px(tl, fr, r->x0), x1 = px(tl, fr, r->x1);
		size_t len = r->name ? strlen(r->name) : 0;
		fprintf(f, "<text data-x0=\"%" PRId64 "\" data-x1=\"%" PRId64 "\" data-len=\"%zu\" "
			   "x=\"%.1f\" y=\"%.1f\"%s>",
			r->x0 - tl->x_min, r->x1 - tl->x_min, len, (x0 + x1) / 2,
			lane_y(tl, fr, 0, r->depth) + LANE_H - 3,
			x1 - x0 >= 6.0 * (double)len + 6 ? "" : " visibility=\"hidden\"");
		xml_escape(f, r->name ? r->name : "");
		fprintf(f, "</text>");
	}
	fprintf(f, "</g>\n</g>\n");
}

/* Human size for the legend and the marker; buf >= 32. */
static const char *hsize(uint64_t n, char *buf, size_t len)
{
	double v = (double)n;
	size_t i = 0;
	while (v >= 1024 && i + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%" PRIu64 " B", n);
	else
		snprintf(buf, len, "%.2f %s", v, units[i]);
	return buf;
}

/*
 * A group's name as the legend prints it: whole up to 16 characters, else
 * its head and tail around "..", where layer names differ
 * ("model.layers.0.attn.q_proj" and ".k_proj"); when two drawn names
 * still read alike, the group's rank is added.  buf >= 40; returns buf or
 * the name.
 */
static const char *short_name(const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);
	if (n <= 16)
		return name;
	snprintf(buf, len, "%.6s..%s", name, name + n - 8);
	return buf;
}

static const char *legend_name(const struct timeline *tl, size_t g, char *buf,
			       size_t len)
{
	const char *mine = short_name(tl->groups[g].name, buf, len);
	for (size_t k = 0; k < tl->ngroups; k++) {
		char other[40];
		if (k != g && strcmp(short_name(tl->groups[k].name, other, sizeof(other)), mine) == 0) {
			char tmp[64];
			snprintf(tmp, sizeof(tmp), "%.12s #%u", mine, (unsigned)(g + 1) % 100);
			snprintf(buf, len, "%.39s", tmp);
			return buf;
		}
	}
	return mine;
}

int timeline_svg(FILE *f, const struct trace *t, const struct timeline *tl,
		 const char *title, int prolog)
{
	(void)t;
	struct timeline_frame fr;
	timeline_frame(tl, &fr);
	char a[32], b[48];
	if (prolog)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" role=\"img\">\n",
		fr.width, fr.height, fr.width, fr.height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(f, "<text x=\"%.1f\" y=\"24\" font-size=\"16\" font-weight=\"bold\">memplan timeline: ",
		fr.left);
	xml_escape(f, title);
	const char *un;
	double u = timeline_x_unit(tl, &un);
	if (tl->axis == TIMELINE_AXIS_NS)
		snprintf(b, sizeof(b), "%.4g %s", (double)(tl->peak_x - tl->x_min) / u, un);
	else
		x_text(tl, (double)tl->peak_x, b, sizeof(b));
	fprintf(f, "</text>\n<text x=\"%.1f\" y=\"44\" font-size=\"12\" fill=\"#555\">"
		   "device memory live, by %s; peak %s at %s%s%s",
		fr.left, timeline_by_name(tl->by), hsize(tl->peak, a, sizeof(a)),
		tl->axis == TIMELINE_AXIS_NS ? "" : tl->axis == TIMELINE_AXIS_SEQ ? "seq " : "time ",
		b, tl->niters ? "; iterations marked" : "");
	if (tl->host_peak)
		fprintf(f, "; pinned host memory (%s at most) not drawn",
			hsize(tl->host_peak, a, sizeof(a)));
	fprintf(f, "</text>\n");
	axes(f, tl, &fr);
	/* the areas inside the plot only (the HTML page zooms them in x) */
	fprintf(f, "<clipPath id=\"memplan-plot\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		   "height=\"%.1f\"/></clipPath>\n",
		fr.left, fr.top - 20, fr.plot_w, fr.plot_h + 20);
	fprintf(f, "<g clip-path=\"url(#memplan-plot)\">\n<g class=\"areas\">\n");
	for (size_t g = 0; g < tl->ngroups; g++)
		area(f, tl, &fr, g);
	reserved(f, tl, &fr);
	fprintf(f, "</g>\n");
	iteration_marks(f, tl, &fr);
	double x = px(tl, &fr, tl->peak_x);
	fprintf(f, "<g class=\"peak\" data-peak=\"%" PRIu64 "\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		   "stroke=\"#c00\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>",
		tl->peak, x, fr.top - 6, x, fr.top + fr.plot_h);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#c00\" text-anchor=\"%s\">peak %s</text></g>\n",
		x + (x > fr.left + fr.plot_w / 2 ? -4 : 4), fr.top - 8,
		x > fr.left + fr.plot_w / 2 ? "end" : "start", hsize(tl->peak, a, sizeof(a)));
	fprintf(f, "</g>\n");
	lanes(f, tl, &fr);
	/*
	 * The legend lists the groups largest first, "other" last, each with
	 * what it holds at the peak: the figures add up to the peak (the most
	 * it ever holds is in the entry's tooltip).  A group with nothing at
	 * the peak shows the most it held instead, never "0 B".
	 */
	fprintf(f, "<g class=\"legend\" font-size=\"12\">\n");
	double lx = fr.left + fr.plot_w + 16, ly = fr.top;
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">%s at the peak</text>\n", lx,
		ly, timeline_by_name(tl->by));
	for (size_t g = 0; g < tl->ngroups; g++) {
		ly += 18;
		fprintf(f, "<g class=\"key\" data-group=\"%zu\" data-at-peak=\"%" PRIu64 "\"><title>", g,
			tl->groups[g].at_peak);
		xml_escape(f, tl->groups[g].name);
		fprintf(f, ": %s at the peak, ", hsize(tl->groups[g].at_peak, a, sizeof(a)));
		fprintf(f, "at most %s</title>", hsize(tl->groups[g].max_bytes, a, sizeof(a)));
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>", lx,
			ly - 10, timeline_color(tl, g));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", lx + 18, ly);
		char nm[40];
		xml_escape(f, legend_name(tl, g, nm, sizeof(nm)));
		/* the figures in a column of their own, right-aligned */
		fprintf(f, "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", fr.width - 8, ly);
		if (tl->groups[g].at_peak)
			fprintf(f, "%s</text></g>\n", hsize(tl->groups[g].at_peak, a, sizeof(a)));
		else
			fprintf(f, "max %s</text></g>\n", hsize(tl->groups[g].max_bytes, a, sizeof(a)));
	}
	if (tl->allocator >= 0 && tl->nreserved) {
		ly += 26;
		fprintf(f, "<g class=\"reserved-key\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#222\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>",
			lx, ly - 4, lx + 12, ly - 4);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">reserved, %s model</text>", lx + 18, ly,
			allocsim_name((unsigned)tl->allocator));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">peak %s</text></g>\n", lx + 18,
			ly + 16, hsize(tl->reserved_peak, a, sizeof(a)));
	}
	fprintf(f, "</g>\n</svg>\n");
	return ferror(f) ? -1 : 0;
}

int timeline_write_svg(FILE *f, const struct trace *t,
		       const struct timeline *tl, const char *title)
{
	return timeline_svg(f, t, tl, title, 1);
}
