#!/bin/sh
# memplan-trace import --from pytorch-snapshot: pickles written by Python's
# own pickle module in the shape of torch.cuda.memory._dump_snapshot(), for
# protocols 2 to 5; the figures match what the generator computed; bad
# snapshots are refused with exit 3 and no output left behind.
. tests/cli/lib.sh

need_python3
gen=tests/import/make_snapshot.py

# value KEY FILE: the figure KEY of an .expect file
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

for proto in 2 3 4 5; do
	s=$T/train$proto.pickle
	python3 "$gen" train "$s" --protocol $proto
	ok $? "protocol $proto: the generator wrote a snapshot"
	expect 0 "protocol $proto: import device 0" \
		memplan-trace import --from pytorch-snapshot "$s" --device 0 -o "$T/t$proto.trace"
	expect 0 "protocol $proto: info" memplan-trace info --json "$T/t$proto.trace"
	e=$s.expect
	has "$T/out" "\"buffers\":$(value buffers "$e")," "protocol $proto: buffer count"
	has "$T/out" "\"peak_bytes\":$(value peak "$e")," "protocol $proto: peak of live bytes"
	has "$T/out" "\"persistent\":$(value persistent "$e")," \
		"protocol $proto: persistent buffers (live at start, at end, never in the history)"
	has "$T/out" "\"alloc\":$(value allocs "$e"),\"free\":$(value frees "$e")," \
		"protocol $proto: allocs, and frees only when completed"
	has "$T/out" "\"pytorch.reserved_peak_bytes\":\"$(value reserved_peak "$e")\"" \
		"protocol $proto: reserved peak from the segments"
	has "$T/out" "\"pytorch.reserved_end_bytes\":\"$(value reserved_end "$e")\"" \
		"protocol $proto: reserved at the end"
	aligns=$(python3 -c 'import sqlite3, sys; print(" ".join(str(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT DISTINCT align FROM buffers ORDER BY 1")))' "$T/t$proto.trace")
	[ "$aligns" = 512 ]
	ok $? "protocol $proto: every buffer is a caching-allocator block, alignment 512 (got '$aligns')"
	has "$T/out" "\"pytorch.pending_frees\":\"1\"" \
		"protocol $proto: a free_requested without free_completed stays allocated"
done

e=$T/train4.pickle.expect
python3 - "$T/t4.trace" "$(value label_forward20 "$e")" "$(value label_attention "$e")" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def n(label):
    return db.execute("SELECT count(*) FROM buffers b JOIN events e ON e.buffer = b.id"
                      " AND e.type = 0 WHERE label = ?", (label,)).fetchone()[0]
ok = n("model.py:20 forward") == int(sys.argv[2]) and n("model.py:30 attention") == int(sys.argv[3])
streams = {r[0] for r in db.execute("SELECT DISTINCT stream FROM buffers")}
ok = ok and streams == {0, 7777}
times = [r[0] for r in db.execute("SELECT t_start FROM events ORDER BY seq")]
ok = ok and all(t is not None for t in times) and times == sorted(times)
sys.exit(0 if ok else 1)
EOF
ok $? "labels are the innermost user frame; streams and times are kept"

# what recent PyTorch writes: C++ stacks, Windows paths, 2^64-1 line
# numbers (9-byte LONG1), a real oom entry, an unknown action
for proto in 2 4; do
	s=$T/real$proto.pickle
	python3 "$gen" real "$s" --protocol $proto
	expect 0 "real, protocol $proto: imports" \
		memplan-trace import --from pytorch-snapshot "$s" -o "$T/real$proto.trace"
