#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gaol: gaol-locations.conf (or a server block that includes it, as make
# run's nginx.conf) with every gaol path under a prefix of the operator's
# choosing (nginx/README.md, "Under a prefix").
#
#   nginx/prefix.sh /gaol < gaol-locations.conf > gaol-locations-prefixed.conf
#
# Each location's path gains the prefix (/gaol/run, /gaol/api/v2/execute,
# the internal /gaol/.gaol-error), and each FastCGI location passes it as
# GAOL_PATH_PREFIX, which gaol-fcgi strips before it routes.  The prefix is
# one or more path parts of [A-Za-z0-9._-] ("/gaol", "/api/code"); no
# trailing "/".
set -eu
p=${1:-}
case "$p" in
''|*/|*//*|*[!A-Za-z0-9._/-]*) echo "usage: $0 /prefix < gaol-locations.conf" >&2; exit 2;;
/*) ;;
*) echo "usage: $0 /prefix < gaol-locations.conf (the prefix begins with /)" >&2; exit 2;;
esac
exec sed -e "s|^\\( *\\)location = /|\\1location = $p/|" \
	-e "s|^\\( *\\)location / {|\\1location $p/ {|" \
	-e "s|^\\( *\\)location ~ \\^/|\\1location ~ ^$p/|" \
	-e "s| /\\.gaol-error\\([a-z-]*\\);| $p/.gaol-error\\1;|" \
	-e 's|^\( *\)\(fastcgi_param GAOL_REQUEST_ID \$request_id;\)$|\1\2\n\1fastcgi_param GAOL_PATH_PREFIX '"$p"';|'
