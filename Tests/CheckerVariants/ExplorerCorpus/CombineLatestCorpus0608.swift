import WorkbookExplorer

// Chapter 06: a hand-written `combineLatest` of two text fields (e-mail, password). One producer
// `Task {}` per input normalises each value on a validator actor and forwards pairs into an
// AsyncStream; the "latest" values live on an actor.

let combineLatestCorpus0608: [CorpusBody] = [
    CorpusBody("combineLatest0608.staleOtherValue", shape: "hand-written combineLatest with producer tasks",
               .fails("the last pair carries an old password: the e-mail producer read the password before its own update"),
               body: staleOtherValue),
    CorpusBody("combineLatest0608.updateAndEmitInOneTurn", shape: "hand-written combineLatest with producer tasks",
               .passes, body: updateAndEmitInOneTurn),
    CorpusBody("combineLatest0608.yieldAfterActorReturns", shape: "hand-written combineLatest with producer tasks",
               .fails("pairs come out of order: a producer yields its pair after the actor call returns, after a newer pair"),
               body: yieldAfterActorReturns),
    CorpusBody("combineLatest0608.emitsInsideActor", shape: "hand-written combineLatest with producer tasks",
               .passes, body: emitsInsideActor),
    CorpusBody("combineLatest0608.seenBeforeValue", shape: "hand-written combineLatest with producer tasks",
               .fails("a pair with an empty e-mail: the e-mail is marked as seen before its value is stored"),
               body: seenBeforeValue),
    CorpusBody("combineLatest0608.valueAndGateTogether", shape: "hand-written combineLatest with producer tasks",
               .passes, body: valueAndGateTogether),
]

private struct Pair: Sendable, Equatable, CustomStringConvertible {
    let email: String
    let password: String
    var description: String { "(\(email), \(password))" }
}

private enum Field: Sendable {
    case email, password
    var other: Field { self == .email ? .password : .email }
}

/// A text field: yields each edit at its moment (ms from the start), then finishes.
private func typed(_ name: String, _ edits: [(at: Int, text: String)]) -> AsyncStream<String> {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    Task {
        nameTask(name)
        var now = 0
        for edit in edits {
            if edit.at > now {
                do { try await Task.sleep(for: .milliseconds(edit.at - now)) } catch { break }
                now = edit.at
            }
            continuation.yield(edit.text)
        }
        continuation.finish()
    }
    return stream
}

/// Normalises a value (trims, lower-cases e-mails); takes the given time.
private actor Validator {
    func normalize(_ text: String, as field: Field, takes milliseconds: Int) async -> String {
        if milliseconds > 0 {
            do { try await Task.sleep(for: .milliseconds(milliseconds)) } catch { return text }
        }
        return field == .email ? text.lowercased() : text
    }
}

private actor LatestValues {
    private var email: String?
    private var password: String?
    private var seen: Set<Field> = []
    private let output: AsyncStream<Pair>.Continuation
    init(output: AsyncStream<Pair>.Continuation) { self.output = output }

    func value(of field: Field) -> String? { field == .email ? email : password }

    func set(_ field: Field, to value: String) {
        if field == .email { email = value } else { password = value }
    }

    /// Stores and emits in one turn: the order of pairs is the order of updates.
    func update(_ field: Field, to value: String) {
        set(field, to: value)
        if let email, let password { output.yield(Pair(email: email, password: password)) }
    }

    /// Stores and hands the pair back; the caller yields it.
    func updateReturningPair(_ field: Field, to value: String) -> Pair? {
        set(field, to: value)
        guard let email, let password else { return nil }
        return Pair(email: email, password: password)
    }

    func markSeen(_ field: Field) { seen.insert(field) }

    /// Emits once both fields have been seen, filling a missing value with the field's empty text.
    func updateIfBothSeen(_ field: Field, to value: String) {
        set(field, to: value)
        if seen.count == 2 { output.yield(Pair(email: email ?? "", password: password ?? "")) }
    }
}

private enum Forwarding: Sendable {
    /// Reads the other field, awaits the validator, stores its own value, yields with the value it read.
    case readsOtherFirst
    /// Stores and gets the pair in one call, then yields it after the call returns.
    case yieldsAfterReturn
    /// Marks the field as seen, awaits the validator, then stores the value.
    case marksSeenFirst
    /// Awaits the validator, then one actor call stores and emits.
    case inOneTurn
}

private func forward(_ input: AsyncStream<String>, as field: Field, takes milliseconds: Int, _ forwarding: Forwarding,
                     latest: LatestValues, validator: Validator, output: AsyncStream<Pair>.Continuation) async {
    for await text in input {
        switch forwarding {
        case .readsOtherFirst:
            let other = await latest.value(of: field.other)
            let value = await validator.normalize(text, as: field, takes: milliseconds)
            await latest.set(field, to: value)
            if let other {
                output.yield(field == .email ? Pair(email: value, password: other) : Pair(email: other, password: value))
            }
        case .yieldsAfterReturn:
            let value = await validator.normalize(text, as: field, takes: milliseconds)
            if let pair = await latest.updateReturningPair(field, to: value) { output.yield(pair) }
        case .marksSeenFirst:
            await latest.markSeen(field)
            let value = await validator.normalize(text, as: field, takes: milliseconds)
            await latest.updateIfBothSeen(field, to: value)
        case .inOneTurn:
            let value = await validator.normalize(text, as: field, takes: milliseconds)
            await latest.update(field, to: value)
        }
    }
}

