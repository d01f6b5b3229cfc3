# SPDX-License-Identifier: GPL-2.0-or-later
# show --rollup and ps --folios on Linux 6.18+ read no smaps for a process
# with 64 MiB or more resident: the VMAs come from PROCMAP_QUERY, the PMD
# mappings from PAGEMAP_SCAN, Rss, Anonymous and the hugetlb pages from
# /proc/PID/status. What they print must equal what show --folios prints from
# its smaps walk, for hogs of every kind; earlier kernels and smaller
# processes read smaps. An almost empty mapping is not read entry by entry.
rolltmp=$(mktemp -d)
# the figures both ways share (show --folios also has a row per VMA)
rollup_view='{t: .totals, f: .folios, w: .folios_walked, n: .folio_nodes, pt: .page_tables}'
rollup_kver=$(uname -r | awk -F. '{print $1 * 1000 + $2}')

# rollup_check ARGS...: starts a hog with ARGS and compares both reads of it.
rollup_check() {
	hog_start "$HOG" "$@"
	if [ -z "$hog_addr" ]; then
		skip "rollup of hog $*: the hog did not start ($(head -c 200 "$hog_dir/out"))"
	else
		rollup_compare "$@"
	fi
	hog_stop
}

# rollup_read: reads the running hog three ways (smaps walk, rollup, ps), and
# walks smaps again after.
rollup_read() {
	"$THP" show "$hog_pid" --folios --cont 64K --json | jq -S "$rollup_view" > "$rolltmp/smaps"
	strace -f -qq -e trace=openat,ioctl -o "$rolltmp/trace" \
		"$THP" show "$hog_pid" --rollup --cont 64K --json > "$rolltmp/q.json"
	jq -S "$rollup_view" "$rolltmp/q.json" > "$rolltmp/query"
	"$THP" ps --folios --json -p "$hog_pid" > "$rolltmp/ps.json"
	"$THP" show "$hog_pid" --folios --cont 64K --json | jq -S "$rollup_view" > "$rolltmp/after"
}

# rollup_compare ARGS...: compares the reads of the running hog (started with
# ARGS). Under 'always', khugepaged collapses the hog's 4 KiB pages every
# scan_sleep_millisecs: reads during which the hog's memory changed are
# taken again, up to 3 times.
rollup_compare() {
	for rollup_try in 1 2 3; do
		rollup_read
		cmp -s "$rolltmp/smaps" "$rolltmp/after" && break
	done
	expect "rollup of hog $*: equals the smaps walk of show --folios" cmp "$rolltmp/smaps" "$rolltmp/query"
	resident=$(awk '$1 == "VmRSS:" || $1 == "HugetlbPages:" {kb += $2} END {print kb}' "/proc/$hog_pid/status")
	if [ "$rollup_kver" -ge 6018 ] && [ "$resident" -ge 65536 ]; then
		# PROCMAP_QUERY is _IOWR('f', 17, ...); older strace does not name it
		expect "rollup of hog $*: VMAs asked with PROCMAP_QUERY (Linux 6.18+)" grep -Eq 'PROCMAP_QUERY|0x66, 0x11' "$rolltmp/trace"
		# under 'always', show reads smaps to tell PR_THP_DISABLE_EXCEPT_ADVISED
		# (THPeligible), up to the first eligible mapping
		grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled ||
			expect "rollup of hog $*: no smaps read (Linux 6.18+)" sh -c "! grep -q '/smaps' '$rolltmp/trace'"
	else
		expect "rollup of hog $* (${resident} kB resident): smaps read before Linux 6.18 or below 64 MiB" \
			grep -q '/smaps' "$rolltmp/trace"
	fi
	ps_got=$(jq -cS '[.processes[0].folios, .processes[0].thp]' "$rolltmp/ps.json")
	ps_want=$(jq -cS '[(.f | with_entries(select(.key | test("-cont-") | not))), .t.thp]' "$rolltmp/smaps")
	expect "ps --folios of hog $*: the same folios and THP" [ "$ps_got" = "$ps_want" ]
}

# rollup_empty: the hog of 16 GiB with 64 MiB and its last page touched, read as a rollup.
rollup_empty() {
	strace -qq -e trace=pread64 -e signal=none -o "$rolltmp/preads" \
		"$THP" show "$hog_pid" --rollup --json > "$rolltmp/e.json"
	big=$(grep -c ', 524288, ' "$rolltmp/preads")
	expect "an almost empty 16 GiB mapping: $big whole-chunk pagemap reads, at most 4" [ "$big" -le 4 ]
	expect "an almost empty 16 GiB mapping: all of it analysed" jq -e '.folios_walked >= 17179869184' "$rolltmp/e.json" > /dev/null
	expect "an almost empty 16 GiB mapping: RSS counts what was touched" jq -e '.totals.rss >= 67112960' "$rolltmp/e.json" > /dev/null
}

