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

# shellcheck disable=SC2046
lint $(find tests bench -name '*.sh' | sort) && echo "lint-tests: every expect checks one command"
