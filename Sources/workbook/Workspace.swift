import Foundation
import WorkbookChecks
import WorkbookCore

/// The package the learner works in: its root, its exercise catalogue, and the state
/// `workbook` keeps in `.build/workbook/state.json` — a cache of verdicts and how many hints
/// were shown, safe to delete (it is rebuilt from the learner's files), never in a place a
/// `git pull` writes.
struct Workspace {
    let root: URL
    let catalog: ExerciseCatalog

    struct NotFound: Error {
        let message: Localized
    }

    /// The nearest folder at or above the current directory, or above this executable, that
    /// holds `Package.swift` and `exercises/exercises.json`.
    static func locate() throws(NotFound) -> Workspace {
        let starts = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), ChildProcess.currentExecutable.deletingLastPathComponent()]
        for start in starts {
            var folder = start.standardizedFileURL
            while true {
                let catalogFile = folder.appendingPathComponent("exercises/exercises.json")
                if FileManager.default.fileExists(atPath: catalogFile.path),
                   FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                    do {
                        return Workspace(root: folder, catalog: try ExerciseCatalog.load(packageRoot: folder))
                    } catch {
                        throw NotFound(message: Localized("cannot read \(catalogFile.path): \(error)", ja: "\(catalogFile.path) を読めません: \(error)"))
                    }
                }
                let parent = folder.deletingLastPathComponent()
                if parent.path == folder.path { break }
                folder = parent
            }
        }
        throw NotFound(message: Localized(
            "run this inside the workbook's folder (no Package.swift with exercises/exercises.json here or above)",
            ja: "ワークブックのフォルダの中で実行してください（ここにも上の階層にも exercises/exercises.json のある Package.swift がありません）"))
    }

    /// The exercise named `id` (any case), or a message naming the closest one.
    func entry(_ id: String) -> Result<ExerciseCatalog.Entry, UsageError> {
        if let entry = catalog.exercises.first(where: { $0.id.lowercased() == id.lowercased() }) { return .success(entry) }
        let near = closest(to: id, in: catalog.exercises.map(\.id))
        return .failure(UsageError(message: Localized(
            "no exercise '\(id)'" + (near.map { " — did you mean \($0)?" } ?? "") + " ('swift run workbook' lists them)",
            ja: "演習 '\(id)' はありません" + (near.map { "（\($0) のことですか？）" } ?? "") + "（一覧は 'swift run workbook'）")))
    }

    func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    func contents(of path: String) -> String? { try? String(contentsOf: url(path), encoding: .utf8) }

    // MARK: Fingerprints

    /// A fingerprint of the learner's file: a cached verdict holds while it is unchanged.
    func fingerprint(of path: String) -> String? {
        guard let data = try? Data(contentsOf: url(path)) else { return nil }
        return fnv1a(data)
    }

    /// A fingerprint of what judges the answers — the checks, the fakes, the catalogue: a
    /// workbook update invalidates every cached verdict.
    func checksFingerprint() -> String {
        var combined = Data()
        for folder in ["Sources/WorkbookChecks", "Sources/ExerciseKit", "Sources/ExerciseRegistry", "Sources/WorkbookExplorer"] {
            let base = url(folder)
            let files = (FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []).sorted()
            for file in files where file.hasSuffix(".swift") || file.hasSuffix(".c") || file.hasSuffix(".h") {
                combined.append(Data(file.utf8))
                combined.append((try? Data(contentsOf: base.appendingPathComponent(file))) ?? Data())
            }
        }
        combined.append((try? Data(contentsOf: url("exercises/exercises.json"))) ?? Data())
        return fnv1a(combined)
    }

    private func fnv1a(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

/// Bad input from the learner: said in one line, exit status 2.
struct UsageError: Error {
    let message: Localized
}

/// What `workbook` remembers between runs (`.build/workbook/state.json`).
struct WorkbookState: Codable {
    struct CachedVerdict: Codable {
        var file: String
        var status: Verdict.Status
        var property: String?
        var checkedAt: Date
        /// Done, but these platform probes could not run (`Verdict.notRun`); absent in older files.
        var notRun: [String]?
    }

    struct HintsShown: Codable {
        var count: Int
        /// The failing property the hints were ordered for.
        var property: String?
    }

    var checks: String = ""
    var verdicts: [String: CachedVerdict] = [:]
    var hints: [String: HintsShown] = [:]

    static func file(in workspace: Workspace) -> URL {
        workspace.url(".build/workbook/state.json")
    }

    static func load(_ workspace: Workspace) -> WorkbookState {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let data = try? Data(contentsOf: file(in: workspace)),
              let state = try? decoder.decode(WorkbookState.self, from: data) else { return WorkbookState() }
        return state
    }

    func save(_ workspace: Workspace) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let target = Self.file(in: workspace)
        try? FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let data = try? encoder.encode(self) { try? data.write(to: target, options: .atomic) }
    }

    /// The cached verdict for `entry`, if the learner's file and the checks are as they were.
    func verdict(for entry: ExerciseCatalog.Entry, in workspace: Workspace, checks: String) -> CachedVerdict? {
        guard self.checks == checks, let cached = verdicts[entry.id],
              cached.file == workspace.fingerprint(of: entry.file) else { return nil }
        return cached
    }
}
