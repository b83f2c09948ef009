#!/bin/sh
# compare on a real Slurm cluster: a one-node cluster from Debian's slurmctld,
# slurmd and munge, configured in the test's temporary folder (its own munge
# key and socket, its own ports, the node's real hostname, no cgroups, no
# accounting), runs the installed compare.sbatch as a job array with
# `sbatch --wait`; the merged shards are the table of one run (every column
# but the seconds).  Every daemon is stopped at the end, whatever happens;
# nothing waits longer than a timeout (10 s for munged, 30 s for the node,
# 120 s for the jobs: under 3 minutes in all; 13 s here).  Without the
# packages, or not as root (slurmd), it skips.
. tests/cli/lib.sh

for p in slurmctld slurmd munged sbatch sinfo scontrol timeout; do
	if ! command -v $p >/dev/null 2>&1 && [ ! -x /usr/sbin/$p ]; then
		skip "a real one-node Slurm cluster" \
			"$p is not installed (apt-get install slurmctld slurmd munge slurm-client)"
		done_testing
		exit
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	skip "a real one-node Slurm cluster" "slurmd runs jobs as root only (CI runs as root)"
	done_testing
	exit
fi
PATH=$PATH:/usr/sbin
S=$T/slurm
mkdir -p "$S/spool" "$S/state" "$S/munge" "$S/out"
chmod 700 "$S/munge"

# the daemons, stopped by their pids at exit, whatever happened
pids=""
stop() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	sleep 1
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap stop EXIT
trap 'exit 1' INT TERM HUP

# diagnostics for a failure: the tail of each daemon's log
logs() {
	for l in "$S"/*.log; do
		[ -f "$l" ] && tail -n 8 "$l" | sed "s|^|#   ${l##*/}: |"
	done
}

# munge: its own key, socket and files; --force since /tmp is group- or
# world-writable
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$S/munge/munge.key"
munged --force --foreground --key-file="$S/munge/munge.key" \
	--socket="$S/munge/sock" --pid-file="$S/munge/pid" \
	--seed-file="$S/munge/seed" --log-file="$S/munge.log" 2>>"$S/munge.log" &
pids="$pids $!"
i=0
while [ ! -S "$S/munge/sock" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
[ -S "$S/munge/sock" ]
ok $? "munged starts with the test's own key and socket" || { logs; done_testing; exit; }

host=$(hostname -s 2>/dev/null || hostname)
cpus=$(nproc 2>/dev/null || echo 1)
user=$(id -un)
# ports of the test's own, away from a real cluster's 6817/6818
base=$((20000 + $$ % 20000))
cat >"$S/slurm.conf" <<EOF
ClusterName=memplan-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP
EOF
SLURM_CONF=$S/slurm.conf
export SLURM_CONF

slurmctld -D -i -f "$SLURM_CONF" >>"$S/slurmctld.log" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" -N "$host" >>"$S/slurmd.log" 2>&1 &
pids="$pids $!"
# the node is up when sinfo says idle (30 s at most, whatever sinfo does)
deadline=$(($(date +%s) + 30))
state=""
while [ "$(date +%s)" -lt $deadline ]; do
	state=$(timeout 3 sinfo -h -o %t 2>/dev/null | head -n 1)
	[ "$state" = idle ] && break
	sleep 0.5
done
[ "$state" = idle ]
ok $? "slurmctld and slurmd start, the node '$host' is idle ($cpus CPUs)" ||
	{ logs; done_testing; exit; }

# the traces, and the table of one run
i=0
for m in alexnet resnet50 vgg16 gpt2; do
	i=$((i + 1))
	memplan-trace synth --model $m --batch $i -o "$T/t$i.trace" >/dev/null ||
		echo "# synth $m failed"
	echo "$T/t$i.trace" >>"$T/list"
done
strat="--strategies first-fit,greedy-size,auto"
# the columns without the seconds (6, 10 and 14)
noseconds() { cut -d, -f1-5,7-9,11-13,15- "$1"; }
expect 0 "one run over the list" memplan-plan compare --csv $strat --list "$T/list"
noseconds "$T/out" >"$T/a"

# the script as `make install` puts it
make -s install BUILD="$BUILD" DESTDIR="$T/stage" PREFIX=/usr >"$T/out" 2>"$T/err"
ok $? "make install"
script=$T/stage/usr/share/memplan/compare.sbatch
[ -f "$script" ]
ok $? "compare.sbatch is installed in PREFIX/share/memplan"

timeout 120 sbatch --wait --array=1-3 --chdir="$T" --output="$S/out/task-%a.log" \
	--export=ALL,LIST="$T/list",OUT="$T/real",MEMPLAN_PLAN_BIN="$(command -v memplan-plan)" \
	"$script" $strat >"$T/out" 2>"$T/err"
st=$?
[ $st -ne 0 ] && { echo "#   sbatch exit status $st"; cat "$S"/out/*.log 2>/dev/null | head -n 10 | sed 's/^/#   task: /'; logs; }
ok $st "sbatch --wait --array=1-3 runs the three shards"
has "$T/out" "Submitted batch job" "  ... Slurm took the job array"
ls "$T"/real/shard-*-of-3.csv >/dev/null 2>&1
ok $? "  ... each task wrote its shard"

MERGE=1 N=3 OUT="$T/real" MEMPLAN_PLAN_BIN="$(command -v memplan-plan)" \
	bash "$script" >"$T/out" 2>"$T/err"
ok $? "the shards merge"
expect 0 "memplan-plan compare --merge of the shards" memplan-plan compare --merge \
	"$T/real/shard-1-of-3.csv" "$T/real/shard-2-of-3.csv" "$T/real/shard-3-of-3.csv"
noseconds "$T/real/compare.csv" >"$T/m"
diff "$T/a" "$T/m" | head -n 8 | sed 's/^/#   /'
cmp -s "$T/m" "$T/a"
ok $? "Slurm's table is the one run's (same rows, but the seconds)"
[ "$(grep -vc '^#' "$T/m")" -eq 5 ]
ok $? "  ... a header and four traces"

done_testing
