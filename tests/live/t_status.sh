# SPDX-License-Identifier: GPL-2.0-or-later
# thp status --json against the live files, field by field.
T=/sys/kernel/mm/transparent_hugepage
json=$(mktemp)
hogin=

# current word of a choice file, or the integer in the file
live_value() { sed -n 's/.*\[\([^]]*\)\].*/\1/p; /\[/!p' "$1" | head -1; }

if [ ! -d "$T" ]; then
	skip "status: this kernel has no $T"
else
	vm_before=$(mktemp)
	grep -E '^(thp_|compact_|allocstall_|pgscan_kswapd |pgscan_direct )' /proc/vmstat > "$vm_before"
	"$THP" status --json > "$json"
	rc=$?
	expect "status --json exits 0 (exit $rc)" [ "$rc" = 0 ]
	expect "status --json is JSON" jq -e '.schema == "thp-status/2"' "$json" >/dev/null
	for f in "$T"/*; do
		[ -f "$f" ] || continue
		n=${f##*/}
		[ "$n" = hpage_pmd_size ] && continue
		want=$(live_value "$f")
		got=$(jq -r --arg n "$n" '.settings[] | select(.name == $n) | .value' "$json")
		expect "setting $n: live '$want', thp '$got'" [ "$want" = "$got" ]
	done
	expect "pmd_size" [ "$(cat $T/hpage_pmd_size)" = "$(jq -r .kernel.pmd_size "$json")" ]
	expect "page_size" [ "$(getconf PAGESIZE)" = "$(jq -r .kernel.page_size "$json")" ]
	expect "release" [ "$(uname -r)" = "$(jq -r .kernel.release "$json")" ]
	for f in "$T"/khugepaged/*; do
		n=${f##*/}
		case $n in full_scans | pages_collapsed) continue ;; esac
		want=$(live_value "$f")
		got=$(jq -r --arg n "$n" '.khugepaged[] | select(.name == $n) | .value' "$json")
		expect "khugepaged $n: live '$want', thp '$got'" [ "$want" = "$got" ]
	done
	nsizes=0
	for d in "$T"/hugepages-*kB; do
		[ -d "$d" ] || continue
		nsizes=$((nsizes + 1))
		kb=${d##*/hugepages-}
		bytes=$((${kb%kB} * 1024))
		for k in enabled shmem_enabled; do
			got=$(jq -r --argjson b "$bytes" --arg k "$k" '.sizes[] | select(.size == $b) | .[$k] // "absent"' "$json")
			if [ -f "$d/$k" ]; then want=$(live_value "$d/$k"); else want=absent; fi
			expect "size $kb $k: live '$want', thp '$got'" [ "$want" = "$got" ]
		done
	done
	expect "number of sizes" [ "$nsizes" = "$(jq '.sizes | length' "$json")" ]
	# vmstat counters only grow: the JSON value lies between two live reads
	grep -E '^(thp_|compact_|allocstall_|pgscan_kswapd |pgscan_direct )' /proc/vmstat > "$vm_before.after"
	while read -r k v0; do
		v1=$(awk -v k="$k" '$1 == k {print $2}' "$vm_before.after")
		got=$(jq -r --arg k "$k" '.vmstat[$k]' "$json")
		expect "vmstat $k: $v0 <= $got <= $v1" test "$v0" -le "$got" -a "$got" -le "$v1"
	done < "$vm_before"
	expect "vmstat has no other fields" [ "$(wc -l < "$vm_before")" = "$(jq '.vmstat | length' "$json")" ]
	rm -f "$vm_before" "$vm_before.after"
fi

# A process that holds THP must show in the verdict and the process summary.
pmd=$(jq -r '.sizes[] | select(.size == 2097152) | .anon_effective' "$json" 2>/dev/null)
[ -n "$pmd" ] || pmd=$(jq -r '.settings[] | select(.name == "enabled") | .value' "$json" 2>/dev/null)
if [ "$pmd" = always ] || [ "$pmd" = madvise ]; then
	hogin=$(mktemp -u)
	mkfifo "$hogin"
	"$HOG" 64 --huge < "$hogin" > "$hogin.out" &
	hogpid=$!
	exec 7> "$hogin"
	i=0
	while ! grep -q ready "$hogin.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	huge=$(awk '/^AnonHugePages:/ {print $2}' "/proc/$hogpid/smaps_rollup")
	"$THP" status --json > "$json"
	if [ "${huge:-0}" -eq 0 ]; then
		skip "status with a THP holder: the kernel gave the test process no huge page (memory fragmented?)"
	else
		expect "a THP holder is counted" [ "$(jq .processes.with_anon_huge "$json")" -ge 1 ]
		expect "verdict names the holders" jq -e '.verdict.now | test("process(es)? holds? ")' "$json" >/dev/null
	fi
	exec 7>&-
	wait "$hogpid"
	rm -f "$hogin" "$hogin.out"
else
	skip "status with a THP holder: 2 MiB THP policy is '$pmd'"
fi
rm -f "$json"

# NUMA: one entry per node directory, and show's allowed CPUs and nodes are
# the process's own (Cpus_allowed_list, Mems_allowed_list)
nnodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' 2> /dev/null | wc -l)
json=$(mktemp)
"$THP" status --json --no-procs > "$json"
expect "status --json has one numa entry per node ($nnodes)" [ "$(jq '.numa.nodes | length' "$json")" = "$nnodes" ]
if [ "$nnodes" -le 1 ]; then
	expect_sh "status says '1 NUMA node' on a host with one node" "'$THP' status --no-procs | grep -qx '  1 NUMA node'"
fi
"$THP" show $$ --json > "$json"
expect "show: the CPUs allowed are the process's own" \
	[ "$(jq -r .cpus_allowed "$json")" = "$(awk '$1 == "Cpus_allowed_list:" {print $2}' /proc/$$/status)" ]
expect "show: the memory nodes allowed are the process's own" \
	[ "$(jq -r .mems_allowed "$json")" = "$(awk '$1 == "Mems_allowed_list:" {print $2}' /proc/$$/status)" ]
rm -f "$json"
