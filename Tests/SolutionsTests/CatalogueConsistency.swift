import Foundation
import Testing
import WorkbookChecks
import WorkbookCore

/// One exercise = one catalogue entry (exercises/exercises.json) plus the files named after it;
/// these tests prove nothing is missing and nothing is stray, in the spirit of rustlings'
/// `dev check`. Adding an exercise: protocol, stub, solution, check, variants, one catalogue
/// entry, one line in exercise-runner's registration list, one suite in YourExercises.swift.
@Suite("The exercise catalogue is complete and consistent", .workbookSelfTest)
struct CatalogueConsistency {
    static let root = ReferenceSolutionsPass.packageRoot
    let catalog = ReferenceSolutionsPass.catalog

    func read(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    func swiftFiles(in folder: String) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(folder).path)) ?? []
        return Set(names.filter { $0.hasSuffix(".swift") })
    }

    @Test("every stub starts with the shared header, whose check command is the README's")
    func stubHeaders() throws {
        for entry in catalog.exercises {
            let stub = try read(entry.file)
            let chapter = entry.chapter
            #expect(stub.contains("// Exercise \(chapter)/\(entry.id) — read chapters/en/\(chapter).md (ja: chapters/ja/\(chapter).md) first."), "\(entry.file)")
            #expect(stub.contains("// Check your answer:   swift test --filter ExercisesTests.\(entry.id)\n"), "\(entry.file)")
            #expect(stub.contains("// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json"), "\(entry.file)")
        }
    }

    @Test("every exercise has its own learner suite")
    func learnerSuites() throws {
        let suites = try read("Tests/ExercisesTests/YourExercises.swift")
        for entry in catalog.exercises {
            #expect(suites.contains("struct \(entry.id) {"), "no suite \(entry.id) in YourExercises.swift")
            #expect(suites.contains("ExerciseRun.verdict(\"\(entry.id)\")"), "suite \(entry.id) does not check \(entry.id)")
            #expect(suites.contains("\"\(entry.chapter)/\(entry.id): your answer\""), "suite \(entry.id) is not named \(entry.chapter)/\(entry.id)")
        }
    }

    @Test("every property a check can name has a hint, and the docs' property tables are the checks' own")
    func propertiesDocumented() throws {
        let runner = try #require(ChildProcess.sibling(named: RunnerProtocol.executableName))
        let listing = try ChildProcess(executable: runner, arguments: ["--properties"]).run(timeoutSeconds: 20).standardOutput
        var checked = 0
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 2, let entry = catalog.entry(fields[0]) else { continue }
            for property in fields[1].split(separator: ",").map(String.init) + [VerdictProperty.dataRace] where property != Property.finishes.id {
                checked += 1
                #expect(entry.hints.contains { $0.properties.contains(property) }, "\(entry.id) has no hint for `\(property)`")
            }
        }
        #expect(checked >= catalog.exercises.count * 2)
        for (language, path) in [("en", "docs/how-checks-work.md"), ("ja", "docs/ja/how-checks-work.md")] {
            let tables = try ChildProcess(executable: runner, arguments: ["--properties-markdown", language]).run(timeoutSeconds: 20)
                .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try read(path).contains(tables), "\(path): run scripts/update-property-tables.sh")
        }
    }

    @Test("no stray file: exercises, solutions, checks and variants are named after catalogue entries")
    func noStrayFiles() {
        let chapters = Set(catalog.exercises.map(\.chapter))
        for chapter in chapters {
            let ids = catalog.exercises.filter { $0.chapter == chapter }.map(\.id)
            let number = String(chapter.prefix(2))
            #expect(swiftFiles(in: "exercises/Exercises/\(chapter)") == Set(ids.map { "\($0).swift" }), "exercises/Exercises/\(chapter)")
            #expect(swiftFiles(in: "exercises/Solutions/\(chapter)") == Set(ids.map { "\($0).swift" }), "exercises/Solutions/\(chapter)")
            #expect(swiftFiles(in: "Sources/WorkbookChecks/Checks/\(chapter)") == Set(ids.map { "\($0)Check.swift" }), "Sources/WorkbookChecks/Checks/\(chapter)")
            #expect(swiftFiles(in: "Tests/CheckerVariants/\(chapter)") == Set(ids.map { "\($0)Variants.swift" } + ["Variants\(number).swift"]), "Tests/CheckerVariants/\(chapter)")
        }
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("exercises/Exercises").path)) ?? []
        #expect(Set(folders.filter { !$0.hasPrefix(".") }) == chapters, "exercises/Exercises has folders no catalogue entry names")
    }
}
