import Foundation

/// Monotonic nanoseconds, for ordering and measuring events.
public enum MonotonicClock {
    public static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}

/// Formats a duration in nanoseconds for people: `850µs`, `12.3ms`, `1.20s`.
public func formatDuration(nanoseconds: UInt64) -> String {
    let ns = Double(nanoseconds)
    if ns < 1_000 { return "\(nanoseconds)ns" }
    if ns < 1_000_000 { return String(format: "%.0fµs", ns / 1_000) }
    if ns < 1_000_000_000 { return String(format: "%.1fms", ns / 1_000_000) }
    return String(format: "%.2fs", ns / 1_000_000_000)
}
