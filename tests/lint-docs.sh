#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The manual and the README follow the tree.
#
# Schemas: every JSON document thp prints is documented in the manual's
# JSON OUTPUT section at the version it prints, as "schema": "thp-NAME/N"
# with its members. The version printed is the highest one of each name in
# src (a lower one is only read: report reads thp-status/1 documents). A
# schema quoted anywhere in the manual ("thp-NAME/N") is one thp prints; a
# version named without quotes (a former one: "thp-ps/1 had ...") is not
# above the one printed.
#
# Layout: README's Layout section names every directory at the top of the
# tree, in src/ and in tests/ (as "DIR/"), and the files it names in an entry
# of src/ are in that directory.
#
# Formatting: the manual, built by scdoc, formats without a troff warning
# (a table cell too narrow for its word: "can't break line") at 60, 80 and
# 120 columns.
#
# MAN and README name other files to check (default: the tree's).
cd "$(dirname "$0")/.." || exit 1
man=${MAN:-man/thp.1.scd}
readme=${README:-README.md}
bad=

# printed: NAME/N, the highest N of each NAME in src
printed=$(grep -rhoE '"thp-[a-z-]+/[0-9]+"' src | tr -d '"' |
	awk -F/ '!($1 in v) || $2 + 0 > v[$1] + 0 { v[$1] = $2 } END { for (n in v) print n "/" v[n] }' | sort)
[ -n "$printed" ] || { echo "lint-docs: no schema strings found in src"; exit 1; }
documented=$(sed -n '/^# JSON OUTPUT/,/^# [A-Z]/p' "$man" | grep -oE '"schema": *"thp-[a-z-]+/[0-9]+"' |
	grep -oE 'thp-[a-z-]+/[0-9]+' | sort -u)
quoted=$(grep -oE '"thp-[a-z-]+/[0-9]+"' "$man" | tr -d '"' | sort -u)
named=$(grep -oE 'thp-[a-z-]+/[0-9]+' "$man" | sort -u)

for s in $printed; do
	echo "$documented" | grep -qxF "$s" ||
		bad="$bad
$man: JSON OUTPUT has no \"schema\": \"$s\" (printed by $(grep -rlF "\"$s\"" src | paste -sd' '))"
done
for s in $quoted; do
	echo "$printed" | grep -qxF "$s" || bad="$bad
$man: \"$s\" is not a schema thp prints (it prints: $(echo "$printed" | grep -E "^${s%/*}/[0-9]+$" || echo "no ${s%/*}"))"
done
for s in $named; do
	cur=$(echo "$printed" | grep -E "^${s%/*}/[0-9]+$")
	if [ -z "$cur" ]; then
		bad="$bad
$man: $s: thp prints no schema ${s%/*}"
	elif [ "${s#*/}" -gt "${cur#*/}" ]; then
		bad="$bad
$man: $s: thp prints $cur"
	fi
done

layout=$(sed -n '/^## Layout/,/^## [^L]/p' "$readme")
[ -n "$layout" ] || bad="$bad
$readme: no Layout section"
# the files an entry of src/ names (cmd.h, args.c) are in its directory
for f in $(echo "$layout" | awk '/^    [^ ]/ { dir = $1 }
	dir ~ /^src\/[a-z]+\/$/ { for (i = 1; i <= NF; i++) if (match($i, /[a-z_]+\.[ch]/)) print dir substr($i, RSTART, RLENGTH) }' | sort -u); do
	[ -f "$f" ] || bad="$bad
$readme: the Layout section names $f, which is not there"
done
if git rev-parse --git-dir > /dev/null 2>&1; then
	for d in $(git ls-files | grep / | awk -F/ '{ print $1 "/"; if ($1 == "src" || $1 == "tests") if (NF > 2) print $1 "/" $2 "/" }' | sort -u); do
		echo "$layout" | grep -qE "(^|[[:space:](,\`])$d" || bad="$bad
$readme: the Layout section does not name $d"
	done
else
	echo "lint-docs: SKIP the README's layout: not a git checkout (the file list comes from git)"
fi

if command -v scdoc > /dev/null && command -v groff > /dev/null; then
	for w in 60 80 120; do
		warn=$(scdoc < "$man" | groff -k -t -man -ww -z -Tutf8 -rLL=${w}n 2>&1 | head -3)
		[ -z "$warn" ] || bad="$bad
$man: troff warns at $w columns: $warn"
	done
else
	echo "lint-docs: SKIP the manual's formatting: it needs scdoc and groff"
fi

[ -z "$bad" ] || { echo "lint-docs: the manual or README does not follow the tree:$bad"; exit 1; }
echo "lint-docs: the manual documents the $(echo "$printed" | wc -l) schemas thp prints; README's layout names every directory and only files there are"
