import Dispatch
import ExerciseKit

/// Reference: reads are plain `sync` blocks on a concurrent queue, so they run side by side;
/// writes are `.barrier` blocks, which wait for running reads to finish and keep later blocks
/// waiting until they are done.
public final class ReadersWriters: ReadersWritersProtocol {
    private let queue = DispatchQueue(label: "workbook.readers-writers", attributes: .concurrent)
    private let storage: InstrumentedStorage

    public init(storage: InstrumentedStorage) {
        self.storage = storage
    }

    public func value(forKey key: String) -> Int? {
        queue.sync { storage.read(key) }
    }

    public func setValue(_ value: Int, forKey key: String) {
        queue.async(flags: .barrier) { self.storage.write(key, value) }
    }
}
