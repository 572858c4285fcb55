/// A token bucket: on average `rate` admissions per second, with bursts of up to `burst`.
///
/// Pure value type driven by a monotonic clock in nanoseconds, so it is tested without sleeping.
/// The engine loop consults it at admission and, when it is empty, sleeps in `curl_multi_poll`
/// until the next token is due.
struct TokenBucket: Sendable {
    private(set) var rate: Double
    private(set) var burst: Double
    private var tokens: Double
    private var last: UInt64

    /// A bucket that starts full, or with one token (`full: false`).
    init(rate: Double, burst: Double, now: UInt64, full: Bool = true) {
        self.rate = rate
        self.burst = max(1, burst)
        self.tokens = full ? self.burst : 1
        self.last = now
    }

    /// Takes a token if one is available.
    /// - Returns: `nil` when a token was taken, else the nanoseconds until one will be.
    mutating func take(now: UInt64) -> UInt64? {
        let wait = self.wait(now: now)
        if wait == nil {
            self.tokens -= 1
        }
        return wait
    }

    /// Goes on at a new rate and burst from `now`, keeping the tokens it holds (up to the burst).
    mutating func change(rate: Double, burst: Double, now: UInt64) {
        _ = self.wait(now: now)
        self.rate = rate
        self.burst = max(1, burst)
        self.tokens = min(self.tokens, self.burst)
    }

    /// Whether a token is available, without taking it: `nil` when one is, else the nanoseconds
    /// until one will be. Lets two buckets be asked before either is taken from.
    mutating func wait(now: UInt64) -> UInt64? {
        if now > self.last {
            self.tokens = min(self.burst, self.tokens + Double(now - self.last) * self.rate / 1e9)
            self.last = now
        }
        if self.tokens >= 1 {
            return nil
        }
        // Checked: a rate near zero would make the wait larger than UInt64 holds. An hour at most;
        // the loop asks again when it wakes.
        let wait = ((1 - self.tokens) / self.rate * 1e9).rounded(.up)
        return wait.isFinite && wait < Self.longestWait ? UInt64(Swift.max(1, wait)) : UInt64(Self.longestWait)
    }

    private static let longestWait = 3_600e9
}

extension Engine.RateLimit {
    /// The burst a rate gets unless told otherwise: a quarter second of it, at least 1.
    ///
    /// A whole second's burst let a second of starts out within milliseconds after any pause (a
    /// `Retry-After`, a slow stretch), a herd that a host limiting over a short window answers with
    /// 429s. A quarter second keeps it small.
    public static func defaultBurst(requestsPerSecond rate: Double) -> Int {
        max(1, Int((rate / 4).rounded(.down)))
    }

    /// One part's limit of a whole job's `total` starts per second (and `burst`, when given),
    /// split into `shares` equal parts: a shard of `--shard K/N` takes 1/N of the job's budget.
    public static func share(ofTotal total: Double, burst: Int? = nil, shares: Int = 1) -> Engine.RateLimit {
        let parts = Double(max(1, shares))
        let rate = total / parts
        let starts = burst.map { max(1, Int((Double($0) / parts).rounded(.down))) }
        return Engine.RateLimit(requestsPerSecond: rate, burst: starts ?? Self.defaultBurst(requestsPerSecond: rate))
    }
}
