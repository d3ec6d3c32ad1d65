import Foundation
import WorkbookCore
import WorkbookExplorer

extension Chapter06 {
    // MARK: flatMap → sequential awaits

    /// Three dependent steps, as a `flatMap` chain would run them; step 2 fails with `.offline`.
    /// `await`s one after another: an error skips the rest and lands in the `catch`.
    static func threeSteps(_ log: VirtualLog) async -> String {
        let lane = Localized("task", ja: "タスク")
        let clock = ExplorerClock()
        func step(_ number: Int, input: String, fails: Bool = false) async throws -> String {
            let start = log.nanoseconds
            defer { log.span(.verbatim("step\(number)(\(input))"), lane: lane, from: start) }
            try await clock.sleep(for: .milliseconds(10))
            if fails { throw StreamError.offline }
            return "s\(number)"
        }
        do {
            let first = try await step(1, input: "id")
            let second = try await step(2, input: first, fails: true)
            let third = try await step(3, input: second)
            return third
        } catch {
            log.point(caught(error), lane: lane)
            return "caught \(errorName(error))"
        }
    }

    /// `caught .offline`: what a `catch` got, as a timeline label.
    static func caught(_ error: any Error) -> Localized {
        Localized("caught \(errorName(error))", ja: "\(errorName(error)) を受け取る")
    }

    // MARK: Zip3 → async let, or a task group

    /// What each way of awaiting three children saw: when the caller got the error.
    struct ZipTimings: Sendable, Equatable {
        var asyncLetTuple = 0, asyncLetFailingFirst = 0, taskGroup = 0
    }

