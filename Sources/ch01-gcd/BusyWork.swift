import WorkbookCore

/// Keeps the calling thread busy for about `microseconds`, so a block's span is wide enough to
/// see on the timeline.
///
/// Busy work, not sleep: the scenarios never sleep to force an order (semaphores, groups and
/// barriers do that). Spinning only makes work take visible time, the way real work does.
func spin(microseconds: Int) {
    guard microseconds > 0 else { return }
    let end = MonotonicClock.now() + UInt64(microseconds) * 1_000
    while MonotonicClock.now() < end {}
}
