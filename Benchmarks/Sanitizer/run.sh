#!/bin/sh
# Builds the sanitizer benchmark from WardCore's own source file (it has no dependencies) and
# runs it. Usage: Benchmarks/Sanitizer/run.sh   (from anywhere)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swiftc -O -module-name SanitizerBenchmark -o "$out/sanitizer-benchmark" \
    "$root/Sources/WardCore/Terminal/Sanitizer.swift" "$root/Sources/WardCore/Terminal/Sanitizer+JSON.swift" \
    "$here/main.swift"
"$out/sanitizer-benchmark"
