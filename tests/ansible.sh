#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Ansible collection of contrib/ansible (thp.thp) with the distribution's
# ansible-core: real 'ansible-playbook -i localhost, -c local' runs against
# copies of a recorded tree (thp_root), never the host: the first run changes,
# the second changes nothing, check mode writes nothing (the tree compared
# byte for byte), a bad value fails with thp's message; ansible-doc renders
# every module. The recap counts of each run are printed.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 1' INT TERM
if ! command -v ansible-playbook > /dev/null || ! command -v ansible-doc > /dev/null; then
	skip "Ansible: ansible-playbook and ansible-doc (Debian package ansible-core) are not installed"
	summary ansible
	exit
fi
FX=tests/fixtures/live-6.18
R=$tmp/root
T=$R/sys/kernel/mm/transparent_hugepage
: > "$tmp/ansible.cfg" # the defaults, whatever /etc/ansible or ~/.ansible.cfg say
export ANSIBLE_CONFIG="$tmp/ansible.cfg" ANSIBLE_COLLECTIONS_PATH="$PWD/contrib/ansible"
export ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false ANSIBLE_HOME="$tmp/home" ANSIBLE_LOCAL_TEMP="$tmp/home/tmp"
export ANSIBLE_REMOTE_TEMP="$tmp/home/tmp" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0
export ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
thp=$(cd "$(dirname "$THP")" && pwd)/$(basename "$THP")

# a copy of the recorded host, with the directories a real one has
fresh() { rm -rf "$R"; cp -a "$FX" "$R"; mkdir -p "$R/run" "$R/etc/tmpfiles.d" "$R/etc/sysctl.d"; }
# sums of every file of the tree, to prove what changed
tree_sum() { (cd "$1" && find . -type f -exec md5sum {} + | sort -k2); }
# same_tree SUMS: the tree holds exactly the files and contents of SUMS
same_tree() { tree_sum "$R" | cmp -s - "$1"; }
# play NAME PLAYBOOK [ARGS...]: runs it on the tree; its recap goes to $tmp/NAME.recap
play() {
	name=$1 book=$2
	shift 2
	ansible-playbook -i localhost, -c local "tests/ansible/$book" -e "thp_root=$R thp_binary=$thp" "$@" \
		> "$tmp/$name.log" 2>&1
	rc=$?
	sed -n 's/^localhost *: //p' "$tmp/$name.log" | tr -s ' ' > "$tmp/$name.recap"
	echo "ansible: $name: $(cat "$tmp/$name.recap")"
	return $rc
}
# count NAME WORD: the number after WORD= in the recap of NAME
count() { sed -n "s/.*\\<$2=\\([0-9]*\\).*/\\1/p" "$tmp/$1.recap"; }

ansible-doc -t module thp.thp.thp_settings thp.thp.thp_hugetlb thp.thp.thp_facts > "$tmp/doc" 2>&1
for m in THP_SETTINGS THP_HUGETLB THP_FACTS; do
	expect "ansible-doc renders thp.thp.$m" grep -q "^> THP.THP.$m " "$tmp/doc"
done
expect "ansible-doc shows the options of all three" [ "$(grep -c '^OPTIONS' "$tmp/doc")" = 3 ]
expect "ansible-doc shows the examples of all three" [ "$(grep -c '^EXAMPLES' "$tmp/doc")" = 3 ]

# check mode: what would change is reported, nothing is written
fresh
tree_sum "$R" > "$tmp/before"
expect "check mode runs" play check settings.yml --check --diff
expect "check mode reports 3 changed" [ "$(count check changed)" = 3 ]
expect "check mode wrote nothing (every file of the tree the same)" same_tree "$tmp/before"
expect "check --diff shows enabled before" grep -q '^-enabled=madvise$' "$tmp/check.log"
expect "check --diff shows enabled after" grep -q '^+enabled=always$' "$tmp/check.log"
expect "check --diff shows the file boot reads" grep -q '^+w /sys/kernel/mm/transparent_hugepage/enabled - - - - always$' "$tmp/check.log"
expect "check --diff shows the pool after" grep -q '^+1G=1$' "$tmp/check.log"

# first run changes, second run does not
expect "first run" play first settings.yml
expect "first run: 3 changed" [ "$(count first changed)" = 3 ]
expect "first run wrote enabled" grep -q '^\[always\] madvise never$' "$T/enabled"
expect "first run wrote khugepaged.max_ptes_none" [ "$(cat "$T/khugepaged/max_ptes_none")" = 0 ]
expect "first run wrote the per-size setting" grep -q '\[inherit\]' "$T/hugepages-64kB/enabled"
expect "first run persisted the settings" grep -q '^w /sys/kernel/mm/transparent_hugepage/defrag - - - - defer+madvise$' "$R/etc/tmpfiles.d/thp.conf"
expect "first run sized the pool" [ "$(cat "$R/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages")" = 8 ]
expect "first run sized node 0's pool" [ "$(cat "$R/sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages")" = 1 ]
expect "first run saved the state for thp restore" grep -q '^enabled=madvise$' "$R/run/thp/saved.state"
tree_sum "$R" > "$tmp/after1"
expect "second run" play second settings.yml
expect "second run: 0 changed" [ "$(count second changed)" = 0 ]
expect "second run: 3 ok" [ "$(count second ok)" = 3 ]
expect "second run wrote nothing" same_tree "$tmp/after1"

