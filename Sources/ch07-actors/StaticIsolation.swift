import Dispatch
import Foundation
import WorkbookCore

/// The slides' API client: `request` is an ordinary method — not isolated to any actor — and it
/// starts the work with `Task {}` inside `subscribe`'s closure, as their
/// `Single.create { single in let task = Task { … } }` did.
final class RequestClient: Sendable {
    /// Runs `body` at once, on the caller's side: the shape of `Single.create`.
    func subscribe(_ body: () -> Void) {
        body()
    }

    /// `reply` gets the body and `#isolation` as seen by the code after the `await`.
    func request(_ path: String, seen: @escaping @Sendable (_ closure: String) -> Void = { _ in },
                 reply: @escaping @Sendable (_ body: String, _ isolation: String) -> Void) {
        subscribe {
            seen(isolationName(#isolation))      // the closure's isolation, fixed when it was written
            Task {                               // inherits that: nonisolated
                let body = await self.fetch(path)
                reply(body, isolationName(#isolation))
            }
        }
    }

    func fetch(_ path: String) async -> String {
        "article \(path)"
    }
}

/// A view model on the main actor that loads two ways.
@MainActor final class ArticleViewModel {
    private(set) var title = ""
    let client = RequestClient()

    /// `Task {}` written in a `@MainActor` method: the task is isolated to the main actor,
    /// so after `await` it may set `title`.
    func loadInMethod() -> Task<String, Never> {
        Task {
            let body = await client.fetch("/articles/1")
            title = body
            return isolationName(#isolation)
        }
    }

    /// The same `Task {}`, written in the client's closure. This method runs on the main actor
    /// and calls `request` synchronously, so the task is *created* while the main actor runs —
    /// and is still not on it. Returns the closure's `#isolation` and the task's.
    func loadThroughClient() async -> (closure: String, task: String) {
        let closure = Locked("")
        let task = await withCheckedContinuation { continuation in
            client.request("/articles/1", seen: { isolation in closure.withLock { $0 = isolation } }) { _, isolation in
                continuation.resume(returning: isolation)
            }
        }
        return (closure.current, task)
    }
}

extension Chapter07 {
    /// The child: the slides' crash. The code after `await` stands for a UI update, which needs
    /// the main actor; here it checks with `MainActor.preconditionIsolated`, which stops the program
    /// when the check fails, in debug and release builds alike.
    static let taskOffMainActorChild = "task-off-main-actor"

    static func taskOffMainActor() -> Never {
        Task { @MainActor in
            let client = RequestClient()
            client.request("/articles/1") { body, _ in
                MainActor.preconditionIsolated("the screen is updated with \(body) on the main actor")
                Console.line("updated the screen")   // not reached when the check fails
            }
        }
        serveMainThreadThenExit()
    }

    static let staticIsolation = Scenario(
        slug: "task-isolation-is-static",
        title: Localized("A Task {} is isolated where it is written, not where it is created", ja: "Task {} の隔離は、作られた場所ではなく書かれた場所で決まる"),
        narration: Localized(
            """
            The slides' crash: a view model on the main thread called the API client's `request`, whose closure started a `Task {}`; the code after its `await` updated the UI, and the app crashed. \
            A `Task {}` inherits the isolation of the code it is written in, decided when that code is compiled. \
            1) The same `Task { let body = await fetch(); … }` written in a `@MainActor` method, and written in the client's closure (an ordinary method's closure, run at once on the caller's side), \
            called from the main actor. Each reports its `#isolation`; the closure reports its own too. \
            2) A child process (`ch07-actors --child task-off-main-actor`) runs the second one with a check where the UI update would be: `MainActor.preconditionIsolated()`.
            """,
            ja: """
            スライドのクラッシュです。メインスレッドのビューモデルが API クライアントの `request` を呼び、そのクロージャが `Task {}` を始め、その `await` の後のコードが UI を更新して、アプリがクラッシュしました。\
            `Task {}` は、それが書かれたコードの隔離を引き継ぎます。それはコードをコンパイルするときに決まります。\
            1) 同じ `Task { let body = await fetch(); … }` を、`@MainActor` のメソッドの中と、クライアントのクロージャ（普通のメソッドのクロージャで、呼び出し元ですぐに実行される）の中に書き、\
            メインアクターから呼びます。それぞれが `#isolation` を報告し、クロージャも自分の `#isolation` を報告します。\
            2) 子プロセス（`ch07-actors --child task-off-main-actor`）で 2 つ目を実行し、UI を更新するはずの場所で `MainActor.preconditionIsolated()` により確かめます。
            """),
        prediction: .init(
            question: Localized(
                "An ordinary method runs a closure at once, called from the main actor; the closure starts a Task {}. Is that task on the main actor? A) yes: it was created while the main actor ran B) no: isolation comes from where the Task is written",
                ja: "普通のメソッドがクロージャをすぐに実行し、そのメソッドはメインアクターから呼ばれます。クロージャは Task {} を始めます。そのタスクはメインアクター上？ A) はい: メインアクターが動いている間に作られた B) いいえ: 隔離は Task が書かれた場所で決まる"),
            explanation: Localized(
                "B. The closure belongs to a method that is not isolated, so its `#isolation` is nil, whoever calls it; the `Task {}` inherits that, and its code after `await` runs on the global executor. Checked with `#isolation` and `MainActor.preconditionIsolated()`, never with the thread.",
                ja: "B です。クロージャは隔離されていないメソッドのものなので、誰が呼んでも `#isolation` は nil です。`Task {}` はそれを引き継ぎ、`await` の後のコードはグローバルエグゼキュータで動きます。確かめるのは `#isolation` と `MainActor.preconditionIsolated()` で、スレッドではありません。"),
            observe: { $0.noted("client task letter") ?? "" },
            isPossible: { $0 == "B" })
    ) { context in
        let viewModel = ArticleViewModel()
        let inMethod = await viewModel.loadInMethod().value
        let (closure, throughClient) = await viewModel.loadThroughClient()
        let title = await viewModel.title
        context.note("method task isolation", inMethod)
        context.note("client closure isolation", closure)
        context.note("client task isolation", throughClient)
        context.note("client task letter", throughClient == "MainActor" ? "A" : "B")
        let lane = Localized("main actor", ja: "メインアクター")
        let other = Localized("client's Task", ja: "クライアントの Task")
        context.trace.record(Localized("Task in @MainActor method: \(inMethod)", ja: "@MainActor メソッドの Task: \(inMethod)"), lane: lane)
        context.trace.record(Localized("closure: \(closure)", ja: "クロージャ: \(closure)"), lane: other)
        context.trace.record(Localized("Task after await: \(throughClient)", ja: "await 後の Task: \(throughClient)"), lane: other)
        context.note("title set", title)
        context.say(Localized("1) Called from the main actor, `#isolation` seen:", ja: "1) メインアクターから呼んだときの `#isolation`:"))
        let rows = [
            (Localized("Task {} in a @MainActor method, after await", ja: "@MainActor メソッド内の Task {}、await の後"), inMethod),
            (Localized("the client's closure", ja: "クライアントのクロージャ"), closure),
            (Localized("Task {} in that closure, after await", ja: "そのクロージャ内の Task {}、await の後"), throughClient),
        ]
        for (what, isolation) in rows { context.show("   " + padded(context.text(what), to: 48) + isolation) }
        context.say(Localized("2) The second one, with a check where the UI would be updated (child process):",
                              ja: "2) 2 つ目を、UI を更新する場所に確認を置いて（子プロセス）:"))
        let childLane = Localized("child process", ja: "子プロセス")
        context.trace.begin(.verbatim("--child \(taskOffMainActorChild)"), lane: childLane)
        let crash = context.runCrashingChild(taskOffMainActorChild)
        context.trace.end(.verbatim("--child \(taskOffMainActorChild)"), lane: childLane)
        if let crash {
            context.note("child termination", "\(crash.termination)")
            context.note("child frames", crash.frames.joined(separator: " | "))
            context.report(crash)
            context.say(Localized(
                "   On Linux the failed check stops inside libdispatch's `dispatch_assert_queue`, before the message is printed: the frames say where. The task was created on the main actor and ran off it, exactly the slides' crash — now at the check, not later inside UIKit.",
                ja: "   Linux では、失敗した確認はメッセージを出す前に libdispatch の `dispatch_assert_queue` の中で止まります。どこで止まったかはフレームが示します。タスクはメインアクター上で作られ、その外で動きました。スライドのクラッシュそのものですが、後で UIKit の中ではなく、確認の場所で止まります。"))
        }
    }
}
