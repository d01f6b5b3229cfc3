# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile names from a live process reach neither a terminal nor a JSON parser
# raw: tests/live/oddname sets its name (PR_SET_NAME), command line and two
# mappings (a file, a memfd) to bytes that are not UTF-8, a newline and a
# terminal escape (ESC [31m); ps, show, metrics and doctor read it.
ESC=$(printf '\033')

# es_clean FILE: valid UTF-8 (iconv is strict) with no control character but
# the newlines that end lines (C0, DEL, or C1 U+0080..U+009F)
es_clean() {
	iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1 &&
		! tr -d '\n' < "$1" | LC_ALL=C grep -q '[[:cntrl:]]' &&
		! LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"
}
# es_json FILE: es_clean, and one JSON document that jq parses
es_json() { es_clean "$1" && jq -e . "$1" > /dev/null; }
# es_jq ARGS...: jq -e with its output dropped
es_jq() { jq -e "$@" > /dev/null; }

if [ -z "${ODDNAME:-}" ] || [ ! -x "$ODDNAME" ]; then
	skip "escaping of hostile process names: the oddname workload is not built (make live builds it)"
else
	es=$(mktemp -d)
	es_name=$(printf 'x\377\n\033[31mred')
	hog_start "$ODDNAME" "$es_name" "$es/$(printf 'map\376\n\033[31m')f"
	p=$hog_pid
	"$THP" ps -p "$p" > "$es/ps" 2>&1
	expect "ps: one header and one row for the process (no line break from its name)" [ "$(wc -l < "$es/ps")" = 2 ]
	expect "ps: text is UTF-8 without control characters" es_clean "$es/ps"
	expect "ps: the name shows escaped" grep -qF 'x\xff\n\x1b[31mred' "$es/ps"
	"$THP" ps -p "$p" -w > "$es/psw" 2>&1
	expect "ps -w: one row" [ "$(wc -l < "$es/psw")" = 2 ]
	expect "ps -w: the command line shows escaped" grep -qF 'x\xff \x1b[31mred' "$es/psw"
	expect "ps -w: text is clean" es_clean "$es/psw"
	"$THP" ps -p "$p" -w --json > "$es/ps.json"
	expect "ps --json: valid UTF-8 JSON" es_json "$es/ps.json"
	expect "ps --json: the command line holds \\xff for the byte that is not UTF-8" \
		es_jq --arg w "x\\xff $ESC[31mred" '.processes[0].command | contains($w)' "$es/ps.json"
	"$THP" show "$p" -a > "$es/show" 2>&1
	expect "show: text is clean" es_clean "$es/show"
	expect "show: the header line shows the name escaped" grep -qF "Process $p (x\\xff\\n\\x1b[31mred)" "$es/show"
	expect "show: the mapped file shows escaped" grep -qF 'map\xfe\012\x1b[31mf' "$es/show"
	expect "show: the memfd shows escaped" grep -qF '/memfd:x\xff\012\x1b[31mred' "$es/show"
	"$THP" show "$p" -a --json > "$es/show.json"
	expect "show --json: valid UTF-8 JSON" es_json "$es/show.json"
	expect "show --json: the command as escaped text" es_jq --arg w "x\\xff\\n$ESC[31mred" '.command == $w' "$es/show.json"
	expect "show --json: the mapping name as escaped text" \
		es_jq --arg w 'map\xfe\012' '[.vmas[].mapping | select(contains($w))] | length == 1' "$es/show.json"
	"$THP" metrics --top 100000 > "$es/metrics"
	expect "metrics: exposition is clean" es_clean "$es/metrics"
	if [ "$(hog_field AnonHugePages)" -gt 0 ] 2> /dev/null; then
		expect "metrics: the comm label is escaped whole" \
			grep -qF "comm=\"x\\\\xff\\\\x0a\\\\x1b[31mred\"" "$es/metrics"
	else
		skip "metrics comm label: the workload got no huge page (policy or fragmentation)"
	fi
	if command -v promtool > /dev/null; then
		expect "metrics: promtool accepts the exposition" sh -c "promtool check metrics < '$es/metrics' 2> /dev/null"
	fi
	"$THP" doctor > "$es/doctor" 2>&1
	expect "doctor: text is clean" es_clean "$es/doctor"
	"$THP" doctor --json > "$es/doctor.json" 2> /dev/null
	expect "doctor --json: valid UTF-8 JSON" es_json "$es/doctor.json"
	"$THP" show "$es_name" > /dev/null 2> "$es/err"
	expect "an error message quoting the argument is clean" es_clean "$es/err"
	expect "the error message shows the argument escaped" grep -qF "'x\\xff\\x0a\\x1b[31mred'" "$es/err"
	hog_stop
	rm -rf "$es"
fi
