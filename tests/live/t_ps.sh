# SPDX-License-Identifier: GPL-2.0-or-later
# thp ps and thp show against live processes: THP figures equal the kernel's,
# the inherited THP disable names the right ancestor, --folios counts (root),
# a churn of short-lived processes, and a run as an unprivileged user.
T=/sys/kernel/mm/transparent_hugepage
pstmp=$(mktemp -d)

# ps_start NAME CMD...: runs CMD with stdin held open by fd 8; sets ps_pid to its pid
# and waits for "ready" (for hog).
ps_start() {
	_n=$1; shift
	"$@" < "$pstmp/hold" > "$pstmp/$_n" 8>&- &
	ps_pid=$!
	_i=0
	while ! grep -q ready "$pstmp/$_n" 2>/dev/null && [ $_i -lt 200 ]; do sleep 0.05; _i=$((_i + 1)); done
}
kb_of() { awk -v k="$1:" '$1 == k {print $2 * 1024}' "$2"; }

mkfifo "$pstmp/hold"
exec 8<> "$pstmp/hold"

# 1. a THP holder: ps reports exactly its smaps_rollup, show marks the VMA
pmd_policy=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$T/enabled" 2>/dev/null)
if [ "$pmd_policy" = always ] || [ "$pmd_policy" = madvise ]; then
	ps_start a "$HOG" 64 --huge
	hpid=$ps_pid
	addr=$(awk '{print $2}' "$pstmp/a")
	want=$(kb_of AnonHugePages "/proc/$hpid/smaps_rollup")
	"$THP" ps --json -p "$hpid" > "$pstmp/ps.json"
	expect "ps --json: THP of the holder equals its smaps_rollup ($want)" \
		[ "$(jq '.processes[0].thp' "$pstmp/ps.json")" = "$want" ]
	expect "ps --json: RSS equals its smaps_rollup" \
		[ "$(jq '.processes[0].rss' "$pstmp/ps.json")" = "$(kb_of Rss "/proc/$hpid/smaps_rollup")" ]
	if [ "${want:-0}" -gt 0 ]; then
		expect "ps lists the holder by default" sh -c "'$THP' ps -o pid --noheadings 2> /dev/null | grep -qw $hpid"
	else
		skip "ps default listing: the kernel gave the hog no huge page (memory fragmented?)"
	fi
	"$THP" show "$hpid" --json > "$pstmp/show.json"
	a=$(printf '%d' "$addr")
	expect "show: the hog's VMA is eligible" jq -e --argjson a "$a" \
		'.vmas[] | select(.start <= $a and $a < .end) | .eligible == true' "$pstmp/show.json" > /dev/null
	expect "show: the hog's VMA is advised (hg)" jq -e --argjson a "$a" \
		'.vmas[] | select(.start <= $a and $a < .end) | .advice == "hg"' "$pstmp/show.json" > /dev/null
	expect "show: the totals equal smaps_rollup" \
		[ "$(jq .totals.thp "$pstmp/show.json")" = "$want" ]
	if [ "$(jq .pmd_mapped "$pstmp/show.json")" = null ]; then
		skip "show: PMD coverage by PAGEMAP_SCAN needs Linux 6.7+"
	else
		expect "show: PAGEMAP_SCAN finds as much PMD-mapped memory as AnonHugePages" \
			[ "$(jq .pmd_mapped "$pstmp/show.json")" = "$want" ]
	fi
	if [ "$(id -u)" -eq 0 ] && [ -r /proc/kpageflags ]; then
		"$THP" show "$hpid" --rollup --json > "$pstmp/folios.json"
		expect "show --folios: PMD-mapped counter equals AnonHugePages" \
			[ "$(jq '.folios["anon-thp-pmd-aligned-2048kB"]' "$pstmp/folios.json")" = "$want" ]
		"$THP" ps --folios --json -p "$hpid" > "$pstmp/psf.json"
		expect "ps --folios: PMD-mapped counter equals AnonHugePages" \
			[ "$(jq '.processes[0].folios["anon-thp-pmd-aligned-2048kB"]' "$pstmp/psf.json")" = "$want" ]
	else
		skip "show --folios: needs root and /proc/kpageflags"
	fi
else
	skip "ps/show with a THP holder: 2 MiB THP policy is '$pmd_policy'"
fi

# 2. THP disabled by prctl in a parent shows as inherited in the child
if grep -q '^THP_enabled:' /proc/self/status; then
	ps_start d "$NOTHP" sh -c "'$HOG' 4; :"
	shpid=$ps_pid
	_i=0
	while [ -z "$(pgrep -P "$shpid")" ] && [ $_i -lt 100 ]; do sleep 0.05; _i=$((_i + 1)); done
	child=$(pgrep -P "$shpid")
	"$THP" ps --json -p "$shpid,$child" > "$pstmp/inh.json"
	expect "the process that called prctl is 'off (prctl)'" \
		[ "$(jq -r --argjson p "$shpid" '.processes[] | select(.pid == $p) | .thp_state' "$pstmp/inh.json")" = "off (prctl)" ]
	expect "its child is 'off (inherited from $shpid sh)'" \
		[ "$(jq -r --argjson p "$child" '.processes[] | select(.pid == $p) | .thp_state' "$pstmp/inh.json")" = "off (inherited from $shpid sh)" ]
	expect "show names the same ancestor" \
		[ "$("$THP" show "$child" --json | jq .set_by_pid)" = "$shpid" ]
