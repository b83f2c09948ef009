#!/bin/sh
# Budgets on traces without kernel accesses (a PyTorch snapshot, an Nsight
# export): no swap can be planned, so every budget command refuses a budget
# below the lower bound without swaps with exit 3 (bad input), saying what
# is missing and how to get it; a budget at or above the lower bound needs
# no swap and still succeeds; share plans such jobs without swaps.
. tests/cli/lib.sh

need_python3
python3 tests/import/make_snapshot.py train "$T/s.pickle" >/dev/null &&
	memplan-trace import --from pytorch-snapshot "$T/s.pickle" --device 0 \
		-o "$T/snap.trace" >/dev/null 2>"$T/err"
ok $? "a PyTorch snapshot imported"
python3 tests/import/make_nsys.py current "$T/n.sqlite" >/dev/null &&
	memplan-trace import --from nsys-sqlite "$T/n.sqlite" --device 0 \
		-o "$T/nsys.trace" >/dev/null 2>"$T/err"
ok $? "an Nsight export imported"

# says_missing WHAT: $T/err names the missing accesses and the ways to them
says_missing() {
	has "$T/err" "records no kernel access" "  ... $1: says the accesses are missing"
	has "$T/err" "--from pytorch-et" "  ... $1: and how to get them (an ET + Kineto import)"
	has "$T/err" "memplan-capture" "  ... $1: or a capture"
	has "$T/err" "needs no swap and fits" "  ... $1: and what still fits (the lower bound)"
	if grep -q "strategy's swaps" "$T/err"; then r=1; else r=0; fi
	ok $r "  ... $1: blames no strategy's swaps"
}

for tr in snap nsys; do
	x=$T/$tr.trace
	rm -f "$T/x.plan"
	expect 3 "$tr: compile --budget 90% is refused as bad input" \
		memplan-plan compile --budget 90% "$x" -o "$T/x.plan"
	says_missing "$tr compile"
	[ ! -e "$T/x.plan" ]
	ok $? "  ... no plan written"
	expect 0 "$tr: compile --budget 100% needs no swap and succeeds" \
		memplan-plan compile --budget 100% --json "$x" -o "$T/x.plan"
	has "$T/out" '"swaps":0,' "  ... with no swap"
	expect 0 "$tr: compile --budget 1GiB (above the lower bound) succeeds" \
		memplan-plan compile --budget 1GiB "$x" -o "$T/y.plan"
	expect 3 "$tr: frontier is refused (every budget below 100% needs swaps)" \
		memplan-plan frontier -q "$x"
	says_missing "$tr frontier"
	[ ! -s "$T/out" ]
	ok $? "  ... no table of one row"
	expect 3 "$tr: advise --budget 50% is refused" \
		memplan-plan advise --budget 50% "$x"
	says_missing "$tr advise"
	expect 3 "$tr: compile --per-gpu --budget 80% is refused" \
		memplan-plan compile --per-gpu --budget 80% --link pcie5,gpus=2 "$x" -o "$T/pg"
	says_missing "$tr per-gpu"
done

# --device-budget: persistent bytes plus less than the pool's lower bound
memplan-plan compile --json "$T/snap.trace" -o "$T/p.plan" >"$T/c.json"
lb=$(sed 's/.*"lower_bound":\([0-9]*\).*/\1/' "$T/c.json")
pers=$(memplan-plan compile --budget 100% --json "$T/snap.trace" -o "$T/p.plan" |
	sed 's/.*"persistent":\([0-9]*\).*/\1/')
expect 3 "snap: compile --device-budget below persistent + lower bound is refused" \
	memplan-plan compile --device-budget $((pers + lb / 2))B "$T/snap.trace" -o "$T/x.plan"
says_missing "device-budget"
expect 0 "snap: compile --device-budget of persistent + lower bound succeeds" \
	memplan-plan compile --device-budget $((pers + lb))B "$T/snap.trace" -o "$T/x.plan"

# share: the imports get plans without swaps when the device has room, and
# exit 3 with the way to accesses when it would take swaps
expect 0 "share of two imports on a roomy device" \
	memplan-plan share "$T/snap.trace" "$T/nsys.trace" --device-memory 1GiB \
	--json -o "$T/dir"
has "$T/out" '"swaps":0,' "  ... without swaps"
if grep -q '"swaps":[1-9]' "$T/out"; then r=1; else r=0; fi
ok $r "  ... none of them"
expect 3 "share of two imports on a device that would need swaps" \
	memplan-plan share "$T/snap.trace" "$T/nsys.trace" --device-memory 10MiB -o "$T/dir2"
has "$T/err" "record no kernel access" "  ... says the accesses are missing"
has "$T/err" "--from pytorch-et" "  ... and how to get them"

done_testing
