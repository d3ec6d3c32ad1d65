import Foundation
import WorkbookCore

/// The remote feature flag: what share of users, by a stable bucket, take the new async path.
actor RemoteConfig {
    private(set) var asyncPercent = 0

    func set(asyncPercent: Int) {
        self.asyncPercent = asyncPercent
    }

    func usesAsync(user: Int) -> Bool {
        user % 100 < asyncPercent
    }
}

/// The request layer during the migration: the old callback path and the new async one, chosen
/// per request by the flag. `replyType` says how the new path hands the reply to the screen:
/// through a plain `@Sendable` closure (the slides' forgotten wrap) or a `@MainActor` one (the fix).
final class MigratingRequestLayer: Sendable {
    enum Bridge: Sendable { case plainClosure, mainActorClosure }

    let config: RemoteConfig
    let bridge: Bridge

    init(config: RemoteConfig, bridge: Bridge) {
        self.config = config
        self.bridge = bridge
    }

    /// Sends one request for `user` and reports where its reply reached the screen's code.
    func send(for user: Int) async -> (usedAsync: Bool, replyIsolation: String) {
        guard await config.usesAsync(user: user) else {
            return (false, await oldPath())
        }
        switch bridge {
        case .plainClosure:
            return (true, await withCheckedContinuation { continuation in
                Task { continuation.resume(returning: isolationName(#isolation)) }        // no hop: off the main actor
            })
        case .mainActorClosure:
            return (true, await withCheckedContinuation { continuation in
                Task { @MainActor in continuation.resume(returning: isolationName(#isolation)) }  // the hop, in the bridge
            })
        }
    }

    /// The old path delivered on the main queue, as the app's Rx code did with `observe(on:)`.
    private func oldPath() async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async {
                continuation.resume(returning: MainActor.assumeIsolated { isolationName(#isolation) })
            }
        }
    }
}

extension Chapter07 {
    /// The slides' shape in code the compiler checks: a client with a plain callback (no
    /// `Sendable`, as RxSwift's closures) that calls it from a `Task {}`, and a view model that
    /// sets its title there, with no wrap.
    static let slidesClientDiagnostic = Diagnostic(
        code: """
        final class RequestClient {
            func request(_ path: String, reply: @escaping (String) -> Void) {
                Task { reply("article \\(path)") }
            }
        }
        @MainActor final class ArticleViewModel {
            var title = ""
            let client = RequestClient()
            func load() {
                client.request("/articles/1") { body in self.title = body }
            }
        }
        """,
        errors: ["passing closure as a 'sending' parameter risks causing data races between code in the current task and concurrent execution of the closure"],
        reason: Localized(
            "The error points at the client's `Task { reply(…) }`: the main-actor closure would run off the main actor there. That is the one place to fix — the bridge — not each screen.",
            ja: "エラーはクライアントの `Task { reply(…) }` を指します。メインアクターのクロージャが、そこでメインアクターの外で動いてしまうからです。直すべき場所はそこ、ブリッジの 1 か所で、画面ごとではありません。"),
        needsBuild: true)

    /// What three language settings said about that code, with Swift 6.3.1 (a build: the check is
    /// a data-flow one). `run 12 compile=1` asks the compiler again; `Chapter07Tests` checks these.
    static let strictnessSteps: [(arguments: [String], label: Localized, recorded: String)] = [
        (["-swift-version", "5"], Localized("Swift 5, minimal checking", ja: "Swift 5、最小限の検査"), "no diagnostic"),
        (["-swift-version", "5", "-strict-concurrency=complete"],
         Localized("Swift 5, -strict-concurrency=complete", ja: "Swift 5、-strict-concurrency=complete"), "warning"),
        (["-swift-version", "6"], Localized("Swift 6 language mode", ja: "Swift 6 言語モード"), "error"),
    ]

    /// A result as the learner reads it.
    static func strictnessText(_ result: String) -> Localized {
        switch result {
        case "no diagnostic": Localized("no diagnostic", ja: "診断なし")
        case "warning": Localized("warning", ja: "警告")
        case "error": Localized("error", ja: "エラー")
        default: .verbatim(result)
        }
    }

    static let adoption = Scenario(
        slug: "adoption",
        title: Localized("Adoption: small scope, a feature flag, a phased rollout, then Swift 6 mode", ja: "導入: 小さな範囲、フィーチャーフラグ、段階的リリース、そして Swift 6 モード"),
        narration: Localized(
            """
            How the slides adopted Swift concurrency: a small scope first (the API request layer and the token refresh), some requests then all, a phased release behind a remote feature flag \
            (off, then partly on, then all on, then the flag removed), and the flag turned off within minutes when the phased release crashed. \
            A simulation of `users` users: the flag picks the old callback path or the new async path per user. In the first rollout the new path hands replies to the screen through a plain closure (the forgotten wrap), \
            so some UI updates come off the main actor — counted here by `#isolation`; in the app they were crashes. \
            Then the step the slides left open: Swift 6 language mode, shown on the slides' shape built under three compiler settings (`compile=1` runs the compiler, about 1 s).
            """,
            ja: """
            スライドが Swift の並行性機能を導入した方法: 最初は小さな範囲（API リクエスト層とトークンのリフレッシュ）、一部のリクエストから全体へ、リモートのフィーチャーフラグの後ろでの段階的リリース\
            （オフ、一部オン、全体オン、フラグ削除）、そして段階的リリースでクラッシュしたときに数分でフラグをオフに。\
            `users` 人のシミュレーション: フラグがユーザーごとに、古いコールバックの経路か新しい async の経路かを選びます。最初のリリースでは、新しい経路が応答を普通のクロージャで画面に渡すので（包み忘れ）、\
            UI の更新の一部がメインアクターの外で起きます。ここでは `#isolation` で数えます。アプリではクラッシュでした。\
            続いてスライドが残した一歩: Swift 6 言語モード。スライドの形のコードを 3 つのコンパイラ設定でビルドして見ます（`compile=1` でコンパイラを実行。約 1 秒）。
            """),
        knobs: [
            .init("users", default: 1_000, range: 100...100_000, help: Localized("simulated users, one request each per phase", ja: "シミュレーションのユーザー数（各段階で 1 人 1 リクエスト）")),
            .init("compile", default: 0, range: 0...1, help: Localized("1: build the slides' shape with swiftc under three settings", ja: "1 のとき、スライドの形のコードを 3 つの設定で `swiftc` でビルドする")),
        ]
    ) { context in
        let users = context.knob("users")
        let config = RemoteConfig()
        let buggy = MigratingRequestLayer(config: config, bridge: .plainClosure)
        let fixed = MigratingRequestLayer(config: config, bridge: .mainActorClosure)
        let phases: [(Localized, Int, MigratingRequestLayer)] = [
            (Localized("flag off", ja: "フラグ オフ"), 0, buggy),
            (Localized("10 % on", ja: "10 % オン"), 10, buggy),
            (Localized("flag off again", ja: "再びフラグ オフ"), 0, buggy),
            (Localized("bridge fixed, 10 % on", ja: "ブリッジ修正、10 % オン"), 10, fixed),
            (Localized("all on", ja: "全体オン"), 100, fixed),
            (Localized("flag removed", ja: "フラグ削除"), 100, fixed),
        ]
        let widths = [26, 16, 20]
        context.show("  " + tableRow([Localized("phase", ja: "段階"), Localized("async path", ja: "async の経路"),
                                       Localized("off the main actor", ja: "メインアクター外")].map(context.text), widths: widths))
        let lane = Localized("rollout", ja: "リリース")
        var offMainByPhase: [Int] = []
        for (name, percent, layer) in phases {
            await config.set(asyncPercent: percent)
            let results = await withTaskGroup(of: (Bool, String).self) { group in
                for user in 0..<users { group.addTask { await layer.send(for: user) } }
                var results: [(Bool, String)] = []
                for await result in group { results.append(result) }
                return results
            }
            let onAsync = results.filter(\.0).count
            let offMain = results.filter { $0.1 != "MainActor" }.count
            offMainByPhase.append(offMain)
            context.show("  " + tableRow([context.text(name), "\(onAsync)/\(users)", String(offMain)], widths: widths))
            context.trace.record(Localized("\(name.en): \(offMain)", ja: "\(name.ja): \(offMain)"), lane: lane)
        }
        context.note("off main by phase", offMainByPhase.map(String.init).joined(separator: ","))
        context.say(Localized(
            """
            The flag made each step small and reversible: 10 % of users met the forgotten wrap, and turning the flag off stopped it at once, with no release. \
            The fix went where the compiler enforces it (the bridge's reply type, scenario 9) before the rollout went on. \
            The step the slides left open — strict concurrency checking — would have found the forgotten wrap before any release. The slides' shape — a callback that is not `Sendable`, called from a `Task {}` — and what a build said of it under three settings:
            """,
            ja: """
            フラグのおかげで、各段階は小さく、元に戻せるものになりました。包み忘れに当たったのはユーザーの 10 % で、フラグをオフにするとリリースなしですぐに止まりました。\
            修正は、段階的リリースを進める前に、コンパイラが強制する場所（ブリッジの応答の型、シナリオ 9）に入りました。\
            スライドが残した一歩、厳格な並行性チェックがあれば、包み忘れはリリースの前に見つかっていたはずです。スライドの形（`Sendable` でないコールバックを `Task {}` から呼ぶ）と、3 つの設定でビルドしたときの結果:
            """))
        context.show(slidesClientDiagnostic)
        let compiled = context.knob("compile") == 1 ? await onDedicatedThread { strictnessResults() } : nil
        for (index, step) in strictnessSteps.enumerated() {
            let result = compiled?[index] ?? step.recorded
            context.show("    " + padded(context.text(step.label), to: 40) + context.text(strictnessText(result)))
            context.note("strictness \(index)", result)
        }
        if compiled == nil {
            context.say(Localized("    (Recorded with Swift 6.3.1; `run 12 compile=1` asks this compiler.)",
                                  ja: "    （Swift 6.3.1 で記録したもの。`run 12 compile=1` でこのコンパイラに尋ねます。）"))
        }
        context.say(Localized(
            "Turn it on per module: `-strict-concurrency=complete` in the Swift 5 mode gives warnings to fix, then `.swiftLanguageMode(.v6)` makes them errors. In this package every target is in the Swift 6 mode except `Ch07LegacyLibrary`, kept in the Swift 5 mode to play a library that has not moved.",
            ja: "モジュールごとに有効にします。Swift 5 モードで `-strict-concurrency=complete` にすると直すべき警告が出て、`.swiftLanguageMode(.v6)` でそれがエラーになります。このパッケージでは、まだ移行していないライブラリの役として Swift 5 モードのままの `Ch07LegacyLibrary` を除き、すべてのターゲットが Swift 6 モードです。"))
    }

    /// Builds the slides' shape under each setting: "error", "warning" or "no diagnostic".
    static func strictnessResults() -> [String] {
        let code = slidesClientDiagnostic.code + "\n"
        return strictnessSteps.map { step in
            switch DiagnosticCompiler.typecheck(code, arguments: step.arguments, build: true) {
            case let .success(output):
                if output.contains(": error:") { return "error" }
                if output.contains(": warning:") { return "warning" }
                return "no diagnostic"
            case .failure:
                return "?"
            }
        }
    }
}

/// Runs the toolchain's `swiftc` on a snippet (scenario 12, and the tests that check the
/// chapter's recorded diagnostics).
enum DiagnosticCompiler {
    /// `swiftc -typecheck` (or a build to an object file, `build: true`) with `arguments`;
    /// the compiler's standard error, or why it could not run.
    static func typecheck(_ code: String, arguments: [String], build: Bool = false) -> Result<String, any Error> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ch07-diagnostic-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("snippet.swift")
            try code.write(to: file, atomically: true, encoding: .utf8)
            #if canImport(Darwin)
            let command = ["xcrun", "swiftc"]
            #else
            let command = ["swiftc"]
            #endif
            let mode = build ? ["-c", "-o", folder.appendingPathComponent("snippet.o").path] : ["-typecheck"]
            let outcome = try ChildProcess(executable: URL(fileURLWithPath: "/usr/bin/env"),
                                           arguments: command + mode + ["-parse-as-library"] + arguments + [file.path])
                .run(timeoutSeconds: 120)
            return .success(outcome.standardError)
        } catch {
            return .failure(error)
        }
    }
}
