import CheckerVariants
import SanitizerStubs
import WorkbookChecks

// variant-runner without ThreadSanitizer's runtime (see Sources/exercise-runner-plain).
workbook_sanitizer_stubs_linked()
RunnerMain.run(program: RunnerProtocol.variantExecutableName + "-plain", variants: allVariants)
