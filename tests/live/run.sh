#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Live tests: thp against the running kernel. Every check that needs a kernel
# feature or root says why when it is skipped.
#   tests/live/run.sh [tests/live/t_NAME.sh...]   (default: all of them)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
# As root, the host's THP settings are saved first (thp set --save) and put
# back when the suite ends, also on SIGINT and SIGTERM: a test that stops
# half way leaves no change behind.
live_saved=
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/mm/transparent_hugepage ]; then
	live_saved=$(mktemp)
	"$THP" set --save "$live_saved" > /dev/null
fi
live_put_back() { [ -z "$live_saved" ] || "$THP" restore "$live_saved" > /dev/null 2>&1; }
# live_traps [CMD]: on exit and on SIGINT/SIGTERM run CMD (a test's own
# clean-up), then put the settings back; without CMD only the latter.
live_traps() {
	trap "$1${1:+; }live_put_back; rm -f '$live_saved'" EXIT
	trap "$1${1:+; }live_put_back; rm -f '$live_saved'; exit 130" INT TERM
}
live_traps
live_trapfile=$(mktemp)
[ $# -gt 0 ] || set -- tests/live/t_*.sh
for t in "$@"; do
	. "$t"
	# each file leaves the traps that put the host back (live_traps)
	trap > "$live_trapfile"
	expect "$t leaves the suite's restore traps" [ "$(grep -cE "live_put_back.* (EXIT|INT|TERM)\$" "$live_trapfile")" = 3 ]
done
rm -f "$live_trapfile"
summary live
