#!/bin/sh
# memplan-trace info, help and the exit statuses of bad input.
. tests/cli/lib.sh

expect 0 "--help exits 0" memplan-trace --help
has "$T/out" "usage: memplan-trace" "--help prints usage on stdout"
expect 0 "--version exits 0" memplan-trace --version
expect 2 "no command is a usage error" memplan-trace
expect 2 "unknown command is a usage error" memplan-trace frobnicate
has "$T/err" "memplan-trace: error: unknown command 'frobnicate'" "error format"
expect 0 "info --help exits 0" memplan-trace info --help
expect 2 "info without a trace" memplan-trace info
expect 2 "info with a bad option" memplan-trace info --bogus x

tr=$T/r50.trace
expect 0 "synth a trace" memplan-trace synth --model resnet50 --batch 8 -o "$tr"
expect 0 "info on it" memplan-trace info "$tr"
has "$T/out" "source:       synthetic" "info shows the source"
has "$T/out" "lower bound:" "info shows the lower bound"
has "$T/out" "peak:" "info shows the peak"
expect 0 "info --json" memplan-trace info --json "$tr"
has "$T/out" '"lower_bound_bytes":' "json has the lower bound"
has "$T/out" '"source":"synthetic"' "json has meta"

expect 3 "missing trace exits 3" memplan-trace info "$T/nope.trace"
has "$T/err" "cannot open trace '$T/nope.trace'" "missing trace is named"
printf 'hello\n' >"$T/text.trace"
expect 3 "non-SQLite file exits 3" memplan-trace info "$T/text.trace"
has "$T/err" "not a SQLite database" "non-SQLite message"
head -c 5000 "$tr" >"$T/trunc.trace"
expect 3 "truncated trace exits 3" memplan-trace info "$T/trunc.trace"
has "$T/err" "trace '$T/trunc.trace'" "truncated trace is named"
: >"$T/empty.trace"
expect 3 "empty file exits 3" memplan-trace info "$T/empty.trace"

done_testing
