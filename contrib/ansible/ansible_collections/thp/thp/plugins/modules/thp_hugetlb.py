#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ansible module thp_hugetlb: static huge page pools through 'thp hugetlb set'."""

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
  - Supports check mode and diff mode (each pool before and after).
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
notes:
  - Writing pools needs root on the managed host (C(become)).
  - Pools set here do not survive reboot; for pages of 1 GiB, reserve them on the kernel
    command line (C(thp hugetlb plan) prints the options).
seealso:
  - module: thp.thp.thp_settings
  - module: thp.thp.thp_facts
"""

EXAMPLES = r"""
- name: 8 GiB of 2 MiB static pages for the database's shared buffers
  thp.thp.thp_hugetlb:
    pools:
      2M: 4096
  become: true
"""

RETURN = r"""
pools:
  description: Every pool asked for, with its pages before and after, and whether it changed.
  returned: always
  type: list
  elements: dict
  sample: [{"size": 2097152, "before": 0, "requested": 4096, "after": 4096, "changed": true}]
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.thp.thp.plugins.module_utils.thp import COMMON_OPTIONS, Thp, pairs, size_name


def main():
    module = AnsibleModule(
        argument_spec=dict(pools=dict(type="dict", required=True), node=dict(type="int"), **COMMON_OPTIONS),
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
    if changed and not module.check_mode:
        # exit 1 with a document: a pool could not be written, or the kernel gave fewer pages
        done = thp.json(["hugetlb", "set", "--json"] + args, ok=(0, 1))
        for p, c in zip(pools, done["changes"]):
            p["after"] = c["after"]
            p["error"] = c["error"]
        bad = [p for p in pools if p["error"] or p["after"] != p["requested"]]
        if bad:
            module.fail_json(msg="; ".join(
                "pool of %s pages: %s" % (size_name(p["size"]), p["error"] or "the kernel gave %s of %d pages" % (
                    p["after"], p["requested"])) for p in bad), changed=True, pools=pools)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
