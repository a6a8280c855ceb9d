#!/usr/bin/env python3
"""Start to prompt: time from exec to the first prompt ("Username:") on a pseudo-terminal.

Usage: startup.py PATH-TO-WARD [RUNS]
Makes a throwaway home with one user, then runs Ward RUNS times with the default chain (idle
timer, audit log, suspend guard) and reports the median. Also times `ward --version` (argument
parsing only: the cost of loading the binary and its libraries) for comparison.
"""
import os, pty, select, statistics, subprocess, sys, tempfile, time

def to_prompt(ward, home):
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update({"WARD_HOME": home, "HOME": home, "TERM": "xterm"})
        os.execv(ward, [ward])
    seen = b""
    while b"Username:" not in seen:
        r, _, _ = select.select([fd], [], [], 5)
        if not r:
            raise SystemExit("no prompt within 5 s: " + seen.decode(errors="replace"))
        seen += os.read(fd, 4096)
    elapsed = time.perf_counter() - start
    os.write(fd, b"\x04")  # Ctrl-D at the user name prompt: signs off
    try:
        while os.read(fd, 4096):
            pass
    except OSError:
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    return elapsed

def version(ward):
    start = time.perf_counter()
    subprocess.run([ward, "--version"], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start

ward = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
home = tempfile.mkdtemp()
subprocess.run([ward, "user", "add", "bench", "--role", "clinician", "--password-stdin"], input=b"benchmark-pw\n",
               env={"WARD_HOME": home, "HOME": home}, check=True, stdout=subprocess.DEVNULL)
for _ in range(3):
    to_prompt(ward, home)
prompt = sorted(to_prompt(ward, home) for _ in range(runs))
ver = sorted(version(ward) for _ in range(runs))
ms = lambda xs: f"median {statistics.median(xs)*1000:.1f} ms, min {xs[0]*1000:.1f}, max {xs[-1]*1000:.1f}"
print(f"start to prompt ({runs} runs): {ms(prompt)}")
print(f"ward --version  ({runs} runs): {ms(ver)}")
