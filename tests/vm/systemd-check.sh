#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/vm/systemd-check.sh: what `make test-vm-systemd` runs inside the VM,
# under systemd as PID 1 (tests/vm/systemd.sh), as root in the checkout.
# gaol installed as `make install PREFIX=/usr/local` lays it out (into the
# guest's writable overlay; the host's /usr/local is untouched), Debian's
# nginx with the two snippets as the README tells an administrator, then
# with systemctl: gaol.service, and after it gaol.socket (socket-activated
# gaol-socket.service), each serving /health and a POST /run through nginx,
# each stopped again leaving no process of the slots and no cgroup of its
# own.  Exit status 0 when every step held.
set -u
PORT=8080
URL=http://127.0.0.1:$PORT
UNITS=/usr/local/lib/systemd/system
fail() { echo "vm-systemd: FAILED: $*"; exit 1; }
ok() { echo "vm-systemd: ok: $*"; }


echo "vm-systemd: system $(systemctl is-system-running); failed units: $(systemctl list-units --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"

make install PREFIX=/usr/local > /tmp/install.log 2>&1 || { tail -n 30 /tmp/install.log; fail "make install"; }
getent passwd gaol >/dev/null || fail "make install did not create the user gaol"
ok "make install PREFIX=/usr/local; user gaol created"

cat >> /etc/default/gaol <<CONF
RUN_CONCURRENCY=2
CONF
echo 'include snippets/gaol-http.conf;' > /etc/nginx/conf.d/gaol.conf
rm -f /etc/nginx/sites-enabled/default
cat > /etc/nginx/sites-enabled/gaol <<CONF
server {
    listen 127.0.0.1:$PORT;
    include snippets/gaol-locations.conf;
}
CONF
nginx -t -q || fail "nginx -t"
systemctl daemon-reload
systemctl restart nginx.service || fail "systemctl restart nginx.service"
ok "nginx.service with the snippets"
for u in gaol.service gaol.socket gaol-socket.service; do
  [ -f $UNITS/$u ] || fail "$UNITS/$u is not installed"
done

slot_procs() {  # processes of the slot UIDs (RUN_UID_BASE 10001, 2 slots)
  ps -eo uid=,pid=,comm= | awk '$1 >= 10001 && $1 < 10003'
}

serve() {  # $1: the unit systemctl starts; $2: the unit that runs the pool
  start=$1 pool=$2
  t0=$(date +%s)
  systemctl start "$start" || { journalctl -b -u "$pool" --no-pager | tail -n 30; fail "systemctl start $start"; }
  i=0
  until curl -sf -o /tmp/health "$URL/health"; do
    i=$((i + 1))
    [ $i -lt 240 ] || { journalctl -b -u "$pool" --no-pager | tail -n 30; fail "$start: no /health in 120 s"; }
    sleep 0.5
  done
  /usr/bin/python3 - /tmp/health <<'PY' || fail "$start: /health: $(cat /tmp/health)"
import json, sys
h = json.load(open(sys.argv[1]))
assert h["ok"] is True and h["slots"] == 2 and "python" in h["languages"], h
PY
  ok "$start: /health through nginx ($(( $(date +%s) - t0 )) s after systemctl start)"
  [ "$(systemctl is-active "$pool")" = active ] || fail "$pool is $(systemctl is-active "$pool")"
  cg=/sys/fs/cgroup/system.slice/$pool
  [ -d "$cg" ] || fail "no cgroup $cg"
  echo "vm-systemd: $pool's cgroup: $(cat /proc/$(systemctl show -P MainPID "$pool")/cgroup); below it: $(cd $cg && find . -mindepth 1 -type d | sort | tr '\n' ' ')"
  code=$(curl -sS -o /tmp/run -w '%{http_code}' "$URL/run" -H 'Content-Type: application/json' -d '{
    "lang_slug": "python",
    "solution_text": "def solution(a, b):\n    return a + b\n",
    "asserts": "{\"arguments\": [[1, 2], [3, 4]]}"}')
  /usr/bin/python3 - /tmp/run "$code" <<'PY' || fail "$start: POST /run: $code $(cat /tmp/run)"
import json, sys
r = json.load(open(sys.argv[1]))
assert sys.argv[2] == "200" and r["exit_code"] == 0, r
values = [rec["value"] for rec in json.loads(r["stdout"]) if rec["type"] == "result"]
assert values == [3, 7], r
print("vm-systemd: /run answer: exit_code %s, cpu_ms %s, memory_peak_kb %s, oom_killed %s"
      % (r["exit_code"], r.get("cpu_ms"), r.get("memory_peak_kb"), r.get("oom_killed")))
PY
  ok "$start: POST /run (python) through nginx: 200, exit 0, results 3 and 7"
  systemctl stop "$start" "$pool" || fail "systemctl stop $start $pool"
  [ "$(systemctl is-active "$pool")" != active ] || fail "$pool still active after stop"
  left=$(slot_procs)
  [ -z "$left" ] || fail "$start: processes of the slots left: $left"
  [ ! -d "$cg" ] || fail "$start: cgroup $cg left: $(find $cg -type d)"
  ok "$start: stopped; no slot process, no cgroup left"
}

serve gaol.service gaol.service
serve gaol.socket gaol-socket.service
systemctl stop nginx.service
echo "vm-systemd: all steps held"
