#!/bin/sh
# The tests' CUDA client (tests/cuda/app.c) on the stand-in libcudart
# alone, without libmemplan, in the configurations the runtime tests use:
# every check must pass there, or a failure under LD_PRELOAD cannot be told
# from the client's own.  Several async streams, new streams every
# iteration, an iteration captured into a graph (the first or a later
# one), and a program that frees a buffer twice (the stand-in answers with
# an error, the client takes it as its own and expects that bad free).
. tests/cli/lib.sh

APP=$BUILD/tests/cuda/app
memplan-trace synth --model resnet50 --batch 1 --dtype fp16 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo iteration (ResNet-50, batch 1, fp16)"

# alone NAME APP-ARGS...: the client alone, with random delays on every
# stream, checks passing
alone() {
	what=$1
	shift
	FAKECUDA_DELAY_US=20 "$APP" "$T/r.trace" --check-errors "$@" >"$T/out" 2>"$T/err"
	st=$?
	[ $st -eq 0 ] && grep -q ' 0 failures$' "$T/out"
	ok $? "$what"
	[ $st -ne 0 ] && sed 's/^/#   /' "$T/out" "$T/err" | head -8
}

alone "3 async streams" --async --streams 3 --iterations 3
# each new stream waits for the ones it replaces: a buffer from before the
# iteration goes on on another stream (the old client read it after its
# free there, and crashed)
alone "3 async streams, new ones every iteration" --async --streams 3 --fresh-streams --iterations 3
# the buffers from before the iteration are not graph memory, and the
# graph's launches wait for the streams (the old client allocated them in
# the capture of iteration 0 and used them after the graph was gone, and
# launched iteration 1's graph beside iteration 0's work)
for it in 0 1; do
	alone "3 async streams, iteration $it captured into a graph" \
		--async --streams 3 --capture $it --iterations 3
	has "$T/out" "iteration $it captured into a graph, launched twice" "  ... launched"
done
alone "one async stream, iteration 1 captured" --async --capture 1 --iterations 3
alone "new streams every iteration, iteration 1 captured" \
	--async --streams 3 --fresh-streams --capture 1 --iterations 3

# --double-free: each iteration frees one buffer twice; the stand-in
# refuses the second free and counts it
for d in 5 5,20; do
	FAKECUDA_DELAY_US=20 "$APP" "$T/r.trace" --double-free $d --iterations 3 >"$T/out" 2>"$T/err"
	ok $? "a buffer freed twice in each iteration ($d): the client passes"
	has "$T/out" "3 second frees made" "  ... after 3 second frees"
	has "$T/out" " 3 bad frees," "  ... each one refused by the stand-in"
done
FAKECUDA_DELAY_US=20 "$APP" "$T/r.trace" --double-free 101 >"$T/out" 2>"$T/err"
[ $? -eq 2 ]
ok $? "--double-free past 100 percent: usage error"

done_testing
