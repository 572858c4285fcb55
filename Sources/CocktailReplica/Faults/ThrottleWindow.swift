/// A fixed one-second window counter: at most `limit` requests are admitted per window.
///
/// A value type without a clock: the caller passes monotonic nanoseconds, so tests drive it.
struct ThrottleWindow: Sendable {
    let limit: Int
    private var windowStart: UInt64 = 0
    private var admitted = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a request at `now`; `true` if it is within the limit of the current window.
    mutating func admit(nowNanoseconds now: UInt64) -> Bool {
        if self.admitted == 0 || now &- self.windowStart >= 1_000_000_000 {
            self.windowStart = now
            self.admitted = 0
        }
        self.admitted += 1
        return self.admitted <= self.limit
    }

    /// Whole seconds until the current window ends, at least 1 (for `Retry-After`).
    func secondsUntilNextWindow(nowNanoseconds now: UInt64) -> Int {
        let elapsed = now &- self.windowStart
        let remaining = elapsed >= 1_000_000_000 ? 0 : 1_000_000_000 - elapsed
        return max(1, Int((remaining + 999_999_999) / 1_000_000_000))
    }
}
