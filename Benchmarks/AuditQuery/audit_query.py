#!/usr/bin/env python3
"""`ward audit show --mrn X` and `ward audit report --mrn X` over large audit logs.

Usage: audit_query.py --ward PATH-TO-ward [--sizes 100000,300000,1000000] [--rounds 5]
                      [--dir DIR [--reuse]] [--keep] [--seed N]

`--rounds 0` only writes the logs; `--reuse` then measures them (each is verified again).

Prints, for each log size, the median wall-clock time and CPU time (user + system) of each
command over `--rounds` runs, the sizes taken by turns (small, middle, large, small, …), and
how each median grows with the log. The goal: under 2 s at 1,000,000 records, release build.

The logs. Every record's shape is Ward's own: the script first runs a real session in a fresh
`ward demo` home (`ward --batch` as the demo clinician: find, open, show, note, close, a break
of the glass), and reads back the records Ward wrote for it. Those are the templates. A log of N
records is then written as many such sessions, one after another over the 90 days before now,
each by one of 300 users (clinicians, clerks), on one of two hosts, with its own session id and
process id, its `find`s listing up to 20 of 20,000 MRNs (`--mrns`; the home's 2,000 patients are
the first of them) and its `open`s choosing one, some charts far more often than others (weights
falling as 1/sqrt(rank): the busiest is named by about 0.35% of the records). Each record is
written as Ward
writes it (canonical JSON, the envelope's fields in order, `hash` last) and hash-chained as Ward
chains it (SHA-256 over the previous hash's hex and the body); the head file beside it is Ward's.
`ward audit verify` must then call each log intact, with N records, or the script stops: the
real verifier is the check that the generator writes what Ward writes. The smaller logs are the
larger one's first records.

The MRN asked about is one of the patients opened most often (a busy chart: its report is the
longest), typed in lower case as an auditor would. Each command reads the log as a file
argument; the home's own log receives the `audit-read` record of every reading, as it would.
Standard output goes to /dev/null (not a terminal: no pager).
"""
import argparse, hashlib, itertools, json, os, random, resource, shutil, statistics, subprocess, sys, tempfile, time

SITE = """[[plugin]]
name = "audit-log"

[chain]
require = []
"""

TEMPLATE_SCRIPT = [
    "find smi",
    "open W0000011",
    "show labs",
    "show meds",
    "note Seen today.",
    "close",
    "find alvarez",
    "open W0000076 --reason Patient in the emergency department",
    "show summary",
    "close",
]

GENESIS = "0" * 64


def run(argv, env, **kwargs):
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv[:3])} … exited {done.returncode}: {done.stderr.decode()[-800:]}")
    return done.stdout.decode()


def read_records(path):
    with open(path, "rb") as f:
        return [json.loads(line) for line in f if line.strip()]


def templates(ward, work, env):
    """A real session's records, as Ward wrote them: the sign-on, each command with the access
    records it caused, the sign-off."""
    log = os.path.join(env["WARD_HOME"], "audit.jsonl")
    before = len(read_records(log))
    script = os.path.join(work, "template.ward")
    with open(script, "w") as f:
        f.write("\n".join(TEMPLATE_SCRIPT) + "\n")
    run([ward, "--batch", script, "--user", "demo", "--password-file", os.path.join(work, "password")], env)
    records = read_records(log)[before:]
    kinds = [r["kind"] for r in records]
    if kinds[0] != "sign-on" or kinds[-1] != "sign-off" or "break-glass" not in kinds:
        sys.exit(f"unexpected template session: {kinds}")
    groups, current = [], None
    for record in records[1:-1]:
        if record["kind"] == "command":
            current = [record]
            groups.append(current)
        elif current is not None:
            current.append(record)
    return records[0], groups, records[-1]


def body_bytes(fields):
    """The record without `hash`, as CanonicalJSON writes it: keys in order, no spaces."""
    return ("{" + ",".join(json.dumps(k) + ":" + json.dumps(v, ensure_ascii=False) for k, v in fields) + "}").encode()


