import Foundation
import WorkbookChecks
import WorkbookCore

/// `workbook watch`: checks an exercise each time its file is saved, until `q` or end of input.
///
/// Saves are noticed by looking at the files (`FileWatcher`), so a rename-saving editor is seen
/// like any other. A file that does not compile shows the compiler's messages and the watch goes
/// on; several files saved at once are built once and checked together.
enum WatchCommand {
    /// How often the files are looked at: a save is noticed within two looks (0.2 s), which
    /// costs a `stat` of each exercise file ten times a second.
    static let lookInterval = 0.1

    static func run(_ context: CommandContext) throws(UsageError) -> Int32 {
        let workspace = context.workspace
        let entries = workspace.catalog.exercises
        var watcher = FileWatcher(paths: entries.map { workspace.url($0.file).path })
        let keys = Locked<[WatchInput.Key]>([])
        let busy = Locked(false)
        let input = WatchInput.start { key in
            keys.withLock { $0.append(key) }
            guard busy.current else { return }
            if key == .quit {
                // At once: the check in progress (a build, or a deadlock's wait) is stopped, and
                // its verdict is not kept.
                Console.line(context.t(Localized("Stopped watching (the check in progress was stopped).", ja: "監視を終了しました（実行中のチェックは止めました）。")))
                TerminalMode.restore()
                ChildProcess.interruptAll()
                exit(0)
            } else if key == .end {
                Console.line(context.terminal.paint(context.t(Localized("(quitting once this check ends…)", ja: "（このチェックが終わったら終了します…）")), .dim))
            }
        }
        defer { input.restore() }

        var state = WorkbookState.load(workspace)
        var current = try? CheckCommand.nextUnfinished(context, state: state)
        /// A check, during which a `q` is answered with "quitting once this check ends".
        func checkWhileBusy(_ entries: [ExerciseCatalog.Entry]) {
            busy.withLock { $0 = true }
            defer { busy.withLock { $0 = false } }
            check(entries, context, state: &state)
        }
        Console.line(banner(context, files: entries.count, keyByKey: input.fromTerminal, next: current))

        while true {
            for key in keys.withLock({ pending -> [WatchInput.Key] in defer { pending = [] }; return pending }) {
                switch key {
                case .quit, .end:
                    Console.line(context.t(Localized("Stopped watching.", ja: "監視を終了しました。")))
                    return 0
                case .recheck:
                    guard let entry = current else { continue }
                    checkWhileBusy([entry])
                case .hint:
                    guard let entry = current else { continue }
                    HintCommand.show(entry, context, again: context.t(Localized("h", ja: "h")))
                case let .other(text):
                    Console.line(context.t(Localized("'\(text)': q quits, r re-checks \(current?.id ?? "the exercise"), h shows a hint",
                                                     ja: "'\(text)': q で終了、r で \(current?.id ?? "演習") を再チェック、h でヒント")))
                }
            }
            let changes = watcher.poll()
            var saved: [ExerciseCatalog.Entry] = []
            for change in changes {
                switch change {
                case let .saved(path):
                    if let entry = entries.first(where: { workspace.url($0.file).path == path }) { saved.append(entry) }
                case let .removed(path):
                    let file = path.replacingOccurrences(of: workspace.root.path + "/", with: "")
                    let id = entries.first { workspace.url($0.file).path == path }?.id ?? "ID"
                    Console.line(context.terminal.paint(context.t(Localized(
                        "\(file) is gone: 'swift run workbook reset \(id)' puts the stub back (git has it too). Still watching.",
                        ja: "\(file) がありません。'swift run workbook reset \(id)' でスタブに戻せます（git にもあります）。監視を続けます。")), .yellow))
                }
            }
            if !saved.isEmpty {
                current = saved.last
                checkWhileBusy(saved)
            }
            Thread.sleep(forTimeInterval: lookInterval)
        }
    }

    /// What is watched and how to stop, before anything is checked.
    static func banner(_ context: CommandContext, files: Int, keyByKey: Bool, next: ExerciseCatalog.Entry?) -> String {
        let keys = keyByKey
            ? Localized("Keys: q quit · r check again · h hint.", ja: "キー: q 終了 · r もう一度チェック · h ヒント。")
            : Localized("Type q (or end the input) to quit, r to check again, h for a hint.", ja: "q（または入力の終わり）で終了、r でもう一度チェック、h でヒント。")
        var lines = [
            context.terminal.paint(context.t(Localized(
                "Watching \(files) exercise files in exercises/Exercises/: save one to check it.",
                ja: "exercises/Exercises/ の演習ファイル \(files) 個を監視しています。保存するとチェックします。")), .bold),
            context.t(keys),
        ]
        if let next {
            lines.append(context.t(Localized("Next: \(next.id) — \(next.file)", ja: "次: \(next.id) — \(next.file)")))
        }
        return lines.joined(separator: "\n")
    }

    /// Checks `entries` after a save, between two rules that say when and what.
    static func check(_ entries: [ExerciseCatalog.Entry], _ context: CommandContext, state: inout WorkbookState) {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        let time = formatter.string(from: Date())
        let names = entries.map(\.id).joined(separator: ", ")
        Console.line(context.terminal.paint("── \(time) \(names) " + String(repeating: "─", count: max(3, min(60, context.terminal.width) - displayWidth(time + names) - 5)), .bold))
        do {
            let verdicts = try CheckCommand.check(entries, context, state: &state)
            guard !verdicts.isEmpty else {
                Console.line(context.terminal.paint(context.t(Localized("Still watching: fix it and save again.", ja: "監視を続けています。直して保存してください。")), .dim))
                return
            }
            // The verdicts just given count even if a file was saved again meanwhile (that save
            // is checked next).
            var known = context.cachedVerdicts(state)
            for verdict in verdicts { known[verdict.exercise] = verdict }
            let summary = context.summary(known)
            Console.line(context.terminal.paint(summary.countLine(language: context.language), .dim))
            if let next = summary.next(in: context.workspace.catalog, includingUnchecked: true), verdicts.allSatisfy({ $0.status == .done }) {
                Console.line(context.t(Localized("Next: \(next.id) — \(next.file)", ja: "次: \(next.id) — \(next.file)")))
            }
        } catch {
            Console.error("workbook: " + error.message.text(context.language))
        }
    }
}
