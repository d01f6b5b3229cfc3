#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of the system-wide folio walk, 'thp ps --all --folios' (as root),
# with --jobs 1 and --jobs 2, over hogs that map 8 GiB in all in mixed
# mappings: anonymous THP, anonymous 4 KiB pages and shmem (4 KiB pages, and
# THP where shmem_enabled allows it), each hog in four mappings. Runs are
# interleaved (bench/interleave.py); prints both medians and the speedup of 2
# jobs over 1 (target: at least 1.7x on 2 CPUs), with the load average, which
# on a shared machine bounds what 2 threads can win; then, from each
# thread's CPU time (bench/threads.py), the speedup CPUs of its own would give.
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
HOG=${HOG:-build/tests/hog}
MIB=${BENCH_JOBS_MIB:-8192}
HOGS=${BENCH_JOBS_HOGS:-16}
if [ "$(id -u)" -ne 0 ]; then
	echo "bench/jobs.sh: skipped, --folios needs root"
	exit 0
fi
avail=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
if [ "$avail" -lt $((MIB + 2048)) ]; then
	echo "bench/jobs.sh: skipped, $MIB MiB of hogs need $((MIB + 2048)) MiB available ($avail MiB are)"
	exit 0
fi
out=$(mktemp -d)
trap 'exec 9>&- 2>/dev/null; wait; rm -rf "$out"' EXIT INT TERM
mkfifo "$out/hold"
exec 9<> "$out/hold"

each=$((MIB / HOGS / 8 * 8)) # MiB per hog, split in 4 mappings of whole PMDs
i=0
while [ $i -lt "$HOGS" ]; do
	case $((i % 4)) in
	0) kind=--huge ;;
	1) kind=--nohuge ;;
	2) kind="--shared --nohuge" ;;
	*) kind="--shared --huge" ;;
	esac
	# shellcheck disable=SC2086 # the hog's options
	"$HOG" "$each" $kind --parts 4 < "$out/hold" > "$out/ready.$i" 9>&- &
	i=$((i + 1))
done
i=0
while [ "$(cat "$out"/ready.* 2> /dev/null | grep -c ready)" -lt "$HOGS" ] && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
sizes=$(awk '/^(AnonHugePages|ShmemPmdMapped|Shmem|MemAvailable):/ {printf "%s%s %d MiB", s, $1, $2 / 1024; s = ", "}' /proc/meminfo)
echo "== $HOGS hogs of $each MiB resident ($((each * HOGS)) MiB), $(nproc) CPUs; host: $sizes"
bench/interleave.py --runs "${BENCH_RUNS:-5}" "ps --all --folios --jobs 1=$THP ps --all --folios --jobs 1" \
	"ps --all --folios --jobs 2=$THP ps --all --folios --jobs 2" | tee "$out/times"
t1=$(sed -n 's/^ps --all --folios --jobs 1: median \([0-9.]*\) ms.*/\1/p' "$out/times")
t2=$(sed -n 's/^ps --all --folios --jobs 2: median \([0-9.]*\) ms.*/\1/p' "$out/times")
awk -v a="$t1" -v b="$t2" 'BEGIN {printf "speedup of 2 jobs over 1: %.2fx (wall; target at least 1.7x)\n", a / b}'
# where other work holds the CPUs, the wall time says little: the busiest
# thread's CPU time is what each would take on CPUs of its own
bench/threads.py "$THP" ps --all --folios --jobs 1 | tee "$out/one"
bench/threads.py "$THP" ps --all --folios --jobs 2 | tee "$out/two"
c1=$(sed -n 's/.* \([0-9.]*\) ms in the busiest thread.*/\1/p' "$out/one")
c2=$(sed -n 's/.* \([0-9.]*\) ms in the busiest thread.*/\1/p' "$out/two")
awk -v a="$c1" -v b="$c2" 'BEGIN {printf "speedup of 2 jobs over 1 in CPU time of the busiest thread: %.2fx (about what 2 CPUs of its own give)\n", a / b}'
exec 9>&-
