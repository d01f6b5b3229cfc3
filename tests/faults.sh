#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fault injection on the write paths, on copies of fixtures (--root trees).
# A counting run under strace lists every point where a command touches the
# tree: each write, pwrite, fsync, close of a file it wrote, rename, unlink,
# mkdir, symlink and file creation. Then, for each point, strace fails it
# with EIO, with ENOSPC, and kills thp there (SIGKILL). After each run:
#  - the target (the settings below sys/ and proc/sys, or the files below
#    etc/) holds the state from before or the new one; a killed change may
#    leave a mix only with its journal, which the next run puts back;
#  - the exit status and message say which (0: changed; else "nothing was
#    changed", "rolled back", or a change that stays named as such);
#  - 'thp restore' (set and restore) gives back the state from before;
#  - the next run of the same command succeeds, and no temporary file is left.
# Then many writers at once (trees, and the live host as root): no mixed state.
# FAULTS_QUICK=1 tries only every third point (a quick look while editing).
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 1' INT TERM
if ! strace -f -qq -o /dev/null true 2> /dev/null; then
	skip "faults: strace cannot trace here (ptrace not permitted)"
	summary faults
	exit
fi
R=$tmp/root
points=0 halves=0
CALLS=write,pwrite64,fsync,close,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,symlinkat,openat

# the files a scenario's target is made of, with their sums
target_sum() {
	(cd "$R" && case $scope in
	etc) find etc ! -name '.*.??????' \( -type f -o -type l \) | sort | while read -r f; do
		if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else md5sum "$f"; fi; done ;;
	*) find sys proc/sys -type f ! -name boot_id ! -name '.*.??????' -exec md5sum {} + | sort -k2 ;;
	esac)
}
temps() { find "$R" -name '.*.??????' 2> /dev/null; }

# scenario NAME FIXTURE SCOPE PREPARE COMMAND...: sets up the scenario
# (PREPARE is run on each fresh copy), and records the state from before and
# the new state of a clean run.
scenario() {
	name=$1 fx=$2 scope=$3 prep=$4
	shift 4
	cmd=$*
	fresh
	target_sum > "$tmp/old"
	# shellcheck disable=SC2086
	"$THP" --root "$R" $cmd > "$tmp/out" 2>&1 || bad "$name: the clean run fails: $(cat "$tmp/out")"
	target_sum > "$tmp/new"
	cmp -s "$tmp/old" "$tmp/new" && bad "$name: the clean run changes nothing"
}
fresh() {
	rm -rf "$R"
	cp -a "$fx" "$R"
	mkdir -p "$R/run" "$R/etc/tmpfiles.d" "$R/etc/systemd/system" "$R/etc/sysctl.d"
	eval "$prep"
}

