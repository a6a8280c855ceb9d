#!/usr/bin/env python3
"""Keystroke echo at Ward's prompt beside `bash --norc` and the sqlite3 shell (issue 19).

Two measures, both of one key typed at a line-editing prompt and its echo:

  latency       (default) each program runs on a pseudo-terminal of its own: Ward signed on at
                `ward>`, bash at its prompt, sqlite3 at `sqlite>`. The driver types one key, times
                until its echo comes back, erases it (Backspace, waiting for that echo too, so the
                line stays short) and repeats. The programs take turns in rounds (A B C A B C),
                so a noisy neighbour on a shared machine hits them alike. Prints the median and
                p99 of each and Ward's ratios to bash and to sqlite3 (goal: median <= 1.1x bash,
                p99 <= 1.5x).

  --instructions  Ward alone, run under valgrind's callgrind tool (Debian `valgrind`) on a
                pseudo-terminal: signs on, types N keys one at a time (`a` and Backspace by
                turns, each waiting for its echo, so every key takes the whole per-key path),
                signs off; then again with 2N keys. Prints (instructions(2N) - instructions(N)) / N:
                what one key costs, the same on a busy machine as on an idle one. `--keep DIR`
                keeps the profiles for `callgrind_annotate`. The counter cannot read the
                DWARF 5 debug information Swift writes: it runs a copy without it
                (`objcopy --strip-debug`), symbols kept.

    swift build -c release --product ward        # at the top of the repository
    python3 Benchmarks/KeyEcho/key_echo.py .build/release/ward [--samples 2000] [--rounds 4]
    python3 Benchmarks/KeyEcho/key_echo.py .build/release/ward --instructions [--keys 300]

Ward runs with the usual chain (idle timer, audit log, suspend guard) in a temporary home with
a temporary user; sqlite3 has an in-memory database.
"""
import argparse
import fcntl
import os
import pty
import re
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

PASSWORD = "bench-password"
SITE = """[session]
idle-timeout = "15m"

[[plugin]]
name = "idle-timer"

[[plugin]]
name = "audit-log"

[[plugin]]
name = "suspend-guard"
"""


def spawn(argv, env):
    """Starts argv on a new pty, as a session leader; returns (pid, master fd)."""
    pid, master = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        os.execvpe(argv[0], argv, env)
    return pid, master


def read_until(master, needle, timeout=10.0):
    """Reads until `needle` (bytes) has appeared; returns everything read."""
    seen = b""
    end = time.monotonic() + timeout
    while needle not in seen:
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError("waiting for %r; got %r" % (needle, seen[-200:]))
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise EOFError("ended waiting for %r; got %r" % (needle, seen[-200:]))
            seen += chunk
    return seen


def echo_time(master, key, expect, timeout=5.0):
    """Writes `key` and returns the seconds until output holding `expect` has arrived."""
    start = time.perf_counter_ns()
    os.write(master, key)
    seen = b""
    while expect not in seen:
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            raise TimeoutError("no echo of %r" % key)
        seen += os.read(master, 65536)
    return (time.perf_counter_ns() - start) / 1e9


def prepare_ward(ward, directory):
    """A home with one user, and the site file; returns the environment to run Ward in."""
    home = os.path.join(directory, "home")
    site = os.path.join(directory, "site.toml")
    with open(site, "w") as f:
        f.write(SITE)
    os.chmod(site, 0o600)
    env = dict(os.environ, WARD_HOME=home, WARD_SITE=site, HOME=directory, TERM="xterm-256color", LANG="C.UTF-8")
    subprocess.run([ward, "user", "add", "bench", "--role", "clinician", "--password-stdin"],
                   input=(PASSWORD + "\n").encode(), env=env, check=True, capture_output=True)
    return env


def start(name, argv, env, timeout=10.0):
    """Starts a program and waits for its prompt (signing Ward on first)."""
    pid, master = spawn(argv, env)
    if name.startswith("ward"):
        read_until(master, b"Password for bench:", timeout)
        os.write(master, (PASSWORD + "\r").encode())
        read_until(master, b"> ", timeout)
    elif name == "bash":
        read_until(master, b"$ ", timeout)
    else:
        read_until(master, b"sqlite> ", timeout)
    return pid, master


def stop(pid, master, quit_text):
    try:
        os.write(master, quit_text)
        read_until(master, b"\x00never", 3.0)
    except (OSError, TimeoutError, EOFError):
        pass
    os.close(master)
    os.waitpid(pid, 0)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def type_keys(master, count, timeout=5.0):
    """`count` keys, `a` and Backspace by turns, each waiting for its echo."""
    for i in range(count):
        if i % 2 == 0:
            echo_time(master, b"a", b"a", timeout)
        else:
            echo_time(master, b"\x7f", b"\x08", timeout)


