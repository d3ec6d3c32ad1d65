import Foundation
import Testing
import WorkbookCore

/// The chapter texts in `chapters/en` and `chapters/ja`.
enum ChapterTexts {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let marker = "// Does not compile in Swift 6:"

    struct Block: Hashable {
        let file: String
        let line: Int
        let code: String
        var mustFail: Bool { code.hasPrefix(marker) }
    }

    static func files(_ language: String) -> [URL] {
        let folder = root.appendingPathComponent("chapters/\(language)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// The ```swift blocks of a file, with the line each starts on.
    static func blocks(in url: URL) -> [Block] {
        let lines = ((try? String(contentsOf: url, encoding: .utf8)) ?? "").components(separatedBy: "\n")
        var blocks: [Block] = [], current: [String]?, start = 0
        for (index, line) in lines.enumerated() {
            if current == nil, opensCheckedBlock(line.trimmingCharacters(in: .whitespaces)) {
                current = []
                start = index + 2
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(Block(file: "chapters/\(url.deletingLastPathComponent().lastPathComponent)/\(url.lastPathComponent)", line: start, code: current!.joined(separator: "\n") + "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Whether a fence line opens a block to type-check: every ```swift block, and on Apple
    /// platforms also ```swift apple-only (code the Linux toolchain rejects, such as a `Thread`
    /// subclass; the text says so beside it).
    static func opensCheckedBlock(_ fence: String) -> Bool {
        #if canImport(Darwin)
        return fence == "```swift" || fence == "```swift apple-only"
        #else
        return fence == "```swift"
        #endif
    }

    /// `swiftc -typecheck` in Swift 6 mode; nil when it type-checks, else the first errors.
    static func typecheck(_ code: String) throws -> String? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chapter-block-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("main.swift")
        try code.write(to: file, atomically: true, encoding: .utf8)
        #if canImport(Darwin)
        let command = ["xcrun", "swiftc"]
        #else
        let command = ["swiftc"]
        #endif
        let outcome = try ChildProcess(executable: URL(fileURLWithPath: "/usr/bin/env"),
                                       arguments: command + ["-typecheck", "-swift-version", "6", file.path])
            .run(timeoutSeconds: 120)
        if case .exited(0) = outcome.termination { return nil }
        let errors = outcome.standardError.split(separator: "\n").filter { $0.contains("error:") }.prefix(3)
        return errors.isEmpty ? outcome.standardError : errors.joined(separator: "\n")
    }
}

@Suite("Chapter texts", .workbookSelfTest)
struct ChapterTextTests {
    @Test("every chapter text exists in English and Japanese, with the same headings and code blocks")
    func bothLanguages() throws {
        let english = ChapterTexts.files("en").map(\.lastPathComponent)
        let japanese = ChapterTexts.files("ja").map(\.lastPathComponent)
        #expect(!english.isEmpty)
        #expect(english == japanese)
        for name in english {
            let en = try String(contentsOf: ChapterTexts.root.appendingPathComponent("chapters/en/\(name)"), encoding: .utf8)
            let ja = try String(contentsOf: ChapterTexts.root.appendingPathComponent("chapters/ja/\(name)"), encoding: .utf8)
            func headings(_ text: String) -> Int { text.components(separatedBy: "\n").filter { $0.hasPrefix("## ") }.count }
            #expect(headings(en) == headings(ja), "\(name): \(headings(en)) headings in en, \(headings(ja)) in ja")
            let enBlocks = ChapterTexts.blocks(in: ChapterTexts.root.appendingPathComponent("chapters/en/\(name)"))
            let jaBlocks = ChapterTexts.blocks(in: ChapterTexts.root.appendingPathComponent("chapters/ja/\(name)"))
            #expect(enBlocks.count == jaBlocks.count, "\(name): \(enBlocks.count) Swift blocks in en, \(jaBlocks.count) in ja")
        }
    }

    @Test("every Swift block type-checks in Swift 6 mode, and every block marked as failing fails")
    func swiftBlocksCompile() async throws {
        var unique: [String: ChapterTexts.Block] = [:]
        for language in ["en", "ja"] {
            for file in ChapterTexts.files(language) {
                for block in ChapterTexts.blocks(in: file) where unique[block.code] == nil { unique[block.code] = block }
            }
        }
        let blocks = Array(unique.values)
        #expect(!blocks.isEmpty)
        // Two compilers at a time, one per core.
        let results = Locked<[(ChapterTexts.Block, Result<String?, any Error>)]>([])
        let next = Locked(0)
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                while true {
                    let index = next.withLock { value -> Int in defer { value += 1 }; return value }
                    guard index < blocks.count else { break }
                    let result = Result { try ChapterTexts.typecheck(blocks[index].code) }
                    results.withLock { $0.append((blocks[index], result)) }
                }
                done.leave()
            }
        }
        // Waited for on a thread of its own: a cooperative thread blocked for the minute the
        // compilers take starved the scenarios other tests ran meanwhile (seen in CI: chapter 04's
        // GCD way, whose server answers from tasks, never called back within 30 s).
        await onDedicatedThread { done.wait() }
        for (block, result) in results.current {
            switch result {
            case let .failure(error):
                Issue.record("\(block.file):\(block.line): could not run swiftc: \(error)")
            case let .success(errors?) where !block.mustFail:
                Issue.record("\(block.file):\(block.line): the block does not compile:\n\(errors)")
            case .success(nil) where block.mustFail:
                Issue.record("\(block.file):\(block.line): the block is marked \"\(ChapterTexts.marker)\" but compiles")
            default:
                break
            }
        }
    }
}
