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
            10 ms に読み手が `token()` を呼びます。2 つのタイマーは同時に期限が来るので、順序をあなたが選びます。リフレッシュの実行中に問い合わせた読み手は、新しいトークン v2 を得なければなりません。\
            読み手に v1 を渡せますか？ v2 は？
            """),
        explanation: Localized(
            """
            The reader's `token()` ran while `refreshToken()` was suspended — waiting for the server, or waiting to get back onto the actor with the answer. \
            An actor runs one job at a time, but an `await` inside it ends the job: other calls run before the method resumes. The fix is in the reader: join the stored task (scenario 1, part 2).
            """,
            ja: """
            読み手の `token()` は、`refreshToken()` がサスペンドしている間（サーバーを待つ間か、応答を持ってアクターに戻るのを待つ間）に動きました。\
            アクターは一度に 1 つのジョブしか実行しませんが、アクターの中の `await` はそこでジョブを終わらせます。メソッドが再開する前に、他の呼び出しが動きます。直すのは読み手の側です。保存されたタスクに合流させます（シナリオ 1 のパート 2）。
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
            実行中のダウンロードも状態です。最初の `await` の前に、その `Task` を `[URL: Task<Image, Error>]` に保存し、B を合流させます（シナリオ 2 のパート 2）。
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
}
