#!/usr/bin/env python3
"""Every figure of "lean and quick" beside its peer, in one run.

Usage: side_by_side.py --ward INSTALLED-ward [--baseline OLD-ward] [--home DIR] [--patients N]
                       [--sign-on-home DIR] [--postgres-url URL] [--chain] [--quick]

Run it on the installed binary (`scripts/build-release`, then `strip`): the figures are about
what a site runs. Each part runs the programs it compares by turns (A B A B) in one process,
since this shared machine's load moves every wall-clock figure by tens of per cent; the ratios
are what to read.

  start to the first prompt   Ward beside the sqlite3 shell and bash    goal <= 1.5x sqlite3
  the installed binary        its size beside the sqlite3 shell's       goal < 40 MB
  batch, fsync interval       per command beside the sqlite3 shell      goal <= 1.0x
                              (and find alone, open alone: the mix's parts)
  batch, fsync always         per command beside the sqlite3 shell      goal <= 2.5x
  sign-on at 1,000,000        the password's Return to `ward>`          goal < 50 ms of records
  key echo                    beside bash --norc and the sqlite3 shell  no worse than before
  memory, 1,000 charts        peak RSS of one batch                     no worse than before
  idle wake-ups               a signed-on session left at its prompt    0, as bash
  the chain's cost per event  (--chain: builds Benchmarks/Engine)       no worse than before

The batch home (`--home`, a `ward demo` home of `--patients`, made when missing) is shared with
`Batch/compare_sqlite.py`. Sign-on at a million patients needs such a home (`--sign-on-home`;
`SignOn/sign_on.py` says how it is made) and, for PostgreSQL, a server loaded from it
(`--postgres-url`, `Records/postgres_server.py`); without them the part says it did not run.
With `--baseline`, an older build takes every turn Ward takes, for a before and after.
"""
import argparse, os, select, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHMARKS = os.path.dirname(HERE)


def heading(text):
    print(f"\n== {text}", flush=True)


def run_script(relative, *arguments):
    """Runs one of the other benchmarks and shows what it printed."""
    argv = [sys.executable, os.path.join(BENCHMARKS, relative), *map(str, arguments)]
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(done.stdout.rstrip())
    if done.returncode != 0:
        print(f"({relative} exited {done.returncode})")


def binary_sizes(ward, baseline):
    """The installed binary's size, stripped as a package strips it, beside the sqlite3 shell."""
    work = tempfile.mkdtemp(prefix="ward-size-")
    rows = []
    for name, path in [("ward", ward), ("baseline", baseline)]:
        if not path:
            continue
        stripped = os.path.join(work, name)
        subprocess.run(["strip", "-o", stripped, path], check=True)
        rows.append((name, os.path.getsize(stripped)))
    sqlite3 = shutil.which("sqlite3")
    library = "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0"
    peer = os.path.getsize(sqlite3) + (os.path.getsize(os.path.realpath(library)) if os.path.exists(library) else 0)
    for name, size in rows:
        print(f"  {name:9} {size / 1e6:7.1f} MB stripped (goal < 40 MB)")
    print(f"  sqlite3   {peer / 1e6:7.1f} MB (the shell and libsqlite3, which Ward links too)")
    shutil.rmtree(work, ignore_errors=True)


def wake_ups(ward, seconds):
    """Context switches of every thread of a session left signed on at its prompt, beside bash's."""
    sys.path.insert(0, os.path.join(BENCHMARKS, "KeyEcho"))
    from key_echo import prepare_ward, read_until, start  # noqa: E402

    def switches(pid):
        total = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/status") as status:
                for line in status:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        return total

    directory = tempfile.mkdtemp(prefix="ward-idle-")
    ward_env = prepare_ward(ward, directory)
    programs = [
        ("ward", [ward, "--user", "bench"], ward_env),
        ("bash", ["/bin/bash", "--norc", "--noprofile", "-i"], {"PS1": "$ ", "TERM": "xterm"}),
    ]
    for name, argv, env in programs:
        pid, master = start(name, argv, env)
        # The count starts once sign-on has settled: the audit log syncs its head file within
        # its interval (1 s) after the sign-on's records, once, then sleeps.
        time.sleep(2.5)
        before = switches(pid)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:  # drains the pty without writing to it
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                os.read(master, 4096)
        woke = switches(pid) - before
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(master)
        print(f"  {name:9} {woke} wake-ups in {seconds} s at the prompt (goal 0)")
    shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ward", required=True, help="the installed ward binary")
    parser.add_argument("--baseline", help="an older ward binary, taking the same turns")
    parser.add_argument("--home", default="/tmp/ward-batch-bench-200k", help="the batch home")
    parser.add_argument("--patients", type=int, default=200_000)
    parser.add_argument("--sign-on-home", help="a ward demo home of 1,000,000 patients")
    parser.add_argument("--postgres-url", help="that home's records on PostgreSQL")
    parser.add_argument("--chain", action="store_true", help="also build and run Benchmarks/Engine")
    parser.add_argument("--quick", action="store_true", help="fewer runs: a look, not a figure")
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    baseline = args.baseline and os.path.abspath(args.baseline)
    with_baseline = ["--baseline", baseline] if baseline else []
    runs = 10 if args.quick else 30
    print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; ward {ward}")

    heading("start to the first prompt")
    run_script("Engine/startup.py", "--ward", ward, *with_baseline, "--runs", runs)

    heading("the installed binary")
    binary_sizes(ward, baseline)

    heading("batch, per command, beside the sqlite3 shell (fsync always and interval)")
    run_script(
        "Batch/compare_sqlite.py", "--ward", ward, *with_baseline, "--home", args.home,
        "--patients", args.patients, "--commands", 1000 if args.quick else 2000, "--rounds", 3 if args.quick else 5,
        *([] if args.quick else ["--by-command"]),
    )

    heading("sign-on to the prompt at 1,000,000 patients, beside an empty home")
    if args.sign_on_home:
        postgres = ["--postgres-url", args.postgres_url] if args.postgres_url else []
        run_script(
            "SignOn/sign_on.py", "--ward", ward, *with_baseline, "--home", args.sign_on_home,
            *postgres, "--rounds", 5 if args.quick else 15,
        )
    else:
        print("  not run: give --sign-on-home (and --postgres-url) for this part")

    heading("key echo beside bash --norc and the sqlite3 shell")
    run_script("KeyEcho/key_echo.py", ward, *with_baseline, "--samples", 1000 if args.quick else 4000)

    heading("peak memory, 1,000 charts opened in one batch")
    for label, binary in [("ward", ward), ("baseline", baseline)]:
        if binary:
            print(f"  {label}:")
            run_script("Batch/peak_memory.py", "--ward", binary, "--home", args.home, "--charts", 1000)

    heading("idle wake-ups at the prompt")
    wake_ups(ward, 5 if args.quick else 20)

    heading("the chain's cost per event")
    if args.chain:
        engine = os.path.join(BENCHMARKS, "Engine")
        subprocess.run(["swift", "run", "-c", "release", "--package-path", engine], check=False)
    else:
        print("  not run: give --chain (builds Benchmarks/Engine in release, several minutes)")


if __name__ == "__main__":
    main()
