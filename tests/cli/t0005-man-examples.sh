#!/bin/sh
# The EXAMPLES of every section-1 man page run, in order, in a scratch
# folder that holds the public MiniMalloc instances, so the pages cannot
# drift from the commands (jq's man.test).
. tests/cli/lib.sh

# Outside the workplace the public instances are not here: an example that
# names one (or *.csv), or a file such an example made, skips.
missing=""
if have_shared; then
	cp "$SHARED_DATA"/placement/*.csv "$T/"
else
	missing="*.csv A.1048576.csv B.1048576.csv C.1048576.csv D.1048576.csv E.1048576.csv F.1048576.csv G.1048576.csv H.1048576.csv I.1048576.csv J.1048576.csv K.1048576.csv somas-resnet50.csv"
fi
# needs_missing CMD: CMD names a word of $missing; then what it writes
# (after -o or >) goes missing too
needs_missing() {
	set -f
	hit=1
	for w in $1; do
		for m in $missing; do
			[ "$w" = "$m" ] && hit=0
		done
	done
	set +f
	[ $hit -eq 0 ] &&
		missing="$missing $(echo "$1" | sed -n 's/.*\(-o\|>\) *\([^ ]*\).*/\2/p')"
	return $hit
}
for page in man/*.1; do
	awk '/^\.SH EXAMPLES/ { on = 1; next } /^\.SH / { on = 0 }
	     on && /^\.EX/ { ex = 1; next } on && /^\.EE/ { ex = 0; next }
	     on && ex && /^\$ / { sub(/^\$ /, ""); print }' "$page" >"$T/examples"
	while IFS= read -r cmd; do
		if [ -n "$missing" ] && needs_missing "$cmd"; then
			skip "${page##*/}: $cmd" "$no_shared"
			continue
		fi
		(cd "$T" && sh -c "$cmd") >"$T/out" 2>"$T/err" </dev/null
		ok $? "${page##*/}: $cmd"
	done <"$T/examples"
done

done_testing
