/// Follows a given list of choices, then the default scheduler.
struct PrefixChooser: Chooser {
    let prefix: [Int]
    mutating func choose(step: Int, ready: [EntityKey], defaultIndex: Int, describe: () -> Explorer.ChoicePoint) -> Int {
        step < prefix.count ? prefix[step] : defaultIndex
    }
}

/// Chooses uniformly at random.
struct RandomChooser: Chooser {
    var generator: SplitMix64
    mutating func choose(step: Int, ready: [EntityKey], defaultIndex: Int, describe: () -> Explorer.ChoicePoint) -> Int {
        generator.below(ready.count)
    }
}

/// PCT: every entity gets a random priority when first seen; the highest-priority ready one
/// runs; at `depth − 1` random steps the running entity drops below all others.
struct PCTChooser: Chooser {
    var generator: SplitMix64
    var priorities: [EntityKey: Double] = [:]
    let changePoints: Set<Int>
    var changesMade = 0

    init(generator: SplitMix64, depth: Int, estimatedSteps: Int) {
        var generator = generator
        var points: Set<Int> = []
        while points.count < max(0, depth - 1) && points.count < estimatedSteps { points.insert(generator.below(estimatedSteps)) }
        self.generator = generator
        self.changePoints = points
    }

    mutating func choose(step: Int, ready: [EntityKey], defaultIndex: Int, describe: () -> Explorer.ChoicePoint) -> Int {
        for key in ready where priorities[key] == nil {
            priorities[key] = 1 + Double(generator.next() >> 11) / Double(1 << 53)
        }
        let index = ready.indices.max { priorities[ready[$0]]! < priorities[ready[$1]]! }!
        if changePoints.contains(step) {
            changesMade += 1
            priorities[ready[index]] = -Double(changesMade)
        }
        return index
    }
}

/// Asks a person (or a script) at every point with more than one ready job.
struct InteractiveChooser: Chooser {
    let choose: @Sendable (Explorer.ChoicePoint) -> Int?
    var automatic = false

    mutating func choose(step: Int, ready: [EntityKey], defaultIndex: Int, describe: () -> Explorer.ChoicePoint) -> Int {
        guard !automatic, ready.count > 1 else { return defaultIndex }
        guard let picked = choose(describe()) else {
            automatic = true
            return defaultIndex
        }
        return picked
    }
}

/// Follows a given list of choices, then schedules fairly: the ready entity that has waited
/// longest since it last ran (one that never ran first). Used to re-run a schedule that hit
/// the step cap under an unfair chooser: if a fair continuation finishes, the cap was the
/// chooser starving a task (a producer that runs until its consumer cancels it, a loop that
/// polls with `Task.yield()`), not a livelock of the code.
struct FairAfterPrefixChooser: Chooser {
    let prefix: [Int]
    private var lastRun: [EntityKey: Int] = [:]
    init(prefix: [Int]) { self.prefix = prefix }

    mutating func choose(step: Int, ready: [EntityKey], defaultIndex: Int, describe: () -> Explorer.ChoicePoint) -> Int {
        let choice = step < prefix.count && ready.indices.contains(prefix[step])
            ? prefix[step]
            : ready.indices.min { (lastRun[ready[$0]] ?? -1) < (lastRun[ready[$1]] ?? -1) } ?? defaultIndex
        lastRun[ready[choice]] = step
        return choice
    }
}
