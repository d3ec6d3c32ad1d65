import Foundation
import Testing
import WorkbookCore

@Suite("Finding the executables built beside the tests", .workbookSelfTest)
struct ExecutableLookupTests {
    /// Set only for the child run below: the probe prints what the lookup found there.
    static let probeVariable = "WORKBOOK_LOOKUP_PROBE"

    #if os(Linux)
    @Test("finds exercise-runner beside the test binary when the dynamic loader runs it from another folder")
    func findsRunnerUnderTheLoader() async throws {
        let testBinary = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        try #require(testBinary.lastPathComponent.hasSuffix(".xctest"), "not run by `swift test`: \(testBinary.path)")
        let runner = testBinary.deletingLastPathComponent().appendingPathComponent("exercise-runner")
        try #require(FileManager.default.isExecutableFile(atPath: runner.path), "build first: \(runner.path)")
        // The loader named in the binary itself (PT_INTERP); a static binary has none.
        let loader = try #require(Self.interpreter(of: testBinary), "\(testBinary.path) names no dynamic loader")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lookup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment[Self.probeVariable] = "1"
        environment["WORKBOOK_SELF_TEST"] = "1"
        // SwiftPM runs a Linux test binary as `<binary> --testing-library swift-testing`; here
        // the loader runs it, from `folder`.
        let child = ChildProcess(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", #"cd "$1" && shift && exec "$@""#, "sh", folder.path,
                        loader, testBinary.path, "--testing-library", "swift-testing", "--filter", "ExecutableLookupTests/probe"],
            environment: environment
        )
        // On a thread of its own: a cooperative thread blocked for the child's run starves the
        // scenarios other tests run meanwhile.
        let outcome = try await onDedicatedThread { Result { try child.run(timeoutSeconds: 120) } }.get()
        let output = outcome.standardOutput + outcome.standardError
        #expect(outcome.termination == .exited(0), "\(output)")
        let probe = Dictionary(output.split(separator: "\n").compactMap { line -> (String, String)? in
            guard line.hasPrefix("PROBE "), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[line.index(line.startIndex, offsetBy: 6)..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { first, _ in first })
        try #require(probe["found"] != nil, "the probe did not run:\n\(output)")

        #expect(probe["found"] == runner.standardizedFileURL.path)
        // Why the image is needed: the running program is the loader, which has no runner beside
        // it, and the working directory is not the package.
        let current = try #require(probe["current"])
        #expect(URL(fileURLWithPath: current).resolvingSymlinksInPath().path == URL(fileURLWithPath: loader).resolvingSymlinksInPath().path)
        #expect(current != testBinary.path)
        #expect(probe["cwd"].map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path } == folder.resolvingSymlinksInPath().path)
        #expect(probe["withoutImage"] == "not found", "found without the image: \(probe["withoutImage"] ?? "")")
        #expect(probe["bundleLookup"] == "not found", "the Bundle-based lookup found it: \(probe["bundleLookup"] ?? "")")
    }

    /// The path of the program interpreter in an ELF executable's `PT_INTERP` segment.
    static func interpreter(of binary: URL) -> String? {
        guard let file = try? FileHandle(forReadingFrom: binary) else { return nil }
        defer { try? file.close() }
        func read(_ offset: UInt64, _ count: Int) -> [UInt8]? {
            guard (try? file.seek(toOffset: offset)) != nil, let data = try? file.read(upToCount: count), data.count == count else { return nil }
            return Array(data)
        }
        func integer(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {  // little-endian
            (0..<size).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
        }
        // 64-bit little-endian ELF only (x86_64, aarch64).
        guard let header = read(0, 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2, header[5] == 1 else { return nil }
        let tableOffset = integer(header, 0x20, 8), entrySize = Int(integer(header, 0x36, 2)), count = Int(integer(header, 0x38, 2))
        for index in 0..<count {
            guard let entry = read(tableOffset + UInt64(index * entrySize), 56) else { return nil }
            guard integer(entry, 0, 4) == 3 else { continue }  // PT_INTERP
            guard let path = read(integer(entry, 8, 8), Int(integer(entry, 32, 8))) else { return nil }
            return String(decoding: path.prefix { $0 != 0 }, as: UTF8.self)
        }
        return nil
    }
    #endif

    /// Run only as the child of the test above.
    @Test("probe: prints where exercise-runner is found", .enabled(if: ProcessInfo.processInfo.environment[probeVariable] == "1"))
    func probe() {
        func show(_ result: Result<URL, ChildProcess.NotFound>) -> String {
            switch result {
            case .success(let url): url.path
            case .failure: "not found"
            }
        }
        print("PROBE current=\(ChildProcess.currentExecutable.path)")
        print("PROBE cwd=\(FileManager.default.currentDirectoryPath)")
        print("PROBE found=\(show(ChildProcess.locate(named: "exercise-runner")))")
        print("PROBE withoutImage=\(show(ChildProcess.locate(named: "exercise-runner", image: nil)))")
        print("PROBE bundleLookup=\(bundleLookup("exercise-runner")?.path ?? "not found")")
    }

    /// The lookup this replaced: beside the running program and beside each `.xctest` bundle
    /// that `Bundle.allBundles` lists, a few folders up.
    func bundleLookup(_ name: String) -> URL? {
        let starts = [ChildProcess.currentExecutable.deletingLastPathComponent()]
            + Bundle.allBundles.filter { $0.bundleURL.pathExtension == "xctest" }.map { $0.bundleURL.deletingLastPathComponent() }
        for start in starts {
            var folder = start
            for _ in 0..<4 {
                let candidate = folder.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
        }
        return nil
    }

    @Test("a missing executable's message names every place tried, in English and Japanese")
    func notFoundMessage() throws {
        let name = "no-such-program-\(UUID().uuidString)"
        let result = ChildProcess.locate(named: name)
        guard case .failure(let notFound) = result else {
            Issue.record("found \(name): \(result)")
            return
        }
        // The first place tried is beside the image that holds this test.
        let image = try #require(ChildProcess.imagePath(containing: #dsohandle))
        #expect(notFound.tried.first == image.deletingLastPathComponent().appendingPathComponent(name))
        #expect(Set(notFound.tried.map(\.path)).count == notFound.tried.count)
        for language in Language.allCases {
            let text = notFound.message.text(language)
            for place in notFound.tried { #expect(text.contains("\n  \(place.path)"), "\(language): \(text)") }
        }

        let fixed = ChildProcess.NotFound(name: "exercise-runner", tried: [URL(fileURLWithPath: "/a/debug/exercise-runner"),
                                                                         URL(fileURLWithPath: "/b/.build/debug/exercise-runner")])
        #expect(fixed.message.en == "exercise-runner was not found; looked at:\n  /a/debug/exercise-runner\n  /b/.build/debug/exercise-runner")
        #expect(fixed.message.ja == "exercise-runner が見つかりません。探した場所:\n  /a/debug/exercise-runner\n  /b/.build/debug/exercise-runner")
        let advised = fixed.message(then: Localized("Run `swift build` first.", ja: "先に `swift build` を実行してください。"))
        #expect(advised.en.hasSuffix("/b/.build/debug/exercise-runner\nRun `swift build` first."))
        #expect(advised.ja.hasSuffix("/b/.build/debug/exercise-runner\n先に `swift build` を実行してください。"))
    }
}
