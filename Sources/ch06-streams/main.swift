import WorkbookCore
Chapter06.chapter.main()
