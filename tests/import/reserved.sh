#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/import/reserved.sh - the caching-allocator model of memplan-analyze
# against the reserved peak each snapshot fixture records (make_snapshot.py,
# every kind that imports): recorded peak, model peak, error.  The figures of
# the README.
#
#   BIN=build/bin sh tests/import/reserved.sh
set -u
BIN=${BIN:-build/bin}
dir=$(mktemp -d "${TMPDIR:-/tmp}/memplan-reserved.XXXXXX")
trap 'rm -rf "$dir"' EXIT
here=$(dirname "$0")
printf '%-12s %14s %14s %8s\n' fixture recorded model error
for kind in train periodic real forward inference emptycache expandable; do
	python3 "$here/make_snapshot.py" "$kind" "$dir/s.pickle" || exit 1
	opt=""
	[ "$kind" = train ] && opt="--device 0"
	# shellcheck disable=SC2086
	"$BIN/memplan-trace" import --from pytorch-snapshot "$dir/s.pickle" $opt \
		-o "$dir/s.trace" >/dev/null || exit 1
	"$BIN/memplan-analyze" summary --json "$dir/s.trace" >"$dir/s.json" || exit 1
	python3 - "$kind" "$dir/s.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
rec, model = r["recorded_reserved_peak"], r["allocators"]["pytorch"]["reserved_peak"]
print("%-12s %14d %14d %+7.1f%%" % (sys.argv[1], rec, model, 100.0 * (model / rec - 1)))
PY
done
