#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/vm/mkinitrd.sh KERNEL_VERSION OUT.cpio.gz
# The guest's initramfs: busybox-static, tests/vm/init as /init, and the
# modules that mounting the root needs (virtio-pci, 9p over virtio,
# overlayfs), each module's dependencies first, in the order modprobe
# would load them (`modprobe --show-depends`), listed in /modules.
# Everything else the guest loads later with modprobe, from the host's
# /lib/modules, which the guest sees through the 9p root.
set -eu
kver=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/gaol-vm-initrd.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/lower" "$tmp/rw" "$tmp/newroot" "$tmp/mod"
mknod -m 0600 "$tmp/dev/console" c 5 1
cp /bin/busybox "$tmp/bin/busybox"
cp "$here/init" "$tmp/init"
chmod 0755 "$tmp/init"
: > "$tmp/modules"
for m in virtio_pci 9pnet_virtio 9p overlay; do
  modprobe -S "$kver" --show-depends "$m" | while read -r verb path _; do
    [ "$verb" = insmod ] || continue
    name=$(basename "$path")
    grep -qx "$name" "$tmp/modules" && continue
    case "$path" in
      *.xz)  xz -dc "$path" > "$tmp/mod/${name%.xz}"; name=${name%.xz} ;;
      *.zst) zstd -qdc "$path" > "$tmp/mod/${name%.zst}"; name=${name%.zst} ;;
      *)     cp "$path" "$tmp/mod/$name" ;;
    esac
    grep -qx "$name" "$tmp/modules" || echo "$name" >> "$tmp/modules"
  done
done
[ -s "$tmp/modules" ] || { echo "mkinitrd: no modules for $kver" >&2; exit 1; }
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
