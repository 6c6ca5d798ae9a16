#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stage 2, in the guest's root (the host's / over 9p under a writable
# overlay; see tests/vm/README.md).  Runs as PID 1 with nothing mounted:
# mounts what a booted Debian has (cgroup2 alone at /sys/fs/cgroup), names
# the host, brings up lo and an address on qemu's (restricted) user network, mounts the run directory the host shared (tag
# "out": its cmd file, and where the exit status goes), prints the kernel
# and the cgroup layout, then runs that cmd file as root in a clean
# environment (the checkout's directory; PATH without /root; HOME on a
# tmpfs), writes its exit status to the run directory, and powers off.
# With gaol.mode=systemd on the kernel command line it hands over to
# tests/vm/systemd.sh at once instead, which starts systemd as PID 1.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
here=$(dirname "$0")

die() {
  echo "vm-guest: $*" >&2
  reboot -f
  sleep 10
}

mount -t proc -o nosuid,nodev,noexec proc /proc || die "mount /proc"
mode=plain
for a in $(cat /proc/cmdline); do
  case "$a" in gaol.mode=*) mode=${a#gaol.mode=} ;; esac
done
if [ "$mode" = systemd ]; then
  exec "$here/systemd.sh"
fi
mount -t sysfs -o nosuid,nodev,noexec sysfs /sys || die "mount /sys"
mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 /sys/fs/cgroup || die "mount cgroup2"
mount -t devtmpfs -o nosuid,mode=0755 devtmpfs /dev || die "mount /dev"
mkdir -p /dev/pts /dev/shm
mount -t devpts -o nosuid,noexec,gid=5,mode=0620,ptmxmode=0666 devpts /dev/pts || die "mount /dev/pts"
mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs /dev/shm || die "mount /dev/shm"
# gaol.keep=DIR (tests/vm/run.sh): a checkout under /tmp or /run, which the
# tmpfs mounts below would hide; held aside by a bind mount, then moved
# back over them at the same path.
keep=
for a in $(cat /proc/cmdline); do
  case "$a" in gaol.keep=*) keep=${a#gaol.keep=} ;; esac
done
if [ -n "$keep" ]; then
  mkdir -p /mnt/gaol-keep && mount --bind "$keep" /mnt/gaol-keep || die "bind $keep"
fi
mount -t tmpfs -o nosuid,nodev,mode=0755,size=20% tmpfs /run || die "mount /run"
mkdir -p /run/lock /run/vm-out /run/vm-home
chmod 1777 /run/lock
mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs /tmp || die "mount /tmp"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=none out /run/vm-out \
  || die "mount 9p out"
if [ -n "$keep" ]; then
  mkdir -p "$keep" && mount --move /mnt/gaol-keep "$keep" || die "move $keep back"
fi
hostname gaol-vm
ip link set lo up || die "lo up"
# A non-loopback address, as every host has (the isolation tests try to
# reach it from inside a run): qemu's user network, restricted (no way out
# of the VM), on virtio-net, its first interface.
modprobe -q virtio_net || die "modprobe virtio_net"
nic=$(ls /sys/class/net | grep -v '^lo$' | head -n 1)
[ -n "$nic" ] || die "no network interface"
ip link set "$nic" up && ip addr add 10.0.2.15/24 dev "$nic" && ip route add default via 10.0.2.2 \
  || die "network on $nic"
modprobe -q virtio_rng 2>/dev/null
# The console is a serial line: no CR before each LF in what the host logs.
stty -onlcr 2>/dev/null

echo "== vm: kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB, booted in $(cut -d' ' -f1 /proc/uptime) s"
. "$here/cmd.sh"
sync
reboot -f
sleep 10
