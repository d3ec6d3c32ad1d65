#!/usr/bin/env bash
# `workbook` end to end, as a learner uses it, on this checkout (CI runs it on a fresh clone):
# status on untouched stubs, an exercise solved, progress as JSON, reset with a backup that
# diffs equal, watch noticing a rename-save and quitting on q, a file that does not compile,
# bad arguments, --help everywhere, and a chapter's timeline written as an SVG.
# The exercise files and exercises/backups are put back as they were on exit.
set -uo pipefail
cd "$(dirname "$0")/.."
export NO_COLOR=1
work=$(mktemp -d)
cp -r exercises/Exercises "$work/Exercises"
had_backups=$([ -d exercises/backups ] && echo yes || echo no)
[ "$had_backups" = yes ] && cp -r exercises/backups "$work/backups"
cleanup() {
    [ -n "${watch_pid:-}" ] && kill "$watch_pid" 2>/dev/null
    rm -rf exercises/Exercises && cp -r "$work/Exercises" exercises/Exercises
    rm -rf exercises/backups
    [ "$had_backups" = yes ] && cp -r "$work/backups" exercises/backups
    rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "E2E FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
wb() { swift run --skip-build workbook "$@"; }

swift build >/dev/null 2>&1 || { echo "E2E: swift build failed"; exit 1; }
exercises=$(grep -c '"id":' exercises/exercises.json)
stub=exercises/Exercises/01-gcd/SafeCounter.swift
reference=exercises/Solutions/01-gcd/SafeCounter.swift

# 1. Untouched stubs: every exercise not started.
rm -rf .build/workbook
out=$(wb 2>&1); status=$?
[ $status -eq 0 ] && grep -q "0 done, 0 failing, $exercises not started" <<<"$out" \
    && pass "status: $exercises not started" || fail "status on stubs (exit $status): $out"

# 2. Solve one: done in the status and in progress --json.
cp "$reference" "$stub"
out=$(wb 2>&1)
grep -q "1 done, 0 failing" <<<"$out" && pass "status: SafeCounter done" || fail "status after solving: $out"
wb progress --json > "$work/progress.json"
python3 - "$work/progress.json" <<'EOF' && pass "progress --json: SafeCounter done, schema 1" || fail "progress --json"
import json, sys
data = json.load(open(sys.argv[1]))
assert data["schema"] == 1, data.get("schema")
entry = next(e for e in data["exercises"] if e["id"] == "SafeCounter")
assert entry["status"] == "done", entry
assert data["counts"]["done"] == 1, data["counts"]
EOF

# 2b. As on Apple platforms (the Linux-only mechanisms off): the same answer is done, and the
# status and progress --json say which probe could not run. The cached statuses are put back
# afterwards: later steps rely on them.
cp -r .build/workbook "$work/state-before-2b"
rm -rf .build/workbook
out=$(WORKBOOK_LINUX_MECHANISMS=off wb 2>&1)
grep -q "SafeCounter.*done (1 check could not run on this platform)" <<<"$out" \
    && pass "status as on Apple platforms: done, 1 check could not run" || fail "status as on Apple platforms: $out"
WORKBOOK_LINUX_MECHANISMS=off wb progress --json > "$work/progress-apple.json"
python3 - "$work/progress-apple.json" <<'EOF' && pass "progress --json as on Apple platforms: notRun names the probe" || fail "progress --json notRun"
import json, sys
entry = next(e for e in json.load(open(sys.argv[1]))["exercises"] if e["id"] == "SafeCounter")
assert entry["status"] == "done" and entry["notRun"] == ["increment-interrupted"], entry
EOF
rm -rf .build/workbook && cp -r "$work/state-before-2b" .build/workbook

# 3. Reset keeps a backup equal to what the learner had; a second reset leaves the stub alone.
echo "// the learner's own note" >> "$stub"
cp "$stub" "$work/learner.swift"
wb reset SafeCounter >/dev/null 2>&1
backup=$(ls -t exercises/backups/SafeCounter-*.swift 2>/dev/null | head -1)
[ -n "$backup" ] && diff -q "$backup" "$work/learner.swift" >/dev/null \
    && pass "reset: backup $backup equals the learner's file" || fail "reset: no backup equal to the learner's file"
diff -q "$stub" "$work/Exercises/01-gcd/SafeCounter.swift" >/dev/null && pass "reset: the stub is back" || fail "reset: the stub is not back"
count=$(ls exercises/backups | wc -l)
out=$(wb reset SafeCounter 2>&1)
[ "$(ls exercises/backups | wc -l)" -eq "$count" ] && pass "reset of an untouched stub: no new backup ($out)" || fail "reset of the stub made a backup"

# `workbook watch` in the background, its keys written to descriptor 3, its output in LOG; returns
# once it says what it watches.
start_watch() {
    local log=$1 keys="$work/keys-$RANDOM"
    mkfifo "$keys"
    wb watch < "$keys" > "$log" 2>&1 &
    watch_pid=$!
    exec 3>"$keys"
    for _ in $(seq 1 100); do grep -q "Watching" "$log" && break; sleep 0.1; done
}

# 4. Watch: a rename-save is noticed within 2 s; q quits with exit 0.
start_watch "$work/watch.log"
sed 's/counts\[page, default: 0\] += 1/counts[page, default: 0] += 0/' "$reference" > "$work/next.swift"
mv "$work/next.swift" "$stub"
saved=$(date +%s%N)
noticed=""
for _ in $(seq 1 50); do
    if grep -q "── .* SafeCounter" "$work/watch.log"; then noticed=$(( ($(date +%s%N) - saved) / 1000000 )); break; fi
    sleep 0.05
done
[ -n "$noticed" ] && [ "$noticed" -le 2000 ] && pass "watch noticed a rename-save in $noticed ms" || fail "watch did not notice a rename-save within 2 s"
for _ in $(seq 1 300); do grep -qE "Exercises: |does not compile" "$work/watch.log" && break; sleep 0.1; done
echo q >&3
exec 3>&-
wait "$watch_pid"; status=$?; watch_pid=""
[ $status -eq 0 ] && grep -q "Stopped watching" "$work/watch.log" && pass "watch quit on q (exit 0)" || fail "watch on q: exit $status"
grep -q "SafeCounter — failing" "$work/watch.log" && pass "watch: the wrong answer failed" || fail "watch: no failing verdict: $(cat "$work/watch.log")"

# 4b. q while a check waits out a deadlock: the watch ends at once and leaves no runner behind.
start_watch "$work/watch2.log"
awk '/public func increment\(_ page: String\) \{/ { print; print "        DispatchSemaphore(value: 0).wait()"; next } { print }' "$reference" > "$work/next.swift"
mv "$work/next.swift" "$stub"
runner="$PWD/.build/.*exercise-runner(-plain)? SafeCounter"
for _ in $(seq 1 300); do pgrep -f "$runner" >/dev/null && break; sleep 0.05; done  # built; the check waits
asked=$(date +%s%N)
echo q >&3
wait "$watch_pid"; status=$?; watch_pid=""
exec 3>&-
took=$(( ($(date +%s%N) - asked) / 1000000 ))
[ $status -eq 0 ] && [ "$took" -le 1000 ] && grep -q "check in progress was stopped" "$work/watch2.log" \
    && pass "q during a deadlocked check quit in $took ms (exit 0)" || fail "q during a check: exit $status after $took ms: $(cat "$work/watch2.log")"
sleep 1
pgrep -f "$runner" >/dev/null && fail "a runner is still running after q" || pass "no runner left after q"
cp "$work/Exercises/01-gcd/SafeCounter.swift" "$stub"

# 5. A file that does not compile: the compiler's message, exit 1, the others still listed.
printf 'import ExerciseKit\nlet broken: Int = "no"\n' > "$stub"
out=$(wb check SafeCounter 2>&1); status=$?
[ $status -eq 1 ] && grep -q "error: cannot convert" <<<"$out" && pass "check on code that does not compile: message, exit 1" || fail "check on broken code (exit $status)"
out=$(wb 2>&1); status=$?
[ $status -eq 1 ] && grep -q "ReadersWriters" <<<"$out" && pass "status on broken code: others still listed, exit 1" || fail "status on broken code (exit $status)"
cp "$work/Exercises/01-gcd/SafeCounter.swift" "$stub"

# 6. Bad arguments exit 2; --help on every command exits 0.
for args in "chek" "hint" "hint NoSuchExercise" "check --force" "progress --yaml" "--lang fr" "watch SafeCounter" "session"; do
    # shellcheck disable=SC2086
    wb $args >/dev/null 2>&1; status=$?
    [ $status -eq 2 ] && pass "'workbook $args' exits 2" || fail "'workbook $args' exited $status, not 2"
done
for command in "" check watch hint reset solution progress session; do
    # shellcheck disable=SC2086
    wb $command --help >/dev/null 2>&1 && pass "'workbook $command --help'" || fail "'workbook $command --help' failed"
done

# 7. A chapter's timeline as an SVG that parses.
svg="$work/timeline.svg"
if swift run --skip-build ch01-gcd --run 1 --svg "$svg" >/dev/null 2>&1; then
    python3 -c "import sys, xml.etree.ElementTree as ET; root = ET.parse(sys.argv[1]).getroot(); assert root.tag.endswith('svg') and root.get('viewBox')" "$svg" \
        && pass "ch01-gcd --run 1 --svg: parses" || fail "the SVG does not parse"
else
    fail "ch01-gcd --run 1 --svg failed"
fi

echo
[ $failures -eq 0 ] && echo "E2E: all passed" || echo "E2E: $failures failed"
[ $failures -eq 0 ]
