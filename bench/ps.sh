#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of 'thp ps' with 1,000 and 10,000 extra processes (one in ten
# holding 4 MiB of THP), next to its floor: 'cat' of the same smaps_rollup and
# status files. Also the peak memory of 'thp ps --all'.
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
SPAWN=${SPAWN:-build/bench/spawn}
out=$(mktemp -d)
trap 'exec 9>&- 2>/dev/null; rm -rf "$out"' EXIT INT TERM
mkfifo "$out/hold"

for n in ${BENCH_PS_N:-1000 10000}; do
	exec 9<> "$out/hold"
	rm -f "$out/ready"
	"$SPAWN" "$n" 10 < "$out/hold" > "$out/ready" 9>&- &
	i=0
	while ! grep -q ready "$out/ready" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	procs=$(ls -d /proc/[0-9]* | wc -l)
	hyperfine -i --warmup 3 --runs "${BENCH_RUNS:-15}" --export-json "$out/r.json" \
		-n "cat" "cat /proc/[0-9]*/smaps_rollup /proc/[0-9]*/status > /dev/null 2>&1" \
		-n "thp ps" "$THP ps > /dev/null 2>&1" \
		-n "thp ps --all" "$THP ps --all > /dev/null 2>&1" > /dev/null
	rss=$(/usr/bin/time -f %M "$THP" ps --all 2>&1 > /dev/null | tail -1)
	echo "== $procs processes ($n spawned)"
	jq -r '.results[] | "\(.command): median \(.median * 1000 | . * 100 | round / 100) ms"' "$out/r.json"
	jq -r '.results as $r | "ratio thp ps / cat: \(($r[1].median / $r[0].median) * 100 | round / 100); thp ps --all / cat: \(($r[2].median / $r[0].median) * 100 | round / 100)"' "$out/r.json"
	echo "thp ps --all peak RSS: $rss KiB"
	exec 9>&-
	wait
done
