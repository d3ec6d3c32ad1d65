/// Exercise 06-streams/Debounce: a search field's view model that searches a query only once
/// the typing pauses.
@MainActor
public protocol DebounceProtocol: AnyObject {
    /// `interval`: how long the field must stay unchanged before its query is searched.
    init(search: SearchService, interval: Duration)
    /// The field's text changed (called on the main actor, as a text field's binding is).
    func queryChanged(_ query: String)
    /// What the screen shows: the latest query searched and its results; nil until one is.
    var shown: (query: String, results: [String])? { get }
}
