#!/bin/sh
# memplan-analyze timeline, what the picture says without a browser: the
# legend gives each group's bytes at the peak (they add up to the peak), a
# role or kind keeps its colour whatever its rank or the chart, and a clock
# of epoch times gets ticks at round values counted from the first event.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 8 -o "$T/r8.trace" 2>"$T/err"
ok $? "synth resnet50"
memplan-trace synth --model gpt2 --batch 2 -o "$T/g2.trace" 2>"$T/err"
ok $? "synth gpt2"

# legend: "role at the peak", figures that sum to the peak
memplan-analyze timeline --by role -o "$T/r8.svg" "$T/r8.trace" >/dev/null 2>"$T/err"
ok $? "SVG by role"
has "$T/r8.svg" ">role at the peak</text>" "the legend says its figures are at the peak"
peak=$(sed -n 's/.*class="peak" data-peak="\([0-9]*\)".*/\1/p' "$T/r8.svg")
sum=$(grep -o 'data-at-peak="[0-9]*"' "$T/r8.svg" | tr -dc '0-9\n' | awk '{ s += $1 } END { print s }')
[ -n "$peak" ] && [ "$sum" = "$peak" ]
ok $? "the legend's figures add up to the peak ($sum = $peak)"
# each entry's text is its figure at the peak, not the most it ever held
temp=$(grep -o '<g class="key"[^>]*><title>temp: [^<]*</title>.*</g>' "$T/r8.svg")
echo "$temp" | grep -q '>temp</text><text[^>]*>[0-9.]* [KMG]iB</text>' &&
	[ "$(echo "$temp" | sed 's/.*<title>temp: \([^<]*\) at the peak,.*/\1/')" = \
	  "$(echo "$temp" | sed 's/.*>temp<\/text><text[^>]*>\([^<]*\)<\/text>.*/\1/')" ]
ok $? "temp's entry reads its bytes at the peak"

# colours go with the role: the same in every chart and every rank
fill() { # file group-name: the colour of that group's area
	grep -o "<path class=\"area\"[^>]*fill=\"#[0-9a-f]*\"[^>]*d=\"[^\"]*\"><title>$2</title>" "$1" |
		sed 's/.*fill="\(#[0-9a-f]*\)".*/\1/'
}
memplan-analyze timeline --by role --top 2 -o "$T/r8top2.svg" "$T/r8.trace" >/dev/null &&
	memplan-analyze timeline --by role -o "$T/g2.svg" "$T/g2.trace" >/dev/null
ok $? "two more charts: top 2, and another model"
for role in activation weight; do
	a=$(fill "$T/r8.svg" $role) b=$(fill "$T/r8top2.svg" $role) c=$(fill "$T/g2.svg" $role)
	[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ]
	ok $? "$role is $a in every chart (got '$a', '$b', '$c')"
done
[ "$(fill "$T/r8.svg" activation)" != "$(fill "$T/r8.svg" weight)" ]
ok $? "two roles, two colours"
memplan-analyze timeline --by label --top 3 -o "$T/l3.svg" "$T/r8.trace" >/dev/null &&
	memplan-analyze timeline --by label --top 6 -o "$T/l6.svg" "$T/r8.trace" >/dev/null
name=$(grep -o '<path class="area" data-group="2"[^>]*><title>[^<]*</title>' "$T/l3.svg" | sed 's/.*<title>\(.*\)<\/title>/\1/')
[ -n "$name" ] && [ "$(fill "$T/l3.svg" "$name")" = "$(fill "$T/l6.svg" "$name")" ]
ok $? "label group '$name' keeps its colour with --top 3 and --top 6"

