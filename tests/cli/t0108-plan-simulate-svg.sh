#!/bin/sh
# memplan-plan simulate -o FILE.svg, what the picture says: a legend that
# explains every colour (red stalls included), one bar per copy with a
# tooltip naming its swap, adjacent copies never merged into one bar, size
# ticks at round values; in headless Chromium (where installed) the legend
# is drawn and nothing runs off the picture.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "a zoo trace"
memplan-plan compile "$T/r.trace" --budget 70% -o "$T/s.plan" >/dev/null 2>"$T/err"
ok $? "a plan with swaps"
memplan-plan simulate "$T/s.plan" "$T/r.trace" -o "$T/s.svg" >"$T/out" 2>"$T/err"
ok $? "simulate -o s.svg"
nswaps=$(sed -n 's/^swaps: *\([0-9]*\) .*/\1/p' "$T/out")
[ "${nswaps:-0}" -gt 1 ]
ok $? "the plan swaps ($nswaps swaps)"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$T/s.svg" 2>"$T/err"
	ok $? "the SVG is well-formed"
fi

# the legend
legend=$(grep -o '<g class="legend".*</g>' "$T/s.svg")
for what in "compute" "stall: compute waits for a swap" "D2H: swap-out" "H2D: swap-in" \
	"resident pool bytes" "pool"; do
	echo "$legend" | grep -q ">$what</text>"
	ok $? "the legend explains '$what'"
done

# a bar and a tooltip per copy
for lane in D2H H2D; do
	grep -o "<g class=\"$lane\">.*</g>" "$T/s.svg" | grep -o '<rect class="copy"[^>]*>' >"$T/$lane"
	[ "$(wc -l <"$T/$lane")" -eq "$nswaps" ]
	ok $? "$lane: one bar per swap ($(wc -l <"$T/$lane") of $nswaps)"
	# bars in order never overlap: adjacent copies stay two bars
	sed 's/.* x="\([0-9.]*\)".* width="\([0-9.]*\)".*/\1 \2/' "$T/$lane" | sort -n |
		awk 'NR > 1 && $1 < end - 0.01 { bad = 1 } { end = $1 + $2 } END { exit bad }'
	ok $? "$lane: no two bars overlap"
done
grep -q '<title>swap 0 out (D2H): [0-9.]* [KMG]iB of [^<]* (request [0-9]*) to the host, [0-9.]* ms to [0-9.]* ms; ' "$T/s.svg"
ok $? "a copy's tooltip names its swap, its bytes and its times"
grep -q '<title>stall: event [0-9]* waited [0-9.]* ms at [0-9.]* ms for swap [0-9]* ' "$T/s.svg"
ok $? "a stall's tooltip says what waited for which swap"

# size ticks: round numbers of one unit
sed -n '/<g class="axes"/,/<\/g>/p' "$T/s.svg" | grep -o 'text-anchor="end">[^<]*<' |
	sed 's/.*">//; s/<$//' >"$T/yticks"
[ "$(wc -l <"$T/yticks")" -ge 3 ]
ok $? "size ticks ($(tr '\n' ',' <"$T/yticks"))"
grep -vqE '^(0|[0-9]+(\.[0-9]+)? (B|KiB|MiB|GiB|TiB))$' "$T/yticks"
[ $? -ne 0 ]
ok $? "  ... each a size"
sed -n '2,$p' "$T/yticks" | awk '{ v[NR] = $1 } END {
	d = v[1]; for (i = 2; i <= NR; i++) if (v[i] - v[i-1] != d) exit 1
	m = d; while (m >= 10) m /= 10; while (m < 1) m *= 10
	exit !(m == 1 || m == 2 || m == 5) }'
ok $? "  ... at even steps of 1, 2 or 5 times a power of ten"

browser=
for b in chromium chromium-browser; do
	command -v "$b" >/dev/null 2>&1 && browser=$b && break
done
if [ -z "$browser" ] || ! command -v python3 >/dev/null 2>&1; then
	echo "ok - # SKIP chromium or python3 not installed"
else
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--no-first-run --hide-scrollbars --user-data-dir="$T/profile" \
		--window-size=1000,800 --screenshot="$T/s.png" "file://$T/s.svg" >/dev/null 2>"$T/browser.err"
	ok $? "$browser draws the SVG"
	n=0
	for c in '#4e79a7' '#e15759' '#f28e2b' '#59a14f' '#76b7b2'; do
		python3 tests/cli/pngrule.py present "$T/s.png" "$c" 0 565 1000 600 >/dev/null || n=$((n + 1))
	done
	[ "$n" -eq 0 ]
	ok $? "every swatch is drawn in the legend row ($n missing)"
	python3 tests/cli/pngrule.py edge "$T/s.png" 0 0 1000 600 >"$T/edge"
	ok $? "nothing runs off the picture ($(cat "$T/edge"))"
fi

done_testing
