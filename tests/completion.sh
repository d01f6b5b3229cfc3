#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Shell completion (completions/thp.bash, completions/_thp): commands, options,
# columns, PIDs and 'set' keys with the values the running kernel allows.
# zsh is driven through stand-ins for its completion builtins.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
T=/sys/kernel/mm/transparent_hugepage
cmds=$("$THP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}' | tr '\n' ' ')
live_enabled=$( [ -r $T/enabled ] && tr -d '[]\n' < $T/enabled)

# bash_c WORDS...: what bash completes for the last word (COMPREPLY, one line)
bash_c() {
	bash -c '. completions/thp.bash
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_thp; echo "${COMPREPLY[*]}"' thp "$THP" "$@"
}
# zsh_c WORDS...: the same for zsh (compadd and friends print the words that fit)
zsh_c() {
	zsh -f -c 'compadd() { while [[ $1 == -* ]]; do [[ $1 == -- ]] && { shift; break }
			[[ $1 == -[SP] ]] && shift; shift; done
			local w; for w; do [[ $w == ${cur}* ]] && print -rn -- "$w "; done; }
		compset() { [[ $2 == "*=" ]] && cur=${cur#*=}; [[ $2 == "*," ]] && cur=${cur##*,}; [[ $2 == "*:" ]] && cur=${cur##*:}; }
		_files() { print -n "FILES "; }; _pids() { print -n "PIDS "; }; _users() { print -n "USERS "; }
		_command_names() { print -n "COMMANDS "; }
		source completions/_thp > /dev/null 2>&1
		words=("$@"); CURRENT=$#; _thp; print' thp "$THP" "$@"
}
# has LIST WORD: WORD (not empty: a word taken from a thp that failed is) is in LIST
has() { [ -n "$2" ] || return 1; case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }

for sh in bash zsh; do
	c=${sh}_c
	got=$($c "")
	for w in $cmds; do expect "$sh: command $w" has "$got" "$w"; done
	expect "$sh: global --root" has "$($c --ro)" --root
	expect "$sh: global --color" has "$($c --co)" --color
	expect "$sh: global --ascii" has "$($c --as)" --ascii
	expect "$sh: --color= values" has "$($c --color=al)" "$([ $sh = bash ] && echo --color=)always"
	if [ $sh = bash ]; then
		expect "bash: --color = values (words broken at '=')" has "$($c --color = n)" never
		expect "bash: a command after --color = WHEN" has "$($c --color = never st)" status
	fi
	expect "$sh: status --bytes" has "$($c status --by)" --bytes
	expect "$sh: status -b" has "$($c status -)" -b
	expect "$sh: no --root after the command" [ -z "$($c status --ro)" ]
	expect "$sh: help CMD" has "$($c help st)" status
	if has "$cmds" doctor; then
		expect "$sh: doctor --severity levels" has "$($c doctor --severity '')" warn
	fi
	if has "$cmds" ps; then
		col=$("$THP" ps --help | awk '/^Columns:/ {getline; print $1}')
		expect "$sh: ps -o columns" has "$($c ps -o '')" "$col"
	fi
	if has "$cmds" report; then
		expect "$sh: report --group-by policy" has "$($c report --group-by '')" policy
	fi
	if has "$cmds" show; then
		expect "$sh: show PID" sh -c "echo '$($c show '')' | grep -qE '(^| )(1|PIDS)( |$)'"
		expect "$sh: show --cont option" has "$($c show 1 --co)" --cont
		if [ -d $T/hugepages-64kB ]; then
			expect "$sh: show --cont sizes of this kernel (64K)" has "$($c show 1 --cont '')" 64K
		else
			skip "$sh: show --cont sizes: this kernel has no hugepages-64kB"
		fi
	fi
	if has "$cmds" ps; then
		expect "$sh: ps --by-size option" has "$($c ps --by-s)" --by-size
	fi
done

# every option that a command's --help lists is offered by both shells
for c in $cmds; do
	[ "$c" = help ] && continue
	opts=$("$THP" "$c" --help | grep -vE '^(Usage:|       thp )' | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,' | sort -u)
	b=$(bash_c "$c" -) z=$(zsh_c "$c" -)
	for o in $opts; do
		expect "bash: $c $o" has "$b" "$o"
		expect "zsh: $c $o" has "$z" "$o"
	done
done

# arguments: bench experiments, --modes and --writer values, commands to run,
# PIDs of the --root tree, and no file names where a command takes none
FA=tests/fixtures/always-always
for sh in bash zsh; do
	c=${sh}_c
	if has "$cmds" bench; then
		exps=$("$THP" bench --help | awk '/^Experiments:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
		for e in $exps; do expect "$sh: bench experiment $e" has "$($c bench '')" "$e"; done
		expect "$sh: bench --modes values" [ "$($c bench fault --modes '' | xargs)" = "always madvise never" ]
		expect "$sh: bench --writer values" [ "$($c bench cow --writer '' | xargs)" = "child parent" ]
	fi
	if has "$cmds" ab; then
		expect "$sh: ab --modes offers disabled" has "$($c ab --modes '')" disabled
		expect "$sh: ab -m after a comma" sh -c "echo '$($c ab -m always,c)' | grep -qE '(^|[ ,])current( |\$)'"
		expect "$sh: ab -- completes commands" sh -c "echo '$($c ab -- tru)' | grep -qwE 'true|COMMANDS'"
	fi
	if has "$cmds" exec; then
		expect "$sh: exec completes a command" sh -c "echo '$($c exec --disable tru)' | grep -qwE 'true|COMMANDS'"
	fi
	expect "$sh: status takes no file" [ -z "$($c status '')" ]
	expect "$sh: ps takes no file" [ -z "$($c ps '')" ]
	expect "$sh: show PID under --root: the tree's" [ "$($c --root $FA show '' | xargs -n1 | sort | xargs)" = \
		"$(ls $FA/proc | grep -xE '[0-9]+' | sort | xargs)" ]
	expect "$sh: ps -p under --root: the tree's" has "$($c --root $FA ps -p 22)" 2210
done

# an option's value after '=', in each form the shell has it: bash breaks
# words at '=' (COMP_WORDS "--sort" "=" "R"; the cursor right after the '='
# is on the word "="), zsh does not (one word "--sort=R")
col=$("$THP" ps --help | awk '/^Columns:/ {getline; print $1}')
expect "bash: --color= values (cursor after '=')" has "$(bash_c --color =)" never
expect "bash: ps --sort= columns (cursor after '=')" has "$(bash_c ps --sort =)" "$col"
expect "bash: ps --sort=R columns" has "$(bash_c ps --sort = R)" RSS
expect "bash: ps --sort=R as one word keeps the prefix" has "$(bash_c ps --sort=R)" --sort=RSS
expect "bash: --root=DIR (words broken at '=') names the tree" [ "$(bash_c --root = tests/fixtures/hugetlb-numa hugetlb set '' | xargs -n1 | sort | xargs)" = "1G= 2M=" ]
expect "zsh: ps --sort= columns" has "$(zsh_c ps --sort=)" "$col"
expect "zsh: ps --sort=R columns" has "$(zsh_c ps --sort=R)" RSS
expect "zsh: --root=DIR names the tree" [ "$(zsh_c --root=tests/fixtures/hugetlb-numa hugetlb set '' | xargs -n1 | sort | xargs)" = "1G= 2M=" ]
# a short option is what the command's help pairs it with: ps -s sorts by a
# column; bench --size takes a size (no columns, no experiments)
for sh in bash zsh; do
	c=${sh}_c
	expect "$sh: ps -s columns" has "$($c ps -s '')" "$col"
	expect "$sh: bench --size SIZE offers nothing" [ -z "$($c bench fault --size '')" ]
	expect "$sh: ps --limit N offers nothing" [ -z "$($c ps --limit '')" ]
	expect "$sh: ps --jobs offers 1 and the CPUs ($(nproc))" [ "$($c ps --folios --jobs '' | xargs -n1 | sort -nu | sed -n '1p;$p' | xargs)" = \
		"$(printf '1\n%s\n' "$(nproc)" | sort -nu | xargs)" ]
	expect "$sh: show --jobs offers 1" has "$($c show 1 --folios --jobs '')" 1
done

# subcommands (hugetlb set, plan) from the usage lines; the pool sizes of
# 'hugetlb set' from the --root tree
subs=$("$THP" hugetlb --help | sed -nE 's/^(Usage: thp( \[--root DIR\])?|       thp) hugetlb ([a-z]+) .*/\3/p' | sort | xargs)
for sh in bash zsh; do
	c=${sh}_c
	got=$($c hugetlb '' | xargs -n1 | sort | xargs)
	expect_sh "$sh: hugetlb offers its subcommands ($subs: $got)" '[ -n "$subs" ] && [ "$got" = "$subs" ]'
	expect "$sh: hugetlb set offers the tree's pool sizes" \
		[ "$($c --root tests/fixtures/hugetlb-numa hugetlb set '' | xargs -n1 | sort | xargs)" = "1G= 2M=" ]
	expect "$sh: hugetlb set offers sizes again after SIZE=PAGES" \
		has "$($c --root tests/fixtures/hugetlb-numa hugetlb set 2M=8 '')" 1G=
	expect "$sh: hugetlb plan SIZE offers nothing" [ -z "$($c hugetlb plan '')" ]
	expect "$sh: hugetlb persist offers the tree's pool sizes and nodes" \
		[ "$($c --root tests/fixtures/hugetlb-numa hugetlb persist '' | xargs -n1 | sort | xargs)" = "1G= 2M= node0: node1:" ]
	# bash replies with the whole word; zsh takes the prefix off (compset -P)
	pre=$([ $sh = bash ] && echo node1:)
	expect "$sh: hugetlb persist nodeN: offers the sizes after it" \
		[ "$($c --root tests/fixtures/hugetlb-numa hugetlb persist 2M=8 node1: | xargs -n1 | sort | xargs)" = "${pre}1G= ${pre}2M=" ]
done
expect "bash: hugetlb persist node1 : (words broken at ':') offers the sizes" \
	[ "$(bash_c --root tests/fixtures/hugetlb-numa hugetlb persist node1 : | xargs -n1 | sort | xargs)" = "1G= 2M=" ]
expect "bash: hugetlb persist node1 : 1 (words broken at ':')" \
	[ "$(bash_c --root tests/fixtures/hugetlb-numa hugetlb persist node1 : 1 | xargs)" = "1G=" ]

# NUMA nodes of hugetlb --node, from the --root given
for sh in bash zsh; do
	c=${sh}_c
	expect "$sh: hugetlb plan --node offers the nodes of the tree" \
		[ "$($c --root tests/fixtures/hugetlb-numa hugetlb plan 1G --node '' | xargs)" = "0 1" ]
	expect "$sh: hugetlb --node 1 completes to 1" \
		[ "$($c --root tests/fixtures/hugetlb-numa hugetlb set 2M=1 --node 1 | xargs)" = 1 ]
done

# keys of set and persist, from 'thp set --list-keys' of the --root given
FX=tests/fixtures/live-6.18
nkeys=$("$THP" --root $FX set --list-keys | wc -l)
for sh in bash zsh; do
	c=${sh}_c
	setk=$($c --root $FX set '')
	expect_sh "$sh: set offers every key of --list-keys ($nkeys)" '[ "$nkeys" -gt 0 ] && [ "$(echo "$setk" | wc -w)" = "$nkeys" ]'
	expect_sh "$sh: persist offers the keys set offers" '[ -n "$setk" ] && [ "$($c --root $FX persist "")" = "$setk" ]'
	expect "$sh: set offers hugepages.all.enabled" has "$setk" hugepages.all.enabled=
	expect "$sh: set key values from the tree" has "$($c --root $FX set defrag=d)" defer+madvise
	expect "$sh: a 0/1 setting offers 0 and 1" [ "$($c --root $FX set use_zero_page= | wc -w)" = 2 ]
	expect "$sh: a 0/1 setting offers 1" has "$($c --root $FX set use_zero_page=)" 1
	expect_sh "$sh: keys of another tree" '[ -n "$($c --root tests/fixtures/linux-4.19 set khugepaged.max)" ] &&
		[ "$($c --root tests/fixtures/linux-4.19 persist khugepaged.max)" = "$($c --root tests/fixtures/linux-4.19 set khugepaged.max)" ]'
done
if [ -n "$live_enabled" ]; then
	keys=$(bash -c '. completions/thp.bash; _thp_set_keys "$1"' thp "$THP" | tr '\n' ' ')
	zkeys=$(zsh -f -c 'source completions/_thp > /dev/null 2>&1; _thp_set_keys $1' thp "$THP" | tr '\n' ' ')
	for v in $live_enabled; do
		expect "bash: set key enabled=$v (live)" has "$keys" "enabled=$v"
		expect "zsh: set key enabled=$v (live)" has "$zkeys" "enabled=$v"
	done
else
	skip "completion of set keys: this kernel has no $T"
fi
expect "zsh completion parses" zsh -n completions/_thp
expect "bash completion parses" bash -n completions/thp.bash
summary completion
