#!/usr/bin/env python3
"""Instructions per batch command, counted under valgrind's callgrind tool (Debian `valgrind`).

Usage: instructions.py --ward PATH-TO-ward [--home DIR] [--commands N] [--fsync always|interval]
                       [--keep DIR]

Wall-clock time on a shared machine moves by tens of per cent from run to run; an instruction
count does not. The script runs the same `ward --batch` twice under the counter, with the first
N lines of `compare_sqlite.py`'s script (find and open by turns) and then 2N, and prints

    (instructions(2N) - instructions(N)) / N

the cost of one command with start-up, sign-on (scrypt) and exit taken away. With `--keep DIR`
the two profiles stay in DIR for `callgrind_annotate` (where the instructions go).

The counter cannot read the DWARF 5 debug information Swift writes, so it runs a copy of the
binary without it (`objcopy --strip-debug`); the symbols stay, and with them the functions' names.

The home is the one `compare_sqlite.py` made (a `ward demo` home; made here when missing).
Its audit log grows by two records a command, as in real use.
"""
import argparse, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_sqlite import SITE, sample  # noqa: E402


def without_debug_info(ward, directory):
    """A copy of `ward` the counter can load: symbols kept, DWARF dropped."""
    copy = os.path.join(directory, "ward")
    subprocess.run(["objcopy", "--strip-debug", ward, copy], check=True)
    return copy


def count(ward, site, password, script_path, env, out_file):
    argv = [
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
        ward, "--site", site, "--user", "demo", "--password-file", password, "--batch", "-",
    ]
    with open(script_path, "rb") as stdin:
        done = subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if done.returncode != 0:
        sys.exit(f"ward exited {done.returncode}: {done.stderr.decode()[-800:]}")
    with open(out_file) as f:
        for line in f:
            match = re.match(r"(?:summary|totals): (\d+)", line)
            if match:
                return int(match.group(1))
    sys.exit(f"no totals in {out_file}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ward", required=True)
    parser.add_argument("--home", default="/tmp/ward-batch-bench")
    parser.add_argument("--patients", type=int, default=1_000_000, help="when the home is made here")
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--fsync", default="interval", choices=["always", "interval", "never"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", help="a directory for the two profiles")
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    db_path = os.path.join(args.home, "records.sqlite")
    if not os.path.exists(db_path):
        print(f"making {args.patients} demo patients in {args.home} ...", flush=True)
        subprocess.run([ward, "demo", "--home", args.home, "--patients", str(args.patients), "--no-shell"], check=True)

    _, lines, _ = sample(db_path, 2 * args.commands, args.seed)
    work = tempfile.mkdtemp(prefix="ward-batch-instructions-")
    os.chmod(work, 0o700)
    keep = os.path.abspath(args.keep) if args.keep else work
    os.makedirs(keep, exist_ok=True)
    site = os.path.join(work, "site.toml")
    with open(site, "w") as f:
        f.write(SITE.format(fsync=args.fsync))
    password = os.path.join(work, "password")
    with open(password, "w") as f:
        f.write("demo\n")
    os.chmod(password, 0o600)
    env = dict(os.environ, WARD_HOME=args.home, HOME=work)
    ward = without_debug_info(ward, work)
    totals = {}
    for n in (args.commands, 2 * args.commands):
        script = os.path.join(work, f"script-{n}.ward")
        with open(script, "w") as f:
            f.write("\n".join(lines[:n]) + "\n")
        totals[n] = count(ward, site, password, script, env, os.path.join(keep, f"batch-{n}.out"))
    per_command = (totals[2 * args.commands] - totals[args.commands]) / args.commands
    print(f"fsync {args.fsync}: {args.commands} commands {totals[args.commands]:,} instructions, "
          f"{2 * args.commands} commands {totals[2 * args.commands]:,}")
    print(f"instructions per command (find and open by turns): {per_command:,.0f}")
    if args.keep:
        print(f"profiles: {keep}/batch-{args.commands}.out, {keep}/batch-{2 * args.commands}.out")


if __name__ == "__main__":
    main()
