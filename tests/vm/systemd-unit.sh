#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
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
. "$(dirname "$0")/cmd.sh"
exit 0
