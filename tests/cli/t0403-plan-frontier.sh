#!/bin/sh
# memplan-plan frontier: the sweep of budgets as a table, CSV and JSON
# (budgets falling, pools within them, the same numbers compile --budget
# gives), an SVG that is well-formed and written atomically, progress on
# stderr unless --quiet; bad options, a missing trace and a trace without
# timestamps refused.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo trace to sweep"

expect 0 "frontier (table)" memplan-plan frontier "$T/r.trace" --step 20 --quiet
has "$T/out" "swap frontier of $T/r.trace over pcie5" "  ... names the trace and the default link"
has "$T/out" "memplan" "  ... a column per strategy"
has "$T/out" "   100%" "  ... starts at the lower bound"
has "$T/out" "overhead <= 2%" "  ... the smallest pools within 1% and 2%"
grep -q "^memplan dominated\|^memplan did not dominate" "$T/out"
ok $? "  ... says whether memplan dominated"
[ ! -s "$T/err" ]
ok $? "  ... --quiet: nothing on stderr"

expect 0 "frontier shows progress" memplan-plan frontier "$T/r.trace" --step 20
n=$(grep -c "frontier: budget" "$T/err")
[ "$n" -ge 2 ]
ok $? "  ... one stderr line per budget ($n)"

expect 0 "frontier --csv" memplan-plan frontier "$T/r.trace" --step 10 --csv --quiet
cp "$T/out" "$T/f.csv"
[ "$(head -1 "$T/f.csv")" = "budget_percent,budget,strategy,fits,pool,pool_percent,overhead_percent,iter_ns,stall_ns,swaps,swapped_bytes,seconds,cpu_seconds" ]
ok $? "  ... the header"
rows=$(($(wc -l <"$T/f.csv") - 1))
budgets=$(tail -n +2 "$T/f.csv" | cut -d, -f1 | uniq | wc -l)
[ "$budgets" -ge 3 ] && [ "$rows" -eq $((budgets * 3)) ]
ok $? "  ... a row per budget and strategy ($budgets budgets, $rows rows)"
awk -F, 'NR > 1 { if (NR > 2 && $2 > prev) bad = 1; prev = $2; n[$2]++
		   if ($4 == 1 && $5 > $2) bad = 1 }
	 END { for (b in n) if (n[b] != 3) bad = 1; exit bad }' "$T/f.csv"
ok $? "  ... budgets fall row by row, every pool within its budget"
[ "$(sed -n 2p "$T/f.csv" | cut -d, -f1)" = 100 ]
ok $? "  ... from 100%"
last=$(tail -n 3 "$T/f.csv" | cut -d, -f4 | sort -u)
[ "$last" = 0 ] || [ "$(tail -1 "$T/f.csv" | cut -d, -f1)" = 10 ]
ok $? "  ... ends where nothing fits or at the last step"

# the frontier's cell at 80% is what compile --budget 80% plans
line=$(awk -F, '$1 == 80 && $3 == "memplan" && $4 == 1' "$T/f.csv")
[ -n "$line" ]
ok $? "  ... memplan fits at 80%"
expect 0 "  ... compile --budget 80% agrees" \
	memplan-plan compile "$T/r.trace" --budget 80% --json -o "$T/c.plan"
cpool=$(sed 's/.*"pool":\([0-9]*\).*/\1/' "$T/out")
cover=$(sed 's/.*"overhead_percent":\([0-9.]*\).*/\1/' "$T/out")
[ "$cpool" = "$(echo "$line" | cut -d, -f5)" ] &&
	[ "$cover" = "$(echo "$line" | cut -d, -f7)" ]
ok $? "  ... same pool ($cpool) and overhead ($cover%)"

expect 0 "frontier --strategies vdnn,memplan --from 90 --to 50 --step 10" \
	memplan-plan frontier "$T/r.trace" --strategies vdnn,memplan --from 90 \
	--to 50 --step 10 --csv --quiet
tail -n +2 "$T/out" | cut -d, -f1,3 | tr '\n' ' ' >"$T/cells"
has "$T/cells" "90,vdnn 90,memplan 80,vdnn" "  ... the strategies in the order given, from 90%"
! cut -d, -f1 "$T/out" | grep -qxE '50|100'
ok $? "  ... stops above --to"
expect 0 "frontier --steps 4 --csv" memplan-plan frontier "$T/r.trace" --steps 4 --csv --quiet
[ "$(tail -n +2 "$T/out" | cut -d, -f1 | uniq | tr '\n' ' ')" = "100 75 50 25 " ]
ok $? "  ... four budgets, 25% apart"

