#!/bin/sh
# memplan-plan compile --time-limit is a promise for the whole command
# (issue 33): on a 30,000-buffer problem, with a busy loop beside it, the
# command ends within the limit and its documented slack of 5% (process
# start and exit).  Before, the solver's own check of its answer and the
# improvement's setup were outside every estimate and the reserve for
# writing the plan was a constant per buffer, whatever the machine's speed:
# 2.03-2.30 s under --time-limit 2 (now 1.58-1.73 s, the same load: the
# busy loop and a load average of 11 on two cores).
. tests/cli/lib.sh

# a Lehmer generator (exact in any awk): buffers born one a step, each
# living up to 400 steps (about 200 live at once): one component far over
# the exact search's size limit, so the heuristics and the improvement
# spend the time
awk 'BEGIN {
	x = 7; print "id,lower,upper,size"
	for (i = 0; i < 30000; i++) {
		x = (x * 75) % 65537; lo = i
		x = (x * 75) % 65537; up = lo + 1 + x % 400
		x = (x * 75) % 65537; printf "%d,%d,%d,%d\n", i, lo, up, (1 + x % 1000) * 256
	}
}' >"$T/mid.csv"
ok $? "a 30,000-buffer MiniMalloc CSV"

ms() { # milliseconds of a monotonic enough clock (GNU date)
	echo $(($(date +%s%N) / 1000000))
}
if [ "$(ms)" -le 0 ] 2>/dev/null || ! date +%N | grep -q '^[0-9]*$'; then
	skip "compile --time-limit 2 under load" "date has no %N here"
	done_testing
	exit
fi

sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2>/dev/null; rm -rf "$T"' EXIT
worst=0
for i in 1 2 3; do
	t0=$(ms)
	memplan-plan compile --json "$T/mid.csv" -o "$T/m.plan" --time-limit 2 >"$T/out" 2>"$T/err"
	st=$?
	t=$(($(ms) - t0))
	ok $st "compile --time-limit 2 beside a busy loop, run $i ($t ms)"
	[ "$t" -gt "$worst" ] && worst=$t
done
kill $busy 2>/dev/null
has "$T/out" '"stopped_by":"skipped"' "  ... the exact search declined it (over its size limit)"
[ "$worst" -le 2100 ]
ok $? "  ... each run within the limit and 5% ($worst ms at worst)"
expect 0 "the plan verifies" memplan-plan verify "$T/m.plan" "$T/mid.csv"

done_testing
