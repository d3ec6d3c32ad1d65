import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 01-gcd/ReadersWriters.
///
/// 0. No data race: two threads take turns writing and reading (`runInTurns`; a write's turn
///    lasts until the write has begun in the storage), so state of the answer's own read off
///    the queue is reported by ThreadSanitizer every run. Then a writer is
///    held inside the storage while a reader tries: a read that bypasses the queue walks in.
/// 1. A write runs alone. First a probe: a reader is held inside `storage.read`, then another
///    thread writes; a write that enters while the reader is inside is an overlap. The reader
///    is held until a thread started after the write has run (so a loaded machine gets a
///    longer window) plus 50 ms. Then a stress run of readers and writers with busy work inside
///    every access; the storage records any access that began while a write was running.
/// 2. A read after a write returns it: one thread writes a value and reads it back, 300 times.
/// 3. Reads run side by side: two readers are started; the first waits inside the storage for
///    the second. If the second cannot get in, reads are serialized.
public enum ReadersWritersCheck {
    public static let writeAlone = Property(
        id: "write-overlap",
        name: Localized("a write runs alone", ja: "書き込みは単独で実行される"),
        rule: Localized("No read runs while a write runs, and no two writes run at once.",
                        ja: "書き込み中に読み取りは実行されず、2 つの書き込みが同時に実行されることもない。"))
    public static let readAfterWrite = Property(
        id: "stale-read",
        name: Localized("a read after a write returns it", ja: "書き込み後の読み取りはその値を返す"),
        rule: Localized("setValue(v, forKey: k) then value(forKey: k) on the same thread returns v.",
                        ja: "同じスレッドで setValue(v, forKey: k) の後に value(forKey: k) を呼ぶと v が返る。"))
    public static let readsOverlap = Property(
        id: "reads-serialized",
        name: Localized("reads run side by side", ja: "読み取りは並行して実行される"),
        rule: Localized("Two reads can be inside the storage at the same time.",
                        ja: "2 つの読み取りが同時にストレージの中にいられる。"))
    public static let properties = [writeAlone, readAfterWrite, readsOverlap, Property.finishes]

    /// Needs a pause right after a write's release, and TSan clocks of their own for plain
    /// blocks a pool thread runs in turn (`probeInterruptedWrites`).
    public static let platformProbes = [
        PlatformProbe("write-interrupted", Localized(
            "a write paused right after it submits a block while another write runs whole",
            ja: "ブロックを投入した直後で止めた書き込みの途中に、別の書き込みを最後まで実行する"), needs: [.releasePoints]),
        PlatformProbe("plain-blocks-in-turn", Localized(
            "a race between plain blocks that one pool thread runs one after the other (state changed beside the barrier)",
            ja: "1 つのプールスレッドが順に実行する通常ブロック同士の競合（バリアの外で変更される状態）"), needs: [.sanitizerFibers]),
    ]

