import ExerciseKit

/// Reference answer for exercise 07-actors/MainActorViewModel.
@MainActor
public final class ProfileViewModel: MainActorViewModelProtocol {
    private let client: ProfileClient
    private let screen: ProfileScreen
    /// Counts loads; only the newest one's answer is shown.
    private var newestLoad = 0

    public init(client: ProfileClient, screen: ProfileScreen) {
        self.client = client
        self.screen = screen
    }

    public func load(id: Int) {
        newestLoad += 1
        let load = newestLoad
        client.fetchProfile(id: id) { result in
            // The bridge: whatever thread the client calls back on, the answer continues on
            // the main actor — said once, here, and checked by the compiler from here on.
            Task { @MainActor in self.show(result, of: load) }
        }
    }

    private func show(_ result: Result<Profile, ProfileError>, of load: Int) {
        guard load == newestLoad else { return }  // an older load's answer
        switch result {
        case let .success(profile): screen.show(profile)
        case let .failure(error): screen.showError(error)
        }
    }
}
