import Foundation
import Testing
@testable import WorkbookChecks
import WorkbookCore

/// The verdict library: what a learner is told for each way a run can end.
@Suite("Verdicts", .workbookSelfTest)
struct VerdictTests {
    @Test("a race report names the learner's function as Swift writes its name, also inside a @Sendable closure")
    func readableFunctionNames() {
        #expect(SanitizerReport.readableFunction("closure #1 () -> () in Exercises.SafeCounter.increment(Swift.String) -> ()")
                == "closure in SafeCounter.increment(_:)")
        #expect(SanitizerReport.readableFunction("closure #1 @Sendable () -> () in Exercises.SafeCounter.increment(Swift.String) -> ()")
                == "closure in SafeCounter.increment(_:)")
        #expect(SanitizerReport.readableFunction("(1) suspend resume partial function for closure #1 () async throws -> (Int, Thumbnail) in closure #1 (inout ThrowingTaskGroup<(Int, Thumbnail), Error>) async throws -> Array<Thumbnail> in ThumbnailGallery.thumbnails(for: Array<String>, maxInFlight: Int, loader: ThumbnailLoader) async throws -> Array<Thumbnail>")
                == "closure in ThumbnailGallery.thumbnails(for:maxInFlight:loader:)")
    }

    /// A report as TSan printed it for a SafeCounter that read `counts` outside its queue.
    static let raceReport = """
    ==================
    WARNING: ThreadSanitizer: Swift access race (pid=3612)
      Read of size 8 at 0x720800000478 by thread T2:
        #0 $s9Exercises11SafeCounterC5count2ofSiSS_tF /work/main/exercises/Exercises/01-gcd/SafeCounter.swift:15:15 (exercise-runner+0x12d38a) (BuildId: 2ee9)
        #1 $s9Exercises11SafeCounterC11ExerciseKit0bC8ProtocolAadEP5count2ofSiSS_tFTW /<compiler-generated> (exercise-runner+0x12cae3) (BuildId: 2ee9)

      Previous modifying access of Swift variable at 0x720800000478 by thread T1:
        #0 $s9Exercises11SafeCounterC9incrementyySSFyyXEfU_ /work/main/exercises/Exercises/01-gcd/SafeCounter.swift (exercise-runner+0x12c67c) (BuildId: 2ee9)
        #1 $sIg_Ieg_TRTA Wrapper.swift.o (libswiftDispatch.so+0x2122b) (BuildId: 8e4d)

      Location is heap block of size 32 at 0x720800000460 allocated by main thread:
        #0 malloc tsan_interceptors_posix.cpp:686:5 (exercise-runner+0x972c0) (BuildId: 2ee9)

    SUMMARY: ThreadSanitizer: Swift access race /work/main/exercises/Exercises/01-gcd/SafeCounter.swift:15:15 in $s9Exercises11SafeCounterC5count2ofSiSS_tF
    ==================
    """

    static let racySource = """
    public final class SafeCounter: SafeCounterProtocol, @unchecked Sendable {
        private let queue = DispatchQueue(label: "counter")
        private var counts: [String: Int] = [:]

        public init() {}

        public func increment(_ page: String) {
            queue.async {
                self.counts[page, default: 0] += 1
            }
        }

        public func count(of page: String) -> Int {
            // The bug: no queue here.
            counts[page, default: 0]
        }
    }
    """

    @Test("a TSan report is read as two accesses in the learner's file, with their functions")
    func parsesRace() throws {
        let report = try #require(SanitizerReport.first(in: "noise\n" + Self.raceReport))
        #expect(report.kind == "Swift access race")
        #expect(report.isDataRace)
        #expect(report.accesses.count == 2)
        #expect(report.accesses[0].place == .init(file: "exercises/Exercises/01-gcd/SafeCounter.swift", line: 15, function: "SafeCounter.count(of:)"))
        #expect(report.accesses[0].isWrite == false)
        #expect(report.accesses[1].isWrite)
        #expect(report.accesses[1].place?.line == nil)
        #expect(report.accesses[1].place?.function == "closure in SafeCounter.increment(_:)")
        #expect(SanitizerReport.first(in: "no report here") == nil)
    }

    @Test("a thread's name is kept when code named it, not when it is a GCD pool thread")
    func threadNames() throws {
        let threads = """
          Thread T2 'caller' (tid=26274, running) created by thread T1 at:
            #0 pthread_create tsan_interceptors_posix.cpp:1022:3 (exercise-runner+0x9c3d1)

          Thread T1 '-qos.overcommit' (tid=26270, running) created by main thread at:
            #0 pthread_create tsan_interceptors_posix.cpp:1022:3 (exercise-runner+0x9c3d1)

        SUMMARY:
        """
        let report = try #require(SanitizerReport.first(in: Self.raceReport.replacingOccurrences(of: "SUMMARY:", with: threads)))
        #expect(report.threadNames == ["thread T2": "caller"])
    }

    /// The checker's reading of a TSan `report`, with `source` as the learner's file at `path` in a
    /// package folder of its own.
    func describe(_ report: String, learnerFile path: String, source: String) throws -> (property: String, reason: Localized, details: [String]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("verdict-\(UUID())")
        let file = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try source.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: folder) }
        let checker = ExerciseChecker(packageRoot: folder, catalog: ReferenceCatalog.catalog, runner: folder, terminal: .plain, language: .en)
        return checker.describe(try #require(SanitizerReport.first(in: report)))
    }

    @Test("the data-race verdict names the variable, both places and their lines")
    func describesRace() throws {
        let (property, reason, details) = try describe(Self.raceReport, learnerFile: "exercises/Exercises/01-gcd/SafeCounter.swift", source: Self.racySource)
        #expect(property == VerdictProperty.dataRace)
        #expect(reason.en.hasPrefix("data race on `counts`"))
        #expect(details.contains("read at exercises/Exercises/01-gcd/SafeCounter.swift:15 in SafeCounter.count(of:), by thread T2"))
        #expect(details.contains { $0.contains("written at exercises/Exercises/01-gcd/SafeCounter.swift near line 9 in closure in SafeCounter.increment(_:)") })
        #expect(details.contains("    15 | counts[page, default: 0]"))
        #expect(!reason.ja.isEmpty)
    }

    @Test("one statement raced by two threads: the access TSan gives no line is placed at the other's line, not at a later use")
    func sameStatementTwice() throws {
        let path = "exercises/Exercises/05-continuations/WrapCallbackAPI.swift"
        let source = """
        public struct WeatherService {
            public func forecast(for city: String) async throws -> Forecast {
                let forecast: Forecast = try await withCheckedThrowingContinuation { continuation in
                    client.fetchForecast(for: city) { data, error in
                        counter.answers += 1
                        continuation.resume(returning: Forecast())
                    }
                }
                _ = counter.answers
                return forecast
            }
        }
        """
        let closure = "$s9Exercises14WeatherServiceV8forecast3for11ExerciseKit8ForecastVSS_tYaKFyScCyAHs5Error_pGXEfU_yAF0H4DataVSg_sAI_pSgtYbcfU_"
        let report = """
        WARNING: ThreadSanitizer: data race (pid=1)
          Write of size 1 at 0x7208000024d0 by thread T24:
            #0 \(closure) /w/\(path) (exercise-runner+0x17aa9b)
          Previous write of size 1 at 0x7208000024d0 by thread T23:
            #0 \(closure) /w/\(path):5:33 (exercise-runner+0x17aae8)
        SUMMARY: ThreadSanitizer: data race
        """
        let (_, _, details) = try describe(report, learnerFile: path, source: source)
        #expect(details.contains { $0.hasPrefix("written at \(path) near line 5 in closure in WeatherService.forecast") }, "\(details)")
        #expect(details.contains { $0.hasPrefix("written at \(path):5 in closure in WeatherService.forecast") })
        #expect(!details.contains { $0.contains("line 9") }, "\(details)")
    }

    @Test("neither access has a line: the variable both functions use is found, and each is placed at its first use")
    func noLineAtAll() throws {
        let path = "exercises/Exercises/01-gcd/SafeCounter.swift"
        let source = """
        public final class SafeCounter {
            private var counts: [String: Int] = [:]
            public func increment(_ page: String) {
                queue.async { self.counts[page, default: 0] += 1 }
            }
            public func count(of page: String) -> Int {
                let copy = counts
                return copy[page, default: 0]
            }
        }
        """
        let report = """
        WARNING: ThreadSanitizer: data race (pid=1)
          Write of size 8 at 0x720800000478 by thread T4:
            #0 $s9Exercises11SafeCounterC9incrementyySSFyyXEfU_ /w/\(path) (exercise-runner+0x12c67c)
          Previous read of size 8 at 0x720800000478 by thread T3:
            #0 $s9Exercises11SafeCounterC5count2ofSiSS_tF /w/\(path) (exercise-runner+0x12d38a)
        SUMMARY: ThreadSanitizer: data race
        """
        let (_, reason, details) = try describe(report, learnerFile: path, source: source)
        #expect(reason.en.hasPrefix("data race on `counts`"), "\(reason.en)")
        #expect(details.contains { $0.hasPrefix("written at \(path) near line 4 in closure in SafeCounter.increment") }, "\(details)")
        #expect(details.contains { $0.hasPrefix("read at \(path) near line 7 in SafeCounter.count") }, "\(details)")
    }

    @Test("a crash keeps the runtime's message whole, Precondition failed included")
    func keepsPreconditionMessages() {
        let messages = runtimeMessages("""
        exercises/Exercises/03-threads/Worker.swift:40: Precondition failed: join() twice
        *** Program crashed: Illegal instruction at 0x0000 ***
        Thread 3 "worker" crashed:
        0  0x0000 closure in Worker.start() + 12 in exercise-runner at /w/exercises/Exercises/03-threads/Worker.swift:40:9
        1  0x0001 start_thread in libc.so.6
        """)
        #expect(messages.contains("exercises/Exercises/03-threads/Worker.swift:40: Precondition failed: join() twice"))
        #expect(messages.contains { $0.contains("Worker.swift:40:9") })
        #expect(!messages.contains { $0.contains("start_thread") })
    }

    @Test("a runtime message names the learner's file by its path, not by the module's name for it")
    func runtimeMessageNamesTheFile() {
        let messages = runtimeMessages("""
        Exercises/SafeCounter.swift:16: Fatal error: Unexpectedly found nil while unwrapping an Optional value
        *** Program crashed: Illegal instruction at 0x0000 ***
        """, learnerFile: "exercises/Exercises/01-gcd/SafeCounter.swift")
        #expect(messages.first == "exercises/Exercises/01-gcd/SafeCounter.swift:16: Fatal error: Unexpectedly found nil while unwrapping an Optional value")
        // Another exercise's file, and a path already whole, are left as they are.
        let other = runtimeMessages("Exercises/FanOut.swift:3: Fatal error: x\nexercises/Exercises/01-gcd/SafeCounter.swift:4: Fatal error: y",
                                    learnerFile: "exercises/Exercises/01-gcd/SafeCounter.swift")
        #expect(other.contains("Exercises/FanOut.swift:3: Fatal error: x"))
        #expect(other.contains("exercises/Exercises/01-gcd/SafeCounter.swift:4: Fatal error: y"))
    }

    @Test("a semaphore freed with a wait still out is explained from the frame that trapped (Linux prints no message), once")
    func semaphoreDispose() {
        let report = """
        ==1==ERROR: ThreadSanitizer: ILL on unknown address 0x7fd1e10079b9
            #0 _dispatch_semaphore_dispose crtstuff.c (libdispatch.so+0x359b9)
        BUG IN CLIENT OF LIBDISPATCH: Semaphore object deallocated while in use
        """
        let messages = runtimeMessages(report)
        #expect(messages.filter { $0.hasPrefix("libdispatch: a DispatchSemaphore was freed") }.count == 1, "\(messages)")
    }

    @Test("the hint for the property that failed comes first, the most specific before the general")
    func hintsByProperty() throws {
        let entry = try #require(ReferenceCatalog.catalog.entry("SafeCounter"))
        // A race in an answer that has its queue: "move that access inside", not "add a queue".
        #expect(entry.hints(after: "data-race").first?.en.hasPrefix("A race report names two places") == true)
        #expect(entry.hints(after: "lost-update").first?.properties.contains("lost-update") == true)
        #expect(entry.hints(after: nil).first?.en == entry.hints.first?.en)
        #expect(entry.hints(after: "no-such-property").map(\.en) == entry.hints.map(\.en))
    }

    @Test("a property no hint is written for gets no guessed hint, only where the hints are")
    func noGuessedHint() throws {
        let entry = try #require(ReferenceCatalog.catalog.entry("SafeCounter"))
        let folder = FileManager.default.temporaryDirectory
        let checker = ExerciseChecker(packageRoot: folder, catalog: ReferenceCatalog.catalog, runner: folder, terminal: .plain, language: .en)
        for property in [VerdictProperty.crash, "no-such-property"] {
            #expect(checker.hintLines(entry, property: property) == "  More hints: exercises/exercises.json")
        }
        #expect(checker.hintLines(entry, property: "deadlock").hasPrefix("  Hint: Nothing in SafeCounter needs to wait"))
    }

    @Test("the closing block lists what was checked, names the next exercise and ends with the count")
    func summary() {
        var summary = VerdictSummary()
        let catalog = ReferenceCatalog.catalog
        let ids = catalog.exercises.map(\.id)
        summary.record(Verdict(exercise: ids[0], status: .done, report: ""))
        summary.record(Verdict(exercise: ids[1], status: .failing, failedProperty: "data-race", report: ""))
        summary.record(Verdict(exercise: ids[2], status: .notStarted, report: ""))
        let text = summary.render(catalog: catalog, terminal: .plain, language: .en)
        #expect(text.contains("failing (data-race)"))
        #expect(text.contains("Next: \(ids[1])"))
        #expect(text.contains("(\(ids.count - 3) more not checked in this run)"))
        #expect(text.hasSuffix("Exercises: 1 done, 1 failing, 1 not started"))
        #expect(summary.render(catalog: catalog, terminal: .plain, language: .ja).hasSuffix("演習: 完了 1、失敗 1、未着手 1"))
    }
}

enum ReferenceCatalog {
    static let catalog = try! ExerciseCatalog.load(packageRoot: ListedVariant.packageRoot)
}
