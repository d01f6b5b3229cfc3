#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ansible module thp_hugetlb: static huge page pools through 'thp hugetlb set',
kept at boot through 'thp hugetlb persist'."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
---
module: thp_hugetlb
short_description: Size static huge page pools (hugetlbfs) with thp
description:
  - "Sets the number of static huge pages (hugetlbfs) of each page size, host-wide or on
    one NUMA node, with C(thp hugetlb set), which reports how many pages the kernel
    really gave: memory may be too fragmented for a large pool after boot."
  - Idempotent. C(thp hugetlb set --dry-run --json) tells which pools differ; the module
    writes only when one does, and reports C(changed) only then.
  - "With I(persist), also keeps the pools at every boot with C(thp hugetlb persist): the
    pool of the default page size in C(/etc/sysctl.d/90-thp-hugetlb.conf), other sizes and
    the pools of a node in C(/etc/tmpfiles.d/thp-hugetlb.conf). Pages of 1 GiB and more are
    reserved only on the kernel command line: the module returns the options in I(cmdline)
    and warns; add them to the bootloader."
  - Supports check mode and diff mode (each pool before and after, and the files boot reads).
  - Fails with thp's message on an unknown size or a bad count, writing nothing, and when
    the kernel gives fewer pages than asked (the pool then holds what the kernel gave).
version_added: 0.1.0
author: thp maintainers
extends_documentation_fragment:
  - thp.thp.thp
options:
  pools:
    description:
      - "Pages wanted per page size, for example C(2M: 512), C(1G: 4). Sizes as
        C(thp hugetlb) names them; C(thp hugetlb) on the host lists the sizes it has."
    type: dict
    required: true
  node:
    description:
      - Size the pools of this NUMA node instead of the host-wide ones.
    type: int
  persist:
    description:
      - "Also keep exactly these pools at every boot (C(thp hugetlb persist)). One task per
        host should own pool persistence, since the files hold the pools of the last task
        that persisted; pools of several NUMA nodes are kept with C(thp hugetlb persist
        node0:2M=512 node1:2M=512) on the host."
      - A file of pools that thp did not write is never replaced; the task fails instead.
      - "Boot may give fewer pages than asked when memory is already fragmented; C(thp
        persist --check) or M(thp.thp.thp_facts) with I(doctor) show a pool that came back
        short."
    type: bool
    default: false
notes:
  - Writing pools needs root on the managed host (C(become)).
  - Without I(persist), pools set here last until the next boot.
seealso:
  - module: thp.thp.thp_settings
  - module: thp.thp.thp_facts
"""

EXAMPLES = r"""
- name: 8 GiB of 2 MiB static pages for the database's shared buffers, kept at boot
  thp.thp.thp_hugetlb:
    pools:
      2M: 4096
    persist: true
  become: true

- name: Four 1 GiB pages now; the options that reserve them at boot are returned in cmdline
  thp.thp.thp_hugetlb:
    pools:
      1G: 4
    persist: true
  become: true
"""

RETURN = r"""
pools:
  description: Every pool asked for, with its pages before and after, and whether it changed.
  returned: always
  type: list
  elements: dict
  sample: [{"size": 2097152, "before": 0, "requested": 4096, "after": 4096, "changed": true}]
persisted:
  description: The files that keep the pools at boot, when I(persist) is set (none when every pool
    is of 1 GiB or more).
  returned: when I(persist) is true
  type: list
  elements: str
  sample: [/etc/sysctl.d/90-thp-hugetlb.conf]
cmdline:
  description: The kernel command-line options that reserve the pools of 1 GiB pages and more at boot
    ("" when there is none).
  returned: when I(persist) is true
  type: str
  sample: hugepagesz=1G hugepages=4
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.thp.thp.plugins.module_utils.thp import COMMON_OPTIONS, Thp, pairs, size_name


def persist(module, thp, args, result):
    """Keeps the pools of ARGS at boot (thp hugetlb persist), in check mode
    only saying whether that changes the files boot reads."""
    kept = thp.json(["hugetlb", "persist", "--dry-run", "--json"] + args)
    files = [f for f in kept["files"] if f["changed"]]
    result["persisted"] = [f["path"] for f in kept["files"] if f["content"] is not None]
    result["cmdline"] = kept["cmdline"]
    for f in files:
        if f["foreign"]:
            module.fail_json(msg="'%s' exists and was not written by thp; move it away" % f["path"], **result)
    if kept["cmdline"]:
        module.warn("pages of 1 GiB and more are reserved only on the kernel command line: add '%s' "
                    "to the bootloader's options" % kept["cmdline"])
    if not files:
        return
    result["changed"] = True
    if module._diff:
        result["diff"] = [result["diff"]] + [dict(before=f["current"] or "", after=f["content"] or "",
                                                  before_header=f["path"], after_header=f["path"])
                                             for f in files]
    if not module.check_mode:
        thp.run(["hugetlb", "persist"] + args)


def main():
    module = AnsibleModule(
        argument_spec=dict(pools=dict(type="dict", required=True), node=dict(type="int"),
                           persist=dict(type="bool", default=False), **COMMON_OPTIONS),
        supports_check_mode=True,
    )
    thp = Thp(module)
    args = pairs(module.params["pools"])
    if not args:
        module.fail_json(msg="pools: give at least one SIZE: PAGES")
    if module.params["node"] is not None:
        args += ["--node", str(module.params["node"])]
    plan = thp.json(["hugetlb", "set", "--dry-run", "--json"] + args)
    pools = [dict(size=c["size"], before=c["before"], requested=c["requested"], after=c["requested"],
                  changed=c["before"] != c["requested"]) for c in plan["changes"]]
    changed = any(p["changed"] for p in pools)
    result = dict(changed=changed, pools=pools)
    if module._diff:
        result["diff"] = dict(before="".join("%s=%d\n" % (size_name(p["size"]), p["before"]) for p in pools),
                              after="".join("%s=%d\n" % (size_name(p["size"]), p["requested"]) for p in pools),
                              before_header="static pools (SIZE=PAGES)", after_header="static pools (SIZE=PAGES)")
    bad = []
    if changed and not module.check_mode:
        # exit 1 with a document: a pool could not be written, or the kernel gave fewer pages
        done = thp.json(["hugetlb", "set", "--json"] + args, ok=(0, 1))
        for p, c in zip(pools, done["changes"]):
            p["after"] = c["after"]
            p["error"] = c["error"]
        bad = [p for p in pools if p["error"] or p["after"] != p["requested"]]
    # kept at boot even when the kernel gave fewer pages now: boot, before memory fragments, may give them
    if module.params["persist"]:
        persist(module, thp, args, result)
    if bad:
        result["changed"] = True
        module.fail_json(msg="; ".join(
            "pool of %s pages: %s" % (size_name(p["size"]), p["error"] or "the kernel gave %s of %d pages" % (
                p["after"], p["requested"])) for p in bad), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
