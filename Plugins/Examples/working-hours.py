#!/usr/bin/env python3
"""Ward external plugin: refuses record commands outside the site's working hours.

Site file:

    [[plugin]]
    name = "external"
    command = ["/usr/local/lib/ward/working-hours.py"]
    events = ["line"]
    settings = { from = "07:00", to = "19:00", days = ["mon", "tue", "wed", "thu", "fri"] }

`commands` (default: find, open, show, note) lists the commands it guards; `now`
("HH:MM" or "DAY HH:MM", for tests only) pins the clock.
"""
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ward_plugin import run  # noqa: E402

DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
RECORD_COMMANDS = ["find", "open", "show", "note", "charts"]


def minutes(text):
    hours, mins = text.split(":")
    return int(hours) * 60 + int(mins)


def decide(event, settings):
    if event.get("kind") != "line":
        return None
    words = event.get("text", "").split()
    if not words or words[0] not in settings.get("commands", RECORD_COMMANDS):
        return None
    if "now" in settings:
        parts = settings["now"].split()
        day, clock = (parts[0], parts[1]) if len(parts) == 2 else ("mon", parts[0])
    else:
        now = datetime.datetime.now()
        day, clock = DAYS[now.weekday()], now.strftime("%H:%M")
    start = minutes(settings.get("from", "07:00"))
    end = minutes(settings.get("to", "19:00"))
    days = settings.get("days", DAYS[:5])
    if day in days and start <= minutes(clock) < end:
        return None
    return {
        "action": "deny",
        "message": "Records are closed outside working hours (%s-%s, %s)."
        % (settings.get("from", "07:00"), settings.get("to", "19:00"), " ".join(days)),
    }


if __name__ == "__main__":
    run(decide)
