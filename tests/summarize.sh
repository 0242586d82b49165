#!/bin/sh
# Print every failure and the closing line "N passed, N failed" of a results
# file written by the test programs (one "PASS ..." or "FAIL ..." per line).
# Exit status 1 when anything failed or nothing ran.
f=$1
[ -f "$f" ] || { echo "0 passed, 1 failed"; echo "no test results in $f" >&2; exit 1; }
grep '^FAIL' "$f"
p=$(grep -c '^PASS' "$f")
n=$(grep -c '^FAIL' "$f")
echo "$p passed, $n failed"
[ "$n" -eq 0 ] && [ "$p" -gt 0 ]
