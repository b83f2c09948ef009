/* SPDX-License-Identifier: MIT */
/*
 * bench_placement.c - the placement table of issue 16, side by side in one
 * run: for each instance, `memplan-plan compile --time-limit 2 --json` run
 * as a child process, with the lower bound, the pool, their ratio, what
 * ended the search, the child's wall and CPU time and its peak RSS (wait4's
 * rusage, so the figures are the command's own, preparation included).
 * Instances: three large DL-shaped MiniMalloc CSVs generated here (the
 * sizes of MindSpore's PanGu-2.6B and IOPDDL's S_1 and Y_1, which are not
 * shipped: same shape of workload, not the same instances), then A-K and
 * somas-resnet50 from $SHARED_DATA/placement when present, then twelve
 * guillotine-packed instances whose optimum is the lower bound
 * (packed-24 ... packed-35, the seeds of test_solver_exact), then any CSV
 * named with --csv NAME=PATH (PanGu-2.6B, which is not shipped).
 * --packed FIRST-LAST runs other seeds of the packed class, --shape NAME
 * other shapes of its construction (guillotine.h: big for 300-450 buffers,
 * rand, deep, shallow, small, big-rand; large and huge for 1,500-2,000 and
 * 5,800-5,900), --packed-only nothing else.
 * --deterministic[=W] passes compile's work limit instead of the time limit
 * (the same pools under any load: what to compare on a busy machine).
 * --write DIR only writes the generated CSVs (for profiling by hand).
 * --skyline-nodes N runs no child: the skyline search alone
 * (solver_search_skyline()) on each packed seed, in this process, with N
 * nodes and no clock, and prints its nodes, whether it reached the bound
 * and its CPU time (the nodes are the same on any machine: what to
 * compare changes to that search by).  --guillotine-steps N: the same
 * with the guillotine search (solver_search_guillotine()), N steps.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../unit/planner/placement/guillotine.h"
#include "solver.h"

/* --- a deterministic DL-shaped instance ---------------------------------- */

struct rec {
	int64_t lower, upper;
	uint64_t size;
};

struct gen {
	struct rec *r;
	size_t n, cap;
	int64_t t; /* the clock: one tick per operator */
	uint64_t rng;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static size_t born(struct gen *g, uint64_t size)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 4096;
		g->r = realloc(g->r, g->cap * sizeof(*g->r));
		if (!g->r) {
			fprintf(stderr, "bench_placement: out of memory\n");
			exit(1);
		}
	}
	g->r[g->n] = (struct rec){ g->t, -1, size ? size : 1 };
	return g->n++;
}

static void dies(struct gen *g, size_t i) { g->r[i].upper = g->t + 1; }

/* A size drawn like a training step's tensors (SOMAS ResNet-50: half the
 * tensors under 8 KiB, a tenth over 12 MiB): tiny bookkeeping buffers,
 * medium workspaces, and large activations, rounded to 512 bytes mostly. */
static uint64_t draw(struct gen *g, uint64_t large)
{
	uint64_t k = rnd(g) % 100;
	if (k < 25)
		return (uint64_t)4 << (rnd(g) % 9); /* 4 B .. 1 KiB */
	if (k < 60)
		return ((uint64_t)8192 << (rnd(g) % 7)) + 512 * (rnd(g) % 16);
	return large >> (rnd(g) % 3);
}

/* A short-lived temporary: born now, gone after 1-3 operators. */
static void temp(struct gen *g, uint64_t large)
{
	size_t i = born(g, draw(g, large));
	g->r[i].upper = g->t + 1 + (int64_t)(rnd(g) % 3);
}

/*
 * One training iteration of `layers` layers, over micro-batches until n
 * buffers: forward saves 1-3 activations per layer (plus bookkeeping) until
 * the layer's backward step, which frees them in reverse and hands a
 * gradient down; weight gradients accumulate from the first micro-batch to
 * the optimizer step, which frees them with its temporaries.  Exactly n
 * buffers, every lifetime half-open and non-empty.
 */
