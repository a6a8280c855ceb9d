#!/usr/bin/env python3
"""Sign-on, `find` and `open` at a Ward prompt, on SQLite beside PostgreSQL, in one run.

Usage: find_open.py --ward PATH-TO-ward --postgres-dir DIR [--home DIR] [--sign-ons N]
                    [--commands N] [--seed N]

What a user at the terminal waits for, through the whole program (line editor, chain, store,
audit record, table, prompt), not the store's queries alone (Records/ times those): Ward runs on
a pseudo-terminal as `ward --user demo`, once with the home's records.sqlite and once with
`[records] backend = "postgresql"` on the server's Unix socket, both with the usual chain (idle
timer, audit log with fsync "interval", suspend guard).

  sign-on   the password's Return to the first `ward>` (scrypt, the store's opening and the
            banner's count of patients, the chain's sign-on), a new process each time, the two
            stores by turns (A B A B)
  find      `find PREFIX` (three letters of a family name) typed and Return, to the next prompt
  open      `open MRN` (a chart that is not restricted), to the next prompt

The commands are compare_sqlite.py's (find and open by turns, drawn with --seed), typed into one
session on each store; each line goes to the two sessions one after the other, the first of the
two changing from line to line, so a busy neighbour hits both alike.

The home is a `ward demo` home (Batch/compare_sqlite.py makes one: 1,000,000 patients by
default) and DIR the private server of ../Records/postgres_server.py loaded from it:

    python3 Benchmarks/Records/postgres_server.py start --dir DIR
    python3 Benchmarks/Records/postgres_server.py load --dir DIR --from HOME --ward PATH
    python3 Benchmarks/SignOn/find_open.py --ward .build/release/ward --postgres-dir DIR --home HOME

Prints each figure's median and p99 in milliseconds for each store, and the load average.
"""
import argparse, os, re, select, shutil, statistics, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "KeyEcho"))
sys.path.insert(0, os.path.join(HERE, "..", "Batch"))
import pty, fcntl, struct, termios  # noqa: E402,E401
from key_echo import read_until  # noqa: E402
from compare_sqlite import SITE, sample  # noqa: E402

RECORDS = '\n[records]\nbackend = "postgresql"\nurl = "{url}"\n'
# The prompt, with or without the current chart: `ward> `, `ward [O'Brien 475d72ca…]> `.
PROMPT = re.compile(rb"ward(?: \[[^\]\r\n]*\])?> ")
ROWS, COLUMNS = 200, 160  # tall enough that no table or chart is paged


def spawn(argv, env):
    pid, master = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        os.execvpe(argv[0], argv, env)
    return pid, master


def read_prompt(master, after, timeout=30.0):
    """Reads until a prompt appears after the echo of the typed line (whose end is `after`)."""
    seen = b""
    end = time.monotonic() + timeout
    while True:
        cut = seen.find(after)
        if cut >= 0 and PROMPT.search(seen, cut + len(after)):
            return seen
        if b"\x1b[?1049h" in seen:
            raise RuntimeError("the output was paged: make ROWS taller")
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError("waiting for the prompt; got %r" % seen[-300:])
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            chunk = os.read(master, 65536)
            if not chunk:
                raise EOFError("ended waiting for the prompt; got %r" % seen[-300:])
            seen += chunk


class Session:
    def __init__(self, argv, env):
        self.pid, self.master = spawn(argv, env)
        read_until(self.master, b"Password for demo:", 30)
        start = time.perf_counter()
        os.write(self.master, b"demo\r")
        seen = read_until(self.master, b"ward> ", 60)
        self.sign_on = time.perf_counter() - start
        lines = [line.strip() for line in seen.decode(errors="replace").splitlines()]
        self.banner = next((line for line in lines if "patient" in line), "(no banner)")

    def run(self, line):
        start = time.perf_counter()
        os.write(self.master, line.encode() + b"\r")
        seen = read_prompt(self.master, line.encode()[-12:])
        elapsed = time.perf_counter() - start
        if b"rror" in seen or b"not found" in seen or b"o such" in seen:
            raise RuntimeError(f"{line!r}: {seen[-400:]!r}")
        return elapsed

    def close(self):
        try:
            os.write(self.master, b"\x04")
            try:
                read_until(self.master, b"\x00never", 5)
            except (OSError, TimeoutError, EOFError):
                pass
        finally:
            os.close(self.master)
            os.waitpid(self.pid, 0)


def quantiles(times):
    times = sorted(times)
    return statistics.median(times) * 1000, times[min(len(times) - 1, int(len(times) * 0.99))] * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ward", required=True)
    parser.add_argument("--postgres-dir", required=True)
    parser.add_argument("--home", default="/tmp/ward-batch-bench")
    parser.add_argument("--sign-ons", type=int, default=20)
    parser.add_argument("--commands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    server = os.path.abspath(args.postgres_dir)
    with open(os.path.join(server, "port")) as f:
        port = int(f.read())
    count, lines, _ = sample(os.path.join(args.home, "records.sqlite"), args.commands, args.seed)

    work = tempfile.mkdtemp(prefix="ward-find-open-")
    os.chmod(work, 0o700)
    try:
        env = dict(os.environ, WARD_HOME=os.path.abspath(args.home), HOME=work, TERM="xterm-256color",
                   LANG="C.UTF-8")
        base = SITE.format(fsync="interval")
        sites = {"SQLite": base,
                 "PostgreSQL": base + RECORDS.format(url=f"postgresql://ward_bench@{server.replace('/', '%2F')}:{port}/ward")}
        argv = {}
        for index, (name, text) in enumerate(sites.items()):
            path = os.path.join(work, f"site-{index}.toml")
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o600)
            argv[name] = [ward, "--site", path, "--user", "demo"]
        names = list(sites)
        figures = {(name, kind): [] for name in names for kind in ("sign-on", "find", "open")}
        banners = {}
        loads = [os.getloadavg()[0]]

        for name in names:  # a warm-up each: the page cache and the server's buffers
            session = Session(argv[name], env)
            banners[name] = session.banner
            session.close()
        for turn in range(args.sign_ons):
            for name in names[turn % 2:] + names[:turn % 2]:
                session = Session(argv[name], env)
                figures[(name, "sign-on")].append(session.sign_on)
                session.close()
        loads.append(os.getloadavg()[0])

        sessions = {name: Session(argv[name], env) for name in names}
        try:
            for turn, line in enumerate(lines):
                kind = line.split()[0]
                for name in names[turn % 2:] + names[:turn % 2]:
                    figures[(name, kind)].append(sessions[name].run(line))
        finally:
            for session in sessions.values():
                session.close()
        loads.append(os.getloadavg()[0])

        print(f"{count:,} patients; {args.sign_ons} sign-ons and {len(lines)} commands (find and open by turns) "
              f"on each store, by turns; load average {min(loads):.1f}-{max(loads):.1f}")
        print(f"{'':12} {'':8} {'median ms':>10} {'p99 ms':>8} {'n':>5}")
        for name in names:
            for kind in ("sign-on", "find", "open"):
                median, p99 = quantiles(figures[(name, kind)])
                print(f"{name:12} {kind:8} {median:10.2f} {p99:8.2f} {len(figures[(name, kind)]):5}")
        for kind in ("sign-on", "find", "open"):
            ratio = statistics.median(figures[("PostgreSQL", kind)]) / statistics.median(figures[("SQLite", kind)])
            print(f"PostgreSQL / SQLite, {kind} median: {ratio:.2f}×")
        for name in names:
            print(f"banner, {name}: {banners[name]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
