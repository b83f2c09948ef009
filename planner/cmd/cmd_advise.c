/* SPDX-License-Identifier: MIT */
/*
 * cmd_advise.c - memplan-plan advise: for a budget and a link, which
 * tensors the program should recompute, which the runtime swaps and which
 * stay (recomp_advise(), recompute.h), per tensor, per layer and per
 * operator kind, with the predicted pool and overhead; --trace-out writes
 * the trace of the program once it recomputes, on which compile --budget
 * makes the plan the runtime follows.  The framework part is advice.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "cmd.h"
#include "json.h"
#include "recompute.h"
#include "swapbound.h"
#include "tracedb.h"

static const char *const action_names[] = { "keep", "swap", "recompute" };

/* One row of an aggregate: a layer or an operator kind. */
struct agg {
	char key[96];
	size_t n[3];
	uint64_t bytes[3];
	double cost_ns;
};

static struct agg *agg_find(struct agg **a, size_t *n, size_t *cap,
			    const char *key)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*a)[i].key, key) == 0)
			return &(*a)[i];
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct agg *g = realloc(*a, c * sizeof(*g));
		if (!g)
			return NULL;
		*a = g;
		*cap = c;
	}
	struct agg *g = &(*a)[(*n)++];
	memset(g, 0, sizeof(*g));
	snprintf(g->key, sizeof(g->key), "%s", key);
	return g;
}

static int agg_cmp(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;
	uint64_t ma = a->bytes[1] + a->bytes[2], mb = b->bytes[1] + b->bytes[2];
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(a->key, b->key);
}

struct report {
	struct agg *layers, *kinds;
	size_t nlayers, nkinds, caplayers, capkinds;
};

static int aggregate(const struct recomp_model *m,
		     const struct recomp_advice *a, struct report *r)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < m->n; i++) {
		if (m->b[i].item < 0)
			continue;
		char layer[96], kind[96];
		recomp_layer(m->t->buffers[i].label, layer, sizeof(layer));
		recomp_kind(m, i, kind, sizeof(kind));
		struct agg *l = agg_find(&r->layers, &r->nlayers, &r->caplayers, layer);
		struct agg *k = agg_find(&r->kinds, &r->nkinds, &r->capkinds, kind);
		if (!l || !k)
			return -1;
		unsigned act = a->action[i];
		l->n[act]++;
		k->n[act]++;
		l->bytes[act] += m->b[i].bytes;
		k->bytes[act] += m->b[i].bytes;
		l->cost_ns += a->cost_ns[i];
		k->cost_ns += a->cost_ns[i];
	}
	if (r->nlayers) /* qsort's base may not be NULL, even for 0 */
		qsort(r->layers, r->nlayers, sizeof(*r->layers), agg_cmp);
	if (r->nkinds)
		qsort(r->kinds, r->nkinds, sizeof(*r->kinds), agg_cmp);
	return 0;
}

static void print_aggs(const char *title, const struct agg *g, size_t n)
{
	char a[32], b[32];
	printf("\nper %s (swapped or recomputed bytes, most first):\n"
	       "  %-36s %7s %10s %7s %10s %10s\n", title, title,
	       "recomp", "bytes", "swap", "bytes", "cost ms");
	for (size_t i = 0; i < n; i++) {
		if (!g[i].n[1] && !g[i].n[2])
			continue;
		printf("  %-36s %7zu %10s %7zu %10s %10.3f\n", g[i].key,
		       g[i].n[2], cli_format_size(g[i].bytes[2], a, sizeof(a)),
		       g[i].n[1], cli_format_size(g[i].bytes[1], b, sizeof(b)),
		       g[i].cost_ns / 1e6);
	}
}

/* A kernel's name for reports, "-" for none. */
static const char *ev_name(const struct trace *t, int64_t ev)
{
	return ev >= 0 && t->events[ev].name ? t->events[ev].name : "-";
}

/* The re-runs of more than one tensor or that draw random numbers: which
 * checkpoint each starts from, which kernels it runs, what it costs. */
