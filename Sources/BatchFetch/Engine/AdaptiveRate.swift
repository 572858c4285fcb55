/// One host's start rate under ``Engine/HostLimits/adaptive``, paced as TCP paces a connection:
/// it doubles while answers are good until the host first throttles (slow start), then rises by a
/// tenth of where it was cut to each step and is cut to 70% when the host throttles again
/// (additive increase, multiplicative decrease). As CUBIC does, it rises quickly only up to 90%
/// of the rate the host last throttled at and creeps (1% a step) beyond it, because every probe
/// past a host's limit costs 429s and often a `Retry-After` pause. It never goes above the host's
/// configured rate or ``maximumRate``, and never below one start a second. (The host budgets
/// raise it only while the rate, not the slots, holds the host's work back: see
/// ``HostBudgets/answered(_:now:)``.)
///
/// Pure value driven by the state machine's clock in nanoseconds. Threading: engine thread.
struct AdaptiveRate: Sendable, Hashable {
    /// Where a host without a configured rate starts: low, so that slow start finds a host's
    /// limit within a few steps while the overshoot that finds it stays a handful of requests.
    static let initialRate = 10.0
    static let minimumRate = 1.0
    /// The most starts a second any host is given, rule or not: a bound that keeps every
    /// conversion of a rate (bursts, nanoseconds) far inside its type, whatever a server answers.
    static let maximumRate = 1_000_000.0
    /// How often the rate may rise, and how long after a cut more throttled answers count as the
    /// same event (the requests already in flight at the old rate).
    static let step: UInt64 = 250_000_000
    /// What a cut keeps: CUBIC's 0.7 rather than Reno's 0.5, so a host runs nearer its limit.
    static let cutFactor = 0.7

    /// The configured rate (a `--host-rate` rule), or ``maximumRate`` without one or above it.
    let ceiling: Double
    private(set) var rate: Double
    private(set) var slowStart = true
    /// Times the host throttled it.
    private(set) var cuts = 0
    private var increase = 0.0
    /// The rate the host last throttled at.
    private var throttledAt = 0.0
    private var lastCut: UInt64?
    private var lastRaise: UInt64

    /// A host's rate: at its rule where it has one, else at ``initialRate``.
    init(ceiling rule: Double?, now: UInt64) {
        let bounded = Swift.min(rule ?? Self.maximumRate, Self.maximumRate)
        self.ceiling = bounded >= Self.minimumRate ? bounded : Self.minimumRate
        self.rate = rule == nil ? Swift.min(self.ceiling, Self.initialRate) : self.ceiling
        self.lastRaise = now
    }

    /// The host throttled (a 429 or 503) or failed as an overloaded host does (timeouts, refused
    /// connections): the rate is cut, unless it was cut less than a step ago.
    /// - Returns: whether the rate changed.
    mutating func throttled(now: UInt64) -> Bool {
        self.slowStart = false
        if let last = self.lastCut, now &- last < Self.step {
            return false
        }
        self.throttledAt = self.rate
        self.rate = Swift.max(Self.minimumRate, self.rate * Self.cutFactor)
        self.increase = Swift.max(Self.minimumRate, self.rate / 10)
        self.lastCut = now
        self.lastRaise = now
        self.cuts += 1
        return true
    }

    /// A good answer while the host had more work waiting for its rate: the rate rises, at most
    /// once a step.
    /// - Returns: whether the rate changed.
    mutating func answered(now: UInt64) -> Bool {
        guard now &- self.lastRaise >= Self.step else {
            return false
        }
        self.lastRaise = now
        let plateau = 0.9 * self.throttledAt
        let raised =
            self.slowStart
            ? self.rate * 2
            : self.rate < plateau ? Swift.min(plateau, self.rate + self.increase) : self.rate * 1.01
        let next = Swift.min(self.ceiling, raised)
        guard next != self.rate else {
            return false
        }
        self.rate = next
        return true
    }
}
