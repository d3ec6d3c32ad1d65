import WorkbookExplorer

// The race detector lives beside the explorer, whose threads must add no ordering TSan would
// see; the workbook names it from here too.
public typealias RaceDetector = WorkbookExplorer.RaceDetector
public typealias HappensBeforeToken = WorkbookExplorer.HappensBeforeToken
