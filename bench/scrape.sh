#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of the scrape cost: 'thp metrics' (what every scrape of 'thp
# serve' runs) beside 'thp ps --all' over the same BENCH_SCRAPE_N (default
# 10,000) idle processes spawned for it, one in ten holding 4 MiB of THP.
# Each command runs BENCH_RUNS times (default 5), the two interleaved; the
# medians of elapsed time, CPU time and peak RSS (/usr/bin/time) are printed
# with their ratios. Targets: metrics within 1.2x the time of ps --all, and
# at most 16 MiB.
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
SPAWN=${SPAWN:-build/bench/spawn}
N=${BENCH_SCRAPE_N:-10000}
RUNS=${BENCH_RUNS:-5}
out=$(mktemp -d)
trap 'exec 9>&- 2>/dev/null; rm -rf "$out"' EXIT INT TERM
mkfifo "$out/hold"

# median FILE COLUMN: the median of that column of FILE
median() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

exec 9<> "$out/hold"
"$SPAWN" "$N" 10 < "$out/hold" > "$out/ready" 9>&- &
i=0
while ! grep -q ready "$out/ready" 2> /dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
grep -q ready "$out/ready" 2> /dev/null || { echo "bench/scrape.sh: $SPAWN did not start $N processes (make build/bench/spawn)" >&2; exit 1; }
echo "== $(ls -d /proc/[0-9]* 2> /dev/null | wc -l) processes ($N spawned), $RUNS runs of each command, interleaved"
: > "$out/ps"
: > "$out/metrics"
i=0
while [ $i -lt "$RUNS" ]; do
	/usr/bin/time -a -o "$out/ps" -f '%e %U %S %M' "$THP" ps --all > /dev/null 2>&1
	/usr/bin/time -a -o "$out/metrics" -f '%e %U %S %M' "$THP" metrics > /dev/null
	i=$((i + 1))
done
for c in ps metrics; do
	awk '{ printf "%.2f\n", $2 + $3 }' "$out/$c" | paste -d' ' "$out/$c" - > "$out/$c.cpu"
done
pt=$(median "$out/ps.cpu" 1) pc=$(median "$out/ps.cpu" 5) pm=$(median "$out/ps.cpu" 4)
mt=$(median "$out/metrics.cpu" 1) mc=$(median "$out/metrics.cpu" 5) mm=$(median "$out/metrics.cpu" 4)
printf '%-14s median %s s elapsed, %s s CPU, %s KiB peak\n' "thp ps --all:" "$pt" "$pc" "$pm"
printf '%-14s median %s s elapsed, %s s CPU, %s KiB peak\n' "thp metrics:" "$mt" "$mc" "$mm"
awk -v pt="$pt" -v mt="$mt" -v pc="$pc" -v mc="$mc" -v mm="$mm" 'BEGIN {
	printf "metrics / ps --all: %.2fx elapsed (target at most 1.2x), %.2fx CPU; metrics peak %.1f MiB (target at most 16 MiB)\n",
		mt / pt, mc / pc, mm / 1024 }'
exec 9>&-
wait