static void print_reruns(const struct recomp_model *m,
			 const struct recomp_advice *a)
{
	const struct recomp_groups *g = &a->groups;
	size_t *n = calloc(g->ngroups ? g->ngroups : 1, sizeof(*n));
	uint64_t *b = calloc(g->ngroups ? g->ngroups : 1, sizeof(*b));
	if (!n || !b)
		goto out;
	for (size_t i = 0; i < m->n; i++)
		if (g->group[i] >= 0) {
			n[g->group[i]]++;
			b[g->group[i]] += m->b[i].bytes;
		}
	size_t shown = 0, total = 0;
	for (size_t k = 0; k < g->ngroups; k++) {
		if (!n[k])
			continue;
		total++;
		if (n[k] < 2 && !g->rng[k])
			continue;
		if (!shown++)
			printf("\nsegments (re-runs of several tensors, or of random draws), each charged once:\n");
		char s1[32];
		const char *ck = g->ckpt[k] >= 0 ? m->t->buffers[g->ckpt[k]].label : NULL;
		printf("  re-run %zu: %zu tensors (%s) from checkpoint %s, %u kernels '%s' .. '%s', before '%s', %.3f ms%s\n",
		       k, n[k], cli_format_size(b[k], s1, sizeof(s1)),
		       g->ckpt[k] < 0 ? "- (weights only)" : ck ? ck : "(unlabelled)",
		       g->nkernels[k], ev_name(m->t, g->first[k]),
		       ev_name(m->t, g->last[k]), ev_name(m->t, g->at[k]),
		       g->cost_ns[k] / 1e6,
		       g->rng[k] ? "; restores the random generator's state" : "");
	}
	if (total)
		printf("%zu re-runs in all (%zu of several tensors or random)\n", total, shown);
out:
	free(n);
	free(b);
}

/* A recomputed tensor's module and operator, and where it came first. */
struct modop {
	char layer[96], kind[96];
	size_t first; /* the module's first recomputed tensor */
	size_t i;     /* this tensor */
};

static int modop_by_name(const void *pa, const void *pb)
{
	const struct modop *a = pa, *b = pb;
	int c = strcmp(a->layer, b->layer);
	if (!c)
		c = strcmp(a->kind, b->kind);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int modop_by_first(const void *pa, const void *pb)
{
	const struct modop *a = pa, *b = pb;
	if (a->first != b->first)
		return (a->first > b->first) - (a->first < b->first);
	return (a->i > b->i) - (a->i < b->i);
}

/* The operators to recompute per module, as a Python literal that a
 * selective-checkpointing policy can look names up in: each module once,
 * in the order the program first uses it, with its operators once each
 * (a module's tensors often share an operator: a dropout's output and
 * mask). */
static void print_pytorch(const struct recomp_model *m,
			  const struct recomp_advice *a)
{
	int rng = 0;
	for (size_t k = 0; k < a->groups.ngroups; k++)
		rng |= a->groups.rng[k];
	printf("\nfor PyTorch (advice: recompute these operators of these modules,\n"
	       "e.g. CheckpointPolicy.MUST_RECOMPUTE in a policy given to\n"
	       "torch.utils.checkpoint.create_selective_checkpoint_contexts;\n"
	       "memplan cannot check that the program does it):\n"
	       "MEMPLAN_RECOMPUTE = {\n");
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++)
		k += a->action[i] == RECOMP_RECOMPUTE;
	struct modop *e = k ? malloc(k * sizeof(*e)) : NULL;
	if (k && !e) {
		printf("}\n(out of memory listing the operators)\n");
		return;
	}
	k = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (a->action[i] != RECOMP_RECOMPUTE)
			continue;
		recomp_layer(m->t->buffers[i].label, e[k].layer,
			     sizeof(e[k].layer));
		recomp_kind(m, i, e[k].kind, sizeof(e[k].kind));
		e[k].i = e[k].first = i;
		k++;
	}
	/* by module, then operator, then program order: a module's first
	 * tensor is its run's first; duplicates of an operator dropped */
	if (k) /* nothing recomputed: e is NULL, which qsort may not take */
		qsort(e, k, sizeof(*e), modop_by_name);
	size_t w = 0;
	for (size_t r = 0; r < k; r++) {
		if (w && !strcmp(e[w - 1].layer, e[r].layer) &&
		    !strcmp(e[w - 1].kind, e[r].kind))
			continue;
		e[w++] = e[r];
	}
	/* a module's operators all carry its first tensor's index; the
	 * run of a module in the sorted list starts with its least index */
	for (size_t r = 0; r < w;) {
		size_t end = r, lo = e[r].i;
		while (end < w && !strcmp(e[end].layer, e[r].layer)) {
			if (e[end].i < lo)
				lo = e[end].i;
			end++;
		}
		for (size_t q = r; q < end; q++)
			e[q].first = lo;
		r = end;
	}
	if (w)
		qsort(e, w, sizeof(*e), modop_by_first);
	for (size_t r = 0; r < w;) {
		printf("    \"%s\": [", e[r].layer);
		size_t q = r;
		for (; q < w && e[q].first == e[r].first; q++)
			printf("%s\"%s\"", q > r ? ", " : "", e[q].kind);
		printf("],\n");
		r = q;
	}
	free(e);
	printf("}\n");
	if (rng)
		printf("(some re-runs draw random numbers (dropout): keep preserve_rng_state=True,\n"
		       "the default of torch.utils.checkpoint, so that each re-run restores the\n"
		       "generator's state and draws the same numbers)\n");
}

