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
tree_sum() { (cd "$1" && find sys proc -type f -exec md5sum {} + | sort -k2); }
same_as_fixture() { [ "$(tree_sum "$R")" = "$(tree_sum "$FX")" ]; }
rc_of() { "$@" > "$tmp/out" 2>&1; echo $?; }

# Refused input: exit 2, one clear message, nothing written, nothing saved.
fresh
for kv in enabled=sometimes khugepaged.max_ptes_none=512 khugepaged.pages_to_scan=0 \
	use_zero_page=2 hugepages.2M.enabled=within_size hugepages.8K.enabled=never \
	hugepages.3M.enabled=never nosuch=1 khugepaged.full_scans=0 hugepages.64Q.enabled=never; do
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
expect "no pending marker after a set" [ ! -e "$R/run/thp/saved.state.pending" ]
expect "diff: exit 3 with 11 differences" [ "$(rc_of "$THP" --root "$R" diff)" = 3 ]
expect "diff counts them" grep -q "^11 settings differ" "$tmp/out"
expect "diff --json" sh -c "'$THP' --root '$R' diff --json | jq -e '.differences == 11' > /dev/null"
expect "diff with the fixture as another root" [ "$(rc_of "$THP" --root "$R" diff --root "$FX")" = 3 ]
expect "restore: exit 0" [ "$(rc_of "$THP" --root "$R" restore)" = 0 ]
expect "restore gives back the fixture exactly" same_as_fixture
expect "diff after restore: exit 0" [ "$(rc_of "$THP" --root "$R" diff --root "$FX")" = 0 ]
expect "set --save FILE, then restore FILE" sh -c "'$THP' --root '$R' set --save '$tmp/s' enabled=never > /dev/null && '$THP' --root '$R' restore '$tmp/s' > /dev/null"
expect "restore FILE gives back the fixture" same_as_fixture
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
	expect "failure midway leaves no pending marker" [ ! -e "$R/run/thp/saved.state.pending" ]
fi

# A rollback that fails too: strace fails the second write to 'enabled' (its
# rollback); thp says which setting is left changed and keeps the marker.
if [ "$(id -u)" = 0 ] && strace -f -qq -o /dev/null true 2> /dev/null; then
	fresh
	unshare -m sh -c "mount --bind '$ro' '$ro' && mount -o remount,ro,bind '$ro' &&
		strace -qq -o /dev/null -P '$T/enabled' -e trace=write -e inject=write:error=EIO:when=2 \
		'$THP' --root '$R' set enabled=always defrag=never khugepaged.max_ptes_none=0" > "$tmp/out" 2>&1
	expect "failed rollback: exit 1" [ $? = 1 ]
	expect "failed rollback: the others are rolled back" grep -q "rolled back 1 setting already written: defrag" "$tmp/out"
	expect "failed rollback: names the setting left changed" grep -q "could not roll back enabled (Input/output error); the previous state is saved in" "$tmp/out"
	expect "failed rollback: pending marker stays" [ -e "$R/run/thp/saved.state.pending" ]
else
	skip "failed rollback: needs root (bind mount) and strace"
fi

# Signals: strace holds the write to defrag for a second, then the signal lands
# between two writes.
held_set() { # held_set SIGNAL: run a set, send SIGNAL while defrag's write is held
	rm -f "$tmp/pid"
	strace -f -qq -o /dev/null -P "$T/defrag" -e trace=write -e inject=write:delay_exit=1000000 \
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
		expect "SIG$sig during set: the old complete state" same_as_fixture
		expect "SIG$sig during set: reported" grep -q "interrupted by SIG$sig" "$tmp/out"
		expect "SIG$sig during set: rolled back" grep -q "rolled back 2 settings" "$tmp/out"
	done
	fresh
	held_set KILL
	expect "SIGKILL during set: half written" sh -c "grep -q '\[always\]' '$T/enabled' && grep -q '^1$' '$T/khugepaged/defrag'"
	expect "SIGKILL during set: pending marker stays" [ -e "$R/run/thp/saved.state.pending" ]
	expect "after SIGKILL a new set keeps the old saved state" sh -c "'$THP' --root '$R' set use_zero_page=0 2>&1 | grep -q 'did not finish'"
	expect "restore after SIGKILL: exit 0" [ "$(rc_of "$THP" --root "$R" restore)" = 0 ]
	expect "restore after SIGKILL: the fixture exactly" same_as_fixture
	expect "restore clears the pending marker" [ ! -e "$R/run/thp/saved.state.pending" ]
fi

# persist: files parse back to the settings, --check finds drift
fresh
expect "persist --check with nothing persisted: exit 0" [ "$(rc_of "$THP" --root "$R" persist --check)" = 0 ]
expect "persist --dry-run --json before persisting: a change" sh -c "'$THP' --root '$R' persist --dry-run --json | jq -e '.changed and .current == null and (.foreign | not)' > /dev/null"
expect "persist: exit 0" [ "$(rc_of "$THP" --root "$R" persist)" = 0 ]
expect "persist --dry-run --json after persisting: no change" sh -c "'$THP' --root '$R' persist --dry-run --json | jq -e '(.changed | not) and .content == .current' > /dev/null"
expect "persist wrote 29 w lines" [ "$(grep -c '^w /sys/kernel/mm/transparent_hugepage/' "$R/etc/tmpfiles.d/thp.conf")" = 29 ]
expect "persist writes per-size lines after top-level ones" sh -c "grep -n '' '$R/etc/tmpfiles.d/thp.conf' | awk -F: '/hugepages-/ {s=1} !/hugepages-/ && s && /^[0-9]+:w/ {exit 1}'"
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

summary control