# The points of the scenario's command: "SYSCALL N" for the Nth call of
# SYSCALL (counted as strace counts them for inject=...:when=N) that touches
# the tree: a creation, not a read, for openat; for close, a file thp wrote
# (a temporary file or the lock).
list_points() {
	fresh
	# shellcheck disable=SC2086
	strace -qq -y -o "$tmp/trace" -e trace=$CALLS "$THP" --root "$R" $cmd > /dev/null 2>&1
	awk -v root="$R" '
	{
		sub(/^[0-9]+ +/, "")
		call = $0; sub(/\(.*/, "", call)
		n[call]++
		if (index($0, root) == 0) next
		if (call == "openat" && $0 !~ /O_CREAT/) next
		if (call == "close" && $0 !~ /\/\.[^\/]*\.[A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9]>|\/lock>/) next
		print call, n[call]
	}' "$tmp/trace"
}

# try SYSCALL N FAULT: one faulted run and its checks
try() {
	call=$1 when=$2 fault=$3 label="$name: $1 #$2 $3"
	fresh
	case $fault in
	KILL) inject="$call:signal=KILL:when=$when" ;;
	*) inject="$call:error=$fault:when=$when" ;;
	esac
	# shellcheck disable=SC2086
	strace -qq -o /dev/null -e trace="$call" -e inject="$inject" "$THP" --root "$R" $cmd > "$tmp/out" 2>&1
	rc=$?
	target_sum > "$tmp/now"
	points=$((points + 1))
	if cmp -s "$tmp/now" "$tmp/old"; then state=old
	elif cmp -s "$tmp/now" "$tmp/new"; then state=new
	else state=mixed
	fi
	ok=1
	case $fault/$state/$rc in
	KILL/mixed/*)
		if [ -f "$R/run/thp/journal" ]; then :
		elif [ "$name" = "persist --systemd" ] && "$THP" --root "$R" persist --check | grep -q "^not enabled, so boot does not apply it: /etc/systemd/system/thp.service"; then :
		elif [ -f "$R/run/thp/pools.journal" ] || [ -f "$R/run/thp/boot.journal" ]; then :
		else ok=0 why="killed: a mixed state without a journal"
		fi ;;
	KILL/*) ;;
	*/mixed/*) ok=0 why="a mixed state (exit $rc)" ;;
	*/new/0) grep -q "^changed\|^wrote\|pool.*->" "$tmp/out" || { ok=0; why="exit 0 without saying what changed"; } ;;
	*/old/0) ok=0 why="exit 0 but nothing changed" ;;
	*/old/*) grep -q "nothing was changed\|rolled back\|nothing changed\|nothing to change" "$tmp/out" ||
		{ ok=0; why="unchanged, but the message does not say so"; } ;;
	*/new/*) grep -q "^changed\|^wrote\|^thp: [a-z ]*: wrote\|pool.*->\|put back what" "$tmp/out" &&
		! grep -q "nothing was changed" "$tmp/out" || { ok=0; why="changed, but the message does not say so"; } ;;
	esac
	if [ "$ok" = 1 ] && [ -n "$undo" ]; then
		# shellcheck disable=SC2086
		"$THP" --root "$R" $undo > "$tmp/rout" 2>&1
		target_sum > "$tmp/now"
		cmp -s "$tmp/now" "$tmp/old" || { ok=0; why="'thp $undo' does not give back the state from before: $(head -3 "$tmp/rout")"; }
	fi
	if [ "$ok" = 1 ]; then
		# shellcheck disable=SC2086
		"$THP" --root "$R" $cmd > "$tmp/rout" 2>&1 || { ok=0; why="the next run fails: $(head -3 "$tmp/rout")"; }
		target_sum > "$tmp/now"
		# (a restore after a killed restore puts back that one's journal
		# first; the saved state is the next restore's)
		if [ "$name" = restore ] && ! cmp -s "$tmp/now" "$tmp/new" && grep -q "did not finish" "$tmp/rout"; then
			"$THP" --root "$R" restore > "$tmp/rout" 2>&1
			target_sum > "$tmp/now"
		fi
		cmp -s "$tmp/now" "$tmp/new" || { ok=0; why="the next run does not reach the new state: $(head -3 "$tmp/rout")"; }
		[ -z "$(temps)" ] || { ok=0; why="temporary files stay after the next run: $(temps)"; }
	fi
	if [ "$ok" = 1 ]; then
		pass=$((pass + 1))
	else
		halves=$((halves + 1))
		bad "$label: $why"
		sed 's/^/	/' "$tmp/out" | head -6 >&9
	fi
}

# run_scenario: every point of the current scenario, each fault
run_scenario() {
	list_points > "$tmp/points"
	np=$(wc -l < "$tmp/points")
	[ "$np" -gt 0 ] || bad "$name: no point found"
	i=0
	while read -r call when; do
		i=$((i + 1))
		[ -n "$FAULTS_QUICK" ] && [ $((i % 3)) != 0 ] && continue
		for fault in EIO ENOSPC KILL; do
			try "$call" "$when" "$fault"
		done
	done < "$tmp/points"
	printf '%s: %d points\n' "$name" "$np"
}

FX=tests/fixtures/live-6.18
# UNDO: the command that gives back the state from before, where there is one
undo=restore
scenario set "$FX" sys : set enabled=always defrag=never khugepaged.defrag=0 vm.watermark_scale_factor=200
run_scenario
undo="restore $tmp/root/saved"
scenario "set --save" "$FX" sys : set --save "$tmp/root/saved" enabled=never
run_scenario
undo=
scenario restore "$FX" sys '"$THP" --root "$R" set enabled=always hugepages.all.enabled=always > /dev/null' restore
run_scenario
scenario persist "$FX" etc : persist
run_scenario
scenario "persist --systemd" "$FX" etc : persist --systemd khugepaged.defrag=0
run_scenario
scenario "persist vm.*" "$FX" etc : persist vm.min_free_kbytes=90112
run_scenario
scenario "persist over an older file" "$FX" etc '"$THP" --root "$R" persist --systemd enabled=never > /dev/null' persist --systemd enabled=always
run_scenario
scenario "hugetlb set" tests/fixtures/hugetlb-numa sys : hugetlb set 2M=1100 1G=2
run_scenario
# two files: the default size's pool in sysctl.d, a 32 MiB pool in tmpfiles.d
# (over the files of an earlier persist, one of which goes)
pool32='P=$R/sys/kernel/mm/hugepages/hugepages-32768kB; mkdir -p "$P"; for f in nr_hugepages free_hugepages surplus_hugepages; do echo 0 > "$P/$f"; done'
scenario "hugetlb persist" tests/fixtures/hugetlb-numa etc "$pool32"' && "$THP" --root "$R" hugetlb persist node1:2M=5 > /dev/null' hugetlb persist 2M=1100 32M=3
run_scenario
# collapse writes no file and no setting: its one change is MADV_COLLAPSE
# (process_madvise) on a live process, which the kernel makes per huge page.
# Each of its calls fails or is killed: what it reports must be what the
# process holds (AnonHugePages), and a failed range must fail the exit status.
if [ "$(id -u)" != 0 ] || [ -z "$HOG" ] || [ ! -f /sys/kernel/mm/transparent_hugepage/hpage_pmd_size ]; then
	skip "collapse: needs root, a kernel with THP and the hog (HOG)"
else
	hog_start "$HOG" 64
	strace -f -qq -o "$tmp/trace" -e trace=process_madvise "$THP" collapse "$hog_pid" > /dev/null 2>&1
	ncalls=$(grep -c 'process_madvise(' "$tmp/trace")
	collapsed=$(hog_field AnonHugePages)
	hog_stop
	if [ "$ncalls" = 0 ] || [ "${collapsed:-0}" = 0 ]; then
		skip "collapse: a clean run collapsed nothing here (no MADV_COLLAPSE, or no free huge pages)"
	else
		for n in $(seq 1 "$ncalls"); do
			for fault in EIO ENOSPC KILL; do
				case $fault in KILL) inject="signal=KILL" ;; *) inject="error=$fault" ;; esac
				hog_start "$HOG" 64
				strace -f -qq -o /dev/null -e trace=process_madvise -e inject="process_madvise:$inject:when=$n" \
					"$THP" collapse "$hog_pid" --json > "$tmp/cj" 2> "$tmp/out"
				rc=$?
				huge=$(($(hog_field AnonHugePages) * 1024))
				points=$((points + 1))
				if [ "$fault" = KILL ]; then
					expect "collapse: process_madvise #$n KILL: the process runs on" kill -0 "$hog_pid"
				else
					expect_sh "collapse: process_madvise #$n $fault: the report is what the process holds" \
						"jq -e '[.ranges[].anonhuge_after] | add == $huge' '$tmp/cj' > /dev/null"
					expect_sh "collapse: process_madvise #$n $fault: exit 1, the failed range named" \
						"[ $rc = 1 ] && jq -e '[.ranges[].result] | any(. != \"collapsed\")' '$tmp/cj' > /dev/null"
				fi
				hog_stop
			done
		done
		printf 'collapse: %d points\n' "$ncalls"
	fi
fi
printf 'faults: %d fault runs, %d left a half-written or unexplained state\n' "$points" "$halves"

# One writer at a time: rounds of writers at once on one tree, each a
# complete state of its own (two settings that change together), or a
# restore, or a pool change. After each round the tree holds one of the
# complete states, every writer exited 0 (or 1 naming the holder after its
# wait), and no journal is left.
fx=$FX scope=sys prep=:
fresh
T=$R/sys/kernel/mm/transparent_hugepage
pair() { printf '%s %s\n' "$(sed 's/.*\[\(.*\)\].*/\1/' "$T/enabled")" "$(sed 's/.*\[\(.*\)\].*/\1/' "$T/defrag")"; }
# writer ARGS...: thp --root $R ARGS, its output then "[exit STATUS]"
writer() { "$THP" --root "$R" "$@"; echo "[exit $?]"; }
writers=0 mixed=0
for round in 1 2 3 4 5 6 7 8; do
	for i in 1 2 3 4 5; do
		writer set enabled=always defrag=never > "$tmp/w$i.a" 2>&1 &
		writer set enabled=never defrag=always > "$tmp/w$i.b" 2>&1 &
		writer set enabled=madvise defrag=madvise > "$tmp/w$i.c" 2>&1 &
		writer restore > "$tmp/w$i.d" 2>&1 &
		writer set --save "$tmp/s$i" enabled=always defrag=never > "$tmp/w$i.e" 2>&1 &
	done
	wait
	writers=$((writers + 25))
	case $(pair) in
	"always never" | "never always" | "madvise madvise") ;;
	*) mixed=$((mixed + 1)); bad "writers at once, round $round: a mixed state: $(pair)" ;;
	esac
	expect "writers at once, round $round: no journal left" [ ! -e "$R/run/thp/journal" ]
	# (one at least succeeds; a success says what it did)
	expect_sh "writers at once, round $round: each exits 0 saying what it did, or 1 naming the holder" \
		'n=0; for f in "$tmp"/w*.?; do
			case $(tail -1 "$f") in
			"[exit 0]") [ "$(wc -l < "$f")" -gt 1 ] || { cat "$f"; exit 1; }; n=$((n + 1)) ;;
			"[exit 1]") grep -q "holds .*/run/thp/lock\|nothing to change\|did not finish\|nothing was saved" "$f" || { cat "$f"; exit 1; } ;;
			*) cat "$f"; exit 1 ;;
			esac
		done; [ $n -gt 0 ]'
	rm -f "$tmp"/w*.?
