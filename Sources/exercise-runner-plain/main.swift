import ExerciseRegistry
import ReleasePointInterposers
import SanitizerStubs
import WorkbookChecks

// exercise-runner without ThreadSanitizer's runtime: the same instrumented exercises, linked with
// SanitizerStubs. `ExerciseChecker` runs it to confirm a failure seen under TSan that is not a
// race, since TSan's libdispatch support drops a barrier carried by a block (see
// Sources/SanitizerStubs/SanitizerStubs.c).
workbook_sanitizer_stubs_linked()
workbook_release_point_interposers_linked()
RunnerMain.run(program: RunnerProtocol.plainExecutableName, exercises: exerciseRegistrations)
