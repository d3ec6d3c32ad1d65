import ExerciseKit
import Foundation
import Synchronization
import WorkbookCore

// DelegateBridge answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

/// No look at the slot: a second request's continuation replaces the first's.
final class OverwritesStored: DelegateBridgeProtocol, LocationProviderDelegate {
    let provider: LocationProvider
    let pending = Mutex<CheckedContinuation<Location, any Error>?>(nil)
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    func currentLocation() async throws -> Location {
        try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = continuation }
            provider.requestLocation()
        }
    }
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        pending.withLock { slot in defer { slot = nil }; return slot }?.resume(returning: location)
    }
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        pending.withLock { slot in defer { slot = nil }; return slot }?.resume(throwing: error)
    }
}

/// Resumes the stored continuation and leaves it there: the next report resumes it again.
final class NeverClears: DelegateBridgeProtocol, LocationProviderDelegate {
    let provider: LocationProvider
    let pending = Mutex<CheckedContinuation<Location, any Error>?>(nil)
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    func currentLocation() async throws -> Location {
        try await withCheckedThrowingContinuation { continuation in
            let free = pending.withLock { slot in
                guard slot == nil else { return false }
                slot = continuation
                return true
            }
            guard free else { return continuation.resume(throwing: LocationError.busy) }
            provider.requestLocation()
        }
    }
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        pending.withLock { $0 }?.resume(returning: location)
    }
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        pending.withLock { $0 }?.resume(throwing: error)
    }
}

/// An "answered" flag stops a second resume, and is never reset: the second request is never answered.
final class AnsweredFlagNeverReset: DelegateBridgeProtocol, LocationProviderDelegate {
    struct State { var continuation: CheckedContinuation<Location, any Error>?; var answered = false }
    let provider: LocationProvider
    let state = Mutex(State())
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    func currentLocation() async throws -> Location {
        try await withCheckedThrowingContinuation { continuation in
            let free = state.withLock { state in
                guard state.continuation == nil else { return false }
                state.continuation = continuation
                return true
            }
            guard free else { return continuation.resume(throwing: LocationError.busy) }
            provider.requestLocation()
        }
    }
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        answer()?.resume(returning: location)
    }
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        answer()?.resume(throwing: error)
    }
    private func answer() -> CheckedContinuation<Location, any Error>? {
        state.withLock { state in
            guard !state.answered, let continuation = state.continuation else { return nil }
            state.answered = true
            state.continuation = nil
            return continuation
        }
    }
}

/// Requests first, stores after: a report made inside `requestLocation()` finds nothing.
final class StoresAfterRequest: DelegateBridgeProtocol, LocationProviderDelegate {
    let provider: LocationProvider
    let pending = Mutex<CheckedContinuation<Location, any Error>?>(nil)
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    func currentLocation() async throws -> Location {
        try await withCheckedThrowingContinuation { continuation in
            if pending.withLock({ $0 != nil }) { return continuation.resume(throwing: LocationError.busy) }
            provider.requestLocation()
            pending.withLock { $0 = continuation }
        }
    }
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        pending.withLock { slot in defer { slot = nil }; return slot }?.resume(returning: location)
    }
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        pending.withLock { slot in defer { slot = nil }; return slot }?.resume(throwing: error)
    }
}

/// The stored continuation in a plain `var` of an `@unchecked Sendable` class: the callers' and
/// the provider's threads touch it with nothing ordering them.
final class UnlockedSlot: DelegateBridgeProtocol, LocationProviderDelegate, @unchecked Sendable {
    let provider: LocationProvider
    var continuation: CheckedContinuation<Location, any Error>?
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    func currentLocation() async throws -> Location {
        try await withCheckedThrowingContinuation { continuation in
            if self.continuation != nil { return continuation.resume(throwing: LocationError.busy) }
            self.continuation = continuation
            provider.requestLocation()
        }
    }
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        let stored = continuation
        continuation = nil
        stored?.resume(returning: location)
    }
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        let stored = continuation
        continuation = nil
        stored?.resume(throwing: error)
    }
}

/// A delegate object made per request and handed only to the provider, which holds it weakly:
/// it is gone before the provider reports.
struct UnretainedDelegate: DelegateBridgeProtocol {
    final class OneShot: LocationProviderDelegate {
        let continuation: Mutex<CheckedContinuation<Location, any Error>?>
        init(_ continuation: CheckedContinuation<Location, any Error>) { self.continuation = Mutex(continuation) }
        func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
            continuation.withLock { slot in defer { slot = nil }; return slot }?.resume(returning: location)
        }
        func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
            continuation.withLock { slot in defer { slot = nil }; return slot }?.resume(throwing: error)
        }
    }
    let provider: LocationProvider
    let inFlight = Locked(false)
    init(provider: LocationProvider) { self.provider = provider }
    func currentLocation() async throws -> Location {
        if inFlight.withLock({ busy in defer { busy = true }; return busy }) { throw LocationError.busy }
        defer { inFlight.withLock { $0 = false } }
        return try await withCheckedThrowingContinuation { continuation in
            let delegate = OneShot(continuation)
            provider.delegate = delegate
            provider.requestLocation()
        }
    }
}

