#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stage 2 with gaol.mode=systemd (tests/vm/guest.sh hands over to this, as
# PID 1, with /proc mounted): writes two units into the guest's /etc (the
# overlay's writable layer; the host's /etc is untouched) and execs
# systemd as PID 1, which mounts the rest itself (cgroup2 alone: the
# kernel command line has systemd.unified_cgroup_hierarchy=1) and starts
# gaol-vm.target only: basic.target and gaol-vm-check.service
# (tests/vm/systemd-unit.sh), which runs the host's command and powers the
# VM off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
die() {
  echo "vm-systemd: $*" >&2
  reboot -f
  sleep 10
}
[ -x /lib/systemd/systemd ] || die "no /lib/systemd/systemd (apt-get install systemd)"
here=$(cd "$(dirname "$0")" && pwd)
u=/etc/systemd/system
mkdir -p $u || die "mkdir $u"
cat > $u/gaol-vm.target <<'UNIT' || die "write gaol-vm.target"
[Unit]
Description=gaol VM: basic.target and the check
Requires=basic.target gaol-vm-check.service
After=basic.target gaol-vm-check.service
AllowIsolate=yes
UNIT
sed "s|@HERE@|$here|" > $u/gaol-vm-check.service <<'UNIT' || die "write gaol-vm-check.service"
[Unit]
Description=gaol VM: the host's command (tests/vm/systemd.sh)
After=basic.target
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
TimeoutStartSec=infinity
StandardInput=null
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/console
TTYReset=no
TTYVHangup=no
ExecStart=/bin/sh @HERE@/systemd-unit.sh
UNIT
# No login prompt on the console (the VM's only terminal is the log).
ln -sf /dev/null $u/serial-getty@ttyS0.service
ln -sf /dev/null $u/getty@tty1.service
# The host's /etc and /var have no .updated stamps (it is not a booted
# system): ConditionNeedsUpdate= units would rebuild the hwdb, the ld cache
# and the journal's catalog at every boot, minutes under TCG.  The stamps
# say /usr has not changed since.
touch -r /usr /etc/.updated /var/.updated
# /tmp a tmpfs, as in the plain guest: in the overlay it would be the
# host's /tmp, whose whole content systemd-tmpfiles --boot removes (D /tmp),
# file by file over 9p (minutes; the host's copy is untouched either way).
mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs /tmp || die "mount /tmp"
hostname gaol-vm
echo gaol-vm > /etc/hostname
umount /proc
exec /lib/systemd/systemd --unit=gaol-vm.target --show-status=no --log-target=kmsg --log-level=warning
