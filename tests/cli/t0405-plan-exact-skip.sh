#!/bin/sh
# memplan-plan compile: when the exact search declines a component over its
# size limit (solver_exact.c, MAX_COMPONENT 6000 buffers), the text says
# which and why, and --json says "searched":false instead of reading like a
# search of 0 nodes (issue 15, item 12).  A small problem keeps its output.
. tests/cli/lib.sh

# 6500 buffers whose lifetimes chain into one component; sizes from a
# Lehmer generator (exact in any awk) so the heuristic misses the bound
awk 'BEGIN {
	x = 15; print "id,lower,upper,size"
	for (i = 0; i < 6500; i++) {
		x = (x * 75) % 65537; lo = i + x % 31
		x = (x * 75) % 65537; up = lo + 5 + x % 116
		x = (x * 75) % 65537; printf "%d,%d,%d,%d\n", i, lo, up, (1 + x % 1000) * 8
	}
}' >"$T/big.csv"
ok $? "a 6500-buffer MiniMalloc CSV"

expect 0 "compile --strategy exact" memplan-plan compile "$T/big.csv" --strategy exact -o "$T/e.plan"
has "$T/out" "not proven optimal, exact" "  ... not proven optimal"
has "$T/out" "  exact search not run: 1 component of overlapping buffers over the exact search's limit of 6000 buffers (the largest has 6500); the pool is the heuristic's" \
	"  ... says which component and why the search did not run"
expect 0 "compile --strategy auto --json" memplan-plan compile --json "$T/big.csv" --strategy auto -o "$T/a.plan"
has "$T/out" '"nodes":0,"searched":false,"skipped_components":1,"skipped_why":"1 component of overlapping buffers over the exact search' \
	"  ... JSON: not searched, one component skipped, and why"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out"
	ok $? "  ... JSON parses"
fi

# a small problem is searched: nothing of the kind
expect 0 "compile a small CSV" memplan-plan compile --json tests/fuzz/seeds/csv/small.csv --strategy exact -o "$T/s.plan"
grep -q 'searched\|skipped' "$T/out"
[ $? -ne 0 ]
ok $? "  ... JSON as before: no skip fields"
expect 0 "compile a small CSV (text)" memplan-plan compile tests/fuzz/seeds/csv/small.csv --strategy auto -o "$T/s.plan"
grep -q 'not run' "$T/out"
[ $? -ne 0 ]
ok $? "  ... text as before: no skip line"

# a CSV whose every buffer is pinned (a solution written back, as idealloc
# ships its instances): nothing to search or improve, the work stops at the
# heuristics' (before, the improvement spent the whole budget on nothing)
printf 'id,lower,upper,size,offset\na,0,4,100,0\nb,2,6,100,300\nc,5,9,100,0\n' >"$T/pinned.csv"
expect 0 "every offset pinned: compile --deterministic" memplan-plan compile --json --deterministic \
	"$T/pinned.csv" -o "$T/p.plan"
has "$T/out" '"pool":400,' "  ... the pool is the pinned placement's"
w=$(grep -o '"work":[0-9]*' "$T/out" | grep -o '[0-9]*$')
[ "${w:-20000}" -lt 1000 ]
ok $? "  ... and the counted work is the heuristics' only ($w units)"

done_testing
