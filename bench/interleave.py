#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""interleave - time commands in turn, round after round, so that a change of
load on a shared machine falls on all of them alike; print each median (wall
and CPU) and its ratio to the first command, the reference.

    interleave.py [--runs N] [--warmup N] NAME=COMMAND [NAME=COMMAND ...]

Commands are split like a shell would (no shell runs them); their output is
discarded and their exit status ignored."""
import argparse
import os
import resource
import shlex
import statistics
import subprocess
import time


def run_once(argv):
    """Wall seconds and CPU seconds (user + system) of one run of ARGV."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "10")))
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("commands", nargs="+", metavar="NAME=COMMAND")
    a = ap.parse_args()
    named = [c.split("=", 1) for c in a.commands]
    argvs = [shlex.split(cmd) for _, cmd in named]
    for _ in range(a.warmup):
        for argv in argvs:
            run_once(argv)
    walls = [[] for _ in named]
    cpus = [[] for _ in named]
    load0 = os.getloadavg()[0]
    for r in range(a.runs):
        # each round starts with a different command, so none always runs first
        for k in range(len(argvs)):
            i = (k + r) % len(argvs)
            w, c = run_once(argvs[i])
            walls[i].append(w)
            cpus[i].append(c)
    load1 = os.getloadavg()[0]
    ref_w = statistics.median(walls[0])
    ref_c = statistics.median(cpus[0])
    print(f"({a.runs} interleaved runs each, load average {load0:.2f} before, {load1:.2f} after)")
    for (name, _), w, c in zip(named, walls, cpus):
        mw, mc = statistics.median(w), statistics.median(c)
        line = f"{name}: median {mw * 1000:.1f} ms wall, {mc * 1000:.1f} ms CPU"
        if name != named[0][0]:
            line += f"; {mw / ref_w:.2f}x {named[0][0]} (wall), {mc / ref_c:.2f}x (CPU)"
        print(line)


if __name__ == "__main__":
    main()
