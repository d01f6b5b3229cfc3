#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every command on every hostile tree (tests/hostile/mktrees.sh): a clear
# message or a partial result, never a crash, a sanitizer report, or a hang.
# Exit 1 and 2 need a "thp: " message; 3 is a finding (diff, doctor, watch).
# Run it with the ASan+UBSan build (make sanitize does) so leaks count too.
# Trees whose links lead out: no output, capture or write may reach outside
# (the marker of the files there never shows; they and the live sysfs stay
# as they were), and the link is named.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
H=build/hostile
MARK=thpSECRET7f3a9c
LIVE_LOCK=/tmp/thp-live.lock
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
HOSTILE_SECRET=$MARK tests/hostile/mktrees.sh "$H" || exit 1

# arguments that keep a command bounded and off the live host
args_for() {
	case $1 in
	capture) echo "-o $tmp/cap" ;;
	watch) echo "-i 0.1 --count 3" ;;
	set) echo "enabled=never khugepaged.pages_to_scan=4096 hugepages.all.enabled=never" ;;
	exec) echo "--status" ;;
	show) echo "812" ;;
	report) echo "$H/$tree" ;;
	*) echo "" ;;
	esac
}

# root reads unreadable files anyway: that tree is also read as nobody
as=
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	as="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	chmod 777 "$tmp"
fi

# leaked: the marker of the files outside the trees is in the last run's
# output or capture (a directory or an archive)
leaked() {
	grep -rqaF "$MARK" "$tmp/out" "$tmp/err" "$tmp/cap" 2> /dev/null && return 0
	[ -f "$tmp/cap.tar.gz" ] && tar -xzOf "$tmp/cap.tar.gz" 2> /dev/null | grep -qaF "$MARK"
}

# the files outside the trees: names, kinds, sizes, times and contents
outside_state() {
	find "$H/.outside" -printf '%p %y %s %T@ %l\n' | sort
	find "$H/.outside" -type f -exec cksum {} + | sort
}

# the live THP and hugetlb settings (writable sysfs files) as "FILE VALUE" lines
live_state() {
	find /sys/kernel/mm/transparent_hugepage /sys/kernel/mm/hugepages -type f -perm -u=w 2> /dev/null |
		sort | while read -r f; do printf '%s %s\n' "$f" "$(cat "$f" 2> /dev/null)"; done
}

# puts back live settings that differ from $tmp/live.before
live_restore() {
	live_state | diff "$tmp/live.before" - | sed -n 's/^< //p' | while read -r f v; do
		case $v in *"["*) v=${v#*[}; v=${v%%]*} ;; esac
		printf '%s' "$v" > "$f" 2> /dev/null
	done
}

# check TREE CMD [ARGS...]: runs one invocation and judges it (as $run_as)
check() {
	tree=$1
	shift
	rm -rf "$tmp/cap" "$tmp/cap.tar.gz"
	# a hang, not a slow run: a capture of the longline tree copies 200 MiB,
	# which takes half a minute under the sanitizer on a busy machine
	# shellcheck disable=SC2086
	timeout 90 $run_as "$THP" --root "$H/$tree" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
	rc=$?
	what="$tree: thp $*${run_as:+ (as nobody)}"
	if [ "$rc" -eq 124 ]; then
		bad "$what: hung (killed after 90 s)"
	elif [ "$rc" -gt 3 ]; then
		bad "$what: exit $rc"
		head -5 "$tmp/err"
	elif grep -qE 'Sanitizer|runtime error|^==[0-9]+==' "$tmp/err"; then
		bad "$what: sanitizer report"
		head -20 "$tmp/err"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] && ! grep -q '^thp: ' "$tmp/err"; then
		bad "$what: exit $rc without a 'thp: ' message"
		head -5 "$tmp/err"
	elif [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] && [ "$1" != ps ]; then
		# (every command says what it found or did, but ps, whose table of no
		# process is no line: a thp that does nothing passes no check)
		bad "$what: exit $rc, and nothing printed"
	elif leaked; then
		bad "$what: shows or records a file outside the tree"
		grep -aF "$MARK" "$tmp/out" "$tmp/err" | head -3
	else
		ok "$what"
	fi
}

# a capture of a tree records a link to a file inside it with the file's
# content, and names the links that leave it (before the commands below
# write into the tree)
T=sys/kernel/mm/transparent_hugepage
"$THP" --root "$H/in-links" capture -o "$tmp/inl" > /dev/null 2> "$tmp/inl.err"
for f in enabled hugepages-2048kB/enabled khugepaged/pages_to_scan; do
	expect_sh "in-links: capture records the linked $f with its content" \
		"[ -f '$tmp/inl/$T/$f' ] && [ ! -L '$tmp/inl/$T/$f' ] && cmp -s '$H/in-links/shared/$T/$f' '$tmp/inl/$T/$f'"
