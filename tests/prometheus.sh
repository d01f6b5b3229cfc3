#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Prometheus rules and Grafana dashboard of contrib/: promtool checks and
# unit tests of the rules (tests/prometheus/rules.test.yml), the names and
# units of what they and the dashboard select (tests/prometheus/names.py), then a real
# Prometheus server that scrapes two running 'thp serve' of recorded hosts,
# evaluates the rules, and answers every PromQL expression of the rules and
# the dashboard without error (tests/prometheus/queries.py). Also the sample
# systemd units. Every process started here is stopped on exit.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2> /dev/null; done
	for p in $pids; do wait "$p" 2> /dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM
RULES=contrib/prometheus/thp.rules.yml
DASH=contrib/grafana/thp.json
PY=/usr/bin/python3

# what the rules and the dashboard select is what 'thp metrics' exports on the
# fixtures, with no option; one unit per family (tests/prometheus/names.py)
for fx in tests/fixtures/*/; do "$THP" --root "$fx" metrics 2> /dev/null; done > "$tmp/expo"
$PY tests/prometheus/names.py "$RULES" "$DASH" < "$tmp/expo" > "$tmp/names" 2>&1
expect "names.py ran" grep -q '^PASS ' "$tmp/names"
while read -r verdict what; do
	case $verdict in
	PASS) ok "$what" ;;
	FAIL) bad "$what" ;;
	*) bad "names.py: $verdict $what" ;;
	esac
done < "$tmp/names"

if ! command -v promtool > /dev/null || ! command -v prometheus > /dev/null; then
	skip "Prometheus rules: promtool and prometheus (Debian package prometheus) are not installed"
	summary prometheus
	exit
fi
expect "promtool check rules" sh -c "promtool check rules $RULES > '$tmp/out' 2>&1"
expect "promtool test rules (every alert fires on its input series)" sh -c "promtool test rules tests/prometheus/rules.test.yml > '$tmp/out' 2>&1 || { cat '$tmp/out'; false; }"
nalerts=$($PY -c "import yaml; print(sum(1 for g in yaml.safe_load(open('$RULES'))['groups'] for r in g['rules'] if 'alert' in r))")
expect "at least 5 alerts ($nalerts)" [ "$nalerts" -ge 5 ]
expect "every alert has a runbook_url, the manual, and no runbook" $PY -c "
import yaml, sys
rs = [r for g in yaml.safe_load(open('$RULES'))['groups'] for r in g['rules'] if 'alert' in r]
sys.exit(any(r['annotations'].get('runbook_url') != 'man:thp(1)' or 'runbook' in r['annotations'] for r in rs))"
expect "every alert's description ends with the thp commands to run" $PY -c "
import yaml, re, sys
rs = [r for g in yaml.safe_load(open('$RULES'))['groups'] for r in g['rules'] if 'alert' in r]
sys.exit(any(not re.search(r'On the host: thp .*\.\n\Z', r['annotations']['description']) for r in rs))"
expect "the manual has a runbook for every alert" $PY -c "
import yaml, re, sys
rs = [r['alert'] for g in yaml.safe_load(open('$RULES'))['groups'] for r in g['rules'] if 'alert' in r]
man = open('man/thp.1.scd').read()
sys.exit(any(not re.search(r'^\*%s\*\n\t' % a, man, re.M) for a in rs))"
expect "every alert is tested by promtool" $PY -c "
import yaml, sys
rs = {r['alert'] for g in yaml.safe_load(open('$RULES'))['groups'] for r in g['rules'] if 'alert' in r}
tested = {a['alertname'] for t in yaml.safe_load(open('tests/prometheus/rules.test.yml'))['tests']
          for a in t.get('alert_rule_test', []) if a['exp_alerts']}
sys.exit(bool(rs - tested))"
expect "the dashboard is JSON with queries" sh -c "jq -e '[.panels[].targets[]?.expr] | length > 10' $DASH > /dev/null"

# serve_start FIXTURE: 'thp serve' of FIXTURE on a free loopback port; sets port
serve_start() {
	"$THP" --root "$1" serve --listen 127.0.0.1:0 2> "$tmp/serve.err" &
	pids="$pids $!"
	port=
	for _ in $(seq 100); do
		port=$(sed -n 's|^thp: serving http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$tmp/serve.err")
		[ -n "$port" ] && break
		sleep 0.05
	done
}
serve_start tests/fixtures/always-always
a=$port
serve_start tests/fixtures/doctor-fragmented-always
b=$port
prom=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if [ -z "$a" ] || [ -z "$b" ]; then
	bad "thp serve did not start: $(cat "$tmp/serve.err")"
	summary prometheus
	exit
fi
cat > "$tmp/prometheus.yml" << EOC
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $PWD/$RULES
scrape_configs:
  - job_name: thp
    static_configs:
      - targets: ["127.0.0.1:$a", "127.0.0.1:$b"]
EOC
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$prom" --log.level=error > "$tmp/prom.log" 2>&1 &
pids="$pids $!"
U=http://127.0.0.1:$prom
up=
for _ in $(seq 100); do
	up=$(curl -s --max-time 2 "$U/api/v1/query?query=sum(up)" | jq -r '.data.result[0].value[1] // empty' 2> /dev/null)
	[ "$up" = 2 ] && break
	sleep 0.2
done
expect "Prometheus scrapes both thp serve targets (up: '$up')" [ "$up" = 2 ]
sleep 3 # a few scrapes, so that rates have two samples
$PY tests/prometheus/queries.py "$U" "$RULES" "$DASH" ThpAlwaysAlwaysOnDatabaseHost ThpDoctorCritical > "$tmp/q" 2>&1
expect "queries.py ran" grep -q '^# ' "$tmp/q"
while read -r verdict what; do
	case $verdict in
	PASS) ok "$what" ;;
	FAIL) bad "$what" ;;
	'#') echo "prometheus: $what" ;;
	*) bad "queries.py: $verdict $what" ;;
	esac
done < "$tmp/q"

# the systemd units, as 'make units' makes them for the thp under test, pass
# systemd-analyze without a warning
if command -v systemd-analyze > /dev/null; then
	mkdir "$tmp/units"
	expect "make units" sh -c "env -u MAKEFLAGS -u MAKELEVEL make -s units UNITS_DIR='$tmp/units' BINDIR='$(dirname "$(realpath "$THP")")' > '$tmp/make.log' 2>&1"
	expect "units: systemd-analyze verify is silent" sh -c "cd '$tmp/units' && systemd-analyze verify --man=no thp-serve.service thp-metrics.service thp-metrics.timer > out 2>&1 && [ ! -s out ]"
else
	skip "units: systemd-analyze is not installed"
fi
summary prometheus
