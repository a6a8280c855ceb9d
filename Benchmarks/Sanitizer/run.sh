#!/bin/sh
# Builds the sanitizer benchmark from the Sanitizer's own source files (in WardPluginAPI; they have
# no dependencies) and runs it. Usage: Benchmarks/Sanitizer/run.sh   (from anywhere)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swiftc -O -module-name SanitizerBenchmark -o "$out/sanitizer-benchmark" \
    "$root/Sources/WardPluginAPI/Text/Sanitizer.swift" "$root/Sources/WardPluginAPI/Text/Sanitizer+JSON.swift" \
    "$here/main.swift"
"$out/sanitizer-benchmark"
