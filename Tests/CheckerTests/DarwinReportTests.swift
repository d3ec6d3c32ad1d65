import Foundation
import Testing
@testable import WorkbookChecks
@testable import WorkbookCore

/// ThreadSanitizer's reports as Apple platforms print them (`atos`: demangled names with spaces,
/// bare file names), read on any platform from the fixtures in DarwinReportFixtures.swift. Pure
/// parsing, so these run in every `swift test`.
@Suite("Apple-platform ThreadSanitizer reports")
struct DarwinReportTests {
    /// A package folder of its own holding `source` at `path`, and a checker for it.
    struct Package {
        let root: URL
        let checker: ExerciseChecker

        init(_ path: String, source: String, barrierWorkItemsDropped: Bool = false) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("darwin-report-\(UUID())")
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try source.write(to: file, atomically: true, encoding: .utf8)
            var checker = ExerciseChecker(packageRoot: root, catalog: ReferenceCatalog.catalog, runner: root, terminal: .plain, language: .en)
            checker.barrierWorkItemsDropped = barrierWorkItemsDropped
            self.checker = checker
        }

        func remove() { try? FileManager.default.removeItem(at: root) }

        /// The checker's reading of `report`, the learner's files found under the folder as the checker does.
        func describe(_ report: String) throws -> (property: String, reason: Localized, details: [String]) {
            let files = LearnerFiles.under("exercises/Exercises/", packageRoot: root)
            return checker.describe(try #require(SanitizerReport.first(in: report, learnerFiles: files)))
        }

        /// The verdict for a run that ended with `standardError`.
        func verdict(_ exercise: String, file: String, standardError: String) throws -> Verdict {
            let entry = try #require(ReferenceCatalog.catalog.entry(exercise))
            let outcome = ChildProcess.Outcome(termination: .exited(66), standardOutput: "", standardError: standardError, elapsedSeconds: 1)
            return checker.verdict(exercise, entry: entry, file: file, outcome: outcome)
        }
    }

    static let files = LearnerFiles([DarwinFixtures.safeCounterPath, DarwinFixtures.readersWritersPath, DarwinFixtures.fanOutPath])

