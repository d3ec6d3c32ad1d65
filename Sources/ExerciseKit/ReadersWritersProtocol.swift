/// Exercise 01-gcd/ReadersWriters: a key-value store that many threads read at once and that
/// a write has to itself.
///
/// The store keeps its data in `storage` and must call it only from blocks on its own queue:
/// reads may run at the same time as each other; a write runs alone; a read after a write
/// (from the same thread) returns what was written.
public protocol ReadersWritersProtocol: Sendable {
    init(storage: InstrumentedStorage)
    /// Reads through `storage.read(_:)`.
    func value(forKey key: String) -> Int?
    /// Writes through `storage.write(_:_:)`; may return before the write has happened.
    func setValue(_ value: Int, forKey key: String)
}