static void print_text(const char *path, const struct link_model *l,
		       uint64_t budget, uint64_t lb,
		       const struct recomp_model *m,
		       const struct recomp_advice *a, const struct report *r,
		       uint64_t bound)
{
	char s1[32], s2[32], s3[32], s4[32];
	printf("%s: %s for budget %s over %s: pool %s (%" PRIu64 "), %.1f%% below the lower bound %s; "
	       "%.3f ms vs %.3f ms, overhead %.2f%%\n",
	       path, a->strategy, cli_format_size(budget, s1, sizeof(s1)),
	       l->name, cli_format_size(a->plan.pool_size, s2, sizeof(s2)),
	       a->plan.pool_size,
	       lb ? 100.0 * (1.0 - (double)a->plan.pool_size / (double)lb) : 0.0,
	       cli_format_size(lb, s3, sizeof(s3)), a->sim.iter_ns / 1e6,
	       a->sim.base_ns / 1e6, sim_overhead(&a->sim));
	if (bound)
		printf("bound: no %s plan predicted within %.2f%% has a pool below %s (%" PRIu64
		       "); this one is %.1f%% above it (memplan-plan(1), BOUNDS)\n",
		       strcmp(a->strategy, "hybrid") == 0 ? "hybrid" : "recompute-only",
		       sim_overhead(&a->sim), cli_format_size(bound, s1, sizeof(s1)),
		       bound, 100.0 * ((double)a->plan.pool_size / (double)bound - 1.0));
	printf("recompute %zu tensors (%s), swap %zu (%s); %zu of %zu tensors can be recomputed\n",
	       a->nrecompute, cli_format_size(a->recomputed, s1, sizeof(s1)),
	       a->nswap, cli_format_size(a->swapped, s4, sizeof(s4)),
	       m->ncand, m->p->n);
	size_t why[RECOMP_WHY_COUNT] = { 0 };
	for (size_t i = 0; i < m->n; i++)
		if (m->b[i].item >= 0)
			why[m->b[i].why]++;
	printf("not recomputable:");
	int any = 0;
	for (unsigned w = RECOMP_NOT_PLANNED + 1; w < RECOMP_WHY_COUNT; w++)
		if (why[w]) {
			printf("%s %s %zu", any ? "," : "", recomp_why_name(w), why[w]);
			any = 1;
		}
	printf("%s\n", any ? "" : " none");
	print_aggs("operator", r->kinds, r->nkinds);
	print_aggs("layer", r->layers, r->nlayers);
	printf("\nper tensor (swapped or recomputed):\n  %8s %-40s %-9s %10s %10s\n",
	       "buffer", "label", "action", "bytes", "cost us");
	for (size_t i = 0; i < m->n; i++) {
		if (a->action[i] == RECOMP_KEEP)
			continue;
		const char *lab = m->t->buffers[i].label;
		printf("  %8zu %-40s %-9s %10" PRIu64 " %10.1f\n", i,
		       lab ? lab : "-", action_names[a->action[i]],
		       m->b[i].bytes, a->cost_ns[i] / 1e3);
	}
	print_reruns(m, a);
	print_pytorch(m, a);
}

