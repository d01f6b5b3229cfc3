#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every check of the shell suites asserts what it says: "expect DESC CMD" runs
# one command, so "expect DESC [ a ] && [ b ]" would check only [ a ], and
# "expect ... | cmd" would count in a subshell. Rejected here: an expect or
# expect_sh followed by &&, || or | outside quotes (a compound check is an
# expect_sh). Prints FILE:LINE: why, and the line, for each.
cd "$(dirname "$0")/.." || exit 1

# lint FILE...: reports each misused expect in the FILEs; fails on any.
# A statement is read with its quoted strings, $(...), ${...} and `...`
# replaced by Q, comments and here-documents dropped; it ends at a newline
# outside quotes (not after a backslash) and is named by its first line.
lint() {
	awk '
function flush() {
	if (stmt ~ /[^[:space:]]/)
		judge(stmt, file, start)
	stmt = ""
}
function judge(s, f, l,   rest, p) {
	# every expect or expect_sh that starts a command in the statement
	while (match(s, /(^|[;&|({}!]|[[:space:]])(expect|expect_sh)[[:space:]]/)) {
		rest = substr(s, RSTART + RLENGTH)
		s = rest
		p = index(rest, ";")
		if (p)
			rest = substr(rest, 1, p - 1)
		if (rest ~ /&&|\|/)
			report(f, l, "expect followed by &&, || or |: use expect_sh for a compound check")
	}
}
function report(f, l, why) {
	printf "%s:%d: %s\n    %s\n", f, l, why, line[l]
	bad++
}
FNR == 1 {
	if (NR > 1)
		flush()
	file = FILENAME
	depth = 0
	heredoc = ""
	stmt = ""
	delete line
}
{
	line[FNR] = $0
	if (heredoc != "") {
		s = $0
		sub(/^\t+/, "", s)
		if (s == heredoc)
			heredoc = ""
		next
	}
	if (depth == 0 && stmt == "")
		start = FNR
	s = $0
	n = length(s)
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		ctx = depth ? st[depth] : ""
		if (ctx == "\047") {
			if (c == "\047")
				depth--
			continue
		}
		if (c == "\\") {
			if (i == n && depth == 0) {
				stmt = stmt " "
				cont = 1
			}
			i++
			continue
		}
		if (ctx == "\"" || ctx == "`") {
			if (c == ctx)
				depth--
			else if (c == "$" && substr(s, i + 1, 1) ~ /[({]/)
				st[++depth] = substr(s, ++i, 1)
			continue
		}
		# top level, or inside $( ) or ${ }
		if (c == "<" && match(substr(s, i), /^<<-?[[:space:]]*["\047]?[A-Za-z_][A-Za-z_0-9]*["\047]?/)) {
			heredoc = substr(s, i, RLENGTH)
			gsub(/^<<-?[[:space:]]*["\047]?|["\047]$/, "", heredoc)
			i += RLENGTH - 1
			continue
		}
		if (c == "\047" || c == "\"" || c == "`" || (c == "$" && substr(s, i + 1, 1) ~ /[({]/)) {
			if (depth == 0)
				stmt = stmt "Q"
			if (c == "$")
				c = substr(s, ++i, 1)
			st[++depth] = c
			continue
		}
		if (ctx == "(" && c == "(")
			st[++depth] = "("
		else if ((ctx == "(" && c == ")") || (ctx == "{" && c == "}"))
			depth--
		else if (depth == 0 && c == "#" && (i == 1 || substr(s, i - 1, 1) ~ /[[:space:];]/))
			break
		else if (depth == 0)
			stmt = stmt c
	}
	if (cont) {
		cont = 0
		next
	}
	if (depth == 0)
		flush()
}
END {
	flush()
	exit bad > 0
}
' "$@"
}

# bare FILE...: reports each check of a thp run that passes when thp fails,
# read line by line (comments and here-documents left out). A run of thp is $THP, or a terminal
# helper that runs it (on_term, on_tty, live_tty).
#  - a negated run of thp (also one piped into grep -q): passes on a crash, a usage
#    error or no output; expect_exit STATUS, expect_absent.
#  - thp's output counted to none ("grep -c X)" = 0", "wc -l)" = 0",
#    '[ -z "$(thp ...)" ]'): passes when thp prints nothing; expect_absent.
#  - its widest line at most N ("widest)" -le"): passes on no output;
#    expect_out ... "fits N".
#  - thp piped into diff, cmp or promtool: the pipe's status is theirs, and
#    no output compares equal to an empty file and passes promtool; expect_out.
bare() {
	awk '
BEGIN {
	run = "([$][{]?THP[}]?|on_term|on_tty|live_tty)"
	neg = "(^|[^[:alnum:]_])![[:space:]]+([A-Za-z_][A-Za-z_0-9]*=[^[:space:]]*[[:space:]]+)*[\"\047]?" run
	count = run ".*[|][[:space:]]*(grep[[:space:]]+-[a-zA-Z]*c|wc[[:space:]]+-l)[^|]*[)][\"]?[[:space:]]*(=|-eq)[[:space:]]*[\"]?0([^0-9]|$)"
	empty = "[[][[:space:]]+-z[[:space:]]+[\"]?[$][(][^)]*" run
	wide = run ".*widest[)][\"]?[[:space:]]*-le"
	piped = run "[^|]*[|][[:space:]]*(diff|cmp|promtool)([[:space:]]|$)"
}
FNR == 1 { heredoc = "" }
heredoc != "" {
	s = $0
	sub(/^\t+/, "", s)
	if (s == heredoc)
		heredoc = ""
	next
}
/^[[:space:]]*#/ { next }
{
	if (match($0, /<<-?[[:space:]]*["\047]?[A-Za-z_][A-Za-z_0-9]*/)) {
		heredoc = substr($0, RSTART, RLENGTH)
		gsub(/^<<-?[[:space:]]*["\047]?/, "", heredoc)
	}
	why = ""
	if ($0 ~ neg)
		why = "a negated thp run passes when thp fails: use expect_exit STATUS or expect_absent"
	else if ($0 ~ count || $0 ~ empty)
		why = "thp output counted to none passes when thp prints nothing: use expect_absent"
	else if ($0 ~ wide)
		why = "a widest line of thp output passes on no output: use expect_out ... \"fits N\""
	else if ($0 ~ piped)
		why = "thp piped into diff, cmp or promtool has their status: use expect_out"
	if (why != "") {
		printf "%s:%d: %s\n    %s\n", FILENAME, FNR, why, $0
		bad++
	}
}
END { exit bad > 0 }
' "$@"
}

# the lint must be able to fail: a sample with six misuses (and checks,
# a here-document and a multi-line string that hold none) gives six reports;
# the sample spells expect as @E@ so that it is no misuse in this file
sample=$(mktemp)
trap 'rm -f "$sample"' EXIT
sed 's/@E@/expect/g' > "$sample" << 'EOF'
@E@ "a" [ "$(foo | bar)" = x ] && [ b ]
@E@ "b" \
	[ "$x" = 1 ] || [ "$x" = 3 ]
	*json*) @E@ "c" cmd "$f" | grep x ;;
@E@_sh "d" 'x' || true
if @E@ "e" true && false; then :; fi
@E@ "f" sh -c "x && y | z"
[ -n "$x" ] && @E@ "g" true
@E@ "h" true; [ x ] && y # @E@ "h" a && b
@E@_sh "i" '[ "$(a | b)" = 1 ] && [ "${x:-a && b}" ]'
@E@ "j" [ "$(echo "a && b")" = 1 ] && [ $((1 + 2)) = 3 ]
cat << EOT
@E@ "k" a && b
EOT
x='
@E@ "l" a && b
'
EOF
n=$(lint "$sample" | grep -c "^$sample:")
[ "$n" = 6 ] || { echo "lint-tests: the lint finds $n misuses in its sample, not 6"; exit 1; }
# ... and bare checks of thp: nine of them, then lines that hold none; the
# sample spells THP as @T@ so that it is none in this file
sed 's/@T@/$THP/g' > "$sample" << 'EOF'
expect "a" sh -c "! '@T@' --root x metrics | grep -q thp_process"
expect_sh "b" "! on_term \"NO_COLOR=1 '@T@' doctor\" | grep -q x"
expect "c" sh -c "! LD_DEBUG=files '@T@' serve 2>&1 | grep -q y"
expect "d" [ "$("@T@" show 1 -n | grep -c '^SIZE')" = 0 ]
expect "e" [ "$("@T@" ps -n --limit 0 | wc -l)" = 0 ]
expect "f" [ -z "$(nothp "@T@" bench fault)" ]
expect "g" [ "$(on_tty "'@T@' ps" | widest)" -le 80 ]
expect "h" sh -c "'@T@' --root '$fx' metrics | promtool check metrics"
expect "i" sh -c "'@T@' --root x status | diff '$tmp/want' -"
	# ! "@T@" status | grep -q x
expect_absent "j" thp_process "@T@" --root x metrics
expect_out "k" "promtool check metrics" "@T@" --root x metrics
expect "l" [ "$("@T@" ps | grep -c x)" = 10 ]
expect "m" sh -c "! grep -rq hunter2 '$tmp/sx'"
expect "n" [ "$(on_tty "'@T@' ps" | widest)" -gt 80 ]
EOF
printf 'cat << X\n%s "$THP" status | grep -q x\nX\n' '!' >> "$sample"
n=$(bare "$sample" | grep -c "^$sample:")
[ "$n" = 9 ] || { echo "lint-tests: the lint finds $n bare checks of thp in its sample, not 9"; exit 1; }

files=$(find tests bench -name '*.sh' | sort)
# shellcheck disable=SC2086
lint $files && echo "lint-tests: every expect checks one command" || exit 1
# shellcheck disable=SC2086
bare $files && echo "lint-tests: no check of thp passes when thp fails"
