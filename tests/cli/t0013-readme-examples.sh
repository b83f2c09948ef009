#!/bin/sh
# The README's examples run as written, in order, in one scratch folder: the
# commands of every ```sh block, line by line (a line ending in "\" joins the
# next), with the built programs first on PATH, so the README cannot drift
# from the programs.  A block whose fence is preceded by the line
# "<!-- not run by the tests: WHY -->" needs what a test machine lacks (a GPU,
# PyTorch, nsys) and skips, saying WHY; `make` lines run in the repository
# and are covered by their own targets.  A line passes with status 0, or 1
# when its comment documents it ("exit 1", "1 does not", "1 invalid").  The
# scratch folder sits beside a "shared" link to the public data, as a clone
# sits beside ../shared; without that data, lines that name it skip.
. tests/cli/lib.sh

mkdir -p "$T/clone"
shared_ok=0
if have_shared; then
	ln -s "$(cd "$SHARED_DATA/.." && pwd)" "$T/shared"
	shared_ok=1
fi

# blocks: one command per line, "#SKIP why" for a skipped block
awk '
	/^<!-- not run by the tests: .* -->$/ { why = $0; sub(/^<!-- not run by the tests: /, "", why); sub(/ -->$/, "", why); next }
	/^```sh$/ { on = 1; n++; if (why != "") print "#SKIP block " n ": " why; skip = (why != ""); why = ""; next }
	/^```/ { on = 0; why = ""; next }
	{ if (!on) { if ($0 != "") why = ""; next } }
	skip { next }
	/^[ \t]*#/ { next }
	/\\$/ { sub(/\\$/, ""); cont = cont $0; next }
	{ print cont $0; cont = "" }
' README.md >"$T/examples"

[ -s "$T/examples" ]
ok $? "README.md has examples"

made_shared="" # files made from the public data, missing without it
while IFS= read -r cmd; do
	case $cmd in
	"#SKIP "*)
		skip "README ${cmd#\#SKIP }" "needs what a test machine lacks"
		continue
		;;
	make\ *)
		skip "README: $cmd" "runs in the repository (its own make target is tested)"
		continue
		;;
	esac
	if [ $shared_ok -eq 0 ]; then
		needs=0
		case $cmd in *shared/data* | *.1048576.csv*) needs=1 ;; esac
		for f in $made_shared; do
			case " $cmd " in *" $f "*) needs=1 ;; esac
		done
		if [ $needs -eq 1 ]; then
			out=$(echo "$cmd" | sed -n 's/.*\(-o\|>\) *\([^ ]*\).*/\2/p')
			made_shared="$made_shared $out"
			skip "README: $cmd" "$no_shared"
			continue
		fi
	fi
	(cd "$T/clone" && sh -c "$cmd") >"$T/out" 2>"$T/err" </dev/null
	st=$?
	allowed=0
	case $cmd in *"exit 1"* | *"1 does not"* | *"1 invalid"*) allowed=1 ;; esac
	good=1
	[ $st -eq 0 ] && good=0
	[ $st -eq 1 ] && [ $allowed -eq 1 ] && good=0
	[ $good -ne 0 ] && echo "#   exit status $st"
	ok $good "README: $cmd"
done <"$T/examples"

done_testing
