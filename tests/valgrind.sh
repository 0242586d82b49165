#!/bin/sh
# The vta command's main commands under valgrind (make test-valgrind, part of
# make test): each must exit with its expected status and without a memory
# error or a definite/indirect leak (valgrind --error-exitcode).
#
#   tests/valgrind.sh VTA BITGEN GENDIR WORKDIR RESULTS
#
# GENDIR holds the generated vta_regmap.h (the CONFIG_ID register's offset).
#
# Covers config, info, asm, disasm, sim (text, image, a refused image), flash
# (--info, a load into a fake fpga_manager tree, a refused part), compile and
# run of MNIST (when ../shared has it), and a refused assembly file.
set -u
vta=$1 bitgen=$2 gen=$3 work=$4 results=$5
vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
shared=../shared
rm -rf "$work" && mkdir -p "$work"

# run NAME WANT CMD...: WANT is the exit status the command must give.
run() {
	name=$1 want=$2
	shift 2
	$vg "$@" > "$work/$name.out" 2> "$work/$name.err"
	rc=$?
	if [ "$rc" -eq 99 ]; then
		echo "FAIL valgrind/$name: memory errors or leaks ($work/$name.err)" >> "$results"
		head -30 "$work/$name.err"
	elif [ "$rc" -ne "$want" ]; then
		echo "FAIL valgrind/$name: exit status $rc, expected $want ($work/$name.err)" >> "$results"
		tail -5 "$work/$name.err"
	else
		echo "PASS valgrind/$name" >> "$results"
	fi
}

run config 0 "$vta" config
run info 0 "$vta" info
run asm 0 "$vta" asm examples/gemm.s -o "$work/gemm.bin"
run disasm 0 "$vta" disasm "$work/gemm.bin"
run sim-text 0 "$vta" sim examples/gemm.s
run sim-image 0 "$vta" sim "$work/gemm.bin"
run sim-refused 1 "$vta" sim tests/fuzz/regress/program/segment-end-wraps
printf 'finish\nload inp x=70000\n' > "$work/bad.s"
run asm-refused 1 "$vta" asm "$work/bad.s" -o "$work/bad.bin"

# vta flash on the synthetic bitstreams, into a fake fpga_manager tree whose
# dev/mem holds this build's CONFIG_ID in the PYNQ-Z1's CONFIG_ID register.
(cd "$work" && "$bitgen" > /dev/null)
root=$work/root
mkdir -p "$root/sys/class/fpga_manager/fpga0" "$root/lib/firmware" "$root/dev"
: > "$root/sys/class/fpga_manager/fpga0/firmware"
: > "$root/sys/class/fpga_manager/fpga0/flags"
echo operating > "$root/sys/class/fpga_manager/fpga0/state"
base=$(awk '$1 == "BOARD" && $2 == "pynq-z1" {print $7}' boards/boards.txt)
off=$(sed -n 's/#define VTA_REG_CONFIG_ID \(0x[0-9A-Fa-f]*\).*/\1/p' "$gen/vta_regmap.h")
id=$("$vta" config | sed -n 's/.*(id 0x\([0-9A-F]*\)).*/\1/p')
b0=${id#??????} b1=${id#????} b1=${b1%??} b2=${id#??} b2=${b2%????} b3=${id%??????}
printf "\\$(printf %o 0x$b0)\\$(printf %o 0x$b1)\\$(printf %o 0x$b2)\\$(printf %o 0x$b3)" |
	dd of="$root/dev/mem" bs=1 seek=$((base + off)) conv=notrunc 2> /dev/null
run flash-info 0 "$vta" flash --info "$work/vta-pynq-z1.bit"
run flash-load 0 "$vta" flash --board pynq-z1 --root "$root" "$work/vta-pynq-z1.bit"
run flash-wrong-part 1 "$vta" flash --board pynq-z1 --root "$root" "$work/vta-ultra96v2.bit"

if [ -f $shared/models/mnist-8.onnx ] && [ -f $shared/data/mnist-10k-images-idx3-ubyte ]; then
	run compile 0 "$vta" compile $shared/models/mnist-8.onnx -o "$work/mnist.vtam" \
		--calib=$shared/data/mnist-10k-images-idx3-ubyte --calib-count=4
	run run 0 "$vta" run "$work/mnist.vtam" --target=fsim \
		--dataset=$shared/data/mnist-10k-images-idx3-ubyte \
		--labels=$shared/data/mnist-10k-labels-idx1-ubyte --count=4
else
	echo "FAIL valgrind/compile: $shared/models/mnist-8.onnx or the MNIST images are missing" >> "$results"
fi
exit 0
