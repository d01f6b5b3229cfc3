# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs the thp command for the modules of thp.thp: the binary, --root, and
the JSON it prints."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json

COMMON_OPTIONS = dict(
    root=dict(type="path"),
    binary=dict(type="str", default="thp"),
)


class Thp(object):
    """The thp command of one module run."""

    def __init__(self, module):
        self.module = module
        binary = module.params["binary"]
        self.binary = binary if "/" in binary else module.get_bin_path(binary, required=True)
        self.root = module.params.get("root")

    def run(self, args, ok=(0,)):
        """Runs thp with ARGS; returns (rc, stdout, stderr). Fails the module
        with thp's own message when the exit status is not in OK."""
        cmd = [self.binary] + (["--root", self.root] if self.root else []) + list(args)
        rc, out, err = self.module.run_command(cmd)
        if rc not in ok:
            self.fail(rc, out, err, cmd)
        return rc, out, err

    def fail(self, rc, out, err, cmd):
        msg = err.strip() or out.strip() or "thp exited with status %d" % rc
        self.module.fail_json(msg=msg, rc=rc, cmd=cmd, stdout=out, stderr=err)

    def json(self, args, ok=(0,)):
        """Runs thp with ARGS and returns the JSON document it prints; a run that
        prints none fails with thp's message."""
        rc, out, err = self.run(args, ok)
        try:
            return json.loads(out)
        except ValueError:
            self.fail(rc, out, err, args)


def pairs(settings):
    """KEY=VALUE arguments of a dict, in a stable order; booleans as 0/1 as the kernel writes them."""
    out = []
    for key in sorted(settings):
        value = settings[key]
        if isinstance(value, bool):
            value = int(value)
        out.append("%s=%s" % (key, value))
    return out


def size_name(size):
    """A page size in bytes as thp names it: "64K", "2M", "1G"."""
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if size % (1 << shift) == 0:
            return "%d%s" % (size >> shift, unit)
    return str(size)
