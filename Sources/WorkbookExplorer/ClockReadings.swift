import Interposing

/// What `ContinuousClock.now` and `SuspendingClock.now` read in code under exploration.
///
/// Inside a run, on a thread that runs its jobs, they read virtual time: the run's clock counted
/// from `virtualEpoch`. A sleep to `.now + .milliseconds(50)` is then a timer exactly 50 ms of
/// virtual time away, two readings a sleep apart differ by exactly that sleep, and a replay reads
/// the same instants. Elsewhere — outside a run, on other threads — the clocks read real time.
///
/// The getters are emitted calls into the runtime from the calling module, so the runner, which
/// links the code under test, answers them itself (the definitions below: Linux only, where it
/// is tested; `PlatformMechanism.clockReadings`). Code that
/// reads a clock through a generic `some Clock` goes through the runtime's own witness and gets a
/// real instant; a deadline made from one is still taken (`ScheduleRun.addTimer(_:deadline:clock:)`
/// tells the two apart by `virtualEpoch`, and rounds a real one as `RealDeadline` says).
enum ClockReadings {
    /// Where virtual instants begin: about 317 years after boot, past any real reading (the
    /// runtime's clocks count from boot), so an instant tells which clock it came from.
    static let virtualEpoch = Duration.seconds(10_000_000_000)

    /// Now on the runtime's clock `clock` (1 continuous, 2 suspending), as code under exploration
    /// reads it: real where the Linux mechanisms are off (as on Apple platforms).
    static func now(clock: Int32) -> Duration {
        if let run = DriverThread.current, workbook_linux_mechanisms_enabled() { return virtualEpoch + run.now }
        return RuntimeHooks.now(clock: clock)
    }

    /// Whether `instant` (a clock's reading as a duration since its origin) is a virtual one.
    static func isVirtual(_ instant: Duration) -> Bool { instant >= virtualEpoch / 2 }
}

#if canImport(Glibc)
// The runtime's getters, by their symbols: the code under test calls these. `Instant` is a
// frozen struct holding one `Duration`.

@_silgen_name("$ss15ContinuousClockV3nowAB7InstantVvgZ")
public func _workbookContinuousClockNow() -> ContinuousClock.Instant { continuousInstant() }

@_silgen_name("$ss15ContinuousClockV3nowAB7InstantVvg")
public func _workbookContinuousClockInstanceNow() -> ContinuousClock.Instant { continuousInstant() }

@_silgen_name("$ss15ContinuousClockV7InstantV3nowADvgZ")
public func _workbookContinuousInstantNow() -> ContinuousClock.Instant { continuousInstant() }

@_silgen_name("$ss15SuspendingClockV3nowAB7InstantVvgZ")
public func _workbookSuspendingClockNow() -> SuspendingClock.Instant { suspendingInstant() }

@_silgen_name("$ss15SuspendingClockV3nowAB7InstantVvg")
public func _workbookSuspendingClockInstanceNow() -> SuspendingClock.Instant { suspendingInstant() }

@_silgen_name("$ss15SuspendingClockV7InstantV3nowADvgZ")
public func _workbookSuspendingInstantNow() -> SuspendingClock.Instant { suspendingInstant() }

private func continuousInstant() -> ContinuousClock.Instant {
    unsafeBitCast(ClockReadings.now(clock: 1), to: ContinuousClock.Instant.self)
}

private func suspendingInstant() -> SuspendingClock.Instant {
    unsafeBitCast(ClockReadings.now(clock: 2), to: SuspendingClock.Instant.self)
}
#endif
