#!/bin/sh
# A deployment's setup checked without a GPU: memplan-plan check-env names
# MEMPLAN_* variables nobody reads with the nearest real name, values the
# runtime would ignore, plans that do not open (a trace given as the plan
# says so) and an LD_PRELOAD that names no readable libmemplan, and says
# what libmemplan would do (exit 0 fine, 1 problems).  libmemplan itself
# warns once, when it loads (in a process without CUDA too), for each
# unknown MEMPLAN_* variable (did you mean ...?), and not for those other
# parts of memplan read, nor under MEMPLAN_VERBOSE=-1.
. tests/cli/lib.sh

memplan-trace synth --model alexnet --batch 2 -o "$T/a.trace" >/dev/null &&
	memplan-plan compile "$T/a.trace" -o "$T/a.plan" >/dev/null
ok $? "a trace and its plan"
LIB=$BUILD_DIR/lib/libmemplan.so
# a sanitizer build of the library needs its runtimes loaded before it
# (as t0301 preloads it)
SAN=$(ldd "$LIB" 2>/dev/null | awk '/lib(asan|ubsan|tsan)\./ { printf "%s ", $3 }')
PRE="$SAN$LIB"

# check ENV...: check-env in exactly that environment
check() {
	env -i PATH="$PATH" "$@" memplan-plan check-env >"$T/out" 2>"$T/err"
}

check MEMPLAN_PLAN="$T/a.plan" LD_PRELOAD="$PRE" MEMPLAN_SHOW_STATS=1
ok $? "a sound setup: exit 0"
has "$T/out" "plan: $T/a.plan: device 0, pool" "  ... the plan opens, its device and pool"
has "$T/out" "ok: LD_PRELOAD names $LIB" "  ... LD_PRELOAD names the library"
has "$T/out" "verdict: libmemplan would follow 1 plan" "  ... the verdict"
[ ! -s "$T/err" ]
ok $? "  ... nothing on stderr"

check MEMPLAN_PLAN="$T/a.plan" MEMPLAN_SHOW_STAT=1 MEMPLAN_PLANS=x MEMPLAN_FROBNICATE=1
[ $? -eq 1 ]
ok $? "misspelt variables: exit 1"
has "$T/out" "problem: MEMPLAN_SHOW_STAT means nothing to libmemplan: did you mean MEMPLAN_SHOW_STATS?" \
	"  ... MEMPLAN_SHOW_STAT, did you mean MEMPLAN_SHOW_STATS"
has "$T/out" "MEMPLAN_PLANS means nothing to libmemplan: did you mean MEMPLAN_PLAN?" \
	"  ... MEMPLAN_PLANS, did you mean MEMPLAN_PLAN"
has "$T/out" "problem: MEMPLAN_FROBNICATE means nothing to libmemplan (see libmemplan(3))" \
	"  ... a name near none, without a guess"
has "$T/out" "verdict: 3 problems: libmemplan would follow the plans, after warnings" "  ... the verdict"
check MEMPLAN_PLAN="$T/a.plan" MEMPLAN_BIN=/x MEMPLAN_CAPTURE_OUTPUT=/x MEMPLAN_PLAN_BIN=/x
ok $? "the variables of memplan's other parts are no problem"
if grep -q 'MEMPLAN_\(BIN\|CAPTURE_OUTPUT\)' "$T/out"; then r=1; else r=0; fi
ok $r "  ... and are not named"

check MEMPLAN_PLAN="$T/a.plan" MEMPLAN_VERBOSE=loud MEMPLAN_ON_UNSAFE=ignore
[ $? -eq 1 ]
ok $? "values the runtime would ignore: exit 1"
has "$T/out" "MEMPLAN_VERBOSE='loud' means nothing to libmemplan: MEMPLAN_VERBOSE=0 would apply" "  ... names the default that applies"
has "$T/out" "MEMPLAN_ON_UNSAFE='ignore' means nothing" "  ... each of them"

