#!/bin/sh
# memplan-trace slice and the period info reports: a snapshot of a training
# loop (a different first step, steady steps, one cut short) gives its period
# and its iterations; ranges and time windows cut too; a trace without a
# repeating pattern is refused with exit 3 and no output.
. tests/cli/lib.sh

z=$T/z.trace
memplan-trace synth --model alexnet --batch 2 -o "$z" 2>"$T/err"
ok $? "synth a zoo iteration"
expect 0 "info on one iteration" memplan-trace info "$z"
has "$T/out" "period:       none detected" "one iteration has no period"
expect 0 "info --json" memplan-trace info --json "$z"
has "$T/out" '"period":null}' "json says null"

expect 0 "slice by the 'iteration' range" memplan-trace slice "$z" --iteration 1 -o "$T/z1.trace"
memplan-trace info --json "$z" | sed 's/"trace":"[^"]*",//; s/"slice":"[^"]*",//' >"$T/a"
memplan-trace info --json "$T/z1.trace" | sed 's/"trace":"[^"]*",//; s/"slice":"[^"]*",//' >"$T/b"
cmp -s "$T/a" "$T/b"
ok $? "the only iteration is the whole trace"
expect 3 "a period is required with --auto" memplan-trace slice "$z" --auto --iteration 1 -o "$T/x.trace"
has "$T/err" "cannot slice trace '$z': no repeating pattern" "and the error says so"
[ ! -e "$T/x.trace" ]
ok $? "no output is left behind"
expect 3 "a missing range" memplan-trace slice "$z" --range epoch -o "$T/x.trace"
has "$T/err" "range 'epoch' number 1 does not exist" "the range is named"
expect 0 "slice by the 'forward' range" memplan-trace slice "$z" --range forward -o "$T/f.trace"
expect 0 "info on it" memplan-trace info --json "$T/f.trace"
has "$T/out" '"slice":"range '"'"'forward'"'"' number 1"' "the slice is noted in meta"
expect 0 "slice by time" memplan-trace slice "$z" --from-time 0 --to-time 30000 -o "$T/t.trace"
expect 3 "an empty time window" memplan-trace slice "$z" --from-time 90000000000 --to-time 90000000001 -o "$T/x.trace"

expect 2 "slice without a selector" memplan-trace slice "$z" -o "$T/x.trace"
expect 2 "--from-time alone" memplan-trace slice "$z" --from-time 5 -o "$T/x.trace"
expect 2 "--iteration 0" memplan-trace slice "$z" --iteration 0 -o "$T/x.trace"
expect 2 "slice without -o" memplan-trace slice "$z" --iteration 1
expect 3 "slice of a missing trace" memplan-trace slice "$T/none.trace" --iteration 1 -o "$T/x.trace"

need_python3
python3 tests/import/make_snapshot.py periodic "$T/p.pickle"
ok $? "the generator wrote a training loop snapshot"
period=$(awk '$1 == "period" { print $2 }' "$T/p.pickle.expect")
memplan-trace import --from pytorch-snapshot "$T/p.pickle" -o "$T/p.trace" 2>"$T/err"
ok $? "import it"
expect 0 "info" memplan-trace info "$T/p.trace"
has "$T/out" "period:       $period allocation requests, 5 complete iterations" \
	"info reports the period of a steady step and skips the first"
for n in 1 3 5; do
	expect 0 "slice iteration $n" memplan-trace slice "$T/p.trace" --iteration $n -o "$T/p$n.trace"
	memplan-trace info --json "$T/p$n.trace" >"$T/out"
	n_alloc=$(sed 's/.*"alloc":\([0-9]*\).*/\1/' "$T/out")
	n_free=$(sed 's/.*"free":\([0-9]*\).*/\1/' "$T/out")
	[ $((n_alloc + n_free)) -eq "$period" ]
	ok $? "iteration $n holds one period of requests"
	has "$T/out" "\"slice\":\"iteration $n of 5" "iteration $n is noted"
	sed 's/"trace":"[^"]*",//; s/"slice":"[^"]*",//; s/"seq_last":[0-9]*,//; s/"time_[a-z]*":[0-9]*,//g' "$T/out" >"$T/s$n"
done
cmp -s "$T/s1" "$T/s3" && cmp -s "$T/s1" "$T/s5"
ok $? "the steady iterations are alike"
expect 3 "iteration 6 does not exist" memplan-trace slice "$T/p.trace" --iteration 6 -o "$T/x.trace"
has "$T/err" "the trace holds 5 complete iterations of $period allocation requests" \
	"and the error counts them"

# one forward pass of a 24-layer transformer: each layer allocates the same
# sizes and frees what it allocates, but hands its output to the next; the
# layers are not iterations
python3 tests/import/make_snapshot.py forward "$T/f.pickle"
ok $? "the generator wrote one forward pass"
memplan-trace import --from pytorch-snapshot "$T/f.pickle" -o "$T/f.trace" 2>"$T/err"
ok $? "import it"
expect 0 "info on one pass" memplan-trace info "$T/f.trace"
! grep -q "complete iterations" "$T/out"
ok $? "no layer is taken for an iteration"
has "$T/out" "one pass; no repeated iteration found" "info says it holds one pass"
expect 3 "slice --iteration 2 refuses one pass" \
	memplan-trace slice "$T/f.trace" --iteration 2 -o "$T/x.trace"
has "$T/err" "one pass; no repeated iteration found" "and says why"
[ ! -e "$T/x.trace" ]
ok $? "no output is left behind"

# one forward pass of a 32-layer model with autograd on, every allocation
# from one call site: each layer keeps most of what it allocates for the
# backward, so the live bytes grow; the layers are not 32 iterations (nor 31)
python3 tests/import/make_snapshot.py forward32 "$T/g.pickle"
ok $? "the generator wrote one forward pass with autograd on"
memplan-trace import --from pytorch-snapshot "$T/g.pickle" -o "$T/g.trace" 2>"$T/err"
ok $? "import it"
expect 0 "info on one pass with autograd" memplan-trace info "$T/g.trace"
! grep -q "complete iterations" "$T/out"
ok $? "no layer is taken for an iteration"
has "$T/out" "one pass; no repeated iteration found (a block of 11 allocation requests repeats 32 times inside it, each keeping 24.00 MiB more live" \
	"info says it holds one pass of 32 layers that keep their activations"
expect 3 "slice --auto --iteration 1 refuses it" \
	memplan-trace slice "$T/g.trace" --auto --iteration 1 -o "$T/x.trace"
has "$T/err" "as the layers of a forward pass with autograd on do" "and says why"

# four such passes in a row (inference): each pass is an iteration
python3 tests/import/make_snapshot.py inference "$T/i.pickle"
pass=$(awk '$1 == "pass_requests" { print $2 }' "$T/i.pickle.expect")
memplan-trace import --from pytorch-snapshot "$T/i.pickle" -o "$T/i.trace" 2>"$T/err"
ok $? "import four passes"
expect 0 "info on four passes" memplan-trace info "$T/i.trace"
has "$T/out" "period:       $pass allocation requests, 4 complete iterations" \
	"each pass is an iteration, not each layer"
expect 0 "slice pass 2" memplan-trace slice "$T/i.trace" --iteration 2 -o "$T/i2.trace"

done_testing
