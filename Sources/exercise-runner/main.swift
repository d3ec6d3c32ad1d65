import ExerciseRegistry
import AccessRaceInterposer
import ReleasePointInterposers
import SanitizerMutexSupport
import WorkbookChecks

// Runs the check of one exercise against the learner's code, in its own process, so that a
// crash or a deadlock in that code ends this process and not the test run. The exercises are
// compiled with ThreadSanitizer (see Package.swift) and this runner is linked with it: a data
// race in them stops this process with TSan's report, which `ExerciseChecker` turns into the
// verdict. `exercise-runner-plain` runs the same code without TSan's runtime, to confirm a
// failure that is not a race (TSan changes how some GCD calls behave).
//
//   exercise-runner <Exercise> [--reference] [--replay CASE:TOKEN] [--deadline SECONDS] [--color] [--unicode] [--width N] [--lang en|ja]
//   exercise-runner --list | --properties | --properties-markdown en|ja
//
// Exit status: 0 done, 1 failing, 2 usage, 3 not started (the code reached `todo()`),
// 66 ThreadSanitizer stopped it.
workbook_sanitizer_mutex_support_linked()
workbook_release_point_interposers_linked()
workbook_access_race_interposer_start()
RunnerMain.run(program: RunnerProtocol.executableName, exercises: exerciseRegistrations)
