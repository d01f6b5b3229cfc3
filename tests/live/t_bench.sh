# SPDX-License-Identifier: GPL-2.0-or-later
# thp bench and thp ab against the running kernel: counts and states, never times.
T=/sys/kernel/mm/transparent_hugepage
bj=$(mktemp)

# value of an arm's figure: bj_val ARM KEY [STAT]
bj_val() { jq -r --arg a "$1" --arg k "$2" --arg s "${3:-median}" \
	'.results[0].arms[] | select(.arm == $a) | .[$k] | if type == "object" then .[$s] else . end' "$bj"; }

# without a PMU, ab says once that the counters are missing and carries on
if [ -e /sys/bus/event_source/devices/cpu/events ]; then
	skip "ab text without TLB counters: this machine has a PMU"
else
	"$THP" ab -N 2 --modes disabled,current -- true > "$bj" 2>&1
	expect "ab without TLB counters: said once" [ "$(grep -c 'no hardware TLB counters' "$bj")" = 1 ]
fi

# usage errors change nothing and exit 2; --root is refused with 1
expect "bench without a name: exit 2" sh -c "'$THP' bench 2>/dev/null; [ \$? = 2 ]"
expect "bench unknown experiment: exit 2" sh -c "'$THP' bench nosuch 2>/dev/null; [ \$? = 2 ]"
expect "bench bad size: exit 2" sh -c "'$THP' bench fault --size 12Q 2>/dev/null; [ \$? = 2 ]"
expect "bench bad writer: exit 2" sh -c "'$THP' bench cow --writer both 2>/dev/null; [ \$? = 2 ]"
expect "bench bad mode: exit 2" sh -c "'$THP' bench fault --modes always,sometimes 2>/dev/null; [ \$? = 2 ]"
expect "bench with --root: exit 2" sh -c "'$THP' --root tests/fixtures/live-6.18 bench fault 2>/dev/null; [ \$? = 2 ]"
expect "ab without a command: exit 2" sh -c "'$THP' ab -N 2 2>/dev/null; [ \$? = 2 ]"
expect "ab bad mode: exit 2" sh -c "'$THP' ab --modes current,fast -- true 2>/dev/null; [ \$? = 2 ]"
expect "ab missing program: exit 1" sh -c "'$THP' ab -N 1 --modes current -- /nonexistent/prog 2>/dev/null; [ \$? = 1 ]"
expect "ab failing command: exit 1" sh -c "'$THP' ab -N 1 --modes current -- false >/dev/null 2>&1; [ \$? = 1 ]"

# A/B: 2 rounds of 2 arms run 4 times, the second round rotated
if "$THP" ab -N 2 --modes disabled,current --json -- true > "$bj"; then
	expect "ab runs 4 times in rotated order" \
		[ "$(jq -r '[.runs[] | "\(.round):\(.arm)"] | join(" ")' "$bj")" = "0:disabled 0:current 1:current 1:disabled" ]
	expect "ab reports every arm with stats" jq -e '[.arms[].wall.median > 0] | all and length == 2' "$bj" >/dev/null
	expect "ab exit statuses" jq -e '[.runs[].exit == 0] | all' "$bj" >/dev/null
	expect "ab: dTLB misses of every run, or why not (no hardware TLB counters)" jq -e \
		'([.runs[].dtlb_misses != null] | all) or (.dtlb_unavailable | test("no hardware TLB counters|perf_event_paranoid"))' \
		"$bj" >/dev/null
else
	bad "ab -N 2 --modes disabled,current -- true failed"
fi
if [ -n "$HOG" ] && "$THP" ab -N 1 --modes disabled --json -- sh -c "sleep 0.2 | $HOG 8 --huge >/dev/null" > "$bj"; then
	expect "ab disabled: the command's tree gets no THP" [ "$(jq '.runs[0].anonhuge_peak' "$bj")" = 0 ]
fi

pmd=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/enabled 2>/dev/null)
self_thp=$(awk '/^THP_enabled:/ {print $2}' /proc/self/status)
if [ ! -d $T ]; then
	skip "bench: this kernel has no THP"
elif [ "$pmd" = never ]; then
	skip "bench fault/bloat/cow: enabled=never gives MADV_HUGEPAGE no huge pages"
elif [ "$self_thp" = 0 ]; then
	skip "bench: the test runs with THP disabled (PR_SET_THP_DISABLE inherited)"
