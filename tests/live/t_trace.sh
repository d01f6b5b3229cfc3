# SPDX-License-Identifier: GPL-2.0-or-later
# thp trace against the running kernel: compaction events with durations while
# memory is fragmented and compacted, tracefs state unchanged afterwards, SIGINT,
# instances left by a killed thp, and the refusal without root.
TT=/sys/kernel/tracing
tr_tmp=$(mktemp -d)
tr_mounted_by_test=

# tracefs state that thp must leave alone (empty when tracefs is not mounted)
tr_state() {
	grep -q " $TT tracefs " /proc/mounts || { echo "not mounted"; return; }
	ls "$TT/instances"
	cat "$TT/tracing_on" "$TT/set_event" "$TT/trace_clock" "$TT/current_tracer" "$TT/buffer_size_kb"
	grep -l '^1' "$TT"/events/*/enable 2>/dev/null
}
# tr_wait FILE PATTERN: waits up to 30 s (a busy host) for PATTERN in FILE
tr_wait() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $_i -lt 600 ]; do sleep 0.05; _i=$((_i + 1)); done
	grep -q "$2" "$1" 2>/dev/null
}
tr_cleanup() {
	[ -n "${tr_hogpid:-}" ] && kill "$tr_hogpid" 2>/dev/null
	for _d in "$TT"/instances/thp-trace-*; do [ -d "$_d" ] && rmdir "$_d" 2>/dev/null; done
	[ -n "$tr_mounted_by_test" ] && umount "$TT" 2>/dev/null
	rm -rf "$tr_tmp"
}
live_traps tr_cleanup

if command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$THP" trace -d 1 > /dev/null 2> "$tr_tmp/err"
	expect "trace without root exits 1" [ $? -eq 1 ]
	expect "trace without root says so" grep -qx 'thp: trace: needs root (run as root)' "$tr_tmp/err"
else
	skip "trace without root: setpriv (util-linux) is not installed"
fi

if [ "$(id -u)" != 0 ]; then
	skip "trace: needs root"
elif ! grep -qw tracefs /proc/filesystems; then
	skip "trace: this kernel has no tracefs"
elif [ ! -w /proc/sys/vm/compact_memory ]; then
	skip "trace: this kernel has no /proc/sys/vm/compact_memory (CONFIG_COMPACTION)"
else
	# 1. A 5 s trace while a helper holds 256 MiB with holes and the test
	# compacts; the helper is ready before the trace starts (on a busy host
	# it takes seconds, which would leave the compaction after the trace).
	before=$(tr_state)
	mkfifo "$tr_tmp/hogin"
	"$HOG" 256 --nohuge --holes < "$tr_tmp/hogin" > "$tr_tmp/hog.out" &
	tr_hogpid=$!
	exec 8> "$tr_tmp/hogin"
	tr_wait "$tr_tmp/hog.out" ready
	"$THP" trace -d 5 --json > "$tr_tmp/a.json" 2> "$tr_tmp/a.err" &
	tr_pid=$!
	tr_wait "$tr_tmp/a.err" '^Tracing'
	if [ "$before" = "not mounted" ]; then
		expect "the host does not see the tracefs mount of a running trace" \
			sh -c "! grep -q ' tracefs ' /proc/mounts"
	fi
	sh -c 'echo 1 > /proc/sys/vm/compact_memory' &
	tr_writer=$!
	wait "$tr_writer"
	exec 8>&-
	wait "$tr_hogpid"
	tr_hogpid=
	wait "$tr_pid"
	tr_rc=$?
	if [ $tr_rc -ne 0 ] && grep -q 'no compaction or reclaim trace events' "$tr_tmp/a.err"; then
		skip "trace: this kernel has no compaction trace events"
	else
		j=$tr_tmp/a.json
		expect "trace -d 5 exits 0 ($(head -c 300 "$tr_tmp/a.err"))" [ $tr_rc -eq 0 ]
		expect "trace --json has its schema" jq -e '.schema == "thp-trace/2"' "$j" > /dev/null
		expect "trace took about 5 s" jq -e '.duration_ms >= 5000 and .duration_ms < 7000' "$j" > /dev/null
		expect "compaction events with non-zero durations" \
			jq -e '[.events[] | select(.kind != "direct_reclaim" and .duration_ns > 0)] | length > 0' "$j" > /dev/null
		expect "the compact_memory write is a 'manual' stall of its writer (pid $tr_writer)" \
			jq -e --argjson p "$tr_writer" '[.events[] | select(.kind == "manual" and .pid == $p and .tid == $p and .comm == "sh" and .duration_ns > 0 and .result != null)] | length > 0' "$j" > /dev/null
		expect "every kind's total equals the sum of its per-command histograms" jq -e '. as $d |
			all(.totals[]; .kind as $k | .stalls == ([$d.histograms[] | select(.kind == $k) | .count] | add // 0))' "$j" > /dev/null
		expect "histogram buckets add up to the count" \
			jq -e 'all(.histograms[]; .count == ([.buckets[].count] | add))' "$j" > /dev/null
		expect "no events lost at this rate" jq -e '.lost_events == 0' "$j" > /dev/null
		after=$(tr_state)
		[ "$before" = "$after" ] || printf 'tracefs before:\n%s\nafter:\n%s\n' "$before" "$after" >&2
		expect "tracefs state is as before the trace" [ "$before" = "$after" ]
		expect "no thp instance is left" sh -c "! ls -d $TT/instances/thp-trace-* 2>/dev/null"
		# the table options of the totals
		"$THP" trace -d 0.2 -r -n -o kind,stalls > "$tr_tmp/r.out" 2> /dev/null
		expect "trace -r -n -o: raw rows of those columns, no header" [ "$(grep -c '^direct_compaction [0-9,]*$' "$tr_tmp/r.out")" = 1 ]
		expect "trace -n: no header line" [ "$(grep -c '^KIND' "$tr_tmp/r.out")" = 0 ]
		expect "trace -J -o: only those keys in the totals" [ "$("$THP" trace -d 0.2 -J -o KIND,avg_ms 2> /dev/null | jq -c '[.totals[] | keys] | unique')" = '[["avg_ms","kind"]]' ]
		# a compaction during the trace: its histogram, which -r leaves out
		# (as bench and ab leave their charts)
		for tr_opt in "" -r; do
			"$THP" trace -d 1.5 $tr_opt > "$tr_tmp/h$tr_opt.out" 2> "$tr_tmp/h$tr_opt.err" &
			tr_pid=$!
			tr_wait "$tr_tmp/h$tr_opt.err" '^Tracing'
			sh -c 'echo 1 > /proc/sys/vm/compact_memory'
			wait "$tr_pid"
		done
		expect "trace: the compaction's histogram (manual, sh)" grep -q '^manual, sh: ' "$tr_tmp/h.out"
		expect "trace -r: the compaction in the totals" grep -q '^manual [0-9]' "$tr_tmp/h-r.out"
		expect "trace -r: no histogram" sh -c "! grep -q '^manual, ' '$tr_tmp/h-r.out'"

		# 2. With tracefs mounted beforehand: top-level state untouched, tracefs
		# stays mounted, an instance of a killed thp is removed, SIGINT still
		# gives the summary.
		if ! grep -q " $TT tracefs " /proc/mounts; then
			mount -t tracefs nodev "$TT" && tr_mounted_by_test=1
		fi
		before=$(tr_state)
		"$THP" trace -d 30 > /dev/null 2> "$tr_tmp/k.err" &
		tr_pid=$!
		tr_wait "$tr_tmp/k.err" '^Tracing'
		kill -KILL "$tr_pid"
		wait "$tr_pid" 2> /dev/null
		tr_killed=$tr_pid
		expect "a killed trace leaves its instance" [ -d "$TT/instances/thp-trace-$tr_killed" ]
		"$THP" trace > "$tr_tmp/b.out" 2> "$tr_tmp/b.err" &
		tr_pid=$!
		tr_wait "$tr_tmp/b.err" '^Tracing'
		kill -INT "$tr_pid"
		wait "$tr_pid"
		expect "SIGINT ends the trace with exit 0" [ $? -eq 0 ]
		expect "SIGINT still prints the summary" grep -q '^Traced .* events read' "$tr_tmp/b.out"
		expect "the next trace removed the killed one's instance" [ ! -d "$TT/instances/thp-trace-$tr_killed" ]
		expect "tracefs stays mounted when thp did not mount it" grep -q " $TT tracefs " /proc/mounts
		expect "top-level tracefs state is as before" [ "$before" = "$(tr_state)" ]

		# 3. --tlb counts tlb:tlb_flush per process where the kernel has it
		# (x86), and says so where it does not; without --tlb it is not traced.
		"$THP" trace -d 1 --tlb --json > "$tr_tmp/t.json" 2> "$tr_tmp/t.err" &
		tr_pid=$!
		tr_wait "$tr_tmp/t.err" '^Tracing'
		for _i in 1 2 3 4 5; do sh -c true; done
		wait "$tr_pid"
		expect "trace --tlb exits 0 ($(head -c 300 "$tr_tmp/t.err"))" [ $? -eq 0 ]
		if [ -d "$TT/events/tlb/tlb_flush" ]; then
			expect "trace --tlb: flushes of some process" \
				jq -e '.tlb_flushes.available and (.tlb_flushes.processes | length > 0)' "$tr_tmp/t.json" > /dev/null
			expect "trace --tlb: each process's reasons add up to its count" \
				jq -e 'all(.tlb_flushes.processes[]; .count == ([.reasons[]] | add))' "$tr_tmp/t.json" > /dev/null
		else
			expect "trace --tlb without the event says so" grep -q 'no tlb:tlb_flush trace event' "$tr_tmp/t.err"
			expect "trace --tlb without the event: available false" \
				jq -e '.tlb_flushes.available == false' "$tr_tmp/t.json" > /dev/null
		fi
		expect "trace without --tlb counts no TLB flushes" \
			jq -e '.tlb_flushes == null' "$tr_tmp/a.json" > /dev/null
	fi
fi
tr_cleanup
live_traps
