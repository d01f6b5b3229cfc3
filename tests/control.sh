#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Write paths of set/restore/diff/persist on fake roots (copies of a fixture):
# refused values change nothing, a failure midway rolls back, signals leave a
# complete state, persisted files parse back and drift is found. Nothing here
# touches the host: every path is below a temporary directory.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 1' INT TERM
FX=tests/fixtures/live-6.18
R=$tmp/root
T=$R/sys/kernel/mm/transparent_hugepage

# a copy of the fixture with the directories a host has (thp creates none but run/thp)
fresh() { rm -rf "$R"; cp -a "$FX" "$R"; mkdir -p "$R/run" "$R/etc/tmpfiles.d" "$R/etc/systemd/system"; }
# sums of every file of the tree, to prove that nothing changed
tree_sum() { (cd "$1" && find sys proc -type f ! -name boot_id ! -path 'proc/4242/*' -exec md5sum {} + | sort -k2); }
same_as_fixture() { [ "$(tree_sum "$R")" = "$(tree_sum "$FX")" ]; }
# put_back: the restore just run (its output in $tmp/out) said what it puts
# back, and the tree is the fixture again: a restore that did not run leaves
# the fixture too, when the set before it did not run either
put_back() { grep -q "putting back" "$tmp/out" && same_as_fixture; }
# rc_of CMD...: CMD's exit status, its output in $tmp/out; ", no output" added
# when it printed nothing (every command says what it did or why not)
rc_of() {
	"$@" > "$tmp/out" 2>&1
	_rc=$?
	[ -s "$tmp/out" ] || _rc="$_rc, no output"
	echo "$_rc"
}

# Refused input: exit 2, one clear message, nothing written, nothing saved.
fresh
for kv in enabled=sometimes khugepaged.max_ptes_none=512 khugepaged.pages_to_scan=0 \
	use_zero_page=2 hugepages.2M.enabled=within_size hugepages.8K.enabled=never \
	hugepages.3M.enabled=never nosuch=1 khugepaged.full_scans=0 hugepages.64Q.enabled=never \
	vm.compaction_proactiveness=101 vm.watermark_scale_factor=0 vm.nr_hugepages=1 vm.min_free_kbytes=-1; do
	expect "set $kv is refused with exit 2" [ "$(rc_of "$THP" --root "$R" set enabled=always "$kv")" = 2 ]
	expect "set $kv: message says nothing changed" grep -q "nothing was changed" "$tmp/out"
done
expect "refused values wrote nothing" same_as_fixture
expect "refused values saved no state" [ ! -e "$R/run/thp" ]
expect "set with a malformed argument: exit 2" [ "$(rc_of "$THP" --root "$R" set enabled)" = 2 ]
expect "dry run: exit 0" [ "$(rc_of "$THP" --root "$R" set --dry-run enabled=never hugepages.all.enabled=always)" = 0 ]
expect "dry run lists the changes" grep -q "hugepages.2M.enabled  *inherit  *->  *always" "$tmp/out"
expect "dry run wrote nothing" same_as_fixture

# A set, its saved state, diff, and restore back to the exact fixture.
expect "set: exit 0" [ "$(rc_of "$THP" --root "$R" set enabled=always khugepaged.max_ptes_none=0 hugepages.all.shmem_enabled=advise)" = 0 ]
expect "set wrote enabled" grep -q '^\[always\] madvise never$' "$T/enabled"
expect "set wrote khugepaged" [ "$(cat "$T/khugepaged/max_ptes_none")" = 0 ]
expect "set wrote every size" [ "$(grep -l '\[advise\]' "$T"/hugepages-*/shmem_enabled | wc -l)" = 9 ]
expect "state saved" grep -q '^khugepaged.max_ptes_none=511$' "$R/run/thp/saved.state"
expect "no journal after a set" [ ! -e "$R/run/thp/journal" ]
expect "diff: exit 3 with 11 differences" [ "$(rc_of "$THP" --root "$R" diff)" = 3 ]
expect "diff counts them" grep -q "^11 settings differ" "$tmp/out"
expect "diff --json" sh -c "'$THP' --root '$R' diff --json | jq -e '.differences == 11' > /dev/null"
expect "diff with the fixture as another root" [ "$(rc_of "$THP" --root "$R" diff --root "$FX")" = 3 ]
expect "restore: exit 0" [ "$(rc_of "$THP" --root "$R" restore)" = 0 ]
expect "restore gives back the fixture exactly" put_back
expect "diff after restore: exit 0" [ "$(rc_of "$THP" --root "$R" diff --root "$FX")" = 0 ]
expect "set --save FILE, then restore FILE" sh -c "'$THP' --root '$R' set --save '$tmp/s' enabled=never > /dev/null && [ -s '$tmp/s' ] && '$THP' --root '$R' restore '$tmp/s' > '$tmp/out'"
expect "restore FILE gives back the fixture" put_back
# a command line of 400 characters, most of them two bytes in UTF-8 (e acute):
# the state records it cut between two characters and ending in "...", for
# either parity of the cut (a path one byte longer)
e=$(printf '\303\251')
for pre in a ab; do
	long=$tmp/$pre
	for i in 1 2 3 4 5; do long=$long/$(printf '%066d' 0 | sed "s/0/$e/g"); done
	mkdir -p "$long"
	"$THP" --root "$R" set --save "$long/s" enabled=never > /dev/null
	cmd=$(sed -n 's/^command //p' "$long/s")
	expect "command line of $(printf '%s' "thp --root $R set --save $long/s enabled=never" | wc -m) characters: recorded as valid UTF-8 ($pre)" \
		sh -c 'printf %s "$1" | iconv -f UTF-8 -t UTF-8 > /dev/null 2>&1' - "$cmd"
	expect "command line cut: ends in '...' within 255 bytes ($pre: $(printf %s "$cmd" | wc -c) bytes)" \
		sh -c 'case $1 in "thp --root "*...) [ "$(printf %s "$1" | wc -c)" -le 255 ] ;; *) false ;; esac' - "$cmd"
	"$THP" --root "$R" restore "$long/s" > "$tmp/out"
	expect "restore of the file with the cut command line ($pre)" put_back
done
printf 'enabled=never\nbogus line\n' > "$tmp/bad"
expect "restore of a malformed file: exit 1" [ "$(rc_of "$THP" --root "$R" restore "$tmp/bad")" = 1 ]
expect "restore names the bad line" grep -q "line 2" "$tmp/out"
printf 'enabled=sometimes\n' > "$tmp/bad"
expect "restore of a refused value: exit 1, nothing written" sh -c "[ \$('$THP' --root '$R' restore '$tmp/bad' > /dev/null 2>&1; echo \$?) = 1 ]"
expect "refused restore wrote nothing" same_as_fixture
expect "restore without a saved state: exit 1" [ "$(rc_of "$THP" --root "$FX" restore)" = 1 ]

