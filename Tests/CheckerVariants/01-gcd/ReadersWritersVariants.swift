import Dispatch
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