static void print_json(const char *path, const char *tout,
		       const struct link_model *l,
		       uint64_t budget, uint64_t lb,
		       const struct recomp_model *m,
		       const struct recomp_advice *a, const struct report *r,
		       uint64_t bound)
{
	struct json j;
	json_init(&j, stdout);
	json_object(&j, NULL);
	json_string(&j, "trace", path);
	json_string(&j, "strategy", a->strategy);
	json_string(&j, "trace_out", tout);
	json_string(&j, "link", l->name);
	json_u64(&j, "budget", budget);
	json_u64(&j, "lower_bound_noswap", lb);
	json_u64(&j, "pool", a->plan.pool_size);
	json_i64(&j, "base_ns", (int64_t)llround(a->sim.base_ns));
	json_i64(&j, "iter_ns", (int64_t)llround(a->sim.iter_ns));
	json_double(&j, "overhead_percent", sim_overhead(&a->sim));
	if (bound)
		json_u64(&j, "bound_pool", bound);
	else
		json_null(&j, "bound_pool");
	json_u64(&j, "recomputed_bytes", a->recomputed);
	json_u64(&j, "swapped_bytes", a->swapped);
	json_array(&j, "decisions");
	for (size_t i = 0; i < m->n; i++) {
		if (m->b[i].item < 0)
			continue;
		char layer[96], kind[96];
		recomp_layer(m->t->buffers[i].label, layer, sizeof(layer));
		recomp_kind(m, i, kind, sizeof(kind));
		json_object(&j, NULL);
		json_u64(&j, "buffer", i);
		json_string(&j, "label", m->t->buffers[i].label);
		json_string(&j, "layer", layer);
		json_string(&j, "operator", kind);
		json_string(&j, "action", action_names[a->action[i]]);
		json_u64(&j, "bytes", m->b[i].bytes);
		json_i64(&j, "cost_ns", (int64_t)llround(a->cost_ns[i]));
		int32_t g = a->groups.group ? a->groups.group[i] : -1;
		if (a->action[i] == RECOMP_RECOMPUTE && g >= 0) {
			const struct recomp_groups *G = &a->groups;
			json_i64(&j, "rerun", g);
			json_i64(&j, "rerun_kernels", G->nkernels[g]);
			json_i64(&j, "rerun_cost_ns", (int64_t)llround(G->cost_ns[g]));
			json_string(&j, "checkpoint", G->ckpt[g] >= 0
				    ? m->t->buffers[G->ckpt[g]].label : NULL);
			json_bool(&j, "restore_rng", G->rng[g]);
		}
		if (m->b[i].why != RECOMP_OK && a->action[i] != RECOMP_RECOMPUTE)
			json_string(&j, "not_recomputable", recomp_why_name(m->b[i].why));
		json_object_end(&j);
	}
	json_array_end(&j);
	for (int pass = 0; pass < 2; pass++) {
		const struct agg *g = pass ? r->layers : r->kinds;
		size_t n = pass ? r->nlayers : r->nkinds;
		json_array(&j, pass ? "layers" : "operators");
		for (size_t i = 0; i < n; i++) {
			json_object(&j, NULL);
			json_string(&j, "name", g[i].key);
			json_u64(&j, "recompute", g[i].n[2]);
			json_u64(&j, "recompute_bytes", g[i].bytes[2]);
			json_u64(&j, "swap", g[i].n[1]);
			json_u64(&j, "swap_bytes", g[i].bytes[1]);
			json_i64(&j, "cost_ns", (int64_t)llround(g[i].cost_ns));
			json_object_end(&j);
		}
		json_array_end(&j);
	}
	json_object_end(&j);
	json_finish(&j);
}

const char cmd_advise_options[] =
	"  -b, --budget SIZE|PCT%   the memory budget of the pool, as compile's\n"
	"                           (required)\n"
	"  -l, --link MODEL         the host<->device link (default measured when the\n"
	"                           trace has bandwidths, else pcie5)\n"
	"  -s, --strategy S         hybrid (keep, swap or recompute per tensor),\n"
	"                           recompute (recompute only), or the checkpoint\n"
	"                           baselines sqrt-n and every-layer (default hybrid)\n"
	"  -x, --max-overhead P     exit 1 when the advice is predicted more than P%\n"
	"                           slower (default: no limit)\n"
	"  -T, --trace-out TRACE    also write the trace of the program that recomputes\n"
	"  -j, --json               print the result as one JSON object\n"
	"  -q, --quiet              no progress line on stderr (there is one only\n"
	"                           when stderr is a terminal)\n"
	"  -h, --help               this text\n";

