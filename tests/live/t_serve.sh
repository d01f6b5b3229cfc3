# SPDX-License-Identifier: GPL-2.0-or-later
# thp metrics on the live host, and thp serve on loopback: endpoints, bad
# requests, concurrent scrapes, and a real Prometheus server scraping it.
sv_tmp=$(mktemp -d)
sv_pids=
sv_cleanup() { for p in $sv_pids; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done; rm -rf "$sv_tmp"; }
trap 'sv_cleanup' EXIT INT TERM

# sv_start ROOT: starts thp serve on a free loopback port; sets sv_pid and sv_port
sv_start() {
	"$THP" --root "$1" serve --listen 127.0.0.1:0 2> "$sv_tmp/err.$$" &
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

if command -v promtool > /dev/null; then
	expect "promtool check metrics on the live host" sh -c "'$THP' metrics | promtool check metrics"
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
	size=$(wc -c < "$sv_tmp/want")
	for c in 1 2 3 4 5 6 7 8; do
		(for i in $(seq 25); do curl -s -o /dev/null --max-time 20 -w '%{http_code} %{size_download}\n' $U/metrics; done > "$sv_tmp/load.$c") &
	done
	wait_load=0
	while [ "$(cat "$sv_tmp"/load.* 2> /dev/null | wc -l)" -lt 200 ] && [ $wait_load -lt 600 ]; do sleep 0.1; wait_load=$((wait_load + 1)); done
	sleep 0.2
	expect "200 concurrent scrapes from 8 clients all answered 200 with the full body" \
		[ "$(cat "$sv_tmp"/load.* | grep -c "^200 $size\$")" = 200 ]

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

# serving the live host: a scrape passes promtool
sv_start /
if [ -n "$sv_port" ] && command -v promtool > /dev/null; then
	expect "a live scrape passes promtool" sh -c "curl -sf --max-time 10 http://127.0.0.1:$sv_port/metrics | promtool check metrics"
fi
sv_cleanup
trap - EXIT INT TERM
