#!/bin/sh
# memplan-plan compile --time-limit is a promise for the whole command
# (issue 33): on a 30,000-buffer problem, with a busy loop beside it, the
# command ends within the limit and its documented slack of 5% (process
# start and exit).  Before, the solver's own check of its answer and the
# improvement's setup were outside every estimate and the reserve for
# writing the plan was a constant per buffer, whatever the machine's speed:
# 1.90-2.50 s under --time-limit 2, 7 runs of 12 over 2.1 s, and this test
# failed 3 times of 4; now 1.24-1.98 s, passed 4 of 4 (the busy loop and a
# load average of 7-11 on two cores).  A heuristic after the first one
# also stops at the deadline (its weight was a guess: best-fit took 3 times
# greedy-size's time in a sanitizer build, and CI saw 2,264 ms).
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
# what no limit can shorten: loading, one heuristic, the checks and the
# plan; when the machine is so loaded that they take 70% of the limit, the
# promise cannot be told from the load, and the timing checks skip
t0=$(ms)
memplan-plan compile "$T/mid.csv" -o "$T/g.plan" --strategy greedy-size >"$T/out" 2>"$T/err"
ok $? "compile --strategy greedy-size beside the busy loop ($(($(ms) - t0)) ms)"
floor=$(($(ms) - t0))
worst=0
for i in 1 2 3; do
	t0=$(ms)
	memplan-plan compile --json "$T/mid.csv" -o "$T/m.plan" --time-limit 2 >"$T/out" 2>"$T/err"
	st=$?
	t=$(($(ms) - t0))
	ok $st "compile --time-limit 2 beside a busy loop, run $i ($t ms)"
	[ "$t" -gt "$worst" ] && worst=$t
done
# the load can change during the runs (make check runs two tests at once):
# the floor measured again after them counts too
t0=$(ms)
memplan-plan compile "$T/mid.csv" -o "$T/g.plan" --strategy greedy-size >/dev/null 2>&1
after=$(($(ms) - t0))
[ "$after" -gt "$floor" ] && floor=$after
kill $busy 2>/dev/null
has "$T/out" '"stopped_by":"skipped"' "  ... the exact search declined it (over its size limit)"
# a build with sanitizers spends outside any estimate at exit (the leak
# check over 30,000 buffers' allocations): 10% there, 5% in the product
slack=2100
ldd "$(command -v memplan-plan)" 2>/dev/null | grep -q 'libasan\|libubsan' && slack=2200
if [ "$floor" -gt 1000 ]; then
	skip "  ... each run within the limit and its slack ($worst ms at worst)" "the machine is too loaded: greedy-size alone took $floor ms"
else
	[ "$worst" -le "$slack" ]
	ok $? "  ... each run within the limit and its slack, $slack ms ($worst ms at worst)"
fi
expect 0 "the plan verifies" memplan-plan verify "$T/m.plan" "$T/mid.csv"

done_testing
