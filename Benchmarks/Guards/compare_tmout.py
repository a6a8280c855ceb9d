#!/usr/bin/env python3
"""Ward's idle lock beside bash's TMOUT, on the same machine in one run (issue 5, item 6).

Usage: compare_tmout.py PATH-TO-GuardsBenchmark [--trials N] [--idle-seconds S] [--ward PATH-TO-ward]

With --ward, the real binary is measured too: signed on to a throwaway home, with the site's
idle-timer at 1 s (1 h for the wake-up count), from the prompt to the lock screen.

1. Delay after the deadline. Each shell runs on its own pseudo-terminal with a 1 s limit and no
   input. The deadline is taken as the moment its prompt reaches the pty (both start their clock
   just before printing the prompt, so this slightly flatters both equally); the delay is the time
   from there to the lock (Ward: "locked" on the pty) or the exit (bash: "auto-logout" on the pty,
   and the process reaped), minus 1 s.
   bash:  TMOUT=1 bash --norc --noprofile -i      Ward: GuardsBenchmark serve --timeout-ms 1000
   bash arms its alarm(1) a little before it writes the prompt, so this flatters bash; with strace
   installed a second measure takes both from the process's own side instead: from the system call
   that starts the clock (bash: alarm(1); Ward: the prompt's write, just after sign-on armed the
   timer) to the write of the message, by strace's timestamps (strace -ttt --seccomp-bpf, tracing
   only those calls, so the untraced poll/ppoll wait runs at full speed).
2. Wake-ups while idle. Each shell sits at its prompt with a long limit (TMOUT=3600, a 1 h idle
   timeout); voluntary and involuntary context switches are read from /proc/PID/status before and
   after S seconds. With strace installed, the system calls in that window are counted too.
"""
import argparse, os, pty, select, shutil, signal, statistics, subprocess, sys, time

def spawn(argv, env):
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(argv[0], argv, env)
    return pid, fd

def read_until(fd, needle, seen, timeout):
    """Reads the pty until `needle` appears; returns (time it was seen, bytes so far)."""
    end = time.perf_counter() + timeout
    while needle not in seen:
        left = end - time.perf_counter()
        if left <= 0:
            raise SystemExit(f"timed out waiting for {needle!r}; got {seen[-200:]!r}")
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                raise SystemExit(f"pty closed before {needle!r}; got {seen[-200:]!r}")
            seen += chunk
    return time.perf_counter(), seen

def drain_and_reap(pid, fd):
    try:
        while True:
            r, _, _ = select.select([fd], [], [], 5)
            if not r or not os.read(fd, 4096):
                break
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    t = time.perf_counter()
    os.close(fd)
    return t, status

def bash_env(tmout):
    return {"TERM": "xterm", "PATH": "/usr/bin:/bin", "HOME": "/tmp", "PS1": "bash> ", "TMOUT": str(tmout)}

def ward_env():
    return {"TERM": "xterm", "PATH": "/usr/bin:/bin", "HOME": "/tmp"}

def bash_delay():
    pid, fd = spawn([shutil.which("bash"), "--norc", "--noprofile", "-i"], bash_env(1))
    prompt, seen = read_until(fd, b"bash> ", b"", 5)
    said, _ = read_until(fd, b"auto-logout", seen, 5)
    exited, _ = drain_and_reap(pid, fd)
    return said - prompt - 1.0, exited - prompt - 1.0

def ward_delay(bench):
    pid, fd = spawn([bench, "serve", "--timeout-ms", "1000"], ward_env())
    prompt, seen = read_until(fd, b"ward> ", b"", 5)
    locked, _ = read_until(fd, b"locked", seen, 5)
    exited, _ = drain_and_reap(pid, fd)
    return locked - prompt - 1.0, exited - prompt - 1.0

def traced_delay(argv, env, arm, message, log):
    """(message write - arming call - 1 s) from strace's timestamps of the process's own calls."""
    pid, fd = spawn(["/usr/bin/env", "strace", "-f", "-ttt", "--seccomp-bpf", "-e", "trace=alarm,write",
                     "-o", log] + argv, env)
    drain_and_reap(pid, fd)
    armed = said = None
    with open(log) as f:
        for line in f:
            parts = line.split(None, 2)
            if len(parts) < 3:
                continue
            if arm in parts[2] and said is None:
                armed = float(parts[1])
            elif message in parts[2] and armed is not None:
                said = float(parts[1])
                break
    os.unlink(log)
    if armed is None or said is None:
        raise SystemExit(f"could not find {arm!r} then {message!r} in the strace log")
    return said - armed - 1.0

