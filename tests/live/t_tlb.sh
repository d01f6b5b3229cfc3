# SPDX-License-Identifier: GPL-2.0-or-later
# TLB shootdowns: watch --json carries their rate, and metrics their count,
# from the TLB row of /proc/interrupts (x86; other architectures have none,
# which watch must say).
tlb_sum() { awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; found = 1 } END { if (found) print s + 0 }' /proc/interrupts; }
tlbdir=$(mktemp -d)
"$THP" watch --count 1 -i 0.2 --json > "$tlbdir/w.json"
if [ -n "$(tlb_sum)" ]; then
	expect "watch --json: tlb carries the shootdowns" jq -e '.tlb.shootdowns >= 0' "$tlbdir/w.json" > /dev/null
	lo=$(tlb_sum)
	"$THP" metrics --no-doctor -t 0 > "$tlbdir/m.prom"
	hi=$(tlb_sum)
	got=$(awk '$1 == "thp_tlb_shootdowns_total" {print $2}' "$tlbdir/m.prom")
	expect "metrics: thp_tlb_shootdowns_total ($got) is at least /proc/interrupts' sum before ($lo)" [ "${got:-x}" -ge "$lo" ]
	expect "metrics: thp_tlb_shootdowns_total ($got) is at most the sum after ($hi)" [ "${got:-x}" -le "$hi" ]
else
	expect "watch --json: says why there is no TLB shootdown rate" \
		jq -e '.tlb.unknown | test("no TLB row")' "$tlbdir/w.json" > /dev/null
fi
rm -rf "$tlbdir"

# show --tlb: on a machine without a CPU PMU in sysfs (this kind of virtual
# machine) a clear message and exit 1; with one, counts for the shell's thread
tlbout=$(mktemp) tlberr=$(mktemp)
"$THP" show $$ --tlb 0.2 --json > "$tlbout" 2> "$tlberr"
tlb_rc=$?
if ! ls -d /sys/bus/event_source/devices/cpu /sys/bus/event_source/devices/cpu_core \
	/sys/bus/event_source/devices/armv* > /dev/null 2>&1; then
	expect "show --tlb without a PMU exits 1" [ "$tlb_rc" = 1 ]
	expect "show --tlb without a PMU says so" grep -qx \
		'thp: show: this machine exposes no hardware TLB counters (perf_event_open: .*); virtual machines often have no PMU' "$tlberr"
	expect "show --tlb without a PMU: one line on stderr" [ "$(wc -l < "$tlberr")" = 1 ]
	expect "show --tlb without a PMU: nothing on stdout" [ ! -s "$tlbout" ]
elif [ "$tlb_rc" = 0 ]; then
	expect "show --tlb counts instructions of the shell" \
		jq -e '.schema == "thp-show-tlb/2" and (.threads | length) >= 1 and .totals.instructions > 0' "$tlbout" > /dev/null
else
	skip "show --tlb: counters refused ($(cat "$tlberr"))"
fi
rm -f "$tlbout" "$tlberr"
