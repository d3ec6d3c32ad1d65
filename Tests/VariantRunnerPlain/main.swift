import CheckerVariants
import ReleasePointInterposers
import SanitizerStubs
import WorkbookChecks

// variant-runner without ThreadSanitizer's runtime (see Sources/exercise-runner-plain).
workbook_sanitizer_stubs_linked()
workbook_release_point_interposers_linked()
RunnerMain.run(program: RunnerProtocol.variantExecutableName + "-plain", variants: allVariants + corpusRegistrations)
