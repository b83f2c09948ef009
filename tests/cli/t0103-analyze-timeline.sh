#!/bin/sh
# memplan-analyze timeline: SVG and HTML written atomically, well-formed,
# one area per group (top N plus "other"), nothing fetched from the network.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 8 -o "$T/r8.trace" 2>"$T/err"
ok $? "synth resnet50"

expect 2 "-o is required" memplan-analyze timeline "$T/r8.trace"
expect 2 "unknown format" memplan-analyze timeline -o "$T/x.png" "$T/r8.trace"
has "$T/err" "cannot tell the format of" "says why"
expect 2 "bad --by" memplan-analyze timeline --by colour -o "$T/x.svg" "$T/r8.trace"
expect 2 "bad --top" memplan-analyze timeline --top 0 -o "$T/x.svg" "$T/r8.trace"

expect 0 "SVG by role, top 3" memplan-analyze timeline --by role --top 3 -o "$T/r8.svg" "$T/r8.trace"
[ "$(grep -o '<path class="area"' "$T/r8.svg" | wc -l)" -eq 4 ]
ok $? "4 areas: 3 roles and other"
has "$T/r8.svg" "memplan timeline: r8.trace" "title"
has "$T/r8.svg" "class=\"peak\"" "peak marked"
has "$T/r8.svg" "time into the iteration (ms)" "time axis from the timestamps"
has "$T/r8.svg" "MiB</text>" "sizes on the y axis"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$T/r8.svg"
	ok $? "SVG is well-formed XML"
fi

expect 0 "SVG by kind" memplan-analyze timeline --by kind -o "$T/kind.svg" "$T/r8.trace"
[ "$(grep -o '<path class="area"' "$T/kind.svg" | wc -l)" -eq 1 ]
ok $? "one kind: one area"
expect 0 "SVG by label, bounded steps" memplan-analyze timeline --by label --points 50 -o "$T/label.svg" "$T/r8.trace"
[ "$(grep -o '<path class="area"' "$T/label.svg" | wc -l)" -eq 9 ]
ok $? "8 label groups and other"

expect 0 "HTML" memplan-analyze timeline --top 4 --buffers 25 -o "$T/r8.html" "$T/r8.trace"
has "$T/r8.html" "<!DOCTYPE html>" "an HTML page"
has "$T/r8.html" '<script type="application/json" id="memplan-data">' "data inline"
[ "$(grep -o '<path class="area"' "$T/r8.html" | wc -l)" -eq 5 ]
ok $? "5 areas inline"
grep -E '(src|href)=' "$T/r8.html" | grep -q .
[ $? -ne 0 ]
ok $? "no src or href: nothing fetched"

# an import has no timestamps of its own: its clock is abstract time
memplan-trace import --from minimalloc-csv tests/fuzz/seeds/csv/small.csv -o "$T/small.trace"
expect 0 "timeline of an import" memplan-analyze timeline -o "$T/small.svg" "$T/small.trace"
has "$T/small.svg" "time (the trace's clock units)" "the trace's own clock on the x axis"
has "$T/small.svg" "peak 2.75 KiB at time 5" "peak of the import, and when"
expect 0 "--format svg to stdout" memplan-analyze timeline --format svg -o - "$T/small.trace"
has "$T/out" "<svg" "SVG on stdout"

# atomic: a failed write leaves the old file alone and no temporary behind
printf 'old\n' >"$T/keep.svg"
expect 3 "a broken trace exits 3" memplan-analyze timeline -o "$T/keep.svg" "$T/none.trace"
[ "$(cat "$T/keep.svg")" = old ]
ok $? "the old output is untouched"
expect 4 "an unwritable output exits 4" memplan-analyze timeline -o "$T/no/dir/x.svg" "$T/r8.trace"
ls "$T" | grep -q '\.tmp-'
[ $? -ne 0 ]
ok $? "no temporary file left"

done_testing
