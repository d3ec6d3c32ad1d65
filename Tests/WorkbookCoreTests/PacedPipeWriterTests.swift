import Foundation
import Testing
@testable import WorkbookCore

@Suite("Paced pipe writes", .workbookSelfTest)
struct PacedPipeWriterTests {
    /// A report like the long ones: box drawing, Japanese, 30 KB.
    static let report = (0..<400).map { "行 \($0) ━━ データ競合 ─ a line of the report \($0)" }.joined(separator: "\n") + "\n"

    @Test("cut text into pieces of at most 4 KB that never end inside a character")
    func piecesKeepCharactersWhole() {
        let bytes = Array(Self.report.utf8)
        let pieces = PacedPipeWriter.pieces(of: bytes)
        #expect(pieces.first?.lowerBound == 0 && pieces.last?.upperBound == bytes.count)
        for (piece, next) in zip(pieces, pieces.dropFirst()) { #expect(piece.upperBound == next.lowerBound) }
        for piece in pieces {
            #expect(piece.count <= PacedPipeWriter.pieceLimit)
            #expect(String(validating: bytes[piece], as: UTF8.self) != nil)
        }
    }

    @Test("arrive whole at a reader that drops every read that is not valid UTF-8, as SwiftPM's relay does")
    func arriveWhole() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        let received = Locked("")
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(readEnd, &buffer, 4096)
                if count <= 0 { break }
                // A slow reader, so the writer gets ahead of it if nothing paces it.
                usleep(2_000)
                if let text = String(validating: buffer[..<count], as: UTF8.self) { received.withLock { $0 += text } }
            }
            done.signal()
        }
        PacedPipeWriter.write(Array(Self.report.utf8), to: writeEnd)
        close(writeEnd)
        done.wait()
        close(readEnd)
        #expect(received.current == Self.report)
    }
}
