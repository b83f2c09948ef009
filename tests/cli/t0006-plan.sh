#!/bin/sh
# memplan-plan: compile with every strategy, inspect --csv checked by an
# independent overlap check, verify (and its refusals), corrupted plans,
# --max-pool, --align, a trace with nothing to plan, compare and JSON.
. tests/cli/lib.sh

# overlap FILE: exit 0 when no two rows of a MiniMalloc CSV with offsets
# (id,lower,upper,size,offset; half-open lifetimes) share a byte while both
# live.  All pairs: fine on small inputs, and shares no code with memplan.
overlap() {
	awk -F, 'NR > 1 { lo[n] = $2; hi[n] = $3; a[n] = $5; b[n] = $5 + $4; n++ }
	END {
		if (n == 0) exit 2
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
			if (lo[i] < hi[j] && lo[j] < hi[i] && a[i] < b[j] && a[j] < b[i]) {
				print "rows " i " and " j " overlap"; exit 1 }
	}' "$1"
}

csv=tests/fuzz/seeds/csv/small.csv
# instance C of the public MiniMalloc set, where it is here
big=""
if have_shared; then
	cp "$SHARED_DATA/placement/C.1048576.csv" "$T/C.csv"
	big=$T/C.csv
else
	skip "plans of the public instance C" "$no_shared"
fi
memplan-trace synth --model alexnet --batch 2 -o "$T/a2.trace" 2>"$T/err"
ok $? "a zoo trace to plan"
memplan-trace synth --model alexnet --batch 3 -o "$T/a3.trace" 2>"$T/err"