def timestamp(ms):
    t = time.gmtime(ms // 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{ms % 1000:03d}Z"


def compile_template(template):
    """The record as parts to join: each field's bytes (`,"key":value`) where the value is the
    template's own, or the name of the variable that replaces it."""
    variables = {"seq", "ts", "host", "pid", "session", "user", "role", "mrn", "prev"}
    parts = []
    for index, (key, value) in enumerate(template.items()):
        if key == "hash":
            continue
        head = ("{" if index == 0 else ",") + json.dumps(key) + ":"
        if key in variables:
            parts.append(head.encode())
            parts.append(key)
        else:
            parts.append((head + json.dumps(value, ensure_ascii=False)).encode())
    parts.append(b"}")
    return parts


def generate(path, count, sign_on, groups, sign_off, mrns, seed):
    """`count` records of sessions like the template's, chained, in `path` (and its head)."""
    rng = random.Random(seed)
    users = [(f"user{i:03d}", "clinician" if i % 5 else "clerk") for i in range(300)]
    # Some charts are opened far more often than others (weights falling as 1/sqrt(rank)).
    cumulative = list(itertools.accumulate(1.0 / (rank + 1) ** 0.5 for rank in range(len(mrns))))
    sign_on, sign_off = (sign_on, compile_template(sign_on)), (sign_off, compile_template(sign_off))
    groups = [[(record, compile_template(record)) for record in group] for group in groups]
    now_ms = int(time.time() * 1000)
    start_ms = now_ms - 90 * 86_400_000
    step_ms = (now_ms - start_ms) // max(1, count)
    ms = start_ms
    prev = GENESIS
    seq = 0
    with open(path, "wb") as out:
        os.fchmod(out.fileno(), 0o600)
        while seq < count:
            user, role = rng.choice(users)
            values = {
                "host": '"%s"' % rng.choice(["ward1", "ward2"]),
                "pid": str(rng.randrange(1000, 4_000_000)),
                "session": '"%016x"' % rng.getrandbits(64),
                "user": '"%s"' % user,
                "role": '"%s"' % role,
            }
            chosen = {}
            records = [sign_on]
            for _ in range(rng.randrange(3, 25)):
                records += rng.choice(groups)
            records.append(sign_off)
            for template, parts in records:
                if seq >= count:
                    break
                seq += 1
                values["seq"] = str(seq)
                values["ts"] = '"%s"' % timestamp(ms)
                values["prev"] = '"%s"' % prev
                if "mrn" in template:
                    if template.get("action") == "list":
                        mrn = rng.choices(mrns, cum_weights=cumulative)[0]
                    else:
                        mrn = chosen.setdefault(template["mrn"], rng.choices(mrns, cum_weights=cumulative)[0])
                    values["mrn"] = '"%s"' % mrn
                body = b"".join(part if isinstance(part, bytes) else values[part].encode() for part in parts)
                digest = hashlib.sha256(prev.encode() + body).hexdigest()
                out.write(body[:-1] + b',"hash":"' + digest.encode() + b'"}\n')
                prev = digest
                ms += rng.randrange(1, 2 * step_ms + 1)
    write_head(path, seq, prev)


def write_head(path, seq, last_hash):
    mac = hashlib.sha256((last_hash + f"ward-audit-head:{seq}").encode()).hexdigest()
    with open(path + ".head", "wb") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(f'{{"seq":{seq},"hash":"{last_hash}","mac":"{mac}"}}\n'.encode())


def prefix(source, path, count):
    """The first `count` records of `source`, with their head: a log of its own."""
    last = None
    with open(source, "rb") as f, open(path, "wb") as out:
        os.fchmod(out.fileno(), 0o600)
        for _ in range(count):
            line = f.readline()
            out.write(line)
            last = line
    record = json.loads(last)
    write_head(path, record["seq"], record["hash"])


def busiest_mrn(path):
    counts = {}
    with open(path, "rb") as f:
        for line in f:
            if b'"action":"open"' in line:
                mrn = json.loads(line)["mrn"]
                counts[mrn] = counts.get(mrn, 0) + 1
    return max(counts, key=counts.get), counts


def timed(argv, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-800:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ward", required=True)
    parser.add_argument("--sizes", default="100000,300000,1000000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", help="where the home and logs go (default: a new temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the home and the logs")
    parser.add_argument("--reuse", action="store_true", help="use the largest log already in --dir (checked again)")
    parser.add_argument("--patients", type=int, default=2000, help="in the home, for the report's name")
    parser.add_argument("--mrns", type=int, default=20000, help="MRNs the records name")
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    sizes = sorted(int(s) for s in args.sizes.split(","))

    work = args.dir or tempfile.mkdtemp(prefix="ward-audit-query-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o700)
    home = os.path.join(work, "home")
    env = dict(os.environ, WARD_HOME=home, WARD_SITE=os.path.join(work, "site.toml"), HOME=work, TZ="UTC")
    with open(env["WARD_SITE"], "w") as f:
        f.write(SITE)
    password = os.path.join(work, "password")
    with open(password, "w") as f:
        f.write("demo\n")
    os.chmod(password, 0o600)
    if not os.path.exists(os.path.join(home, "records.sqlite")):
        print(f"making {args.patients} demo patients in {home} ...", flush=True)
        run([ward, "demo", "--patients", str(args.patients), "--no-shell"], env)
    sign_on, groups, sign_off = templates(ward, work, env)
    mrns = [f"W{i:07d}" for i in range(1, args.mrns + 1)]

    largest = os.path.join(work, f"audit-{sizes[-1]}.jsonl")
    if not (args.reuse and os.path.exists(largest)):
        started = time.perf_counter()
        generate(largest, sizes[-1], sign_on, groups, sign_off, mrns, args.seed)
        print(f"wrote {sizes[-1]:,} records ({os.path.getsize(largest) / 1e6:.0f} MB) "
              f"in {time.perf_counter() - started:.1f} s", flush=True)
    if args.rounds == 0:
        return
    logs = {}
    for size in sizes:
        path = os.path.join(work, f"audit-{size}.jsonl")
        if size != sizes[-1]:
            prefix(largest, path, size)
        verified = subprocess.run([ward, "audit", "verify", path], env=env, capture_output=True)
        if verified.returncode != 0:
            sys.exit(f"ward audit verify {path}: exit {verified.returncode}\n{verified.stdout.decode()}"
                     f"{verified.stderr.decode()}")
        print(f"{size:,}: " + verified.stdout.decode().strip().splitlines()[0], flush=True)
        logs[size] = path
    mrn, counts = busiest_mrn(largest)
    typed = mrn.lower()
    print(f"every log verified intact; asking about {typed} (opened {counts[mrn]:,} times in the largest)")

    commands = {
        "show": lambda path: [ward, "audit", "show", "--mrn", typed, path],
        "report": lambda path: [ward, "audit", "report", "--mrn", typed, path],
    }
    walls = {(c, s): [] for c in commands for s in sizes}
    cpus = {(c, s): [] for c in commands for s in sizes}
    for _ in range(args.rounds):
        for size in sizes:
            for name, argv in commands.items():
                wall, cpu = timed(argv(logs[size]), env)
                walls[(name, size)].append(wall)
                cpus[(name, size)].append(cpu)
    print(f"\nload average {os.getloadavg()[0]:.1f}; medians of {args.rounds} runs by turns")
    print(f"{'command':8} {'records':>10} {'wall s':>8} {'cpu s':>8} {'wall min':>9} {'wall max':>9}  vs smallest")
    for name in commands:
        base = statistics.median(walls[(name, sizes[0])])
        for size in sizes:
            w = walls[(name, size)]
            print(f"{name:8} {size:>10,} {statistics.median(w):8.3f} {statistics.median(cpus[(name, size)]):8.3f} "
                  f"{min(w):9.3f} {max(w):9.3f}  {statistics.median(w) / base:5.2f}x "
                  f"({size / sizes[0]:.0f}x the records)")
    if not args.keep and not args.dir:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
