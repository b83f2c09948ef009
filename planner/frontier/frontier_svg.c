/* SPDX-License-Identifier: MIT */
/*
 * frontier_svg.c - draws a swap frontier (frontier.h) as SVG for
 * memplan-plan frontier -o: predicted overhead over the pool, one polyline
 * with markers per strategy (its fitting budgets, by pool), the 1% and 2%
 * levels, the no-swap lower bound, ticks and a legend.  The element count
 * grows with budgets x strategies only, never with the trace.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "cli.h"
#include "frontier.h"
#include "xml.h"

#define PIC_W 900.0
#define PIC_H 560.0
#define LEFT 80.0
#define RIGHT 170.0 /* the legend sits right of the plot */
#define TOP 60.0
#define BOTTOM 60.0
#define PLOT_W (PIC_W - LEFT - RIGHT)
#define PLOT_H (PIC_H - TOP - BOTTOM)

static const char *const colors[] = { "#4e79a7", "#f28e2b", "#59a14f",
				      "#e15759", "#b07aa1", "#76b7b2" };
#define NCOLORS (sizeof(colors) / sizeof(colors[0]))

struct frame {
	double x_lo, x_hi; /* bytes */
	double y_hi;       /* percent; y_lo is 0 */
};

static double px(const struct frame *fr, double bytes)
{
	return LEFT + PLOT_W * (bytes - fr->x_lo) / (fr->x_hi - fr->x_lo);
}

static double py(const struct frame *fr, double pct)
{
	return TOP + PLOT_H - PLOT_H * pct / fr->y_hi;
}

