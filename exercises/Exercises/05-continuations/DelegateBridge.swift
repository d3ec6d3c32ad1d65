import ExerciseKit
import Synchronization

// Exercise 05-continuations/DelegateBridge — read chapters/en/05-continuations.md (ja: chapters/ja/05-continuations.md) first.
//
// Goal: `provider` is a delegate-based API, like `CLLocationManager`: `requestLocation()` asks,
// and the answer comes to its delegate — `didUpdate` or `didFailWith` — later, from the
// provider's own thread, or at once, before `requestLocation()` returns. Bridge it:
//   - `currentLocation()` stores a continuation, requests, and the delegate method resumes it
//     with the first report: the location, or the provider's error as it is;
//   - the provider may report again for the same request (a second fix, a late failure), also
//     after you answered: such reports must never resume anything a second time;
//   - while a request is in flight, another `currentLocation()` throws `LocationError.busy` at
//     once — without touching the first, which goes on; once answered, the next is accepted;
//   - reports carry no request: one that comes while a request is in flight answers it, one
//     that comes while none is, is ignored;
//   - the delegate methods run on the provider's thread while your callers run on theirs:
//     whatever both touch needs a lock (a `Mutex` from Synchronization, or an `NSLock`). Two
//     callers may arrive at once: "is one in flight?" and "store mine" must be one hold of the
//     lock — checked in one hold and stored in another, both can pass the check.
// The provider holds its delegate weakly: keep the delegate alive yourself.
//
// Check your answer:   swift test --filter ExercisesTests.DelegateBridge
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public final class LocationBridge: DelegateBridgeProtocol, LocationProviderDelegate {
    private let provider: LocationProvider
    // TODO: the continuation of the request in flight (nil when none), behind a lock.

    public init(provider: LocationProvider) {
        self.provider = provider
        provider.delegate = self
    }

    public func currentLocation() async throws -> Location {
        // TODO: `try await withCheckedThrowingContinuation { continuation in … }`: in one hold of
        // the lock, if a request is in flight, resume this new continuation throwing
        // `LocationError.busy` (the one in flight goes on); else store it — then request.
        todo()
    }

    public func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        // TODO: take the stored continuation out (leaving nil) and resume it, if there was one.
        todo()
    }

    public func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        // TODO: the same, throwing `error`.
        todo()
    }
}
