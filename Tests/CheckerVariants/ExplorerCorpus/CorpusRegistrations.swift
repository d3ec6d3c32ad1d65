import WorkbookChecks
import WorkbookCore
import WorkbookExplorer

/// The explorer corpus as `variant-runner` runs it: each body checked by `checkExplored`, under
/// ThreadSanitizer (with the race lane) or in `variant-runner-plain`, exactly as an exercise's
/// explored check runs a learner's code. Named `Corpus.<name>`; the property each must break is
/// `none` for a correct body.
public let corpusRegistrations: [VariantRegistration] = (smallestCasesCorpus + explorerCorpus0608).map { body in
    VariantRegistration("Corpus.\(body.name)", body.shape, breaks: body.expectation.breaks) {
        let failure = checkExplored(CorpusBody.invariant, title: .verbatim(body.name),
                                    observed: { Localized.verbatim($0) }, body.body)
        return failure.map(CheckResult.failed) ?? .passed([CorpusBody.invariant])
    }
}

extension CorpusBody {
    /// What a buggy body breaks when it throws `InvariantViolation`.
    static let invariant = Property(id: "corpus-invariant", name: Localized("the body's invariant", ja: "本体の不変条件"),
                                    rule: Localized("Every schedule completes without breaking what the body checks.",
                                                    ja: "どのスケジュールでも、本体が確かめることを破らずに完了する。"))
}

extension CorpusBody.Expectation {
    /// The property id the verdict must name: `none`, `data-race`, `deadlock` or `corpus-invariant`.
    var breaks: String {
        switch self {
        case .passes: "none"
        case let .fails(text) where text.hasPrefix("data race:"): VerdictProperty.dataRace
        case let .fails(text) where text.hasPrefix("deadlock:"): Property.finishes.id
        case .fails: CorpusBody.invariant.id
        }
    }
}