/* A unit for the pool axis: the largest binary unit the span reaches. */
static double axis_unit(double hi, const char **name)
{
	static const char *const names[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double u = 1;
	size_t k = 0;
	while (k + 1 < sizeof(names) / sizeof(names[0]) && hi >= u * 1024 * 4) {
		u *= 1024;
		k++;
	}
	*name = names[k];
	return u;
}

struct point {
	double x, y;
	size_t row;
};

static int by_pool(const void *a, const void *b)
{
	const struct point *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->row < q->row ? -1 : p->row > q->row;
}

/* A dashed overhead level; its label above the line, or below (dy > 0)
 * so that close levels stay readable. */
static void level(FILE *out, const struct frame *fr, double pct, double dy)
{
	double y = py(fr, pct);
	fprintf(out, "<line class=\"level\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		     "stroke=\"#999\" stroke-dasharray=\"4 3\"/>"
		     "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#777\">%g%%</text>\n",
		LEFT, y, LEFT + PLOT_W, y, LEFT + PLOT_W + 4, y + dy, pct);
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

int frontier_write_svg(FILE *out, const struct frontier *f, const char *title)
{
	struct frame fr = { (double)f->lb_noswap, (double)f->lb_noswap, 0 };
	for (size_t i = 0; i < f->nrows; i++)
		for (size_t s = 0; s < f->nstrategies; s++) {
			const struct frontier_cell *c = &f->rows[i].cells[s];
			if (!c->fits || !isfinite(c->overhead))
				continue;
			if ((double)c->pool < fr.x_lo)
				fr.x_lo = (double)c->pool;
			if ((double)c->pool > fr.x_hi)
				fr.x_hi = (double)c->pool;
			if (c->overhead > fr.y_hi)
				fr.y_hi = c->overhead;
		}
	/* the 2% level always shows; headroom above the highest point */
	if (fr.y_hi < 2.5)
		fr.y_hi = 2.5;
	double ystep = axis_tick_step(fr.y_hi / 6);
	fr.y_hi = ceil(fr.y_hi * 1.05 / ystep) * ystep;
	double span = fr.x_hi - fr.x_lo;
	if (!(span > 0))
		span = fr.x_hi > 0 ? fr.x_hi / 10 : 1;
	fr.x_lo -= span * 0.05;
	if (fr.x_lo < 0)
		fr.x_lo = 0;
	fr.x_hi += span * 0.05;
	const char *uname;
	double unit = axis_unit(fr.x_hi, &uname);
	double xstep = axis_tick_step((fr.x_hi - fr.x_lo) / unit / 8) * unit;

	char a[32];
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		     "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" role=\"img\">\n",
		PIC_W, PIC_H, PIC_W, PIC_H);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(out, "<text x=\"%.1f\" y=\"24\" font-size=\"16\" font-weight=\"bold\">memplan swap frontier: ",
		LEFT);
	title_text(out, title, 60);
	fprintf(out, "</text>\n<text x=\"%.1f\" y=\"44\" font-size=\"12\" fill=\"#555\">"
		     "predicted overhead over the pool on ",
		LEFT);
	xml_escape(out, f->link.name);
	fprintf(out, "; %zu budgets from %.4g%% of the lower bound without swaps (%s)</text>\n",
		f->nrows, f->nrows ? f->rows[0].percent : 100.0,
		cli_format_size(f->lb_noswap, a, sizeof(a)));

	/* axes and ticks */
	fprintf(out, "<g class=\"axes\" font-size=\"12\" fill=\"#333\">\n");
	for (double k = 0; k * ystep <= fr.y_hi * (1 + 1e-9); k++) {
		double v = k * ystep, y = py(&fr, v);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			LEFT, y, LEFT + PLOT_W, y, LEFT - 6, y + 4, v);
	}
	for (double k = ceil(fr.x_lo / xstep); k * xstep <= fr.x_hi; k++) {
		double v = k * xstep, x = px(&fr, v);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
			x, TOP + PLOT_H, x, TOP + PLOT_H + 5, x, TOP + PLOT_H + 18,
			v / unit);
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
		     "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		LEFT, TOP + PLOT_H, LEFT + PLOT_W, TOP + PLOT_H, LEFT, TOP, LEFT,
		TOP + PLOT_H);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">pool (%s)</text>\n",
		LEFT + PLOT_W / 2, PIC_H - 16, uname);
	fprintf(out, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">"
		     "predicted overhead (%%)</text>\n",
		TOP + PLOT_H / 2);
	fprintf(out, "</g>\n");
	level(out, &fr, 1, 10);
	level(out, &fr, 2, -2);
	double lbx = px(&fr, (double)f->lb_noswap);
	fprintf(out, "<line class=\"lower-bound\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		     "stroke=\"#c00\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>"
		     "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#c00\" text-anchor=\"end\">"
		     "no-swap lower bound %s</text>\n",
		lbx, TOP, lbx, TOP + PLOT_H, lbx - 4, TOP + 12,
		cli_format_size(f->lb_noswap, a, sizeof(a)));

	struct point *pt = malloc((f->nrows ? f->nrows : 1) * sizeof(*pt));
	if (!pt)
		return -1;
	for (size_t s = 0; s < f->nstrategies; s++) {
		const char *col = colors[s % NCOLORS];
		size_t n = 0;
		for (size_t i = 0; i < f->nrows; i++) {
			const struct frontier_cell *c = &f->rows[i].cells[s];
			if (c->fits && isfinite(c->overhead))
				pt[n++] = (struct point){ (double)c->pool, c->overhead, i };
		}
		qsort(pt, n, sizeof(*pt), by_pool);
		fprintf(out, "<g class=\"strategy\" id=\"s-%s\">", f->strategies[s]);
		if (n > 1) {
			fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
				col);
			for (size_t j = 0; j < n; j++)
				fprintf(out, "%s%.1f,%.1f", j ? " " : "",
					px(&fr, pt[j].x), py(&fr, pt[j].y));
			fprintf(out, "\"/>");
		}
		fprintf(out, "\n");
		/*
		 * One marker per distinct plan: budgets that give the same pool
		 * and overhead share it, and say so (a bigger marker, "x N" and
		 * the budgets in its tooltip), so one dot never hides 33 budgets.
		 */
		size_t distinct = 0;
		for (size_t j = 0; j < n;) {
			size_t e = j + 1;
			while (e < n && pt[e].x == pt[j].x && pt[e].y == pt[j].y)
				e++;
			double lo = 100, hi = 0;
			for (size_t k = j; k < e; k++) {
				double pc = f->rows[pt[k].row].percent;
				lo = pc < lo ? pc : lo;
				hi = pc > hi ? pc : hi;
			}
			double cx = px(&fr, pt[j].x), cy = py(&fr, pt[j].y);
			fprintf(out, "<circle class=\"plan\" data-budgets=\"%zu\" cx=\"%.1f\" cy=\"%.1f\" "
				     "r=\"%.1f\" fill=\"%s\"%s><title>%s",
				e - j, cx, cy, e - j > 1 ? 5.5 : 3.5, col,
				e - j > 1 ? " stroke=\"#fff\" stroke-width=\"1.5\"" : "",
				f->strategies[s]);
			if (e - j > 1)
				fprintf(out, ": the same plan at %zu budgets, %.4g%% to %.4g%%", e - j,
					lo, hi);
			else
				fprintf(out, " at budget %.4g%%", lo);
			fprintf(out, ": pool %s, overhead %.2f%%</title></circle>",
				cli_format_size((uint64_t)pt[j].x, a, sizeof(a)), pt[j].y);
			if (e - j > 1)
				fprintf(out, "<text class=\"same\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
					     "fill=\"%s\">&#215;%zu</text>",
					cx + 8, cy - 6, col, e - j);
			fprintf(out, "\n");
			distinct++;
			j = e;
		}
		/* the legend: a line, a marker and the name */
		double ly = TOP + 10 + 34.0 * (double)s, lx = LEFT + PLOT_W + 40;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
			     "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s (%zu fit",
			lx, ly, lx + 24, ly, col, lx + 12, ly, col, lx + 30, ly + 4,
			f->strategies[s], n);
		fprintf(out, ")</text>");
		if (distinct < n)
			fprintf(out, "<text class=\"same\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#555\">"
				     "%zu distinct plan%s</text>",
				lx + 30, ly + 17, distinct, distinct == 1 ? "" : "s");
		fprintf(out, "</g>\n");
	}
	free(pt);
	fprintf(out, "</svg>\n");
	return ferror(out) ? -1 : 0;
}
