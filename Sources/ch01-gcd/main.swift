import WorkbookCore
Chapter01.chapter.main()
