# SPDX-License-Identifier: GPL-2.0-or-later
# thp collapse against live helper processes: untouched-by-THP memory becomes
# huge pages, a range collapses only itself, refusals are explained.
kmaj=$(uname -r | cut -d. -f1) kmin=$(uname -r | cut -d. -f2)
if [ ! -f /sys/kernel/mm/transparent_hugepage/hpage_pmd_size ]; then
	skip "collapse: this kernel has no THP"
elif [ "$kmaj" -lt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -lt 1 ]; }; then
	expect "collapse names the kernel needed" sh -c "'$THP' collapse $$ 2>&1 | grep -q 'needs Linux 6.1+'"
	skip "collapse: $(uname -r) has no MADV_COLLAPSE (Linux 6.1+)"
elif [ "$(id -u)" != 0 ]; then
	skip "collapse: process_madvise needs CAP_SYS_NICE (run the live tests as root)"
else
	cj=$(mktemp)
	hog_start "$HOG" 64
	before=$(hog_field AnonHugePages)
	if [ "${before:-0}" -ne 0 ]; then
		skip "collapse 0 -> 64 MiB: the host policy gave the helper THP at fault time"
		hog_stop
	else
		"$THP" collapse "$hog_pid" --json > "$cj"
		rc=$?
		after=$(hog_field AnonHugePages)
		if [ $rc -ne 0 ] && jq -e '.ranges[] | select(.errno == "ENOMEM" or .errno == "EAGAIN")' "$cj" > /dev/null; then
			skip "collapse 0 -> 64 MiB: no free huge pages now ($(jq -r '[.ranges[].errno] | join(",")' "$cj"))"
		else
			expect "collapse exits 0" [ "$rc" = 0 ]
			expect "collapse: AnonHugePages 0 -> 64 MiB (got ${after} kB)" [ "$after" = 65536 ]
			expect "collapse --json reports collapsed" jq -e '[.ranges[].result] | all(. == "collapsed")' "$cj" > /dev/null
			expect "collapse --json: schema 3, every column a key" jq -e '.schema == "thp-collapse/3" and (.ranges[0] | has("range") and has("rss_before") and has("explanation"))' "$cj" > /dev/null
			expect "collapse --json: the sums, each mapping once" jq -e '.size == ([.ranges[].size] | add) and .anonhuge_before == 0 and .anonhuge_after == 67108864' "$cj" > /dev/null
			expect "collapse --json AnonHugePages after" jq -e '[.ranges[].anonhuge_after] | add == 67108864' "$cj" > /dev/null
			expect "collapse --json leaves the untouched block" jq -e '[.ranges[] | .blocks - .populated_blocks] | add == 1' "$cj" > /dev/null
		fi
		hog_stop
	fi

	# a range collapses only itself (two of eight blocks)
	hog_start "$HOG" 16
	end=$(printf '%x' $((hog_addr + 4 * 1048576)))
	"$THP" collapse "$hog_pid" --range "${hog_addr#0x}-$end" > "$cj"
	rc=$?
	expect "collapse --range: 4 MiB of 16 (rc $rc)" [ "$(hog_field AnonHugePages)" = 4096 ]
	expect "collapse --range: the header says the 4 MiB asked for" \
		grep -q "^Collapsing 4 MiB of PID $hog_pid (.*) into 2 MiB pages with MADV_COLLAPSE" "$cj"
	expect_exit "collapse --vma with no such mapping exits 1" 1 "$THP" collapse "$hog_pid" --vma /no/such/file 2> /dev/null
	# the table options, on the range already collapsed
	rng="${hog_addr#0x}-$end"
	expect "collapse -n -r -o: one raw row of those cells" [ "$("$THP" collapse "$hog_pid" --range "$rng" -n -r -o range,size | sed -n 3p)" = "$rng 4\x20MiB" ]
	expect "collapse: the header line without -n" [ "$("$THP" collapse "$hog_pid" --range "$rng" -o size | sed -n 3p | tr -d ' ')" = SIZE ]
	expect "collapse -b: exact bytes" [ "$("$THP" collapse "$hog_pid" --range "$rng" -n -b -o size | sed -n 3p | tr -d ' ')" = 4194304 ]
	expect "collapse -J -o: only those keys" [ "$("$THP" collapse "$hog_pid" --range "$rng" -J -o range,SIZE | jq -c '[.ranges[] | keys]')" = '[["range","size"]]' ]
	hog_stop

	# refusals carry the reason
	hog_start "$THP" exec --disable "$HOG" 16
	out=$("$THP" collapse "$hog_pid" 2>&1)
	rc=$?
	expect "collapse of a THP-disabled process exits 1" [ "$rc" = 1 ]
	expect "collapse of a THP-disabled process explains EINVAL" sh -c "echo '$out' | grep -q 'EINVAL: the process has THP disabled'"
	expect "collapse of a THP-disabled process gives it no THP" [ "$(hog_field AnonHugePages)" = 0 ]
	hog_stop
	hog_start "$HOG" 16 --nohuge
	expect "collapse skips MADV_NOHUGEPAGE mappings by default" sh -c "'$THP' collapse $hog_pid | grep -q 'skipped 1 mapping marked MADV_NOHUGEPAGE'"
	end=$(printf '%x' $((hog_addr + 2 * 1048576)))
	out=$("$THP" collapse "$hog_pid" --range "${hog_addr#0x}-$end" 2>&1)
	expect "collapse of a MADV_NOHUGEPAGE range explains EINVAL" sh -c "echo '$out' | grep -q 'EINVAL: the mapping is marked MADV_NOHUGEPAGE'"
	hog_stop
	rm -f "$cj"
fi
