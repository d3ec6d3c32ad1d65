/// Labels a point in code under exploration; a failure report names, for every step, the
/// checkpoints passed, and for every waiting task the last one it passed.
///
/// Outside an exploration it does nothing.
public func checkpoint(_ label: String) {
    DriverThread.current?.checkpoint(label)
}

/// Names the calling task in reports (`reader`, `refresher`) instead of `task 2`.
public func nameTask(_ name: String) {
    DriverThread.current?.nameCurrent(name)
}

/// True while the calling code runs under the explorer.
public var isExploring: Bool { DriverThread.current != nil }
