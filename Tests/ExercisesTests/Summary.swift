import Foundation
import WorkbookChecks
import WorkbookCore

/// Collects the verdicts and prints the closing block (every exercise checked, the next one
/// to do, `Exercises: 1 done, 1 failing, 7 not started`) when the test process exits, after
/// the test library's own summary.
enum Summary {
    private static let state = Locked<(summary: VerdictSummary, catalog: ExerciseCatalog?)>((VerdictSummary(), nil))
    private static let registered = Locked(false)

    static func record(_ verdict: Verdict, catalog: ExerciseCatalog) {
        state.withLock {
            $0.summary.record(verdict)
            $0.catalog = catalog
        }
    }

    static func registerOnce() {
        let first = registered.withLock { done in
            defer { done = true }
            return !done
        }
        if first { atexit { Summary.printBlock() } }
    }

    private static func printBlock() {
        let (summary, catalog) = state.current
        guard let catalog, !summary.isEmpty else { return }
        Console.error(summary.render(catalog: catalog, terminal: Terminal.detect(fileDescriptor: STDERR_FILENO), language: Language.fromEnvironment()))
    }
}
