#!/bin/sh
# memplan-trace import --from nsys-sqlite: SQLite files in the shape of
# Nsight Systems' export, of the current and an older schema version (other
# enumeration ids), give the figures the generator computed; an unknown
# version, a report without memory events and bad fields exit 3 and leave
# nothing behind.  Pinned host memory is kept apart from the device's peak,
# buffers are labelled by their thread's NVTX range and runtime call, and
# the processes on one device are imported one at a time.
. tests/cli/lib.sh

need_python3
gen=tests/import/make_nsys.py
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# check_labels TRACE EXPECT: the labels of allocated buffers, with counts
check_labels() {
	python3 - "$1" "$2" <<'EOF2'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = {}
for line in open(sys.argv[2]):
    if line.startswith("label "):
        n, lab = line.rstrip("\n").split(" ", 2)[1:]
        want[lab] = int(n)
got = dict(db.execute("SELECT coalesce(label, '(none)'), count(*) FROM buffers b"
                      " JOIN events e ON e.buffer = b.id AND e.type = 0 GROUP BY 1"))
if got != want:
    print("# labels %r, expected %r" % (got, want))
sys.exit(got != want)
EOF2
}

for kind in current old threads; do
	db=$T/$kind.sqlite
	python3 "$gen" $kind "$db"
	ok $? "$kind: the generator wrote an export"
	e=$db.expect
	expect 0 "$kind: import device 0" \
		memplan-trace import --from nsys-sqlite "$db" --device 0 -o "$T/$kind.trace"
	expect 0 "$kind: info" memplan-trace info --json "$T/$kind.trace"
	has "$T/out" "\"buffers\":$(value buffers "$e")," "$kind: buffers"
	has "$T/out" "\"persistent\":$(value persistent "$e")," "$kind: live at start and at end"
	has "$T/out" "\"peak_bytes\":$(value peak "$e")," "$kind: peak of live bytes"
	has "$T/out" "\"alloc\":$(value allocs "$e"),\"free\":$(value frees "$e"),\"kernel\":$(value kernels "$e"),\"copy\":$(value copies "$e"),\"memset\":$(value memsets "$e"),\"sync\":0,\"mark\":$(value marks "$e")}" \
		"$kind: events by type, enumerations joined by name"
	has "$T/out" "\"nsys.skipped_memory_events\":\"$(value skipped "$e")\"" \
		"$kind: pageable host memory is skipped and counted"
	has "$T/out" "\"host_peak_bytes\":$(value host_peak "$e")," \
		"$kind: pinned host memory has a peak of its own"
	check_labels "$T/$kind.trace" "$e"
	ok $? "$kind: buffers are labelled by the innermost NVTX range on their thread and the runtime call"
	aligns=$(python3 -c 'import sqlite3, sys; print(" ".join(str(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT DISTINCT align FROM buffers ORDER BY 1")))' "$T/$kind.trace")
	[ "$aligns" = 256 ]
	ok $? "$kind: every buffer, pinned host too, has alignment 256, what CUDA's allocation routines guarantee (got '$aligns')"
	expect 0 "$kind: slice the second NVTX iteration" \
		memplan-trace slice "$T/$kind.trace" --iteration 2 -o "$T/$kind-2.trace"
	expect 0 "$kind: info on the slice" memplan-trace info --json "$T/$kind-2.trace"
	has "$T/out" '"mark":2}' "$kind: the slice is one range"
done
has "$T/current.sqlite.expect" "marks 7" "the current export has a point mark too"

python3 - "$T/current.trace" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
kinds = {r[0] for r in db.execute("SELECT DISTINCT kind FROM buffers")}
names = {r[0] for r in db.execute("SELECT name FROM events_named WHERE type = 'kernel'")}
copies = {r[0] for r in db.execute("SELECT aux FROM events WHERE type = 3")}
times = [r[0] for r in db.execute("SELECT t_start FROM events ORDER BY seq")]
ok = kinds == {0, 1, 2, 3} and names == {"gemm_layer0", "gemm_layer1", "gemm_layer2"}
ok = ok and copies == {1} and times == sorted(times) and None not in times
sys.exit(0 if ok else 1)
EOF
ok $? "pool, device, managed and pinned host kinds, kernel short names, h2d copies, times in order"

expect 0 "summary of an export with pinned host memory" memplan-analyze summary "$T/current.trace"
has "$T/out" "peak:           7.06 MiB ($(value peak "$T/current.sqlite.expect") bytes)" \
	"the peak is of device memory"
has "$T/out" "host memory:    64.00 MiB (67108864 bytes) at most, pinned" \
	"host memory is reported on its own line"
has "$T/out" "by kind:       device 7.00 MiB (99.1%), async 64.00 KiB (0.9%)" \
	"live at the peak holds device memory only"
expect 0 "summary --json" memplan-analyze summary --json "$T/current.trace"
has "$T/out" '"host_peak_bytes":67108864' "summary --json has the host peak"

expect 2 "two devices need --device" \
	memplan-trace import --from nsys-sqlite "$T/current.sqlite" -o "$T/x.trace"
