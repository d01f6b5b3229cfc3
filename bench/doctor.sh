#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of `thp doctor`: median wall time on every recorded fixture and on
# the live host, against the issue's budget of 50 ms per run. Prints each
# median and its ratio to the budget; fails when a fixture is over it.
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
BUDGET_MS=50
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
set --
for f in tests/fixtures/*/; do
	f=${f%/}
	set -- "$@" -n "${f##*/}" "$THP --root $f doctor --severity info"
done
# -i: doctor exits 3 on hosts with findings; hyperfine's notes go to a file
hyperfine -N -i --warmup 5 --runs 50 --export-json "$out/f.json" "$@" > /dev/null 2> "$out/err" ||
	{ cat "$out/err" >&2; exit 1; }
hyperfine -N -i --warmup 5 --runs 50 --export-json "$out/l.json" -n "live host" "$THP doctor" \
	> /dev/null 2> "$out/err" || { cat "$out/err" >&2; exit 1; }
jq -s -r --argjson b "$BUDGET_MS" '[.[].results[]] | .[] |
	"\(.command): median \(.median * 1000 | . * 100 | round / 100) ms, \(.median * 1000 / $b * 100 | round / 100) of the budget"' \
	"$out/f.json" "$out/l.json"
jq -e -r --argjson b "$BUDGET_MS" '[.results[] | select(.median * 1000 >= $b) | .command] |
	if length == 0 then "every fixture under \($b) ms" else "over \($b) ms: \(join(", "))" | halt_error(1) end' "$out/f.json"
