#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of 'thp show PID --folios --rollup' (as root) on a process with
# 8 GiB resident, in four layouts of its page frames: all PMD-mapped THP; 4 KiB
# pages as faults give them (runs of a few frames); 4 KiB pages on contiguous
# frames (THPs split in place: tests/live/hog --split, and the kernel's
# deferred split run by 'echo 2 > /proc/sys/vm/drop_caches', which also drops
# clean caches); 4 KiB pages on scattered frames (touched in a scrambled order:
# hog --scatter, one kpageflags read per page for the floor). Next to each,
# the floor: build/bench/rawpread reads the same pagemap (512 KiB at a time)
# and one kpageflags pread per run of contiguous page frames, and nothing else
# (it prints how many reads the layout needed).
# Runs are interleaved (bench/interleave.py); the targets: 4 KiB pages at most
# 1.10x the floor in every layout, all PMD at most 10 ms (beside it 'thp --version', the start
# of the program alone, which is most of that figure). THPMAPS=PATH adds the kernel's
# tools/mm/thpmaps (a copy that takes 'PID' and prints the rollup) to the runs.
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
HOG=${HOG:-build/tests/hog}
RAW=${RAW:-build/bench/rawpread}
MIB=${BENCH_FOLIOS_MIB:-8192}
THPMAPS=${THPMAPS:-}
if [ "$(id -u)" -ne 0 ]; then
	echo "bench/folios.sh: skipped, --folios needs root"
	exit 0
fi
out=$(mktemp -d)
trap 'exec 9>&- 2>/dev/null; rm -rf "$out"' EXIT INT TERM
mkfifo "$out/hold"

for layout in pmd faulted contiguous scattered; do
	case $layout in
	pmd) mode="--huge" ;;
	faulted) mode="--nohuge" ;;
	contiguous) mode="--huge --split" ;;
	scattered) mode="--nohuge --scatter" ;;
	esac
	exec 9<> "$out/hold"
	rm -f "$out/ready"
	# shellcheck disable=SC2086 # the hog's options
	"$HOG" "$MIB" $mode < "$out/hold" > "$out/ready" 9>&- &
	pid=$!
	i=0
	while ! grep -q ready "$out/ready" 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$layout" = contiguous ] && echo 2 > /proc/sys/vm/drop_caches
	huge=$(awk '/^AnonHugePages:/ {print $2}' "/proc/$pid/smaps_rollup")
	echo "== $MIB MiB resident, $layout (hog $mode; AnonHugePages $huge kB; floor: $("$RAW" "$pid"))"
	if [ "$layout" = contiguous ] && [ "$huge" != 0 ]; then
		echo "skipped: the kernel did not split the THPs in place"
		exec 9>&-
		wait
		continue
	fi
	set -- "floor (rawpread)=$RAW $pid" "thp show --folios --rollup=$THP show $pid --folios --rollup"
	# all PMD, the walk is a small part: thp's start (exec, libraries) beside it
	[ "$layout" = pmd ] && set -- "$@" "thp --version (start alone)=$THP --version"
	[ -n "$THPMAPS" ] && set -- "$@" "thpmaps=$THPMAPS $pid"
	bench/interleave.py "$@"
	if [ "$layout" = pmd ]; then
		echo "target: thp at most 10 ms"
	else
		echo "target: thp at most 1.10x the floor"
	fi
	[ -n "$THPMAPS" ] || echo "thpmaps: not run (THPMAPS=PATH names a copy of tools/mm/thpmaps)"
	exec 9>&-
	wait
done
