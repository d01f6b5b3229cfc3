#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds hostile fixture trees in OUTDIR, one per kind of damage, each derived
# from tests/fixtures/always-always (plus smaps, cgroup and cmdline of its
# processes, and process 4242 of folios-numa with its page map, the page
# flags and two nodes' memory blocks) by doing the same thing to every file thp might read:
#   empty       every file empty
#   garbage     binary noise
#   longline    one 1 MiB line without a newline
#   bignum      every number replaced by 2^64 and by a 40-digit number
#   nobrackets  '[' and ']' removed (choice lists without a selection)
#   loops       every file a symlink loop, directories linked to themselves
#   unreadable  mode 000 (only bites when not run as root)
#   dirs        every file an empty directory
#   fifos       every file a FIFO with no writer
#   nothing     no files at all
#   thp-file    the THP sysfs directory is a file
#   globs       names that are glob patterns ('*', '?', '[', 'a[b', '[!x]*')
#               as files and directories in every directory capture copies
#   pages-*     only the page walk's files (pagemap, kpageflags, the memory
#               block size) as noise, empty, cut mid-entry or linked out
# and trees whose links lead out, to files in OUTDIR/.outside that hold the
# marker HOSTILE_SECRET (which no output may show) or to the live sysfs:
#   abs-links   every file an absolute link to .outside/secret
#   rel-links   every file a relative link (../..) to .outside/secret
#   dir-links   the THP, hugetlb, run/thp, etc/tmpfiles.d, etc/systemd and
#               etc/tuned directories linked to copies in .outside (absolute
#               and relative)
#   live-links  the THP and hugetlb sysfs directories linked to the live ones
#   in-links    every file of the THP directory a relative link to a copy in
#               the tree's shared/, but defrag and khugepaged/defrag, linked
#               out (relative and absolute)
#   tests/hostile/mktrees.sh OUTDIR
set -eu
out=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
base=$src/tests/fixtures/always-always
[ -d "$out" ] && chmod -R u+rwx "$out"
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd) # links below point at it

# the untouched base, with the per-process files the fixture lacks and the
# run/ directory a host has (where 'thp set' keeps its state)
mkdir "$out/.base"
cp -a "$base/." "$out/.base/"
mkdir -p "$out/.base/run"
for d in "$out"/.base/proc/[0-9]*; do
	cp "$src/tests/fuzz/seeds/smaps/anon-thp" "$d/smaps"
	cp "$src/tests/fuzz/seeds/cgroup/hybrid" "$d/cgroup"
	printf 'redis-server\0*:6379\0' > "$d/cmdline"
done

# tuned's active profile, enabled at boot, including a stock profile: every
# kind of damage below reaches the profiles too
mkdir -p "$out/.base/etc/tuned/thp-test" "$out/.base/usr/lib/tuned/throughput-performance" \
	"$out/.base/etc/systemd/system/multi-user.target.wants"
echo thp-test > "$out/.base/etc/tuned/active_profile"
printf '[main]\ninclude=throughput-performance\n[vm]\ntransparent_hugepages=always\n' \
	> "$out/.base/etc/tuned/thp-test/tuned.conf"
printf '[variables]\nre=aarch64\n[vm.arm]\ntype=vm\nuname_regex=${re}\ntransparent_hugepages=never\n[sysctl]\nvm.watermark_scale_factor = 200\n' \
	> "$out/.base/usr/lib/tuned/throughput-performance/tuned.conf"
ln -s /usr/lib/systemd/system/tuned.service "$out/.base/etc/systemd/system/multi-user.target.wants/"
# an enabled unit that writes a THP setting (which persist reads and capture
# records): damaged as the rest
printf '[Service]\nExecStart=/bin/sh -c "echo never > /%s/enabled"\n' sys/kernel/mm/transparent_hugepage \
	> "$out/.base/etc/systemd/system/disable-thp.service"
ln -s ../disable-thp.service "$out/.base/etc/systemd/system/multi-user.target.wants/"