static struct gen generate(size_t n, int layers, uint64_t seed)
{
	struct gen g = { .rng = seed };
	uint64_t *act = calloc((size_t)layers, sizeof(*act));
	size_t *saved = calloc((size_t)layers * 4, sizeof(*saved));
	int *nsaved = calloc((size_t)layers, sizeof(*nsaved));
	size_t *wgrad = calloc((size_t)layers, sizeof(*wgrad));
	if (!act || !saved || !nsaved || !wgrad) {
		fprintf(stderr, "bench_placement: out of memory\n");
		exit(1);
	}
	for (int l = 0; l < layers; l++) {
		/* 256 KiB .. 32 MiB, a multiple of 512 */
		act[l] = ((uint64_t)1 << (18 + rnd(&g) % 8)) +
			 512 * (rnd(&g) % 2048);
		wgrad[l] = SIZE_MAX;
	}
	/* a micro-batch makes at most 14 buffers per layer, the optimizer 2 */
	while (g.n + (size_t)layers * 16 + 2 <= n) {
		size_t input = born(&g, act[0]);
		for (int l = 0; l < layers; l++, g.t++) {
			int k = (int)(rnd(&g) % 3);
			for (int j = 0; j < k; j++)
				temp(&g, act[l]);
			nsaved[l] = 1 + (int)(rnd(&g) % 3);
			for (int s = 0; s < nsaved[l]; s++)
				saved[4 * l + s] = born(&g, s ? draw(&g, act[l])
							      : act[l]);
			if (rnd(&g) % 2)
				saved[4 * l + nsaved[l]++] =
					born(&g, 256 << (rnd(&g) % 3));
		}
		dies(&g, input);
		g.t++;
		size_t grad = born(&g, act[layers - 1]);
		for (int l = layers - 1; l >= 0; l--, g.t++) {
			int k = (int)(rnd(&g) % 4);
			for (int j = 0; j < k; j++)
				temp(&g, act[l]);
			if (wgrad[l] == SIZE_MAX)
				wgrad[l] = born(&g, act[l] / 4 + 4096);
			size_t down = born(&g, act[l > 0 ? l - 1 : 0]);
			dies(&g, grad);
			for (int s = nsaved[l] - 1; s >= 0; s--)
				dies(&g, saved[4 * l + s]);
			grad = down;
		}
		dies(&g, grad);
		g.t++;
	}
	/* the optimizer step: per layer a temporary, then the gradient goes;
	 * then small temporaries (the optimizer's bookkeeping) up to n */
	for (int l = 0; l < layers && g.n < n; l++, g.t++) {
		temp(&g, act[l] / 8);
		if (wgrad[l] != SIZE_MAX)
			dies(&g, wgrad[l]);
	}
	for (int l = 0; l < layers; l++)
		if (wgrad[l] != SIZE_MAX && g.r[wgrad[l]].upper < 0)
			dies(&g, wgrad[l]);
	while (g.n < n) {
		temp(&g, 65536);
		g.t++;
	}
	free(act);
	free(saved);
	free(nsaved);
	free(wgrad);
	return g;
}

static int write_csv(const char *path, const struct gen *g)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	fputs("id,lower,upper,size\n", f);
	for (size_t i = 0; i < g->n; i++)
		fprintf(f, "%zu,%" PRId64 ",%" PRId64 ",%" PRIu64 "\n", i,
			g->r[i].lower, g->r[i].upper, g->r[i].size);
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

/* The generated instances: the sizes of the large anchors. */
static const struct {
	const char *name;
	size_t n;
	int layers;
	uint64_t seed;
} large[] = {
	{ "dl-18692", 18692, 160, 0x9a96 },  /* PanGu-2.6B's size */
	{ "dl-28526", 28526, 400, 0x51 },    /* IOPDDL S_1's size */
	{ "dl-62185", 62185, 1200, 0x71 },   /* IOPDDL Y_1's size */
};
#define NLARGE (sizeof(large) / sizeof(large[0]))

static const char *shared[] = {
	"A.1048576", "B.1048576", "C.1048576", "D.1048576",
	"E.1048576", "F.1048576", "G.1048576", "H.1048576",
	"I.1048576", "J.1048576", "K.1048576", "somas-resnet50",
};

/* The shapes of the packed class (guillotine.h) --shape names: the
 * seeds' own, and the variations held-out instances of the construction
 * have (more pieces, random cut directions, deep or shallow recursion). */
