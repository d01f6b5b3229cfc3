#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""threads - the CPU time of each thread of a command, and of its busiest
one: on a shared machine, where the command waits for CPUs, what it would
take on CPUs of its own is about the busiest thread's time (its critical
path), not the wall time.

    threads.py [--runs N] COMMAND [ARG...]

Samples /proc/PID/task/*/schedstat every millisecond while the command
runs (a thread that ends between two samples loses at most that much);
prints the medians over N runs (default 5) of the total CPU time and of the
busiest thread's, and their ratio: the speedup its threads could give."""
import argparse
import os
import statistics
import subprocess
import time


def sample(pid, seen):
    """Adds the run time (ns) of each thread of PID to SEEN, by thread id."""
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    seen[tid] = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        pass


def run_once(argv):
    """Total and busiest thread's CPU seconds of one run of ARGV."""
    seen = {}
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while p.poll() is None:
        sample(p.pid, seen)
        time.sleep(0.001)
    times = list(seen.values()) or [0]
    return sum(times) / 1e9, max(times) / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    runs = [run_once(a.command) for _ in range(a.runs)]
    total = statistics.median(r[0] for r in runs)
    busiest = statistics.median(r[1] for r in runs)
    print(f"{' '.join(a.command[1:])}: CPU {total * 1000:.1f} ms in all, "
          f"{busiest * 1000:.1f} ms in the busiest thread ({total / busiest:.2f}x)")


if __name__ == "__main__":
    main()
