import Foundation
import WorkbookCore

/// Scenario 1, part 4: the slides' program compiled with ThreadSanitizer, run, and its report read.
///
/// The chapter program itself is not built with TSan (it would slow every scenario), so the
/// probe compiles the slides' code on its own with the toolchain that runs `swift run`: in the
/// Swift 5 language mode, the mode the slides' code was written in (Swift 6 rejects it, part 3).
enum SanitizerProbe {
    static let fileName = "counter.swift"

    /// The slides' counter and two blocks, on fresh counters for up to 5 s: TSan needs the two
    /// accesses on two threads with nothing ordering them (not at the same instant), and with
    /// `halt_on_error=1` the program ends at the first report. When one pool thread runs both
    /// blocks they are ordered: 20 counters gave a report in about half the runs here, 200 in 20 of
    /// 20 on a quiet machine, and none once when the machine was busy — hence a time limit instead.
    static let program = """
    import Dispatch

    final class Counter {
        var count = 0
        func increment() -> Int {
            count += 1
            return count
        }
    }

    let giveUp = DispatchTime.now() + 5
    while DispatchTime.now() < giveUp {
        let counter = Counter()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { print(counter.increment()) }
        DispatchQueue.global().async(group: group) { print(counter.increment()) }
        group.wait()
    }
    """

    /// One access as TSan reported it.
    struct Access: Sendable, Equatable {
        /// `Modifying access of Swift variable by thread T1`, the address left out.
        let what: String
        /// The innermost frame: `Counter.increment()`, with its line in the program if TSan gave one.
        let function: String
        let line: Int?
        /// The first frame with a line in the program (the caller, when the innermost has none).
        let calledFromLine: Int?
    }

    struct Report: Sendable {
        let kind: String
        let accesses: [Access]
    }

    /// `swiftc` (Linux) or `xcrun swiftc` (Apple platforms), through `/usr/bin/env`.
    private static func toolCommand(_ tool: String) -> [String] {
        #if canImport(Darwin)
        return ["xcrun", tool]
        #else
        return [tool]
        #endif
    }

    static func run(_ context: ScenarioContext) async {
        context.say(Localized("4) ThreadSanitizer: the slides' program, `swiftc -swift-version 5 -sanitize=thread`, then run:",
                              ja: "4) ThreadSanitizer: スライドのプログラムを `swiftc -swift-version 5 -sanitize=thread` でコンパイルして実行:"))
        let lane = Localized("ThreadSanitizer", ja: "ThreadSanitizer")
        context.trace.begin(Localized("compile and run", ja: "コンパイルと実行"), lane: lane)
        let outcome = await onDedicatedThread { compileAndRun() }
        context.trace.end(Localized("compile and run", ja: "コンパイルと実行"), lane: lane)
        switch outcome {
        case let .failure(problem):
            context.note("tsan", "unavailable")
            context.say(Localized("    Not run: \(problem.en)", ja: "    実行できませんでした: \(problem.ja)"))
        case let .success(standardError):
            guard let report = parse(standardError, demangle: demangler()) else {
                context.note("tsan", "no report")
                context.say(Localized("    ThreadSanitizer reported nothing in 5 s (each time, one thread may have run both blocks). Run it again.",
                                      ja: "    ThreadSanitizer は 5 秒間何も報告しませんでした（毎回 1 本のスレッドが両方のブロックを実行したのかもしれません）。もう一度実行してください。"))
                return
            }
            context.note("tsan", "reported")
            context.note("tsan kind", report.kind)
            context.note("tsan accesses", String(report.accesses.count))
            context.note("tsan functions", report.accesses.map(\.function).joined(separator: " | "))
            context.note("tsan lines", report.accesses.map { $0.line.map(String.init) ?? "-" }.joined(separator: " | "))
            let source = program.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            func code(_ line: Int) -> String {
                line >= 1 && line <= source.count ? source[line - 1].trimmingCharacters(in: .whitespaces) : ""
            }
            context.quote("WARNING: ThreadSanitizer: \(report.kind)")
            for access in report.accesses {
                context.quote("  \(access.what)")
                if let line = access.line {
                    context.quote("    \(access.function)  \(fileName):\(line)  \(code(line))")
                } else if let caller = access.calledFromLine {
                    context.quote("    \(access.function)  \(fileName)  ← \(fileName):\(caller)")
                } else {
                    context.quote("    \(access.function)")
                }
            }
            context.say(Localized(
                "    Two accesses to `count` from two threads, at least one a write, with nothing ordering them: TSan names both, with their threads and places, though they did not have to overlap in time.",
                ja: "    2 本のスレッドからの `count` への 2 つのアクセスで、少なくとも一方は書き込み、その間に順序付けがありません。TSan は、時間的に重ならなくても、両方をスレッドと場所付きで名指しします。"))
            context.trace.record(.verbatim(report.kind), lane: lane)
        }
    }

