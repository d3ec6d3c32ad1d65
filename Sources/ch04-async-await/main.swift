import WorkbookCore
Chapter04.chapter.main()
