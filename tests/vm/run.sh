#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/vm/run.sh [--systemd] CMD
# Boots Debian's stock kernel under qemu with cgroup v2 alone and runs CMD
# as root in this checkout's directory inside it (see tests/vm/README.md);
# CMD runs in the current directory (make runs this from the checkout's
# top), which may be another checkout than the one holding this script:
#   cd /work/wt/other && make all && /work/wt/vm/tests/vm/run.sh 'build/gaol-fcgi --check'
# prints the guest's console and exits with CMD's exit status (125 when the
# guest gave none: it failed to boot, crashed, or the guard timeout hit).
#
# Environment: BUILD (default build), GAOL_VM_ACCEL (tcg, the default, or
# kvm), GAOL_VM_MEM (MiB, default 3072), GAOL_VM_CPUS (default 2),
# GAOL_VM_TIMEOUT (seconds for the whole VM, default 1800), GAOL_VM_LANGS
# (the languages the guest's langs/ keeps, default "python c js"; "all"
# keeps every one).  The others are hidden from the guest by overlayfs
# whiteouts (tests/vm/init), not deleted: under TCG, gaol's start-up
# probes of 19 toolchains side by side (JVMs, .NET) outlast its 10 s
# per-probe timeout, and every stack a test starts would pay for them.
set -eu
mode=plain
if [ "${1:-}" = --systemd ]; then mode=systemd; shift; fi
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 [--systemd] CMD" >&2; exit 2; }
cmd=$1
vmdir=$(cd "$(dirname "$0")" && pwd)
repo=$(pwd)
# A checkout under /tmp or /run (a CI's fresh clone, say) would be hidden
# by the guest's own tmpfs there: the plain guest keeps it over them at the
# same path (gaol.keep=, tests/vm/guest.sh); systemd mounts its own /run
# and /tmp, so --systemd needs a checkout elsewhere.
keepdir=
case "$repo/" in
  /dev/*|/proc/*|/sys/*) echo "vm: $repo is hidden in the guest" >&2; exit 2 ;;
  /tmp/*|/run/*)
    [ "$mode" = plain ] || { echo "vm: --systemd needs a checkout outside /tmp and /run (the guest's own)" >&2; exit 2; }
    case "$repo" in *[[:space:]]*) echo "vm: $repo: a path with blanks cannot be passed to the guest" >&2; exit 2 ;; esac
    keepdir=$repo ;;
esac
build=${BUILD:-build}
case "$build" in /*) ;; *) build=$repo/$build ;; esac
accel=${GAOL_VM_ACCEL:-tcg}
mem=${GAOL_VM_MEM:-3072}
cpus=${GAOL_VM_CPUS:-2}
limit=${GAOL_VM_TIMEOUT:-1800}

# Debian's linux-image-amd64: the newest /boot/vmlinuz-*-amd64.
kernel=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || { echo "vm: no /boot/vmlinuz-*-amd64 (apt-get install linux-image-amd64)" >&2; exit 2; }
kver=${kernel#/boot/vmlinuz-}
[ -d "/lib/modules/$kver" ] || { echo "vm: no /lib/modules/$kver" >&2; exit 2; }

# The initramfs, rebuilt when the kernel, busybox or stage 1 changes.
mkdir -p "$build/vm"
initrd=$build/vm/initrd-$kver.gz
if [ ! -s "$initrd" ] || [ "$vmdir/init" -nt "$initrd" ] || \
   [ "$vmdir/mkinitrd.sh" -nt "$initrd" ] || [ /bin/busybox -nt "$initrd" ] || \
   [ "/lib/modules/$kver/modules.dep" -nt "$initrd" ]; then
  "$vmdir/mkinitrd.sh" "$kver" "$initrd"
fi

# The run directory, shared writable with the guest (tag "out"): the
# command, the console's log, the exit status.  Older ones (2 hours) go.
find "$build/vm" -maxdepth 1 -name 'run.*' -mmin +120 -exec rm -rf {} + 2>/dev/null || true
run=$(mktemp -d "$build/vm/run.XXXXXX")
ln -sfn "$(basename "$run")" "$build/vm/last"
printf '%s\n' "$cmd" > "$run/cmd-line"
{ printf "cd '%s' || exit 125\n" "$repo"
  [ -n "${BUILD:-}" ] && printf "export BUILD='%s'\n" "$BUILD"
  printf '%s\n' "$cmd"; } > "$run/cmd"

# The languages hidden from the guest (see GAOL_VM_LANGS above).
keep=${GAOL_VM_LANGS:-python c js}
hide=
if [ "$keep" != all ] && [ -d "$repo/langs" ]; then
  for s in $keep; do
    [ -f "$repo/langs/$s/lang.json" ] || { echo "vm: GAOL_VM_LANGS: no langs/$s" >&2; exit 2; }
  done
  for d in "$repo"/langs/*/lang.json; do
    s=$(basename "$(dirname "$d")")
    case " $keep " in *" $s "*) ;; *) hide="$hide $s" ;; esac
  done