int cmd_advise(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "budget", required_argument, NULL, 'b' },
		{ "link", required_argument, NULL, 'l' },
		{ "max-overhead", required_argument, NULL, 'x' },
		{ "strategy", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "trace-out", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *budget_s = NULL, *link_s = NULL, *tout = NULL;
	const char *strategy = "hybrid";
	double max_over = INFINITY;
	int json = 0, quiet = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:l:x:s:jT:qh", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'b': budget_s = optarg; break;
		case 'l': link_s = optarg; break;
		case 's': strategy = optarg; break;
		case 'j': json = 1; break;
		case 'T': tout = optarg; break;
		case 'q': quiet = 1; break;
		case 'x':
			max_over = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%") != 0) ||
			    !(max_over >= 0) || !isfinite(max_over))
				return cli_usage_error("advise: --max-overhead '%s' is not a percentage (0 or more)",
						       optarg);
			break;
		default:
			return cli_option_error(c, "advise");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("advise: expected one TRACE");
	if (!budget_s)
		return cli_usage_error("advise: --budget SIZE|PCT%% is required");
	if (!recomp_is_strategy(strategy))
		return cli_usage_error("advise: unknown --strategy '%s' (known: hybrid, recompute, sqrt-n, every-layer)",
				       strategy);
	const char *path = argv[optind];
	if (tout && cli_same_file(path, tout))
		return cli_usage_error("advise: --trace-out '%s' is the input: write it elsewhere",
				       tout);
	uint64_t align = 0, budget;
	struct trace *t = NULL;
	struct solver_problem p;
	struct swap_ctx sc = { 0 };
	struct recomp_model m = { 0 };
	struct recomp_advice a = { 0 };
	struct report r = { 0 };
	struct link_model l;
	char err[ERRLEN];
	int status = cmd_load_problem(path, &align, 0, &t, &p);
	if (status)
		goto done;
	uint64_t lb = solver_lower_bound(&p);
	status = cmd_parse_budget("advise", budget_s, lb, &budget);
	if (status)
		goto done;
	if (budget < lb && cmd_swap_blind(t, err, sizeof(err))) {
		status = cmd_refuse_swaps("advise", path, lb, err);
		goto done;
	}
	status = cmd_pick_link(link_s, t, &l);
	if (status)
		goto done;
	struct cli_progress line;
	char bs[32];
	cli_progress_start(&line, quiet);
	cli_progress_say(&line, "advise: modelling the swaps and recomputes of %zu buffers", p.n);
	int rc = swap_ctx_init(&sc, t, &p, &l, err, sizeof(err));
	if (!rc)
		rc = recomp_model_init(&m, t, &p, err, sizeof(err));
	cli_progress_say(&line, "advise: planning %s for a pool of %s", strategy,
			 cli_format_size(budget, bs, sizeof(bs)));
	if (!rc)
		rc = recomp_advise(&sc, strategy, budget, "best-fit", align, &a,
				   err, sizeof(err));
	cli_progress_end(&line);
	if (rc) {
		cli_error("no advice fits --budget %" PRIu64 " bytes for trace '%s': %s",
			  budget, path, err);
		status = cmd_swap_exit(rc);
		goto done;
	}
	if (tout) {
		rc = trace_save(a.t2, tout, err, sizeof(err));
		if (rc) {
			cli_error("%s", err);
			status = cli_exit_for(rc, 1);
			goto done;
		}
	}
	if (aggregate(&m, &a, &r)) {
		cli_error("out of memory advising on trace '%s'", path);
		status = MP_EXIT_INTERNAL;
		goto done;
	}
	/* how far from the best any plan of its kind could do at its own
	 * overhead (swapbound.h); 0 when it cannot be computed */
	uint64_t bound = 0;
	struct swap_bound sb;
	double on = sim_overhead(&a.sim) / 100.0 * a.sim.base_ns;
	if (swapbound_compute_space(t, &l, strcmp(a.strategy, "hybrid") == 0
					   ? SWAPBOUND_HYBRID : SWAPBOUND_RECOMPUTE,
				    on > 0 ? on : 0, &sb, err, sizeof(err)) == 0 &&
	    sb.computed)
		bound = sb.bytes;
	if (json)
		print_json(path, tout, &l, budget, lb, &m, &a, &r, bound);
	else
		print_text(path, &l, budget, lb, &m, &a, &r, bound);
	if (tout && !json)
		printf("%s: the trace of the program that recomputes, %zu buffers, %zu events\n",
		       tout, a.t2->nbuffers, a.t2->nevents);
	if (fflush(stdout) != 0) {
		status = MP_EXIT_OUTPUT;
		goto done;
	}
	if (sim_overhead(&a.sim) > max_over) {
		cli_error("the advice for trace '%s' predicts %.2f%% overhead, above --max-overhead %g%%",
			  path, sim_overhead(&a.sim), max_over);
		status = MP_EXIT_LIMIT;
	}
done:
	free(r.layers);
	free(r.kinds);
	recomp_advice_free(&a);
	recomp_model_free(&m);
	swap_ctx_free(&sc);
	solver_problem_free(&p);
	trace_free(t);
	return status;
}
