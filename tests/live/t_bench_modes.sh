# SPDX-License-Identifier: GPL-2.0-or-later
# thp bench/ab --modes (root): the host policy is switched for the measurement and
# put back exactly, also when thp is killed with SIGTERM; after SIGKILL the
# journal it leaves is shown, put back by 'thp restore' and by the next change,
# and never taken for the state before that change; a journal of an earlier
# boot or a damaged one is refused without writing.
T=/sys/kernel/mm/transparent_hugepage
J=/run/thp/journal

# the host's THP settings, without counters
thp_state() { "$THP" status --json --no-procs | jq -S '{settings, khugepaged: [.khugepaged[] | select(.name != "full_scans" and .name != "pages_collapsed")], sizes}'; }
# same_state FILE: the host's settings equal those saved in FILE
same_state() { thp_state | diff -q "$1" - > /dev/null; }
enabled_now() { sed -n 's/.*\[\(.*\)\].*/\1/p' $T/enabled; }
# wait_enabled WORD: up to 10 s until 'enabled' shows WORD
wait_enabled() { i=0; while [ "$(enabled_now)" != "$1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; [ "$(enabled_now)" = "$1" ]; }

if [ "$(id -u)" != 0 ]; then
	skip "bench --modes: needs root to switch the host policy"
elif [ ! -w $T/enabled ]; then
	skip "bench --modes: $T/enabled is not writable"
elif [ -e $J ]; then
	skip "bench --modes: $J exists (an interrupted run): restore it first"
else
	[ -d /run/thp ] && made_run=false || made_run=true
	orig=$(enabled_now)
	other=never
	[ "$orig" = never ] && other=always
	before=$(mktemp)
	thp_state > "$before"

	out=$("$THP" bench bloat --size 4M --modes always,madvise,never --json)
	expect "bench --modes runs once per policy" [ "$(echo "$out" | jq -r '[.results[].enabled] | join(",")')" = "always,madvise,never" ]
	expect "bench --modes restores the exact prior state" same_state "$before"
	expect "bench --modes removes its journal" [ ! -e $J ]

	# the text names each policy, and under 'always' (both arms huge) the
	# reading does not set equal fault counts against each other
	"$THP" bench fault --size 8M -N 1 --modes always > "$before.txt" 2>&1
	expect "bench --modes text names the policy" grep -q '(--modes always)$' "$before.txt"
	expect "bench fault under always: no 'N faults instead of N'" \
		sh -c "! tr -s '\n ' ' ' < '$before.txt' | grep -q ' \([0-9,]*\) faults instead of \1 '"
	expect "bench fault under always: says both arms got huge pages" \
		sh -c "tr -s '\n ' ' ' < '$before.txt' | grep -q 'Both arms got huge pages\|got no huge pages'"
	rm -f "$before.txt"

	# SIGTERM while measuring under another policy
	"$THP" bench khugepaged --size 4M --timeout 60 --modes $other > /dev/null &
	pid=$!
	if wait_enabled $other; then
		kill -TERM $pid
		wait $pid
		rc=$?
		expect "bench killed by SIGTERM dies of it (exit $rc)" [ $rc = 143 ]
		expect "bench SIGTERM: prior policy '$orig' back" [ "$(enabled_now)" = "$orig" ]
		expect "bench SIGTERM: exact prior state" same_state "$before"
		expect "bench SIGTERM: journal removed" [ ! -e $J ]
	else
		kill $pid 2>/dev/null; wait $pid
		bad "bench --modes $other never switched the policy"
	fi

	# ab: SIGTERM ends the command too
	"$THP" ab -N 1 --modes $other -- sleep 60 &
	pid=$!
	if wait_enabled $other; then
		child=
		for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			child=$(pgrep -P $pid) && break
			sleep 0.1
		done
		expect "ab runs the command as its child" [ -n "$child" ]
		kill -TERM $pid
		wait $pid
		expect "ab SIGTERM: prior policy '$orig' back" [ "$(enabled_now)" = "$orig" ]
		expect "ab SIGTERM: journal removed" [ ! -e $J ]
		sleep 0.1
		[ -n "$child" ] && expect_sh "ab SIGTERM: the command was ended too" "! ps -o stat= -p $child | grep -qv Z"
	else
		kill $pid 2>/dev/null; wait $pid
		bad "ab --modes $other never switched the policy"
	fi

	# ab as root: every policy arm runs under its policy, current under the prior one
	expect "ab --modes as root runs and restores the prior state" \
		sh -c "'$THP' ab -N 1 --modes $other,current -- true > /dev/null"
	expect "ab --modes: exact prior state" same_state "$before"
	# the notice: what is switched, from what, and that it is put back; -q silences it
	tmp_notice=$before.notice
	"$THP" ab -N 1 --modes $other,current -- true > /dev/null 2> "$tmp_notice"
	expect "ab --modes names the policy it switches, from and to, and for how long" \
		grep -qx "thp: ab: switches the host-wide THP policy 'enabled' (now '$orig') to $other in turn, for 1 run of the command under each mode, and puts it back after, also on Ctrl-C (-q: no notice)" "$tmp_notice"
	# on a terminal (script), before the first run: ab and bench --modes alike
	TERM=xterm script -qec "'$THP' ab -N 2 --modes $other -- true" /dev/null < /dev/null | tr -d '\r' > "$tmp_notice"
	expect "ab --modes on a terminal: the notice comes first, with how long" \
		sh -c "head -1 '$tmp_notice' | grep -qx \"thp: ab: switches the host-wide THP policy 'enabled' (now '$orig') to $other in turn, for 2 runs of the command under each mode, and puts it back after, also on Ctrl-C (-q: no notice)\""
	TERM=xterm script -qec "'$THP' bench fault --size 4M --reps 1 --modes $other" /dev/null < /dev/null | tr -d '\r' > "$tmp_notice"
	expect "bench --modes on a terminal: the notice comes first, with how long" \
		sh -c "head -1 '$tmp_notice' | grep -qx \"thp: bench: switches the host-wide THP policy 'enabled' (now '$orig') to $other in turn, for 1 repetition of 'fault' under each mode, and puts it back after, also on Ctrl-C (-q: no notice)\""
	expect "bench --modes on a terminal: exact prior state" same_state "$before"
	"$THP" ab -q -N 1 --modes $other -- true > /dev/null 2> "$tmp_notice"
	expect "ab -q: no notice" [ ! -s "$tmp_notice" ]

	# SIGKILL cannot be caught: the journal is what 'thp restore' reads
	kill_bench() { # kill_bench MODE: a bench --modes MODE killed with SIGKILL once MODE runs
		"$THP" bench khugepaged --size 4M --timeout 60 --modes "$1" > /dev/null &
		pid=$!
		if wait_enabled "$1"; then
			kill -KILL $pid
			wait $pid
			return 0
		fi
		kill $pid 2>/dev/null; wait $pid
		bad "bench --modes $1 never switched the policy"
		return 1
	}
	if kill_bench $other; then
		expect "bench SIGKILL leaves the journal" [ -f $J ]
		expect "status shows the unfinished bench" sh -c "'$THP' status --no-procs | tr -s '\n ' ' ' | grep -q \"Pending: 'thp bench khugepaged --size 4M --timeout 60 --modes $other' (pid $pid) did not\""
		expect "doctor: journal-pending, fixed by 'thp restore'" sh -c "'$THP' doctor --json | jq -e '.findings[] | select(.id == \"journal-pending\") | .fix == [\"thp restore\"]' > /dev/null"
		expect "thp restore reads the journal" sh -c "'$THP' restore > /dev/null"
		expect "thp restore puts the prior policy '$orig' back" [ "$(enabled_now)" = "$orig" ]
		expect "thp restore removes the journal" [ ! -e $J ]
	fi

	# the case that used to end at the bench's prior policy: a killed bench, a
	# set, a later bench; the host ends at what the set chose
	for third in always madvise never; do
		[ "$third" != "$orig" ] && [ "$third" != "$other" ] && break
	done
	st=$(mktemp)
	if kill_bench $other; then
		expect "set after a killed bench: exit 0" "$THP" set --save "$st" enabled=$third > /dev/null 2>&1
		expect "set after a killed bench: its value runs" [ "$(enabled_now)" = "$third" ]
		expect "set after a killed bench: the journal is gone" [ ! -e $J ]
		expect "set after a killed bench: the previous state is the one before the bench" grep -qx "enabled=$orig" "$st"
		"$THP" bench bloat --size 4M --modes $other > /dev/null
		expect "a later bench ends at the set's '$third', not at '$orig'" [ "$(enabled_now)" = "$third" ]
		"$THP" restore "$st" > /dev/null
		expect "restore of the saved state gives '$orig'" [ "$(enabled_now)" = "$orig" ]
	fi
	rm -f "$st"

	# journal FIRST_LINES...: a journal of a dead thp (its end line added)
	journal() {
		mkdir -p /run/thp
		printf '%s\n' "$@" > $J
		echo "end 1 $(cksum < $J | cut -d' ' -f1)" >> $J
	}
	boot=$(cat /proc/sys/kernel/random/boot_id)
	journal "thp-state 1" "boot 00000000-0000-4000-8000-000000000000" "owner 999999 1" "command thp bench" "enabled=$other"
	expect_exit "a journal of an earlier boot: restore exits 1" 1 "$THP" restore 2> /dev/null
	expect "... applies nothing" [ "$(enabled_now)" = "$orig" ]
	expect "... and removes it" [ ! -e $J ]
	journal "thp-state 1" "boot $boot" "owner 999999 1" "command thp bench" "enabled=$other"
	sed -i "s/^enabled=$other/enabled=$third/" $J
	expect_exit "a damaged journal: restore exits 1" 1 "$THP" restore 2> /dev/null
	expect "... applies nothing" [ "$(enabled_now)" = "$orig" ]
	expect_exit "... a set is refused (exit 1)" 1 "$THP" set --save "$before.s" enabled=$other 2> /dev/null
	expect "... and writes nothing" [ "$(enabled_now)" = "$orig" ]
	rm -f $J

	# whatever happened above, leave the host as it was
	[ "$(enabled_now)" = "$orig" ] || { echo "$orig" > $T/enabled; bad "enabled had to be restored by the test"; }
	rm -f "$before" "$before.s" "$before.notice" $J
	"$made_run" && rmdir /run/thp 2>/dev/null
fi
