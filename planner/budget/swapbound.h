/* SPDX-License-Identifier: MIT */
/*
 * swapbound.h - the link bound: the smallest pool any swap plan can have
 * over a given link when the compute waits at most stall_ns in all, as the
 * simulator (simulate.h) runs it.  The swap floor (swapfloor.h) says which
 * bytes may be away at each allocator step on an infinitely fast link; this
 * bound adds that the bytes must also have crossed the link in time.  Used
 * by the swap benchmark (column "(d)") and its unit test.
 *
 * Definition.  Step k, the clock and the stretches are swapfloor.h's: for
 * each pool buffer and step k, at most one stretch [out + 1, next - 1)
 * between two consecutive uses (the alloc, each access) or before the free
 * may cover k, and a swap whose hole covers k was issued after a request
 * out_at >= out and is brought back at a request in_at with k < in_at
 * (< next).  Times are the trace's (ns): s(e) the start of event e and
 * e(e) its end, as simulate.c reads them.  For a swap away at step k:
 *   - its D2H copy starts at or after rel = min e(ev[j]) over requests
 *     j >= out (the copy is ready when its trigger request ends, and waits
 *     push events only later), and, if the bytes are reused by an
 *     allocation at a request <= k (otherwise they do not make the pool
 *     smaller at k), ends by dl_k + D, dl_k = max s(ev[j]) over j <= k
 *     (the first reusing allocation waits for the copy), where D >= the
 *     plan's total stall (the delay of any event is at most the sum of the
 *     waits before it);
 *   - if the stretch ends in an access z, its H2D copy starts at or after
 *     st_k = min e(ev[j]) over j > k and ends by need = s(z) + D (the
 *     access waits for it); a stretch before the free has no such limit.
 * Each lane runs its copies one at a time, each paying the latency and then
 * moving at most rate_max = the larger of the lane's rates alone and
 * shared (link_rate()).  So for any set P of the swaps away at k with
 * rel >= a, bytes(P) <= rate_max * max(0, dl_k + D - a - latency), and for
 * any set Q with need <= b, bytes(Q) <= rate_max * max(0, b - st_k -
 * latency); a swap of a buffer in neither set is counted whole.  Every
 * partition of the buffers away at k into P, Q and the rest (P a prefix by
 * release time, Q one of the rest by need) bounds the bytes away, and the
 * least of them is subtracted from the resident bytes at k (swap_profile()
 * without swaps).  The bound is the maximum over k, and never below the
 * swap floor.  It holds for every plan memplan-plan can write and
 * simulate, partial swaps included; it ignores that a shared link's two
 * directions slow each other (a valid but looser bound there).
 * Not computed for traces swap_ctx_init() refuses, or with trace holes.
 *
 * Recomputation (swapbound_compute_space()).  A plan of recompute or hybrid
 * is a plan of the program that recomputes (recompute.h): chosen buffers
 * freed after a use and made again before the next one by re-running the
 * kernels that wrote them (and maybe more), each re-run pushing every later
 * event back by its kernels' trace durations.  The simulator only delays,
 * so such a plan with re-runs of C ns in all and stalls of S ns is
 * predicted at least C + S slower than the trace: an overhead of O ns
 * bounds C <= O and C + S <= O.  At step k the pool then holds at least
 * the resident bytes less the bytes swapped away and those recomputed
 * away there, two disjoint sets of buffers not used at k:
 *   - swapped: the bound above with D = O, since every time of the program
 *     that recomputes is the trace's plus at most C (copies start no
 *     earlier, deadlines move by at most C + S);
 *   - recomputed: a buffer away at k lies between two uses u_j < k < u_j+1
 *     (on the clock: from the first request after u_j to the last before
 *     u_j+1), and its re-run runs every kernel that wrote it up to u_j (a
 *     buffer written by anything else, or first touched by no kernel
 *     write, is never recomputed).  A kernel w writing bytes W(w) in all
 *     (every buffer it writes, persistent ones too) is charged to each
 *     buffer x it wrote in the share time(w) * bytes(x) / W(w); the shares
 *     of any set of buffers add up to at most the time of the kernels the
 *     set needs, so the bytes recomputed away at k within C are at most a
 *     fractional knapsack of the buffers there by share per byte.  Re-run
 *     temporaries, inputs kept for a re-run and the order margin only add
 *     bytes, and are left out.
 * The sum of the two is capped at the bytes of all buffers not used at k
 * (the swap floor); buffers used on several streams count as
 * recomputable (segments may take them), never as swappable.
 */
#ifndef MEMPLAN_SWAPBOUND_H
#define MEMPLAN_SWAPBOUND_H

#include <stddef.h>
#include <stdint.h>

#include "link.h"
#include "trace.h"

struct swap_bound {
	int computed;         /* 1: the figures below hold; 0: see why */
	char why[200];        /* why not (a clause, no full stop) */
	uint64_t bytes;       /* the least pool of any plan stalling <= stall_ns */
	uint64_t lower_bound; /* the planner's lower bound without swaps */
	uint64_t request;     /* the bound binds right after this request */
	uint64_t resident;    /* the bytes resident there without swaps */
	double stall_ns;      /* the stall it was computed for */
};

/*
 * Computes the bound of finished trace t over link l for plans whose
 * simulated stalls add up to at most stall_ns (0: stall-free; a plan with
 * a predicted overhead of x% stalls at most x% of the trace's iteration).
 * A trace it cannot judge gives b->computed = 0 with the reason in b->why
 * and returns 0.  Returns TRACE_ENOMEM with a sentence in err when out of
 * memory.  O(n * m^2) worst case in requests n and buffers m away at once.
 */
int swapbound_compute(const struct trace *t, const struct link_model *l,
		      double stall_ns, struct swap_bound *b, char *err,
		      size_t errlen);

/*
 * Whether the bound of t over l for stall_ns passes budget: 1 (no plan
 * stalling that little fits budget), 0 (one might, or the bound is not
 * computed), -1 out of memory (a sentence in err).  Stops at the first step
 * that decides, so it costs far less than swapbound_compute() where few
 * steps are above budget; the answer is the same (test_swapbound).
 */
int swapbound_exceeds(const struct trace *t, const struct link_model *l,
		      double stall_ns, uint64_t budget, char *err,
		      size_t errlen);

/* The plans a bound is over: swap plans (swapbound_compute()), plans of
 * the program that recomputes without swaps (strategy recompute and the
 * checkpoint baselines), or with swaps (hybrid). */
enum swapbound_space {
	SWAPBOUND_SWAP = 0,
	SWAPBOUND_RECOMPUTE,
	SWAPBOUND_HYBRID,
};

/*
 * The bound over the plans of space sp whose predicted overhead is at most
 * overhead_ns (re-runs and stalls together; see "Recomputation" above).
 * SWAPBOUND_SWAP is swapbound_compute() with that stall.  Same returns.
 * O(n * (m^2 + r log r)) in requests n, buffers m swappable and r
 * recomputable at one step, over the steps it visits.
 */
int swapbound_compute_space(const struct trace *t, const struct link_model *l,
			    enum swapbound_space sp, double overhead_ns,
			    struct swap_bound *b, char *err, size_t errlen);

/* The largest reduction 100 * (1 - bytes / lower_bound) any such plan can
 * reach, in percent; NAN when not computed or the lower bound is 0. */
double swapbound_pct(const struct swap_bound *b);

#endif
