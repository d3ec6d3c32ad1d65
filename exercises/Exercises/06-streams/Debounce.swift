import ExerciseKit

// Exercise 06-streams/Debounce — read chapters/en/06-streams.md (ja: chapters/ja/06-streams.md) first.
//
// Goal: a search field calls `queryChanged(_:)` on the main actor at every keystroke. Search a
// query with `search.search(query)` (async, throws `CancellationError` when its task is
// cancelled) and show the results with `screen.show(results, for: query)` — but
//   - only once the field has stayed unchanged for `interval` since that query was typed, and
//     once per pause;
//   - a newer query cancels the older one: a pending search never runs, a running one is
//     cancelled, and the older query's results are never shown — not even results that
//     arrive at the very moment the newer query is typed;
//   - the last query typed is always searched and shown.
// A plain `Task.sleep(for:)` is fine: the check runs it in virtual time.
//
// Check your answer:   swift test --filter ExercisesTests.Debounce
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

@MainActor
public final class SearchViewModel: DebounceProtocol {
    private let search: SearchService
    private let screen: SearchScreen
    private let interval: Duration

    public init(search: SearchService, screen: SearchScreen, interval: Duration) {
        self.search = search
        self.screen = screen
        self.interval = interval
    }

    public func queryChanged(_ query: String) {
        // TODO: keep the pending work in a `Task` you can cancel; on each change cancel it and
        // start a new one that sleeps for `interval`, searches, and shows the results.
        todo()
    }
}