static const struct {
	const char *name;
	struct guil_shape sh;
} shapes[] = {
	{ "base", { 150, GUIL_MAX, GUIL_W, GUIL_T, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE } },
	{ "big", { 300, 450, GUIL_W, GUIL_T, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE } },
	{ "rand", { 150, GUIL_MAX, GUIL_W, GUIL_T, GUIL_PICK_ANY, GUIL_DIR_RANDOM } },
	{ "deep", { 150, GUIL_MAX, GUIL_W, GUIL_T, GUIL_PICK_LAST, GUIL_DIR_ALTERNATE } },
	{ "shallow", { 150, GUIL_MAX, GUIL_W, GUIL_T, GUIL_PICK_BIG, GUIL_DIR_ALTERNATE } },
	{ "big-rand", { 300, 450, GUIL_W, GUIL_T, GUIL_PICK_ANY, GUIL_DIR_RANDOM } },
	{ "small", { 60, 120, GUIL_W, GUIL_T, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE } },
	/* thousands of buffers: a 16 Ki and a 64 Ki square */
	{ "large", { 1500, 2000, 16384, 16384, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE } },
	{ "huge", { 5800, 5900, 65536, 65536, GUIL_PICK_ANY, GUIL_DIR_ALTERNATE } },
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))
static size_t shape_at; /* --shape */

/* The packed instance of this seed as a MiniMalloc CSV. */
static int write_packed(const char *path, uint64_t seed)
{
	const struct guil_shape *sh = &shapes[shape_at].sh;
	struct guil_rect *r = malloc(sh->nmax * sizeof(*r));
	if (!r) {
		fprintf(stderr, "bench_placement: out of memory\n");
		return -1;
	}
	size_t n = guil_cut_shape(seed, sh, r);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		free(r);
		return -1;
	}
	fputs("id,lower,upper,size\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%zu,%" PRId64 ",%" PRId64 ",%" PRIu64 "\n", i,
			r[i].t0, r[i].t1, (r[i].b1 - r[i].b0) * GUIL_UNIT);
	free(r);
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

/* The seeds of the packed rows unless --packed FIRST-LAST says others. */
#define PACKED_SEED0 24
#define PACKED_COUNT 12

/* --- one child run ------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The number after "key": in a one-line JSON object, or -1. */
static double json_num(const char *js, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *p = strstr(js, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1;
}

/* The string after "key": (at most len - 1 bytes), or "-". */
static void json_str(const char *js, const char *key, char *out, size_t len)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *p = strstr(js, pat);
	snprintf(out, len, "-");
	if (!p)
		return;
	p += strlen(pat);
	size_t k = 0;
	while (p[k] && p[k] != '"' && k + 1 < len) {
		out[k] = p[k];
		k++;
	}
	out[k] = 0;
}

static const char *plan_bin, *limit_arg = "2";
static const char *work_arg; /* "--deterministic[=W]", or NULL */
static char tmpdir[256];