    @Test("an atos frame is read as its name, its bare file and line, whatever follows the module")
    func readsFrames() throws {
        let closure = try #require(Frame("#0 closure #1 in SafeCounter.increment(_:) SafeCounter.swift:9 (exercise-runner:arm64+0x100003f1c)"))
        #expect(closure == Frame(symbol: "closure #1 in SafeCounter.increment(_:)", file: "SafeCounter.swift", line: 9, column: nil))
        let noLine = try #require(Frame("#4 CronJobs.__allocating_init() CronJobs.swift (AddaApi:x86_64+0x10000d1b8)"))
        #expect(noLine.file == "CronJobs.swift" && noLine.line == nil)
        let system = try #require(Frame("#8 __tsan::invoke_and_release_block(void*) <null>:1059888 (libclang_rt.tsan_osx_dynamic.dylib:x86_64h+0x685ab)"))
        #expect(system.file == "<null>" && system.line == nil)
        let withBuildID = try #require(Frame("#27 closure #2 in Provider.send<A>(_:target:) Provider+Internal.swift:278 (Moya:arm64+0x15804) (BuildId: 4d8805cc)"))
        #expect(withBuildID.file == "Provider+Internal.swift" && withBuildID.line == 278)
        #expect(Frame("#4 <null> <null> (0x0001b16b7e50)")?.file == "<null>")
        let linux = try #require(Frame("#0 $s9Exercises11SafeCounterC5count2ofSiSS_tF /work/my package/exercises/Exercises/01-gcd/SafeCounter.swift:15:15 (exercise-runner+0x12d38a) (BuildId: 2ee9)"))
        #expect(linux == Frame(symbol: "$s9Exercises11SafeCounterC5count2ofSiSS_tF",
                               file: "/work/my package/exercises/Exercises/01-gcd/SafeCounter.swift", line: 15, column: 15))
    }

    @Test("atos's names and the full demangled ones shorten to the same name, as Swift writes it",
          arguments: [
            ("partial apply for closure #1 in SafeCounter.increment(_:)", "closure in SafeCounter.increment(_:)"),
            ("closure #1 @Sendable () -> () in Exercises.SafeCounter.increment(Swift.String) -> ()", "closure in SafeCounter.increment(_:)"),
            ("implicit closure #2 in closure #1 in FanOut.fetchAll(_:maxInFlight:using:completion:)", "closure in FanOut.fetchAll(_:maxInFlight:using:completion:)"),
            ("closure #1 (Swift.Result<Swift.String, ExerciseKit.FetchError>) -> () in Exercises.FanOut.fetchAll(_: [Swift.Int], maxInFlight: Swift.Int, using: ExerciseKit.FakeClient, completion: @escaping @Sendable ([Swift.Result<Swift.String, ExerciseKit.FetchError>]) -> ()) -> ()",
             "closure in FanOut.fetchAll(_:maxInFlight:using:completion:)"),
            ("specialized closure #1 in Array.parallelMap<A>(transform:)", "closure in Array.parallelMap(transform:)"),
            ("(1) suspend resume partial function for closure #1 in static Gallery.load(_:)", "closure in static Gallery.load(_:)"),
            ("@objc static Factory.mainView() -> __C.UIViewController", "static Factory.mainView()"),
            ("(extension in Exercises):Swift.Array<A>.chunked(into: Swift.Int) -> [[A]]", "Array<A>.chunked(into:)"),
            ("Exercises.SafeCounter.counts.getter : [Swift.String : Swift.Int]", "SafeCounter.counts.getter"),
            ("SafeCounter.init()", "SafeCounter.init()"),
          ])
    func shortensNames(symbol: String, shortened: String) {
        #expect(SanitizerReport.readableFunction(symbol) == shortened)
    }

    @Test("a data race between two GCD blocks names both places with their lines, and the variable")
    func dataRaceBetweenBlocks() throws {
        let report = try #require(SanitizerReport.first(in: DarwinFixtures.concurrentCounterRace, learnerFiles: Self.files))
        let place = SanitizerReport.Place(file: DarwinFixtures.safeCounterPath, line: 12, function: "closure in SafeCounter.increment(_:)")
        #expect(report.kind == "data race")
        #expect(report.accesses.map(\.place) == [place, place])
        #expect(report.accesses.map(\.isWrite) == [false, true])
        #expect(report.accesses.map(\.thread) == ["thread T3", "thread T2"])
        #expect(report.threadNames.isEmpty)
        let package = try Package(DarwinFixtures.safeCounterPath, source: DarwinFixtures.concurrentCounterSource)
        defer { package.remove() }
        let (property, reason, details) = try package.describe(DarwinFixtures.concurrentCounterRace)
        #expect(property == VerdictProperty.dataRace)
        #expect(reason.en.hasPrefix("data race on `counts`"), "\(reason.en)")
        #expect(details.contains("read at \(DarwinFixtures.safeCounterPath):12 in closure in SafeCounter.increment(_:), by thread T3"), "\(details)")
        #expect(details.contains("written at \(DarwinFixtures.safeCounterPath):12 in closure in SafeCounter.increment(_:), by thread T2"))
        #expect(details.contains("    12 | self.counts[page, default: 0] += 1"))
    }

    @Test("a Swift access race reads the same places from an atos report as from llvm-symbolizer's")
    func sameAsLinux() throws {
        let darwin = try #require(SanitizerReport.first(in: DarwinFixtures.accessRace, learnerFiles: Self.files))
        let linux = try #require(SanitizerReport.first(in: VerdictTests.raceReport))
        #expect(darwin.kind == "Swift access race")
        #expect(darwin.accesses.count == 2)
        #expect(darwin.accesses.map(\.place) == linux.accesses.map(\.place))
        #expect(darwin.accesses.map(\.isWrite) == linux.accesses.map(\.isWrite))
        #expect(darwin.learnerPlaces == linux.learnerPlaces)
    }

    @Test("a frame without a line is still the learner's, and is placed near the line that uses the variable")
    func frameWithoutLine() throws {
        let report = try #require(SanitizerReport.first(in: DarwinFixtures.accessRace, learnerFiles: Self.files))
        #expect(report.accesses[1].place == .init(file: DarwinFixtures.safeCounterPath, line: nil, function: "closure in SafeCounter.increment(_:)"))
        let package = try Package(DarwinFixtures.safeCounterPath, source: VerdictTests.racySource)
        defer { package.remove() }
        let (_, reason, details) = try package.describe(DarwinFixtures.accessRace)
        #expect(reason.en.hasPrefix("data race on `counts`"))
        #expect(details.contains("read at \(DarwinFixtures.safeCounterPath):15 in SafeCounter.count(of:), by thread T2"), "\(details)")
        #expect(details.contains("written at \(DarwinFixtures.safeCounterPath) near line 9 in closure in SafeCounter.increment(_:), by thread T1"), "\(details)")
    }

    @Test("a bare file name that is not the learner's is not taken for theirs")
    func otherFilesAreNotTheLearners() throws {
        let report = try #require(SanitizerReport.first(in: DarwinFixtures.accessRace, learnerFiles: LearnerFiles([DarwinFixtures.fanOutPath])))
        #expect(report.accesses.allSatisfy { $0.place == nil })
        #expect(report.learnerPlaces.isEmpty)
    }

    @Test("a heap-use-after-free names the learner's place of the access and of the free")
    func useAfterFree() throws {
        let report = try #require(SanitizerReport.first(in: DarwinFixtures.useAfterFree, learnerFiles: Self.files))
        #expect(!report.isDataRace)
        let function = "FanOut.fetchAll(_:maxInFlight:using:completion:)"
        #expect(report.learnerPlaces == [.init(file: DarwinFixtures.fanOutPath, line: 16, function: "closure in " + function),
                                         .init(file: DarwinFixtures.fanOutPath, line: 19, function: function)])
        let package = try Package(DarwinFixtures.fanOutPath, source: DarwinFixtures.useAfterFreeSource)
        defer { package.remove() }
        let (property, reason, details) = try package.describe(DarwinFixtures.useAfterFree)
        #expect(property == VerdictProperty.sanitizer)
        #expect(reason.en.contains("heap-use-after-free, at \(DarwinFixtures.fanOutPath):16 in closure in \(function)"), "\(reason.en)")
        #expect(details.contains("    16 | results[index] = result"))
        #expect(details.contains("    19 | results.deallocate()"))
    }

    @Test("a ThreadSanitizer SEGV's trace keeps the learner's frames, by their bare file name")
    func segvTrace() throws {
        let package = try Package(DarwinFixtures.fanOutPath, source: DarwinFixtures.useAfterFreeSource)
        defer { package.remove() }
        let verdict = try package.verdict("FanOut", file: DarwinFixtures.fanOutPath, standardError: DarwinFixtures.segv)
        #expect(verdict.failedProperty == VerdictProperty.crash)
        #expect(verdict.report.contains("\(DarwinFixtures.fanOutPath):16 in closure in FanOut.fetchAll(_:maxInFlight:using:completion:)"), "\(verdict.report)")
        #expect(verdict.report.contains("ERROR: ThreadSanitizer: SEGV"))
        #expect(!verdict.report.contains("_dispatch_client_callout"))
    }

    @Test("a Swift runtime fatal error keeps the runtime's message and the learner's frames of the trap's trace")
    func fatalErrorTrace() throws {
        let package = try Package(DarwinFixtures.safeCounterPath, source: DarwinFixtures.forceUnwrapSource)
        defer { package.remove() }
        let verdict = try package.verdict("SafeCounter", file: DarwinFixtures.safeCounterPath, standardError: DarwinFixtures.fatalError)
        #expect(verdict.failedProperty == VerdictProperty.crash)
        let lines = verdict.report.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("\(DarwinFixtures.safeCounterPath):16: Fatal error: Unexpectedly found nil while unwrapping an Optional value"), "\(verdict.report)")
        #expect(lines.contains("\(DarwinFixtures.safeCounterPath):16 in closure in SafeCounter.count(of:)"))
        #expect(lines.contains("\(DarwinFixtures.safeCounterPath):15 in SafeCounter.count(of:)"))
        // The runtime said why; TSan's line that it trapped adds nothing.
        #expect(!verdict.report.contains("ERROR: ThreadSanitizer"))
        #expect(!verdict.report.contains("SafeCounterCheck"))
    }
}

