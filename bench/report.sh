#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of 'thp report' over a fleet: 1,000 and 10,000 hosts
# (BENCH_REPORT_N), each a file with the status and doctor documents of
# the fixture BENCH_REPORT_FIXTURE (default always-always) under its own
# host name (bench/hosts.py). The table, --group-by policy and --json run
# BENCH_RUNS times (default 3) each, interleaved; the medians of elapsed
# time, of it per host and of the peak RSS (/usr/bin/time) are printed.
# Targets at 10,000 hosts: at most 2 ms per host and 64 MiB, and the peak
# flat in the number of hosts (the same at 1,000 and 10,000).
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
FX=${BENCH_REPORT_FIXTURE:-always-always}
RUNS=${BENCH_RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM

"$THP" --root "tests/fixtures/$FX" status --json > "$out/status.json"
"$THP" --root "tests/fixtures/$FX" doctor --json > "$out/doctor.json" || true
# median FILE COLUMN: the median of that column of FILE
median() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for n in ${BENCH_REPORT_N:-1000 10000}; do
	mkdir "$out/$n"
	bench/hosts.py "$out/$n" "$n" "$out/status.json" "$out/doctor.json"
	echo "== $n hosts ($(du -sh "$out/$n" | cut -f1) of JSON in $n files), $RUNS runs of each, interleaved"
	i=0
	while [ $i -lt "$RUNS" ]; do
		for mode in table group json; do
			case $mode in
			table) set -- ;;
			group) set -- --group-by policy ;;
			json) set -- --json ;;
			esac
			/usr/bin/time -a -o "$out/$n.$mode" -f '%e %M' "$THP" report "$@" "$out/$n"/*.json > /dev/null
		done
		i=$((i + 1))
	done
	for mode in table group json; do
		e=$(median "$out/$n.$mode" 1) m=$(median "$out/$n.$mode" 2)
		awk -v mode="$mode" -v n="$n" -v e="$e" -v m="$m" 'BEGIN {
			printf "thp report (%s): median %.2f s, %.3f ms per host (target at most 2), %.1f MiB peak (target at most 64)\n",
				mode, e, e * 1000 / n, m / 1024 }'
	done
	rm -rf "${out:?}/$n"
done
