import WorkbookCore
import WorkbookExplorer

extension Chapter08 {
    // MARK: Game 1: the token refresh

    static let tokenRefreshGame = Game(
        slug: "token-refresh",
        title: Localized("The token refresh: can the reader get the old token?", ja: "トークンのリフレッシュ: 読み手に古いトークンを渡せるか？"),
        narration: Localized(
            """
            The refresher calls `refreshToken()` on the `AuthManager` actor at 0 ms and suspends at the server, which answers at 10 ms. \
            At 10 ms the reader calls `token()`. Both timers are due together: you pick. A reader that asks while a refresh is in flight must get the new token, v2. \
            Can you make it get v1? Can you make it get v2?
            """,
            ja: """
            リフレッシュ役が 0 ms に `AuthManager` アクターの `refreshToken()` を呼び、サーバーでサスペンドします。サーバーは 10 ms に応答します。\
            10 ms に読み手が `token()` を呼びます。2 つのタイマーは同時に満了するので、順序をあなたが選びます。リフレッシュの実行中に問い合わせた読み手は、新しいトークン v2 を得なければなりません。\
            読み手に v1 を渡せますか？ v2 は？
            """),
        explanation: Localized(
            """
            The reader's `token()` ran while `refreshToken()` was suspended — waiting for the server, or waiting to get back onto the actor with the answer. \
            An actor runs one job at a time, but an `await` inside it ends the job: other calls run before the method resumes. The fix is in the reader: join the stored task (scenario 1, part 2).
            """,
            ja: """
            読み手の `token()` は、`refreshToken()` がサスペンドしている間（サーバーを待つ間か、応答を持ってアクターに戻るのを待つ間）に動きました。\
            アクターは一度に 1 つのジョブしか実行しませんが、アクターの中の `await` はそこでジョブを終わらせます。メソッドが再開する前に、他の呼び出しが動きます。直すのは読み手の側です。保存されたタスクに加わらせます（シナリオ 1 のパート 2）。
            """),
        classify: classifyReader,
        body: tokenAsItHappened)

    // MARK: Game 2: the image cache

    static let imageCacheGame = Game(
        slug: "image-cache",
        title: Localized("The image cache: can you make it download the avatar twice?", ja: "画像キャッシュ: アバターを 2 回ダウンロードさせられるか？"),
        narration: Localized(
            """
            Cell A asks the `ImageCache` actor for the avatar at 0 ms; the download ends at 10 ms. At 10 ms cell B asks for the same avatar. \
            The cache checks `images[url]`, awaits the download, then stores the image. One download is the rule. Can you make two? Can you make one?
            """,
            ja: """
            セル A が 0 ms に `ImageCache` アクターへアバターを求め、ダウンロードは 10 ms に終わります。10 ms にセル B が同じアバターを求めます。\
            キャッシュは `images[url]` を確かめ、ダウンロードを await し、それから画像を保存します。ダウンロードは 1 回であるべきです。2 回にできますか？ 1 回には？
            """),
        explanation: Localized(
            """
            B checked the cache while A was suspended — at the download, or on its way back to the actor to store the image — found nothing, and downloaded again. \
            The download in flight is state too: store a `Task` for it in `[URL: Task<Image, Error>]` before the first `await`, and let B join it (scenario 2, part 2).
            """,
            ja: """
            B は A がサスペンドしている間（ダウンロード中か、画像を保存しにアクターへ戻る途中）にキャッシュを確かめ、何もないのでもう一度ダウンロードしました。\
            実行中のダウンロードも状態です。最初の `await` の前に、その `Task` を `[URL: Task<Image, Error>]` に保存し、B を加わらせます（シナリオ 2 のパート 2）。
            """),
        classify: classifyDownloads,
        body: racyCacheCells)

    // MARK: Game 3: check, await, act

    static let withdrawGame = Game(
        slug: "check-then-act",
        title: Localized("Check, await, act: can you overdraw the account?", ja: "確かめて、await して、実行する: 口座を残高以上に引き出せるか？"),
        narration: Localized(
            """
            The account holds 100. A withdraws 80 at 0 ms: it checks the balance, then awaits a fraud check that answers at 10 ms, then debits. \
            B withdraws 30 at 10 ms, the same way. The balance must never go below zero. Can you make it?
            """,
            ja: """
            口座の残高は 100 です。A が 0 ms に 80 を引き出します。残高を確かめ、10 ms に応答する不正チェックを await し、それから引き落とします。\
            B も同じ方法で 10 ms に 30 を引き出します。残高は決して 0 を下回ってはいけません。下回らせられますか？
            """),
        explanation: Localized(
            """
            B's check ran while A was suspended at the fraud check, and saw the same 100. Both checks passed; both debited. \
            Inside an actor a check is true only until the next `await`: check again after it, in the stretch that debits (scenario 3, part 3).
            """,
            ja: """
            B の確認は A が不正チェックでサスペンドしている間に動き、同じ 100 を見ました。両方の確認が通り、両方が引き落としました。\
            アクターの中でも、確認が真なのは次の `await` までです。`await` の後、引き落とすのと同じ区間でもう一度確かめます（シナリオ 3 のパート 3）。
            """),
        classify: classifyWithdrawals,
        body: checkThenActWithdrawals)

