# SPDX-License-Identifier: Apache-2.0
# tests/vm/cmd.sh, sourced by both guests' last stage (guest.sh, plain;
# systemd-unit.sh, under systemd) once the run directory is mounted on
# /run/vm-out: prints the cgroup layout, runs the host's cmd file as root in
# a clean environment, writes its exit status back and unmounts.
echo "== vm: cgroup mounts:"
grep -E ' cgroup2? ' /proc/mounts | sed 's/^/   /'
echo "== vm: /sys/fs/cgroup/cgroup.controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
echo "== vm: /sys/fs/cgroup/cgroup.subtree_control: $(cat /sys/fs/cgroup/cgroup.subtree_control)"
echo "== vm: /proc/self/cgroup: $(cat /proc/self/cgroup)"
echo "== vm: running: $(cat /run/vm-out/cmd-line)"
env -i PATH="$PATH" HOME=/run/vm-home LANG=C.UTF-8 TERM=dumb GAOL_VM=1 \
  sh /run/vm-out/cmd </dev/null
status=$?
echo "== vm: exit status $status"
echo "$status" > /run/vm-out/status
umount /run/vm-out
