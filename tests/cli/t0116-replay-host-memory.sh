#!/bin/sh
# memplan-replay in bounded host memory: the host backend holds the plan's
# pool in this process, and a full check touches every byte (GPT-2 at batch
# 8: a 19.4 GiB pool).  --check sample writes and checks each large
# buffer's ends and 4 KiB of every MiB of address (about 1/256 of the
# bytes); auto (the default) checks in full when that fits in the
# available memory, else samples, saying so; a replay that cannot fit even
# so says what it needs before it starts (exit 5), never fails halfway.
. tests/cli/lib.sh
need_python3

# maxrss CMD...: runs CMD (stdout in $T/out, stderr in $T/err), prints
# "STATUS MAXRSS_MIB"
maxrss() {
	python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "w"), stderr=open(sys.argv[1] + ".err", "w"))
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$T/out" "$@"
	mv "$T/out.err" "$T/err"
}

# a sanitizer build maps terabytes of shadow memory: no ulimit -v fits it,
# and its resident set is not the replay's own
san=$(ldd "$(command -v memplan-replay)" 2>/dev/null | grep -c 'lib[at]san\.')

memplan-trace synth --model gpt2 --batch 1 -o "$T/g1.trace" >/dev/null &&
	memplan-plan compile "$T/g1.trace" -o "$T/g1.plan" >/dev/null
ok $? "GPT-2 at batch 1 and its plan (a 2.4 GiB pool)"

set -- $(maxrss memplan-replay --check sample "$T/g1.plan" "$T/g1.trace")
[ "$1" -eq 0 ]
ok $? "--check sample: the replay runs"
has "$T/out" "valid: 2 iterations (2 followed)" "  ... and finds the plan valid"
if [ "$san" -gt 0 ]; then
	skip "  ... in $2 MiB of host memory" "a sanitizer build: its shadow memory counts in the resident set"
else
	[ "$2" -lt 400 ]
	ok $? "  ... in $2 MiB of host memory (a full check takes the pool, 2.4 GiB and more)"
fi
bytes=$(sed -n 's/.* checks of \([0-9]*\) bytes.*/\1/p' "$T/out")
[ "$bytes" -lt 1000000000 ]
ok $? "  ... checking $bytes bytes, samples of the 63 GB a full check reads"

# the address space a process may take: what the host backend reserves
# does not fit, so the replay says so before it starts
if [ "$san" -gt 0 ]; then
	skip "under ulimit -v 3 GB: exit 5 before anything runs" "a sanitizer build cannot start under ulimit -v"
else
	(ulimit -v 3000000 && exec memplan-replay "$T/g1.plan" "$T/g1.trace") >"$T/out" 2>"$T/err"
	[ $? -eq 5 ]
	ok $? "under ulimit -v 3 GB: exit 5 before anything runs"
	has "$T/err" "the host backend reserves 4.32 GiB of host memory, the pool (2.43 GiB)" "  ... saying what it needs"
	has "$T/err" "the process's address-space limit (ulimit -v) is 2.86 GiB, even checking samples: replay with --backend cuda" \
		"  ... what limits it, and what to do"
	[ ! -s "$T/out" ]
	ok $? "  ... and no verdict"
fi

# small buffers are checked whole, sampled or not
memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" >/dev/null &&
	memplan-plan compile "$T/a.trace" -o "$T/a.plan" >/dev/null
expect 0 "auto on a small plan" memplan-replay "$T/a.plan" "$T/a.trace"
full=$(sed -n 's/.* checks of \([0-9]*\) bytes.*/\1/p' "$T/out")
[ ! -s "$T/err" ]
ok $? "  ... checks in full, without a note"
expect 0 "--check full" memplan-replay --check full "$T/a.plan" "$T/a.trace"
has "$T/out" "checks of $full bytes" "  ... the same bytes as auto"
expect 2 "--check with a bad value" memplan-replay --check some "$T/a.plan" "$T/a.trace"

# sampled checks still find two large buffers sharing bytes: a plan that
# trusts a hole nothing moves (as t0300's, with 8 MiB buffers)
printf 'id,lower,upper,size,gaps\n0,0,10,8388608,2-8\n1,3,7,8388608,\n2,1,9,4096,\n' >"$T/big.csv"
memplan-trace import --from minimalloc-csv "$T/big.csv" -o "$T/big.trace" >/dev/null 2>&1 &&
	memplan-plan compile --trust-holes "$T/big.csv" -o "$T/big.plan" >/dev/null 2>&1
ok $? "a plan of two 8 MiB buffers over one's hole"
expect 1 "--check sample finds the overlap" memplan-replay --check sample "$T/big.plan" "$T/big.trace"
has "$T/out" "two buffers resident at the same time overlap" "  ... naming it"
n=$(sed -n 's/.* checks of \([0-9]*\) bytes.*/\1/p' "$T/out")
[ "${n:-99999999}" -lt 1048576 ]
ok $? "  ... checking $n bytes of the 32 MiB a full check reads"

# GPT-2 at batch 8, where the machine can hold its pool at all
memplan-trace synth --model gpt2 --batch 8 -o "$T/g8.trace" >/dev/null &&
	memplan-plan compile "$T/g8.trace" -o "$T/g8.plan" >/dev/null
ok $? "GPT-2 at batch 8 and its plan (a 19.4 GiB pool)"
# what the host backend reserves for it: 21.32 GiB, 22.9 GB
mem=$(awk '/^MemTotal:/ { print int($2 / 1000) }' /proc/meminfo 2>/dev/null)
if [ "${mem:-0}" -gt 22900 ]; then
	set -- $(maxrss memplan-replay --check sample "$T/g8.plan" "$T/g8.trace")
	[ "$1" -eq 0 ]
	ok $? "GPT-2 batch 8, --check sample: runs"
	has "$T/out" "valid: 2 iterations (2 followed)" "  ... valid"
	if [ "$san" -gt 0 ]; then
		skip "  ... in $2 MiB of host memory" "a sanitizer build: its shadow memory counts in the resident set"
	else
		[ "$2" -lt 1024 ]
		ok $? "  ... in $2 MiB of host memory"
	fi
else
	expect 5 "GPT-2 batch 8 on a machine of ${mem} MB: exit 5 before it starts" \
		memplan-replay "$T/g8.plan" "$T/g8.trace"
	has "$T/err" "the host backend reserves 21.32 GiB of host memory" "  ... saying what it needs"
fi

done_testing