# the caching allocator's reserved bytes: a curve, its peak the summary's
for model in pytorch cudamalloc; do
	memplan-analyze timeline --allocator $model -o "$T/rsv.svg" "$T/r8.trace" >/dev/null 2>"$T/err" &&
		memplan-analyze summary --json "$T/r8.trace" >"$T/sum.json" 2>"$T/err"
	ok $? "timeline --allocator $model"
	drawn=$(sed -n 's/.*<path class="reserved" data-peak="\([0-9]*\)".*/\1/p' "$T/rsv.svg")
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["allocators"][sys.argv[2]]["reserved_peak"])' "$T/sum.json" $model 2>/dev/null ||
		tr ',{' '\n\n' <"$T/sum.json" | sed -n "/\"$model\":/,/reserved_peak/s/.*\"reserved_peak\":\([0-9]*\).*/\1/p" | head -1)
	[ -n "$drawn" ] && [ "$drawn" = "$want" ]
	ok $? "  ... the reserved curve peaks where summary says ($drawn = $want)"
	has "$T/rsv.svg" ">reserved, $model model</text>" "  ... and the legend names it"
done
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$T/rsv.svg"
	ok $? "  ... the SVG is well-formed"
fi
memplan-analyze timeline --allocator none -o "$T/none.svg" "$T/r8.trace" >/dev/null 2>"$T/err"
ok $? "timeline --allocator none"
grep -q 'class="reserved"' "$T/none.svg"
[ $? -ne 0 ]
ok $? "  ... draws no reserved curve"
expect 2 "an unknown allocator" memplan-analyze timeline --allocator tcmalloc -o "$T/x.svg" "$T/r8.trace"

# the kernel and NVTX lanes, under the plot, where the trace has them
grep -q '<g class="kernels" fill="#555"><rect ' "$T/r8.svg"
ok $? "a kernel lane"
for r in iteration forward backward optimizer; do
	grep -q "<g class=\"ranges\">.*<title>$r</title>" "$T/r8.svg"
	ok $? "  ... and the NVTX range '$r'"
done
n=$(grep -o '<g class="kernels".*</g>' "$T/r8.svg" | grep -o '<rect ' | wc -l)
[ "$n" -ge 1 ] && [ "$n" -le 2002 ]
ok $? "the kernel lane is bounded by the steps ($n bars for 567 kernels)"

# a snapshot's clock is epoch nanoseconds: ticks count from the first event
memplan-trace import --from pytorch-snapshot --device 0 tests/fuzz/seeds/pickle/snapshot.pickle \
	-o "$T/snap.trace" >/dev/null 2>"$T/err" &&
	memplan-analyze timeline -o "$T/snap.svg" "$T/snap.trace" >/dev/null 2>"$T/err"
ok $? "timeline of a snapshot with epoch times"
grep -q 'class="lanes"' "$T/snap.svg"
[ $? -ne 0 ]
ok $? "  ... no lanes: a snapshot holds no kernels or ranges"
sed -n '/<g class="xticks">/,/<\/g>/p' "$T/snap.svg" | grep -o '>[^<]*</text>' | tr -d '<>/text' >"$T/ticks"
[ "$(wc -l <"$T/ticks")" -ge 3 ]
ok $? "ticks on the x axis ($(tr '\n' ' ' <"$T/ticks"))"
grep -qv '^[0-9]*$' "$T/ticks"
[ $? -ne 0 ]
ok $? "every tick a round value (whole ms here), none like 0.999936"
head -1 "$T/ticks" | grep -qx 0
ok $? "the first tick is 0, the first event"

# the HTML's data count from the first event too: no x beyond 2^53
memplan-analyze timeline -o "$T/snap.html" "$T/snap.trace" >/dev/null 2>"$T/err"
ok $? "HTML of the snapshot"
grep -o '"x":\[[0-9,]*\]' "$T/snap.html" | tr -c '0-9\n' '\n' | awk 'length($0) > 15 { bad = 1 } END { exit bad }'
ok $? "its x values are small (relative to the first event)"
grep -q '"span":' "$T/snap.html"
ok $? "and the span is given"

done_testing
