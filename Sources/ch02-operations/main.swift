import WorkbookCore
Chapter02.chapter.main()
