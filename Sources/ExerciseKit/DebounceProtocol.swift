/// Exercise 06-streams/Debounce: a search field's view model that searches a query only once
/// the typing pauses, and never shows the results of a query the user has typed past.
@MainActor
public protocol DebounceProtocol: AnyObject {
    /// `interval`: how long the field must stay unchanged before its query is searched.
    init(search: SearchService, screen: SearchScreen, interval: Duration)
    /// The field's text changed (called on the main actor, as a text field's binding is).
    func queryChanged(_ query: String)
}
