/* SPDX-License-Identifier: MIT */
/*
 * frontier_svg.c - draws a swap frontier (frontier.h) as SVG for
 * memplan-plan frontier -o: predicted overhead over the pool, one polyline
 * with markers per strategy (its fitting budgets, by pool), the 1% and 2%
 * levels, the no-swap lower bound, ticks and a legend.  The element count
 * grows with budgets x strategies only, never with the trace.
 *
 * The band people choose in, 0 to 20% overhead, keeps most of the plot's
 * height: when a point lies above Y_CAP the axis breaks there, and the
 * points above it share a compressed band at the top (ticked at the cap and
 * at the most), so a 350% point no longer squashes the 1% level to a pixel.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "cli.h"
#include "frontier.h"
#include "xml.h"

#define PIC_W 920.0
#define PIC_H 560.0
#define LEFT 80.0
#define RIGHT 190.0 /* the legend sits right of the plot */
#define TOP 60.0
#define BOTTOM 60.0
#define PLOT_W (PIC_W - LEFT - RIGHT)
#define PLOT_H (PIC_H - TOP - BOTTOM)

static const char *const colors[] = { "#4e79a7", "#f28e2b", "#59a14f",
				      "#e15759", "#b07aa1", "#76b7b2" };
#define NCOLORS (sizeof(colors) / sizeof(colors[0]))

#define Y_CAP 20.0    /* percent: where the axis breaks, when it does */
#define CAP_SHARE 0.8 /* of the plot's height, below the break */

struct frame {
	double x_lo, x_hi; /* bytes */
	double y_hi;       /* percent; y_lo is 0 */
	double cap;        /* the break, percent; 0: one linear axis */
};

static double px(const struct frame *fr, double bytes)
{
	return LEFT + PLOT_W * (bytes - fr->x_lo) / (fr->x_hi - fr->x_lo);
}

static double py(const struct frame *fr, double pct)
{
	if (!fr->cap)
		return TOP + PLOT_H - PLOT_H * pct / fr->y_hi;
	double low = PLOT_H * CAP_SHARE;
	if (pct <= fr->cap)
		return TOP + PLOT_H - low * pct / fr->cap;
	/* above the break: the rest of the height, a gap of 6 px first */
	double band = PLOT_H - low - 6;
	return TOP + band - band * (pct - fr->cap) / (fr->y_hi - fr->cap);
}

/* The recompute strategies (recompute, hybrid and the checkpoint
 * baselines) draw dashed with hollow markers, apart from the swap ones. */
static int is_recompute(const char *name)
{
	static const char *const r[] = { "recompute", "hybrid", "sqrt-n", "every-layer" };
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (strcmp(name, r[i]) == 0)
			return 1;
	return 0;
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
 * The break of the y axis: a white gap across the plot between the band
 * up to the cap and the compressed one above, slanted marks on the axis,
 * and the upper band's ticks (its bottom and its top).
 */
static void axis_break(FILE *out, const struct frame *fr)
{
	double y0 = py(fr, fr->cap), y1 = TOP + PLOT_H - PLOT_H * CAP_SHARE - 6;
	fprintf(out, "<g class=\"axis-break\">"
		     "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\"/>"
		     "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
		     "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>",
		LEFT - 6, y1, PLOT_W + 6, y0 - y1, LEFT - 5, y1 + 2, LEFT + 5, y1 - 2,
		LEFT - 5, y0 + 2, LEFT + 5, y0 - 2);
	double mid = fr->cap + (fr->y_hi - fr->cap) / 2;
	double vals[] = { mid, fr->y_hi };
	for (size_t k = 0; k < 2; k++) {
		double y = py(fr, vals[k]);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>",
			LEFT, y, LEFT + PLOT_W, y, LEFT - 6, y + 4, vals[k]);
	}
	fprintf(out, "</g>\n");
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

/*
 * The markers of strategy s (points pt, by pool): one per distinct plan.
 * Budgets that give the same pool and overhead share one, and say so (a
 * bigger marker, "x N" and the budgets in its tooltip), so one dot never
 * hides 33 budgets.  A marker where another strategy's already is becomes
 * a ring around it, so neither hides the other.  drawn holds the markers
 * so far.  Returns the distinct plans.
 */
static size_t markers(FILE *out, const struct frontier *f, const struct frame *fr,
		      size_t s, const struct point *pt, size_t n,
		      struct point *drawn, size_t *ndrawn)
{
	const char *col = colors[s % NCOLORS];
	int rec = is_recompute(f->strategies[s]);
	char a[32];
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
		double cx = px(fr, pt[j].x), cy = py(fr, pt[j].y);
		double r = e - j > 1 ? 5.5 : 3.5;
		size_t under = 0;
		for (size_t k = 0; k < *ndrawn; k++)
			under += fabs(drawn[k].x - cx) < 4 && fabs(drawn[k].y - cy) < 4;
		r += 4.0 * (double)under;
		int ring = rec || under;
		fprintf(out, "<circle class=\"plan\" data-budgets=\"%zu\" cx=\"%.1f\" cy=\"%.1f\" "
			     "r=\"%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"><title>%s",
			e - j, cx, cy, r, ring ? "none" : col, ring ? col : "#fff",
			ring ? "2" : e - j > 1 ? "1.5" : "0", f->strategies[s]);
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
				cx + r + 3, cy + 4 + 12.0 * (double)under, col, e - j);
		fprintf(out, "\n");
		drawn[(*ndrawn)++] = (struct point){ cx, cy, s };
		distinct++;
		j = e;
	}
	return distinct;
}

