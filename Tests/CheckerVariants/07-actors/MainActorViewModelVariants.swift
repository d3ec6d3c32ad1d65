import Dispatch
import ExerciseKit

// MainActorViewModel answers with one mistake each, written the way a learner might, plus
// correct answers in other styles.

/// Shows `result` on `screen`: the profile or the failure.
private func present(_ result: Result<Profile, ProfileError>, on screen: ProfileScreen) {
    switch result {
    case let .success(profile): screen.show(profile)
    case let .failure(error): screen.showError(error)
    }
}

/// The story's `Task {}`: made in the client's completion, which is not isolated — so the task
/// is not on the main actor, although the view model is.
@MainActor
final class SlidesTask: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        let screen = self.screen
        client.fetchProfile(id: id) { result in
            Task { present(result, on: screen) }
        }
    }
}

/// Changes the screen straight from the completion: on the main actor when the client answers
/// at once, off it when the answer comes from the client's thread.
@MainActor
final class DirectFromCompletion: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        let screen = self.screen
        client.fetchProfile(id: id) { result in present(result, on: screen) }
    }
}

/// Assumes the completion runs on the main actor: it traps when it does not.
@MainActor
final class AssumesMainActor: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        client.fetchProfile(id: id) { result in
            MainActor.assumeIsolated { present(result, on: self.screen) }
        }
    }
}

/// The hop is right, but every answer is shown, the older one too.
@MainActor
final class ShowsEveryAnswer: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        client.fetchProfile(id: id) { result in
            Task { @MainActor in present(result, on: self.screen) }
        }
    }
}

/// Only the success side is handled: a failure never reaches the screen.
@MainActor
final class IgnoresFailure: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    private var newest = 0
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        newest += 1
        let mine = newest
        client.fetchProfile(id: id) { result in
            Task { @MainActor in
                guard mine == self.newest, case let .success(profile) = result else { return }
                self.screen.show(profile)
            }
        }
    }
}

/// The profile hops to the main actor; the failure is shown straight from the completion.
@MainActor
final class FailureOffMain: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    private var newest = 0
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        newest += 1
        let mine = newest
        let screen = self.screen
        client.fetchProfile(id: id) { result in
            switch result {
            case let .success(profile):
                Task { @MainActor in if mine == self.newest { screen.show(profile) } }
            case let .failure(error):
                screen.showError(error)
            }
        }
    }
}

/// Hops right, and sends the answer to the main queue as well (left from an older version).
@MainActor
final class ShowsTwice: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    private var newest = 0
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        newest += 1
        let mine = newest
        let screen = self.screen
        client.fetchProfile(id: id) { result in
            Task { @MainActor in if mine == self.newest { present(result, on: screen) } }
            DispatchQueue.main.async { MainActor.assumeIsolated { if mine == self.newest { present(result, on: screen) } } }
        }
    }
}

/// Takes its load number before counting it: no answer is ever the newest.
@MainActor
final class NumbersBeforeCounting: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    private var newest = 0
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        let mine = newest
        newest += 1
        client.fetchProfile(id: id) { result in
            Task { @MainActor in if mine == self.newest { present(result, on: self.screen) } }
        }
    }
}

/// A correct answer: the client wrapped once in an `async` function; `load` starts a task that
/// inherits the main actor and awaits it.
@MainActor
final class AsyncWrapper: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    private var newest = 0
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        newest += 1
        let mine = newest
        Task {
            let result = await Self.profile(id, from: client)
            guard mine == newest else { return }
            present(result, on: screen)
        }
    }
    private nonisolated static func profile(_ id: Int, from client: ProfileClient) async -> Result<Profile, ProfileError> {
        await withCheckedContinuation { continuation in
            client.fetchProfile(id: id) { continuation.resume(returning: $0) }
        }
    }
}

/// A correct answer: the completion sends a detached task to the main actor with
/// `MainActor.run`, where "still the newest?" and the change are one stretch.
@MainActor
final class DetachedMainActorRun: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    private var newest = 0
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        newest += 1
        let mine = newest
        client.fetchProfile(id: id) { result in
            Task.detached {
                await MainActor.run {
                    if mine == self.newest { present(result, on: self.screen) }
                }
            }
        }
    }
}

/// A correct answer the GCD way: the completion sends a block to the main queue, which on Apple
/// platforms is the main actor's executor; the compiler takes the block to be `@MainActor`.
@MainActor
final class MainQueueBlock: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    private var newest = 0
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        newest += 1
        let mine = newest
        client.fetchProfile(id: id) { result in
            DispatchQueue.main.async {
                if mine == self.newest { present(result, on: self.screen) }
            }
        }
    }
}

/// The main queue reached, but every answer shown: an older answer that comes last wins.
@MainActor
final class MainQueueEveryAnswer: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    init(client: ProfileClient, screen: ProfileScreen) { (self.client, self.screen) = (client, screen) }
    func load(id: Int) {
        let screen = self.screen
        client.fetchProfile(id: id) { result in
            DispatchQueue.main.async { present(result, on: screen) }
        }
    }
}
