/// Exercise 01-gcd/SafeCounter: a page-view counter shared by many threads.
///
/// Any thread may call any method at any time. Every `increment` must count (no lost update),
/// and a thread that incremented a page and then reads it sees its own increment.
public protocol SafeCounterProtocol: Sendable {
    init()
    /// Adds one view of `page`.
    func increment(_ page: String)
    /// The views of `page` so far (0 for a page never seen).
    func count(of page: String) -> Int
    /// Every page with its views.
    func snapshot() -> [String: Int]
}
