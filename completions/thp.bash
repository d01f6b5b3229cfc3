# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for thp. Commands and options come from thp's own --help, so
# they follow the installed version; PIDs from /proc; NUMA nodes from
# /sys/devices/system/node and hugetlb pool sizes from /sys/kernel/mm/hugepages
# (of the --root given); subcommands from the usage lines; the columns of -o from the
# command's --help (bench: of the experiment named); the keys of 'set' and 'persist' and their values from
# 'thp set --list-keys' (the running kernel, or the --root given).

# _thp_opts TEXT: the option names (-x, --long) in help TEXT, not counting
# the usage lines (they show the global options before the command)
_thp_opts()
{
	grep -vE '^(Usage:|       thp )' <<< "$1" | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' |
		tr -d ' ,' | sort -u
}

# _thp_section TEXT HEADER: the names of each indented line after HEADER,
# that is its first column ("always, madvise, never   ..." names three)
_thp_section()
{
	awk -v h="$2" '$0 == h {on=1; next} on && /^  [^ ]/ {sub(/^  /, ""); sub(/  .*/, "");
		gsub(/, /, "\n"); print; next} on && !/^ / {exit}' <<< "$1"
}

# _thp_values TEXT OPTION: the values OPTION takes, as its line of help TEXT
# quotes them ('child' or 'parent') or lists them (always,madvise,never)
_thp_values()
{
	local line
	line=$(grep -E -- "(^|[ ,])$2 " <<< "$1" | head -1)
	if grep -q "'" <<< "$line"; then
		grep -oE "'[a-z]+'" <<< "$line" | tr -d "'"
	else
		grep -oE '[a-z]+(,[a-z]+)+' <<< "$line" | head -1 | tr , '\n'
	fi
}

# _thp_pids [DIR]: the processes of the host, or of the tree DIR (--root)
_thp_pids()
{
	local d
	for d in "${1:-}"/proc/[0-9]*; do
		[ -d "$d" ] && printf '%s\n' "${d##*/}"
	done
}

# _thp_size_word KB: 64 -> 64K, 2048 -> 2M, 1048576 -> 1G
_thp_size_word()
{
	if [ $(($1 % 1048576)) = 0 ]; then echo $(($1 / 1048576))G
	elif [ $(($1 % 1024)) = 0 ]; then echo $(($1 / 1024))M
	else echo "${1}K"; fi
}

# the THP sizes of the running kernel (hugepages-<N>kB), as 64K, 2M
_thp_sizes()
{
	local d kb
	for d in /sys/kernel/mm/transparent_hugepage/hugepages-*kB; do
		[ -d "$d" ] || continue
		kb=${d##*hugepages-}
		_thp_size_word "${kb%kB}"
	done
}

# _thp_nodes [DIR]: the NUMA node numbers of the host, or of the tree DIR
_thp_nodes()
{
	local d
	for d in "${1:-}"/sys/devices/system/node/node[0-9]*; do
		[ -d "$d" ] && printf '%s\n' "${d##*/node}"
	done
}

# KEY=VALUE words of 'thp set' and 'thp persist': the keys that 'thp set
# --list-keys' names for this host (run as "$@", e.g. thp --root DIR), each
# with the values it takes ("KEY=" alone for a wide range of numbers)
_thp_set_keys()
{
	local key vals v
	"$@" set --list-keys 2> /dev/null | while read -r key vals; do
		case $vals in
		0-1) printf '%s=0\n%s=1\n' "$key" "$key" ;;
		[0-9]*-[0-9]*) printf '%s=\n' "$key" ;;
		*) for v in $vals; do printf '%s=%s\n' "$key" "$v"; done ;;
		esac
	done
}

# _thp_reply WORDS [PREFIX]: completions of the current word (after PREFIX)
_thp_reply()
{
	mapfile -t COMPREPLY < <(compgen -P "${2:-}" -W "$1" -- "${cur#"${2:-}"}")
}

# _thp_subcommands HELP CMD: the subcommands of CMD, as its usage lines name
# them ("thp hugetlb set SIZE=PAGES..." names set)
_thp_subcommands()
{
	sed -nE "s/^(Usage: thp( \[--root DIR\])?|       thp) $2 ([a-z]+)( .*)?\$/\3/p" <<< "$1"
}

# _thp_usage HELP CMD [SUB]: what the usage line of CMD (of CMD SUB) names
# after it
_thp_usage()
{
	local line
	if [ -n "${3:-}" ]; then
		line=$(grep -E "^ *(Usage: )?thp( \[--root DIR\])? $2 $3( |\$)" <<< "$1" | head -1)
		echo "${line#*" $2 $3"}"
	else
		line=$(head -1 <<< "$1")
		echo "${line#*" $2"}"
	fi
}

