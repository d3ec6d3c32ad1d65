import ExerciseKit

// Exercise 07-actors/MainActorViewModel — read chapters/en/07-actors.md (ja: chapters/ja/07-actors.md) first.
//
// Goal: `ProfileClient` comes from a library written before Swift concurrency. It calls its
// completion on a thread of its own — or at once, on the caller's thread, when it has the
// profile cached — and knows nothing of actors. `ProfileScreen` is UI: not annotated, so the
// compiler lets any thread call it, but it must change on the main actor only. Make `load(id:)`
//   - show the profile (`screen.show`) or the failure (`screen.showError`), once per load, and
//     every change on the main actor, however the client calls back;
//   - let a newer load win: when `load` is called again before the older answer came, the older
//     profile is never shown after the newer one.
// The `Task {}` below is the one from the chapter's story: it is made in a closure that is not
// isolated, so it does not run on the main actor, although the view model does. Reach the main
// actor the Swift concurrency way (`Task { @MainActor in … }`, or an `async` wrapper awaited from
// the view model). `DispatchQueue.main.async` works too, but on a Mac this check may call such an
// answer a data race although it is right (docs/platforms.md).
//
// Check your answer:   swift test --filter ExercisesTests.MainActorViewModel
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

@MainActor
public final class ProfileViewModel: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen

    public init(client: ProfileClient, screen: ProfileScreen) {
        self.client = client
        self.screen = screen
    }

    public func load(id: Int) {
        // TODO: bring the answer onto the main actor once, where it crosses from the client,
        // and drop the answer of a load that is no longer the newest. Then delete the next line.
        todo(fix: "show the answer on the main actor, the newest load's only")
        let screen = self.screen
        client.fetchProfile(id: id) { result in
            Task {
                switch result {
                case let .success(profile): screen.show(profile)
                case let .failure(error): screen.showError(error)
                }
            }
        }
    }
}