if [ "$(id -u)" -ne 0 ] || [ ! -r /proc/kpageflags ]; then
	skip "rollup without smaps: needs root and /proc/kpageflags"
elif ! strace -f -qq -o /dev/null true 2> /dev/null; then
	skip "rollup without smaps: needs strace to see which files are read"
else
	# the settings changed below are put back after. khugepaged, which would
	# collapse a hog's 4 KiB pages while they are read (under 'always', or
	# the holes of an advised hog), is held off: its next pass is an hour away
	RT=/sys/kernel/mm/transparent_hugepage
	rt_shmem=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$RT/shmem_enabled" 2> /dev/null)
	rt_64k=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$RT/hugepages-64kB/enabled" 2> /dev/null)
	rt_enabled=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$RT/enabled" 2> /dev/null)
	rt_sleep=$(cat "$RT/khugepaged/scan_sleep_millisecs" 2> /dev/null)
	rt_restore() {
		[ -z "$rt_sleep" ] || echo "$rt_sleep" > "$RT/khugepaged/scan_sleep_millisecs"
		[ -z "$rt_shmem" ] || echo "$rt_shmem" > "$RT/shmem_enabled"
		[ -z "$rt_enabled" ] || echo "$rt_enabled" > "$RT/enabled"
		[ -z "$rt_64k" ] || echo "$rt_64k" > "$RT/hugepages-64kB/enabled"
	}
	live_traps rt_restore
	[ -z "$rt_sleep" ] || echo 3600000 > "$RT/khugepaged/scan_sleep_millisecs"
	rollup_check 64 --nohuge
	rollup_check 64 --huge
	rollup_check 64 --huge --shared
	rollup_check 64 --huge --misalign
	rollup_check 64 --huge --holes
	rollup_check 64 --huge --fork 2
	rollup_check 64 --sparse --nohuge
	rollup_check 64 --hugetlb
	rollup_check 8 --huge
	# THP made PROT_NONE stays mapped: smaps counts it, so do both walks
	rollup_check 64 --huge --prot-none
	expect "rollup of hog 64 --huge --prot-none: its 64 MiB of THP are PMD-mapped folios" \
		jq -e '.f["anon-thp-pmd-aligned-2048kB"] >= 67108864 and .t.thp >= 67108864' "$rolltmp/query" > /dev/null
	# 16 GiB mapped, 64 MiB and the last page touched: the walk jumps over the
	# empty pagemap chunks (256 MiB each) with PAGEMAP_SCAN instead of reading
	# 63 of them
	hog_start "$HOG" 16384 --ends --nohuge
	if [ -z "$hog_addr" ]; then
		skip "an almost empty 16 GiB mapping: the hog did not start ($(head -c 200 "$hog_dir/out"))"
	else
		rollup_compare 16384 --ends --nohuge
		rollup_empty
	fi
	hog_stop
	# shmem THP (ShmemPmdMapped) and 64 KiB folios
	if [ -n "$rt_shmem" ] && echo advise > "$RT/shmem_enabled"; then
		rollup_check 64 --huge --shared
		expect "rollup of shared memory advised: ShmemPmdMapped is counted" jq -e '.t.shmem_pmd > 0' "$rolltmp/query" > /dev/null
	else
		skip "rollup of shmem THP: this kernel has no $RT/shmem_enabled"
	fi
	if [ -n "$rt_64k" ] && echo always > "$RT/hugepages-64kB/enabled"; then
		rollup_check 64
		expect "rollup with 64 KiB THP always: 64 KiB folios are counted" jq -e '.f["anon-thp-pte-aligned-64kB"] > 0' "$rolltmp/query" > /dev/null
	else
		skip "rollup of 64 KiB folios: this kernel has no per-size THP (hugepages-64kB, Linux 6.8+)"
	fi
	# one VMA of 512 MiB of 4 KiB pages, then 512 MiB of THP: the walk reads
	# the first pieces from pagemap alone and must find the PMD mappings after
	if [ -n "$rt_enabled" ] && echo always > "$RT/enabled"; then
		rollup_check 1024 --late-huge
		expect "rollup of a VMA of 4 KiB pages, then THP: the THP is counted" jq -e '.t.thp >= 268435456' "$rolltmp/query" > /dev/null
	else
		skip "rollup of 4 KiB pages, then THP: this kernel has no $RT/enabled"
	fi
	rt_restore
	live_traps
fi
rm -rf "$rolltmp"
