import Dispatch
import Foundation
import WorkbookCore

extension Chapter01 {
    /// One contest: hogs at one QoS on every core, and one block of fixed work at another.
    struct QoSContest: Sendable {
        let hogs: DispatchQoS.QoSClass
        let probe: DispatchQoS.QoSClass
        /// Milliseconds the probe's work took with nothing else running, and under the hogs
        /// (nil: it did not finish within the time limit).
        let alone: Double
        let contended: Double?
        /// Milliseconds from submitting the probe to its start (waiting for a pool thread).
        let waited: Double?
    }

    /// Part two of scenario 5: QoS changes nothing on an idle machine, so make the CPU busy.
    /// Every core gets a hog (a block that spins until told to stop) at one class; then one
    /// block with a fixed amount of work runs at another class. Its running time, against the
    /// same work alone, is its share of a contended CPU.
    static func runQoSContention(_ context: ScenarioContext) throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        context.say(Localized(
            "Under contention: \(cores) hog(s) at one class keep every core busy; one block of fixed work runs at another class.",
            ja: "CPU の取り合い: あるクラスのブロック（\(cores) 個）ですべてのコアを埋め、別のクラスで決まった量の処理を 1 つ実行します。"))
        let work = calibratedWork(milliseconds: 5)
        let contests = [
            try contest(hogs: .background, probe: .userInitiated, cores: cores, work: work, context),
            try contest(hogs: .userInitiated, probe: .background, cores: cores, work: work, context),
        ]
        let headers = [Localized("hogs (every core)", ja: "埋める側（全コア）"), Localized("block", ja: "計測するブロック"),
                       Localized("alone", ja: "単独"), Localized("contended", ja: "取り合い中")]
            .map { $0.text(context.language) }
        context.show("  " + padded(headers[0], to: 20) + padded(headers[1], to: 18) + padded(headers[2], to: 10) + headers[3])
        for contest in contests {
            let contended = contest.contended.map { formatMilliseconds($0) }
                ?? Localized("did not finish in 2 s", ja: "2 秒で終わらず").text(context.language)
            context.show("  " + padded("\(contest.hogs)", to: 20) + padded("\(contest.probe)", to: 18)
                         + padded(formatMilliseconds(contest.alone), to: 10) + contended)
            context.note("contended \(contest.probe)", contest.contended.map { String(format: "%.1f", $0 / contest.alone) } ?? "starved")
        }
        context.say(Localized(
            "Read the ratio, not the milliseconds: the userInitiated block barely noticed the background hogs, while the background block took many times longer beside userInitiated ones. QoS did not decide who started first; it decided who got the CPU while both wanted it.",
            ja: "ミリ秒ではなく比を読んでください。userInitiated のブロックは background のブロックがいてもほとんど影響を受けず、background のブロックは userInitiated のブロックの横では何倍も時間がかかりました。QoS はどちらが先に始まるかを決めたのではなく、両方が CPU を欲しがっているときに誰が CPU を使えるかを決めたのです。"))
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
        let alone = try timedProbe(probeClass, work: work, context, label: "\(probeClass)", limitSeconds: 5)?.ran ?? 0

        let stop = Locked(false)
        let hogsRunning = DispatchSemaphore(value: 0)
        let hogsDone = DispatchGroup()
        for _ in 0..<cores {
            DispatchQueue.global(qos: hogClass).async(group: hogsDone) {
                let lane = context.trace.currentThreadLane()
                context.trace.begin("\(hogClass) hog", lane: lane)
                hogsRunning.signal()
                while !stop.current { busyWork(10_000) }
                context.trace.end("\(hogClass) hog", lane: lane)
            }
        }
        defer {
            stop.withLock { $0 = true }
            _ = hogsDone.wait(timeout: .now() + 5)
        }
        for _ in 0..<cores {
            try wait(for: hogsRunning, Localized("the hogs did not start", ja: "CPU を埋めるブロックが始まりませんでした"))
        }
        let timed = try timedProbe(probeClass, work: work, context, label: "\(probeClass)", limitSeconds: 2)
        return QoSContest(hogs: hogClass, probe: probeClass, alone: alone, contended: timed?.ran, waited: timed?.waited)
    }

    /// Runs `work` rounds on `global(qos:)`; the milliseconds it waited for a thread and ran,
    /// or nil when it did not finish within `limitSeconds`.
    private static func timedProbe(_ qosClass: DispatchQoS.QoSClass, work: Int, _ context: ScenarioContext,
                                   label: String, limitSeconds: Double) throws -> (waited: Double, ran: Double)? {
        let finished = DispatchSemaphore(value: 0)
        let times = Locked<(began: UInt64, ended: UInt64)>((0, 0))
        let submitted = MonotonicClock.now()
        DispatchQueue.global(qos: qosClass).async {
            let lane = context.trace.currentThreadLane()
            let began = MonotonicClock.now()
            context.trace.span(label, lane: lane) { busyWork(work) }
            times.withLock { $0 = (began, MonotonicClock.now()) }
            finished.signal()
        }
        guard finished.wait(timeout: .now() + limitSeconds) == .success else { return nil }
        let (began, ended) = times.current
        return (Double(began - submitted) / 1e6, Double(ended - began) / 1e6)
    }

    private static func formatMilliseconds(_ value: Double) -> String { String(format: "%.1f ms", value) }
}
