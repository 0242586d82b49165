#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Out-of-context Yosys synthesis of vta_top for the two Zynq parts, with a
# capacity check (Yosys knows no device sizes).
#   hw/synth.sh YOSYS GEN_DIR OUT_DIR hw/*.v
# Prints "SYNTH <part> LUT=<n> FF=<n> BRAM36=<n> DSP=<n>" per part and fails
# when a part does not fit. The GEMM array packs two int8 products per DSP
# (docs/rtl.md), so one netlist fits both parts. Also writes, per part, the
# netlist that `make timing` analyses (docs/timing.md): <part>.sta.v, flat,
# with every alias a VTA_WIRE cell and every constant a VTA_TIE0/1 cell
# (OpenSTA reads no "assign"), and <part>.cells.v, the primitives' ports.
set -e
yosys=$1; gen=$2; out=$3; shift 3
top=${VTA_TOP:-vta_top}  # another top: the flow check of make test (tests/timing)
status=0
parts=${VTA_PARTS:-xc7z020 xczu3eg}  # VTA_PARTS=xczu3eg: one part only (half the time)
# part family LUT FF BRAM36 DSP
for spec in "xc7z020 xc7 53200 106400 140 220" "xczu3eg xcup 70560 141120 216 360"; do
	set -- $spec "$@"
	part=$1 fam=$2 maxlut=$3 maxff=$4 maxbram=$5 maxdsp=$6
	shift 6
	case " $parts " in *" $part "*) ;; *) continue ;; esac
	log=$out/$part.log
	t0=$(date +%s)
	# -q: only warnings/errors on the terminal; they are in the log too
	$yosys -q -l "$log" -p "read_verilog -I$gen $*; \
		synth_xilinx -family $fam -top $top -noiopad; \
		tee -q -o $out/$part.stat.json stat -json -tech xilinx; \
		write_verilog -blackboxes $out/$part.cells.v; \
		flatten; opt_clean -purge; insbuf -buf VTA_WIRE I O; \
		hilomap -hicell VTA_TIE1 O -locell VTA_TIE0 O; opt_clean -purge; autoname; \
		write_verilog -noattr -noexpr $out/$part.sta.v" >/dev/null 2>&1 || {
		echo "synth: yosys failed for $part (see $log)"; exit 1; }
	secs=$(( $(date +%s) - t0 ))
	awk -v part="$part" -v secs="$secs" -v ml="$maxlut" -v mf="$maxff" -v mb="$maxbram" -v md="$maxdsp" '
		/"design": *\{/ { indesign = 1 }  # the hierarchy total, after the per-module blocks
		indesign && /"num_cells_by_type"/ { inb = 1; next }
		inb && /}/ { inb = 0 }
		inb {
			sub(/^\[[0-9.]*\]/, "")  # a yosys -t time stamp
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
			printf "synth: %s took %d s\n", part, secs
			bad = 0
			if (lut == 0 || ff == 0) { print "synth: no cell counts for " part " (see the log)"; bad = 1 }
			if (lut > ml) { print "synth: " part " needs " lut " LUTs, has " ml; bad = 1 }
			if (ff > mf) { print "synth: " part " needs " ff " FFs, has " mf; bad = 1 }
			if (bram > mb) { print "synth: " part " needs " bram " BRAM36, has " mb; bad = 1 }
			if (dsp > md) { print "synth: " part " needs " dsp " DSPs, has " md; bad = 1 }
			exit bad
		}' "$out/$part.stat.json" || status=1
done
exit $status
