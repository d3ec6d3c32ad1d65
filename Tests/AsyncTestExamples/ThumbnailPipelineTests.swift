import ExerciseKit
import Testing
@testable import ch04_async_await

/// The same tests in Swift Testing, where a test function may simply be `async throws`.
@Suite("Chapter 04 examples: testing async code with Swift Testing")
struct ThumbnailPipelineTests {
    let server = ThumbnailServer(replies: ["cat": .image, "logo": .notAnImage], latency: .milliseconds(2))

    @Test("the async pipeline answers with the thumbnail")
    func answersWithAThumbnail() async throws {
        let thumbnail = try await AsyncPipeline(server: server).thumbnail(for: "cat")
        #expect(thumbnail.id == "cat")
    }

    @Test("the async pipeline throws badImage for bytes that are not an image")
    func throwsForBytesThatAreNotAnImage() async {
        await #expect(throws: ThumbnailError.badImage) {
            try await AsyncPipeline(server: server).thumbnail(for: "logo")
        }
    }

    /// A callback API under Swift Testing: wrap it in a continuation (chapter 05) and await it.
    /// `confirmation` checks that something happens a number of times *before it returns*, so it
    /// does not wait for a handler called later.
    @Test("the callback pipeline, awaited through a continuation, answers with the thumbnail")
    func callbackPipelineThroughAContinuation() async throws {
        let pipeline = CompletionHandlerPipeline(server: server)
        let thumbnail: Thumbnail = try await withCheckedThrowingContinuation { continuation in
            pipeline.thumbnail(for: "cat") { thumbnail, error in
                if let thumbnail { continuation.resume(returning: thumbnail) }
                else { continuation.resume(throwing: error ?? ThumbnailError.badImage) }
            }
        }
        #expect(thumbnail.id == "cat")
    }
}
