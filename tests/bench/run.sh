#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/bench/run.sh - `make bench`: every benchmark program in
# $BUILD/bench/, each printing rows of figures, under one heading apiece,
# then the synthetic zoo's generation time.  Figures, not assertions.
# bench_runtime's rows are followed by the runtime's and malloc's
# instructions per request (tests/bench/instructions.sh, callgrind).
# bench_placement runs memplan-plan compile as a child per instance (the
# issue-16 table: large DL-shaped instances, A-K, somas-resnet50).
BUILD=${BUILD:-build}
export BUILD SHARED_DATA
echo "memplan bench on $(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d)"
for b in "$BUILD"/bench/bench_*; do
	[ -x "$b" ] || continue
	echo
	echo "== ${b##*/}"
	"$b" ${BENCH_ARGS:-} || echo "(${b##*/} failed with status $?)"
	# beside the runtime's nanoseconds, its instructions per request
	# (callgrind, each case's requests only; skipped without valgrind)
	[ "${b##*/}" = bench_runtime ] && sh tests/bench/instructions.sh "$b"
done
# The packed class's goal (issue 32: at the optimum within 5 s whatever the
# seed): seeds 1-100 of the big shape (300-450 buffers) under compile
# --time-limit 5, then the guillotine search alone on them (counted steps:
# the same on any machine), and on the large shape.
echo
echo "== packed class, big shape (bench_placement --packed-only --shape big --time-limit 5)"
"$BUILD/bench/bench_placement" --packed-only --packed 1-100 --shape big --time-limit 5 |
	awk 'NR <= 2 { next } $5 == "1.00000" { at++ } $5 != "1.00000" { above = above " " $1 " " $5 }
	     { n++ } END { printf "%d of %d at the bound; above:%s\n", at, n, above == "" ? " none" : above }'
"$BUILD/bench/bench_placement" --guillotine-steps 20000000 --shape big --packed 1-100 | tail -n 1
# and cut from larger squares (1,500-2,000 buffers): the guillotine search
# alone (about 3 CPU s)
echo "large shape, seeds 1-10: the guillotine search alone: $("$BUILD/bench/bench_placement" --guillotine-steps 20000000 --shape large --packed 1-10 | tail -n 1)"

echo
echo "== synth (memplan-trace synth, wall time per trace)"
printf '%-14s %6s %10s\n' model batch seconds
for spec in "alexnet 128" "vgg16 32" "resnet50 32" "inception_v3 32" "bert-base 32" "gpt2 8"; do
	set -- $spec
	t0=$(date +%s.%N)
	"$BUILD/bin/memplan-trace" synth --model "$1" --batch "$2" -o "/tmp/memplan-bench-$$.trace" >/dev/null
	t1=$(date +%s.%N)
	awk -v m="$1" -v b="$2" -v a="$t0" -v z="$t1" 'BEGIN { printf "%-14s %6s %10.3f\n", m, b, z - a }'
done
rm -f "/tmp/memplan-bench-$$.trace"

# Importing a PyTorch execution trace of BENCH_ET_NODES nodes (default 10^6,
# about 0.9 GB of JSON, written by tests/import/make_et.py): wall time and,
# where /usr/bin/time is, the peak resident memory of the import.
echo
echo "== pytorch-et import (memplan-trace import --from pytorch-et)"
et_nodes=${BENCH_ET_NODES:-1000000}
et=/tmp/memplan-bench-$$.et.json
if command -v python3 >/dev/null 2>&1 &&
	python3 tests/import/make_et.py 1.1.1 "$et" --big "$et_nodes"; then
	printf '%-10s %12s %10s %14s\n' nodes json_bytes seconds peak_rss_kib
	t0=$(date +%s.%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M' -o "$et.rss" "$BUILD/bin/memplan-trace" import --from pytorch-et \
			"$et" -o "$et.trace" >/dev/null
	else
		"$BUILD/bin/memplan-trace" import --from pytorch-et "$et" -o "$et.trace" >/dev/null
	fi
	t1=$(date +%s.%N)
	awk -v n="$et_nodes" -v b="$(wc -c <"$et")" -v a="$t0" -v z="$t1" \
		-v r="$(cat "$et.rss" 2>/dev/null || echo -)" \
		'BEGIN { printf "%-10s %12s %10.3f %14s\n", n, b, z - a, r }'
else
	echo "(python3 missing: skipped)"
fi
rm -f "$et" "$et.trace" "$et.rss"

echo
echo "== replay (memplan-replay, host backend: --check sample vs full)"
# sample writes and checks each buffer's ends and 4 KiB of every MiB, so
# the pool's untouched pages are never committed; full touches every byte
if command -v python3 >/dev/null 2>&1; then
	printf '%-8s %6s %-7s %10s %14s %16s\n' model batch check seconds peak_rss_mib bytes_checked
	rp=/tmp/memplan-bench-$$.replay
	for spec in "gpt2 1 full" "gpt2 1 sample" "gpt2 8 sample"; do
		set -- $spec
		"$BUILD/bin/memplan-trace" synth --model "$1" --batch "$2" -o "$rp.trace" >/dev/null &&
			"$BUILD/bin/memplan-plan" compile "$rp.trace" -o "$rp.plan" >/dev/null || continue
		python3 -c '
import resource, subprocess, sys, time
t = time.time()
r = subprocess.run(sys.argv[4:], capture_output=True, text=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
b = r.stdout.split(" checks of ")[1].split()[0] if " checks of " in r.stdout else "-"
print("%-8s %6s %-7s %10.3f %14d %16s%s" % (sys.argv[1], sys.argv[2], sys.argv[3],
      time.time() - t, rss, b, "" if r.returncode == 0 else " (exit %d)" % r.returncode))
' "$1" "$2" "$3" "$BUILD/bin/memplan-replay" --check "$3" "$rp.plan" "$rp.trace"
	done
	rm -f "$rp.trace" "$rp.plan"
else
	echo "(python3 missing: skipped)"
fi