def latency(args, ward, directory):
    sqlite = shutil.which("sqlite3", path="/usr/bin:/bin") or sys.exit("sqlite3 missing: apt-get install sqlite3")
    bash = shutil.which("bash", path="/usr/bin:/bin") or sys.exit("bash missing")
    base = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", HOME=directory, PS1="$ ")
    programs = [
        ("ward", [ward, "--user", "bench"], prepare_ward(ward, directory), b"\x15\x04"),
        ("bash", [bash, "--norc", "--noprofile"], base, b"\x15exit\r"),
        ("sqlite3", [sqlite], base, b"\x15.quit\r"),
    ]
    if args.baseline:
        # Another build of Ward (before a change), in the same home and in the same turns.
        programs.append(("ward (baseline)", [os.path.abspath(args.baseline), "--user", "bench"], programs[0][2], b"\x15\x04"))
    running = {name: start(name, argv, env) for name, argv, env, _ in programs}
    times = {name: [] for name, _, _, _ in programs}
    per_round = max(1, args.samples // args.rounds)
    for _ in range(args.rounds):
        for name, _, _, _ in programs:
            master = running[name][1]
            for _ in range(50 if not times[name] else 0):  # warm-up, not counted
                type_keys(master, 2)
            for _ in range(per_round):
                times[name].append(echo_time(master, b"a", b"a"))
                echo_time(master, b"\x7f", b"\x08")
    for name, _, _, quit_text in programs:
        stop(*running[name], quit_text)
    print("keystroke echo latency, %d samples each, %d rounds by turns (machine: %s, %d CPUs)" % (
        len(times["ward"]), args.rounds, os.uname().machine, os.cpu_count()))
    print("%-16s %12s %12s" % ("program", "median (µs)", "p99 (µs)"))
    for name, _, _, _ in programs:
        print("%-16s %12.1f %12.1f" % (name, statistics.median(times[name]) * 1e6, percentile(times[name], 99) * 1e6))
    for ward_name in [name for name, _, _, _ in programs if name.startswith("ward")]:
        for other, goal in (("bash", " (goal: median <= 1.1, p99 <= 1.5)"), ("sqlite3", "")):
            print("%s / %-7s median ratio %.2f, p99 ratio %.2f%s" % (
                ward_name,
                other,
                statistics.median(times[ward_name]) / statistics.median(times[other]),
                percentile(times[ward_name], 99) / percentile(times[other], 99),
                goal,
            ))


def instructions(args, ward, directory):
    env = prepare_ward(ward, directory)
    copy = os.path.join(directory, "ward")
    subprocess.run(["objcopy", "--strip-debug", ward, copy], check=True)
    ward = copy
    keep = os.path.abspath(args.keep) if args.keep else directory
    os.makedirs(keep, exist_ok=True)
    totals = {}
    for n in (args.keys, 2 * args.keys):
        out = os.path.join(keep, "keys-%d.out" % n)
        argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, ward, "--user", "bench"]
        pid, master = start("ward", argv, env, timeout=300.0)
        type_keys(master, 20, timeout=60.0)  # the first keys load code and pages: not counted
        type_keys(master, n, timeout=60.0)
        os.write(master, b"\x15\x04")  # an empty line, then end of input: signs off
        try:
            read_until(master, b"Signed off.", 300.0)
        except (EOFError, OSError):
            pass
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass
        os.close(master)
        os.waitpid(pid, 0)
        with open(out) as f:
            match = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
        if not match:
            sys.exit("no totals in %s" % out)
        totals[n] = int(match.group(1))
    per_key = (totals[2 * args.keys] - totals[args.keys]) / args.keys
    print("%d keys: %s instructions; %d keys: %s" % (
        args.keys, format(totals[args.keys], ","), 2 * args.keys, format(totals[2 * args.keys], ",")))
    print("instructions per key (a and Backspace by turns, each echoed): %s" % format(round(per_key), ","))
    if args.keep:
        print("profiles: %s/keys-%d.out, %s/keys-%d.out" % (keep, args.keys, keep, 2 * args.keys))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ward", help="the ward binary (a release build)")
    parser.add_argument("--samples", type=int, default=2000, help="key presses per program")
    parser.add_argument("--rounds", type=int, default=4, help="rounds by turns the samples are split into")
    parser.add_argument("--baseline", help="latency: another ward binary (a build before a change) taking turns too")
    parser.add_argument("--instructions", action="store_true", help="count instructions per key instead")
    parser.add_argument("--keys", type=int, default=300, help="N for --instructions (then 2N)")
    parser.add_argument("--keep", help="with --instructions: a directory for the two profiles")
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    directory = tempfile.mkdtemp(prefix="ward-key-echo-")
    os.chmod(directory, 0o700)
    try:
        if args.instructions:
            instructions(args, ward, directory)
        else:
            latency(args, ward, directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