    public static func run(_ make: @escaping @Sendable (InstrumentedStorage) -> any ReadersWritersProtocol, options: CheckOptions = .init()) -> CheckResult {
        let failure = probeRaces(make, options: options)
            ?? probeInterruptedWrites(make, options: options)
            ?? probeWriteDuringRead(make, options: options)
            ?? probeReadDuringWrite(make, options: options)
            ?? stressReadersAndWriters(make, options: options)
            ?? checkReadAfterWrite(make, options: options)
            ?? checkReadsOverlap(make, options: options)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    static func overlapFailure(_ storage: InstrumentedStorage, _ overlap: InstrumentedStorage.Overlap) -> CheckFailure {
        let running = [overlap.runningReads > 0 ? "\(overlap.runningReads) read(s)" : nil,
                       overlap.runningWrites > 0 ? "\(overlap.runningWrites) write(s)" : nil].compactMap { $0 }.joined(separator: " and ")
        let runningJa = [overlap.runningReads > 0 ? "読み取り \(overlap.runningReads) 件" : nil,
                         overlap.runningWrites > 0 ? "書き込み \(overlap.runningWrites) 件" : nil].compactMap { $0 }.joined(separator: "と")
        let enteringRead = overlap.entering.hasPrefix("read")
        let advice = enteringRead
            ? Localized("A read got in while a write was running: every read must go through the queue (queue.sync), so a barrier write can hold it back.",
                        ja: "書き込みの実行中に読み取りが入りました。すべての読み取りをキュー経由（queue.sync）にして、バリア付きの書き込みが読み取りを止められるようにしましょう。")
            : Localized("A write got in while \(running) were running: a write needs the queue to itself — submit it with the .barrier flag on a concurrent queue you created (barriers do nothing on global queues).",
                        ja: "\(runningJa)の実行中に書き込みが入りました。書き込みはキューを独占する必要があります。自分で作ったコンカレントキューに .barrier フラグ付きで投入しましょう（グローバルキューではバリアは効きません）。")
        return CheckFailure(
            writeAlone,
            observed: Localized(
                "\"\(overlap.label.en)\" began while \(running) were still running (see the overlapping bars). \(advice.en)",
                ja: "\(runningJa)がまだ実行中なのに「\(overlap.label.ja)」が始まりました（重なったバーを見てください）。\(advice.ja)"),
            events: traceWindow(storage.trace.events, around: overlap.sequence))
    }

    /// Holds one writer inside the storage and lets a reader try to get in: a read that does not
    /// go through the queue walks right in.
    static func probeReadDuringWrite(_ make: @escaping @Sendable (InstrumentedStorage) -> any ReadersWritersProtocol, options: CheckOptions) -> CheckFailure? {
        let storage = InstrumentedStorage()
        let store = make(storage)
        let writerInside = DispatchSemaphore(value: 0), releaseWriter = DispatchSemaphore(value: 0)
        storage.whileInsideWrite {
            writerInside.signal()
            _ = releaseWriter.wait(timeout: .now() + 2)
        }
        let writer = DispatchGroup(), reader = DispatchGroup()
        runDetached(writer) { store.setValue(1, forKey: "k") }
        guard writerInside.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            releaseWriter.signal()
            return .deadlock(trace: storage.trace, options: options, doing: .verbatim("setValue(_:forKey:)"))
        }
        storage.whileInsideWrite(nil)
        runDetached(reader) { _ = store.value(forKey: "k") }
        // A read off the queue enters at once; give it a window that grows with the load.
        if !storage.waitForOverlap(seconds: 0) {
            waitForQueuesRound()
            _ = storage.waitForOverlap(seconds: 0.05)
        }
        releaseWriter.signal()
        let finished = writer.wait(timeout: .now() + options.deadlockSeconds) == .success
            && reader.wait(timeout: .now() + options.deadlockSeconds) == .success
        if let overlap = storage.currentStatistics.overlaps.first { return overlapFailure(storage, overlap) }
        guard finished else {
            return .deadlock(trace: storage.trace, options: options, doing: Localized("value(forKey:) while a write runs", ja: "書き込みの実行中の value(forKey:)"))
        }
        return nil
    }

    /// Two threads take turns writing and reading (`runInTurns`): state of the answer's own that
    /// a read touches off the queue is an unordered pair that ThreadSanitizer reports every run.
    static func probeRaces(_ make: @escaping @Sendable (InstrumentedStorage) -> any ReadersWritersProtocol, options: CheckOptions) -> CheckFailure? {
        let warm = make(InstrumentedStorage())
        guard returnsWithin(seconds: options.deadlockSeconds, {
            warm.setValue(0, forKey: "k"); _ = warm.value(forKey: "k")
        }) else { return .deadlock(trace: Trace(), options: options, doing: .verbatim("setValue(_:forKey:) / value(forKey:)")) }
        let storage = InstrumentedStorage()
        let store = make(storage)
        // A write's turn ends once the write has begun inside the storage (an asynchronous
        // barrier block may start later). The read that follows then comes after the write in
        // real time, and nothing the read's thread does can be ordered before the write. When
        // the read came first, the dispatch worker that later ran the write had sometimes been
        // ordered after it already (a worker inherits what the thread that started it, or the
        // blocks it ran before, had seen), and TSan stayed silent: seen in 1 run in 10 on a
        // busy machine, every write running after every read.
        let writeBegun = { @Sendable (count: Int) in _ = storage.waitForWritesToBegin(count, seconds: 2) }
        let calls: [(thread: Int, label: String, body: @Sendable () -> Void)] = [
            (0, "setValue(1, forKey: \"k\")", { store.setValue(1, forKey: "k"); writeBegun(1) }),
            (1, "value(forKey: \"k\")", { _ = store.value(forKey: "k") }),
            (1, "setValue(2, forKey: \"j\")", { store.setValue(2, forKey: "j"); writeBegun(2) }),
            (0, "value(forKey: \"j\")", { _ = store.value(forKey: "j") }),
            // Two reads in a row on two threads, no write between: state a read changes (a
            // count, a "last key") inside a plain read block is an unordered pair.
            (1, "value(forKey: \"j\")", { _ = store.value(forKey: "j") }),
            (0, "value(forKey: \"k\")", { _ = store.value(forKey: "k") }),
        ]
        // The threads record nothing while they take turns; the trace is written afterwards.
        let stuck = runInTurns(threads: 2, deadlineSeconds: options.deadlockSeconds, steps: calls.map { ($0.thread, $0.body) })
        guard let stuck else {
            // Let queued writes run before the next step.
            _ = withDeadline(seconds: options.deadlockSeconds) { store.value(forKey: "k") }
            return nil
        }
        let trace = Trace()
        for call in calls.prefix(stuck + 1) { trace.record(call.label, lane: "T\(call.thread + 1)") }
        return .deadlock(trace: trace, options: options, doing: .verbatim(calls[stuck].label))
    }

