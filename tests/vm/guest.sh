#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside a guest of tests/vm/run.sh (busybox sh, as init's child): every
# thp command against this guest's own kernel, each figure compared with the
# kernel's own files read in the same guest. The guest's name and what it
# expects come from the kernel command line (thpvm=NAME).
# Prints one "ok - ..." or "FAIL - ..." line per check, then "N passed, N failed".
PATH=/bin:/sbin
pass=0 fail=0
T=/sys/kernel/mm/transparent_hugepage
H=/sys/kernel/mm/hugepages
vm=$(sed -n 's/.*thpvm=\([^ ]*\).*/\1/p' /proc/cmdline)
out=/tmp/out

ok() { pass=$((pass + 1)); echo "ok - $1 [$(cut -d" " -f1 /proc/uptime)]"; }
ko() {
	fail=$((fail + 1)); echo "FAIL - $1"
	[ -s $out ] && tail -5 $out | sed 's/^/  | /'
}
# each command may take at most this many seconds (a hang fails its check)
limit=180
# expect DESC CMD...: CMD exits 0 (its output in $out)
expect() { _d=$1; shift; if timeout $limit "$@" > $out 2>&1; then ok "$_d"; else ko "$_d (exit $?)"; fi; }
# expect_exit N DESC CMD...: CMD exits N exactly
expect_exit() {
	_n=$1 _d=$2; shift 2; timeout $limit "$@" > $out 2>&1; _r=$?
	if [ $_r = "$_n" ]; then ok "$_d"; else ko "$_d (exit $_r, want $_n)"; fi
}
# eq DESC GOT WANT: GOT is WANT (and not empty)
eq() { if [ -n "$2" ] && [ "$2" = "$3" ]; then ok "$1 ($2)"; else ko "$1: thp says '$2', the kernel '$3'"; fi; }
# has DESC PATTERN: the last command's output ($out) matches PATTERN
has() { if grep -q -- "$2" $out; then ok "$1"; else ko "$1 (no '$2')"; fi; }
# lacks DESC PATTERN: the last command's output is not empty and lacks PATTERN
lacks() { if [ -s $out ] && ! grep -q -- "$2" $out; then ok "$1"; else ko "$1 ('$2' present or no output)"; fi; }
# pair KEY: KEY's value in $out, -P output (KEY="value")
pair() { sed -n "s/\\(^\\|.* \\)$1=\"\\([^\"]*\\)\".*/\\2/p" $out | head -n 1; }
# bracket FILE: the selected value of a sysfs choice file
bracket() { sed 's/.*\[\(.*\)\].*/\1/' "$1"; }
# metric NAME: the value of the first sample of NAME in $out
metric() { awk -v n="$1" '$1 == n || index($1, n "{") == 1 { print $2; exit }' $out; }
# anon_huge PID: AnonHugePages of PID in bytes, from the kernel
anon_huge() { awk '/^AnonHugePages:/ { print $2 * 1024 }' /proc/$1/smaps_rollup; }

# hog MIB ARGS...: a tests/hog process holding memory; its PID in $hog
hog() {
	rm -f /tmp/hog.in /tmp/hog.out && mkfifo /tmp/hog.in
	/bin/hog "$@" < /tmp/hog.in > /tmp/hog.out 2>&1 &
	hog=$!
	exec 7> /tmp/hog.in
	_i=0
	until grep -q ready /tmp/hog.out 2> /dev/null || [ $_i -gt 300 ]; do sleep 0.1; _i=$((_i + 1)); done
}
unhog() { exec 7>&-; wait $hog; }

echo "guest $vm: $(uname -r), $(cat /proc/cmdline)"
thp=yes
[ -d $T ] || thp=no

