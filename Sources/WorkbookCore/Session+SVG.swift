import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `svg N PATH` in the REPL and `--run N --svg PATH`: a run's timeline as an SVG picture.
extension Session {
    /// A scenario's run as the learner saw it: its trace and its knob values.
    struct LastRun {
        let events: [Trace.Event]
        let knobText: String
    }

    /// `svg N PATH`: the path is the rest of the line after N, spaces and all.
    func svgCommand(_ line: String) {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let rest: Substring = line.drop(while: blank).drop(while: { !blank($0) }).drop(while: blank)
        let numberText = rest.prefix(while: { !blank($0) })
        let path = String(rest.dropFirst(numberText.count)).trimmingCharacters(in: .whitespaces)
        guard let number = Int(numberText), !path.isEmpty else {
            write(t(Localized("usage: svg N PATH   (N from 'list'; writes the timeline of its last run as an SVG picture)",
                              ja: "使い方: svg N パス（N は 'list' の番号。最後の実行のタイムラインを SVG 画像で保存します）")))
            return
        }
        guard scenario(number) != nil else {
            write(t(noSuchScenario(number)))
            return
        }
        if lastRuns[number] == nil { run(number, knobs: [:]) }
        saveTimeline(of: number, to: path, inREPL: true)
    }

    /// Writes the timeline of scenario `number`'s last run to `path` and says so, or says why
    /// not (in the REPL as its other messages, else on standard error). Returns whether it wrote.
    @discardableResult
    func saveTimeline(of number: Int, to path: String, inREPL: Bool) -> Bool {
        guard let lastRun = lastRuns[number] else { return false }
        let title = ["\(number). \(t(chapter.scenarios[number - 1].title))", lastRun.knobText]
            .filter { !$0.isEmpty }.joined(separator: "  ")
        let picture = TimelineSVG().picture(lastRun.events, title: title, language: language)
        do throws(PictureFile.Problem) {
            try PictureFile.write(picture.document, to: path)
        } catch {
            if inREPL { write(t(error.message)) } else { writeError(t(error.message)) }
            return false
        }
        let size = "\(picture.width)×\(picture.height) px"
        write(t(inREPL
            ? Localized("Wrote the timeline of scenario \(number) (its last run) to \(path) (\(size)).",
                        ja: "シナリオ \(number) のタイムライン（最後の実行）を \(path) に保存しました（\(size)）。")
            : Localized("Wrote the timeline of scenario \(number) to \(path) (\(size)).",
                        ja: "シナリオ \(number) のタイムラインを \(path) に保存しました（\(size)）。")))
        return true
    }
}

/// Writes a picture to a file without ever replacing one this workbook did not write: an
/// existing file is replaced only if it starts as our timelines do (`TimelineSVG.generatorComment`).
/// The new contents go to a file beside it first, renamed over it once complete.
enum PictureFile {
    struct Problem: Error {
        let message: Localized
    }

    static func write(_ document: String, to typedPath: String) throws(Problem) {
        let path = (typedPath as NSString).expandingTildeInPath
        var info = stat()
        if lstat(path, &info) == 0 {
            if info.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) {
                throw Problem(message: Localized(
                    "\(typedPath) is a folder; give a file name, e.g. \(typedPath)/timeline.svg.",
                    ja: "\(typedPath) はフォルダです。\(typedPath)/timeline.svg のようにファイル名を指定してください。"))
            }
            guard info.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG), isOurs(path) else {
                throw Problem(message: Localized(
                    "\(typedPath) already exists and is not a timeline this workbook wrote, so it was left as it is. Choose another name.",
                    ja: "\(typedPath) は既にあり、このワークブックが書いたタイムラインではないため、そのままにしました。別の名前を指定してください。"))
            }
        }
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        var folderInfo = stat()
        guard stat(folder, &folderInfo) == 0, folderInfo.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) else {
            throw Problem(message: Localized(
                "Could not write \(typedPath): the folder \(folder) does not exist.",
                ja: "\(typedPath) に保存できませんでした。フォルダ \(folder) がありません。"))
        }
        let notWritable = Problem(message: Localized(
            "Could not write \(typedPath): the folder \(folder) cannot be written to.",
            ja: "\(typedPath) に保存できませんでした。フォルダ \(folder) には書き込めません。"))
        let failed = Problem(message: Localized("Could not write \(typedPath).", ja: "\(typedPath) に保存できませんでした。"))

        let temporary = "\(folder)/.\((path as NSString).lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else { throw [EACCES, EPERM, EROFS].contains(errno) ? notWritable : failed }
        var rest = Array(document.utf8)[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { break }
            rest = rest.dropFirst(written)
        }
        let closed = close(descriptor) == 0
        guard rest.isEmpty, closed, rename(temporary, path) == 0 else {
            let renameFailedForAccess = [EACCES, EPERM, EROFS].contains(errno)
            unlink(temporary)
            throw renameFailedForAccess ? notWritable : failed
        }
    }

    /// Whether the file at `path` starts as a timeline this workbook wrote.
    static func isOurs(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 1024)) ?? Data()
        return String(decoding: start, as: UTF8.self).contains(TimelineSVG.generatorComment)
    }
}
