#!/bin/sh
# MiniMalloc CSV import and export: the public instances round-trip byte for
# byte, and a bad file is refused without leaving any output behind.
. tests/cli/lib.sh

if have_shared; then
	n=0
	for f in "$SHARED_DATA"/placement/*.csv; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		b=${f##*/}
		memplan-trace import --from minimalloc-csv "$f" -o "$T/$b.trace" 2>"$T/err" &&
			memplan-trace export --to minimalloc-csv "$T/$b.trace" -o "$T/$b" 2>>"$T/err" &&
			cmp -s "$f" "$T/$b"
		ok $? "$b round-trips exactly"
	done
	[ "$n" -ge 12 ]
	ok $? "found the 12 public instances in $SHARED_DATA/placement"
	f=$SHARED_DATA/placement/A.1048576.csv
else
	skip "the public instances round-trip exactly" "$no_shared"
	# a small instance of the same format stands in for A below
	f=tests/fuzz/seeds/csv/small.csv
fi

memplan-trace import --from minimalloc-csv "$f" -o "$T/A.trace" 2>"$T/err"
expect 0 "info on an import" memplan-trace info --json "$T/A.trace"
if have_shared; then
	has "$T/out" '"lower_bound_bytes":1048576' "A's lower bound is 1,048,576"
fi
expect 0 "export to stdout" memplan-trace export --to minimalloc-csv "$T/A.trace"
cmp -s "$f" "$T/out"
ok $? "stdout export equals the file"

printf 'id,lower,upper,size\n0,0,5,100\n1,2,4,-7\n' >"$T/bad.csv"
expect 3 "a negative size exits 3" \
	memplan-trace import --from minimalloc-csv "$T/bad.csv" -o "$T/bad.trace"
has "$T/err" "bad.csv':3" "the error names file and line"
has "$T/err" "size" "the error names the field"
[ ! -e "$T/bad.trace" ]
ok $? "no output file is left behind"
ls "$T" | grep -q tmp
[ $? -ne 0 ]
ok $? "no temporary file is left behind"

cp "$T/A.trace" "$T/keep.trace"
expect 3 "a bad import over an existing trace fails" \
	memplan-trace import --from minimalloc-csv "$T/bad.csv" -o "$T/keep.trace"
cmp -s "$T/A.trace" "$T/keep.trace"
ok $? "the existing trace is untouched"

expect 2 "unknown import format" \
	memplan-trace import --from tensorflow "$f" -o "$T/x.trace"
expect 2 "import without -o" memplan-trace import --from minimalloc-csv "$f"
expect 3 "missing CSV exits 3" \
	memplan-trace import --from minimalloc-csv "$T/none.csv" -o "$T/x.trace"
expect 4 "unwritable output exits 4" \
	memplan-trace import --from minimalloc-csv "$f" -o /nonexistent/x.trace
expect 4 "unwritable export exits 4" \
	memplan-trace export --to minimalloc-csv "$T/A.trace" -o /nonexistent/x.csv

# times before 0, as idealloc's SOMAS traces have (-1: live from before the
# first step): read, planned, exported and written back as given
printf 'id,lower,upper,size\na,-5,3,100\nb,-1,10,200\nc,3,12,50\n' >"$T/neg.csv"
expect 0 "negative times are read" memplan-trace info --json "$T/neg.csv"
has "$T/out" '"minimalloc.time_shift":"5"' "  ... the clock moved later by the earliest time's distance from 0"
has "$T/out" '"peak_bytes":300,' "  ... the lifetimes as given: b with a, then b with c"
expect 0 "  ... exported" memplan-trace export --to minimalloc-csv "$T/neg.csv" -o "$T/neg2.csv"
cmp -s "$T/neg.csv" "$T/neg2.csv"
ok $? "  ... the export gives the times back"
expect 0 "  ... planned" memplan-plan compile "$T/neg.csv" -o "$T/neg.plan" --solution "$T/neg.sol.csv"
has "$T/neg.sol.csv" "a,-5,3,100," "  ... the solution keeps the input's rows"
printf 'id,lower,upper,size\na,-4611686018427387905,3,100\n' >"$T/neg3.csv"
expect 3 "a time below -2^62 is refused" memplan-trace info "$T/neg3.csv"
has "$T/err" "is below -2^62" "  ... and says so"
printf 'id,lower,upper,size\na,-4611686018427387904,9223372036854775806,100\n' >"$T/neg4.csv"
expect 3 "times spanning more than 2^63 - 1 are refused" memplan-trace info "$T/neg4.csv"
has "$T/err" "a span over 2^63 - 1" "  ... and say so"

done_testing
