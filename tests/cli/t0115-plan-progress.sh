#!/bin/sh
# Progress on every command that can take seconds (share, advise, compare,
# compile with a budget, and frontier, whose line they now share: cli/progress.h):
# on a terminal, one stderr line rewritten in place and erased at the end,
# so the output shows alone; nothing when stderr is a file or a pipe, and
# nothing with --quiet.  tests/cli/ptyrun.py puts stderr on a
# pseudo-terminal.
. tests/cli/lib.sh

need_python3
memplan-trace synth --model alexnet --batch 8 -o "$T/a.trace" >/dev/null 2>"$T/err" &&
	memplan-trace synth --model resnet50 --batch 2 -o "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "two traces"

# same A B: two outputs alike but for seconds measured (compare's table)
same() {
	sed -E 's/[0-9]+\.[0-9]+ ?s\b/Ts/g' "$1" >"$1.n"
	sed -E 's/[0-9]+\.[0-9]+ ?s\b/Ts/g' "$2" >"$2.n"
	cmp -s "$1.n" "$2.n"
}

# check NAME WORDS CMD...: a progress line on a terminal, none on a file,
# none with --quiet on a terminal; the output the same in all three
check() {
	name=$1 words=$2
	shift 2
	python3 tests/cli/ptyrun.py "$T/tty" "$@" >"$T/out.tty" 2>"$T/err"
	st=$?
	grep -q "$(printf '\r')memplan-plan: $words" "$T/tty" &&
		grep -q "$(printf '\r\033')\[K\$" "$T/tty" && [ "$(tail -c 4 "$T/tty" | od -An -c | tr -d ' ')" = "\r033[K" ]
	ok $(( $? || st )) "$name: on a terminal, a progress line ('$words ...'), erased at the end"
	"$@" >"$T/out.file" 2>"$T/err.file"
	! grep -q "$words" "$T/err.file" && same "$T/out.tty" "$T/out.file"
	ok $? "$name: stderr a file: no progress, the same output"
	python3 tests/cli/ptyrun.py "$T/tty.q" "$@" --quiet >"$T/out.q" 2>"$T/err"
	st=$?
	[ ! -s "$T/tty.q" ] && same "$T/out.q" "$T/out.file"
	ok $(( $? || st )) "$name: --quiet on a terminal: nothing on stderr, the same output"
}

check share "share: trace 1 of 2" \
	memplan-plan share "$T/a.trace" "$T/r.trace" --device-memory 1300MiB --link pcie5 -o "$T/shr"
check advise "advise: planning hybrid" \
	memplan-plan advise "$T/r.trace" --budget 70% --link pcie5
check "compile --swap-strategy hybrid" "compile: planning hybrid for a pool of" \
	memplan-plan compile "$T/r.trace" --budget 70% --link pcie5 --swap-strategy hybrid -o "$T/h.plan"
check compare "compare: " \
	memplan-plan compare "$T/a.trace" "$T/r.trace" --strategies best-fit,greedy-size
# frontier keeps its log of one line per budget when stderr is a file
python3 tests/cli/ptyrun.py "$T/tty" memplan-plan frontier "$T/a.trace" --link pcie5 \
	--from 90 --to 60 --step 10 >"$T/out" 2>"$T/err" &&
	grep -q "$(printf '\r')memplan-plan: frontier: budget 80% (" "$T/tty" &&
	[ "$(tail -c 4 "$T/tty" | od -An -c | tr -d ' ')" = "\r033[K" ]
ok $? "frontier: on a terminal, the same progress line, erased at the end"
done_testing