# the boot the guest asked for is the boot it has
case $vm in
generic | cloud) eq "the kernel's default policy" "$(bracket $T/enabled)" always ;;
never | madvise) eq "transparent_hugepage=$vm took effect" "$(bracket $T/enabled)" $vm ;;
pool64) eq "hugepages=64 took effect" "$(cat $H/hugepages-2048kB/nr_hugepages)" 64 ;;
gig) eq "a 1 GiB page reserved at boot, the default size" \
	"$(awk '/^Hugepagesize:/ { s = $2 } /^HugePages_Total:/ { t = $2 } END { print t "x" s }' /proc/meminfo)" 1x1048576 ;;
numa) eq "two NUMA nodes" "$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)" 2 ;;
rt) expect "a kernel without THP (no $T)" [ ! -e $T ] ;;
esac

# status: the policy the kernel has
expect "status exits 0" thp status
if [ $thp = yes ]; then
	eq "status: enabled" "$(awk '$1 == "enabled" { print $2; exit }' $out)" "$(bracket $T/enabled)"
	eq "status: defrag" "$(awk '$1 == "defrag" { print $2; exit }' $out)" "$(bracket $T/defrag)"
else
	has "status says the kernel has no THP" "THP support *no"
fi
expect "status -J exits 0" thp -J status

# metrics: figures of /proc/meminfo, /proc/vmstat and sysfs
expect "metrics exits 0" thp metrics
hps=$(awk '/^Hugepagesize:/ { print $2 * 1024 }' /proc/meminfo)
eq "metrics: the default size's pool pages = HugePages_Total" "$(metric "thp_hugetlb_pool_pages{size=\"$hps\"}")" \
	"$(awk '/^HugePages_Total:/ { print $2 }' /proc/meminfo)"
if [ $thp = yes ]; then
	eq "metrics: khugepaged pages_to_scan" "$(metric thp_khugepaged_pages_to_scan)" "$(cat $T/khugepaged/pages_to_scan)"
	eq "metrics: thp_split_page = vmstat" "$(metric thp_split_page_total)" "$(awk '$1 == "thp_split_page" { print $2 }' /proc/vmstat)"
else
	lacks "metrics of a kernel without THP report no setting" 'thp_setting_info{'
fi

# ps and show of a process that asked for huge pages (MADV_HUGEPAGE fails
# where the kernel has no THP), against smaps_rollup
if [ $thp = yes ]; then hog 64 --huge; else hog 64; fi
expect "the hog is running" kill -0 $hog
expect "ps -P -b -p PID exits 0" thp ps -P -b -p $hog
eq "ps: THP of the hog = AnonHugePages" "$(pair THP)" "$(anon_huge $hog)"
state=$(pair THP_STATE)
case $thp:$(cat $T/enabled 2> /dev/null) in
no:*) eq "ps: THP_STATE on a kernel without THP" "$state" "kernel has no THP" ;;
*) eq "ps: THP_STATE of a process that did not opt out" "$state" "on" ;;
esac
case $thp:$(cat $T/enabled 2> /dev/null) in
yes:*"[never]"*) eq "never: the advised hog has no huge page" "$(anon_huge $hog)" 0 ;;
yes:*) expect "the advised hog has huge pages" [ "$(anon_huge $hog)" -gt 0 ] ;;
esac
expect "show PID exits 0" thp show $hog
lacks "show: no state inherited from init" "inherited"
expect "show --folios --rollup exits 0" thp show $hog --folios --rollup -b
eq "show --folios: anon PMD folios = AnonHugePages" \
	"$(awk '$1 ~ /^anon-thp-pmd/ { s += $2 } END { print s + 0 }' $out)" "$(anon_huge $hog)"
expect "doctor runs" sh -c 'thp doctor; [ $? -le 2 ]'
lacks "doctor: no thp-disabled-inherited" "thp-disabled-inherited"
unhog