    /// Three children: a takes 300 ms, b throws `.offline` after 10 ms, c takes 50 ms. Awaited
    /// three ways at once, on one (virtual) clock.
    static func zipThree(_ log: VirtualLog) async -> ZipTimings {
        let clock = ExplorerClock()
        @Sendable func child(_ name: String, _ way: Localized, milliseconds: Int, fails: Bool = false) async throws -> String {
            // The timeline draws two of the three ways; the third is only timed.
            let drawn: VirtualLog? = way == .verbatim("b-first") ? nil : log
            let lane = Localized("\(way.en) \(name)", ja: "\(way.ja) \(name)")
            let start = log.nanoseconds
            do {
                try await clock.sleep(for: .milliseconds(milliseconds))
            } catch {
                drawn?.span(.verbatim("\(name): \(errorName(error))"), lane: lane, from: start)
                throw error
            }
            if fails {
                drawn?.span(Localized("\(name): throws .offline", ja: "\(name): .offline をスローする"), lane: lane, from: start)
                throw StreamError.offline
            }
            drawn?.span(.verbatim("\(name): \(milliseconds) ms"), lane: lane, from: start)
            return name
        }
        @Sendable func caught(_ lane: Localized?, _ body: () async throws -> Void) async -> Int {
            do { try await body() } catch {
                if let lane { log.point(Chapter06.caught(error), lane: lane) }
            }
            return log.now
        }
        let tupleWay = Localized("async let", ja: "タプル"), groupWay = Localized("group", ja: "グループ"), bFirst = Localized.verbatim("b-first")
        async let tuple = caught(Localized("async let →", ja: "タプル →")) {
            async let a = child("a", tupleWay, milliseconds: 300)
            async let b = child("b", tupleWay, milliseconds: 10, fails: true)
            async let c = child("c", tupleWay, milliseconds: 50)
            _ = try await (a, b, c)          // awaited left to right: a first
        }
        async let failingFirst = caught(nil) {
            async let a = child("a", bFirst, milliseconds: 300)
            async let b = child("b", bFirst, milliseconds: 10, fails: true)
            async let c = child("c", bFirst, milliseconds: 50)
            _ = try await (b, a, c)
        }
        async let group = caught(Localized("group →", ja: "グループ →")) {
            try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask { try await child("a", groupWay, milliseconds: 300) }
                group.addTask { try await child("b", groupWay, milliseconds: 10, fails: true) }
                group.addTask { try await child("c", groupWay, milliseconds: 50) }
                for try await _ in group {}     // results as they finish: b's error first
            }
        }
        return ZipTimings(asyncLetTuple: await tuple, asyncLetFailingFirst: await failingFirst, taskGroup: await group)
    }

    /// The same two ways in real time: milliseconds until the error, (tuple, group).
    static func zipThreeRealTime() async -> (tuple: Int, group: Int) {
        @Sendable func child(_ milliseconds: Int, fails: Bool = false) async throws -> Int {
            try await Task.sleep(for: .milliseconds(milliseconds))
            if fails { throw StreamError.offline }
            return milliseconds
        }
        let start = MonotonicClock.now()
        do {
            async let a = child(300)
            async let b = child(10, fails: true)
            async let c = child(50)
            _ = try await (a, b, c)
        } catch {}
        let tuple = milliseconds(since: start)
        let groupStart = MonotonicClock.now()
        do {
            try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask { try await child(300) }
                group.addTask { try await child(10, fails: true) }
                group.addTask { try await child(50) }
                for try await _ in group {}
            }
        } catch {}
        return (tuple, milliseconds(since: groupStart))
    }

    // MARK: The sequential upload with a success count

    /// How an upload loop ended.
    struct UploadRun: Sendable, Equatable {
        var attempted: [Int] = []
        var succeeded = 0
        var result = ""
    }

    /// Uploads images 1–5 one at a time (10 ms each; image 3 is unreadable), counting successes;
    /// "at least one success" is the product's rule. With `cancelAt`, the screen cancels the task
    /// then. `rethrowsCancellation`: the fix; without it, the `catch` swallows `CancellationError`
    /// and the loop goes on to the next image.
    static func uploadImages(cancelAt: Int?, rethrowsCancellation: Bool, _ log: VirtualLog) async -> UploadRun {
        let clock = ExplorerClock()
        let lane = Localized(rethrowsCancellation ? "fixed loop" : "naive loop", ja: rethrowsCancellation ? "直したループ" : "素朴なループ")
        let run = Locked(UploadRun())
        let upload = Task {
            var successes = 0                     // one task: a plain local counter is safe
            for image in 1...5 {
                run.withLock { $0.attempted.append(image) }
                let start = log.nanoseconds
                do {
                    try await clock.sleep(for: .milliseconds(10))                 // the upload
                    if image == 3 { throw StreamError.badImage }
                    successes += 1
                    log.span(.verbatim("#\(image)"), lane: lane, from: start)
                } catch is CancellationError where rethrowsCancellation {
                    log.span(.verbatim("#\(image) CancellationError"), lane: lane, from: start)
                    throw CancellationError()
                } catch {
                    log.span(.verbatim("#\(image) \(errorName(error))"), lane: lane, from: start)  // logged, and on to the next
                }
            }
            run.withLock { $0.succeeded = successes }
            return successes > 0 ? "success" : "failure"
        }
        if let cancelAt {
            try? await clock.sleep(for: .milliseconds(cancelAt))
            log.point(.verbatim("cancel()"), lane: Localized("screen", ja: "画面"))
            upload.cancel()
        }
        let result: String
        do { result = try await upload.value } catch { result = errorName(error) }
        return run.withLock { $0.result = result; return $0 }
    }

    static let operatorsRewritten = Scenario(
        slug: "operators",
        title: Localized("Operators rewritten: flatMap, Zip3 and an upload loop", ja: "オペレータの書き換え: flatMap、Zip3、アップロードのループ"),
        narration: Localized(
            """
            In the explorer's virtual time (10 ms costs nothing, and every run is the same): \
            1) A `flatMap` chain of three dependent requests becomes three `try await`s in a row; step 2 throws `.offline`, so step 3 never starts and the error lands in the `catch`. \
            2) `Zip3` becomes three `async let`s, or a task group. Child a takes 300 ms, b throws after 10 ms, c takes 50 ms. \
            `try await (a, b, c)` awaits a first, so the error surfaces at 300 ms; with b first in the tuple, at 10 ms; a throwing task group hands results over as they finish: 10 ms, and it cancels a and c. \
            Zip fails as soon as any input fails; async let does not, unless you order it so or use a group. The same two ways are then timed in real time. \
            3) Five images uploaded one at a time with a success count; image 3 is unreadable. Then the screen cancels at 15 ms, during image 2: \
            a plain `catch` swallows the `CancellationError`, and the loop goes on to the next image; rethrowing it stops the loop.
            """,
            ja: """
            エクスプローラの仮想時間で実行します（10 ms は一瞬で、毎回同じ結果になります）。\
            1) 依存し合う 3 つのリクエストをつなぐ `flatMap` の連鎖は、3 つ続けた `try await` になります。ステップ 2 が `.offline` をスローするので、ステップ 3 は始まらず、エラーは `catch` に届きます。\
            2) `Zip3` は 3 つの `async let`、またはタスクグループになります。子 a は 300 ms、b は 10 ms 後にスローし、c は 50 ms かかります。\
            `try await (a, b, c)` は a を最初に待つので、エラーが現れるのは 300 ms です。タプルで b を先頭にすると 10 ms。エラーをスローするタスクグループは終わった順に結果を渡すので 10 ms で、a と c をキャンセルします。\
            `Zip` はどれかの入力が失敗した時点で失敗しますが、`async let` はそうなりません。そうなるように順番を決めるか、グループを使います。同じ 2 つのやり方を実時間でも計ります。\
            3) 5 枚の画像を 1 枚ずつ、成功数を数えながらアップロードします。画像 3 は読めません。次に、画面が 15 ms（画像 2 の途中）でキャンセルします。\
            ただの `catch` は `CancellationError` を飲み込み、ループは次の画像へ進みます。再スローすればループは止まります。
            """)
    ) { context in
        // 1) flatMap
        let chainLog = VirtualLog()
        let chain = await inVirtualTime { await threeSteps(chainLog) }
        context.note("chain", chain.outcomeText)
        context.note("chain steps", chainLog.labels(on: Localized("task", ja: "タスク")).joined(separator: " "))
        context.say(Localized("1) Three awaits in a row, step 2 fails: \(chainLog.labels(on: Localized("task", ja: "タスク")).joined(separator: ", ")). Step 3 never started.",
                              ja: "1) 3 つ続けた await、ステップ 2 が失敗: \(chainLog.events.filter { $0.kind != .end }.map(\.label.ja).joined(separator: "、"))。ステップ 3 は始まりませんでした。"))

        // 2) Zip3
        let zipLog = VirtualLog()
        let timings = Locked(ZipTimings())
        _ = await inVirtualTime {
            let seen = await zipThree(zipLog)
            timings.withLock { $0 = seen }
            return "tuple=\(seen.asyncLetTuple) group=\(seen.taskGroup)"
        }
        let seen = timings.current
        context.note("async let tuple error at", String(seen.asyncLetTuple))
        context.note("async let failing first error at", String(seen.asyncLetFailingFirst))
        context.note("task group error at", String(seen.taskGroup))
        let group = zipLog.events.filter { $0.lane.en.hasPrefix("group ") && $0.kind == .end }.map { "\($0.lane.en.dropFirst(6))=\($0.label.en)" }
        context.note("task group children", group.sorted().joined(separator: " "))
        let real = await zipThreeRealTime()
        context.note("real tuple ms", String(real.tuple))
        context.note("real group ms", String(real.group))
        context.say(Localized(
            """
            2) a: 300 ms, b: throws after 10 ms, c: 50 ms. The caller caught .offline at (virtual time):
               try await (a, b, c)        \(seen.asyncLetTuple) ms
               try await (b, a, c)        \(seen.asyncLetFailingFirst) ms
               throwing task group        \(seen.taskGroup) ms  (a and c: CancellationError)
               In real time: the tuple \(real.tuple) ms, the group \(real.group) ms.
            """,
            ja: """
            2) a: 300 ms、b: 10 ms 後にスローする、c: 50 ms。呼び出し元が .offline を受け取った時刻（仮想時間）:
               `try await (a, b, c)`      \(seen.asyncLetTuple) ms
               `try await (b, a, c)`      \(seen.asyncLetFailingFirst) ms
               エラーをスローするタスクグループ  \(seen.taskGroup) ms（a と c は CancellationError）
               実時間では: タプル \(real.tuple) ms、グループ \(real.group) ms。
            """))

        // 3) Uploads
        let uploadLog = VirtualLog()
        let plain = Locked(UploadRun()), naive = Locked(UploadRun()), fixed = Locked(UploadRun())
        _ = await inVirtualTime {
            let run = await uploadImages(cancelAt: nil, rethrowsCancellation: false, VirtualLog())
            plain.withLock { $0 = run }
            return run.result
        }
        _ = await inVirtualTime {
            let run = await uploadImages(cancelAt: 15, rethrowsCancellation: false, uploadLog)
            naive.withLock { $0 = run }
            return run.result
        }
        _ = await inVirtualTime {
            let run = await uploadImages(cancelAt: 15, rethrowsCancellation: true, uploadLog)
            fixed.withLock { $0 = run }
            return run.result
        }
        for (name, run) in [("plain", plain.current), ("naive", naive.current), ("fixed", fixed.current)] {
            context.note("upload \(name) attempted", listed(run.attempted))
            context.note("upload \(name) succeeded", String(run.succeeded))
            context.note("upload \(name) result", run.result)
        }
        context.say(Localized(
            """
            3) Five uploads, image 3 unreadable: \(plain.current.succeeded) of 5 succeeded → \(plain.current.result).
               Cancelled at 15 ms, plain catch: tried \(listed(naive.current.attempted)), \(naive.current.succeeded) succeeded → \(naive.current.result).
               Cancelled at 15 ms, CancellationError rethrown: tried \(listed(fixed.current.attempted)) → \(fixed.current.result).
            """,
            ja: """
            3) 5 枚のアップロード、画像 3 は読めない: 5 枚中 \(plain.current.succeeded) 枚が成功 → `\(plain.current.result)`。
               15 ms でキャンセル、ただの `catch`: \(listed(naive.current.attempted)) を試し、\(naive.current.succeeded) 枚成功 → `\(naive.current.result)`。
               15 ms でキャンセル、CancellationError を再スローする: \(listed(fixed.current.attempted)) を試した → \(fixed.current.result)。
            """))
        draw(zipLog.events, on: context.trace)
        _ = uploadLog
    }
}
