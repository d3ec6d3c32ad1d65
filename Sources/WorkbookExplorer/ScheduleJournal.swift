import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the schedule in progress where it survives a crash: a small file mapped into memory,
/// named by the environment variable `WORKBOOK_SCHEDULE_JOURNAL`. Each step stores its choice
/// there before it runs — a plain memory write — so when the explored code traps (a
/// continuation resumed twice, a failed precondition) and the process dies, the parent process
/// reads the schedule that led to the trap, and the step it died in, and reports them with a
/// replay token beside the runtime's message.
///
/// Layout: `WSJ1`, the configuration (`d`/`r`), one byte unused, the check's case number
/// (UInt16, little endian, 0: none), the step count (UInt32, little endian), then one byte per
/// choice (255: a choice too large to keep); after the choices' room, what the case runs (its
/// title: UInt16 length, then UTF-8).
public enum ScheduleJournal {
    public static let environmentKey = "WORKBOOK_SCHEDULE_JOURNAL"
    static let capacity = 1 << 20
    private static let headerSize = 12
    private static let titleCapacity = 4096

    /// The mapping, if the environment names a journal (made once, before any run).
    nonisolated(unsafe) private static let mapping: UnsafeMutablePointer<UInt8>? = {
        guard let path = ProcessInfo.processInfo.environment[environmentKey], !path.isEmpty else { return nil }
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(headerSize + capacity + titleCapacity)) == 0,
              let address = mmap(nil, headerSize + capacity + titleCapacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
              address != MAP_FAILED else { return nil }
        let bytes = address.assumingMemoryBound(to: UInt8.self)
        for (index, byte) in Array("WSJ1".utf8).enumerated() { bytes[index] = byte }
        bytes[4] = Character(ReplayToken.Configuration.current.rawValue).asciiValue ?? 0
        return bytes
    }()

    /// The check's explored case now running (`ExploredCases`) and what it runs, so a crash
    /// names it too.
    public static func noteCase(_ number: Int, title: String = "") {
        guard let mapping else { return }
        let value = UInt16(clamping: number)
        mapping[6] = UInt8(truncatingIfNeeded: value)
        mapping[7] = UInt8(truncatingIfNeeded: value >> 8)
        var bytes = Array(title.utf8.prefix(titleCapacity - 2))
        while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        let start = headerSize + capacity
        mapping[start] = UInt8(truncatingIfNeeded: bytes.count)
        mapping[start + 1] = UInt8(truncatingIfNeeded: bytes.count >> 8)
        for (index, byte) in bytes.enumerated() { mapping[start + 2 + index] = byte }
    }

    /// A new schedule begins (driver thread).
    static func begin() {
        guard let mapping else { return }
        storeCount(0, in: mapping)
    }

    /// The schedule has ended (driver thread): none is in progress.
    static func end() {
        guard let mapping else { return }
        storeCount(0, in: mapping)
    }

    /// Step `index` (0-based) takes `choice`, and is about to run (driver thread).
    static func record(step index: Int, choice: Int) {
        guard let mapping, index < capacity else { return }
        mapping[headerSize + index] = UInt8(clamping: min(choice, 255))
        storeCount(index + 1, in: mapping)
    }

    private static func storeCount(_ count: Int, in mapping: UnsafeMutablePointer<UInt8>) {
        let value = UInt32(clamping: count)
        for byte in 0..<4 { mapping[8 + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(byte))) }
    }

    /// What a journal file says: the schedule in progress when its process stopped (its last
    /// step is the one that was running; nil if none was, or a choice was too large), the case
    /// the check was running and what that case runs, if the check said. One read of the file.
    public static func contents(path: String) -> (token: ReplayToken?, caseNumber: Int?, caseTitle: String?)? {
        guard let data = FileManager.default.contents(atPath: path), data.count >= headerSize,
              data.prefix(4).elementsEqual("WSJ1".utf8) else { return nil }
        let base = data.startIndex
        var token: ReplayToken?
        let count = (0..<4).reduce(0) { $0 | Int(data[base + 8 + $1]) << (8 * $1) }
        if count > 0, data.count >= headerSize + count,
           let configuration = ReplayToken.Configuration(rawValue: String(UnicodeScalar(data[base + 4]))) {
            let choices = data[(base + headerSize)..<(base + headerSize + count)].map(Int.init)
            if !choices.contains(255) { token = ReplayToken(choices: choices, configuration: configuration) }
        }
        let number = Int(data[base + 6]) | Int(data[base + 7]) << 8
        var title: String?
        if data.count >= headerSize + capacity + titleCapacity {
            let start = base + headerSize + capacity
            let length = Int(data[start]) | Int(data[start + 1]) << 8
            if length > 0, length <= titleCapacity - 2 { title = String(decoding: data[(start + 2)..<(start + 2 + length)], as: UTF8.self) }
        }
        return (token, number > 0 ? number : nil, title)
    }

    /// The schedule in progress a journal file holds (see `contents(path:)`).
    public static func read(path: String) -> ReplayToken? { contents(path: path)?.token }
}
