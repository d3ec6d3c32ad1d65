import ExerciseKit
import XCTest
@testable import ch04_async_await

/// Chapter 04, "Testing async code": one server, the two pipelines of §1, tested the old way and the
/// new way. Run them with `swift test --filter AsyncTestExamples`.
final class ThumbnailPipelineXCTests: XCTestCase {
    private let server = ThumbnailServer(replies: ["cat": .image, "logo": .notAnImage], latency: .milliseconds(2))

    // MARK: The callback way: an expectation, a wait with a timeout

    /// The test must create an expectation, fulfil it in the handler, and wait for it; the
    /// assertions run in the handler, on whatever thread calls it.
    func testCallbackPipelineAnswersWithAThumbnail() {
        let answered = expectation(description: "the completion handler is called")
        CompletionHandlerPipeline(server: server).thumbnail(for: "cat") { thumbnail, error in
            XCTAssertEqual(thumbnail?.id, "cat")
            XCTAssertNil(error)
            answered.fulfill()
        }
        wait(for: [answered], timeout: 5)
    }

    /// The forgotten path of §1: the handler is never called, and all a test can learn is that a
    /// wait timed out — after the whole timeout, with no line to look at.
    func testCallbackPipelineForgetsBytesThatAreNotAnImage() {
        let answered = expectation(description: "the completion handler is called")
        CompletionHandlerPipeline(server: server).thumbnail(for: "logo") { _, _ in answered.fulfill() }
        XCTAssertEqual(XCTWaiter().wait(for: [answered], timeout: 0.3), .timedOut)
    }

    // MARK: The async way: an `async throws` test method

    /// No expectation, no timeout: the test awaits the call, and a thrown error fails the test
    /// with the error itself.
    func testAsyncPipelineAnswersWithAThumbnail() async throws {
        let thumbnail = try await AsyncPipeline(server: server).thumbnail(for: "cat")
        XCTAssertEqual(thumbnail.id, "cat")
    }

    /// The same forgotten path cannot be written as `async throws`; the error arrives at once.
    func testAsyncPipelineThrowsForBytesThatAreNotAnImage() async {
        do {
            _ = try await AsyncPipeline(server: server).thumbnail(for: "logo")
            XCTFail("expected ThumbnailError.badImage")
        } catch {
            XCTAssertEqual(error as? ThumbnailError, .badImage)
        }
    }
}
