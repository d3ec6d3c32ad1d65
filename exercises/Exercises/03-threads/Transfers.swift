import ExerciseKit

// Exercise 03-threads/Transfers — read chapters/en/03-threads.md (ja: chapters/ja/03-threads.md) first.
//
// Goal: `transfer` below locks the source account, then the destination. When one thread
// transfers A → B while another transfers B → A, each can hold one lock and wait forever for
// the other: a lock-order deadlock. Fix it so any number of threads can transfer in any
// direction, and the total amount of money never changes.
//
// Check your answer:   swift test --filter ExercisesTests.Transfers
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public final class Transfers: TransfersProtocol {
    public init() {}

    public func transfer(_ amount: Int, from source: Account, to destination: Account) {
        // TODO: take the two locks in one global order (every thread the same), not
        // "source first". Then delete the todo(fix:) line.
        todo(fix: "take the two locks in one global order")
        source.lock.lock()
        defer { source.lock.unlock() }
        destination.lock.lock()
        defer { destination.lock.unlock() }
        source.balance -= amount
        destination.balance += amount
    }
}
