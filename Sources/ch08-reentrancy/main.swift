import WorkbookCore
Chapter08.chapter.main()
