#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Static timing estimate of the synthesized netlists (make synth writes them)
# for both parts with OpenSTA and a generated library of the Xilinx
# primitives (docs/timing.md: the delay model, its sources and its limits).
#   hw/timing.sh STA SYNTH_DIR
# Prints per part
#   TIMING <part> est_ns=<worst reg-to-reg path> levels=<logic levels> path=<from> -> <to>
# then the worst path inside each module, writes the worst path in full to
# SYNTH_DIR/<part>.path.txt and fails when a part is over its budget.
set -e
sta=$1
case $sta in */*) sta=$(cd "$(dirname "$sta")" && pwd)/$(basename "$sta") ;; esac
dir=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")/timing" && pwd)
status=0
parts=${VTA_PARTS:-xc7z020 xczu3eg}  # VTA_PARTS=xczu3eg: one part only (half the time)
# part family budget (ns): xc7z020 -1 at 100 MHz with margin, xczu3eg -1 at 187.5 MHz
for spec in "xc7z020 xc7 8.0" "xczu3eg xcup 4.8"; do
	set -- $spec
	part=$1 fam=$2 budget=$3
	case " $parts " in *" $part "*) ;; *) continue ;; esac
	for f in "$dir/$part.sta.v" "$dir/$part.cells.v"; do
		[ -f "$f" ] || { echo "timing: $f missing (run make synth)"; exit 1; }
	done
	awk -v types="$dir/$part.types" -f "$here/netprep.awk" "$dir/$part.sta.v" > "$dir/$part.net.v"
	awk -v family="$fam" -f "$here/libgen.awk" "$dir/$part.cells.v" "$dir/$part.types" > "$dir/$part.lib" || {
		echo "timing: no library for $part (see above)"; exit 1; }
	# from the netlist's folder: OpenSTA writes its command history (.history_sta) where it runs
	(cd "$dir" && STA_LIB="$dir/$part.lib" STA_NET="$dir/$part.net.v" STA_PERIOD="$budget" \
		STA_TOP="${VTA_TOP:-vta_top}" STA_REPORT="$dir/$part.path.txt" \
		"$sta" -no_splash -exit "$here/sta.tcl") > "$dir/$part.sta.log" 2>&1 || {
		tail -20 "$dir/$part.sta.log"; echo "timing: OpenSTA failed for $part"; exit 1; }
	awk -v part="$part" -v budget="$budget" '
		$1 == "ERROR" { sub(/^ERROR /, ""); err = $0 }
		$1 == "WORST" { est = $2; printf "TIMING %s est_ns=%.2f levels=%d path=%s -> %s\n", part, $2, $3, $4, $5 }
		$1 == "MODULE" { m[++n] = sprintf("  %-20s %7.2f %6d  %s -> %s", $2, $3, $4, $5, $6) }
		END {
			if (est == "") { print "timing: " (err != "" ? err : "no path found") " for " part; exit 1 }
			printf "timing: %s worst path inside each module:\n  %-20s %7s %6s  %s\n", part, "module", "est_ns", "levels", "from -> to"
			for (i = 1; i <= n; i++) print m[i]
			if (est + 0 > budget + 0) {
				printf "timing: %s: %.2f ns is over the %.1f ns budget\n", part, est, budget
				exit 1
			}
		}' "$dir/$part.sta.log" || status=1
done
exit $status
