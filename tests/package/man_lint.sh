#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The man pages (docs/man/*.[1-8]): `mandoc -Tlint` reports nothing, at any
# level, and `man -l` renders each one.
#
# One kind of message is set aside: "mandoc.db lacks NAME(N) entry", which
# says only that a page our SEE ALSO names (nginx(8), clone(2), ...) is not
# installed on this host -- that varies with the host, not with our pages.
# References to gaol's own pages are checked here instead: each must exist.
set -u
cd "$(dirname "$0")/../.." || exit 1
pages=$(ls docs/man/*.[1-8])
status=0
for tool in mandoc man; do
	command -v $tool >/dev/null || { echo "man-lint: $tool is missing (make deps-test)"; exit 1; }
done
# From docs/man, where mandoc finds the pages that refer to each other.
out=$(cd docs/man && mandoc -Tlint $(ls *.[1-8]) 2>&1 | grep -v ': outdated mandoc.db lacks [^ ]* entry')
if [ -n "$out" ]; then
	echo "$out"
	echo "man-lint: FAILED: mandoc -Tlint reported the above"
	status=1
fi
for ref in $(grep -h '^\.Xr gaol' $pages | awk '{print $2 "." $3}' | sort -u); do
	[ -f "docs/man/$ref" ] || { echo "man-lint: FAILED: .Xr to a missing page docs/man/$ref"; status=1; }
done
for p in $pages; do
	name=$(basename "$p")
	if ! MANWIDTH=80 man -l "$p" 2>/tmp/man-lint.$$ | grep -q '^NAME'; then
		echo "man-lint: FAILED: man -l $p rendered no NAME section: $(cat /tmp/man-lint.$$)"
		status=1
	elif [ -s /tmp/man-lint.$$ ]; then
		echo "man-lint: FAILED: man -l $p: $(cat /tmp/man-lint.$$)"
		status=1
	fi
	rm -f /tmp/man-lint.$$
	[ $status = 0 ] && echo "man-lint: $name ok"
done
exit $status
