import WorkbookExplorer

let pollingCorpus: [CorpusCase] = [
    CorpusCase(name: "polling.waitsForExactly50", shape: "polling loop with Task.yield()", items: [8],
               expectation: .fails("livelock: the poller waits for exactly 50 %, the upload jumps from 25 % past it"),
               traps: false, body: waitsForExactly50),
    CorpusCase(name: "polling.waitsForAtLeast50", shape: "polling loop with Task.yield()", items: [8],
               expectation: .passes, traps: false, body: waitsForAtLeast50),
]

private actor Upload {
    private(set) var percent = 0
    func advance() { percent += 25 }
}

private func pollUpload(until reached: @escaping @Sendable (Int) -> Bool) async throws -> String {
    let upload = Upload()
    let uploader = Task {
        nameTask("uploader")
        for _ in 0..<4 {
            await upload.advance()
            await Task.yield()
        }
    }
    nameTask("poller")
    while !reached(await upload.percent) {
        await Task.yield()
    }
    checkpoint("saw half way")
    await uploader.value
    let percent = await upload.percent
    guard percent == 100 else { throw InvariantViolation("upload ended at \(percent) %") }
    return "half way seen"
}

/// The uploader advances from 50 to 75 between two polls: 50 is never seen, and the loop spins for ever.
@Sendable private func waitsForExactly50() async throws -> String {
    try await pollUpload { $0 == 50 }
}

/// Correct: `>=` cannot miss the moment; the poller yields, so a fair schedule lets the uploader run.
@Sendable private func waitsForAtLeast50() async throws -> String {
    try await pollUpload { $0 >= 50 }
}
