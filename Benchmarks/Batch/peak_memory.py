#!/usr/bin/env python3
"""Peak memory of one `ward --batch` that opens many different charts, one after another.

Usage: peak_memory.py --ward PATH-TO-ward [--home DIR] [--charts N] [--show SECTION ...]
                      [--fsync always|interval] [--keep-open]

Issue 19's goal: at most 40 MB with 1,000 charts opened in one batch. The script picks N
unrestricted patients of the home (the one `compare_sqlite.py` made, or any `ward demo` home),
writes a batch that opens each (`open MRN`), shows the given sections of it (default: `summary`
and `labs`), and closes it again unless `--keep-open` (then all N stay loaded, as a clinician who
never types `close` would leave them), and prints the process's maximum resident set size as the
kernel counts it (`ru_maxrss` of the child, the figure `/usr/bin/time -v` prints), with the same
figure for an empty batch beside it: start-up, sign-on and the store's first query.
"""
import argparse, os, random, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_sqlite import SITE  # noqa: E402


def charts(db_path, count, seed):
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    rows = db.execute("SELECT mrn FROM patient WHERE restricted = 0").fetchall()
    if len(rows) < count:
        sys.exit(f"the home has {len(rows)} unrestricted patients; {count} wanted")
    return [mrn for (mrn,) in random.Random(seed).sample(rows, count)]


def peak_kib(argv, script_path, env):
    """Runs `argv` with `script_path` on standard input; the child's peak RSS in KiB."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(script_path, os.O_RDONLY)
        os.dup2(fd, 0)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.execve(argv[0], argv, env)
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"ward exited {code}")
    return usage.ru_maxrss


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ward", required=True)
    parser.add_argument("--home", default="/tmp/ward-batch-bench")
    parser.add_argument("--charts", type=int, default=1000)
    parser.add_argument("--show", nargs="*", default=["summary", "labs"])
    parser.add_argument("--fsync", choices=["always", "interval"], default="interval")
    parser.add_argument("--keep-open", action="store_true")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    db_path = os.path.join(args.home, "records.sqlite")
    if not os.path.exists(db_path):
        sys.exit(f"no home at {args.home}: make one with `ward demo --home {args.home} --no-shell`")

    lines = []
    for mrn in charts(db_path, args.charts, args.seed):
        lines.append(f"open {mrn}")
        lines += [f"show {section}" for section in args.show]
        if not args.keep_open:
            lines.append("close")
    work = tempfile.mkdtemp(prefix="ward-peak-memory-")
    os.chmod(work, 0o700)
    paths = {}
    for name, text in [
        ("script.ward", "\n".join(lines) + "\n"),
        ("empty.ward", ""),
        ("password", "demo\n"),
        ("site.toml", SITE.format(fsync=args.fsync)),
    ]:
        paths[name] = os.path.join(work, name)
        with open(paths[name], "w") as f:
            f.write(text)
    os.chmod(paths["password"], 0o600)
    env = dict(os.environ, WARD_HOME=args.home, HOME=work)
    argv = [ward, "--site", paths["site.toml"], "--user", "demo", "--password-file", paths["password"], "--batch", "-"]
    empty = peak_kib(argv, paths["empty.ward"], env)
    full = peak_kib(argv, paths["script.ward"], env)
    held = "kept open" if args.keep_open else "each closed after"
    print(f"{args.charts} charts opened ({held}; show {' '.join(args.show) or 'nothing'}), {len(lines)} lines")
    print(f"peak RSS, empty batch: {empty / 1024:7.1f} MiB")
    print(f"peak RSS, the batch:   {full / 1024:7.1f} MiB")


if __name__ == "__main__":
    main()
