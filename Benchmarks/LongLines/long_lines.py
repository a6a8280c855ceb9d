#!/usr/bin/env python3
"""Time per MiB of line: `note` and `find` in batch mode, and a paste at the prompt (issue 12).

Usage: long_lines.py --ward PATH-TO-ward [--sizes 65536,262144,1048000] [--rounds 3] [--skip-paste]

Runs the release binary (`swift build -c release`), never from `swift test`. For each size it
writes a batch script `open W0000011` + `note WORDS` (and `find WORDS`) whose long line has that
many bytes, runs it, and takes away the time of the same script without the long line (start-up,
scrypt sign-on, open). The paste is `help qqq…` of that many bytes, put in a tmux buffer and
pasted at a signed-on prompt, not bracketed (plain keys, the costly case) and bracketed (-p); the
figure is Ward's CPU time (utime + stime from /proc) from the paste until the answer is on the
screen. Each figure is the median of --rounds; printed as seconds per MiB.
"""
import argparse, os, shutil, statistics, subprocess, tempfile, time

SITE = '[[plugin]]\nname = "audit-log"\nfsync = "interval"\n\n[chain]\nrequire = ["audit-log"]\n'


def run(ward, env, script):
    started = time.monotonic()
    p = subprocess.run([ward, "--batch", script, "--user", "demo", "--password-file", env["PW"]],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - started
    return elapsed, p.returncode, p.stderr


def words(size):
    unit = "stable "
    return (unit * (size // len(unit) + 1))[: size - 1].rstrip()


def batch_figures(ward, env, home, sizes, rounds):
    base = os.path.join(home, "base.ward")
    with open(base, "w") as f:
        f.write("open W0000011\n")
    baseline = statistics.median(run(ward, env, base)[0] for _ in range(rounds))
    print(f"baseline (start, sign-on, open): {baseline * 1000:.0f} ms")
    for command in ("note", "find"):
        for size in sizes:
            text = words(size - len(command) - 1)
            script = os.path.join(home, f"{command}-{size}.ward")
            with open(script, "w") as f:
                f.write("open W0000011\n" + command + " " + text + "\n")
            times = []
            for _ in range(rounds):
                elapsed, status, err = run(ward, env, script)
                if status != 0:
                    print(f"  {command} {size} B: exit {status}: {err.strip()[:200]}")
                    break
                times.append(elapsed)
            if times:
                t = max(0.0, statistics.median(times) - baseline)
                print(f"{command:5} {size:>8} B: {t * 1000:9.1f} ms  = {t / (size / 2**20):8.3f} s/MiB")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tmux(sock, *args):
    return subprocess.run(["tmux", "-L", sock, *args], capture_output=True, text=True).stdout


def paste_figures(ward, env, home, sizes, rounds):
    for bracketed in (False, True):
        for size in sizes:
            figures = []
            for _ in range(rounds):
                sock = f"ward-bench-{os.getpid()}"
                shell_env = " ".join(f"{k}='{v}'" for k, v in env.items() if k != "PW")
                tmux(sock, "new-session", "-d", "-x", "120", "-y", "40", "sh", "-c",
                     f"export {shell_env} TERM=xterm-256color; {ward} --user demo; sleep 60")
                try:
                    deadline = time.monotonic() + 10
                    while "Password" not in tmux(sock, "capture-pane", "-p") and time.monotonic() < deadline:
                        time.sleep(0.05)
                    tmux(sock, "send-keys", "-l", "demo")
                    tmux(sock, "send-keys", "Enter")
                    while "ward>" not in tmux(sock, "capture-pane", "-p") and time.monotonic() < deadline:
                        time.sleep(0.05)
                    shell = tmux(sock, "list-panes", "-F", "#{pane_pid}").split()[0]
                    pid = int(subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True).stdout.split()[0])
                    path = os.path.join(home, "paste.txt")
                    with open(path, "w") as f:
                        f.write("help " + "q" * (size - 5))
                    tmux(sock, "load-buffer", path)
                    before = cpu_seconds(pid)
                    tmux(sock, "paste-buffer", *(["-p"] if bracketed else []))
                    tmux(sock, "send-keys", "Enter")
                    deadline = time.monotonic() + 900
                    while "Type 'help' for the list." not in tmux(sock, "capture-pane", "-p", "-J"):
                        if time.monotonic() > deadline:
                            raise TimeoutError
                        time.sleep(0.05)
                    figures.append(cpu_seconds(pid) - before)
                except (TimeoutError, IndexError, ValueError):
                    print(f"  paste {size} B: no answer")
                finally:
                    tmux(sock, "kill-server")
            if figures:
                t = statistics.median(figures)
                kind = "bracketed" if bracketed else "plain"
                print(f"paste {kind:9} {size:>8} B: {t * 1000:9.1f} ms CPU = {t / (size / 2**20):8.3f} s/MiB")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ward", required=True)
    parser.add_argument("--sizes", default="65536,262144,1048000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-paste", action="store_true")
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    sizes = [int(s) for s in args.sizes.split(",")]
    home = tempfile.mkdtemp(prefix="ward-long-lines-")
    try:
        env = {"WARD_HOME": os.path.join(home, "home"), "WARD_SITE": os.path.join(home, "site.toml"),
               "HOME": home, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "PW": os.path.join(home, "pw")}
        with open(env["WARD_SITE"], "w") as f:
            f.write(SITE)
        subprocess.run([ward, "demo", "--patients", "200", "--no-shell"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        fd = os.open(env["PW"], os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, b"demo\n")
        os.close(fd)
        print(f"ward: {ward}; {os.cpu_count()} cores; sizes {sizes}; median of {args.rounds}")
        batch_figures(ward, env, home, sizes, args.rounds)
        if not args.skip_paste:
            paste_figures(ward, env, home, sizes, args.rounds)
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
