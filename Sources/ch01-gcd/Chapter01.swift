import WorkbookCore

enum Chapter01 {
    static let chapter = Chapter(
        number: 1,
        executable: "ch01-gcd",
        title: Localized("GCD & QoS", ja: "GCD と QoS"),
        scenarios: [],
        children: [:])
}