else
	skip "inherited THP disable: this kernel does not show THP_enabled in /proc/PID/status"
fi

# 3. as root: the 64 KiB counter of --folios matches what a process touched
# with hugepages-64kB/enabled=always and every other size never (restored after)
if [ "$(id -u)" -ne 0 ] || [ ! -r /proc/kpageflags ]; then
	skip "--folios 64 KiB: needs root"
elif [ ! -f "$T/hugepages-64kB/enabled" ]; then
	skip "--folios 64 KiB: this kernel has no per-size THP (hugepages-64kB, Linux 6.8+)"
else
	ps_restore() { "$THP" restore "$pstmp/saved" > /dev/null; }
	live_traps ps_restore
	"$THP" set --save "$pstmp/saved" hugepages.all.enabled=never hugepages.64K.enabled=always > /dev/null
	fb=$(cat "$T/hugepages-64kB/stats/anon_fault_fallback" 2>/dev/null || echo 0)
	ps_start m "$HOG" 16
	mpid=$ps_pid
	fa=$(cat "$T/hugepages-64kB/stats/anon_fault_fallback" 2>/dev/null || echo 0)
	"$THP" show "$mpid" --rollup --json > "$pstmp/m.json"
	got=$(jq '.folios["anon-thp-pte-aligned-64kB"]' "$pstmp/m.json")
	ps_restore
	live_traps
	if [ "$fa" != "$fb" ]; then
		skip "--folios 64 KiB: some 64 KiB faults fell back to small pages (memory fragmented)"
	else
		# the 16 MiB touched, plus any 64 KiB folio the C library's own memory got
		expect "--folios: anon-thp-pte-aligned-64kB ($got) covers the 16 MiB touched" [ "$got" -ge $((16 << 20)) ]
		expect "--folios: anon-thp-pte-aligned-64kB ($got) is under 17 MiB" [ "$got" -lt $((17 << 20)) ]
		expect "--folios: no PMD mapping with 2 MiB set to never" \
			[ "$(jq '.folios["anon-thp-pmd-aligned-2048kB"]' "$pstmp/m.json")" = 0 ]
	fi
fi

# 4. churn: processes start and exit while ps scans; no error, exit 0
(
	end=$(($(date +%s) + 3))
	while [ "$(date +%s)" -lt "$end" ]; do
		for _j in 1 2 3 4 5 6 7 8 9 10; do /bin/true & done
		wait
	done
) &
churn=$!
bad_runs=0
runs=0
while kill -0 "$churn" 2>/dev/null; do
	"$THP" ps --all > /dev/null 2> "$pstmp/churn.err" || bad_runs=$((bad_runs + 1))
	"$THP" ps --all --json -w > /dev/null 2>> "$pstmp/churn.err" || bad_runs=$((bad_runs + 1))
	grep -v 'could not be read' "$pstmp/churn.err" > "$pstmp/churn.bad" && bad_runs=$((bad_runs + 1))
	runs=$((runs + 1))
done
wait "$churn"
expect "churn: $runs scans while processes come and go, all exit 0 without errors" [ "$bad_runs" -eq 0 -a "$runs" -gt 0 ]

# 5. as an unprivileged user: a partial view, one notice line, exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv > /dev/null; then
	skip "ps as nobody: needs root and setpriv to switch users"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$THP"; then
	skip "ps as nobody: '$THP' is not executable by nobody"
else
	setpriv --reuid=65534 --regid=65534 --clear-groups "$THP" ps --all > "$pstmp/nobody.out" 2> "$pstmp/nobody.err"
	rc=$?
	expect "ps as nobody exits 0" [ "$rc" -eq 0 ]
	expect "ps as nobody ends with one notice line" \
		grep -Eq '^[0-9]+ process(es)? could not be read: PID [0-9]+: Permission denied.* \(run as root to see all\)$' "$pstmp/nobody.err"
	expect "ps as nobody prints nothing else on stderr" [ "$(wc -l < "$pstmp/nobody.err")" -eq 1 ]
	# PMD coverage of one's own process from PAGEMAP_SCAN, without root
	if [ "$pmd_policy" = always ] || [ "$pmd_policy" = madvise ]; then
		ps_start n setpriv --reuid=65534 --regid=65534 --clear-groups "$HOG" 16 --huge
		npid=$(pgrep -n -u 65534 -f "$HOG 16 --huge")
		want=$(kb_of AnonHugePages "/proc/$npid/smaps_rollup")
		got=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$THP" show "$npid" --json | jq .pmd_mapped)
		if [ "$got" = null ]; then
			skip "show as nobody: PMD coverage by PAGEMAP_SCAN needs Linux 6.7+"
		else
			expect "show as nobody: PAGEMAP_SCAN PMD coverage ($got) equals AnonHugePages ($want)" [ "$got" = "$want" ]
		fi
	fi
	setpriv --reuid=65534 --regid=65534 --clear-groups "$THP" show 1 > /dev/null 2> "$pstmp/nobody.err"
	ps_rc=$?
	expect "show of another user's process as nobody: exit 1 (got $ps_rc)" [ "$ps_rc" -eq 1 ]
	expect "show of another user's process as nobody: a hint to run as root" grep -q 'run as root' "$pstmp/nobody.err"
fi

exec 8>&-
wait 2> /dev/null
rm -rf "$pstmp"
