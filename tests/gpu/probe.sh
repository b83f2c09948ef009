#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/gpu/probe.sh - one call on a machine with a GPU that answers the
# open GPU questions, into one JSON summary and a few logs in OUT:
#   sh tests/gpu/probe.sh OUT            (or OUT=dir sh tests/gpu/probe.sh)
#   sh tests/gpu/probe.sh --dry OUT      no GPU: the same steps on the
#                                        stand-ins (make check runs it, t0203)
# Steps, each under `timeout` within PROBE_LIMIT seconds (default 510, for
# a 540 s device call), the summary rewritten after each (a probe killed
# midway still leaves it):
#  1. env: GPU, driver, torch and its CUDA, the libcudart and libcupti torch
#     maps, whether a libcupti sits in the global scope;
#  2. build: make -j16 as the image is; without SQLite's or zlib's headers,
#     with DEPS=tests/gpu/deps/root (tests/gpu/prepare.sh, run beforehand
#     with network; carry tests/gpu/deps);
#  3. capture: a Linear+ReLU model and a ResNet-18 training step under
#     memplan-capture, with PyTorch's own memory snapshot of the same step
#     in the same process (PYTORCH_NO_CUDA_MEMORY_CACHING=1: every tensor is
#     a request, as under LD_PRELOAD), and ResNet-18 through the pluggable
#     allocator (PyTorch's own requests): allocations and peak of both
#     sides, kernels with GPU times, allocation sources by library;
#  4. plan: 256-aligned plans of both ways in, verified;
#  5. run: steps with the caching allocator, without caching, with the
#     plan under LD_PRELOAD and through CUDAPluggableAllocator: planned
#     requests, divergences, iterations followed, median step times;
#  6. swap: a plan at 70% of the lower bound on the link the capture
#     measured (the lowest of 70/80/90/95/98% that fits), run under
#     LD_PRELOAD: measured step time against `memplan-plan simulate`, and
#     the parameters' checksum against the run without a plan;
#  7. sanitizer: memplan-replay on the device under compute-sanitizer
#     memcheck, where it is installed.
# In the dry run, step 3 captures tests/cuda/app replaying a synthetic
# ResNet-50 iteration (fp16, batch 1) on the stand-in libcudart and libcupti (the "program's
# own view" is that input trace), 5 and 6 run app (its own checks are the
# integrity test), and what needs a GPU is marked skipped.
# Knobs: BUILD, CUDA_HOME, PYTHON, JOBS, BATCH (ResNet-18, default 16),
# PROBE_LIMIT.  Exit 0 when the summary was written (the answers are in it),
# 2 on a usage error.
dry=0
if [ "${1:-}" = --dry ]; then
	dry=1
	shift
