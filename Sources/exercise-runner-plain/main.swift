import ExerciseRegistry
import SanitizerStubs
import WorkbookChecks

// exercise-runner without ThreadSanitizer's runtime: the same instrumented exercises, linked with
// SanitizerStubs. `ExerciseChecker` runs it to confirm a failure seen under TSan that is not a
// race, since TSan's libdispatch support drops a barrier carried by a block (see
// Sources/SanitizerStubs/SanitizerStubs.c).
workbook_sanitizer_stubs_linked()
RunnerMain.run(program: RunnerProtocol.plainExecutableName, exercises: exerciseRegistrations)
