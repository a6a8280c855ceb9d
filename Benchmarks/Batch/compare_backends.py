#!/usr/bin/env python3
"""`ward --batch` on the SQLite store beside the same batch on PostgreSQL, in one run (issue 17).

Usage: compare_backends.py --ward PATH-TO-ward --postgres-dir DIR [--home DIR] [--commands N] [--rounds N]

The home is a `ward demo` home (see compare_sqlite.py; 1,000,000 patients by default) and DIR the
private server of ../Records/postgres_server.py, started and loaded from that home
(`postgres_server.py start --dir DIR` then `load --dir DIR --from HOME --ward PATH`), so both
stores hold the same records. Each round runs, by turns, the same script of `find PREFIX` and
`open MRN` lines (compare_sqlite.py's) through:

  ward --batch, records in the home's SQLite file
  ward --batch, [records] backend = "postgresql" on the server's Unix socket (trusted)
  ward --batch, the same over loopback TCP (127.0.0.1, password-file, tls = "disable")

with the usual chain (idle timer, audit log with fsync "interval", suspend guard). Each figure is
the median over the rounds of whole-process wall time, and per command after taking away the
median time of the same process with an empty script (start-up, sign-on, connecting); the peak
resident memory is the largest over the rounds of the batch's `Maximum resident set size`
(/usr/bin/time -v), Ward's side only (the server's processes are not counted).
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_sqlite import SITE, sample  # noqa: E402

RECORDS = """
[records]
backend = "postgresql"
url = "{url}"
{extra}"""


def timed(argv, stdin_path, env, rss_path):
    """Wall time of one run, and its peak RSS in kB."""
    with open(stdin_path, "rb") as stdin:
        start = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-v", "-o", rss_path] + argv, stdin=stdin,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    with open(rss_path) as f:
        rss = next(int(line.split(":")[1]) for line in f if "Maximum resident set size" in line)
    return elapsed, rss


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ward", required=True)
    parser.add_argument("--postgres-dir", required=True)
    parser.add_argument("--home", default="/tmp/ward-records-bench")
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    server = os.path.abspath(args.postgres_dir)
    with open(os.path.join(server, "port")) as f:
        port = int(f.read())
    db_path = os.path.join(args.home, "records.sqlite")
    count, ward_lines, _ = sample(db_path, args.commands, args.seed)

    work = tempfile.mkdtemp(prefix="ward-backends-bench-")
    os.chmod(work, 0o700)
    paths = {}
    for name, text in [("script.ward", "\n".join(ward_lines) + "\n"), ("empty.ward", ""), ("password", "demo\n")]:
        paths[name] = os.path.join(work, name)
        with open(paths[name], "w") as f:
            f.write(text)
    os.chmod(paths["password"], 0o600)
    env = dict(os.environ, WARD_HOME=args.home, HOME=work)
    base = SITE.format(fsync="interval")
    sites = {
        "sqlite": base,
        "postgresql, socket": base + RECORDS.format(
            url=f"postgresql://ward_bench@{server.replace('/', '%2F')}:{port}/ward", extra=""),
        "postgresql, loopback": base + RECORDS.format(
            url=f"postgresql://ward_bench@127.0.0.1:{port}/ward",
            extra=f'password-file = "{os.path.join(server, "password")}"\ntls = "disable"\n'),
    }
    runners = {}
    for index, (name, text) in enumerate(sites.items()):
        site = os.path.join(work, f"site-{index}.toml")
        with open(site, "w") as f:
            f.write(text)
        runners[name] = [ward, "--site", site, "--user", "demo", "--password-file", paths["password"], "--batch", "-"]

    times = {name: [] for name in runners}
    empty = {name: [] for name in runners}
    peak = {name: 0 for name in runners}
    rss_path = os.path.join(work, "rss")
    for round_ in range(args.rounds):
        order = list(runners)
        order = order[round_ % len(order):] + order[: round_ % len(order)]  # A B C, B C A, ...
        for name in order:
            elapsed, rss = timed(runners[name], paths["script.ward"], env, rss_path)
            times[name].append(elapsed)
            peak[name] = max(peak[name], rss)
            empty[name].append(timed(runners[name], paths["empty.ward"], env, rss_path)[0])

    print(f"{count:,} patients; {args.commands} commands (find and open by turns); {args.rounds} rounds")
    print(f"{'':22} {'median s':>9} {'start s':>8} {'commands/s':>11} {'per command':>12} {'peak RSS':>10}")
    rates = {}
    for name in runners:
        total, start = statistics.median(times[name]), statistics.median(empty[name])
        rates[name] = args.commands / max(1e-9, total - start)
        print(f"{name:22} {total:9.3f} {start:8.3f} {rates[name]:11.0f} {1e6 / rates[name]:9.0f} µs "
              f"{peak[name] / 1024:7.1f} MB")
    for name in runners:
        if name != "sqlite":
            print(f"{name}: {rates['sqlite'] / rates[name]:.2f}× the SQLite store's time per command")


if __name__ == "__main__":
    main()