# A file that cannot be written midway: everything before it is put back.
fresh
ro=$T/khugepaged/max_ptes_none
if [ "$(id -u)" = 0 ]; then
	# root writes through file modes: make the file read-only with a bind mount
	# inside a private mount namespace, which vanishes with the command
	unshare -m sh -c "mount --bind '$ro' '$ro' && mount -o remount,ro,bind '$ro' &&
		'$THP' --root '$R' set enabled=always defrag=never khugepaged.max_ptes_none=0 hugepages.2M.enabled=always" \
		> "$tmp/out" 2>&1
	rc=$?
else
	chmod a-w "$ro"
	"$THP" --root "$R" set enabled=always defrag=never khugepaged.max_ptes_none=0 hugepages.2M.enabled=always > "$tmp/out" 2>&1
	rc=$?
	chmod u+w "$ro"
fi
if grep -q "mount" "$tmp/out"; then
	skip "rollback: cannot make a read-only bind mount here ($(head -1 "$tmp/out"))"
else
	expect "failure midway: exit 1" [ "$rc" = 1 ]
	expect "failure midway names the file" grep -q "cannot write 'khugepaged.max_ptes_none'" "$tmp/out"
	expect "failure midway says what was rolled back" grep -q "rolled back 2 settings already written: enabled, defrag" "$tmp/out"
	expect "failure midway leaves the fixture exactly" same_as_fixture
	expect "failure midway leaves no journal" [ ! -e "$R/run/thp/journal" ]
fi

# A previous state that cannot be saved, a journal that cannot be written:
# nothing is written, and with --json the document says so (ok false, every
# setting not written; saved null when nothing was saved)
fresh
expect_exit "set --json, the previous state cannot be saved: exit 1" 1 \
	"$THP" --root "$R" set --json --save "$tmp/nodir/saved" enabled=always defrag=never > "$tmp/out" 2> "$tmp/err"
expect "... the document: not ok, nothing saved, nothing written" jq -e \
	'.ok == false and .saved == null and ([.changes[].result] == ["not written", "not written"])' "$tmp/out" > /dev/null
expect "... standard error says why" grep -q "^thp: set: cannot save the previous state to '$tmp/nodir/saved': No such file or directory; nothing was changed$" "$tmp/err"
expect "... nothing changed" same_as_fixture
if strace -f -qq -o /dev/null true 2> /dev/null; then
	fresh
	# the journal is the one file renamed in run/thp (the state goes elsewhere)
	expect_exit "set --json, the journal cannot be written: exit 1" 1 \
		traced -qq -o /dev/null -P "$R/run/thp" -e trace=renameat2 -e inject=renameat2:error=EIO:when=1 \
		"$THP" --root "$R" set --json --save "$tmp/saved" enabled=always > "$tmp/out" 2> "$tmp/err"
	expect "... the document: not ok, saved, nothing written" jq -e \
		--arg saved "$tmp/saved" '.ok == false and .saved == $saved and ([.changes[].result] == ["not written"])' "$tmp/out" > /dev/null
	expect "... standard error says why" grep -q "cannot write the journal '$R/run/thp/journal': Input/output error; nothing was changed" "$tmp/err"
	expect "... nothing changed" same_as_fixture
else
	skip "set --json, the journal cannot be written: no strace"
fi

# A rollback that fails too: strace fails the fourth rename in the THP
# directory (enabled, defrag, then the rollback of defrag and of enabled: a
# tree's setting is written through a temporary file renamed over it); thp
# says which setting is left changed and keeps the journal.
if [ "$(id -u)" = 0 ] && strace -f -qq -o /dev/null true 2> /dev/null; then
	fresh
	unshare -m sh -c "mount --bind '$ro' '$ro' && mount -o remount,ro,bind '$ro' &&
		ASAN_OPTIONS=detect_leaks=0 strace -qq -o /dev/null -P '$T' -e trace=renameat -e inject=renameat:error=EIO:when=4 \
		'$THP' --root '$R' set enabled=always defrag=never khugepaged.max_ptes_none=0" > "$tmp/out" 2>&1
	expect "failed rollback: exit 1" [ $? = 1 ]
	expect "failed rollback: the others are rolled back" grep -q "rolled back 1 setting already written: defrag" "$tmp/out"
	expect "failed rollback: names the setting left changed" grep -q "could not roll back enabled (Input/output error); the previous state is saved in" "$tmp/out"
	expect "failed rollback: the journal stays" [ -f "$R/run/thp/journal" ]
	expect "failed rollback: says 'thp restore' puts it back" grep -q "'thp restore' puts back what the journal holds" "$tmp/out"
else
	skip "failed rollback: needs root (bind mount) and strace"
fi

# Signals: strace holds the rename that writes defrag (the second in the THP
# directory) for a second, then the signal lands between two writes.
held_set() { # held_set SIGNAL: run a set, send SIGNAL while defrag's write is held
	rm -f "$tmp/pid"
	traced -f -qq -o /dev/null -P "$T" -e trace=renameat -e inject=renameat:delay_exit=1000000:when=2 \
		sh -c "echo \$\$ > '$tmp/pid'; exec '$THP' --root '$R' set enabled=always defrag=never khugepaged.defrag=0" \
		> "$tmp/out" 2>&1 &
	spid=$!
	i=0
	while ! grep -q '\[never\]' "$T/defrag" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	kill -"$1" "$(cat "$tmp/pid")"
	{ wait "$spid"; } 2> /dev/null
}
fresh
if ! strace -f -qq -o /dev/null true 2> /dev/null; then
	skip "signals: strace cannot trace here (ptrace not permitted)"
else
	for sig in INT TERM; do
		fresh
		held_set "$sig"
		expect_sh "SIG$sig during set: the old complete state" "grep -q 'interrupted by SIG$sig' '$tmp/out' && same_as_fixture"
		expect "SIG$sig during set: reported" grep -q "interrupted by SIG$sig" "$tmp/out"
		expect "SIG$sig during set: rolled back" grep -q "rolled back 2 settings" "$tmp/out"
	done
	fresh
	held_set KILL
	expect "SIGKILL during set: half written" sh -c "grep -q '\[always\]' '$T/enabled' && grep -q '^1$' '$T/khugepaged/defrag'"
	expect "SIGKILL during set: the journal stays" [ -f "$R/run/thp/journal" ]
	expect "SIGKILL during set: status shows the unfinished change" sh -c "'$THP' --root '$R' status | tr -s '\n ' ' ' | grep -q \"Pending: 'thp --root $R set enabled=always defrag=never khugepaged.defrag=0' (pid [0-9]*) did not\""
	expect "SIGKILL during set: doctor finds it, fix 'thp restore'" sh -c "'$THP' --root '$R' doctor --json | jq -e '.findings[] | select(.id == \"journal-pending\") | .fix == [\"thp restore\"]' > /dev/null"
	expect "restore after SIGKILL: exit 0" [ "$(rc_of "$THP" --root "$R" restore)" = 0 ]
	expect "restore after SIGKILL: says what it puts back" grep -q "did not finish; putting back what it changed" "$tmp/out"
	expect "restore after SIGKILL: the fixture exactly" put_back
	expect_sh "restore removes the journal" "grep -q 'did not finish; putting back' '$tmp/out' && [ ! -e '$R/run/thp/journal' ]"
	fresh
	held_set KILL
	expect "after SIGKILL a new set puts the unfinished change back first" sh -c "'$THP' --root '$R' set use_zero_page=0 2>&1 | grep -q 'did not finish; put back the 2 settings it had changed'"
	expect "... and saves the state from before the killed set" grep -q '^enabled=madvise$' "$R/run/thp/saved.state"
	expect "... then restore gives the fixture exactly" sh -c "'$THP' --root '$R' restore > '$tmp/out' && grep -q 'putting back' '$tmp/out' && [ \"\$(cd '$R' && find sys -type f -exec md5sum {} + | sort -k2)\" = \"\$(cd '$FX' && find sys -type f -exec md5sum {} + | sort -k2)\" ]"
