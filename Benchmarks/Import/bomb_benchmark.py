#!/usr/bin/env python3
"""Benchmark: `ward import` of hostile inputs, each refused within bounded time and memory.

Three inputs, each written to a temporary directory (removed afterwards, never committed):

- bomb: a Patient.ndjson.gz of a few megabytes whose first line expands to --line-gb GiB
  (default 1.5) of one JSON string; the import must stop at the line limit (16 MiB), exit 65
  naming the file and line 1, without inflating the rest;
- wide: a line just under 16 MiB of `[0,0,0,...]`, eight million values, refused once the
  reader has built the most one resource may hold (1,048,576);
- zero: Patient.ndjson as a symbolic link to /dev/zero, refused with 66 before a byte is read.

For each it prints the exit status, the seconds, and the child's peak RSS (wait4's rusage, as
/usr/bin/time -v reports it); exits 1 when a status is not the expected one or a peak reaches
300 MB. Not run by `swift test`.

Run: swift build -c release --product ward
     python3 Benchmarks/Import/bomb_benchmark.py [--ward .build/release/ward] [--line-gb 1.5]
"""
import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time

LIMIT_MB = 300
LINE_LIMIT = 16 << 20


def write_bomb(path, gigabytes):
    """One line: a Patient whose id is `gigabytes` GiB of 'a', gzip level 9 (about 1:1000)."""
    block = b"a" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b'{"resourceType": "Patient", "id": "')
        for _ in range(int(gigabytes * 1024)):
            out.write(block)
        out.write(b'"}\n')


def write_wide(path):
    """One line of `[0,0,...]` just under the line limit: the most values a line may hold."""
    count = (LINE_LIMIT - 3) // 2
    with open(path, "wb") as out:
        out.write(b"[" + b"0," * (count - 1) + b"0]\n")


def run(ward, home, inputs):
    env = dict(os.environ, WARD_HOME=home, LANG="C.UTF-8")
    env.pop("WARD_SITE", None)
    start = time.monotonic()
    child = subprocess.Popen([ward, "import", *inputs], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - start
    stderr = child.stderr.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    return code, seconds, usage.ru_maxrss / 1024, stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ward", default=".build/release/ward")
    parser.add_argument("--line-gb", type=float, default=1.5)
    args = parser.parse_args()
    ward = os.path.abspath(args.ward)
    work = tempfile.mkdtemp(prefix="ward-bomb-")
    failed = False
    try:
        bomb = os.path.join(work, "bomb", "Patient.ndjson.gz")
        wide = os.path.join(work, "wide", "Patient.ndjson")
        zero = os.path.join(work, "zero", "Patient.ndjson")
        for path in (bomb, wide, zero):
            os.makedirs(os.path.dirname(path))
        write_bomb(bomb, args.line_gb)
        write_wide(wide)
        os.symlink("/dev/zero", zero)
        cases = [
            ("bomb (%.1f GiB line, %.1f MB gzip)" % (args.line_gb, os.path.getsize(bomb) / 1e6), bomb, 65),
            ("wide (16 MiB line of numbers)", wide, 65),
            ("zero (link to /dev/zero)", zero, 66),
        ]
        for name, path, expected in cases:
            home = os.path.join(work, "home-" + name.split()[0])
            code, seconds, peak, stderr = run(ward, home, [path])
            ok = code == expected and peak < LIMIT_MB
            failed |= not ok
            print("%-40s exit %d (want %d)  %6.2f s  peak RSS %6.1f MB  %s"
                  % (name, code, expected, seconds, peak, "ok" if ok else "FAILED"))
            last = [line for line in stderr.splitlines() if line.startswith("ward:")]
            if last:
                print("    " + last[0][:160])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
