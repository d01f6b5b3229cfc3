# SPDX-License-Identifier: GPL-2.0-or-later
# thp set/restore/persist against the running kernel (root only): every
# setting round-trips (the vm.* sysctls of /proc/sys/vm too), signals leave a complete state, the drop-in and unit
# that persist writes are accepted by the tools that apply them at boot, and
# the host ends in exactly its prior state (restored on failure and signals).
T=/sys/kernel/mm/transparent_hugepage

# the status JSON without counters, which move on their own
settings_json() {
	"$THP" status --json --no-procs | jq -S 'del(.vmstat, .meminfo, .hugetlb, .processes, .size_stats,
		.fault_fallback_ratio, .verdict.now, .vm.allocstall, .numa) |
		.khugepaged |= map(select(.name != "full_scans" and .name != "pages_collapsed"))'
}
size_kb() { case $1 in *K) echo "${1%K}" ;; *M) echo $((${1%M} * 1024)) ;; *G) echo $((${1%G} * 1048576)) ;; esac; }
key_path() {
	case $1 in
	khugepaged.*) echo "$T/khugepaged/${1#khugepaged.}" ;;
	hugepages.*) s=${1#hugepages.}; echo "$T/hugepages-$(size_kb "${s%%.*}")kB/${s#*.}" ;;
	vm.*) echo "/proc/sys/vm/${1#vm.}" ;;
	*) echo "$T/$1" ;;
	esac
}
file_value() { sed -n 's/.*\[\([^]]*\)\].*/\1/p; /\[/!p' "$1" | head -1; }
# another value the kernel accepts for KEY, learnt from thp's own refusal message
other_value() {
	msg=$("$THP" set --dry-run "$1=?" 2>&1)
	cur=$(file_value "$(key_path "$1")")
	case $msg in
	*"integer from"*)
		hi=${msg##* to }; hi=${hi%%;*}
		if [ "$cur" -lt "$hi" ]; then echo $((cur + 1)); else echo $((cur - 1)); fi ;;
	*accepts*)
		words=${msg#*accepts }; words=${words%%;*}
		for w in $(echo "$words" | tr -d ','); do
			case $w in "$cur" | force | deny) ;; *) echo "$w"; return ;; esac
		done ;;
	esac
}

if [ "$(id -u)" != 0 ]; then
	skip "set/restore on the live kernel: needs root"
elif [ ! -d "$T/khugepaged" ]; then
	skip "set/restore on the live kernel: this kernel has no $T/khugepaged"
