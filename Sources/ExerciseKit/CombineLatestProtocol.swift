/// Exercise 06-streams/CombineLatest: two streams of a form's fields into one stream of pairs of
/// their latest values, as swift-async-algorithms' `combineLatest` and `removeDuplicates` do.
public protocol CombineLatestProtocol: Sendable {
    init()
    /// Pairs of the latest value of `first` and of `second`. Nothing until both have produced a
    /// value; then one pair each time either produces one, with the other's latest — except that
    /// a pair equal to the one before it is not emitted again. The stream finishes when both
    /// inputs have finished, throws the first error either input throws, and when the consumer
    /// stops (breaks out, is cancelled, drops the stream) the iteration of both inputs is
    /// cancelled.
    func combineLatest(_ first: AsyncThrowingStream<String, any Error>,
                       _ second: AsyncThrowingStream<String, any Error>) -> AsyncThrowingStream<(String, String), any Error>
}