else
	size=$((32 << 20))
	blocks=$((size >> 21))
	if "$THP" bench fault --size 32M -N 1 --json > "$bj"; then
		h=$(bj_val MADV_HUGEPAGE anonhuge) hf=$(bj_val MADV_HUGEPAGE faults) pf=$(bj_val plain faults)
		fb=$(bj_val MADV_HUGEPAGE fallback+)
		expect "fault hinted gets huge pages ($h)" [ "$h" -gt 0 ]
		expect "fault hinted takes fewer faults ($hf < $pf)" [ "$hf" -lt "$pf" ]
		if [ "$fb" = 0 ] && [ "$h" = $size ] && [ "$pmd" = madvise ]; then
			expect "fault exact: $blocks hinted faults ($hf), $((size / 4096)) plain ($pf)" \
				[ "$hf" = $blocks -a "$pf" = $((size / 4096)) ]
		else
			skip "fault exact figures: $fb fallbacks or enabled=$pmd"
		fi
	else
		bad "bench fault failed"
	fi

	if "$THP" bench bloat --size 32M --json > "$bj"; then
		h=$(bj_val MADV_HUGEPAGE anonhuge) hr=$(bj_val MADV_HUGEPAGE rss) pr=$(bj_val plain rss)
		if [ "$h" = $size ] && [ "$pmd" = madvise ]; then
			expect "bloat hinted Rss / plain Rss = 512 ($hr / $pr)" [ $((hr / pr)) = 512 -a $((hr % pr)) = 0 ]
		else
			skip "bloat ratio: not every block got a THP ($h of $size) or enabled=$pmd"
		fi
	else
		bad "bench bloat failed"
	fi
	expect "bloat --sweep has 10 steps ending at 4 KiB with ratio 1" sh -c \
		"'$THP' bench bloat --sweep --size 8M --json | jq -e '.results[0].arms | length == 10 and .[9].arm == \"4 KiB\" and .[9].ratio.median == 1' >/dev/null"

	for w in child parent; do
		if "$THP" bench cow --size 32M -N 1 --writer $w --json > "$bj"; then
			o=$(bj_val MADV_HUGEPAGE other_anonhuge) s=$(bj_val MADV_HUGEPAGE split_pmd+)
			n=$(bj_val MADV_HUGEPAGE writes) wh=$(bj_val MADV_HUGEPAGE writer_anonhuge)
			pd=$(bj_val MADV_HUGEPAGE writer_private_dirty)
			if [ "$o" = $size ]; then
				expect "cow --writer $w: thp_split_pmd +$s equals $n writes" [ "$s" = "$n" ]
				expect "cow --writer $w: the other side keeps its THPs" [ "$o" = $size ]
				expect "cow --writer $w: the writer lost them ($wh)" [ "$wh" -lt $size ]
				expect "cow --writer $w: 4 KiB copied per write ($pd)" [ "$pd" = $((n * 4096)) ]
			else
				skip "cow --writer $w: the region did not get THP everywhere ($o of $size)"
			fi
			expect "cow --writer $w: no split with MADV_NOHUGEPAGE" [ "$(bj_val MADV_NOHUGEPAGE split_pmd+)" = 0 ]
		else
			bad "bench cow --writer $w failed"
		fi
	done

	if "$THP" bench zeropage --size 16M -N 1 --json > "$bj"; then
		# some kernels (mm_forbids_zeropage) give read faults memory even at 4 KiB
		hog_start "$HOG" 16 --nohuge --read
		zp_rss=$(hog_field Rss)
		hog_stop
		if [ "$(cat $T/use_zero_page 2>/dev/null)" != 1 ]; then
			skip "zeropage reads: use_zero_page is off"
		elif [ "${zp_rss:-0}" -ge 8192 ]; then
			skip "zeropage reads: this kernel maps no zero page on read faults (16 MiB of 4 KiB reads: Rss ${zp_rss} kB)"
		else
			expect "zeropage: reads use no memory" [ "$(bj_val read rss)" = 0 ]
		fi
		expect "zeropage: a write gets THP" [ "$(bj_val write anonhuge)" -gt 0 ]
	else
		bad "bench zeropage failed"
	fi
fi

# MADV_COLLAPSE (6.1+) works whatever 'enabled' says
kv=$(uname -r | awk -F. '{print $1 * 1000 + $2}')
if [ "$kv" -lt 6001 ]; then
	skip "bench collapse: MADV_COLLAPSE needs Linux 6.1+"
elif [ "$self_thp" = 0 ]; then
	skip "bench collapse: the test runs with THP disabled"
elif "$THP" bench collapse --size 16M -N 1 --json > "$bj"; then
	expect "collapse hint: ok" [ "$(bj_val hint madv_collapse)" = ok ]
	expect "collapse hint: all huge after" [ "$(bj_val hint anonhuge_after)" = $((16 << 20)) ]
	expect "collapse hint: none huge before" [ "$(bj_val hint anonhuge_before)" = 0 ]
	expect "collapse-only: ok without a hint" [ "$(bj_val collapse-only madv_collapse)" = ok ]
	expect "collapse-only: all huge after" [ "$(bj_val collapse-only anonhuge_after)" = $((16 << 20)) ]
	expect "collapse disabled: EINVAL" [ "$(bj_val disabled madv_collapse)" = EINVAL ]
	expect "collapse disabled: nothing huge" [ "$(bj_val disabled anonhuge_after)" = 0 ]
else
	bad "bench collapse failed"
fi

# khugepaged waits at most --timeout; chase reports its counters or why not
expect "khugepaged --timeout 1 ends and reports" sh -c \
	"'$THP' bench khugepaged --size 4M --timeout 1 --json | jq -e '.results[0].arms[0] | has(\"collapsed\") and has(\"full_scans+\")' >/dev/null"
if "$THP" bench chase --size 16M --loads 20000 -N 1 --json > "$bj"; then
	expect "chase: 2 arms with a time per load" jq -e '[.results[0].arms[].per_load.median > 0] | all' "$bj" >/dev/null
	expect "chase: dTLB counts or the reason they are missing" sh -c \
		"jq -e '(.results[0].arms[0].dtlb_misses != null) or (.results[0].note | test(\"dTLB counters: none, (this machine exposes no hardware TLB counters|kernel.perf_event_paranoid)\"))' '$bj' >/dev/null"
	expect "chase: the verdict names overlap or -N" jq -e '.results[0].reading | test("overlap|-N 3")' "$bj" >/dev/null
else
	bad "bench chase failed"
fi
rm -f "$bj"
