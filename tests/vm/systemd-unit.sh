#!/bin/sh
# gaol-vm-check.service's ExecStart (tests/vm/systemd.sh), under systemd
# as PID 1: mounts the run directory the host shared (tag "out"), prints
# the cgroup layout systemd made, runs the host's cmd file (for make
# test-vm-systemd, tests/vm/systemd-check.sh) as root in a clean
# environment, writes its exit status there.  The unit's SuccessAction
# then powers the VM off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mkdir -p /run/vm-out /run/vm-home
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=none out /run/vm-out || exit 1
stty -onlcr 2>/dev/null
echo "== vm: kernel $(uname -r), $(nproc) CPUs, systemd $(systemctl --version | sed -n '1s/^systemd //p'), up $(cut -d' ' -f1 /proc/uptime) s"
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
exit 0
