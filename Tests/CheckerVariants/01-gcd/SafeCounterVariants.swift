import Dispatch
import Foundation
import ExerciseKit
import Synchronization
import WorkbookCore

/// Reads on the queue, then writes on the queue: two blocks, so another thread's increment can
/// run in between and one of the two is lost.
final class ReadThenWriteCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.read-then-write")
    private var counts: [String: Int] = [:]

    func increment(_ page: String) {
        let current = queue.sync { counts[page, default: 0] }
        queue.sync { counts[page] = current + 1 }
    }
    func count(of page: String) -> Int { queue.sync { counts[page, default: 0] } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Writes go through the queue asynchronously, but reads look at a copy the queue publishes
/// afterwards: a read right after an increment can miss it.
final class PublishedCopyCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.published-copy")
    private var counts: [String: Int] = [:]
    private let published = Locked<[String: Int]>([:])

    func increment(_ page: String) {
        queue.async {
            self.counts[page, default: 0] += 1
            let copy = self.counts
            self.published.withLock { $0 = copy }
        }
    }
    func count(of page: String) -> Int { published.current[page, default: 0] }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Waits for a signal nobody sends: every increment blocks forever.
final class NeverSignalledCounter: SafeCounterProtocol {
    private let semaphore = DispatchSemaphore(value: 0)
    func increment(_ page: String) { semaphore.wait() }
    func count(of page: String) -> Int { 0 }
    func snapshot() -> [String: Int] { [:] }
}

/// "Reading an Int is atomic enough": count(of:) reads `counts` off the queue, racing with the
/// increments that run on it.
final class CountOffQueueCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.count-off-queue")
    private var counts: [String: Int] = [:]
    func increment(_ page: String) { queue.async { self.counts[page, default: 0] += 1 } }
    func count(of page: String) -> Int { counts[page] ?? 0 }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// snapshot() returns `counts` without going through the queue.
final class SnapshotOffQueueCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.snapshot-off-queue")
    private var counts: [String: Int] = [:]
    func increment(_ page: String) { queue.async { self.counts[page, default: 0] += 1 } }
    func count(of page: String) -> Int { queue.sync { counts[page] ?? 0 } }
    func snapshot() -> [String: Int] { counts }
}

/// `queue` is a computed property: every access makes a new serial queue, so nothing is serial.
final class NewQueueEachTimeCounter: SafeCounterProtocol, @unchecked Sendable {
    private var queue: DispatchQueue { DispatchQueue(label: "variant.new-queue") }
    private var counts: [String: Int] = [:]
    func increment(_ page: String) { queue.sync { counts[page, default: 0] += 1 } }
    func count(of page: String) -> Int { queue.sync { counts[page] ?? 0 } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// A concurrent queue without barriers: increments run side by side.
final class ConcurrentQueueCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.concurrent", attributes: .concurrent)
    private var counts: [String: Int] = [:]
    func increment(_ page: String) { queue.sync { counts[page, default: 0] += 1 } }
    func count(of page: String) -> Int { queue.sync { counts[page] ?? 0 } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Skips the shared counter: each thread counts in its own thread-local dictionary, so a thread
/// sees its own increments and nothing races, but no other thread ever sees them.
final class ThreadLocalCounter: SafeCounterProtocol, @unchecked Sendable {
    private let key = "variant.thread-local.\(UInt64.random(in: 0...UInt64.max))"
    private var mine: [String: Int] {
        get { Thread.current.threadDictionary[key] as? [String: Int] ?? [:] }
        set { Thread.current.threadDictionary[key] = newValue }
    }
    func increment(_ page: String) { mine[page, default: 0] += 1 }
    func count(of page: String) -> Int { mine[page] ?? 0 }
    func snapshot() -> [String: Int] { mine }
}

/// `sync` onto its own serial queue from inside one of its blocks: the block waits for the
/// queue, which waits for the block. libdispatch traps instead of hanging.
final class SyncOntoItselfCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.sync-onto-itself")
    private var counts: [String: Int] = [:]

    func increment(_ page: String) { queue.sync { queue.sync { counts[page, default: 0] += 1 } } }
    func count(of page: String) -> Int { queue.sync { counts[page, default: 0] } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// A correct answer: a concurrent queue whose increments are barrier work items.
final class WorkItemBarrierCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.work-item-barrier", attributes: .concurrent)
    private var counts: [String: Int] = [:]
    func increment(_ page: String) {
        queue.async(execute: DispatchWorkItem(flags: .barrier) { self.counts[page, default: 0] += 1 })
    }
    func count(of page: String) -> Int { queue.sync { counts[page] ?? 0 } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Reads with `sync`, then writes the result back with `async`: another increment between the
/// two blocks is overwritten.
final class ReadSyncWriteAsyncCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.read-sync-write-async")
    private var counts: [String: Int] = [:]
    func increment(_ page: String) {
        let current = queue.sync { counts[page, default: 0] }
        queue.async { self.counts[page] = current + 1 }
    }
    func count(of page: String) -> Int { queue.sync { counts[page, default: 0] } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Adds one only to a page it has counted before, so a page's first increment — and with it
/// every later one — never counts. Every read waits for the queue: nothing is stale, it is lost.
final class ForgetsFirstIncrementCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.forgets-first-increment")
    private var counts: [String: Int] = [:]
    func increment(_ page: String) {
        queue.async { if let current = self.counts[page] { self.counts[page] = current + 1 } }
    }
    func count(of page: String) -> Int { queue.sync { counts[page, default: 0] } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Drops every 100th increment (a "sampling" shortcut): the reads wait for the queue, and still
/// a thread's 100th increment is missing for good.
final class DropsEveryHundredthCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.drops-every-hundredth")
    private var counts: [String: Int] = [:]
    private var calls = 0
    func increment(_ page: String) {
        queue.async {
            self.calls += 1
            if self.calls % 100 != 0 { self.counts[page, default: 0] += 1 }
        }
    }
    func count(of page: String) -> Int { queue.sync { counts[page, default: 0] } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Force-unwraps the count: a page never incremented crashes instead of reading 0.
final class ForceUnwrapCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.force-unwrap")
    private var counts: [String: Int] = [:]
    func increment(_ page: String) { queue.async { self.counts[page, default: 0] += 1 } }
    func count(of page: String) -> Int { queue.sync { counts[page]! } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Sets a new page to 1 and then adds one more: the first increment counts twice.
final class CountsFirstTwiceCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.counts-first-twice")
    private var counts: [String: Int] = [:]
    func increment(_ page: String) {
        queue.async {
            if self.counts[page] == nil { self.counts[page] = 1 }
            self.counts[page, default: 0] += 1
        }
    }
    func count(of page: String) -> Int { queue.sync { counts[page, default: 0] } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// A cheat: one atomic counter for each page name a check might use, and nothing for any other
/// page — every increment of an unknown page is dropped.
final class CountsKnownPagesOnly: SafeCounterProtocol, Sendable {
    final class Views: Sendable { let count = Atomic(0) }
    private static let known = ["home", "about", "page1", "page2", "page3", "page4", "never-counted", "warm"]
    private let views: [String: Views] = Dictionary(uniqueKeysWithValues: known.map { ($0, Views()) })

    init() {}

    func increment(_ page: String) { views[page]?.count.add(1, ordering: .sequentiallyConsistent) }
    func count(of page: String) -> Int { views[page]?.count.load(ordering: .sequentiallyConsistent) ?? 0 }
    func snapshot() -> [String: Int] { views.mapValues { $0.count.load(ordering: .sequentiallyConsistent) }.filter { $0.value > 0 } }
}
