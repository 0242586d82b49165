#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Out-of-context Yosys synthesis of vta_top for the two Zynq parts, with a
# capacity check (Yosys knows no device sizes).
#   hw/synth.sh YOSYS GEN_DIR OUT_DIR hw/*.v
# Prints "SYNTH <part> LUT=<n> FF=<n> BRAM36=<n> DSP=<n>" per part and fails
# when a part does not fit. On xc7z020 LUT_MULTS GEMM multipliers are built
# from LUTs (docs/rtl.md: 256 int8 products + 16 ALU 32x32 products exceed
# its 220 DSP48E1).
set -e
yosys=$1; gen=$2; out=$3; shift 3
status=0
# part family lut_mults LUT FF BRAM36 DSP
for spec in "xc7z020 xc7 128 53200 106400 140 220" "xczu3eg xcup 0 70560 141120 216 360"; do
	set -- $spec "$@"
	part=$1 fam=$2 lm=$3 maxlut=$4 maxff=$5 maxbram=$6 maxdsp=$7
	shift 7
	log=$out/$part.log
	$yosys -q -l "$log" -p "read_verilog -I$gen $*; chparam -set LutMults $lm vta_top; \
		synth_xilinx -family $fam -top vta_top -noiopad; \
		tee -q -o $out/$part.stat.json stat -json -tech xilinx" >/dev/null || {
		echo "synth: yosys failed for $part (see $log)"; exit 1; }
	awk -v part="$part" -v ml="$maxlut" -v mf="$maxff" -v mb="$maxbram" -v md="$maxdsp" '
		/"num_cells_by_type"/ { inb = 1; next }
		inb && /}/ { inb = 0 }
		inb {
			gsub(/[",:]/, " "); n = $2 + 0; t = $1
			if (t ~ /^LUT[1-6]$/) lut += n
			else if (t ~ /^FD/) ff += n
			else if (t ~ /^RAMB36/) b36 += n
			else if (t ~ /^RAMB18/) b18 += n
			else if (t ~ /^DSP48/) dsp += n
			else if (t ~ /^(SRL|RAM[0-9]+[SMDX])/) lut += n  # LUT-RAM / SRL use LUTs
		}
		END {
			bram = b36 + b18 / 2
			printf "SYNTH %s LUT=%d FF=%d BRAM36=%g DSP=%d\n", part, lut, ff, bram, dsp
			bad = 0
			if (lut > ml) { print "synth: " part " needs " lut " LUTs, has " ml; bad = 1 }
			if (ff > mf) { print "synth: " part " needs " ff " FFs, has " mf; bad = 1 }
			if (bram > mb) { print "synth: " part " needs " bram " BRAM36, has " mb; bad = 1 }
			if (dsp > md) { print "synth: " part " needs " dsp " DSPs, has " md; bad = 1 }
			exit bad
		}' "$out/$part.stat.json" || status=1
done
exit $status
