#!/bin/sh
# SPDX-License-Identifier: MIT
# The house's floors, by includes: each component (and every room in it,
# traces/import/ being traces/) includes only its own headers and those of
# the floors below it, plus system headers.  cli/ is the ground floor;
# traces/ stands on it; analyze/ and planner/ on traces/ (the planner also
# reads runtime's plan format); runtime's library stands alone.  Headers
# are named without folders (the Makefile puts every component and room on
# the include path), so their names must be unique.  A room stands on its
# component's root (traces/trace.h) and the floors below, not on a sibling.
. tests/cli/lib.sh

components="cli traces analyze planner runtime"

# Known violations, "file header" (header as a path in the tree), one a
# line.  A line no longer needed fails the test, so the list only shrinks;
# it is empty since the analyze/planner split.
allow='
'

# What a file may include: the components it stands on, and single headers.
floors() { # file -> "component... path/of/header.h..."
	case $1 in
	planner/cmd/memplan-replay.c | planner/replay/*)
		# the replay of a trace: a client of the runtime's state
		# machine, which stays in the library that never reads traces
		echo "planner traces cli runtime" ;;
	cli/*) echo "cli" ;;
	traces/*) echo "traces cli" ;;
	analyze/*) echo "analyze traces cli" ;;
	# check-env reads the runtime's table of MEMPLAN_* variables
	planner/cmd/cmd_checkenv.c) echo "planner traces cli runtime/plan.h runtime/memplan.h runtime/options.h" ;;
	planner/*) echo "planner traces cli runtime/plan.h runtime/memplan.h" ;;
	runtime/*) echo "runtime" ;;
	esac
}

# planner/'s rooms stand one above the other: a room uses (includes,
# calls) only rooms of a lower level and itself; rooms of one level know
# nothing of each other.  The commands (cmd/) are the top.
planner_level() { # room -> level
	case $1 in
	placement | simulation | replay) echo 0 ;;
	plan) echo 1 ;;
	budget) echo 2 ;;
	frontier | multi) echo 3 ;;
	cmd) echo 4 ;;
	*) echo 99 ;;
	esac
}

dirs=$(for c in $components; do
	echo "$c"
	find "$c" -mindepth 1 -maxdepth 1 -type d | sort
done)

# every header on the include path: "name path"
for d in $dirs; do
	for h in "$d"/*.h; do
		[ -f "$h" ] && echo "${h##*/} $h"
	done
done >"$T/headers"
awk '{ n[$1]++; p[$1] = p[$1] " " $2 }
     END { for (h in n) if (n[h] > 1) print "#   " h ":" p[h] }' \
	"$T/headers" >"$T/dups"
cat "$T/dups"
[ ! -s "$T/dups" ]
ok $? "header names are unique across the include path"

