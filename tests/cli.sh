#!/bin/sh
# Command-line behaviour: usage errors, help, exit codes, capture round trips,
# and the manual covering every option that --help lists.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
FX=tests/fixtures/debian-6.12-madvise

# exit status and stderr of a command: "RC|first stderr line"
rc_err() { "$@" > /dev/null 2> "$tmp/err"; echo "$?|$(head -1 "$tmp/err")"; }

expect "--help exits 0 and lists status" sh -c "'$THP' --help | grep -q '^  status '"
expect "--version" sh -c "'$THP' --version | grep -q '^thp [0-9]'"
expect "unknown command: exit 2" [ "$(rc_err "$THP" nosuch)" = "2|thp: 'nosuch' is not a thp command; see 'thp --help'" ]
expect "unknown option: exit 2" [ "$(rc_err "$THP" status --bogus | cut -d'|' -f1)" = 2 ]
expect "stray argument: exit 2" [ "$(rc_err "$THP" status extra)" = "2|thp: status: unexpected argument 'extra'" ]
expect "bad global option: exit 2" [ "$(rc_err "$THP" --nope | cut -d'|' -f1)" = 2 ]
expect "missing root: exit 1" [ "$(rc_err "$THP" --root /nonexistent/x status)" = "1|thp: cannot open root '/nonexistent/x': No such file or directory" ]
expect "no command runs status" sh -c "'$THP' --root $FX | head -1 | grep -q '^THP: '"
expect "help CMD equals CMD --help" sh -c "[ \"\$('$THP' help status)\" = \"\$('$THP' status --help)\" ]"
expect "help for an unknown command: exit 2" [ "$(rc_err "$THP" help nosuch | cut -d'|' -f1)" = 2 ]

# every command has --help, and the manual names every long option it lists
cmds=$("$THP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
for c in $cmds; do
	expect "$c --help exits 0" sh -c "'$THP' $c --help > '$tmp/help'"
	for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u); do
		expect "man page documents '$c $o'" grep -q -- "$o" man/thp.1.scd
	done
done

# capture of a recorded tree reproduces it, as a directory and as an archive
"$THP" --root $FX status > "$tmp/want"
expect "capture to a directory" sh -c "'$THP' --root $FX capture -o '$tmp/cap' > /dev/null"
expect "captured tree shows the same host" sh -c "'$THP' --root '$tmp/cap' status | diff '$tmp/want' -"
expect "capture to .tar.gz" sh -c "'$THP' --root $FX capture -o '$tmp/cap.tar.gz' > /dev/null"
mkdir "$tmp/x" && tar -xzf "$tmp/cap.tar.gz" -C "$tmp/x"
expect "archive holds one folder named after it" [ -d "$tmp/x/cap/sys/kernel/mm/transparent_hugepage" ]
expect "archive shows the same host" sh -c "'$THP' --root '$tmp/x/cap' status | diff '$tmp/want' -"
expect "capture --json reports files" sh -c "'$THP' --root $FX capture --json -o '$tmp/cap2' | jq -e '.files > 100' > /dev/null"
: > "$tmp/file"
expect "capture into a file path fails with exit 1" [ "$(rc_err "$THP" --root $FX capture -o "$tmp/file/sub" | cut -d'|' -f1)" = 1 ]

summary cli
