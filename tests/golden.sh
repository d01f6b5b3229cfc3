#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests: every tests/expected/FIXTURE/CASE.args runs
#   thp --root tests/fixtures/FIXTURE ARGS
# and its output (stdout and stderr, then the exit status when not 0) must equal
# CASE.out. THP_REGEN=1 rewrites the .out files instead of comparing.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

run_case() { # run_case FIXTURE ARGSFILE
	# shellcheck disable=SC2046
	COLUMNS=200 "$THP" --root "tests/fixtures/$1" $(cat "$2") 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || echo "[exit $rc]"
}

for args in tests/expected/*/*.args; do
	[ -e "$args" ] || continue
	fx=$(basename "$(dirname "$args")")
	out=${args%.args}.out
	if [ ! -d "tests/fixtures/$fx" ]; then
		bad "$args: no fixture tests/fixtures/$fx"
		continue
	fi
	if [ -n "${THP_REGEN:-}" ]; then
		run_case "$fx" "$args" > "$out"
		ok
		continue
	fi
	if run_case "$fx" "$args" | diff -u "$out" - > /tmp/thp-golden.$$; then
		ok "$fx $(cat "$args")"
	else
		bad "$fx $(cat "$args")"
		head -40 /tmp/thp-golden.$$
	fi
done
rm -f /tmp/thp-golden.$$

# thp show --folios against tests/thpmaps_oracle.py, the definitions of the
# kernel's tools/mm/thpmaps written out in Python, for every process whose
# pagemap a fixture records (with its kpageflags)
if command -v python3 > /dev/null; then
	for kpf in tests/fixtures/*/proc/kpageflags; do
		[ -e "$kpf" ] || continue
		fx=${kpf%/proc/kpageflags}
		pmd=$(cat "$fx/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
		for pm in "$fx"/proc/[0-9]*/pagemap; do
			pid=${pm%/pagemap}
			pid=${pid##*/}
			"$THP" --root "$fx" show "$pid" --rollup --cont 16K --cont 64K --cont "$pmd" --json \
				> /tmp/thp-oracle.$$ 2>&1
			expect "${fx##*/} show $pid --folios --cont: every counter as thpmaps defines it" \
				python3 tests/thpmaps_oracle.py "$fx" "$pid" /tmp/thp-oracle.$$ 16K 64K "$pmd"
			# every page MTHP counts is in one named counter, whatever its order
			"$THP" --root "$fx" ps --folios -p "$pid" --json > /tmp/thp-oracle.$$ 2>&1
			expect "${fx##*/} ps --folios -p $pid: MTHP is the sum of the *-thp-pte-* counters" jq -e \
				'.processes[0] | .mthp == ([.folios | to_entries[] | select(.key | test("-thp-pte-")) | .value] | add)' \
				/tmp/thp-oracle.$$ > /dev/null
		done
	done
	rm -f /tmp/thp-oracle.$$
else
	skip "thpmaps oracle: needs python3"
fi
summary golden
