#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A plain `make` on a machine without the build dependencies stops before the
# compiler, with one line naming what is missing and `make deps` (issue 15:
# it used to fail on "fcgiapp.h: No such file or directory").  The missing
# packages are simulated by naming two that no Debian has.
set -u
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d /tmp/gaol-depscheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
out=$(make BUILD="$tmp/build" DEPS_BUILD="gcc gaol-no-such-pkg-a libfcgi-dev gaol-no-such-pkg-b" 2>&1)
rc=$?
fail() { echo "deps-check: FAILED: $*"; echo "$out"; exit 1; }
[ $rc != 0 ] || fail "make succeeded without its dependencies"
line=$(printf '%s\n' "$out" | grep '^make: missing build dependencies:')
[ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] || fail "no single line naming the missing packages"
case "$line" in
*" gaol-no-such-pkg-a gaol-no-such-pkg-b "*"make deps"*) ;;
*) fail "the line does not name exactly the missing packages and make deps: $line";;
esac
printf '%s\n' "$out" | grep -qE '^(cc|gcc) |\.h: No such file' && fail "the compiler ran"
[ ! -e "$tmp/build/core" ] || fail "objects were built"
echo "deps-check: make stops at once: $line"