/* Strategy s's legend entry: a line, a marker and the name; the swap
 * strategies first, then the recompute ones under a heading of their own
 * (the rows count the strategies before s of each kind). */
static void legend_entry(FILE *out, const struct frontier *f, size_t s,
			 size_t fit, size_t distinct)
{
	const char *col = colors[s % NCOLORS];
	int rec = is_recompute(f->strategies[s]);
	size_t row = 0, nswap = 0;
	for (size_t k = 0; k < f->nstrategies; k++) {
		nswap += !is_recompute(f->strategies[k]);
		if (k < s && is_recompute(f->strategies[k]) == rec)
			row++;
	}
	double lx = LEFT + PLOT_W + 24;
	double ly = TOP + 26 + 34.0 * (double)row + (rec ? 34.0 * (double)nswap + 24 : 0);
	if (row == 0) /* the heading of the group */
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\">%s</text>",
			lx, ly - 16, rec ? "recompute" : "swap to host");
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>"
		     "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>"
		     "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s (%zu fit)</text>",
		lx, ly, lx + 24, ly, col, rec ? " stroke-dasharray=\"7 3\"" : "", lx + 12, ly,
		rec ? "#fff" : col, col, rec ? "2" : "0", lx + 30, ly + 4, f->strategies[s], fit);
	if (distinct < fit)
		fprintf(out, "<text class=\"same\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#555\">"
			     "%zu distinct plan%s</text>",
			lx + 30, ly + 17, distinct, distinct == 1 ? "" : "s");
}

/*
 * The region no plan of bc's kind can reach: a plan predicted at most
 * pct[i+1] slower has a pool of at least bytes[i+1], so over (pct[i],
 * pct[i+1]] everything left of bytes[i+1] is out of reach (the bound only
 * falls as the overhead grows); a staircase from the bottom to the top of
 * the plot, shaded left of it, with its name in the legend.
 */
static void bound_region(FILE *out, const struct frame *fr,
			 const struct frontier_bound_curve *bc)
{
	char a[32];
	fprintf(out, "<g class=\"bound\" data-kind=\"%s\"><path fill=\"#e8e8e8\" fill-opacity=\"0.7\" "
		     "stroke=\"#888\" stroke-width=\"1\" d=\"M%.1f,%.1f",
		bc->kind, LEFT, py(fr, 0));
	double last_y = 0;
	for (size_t i = 0; i < bc->n; i++) {
		if (!bc->bytes[i])
			continue;
		double x = px(fr, (double)bc->bytes[i]);
		if (x < LEFT)
			x = LEFT;
		if (x > LEFT + PLOT_W)
			x = LEFT + PLOT_W;
		double hi = bc->pct[i] < fr->y_hi ? bc->pct[i] : fr->y_hi;
		/* over (previous level, this one]: left of this level's bound */
		fprintf(out, " L%.1f,%.1f L%.1f,%.1f", x, py(fr, last_y), x, py(fr, hi));
		last_y = hi;
		if (hi >= fr->y_hi)
			break;
	}
	fprintf(out, " L%.1f,%.1f Z\"><title>no %s plan can be here (proven: memplan-plan(1), BOUNDS)",
		LEFT, py(fr, last_y), bc->kind);
	for (size_t i = 0; i < bc->n; i++)
		if (bc->bytes[i] && (bc->pct[i] == 1 || bc->pct[i] == 2))
			fprintf(out, "; within %g%%: pool at least %s", bc->pct[i],
				cli_format_size(bc->bytes[i], a, sizeof(a)));
	fprintf(out, "</title></path>");
	/* its legend entry, under the strategies' */
	double lx = LEFT + PLOT_W + 24, ly = TOP + PLOT_H - 12;
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"12\" fill=\"#e8e8e8\" stroke=\"#888\"/>"
		     "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">no %s plan</text>"
		     "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#555\">can be here (proven)</text></g>\n",
		lx, ly - 16, lx + 30, ly - 6, bc->kind, lx + 30, ly + 8);
}

