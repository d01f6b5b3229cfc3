# SPDX-License-Identifier: GPL-2.0-or-later
# The ASan/UBSan build of thp (SAN_THP, from 'make B=build/san SAN=1') on live
# paths the recorded trees cannot reach: any sanitizer report fails.
# san_clean LOG: LOG holds no sanitizer report
san_clean() { ! grep -qE 'runtime error|Sanitizer' "$1"; }
# san_first LOG: the first line of a report in LOG, for the failure message
san_first() { grep -m1 -E 'runtime error|ERROR: .*Sanitizer' "$1"; }

if [ -z "$SAN_THP" ] || [ ! -x "$SAN_THP" ]; then
	skip "sanitizer build on the live host: SAN_THP is not set ('make live' builds build/san/thp)"
else
	san_log=$(mktemp)
	chmod 666 "$san_log"

	# a process with nothing to collapse (a sleep): no target at all
	sleep 100 &
	san_sleep=$!
	"$SAN_THP" collapse $san_sleep > /dev/null 2> "$san_log"
	expect "sanitized collapse of a sleep: no report ($(san_first "$san_log"))" san_clean "$san_log"
	kill $san_sleep
	wait $san_sleep 2> /dev/null

	# bench --modes is refused to a user other than root, and leaks nothing
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$SAN_THP" bench --modes always fault > /dev/null 2> "$san_log"
	else
		"$SAN_THP" bench --modes always fault > /dev/null 2> "$san_log"
	fi
	rc=$?
	expect "sanitized bench --modes as a user: refused, exit 1 (got $rc)" [ $rc = 1 ]
	expect "sanitized bench --modes as a user: no report ($(san_first "$san_log"))" san_clean "$san_log"

	# trace (root): sets up and removes its tracefs instance, leaking nothing
	if [ "$(id -u)" = 0 ] && grep -qw tracefs /proc/filesystems; then
		"$SAN_THP" trace -d 1 > /dev/null 2> "$san_log"
		expect "sanitized trace -d 1: no report ($(san_first "$san_log"))" san_clean "$san_log"
	else
		skip "sanitized trace: needs root and tracefs"
	fi
	rm -f "$san_log"
fi
