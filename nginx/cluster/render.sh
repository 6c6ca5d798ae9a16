#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gaol front: renders the nginx configuration for a front in front of
# several gaol hosts into a directory.
#
#   nginx/cluster/render.sh OUT_DIR HOST:PORT:SLOTS...
#
# Writes OUT_DIR/gaol-front-http.conf (include at http level),
# OUT_DIR/gaol-front-locations.conf (include inside your server { }) and
# OUT_DIR/gaol-front-health.json (the /health page, read by nginx at run
# time: keep it at OUT_DIR).  With GAOL_FRONT_LISTEN (e.g. 10.0.0.2:80 or
# unix:/run/gaol-front.sock) and GAOL_FRONT_PREFIX it also writes a whole
# OUT_DIR/nginx.conf that keeps its pid, logs and temp files under the
# prefix.  SLOTS is the host's RUN_CONCURRENCY, or its share when several
# fronts use the host.  Other settings, from the environment:
#   RUN_INPUT_MAX (1m), RUN_TIMEOUT_MAX (60s): as the hosts have them
#   GAOL_FRONT_FAIL_TIMEOUT (5s), GAOL_FRONT_MAX_FAILS (1)
#   GAOL_FRONT_CONNECT_TIMEOUT (1s), GAOL_FRONT_HEALTH_TIMEOUT (2s)
#   GAOL_FRONT_BIND: the source address to reach the hosts from (one of
#     those in their FCGI_WEB_SERVER_ADDRS), when the front has several
#   GAOL_FRONT_USER: nginx's user line of the whole nginx.conf
set -u