for s in first-fit greedy-size best-fit exact auto; do
	for src in "$csv" $big "$T/a2.trace"; do
		b=${src##*/}
		expect 0 "compile $b with $s" \
			memplan-plan compile --strategy "$s" --time-limit 0.2 "$src" -o "$T/p.plan"
		has "$T/out" "buffers, lower bound" "  ... prints the summary line"
		expect 0 "  ... inspect --csv" memplan-plan inspect --csv "$T/p.plan"
		overlap "$T/out" >"$T/err" 2>&1
		ok $? "  ... no two co-resident buffers overlap (awk, all pairs)"
		expect 0 "  ... verify" memplan-plan verify "$T/p.plan" "$src"
		has "$T/out" "valid" "  ... says valid"
	done
done

# the summary and the lower bound
memplan-plan compile --strategy greedy-size "$csv" -o "$T/s.plan" >"$T/out" 2>"$T/err"
has "$T/out" "lower bound 2.75 KiB (2816)" "the small CSV's lower bound is 2816"
has "$T/out" "proven optimal" "  ... and its greedy-size plan reaches it"
expect 0 "inspect shows the plan" memplan-plan inspect "$T/s.plan"
has "$T/out" "version 1" "  ... the format version"
has "$T/out" "ALLOCS" "  ... the sections"
has "$T/out" "4 allocations (4 planned" "  ... the requests"

# verify refuses a plan for another trace
memplan-plan compile --strategy best-fit "$T/a2.trace" -o "$T/a2.plan" >/dev/null 2>"$T/err"
expect 1 "verify against another trace exits 1" \
	memplan-plan verify "$T/a2.plan" "$T/a3.trace"
has "$T/err" "fingerprint" "  ... and says fingerprint"
expect 1 "verify a CSV's plan against a zoo trace exits 1" \
	memplan-plan verify "$T/s.plan" "$T/a2.trace"

# a plan edited to overlap (offsets moved by the CSV round trip) is caught:
# rewrite ALLOCS entry 1's offset (bytes at + 48 + 8, at from the section
# table) to entry 0's, fix CRC
if command -v python3 >/dev/null 2>&1; then
	python3 - "$T/s.plan" "$T/bad.plan" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
nsec = struct.unpack_from('<I', b, 24)[0]
at = [struct.unpack_from('<Q', b, 64 + 32 * i + 8)[0] for i in range(nsec)
      if struct.unpack_from('<I', b, 64 + 32 * i)[0] == 2][0]
off0 = struct.unpack_from('<Q', b, at + 8)[0]
struct.pack_into('<Q', b, at + 48 + 8, off0)
b[28:32] = b'\0\0\0\0'
# CRC-32C, bitwise, from memplan-plan(5)
crc = 0xffffffff
for x in b:
    crc ^= x
    for _ in range(8):
        crc = (crc >> 1) ^ 0x82f63b78 if crc & 1 else crc >> 1
struct.pack_into('<I', b, 28, crc ^ 0xffffffff)
open(sys.argv[2], 'wb').write(b)
EOF
	expect 1 "a re-checksummed plan with two buffers at one offset fails verify" \
		memplan-plan verify "$T/bad.plan" "$csv"
	has "$T/err" "overlap" "  ... as an overlap"
	expect 0 "  ... which memplan-plan reads (the CRC of the man page is right)" \
		memplan-plan inspect "$T/bad.plan"
else
	ok 0 "# SKIP no python3 to edit a plan"
fi

# corrupted, truncated, foreign, missing plans: exit 3
cp "$T/a2.plan" "$T/c.plan"
printf 'X' | dd of="$T/c.plan" bs=1 seek=300 conv=notrunc 2>/dev/null
expect 3 "a corrupted plan exits 3 (verify)" memplan-plan verify "$T/c.plan" "$T/a2.trace"
has "$T/err" "checksum" "  ... naming the checksum"
expect 3 "a corrupted plan exits 3 (inspect)" memplan-plan inspect "$T/c.plan"
head -c 100 "$T/a2.plan" >"$T/t.plan"
expect 3 "a truncated plan exits 3" memplan-plan inspect "$T/t.plan"
has "$T/err" "truncated" "  ... saying truncated"
expect 3 "a trace given as a plan exits 3" memplan-plan inspect "$T/a2.trace"
has "$T/err" "not a memplan plan file" "  ... saying foreign"
expect 3 "a missing plan exits 3" memplan-plan inspect "$T/none.plan"
expect 3 "a missing trace exits 3" memplan-plan verify "$T/a2.plan" "$T/none.trace"

# --max-pool: infeasible exits 1, says by how much, writes nothing
expect 1 "--max-pool below the lower bound exits 1" \
	memplan-plan compile "$csv" --strategy greedy-size --max-pool 2000 -o "$T/m.plan"
has "$T/err" "816 more" "  ... saying by how much"
if [ -n "$big" ]; then
	expect 1 "--max-pool below the first-fit pool exits 1" \
		memplan-plan compile "$big" --strategy first-fit --max-pool 1.2MiB -o "$T/m.plan"
	has "$T/err" "more than --max-pool" "  ... saying so"
	[ ! -e "$T/m.plan" ]
	ok $? "  ... and no plan is written"
fi
expect 0 "--max-pool at the pool is fine" \
	memplan-plan compile "$csv" --strategy greedy-size --max-pool 2816 -o "$T/m.plan"

# --align: stored and honoured
expect 0 "compile --align 4096" \
	memplan-plan compile "$T/a2.trace" --strategy greedy-size --align 4K -o "$T/al.plan"
memplan-plan inspect "$T/al.plan" >"$T/out"
has "$T/out" "alignment 4096" "  ... the plan records it"
memplan-plan inspect --csv "$T/al.plan" | awk -F, 'NR > 1 && $5 % 4096 { bad = 1 } END { exit bad }'
ok $? "  ... every offset is a multiple of 4096"
expect 2 "--align 3 is a usage error" \
	memplan-plan compile "$csv" --align 3 -o "$T/x.plan"

# the default alignment: a zoo trace is PyTorch's blocks (512), planned at
# least 256-aligned as cudaMalloc promises; --align only raises it
a=$(memplan-trace export --to minimalloc-csv "$T/a2.trace" |
	awk -F, 'NR == 1 { c = $5 } NR > 1 { print c "=" $5 }' | sort -u | tr '\n' ' ')
[ "$a" = "alignment=512 " ]
ok $? "a zoo trace's buffers have alignment 512 (got '$a')"
for a in "" "--align 1" "--align 256"; do
	expect 0 "compile a zoo trace with defaults${a:+ and $a}" \
		memplan-plan compile "$T/a2.trace" --strategy best-fit $a --json -o "$T/al.plan"
	has "$T/out" '"align":512,' "  ... the plan's alignment is 512"
	memplan-plan inspect "$T/al.plan" >"$T/out"
	has "$T/out" "alignment 512" "  ... and inspect says so"
	memplan-plan inspect --csv "$T/al.plan" | awk -F, 'NR > 1 && $5 % 512 { bad = 1 } END { exit bad }'
	ok $? "  ... every offset is a multiple of 512"
done
pool=$(memplan-plan inspect --json "$T/al.plan" | sed 's/.*"pool_size":\([0-9]*\).*/\1/')
expect 0 "compare plans the zoo trace with the same default" \
	memplan-plan compare --csv --no-header --strategies best-fit "$T/a2.trace"
has "$T/out" ",$pool," "  ... best-fit's pool is compile's ($pool bytes)"
# a trace of cudaMalloc buffers (alignment 256, as captures record them)
if command -v python3 >/dev/null 2>&1; then
	cp "$T/a2.trace" "$T/cuda.trace"
	python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE buffers SET align = 256"); db.commit()' "$T/cuda.trace"
	expect 0 "compile a trace of 256-aligned buffers" \
		memplan-plan compile "$T/cuda.trace" --strategy best-fit --json -o "$T/cu.plan"
	has "$T/out" '"align":256,' "  ... the plan's alignment is 256"
	memplan-plan inspect --csv "$T/cu.plan" | awk -F, 'NR > 1 && $5 % 256 { bad = 1 } END { exit bad }'
	ok $? "  ... every offset is a multiple of 256"
	# a trace recorded before alignments were (every align 1)
	cp "$T/a2.trace" "$T/old.trace"
	python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE buffers SET align = 1"); db.commit()' "$T/old.trace"
	expect 0 "compile a trace whose buffers say alignment 1" \
		memplan-plan compile "$T/old.trace" --strategy best-fit --json -o "$T/old.plan"
	has "$T/out" '"align":256,' "  ... is planned 256-aligned all the same"
	memplan-plan inspect --csv "$T/old.plan" | awk -F, 'NR > 1 && $5 % 256 { bad = 1 } END { exit bad }'
	ok $? "  ... every offset a multiple of 256"
	pool=$(memplan-plan inspect --json "$T/old.plan" | sed 's/.*"pool_size":\([0-9]*\).*/\1/')
	expect 0 "  ... compare of it" \
		memplan-plan compare --csv --no-header --strategies best-fit "$T/old.trace"
	has "$T/out" ",$pool," "  ... plans it with the same default ($pool bytes)"
else
	ok 0 "# SKIP no python3 to edit a trace's alignments"
fi
# a MiniMalloc CSV keeps its own alignment: 1 without a column
printf 'id,lower,upper,size\n0,0,4,100\n1,2,6,50\n2,4,8,30\n' >"$T/odd.csv"
expect 0 "compile a CSV of odd sizes" \
	memplan-plan compile "$T/odd.csv" --strategy best-fit --json -o "$T/odd.plan"
has "$T/out" '"align":1,' "  ... keeps alignment 1"
has "$T/out" '"pool":150,' "  ... and the pool of the lower bound, 150 bytes"
memplan-plan inspect --csv "$T/odd.plan" | awk -F, 'NR > 1 && $5 % 256 { odd = 1 } END { exit !odd }'
ok $? "  ... with an offset that is no multiple of 256"

# a trace with nothing to plan: every buffer outlives the iteration
if command -v sqlite3 >/dev/null 2>&1; then
	cp "$T/a2.trace" "$T/kept.trace"
	sqlite3 "$T/kept.trace" 'DELETE FROM events WHERE type = 1'
	expect 3 "a trace without transient buffers exits 3" \
		memplan-plan compile "$T/kept.trace" -o "$T/k.plan"
	has "$T/err" "no transient buffers" "  ... saying so"
else
	ok 0 "# SKIP no sqlite3 to make a trace without transient buffers"
fi

# outputs: atomic, an old plan survives a failure, unwritable exits 4
cp "$T/a2.plan" "$T/keep.plan"
expect 1 "a failing compile over an existing plan" \
	memplan-plan compile "$csv" --max-pool 10 -o "$T/keep.plan"
cmp -s "$T/a2.plan" "$T/keep.plan"
ok $? "  ... leaves it untouched"
ls "$T" | grep -q tmp
[ $? -ne 0 ]
ok $? "no temporary file is left behind"
expect 4 "an unwritable plan exits 4" \
	memplan-plan compile "$csv" -o /nonexistent/x.plan

# usage
expect 2 "unknown strategy" memplan-plan compile "$csv" --strategy nope -o "$T/x.plan"
has "$T/err" "first-fit" "  ... listing the known ones"
expect 2 "compile without -o" memplan-plan compile "$csv"
expect 2 "verify with one argument" memplan-plan verify "$T/a2.plan"
expect 2 "inspect --csv --json" memplan-plan inspect --csv --json "$T/a2.plan"
expect 2 "bad --time-limit" memplan-plan compile "$csv" --time-limit 0 -o "$T/x.plan"
expect 0 "compile --help" memplan-plan compile --help
has "$T/out" "--max-pool" "  ... shows the options"
expect 0 "--version" memplan-plan --version

# JSON
expect 0 "compile --json" \
	memplan-plan compile "$csv" --strategy best-fit --json -o "$T/j.plan"
for k in '"plan":' '"buffers":4' '"lower_bound":2816' '"pool":2816' '"gap_percent":' \
	'"optimal":true' '"strategy":"best-fit"' '"seconds":'; do
	has "$T/out" "$k" "  ... has $k"
done
cp "$T/out" "$T/compile.json"
expect 0 "inspect --json" memplan-plan inspect --json "$T/j.plan"
for k in '"version":1' '"sections":[' '"meta":{' '"allocs":[' '"swaps":[]' '"fingerprint":"0x'; do
	has "$T/out" "$k" "  ... has $k"
done
cp "$T/out" "$T/inspect.json"
if command -v jq >/dev/null 2>&1; then
	jq -e '.pool == 2816' "$T/compile.json" >/dev/null &&
		jq -e '.allocs | length == 4' "$T/inspect.json" >/dev/null
	ok $? "both JSON outputs parse (jq)"
elif command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$T/compile.json" >/dev/null &&
		python3 -m json.tool "$T/inspect.json" >/dev/null
	ok $? "both JSON outputs parse (python3)"
fi

# compare: one table, rows in input order, a broken trace is a row
expect 0 "compare two inputs" \
	memplan-plan compare --strategies greedy-size,best-fit,auto --time-limit 0.2 \
	"$csv" "$T/a2.trace"
for k in trace buffers "lower bound" greedy-size best-fit auto small.csv a2.trace; do
	has "$T/out" "$k" "  ... the table has '$k'"
done
awk '/small.csv/ { s = NR } /a2.trace/ { a = NR } END { exit !(s && a && s < a) }' "$T/out"
ok $? "  ... rows in input order"
expect 0 "compare --csv" \
	memplan-plan compare --csv --strategies first-fit -j 2 "$csv" $big "$T/a2.trace"
has "$T/out" "trace,buffers,lower_bound,first-fit_pool,first-fit_ratio,first-fit_seconds,first-fit_optimal,error" \
	"  ... the CSV header"
rows=2
[ -n "$big" ] && rows=3
[ "$(wc -l <"$T/out")" -eq $((2 + rows)) ]
ok $? "  ... a header, a row per input and the summary row"
expect 0 "compare --csv --no-header" \
	memplan-plan compare --csv --no-header --strategies first-fit "$csv"
[ "$(wc -l <"$T/out")" -eq 1 ]
ok $? "  ... one row"
expect 0 "compare --json" memplan-plan compare --json --strategies exact --time-limit 0.2 "$csv"
has "$T/out" '"strategy":"exact"' "  ... names the strategy"
has "$T/out" '"optimal":true' "  ... and says optimal"
printf 'id,lower,upper,size\n0,5,2,10\n' >"$T/broken.csv"
expect 3 "compare with a broken trace exits 3" \
	memplan-plan compare --strategies first-fit "$csv" "$T/broken.csv" "$T/a2.trace"
has "$T/out" "a2.trace" "  ... after printing every row"
has "$T/out" "error:" "  ... with the error in the table"
has "$T/err" "broken.csv':2" "  ... and on stderr"
# the name is printed before the list it points into is freed
expect 2 "compare with an unknown strategy" \
	memplan-plan compare --strategies first-fit,nope "$csv"
has "$T/err" "compare: unknown strategy 'nope' (known: first-fit" "  ... naming it"

# values a plan cannot hold: the refusal names the file, its line and id
printf 'id,lower,upper,size\na,0,4,64\nbig,2,6,4611686018427387904\n' >"$T/big.csv"
expect 3 "a size of 2^62 bytes: refused" memplan-plan compile "$T/big.csv" -o "$T/big.plan"
has "$T/err" "big.csv':3: field size: size 4611686018427387904 is 2^62 or more" \
	"  ... naming the file, the line and the field"
printf 'id,lower,upper,size,alignment,offset\na,0,4,64,8,0\nb,2,6,64,16,8\n' >"$T/off.csv"
expect 3 "a fixed offset off its alignment: refused" memplan-plan compile "$T/off.csv" -o "$T/off.plan"
has "$T/err" "fixed offset 8 is not a multiple of its alignment 16 (MiniMalloc CSV 'off.csv', line 3, id 'b')" \
	"  ... naming the line"
printf 'id,lower,upper,size\na,0,4,3000000000000000000\nb,2,6,3000000000000000000\n' >"$T/sum.csv"
expect 3 "sizes adding up to 2^62: refused" memplan-plan compile "$T/sum.csv" -o "$T/sum.plan"
has "$T/err" "sum.csv':3: field size: the sizes add up to 2^62 bytes or more" "  ... at the line where they do"
expect 3 "  ... and so is its import" \
	memplan-trace import --from minimalloc-csv "$T/big.csv" -o "$T/big.trace"
has "$T/err" "big.csv':3: field size" "  ... naming the line"
memplan-trace synth --model alexnet --batch 1 -o "$T/al.trace" 2>"$T/err"
for v in 0 -1; do
	expect 2 "--link pcie5,h2d=$v: usage error" memplan-plan compile --budget 50% --link "pcie5,h2d=$v" "$T/al.trace" -o "$T/l.plan"
	has "$T/err" "--link 'pcie5,h2d=$v': h2d '$v' is out of range" "  ... naming the option"
done

done_testing
