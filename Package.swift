// swift-tools-version: 6.0
import PackageDescription

/// Every target is compiled in the Swift 6 language mode (the tools version sets it).
let package = Package(
    name: "swift-concurrency-workbook",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ch01-gcd", targets: ["ch01-gcd"]),
    ],
    targets: [
        // Shared machinery: trace, timeline, terminal, localization, scenarios, REPL.
        .target(name: "WorkbookCore"),
        // Exercise contracts, fakes and the `todo()` marker, shared by stubs, solutions and checks.
        .target(name: "ExerciseKit", dependencies: ["WorkbookCore"]),
        // The learner's files and the reference solutions: the same API, the same file names.
        .target(name: "Exercises", dependencies: ["ExerciseKit"], path: "exercises/Exercises"),
        .target(name: "Solutions", dependencies: ["ExerciseKit"], path: "exercises/Solutions"),
        // One generic check per exercise, plus stress tallies, deadlines and the verdict report.
        .target(name: "WorkbookChecks", dependencies: ["ExerciseKit", "WorkbookCore"]),
        // Runs one learner check in its own process, so a crash or a deadlock cannot take down `swift test`.
        .executableTarget(name: "exercise-runner", dependencies: ["Exercises", "WorkbookChecks"]),

        .executableTarget(name: "ch01-gcd", dependencies: ["WorkbookCore"]),

        .testTarget(name: "WorkbookCoreTests", dependencies: ["WorkbookCore"]),
        .testTarget(name: "ExercisesTests", dependencies: ["WorkbookChecks", "exercise-runner"]),
        .testTarget(name: "SolutionsTests", dependencies: ["WorkbookChecks", "Solutions"]),
        .testTarget(name: "CheckerTests", dependencies: ["WorkbookChecks", "ExerciseKit"]),
        .testTarget(name: "ChapterTests", dependencies: ["WorkbookCore", "ch01-gcd"]),
    ]
)
