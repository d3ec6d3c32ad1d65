import ExerciseKit
import Foundation
import Synchronization

// CombineLatest answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

typealias FieldTextStream = AsyncThrowingStream<String, any Error>
typealias TextPairStream = AsyncThrowingStream<(String, String), any Error>

/// The reference's state: latest values and the last pair sent, changed and yielded under one lock.
private final class LockedLatest: Sendable {
    let continuation: TextPairStream.Continuation
    let placeholder: String?
    let dropsRepeats: Bool
    private let state = Mutex<(first: String?, second: String?, sent: (String, String)?)>((nil, nil, nil))

    init(_ continuation: TextPairStream.Continuation, placeholder: String? = nil, dropsRepeats: Bool = true) {
        self.continuation = continuation
        self.placeholder = placeholder
        self.dropsRepeats = dropsRepeats
    }

    func update(first: String? = nil, second: String? = nil) {
        state.withLock { state in
            if let first { state.first = first }
            if let second { state.second = second }
            guard let first = state.first ?? placeholder, let second = state.second ?? placeholder else { return }
            if dropsRepeats, let sent = state.sent, sent == (first, second) { return }
            state.sent = (first, second)
            continuation.yield((first, second))
        }
    }
}

/// Reads both inputs in a task group of two, finishing as the reference does.
private func readBoth(_ first: FieldTextStream, _ second: FieldTextStream, into latest: LockedLatest) -> Task<Void, Never> {
    Task {
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { for try await value in first { latest.update(first: value) } }
                group.addTask { for try await value in second { latest.update(second: value) } }
                while try await group.next() != nil {}
            }
            latest.continuation.finish()
        } catch {
            latest.continuation.finish(throwing: error)
        }
    }
}

/// An empty string stands in for a field that has said nothing yet: a pair comes after one value.
struct EmptyPlaceholder: CombineLatestProtocol {
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            let reading = readBoth(first, second, into: LockedLatest(continuation, placeholder: ""))
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}

/// No `removeDuplicates`: a field set to the text it had sends the same pair again.
struct KeepsRepeats: CombineLatestProtocol {
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            let reading = readBoth(first, second, into: LockedLatest(continuation, dropsRepeats: false))
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}

/// Finishes as soon as the first input ends: the other's later values are lost.
struct EndsWithFirstInput: CombineLatestProtocol {
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            let latest = LockedLatest(continuation)
            let reading = Task {
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for try await value in first { latest.update(first: value) } }
                        group.addTask { for try await value in second { latest.update(second: value) } }
                        _ = try await group.next()
                        group.cancelAll()
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}

/// `waitForAll()`: an input's error surfaces only once the other input has ended too.
struct WaitsForAllBeforeError: CombineLatestProtocol {
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            let latest = LockedLatest(continuation)
            let reading = Task {
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for try await value in first { latest.update(first: value) } }
                        group.addTask { for try await value in second { latest.update(second: value) } }
                        try await group.waitForAll()
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}

/// No `onTermination`: a consumer that stops leaves both inputs being read.
struct NeverCancelsInputs: CombineLatestProtocol {
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            _ = readBoth(first, second, into: LockedLatest(continuation))
        }
    }
}

/// Two unstructured readers (each ends the stream with its input's error) and a task that
/// waits for both to finish it; `onTermination` cancels only that task — awaiting a task's
/// value does not cancel the task, so the readers go on.
struct CancelsOnlyTheWaiter: CombineLatestProtocol {
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            let latest = LockedLatest(continuation)
            let firstReader = Task {
                do { for try await value in first { latest.update(first: value) } } catch { continuation.finish(throwing: error) }
            }
            let secondReader = Task {
                do { for try await value in second { latest.update(second: value) } } catch { continuation.finish(throwing: error) }
            }
            let waiter = Task {
                _ = await firstReader.value
                _ = await secondReader.value
                continuation.finish()
            }
            continuation.onTermination = { _ in waiter.cancel() }
        }
    }
}

