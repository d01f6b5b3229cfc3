#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hosts - a fleet of host documents for the 'thp report' benchmark.

    hosts.py DIR N STATUS DOCTOR

Writes N files DIR/host-NNNNN.json, each a 'thp status --json' and a 'thp
doctor --json' document (those of files STATUS and DOCTOR) of its own host
name; one host in ten has another THP policy (enabled=madvise, or never when
the documents have madvise), so that the hosts make two groups."""
import json
import sys


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    with open(sys.argv[3]) as f:
        status = json.load(f)
    with open(sys.argv[4]) as f:
        doctor = json.load(f)
    enabled = next(s for s in status["settings"] if s["name"] == "enabled")
    usual = enabled["value"]
    other = "never" if usual == "madvise" else "madvise"
    for i in range(n):
        name = "host-%05d" % i
        status["host"] = doctor["host"] = name
        enabled["value"] = other if i % 10 == 9 else usual
        with open("%s/%s.json" % (out, name), "w") as f:
            json.dump(status, f, indent=2)
            f.write("\n")
            json.dump(doctor, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
