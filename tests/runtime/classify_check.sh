#!/bin/sh
# examples/classify (built against the installed libvta) against `vta run
# --simulate` (the compiler's host reference of every kernel and host op) on
# the same model and images: the same top-1 class and probability (4 decimals) for each image.
#   classify_check.sh VTA CLASSIFY MODEL LABELS IMAGE...   (VTA_TARGET chooses classify's target)
set -e
vta=$1 classify=$2 model=$3 labels=$4
shift 4
"$classify" "$model" --labels="$labels" "$@" > "$model.classify.txt"
for img in "$@"; do
	got=$(grep "^$img: top-1 " "$model.classify.txt" | awk '{print $3, $4, $5}')
	want=$("$vta" run "$model" --simulate --input="$img" --labels="$labels" --top=1 --json |
		sed -n 's/.*"index": \([0-9]*\), "label": "\([^"]*\)", "prob": \([0-9.e-]*\).*/\1 \2 \3/p' |
		awk '{printf "%s %s %.4f\n", $1, $2, $3}')
	if [ -z "$got" ] || [ "$got" != "$want" ]; then
		echo "classify_check: $img: classify says '$got', vta run --simulate says '$want'"
		exit 1
	fi
	echo "classify_check: $img: $got (VTA_TARGET=${VTA_TARGET:-default}, as vta run --simulate)"
done