    // MARK: Game 4: the refresh in an actor, without a task in flight

    static let actorRefreshGame = Game(
        slug: "actor-is-not-a-flow-lock",
        title: Localized("The refresh in an actor: can you make the server refresh twice?", ja: "アクターの中のリフレッシュ: サーバーに 2 回リフレッシュさせられるか？"),
        narration: Localized(
            """
            Requests A and B were rejected with v1. A calls `refreshToken(rejected: v1)` at 0 ms; the server answers at 10 ms; B calls it at 10 ms. \
            The actor refreshes only if the rejected token is still the current one. One refresh is the rule: a second one retires the token the first handed out. Can you make two?
            """,
            ja: """
            リクエスト A と B が v1 で拒否されました。A が 0 ms に `refreshToken(rejected: v1)` を呼び、サーバーは 10 ms に応答し、B が 10 ms に呼びます。\
            アクターは、拒否されたトークンがまだ現在のものであるときだけリフレッシュします。リフレッシュは 1 回であるべきです。2 回目は 1 回目が渡したトークンを無効にします。2 回にできますか？
            """),
        explanation: Localized(
            """
            B's guard ran while A was suspended at the server: the current token was still v1, so B refreshed too. The actor kept each access safe; nothing kept the flow — check, refresh, store — whole. \
            The callback version has the same hole (scenario 4, part 1); the refresh in flight, stored before the `await`, closes it (part 3).
            """,
            ja: """
            B の guard は A がサーバーでサスペンドしている間に動きました。現在のトークンはまだ v1 だったので、B もリフレッシュしました。アクターは個々のアクセスを安全にしましたが、確認・リフレッシュ・保存という一連の処理をひとまとまりに保つものはありませんでした。\
            コールバック版にも同じ穴があります（シナリオ 4 のパート 1）。`await` の前に保存する実行中のリフレッシュが、それを塞ぎます（パート 3）。
            """),
        classify: classifyRefreshes,
        body: actorWithoutInFlight)

    // MARK: Game 5: a second flow while the first is presenting

    static let presentationGame = Game(
        slug: "main-actor-presentation",
        title: Localized("Two gifts, two flows: can you get a screen refused?", ja: "2 つのギフト、2 つのフロー: 画面を拒否させられるか？"),
        narration: Localized(
            """
            Gift 1 arrives at 0 ms and its flow presents rankup1, then reward1; the user closes each screen 10 ms after it appears. \
            Gift 2 arrives at 10 ms and `self.task = Task { … }` starts its flow while gift 1's is still running. Everything runs on the main actor. \
            A refused screen (`already presenting`) leaves its flow waiting for ever. Is there an order of steps that avoids it?
            """,
            ja: """
            ギフト 1 が 0 ms に届き、そのフローが rankup1、次に reward1 を表示します。ユーザーは各画面を表示の 10 ms 後に閉じます。\
            ギフト 2 は 10 ms に届き、`self.task = Task { … }` がギフト 1 のフローの実行中にそのフローを始めます。すべてメインアクターの上で動きます。\
            拒否された画面（`already presenting`）は、そのフローを永遠に待たせます。それを避けられる実行順はありますか？
            """),
        explanation: Localized(
            """
            No order avoids it. The two flows interleaved on the main actor: one presented while the other's screen was up, was refused, and its continuation was never resumed — the flow's task waits for ever, holding `self`. \
            Overwriting `task` did not stop the first flow. Queue the flows (each task awaits the previous one) or cancel the previous flow and wait for it to finish (scenario 5, part 2).
            """,
            ja: """
            どの順序でも避けられません。2 つのフローがメインアクター上で交互に進みました。片方の画面が表示中にもう片方が表示しようとして拒否され、その継続は再開されませんでした。そのフローのタスクは `self` を保持したまま永遠に待ちます。\
            `task` を上書きしても最初のフローは止まりません。フローを順に並べるか（各タスクが前のタスクを await する）、前のフローをキャンセルして終わるのを待ちます（シナリオ 5 のパート 2）。
            """),
        classify: classifyFlows,
        body: overwrittenTaskFlows)

    // MARK: Game 6: stale search results

