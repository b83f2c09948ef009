#!/bin/sh
# compare over an archive in shards: --list, --shard K/N, --merge, and the
# Slurm job-array script; the merged shards give the table of one run
# (every column but the seconds).
. tests/cli/lib.sh

i=0
for m in alexnet resnet50 vgg16 gpt2 bert-base; do
	i=$((i + 1))
	memplan-trace synth --model $m --batch $i -o "$T/t$i.trace" >/dev/null ||
		echo "# synth $m failed"
	echo "$T/t$i.trace" >>"$T/list"
done
printf '# a comment, then a blank line\n\n' >>"$T/list"
strat="--strategies first-fit,greedy-size"
# the columns without the seconds (6 and 10)
noseconds() { cut -d, -f1-5,7-9,11- "$1"; }

expect 0 "one run over the list" memplan-plan compare --csv $strat --list "$T/list"
cp "$T/out" "$T/all.csv"
[ "$(wc -l <"$T/all.csv")" -eq 7 ]
ok $? "one header, five rows and the summary row"
tail -1 "$T/all.csv" | grep -q '^#summary,5,'
ok $? "the summary row is the last, marked, over five traces"

for n in 1 2 3 7; do
	shards=""
	st=0
	for k in $(seq 1 $n); do
		memplan-plan compare --csv $strat --list "$T/list" --shard $k/$n \
			>"$T/s$k.csv" 2>"$T/err" || st=1
		shards="$shards $T/s$k.csv"
	done
	ok $st "$n shards run"
	expect 0 "$n shards merge" memplan-plan compare --merge $shards
	noseconds "$T/out" >"$T/m"
	noseconds "$T/all.csv" >"$T/a"
	cmp -s "$T/m" "$T/a"
	ok $? "$n shards merged are the one run's table"
done

for k in 1 2 3; do
	memplan-plan compare --json --strategies greedy-size --list "$T/list" \
		--shard $k/3 >"$T/j$k.json"
done
expect 0 "JSON shards merge" memplan-plan compare --merge "$T/j1.json" "$T/j2.json" "$T/j3.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [t["trace"] for t in d["traces"]]
want = [l.strip() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
sys.exit(0 if names == want and d["strategies"] == ["greedy-size"] else 1)
' "$T/out" "$T/list"
ok $? "merged JSON is valid and lists every trace in order"

memplan-plan compare --csv --strategies first-fit --list "$T/list" --shard 1/2 >"$T/other.csv"
expect 3 "shards of other strategies do not merge" memplan-plan compare --merge "$T/s1.csv" "$T/other.csv"
has "$T/err" "other.csv', line 1: the header differs" "the refusal names the shard and line"
expect 3 "CSV and JSON do not merge" memplan-plan compare --merge "$T/s1.csv" "$T/j1.json"
echo "not a shard" >"$T/junk"
expect 3 "a file that is no shard" memplan-plan compare --merge "$T/junk"
has "$T/err" "junk', line 1" "names the file"
expect 3 "a directory as a shard" memplan-plan compare --merge "$T"
expect 2 "shard 0/3" memplan-plan compare --shard 0/3 "$T/t1.trace"
expect 2 "shard 4/3" memplan-plan compare --shard 4/3 "$T/t1.trace"
expect 2 "shard 1/x" memplan-plan compare --shard 1/x "$T/t1.trace"
expect 2 "--list and traces" memplan-plan compare --list "$T/list" "$T/t1.trace"
expect 3 "a missing list" memplan-plan compare --list "$T/nolist"
: >"$T/empty"
expect 3 "an empty list" memplan-plan compare --list "$T/empty"
has "$T/err" "names no trace" "says the list is empty"

# the Slurm script, as its array tasks would run it
st=0
for k in 1 2 3; do
	SLURM_ARRAY_TASK_ID=$((k + 9)) SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_COUNT=3 \
		LIST="$T/list" OUT="$T/slurm" bash planner/placement/compare.sbatch $strat \
		>"$T/out" 2>"$T/err" || st=1
done
ok $st "the job array's three tasks"
MERGE=1 N=3 OUT="$T/slurm" bash planner/placement/compare.sbatch >"$T/out" 2>"$T/err"
ok $? "the merge step"
noseconds "$T/slurm/compare.csv" >"$T/m"
cmp -s "$T/m" "$T/a"
ok $? "the job array's table is the one run's"
rm "$T/slurm/shard-2-of-3.csv"
MERGE=1 N=3 OUT="$T/slurm" bash planner/placement/compare.sbatch >"$T/out" 2>"$T/err"
[ $? -eq 3 ]
ok $? "a missing shard stops the merge"
has "$T/err" "shard-2-of-3.csv is missing" "naming it"

# on a machine with a Slurm cluster, the real thing
if command -v sbatch >/dev/null 2>&1 && sinfo -h >/dev/null 2>&1; then
	mkdir -p "$T/real"
	LIST="$T/list" OUT="$T/real" MEMPLAN_PLAN_BIN="$(command -v memplan-plan)" \
		sbatch --wait --array=1-3 --chdir="$PWD" planner/placement/compare.sbatch $strat \
		>"$T/out" 2>"$T/err"
	ok $? "sbatch --array=1-3"
	MERGE=1 N=3 OUT="$T/real" bash planner/placement/compare.sbatch >/dev/null 2>"$T/err"
	noseconds "$T/real/compare.csv" >"$T/m"
	cmp -s "$T/m" "$T/a"
	ok $? "Slurm's table is the one run's"
else
	skip "a real Slurm job array" "no Slurm cluster here (sbatch/sinfo)"
fi

done_testing
