/// Exercise 07-actors/MainActorViewModel: a view model on the main actor, fed by a callback
/// client that calls back on its own threads.
@MainActor
public protocol MainActorViewModelProtocol: AnyObject {
    init(client: ProfileClient, screen: ProfileScreen)
    /// Loads profile `id` and shows it (`screen.show`) or the failure (`screen.showError`) —
    /// once, on the main actor. A newer `load` wins: the older one's result is never shown
    /// after it.
    func load(id: Int)
}
