#!/bin/sh
# memplan-analyze check, the CI gate: exit 0 within every limit, 1 when one
# is passed (one line per failed limit, saying by how much), 3 for a broken
# trace; sizes in binary and SI units; baselines; JUnit XML.
. tests/cli/lib.sh

# small.csv: peak 2816 bytes, lower bound 2816, PyTorch reserves 2 MiB
memplan-trace import --from minimalloc-csv tests/fuzz/seeds/csv/small.csv \
	-o "$T/small.trace" 2>"$T/err"
ok $? "import the small CSV"
tr=$T/small.trace

expect 2 "no limit is a usage error" memplan-analyze check "$tr"
has "$T/err" "no limit given" "says what is missing"
expect 2 "bad size" memplan-analyze check --max-peak 3.5XB "$tr"
has "$T/err" "--max-peak '3.5XB' is not a size" "names the bad size"
expect 2 "--tolerance without --baseline" memplan-analyze check --max-peak 1G --tolerance 2% "$tr"
expect 2 "bad tolerance" memplan-analyze check --baseline "$tr" --tolerance much "$tr"

expect 0 "within --max-peak" memplan-analyze check --max-peak 2816B "$tr"
has "$T/out" "pass: peak 2.75 KiB is within --max-peak 2.75 KiB (0 B to spare)" "equal passes"
expect 1 "over --max-peak" memplan-analyze check --max-peak 2815B "$tr"
has "$T/out" "FAIL: peak 2.75 KiB exceeds --max-peak 2.75 KiB by 1 B" "says which limit and by how much"
expect 0 "2.75KiB is 2816 bytes" memplan-analyze check --max-peak 2.75KiB "$tr"
expect 1 "2.8KB is 2800 bytes (SI)" memplan-analyze check --max-peak 2.8KB "$tr"
expect 0 "2.9KB is 2900 bytes" memplan-analyze check --max-peak 2.9KB "$tr"

expect 0 "within --max-reserved (pytorch: 2 MiB)" memplan-analyze check --max-reserved 2MiB "$tr"
expect 1 "over --max-reserved" memplan-analyze check --max-reserved 2MB "$tr"
has "$T/out" "FAIL: reserved peak (pytorch model) 2.00 MiB exceeds --max-reserved 1.91 MiB by 94.88 KiB (4.86% over)" "reserved excess"
expect 1 "--allocator cudamalloc" memplan-analyze check --max-reserved 1MiB --allocator cudamalloc "$tr"
has "$T/out" "(cudamalloc model)" "the allocator named"

# two failures: two FAIL lines, the passing limit one pass line
expect 1 "two limits passed" memplan-analyze check --max-peak 1KiB --max-reserved 1MiB "$tr"
[ "$(grep -c '^FAIL: ' "$T/out")" -eq 2 ] && [ "$(grep -c '^pass: ' "$T/out")" -eq 0 ]
ok $? "one line per failed limit"

# baselines: a zoo trace against a smaller batch of itself
memplan-trace synth --model resnet50 --batch 8 -o "$T/b8.trace" 2>"$T/err" &&
	memplan-trace synth --model resnet50 --batch 9 -o "$T/b9.trace" 2>>"$T/err"
ok $? "synth two batches"
expect 0 "a trace against itself passes with no tolerance" \
	memplan-analyze check --baseline "$T/b8.trace" "$T/b8.trace"
has "$T/out" "pass: peak" "baseline peak line"
has "$T/out" "pass: lower bound" "baseline lower bound line"
expect 1 "batch 9 against batch 8 with 2% fails" \
	memplan-analyze check --baseline "$T/b8.trace" --tolerance 2% "$T/b9.trace"
has "$T/out" "FAIL: peak" "peak growth reported"
has "$T/out" "more than the 2% allowed" "tolerance in the message"
expect 0 "batch 9 against batch 8 with 20% passes" \
	memplan-analyze check --baseline "$T/b8.trace" --tolerance 20 "$T/b9.trace"
expect 0 "--json" memplan-analyze check --json --max-peak 1GiB "$T/b8.trace"
has "$T/out" '"passed":true,"limits":[{"kind":"max_peak"' "JSON shape"

# JUnit: one testcase per limit, well-formed
expect 1 "JUnit report" memplan-analyze check --max-peak 1KiB --max-reserved 3MiB \
	--junit "$T/junit.xml" "$tr"
[ -s "$T/junit.xml" ]
ok $? "JUnit file written"
has "$T/junit.xml" '<testsuites tests="2" failures="1" errors="0"' "counts"
[ "$(grep -c '<testcase ' "$T/junit.xml")" -eq 2 ]
ok $? "one testcase per limit"
has "$T/junit.xml" '<failure type="limit" message="peak 2.75 KiB exceeds --max-peak 1.00 KiB by' "failure message"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$T/junit.xml"
	ok $? "JUnit XML is well-formed (xmllint)"
elif command -v python3 >/dev/null 2>&1; then
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$T/junit.xml"
	ok $? "JUnit XML is well-formed (python3)"
fi
ls "$T" | grep -q 'junit.xml.tmp'
[ $? -ne 0 ]
ok $? "no temporary file left"

# broken input: exit 3, not 1; the JUnit file reports an error
printf 'not a trace\n' >"$T/broken.trace"
expect 3 "a broken trace exits 3" memplan-analyze check --max-peak 1GiB --junit "$T/bad.xml" "$T/broken.trace"
has "$T/err" "memplan-analyze: error: cannot open trace '$T/broken.trace'" "names the trace"
has "$T/bad.xml" 'errors="1"' "JUnit reports an error"
expect 3 "a missing baseline exits 3" memplan-analyze check --baseline "$T/none.trace" "$tr"
has "$T/err" "$T/none.trace" "names the baseline"
if command -v sqlite3 >/dev/null 2>&1; then
	cp "$T/b8.trace" "$T/new.trace"
	sqlite3 "$T/new.trace" "UPDATE meta SET value = '99' WHERE key = 'schema_version'"
	expect 3 "a baseline from a newer schema exits 3" \
		memplan-analyze check --baseline "$T/new.trace" "$T/b8.trace"
	has "$T/err" "schema version 99 is newer than this memplan reads" "says why"
fi
expect 4 "an unwritable JUnit path exits 4" \
	memplan-analyze check --max-peak 1GiB --junit "$T/no/such/dir/j.xml" "$tr"

done_testing
