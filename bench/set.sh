#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of a `thp set` transaction and its `thp restore` on the live kernel
# (root): three settings changed and put back, next to the same six writes
# done by hand with echo (no checks, no read-back, no saved state). Run under
# the live lock; the host is put back on exit and on signals.
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
T=/sys/kernel/mm/transparent_hugepage
if [ "$(id -u)" != 0 ] || [ ! -d "$T/khugepaged" ]; then
	echo "bench/set.sh: skipped (needs root and $T/khugepaged)"
	exit 0
fi
out=$(mktemp -d)
"$THP" set --save "$out/orig" > /dev/null
trap '"$THP" restore "$out/orig" > /dev/null; rm -rf "$out"' EXIT
trap 'exit 1' INT TERM
word() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$1"; }
e=$(word $T/enabled) d=$(word $T/defrag) k=$(cat $T/khugepaged/defrag)
[ "$e" = never ] && e2=madvise || e2=never
[ "$d" = never ] && d2=madvise || d2=never
k2=$((1 - k))
by_hand="echo $e2 > $T/enabled; echo $d2 > $T/defrag; echo $k2 > $T/khugepaged/defrag;"
by_hand="$by_hand echo $e > $T/enabled; echo $d > $T/defrag; echo $k > $T/khugepaged/defrag"
hyperfine -N --warmup 10 --runs 200 --export-json "$out/r.json" \
	-n "thp set + thp restore (3 settings)" \
	"sh -c '$THP set --save $out/s enabled=$e2 defrag=$d2 khugepaged.defrag=$k2 > /dev/null && $THP restore $out/s > /dev/null'" \
	-n "6 echo writes by hand" "sh -c '$by_hand'" > /dev/null
jq -r '.results[] | "\(.command): median \(.median * 1000 | . * 1000 | round / 1000) ms (min \(.min * 1000 | . * 1000 | round / 1000) ms)"' "$out/r.json"
jq -r '.results as $r | "ratio thp set+restore / echo by hand: \(($r[0].median / $r[1].median) * 100 | round / 100)"' "$out/r.json"