done
printf 'faults: %d writers at once on a tree, %d mixed states\n' "$writers" "$mixed"

# The same on the live host, as root: the host's settings and thp's saved
# state are put back afterwards (also on a failure or a signal).
L=/sys/kernel/mm/transparent_hugepage
if [ "$(id -u)" != 0 ] || [ ! -w "$L/enabled" ]; then
	skip "writers at once on the live host: needs root and THP"
else
	exec 7> /tmp/thp-live.lock
	flock 7
	live_before="enabled=$(sed 's/.*\[\(.*\)\].*/\1/' "$L/enabled") defrag=$(sed 's/.*\[\(.*\)\].*/\1/' "$L/defrag")"
	# the host's own saved state is kept aside: the restores below put back
	# only what the sets here saved
	[ -e /run/thp/saved.state ] && cp -p /run/thp/saved.state "$tmp/live.saved"
	rm -f /run/thp/saved.state
	live_back() {
		for kv in $live_before; do echo "${kv#*=}" > "$L/${kv%%=*}"; done
		if [ -e "$tmp/live.saved" ]; then cp -p "$tmp/live.saved" /run/thp/saved.state; else rm -f /run/thp/saved.state; fi
		rm -f /run/thp/journal
	}
	trap 'live_back; rm -rf "$tmp"' EXIT
	trap 'live_back; rm -rf "$tmp"; exit 1' INT TERM
	lmixed=0 lwriters=0
	for round in 1 2 3 4; do
		for i in 1 2 3 4 5; do
			"$THP" set enabled=always defrag=never > /dev/null 2>&1 &
			"$THP" set enabled=never defrag=always > /dev/null 2>&1 &
			"$THP" set enabled=madvise defrag=madvise > /dev/null 2>&1 &
			"$THP" restore > /dev/null 2>&1 &
		done
		wait
		lwriters=$((lwriters + 20))
		now="$(sed 's/.*\[\(.*\)\].*/\1/' "$L/enabled") $(sed 's/.*\[\(.*\)\].*/\1/' "$L/defrag")"
		case $now in
		"always never" | "never always" | "madvise madvise") ;;
		*) case $live_before in
			"enabled=${now% *} defrag=${now#* }") ;; # restore put the host's own state back
			*) lmixed=$((lmixed + 1)); bad "live writers at once, round $round: a mixed state: $now" ;;
			esac ;;
		esac
		expect "live writers at once, round $round: no journal left" [ ! -e /run/thp/journal ]
	done
	live_back
	printf 'faults: %d writers at once on the live host, %d mixed states\n' "$lwriters" "$lmixed"
	exec 7>&-
fi

summary faults
