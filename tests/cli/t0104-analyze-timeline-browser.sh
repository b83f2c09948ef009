#!/bin/sh
# The HTML timeline in a real browser: Debian's chromium, headless, loads the
# page from disk and runs its script; the script writes what it did into
# #memplan-status (state, areas drawn, buffers listed, a hit test at the peak,
# a simulated hover, any error), and --dump-dom shows us that element.  A page
# with damaged data must be caught, so this test can fail.  Skipped where
# chromium is not installed (.ci/run installs it).
. tests/cli/lib.sh

browser=
for b in chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ]; then
	echo "ok - # SKIP chromium not installed"
	exit 0
fi

# render FILE: the page's status element after its script ran, in $T/status
render() {
	rm -rf "$T/profile"
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-dev-shm-usage --no-first-run --no-default-browser-check \
		--user-data-dir="$T/profile" --virtual-time-budget=5000 \
		--dump-dom "file://$1#memplan-selftest" >"$T/dom" 2>"$T/browser.err"
	st=$?
	grep -o '<div id="memplan-status"[^>]*>' "$T/dom" >"$T/status"
	return $st
}

# attr NAME: the value of data-NAME in $T/status
attr() {
	sed -n "s/.* data-$1=\"\\([^\"]*\\)\".*/\\1/p" "$T/status"
}

memplan-trace synth --model resnet50 --batch 8 -o "$T/r8.trace" 2>"$T/err"
ok $? "synth resnet50"
memplan-analyze timeline --by role --top 4 --buffers 25 -o "$T/r8.html" "$T/r8.trace" 2>"$T/err"
ok $? "write the HTML timeline"

render "$T/r8.html"
ok $? "$browser loads the page"
[ -s "$T/status" ]
ok $? "the status element is in the DOM"
[ "$(attr state)" = ready ]
ok $? "the script ran to the end (state '$(attr state)')"
[ -z "$(attr error)" ] && grep -q 'data-error=""' "$T/status"
ok $? "no script error (error '$(attr error)')"
[ "$(attr areas)" = 5 ]
ok $? "5 areas drawn: 4 roles and other (got '$(attr areas)')"
[ "$(attr buffers)" = 25 ]
ok $? "25 buffers listed for hovering (got '$(attr buffers)')"
[ -n "$(attr probe)" ]
ok $? "a hit test at the peak finds '$(attr probe)'"
[ -n "$(attr hover)" ]
ok $? "hovering over the peak shows '$(attr hover)'"

# an import, by label: its ids are its labels, four groups, no "other"
memplan-trace import --from minimalloc-csv tests/fuzz/seeds/csv/small.csv -o "$T/small.trace" &&
	memplan-analyze timeline --by label -o "$T/small.html" "$T/small.trace" 2>"$T/err"
ok $? "write the HTML timeline of an import"
render "$T/small.html"
[ "$(attr state)" = ready ] && [ "$(attr areas)" = 4 ] && [ "$(attr buffers)" = 4 ]
ok $? "import: ready, 4 areas, 4 buffers (got '$(attr state)', '$(attr areas)', '$(attr buffers)')"
[ "$(attr probe)" = 2 ]
ok $? "at the peak, the bottom buffer is '2', the largest group (got '$(attr probe)')"

# hostile labels: '<!--<script>' in the inline data would put the HTML
# parser in script-data-escaped state, where the '</script>' that ends the
# data no longer ends it and the page's script never runs
printf 'id,lower,upper,size\n<!--<script>,0,4,1024\n</SCRIPT><!--,2,6,512\nb<sCrIpT>,4,8,2048\nx,5,9,256\n' >"$T/hostile.csv"
memplan-trace import --from minimalloc-csv "$T/hostile.csv" -o "$T/hostile.trace" &&
	memplan-analyze timeline --by label -o "$T/hostile.html" "$T/hostile.trace" 2>"$T/err"
ok $? "write the HTML timeline of labels '<!--<script>', '</SCRIPT><!--', 'b<sCrIpT>'"
render "$T/hostile.html"
[ "$(attr state)" = ready ] && [ "$(attr areas)" = 4 ] && [ "$(attr buffers)" = 4 ]
ok $? "  ... the script still runs: ready, 4 areas, 4 buffers (got '$(attr state)', '$(attr areas)', '$(attr buffers)')"
[ "$(attr probe)" = 'b<sCrIpT>' ] || [ "$(attr probe)" = 'b&lt;sCrIpT&gt;' ]
ok $? "  ... and the labels arrive intact (the bottom one at the peak: '$(attr probe)')"

# the check can fail: one group too many in the data is reported
sed 's/"groups":\[/"groups":[{"name":"extra","max_bytes":1,"at_peak":0},/' "$T/small.html" >"$T/bad.html"
render "$T/bad.html"
[ "$(attr state)" = error ]
ok $? "a page whose data and drawing disagree reports an error"
attr error | grep -q "drew 4 areas for 5 groups"
ok $? "the error says what went wrong ('$(attr error)')"

done_testing