/// An actor whose delegate methods hop in with a `Task` each: the tasks may run in either order,
/// so a later report can answer first.
actor TaskHopsIntoActor: DelegateBridgeProtocol, LocationProviderDelegate {
    let provider: LocationProvider
    var continuation: CheckedContinuation<Location, any Error>?
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    func currentLocation() async throws -> Location {
        if continuation != nil { throw LocationError.busy }
        return try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            provider.requestLocation()
        }
    }
    private func finish(_ result: Result<Location, any Error>) {
        let stored = continuation
        continuation = nil
        stored?.resume(with: result)
    }
    nonisolated func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        Task { await self.finish(.success(location)) }
    }
    nonisolated func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        Task { await self.finish(.failure(error)) }
    }
}

/// A newcomer while busy: the stored request is told `busy` and the newcomer takes its place.
final class NewestWins: DelegateBridgeProtocol, LocationProviderDelegate {
    let provider: LocationProvider
    let pending = Mutex<CheckedContinuation<Location, any Error>?>(nil)
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    func currentLocation() async throws -> Location {
        try await withCheckedThrowingContinuation { continuation in
            let replaced = pending.withLock { slot in defer { slot = continuation }; return slot }
            if let replaced { replaced.resume(throwing: LocationError.busy) } else { provider.requestLocation() }
        }
    }
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        pending.withLock { slot in defer { slot = nil }; return slot }?.resume(returning: location)
    }
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        pending.withLock { slot in defer { slot = nil }; return slot }?.resume(throwing: error)
    }
}

/// Correct: an `NSLock` and a `var` in an `@unchecked Sendable` class, every access locked.
final class NSLockBridge: DelegateBridgeProtocol, LocationProviderDelegate, @unchecked Sendable {
    let provider: LocationProvider
    let lock = NSLock()
    var continuation: CheckedContinuation<Location, any Error>?
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    func currentLocation() async throws -> Location {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if self.continuation != nil {
                lock.unlock()
                continuation.resume(throwing: LocationError.busy)
                return
            }
            self.continuation = continuation
            lock.unlock()
            provider.requestLocation()
        }
    }
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location) { take()?.resume(returning: location) }
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) { take()?.resume(throwing: error) }
    private func take() -> CheckedContinuation<Location, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        let stored = continuation
        continuation = nil
        return stored
    }
}

/// Correct: a struct that keeps one delegate object alive in a `let`, the delegate keeping a
/// `Result` handler rather than the continuation.
struct HandlerDelegate: DelegateBridgeProtocol {
    final class Relay: LocationProviderDelegate {
        let handler = Locked<(@Sendable (Result<Location, any Error>) -> Void)?>(nil)
        func locationProvider(_ provider: LocationProvider, didUpdate location: Location) { fire(.success(location)) }
        func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) { fire(.failure(error)) }
        private func fire(_ result: Result<Location, any Error>) {
            handler.withLock { handler in defer { handler = nil }; return handler }?(result)
        }
    }
    let provider: LocationProvider
    let relay = Relay()
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = relay }
    func currentLocation() async throws -> Location {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = relay.handler.withLock { handler in
                guard handler == nil else { return false }
                handler = { continuation.resume(with: $0) }
                return true
            }
            if accepted { provider.requestLocation() } else { continuation.resume(throwing: LocationError.busy) }
        }
    }
}

/// The chapter's §4 guard copied to a lock-based bridge: the look in one hold of the lock, before
/// the continuation, the store in another — a second caller between them stores first, and is
/// overwritten.
final class LooksBeforeTheContinuation: DelegateBridgeProtocol, LocationProviderDelegate {
    let provider: LocationProvider
    let pending = Mutex<CheckedContinuation<Location, any Error>?>(nil)
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    func currentLocation() async throws -> Location {
        guard pending.withLock({ $0 == nil }) else { throw LocationError.busy }
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = continuation }
            provider.requestLocation()
        }
    }
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location) {
        pending.withLock { slot in defer { slot = nil }; return slot }?.resume(returning: location)
    }
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) {
        pending.withLock { slot in defer { slot = nil }; return slot }?.resume(throwing: error)
    }
}

/// The same split with an NSLock and an `isBusy` property: true or false as the caller looked,
/// not as it stores.
final class BusyPropertyThenStore: DelegateBridgeProtocol, LocationProviderDelegate, @unchecked Sendable {  // `pending` is guarded by `lock`
    let provider: LocationProvider
    let lock = NSLock()
    var pending: CheckedContinuation<Location, any Error>?
    init(provider: LocationProvider) { self.provider = provider; provider.delegate = self }
    var isBusy: Bool { lock.withLock { pending != nil } }
    func currentLocation() async throws -> Location {
        if isBusy { throw LocationError.busy }
        return try await withCheckedThrowingContinuation { continuation in
            lock.withLock { pending = continuation }
            provider.requestLocation()
        }
    }
    func take() -> CheckedContinuation<Location, any Error>? {
        lock.withLock { defer { pending = nil }; return pending }
    }
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location) { take()?.resume(returning: location) }
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error) { take()?.resume(throwing: error) }
}
