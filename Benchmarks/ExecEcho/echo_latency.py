#!/usr/bin/env python3
"""Keystroke echo latency through `ward exec -- sqlite3` (in its sandbox, and with sandbox = "off"),
plain `sqlite3`, `rlwrap sqlite3` and `script -qfc sqlite3 /dev/null`.

A pty driver (issue 18): each program runs on a pseudo-terminal of its own; the driver types one
key, times until the program's echo of it comes back, erases it again (Backspace, waiting for
that echo too, so the line stays short), and repeats. The three programs are measured in one run,
interleaved in rounds so that a noisy neighbour on a shared machine hits them alike. Prints the
median and p99 of each, and ward's ratio to plain sqlite3 (goal: within 1.2x).

script(1) (util-linux, on every Debian system) is the least a pty relay can do: it copies bytes
between the terminal and the program's pty and nothing else. Its latency is the floor for any
wrapper that owns the program's terminal, rlwrap and ward exec alike; ward's ratio to it is what
Ward's own work (the chain, the line, the audit log) costs.

    swift build -c release --product ward        # at the top of the repository
    python3 Benchmarks/ExecEcho/echo_latency.py .build/release/ward [--samples 2000] [--rounds 4]

Ward runs with the default chain (idle timer, audit log, suspend guard) in a temporary home with
a temporary user; sqlite3 has an in-memory database. rlwrap comes from the Debian package
rlwrap (scripts/install-deps).
"""
import argparse
import fcntl
import os
import pty
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


def spawn(argv, env):
    """Starts argv on a new pty, as a session leader; returns (pid, master fd)."""
    pid, master = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))  # rlwrap needs a width
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
            seen += os.read(master, 65536)
    return seen


def echo_time(master, key, expect):
    """Writes `key` and returns the seconds until output holding `expect` has arrived."""
    start = time.perf_counter_ns()
    os.write(master, key)
    seen = b""
    while expect not in seen:
        ready, _, _ = select.select([master], [], [], 5.0)
        if not ready:
            raise TimeoutError("no echo of %r" % key)
        seen += os.read(master, 65536)
    return (time.perf_counter_ns() - start) / 1e9


def prepare_ward(ward, directory):
    """A home with the user bench, and two site files: sqlite3 in its sandbox (the default), and
    sqlite3 with sandbox = "off", so that one run shows what the sandbox costs a key."""
    home = os.path.join(directory, "home")
    chain = '\n[[plugin]]\nname = "idle-timer"\n\n[[plugin]]\nname = "audit-log"\n\n[[plugin]]\nname = "suspend-guard"\n'
    envs = []
    for name, allow in (("site.toml", '"sqlite3"'), ("site-off.toml", '{ program = "sqlite3", sandbox = "off" }')):
        site = os.path.join(directory, name)
        with open(site, "w") as f:
            f.write('[exec]\nallow = [%s]\n%s' % (allow, chain))
        os.chmod(site, 0o600)
        envs.append(dict(os.environ, WARD_HOME=home, WARD_SITE=site, HOME=directory))
    subprocess.run([ward, "user", "add", "bench", "--role", "clinician", "--password-stdin"],
                   input=(PASSWORD + "\n").encode(), env=envs[0], check=True, capture_output=True)
    return envs


def start(name, argv, env):
    pid, master = spawn(argv, env)
    if name.startswith("ward exec"):
        read_until(master, b"Password for bench:")
        os.write(master, (PASSWORD + "\r").encode())
    read_until(master, b"sqlite> ")
    return pid, master


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ward", help="the ward binary (a release build)")
    parser.add_argument("--samples", type=int, default=2000, help="key presses per program")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds the samples are split into")
    args = parser.parse_args()

    sqlite = shutil.which("sqlite3", path="/usr/bin:/bin") or sys.exit("sqlite3 missing: apt-get install sqlite3")
    rlwrap = shutil.which("rlwrap") or sys.exit("rlwrap missing: apt-get install rlwrap")
    script = shutil.which("script", path="/usr/bin:/bin") or sys.exit("script missing: apt-get install bsdutils")
    directory = tempfile.mkdtemp(prefix="ward-echo-")
    try:
        base = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", HOME=directory)
        ward_env, unsandboxed_env = [dict(env, TERM="xterm-256color", LANG="C.UTF-8")
                                     for env in prepare_ward(os.path.abspath(args.ward), directory)]
        ward_exec = [os.path.abspath(args.ward), "exec", "--user", "bench", "--", "sqlite3"]
        programs = [
            ("sqlite3", [sqlite], base),
            ("ward exec", ward_exec, ward_env),
            ("ward exec (off)", ward_exec, unsandboxed_env),
            ("rlwrap sqlite3", [rlwrap, sqlite], base),
            ("script (relay)", [script, "-qfc", sqlite, "/dev/null"], base),
        ]
        running = {name: start(name, argv, env) for name, argv, env in programs}
        times = {name: [] for name, _, _ in programs}
        per_round = max(1, args.samples // args.rounds)
        for _ in range(args.rounds):
            for name, _, _ in programs:
                master = running[name][1]
                for _ in range(50 if not times[name] else 0):  # warm-up, not counted
                    echo_time(master, b"a", b"a")
                    echo_time(master, b"\x7f", b"\x08")
                for _ in range(per_round):
                    times[name].append(echo_time(master, b"a", b"a"))
                    echo_time(master, b"\x7f", b"\x08")
        for name, (pid, master) in running.items():
            os.write(master, b"\x15.quit\r")
            os.close(master)
            os.waitpid(pid, 0)
        print("keystroke echo latency, %d samples each (machine: %s, %d CPUs)" % (
            len(times["sqlite3"]), os.uname().machine, os.cpu_count()))
        print("%-16s %12s %12s" % ("program", "median (us)", "p99 (us)"))
        # "ward exec (off)": the same binary with sandbox = "off" for sqlite3.
        for name, _, _ in programs:
            print("%-16s %12.1f %12.1f" % (name, statistics.median(times[name]) * 1e6, percentile(times[name], 99) * 1e6))
        plain = statistics.median(times["sqlite3"])
        print("ward exec / sqlite3 median ratio: %.2f (goal <= 1.2)" % (statistics.median(times["ward exec"]) / plain))
        print("rlwrap / sqlite3 median ratio:    %.2f" % (statistics.median(times["rlwrap sqlite3"]) / plain))
        relay = statistics.median(times["script (relay)"])
        print("script / sqlite3 median ratio:    %.2f (a bare pty relay)" % (relay / plain))
        print("ward exec / script median ratio:  %.2f (what Ward adds to a relay)" % (
            statistics.median(times["ward exec"]) / relay))
        print("ward exec / ward exec (off):      %.2f (what the sandbox adds)" % (
            statistics.median(times["ward exec"]) / statistics.median(times["ward exec (off)"])))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
