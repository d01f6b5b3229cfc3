# SPDX-License-Identifier: GPL-2.0-or-later
# thp hugetlb against the live pools: JSON equals sysfs, and `set 2M=N` then
# back to the prior value (root), restored on exit and on signals.
HP=/sys/kernel/mm/hugepages/hugepages-2048kB
if [ ! -d "$HP" ]; then
	skip "hugetlb: this kernel has no 2 MiB hugetlb pool ($HP)"
else
	hj=$(mktemp)
	"$THP" hugetlb --json > "$hj"
	expect "hugetlb --json is JSON" jq -e '.schema == "thp-hugetlb/2"' "$hj" > /dev/null
	for f in nr_hugepages:total free_hugepages:free resv_hugepages:reserved surplus_hugepages:surplus; do
		expect "hugetlb 2M ${f#*:} equals ${f%:*}" [ "$(cat "$HP/${f%:*}")" = \
			"$(jq '.pools[] | select(.size == 2097152) | .'"${f#*:}" "$hj")" ]
	done
	expect "hugetlb lists every size" [ "$(ls -d /sys/kernel/mm/hugepages/hugepages-* | wc -l)" = "$(jq '.pools | length' "$hj")" ]
	rm -f "$hj"
	if [ "$(id -u)" != 0 ]; then
		skip "hugetlb set: needs root to resize a pool"
	else
		hp_prior=$(cat "$HP/nr_hugepages")
		hp_restore() { echo "$hp_prior" > "$HP/nr_hugepages"; }
		live_traps hp_restore
		want=$((hp_prior + 8))
		out=$("$THP" hugetlb set "2M=$want" 2>&1)
		rc=$?
		got=$(cat "$HP/nr_hugepages")
		if [ "$rc" -eq 0 ]; then
			expect "hugetlb set 2M=$want gave $want" [ "$got" = "$want" ]
			expect "hugetlb set reports $want pages" sh -c "echo '$out' | grep -q -- '-> $want pages'"
		else
			# a fragmented host may give fewer: the output must say so and match the kernel
			expect "hugetlb set shortfall is explained ($out)" sh -c "echo '$out' | grep -q 'short'"
			expect "hugetlb set shortfall reports what the kernel gave" sh -c "echo '$out' | grep -q -- '-> $got pages'"
		fi
		expect "hugetlb set undo names the prior value" sh -c "echo '$out' | grep -qx 'undo: thp hugetlb set 2M=$hp_prior'"
		expect "hugetlb set back to $hp_prior" "$THP" hugetlb set "2M=$hp_prior" > /dev/null
		expect "hugetlb pool is back to $hp_prior" [ "$(cat "$HP/nr_hugepages")" = "$hp_prior" ]

		# pages reserved by a mapping that has not faulted them in are kept
		# by the kernel like pages in use: a shrink says so and counts both
		if [ "$rc" -eq 0 ] && [ -n "$HOG" ] && "$THP" hugetlb set "2M=$want" > /dev/null; then
			hog_start "$HOG" 8 --hugetlb --no-touch
			if [ -n "$hog_addr" ] && [ "$(cat "$HP/resv_hugepages")" -ge 4 ]; then
				floor=$(($(cat "$HP/nr_hugepages") - $(cat "$HP/free_hugepages") + $(cat "$HP/resv_hugepages")))
				out=$("$THP" hugetlb set 2M=0 --dry-run 2>&1)
				expect "hugetlb set --dry-run counts reserved pages beside those in use ($out)" \
					sh -c "echo '$out' | tr -d , | grep -q 'reserved by mappings that have not faulted them in: the pool cannot shrink below $floor pages now'"
			else
				skip "hugetlb reserved pages: a 2 MiB hugetlb mapping could not be made"
			fi
			hog_stop
			"$THP" hugetlb set "2M=$hp_prior" > /dev/null
		fi
		hp_restore
		live_traps
	fi
fi
