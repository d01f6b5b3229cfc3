# SPDX-License-Identifier: GPL-2.0-or-later
"""The options every module of thp.thp takes (extends_documentation_fragment: thp.thp.thp);
module_utils/thp.py declares them for the argument spec."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options:
  root:
    description:
      - Use the recorded tree below this directory (C(thp --root)), such as a copy of a
        capture, instead of the running kernel; for testing playbooks.
    type: path
  binary:
    description:
      - "The thp command: a name looked up in C(PATH), or a path."
    type: str
    default: thp
requirements:
  - thp (the command) on the managed host
"""
