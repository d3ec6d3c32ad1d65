import Foundation
import ExerciseKit

// Exercise 02-operations/CooperativeCancellation — read chapters/en/02-operations.md (ja: chapters/ja/02-operations.md) first.
//
// Goal: cancelling an operation only sets its `isCancelled`; the work has to notice. Write
//   - a worker that calls `sink.process(item)` for each item, in order, and stops as soon as it
//     is cancelled: no `process` call may start after `cancel()` (or the queue's
//     `cancelAllOperations()`) has returned;
//   - a publisher that calls `sink.publish()` once — unless it was cancelled, or any operation
//     it depends on was cancelled (a cancelled dependency still counts as finished).
//
// Check your answer:   swift test --filter ExercisesTests.CooperativeCancellation
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public final class CooperativeCancellation: CooperativeCancellationProtocol {
    public init() {}

    public func makeWorker(items: [Int], sink: WorkSink) -> Operation {
        ItemWorker(items: items, sink: sink)
    }

    public func makePublisher(sink: WorkSink) -> Operation {
        Publisher(sink: sink)
    }
}

/// `@unchecked Sendable`: its properties never change after `init`.
private final class ItemWorker: Operation, @unchecked Sendable {
    private let items: [Int]
    private let sink: WorkSink

    init(items: [Int], sink: WorkSink) {
        self.items = items
        self.sink = sink
    }

    override func main() {
        // TODO: process the items in order, checking isCancelled before each one.
        todo()
    }
}

/// `@unchecked Sendable`: its properties never change after `init`.
private final class Publisher: Operation, @unchecked Sendable {
    private let sink: WorkSink

    init(sink: WorkSink) { self.sink = sink }

    override func main() {
        // TODO: publish once, unless this operation or one of its dependencies was cancelled.
        todo()
    }
}
