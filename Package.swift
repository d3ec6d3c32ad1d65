// swift-tools-version: 6.0
import PackageDescription

/// Every target is compiled in the Swift 6 language mode (the tools version sets it), except
/// `Ch07LegacyLibrary`, which plays a library written before strict concurrency (Swift 5 mode).
let package = Package(
    name: "swift-concurrency-workbook",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ch01-gcd", targets: ["ch01-gcd"]),
        .executable(name: "ch02-operations", targets: ["ch02-operations"]),
        .executable(name: "ch03-threads", targets: ["ch03-threads"]),
        .executable(name: "ch04-async-await", targets: ["ch04-async-await"]),
        .executable(name: "ch05-continuations", targets: ["ch05-continuations"]),
        .executable(name: "ch06-streams", targets: ["ch06-streams"]),
        .executable(name: "ch07-actors", targets: ["ch07-actors"]),
        .executable(name: "ch08-reentrancy", targets: ["ch08-reentrancy"]),
        .executable(name: "workbook", targets: ["workbook"]),
    ],
    targets: [
        // Runs async code one job at a time on one thread and chooses the interleaving.
        // Optimized even in debug builds: a check explores thousands of schedules, and a debug
        // build spent most of its time instantiating generic metadata. Only the explorer's own
        // code; the code it explores (the learner's) stays a debug build.
        // Release builds skip the dynamic exclusivity checks (debug builds, where the checks run,
        // keep them).
        .target(name: "WorkbookExplorer", dependencies: ["ExplorerDispatchInterposer", "Interposing"],
                swiftSettings: [.unsafeFlags(["-O"]),
                                .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        // Takes the jobs the Swift runtime hands straight to libdispatch from the explorer's
        // driver thread (Linux), so they stay in the run.
        .target(name: "ExplorerDispatchInterposer", dependencies: ["Interposing"]),
        // What the interposers share: forwarding to TSan's interceptor or the next library (Linux).
        .target(name: "Interposing"),
        // Shared machinery: trace, timeline, terminal, localization, scenarios, REPL.
        .target(name: "WorkbookCore", dependencies: ["WorkbookExplorer", "Interposing", "ReleasePoints"]),
        // Exercise contracts, fakes and the `todo()` marker, shared by stubs, solutions and checks.
        .target(name: "ExerciseKit", dependencies: ["WorkbookCore", "WorkbookExplorer", "ReleasePoints"]),
        // Pauses a thread right after its k-th release (unlock, signal, sync, leave), so a fake can
        // run another callback whole at that moment; the interposers report releases (Linux runners).
        .target(name: "ReleasePoints", dependencies: ["Interposing"]),
        .target(name: "ReleasePointInterposers", dependencies: ["ReleasePoints", "Interposing"]),
        // The learner's files and the reference solutions: the same API, the same file names.
        // Both are compiled with ThreadSanitizer, so a data race in them is reported by the
        // learner's own `swift test` (through exercise-runner), not only in CI. Nothing else is
        // instrumented: the checks, fakes and tests run at full speed.
        .target(name: "Exercises", dependencies: ["ExerciseKit"], path: "exercises/Exercises",
                swiftSettings: [.unsafeFlags(["-sanitize=thread"])]),
        .target(name: "Solutions", dependencies: ["ExerciseKit"], path: "exercises/Solutions",
                swiftSettings: [.unsafeFlags(["-sanitize=thread"])]),
        // One generic check per exercise, plus stress tallies, deadlines and the verdict report.
        .target(name: "WorkbookChecks", dependencies: ["ExerciseKit", "WorkbookCore", "WorkbookExplorer"]),
        // Runs one learner check in its own process, so a crash or a deadlock cannot take down `swift test`.
        // The one registration list: each exercise's check on the learner's type and the reference.
        .target(name: "ExerciseRegistry", dependencies: ["Exercises", "Solutions", "WorkbookChecks"]),
        .executableTarget(name: "exercise-runner", dependencies: ["ExerciseRegistry", "WorkbookChecks", "SanitizerMutexSupport", "ReleasePointInterposers", "AccessRaceInterposer"],
                          linkerSettings: [.unsafeFlags(["-sanitize=thread"])]),
        // Shows TSan the learner's accesses to values of resilient types (a stored
        // `CheckedContinuation`), which the uninstrumented runtime copies (TSan runners, Linux).
        .target(name: "AccessRaceInterposer", dependencies: ["Interposing"]),
        // Tells TSan about Synchronization.Mutex's futex slow paths on Linux (TSan runners only).
        .target(name: "SanitizerMutexSupport"),
        // ThreadSanitizer's entry points as plain functions, so instrumented code runs without its
        // runtime; the "-plain" runners confirm failures that are not races.
        .target(name: "SanitizerStubs"),
        .executableTarget(name: "exercise-runner-plain", dependencies: ["ExerciseRegistry", "WorkbookChecks", "SanitizerStubs", "ReleasePointInterposers"]),

        .executableTarget(name: "ch01-gcd", dependencies: ["WorkbookCore", "WorkbookExplorer"]),
        .executableTarget(name: "ch02-operations", dependencies: ["WorkbookCore"]),
        .executableTarget(name: "ch03-threads", dependencies: ["WorkbookCore"]),
        .executableTarget(name: "ch04-async-await", dependencies: ["WorkbookCore", "WorkbookExplorer", "ExerciseKit"]),
        .executableTarget(name: "ch05-continuations", dependencies: ["WorkbookCore", "WorkbookExplorer"]),
        .executableTarget(name: "ch06-streams", dependencies: ["WorkbookCore", "WorkbookExplorer"]),
        .executableTarget(name: "ch07-actors", dependencies: ["WorkbookCore", "WorkbookExplorer", "Ch07LegacyLibrary"]),
        .executableTarget(name: "ch08-reentrancy", dependencies: ["WorkbookCore", "WorkbookExplorer"]),
        // Chapter 07's library written before strict concurrency: Swift 5 mode, minimal checking. Its
        // callbacks cross into the chapter's Swift 6 code, where the dynamic isolation checks sit.
        .target(name: "Ch07LegacyLibrary", swiftSettings: [.swiftLanguageMode(.v5)]),
        // `swift run workbook`: progress, check, hint, reset, solution, progress, session.
        .executableTarget(name: "workbook", dependencies: ["WorkbookCore", "WorkbookChecks"]),
        // `swift run -c release explorer-benchmark`: schedules per second.
        .executableTarget(name: "explorer-benchmark", dependencies: ["WorkbookExplorer"]),

        .testTarget(name: "WorkbookCoreTests", dependencies: ["WorkbookCore"]),
        .testTarget(name: "WorkbookTests", dependencies: ["workbook"]),
        .testTarget(name: "WorkbookExplorerTests", dependencies: ["WorkbookExplorer", "WorkbookCore", "Interposing", "explorer-benchmark"],
                    exclude: ["Corpus/README.md"]),
        .testTarget(name: "ExercisesTests", dependencies: ["WorkbookChecks"]),
        .testTarget(name: "SolutionsTests", dependencies: ["WorkbookChecks"]),
        // The workbook's buggy variants, compiled with ThreadSanitizer like the learner's code, and
        // the runner that checks them in a child process; CheckerTests expects each to fail.
        .target(name: "CheckerVariants", dependencies: ["ExerciseKit", "WorkbookChecks"], path: "Tests/CheckerVariants",
                swiftSettings: [.unsafeFlags(["-sanitize=thread"])]),
        .executableTarget(name: "variant-runner", dependencies: ["CheckerVariants", "WorkbookChecks", "SanitizerMutexSupport", "ReleasePointInterposers", "AccessRaceInterposer"], path: "Tests/VariantRunner",
                          linkerSettings: [.unsafeFlags(["-sanitize=thread"])]),
        .executableTarget(name: "variant-runner-plain", dependencies: ["CheckerVariants", "WorkbookChecks", "SanitizerStubs", "ReleasePointInterposers"],
                          path: "Tests/VariantRunnerPlain"),
        // The rules that find English words in Japanese output, shared by the chapter and report tests.
        .target(name: "JapaneseTextRules", path: "Tests/JapaneseTextRules"),
        .testTarget(name: "CheckerTests", dependencies: ["WorkbookChecks", "ExerciseKit", "WorkbookExplorer", "JapaneseTextRules"]),
        // Chapter 04's examples of testing async code (XCTest and Swift Testing), for learners to read and run.
        .testTarget(name: "AsyncTestExamples", dependencies: ["ch04-async-await", "ExerciseKit"]),
        .testTarget(name: "ChapterTests", dependencies: ["WorkbookCore", "WorkbookExplorer", "ch01-gcd", "ch02-operations", "ch03-threads", "ch04-async-await", "ch05-continuations", "ch06-streams", "ch07-actors", "ch08-reentrancy", "ExerciseKit", "JapaneseTextRules"]),
    ]
)

// Chapter 07's target compiled with the defaults of a new Xcode 26 app target: default main-actor
// isolation (SE-0466) and `NonisolatedNonsendingByDefault` (SE-0461), both Swift 6.2. Only where the
// compiler has them: with Swift 6.0 or 6.1 the target does not exist and the chapter says so.
// PackageDescription 6.0 has no `.defaultIsolation` (that is 6.2 API), so the flag is passed as is.
#if compiler(>=6.2)
package.targets.append(.target(name: "Ch07XcodeDefaults", swiftSettings: [
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .unsafeFlags(["-default-isolation", "MainActor"]),
]))
package.targets.first { $0.name == "ch07-actors" }?.dependencies.append("Ch07XcodeDefaults")
#endif
