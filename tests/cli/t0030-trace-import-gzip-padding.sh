#!/bin/sh
# memplan-trace import of gzipped files as tools leave them: a gzip
# followed by zero bytes (tar's records, dd's blocks, a tape's padding) is
# read as gzip(1) reads it; concatenated members (RFC 1952) are one file;
# any other data after the last member is refused with its byte offset
# (exit 3, nothing written).  Detection without --from reads the same way.
. tests/cli/lib.sh

need_python3
command -v gzip >/dev/null 2>&1 || { skip "the rest" "gzip is not installed"; done_testing; exit; }
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
et=$T/et.json
python3 tests/import/make_et.py 1.1.1 "$et" --kineto "$T/k.json"
ok $? "the generator wrote an execution trace and a profiler trace"
peak=$(value peak_kineto "$et.expect")

gzip -c "$et" >"$T/et.json.gz"
gzip -c "$T/k.json" >"$T/k.json.gz"
# padded: zeros to the next 10 KiB, as tar pads its records
pad() { # IN OUT BYTES
	cp "$1" "$2" && head -c "$3" /dev/zero >>"$2"
}
pad "$T/et.json.gz" "$T/et-pad.json.gz" 10240
pad "$T/k.json.gz" "$T/k-pad.json.gz" 70000
expect 0 "zero padding after the gzip: import" memplan-trace import --from pytorch-et \
	"$T/et-pad.json.gz" --kineto "$T/k-pad.json.gz" -o "$T/pad.trace"
expect 0 "info" memplan-trace info --json "$T/pad.trace"
has "$T/out" "\"peak_bytes\":$peak," "zero padding: the figures of the plain files"
expect 0 "zero padding: detected without --from" memplan-trace import \
	"$T/et-pad.json.gz" -o "$T/pad-detect.trace"

# two members: the file split in two, each gzipped, concatenated
n=$(wc -c <"$et")
head -c $((n / 2)) "$et" | gzip -c >"$T/et-2.json.gz"
tail -c +$((n / 2 + 1)) "$et" | gzip -c >>"$T/et-2.json.gz"
pad "$T/et-2.json.gz" "$T/et-2pad.json.gz" 512
expect 0 "two members and padding: import" memplan-trace import --from pytorch-et \
	"$T/et-2pad.json.gz" --kineto "$T/k.json.gz" -o "$T/two.trace"
expect 0 "info" memplan-trace info --json "$T/two.trace"
has "$T/out" "\"peak_bytes\":$peak," "two members: the figures of the plain files"

# a tar.gz padded by a second, zero-filled block device record
mkdir "$T/tar" && cp "$et" "$T/tar/rank0.et.json"
(cd "$T/tar" && tar czf ../one.tar.gz rank0.et.json)
pad "$T/one.tar.gz" "$T/one-pad.tar.gz" 20480
expect 0 "a padded tar.gz: import" memplan-trace import --from pytorch-et \
	"$T/one-pad.tar.gz" --kineto "$T/k.json" -o "$T/tar.trace"

# real garbage stays refused
size=$(wc -c <"$T/et.json.gz")
cp "$T/et.json.gz" "$T/et-junk.json.gz" && printf 'junk' >>"$T/et-junk.json.gz"
expect 3 "text after the gzip: exit 3" memplan-trace import --from pytorch-et \
	"$T/et-junk.json.gz" -o "$T/junk.trace"
has "$T/err" "et-junk.json.gz': byte $size: data after the gzip stream that is neither another gzip member nor zero padding" \
	"text after the gzip: named, with its offset"
[ ! -e "$T/junk.trace" ]
ok $? "text after the gzip: nothing written"
pad "$T/et.json.gz" "$T/et-zj.json.gz" 100 && printf 'x' >>"$T/et-zj.json.gz"
expect 3 "zeros, then a byte: exit 3" memplan-trace import --from pytorch-et \
	"$T/et-zj.json.gz" -o "$T/zj.trace"
has "$T/err" "neither another gzip member nor zero padding" "zeros, then a byte: refused"

done_testing
