#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every file thp writes (capture -o, metrics --textfile, set --save, the state
# in run/thp, persist -o) against hostile targets: a symbolic link to a file
# outside, a FIFO, a directory, /dev/full and /dev/stdout. Each is refused
# with exit 1 and a clear message; nothing outside is written or replaced and
# no temporary file is left. Modes hold whatever the umask, no missing
# directory is created, and SIGTERM at random moments leaves no temporary file.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 1' INT TERM
FX=tests/fixtures/live-6.18
R=$tmp/root
O=$tmp/out
secret=$tmp/secret
echo "a file outside: never written" > "$secret"
# a copy of the fixture with the directories a host has
fresh() { rm -rf "$R"; cp -a "$FX" "$R"; mkdir -p "$R/run" "$R/etc/tmpfiles.d" "$R/etc/systemd/system"; }
fresh

# the writers, in a file that the private /dev below sources too: write WRITER TARGET
mkdir "$tmp/lib"
cat > "$tmp/lib/write.sh" << 'EOF'
thp() { timeout 20 "$THP" --root "$R" "$@"; }
write() {
	case $1 in
	metrics) thp metrics --top 0 --textfile "$2" ;;
	capture | capture-dir) thp capture --no-procs -o "$2" ;;
	save) thp set --save "$2" ;;
	set-save) thp set --save "$2" enabled=never ;;
	persist) thp persist -o "$2" ;;
	esac
}
EOF
export THP R
. "$tmp/lib/write.sh"
writers="metrics capture capture-dir save set-save persist"
target_of() { case $1 in capture) echo "$O/t.tar.gz" ;; *) echo "$O/t" ;; esac; }

# plant KIND PATH: what waits at the target
plant() {
	case $1 in
	link) ln -s "$secret" "$2" ;;
	dangling) ln -s "$tmp/made-through-link" "$2" ;;
	fifo) mkfifo "$2" ;;
	dir) mkdir "$2" && echo keep > "$2/keep" ;;
	esac
}
# intact KIND PATH: the planted thing is still there as it was
intact() {
	case $1 in
	link) [ -L "$2" ] && [ "$(readlink "$2")" = "$secret" ] ;;
	dangling) [ -L "$2" ] && [ ! -e "$tmp/made-through-link" ] ;;
	fifo) [ -p "$2" ] ;;
	dir) [ -d "$2" ] && [ "$(ls -A "$2")" = keep ] ;;
	esac
}
why_of() {
	case $1 in
	link | dangling) echo "symbolic link" ;;
	fifo) echo "not a regular file" ;;
	dir) echo "directory" ;;
	esac
}

# (a refused write changes nothing, so one copy of the fixture serves them all)
for w in $writers; do
	for k in link dangling fifo dir; do
		rm -rf "$O" && mkdir "$O"
		t=$(target_of "$w")
		plant "$k" "$t"
		write "$w" "$t" > "$tmp/o" 2> "$tmp/e" < /dev/null
		rc=$?
		what="$w onto a $k"
		expect "$what: exit 1" [ "$rc" = 1 ]
		case $w in
		capture-dir) expect "$what: says it exists" grep -q "^thp: .*it exists" "$tmp/e" ;;
		*) expect "$what: says why" grep -Eq "^thp: [a-z]+: cannot .*$(why_of "$k")" "$tmp/e" ;;
		esac
		expect "$what: the target is left as it was" intact "$k" "$t"
		expect "$what: the file outside is unchanged" grep -qx "a file outside: never written" "$secret"
		expect "$what: no temporary file" [ "$(ls -A "$O")" = "$(basename "$t")" ]
		expect "$what: nothing else written" [ "$(ls -A "$tmp" | sort | tr '\n' ' ')" = "e lib o out root secret " ]
	done
done