fi

# Journals as a killed thp leaves them (format in core/state.h), in the fixture
# copy whose boot id is BOOT.
BOOT=7dc6ad8e-582a-4df8-83ba-81f984662768
journal() { # journal BOOT_ID COMMAND KEY=VALUE...: the journal of a dead pid, with its end line
	b=$1 c=$2
	shift 2
	mkdir -p "$R/run/thp" && chmod 700 "$R/run/thp"
	printf 'thp-state 1\nboot %s\nowner 999999 1\ncommand %s\n' "$b" "$c" > "$R/run/thp/journal"
	printf '%s\n' "$@" >> "$R/run/thp/journal"
	echo "end $# $(cksum < "$R/run/thp/journal" | cut -d' ' -f1)" >> "$R/run/thp/journal"
}
enabled_is() { grep -q "\[$1\]" "$T/enabled"; }
with_boot() { fresh; mkdir -p "$R/proc/sys/kernel/random"; echo "$BOOT" > "$R/proc/sys/kernel/random/boot_id"; }

# A 'thp bench --modes always' killed with SIGKILL: the policy it switched to runs.
with_boot
journal "$BOOT" "thp bench khugepaged --modes always" enabled=madvise
sed -i 's/.*/[always] madvise never/' "$T/enabled"
expect "killed bench: thp set puts its policy back first" sh -c "'$THP' --root '$R' set enabled=never 2>&1 | grep -q \"'thp bench khugepaged --modes always' (pid 999999) did not finish; put back the 1 setting\""
expect "killed bench: the set's value runs" enabled_is never
expect "killed bench: the journal is gone" [ ! -e "$R/run/thp/journal" ]
expect "killed bench: the saved previous state is the one before the bench" grep -q '^enabled=madvise$' "$R/run/thp/saved.state"
expect "killed bench: restore goes back to before the bench" sh -c "'$THP' --root '$R' restore > /dev/null && grep -q '\[madvise\]' '$T/enabled'"
# the command a journal names comes from a file: printed escaped
with_boot
journal "$BOOT" "$(printf 'thp \033]0;x\007 set')" enabled=madvise
"$THP" --root "$R" restore --dry-run > "$tmp/out" 2>&1
expect "a journal's command with control bytes: restore prints it escaped" \
	grep -qF "'thp \x1b]0;x\x07 set' (pid 999999) did not finish" "$tmp/out"
with_boot
journal "$BOOT" "thp bench khugepaged --modes always" enabled=madvise
sed -i 's/.*/[always] madvise never/' "$T/enabled"
"$THP" --root "$R" set --save "$tmp/orig" > /dev/null
expect "killed bench: set --save records the policy from before it" grep -q '^enabled=madvise$' "$tmp/orig"
expect "killed bench: restore puts it back and removes the journal" sh -c "'$THP' --root '$R' restore > /dev/null && [ ! -e '$R/run/thp/journal' ]"
expect "killed bench: the fixture exactly" same_as_fixture

# A journal of an earlier boot: reported, never applied.
with_boot
journal 0b5e1c2d-0000-4000-8000-000000000001 "thp bench khugepaged --modes never" enabled=never
expect "earlier boot: restore exits 1" [ "$(rc_of "$THP" --root "$R" restore)" = 1 ]
expect "earlier boot: restore says why" grep -q "in an earlier boot: the kernel has started afresh since, so it is not applied; removed it" "$tmp/out"
expect "earlier boot: nothing written" same_as_fixture
expect "earlier boot: the journal is removed" [ ! -e "$R/run/thp/journal" ]
journal 0b5e1c2d-0000-4000-8000-000000000001 "thp bench khugepaged --modes never" enabled=never
expect "earlier boot: set goes on" sh -c "'$THP' --root '$R' set defrag=never 2>&1 | grep -q 'left by .* in an earlier boot'"
expect "earlier boot: set did not apply the journal" enabled_is madvise
printf 'thp-state 1\nboot 0b5e1c2d-0000-4000-8000-000000000001\ncommand thp set\nenabled=never\n' > "$tmp/s"
echo "end 1 $(cksum < "$tmp/s" | cut -d' ' -f1)" >> "$tmp/s"
cp "$tmp/s" "$R/run/thp/saved.state"
expect "earlier boot: restore of the saved state exits 1" [ "$(rc_of "$THP" --root "$R" restore)" = 1 ]
expect "earlier boot: ... and says whose state, and why not" grep -q "was saved by 'thp set' at a time not recorded in an earlier boot (boot id 0b5e1c2d-0000-4000-8000-000000000001; this boot is $BOOT): the kernel has started afresh since, so it is not applied (--force applies it)" "$tmp/out"
expect "earlier boot: restore FILE of that boot exits 1 too" [ "$(rc_of "$THP" --root "$R" restore "$tmp/s")" = 1 ]
expect "earlier boot: restore FILE wrote nothing" enabled_is madvise
expect "earlier boot: restore --force FILE: exit 0" [ "$(rc_of "$THP" --root "$R" restore --force "$tmp/s")" = 0 ]
expect "earlier boot: restore --force FILE applies it" enabled_is never
expect "earlier boot: restore --force says whose state it applies" grep -q "^putting back '$tmp/s', saved by 'thp set' at a time not recorded in an earlier boot" "$tmp/out"
# restore says whose state it puts back: command, time and boot
with_boot
"$THP" --root "$R" set enabled=never > /dev/null
expect "restore: exit 0" [ "$(rc_of "$THP" --root "$R" restore)" = 0 ]
expect "restore says whose state it puts back" grep -q "^putting back '$R/run/thp/saved.state', saved by 'thp --root $R set enabled=never' at 20[0-9-]* [0-9:]* UTC in this boot (boot id $BOOT)" "$tmp/out"
expect "the saved state records when" grep -q '^time 20[0-9-]*T[0-9:]*Z$' "$R/run/thp/saved.state"

