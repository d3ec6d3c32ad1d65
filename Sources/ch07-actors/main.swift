import WorkbookCore
Chapter07.chapter.main()
