#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every fixture that a generator script derives (tests/fixtures/*.sh and
# folios.py, run in their documented order on a copy of the tree) is what the
# generator makes now: the regenerated copy must equal the committed fixtures. A fixture that
# a generator left behind (a renamed or dropped host) shows too. Recorded hosts
# (live-6.18, procs-6.18, ...) are the generators' input and stay as they are.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
G=$tmp/fixtures
cp -a tests/fixtures "$G"
# in order: synth-doctor.sh and watch.sh start from hosts synth.sh makes
for gen in synth.sh synth-doctor.sh watch.sh hugetlb.sh persist.sh procs.sh; do
	expect "tests/fixtures/$gen runs" env THP_FIXTURES="$G" sh "tests/fixtures/$gen"
done
# folios.py starts from the recorded procs-6.18 and writes page-by-page pagemap
# and kpageflags files
expect "tests/fixtures/folios.py runs" env THP_FIXTURES="$G" python3 tests/fixtures/folios.py
ls tests/fixtures/*.sh | sed 's|.*/||' | sort > "$tmp/have"
printf '%s\n' synth.sh synth-doctor.sh watch.sh hugetlb.sh persist.sh procs.sh | sort > "$tmp/ran"
expect "every generator script is run here" cmp -s "$tmp/have" "$tmp/ran"
# git keeps no empty directory
find "$G" -mindepth 1 -type d -empty -delete
for d in tests/fixtures/*/; do
	d=${d%/}
	n=${d##*/}
	if diff -r --no-dereference "$d" "$G/$n" > "$tmp/diff" 2>&1; then
		ok
	else
		bad "$d differs from what its generator makes now:"
		head -20 "$tmp/diff"
	fi
done
summary fixtures-check
