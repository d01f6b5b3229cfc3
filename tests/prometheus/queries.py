# SPDX-License-Identifier: GPL-2.0-or-later
"""Asks a running Prometheus (the HTTP API, urllib) every PromQL expression of
the rules file and of the Grafana dashboard, waits until every rule has been
evaluated, and checks the alerts expected to be pending or firing. Prints one
line per check: "PASS what" or "FAIL what: why".

usage: queries.py URL RULES DASHBOARD [ALERTNAME...]"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

import yaml


def api(base, path, **params):
    url = base + path + ("?" + urllib.parse.urlencode(params) if params else "")
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # 400/422: the body says why
        return json.load(e)


def rule_exprs(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    for g in doc["groups"]:
        for r in g["rules"]:
            yield "rule %s" % (r.get("record") or r.get("alert")), r["expr"]


def dashboard_exprs(path):
    with open(path) as f:
        dash = json.load(f)
    for v in dash["templating"]["list"]:
        q = v.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        m = re.fullmatch(r"label_values\((.*),\s*\w+\)", q or "")
        if m:
            yield "variable $%s" % v["name"], m.group(1)
    for p in dash["panels"]:
        for t in p.get("targets", []):
            yield "panel '%s' %s" % (p["title"], t["refId"]), t["expr"]


def grafana_to_promql(expr):
    """What Grafana sends for the dashboard's variables: every host, a 1m rate window."""
    return expr.replace("$instance", ".*").replace("$__rate_interval", "1m")


def main():
    base, rules, dash, want_alerts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    fails = 0

    def check(ok, what, why=""):
        nonlocal fails
        fails += not ok
        print("PASS %s" % what if ok else "FAIL %s: %s" % (what, why))

    # every rule evaluated at least once, without error
    deadline = time.time() + 20
    while True:
        groups = api(base, "/api/v1/rules")["data"]["groups"]
        rs = [r for g in groups for r in g["rules"]]
        # a rule not evaluated yet shows Go's zero time
        if rs and all(not r.get("lastEvaluation", "0001").startswith("0001") for r in rs) or \
                time.time() > deadline:
            break
        time.sleep(0.5)
    check(len(rs) == sum(1 for _ in rule_exprs(rules)), "Prometheus loaded every rule",
          "%d rules loaded" % len(rs))
    for r in rs:
        check(r["health"] == "ok", "rule %s evaluates" % r["name"], r.get("lastError", r["health"]))

    n = data = 0
    for what, expr in list(rule_exprs(rules)) + list(dashboard_exprs(dash)):
        res = api(base, "/api/v1/query", query=grafana_to_promql(expr))
        check(res.get("status") == "success", "%s runs" % what, res.get("error", res))
        n += 1
        data += bool(res.get("data", {}).get("result"))
    print("# %d expressions asked, %d with data now" % (n, data))

    alerts = api(base, "/api/v1/alerts")["data"]["alerts"]
    for a in want_alerts:
        states = [x["state"] for x in alerts if x["labels"]["alertname"] == a]
        check(bool(states), "alert %s is pending or firing" % a, "not active")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
