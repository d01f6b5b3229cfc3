#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of `thp trace` (root):
# 1. Event flood at set rates (bench/storm: MADV_COLLAPSE over memory that is
#    already huge, one huge_memory:mm_khugepaged_scan_pmd event per PMD, nothing
#    changed): events per second thp reads, events the kernel lost, thp's CPU
#    time, and the cost per event seen by the flooding thread, traced vs not.
# 2. A compaction storm: memory with holes, then writers of
#    /proc/sys/vm/compact_memory in a loop: events read and lost, and how long
#    each write (the stalled thread) takes, traced vs not.
set -u
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
STORM=${STORM:-build/bench/storm}
HOG=${HOG:-build/tests/hog}
SECS=3
tmp=$(mktemp -d)
hogpid=
cleanup() {
	[ -n "$hogpid" ] && kill "$hogpid" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

if [ "$(id -u)" != 0 ]; then
	echo "bench/trace.sh: skipped: needs root"
	exit 0
fi
huge=$("$STORM" 64 0 0 | awk '/^huge/ {print $2}')
if [ "${huge:-0}" -lt 16 ]; then
	echo "bench/trace.sh: skipped: the flood needs THP and MADV_COLLAPSE (Linux 6.1+); got $huge huge PMDs of 32"
	exit 0
fi

# traced CMD...: runs CMD while `thp trace` records; leaves $tmp/t.json and
# $tmp/cpu (thp's user+sys seconds)
traced() {
	bash -c '"$0" trace -d "$1" --json > "$2/t.json" 2> "$2/t.err"; times > "$2/times"' \
		"$THP" $((SECS + 2)) "$tmp" &
	local tp=$!
	while ! grep -q '^Tracing' "$tmp/t.err" 2> /dev/null; do sleep 0.05; done
	sleep 0.3
	"$@"
	wait "$tp"
	awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$tmp/times" > "$tmp/cpu"
}

echo "1. event flood (64 MiB, 32 events per madvise call, ${SECS} s per rate)"
printf '%12s %12s %12s %10s %8s %14s %14s %8s\n' "target/s" "made/s" "read/s" "lost" "thp cpu" "ns/event bare" "ns/event trc" "ratio"
best=0
for rate in ${RATES:-50000 100000 200000 400000 800000 0}; do
	bare=$("$STORM" 64 "$rate" "$SECS" | awk '/^events/ {print $6 / 32}')
	traced sh -c "'$STORM' 64 $rate $SECS > '$tmp/storm.out'"
	made=$(awk -v s="$SECS" '/^events/ {printf "%d", $2 / s}' "$tmp/storm.out")
	trc=$(awk '/^events/ {print $6 / 32}' "$tmp/storm.out")
	read=$(jq '.khugepaged.scan_pmd.page_pmd_mapped // 0' "$tmp/t.json")
	lost=$(jq .lost_events "$tmp/t.json")
	printf '%12s %12s %12d %10s %7.1f%% %14.0f %14.0f %8.2f\n' "${rate/#0/max}" "$made" \
		$((read / SECS)) "$lost" "$(awk -v c="$(cat "$tmp/cpu")" -v s=$((SECS + 2)) 'BEGIN {print c / s * 100}')" \
		"$bare" "$trc" "$(awk -v a="$trc" -v b="$bare" 'BEGIN {print a / b}')"
	[ "$lost" = 0 ] && [ "$made" -gt "$best" ] && best=$made
done
echo "sustained without loss: $best events/s"

echo
echo "2. compaction storm (1 GiB freshly holed every other 4 KiB page, 2 writers of compact_memory, ${SECS} s, 2 runs bare and 2 traced)"
# writers: each prints the ns every write took
writers() {
	local pids=""
	for w in 1 2; do
		sh -c 'end=$(($(date +%s) + '"$SECS"')); while [ "$(date +%s)" -lt $end ]; do
			s=$(date +%s%N); echo 1 > /proc/sys/vm/compact_memory; echo $(($(date +%s%N) - s)); done' > "$tmp/w$w" &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
}
# storm [traced]: fragments 1 GiB anew, runs the writers (under thp trace with
# an argument), appends their write times (ns) to $tmp/bare or $tmp/traced
storm() {
	rm -f "$tmp/hogin" && mkfifo "$tmp/hogin"
	"$HOG" 1024 --nohuge --holes < "$tmp/hogin" > "$tmp/hog.out" &
	hogpid=$!
	exec 8> "$tmp/hogin"
	while ! grep -q ready "$tmp/hog.out"; do sleep 0.05; done
	if [ $# -gt 0 ]; then traced writers; else writers; fi
	exec 8>&-
	wait "$hogpid"
	hogpid=
	cat "$tmp"/w? >> "$tmp/${1:-bare}"
	[ $# -gt 0 ] && jq '.events_read, .lost_events' "$tmp/t.json" >> "$tmp/counts"
}
median_ms() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)] / 1e6}'; }
# alternated, so that neither mode always meets the memory the other left
storm; storm traced; storm traced; storm
bare=$(median_ms "$tmp/bare")
trc=$(median_ms "$tmp/traced")
echo "writes: $(wc -l < "$tmp/bare") bare, $(wc -l < "$tmp/traced") traced; events read and lost per traced run: $(tr '\n' ' ' < "$tmp/counts")"
jq -r --argjson s "$SECS" '"last traced run: \(.events_read) events (\(.events_read / $s | floor)/s), lost: \(.lost_events), stalls by kind: \([.totals[] | select(.stalls > 0) | "\(.kind) \(.stalls)"] | join(", "))"' "$tmp/t.json"
printf 'median compact_memory write: %.1f ms bare, %.1f ms traced, ratio %.2f\n' "$bare" "$trc" \
	"$(awk -v a="$trc" -v b="$bare" 'BEGIN {print a / b}')"
