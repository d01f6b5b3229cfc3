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
		ok
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

rc_of() { "$@" > "$tmp/o" 2> "$tmp/e"; echo $?; }
expect "report without FILE: exit 2" [ "$(rc_of "$THP" report)" = 2 ]
expect "report --group-by host: exit 2" [ "$(rc_of "$THP" report --group-by host "$J/rhel6.status.json")" = 2 ]
expect "report --group-by host names the choice" grep -q "invalid --group-by 'host' (policy)" "$tmp/e"
expect "nothing readable: exit 1" [ "$(rc_of "$THP" report "$tmp/ps.json")" = 1 ]
expect "a skipped file is not fatal: exit 0" [ "$(rc_of "$THP" report "$tmp/ps.json" "$J/rhel6.status.json")" = 0 ]
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
expect "documents one after another in one file" sh -c "'$THP' report '$tmp/all.json' | cmp -s - '$tmp/want'"
expect "documents in a JSON array" sh -c "'$THP' report '$tmp/array.json' | cmp -s - '$tmp/want'"
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
            else:
                i.size = len(data)
                t.addfile(i, io.BytesIO(data))
arc("link.tar.gz", [("c/proc", "link", d + "/outside"), ("c/proc/meminfo", "file", b"x")])
arc("hard.tar.gz", [("c/proc/meminfo", "hard", "/etc/passwd")])
arc("abs.tar.gz", [(d + "/outside/abs", "file", b"x")])
arc("climb.tar.gz", [("c/../../outside-climb", "file", b"x")])
arc("big.tar.gz", [("c/proc/meminfo", "file", b"\0" * (17 << 20))])
# a compression thp does not name (libarchive has more decoders, some of them external programs)
with tarfile.open("%s/bzip2.tar" % d, "w:bz2") as t:
    t.add("tests/fixtures/doctor-jemalloc", "c")
EOP
mkfifo "$tmp/fifo.tar.gz"
mkdir -p "$tmp/outside"
for a in link hard abs climb big bzip2.tar fifo; do
	case $a in *.tar) ;; *) a=$a.tar.gz ;; esac
	expect "hostile archive $a: skipped, exit 1" [ "$(rc_of timeout 20 "$THP" report "$tmp/$a")" = 1 ]
	expect "hostile archive $a: the reason is named" grep -q "^thp: report: $tmp/$a: .*; skipped$" "$tmp/e"
done
expect "a FIFO named like an archive is not waited on" grep -q "fifo.tar.gz: it is not a regular file; skipped" "$tmp/e"
for a in link hard abs climb big bzip2.tar fifo; do
	case $a in *.tar) ;; *) a=$a.tar.gz ;; esac
	expect "hostile archive $a as --root: refused, exit 1" [ "$(rc_of timeout 20 "$THP" --root "$tmp/$a" status)" = 1 ]
done
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
expect "12 runs killed by SIGTERM while reading archives: no unpacked directory left" [ -z "$(ls -A "$tmp/killed")" ]
# --root ARCHIVE: the unpacked tree lives as long as thp, even one killed by SIGKILL
mkdir "$tmp/x" "$tmp/killed9"
tar -xzf "$tmp/jemalloc.tar.gz" -C "$tmp/x"
"$THP" --root "$tmp/x/jemalloc" doctor > "$tmp/want" 2>&1
expect "--root ARCHIVE: doctor as on the unpacked directory" sh -c "'$THP' --root '$tmp/jemalloc.tar.gz' doctor 2>&1 | cmp -s '$tmp/want' -"
TMPDIR=$tmp/killed9 "$THP" --root "$tmp/jemalloc.tar.gz" watch -i 1 > /dev/null 2>&1 &
p=$!
i=0
while [ -z "$(ls -A "$tmp/killed9")" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect "--root ARCHIVE: unpacked while thp runs" [ -n "$(ls -A "$tmp/killed9")" ]
kill -KILL "$p"
wait "$p" 2> /dev/null
i=0
while [ -n "$(ls -A "$tmp/killed9")" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect "--root ARCHIVE, thp killed by SIGKILL: the unpacked tree is removed after it" [ -z "$(ls -A "$tmp/killed9")" ]
expect "hostile archives wrote nothing outside" [ -z "$(ls -A "$tmp/outside")" ]
expect "hostile archives: no climbing file in the temporary directory's parent" [ ! -e "$tmp/outside-climb" ]
expect "hostile archives: no climbing file beside the unpacked directory" [ ! -e "$tmp/t/outside-climb" ]
expect "every unpacked directory is removed" [ -z "$(ls -A "$tmp/t")" ]
summary report
