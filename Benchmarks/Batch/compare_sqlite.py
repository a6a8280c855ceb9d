#!/usr/bin/env python3
"""Batch mode's throughput beside the sqlite3 shell on the same database, in one run (issue 8).

Usage: compare_sqlite.py --ward PATH-TO-ward [--baseline OLD-ward] [--home DIR] [--patients N]
                         [--commands N] [--rounds N] [--by-command]

The home is a `ward demo` home (made when missing: 1,000,000 patients by default, ~90 s and
~1.6 GB). Each round runs, by turns, the same script of `find PREFIX` and `open MRN` lines:

  ward --batch, audit log fsync = "always"     (every record on disk before the command runs)
  ward --batch, audit log fsync = "interval"   (at most a second of records at risk)
  sqlite3 -batch, the queries Ward's store runs for those commands, on the same records.sqlite

The site chain is the usual one (idle timer, audit log, suspend guard). For `find` the sqlite3
script has the store's two FTS5 statements (the rows, then the capped count); for `open`, the
patient row and the six sections of the chart. Ward does more for each command than the shell
does: it signs on (scrypt, once), passes each line through the chain, writes and chains an audit
record, and formats the result; the ratio is the price of those.

With `--baseline`, a second Ward binary (an older build) runs the same scripts in the same
turns, so a change is judged against its "before" under the same load.

Each figure is the median over the rounds of whole-process wall time; commands per second are
computed after taking away the median time of the same process with an empty script (start-up,
sign-on), which is printed too.

With `--by-command`, each round also runs the script's `find` lines alone and its `open` lines
alone (each taken twice, so each script has as many commands as the mix), with fsync
`interval`, beside the sqlite3 shell running the same statements: the mix's ratio is an average
of two that can lie far apart.
"""
import argparse, os, random, sqlite3, statistics, subprocess, sys, tempfile, time

SITE = """[session]
idle-timeout = "15m"

[[plugin]]
name = "idle-timer"

[[plugin]]
name = "audit-log"
fsync = "{fsync}"

[[plugin]]
name = "suspend-guard"
"""

FIND_ROWS = (
    "SELECT p.id, p.mrn, p.given, p.family, p.birth_date, p.sex, p.restricted "
    "FROM patient_fts JOIN patient p ON p.id = patient_fts.rowid WHERE patient_fts MATCH '{q}' LIMIT 20;"
)
FIND_COUNT = "SELECT count(*) FROM (SELECT 1 FROM patient_fts WHERE patient_fts MATCH '{q}' LIMIT 201);"
OPEN = [
    "SELECT id, mrn, given, family, birth_date, sex, phone, address, restricted FROM patient WHERE mrn = '{mrn}';",
    "SELECT substance, code, criticality, category, status, recorded FROM allergy WHERE patient_id = {id} ORDER BY id;",
    "SELECT code, display, status, onset, abated FROM problem WHERE patient_id = {id} ORDER BY onset, id;",
    "SELECT code, display, status, dosage, authored FROM medication WHERE patient_id = {id} ORDER BY authored, id;",
    "SELECT c.code, c.display, c.category, o.value, o.text, c.unit, o.time FROM observation o "
    "JOIN observation_code c ON c.id = o.code_id WHERE o.id BETWEEN {lo} AND {hi} ORDER BY o.time, o.id;",
    'SELECT kind, display, reason, start, "end" FROM encounter WHERE patient_id = {id} ORDER BY start, id;',
    "SELECT author, time, text FROM note WHERE patient_id = {id} ORDER BY time, id;",
]
OBSERVATION_ID_BITS = 20  # RecordsLayout.observationIDBits


def sample(db_path, commands, seed):
    """`commands` lines, find and open by turns, and the same work as SQL."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    (count,) = db.execute("SELECT count(*) FROM patient").fetchone()
    rng = random.Random(seed)
    ward_lines, sql_lines = [], []
    for i in range(commands):
        while True:  # a restricted chart asks for a reason to open; the benchmark opens the others
            pid = rng.randint(1, count)
            mrn, family, restricted = db.execute(
                "SELECT mrn, family, restricted FROM patient WHERE id = ?", (pid,)).fetchone()
            if not restricted:
                break
        if i % 2 == 0:
            prefix = "".join(ch for ch in family.lower() if ch.isalpha())[:3] or "a"
            ward_lines.append(f"find {prefix}")
            q = f'"{prefix}"*'
            sql_lines += [FIND_ROWS.format(q=q), FIND_COUNT.format(q=q)]
        else:
            ward_lines.append(f"open {mrn}")
            lo, hi = pid << OBSERVATION_ID_BITS, (pid << OBSERVATION_ID_BITS) | ((1 << OBSERVATION_ID_BITS) - 1)
            sql_lines += [s.format(mrn=mrn, id=pid, lo=lo, hi=hi) for s in OPEN]
    return count, ward_lines, sql_lines


def split_by_kind(ward_lines, sql_lines):
    """The `find` lines and the `open` lines of `sample`'s script, each with its statements."""
    kinds = {"find": ([], []), "open": ([], [])}
    statements = {"find": 2, "open": len(OPEN)}  # FIND_ROWS and FIND_COUNT; the chart's reads
    position = 0
    for line in ward_lines:
        kind = line.split()[0]
        lines, sql = kinds[kind]
        lines.append(line)
        sql += sql_lines[position:position + statements[kind]]
        position += statements[kind]
    return kinds