    static let staleSearchGame = Game(
        slug: "stale-results",
        title: Localized("Search as you type: can the older query's results win?", ja: "入力しながら検索: 古いクエリの結果を勝たせられるか？"),
        narration: Localized(
            """
            The user types "sw" at 0 ms and "swift" at 5 ms. The `@MainActor` view model's `search(_:)` sets the query, awaits the API, and sets the results. \
            The answer for "sw" takes 10 ms, for "swift" 5 ms: both are due at 10 ms. The screen must end with the results for "swift". Can you leave "sw" on it?
            """,
            ja: """
            ユーザーが 0 ms に "sw"、5 ms に "swift" と入力します。`@MainActor` のビューモデルの `search(_:)` はクエリを設定し、API を await し、結果を設定します。\
            "sw" の応答は 10 ms、"swift" は 5 ms かかり、どちらも 10 ms に届きます。画面は最後に "swift" の結果を表示していなければなりません。"sw" を残せますか？
            """),
        explanation: Localized(
            """
            The answer for "sw" arrived after the one for "swift" and overwrote it: each search wrote whatever came back, with no look at the query it answered. \
            Keep the search in flight (cancel it when the query changes) and check, after the `await`, that the results still answer the latest query (scenario 6, part 2; chapter 04, play 2).
            """,
            ja: """
            "sw" の応答が "swift" の応答の後に届き、それを上書きしました。それぞれの検索は、どのクエリへの答えかを見ずに、返ってきたものを書き込みました。\
            実行中の検索を保持し（クエリが変わったらキャンセルし）、`await` の後で結果がまだ最新のクエリへの答えであることを確かめます（シナリオ 6 のパート 2、第 04 章の play 2）。
            """),
        classify: classifySearch,
        body: staleSearch)

    // MARK: Game 7: if actors were not reentrant

    static let nonReentrantGame = Game(
        slug: "non-reentrant-calls",
        title: Localized("If actors were not reentrant: can you make two calls deadlock?", ja: "アクターが再入しなかったら: 2 つの呼び出しをデッドロックさせられるか？"),
        narration: Localized(
            """
            A ledger and a bank, each run as a non-reentrant actor would be: a call holds its gate for its whole length, `await`s included. \
            A calls `ledger.post()`, which awaits `bank.approve()`; B calls `bank.audit()`, which awaits `ledger.balance()`. Can you make them wait for each other for ever?
            """,
            ja: """
            台帳と銀行を、再入しないアクターならこう動くという形で実行します。呼び出しは `await` も含めて最後までゲートを保持します。\
            A は `ledger.post()` を呼び、それが `bank.approve()` を await します。B は `bank.audit()` を呼び、それが `ledger.balance()` を await します。2 つを永遠に待ち合わせさせられますか？
            """),
        explanation: Localized(
            """
            A held the ledger and waited for the bank; B held the bank and waited for the ledger. Neither gate is given up across an `await`, so neither call can go on. \
            Swift's actors give up the actor at every `await` — they are reentrant — so the same calls on real actors end in every schedule (scenario 7, part 4). That is why the rest of this chapter is needed.
            """,
            ja: """
            A は台帳を保持して銀行を待ち、B は銀行を保持して台帳を待ちました。どちらのゲートも `await` をまたいで手放されないので、どちらの呼び出しも先へ進めません。\
            Swift のアクターはすべての `await` でアクターを手放します（再入可能）。だから本物のアクターでは、同じ呼び出しがどのスケジュールでも終わります（シナリオ 7 のパート 4）。この章の残りの内容が必要になるのはそのためです。
            """),
        classify: classifyDone,
        body: nonReentrantCalls)

    // MARK: Game 8: two saves on a reentrant actor

    static let savesGame = Game(
        slug: "when-reentrancy-is-not-wanted",
        title: Localized("Two saves on an actor: can the older draft end up on the server?", ja: "アクターへの 2 回の保存: 古い下書きをサーバーに残せるか？"),
        narration: Localized(
            """
            The editor saves d1 at 0 ms (a 10 ms upload) and d2 at 5 ms (a 5 ms upload) through an actor whose `save(_:)` awaits the upload. \
            Both uploads end at 10 ms. Rule: one upload at a time, and the server ends with d2. Can you leave d1 there? Can you keep the uploads apart?
            """,
            ja: """
            エディタが、アップロードを await する `save(_:)` を持つアクターを通して、0 ms に d1（アップロード 10 ms）、5 ms に d2（アップロード 5 ms）を保存します。\
            どちらのアップロードも 10 ms に終わります。規則: アップロードは一度に 1 つで、サーバーは最後に d2 を持つ。d1 を残せますか？ アップロードを重ならないようにできますか？
            """),
        explanation: Localized(
            """
            d2's save ran while d1's was suspended at the upload, so both uploads were in flight at once, whatever the order of steps (that alone breaks the rule), and they could end in either order. \
            There is no non-reentrant actor: change state before the first `await`, chain each task to the previous one, or feed one consumer through an `AsyncStream` (scenario 8).
            """,
            ja: """
            d1 の保存がアップロードでサスペンドしている間に d2 の保存が動いたので、2 つのアップロードが同時に走り（どの順序でもそうなり、それだけで規則違反です）、どちらの順にも終わり得ました。\
            再入しないアクターはありません。最初の `await` の前に状態を変えるか、各タスクを前のタスクにつなぐか、`AsyncStream` で 1 つの消費者に送ります（シナリオ 8）。
            """),
        classify: classifySaves,
        body: racySaves)
}
