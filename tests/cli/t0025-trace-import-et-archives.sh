#!/bin/sh
# memplan-trace import --from pytorch-et on archives as people ship them: a
# .tgz made on macOS (a "._" AppleDouble resource fork before each file),
# PyTorch 2's ET archive (the ET JSON beside its generated kernels' .py
# files), and one archive of 8 ranks' ETs, where --rank chooses and nothing
# is taken silently.
. tests/cli/lib.sh

need_python3
gen=tests/import/make_et.py
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

python3 "$gen" 1.1.1 "$T/et.json"
ok $? "the generator wrote an execution trace"
peak=$(value peak "$T/et.json.expect")
mkdir -p "$T/mac" "$T/pt2/kernels" "$T/ranks"
# AppleDouble: magic 0x00051607, then binary
printf '\000\005\026\007\000\002\000\000Mac OS X        ' >"$T/mac/._rank0.et.json"
cp "$T/et.json" "$T/mac/rank0.et.json"
(cd "$T/mac" && tar czf ../mac.tgz ._rank0.et.json rank0.et.json)
expect 0 "a macOS .tgz: the resource fork first is left out" \
	memplan-trace import --from pytorch-et "$T/mac.tgz" -o "$T/mac.trace"
expect 0 "info" memplan-trace info --json "$T/mac.trace"
has "$T/out" "\"peak_bytes\":$peak," "the ET's figures"
has "$T/out" '"et.archive_member":"rank0.et.json"' "and the member read is named in meta"

cp "$T/et.json" "$T/pt2/rank0_et.json"
printf 'import triton\n' >"$T/pt2/kernels/triton_poi_fused_0.py"
printf 'import torch\n' >"$T/pt2/kernels/output_code.py"
(cd "$T/pt2" && tar czf ../pt2.tar.gz kernels rank0_et.json)
expect 0 "an ET archive with generated kernels' .py files: the JSON is read" \
	memplan-trace import --from pytorch-et "$T/pt2.tar.gz" -o "$T/pt2.trace"
expect 0 "info" memplan-trace info --json "$T/pt2.trace"
has "$T/out" "\"peak_bytes\":$peak," "the ET's figures"

for r in 0 1 2 3 4 5 6 7; do
	sed "s/\"pid\": *[0-9]*/\"pid\": 10$r/" "$T/et.json" >"$T/ranks/et_rank$r.json"
done
(cd "$T/ranks" && tar czf ../ranks.tgz et_rank*.json)
expect 2 "8 ranks' ETs and no --rank: a usage error, nothing taken silently" \
	memplan-trace import --from pytorch-et "$T/ranks.tgz" -o "$T/ranks.trace"
has "$T/err" "holds the files of 8 ranks ('et_rank0.json', 'et_rank1.json'" "naming them"
has "$T/err" "choose one with --rank" "and saying how to choose"
[ ! -e "$T/ranks.trace" ]
ok $? "and writes nothing"
expect 0 "--rank 3 takes rank 3's" \
	memplan-trace import --from pytorch-et "$T/ranks.tgz" --rank 3 -o "$T/r3.trace"
expect 0 "info" memplan-trace info --json "$T/r3.trace"
has "$T/out" '"et.archive_member":"et_rank3.json"' "and says which in meta"
has "$T/out" "\"peak_bytes\":$peak," "with its figures"
expect 2 "--rank 9 is not there" \
	memplan-trace import --from pytorch-et "$T/ranks.tgz" --rank 9 -o "$T/r9.trace"
has "$T/err" "holds no JSON file of rank 9" "and says so"
expect 2 "--rank with a file that is no archive" \
	memplan-trace import --from pytorch-et "$T/et.json" --rank 1 -o "$T/r1.trace"
has "$T/err" "is not a tar archive" "says so"
expect 2 "--rank with another format is a usage error" \
	memplan-trace import --from nsys-sqlite "$T/et.json" --rank 1 -o "$T/r1.trace"
(cd "$T/mac" && tar cf ../forks.tar ._rank0.et.json)
expect 3 "an archive of resource forks only is refused" \
	memplan-trace import --from pytorch-et "$T/forks.tar" -o "$T/forks.trace"
has "$T/err" "holds no file (only macOS resource forks)" "and says so"

done_testing
