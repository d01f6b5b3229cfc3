#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of `thp bench` and `thp ab` on the live kernel, reported as ratios
# against the issue's baseline: 256 MiB first touch takes 65,536 faults plain
# and 128 hinted; sparse writes every 2 MiB cost 512x the Rss with THP; one
# CoW write splits one PMD; and `thp ab`'s wall time for `true` against
# hyperfine's (the overhead of forking, wait4 and tree sampling).
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# med FILE ARM KEY: the median of an arm's figure in the first result
med() { jq -r --arg a "$2" --arg k "$3" '.results[0].arms[] | select(.arm == $a) | .[$k].median' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b ? a / b : 0) }'; }

"$THP" bench fault -N 3 --json > "$out/fault.json"
pf=$(med "$out/fault.json" plain faults)
hf=$(med "$out/fault.json" MADV_HUGEPAGE faults)
echo "fault 256 MiB: plain $pf faults (ratio to 65536: $(ratio "$pf" 65536)), hinted $hf (ratio to 128: $(ratio "$hf" 128)), fallbacks $(med "$out/fault.json" MADV_HUGEPAGE fallback+)"

"$THP" bench bloat --json > "$out/bloat.json"
r=$(ratio "$(med "$out/bloat.json" MADV_HUGEPAGE rss)" "$(med "$out/bloat.json" plain rss)")
echo "bloat 64 MiB every 2 MiB: Rss ratio $r (ratio to 512: $(ratio "$r" 512))"

"$THP" bench cow -N 3 --json > "$out/cow.json"
s=$(med "$out/cow.json" MADV_HUGEPAGE split_pmd+)
w=$(med "$out/cow.json" MADV_HUGEPAGE writes)
echo "cow 64 MiB: thp_split_pmd $s for $w writes (ratio $(ratio "$s" "$w")); fork() THP/4 KiB median time ratio $(ratio "$(med "$out/cow.json" MADV_HUGEPAGE fork)" "$(med "$out/cow.json" MADV_NOHUGEPAGE fork)")"

"$THP" bench chase -N 3 --json > "$out/chase.json"
echo "chase 1 GiB: THP/4 KiB median ns per load ratio $(ratio "$(med "$out/chase.json" MADV_HUGEPAGE per_load)" "$(med "$out/chase.json" MADV_NOHUGEPAGE per_load)"); $(jq -r '.results[0].reading' "$out/chase.json" | cut -c1-160)"

"$THP" ab -N 30 --modes current --json -- true > "$out/ab.json"
hyperfine -N --warmup 5 --runs 30 --export-json "$out/h.json" true > /dev/null
a=$(jq '.arms[0].wall.median' "$out/ab.json")
h=$(jq '.results[0].median * 1e9' "$out/h.json")
echo "ab -- true: median wall $(ratio "$a" 1000) us vs hyperfine $(ratio "$h" 1000) us (ratio $(ratio "$a" "$h"))"