# a bad value or size fails with thp's message and writes nothing
fresh
tree_sum "$R" > "$tmp/before"
play bad bad.yml
expect "bad value and size: both tasks fail" [ "$(count bad ignored)" = 2 ]
expect "bad value: thp's message" grep -q "'enabled' accepts always, madvise, never; nothing was changed" "$tmp/bad.log"
expect "bad size: thp's message" grep -q "no 3M pool; this kernel has 2M, 1G" "$tmp/bad.log"
expect "bad value and size: nothing written" same_tree "$tmp/before"

# pools kept at boot: check mode writes nothing, then once, then nothing more
SYS=$R/etc/sysctl.d/90-thp-hugetlb.conf
fresh
tree_sum "$R" > "$tmp/before"
expect "pools check mode runs" play pcheck pools.yml --check --diff
expect "pools check mode reports the task changed" [ "$(count pcheck changed)" = 1 ]
expect "pools check mode wrote nothing" same_tree "$tmp/before"
expect "pools check --diff shows the line boot reads" grep -q '^+vm.nr_hugepages = 8$' "$tmp/pcheck.log"
expect "pools first run" play pfirst pools.yml
expect "pools first run: changed" [ "$(count pfirst changed)" = 1 ]
expect "pools first run kept the 2M pool at boot" [ "$(grep -v '^#' "$SYS")" = 'vm.nr_hugepages = 8' ]
expect "pools first run wrote no tmpfiles.d file (1G is the command line's)" [ ! -e "$R/etc/tmpfiles.d/thp-hugetlb.conf" ]
expect "pools first run warns of the command line" grep -q "add 'hugepagesz=1G hugepages=1' to the bootloader" "$tmp/pfirst.log"
expect "pools kept match the running pools" sh -c "'$thp' --root '$R' persist --check > /dev/null"
tree_sum "$R" > "$tmp/after1"
expect "pools second run" play psecond pools.yml
expect "pools second run: 0 changed" [ "$(count psecond changed)" = 0 ]
expect "pools second run wrote nothing" same_tree "$tmp/after1"
echo 'vm.nr_hugepages = 3' > "$SYS"
play pforeign pools.yml
expect "pools over a file thp did not write: the task fails" [ "$(count pforeign failed)" = 1 ]
expect "pools over a file thp did not write: says so" grep -q "90-thp-hugetlb.conf' exists and was not written by thp" "$tmp/pforeign.log"
expect "pools over a file thp did not write: left alone" [ "$(cat "$SYS")" = 'vm.nr_hugepages = 3' ]

# the role: a database profile with a pool, twice; its facts for thp report
fresh
expect "role database" play role1 role.yml -e profile=database -e '{"pools": {"2M": 16}}' -e "report_file=$tmp/host.json"
expect "role database: settings, pool and the report file changed" [ "$(count role1 changed)" = 3 ]
expect "role database: THP off" grep -q '\[never\]' "$T/enabled"
expect "role database: the pool" [ "$(cat "$R/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages")" = 16 ]
expect "role database: persisted" grep -q '^w /sys/kernel/mm/transparent_hugepage/enabled - - - - never$' "$R/etc/tmpfiles.d/thp.conf"
expect "role database: the pool kept at boot" grep -qx 'vm.nr_hugepages = 16' "$R/etc/sysctl.d/90-thp-hugetlb.conf"
expect "role database again" play role2 role.yml -e profile=database -e '{"pools": {"2M": 16}}' -e "report_file=$tmp/host.json"
expect "role database again: 0 changed" [ "$(count role2 changed)" = 0 ]
# every profile is accepted and changes the host; the last one is what remains
fresh
expect "role profiles" play profiles profiles.yml -e '{"profiles": ["redis", "jvm", "mongodb8"]}'
expect "role profiles: each one changed the settings" [ "$(count profiles changed)" = 3 ]
expect "role profiles: mongodb8 last" grep -q '^\[always\] madvise never$' "$T/enabled"
expect "role profiles: mongodb8's max_ptes_none" [ "$(cat "$T/khugepaged/max_ptes_none")" = 0 ]
expect "role profiles: mongodb8 persisted" grep -q '^w /sys/kernel/mm/transparent_hugepage/defrag - - - - defer+madvise$' "$R/etc/tmpfiles.d/thp.conf"
expect "thp report reads the facts the role wrote" sh -c "'$thp' report --json '$tmp/host.json' | jq -e '.hosts | length == 1 and .[0].findings != null and .[0].policy.enabled == \"never\"' > /dev/null"
summary ansible