has "$T/err" "holds memory events of devices 0, 1: choose one with --device" "the devices are named"
expect 0 "device 1 imports" \
	memplan-trace import --from nsys-sqlite "$T/current.sqlite" --device 1 -o "$T/d1.trace"
expect 0 "info on device 1" memplan-trace info --json "$T/d1.trace"
has "$T/out" '"alloc":1,"free":1,"kernel":1,' "device 1 has its own events"
expect 2 "a device without events" \
	memplan-trace import --from nsys-sqlite "$T/current.sqlite" --device 3 -o "$T/x.trace"

python3 "$gen" pinnedelsewhere "$T/pe.sqlite"
expect 0 "pinned host memory under another device id does not make it a choice" \
	memplan-trace import --from nsys-sqlite "$T/pe.sqlite" -o "$T/pe.trace"
expect 0 "info" memplan-trace info --json "$T/pe.trace"
has "$T/out" '"device":"cuda:0"' "device 0, the one with device memory, is taken"

# several processes on one device: one at a time
python3 "$gen" twoproc "$T/twoproc.sqlite"
expect 2 "two processes on device 0 need --pid" \
	memplan-trace import --from nsys-sqlite "$T/twoproc.sqlite" --device 0 -o "$T/x.trace"
has "$T/err" "holds memory events of processes 4242, 5151 on device 0: choose one with --pid" \
	"the processes are named"
expect 0 "--pid 4242 imports" \
	memplan-trace import --from nsys-sqlite "$T/twoproc.sqlite" --device 0 --pid 4242 -o "$T/p1.trace"
expect 0 "info on process 4242" memplan-trace info --json "$T/p1.trace"
e=$T/twoproc.sqlite.expect
has "$T/out" "\"alloc\":$(value allocs "$e"),\"free\":$(value frees "$e"),\"kernel\":$(value kernels "$e"),\"copy\":$(value copies "$e"),\"memset\":$(value memsets "$e"),\"sync\":0,\"mark\":$(value marks "$e")}" \
	"process 4242: its own events only"
has "$T/out" "\"peak_bytes\":$(value peak "$e")," "process 4242: its own peak"
has "$T/out" '"nsys.pid":"4242"' "process 4242: the pid is in meta"
expect 0 "--pid 5151 imports" \
	memplan-trace import --from nsys-sqlite "$T/twoproc.sqlite" --device 0 --pid 5151 -o "$T/p2.trace"
expect 0 "info on process 5151" memplan-trace info --json "$T/p2.trace"
has "$T/out" '"alloc":1,"free":1,"kernel":1,"copy":0,"memset":0,"sync":0,"mark":2}' \
	"process 5151: its allocation, kernel and range"
expect 2 "a process without memory events" \
	memplan-trace import --from nsys-sqlite "$T/twoproc.sqlite" --device 0 --pid 9 -o "$T/x.trace"
has "$T/err" "no memory events of process 9 on device 0 (processes with events: 4242, 5151)" \
	"and the processes that have some are listed"
expect 2 "--pid is for nsys-sqlite" \
	memplan-trace import --from pytorch-snapshot "$T/twoproc.sqlite" --pid 1 -o "$T/x.trace"
expect 2 "--pid must be a number" \
	memplan-trace import --from nsys-sqlite "$T/twoproc.sqlite" --pid x -o "$T/x.trace"

refuse() { # kind message description
	python3 "$gen" "$1" "$T/$1.sqlite"
	cp "$T/old.trace" "$T/keep.trace"
	expect 3 "$3 exits 3" \
		memplan-trace import --from nsys-sqlite "$T/$1.sqlite" -o "$T/keep.trace"
	has "$T/err" "memplan-trace: error: cannot read nsys export '$T/$1.sqlite': " "$3: the file is named"
	has "$T/err" "$2" "$3: the error says why"
	cmp -s "$T/old.trace" "$T/keep.trace"
	ok $? "$3: the existing output is untouched"
}
refuse unknown "export schema version 9.0.0 is not one memplan knows (2.x and 3.x)" \
	"an unknown schema version"
refuse nomem "record with 'nsys profile --cuda-memory-usage=true'" "a report without memory events"
refuse trimmed "record with 'nsys profile --cuda-memory-usage=true'" \
	"a trimmed export without ENUM tables and memory events"
refuse noversion "table META_DATA_EXPORT is missing" "an export without its version"
refuse badtype "table CUDA_GPU_MEMORY_USAGE_EVENTS, row 28, column bytes: expected an integer, found text" \
	"a text in an integer column"
expect 3 "a memplan trace is not an nsys export" \
	memplan-trace import --from nsys-sqlite "$T/old.trace" -o "$T/x.trace"
has "$T/err" "not an Nsight Systems export" "and is told apart"
expect 3 "a text file is not an export" \
	memplan-trace import --from nsys-sqlite "$gen" -o "$T/x.trace"
has "$T/err" "not an SQLite file" "and says so"
[ ! -e "$T/x.trace" ]
ok $? "no output is left behind"

done_testing
