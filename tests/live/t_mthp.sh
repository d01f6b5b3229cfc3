# SPDX-License-Identifier: GPL-2.0-or-later
# Per-process truth with mTHP, shmem and hugetlb against the running kernel:
# a process holding only 64 KiB folios (ps --folios finds it, WHY names the
# size), --cont against the thpmaps oracle, the huge zero page, a tmpfs
# mounted huge=never, a hugetlb mapping as a row, and a process under
# PR_THP_DISABLE_EXCEPT_ADVISED. Host changes (root) are restored on exit and
# on signals.
T=/sys/kernel/mm/transparent_hugepage
mt=$(mktemp -d)
MAPHOLD="python3 tests/live/maphold.py"

# mt_start NAME CMD...: runs CMD with its stdin held open (fd 7; fd 9 carries
# the FAIL lines of tests/lib.sh) and waits for "ready"; sets mt_pid
mt_start() {
	_n=$1; shift
	"$@" < "$mt/hold" > "$mt/$_n" 2>&1 7>&- 9>&- &
	mt_pid=$!
	_i=0
	while ! grep -q ready "$mt/$_n" 2> /dev/null && kill -0 "$mt_pid" 2> /dev/null && [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}
word() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$1"; }
jqe() { jq -e "$@" > /dev/null; }
mkfifo "$mt/hold"
exec 7<> "$mt/hold"

# the host state these tests change, put back on exit and on signals
for f in "$T/enabled" "$T"/hugepages-*/enabled; do
	[ -f "$f" ] && printf '%s %s\n' "$f" "$(word "$f")"
done > "$mt/saved"
mt_restore() {
	while read -r f v; do echo "$v" > "$f"; done < "$mt/saved"
	[ -n "${mt_mount:-}" ] && umount "$mt_mount" 2> /dev/null
	[ -n "${mt_hp:-}" ] && echo "$mt_hp" > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	exec 7>&-
	wait 2> /dev/null
	rm -rf "$mt"
}
live_traps mt_restore

root=false
[ "$(id -u)" -eq 0 ] && [ -r /proc/kpageflags ] && root=true

# 1. 64 KiB folios only (hugepages-64kB always, 2 MiB madvise, every other
# size never): invisible in smaps, found by --folios; then hugepages-64kB
# never: the folios stay, show says where to find them
if ! $root; then
	skip "mTHP holder: needs root (kpageflags, and to enable hugepages-64kB)"
elif [ ! -f "$T/hugepages-64kB/enabled" ]; then
	skip "mTHP holder: this kernel has no per-size THP (hugepages-64kB, Linux 6.8+)"
else
	for f in "$T"/hugepages-*/enabled; do echo never > "$f"; done
	echo always > "$T/hugepages-64kB/enabled"
	[ -f "$T/hugepages-2048kB/enabled" ] && echo inherit > "$T/hugepages-2048kB/enabled"
	echo madvise > "$T/enabled"
	fb=$(cat "$T/hugepages-64kB/stats/anon_fault_fallback" 2> /dev/null || echo 0)
	mt_start m "$HOG" 16
	mpid=$mt_pid
	if [ "$(cat "$T/hugepages-64kB/stats/anon_fault_fallback" 2> /dev/null || echo 0)" != "$fb" ]; then
		skip "mTHP holder: some 64 KiB faults fell back (memory fragmented)"
	else
		"$THP" ps > "$mt/ps.out" 2>&1
		expect "ps without --folios leaves the mTHP-only holder out" sh -c "! grep -qw '^ *$mpid' '$mt/ps.out'"
		expect "ps ends with the line that mTHP is enabled and --folios shows it" \
			grep -q "^mTHP is enabled (64K always).*'thp ps --folios' (root) shows it" "$mt/ps.out"
		"$THP" ps --folios -o pid --noheadings > "$mt/psf.out" 2>&1
		expect "ps --folios lists the mTHP-only holder without --all" grep -qw "$mpid" "$mt/psf.out"
		"$THP" ps --folios --by-size -p "$mpid" --json > "$mt/psf.json"
		expect "ps --folios: MTHP covers the 16 MiB touched" \
			jqe '.processes[0].mthp >= 16777216' "$mt/psf.json"
		expect "ps --by-size: the 64K column covers the 16 MiB touched" \
			jqe '.processes[0]["64k"] >= 16777216' "$mt/psf.json"
		expect "ps --folios: no anonymous 2 MiB folio" \
			jqe '.processes[0].folios["anon-thp-pmd-aligned-2048kB"] + .processes[0].folios["anon-thp-pte-aligned-2048kB"] == 0' \
			"$mt/psf.json"
		"$THP" show "$mpid" --json > "$mt/show.json"
		a=$(printf '%d' "$(awk '{print $2}' "$mt/m")")
		expect "show: WHY of the hog's mapping names 64 KiB mTHP and the 2 MiB reason" jqe --argjson a "$a" \
			'.vmas[] | select(.start <= $a and $a < .end) | .why |
			 startswith("64 KiB mTHP (hugepages-64kB always); 2 MiB: policy '"'"'madvise'"'"' and range not advised")' \
			"$mt/show.json"
		expect "show --json: mthp_sizes of the hog's mapping is [65536]" jqe --argjson a "$a" \
			'.vmas[] | select(.start <= $a and $a < .end) | .mthp_sizes == [65536]' "$mt/show.json"
		"$THP" show "$mpid" --rollup --cont 16K --cont 64K --cont 2M --json > "$mt/cont.json"
		expect "show --cont on a 64 KiB holder: every counter as thpmaps defines it" \
			python3 tests/thpmaps_oracle.py / "$mpid" "$mt/cont.json" 16K 64K 2M
		# the size set back to never: the folios stay, smaps still shows none
		echo never > "$T/hugepages-64kB/enabled"
		if [ ! -f "$T/hugepages-64kB/stats/nr_anon" ]; then
			skip "mTHP left after 'never': this kernel does not count them (stats/nr_anon, Linux 6.13+)"
		else
			"$THP" show "$mpid" > "$mt/left.out" 2>&1
			expect "show, mTHP left after its size was set to never: the hint to use --folios" \
				grep -q "^THP and WHY above leave it out; 'thp show $mpid --folios' (root) shows which mappings hold it.\$" "$mt/left.out"
		fi
		"$THP" show "$mpid" --folios --json > "$mt/left.json"
		expect "show --folios: WHY of the mapping holding mTHP that no size gives now says so" jqe --argjson a "$a" \
			'.vmas[] | select(.start <= $a and $a < .end) | .why |
			 startswith("holds 16 MiB of PTE-mapped large folios no size gives it now")' "$mt/left.json"
	fi
	kill "$mpid" 2> /dev/null
	while read -r f v; do echo "$v" > "$f"; done < "$mt/saved"
fi

# 2. --cont on a PMD-mapped holder and on its copy-on-write child, against the oracle
if ! $root; then
	skip "--cont on PMD and CoW: needs root (kpageflags)"
elif [ "$(word "$T/enabled")" = never ]; then
	skip "--cont on PMD and CoW: 2 MiB THP policy is never"
else
	mt_start p "$HOG" 16 --huge
	ppid=$mt_pid
	"$THP" show "$ppid" --rollup --cont 16K --cont 64K --cont 2M --json > "$mt/p.json"
	expect "show --cont on a PMD holder: every counter as thpmaps defines it" \
		python3 tests/thpmaps_oracle.py / "$ppid" "$mt/p.json" 16K 64K 2M
	kill "$ppid" 2> /dev/null
fi

# 3. the huge zero page: advised, read, not written
if ! $root; then
	skip "huge zero page: needs root (pagemap frame numbers)"
elif [ "$(cat "$T/use_zero_page" 2> /dev/null)" != 1 ]; then
	skip "huge zero page: use_zero_page is not 1"
else
	mt_start z "$HOG" 8 --huge --read
	zpid=$mt_pid
	za=$(printf '%d' "$(awk '{print $2}' "$mt/z")")
	# what the first page read maps: its kpageflags say KPF_ZERO_PAGE (bit 24) for
	# a zero page, and KPF_THP (bit 22) too for the huge one
	zkind=$(python3 -c "import struct, sys
pm = open('/proc/$zpid/pagemap', 'rb'); pm.seek($za // 4096 * 8)
e = struct.unpack('<Q', pm.read(8))[0]
if not e >> 63: sys.exit(print('absent'))
kf = open('/proc/kpageflags', 'rb'); kf.seek((e & ((1 << 55) - 1)) * 8)
f = struct.unpack('<Q', kf.read(8))[0]
print('memory' if not f >> 24 & 1 else 'huge-zero' if f >> 22 & 1 else 'zero')")
	if [ "$zkind" = zero ]; then
		skip "huge zero page: the read mapped the 4 KiB zero page (the huge one could not be allocated, or is off)"
	elif [ "$zkind" != huge-zero ]; then
		skip "huge zero page: this kernel maps no zero page on read faults (the page read is $zkind)"
	else
		"$THP" show "$zpid" --rollup --json > "$mt/z.json"
		expect "huge zero page: counted apart, 8 MiB mapped" jqe '.huge_zero_mapped >= 8388608' "$mt/z.json"
		expect "huge zero page: not PMD-mapped THP" jqe '.folios["anon-thp-pmd-aligned-2048kB"] == 0' "$mt/z.json"
	fi
	kill "$zpid" 2> /dev/null
fi

# 4. a file on a tmpfs mounted huge=never (and /dev/shm as it is)
if [ "$(id -u)" -ne 0 ]; then
	skip "tmpfs huge=never: needs root to mount a tmpfs"
elif ! mkdir "$mt/tmpfs" || ! mount -t tmpfs -o huge=never,size=16m thp-test "$mt/tmpfs" 2> /dev/null; then
	skip "tmpfs huge=never: mount -t tmpfs -o huge=never failed"
else
	mt_mount=$mt/tmpfs
	mt_start s $MAPHOLD file "$mt/tmpfs/pool" 4
	spid=$mt_pid
	"$THP" show "$spid" --json > "$mt/s.json"
	expect "tmpfs huge=never: the mapping is kind shmem" jqe \
		'.vmas[] | select(.mapping | endswith("/tmpfs/pool")) | .kind == "shmem"' "$mt/s.json"
	expect "tmpfs huge=never: WHY names the mount and its option" jqe \
		'.vmas[] | select(.mapping | endswith("/tmpfs/pool")) |
		 .why_key == "tmpfs-huge-option" and (.why | endswith("tmpfs mounted huge=never"))' "$mt/s.json"
	kill "$spid" 2> /dev/null
	wait "$spid" 2> /dev/null
	umount "$mt/tmpfs" && mt_mount=
fi

# 5. a hugetlb mapping is a row of show, without --all
HP=/sys/kernel/mm/hugepages/hugepages-2048kB
if [ "$(id -u)" -ne 0 ] || [ ! -d "$HP" ]; then
	skip "hugetlb row: needs root and a 2 MiB hugetlb pool"
else
	mt_hp=$(cat "$HP/nr_hugepages")
	echo $((mt_hp + 4)) > "$HP/nr_hugepages"
	if [ "$(cat "$HP/free_hugepages")" -lt 4 ]; then
		skip "hugetlb row: the kernel did not give 4 huge pages (memory fragmented)"
	else
		mt_start h $MAPHOLD hugetlb 8
		hpid=$mt_pid
		"$THP" show "$hpid" > "$mt/h.out"
		expect "show lists the hugetlb mapping without --all" grep -q 'hugetlbfs: static 2 MiB pages, not THP; 8 MiB held' "$mt/h.out"
		"$THP" show "$hpid" --json > "$mt/h.json"
		expect "show --json: the hugetlb row has its page size and Private/Shared_Hugetlb" jqe \
			'.vmas[] | select(.kind == "hugetlb") | .hugetlb_page_size == 2097152 and
			 .private_hugetlb + .shared_hugetlb == 8388608' "$mt/h.json"
		kill "$hpid" 2> /dev/null
		wait "$hpid" 2> /dev/null
	fi
	echo "$mt_hp" > "$HP/nr_hugepages"
	mt_hp=
fi

# 6. PR_THP_DISABLE_EXCEPT_ADVISED, inferred under policy always (Linux 6.18+)
case $(uname -r) in
[0-5].* | 6.[0-9].* | 6.1[0-7].*) ea=false ;;
*) ea=true ;;
esac
if ! $ea; then
	skip "except-advised: PR_THP_DISABLE_EXCEPT_ADVISED needs Linux 6.18+"
elif [ "$(id -u)" -ne 0 ]; then
	skip "except-advised: needs root to set the policy to always"
else
	echo always > "$T/enabled"
	# the parent holds 16 MiB of its own (unadvised: the evidence), then runs a hog
	mt_start e "$THP" exec --except-advised -- python3 -c "import mmap, subprocess
m = mmap.mmap(-1, 16 << 20, mmap.MAP_PRIVATE)
for i in range(0, 16 << 20, 4096): m[i] = 1
subprocess.run(['$HOG', '16'])"
	epid=$mt_pid
	echild=$(pgrep -P "$epid")
	ecomm=$(cat "/proc/$epid/comm")
	"$THP" ps --json -p "$epid,$echild" > "$mt/e.json"
	expect "except-advised: the process that set it is 'except-advised (prctl)'" \
		[ "$(jq -r --argjson p "$epid" '.processes[] | select(.pid == $p) | .thp_state' "$mt/e.json")" = "except-advised (prctl)" ]
	expect "except-advised: its child is 'except-advised (inherited from $epid $ecomm)'" \
		[ "$(jq -r --argjson p "$echild" '.processes[] | select(.pid == $p) | .thp_state' "$mt/e.json")" = "except-advised (inherited from $epid $ecomm)" ]
	"$THP" show "$echild" --json > "$mt/es.json"
	expect "except-advised: WHY of the child's heap says which rule applied" jqe \
		'[.vmas[] | select(.why_key == "process-thp-except-advised")] | length > 0' "$mt/es.json"
	kill "$echild" "$epid" 2> /dev/null
fi

mt_restore
live_traps
