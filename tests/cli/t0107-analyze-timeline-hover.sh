#!/bin/sh
# The HTML timeline in headless Chromium, judged on its screenshots by rule:
# hovering a buffer darkens its own band and nothing else (every pixel it
# changes lies on the band's colour), the legend is drawn whole in a narrow
# window, the tooltip stays inside the window at its right edge, zooming
# gives round ticks over the part zoomed into, and a buffer's call stack
# shows on hover.  The page's #memplan-selftest hash moves the mouse (see
# timeline_html.c); tests/cli/pngrule.py reads the PNGs with the standard
# library.  Skipped where chromium or python3 is missing (.ci/run installs
# both).
. tests/cli/lib.sh

browser=
for b in chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ] || ! command -v python3 >/dev/null 2>&1; then
	echo "ok - # SKIP chromium or python3 not installed"
	exit 0
fi

# chrome W H ARGS...: headless chromium at a window of W x H
chrome() {
	w=$1 h=$2
	shift 2
	rm -rf "$T/profile"
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-dev-shm-usage --no-first-run --no-default-browser-check \
		--hide-scrollbars --user-data-dir="$T/profile" --window-size="$w,$h" \
		--virtual-time-budget=5000 "$@" 2>"$T/browser.err"
}
# status FILE HASH [W H]: the status element after the self-test, in $T/status
status() {
	chrome "${3:-1000}" "${4:-700}" --dump-dom "file://$1#memplan-selftest;$2" >"$T/dom"
	grep -o '<div id="memplan-status"[^>]*>' "$T/dom" >"$T/status"
}
# shot FILE HASH OUT [W H]
shot() {
	chrome "${4:-1000}" "${5:-700}" --screenshot="$3" "file://$1#memplan-selftest;$2" >/dev/null
}
attr() {
	sed -n "s/.* data-$1=\"\\([^\"]*\\)\".*/\\1/p" "$T/status"
}
png() {
	python3 tests/cli/pngrule.py "$@"
}

memplan-trace synth --model resnet50 --batch 8 -o "$T/r8.trace" >/dev/null 2>"$T/err"
ok $? "synth resnet50"
memplan-analyze timeline --by role -o "$T/r8.html" "$T/r8.trace" >/dev/null 2>"$T/err"
ok $? "HTML timeline by role"

# hover: the highlighted band stays inside its group's area.  A weight
# lives the whole iteration above the activations, which rise and fall
# under it: a box at the height under the mouse would cut across them.
for spot in "y=0.72" "at=0.3;y=0.5" "zoom=0.2-0.6;at=0.6;y=0.6"; do
	status "$T/r8.html" "$spot"
	color=$(attr hl-color)
	[ "$(attr state)" = ready ] && [ -n "$(attr hl-buffer)" ]
	ok $? "hover at '$spot' finds buffer $(attr hl-buffer), colour $color"
	shot "$T/r8.html" "$spot;notip;nohover" "$T/base.png" &&
		shot "$T/r8.html" "$spot;notip" "$T/hover.png"
	ok $? "  ... screenshots without and with the hover"
	png band "$T/base.png" "$T/hover.png" "$color" >"$T/band"
	ok $? "  ... the highlight covers its own band only ($(cat "$T/band"))"
done

# a narrow window: the legend is drawn whole, the tooltip stays inside
status "$T/r8.html" "at=0.97;y=0.5" 560 700
set -- $(attr window) 0 0
ww=$1
set -- $(attr tip) x x x x
[ "$ww" -gt 0 ] && [ "$1" -ge 4 ] && [ "$3" -le $((ww - 4)) ] 2>/dev/null
ok $? "at the right edge of a $ww px window the tooltip lies inside it, 4 px clear ($(attr tip))"
set -- $(attr svg)
sl=$1 st=$2 sr=$3 sb=$4
[ "$sr" -le "$ww" ] 2>/dev/null
ok $? "the picture fits the window ($(attr svg))"
shot "$T/r8.html" "at=0.97;y=0.5;notip" "$T/narrow.png" 560 700
ok $? "screenshot of the narrow window"
# the legend starts right of the plot: 770 of the picture's 1000 units
lx=$(awk -v l="$sl" -v r="$sr" 'BEGIN { printf "%d", l + (r - l) * 0.77 }')
n=0
for c in $(grep -o '"color":"#[0-9a-f]*"' "$T/r8.html" | cut -d'"' -f4); do
	png present "$T/narrow.png" "$c" "$lx" "$st" "$sr" "$sb" >/dev/null || n=$((n + 1))
done
[ "$n" -eq 0 ]
ok $? "every group's swatch is in the legend of the screenshot ($n missing)"

# zoom: the view, and ticks at round values inside it
status "$T/r8.html" "zoom=0.25-0.5;nohover"
set -- $(attr view)
span=$(grep -o '"span":[0-9]*' "$T/r8.html" | cut -d: -f2)
awk -v a="$1" -v b="$2" -v s="$span" 'BEGIN { exit !(a > 0.24 * s && a < 0.26 * s && b > 0.49 * s && b < 0.51 * s) }'
ok $? "zoomed into a quarter of the iteration (view $1 to $2 of $span ns)"
[ "$(attr lanes)" -ge 5 ] && [ -n "$(attr lanes-transform)" ] &&
	[ "$(attr lanes-transform)" = "$(attr areas-transform)" ]
ok $? "the kernel and NVTX lanes ($(attr lanes) bars) zoom with the areas"
echo "$(attr xticks)" | tr ' ' '\n' >"$T/ticks"
awk -v a="$1" -v b="$2" '
	{ t[NR] = $1; if ($1 * 1e6 < a - 1 || $1 * 1e6 > b + 1) bad = "tick " $1 " outside" }
	END {
		if (NR < 3) bad = "only " NR " ticks"
		d = t[2] - t[1]
		for (i = 2; i <= NR; i++) if ((t[i] - t[i-1]) - d > 1e-9 || d - (t[i] - t[i-1]) > 1e-9) bad = "uneven"
		m = d; while (m >= 10) m /= 10; while (m < 1) m *= 10
		if (m - 1 > 1e-9 && m - 2 > 1e-9 || 1 - m > 1e-9) if (m - 2 > 1e-9 || 2 - m > 1e-9) if (m - 5 > 1e-9 || 5 - m > 1e-9) bad = "step " d
		if (bad) { print bad; exit 1 }
	}' "$T/ticks"
ok $? "the zoomed ticks are round, even and inside the view ($(attr xticks))"

# stacks: a snapshot holds one per block; hovering shows its frames
memplan-trace import --from pytorch-snapshot --device 0 tests/fuzz/seeds/pickle/snapshot.pickle \
	-o "$T/snap.trace" >/dev/null 2>"$T/err" &&
	memplan-analyze timeline -o "$T/snap.html" "$T/snap.trace" >/dev/null 2>"$T/err"
ok $? "HTML timeline of a snapshot"
status "$T/snap.html" "y=0.5"
attr hover | grep -q 'train.py:88 main'
ok $? "hovering a block shows its call stack ('$(attr hover | cut -c1-80)...')"

done_testing
