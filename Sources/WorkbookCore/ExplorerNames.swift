import WorkbookExplorer

// The race detector and the quiet lock live beside the explorer, whose threads must add no
// ordering TSan would see; the workbook names them from here too.
public typealias RaceDetector = WorkbookExplorer.RaceDetector
public typealias HappensBeforeToken = WorkbookExplorer.HappensBeforeToken
public typealias QuietLocked = WorkbookExplorer.QuietLocked
