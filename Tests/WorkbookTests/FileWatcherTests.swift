import Foundation
import Testing
@testable import workbook

@Suite("watch notices every way an editor saves")
struct FileWatcherTests {
    /// A folder with one exercise-like file, and a watcher on it.
    struct Folder {
        let path: String
        var file: String { path + "/Answer.swift" }

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try "let answer = 1\n".write(toFile: file, atomically: false, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Looks every 50 ms until a change settles; nil after `seconds`.
    func nextChange(_ watcher: inout FileWatcher, within seconds: Double = 2) -> FileWatcher.Change? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let change = watcher.poll().first { return change }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    @Test("a save in place is one change, seen within two seconds")
    func inPlace() throws {
        let folder = try Folder()
        defer { folder.remove() }
        var watcher = FileWatcher(paths: [folder.file])
        #expect(watcher.poll().isEmpty)
        try "let answer = 2\n".write(toFile: folder.file, atomically: false, encoding: .utf8)
        #expect(nextChange(&watcher) == .saved(folder.file))
        #expect(nextChange(&watcher, within: 0.3) == nil, "one save, one change")
    }

    @Test("a save by rename (a new file moved over the old one, as Xcode and VS Code do) is seen")
    func byRename() throws {
        let folder = try Folder()
        defer { folder.remove() }
        var watcher = FileWatcher(paths: [folder.file])
        let temporary = folder.path + "/.Answer.swift.tmp"
        try "let answer = 3\n".write(toFile: temporary, atomically: false, encoding: .utf8)
        #expect(rename(temporary, folder.file) == 0)
        #expect(nextChange(&watcher) == .saved(folder.file))
    }

    @Test("vim's save (the old file moved to a backup, the new one written, the backup deleted) is seen once")
    func vimStyle() throws {
        let folder = try Folder()
        defer { folder.remove() }
        var watcher = FileWatcher(paths: [folder.file])
        #expect(rename(folder.file, folder.file + "~") == 0)
        #expect(watcher.poll().isEmpty, "a file gone for a moment is not reported at once")
        try "let answer = 4\n".write(toFile: folder.file, atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: folder.file + "~")
        #expect(nextChange(&watcher) == .saved(folder.file))
        #expect(nextChange(&watcher, within: 0.3) == nil)
    }

    @Test("a save of the same length within the same second is still seen (the modification time has nanoseconds)")
    func sameSize() throws {
        let folder = try Folder()
        defer { folder.remove() }
        var watcher = FileWatcher(paths: [folder.file])
        try "let answer = 9\n".write(toFile: folder.file, atomically: false, encoding: .utf8)
        #expect(nextChange(&watcher) == .saved(folder.file))
    }

    @Test("a file deleted and not put back is reported as removed, and its return as a save")
    func removed() throws {
        let folder = try Folder()
        defer { folder.remove() }
        var watcher = FileWatcher(paths: [folder.file])
        try FileManager.default.removeItem(atPath: folder.file)
        #expect(nextChange(&watcher) == .removed(folder.file))
        try "let answer = 5\n".write(toFile: folder.file, atomically: false, encoding: .utf8)
        #expect(nextChange(&watcher) == .saved(folder.file))
    }

    @Test("keys and lines: q quits, r or Enter checks again, h is a hint, anything else is explained")
    func keys() {
        #expect(WatchInput.key("q") == .quit && WatchInput.key("quit") == .quit && WatchInput.key("Q") == .quit)
        #expect(WatchInput.key("r") == .recheck && WatchInput.key("") == .recheck && WatchInput.key("\n") == .recheck)
        #expect(WatchInput.key("h") == .hint)
        #expect(WatchInput.key("x") == .other("x"))
        #expect(WatchInput.key("ｑ") == .quit && WatchInput.key("ｈ") == .hint, "full-width letters from a Japanese input method")
    }

    @Test("a terminal's bytes become whole characters; arrow keys, control characters and spaces are dropped")
    func keyDecoder() {
        func typed(_ bytes: [UInt8]) -> [String] {
            var decoder = WatchInput.KeyDecoder()
            return bytes.compactMap { decoder.add($0) }
        }
        #expect(typed(Array("q".utf8)) == ["q"])
        #expect(typed(Array("ｑ".utf8)) == ["ｑ"], "three bytes, one key")
        #expect(typed([27, 91, 65, 113]) == ["q"], "Up arrow (ESC [ A), then q")
        #expect(typed([27, 79, 80, 104]) == ["h"], "F1 (ESC O P), then h")
        #expect(typed([12, 9, 32, 13]) == ["\n"], "Ctrl-L, Tab and Space dropped; Enter kept")
    }
}
