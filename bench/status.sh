#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of `thp status`: median wall time of repeated runs against the live
# kernel, next to `cat` of the same files (the floor any reader pays).
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
T=/sys/kernel/mm/transparent_hugepage
files="/proc/sys/kernel/osrelease /proc/self/auxv /proc/vmstat /proc/meminfo /proc/cmdline"
[ -d $T ] && files="$files $(find $T -type f | tr '\n' ' ')"
n=$(echo "$files" | wc -w)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
hyperfine -N --warmup 20 --runs 300 --export-json "$out/r.json" \
	-n "thp status" "$THP status" \
	-n "thp status --json" "$THP status --json" \
	-n "cat $n files" "cat $files" > /dev/null
jq -r '.results[] | "\(.command): median \(.median * 1000 | . * 1000 | round / 1000) ms (min \(.min * 1000 | . * 1000 | round / 1000) ms)"' "$out/r.json"
jq -r '.results as $r | "ratio thp status / cat: \(($r[0].median / $r[2].median) * 100 | round / 100)"' "$out/r.json"
