# SPDX-License-Identifier: GPL-2.0-or-later
# show --folios by node on the running kernel: a process holding PMD-mapped
# THPs and 64 KiB folios, whose per-node sums (nodeN/memoryM) must equal its
# folio totals, with every folio in a memory block some node lists. The
# 64 KiB policy it changes (root) is put back on exit and on signals.
NM_T=/sys/kernel/mm/transparent_hugepage
# nm_true DESC FILE EXPR: EXPR is true of the JSON in FILE
nm_true() { expect "$1" [ "$(jq "$3" "$2")" = true ]; }

if [ "$(id -u)" -ne 0 ] || [ ! -r /proc/kpageflags ]; then
	skip "folios by node: needs root (kpageflags)"
elif [ ! -r /sys/devices/system/memory/block_size_bytes ]; then
	skip "folios by node: this kernel shows no memory blocks (/sys/devices/system/memory)"
elif grep -q '\[never\]' "$NM_T/enabled"; then
	skip "folios by node: 2 MiB THP policy is never"
else
	nm_saved=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$NM_T/hugepages-64kB/enabled" 2> /dev/null)
	nm_restore() { [ -z "$nm_saved" ] || echo "$nm_saved" > "$NM_T/hugepages-64kB/enabled"; }
	live_traps nm_restore
	[ -z "$nm_saved" ] || echo madvise > "$NM_T/hugepages-64kB/enabled"
	# 16 MiB advised from 4 KiB past a 2 MiB boundary: 7 PMD slots, and
	# 64 KiB folios in the 2 MiB before them
	hog_start "$HOG" 16 --huge --misalign
	"$THP" show "$hog_pid" --rollup --json > "$hog_dir/f.json"
	nm_true "folios by node: the holder has PMD-mapped THPs" "$hog_dir/f.json" \
		'.folios["anon-thp-pmd-aligned-2048kB"] >= 2097152'
	nm_true "folios by node: the per-node PMD bytes add up to the PMD total" "$hog_dir/f.json" \
		'([.folio_nodes[].pmd] | add) == ([.folios | to_entries[] | select(.key | test("-thp-pmd-aligned-")) | .value] | add)'
	nm_true "folios by node: the per-node mTHP bytes add up to the PTE-mapped total" "$hog_dir/f.json" \
		'([.folio_nodes[].mthp] | add) == ([.folios | to_entries[] | select(.key | test("-thp-pte-")) | .value] | add)'
	nm_true "folios by node: every folio lies in a memory block of a node" "$hog_dir/f.json" \
		'[.folio_nodes[] | select(.node == null)] == []'
	nm_nodes=$(ls -d /sys/devices/system/node/node[0-9]*/memory[0-9]* | sed 's|/memory[0-9]*$||' | sort -u | wc -l)
	expect "folios by node: one entry per node with memory blocks ($nm_nodes)" \
		[ "$(jq '.folio_nodes | length' "$hog_dir/f.json")" = "$nm_nodes" ]
	if [ -z "$nm_saved" ]; then
		skip "folios by node, mTHP: this kernel has no per-size THP (hugepages-64kB, Linux 6.8+)"
	elif [ "$(jq '.folios["anon-thp-pte-aligned-64kB"]' "$hog_dir/f.json")" = 0 ]; then
		skip "folios by node, mTHP: no 64 KiB fault succeeded (memory fragmented)"
	else
		nm_true "folios by node: the 64 KiB folios are on a node" "$hog_dir/f.json" \
			'([.folio_nodes[] | select(.node != null) | .mthp] | add) >= .folios["anon-thp-pte-aligned-64kB"]'
	fi
	hog_stop
	nm_restore
	live_traps
fi