done
expect 0 "real: info" memplan-trace info --json "$T/real4.trace"
has "$T/out" "\"alloc\":$(value allocs "$T/real4.pickle.expect")," "real: every allocation is kept"
has "$T/out" '"pytorch.oom_events":"1"' "real: the oom is counted"
has "$T/out" '"pytorch.unknown_actions":"1"' "real: the unknown action is skipped and counted"
python3 - "$T/real4.trace" "$T/real4.pickle.expect" <<'EOF2'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = {}
frames = 0
for line in open(sys.argv[2]):
    k, rest = line.rstrip("\n").split(" ", 1)
    if k == "label":
        n, lab = rest.split(" ", 1)
        want[lab] = int(n)
    elif k == "stack_frames":
        frames = int(rest)
    elif k == "oom_bytes":
        oom_bytes = int(rest)
    elif k == "oom_free":
        oom_free = int(rest)
got = dict(db.execute("SELECT label, count(*) FROM buffers b JOIN events e"
                      " ON e.buffer = b.id AND e.type = 0 GROUP BY label"))
bad = []
if got != want:
    bad.append("labels %r, expected %r" % (got, want))
stacks = [r[0] for r in db.execute("SELECT n.name FROM buffer_stacks s JOIN names n"
                                   " ON n.id = s.stack JOIN buffers b ON b.id = s.buffer"
                                   " WHERE b.label = 'model.py:42 forward'")]
if len(stacks) != 2 or stacks[0].count("\n") + 1 != frames:
    bad.append("stacks %r" % stacks[:1])
elif not stacks[0].startswith("??:0 torch::unwind::unwind()\n") or \
        "\nD:\\Dev\\project\\model.py:42 forward\nD:\\Dev\\project\\train.py main\n" not in stacks[0]:
    bad.append("stack text %r" % stacks[0])
oom = db.execute("SELECT bytes, name FROM events_named WHERE type = 'mark'").fetchall()
if oom != [(oom_bytes, "oom device_free=%d" % oom_free)]:
    bad.append("oom mark %r" % oom)
print("# " + "; ".join(bad)) if bad else None
sys.exit(1 if bad else 0)
EOF2
ok $? "real: labels skip C++, PyTorch's and Python's frames on either separator; stacks kept whole; the oom is a mark with its bytes"

expect 2 "two devices with a history need --device" \
	memplan-trace import --from pytorch-snapshot "$T/train4.pickle" -o "$T/x.trace"
has "$T/err" "holds the history of devices 0, 1: choose one with --device" \
	"the error names the devices"
expect 0 "device 1 imports" \
	memplan-trace import --from pytorch-snapshot "$T/train4.pickle" --device 1 -o "$T/d1.trace"
expect 0 "info on device 1" memplan-trace info --json "$T/d1.trace"
has "$T/out" '"alloc":1,"free":1,' "device 1 has its own history"
has "$T/out" '"mark":1' "an oom entry (device_free, no addr) becomes a mark"
has "$T/out" '"device":"cuda:1"' "the device is in meta"
expect 2 "a device without history is a usage error" \
	memplan-trace import --from pytorch-snapshot "$T/train4.pickle" --device 5 -o "$T/x.trace"
has "$T/err" "no history for device 5" "and says which device"
expect 2 "--device must be a number" \
	memplan-trace import --from pytorch-snapshot "$T/train4.pickle" --device x -o "$T/x.trace"

# a program on device 1 alone: _snapshot() leaves a 'snapshot' marker in
# device 0's trace too, which is not a history
python3 "$gen" marker0 "$T/m0.pickle"
expect 0 "device 0 with only a snapshot marker: device 1 is imported" \
	memplan-trace import --from pytorch-snapshot "$T/m0.pickle" -o "$T/m0.trace"
has "$T/out" "imported device 1, the one device with a history (device traces with only 'snapshot' markers: 0)" \
	"the output says which device and why"
expect 0 "info on it" memplan-trace info --json "$T/m0.trace"
has "$T/out" '"device":"cuda:1"' "meta: device 1"
has "$T/out" "\"alloc\":$(value allocs "$T/m0.pickle.expect")," "device 1's history is read"
has "$T/out" "\"pytorch.device_chosen\":\"device 1, the one device with a history" "meta says why"
expect 0 "detected, the same device is chosen" memplan-trace import "$T/m0.pickle" -o "$T/m0b.trace"
has "$T/out" "imported device 1" "and said"
expect 2 "--device 0 asks for the device with only a marker" \
	memplan-trace import --from pytorch-snapshot "$T/m0.pickle" --device 0 -o "$T/x.trace"
