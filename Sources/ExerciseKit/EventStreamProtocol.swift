/// Exercise 06-streams/EventStream: a callback source of many events bridged into an
/// `AsyncThrowingStream`, stopped exactly once whenever the stream ends.
public protocol EventStreamProtocol: Sendable {
    init(source: EventSource)
    /// The source's events as a stream. Each value reaches the `for try await` loop once, in the
    /// order the source delivered it; the source's end ends the loop, and its failure is thrown
    /// by the loop as it is. However the stream ends — the source finished or failed, the loop
    /// broke out, the consuming task was cancelled, or the stream was dropped unread — the source
    /// is stopped (`source.stop()`) exactly once, at once. A value already on its way may arrive
    /// after the stream ended; it reaches no one.
    func events() -> AsyncThrowingStream<Int, any Error>
}
