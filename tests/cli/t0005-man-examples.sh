#!/bin/sh
# The EXAMPLES of every section-1 man page run, in order, in a scratch
# folder that holds the public MiniMalloc instances, so the pages cannot
# drift from the commands (jq's man.test).
. tests/cli/lib.sh

cp "$SHARED_DATA"/placement/*.csv "$T/" 2>/dev/null
for page in man/*.1; do
	awk '/^\.SH EXAMPLES/ { on = 1; next } /^\.SH / { on = 0 }
	     on && /^\.EX/ { ex = 1; next } on && /^\.EE/ { ex = 0; next }
	     on && ex && /^\$ / { sub(/^\$ /, ""); print }' "$page" >"$T/examples"
	while IFS= read -r cmd; do
		(cd "$T" && sh -c "$cmd") >"$T/out" 2>"$T/err" </dev/null
		ok $? "${page##*/}: $cmd"
	done <"$T/examples"
done

done_testing
