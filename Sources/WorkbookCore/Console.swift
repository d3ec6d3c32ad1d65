import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered writes to standard output and error, one `write` per call, so lines from
/// several threads never tear and never wait in a buffer behind a prompt.
public enum Console {
    public static func line(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }
    public static func error(_ text: String) { write(text + "\n", to: STDERR_FILENO) }
    /// Text without a newline (a prompt).
    public static func prompt(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// Writes to a pipe in pieces its reader cannot split inside a character (see
    /// `PacedPipeWriter`). The test suites turn it on: SwiftPM relays a test's output through a
    /// pipe and drops a read that ends inside a multi-byte character.
    public static var pacesPipes: Bool {
        get { pacing.current }
        set { pacing.withLock { $0 = newValue } }
    }

    private static let pacing = Locked(false)
    private static let writing = NSLock()

    private static func write(_ text: String, to descriptor: Int32) {
        writing.lock()
        defer { writing.unlock() }
        fflush(nil)  // keep order with anything written through C stdio (e.g. a test library)
        if pacesPipes && PacedPipeWriter.isPipe(descriptor) {
            PacedPipeWriter.write(Array(text.utf8), to: descriptor)
        } else {
            writeAll(Array(text.utf8)[...], to: descriptor)
        }
    }

    static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) {
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            rest = rest.dropFirst(written)
        }
    }
}

/// Writes to a pipe so that no read on the other end can end inside a UTF-8 character.
///
/// SwiftPM reads a test's output in pieces of up to 4 KB and drops a piece that is not valid
/// UTF-8 — whole lines of a long report vanished (a split `━` or a Japanese character was
/// enough). A write of at most `PIPE_BUF` bytes into an empty pipe is read whole (writes that
/// small are atomic, and the reader asks for more than that), so: cut the text at line or
/// character boundaries into pieces of at most 4 KB, and before each piece wait until the
/// reader has taken everything already in the pipe (`FIONREAD` says how much is left).
enum PacedPipeWriter {
    static let pieceLimit = 4_000

    static func isPipe(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return (status.st_mode & S_IFMT) == S_IFIFO
    }

    static func write(_ bytes: [UInt8], to descriptor: Int32) {
        for piece in pieces(of: bytes) {
            waitUntilDrained(descriptor)
            Console.writeAll(bytes[piece], to: descriptor)
        }
    }

    /// Ranges of at most `pieceLimit` bytes, each ending after a newline where one is near,
    /// else before a character's first byte — never inside a character.
    static func pieces(of bytes: [UInt8]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        while start < bytes.count {
            var end = min(bytes.count, start + pieceLimit)
            if end < bytes.count {
                if let newline = bytes[start..<end].lastIndex(of: UInt8(ascii: "\n")), newline > start {
                    end = newline + 1
                } else {
                    // Back up to the first byte of a character (not a 10xxxxxx continuation byte).
                    while end > start + 1 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
                }
            }
            result.append(start..<end)
            start = end
        }
        return result
    }

    /// Waits, at most two seconds, until the pipe holds nothing unread.
    ///
    /// On Apple platforms `FIONREAD` on a pipe's write end reports the other direction's buffer
    /// (always 0), so there the writer only pauses briefly between pieces (see docs/platforms.md).
    private static func waitUntilDrained(_ descriptor: Int32) {
        #if canImport(Darwin)
        usleep(20_000)
        #else
        let deadline = MonotonicClock.now() + 2_000_000_000
        while MonotonicClock.now() < deadline {
            var unread: Int32 = 0
            guard ioctl(descriptor, UInt(FIONREAD), &unread) == 0, unread > 0 else { return }
            usleep(1_000)
        }
        #endif
    }
}
