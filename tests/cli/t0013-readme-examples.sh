#!/bin/sh
# The README's examples run as written, in order, in one shell, so the README
# cannot drift from the programs: the commands of every ```sh block, line by
# line (a line ending in "\" joins the next), starting in the repository as
# a user starts in a fresh clone after `make`.  The README's `export`s and
# `cd` carry over from line to line as in a terminal; its scratch folder
# /tmp/mp is this test's own folder (the one substitution), and the built
# programs stay first on PATH whatever the README puts there (BUILD may be a
# sanitizer build).  No example may leave a file in the repository.
#
# A block whose fence is preceded by the line
# "<!-- not run by the tests: WHY -->" needs what a test machine lacks (a
# GPU, PyTorch, nsys, Slurm) and skips, saying WHY; `make` lines run in the
# repository and are covered by their own targets; a block that runs python3
# (or a line that runs sqlite3) skips where that is not installed.  A line
# passes with status 0, or with 1 exactly when its comment says "exit 1".
. tests/cli/lib.sh

repo=$PWD
bin=${MEMPLAN_BIN:-$BUILD_DIR/bin}
mkdir -p "$T/mp"

# one command per line; "#BLOCK n" opens a block, "#SKIP n why" skips one
awk '
	/^<!-- not run by the tests: .* -->$/ { why = $0; sub(/^<!-- not run by the tests: /, "", why); sub(/ -->$/, "", why); next }
	/^```sh$/ { on = 1; n++; if (why != "") print "#SKIP " n " " why; else print "#BLOCK " n; skip = (why != ""); why = ""; next }
	/^```/ { on = 0; why = ""; next }
	{ if (!on) { if ($0 != "") why = ""; next } }
	skip { next }
	/^[ \t]*#/ { next }
	/\\$/ { sub(/\\$/, ""); cont = cont $0; next }
	{ print cont $0; cont = "" }
' README.md >"$T/examples"

grep -qv '^#' "$T/examples"
ok $? "README.md has examples"
grep -q 'cd /tmp/mp' "$T/examples"
ok $? "README.md's examples move to a scratch folder (/tmp/mp) before writing"

# blocks that run python3, for machines without it
awk '/^#BLOCK / { b = $2 } /^python3 / { print b }' "$T/examples" | sort -u >"$T/pyblocks"
have_py=0
command -v python3 >/dev/null 2>&1 && have_py=1

# the repository as it is now: anything newer afterwards was written by an
# example (build/ is the build's; the tests' own files are under /tmp)
touch "$T/before"
sleep 1

skipblock=""
while IFS= read -r t13_cmd; do
	case $t13_cmd in
	"#BLOCK "*)
		t13_b=${t13_cmd#\#BLOCK }
		skipblock=""
		if [ $have_py -eq 0 ] && grep -qx "$t13_b" "$T/pyblocks"; then
			skipblock=$t13_b
			skip "README block $t13_b" "python3 is not installed"
		fi
		continue
		;;
	"#SKIP "*)
		t13_b=${t13_cmd#\#SKIP }
		skip "README block ${t13_b%% *}" "${t13_b#* }"
		continue
		;;
	make\ *)
		skip "README: $t13_cmd" "runs in the repository (its own make target is tested)"
		continue
		;;
	esac
	[ -n "$skipblock" ] && continue
	case $t13_cmd in
	sqlite3\ *)
		if ! command -v sqlite3 >/dev/null 2>&1; then
			skip "README: $t13_cmd" "sqlite3 is not installed"
			continue
		fi
		;;
	esac
	t13_run=$(printf '%s\n' "$t13_cmd" | sed "s|/tmp/mp|$T/mp|g")
	eval "$t13_run" >"$T/out" 2>"$T/err" </dev/null
	t13_st=$?
	PATH="$bin:$PATH" # the tested build first, whatever the line did
	t13_want=0
	case $t13_cmd in *"exit 1"*) t13_want=1 ;; esac
	[ $t13_st -eq $t13_want ]
	t13_good=$?
	[ $t13_good -ne 0 ] && echo "#   exit status $t13_st, expected $t13_want"
	ok $t13_good "README: $t13_cmd"
done <"$T/examples"

cd "$repo" || exit 1
# the examples ran in the scratch folder
[ -n "$(ls -A "$T/mp")" ]
ok $? "the examples wrote into the scratch folder"
find . -path ./build -prune -o -path ./.git -prune -o -newer "$T/before" -print >"$T/new"
[ ! -s "$T/new" ]
st=$?
[ $st -ne 0 ] && sed 's/^/#   written in the repository: /' "$T/new" | head -10
ok $st "no example wrote into the repository"

done_testing
