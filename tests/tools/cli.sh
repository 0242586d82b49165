#!/bin/sh
# The vta command table: `vta help` lists every command, each answers
# `vta help CMD` and `vta CMD --help` with its own usage, misuse and unknown
# commands exit 2, and a Darknet cfg is recognized by its contents.
# usage: cli.sh VTA_BINARY RESULTS_FILE
vta=$1 results=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS cli/$1" >> "$results"; }
fail() { echo "FAIL cli/$1: $2" >> "$results"; }

commands="asm disasm sim config info flash compile opt run profile"
if "$vta" help > "$tmp/help" 2>&1; then
	missing=
	for c in $commands help; do grep -q "^  $c\b" "$tmp/help" || missing="$missing $c"; done
	[ -z "$missing" ] && pass help-lists-every-command || fail help-lists-every-command "not listed:$missing"
else
	fail help-lists-every-command "vta help exited with status $?"
fi

for c in $commands; do
	ok=1
	"$vta" help "$c" > "$tmp/h1" 2>&1 || ok=0
	"$vta" "$c" --help > "$tmp/h2" 2>&1 || ok=0
	head -1 "$tmp/h1" | grep -q "^usage: vta $c\b" || ok=0
	cmp -s "$tmp/h1" "$tmp/h2" || ok=0
	[ $ok = 1 ] && pass "usage/$c" || fail "usage/$c" "vta help $c and vta $c --help do not both print 'usage: vta $c'"
done

"$vta" nope > "$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'unknown command "nope"' "$tmp/out" && pass unknown-command ||
	fail unknown-command "status $rc, or no 'unknown command' message"

"$vta" asm > "$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && head -1 "$tmp/out" | grep -q "^usage: vta asm" && pass misuse-shows-usage ||
	fail misuse-shows-usage "vta asm without arguments: status $rc, not its usage"

# A Darknet cfg under another name is still a Darknet cfg: the Darknet
# options are asked for, not an ONNX parse error.
printf '# a network\n[net]\nwidth=32\nheight=32\nchannels=3\n' > "$tmp/model"
"$vta" compile "$tmp/model" --calib=synthetic -o "$tmp/m.vtam" > "$tmp/out" 2>&1
grep -q -- "--synthetic-weights" "$tmp/out" && pass format-darknet-by-contents ||
	fail format-darknet-by-contents "$(head -1 "$tmp/out")"
exit 0
