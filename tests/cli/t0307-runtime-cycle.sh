#!/bin/sh
# Issue 18, jobs taking turns in one process, in a program that does not
# know the runtime: the tests' CUDA client (tests/cuda/app.c) performs two
# traces in turn on the stand-in libcudart under LD_PRELOAD, with a plan
# compiled from both with --cycle.  Each turn is recognised by its first
# requests and followed, also under random delays; in
# the other order, and with a turn that differs, what does not match
# diverges to the real allocator; every byte the client checks is intact
# throughout.  (Swaps within a cycle: t0306, on traces with GPU times.)
. tests/cli/lib.sh

APP=$BUILD/tests/cuda/app
LIB=$BUILD_DIR/lib/libmemplan.so
san=$(ldd "$LIB" 2>/dev/null | awk '/lib(asan|ubsan|tsan)\./ { printf "%s ", $3 }')
PRE="$san$LIB"
"$BUILD/tests/cuda/fixtures" "$T" 2>"$T/err"
ok $? "the fixtures"
A=$T/swap.trace B=$T/late-free.trace

# run NAME PLAN APP-ARGS...: the client under LD_PRELOAD with statistics
run() {
	what=$1
	plan=$2
	shift 2
	LD_PRELOAD=$PRE MEMPLAN_PLAN=$plan MEMPLAN_SHOW_STATS=1 "$APP" --check-errors "$@" >"$T/out" 2>"$T/err"
	st=$?
	cat "$T/err" >>"$T/out"
	[ $st -eq 0 ]
	ok $? "$what"
	[ $st -ne 0 ] && sed 's/^/#   /' "$T/out" | head -20
}
stat_is() { # NAME VALUE DESCRIPTION
	grep -qE "^$1 +$2 " "$T/out"
	st=$?
	[ $st -ne 0 ] && grep -E "^$1 " "$T/out" | sed 's/^/#   got: /'
	ok $st "$3"
}

"$APP" "$A" "$B" >"$T/out" 2>"$T/err"
ok $? "the client performs two traces in turn on the stand-in alone"
memplan-plan compile --cycle "$A" "$B" -o "$T/ab.plan" >"$T/out" 2>"$T/err"
ok $? "a plan of the two taking turns (compile --cycle)"

run "LD_PRELOAD with the cycle plan: every check passes" "$T/ab.plan" "$A" "$B" --iterations 4
stat_is iterations 8 "  ... every turn of 4 cycles followed"
stat_is completed 8 "  ... to its end"
stat_is out_of_order 0 "  ... in the cycle's order"
stat_is divergences 0 "  ... no divergence"
has "$T/out" "0 bad frees" "  ... the stand-in never got a pointer it did not hand out"
export FAKECUDA_DELAY_US=300 FAKECUDA_COPY_DELAY_US=20000
run "  ... also with random delays on the stand-in's streams and copies" "$T/ab.plan" "$A" "$B" --iterations 4
stat_is completed 8 "  ... every turn followed"
unset FAKECUDA_DELAY_US FAKECUDA_COPY_DELAY_US

# late-free.trace begins with swap.trace's very requests: in the other
# order its first half is taken for swap.trace's turn, and the rest, which
# is not late-free.trace's turn, diverges (a limit libmemplan(3) states)
run "the turns in the other order: every check passes" "$T/ab.plan" "$B" "$A" --iterations 4
grep -qE "^divergences +[1-9]" "$T/out"
ok $? "  ... where the plan expects another turn, the real allocator"
has "$T/out" "where the plan has the free of plan entry" "  ... said"
grep -qE "^completed +[1-9]" "$T/out"
ok $? "  ... and the turns that match are followed"

run "a turn that differs: every check passes" "$T/ab.plan" "$A" "$B" --iterations 4 --diverge 1
grep -qE "^divergences +[1-9]" "$T/out"
ok $? "  ... it diverged to the real allocator"
grep -qE "^completed +[1-9]" "$T/out"
ok $? "  ... and the other turns were followed"

done_testing
