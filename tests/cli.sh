#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Command-line behaviour: usage errors, help, exit codes, capture round trips,
# and the manual covering every option that --help lists.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
FX=tests/fixtures/debian-6.12-madvise

# exit status and stderr of a command: "RC|first stderr line"
# (", no output" follows the status of a command that printed nothing at all:
# every command says what it did or why not)
rc_err() {
	"$@" > "$tmp/rc.out" 2> "$tmp/err"
	_rc=$?
	[ -s "$tmp/rc.out" ] || [ -s "$tmp/err" ] || _rc="$_rc, no output"
	echo "$_rc|$(head -1 "$tmp/err")"
}

expect "--help exits 0 and lists status" sh -c "'$THP' --help | grep -q '^  status '"
expect "--version is one line" sh -c "'$THP' --version | grep -qx 'thp [0-9][0-9.]*'"
expect "--version is only that line" [ "$("$THP" --version | wc -l)" = 1 ]
expect "--json --version" sh -c "'$THP' --json --version | jq -e '.version | test(\"^[0-9]\")' > /dev/null"
expect "status --features lists kernel features" sh -c "'$THP' --root $FX status --features | grep -q '^  MADV_COLLAPSE  *yes'"
expect "status --features --json" sh -c "'$THP' --root tests/fixtures/linux-4.19 status --features --json | jq -e '.features.MADV_COLLAPSE == false and .features.THP' > /dev/null"
expect "unknown command: exit 2" [ "$(rc_err "$THP" nosuch)" = "2|thp: 'nosuch' is not a thp command; see 'thp --help'" ]
expect "unknown option: exit 2" [ "$(rc_err "$THP" status --bogus | cut -d'|' -f1)" = 2 ]
# getopt's own errors in thp's words: exit 2, "thp: CMD: ..." and the hint
# "exit status|stderr lines joined by |"
rc_errs() { "$@" > /dev/null 2> "$tmp/err"; echo "$?|$(paste -sd'|' "$tmp/err")"; }
hint() { echo "Try 'thp $1 --help' for more information."; }
expect "ps: unknown long option" [ "$(rc_errs "$THP" --root $FX ps --bogus)" = "2|thp: ps: unknown option '--bogus'|$(hint ps)" ]
expect "doctor: unknown short option" [ "$(rc_errs "$THP" --root $FX doctor -Z)" = "2|thp: doctor: unknown option '-Z'|$(hint doctor)" ]
expect "ps: unknown short option in a cluster" [ "$(rc_errs "$THP" --root $FX ps -aZ)" = "2|thp: ps: unknown option '-Z'|$(hint ps)" ]
expect "watch: short option without its argument" [ "$(rc_errs "$THP" --root $FX watch -i)" = "2|thp: watch: option '-i' needs an argument|$(hint watch)" ]
expect "metrics: long option without its argument" [ "$(rc_errs "$THP" --root $FX metrics --top)" = "2|thp: metrics: option '--top' needs an argument|$(hint metrics)" ]
expect "status: an argument given to a flag" [ "$(rc_errs "$THP" --root $FX status --json=x)" = "2|thp: status: option '--json' takes no argument|$(hint status)" ]
expect "diff: an argument given to a flag" [ "$(rc_errs "$THP" --root $FX diff --all=1)" = "2|thp: diff: option '--all' takes no argument|$(hint diff)" ]
expect "ps: an ambiguous abbreviation" [ "$(rc_errs "$THP" --root $FX ps --no)" = "2|thp: ps: ambiguous option '--no'|$(hint ps)" ]
expect "global: unknown option" [ "$(rc_errs "$THP" --nope)" = "2|thp: unknown option '--nope'|Try 'thp --help' for more information." ]
expect "global: --root without its argument" [ "$(rc_errs "$THP" --root)" = "2|thp: option '--root' needs an argument|Try 'thp --help' for more information." ]
expect "stray argument: exit 2" [ "$(rc_err "$THP" status extra)" = "2|thp: status: unexpected argument 'extra'" ]
expect "bad global option: exit 2" [ "$(rc_err "$THP" --nope | cut -d'|' -f1)" = 2 ]
expect "missing root: exit 1" [ "$(rc_err "$THP" --root /nonexistent/x status)" = "1|thp: cannot open root '/nonexistent/x': No such file or directory" ]
expect "no command runs status" sh -c "'$THP' --root $FX | head -1 | grep -q '^THP: '"
"$THP" status --help > "$tmp/status-help"
expect_out "help CMD equals CMD --help" "cmp -s - '$tmp/status-help'" "$THP" help status
expect "help for an unknown command: exit 2" [ "$(rc_err "$THP" help nosuch | cut -d'|' -f1)" = 2 ]
"$THP" help > "$tmp/help-alone"
expect_out "help help: the usage, as help alone" "cmp -s - '$tmp/help-alone'" "$THP" help help

