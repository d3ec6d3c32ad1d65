/// A mark to draw once a run is over, when every bar's label (how it ended) is known.
public struct DrawnEvent: Sendable {
    /// Nanoseconds: a `MonotonicClock` reading, or virtual time.
    public let time: UInt64
    public let lane: Localized
    public let label: Localized
    public let kind: Trace.Kind

    public init(time: UInt64, lane: Localized, label: Localized, kind: Trace.Kind) {
        self.time = time
        self.lane = lane
        self.label = label
        self.kind = kind
    }
}

/// Records `events` on `trace`, in the order they happened and spaced as they were.
public func draw(_ events: [DrawnEvent], on trace: Trace) {
    let ordered = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    guard let first = ordered.first?.time else { return }
    trace.replay(ordered.enumerated().map { index, event in
        Trace.Event(sequence: index, time: event.time &- first, lane: event.lane, label: event.label, kind: event.kind)
    })
}
