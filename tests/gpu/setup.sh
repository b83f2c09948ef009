# SPDX-License-Identifier: MIT
# tests/gpu/setup.sh - sourced first by the scripts of tests/gpu/, so that
# each runs in one command on a fresh machine with a GPU, the CUDA toolkit
# and PyTorch: from the source tree's top, it finds the toolkit (CUDA_HOME,
# else nvcc's, else /usr/local/cuda), builds with make (sqlite3 through
# pkg-config, CUPTI beside the toolkit or as pip's nvidia-cuda-cupti), then
# sources tests/cli/lib.sh (TAP, $T, the built commands on PATH).  Defines
# stats_followed: the runtime's statistics say the plan was followed.
# Knobs: BUILD (default build), PYTHON (default python3), JOBS (make -j).
cd "$(dirname "$0")/../.." || exit 1
: "${BUILD:=build}"
: "${PYTHON:=python3}"
export BUILD PYTHON

if [ -z "${CUDA_HOME:-}" ]; then
	nvcc=$(command -v nvcc 2>/dev/null)
	if [ -n "$nvcc" ]; then
		CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
	else
		CUDA_HOME=/usr/local/cuda
	fi
fi
# CUPTI from PyTorch's pip wheels when the toolkit has none: its lib and
# include folders side by side (site-packages/nvidia/cuda_cupti)
if [ ! -e "$CUDA_HOME/include/cupti.h" ] && [ ! -e "$CUDA_HOME/extras/CUPTI/include/cupti.h" ]; then
	pip_cupti=$("$PYTHON" -c 'import nvidia.cuda_cupti as m, os; print(os.path.dirname(m.__file__) if m.__file__ else list(m.__path__)[0])' 2>/dev/null)
	[ -n "$pip_cupti" ] && echo "# CUPTI of the toolkit missing; pip's is at $pip_cupti (set CUDA_HOME to a toolkit with CUPTI)"
fi
export CUDA_HOME
echo "# CUDA_HOME=$CUDA_HOME"

if ! pkg-config --exists sqlite3 2>/dev/null && [ ! -e /usr/include/sqlite3.h ]; then
	echo "not ok 1 - sqlite3's headers are missing (apt-get install libsqlite3-dev pkg-config)"
	echo "1..1"
	exit 1
fi
if ! make -j"${JOBS:-$(nproc 2>/dev/null || echo 2)}" BUILD="$BUILD" CUDA_HOME="$CUDA_HOME" \
	>"${TMPDIR:-/tmp}/memplan-gpu-build.log" 2>&1; then
	echo "not ok 1 - make failed (CUDA_HOME=$CUDA_HOME); the end of its log:"
	tail -20 "${TMPDIR:-/tmp}/memplan-gpu-build.log" | sed 's/^/#   /'
	echo "1..1"
	exit 1
fi
grep "memplan: " "${TMPDIR:-/tmp}/memplan-gpu-build.log" | sed 's/^/# /'

# shellcheck source=tests/cli/lib.sh
. tests/cli/lib.sh

# stats_followed NAME FILE: MEMPLAN_SHOW_STATS=1's lines in FILE say that the
# plan was followed: requests served from the pool, iterations followed to
# their end, no divergence, no capture-time request.  One TAP line each.
stats_followed() {
	for kv in planned_allocs:+ completed:+ divergences:0; do
		name=${kv%%:*}
		want=${kv#*:}
		got=$(awk -v n="$name" '$1 == n { print $2 }' "$2" | tail -1)
		if [ "$want" = + ]; then
			[ -n "$got" ] && [ "$got" -gt 0 ]
			ok $? "  ... $1: $name $got (> 0)"
		else
			[ "$got" = "$want" ]
			ok $? "  ... $1: $name ${got:-missing} ($want wanted)"
		fi
	done
}