/// combineLatest(email, password): a producer task per input, a third task finishes the output.
private func combineLatest(email: AsyncStream<String>, emailTakes: Int, password: AsyncStream<String>, passwordTakes: Int,
                           _ forwarding: Forwarding) -> AsyncStream<Pair> {
    let (pairs, output) = AsyncStream.makeStream(of: Pair.self)
    let latest = LatestValues(output: output)
    let validator = Validator()
    let emailProducer = Task {
        nameTask("email producer")
        await forward(email, as: .email, takes: emailTakes, forwarding, latest: latest, validator: validator, output: output)
    }
    let passwordProducer = Task {
        nameTask("password producer")
        await forward(password, as: .password, takes: passwordTakes, forwarding, latest: latest, validator: validator, output: output)
    }
    Task {
        await emailProducer.value
        await passwordProducer.value
        output.finish()
    }
    return pairs
}

private struct Scenario: Sendable {
    let email: [(at: Int, text: String)]
    let emailTakes: Int
    let password: [(at: Int, text: String)]
    let passwordTakes: Int
    let last: Pair
}

/// E-mail typed at 0 ms and validated for 5 ms; passwords at 0 ms and 2 ms.
private let slowEmail = Scenario(email: [(0, "Ann@Example.com")], emailTakes: 5,
                                 password: [(0, "p1"), (2, "p2")], passwordTakes: 0,
                                 last: Pair(email: "ann@example.com", password: "p2"))
/// Everything at 0 ms, nothing slow (a paste into both fields).
private let allAtOnce = Scenario(email: [(0, "Ann@Example.com")], emailTakes: 0,
                                 password: [(0, "p1"), (0, "p2")], passwordTakes: 0,
                                 last: Pair(email: "ann@example.com", password: "p2"))
/// E-mail typed at 0 ms and validated for 5 ms; the password at 2 ms.
private let passwordWhileEmailValidates = Scenario(email: [(0, "Ann@Example.com")], emailTakes: 5,
                                                   password: [(2, "p1")], passwordTakes: 0,
                                                   last: Pair(email: "ann@example.com", password: "p1"))

private func signInButton(_ scenario: Scenario, _ forwarding: Forwarding) async throws -> String {
    let combined = combineLatest(email: typed("email field", scenario.email), emailTakes: scenario.emailTakes,
                                 password: typed("password field", scenario.password), passwordTakes: scenario.passwordTakes,
                                 forwarding)
    var pairs: [Pair] = []
    for await pair in combined { pairs.append(pair) }
    let shown = pairs.isEmpty ? "none" : pairs.map(\.description).joined(separator: ", ")
    guard pairs.allSatisfy({ !$0.email.isEmpty && !$0.password.isEmpty }) else {
        throw InvariantViolation("a pair before both fields had a value: \(shown)")
    }
    guard pairs.last == scenario.last else {
        throw InvariantViolation("pairs \(shown); the last should be \(scenario.last)")
    }
    return "pairs: \(shown)"
}

/// The e-mail producer reads p1 (or nothing) at 0 ms and validates until 5 ms; p2 is stored at 2 ms;
/// at 5 ms it yields (ann, p1) — or no pair at all.
@Sendable private func staleOtherValue() async throws -> String {
    try await signInButton(slowEmail, .readsOtherFirst)
}

/// Correct: at 5 ms one actor call stores the e-mail and emits (ann, p2).
@Sendable private func updateAndEmitInOneTurn() async throws -> String {
    try await signInButton(slowEmail, .inOneTurn)
}

/// The e-mail producer gets (ann, p1) back, and before it yields, the password producer stores p2 and
/// yields (ann, p2): (ann, p1) comes out last.
@Sendable private func yieldAfterActorReturns() async throws -> String {
    try await signInButton(allAtOnce, .yieldsAfterReturn)
}

/// Correct: pairs are yielded inside the actor, in the order of the updates.
@Sendable private func emitsInsideActor() async throws -> String {
    try await signInButton(allAtOnce, .inOneTurn)
}

/// The e-mail is marked seen at 0 ms and validated until 5 ms; the password at 2 ms finds both seen and
/// emits ("", p1).
@Sendable private func seenBeforeValue() async throws -> String {
    try await signInButton(passwordWhileEmailValidates, .marksSeenFirst)
}

/// Correct: emitting waits for both values themselves, checked in the turn that stores one.
@Sendable private func valueAndGateTogether() async throws -> String {
    try await signInButton(passwordWhileEmailValidates, .inOneTurn)
}
