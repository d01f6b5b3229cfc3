#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of the memory 'thp show PID' needs on a process with many
# mappings: build/tests/hog --vmas N holds N one-page VMAs (N: 64 Ki less
# 512, or vm.max_map_count less 512 when that is lower), and /usr/bin/time
# -f %M gives the peak resident memory of 'thp show PID' and 'thp show PID
# --json' (target: 32 MiB each, whatever N). Then a recorded tree whose
# process has an smaps of BENCH_SHOW_TREE_MIB (default 1024) MiB: peak memory
# and seconds. THP_BEFORE=PATH (a thp built from an earlier commit) runs
# beside THP, each figure of the two side by side.
set -eu
cd "$(dirname "$0")/.."
THP=${THP:-./thp}
HOG=${HOG:-build/tests/hog}
BEFORE=${THP_BEFORE:-}
TREE_MIB=${BENCH_SHOW_TREE_MIB:-1024}
LIMIT=$((32 * 1024))
out=$(mktemp -d)
trap 'exec 9>&- 2>/dev/null; rm -rf "$out"' EXIT INT TERM
mkfifo "$out/hold"

# peak THP ARGS...: the peak resident memory (KiB) of THP ARGS, its output
# discarded, and its seconds, as "KIB SECONDS"
peak() {
	/usr/bin/time -f '%M %e' -o "$out/time" "$@" > /dev/null 2> "$out/err" || {
		echo "bench/show.sh: '$*' failed:" >&2
		cat "$out/err" >&2
		exit 1
	}
	cat "$out/time"
}

# row LABEL ARGS...: one line, the figures of THP ARGS (and of THP_BEFORE)
row() {
	label=$1
	shift
	set -- $(peak "$THP" "$@") "$@"
	now=$1 secs=$2
	shift 2
	line=$(printf '%-28s %8d KiB %7.2f s' "$label" "$now" "$secs")
	if [ -n "$BEFORE" ]; then
		set -- $(peak "$BEFORE" "$@")
		line=$(printf '%s   before: %8d KiB %7.2f s' "$line" "$1" "$2")
	fi
	echo "$line"
	[ "$now" -le "$LIMIT" ] || echo "  over the target of $LIMIT KiB"
}

max=$(cat /proc/sys/vm/max_map_count)
n=$((65536 - 512))
[ "$n" -le "$((max - 512))" ] || n=$((max - 512))
exec 9<> "$out/hold"
"$HOG" 1 --vmas "$n" < "$out/hold" > "$out/ready" 9>&- &
pid=$!
i=0
while ! grep -q ready "$out/ready" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
vmas=$(wc -l < "/proc/$pid/maps")
echo "== thp show of a process with $vmas mappings (peak resident memory, /usr/bin/time -f %M)"
row "show (text)" show "$pid"
row "show --json" show "$pid" --json
row "show --all (text)" show "$pid" --all
echo "target: at most $LIMIT KiB each"
exec 9>&-
wait

# a recorded tree: one process whose smaps holds TREE_MIB MiB of mappings
tree="$out/tree"
cp -r tests/fixtures/procs-6.18 "$tree"
python3 - "$tree/proc/26828/smaps" "$TREE_MIB" <<'EOF'
import sys
path, mib = sys.argv[1], int(sys.argv[2])
body = ("Size:                  4 kB\nKernelPageSize:        4 kB\nMMUPageSize:           4 kB\n"
        "Rss:                   4 kB\nPss:                   4 kB\nShared_Clean:          0 kB\n"
        "Shared_Dirty:          0 kB\nPrivate_Clean:         0 kB\nPrivate_Dirty:         4 kB\n"
        "Referenced:            4 kB\nAnonymous:             4 kB\nAnonHugePages:         0 kB\n"
        "ShmemPmdMapped:        0 kB\nFilePmdMapped:         0 kB\nShared_Hugetlb:        0 kB\n"
        "Private_Hugetlb:       0 kB\nSwap:                  0 kB\nSwapPss:               0 kB\n"
        "Locked:                0 kB\nTHPeligible:           0\nVmFlags: rd wr mr mw me ac\n")
with open(path, "w") as f:
    addr, written = 0x10000000, 0
    while written < mib << 20:
        block = "%012x-%012x rw-p 00000000 00:00 0\n" % (addr, addr + 4096) + body
        f.write(block)
        written += len(block)
        addr += 8192
EOF
echo "== thp --root TREE show of a recorded process whose smaps is $TREE_MIB MiB ($(grep -c '^[0-9a-f]*-' "$tree/proc/26828/smaps") mappings)"
row "show (text)" --root "$tree" show 26828
row "show --json" --root "$tree" show 26828 --json
echo "target: at most $LIMIT KiB each"
