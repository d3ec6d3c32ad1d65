import WorkbookCore
Chapter05.chapter.main()
