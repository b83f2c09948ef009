#!/bin/sh
# memplan-trace import --from nsys-sqlite on the shapes older Nsight Systems
# exports have: the metadata table named EXPORT_META_DATA (2022.1 to
# 2023.2; META_DATA_EXPORT from 2023.3), no ENUM_ tables at all (the oldest:
# the documented numbers), and a memory table that is there but empty (a
# report recorded without --cuda-memory-usage=true), refused saying so.
. tests/cli/lib.sh

need_python3
gen=tests/import/make_nsys.py
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

for kind in meta2022 noenum; do
	db=$T/$kind.sqlite
	python3 "$gen" $kind "$db"
	ok $? "$kind: the generator wrote an export"
	e=$db.expect
	expect 0 "$kind: import device 0" \
		memplan-trace import --from nsys-sqlite "$db" --device 0 -o "$T/$kind.trace"
	expect 0 "$kind: info" memplan-trace info --json "$T/$kind.trace"
	has "$T/out" "\"buffers\":$(value buffers "$e")," "$kind: buffers"
	has "$T/out" "\"peak_bytes\":$(value peak "$e")," "$kind: peak of live bytes"
	has "$T/out" "\"host_peak_bytes\":$(value host_peak "$e")," "$kind: pinned host memory apart"
	has "$T/out" "\"alloc\":$(value allocs "$e"),\"free\":$(value frees "$e"),\"kernel\":$(value kernels "$e"),\"copy\":$(value copies "$e"),\"memset\":$(value memsets "$e"),\"sync\":0,\"mark\":$(value marks "$e")}" \
		"$kind: events by type"
done
expect 0 "info" memplan-trace info --json "$T/meta2022.trace"
has "$T/out" '"nsys.metadata_table":"EXPORT_META_DATA"' "the 2022-2023 metadata table is named in meta"
expect 0 "info" memplan-trace info --json "$T/noenum.trace"
has "$T/out" '"nsys.enums":"documented numbers (no ENUM_ tables)"' \
	"an export without ENUM_ tables says its numbers were the documented ones"
python3 "$gen" emptymem "$T/empty.sqlite"
expect 3 "an export whose memory table is empty is refused" \
	memplan-trace import --from nsys-sqlite "$T/empty.sqlite" -o "$T/empty.trace"
has "$T/err" "is empty: the report was recorded without 'nsys profile --cuda-memory-usage=true'" \
	"saying how it was recorded"
[ ! -e "$T/empty.trace" ]
ok $? "and writes nothing"

done_testing
