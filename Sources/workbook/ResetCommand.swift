import Foundation
import WorkbookChecks
import WorkbookCore

/// `workbook reset ID`: puts the stub back, after keeping the learner's file as a timestamped
/// backup in `exercises/backups/` (outside every target, untouched by a `git pull`).
enum ResetCommand {
    static func run(_ context: CommandContext) throws(UsageError) -> Int32 {
        let entry = try context.entry()
        let stub = try Stubs.original(of: entry.file, in: context.workspace)
        let current = context.workspace.contents(of: entry.file)
        if current == stub {
            Console.line(context.t(Localized("\(entry.id) is the stub already: nothing to reset.", ja: "\(entry.id) はすでにスタブのままです。リセットするものはありません。")))
            return 0
        }
        var backupPath: String?
        if let current {
            let stamp = timestamp()
            let path = "exercises/backups/\(entry.id)-\(stamp).swift"
            do {
                try FileManager.default.createDirectory(at: context.workspace.url("exercises/backups"), withIntermediateDirectories: true)
                try current.write(to: context.workspace.url(path), atomically: true, encoding: .utf8)
                guard context.workspace.contents(of: path) == current else { throw CocoaError(.fileWriteUnknown) }
            } catch {
                throw UsageError(message: Localized("could not keep a backup at \(path) (\(error)); nothing was reset",
                                                    ja: "\(path) にバックアップを作れなかったため（\(error)）、リセットしていません"))
            }
            backupPath = path
        }
        do {
            try stub.write(to: context.workspace.url(entry.file), atomically: true, encoding: .utf8)
        } catch {
            throw UsageError(message: Localized("could not write \(entry.file): \(error)", ja: "\(entry.file) に書き込めません: \(error)"))
        }
        Console.line(context.t(Localized("\(entry.file) is the stub again.", ja: "\(entry.file) をスタブに戻しました。")))
        if let backupPath {
            Console.line(context.t(Localized("Your version is kept in \(backupPath) (diff \(backupPath) \(entry.file)).",
                                             ja: "あなたの版は \(backupPath) に残してあります（diff \(backupPath) \(entry.file)）。")))
        }
        return 0
    }

    private static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        var stamp = formatter.string(from: Date())
        // Two resets in one second keep both backups.
        stamp += String(format: "-%03d", Int(Date().timeIntervalSince1970 * 1000) % 1000)
        return stamp
    }
}

/// Where the original stubs come from: git. The version on the branch this clone came from if
/// it still calls `todo()`, else the newest version in the file's history that does.
enum Stubs {
    static func original(of path: String, in workspace: Workspace) throws(UsageError) -> String {
        for revision in ["@{upstream}", "origin/HEAD", "origin/main"] {
            if let text = git(["show", "\(revision):\(path)"], in: workspace), isStub(text) { return text }
        }
        let history = git(["log", "--format=%H", "--", path], in: workspace)?.split(separator: "\n") ?? []
        for commit in history {
            if let text = git(["show", "\(commit):\(path)"], in: workspace), isStub(text) { return text }
        }
        throw UsageError(message: Localized(
            "found no stub of \(path) in git (a version that still calls todo()); is this a git clone of the workbook?",
            ja: "git の中に \(path) のスタブ（まだ todo() を呼ぶ版）が見つかりません。ワークブックを git clone したフォルダですか？"))
    }

    static func isStub(_ text: String) -> Bool { text.contains("todo()") }

    private static func git(_ arguments: [String], in workspace: Workspace) -> String? {
        guard let outcome = try? ChildProcess(executable: URL(fileURLWithPath: "/usr/bin/env"),
                                              arguments: ["git", "-C", workspace.root.path] + arguments).run(timeoutSeconds: 30),
              outcome.termination == .exited(0) else { return nil }
        return outcome.standardOutput
    }
}
