"""A small helper for Ward external plugins: read JSON Lines on stdin, answer on stdout.

Ward starts the plugin and sends {"id":0,"type":"hello","protocol":"2.0",...} once; the
plugin answers with the protocol version it speaks, {"id":0,"protocol":"2.0"}, or Ward refuses
to start. Then Ward sends one {"id":N,"type":"event",...} per subscribed event and waits (up to
the site's `timeout`) for {"id":N,"action":...}. Last comes {"type":"end","status":N}, the exit
status the session ended with, before Ward closes stdin.
See man 5 ward-site.toml, EXTERNAL PLUGINS.
"""
import json
import sys

# The protocol this helper speaks: Ward runs a plugin only of its own major version.
PROTOCOL = "2.0"


def answer(reply):
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


def run(decide, end=None):
    """Calls decide(event, settings) for each event; it returns a reply dict without the id.

    end(status, settings), when given, is called with the session's exit status at its end.
    """
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
            answer({"id": message.get("id", 0), "protocol": PROTOCOL})
            continue
        if message.get("type") == "end":
            if end:
                end(message.get("status"), settings)
            continue
        if message.get("type") != "event":
            continue
        reply = decide(message.get("event") or {}, settings) or {"action": "continue"}
        reply["id"] = message["id"]
        answer(reply)
