#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ansible module thp_settings: THP settings through 'thp set' and 'thp persist'."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
---
module: thp_settings
short_description: Set Transparent Huge Pages settings with thp, and keep them across reboot
description:
  - Sets THP settings (global, khugepaged and per-size mTHP) with C(thp set), which checks
    every value against what the running kernel accepts before the first write, reads each
    write back, and rolls back every setting already written when one fails.
  - Idempotent. C(thp set --dry-run --json) tells which settings differ; the module writes
    only when one does, and reports C(changed) only then.
  - Supports check mode (reports what would change, writes nothing) and diff mode
    (each setting before and after).
  - An invalid key or value fails the task with thp's own message, and nothing is written.
  - With I(persist), also writes the tmpfiles.d drop-in C(/etc/tmpfiles.d/thp.conf) with
    C(thp persist), so that boot applies the same settings.
version_added: 0.1.0
author: thp maintainers
extends_documentation_fragment:
  - thp.thp.thp
options:
  settings:
    description:
      - "Settings as C(thp set) names them, with their values, for example
        C(enabled: madvise), C(defrag: defer+madvise), C(khugepaged.max_ptes_none: 0),
        C(hugepages.64K.enabled: inherit), C(hugepages.all.enabled: never)."
      - C(thp set --list-keys) lists the keys; the values are those the kernel's files accept.
    type: dict
    required: true
  persist:
    description:
      - Also keep exactly these settings across reboot, in C(/etc/tmpfiles.d/thp.conf)
        (C(thp persist KEY=VALUE...)). One task per host should own persistence, since the
        file holds the settings of the last task that wrote it.
      - A C(thp.conf) that thp did not write is never replaced; the task fails instead.
    type: bool
    default: false
notes:
  - Writing settings needs root on the managed host (C(become)).
  - C(thp restore) on the host puts back the settings saved before the last change.
seealso:
  - module: thp.thp.thp_hugetlb
  - module: thp.thp.thp_facts
  - name: thp(1)
    description: The manual of thp, sections "thp set" and "thp persist".
    link: https://manpages.debian.org/thp
"""

EXAMPLES = r"""
- name: THP only where programs ask for it, kept at boot
  thp.thp.thp_settings:
    settings:
      enabled: madvise
      defrag: defer+madvise
      khugepaged.max_ptes_none: 0
    persist: true
  become: true

- name: 64 KiB mTHP pages for anonymous memory where the global policy allows
  thp.thp.thp_settings:
    settings:
      hugepages.64K.enabled: inherit
"""

RETURN = r"""
changes:
  description: Every setting asked for, with its value before and after, and whether it changed.
  returned: always
  type: list
  elements: dict
  sample: [{"key": "enabled", "before": "always", "after": "madvise", "changed": true}]
saved:
  description: Where thp saved the settings before the change (what C(thp restore) puts back).
  returned: when settings were written
  type: str
  sample: /run/thp/saved.state
persisted:
  description: The file the settings are persisted in, when I(persist) is set.
  returned: when I(persist) is true
  type: str
  sample: /etc/tmpfiles.d/thp.conf
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.thp.thp.plugins.module_utils.thp import COMMON_OPTIONS, Thp, pairs


def main():
    module = AnsibleModule(
        argument_spec=dict(settings=dict(type="dict", required=True),
                           persist=dict(type="bool", default=False), **COMMON_OPTIONS),
        supports_check_mode=True,
    )
    thp = Thp(module)
    args = pairs(module.params["settings"])
    if not args:
        module.fail_json(msg="settings: give at least one KEY: VALUE")
    plan = thp.json(["set", "--dry-run", "--json"] + args)
    changes = [dict(key=c["key"], before=c["from"], after=c["to"], changed=c["result"] != "unchanged")
               for c in plan["changes"]]
    changed = any(c["changed"] for c in changes)
    result = dict(changed=changed, changes=changes)
    if module._diff:
        result["diff"] = dict(before="".join("%s=%s\n" % (c["key"], c["before"]) for c in changes),
                              after="".join("%s=%s\n" % (c["key"], c["after"]) for c in changes),
                              before_header="THP settings", after_header="THP settings")
    if changed and not module.check_mode:
        done = thp.json(["set", "--json"] + args)
        result["saved"] = done.get("saved")
    if module.params["persist"]:
        kept = thp.json(["persist", "--dry-run", "--json"] + args)
        result["persisted"] = kept["path"]
        if kept["changed"] and kept["foreign"]:
            module.fail_json(msg="'%s' exists and was not written by thp; move it away" % kept["path"], **result)
        if kept["changed"]:
            result["changed"] = True
            if module._diff:
                result["diff"] = [result["diff"], dict(before=kept["current"] or "", after=kept["content"],
                                                       before_header=kept["path"], after_header=kept["path"])]
            if not module.check_mode:
                thp.run(["persist"] + args)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
