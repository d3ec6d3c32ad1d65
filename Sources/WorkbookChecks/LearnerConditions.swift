import Foundation

/// The `NSCondition`s an answer keeps in its stored properties, found with `Mirror` (also inside
/// a property that is itself an object or a struct, a few levels down).
///
/// Chapter 03's checks use them for what any other thread of the program could do to a
/// condition, and a correct answer must survive:
/// - wait on it too, as a thread of the other kind would (a producer on a consumer's
///   condition). Then a `signal()` may wake that thread instead of the one that can go on —
///   exactly why the chapter says `broadcast()`;
/// - `broadcast()` on it when nothing changed: a wake-up that means "look again", not "your
///   turn", as a spurious wake-up would;
/// - after a call has waited far too long, one `broadcast()` to see whether it was only asleep
///   (a missed wake-up: it returns at once) or stuck for another reason.
struct LearnerConditions: Sendable {
    let all: [NSCondition]

    init(in answer: Any) {
        var found: [NSCondition] = []
        var seen = Set<ObjectIdentifier>()
        func visit(_ value: Any, depth: Int) {
            if let condition = value as? NSCondition {
                if seen.insert(ObjectIdentifier(condition)).inserted { found.append(condition) }
                return
            }
            guard depth < 4 else { return }
            var mirror: Mirror? = Mirror(reflecting: value)
            guard let style = mirror?.displayStyle, [.class, .struct, .optional, .tuple].contains(style) else { return }
            if style == .class, !seen.insert(ObjectIdentifier(value as AnyObject)).inserted { return }
            while let current = mirror {
                for child in current.children { visit(child.value, depth: depth + 1) }
                mirror = current.superclassMirror
            }
        }
        visit(answer, depth: 0)
        all = found
    }

    var isEmpty: Bool { all.isEmpty }

    /// Wakes every thread waiting on any of the answer's conditions.
    func broadcast() {
        for condition in all {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
    }
}

/// A thread of the check waiting on an answer's condition, the way a thread of the other kind
/// would: it takes the condition's lock, waits once, and records whether a wake-up reached it.
/// It never looks at the answer's state — any wake-up ends its wait.
final class DecoyWaiter: @unchecked Sendable {  // `woken` and `waiting` are guarded by `state`
    private let state = NSCondition()
    private var waiting = false
    private var woken = false
    let condition: NSCondition

    /// Starts the waiter and returns once it is waiting on `condition` (it holds the
    /// condition's lock until `wait()` releases it, so taking that lock here proves it waits).
    init(on condition: NSCondition, seconds: Double) {
        self.condition = condition
        Thread.detachNewThread { [self] in
            condition.lock()
            state.withLock { waiting = true; state.broadcast() }
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            condition.unlock()
            state.withLock { woken = signalled; waiting = false; state.broadcast() }
        }
        state.withLock { while !waiting && !woken { state.wait() } }
        condition.lock()  // free only once the decoy's wait() has released it
        condition.unlock()
    }

    /// True once a wake-up ended the decoy's wait (false after a timeout).
    var wasWoken: Bool { state.withLock { woken } }

    /// Ends the decoy's wait if nothing has yet.
    func dismiss() {
        let stillWaiting = state.withLock { waiting }
        guard stillWaiting else { return }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}