# _thp_pool_sizes [DIR]: the hugetlb pool sizes of the host, or of the tree DIR
_thp_pool_sizes()
{
	local d kb
	for d in "${1:-}"/sys/kernel/mm/hugepages/hugepages-*kB; do
		[ -d "$d" ] || continue
		kb=${d##*hugepages-}
		_thp_size_word "${kb%kB}"
	done
}

# The word being completed is $cur, after option $prev. An option's value
# given with '=' is found in each form bash has it: '--sort=' ('=' breaks
# words: cur is '='), '--sort=T' (cur 'T' after a word '='), or one word
# '--sort=T' (COMP_WORDBREAKS without '='; the replies get the '--sort='
# prefix back). eq is set when the value follows a '='.
_thp()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} eq="" eqpre=""
	if [ "$cur" = = ] && [[ $prev == --* ]]; then
		cur="" eq=1
	elif [ "$prev" = = ] && [[ ${COMP_WORDS[COMP_CWORD - 2]} == --* ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]} eq=1
	elif [[ $cur == --*=* ]]; then
		prev=${cur%%=*} eqpre=${cur%%=*}= cur=${cur#*=} eq=1
	fi
	_thp_complete
	if [ -n "$eqpre" ]; then
		COMPREPLY=("${COMPREPLY[@]/#/$eqpre}")
	fi
}

