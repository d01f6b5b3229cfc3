#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed corpus of one fuzz harness: the matching files of every fixture, plus
# the hand-written samples in tests/fuzz/seeds/NAME/ for files no fixture has.
#   tests/fuzz/seeds.sh NAME OUTDIR
set -eu
name=$1 out=$2
cd "$(dirname "$0")/../.."
T=sys/kernel/mm/transparent_hugepage
case $name in
choice) pat="$T/enabled $T/defrag $T/shmem_enabled $T/khugepaged/defrag $T/hugepages-*/enabled $T/hugepages-*/shmem_enabled" ;;
int) pat="$T/hpage_pmd_size $T/khugepaged/* $T/hugepages-*/stats/* proc/sys/vm/* proc/sys/kernel/osrelease" ;;
vmstat) pat="proc/vmstat" ;;
interrupts) pat="proc/interrupts" ;;
meminfo) pat="proc/meminfo sys/devices/system/node/node*/meminfo" ;;
cmdline) pat="proc/cmdline" ;;
rollup) pat="proc/[0-9]*/smaps_rollup" ;;
status) pat="proc/[0-9]*/status" ;;
smaps) pat="proc/[0-9]*/smaps" ;;
cgroup) pat="proc/[0-9]*/cgroup" ;;
buddyinfo) pat="proc/buddyinfo" ;;
psi) pat="proc/pressure/memory" ;;
mounts) pat="proc/mounts proc/self/mounts proc/[0-9]*/mountinfo" ;;
task) pat="proc/[0-9]*/task/[0-9]*/stat proc/[0-9]*/stat" ;;
persist) pat="run/thp/saved.state etc/tmpfiles.d/* etc/systemd/system/thp.service proc/cmdline" ;;
environ) pat="proc/[0-9]*/environ" ;;
cpuinfo) pat="proc/cpuinfo" ;;
escape) pat="proc/[0-9]*/comm proc/[0-9]*/cmdline proc/[0-9]*/maps" ;;
*) pat="" ;;
esac
mkdir -p "$out"
i=0
for fx in tests/fixtures/*/; do
	for p in $pat; do
		for f in "$fx"$p; do
			[ -f "$f" ] && [ -r "$f" ] || continue
			i=$((i + 1))
			cp "$f" "$out/fixture-$i"
		done
	done
done
# pagemap/kpageflags: a PMD size, a 520-page VMA, a present 2 MiB anonymous
# THP (head and tails) in pagemap, then kpageflags for its PFNs
if [ "$name" = folios ]; then
	perl -e 'print pack("V3", 1, 0, 520);
		print pack("Q<", $_ < 512 ? (1 << 63) | ($_ + 1) : 0) for 0 .. 519;
		print pack("Q<", $_ == 0 ? 0 : (1 << 22) | (1 << 12) | (1 << ($_ == 1 ? 15 : 16))) for 0 .. 519' \
		> "$out/thp-2m"
fi
# the documents of 'thp report': every golden status and doctor JSON
if [ "$name" = fleet ]; then
	for f in tests/expected/*/status-json.out tests/expected/*/doctor-json.out; do
		i=$((i + 1))
		sed '/^\[exit [0-9]*\]$/d' "$f" > "$out/golden-$i"
	done
fi
if [ -d "tests/fuzz/seeds/$name" ]; then
	cp tests/fuzz/seeds/"$name"/* "$out"/
fi
