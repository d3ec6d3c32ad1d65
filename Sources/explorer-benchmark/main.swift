import Foundation
import WorkbookExplorer

// Measures how many schedules per second the explorer runs on small scenarios.
//   swift run -c release explorer-benchmark [seconds]

actor Account {
    var balance = 0
    func read() -> Int { balance }
    func write(_ value: Int) { balance = value }
}

@Sendable func twoTasks() async throws -> String {
    let account = Account()
    async let a: Void = { let v = await account.read(); await account.write(v + 1) }()
    async let b: Void = { let v = await account.read(); await account.write(v + 1) }()
    _ = await (a, b)
    return "\(await account.balance)"
}

@Sendable func threeTasks() async throws -> String {
    let account = Account()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<3 { group.addTask { let v = await account.read(); await account.write(v + 1) } }
    }
    return "\(await account.balance)"
}

/// Three tasks, each ten read-then-write pairs on one actor: about 60 steps a schedule.
@Sendable func threeTasksLong() async throws -> String {
    let account = Account()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<3 {
            group.addTask { for _ in 0..<10 { let v = await account.read(); await account.write(v + 1) } }
        }
    }
    return "\(await account.balance)"
}

// `--trap-probe`: explores a body that resumes a continuation twice, which kills the process;
// WorkbookExplorerTests runs it to see the schedule survive in the journal.
// `--trap-probe-replay TOKEN`: replays that schedule up to the step that trapped, and prints
// the steps and who the trapping step would run.
@Sendable func resumesTwice() async throws -> String {
    nameNextTasks("A")
    async let resumedTwice: Int = withCheckedContinuation { continuation in
        continuation.resume(returning: 1)
        continuation.resume(returning: 2)  // the trap: a continuation resumed twice
    }
    return "\(await resumedTwice)"
}
switch (CommandLine.arguments.dropFirst().first, CommandLine.arguments.dropFirst(2).first.flatMap(ReplayToken.init)) {
case ("--trap-probe", _):
    _ = Explorer.explore(.exhaustive(maxPreemptions: 1), resumesTwice)
    exit(0)
case let ("--trap-probe-replay", token?):
    let report = Explorer.replay(token, stoppingBefore: token.choices.count, resumesTwice)
    for step in report.steps { print("step \(step.number): \(step.who)") }
    print("step \(token.choices.count) would run: \(report.next.map(String.init(describing:)) ?? "?") (\(report.outcome))")
    exit(0)
default:
    break
}

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 2
#if DEBUG
let configuration = "debug"
#else
let configuration = "release"
#endif
print("\(configuration) build")
for (name, body) in [("2 tasks, 1 actor", twoTasks), ("3 tasks in a group, 1 actor", threeTasks),
                     ("3 tasks × 10 read/write pairs (~60 steps)", threeTasksLong)] {
    let budget = Explorer.Budget(maxSchedules: .max, maxSeconds: seconds)
    let random = Explorer.explore(.random(seed: 1), budget: budget, body)
    let exhaustive = Explorer.explore(.exhaustive(maxPreemptions: 2), budget: budget, body)
    let rate = Double(random.schedulesRun) / random.seconds
    let steps = random.failure?.steps.count ?? Explorer.replay(ReplayToken(choices: []), body).steps.count
    print("\(name): random \(Int(rate)) schedules/s (\(random.schedulesRun) in \(String(format: "%.2f", random.seconds)) s, \(steps) steps each); exhaustive bound 2: \(exhaustive.schedulesRun) schedules in \(String(format: "%.3f", exhaustive.seconds)) s")
}