# Damaged, cut, duplicate-key and empty files: refused, nothing written.
refused() { # refused WHAT MESSAGE [FILE]: restore refuses with MESSAGE, writes nothing
	expect "$1: restore exits 1" [ "$(rc_of "$THP" --root "$R" restore ${3:+"$3"})" = 1 ]
	expect "$1: restore says '$2'" grep -q "$2" "$tmp/out"
	expect "$1: nothing written" same_as_fixture
}
with_boot
journal "$BOOT" "thp bench bloat --modes always" enabled=always defrag=never
sed -i 's/^defrag=never/defrag=always/' "$R/run/thp/journal"
refused "changed journal" "the journal '.*' is damaged: line 7: the checksum does not match"
expect "changed journal: it stays" [ -f "$R/run/thp/journal" ]
expect "changed journal: set refuses too" [ "$(rc_of "$THP" --root "$R" set enabled=never)" = 1 ]
expect "changed journal: set wrote nothing" same_as_fixture
expect "changed journal: doctor finds it" sh -c "'$THP' --root '$R' doctor --json | jq -e '[.findings[].id] | index(\"journal-damaged\")' > /dev/null"
journal "$BOOT" "thp bench bloat --modes always" enabled=always defrag=never
sed -i '$d' "$R/run/thp/journal"
refused "cut journal" "it has no end line: the file is cut short"
journal "$BOOT" "thp bench bloat --modes always" enabled=always defrag=never enabled=never
refused "journal with a key twice" "line 7: 'enabled' is given twice (lines 5 and 7)"
journal "$BOOT" "thp bench bloat --modes always" enabled=always
head -c 40 "$R/run/thp/journal" > "$tmp/cut" && cp "$tmp/cut" "$R/run/thp/journal"
refused "journal cut in its header" "the file is cut short"
: > "$R/run/thp/journal"
refused "empty journal" "it holds no setting"
rm "$R/run/thp/journal"
"$THP" --root "$R" set --save "$tmp/s" enabled=always > /dev/null
"$THP" --root "$R" restore "$tmp/s" > /dev/null
head -n 5 "$tmp/s" > "$R/run/thp/saved.state"
refused "cut saved state" "it has no end line: the file is cut short"
: > "$R/run/thp/saved.state"
refused "empty saved state" "it holds no setting"
: > "$tmp/empty"
refused "empty FILE" "it holds no setting" "$tmp/empty"
printf 'enabled=always\nenabled=never\n' > "$tmp/twice"
refused "FILE with a key twice" "line 2: 'enabled' is given twice" "$tmp/twice"

# A journal whose thp still runs: its owner holds the writers' lock (a
# process of the tree's proc/ with the owner's pid and start time is no thp
# of this host, and means nothing).
with_boot
journal "$BOOT" "thp bench bloat --modes always" enabled=madvise
sed -i 's/^owner .*/owner 4242 3050613/' "$R/run/thp/journal"
head -n -1 "$R/run/thp/journal" > "$tmp/j" && echo "end 1 $(cksum < "$tmp/j" | cut -d' ' -f1)" >> "$tmp/j" && cp "$tmp/j" "$R/run/thp/journal"
mkdir -p "$R/proc/4242"
echo "4242 (thp) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 3050613 10000000 500" > "$R/proc/4242/stat"
expect "owner only in the tree's proc/: doctor says it did not finish" sh -c "'$THP' --root '$R' doctor --json | jq -e '[.findings[].id] | index(\"journal-pending\")' > /dev/null"
echo "4242 thp bench bloat --modes always" > "$R/run/thp/lock"
chmod 600 "$R/run/thp/lock"
flock "$R/run/thp/lock" sleep 30 &
holder=$!
sleep 0.3
expect "owner holds the lock: doctor says it runs" sh -c "'$THP' --root '$R' doctor --json | jq -e '[.findings[].id] | index(\"journal-running\")' > /dev/null"
expect "running change: set waits, then exits 1" [ "$(rc_of "$THP" --root "$R" set enabled=never)" = 1 ]
expect "running change: set names the holder" grep -q "set: another thp is changing THP settings or pools: 'thp bench bloat --modes always' (pid 4242) holds '$R/run/thp/lock' and did not end within 10 s; nothing was changed" "$tmp/out"
expect "running change: nothing written" same_as_fixture
kill "$holder"
wait "$holder" 2> /dev/null
rm -r "$R/proc/4242"

# persist: files parse back to the settings, --check finds drift
fresh
expect "persist --check with nothing persisted: exit 0" [ "$(rc_of "$THP" --root "$R" persist --check)" = 0 ]
expect "persist --dry-run --json before persisting: a change" sh -c "'$THP' --root '$R' persist --dry-run --json | jq -e '.changed and .current == null and (.foreign | not)' > /dev/null"
expect "persist: exit 0" [ "$(rc_of "$THP" --root "$R" persist)" = 0 ]
expect "persist --dry-run --json after persisting: no change" sh -c "'$THP' --root '$R' persist --dry-run --json | jq -e '(.changed | not) and .content == .current' > /dev/null"
expect "persist wrote 29 w lines" [ "$(grep -c '^w /sys/kernel/mm/transparent_hugepage/' "$R/etc/tmpfiles.d/thp.conf")" = 29 ]
expect_out "persist writes per-size lines after top-level ones" "awk -F: '/hugepages-/ {s=1} !/hugepages-/ && s && /^[0-9]+:w/ {exit 1} END {exit !s}'" grep -n '' "$R/etc/tmpfiles.d/thp.conf"
expect "persisted file parses back: no drift" [ "$(rc_of "$THP" --root "$R" persist --check)" = 0 ]
"$THP" --root "$R" set defrag=never > /dev/null
expect "drift found: exit 3" [ "$(rc_of "$THP" --root "$R" persist --check)" = 3 ]
expect "drift names the setting, its file and line" grep -q "^defrag  *madvise  *never  */etc/tmpfiles.d/thp.conf:5$" "$tmp/out"
echo 'w /sys/kernel/mm/transparent_hugepage/enabled - - - - sometimes' > "$R/etc/tmpfiles.d/00-early.conf"
expect "a value boot would refuse is found" sh -c "'$THP' --root '$R' persist --check | grep -q \"boot cannot apply enabled=sometimes: 'enabled' accepts always, madvise, never\""
rm "$R/etc/tmpfiles.d/00-early.conf"
mkdir -p "$R/usr/lib/tmpfiles.d"
echo 'w /sys/kernel/mm/transparent_hugepage/use_zero_page - - - - 0' > "$R/usr/lib/tmpfiles.d/thp.conf"
echo 'w /sys/kernel/mm/transparent_hugepage/shmem_enabled - - - - always' > "$R/usr/lib/tmpfiles.d/vendor.conf"
ln -s /dev/null "$R/etc/tmpfiles.d/vendor.conf"
expect "/etc hides or masks same-named files in /usr/lib" sh -c "'$THP' --root '$R' persist --check --json | jq -e '[.drift[].key] == [\"defrag\"]' > /dev/null"
expect "persist with values: exit 0" [ "$(rc_of "$THP" --root "$R" persist --systemd khugepaged.defrag=0 hugepages.64K.enabled=inherit)" = 0 ]
expect "unit enabled" [ -L "$R/etc/systemd/system/basic.target.wants/thp.service" ]
expect "check reads the unit" sh -c "'$THP' --root '$R' persist --check --json | jq -e '[.drift[].key] == [\"defrag\", \"khugepaged.defrag\", \"hugepages.64K.enabled\"]' > /dev/null"
expect "persist of a refused value: exit 2" [ "$(rc_of "$THP" --root "$R" persist enabled=sometimes)" = 2 ]
echo "w /sys/kernel/mm/transparent_hugepage/enabled - - - - never" > "$R/etc/tmpfiles.d/thp.conf"
expect "a file thp did not write is kept: exit 1" [ "$(rc_of "$THP" --root "$R" persist)" = 1 ]
expect "... and left as it was" grep -q "never$" "$R/etc/tmpfiles.d/thp.conf"
expect "--force replaces it" sh -c "'$THP' --root '$R' persist --force > /dev/null && grep -q \"thp persist\" '$R/etc/tmpfiles.d/thp.conf'"
expect "persist -o FILE" sh -c "'$THP' --root '$R' persist -o '$tmp/x.conf' enabled=never > /dev/null && [ \"\$(grep -c '^w ' '$tmp/x.conf')\" = 1 ]"
expect "persist --cmdline" sh -c "'$THP' --root '$R' persist --cmdline enabled=never hugepages.64K.enabled=always | head -1 | grep -qx 'transparent_hugepage=never thp_anon=64K:always'"