# every command has --help, 'thp help CMD' prints the same, and the manual's
# section of the command names every option (long and short) that it lists
cmds=$("$THP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
expect "--help lists the commands" [ "$(echo $cmds | wc -w)" -gt 10 ]
for c in $cmds; do
	expect "$c --help exits 0 with its usage" sh -c "'$THP' $c --help > '$tmp/help' && grep -q '^Usage: thp' '$tmp/help'"
	[ "$c" = help ] && continue
	expect_out "help $c equals $c --help" "cmp -s - '$tmp/help'" "$THP" help $c
	awk -v h="## thp $c" '$0 == h {on=1; next} on && /^#/ {exit} on' man/thp.1.scd > "$tmp/sec"
	expect "man page has a section '## thp $c'" [ -s "$tmp/sec" ]
	# options of the usage lines are global ones; -h/--help is documented once
	for o in $(grep -vE '^(Usage:|       thp )' "$tmp/help" | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' |
		tr -d ' ,' | sort -u | grep -vxE -- '-h|--help'); do
		expect "man page documents '$c $o'" grep -qE -- "(^|[^A-Za-z-])$o([^A-Za-z-]|\$)" "$tmp/sec"
	done
done

# one meaning per short letter: in every command's --help and in the global
# options, a letter stands for one long option (-n is --noheadings everywhere)
for c in "" $cmds; do [ "$c" = help ] || "$THP" $c --help; done |
	grep -oE -- '^  -[A-Za-z], --[a-z][a-z-]*' | sort -u > "$tmp/letters"
dup=$(awk '{print substr($1, 1, 2)}' "$tmp/letters" | uniq -d | tr '\n' ' ')
expect "the --help texts pair short letters with long options ($(wc -l < "$tmp/letters"))" [ "$(wc -l < "$tmp/letters")" -gt 20 ]
expect_sh "one long option per short letter across the commands (more for: ${dup:-none})" \
	"[ -s '$tmp/letters' ] && [ -z '$dup' ]"

# the global options of 'thp --help': in the manual and in both completions
awk '/^# GLOBAL OPTIONS/ {on=1; next} on && /^# / {exit} on' man/thp.1.scd > "$tmp/sec"
for o in $("$THP" --help | awk '/^Global options:/ {on=1; next} on' | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,' | sort -u); do
	expect "man page documents global option '$o'" grep -qE -- "(^|[^A-Za-z-])$o([^A-Za-z-]|\$)" "$tmp/sec"
done

# capture of a recorded tree reproduces it, as a directory and as an archive
"$THP" --root $FX status > "$tmp/want"
expect "capture to a directory" sh -c "'$THP' --root $FX capture -o '$tmp/cap' > /dev/null && [ -s '$tmp/cap/proc/meminfo' ]"
expect_out "captured tree shows the same host" "diff '$tmp/want' -" "$THP" --root "$tmp/cap" status
expect "capture to .tar.gz" sh -c "'$THP' --root $FX capture -o '$tmp/cap.tar.gz' > /dev/null && [ -s '$tmp/cap.tar.gz' ]"
mkdir "$tmp/x" && tar -xzf "$tmp/cap.tar.gz" -C "$tmp/x"
expect "archive holds one folder named after it" [ -d "$tmp/x/cap/sys/kernel/mm/transparent_hugepage" ]
expect_out "archive shows the same host" "diff '$tmp/want' -" "$THP" --root "$tmp/x/cap" status
expect_out "--root takes the archive itself" "diff '$tmp/want' -" "$THP" --root "$tmp/cap.tar.gz" status
expect_out "diff --root takes an archive: no difference from the tree it came from" "grep -q '^no difference: all [0-9]* settings agree'" "$THP" --root $FX diff --root "$tmp/cap.tar.gz"
# --root (and --json) given after the command mean what they mean before it,
# with a directory and with an archive: the same output and exit status
for r in "$tmp/cap" "$tmp/cap.tar.gz"; do
	for j in "" --json; do
		"$THP" $j --root "$r" doctor > "$tmp/before" 2>&1
		rc_before=$?
		"$THP" doctor --root "$r" $j > "$tmp/after" 2>&1
		rc_after=$?
		expect_sh "doctor ${j:+$j }--root ${r##*/} after the command as before it (exit $rc_before, $rc_after)" \
			"[ $rc_before = $rc_after ] && [ -s '$tmp/before' ] && cmp -s '$tmp/before' '$tmp/after'"
	done
done
# the archive is written with libarchive, no tar program: a host without tar
# (minimal images, containers) captures too, with the names and modes of the
# directory capture
expect "capture to .tar.gz without tar on PATH" [ "$(rc_err env PATH=/nonexistent "$THP" --root $FX capture -o "$tmp/notar.tar.gz")|$(test -s "$tmp/notar.tar.gz" && echo written)" = "0||written" ]
expect_out "an archive written without tar shows the same host" "diff '$tmp/want' -" "$THP" --root "$tmp/notar.tar.gz" status
tar -tzf "$tmp/notar.tar.gz" | sed 's|^notar/||; s|/$||' | grep . | sort > "$tmp/notar.names"
(cd "$tmp/cap" && find . -mindepth 1 | sed 's|^\./||' | sort) > "$tmp/cap.names"
expect_sh "the archive holds what a directory capture holds, below one folder" "[ -s '$tmp/cap.names' ] && cmp -s '$tmp/cap.names' '$tmp/notar.names'"
expect "the archive's first entry is its folder" [ "$(tar -tzf "$tmp/notar.tar.gz" | head -1)" = notar/ ]
expect "the archive's directories are 0700, its files 0600" [ "$(tar -tvzf "$tmp/notar.tar.gz" | awk '{print substr($1, 1, 10)}' | sort -u | tr '\n' ' ')" = "-rw------- drwx------ " ]
expect "--root of a file that is no archive: exit 1" [ "$(rc_err "$THP" --root "$tmp/want" status | sed 's/: [^:]*$//')" = "1|thp: cannot unpack capture archive '$tmp/want'" ]
mkdir "$tmp/empty"
expect "--root of a directory with neither proc nor sys: exit 1" [ "$(rc_err "$THP" --root "$tmp/empty" status)" = "1|thp: '$tmp/empty' does not look like a host root or a capture: it holds neither proc/ nor sys/" ]
expect "capture --json reports files" sh -c "'$THP' --root $FX capture --json -o '$tmp/cap2' | jq -e '.schema == \"thp-capture/1\" and .files > 100' > /dev/null"
# a capture records every file doctor reads: the same findings from the copy
for fx in doctor-jemalloc doctor-vm-dmi doctor-persist-none doctor-inherited; do
	"$THP" --root "tests/fixtures/$fx" capture -o "$tmp/dc-$fx" > /dev/null
	"$THP" --root "tests/fixtures/$fx" doctor > "$tmp/dc-a"
	expect_out "doctor on a capture of $fx gives the same findings" "cmp -s - '$tmp/dc-a'" "$THP" --root "$tmp/dc-$fx" doctor
done
# and every file persist --check reads: tuned's profiles, the links that
# enable units
for fx in persist-tuned persist-tuned-cycle persist-tuned-longline persist-tuned-ok; do
	"$THP" --root "tests/fixtures/$fx" capture -o "$tmp/pc-$fx" > /dev/null
	"$THP" --root "tests/fixtures/$fx" persist --check > "$tmp/pc-a" 2>&1
	"$THP" --root "$tmp/pc-$fx" persist --check > "$tmp/pc-b" 2>&1
	expect_sh "persist --check on a capture of $fx gives the same answer" '[ -s "$tmp/pc-a" ] && cmp -s "$tmp/pc-a" "$tmp/pc-b"'
done
# profile_dirs of tuned-main.conf: the active profile is looked up only in
# its directories, and a capture records the profiles there
PD=$tmp/pd
cp -a tests/fixtures/persist-tuned "$PD"
mkdir -p "$PD/opt/site"
mv "$PD/etc/tuned/thp-test" "$PD/opt/site/thp-test"
printf 'profile_dirs = /usr/lib/tuned,/opt/site\n' > "$PD/etc/tuned/tuned-main.conf"
"$THP" --root "$PD" persist --check > "$tmp/pd-a" 2>&1
expect_sh "persist --check reads the profile of a profile_dirs directory" "grep -q '^enabled .* /opt/site/thp-test/tuned.conf:6\$' '$tmp/pd-a'"
"$THP" --root "$PD" capture -o "$tmp/pd-cap" > /dev/null
"$THP" --root "$tmp/pd-cap" persist --check > "$tmp/pd-b" 2>&1
expect_sh "capture records the profiles of profile_dirs" "[ -s '$tmp/pd-cap/opt/site/thp-test/tuned.conf' ] && cmp -s '$tmp/pd-a' '$tmp/pd-b'"
# include= of [variables]: tuned's value from the variables file it names
VI=$tmp/vi
cp -a tests/fixtures/persist-tuned "$VI"
printf '[variables]\ninclude=${i:PROFILE_DIR}/site.conf\n[sysctl]\nvm.watermark_scale_factor=${wsf}\n' > "$VI/etc/tuned/thp-test/tuned.conf"
printf 'wsf = 300  # site\n' > "$VI/etc/tuned/thp-test/site.conf"
"$THP" --root "$VI" persist --check > "$tmp/vi-a" 2>&1
expect_sh "persist --check reads a variable of [variables] include=" "grep -q '^vm.watermark_scale_factor  *300  *10  */etc/tuned/thp-test/tuned.conf:4\$' '$tmp/vi-a'"
# [sysfs] names with a glob: the THP files of the host they match
SG=$tmp/sg
cp -a tests/fixtures/persist-tuned "$SG"
printf '[sysfs]\n/sys/kernel/mm/transparent_hugepage/hugepages-*/enabled=never\n/sys/kernel/mm/*/khugepaged/defrag=0\n' > "$SG/etc/tuned/thp-test/tuned.conf"
"$THP" --root "$SG" persist --check > "$tmp/sg-a" 2>&1
expect_sh "persist --check matches a [sysfs] glob to a per-size file" "grep -q '^hugepages.2M.enabled  *never .* /etc/tuned/thp-test/tuned.conf:2\$' '$tmp/sg-a'"
expect_sh "persist --check matches a [sysfs] glob to a khugepaged file" "grep -q '^khugepaged.defrag  *0 .* /etc/tuned/thp-test/tuned.conf:3\$' '$tmp/sg-a'"
# a capture keeps no secrets: of an environment only the variables thp reads
# (listed by 'capture --help' and the manual); command lines unless --no-cmdline
names=$("$THP" capture --help | sed -n '/only these variables:/{n;p;}')
expect "capture --help lists the environment variables recorded" [ -n "$names" ]
for n in $names; do
	expect "man page lists '$n' as recorded by capture" sh -c "awk '/^## thp capture/ {on=1; next} on && /^## / {exit} on' man/thp.1.scd | tr -d '*\\\\' | grep -q -- '$n'"
done
SX=$tmp/secrets
cp -a tests/fixtures/doctor-jemalloc "$SX"
printf 'API_TOKEN=hunter2\0MALLOC_CONF=thp:always\0' > "$SX/proc/4000/thp-environ"
printf 'API_TOKEN=hunter2\0' > "$SX/proc/4000/environ"
"$THP" --root "$SX" capture -o "$tmp/sx" > /dev/null
# (each absence is checked in a capture that holds the process's files)
expect_sh "capture of a tree: no variable but those thp reads" "[ -s '$tmp/sx/proc/4000/thp-environ' ] && ! grep -rq hunter2 '$tmp/sx'"
expect_sh "capture of a tree: no environ file" "[ -s '$tmp/sx/proc/4000/thp-environ' ] && [ ! -e '$tmp/sx/proc/4000/environ' ]"
expect "capture of a tree: MALLOC_CONF kept" sh -c "tr '\\0' '\\n' < '$tmp/sx/proc/4000/thp-environ' | grep -qx 'MALLOC_CONF=thp:always'"
expect "capture of a tree: command lines kept" [ -s "$tmp/sx/proc/4000/cmdline" ]
"$THP" --root "$SX" capture --no-cmdline -o "$tmp/sx-nc" > /dev/null
expect_sh "capture --no-cmdline: no command line" "[ -s '$tmp/sx-nc/proc/4000/thp-environ' ] && [ -z \"\$(find '$tmp/sx-nc' -name cmdline -path '*/proc/[0-9]*')\" ]"
expect "capture --no-cmdline: the kernel command line stays" [ -f "$tmp/sx-nc/proc/cmdline" ]
# a capture of a tree records what persist --check, set and persist need,
# the tuned profile files (a link leading out of the tree is not followed),
# and the users of its processes only, with their name, uid and group
RX=$tmp/rehearse
cp -a tests/fixtures/doctor-jemalloc "$RX"
mkdir -p "$RX/etc/tmpfiles.d" "$RX/etc/sysctl.d" "$RX/etc/systemd/system/basic.target.wants" "$RX/run" \
	"$RX/usr/lib/tmpfiles.d" "$RX/usr/lib/sysctl.d" "$RX/etc/tuned/mine" \
	"$RX/usr/lib/tuned/balanced" "$RX/usr/lib/tuned/profiles/throughput-performance"
printf 'root:x:0:0:root:/root:/bin/bash\nredis:x:999:998:Redis Owner,room 4:/var/lib/redis:/bin/sh\nbob:x:1000:1000::/home/bob:/bin/bash\n' > "$RX/etc/passwd"
printf 'w /sys/kernel/mm/transparent_hugepage/defrag - - - - never\n' > "$RX/usr/lib/tmpfiles.d/vendor-thp.conf"
printf 'w /sys/kernel/mm/transparent_hugepage/enabled - - - - never\n' > "$RX/usr/lib/tmpfiles.d/masked-thp.conf"
ln -s /dev/null "$RX/etc/tmpfiles.d/masked-thp.conf"
printf 'vm.min_free_kbytes = 65536\n' > "$RX/usr/lib/sysctl.d/50-vendor.conf"
printf '[Service]\nExecStart=/bin/sh -c "echo always > /sys/kernel/mm/transparent_hugepage/enabled"\n' > "$RX/etc/systemd/system/thp.service"
ln -s ../thp.service "$RX/etc/systemd/system/basic.target.wants/thp.service"
"$THP" --root "$RX" persist --check > "$tmp/rx.want" 2>&1
echo 'TUNED_OUTSIDE' > "$tmp/outside"
ln -s ../../../outside "$RX/etc/tuned/active_profile"
echo manual > "$RX/etc/tuned/profile_mode"
for f in etc/tuned/mine usr/lib/tuned/balanced usr/lib/tuned/profiles/throughput-performance; do
	printf '[vm]\ntransparent_hugepages=never\n# %s\n' "$f" > "$RX/$f/tuned.conf"
done
"$THP" --root "$RX" capture -o "$tmp/rx" > /dev/null 2> "$tmp/rx.err"
expect "capture of a tree: its passwd holds the owners of its processes only, without their other fields" \
	[ "$(cat "$tmp/rx/etc/passwd")" = "redis:x:999:998::/:/nonexistent" ]
expect "capture of a tree: ps -u NAME on the copy" [ "$("$THP" --root "$tmp/rx" ps -a -u redis -o user -n | sort -u)" = redis ]
"$THP" --root "$tmp/rx" persist --check > "$tmp/rx.got" 2>&1
expect_sh "capture of a tree: persist --check on the copy gives the tree's answer without the link leading out (masked drop-in, /usr/lib, unit)" \
	'grep -q vendor-thp.conf "$tmp/rx.got" && cmp -s "$tmp/rx.want" "$tmp/rx.got"'
for f in etc/tuned/profile_mode etc/tuned/mine/tuned.conf usr/lib/tuned/balanced/tuned.conf \
	usr/lib/tuned/profiles/throughput-performance/tuned.conf; do
	expect "capture of a tree: $f recorded" cmp -s "$RX/$f" "$tmp/rx/$f"
done
expect_sh "capture of a tree: a tuned active_profile leading out of the tree is not followed" \
	'[ -f "$tmp/rx/etc/tuned/profile_mode" ] && [ ! -e "$tmp/rx/etc/tuned/active_profile" ] && ! grep -rq TUNED_OUTSIDE "$tmp/rx"'
expect "capture of a tree: the link leading out is named" grep -q "'etc/tuned/active_profile' points outside the recorded tree" "$tmp/rx.err"
expect "capture of a tree: persist on the copy" [ "$(rc_err "$THP" --root "$tmp/rx" persist vm.min_free_kbytes=90112)" = "0|" ]
expect "capture of a tree: persist wrote in the copy" grep -qx 'vm.min_free_kbytes = 90112' "$tmp/rx/etc/sysctl.d/90-thp.conf"
expect "capture of a tree: set on the copy" [ "$(rc_err "$THP" --root "$tmp/rx" set defrag=defer)" = "0|" ]
cp "$tmp/rx/sys/kernel/mm/transparent_hugepage/defrag" "$tmp/rx.set" 2> /dev/null
expect "capture of a tree: restore on the copy" [ "$(rc_err "$THP" --root "$tmp/rx" restore)" = "0|" ]
expect_sh "capture of a tree: set changed the copy, restore put it back" \
	'grep -q "\[defer\]" "$tmp/rx.set" && cmp -s "$RX/sys/kernel/mm/transparent_hugepage/defrag" "$tmp/rx/sys/kernel/mm/transparent_hugepage/defrag"'
# a capture records the units that write THP settings, which persist reads,
# with only those lines (no Environment=), and the links that enable them;
# a unit that writes none is not recorded
UX=$tmp/units
U=etc/systemd/system
cp -a $FX "$UX"
mkdir -p "$UX/$U/multi-user.target.wants"
printf '[Unit]\nDescription=Disable THP\n\n[Service]\nType=oneshot\nEnvironment=TOKEN=SECRET-4711\nExecStart=/bin/sh -c "echo never > /sys/kernel/mm/transparent_hugepage/enabled"\n' \
	> "$UX/$U/disable-thp.service"
ln -s ../disable-thp.service "$UX/$U/multi-user.target.wants/disable-thp.service"
printf "# Transparent Huge Pages settings, written by 'thp persist --systemd'.\n[Service]\nEnvironmentFile=/etc/SECRET.env\nExecStart=/bin/sh -c 'echo defer > /sys/kernel/mm/transparent_hugepage/defrag'\n" \
	> "$UX/$U/thp.service"
printf '[Service]\nEnvironment=SECRET=hunter3\nExecStart=/usr/bin/app\n' > "$UX/$U/app.service"
ln -s ../app.service "$UX/$U/multi-user.target.wants/app.service"
"$THP" --root "$UX" persist --check --json > "$tmp/ux.want"
"$THP" --root "$UX" capture --no-procs -o "$tmp/ux" > /dev/null
"$THP" --root "$tmp/ux" persist --check --json > "$tmp/ux.got"
expect_sh "capture of units: persist --check on the copy reports the enabled unit and thp.service (not enabled) as on the tree" \
	'jq -e ".sources == [\"/$U/disable-thp.service\"] and .units_not_enabled == [\"/$U/thp.service\"]" "$tmp/ux.want" > /dev/null && cmp -s "$tmp/ux.want" "$tmp/ux.got"'
expect_sh "capture of units: the link that enables the unit is recorded" \
	'[ -f "$tmp/ux/$U/multi-user.target.wants/disable-thp.service" ]'
expect_sh "capture of units: no other line of a unit (Environment=, EnvironmentFile=)" \
	'[ -s "$tmp/ux/$U/disable-thp.service" ] && [ -s "$tmp/ux/$U/thp.service" ] && ! grep -rq SECRET "$tmp/ux"'
expect_sh "capture of units: a unit that writes no THP setting is not recorded, nor its link" \
	'[ -d "$tmp/ux/$U/multi-user.target.wants" ] && [ ! -e "$tmp/ux/$U/app.service" ] && [ ! -e "$tmp/ux/$U/multi-user.target.wants/app.service" ]'
expect_sh "capture of units: thp.service written by thp persist stays thp's in the copy" \
	'"$THP" --root "$UX" persist --systemd --dry-run --json enabled=never | jq -e ".foreign == false" > /dev/null &&
	"$THP" --root "$tmp/ux" persist --systemd --dry-run --json enabled=never | jq -e ".foreign == false" > /dev/null'
env MALLOC_CONF=thp:never THP_TEST_SECRET=hunter2 sleep 30 &
spid=$!
# (until it runs sleep: before, its environment is this shell's)
i=0
while [ "$(cat "/proc/$spid/comm" 2> /dev/null)" != sleep ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
"$THP" capture -o "$tmp/live" > "$tmp/live.out" 2>&1
kill "$spid"
wait "$spid" 2> /dev/null
expect_sh "capture of this host: no variable but those thp reads" "[ -s '$tmp/live/proc/$spid/thp-environ' ] && ! grep -rq hunter2 '$tmp/live'"
expect "capture of this host: MALLOC_CONF kept" sh -c "tr '\\0' '\\n' < '$tmp/live/proc/$spid/thp-environ' | grep -qx 'MALLOC_CONF=thp:never'"
expect_sh "capture of this host: no environ file" "[ -s '$tmp/live/proc/$spid/thp-environ' ] && [ -z \"\$(find '$tmp/live' -name environ)\" ]"
if [ "$(id -u)" = 0 ]; then
	expect "capture run as root: no 'run as root' hint (got: $(cat "$tmp/live.out"))" \
		[ "$(grep -e '^captured ' -e 'run as root' "$tmp/live.out" | cut -c1-9)" = "captured " ]
else
	skip "capture run as root: not root"
fi
# a capture is a copy to rehearse on: persist, set and restore write in it,
# and it names the users of its processes, no one else
if [ -d /etc/tmpfiles.d ]; then
	expect "capture of this host: persist on the copy" [ "$(rc_err "$THP" --root "$tmp/live" persist enabled=madvise)" = "0|" ]
	expect "capture of this host: persist wrote in the copy" \
		grep -qx 'w /sys/kernel/mm/transparent_hugepage/enabled - - - - madvise' "$tmp/live/etc/tmpfiles.d/thp.conf"
	expect "capture of this host: persist --check on the copy reads it" \
		sh -c "'$THP' --root '$tmp/live' persist --check | grep -q /etc/tmpfiles.d/thp.conf"
else
	skip "capture of this host: persist on the copy: this host has no /etc/tmpfiles.d"
fi
cp "$tmp/live/sys/kernel/mm/transparent_hugepage/defrag" "$tmp/live.defrag"
expect "capture of this host: set on the copy" [ "$(rc_err "$THP" --root "$tmp/live" set defrag=defer)" = "0|" ]
cp "$tmp/live/sys/kernel/mm/transparent_hugepage/defrag" "$tmp/live.set" 2> /dev/null
expect "capture of this host: restore on the copy" [ "$(rc_err "$THP" --root "$tmp/live" restore)" = "0|" ]
expect_sh "capture of this host: set changed the copy, restore put it back" \
	'grep -q "\[defer\]" "$tmp/live.set" && cmp -s "$tmp/live.defrag" "$tmp/live/sys/kernel/mm/transparent_hugepage/defrag"'
# (the user running the suite: as another user, root's processes are recorded
# without their memory, and ps leaves them out as it does live)
me=$(id -un)
expect "capture of this host: ps -u $me on the copy shows the name" \
	[ "$("$THP" --root "$tmp/live" ps -a -u "$me" -o user -n | sort -u)" = "$me" ]
expect "capture of this host: root named with its uid and group only" grep -qx 'root:x:0:0::/:/nonexistent' "$tmp/live/etc/passwd"
awk -F: '{print $3}' "$tmp/live/etc/passwd" 2> /dev/null | sort -u > "$tmp/live.named"
for u in $(cat "$tmp/live"/proc/[0-9]*/status 2> /dev/null | awk '$1 == "Uid:" {print $2}' | sort -u); do
	getent passwd "$u" > /dev/null && echo "$u"
done | sort -u > "$tmp/live.owners"
expect_sh "capture of this host: its passwd names exactly the users of its processes" \
	'[ -s "$tmp/live.named" ] && cmp -s "$tmp/live.named" "$tmp/live.owners"'
# the default name of a tree's capture is the tree's host name, made safe for
# a file name (not this host's); a tree without one is "host"
case $THP in /*) thp_abs=$THP ;; *) thp_abs=$PWD/$THP ;; esac
cp -a "$SX" "$tmp/named"
mkdir -p "$tmp/named/proc/sys/kernel" "$tmp/capname" "$tmp/capnone"
printf 'db-01.example/x y\n' > "$tmp/named/proc/sys/kernel/hostname"
(cd "$tmp/capname" && "$thp_abs" --root "$tmp/named" capture --no-procs > /dev/null)
expect "capture of a tree is named after the tree's host (got: $(ls "$tmp/capname"))" \
	sh -c "ls '$tmp/capname' | grep -qx 'thp-capture-db-01\.example_x_y-[0-9]*-[0-9]*\.tar\.gz'"
rm "$tmp/named/proc/sys/kernel/hostname"
(cd "$tmp/capnone" && "$thp_abs" --root "$tmp/named" capture --no-procs > /dev/null)
expect "capture of a tree without a host name is named 'host' (got: $(ls "$tmp/capnone"))" \
	sh -c "ls '$tmp/capnone' | grep -qx 'thp-capture-host-[0-9]*-[0-9]*\.tar\.gz'"
DX=tests/fixtures/doctor-base
expect "doctor: bad --severity is a usage error" [ "$(rc_err "$THP" --root $DX doctor --severity high)" = "2|thp: doctor: invalid --severity 'high' (info, warn or crit)" ]
expect "doctor: bad --sample is a usage error" [ "$(rc_err "$THP" --root $DX doctor --sample -1 | cut -d'|' -f1)" = 2 ]
expect "doctor: --sample on a capture is refused in the one wording" [ "$(rc_err "$THP" --root $DX doctor --sample 1)" = "2|thp: doctor: --sample works on the running kernel only; it cannot be used with --root" ]
expect "doctor: stray argument" [ "$(rc_err "$THP" --root $DX doctor extra)" = "2|thp: doctor: unexpected argument 'extra'" ]
expect "doctor --root after the command" [ "$(rc_err "$THP" doctor --root tests/fixtures/doctor-fragmented-always | cut -d'|' -f1)" = 3 ]
: > "$tmp/file"
expect "capture into a file path fails with exit 1" [ "$(rc_err "$THP" --root $FX capture -o "$tmp/file/sub")" = "1|thp: capture: cannot write capture '$tmp/file/sub': Not a directory" ]

# hugetlb set on a copy of a fixture: writes, refusals that write nothing, rollback
HF=$tmp/hugetlb
cp -a tests/fixtures/hugetlb-numa "$HF"
P2=$HF/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
P1=$HF/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
expect_out "hugetlb set --dry-run --json: the pages in use and reserved, below which the pool cannot shrink (as the text says)" "jq -e -c '[.schema, (.changes[0] | .in_use, .reserved)] == [\"thp-hugetlb-set/2\", 730, 100]'" "$THP" --root "$HF" hugetlb set --dry-run --json 2M=1
expect_out "hugetlb set --dry-run --json --node: a node's pool has no reserved count" "jq -e -c '.changes[0] | [.in_use, .reserved] == [312, null]'" "$THP" --root "$HF" hugetlb set --dry-run --json --node 1 2M=100
expect "hugetlb set writes the pool" sh -c "'$THP' --root '$HF' hugetlb set 2M=1100 > '$tmp/out' && [ -s '$tmp/out' ]"
expect "hugetlb set wrote 1100" [ "$(cat "$P2")" = 1100 ]
expect "hugetlb set prints the undo" grep -qx 'undo: thp hugetlb set 2M=1030' "$tmp/out"
expect_out "hugetlb set --node writes the node's pool" "grep -q '^2 MiB pool on node 1: .* -> 7 pages'" "$THP" --root "$HF" hugetlb set 2M=7 --node 1
expect "node 1 pool is 7" [ "$(cat "$HF/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages")" = 7 ]
# (a page count that is no number, a size given twice are usage errors, 2;
# so are a size without a pool and more pages than RAM, values the kernel
# would refuse, as in 'thp set'; a node the tree lacks is refused, 1)
hs() { rc_err "$THP" --root "$HF" hugetlb set "$@"; }
expect "hugetlb set 2M=abc: exit 2" [ "$(hs 2M=abc)" = "2|thp: hugetlb set: number of pages 'abc' is not a whole number in decimal" ]
expect "hugetlb set 5M=1: exit 2, the sizes there are" [ "$(hs 5M=1)" = "2|thp: hugetlb set: no 5M pool; this kernel has 2M, 1G" ]
expect "hugetlb set 2M=1 5M=1 --dry-run: exit 2" [ "$(hs 2M=1 5M=1 --dry-run)" = "2|thp: hugetlb set: no 5M pool; this kernel has 2M, 1G" ]
expect "hugetlb set 2M=1 2M=2 is refused" [ "$(hs 2M=1 2M=2)" = "2|thp: hugetlb set: 2M is given twice; nothing was changed" ]
expect "hugetlb set 2M=1 2048K=2 is refused" [ "$(hs 2M=1 2048K=2)" = "2|thp: hugetlb set: 2M is given twice; nothing was changed" ]
expect "hugetlb set 1G=1000: exit 2, more than RAM" [ "$(hs 1G=1000)" = "2|thp: hugetlb set: 1G=1000 asks for 1000 GiB, more than the 23.5 GiB of RAM (at most 23 pages of 1G)" ]
expect "hugetlb set 2M=1 1G=1000 --node 1: exit 2" [ "$(hs 2M=1 1G=1000 --node 1 | cut -d'|' -f1)" = 2 ]
expect "hugetlb set 2M=1 --node 9 is refused" [ "$(hs 2M=1 --node 9)" = "1|thp: hugetlb set: no NUMA node 9 on this host (nodes 0, 1)" ]
expect "refused sets wrote nothing" [ "$(cat "$P2")" = 1100 ]
expect "--dry-run writes nothing" sh -c "'$THP' --root '$HF' hugetlb set 2M=5 --dry-run > /dev/null && [ \$(cat '$P2') = 1100 ]"
# a write that fails midway (the 1G file is a symlink inside the tree, which
# is read through but never written through) rolls back
echo 4 > "$HF/one-gig" && rm "$P1" && ln -s ../../../../../one-gig "$P1"
"$THP" --root "$HF" hugetlb set 2M=1200 1G=8 > "$tmp/rb.out" 2> "$tmp/rb.err"
rc=$?
expect "a failed write exits 1" [ "$rc|$(head -1 "$tmp/rb.err")" = "1|thp: hugetlb set: cannot write '/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages': Too many levels of symbolic links" ]
expect_sh "the pool written before the failure is put back, and said so" \
	"grep -qx 'nothing changed: every pool written before the failure was put back' '$tmp/rb.out' && [ \"\$(cat '$P2')\" = 1100 ]"
expect_sh "the failed pool is unchanged, and said so" \
	"grep -q '^nothing changed' '$tmp/rb.out' && [ \"\$(cat '$HF/one-gig')\" = 4 ]"
# with --json the same errors go to stderr, beside the document's
"$THP" --root "$HF" hugetlb set --json 2M=1200 1G=8 > "$tmp/rbj.out" 2> "$tmp/rbj.err"
rc=$?
expect "hugetlb set --json, a failed write: exit 1, the error on stderr" [ "$rc|$(paste -sd'|' "$tmp/rbj.err")" = "1|thp: hugetlb set: cannot write '/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages': Too many levels of symbolic links|thp: hugetlb set: nothing changed: every pool written before the failure was put back" ]
expect_sh "hugetlb set --json, a failed write: the document names the error, and the pools are put back" \
	"jq -e '[.changes[].error] == [null, \"Too many levels of symbolic links\"]' '$tmp/rbj.out' > /dev/null && [ \"\$(cat '$P2') \$(cat '$HF/one-gig')\" = '1100 4' ]"
expect "hugetlb plan needs a size" [ "$(rc_err "$THP" --root "$HF" hugetlb plan | cut -d'|' -f1)" = 2 ]
expect "hugetlb --margin belongs to plan" [ "$(rc_err "$THP" --root "$HF" hugetlb --margin 5 | cut -d'|' -f1)" = 2 ]
# watch: bad values are usage errors, a missing replay tree is an error
expect "watch -i 0: exit 2" [ "$(rc_err "$THP" watch -i 0)" = "2|thp: watch: --interval '0' is out of range (0.01 to 86400 seconds)" ]
expect "watch -i abc: exit 2" [ "$(rc_err "$THP" watch -i abc | cut -d'|' -f1)" = 2 ]
expect "watch --count -1: exit 2" [ "$(rc_err "$THP" watch --count -1)" = "2|thp: watch: --count '-1' is not a whole number in decimal (1 to 2147483647)" ]
expect "watch --alert-stalls x: exit 2" [ "$(rc_err "$THP" watch --alert-stalls x | cut -d'|' -f1)" = 2 ]
expect "watch --replay with --count: exit 2" [ "$(rc_err "$THP" --root $FX watch --replay $FX --count 2 | cut -d'|' -f1)" = 2 ]
"$THP" --root $FX capture -o "$tmp/fx.tar.gz" > /dev/null
expect "watch --replay of a capture archive, as --root takes it" sh -c "'$THP' --root $FX watch --replay '$tmp/fx.tar.gz' | grep -q '^  compaction '"
expect "watch --replay of a missing tree: exit 1" [ "$(rc_err "$THP" watch --replay /nonexistent/x)" = "1|thp: watch: cannot open replay tree '/nonexistent/x': No such file or directory" ]
expect "watch --count 1 -i 0.05 on a recorded tree" sh -c "'$THP' --root $FX watch --count 1 -i 0.05 | grep -q '^  compaction '"

# thp exec usage (the live suite runs commands under each mode)
expect "exec without a command: exit 2" [ "$(rc_err "$THP" exec | cut -d'|' -f1)" = 2 ]
expect "exec with two modes: exit 2" [ "$(rc_err "$THP" exec --enable --disable true | cut -d'|' -f1)" = 2 ]
expect "exec --status with a command: exit 2" [ "$(rc_err "$THP" exec --status true | cut -d'|' -f1)" = 2 ]
# metrics: every fixture's exposition passes promtool; the textfile is written whole
if command -v promtool > /dev/null; then
	for fx in tests/fixtures/*/; do
		expect_out "promtool check metrics on $fx" "promtool check metrics" "$THP" --root "$fx" metrics
	done
else
	skip "promtool check metrics: promtool (Debian package prometheus) is not installed"
fi
expect "metrics --textfile writes the file" sh -c "'$THP' --root $FX metrics --textfile '$tmp/thp.prom' && [ -s '$tmp/thp.prom' ]"
expect_out "the textfile holds what stdout gets" "cmp -s - '$tmp/thp.prom'" "$THP" --root $FX metrics
expect "the textfile is readable by others (0644)" [ "$(stat -c %a "$tmp/thp.prom")" = 644 ]
expect_sh "no temporary file is left beside the textfile" "[ -s '$tmp/thp.prom' ] && [ \"\$(ls '$tmp' | grep -c 'thp.prom.tmp')\" = 0 ]"
expect "metrics --textfile into a missing directory: exit 1" [ "$(rc_err "$THP" --root $FX metrics --textfile "$tmp/no/such/x.prom")" = "1|thp: metrics: cannot write '$tmp/no/such/x.prom': No such file or directory" ]
expect "metrics --top -1: exit 2" [ "$(rc_err "$THP" metrics --top -1)" = "2|thp: metrics: --top '-1' is not a whole number in decimal (0 to 100000)" ]
expect "metrics --json: exit 2" [ "$(rc_err "$THP" --json metrics | cut -d'|' -f1)" = 2 ]
expect_absent "metrics --top 0 has no per-process series" thp_process "$THP" --root tests/fixtures/always-always metrics --top 0
# metrics a node_exporter user expects: no template HELP, no pid labels unless
# asked, sizes in bytes, pools whose states sum, AnonHugePages without node_exporter
for fx in tests/fixtures/*/; do
	expect_out "every HELP text of $fx is its own" '[ -z "$(sed -n "s/^# HELP [^ ]* //p" | sort | uniq -d)" ]' "$THP" --root "$fx" metrics
done
P=tests/fixtures/procs-6.18
expect "metrics: thp_build_info names the version" sh -c "'$THP' --root $FX metrics | grep -qx \"thp_build_info{version=\\\"\$('$THP' --version | sed -n 's/^thp //p')\\\"} 1\""
expect_absent "metrics: no pid label by default" 'pid="' "$THP" --root $P metrics
expect "metrics: THP summed per command name" sh -c "'$THP' --root $P metrics | grep -q '^thp_comm_anon_huge_bytes{comm=\"[^\"]*\"} [1-9]'"
expect "metrics --pids: one series per process" sh -c "'$THP' --root $P metrics --pids | grep -q '^thp_process_anon_huge_bytes{pid=\"[0-9]*\",comm='"
expect_absent "metrics --pids: no sums per name" '^thp_comm_' "$THP" --root $P metrics --pids
pp=$("$THP" --root $P metrics --top 100000 --pids | awk '/^thp_process_anon_huge_bytes/ {s += $2} END {print s}')
expect_out "metrics: the comm sums add up to the per-process figures ($pp)" \
	"awk '/^thp_comm_anon_huge_bytes/ {s += \$2} END {exit !(s > 0 && s == $pp)}'" "$THP" --root $P metrics --top 100000
expect_absent "metrics: size labels are bytes" 'size="[0-9]*kB"' "$THP" --root $FX metrics
H=tests/fixtures/doctor-hugetlb-used
expect "metrics: pool states sum to the pool" sh -c "'$THP' --root $H metrics | awk '/^thp_hugetlb_pool_pages/ {split(\$1, a, \"\\\"\"); p[a[2]] = \$2} /^thp_hugetlb_pages/ {split(\$1, a, \"\\\"\"); s[a[2]] += \$2} END {for (k in p) if (p[k] != s[k]) exit 1; exit !length(p)}'"
expect "metrics: a pool with pages in use" sh -c "'$THP' --root $H metrics | grep -q '^thp_hugetlb_pages{size=\"[0-9]*\",state=\"used\"} [1-9]'"
expect "metrics: AnonHugePages without any option" sh -c "'$THP' --root tests/fixtures/always-always metrics | grep -qx 'thp_meminfo_anon_huge_pages_bytes 1288489984'"
expect "metrics: the huge page lines of /proc/meminfo without any option" [ "$("$THP" --root tests/fixtures/always-always metrics | grep -c '^# TYPE thp_meminfo_\|^# TYPE thp_hugetlb_[a-z_]*bytes ')" = 9 ]
expect "metrics: min_free_kbytes in bytes, in a family of bytes" sh -c "'$THP' --root tests/fixtures/always-always metrics | grep -qx 'thp_vm_setting_bytes{setting=\"min_free_kbytes\"} 69206016'"
expect "metrics: allocstall is one family" [ "$("$THP" --root tests/fixtures/always-always metrics | grep -c '^# TYPE thp_allocstall')" = 1 ]
expect "metrics: allocstall by zone, named as in /proc/buddyinfo" sh -c "'$THP' --root tests/fixtures/always-always metrics | grep -qx 'thp_allocstall_total{zone=\"Normal\"} 0'"
"$THP" --root $FX metrics > "$tmp/m1"
expect_out "metrics --node-exporter-compat (deprecated): the same metrics" "cmp -s - '$tmp/m1'" "$THP" --root $FX metrics --node-exporter-compat 2> /dev/null
expect "metrics --node-exporter-compat: says it is deprecated, exit 0" [ "$(rc_err "$THP" --root $FX metrics --node-exporter-compat)" = "0|thp: metrics: --node-exporter-compat is deprecated and does nothing: the /proc/meminfo families are always exported" ]
expect "metrics --node-exporter-compat given twice: says it once" [ "$("$THP" --root $FX metrics --node-exporter-compat --node-exporter-compat 2>&1 > /dev/null | grep -c deprecated)" = 1 ]
# a scrape reads each file of the THP directory once (the doctor's settings
# are the status's); the directory itself is listed once, for the settings and
# the sizes together, by a scrape and by status
if strace -f -qq -o /dev/null true 2> /dev/null; then
	traced -f -qq -o "$tmp/metrics.trace" -e trace=openat,openat2 "$THP" --root tests/fixtures/live-6.18 metrics > /dev/null
	grep -v O_DIRECTORY "$tmp/metrics.trace" | sed -n 's|.*"\(sys/kernel/mm/transparent_hugepage/[^"]*\)".*|\1|p' | sort > "$tmp/metrics.opened"
	expect "metrics reads each of the $(sort -u "$tmp/metrics.opened" | wc -l) THP files once ($(wc -l < "$tmp/metrics.opened") opens)" \
		sh -c '[ -s "$1" ] && [ -z "$(uniq -d "$1")" ]' - "$tmp/metrics.opened"
	traced -f -qq -o "$tmp/status.trace" -e trace=openat,openat2 "$THP" --root tests/fixtures/live-6.18 status > /dev/null
	for t in metrics status; do
		expect "$t lists the THP directory once" \
			[ "$(grep -c '"sys/kernel/mm/transparent_hugepage",.*O_DIRECTORY' "$tmp/$t.trace")" = 1 ]
	done
else
	skip "metrics reads each THP file once: strace cannot trace here"
fi
# /proc whose listing fails part way (strace fails with EIO the read of it
# that would end it): a command that lists the processes says so on stderr
# and exits 1; serve says so and answers without the per-process metrics
if strace -f -qq -o /dev/null true 2> /dev/null; then
	eio_args="-f -qq -o /dev/null -e trace=getdents64 -e inject=getdents64:error=EIO:when=2"
	# eio ROOT ARG...: thp --root ROOT ARG..., the listing of ROOT/proc failed
	# shellcheck disable=SC2086
	eio() { _r=$1; shift; traced $eio_args -P "$_r/proc" "$THP" --root "$_r" "$@"; }
	cp -a tests/fixtures/procs-6.18 "$tmp/eio"
	cp -a tests/fixtures/hugetlb-numa "$tmp/eio-hugetlb"
	for c in "ps --all|no process is shown" "status|the processes holding huge pages are not shown" \
		"doctor|the findings may miss processes" "metrics|the per-process metrics are left out" \
		"metrics --no-doctor|the per-process metrics are left out" \
		"hugetlb|the processes that map pool pages are not shown"; do
		cmd=${c%|*} r=$tmp/eio
		[ "$cmd" = hugetlb ] && r=$tmp/eio-hugetlb
		# shellcheck disable=SC2086
		expect "$cmd, /proc not listed to its end: exit 1, says so" \
			[ "$(rc_errs eio "$r" $cmd)" = "1|thp: ${cmd%% *}: cannot list the processes in '$r/proc': Input/output error; ${c#*|}" ]
	done
	# (strace itself in the background: its pid is the one killed below)
	# shellcheck disable=SC2086
	ASAN_OPTIONS=detect_leaks=0 strace $eio_args -P "$tmp/eio/proc" "$THP" --root "$tmp/eio" serve --listen 127.0.0.1:0 2> "$tmp/serve.err" &
	spid=$! port=
	for _ in $(seq 200); do
		port=$(sed -n 's|^thp: serving http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$tmp/serve.err")
		[ -n "$port" ] && break
		sleep 0.05
	done
	curl -sf --max-time 30 -o "$tmp/scrape" "http://127.0.0.1:$port/metrics"
	kill $(pgrep -P $spid) $spid 2> /dev/null
	wait $spid
	expect "serve, /proc not listed to its end: the scrape leaves out the per-process metrics" \
		sh -c 'grep -q "^thp_build_info" "$1" && ! grep -q "^thp_processes_with_anon_huge" "$1"' - "$tmp/scrape"
	expect "... and serve says why on stderr" grep -qx "thp: serve: cannot list the processes in '$tmp/eio/proc': Input/output error; the per-process metrics are left out of this scrape" "$tmp/serve.err"
else
	skip "commands on a /proc not listed to its end: strace cannot trace here"
fi
expect "metrics: the doctor's findings" sh -c "'$THP' --root tests/fixtures/doctor-redis-thp-on metrics | grep -q '^thp_doctor_findings{id=\"latency-server-thp-on\",severity=\"warn\"} 2'"
expect "metrics: drift from what boot applies" sh -c "'$THP' --root tests/fixtures/doctor-persist-drift metrics | grep -q '^thp_persist_drift_settings [1-9]'"
expect_absent "metrics --no-doctor: no findings" '^thp_doctor_\|^thp_persist' "$THP" --root tests/fixtures/doctor-redis-thp-on metrics --no-doctor
expect_out "serve --pids --top 1 --no-doctor --node-exporter-compat --help: exit 0, the usage" "grep -q '^Usage: thp .*serve'" "$THP" serve --pids --top 1 --no-doctor --node-exporter-compat --help
expect "serve --top x: exit 2" [ "$(rc_err "$THP" serve --top x)" = "2|thp: serve: --top 'x' is not a whole number in decimal (0 to 100000)" ]
expect "serve --listen without a port: exit 2" [ "$(rc_err "$THP" serve --listen 127.0.0.1 | cut -d'|' -f1)" = 2 ]
expect "serve --listen with a bare IPv6 address: exit 2" [ "$(rc_err "$THP" serve --listen ::1:9567 | cut -d'|' -f1)" = 2 ]
expect "serve --listen on a bad port: exit 2" [ "$(rc_err "$THP" serve --listen 127.0.0.1:http | cut -d'|' -f1)" = 2 ]
expect "serve --timeout 0: exit 2" [ "$(rc_err "$THP" serve --timeout 0)" = "2|thp: serve: --timeout '0' is out of range (1 to 3600)" ]
expect "serve --max-connections x: exit 2" [ "$(rc_err "$THP" serve --max-connections x)" = "2|thp: serve: --max-connections 'x' is not a whole number in decimal (1 to 65536)" ]
expect "serve --max-per-ip 65537: exit 2" [ "$(rc_err "$THP" serve --max-per-ip 65537)" = "2|thp: serve: --max-per-ip '65537' is out of range (1 to 65536)" ]
expect "serve --header-timeout 0: exit 2" [ "$(rc_err "$THP" serve --header-timeout 0)" = "2|thp: serve: --header-timeout '0' is out of range (1 to 3600)" ]
expect "serve --max-connections 1000 under ulimit -n 100: exit 1 and says how many files" [ "$(rc_err timeout 10 sh -c "ulimit -n 100; exec '$THP' serve -l 127.0.0.1:0 --max-connections 1000")" = "1|thp: serve: --max-connections 1000 needs 1065 open files; the limit is 100 (ulimit -n, or LimitNOFILE= for a systemd unit)" ]

# trace: its options are checked first (usage errors as anyone), then root, then tracefs
expect "trace: bad duration is a usage error" [ "$(rc_err "$THP" trace -d 0)" = "2|thp: trace: --duration '0' is out of range (0.01 to 604800 seconds)" ]
expect "trace: bad --min-ms is a usage error" [ "$(rc_err "$THP" trace --min-ms -1 | cut -d'|' -f1)" = 2 ]
expect "trace: bad pid is a usage error" [ "$(rc_err "$THP" trace -p 12x | cut -d'|' -f1)" = 2 ]
if [ "$(id -u)" != 0 ]; then
	expect "trace as $(id -un) with good options: needs root" [ "$(rc_err "$THP" trace -d 1)" = "1|thp: trace: needs root (run as root)" ]
fi
expect_out "trace --help needs no root" "grep -q '^Usage: thp trace'" "$THP" trace --help

# the commands that work on the running kernel only refuse --root, in one
# wording and with exit 2; their help is shown anywhere
for c in exec collapse trace bench ab; do
	expect "$c with --root: exit 2" [ "$(rc_err "$THP" --root $FX $c 1)" = "2|thp: $c: works on the running kernel only; it cannot be used with --root" ]
	expect_out "$c --help with --root: exit 0, the usage" "grep -q '^Usage: thp $c'" "$THP" --root $FX $c --help
done
# report reads the files it names: --root before it is refused, not ignored
expect "report with --root: exit 2" [ "$(rc_err "$THP" --root $FX report $FX)" = "2|thp: report: reads the files it is given; --root does not apply to it" ]

# thp collapse usage (the live suite collapses helper processes)
expect "collapse without a PID: exit 2, the command named once" [ "$(rc_err "$THP" collapse)" = "2|thp: collapse: which process? give its PID" ]
expect "collapse with two PIDs: exit 2, the command named once" [ "$(rc_err "$THP" collapse 1 2)" = "2|thp: collapse: unexpected argument '2'" ]
expect "collapse with a bad range: exit 2" [ "$(rc_err "$THP" collapse 1 --range 3000-1000 | cut -d'|' -f1)" = 2 ]
expect "collapse of a missing process: exit 1" [ "$(rc_err "$THP" collapse 2147483647)" = "1|thp: collapse: no process 2147483647" ]

# Strict numbers: every numeric argument is decimal without a leading zero
# and in range, conflicting options are refused: a usage error (exit 2) that
# names the option and value, before anything is read, run or written.
# (timeout: a command that took such a value would run on)
bad_arg() { _d=$1; shift; expect "$_d: exit 2" [ "$(rc_err timeout 30 "$@" | cut -d'|' -f1)" = 2 ]; }
tree_sum() { (cd "$1" && find . -type f -exec md5sum {} + | sort | md5sum); }
PX=tests/fixtures/procs-6.18
SX=$tmp/strict-set HX=$tmp/strict-hugetlb
cp -a $FX "$SX" && cp -a tests/fixtures/hugetlb-numa "$HX"
sx_sum=$(tree_sum "$SX") hx_sum=$(tree_sum "$HX")
bad_arg "watch -i 0x10 (hex)" "$THP" --root $FX watch -i 0x10 --count 1
bad_arg "watch -i 1e-2 (exponent)" "$THP" --root $FX watch -i 1e-2 --count 1
bad_arg "watch --count 010 (leading zero)" "$THP" --root $FX watch --count 010 -i 0.01
bad_arg "watch --alert-stalls 05" "$THP" --root $FX watch --alert-stalls 05 --count 1 -i 0.01
expect "watch -i 0x10 names the option" [ "$(rc_err timeout 30 "$THP" watch -i 0x10)" = "2|thp: watch: --interval '0x10' is not a number of seconds in decimal such as 2 or 0.5 (0.01 to 86400)" ]
bad_arg "show 026828 (leading zero)" "$THP" --root $PX show 026828
expect "show 01 names the operand" [ "$(rc_err "$THP" --root $PX show 01)" = "2|thp: show: process id '01' is not a whole number in decimal (1 to 2147483647)" ]
bad_arg "show --tlb 0 (below 0.01 s)" "$THP" show $$ --tlb 0
bad_arg "show --tlb 1e1 (exponent)" "$THP" show $$ --tlb 1e1
bad_arg "show --tlb 3601" "$THP" show $$ --tlb 3601
bad_arg "show --tlb with --folios" "$THP" show $$ --tlb 1 --folios
expect "show --tlb says the range" [ "$(rc_err "$THP" show $$ --tlb 0)" = "2|thp: show: --tlb '0' is out of range (0.01 to 3600 seconds)" ]
expect "show --tlb on a recorded tree: exit 2, in the one wording" [ "$(rc_err "$THP" --root $PX show 26828 --tlb 1)" = "2|thp: show: --tlb works on the running kernel only; it cannot be used with --root" ]
# a recorded tree with kpageflags but not the process's pagemap: said so, not
# "no process" (the golden cases of doctor-jemalloc show a capture's wording)
cp -a tests/fixtures/folios-6.18 "$tmp/nopagemap"
rm "$tmp/nopagemap/proc/4242/pagemap"
expect "show --folios on a tree without the process's pagemap: exit 1, says so" \
	[ "$(rc_err "$THP" --root "$tmp/nopagemap" show 4242 --folios)" = "1|thp: show: --folios reads the process's pagemap and /proc/kpageflags, which this recorded tree does not hold ('thp capture' records neither); run it on the host itself" ]
# a malformed memory block size: the folios are counted, not placed on nodes,
# and the output says why; memoryM names that are no block are left out
cp -a tests/fixtures/folios-numa "$tmp/badblock"
echo zz > "$tmp/badblock/sys/devices/system/memory/block_size_bytes"
"$THP" --root "$tmp/badblock" show 4242 --rollup > "$tmp/badblock.out" 2>&1
expect_out "show --folios with a malformed block_size_bytes: exit 0" "grep -q 'anon-thp-pmd'" "$THP" --root "$tmp/badblock" show 4242 --rollup
expect "show --folios with a malformed block_size_bytes names it" \
	grep -qx '  by node: unknown (malformed /sys/devices/system/memory/block_size_bytes)' "$tmp/badblock.out"
expect "show --folios with a malformed block_size_bytes still counts the folios" \
	grep -q '^  anon-thp-pmd-aligned-2048kB  *10 MiB$' "$tmp/badblock.out"
"$THP" --root "$tmp/badblock" show 4242 --rollup --json > "$tmp/badblock.json"
expect "show --json with a malformed block_size_bytes: all on no node, and why" \
	[ "$(jq -c '[.folio_nodes, .folio_nodes_error]' "$tmp/badblock.json")" = '[[{"node":null,"pmd":10485760,"mthp":2727936}],"malformed /sys/devices/system/memory/block_size_bytes"]' ]
bad_arg "ps -u 4294967296 (not uid 0)" "$THP" --root $PX ps -u 4294967296
expect "ps -u 4294967296 says the range" [ "$(rc_err "$THP" --root $PX ps -u 4294967296)" = "2|thp: ps: --user '4294967296' is out of range (0 to 4294967294)" ]
bad_arg "ps -u 01" "$THP" --root $PX ps -u 01
bad_arg "ps -p 026828" "$THP" --root $PX ps -p 026828
# ps -p reads each process's status once: the check of its id gives the row
if strace -f -qq -o /dev/null true 2> /dev/null; then
	traced -f -qq -e trace=openat,openat2 -o "$tmp/ps-p.trace" "$THP" --root $PX ps -p 26828 > "$tmp/ps-p.out"
	expect "ps -p 26828: its row" grep -qE '^26828 +root +hog ' "$tmp/ps-p.out"
	expect "ps -p 26828: its status opened once" [ "$(grep -c '"proc/26828/status"' "$tmp/ps-p.trace")" = 1 ]
else
	skip "ps -p reads the status once: no strace"
fi
bad_arg "ps --limit 05" "$THP" --root $PX ps --limit 05
bad_arg "ps --min ' 2M' (space)" "$THP" --root $PX ps --min ' 2M'
bad_arg "metrics --top 010" "$THP" --root $FX metrics --top 010
bad_arg "serve --top 010" "$THP" serve --top 010 -l 127.0.0.1:0
bad_arg "serve -l HOST:99999 (not port 34463)" "$THP" serve -l 127.0.0.1:99999
bad_arg "serve -l HOST:08080" "$THP" serve -l 127.0.0.1:08080
expect "serve -l HOST:99999 says why" [ "$(rc_err timeout 30 "$THP" serve -l 127.0.0.1:99999)" = "2|thp: serve: invalid listen address '127.0.0.1:99999' (the port is a decimal number from 0 to 65535; use ADDR:PORT)" ]
# (a host without libmicrohttpd gives the same usage error: it is not loaded yet)
LD_DEBUG=files "$THP" serve -l 127.0.0.1:99999 > "$tmp/ld" 2>&1
rc=$?
expect_sh "serve -l HOST:99999 is refused (exit 2) before libmicrohttpd is loaded" \
	"[ $rc = 2 ] && grep -q '^thp: serve: invalid listen address' '$tmp/ld' && ! grep -q libmicrohttpd '$tmp/ld'"
bad_arg "hugetlb plan 2^64-1 (not 16 EiB)" "$THP" --root "$HX" hugetlb plan 18446744073709551615
expect "hugetlb plan 2^64-1 says the range" [ "$(rc_err "$THP" --root "$HX" hugetlb plan 18446744073709551615)" = "2|thp: hugetlb plan: size '18446744073709551615' is out of range (1 B to 4 PiB, the most a Linux host addresses)" ]
bad_arg "hugetlb plan --margin 0.125 (no decimal dropped)" "$THP" --root "$HX" hugetlb plan 16G --margin 0.125
bad_arg "hugetlb set 2M=01" "$THP" --root "$HX" hugetlb set 2M=01
bad_arg "hugetlb set 02M=1" "$THP" --root "$HX" hugetlb set 02M=1
bad_arg "hugetlb set --node 01" "$THP" --root "$HX" hugetlb set 2M=1 --node 01
# (trace needs root before its options are read)
if [ "$(id -u)" = 0 ]; then
	bad_arg "trace -d 1e1" "$THP" trace -d 1e1
	bad_arg "trace -p 0x10" "$THP" trace -p 0x10
	bad_arg "trace --min-ms 1e3" "$THP" trace --min-ms 1e3
fi
bad_arg "doctor --sample 0x1" "$THP" doctor --sample 0x1
bad_arg "collapse 0999999" "$THP" collapse 0999999
bad_arg "ab -N 05" "$THP" ab -m current -N 05 -- true
bad_arg "bench --reps 05" "$THP" bench --reps 05 --size 2M fault
bad_arg "bench --size beyond MemAvailable" "$THP" bench --size 16384G fault
expect "bench --size beyond MemAvailable gives the figure" sh -c "timeout 30 '$THP' bench --size 16384G fault 2>&1 | grep -q \"^thp: bench: --size '16384G' is more than the memory available (Mem\(Available\|Total\) [0-9.]* [KMGT]iB)\\\$\""
bad_arg "bench --sweep with --step" "$THP" bench --sweep --step 64K bloat
bad_arg "set with a key twice" "$THP" --root "$SX" set enabled=always enabled=never
expect "set names the key given twice" [ "$(rc_err "$THP" --root "$SX" set enabled=always enabled=never)" = "2|thp: set: 'enabled' is given twice; nothing was changed" ]
bad_arg "set khugepaged.pages_to_scan=010" "$THP" --root "$SX" set khugepaged.pages_to_scan=010
bad_arg "persist --tmpfiles --systemd" "$THP" --root "$SX" persist --tmpfiles --systemd
expect "persist names both modes" [ "$(rc_err "$THP" --root "$SX" persist --tmpfiles --systemd)" = "2|thp: persist: --tmpfiles and --systemd cannot be combined; give one" ]
bad_arg "persist --cmdline --output" "$THP" --root "$SX" persist --cmdline -o "$SX/x.conf"
bad_arg "persist with a key twice" "$THP" --root "$SX" persist enabled=always enabled=always
expect "the refused set and persist changed nothing" [ "$(tree_sum "$SX")" = "$sx_sum" ]
expect "the refused hugetlb sets changed nothing" [ "$(tree_sum "$HX")" = "$hx_sum" ]

# names that are not UTF-8, with newlines and terminal escapes (fixture
# names-hostile): the golden outputs are printable ASCII text, or valid UTF-8 JSON
for f in tests/expected/names-hostile/*.out; do
	case $f in
	*json*) expect "$f is valid UTF-8 JSON" sh -c "iconv -f UTF-8 -t UTF-8 '$f' > /dev/null 2>&1 && jq -e . '$f' > /dev/null" ;;
	*) expect "$f is printable ASCII" sh -c "! LC_ALL=C grep -q '[^[:print:]]' '$f'" ;;
	esac
done

# root that may not read some processes (here: files it may not open without
# CAP_DAC_OVERRIDE; on a host: containers without CAP_SYS_PTRACE) is told
# which and why, never to run as root
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
	skip "unreadable processes named to root: needs root and setpriv"
else
	cp -a tests/fixtures/doctor-redis-thp-on "$tmp/denied"
	chmod 000 "$tmp/denied/proc/2100/status" "$tmp/denied/proc/2200/smaps_rollup"
	nodac="setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search"
	$nodac "$THP" --root "$tmp/denied" doctor > "$tmp/out" 2>&1
	expect "doctor as root names the process it could not read" \
		grep -qx "1 process could not be read: PID 2100: Permission denied" "$tmp/out"
	$nodac "$THP" --root "$tmp/denied" ps --all 2>&1 > /dev/null | cat > "$tmp/out"
	expect "ps as root names the process it could not read" \
		grep -qx "1 process could not be read: PID 2200: Permission denied" "$tmp/out"
	$nodac "$THP" --root "$tmp/denied" status > "$tmp/out" 2>&1
	expect "status as root names the process it could not read" \
		sh -c "tr '\\n' ' ' < '$tmp/out' | grep -q 'could not be read: PID 2200: Permission *denied;'"
	expect_absent "no 'run as root' told to root" 'run as root' cat "$tmp/out"
fi

# every command with a full standard output: "thp: [CMD: ]write error: No space
# left on device" and exit 1; a run that writes nothing there (having failed) keeps
# its status.
# Commands of the live host run bounded and change nothing (ab: the current
# policy); those that measure it hold the live lock, as the live tests do.
WX=$tmp/wfull
cp -a tests/fixtures/debian-6.12-madvise "$WX"
mkdir -p "$WX/run" "$WX/etc/tmpfiles.d"
sleep 3600 &
wpid=$!
# full DESCRIPTION ARGS...: runs thp ARGS to a file, then (after $between) to
# /dev/full, both behind $lock when set
lock= between=
full() {
	_d=$1
	shift
	# shellcheck disable=SC2086
	$lock "$THP" "$@" > "$tmp/full.out" 2> /dev/null < /dev/null
	_rc=$?
	eval "$between"
	# shellcheck disable=SC2086
	$lock "$THP" "$@" > /dev/full 2> "$tmp/full.err" < /dev/null
	_frc=$?
	if [ -s "$tmp/full.out" ]; then
		expect "$_d > /dev/full: exit 1 (got $_frc)" [ "$_frc" = 1 ]
		expect "$_d > /dev/full: says why" grep -Eqx 'thp: ([a-z]+( [a-z]+)?: )?write error: No space left on device' "$tmp/full.err"
	else
		# (a run that prints nothing has failed, and says why)
		expect_sh "$_d writes nothing to stdout: it failed saying why, with the same exit status on /dev/full ($_rc, $_frc)" \
			"[ '$_rc' != 0 ] && [ '$_rc' = '$_frc' ] && grep -q '^thp: ' '$tmp/full.err'"
	fi
}
full "--version" --version
full "--help" --help
full "--json --version" --json --version
full "help status" help status
for c in $cmds; do
	case $c in
	status) full "$c" --root $FX status; full "$c --json" --root $FX --json status ;;
	exec) full "$c --status" exec --status; full "$c --status --json" --json exec --status ;;
	collapse) full "$c" collapse $wpid ;;
	hugetlb) full "$c" --root $FX hugetlb; full "$c plan" --root $FX hugetlb plan 2M; full "$c set" --root "$HF" hugetlb set 2M=1100 ;;
	ps) full "$c" --root $P ps; full "$c --json" --root $P ps --json ;;
	show) full "$c" --root $P show "$(ls $P/proc | grep -m1 '^[0-9]')" ;;
	capture)
		between='rm -rf "$tmp/wfull-cap"'
		full "$c" --root $FX capture -o "$tmp/wfull-cap"
		between= ;;
	set) full "$c" --root "$WX" set enabled=never; full "$c --dry-run" --root "$WX" set --dry-run enabled=always ;;
	restore) full "$c" --root "$WX" restore ;;
	diff) full "$c" --root $FX diff --root tests/fixtures/linux-5.15 ;;
	persist) full "$c" --root "$WX" persist --force; full "$c --check" --root $FX persist --check ;;
	watch) full "$c --replay" --root tests/fixtures/storm-before watch --replay tests/fixtures/storm-after ;;
	doctor) full "$c" --root $FX doctor; full "$c --json" --root $FX --json doctor ;;
	trace | bench | ab)
		lock="flock -w 600 /tmp/thp-live.lock"
		case $c in
		trace) full "$c" trace -d 0.2 ;;
		bench) full "$c" bench fault --size 4M -N 1 ;;
		ab) full "$c" ab -N 1 --modes current -- true ;;
		esac
		lock= ;;
	metrics) full "$c" --root $FX metrics ;;
	serve) full "$c --help" serve --help ;;
	report) full "$c" report $FX; full "$c --json" --json report $FX ;;
	help) full "$c" help ;;
	*) bad "$c: no /dev/full check for this command" ;;
	esac
done
kill "$wpid" 2> /dev/null # it may have ended: the live commands wait for the live lock
wait "$wpid" 2> /dev/null
# a process with no memory to look at gets one answer from every command
sh -c 'sleep 0 & exec sleep 30' &
zp=$!
i=0
while [ $i -lt 50 ] && ! grep -qs '^State:.Z' "/proc/$(cat "/proc/$zp/task/$zp/children" 2> /dev/null | tr -d ' ')/status"; do
	sleep 0.1
	i=$((i + 1))
done
z=$(cat "/proc/$zp/task/$zp/children" 2> /dev/null | tr -d ' ')
if [ -n "$z" ] && grep -qs '^State:.Z' "/proc/$z/status"; then
	for c in show ps collapse; do
		a=$z
		[ $c = ps ] && a="-p $z"
		expect "$c on a zombie: exit 1, said so" [ "$(rc_err "$THP" $c $a)" = "1|thp: $c: process $z is a zombie: it has no memory" ]
	done
else
	skip "zombie: no zombie process could be made here"
fi
kill "$zp"
wait "$zp" 2> /dev/null
if [ "$(cat /proc/2/comm 2> /dev/null)" = kthreadd ]; then
	for c in show ps collapse; do
		a=2
		[ $c = ps ] && a="-p 2"
		expect "$c on a kernel thread: exit 1, said so" [ "$(rc_err "$THP" $c $a)" = "1|thp: $c: process 2 is a kernel thread: it has no user memory" ]
	done
else
	skip "kernel thread: PID 2 is not kthreadd here (a PID namespace)"
fi
if [ "$(id -u)" = 0 ]; then
	expect "trace -p of no process: exit 1, said so" [ "$(rc_err "$THP" trace -p 999999 -d 1)" = "1|thp: trace: no process 999999" ]
else
	skip "trace -p of no process: trace needs root"
fi
if [ -d /sys/fs/cgroup ]; then
	expect "ps --cgroup of no cgroup: exit 1, said so" [ "$(rc_err "$THP" ps --cgroup /no/such/cgroup)" = "1|thp: ps: no cgroup '/no/such/cgroup' (not below /sys/fs/cgroup, nor its v1 memory controller)" ]
else
	skip "ps --cgroup of no cgroup: no /sys/fs/cgroup here"
fi
expect "ps --cgroup '': exit 2" [ "$(rc_err "$THP" ps --cgroup '' | cut -d'|' -f1)" = 2 ]

# --color: util-linux's WHEN (auto, always, never); auto colours a terminal
# only, and not with NO_COLOR set and not empty. On a terminal (script's pty)
# the verdict wraps at its width.
ESC=$(printf '\033')
# leftover mTHP folios of a size set back to 'never' are not memory programs asked for
M=tests/fixtures/doctor-mthp-left-madvise
expect "doctor: folios of a 'never' size under madvise are mthp-left-over" sh -c "'$THP' --root $M doctor --json | jq -e '[.findings[].id] == [\"mthp-left-over\"]' > /dev/null"
expect "doctor: mthp-left-over does not say anyone asked" sh -c "'$THP' --root $M doctor --json | jq -e '.findings[0] | (.title + .why | test(\"asked for it\") | not) and (.evidence | any(.name == \"mTHP folios of sizes set to '\\''never'\\'', made while enabled\" and .value == 268435456))' > /dev/null"
# a change since the state 'thp set' saved is credited to thp set only when it made it
S=tests/fixtures/doctor-persist-sysfs
expect "doctor: the change thp set made is credited to it" sh -c "'$THP' --root $S doctor --json | jq -e '.findings[] | select(.id == \"persist-none\") | .evidence[] | select(.name == \"enabled\") | .value == \"running '\\''madvise'\\'', was '\\''always'\\'' before '\\''thp set'\\''\"' > /dev/null"
expect "doctor: a change made through sysfs is not credited to thp set" sh -c "'$THP' --root $S doctor --json | jq -e '.findings[] | select(.id == \"persist-none\") | .evidence[] | select(.name == \"defrag\") | .value == \"running '\\''madvise'\\'', was '\\''always'\\'' when the state was saved; changed since\"' > /dev/null"
rm -rf "$tmp/credit"
cp -a tests/fixtures/doctor-persist-none "$tmp/credit"
rm "$tmp/credit/run/thp/saved.state"
"$THP" --root "$tmp/credit" set enabled=always > /dev/null 2>&1
echo 'always defer defer+madvise madvise [never]' > "$tmp/credit/sys/kernel/mm/transparent_hugepage/defrag"
expect "doctor after 'thp set enabled=always' and defrag written to sysfs: thp set credited for enabled only" sh -c "'$THP' --root '$tmp/credit' doctor --json | jq -e '[.findings[] | select(.id == \"persist-none\") | .evidence[] | [.name, (.value | test(\"thp set\"))]] == [[\"enabled\", true], [\"defrag\", false]]' > /dev/null"
DFX=tests/fixtures/doctor-always-always
expect_sh "--color=always: doctor severities coloured" "'$THP' --color=always --root $DFX doctor | grep -q '^${ESC}\[1;33mWARN${ESC}\[0m '"
expect_sh "--color=always: ps THP_STATE off coloured" "'$THP' --color=always --root tests/fixtures/doctor-inherited ps -a | grep -q '${ESC}\[33moff (prctl)${ESC}\[0m'"
"$THP" --root tests/fixtures/doctor-inherited ps -a > "$tmp/plain"
expect_out "--color=always: the line's width is unchanged" "sed 's/${ESC}\[[0-9;]*m//g' | cmp -s - '$tmp/plain'" "$THP" --color=always --root tests/fixtures/doctor-inherited ps -a
expect_absent "--color=never: no escapes" "$ESC" "$THP" --color=never --root $DFX doctor
expect_absent "--color (auto) into a pipe: no escapes" "$ESC" "$THP" --color --root $DFX doctor
expect_absent "--color=always --json: no escapes" "$ESC" "$THP" --color=always --root $DFX doctor --json
expect_sh "auto on a terminal: coloured" "on_term \"env -u NO_COLOR '$THP' --root $DFX doctor\" | grep -q '${ESC}\[1;33mWARN'"
expect_absent "auto on a terminal with NO_COLOR=1: no escapes" "$ESC" on_term "NO_COLOR=1 '$THP' --root $DFX doctor"
expect_sh "auto on a terminal with NO_COLOR empty: coloured" "on_term \"NO_COLOR= '$THP' --root $DFX doctor\" | grep -q '${ESC}\[1;33mWARN'"
expect_sh "--color=always beats NO_COLOR" "NO_COLOR=1 '$THP' --color=always --root $DFX doctor | grep -q '$ESC'"
expect "--color=x: exit 2, said so" [ "$(rc_err "$THP" --color=x status)" = "2|thp: unknown --color value 'x'" ]
expect "--color= (empty): exit 2" [ "$(rc_err "$THP" --color= status | cut -d'|' -f1)" = 2 ]
expect_out "verdict on a 60-column terminal: no line wider" "sed -n '1,/^\$/p' | awk 'length > 60 {exit 1}'" on_term "stty cols 60; '$THP' --root $FX status"
expect_sh "verdict on a 60-column terminal: wrapped" "[ \$(on_term \"stty cols 60; '$THP' --root $FX status\" | sed -n '1,/^\$/p' | wc -l) -gt \$('$THP' --root $FX status | sed -n '1,/^\$/p' | wc -l) ]"
expect_sh "verdict into a pipe: lines up to 100 columns" "'$THP' --root $FX status | sed -n '1,/^\$/p' | awk 'length > 80 {w=1} length > 100 {exit 1} END {exit !w}'"

# watch --compact: a line per interval with sparklines of the last minute
# (storm-after has 250 more stalls and 300 more fallbacks than storm-before;
# the replay of the reverse has no rates: the counters went back)
S=tests/fixtures/storm
compact() { "$THP" "$@" --root $S-before watch --compact -i 6 --replay $S-after --replay $S-before --replay $S-after; }
expect "watch --compact: a header and a line per interval" [ "$(LC_ALL=C.UTF-8 compact | wc -l)" = 4 ]
expect "watch --compact: rates, AnonHugePages, sparklines and sums" [ "$(LC_ALL=C.UTF-8 compact | tail -1)" = "      #3   200.0    50.0    41.7   1.4 GiB         █▁█   500         █▁█   600" ]
expect "watch --compact: no rates where the counters went back" [ "$(LC_ALL=C.UTF-8 compact | sed -n 3p)" = "      #2       -       -       -   1.2 GiB          █▁   250          █▁   300" ]
expect "watch --compact --ascii: '#' and '_'" [ "$(LC_ALL=C.UTF-8 compact --ascii | tail -1)" = "      #3   200.0    50.0    41.7   1.4 GiB         #_#   500         #_#   600" ]
expect "watch --compact in the C locale: ASCII" [ "$(LC_ALL=C compact | tail -1)" = "      #3   200.0    50.0    41.7   1.4 GiB         #_#   500         #_#   600" ]
expect "watch --compact --json: exit 2, said so" [ "$(rc_err "$THP" --root $FX watch --compact --json --count 1)" = "2|thp: watch: --compact is a text format; it does not apply to --json" ]

# progress on standard error while long work runs: on a terminal only, never
# with JSON or when standard error is not a terminal
expect_sh "doctor --sample on a terminal: progress on stderr" "on_term \"'$THP' doctor --sample 1.5 > /dev/null\" | grep -q 'thp doctor: sampling the counters for 1.5 s (1 s elapsed)'"
expect_sh "doctor --sample on a terminal: the progress line is erased" "on_term \"'$THP' doctor --sample 1.5 > /dev/null\" | grep -q 'elapsed)${ESC}\[K\$'"
expect_sh "doctor --sample --json on a terminal: no progress" \
	"on_term \"'$THP' doctor --sample 1.5 --json > '$tmp/sj'\" > '$tmp/sj.tty' && jq -e .findings '$tmp/sj' > /dev/null && ! grep -q sampling '$tmp/sj.tty'"
expect_sh "doctor --sample, stderr not a terminal: no progress" \
	"on_term \"'$THP' doctor --sample 1.5 > '$tmp/sp' 2> '$tmp/progress'\" && [ -s '$tmp/sp' ] && ! grep -q sampling '$tmp/progress'"

# the table options of every table command: -n, -r, -J -o, -b, -o errors, and
# fitting to an 80-column terminal (never when piped)
expect "ps: the header line comes first" [ "$("$THP" --root $PX ps -o pid | head -1 | tr -d ' ')" = PID ]
expect "ps -n: no header line" [ "$("$THP" --root $PX ps -n -o pid | head -1 | tr -d ' ')" = 26828 ]
expect "ps -r: one space between cells, spaces escaped" [ "$("$THP" --root $PX ps -r -o pid,rss,command | sed -n 2p)" = '26828 17.6\x20MiB hog' ]
expect "ps -r: no padding in the header" [ "$("$THP" --root $PX ps -r -o pid,rss | head -1)" = 'PID RSS' ]
expect "ps -b: exact bytes" [ "$("$THP" --root $PX ps -b -n -o rss | tr -d ' ')" = 18423808 ]
expect "ps -J -o PID,THP: only those keys" [ "$("$THP" --root $PX ps -J -o PID,THP | jq -c '[.processes[] | keys]')" = '[["pid","thp"]]' ]
expect "ps -J -o: typed values" [ "$("$THP" --root $PX ps -J -o pid,cover,command,pte | jq -c '.processes[0] | [(.pid|type), (.cover|type), (.command|type), (.pte|type)]')" = '["number","number","string","number"]' ]
expect "ps -J -o with --totals: the totals have the keys too" [ "$("$THP" --root $PX ps -J -o rss --totals | jq -c '.totals')" = '{"rss":18423808}' ]
expect "ps -P: one COLUMN=\"value\" pair per column" [ "$("$THP" --root $PX ps -P -o pid,command,thp)" = 'PID="26828" COMMAND="hog" THP="16 MiB"' ]
expect "ps -P -b --totals: sizes in bytes, the total row named" [ "$("$THP" --root $PX ps -P -b -o command,rss --totals | tail -1)" = 'COMMAND="total" RSS="18423808"' ]
expect "ps -J without -o: COVER too, the same value as the text's" [ "$("$THP" --root $PX ps -J | jq '.processes[0].cover')" = 99.4 ]
expect "ps -J without -o: the whole row" [ "$("$THP" --root $PX ps -J | jq '.processes[0] | has("ppid") and has("thp_enabled")')" = true ]
expect "ps -o is case-insensitive" [ "$("$THP" --root $PX ps -n -o Pid | tr -d ' ')" = 26828 ]
expect "ps -o unknown column: exit 2, names the valid ones" [ "$(rc_err "$THP" --root $PX ps -o pid,nope | cut -d'(' -f1)" = "2|thp: ps: unknown column 'nope' " ]
expect "ps --limit 0: no rows" [ "$("$THP" --root $PX ps --limit 0 -J | jq -c .processes)" = '[]' ]
expect "ps --help lists the columns from the descriptor" sh -c "'$THP' ps --help | grep -qE '^  THP_STATE +on, off'"
expect "show -n -r -o: raw rows of those columns" [ "$("$THP" --root $PX show 26828 -n -r -o size,mapping | tail -1)" = '132\x20KiB [stack]' ]
expect "show: the table's header without -n" [ "$("$THP" --root $PX show 26828 -o size,perms | grep -c '^ *SIZE  PERMS$')" = 1 ]
expect_absent "show -n: no header line" '^ *SIZE  PERMS$' "$THP" --root $PX show 26828 -n -o size,perms
expect "show -b -o: exact bytes" [ "$("$THP" --root $PX show 26828 -n -b -o size | tail -1 | tr -d ' ')" = 135168 ]
# a process with more mappings than one chunk of the streamed table (256 rows)
cp -r $PX "$tmp/many" && rm -f "$tmp/many/proc/26828/smaps"
i=0
while [ $i -lt 600 ]; do
	printf '%012x-%012x rw-p 00000000 00:00 0\nRss: %d kB\nAnonymous: %d kB\nAnonHugePages: 0 kB\nTHPeligible: 1\nVmFlags: rd wr mr mw me ac\n' \
		$((0x10000000 + i * 8192)) $((0x10000000 + i * 8192 + 4096)) $((4 << (i % 20))) $((4 << (i % 20)))
	i=$((i + 1))
done > "$tmp/many/proc/26828/smaps"
expect_sh "show of 600 mappings: every one a row of the text" "[ \"\$('$THP' --root '$tmp/many' show 26828 -n -o start-end,rss | grep -c '^0000')\" = 600 ]"
expect_sh "show of 600 mappings: rows of every chunk aligned alike (sizes from 4 KiB to 2 GiB)" \
	"[ \"\$('$THP' --root '$tmp/many' show 26828 -o start-end,size,rss,anon | grep '^0000' | awk '{print length}' | sort -u | wc -l)\" = 1 ]"
expect_sh "show --json of 600 mappings: every one in vmas, the totals their sum" \
	"'$THP' --root '$tmp/many' show 26828 --json | jq -e '(.vmas | length) == 600 and ([.vmas[].rss] | add) == .totals.rss' > /dev/null"
expect "show -J -o: only those keys in the mappings" [ "$("$THP" --root $PX show 26828 -J -o mapping,THP,eligible | jq -c '[.vmas[] | keys] | unique')" = '[["eligible","mapping","thp"]]' ]
expect "show -o unknown column: exit 2" [ "$(rc_err "$THP" --root $PX show 26828 -o nope | cut -d'(' -f1)" = "2|thp: show: unknown column 'nope' " ]
# the folio columns: in -o with --folios, refused without it
FO=tests/fixtures/folios-6.18
expect "ps --folios -o PID,PMD,MTHP: those columns" [ "$("$THP" --root $FO ps --folios -n -b -o pid,pmd,mthp | tr -s ' ' | tr '\n' '/')" = '4242 10485760 2727936/4400 6291456 0/4300 0 16777216/' ]
expect "ps --folios -J -o: only those keys, typed" [ "$("$THP" --root $FO ps --folios -J -o pid,pmd | jq -c '.processes[0]')" = '{"pid":4242,"pmd":10485760}' ]
expect "ps -o PMD without --folios: exit 2" [ "$(rc_err "$THP" --root $FO ps -o pid,pmd)" = "2|thp: ps: column 'PMD' needs --folios" ]
expect "ps --help lists the folio columns" sh -c "'$THP' ps --help | grep -qE '^  PTE_PARTIAL +large folios mapped in part \\(--folios\\)'"
expect "ps --help: MTHP says it also counts THPs split (copy-on-write leaves them mapped by PTEs)" \
	sh -c "'$THP' ps --help | grep -qE '^  MTHP +PTE-mapped large folios, mTHP or split THP \\(--folios\\)'"
expect "show --folios -o: the folio columns chosen" [ "$("$THP" --root $FO show 4242 --folios -n -b -o start-end,pmd,mthp | sed -n '/^000000600000/p' | tr -s ' ')" = '000000600000-000000e00000 2097152 2727936' ]
expect "show --folios -J -o: only those keys in the mappings" [ "$("$THP" --root $FO show 4242 --folios -J -o pmd,pte_partial | jq -c '[.vmas[] | keys] | unique')" = '[["pmd","pte_partial"]]' ]
expect "show -o MTHP without --folios: exit 2" [ "$(rc_err "$THP" --root $FO show 4242 -o mthp)" = "2|thp: show: column 'MTHP' needs --folios" ]
expect "show --folios: the folio columns before WHY by default" [ "$("$THP" --root $FO show 4242 --folios | grep '^START-END' | tr -s ' ' | cut -d' ' -f10-)" = 'ALIGNED PMD MTHP PTE_ALIGNED PTE_UNALIGNED PTE_PARTIAL WHY' ]
# --jobs: the same output on several threads as on one, on a recorded tree
"$THP" --root $FO ps --all --folios -J --jobs 1 > "$tmp/jobs1.json"
expect "ps --all --folios --jobs 1: three processes" [ "$(jq '.processes | length' "$tmp/jobs1.json")" = 3 ]
expect_out "ps --all --folios --jobs 3: the same JSON as --jobs 1" 'cmp -s - "$tmp/jobs1.json"' \
	"$THP" --root $FO ps --all --folios -J --jobs 3
# without --folios too: 49 processes read on 1 and on 4 threads, the same rows
# in the same order (JSON: every column; text: the command lines, sorted by RSS)
PS49=tests/fixtures/doctor-pt-shared
"$THP" --root $PS49 ps --all -J --jobs 1 > "$tmp/jobs1.json"
expect "ps --all --jobs 1: 49 processes" [ "$(jq '.processes | length' "$tmp/jobs1.json")" = 49 ]
expect_out "ps --all --jobs 4: the same JSON as --jobs 1" 'cmp -s - "$tmp/jobs1.json"' \
	"$THP" --root $PS49 ps --all -J --jobs 4
# (printed 5 rows a chunk: the chunks after the first on 4 threads)
THP_TABLE_CHUNK=5 "$THP" --root $PS49 ps --all -w -s rss --totals --jobs 1 > "$tmp/jobs1.txt"
expect "ps --all -w --jobs 1: a line per process, the header and the totals" [ "$(wc -l < "$tmp/jobs1.txt")" = 51 ]
expect_out "ps --all -w --jobs 4: the same text as --jobs 1" 'cmp -s - "$tmp/jobs1.txt"' \
	env THP_TABLE_CHUNK=5 "$THP" --root $PS49 ps --all -w -s rss --totals --jobs 4
"$THP" --root $FO show 4242 --folios -J --jobs 1 > "$tmp/jobs1.json"
expect "show 4242 --folios --jobs 1: its mappings" [ "$(jq '.vmas | length' "$tmp/jobs1.json")" -gt 2 ]
expect_out "show 4242 --folios --jobs 4: the same JSON as --jobs 1" 'cmp -s - "$tmp/jobs1.json"' \
	"$THP" --root $FO show 4242 --folios -J --jobs 4
expect "ps --jobs 0 says the range" [ "$(rc_err "$THP" --root $FO ps --folios --jobs 0)" = "2|thp: ps: --jobs '0' is out of range (1 to 1024)" ]
expect "show --jobs 1025 says the range" [ "$(rc_err "$THP" --root $FO show 4242 --folios --jobs 1025)" = "2|thp: show: --jobs '1025' is out of range (1 to 1024)" ]
bad_arg "ps --jobs 02" "$THP" --root $FO ps --folios --jobs 02
bad_arg "show --jobs x" "$THP" --root $FO show 4242 --folios --jobs x
HX=tests/fixtures/hugetlb-numa
expect "hugetlb: the pool table's header" [ "$("$THP" --root $HX hugetlb --no-procs | sed -n 2p | tr -s ' ')" = ' SIZE TOTAL IN_USE FREE RESERVED SURPLUS OVERCOMMIT MEMORY' ]
expect "hugetlb -n: no header lines" [ "$("$THP" --root $HX hugetlb -n --no-procs | sed -n 2p | tr -s ' ')" = ' 2 MiB 1,030 730 300 100 6 64 2 GiB' ]
expect "hugetlb -r -o: raw cells of those columns" [ "$("$THP" --root $HX hugetlb -r -o size,in_use,memory --no-procs | sed -n 3p)" = '2\x20MiB 730 2\x20GiB' ]
expect "hugetlb -b: exact bytes" [ "$("$THP" --root $HX hugetlb -n -b -o memory --no-procs | sed -n 2p | tr -d ' ')" = 2160066560 ]
expect "hugetlb -J -o: only those keys in the pools" [ "$("$THP" --root $HX hugetlb -J -o size,IN_USE | jq -c '[.pools[] | keys]')" = '[["in_use","size"],["in_use","size"]]' ]
expect "hugetlb -J without -o: the whole pool" [ "$("$THP" --root $HX hugetlb -J | jq -c '.pools[0] | keys | length')" = 9 ]
expect "hugetlb -o unknown column: exit 2" [ "$(rc_err "$THP" --root $HX hugetlb -o nope | cut -d'(' -f1)" = "2|thp: hugetlb: unknown column 'nope' " ]
expect "hugetlb --dry-run still belongs to set (not -n)" [ "$(rc_err "$THP" --root $HX hugetlb --dry-run)" = "2|thp: hugetlb: --node belongs to 'set', 'persist' and 'plan', --dry-run to 'set' and 'persist', --force to 'persist', --margin to 'plan'" ]
expect "trace -o unknown column: exit 2 before anything" [ "$(rc_err "$THP" trace -o nope | cut -d'(' -f1)" = "2|thp: trace: unknown column 'nope' " ]
expect "collapse -o unknown column: exit 2 before anything" [ "$(rc_err "$THP" collapse $$ -o nope | cut -d'(' -f1)" = "2|thp: collapse: unknown column 'nope' " ]
# 'script' gives thp a terminal of 80 columns (on_tty); the widest line is
# measured in characters (an ellipsis is one), colour sequences none
if command -v script > /dev/null; then
	expect "ps -w on a terminal: wider than 80 with --notruncate" [ "$(on_tty "'$THP' --root $PX ps -w -o pid,command,cgroup,thp --notruncate" | widest)" -gt 80 ]
	expect_out "ps -w on an 80-column terminal: no line wider" "fits 80" on_tty "'$THP' --root $PX ps -w -o pid,command,cgroup,thp"
	expect "ps on a terminal: the cut text ends in an ellipsis" sh -c "LC_ALL=C.UTF-8 script -qc \"stty cols 80; '$THP' --root $PX ps -w -o pid,command,cgroup,thp\" /dev/null | grep -q '…'"
	mounts() { sed -n '/^hugetlbfs mounts/,/^$/p'; }
	expect "hugetlb mounts on a terminal: wider than 80 with --notruncate" [ "$(on_tty "'$THP' --root $HX hugetlb --notruncate" | mounts | widest)" -gt 80 ]
	expect_out "hugetlb mounts on an 80-column terminal: no line wider" "mounts | fits 80" on_tty "'$THP' --root $HX hugetlb"
	vmas() { sed -n '/^START-END/,$p'; }
	expect "show on a terminal: WHY is wrapped, so wider than 80 only with --notruncate" [ "$(on_tty "'$THP' --root $PX show 26828 -o start-end,mapping,thp,why --notruncate" | vmas | widest)" -gt 80 ]
	expect_out "show on an 80-column terminal: WHY wrapped onto more lines, none wider" "vmas | fits 80" on_tty "'$THP' --root $PX show 26828 -o start-end,mapping,thp,why"
	header() { sed '/^START-END/,$d'; }
	expect_out "show's header on an 80-column terminal: long values wrapped" "header | fits 80" on_tty "'$THP' --root $PX show 26828"
	expect "show's header piped: never wrapped" [ "$("$THP" --root $PX show 26828 | header | widest)" -gt 80 ]
	policy() { sed -n '/^Global policy/,/^$/p'; }
	expect_out "status settings on an 80-column terminal: long cells wrapped" "policy | fits 80" on_tty "'$THP' --root tests/fixtures/live-6.18 status"
	expect "status settings piped: never wrapped" [ "$("$THP" --root tests/fixtures/live-6.18 status | policy | widest)" -gt 80 ]
	# every table command's default output on fixtures, at 80 columns
	for c in "$PX ps" "$PX ps --all --totals" "$PX ps --by comm" "$PX show 26828 --all" "$FO show 4242 --folios" \
		"$FO ps --folios --by-size" "$HX hugetlb" "$PX hugetlb"; do
		expect_out "thp --root $c on an 80-column terminal: no line wider" "fits 80" on_tty "'$THP' --root $c"
	done
	expect_out "status of a 6.18 host on an 80-column terminal: no line wider" "fits 80" on_tty "'$THP' --root tests/fixtures/live-6.18 status"
	numa() { sed -n '/^NUMA nodes/,/^$/p'; }
	expect_out "status's NUMA table on an 80-column terminal: no line wider" "numa | fits 80" on_tty "'$THP' --root $HX status"
	expect "status's NUMA table: the column left out is named" sh -c "script -qc \"stty cols 80; '$THP' --root $HX status\" /dev/null | grep -q 'Not shown at this width: HUGETLB-FREE (a wider terminal or a pipe shows them)'"
	expect "ps piped: never cut" [ "$("$THP" --root $PX ps -w -o pid,command,cgroup,thp | widest)" -gt 80 ]
	# bench and ab measure the host: behind the live lock, stderr (a busy-host
	# warning) left out
	live_tty() { on_tty "flock -w 600 /tmp/thp-live.lock $* 2> /dev/null"; }
	expect "bench on a terminal: wider than 80 with --notruncate" [ "$(live_tty "'$THP' bench fault --size 4M -N 1 --notruncate" | widest)" -gt 80 ]
	live_tty "'$THP' bench fault --size 4M -N 1" > "$tmp/tty"
	expect_out "bench on an 80-column terminal: no line wider" "fits 80" cat "$tmp/tty"
	expect "bench on an 80-column terminal: the detail columns left out are named" grep -q '^  Not shown at this width: .*FAULT_ALLOC+' "$tmp/tty"
	expect "bench on an 80-column terminal: the answer columns kept" grep -qE '^  ARM .* TOUCH .*ANONHUGE .*FALLBACK\+ +COMPACT_STALL\+$' "$tmp/tty"
	expect_out "ab on an 80-column terminal: no line wider" "fits 80" live_tty "'$THP' ab -N 1 -m current,disabled -- true"
else
	skip "tables on a terminal: no 'script' (util-linux) here"
fi

# bench and ab: the counts moved to -N (-n is --noheadings, -r --raw), their
# columns from the descriptor, the charts left out of raw output
expect "ab -n 3 -- CMD (the old --runs): a usage error that says so" [ "$(rc_err "$THP" ab -n 3 -- true)" = "2|thp: ab: '3' is not a command; the runs per arm are -N N (-n is --noheadings)" ]
expect "bench -r 3 NAME (the old --reps): a usage error that names -N" [ "$(rc_err "$THP" bench -r 3 fault)" = "2|thp: bench: unknown experiment '3'; see 'thp bench --help' (the repetitions are -N N)" ]
expect "bench -o unknown column: exit 2 before anything" [ "$(rc_err "$THP" bench fault -o arm,nope | cut -d'(' -f1)" = "2|thp: bench: unknown column 'nope' " ]
expect "bench -o a column of another experiment: exit 2" [ "$(rc_err "$THP" bench fault -o per_load | cut -d'(' -f1)" = "2|thp: bench: unknown column 'per_load' " ]
expect "ab -o unknown column: exit 2 before anything" [ "$(rc_err "$THP" ab -o nope -- true | cut -d'(' -f1)" = "2|thp: ab: unknown column 'nope' " ]
expect "bench --help lists each experiment's columns" sh -c "'$THP' bench --help | sed -n '/^Columns of cow:/,/^\$/p' | grep -qE '^  WRITER_PRIVATE_DIRTY +what copy-on-write copied'"
expect "ab --help lists the columns" sh -c "'$THP' ab --help | grep -qE '^  ANONHUGE_PEAK +the most AnonHugePages'"
L="flock -w 600 /tmp/thp-live.lock"
$L "$THP" bench fault --size 4M -N 1 -r 2> /dev/null > "$tmp/bench"
expect "bench -r: raw rows" grep -qE '^MADV_HUGEPAGE yes 2 [0-9.]+\\x20[mu]s 4\\x20MiB 4\\x20MiB ' "$tmp/bench"
expect_absent "bench -r: no chart" 'median)$' cat "$tmp/bench"
expect "bench without -r: the chart" sh -c "$L '$THP' bench fault --size 4M -N 1 2> /dev/null | grep -qx '  TOUCH (median)'"
expect "bench -J without -o: thp-bench/3, every column of an arm" [ "$($L "$THP" bench fault --size 4M -N 1 -J 2> /dev/null | jq -c '[.schema, (.results[0].arms[] | [.arm, length, .touch.runs[0] > 0])]')" = '["thp-bench/3",["plain",9,true],["MADV_HUGEPAGE",9,true]]' ]
expect "bench -J -o: the values of those columns" [ "$($L "$THP" bench fault --size 4M -N 1 -J -o touch,anonhuge 2> /dev/null | jq -c '[.results[0].arms[] | keys_unsorted]')" = '[["touch","anonhuge"],["touch","anonhuge"]]' ]
$L "$THP" ab -N 1 -m current,disabled -r -- true 2> /dev/null > "$tmp/ab"
expect "ab -r: raw rows" grep -qE '^disabled [0-9.]+\\x20[mu]?s\\x20/\\x20' "$tmp/ab"
expect_absent "ab -r: no chart" 'median)$' cat "$tmp/ab"
$L "$THP" ab -N 1 -m current,disabled -J -- true 2> /dev/null > "$tmp/ab.json"
expect "ab -J without -o: wall_ratio and the dTLB keys as before" [ "$(jq -c '.arms[1] | [has("wall_ratio"), has("dtlb_mpki"), has("wall_overlaps_baseline")]' "$tmp/ab.json")" = '[true,true,true]' ]
expect "ab -J: thp-ab/3, the first arm's comparison null, every run's figures" [ "$(jq -c '[.schema, .arms[0].wall_ratio, .arms[0].wall_overlaps_baseline, (.arms[1].wall | keys), (.runs | length), (.runs[0] | keys_unsorted)]' "$tmp/ab.json")" = '["thp-ab/3",null,null,["max","median","min"],2,["round","arm","wall","user","sys","max_rss","minor_faults","anonhuge_peak","dtlb_misses","dtlb_mpki","exit"]]' ]
expect "ab -J -o: only those keys" [ "$($L "$THP" ab -N 1 -m current,disabled -J -o arm,wall_ratio -- true 2> /dev/null | jq -c '[.arms[] | keys_unsorted]')" = '[["arm","wall_ratio"],["arm","wall_ratio"]]' ]

# a kernel without THP (Debian's PREEMPT_RT 6.1): every bench experiment and
# ab mode says so and exits 1 before it starts, changing nothing; the kernel
# here has THP, so a mount namespace hides it under an empty tmpfs on
# /sys/kernel/mm
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
	# shellcheck disable=SC2016
	nothp() { unshare -m sh -c 'mount -t tmpfs none /sys/kernel/mm && exec "$@"' sh "$@"; }
	state() { ls -l --time-style=+%s.%N /run/thp 2>&1; cat /sys/kernel/mm/transparent_hugepage/enabled; }
	before=$(state)
	msg="thp: bench: this kernel has no THP (no /sys/kernel/mm/transparent_hugepage; built without CONFIG_TRANSPARENT_HUGEPAGE): there is nothing to measure"
	for x in fault bloat cow collapse khugepaged zeropage chase; do
		expect "bench $x without THP in the kernel: exit 1 and why, before it starts" [ "$(rc_err nothp "$THP" bench "$x" --size 4M -N 1 --timeout 1)" = "1|$msg" ]
	done
	expect "bench --modes without THP in the kernel: exit 1 and why" [ "$(rc_err nothp "$THP" bench fault --size 4M -N 1 --modes always,never)" = "1|$msg" ]
	expect_sh "bench without THP in the kernel: exit 1, why on standard error, nothing on standard output" \
		"out=\$(nothp '$THP' bench fault --size 4M -N 1 2> '$tmp/nothp.err'); [ \$? = 1 ] && [ -s '$tmp/nothp.err' ] && [ -z \"\$out\" ]"
	for m in always madvise never disabled current; do
		expect "ab -m $m without THP in the kernel: exit 1 and why, before it starts" [ "$(rc_err nothp "$THP" ab -N 1 -m "$m" -- true)" = "1|thp: ab${msg#thp: bench}" ]
	done
	expect "bench and ab without THP in the kernel: no journal written, the policy as it was" [ "$(state)" = "$before" ]
	expect "a usage error still comes first (exit 2)" [ "$(rc_err nothp "$THP" bench fault -o nope | cut -d'(' -f1)" = "2|thp: bench: unknown column 'nope' " ]
else
	skip "bench and ab on a kernel without THP: needs root and unshare -m (a mount namespace)"
fi

# the table options of every table command: the raw header of two columns A,B
# (B a size where the table has one), no header with -n, only A's key in the
# rows of -J -o A, B in bytes with -b; the options go where @ stands
hog=
if [ -n "$HOG" ] && [ "$(id -u)" = 0 ] && [ -f /sys/kernel/mm/transparent_hugepage/hpage_pmd_size ]; then
	hog_start "$HOG" 4
	hog=$hog_pid
fi
# tbl OPTIONS...: the standard output of thp with the spec's options
tbl() {
	# shellcheck disable=SC2086
	$L "$THP" ${spec%%@*} "$@" ${spec#*@} 2> /dev/null
}
for c in $cmds; do
	L= why=
	case $c in
	ps) spec="--root $PX ps @" cols=pid,rss key=pid rows=".processes[]" ;;
	show) spec="--root $PX show 26828 @" cols=perms,size key=perms rows=".vmas[]" ;;
	hugetlb) spec="--root $HX hugetlb --no-procs @" cols=in_use,memory key=in_use rows=".pools[]" ;;
	collapse)
		spec="collapse $hog @" cols=result,size key=result rows=".ranges[]" L="flock -w 600 /tmp/thp-live.lock"
		[ -n "$hog" ] || why="needs root, THP and the helper tests/live/hog.c (HOG)" ;;
	trace)
		spec="trace -d 0.2 @" cols=kind,stalls key=kind rows=".totals[]" L="flock -w 600 /tmp/thp-live.lock"
		[ "$(id -u)" = 0 ] || why="needs root" ;;
	bench)
		spec="bench fault --size 4M -N 1 @" cols=arm,rss key=arm L="flock -w 600 /tmp/thp-live.lock"
		rows='.results[].arms[]' ;;
	ab) spec="ab -N 1 -m current @ -- true" cols=arm,max_rss key=arm rows=".arms[]" L="flock -w 600 /tmp/thp-live.lock" ;;
	*) continue ;;
	esac
	if [ -n "$why" ]; then
		skip "$c: the table options: $why"
		continue
	fi
	hdr=$(echo "$cols" | tr 'a-z,' 'A-Z ')
	expect "$c --help lists the column ${hdr%% *}" sh -c "'$THP' $c --help | grep -qE '^  ${hdr%% *} +[a-z]'"
	tbl -r -o "$cols" > "$tmp/t"
	expect "$c -r -o $cols: the raw header '$hdr'" grep -qx "$hdr" "$tmp/t"
	tbl -n -r -o "$cols" > "$tmp/t"
	expect_absent "$c -n: no header" "^$hdr\$" cat "$tmp/t"
	expect "$c -n -r: the rows" grep -qE '^[^ ]+ [^ ]+$' "$tmp/t"
	tbl -J -o "${cols%%,*}" > "$tmp/t"
	expect "$c -J -o ${hdr%% *}: only the key $key in the rows" [ "$(jq -c "[$rows | keys] | unique" "$tmp/t")" = "[[\"$key\"]]" ]
	tbl -b -n -r -o "$cols" > "$tmp/t"
	expect "$c -b: ${hdr#* } in bytes" grep -qE '^[^ ]+ [0-9]+$' "$tmp/t"
done
[ -n "$hog" ] && hog_stop

summary cli