    /// Compiles and runs the program; its standard error, or why it could not.
    static func compileAndRun() -> Result<String, Problem> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ch07-tsan-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let source = folder.appendingPathComponent(fileName), binary = folder.appendingPathComponent("counter")
            try program.write(to: source, atomically: true, encoding: .utf8)
            let env = URL(fileURLWithPath: "/usr/bin/env")
            let compile = try ChildProcess(executable: env, arguments: toolCommand("swiftc") + [
                "-swift-version", "5", "-sanitize=thread", "-g", "-Onone", source.path, "-o", binary.path,
            ]).run(timeoutSeconds: 120)
            guard case .exited(0) = compile.termination else {
                let first = compile.standardError.split(separator: "\n").first.map(String.init) ?? "\(compile.termination)"
                return .failure(Problem(Localized("swiftc failed: \(first)", ja: "swiftc が失敗しました: \(first)")))
            }
            var environment = ProcessInfo.processInfo.environment
            environment["TSAN_OPTIONS"] = "halt_on_error=1 atexit_sleep_ms=0"
            let run = try ChildProcess(executable: binary, arguments: [], environment: environment).run(timeoutSeconds: 60)
            return .success(run.standardError)
        } catch {
            return .failure(Problem(Localized("\(error)", ja: "\(error)")))
        }
    }

    struct Problem: Error, Sendable {
        let message: Localized
        init(_ message: Localized) { self.message = message }
        var en: String { message.en }
        var ja: String { message.ja }
    }

    /// Demangles Swift symbols with the toolchain's `swift-demangle`, or leaves them as they are.
    static func demangler() -> @Sendable ([String]) -> [String: String] {
        { symbols in
            guard !symbols.isEmpty,
                  let outcome = try? ChildProcess(executable: URL(fileURLWithPath: "/usr/bin/env"),
                                                  arguments: toolCommand("swift-demangle") + ["--simplified"])
                    .run(timeoutSeconds: 20, input: symbols.joined(separator: "\n") + "\n"),
                  case .exited(0) = outcome.termination else { return [:] }
            let lines = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var names: [String: String] = [:]
            for (symbol, name) in zip(symbols, lines) where !name.isEmpty { names[symbol] = name }
            return names
        }
    }

    /// The first report in `standardError`: its kind and, for each access, its innermost frame.
    static func parse(_ standardError: String, demangle: ([String]) -> [String: String] = { _ in [:] }) -> Report? {
        let lines = standardError.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("WARNING: ThreadSanitizer:") }) else { return nil }
        var kind = String(lines[start].dropFirst("WARNING: ThreadSanitizer:".count)).trimmingCharacters(in: .whitespaces)
        if let pid = kind.range(of: " (pid=") { kind = String(kind[..<pid.lowerBound]) }

        struct Frame { let symbol: String; let line: Int? }
        var accesses: [(what: String, frames: [Frame])] = []
        var inAccess = false
        for line in lines[(start + 1)...] {
            if line.hasPrefix("SUMMARY:") || line.hasPrefix("====") { break }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("  ") && !line.hasPrefix("    ") {
                // "Modifying access of Swift variable at 0x… by thread T1:", "Previous write of size 1 at 0x… by thread T3:"
                inAccess = trimmed.contains(" by ") && trimmed.hasSuffix(":") && !trimmed.hasPrefix("Location is")
                    && !trimmed.hasPrefix("Thread ") && !trimmed.hasPrefix("Mutex ")
                if inAccess {
                    var what = String(trimmed.dropLast())
                    if let at = what.range(of: " at 0x"), let by = what.range(of: " by ") {
                        what = String(what[..<at.lowerBound]) + String(what[by.lowerBound...])
                    }
                    accesses.append((what, []))
                }
                continue
            }
            guard inAccess, trimmed.hasPrefix("#"), !accesses.isEmpty else { continue }
            // "#0 $s7counter7CounterC9incrementSiyF /tmp/…/counter.swift:6:15 (counter+0x…)"
            let words = trimmed.split(separator: " ").map(String.init)
            guard words.count >= 3 else { continue }
            let place = words[2]
            var lineNumber: Int?
            if place.contains(fileName) {    // a frame outside the program has no line of it
                let parts = place.split(separator: ":")
                if parts.count >= 2 { lineNumber = Int(parts[1]) }
            }
            accesses[accesses.count - 1].frames.append(Frame(symbol: words[1], line: lineNumber))
        }
        let symbols = Array(Set(accesses.compactMap { $0.frames.first?.symbol }.filter { $0.hasPrefix("$s") }))
        let names = demangle(symbols)
        return Report(kind: kind, accesses: accesses.map { access in
            let inner = access.frames.first
            let caller = access.frames.dropFirst().first { $0.line != nil }?.line
            return Access(what: access.what, function: inner.map { names[$0.symbol] ?? $0.symbol } ?? "?",
                          line: inner?.line, calledFromLine: caller)
        })
    }
}
