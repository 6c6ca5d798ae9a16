#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make install` lays out the files of the Debian package (README: for hosts
# without dpkg): the same paths, apart from what debhelper adds (the
# changelog and copyright under /usr/share/doc, lintian's overrides, man
# pages gzipped), and what `make prepare` built into langs/ here (ignored by
# git; the package is built from a clean copy, where it is not).
#   tests/package/install_layout.sh build/gaol_<version>_<arch>.deb
set -eu
deb=$1
unitdir=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed -n 's|^\.\(.*systemd/system\)/gaol.service$|\1|p')
tmp=$(mktemp -d /tmp/gaol-layout.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
make -s install-files PREFIX=/usr DESTDIR="$tmp/root" SYSTEMDUNITDIR="$unitdir" >/dev/null
(cd "$tmp/root" && find . ! -type d | sort) | while read -r f; do
	case "$f" in
	./usr/share/gaol/langs/*)
		git check-ignore -q "${f#./usr/share/gaol/}" 2>/dev/null || echo "$f";;
	*) echo "$f";;
	esac
done >"$tmp/install"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | grep -v -e '^\./usr/share/doc/' -e '^\./usr/share/lintian/overrides/' |
	sed 's/\.gz$//' | sort >"$tmp/deb"
if ! diff -u "$tmp/deb" "$tmp/install"; then
	echo "install-layout: FAILED: make install and the package differ (above: - package, + make install)"
	exit 1
fi
echo "install-layout: make install lays out the package's $(wc -l <"$tmp/deb") files"
