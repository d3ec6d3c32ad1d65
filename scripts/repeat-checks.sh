#!/usr/bin/env bash
# Runs the solution and checker tests N times in a row (default 20) and counts failures.
# With --busy, a CPU hog keeps one core busy meanwhile, as the quality bar asks.
#   scripts/repeat-checks.sh [N] [--busy] [--filter REGEX]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=20 busy=0 filter='SolutionsTests|CheckerTests'
while [ $# -gt 0 ]; do
    case "$1" in
        --busy) busy=1 ;;
        --filter) shift; filter="$1" ;;
        ''|*[!0-9]*) echo "usage: $0 [N] [--busy] [--filter REGEX]" >&2; exit 2 ;;
        *) runs="$1" ;;
    esac
    shift
done
swift build --build-tests >/dev/null 2>&1 || { echo "build failed" >&2; exit 1; }
hog=""
if [ "$busy" -eq 1 ]; then
    ( while :; do :; done ) &
    hog=$!
    trap 'kill $hog 2>/dev/null' EXIT
fi
failures=0
for i in $(seq 1 "$runs"); do
    log=$(mktemp)
    if WORKBOOK_SELF_TEST=1 swift test --skip-build --filter "$filter" >"$log" 2>&1; then
        printf '.'
    else
        failures=$((failures + 1))
        printf 'F'
        cp "$log" "/tmp/repeat-checks-failure-$i.log"
    fi
    rm -f "$log"
done
echo
echo "$runs runs of '$filter'$([ "$busy" -eq 1 ] && echo ' with one core busy'): $failures failed"
[ "$failures" -eq 0 ]