done
# the settings but the two defrag files that lead out
inl_settings() {
	"$THP" --root "$1" --json status 2> /dev/null |
		jq -e '[.settings[], .khugepaged[] | select(.name != "defrag")] + [.sizes[].enabled]'
}
inl_settings "$H/in-links" > "$tmp/inl.want"
expect_sh "in-links: the capture shows the tree's THP settings" \
	"grep -q '\"madvise\"' '$tmp/inl.want' && inl_settings '$tmp/inl' | diff '$tmp/inl.want' -"
expect "in-links: the relative link leaving the tree is named" grep -q "'$T/defrag' points outside the recorded tree" "$tmp/inl.err"
expect "in-links: the absolute link leaving the tree is named" grep -q "'$T/khugepaged/defrag' points outside the recorded tree" "$tmp/inl.err"
expect_sh "in-links: the capture holds nothing from outside the tree" "[ -d '$tmp/inl/$T' ] && ! grep -rqaF '$MARK' '$tmp/inl'"
rm -rf "$tmp/inl"


cmds=$("$THP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
run_as=
outside_state > "$tmp/outside.before"
for tree in $(ls "$H"); do
	# a tree linked to the live sysfs: its writes would change the host
	if [ "$tree" = live-links ]; then
		exec 7>> "$LIVE_LOCK"
		if ! flock -w 600 7; then
			skip "$tree: the host lock $LIVE_LOCK stayed busy for 10 minutes"
			continue
		fi
		live_state > "$tmp/live.before"
	fi
	# the page walk's trees: only the commands that walk pages
	case $tree in pages-*)
		check "$tree" show 4242 --folios --cont 64K
		check "$tree" --json show 4242 --rollup
		check "$tree" ps --all --folios --by-size
		continue
	esac
	for c in $cmds; do
		# serve runs until stopped; what it serves is 'thp metrics', checked here
		case $c in help | serve) continue ;; esac
		# shellcheck disable=SC2046
		check "$tree" $c $(args_for "$c")
		# shellcheck disable=SC2046
		check "$tree" --json $c $(args_for "$c")
	done
	# the other writers and the archive
	check "$tree" persist --systemd
	check "$tree" hugetlb set 2M=1
	check "$tree" capture -o "$tmp/cap.tar.gz"
	# the page walk: page map, page flags and memory blocks damaged as the rest
	check "$tree" show 4242 --folios --cont 64K
	check "$tree" --json show 4242 --rollup
	check "$tree" ps --all --folios --by-size
	case $tree in *-links)
		check "$tree" status
		expect "$tree: the link leaving the tree is named" grep -q 'points outside the recorded tree' "$tmp/err"
	esac
	if [ "$tree" = live-links ]; then
		live_state > "$tmp/live.after"
		if cmp -s "$tmp/live.before" "$tmp/live.after"; then
			ok "$tree: the live THP and hugetlb settings unchanged"
		else
			bad "$tree: the live THP or hugetlb settings changed (put back)"
			diff "$tmp/live.before" "$tmp/live.after"
			live_restore
		fi
		exec 7>&-
	fi
done
outside_state > "$tmp/outside.after"
if cmp -s "$tmp/outside.before" "$tmp/outside.after"; then
	ok "no file outside the trees written"
else
	bad "files outside the trees were written"
	diff "$tmp/outside.before" "$tmp/outside.after" | head -20
fi
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
# names that look like glob patterns are copied as names, and only those
T=sys/kernel/mm/transparent_hugepage
rm -rf "$tmp/cap"
"$THP" --root "$H/globs" capture -o "$tmp/cap" > /dev/null 2>&1
expect "globs: capture succeeds" [ -d "$tmp/cap/$T" ]
expect "globs: the THP directory is copied with every name as it is" [ "$(ls -A "$H/globs/$T")" = "$(ls -A "$tmp/cap/$T")" ]
expect "globs: a file named '*' is copied" cmp -s "$H/globs/$T/*" "$tmp/cap/$T/*"
expect "globs: a directory named '*.d' is copied" cmp -s "$H/globs/$T/*.d/*" "$tmp/cap/$T/*.d/*"
expect_sh "globs: per process, only the files thp reads" "[ -s '$tmp/cap/proc/812/status' ] && [ ! -e '$tmp/cap/proc/812/*' ]"
summary hostile
