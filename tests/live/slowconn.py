#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Slow HTTP clients (slowloris) for the thp serve tests.

usage: slowconn.py PORT COUNT SECONDS SOURCES

Opens COUNT connections to 127.0.0.1:PORT, each from a loopback source address:
SOURCES is "one" (all from 127.0.0.2) or "many" (127.0.1.1, 127.0.1.2, ...,
one address per connection). Each connection sends a request line and then one
header byte per second, never finishing the headers, for SECONDS seconds.
Prints "opened N" once every connection is made, then at the end
"alive N": how many connections the server had not closed.
"""
import select
import socket
import sys
import time


def source(kind, i):
    return "127.0.0.2" if kind == "one" else "127.0.%d.%d" % (1 + i // 250, 1 + i % 250)


def closed_by_peer(s):
    """True when the server closed or reset the connection."""
    readable, _, _ = select.select([s], [], [], 0)
    if not readable:
        return False
    try:
        return s.recv(4096, socket.MSG_DONTWAIT) == b""
    except OSError:
        return True


def main():
    port, count, seconds, kind = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    conns = []
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((source(kind, i), 0))
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
        except OSError:
            s.close()
            continue
        conns.append(s)
    print("opened %d" % len(conns), flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(min(1.0, max(0.0, end - time.monotonic())))
        live = []
        for s in conns:
            try:
                if closed_by_peer(s):
                    raise OSError
                s.send(b"a")
                live.append(s)
            except OSError:
                s.close()
        conns = live
    print("alive %d" % sum(not closed_by_peer(s) for s in conns), flush=True)


if __name__ == "__main__":
    main()
