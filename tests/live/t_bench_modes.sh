# SPDX-License-Identifier: GPL-2.0-or-later
# thp bench/ab --modes (root): the host policy is switched for the measurement and
# put back exactly, also when thp is killed with SIGTERM or a journal is left behind.
T=/sys/kernel/mm/transparent_hugepage
J=/run/thp/bench.journal

# the host's THP settings, without counters
thp_state() { "$THP" status --json --no-procs | jq -S '{settings, khugepaged: [.khugepaged[] | select(.name != "full_scans" and .name != "pages_collapsed")], sizes: [.sizes[] | del(.stats)]}'; }
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

	out=$("$THP" bench bloat -s 4M --modes always,madvise,never --json)
	expect "bench --modes runs once per policy" [ "$(echo "$out" | jq -r '[.results[].enabled] | join(",")')" = "always,madvise,never" ]
	expect "bench --modes restores the exact prior state" same_state "$before"
	expect "bench --modes removes its journal" [ ! -e $J ]

	# SIGTERM while measuring under another policy
	"$THP" bench khugepaged -s 4M --timeout 60 --modes $other > /dev/null &
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
	"$THP" ab -n 1 --modes $other -- sleep 60 &
	pid=$!
	if wait_enabled $other; then
		sleep 0.1
		child=$(pgrep -P $pid)
		kill -TERM $pid
		wait $pid
		expect "ab SIGTERM: prior policy '$orig' back" [ "$(enabled_now)" = "$orig" ]
		expect "ab SIGTERM: journal removed" [ ! -e $J ]
		sleep 0.1
		expect "ab SIGTERM: the command was ended too" sh -c "[ -z '$child' ] || ! ps -o stat= -p $child | grep -qv Z"
	else
		kill $pid 2>/dev/null; wait $pid
		bad "ab --modes $other never switched the policy"
	fi

	# ab as root: every policy arm runs under its policy, current under the prior one
	expect "ab --modes as root runs and restores the prior state" \
		sh -c "'$THP' ab -n 1 --modes $other,current -- true > /dev/null"
	expect "ab --modes: exact prior state" same_state "$before"

	# SIGKILL cannot be caught: the journal is what 'thp restore' reads
	"$THP" bench khugepaged -s 4M --timeout 60 --modes $other > /dev/null &
	pid=$!
	if wait_enabled $other; then
		kill -KILL $pid
		wait $pid
		expect "bench SIGKILL leaves the journal" [ -f $J ]
		expect "thp restore reads the journal" sh -c "'$THP' restore $J > /dev/null"
		expect "thp restore puts the prior policy '$orig' back" [ "$(enabled_now)" = "$orig" ]
		rm -f $J
	else
		kill $pid 2>/dev/null; wait $pid
		bad "bench --modes $other never switched the policy"
	fi

	# a journal left by a killed run holds the true prior policy: the next run restores it
	mkdir -p /run/thp
	printf 'enabled=%s\n' "$orig" > $J
	echo $other > $T/enabled
	"$THP" bench bloat -s 4M --modes madvise > /dev/null
	expect "a stale journal's prior policy is restored" [ "$(enabled_now)" = "$orig" ]
	expect "the stale journal is removed" [ ! -e $J ]

	# whatever happened above, leave the host as it was
	[ "$(enabled_now)" = "$orig" ] || { echo "$orig" > $T/enabled; bad "enabled had to be restored by the test"; }
	rm -f "$before" $J
	"$made_run" && rmdir /run/thp 2>/dev/null
fi
