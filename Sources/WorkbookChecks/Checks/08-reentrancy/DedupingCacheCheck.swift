import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 08-reentrancy/DedupingCache under the explorer, on a fresh server and cache
/// per schedule, in virtual time (a download takes 10 ms). Requests come from a `Task {}`, a
/// `Task.detached` and child tasks.
///
/// 1. Three requests for one key at once.
/// 2. Requests for one key at 0, 5, 10 (as the download ends) and 20 ms.
/// 3. Two keys at once.
/// 4. The download fails under two requests; a third comes after the failure.
public enum DedupingCacheCheck {
    public static let oneDownload = Property(
        id: "downloaded-twice",
        name: Localized("one download per key", ja: "キーごとにダウンロードは 1 回"),
        rule: Localized("A key is downloaded once however many requests for it come: a request that comes while its key is downloading waits for that download; one that comes after gets the cached image.",
                        ja: "同じキーへのリクエストがいくつ来ても、ダウンロードは 1 回。そのキーのダウンロード中に来たリクエストはそのダウンロードを待ち、後から来たものはキャッシュの画像を受け取る。"))
    public static let rightImage = Property(
        id: "wrong-image",
        name: Localized("every request gets its key's image", ja: "どのリクエストも自分のキーの画像を受け取る"),
        rule: Localized("Every request gets the image of the key it asked for, from the download of it — not another key's, not an error when the download succeeded.",
                        ja: "どのリクエストも、頼んだキーの画像を、そのダウンロードから受け取る。ほかのキーの画像でも、ダウンロードが成功したのにエラーでもない。"))
    public static let failureShared = Property(
        id: "failure-not-shared",
        name: Localized("a failure reaches every waiter, and is not kept", ja: "失敗は待っている全員に届き、残らない"),
        rule: Localized("A failed download reaches every request waiting on it, as its error; a later request for that key downloads again.",
                        ja: "失敗したダウンロードは、それを待っているすべてのリクエストにそのエラーとして届く。そのキーへの後のリクエストは、もう一度ダウンロードする。"))
    public static let sideBySide = Property(
        id: "keys-wait",
        name: Localized("different keys download side by side", ja: "異なるキーは並んでダウンロードされる"),
        rule: Localized("A download never waits for another key's: two keys asked for at once are downloading at the same moment.",
                        ja: "ダウンロードがほかのキーのダウンロードを待つことはない。同時に頼まれた 2 つのキーは、同じ瞬間にダウンロード中になる。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [oneDownload, rightImage, failureShared, sideBySide, Property.finishes, Property.freshState]

    static let budget = Explorer.Budget.guaranteeing(preemptions: 2)
    static let ok = "ok"

    public typealias Make = @Sendable (ImageServer) -> any DedupingCacheProtocol

    /// What one request asked and got.
    struct Answer: Sendable {
        let caller: String
        let key: String
        let askedAt: Int
        let result: Result<RemoteImage, any Error>

        var image: RemoteImage? { try? result.get() }
        var error: (any Error)? { if case let .failure(error) = result { error } else { nil } }
        var got: String {
            switch result {
            case let .success(image): "\(image)"
            case let .failure(error): errorName(error)
            }
        }
    }

    /// Asks the cache for `key` at `at` ms of virtual time.
    static func ask(_ caller: String, _ key: String, at: Int, _ cache: any DedupingCacheProtocol) async -> Answer {
        await arrive(at: at)
        checkpoint("\(caller): image(for: \"\(key)\")")
        let result = await outcome { try await cache.image(for: key) }
        let answer = Answer(caller: caller, key: key, askedAt: at, result: result)
        checkpoint(Localized("\(caller): got \(answer.got)", ja: "\(caller): \(answer.got) を受け取った"))
        return answer
    }

    struct Case: Sendable {
        let call: Localized
        let failures: [String: Int]
        /// Downloads a right answer makes, by key.
        let downloads: [String: Int]
        let body: @Sendable (any DedupingCacheProtocol) async -> [Answer]
    }

    static let cases: [Case] = [
        Case(call: Localized("A, B and C ask for \"cat\" at once — from a Task {}, a Task.detached and a child task",
                             ja: "A、B、C が同時に \"cat\" を頼む（Task {}、Task.detached、子タスクから）"),
             failures: [:], downloads: ["cat": 1]) { cache in
            nameNextTasks(BilingualLabel.join("A (Task {})", "A（Task {}）"), BilingualLabel.join("B (Task.detached)", "B（Task.detached）"))
            let a = Task { await ask("A", "cat", at: 0, cache) }
            let b = Task.detached { await ask("B", "cat", at: 0, cache) }
            nameNextTasks("C")
            async let c = ask("C", "cat", at: 0, cache)
            return [await a.value, await b.value, await c]
        },
        Case(call: Localized("A asks for \"cat\"; B 5 ms later; C at 10 ms, as the download ends; D at 20 ms",
                             ja: "A が \"cat\" を頼む。5 ms 後に B、ダウンロードが終わる 10 ms に C、20 ms に D"),
             failures: [:], downloads: ["cat": 1]) { cache in
            nameNextTasks("A", "B", "C", "D")
            async let a = ask("A", "cat", at: 0, cache)
            async let b = ask("B", "cat", at: 5, cache)
            async let c = ask("C", "cat", at: 10, cache)
            async let d = ask("D", "cat", at: 20, cache)
            return [await a, await b, await c, await d]
        },
        Case(call: Localized("A asks for \"cat\" and B for \"dog\" at once",
                             ja: "A が \"cat\" を、B が \"dog\" を同時に頼む"),
             failures: [:], downloads: ["cat": 1, "dog": 1]) { cache in
            nameNextTasks("A", "B")
            async let a = ask("A", "cat", at: 0, cache)
            async let b = ask("B", "dog", at: 0, cache)
            return [await a, await b]
        },
        Case(call: Localized("the download of \"cat\" fails: A asks, B 5 ms later; C asks at 20 ms, after the failure",
                             ja: "\"cat\" のダウンロードが失敗する。A が頼み、5 ms 後に B。失敗の後の 20 ms に C が頼む"),
             failures: ["cat": 1], downloads: ["cat": 2]) { cache in
            nameNextTasks("A", "B", "C")
            async let a = ask("A", "cat", at: 0, cache)
            async let b = ask("B", "cat", at: 5, cache)
            async let c = ask("C", "cat", at: 20, cache)
            return [await a, await b, await c]
        },
    ]

    public static func run(_ make: @escaping Make) -> CheckResult {
        for item in cases {
            let failure = checkExplored(oneDownload, title: item.call, broken: brokenProperty(in: properties), leftWaiting: leftWaiting,
                                        observed: { observed(item.call, $0) }, budget: budget,
                                        classify: { $0 == ok ? .acceptable : .forbidden }) {
                let server = ImageServer(failures: item.failures)
                let answers = await item.body(make(server))
                await untilQuiet()  // a download nobody awaits any more still ends before the judging
                return judge(item, answers, server)
            }
            if let failure { return .failed(failure) }
        }
        return .passed(properties)
    }

    static func judge(_ item: Case, _ answers: [Answer], _ server: ImageServer) -> String {
        for answer in answers {
            if let image = answer.image, image.key != answer.key {
                return brokenOutcome(rightImage, Localized(
                    "\(answer.caller) asked for \"\(answer.key)\" and got \(image)",
                    ja: "\(answer.caller) は \"\(answer.key)\" を頼んで \(image) を受け取った"))
            }
        }
        for (key, expected) in item.downloads.sorted(by: { $0.key < $1.key }) where server.downloads(of: key) > expected {
            return brokenOutcome(oneDownload, Localized(
                "\"\(key)\" was downloaded \(server.downloads(of: key)) times (\(answers.filter { $0.key == key }.map { "\($0.caller) at \($0.askedAt) ms got \($0.got)" }.joined(separator: ", ")))",
                ja: "\"\(key)\" は \(server.downloads(of: key)) 回ダウンロードされた（\(answers.filter { $0.key == key }.map { "\($0.caller) は \($0.askedAt) ms に頼んで \($0.got)" }.joined(separator: "、"))）"))
        }
        let failing = item.failures.keys
        for answer in answers where !failing.contains(answer.key) && answer.image == nil {
            return brokenOutcome(rightImage, Localized(
                "\(answer.caller) asked for \"\(answer.key)\", which downloaded fine, and got \(answer.got)",
                ja: "\(answer.caller) は問題なくダウンロードできる \"\(answer.key)\" を頼んで \(answer.got) を受け取った"))
        }
        for key in failing {
            for answer in answers where answer.key == key && answer.askedAt < 10 && !(answer.error is ImageServerError) {
                return brokenOutcome(failureShared, Localized(
                    "\(answer.caller) waited on the download of \"\(key)\" that failed, and got \(answer.got), not its error",
                    ja: "\(answer.caller) は失敗した \"\(key)\" のダウンロードを待っていたが、そのエラーではなく \(answer.got) を受け取った"))
            }
            if let later = answers.first(where: { $0.key == key && $0.askedAt >= 10 }), later.image == nil {
                let again = server.downloads(of: key) < 2 ? Localized("without downloading again", ja: "もう一度ダウンロードせずに")
                    : Localized("although it was downloaded again", ja: "もう一度ダウンロードしたのに")
                return brokenOutcome(failureShared, Localized(
                    "\(later.caller) asked for \"\(key)\" at \(later.askedAt) ms, after the failure, and got \(later.got) \(again.en)",
                    ja: "\(later.caller) は失敗の後の \(later.askedAt) ms に \"\(key)\" を頼み、\(again.ja)\(later.got) を受け取った"))
            }
        }
        if item.downloads.count > 1 && server.mostAtOnce < item.downloads.count {
            return brokenOutcome(sideBySide, Localized(
                "\(item.downloads.keys.sorted().map { "\"\($0)\"" }.joined(separator: " and ")) were asked for at once, yet downloaded one after the other",
                ja: "\(item.downloads.keys.sorted().map { "\"\($0)\"" }.joined(separator: " と ")) は同時に頼まれたのに、1 つずつ順にダウンロードされた"))
        }
        return ok
    }

