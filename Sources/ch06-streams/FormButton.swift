import WorkbookCore
import WorkbookExplorer

extension Chapter06 {
    /// `removeDuplicates`, written small: a value equal to the one before it is not passed on.
    static func removeDuplicates<T: Equatable & Sendable>(_ input: AsyncStream<T>) -> AsyncStream<T> {
        let (output, continuation) = AsyncStream.makeStream(of: T.self)
        let task = Task {
            var last: T?
            for await value in input where value != last {
                last = value
                continuation.yield(value)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return output
    }

    /// `combineLatest`, written small: nothing until both inputs have produced a value, then
    /// the pair of latest values each time either produces one. Finishes when both have.
    /// The update and the yield happen in one lock hold: yielding after the lock is released
    /// would let the other input's update yield its newer pair first, and the pairs would come
    /// out of order (the chapter's §9 shows the same with an actor).
    static func combineLatest<A: Sendable, B: Sendable>(_ first: AsyncStream<A>, _ second: AsyncStream<B>) -> AsyncStream<(A, B)> {
        let (output, continuation) = AsyncStream.makeStream(of: (A, B).self)
        let latest = Locked<(A?, B?)>((nil, nil))
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await value in first {
                        latest.withLock {
                            $0.0 = value
                            if let a = $0.0, let b = $0.1 { continuation.yield((a, b)) }
                        }
                    }
                }
                group.addTask {
                    for await value in second {
                        latest.withLock {
                            $0.1 = value
                            if let a = $0.0, let b = $0.1 { continuation.yield((a, b)) }
                        }
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return output
    }

    /// The sign-up form's view model: the button is enabled when both fields are non-empty.
    @MainActor
    final class SignUpForm {
        private(set) var isSendEnabled = false
        private(set) var updates: [Bool] = []

        /// Runs until both fields' streams finish.
        func bind(email: AsyncStream<String>, password: AsyncStream<String>) async {
            let fields = combineLatest(removeDuplicates(email), removeDuplicates(password))
            for await (email, password) in fields {
                isSendEnabled = !email.isEmpty && !password.isEmpty
                updates.append(isSendEnabled)
            }
        }
    }

    /// What the user types, and when (virtual ms): (time, field, text).
    static let formScript: [(Int, String, String)] = [
        (0, "email", "a"), (100, "email", "a"), (200, "password", "p"), (300, "email", ""),
        (400, "email", "b"), (500, "password", "p"), (600, "password", "pw"),
    ]

    /// Types `formScript` into the form; returns the button's updates.
    static func fillForm(_ log: VirtualLog) async -> String {
        let clock = ExplorerClock(), start = ExplorerClock().now
        let (email, emailInput) = AsyncStream.makeStream(of: String.self)
        let (password, passwordInput) = AsyncStream.makeStream(of: String.self)
        let form = SignUpForm()
        let binding = Task { await form.bind(email: email, password: password) }
        let user = Localized("user", ja: "ユーザー"), button = Localized("button", ja: "ボタン")
        var seen = 0
        for (time, field, text) in formScript {
            try? await clock.sleep(until: start.advanced(by: .milliseconds(time)))
            log.point(.verbatim("\(field)=\"\(text)\""), lane: user)
            (field == "email" ? emailInput : passwordInput).yield(text)
            try? await clock.sleep(for: .milliseconds(10))            // let the form catch up
            let updates = await form.updates
            if updates.count > seen {
                log.point(.verbatim("isSendEnabled=\(updates.last!)"), lane: button)
                seen = updates.count
            }
        }
        emailInput.finish()
        passwordInput.finish()
        await binding.value
        log.point(Localized("the pipeline finished", ja: "パイプラインが終わった"), lane: button)
        return await form.updates.map(String.init).joined(separator: ",")
    }

    static let formButton = Scenario(
        slug: "form-button",
        title: Localized("A form button: combineLatest and removeDuplicates, written small",
                         ja: "フォームのボタン: combineLatest と removeDuplicates を小さく書く"),
        narration: Localized(
            """
            The send button is enabled when both fields are non-empty. In Combine: `email.removeDuplicates().combineLatest(password.removeDuplicates()).map { … }`. \
            `combineLatest`, `removeDuplicates` (and `debounce`, `AsyncChannel`) for async sequences come from the swift-async-algorithms package, not the standard library; \
            a workbook without dependencies writes small versions: `combineLatest` is a task group with one child per input, keeping the latest of each; \
            `removeDuplicates` skips a value equal to the one before. Each field is an `AsyncStream<String>` fed by its text binding. \
            The user types (virtual ms): email "a" at 0, "a" again at 100, password "p" at 200, email "" at 300, "b" at 400, password "p" again at 500, "pw" at 600. \
            The button changes only once both fields have a value, a repeated value changes nothing, and the loop ends when both fields' streams finish.
            """,
            ja: """
            送信ボタンは、両方の欄が空でない時に有効になります。`Combine` では `email.removeDuplicates().combineLatest(password.removeDuplicates()).map { … }` です。\
            非同期シーケンス用の `combineLatest`、`removeDuplicates`（それに `debounce`、`AsyncChannel`）は標準ライブラリではなく swift-async-algorithms パッケージにあります。\
            依存パッケージのないこのワークブックでは小さく書きます。`combineLatest` は入力ごとに子を 1 つ持つタスクグループで、それぞれの最新値を覚えます。\
            `removeDuplicates` は直前と同じ値を飛ばします。各欄はテキストのバインディングが送る `AsyncStream<String>` です。\
            ユーザーの入力（仮想時間の ms）: 0 にメール "a"、100 にもう一度 "a"、200 にパスワード "p"、300 にメール ""、400 に "b"、500 にもう一度パスワード "p"、600 に "pw"。\
            ボタンが変わるのは両方の欄に値が入ってからで、同じ値の繰り返しは何も変えません。両方の欄のストリームが終わるとループも終わります。
            """)
    ) { context in
        let log = VirtualLog()
        let report = await inVirtualTime { await fillForm(log) }
        draw(log.events, on: context.trace)
        context.note("button updates", report.outcomeText)
        context.note("pipeline finished", String(log.events.contains { $0.label.en == "the pipeline finished" }))
        context.say(Localized(
            """
            The button's updates: \(report.outcomeText). Nothing at 0 and 100 (no password yet; the second "a" was a duplicate), \
            and nothing at 500 (the same password again). At 600 the pair changed, so the button was set again, to the same value: \
            a `removeDuplicates` after the `map` would skip that. The loop ended when both fields finished.
            """,
            ja: """
            ボタンの更新: `\(report.outcomeText)`。0 と 100 では何も起きません（まだパスワードがなく、2 回目の "a" は重複）。\
            500 でも何も起きません（同じパスワードの繰り返し）。600 では組が変わったので、ボタンに同じ値がもう一度設定されました。\
            `map` の後に `removeDuplicates` を置けば、これも飛ばせます。両方の欄が終わった時にループも終わりました。
            """))
    }
}