# a process with a page map, the page flags and the memory blocks of two nodes
# (from the folios-numa fixture), for the page walk of --folios
f=$src/tests/fixtures/folios-numa
cp -a "$f/proc/4242" "$f/proc/kpageflags" "$out/.base/proc/"
cp -a "$f/sys/devices/system/memory" "$f/sys/devices/system/node/node1" "$out/.base/sys/devices/system/"
mv "$out/.base/sys/devices/system/node1" "$out/.base/sys/devices/system/node/"
cp -a "$f/sys/devices/system/node/node0/"memory* "$out/.base/sys/devices/system/node/node0/"

# what lies outside every tree; the trees below link to it
: "${HOSTILE_SECRET:=thpSECRET7f3a9c}"
T=sys/kernel/mm/transparent_hugepage
o=$out/.outside
mkdir -p "$o/run-thp" "$o/tmpfiles.d" "$o/systemd" "$o/tuned/thp-test"
echo "$HOSTILE_SECRET" > "$o/secret"
cp -a "$out/.base/$T" "$o/thp"
echo "always [$HOSTILE_SECRET] never" > "$o/thp/enabled"
cp -a "$out/.base/sys/kernel/mm/hugepages" "$o/hugepages"
echo "w /$T/defrag - - - - $HOSTILE_SECRET" > "$o/tmpfiles.d/secret.conf"
echo thp-test > "$o/tuned/active_profile"
printf '[sysctl]\nvm.watermark_scale_factor = %s\n' "$HOSTILE_SECRET" > "$o/tuned/thp-test/tuned.conf"
mkdir -p "$o/systemd/system/multi-user.target.wants"
printf '[Service]\nExecStart=/bin/sh -c "echo %s > /%s/enabled"\n' "$HOSTILE_SECRET" "$T" > "$o/systemd/system/disable-thp.service"
ln -s ../disable-thp.service "$o/systemd/system/multi-user.target.wants/"

perl -e 'srand(8); print map { chr(int rand 256) } 1 .. 4096' > "$out/.garbage"
perl -e 'print "a" x (1 << 20)' > "$out/.longline"

