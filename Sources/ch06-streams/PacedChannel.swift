import WorkbookCore

/// A channel paced by its consumer, like `AsyncChannel` of the swift-async-algorithms package:
/// `send` suspends until the consumer has taken the value. That is *back-pressure*: a fast
/// producer slows to the consumer's pace, and nothing is buffered or dropped.
///
/// Kept small for the lesson: one consumer, and `send` ignores cancellation (`AsyncChannel`
/// handles both).
final class PacedChannel<Element: Sendable>: AsyncSequence, Sendable {
    private struct State {
        var senders: [(Element, CheckedContinuation<Void, Never>)] = []
        var receiver: CheckedContinuation<Element?, Never>?
        var finished = false
    }
    private let state = Locked(State())

    /// What the consumer's `next()` found.
    private enum Next {
        case sent(Element, CheckedContinuation<Void, Never>)
        case end
        case wait
    }

    /// Hands `element` over; returns once the consumer has taken it.
    func send(_ element: Element) async {
        await withCheckedContinuation { (sender: CheckedContinuation<Void, Never>) in
            let receiver = state.withLock { state -> CheckedContinuation<Element?, Never>? in
                guard let receiver = state.receiver else {
                    state.senders.append((element, sender))
                    return nil
                }
                state.receiver = nil
                return receiver
            }
            if let receiver {
                receiver.resume(returning: element)
                sender.resume()
            }
        }
    }

    /// Ends the sequence: the consumer's loop ends once it has taken what was sent.
    func finish() {
        let receiver = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.finished = true
            defer { state.receiver = nil }
            return state.receiver
        }
        receiver?.resume(returning: nil)
    }

    fileprivate func next() async -> Element? {
        await withCheckedContinuation { (receiver: CheckedContinuation<Element?, Never>) in
            let next = state.withLock { state -> Next in
                if !state.senders.isEmpty {
                    let (element, sender) = state.senders.removeFirst()
                    return .sent(element, sender)
                }
                if state.finished { return .end }
                state.receiver = receiver
                return .wait
            }
            switch next {
            case let .sent(element, sender):
                sender.resume()
                receiver.resume(returning: element)
            case .end:
                receiver.resume(returning: nil)
            case .wait:
                break
            }
        }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let channel: PacedChannel
        mutating func next() async -> Element? { await channel.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: self) }
}
