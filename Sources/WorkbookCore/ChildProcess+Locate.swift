import Foundation

/// Finding the executables SwiftPM builds beside each other (`exercise-runner`,
/// `variant-runner`, the chapters) without asking `Bundle`: under `swift test` the running
/// program may be a test host from the toolchain (`swiftpm-testing-helper`, `xctest`) or the
/// dynamic loader, and whether `Bundle.allBundles` lists the test bundle is not guaranteed.
extension ChildProcess {
    /// The places `locate(named:)` looked, in order, when none held the executable.
    public struct NotFound: Error, Sendable, Equatable, CustomStringConvertible {
        public let name: String
        public let tried: [URL]

        public init(name: String, tried: [URL]) {
            self.name = name
            self.tried = tried
        }

        /// "exercise-runner was not found; looked at: …", one path a line.
        public var message: Localized {
            let paths = tried.map { "\n  \($0.path)" }.joined()
            return Localized("\(name) was not found; looked at:\(paths)",
                             ja: "\(name) が見つかりません。探した場所:\(paths)")
        }

        public var description: String { message.en }

        /// `message`, then `advice` on a line of its own.
        public func message(then advice: Localized) -> Localized {
            Localized("\(message.en)\n\(advice.en)", ja: "\(message.ja)\n\(advice.ja)")
        }
    }

    /// Finds an executable built beside this code, looking in turn at:
    /// 1. the running program, if it has that name;
    /// 2. the folder of the image (executable, test bundle or library) that holds `image`
    ///    (the caller's `#dsohandle`: its own module) and a few folders up — on macOS a test
    ///    bundle's binary is `debug/X.xctest/Contents/MacOS/X`;
    /// 3. the folder of the running program and a few folders up;
    /// 4. the package's build folder: the nearest folder at or above the current directory, or
    ///    above the image, with `Package.swift` and `exercises/exercises.json`, joined with the
    ///    scratch path and configuration the image was built in (else `.build` and this
    ///    build's configuration).
    ///
    /// `image: nil` leaves out the image (2 and its part of 4).
    public static func locate(named name: String, image: UnsafeRawPointer? = #dsohandle) -> Result<URL, NotFound> {
        let current = currentExecutable
        if current.lastPathComponent == name { return .success(current) }
        let imageFile = image.flatMap(imagePath(containing:))
        var folders: [URL] = []
        if let imageFile { folders += upward(from: imageFile.deletingLastPathComponent()) }
        folders += upward(from: current.deletingLastPathComponent())
        let (scratch, configuration) = imageFile.flatMap(buildFolder(of:)) ?? (".build", defaultConfiguration)
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        for start in [cwd, imageFile?.deletingLastPathComponent()].compactMap({ $0 }) {
            guard let root = packageRoot(above: start) else { continue }
            folders.append(root.appendingPathComponent(scratch).appendingPathComponent(configuration))
        }

        var seen = Set<String>(), tried: [URL] = []
        for folder in folders {
            let candidate = folder.appendingPathComponent(name).standardizedFileURL
            guard seen.insert(candidate.path).inserted else { continue }
            if isExecutableFile(candidate) { return .success(candidate) }
            tried.append(candidate)
        }
        return .failure(NotFound(name: name, tried: tried))
    }

    /// `locate(named:)` without the places it tried.
    public static func sibling(named name: String, image: UnsafeRawPointer? = #dsohandle) -> URL? {
        try? locate(named: name, image: image).get()
    }

    /// The file of the loaded image (executable or library) that contains `address`, from
    /// `dladdr`. On Linux the main program's entry is its `argv[0]`: relative to the current
    /// directory, or a bare name when it was found through `PATH` (then nil: no folder).
    public static func imagePath(containing address: UnsafeRawPointer) -> URL? {
        guard let path = dladdrFileName(address), path.contains("/") else { return nil }
        return URL(fileURLWithPath: path).standardizedFileURL
    }

    /// The configuration this code was built in.
    static var defaultConfiguration: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// `folder` and the three folders above it.
    private static func upward(from folder: URL) -> [URL] {
        var folders = [folder]
        for _ in 0..<3 { folders.append(folders[folders.count - 1].deletingLastPathComponent()) }
        return folders
    }

    /// The nearest folder at or above `start` that holds `Package.swift` and
    /// `exercises/exercises.json`.
    private static func packageRoot(above start: URL) -> URL? {
        var folder = start.standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path),
               FileManager.default.fileExists(atPath: folder.appendingPathComponent("exercises/exercises.json").path) {
                return folder
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// The scratch folder's name and the configuration of an image built by SwiftPM at
    /// `<scratch>/<triple>/<configuration>/…` (a scratch folder holds `workspace-state.json`).
    private static func buildFolder(of image: URL) -> (scratch: String, configuration: String)? {
        var folder = image.resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let scratch = folder.deletingLastPathComponent().deletingLastPathComponent()
            if ["debug", "release"].contains(folder.lastPathComponent),
               FileManager.default.fileExists(atPath: scratch.appendingPathComponent("workspace-state.json").path) {
                return (scratch.lastPathComponent, folder.lastPathComponent)
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    private static func isExecutableFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: url.path)
    }

    /// `Dl_info.dli_fname` for `address`, or nil when no loaded image contains it.
    private static func dladdrFileName(_ address: UnsafeRawPointer) -> String? {
        #if canImport(Darwin)
        var info = Dl_info()
        guard dladdr(address, &info) != 0, let name = info.dli_fname else { return nil }
        return String(cString: name)
        #else
        // Glibc's module map declares neither `dladdr` nor `Dl_info` (both need _GNU_SOURCE):
        // the function from the dynamic linker, and its struct as four words, `dli_fname` first.
        typealias DLAddr = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "dladdr") else { return nil }
        let dladdr = unsafeBitCast(symbol, to: DLAddr.self)
        var info = [UnsafeRawPointer?](repeating: nil, count: 4)
        guard info.withUnsafeMutableBytes({ dladdr(address, $0.baseAddress) }) != 0, let name = info[0] else { return nil }
        return String(cString: name.assumingMemoryBound(to: CChar.self))
        #endif
    }
}