# vm.* sysctls: set with the THP settings, saved, restored; a saved state
# without them (an older thp) neither differs in them nor restores them;
# persisted to sysctl.d, where --check reads them.
fresh
V=$R/proc/sys/vm
expect "set vm.*: exit 0" [ "$(rc_of "$THP" --root "$R" set enabled=never vm.compaction_proactiveness=0 vm.watermark_scale_factor=200)" = 0 ]
expect "set wrote compaction_proactiveness" [ "$(cat "$V/compaction_proactiveness")" = 0 ]
expect "set wrote watermark_scale_factor" [ "$(cat "$V/watermark_scale_factor")" = 200 ]
expect "the saved state holds the vm.* values" grep -qx 'vm.watermark_scale_factor=10' "$R/run/thp/saved.state"
# (jq prints true only when thp printed JSON: 'jq -e' alone passes on no input)
expect "diff: 3 differences" sh -c "'$THP' --root '$R' diff --json | jq '.differences == 3' | grep -qx true"
# the form of an older thp: KEY=VALUE lines only, no vm.* keys
sed -n '/^[a-z][a-zA-Z0-9_.]*=/{/^vm\./d;p}' "$R/run/thp/saved.state" > "$tmp/old.state"
expect "diff with a saved state without vm.* keys: 1 difference" sh -c "'$THP' --root '$R' diff --json '$tmp/old.state' | jq '.differences == 1' | grep -qx true"
expect "restore: exit 0" [ "$(rc_of "$THP" --root "$R" restore)" = 0 ]
expect "restore gives back the vm.* sysctls too" put_back
mkdir -p "$R/etc/sysctl.d"
expect "persist vm.*: exit 0" [ "$(rc_of "$THP" --root "$R" persist vm.compaction_proactiveness=0 vm.min_free_kbytes=90112)" = 0 ]
expect "persist says where" grep -q "to $R/etc/sysctl.d/90-thp.conf" "$tmp/out"
expect "persist wrote the sysctl.d lines" [ "$(grep -c '^vm\.[a-z_]* = [0-9]*$' "$R/etc/sysctl.d/90-thp.conf")" = 2 ]
expect_sh "persist of vm.* wrote no tmpfiles.d file (but its sysctl.d file)" "[ -s '$R/etc/sysctl.d/90-thp.conf' ] && [ ! -e '$R/etc/tmpfiles.d/thp.conf' ]"
expect "persist --check finds the vm.* drift" sh -c "'$THP' --root '$R' persist --check --json | jq '[.drift[].key] == [\"vm.compaction_proactiveness\", \"vm.min_free_kbytes\"]' | grep -qx true"
echo "vm/compaction_proactiveness = 20" > "$R/etc/sysctl.d/95-later.conf"
expect "a later sysctl.d file wins" sh -c "'$THP' --root '$R' persist --check --json | jq '[.drift[].key] == [\"vm.min_free_kbytes\"]' | grep -qx true"
expect_sh "persist without keys leaves vm.* out" "'$THP' --root '$R' persist > /dev/null && grep -q '^w ' '$R/etc/tmpfiles.d/thp.conf' && ! grep -q vm '$R/etc/tmpfiles.d/thp.conf'"
expect "persist of vm.* and THP keys together: exit 2" [ "$(rc_of "$THP" --root "$R" persist vm.compaction_proactiveness=0 enabled=never)" = 2 ]
expect "persist --systemd of vm.*: exit 2" [ "$(rc_of "$THP" --root "$R" persist --systemd vm.compaction_proactiveness=0)" = 2 ]
expect "persist of vm.* keys wrote nothing to the kernel" same_as_fixture

# Under --root, persist prints no command that would act on this host.
fresh
expect "persist under --root: exit 0" [ "$(rc_of "$THP" --root "$R" persist enabled=never)" = 0 ]
expect_absent "persist under --root: no command that writes this host" 'systemd-tmpfiles --create\|apply it now' cat "$tmp/out"
expect "persist under --root: says nothing was applied here" grep -q "of the host below '$R'; nothing was applied to this host" "$tmp/out"
mkdir -p "$R/etc/sysctl.d"
expect "persist of vm.* under --root: exit 0" [ "$(rc_of "$THP" --root "$R" persist vm.min_free_kbytes=90112)" = 0 ]
expect_absent "persist of vm.* under --root: no sysctl -p" 'sysctl -p' cat "$tmp/out"
expect_absent "persist --systemd under --root: no daemon-reload" daemon-reload sh -c "'$THP' --root '$R' persist --systemd 2>&1"

