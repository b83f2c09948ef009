#!/bin/sh
# Issue 20, item 3: a plan remembers the link its swaps were planned for.
# compile --budget stores its --link spec (or the default it chose) in the
# plan's optional LINK section; simulate judges the plan on it unless --link
# overrides it, which it says on stderr; a plan without the section (no
# swaps, or an older memplan's) keeps the default, and simulate says so.
# inspect shows it, verify parses it against the trace, memplan-replay
# --stats and the runtime's statistics at exit name it.  A spec the plan
# cannot store is a usage error; a LINK section edited into nonsense is
# refused by verify and simulate.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 8 -o "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "a ResNet-50 iteration"

expect 0 "compile --budget 70% --link gh200-c2c" \
	memplan-plan compile "$T/r.trace" --budget 70% --link gh200-c2c -o "$T/c2c.plan"
compiled=$(sed -n 's/.*overhead \([0-9.]*\)%.*/\1/p' "$T/out")
[ -n "$compiled" ]
ok $? "  ... it predicts an overhead ($compiled%)"

# simulate: the plan's own link, not pcie5
expect 0 "simulate without --link" memplan-plan simulate "$T/c2c.plan" "$T/r.trace"
has "$T/out" "over gh200-c2c (the plan's link):" "  ... over the link the plan records"
has "$T/out" "overhead $compiled%" "  ... predicting what compile predicted"
[ ! -s "$T/err" ]
ok $? "  ... and nothing on stderr"
expect 0 "simulate --json" memplan-plan simulate --json "$T/c2c.plan" "$T/r.trace"
has "$T/out" '"link":"gh200-c2c","link_source":"the plan'"'"'s link","plan_link":"gh200-c2c"' \
	"  ... link, where it came from, and the plan's"

# --link overrides, saying so
expect 0 "simulate --link pcie5 overrides" \
	memplan-plan simulate "$T/c2c.plan" "$T/r.trace" --link pcie5
has "$T/out" "over pcie5 (--link):" "  ... simulating over pcie5"
has "$T/err" "warning: --link 'pcie5' overrides the plan's link 'gh200-c2c'" \
	"  ... and saying on stderr that it overrides the plan's"
grep -q "overhead $compiled%" "$T/out"
[ $? -ne 0 ]
ok $? "  ... with another prediction than compile's"
expect 0 "simulate --link gh200-c2c (the plan's own): no warning" \
	memplan-plan simulate "$T/c2c.plan" "$T/r.trace" --link gh200-c2c
[ ! -s "$T/err" ]
ok $? "  ... nothing on stderr"

# inspect and verify
expect 0 "inspect" memplan-plan inspect "$T/c2c.plan"
has "$T/out" "link:         gh200-c2c (LINK" "  ... shows the link"
has "$T/out" "LINK        optional" "  ... in an optional LINK section"
expect 0 "inspect --json" memplan-plan inspect --json "$T/c2c.plan"
has "$T/out" '"link":"gh200-c2c"' "  ... the link in meta"
expect 0 "verify" memplan-plan verify "$T/c2c.plan" "$T/r.trace"

# the default, stored as what compile chose
expect 0 "compile --budget 70% without --link" \
	memplan-plan compile "$T/r.trace" --budget 70% -o "$T/def.plan"
has "$T/out" "over pcie5:" "  ... plans over the default pcie5"
expect 0 "  ... and stores it" memplan-plan inspect "$T/def.plan"
has "$T/out" "link:         pcie5 (LINK" "  ... inspect shows pcie5"
expect 0 "  ... simulate uses it" memplan-plan simulate "$T/def.plan" "$T/r.trace"
has "$T/out" "over pcie5 (the plan's link):" "  ... as the plan's link"

# a plan without the section
expect 0 "compile without --budget" memplan-plan compile "$T/r.trace" -o "$T/noswap.plan"
expect 0 "  ... inspect" memplan-plan inspect --json "$T/noswap.plan"
has "$T/out" '"link":null' "  ... records no link"
expect 0 "  ... simulate" memplan-plan simulate "$T/noswap.plan" "$T/r.trace"
has "$T/out" "over pcie5 (the default: the plan records no link):" \
	"  ... keeps the default, saying so"

# what a plan cannot store
# (each key once: a key given twice is refused before the length)
z=0000000000000000000000000000000000000000
long="pcie5,h2d=50.$z,d2h=25.$z,latency=1.$z"
expect 2 "a --link of ${#long} characters is a usage error" \
	memplan-plan compile "$T/r.trace" --budget 70% --link "$long" -o "$T/long.plan"
has "$T/err" "the plan stores at most 127" "  ... saying how long a spec may be"
[ ! -e "$T/long.plan" ]
ok $? "  ... and writing no plan"

# the statistics name it
expect 0 "memplan-replay --stats" memplan-replay --stats "$T/c2c.plan" "$T/r.trace"
grep -qE '^plan_link +gh200-c2c  # ' "$T/out"
ok $? "  ... names the plan's link"
expect 0 "memplan-replay --json" memplan-replay --json "$T/c2c.plan" "$T/r.trace"
has "$T/out" '"plan_link":"gh200-c2c"' "  ... as plan_link"
APP=$BUILD/tests/cuda/app
if [ -x "$APP" ]; then
	LIB=$BUILD_DIR/lib/libmemplan.so
	san=$(ldd "$LIB" 2>/dev/null | awk '/lib(asan|ubsan|tsan)\./ { printf "%s ", $3 }')
	LD_PRELOAD="$san$LIB" MEMPLAN_PLAN=$T/c2c.plan MEMPLAN_SHOW_STATS=1 \
		"$APP" "$T/r.trace" >"$T/out" 2>&1
	has "$T/out" "memplan: plan '$T/c2c.plan' was planned for link 'gh200-c2c'" \
		"the runtime's statistics at exit name the plan's link"
else
	skip "the runtime's statistics at exit name the plan's link" "no $APP (make check builds it)"
fi

# a LINK section edited into nonsense, checksum repaired: verify refuses it
if command -v python3 >/dev/null 2>&1; then
	python3 - "$T/c2c.plan" "$T/bad.plan" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
n = struct.unpack_from('<I', b, 24)[0]
for i in range(n):
    t, _, off, ln = struct.unpack_from('<IIQQ', b, 64 + 32 * i)
    if t == 6:
        b[off:off + 128] = b'nvlink9'.ljust(128, b'\0')
struct.pack_into('<I', b, 28, 0)
crc = 0xffffffff
for x in b:
    crc ^= x
    for _ in range(8):
        crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
struct.pack_into('<I', b, 28, crc ^ 0xffffffff)
open(sys.argv[2], 'wb').write(b)
EOF
	ok $? "a plan whose LINK says 'nvlink9'"
	expect 0 "  ... loads (inspect: the loader does not know link models)" \
		memplan-plan inspect "$T/bad.plan"
	has "$T/out" "link:         nvlink9" "  ... and shows it"
	expect 1 "  ... verify refuses it" memplan-plan verify "$T/bad.plan" "$T/r.trace"
	has "$T/err" "the plan's LINK section 'nvlink9' is not a link of this trace: --link 'nvlink9' is not a known model" \
		"  ... naming the section and the spec"
	expect 1 "  ... simulate refuses it, as verify does" memplan-plan simulate "$T/bad.plan" "$T/r.trace"
else
	skip "a LINK section edited into nonsense" "python3 is not installed"
fi

done_testing