def timed(argv, stdin_path, env):
    with open(stdin_path, "rb") as stdin:
        start = time.perf_counter()
        done = subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ward", required=True)
    parser.add_argument("--baseline", help="an older ward binary, run by turns beside --ward")
    parser.add_argument("--home", default="/tmp/ward-batch-bench")
    parser.add_argument("--patients", type=int, default=1_000_000)
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--by-command", action="store_true", help="also find alone and open alone")
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    db_path = os.path.join(args.home, "records.sqlite")
    if not os.path.exists(db_path):
        print(f"making {args.patients} demo patients in {args.home} ...", flush=True)
        subprocess.run([ward, "demo", "--home", args.home, "--patients", str(args.patients), "--no-shell"], check=True)

    count, ward_lines, sql_lines = sample(db_path, args.commands, args.seed)
    work = tempfile.mkdtemp(prefix="ward-batch-bench-")
    os.chmod(work, 0o700)
    paths = {}
    for name, text in [
        ("script.ward", "\n".join(ward_lines) + "\n"),
        ("empty.ward", ""),
        ("queries.sql", ".mode list\n" + "\n".join(sql_lines) + "\n"),
        ("empty.sql", ""),
        ("password", "demo\n"),
    ] + [
        item
        for kind, (lines, sql) in split_by_kind(ward_lines, sql_lines).items()
        for item in [
            (f"{kind}.ward", "\n".join(lines * 2) + "\n"),
            (f"{kind}.sql", ".mode list\n" + "\n".join(sql * 2) + "\n"),
        ]
    ]:
        paths[name] = os.path.join(work, name)
        with open(paths[name], "w") as f:
            f.write(text)
    os.chmod(paths["password"], 0o600)
    env = dict(os.environ, WARD_HOME=args.home, HOME=work)
    runners = {}
    binaries = [("ward", ward)] + ([("baseline", os.path.abspath(args.baseline))] if args.baseline else [])
    for fsync in ("always", "interval"):
        site = os.path.join(work, f"site-{fsync}.toml")
        with open(site, "w") as f:
            f.write(SITE.format(fsync=fsync))
        for label, binary in binaries:
            argv = [binary, "--site", site, "--user", "demo", "--password-file", paths["password"], "--batch", "-"]
            runners[f"{label}, fsync {fsync}"] = (argv, "script.ward", "empty.ward")
    runners["sqlite3 shell"] = (["sqlite3", "-batch", "-bail", db_path], "queries.sql", "empty.sql")
    # Each kind alone: the interval runners and the shell again, with their own scripts.
    kinds = ["find", "open"] if args.by_command else []
    for kind in kinds:
        for name in [n for n in list(runners) if n.endswith("interval") or n == "sqlite3 shell"]:
            argv, _, nothing = runners[name]
            script = f"{kind}.sql" if name == "sqlite3 shell" else f"{kind}.ward"
            runners[f"{name} [{kind}]"] = (argv, script, nothing)

    times = {name: [] for name in runners}
    empty = {name: [] for name in runners}
    for round_ in range(args.rounds):
        order = list(runners)
        order = order[round_ % len(order):] + order[: round_ % len(order)]  # A B C, B C A, ...
        for name in order:
            argv, script, nothing = runners[name]
            times[name].append(timed(argv, paths[script], env))
            if "[" not in name:  # a kind alone shares its process's empty run
                empty[name].append(timed(argv, paths[nothing], env))

    print(f"{count:,} patients; {args.commands} commands (find and open by turns); {args.rounds} rounds")
    print(f"{'':32} {'median s':>9} {'start s':>8} {'commands/s':>11} {'per command':>12}")
    rates = {}
    for name in runners:
        total, start = statistics.median(times[name]), statistics.median(empty[name.split(" [")[0]])
        rates[name] = args.commands / max(1e-9, total - start)
        print(
            f"{name:32} {total:9.3f} {start:8.3f} {rates[name]:11.0f} "
            f"{1e6 / rates[name]:9.0f} µs"
        )
    base = rates["sqlite3 shell"]
    for name in runners:
        if name != "sqlite3 shell" and "[" not in name:
            print(f"{name}: {base / rates[name]:.2f}× the sqlite3 shell's time per command")
    for kind in kinds:
        base = rates[f"sqlite3 shell [{kind}]"]
        for name in runners:
            if name.endswith(f"[{kind}]") and not name.startswith("sqlite3"):
                print(f"{name}: {base / rates[name]:.2f}× the sqlite3 shell's time per {kind}")


if __name__ == "__main__":
    main()
