import WorkbookCore
import WorkbookExplorer

/// The fake fraud service of exercise 08-reentrancy/SafeWithdraw. `approve(_:)` answers after
/// 10 ms (`ExplorerClock`: virtual time under the explorer): yes, unless the check told it to
/// refuse that amount.
public final class FraudCheck: Sendable {
    public static let latency = Duration.milliseconds(10)
    private let refused: Set<Int>

    /// A service that refuses withdrawals of the amounts in `refusing`.
    public init(refusing: Set<Int> = []) {
        refused = refusing
    }

    /// Whether a withdrawal of `amount` may go ahead.
    public func approve(_ amount: Int) async -> Bool {
        try? await ExplorerClock().sleep(for: Self.latency)
        let approved = !refused.contains(amount)
        checkpoint(Localized("fraud check: \(amount) \(approved ? "approved" : "refused")",
                             ja: "不正検査: \(amount) を\(approved ? "承認" : "拒否")"))
        return approved
    }
}
