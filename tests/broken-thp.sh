#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The suites against a thp that fails: a stand-in that exits 1 printing
# nothing, and one that exits 0 printing nothing. Every check that runs thp
# should fail against both; what passes all the same is listed under each
# summary line: refusals that must leave things as they were (a thp that does
# nothing does that too), exact exit statuses of 1 (the stand-in's), and
# checks of files of the tree. It fails only when a suite gives no summary.
# Usage: tests/broken-thp.sh [SUITE...] (default: the suites on fixtures)
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 1' INT TERM
printf '#!/bin/sh\nexit 1\n' > "$tmp/exit1"
printf '#!/bin/sh\nexit 0\n' > "$tmp/silent"
chmod 755 "$tmp/exit1" "$tmp/silent"
rc=0
for s in ${*:-golden cli control faults outfiles report width hostile completion prometheus}; do
	for t in exit1 silent; do
		THP=$tmp/$t THP_TEST_PASSES=1 sh "tests/$s.sh" < /dev/null > "$tmp/out" 2> /dev/null
		line=$(grep -E "^$s: [0-9]+ passed" "$tmp/out")
		[ -n "$line" ] || { line="no summary"; rc=1; }
		printf '%s (thp %s): %s\n' "$s" "$t" "$line"
		sed -n 's/^PASS: /  passes: /p' "$tmp/out"
	done
done
exit $rc