# every include of a project header: "file header-path"
: >"$T/edges"
: >"$T/unknown"
for d in $dirs; do
	for f in "$d"/*.c "$d"/*.h; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\(["<][^">]*[">]\).*/\1/p' "$f" |
		while IFS= read -r inc; do
			name=${inc#?}
			name=${name%?}
			case $inc in
			\"*/*)  # a path from the file's folder
				h=$(realpath -m --relative-to=. "${f%/*}/$name") ;;
			\"*)
				if [ -f "${f%/*}/$name" ]; then
					h=${f%/*}/$name
				else
					h=$(awk -v n="$name" '$1 == n { print $2; exit }' "$T/headers")
				fi ;;
			*)      # <name>: a system header unless it is one of ours
				h=$(awk -v n="$name" '$1 == n { print $2; exit }' "$T/headers") ;;
			esac
			if [ -n "$h" ] && [ -f "$h" ]; then
				echo "$f $h" >>"$T/edges"
			elif [ "${inc#\"}" != "$inc" ]; then
				echo "#   $f: $inc is no header of the tree" >>"$T/unknown"
			fi
		done
	done
done
cat "$T/unknown"
[ ! -s "$T/unknown" ]
ok $? "every quoted include names a header of the tree"

echo "$allow" | sed '/^$/d' >"$T/allow"
for c in $components; do
	: >"$T/bad"
	grep "^$c/" "$T/edges" | while read -r f h; do
		# a room stands on its component's root, not on a sibling room
		# (the component's own files, its commands, may use every room)
		if [ "$c" = planner ] && [ "${h%%/*}" = planner ]; then
			rf=${f#planner/}
			rf=${rf%%/*}
			rh=${h#planner/}
			rh=${rh%%/*}
			[ "$rf" = "$rh" ] && continue
			if [ "$(planner_level "$rh")" -ge "$(planner_level "$rf")" ]; then
				echo "#   $f includes $h of room $rh, not below $rf" >>"$T/bad"
				continue
			fi
		elif [ "${h%%/*}" = "$c" ] && [ "${f%/*}" != "$c" ] &&
			[ "${h%/*}" != "$c" ] && [ "${h%/*}" != "${f%/*}" ]; then
			echo "#   $f includes $h of a sibling room" >>"$T/bad"
			continue
		fi
		for fl in $(floors "$f"); do
			case $fl in
			*.h) [ "$h" = "$fl" ] && continue 2 ;;
			*) [ "${h%%/*}" = "$fl" ] && continue 2 ;;
			esac
		done
		grep -qxF "$f $h" "$T/allow" && continue
		echo "#   $f includes $h" >>"$T/bad"
	done
	cat "$T/bad"
	[ ! -s "$T/bad" ]
	ok $? "$c/ includes only what it stands on"
done

: >"$T/stale"
while read -r f h; do
	grep -qxF "$f $h" "$T/edges" ||
		echo "#   '$f $h' is no longer included: remove it from the allow-list" >>"$T/stale"
done <"$T/allow"
cat "$T/stale"
[ ! -s "$T/stale" ]
ok $? "every allow-listed include is still there"

# planner/: every source in a room that has a README and a level
: >"$T/rooms"
for f in planner/*.c planner/*.h; do
	[ -f "$f" ] && echo "#   $f is in no room" >>"$T/rooms"
done
for d in planner/*/; do
	r=${d%/}
	r=${r#planner/}
	[ -f "$d/README.md" ] || echo "#   planner/$r/ has no README.md" >>"$T/rooms"
	[ "$(planner_level "$r")" -ne 99 ] ||
		echo "#   planner/$r/ has no level in this test" >>"$T/rooms"
done
cat "$T/rooms"
[ ! -s "$T/rooms" ]
ok $? "planner/: every source in a room with a README and a level"

# The same order by calls, read off the built objects: each planner object's
# undefined symbols that another planner object defines.  No room calls one
# of its level or above, and no files call each other in a circle.
objs=$BUILD/obj/planner
if ! command -v nm >/dev/null 2>&1 || ! ls "$objs"/*/*.o >/dev/null 2>&1; then
	skip "planner's calls: no nm or no objects in $objs (run make first)"
	skip "planner's calls: no circle"
else
	for o in "$objs"/*/*.o; do
		n=${o#"$objs"/}
		nm "$o" | awk -v n="${n%.o}" '$1 == "U" { print "U", n, $2 }
			NF == 3 && $2 ~ /^[TDBR]$/ { print "D", n, $3 }'
	done >"$T/syms"
	awk '$1 == "D" { def[$3] = $2 } $1 == "U" { u[NR] = $2 " " $3 }
	     END { for (i in u) { split(u[i], a, " ");
			if ((a[2] in def) && def[a[2]] != a[1])
				print a[1], def[a[2]] } }' "$T/syms" | sort -u >"$T/calls"
	: >"$T/badcalls"
	while read -r a b; do
		ra=${a%%/*}
		rb=${b%%/*}
		[ "$ra" = "$rb" ] && continue
		[ "$(planner_level "$rb")" -lt "$(planner_level "$ra")" ] ||
			echo "#   $a calls $b (room $rb is not below $ra)" >>"$T/badcalls"
	done <"$T/calls"
	cat "$T/badcalls"
	[ ! -s "$T/badcalls" ]
	ok $? "planner/: each room calls only rooms below it ($(wc -l <"$T/calls") calls between files)"
	# peel files that call nothing left; what stays is in a circle
	awk '{ out[$1] = out[$1] " " $2; n[$1]++; node[$1]; node[$2] }
	     END { do { gone = 0
			for (v in node) { left = 0; k = split(out[v], w, " ")
				for (j = 1; j <= k; j++) if (w[j] in node) left++
				if (!left) { delete node[v]; gone++ } }
		   } while (gone)
		   for (v in node) print "#   in a circle: " v }' "$T/calls" >"$T/circle"
	cat "$T/circle"
	[ ! -s "$T/circle" ]
	ok $? "planner/: no files call each other in a circle"
fi

done_testing
