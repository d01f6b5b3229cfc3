#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs at each boot of tests/vm/reboot.sh's Debian guest (a oneshot unit, its
# output on ttyS0). Boot 1 persists settings and pools in every mode thp has
# and selects a tuned profile that writes one of them again; boot 2 checks
# that the kernel has each of them, that 'thp persist --check' sees no drift
# but names tuned as a second writer, as doctor does, and that the packaged
# thp-serve answers. Each boot powers off.
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
	# tuned: the admin's own profile over a stock one writes a khugepaged
	# value that thp persisted otherwise; boot 2 finds tuned's value, written
	# after tmpfiles.d, and thp naming tuned as the second writer
	expect "persist khugepaged.scan_sleep_millisecs=20000 (tmpfiles.d, a file of its own)" \
		thp persist -o /etc/tmpfiles.d/thp-khugepaged.conf khugepaged.scan_sleep_millisecs=20000
	mkdir -p /etc/tuned/thp-test
	printf '[main]\ninclude=throughput-performance\n\n[sysfs]\n%s/khugepaged/scan_sleep_millisecs=30000\n' $T \
		> /etc/tuned/thp-test/tuned.conf
	# tuned's first start takes longer than systemd's 90 s under TCG
	mkdir -p /etc/systemd/system/tuned.service.d
	printf '[Service]\nTimeoutStartSec=600\n' > /etc/systemd/system/tuned.service.d/thp-reboot.conf
	systemctl daemon-reload
	expect "enable and start tuned (off in the image)" systemctl enable --now tuned.service
	expect "tuned-adm profile thp-test (includes throughput-performance)" tuned-adm profile thp-test
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
	eq "tuned started under systemd" "$(systemctl is-active tuned.service)" active
	eq "tuned's active profile" "$(cat /etc/tuned/active_profile)" thp-test
	i=0 # tuned applies its profile once it runs
	until [ "$(cat $T/khugepaged/scan_sleep_millisecs)" = 30000 ] || [ $i -ge 120 ]; do sleep 1; i=$((i + 1)); done
	eq "khugepaged scan_sleep_millisecs from tuned, which writes after tmpfiles.d" \
		"$(cat $T/khugepaged/scan_sleep_millisecs)" 30000
	thp persist --check > /tmp/check.txt 2>&1
	eq "persist --check exits 3: tuned writes a persisted setting again" "$?" 3
	expect "persist --check names tuned as the second writer" grep -qxF "second writer: tuned writes \
khugepaged.scan_sleep_millisecs=30000 at boot, over 20000 from /etc/tmpfiles.d/thp-khugepaged.conf:4 \
(/etc/tuned/thp-test/tuned.conf:5 [sysfs] $T/khugepaged/scan_sleep_millisecs, profile 'thp-test')" /tmp/check.txt
	thp persist --check --json > /tmp/check.json 2>&1
	expect "persist --check: no drift; tuned the one second writer (throughput-performance's ThunderX unit left out)" \
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["drift"] == [], d["drift"]
w = [(x["writer"], x["key"], x["value"], x["over"]) for x in d["second_writers"]]
assert w == [("tuned", "khugepaged.scan_sleep_millisecs", "30000", "20000")], w
assert d["tuned"]["profiles"] == "thp-test", d["tuned"]' /tmp/check.json
	thp doctor --json > /tmp/doctor.json 2>&1
	expect "doctor: persist-tuned names tuned's file and line, no persist-drift" python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
ids = [f["id"] for f in d["findings"]]
assert "persist-drift" not in ids, ids
f = [f for f in d["findings"] if f["id"] == "persist-tuned"]
assert len(f) == 1, ids
ev = [(e["name"], e["source"]) for e in f[0]["evidence"]]
assert ev == [("khugepaged.scan_sleep_millisecs", "/etc/tuned/thp-test/tuned.conf:5")], ev' /tmp/doctor.json
	eq "thp-serve started under systemd" "$(systemctl is-active thp-serve.service)" active
	i=0
	until curl -sf -o /tmp/metrics http://127.0.0.1:9567/metrics || [ $i -ge 30 ]; do sleep 1; i=$((i + 1)); done
	eq "thp-serve answers /metrics with the persisted pages_to_scan" \
		"$(awk '$1 == "thp_khugepaged_pages_to_scan" { print $2 }' /tmp/metrics)" 1024
fi
echo "$pass passed, $fail failed"
echo "==== thp-reboot end $n"
systemctl poweroff