has "$T/err" "holds no history for device 0 (devices with a history: 1)" "and the error names device 1"
python3 "$gen" marker01 "$T/m01.pickle"
expect 2 "devices 1 and 2 with a history, 0 with a marker: --device is needed" \
	memplan-trace import --from pytorch-snapshot "$T/m01.pickle" -o "$T/x.trace"
has "$T/err" "holds the history of devices 1, 2: choose one with --device" \
	"the error names the devices with a history, not device 0"
expect 0 "--device 2 imports" \
	memplan-trace import --from pytorch-snapshot "$T/m01.pickle" --device 2 -o "$T/m2.trace"

refuse() { # kind message description
	python3 "$gen" "$1" "$T/$1.pickle"
	cp "$T/t4.trace" "$T/keep.trace"
	expect 3 "$3 exits 3" \
		memplan-trace import --from pytorch-snapshot "$T/$1.pickle" -o "$T/keep.trace"
	has "$T/err" "memplan-trace: error: cannot read snapshot '$T/$1.pickle': " "$3: the error names the file"
	has "$T/err" "$2" "$3: the error says why"
	cmp -s "$T/t4.trace" "$T/keep.trace"
	ok $? "$3: the existing output is untouched"
}
refuse nohistory "the snapshot holds no allocation history" "a snapshot recorded without history"
expect 3 "no history with --device 0 exits 3 as well" \
	memplan-trace import --from pytorch-snapshot "$T/nohistory.pickle" --device 0 -o "$T/x.trace"
has "$T/err" "the snapshot holds no allocation history" "and says why"
refuse legacy "in the shape of PyTorch before 2.1" "a PyTorch 2.0 snapshot"
refuse torch20 "in the shape of PyTorch before 2.1" "a PyTorch 2.0 snapshot with device_traces"
has "$T/err" "_record_memory_history(enabled='all')" "a PyTorch 2.0 snapshot: the error says how to record"
refuse wideaddr "field 'addr': a value wider than 64 bits does not fit" "an address of 2^64"
refuse widesize "field 'size': a value wider than 64 bits does not fit" "a size of -2^70"
refuse otherprog "not a PyTorch memory snapshot" "a pickle from another program"
refuse code "opcode STACK_GLOBAL: would import or call code" "a pickle that imports code"
python3 "$gen" code "$T/code2.pickle" --protocol 2
expect 3 "a protocol 2 pickle with GLOBAL exits 3" \
	memplan-trace import --from pytorch-snapshot "$T/code2.pickle" -o "$T/x.trace"
has "$T/err" "opcode GLOBAL" "GLOBAL is named"
refuse segmentsonly "looks like torch.cuda.memory_snapshot()" "a segments-only list"

head -c 3000 "$T/train4.pickle" >"$T/cut.pickle"
expect 3 "a truncated snapshot exits 3" \
	memplan-trace import --from pytorch-snapshot "$T/cut.pickle" -o "$T/x.trace"
has "$T/err" "truncated?" "and says it may be truncated"
[ ! -e "$T/x.trace" ]
ok $? "no output is left behind"
ls "$T" | grep -q tmp
[ $? -ne 0 ]
ok $? "no temporary file is left behind"
expect 3 "a missing snapshot exits 3" \
	memplan-trace import --from pytorch-snapshot "$T/none.pickle" -o "$T/x.trace"
has "$T/err" "cannot read snapshot '$T/none.pickle'" "the missing file is named"
expect 3 "a text file exits 3" \
	memplan-trace import --from pytorch-snapshot "$gen" -o "$T/x.trace"
has "$T/err" "not a pickle of protocol 2 to 5" "and is not taken for a pickle"

done_testing
