#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A test workload that maps shared memory, touches every page, prints
"ready ADDRESS" and holds it until standard input closes.

  maphold.py file PATH MIB      a shared mapping of file PATH (made MIB long)
  maphold.py hugetlb MIB        a memfd of static huge pages (MFD_HUGETLB)
"""
import ctypes
import mmap
import os
import sys


def main():
    kind = sys.argv[1]
    if kind == 'file':
        size = int(sys.argv[3]) << 20
        fd = os.open(sys.argv[2], os.O_RDWR | os.O_CREAT, 0o600)
    else:
        size = int(sys.argv[2]) << 20
        fd = os.memfd_create('maphold', os.MFD_HUGETLB)
    os.ftruncate(fd, size)
    m = mmap.mmap(fd, size, mmap.MAP_SHARED)
    for off in range(0, size, 4096):
        m[off] = 1
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    print(f'ready {addr:#x}', flush=True)
    sys.stdin.read()


if __name__ == '__main__':
    main()