    /// Two writes on two threads, the first paused right after each of its releases in turn (a
    /// block submitted, a `sync` returned) while the second runs whole. State of the answer's own
    /// changed outside the barrier — in a plain block of its own beside it — is then written by
    /// both with nothing ordering them (on Linux the runners give each plain block its own clock).
    static func probeInterruptedWrites(_ make: @escaping @Sendable (InstrumentedStorage) -> any ReadersWritersProtocol, options: CheckOptions) -> CheckFailure? {
        guard ReleasePoint.isAvailable else { return nil }
        for release in 1...4 {
            let storage = InstrumentedStorage()
            let store = make(storage)
            guard returnsWithin(seconds: options.deadlockSeconds, { store.setValue(0, forKey: "w"); _ = store.value(forKey: "w") }) else {
                return .deadlock(trace: Trace(), options: options, doing: .verbatim("setValue(_:forKey:) / value(forKey:)"))
            }
            let outcome = PausedInterleaving.run(
                pausingFirstAfterRelease: release, deadlineSeconds: options.deadlockSeconds,
                first: { store.setValue(1, forKey: "k") }, second: { store.setValue(2, forKey: "j") })
            switch outcome {
            case .notReached: return nil
            case .stuck:
                return .deadlock(trace: storage.trace, options: options,
                                 doing: Localized("setValue(1, forKey: \"k\") and setValue(2, forKey: \"j\") on two threads, one paused after its release \(release)",
                                                  ja: "2 本のスレッドの setValue(1, forKey: \"k\") と setValue(2, forKey: \"j\")（一方は \(Localized.ordinal(release).ja)の解放後に止めた）"))
            case .interleaved:
                // Let the queued blocks run before the next round.
                _ = storage.waitForWritesToBegin(3, seconds: options.deadlockSeconds)
                guard withDeadline(seconds: options.deadlockSeconds, { store.value(forKey: "j") }) != nil else {
                    return .deadlock(trace: storage.trace, options: options, doing: Localized("value(forKey: \"j\") after two writes", ja: "2 回の書き込みの後の value(forKey: \"j\")"))
                }
                waitForQueuesRound()
            }
        }
        return nil
    }

