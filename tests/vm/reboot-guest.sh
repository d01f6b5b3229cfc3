#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs at each boot of tests/vm/reboot.sh's Debian guest (a oneshot unit, its
# output on ttyS0). Boot 1 persists settings and pools in every mode thp has;
# boot 2 checks that the kernel has each of them, that 'thp persist --check'
# sees no drift and that the packaged thp-serve answers. Each boot powers off.
T=/sys/kernel/mm/transparent_hugepage
state=/var/lib/thp-reboot
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; [ -s /tmp/out ] && tail -n 5 /tmp/out | sed 's/^/  | /'; }
# expect DESC CMD...: CMD exits 0
expect() { _d=$1; shift; if "$@" > /tmp/out 2>&1; then ok "$_d"; else ko "$_d (exit $?)"; fi; }
# eq DESC GOT WANT
eq() { if [ "$2" = "$3" ]; then ok "$1 ($2)"; else : > /tmp/out; ko "$1: the kernel has '$2', want '$3'"; fi; }
bracket() { sed 's/.*\[\(.*\)\].*/\1/' "$1"; }

if [ ! -e $state/boot1 ]; then
	n=1
	echo "==== thp-reboot begin $n"
	mkdir -p $state
	expect "persist enabled=madvise defrag=defer (tmpfiles.d)" thp persist enabled=madvise defrag=defer
	expect "persist --systemd khugepaged.pages_to_scan=1024" thp persist --systemd khugepaged.pages_to_scan=1024
	expect "persist vm.compaction_proactiveness=30 (sysctl.d)" thp persist vm.compaction_proactiveness=30
	expect "hugetlb persist 2M=16" thp hugetlb persist 2M=16
	expect "enable thp-serve" systemctl enable thp-serve.service
	touch $state/boot1
else
	n=2
	echo "==== thp-reboot begin $n"
	eq "enabled from tmpfiles.d" "$(bracket $T/enabled)" madvise
	eq "defrag from tmpfiles.d" "$(bracket $T/defrag)" defer
	eq "khugepaged pages_to_scan from thp.service" "$(cat $T/khugepaged/pages_to_scan)" 1024
	eq "thp.service ran" "$(systemctl is-active thp.service)" active
	eq "vm.compaction_proactiveness from sysctl.d" "$(cat /proc/sys/vm/compaction_proactiveness)" 30
	eq "the 2 MiB pool from hugetlb persist" "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" 16
	expect "persist --check: no drift" thp persist --check
	eq "thp-serve started under systemd" "$(systemctl is-active thp-serve.service)" active
	i=0
	until curl -sf -o /tmp/metrics http://127.0.0.1:9567/metrics || [ $i -ge 30 ]; do sleep 1; i=$((i + 1)); done
	eq "thp-serve answers /metrics with the persisted pages_to_scan" \
		"$(awk '$1 == "thp_khugepaged_pages_to_scan" { print $2 }' /tmp/metrics)" 1024
fi
echo "$pass passed, $fail failed"
echo "==== thp-reboot end $n"
systemctl poweroff