/// Reads the first input to its end, then the second: pairs come late, all at once.
struct ReadsOneAfterTheOther: CombineLatestProtocol {
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            let latest = LockedLatest(continuation)
            let reading = Task {
                do {
                    for try await value in first { latest.update(first: value) }
                    for try await value in second { latest.update(second: value) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}

/// The latest values in an actor; the pair is yielded after the actor call returns, so two
/// inputs' pairs made at the same moment can go out in the other order.
struct YieldsAfterActorCall: CombineLatestProtocol {
    actor Latest {
        var first: String?, second: String?, sent: (String, String)?
        func update(first: String? = nil, second: String? = nil) -> (String, String)? {
            if let first { self.first = first }
            if let second { self.second = second }
            guard let a = self.first, let b = self.second else { return nil }
            if let sent, sent == (a, b) { return nil }
            sent = (a, b)
            return (a, b)
        }
    }
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            let latest = Latest()
            let reading = Task {
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for try await value in first { if let pair = await latest.update(first: value) { continuation.yield(pair) } } }
                        group.addTask { for try await value in second { if let pair = await latest.update(second: value) { continuation.yield(pair) } } }
                        while try await group.next() != nil {}
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}

/// The latest values in an unlocked `@unchecked Sendable` class, written by both readers.
struct UnlockedLatest: CombineLatestProtocol {
    final class Latest: @unchecked Sendable {
        var first: String?, second: String?, sent: (String, String)?
    }
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            let latest = Latest()
            @Sendable func send() {
                guard let a = latest.first, let b = latest.second else { return }
                if let sent = latest.sent, sent == (a, b) { return }
                latest.sent = (a, b)
                continuation.yield((a, b))
            }
            let reading = Task {
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for try await value in first { latest.first = value; send() } }
                        group.addTask { for try await value in second { latest.second = value; send() } }
                        while try await group.next() != nil {}
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}

/// A correct answer: an actor that yields inside its own method (update and send in one turn).
struct ActorYieldsInside: CombineLatestProtocol {
    actor Latest {
        let continuation: TextPairStream.Continuation
        var first: String?, second: String?, sent: (String, String)?
        init(_ continuation: TextPairStream.Continuation) { self.continuation = continuation }
        func update(first: String? = nil, second: String? = nil) {
            if let first { self.first = first }
            if let second { self.second = second }
            guard let a = self.first, let b = self.second else { return }
            if let sent, sent == (a, b) { return }
            sent = (a, b)
            continuation.yield((a, b))
        }
    }
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        let (pairs, continuation) = TextPairStream.makeStream()
        let latest = Latest(continuation)
        let reading = Task {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { for try await value in first { await latest.update(first: value) } }
                    group.addTask { for try await value in second { await latest.update(second: value) } }
                    for try await _ in group {}
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { @Sendable _ in reading.cancel() }
        return pairs
    }
}

/// A correct answer: two unstructured readers, both cancelled from `onTermination`, and a
/// count of finished inputs under the lock.
struct TwoReadersAndACount: CombineLatestProtocol {
    func combineLatest(_ first: FieldTextStream, _ second: FieldTextStream) -> TextPairStream {
        TextPairStream { continuation in
            let latest = LockedLatest(continuation)
            let ends = InputEnds(continuation)
            let readers = [
                Task { do { for try await value in first { latest.update(first: value) }; ends.ended(nil) } catch { ends.ended(error) } },
                Task { do { for try await value in second { latest.update(second: value) }; ends.ended(nil) } catch { ends.ended(error) } },
            ]
            continuation.onTermination = { _ in readers.forEach { $0.cancel() } }
        }
    }
}

/// How many inputs have ended; the second end finishes the stream, an error at once.
private final class InputEnds: Sendable {
    let continuation: TextPairStream.Continuation
    let count = Mutex(0)
    init(_ continuation: TextPairStream.Continuation) { self.continuation = continuation }
    func ended(_ error: (any Error)?) {
        if let error { return continuation.finish(throwing: error) }
        if count.withLock({ $0 += 1; return $0 }) == 2 { continuation.finish() }
    }
}
