import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Notices saves of a fixed set of files by looking at each path a few times a second.
///
/// Looking by path, not by an open file, is what keeps it reliable with editors that save by
/// writing a new file and renaming it over the old one (Xcode, VS Code, vim): the path then names
/// a new file (another inode, another modification time), which a watch on the old file would
/// never hear of. It needs no platform API (inotify, FSEvents) and costs a `stat` per file per
/// look. A change is reported once the file has stayed the same for one more look, so an editor
/// that writes in steps (truncate, then write; or move away, then write anew) is seen once, whole.
struct FileWatcher {
    /// What a path held at one look: enough to tell that a save happened.
    struct Snapshot: Equatable {
        var exists: Bool
        var size: Int64 = 0
        var modified: Int64 = 0  // nanoseconds
        var inode: UInt64 = 0
        var device: UInt64 = 0

        static func of(_ path: String) -> Snapshot {
            var info = stat()
            guard stat(path, &info) == 0 else { return Snapshot(exists: false) }
            #if canImport(Darwin)
            let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
            #else
            let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            #endif
            return Snapshot(exists: true, size: Int64(info.st_size), modified: modified,
                            inode: UInt64(info.st_ino), device: UInt64(info.st_dev))
        }
    }

    enum Change: Equatable {
        /// The file was saved (written in place, or replaced by a rename).
        case saved(String)
        /// The file is gone and did not come back within a look.
        case removed(String)
    }

    let paths: [String]
    private var last: [String: Snapshot]
    /// Paths whose snapshot changed at the previous look and are waiting to settle.
    private var settling: [String: Snapshot] = [:]

    init(paths: [String]) {
        self.paths = paths
        last = Dictionary(paths.map { ($0, Snapshot.of($0)) }, uniquingKeysWith: { first, _ in first })
    }

    /// One look at every path: the changes that have settled since the last look.
    mutating func poll() -> [Change] {
        var changes: [Change] = []
        for path in paths {
            let now = Snapshot.of(path)
            if let pending = settling[path] {
                guard pending == now else {
                    settling[path] = now  // still being written: look again next time
                    continue
                }
                settling[path] = nil
                if now != last[path] {
                    last[path] = now
                    changes.append(now.exists ? .saved(path) : .removed(path))
                }
            } else if now != last[path] {
                settling[path] = now
            }
        }
        return changes
    }
}
