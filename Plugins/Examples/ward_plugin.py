"""A small helper for Ward external plugins: read JSON Lines on stdin, answer on stdout.

Ward starts the plugin, sends {"type":"hello",...} once, then one {"id":N,"type":"event",...}
per subscribed event, and waits (up to the site's `timeout`) for {"id":N,"action":...}.
See man 5 ward-site.toml, EXTERNAL PLUGINS.
"""
import json
import sys


def run(decide):
    """Calls decide(event, settings) for each event; it returns a reply dict without the id."""
    settings = {}
    while True:
        raw = sys.stdin.readline()
        if not raw:
            break
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if message.get("type") == "hello":
            settings = message.get("settings") or {}
            continue
        if message.get("type") != "event":
            continue
        reply = decide(message.get("event") or {}, settings) or {"action": "continue"}
        reply["id"] = message["id"]
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
