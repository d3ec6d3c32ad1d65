/// Exercise 05-continuations/DelegateBridge: a delegate-based location provider bridged to
/// `async throws` with a stored continuation.
public protocol DelegateBridgeProtocol: Sendable {
    init(provider: LocationProvider)
    /// Requests one location and returns the first thing the provider reports for it: its
    /// location, or its error (thrown as it is) if the error came first. Reports after that —
    /// a second fix, a late failure — are ignored. While a request is in flight, another call
    /// throws `LocationError.busy` at once and the first goes on; once it is answered, the next
    /// request is accepted.
    func currentLocation() async throws -> Location
}