_thp_complete()
{
	local thp=${COMP_WORDS[0]} cmd="" i help root=()
	# the command is the first word that is not a global option or its argument
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-R | --root | --sysroot)
			[ "${COMP_WORDS[i + 1]}" = = ] && i=$((i + 1)) # --root = DIR
			root=(--root "${COMP_WORDS[i + 1]}"); i=$((i + 1)) ;;
		--root=* | --sysroot=*) root=(--root "${COMP_WORDS[i]#*=}") ;;
		=) i=$((i + 1)) ;; # --color = WHEN, where '=' breaks words
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ] || [ "$cmd" = help ]; then
		help=$("$thp" --help 2>/dev/null)
		# --color=WHEN (WHEN is optional: only after a '=')
		if [ "$prev" = --color ] && [ -n "$eq" ]; then
			_thp_reply "auto always never"
			return
		fi
		case $prev in
		-R | --root | --sysroot) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
		*)
			if [[ $cur == -* ]] && [ -z "$cmd" ]; then
				_thp_reply "$(_thp_opts "$(awk '/^Global options:/ {on=1} on' <<< "$help")")"
			else
				_thp_reply "$(_thp_section "$help" "Commands:")"
			fi
			;;
		esac
		return
	fi

	help=$("$thp" "$cmd" --help 2>/dev/null)
	# a short option stands for the long one the command's help pairs it with
	# (-s: --sort, which a letter means in every command)
	if [[ $prev == -[A-Za-z] ]]; then
		local long
		long=$(grep -oE -- "$prev, --[a-z-]+" <<< "$help" | head -1)
		[ -n "$long" ] && prev=${long#"$prev, "}
	fi
	if [ "$prev" = --severity ]; then
		_thp_reply "info warn crit"
		return
	fi
	case $prev in
	-o | --output | --sort)
		local cols
		cols=$(_thp_section "$help" "Columns:")
		if grep -q '^Columns of ' <<< "$help"; then
			# bench: the columns of every experiment and of the one named
			local w x=""
			for w in "${COMP_WORDS[@]}"; do
				grep -qx -- "$w" <<< "$(_thp_section "$help" "Experiments:")" && x=$w
			done
			[[ " ${COMP_WORDS[*]} " == *" --sweep "* ]] && x="$x --sweep"
			cols=$(_thp_section "$help" "Columns of every experiment (-o LIST):"; _thp_section "$help" "Columns of $x:")
		fi
		if [ -n "$cols" ] && [ "$prev" = --sort ]; then
			_thp_reply "$cols"
		elif [ -n "$cols" ]; then
			# a comma-separated list: complete its last element
			local pre=""
			[[ $cur == *,* ]] && pre=${cur%,*},
			_thp_reply "$cols" "$pre"
			compopt -o nospace 2> /dev/null
		else
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		fi
		return
		;;
	--replay) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
	--save) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
	-p | --pid) _thp_reply "$(_thp_pids "${root[1]:-}")"; return ;;
	-u | --user) mapfile -t COMPREPLY < <(compgen -u -- "$cur"); return ;;
	--by) _thp_reply "comm user cgroup"; return ;;
	-g | --group-by) _thp_reply "policy"; return ;;
	--cont) _thp_reply "$(_thp_sizes)"; return ;;
	--jobs)
		# 1, 2, 4, ... and the CPUs thp may run on (the default), where the
		# command's help names the option
		local n i
		[[ $help == *--jobs* ]] || return
		n=$(nproc 2> /dev/null || echo 1)
		_thp_reply "$(for ((i = 1; i < n; i *= 2)); do echo "$i"; done; echo "$n")"
		return
		;;
	-m | --modes)
		# a comma-separated list, from the Modes section or the option's line
		local pre="" modes
		[[ $cur == *,* ]] && pre=${cur%,*},
		modes=$(_thp_section "$help" "Modes:")
		_thp_reply "${modes:-$(_thp_values "$help" --modes)}" "$pre"
		compopt -o nospace 2> /dev/null
		return
		;;
	--writer) _thp_reply "$(_thp_values "$help" "$prev")"; return ;;
	--) [[ $help == *COMMAND* || $help == *CMD* ]] && mapfile -t COMPREPLY < <(compgen -c -- "$cur"); return ;;
	--node) _thp_reply "$(_thp_nodes "${root[1]:-}")"; return ;;
	esac
	# the argument of another option (--size SIZE): files for a FILE, PATH or
	# DIR, nothing else
	if [[ $prev == --* ]] && grep -qE -- "(^|[ ,])$prev [A-Z]" <<< "$help"; then
		if grep -qE -- "(^|[ ,])$prev (FILE|PATH|DIR)" <<< "$help"; then
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		_thp_reply "$(_thp_opts "$help")"
		return
	fi
	# positional arguments, as the usage line names them after the command
	# (after its subcommand, for a command that has them)
	local usage subs sub=""
	subs=$(_thp_subcommands "$help" "$cmd")
	if [ -n "$subs" ]; then
		for ((i++; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == -* ]] || { sub=${COMP_WORDS[i]}; break; }
		done
		if [ -z "$sub" ]; then
			_thp_reply "$subs"
			return
		fi
	fi
	usage=$(_thp_usage "$help" "$cmd" "$sub")
	case $usage in
	" SIZE=PAGES"* | " [[nodeN:]SIZE=PAGES"*)
		# persist: also the nodeN: prefixes, then the sizes after one (':'
		# breaks words in bash: cur is then ':' or what follows it)
		local sizes nodes="" pre=""
		sizes=$(_thp_pool_sizes "${root[1]:-}" | sed 's/$/=/')
		if [[ $usage == *nodeN:* && ($cur == : || $prev == : || $cur == node*:*) ]]; then
			[ "$cur" = : ] && cur=""
			[[ $cur == *:* ]] && pre=${cur%%:*}:
		elif [[ $usage == *nodeN:* ]]; then
			nodes=$(_thp_nodes "${root[1]:-}" | sed 's/^/node/; s/$/:/')
		fi
		_thp_reply "$sizes $nodes" "$pre"
		compopt -o nospace 2> /dev/null
		return
		;;
	" NAME"*) _thp_reply "$(_thp_section "$help" "Experiments:")"; return ;;
	*" COMMAND ["*)
		# exec: the first word that is not an option is the command
		for ((i++; i < COMP_CWORD; i++)); do [[ ${COMP_WORDS[i]} == -* ]] || break; done
		if ((i == COMP_CWORD)); then mapfile -t COMPREPLY < <(compgen -c -- "$cur")
		else mapfile -t COMPREPLY < <(compgen -f -- "$cur"); fi
		return
		;;
	esac
	case $usage in
	*KEY=VALUE*)
		# '=' breaks words: take the whole KEY=VALUE word from the line, and
		# reply with what follows the '=' once there is one
		local word=${COMP_LINE:0:COMP_POINT} keys
		word=${word##*[[:space:]]}
		keys=$(_thp_set_keys "$thp" "${root[@]}")
		if [[ $word == *=* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$keys" -- "$word" | sed 's/^[^=]*=//')
		else
			mapfile -t COMPREPLY < <(compgen -W "$keys" -- "$word" | sed 's/=.*/=/' | sort -u)
			compopt -o nospace 2> /dev/null
		fi
		;;
	*PID*) _thp_reply "$(_thp_pids "${root[1]:-}")" ;;
	*FILE* | *DIR*) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	esac
}
complete -F _thp thp
