# SPDX-License-Identifier: GPL-2.0-or-later
# thp doctor against the running kernel: exit status consistent with the
# findings; a real Redis on an 'always' host reports that it opted out; a
# process that inherits PR_SET_THP_DISABLE names its parent.
TE=/sys/kernel/mm/transparent_hugepage/enabled
dtmp=$(mktemp -d)

# exit status of doctor at LEVEL must be 3 exactly when a finding at or above it exists
doctor_consistent() { # doctor_consistent LEVEL
	"$THP" doctor --json --severity "$1" > "$dtmp/d.json"
	rc=$?
	n=$(jq --arg l "$1" '[.findings[] | select(
		({"info": 0, "warn": 1, "crit": 2}[.severity]) >= ({"info": 0, "warn": 1, "crit": 2}[$l]))] | length' "$dtmp/d.json")
	if [ "$n" -gt 0 ]; then want=3; else want=0; fi
	expect "doctor --severity $1: exit $rc with $n findings at or above it" [ "$rc" = "$want" ]
	expect "doctor --severity $1: JSON exit field" [ "$(jq .exit "$dtmp/d.json")" = "$rc" ]
}
for lvl in info warn crit; do
	doctor_consistent "$lvl"
done
"$THP" doctor --severity info > "$dtmp/d.txt"
expect "doctor text lists as many findings as JSON" \
	[ "$(grep -cE '^(CRIT|WARN|INFO) ' "$dtmp/d.txt")" = "$(jq '.findings | length' "$dtmp/d.json")" ]
"$THP" doctor --sample 0.2 --json > "$dtmp/s.json"
expect "doctor --sample measures its window" jq -e '.sample_seconds >= 0.2 and .sample_seconds < 5' "$dtmp/s.json" > /dev/null

# A parent that turned THP off (thp exec --disable) starts a child: the
# finding names the parent and counts the child.
if ! grep -q '^THP_enabled:' /proc/self/status; then
	skip "doctor inheritance: this kernel does not show THP_enabled (Linux 5.0+)"
else
	mkfifo "$dtmp/in"
	# the parent, a shell with THP off, starts a hog and waits for it
	"$THP" exec --disable -- sh -c '"$1" 1 < "$2" > "$2.out" & wait' thp-parent "$HOG" "$dtmp/in" &
	parent=$!
	exec 8> "$dtmp/in"
	i=0
	while ! grep -q ready "$dtmp/in.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	"$THP" doctor --json --severity info > "$dtmp/i.json"
	expect "inheritance finding names the parent pid $parent" jq -e --argjson p "$parent" \
		'[.findings[] | select(.id == "thp-disabled-inherited" and .pid == $p)] | length == 1' "$dtmp/i.json" > /dev/null
	expect "inheritance finding counts the child" jq -e --argjson p "$parent" \
		'.findings[] | select(.id == "thp-disabled-inherited" and .pid == $p) | .title | test("1 process by inheritance from pid \($p) \\(sh\\)")' \
		"$dtmp/i.json" > /dev/null
	exec 8>&-
	wait "$parent"
fi

# Redis started while enabled=always turns THP off for itself.
redis_pid=
thp_saved=
doctor_restore() {
	[ -n "$redis_pid" ] && kill "$redis_pid" 2> /dev/null && wait "$redis_pid" 2> /dev/null
	redis_pid=
	[ -n "$thp_saved" ] && "$THP" restore "$dtmp/saved" > /dev/null
	thp_saved=
}
if [ "$(id -u)" != 0 ]; then
	skip "doctor with Redis: needs root to set enabled=always"
elif [ ! -w "$TE" ]; then
	skip "doctor with Redis: $TE is absent or read-only"
elif ! command -v redis-server > /dev/null; then
	bad "doctor with Redis: redis-server is not installed (scripts/deps test installs it)"
else
	thp_saved=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$TE")
	live_traps doctor_restore
	"$THP" set --save "$dtmp/saved" enabled=always > /dev/null
	port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
	redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --daemonize no \
		--dir "$dtmp" --logfile "$dtmp/redis.log" &
	redis_pid=$!
	i=0
	while ! grep -q 'Ready to accept' "$dtmp/redis.log" 2> /dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	if ! grep -q 'Ready to accept' "$dtmp/redis.log" 2> /dev/null; then
		bad "doctor with Redis: redis-server on port $port did not start: $(tail -2 "$dtmp/redis.log" 2> /dev/null)"
	else
		"$THP" doctor --json --severity info > "$dtmp/r.json"
		expect "Redis (pid $redis_pid) disabled THP for itself" jq -e --argjson p "$redis_pid" \
			'.findings[] | select(.id == "latency-server-opted-out" and .pid == $p) | .title | test("disabled THP for itself")' \
			"$dtmp/r.json" > /dev/null
		expect "Redis shows THP_enabled 0" grep -q '^THP_enabled:[[:space:]]*0' "/proc/$redis_pid/status"
	fi
	was=$thp_saved
	doctor_restore
	live_traps
	expect "enabled restored to '$was' after the Redis test" grep -q "\[$was\]" "$TE"
fi
rm -rf "$dtmp"