int frontier_write_svg(FILE *out, const struct frontier *f, const char *title,
		       const struct frontier_bound_curve *bc)
{
	struct frame fr = { (double)f->lb_noswap, (double)f->lb_noswap, 0, 0 };
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
	/* the 2% level always shows; headroom above the highest point; a
	 * break at Y_CAP when the highest is well above it */
	if (fr.y_hi < 2.5)
		fr.y_hi = 2.5;
	double ystep;
	if (fr.y_hi > Y_CAP * 1.25) {
		fr.cap = Y_CAP;
		ystep = 5;
		double top_step = axis_tick_step(fr.y_hi / 6);
		fr.y_hi = ceil(fr.y_hi * 1.02 / top_step) * top_step;
	} else {
		ystep = axis_tick_step(fr.y_hi / 6);
		fr.y_hi = ceil(fr.y_hi * 1.05 / ystep) * ystep;
	}
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
	fprintf(out, "; %zu budgets from %.4g%% of the no-swap lower bound (%s)%s</text>\n",
		f->nrows, f->nrows ? f->rows[0].percent : 100.0,
		cli_format_size(f->lb_noswap, a, sizeof(a)),
		fr.cap ? "; axis broken above 20%" : "");

	/* axes and ticks */
	fprintf(out, "<g class=\"axes\" font-size=\"12\" fill=\"#333\">\n");
	double ytop = fr.cap ? fr.cap : fr.y_hi;
	for (double k = 0; k * ystep <= ytop * (1 + 1e-9); k++) {
		double v = k * ystep, y = py(&fr, v);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			LEFT, y, LEFT + PLOT_W, y, LEFT - 6, y + 4, v);
	}
	if (fr.cap)
		axis_break(out, &fr);
	for (double k = ceil(fr.x_lo / xstep); k * xstep <= fr.x_hi; k++) {
		double v = k * xstep, x = px(&fr, v);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
			x, TOP + PLOT_H, x, TOP + PLOT_H + 5, x, TOP + PLOT_H + 18,
			v / unit);
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		LEFT, TOP + PLOT_H, LEFT + PLOT_W, TOP + PLOT_H);
	if (fr.cap) /* the y axis in two pieces, the break between */
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
			     "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
			LEFT, py(&fr, fr.cap), LEFT, TOP + PLOT_H, LEFT, TOP, LEFT,
			TOP + PLOT_H - PLOT_H * CAP_SHARE - 6);
	else
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
			LEFT, TOP, LEFT, TOP + PLOT_H);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">pool (%s)</text>\n",
		LEFT + PLOT_W / 2, PIC_H - 16, uname);
	fprintf(out, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">"
		     "predicted overhead (%%)</text>\n",
		TOP + PLOT_H / 2);
	fprintf(out, "</g>\n");
	if (bc && bc->n)
		bound_region(out, &fr, bc);
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
	struct point *drawn = malloc((f->nrows * f->nstrategies + 1) * sizeof(*drawn));
	if (!pt || !drawn) {
		free(pt);
		free(drawn);
		return -1;
	}
	size_t ndrawn = 0;
	for (size_t s = 0; s < f->nstrategies; s++) {
		const char *col = colors[s % NCOLORS];
		int rec = is_recompute(f->strategies[s]);
		size_t n = 0;
		for (size_t i = 0; i < f->nrows; i++) {
			const struct frontier_cell *c = &f->rows[i].cells[s];
			if (c->fits && isfinite(c->overhead))
				pt[n++] = (struct point){ (double)c->pool, c->overhead, i };
		}
		qsort(pt, n, sizeof(*pt), by_pool);
		fprintf(out, "<g class=\"strategy\" id=\"s-%s\" data-kind=\"%s\">", f->strategies[s],
			rec ? "recompute" : "swap");
		if (n > 1) {
			fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
				col, rec ? " stroke-dasharray=\"7 3\"" : "");
			for (size_t j = 0; j < n; j++)
				fprintf(out, "%s%.1f,%.1f", j ? " " : "",
					px(&fr, pt[j].x), py(&fr, pt[j].y));
			fprintf(out, "\"/>");
		}
		fprintf(out, "\n");
		size_t distinct = markers(out, f, &fr, s, pt, n, drawn, &ndrawn);
		legend_entry(out, f, s, n, distinct);
		fprintf(out, "</g>\n");
	}
	free(drawn);
	free(pt);
	fprintf(out, "</svg>\n");
	return ferror(out) ? -1 : 0;
}
