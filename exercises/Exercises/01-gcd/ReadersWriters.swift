import Dispatch
import ExerciseKit

// Exercise 01-gcd/ReadersWriters — read chapters/en/01-gcd.md (ja: chapters/ja/01-gcd.md) first.
//
// Goal: a key-value store that many threads read at the same time, while each write has the
// store to itself. The data lives in `storage`; call `storage.read(_:)` and
// `storage.write(_:_:)` only from blocks on your queue. Submit each write as
// `queue.async(flags: .barrier) { … }`, not as a `DispatchWorkItem(flags: .barrier)` passed to
// `queue.async(execute:)`: ThreadSanitizer on Apple platforms drops that work item's barrier and
// would report a correct answer as racing.
//
// Properties the check tests:
//   - reads may run at the same time as each other (do not serialize them);
//   - no read runs while a write runs, and no two writes run at once;
//   - a read after a write, on the same thread, returns what was written.
//
// Check your answer:   swift test --filter ExercisesTests.ReadersWriters
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public final class ReadersWriters: ReadersWritersProtocol {
    // TODO: add a queue that lets reads run side by side.
    private let storage: InstrumentedStorage

    public init(storage: InstrumentedStorage) {
        self.storage = storage
    }

    public func value(forKey key: String) -> Int? {
        // TODO: read `storage.read(key)` inside a block on your queue and return the value.
        todo()
    }

    public func setValue(_ value: Int, forKey key: String) {
        // TODO: call `storage.write(key, value)` in a block that runs alone on your queue.
        todo()
    }
}