die() { printf 'render: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: render.sh OUT_DIR HOST:PORT:SLOTS..."
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1
shift
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || die "cannot create $OUT"

INPUT_MAX=${RUN_INPUT_MAX:-1m}
TIMEOUT_MAX=${RUN_TIMEOUT_MAX:-60s}
FAIL_TIMEOUT=${GAOL_FRONT_FAIL_TIMEOUT:-5s}
MAX_FAILS=${GAOL_FRONT_MAX_FAILS:-1}
CONNECT_TIMEOUT=${GAOL_FRONT_CONNECT_TIMEOUT:-1s}
HEALTH_TIMEOUT=${GAOL_FRONT_HEALTH_TIMEOUT:-2s}
BIND=${GAOL_FRONT_BIND:-}

[[ $INPUT_MAX =~ ^[0-9]+[kKmMgG]?$ ]] || die "RUN_INPUT_MAX=\"$INPUT_MAX\": not a size"
[[ $TIMEOUT_MAX =~ ^([0-9]+)(ms|s|m)$ ]] || die "RUN_TIMEOUT_MAX=\"$TIMEOUT_MAX\": not a timeout"
case ${BASH_REMATCH[2]} in
ms) TIMEOUT_S=$(( (10#${BASH_REMATCH[1]} + 999) / 1000 )) ;;
s)  TIMEOUT_S=$(( 10#${BASH_REMATCH[1]} )) ;;
m)  TIMEOUT_S=$(( 10#${BASH_REMATCH[1]} * 60 )) ;;
esac
READ_TIMEOUT=$(( TIMEOUT_S + 60 ))s
for v in FAIL_TIMEOUT CONNECT_TIMEOUT HEALTH_TIMEOUT; do
	[[ ${!v} =~ ^[0-9]+(ms|s)$ ]] || die "$v=\"${!v}\": not an nginx time (e.g. 5s, 500ms)"
done
[[ $MAX_FAILS =~ ^[1-9][0-9]*$ ]] || die "GAOL_FRONT_MAX_FAILS=\"$MAX_FAILS\": not a number from 1"

SERVERS="" LOCATIONS="" HEALTH="" TOTAL=0 N=0 TOKEN_UPSTREAMS="" TOKEN_MAP=""
for h in "$@"; do
	[[ $h =~ ^([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+:[0-9]+):([1-9][0-9]*)$ ]] ||
		die "\"$h\": not HOST:PORT:SLOTS (IPv4 address, port, slots from 1)"
	addr=${BASH_REMATCH[1]} slots=${BASH_REMATCH[2]}
	N=$((N + 1)) TOTAL=$((TOTAL + slots))
	# Judge0's tokens name their host: host N (in the order given) must
	# run with RUN_HOST_ID=N (docs/deploy.md, "Judge0's tokens").
	TOKEN_UPSTREAMS+="upstream gaol_host_$N { server $addr; }"$'\n'
	TOKEN_MAP+="    $(printf '%04x' $N) gaol_host_$N;"$'\n'
	SERVERS+="    server $addr max_conns=$slots max_fails=$MAX_FAILS fail_timeout=$FAIL_TIMEOUT;"$'\n'
	LOCATIONS+="location = /.gaol-front-host/$N/health {
    internal;
    rewrite ^ /health break;
    include fastcgi_params;
    fastcgi_pass $addr;
    fastcgi_next_upstream off;
    fastcgi_connect_timeout $CONNECT_TIMEOUT;
    fastcgi_read_timeout $HEALTH_TIMEOUT;
    error_page 500 502 503 504 = /.gaol-front-host-down;
}
"
	HEALTH+="$([ $N -gt 1 ] && printf ',')"$'\n'"  \"$addr\": <!--# include virtual=\"/.gaol-front-host/$N/health\" -->"
done
BIND_LINE=""
[ -n "$BIND" ] && BIND_LINE="fastcgi_bind $BIND;"$'\n'

# Replaces @NAME@ in $1 with the values above (multi-line ones too).
fill() {
	local text
	text=$(<"$1")
	text=${text//@SERVERS@/${SERVERS%$'\n'}}
	text=${text//@HOST_HEALTH_LOCATIONS@/${LOCATIONS%$'\n'}}
	text=${text//@TOKEN_UPSTREAMS@/${TOKEN_UPSTREAMS%$'\n'}}
	text=${text//@TOKEN_MAP@/${TOKEN_MAP%$'\n'}}
	text=${text//@BIND@$'\n'/$BIND_LINE}
	text=${text//@MAX_FAILS@/$MAX_FAILS}
	text=${text//@FAIL_TIMEOUT@/$FAIL_TIMEOUT}
	text=${text//@HOST_COUNT@/$N}
	text=${text//@TOTAL_SLOTS@/$TOTAL}
	text=${text//@NEXT_TIMEOUT@/$(( ${CONNECT_TIMEOUT%s} * N + 5 ))s}
	text=${text//@CONNECT_TIMEOUT@/$CONNECT_TIMEOUT}
	text=${text//@HEALTH_TIMEOUT@/$HEALTH_TIMEOUT}
	text=${text//@INPUT_MAX@/$INPUT_MAX}
	text=${text//@READ_TIMEOUT@/$READ_TIMEOUT}
	text=${text//@CONF_DIR@/$OUT}
	text=${text//@PREFIX@/${GAOL_FRONT_PREFIX:-}}
	text=${text//@LISTEN@/${GAOL_FRONT_LISTEN:-}}
	text=${text//@USER@/${GAOL_FRONT_USER:-}}
	printf '%s\n' "$text"
}

fill "$HERE/gaol-front-http.conf.in" > "$OUT/gaol-front-http.conf" &&
fill "$HERE/gaol-front-locations.conf.in" > "$OUT/gaol-front-locations.conf" &&
printf '{"ok": true, "hosts": {%s\n}}\n' "$HEALTH" > "$OUT/gaol-front-health.json" ||
	die "cannot write into $OUT"
if [ -n "${GAOL_FRONT_LISTEN:-}" ]; then
	[ -n "${GAOL_FRONT_PREFIX:-}" ] || die "GAOL_FRONT_LISTEN needs GAOL_FRONT_PREFIX"
	mkdir -p "$GAOL_FRONT_PREFIX/logs" "$GAOL_FRONT_PREFIX/temp" &&
	cp /etc/nginx/fastcgi_params "$OUT/fastcgi_params" &&
	fill "$HERE/nginx-front.conf.in" > "$OUT/nginx.conf" ||
		die "cannot write $OUT/nginx.conf"
fi
grep -q '@[A-Z_]*@' "$OUT"/gaol-front-*.conf && die "a placeholder is left in $OUT"
exit 0
