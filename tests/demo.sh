#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/demo.sh - `make demo`: the main job on the archived traces in
# build/traces/ (made from traces/archive.list): what each iteration holds,
# its peak and its lower bound, a MiniMalloc export of one of them, and a
# plan compiled for it (strategy auto), verified and shown.
BUILD=${BUILD:-build}
bin=$BUILD/bin
set -e
echo "== memplan-trace info $BUILD/traces/resnet50-b32-fp32.trace"
"$bin/memplan-trace" info "$BUILD/traces/resnet50-b32-fp32.trace"
echo
echo "== the archive ($BUILD/traces/)"
printf '%-24s %8s %8s %12s %12s %12s\n' trace buffers events persistent peak lower_bound
for t in "$BUILD"/traces/*.trace; do
	"$bin/memplan-trace" info --json "$t" | awk -v name="${t##*/}" '
	function num(k,   s) { s = $0; sub(".*\"" k "\":", "", s); sub("[,}].*", "", s); return s }
	{ printf "%-24s %8d %8d %9.2f GiB %8.2f GiB %8.2f GiB\n", name,
	  num("buffers"), num("events"), num("persistent_bytes") / 2^30,
	  num("peak_bytes") / 2^30, num("lower_bound_bytes") / 2^30 }'
done
echo
echo "== memplan-trace export --to minimalloc-csv (first lines)"
"$bin/memplan-trace" export --to minimalloc-csv "$BUILD/traces/resnet50-b32-fp32.trace" | head -n 5
echo
echo "== memplan-plan compile --strategy auto (resnet50-b32-fp32)"
"$bin/memplan-plan" compile --strategy auto "$BUILD/traces/resnet50-b32-fp32.trace" \
	-o "$BUILD/resnet50-b32-fp32.plan"
"$bin/memplan-plan" verify "$BUILD/resnet50-b32-fp32.plan" "$BUILD/traces/resnet50-b32-fp32.trace"
echo
echo "== memplan-plan inspect (first lines)"
"$bin/memplan-plan" inspect "$BUILD/resnet50-b32-fp32.plan" | head -n 10
