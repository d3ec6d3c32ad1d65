import Dispatch
import Foundation
import WorkbookCore

extension Chapter01 {
    /// One contest: hogs at one QoS on every core, and one block of fixed work at another.
    struct QoSContest: Sendable {
        let hogs: DispatchQoS.QoSClass
        let probe: DispatchQoS.QoSClass
        /// Milliseconds the probe's work took with nothing else of ours running.
        let alone: Double
        /// Under the hogs: milliseconds it took, and the share of a core it got meanwhile (its
        /// CPU time over its running time); nil when it did not finish within the time limit.
        let contended: (milliseconds: Double, cpuShare: Double)?
    }

    /// Part two of scenario 5: QoS changes nothing on an idle machine, so make the CPU busy.
    /// Every core gets a hog (a block that spins until told to stop) at one class; then one
    /// block with a fixed amount of work runs at another class. Its CPU time over its running
    /// time is the share of a core it got — a figure that other load on the machine changes
    /// far less than the milliseconds.
    static func runQoSContention(_ context: ScenarioContext) throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        context.say(Localized(
            "Under contention: \(cores) hog(s) at one class keep every core busy; one block of fixed work runs at another class.",
            ja: "CPU の取り合い: あるクラスで CPU を占有するブロック（\(cores) 個）ですべてのコアを埋め、別のクラスで決まった量の処理を 1 つ実行します。"))
        let work = calibratedWork(milliseconds: 5)
        let contests = [
            try contest(hogs: .background, probe: .userInitiated, cores: cores, work: work, context),
            try contest(hogs: .userInitiated, probe: .background, cores: cores, work: work, context),
        ]
        let headers = [Localized("hogs (every core)", ja: "占有する側（全コア）"), Localized("block", ja: "計測するブロック"),
                       Localized("alone", ja: "単独"), Localized("contended", ja: "取り合い中"),
                       Localized("CPU share", ja: "CPU の割合")]
            .map { $0.text(context.language) }
        context.show("  " + padded(headers[0], to: 20) + padded(headers[1], to: 18) + padded(headers[2], to: 10)
                     + padded(headers[3], to: 12) + headers[4])
        for contest in contests {
            let contended = contest.contended.map { (formatMilliseconds($0.milliseconds), String(format: "%.0f%%", $0.cpuShare * 100)) }
                ?? (Localized("> 2 s", ja: "2 秒超").text(context.language), "-")
            context.show("  " + padded(".\(contest.hogs)", to: 20) + padded(".\(contest.probe)", to: 18)
                         + padded(formatMilliseconds(contest.alone), to: 10) + padded(contended.0, to: 12) + contended.1)
            context.note("share \(contest.probe)", contest.contended.map { String(format: "%.3f", $0.cpuShare) } ?? "starved")
        }
        let shares = Dictionary(uniqueKeysWithValues: contests.map { ("\($0.probe)", $0.contended?.cpuShare ?? 0) })
        guard (shares["userInitiated"] ?? 0) > (shares["background"] ?? 0) else {
            context.say(Localized(
                "This time the shares do not show the difference: other work on the machine took the cores the hogs were meant to fill. Run it again; the shares, not the milliseconds, are what to compare.",
                ja: "今回は割合に差が出ませんでした。マシン上のほかの処理が、ブロックで埋めるはずだったコアを使っていたのです。もう一度実行してください。比べるのはミリ秒ではなく割合です。"))
            return
        }
        context.say(Localized(
            "Read the CPU share: the userInitiated block kept most of a core beside the background hogs, while the background block got a small slice beside userInitiated ones and took many times longer. QoS did not decide who started first; it decided who got the CPU while both wanted it. Other load on the machine changes the milliseconds, much less the shares.",
            ja: "CPU の割合を読んでください。`.userInitiated` のブロックは `.background` のブロックの横でもコアの大部分を使えましたが、`.background` のブロックは `.userInitiated` のブロックの横ではわずかしか使えず、何倍も時間がかかりました。QoS はどちらが先に始まるかを決めたのではなく、両方が CPU を欲しがっているときに誰が CPU を使えるかを決めたのです。マシンのほかの負荷でミリ秒は変わりますが、割合はそれほど変わりません。"))
    }

    /// How many rounds of `busyWork` take about `milliseconds` on this machine, in this build.
    private static func calibratedWork(milliseconds: Int) -> Int {
        let rounds = 20_000
        let started = MonotonicClock.now()
        busyWork(rounds)
        let perRound = max(1, MonotonicClock.now() - started) / UInt64(rounds)
        return max(1_000, Int(UInt64(milliseconds) * 1_000_000 / max(1, perRound)))
    }

    /// CPU work whose amount is fixed (unlike `spin`, which ends at a time whatever share it got).
    @inline(never)
    private static func busyWork(_ rounds: Int) {
        var value: UInt64 = 1
        for round in 0..<rounds { value = value &* 6364136223846793005 &+ UInt64(round) }
        withExtendedLifetime(value) {}
    }

    private static func contest(hogs hogClass: DispatchQoS.QoSClass, probe probeClass: DispatchQoS.QoSClass,
                                cores: Int, work: Int, _ context: ScenarioContext) throws -> QoSContest {
        // The same work alone, at the probe's class, for comparison.
        let alone = try timedProbe(probeClass, work: work, context, label: ".\(probeClass)", limitSeconds: 5)?.milliseconds ?? 0

        let stop = Locked(false)
        let hogsRunning = DispatchSemaphore(value: 0)
        let hogsDone = DispatchGroup()
        for _ in 0..<cores {
            DispatchQueue.global(qos: hogClass).async(group: hogsDone) {
                let lane = context.trace.currentThreadLane()
                context.trace.begin(Localized(".\(hogClass) hog", ja: ".\(hogClass) の負荷"), lane: lane)
                hogsRunning.signal()
                while !stop.current { busyWork(10_000) }
                context.trace.end(Localized(".\(hogClass) hog", ja: ".\(hogClass) の負荷"), lane: lane)
            }
        }
        defer {
            stop.withLock { $0 = true }
            _ = hogsDone.wait(timeout: .now() + 5)
        }
        for _ in 0..<cores {
            try wait(for: hogsRunning, Localized("the hogs did not start", ja: "CPU を占有するブロックが始まりませんでした"))
        }
        let timed = try timedProbe(probeClass, work: work, context, label: ".\(probeClass)", limitSeconds: 2)
        return QoSContest(hogs: hogClass, probe: probeClass, alone: alone, contended: timed)
    }

    /// Runs `work` rounds on `global(qos:)`; the milliseconds it ran and its CPU time over that,
    /// or nil when it did not finish within `limitSeconds`.
    private static func timedProbe(_ qosClass: DispatchQoS.QoSClass, work: Int, _ context: ScenarioContext,
                                   label: String, limitSeconds: Double) throws -> (milliseconds: Double, cpuShare: Double)? {
        let finished = DispatchSemaphore(value: 0)
        let measured = Locked<(milliseconds: Double, cpuShare: Double)>((0, 0))
        DispatchQueue.global(qos: qosClass).async {
            let lane = context.trace.currentThreadLane()
            let began = MonotonicClock.now(), cpuBefore = ThreadUsage.current()
            context.trace.span(label, lane: lane) { busyWork(work) }
            let cpu = (ThreadUsage.current() - cpuBefore).cpuSeconds
            let wall = Double(MonotonicClock.now() - began) / 1e9
            measured.withLock { $0 = (wall * 1e3, wall > 0 ? min(1, cpu / wall) : 1) }
            finished.signal()
        }
        guard finished.wait(timeout: .now() + limitSeconds) == .success else { return nil }
        return measured.current
    }

    private static func formatMilliseconds(_ value: Double) -> String { String(format: "%.1f ms", value) }
}
