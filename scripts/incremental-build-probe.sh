#!/usr/bin/env bash
# Checks that an incremental build survives a layout change across modules: a clean build, then
# two stored properties added to a public struct in WorkbookExplorer, an incremental build, and a
# variant run through the plain runner. On Swift 6.3.1 this FAILS: the incremental build
# recompiles only the files that name the struct, so files that copy a type holding it
# (WorkbookChecks' `CheckFailure`, CheckerVariants) keep the old layout and the runner crashes
# (exit 139). `-disable-incremental-imports` does not help; `-wmo` clashes with SwiftPM's index
# store in debug builds. The remedy is a clean build (`rm -rf .build`): see docs/platforms.md.
# Uses its own scratch path; leaves the tree as it was.
set -uo pipefail
cd "$(dirname "$0")/.."
scratch=.build-incremental-probe
file=Sources/WorkbookExplorer/Schedule.swift
trap 'git checkout -- "$file"' EXIT
rm -rf "$scratch"
swift build --build-tests --scratch-path "$scratch" >/dev/null 2>&1 || { echo "clean build failed"; exit 2; }
python3 - "$file" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("    public let token: ReplayToken\n", "    public let token: ReplayToken\n    public let probeA = 1\n    public let probeB = \"x\"\n", 1)
open(p, "w").write(s)
PY
swift build --build-tests --scratch-path "$scratch" >/dev/null 2>&1 || { echo "incremental build failed"; exit 2; }
SWIFT_BACKTRACE=enable=no timeout 20 "$scratch/debug/variant-runner-plain" SafeCounter.readThenWrite >/dev/null 2>&1
code=$?
rm -rf "$scratch"
if [ "$code" -eq 1 ]; then echo "ok: the incremental build gives a working runner"; exit 0; fi
echo "FAILED: the runner built incrementally exited $code (expected 1: the variant fails its check)"; exit 1
