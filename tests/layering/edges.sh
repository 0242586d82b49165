#!/bin/sh
# The file-level call graph of a set of object files, from nm: one line
# "user.o symbol definer.o" for every undefined symbol of an object that
# another object of the set defines.
set -e
for o in "$@"; do
	nm -P --defined-only "$o" | awk -v f="$o" '$2 ~ /^[TDBRVWtdbr]$/ && $2 ~ /[A-Z]/ {print "D", $1, f}'
	nm -P --undefined-only "$o" | awk -v f="$o" '{print "U", $1, f}'
done | awk '$1 == "D" {def[$2] = $3; next} {use[++n] = $3 " " $2}
	END {for (i = 1; i <= n; i++) {split(use[i], a, " "); if (a[2] in def && def[a[2]] != a[1]) print a[1], a[2], def[a[2]]}}'
