#!/usr/bin/env python3
"""Sign-on to the first prompt on a pseudo-terminal, at a million patients beside an empty home.

Usage: sign_on.py --ward PATH-TO-ward [--baseline OLD-ward] [--home DIR] [--patients N]
                  [--postgres-url URL] [--rounds N]

Ward starts on a pty with `--user demo`; the driver waits for "Password for demo:", types the
password and times until the `ward>` prompt: the password's check (scrypt), the store's opening,
the banner's count of patients, the chain's sign-on. The same is timed on an empty home (one user,
no records), by turns (A B A B): the difference is what the records cost at sign-on. The goal is
under 50 ms at 1,000,000 patients on SQLite and on PostgreSQL.

The home is a `ward demo` home (made when missing: the one `Batch/compare_sqlite.py` makes, at
`/tmp/ward-batch-bench`). With `--postgres-url`, the same home signs on against that database too
(`Records/postgres_server.py load` fills one from the home), through a site whose `[records]`
names it. With `--baseline`, an older Ward binary takes the same turns.

Prints each program's median and p90 over the rounds, and the banner each printed.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "KeyEcho"))
from key_echo import read_until, spawn  # noqa: E402

SITE = """[[plugin]]
name = "idle-timer"

[[plugin]]
name = "audit-log"

[[plugin]]
name = "suspend-guard"
"""


EMPTY_PASSWORD = "sign-on-bench"  # the demo home's user demo has the password demo


def sign_on(ward, home, site, password):
    """Seconds from the password's Return to the prompt, and the banner line."""
    env = dict(os.environ, WARD_HOME=home, WARD_SITE=site, HOME=home, TERM="xterm-256color", LANG="C.UTF-8")
    pid, master = spawn([ward, "--user", "demo"], env)
    try:
        read_until(master, b"Password for demo:", 10)
        start = time.perf_counter()
        os.write(master, (password + "\r").encode())
        seen = read_until(master, b"ward> ", 30)
        elapsed = time.perf_counter() - start
        os.write(master, b"\x04")
        try:
            read_until(master, b"\x00never", 3)
        except (OSError, TimeoutError, EOFError):
            pass
    finally:
        os.close(master)
        os.waitpid(pid, 0)
    lines = [line.strip() for line in seen.decode(errors="replace").splitlines()]
    banner = next((line for line in lines if "patient" in line), "(no banner)")
    return elapsed, banner


def site_file(directory, name, records):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(SITE + records)
    os.chmod(path, 0o600)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ward", required=True)
    parser.add_argument("--baseline", help="an older ward binary, run by turns beside --ward")
    parser.add_argument("--home", default="/tmp/ward-batch-bench")
    parser.add_argument("--patients", type=int, default=1_000_000)
    parser.add_argument("--postgres-url", help="a database loaded from the home, signed on to as well")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    if not os.path.exists(os.path.join(args.home, "records.sqlite")):
        print(f"making {args.patients} demo patients in {args.home} ...", flush=True)
        subprocess.run([ward, "demo", "--home", args.home, "--patients", str(args.patients), "--no-shell"], check=True)

    work = tempfile.mkdtemp(prefix="ward-sign-on-")
    os.chmod(work, 0o700)
    try:
        empty = os.path.join(work, "empty")
        subprocess.run([ward, "user", "add", "demo", "--role", "clinician", "--password-stdin"], input=(EMPTY_PASSWORD + "\n").encode(),
                       env=dict(os.environ, WARD_HOME=empty, HOME=work), check=True, capture_output=True)
        sqlite_site = site_file(work, "sqlite.toml", "")
        homes = [("empty home", empty, sqlite_site, EMPTY_PASSWORD), ("SQLite", args.home, sqlite_site, "demo")]
        if args.postgres_url:
            url = args.postgres_url.replace('"', '\\"')
            pg_site = site_file(work, "postgres.toml", f'\n[records]\nbackend = "postgresql"\nurl = "{url}"\n')
            homes.append(("PostgreSQL", args.home, pg_site, "demo"))
        binaries = [("ward", ward)] + ([("baseline", os.path.abspath(args.baseline))] if args.baseline else [])
        runs = {(b, h): [] for b, _ in binaries for h, _, _, _ in homes}
        banners = {}
        for b, path in binaries:  # a warm-up each: the page cache holds the index afterwards
            for h, home, site, password in homes:
                banners[(b, h)] = sign_on(path, home, site, password)[1]
        for _ in range(args.rounds):
            for b, path in binaries:
                for h, home, site, password in homes:
                    runs[(b, h)].append(sign_on(path, home, site, password)[0])
        load = os.getloadavg()[0]
        print(f"sign-on to prompt, {args.rounds} rounds by turns (load {load:.1f}):")
        for (b, h), times in runs.items():
            times.sort()
            p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
            print(f"  {b:9} {h:11} median {statistics.median(times) * 1000:6.1f} ms, p90 {p90 * 1000:6.1f} ms"
                  f"   {banners[(b, h)]}")
        for b, _ in binaries:
            base = statistics.median(runs[(b, "empty home")])
            for h, _, _, _ in homes[1:]:
                print(f"  {b:9} {h:11} minus the empty home: {(statistics.median(runs[(b, h)]) - base) * 1000:+.1f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