fi
O=${1:-${OUT:-}}
if [ -z "$O" ] || [ $# -gt 1 ]; then
	echo "usage: sh tests/gpu/probe.sh [--dry] OUT (or OUT in the environment)" >&2
	exit 2
fi
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "$O" || exit 1
O=$(cd "$O" && pwd)
: "${BUILD:=build}"
: "${PYTHON:=python3}"
: "${PROBE_LIMIT:=510}"
: "${BATCH:=16}"
case $BUILD in
/*) B=$BUILD ;;
*) B=$PWD/$BUILD ;;
esac
J=$O/summary.json
P="$PYTHON $PWD/tests/gpu/probe.py"
W=$(mktemp -d /tmp/memplan-probe.XXXXXX)
trap 'rm -rf "$W"' EXIT
start=$(date +%s)
rm -f "$J" "$O"/*.log
jset() { $P set "$J" "$1" "$2" 2>>"$O/env.log" || echo "probe: cannot write $1" >&2; }
jstr() { jset "$1" "\"$(printf '%s' "$2" | tr -d '"\\' | tr '\n' ' ')\""; }
say() { echo "probe: $*"; }

# run SECONDS LOG CMD...: CMD under timeout, within what is left of the
# limit; its output appended to LOG; its status (124: timed out, 125: no
# time was left)
run() {
	want=$1
	log=$2
	shift 2
	left=$((PROBE_LIMIT - ($(date +%s) - start) - 5))
	[ "$left" -lt "$want" ] && want=$left
	if [ "$want" -lt 5 ]; then
		echo "probe: no time left for: $*" >>"$log"
		return 125
	fi
	echo "\$ $*" >>"$log"
	timeout -k 5 "$want" "$@" >>"$log" 2>&1
}
# status NAME RC: NAME.status "ok", "timed out" or "failed (rc)"
status() {
	case $2 in
	0) jstr "$1.status" ok ;;
	124 | 137) jstr "$1.status" "timed out" ;;
	125) jstr "$1.status" "skipped: no time left" ;;
	*) jstr "$1.status" "failed ($2)" ;;
	esac
}
skipped() { jstr "$1" "skipped: $2"; }

if ! $P set "$J" probe '{}' 2>/dev/null; then
	echo "probe: $PYTHON cannot run tests/gpu/probe.py" >&2
	exit 1
fi
jstr probe.mode "$([ $dry = 1 ] && echo dry || echo gpu)"
jstr probe.date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
jstr probe.commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
jset probe.limit_s "$PROBE_LIMIT"

# --- 1. environment --------------------------------------------------------
say "environment"
E=$O/env.log
{
	uname -a
	nproc
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || echo "no nvidia-smi"
	command -v nvcc >/dev/null && nvcc --version | tail -2
	command -v compute-sanitizer || echo "no compute-sanitizer"
	ls -d /usr/include/sqlite3.h /usr/include/zlib.h 2>&1
} >>"$E" 2>&1
jstr env.uname "$(uname -srm)"
jstr env.nvidia_smi "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo none)"
jstr env.nvcc "$(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo none)"
say "$(uname -srm); GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
if [ $dry = 1 ]; then
	skipped env.torch "dry run (no GPU; torch is not imported)"
else
	if run 90 "$E" $P env >"$W/env.json" 2>>"$E"; then
		jset env.torch "$(cat "$W/env.json")"
		say "$(cat "$W/env.json")"
	else
		jstr env.torch "failed: see env.log"
	fi
fi
jset probe.elapsed_s "$(($(date +%s) - start))"

# --- 2. build ----------------------------------------------------------------
say "build"
L=$O/build.log
deps=
if [ ! -e /usr/include/sqlite3.h ] || [ ! -e /usr/include/zlib.h ]; then
	if [ ! -d tests/gpu/deps/root ] && ls tests/gpu/deps/*.deb >/dev/null 2>&1; then
		for d in tests/gpu/deps/*.deb; do dpkg -x "$d" tests/gpu/deps/root; done >>"$L" 2>&1
	fi
	[ -d tests/gpu/deps/root ] && deps=$PWD/tests/gpu/deps/root
fi
jstr build.deps "${deps:-the system headers}"
if [ -n "$deps" ] && ! ldconfig -p 2>/dev/null | grep -q 'libsqlite3.so.0 '; then
	LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
if [ -z "${CUDA_HOME:-}" ]; then
	nvcc=$(command -v nvcc 2>/dev/null)
	CUDA_HOME=$( [ -n "$nvcc" ] && dirname "$(dirname "$(readlink -f "$nvcc")")" || echo /usr/local/cuda)
fi
export CUDA_HOME BUILD
t0=$(date +%s)
run 300 "$L" make -j"${JOBS:-16}" BUILD="$BUILD" CUDA_HOME="$CUDA_HOME" ${deps:+DEPS="$deps"}
rc=$?
status build $rc
jset build.seconds "$(($(date +%s) - t0))"
jset build.capture_library "$([ -e "$B/lib/libmemplan-capture.so" ] && echo true || echo false)"
jset build.runtime_library "$([ -e "$B/lib/libmemplan.so" ] && echo true || echo false)"
if [ $rc -ne 0 ] || [ ! -e "$B/lib/libmemplan-capture.so" ]; then
	tail -15 "$L" | sed 's/^/probe: build: /'
	jset probe.elapsed_s "$(($(date +%s) - start))"
	say "no capture library: the rest is skipped"
	exit 0
fi
PATH=$B/bin:$PATH
LIB=$B/lib/libmemplan.so
# a sanitizer-built library (make check under SANITIZE) needs its runtimes first
PRELIB="$(ldd "$LIB" 2>/dev/null | awk '/lib(asan|ubsan|tsan)\./ { printf "%s ", $3 }')$LIB"
C=$O/capture.log
R=$O/run.log

# figures NAME TRACE: the trace's figures into capture.NAME.trace
figures() {
	memplan-trace info --json "$2" >"$W/info.json" 2>>"$C" &&
		$P trace "$2" "$W/info.json" >"$W/fig.json" 2>>"$C" &&
		jset "capture.$1.trace" "$(cat "$W/fig.json")"
}
# ratio NAME: trace/program allocation count and peak
ratio() {
	$PYTHON - "$J" "$1" >"$W/ratio.json" 2>>"$C" <<'PY' && jset "capture.$1.ratio" "$(cat "$W/ratio.json")"
import json, sys
c = json.load(open(sys.argv[1]))["capture"][sys.argv[2]]
t, p = c.get("trace", {}), c.get("program", {})
r = lambda a, b: round(a / b, 4) if a is not None and b else None
print(json.dumps({"allocations": r(t.get("allocations"), p.get("allocations")),
                  "peak": r(t.get("peak_bytes"), p.get("peak_bytes"))}))
PY
}
# stats_of NAME LOG: libmemplan's statistics into NAME
stats_of() { jset "$1" "$($P stats "$2")"; }

if [ $dry = 1 ]; then
	# --- dry: the stand-ins ----------------------------------------------
	S=$B/tests/cuda/cupti
	APP=$B/tests/cuda/app
	if [ ! -e "$S/libcupti.so.13" ] || [ ! -e "$APP" ]; then
		skipped capture "the stand-ins are not built (make check builds them)"
		exit 0
	fi
	SA="env LD_LIBRARY_PATH=$S FAKECUDA_CUPTI=$S/libcupti.so.13"
	say "capture (stand-ins)"
	memplan-trace synth --model resnet50 --batch 1 --dtype fp16 -o "$W/in.trace" >>"$C" 2>&1
	memplan-trace info --json "$W/in.trace" >"$W/in.json" 2>>"$C"
	$P trace "$W/in.trace" "$W/in.json" >"$W/fig.json" 2>>"$C" &&
		jset capture.app.program "$(cat "$W/fig.json")"
	run 120 "$C" $SA memplan-capture -o "$W/app.trace" --iteration 2 -- \
		"$APP" "$W/in.trace" --iterations 3 --mark --launch --check-errors
	status capture.app $?
	figures app "$W/app.trace"
	ratio app
	run 120 "$C" $SA memplan-capture -o "$W/torch.trace" --iteration 2 -- \
		"$APP" "$W/in.trace" --iterations 3 --mark --torch "$LIB"
	status capture.app_pluggable $?
	figures app_pluggable "$W/torch.trace"
	for m in mlp resnet18 resnet18_pluggable; do
		skipped "capture.$m" "dry run (no GPU)"
	done
	jset probe.elapsed_s "$(($(date +%s) - start))"

	say "plan"
	for w in app torch; do
		run 120 "$C" memplan-plan compile --align 256 --json "$W/$w.trace" -o "$W/$w.plan"
		status "plan.$w" $?
		run 60 "$C" memplan-plan verify "$W/$w.plan" "$W/$w.trace"
		status "plan.$w.verify" $?
	done

	say "run"
	for way in none preload pluggable; do
		for _ in 1 2 3; do
			t0=$(date +%s%N)
			case $way in
			none) run 60 "$W/$way.log" "$APP" "$W/in.trace" --iterations 4 ;;
			preload) run 60 "$W/$way.log" env LD_PRELOAD="$PRELIB" MEMPLAN_PLAN="$W/app.plan" \
				MEMPLAN_SHOW_STATS=1 "$APP" "$W/in.trace" --iterations 4 --check-errors ;;
			pluggable) run 60 "$W/$way.log" env MEMPLAN_PLAN="$W/torch.plan" MEMPLAN_SHOW_STATS=1 \
				"$APP" "$W/in.trace" --iterations 4 --torch "$LIB" ;;
			esac
			rc=$?
			echo $((($(date +%s%N) - t0) / 1000000)) >>"$W/$way.ms"
		done
		cat "$W/$way.log" >>"$R"
		status "run.$way" $rc
		jset "run.$way.median_run_ms" "$(sort -n "$W/$way.ms" | sed -n 2p)"
		[ $way != none ] && stats_of "run.$way.runtime" "$W/$way.log"
		jset "run.$way.checks_failed" "$(grep -c 'first failure' "$W/$way.log")"
	done
	skipped run.pytorch "dry run (no GPU)"
	jset probe.elapsed_s "$(($(date +%s) - start))"

	say "swap"
	TR=$W/app.trace
	RUNSWAP() { run 60 "$W/swap.log" env LD_PRELOAD="$PRELIB" MEMPLAN_PLAN="$W/swap.plan" \
		MEMPLAN_SHOW_STATS=1 "$APP" "$W/in.trace" --iterations 4 --check-errors; }
else
	# --- the GPU ---------------------------------------------------------
	say "capture (PyTorch)"
	export CUBLAS_WORKSPACE_CONFIG=:4096:8
	# cap NAME MODEL BATCH [VAR=VALUE...]: capture step 3 beside PyTorch's snapshot
	cap() {
		name=$1 model=$2 batch=$3
		shift 3
		run 150 "$C" env "$@" SNAPSHOT_AT=2 LIBMEMPLAN="$LIB" memplan-capture -o "$W/$name.trace" \
			--iteration 3 -- $P train "$model" 5 "$batch" "$W/$name.json"
		status "capture.$name" $?
		figures "$name" "$W/$name.trace"
		[ -e "$W/$name.json" ] && jset "capture.$name.program" \
			"$($PYTHON -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps(r.get("pytorch", {"error": r.get("snapshot_error")})))' "$W/$name.json")"
		ratio "$name"
		jset probe.elapsed_s "$(($(date +%s) - start))"
	}
	cap mlp mlp 64 PYTORCH_NO_CUDA_MEMORY_CACHING=1
	cap resnet18 resnet18 "$BATCH" PYTORCH_NO_CUDA_MEMORY_CACHING=1
	cap resnet18_pluggable resnet18 "$BATCH" MODE=pluggable
	skipped capture.app "GPU run (the stand-ins are the dry run's)"

	say "plan"
	for w in mlp resnet18 resnet18_pluggable; do
		run 120 "$C" memplan-plan compile --align 256 --json "$W/$w.trace" -o "$W/$w.plan"
		status "plan.$w" $?
		run 60 "$C" memplan-plan verify "$W/$w.plan" "$W/$w.trace"
		status "plan.$w.verify" $?
	done

	say "run"
	# train_run NAME [VAR=VALUE...]: 10 ResNet-18 steps
	train_run() {
		name=$1
		shift
		run 120 "$W/$name.log" env "$@" LIBMEMPLAN="$LIB" $P train resnet18 10 "$BATCH" "$W/run-$name.json"
		rc=$?
		cat "$W/$name.log" >>"$R"
		status "run.$name" $rc
		jset probe.elapsed_s "$(($(date +%s) - start))"
	}
	train_run caching
	train_run nocaching PYTORCH_NO_CUDA_MEMORY_CACHING=1
	train_run preload PYTORCH_NO_CUDA_MEMORY_CACHING=1 LD_PRELOAD="$PRELIB" \
		MEMPLAN_PLAN="$W/resnet18.plan" MEMPLAN_SHOW_STATS=1
	stats_of run.preload.runtime "$W/preload.log"
	train_run pluggable MODE=pluggable MEMPLAN_PLAN="$W/resnet18_pluggable.plan" MEMPLAN_SHOW_STATS=1
	stats_of run.pluggable.runtime "$W/pluggable.log"
	jset run.steps "$($P median "$W"/run-*.json)"
	skipped run.none "GPU run (the dry run's)"

	say "swap"
	TR=$W/resnet18.trace
	RUNSWAP() {
		run 120 "$W/swap.log" env PYTORCH_NO_CUDA_MEMORY_CACHING=1 LD_PRELOAD="$PRELIB" \
			MEMPLAN_PLAN="$W/swap.plan" MEMPLAN_SHOW_STATS=1 LIBMEMPLAN="$LIB" \
			$P train resnet18 10 "$BATCH" "$W/run-swap.json"
	}
fi

# --- 6. swap (both modes): the lowest budget from 70% that fits ------------
budget=
for pct in 70 80 90 95 98; do
	if run 120 "$C" memplan-plan compile --align 256 --budget "$pct%" --link measured \
		--json "$TR" -o "$W/swap.plan"; then
		budget=$pct
		break
	fi
done
if [ -z "$budget" ]; then
	jstr swap.status "no swap plan fits 70-98% of the lower bound (see capture.log)"
else
	jset swap.budget_percent "$budget"
	run 60 "$C" memplan-plan verify "$W/swap.plan" "$TR"
	status swap.verify $?
	# the prediction's figures (not its per-swap lists)
	memplan-plan simulate --json "$W/swap.plan" "$TR" 2>>"$C" |
		$PYTHON -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({k: v for k, v in d.items() if not isinstance(v, (list, dict))}))' \
			>"$W/sim.json" 2>>"$C" && jset swap.simulate "$(cat "$W/sim.json")"
	RUNSWAP
	rc=$?
	cat "$W/swap.log" >>"$R" 2>/dev/null
	status swap.run $rc
	stats_of swap.runtime "$W/swap.log"
	if [ $dry = 1 ]; then
		# app checks every byte it reads against what it wrote
		jstr swap.intact "$(grep -o '[0-9]* checks, [0-9]* failures' "$W/swap.log" | tail -1)"
		skipped swap.step_time "dry run (no GPU)"
	else
		$PYTHON - "$W/run-swap.json" "$W/run-nocaching.json" >"$W/cmp.json" 2>>"$R" <<'PY' && jset swap.measured "$(cat "$W/cmp.json")"
import json, statistics, sys
s, n = (json.load(open(p)) for p in sys.argv[1:3])
med = lambda r: 1e3 * statistics.median(r["time"][3:])
print(json.dumps({"median_step_ms": med(s), "without_plan_ms": med(n),
                  "checksum": s["checksum"], "checksum_without_plan": n["checksum"],
                  "intact": s["checksum"] == n["checksum"] and s["loss"] == n["loss"]}))
PY
	fi
fi
jset probe.elapsed_s "$(($(date +%s) - start))"

# --- 7. compute-sanitizer ---------------------------------------------------
say "sanitizer"
if [ $dry = 1 ]; then
	skipped sanitizer "dry run (no GPU)"
elif ! command -v compute-sanitizer >/dev/null 2>&1; then
	skipped sanitizer "compute-sanitizer is not installed"
else
	run 90 "$O/sanitizer.log" compute-sanitizer --tool memcheck --error-exitcode 9 \
		memplan-replay --backend cuda --iterations 2 --stats "$W/mlp.plan" "$W/mlp.trace"
	status sanitizer $?
	jstr sanitizer.summary "$(grep -E 'ERROR SUMMARY' "$O/sanitizer.log" | tail -1)"
fi
jset probe.elapsed_s "$(($(date +%s) - start))"
jstr probe.finished "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "summary in $J"
exit 0
