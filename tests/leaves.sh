#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Commands are leaves: no command's object (B/src/cmd/NAME.o) calls a
# function that another command's object defines. What commands share is in
# args.c, opt.c and target.c, or in core, control and render. Reads the
# objects of the build B (default: build; 'make lint' builds them first) with
# nm(1); prints "FILE: FUNCTION, called by FILE" for each call against that
# and fails on any.
cd "$(dirname "$0")/.." || exit 1
b=${1:-build}
shared='args|opt|target'
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for c in src/cmd/*.c; do
	n=$(basename "$c" .c)
	o=$b/src/cmd/$n.o
	if [ ! -f "$o" ] || [ "$c" -nt "$o" ]; then
		echo "leaves: $o is missing or older than $c; build first (make)"
		exit 1
	fi
	echo "$n" | grep -qxE "$shared" ||
		nm -g --defined-only "$o" | awk -v f="$n" '$2 == "T" {print $3, f}' >> "$tmp/defs"
	nm -u "$o" | awk -v f="$n" '{print $2, f}' >> "$tmp/uses"
done
sort -o "$tmp/defs" "$tmp/defs"
sort -o "$tmp/uses" "$tmp/uses"
bad=$(join "$tmp/defs" "$tmp/uses" | awk '$2 != $3 {print "src/cmd/" $2 ".c: " $1 ", called by src/cmd/" $3 ".c"}')
[ -z "$bad" ] || {
	echo "leaves: a command calls a function of another command (move it to core, control, render, or args.c, opt.c, target.c):"
	echo "$bad"
	exit 1
}
echo "leaves: no command calls a function of another command"
