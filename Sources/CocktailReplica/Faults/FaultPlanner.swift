/// What one response should be, before the document is looked up.
struct FaultPlan: Sendable, Hashable {
    /// The fault to inject, or `nil` for a normal response.
    var fault: FaultKind?
    /// The status for `.fail`, `.failFirst` and `.throttle`.
    var status: Int
    /// How long to wait before answering, in milliseconds.
    var delayMilliseconds: Int

    static let normal = FaultPlan(fault: nil, status: 200, delayMilliseconds: 0)
}

/// Decides each response's fault from the seed, the request target and its attempt number.
///
/// Pure and `Sendable`: the decision depends only on its inputs, never on time or on the order in
/// which connections are served (throttling, which is about time, is decided by the caller and
/// passed in). Attempt `n` of a target is the `n`-th request (0-based) for that exact path and query.
struct FaultPlanner: Sendable {
    private let seed: UInt64
    private let faults: ReplicaFaults
    private let thresholds: [(kind: FaultKind, upTo: Double)]
    private let rollsDice: Bool

    init(seed: UInt64, faults: ReplicaFaults) {
        self.seed = seed
        self.faults = faults
        var total = 0.0
        self.thresholds = faults.exclusiveRates.compactMap { kind, rate in
            guard rate > 0 else { return nil }
            total += rate
            return (kind, total)
        }
        self.rollsDice = faults.rollsDice
        self.isTrivial =
            !faults.rollsDice && faults.failFirst == 0 && faults.throttle == nil && faults.latency == nil
    }

    /// Whether every plan is ``FaultPlan/normal`` (no fault, no delay), so planning can be skipped.
    let isTrivial: Bool

    /// The plan for attempt `attempt` (0-based) of `target`; `throttled` when over the rate limit.
    func plan(target: some Sequence<UInt8>, attempt: Int, throttled: Bool) -> FaultPlan {
        var plan = FaultPlan.normal
        var dice = SplitMix64(seed: 0)
        if self.rollsDice {
            let targetHash = SplitMix64.mix(self.seed ^ StableHash.fnv1a(target))
            dice = SplitMix64(seed: targetHash ^ (UInt64(attempt) &* 0xD1B5_4A32_D192_ED03))
        }
        if let latency = self.faults.latency {
            let jitter = latency.jitter > 0 ? dice.below(2 * latency.jitter + 1) - latency.jitter : 0
            plan.delayMilliseconds = max(0, latency.milliseconds + jitter)
        }
        if attempt < self.faults.failFirst {
            plan.fault = .failFirst
            plan.status = self.faults.failFirstStatus
            return plan
        }
        if throttled {
            plan.fault = .throttle
            plan.status = 429
            return plan
        }
        guard let last = self.thresholds.last else {
            return plan
        }
        let roll = dice.unit()
        guard roll < last.upTo, let chosen = self.thresholds.first(where: { roll < $0.upTo }) else {
            return plan
        }
        plan.fault = chosen.kind
        if chosen.kind == .fail {
            plan.status = self.faults.failStatuses[dice.below(self.faults.failStatuses.count)]
        }
        return plan
    }
}
