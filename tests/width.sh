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

summary width
