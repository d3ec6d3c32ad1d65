import Foundation
import WorkbookCore

/// The backing store of the ReadersWriters exercise: it does the real reading and writing, and
/// records every access on a trace so the check can see which ones overlapped.
///
/// It is thread-safe on the inside (a lock guards its own bookkeeping), so a wrong answer is
/// reported as an overlap rather than crashing; the lesson is the queue around it. That
/// bookkeeping runs `RaceDetector.quietly`: its lock is the check's, not the answer's, and
/// ThreadSanitizer would otherwise take it as ordering between the answer's writer and its
/// readers and hide a race on the answer's own state.
public final class InstrumentedStorage: Sendable {
    /// A read overlapped a write, or two writes overlapped.
    public struct Overlap: Sendable, Equatable {
        /// The access that began: `read k`, `write k=1` (読み取り k, 書き込み k=1).
        public let label: Localized
        public let runningReads: Int
        public let runningWrites: Int
        /// The trace event at which it was seen.
        public let sequence: Int

        /// The access that began, in English: what the check matches on.
        public var entering: String { label.en }
    }

    public struct Statistics: Sendable, Equatable {
        public var reads = 0
        public var writes = 0
        public var runningReads = 0
        public var runningWrites = 0
        public var mostReadsAtOnce = 0
        public var overlaps: [Overlap] = []
    }

    public let trace: Trace
    private let workNanoseconds: UInt64
    private let values = Locked<[String: Int]>([:])
    private let statistics = Locked(Statistics())
    private let insideRead = Locked<(@Sendable () -> Void)?>(nil)
    private let insideWrite = Locked<(@Sendable () -> Void)?>(nil)
    private let firstOverlap = DispatchSemaphore(value: 0)

    /// - Parameter workNanoseconds: busy work inside every access, so overlaps have room to show.
    public init(trace: Trace = Trace(), workNanoseconds: UInt64 = 0) {
        self.trace = trace
        self.workNanoseconds = workNanoseconds
    }

    public func read(_ key: String) -> Int? {
        access(Localized("read \(key)", ja: "読み取り \(key)"), isWrite: false, hook: insideRead) { values.withLock { $0[key] } }
    }

    public func write(_ key: String, _ value: Int) {
        access(Localized("write \(key)=\(value)", ja: "書き込み \(key)=\(value)"), isWrite: true, hook: insideWrite) { values.withLock { $0[key] = value } }
    }

    /// One access, recorded from entry to exit, with the check's hook and the busy work inside.
    private func access<Result>(_ label: Localized, isWrite: Bool, hook: Locked<(@Sendable () -> Void)?>, _ body: () -> Result) -> Result {
        RaceDetector.quietly {
            enter(label, isWrite: isWrite)
            defer { leave(label, isWrite: isWrite) }
            hook.current?()
            busyWork()
            return body()
        }
    }

    // MARK: For the check

    public var currentStatistics: Statistics { RaceDetector.quietly { statistics.current } }

    /// Waits up to `seconds` until `count` writes have begun; true if they have.
    public func waitForWritesToBegin(_ count: Int, seconds: Double) -> Bool {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while RaceDetector.quietly({ statistics.current.writes }) < count {
            guard MonotonicClock.now() < deadline else { return false }
            usleep(100)
        }
        return true
    }

    /// Runs `hook` inside every read from now on (the check uses it to hold a reader inside).
    public func whileInsideRead(_ hook: (@Sendable () -> Void)?) { RaceDetector.quietly { insideRead.withLock { $0 = hook } } }

    /// Runs `hook` inside every write from now on (the check uses it to hold a writer inside).
    public func whileInsideWrite(_ hook: (@Sendable () -> Void)?) { RaceDetector.quietly { insideWrite.withLock { $0 = hook } } }

    /// Waits up to `seconds` for the first overlap; true if there was one.
    public func waitForOverlap(seconds: Double) -> Bool {
        RaceDetector.quietly {
            guard firstOverlap.wait(timeout: .now() + seconds) == .success else { return false }
            firstOverlap.signal()
            return true
        }
    }

    private func enter(_ label: Localized, isWrite: Bool) {
        let lane = trace.currentThreadLane()
        // Record and update under one lock so the order on the trace is the order of entry.
        statistics.withLock { stats in
            trace.begin(label, lane: lane)
            if (isWrite && (stats.runningReads > 0 || stats.runningWrites > 0)) || (!isWrite && stats.runningWrites > 0) {
                stats.overlaps.append(Overlap(label: label, runningReads: stats.runningReads, runningWrites: stats.runningWrites, sequence: trace.events.count - 1))
                if stats.overlaps.count == 1 { firstOverlap.signal() }
            }
            if isWrite {
                stats.runningWrites += 1
                stats.writes += 1
            } else {
                stats.runningReads += 1
                stats.reads += 1
                stats.mostReadsAtOnce = max(stats.mostReadsAtOnce, stats.runningReads)
            }
        }
    }

    private func leave(_ label: Localized, isWrite: Bool) {
        let lane = trace.currentThreadLane()
        statistics.withLock { stats in
            if isWrite { stats.runningWrites -= 1 } else { stats.runningReads -= 1 }
            trace.end(label, lane: lane)
        }
    }

    private func busyWork() {
        guard workNanoseconds > 0 else { return }
        let end = MonotonicClock.now() + workNanoseconds
        while MonotonicClock.now() < end {}
    }
}
