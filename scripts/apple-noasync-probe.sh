#!/usr/bin/env bash
# Finds calls that compile on Linux but not on Apple platforms in the Swift 6 mode: Apple's SDK
# marks `DispatchSemaphore.wait`, `DispatchGroup.wait`, `DispatchWorkItem.wait` and
# `Thread.isMainThread` unavailable from asynchronous contexts (`noasync`); swift-corelibs-
# libdispatch and swift-corelibs-foundation do not (see docs/platforms.md, "Blocking calls in
# `async` code"). `OperationQueue.current` is checked as well.
#
# A copy of the tracked files gets, in every Swift target, an internal extension that redeclares
# those members with `@available(*, noasync)` — a declaration in the module itself shadows the
# imported one — and is built with `--build-tests`. Every direct use from an `async` context is
# then a compile error tagged APPLE-NOASYNC. Exit 0 when there is none, 1 when there are (they
# are listed), 2 when the copy did not build for another reason. Leaves the tree as it was.
set -uo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git ls-files -z | xargs -0 tar -cf - | (cd "$scratch" && tar -xf -)
cd "$scratch"

shadow='// Written by scripts/apple-noasync-probe.sh into a scratch copy; never committed.
import Dispatch
import Foundation
extension DispatchSemaphore {
    @available(*, noasync, message: "APPLE-NOASYNC") func wait() { fatalError() }
    @available(*, noasync, message: "APPLE-NOASYNC") func wait(timeout: DispatchTime) -> DispatchTimeoutResult { fatalError() }
    @available(*, noasync, message: "APPLE-NOASYNC") func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult { fatalError() }
}
extension DispatchGroup {
    @available(*, noasync, message: "APPLE-NOASYNC") func wait() { fatalError() }
    @available(*, noasync, message: "APPLE-NOASYNC") func wait(timeout: DispatchTime) -> DispatchTimeoutResult { fatalError() }
    @available(*, noasync, message: "APPLE-NOASYNC") func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult { fatalError() }
}
extension DispatchWorkItem {
    @available(*, noasync, message: "APPLE-NOASYNC") func wait() { fatalError() }
    @available(*, noasync, message: "APPLE-NOASYNC") func wait(timeout: DispatchTime) -> DispatchTimeoutResult { fatalError() }
}
extension Thread {
    @available(*, noasync, message: "APPLE-NOASYNC") class var isMainThread: Bool { false }
}
extension OperationQueue {
    @available(*, noasync, message: "APPLE-NOASYNC") class var current: OperationQueue? { nil }
}'

# One file per Swift target: Sources/<target>, Tests/<target>, exercises/<Exercises|Solutions>.
find Sources Tests exercises -name '*.swift' | cut -d/ -f1-2 | sort -u | while read -r target; do
    printf '%s\n' "$shadow" > "$target/ZZAppleNoasyncProbe.swift"
done

swift build --build-tests > build.log 2>&1
status=$?
if grep -q 'APPLE-NOASYNC' build.log; then
    echo "Calls that Apple's SDK rejects in async code (Swift 6 mode):"
    grep -E 'error: .*APPLE-NOASYNC' build.log | grep -v '^ *|' | sed "s|$scratch/||" | sort -u
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "the copy did not build:"
    grep -E 'error:' build.log | sed "s|$scratch/||" | sort -u | head -20
    exit 2
fi
echo "ok: no direct use of a member that is noasync only on Apple platforms"
