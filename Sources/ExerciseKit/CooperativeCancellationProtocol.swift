import Foundation
import WorkbookCore

/// Where the CooperativeCancellation exercise's operations do their side effects. The check
/// supplies it: it records every call, and can hold `process` on one item while it cancels.
///
/// Its bookkeeping and the hold run `RaceDetector.quietly`: the sink's lock and semaphores are
/// the check's, and must not order the learner's code for ThreadSanitizer (a worker released
/// from the hold has not "seen" the `cancel()` that happened meanwhile — only `isCancelled`,
/// read through Foundation's own lock, tells it).
public final class WorkSink: Sendable {
    public let trace: Trace
    /// The lanes of the trace: the worker's calls and the publisher's.
    static let workerLane = Localized("worker", ja: "ワーカー")
    static let publisherLane = Localized("publisher", ja: "パブリッシャー")
    private let processed = Locked<[Int]>([])
    private let published = Locked(0)
    private let holdItem: Int?
    private let reached = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)

    /// - Parameter holdItem: `process(holdItem)` waits inside until the check releases it.
    public init(trace: Trace = Trace(), holdItem: Int? = nil) {
        self.trace = trace
        self.holdItem = holdItem
    }

    /// The side effect of working on one item.
    public func process(_ item: Int) {
        trace.begin(.verbatim("process(\(item))"), lane: Self.workerLane)
        RaceDetector.quietly {
            processed.withLock { $0.append(item) }
            if item == holdItem {
                reached.signal()
                _ = release.wait(timeout: .now() + 5)
            }
        }
        trace.end(.verbatim("process(\(item))"), lane: Self.workerLane)
    }

    /// The side effect of publishing the results.
    public func publish() {
        trace.record(.verbatim("publish()"), lane: Self.publisherLane)
        RaceDetector.quietly { published.withLock { $0 += 1 } }
    }

    // MARK: For the check

    public var processedItems: [Int] { RaceDetector.quietly { processed.current } }
    public var publishCount: Int { RaceDetector.quietly { published.current } }

    /// Waits until `process(holdItem)` is running; false after `seconds`.
    public func waitUntilHeld(seconds: Double) -> Bool {
        RaceDetector.quietly { reached.wait(timeout: .now() + seconds) == .success }
    }

    /// Lets `process(holdItem)` return.
    public func releaseHeldItem() { RaceDetector.quietly { _ = release.signal() } }
}

/// Exercise 02-operations/CooperativeCancellation: long operations that stop when cancelled.
public protocol CooperativeCancellationProtocol: Sendable {
    init()
    /// An operation that calls `sink.process(item)` for each item, in order, and stops as soon
    /// as it is cancelled: no `process` call starts after `cancel()` has returned.
    func makeWorker(items: [Int], sink: WorkSink) -> Operation
    /// An operation that calls `sink.publish()` once — unless it, or any operation it depends
    /// on, was cancelled.
    func makePublisher(sink: WorkSink) -> Operation
}
