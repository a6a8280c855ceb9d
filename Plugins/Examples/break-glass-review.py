#!/usr/bin/env python3
"""Ward external plugin: asks for a second confirmation before opening a restricted patient.

`open MRN` of a restricted MRN is refused with instructions; `open! MRN` confirms (the
break-glass access) and is rewritten to `open MRN`, which the audit log after this plugin
records. Site file:

    [[plugin]]
    name = "external"
    command = ["/usr/local/lib/ward/break-glass-review.py"]
    events = ["line"]
    settings = { restricted = ["100042", "100077"] }
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ward_plugin import run  # noqa: E402


def decide(event, settings):
    if event.get("kind") != "line":
        return None
    words = event.get("text", "").split()
    if len(words) != 2:
        return None
    command, mrn = words
    restricted = set(str(m) for m in settings.get("restricted", []))
    if command == "open" and mrn in restricted:
        return {
            "action": "deny",
            "message": "Patient %s is restricted. To open the chart anyway (break the glass), "
            "type 'open! %s'; the access is audited." % (mrn, mrn),
        }
    if command == "open!":
        return {"action": "rewrite", "text": "open " + mrn}
    return None


if __name__ == "__main__":
    run(decide)
