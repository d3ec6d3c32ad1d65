import CheckerVariants
import AccessRaceInterposer
import ReleasePointInterposers
import SanitizerMutexSupport
import WorkbookChecks

// Runs one of the workbook's buggy variants the way exercise-runner runs a learner's answer:
// its own process, ThreadSanitizer on (the variants are compiled with it), the same report.
// variant-runner-plain is the same without TSan's runtime, for confirming a failure.
//
//   variant-runner <Exercise.variant> [--lang en|ja] [--width N] …
//   variant-runner --list     (name, exercise, property, summary; tab-separated)
workbook_sanitizer_mutex_support_linked()
workbook_release_point_interposers_linked()
workbook_access_race_interposer_start()
RunnerMain.run(program: RunnerProtocol.variantExecutableName, variants: allVariants + corpusRegistrations)