# /dev/full and /dev/stdout as targets, in a private /dev: refused, never replaced
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
	for w in metrics capture set-save persist; do
		for dev in full stdout; do
			t=/dev/$dev
			[ "$w" = capture ] && t=/dev/$dev.tar.gz
			what="$w onto /dev/$dev"
			# shellcheck disable=SC2016
			unshare -m sh -c '
				mount -t tmpfs -o mode=755 none /dev || exit 9
				mknod -m 666 /dev/full c 1 7 && mknod -m 666 /dev/null c 1 3 &&
				ln -s /proc/self/fd/1 /dev/stdout && ln -s /dev/full /dev/full.tar.gz &&
				ln -s /proc/self/fd/1 /dev/stdout.tar.gz || exit 9
				. "$3/lib/write.sh"
				write "$1" "$2" > "$3/o" 2> "$3/e" < /dev/null
				echo $? > "$3/rc"
				ls -A /dev | tr "\n" " " > "$3/devls"
				[ -c /dev/full ] && [ "$(readlink /dev/stdout)" = /proc/self/fd/1 ] && echo intact > "$3/intact"
			' sh "$w" "$t" "$tmp"
			if [ $? = 9 ]; then
				skip "$what: cannot mount a private /dev here"
				continue
			fi
			expect "$what: exit 1" [ "$(cat "$tmp/rc")" = 1 ]
			expect "$what: says why" grep -qE "^thp: [a-z]+: cannot .*(symbolic link|not a regular file)" "$tmp/e"
			expect "$what: /dev/full and /dev/stdout are left as they were" [ -f "$tmp/intact" ]
			expect "$what: no temporary file" [ "$(cat "$tmp/devls")" = "full full.tar.gz null stdout stdout.tar.gz " ]
			rm -f "$tmp/rc" "$tmp/intact" "$tmp/devls"
		done
	done
else
	skip "/dev/full and /dev/stdout targets: need root and a private mount namespace"
fi

# no missing directory is created for a file the user names
for w in $writers; do
	rm -rf "$tmp/none"
	t=$tmp/none/sub/$(basename "$(target_of "$w")")
	write "$w" "$t" > "$tmp/o" 2> "$tmp/e"
	expect "$w into a missing directory: exit 1" [ $? = 1 ]
	expect "$w into a missing directory: says so" grep -Eq "^thp: [a-z]+: cannot .*No such file or directory" "$tmp/e"
	expect "$w into a missing directory: creates none" [ ! -e "$tmp/none" ]
done
fresh
rm -rf "$R/etc/tmpfiles.d"
expect_exit "persist without /etc/tmpfiles.d: exit 1" 1 "$THP" --root "$R" persist > /dev/null 2> "$tmp/e"
expect "persist without /etc/tmpfiles.d: says so" grep -qx "thp: persist: cannot write '$R/etc/tmpfiles.d/thp.conf': No such file or directory (thp creates no directory for it); nothing was changed" "$tmp/e"
expect "persist without /etc/tmpfiles.d: creates none" [ ! -e "$R/etc/tmpfiles.d" ]

# modes whatever the umask; a regular file is replaced
for mask in 000 077; do
	fresh
	rm -rf "$O" && mkdir "$O"
	echo old > "$O/m"
	(umask $mask && write metrics "$O/m" && write save "$O/s" && write persist "$O/p" &&
		write capture "$O/c.tar.gz" && write capture-dir "$O/d" && thp set enabled=never) > /dev/null
	expect "umask $mask: every write succeeds" [ $? = 0 ]
	expect_sh "umask $mask: metrics textfile 0644 (the file written)" "grep -q '^# HELP' '$O/m' && [ \"\$(stat -c %a '$O/m')\" = 644 ]"
	expect "umask $mask: metrics textfile replaced" grep -q "^# HELP" "$O/m"
	expect "umask $mask: saved state 0600" [ "$(stat -c %a "$O/s")" = 600 ]
	expect "umask $mask: persist file 0644" [ "$(stat -c %a "$O/p")" = 644 ]
	expect "umask $mask: capture archive 0600" [ "$(stat -c %a "$O/c.tar.gz")" = 600 ]
	expect "umask $mask: capture directory 0700" [ "$(stat -c %a "$O/d")" = 700 ]
	expect_sh "umask $mask: captured files 0600" "[ -s '$O/d/proc/meminfo' ] && [ \"\$(find '$O/d' -type f ! -perm 600 | wc -l)\" = 0 ]"
	expect_sh "umask $mask: captured directories 0700" "[ -d '$O/d/proc' ] && [ \"\$(find '$O/d' -type d ! -perm 700 | wc -l)\" = 0 ]"
	expect "umask $mask: run/thp 0700" [ "$(stat -c %a "$R/run/thp")" = 700 ]
	expect "umask $mask: run/thp/saved.state 0600" [ "$(stat -c %a "$R/run/thp/saved.state")" = 600 ]
	expect "umask $mask: nothing else in the directory" [ "$(ls -A "$O" | tr '\n' ' ')" = "c.tar.gz d m p s " ]