expect 0 "frontier --json" memplan-plan frontier "$T/r.trace" --step 25 --json --quiet
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["strategies"] == ["memplan", "singa", "vdnn"], d["strategies"]
res = d["results"]
assert len(res) % 3 == 0 and len(res) >= 6
b = [r["budget"] for r in res[::3]]
assert all(x > y for x, y in zip(b, b[1:])), b
for r in res:
    assert (r["pool"] is None) == (not r["fits"])
    assert not r["fits"] or r["pool"] <= r["budget"]
assert len(d["summary"]) == 3 and d["lower_bound_noswap"] > 0
assert d["memplan_dominates"]["budgets_compared"] >= 1
' "$T/out" 2>"$T/err"
	ok $? "  ... parses: a record per budget and strategy, budgets falling, pools within them"
fi

expect 0 "frontier --link infinite" memplan-plan frontier "$T/r.trace" --link infinite --step 20 --csv --quiet
awk -F, 'NR > 1 && $4 == 1 && $7 != "0.0000" { bad = 1 } END { exit bad }' "$T/out"
ok $? "  ... no overhead anywhere on an infinitely fast link"

expect 0 "frontier -o FILE.svg" memplan-plan frontier "$T/r.trace" --step 20 --quiet -o "$T/f.svg"
has "$T/f.svg" "</svg>" "  ... complete"
has "$T/f.svg" "<polyline" "  ... a line per strategy"
has "$T/f.svg" 'class="lower-bound"' "  ... the lower bound marked"
has "$T/f.svg" "vdnn (" "  ... a legend"
if command -v python3 >/dev/null 2>&1; then
	python3 -c "import xml.etree.ElementTree as E,sys; E.parse(sys.argv[1])" "$T/f.svg" 2>"$T/err"
	ok $? "  ... well-formed XML"
fi
has "$T/out" "budget" "  ... and the table on stdout"

mkdir "$T/ro" && chmod 555 "$T/ro"
if [ ! -w "$T/ro" ]; then
	expect 4 "an unwritable -o" memplan-plan frontier "$T/r.trace" --step 50 --quiet -o "$T/ro/f.svg"
	[ -z "$(ls -A "$T/ro")" ]
	ok $? "  ... leaves nothing behind"
fi
expect 4 "-o in a missing folder" memplan-plan frontier "$T/r.trace" --step 50 --quiet -o "$T/nowhere/f.svg"
[ ! -e "$T/nowhere" ]
ok $? "  ... leaves nothing behind"
if [ -w /dev/full ]; then
	expect 4 "a table that cannot be written" sh -c \
		'memplan-plan frontier "$1" --step 50 --quiet >/dev/full' sh "$T/r.trace"
fi

expect 3 "a missing trace" memplan-plan frontier "$T/none.trace"
has "$T/err" "$T/none.trace" "  ... names it"
expect 3 "a trace without timestamps (MiniMalloc CSV)" \
	memplan-plan frontier tests/fuzz/seeds/csv/small.csv --quiet
has "$T/err" "swap planning needs" "  ... says why"

expect 2 "no TRACE" memplan-plan frontier
expect 2 "two TRACEs" memplan-plan frontier "$T/r.trace" "$T/r.trace"
expect 2 "an unknown option" memplan-plan frontier --bogus "$T/r.trace"
expect 2 "--step 0" memplan-plan frontier --step 0 "$T/r.trace"
has "$T/err" "--step '0'" "  ... naming it"
expect 2 "--step 120" memplan-plan frontier --step 120 "$T/r.trace"
expect 2 "--steps 0" memplan-plan frontier --steps 0 "$T/r.trace"
expect 2 "--steps with --step" memplan-plan frontier --steps 4 --step 5 "$T/r.trace"
expect 2 "--from 0" memplan-plan frontier --from 0 "$T/r.trace"
expect 2 "--from 101%" memplan-plan frontier --from 101% "$T/r.trace"
expect 2 "--to above --from" memplan-plan frontier --from 50 --to 60 "$T/r.trace"
expect 2 "--csv with --json" memplan-plan frontier --csv --json "$T/r.trace"
expect 2 "--strategies zero" memplan-plan frontier --strategies memplan,zero "$T/r.trace"
has "$T/err" "'zero'" "  ... naming it"
expect 2 "--strategies memplan,memplan" memplan-plan frontier --strategies memplan,memplan "$T/r.trace"
expect 2 "--strategies ," memplan-plan frontier --strategies , "$T/r.trace"
expect 2 "--placer exact (a search)" memplan-plan frontier --placer exact "$T/r.trace"
expect 2 "--link pcie9" memplan-plan frontier --link pcie9 "$T/r.trace"
has "$T/err" "pcie9" "  ... naming it"
expect 2 "-o -" memplan-plan frontier "$T/r.trace" -o -
expect 0 "frontier --help" memplan-plan frontier --help
has "$T/out" "frontier TRACE" "  ... prints the usage"

done_testing
