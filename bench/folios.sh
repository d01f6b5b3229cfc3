#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of 'thp show PID --folios' (as root) on a process with 8 GiB
# resident, once all PMD-mapped THP and once all 4 KiB pages: GiB analysed
# per second, next to the floor of reading the same pagemap and kpageflags
# entries with pread (build/bench/rawpread).
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
HOG=${HOG:-build/tests/hog}
RAW=${RAW:-build/bench/rawpread}
MIB=${BENCH_FOLIOS_MIB:-8192}
if [ "$(id -u)" -ne 0 ]; then
	echo "bench/folios.sh: skipped, --folios needs root"
	exit 0
fi
out=$(mktemp -d)
trap 'exec 9>&- 2>/dev/null; rm -rf "$out"' EXIT INT TERM
mkfifo "$out/hold"

for mode in --huge --nohuge; do
	exec 9<> "$out/hold"
	rm -f "$out/ready"
	"$HOG" "$MIB" "$mode" < "$out/hold" > "$out/ready" 9>&- &
	pid=$!
	i=0
	while ! grep -q ready "$out/ready" 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	huge=$(awk '/^AnonHugePages:/ {print $2}' "/proc/$pid/smaps_rollup")
	hyperfine -N --warmup 2 --runs "${BENCH_RUNS:-10}" --export-json "$out/r.json" \
		-n "thp show --rollup" "$THP show $pid --rollup" \
		-n "raw pread" "$RAW $pid" > /dev/null
	echo "== $MIB MiB resident, $mode (AnonHugePages $huge kB)"
	jq -r --argjson g "$MIB" '.results[] | "\(.command): median \(.median * 1000 | . * 100 | round / 100) ms, \($g / 1024 / .median | . * 10 | round / 10) GiB/s"' "$out/r.json"
	jq -r '.results as $r | "ratio thp / raw pread: \(($r[0].median / $r[1].median) * 100 | round / 100)"' "$out/r.json"
	exec 9>&-
	wait
done
