import ExerciseKit
import Synchronization

// Reference solution of exercise 05-continuations/DelegateBridge.

public final class LocationBridge: DelegateBridgeProtocol, LocationProviderDelegate {
    private let provider: LocationProvider
    /// The continuation of the request in flight, nil when none. The callers' threads and the
    /// provider's touch it, so only under the mutex.
    private let pending = Mutex<CheckedContinuation<Location, any Error>?>(nil)

    public init(provider: LocationProvider) {
        self.provider = provider
        provider.delegate = self
    }

    /// Stored before requesting: the provider may answer before `requestLocation()` returns.
    /// A second caller finds the slot taken and is turned away — the first is not overwritten.
    public func currentLocation() async throws -> Location {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = pending.withLock { slot in
                guard slot == nil else { return false }
                slot = continuation
                return true
            }
            guard accepted else { return continuation.resume(throwing: LocationError.busy) }
            provider.requestLocation()
        }
    }

    public func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        take()?.resume(returning: location)
    }

    public func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        take()?.resume(throwing: error)
    }

    /// The stored continuation, taken out under the lock so that only the first report finds
    /// it — and resumed outside the lock. Later reports find nil and do nothing.
    private func take() -> CheckedContinuation<Location, any Error>? {
        pending.withLock { slot in
            defer { slot = nil }
            return slot
        }
    }
}
