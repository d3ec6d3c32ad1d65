import Foundation
import WorkbookCore

/// Finds the `ch01-gcd` executable, to re-run it as a child process (`--child NAME`).
///
/// Normally that is the running program. Under `swift test` the running program is the test
/// runner, so look for `ch01-gcd` beside it (SwiftPM builds it into the same directory).
enum ChapterExecutable {
    static let name = "ch01-gcd"

    static func locate() -> URL? {
        let current = ChildProcess.currentExecutable
        if current.lastPathComponent == name { return current }
        #if canImport(Darwin)
        // On macOS the test runner lives elsewhere; the test bundle sits in the build directory.
        let starts = [current.deletingLastPathComponent(), Bundle(for: Marker.self).bundleURL.deletingLastPathComponent()]
        #else
        let starts = [current.deletingLastPathComponent()]
        #endif
        for start in starts {
            var directory = start
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    private final class Marker {}
}
