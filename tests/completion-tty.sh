#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Completion as a user meets it: a real interactive bash and zsh under tmux
# (tests/tmux.sh) with completions/thp.bash and completions/_thp loaded, the
# thp under test on PATH, keys typed and Tab pressed; what the screen shows
# then is checked: option values after '=' (--color=, ps --sort=), the
# subcommands of hugetlb and the pool sizes of 'hugetlb set'.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
. tests/tmux.sh
trap 'tmux_stop' EXIT
trap 'exit 1' INT TERM
if ! command -v tmux > /dev/null; then
	skip "completion on a terminal: tmux is not installed"
	summary completion-tty
	exit
fi
bin=$(mktemp -d)
trap 'tmux_stop; rm -rf "$bin"' EXIT
ln -s "$(realpath "$THP")" "$bin/thp"
NUMA=tests/fixtures/hugetlb-numa
cols=$("$THP" ps --help | awk '/^Columns:/ {on=1; next} on && /^  [A-Z]/ {print $1}')
live_sizes=$(for d in /sys/kernel/mm/hugepages/hugepages-*kB; do [ -d "$d" ] && basename "$d"; done)

# listed WORD...: every WORD is on the screen ($out) as a word, outside the
# prompt line (a list of choices)
listed() {
	for w; do
		printf '%s\n' "$out" | grep -v '^\$ ' | grep -qw -- "$w" || return 1
	done
}
# line TEXT: the command line became TEXT (trailing spaces aside)
line() { printf '%s\n' "$out" | grep -q "^\$ $1 *\$"; }
# tab LINE: the screen after typing LINE and Tab, in $out
tab() { out=$(tmux_tab "$1"); }

for sh in bash zsh; do
	if [ $sh = bash ]; then
		rc=". completions/thp.bash"
	else
		rc="fpath=($PWD/completions \$fpath); autoload -Uz compinit; compinit -u -D"
	fi
	if ! tmux_start "$bin" "$rc" $sh; then
		bad "$sh: the shell did not start under tmux: $screen"
		tmux_stop
		continue
	fi
	tab "thp sta"
	expect "$sh: 'thp sta' Tab completes the command ($out)" line "thp status"
	tab "thp --color="
	expect "$sh: 'thp --color=' Tab lists auto, always, never ($out)" listed auto always never
	tab "thp --color=ne"
	expect "$sh: 'thp --color=ne' Tab completes to never ($out)" line "thp --color=never"
	tab "thp ps --sort "
	# shellcheck disable=SC2086
	expect "$sh: 'thp ps --sort ' Tab lists the columns ($out)" listed $cols
	tab "thp ps --sort="
	# shellcheck disable=SC2086
	expect "$sh: 'thp ps --sort=' Tab lists the columns ($out)" listed $cols
	tab "thp ps --sort=RS"
	expect "$sh: 'thp ps --sort=RS' Tab completes to RSS ($out)" line "thp ps --sort=RSS"
	tab "thp hugetlb "
	expect "$sh: 'thp hugetlb ' Tab lists set and plan ($out)" listed set plan
	tab "thp hugetlb s"
	expect "$sh: 'thp hugetlb s' Tab completes to set ($out)" line "thp hugetlb set"
	tab "thp --root $NUMA hugetlb set "
	expect "$sh: 'hugetlb set ' Tab lists the pool sizes of the --root tree ($out)" listed 2M= 1G=
	tab "thp --root $NUMA hugetlb set 2M=8 --node "
	expect "$sh: 'hugetlb set ... --node ' Tab lists the tree's nodes ($out)" listed 0 1
	if [ "$(echo "$live_sizes" | wc -w)" = 1 ] && [ "$live_sizes" = hugepages-2048kB ]; then
		tab "thp hugetlb set "
		expect "$sh: 'thp hugetlb set ' Tab completes this host's one pool size ($out)" line "thp hugetlb set 2M="
	else
		skip "$sh: hugetlb set on this host: pools other than 2 MiB alone ($live_sizes)"
	fi
	tmux_stop
done
summary completion-tty