check MEMPLAN_PLAN="$T/a.trace,$T/none.plan"
[ $? -eq 1 ]
ok $? "plans that do not open: exit 1"
has "$T/out" "it is a memplan trace: make a plan of it with 'memplan-plan compile $T/a.trace -o PLAN'" \
	"  ... a trace given as the plan says so"
has "$T/out" "cannot open plan '$T/none.plan'" "  ... a missing plan"
has "$T/out" "libmemplan would run on the real allocator" "  ... the verdict"
check MEMPLAN_PLAN="$T/a.plan,$T/a.plan"
[ $? -eq 1 ]
ok $? "two plans for one device: exit 1"
has "$T/out" "is for the same device as an earlier one" "  ... as the runtime would refuse them"

check MEMPLAN_SHOW_STATS=1
[ $? -eq 1 ]
ok $? "no MEMPLAN_PLAN: exit 1"
has "$T/out" "MEMPLAN_PLAN is not set: the runtime would follow no plan" "  ... saying so"
has "$T/out" "note: LD_PRELOAD does not name libmemplan.so" "  ... and how the runtime gets loaded"
check MEMPLAN_DISABLE=1
ok $? "MEMPLAN_DISABLE=1 without a plan: exit 0"
has "$T/out" "would forward every call to the real allocator" "  ... saying so"
check MEMPLAN_PLAN="$T/a.plan" LD_PRELOAD=/nowhere/libmemplan.so
[ $? -eq 1 ]
ok $? "an LD_PRELOAD that names no readable library: exit 1"
expect 2 "check-env takes no argument" memplan-plan check-env extra

# the runtime's own warning, once, at its first read of the options
APP=$BUILD/tests/cuda/app
"$BUILD/tests/cuda/fixtures" "$T" 2>"$T/err"
ok $? "the stand-in's fixtures"
LD_PRELOAD="$PRE" MEMPLAN_PLAN=$T/noswap.plan MEMPLAN_SHOW_STAT=1 MEMPLAN_FROBNICATE=1 \
	MEMPLAN_BIN=/x MEMPLAN_CAPTURE_RANGE=x "$APP" "$T/swap.trace" --iterations 2 >"$T/out" 2>"$T/err"
ok $? "libmemplan with misspelt variables: the program runs"
has "$T/err" "memplan: warning: MEMPLAN_SHOW_STAT means nothing to libmemplan and was ignored; did you mean MEMPLAN_SHOW_STATS?" \
	"  ... warns with the nearest name"
has "$T/err" "memplan: warning: MEMPLAN_FROBNICATE means nothing to libmemplan" "  ... and for a name near none"
[ "$(grep -c 'means nothing' "$T/err")" -eq 2 ]
ok $? "  ... once each, not for MEMPLAN_BIN or MEMPLAN_CAPTURE_*"
LD_PRELOAD="$PRE" MEMPLAN_PLAN=$T/noswap.plan MEMPLAN_SHOW_STAT=1 MEMPLAN_VERBOSE=-1 \
	"$APP" "$T/swap.trace" --iterations 2 >"$T/out" 2>"$T/err"
if grep -q 'means nothing' "$T/err"; then r=1; else r=0; fi
ok $r "  ... and not under MEMPLAN_VERBOSE=-1"

# at load, so that a process that never allocates on the GPU is told too
LD_PRELOAD="$PRE" MEMPLAN_SHOW_STAT=1 /bin/echo hi >"$T/out" 2>"$T/err"
ok $? "libmemplan in a process without CUDA"
has "$T/err" "MEMPLAN_SHOW_STAT means nothing to libmemplan and was ignored; did you mean MEMPLAN_SHOW_STATS?" \
	"  ... warns when it loads"
MEMPLAN_SHOW_STAT=1 memplan-trace --version >"$T/out" 2>"$T/err"
[ ! -s "$T/err" ]
ok $? "the commands, which link the same table, do not warn"

done_testing
