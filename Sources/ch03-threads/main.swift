import WorkbookCore
Chapter03.chapter.main()
