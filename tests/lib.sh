# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of the shell test suites: counting, and the closing summary line.
pass=0 fail=0 skipped=0
# FAIL and SKIP lines go to the suite's own standard output (descriptor 9),
# also from a check whose output is redirected ("expect ... > /dev/null")
exec 9>&1
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL: %s\n' "$*" >&9; }
skip() { skipped=$((skipped + 1)); printf 'SKIP: %s\n' "$*" >&9; }
# expect DESCRIPTION COMMAND [ARG...]: passes when the one COMMAND succeeds.
# A compound check ("a && b", "a || b", pipes) is an expect_sh; tests/lint-tests.sh
# rejects "expect ... && ...", which would check only the first part.
expect() {
	[ $# -ge 2 ] || { bad "expect needs a description and a command: $*"; return; }
	_desc=$1
	shift
	if "$@"; then ok; else bad "$_desc"; fi
}
# expect_sh DESCRIPTION 'SHELL EXPRESSION': passes when the expression, run in
# a subshell that sees the suite's variables and functions, succeeds
expect_sh() {
	[ $# -eq 2 ] || { bad "expect_sh needs a description and one expression: $*"; return; }
	if (eval "$2"); then ok; else bad "$1"; fi
}
# summary NAME: prints "NAME: N passed, N failed, N skipped" and fails on any failure
summary() {
	printf '%s: %d passed, %d failed, %d skipped\n' "$1" "$pass" "$fail" "$skipped"
	[ "$fail" -eq 0 ]
}
: "${THP:=./thp}"
# every suite runs from the top of the tree: its jq is tests/bin/jq (-e fails
# on no output)
PATH=$PWD/tests/bin:$PATH
export PATH
# hog_start CMD...: runs CMD (a tests/live/hog command line, maybe behind a
# wrapper that execs it) in the background with its stdin held open; waits for
# its "ready ADDR" line (at most hog_wait tenths of a second, default 100)
# and sets hog_pid and hog_addr (empty when it failed).
hog_start() {
	hog_dir=$(mktemp -d)
	mkfifo "$hog_dir/in"
	"$@" < "$hog_dir/in" > "$hog_dir/out" 2>&1 9>&- &
	hog_pid=$!
	exec 8> "$hog_dir/in"
	_i=0
	while ! grep -q '^ready' "$hog_dir/out" 2> /dev/null && kill -0 "$hog_pid" 2> /dev/null && [ $_i -lt $((${hog_wait:-100} * 2)) ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	hog_addr=$(awk '/^ready/ {print $2}' "$hog_dir/out")
}
# hog_stop: lets the hog exit and cleans up.
hog_stop() { exec 8>&-; wait "$hog_pid"; rm -rf "$hog_dir"; }
# hog_kb FIELD: a field of the running hog's smaps_rollup or status, in kB or as shown.
hog_field() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$hog_pid/smaps_rollup" "/proc/$hog_pid/status"; }