/// ThreadSanitizer's libdispatch support drops the barrier of a work item submitted with
/// `async(execute:)`, and on Apple platforms the runners cannot put it back.
@Suite("A race inside a barrier work item on Apple platforms")
struct BarrierWorkItemTests {
    typealias Package = DarwinReportTests.Package

    @Test("is explained as ThreadSanitizer's limitation, with the spelling it understands, in both languages")
    func explained() throws {
        let package = try Package(DarwinFixtures.readersWritersPath, source: DarwinFixtures.workItemSource, barrierWorkItemsDropped: true)
        defer { package.remove() }
        let (property, reason, details) = try package.describe(DarwinFixtures.workItemRace)
        #expect(property == VerdictProperty.sanitizerLimitation)
        for text in [reason.en, reason.ja] {
            #expect(text.contains("`queue.async(flags: .barrier) { … }`"), "\(text)")
            #expect(text.contains("\(DarwinFixtures.readersWritersPath):19"))
            #expect(text.contains("closure in ReadersWriters.setValue(_:forKey:)"))
        }
        #expect(reason.en.contains("limitation of ThreadSanitizer on Apple platforms"))
        #expect(reason.ja.contains("既知の制限"))
        #expect(details.contains("    19 | self.writes += 1"), "\(details)")
        #expect(details.contains { $0.hasPrefix("read at \(DarwinFixtures.readersWritersPath):14 in closure in ReadersWriters.value(forKey:)") })
    }

    @Test("is a data race where barriers are not dropped (Linux's runners put them back)")
    func notExplainedOnLinux() throws {
        let package = try Package(DarwinFixtures.readersWritersPath, source: DarwinFixtures.workItemSource, barrierWorkItemsDropped: false)
        defer { package.remove() }
        let (property, reason, _) = try package.describe(DarwinFixtures.workItemRace)
        #expect(property == VerdictProperty.dataRace)
        #expect(reason.en.hasPrefix("data race on `writes`"), "\(reason.en)")
    }

    @Test("is still the learner's race when the barrier is written as async(flags: .barrier)")
    func flagsBarrierIsNotExcused() throws {
        let package = try Package(DarwinFixtures.readersWritersPath, source: DarwinFixtures.flagsBarrierSource, barrierWorkItemsDropped: true)
        defer { package.remove() }
        let (property, _, _) = try package.describe(DarwinFixtures.workItemRace)
        #expect(property == VerdictProperty.dataRace)
    }
}
