#!/bin/sh
# Run one libFuzzer target.
#
#   run.sh time SECONDS NAME BIN WORK
#       fuzz for SECONDS (restarting after each crash) with the corpus
#       WORK/corpus/NAME (kept between runs) and the seeds; crashing inputs go to
#       WORK/crashes/NAME/. Prints: FUZZ <name> execs=<n> crashes=<n>, then
#       a line with the time, the rate and where crashing inputs are.
#   run.sh test RUNS NAME BIN WORK RESULTS
#       RUNS executions from the seeds with a fixed seed, then every regression
#       input of tests/fuzz/regress/NAME/ once; appends PASS/FAIL lines to RESULTS.
#
# Seeds: tests/fuzz/corpus/NAME/ and WORK/seeds/NAME/ (tests/fuzz/seeds.sh);
# a dictionary tests/fuzz/NAME.dict is used when present.
set -u
mode=$1 amount=$2 name=$3 bin=$4 work=$5
here=$(dirname "$0")
seeds=
for d in "$here/corpus/$name" "$work/seeds/$name"; do
	[ -d "$d" ] && [ -n "$(ls -A "$d" 2>/dev/null)" ] && seeds="$seeds $d"
done
dict=
[ -f "$here/$name.dict" ] && dict="-dict=$here/$name.dict"
# A reader must answer quickly and in bounded memory: slower than 10 s or
# above 2 GiB is a failure like a crash.
limits="-timeout=10 -rss_limit_mb=2048"
log=$work/logs/$name.log
mkdir -p "$work/logs"

if [ ! -x "$bin" ]; then
	if [ "$mode" = test ]; then
		echo "FAIL fuzz/$name: $bin was not built" >> "$6"
	else
		echo "FUZZ $name execs=0 crashes=0"
		echo "  $name: not built ($bin)"
	fi
	exit 0
fi

if [ "$mode" = time ]; then
	corpus=$work/corpus/$name crashes=$work/crashes/$name
	mkdir -p "$corpus" "$crashes"
	start=$(date +%s) execs=0 ncrash=0
	while :; do
		left=$((start + amount - $(date +%s)))
		[ "$left" -gt 0 ] || break
		before=$(ls "$crashes" | wc -l)
		"$bin" -max_total_time="$left" -print_final_stats=1 $limits $dict \
			-artifact_prefix="$crashes/" "$corpus" $seeds > "$log" 2>&1
		rc=$?
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
		execs=$((execs + ${n:-0}))
		after=$(ls "$crashes" | wc -l)
		if [ "$rc" -ne 0 ]; then
			ncrash=$((ncrash + 1))
			# A crash without a new artifact (e.g. in startup) would loop forever.
			[ "$after" -gt "$before" ] || { tail -30 "$log"; break; }
			cp "$log" "$crashes/log-$ncrash.txt"
		fi
	done
	secs=$(($(date +%s) - start))
	[ "$secs" -gt 0 ] || secs=1
	echo "FUZZ $name execs=$execs crashes=$ncrash"
	echo "  $name: ${secs} s, $((execs / secs)) execs/s; crashing inputs in $crashes"
	exit 0
fi

# test mode
results=$6
tmp=$work/test-corpus/$name
rm -rf "$tmp" && mkdir -p "$tmp"
if "$bin" -runs="$amount" -seed=1 $limits $dict -artifact_prefix="$work/test-crash-$name-" \
	"$tmp" $seeds > "$log" 2>&1; then
	echo "PASS fuzz/$name ($amount runs from the seeds)" >> "$results"
else
	tail -40 "$log"
	echo "FAIL fuzz/$name: a crash within $amount runs (log $log, input $work/test-crash-$name-*)" >> "$results"
fi
reg=$here/regress/$name
if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
	count=$(ls "$reg" | wc -l)
	if "$bin" $limits "$reg"/* > "$log.regress" 2>&1; then
		echo "PASS fuzz/$name/regress ($count inputs replayed)" >> "$results"
	else
		tail -40 "$log.regress"
		echo "FAIL fuzz/$name/regress: a regression input fails again (log $log.regress)" >> "$results"
	fi
fi
exit 0
