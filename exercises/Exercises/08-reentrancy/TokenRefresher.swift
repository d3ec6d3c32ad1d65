import ExerciseKit

// Exercise 08-reentrancy/TokenRefresher — read chapters/en/08-reentrancy.md (ja: chapters/ja/08-reentrancy.md) first.
//
// Goal: every request of the app takes its token from this actor: `token()` before sending, and
// `refreshToken()` when the server rejected the token (a 401). The code below is safe from data
// races — it is an actor — but it suspends at `await server.refresh()`, and while it waits other
// calls run on the actor: a reader gets the old token, and a second caller starts a second
// refresh (the story's bug). Make it so that, in every schedule:
//   - a caller that asks while a refresh is in flight joins it: the server never sees two
//     refreshes at once, and `token()` refreshes only a token that has expired;
//   - no caller gets a token older than a refresh that was in flight (or done) when it asked;
//   - a failed refresh reaches every caller waiting on it, as its error, and the next
//     `refreshToken()` tries again;
//   - one caller's cancellation never cancels the shared refresh, nor leaves the others
//     waiting: they get its token (the cancelled caller may get it too, or stop with
//     `CancellationError`).
//
// Check your answer:   swift test --filter ExercisesTests.TokenRefresher
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public actor TokenRefresher: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken

    public init(server: TokenServer) {
        self.server = server
        current = server.firstToken
    }

    public func token() async throws -> AuthToken {
        if current.isExpired { return try await refreshToken() }
        return current
    }

    public func refreshToken() async throws -> AuthToken {
        // TODO: keep the refresh in flight where every caller can join it — stored before the
        // first `await`, cleared when it ends — and make `token()` join it too. Then delete the
        // next line.
        todo(fix: "one refresh that every caller joins")
        current = try await server.refresh()
        return current
    }
}