done
expect "capture -o DIR/ names DIR" sh -c "'$THP' --root '$R' capture --no-procs -o '$O/slash/' > /dev/null && [ -f '$O/slash/proc/meminfo' ]"

# the state directory: refused unless it is thp's own
state_case() { # state_case WHAT SETUP...: a set whose run/thp was made by SETUP is refused
	what=$1
	shift
	rm -rf "$R/run/thp"
	"$@"
	"$THP" --root "$R" set enabled=never > "$tmp/o" 2> "$tmp/e"
	expect "run/thp $what: exit 1" [ $? = 1 ]
	# (the writers' lock, in run/thp, is the first thing a set takes there)
	expect "run/thp $what: says why" grep -q "^thp: set: \(cannot take the lock '.*/run/thp/lock'\|cannot save the previous state\).*nothing was changed" "$tmp/e"
	expect "run/thp $what: nothing changed" grep -q '^always \[madvise\] never$' "$R/sys/kernel/mm/transparent_hugepage/enabled"
}
fresh
mkdir "$tmp/elsewhere"
state_case "a link to a directory outside" ln -s "$tmp/elsewhere" "$R/run/thp"
expect "run/thp a link: nothing written outside" [ -z "$(ls -A "$tmp/elsewhere")" ]
state_case "writable by others" sh -c "mkdir -m 777 '$R/run/thp'"
expect "run/thp writable by others: the message says so" grep -q "not thp's own" "$tmp/e"
state_case "with saved.state a link outside" sh -c "mkdir -m 700 '$R/run/thp' && ln -s '$secret' '$R/run/thp/saved.state'"
expect "run/thp/saved.state a link: the file outside is unchanged" grep -qx "a file outside: never written" "$secret"
if [ "$(id -u)" = 0 ]; then
	state_case "owned by another user" sh -c "mkdir -m 700 '$R/run/thp' && chown 65534 '$R/run/thp'"
else
	skip "run/thp owned by another user: needs root"
fi
fresh
rm -rf "$R/run"
expect_exit "set without run/: exit 1" 1 "$THP" --root "$R" set enabled=never > /dev/null 2> "$tmp/e"
expect "set without run/: says so" grep -qx "thp: set: cannot save the previous state to '$R/run/thp/saved.state': No such file or directory; nothing was changed" "$tmp/e"
expect "set without run/: creates none" [ ! -e "$R/run" ]

# SIGTERM at random moments: the saved state a run before wrote stays whole (the
# old one or a new one), never a temporary file
fresh
rm -rf "$O" && mkdir "$O"
expect "set --save writes the saved state" sh -c "'$THP' --root '$R' set --save '$O/s' > /dev/null && [ -s '$O/s' ]"
n=0
while [ $n -lt 50 ]; do
	"$THP" --root "$R" set --save "$O/s" > /dev/null 2>&1 &
	p=$!
	sleep "0.00$(awk -v s="$n" 'BEGIN { srand(s); printf "%d", rand() * 9 + 1 }')"
	kill -TERM "$p" 2> /dev/null
	wait "$p" 2> /dev/null
	n=$((n + 1))
done
expect "50 runs of set --save killed by SIGTERM: the saved state and no temporary file" [ "$(ls -A "$O")" = s ]
expect_out "... and the saved state parses" "grep -q ." "$THP" --root "$R" restore --dry-run "$O/s"

summary outfiles