def switches(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"):
                fields[key] = int(value)
    return fields["voluntary_ctxt_switches"], fields["nonvoluntary_ctxt_switches"]

def syscalls(pid, seconds):
    """System calls the process makes in `seconds`, by strace -c; None without strace or ptrace."""
    if not shutil.which("strace"):
        return None
    out = subprocess.run(["timeout", "-s", "INT", str(seconds), "strace", "-f", "-c", "-p", str(pid)],
                         capture_output=True, text=True)
    for line in out.stderr.splitlines():
        parts = line.split()
        if parts and parts[-1] == "total":
            return int(parts[2]) if len(parts) >= 4 else 0
    return 0 if "attach" in out.stderr.lower() or out.returncode in (0, 124) else None

def idle_wakeups(argv, env, needle, seconds):
    pid, fd = spawn(argv, env)
    read_until(fd, needle, b"", 5)
    return wakeups_at_prompt(pid, fd, seconds)

def wakeups_at_prompt(pid, fd, seconds):
    """Context switches over `seconds`, then system calls over as long again; ends the process."""
    time.sleep(1)  # let start-up settle
    v0, n0 = switches(pid)
    time.sleep(seconds)
    v1, n1 = switches(pid)
    calls = syscalls(pid, seconds)
    os.kill(pid, signal.SIGKILL)
    drain_and_reap(pid, fd)
    return v1 - v0, n1 - n0, calls

def real_ward_setup(ward):
    """A throwaway home with one user, and two site files: a 1 s and a 1 h idle timeout."""
    import tempfile
    home = tempfile.mkdtemp()
    env = {"TERM": "xterm", "PATH": "/usr/bin:/bin", "HOME": home, "WARD_HOME": home}
    subprocess.run([ward, "user", "add", "bench", "--role", "clinician", "--password-stdin"],
                   input=b"benchmark-pw\n", env=env, check=True, stdout=subprocess.DEVNULL)
    sites = {}
    for name, timeout in (("fast", "1s"), ("slow", "1h")):
        path = os.path.join(home, f"{name}.toml")
        with open(path, "w") as f:
            f.write(f'[session]\nidle-timeout = "{timeout}"\nwarn-before = "0s"\n\n[[plugin]]\nname = "idle-timer"\n\n[chain]\nrequire = ["idle-timer"]\n')
        sites[name] = dict(env, WARD_SITE=path)
    return sites

def real_ward_signed_on(ward, env):
    """Starts the real Ward, signs on; returns (pid, fd, time the prompt was seen, bytes so far)."""
    pid, fd = spawn([ward, "--user", "bench"], env)
    _, seen = read_until(fd, b"Password for bench:", b"", 10)
    os.write(fd, b"benchmark-pw\n")
    prompt, seen = read_until(fd, b"ward>", seen, 10)
    return pid, fd, prompt, seen

def real_ward_delay(ward, env):
    pid, fd, prompt, seen = real_ward_signed_on(ward, env)
    locked, _ = read_until(fd, b"Ward is locked", seen, 5)
    os.kill(pid, signal.SIGTERM)
    drain_and_reap(pid, fd)
    return locked - prompt - 1.0

def real_ward_idle_wakeups(ward, env, seconds):
    pid, fd, _, _ = real_ward_signed_on(ward, env)
    return wakeups_at_prompt(pid, fd, seconds)

def summary(values):
    ms = sorted(v * 1000 for v in values)
    p = lambda q: ms[min(len(ms) - 1, max(0, int(q * len(ms) + 0.999999) - 1))]
    return f"p50 {p(0.5):8.2f} ms   max {ms[-1]:8.2f} ms   min {ms[0]:8.2f} ms"

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", help="path to the GuardsBenchmark executable")
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--idle-seconds", type=int, default=10)
    parser.add_argument("--ward", help="path to the real ward binary, measured beside the others")
    args = parser.parse_args()
    sites = real_ward_setup(args.ward) if args.ward else None

    print(f"delay after a 1 s deadline, {args.trials} trials each (prompt on the pty = deadline - 1 s)")
    bash = [bash_delay() for _ in range(args.trials)]
    ward = [ward_delay(args.bench) for _ in range(args.trials)]
    print(f"  bash TMOUT=1  'auto-logout' shown: {summary([b[0] for b in bash])}")
    print(f"  bash TMOUT=1  process exited:      {summary([b[1] for b in bash])}")
    print(f"  Ward idle-timer 'locked' shown:    {summary([w[0] for w in ward])}")
    print(f"  Ward idle-timer process exited:    {summary([w[1] for w in ward])}")
    if sites:
        real = [real_ward_delay(args.ward, sites["fast"]) for _ in range(args.trials)]
        print(f"  ward (real binary) lock screen:    {summary(real)}")
    if shutil.which("strace"):
        log = f"/tmp/compare_tmout.{os.getpid()}.strace"
        bash_sh = [shutil.which("bash"), "--norc", "--noprofile", "-i"]
        bash_t = [traced_delay(bash_sh, bash_env(1), "alarm(1)", "timed out", log) for _ in range(args.trials)]
        ward_t = [traced_delay([args.bench, "serve", "--timeout-ms", "1000"], ward_env(), '"ward> "', "locked", log)
                  for _ in range(args.trials)]
        print("  from the process's own side (strace timestamps, arming call -> message write):")
        print(f"  bash TMOUT=1  alarm(1) -> 'timed out': {summary(bash_t)}")
        print(f"  Ward          prompt   -> 'locked':      {summary(ward_t)}")

    s = args.idle_seconds
    print(f"\nwake-ups while idle at the prompt for {s} s (context switches from /proc/PID/status;"
          f" system calls by strace -c over another {s} s)")
    rows = [
        ("bash, no TMOUT", [shutil.which("bash"), "--norc", "--noprofile", "-i"],
         {k: v for k, v in bash_env(0).items() if k != "TMOUT"}, b"bash> "),
        ("bash, TMOUT=3600", [shutil.which("bash"), "--norc", "--noprofile", "-i"], bash_env(3600), b"bash> "),
        ("Ward, idle-timeout 1h", [args.bench, "serve", "--timeout-ms", "3600000"], ward_env(), b"ward> "),
    ]
    for name, argv, env, needle in rows:
        vol, invol, calls = idle_wakeups(argv, env, needle, s)
        calls_text = "n/a" if calls is None else str(calls)
        print(f"  {name:24s} voluntary {vol:4d}   involuntary {invol:4d}   system calls {calls_text}")
    if sites:
        vol, invol, calls = real_ward_idle_wakeups(args.ward, sites["slow"], s)
        calls_text = "n/a" if calls is None else str(calls)
        print(f"  {'ward (real), 1h':24s} voluntary {vol:4d}   involuntary {invol:4d}   system calls {calls_text}")

if __name__ == "__main__":
    main()
