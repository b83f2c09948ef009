#!/bin/sh
# Issue 20, item 5: every option a command's parser accepts is in its --help
# (with what it means) and in its man page's SYNOPSIS.  The options are read
# from the sources (each getopt_long table, by the function that holds it,
# and the subcommand tables that name those functions), so an option added
# anywhere without its help line or its SYNOPSIS entry fails here.  Usage
# errors of a subcommand name that subcommand's --help.
. tests/cli/lib.sh

# prog: its sources (the subcommand table first); its man page is man/prog.1
cat >"$T/progs" <<'LIST'
memplan-plan planner/cmd/memplan-plan.c planner/cmd/cmd_*.c
memplan-trace traces/memplan-trace.c
memplan-analyze analyze/memplan-analyze.c
memplan-replay planner/cmd/memplan-replay.c
memplan-capture capture/memplan-capture.c
LIST

# options FILES...: "function option letter optstring" per getopt_long
# table entry (letter "-" when the value is not a character), and
# "@table subcommand function" per subcommand table row
options() {
	awk '
	/^(static )?int (cmd_[a-z_]+|main)\(/ {
		fn = $0; sub(/^(static )?int /, "", fn); sub(/\(.*/, "", fn)
	}
	match($0, /\{ *"[a-z0-9-]+", *(no|required|optional)_argument, *(NULL|0), *[^ }]+/) {
		e = substr($0, RSTART, RLENGTH)
		split(e, f, "\"")
		letter = e; sub(/.*_argument, *(NULL|0), */, "", letter)
		if (letter ~ /^'"'"'.'"'"'$/) letter = substr(letter, 2, 1); else letter = "-"
		opt[fn] = opt[fn] " " f[2] ":" letter
	}
	match($0, /getopt_long\(argc, argv, "[^"]*"/) {
		e = substr($0, RSTART, RLENGTH); split(e, f, "\""); os[fn] = f[2]
	}
	match($0, /\{ *"[a-z]+", *cmd_[a-z_]+,/) {
		e = substr($0, RSTART, RLENGTH); split(e, f, "\"")
		g = f[3]; gsub(/[ ,]/, "", g)
		print "@table", f[2], g
	}
	END {
		for (fn in opt) {
			n = split(opt[fn], o, " ")
			for (i = 1; i <= n; i++) {
				split(o[i], p, ":")
				print fn, p[1], p[2], (os[fn] == "" ? "-" : os[fn])
			}
		}
	}' "$@"
}

# synopsis MAN PROG SUB: the SYNOPSIS lines of PROG SUB (all of PROG's
# when SUB is empty), dashes unescaped
synopsis() {
	awk -v p="$2" -v s="$3" '
	/^\.SH SYNOPSIS/ { on = 1; next }
	/^\.SH/ { on = 0 }
	!on { next }
	/^\.B memplan-/ {
		w = $0; sub(/^\.B /, "", w); gsub(/\\-/, "-", w); split(w, f, " ")
		cur = (f[1] == p && (s == "" || f[2] == s))
	}
	/^\.br/ { if (s != "") cur = 0; next }
	cur || s == "" { print }' "$1" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g'
}

# word FILE TEXT: TEXT in FILE, not as part of a longer option
word() {
	grep -Eq -- "(^|[^a-zA-Z0-9-])$2([^a-zA-Z0-9-]|\$)" "$1"
}

while read -r prog files; do
	[ -n "$prog" ] || continue
	# shellcheck disable=SC2086
	options $files >"$T/opts"
	man=man/$prog.1
	if ! command -v "$prog" >/dev/null 2>&1; then
		skip "$prog: every option in --help and SYNOPSIS" "$prog is not built here (memplan-capture needs CUDA)"
		continue
	fi
	if grep -q '^@table' "$T/opts"; then
		grep '^@table' "$T/opts" | while read -r _ sub fn; do
			echo "$sub $fn"
		done
	else
		echo "- main"
	fi >"$T/subs"
	while read -r sub fn; do
		[ "$sub" = - ] && sub=
		name="$prog${sub:+ $sub}"
		# shellcheck disable=SC2086
		$prog $sub --help >"$T/help" 2>"$T/err"
		ok $? "$name --help exits 0"
		synopsis "$man" "$prog" "$sub" >"$T/syn"
		[ -s "$T/syn" ]
		ok $? "$name has a SYNOPSIS in $man"
		awk -v f="$fn" '$1 == f' "$T/opts" >"$T/mine"
		while read -r _ o letter os; do
			case $o in help | version) continue ;; esac
			word "$T/help" "--$o"
			ok $? "$name --help lists --$o"
			if word "$T/syn" "--$o"; then
				st=0
			elif [ "$letter" != - ] && case $os in *"$letter"*) true ;; *) false ;; esac &&
				word "$T/syn" "-$letter"; then
				st=0
			else
				st=1
			fi
			ok $st "$name: SYNOPSIS of $man has --$o"
		done <"$T/mine"
		lines=$(grep -c -- '^ *-' "$T/help")
		[ "$lines" -ge "$(grep -vc ' help \| version ' "$T/mine")" ]
		ok $? "$name --help: a line per option ($lines)"
	done <"$T/subs"
done <"$T/progs"

# usage errors name the subcommand's help
expect 2 "memplan-plan compile without -o" memplan-plan compile x.trace
has "$T/err" "try 'memplan-plan compile --help'" "  ... names compile's --help"
expect 2 "memplan-plan simulate --bogus" memplan-plan simulate --bogus a b
has "$T/err" "try 'memplan-plan simulate --help'" "  ... names simulate's --help"
expect 2 "memplan-trace synth without --model" memplan-trace synth --batch 1 -o x
has "$T/err" "try 'memplan-trace synth --help'" "  ... names synth's --help"
expect 2 "memplan-analyze check without a limit" memplan-analyze check x.trace
has "$T/err" "try 'memplan-analyze check --help'" "  ... names check's --help"
expect 2 "memplan-plan with an unknown command" memplan-plan bogus
has "$T/err" "try 'memplan-plan --help'" "  ... names the program's --help"
done_testing
