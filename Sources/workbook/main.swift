import Foundation
import WorkbookCore

// `swift run workbook` — the front door: where you are, what to do next, and the commands that
// check, hint, reset and show solutions. See `swift run workbook --help`.
exit(Workbook.main(Array(CommandLine.arguments.dropFirst())))