    static let leftWaiting = Localized(
        "A request never came back: it waits for a download nobody finishes — a continuation that only another request resumes, or a task that waits for itself.",
        ja: "リクエストが戻りませんでした。誰も終わらせないダウンロードを待っています（ほかのリクエストしか再開しない継続、自分自身を待つタスク）。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case oneDownload.id:
                Localized("Between checking the dictionary and storing the image there is an `await`, and a second request comes in then. Keep the download in flight — a `Task` in a dictionary by key, stored before the first `await` — and have a request that finds one await it; cache the image and remove the task in one stretch.",
                          ja: "辞書を調べてから画像を保存するまでの間に `await` があり、その間に 2 つ目のリクエストが入ってきます。実行中のダウンロード（キーごとの辞書に入れた `Task`、最初の `await` より前に保存）を持ち、それを見つけたリクエストにはそれを待たせましょう。画像のキャッシュとタスクの削除は一続きで行います。")
            case rightImage.id:
                Localized("Key everything by the key: one download in flight per key, not one for the whole cache, and the waiters of a key get that download's own result.",
                          ja: "すべてをキーごとに持ちましょう。実行中のダウンロードはキャッシュ全体で 1 つではなくキーごとに 1 つで、キーの待ち手はそのダウンロード自身の結果を受け取ります。")
            case failureShared.id:
                Localized("Give every waiter the download's own result, error included (`try await task.value` throws it to each), and remove the entry when the download ends either way: a failure must not stay in the cache.",
                          ja: "待っている全員にダウンロード自身の結果を、エラーも含めて渡しましょう（`try await task.value` は一人ひとりにエラーをスローします）。そして、ダウンロードが成功でも失敗でも終わったらエントリを消します。失敗をキャッシュに残してはいけません。")
            case sideBySide.id:
                Localized("Only requests for the same key should wait for each other: a queue or a chain of tasks for the whole cache makes every key wait for the one before it.",
                          ja: "互いに待つのは同じキーへのリクエストだけにしましょう。キャッシュ全体で 1 つのキューやタスクの連鎖にすると、どのキーも前のキーを待つことになります。")
            default:
                nil
            }
        }
    }
}
