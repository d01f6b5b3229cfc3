#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# thp report over recorded hosts: the status and doctor JSON of several
# fixtures made here, capture directories and archives, and files that are
# not thp JSON or are hostile. Golden outputs are tests/expected/report/*.out
# (THP_REGEN=1 rewrites them); temporary paths show as TMP in them.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
E=tests/expected/report
J=$tmp/json
mkdir -p "$J" "$tmp/t"
export TMPDIR=$tmp/t

# the fleet: status and doctor documents of these recorded hosts
fleet="live-6.18 debian-6.12-madvise always-always doctor-redis-thp-on doctor-mongo8 doctor-persist-drift
	doctor-hugetlb-unused doctor-fragmented-always linux-4.19 linux-5.15 rhel6 no-thp"
for fx in $fleet; do
	"$THP" --root "tests/fixtures/$fx" status --json > "$J/$fx.status.json"
	"$THP" --root "tests/fixtures/$fx" doctor --json > "$J/$fx.doctor.json"
done
"$THP" --root tests/fixtures/doctor-jemalloc capture -o "$tmp/jemalloc.tar.gz" > /dev/null
echo '{"schema": "thp-ps/1", "processes": []}' > "$tmp/ps.json"
printf '{"schema": "thp-status/1", "settings": [' > "$tmp/cut.json"
echo 'enabled=never' > "$tmp/state.txt"