# hugetlb persist: the pools at boot, each where boot sets it; parsed back
# by persist --check and doctor; both files or neither.
HP=tests/fixtures/hugetlb-numa
SYS=$R/etc/sysctl.d/90-thp-hugetlb.conf TMPF=$R/etc/tmpfiles.d/thp-hugetlb.conf
# a copy of the two-node fixture with the boot directories, and a 32 MiB pool
fresh_pools() {
	rm -rf "$R"; cp -a "$HP" "$R"; mkdir -p "$R/run" "$R/etc/tmpfiles.d" "$R/etc/sysctl.d"
	P32=$R/sys/kernel/mm/hugepages/hugepages-32768kB
	mkdir -p "$P32"
	for f in nr_hugepages free_hugepages surplus_hugepages resv_hugepages nr_overcommit_hugepages; do echo 0 > "$P32/$f"; done
	echo 8 > "$P32/nr_hugepages"
}
fresh_pools
pools_sum=$(tree_sum "$R")
expect "hugetlb persist --dry-run: exit 0" [ "$(rc_of "$THP" --root "$R" hugetlb persist --dry-run 2M=512 32M=4 node1:1G=2)" = 0 ]
expect "hugetlb persist --dry-run shows the sysctl.d line" grep -qx 'vm.nr_hugepages = 512' "$tmp/out"
expect "hugetlb persist --dry-run shows the tmpfiles.d line" grep -qx 'w /sys/kernel/mm/hugepages/hugepages-32768kB/nr_hugepages - - - - 4' "$tmp/out"
expect "hugetlb persist --dry-run shows the command line of the node's 1G pool" grep -qx 'hugepagesz=1G hugepages=1:2' "$tmp/out"
expect_sh "hugetlb persist --dry-run wrote nothing" '[ ! -e "$SYS" ] && [ ! -e "$TMPF" ]'
expect "hugetlb persist --dry-run --json: both files change" sh -c "'$THP' --root '$R' hugetlb persist --dry-run --json 2M=512 32M=4 | jq '[.files[].changed] == [true, true] and .cmdline == \"\"' | grep -qx true"
# without pools: the pools as they are (1030 less 6 surplus; 1G is the command line's)
expect "hugetlb persist: exit 0" [ "$(rc_of "$THP" --root "$R" hugetlb persist)" = 0 ]
expect "hugetlb persist: the default size's pool in sysctl.d" [ "$(grep -v '^#' "$SYS")" = 'vm.nr_hugepages = 1024' ]
expect "hugetlb persist: the 32M pool in tmpfiles.d" [ "$(grep -v '^#' "$TMPF")" = 'w /sys/kernel/mm/hugepages/hugepages-32768kB/nr_hugepages - - - - 8' ]
expect "hugetlb persist: 1G pages on the command line" grep -qx 'hugepagesz=1G hugepages=4' "$tmp/out"
expect "hugetlb persist under --root: says nothing was applied here" grep -q "host below '$R'; nothing was applied to this host" "$tmp/out"
expect "hugetlb persist wrote no pool" [ "$(tree_sum "$R")" = "$pools_sum" ]
expect "persisted pools parse back: no drift, exit 0" [ "$(rc_of "$THP" --root "$R" persist --check)" = 0 ]
expect "persist --check counts the pools" grep -q "^no drift: the 3 persisted settings match" "$tmp/out"
expect "hugetlb persist --dry-run --json again: nothing changes" sh -c "'$THP' --root '$R' hugetlb persist --dry-run --json | jq '[.files[].changed] == [false, false]' | grep -qx true"
echo 600 > "$R/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages"
echo 1118 > "$R/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
echo 5 > "$P32/nr_hugepages"
expect "a resized pool is drift: exit 3" [ "$(rc_of "$THP" --root "$R" persist --check)" = 3 ]
expect "persist --check names the pool, its values and its line" grep -qE '^hugetlb\.2M +1024 +1112 +/etc/sysctl.d/90-thp-hugetlb.conf:4$' "$tmp/out"
expect "persist --check --json: both pools drift" sh -c "'$THP' --root '$R' persist --check --json | jq -c '[.drift[] | [.key, .persisted, .running]]' | grep -qx '\[\[\"hugetlb.2M\",\"1024\",\"1112\"\],\[\"hugetlb.32M\",\"8\",\"5\"\]\]'"
expect "doctor: persist-drift names the pools and the fix" sh -c "'$THP' --root '$R' doctor --json | jq -e '.findings[] | select(.id == \"persist-drift\") | (.fix | index(\"thp hugetlb persist   # keep the running pools across reboot\")) and ([.evidence[].name] == [\"hugetlb.2M\", \"hugetlb.32M\"])' > /dev/null"
# the pools of the last persist only: a node's pool, and the default size's file goes
expect "hugetlb persist of a node's pool: exit 0" [ "$(rc_of "$THP" --root "$R" hugetlb persist node1:2M=600)" = 0 ]
expect_sh "the sysctl.d file thp wrote is removed (for the node's pool in tmpfiles.d)" "[ -s '$TMPF' ] && [ ! -e '$SYS' ]"
expect "the removal is said" grep -q "^removed $SYS" "$tmp/out"
expect "the node's pool in tmpfiles.d" [ "$(grep -v '^#' "$TMPF")" = 'w /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages - - - - 600' ]
expect "the node's pool parses back" sh -c "'$THP' --root '$R' persist --check --json | jq '[.drift[].key] | index(\"hugetlb.node1.2M\") == null' | grep -qx true"
expect "--node N: the node of pools without a prefix" sh -c "'$THP' --root '$R' hugetlb persist --dry-run --node 0 2M=9 | grep -qx 'w /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages - - - - 9'"
# other writers' pools: a unit, a tmpfiles.d line, /proc/cmdline
printf 'w /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages - - - - 7\n' > "$R/etc/tmpfiles.d/db.conf"
expect "persist --check reads another file's node pool" sh -c "'$THP' --root '$R' persist --check --json | jq -c '.drift[] | select(.key == \"hugetlb.node0.2M\") | [.persisted, .running, .source]' | grep -qx '\[\"7\",\"512\",\"/etc/tmpfiles.d/db.conf\"\]'"
rm "$R/etc/tmpfiles.d/db.conf"
# a file of another writer that thp has nothing for is left alone, and named in "left"
fresh_pools
echo '# written by the admin' > "$TMPF"
expect "hugetlb persist --json: the file thp did not write is left, and named in left" sh -c "'$THP' --root '$R' hugetlb persist --json 2M=512 | jq -c '[.schema, (.written | map(sub(\".*/etc/\"; \"\"))), (.left | map(sub(\".*/etc/\"; \"\")))]' | grep -qxF '[\"thp-hugetlb-persist/2\",[\"sysctl.d/90-thp-hugetlb.conf\"],[\"tmpfiles.d/thp-hugetlb.conf\"]]'"
# refusals: nothing written
fresh_pools
for bad in 2M 2M=x =5 2M=-1 node:2M=1 nodeX:2M=1 node01:2M=1 3Q=1; do
	expect "hugetlb persist $bad: exit 2" [ "$(rc_of "$THP" --root "$R" hugetlb persist "$bad")" = 2 ]
done
for bad in "16M=1" "node7:2M=1" "node1:32M=1" "1G=99999999"; do
	# shellcheck disable=SC2086
	expect "hugetlb persist $bad: exit 1" [ "$(rc_of "$THP" --root "$R" hugetlb persist $bad)" = 1 ]
done
# a pool given twice is a usage error, as the same key twice in 'thp set'
for bad in "2M=1 node1:2M=1" "2M=1 2048K=2" "node1:2M=1 node1:2M=2"; do
	# shellcheck disable=SC2086
	expect "hugetlb persist $bad: exit 2" [ "$(rc_of "$THP" --root "$R" hugetlb persist $bad)" = 2 ]
