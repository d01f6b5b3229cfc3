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

# tty_to FILE CMD: the output of shell command CMD on an 80-column terminal
# (on_tty) in FILE; FILE is left empty when CMD fails, so that every check
# of it fails too (each one needs some output)
tty_to() { on_tty "$2" > "$1" || : > "$1"; }

# show: the mappings keep START-END, MAPPING (wrapped, never cut), THP and WHY
PX=tests/fixtures/procs-6.18
FO=tests/fixtures/folios-6.18
for c in "$PX show 26828" "$PX show 26829" "$FO show 4242" "$FO show 4242 --folios"; do
	tty_to "$tmp/show" "'$THP' --root $c"
	expect_out "thp --root $c at 80 columns: no line wider" "fits 80" cat "$tmp/show"
	expect "thp --root $c at 80 columns: START-END, MAPPING, THP and WHY shown" \
		grep -qE '^START-END +MAPPING +.*THP +WHY$' "$tmp/show"
	expect_absent "thp --root $c at 80 columns: WHY is never left out" \
		'^Not shown at this width:.*\(WHY\|MAPPING\|THP,\|START\)' cat "$tmp/show"
	# every file name of MAPPING is whole on a line of the table
	"$THP" --root ${c% --folios} -o mapping -n | grep '^/' | sed 's|.*/||; s| .*||' | sort -u > "$tmp/names"
	expect "thp --root $c: the table has mapped files" [ -s "$tmp/names" ]
	tr -s ' ' '\n' < "$tmp/show" | sed 's|.*/||' | sort -u > "$tmp/words"
	expect_sh "thp --root $c at 80 columns: MAPPING keeps every file name whole" \
		"[ -s '$tmp/names' ] && [ -s '$tmp/show' ] && [ \"\$(grep -cvxFf '$tmp/words' '$tmp/names')\" = 0 ]"
done

# doctor: every finding of every fixture with doctor goldens, on the terminal
# and in a file (a document of 80 columns), keeps the name, value and source
# of its evidence (wrapped: each source's last part whole on a line). (doctor
# shows findings of every severity; it exits 3 on a critical one, which the
# golden suite checks)
for args in tests/expected/*/doctor.args; do
	fx=tests/fixtures/$(basename "$(dirname "$args")")
	tty_to "$tmp/doctor" "'$THP' --root $fx doctor || [ \$? = 3 ]"
	expect_out "doctor of $fx at 80 columns: no line wider" "fits 80" cat "$tmp/doctor"
	expect_out "doctor of $fx in a file: no line wider than 80" "fits 80" sh -c "'$THP' --root '$fx' doctor || [ \$? = 3 ]"
	"$THP" --root "$fx" doctor --json > "$tmp/doctor-json"
	jq -r '.findings[].evidence[] | .source // empty' "$tmp/doctor-json" | sed 's|.*/||' | sort -u > "$tmp/sources"
	tr -s ' ' '\n' < "$tmp/doctor" | sed 's|.*/||' | sort -u > "$tmp/words"
	expect_sh "doctor of $fx at 80 columns: every source of the evidence shown" \
		"[ -s '$tmp/doctor' ] && jq -e .findings '$tmp/doctor-json' > /dev/null && [ \"\$(grep -cvxFf '$tmp/words' '$tmp/sources')\" = 0 ]"
	expect_sh "doctor of $fx at 80 columns: as many evidence tables as findings" \
		"[ -s '$tmp/doctor' ] && [ \"\$(grep -c '^  evidence:\$' '$tmp/doctor')\" = \"\$(grep -cE '^(CRIT|WARN|INFO) ' '$tmp/doctor')\" ]"
done
tty_to "$tmp/doctor" "'$THP' --root tests/fixtures/doctor-mongo7 doctor"
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
tty_to "$tmp/report" "'$THP' report $tmp/*.json"
expect_out "report at 80 columns: no line wider" "fits 80" cat "$tmp/report"
expect "report at 80 columns: HOST, ENABLED, ANONHUGE, FALLBACK and the findings shown" \
	grep -qE '^HOST +ENABLED .*ANONHUGE +FALLBACK +CRIT +WARN +INFO$' "$tmp/report"
expect "report at 80 columns: every host" [ "$(grep -cE '^(live-6.18|always-always|doctor-[a-z0-9-]+|linux-4.19|rhel6|no-thp) ' "$tmp/report")" = 7 ]
tty_to "$tmp/groups" "'$THP' report --group-by policy $tmp/*.json"
expect_out "report --group-by at 80 columns: no line wider" "fits 80" cat "$tmp/groups"
expect "report --group-by at 80 columns: NAMES and DIFFERS FROM GROUP 1 shown" \
	grep -qE '^GROUP +HOSTS +ENABLED .*NAMES +DIFFERS FROM GROUP 1$' "$tmp/groups"
expect "report --group-by at 80 columns: the differences wrapped, not cut" \
	grep -q 'use_zero_page' "$tmp/groups"

# ps keeps its rows and prints them a chunk at a time (THP_TABLE_CHUNK rows;
# 2,048 by default) in the widths of all of them, the chunks after the first
# on --jobs threads: 49 processes in chunks of 7, on one thread and on 3, on
# the terminal (cut to 80 columns, in UTF-8 and in C) and in a file, give the
# text of one table
PT=tests/fixtures/doctor-pt-shared
for args in "ps --all" "ps --all -w --totals" "ps --all -w -n -o pid,command,cgroup,thp_state,rss,anon,pte" \
	"ps --all -w --sort rss -o command,pid" "ps --all -r -w" "ps --all -P"; do
	for jobs in 1 3; do
		for loc in C.UTF-8 C; do
			tty_to "$tmp/whole" "LC_ALL=$loc '$THP' --root $PT $args"
			tty_to "$tmp/chunks" "LC_ALL=$loc THP_TABLE_CHUNK=7 '$THP' --root $PT $args --jobs $jobs"
			expect_sh "thp $args --jobs $jobs in chunks of 7 rows at 80 columns ($loc): the text of one table" \
				"[ \"\$(grep -c . '$tmp/whole')\" -gt 40 ] && cmp -s '$tmp/whole' '$tmp/chunks'"
		done
		THP_TABLE_CHUNK=7 "$THP" --root $PT $args --jobs $jobs > "$tmp/chunks"
		expect_sh "thp $args --jobs $jobs in chunks of 7 rows in a file: the text of one table" \
			"\"\$THP\" --root $PT $args > '$tmp/whole' && [ \"\$(grep -c . '$tmp/whole')\" -gt 40 ] && cmp -s '$tmp/whole' '$tmp/chunks'"
	done
done

# help: thp --help and the help of every command, on the terminal and in a file
expect_out "thp --help at 80 columns: no line wider" "fits 80" on_tty "'$THP' --help"
cmds=$("$THP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
expect "thp --help lists the commands" [ "$(echo "$cmds" | wc -w)" -gt 10 ]
for c in $cmds; do
	expect_out "thp help $c at 80 columns: no line wider" "fits 80" on_tty "'$THP' help $c"
	expect_out "thp help $c in a file: no line wider than 80" "fits 80" "$THP" help "$c"
done
tty_to "$tmp/help" "'$THP' help set"
expect "thp help set at 80 columns: every key with the first kernel and its meaning" \
	grep -qE '^  vm\.zone_reclaim_mode +2\.6\.16\+ +reclaim on the local node' "$tmp/help"

summary width
