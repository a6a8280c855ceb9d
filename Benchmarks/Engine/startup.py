#!/usr/bin/env python3
"""Start to prompt: from exec to the first prompt on a pseudo-terminal, beside the sqlite3 shell.

Usage: startup.py --ward PATH-TO-ward [--baseline OLD-ward] [--runs N]
       startup.py PATH-TO-ward [RUNS]          (the same, older form)

Makes a throwaway home with one user, then starts, by turns (A B C A B C), each program on a
pty and times until its first prompt:

  ward                 the default chain (idle timer, audit log, suspend guard), to "Username:"
  sqlite3 -interactive an in-memory database, to "sqlite> "
  bash --norc          to its prompt, for scale

With `--baseline`, an older Ward binary takes the same turns. Prints each program's median,
min and max over the runs and Ward's median beside the sqlite3 shell's (the goal is at most
1.5x); ratios are taken within one run, since this shared machine's load moves every figure.
Time the installed (stripped) binary: the goal is about what a clinician starts.
"""
import argparse, os, pty, select, shutil, statistics, subprocess, sys, tempfile, time


def to_prompt(argv, env, prompt):
    """Seconds from fork to `prompt` on the child's pty; the child is then told to leave."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(env)
        os.execv(argv[0], argv)
    seen = b""
    while prompt not in seen:
        r, _, _ = select.select([fd], [], [], 5)
        if not r:
            raise SystemExit(f"{argv[0]}: no prompt within 5 s: " + seen.decode(errors="replace"))
        seen += os.read(fd, 4096)
    elapsed = time.perf_counter() - start
    os.write(fd, b"\x04")  # Ctrl-D at the first prompt: each program leaves
    try:
        while os.read(fd, 4096):
            pass
    except OSError:
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    return elapsed


def programs(ward, baseline, home):
    """(name, argv, environment, prompt) for each program that takes a turn."""
    ward_env = {"WARD_HOME": home, "HOME": home, "TERM": "xterm"}
    listed = [("ward", [ward], ward_env, b"Username:")]
    if baseline:
        listed.append(("baseline", [baseline], ward_env, b"Username:"))
    sqlite3 = shutil.which("sqlite3")
    if not sqlite3:
        raise SystemExit("sqlite3 is missing: apt-get install sqlite3")
    listed.append(("sqlite3", [sqlite3, "-interactive", ":memory:"], {"HOME": home, "TERM": "xterm"}, b"sqlite> "))
    listed.append(("bash", ["/bin/bash", "--norc", "--noprofile", "-i"], {"PS1": "ready$ ", "TERM": "xterm"}, b"ready$ "))
    return listed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("positional", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--ward")
    parser.add_argument("--baseline")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    if args.positional:
        args.ward = args.ward or args.positional[0]
        if len(args.positional) > 1:
            args.runs = int(args.positional[1])
    if not args.ward:
        parser.error("--ward PATH is required")
    home = tempfile.mkdtemp(prefix="ward-startup-")
    for ward in filter(None, [args.ward, args.baseline]):
        subprocess.run(
            [ward, "--home", home, "user", "add", "bench", "--role", "clinician", "--password-stdin"],
            input=b"benchmark-pw\n", env={"HOME": home}, check=True, stdout=subprocess.DEVNULL,
        )
        break
    listed = programs(os.path.abspath(args.ward), args.baseline and os.path.abspath(args.baseline), home)
    times = {name: [] for name, *_ in listed}
    for round in range(args.runs + 3):
        for name, argv, env, prompt in listed:
            elapsed = to_prompt(argv, env, prompt)
            if round >= 3:  # the first rounds warm the page cache
                times[name].append(elapsed)
    print(f"start to the first prompt, {args.runs} runs by turns (load {os.getloadavg()[0]:.1f}):")
    for name, xs in times.items():
        xs.sort()
        print(f"  {name:9} median {statistics.median(xs) * 1000:6.2f} ms   min {xs[0] * 1000:6.2f}   max {xs[-1] * 1000:6.2f}")
    peer = statistics.median(times["sqlite3"])
    for name in [n for n in times if n in ("ward", "baseline")]:
        print(f"  {name} / sqlite3: {statistics.median(times[name]) / peer:.2f}x (goal <= 1.5x)")
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
