#!/usr/bin/python
# SPDX-License-Identifier: Apache-2.0
"""gotc.gotc.apply: an Ansible module over "gotc apply"."""

from __future__ import annotations

DOCUMENTATION = r"""
module: apply
short_description: Bring traffic control to the state a file describes (gotc apply)
description:
  - Runs C(gotc apply) on the managed host. It reads the desired state of
    some devices (gotc-apply(5)), their qdiscs, classes and filters in tc's
    words. It sends the fewest requests that bring the kernel there. The
    file owns the devices it names. What it leaves out on them is deleted.
  - A file with a fault (an unknown key or kind, a bad option, a device the
    host lacks) fails the task before anything is sent.
  - In check mode nothing is sent. The task reports changed when requests
    are pending.
  - With diff, the requests are shown as tc command lines, each with why
    it is needed.
version_added: 0.1.0
options:
  content:
    description:
      - The desired state, as YAML or JSON text, or as a mapping (with
        C(devices)).
      - One of I(content) and I(src) is required.
    type: raw
  src:
    description:
      - The path of the desired state's file on the managed host.
    type: path
  netns:
    description:
      - The network namespace to work in, as C(gotc -n NAME).
    type: str
  gotc:
    description:
      - The gotc executable.
    type: path
    default: gotc
notes:
  - Supports check_mode and diff.
  - The kernel undoes nothing by itself. When it refuses a request, gotc
    undoes those it had sent. The task fails and says whether the state
    before was restored.
author:
  - gotc
"""

EXAMPLES = r"""
- name: Shape the uplink with CAKE
  gotc.gotc.apply:
    content:
      devices:
        eth0:
          root: cake bandwidth 100mbit diffserv4

- name: Apply a file templated before
  gotc.gotc.apply:
    src: /etc/gotc/tc.yaml
"""

RETURN = r"""
changes:
  description: The requests the plan held, as C(gotc apply --diff -j) prints them.
  returned: always
  type: list
  elements: dict
commands:
  description: The same requests as tc command lines, without C(tc).
  returned: always
  type: list
  elements: str
requests_sent:
  description: How many requests were sent (0 in check mode).
  returned: always
  type: int
"""

import json
import re

from ansible.module_utils.basic import AnsibleModule

# gotc apply's exit statuses after a request was sent (gotc-apply(8)).
REFUSED = 2
NOT_RESTORED = 3


def main():
    module = AnsibleModule(
        argument_spec=dict(
            content=dict(type="raw"),
            src=dict(type="path"),
            netns=dict(type="str"),
            gotc=dict(type="path", default="gotc"),
        ),
        required_one_of=[("content", "src")],
        mutually_exclusive=[("content", "src")],
        supports_check_mode=True,
    )
    p = module.params
    content = p["content"]
    if content is not None and not isinstance(content, str):
        content = json.dumps(content)  # JSON is YAML
    gotc = module.get_bin_path(p["gotc"], required=True)
    base = [gotc] + (["-n", p["netns"]] if p["netns"] else []) + ["apply"]
    target = p["src"] if content is None else "-"

    def gotc_apply(*args):
        return module.run_command(base + list(args) + [target], data=content, binary_data=True)

    rc, out, err = gotc_apply("--diff", "-j")
    if rc != 0:
        module.fail_json(msg="gotc apply refused the file; nothing was sent", rc=rc, stderr=err,
                         stderr_lines=err.splitlines())
    changes = json.loads(out)
    result = dict(
        changed=bool(changes),
        changes=changes,
        commands=[c["command"] for c in changes],
        requests_sent=0,
    )
    if module._diff and changes:
        result["diff"] = dict(prepared="".join(
            "tc %s   # %s\n" % (c["command"], c["reason"]) for c in changes))
    if module.check_mode or not changes:
        module.exit_json(**result)

    rc, out, err = gotc_apply()
    if rc != 0:
        what = {
            REFUSED: "the kernel refused a request; the state before is restored",
            NOT_RESTORED: "the kernel refused a request, and undoing the ones sent before it failed: "
                          "the state is neither the file's nor the one before",
        }.get(rc, "gotc apply failed")
        module.fail_json(msg=what, rc=rc, stderr=err, stderr_lines=err.splitlines(), **result)
    m = re.search(r"apply: (\d+) requests sent", out)
    result["requests_sent"] = int(m.group(1)) if m else len(changes)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