else
	# run.sh puts the host's settings back when the suite ends or is stopped
	st=$(mktemp -d)
	"$THP" set --save "$st/orig" > /dev/null
	settings_json > "$st/before"
	keys=$(sed -n 's/=.*//p' "$st/orig")

	# each setting alone: set, read back from sysfs, restore
	: > "$st/all"
	for k in $keys; do
		v=$(other_value "$k")
		if [ -z "$v" ]; then
			bad "round trip $k: no other value found"
			continue
		fi
		was=$(file_value "$(key_path "$k")")
		echo "$k=$v" >> "$st/all"
		expect "set $k=$v" "$THP" set --save "$st/one" "$k=$v" > /dev/null
		expect "sysfs has $k=$v" [ "$(file_value "$(key_path "$k")")" = "$v" ]
		expect "restore $k" "$THP" restore "$st/one" > /dev/null
		expect "sysfs has $k=$was again" [ "$(file_value "$(key_path "$k")")" = "$was" ]
	done

	# every setting at once, then back to the exact prior state
	# shellcheck disable=SC2046
	expect "set every setting at once" "$THP" set --save "$st/one" $(cat "$st/all") > /dev/null
	expect "diff finds every setting changed" [ "$("$THP" diff --json "$st/orig" | jq .differences)" = "$(wc -l < "$st/all")" ]
	expect "restore every setting" "$THP" restore "$st/one" > /dev/null
	settings_json > "$st/after"
	expect "status after restore equals status before" cmp -s "$st/before" "$st/after"

	# the default saved-state path, only when no saved state of the user is there
	if [ -e /run/thp/saved.state ]; then
		skip "default saved state: /run/thp/saved.state exists and is left alone"
	else
		[ -d /run/thp ] && made_run=false || made_run=true
		expect "set with the default saved state" "$THP" set "$(head -1 "$st/all")" > /dev/null
		expect "saved to /run/thp/saved.state" [ -f /run/thp/saved.state ]
		expect "restore from /run/thp/saved.state" "$THP" restore > /dev/null
		rm -f /run/thp/saved.state
		"$made_run" && rmdir /run/thp
	fi

	# signals while strace holds the write to defrag
	dv=$(other_value defrag)
	ev=$(other_value enabled)
	# held_live SIG [FILE VALUE KEY=VALUE...]: a live 'thp set' held in its
	# write to FILE (default: defrag) until FILE holds VALUE, then sent SIG
	held_live() {
		sig=$1 hfile=${2:-$T/defrag} hval=${3:-$dv}
		[ $# -gt 3 ] && shift 3 || set -- enabled="$ev" defrag="$dv" khugepaged.max_ptes_none=0
		rm -f "$st/pid"
		strace -f -qq -o /dev/null -P "$hfile" -e trace=write -e inject=write:delay_exit=1000000 \
			sh -c "echo \$\$ > '$st/pid'; exec '$THP' set --save '$st/held' $*" \
			> /dev/null 2>&1 &
		spid=$!
		i=0
		while [ "$(file_value "$hfile")" != "$hval" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
		kill -"$sig" "$(cat "$st/pid")"
		{ wait "$spid"; } 2> /dev/null
	}
	if ! strace -f -qq -o /dev/null true 2> /dev/null; then
		skip "set interrupted by signals: strace cannot trace here"
	else
		for sig in INT TERM; do
			held_live "$sig"
			settings_json > "$st/after"
			expect "SIG$sig during a live set leaves the old state" cmp -s "$st/before" "$st/after"
		done
		W=/proc/sys/vm/watermark_scale_factor
		if [ -f "$W" ] && [ -f /proc/sys/vm/compaction_proactiveness ]; then
			pv=$(other_value vm.compaction_proactiveness)
			wv=$(other_value vm.watermark_scale_factor)
			held_live TERM "$W" "$wv" enabled="$ev" vm.compaction_proactiveness="$pv" vm.watermark_scale_factor="$wv"
			settings_json > "$st/after"
			expect "SIGTERM during a live set of vm.* sysctls puts them back" cmp -s "$st/before" "$st/after"
		else
			skip "vm.* sysctls interrupted by a signal: this kernel lacks watermark_scale_factor or compaction_proactiveness"
		fi
		held_live KILL
		expect "SIGKILL during a live set leaves it half done" [ "$(file_value "$T/defrag")" = "$dv" ]
		expect "SIGKILL during a live set leaves the journal" [ -f /run/thp/journal ]
		expect "restore after SIGKILL" "$THP" restore > /dev/null
		expect "restore after SIGKILL removes the journal" [ ! -e /run/thp/journal ]
		settings_json > "$st/after"
		expect "restore after SIGKILL gives the old state" cmp -s "$st/before" "$st/after"
	fi

	# the files persist writes are applied as written by the boot-time tools:
	# THP settings by systemd-tmpfiles and the unit, vm.* ones by sysctl
	grep -v '^vm\.' "$st/all" > "$st/sys"
	grep '^vm\.' "$st/all" > "$st/vm"
	# shellcheck disable=SC2046
	"$THP" persist -o "$st/thp.conf" $(cat "$st/sys") > /dev/null
	# shellcheck disable=SC2046
	"$THP" persist --systemd -o "$st/thp.service" $(cat "$st/sys") > /dev/null
	if command -v systemd-tmpfiles > /dev/null; then
		expect "systemd-tmpfiles applies the drop-in" systemd-tmpfiles --create "$st/thp.conf"
		expect "after the drop-in, every setting has its persisted value" \
			[ "$("$THP" diff --json "$st/orig" | jq .differences)" = "$(wc -l < "$st/sys")" ]
		"$THP" restore "$st/orig" > /dev/null
	else
		skip "tmpfiles drop-in applied: systemd-tmpfiles is not installed"
	fi
	if [ ! -s "$st/vm" ]; then
		skip "sysctl.d drop-in applied: this kernel has none of the vm.* sysctls"
	elif ! command -v sysctl > /dev/null; then
		skip "sysctl.d drop-in applied: sysctl (procps) is not installed"
	else
		# shellcheck disable=SC2046
		expect "persist writes the vm.* sysctls to a sysctl.d file" \
			"$THP" persist -o "$st/90-thp.conf" $(cat "$st/vm") > /dev/null
		expect "sysctl applies the sysctl.d drop-in" sysctl -q -p "$st/90-thp.conf"
		expect "after the sysctl.d drop-in, every vm.* setting has its persisted value" \
			[ "$("$THP" diff --json "$st/orig" | jq .differences)" = "$(wc -l < "$st/vm")" ]
		expect "restore puts the vm.* sysctls back" "$THP" restore "$st/orig" > /dev/null
		for k in $(sed 's/=.*//' "$st/vm"); do
			expect "$k is back at its saved value" \
				[ "$(file_value "$(key_path "$k")")" = "$(sed -n "s/^$k=//p" "$st/orig")" ]
		done
	fi
	sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" "$st/thp.service" > "$st/unit.sh"
	expect "the unit's commands run" sh -e "$st/unit.sh"
	expect "after the unit, every setting has its persisted value" \
		[ "$("$THP" diff --json "$st/orig" | jq .differences)" = "$(wc -l < "$st/sys")" ]
	"$THP" restore "$st/orig" > /dev/null
	rc=$("$THP" persist --check > /dev/null 2>&1; echo $?)
	expect_sh "persist --check on this host runs (exit 0 or 3, got $rc)" '[ "$rc" = 0 ] || [ "$rc" = 3 ]'

	settings_json > "$st/after"
	expect "host ends in its prior state" cmp -s "$st/before" "$st/after"
	"$THP" restore "$st/orig" > /dev/null 2>&1
	rm -rf "$st"
fi
