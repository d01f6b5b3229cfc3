#!/usr/bin/python
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ansible module thp_facts: 'thp status --json' (and 'thp doctor --json') as facts."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
---
module: thp_facts
short_description: Gather Transparent Huge Pages facts with thp
description:
  - "Sets the fact C(thp_status) to the document of C(thp status --json): kernel, every
    layer of THP policy with effective per-size values, khugepaged, counters since boot,
    THP memory, static pools and boot parameters."
  - "With I(doctor), also C(thp_doctor), the document of C(thp doctor --json): findings
    with evidence and the exact fix."
  - Collected into files (one per host, or one file for all), these documents are what
    C(thp report) reads to show a fleet in one table.
  - Reads only; check mode changes nothing either.
version_added: 0.1.0
author: thp maintainers
extends_documentation_fragment:
  - thp.thp.thp
options:
  doctor:
    description:
      - Also run C(thp doctor --json) and set C(thp_doctor).
    type: bool
    default: false
seealso:
  - module: thp.thp.thp_settings
  - module: thp.thp.thp_hugetlb
"""

EXAMPLES = r"""
- name: THP facts with the doctor's findings
  thp.thp.thp_facts:
    doctor: true

- name: Write them where 'thp report' reads them
  ansible.builtin.copy:
    content: "{{ ansible_facts.thp_status | to_json }}{{ ansible_facts.thp_doctor | to_json }}"
    dest: "reports/{{ inventory_hostname }}.json"
  delegate_to: localhost
"""

RETURN = r"""
ansible_facts:
  description: The facts set.
  returned: always
  type: dict
  contains:
    thp_status:
      description: The document of C(thp status --json) (schema thp-status/2).
      returned: always
      type: dict
    thp_doctor:
      description: The document of C(thp doctor --json) (schema thp-doctor/1).
      returned: when I(doctor) is true
      type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.thp.thp.plugins.module_utils.thp import COMMON_OPTIONS, Thp


def main():
    module = AnsibleModule(argument_spec=dict(doctor=dict(type="bool", default=False), **COMMON_OPTIONS),
                           supports_check_mode=True)
    thp = Thp(module)
    facts = dict(thp_status=thp.json(["status", "--json"]))
    if module.params["doctor"]:
        facts["thp_doctor"] = thp.json(["doctor", "--json"], ok=(0, 3))  # 3: there are findings
    module.exit_json(changed=False, ansible_facts=facts)


if __name__ == "__main__":
    main()
