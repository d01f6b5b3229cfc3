# SPDX-License-Identifier: GPL-2.0-or-later
# --jobs: ps (with --folios or not) reads processes, and show --folios a
# process's mappings, on several threads; what they print is the same as with
# one, over hogs of every kind (THP and 4 KiB pages, anonymous and shmem),
# each in several mappings. Needs root (--folios).
jobstmp=$(mktemp -d)

# jobs_same DESCRIPTION ARGS...: thp ARGS with --jobs 1 and with --jobs 4 both
# exit 0, print something, and print the same. The hogs' memory may change
# under a read (khugepaged): the reads are taken again, up to 3 times.
jobs_same() {
	_jd=$1
	shift
	for _jt in 1 2 3; do
		_jr1=0 _jr4=0
		"$THP" "$@" --jobs 1 > "$jobstmp/j1" || _jr1=$?
		"$THP" "$@" --jobs 4 > "$jobstmp/j4" || _jr4=$?
		[ "$_jr1$_jr4" = 00 ] && [ -s "$jobstmp/j1" ] && cmp -s "$jobstmp/j1" "$jobstmp/j4" && break
	done
	expect "$_jd: exit 0 with --jobs 1 and --jobs 4 (exit $_jr1, $_jr4)" [ "$_jr1$_jr4" = 00 ]
	expect_sh "$_jd: the same output with --jobs 1 and --jobs 4, not empty" \
		'[ -s "$jobstmp/j1" ] && cmp "$jobstmp/j1" "$jobstmp/j4"'
}

# jobs_rows FILE: the rows of ps --json in FILE that are the hogs'.
jobs_rows() { jq -c --argjson p "[$jobs_pids]" '[.processes[] | select(.pid | IN($p[]))]' "$1"; }
# jobs_all ARGS...: every process of the host, split over the threads: thp ps
# --all --json ARGS with --jobs 1 (in all1) and with --jobs 4 (in all4),
# taken again (up to 3 times) while the hogs' rows differ.
jobs_all() {
	for _jt in 1 2 3; do
		"$THP" ps --all --json "$@" --jobs 1 > "$jobstmp/all1"
		"$THP" ps --all --json "$@" --jobs 4 > "$jobstmp/all4"
		[ "$(jobs_rows "$jobstmp/all1")" = "$(jobs_rows "$jobstmp/all4")" ] && break
	done
}

if [ "$(id -u)" != 0 ]; then
	skip "--jobs: --folios needs root"
else
	mkfifo "$jobstmp/hold"
	exec 7<> "$jobstmp/hold"
	jobs_pids= jobs_n=0
	for jobs_hog in "--huge --parts 8" "--nohuge --parts 8" "--shared --parts 4" "--shared --nohuge --parts 8"; do
		jobs_n=$((jobs_n + 1))
		# shellcheck disable=SC2086 # the hog's options
		"$HOG" 256 $jobs_hog < "$jobstmp/hold" > "$jobstmp/ready.$jobs_n" 7>&- &
		jobs_pids=$jobs_pids${jobs_pids:+,}$!
		_i=0
		while ! grep -q ready "$jobstmp/ready.$jobs_n" 2> /dev/null && [ $_i -lt 200 ]; do sleep 0.05; _i=$((_i + 1)); done
	done
	expect "--jobs: the four hogs are ready" [ "$(cat "$jobstmp"/ready.* | grep -c ready)" = 4 ]

	jobs_same "ps --folios -p HOGS --json" ps --folios --json -p "$jobs_pids"
	expect "ps --folios -p HOGS --json: a row per hog" [ "$(jq '.processes | length' "$jobstmp/j1")" = 4 ]
	jobs_all --folios
	expect "ps --all --folios: the hogs' 4 rows with --jobs 1" [ "$(jobs_rows "$jobstmp/all1" | jq length)" = 4 ]
	expect "ps --all --folios: the hogs' rows the same with --jobs 1 and --jobs 4" \
		[ "$(jobs_rows "$jobstmp/all1")" = "$(jobs_rows "$jobstmp/all4")" ]
	expect "ps --all --folios: as many processes with --jobs 4 (within 20 of --jobs 1)" \
		[ "$(jq -n '[inputs | .processes | length] | .[0] - .[1] | fabs < 20' "$jobstmp/all1" "$jobstmp/all4")" = true ]
	# without --folios: the figures of smaps_rollup and status
	jobs_same "ps -p HOGS --json" ps --json -p "$jobs_pids"
	jobs_same "ps -p HOGS -w" ps -w -p "$jobs_pids"
	jobs_all
	expect "ps --all: the hogs' 4 rows with --jobs 1" [ "$(jobs_rows "$jobstmp/all1" | jq length)" = 4 ]
	expect "ps --all: the hogs' rows the same with --jobs 1 and --jobs 4" \
		[ "$(jobs_rows "$jobstmp/all1")" = "$(jobs_rows "$jobstmp/all4")" ]
	for jobs_pid in $(echo "$jobs_pids" | tr , ' '); do
		jobs_same "show $jobs_pid --folios --json" show "$jobs_pid" --folios --json
		expect "show $jobs_pid --folios --json: its mappings split" \
			[ "$(jq '[.vmas[] | select(.rss >= 33554432)] | length >= 2' "$jobstmp/j1")" = true ]
		jobs_same "show $jobs_pid --folios" show "$jobs_pid" --folios
		jobs_same "show $jobs_pid --rollup --json" show "$jobs_pid" --rollup --json
	done
	exec 7>&-
	wait
fi
expect_exit "ps --jobs 0: a usage error" 2 "$THP" ps --folios --jobs 0
expect_exit "show --jobs 1025: a usage error" 2 "$THP" show 1 --folios --jobs 1025
rm -rf "$jobstmp"
