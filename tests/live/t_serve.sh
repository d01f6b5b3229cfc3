# SPDX-License-Identifier: GPL-2.0-or-later
# thp metrics on the live host, and thp serve on loopback: endpoints, bad
# requests, concurrent scrapes, and a real Prometheus server scraping it.
sv_tmp=$(mktemp -d)
sv_pids=
sv_cleanup() { for p in $sv_pids; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done; rm -rf "$sv_tmp"; }
live_traps sv_cleanup

# sv_start ROOT [OPTION...]: starts thp serve (behind the command $sv_wrap, if
# set) on a free loopback port; sets sv_pid and sv_port
sv_start() {
	_root=$1
	shift
	$sv_wrap "$THP" --root "$_root" serve --listen 127.0.0.1:0 "$@" 2> "$sv_tmp/err.$$" &
	sv_pid=$!
	sv_pids="$sv_pids $sv_pid"
	sv_port=
	for _ in $(seq 100); do
		sv_port=$(sed -n 's|^thp: serving http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$sv_tmp/err.$$")
		[ -n "$sv_port" ] && break
		sleep 0.05
	done
}
# sv_raw TEXT: sends TEXT (printf format) on a raw connection, prints the status line
sv_raw() { timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$sv_port; printf '$1' >&3; head -1 <&3" | tr -d '\r'; }
sv_code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@"; }
# sv_same FILE: FILE, a scrape, is $sv_tmp/want but for the cost of the scrape
# before it (thp_scrape_duration_seconds, which only serve has)
sv_same() { grep -v '^\(# [A-Z]* \)\{0,1\}thp_scrape_duration_seconds ' "$1" | cmp -s - "$sv_tmp/want"; }

if command -v promtool > /dev/null; then
	expect_out "promtool check metrics on the live host" "promtool check metrics" "$THP" metrics
else
	skip "promtool on the live host: promtool (Debian package prometheus) is not installed"
fi

SVFX=tests/fixtures/always-always
"$THP" --root $SVFX metrics > "$sv_tmp/want"
sv_start $SVFX
if [ -z "$sv_port" ]; then
	bad "thp serve did not start: $(cat "$sv_tmp/err.$$")"
else
	U=http://127.0.0.1:$sv_port
	expect "GET /metrics is what thp metrics prints" sh -c "curl -sf --max-time 10 $U/metrics | cmp -s - '$sv_tmp/want'"
	curl -sf --max-time 10 -o "$sv_tmp/second" $U/metrics
	expect "the second scrape is the first and how long that took (thp_scrape_duration_seconds above 0, under 60)" \
		sh -c "awk '\$1 == \"thp_scrape_duration_seconds\" { ok = \$2 > 0 && \$2 < 60 } END { exit !ok }' '$sv_tmp/second'"
	expect "the second scrape is otherwise what thp metrics prints" sv_same "$sv_tmp/second"
	expect "/metrics has the exposition content type" sh -c "curl -sfI --max-time 10 $U/metrics | grep -qi '^content-type: text/plain; version=0.0.4'"
	expect "GET / links to /metrics" sh -c "curl -sf --max-time 10 $U/ | grep -q 'href=\"/metrics\"'"
	expect "unknown path: 404" [ "$(sv_code $U/nope)" = 404 ]
	expect "POST: 405" [ "$(sv_code -X POST -d x=1 $U/metrics)" = 405 ]
	expect "GET with a body: 400" [ "$(sv_code -X GET -d x=1 $U/metrics)" = 400 ]
	big=$(head -c 20000 /dev/zero | tr '\0' a)
	expect "oversized header: 431" [ "$(sv_code -H "X-Big: $big" $U/metrics)" = 431 ]
	expect "oversized URL: 414" [ "$(sv_code "$U/metrics?$big")" = 414 ]
	expect "request line without a version: 400" [ "$(sv_raw 'GET /metrics\r\n\r\n')" = "HTTP/1.1 400 Bad Request" ]
	expect "request line with an extra word: 400" [ "$(sv_raw 'GET /metrics HTTP/1.1 x\r\n\r\n')" = "HTTP/1.1 400 Bad Request" ]
	expect "malformed header line: 400" [ "$(sv_raw 'GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n')" = "HTTP/1.1 400 Bad Request" ]

	# load: 8 clients, 25 scrapes each, all at once; every answer whole and equal
	mkdir "$sv_tmp/bodies"
	for c in 1 2 3 4 5 6 7 8; do
		(for i in $(seq 25); do curl -s -o "$sv_tmp/bodies/$c.$i" --max-time 20 -w '%{http_code}\n' $U/metrics; done > "$sv_tmp/load.$c") &
	done
	wait_load=0
	while [ "$(cat "$sv_tmp"/load.* 2> /dev/null | wc -l)" -lt 200 ] && [ $wait_load -lt 600 ]; do sleep 0.1; wait_load=$((wait_load + 1)); done
	sleep 0.2
	whole=0
	for b in "$sv_tmp"/bodies/*; do sv_same "$b" && whole=$((whole + 1)); done
	answered=$(cat "$sv_tmp"/load.* | grep -c '^200$')
	expect "200 concurrent scrapes from 8 clients all answered 200 ($answered) with the full body ($whole)" \
		[ "$answered $whole" = "200 200" ]

	# an idle connection is closed after --timeout
	kill "$sv_pid"; wait "$sv_pid" 2> /dev/null
	sv_start $SVFX --timeout 1
	expect "a connection idle for --timeout 1 is closed (within 4 s)" \
		timeout 4 bash -c "exec 3<>/dev/tcp/127.0.0.1/$sv_port; printf 'GET /metrics HTTP/1.1\r\n' >&3; cat <&3 > /dev/null"

	# fewer connections than server threads: it answers, and stops when told
	kill "$sv_pid"; wait "$sv_pid" 2> /dev/null
	sv_start $SVFX --max-connections 1
	expect "serve --max-connections 1 answers" curl -sf -o /dev/null --max-time 10 "http://127.0.0.1:$sv_port/metrics"
	kill -TERM "$sv_pid"
	expect "serve --max-connections 1 stops on SIGTERM (within 5 s)" \
		sh -c "for i in \$(seq 50); do ps -o stat= -p $sv_pid | grep -qv Z || exit 0; sleep 0.1; done; exit 1"
	kill -KILL "$sv_pid" 2> /dev/null
	wait "$sv_pid" 2> /dev/null

	# more connections than the soft limit of open files allows: it is raised
	# to twice --max-connections and 64 (those closing, the other descriptors)
	if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt 2064 ]; then
		skip "serve raising the soft limit of open files: the hard limit is $(ulimit -Hn), under 2064"
	elif [ -n "$VG_THP" ]; then
		skip "serve raising the soft limit of open files: under valgrind, whose hard limit is the soft one"
	else
		soft256() { ulimit -Sn 256 && exec "$@"; }
		sv_wrap=soft256 sv_start $SVFX --max-connections 1000
		sv_files=$(awk '/^Max open files/ {print $4}' "/proc/$sv_pid/limits")
		expect "serve --max-connections 1000 under a soft limit of 256 files raises it to 2064 (got $sv_files)" \
			[ "$sv_files" = 2064 ]
		expect "serve --max-connections 1000 under a soft limit of 256 files answers" \
			curl -sf -o /dev/null --max-time 10 "http://127.0.0.1:$sv_port/metrics"
		kill "$sv_pid"; wait "$sv_pid" 2> /dev/null
	fi
	sv_start $SVFX

	# a real Prometheus server scrapes thp serve and reports a figure as thp does
	if ! command -v prometheus > /dev/null; then
		skip "Prometheus integration: prometheus (Debian package prometheus) is not installed"
	else
		want=$(awk '$1 == "thp_khugepaged_pages_to_scan" {print $2}' "$sv_tmp/want")
		thp_port=$sv_port
		sv_start $SVFX # borrow a free port for Prometheus, then release it
		prom_port=$sv_port
		kill "$sv_pid"; wait "$sv_pid" 2> /dev/null
		printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: thp\n    static_configs:\n      - targets: ["127.0.0.1:%s"]\n' \
			"$thp_port" > "$sv_tmp/prometheus.yml"
		prometheus --config.file="$sv_tmp/prometheus.yml" --storage.tsdb.path="$sv_tmp/tsdb" \
			--web.listen-address=127.0.0.1:$prom_port --log.level=error > "$sv_tmp/prom.log" 2>&1 &
		sv_pids="$sv_pids $!"
		got=
		for _ in $(seq 60); do
			got=$(curl -s --max-time 2 "http://127.0.0.1:$prom_port/api/v1/query?query=thp_khugepaged_pages_to_scan" |
				jq -r '.data.result[0].value[1] // empty' 2> /dev/null)
			[ -n "$got" ] && break
			sleep 0.5
		done
		expect "Prometheus scraped thp serve: pages_to_scan $want, Prometheus has '$got'" [ "$got" = "$want" ]
		up=$(curl -s --max-time 2 "http://127.0.0.1:$prom_port/api/v1/query?query=up" | jq -r '.data.result[0].value[1] // empty')
		expect "Prometheus sees the target up" [ "$up" = 1 ]
	fi
fi

# sv_scrapes N PAUSE: N scrapes of /metrics, PAUSE seconds apart, into
# $sv_tmp/scrapes (lines "HTTP_CODE SECONDS same|differs" from $sv_tmp/want)
sv_scrapes() {
	: > "$sv_tmp/scrapes"
	for _ in $(seq "$1"); do
		rm -f "$sv_tmp/got"
		_w=$(curl -s -o "$sv_tmp/got" --max-time 5 -w '%{http_code} %{time_total}' "http://127.0.0.1:$sv_port/metrics")
		sv_same "$sv_tmp/got" && _w="$_w same" || _w="$_w differs"
		echo "$_w" >> "$sv_tmp/scrapes"
		sleep "$2"
	done
}
# sv_slow SOURCES: 200 connections from SOURCES (slowconn.py: one address or
# many) trickle one header byte per second while /metrics is scraped 5 times;
# sets sv_scrapes (lines "HTTP_CODE SECONDS same|differs") and sv_alive (how
# many slow connections the server kept)
sv_slow() {
	: > "$sv_tmp/slow"
	python3 tests/live/slowconn.py "$sv_port" 200 3 "$1" > "$sv_tmp/slow" &
	_slow=$!
	_i=0
	while ! grep -q '^opened' "$sv_tmp/slow" && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	sleep 0.5
	sv_scrapes 5 0.3
	wait $_slow
	sv_scrapes=$(cat "$sv_tmp/scrapes")
	sv_alive=$(sed -n 's/^alive \([0-9]*\) .*/\1/p' "$sv_tmp/slow")
}

# slow clients (slowloris) cost a connection slot each and no thread; one
# address keeps --max-per-ip (default 16) of them, all addresses three
# quarters of --max-connections (default 256: 192), and scrapes go on (the
# first scrape's connection, also waiting for its header, takes the place of
# the oldest slow one)
if ! command -v python3 > /dev/null; then
	skip "slow connections: python3 is not installed"
else
	"$THP" --root $SVFX metrics > "$sv_tmp/want"
	# SOURCES:KEPT: the server keeps KEPT of the slow connections from SOURCES
	for case in one:16 many:191; do
		src=${case%:*}
		sv_start $SVFX
		sv_slow $src
		expect "slow connections from $src source address: the server kept ${case#*:} of 200 (kept $sv_alive)" \
			[ "$sv_alive" = "${case#*:}" ]
		expect "200 slow connections from $src source address: 5 scrapes answered whole within 5 s (got: $(echo $sv_scrapes))" \
			[ "$(echo "$sv_scrapes" | grep -c '^200 [0-4]\.[0-9]* same$')" = 5 ]
		kill "$sv_pid"; wait "$sv_pid" 2> /dev/null
	done

	# a header sent one byte a second is closed at --header-timeout, however
	# busy it keeps its connection
	sv_start $SVFX --header-timeout 2
	sv_alive=$(python3 tests/live/slowconn.py "$sv_port" 1 4 one | sed -n 's/^alive //p')
	expect "a header trickled a byte a second is closed at --header-timeout 2 (alive, closed: $sv_alive)" \
		[ "$sv_alive" = "0 closed 1" ]
	kill "$sv_pid"; wait "$sv_pid" 2> /dev/null

	# 16 slow clients from the scraper's own address, 260 from others and 2,000
	# idle connections, each opened again once closed, as an attacker would: a
	# scrape a second is answered whole within one second throughout
	sv_start $SVFX
	(ulimit -n 4096 2> /dev/null; exec python3 tests/live/slowconn.py "$sv_port" 16 24 127.0.0.1 reconnect > "$sv_tmp/a.self") &
	_a1=$!
	(ulimit -n 4096 2> /dev/null; exec python3 tests/live/slowconn.py "$sv_port" 260 24 many reconnect > "$sv_tmp/a.many") &
	_a2=$!
	(ulimit -n 4096 2> /dev/null; exec python3 tests/live/slowconn.py "$sv_port" 2000 24 many:2 idle reconnect > "$sv_tmp/a.idle") &
	_a3=$!
	_i=0
	while [ "$(cat "$sv_tmp"/a.* | grep -c '^opened')" != 3 ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	sv_scrapes 20 0.9
	wait $_a1 $_a2 $_a3
	kill "$sv_pid"; wait "$sv_pid" 2> /dev/null
	expect "attackers opened 16, 260 and 2000 connections ($(cat "$sv_tmp"/a.* | sed -n 's/^opened //p' | tr '\n' ' '))" \
		[ "$(cat "$sv_tmp/a.self" "$sv_tmp/a.many" "$sv_tmp/a.idle" | sed -n 's/^opened //p' | tr '\n' ' ')" = "16 260 2000 " ]
	expect "the server closed attackers' connections to admit others ($(cat "$sv_tmp"/a.* | sed -n 's/^alive //p' | tr '\n' ' '))" \
		[ "$(cat "$sv_tmp"/a.* | awk '$1 == "alive" && $4 > 0' | wc -l)" = 3 ]
	sv_lat=$(awk '{print $2}' "$sv_tmp/scrapes" | sort -n | awk '{a[NR] = $1}
		END {printf "max %.3f s, p50 %.3f s, p99 %.3f s", a[NR], a[int((NR + 1) / 2)], a[int(NR * 0.99 + 0.999)]}')
	echo "serve under 16 + 260 slow and 2000 idle connections: 20 scrapes, $sv_lat"
	expect "under 16 + 260 slow and 2000 idle connections, 20 scrapes a second apart answered whole within 1 s ($sv_lat; got: $(cut -d' ' -f1,3 "$sv_tmp/scrapes" | sort | uniq -c | tr -s ' \n' ' '))" \
		[ "$(grep -c '^200 0\.[0-9]* same$' "$sv_tmp/scrapes")" = 20 ]
fi

# serving the live host: a scrape passes promtool
sv_start /
if [ -n "$sv_port" ] && command -v promtool > /dev/null; then
	expect "a live scrape passes promtool" sh -c "curl -sf --max-time 10 http://127.0.0.1:$sv_port/metrics | promtool check metrics"
fi

# thp-serve.service (contrib/thp-serve.service.in), emulated, for systemd
# need not run here: thp serve as an unprivileged user with the unit's
# capabilities and no new privileges, /proc mounted as ProtectProc= mounts it;
# its system calls, socket families and memory mappings (strace) are those the
# unit allows
UNIT=contrib/thp-serve.service.in
unit_val() { sed -n "s/^$1=//p" $UNIT; }
unit_caps=$(unit_val AmbientCapabilities | tr 'A-Z ' 'a-z\n' | sed 's/^cap_/,+/' | tr -d '\n')
# as_unit CMD...: CMD as the unit runs it (exec'd, so $! is CMD's process)
as_unit() {
	exec unshare -m --propagation private sh -c "mount -t proc -o hidepid=$(unit_val ProtectProc) proc /proc &&
		exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all$unit_caps \
		--ambient-caps=-all$unit_caps --bounding-set=-all$unit_caps --no-new-privs \"\$@\"" sh "$@"
}
# strace_unit CMD...: as_unit, with the system calls of CMD in $sv_tmp/unit/trace
strace_unit() { as_unit strace -f -qq -o "$sv_tmp/unit/trace" "$@"; }
# syscall_set GROUP...: the system calls in systemd's GROUPs (@system-service, ...)
syscall_set() {
	for g; do
		systemd-analyze syscall-filter 2> /dev/null | awk -v G="$g" '
			/^@/ { grp = $1; next }
			/^ *#/ || NF == 0 { next }
			{ m[grp] = m[grp] " " $1 }
			function add(g,   n, a, i) { n = split(m[g], a, " "); for (i = 1; i <= n; i++) if (a[i] ~ /^@/) add(a[i]); else out[a[i]] = 1 }
			END { add(G); for (s in out) print s }'
	done | sort -u
}
if [ "$(id -u)" != 0 ]; then
	skip "thp-serve.service emulated: needs root (a mount namespace, setpriv)"
elif ! command -v strace > /dev/null || ! command -v systemd-analyze > /dev/null; then
	skip "thp-serve.service emulated: needs strace and systemd-analyze"
elif [ -z "$HOG" ]; then
	skip "thp-serve.service emulated: HOG (tests/live/hog) is not set"
else
	# root's hog, with an environment the doctor reports on (/proc/PID/environ is 0400)
	hog_start env MALLOC_CONF=thp:always "$HOG" 16 --huge
	"$THP" metrics --pids > "$sv_tmp/root.prom"
	(as_unit "$THP" metrics --pids) > "$sv_tmp/unit.prom"
	expect "as the unit runs it, metrics reads the memory of another user's process (root's hog)" \
		grep -q "^thp_process_anon_huge_bytes{pid=\"$hog_pid\"" "$sv_tmp/unit.prom"
	expect "as the unit runs it, metrics reads the environment of another user's process (jemalloc-thp)" \
		grep -q '^thp_doctor_findings{id="jemalloc-thp"' "$sv_tmp/unit.prom"
	unreadable() { awk '$1 == "thp_processes_unreadable" {print $2}' "$1"; }
	# (hidepid=invisible hides what even CAP_SYS_PTRACE may not read: not counted)
	expect "as the unit runs it, metrics finds no more unreadable processes than root ($(unreadable "$sv_tmp/unit.prom") and $(unreadable "$sv_tmp/root.prom"))" \
		[ "$(unreadable "$sv_tmp/unit.prom")" -le "$(unreadable "$sv_tmp/root.prom")" ]

	mkdir "$sv_tmp/unit"
	chown 65534 "$sv_tmp/unit"
	chmod 711 "$sv_tmp"
	sv_wrap=strace_unit sv_start /
	if [ -z "$sv_port" ]; then
		bad "thp serve as the unit runs it did not start: $(cat "$sv_tmp/err.$$")"
	else
		expect "thp serve as the unit runs it: /metrics answered" curl -sf -o /dev/null --max-time 10 "http://127.0.0.1:$sv_port/metrics"
		curl -s -o /dev/null --max-time 10 "http://127.0.0.1:$sv_port/nope"
		python3 tests/live/slowconn.py "$sv_port" 20 1 one > /dev/null
		kill "$(pgrep -P "$sv_pid")"
		wait "$sv_pid"
		trace=$sv_tmp/unit/trace
		allow=$(unit_val SystemCallFilter | grep -v '^~')
		deny=$(unit_val SystemCallFilter | sed -n 's/^~//p')
		# shellcheck disable=SC2086
		syscall_set $allow > "$sv_tmp/allow"
		# shellcheck disable=SC2086
		syscall_set $deny | comm -13 - "$sv_tmp/allow" > "$sv_tmp/allowed"
		sed -n 's/^[0-9]* \([a-z0-9_]*\)(.*/\1/p' "$trace" | sort -u > "$sv_tmp/used"
		expect "every system call thp serve made is in the unit's SystemCallFilter= (not: $(comm -23 "$sv_tmp/used" "$sv_tmp/allowed" | tr '\n' ' '))" \
			[ -z "$(comm -23 "$sv_tmp/used" "$sv_tmp/allowed")" ]
		families=$(sed -n 's/^[0-9]* socket(\(AF_[A-Z0-9]*\),.*/\1/p' "$trace" | sort -u | tr '\n' ' ')
		expect "thp serve opened sockets of the unit's RestrictAddressFamilies= only ($families)" \
			sh -c "for f in $families; do echo ' $(unit_val RestrictAddressFamilies) ' | grep -q \" \$f \" || exit 1; done"
		expect "thp serve mapped no memory writable and executable (MemoryDenyWriteExecute=yes)" \
			sh -c "! grep -qE 'mmap\(.*PROT_WRITE\|PROT_EXEC|mprotect\(.*PROT_EXEC' '$trace'"
	fi
	hog_stop
fi
sv_cleanup
live_traps
