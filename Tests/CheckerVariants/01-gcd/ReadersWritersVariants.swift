import Dispatch
import Foundation
import ExerciseKit

/// Writes are plain `async` blocks on the concurrent queue, without `.barrier`: they run beside
/// reads and beside each other.
final class NoBarrierStore: ReadersWritersProtocol {
    private let queue = DispatchQueue(label: "variant.no-barrier", attributes: .concurrent)
    private let storage: InstrumentedStorage
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { queue.sync { storage.read(key) } }
    func setValue(_ value: Int, forKey key: String) { queue.async { self.storage.write(key, value) } }
}

/// A serial queue: correct and exclusive, but reads never run side by side.
final class SerialQueueStore: ReadersWritersProtocol {
    private let queue = DispatchQueue(label: "variant.serial")
    private let storage: InstrumentedStorage
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { queue.sync { storage.read(key) } }
    func setValue(_ value: Int, forKey key: String) { queue.async { self.storage.write(key, value) } }
}

/// Hops to a global queue before submitting the barrier write: writes still run alone, but a
/// read issued right after `setValue` can reach the queue first.
final class DetouredWriteStore: ReadersWritersProtocol {
    private let queue = DispatchQueue(label: "variant.detoured", attributes: .concurrent)
    private let storage: InstrumentedStorage
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { queue.sync { storage.read(key) } }
    func setValue(_ value: Int, forKey key: String) {
        DispatchQueue.global().async {
            self.queue.async(flags: .barrier) { self.storage.write(key, value) }
        }
    }
}

/// The barrier write is scheduled a moment later with `asyncAfter`: a read issued right after
/// `setValue` runs first and sees the old value. (With a deadline of `.now()`, libdispatch finds
/// the time already passed and submits at once, in order: that form behaves like `async`.)
final class DelayedBarrierStore: ReadersWritersProtocol {
    private let queue = DispatchQueue(label: "variant.delayed", attributes: .concurrent)
    private let storage: InstrumentedStorage
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { queue.sync { storage.read(key) } }
    func setValue(_ value: Int, forKey key: String) {
        queue.asyncAfter(deadline: .now() + .milliseconds(2), flags: .barrier) { self.storage.write(key, value) }
    }
}

/// Reads go straight to the storage, off the queue: "reads are safe on their own".
final class ReadOffQueueStore: ReadersWritersProtocol {
    private let queue = DispatchQueue(label: "variant.read-off-queue", attributes: .concurrent)
    private let storage: InstrumentedStorage
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { storage.read(key) }
    func setValue(_ value: Int, forKey key: String) { queue.async(flags: .barrier) { self.storage.write(key, value) } }
}

/// Keeps a copy of the values, updated inside the barrier, and reads the copy off the queue.
final class CachedCopyStore: ReadersWritersProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.cached-copy", attributes: .concurrent)
    private let storage: InstrumentedStorage
    private var copy: [String: Int] = [:]
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { copy[key] }
    func setValue(_ value: Int, forKey key: String) {
        queue.async(flags: .barrier) {
            self.storage.write(key, value)
            self.copy[key] = value
        }
    }
}

/// `.barrier` on a global queue, where the flag does nothing: writes run beside reads.
final class GlobalQueueBarrierStore: ReadersWritersProtocol {
    private let queue = DispatchQueue.global(qos: .userInitiated)
    private let storage: InstrumentedStorage
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { queue.sync { storage.read(key) } }
    func setValue(_ value: Int, forKey key: String) { queue.async(flags: .barrier) { self.storage.write(key, value) } }
}

/// Reads submitted with `.barrier` too: safe, but every read waits for the one before.
final class BarrierReadsStore: ReadersWritersProtocol {
    private let queue = DispatchQueue(label: "variant.barrier-reads", attributes: .concurrent)
    private let storage: InstrumentedStorage
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { queue.sync(flags: .barrier) { storage.read(key) } }
    func setValue(_ value: Int, forKey key: String) { queue.async(flags: .barrier) { self.storage.write(key, value) } }
}

/// Skips the queue: one NSLock around every access. Exclusive and fresh, but reads never run
/// side by side.
final class OneLockStore: ReadersWritersProtocol {
    private let lock = NSLock()
    private let storage: InstrumentedStorage
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { lock.withLock { storage.read(key) } }
    func setValue(_ value: Int, forKey key: String) { lock.withLock { storage.write(key, value) } }
}

/// Counts reads in a plain read block: reads run side by side, so the count is raced.
final class CountsReadsStore: ReadersWritersProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.counts-reads", attributes: .concurrent)
    private let storage: InstrumentedStorage
    private var reads = 0
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? {
        queue.sync {
            reads += 1
            return storage.read(key)
        }
    }
    func setValue(_ value: Int, forKey key: String) { queue.async(flags: .barrier) { self.storage.write(key, value) } }
}

/// A correct answer whose barriers are work items (`DispatchWorkItem(flags: .barrier)`, or
/// `async`/`sync` given a QoS beside the flag) and which counts its writes on the queue.
/// libdispatch reads such a barrier from inside the block; ThreadSanitizer's interceptors do not,
/// and the runners' interposers send it to TSan's barrier entry point.
final class WorkItemBarrierStore: ReadersWritersProtocol, @unchecked Sendable {
    enum Style { case asyncWorkItem, asyncWithQoS, syncWorkItem }
    private let queue = DispatchQueue(label: "variant.work-item-barrier", attributes: .concurrent)
    private let storage: InstrumentedStorage
    private let style: Style
    private var writes = 0
    init(storage: InstrumentedStorage, style: Style) {
        self.storage = storage
        self.style = style
    }
    convenience init(storage: InstrumentedStorage) { self.init(storage: storage, style: .asyncWorkItem) }
    func value(forKey key: String) -> Int? {
        queue.sync {
            _ = writes
            return storage.read(key)
        }
    }
    func setValue(_ value: Int, forKey key: String) {
        let write = { @Sendable in
            self.writes += 1
            self.storage.write(key, value)
        }
        switch style {
        case .asyncWorkItem: queue.async(execute: DispatchWorkItem(flags: .barrier, block: write))
        case .asyncWithQoS: queue.async(qos: .userInitiated, flags: .barrier, execute: write)
        case .syncWorkItem: queue.sync(execute: DispatchWorkItem(flags: .barrier, block: write))
        }
    }
}

/// Counts writes in a plain block of its own beside the barrier: two writes' counting blocks can
/// run at once.
final class CountsWritesBesideBarrierStore: ReadersWritersProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.counts-writes", attributes: .concurrent)
    private let storage: InstrumentedStorage
    private var writes = 0
    init(storage: InstrumentedStorage) { self.storage = storage }
    func value(forKey key: String) -> Int? { queue.sync { storage.read(key) } }
    func setValue(_ value: Int, forKey key: String) {
        queue.async(flags: .barrier) { self.storage.write(key, value) }
        queue.async { self.writes += 1 }
    }
}
