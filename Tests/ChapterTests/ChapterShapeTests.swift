import Testing
import WorkbookCore

/// What every chapter promises, whichever chapter it is.
@Suite("Every chapter", .workbookSelfTest)
struct ChapterShapeTests {
    @Test("every scenario runs with default knobs and records at least one event", arguments: allScenarios)
    func runsWithDefaults(_ name: ScenarioName) async throws {
        let context = try await run(name.scenario)
        #expect(!context.trace.events.isEmpty)
    }

    @Test("every scenario speaks English and Japanese", arguments: allScenarios)
    func bilingual(_ name: ScenarioName) {
        let scenario = name.scenario
        let texts = [scenario.title, scenario.narration] + scenario.knobs.map(\.help)
            + [scenario.prediction?.question, scenario.prediction?.explanation].compactMap { $0 }
        for text in texts {
            // A title that is only an API name, such as "Thread.isMainThread", reads the same in both.
            let isAPIName = text.en == text.ja && !text.en.contains(" ")
            #expect(!text.en.isEmpty && !text.ja.isEmpty && (text.en != text.ja || isAPIName), "\(text.en.prefix(40)) is not translated")
        }
    }

    @Test("knobs outside their range are rejected", arguments: allScenarios)
    func knobsAreValidated(_ name: ScenarioName) {
        let scenario = name.scenario
        for knob in scenario.knobs {
            for value in [knob.range.lowerBound - 1, knob.range.upperBound + 1] {
                #expect(throws: KnobError.outOfRange(knob: knob.name, value: value, range: knob.range)) {
                    try scenario.knobValues([knob.name: value])
                }
            }
            #expect(throws: Never.self) { try scenario.knobValues([knob.name: knob.range.upperBound]) }
        }
        #expect(throws: KnobError.self) { try scenario.knobValues(["no-such-knob": 1]) }
    }

    @Test("every prediction accepts what the scenario observes", arguments: allScenarios.filter { $0.scenario.prediction != nil })
    func predictionsMatchTheirObservations(_ name: ScenarioName) async throws {
        let scenario = name.scenario
        let prediction = try #require(scenario.prediction)
        let context = try await run(scenario)
        let observed = Scenario.Prediction.normalize(prediction.observe(context))
        #expect(prediction.isPossible(observed, after: context), "observed \(observed), which the prediction calls impossible")
        #expect(prediction.problem(with: observed) == nil, "observed \(observed), which the question does not offer")
    }

    @Test("an answer the question does not offer, or none, is refused before anything runs")
    func strayAnswers() throws {
        let offering = try #require(allScenarios.compactMap(\.scenario.prediction).first { !$0.offeredLetters.isEmpty })
        let unoffered = try #require(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ").first { !offering.offeredLetters.contains($0) })
        #expect(offering.problem(with: String(unoffered)) != nil)
        #expect(offering.problem(with: "") != nil)
        #expect(offering.problem(with: String(offering.offeredLetters[0])) == nil)
    }

    @Test("an unknown flag exits 2 with a message on standard error", arguments: allChapters.map(\.executable))
    func unknownFlag(_ executable: String) async throws {
        let result = try await runChapterExecutable(executable, ["--bogus"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--bogus"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test("a scenario number or knob out of range exits 2; end of input quits cleanly", arguments: allChapters.map(\.executable))
    func badInput(_ executable: String) async throws {
        #expect(try await runChapterExecutable(executable, ["--run", "99"]).status == 2)
        #expect(try await runChapterExecutable(executable, ["--run", "1", "no-such-knob=1"]).status == 2)
        #expect(try await runChapterExecutable(executable, [], input: "help\nlist").status == 0)
    }
}
