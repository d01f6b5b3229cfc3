#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark at 100,000 processes (BENCH_MANY_N): kernel.pid_max raised for
# them when it is lower (as root; put back on exit, also on SIGINT and
# SIGTERM), that many idle processes spawned (one in BENCH_MANY_EVERY,
# default 1,000, holding 4 MiB of THP), then BENCH_RUNS times (default 3),
# interleaved: the floor (build/bench/catfloor: every status and smaps_rollup
# opened and read to its end once, on one thread, nothing else), 'thp ps
# --all' (a thread per CPU), 'thp ps --all --jobs 1' and 'thp metrics', with
# the medians of elapsed time and peak RSS
# (/usr/bin/time) and their ratios; then bench/watch.sh for SECS (default
# 20) seconds among them. Targets: ps --all at most 1.0x the floor and
# 32 MiB; metrics within 1.2x ps --all; watch -i 1 below 1% of a core.
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
SPAWN=${SPAWN:-build/bench/spawn}
FLOOR=${FLOOR:-build/bench/catfloor}
N=${BENCH_MANY_N:-100000}
EVERY=${BENCH_MANY_EVERY:-1000}
RUNS=${BENCH_RUNS:-3}
PM=/proc/sys/kernel/pid_max
out=$(mktemp -d)
saved=
put_back() {
	exec 9>&- 2> /dev/null || true
	wait 2> /dev/null || true
	[ -z "$saved" ] || echo "$saved" > "$PM"
	rm -rf "$out"
}
trap put_back EXIT
trap 'put_back; trap - EXIT; exit 130' INT TERM
mkfifo "$out/hold"

want=$((N * 2 + 32768))
if [ "$(cat "$PM")" -lt "$want" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "bench/many.sh: kernel.pid_max is $(cat "$PM"); $N processes need root to raise it" >&2
		exit 1
	fi
	saved=$(cat "$PM")
	echo "$want" > "$PM"
fi
# median FILE COLUMN: the median of that column of FILE
median() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

exec 9<> "$out/hold"
"$SPAWN" "$N" "$EVERY" < "$out/hold" > "$out/ready" 9>&- &
i=0
while ! grep -q ready "$out/ready" 2> /dev/null && [ $i -lt 6000 ]; do sleep 0.1; i=$((i + 1)); done
grep -q ready "$out/ready" 2> /dev/null || { echo "bench/many.sh: $SPAWN did not start $N processes (make build/bench/spawn)" >&2; exit 1; }
echo "== $(ls -d /proc/[0-9]* 2> /dev/null | wc -l) processes ($N spawned, pid_max $(cat "$PM")), $RUNS runs of each, interleaved"
i=0
while [ $i -lt "$RUNS" ]; do
	/usr/bin/time -a -o "$out/cat" -f '%e %M' "$FLOOR" > /dev/null
	/usr/bin/time -a -o "$out/ps" -f '%e %M' "$THP" ps --all > /dev/null 2>&1
	/usr/bin/time -a -o "$out/ps1" -f '%e %M' "$THP" ps --all --jobs 1 > /dev/null 2>&1
	/usr/bin/time -a -o "$out/metrics" -f '%e %M' "$THP" metrics > /dev/null
	i=$((i + 1))
done
ct=$(median "$out/cat" 1)
pt=$(median "$out/ps" 1) pm=$(median "$out/ps" 2)
p1t=$(median "$out/ps1" 1) p1m=$(median "$out/ps1" 2)
mt=$(median "$out/metrics" 1) mm=$(median "$out/metrics" 2)
awk -v ct="$ct" -v pt="$pt" -v pm="$pm" -v p1t="$p1t" -v p1m="$p1m" -v mt="$mt" -v mm="$mm" -v cpus="$(nproc)" 'BEGIN {
	printf "every status and smaps_rollup read once (floor, catfloor): median %.2f s\n", ct
	printf "thp ps --all (%d jobs): median %.2f s, %.2fx the floor (target at most 1.0x), %.1f MiB peak (target at most 32)\n",
		cpus, pt, pt / ct, pm / 1024
	printf "thp ps --all --jobs 1: median %.2f s, %.2fx the floor, %.1f MiB peak\n", p1t, p1t / ct, p1m / 1024
	printf "thp metrics:  median %.2f s, %.2fx ps --all (target at most 1.2x), %.1f MiB peak\n", mt, mt / pt, mm / 1024 }'
SECS=${SECS:-20} THP="$THP" bench/watch.sh
