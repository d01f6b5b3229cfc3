# SPDX-License-Identifier: GPL-2.0-or-later
# Page tables per process: ps and show report the kernel's VmPTE of a process
# that maps and touches 1 GiB with 4 KiB pages; show's estimate with 2 MiB
# pages replaces one table per 2 MiB; ps --by comm sums a shared buffer's
# tables over the processes that map it; and (root, with room for a pool) the
# estimate is checked against the same process run on 2 MiB hugetlb pages.
hog_wait=900 # touching 1 GiB takes long on a loaded host
hog_start "$HOG" 1024 --nohuge
if [ -z "$hog_addr" ]; then
	skip "page tables: the 1 GiB hog did not start (not enough memory?)"
	hog_stop
else
	pte=$(($(hog_field VmPTE) * 1024))
	pt_ps=$("$THP" ps --json -p "$hog_pid" | jq '.processes[0].pte')
	expect "ps --json: PTE of a 1 GiB 4 KiB-page process equals its VmPTE ($pte)" [ "$pt_ps" = "$pte" ]
	expect "ps -o pte: the text column shows VmPTE" \
		[ "$("$THP" ps -b -p "$hog_pid" -o pte --noheadings | tr -d ' ')" = "$pte" ]
	"$THP" show "$hog_pid" --json > "$hog_dir/show.json"
	expect "show --json: page_tables.vmpte equals VmPTE" [ "$(jq .page_tables.vmpte "$hog_dir/show.json")" = "$pte" ]
	expect "show --json: 2 MiB pages replace a table per touched 2 MiB (512 or more)" \
		jq -e '.page_tables.tables_replaced >= 512' "$hog_dir/show.json" > /dev/null
	expect "show --json: the estimate is VmPTE less 4 KiB per replaced table" \
		jq -e '.page_tables.estimate_2m == .page_tables.vmpte - 4096 * .page_tables.tables_replaced' "$hog_dir/show.json" > /dev/null
	expect "show: the text names the estimate" sh -c "'$THP' show $hog_pid | grep -q 'with 2 MiB hugetlb pages about .* (estimate'"
	pt_est=$(jq .page_tables.estimate_2m "$hog_dir/show.json")
	hog_stop

	hog_start "$HOG" 256 --shared --fork 2
	"$THP" ps --json --by comm -p "$hog_pid,$(pgrep -d, -P "$hog_pid")" > "$hog_dir/by.json"
	sum=0
	for p in "$hog_pid" $(pgrep -P "$hog_pid"); do
		sum=$((sum + $(awk '$1 == "VmPTE:" {print $2}' "/proc/$p/status") * 1024))
	done
	expect "ps --by comm: PTE is the sum of the 3 processes' VmPTE ($sum)" \
		[ "$(jq '.groups[0].pte' "$hog_dir/by.json")" = "$sum" ]
	expect "ps --by comm: the group holds the 3 processes" [ "$(jq '.groups[0].procs' "$hog_dir/by.json")" = 3 ]
	hog_stop

	HP=/sys/kernel/mm/hugepages/hugepages-2048kB
	if [ "$(id -u)" != 0 ] || [ ! -w "$HP/nr_hugepages" ]; then
		skip "page-table estimate against hugetlb: needs root and a 2 MiB pool"
	else
		pt_prior=$(cat "$HP/nr_hugepages")
		pt_restore() { echo "$pt_prior" > "$HP/nr_hugepages"; }
		live_traps pt_restore
		echo $((pt_prior + 520)) > "$HP/nr_hugepages"
		if [ "$(cat "$HP/free_hugepages")" -lt 512 ]; then
			skip "page-table estimate against hugetlb: the pool could not grow by 512 pages"
		else
			hog_start "$HOG" 1024 --hugetlb
			real=$((${hog_addr:+$(hog_field VmPTE)}0 * 1024 / 10)) # 0 when it did not start
			# the estimate leaves the tables of the mappings it cannot change; a
			# few tables either way come from other mappings' placement
			expect "show's estimate ($pt_est) is at most VmPTE on hugetlb pages ($real) plus 16 KiB" \
				[ "$pt_est" -le $((real + 16384)) ]
			expect "show's estimate ($pt_est) is at least VmPTE on hugetlb pages ($real) less 16 KiB" \
				[ "$pt_est" -ge $((real - 16384)) ]
			hog_stop
		fi
		pt_restore
		live_traps
	fi
fi
hog_wait=
