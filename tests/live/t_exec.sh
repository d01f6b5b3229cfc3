# SPDX-License-Identifier: GPL-2.0-or-later
# thp exec: the THP mode reaches the command (same PID) and decides whether it
# gets THP after MADV_HUGEPAGE; exit statuses follow env(1).
tmpd=$(mktemp -d)
# (skipped only when thp says why: a thp that fails otherwise fails here)
"$THP" exec --status > /dev/null 2> "$tmpd/err"
rc=$?
if [ "$rc" = 1 ] && grep -q 'PR_GET_THP_DISABLE needs Linux 3.15+' "$tmpd/err"; then
	skip "exec: this kernel has no PR_GET_THP_DISABLE (Linux 3.15+)"
elif [ "$rc" != 0 ]; then
	bad "exec --status: exit $rc ($(head -1 "$tmpd/err"))"
else
	expect "exec: the command's exit status" sh -c "'$THP' exec sh -c 'exit 7'; [ \$? = 7 ]"
	expect "exec: not found is 127" sh -c "'$THP' exec /nonexistent/cmd 2> /dev/null; [ \$? = 127 ]"
	expect "exec: not executable is 126" sh -c "'$THP' exec /proc/self/status 2> /dev/null; [ \$? = 126 ]"
	expect "exec: same PID" sh -c "echo \$\$ > '$tmpd/pid'; exec '$THP' exec sh -c 'echo \$\$ > \"$tmpd/pid2\"'"
	expect "exec: the PIDs match" cmp -s "$tmpd/pid" "$tmpd/pid2"
	expect "exec --disable shows in --status" sh -c "'$THP' exec --disable '$THP' exec --status | grep -q '^disabled:'"
	expect "exec --enable under a disabled parent clears it" sh -c \
		"'$THP' exec --disable sh -c \"'$THP' exec --enable grep -q '^THP_enabled:.1' /proc/self/status\""
	expect "a disabled parent passes the mode on without --enable" sh -c \
		"'$THP' exec --disable sh -c \"grep -q '^THP_enabled:.0' /proc/self/status\""

	# the reference: a plain process that asks for THP gets it on this host
	hog_start "$HOG" 8 --huge
	ref=$(hog_field AnonHugePages)
	hog_stop
	hog_start "$THP" exec --disable "$HOG" 8 --huge
	expect "exec --disable: THP_enabled is 0" [ "$(hog_field THP_enabled)" = 0 ]
	expect "exec --disable: no THP after MADV_HUGEPAGE" [ "$(hog_field AnonHugePages)" = 0 ]
	hog_stop
	if [ "${ref:-0}" -eq 0 ]; then
		skip "exec --enable/--except-advised get THP: a plain MADV_HUGEPAGE process got none here (THP off, or memory fragmented)"
	else
		hog_start "$THP" exec --disable "$THP" exec --enable "$HOG" 8 --huge
		expect "exec --enable under --disable: THP_enabled is 1" [ "$(hog_field THP_enabled)" = 1 ]
		expect "exec --enable under --disable: THP after MADV_HUGEPAGE" [ "$(hog_field AnonHugePages)" -gt 0 ]
		hog_stop
	fi
	if "$THP" exec --except-advised true 2> "$tmpd/err"; then
		expect "exec --except-advised shows in --status" sh -c "'$THP' exec --except-advised '$THP' exec --status | grep -q '^except-advised:'"
		if [ "${ref:-0}" -gt 0 ]; then
			hog_start "$THP" exec --except-advised "$HOG" 8 --huge
			expect "exec --except-advised: THP in MADV_HUGEPAGE ranges" [ "$(hog_field AnonHugePages)" -gt 0 ]
			hog_stop
		fi
		hog_start "$THP" exec --except-advised "$HOG" 8
		expect "exec --except-advised: no THP without advice" [ "$(hog_field AnonHugePages)" = 0 ]
		hog_stop
	else
		expect "exec --except-advised on an older kernel names the version" grep -q 'needs Linux 6.18+' "$tmpd/err"
		skip "exec --except-advised: $(uname -r) has no PR_THP_DISABLE_EXCEPT_ADVISED (Linux 6.18+)"
	fi
fi
rm -rf "$tmpd"
