/// Exercise 03-threads/BoundedBuffer: a blocking first-in-first-out queue of fixed capacity,
/// shared by producer and consumer threads.
public protocol BoundedBufferProtocol: Sendable {
    init(capacity: Int)
    /// Appends `item`; while the buffer is full, waits until a consumer makes room.
    func put(_ item: Int)
    /// Removes and returns the oldest item; while the buffer is empty, waits until a producer
    /// puts one.
    func take() -> Int
}
