import WorkbookCore

/// `workbook --help` and `workbook COMMAND --help`, in English and Japanese.
enum WorkbookHelp {
    static func text(for command: WorkbookOptions.Command?, language: Language) -> String {
        let text: Localized = switch command {
        case nil, .help, .status: overview
        case .check: Localized("""
            Usage: swift run workbook check [ID]
              Builds your code and checks one exercise — the next unfinished one if no ID is
              given — with the same verdict and report as `swift test --filter ExercisesTests.ID`,
              then shows where you stand. Exit status 1 when it is failing or does not compile.
            """, ja: """
            使い方: swift run workbook check [ID]
              コードをビルドし、演習を 1 つチェックします（ID を省くと次の未完了の演習）。判定とレポートは
              `swift test --filter ExercisesTests.ID` と同じで、そのあと全体の状況を表示します。
              失敗またはコンパイルできないときの終了コードは 1 です。
            """)
        case .watch: Localized("""
            Usage: swift run workbook watch
              Watches every exercise file and checks an exercise each time you save it (editors
              that save by renaming a new file over the old one are seen too). A file that does
              not compile shows the compiler's messages and the watch goes on.
              Keys: q quits, r checks the last exercise again, h shows its next hint; Ctrl-D (end of
              input) also quits. Piped input is read a line at a time.
            """, ja: """
            使い方: swift run workbook watch
              すべての演習ファイルを監視し、保存するたびにその演習をチェックします（新しいファイルを
              書いて名前を付け替える保存方式のエディタでも検出します）。コンパイルできないときは
              コンパイラのメッセージを表示し、監視を続けます。
              キー: q で終了、r で直前の演習をもう一度チェック、h でその次のヒント。Ctrl-D（入力の終わり）
              でも終了します。パイプからの入力は 1 行ずつ読みます。
            """)
        case .hint: Localized("""
            Usage: swift run workbook hint ID
              The next layer of hints for the exercise each time you ask, from a nudge to nearly the
              answer. After a failing check, the hints for the property that failed come first.
            """, ja: """
            使い方: swift run workbook hint ID
              聞くたびに、その演習の次の段階のヒントを表示します（軽い手がかりから、ほぼ答えまで）。
              チェックで失敗した後は、失敗した性質のためのヒントから表示します。
            """)
        case .reset: Localized("""
            Usage: swift run workbook reset ID
              Puts the exercise's stub back. Your file is first kept in exercises/backups/ with a
              timestamp (never lost); a file that is still the stub is left alone.
            """, ja: """
            使い方: swift run workbook reset ID
              演習のスタブを元に戻します。その前に、あなたのファイルを時刻付きで exercises/backups/ に
              残します（失われることはありません）。スタブのままのファイルには何もしません。
            """)
        case .solution: Localized("""
            Usage: swift run workbook solution ID [--force]
              Shows the reference solution once your answer is done. --force shows it anyway, with a
              warning.
            """, ja: """
            使い方: swift run workbook solution ID [--force]
              あなたの解答が完了したら模範解答を表示します。--force を付けると、警告とともにそれでも表示します。
            """)
        case .progress: Localized("""
            Usage: swift run workbook progress [--json | --markdown]
              Every exercise's status, for a facilitator to collect. --json has a stable shape
              (schema 1: counts, and per exercise id, chapter, status, failedProperty, checkedAt);
              --markdown is a table for notes or slides.
            """, ja: """
            使い方: swift run workbook progress [--json | --markdown]
              すべての演習の状態を、ファシリテーターが集められる形で表示します。--json の形は固定です
              （schema 1: counts と、演習ごとの id、chapter、status、failedProperty、checkedAt）。
              --markdown はメモやスライド向けの表です。
            """)
        case .session: Localized("""
            Usage: swift run workbook session NN
              Prints the facilitator's session plan for chapter NN (docs/sessions/, Japanese with
              --lang ja).
            """, ja: """
            使い方: swift run workbook session NN
              第 NN 章の進行台本（ファシリテーター向け）を表示します（docs/sessions/、日本語は --lang ja）。
            """)
        }
        return text.text(language)
    }

    static let overview = Localized("""
        Usage: swift run workbook [COMMAND] [options]
          (no command)        every exercise with its status, and what to do next
          check [ID]          check one exercise (default: the next unfinished one)
          watch               check an exercise each time you save it (q quits)
          hint ID             the next hint for an exercise
          reset ID            put the stub back (your file is kept in exercises/backups/)
          solution ID         the reference solution, once yours is done (--force: anyway)
          progress            statuses for a facilitator (--json, --markdown)
          session NN          the facilitator's plan for chapter NN
        Options: --lang en|ja, --no-color, --help (also after a command).
        Statuses are cached in .build/workbook/state.json (safe to delete); an exercise whose file
        changed is checked again. Exit status: 0 fine, 1 failing or not compiling, 2 bad usage.
        """, ja: """
        使い方: swift run workbook [コマンド] [オプション]
          （コマンドなし）    すべての演習の状態と、次にやること
          check [ID]          演習を 1 つチェック（省略時は次の未完了の演習）
          watch               保存するたびにその演習をチェック（q で終了）
          hint ID             演習の次のヒント
          reset ID            スタブに戻す（あなたのファイルは exercises/backups/ に残します）
          solution ID         解答が完了したら模範解答を表示（--force: それでも表示）
          progress            ファシリテーター向けの状態（--json、--markdown）
          session NN          第 NN 章の進行台本（ファシリテーター向け）
        オプション: --lang en|ja、--no-color、--help（コマンドの後にも付けられます）。
        状態は .build/workbook/state.json に保存します（消しても問題ありません）。ファイルが変わった演習は
        もう一度チェックします。終了コード: 0 正常、1 失敗またはコンパイル不可、2 使い方の誤り。
        """)
}
