#!/bin/sh
# memplan-plan compile on the packed class (issue 32): a rectangle of 1 MiB
# by 4,096 steps cut recursively into 440 buffers, each cut across the one
# that made its piece, is full at every instant, so its optimum is the
# lower bound.  The branch and bound alone ended 25% above it within
# --deterministic's default work; the skyline search reaches it.  No
# timing is asserted: what the planner decided is.
. tests/cli/lib.sh

# a Lehmer generator (exact in any awk) picks the piece and the cut
cut_csv() { # seed pieces
	awk -v x="$1" -v n="$2" 'BEGIN {
		m = 1; t0[0] = 0; t1[0] = 4096; b0[0] = 0; b1[0] = 1024; by[0] = 0
		while (m < n) {
			x = (x * 75) % 65537; a = x % m
			len = by[a] ? b1[a] - b0[a] : t1[a] - t0[a]
			if (len < 2) continue
			x = (x * 75) % 65537; cut = 1 + x % (len - 1)
			t0[m] = t0[a]; t1[m] = t1[a]; b0[m] = b0[a]; b1[m] = b1[a]
			if (by[a]) { b1[a] = b0[a] + cut; b0[m] = b1[a] }
			else { t1[a] = t0[a] + cut; t0[m] = t1[a] }
			by[a] = !by[a]; by[m] = by[a]; m++
		}
		print "id,lower,upper,size"
		for (i = 0; i < n; i++)
			printf "%d,%d,%d,%d\n", i, t0[i], t1[i], (b1[i] - b0[i]) * 1024
	}'
}
cut_csv 41 440 >"$T/packed.csv"
ok $? "a guillotine-packed MiniMalloc CSV of 440 buffers"

# 1. counted work: the bound, proven, the same bytes twice
expect 0 "compile --deterministic" memplan-plan compile --json "$T/packed.csv" -o "$T/p1.plan" --deterministic
has "$T/out" '"lower_bound":1048576,' "  ... the lower bound is the rectangle"
has "$T/out" '"pool":1048576,' "  ... the pool meets it"
has "$T/out" '"stopped_by":"lower_bound"' "  ... and says so"
expect 0 "the same again" memplan-plan compile "$T/packed.csv" -o "$T/p2.plan" --deterministic
cmp -s "$T/p1.plan" "$T/p2.plan"
ok $? "  ... the same plan, byte for byte"

# 2. under a time limit (the skyline beside the branch and bound on two
# processors): a verified plan, never below the bound
expect 0 "compile --time-limit 2" memplan-plan compile --json "$T/packed.csv" -o "$T/t.plan" --time-limit 2
grep -Eq '"pool":(1048576|1[0-9]{6}),' "$T/out"
ok $? "  ... a pool at or above the bound"

# 3. one buffer fewer: an instant no longer full, so no gapless search;
# the answer is still a valid plan at or above the bound
awk -F, 'NR != 2' "$T/packed.csv" >"$T/gap.csv"
expect 0 "compile --deterministic, one buffer fewer" memplan-plan compile --json "$T/gap.csv" -o "$T/g.plan" --deterministic
has "$T/out" '"lower_bound":1048576,' "  ... the same lower bound (the other instants are full)"

done_testing
