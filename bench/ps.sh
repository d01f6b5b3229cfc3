#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of 'thp ps' with 1,000 and 10,000 extra processes (one in ten
# holding 4 MiB of THP), next to its floor: 'cat' of the same smaps_rollup and
# status files (target: 'ps --all' at most 1.0x). Also the peak memory of
# 'thp ps --all' (target at 10k: 16 MiB), and as root 'thp ps --all --folios'
# next to the sum of the per-process floors of the page walk (build/bench/rawpread
# --all: every process's pagemap and kpageflags, nothing else; target 1.2x),
# once more over processes holding BENCH_PS_MIXED_MIB (default 4096) in mixed
# mappings: PMD-mapped THP, 4 KiB pages, shared memory and THP that starts
# 4 KiB past a PMD boundary. Runs are interleaved (bench/interleave.py).
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
SPAWN=${SPAWN:-build/bench/spawn}
RAW=${RAW:-build/bench/rawpread}
HOG=${HOG:-build/tests/hog}
MIXED=${BENCH_PS_MIXED_MIB:-4096}
out=$(mktemp -d)
trap 'exec 9>&- 2>/dev/null; rm -rf "$out"' EXIT INT TERM
mkfifo "$out/hold"

# 'thp ps --all --folios' beside the sum of the per-process floors (root)
folio_runs() {
	bench/interleave.py --runs "${BENCH_FOLIO_RUNS:-3}" --warmup 0 \
		"sum of per-process floors (rawpread --all)=$RAW --all" \
		"thp ps --all --folios=$THP ps --all --folios"
	echo "target: thp ps --all --folios at most 1.2x the floors"
}

for n in ${BENCH_PS_N:-1000 10000}; do
	exec 9<> "$out/hold"
	rm -f "$out/ready"
	"$SPAWN" "$n" 10 < "$out/hold" > "$out/ready" 9>&- &
	i=0
	while ! grep -q ready "$out/ready" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q ready "$out/ready" 2> /dev/null || { echo "bench/ps.sh: $SPAWN did not start $n processes (make build/bench/spawn)" >&2; exit 1; }
	procs=$(ls -d /proc/[0-9]* | wc -l)
	echo "== $procs processes ($n spawned)"
	bench/interleave.py --runs "${BENCH_RUNS:-10}" \
		"cat=sh -c 'cat /proc/[0-9]*/smaps_rollup /proc/[0-9]*/status > /dev/null 2>&1'" \
		"thp ps=$THP ps" "thp ps --all=$THP ps --all"
	rss=$(/usr/bin/time -f %M "$THP" ps --all 2>&1 > /dev/null | tail -1)
	echo "thp ps --all peak RSS: $rss KiB (target at 10k processes: 16384 KiB)"
	if [ "$(id -u)" -eq 0 ]; then
		folio_runs
	fi
	exec 9>&-
	wait
done

if [ "$(id -u)" -eq 0 ] && [ "$MIXED" -gt 0 ]; then
	exec 9<> "$out/hold"
	q=$((MIXED / 4))
	k=0
	for m in --huge --nohuge --shared "--huge --misalign"; do
		k=$((k + 1))
		# shellcheck disable=SC2086 # the flags of one hog
		"$HOG" "$q" $m < "$out/hold" > "$out/mixed$k" 9>&- &
	done
	i=0
	while [ "$(cat "$out"/mixed* 2>/dev/null | grep -c ready)" -lt 4 ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	echo "== $(ls -d /proc/[0-9]* | wc -l) processes, $MIXED MiB of them in mixed mappings"
	folio_runs
	exec 9>&-
	wait
fi
