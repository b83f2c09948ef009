#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/import/survey.sh - imports every fixture shape the generators write
# (make_snapshot.py: all kinds, pickle protocols 2 to 5; make_nsys.py: all
# kinds) and prints, per file, whether it imported or was refused and why,
# then the counts: the figures of the README.
#
#   BIN=build/bin sh tests/import/survey.sh
set -u
BIN=${BIN:-build/bin}
dir=$(mktemp -d "${TMPDIR:-/tmp}/memplan-survey.XXXXXX")
trap 'rm -rf "$dir"' EXIT
here=$(dirname "$0")
ok=0 refused=0 total=0 meant=0 meant_ok=0

# the shapes a real PyTorch or nsys writes, meant to import; the others are
# files memplan must refuse (exit 3) with a message of their own
importable() {
	case $1 in
	train | periodic | real | forward | inference | emptycache | expandable | \
		current | old | threads | twoproc | pinnedelsewhere) return 0 ;;
	*) return 1 ;;
	esac
}

run() { # kind name format file [options]
	kind=$1 name=$2 fmt=$3 file=$4
	shift 4
	total=$((total + 1))
	importable "$kind" && meant=$((meant + 1))
	if "$BIN/memplan-trace" import --from "$fmt" "$file" "$@" -o "$dir/t.trace" \
		>/dev/null 2>"$dir/err"; then
		ok=$((ok + 1))
		importable "$kind" && meant_ok=$((meant_ok + 1))
		printf '%-24s imported\n' "$name"
	else
		refused=$((refused + 1))
		printf '%-24s refused: %s\n' "$name" "$(sed 's/.*: error: //' "$dir/err" | head -1 | cut -c1-110)"
	fi
}

for kind in train periodic real forward inference emptycache expandable \
	nohistory legacy torch20 wideaddr widesize otherprog code segmentsonly; do
	for proto in 2 3 4 5; do
		python3 "$here/make_snapshot.py" "$kind" "$dir/s.pickle" --protocol $proto
		opt=""
		[ "$kind" = train ] && opt="--device 0"
		# shellcheck disable=SC2086
		run "$kind" "snapshot $kind p$proto" pytorch-snapshot "$dir/s.pickle" $opt
	done
done
for kind in current old threads twoproc pinnedelsewhere unknown nomem noversion badtype trimmed; do
	python3 "$here/make_nsys.py" "$kind" "$dir/n.sqlite"
	opt="--device 0"
	[ "$kind" = twoproc ] && opt="--device 0 --pid 4242"
	[ "$kind" = pinnedelsewhere ] && opt=""
	# shellcheck disable=SC2086
	run "$kind" "nsys $kind" nsys-sqlite "$dir/n.sqlite" $opt
done
echo "$total files: $ok imported, $refused refused; $meant_ok of the $meant in shapes real programs write imported"