# each KIND: a copy of the base with FN applied to every regular file
each() { # each KIND FN
	cp -a "$out/.base" "$out/$1"
	find "$out/$1" -type f | while read -r f; do "$2" "$f"; done
}
t_empty() { : > "$1"; }
t_garbage() { cp "$out/.garbage" "$1"; }
t_longline() { rm "$1"; ln "$out/.longline" "$1"; }
t_bignum() { sed -i 's/[0-9][0-9]*/18446744073709551616 9999999999999999999999999999999999999999/g' "$1"; }
t_nobrackets() { sed -i 's/[][]//g' "$1"; }
t_loops() { rm "$1"; ln -s "$(basename "$1").loop" "$1"; ln -s "$(basename "$1")" "$1.loop"; }
t_unreadable() { chmod 000 "$1"; }
t_dirs() { rm "$1"; mkdir "$1"; }
t_fifos() { rm "$1"; mkfifo "$1"; }
t_abs_links() { rm "$1"; ln -s "$o/secret" "$1"; }
# ../ once per directory between OUTDIR and the file, then into .outside
t_rel_links() {
	rm "$1"
	ln -s "$(printf %s "${1#"$out"/}" | sed 's,[^/]*/,../,g; s,[^/]*$,,').outside/secret" "$1"
}

for k in empty garbage longline bignum nobrackets loops dirs fifos unreadable; do
	each "$k" "t_$k"
done
each abs-links t_abs_links
each rel-links t_rel_links
# the page walk's own inputs damaged, the rest intact so that the walk is
# reached: noise of the same size (any flag, page frames past the end),
# empty, cut in the middle of an entry, and linked out
pages() { # pages KIND FN
	cp -a "$out/.base" "$out/pages-$1"
	for f in proc/4242/pagemap proc/kpageflags sys/devices/system/memory/block_size_bytes; do
		"$2" "$out/pages-$1/$f"
	done
}
t_noise() { perl -e 'srand(9); print map { chr(int rand 256) } 1 .. (-s $ARGV[0])' "$1" > "$1.n" && mv "$1.n" "$1"; }
t_cut() { truncate -s "$(($(stat -c %s "$1") / 2 + 3))" "$1"; }
pages noise t_noise
pages empty t_empty
pages cut t_cut
pages links t_abs_links
# directories that contain themselves, for anything that walks trees
ln -s . "$out/loops/$T/hugepages-4096kB"
ln -s ../.. "$out/loops/proc/812/task"
ln -s proc "$out/loops/proc/self"
# a loop that passes outside the tree
ln -s "$out/loops/proc/vmstat" "$o/loop"
rm "$out/loops/proc/vmstat"
ln -s "$o/loop" "$out/loops/proc/vmstat"
# directories linked out: to copies outside, and to the live sysfs
cp -a "$out/.base" "$out/dir-links"
rm -rf "$out/dir-links/$T" "$out/dir-links/sys/kernel/mm/hugepages"
ln -s "$o/thp" "$out/dir-links/$T"
ln -s ../../../../.outside/hugepages "$out/dir-links/sys/kernel/mm/hugepages"
mkdir -p "$out/dir-links/run" "$out/dir-links/etc"
ln -s "$o/run-thp" "$out/dir-links/run/thp"
ln -s ../../.outside/tmpfiles.d "$out/dir-links/etc/tmpfiles.d"
rm -rf "$out/dir-links/etc/systemd" "$out/dir-links/etc/tuned"
ln -s "$o/systemd" "$out/dir-links/etc/systemd"
ln -s ../../.outside/tuned "$out/dir-links/etc/tuned"
cp -a "$out/.base" "$out/live-links"
rm -rf "$out/live-links/$T" "$out/live-links/sys/kernel/mm/hugepages"
ln -s "/$T" "$out/live-links/$T"
ln -s /sys/kernel/mm/hugepages "$out/live-links/sys/kernel/mm/hugepages"
# links that stay inside the tree, and two that leave it
cp -a "$out/.base" "$out/in-links"
(cd "$out/in-links" && find "$T" -type f) | while read -r f; do
	mkdir -p "$out/in-links/shared/$(dirname "$f")"
	mv "$out/in-links/$f" "$out/in-links/shared/$f"
	ln -s "$(printf %s "$f" | sed 's,[^/]*/,../,g; s,[^/]*$,,')shared/$f" "$out/in-links/$f"
done
rm "$out/in-links/$T/defrag" "$out/in-links/$T/khugepaged/defrag"
ln -s ../../../../../.outside/secret "$out/in-links/$T/defrag"
ln -s "$o/secret" "$out/in-links/$T/khugepaged/defrag"
# unreadable directories too
find "$out/unreadable" -mindepth 1 -type d -exec chmod 000 {} +
mkdir "$out/nothing"
cp -a "$out/.base" "$out/thp-file"
rm -rf "$out/thp-file/$T"
echo "always [madvise] never" > "$out/thp-file/$T"
cp -a "$out/.base" "$out/globs"
for d in "$T" "$T/khugepaged" "$T/hugepages-2048kB" sys/kernel/mm/hugepages proc/812 proc/812/task; do
	[ -d "$out/globs/$d" ] || continue
	for n in '*' '?' '[' 'a[b' '[!x]*'; do
		echo "always [madvise] never" > "$out/globs/$d/$n"
	done
	mkdir "$out/globs/$d/*.d" && echo 1 > "$out/globs/$d/*.d/*"
done
mkdir -p "$out/globs/sys/devices/system/node/node*" "$out/globs/proc/[1]"
echo "MemTotal: 1 kB" > "$out/globs/sys/devices/system/node/node*/meminfo"
rm -rf "$out/.base" "$out/.garbage" "$out/.longline"
