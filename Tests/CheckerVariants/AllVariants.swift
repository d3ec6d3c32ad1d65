import WorkbookChecks

/// Every buggy variant, in chapter order. `variant-runner` runs them; `CheckerTests` expects
/// each to fail for the reason it was written to show.
public let allVariants: [VariantRegistration] = variants01 + variants02 + variants03 + variants04 + variants05 + variants06 + variants07 + variants08

/// Answers known to deadlock fail sooner with this.
let shortDeadline = CheckOptions(deadlockSeconds: 1)
