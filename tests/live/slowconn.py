#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Slow and idle HTTP clients (slowloris) for the thp serve tests.

usage: slowconn.py PORT COUNT SECONDS SOURCES [idle] [reconnect]

Opens COUNT connections to 127.0.0.1:PORT, each from a loopback source address:
SOURCES is an address (all from it; "one" is 127.0.0.2), or "many" (127.0.1.1,
127.0.1.2, ..., one address per connection) or "many:B" (the same from
127.B.0.1). Each connection sends a request line and then one header byte per
second, never finishing the headers, for SECONDS seconds; with "idle" it sends
nothing at all. With "reconnect", a connection the server closed is opened
again at the next second, as an attacker would.
Prints "opened N" once every connection is made, then at the end
"alive N closed M": how many connections the server had not closed, and how
many it closed in all.
"""
import select
import socket
import sys
import time


def source(kind, i):
    if kind == "one":
        return "127.0.0.2"
    if kind == "many" or kind.startswith("many:"):
        b = int(kind[5:]) if kind.startswith("many:") else 0
        return "127.%d.%d.%d" % (b, 1 + i // 250 if b == 0 else i // 250, 1 + i % 250)
    return kind


def closed_by_peer(s):
    """True when the server closed or reset the connection."""
    p = select.poll()
    p.register(s, select.POLLIN)
    if not p.poll(0):
        return False
    try:
        return s.recv(4096, socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def connect(port, addr, idle):
    """A connection from ADDR that sent its request line (none when IDLE), or None."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind((addr, 0))
        s.settimeout(3)
        s.connect(("127.0.0.1", port))
        if not idle:
            s.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
    except OSError:
        s.close()
        return None
    return s


def main():
    port, count, seconds, kind = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    idle, reconnect = "idle" in sys.argv[5:], "reconnect" in sys.argv[5:]
    conns = [connect(port, source(kind, i), idle) for i in range(count)]
    print("opened %d" % sum(s is not None for s in conns), flush=True)
    closed = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(min(1.0, max(0.0, end - time.monotonic())))
        for i, s in enumerate(conns):
            try:
                if s is None or closed_by_peer(s):
                    raise OSError
                if not idle:
                    s.send(b"a")
            except OSError:
                if s is not None:
                    s.close()
                    closed += 1
                conns[i] = connect(port, source(kind, i), idle) if reconnect else None
    alive = sum(s is not None and not closed_by_peer(s) for s in conns)
    print("alive %d closed %d" % (alive, closed), flush=True)


if __name__ == "__main__":
    main()
