/// One host's start rate under ``Engine/HostLimits/adaptive``, paced as TCP paces a connection:
/// it doubles while answers are good until the host first throttles (slow start), then rises by a
/// tenth of where it was cut to each step and is cut to 70% when the host throttles again
/// (additive increase, multiplicative decrease). As CUBIC does, it rises quickly only up to 90%
/// of the rate the host last throttled at and creeps (1% a step) beyond it, because every probe
/// past a host's limit costs 429s and often a `Retry-After` pause. When the last cut came with
/// such a pause and the host let enough through since, the cut goes instead to 95% of that rate,
/// as BBR measures delivery rather than guessing: the host ran its bucket dry at both ends of the
/// window and refilled it during the pause, so what it let through is what it refills, its limit;
/// one cut lands under it where 0.7 steps down from a slow start's overshoot would each cost a
/// pause. (Without a pause in the window, a rate still ramping up would make it an underestimate.) It never goes above the host's
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
    /// What a cut keeps when the host also paused the run (`Retry-After`): Reno's half.
    static let pausedCutFactor = 0.5
    /// What a cut keeps of the rate the host was measured to let through.
    static let measuredFactor = 0.95
    /// The least a window needs for its rate to count: a second, and ten good answers.
    static let minimumWindow: UInt64 = 1_000_000_000
    static let minimumAnswers = 10

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
    /// Good answers since the last cut.
    private var good = 0
    /// Whether the last cut came with a `Retry-After` pause.
    private var pausedAtLastCut = false

    /// A host's rate: at its rule where it has one, else at ``initialRate``.
    init(ceiling rule: Double?, now: UInt64) {
        let bounded = Swift.min(rule ?? Self.maximumRate, Self.maximumRate)
        self.ceiling = bounded >= Self.minimumRate ? bounded : Self.minimumRate
        self.rate = rule == nil ? Swift.min(self.ceiling, Self.initialRate) : self.ceiling
        self.lastRaise = now
    }

    /// A good answer, whether or not the rate may rise: counted for the next cut's measurement.
    mutating func succeeded() {
        self.good += 1
    }

    /// The rate the host let through since the last cut, when that cut paused the host and the
    /// window is long enough to say.
    private func measured(now: UInt64) -> Double? {
        guard self.pausedAtLastCut, let last = self.lastCut else {
            return nil
        }
        let elapsed = now &- last
        guard elapsed >= Self.minimumWindow, self.good >= Self.minimumAnswers else {
            return nil
        }
        return Double(self.good) / (Double(elapsed) / 1e9)
    }

    /// The host throttled (a 429 or 503) or failed as an overloaded host does (timeouts, refused
    /// connections): the rate is cut, unless it was cut less than a step ago.
    /// - Parameter paused: whether the answer paused the host (`Retry-After`).
    /// - Returns: whether the rate changed.
    mutating func throttled(now: UInt64, paused: Bool = false) -> Bool {
        self.slowStart = false
        if let last = self.lastCut, now &- last < Self.step {
            return false
        }
        let measured = self.measured(now: now)
        self.throttledAt = measured.map { Swift.min(self.rate, $0) } ?? self.rate
        // A host that pauses the run at each probe past its limit is stepped down further.
        let cut = self.rate * (paused ? Self.pausedCutFactor : Self.cutFactor)
        self.rate = Swift.max(Self.minimumRate, measured == nil ? cut : self.throttledAt * Self.measuredFactor)
        self.good = 0
        self.pausedAtLastCut = paused
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