    /// Holds one reader inside the storage and lets a writer try to get in.
    static func probeWriteDuringRead(_ make: @escaping @Sendable (InstrumentedStorage) -> any ReadersWritersProtocol, options: CheckOptions) -> CheckFailure? {
        let storage = InstrumentedStorage()
        let store = make(storage)
        let readerInside = DispatchSemaphore(value: 0), releaseReader = DispatchSemaphore(value: 0)
        storage.whileInsideRead {
            readerInside.signal()
            _ = releaseReader.wait(timeout: .now() + 2)
        }
        let reader = DispatchGroup(), writer = DispatchGroup()
        runDetached(reader) { _ = store.value(forKey: "k") }
        guard readerInside.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: storage.trace, options: options, doing: .verbatim("value(forKey:)"))
        }
        storage.whileInsideRead(nil)
        let writerCalling = DispatchSemaphore(value: 0)
        runDetached(writer) {
            writerCalling.signal()
            store.setValue(1, forKey: "k")
        }
        _ = writerCalling.wait(timeout: .now() + options.deadlockSeconds)
        _ = writer.wait(timeout: .now() + 0.2)  // an asynchronous setValue returns at once; a blocking one waits for the reader
        // A wrong answer's write enters while the reader is still inside. How long that takes
        // depends on how busy the machine is, so measure it: a new thread must have run, and a
        // block submitted to the global pool after the write must have started (so the write's
        // block has been handed to a worker); then the write gets a little longer.
        if !storage.waitForOverlap(seconds: 0) {
            waitForSchedulerRound()
            waitForPoolRound()
            _ = storage.waitForOverlap(seconds: 0.1)
        }
        releaseReader.signal()
        let finished = reader.wait(timeout: .now() + options.deadlockSeconds) == .success
            && writer.wait(timeout: .now() + options.deadlockSeconds) == .success
        if let overlap = storage.currentStatistics.overlaps.first { return overlapFailure(storage, overlap) }
        guard finished else {
            return .deadlock(trace: storage.trace, options: options, doing: .verbatim("setValue(_:forKey:) / value(forKey:)"))
        }
        return nil
    }

    static func stressReadersAndWriters(_ make: @escaping @Sendable (InstrumentedStorage) -> any ReadersWritersProtocol, options: CheckOptions) -> CheckFailure? {
        let storage = InstrumentedStorage(workNanoseconds: 20_000)
        let store = make(storage)
        let finished = runOnThreads(6, deadlineSeconds: options.deadlockSeconds) { index in
            if index < 4 {
                for i in 0..<150 { _ = store.value(forKey: "k\(i % 3)") }
            } else {
                for i in 0..<40 { store.setValue(i, forKey: "k\(i % 3)") }
            }
        }
        guard finished, withDeadline(seconds: options.deadlockSeconds, { store.value(forKey: "k0") }) != nil else {
            return .deadlock(trace: storage.trace, options: options, doing: .verbatim("value(forKey:) / setValue(_:forKey:)"))
        }
        if let overlap = storage.currentStatistics.overlaps.first { return overlapFailure(storage, overlap) }
        return nil
    }

    static func checkReadAfterWrite(_ make: @escaping @Sendable (InstrumentedStorage) -> any ReadersWritersProtocol, options: CheckOptions) -> CheckFailure? {
        let storage = InstrumentedStorage()
        let store = make(storage)
        let outcome: CheckFailure?? = withDeadline(seconds: options.deadlockSeconds) { () -> CheckFailure? in
            for value in 1...300 {
                store.setValue(value, forKey: "k")
                let read = store.value(forKey: "k")
                guard read == value else {
                    let got = read.map(String.init) ?? "nil"
                    storage.trace.record(Localized("value(forKey: \"k\") → \(got), expected \(value)", ja: "value(forKey: \"k\") → \(got)（正しくは \(value)）"))
                    let shown = read.map(String.init) ?? "nil"
                    return CheckFailure(
                        readAfterWrite,
                        observed: Localized(
                            "setValue(\(value), forKey: \"k\") returned, then value(forKey: \"k\") on the same thread returned \(shown). The read ran before the write: put reads and writes on the same queue, in the order they were called.",
                            ja: "setValue(\(value), forKey: \"k\") が戻った後、同じスレッドの value(forKey: \"k\") が \(shown) を返しました。読み取りが書き込みより先に実行されています。読み取りと書き込みを呼ばれた順に同じキューへ入れましょう。"),
                        events: traceTail(storage.trace.events, count: 12))
                }
            }
            return nil
        }
        guard let result = outcome else {
            return .deadlock(trace: storage.trace, options: options, doing: Localized("setValue(_:forKey:) then value(forKey:)", ja: "setValue(_:forKey:) の後の value(forKey:)"))
        }
        return result
    }

    /// Each reader waits inside the storage until both are in (or 1.5 s pass).
    static func checkReadsOverlap(_ make: @escaping @Sendable (InstrumentedStorage) -> any ReadersWritersProtocol, options: CheckOptions) -> CheckFailure? {
        let storage = InstrumentedStorage()
        let store = make(storage)
        store.setValue(7, forKey: "k")
        let bothInside = DispatchGroup()
        bothInside.enter()
        bothInside.enter()
        storage.whileInsideRead {
            bothInside.leave()
            _ = bothInside.wait(timeout: .now() + 1.5)
        }
        let finished = runOnThreads(2, deadlineSeconds: options.deadlockSeconds + 3) { _ in _ = store.value(forKey: "k") }
        guard finished else { return .deadlock(trace: storage.trace, options: options, doing: .verbatim("value(forKey:)")) }
        guard storage.currentStatistics.mostReadsAtOnce >= 2 else {
            return CheckFailure(
                readsOverlap,
                observed: Localized(
                    "Two threads called value(forKey:) at once; the first read waited inside the storage for 1.5 s, but the second could not start until it left. Reads were serialized: a serial queue (or a barrier on reads) gives away the point of readers/writers.",
                    ja: "2 本のスレッドが同時に value(forKey:) を呼びました。最初の読み取りはストレージ内で 1.5 秒待ちましたが、2 つ目はそれが出るまで始められませんでした。読み取りが直列化されています。シリアルキュー（または読み取りへのバリア）では、読み手と書き手に分ける意味がなくなります。"),
                events: storage.trace.events)
        }
        return nil
    }

    private static func runDetached(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread.detachNewThread {
            body()
            group.leave()
        }
    }
}
