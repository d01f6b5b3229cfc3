#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The golden and CLI suites again as an unprivileged user (nobody), and the
# commands that change the kernel refusing in one wording ("thp: CMD: ...
# needs root (run as root)") with exit 1.
# Run as root; the checkout and the build must be readable by nobody.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
if [ "$(id -u)" != 0 ]; then
	skip "unprivileged: already running as $(id -un); the other suites covered it"
	summary unprivileged
	exit
fi
if ! command -v setpriv > /dev/null; then
	skip "unprivileged: no setpriv (util-linux)"
	summary unprivileged
	exit
fi
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"; }
if ! as_nobody test -x "$THP" -a -r tests/golden.sh; then
	bad "unprivileged: nobody cannot read $PWD or run $THP (make the checkout world-readable)"
	summary unprivileged
	exit
fi
expect "golden suite as nobody" as_nobody env THP="$THP" sh tests/golden.sh
expect "CLI suite as nobody" as_nobody env THP="$THP" sh tests/cli.sh

# root_only CMD ARGS...: refused as nobody on the live host before any change,
# exit 1, "thp: CMD: ... needs root (run as root)" (CMD: "hugetlb set" for hugetlb)
root_only() {
	as_nobody "$THP" "$@" > /dev/null 2> "$tmp/err" < /dev/null
	rc=$?
	_cmd=$1
	[ "$1" = hugetlb ] && _cmd="$1 $2"
	expect "thp $* as nobody: exit 1 (got $rc)" [ "$rc" -eq 1 ]
	expect "thp $* as nobody says it needs root" grep -qx "thp: $_cmd: .*needs root (run as root)" "$tmp/err"
}
# each names a change of host state; as nobody the kernel refuses any write
T=/sys/kernel/mm/transparent_hugepage
other=never
grep -q '\[never\]' $T/enabled 2> /dev/null && other=madvise
echo "enabled=$other" > "$tmp/saved.state"
cmds=$("$THP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
for c in $cmds; do
	case $c in
	hugetlb) root_only hugetlb set "2M=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 2> /dev/null || echo 0)" ;;
	set) root_only set "enabled=$other" ;;
	restore) root_only restore "$tmp/saved.state" ;;
	persist) root_only persist ;;
	trace) root_only trace ;;
	bench) root_only bench fault --size 4M --modes "$other" ;;
	ab) root_only ab -N 1 --modes "$other" -- true ;;
	esac
done
summary unprivileged
