import Foundation

// Questions scenarios ask of a recorded trace: how many spans overlapped, on which lanes, and
// in what order things happened.

extension Trace {
    /// The most spans whose label passes `include` that were open at the same time, counting
    /// only events at or after `from`.
    ///
    /// Events are appended under one lock, so their sequence is an order every thread agrees on:
    /// a span counts as open from its `begin` to its `end` in that order.
    public func peakOverlap(from: Int = 0, where include: (String) -> Bool) -> Int {
        var open = 0, peak = 0
        for event in events where event.sequence >= from && include(event.label) {
            switch event.kind {
            case .begin:
                open += 1
                peak = max(peak, open)
            case .end: open -= 1
            case .point: break
            }
        }
        return peak
    }

    /// The lanes (threads) on which spans whose label passes `include` began (at or after `from`),
    /// in order of first use.
    public func lanes(from: Int = 0, where include: (String) -> Bool) -> [String] {
        var lanes: [String] = []
        for event in events where event.sequence >= from && event.kind == .begin && include(event.label) && !lanes.contains(event.lane) {
            lanes.append(event.lane)
        }
        return lanes
    }

    /// The sequence number of the first event of `kind` labelled `label` at or after `from`.
    public func sequence(of kind: Kind, _ label: String, from: Int = 0) -> Int? {
        events.first { $0.sequence >= from && $0.kind == kind && $0.label == label }?.sequence
    }

    /// The lane of the first event of `kind` labelled `label`.
    public func lane(of kind: Kind, _ label: String) -> String? {
        events.first { $0.kind == kind && $0.label == label }?.lane
    }

    /// The next sequence number: events recorded from now on have at least this one.
    public var nextSequence: Int { events.count }
}
