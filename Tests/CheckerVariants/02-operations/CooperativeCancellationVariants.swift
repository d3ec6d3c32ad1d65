import Foundation
import ExerciseKit

/// Workers and publishers with one mistake at a time.
struct CancellationVariant: CooperativeCancellationProtocol {
    enum Mistake {
        /// The worker never looks at isCancelled.
        case neverChecks
        /// The worker looks at isCancelled once, before the first item.
        case checksOnceAtStart
        /// The worker looks at isCancelled only every tenth item.
        case checksEveryTenth
        /// The publisher checks only its own isCancelled.
        case publisherIgnoresDependencies
        /// The publisher checks only its first dependency.
        case publisherChecksFirstDependency
        /// The worker overrides cancel() with its own (locked) flag and never calls super:
        /// it stops, but isCancelled stays false, so its dependants go on.
        case cancelWithoutSuper
        /// The worker returns at once: nothing processed.
        case skipsWork
        /// The worker looks at isCancelled after each item, not before: a cancel that lands as
        /// main() begins still lets the first item through.
        case checksAfterEachItem
        /// The publisher looks only at its dependencies, not at itself.
        case publisherIgnoresItself
    }

    let mistake: Mistake
    init() { mistake = .neverChecks }
    init(_ mistake: Mistake) { self.mistake = mistake }

    func makeWorker(items: [Int], sink: WorkSink) -> Operation {
        VariantWorker(items: items, sink: sink, mistake: mistake)
    }

    func makePublisher(sink: WorkSink) -> Operation {
        VariantPublisher(sink: sink, mistake: mistake)
    }
}

private final class VariantWorker: Operation, @unchecked Sendable {  // `stopped` behind `lock`
    let items: [Int], sink: WorkSink, mistake: CancellationVariant.Mistake
    private let lock = NSLock()
    private var stopped = false

    init(items: [Int], sink: WorkSink, mistake: CancellationVariant.Mistake) {
        self.items = items
        self.sink = sink
        self.mistake = mistake
    }

    override func cancel() {
        if mistake == .cancelWithoutSuper {
            lock.withLock { stopped = true }
        } else {
            super.cancel()
        }
    }

    override func main() {
        switch mistake {
        case .skipsWork:
            return
        case .neverChecks:
            for item in items { sink.process(item) }
        case .checksOnceAtStart:
            if isCancelled { return }
            for item in items { sink.process(item) }
        case .checksEveryTenth:
            for item in items {
                if item % 10 == 0 && isCancelled { return }
                sink.process(item)
            }
        case .cancelWithoutSuper:
            for item in items {
                if lock.withLock({ stopped }) { return }
                sink.process(item)
            }
        case .checksAfterEachItem:
            for item in items {
                sink.process(item)
                if isCancelled { return }
            }
        case .publisherIgnoresDependencies, .publisherChecksFirstDependency, .publisherIgnoresItself:
            for item in items {
                if isCancelled { return }
                sink.process(item)
            }
        }
    }
}

private final class VariantPublisher: Operation, @unchecked Sendable {  // immutable after init
    let sink: WorkSink, mistake: CancellationVariant.Mistake

    init(sink: WorkSink, mistake: CancellationVariant.Mistake) {
        self.sink = sink
        self.mistake = mistake
    }

    override func main() {
        guard mistake == .publisherIgnoresItself || !isCancelled else { return }
        switch mistake {
        case .publisherIgnoresDependencies:
            break
        case .publisherChecksFirstDependency:
            if dependencies.first?.isCancelled == true { return }
        default:
            if dependencies.contains(where: \.isCancelled) { return }
        }
        sink.publish()
    }
}

/// A worker with a home-made stop flag in a plain `var`: cancel() writes it on the caller's
/// thread, main() reads it on the queue's, and nothing orders the two (a race that does not crash).
struct OwnFlagCancellation: CooperativeCancellationProtocol {
    init() {}
    func makeWorker(items: [Int], sink: WorkSink) -> Operation { OwnFlagWorker(items: items, sink: sink) }
    func makePublisher(sink: WorkSink) -> Operation { CheckingPublisher(sink: sink) }
}

private final class OwnFlagWorker: Operation, @unchecked Sendable {  // deliberately racy `stopped`
    let items: [Int], sink: WorkSink
    private var stopped = false

    init(items: [Int], sink: WorkSink) {
        self.items = items
        self.sink = sink
    }

    override func cancel() {
        stopped = true
        super.cancel()
    }

    override func main() {
        for item in items {
            if stopped { return }
            sink.process(item)
        }
    }
}

private final class CheckingPublisher: Operation, @unchecked Sendable {  // immutable after init
    let sink: WorkSink
    init(sink: WorkSink) { self.sink = sink }
    override func main() {
        guard !isCancelled, !dependencies.contains(where: \.isCancelled) else { return }
        sink.publish()
    }
}

/// Counts the items processed by all its workers in a plain `var` (a progress store that two
/// workers on two threads update without ordering).
final class SharedProgressCancellation: CooperativeCancellationProtocol, @unchecked Sendable {  // deliberately racy
    fileprivate var processed = 0

    init() {}
    func makeWorker(items: [Int], sink: WorkSink) -> Operation { ProgressWorker(items: items, sink: sink, owner: self) }
    func makePublisher(sink: WorkSink) -> Operation { CheckingPublisher(sink: sink) }
}

private final class ProgressWorker: Operation, @unchecked Sendable {  // immutable after init
    let items: [Int], sink: WorkSink, owner: SharedProgressCancellation

    init(items: [Int], sink: WorkSink, owner: SharedProgressCancellation) {
        self.items = items
        self.sink = sink
        self.owner = owner
    }

    override func main() {
        for item in items {
            if isCancelled { return }
            sink.process(item)
            owner.processed += 1
        }
    }
}
