#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside a guest of tests/vm/run.sh (busybox sh, started by its init):
# every thp command against this guest's kernel, each figure compared with the
# kernel's own files read in the same guest, never with recorded output.
# What the guest expects comes from its kernel command line (thpvm=NAME and
# the boot options) and from what the kernel has (no THP directory: no THP).
# One line a check: "ok COMMAND: what" or "FAIL COMMAND: what" followed by
# lines of detail indented by two spaces; at the end "N passed, N failed".
PATH=/bin
pass=0 fail=0
T=/sys/kernel/mm/transparent_hugepage
out=/tmp/out
# no thp command may take longer than this (seconds): a hang fails its check
limit=120

ok() { pass=$((pass + 1)); echo "ok $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
# detail: the last lines of the last run's output, under a failed check
detail() { tail -n 4 $out | sed 's/^/  | /'; }
# run ARGS...: runs thp ARGS (output in $out, exit status in $rc)
run() {
	timeout $limit thp "$@" > $out 2>&1
	rc=$?
}
# exits N WHAT: the last run exited N
exits() { if [ "$rc" = "$1" ]; then ok "$2"; else ko "$2 (exit $rc, want $1)"; detail; fi; }
# eq WHAT GOT WANT: GOT is WANT and not empty
eq() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then ok "$1 ($2)"; else ko "$1: thp says '$2', the kernel '$3'"; fi
}
# within WHAT GOT LOW HIGH: GOT is a number from LOW to HIGH (a counter read
# by thp between two reads of the kernel's file)
within() {
	if [ -n "$2" ] && [ "$2" -ge "$3" ] 2> /dev/null && [ "$2" -le "$4" ]; then
		ok "$1 ($2)"
	else
		ko "$1: thp says '$2', the kernel from $3 to $4"
	fi
}
# has WHAT REGEX: the last run's output matches REGEX (extended)
has() { if grep -Eq -- "$2" $out; then ok "$1"; else ko "$1 (no /$2/ in the output)"; detail; fi; }
# lacks WHAT REGEX: the last run printed something, and nothing matching REGEX
lacks() {
	if [ -s $out ] && ! grep -Eq -- "$2" $out; then ok "$1"; else ko "$1 (/$2/ in the output, or no output)"; detail; fi
}
# js FILTER: jq FILTER over the last run's JSON output
js() { jq -r "$1" $out 2> /dev/null; }
# choice FILE: the selected value of a sysfs choice file ("a [b] c")
choice() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$1"; }
# vmstat NAME, meminfo NAME (bytes): the kernel's own figures
vmstat() { awk -v k="$1" '$1 == k {print $2}' /proc/vmstat; }
meminfo() { awk -v k="$1:" '$1 == k {print ($3 == "kB") ? $2 * 1024 : $2}' /proc/meminfo; }

t_status() {
	run status
	exits 0 "status: exits 0"
	if [ "$thp" = no ]; then
		has "status: says the kernel has no THP" "no THP|without THP|not built with THP"
	else
		has "status: names the policy '$(choice $T/enabled)'" "$(choice $T/enabled)"
	fi
	_a=$(vmstat thp_fault_alloc)
	run status -J
	_b=$(vmstat thp_fault_alloc)
	exits 0 "status -J: exits 0"
	eq "status -J: kernel.thp_supported" "$(js .kernel.thp_supported)" "$([ $thp = yes ] && echo true || echo false)"
	eq "status -J: kernel.release" "$(js .kernel.release)" "$(uname -r)"
	eq "status -J: HugePages_Total" "$(js .hugetlb.HugePages_Total)" "$(meminfo HugePages_Total)"
	eq "status -J: Hugepagesize" "$(js .hugetlb.Hugepagesize)" "$(meminfo Hugepagesize)"
	[ "$thp" = yes ] || return
	for _k in enabled defrag shmem_enabled; do
		eq "status -J: $_k" "$(js ".settings[] | select(.name == \"$_k\").value")" "$(choice $T/$_k)"
	done
	eq "status -J: khugepaged pages_to_scan" "$(js '.khugepaged[] | select(.name == "pages_to_scan").value')" \
		"$(cat $T/khugepaged/pages_to_scan)"
	within "status -J: vmstat thp_fault_alloc" "$(js .vmstat.thp_fault_alloc)" "$_a" "$_b"
}

vm=$(sed -n 's/.*thpvm=\([^ ]*\).*/\1/p' /proc/cmdline)
thp=yes
[ -d $T ] || thp=no
echo "guest $vm: Linux $(uname -r), THP $thp, $(cat /proc/cmdline)"
t_status
echo "$pass passed, $fail failed"
