#!/bin/sh
# `vta info zynq` on a fake board: a UIO register file whose CONFIG_ID is
# this build's, and a u-dma-buf region, under a directory given to the tool
# as VTA_SYSFS_ROOT. Checks that the board's open path reports the region
# (non-coherent: synced around every run, from boards/boards.txt), and that
# a second process is refused while another holds the region, naming it.
# usage: fake_board.sh VTA_BINARY RESULTS_FILE
set -u
vta=$1 results=$2
root=$(mktemp -d "${TMPDIR:-/tmp}/vta-fake-board-XXXXXX") || exit 1
trap 'rm -rf "$root"' EXIT
u=$root/sys/class/u-dma-buf/udmabuf0
mkdir -p "$u" "$root/sys/class/uio/uio0" "$root/dev"
echo 0x10000000 > "$u/phys_addr"
echo 16777216 > "$u/size"
for a in sync_offset sync_size sync_direction sync_for_cpu sync_for_device; do : > "$u/$a"; done
echo vta > "$root/sys/class/uio/uio0/name"
truncate -s 16M "$root/dev/udmabuf0"
truncate -s 64K "$root/dev/uio0"
id=$("$vta" info fsim | sed -n 's/^library configuration: .* (ID 0x\([0-9A-Fa-f]*\)).*/\1/p')
# little-endian bytes, as octal escapes (the shell's printf has no \x)
le=
for b in $(echo "$id" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4 \3 \2 \1/'); do
	le="$le\\$(printf %o "0x$b")"
done
printf "$le" | dd of="$root/dev/uio0" bs=1 seek=16384 conv=notrunc 2>/dev/null

pass() { echo "PASS fake-board/$1" >> "$results"; }
fail() { echo "FAIL fake-board/$1" >> "$results"; }

out=$(VTA_SYSFS_ROOT=$root "$vta" info zynq 2>&1)
if echo "$out" | grep -q "device: zynq (board registers, u-dma-buf udmabuf0 (16 MiB at 0x10000000, cached, synced around every run))" &&
   echo "$out" | grep -q "needs cache maintenance"; then
	pass "vta-info-zynq (u-dma-buf region found, not coherent)"
else
	fail "vta-info-zynq: $(echo "$out" | tr '\n' ' ')"
fi

out=$("$vta" info fsim 2>&1)
if echo "$out" | grep -q "^  xrt   unavailable: .*XRT"; then
	pass "vta-info-xrt (says why XRT is unavailable here)"
else
	fail "vta-info-xrt: $(echo "$out" | grep xrt)"
fi

out=$(flock -x "$root/dev/udmabuf0" sh -c "VTA_SYSFS_ROOT='$root' '$vta' info zynq" 2>&1)
if echo "$out" | grep -q "udmabuf0 is in use by process [0-9]* (flock)"; then
	pass "device-lock (a second process is refused, naming the holder)"
else
	fail "device-lock: $(echo "$out" | tr '\n' ' ')"
fi
