#!/usr/bin/env bash
# Runs checks through the learner's path, straight from the built runners, and prints one verdict
# per run: the reference solutions, the buggy variants, or the learner's files as they are (copy an
# answer over a stub and `swift build` first).
#   scripts/verdicts.sh reference [NAME-REGEX] [--runs N] [--busy]
#   scripts/verdicts.sh variants  [NAME-REGEX] [--runs N] [--busy]
#   scripts/verdicts.sh learner   [NAME-REGEX] [--runs N] [--busy]
#   BUILD_DIR=.build-nospi/debug scripts/verdicts.sh …: runners from another build (default .build/debug).
#   … --plain: the runners without ThreadSanitizer's runtime only (exercise-runner-plain, variant-runner-plain).
#   … --as-on-apple: with the Linux-only mechanisms switched off (WORKBOOK_LINUX_MECHANISMS=off),
#     as on a Mac; a done verdict then lists the probes that could not run (done[not-run:a,b]).
# Each line: name, then the verdicts of its runs (done / failing:<property> / not-started / exit:<code>).
# Uses the same ThreadSanitizer options as ExerciseChecker (Sources/WorkbookChecks/Verdicts).
set -uo pipefail
cd "$(dirname "$0")/.."
mode="${1:-}"; shift || true
pattern="." runs=1 busy=0 as_on_apple=0 plain_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) shift; runs="$1" ;;
        --busy) busy=1 ;;
        --as-on-apple) as_on_apple=1 ;;
        --plain) plain_only=1 ;;
        *) pattern="$1" ;;
    esac
    shift
done
build_dir=${BUILD_DIR:-.build/debug}
case "$mode" in
    reference) runner=$build_dir/exercise-runner; names=$($runner --list); extra=--reference ;;
    learner) runner=$build_dir/exercise-runner; names=$($runner --list); extra= ;;
    variants) runner=$build_dir/variant-runner; names=$($runner --list | cut -f1); extra= ;;
    *) echo "usage: $0 reference|variants|learner [NAME-REGEX] [--runs N] [--busy]" >&2; exit 2 ;;
esac
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:detect_deadlocks=0:report_thread_leaks=0:report_signal_unsafe=0:history_size=7:handle_sigill=1:handle_sigtrap=1:handle_abort=1:atexit_sleep_ms=0"
export SWIFT_BACKTRACE="enable=no"
export SWIFT_DETERMINISTIC_HASHING=1  # as ExerciseChecker.runnerEnvironment gives the runners
[ "$as_on_apple" -eq 1 ] && export WORKBOOK_LINUX_MECHANISMS=off
if [ "$busy" -eq 1 ]; then ( while :; do :; done ) & hog=$!; trap 'kill $hog 2>/dev/null' EXIT; fi
stderr_file=$(mktemp)  # one per invocation: several loops may run at once
trap 'rm -f "$stderr_file"; [ -n "${hog:-}" ] && kill $hog 2>/dev/null' EXIT
verdict_of() {
    local out code
    out=$(timeout 20 "$1" "$name" $extra 2>"$stderr_file"); code=$?
    if grep -q "WARNING: ThreadSanitizer" "$stderr_file"; then echo "failing:data-race"
    elif [ $code -eq 0 ]; then
        not_run=$(echo "$out" | awk '$1 == "WORKBOOK-NOT-RUN" {print $2}' | paste -sd, -)
        if [ -n "$not_run" ]; then echo "done[not-run:$not_run]"; else echo done; fi
    elif [ $code -eq 3 ]; then echo not-started
    elif [ $code -eq 1 ]; then echo "failing:$(echo "$out" | grep WORKBOOK-VERDICT | awk '{print $3}')"
    elif [ $code -gt 128 ] || grep -q "ERROR: ThreadSanitizer: [A-Z]" "$stderr_file"; then echo "failing:crash"  # a signal, as ExerciseChecker reads it
    else echo "exit:$code"; fi
}
plain_done=0
# The property a variant was registered to break (`none`: a correct answer in another style).
listing=$([ "$mode" = variants ] && $runner --list)
registered_breaks() { awk -F'\t' -v n="$1" '$1 == n { print $3 }' <<<"$listing"; }
for name in $(echo "$names" | grep -E "$pattern"); do
    line="$name:"
    for _ in $(seq 1 "$runs"); do
        if [ "$plain_only" -eq 1 ]; then v=$(verdict_of "$runner-plain"); line="$line $v"; continue; fi
        v=$(verdict_of "$runner")
        # As ExerciseChecker does: a failure under TSan that is not a race is confirmed by the
        # same code without TSan's runtime, and that verdict counts.
        case "$v" in failing:data-race|done|done\[*|not-started) ;; *) v=$(verdict_of "$runner-plain") ;; esac
        line="$line $v"
        [ "$v" = done ] && [ "$(registered_breaks "$name")" != none ] && plain_done=$((plain_done + 1))
    done
    echo "$line"
done
# A buggy variant must never pass without a word (with --as-on-apple: without naming the probes
# that could not run). Correct answers registered as variants (`none`) are not counted.
if [ "$mode" = variants ]; then echo "plain done verdicts of buggy variants: $plain_done"; fi
