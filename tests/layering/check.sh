#!/bin/sh
# The layering check: from the object files' defined and undefined symbols
# (nm), every call between two files of the table (layers.txt) goes to the
# same layer or to one the caller's layer may call, and the files' call
# graph has no circle. Prints each violation with the symbol; exit 1 if any.
#
# usage: check.sh LAYERS OBJDIR OBJECT...
set -e
layers=$1 objdir=$2
shift 2
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Each object's layer: the first line whose source globs name its source.
for o in "$@"; do
	src=${o#"$objdir"/}
	src=${src%.o}.c
	layer=$(awk -v s="$src" '
		function glob2re(g) { gsub(/\./, "\\.", g); gsub(/\*/, "[^/]*", g); return "^" g "$" }
		/^#/ || NF == 0 { next }
		{ for (i = 2; i <= NF && $i != ":"; i++) if (s ~ glob2re($i)) { print $1; exit } }' "$layers")
	if [ -z "$layer" ]; then
		echo "layering: $src is in no layer of $layers"
		exit 1
	fi
	echo "$o $src $layer"
done > "$tmp/files"

sh "$here/edges.sh" "$@" > "$tmp/edges"

status=0
# Calls to a layer the caller's layer may not call.
awk -v layers="$layers" '
	BEGIN {
		while ((getline line < layers) > 0) {
			if (line ~ /^#/ || line !~ /[^ \t]/) continue
			n = split(line, f, /[ \t]+/); name = f[1]; after = 0
			for (i = 2; i <= n; i++) { if (f[i] == ":") after = 1; else if (after) ok[name, f[i]] = 1 }
		}
	}
	FILENAME == ARGV[1] { src[$1] = $2; lay[$1] = $3; next }
	{
		a = lay[$1]; b = lay[$3]
		if (a != b && !ok[a, b]) { printf "layering: %s (%s) calls %s in %s (%s), which %s may not call\n", src[$1], a, $2, src[$3], b, a; bad = 1 }
	}
	END { exit bad }' "$tmp/files" "$tmp/edges" || status=1

# Circles among files: tsort names the files of each one.
awk '{print $1, $3}' "$tmp/edges" | sort -u > "$tmp/pairs"
if ! tsort "$tmp/pairs" > /dev/null 2> "$tmp/loops"; then
	echo "layering: files that call each other (a circle):"
	grep -v "input contains a loop" "$tmp/loops" | sed "s|$objdir/||; s|^tsort: |  |; s|\.o$|.c|"
	status=1
fi
exit $status
