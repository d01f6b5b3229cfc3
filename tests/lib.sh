# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of the shell test suites: counting, and the closing summary line.
pass=0 fail=0 skipped=0
# FAIL and SKIP lines go to the suite's own standard output (descriptor 9),
# also from a check whose output is redirected ("expect ... > /dev/null")
exec 9>&1
# ok [DESCRIPTION]: a check passed (named on the output with THP_TEST_PASSES
# set, as tests/broken-thp.sh sets it)
ok() {
	pass=$((pass + 1))
	[ -z "${THP_TEST_PASSES:-}" ] || printf 'PASS: %s\n' "${1:-a check without a name}" >&9
}
bad() { fail=$((fail + 1)); printf 'FAIL: %s\n' "$*" >&9; }
skip() { skipped=$((skipped + 1)); printf 'SKIP: %s\n' "$*" >&9; }
# expect DESCRIPTION COMMAND [ARG...]: passes when the one COMMAND succeeds.
# A compound check ("a && b", "a || b", pipes) is an expect_sh; tests/lint-tests.sh
# rejects "expect ... && ...", which would check only the first part.
expect() {
	[ $# -ge 2 ] || { bad "expect needs a description and a command: $*"; return; }
	_desc=$1
	shift
	if "$@"; then ok "$_desc"; else bad "$_desc"; fi
}
# expect_sh DESCRIPTION 'SHELL EXPRESSION': passes when the expression, run in
# a subshell that sees the suite's variables and functions, succeeds
expect_sh() {
	[ $# -eq 2 ] || { bad "expect_sh needs a description and one expression: $*"; return; }
	if (eval "$2"); then ok "$1"; else bad "$1"; fi
}
# expect_exit DESCRIPTION STATUS COMMAND [ARG...]: passes when COMMAND exits
# with STATUS exactly: "! thp ..." would pass on a crash, a usage error or a
# thp that cannot run at all
expect_exit() {
	[ $# -ge 3 ] || { bad "expect_exit needs a description, a status and a command: $*"; return; }
	_desc=$1 _want=$2
	shift 2
	"$@"
	_erc=$?
	if [ "$_erc" = "$_want" ]; then ok "$_desc"; else bad "$_desc (exit $_erc, not $_want)"; fi
}
# expect_out DESCRIPTION FILTER COMMAND [ARG...]: passes when COMMAND exits 0
# with some standard output and the shell expression FILTER, reading that
# output and seeing the suite's variables and functions, succeeds. A pipeline
# "thp ... | FILTER" has FILTER's status: it passes when thp fails or prints
# nothing that FILTER minds (no line too wide, nothing for promtool to reject).
expect_out() {
	[ $# -ge 3 ] || { bad "expect_out needs a description, a filter and a command: $*"; return; }
	_desc=$1 _filter=$2
	shift 2
	_eout=$(mktemp) || { bad "$_desc (no temporary file)"; return; }
	"$@" > "$_eout"
	_erc=$?
	if [ "$_erc" != 0 ]; then
		bad "$_desc (exit $_erc)"
	elif [ ! -s "$_eout" ]; then
		bad "$_desc (no output)"
	elif (eval "$_filter") < "$_eout"; then
		ok "$_desc"
	else
		bad "$_desc"
	fi
	rm -f "$_eout"
}
# expect_absent DESCRIPTION PATTERN COMMAND [ARG...]: passes when COMMAND exits
# 0 with some standard output and no line of it matches the grep PATTERN
# (a negated grep over thp's output would pass on any failure of thp)
expect_absent() {
	[ $# -ge 3 ] || { bad "expect_absent needs a description, a pattern and a command: $*"; return; }
	_absent=$2
	_adesc=$1
	shift 2
	expect_out "$_adesc" '! grep -q -- "$_absent"' "$@"
}
# on_term CMD: runs the shell command CMD on a pseudo-terminal (script(1),
# TERM=xterm) and prints what it wrote there without carriage returns; the exit
# status is CMD's ("script ... | tr" would have tr's)
on_term() {
	_term=$(TERM=xterm script -qec "$1" /dev/null < /dev/null)
	_trc=$?
	[ -z "$_term" ] || printf '%s\n' "$_term" | tr -d '\r'
	return "$_trc"
}
# on_tty CMD...: on_term on a terminal of 80 columns, colour sequences removed
on_tty() {
	_tty=$(on_term "stty cols 80; $*")
	_trc=$?
	[ -z "$_tty" ] || printf '%s\n' "$_tty" | sed 's/\x1b\[[0-9;]*m//g'
	return "$_trc"
}
# widest: the widest line of the input, in characters (an ellipsis is one)
# traced ARGS...: strace ARGS, LeakSanitizer off in what it runs (it cannot
# work under ptrace and says so on stderr at exit; make sanitize)
traced() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace "$@"; }
widest() { LC_ALL=C.UTF-8 wc -L | tr -d ' '; }
# fits COLUMNS: no line of the input is wider than COLUMNS characters
fits() { [ "$(widest)" -le "$1" ]; }
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
