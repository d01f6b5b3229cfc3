#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of `thp watch -i 1`: the CPU time it uses over a minute, as a share
# of one core (the target is at most 0.1%), and its peak RSS. Each interval
# reads /proc/interrupts (TLB shootdowns) too. CPU time is the kernel's
# per-task figure (/proc/PID/schedstat, nanoseconds), read just before the
# last report.
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
SECS=${SECS:-60}
"$THP" watch -i 1 --count $((SECS + 3)) > /dev/null &
pid=$!
start=$(date +%s.%N)
sleep "$SECS.5" 2> /dev/null || sleep "$SECS"
sleep_end=$(date +%s.%N)
# the last report is due at SECS+3 seconds (a loaded host may wake this
# shell late): read the figures while it still runs
ns=$(cut -d' ' -f1 "/proc/$pid/schedstat" 2> /dev/null || echo)
hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2> /dev/null || echo)
wait "$pid" || true
if [ -z "$ns" ]; then
	echo "bench/watch.sh: thp watch ended before it could be measured" >&2
	exit 1
fi
load=$(cut -d' ' -f1-3 /proc/loadavg)
awk -v ns="$ns" -v a="$start" -v b="$sleep_end" -v rss="$hwm" -v load="$load" 'BEGIN {
	wall = b - a; pct = ns / 1e9 / wall * 100
	printf "thp watch -i 1 over %.1f s: CPU %.1f ms = %.4f%% of one core (target 0.1%%: %.2fx the target); peak RSS %d KiB; load average %s\n",
		wall, ns / 1e6, pct, pct / 0.1, rss, load
}'
