#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every command on every hostile tree (tests/hostile/mktrees.sh): a clear
# message or a partial result, never a crash, a sanitizer report, or a hang.
# Exit 1 and 2 need a "thp: " message; 3 is a finding (diff, doctor, watch).
# Run it with the ASan+UBSan build (make sanitize does) so leaks count too.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
H=build/hostile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
tests/hostile/mktrees.sh "$H" || exit 1

# arguments that keep a command bounded and off the live host
args_for() {
	case $1 in
	capture) echo "-o $tmp/cap" ;;
	watch) echo "-i 0.1 -c 3" ;;
	set) echo "enabled=never khugepaged.pages_to_scan=4096 hugepages.all.enabled=never" ;;
	exec) echo "--status" ;;
	show) echo "812" ;;
	*) echo "" ;;
	esac
}

# root reads unreadable files anyway: that tree is also read as nobody
as=
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	as="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	chmod 777 "$tmp"
fi

# check TREE CMD [ARGS...]: runs one invocation and judges it (as $run_as)
check() {
	tree=$1
	shift
	rm -rf "$tmp/cap" "$tmp/cap.tar.gz"
	# shellcheck disable=SC2086
	timeout 20 $run_as "$THP" --root "$H/$tree" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
	rc=$?
	what="$tree: thp $*${run_as:+ (as nobody)}"
	if [ "$rc" -eq 124 ]; then
		bad "$what: hung (killed after 20 s)"
	elif [ "$rc" -gt 3 ]; then
		bad "$what: exit $rc"
		head -5 "$tmp/err"
	elif grep -qE 'Sanitizer|runtime error|^==[0-9]+==' "$tmp/err"; then
		bad "$what: sanitizer report"
		head -20 "$tmp/err"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] && ! grep -q '^thp: ' "$tmp/err"; then
		bad "$what: exit $rc without a 'thp: ' message"
		head -5 "$tmp/err"
	else
		ok
	fi
}

cmds=$("$THP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
run_as=
for tree in $(ls "$H"); do
	for c in $cmds; do
		# serve runs until stopped; what it serves is 'thp metrics', checked here
		case $c in help | serve) continue ;; esac
		# shellcheck disable=SC2046
		check "$tree" $c $(args_for "$c")
		# shellcheck disable=SC2046
		check "$tree" --json $c $(args_for "$c")
	done
done
# watch compares recorded trees: every hostile tree as the later sample
for tree in $(ls "$H"); do
	check "$tree" watch --replay "$H/$tree" --replay "$H/empty"
done
if [ -n "$as" ]; then
	run_as=$as
	for c in $cmds; do
		case $c in help | serve) continue ;; esac
		# shellcheck disable=SC2046
		check unreadable $c $(args_for "$c")
	done
	run_as=
fi
summary hostile
