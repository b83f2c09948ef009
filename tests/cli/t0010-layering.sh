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
	planner/memplan-replay.c | planner/replay.c | planner/replay.h)
		# the replay of a trace: a client of the runtime's state
		# machine, which stays in the library that never reads traces
		echo "planner traces cli runtime" ;;
	cli/*) echo "cli" ;;
	traces/*) echo "traces cli" ;;
	analyze/*) echo "analyze traces cli" ;;
	planner/*) echo "planner traces cli runtime/plan.h runtime/memplan.h" ;;
	runtime/*) echo "runtime" ;;
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
		if [ "${h%%/*}" = "$c" ] && [ "${f%/*}" != "$c" ] &&
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

done_testing
