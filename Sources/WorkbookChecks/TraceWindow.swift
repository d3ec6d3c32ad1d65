import WorkbookCore

/// The events around one event, plus the beginnings of spans still open at the window's start,
/// so a failure report draws the bars that overlapped it.
func traceWindow(_ events: [Trace.Event], around sequence: Int, before: Int = 24, after: Int = 8) -> [Trace.Event] {
    guard !events.isEmpty else { return [] }
    let lower = max(0, sequence - before), upper = min(events.count - 1, sequence + after)
    var open: [String: Trace.Event] = [:]
    for event in events[..<lower] {
        let key = "\(event.lane)|\(event.label)"
        switch event.kind {
        case .begin: open[key] = event
        case .end: open[key] = nil
        case .point: break
        }
    }
    return open.values.sorted { $0.sequence < $1.sequence } + events[lower...upper]
}

/// The last `count` events (with their open spans), for a run that stopped short.
func traceTail(_ events: [Trace.Event], count: Int = 30) -> [Trace.Event] {
    guard let last = events.last else { return [] }
    return traceWindow(events, around: last.sequence, before: count, after: 0)
}
