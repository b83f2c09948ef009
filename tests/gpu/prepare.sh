#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/gpu/prepare.sh - run here, with network, before a GPU machine that
# may lack SQLite's and zlib's headers (it has no network): fetches
# Debian's libsqlite3-dev, libsqlite3-0, zlib1g-dev and zlib1g with
# `apt-get download` into tests/gpu/deps/ (git-ignored) and unpacks them
# with `dpkg -x` into tests/gpu/deps/root, the private prefix the probe
# hands to make as DEPS=... (Makefile).  The device run must carry
# tests/gpu/deps.  Idempotent; exit 0, or 1 with what failed.
cd "$(dirname "$0")" || exit 1
mkdir -p deps && cd deps || exit 1
pkgs="libsqlite3-dev libsqlite3-0 zlib1g-dev zlib1g"
for p in $pkgs; do
	ls "${p}"_*.deb >/dev/null 2>&1 && continue
	if ! apt-get download "$p" >/dev/null 2>apt.err; then
		echo "prepare.sh: apt-get download $p failed:" >&2
		cat apt.err >&2
		exit 1
	fi
done
rm -f apt.err
rm -rf root
for d in *.deb; do
	dpkg -x "$d" root || { echo "prepare.sh: dpkg -x $d failed" >&2; exit 1; }
done
# absolute links (libz.so -> /lib/...) would leave the root: made relative
find root -type l | while read -r l; do
	t=$(readlink "$l")
	case $t in
	/*) ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "root$t")" "$l" ;;
	esac
done
[ -e root/usr/include/sqlite3.h ] && [ -e root/usr/include/zlib.h ] || {
	echo "prepare.sh: the headers are not where expected under $PWD/root" >&2
	exit 1
}
echo "prepare.sh: $(ls ./*.deb | wc -l) packages unpacked into tests/gpu/deps/root ($(du -sh . | cut -f1)); carry tests/gpu/deps"
