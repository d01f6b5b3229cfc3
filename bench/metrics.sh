#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of `thp metrics`: median time on this host, then per-scrape time
# with 1,000 extra processes that each hold THP (so the top-N scan reads every
# smaps_rollup), by `thp metrics` and through `thp serve`. Next to them, the
# floor (cat of every smaps_rollup) and what top-N must not do (cat of every
# full smaps).
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
HOG=${HOG:-build/tests/hog}
N=${N:-1000}
tmp=$(mktemp -d)
pids=
cleanup() {
	exec 9>&- 2> /dev/null || true
	for p in $pids; do kill "$p" 2> /dev/null || true; done
	wait 2> /dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

report() { # report FILE: one line per command with median and ratio to the first
	jq -r '.results as $r | $r[] | "  \(.command): median \(.median * 1e6 | round / 1e3) ms (min \(.min * 1e6 | round / 1e3) ms), \(.median / $r[0].median * 100 | round / 100)x the first"' "$1"
}

echo "thp metrics on this host ($(ls -d /proc/[0-9]* | wc -l) processes):"
hyperfine -N --warmup 10 --runs 100 --export-json "$tmp/a.json" \
	-n "thp metrics" "$THP metrics" \
	-n "thp metrics --top 0" "$THP metrics --top 0" > /dev/null
report "$tmp/a.json"

mkfifo "$tmp/hold"
i=0
while [ $i -lt "$N" ]; do
	"$HOG" 2 --huge < "$tmp/hold" > /dev/null &
	pids="$pids $!"
	i=$((i + 1))
done
exec 9> "$tmp/hold"
sleep 2
"$THP" serve --listen 127.0.0.1:0 2> "$tmp/serve.err" &
pids="$pids $!"
sleep 0.5
port=$(sed -n 's|^thp: serving http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$tmp/serve.err")
held=$("$THP" metrics | awk '$1 == "thp_processes_with_anon_huge" {print $2}')
echo "with $N more processes ($(ls -d /proc/[0-9]* | wc -l) in all, $held holding THP):"
hyperfine -N --warmup 3 --runs 30 --export-json "$tmp/b.json" \
	-n "thp metrics" "$THP metrics" \
	-n "scrape of thp serve (curl)" "curl -sf -o /dev/null http://127.0.0.1:$port/metrics" \
	-n "cat every smaps_rollup (floor)" "sh -c 'cat /proc/[0-9]*/smaps_rollup > /dev/null 2>&1; true'" \
	-n "cat every smaps (not done)" "sh -c 'cat /proc/[0-9]*/smaps > /dev/null 2>&1; true'" > /dev/null
report "$tmp/b.json"