static int run_one(const char *name, const char *csv)
{
	char out[512], plan[512];
	snprintf(out, sizeof(out), "%s/out.json", tmpdir);
	snprintf(plan, sizeof(plan), "%s/p.plan", tmpdir);
	fflush(stdout); /* or the child's freopen() writes it again */
	double t0 = now_s();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (!freopen(out, "w", stdout))
			_exit(127);
		if (work_arg)
			execl(plan_bin, plan_bin, "compile", csv, "-o", plan,
			      work_arg, "--json", (char *)NULL);
		else
			execl(plan_bin, plan_bin, "compile", csv, "-o", plan,
			      "--time-limit", limit_arg, "--json", (char *)NULL);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("wait4");
		return 1;
	}
	double wall = now_s() - t0;
	double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
		     (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	char js[4096] = "";
	FILE *f = fopen(out, "r");
	if (f) {
		size_t k = fread(js, 1, sizeof(js) - 1, f);
		js[k] = 0;
		fclose(f);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("%-16s failed (status %d)\n", name,
		       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 1;
	}
	double lb = json_num(js, "lower_bound"), pool = json_num(js, "pool");
	char winner[32], stop[32];
	json_str(js, "winner", winner, sizeof(winner));
	json_str(js, "stopped_by", stop, sizeof(stop));
	printf("%-16s %7.0f %16.0f %16.0f %8.5f %-12s %-11s %7.2f %7.2f %8.0f\n",
	       name, json_num(js, "buffers"), lb, pool, lb > 0 ? pool / lb : 0,
	       winner, stop, wall, cpu, ru.ru_maxrss / 1024.0);
	fflush(stdout);
	return 0;
}

/* --skyline-nodes: the skyline search alone on seeds [seed0, seed0 + n);
 * guillotine: the guillotine search alone instead (max_nodes its steps). */
static int run_skyline(uint64_t seed0, uint64_t nseeds, uint64_t max_nodes,
		       int guillotine)
{
	const struct guil_shape *sh = &shapes[shape_at].sh;
	struct guil_rect *r = malloc(sh->nmax * sizeof(*r));
	struct solver_item *it = malloc(sh->nmax * sizeof(*it));
	uint64_t *off = malloc(sh->nmax * sizeof(*off));
	if (!r || !it || !off) {
		fprintf(stderr, "bench_placement: out of memory\n");
		return 1;
	}
	printf("the %s search alone, %" PRIu64 " %s at most, no clock (CPU s: this process)\n",
	       guillotine ? "guillotine" : "skyline", max_nodes,
	       guillotine ? "steps" : "nodes");
	printf("%-20s %7s %-9s %10s %7s\n", "instance", "buffers", "bound",
	       guillotine ? "steps" : "nodes", "cpu_s");
	uint64_t cap = (uint64_t)sh->w * GUIL_UNIT, at = 0, sum = 0;
	int bad = 0;
	for (uint64_t seed = seed0; seed < seed0 + nseeds; seed++) {
		size_t n = guil_cut_shape(seed, sh, r);
		for (size_t i = 0; i < n; i++)
			it[i] = (struct solver_item){ (r[i].b1 - r[i].b0) *
							      GUIL_UNIT,
						      1, r[i].t0, r[i].t1, NULL, 0,
						      SOLVER_FREE, (int64_t)i };
		struct solver_problem p = { it, n, NULL, 0 };
		struct solver_options o = { .work_limit = UINT64_MAX };
		struct solver_budget b;
		solver_budget_init(&b, &o);
		uint64_t nodes = 0, h = 0;
		struct rusage r0, r1;
		getrusage(RUSAGE_SELF, &r0);
		int rc = guillotine ? solver_search_guillotine(&p, cap, max_nodes,
							       &b, off, &nodes)
				    : solver_search_skyline(&p, cap, max_nodes,
							    &b, off, &nodes);
		getrusage(RUSAGE_SELF, &r1);
		double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
			     (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) * 1e-6;
		char err[256], name[48];
		if (rc == 1 && (solver_check(&p, off, &h, err, sizeof(err)) ||
				h != cap)) {
			printf("packed-%s-%" PRIu64 ": the placement found is wrong (%s)\n",
			       shapes[shape_at].name, seed, err);
			bad = 1;
		}
		if (rc < 0) {
			printf("packed-%s-%" PRIu64 ": out of memory\n",
			       shapes[shape_at].name, seed);
			bad = 1;
		}
		at += rc == 1;
		sum += rc == 1 ? nodes : 0;
		snprintf(name, sizeof(name), "packed-%s-%" PRIu64,
			 shapes[shape_at].name, seed);
		printf("%-20s %7zu %-9s %10" PRIu64 " %7.2f\n", name, n,
		       rc == 1 ? "reached" : "not", nodes, cpu);
		fflush(stdout);
	}
	printf("%" PRIu64 " of %" PRIu64 " at the bound, %" PRIu64 " %s on those\n",
	       at, nseeds, sum, guillotine ? "steps" : "nodes");
	free(r);
	free(it);
	free(off);
	return bad;
}

int main(int argc, char **argv)
{
	const char *write_dir = NULL;
	uint64_t skyline_nodes = 0;
	int guillotine = 0;
	uint64_t seed0 = PACKED_SEED0, nseeds = PACKED_COUNT;
	int packed_only = 0;
	const char *extra[8];
	size_t nextra = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--write") == 0 && i + 1 < argc) {
			write_dir = argv[++i];
		} else if (strcmp(argv[i], "--time-limit") == 0 && i + 1 < argc) {
			limit_arg = argv[++i];
		} else if (strcmp(argv[i], "--deterministic") == 0 ||
			   strncmp(argv[i], "--deterministic=", 16) == 0) {
			work_arg = argv[i];
		} else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc &&
			   strchr(argv[i + 1], '=') && nextra < 8) {
			extra[nextra++] = argv[++i];
		} else if (strcmp(argv[i], "--packed") == 0 && i + 1 < argc) {
			unsigned long long a, z;
			char c;
			if (sscanf(argv[++i], "%llu-%llu%c", &a, &z, &c) != 2 ||
			    a == 0 || z < a) {
				fprintf(stderr, "bench_placement: error: --packed wants FIRST-LAST (seeds from 1), not '%s'\n",
					argv[i]);
				return 2;
			}
			seed0 = a;
			nseeds = z - a + 1;
		} else if (strcmp(argv[i], "--packed-only") == 0) {
			packed_only = 1;
		} else if ((strcmp(argv[i], "--skyline-nodes") == 0 ||
			    strcmp(argv[i], "--guillotine-steps") == 0) &&
			   i + 1 < argc) {
			guillotine = !strcmp(argv[i], "--guillotine-steps");
			skyline_nodes = strtoull(argv[++i], NULL, 10);
			if (!skyline_nodes) {
				fprintf(stderr, "bench_placement: error: %s wants a count above 0\n",
					argv[i - 1]);
				return 2;
			}
		} else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
			i++;
			for (shape_at = 0; shape_at < NSHAPES; shape_at++)
				if (!strcmp(shapes[shape_at].name, argv[i]))
					break;
			if (shape_at == NSHAPES) {
				fprintf(stderr, "bench_placement: error: no shape called '%s' (base, big, rand, deep, shallow, big-rand, small, large, huge)\n",
					argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--help") == 0) {
			printf("usage: bench_placement [--time-limit S | --deterministic[=W]] [--csv NAME=PATH]... [--packed FIRST-LAST] [--shape NAME] [--packed-only] [--write DIR] [--skyline-nodes N | --guillotine-steps N]\n");
			return 0;
		} else if (strcmp(argv[i], "--quick") == 0) {
			/* make bench's BENCH_ARGS: the table is quick already */
		} else {
			fprintf(stderr, "bench_placement: error: unknown option '%s'\n",
				argv[i]);
			return 2;
		}
	}
	if (skyline_nodes)
		return run_skyline(seed0, nseeds, skyline_nodes, guillotine);
	if (write_dir) {
		for (size_t k = 0; k < NLARGE; k++) {
			char path[512];
			snprintf(path, sizeof(path), "%s/%s.csv", write_dir,
				 large[k].name);
			struct gen g = generate(large[k].n, large[k].layers,
						large[k].seed);
			int rc = write_csv(path, &g);
			free(g.r);
			if (rc)
				return 4;
		}
		return 0;
	}
	const char *build = getenv("BUILD");
	static char bin[512];
	snprintf(bin, sizeof(bin), "%s/bin/memplan-plan",
		 build && *build ? build : "build");
	plan_bin = bin;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/memplan-bench-place.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	if (work_arg)
		printf("compile %s --json per instance, one child process each (wall, CPU: user + system, RSS: peak)\n",
		       work_arg);
	else
		printf("compile --time-limit %s --json per instance, one child process each (wall, CPU: user + system, RSS: peak)\n",
		       limit_arg);
	printf("%-16s %7s %16s %16s %8s %-12s %-11s %7s %7s %8s\n", "instance",
	       "buffers", "lower_bound", "pool", "ratio", "winner",
	       "stopped_by", "wall_s", "cpu_s", "rss_mib");
	int bad = 0;
	char path[512];
	for (size_t k = 0; k < NLARGE && !packed_only; k++) {
		snprintf(path, sizeof(path), "%s/%s.csv", tmpdir, large[k].name);
		struct gen g = generate(large[k].n, large[k].layers,
					large[k].seed);
		int rc = write_csv(path, &g);
		free(g.r);
		bad |= rc ? 1 : run_one(large[k].name, path);
		remove(path);
	}
	const char *dir = getenv("SHARED_DATA");
	if (!dir || !*dir)
		dir = "../shared/data";
	for (size_t k = 0; k < sizeof(shared) / sizeof(shared[0]) && !packed_only;
	     k++) {
		snprintf(path, sizeof(path), "%s/placement/%s.csv", dir,
			 shared[k]);
		if (access(path, R_OK) != 0) {
			printf("%-16s (no %s: skipped)\n", shared[k], path);
			continue;
		}
		bad |= run_one(shared[k], path);
	}
	for (uint64_t seed = seed0; seed < seed0 + nseeds; seed++) {
		char name[48];
		if (shape_at)
			snprintf(name, sizeof(name), "packed-%s-%" PRIu64,
				 shapes[shape_at].name, seed);
		else
			snprintf(name, sizeof(name), "packed-%" PRIu64, seed);
		snprintf(path, sizeof(path), "%s/%s.csv", tmpdir, name);
		int rc = write_packed(path, seed);
		bad |= rc ? 1 : run_one(name, path);
		remove(path);
	}
	for (size_t k = 0; k < nextra; k++) {
		char name[64];
		const char *eq = strchr(extra[k], '=');
		snprintf(name, sizeof(name), "%.*s", (int)(eq - extra[k]),
			 extra[k]);
		bad |= run_one(name, eq + 1);
	}
	snprintf(path, sizeof(path), "%s/out.json", tmpdir);
	remove(path);
	snprintf(path, sizeof(path), "%s/p.plan", tmpdir);
	remove(path);
	rmdir(tmpdir);
	return bad;
}
