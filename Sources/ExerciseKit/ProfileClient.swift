import Foundation
import WorkbookCore
import WorkbookExplorer

/// A user's profile, as exercise 07-actors/MainActorViewModel shows it.
public struct Profile: Sendable, Equatable, CustomStringConvertible {
    public let id: Int
    public let name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    public var description: String { "\(name) (#\(id))" }
}

/// Why the client could not load a profile.
public enum ProfileError: Error, Sendable, Equatable {
    case offline
}

/// The fake client of exercise 07-actors/MainActorViewModel, shaped like a networking library
/// written before Swift concurrency: `fetchProfile(id:completion:)` calls `completion` once, on
/// a thread of its own — or at once, inside the call, on the caller's thread, when it has the
/// profile already (a cache). It knows nothing of actors; its completion is a plain `@Sendable`
/// closure. How and when each request is answered is set by the check (`Reply`), in virtual time
/// under the explorer.
public final class ProfileClient: Sendable {
    /// How the client answers one request.
    public enum Reply: Sendable {
        /// From the client's own task, after `delay`.
        case later(Result<Profile, ProfileError>, after: Duration)
        /// At once, inside `fetchProfile`, on the caller's thread.
        case atOnce(Result<Profile, ProfileError>)
        /// At once if the client's own loader has finished by the time of the call (it starts
        /// when the client is made), else from the loader's task when it does: the explorer
        /// tries both.
        case whenLoaded(Result<Profile, ProfileError>)
    }

    private struct State {
        var replies: [Int: [Reply]]
        var requests: [Int] = []
    }

    /// The loader's progress and the answers waiting for it. A lock ThreadSanitizer sees, as a
    /// real client's: a completion handed to another thread is ordered after the call that
    /// handed it over.
    private struct Loader {
        var loaded = false
        var waiting: [@Sendable () -> Void] = []
    }

    private let state: QuietLocked<State>
    private let loader = Locked(Loader())

    /// A client that answers the requests for each id with that id's replies, in order.
    public init(replies: [Int: [Reply]]) {
        state = QuietLocked(State(replies: replies))
        if replies.values.contains(where: { $0.contains { if case .whenLoaded = $0 { true } else { false } } }) {
            Task.detached { [loader] in
                nameTask(Localized("client's loader", ja: "クライアントの読み込み"))
                checkpoint(Localized("loader done", ja: "読み込み完了"))
                let waiting = loader.withLock { loader in
                    loader.loaded = true
                    defer { loader.waiting = [] }
                    return loader.waiting
                }
                for answer in waiting { answer() }
            }
        }
    }

    /// Loads profile `id` and calls `completion` once with it or with the failure (see the type).
    public func fetchProfile(id: Int, completion: @escaping @Sendable (Result<Profile, ProfileError>) -> Void) {
        checkpoint("fetchProfile(id: \(id))")
        let reply: Reply? = state.withLock { state in
            state.requests.append(id)
            return state.replies[id]?.isEmpty == false ? state.replies[id]!.removeFirst() : nil
        }
        guard let reply else { return }  // not scripted: never answered
        let named = Localized("client (#\(id))", ja: "クライアント（#\(id)）")
        switch reply {
        case let .atOnce(result):
            checkpoint(Localized("client answers #\(id) at once", ja: "クライアントが #\(id) にすぐ答える"))
            completion(result)
        case let .later(result, delay):
            Task.detached {
                nameTask(named)
                try? await ExplorerClock().sleep(for: delay)
                checkpoint(Localized("client answers #\(id)", ja: "クライアントが #\(id) に答える"))
                completion(result)
            }
        case let .whenLoaded(result):
            let answer: @Sendable () -> Void = {
                checkpoint(Localized("client answers #\(id)", ja: "クライアントが #\(id) に答える"))
                completion(result)
            }
            let now = loader.withLock { loader in
                if loader.loaded { return true }
                loader.waiting.append(answer)
                return false
            }
            if now { answer() }
        }
    }

    /// The ids asked for, in order.
    public var requests: [Int] { state.current.requests }
}

/// The fake screen of exercise 07-actors/MainActorViewModel. Like a view of a library compiled
/// without concurrency annotations it is not `@MainActor` — the compiler lets any thread call it
/// — but UI must change on the main actor only: each change is recorded with whether the code
/// that made it ran isolated to the main actor (as the explorer ran it; outside the explorer,
/// the main thread).
public final class ProfileScreen: Sendable {
    public enum Change: Sendable, Equatable, CustomStringConvertible {
        case profile(Profile)
        case error(ProfileError)

        public var description: String {
            switch self {
            case let .profile(profile): "show(\(profile))"
            case let .error(error): "showError(.\(error))"
            }
        }
    }

    public struct Entry: Sendable {
        public let change: Change
        public let onMainActor: Bool
    }

    private struct State {
        var entries: [Entry] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = QuietLocked(State())

    public init() {}

    /// Shows `profile`.
    public func show(_ profile: Profile) { record(.profile(profile)) }

    /// Shows that the profile could not be loaded.
    public func showError(_ error: ProfileError) { record(.error(error)) }

    private func record(_ change: Change) {
        let onMainActor = isRunningOnMainActor ?? Thread.isMainThread
        checkpoint(Localized("screen: \(change)\(onMainActor ? "" : " (off the main actor)")",
                             ja: "画面: \(change)\(onMainActor ? "" : "（メインアクターの外）")"))
        let ready = state.withLock { state in
            state.entries.append(Entry(change: change, onMainActor: onMainActor))
            let count = state.entries.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once the screen has changed `count` times in all.
    public func changed(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.entries.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Every change so far, in order.
    public var entries: [Entry] { state.current.entries }
}
