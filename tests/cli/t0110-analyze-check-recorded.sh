#!/bin/sh
# memplan-analyze check gates on what the trace recorded: on a PyTorch
# snapshot --max-reserved checks PyTorch's recorded reserved peak (5.00 MiB
# here), not the allocator model's (6.00 MiB), and says which figure it
# checked; the model stays for cudamalloc and for traces that record none.
# A number without a unit where one matters is refused with a hint:
# --max-peak 70 (70 bytes), --tolerance 0.02 (0.02%), --budget 0.7.
. tests/cli/lib.sh

need_python3
python3 tests/import/make_snapshot.py train "$T/s.pickle" >/dev/null &&
	memplan-trace import --from pytorch-snapshot "$T/s.pickle" --device 0 \
		-o "$T/snap.trace" >/dev/null 2>"$T/err"
ok $? "a PyTorch snapshot imported"
rec=$(awk '$1 == "reserved_peak" { print $2 }' "$T/s.pickle.expect")
[ "$rec" = 5242880 ]
ok $? "its recorded reserved peak is 5 MiB (got $rec)"
expect 0 "summary" memplan-analyze summary --json "$T/snap.trace"
has "$T/out" '"recorded_reserved_peak":5242880' "  ... recorded 5 MiB"

expect 0 "--max-reserved 5.5MiB passes: PyTorch reserved 5.00 MiB" \
	memplan-analyze check --max-reserved 5.5MiB "$T/snap.trace"
has "$T/out" "pass: reserved peak (recorded by PyTorch) 5.00 MiB is within --max-reserved 5.50 MiB" \
	"  ... says it checked the recorded figure"
expect 1 "--max-reserved 4.5MiB fails on the recorded figure" \
	memplan-analyze check --max-reserved 4.5MiB "$T/snap.trace"
has "$T/out" "FAIL: reserved peak (recorded by PyTorch) 5.00 MiB exceeds" "  ... by the recorded figure"
expect 0 "JSON" memplan-analyze check --max-reserved 5.5MiB --json "$T/snap.trace"
has "$T/out" '"figure":"recorded by PyTorch","value":5242880' "  ... names the figure and its value"
expect 1 "--allocator cudamalloc: the model (the trace records PyTorch's only)" \
	memplan-analyze check --max-reserved 1MiB --allocator cudamalloc "$T/snap.trace"
has "$T/out" "reserved peak (cudamalloc model)" "  ... says so"
memplan-trace import --from minimalloc-csv tests/fuzz/seeds/csv/small.csv \
	-o "$T/small.trace" >/dev/null 2>"$T/err"
expect 0 "a trace without a recorded figure: the pytorch model" \
	memplan-analyze check --max-reserved 2MiB "$T/small.trace"
has "$T/out" "reserved peak (pytorch model) 2.00 MiB" "  ... says so"

# units
expect 2 "--max-peak 70 (70 bytes) is refused" memplan-analyze check --max-peak 70 "$T/snap.trace"
has "$T/err" "write 70GiB, 70GB or 70MiB (or 70B if you mean bytes)" "  ... with a hint"
expect 2 "--max-reserved 3.5 is refused" memplan-analyze check --max-reserved 3.5 "$T/snap.trace"
has "$T/err" "write 3.5GiB" "  ... with a hint"
expect 0 "--max-peak 4MiB" memplan-analyze check --max-peak 4MiB "$T/snap.trace"
expect 0 "--max-peak 4194304 (bytes, 1 MiB or more, as written)" \
	memplan-analyze check --max-peak 4194304 "$T/snap.trace"
expect 1 "--max-peak 70B: bytes, said so" memplan-analyze check --max-peak 70B "$T/snap.trace"
expect 2 "--tolerance 0.02 (0.02%) is refused" \
	memplan-analyze check --baseline "$T/snap.trace" --tolerance 0.02 "$T/snap.trace"
has "$T/err" "did you mean 2%?" "  ... suggesting 2%"
expect 0 "--tolerance 0.02% as written" \
	memplan-analyze check --baseline "$T/snap.trace" --tolerance 0.02% "$T/snap.trace"
expect 0 "--tolerance 2" \
	memplan-analyze check --baseline "$T/snap.trace" --tolerance 2 "$T/snap.trace"
expect 2 "compile --budget 0.7 is refused" \
	memplan-plan compile --budget 0.7 "$T/snap.trace" -o "$T/x.plan"
has "$T/err" "did you mean 70%?" "  ... suggesting 70%"

done_testing
