#!/bin/sh
# memplan-plan compile: the time limit is the command's, the exact search
# is planned from sizes before anything is built, --deterministic counts
# work instead of seconds, and --json says what ended the search
# (issue 16).  No timing is asserted: what the planner decided is.
. tests/cli/lib.sh

# Lehmer generators (exact in any awk).  big.csv: 30,000 buffers in six
# independent stretches of 5,000, each crowded (about 300 live at once):
# a search of any would build millions of conflict pairs.
awk 'BEGIN {
	x = 7; print "id,lower,upper,size"
	for (c = 0; c < 6; c++)
	for (i = 0; i < 5000; i++) {
		x = (x * 75) % 65537; lo = c * 10000 + i
		x = (x * 75) % 65537; up = lo + 1 + x % 600
		if (up > c * 10000 + 5600) up = c * 10000 + 5600
		if (up <= lo) up = lo + 1
		x = (x * 75) % 65537; printf "%d,%d,%d,%d\n", c * 5000 + i, lo, up, (1 + x % 1000) * 8
	}
}' >"$T/big.csv"
ok $? "a 30,000-buffer MiniMalloc CSV"
# mixed.csv: 120 large buffers the heuristics place above the lower bound,
# then 7,000 tiny ones in a chain (one component over the search's size
# limit, but far below the peak)
awk 'BEGIN {
	x = 7; print "id,lower,upper,size"
	for (i = 0; i < 120; i++) {
		x = (x * 75) % 65537; lo = x % 200
		x = (x * 75) % 65537; up = lo + 1 + x % 60
		x = (x * 75) % 65537; printf "%d,%d,%d,%d\n", i, lo, up, (1 + x % 1000) * 64
	}
	for (i = 0; i < 7000; i++) {
		x = (x * 75) % 65537; lo = 1000 + i
		x = (x * 75) % 65537; up = lo + 2 + x % 30
		x = (x * 75) % 65537; printf "%d,%d,%d,%d\n", 120 + i, lo, up, 1 + x % 8
	}
}' >"$T/mixed.csv"
ok $? "a CSV with a small hard stretch and a large easy one"

# 1. a short limit on a large problem: the heuristics' answer, and the
# search declined before building, saying why
expect 0 "compile --time-limit 0.5 on 30,000 buffers" memplan-plan compile --json "$T/big.csv" -o "$T/b.plan" --time-limit 0.5
grep -Eq '"stopped_by":"(time|memory)"' "$T/out"
ok $? "  ... stopped by the time or memory it would need"
has "$T/out" '"nodes":0,"searched":false,"skipped_components":' "  ... nothing searched"
grep -Eq '"skipped_why":"(preparing the search of [0-9]+ buffers would take about|searching [0-9]+ buffers would need about [0-9]+ MiB, over the cap)' "$T/out"
ok $? "  ... and why, estimated before building"
expect 0 "the same in text" memplan-plan compile "$T/big.csv" -o "$T/b.plan" --time-limit 0.5
has "$T/out" "  exact search not run: " "  ... says the search did not run"

# 2. only the stretches that define the peak are searched: the large easy
# one no longer keeps the search from the small hard one
expect 0 "compile a problem with one component over the size limit" memplan-plan compile --json "$T/mixed.csv" -o "$T/m.plan" --time-limit 5
has "$T/out" '"winner":"exact"' "  ... the search ran, and improved on the heuristics"
has "$T/out" '"stopped_by":"lower_bound"' "  ... down to the lower bound"
# two processors: the floor and the climb have a thread each
if [ "$(nproc)" -ge 2 ]; then
	has "$T/out" '"search_threads":2,' "  ... on two threads (two processors here)"
else
	has "$T/out" '"search_threads":1,' "  ... on one thread (one processor here)"
fi
grep -q '"searched":false' "$T/out"
[ $? -ne 0 ]
ok $? "  ... nothing reported as skipped (the large stretch is below the peak)"

# 3. --deterministic: the work, not the clock, ends the search, so the same
# input gives the same bytes whatever else the machine does
expect 0 "compile --deterministic=2500" memplan-plan compile --json "$T/mixed.csv" -o "$T/d1.plan" --deterministic=2500 --solution "$T/d1.csv"
has "$T/out" '"stopped_by":"work","work":2500,' "  ... stopped by the work limit"
has "$T/out" '"search_threads":1,' "  ... on one thread (two would depend on the machine)"
cp "$T/out" "$T/d1.json"
# the second run shares the machine with a busy loop of ours
sh -c 'while :; do :; done' &
busy=$!
expect 0 "the same under load" memplan-plan compile --json "$T/mixed.csv" -o "$T/d2.plan" --deterministic=2500 --solution "$T/d2.csv"
kill "$busy"
cmp -s "$T/d1.csv" "$T/d2.csv"
ok $? "  ... the same offsets, byte for byte"
cmp -s "$T/d1.plan" "$T/d2.plan"
ok $? "  ... the same plan file"
sed 's/"plan":"[^"]*"//; s/"seconds":[0-9.]*//' "$T/d1.json" >"$T/j1"
sed 's/"plan":"[^"]*"//; s/"seconds":[0-9.]*//' "$T/out" >"$T/j2"
cmp -s "$T/j1" "$T/j2"
ok $? "  ... the same report, nodes and work included"
expect 0 "--deterministic with its default work limit" memplan-plan compile --json tests/fuzz/seeds/csv/small.csv -o "$T/s.plan" --deterministic
has "$T/out" '"stopped_by":"lower_bound"' "  ... a search that reaches the lower bound says so"
expect 0 "a heuristic strategy" memplan-plan compile --json tests/fuzz/seeds/csv/small.csv -o "$T/s.plan" --strategy first-fit
has "$T/out" '"stopped_by":"heuristic"' "  ... says no search ran"
expect 2 "--deterministic=0" memplan-plan compile tests/fuzz/seeds/csv/small.csv -o "$T/s.plan" --deterministic=0
expect 2 "--deterministic=many" memplan-plan compile tests/fuzz/seeds/csv/small.csv -o "$T/s.plan" --deterministic=many
has "$T/err" "--deterministic='many' is not a number of work units above 0" "  ... says why"

done_testing
