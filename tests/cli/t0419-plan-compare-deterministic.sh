#!/bin/sh
# memplan-plan compare counts work by default (--deterministic[=WORK]):
# the same inputs give the same table (all but the seconds) on every run,
# with one worker or several and with a busy processor beside it; a
# time limit alone is the old, time-bound mode; a summary (geometric mean,
# wins, seconds) ends the text, CSV and JSON outputs, and --merge of
# shards gives the one run's summary; make compare TRACES=/typo fails.
. tests/cli/lib.sh

# make compare with a TRACES folder that holds nothing fails at once,
# building nothing
if command -v make >/dev/null 2>&1; then
	expect 2 "make compare TRACES=/typo fails" \
		make -s compare TRACES="$T/typo" BUILD="$BUILD_DIR"
	has "$T/err" "no *.trace or *.csv in '$T/typo'" "  ... naming the folder"
else
	skip "make compare TRACES=/typo" "make is not installed"
fi

if ! have_shared; then
	skip "compare on the public instances" "$no_shared"
	done_testing
	exit
fi
P=$SHARED_DATA/placement
set -- "$P/I.1048576.csv" "$P/B.1048576.csv" "$P/somas-resnet50.csv"
strat="--strategies exact,auto,best-fit"
# noseconds FILE: every column but the seconds (6, 10, 14)
noseconds() { cut -d, -f1-5,7-9,11-13,15- "$1"; }

expect 0 "compare, the default (counted work)" memplan-plan compare --csv $strat -j 1 "$@"
noseconds "$T/out" >"$T/a"
busy() { while :; do :; done; }
busy &
hog=$!
expect 0 "again, three workers, a busy processor beside" \
	memplan-plan compare --csv $strat -j 3 "$@"
kill "$hog"
noseconds "$T/out" >"$T/b"
expect 0 "again, --deterministic given" memplan-plan compare --csv $strat --deterministic "$@"
noseconds "$T/out" >"$T/c"
cmp -s "$T/a" "$T/b" && cmp -s "$T/a" "$T/c"
ok $? "  ... the same table every time"
expect 0 "--deterministic=500: less work" \
	memplan-plan compare --json --strategies exact --deterministic=500 "$P/I.1048576.csv"
has "$T/out" '"work_limit":500' "  ... says its work limit"
expect 2 "--deterministic=0 is refused" \
	memplan-plan compare --deterministic=0 "$P/I.1048576.csv"
expect 0 "a time limit alone: time-bound" \
	memplan-plan compare --json --strategies best-fit --time-limit 0.5 "$P/I.1048576.csv"
has "$T/out" '"time_limit":0.500,"work_limit":null' "  ... says so"

# the summary row: CSV
tail -1 "$T/a" >"$T/sumrow"
has "$T/sumrow" "#summary,3," "CSV: a last row marked #summary, over three traces"
python3 - "$T/a" <<'EOF2'
import csv, math, sys
rows = list(csv.reader(open(sys.argv[1])))
head, body, summ = rows[0], rows[1:-1], rows[-1]
ok = summ[0] == "#summary"
# every column but the seconds is left; per strategy: pool, ratio, optimal
for k, s in enumerate(["exact", "auto", "best-fit"]):
    pools = [int(r[3 + 3 * k]) for r in body]
    lbs = [int(r[2]) for r in body]
    g = math.exp(sum(math.log(p / l) for p, l in zip(pools, lbs)) / len(pools))
    wins = sum(1 for i, r in enumerate(body)
               if int(r[3 + 3 * k]) == min(int(r[3 + 3 * j]) for j in range(3)))
    ok = ok and abs(float(summ[4 + 3 * k]) - g) < 1e-6 and int(summ[3 + 3 * k]) == wins
sys.exit(0 if ok else 1)
EOF2
ok $? "  ... its geometric means and wins are the rows'"
expect 0 "text" memplan-plan compare $strat "$@"
has "$T/out" "summary" "  ... a summary line"
has "$T/out" " won" "  ... with the wins"
expect 0 "JSON" memplan-plan compare --json $strat "$@"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
sys.exit(0 if [x["strategy"] for x in s] == ["exact", "auto", "best-fit"]
         and all(x["solved"] == 3 and x["geomean_ratio"] >= 1 for x in s) else 1)
' "$T/out"
ok $? "  ... a summary member per strategy"
cp "$T/out" "$T/all.json"

# shards: the merged summary is the one run's
for k in 1 2; do
	memplan-plan compare --csv $strat --shard $k/2 "$@" >"$T/s$k.csv"
	memplan-plan compare --json $strat --shard $k/2 "$@" >"$T/j$k.json"
done
expect 0 "CSV shards merge" memplan-plan compare --merge "$T/s1.csv" "$T/s2.csv"
noseconds "$T/out" >"$T/m"
cmp -s "$T/m" "$T/a"
ok $? "  ... the one run's table and summary"
expect 0 "JSON shards merge" memplan-plan compare --merge "$T/j1.json" "$T/j2.json"
python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
strip = lambda s: [{k: v for k, v in x.items() if k != "seconds"} for x in s]
sys.exit(0 if strip(a["summary"]) == strip(b["summary"]) and len(a["traces"]) == 3 else 1)
' "$T/out" "$T/all.json"
ok $? "  ... one summary, the one run's"
expect 2 "--merge with --deterministic is refused" \
	memplan-plan compare --merge --deterministic "$T/s1.csv"

done_testing