done
expect "hugetlb persist of a size both host-wide and per node says why" [ "$(rc_of "$THP" --root "$R" hugetlb persist node1:2M=1 2M=1; cat "$tmp/out")" = "2
thp: hugetlb persist: the 2M pool is given host-wide and per node; the host's is the sum of the nodes': give one or the other" ]
expect "hugetlb persist of a node's pool twice names it" [ "$(rc_of "$THP" --root "$R" hugetlb persist node1:2M=1 node1:2M=2; cat "$tmp/out")" = "2
thp: hugetlb persist: node1:2M is given twice; nothing was changed" ]
expect "hugetlb --force belongs to persist: exit 2" [ "$(rc_of "$THP" --root "$R" hugetlb set --force 2M=1)" = 2 ]
# a 'thp hugetlb set' killed between two pools left its journal: restore puts
# the pools back (exit 0 when that was all), as the next 'hugetlb set' would
fresh_pools
P2=$R/sys/kernel/mm/hugepages/hugepages-2048kB
mkdir -p "$R/run/thp" && chmod 700 "$R/run/thp"
printf 'thp-pools 1\nowner 999999\ncommand thp hugetlb set 2M=1100 32M=2\nhugepages-2048kB=1030\nhugepages-32768kB=8\n' > "$tmp/pj"
{ cat "$tmp/pj"; echo "end 2 $(cksum < "$tmp/pj" | cut -d' ' -f1)"; } > "$R/run/thp/pools.journal"
echo 1100 > "$P2/nr_hugepages"
echo 2 > "$P32/nr_hugepages"
expect "a killed hugetlb set: status says it is pending" \
	sh -c "'$THP' --root '$R' status | grep -q \"^Pending: 'thp hugetlb set 2M=1100 32M=2' (pid 999999) did not finish: 2 pools\""
expect "a killed hugetlb set: status --json names the pools not back" \
	sh -c "'$THP' --root '$R' status --json | jq -e '.pools_journal.state == \"unfinished\" and ([.pools_journal.changed[] | [.key, .running, .journaled]] == [[\"hugetlb.2M\", \"1100\", \"1030\"], [\"hugetlb.32M\", \"2\", \"8\"]])' > /dev/null"
expect "a killed hugetlb set: doctor finds it, and the fix is restore" \
	sh -c "'$THP' --root '$R' doctor --json | jq -e '.findings[] | select(.id == \"pools-journal-pending\") | .fix == [\"thp restore\"]' > /dev/null"
cp "$R/run/thp/pools.journal" "$tmp/pj.ok"
echo 'hugetlb-2048kB 5' >> "$R/run/thp/pools.journal"
expect "a damaged pools journal: doctor finds it" \
	sh -c "'$THP' --root '$R' doctor --json | jq -e '[.findings[].id] | index(\"pools-journal-damaged\")' > /dev/null"
expect "a damaged pools journal: restore refuses it, exit 1" [ "$(rc_of "$THP" --root "$R" restore; head -1 "$tmp/out")" = "1
thp: restore: the journal '$R/run/thp/pools.journal' is damaged: line 7; nothing was changed: look at it, set the pools it names with 'thp hugetlb set', then remove it" ]
cp "$tmp/pj.ok" "$R/run/thp/pools.journal"
want="0
thp: restore: 'thp hugetlb set 2M=1100 32M=2' (pid 999999) did not finish; the 2 pools it had changed would be put back first (journal '$R/run/thp/pools.journal')"
expect_sh "a killed hugetlb set: restore --dry-run says what it would put back, and changes nothing" \
	'[ "$(rc_of "$THP" --root "$R" restore --dry-run; head -1 "$tmp/out")" = "$want" ] && [ "$(cat "$P2/nr_hugepages") $(cat "$P32/nr_hugepages")" = "1100 2" ] && [ -f "$R/run/thp/pools.journal" ]'
# a refused 'hugetlb set' (a size without a pool, more pages than RAM: exit
# 2) changes nothing, not even the pools of that journal
for bad in 32K=1 1G=99999; do
	expect_sh "a killed hugetlb set, then a refused 'hugetlb set $bad': exit 2, the journal and its pools left as they are" \
		'[ "$(rc_of "$THP" --root "$R" hugetlb set '"$bad"')" = 2 ] && [ "$(cat "$P2/nr_hugepages") $(cat "$P32/nr_hugepages")" = "1100 2" ] && cmp -s "$tmp/pj.ok" "$R/run/thp/pools.journal"'
done
expect "a killed hugetlb set: restore exits 0" [ "$(rc_of "$THP" --root "$R" restore)" = 0 ]
expect "a killed hugetlb set: restore says what it put back" grep -qx "thp: restore: 'thp hugetlb set 2M=1100 32M=2' (pid 999999) did not finish; put back the 2 pools it had changed" "$tmp/out"
expect_sh "a killed hugetlb set: restore put both pools back" '[ "$(cat "$P2/nr_hugepages") $(cat "$P32/nr_hugepages")" = "1030 8" ]'
expect "a killed hugetlb set: restore removed its journal" [ ! -e "$R/run/thp/pools.journal" ]
expect "persist vm.nr_hugepages: exit 2, names hugetlb persist" [ "$(rc_of "$THP" --root "$R" persist vm.nr_hugepages=8; grep -c 'thp hugetlb persist SIZE=PAGES' "$tmp/out")" = "2
1" ]
expect_sh "the refused hugetlb persists wrote nothing" '[ "$(tree_sum "$R")" = "$pools_sum" ] && [ ! -e "$SYS" ] && [ ! -e "$TMPF" ]'
# a file thp did not write: kept, unless --force
echo 'vm.nr_hugepages = 3' > "$SYS"
expect "hugetlb persist over another's file: exit 1" [ "$(rc_of "$THP" --root "$R" hugetlb persist 2M=5)" = 1 ]
expect "another's file is left as it was" [ "$(cat "$SYS")" = 'vm.nr_hugepages = 3' ]
expect "hugetlb persist --force replaces it" sh -c "'$THP' --root '$R' hugetlb persist --force 2M=5 > /dev/null && grep -qx 'vm.nr_hugepages = 5' '$SYS'"
# both files or neither: the second cannot be written, the first is put back
"$THP" --root "$R" hugetlb persist 2M=6 > /dev/null
cp "$SYS" "$tmp/sys.before"
rmdir "$R/etc/tmpfiles.d"
expect "hugetlb persist with no tmpfiles.d directory: exit 1" [ "$(rc_of "$THP" --root "$R" hugetlb persist 2M=7 32M=2)" = 1 ]
expect "the failure names the file" grep -q "cannot write '$TMPF'" "$tmp/out"
expect "the sysctl.d file is put back" cmp -s "$SYS" "$tmp/sys.before"
mkdir "$R/etc/tmpfiles.d"
# a persist killed between its two files left its journal: the next one puts them back first
"$THP" --root "$R" hugetlb persist 2M=6 32M=1 > /dev/null
mkdir -p "$R/run/thp" && chmod 700 "$R/run/thp"
old="# written by 'thp hugetlb persist'
vm.nr_hugepages = 3"
body=$(printf 'thp-boot 1\nowner 4242\ncommand thp hugetlb persist 2M=3 32M=3\nfile etc/sysctl.d/90-thp-hugetlb.conf %d\n%s\n\nabsent etc/tmpfiles.d/thp-hugetlb.conf\n' $((${#old} + 1)) "$old")
printf '%s\nend 2 %s\n' "$body" "$(printf '%s\n' "$body" | cksum | cut -d' ' -f1)" > "$R/run/thp/boot.journal"
cp "$R/run/thp/boot.journal" "$tmp/boot.journal"
expect "hugetlb persist --dry-run leaves the journal alone" sh -c "'$THP' --root '$R' hugetlb persist --dry-run 2M=9 > /dev/null && cmp -s '$R/run/thp/boot.journal' '$tmp/boot.journal'"
expect "hugetlb persist after a killed one: exit 0" [ "$(rc_of "$THP" --root "$R" hugetlb persist 2M=9)" = 0 ]
expect "it says what it put back" grep -q "^thp: hugetlb persist: 'thp hugetlb persist 2M=3 32M=3' (pid 4242) did not finish; put back the 2 files it had changed" "$tmp/out"
expect "the journal is gone" [ ! -e "$R/run/thp/boot.journal" ]
expect_sh "the file the killed one had not written yet is gone (the other put back)" "grep -q 'put back the 2 files' '$tmp/out' && [ ! -e '$TMPF' ]"
expect "the new pool is written over what was put back" [ "$(grep -v '^#' "$SYS")" = 'vm.nr_hugepages = 9' ]
body=$(printf 'thp-boot 1\nowner 4242\ncommand x\nfile etc/sysctl.d/90-thp-hugetlb.conf 4\nmine\n')
printf '%s\nend 1 %s\n' "$body" "$(printf '%s\n' "$body" | cksum | cut -d' ' -f1)" > "$R/run/thp/boot.journal"
expect "a file put back from the journal holds what it held" [ "$(rc_of "$THP" --root "$R" hugetlb persist 2M=10; cat "$SYS")" = "1
mine" ]
echo "# written by 'thp hugetlb persist'" > "$SYS"
"$THP" --root "$R" hugetlb persist 2M=9 > /dev/null
printf 'thp-boot 1\nfile etc/passwd 4\nroot\nend 1 0\n' > "$R/run/thp/boot.journal"
expect "a damaged journal: exit 1, nothing written" [ "$(rc_of "$THP" --root "$R" hugetlb persist 2M=10; grep -v '^#' "$SYS")" = "1
vm.nr_hugepages = 9" ]
expect "a damaged journal is said so" grep -q "the journal '$R/run/thp/boot.journal' is damaged: line 4; nothing was changed" "$tmp/out"
body=$(printf 'thp-boot 1\nowner 1\ncommand x\nabsent etc/passwd\n')
printf '%s\nend 1 %s\n' "$body" "$(printf '%s\n' "$body" | cksum | cut -d' ' -f1)" > "$R/run/thp/boot.journal"
expect "a journal that names another file: exit 1" [ "$(rc_of "$THP" --root "$R" hugetlb persist 2M=10)" = 1 ]
expect "a journal that names another file is damaged" grep -q "is damaged; nothing was changed" "$tmp/out"
rm "$R/run/thp/boot.journal"

# A capture archive as root: reading works, writing is refused (exit 2) and
# names the archive, and the archive is left as it was.
fresh
"$THP" --root "$R" set enabled=always > /dev/null
tar -czf "$tmp/host.tar.gz" -C "$R" .
cp "$tmp/host.tar.gz" "$tmp/host.before"
for w in "set enabled=never" "hugetlb set 2M=1" "hugetlb persist 2M=1" "restore" "persist" "persist --systemd"; do
	# shellcheck disable=SC2086
	expect "archive root: $w is refused with exit 2" [ "$(rc_of "$THP" --root "$tmp/host.tar.gz" $w)" = 2 ]
	expect "archive root: $w says why, naming the archive" grep -q "below '$tmp/host.tar.gz' is refused: it is an archive" "$tmp/out"
	expect_absent "archive root: $w names no temporary directory" thp-unpack cat "$tmp/out"
done
expect "archive root: set --dry-run still works" [ "$(rc_of "$THP" --root "$tmp/host.tar.gz" set --dry-run enabled=never)" = 0 ]
expect "archive root: persist -o FILE writes FILE" [ "$(rc_of "$THP" --root "$tmp/host.tar.gz" persist -o "$tmp/from-archive.conf")" = 0 ]
expect "archive root: the archive is unchanged" cmp -s "$tmp/host.tar.gz" "$tmp/host.before"

# Without root, the live kernel is never written.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	cp "$THP" "$tmp/thp" && chmod 755 "$tmp" "$tmp/thp"
	before=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null)
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/thp" set enabled=never 2>&1)
	expect "non-root set: exit 1" [ $? = 1 ]
	expect "non-root set: says run as root" sh -c "echo '$out' | grep -q 'run as root'"
	expect "non-root set: nothing written" [ "$before" = "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null)" ]
	expect "non-root set: nothing saved" [ ! -e /run/thp/saved.state.pending ]
elif [ "$(id -u)" != 0 ]; then
	expect "non-root set: exit 1" [ "$(rc_of "$THP" set enabled=never)" = 1 ]
	expect "non-root set: says run as root" grep -q 'run as root' "$tmp/out"
else
	skip "non-root set: setpriv is missing"
fi

# special files and links where thp reads: said what they are, not as raw
# errno texts ("Invalid argument", "Invalid cross-device link") or "malformed"
fresh
mkdir -p "$R/run/thp"
mkfifo "$R/run/thp/journal"
expect "set with a FIFO as the journal: exit 1, says it is no regular file" \
	[ "$(rc_of "$THP" --root "$R" set enabled=never; head -1 "$tmp/out")" = "1
thp: set: cannot read the journal '$R/run/thp/journal': it is a FIFO, socket or device, not a regular file; nothing was changed" ]
expect "doctor with a FIFO as the journal names it so" \
	sh -c "'$THP' --root '$R' doctor | grep -q 'file  a FIFO, socket or device, not a regular file  /run/thp/journal'"
fresh
rm "$T/enabled"
mkfifo "$T/enabled"
expect "status with a FIFO as a setting says what it is" \
	sh -c "'$THP' --root '$R' status | grep -q '^  enabled  *unknown  (a FIFO, socket or device, not a regular file)'"
if [ "$(id -u)" = 0 ]; then
	rm "$T/enabled"
	mknod "$T/enabled" c 1 3
	expect "set with a device as a setting: the message says what it is, not 'malformed value'" \
		[ "$(rc_of "$THP" --root "$R" set enabled=never; head -1 "$tmp/out")" = "2
thp: set: cannot read 'enabled': a FIFO, socket or device, not a regular file; nothing was changed" ]
else
	skip "a device node as a setting: mknod needs root"
fi
fresh
mkdir "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$R/run/thp"
expect "doctor with run/thp pointing outside the tree: says so, not 'Invalid cross-device link'" \
	sh -c "'$THP' --root '$R' doctor 2> /dev/null | grep -q 'file  a link there points outside the recorded tree  /run/thp/journal'"
expect "diff with run/thp pointing outside the tree: says so" \
	[ "$(rc_of "$THP" --root "$R" diff; grep -v 'it was not followed' "$tmp/out")" = "1
thp: diff: cannot read saved state '$R/run/thp/saved.state': a link on the way points outside the recorded tree" ]

summary control
