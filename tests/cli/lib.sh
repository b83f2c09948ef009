# SPDX-License-Identifier: MIT
# tests/cli/lib.sh - TAP helpers for the command-line tests (git's t/ style).
# Source it; it sets $T (a fresh temporary folder, removed at exit) and
# $BUILD_DIR (the build folder, absolute), and puts the built commands
# first on PATH.
: "${BUILD:=build}"
: "${SHARED_DATA:=../shared/data}"
# the build folder as an absolute path (BUILD may be either)
case $BUILD in
/*) BUILD_DIR=$BUILD ;;
*) BUILD_DIR=$PWD/$BUILD ;;
esac
PATH="${MEMPLAN_BIN:-$BUILD_DIR/bin}:$PATH"
export PATH
T=$(mktemp -d /tmp/memplan-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
tap_n=0
tap_fail=0

ok() { # condition-status description
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		tap_fail=$((tap_fail + 1))
		echo "not ok $tap_n - $2"
		[ -s "$T/err" ] && sed 's/^/#   stderr: /' "$T/err" | head -5
	fi
}

# expect STATUS DESCRIPTION CMD...: runs CMD (stdout in $T/out, stderr in
# $T/err) and checks its exit status.
expect() {
	want=$1
	what=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" -eq "$want" ]
	st=$?
	[ $st -ne 0 ] && echo "#   exit status $got, expected $want: $*"
	ok $st "$what"
}

# has FILE TEXT DESCRIPTION: FILE contains TEXT (fixed string).
has() {
	grep -qF -- "$2" "$1"
	st=$?
	[ $st -ne 0 ] && echo "#   '$1' lacks '$2'" && head -3 "$1" | sed 's/^/#   | /'
	ok $st "$3"
}

# skip DESCRIPTION WHY: a check that cannot run here (TAP "# SKIP").
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# have_shared: the public placement instances are here (../shared/data or
# $SHARED_DATA); outside the workplace the checks that need them skip,
# saying so with $no_shared.  A folder that is there but lacks a file fails.
no_shared="no public placement instances: put the data of ../shared/data/README.md in ../shared/data/placement or set SHARED_DATA"
have_shared() {
	[ -d "$SHARED_DATA/placement" ]
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_fail" -eq 0 ]
}

# need_python3: the rest of the test needs python3 (its fixtures are
# written by Python generators); without it the rest skips, saying so, and
# the test ends with the checks that ran before.
need_python3() {
	command -v python3 >/dev/null 2>&1 && return 0
	skip "the rest of this test" "python3 is not installed"
	done_testing
	exit
}

# need_torch: the rest of the test needs PyTorch (Debian's python3-torch,
# which .ci/run installs): its fixtures are written by a real training step;
# without it the rest skips, saying so.  Sets $PY, the python3 that has it.
need_torch() {
	need_python3
	for PY in python3 /usr/bin/python3; do
		"$PY" -c 'import torch' >/dev/null 2>&1 && return 0
	done
	skip "the rest of this test" "PyTorch is not installed (apt-get install python3-torch)"
	done_testing
	exit
}

# svg_in_chromium NAME...: each $T/NAME.svg screenshot in headless
# Chromium, one check each that nothing runs off the picture (its own
# frame's edge is white); skipped, saying so, without Chromium
svg_in_chromium() {
	_browser=
	for _b in chromium chromium-browser; do
		command -v "$_b" >/dev/null 2>&1 && _browser=$_b && break
	done
	for _f in "$@"; do
		if [ -z "$_browser" ]; then
			skip "$_f.svg in Chromium" "chromium is not installed"
			continue
		fi
		rm -rf "$T/profile"
		timeout 120 "$_browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
			--no-first-run --hide-scrollbars --user-data-dir="$T/profile" \
			--window-size=1100,700 --screenshot="$T/$_f.png" "file://$T/$_f.svg" >/dev/null 2>&1 &&
			python3 tests/cli/pngrule.py edge "$T/$_f.png" 0 0 \
				$(sed -n 's/^<svg [^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1 \2/p' "$T/$_f.svg") \
				>"$T/err" 2>&1
		ok $? "$_f.svg in Chromium: nothing runs off the picture (its own frame's edge is white)"
	done
}