# hugetlb: the pools of the host and of each node, and set
expect "hugetlb -P -b exits 0" thp hugetlb -P -b
for d in $H/hugepages-*; do
	kb=${d##*-}; kb=${kb%kB}
	eq "hugetlb: pool of $kb kB" "$(grep "SIZE=\"$((kb * 1024))\"" $out | sed -n 's/.*TOTAL="\([0-9]*\)".*/\1/p' | head -n 1)" "$(cat $d/nr_hugepages)"
done
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2> /dev/null | wc -l)
if [ "$nodes" -gt 1 ]; then
	expect "hugetlb --node 1 set 2M=6" thp hugetlb set 2M=6 --node 1
	eq "node 1's 2 MiB pool after set" "$(cat /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages)" 6
	expect "hugetlb -P -b lists node pools" thp hugetlb -P -b
	for n in 0 1; do
		eq "hugetlb: node $n's 2 MiB pool" \
			"$(grep "NODE=\"$n\"" $out | grep 'SIZE="2097152"' | sed -n 's/.*TOTAL="\([0-9]*\)".*/\1/p' | head -n 1)" \
			"$(cat /sys/devices/system/node/node$n/hugepages/hugepages-2048kB/nr_hugepages)"
	done
fi
was=$(cat $H/hugepages-2048kB/nr_hugepages)
expect "hugetlb set 2M=$((was + 4))" thp hugetlb set 2M=$((was + 4))
eq "2 MiB pool after set" "$(cat $H/hugepages-2048kB/nr_hugepages)" $((was + 4))
expect "hugetlb set 2M=$was puts it back" thp hugetlb set 2M=$was
eq "2 MiB pool back" "$(cat $H/hugepages-2048kB/nr_hugepages)" "$was"

# set, diff, restore
if [ $thp = yes ]; then
	before=$(bracket $T/enabled)
	to=never
	[ $before = never ] && to=madvise
	expect "set enabled=$to" thp set enabled=$to
	eq "set: the kernel has $to" "$(bracket $T/enabled)" $to
	expect_exit 3 "diff with the saved state: a difference (exit 3)" thp diff
	expect "restore" thp restore
	eq "restore: enabled back" "$(bracket $T/enabled)" "$before"
else
	expect_exit 1 "set enabled=never on a kernel without THP: exit 1" thp set enabled=never
	has "set says the kernel has no THP" "no THP\|without THP\|has no transparent"
fi

# collapse (MADV_COLLAPSE, 6.1 has it)
if [ $thp = yes ]; then
	hog 16
	expect "collapse PID" thp collapse $hog
	expect "collapse: the hog now has huge pages (AnonHugePages $(anon_huge $hog))" [ "$(anon_huge $hog)" -gt 0 ]
	unhog
else
	hog 16
	expect_exit 1 "collapse on a kernel without THP: exit 1" thp collapse $hog
	unhog
fi

# bench and ab: short runs, or refused before they start
if [ $thp = yes ]; then
	expect "bench fault --size 16M -N 1" thp bench fault --size 16M -N 1
	expect "ab -m always,never -N 1 -q -- true" thp ab -m always,never -N 1 -q -- true
	eq "ab put the policy back" "$(bracket $T/enabled)" "$before"
else
	expect_exit 1 "bench fault on a kernel without THP: exit 1" thp bench fault --size 16M -N 1
	has "bench says the kernel has no THP" "no THP\|without THP"
	expect_exit 1 "ab on a kernel without THP: exit 1" thp ab -N 1 -q -- true
fi

# watch, trace, capture
expect "watch -i 0.5 --count 2" thp watch -i 0.5 --count 2
expect "trace -d 1" thp trace -d 1
expect "capture -o /tmp/cap.tar.gz" thp capture -o /tmp/cap.tar.gz
expect "status of the capture" thp --root /tmp/cap.tar.gz status
if [ $thp = yes ]; then
	eq "capture: enabled as the kernel has it" "$(awk '$1 == "enabled" { print $2; exit }' $out)" "$(bracket $T/enabled)"
fi

echo "$pass passed, $fail failed"
