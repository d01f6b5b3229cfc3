# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks the metric names of the rules and the dashboard, and the units of
the families, against what 'thp metrics' prints (read from standard input:
the expositions of every fixture, concatenated). Prints one line per check:
"PASS what" or "FAIL what: why".

usage: names.py RULES DASHBOARD < EXPOSITIONS"""
import re
import sys

from queries import dashboard_exprs, rule_exprs

KEYWORDS = {"and", "or", "unless", "bool", "by", "without", "on", "ignoring",
            "group_left", "group_right", "offset", "inf", "nan"}
# a setting label naming a unit, and the base unit a family of it must end in
UNITS = [(re.compile(r"(^|_)k?bytes$"), "bytes"), (re.compile(r"(^|_)(milli)?secs$"), "seconds")]


def metric_names(expr):
    """The metric names EXPR selects: its identifiers once strings, label
    matchers, ranges, grouping clauses and function names are taken out."""
    e = re.sub(r'"(\\.|[^"\\])*"', "", expr)
    e = re.sub(r"\{[^}]*\}|\[[^]]*\]", " ", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    names = set()
    for m in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", e):
        rest = e[m.end():].lstrip()
        if not rest.startswith("(") and m.group(0).lower() not in KEYWORDS and \
                not re.match(r"\d", m.group(0)):
            names.add(m.group(0))
    return names


def main():
    rules, dash = sys.argv[1], sys.argv[2]
    families, unit_of = set(), {}
    fails = 0

    def check(ok, what, why=""):
        nonlocal fails
        fails += not ok
        print("PASS %s" % what if ok else "FAIL %s: %s" % (what, why))

    for line in sys.stdin:
        m = re.match(r"# TYPE (\S+) ", line)
        if m:
            families.add(m.group(1))
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} ", line)
        if not m:
            continue
        for value in re.findall(r'(?:^|,)setting="((?:\\.|[^"\\])*)"', m.group(2)):
            for pattern, unit in UNITS:
                if pattern.search(value):
                    unit_of.setdefault(m.group(1), set()).add((value, unit))
    check(len(families) > 50, "the expositions have families", "%d" % len(families))

    # one unit per family, which its name ends in
    for fam in sorted(families):
        units = unit_of.get(fam, set())
        mixed = [v for v, u in units if not fam.endswith("_" + u)]
        check(not mixed, "family %s holds only what its name says" % fam,
              "samples %s are not in its unit" % ", ".join(sorted(mixed)))

    recorded = {r for what, _ in rule_exprs(rules) for r in [what.split(" ", 1)[1]] if ":" in r}
    for what, expr in list(rule_exprs(rules)) + list(dashboard_exprs(dash)):
        names = metric_names(expr)
        unknown = sorted(n for n in names if n not in families and n not in recorded and n != "ALERTS")
        check(names and not unknown, "%s selects only families thp metrics exports" % what,
              "not exported: %s" % ", ".join(unknown) if names else "no metric name found")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
