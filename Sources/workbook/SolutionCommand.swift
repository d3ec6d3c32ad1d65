import WorkbookChecks
import WorkbookCore

/// `workbook solution ID`: the reference solution, once your answer is done — or with
/// `--force`, with a warning.
enum SolutionCommand {
    static func run(_ context: CommandContext) throws(UsageError) -> Int32 {
        let entry = try context.entry()
        let state = WorkbookState.load(context.workspace)
        let done = state.verdict(for: entry, in: context.workspace, checks: context.checks)?.status == .done
        if !done && !context.options.force {
            Console.line(context.t(Localized(
                "\(entry.id) is not done yet (as of its last check). Solve it first — swift run workbook check \(entry.id) — or ask for the answer anyway with --force.",
                ja: "\(entry.id) はまだ完了していません（前回のチェック時点）。先に解きましょう（swift run workbook check \(entry.id)）。それでも答えを見るなら --force を付けてください。")))
            return 1
        }
        guard let solution = context.workspace.contents(of: entry.solutionFile) else {
            throw UsageError(message: Localized("cannot read \(entry.solutionFile)", ja: "\(entry.solutionFile) を読めません"))
        }
        if !done {
            Console.error(context.terminal.paint(context.t(Localized(
                "--force: the reference for an exercise you have not finished. Reading it first takes away the part where you find the bug.",
                ja: "--force: まだ終えていない演習の模範解答です。先に読むと、バグを自分で見つける部分がなくなります。")), .yellow))
        }
        Console.line(context.terminal.paint("// \(entry.solutionFile)", .dim))
        Console.line(solution)
        return 0
    }
}
