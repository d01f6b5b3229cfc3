#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of `thp collapse`: MiB per second collapsed in a helper that
# touched its memory without THP, next to the most khugepaged can do with its
# current tunables (pages_to_scan base pages per scan_sleep_millisecs) when it
# scans nothing else. Needs root (process_madvise needs CAP_SYS_NICE).
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
HOG=${HOG:-build/tests/hog}
K=/sys/kernel/mm/transparent_hugepage/khugepaged
[ "$(id -u)" = 0 ] || { echo "collapse bench: skipped, needs root"; exit 0; }
[ -x "$HOG" ] || { echo "collapse bench: no helper '$HOG' (make build/tests/hog)"; exit 1; }
[ -f $K/pages_to_scan ] || { echo "collapse bench: skipped, no THP"; exit 0; }
page=$(getconf PAGESIZE)
khuge=$(awk -v p="$(cat $K/pages_to_scan)" -v s="$(cat $K/scan_sleep_millisecs)" -v b="$page" \
	'BEGIN { printf "%.2f", p * b / 1048576 / (s / 1000) }')
dir=$(mktemp -d)
trap 'exec 7>&- 2> /dev/null; rm -rf "$dir"' EXIT
for mib in 64 256 1024; do
	best=
	for run in 1 2 3; do
		mkfifo "$dir/in"
		"$HOG" "$mib" < "$dir/in" > "$dir/out" &
		pid=$!
		exec 7> "$dir/in"
		i=0
		while ! grep -q ready "$dir/out" 2> /dev/null && kill -0 "$pid" 2> /dev/null && [ $i -lt 400 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		"$THP" collapse "$pid" --json > "$dir/r.json" || true
		exec 7>&-
		wait "$pid"
		rm -f "$dir/in"
		if [ "$(jq '[.ranges[].anonhuge_before] | add // 0' "$dir/r.json")" != 0 ]; then
			echo "collapse $mib MiB: skipped, the helper got THP at fault time (policy always?)"
			continue
		fi
		s=$(jq '[.ranges[] | select(.result == "collapsed") | .time] | add // 0' "$dir/r.json")
		got=$(jq '[.ranges[].anonhuge_after] | add // 0' "$dir/r.json")
		[ "$got" -ge $((mib * 1048576)) ] || { echo "collapse $mib MiB run $run: only $got bytes collapsed"; continue; }
		best=$(awk -v a="${best:-0}" -v b="$s" 'BEGIN { print (a == 0 || b < a) ? b : a }')
	done
	[ -n "$best" ] || continue
	awk -v m="$mib" -v s="$best" -v k="$khuge" 'BEGIN {
		r = m / s
		printf "thp collapse %d MiB: best of 3 %.3f s, %.0f MiB/s; khugepaged ceiling %.2f MiB/s; ratio %.0fx\n", m, s, r, k, r / k }'
done
