#!/bin/sh
# libmemplan and a plan compiled with --trust-holes: such a plan is valid
# only if something else moves the trace's holes, which the runtime does
# not.  By default (MEMPLAN_ON_UNSAFE=abort) it refuses the plan at open,
# says why once, and the program runs on the real allocator, every check
# passing; MEMPLAN_ON_UNSAFE=warn follows it, says so once, and the
# program then reads the bytes the hole lent (the client's checks fail).
. tests/cli/lib.sh

APP=$BUILD/tests/cuda/app
LIB=$BUILD_DIR/lib/libmemplan.so
san=$(ldd "$LIB" 2>/dev/null | awk '/lib(asan|ubsan|tsan)\./ { printf "%s ", $3 }')
MEMPLAN_CUDART=$BUILD_DIR/tests/cuda/libcudart.so.12
export MEMPLAN_CUDART

# buffer 1 lives in buffer 0's hole [2, 8) when the plan trusts holes
printf 'id,lower,upper,size,gaps\n0,0,10,1024,2-8\n1,3,7,1024,\n2,1,9,512,\n' >"$T/gaps.csv"
memplan-trace import --from minimalloc-csv "$T/gaps.csv" -o "$T/gaps.trace" >/dev/null 2>"$T/err"
ok $? "a MiniMalloc instance with a hole, as a trace"
memplan-plan compile --trust-holes --align 256 "$T/gaps.csv" -o "$T/gt.plan" >/dev/null 2>"$T/err"
ok $? "  ... its plan with --trust-holes"

# preload MODE: the client under the library, MEMPLAN_ON_UNSAFE=MODE
# (empty: unset), statistics and stderr in $T/out
preload() {
	if [ -n "$1" ]; then
		MEMPLAN_ON_UNSAFE=$1
		export MEMPLAN_ON_UNSAFE
	else
		unset MEMPLAN_ON_UNSAFE
	fi
	LD_PRELOAD="$san$LIB" MEMPLAN_PLAN=$T/gt.plan MEMPLAN_SHOW_STATS=1 \
		"$APP" "$T/gaps.trace" --iterations 3 >"$T/out" 2>&1
	st=$?
	unset MEMPLAN_ON_UNSAFE
	return $st
}
stat() { sed -n "s/^$1  *\([0-9][0-9]*\) .*/\1/p" "$T/out"; }

for mode in "" abort; do
	preload "$mode"
	ok $? "MEMPLAN_ON_UNSAFE=${mode:-(unset)}: the program runs, every check passes"
	has "$T/out" "plan '$T/gt.plan': the plan was compiled with --trust-holes: it is valid only if something else moves the trace's holes, which the runtime does not (not followed; MEMPLAN_ON_UNSAFE=warn follows it): device 0 runs on the real allocator" \
		"  ... the plan refused at open, saying why"
	[ "$(stat planned_allocs)" = 0 ] && [ "$(stat iterations)" = 0 ]
	ok $? "  ... nothing served from the pool"
	[ "$(grep -c 'trust-holes' "$T/out")" = 1 ]
	ok $? "  ... said once"
done

preload warn
[ $? -eq 1 ]
ok $? "MEMPLAN_ON_UNSAFE=warn: the plan is followed, and the hole's bytes are lost"
has "$T/out" "memplan: warning: the plan was compiled with --trust-holes: it is valid only if something else moves the trace's holes, which the runtime does not (followed, since MEMPLAN_ON_UNSAFE=warn asked for it)" \
	"  ... said once, at open"
has "$T/out" "buffer 0 of iteration 1: byte 0 holds the pattern of buffer 1" \
	"  ... buffer 0 reads buffer 1's bytes, as promised"
[ "$(stat iterations)" = 3 ]
ok $? "  ... every iteration followed"

# a plan without the flag: no word of holes
memplan-plan compile --align 256 "$T/gaps.csv" -o "$T/gt.plan" >/dev/null 2>"$T/err"
preload ""
ok $? "the same trace's plan without --trust-holes: followed, every check passes"
! grep -q "trust-holes" "$T/out" && [ "$(stat iterations)" = 3 ]
ok $? "  ... without a word of holes"

done_testing
