# SPDX-License-Identifier: GPL-2.0-or-later
# thp watch against the running kernel: JSON lines, and a fault burst seen as a rate.
wj=$(mktemp)
"$THP" watch -i 1 --count 3 --json > "$wj"
expect "watch --count 3 --json exits 0" [ $? -eq 0 ]
expect "watch --count 3 --json prints 3 lines" [ "$(wc -l < "$wj")" -eq 3 ]
expect "each line is a thp-watch/2 object" [ "$(jq -c 'select(.schema == "thp-watch/2") | .seq' "$wj" | tr '\n' ' ')" = "1 2 3 " ]
expect "intervals last about a second" jq -e '.seconds > 0.5 and .seconds < 5' "$wj" > /dev/null

pmdpol=$("$THP" status --json --no-procs | jq -r '(.sizes[] | select(.size == 2097152) | .anon_effective) // (.settings[] | select(.name == "enabled") | .value)' | head -1)
if ! grep -q '^thp_fault_alloc ' /proc/vmstat; then
	skip "watch fault rate: this kernel has no thp_fault_alloc counter"
elif [ "$pmdpol" != always ] && [ "$pmdpol" != madvise ]; then
	skip "watch fault rate: 2 MiB THP policy is '$pmdpol'"
else
	# the helper faults 256 MiB of MADV_HUGEPAGE memory during the first interval
	wfifo=$(mktemp -u)
	mkfifo "$wfifo"
	"$THP" watch -i 1 --count 2 --json > "$wj" &
	wpid=$!
	sleep 0.3
	"$HOG" 256 --huge < "$wfifo" > "$wfifo.out" &
	hpid=$!
	exec 8> "$wfifo"
	wait "$wpid"
	huge=$(awk '/^AnonHugePages:/ {print $2}' "/proc/$hpid/smaps_rollup" 2>/dev/null)
	exec 8>&-
	wait "$hpid"
	if [ "${huge:-0}" -eq 0 ]; then
		skip "watch fault rate: the kernel gave the helper no huge page (memory fragmented?)"
	else
		expect "a MADV_HUGEPAGE fault burst shows as thp_fault_alloc/s > 0" \
			jq -se 'map(.faults.thp_fault_alloc) | max > 0' "$wj" > /dev/null
	fi
	rm -f "$wfifo" "$wfifo.out"
fi
rm -f "$wj"