fi
hide=${hide# }
# The host's version and build for the guest's make (the Makefile's ?=):
# git inside sees the hidden languages as deleted files, a dirty tree,
# and make all would rebuild with another version.
stamp=$build/version.stamp
gv=$(sed -n 's/.*-DGAOL_VERSION=\([^ ]*\).*/\1/p' "$stamp" 2>/dev/null || :)
gb=$(sed -n 's/.*-DGAOL_BUILD=\([^ ]*\).*/\1/p' "$stamp" 2>/dev/null || :)
{ [ -n "$hide" ] && printf "export GAOL_VM_LANGS='%s' GAOL_VM_LANGS_HIDDEN='%s'\n" "$keep" "$hide"
  [ -n "$gv" ] && [ -n "$gb" ] && printf "export GAOL_VERSION='%s' GAOL_BUILD='%s'\n" "$gv" "$gb"
  cat "$run/cmd"; } > "$run/cmd.tmp" && mv "$run/cmd.tmp" "$run/cmd"

case "$accel" in
  kvm) accel_opts="-accel kvm -cpu host" ;;
  tcg) accel_opts="-accel tcg,thread=multi -cpu max" ;;
  *) echo "vm: GAOL_VM_ACCEL is tcg or kvm" >&2; exit 2 ;;
esac
# psi=1: Debian's kernel builds PSI in but leaves it off; the judging
# deadlines read the run leaf's cpu.pressure where it exists (tests/vm/README.md).
append="console=ttyS0 quiet panic=-1 cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1 psi=1"
append="$append gaol.stage2=$vmdir/guest.sh gaol.mode=$mode"
[ -n "$hide" ] && append="$append gaol.hide=$repo/langs:$(echo "$hide" | tr ' ' ,)"
[ -n "$keepdir" ] && append="$append gaol.keep=$keepdir"

qpid=
cleanup() {
  [ -n "$qpid" ] && kill "$qpid" 2>/dev/null && wait "$qpid" 2>/dev/null
  qpid=
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM HUP
start=$(date +%s)
# shellcheck disable=SC2086
timeout -k 10 "$limit" qemu-system-x86_64 $accel_opts -m "$mem" -smp "$cpus" \
  -nodefaults -no-user-config -display none -no-reboot \
  -chardev "stdio,id=con,signal=off,logfile=$run/console.log" -serial chardev:con \
  -kernel "$kernel" -initrd "$initrd" -append "$append" \
  -device virtio-rng-pci \
  -netdev user,id=net0,restrict=on -device virtio-net-pci,netdev=net0 \
  -fsdev local,id=host,path=/,security_model=none,readonly=on,multidevs=remap \
  -device virtio-9p-pci,fsdev=host,mount_tag=host \
  -fsdev "local,id=out,path=$run,security_model=none" \
  -device virtio-9p-pci,fsdev=out,mount_tag=out \
  </dev/null &
qpid=$!
wait "$qpid" || true
qpid=
secs=$(( $(date +%s) - start ))
if [ -s "$run/status" ]; then
  status=$(cat "$run/status")
  echo "== vm: $mode, $accel, ${secs} s${hide:+, langs hidden: $hide}; exit status $status (log: $run/console.log)"
  exit "$status"
fi
echo "== vm: $mode, $accel, ${secs} s; the guest gave no exit status (crashed, or the ${limit} s guard hit); log: $run/console.log" >&2
exit 125
