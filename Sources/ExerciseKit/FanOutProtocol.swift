/// Exercise 01-gcd/FanOut: fetch many items with a limit on how many are in flight.
public protocol FanOutProtocol: Sendable {
    init()
    /// Fetches every id with `client`, with at most `maxInFlight` fetches started and not yet
    /// called back at any moment, then calls `completion` exactly once, after every fetch has
    /// called back, with the results in the order of `ids` (failures included, as `.failure`).
    func fetchAll(
        _ ids: [Int],
        maxInFlight: Int,
        using client: FakeClient,
        completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void)
}
