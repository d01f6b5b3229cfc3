#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The answer on an 80-column terminal: show, doctor, report and help, run on a
# real pseudo-terminal of 80 columns (script), take no line wider and keep
# the columns that identify a row and give the answer (a detail column may be
# left out, and is then named under the table).
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! command -v script > /dev/null; then
	skip "80-column terminal: no 'script' (util-linux) here"
	summary width
	exit
fi

# on_tty CMD: the output of CMD on an 80-column terminal, colour sequences
# and carriage returns removed
on_tty() { script -qc "stty cols 80; $*" /dev/null | tr -d '\r' | sed 's/\x1b\[[0-9;]*m//g'; }
# widest: the widest line of the input, in characters (an ellipsis is one)
widest() { LC_ALL=C.UTF-8 wc -L | tr -d ' '; }
# fits FILE: no line of FILE is wider than 80 columns
fits() { [ "$(widest < "$1")" -le 80 ]; }

# show: the mappings keep START-END, MAPPING (wrapped, never cut), THP and WHY
PX=tests/fixtures/procs-6.18
FO=tests/fixtures/folios-6.18
for c in "$PX show 26828" "$PX show 26829" "$FO show 4242" "$FO show 4242 --folios"; do
	on_tty "'$THP' --root $c" > "$tmp/show"
	expect "thp --root $c at 80 columns: no line wider" fits "$tmp/show"
	expect "thp --root $c at 80 columns: START-END, MAPPING, THP and WHY shown" \
		grep -qE '^START-END +MAPPING +.*THP +WHY$' "$tmp/show"
	expect "thp --root $c at 80 columns: WHY is never left out" \
		[ "$(grep -c '^Not shown at this width:.*\(WHY\|MAPPING\|THP,\|START\)' "$tmp/show")" = 0 ]
	# every file name of MAPPING is whole on a line of the table
	"$THP" --root ${c% --folios} -o mapping -n | grep '^/' | sed 's|.*/||; s| .*||' | sort -u > "$tmp/names"
	expect "thp --root $c: the table has mapped files" [ -s "$tmp/names" ]
	tr -s ' ' '\n' < "$tmp/show" | sed 's|.*/||' | sort -u > "$tmp/words"
	expect "thp --root $c at 80 columns: MAPPING keeps every file name whole" \
		[ "$(grep -cvxFf "$tmp/words" "$tmp/names")" = 0 ]
done

# doctor: every finding of every fixture with doctor goldens, on the terminal
# and in a file (a document of 80 columns), keeps the name, value and source
# of its evidence (wrapped: each source's last part whole on a line)
for args in tests/expected/*/doctor.args; do
	fx=tests/fixtures/$(basename "$(dirname "$args")")
	on_tty "'$THP' --root $fx doctor --severity info" > "$tmp/doctor"
	expect "doctor of $fx at 80 columns: no line wider" fits "$tmp/doctor"
	"$THP" --root "$fx" doctor --severity info > "$tmp/doctor.file"
	expect "doctor of $fx in a file: no line wider than 80" fits "$tmp/doctor.file"
	"$THP" --root "$fx" doctor --severity info --json |
		jq -r '.findings[].evidence[] | .source // empty' | sed 's|.*/||' | sort -u > "$tmp/sources"
	tr -s ' ' '\n' < "$tmp/doctor" | sed 's|.*/||' | sort -u > "$tmp/words"
	expect "doctor of $fx at 80 columns: every source of the evidence shown" \
		[ "$(grep -cvxFf "$tmp/words" "$tmp/sources")" = 0 ]
	expect "doctor of $fx at 80 columns: as many evidence tables as findings" \
		[ "$(grep -c '^  evidence:$' "$tmp/doctor")" = "$(grep -cE '^(CRIT|WARN|INFO) ' "$tmp/doctor")" ]
done
on_tty "'$THP' --root tests/fixtures/doctor-mongo7 doctor" > "$tmp/doctor"
expect "doctor at 80 columns: an evidence row keeps name, value and source" \
	grep -qE '^    THP_enabled +1 \(on\) +/proc/3000/status$' "$tmp/doctor"
expect "doctor at 80 columns: a long fix is one shell command over lines ending in a backslash" \
	grep -qx '    thp exec --disable -- \\' "$tmp/doctor"

# report: the hosts keep their name, policy, huge pages and findings; the
# groups their hosts and how they differ (wrapped)
for fx in live-6.18 always-always doctor-redis-thp-on doctor-mongo8 linux-4.19 rhel6 no-thp; do
	"$THP" --root "tests/fixtures/$fx" status --json > "$tmp/$fx.status.json"
	"$THP" --root "tests/fixtures/$fx" doctor --json > "$tmp/$fx.doctor.json"
done
on_tty "'$THP' report $tmp/*.json" > "$tmp/report"
expect "report at 80 columns: no line wider" fits "$tmp/report"
expect "report at 80 columns: HOST, ENABLED, ANONHUGE, FALLBACK and the findings shown" \
	grep -qE '^HOST +ENABLED .*ANONHUGE +FALLBACK +CRIT +WARN +INFO$' "$tmp/report"
expect "report at 80 columns: every host" [ "$(grep -cE '^(live-6.18|always-always|doctor-[a-z0-9-]+|linux-4.19|rhel6|no-thp) ' "$tmp/report")" = 7 ]
on_tty "'$THP' report --group-by policy $tmp/*.json" > "$tmp/groups"
expect "report --group-by at 80 columns: no line wider" fits "$tmp/groups"
expect "report --group-by at 80 columns: NAMES and DIFFERS FROM GROUP 1 shown" \
	grep -qE '^GROUP +HOSTS +ENABLED .*NAMES +DIFFERS FROM GROUP 1$' "$tmp/groups"
expect "report --group-by at 80 columns: the differences wrapped, not cut" \
	grep -q 'use_zero_page' "$tmp/groups"

# help: thp --help and the help of every command, on the terminal and in a file
on_tty "'$THP' --help" > "$tmp/help"
expect "thp --help at 80 columns: no line wider" fits "$tmp/help"
cmds=$("$THP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
expect "thp --help lists the commands" [ "$(echo "$cmds" | wc -w)" -gt 10 ]
for c in $cmds; do
	on_tty "'$THP' help $c" > "$tmp/help"
	expect "thp help $c at 80 columns: no line wider" fits "$tmp/help"
	"$THP" help "$c" > "$tmp/help.file"
	expect "thp help $c in a file: no line wider than 80" fits "$tmp/help.file"
done
on_tty "'$THP' help set" > "$tmp/help"
expect "thp help set at 80 columns: every key with the first kernel and its meaning" \
	grep -qE '^  vm\.zone_reclaim_mode +2\.6\.16\+ +reclaim on the local node' "$tmp/help"

summary width
