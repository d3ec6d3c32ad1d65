import WorkbookExplorer

let asyncLetCorpus: [CorpusCase] = [
    CorpusCase(name: "asyncLet.hiddenOrder", shape: "async let with a hidden ordering", items: [],
               expectation: .fails("posts load before sign-in has stored the user id"), traps: false, body: hiddenOrder),
    CorpusCase(name: "asyncLet.signInFirst", shape: "async let with a hidden ordering", items: [],
               expectation: .passes, traps: false, body: signInFirst),
]

private actor UserSession {
    private(set) var userID: Int?
    func signIn() async {
        await Task.yield()  // the auth server
        userID = 42
    }
}

private struct NotSignedIn: Error, CustomStringConvertible {
    let what: String
    var description: String { "\(what) loaded before sign-in finished" }
}

private func load(_ what: String, session: UserSession) async throws -> String {
    nameTask(what)
    guard let id = await session.userID else { throw NotSignedIn(what: what) }
    return "\(what) of user \(id)"
}

/// The posts child reads the user id before the signIn child has stored it.
@Sendable private func hiddenOrder() async throws -> String {
    let session = UserSession()
    async let signedIn: Void = session.signIn()
    async let posts = load("posts", session: session)
    async let friends = load("friends", session: session)
    do {
        let (_, loadedPosts, loadedFriends) = try await (signedIn, posts, friends)
        return "\(loadedPosts); \(loadedFriends)"
    } catch let error as NotSignedIn {
        throw InvariantViolation(error.description)
    }
}

/// Correct: sign in first, then load posts and friends side by side.
@Sendable private func signInFirst() async throws -> String {
    let session = UserSession()
    await session.signIn()
    async let posts = load("posts", session: session)
    async let friends = load("friends", session: session)
    let (loadedPosts, loadedFriends) = try await (posts, friends)
    return "\(loadedPosts); \(loadedFriends)"
}
