#!/usr/bin/env bash
# Measures what a learner waits for, on this machine:
#   1. a fresh debug build (own scratch path, so your .build is untouched);
#   2. a full `swift test` (the learner's run) and the workbook's own tests
#      (`WORKBOOK_SELF_TEST=1 swift test`);
#   3. edit one exercise → its verdict (`swift test --filter ExercisesTests.SafeCounter`),
#      median of 5 edits, with the stub, with a complete answer and with an answer that races
#      (the learner's code is compiled with ThreadSanitizer, so every verdict has it on);
#   4. chapters 04–06's explored checks: edit → verdict with the reference answer in place, and
#      the check alone (`exercise-runner <Id> --reference`), median of 5 each.
# Exercise files are backed up first and restored on exit, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-bench
exercise=exercises/Exercises/01-gcd/SafeCounter.swift
backups=$(mktemp -d)
cp -r exercises/Exercises "$backups/"
trap 'cp -r "$backups/Exercises/." exercises/Exercises/; rm -rf "$backups" "$exercise.answer" "$exercise.new"' EXIT
backup="$backups/Exercises/01-gcd/SafeCounter.swift"

seconds() { local start=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) - $start" | awk '{printf "%.1f", $1 - $3}'; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "machine: $(nproc) cores, $(swift --version 2>&1 | head -1)"
rm -rf "$scratch"
echo "fresh build (swift build --build-tests): $(seconds swift build --build-tests --scratch-path "$scratch") s"
echo "full swift test (already built):          $(seconds swift test --scratch-path "$scratch") s"
echo "WORKBOOK_SELF_TEST=1 swift test:          $(WORKBOOK_SELF_TEST=1 seconds swift test --scratch-path "$scratch") s"
# Edit → verdict, twice over: the stub (verdict "not started") and the reference answer put in
# its place (verdict "done": the whole check runs).
measure_edits() {
    local source=$1 file=${2:-$exercise} id=${3:-SafeCounter} times=()
    for i in 1 2 3 4 5; do
        cp "$source" "$file"
        echo "// bench edit $i $(date +%s%N)" >> "$file"
        times+=("$(seconds swift test --scratch-path "$scratch" --filter "ExercisesTests.$id\$")")
    done
    echo "${times[*]} s, median $(printf '%s\n' "${times[@]}" | median) s"
}
echo "edit one exercise → verdict (stub, not started):   $(measure_edits "$backup")"
echo "edit one exercise → verdict (answer, full check):  $(measure_edits exercises/Solutions/01-gcd/SafeCounter.swift)"
# The reference with its read moved off the queue: the verdict is a data race, found by TSan.
racy=$(mktemp --suffix=.swift)
sed -E 's/(func count\(of page: String\) -> Int \{)/\1 return counts[page, default: 0]/' exercises/Solutions/01-gcd/SafeCounter.swift > "$racy"
grep -q "return counts\[page, default: 0\]" "$racy" || echo "(could not make the racy answer; the reference changed shape)"
echo "edit one exercise → verdict (data race):           $(measure_edits "$racy")"
rm -f "$racy"
cp "$backup" "$exercise"
# Chapter 04: checks that run under the explorer.
for path in 04-async-await/CompletionToAsync 04-async-await/OrderedThumbnails 04-async-await/SequentialPresenter \
            05-continuations/WrapCallbackAPI 05-continuations/DelegateBridge 05-continuations/CancellableRequest \
            06-streams/EventStream 06-streams/CombineLatest 06-streams/Debounce; do
    id=${path#*/}
    file=exercises/Exercises/$path.swift
    echo "edit → verdict, $id (reference, explored):  $(measure_edits "exercises/Solutions/$path.swift" "$file" "$id")"
    cp "$backups/Exercises/$path.swift" "$file"
    alone=()
    # With the runner's ThreadSanitizer options (ExerciseChecker.runnerEnvironment): no 1 s exit sleep.
    for i in 1 2 3 4 5; do alone+=("$(TSAN_OPTIONS=atexit_sleep_ms=0 seconds "$scratch/debug/exercise-runner" "$id" --reference)"); done
    echo "  the check alone (exercise-runner $id --reference): ${alone[*]} s, median $(printf '%s\n' "${alone[@]}" | median) s"
done
# `workbook`: edit → verdict on the same edits, the commands taking turns: `swift test --filter`,
# `workbook check` through `swift run` (as the README says) and the built binary. Each edit changes
# code (a statement in the first method), so the runners are relinked as after a learner's edit.
cp exercises/Solutions/01-gcd/SafeCounter.swift "$exercise.answer"
code_edit() { awk -v n="$RANDOM$RANDOM" '!done && /^    }/ { print "        _ = " n; done = 1 } { print }' "$exercise.answer" > "${1:-$exercise}"; }
hundredths() { local start=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) - $start" | awk '{printf "%.2f", $1 - $3}'; }
test_times=() run_times=() binary_times=()
for i in 1 2 3 4 5; do
    code_edit; test_times+=("$(hundredths swift test --scratch-path "$scratch" --filter 'ExercisesTests.SafeCounter$')")
    code_edit; run_times+=("$(hundredths swift run --scratch-path "$scratch" workbook check SafeCounter)")
    code_edit; binary_times+=("$(hundredths "$scratch/debug/workbook" check SafeCounter)")
done
echo "edit → verdict, swift test --filter ExercisesTests.SafeCounter (answer): ${test_times[*]} s, median $(printf '%s\n' "${test_times[@]}" | median) s"
echo "edit → verdict, swift run workbook check SafeCounter (answer):         ${run_times[*]} s, median $(printf '%s\n' "${run_times[@]}" | median) s"
echo "edit → verdict, .build/debug/workbook check SafeCounter (answer):      ${binary_times[*]} s, median $(printf '%s\n' "${binary_times[@]}" | median) s"
watch_log=$(mktemp); keys=$(mktemp -u); mkfifo "$keys"
"$scratch/debug/workbook" watch < "$keys" > "$watch_log" 2>&1 &
watch_pid=$!
exec 3>"$keys"
for _ in $(seq 1 100); do grep -q "Watching" "$watch_log" && break; sleep 0.1; done
watch_times=()
for i in 1 2 3 4 5; do
    before=$(grep -c "^Exercises: " "$watch_log" || true)
    code_edit "$exercise.new"
    start=$(date +%s.%N); mv "$exercise.new" "$exercise"
    while [ "$(grep -c "^Exercises: " "$watch_log" || true)" -eq "$before" ]; do sleep 0.02; done
    watch_times+=("$(echo "$(date +%s.%N) - $start" | awk '{printf "%.2f", $1 - $3}')")
done
echo q >&3; exec 3>&-; wait "$watch_pid"; rm -f "$keys" "$watch_log" "$exercise.answer"
echo "save → verdict in workbook watch (rename-save of the answer): ${watch_times[*]} s, median $(printf '%s\n' "${watch_times[@]}" | median) s"
cp "$backup" "$exercise"