# golden NAME ARGS...: stdout and stderr of 'thp ARGS', then the exit status
# when not 0, must equal $E/NAME.out
golden() {
	name=$1
	shift
	{ COLUMNS=200 "$THP" "$@" 2>&1; rc=$?; [ "$rc" -eq 0 ] || echo "[exit $rc]"; } | sed "s|$tmp|TMP|g" > "$tmp/out"
	if [ -n "${THP_REGEN:-}" ]; then
		mkdir -p "$E"
		cp "$tmp/out" "$E/$name.out"
		ok
	elif diff -u "$E/$name.out" "$tmp/out" > "$tmp/diff"; then
		ok "report golden $name"
	else
		bad "report golden $name"
		head -40 "$tmp/diff"
	fi
}
golden table report "$J"/*.json
golden group report --group-by policy "$J"/*.json
golden json report --json "$J"/*.json
golden bytes report --bytes "$J"/always-always.status.json "$J"/rhel6.status.json
golden mixed report tests/fixtures/doctor-jvm "$tmp/jemalloc.tar.gz" "$J/no-thp.status.json" \
	"$tmp/ps.json" "$tmp/cut.json" "$tmp/state.txt" "$tmp/missing.json" tests/fixtures
golden none report "$tmp/ps.json" "$tmp/cut.json"
# eight web servers from one recorded host; one of them drifts
mkdir -p "$tmp/web"
for i in 1 2 3 4 5 6 7; do
	jq ".host = \"web$i\"" "$J/live-6.18.status.json" > "$tmp/web/web$i.json"
done
jq '.host = "web8" | (.settings[] | select(.name == "defrag") | .value) = "always"' "$J/live-6.18.status.json" > "$tmp/web/web8.json"
golden fleet report --group-by policy "$tmp/web"/*.json

# rc_of CMD...: CMD's exit status (", no output" added when it printed nothing)
rc_of() {
	"$@" > "$tmp/o" 2> "$tmp/e"
	_rc=$?
	[ -s "$tmp/o" ] || [ -s "$tmp/e" ] || _rc="$_rc, no output"
	echo "$_rc"
}
expect "report without FILE: exit 2" [ "$(rc_of "$THP" report)" = 2 ]
expect "report --group-by host: exit 2" [ "$(rc_of "$THP" report --group-by host "$J/rhel6.status.json")" = 2 ]
expect "report --group-by host names the choice" grep -q "invalid --group-by 'host' (policy)" "$tmp/e"
expect "nothing readable: exit 1" [ "$(rc_of "$THP" report "$tmp/ps.json")" = 1 ]
expect "a skipped file is not fatal: exit 0, the other host reported" [ "$(rc_of "$THP" report "$tmp/ps.json" "$J/rhel6.status.json")|$(grep -c '^rhel6 ' "$tmp/o")" = "0|1" ]
expect "a skipped file is named on stderr" grep -q "^thp: report: $tmp/ps.json: a 'thp-ps/1' document, not thp status or doctor JSON; skipped$" "$tmp/e"
: > "$tmp/empty.json"
mkfifo "$tmp/fifo.json"
expect "an empty file and a FIFO: skipped, exit 1" [ "$(rc_of timeout 20 "$THP" report "$tmp/empty.json" "$tmp/fifo.json")" = 1 ]
expect "an empty file is named" grep -q "^thp: report: $tmp/empty.json: empty (no JSON document in it); skipped$" "$tmp/e"
expect "a FIFO is named, not waited on" grep -q "^thp: report: $tmp/fifo.json: not a regular file; skipped$" "$tmp/e"
# the same documents one after another in one file, or as a JSON array: the same hosts
cat "$J"/*.json > "$tmp/all.json"
jq -s . "$J"/*.json > "$tmp/array.json"
"$THP" report "$J"/*.json > "$tmp/want"
expect_out "documents one after another in one file" "cmp -s - '$tmp/want'" "$THP" report "$tmp/all.json"
expect_out "documents in a JSON array" "cmp -s - '$tmp/want'" "$THP" report "$tmp/array.json"
expect "--json: one host per status and doctor pair" sh -c "'$THP' --json report '$tmp/all.json' | jq -e '(.hosts | length) == 12 and ([.hosts[] | select(.doctor_source == null or .status_source == null)] | length) == 0' > /dev/null"
expect "--json: groups cover every host once" sh -c "'$THP' report --json '$tmp/all.json' | jq -e '([.groups[].hosts[]] | length) == 12' > /dev/null"
# the live host, by every route: JSON documents and a capture archive
"$THP" status --json > "$tmp/live.status.json"
"$THP" capture --no-procs -o "$tmp/live.tar.gz" > /dev/null
expect "the live host's JSON names it by its host name" sh -c "'$THP' report --json '$tmp/live.status.json' | jq -e --arg h \"\$(cat /proc/sys/kernel/hostname)\" '.hosts[0].host == \$h' > /dev/null"
expect "its capture archive too" sh -c "'$THP' report --json '$tmp/live.tar.gz' | jq -e --arg h \"\$(cat /proc/sys/kernel/hostname)\" '.hosts[0].host == \$h and .hosts[0].findings != null' > /dev/null"

# hostile archives: refused whole, nothing written outside, nothing left behind
/usr/bin/python3 - "$tmp" << 'EOP'
import io, sys, tarfile
d = sys.argv[1]
def arc(name, entries):
    with tarfile.open("%s/%s" % (d, name), "w:gz") as t:
        for n, kind, data in entries:
            i = tarfile.TarInfo(n)
            if kind == "link":
                i.type, i.linkname = tarfile.SYMTYPE, data
                t.addfile(i)
            elif kind == "hard":
                i.type, i.linkname = tarfile.LNKTYPE, data
                t.addfile(i)
            elif kind == "dir":
                i.type = tarfile.DIRTYPE
                t.addfile(i)
            else:
                i.size = len(data)
                t.addfile(i, io.BytesIO(data))
arc("link.tar.gz", [("c/proc", "link", d + "/outside"), ("c/proc/meminfo", "file", b"x")])
arc("hard.tar.gz", [("c/proc/meminfo", "hard", "/etc/passwd")])
arc("abs.tar.gz", [(d + "/outside/abs", "file", b"x")])
arc("climb.tar.gz", [("c/../../outside-climb", "file", b"x")])
arc("big.tar.gz", [("c/proc/meminfo", "file", b"\0" * (17 << 20))])
# two entries for one path: a file, then a file below it; a directory, then a file
arc("dupfile.tar.gz", [("c/proc", "file", b"x"), ("c/proc/meminfo", "file", b"x")])
arc("dupdir.tar.gz", [("c/proc", "dir", b""), ("c/proc", "file", b"x")])
# a compression thp does not name (libarchive has more decoders, some of them external programs)
with tarfile.open("%s/bzip2.tar" % d, "w:bz2") as t:
    t.add("tests/fixtures/doctor-jemalloc", "c")
EOP
mkfifo "$tmp/fifo.tar.gz"
mkdir -p "$tmp/outside"
for a in link hard abs climb big dupfile dupdir bzip2.tar fifo; do
	case $a in *.tar) ;; *) a=$a.tar.gz ;; esac
	expect "hostile archive $a: skipped, exit 1" [ "$(rc_of timeout 20 "$THP" report "$tmp/$a")" = 1 ]
	expect "hostile archive $a: the reason is named" grep -q "^thp: report: $tmp/$a: .*; skipped$" "$tmp/e"
done
expect "a FIFO named like an archive is not waited on" grep -q "fifo.tar.gz: it is not a regular file; skipped" "$tmp/e"
for a in link hard abs climb big dupfile dupdir bzip2.tar fifo; do
	case $a in *.tar) ;; *) a=$a.tar.gz ;; esac
	expect "hostile archive $a as --root: refused, exit 1" [ "$(rc_of timeout 20 "$THP" --root "$tmp/$a" status)" = 1 ]
done
expect "a file below an earlier file entry: the entry is named" \
	[ "$(rc_of "$THP" --root "$tmp/dupfile.tar.gz" status; cat "$tmp/e")" = "1
thp: cannot unpack capture archive '$tmp/dupfile.tar.gz': entry 'c/proc/meminfo' needs a directory where an earlier entry is a file" ]
expect "a file where an earlier entry is a directory: the entry is named" \
	[ "$(rc_of "$THP" report "$tmp/dupdir.tar.gz"; head -1 "$tmp/e")" = "1
thp: report: $tmp/dupdir.tar.gz: entry 'c/proc' is a file where an earlier entry is a directory; skipped" ]
# a temporary directory that cannot be made: said so, the archive is not blamed
expect "TMPDIR missing: --root ARCHIVE says where it could not unpack" \
	[ "$(rc_of env TMPDIR="$tmp/none" "$THP" --root "$tmp/jemalloc.tar.gz" status; cat "$tmp/e")" = "1
thp: cannot unpack capture archive '$tmp/jemalloc.tar.gz': cannot make a directory to unpack it in '$tmp/none' (TMPDIR): No such file or directory" ]
expect "TMPDIR missing: report ARCHIVE says where it could not unpack" \
	[ "$(rc_of env TMPDIR="$tmp/none" "$THP" report "$tmp/jemalloc.tar.gz"; head -1 "$tmp/e")" = "1
thp: report: $tmp/jemalloc.tar.gz: cannot make a directory to unpack it in '$tmp/none' (TMPDIR): No such file or directory; skipped" ]
# gone DIR TENTHS: waits at most TENTHS tenths of a second for DIR to be
# empty (the process that removes an unpacked tree runs after thp)
gone() {
	_i=0
	while [ -n "$(ls -A "$1")" ] && [ $_i -lt "$2" ]; do sleep 0.1; _i=$((_i + 1)); done
}
# SIGTERM at random moments while archives are read: the unpacked directory goes too
mkdir "$tmp/killed"
n=0
while [ $n -lt 12 ]; do
	TMPDIR=$tmp/killed "$THP" report "$tmp/jemalloc.tar.gz" "$tmp/jemalloc.tar.gz" "$tmp/jemalloc.tar.gz" > /dev/null 2>&1 &
	p=$!
	sleep "0.$(awk -v s="$n" 'BEGIN { srand(s); printf "%02d", rand() * 30 + 5 }')"
	kill -TERM "$p" 2> /dev/null
	wait "$p" 2> /dev/null
	n=$((n + 1))
done
gone "$tmp/killed" 100
expect "12 runs killed by SIGTERM while reading archives: no unpacked directory left (once their removers ran)" [ -z "$(ls -A "$tmp/killed")" ]
# --root ARCHIVE: the unpacked tree lives as long as thp, even one killed by SIGKILL
mkdir "$tmp/x" "$tmp/killed9"
tar -xzf "$tmp/jemalloc.tar.gz" -C "$tmp/x"
"$THP" --root "$tmp/x/jemalloc" doctor > "$tmp/want" 2>&1
expect_out "--root ARCHIVE: doctor as on the unpacked directory" "cmp -s '$tmp/want' -" sh -c "'$THP' --root '$tmp/jemalloc.tar.gz' doctor 2>&1"
TMPDIR=$tmp/killed9 "$THP" --root "$tmp/jemalloc.tar.gz" watch -i 1 > /dev/null 2>&1 &
p=$!
i=0
while [ -z "$(ls -A "$tmp/killed9")" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect "--root ARCHIVE: unpacked while thp runs" [ -n "$(ls -A "$tmp/killed9")" ]
kill -KILL "$p"
wait "$p" 2> /dev/null
gone "$tmp/killed9" 100
expect "--root ARCHIVE, thp killed by SIGKILL: the unpacked tree is removed after it" [ -z "$(ls -A "$tmp/killed9")" ]

# an archive of 200,000 entries, the most thp unpacks (a minute or more to
# unpack): SIGINT and SIGTERM end thp within a second during the unpack, and
# SIGKILL too leaves nothing behind once the remover has run
/usr/bin/python3 - "$tmp/many.tar" tests/fixtures/always-always << 'EOP'
import io, os, sys, tarfile
with tarfile.open(sys.argv[1], "w") as t:
    n = 0
    for top, dirs, files in os.walk(sys.argv[2]):
        for p in [top] + [os.path.join(top, f) for f in files]:
            t.add(p, os.path.normpath("c/" + os.path.relpath(p, sys.argv[2])), recursive=False)
            n += 1
    dir_, file_ = tarfile.TarInfo(), tarfile.TarInfo()
    dir_.type, dir_.mode, file_.mode, file_.size = tarfile.DIRTYPE, 0o700, 0o600, 2
    for i in range(200000 - n):
        if i % 10 == 0:
            dir_.name = "c/proc/%d" % (100000 + i // 10)
            t.addfile(dir_)
        else:
            file_.name = "c/proc/%d/f%d" % (100000 + i // 10, i % 10)
            t.addfile(file_, io.BytesIO(b"x\n"))
EOP
mkdir "$tmp/sig"
# the goal is a second (the figures are printed); a check fails only when the
# signal clearly waited for the work to end (a minute for the archive), so a
# loaded machine does not fail it
sig_max=5
# sig_during SIGNAL CMD...: runs thp CMD (SIGINT at its default, as in a
# terminal) with TMPDIR $tmp/sig, where it unpacks (or CMD writes), and sends
# it SIGNAL a second after something appeared there (or, with sig_ready set
# to a command, as soon as that command succeeds); sets sig_rc (its exit
# status, "-" when it ran on for 10 s and was killed), sig_s (seconds from
# the signal to its end, ">10" then) and sig_left (what is left in $tmp/sig:
# "none" once the remover has run, within 60 s)
sig_during() {
	_sig=$1
	shift
	TMPDIR=$tmp/sig env --default-signal=INT "$THP" "$@" > /dev/null 2>&1 &
	_p=$!
	gone_i=0
	if [ -n "${sig_ready:-}" ]; then
		while ! $sig_ready && [ $gone_i -lt 1000 ]; do sleep 0.01; gone_i=$((gone_i + 1)); done
	else
		while [ -z "$(ls -A "$tmp/sig")" ] && [ $gone_i -lt 100 ]; do sleep 0.1; gone_i=$((gone_i + 1)); done
		sleep 1
	fi
	_t0=$(date +%s%N)
	kill -"$_sig" "$_p"
	while ps -o stat= -p "$_p" | grep -qv Z && [ "$(date +%s%N)" -lt $((_t0 + 10000000000)) ]; do
		sleep 0.02
	done
	sig_s=$(awk -v a="$_t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
	sig_rc=-
	ps -o stat= -p "$_p" | grep -qv Z && kill -KILL "$_p" && sig_s=">10"
	wait "$_p" 2> /dev/null
	_rc=$?
	[ "$sig_s" = ">10" ] || sig_rc=$_rc
	gone "$tmp/sig" 600
	sig_left=$(ls -A "$tmp/sig")
	sig_left=${sig_left:-none}
	rm -rf "${tmp:?}/sig/"*
}
sig_during INT --root "$tmp/many.tar" status
echo "SIGINT to exit during the unpack of 200,000 entries: --root $sig_s s"
expect "--root ARCHIVE of 200,000 entries: SIGINT during the unpack ends thp (exit 130) within $sig_max s (exit $sig_rc after $sig_s s)" \
	awk -v rc="$sig_rc" -v s="$sig_s" -v max="$sig_max" 'BEGIN { exit !(rc == 130 && s < max) }'
expect "--root ARCHIVE, SIGINT during the unpack: nothing left behind (left: $sig_left)" [ "$sig_left" = none ]
sig_during TERM report "$tmp/many.tar"
echo "SIGTERM to exit during the unpack of 200,000 entries: report $sig_s s"
expect "report ARCHIVE of 200,000 entries: SIGTERM during the unpack ends thp (exit 143) within $sig_max s (exit $sig_rc after $sig_s s)" \
	awk -v rc="$sig_rc" -v s="$sig_s" -v max="$sig_max" 'BEGIN { exit !(rc == 143 && s < max) }'
expect "report ARCHIVE, SIGTERM during the unpack: nothing left behind (left: $sig_left)" [ "$sig_left" = none ]
sig_during INT report "$tmp/many.tar"
echo "SIGINT to exit during the unpack of 200,000 entries: report $sig_s s"
expect "report ARCHIVE of 200,000 entries: SIGINT during the unpack ends thp (exit 130) within $sig_max s (exit $sig_rc after $sig_s s)" \
	awk -v rc="$sig_rc" -v s="$sig_s" -v max="$sig_max" 'BEGIN { exit !(rc == 130 && s < max) }'
sig_during KILL report "$tmp/many.tar"
expect "report ARCHIVE killed by SIGKILL during the unpack: nothing left behind (left: $sig_left)" [ "$sig_left" = none ]
# a capture of a tree with 4,000 processes (about 12,000 files, seconds to
# record): SIGINT ends it within a second, and its staging directory goes
cp -a tests/fixtures/always-always "$tmp/procs"
/usr/bin/python3 - "$tmp/procs/proc" << 'EOP'
import os, sys
src = os.path.join(sys.argv[1], "1044")
files = {f: open(os.path.join(src, f), "rb").read() for f in os.listdir(src)}
for pid in range(100000, 104000):
    os.mkdir(os.path.join(sys.argv[1], str(pid)))
    for f, data in files.items():
        with open(os.path.join(sys.argv[1], str(pid), f), "wb") as o:
            o.write(data)
EOP
# SIGINT and SIGKILL go once 100 processes are recorded: mid-capture however fast
# the machine records
capture_started() {
	set -- "$tmp"/sig/.thp-capture*/*/proc/*
	[ $# -ge 100 ]
}
sig_ready=capture_started
sig_during INT --root "$tmp/procs" capture -o "$tmp/sig/cap.tar.gz"
echo "SIGINT to exit during a capture of 4,000 processes: $sig_s s"
expect "capture of 4,000 processes: SIGINT while it records ends thp (exit 130) within $sig_max s (exit $sig_rc after $sig_s s)" \
	awk -v rc="$sig_rc" -v s="$sig_s" -v max="$sig_max" 'BEGIN { exit !(rc == 130 && s < max) }'
expect "capture ended by SIGINT: no archive and no staging directory left (left: $sig_left)" [ "$sig_left" = none ]
sig_during KILL --root "$tmp/procs" capture -o "$tmp/sig/cap.tar.gz"
expect "capture killed by SIGKILL while it records: its staging directory is removed after it (left: $sig_left)" [ "$sig_left" = none ]
# SIGKILL once the archive's temporary file is there (beside the archive or
# in the staging directory), while it is packed: nothing of it stays
capture_packing() {
	set -- "$tmp"/sig/.cap.tar.gz.* "$tmp"/sig/.thp-capture*/.cap.tar.gz.*
	[ -e "$1" ] || [ -e "$2" ] || return 1
	packing=seen
}
packing=unseen
sig_ready=capture_packing
sig_during KILL --root "$tmp/procs" capture -o "$tmp/sig/cap.tar.gz"
sig_ready=
expect "capture killed by SIGKILL while it packs: it was packing (the archive's temporary file was $packing)" [ "$packing" = seen ]
expect "capture killed by SIGKILL while it packs: its temporary file is removed after it (left: $sig_left)" [ "$sig_left" = none ]
expect "hostile archives wrote nothing outside" [ -z "$(ls -A "$tmp/outside")" ]
expect "hostile archives: no climbing file in the temporary directory's parent" [ ! -e "$tmp/outside-climb" ]
expect "hostile archives: no climbing file beside the unpacked directory" [ ! -e "$tmp/t/outside-climb" ]
expect "every unpacked directory is removed" [ -z "$(ls -A "$tmp/t")" ]
summary report
